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
class IfOp;
class LoopOp;

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
/// With `shapes` (the bounds of dims the data decides), a tensor whose dims
/// the data decides is padded to their bounds, its dims a second scan
/// output, and the final sequence an onnx.RaggedSequence of both.
bool appendedSequencesToScanOutputs(mlir::func::FuncOp func, const ShapeMap *shapes = nullptr);

/// Replaces `op` by an If whose results are the old ones numbered `keep`
/// followed by one of each type of `extraTypes`, its branches yielding the
/// kept values and then `thenExtra` / `elseExtra` (values of the branches).
/// The kept results' uses move to the new op, which is returned; the other
/// old results must be unused (Optionals.cpp).
IfOp rebuildIf(IfOp op, llvm::ArrayRef<unsigned> keep, mlir::TypeRange extraTypes,
               mlir::ValueRange thenExtra, mlir::ValueRange elseExtra);

/// A Loop with the attributes of `loop`, `operands` and result `types`,
/// built before it, that takes its body (whose arguments and yield the
/// caller has made to match); `loop` is left for the caller to replace and
/// erase (LoopSequences.cpp).
LoopOp rebuildLoop(LoopOp loop, mlir::ValueRange operands, mlir::TypeRange types);

/// `x` padded with zeros at the end of each dim to `to` (at least its dims)
/// and its dims as an int64 vector, built before `at` (StackSequences.cpp):
/// a row of a ragged sequence.
std::pair<mlir::Value, mlir::Value> paddedWithDims(mlir::Operation *at, mlir::Value x,
                                                   llvm::ArrayRef<int64_t> to);

/// The largest dims tensor `v` can have: its static dims, and for each dim
/// the data decides its bound in `shapes` where that is a constant; nullopt
/// otherwise (StackSequences.cpp).
std::optional<llvm::SmallVector<int64_t>> dimBounds(mlir::Value v, const ShapeMap *shapes);

/// Each SequenceMap becomes a Loop over the elements of its first input
/// whose scan outputs' rows are its results (LoopSequences.cpp); true when
/// there was any.
bool sequenceMapsToLoops(mlir::func::FuncOp func);

/// Whether DequantizeLinear `dq` gives the weights or the bias of QDQ
/// convolutions that onnx-recognize makes QLinearConv: constant folding
/// leaves it for them.
bool feedsQdqConv(mlir::Operation *dq);

/// Sequence and optional inputs and outputs of `func` as tensor ports
/// (Optionals.cpp): input sequences of the element shapes their
/// onnxcc.sequence_shapes give, optionals as a flag and a value; the
/// function gets onnxcc.io_inputs/onnxcc.io_outputs. Output sequences stay
/// sequences, for expandSequenceResults.
mlir::LogicalResult expandBoundaryValues(mlir::func::FuncOp func);

} // namespace onnxcc::onnx

#endif // ONNXCC_DIALECTS_ONNX_TRANSFORMS_PASSES_H
