//===- Verify.h - onnxcc verify: compile, build, run, compare ------------===//
#ifndef ONNXCC_COMPILER_VERIFY_H
#define ONNXCC_COMPILER_VERIFY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
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
  /// Where precompiled forms of onnxcc_rt.h are kept and shared between
  /// builds (--pch-cache; the conformance runner's thousands of harnesses);
  /// empty: none.
  std::string pchDir;
  /// Skip compiling: copy the generated files of this folder instead. Lets the
  /// harness and the comparison be tested with a hand-written model.
  std::string generatedDir;
  /// Passed to `onnxcc compile` (see CompileOptions): the kernels' CPU and
  /// the threads heavy layers are split over.
  std::string targetCpu = "native";
  int64_t threads = 1;
  /// Passed to `onnxcc compile` (--bound, see CompileOptions::bounds).
  std::vector<std::pair<std::string, int64_t>> bounds;
  /// The code generator (cpp or halide) and, for halide, the autoscheduler
  /// (empty: the emitter's schedule); see compiler/HalideTarget.h.
  std::string target = "cpp";
  std::string halideAutoscheduler;
  /// Runs the harness through this program and its leading arguments (an
  /// emulator such as qemu-aarch64, for code cross-built with `cxx`); empty:
  /// runs it directly.
  std::string runWith;
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

// The pieces of verify that `onnxcc bench` builds and runs its own harness
// with.

/// The C++ compiler and its leading arguments: `cxx`, else $CXX (which may
/// carry arguments, e.g. "ccache g++"), else c++.
llvm::Expected<llvm::SmallVector<std::string>> findCxxCompiler(llvm::StringRef cxx);

/// Builds WORKDIR/run from WORKDIR/NAME.cpp (written by `onnxcc compile`) and
/// `harnessSource`, which goes to WORKDIR/main.cpp: `CXX -std=c++17 FLAGS
/// NAME.cpp main.cpp -o run -lm -lpthread`, `cxxFlags` split at spaces. The
/// build is skipped when WORKDIR/run.stamp shows the same command and inputs;
/// `*built` (when given) tells whether the compiler ran. Errors are VerifyErrors
/// of stage Build.
llvm::Error buildHarnessProgram(llvm::StringRef workDir, llvm::StringRef name,
                                llvm::StringRef harnessSource, llvm::StringRef cxx,
                                llvm::StringRef cxxFlags, std::string &runPath,
                                bool *built = nullptr);

/// Runs `args` (args[0] is the program) with stdout and stderr sent to the
/// given files; a VerifyError of `stage` (with the child's first stderr line)
/// when it cannot start, crashes or exits non-zero. `what` names it.
llvm::Error runHarnessProgram(VerifyStage stage, llvm::StringRef what,
                              llvm::ArrayRef<std::string> args, llvm::StringRef stdoutPath,
                              llvm::StringRef stderrPath);

/// DIR/NAME holding `text`, with its precompiled form DIR/NAME.gch next to it
/// (which GCC uses for `-include DIR/NAME`; another compiler reads the header
/// itself), built by `compileCommand` (the compiler and the flags of the
/// builds that will include it) on first use and shared by every later call
/// with the same folder. Empty when writing or precompiling it fails. DIR must
/// exist and be named after everything the precompiled form depends on.
std::string precompiledHeader(llvm::StringRef dir, llvm::StringRef name, llvm::StringRef text,
                              llvm::ArrayRef<std::string> compileCommand);

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
