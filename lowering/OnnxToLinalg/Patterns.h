//===- Patterns.h - onnx to linalg conversion: shared pieces -------------===//
#ifndef ONNXCC_LOWERING_ONNXTOLINALG_PATTERNS_H
#define ONNXCC_LOWERING_ONNXTOLINALG_PATTERNS_H

#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace onnxcc::lowering {

/// Tensors of the onnx dialect as the lowering sees them: ranked, signless
/// (unsigned integers keep their width; the ops chosen carry the
/// signedness), static or with symbolic dims. It also carries what patterns
/// need to size symbolic results: the symbolic shapes of the onnx values and
/// the index values of the symbols (the lowered function's leading
/// arguments).
class OnnxTypeConverter : public mlir::TypeConverter {
public:
  OnnxTypeConverter();

  /// The index value of `e`, computed from the symbols of `func`.
  mlir::Value materialize(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *inFunc,
                          const onnx::SymExpr &e) const;
  /// Values for the dynamic dims of onnx value `v` (converted to `type`),
  /// from its symbolic shape; failure when one of them is not symbolic.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  dynamicSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
               mlir::RankedTensorType type) const;
  /// The symbolic shape of onnx value `v`.
  std::optional<onnx::Shape> shapeOf(mlir::Value v) const { return shapes.lookup(v); }

  onnx::ShapeMap shapes;
  /// Per function: its symbols in argument order with their index values.
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<std::pair<mlir::StringAttr, mlir::Value>>>
      symbols;

  /// The value of the `k`-th data-dependent dim of `op` (onnx::ShapeContext::
  /// dataDim), which its lowering computed as `count`: `min(count, bound)`,
  /// the form memory planning reads as "at most the bound"; the ops after
  /// `op` that use the dim read it. Null when the dim has no bound.
  mlir::Value defineDataDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                            unsigned k, mlir::Value count) const;
  /// Data-dependent dims: a placeholder index value per symbol, right after
  /// the op that defines it (what materialize returns for the symbol), and
  /// the value defineDataDim gave it (replacing it after the conversion).
  llvm::DenseMap<mlir::StringAttr, mlir::Value> dataPlaceholders;
  mutable llvm::DenseMap<mlir::Value, mlir::Value> dataValues;
};

inline const OnnxTypeConverter &onnxConverter(const mlir::TypeConverter *c) {
  return *static_cast<const OnnxTypeConverter *>(c);
}

/// An empty tensor of `type` whose dynamic dims are `dynamicSizes`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                        mlir::ValueRange dynamicSizes = {});

/// The converted result type of result `i` of `op`, static or with symbolic
/// dims, and the values of its dynamic dims; failure (a match failure) when
/// a dynamic dim is not symbolic. For patterns that handle symbolic dims.
mlir::FailureOr<std::pair<mlir::RankedTensorType, llvm::SmallVector<mlir::Value>>>
symbolicResultType(mlir::ConversionPatternRewriter &rewriter,
                   const mlir::TypeConverter *converter, mlir::Operation *op, unsigned i = 0);

/// Ops whose lowering handles symbolic dims (the others need static shapes).
bool lowersSymbolicDims(mlir::Operation *op);

/// The sliding window of a Conv-like or pooling op over its spatial dims,
/// with auto_pad resolved into explicit pads.
struct Window {
  llvm::SmallVector<int64_t> kernel, strides, dilations;
  /// Pads as ONNX defines them (explicit, or derived from auto_pad).
  llvm::SmallVector<int64_t> padBegin, padEnd;
  /// End padding beyond padEnd that windows reach into (ceil_mode): the
  /// output shape asks for windows that start inside but end outside.
  llvm::SmallVector<int64_t> overhang;
  /// Spatial sizes of the input and of the output.
  llvm::SmallVector<int64_t> in, out;

