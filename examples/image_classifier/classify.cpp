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
#include "ppm.h"
#include "stripes.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr int kSize = 32;
const char *const kClasses[] = {"horizontal", "vertical", "diagonal", "checkerboard"};

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: classify IMAGE.ppm (a %dx%d binary PPM)\n", kSize, kSize);
    return 2;
  }
  std::vector<unsigned char> pixels;
  std::string error = examples::readPpm(argv[1], kSize, pixels);
  if (!error.empty()) {
    std::fprintf(stderr, "classify: error: %s: %s\n", argv[1], error.c_str());
    return 1;
  }
  // float32[1, 3, 32, 32]: channel-major, values in 0..1 (the script that
  // trained the model feeds it the same).
  static float image[3 * kSize * kSize];
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < kSize * kSize; ++i)
      image[c * kSize * kSize + i] = pixels[size_t(i) * 3 + c] / 255.0f;

  static stripes::Model model;
  float probabilities[4];
  if (int status = model.run(image, probabilities)) {
    std::fprintf(stderr, "classify: error: stripes_run failed with status %d\n", status);
    return 1;
  }
  int best = 0;
  for (int k = 1; k < 4; ++k)
    if (probabilities[k] > probabilities[best])
      best = k;
  std::printf("class %d %s\nprobabilities", best, kClasses[best]);
  for (float p : probabilities)
    std::printf(" %.6e", p);
  std::printf("\n");
  return 0;
}
