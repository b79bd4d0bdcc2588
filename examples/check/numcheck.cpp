// numcheck - runs an example program and checks what it prints.
//
//   numcheck [--atol A] [--rtol R] EXPECTED... -- PROGRAM [ARGS...]
//       PROGRAM must exit with status 0, and its standard output, split at
//       white space, must match the EXPECTED files' words (concatenated): a word
//       that is a number in both must agree within |got - want| <= A + R*|want|
//       (default A = 1e-6, R = 1e-4), any other word exactly.
//   numcheck --fails TEXT -- PROGRAM [ARGS...]
//       PROGRAM must exit with a non-zero status and print TEXT (on its
//       standard output or error).
//
// The examples' tests (examples/CMakeLists.txt) use it: the EXPECTED files
// are written by the scripts that generate the models, from PyTorch.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "numcheck: %s\n", message.c_str());
  std::exit(1);
}

// Runs argv, returns its exit status and what it wrote to stdout (and to
// stderr too when withStderr).
int runCapture(char **argv, bool withStderr, std::string &output) {
  int fds[2];
  if (pipe(fds) != 0)
    fail(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0)
    fail(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(fds[1], 1);
    if (withStderr)
      dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execv(argv[0], argv);
    std::fprintf(stderr, "numcheck: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  char buffer[4096];
  for (;;) {
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    output.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      fail(std::string("waitpid: ") + std::strerror(errno));
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    result.push_back(word);
  return result;
}

bool parseNumber(const std::string &word, double &value) {
  char *end = nullptr;
  errno = 0;
  value = std::strtod(word.c_str(), &end);
  return end != word.c_str() && *end == '\0' && errno == 0 && std::isfinite(value);
}

double parseOption(const char *text, const char *name) {
  double value = 0;
  if (!text || !parseNumber(text, value) || value < 0)
    fail(std::string(name) + " needs a non-negative number");
  return value;
}

} // namespace

int main(int argc, char **argv) {
  double atol = 1e-6, rtol = 1e-4;
  const char *failsText = nullptr;
  std::vector<std::string> expectedFiles;
  int i = 1;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (!std::strcmp(argv[i], "--atol"))
      atol = parseOption(argv[++i], "--atol");
    else if (!std::strcmp(argv[i], "--rtol"))
      rtol = parseOption(argv[++i], "--rtol");
    else if (!std::strcmp(argv[i], "--fails")) {
      if (!(failsText = argv[++i]))
        fail("--fails needs a text");
    } else
      expectedFiles.push_back(argv[i]);
  }
  if (i + 1 >= argc || (failsText == nullptr) == expectedFiles.empty())
    fail("usage: numcheck [--atol A] [--rtol R] EXPECTED... -- PROGRAM [ARGS...]\n"
         "       numcheck --fails TEXT -- PROGRAM [ARGS...]");
  char **program = argv + i + 1;

  std::string output;
  int status = runCapture(program, failsText != nullptr, output);
  std::fputs(output.c_str(), stdout);
  if (failsText) {
    if (status == 0)
      fail(std::string(program[0]) + " succeeded; it should have failed");
    if (output.find(failsText) == std::string::npos)
      fail(std::string("the output does not contain '") + failsText + "'");
    std::printf("numcheck: failed as expected (status %d)\n", status);
    return 0;
  }
  if (status != 0)
    fail(std::string(program[0]) + " exited with status " + std::to_string(status));

  std::string expectedText;
  for (const std::string &path : expectedFiles) {
    std::ifstream in(path);
    if (!in)
      fail("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    expectedText += text.str() + "\n";
  }
  std::vector<std::string> got = words(output), want = words(expectedText);
  double worst = 0;
  for (size_t k = 0; k < got.size() && k < want.size(); ++k) {
    double g = 0, w = 0;
    if (parseNumber(got[k], g) && parseNumber(want[k], w)) {
      double error = std::fabs(g - w);
      worst = std::fmax(worst, error);
      if (error > atol + rtol * std::fabs(w))
        fail("word " + std::to_string(k + 1) + ": got " + got[k] + ", expected " + want[k]);
    } else if (got[k] != want[k]) {
      fail("word " + std::to_string(k + 1) + ": got '" + got[k] + "', expected '" + want[k] +
           "'");
    }
  }
  if (got.size() != want.size())
    fail("got " + std::to_string(got.size()) + " words, expected " +
         std::to_string(want.size()));
  std::printf("numcheck: %zu words match (largest difference %.3g)\n", got.size(), worst);
  return 0;
}
