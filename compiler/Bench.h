//===- Bench.h - onnxcc bench: compile, build, time ----------------------===//
#ifndef ONNXCC_COMPILER_BENCH_H
#define ONNXCC_COMPILER_BENCH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace onnxcc {

struct BenchOptions {
  /// Threads of the generated code (`onnxcc compile --threads`).
  unsigned threads = 1;
  /// The CPU the generated code is for (`onnxcc compile --target-cpu`).
  std::string targetCpu = "native";
  /// The code generator (cpp or halide) and, for halide, the autoscheduler
  /// (empty: the emitter's schedule); see compiler/HalideTarget.h.
  std::string target = "cpp";
  std::string halideAutoscheduler;
  /// Timed runs, after `warmup` untimed ones.
  unsigned iters = 50;
  unsigned warmup = 5;
  /// Seed of the random inputs.
  uint64_t seed = 1;
  /// Instead of random inputs: one file per model input, in model order,
  /// holding its raw bytes (the harness's --input).
  std::vector<std::string> inputFiles;
  /// Dims of inputs (input name -> dims); inputs with symbolic dims that are
  /// not named here get 1 for their first dim and 64 for the others.
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  /// Where the generated model, the harness and its binary go (reused as a
  /// build cache); empty: a temporary folder, removed afterwards.
  std::string keepDir;
  /// The C++ compiler (empty: $CXX, else c++) and its flags for the build.
  std::string cxx;
  std::string cxxFlags = "-O2";
  /// When set, every result (the per-run times included) is written there as
  /// one JSON object.
  std::string jsonPath;
  /// Compile with per-node timing hooks (`onnxcc compile --profile`), print
  /// the time of each node over the timed runs and write a Chrome trace.
  bool profile = false;
  /// With `profile`: the trace file (empty: onnxcc_profile_NAME.json in the
  /// current folder) and the nodes the table shows (0: all).
  std::string tracePath;
  unsigned profileTop = 30;
};

/// Compiles `modelPath` with its inputs' dims fixed, builds it with a timing
/// harness (WORKDIR/run, see Bench.cpp for its flags), runs it on seeded
/// random inputs and prints a summary to `os` that ends with the one line
/// `median_ms=<x> p90_ms=<y> gflops=<z>`; with `profile`, a table of the
/// nodes by time before it. Errors are one line.
llvm::Error benchModel(llvm::StringRef modelPath, const BenchOptions &options,
                       llvm::raw_ostream &os);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_BENCH_H
