// sequences.h - reads token sequences for the text classifier examples.
#ifndef ONNXCC_EXAMPLES_SEQUENCES_H
#define ONNXCC_EXAMPLES_SEQUENCES_H

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace examples {

inline constexpr int64_t kVocabulary = 100;

// Reads the sequences; on failure, returns the error message.
inline std::string readSequences(const char *path, std::vector<std::vector<int64_t>> &sequences) {
  std::ifstream in(path);
  if (!in)
    return "cannot open the file";
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream words(line);
    std::vector<int64_t> ids;
    std::string word;
    while (words >> word) {
      size_t end = 0;
      long long id = -1;
      try {
        id = std::stoll(word, &end);
      } catch (...) {
      }
      if (end != word.size() || id < 0 || id >= kVocabulary)
        return "line " + std::to_string(number) + ": '" + word + "' is not a token id (0.." +
               std::to_string(kVocabulary - 1) + ")";
      ids.push_back(id);
    }
    if (!ids.empty())
      sequences.push_back(ids);
  }
  if (sequences.empty())
    return "no sequences";
  return "";
}

} // namespace examples

#endif // ONNXCC_EXAMPLES_SEQUENCES_H
