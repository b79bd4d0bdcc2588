// main.cpp - an application that links a model compiled by onnxcc.
//
//   onnxcc compile examples/models/tiny_cnn.onnx -o out --shape input=1x3x8x8
//   c++ -std=c++17 -O2 -Iout examples/app/main.cpp out/tiny_cnn.cpp -o out/app
//
// The model is plain C++ in out/: no runtime library, no allocation in run().
#include "tiny_cnn.h"

#include <cstdio>

int main() {
  // An 8x8 RGB image: a bright diagonal on a dark background.
  float image[1 * 3 * 8 * 8];
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x)
        image[(c * 8 + y) * 8 + x] = x == y ? 1.0f : 0.1f * c;

  static tiny_cnn::Model model; // holds its arena (tiny_cnn_ARENA_SIZE bytes)
  float probabilities[10];
  if (int status = model.run(image, probabilities)) {
    std::fprintf(stderr, "tiny_cnn_run failed with status %d\n", status);
    return 1;
  }
  int best = 0;
  float sum = 0;
  for (int i = 0; i < 10; ++i) {
    sum += probabilities[i];
    if (probabilities[i] > probabilities[best])
      best = i;
  }
  std::printf("class %d (p = %.3f), probabilities sum to %.3f, arena %zu bytes\n", best,
              probabilities[best], sum, static_cast<size_t>(tiny_cnn_ARENA_SIZE));
  return 0;
}
