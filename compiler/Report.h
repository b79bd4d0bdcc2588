//===- Report.h - onnxcc compile --report: the path of each heavy op ------===//
#ifndef ONNXCC_COMPILER_REPORT_H
#define ONNXCC_COMPILER_REPORT_H

#include "compiler/Flops.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace onnxcc {

/// One heavy op of the lowered model: a node of the generated code (as its
/// comment names it) that holds nodes FlopCount counts, or such a node that
/// no code holds (computed at compile time, or removed).
struct HeavyOp {
  std::string node;   ///< the ONNX node's name
  std::string opType; ///< after the graph passes (FusedConv...); the ONNX type when folded
  /// The counted ONNX op types it holds, in order ("MatMul", "Conv"...).
  std::vector<std::string> sourceTypes;
  /// "conv2d_nchwc", "gemm_packed_b + loops", "loops", "folded"...
  std::string path;
  bool kernel = false; ///< it calls a runtime-support kernel
  bool loops = false;  ///< it holds a loop nest
  /// The FLOPs of the ONNX nodes it holds; nothing when a shape was not static.
  std::optional<uint64_t> flops;
};

struct CompileReport {
  std::string model;
  std::string targetCpu, kernelIsa;
  int64_t threads = 1;
  /// Sorted by FLOPs, the largest first (unknown last), then in model order.
  std::vector<HeavyOp> ops;
  uint64_t totalFlops = 0;
};

/// The report of `lowered` (the module after the CPU lowering pipeline)
/// whose import counted `flops` (countNodeFlops).
CompileReport buildCompileReport(mlir::ModuleOp lowered, llvm::ArrayRef<NodeFlops> flops);

/// A table: FLOPs, share, path, op type, node; then totals by path.
void printCompileReport(const CompileReport &report, llvm::raw_ostream &os);

/// The same as one JSON object (see README.md, "compile --report").
void printCompileReportJson(const CompileReport &report, llvm::raw_ostream &os);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_REPORT_H