  size_t rank() const { return kernel.size(); }
  int64_t extent(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  bool needsPadding() const {
    for (size_t i = 0; i < rank(); ++i)
      if (padBegin[i] || padEnd[i] || overhang[i])
        return true;
    return false;
  }
};

/// Whether `op` is a Conv or pool whose input has a symbolic spatial dim
/// (its output dims are then derived symbols, onnx::DerivedDim): it lowers
/// through a reference generic whose sizes run() computes.
bool hasSymbolicWindow(mlir::Operation *op);

/// Reads an optional INTS attribute of `n` values, or `n` copies of `dflt`;
/// a match failure when a value is below `min` or the count is wrong.
mlir::FailureOr<llvm::SmallVector<int64_t>>
intsOr(mlir::RewriterBase &rewriter, mlir::Operation *op,
       std::optional<llvm::ArrayRef<int64_t>> attr, size_t n, int64_t dflt, llvm::StringRef name,
       int64_t min);

/// Resolves the window of `op` from its attributes and the static spatial
/// sizes of its input and result (auto_pad becomes explicit pads).
mlir::FailureOr<Window> resolveWindow(mlir::RewriterBase &rewriter, mlir::Operation *op,
                                      llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> out,
                                      llvm::ArrayRef<int64_t> kernel,
                                      std::optional<llvm::ArrayRef<int64_t>> strides,
                                      std::optional<llvm::ArrayRef<int64_t>> dilations,
                                      std::optional<llvm::ArrayRef<int64_t>> pads,
                                      llvm::StringRef autoPad);

/// `operand` (an operand of an op whose result, of `resultType`, it
/// broadcasts to) with every symbolic dim that meets a static result dim made
/// that static size. ONNX broadcasting allows only 1 or the result's size
/// there: run() checks which it is (onnxcc_rt::check_broadcast, status 9 for
/// anything else) and a dim of 1 is repeated. `operand` itself when no dim
/// needs it. `otherSizes[d]`, where given, is the run-time size of the
/// result dim under the operand's symbolic dim d when the two are different
/// symbols (C [S1] of a Gemm whose N is S0): checked and repeated the same
/// way, the copy then has the result's size there.
mlir::Value broadcastSymbolicDims(mlir::OpBuilder &b, mlir::Operation *at, mlir::Location loc,
                                  mlir::Value operand, mlir::RankedTensorType resultType,
                                  llvm::ArrayRef<mlir::Value> otherSizes = {});

/// broadcastSymbolicDims for operand `operand` of `op` (converted:
/// `converted`) under `op`'s result 0 (`resultType`, dynamic sizes
/// `resultSizes`): a symbolic dim of the operand under a static result dim,
/// or under a symbolic one that shape inference does not know to be the same
/// symbol, is checked to be 1 or the result's size at run time.
mlir::Value broadcastOperand(mlir::OpBuilder &b, mlir::Operation *op, mlir::Location loc,
                             const mlir::TypeConverter *converter, unsigned operand,
                             mlir::Value converted, mlir::RankedTensorType resultType,
                             mlir::ValueRange resultSizes);

/// Declares (once per module) the runtime-support function `cName` as the
/// private function `symbol` of type `type`, and returns it. Calls to it are
/// emitted as calls to `cName` (attribute onnxcc.runtime); its i32 result is
/// a status (onnxcc.status) that run() returns when it is not 0;
/// `usesStringPool` passes the model's string pool as a last argument.
mlir::func::FuncOp declareRuntimeFunction(mlir::OpBuilder &rewriter, mlir::Operation *at,
                                          llvm::StringRef symbol, llvm::StringRef cName,
                                          mlir::FunctionType type, bool usesStringPool);

/// `tensor` (static, or dynamic when it needs no reshaping) as a 1-D buffer
/// of dynamic size, through bufferization.to_buffer: what runtime-support
/// functions take.
mlir::Value flatBuffer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor, bool readOnly);

/// The static tensor of `type` whose elements a runtime-support call wrote
/// into `buffer` (a flatBuffer of an empty tensor of that type).
mlir::Value tensorFromFlatBuffer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                                 mlir::RankedTensorType type);

/// The tensor of `type` (whose dynamic dims are `sizes`) a kernel or
/// runtime-support call wrote into flat buffer `out`.
mlir::Value resultTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value out,
                         mlir::RankedTensorType type, mlir::ValueRange sizes);

/// Where a Slice bound `k` (a constant, within int32) falls in a dim of
/// run-time size `dim`, clamped as ONNX says: into [0, dim] for a forward
/// step, [-1, dim - 1] for a backward one; negative k counts from the end.
mlir::Value slicePosition(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dim, int64_t k,
                          bool backwards);

