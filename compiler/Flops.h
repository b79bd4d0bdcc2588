//===- Flops.h - Floating-point work of a model, for onnxcc bench ---------===//
#ifndef ONNXCC_COMPILER_FLOPS_H
#define ONNXCC_COMPILER_FLOPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace onnxcc {

/// The arithmetic of a model at given input shapes, counted the usual way
/// (a multiply-add is 2 FLOPs) over the ops that dominate it:
///   Conv, ConvInteger, QLinearConv
///                  2 * N * M * prod(output spatial) * (C/G) * prod(kernel)
///   ConvTranspose  2 * N * C * prod(input spatial) * (M/G) * prod(kernel)
///   MatMul, MatMulInteger, QLinearMatMul
///                  2 * prod(output dims) * K
///   Gemm           2 * M * N * K
///   Einsum         2 * (operands - 1) * the product of every index's extent
///   Attention      2 * batch * q heads * q seq * kv seq * (qk head + v head)
///   RNN, GRU, LSTM 2 * seq * batch * directions * gates * hidden
///                    * (input + hidden)
///   DFT, STFT      5 N log2(N) per complex transform of length N (2.5 for
///                  a real input): the usual FFT count
/// and, one FLOP per element read, the pooling ops (MaxPool, AveragePool,
/// LpPool: output * prod(kernel); Global*Pool: input) and the reductions
/// (Reduce*: input). Everything else (elementwise ops, normalizations,
/// Softmax, bias additions) counts 0: a few percent of a CNN's or
/// transformer's work.
struct FlopCount {
  uint64_t total = 0;
  /// (op type, nodes, FLOPs) for the op types above that occur, in that order.
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> byOp;
  /// Nodes of those types whose shapes were not static after shape
  /// inference: not counted.
  uint64_t uncounted = 0;
};

/// One node of a type FlopCount counts.
struct NodeFlops {
  std::string name;  ///< the ONNX node's (the importer's NameLoc)
  unsigned line = 0; ///< its position in its graph, 1-based (the NameLoc's line)
  std::string opType;
  /// Nothing when its shapes are not static.
  std::optional<uint64_t> flops;
};

/// The counted nodes of `func` (an imported model after shape inference),
/// in graph order, subgraphs included. Where a node's shapes are not static
/// it folds `func`'s constants (onnx-fold-constants), infers the shapes
/// again and counts again.
std::vector<NodeFlops> countNodeFlops(mlir::func::FuncOp func);

/// Imports the model at `modelPath` with its inputs' dims set to `shapes`
/// (input name -> dims; inputs not named keep their declared dims), infers
/// every value's shape and counts. Errors are one line.
llvm::Expected<FlopCount>
countFlops(llvm::StringRef modelPath,
           const std::vector<std::pair<std::string, std::vector<int64_t>>> &shapes);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_FLOPS_H
