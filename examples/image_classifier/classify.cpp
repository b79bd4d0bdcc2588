// classify - an image classifier built around a model compiled by onnxcc.
//
//   classify IMAGE.ppm
//
// Reads a 32x32 binary PPM (P6) image, runs the CNN of stripes.onnx on it (compiled
// at build time by onnxcc_add_model, see examples/CMakeLists.txt) and prints the
// most likely class and the probability of each class:
//
//   class 1 vertical
//   probabilities 6.645056e-09 9.999630e-01 1.424404e-05 2.271666e-05
//
// A file that is not such an image is an error: one line on stderr, exit status 1.
#include "classify_image.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: classify IMAGE.ppm (a 32x32 binary PPM)\n");
    return 2;
  }
  return examples::classifyImage("classify", argv[1]);
}
