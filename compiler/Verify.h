//===- Verify.h - onnxcc verify: compile, build, run, compare ------------===//
#ifndef ONNXCC_COMPILER_VERIFY_H
#define ONNXCC_COMPILER_VERIFY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace onnxcc {

struct VerifyOptions {
  /// The ONNX backend rule: |actual - expected| <= atol + rtol * |expected|.
  double atol = 1e-7;
  double rtol = 1e-3;
  /// Where the generated model, the harness and its binary go. Empty: a
  /// temporary folder that is removed afterwards. A kept folder doubles as a
  /// build cache: the harness is rebuilt only when its sources change.
  std::string keepDir;
  /// The C++ compiler; empty means $CXX, else `c++`.
  std::string cxx;
  /// Optimization flag for the harness build (the conformance runner trades
  /// -O2 for -O1 to build a thousand small programs faster).
  std::string cxxOptLevel = "-O2";
  /// Skip compiling: copy the generated files of this folder instead. Lets the
  /// harness and the comparison be tested with a hand-written model.
  std::string generatedDir;
  /// Passed to `onnxcc compile` (see CompileOptions): the kernels' CPU and
  /// the threads heavy layers are split over.
  std::string targetCpu = "native";
  int64_t threads = 1;
};

/// Which step of `onnxcc verify` failed; the conformance runner tells a model
/// the compiler rejects (unsupported) from a broken build or run (error).
enum class VerifyStage { Compile, Build, Dataset, Run };

/// Prefix the one-line error of `stage` carries ("compile", "build", ...).
llvm::StringRef verifyStageName(VerifyStage stage);

/// Compiles `modelPath` to C++, builds it with a generic harness, runs it on
/// every dataset under `datasetDir` (a `test_data_set_N` folder or a folder of
/// them) and prints one line per output and dataset to `os`. Returns whether
/// every output matched; errors are one line, prefixed by their stage name.
llvm::Expected<bool> verifyModel(llvm::StringRef modelPath, llvm::StringRef datasetDir,
                                 const VerifyOptions &options, llvm::raw_ostream &os);

/// An error raised by verifyModel, carrying the stage that failed.
class VerifyError : public llvm::ErrorInfo<VerifyError> {
public:
  static char ID;
  VerifyError(VerifyStage stage, std::string message)
      : stage(stage), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  VerifyStage getStage() const { return stage; }

private:
  VerifyStage stage;
  std::string message;
};

} // namespace onnxcc

#endif // ONNXCC_COMPILER_VERIFY_H
