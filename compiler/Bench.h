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
};

/// Compiles `modelPath` with its inputs' dims fixed, builds it with a timing
/// harness (WORKDIR/run, see Bench.cpp for its flags), runs it on seeded
/// random inputs and prints a summary to `os` that ends with the one line
/// `median_ms=<x> p90_ms=<y> gflops=<z>`. Errors are one line.
llvm::Error benchModel(llvm::StringRef modelPath, const BenchOptions &options,
                       llvm::raw_ostream &os);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_BENCH_H
