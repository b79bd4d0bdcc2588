// classify_image.h - runs the CNN of stripes.onnx (compiled by onnxcc, NAME
// stripes) on a 32x32 binary PPM image and prints its most likely class and
// the probability of each class:
//
//   class 1 vertical
//   probabilities 6.645056e-09 9.999630e-01 1.424404e-05 2.271666e-05
//
// Used by classify and two_models.
#ifndef EXAMPLES_CLASSIFY_IMAGE_H
#define EXAMPLES_CLASSIFY_IMAGE_H

#include "ppm.h"
#include "stripes.h"

#include <cstdio>
#include <string>
#include <vector>

namespace examples {

/// Classifies the image at `path`; 0 on success, else 1 after one error line
/// on stderr that starts with `program`.
inline int classifyImage(const char *program, const char *path) {
  constexpr int kSize = 32;
  static const char *const kClasses[] = {"horizontal", "vertical", "diagonal", "checkerboard"};
  std::vector<unsigned char> pixels;
  std::string error = readPpm(path, kSize, pixels);
  if (!error.empty()) {
    std::fprintf(stderr, "%s: error: %s: %s\n", program, path, error.c_str());
    return 1;
  }
  // float32[1, 3, 32, 32]: channel-major, values in 0..1 (the script that
  // trained the model feeds it the same).
  static float image[3 * kSize * kSize];
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < kSize * kSize; ++i)
      image[c * kSize * kSize + i] = pixels[size_t(i) * 3 + c] / 255.0f;

  static stripes::Model model; // holds its arena (stripes_ARENA_SIZE bytes)
  float probabilities[4];
  if (int status = model.run(image, probabilities)) {
    std::fprintf(stderr, "%s: error: stripes_run failed with status %d\n", program, status);
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

} // namespace examples

#endif // EXAMPLES_CLASSIFY_IMAGE_H