/// The length of a Slice of a dim of run-time size `dim` from `start` to
/// `end` by `step` (constants), as ONNX clamps them.
mlir::Value sliceLength(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dim, int64_t start,
                        int64_t end, int64_t step);

/// The product of dims [from, to) of `v` (a ranked tensor) as an index
/// value, static parts folded into one constant.
mlir::Value dimProduct(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, int64_t from,
                       int64_t to);

/// The window of convolution `op` (Conv, FusedConv, ConvInteger,
/// QLinearConv) over X `xType`, W `wType` and result `yType` (static spatial
/// dims), after checking that the channels agree with W and group and that
/// kernel_shape is W's; a match failure otherwise.
template <typename ConvOp>
mlir::FailureOr<Window> resolveConvWindow(mlir::RewriterBase &rewriter, ConvOp op,
                                          mlir::RankedTensorType xType,
                                          mlir::RankedTensorType wType,
                                          mlir::RankedTensorType yType) {
  int64_t group = static_cast<int64_t>(op.getGroup());
  int64_t channels = xType.getDimSize(1), outChannels = wType.getDimSize(0);
  if (group < 1 || channels % group || outChannels % group ||
      channels / group != wType.getDimSize(1) || yType.getDimSize(1) != outChannels)
    return rewriter.notifyMatchFailure(op, "channels do not match W and group");
  llvm::ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
  if (auto k = op.getKernelShape(); k && *k != kernel)
    return rewriter.notifyMatchFailure(op, "kernel_shape does not match W");
  return resolveWindow(rewriter, op, xType.getShape().drop_front(2),
                       yType.getShape().drop_front(2), kernel, op.getStrides(),
                       op.getDilations(), op.getPads(), op.getAutoPad());
}

/// A resource blob name for data made from `op`: its node name (never the
/// model's path) made an identifier, then `suffix`, so output is the same run
/// to run.
std::string blobName(mlir::Operation *op, llvm::StringRef suffix);

/// Element type of `v` in the onnx dialect, before conversion (so that
/// unsigned types are still visible).
mlir::Type onnxElementType(mlir::Value v);
inline bool isUnsignedInt(mlir::Type t) { return t.isUnsignedInteger(); }

/// Builds a linalg.generic computing `result` from `operands` with
/// multidirectional broadcasting: operand dims that are 1 where the result's
/// are not read index 0. A dynamic result dim takes its size from an operand
/// whose dim there is dynamic too (symbolic dims agree by shape inference).
/// `body` gets the scalar operands (already converted) and returns the scalar
/// result.
mlir::Value buildBroadcastGeneric(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
    mlir::ValueRange operands,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)> body);

/// A tensor of `type` filled with `value` (its dynamic dims `dynamicSizes`).
mlir::Value buildFilled(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                        mlir::TypedAttr value, mlir::ValueRange dynamicSizes = {});

/// Converts `v` (a scalar of `from`, an onnx element type) to `to`, with
/// ONNX Cast semantics (float to int truncates toward zero; to bool is != 0).
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type from, mlir::Type to);

/// The float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0) and float4 (E2M1)
/// types; the int4/uint4/int2/uint2 types (i8 after type conversion).
bool isSmallFloat(mlir::Type t);
bool isSubByteInt(mlir::Type t);

/// The element type sums of `elem` accumulate in: float32 for float16 and
/// bfloat16 (rounded to `elem` once, by roundAccumulator), else `elem`.
mlir::Type accumulatorType(mlir::Type elem);
/// `acc` (an accumulator tensor) rounded elementwise to `type`'s element
/// type; `dynamicSizes` are `type`'s dynamic dims.
mlir::Value roundAccumulator(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                             mlir::RankedTensorType type, mlir::ValueRange dynamicSizes = {});

/// castScalar where `from` or `to` is one of those types, with Cast's
/// `saturate` (float8 targets) and `round_mode` (E8M0: "up", "down",
/// "nearest"); castScalar calls it with the defaults (1, "up").
mlir::Value castScalarSmall(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                            mlir::Type from, mlir::Type to, bool saturate,
                            llvm::StringRef roundMode);

