//===- DataDependent.cpp - Ops whose result dims depend on the data ------===//
//
// NonZero and the ops like it produce results whose dims are known only once
// their inputs' values are: shape inference names each such dim (a symbol
// the op defines at run time, with an upper bound in the inputs' symbols,
// onnx::ShapeContext::dataDim), the lowering here computes its value and
// gives it to OnnxTypeConverter::defineDataDim, and every op after it reads
// the dim as it reads an input's symbol. Buffers take the bound's room.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// `x` as a 1-D tensor of its elements in row-major order.
Value flatten(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t n = type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
  auto flatType = RankedTensorType::get({n}, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flatType, x, ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(b, loc, flatType, x, ArrayRef<ReassociationIndices>{all});
}

/// The sizes of `x`'s dims as index values.
SmallVector<Value> dimSizes(OpBuilder &b, Location loc, Value x) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < cast<RankedTensorType>(x.getType()).getRank(); ++d)
    sizes.push_back(tensor::DimOp::create(b, loc, x, d));
  return sizes;
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  Value p = indexConst(b, loc, 1);
  for (Value s : sizes)
    p = arith::MulIOp::create(b, loc, p, s);
  return p;
}

/// `v != 0` (NaN counts as non-zero, as ONNX Runtime has it).
Value isNonZero(OpBuilder &b, Location loc, Value v) {
  if (isa<FloatType>(v.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                 floatConst(b, loc, v.getType(), 0.0));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

/// NonZero: one pass counts, a second writes each non-zero element's
/// coordinates into column `count` so far of a [rank, n + 1] tensor; a zero
/// element writes to the spare last column instead, so that no write depends
/// on a branch. The result is the first n columns.
struct NonZeroLowering : OpConversionPattern<onnx::NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::NonZeroOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType)
      return rewriter.notifyMatchFailure(op, "input is not ranked");
    Location loc = op.getLoc();
    int64_t rank = xType.getRank();
    SmallVector<Value> sizes = dimSizes(rewriter, loc, x);
    Value numel = product(rewriter, loc, sizes);
    Value flat = flatten(rewriter, loc, x);
    Value zero = indexConst(rewriter, loc, 0), one = indexConst(rewriter, loc, 1);

    auto counted = scf::ForOp::create(
        rewriter, loc, zero, numel, one, ValueRange{zero},
        [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
          Value nz = isNonZero(b, l, tensor::ExtractOp::create(b, l, flat, i));
          Value add = arith::SelectOp::create(b, l, nz, indexConst(b, l, 1), indexConst(b, l, 0));
          scf::YieldOp::create(b, l, Value(arith::AddIOp::create(b, l, acc[0], add)));
        });
    Value n = onnxConverter(getTypeConverter())
                  .defineDataDim(rewriter, loc, op, 0, counted.getResult(0));
    if (!n)
      return rewriter.notifyMatchFailure(op, "its count has no bound");

    Type i64 = rewriter.getI64Type();
    Value spare = arith::AddIOp::create(rewriter, loc, n, one);
    auto scratchType = RankedTensorType::get({rank, ShapedType::kDynamic}, i64);
    Value scratch = emptyTensor(rewriter, loc, scratchType, ValueRange{spare});
    auto filled = scf::ForOp::create(
        rewriter, loc, zero, numel, one, ValueRange{scratch, zero},
        [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
          Value nz = isNonZero(b, l, tensor::ExtractOp::create(b, l, flat, i));
          Value column = arith::SelectOp::create(b, l, nz, acc[1], n);
          Value out = acc[0];
          Value rest = i;
          for (int64_t d = rank - 1; d >= 0; --d) {
            Value coord = arith::RemUIOp::create(b, l, rest, sizes[d]);
            rest = arith::DivUIOp::create(b, l, rest, sizes[d]);
            out = tensor::InsertOp::create(b, l, arith::IndexCastOp::create(b, l, i64, coord), out,
                                           ValueRange{indexConst(b, l, d), column});
          }
          Value next = arith::AddIOp::create(
              b, l, acc[1],
              arith::SelectOp::create(b, l, nz, indexConst(b, l, 1), indexConst(b, l, 0)));
          scf::YieldOp::create(b, l, ValueRange{out, next});
        });
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> resultSizes = {rewriter.getIndexAttr(rank), n};
    SmallVector<OpFoldResult> strides = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
    auto resultType = RankedTensorType::get({rank, ShapedType::kDynamic}, i64);
    Value result = tensor::ExtractSliceOp::create(rewriter, loc, resultType, filled.getResult(0),
                                                  offsets, resultSizes, strides);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The first element of an optional 1-element operand, or `fallback`.
Value scalarOperand(OpBuilder &b, Location loc, Value v, Value fallback) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return fallback;
  SmallVector<Value> zeros(type.getRank(), indexConst(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, v, zeros);
}

/// NonMaxSuppression: one runtime-support call writes the selected rows
/// into a buffer of the bound's room and their count; the result is the
/// first `count` rows.
struct NonMaxSuppressionLowering : OpConversionPattern<onnx::NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::NonMaxSuppressionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto boxesType = dyn_cast<RankedTensorType>(adaptor.getBoxes().getType());
    auto scoresType = dyn_cast<RankedTensorType>(adaptor.getScores().getType());
    if (!boxesType || !scoresType || !boxesType.hasStaticShape() ||
        !scoresType.hasStaticShape() || boxesType.getRank() != 3 || scoresType.getRank() != 3 ||
        !boxesType.getElementType().isF32() || !scoresType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs static float32 boxes and scores");
    int64_t batches = scoresType.getDimSize(0), classes = scoresType.getDimSize(1),
            spatial = scoresType.getDimSize(2);
    if (boxesType.getDimSize(0) != batches || boxesType.getDimSize(1) != spatial ||
        boxesType.getDimSize(2) != 4)
      return rewriter.notifyMatchFailure(op, "boxes [B, N, 4] do not match scores [B, C, N]");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type i64 = rewriter.getI64Type(), f32 = rewriter.getF32Type();
    // The bound: rows of the result type's dim 0 at most.
    const OnnxTypeConverter &types = onnxConverter(getTypeConverter());
    auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
    auto name = names && !names.empty() ? dyn_cast<StringAttr>(names[0]) : StringAttr();
    std::optional<onnx::SymExpr> bound = name ? types.shapes.boundOf(name) : std::nullopt;
    if (!bound || !bound->isConstant())
      return rewriter.notifyMatchFailure(op, "its row count has no constant bound");
    int64_t capacity = bound->constantValue();

    Value maxPerClass = scalarOperand(rewriter, loc, adaptor.getMaxOutputBoxesPerClass(),
                                      arith::ConstantIntOp::create(rewriter, loc, 0, 64));
    Value iou = scalarOperand(rewriter, loc, adaptor.getIouThreshold(),
                              floatConst(rewriter, loc, f32, 0.0));
    bool hasScoreThreshold = isa<RankedTensorType>(adaptor.getScoreThreshold().getType());
    Value scoreThreshold = scalarOperand(rewriter, loc, adaptor.getScoreThreshold(),
                                         floatConst(rewriter, loc, f32, 0.0));
    auto outType = RankedTensorType::get({std::max<int64_t>(capacity, 1) * 3}, i64);
    Value out = flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, outType), false);
    Value count = flatBuffer(rewriter, loc,
                             emptyTensor(rewriter, loc, RankedTensorType::get({1}, i64)), false);
    Value scratch = flatBuffer(
        rewriter, loc,
        emptyTensor(rewriter, loc, RankedTensorType::get({std::max<int64_t>(spatial, 1) * 2}, i64)),
        false);
    auto i64c = [&](int64_t v) { return arith::ConstantIntOp::create(rewriter, loc, v, 64); };
    auto i1c = [&](bool v) { return arith::ConstantIntOp::create(rewriter, loc, v, 1); };
    Value operands[] = {flatBuffer(rewriter, loc, adaptor.getBoxes(), true),
                        flatBuffer(rewriter, loc, adaptor.getScores(), true),
                        i64c(batches),
                        i64c(classes),
                        i64c(spatial),
                        maxPerClass,
                        iou,
                        scoreThreshold,
                        i1c(hasScoreThreshold),
                        i1c(op.getCenterPointBox() != 0),
                        out,
                        i64c(capacity),
                        count,
                        scratch};
    SmallVector<Type> argTypes;
    for (Value v : operands)
      argTypes.push_back(v.getType());
    func::FuncOp callee = declareRuntimeFunction(
        rewriter, op, "onnxcc_rt_non_max_suppression", "onnxcc_rt::non_max_suppression",
        FunctionType::get(ctx, argTypes, {rewriter.getI32Type()}), /*usesStringPool=*/false);
    func::CallOp::create(rewriter, loc, callee, operands);

    Value countTensor = bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get({ShapedType::kDynamic}, i64), count,
        /*restrict=*/true, /*writable=*/true);
    Value rows = tensor::ExtractOp::create(rewriter, loc, countTensor,
                                           ValueRange{indexConst(rewriter, loc, 0)});
    rows = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), rows);
    Value n = types.defineDataDim(rewriter, loc, op, 0, rows);
    if (!n)
      return rewriter.notifyMatchFailure(op, "its row count has no bound");
    auto flatType = RankedTensorType::get({ShapedType::kDynamic}, i64);
    Value result = bufferization::ToTensorOp::create(rewriter, loc, flatType, out,
                                                     /*restrict=*/true, /*writable=*/true);
    result = tensor::CastOp::create(rewriter, loc, outType, result);
    auto table = RankedTensorType::get({std::max<int64_t>(capacity, 1), 3}, i64);
    result = tensor::ExpandShapeOp::create(rewriter, loc, table, result,
                                           ArrayRef<ReassociationIndices>{{0, 1}});
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {n, rewriter.getIndexAttr(3)};
    SmallVector<OpFoldResult> strides = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
    result = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({ShapedType::kDynamic, 3}, i64), result, offsets,
        sizes, strides);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateDataDependentPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering, NonMaxSuppressionLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
