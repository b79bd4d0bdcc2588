// ppm.h - reads binary PPM (P6) images for the image classifier examples.
#ifndef ONNXCC_EXAMPLES_PPM_H
#define ONNXCC_EXAMPLES_PPM_H

#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

namespace examples {

// Reads the next header number of a PPM file, skipping white space and
// comments; -1 when there is none.
inline long readHeaderNumber(std::FILE *file) {
  int c = std::fgetc(file);
  for (;;) {
    if (c == '#') {
      while (c != EOF && c != '\n')
        c = std::fgetc(file);
    } else if (c != EOF && std::isspace(c)) {
      c = std::fgetc(file);
    } else {
      break;
    }
  }
  long value = -1;
  while (c != EOF && std::isdigit(c) && value < 100000) {
    value = (value < 0 ? 0 : value * 10) + (c - '0');
    c = std::fgetc(file);
  }
  // Exactly one white-space character ends a number (the last one before
  // the pixels too).
  if (value >= 0 && !(c != EOF && std::isspace(c)))
    return -1;
  return value;
}

// Reads a P6 image of size x size pixels with maxval 255 into pixels (RGB,
// row-major); on failure, returns the error message.
inline std::string readPpm(const char *path, int size, std::vector<unsigned char> &pixels) {
  std::FILE *file = std::fopen(path, "rb");
  if (!file)
    return "cannot open the file";
  std::string error;
  char magic[2] = {0, 0};
  if (std::fread(magic, 1, 2, file) != 2 || magic[0] != 'P' || magic[1] != '6') {
    error = "not a binary PPM (P6) image";
  } else {
    long width = readHeaderNumber(file), height = readHeaderNumber(file);
    long maxval = readHeaderNumber(file);
    if (width <= 0 || height <= 0 || maxval <= 0 || maxval > 65535) {
      error = "malformed PPM header";
    } else if (maxval != 255) {
      error = "maxval " + std::to_string(maxval) + " (only 8-bit images, maxval 255)";
    } else if (width != size || height != size) {
      error = "the image is " + std::to_string(width) + "x" + std::to_string(height) +
              "; the model takes " + std::to_string(size) + "x" + std::to_string(size);
    } else {
      pixels.resize(size_t(size) * size * 3);
      size_t n = std::fread(pixels.data(), 1, pixels.size(), file);
      if (n != pixels.size())
        error = "pixel data cut short (" + std::to_string(n) + " of " +
                std::to_string(pixels.size()) + " bytes)";
    }
  }
  std::fclose(file);
  return error;
}

} // namespace examples

#endif // ONNXCC_EXAMPLES_PPM_H
