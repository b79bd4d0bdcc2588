//===- Flops.h - Floating-point work of a model, for onnxcc bench ---------===//
#ifndef ONNXCC_COMPILER_FLOPS_H
#define ONNXCC_COMPILER_FLOPS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace onnxcc {

/// The arithmetic of a model at given input shapes, counted the usual way
/// (a multiply-add is 2 FLOPs) over the ops that dominate it:
///   Conv           2 * N * M * prod(output spatial) * (C/G) * prod(kernel)
///   ConvTranspose  2 * N * C * prod(input spatial) * (M/G) * prod(kernel)
///   MatMul         2 * prod(output dims) * K
///   Gemm           2 * M * N * K
/// Everything else (elementwise ops, pooling, normalizations, Softmax, bias
/// additions) counts 0: a few percent of a CNN's or transformer's work.
struct FlopCount {
  uint64_t total = 0;
  /// (op type, nodes, FLOPs) for the op types above that occur, in that order.
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> byOp;
  /// Nodes of those types whose shapes were not static after shape
  /// inference: not counted.
  uint64_t uncounted = 0;
};

/// Imports the model at `modelPath` with its inputs' dims set to `shapes`
/// (input name -> dims; inputs not named keep their declared dims), infers
/// every value's shape and counts. Errors are one line.
llvm::Expected<FlopCount>
countFlops(llvm::StringRef modelPath,
           const std::vector<std::pair<std::string, std::vector<int64_t>>> &shapes);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_FLOPS_H