/// An index constant.
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// A float constant of type `t`.
mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t, double v);

/// Clamps index `idx` to [lo, hi] with compare and select (so the emitted C++
/// never mixes literal and int64_t operand types).
mlir::Value clampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value idx, mlir::Value lo,
                       mlir::Value hi);

/// The element of a tensor of one element (rank 0, or every dim 1).
mlir::Value scalarOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t);

/// A run-time check of two dims (index or integer values, widened to i64):
/// a call of onnxcc_rt::check_<kind>(lhs, rhs) (`kind` one of equal,
/// at_least, broadcast, bound), whose non-zero status run() returns.
void checkDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *at,
               llvm::StringRef kind, mlir::Value lhs, mlir::Value rhs);

/// A result dim that values read at run time decide (Reshape's shape,
/// Slice's starts, TopK's K, ...) but that the model declares static: the
/// lowering builds the declared size, and run() returns 9 (status_shape,
/// onnxcc_rt::check_equal) unless `actual` (i64, index or a narrower
/// integer), the size the values give, equals `declared`.
void checkDeclaredDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *at,
                      mlir::Value actual, int64_t declared);

/// A linalg.generic over `type` (its dynamic dims `dynamicSizes`) with no
/// inputs: `body` gets the loop indices (linalg.index) and returns the
/// element at that position, usually read with tensor.extract at a computed
/// position.
mlir::Value buildIndexedGeneric(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::Value>)>
        body,
    mlir::ValueRange dynamicSizes = {});

/// The converted, static, ranked result type of result `i` of `op`, or null
/// after reporting a match failure.
mlir::RankedTensorType staticResultType(mlir::ConversionPatternRewriter &rewriter,
                                        const mlir::TypeConverter *converter,
                                        mlir::Operation *op, unsigned i = 0);

/// Whether `op` is an elementwise op of the lowering's table.
bool isElementwiseOp(mlir::Operation *op);

/// How many leading operands of elementwise `op` carry data (CastLike's
/// second only gives a type); absent optional ones still count.
unsigned numElementwiseDataOperands(mlir::Operation *op);

/// The scalar computation of elementwise `op` on `args` (its present data
/// operands, converted), `elem` the onnx element type of operand 0; null
/// when `op` is not elementwise. Code generation and the constant folder
/// both build this body, so folded and computed values agree.
mlir::Value buildElementwiseScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                                   mlir::ValueRange args, mlir::Type elem);

/// The activation of a fused epilogue applied to scalar `x` ("" is none;
/// see onnx.FusedConv for the kinds and their parameters); failure for an
/// unknown kind or wrong parameters.
mlir::FailureOr<mlir::Value> buildActivation(mlir::OpBuilder &b, mlir::Location loc,
                                             llvm::StringRef kind, llvm::ArrayRef<float> params,
                                             mlir::Value x, mlir::Type elem);

/// Softmax (LogSoftmax when `isLog`) of `input` along `axis`, max-subtracted,
/// as the Softmax lowering builds it; symbolic dims allowed.
mlir::Value buildSoftmax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input, int64_t axis,
                         bool isLog = false);

/// The contraction of MatMul (numpy semantics: batch dims broadcast, 1-D
/// operands lose their m or n) and of Gemm (`transA`/`transB` swap the last
/// two dims), with zero as the start value; Linear.cpp. For the fused ops.
mlir::Value buildMatMulContraction(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::RankedTensorType resultType,
                                   mlir::ValueRange resultSizes, mlir::Value lhs,
                                   mlir::Value rhs, bool transA = false, bool transB = false);

/// Operand `operand` (0 or 1) of a MatMul-like `op` (converted:
/// `converted`) with each symbolic batch dim that shape inference does not
/// know to be the result's (a derived broadcast of two symbols, [S, 4, 8]
/// times [T, 8, 2]) checked to be 1 or the result's size at run time and
/// repeated to it (broadcastSymbolicDims); `converted` itself when there is
/// none.
mlir::Value broadcastMatMulBatch(mlir::OpBuilder &b, mlir::Operation *op, mlir::Location loc,
                                 const mlir::TypeConverter *converter, unsigned operand,
                                 mlir::Value converted, mlir::RankedTensorType resultType,
                                 mlir::ValueRange resultSizes);

