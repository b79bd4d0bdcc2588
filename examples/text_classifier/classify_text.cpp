// classify_text - a transformer text classifier compiled by onnxcc with a
// symbolic sequence length.
//
//   classify_text SEQUENCES.txt
//
// Each line of SEQUENCES.txt is a sequence of token ids (0..99). One compiled
// model serves every length: the arena is sized with
// text_encoder_arena_size(batch, seq) for the longest sequence and reused for
// all of them. Prints one line per sequence:
//
//   length 7 class 0 probabilities 5.334545e-01 4.665455e-01
#include "sequences.h"
#include "text_encoder.h"

#include <cstdint>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: classify_text SEQUENCES.txt (token ids, one sequence a line)\n");
    return 2;
  }
  std::vector<std::vector<int64_t>> sequences;
  std::string error = examples::readSequences(argv[1], sequences);
  if (!error.empty()) {
    std::fprintf(stderr, "classify_text: error: %s: %s\n", argv[1], error.c_str());
    return 1;
  }

  // One arena for every sequence: the size for the longest one.
  size_t arenaSize = 0;
  for (const auto &ids : sequences) {
    size_t size = text_encoder_arena_size(1, static_cast<int64_t>(ids.size()));
    std::fprintf(stderr, "length %zu needs %zu bytes of arena\n", ids.size(), size);
    if (size > arenaSize)
      arenaSize = size;
  }
  text_encoder::Model model;
  model.arena_size = arenaSize;
  model.arena =
      ::operator new(arenaSize ? arenaSize : 1, std::align_val_t(text_encoder_ARENA_ALIGN));

  int exitStatus = 0;
  for (const auto &ids : sequences) {
    float probabilities[2];
    int64_t seq = static_cast<int64_t>(ids.size());
    if (int status = model.run(/*batch=*/1, seq, ids.data(), probabilities)) {
      std::fprintf(stderr, "classify_text: error: text_encoder_run failed with status %d\n",
                   status);
      exitStatus = 1;
      break;
    }
    std::printf("length %lld class %d probabilities %.6e %.6e\n", static_cast<long long>(seq),
                probabilities[1] > probabilities[0] ? 1 : 0, probabilities[0], probabilities[1]);
  }
  ::operator delete(model.arena, std::align_val_t(text_encoder_ARENA_ALIGN));
  return exitStatus;
}
