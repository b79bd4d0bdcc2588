// two_models - two models compiled by onnxcc linked into one program.
//
//   two_models IMAGE.ppm SEQUENCES.txt
//
// The image classifier (NAME stripes) and the text classifier (NAME
// text_encoder) are separate libraries of one program: every global symbol a
// model defines carries its NAME_ prefix (stripes_run, text_encoder_weights,
// ...), and the runtime-support headers both include define inline functions
// only, so the two link side by side. Prints what `classify IMAGE.ppm` and
// then what `classify_text SEQUENCES.txt` print.
#include "classify_image.h"
#include "sequences.h"
#include "text_encoder.h"

#include <cstdio>
#include <new>
#include <string>
#include <vector>

namespace {

int classifyText(const char *path) {
  std::vector<std::vector<int64_t>> sequences;
  std::string error = examples::readSequences(path, sequences);
  if (!error.empty()) {
    std::fprintf(stderr, "two_models: error: %s: %s\n", path, error.c_str());
    return 1;
  }
  for (const auto &ids : sequences) {
    int64_t seq = static_cast<int64_t>(ids.size());
    // An arena of exactly the size this length needs.
    text_encoder::Model model;
    model.arena_size = text_encoder::Model::arenaSize(1, seq);
    model.arena = ::operator new(model.arena_size ? model.arena_size : 1,
                                 std::align_val_t(text_encoder_ARENA_ALIGN));
    float probabilities[2];
    int status = model.run(1, seq, ids.data(), probabilities);
    ::operator delete(model.arena, std::align_val_t(text_encoder_ARENA_ALIGN));
    if (status) {
      std::fprintf(stderr, "two_models: error: text_encoder_run failed with status %d\n",
                   status);
      return 1;
    }
    std::printf("length %lld class %d probabilities %.6e %.6e\n", static_cast<long long>(seq),
                probabilities[1] > probabilities[0] ? 1 : 0, probabilities[0], probabilities[1]);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: two_models IMAGE.ppm SEQUENCES.txt\n");
    return 2;
  }
  if (int status = examples::classifyImage("two_models", argv[1]))
    return status;
  return classifyText(argv[2]);
}