/// The Conv lowering applied to `op`'s convolution (its bias included);
/// Convolution.cpp. A match failure when it does not apply.
mlir::FailureOr<mlir::Value> buildFusedConvAnchor(mlir::ConversionPatternRewriter &rewriter,
                                                  onnx::FusedConvOp op,
                                                  const mlir::TypeConverter *converter,
                                                  mlir::Value x, mlir::Value w,
                                                  mlir::Value bias);

/// Element `i` (an i64 scalar) of Range: start + i * delta in `elem`. The
/// lowering and the constant folder both build it.
mlir::Value buildRangeElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                              mlir::Value start, mlir::Value delta, mlir::Type elem);

/// LinearClassifier and LinearRegressor over float32 X [N, C] (static C)
/// take their scores from an onnx.Gemm of X and the coefficients (plus the
/// intercepts), which the kernels compute with packed weights over
/// --threads; the op, marked onnxcc.scores (the number of score columns),
/// then only labels and transforms them. Runs before shape inference.
void linearModelsAsGemm(mlir::func::FuncOp func);

void populateElementwisePatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateLinearPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateDataMovementPatterns(OnnxTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateReductionPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateConvolutionPatterns(OnnxTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateLossPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateResizePatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
/// GridSample (GridSample.cpp); populateResizePatterns adds them.
void populateGridSamplePatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateMiscPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateRecurrentPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateStringPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateDataDependentPatterns(OnnxTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// The ai.onnx.ml ops and TfIdfVectorizer (ClassicalML.cpp): calls into
/// runtime-support/onnxcc_ml.h.
void populateClassicalMLPatterns(OnnxTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateFusedPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateAttentionPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateTransformerPatterns(OnnxTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
/// If, Loop and Scan as scf.if, scf.while and scf.for (ControlFlow.cpp).
void populateControlFlowPatterns(OnnxTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
/// Why If/Loop/Scan `op`, whose results do not all have shapes known at
/// compile time, cannot be lowered; "" for other ops.
std::string controlFlowRefusal(mlir::Operation *op);

/// The runtime-support kernel ISA named `name` (generic, avx2, avx512).
std::optional<int> kernelIsaFromName(llvm::StringRef name);
/// Conv/Gemm/MatMul (and fused forms) to kernel calls for `isa` (Kernels.cpp),
/// each split into `threads` parts; they take precedence over the linalg
/// lowerings where they apply.
void populateKernelPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns,
                            int isa, int64_t threads);
/// DFT/STFT to the FFT kernels (Signal.cpp), as populateKernelPatterns.
void populateSignalKernelPatterns(OnnxTypeConverter &converter, mlir::RewritePatternSet &patterns,
                                  int isa, int64_t threads);
/// RNN/GRU/LSTM to the recurrence kernels (Recurrent.cpp), as
/// populateKernelPatterns.
void populateRecurrentKernelPatterns(OnnxTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns, int isa, int64_t threads);
/// MatMulInteger with constant weights to the exact int8 GEMM (Quantized.cpp),
/// as populateKernelPatterns.
void populateQuantizedKernelPatterns(OnnxTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns, int isa, int64_t threads);

/// Whether DequantizeLinear `dq` gives 4-bit weights that the weight-only
/// kernel (Quantized.cpp) reads as they are: every reader a MatMul's B of
/// few rows. onnx-fold-constants leaves such a DequantizeLinear unfolded.
bool feedsQ4Kernel(mlir::Operation *dq);

/// Whether `op` is a DynamicQuantizeLinear or MatMulInteger that the
/// quantized kernels (Quantized.cpp) lower with symbolic dims: only their
/// linalg lowerings need static shapes.
bool quantizedKernelTakesSymbolicDims(mlir::Operation *op);
/// Whether the recurrent kernels (Recurrent.cpp) lower RNN/GRU/LSTM `op`
/// with a sequence length or batch known only at run time: float32 X with a
/// static input size, constant W, R and B.
bool recurrentKernelTakesSymbolicDims(mlir::Operation *op);

} // namespace onnxcc::lowering

#endif // ONNXCC_LOWERING_ONNXTOLINALG_PATTERNS_H
