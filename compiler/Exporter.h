//===- Exporter.h - The onnx dialect back to an ONNX ModelProto -----------===//
#ifndef ONNXCC_COMPILER_EXPORTER_H
#define ONNXCC_COMPILER_EXPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace onnx {
class ModelProto;
} // namespace onnx

namespace onnxcc {

struct ExportOptions {
  /// Write the ops the graph passes create (onnx.FusedConv, onnx.Gelu, ...)
  /// as the standard nodes they stand for, so that any ONNX runtime can run
  /// the model. When false they stay single nodes of domain `ai.onnxcc`
  /// (for `inspect --optimized` and `optimize --keep-fused`).
  bool expandInternalOps = true;
};

/// Domain of the nodes written for onnxcc's own ops.
inline constexpr const char *kOnnxccDomain = "ai.onnxcc";

/// Writes the module's main function (the imported graph after any graph
/// passes) as an ONNX model. The ai.onnx opset is the one the model was
/// read at (at least 17, the form of the dialect's ops), raised to the
/// first that has every node and element type of the graph (int4 weights
/// 21, Attention 23, ...); each node takes its form at that opset. Constants
/// become initializers, subgraph regions become graph attributes, symbolic
/// dims keep their names. Deterministic: the same module gives the same
/// bytes. An op or attribute that has no ONNX form is a one-line error
/// naming it.
llvm::Error exportModel(mlir::ModuleOp module, ::onnx::ModelProto &model,
                        const ExportOptions &options = {});

} // namespace onnxcc

#endif // ONNXCC_COMPILER_EXPORTER_H
