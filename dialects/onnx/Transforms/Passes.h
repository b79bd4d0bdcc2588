//===- Passes.h - Graph passes over the onnx dialect --------------------===//
#ifndef ONNXCC_DIALECTS_ONNX_TRANSFORMS_PASSES_H
#define ONNXCC_DIALECTS_ONNX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace onnxcc::onnx {

#define GEN_PASS_DECL
#include "dialects/onnx/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/onnx/Transforms/Passes.h.inc"

class ShapeMap;

/// Adds onnx-simplify's rewrite patterns (no-op nodes, Transpose pairs,
/// Reshape chains...) to `patterns`.
void populateOnnxSimplifyPatterns(mlir::RewritePatternSet &patterns);

/// Seeds a shape map with the symbolic dims of `func`'s arguments (their
/// `onnx.dim_params` attribute) and runs every op's shape function, refining
/// types; the symbolic shapes are left in `shapes` when given.
mlir::LogicalResult inferShapesInFunction(mlir::func::FuncOp func, ShapeMap *shapes = nullptr);

/// Optionals whose presence is known inside `func` (Optional(x), an absent
/// input, a tensor): OptionalHasElement becomes a constant, OptionalGetElement
/// the value (Optionals.cpp). onnx-stack-sequences runs it first.
void resolveOptionals(mlir::func::FuncOp func);

/// Sequences a Loop carries from SequenceEmpty and appends one tensor to in
/// each iteration (list.append under torch.jit.script) become scan outputs,
/// the final sequence their rows (LoopSequences.cpp); true when any did.
bool appendedSequencesToScanOutputs(mlir::func::FuncOp func);

/// Each SequenceMap becomes a Loop over the elements of its first input
/// whose scan outputs' rows are its results (LoopSequences.cpp); true when
/// there was any.
bool sequenceMapsToLoops(mlir::func::FuncOp func);

/// Sequence and optional inputs and outputs of `func` as tensor ports
/// (Optionals.cpp): input sequences of the element shapes their
/// onnxcc.sequence_shapes give, optionals as a flag and a value; the
/// function gets onnxcc.io_inputs/onnxcc.io_outputs. Output sequences stay
/// sequences, for expandSequenceResults.
mlir::LogicalResult expandBoundaryValues(mlir::func::FuncOp func);

} // namespace onnxcc::onnx

#endif // ONNXCC_DIALECTS_ONNX_TRANSFORMS_PASSES_H
