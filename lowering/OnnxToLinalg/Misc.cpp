//===- Misc.cpp - onnx ops to linalg: misc family -----------------------===//
//
// TopK, LRN, the quantization ops (QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, MatMulInteger, QLinearMatMul), Einsum and
// ReverseSequence. Contractions are written as one linalg.generic whose loops
// are named by labels (einsum subscripts), so that MatMulInteger,
// QLinearMatMul and Einsum share one builder.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>
#include <map>

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// Labels of ellipsis dims start here; letters are labelled by their ASCII
/// code, so sorting labels sorts letters alphabetically as ONNX asks.
constexpr int64_t kEllipsisLabel = 1000;

/// An operand of a labelled generic: `labels[d]` names the loop that dim `d`
/// of `value` follows. A repeated label reads a diagonal.
struct Labelled {
  Value value;
  SmallVector<int64_t> labels;
};

/// Builds a linalg.generic producing `resultType` whose dims follow
/// `outLabels`. Loops are the output labels (in order) then every other label
/// of the operands (reductions, in order of first use). `sizes` gives each
/// label's extent; an operand dim of size 1 under a larger loop reads index 0
/// (broadcast). With reductions, `term`'s value is summed into a zero
/// accumulator; without, it is the result.
Value buildLabelledGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                           ArrayRef<Labelled> operands, ArrayRef<int64_t> outLabels,
                           const llvm::DenseMap<int64_t, int64_t> &sizes,
                           function_ref<Value(OpBuilder &, Location, ValueRange)> term,
                           ValueRange dynamicSizes = {}) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> loops(outLabels.begin(), outLabels.end());
  for (const Labelled &operand : operands)
    for (int64_t l : operand.labels)
      if (!llvm::is_contained(loops, l))
        loops.push_back(l);
  int64_t numLoops = loops.size();
  auto loopOf = [&](int64_t label) {
    return static_cast<unsigned>(llvm::find(loops, label) - loops.begin());
  };
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (const Labelled &operand : operands) {
    auto type = cast<RankedTensorType>(operand.value.getType());
    SmallVector<AffineExpr> exprs;
    for (auto [d, l] : llvm::enumerate(operand.labels)) {
      bool broadcast = type.getDimSize(d) == 1 && sizes.lookup(l) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(loopOf(l), ctx));
    }
    maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    inputs.push_back(operand.value);
  }
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0, e = outLabels.size(); d < e; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators(numLoops, utils::IteratorType::reduction);
  for (size_t d = 0; d < outLabels.size(); ++d)
    iterators[d] = utils::IteratorType::parallel;
  bool reduces = numLoops > static_cast<int64_t>(outLabels.size());
  Type elem = resultType.getElementType();
  Value init = reduces ? buildFilled(b, loc, resultType, b.getZeroAttr(elem), dynamicSizes)
                       : emptyTensor(b, loc, resultType, dynamicSizes);
  return linalg::GenericOp::create(
             b, loc, resultType, inputs, init, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value t = term(nb, nloc, args.drop_back());
               if (reduces)
                 t = isa<FloatType>(elem) ? Value(arith::AddFOp::create(nb, nloc, args.back(), t))
                                          : Value(arith::AddIOp::create(nb, nloc, args.back(), t));
               linalg::YieldOp::create(nb, nloc, t);
             })
      .getResult(0);
}

/// A one-element tensor of rank 0 or 1 as a rank-0 tensor (so that it can be
/// read by any generic without a label), or null if `v` is something else.
Value asScalarTensor(OpBuilder &b, Location loc, Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
    return {};
  if (type.getRank() == 0)
    return v;
  SmallVector<ReassociationIndices> groups;
  return tensor::CollapseShapeOp::create(b, loc, RankedTensorType::get({}, type.getElementType()),
                                         v, groups);
}

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(v)));
}

/// ONNX quantization of `v` (f32, already divided by the scale): round half
/// to even, add the zero point (f32), saturate to the range of `qType`
/// (int8 or uint8 as the onnx type), convert.
Value quantizeScalar(OpBuilder &b, Location loc, Value v, Value zeroPoint, Type qType,
                     bool saturate = true) {
  // float8/float4: no rounding to an integer; the cast rounds to the type
  // (nearest even) and saturates unless `saturate` is 0 (float8 only).
  if (isSmallFloat(qType))
    return castScalarSmall(b, loc, arith::AddFOp::create(b, loc, v, zeroPoint), b.getF32Type(),
                           qType, saturate, "up");
  unsigned width = qType.getIntOrFloatBitWidth();
  bool isUnsigned = isUnsignedInt(qType);
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
  double hi = isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  Value r = math::RoundEvenOp::create(b, loc, v);
  r = arith::AddFOp::create(b, loc, r, zeroPoint);
  r = arith::MaximumFOp::create(b, loc, r, f32Const(b, loc, lo));
  r = arith::MinimumFOp::create(b, loc, r, f32Const(b, loc, hi));
  return castScalar(b, loc, r, b.getF32Type(), qType);
}

/// Labels a scale or zero point of QuantizeLinear / DequantizeLinear: a
/// single element is a rank-0 operand (`axis` unused); a 1-D tensor as long
/// as `axis` of `xType` follows that axis.
FailureOr<Labelled> perAxisOperand(OpBuilder &b, Location loc, Value v, RankedTensorType xType,
                                   int64_t axis) {
  if (Value scalar = asScalarTensor(b, loc, v))
    return Labelled{scalar, {}};
  if (axis < 0)
    axis += xType.getRank();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (axis < 0 || axis >= xType.getRank() || !type || type.getRank() != 1 ||
      type.getDimSize(0) != xType.getDimSize(axis))
    return failure();
  return Labelled{v, {axis}};
}

/// A scale or zero point of blocked quantization (`block_size` B > 0): the
/// shape of x except ceil(D/B) along `axis`; expanded to x's shape (element
/// i of `axis` reads i / B), labelled like x.
FailureOr<Labelled> blockedOperand(OpBuilder &b, Location loc, Value v, RankedTensorType xType,
                                   int64_t axis, int64_t block) {
  int64_t rank = xType.getRank();
  if (axis < 0)
    axis += rank;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (axis < 0 || axis >= rank || !type || !type.hasStaticShape() || !xType.hasStaticShape() ||
      type.getRank() != rank)
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t want = d == axis ? (xType.getDimSize(d) + block - 1) / block : xType.getDimSize(d);
    if (type.getDimSize(d) != want)
      return failure();
  }
  auto outType = RankedTensorType::get(xType.getShape(), type.getElementType());
  Value init = tensor::EmptyOp::create(b, loc, outType.getShape(), outType.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto expand = linalg::GenericOp::create(
      b, loc, outType, ValueRange{}, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, nloc, d);
          if (d == axis)
            i = arith::DivUIOp::create(nb, nloc, i, indexConst(nb, nloc, block));
          at.push_back(i);
        }
        linalg::YieldOp::create(nb, nloc, Value(tensor::ExtractOp::create(nb, nloc, v, at)));
      });
  SmallVector<int64_t> labels;
  for (int64_t d = 0; d < rank; ++d)
    labels.push_back(d);
  return Labelled{expand.getResult(0), labels};
}

/// A scale or zero point of QuantizeLinear / DequantizeLinear: per tensor,
/// per axis, or blocked (`block` > 0, from onnxcc.block_size).
FailureOr<Labelled> quantOperand(OpBuilder &b, Location loc, Value v, RankedTensorType xType,
                                 int64_t axis, int64_t block) {
  // A single element (a zero point made from output_dtype) is per tensor.
  auto type = dyn_cast<RankedTensorType>(v.getType());
  bool single = type && type.hasStaticShape() && type.getNumElements() == 1;
  if (block > 0 && !single)
    return blockedOperand(b, loc, v, xType, axis, block);
  return perAxisOperand(b, loc, v, xType, axis);
}

/// The block size the importer keeps for QuantizeLinear 21 and
/// DequantizeLinear 21 (0: none).
int64_t blockSizeOf(Operation *op) {
  if (auto a = op->getAttrOfType<IntegerAttr>("onnxcc.block_size"))
    return a.getInt();
  return 0;
}

/// The labels 0..rank-1 and their sizes: an identity view of `type`.
SmallVector<int64_t> identityLabels(RankedTensorType type,
                                    llvm::DenseMap<int64_t, int64_t> &sizes) {
  SmallVector<int64_t> labels;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    labels.push_back(d);
    sizes[d] = type.getDimSize(d);
  }
  return labels;
}

/// Normalizes a possibly negative axis of a rank-`rank` tensor, or -1.
int64_t normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  return axis >= 0 && axis < rank ? axis : -1;
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

/// TopK in two generics. First each element's rank in its slice: the number
/// of elements that come before it (a better value, or an equal value at a
/// lower index, so ties keep the lower index first). Then output j of a
/// slice is the element whose rank is j. This costs n*n compares per slice
/// of n, but is branch-free and needs no sort.
struct TopKLowering : OpConversionPattern<onnx::TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::TopKOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!xType || xType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "X needs a ranked shape of rank >= 1");
    int64_t rank = xType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    // K given at run time with no size declared: the run decides the dim
    // (TopKOp::inferShapes), a K outside [0, the axis's size] is status 9.
    Location loc = op.getLoc();
    auto dataValues = dyn_cast<RankedTensorType>(getTypeConverter()->convertType(op.getValues().getType()));
    Value runK;
    if (dataValues && dataValues.getRank() == rank && dataValues.isDynamicDim(axis) &&
        op->hasAttr("onnxcc.data_dims")) {
      Value k = scalarOf(rewriter, loc, adaptor.getK());
      Type i64 = rewriter.getI64Type();
      if (k.getType() != i64)
        k = arith::ExtSIOp::create(rewriter, loc, i64, k);
      Value n = arith::IndexCastOp::create(
          rewriter, loc, i64, tensor::DimOp::create(rewriter, loc, adaptor.getX(), axis));
      Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
      Value outside = arith::OrIOp::create(
          rewriter, loc, arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, k, zero),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt, k, n));
      checkDeclaredDim(rewriter, loc, op, outside, 0);
      k = arith::SelectOp::create(rewriter, loc, outside, zero, k);
      runK = onnxConverter(getTypeConverter())
                 .defineDataDim(rewriter, loc, op, 0,
                                arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), k));
      if (!runK)
        return rewriter.notifyMatchFailure(op, "K has no bound");
    }
    RankedTensorType valuesType, indicesType;
    if (runK) {
      valuesType = dataValues;
      indicesType = RankedTensorType::get(dataValues.getShape(), rewriter.getI64Type());
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && dataValues.isDynamicDim(d))
          return rewriter.notifyMatchFailure(op, "X needs static dims off the axis");
    } else {
      valuesType = staticResultType(rewriter, getTypeConverter(), op, 0);
      if (!valuesType)
        return failure();
      indicesType = staticResultType(rewriter, getTypeConverter(), op, 1);
      if (!indicesType)
        return failure();
    }
    // A symbolic length along the axis is at least K (checked at run time,
    // see checkDimConstraints); the other dims are static.
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && xType.isDynamicDim(d))
        return rewriter.notifyMatchFailure(op, "X needs static dims off the axis");
    int64_t n = xType.getDimSize(axis);
    if (valuesType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "Values must have the rank of X");
    int64_t k = runK ? 0 : valuesType.getDimSize(axis);
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && valuesType.getDimSize(d) != xType.getDimSize(d))
        k = -1;
    if (k < 0 || (!ShapedType::isDynamic(n) && k > n) ||
        indicesType.getShape() != valuesType.getShape())
      return rewriter.notifyMatchFailure(op, "result shapes disagree with X and K");

    // K known only at run time: run() returns 9 unless it is the declared K.
    if (!runK && !matchPattern(adaptor.getK(), m_Constant()))
      checkDeclaredDim(rewriter, loc, op, scalarOf(rewriter, loc, adaptor.getK()), k);
    SmallVector<Value> outSizes;
    if (runK)
      outSizes.push_back(runK);
    SmallVector<Value> xSizes;
    if (ShapedType::isDynamic(n))
      xSizes.push_back(tensor::DimOp::create(rewriter, loc, adaptor.getX(), axis));
    MLIRContext *ctx = rewriter.getContext();
    Type elemOnnx = onnxElementType(op.getX());
    bool largest = op.getLargest() != 0;
    Type i64 = rewriter.getI64Type();
    Value x = adaptor.getX();

    // ranks[..., i, ...] = #{i' : x[i'] before x[i]}, loops (dims..., i').
    auto rankType = RankedTensorType::get(xType.getShape(), i64);
    SmallVector<AffineExpr> ids, others;
    for (int64_t d = 0; d < rank; ++d) {
      ids.push_back(getAffineDimExpr(d, ctx));
      others.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    }
    SmallVector<AffineMap> rankMaps = {AffineMap::get(rank + 1, 0, ids, ctx),
                                       AffineMap::get(rank + 1, 0, others, ctx),
                                       AffineMap::get(rank + 1, 0, ids, ctx)};
    SmallVector<utils::IteratorType> rankIters(rank, utils::IteratorType::parallel);
    rankIters.push_back(utils::IteratorType::reduction);
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, rankType, ValueRange{x, x},
            buildFilled(rewriter, loc, rankType, rewriter.getI64IntegerAttr(0), xSizes), rankMaps,
            rankIters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value self = args[0], other = args[1];
              Value better, equal;
              if (isa<FloatType>(elemOnnx)) {
                better = arith::CmpFOp::create(
                    b, l, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, other,
                    self);
                equal = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, other, self);
              } else {
                bool u = isUnsignedInt(elemOnnx);
                auto pred = largest ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                                    : (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
                better = arith::CmpIOp::create(b, l, pred, other, self);
                equal = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, other, self);
              }
              Value lower = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                                  linalg::IndexOp::create(b, l, rank),
                                                  linalg::IndexOp::create(b, l, axis));
              Value before =
                  arith::OrIOp::create(b, l, better, arith::AndIOp::create(b, l, equal, lower));
              Value one = arith::ExtUIOp::create(b, l, i64, before);
              linalg::YieldOp::create(b, l, ValueRange{arith::AddIOp::create(b, l, args[2], one)});
            })
            .getResult(0);

    // values[..., j, ...] = x[..., i, ...] where ranks[..., i, ...] == j,
    // loops (dims..., i).
    SmallVector<AffineMap> pickMaps = {
        AffineMap::get(rank + 1, 0, others, ctx), AffineMap::get(rank + 1, 0, others, ctx),
        AffineMap::get(rank + 1, 0, ids, ctx), AffineMap::get(rank + 1, 0, ids, ctx)};
    Type elem = valuesType.getElementType();
    auto pick = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valuesType, indicesType}, ValueRange{x, ranks},
        ValueRange{buildFilled(rewriter, loc, valuesType, rewriter.getZeroAttr(elem), outSizes),
                   buildFilled(rewriter, loc, indicesType, rewriter.getI64IntegerAttr(0),
                               outSizes)},
        pickMaps, rankIters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value j = arith::IndexCastOp::create(b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value i = arith::IndexCastOp::create(b, l, i64, linalg::IndexOp::create(b, l, rank));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, args[1], j);
          linalg::YieldOp::create(b, l,
                                  ValueRange{arith::SelectOp::create(b, l, hit, args[0], args[2]),
                                             arith::SelectOp::create(b, l, hit, i, args[3])});
        });
    rewriter.replaceOp(op, pick.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

/// LRN: X is padded with zero channels ((size - 1) / 2 before, size / 2
/// after), a generic sums the squares over a window of `size` channels (the
/// window's extent given by a zero tensor<size>), then
/// y = x / (bias + alpha / size * sum)^beta.
struct LRNLowering : OpConversionPattern<onnx::LRNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::LRNOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // Symbolic dims stay symbolic (the channels too: the padded input has
    // C + size - 1 of them at run time).
    auto result = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(result))
      return failure();
    auto [type, dynamic] = *result;
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || xType != type || xType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "X must be (N, C, ...) like Y");
    if (!isa<Float32Type, Float64Type>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "only f32 and f64 are lowered");
    int64_t size = op.getSize();
    if (size <= 0)
      return rewriter.notifyMatchFailure(op, "size must be positive");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    Type elem = type.getElementType();
    TypedAttr zeroAttr = rewriter.getZeroAttr(elem);

    SmallVector<int64_t> paddedShape(type.getShape());
    SmallVector<Value> paddedDynamic(dynamic);
    if (type.isDynamicDim(1)) {
      Value &c = paddedDynamic[type.isDynamicDim(0) ? 1 : 0];
      c = arith::AddIOp::create(rewriter, loc, c, indexConst(rewriter, loc, size - 1));
    } else {
      paddedShape[1] += size - 1;
    }
    Value padded = buildFilled(rewriter, loc, RankedTensorType::get(paddedShape, elem), zeroAttr,
                               paddedDynamic);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
        strides(rank, rewriter.getIndexAttr(1)), sizes;
    offsets[1] = rewriter.getIndexAttr((size - 1) / 2);
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(type.isDynamicDim(d)
                          ? OpFoldResult(tensor::DimOp::create(rewriter, loc, x, d).getResult())
                          : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d))));
    padded = tensor::InsertSliceOp::create(rewriter, loc, x, padded, offsets, sizes, strides);
    Value window = buildFilled(rewriter, loc, RankedTensorType::get({size}, elem), zeroAttr);

    SmallVector<AffineExpr> xExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      outExprs.push_back(getAffineDimExpr(d, ctx));
      xExprs.push_back(d == 1 ? getAffineDimExpr(1, ctx) + getAffineDimExpr(rank, ctx)
                              : getAffineDimExpr(d, ctx));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, xExprs, ctx),
                                   AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
                                   AffineMap::get(rank + 1, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value sums =
        linalg::GenericOp::create(rewriter, loc, type, ValueRange{padded, window},
                                  buildFilled(rewriter, loc, type, zeroAttr, dynamic), maps, iters,
                                  [&](OpBuilder &b, Location l, ValueRange args) {
                                    Value sq = arith::MulFOp::create(b, l, args[0], args[0]);
                                    linalg::YieldOp::create(
                                        b, l, ValueRange{arith::AddFOp::create(b, l, args[2], sq)});
                                  })
            .getResult(0);
    // The attributes are f32; the formula follows the reference in that type.
    double alpha = op.getAlpha().convertToFloat() / static_cast<float>(size);
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    Value y =
        buildBroadcastGeneric(rewriter, loc, type, ValueRange{x, sums},
                              [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                                auto cst = [&](double v) {
                                  return arith::ConstantOp::create(b, l, b.getFloatAttr(elem, v));
                                };
                                Value d = arith::MulFOp::create(b, l, cst(alpha), args[1]);
                                d = arith::AddFOp::create(b, l, cst(bias), d);
                                d = math::PowFOp::create(b, l, d, cst(beta));
                                return arith::DivFOp::create(b, l, args[0], d);
                              });
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

/// y = saturate(round_half_even(x / y_scale) + y_zero_point), the scale and
/// zero point a scalar or one per element of `axis`. An absent zero point is
/// 0 and the result uint8.
struct QuantizeLinearLowering : OpConversionPattern<onnx::QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::QuantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!xType || xType.getShape() != type.getShape())
      return rewriter.notifyMatchFailure(op, "y must have the shape of x");
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    llvm::DenseMap<int64_t, int64_t> sizes;
    SmallVector<int64_t> labels = identityLabels(xType, sizes);
    SmallVector<Labelled> operands = {{adaptor.getX(), labels}};
    int64_t block = blockSizeOf(op);
    auto scale = quantOperand(rewriter, loc, adaptor.getYScale(), xType, axis, block);
    if (failed(scale))
      return rewriter.notifyMatchFailure(
          op, "y_scale must be a scalar, one per element of axis, or blocked");
    operands.push_back(*scale);
    bool hasZeroPoint = !isa<NoneType>(adaptor.getYZeroPoint().getType());
    if (hasZeroPoint) {
      auto zp = quantOperand(rewriter, loc, adaptor.getYZeroPoint(), xType, axis, block);
      if (failed(zp))
        return rewriter.notifyMatchFailure(
            op, "y_zero_point must be a scalar, one per element of axis, or blocked");
      operands.push_back(*zp);
    }
    Type xOnnx = onnxElementType(op.getX());
    Type yOnnx = onnxElementType(op.getY());
    Type scaleOnnx = onnxElementType(op.getYScale());
    Type zpOnnx = hasZeroPoint ? onnxElementType(op.getYZeroPoint()) : yOnnx;
    auto saturateAttr = op->getAttrOfType<IntegerAttr>("onnxcc.saturate");
    bool saturate = !saturateAttr || saturateAttr.getInt() != 0;
    Value y = buildLabelledGeneric(rewriter, loc, type, operands, labels, sizes,
                                   [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                                     Type f32 = b.getF32Type();
                                     Value v = castScalar(b, l, args[0], xOnnx, f32);
                                     v = arith::DivFOp::create(
                                         b, l, v, castScalar(b, l, args[1], scaleOnnx, f32));
                                     Value zp = hasZeroPoint
                                                    ? castScalar(b, l, args[2], zpOnnx, f32)
                                                    : f32Const(b, l, 0.0);
                                     return quantizeScalar(b, l, v, zp, yOnnx, saturate);
                                   });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// y = (x - x_zero_point) * x_scale, the scale and zero point a scalar or one
/// per element of `axis`.
struct DequantizeLinearLowering : OpConversionPattern<onnx::DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::DequantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!xType || xType.getShape() != type.getShape())
      return rewriter.notifyMatchFailure(op, "y must have the shape of x");
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    llvm::DenseMap<int64_t, int64_t> sizes;
    SmallVector<int64_t> labels = identityLabels(xType, sizes);
    SmallVector<Labelled> operands = {{adaptor.getX(), labels}};
    int64_t block = blockSizeOf(op);
    auto scale = quantOperand(rewriter, loc, adaptor.getXScale(), xType, axis, block);
    if (failed(scale))
      return rewriter.notifyMatchFailure(
          op, "x_scale must be a scalar, one per element of axis, or blocked");
    operands.push_back(*scale);
    bool hasZeroPoint = !isa<NoneType>(adaptor.getXZeroPoint().getType());
    if (hasZeroPoint) {
      auto zp = quantOperand(rewriter, loc, adaptor.getXZeroPoint(), xType, axis, block);
      if (failed(zp))
        return rewriter.notifyMatchFailure(
            op, "x_zero_point must be a scalar, one per element of axis, or blocked");
      operands.push_back(*zp);
    }
    Type xOnnx = onnxElementType(op.getX());
    Type scaleOnnx = onnxElementType(op.getXScale());
    Type yOnnx = onnxElementType(op.getY());
    Type zpOnnx = hasZeroPoint ? onnxElementType(op.getXZeroPoint()) : xOnnx;
    // Computed in float, rounded once to y's type (x_scale's: float16,
    // bfloat16 or float).
    Value y = buildLabelledGeneric(rewriter, loc, type, operands, labels, sizes,
                                   [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                                     Type f32 = b.getF32Type();
                                     Value v = castScalar(b, l, args[0], xOnnx, f32);
                                     if (hasZeroPoint)
                                       v = arith::SubFOp::create(
                                           b, l, v, castScalar(b, l, args[2], zpOnnx, f32));
                                     v = arith::MulFOp::create(
                                         b, l, v, castScalar(b, l, args[1], scaleOnnx, f32));
                                     return castScalar(b, l, v, f32, yOnnx);
                                   });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// DynamicQuantizeLinear to uint8: the range [min(0, min x), max(0, max x)]
/// in one reduction, then y_scale = range / 255, y_zero_point =
/// round(clip(-min / y_scale, 0, 255)), and y quantized with them.
struct DynamicQuantizeLinearLowering : OpConversionPattern<onnx::DynamicQuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::DynamicQuantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto yType = staticResultType(rewriter, getTypeConverter(), op, 0);
    if (!yType)
      return failure();
    auto scaleType = staticResultType(rewriter, getTypeConverter(), op, 1);
    if (!scaleType)
      return failure();
    auto zpType = staticResultType(rewriter, getTypeConverter(), op, 2);
    if (!zpType)
      return failure();
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || xType.getShape() != yType.getShape() || scaleType.getRank() != 0 ||
        zpType.getRank() != 0)
      return rewriter.notifyMatchFailure(op, "y must have the shape of x, scale and zero point "
                                             "must be scalars");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = xType.getRank();
    Type f32 = rewriter.getF32Type();
    auto scalarF32 = RankedTensorType::get({}, f32);

    // Both extremes start at 0, which folds in the min(0, .) and max(0, .).
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   AffineMap::get(rank, 0, ctx), AffineMap::get(rank, 0, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::reduction);
    Value lowInit = buildFilled(rewriter, loc, scalarF32, rewriter.getF32FloatAttr(0.0f));
    Value highInit = buildFilled(rewriter, loc, scalarF32, rewriter.getF32FloatAttr(0.0f));
    auto range = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scalarF32, scalarF32}, ValueRange{x},
        ValueRange{lowInit, highInit}, maps, iters, [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l,
                                  ValueRange{arith::MinimumFOp::create(b, l, args[0], args[1]),
                                             arith::MaximumFOp::create(b, l, args[0], args[2])});
        });
    Value lo = range.getResult(0), hi = range.getResult(1);
    llvm::DenseMap<int64_t, int64_t> noSizes;
    Value scale = buildLabelledGeneric(rewriter, loc, scaleType, {{lo, {}}, {hi, {}}}, {}, noSizes,
                                       [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                                         return arith::DivFOp::create(
                                             b, l, arith::SubFOp::create(b, l, args[1], args[0]),
                                             f32Const(b, l, 255.0));
                                       });
    Type u8 = onnxElementType(op.getY());
    Value zp = buildLabelledGeneric(
        rewriter, loc, zpType, {{lo, {}}, {scale, {}}}, {}, noSizes,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value v = arith::NegFOp::create(b, l, arith::DivFOp::create(b, l, args[0], args[1]));
          v = arith::MaximumFOp::create(b, l, v, f32Const(b, l, 0.0));
          v = arith::MinimumFOp::create(b, l, v, f32Const(b, l, 255.0));
          return castScalar(b, l, math::RoundEvenOp::create(b, l, v), f32, u8);
        });
    llvm::DenseMap<int64_t, int64_t> sizes;
    SmallVector<int64_t> labels = identityLabels(xType, sizes);
    Value y = buildLabelledGeneric(
        rewriter, loc, yType, {{x, labels}, {scale, {}}, {zp, {}}}, labels, sizes,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value v = arith::DivFOp::create(b, l, args[0], args[1]);
          return quantizeScalar(b, l, v, castScalar(b, l, args[2], u8, f32), u8);
        });
    rewriter.replaceOp(op, ValueRange{y, scale, zp});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// MatMulInteger, QLinearMatMul
//===----------------------------------------------------------------------===//

/// The labels of a numpy matmul of `a` and `b` giving `result`: batch dims
/// (broadcast, right-aligned) then m and n where the operands have them, k
/// contracted.
struct MatMulLabels {
  SmallVector<int64_t> a, b, out;
  llvm::DenseMap<int64_t, int64_t> sizes;
  bool hasM = false, hasN = false;
  static constexpr int64_t m = 'm', n = 'n', k = 'k';
};

FailureOr<MatMulLabels> matmulLabels(RankedTensorType at, RankedTensorType bt,
                                     RankedTensorType result) {
  if (at.getRank() == 0 || bt.getRank() == 0)
    return failure();
  MatMulLabels l;
  l.hasM = at.getRank() >= 2;
  l.hasN = bt.getRank() >= 2;
  int64_t aBatch = at.getRank() - (l.hasM ? 2 : 1), bBatch = bt.getRank() - (l.hasN ? 2 : 1);
  int64_t batch = std::max(aBatch, bBatch);
  if (result.getRank() != batch + (l.hasM ? 1 : 0) + (l.hasN ? 1 : 0))
    return failure();
  for (int64_t d = 0; d < batch; ++d) {
    l.out.push_back(kEllipsisLabel + d);
    l.sizes[kEllipsisLabel + d] = result.getDimSize(d);
  }
  auto addBatch = [&](RankedTensorType t, int64_t operandBatch, SmallVector<int64_t> &labels) {
    for (int64_t d = 0; d < operandBatch; ++d) {
      int64_t label = kEllipsisLabel + batch - operandBatch + d;
      int64_t size = t.getDimSize(d);
      if (size != 1 && size != l.sizes[label])
        return false;
      labels.push_back(label);
    }
    return true;
  };
  if (!addBatch(at, aBatch, l.a) || !addBatch(bt, bBatch, l.b))
    return failure();
  int64_t kSize = at.getDimSize(at.getRank() - 1);
  int64_t bk = bt.getDimSize(l.hasN ? bt.getRank() - 2 : 0);
  if (kSize != bk)
    return failure();
  l.sizes[MatMulLabels::k] = kSize;
  if (l.hasM) {
    l.a.push_back(MatMulLabels::m);
    l.out.push_back(MatMulLabels::m);
    l.sizes[MatMulLabels::m] = at.getDimSize(at.getRank() - 2);
  }
  l.a.push_back(MatMulLabels::k);
  l.b.push_back(MatMulLabels::k);
  if (l.hasN) {
    l.b.push_back(MatMulLabels::n);
    l.out.push_back(MatMulLabels::n);
    l.sizes[MatMulLabels::n] = bt.getDimSize(bt.getRank() - 1);
  }
  for (auto [d, label] : llvm::enumerate(l.out))
    if (result.getDimSize(d) != l.sizes[label])
      return failure();
  return l;
}

/// A zero point (or scale) of a matmul operand: a single element, or a 1-D
/// tensor along `label` (rows of A, columns of B) of that label's size.
FailureOr<Labelled> matmulSideOperand(OpBuilder &b, Location loc, Value v, bool hasLabel,
                                      int64_t label, const MatMulLabels &labels) {
  if (Value scalar = asScalarTensor(b, loc, v))
    return Labelled{scalar, {}};
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!hasLabel || !type || type.getRank() != 1 || type.getDimSize(0) != labels.sizes.lookup(label))
    return failure();
  return Labelled{v, {label}};
}

/// sum_k (a - a_zero_point) * (b - b_zero_point) in i32, the zero points
/// absent, scalars, per row of a or per column of b.
FailureOr<Value> buildIntegerMatMul(ConversionPatternRewriter &rewriter, Operation *op,
                                    RankedTensorType accType, Value a, Type aOnnx, Value aZp,
                                    Type aZpOnnx, Value b, Type bOnnx, Value bZp, Type bZpOnnx,
                                    MatMulLabels &labels) {
  Location loc = op->getLoc();
  SmallVector<Labelled> operands = {{a, labels.a}, {b, labels.b}};
  bool hasAZp = !isa<NoneType>(aZp.getType()), hasBZp = !isa<NoneType>(bZp.getType());
  if (hasAZp) {
    auto zp = matmulSideOperand(rewriter, loc, aZp, labels.hasM, MatMulLabels::m, labels);
    if (failed(zp))
      return rewriter.notifyMatchFailure(op, "a_zero_point must be a scalar or one per row");
    operands.push_back(*zp);
  }
  if (hasBZp) {
    auto zp = matmulSideOperand(rewriter, loc, bZp, labels.hasN, MatMulLabels::n, labels);
    if (failed(zp))
      return rewriter.notifyMatchFailure(op, "b_zero_point must be a scalar or one per column");
    operands.push_back(*zp);
  }
  return buildLabelledGeneric(
      rewriter, loc, accType, operands, labels.out, labels.sizes,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Type i32 = nb.getI32Type();
        Value av = castScalar(nb, l, args[0], aOnnx, i32);
        Value bv = castScalar(nb, l, args[1], bOnnx, i32);
        unsigned next = 2;
        if (hasAZp)
          av = arith::SubIOp::create(nb, l, av, castScalar(nb, l, args[next++], aZpOnnx, i32));
        if (hasBZp)
          bv = arith::SubIOp::create(nb, l, bv, castScalar(nb, l, args[next++], bZpOnnx, i32));
        return arith::MulIOp::create(nb, l, av, bv);
      });
}

struct MatMulIntegerLowering : OpConversionPattern<onnx::MatMulIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MatMulIntegerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    auto at = dyn_cast<RankedTensorType>(adaptor.getA().getType());
    auto bt = dyn_cast<RankedTensorType>(adaptor.getB().getType());
    if (!at || !bt)
      return rewriter.notifyMatchFailure(op, "A and B need static shapes");
    auto labels = matmulLabels(at, bt, type);
    if (failed(labels))
      return rewriter.notifyMatchFailure(op, "A, B and Y shapes disagree");
    auto y = buildIntegerMatMul(rewriter, op, type, adaptor.getA(), onnxElementType(op.getA()),
                                adaptor.getAZeroPoint(), onnxElementType(op.getAZeroPoint()),
                                adaptor.getB(), onnxElementType(op.getB()), adaptor.getBZeroPoint(),
                                onnxElementType(op.getBZeroPoint()), *labels);
    if (failed(y))
      return failure();
    rewriter.replaceOp(op, *y);
    return success();
  }
};

/// QLinearMatMul: the MatMulInteger accumulation, scaled by
/// a_scale * b_scale / y_scale, rounded half to even, shifted by
/// y_zero_point and saturated.
struct QLinearMatMulLowering : OpConversionPattern<onnx::QLinearMatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::QLinearMatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    auto at = dyn_cast<RankedTensorType>(adaptor.getA().getType());
    auto bt = dyn_cast<RankedTensorType>(adaptor.getB().getType());
    if (!at || !bt)
      return rewriter.notifyMatchFailure(op, "a and b need static shapes");
    auto labels = matmulLabels(at, bt, type);
    if (failed(labels))
      return rewriter.notifyMatchFailure(op, "a, b and y shapes disagree");
    Location loc = op.getLoc();
    auto accType = RankedTensorType::get(type.getShape(), rewriter.getI32Type());
    auto acc = buildIntegerMatMul(
        rewriter, op, accType, adaptor.getA(), onnxElementType(op.getA()), adaptor.getAZeroPoint(),
        onnxElementType(op.getAZeroPoint()), adaptor.getB(), onnxElementType(op.getB()),
        adaptor.getBZeroPoint(), onnxElementType(op.getBZeroPoint()), *labels);
    if (failed(acc))
      return failure();
    auto aScale = matmulSideOperand(rewriter, loc, adaptor.getAScale(), labels->hasM,
                                    MatMulLabels::m, *labels);
    auto bScale = matmulSideOperand(rewriter, loc, adaptor.getBScale(), labels->hasN,
                                    MatMulLabels::n, *labels);
    Value yScale = asScalarTensor(rewriter, loc, adaptor.getYScale());
    Value yZp = asScalarTensor(rewriter, loc, adaptor.getYZeroPoint());
    if (failed(aScale) || failed(bScale) || !yScale || !yZp)
      return rewriter.notifyMatchFailure(
          op, "scales and zero points must be scalars (a_scale per row, b_scale per column)");
    Type yOnnx = onnxElementType(op.getY());
    Type zpOnnx = onnxElementType(op.getYZeroPoint());
    Value y = buildLabelledGeneric(
        rewriter, loc, type, {{*acc, labels->out}, *aScale, *bScale, {yScale, {}}, {yZp, {}}},
        labels->out, labels->sizes, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Type f32 = b.getF32Type();
          Value v = arith::SIToFPOp::create(b, l, f32, args[0]);
          // float16 / bfloat16 scales (opset 21) are widened: the scale
          // arithmetic runs in float32 whatever the scales' type.
          auto widen = [&](Value s) -> Value {
            return s.getType() == f32 ? s : arith::ExtFOp::create(b, l, f32, s).getResult();
          };
          Value scale = arith::MulFOp::create(b, l, widen(args[1]), widen(args[2]));
          scale = arith::DivFOp::create(b, l, scale, widen(args[3]));
          v = arith::MulFOp::create(b, l, v, scale);
          return quantizeScalar(b, l, v, castScalar(b, l, args[4], zpOnnx, f32), yOnnx);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// One term of an einsum equation: its letters (ASCII codes) in order, and
/// where the ellipsis stands among them (-1 if none).
struct EinsumTerm {
  SmallVector<int64_t> letters;
  int64_t ellipsisAt = -1;
};

/// Parses one term ("ab...c"); spaces are ignored. Fails on any other
/// character or a second ellipsis.
FailureOr<EinsumTerm> parseEinsumTerm(StringRef text) {
  EinsumTerm term;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ')
      continue;
    if (c == '.') {
      if (term.ellipsisAt >= 0 || !text.substr(i).starts_with("..."))
        return failure();
      term.ellipsisAt = term.letters.size();
      i += 2;
      continue;
    }
    if (!llvm::isAlpha(c))
      return failure();
    term.letters.push_back(c);
  }
  return term;
}

/// The labels of a term for an operand of rank `rank`: its letters, with the
/// ellipsis standing for the trailing `ellipsisRank` of the `maxEllipsis`
/// broadcast dims.
SmallVector<int64_t> einsumLabels(const EinsumTerm &term, int64_t ellipsisRank,
                                  int64_t maxEllipsis) {
  SmallVector<int64_t> labels;
  for (int64_t i = 0, e = term.letters.size(); i <= e; ++i) {
    if (i == term.ellipsisAt)
      for (int64_t d = 0; d < ellipsisRank; ++d)
        labels.push_back(kEllipsisLabel + maxEllipsis - ellipsisRank + d);
    if (i < e)
      labels.push_back(term.letters[i]);
  }
  return labels;
}

/// Einsum with a constant equation as one labelled generic: every letter a
/// loop, letters absent from the output summed, a letter repeated in one
/// operand read on the diagonal, ellipsis dims broadcast like numpy. Without
/// "->" the output is the ellipsis then the letters used once, sorted.
///
/// Symbolic dims: a letter's size is a static one where any operand has it
/// static (the shape function made run() check that the others agree), else
/// the operands' dim, read at run time; an ellipsis dim that is symbolic in
/// two operands is refused (which broadcasts is not known).
struct EinsumLowering : OpConversionPattern<onnx::EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::EinsumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    StringRef equation = op.getEquation();
    auto [lhs, rhs] = equation.split("->");
    bool explicitOutput = equation.contains("->");
    SmallVector<StringRef> inputTexts;
    lhs.split(inputTexts, ',');
    ValueRange inputs = adaptor.getInputs();
    if (inputTexts.size() != inputs.size())
      return rewriter.notifyMatchFailure(op, "equation and inputs disagree in number");
    SmallVector<EinsumTerm> terms;
    SmallVector<int64_t> ellipsisRanks;
    int64_t maxEllipsis = 0;
    for (auto [text, input] : llvm::zip(inputTexts, inputs)) {
      auto term = parseEinsumTerm(text);
      auto t = dyn_cast<RankedTensorType>(input.getType());
      if (failed(term) || !t)
        return rewriter.notifyMatchFailure(op, "cannot parse the equation");
      int64_t rest = t.getRank() - static_cast<int64_t>(term->letters.size());
      if (rest < 0 || (rest > 0 && term->ellipsisAt < 0))
        return rewriter.notifyMatchFailure(op, "a term's subscripts disagree with its rank");
      terms.push_back(*term);
      ellipsisRanks.push_back(term->ellipsisAt < 0 ? 0 : rest);
      maxEllipsis = std::max(maxEllipsis, ellipsisRanks.back());
    }

    // Sizes: letters must agree; ellipsis dims broadcast from 1.
    llvm::DenseMap<int64_t, int64_t> sizes;
    SmallVector<Labelled> operands;
    for (auto [term, ellipsisRank, input] : llvm::zip(terms, ellipsisRanks, inputs)) {
      auto t = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> labels = einsumLabels(term, ellipsisRank, maxEllipsis);
      for (auto [d, label] : llvm::enumerate(labels)) {
        int64_t size = t.getDimSize(d);
        auto [it, inserted] = sizes.try_emplace(label, size);
        if (inserted)
          continue;
        if (it->second == size) {
          if (ShapedType::isDynamic(size) && label >= kEllipsisLabel)
            return rewriter.notifyMatchFailure(op, "an ellipsis dim is symbolic in two operands");
          continue;
        }
        if (label < kEllipsisLabel) {
          // A symbolic size beside a static one: the static one.
          if (ShapedType::isDynamic(it->second) || ShapedType::isDynamic(size)) {
            it->second = std::min(it->second, size);
            continue;
          }
          return rewriter.notifyMatchFailure(op, "a subscript has two different sizes");
        }
        if (it->second == 1)
          it->second = size;
        else if (size != 1)
          return rewriter.notifyMatchFailure(op, "ellipsis dims do not broadcast");
      }
      operands.push_back({input, labels});
    }

    SmallVector<int64_t> outLabels;
    if (explicitOutput) {
      auto term = parseEinsumTerm(rhs);
      if (failed(term))
        return rewriter.notifyMatchFailure(op, "cannot parse the equation's output");
      if (maxEllipsis > 0 && term->ellipsisAt < 0)
        return rewriter.notifyMatchFailure(op, "the output drops the ellipsis dims");
      outLabels = einsumLabels(*term, maxEllipsis, maxEllipsis);
    } else {
      for (int64_t d = 0; d < maxEllipsis; ++d)
        outLabels.push_back(kEllipsisLabel + d);
      std::map<int64_t, int> counts;
      for (const EinsumTerm &term : terms)
        for (int64_t letter : term.letters)
          ++counts[letter];
      for (auto [letter, count] : counts)
        if (count == 1)
          outLabels.push_back(letter);
    }
    if (static_cast<int64_t>(outLabels.size()) != type.getRank())
      return rewriter.notifyMatchFailure(op, "the output's subscripts disagree with its rank");
    for (auto [d, label] : llvm::enumerate(outLabels)) {
      if (!sizes.count(label) || llvm::count(outLabels, label) != 1 ||
          (sizes[label] != type.getDimSize(d) && !type.isDynamicDim(d)))
        return rewriter.notifyMatchFailure(op, "the output's subscripts disagree with its shape");
    }
    // A symbolic result dim whose letter is static in some operand has that
    // size (the result type keeps what shape inference gave).
    for (auto [d, label] : llvm::enumerate(outLabels))
      if (type.isDynamicDim(d) && !ShapedType::isDynamic(sizes[label]))
        return rewriter.notifyMatchFailure(op, "a symbolic result dim has a static letter");
    Type elem = type.getElementType();
    for (Value input : inputs)
      if (cast<RankedTensorType>(input.getType()).getElementType() != elem)
        return rewriter.notifyMatchFailure(op, "inputs and output differ in element type");
    bool isFloat = isa<FloatType>(elem);
    Value y = buildLabelledGeneric(rewriter, op.getLoc(), type, operands, outLabels, sizes,
                                   [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                                     Value product = args[0];
                                     for (Value v : args.drop_front())
                                       product =
                                           isFloat ? Value(arith::MulFOp::create(b, l, product, v))
                                                   : Value(arith::MulIOp::create(b, l, product, v));
                                     return product;
                                   },
                                   typeAndSizes->second);
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ReverseSequence
//===----------------------------------------------------------------------===//

/// Y[..., b, ..., t, ...] = X[..., b, ..., t', ...] with t' = len[b] - 1 - t
/// for t < len[b] and t otherwise (clamped to the axis): a gather read with
/// tensor.extract.
struct ReverseSequenceLowering : OpConversionPattern<onnx::ReverseSequenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ReverseSequenceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getInput();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || xType != type || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "input must have rank >= 2 and Y's type");
    int64_t rank = type.getRank();
    int64_t batchAxis = normalizeAxis(op.getBatchAxis(), rank);
    int64_t timeAxis = normalizeAxis(op.getTimeAxis(), rank);
    if (batchAxis < 0 || timeAxis < 0 || batchAxis == timeAxis)
      return rewriter.notifyMatchFailure(op, "batch_axis and time_axis must be distinct axes");
    Value lens = adaptor.getSequenceLens();
    auto lensType = dyn_cast<RankedTensorType>(lens.getType());
    if (!lensType || lensType.getRank() != 1 ||
        lensType.getDimSize(0) != type.getDimSize(batchAxis))
      return rewriter.notifyMatchFailure(op, "sequence_lens must have one length per batch");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, {getAffineDimExpr(batchAxis, ctx)}, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    Value y =
        linalg::GenericOp::create(
            rewriter, loc, type, ValueRange{lens}, init, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              SmallVector<Value> at;
              for (int64_t d = 0; d < rank; ++d)
                at.push_back(linalg::IndexOp::create(b, l, d));
              Type i64 = b.getI64Type();
              Value t = arith::IndexCastOp::create(b, l, i64, at[timeAxis]);
              Value len = args[0];
              Value one = arith::ConstantIntOp::create(b, l, i64, 1);
              Value reversed =
                  arith::SubIOp::create(b, l, arith::SubIOp::create(b, l, len, one), t);
              Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t, len);
              Value src = arith::SelectOp::create(b, l, inside, reversed, t);
              // A length beyond the time axis must not read out of bounds.
              Value last = arith::ConstantIntOp::create(b, l, i64, type.getDimSize(timeAxis) - 1);
              Value zero = arith::ConstantIntOp::create(b, l, i64, 0);
              src = arith::SelectOp::create(
                  b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, src, last), last,
                  src);
              src = arith::SelectOp::create(
                  b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, src, zero), zero,
                  src);
              at[timeAxis] = arith::IndexCastOp::create(b, l, b.getIndexType(), src);
              linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, x, at)});
            })
            .getResult(0);
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// The zero of an int or float element type.
Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
}

/// TensorScatter: present_cache[p] is update[p with j along axis] when
/// position s = p[axis] is the one written by update row j of its batch
/// (linear: j = s - write_indices[b]; circular: j = (s - w) mod max_len, the
/// last of the rows that wrap onto s), else past_cache[p]. A position no row
/// reaches, or a row past the cache's end (linear), keeps the past value.
struct TensorScatterLowering : OpConversionPattern<onnx::TensorScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::TensorScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value cache = adaptor.getPastCache(), update = adaptor.getUpdate();
    auto updateType = dyn_cast<RankedTensorType>(update.getType());
    auto cacheType = dyn_cast<RankedTensorType>(cache.getType());
    if (!updateType || !updateType.hasStaticShape() || !cacheType ||
        !cacheType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "past_cache and update must be static");
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    axis = axis < 0 ? axis + rank : axis;
    int64_t maxLen = type.getDimSize(axis), seqLen = updateType.getDimSize(axis);
    bool circular = op.getMode() == "circular";
    if (circular && maxLen == 0)
      return op.emitError("cannot lower 'onnx.TensorScatter': circular mode over an empty "
                          "sequence dim");
    Value indices = adaptor.getWriteIndices();
    bool hasIndices = !isa<NoneType>(op.getWriteIndices().getType());
    Type i64 = rewriter.getI64Type();
    Value y = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          Value s = arith::IndexCastOp::create(b, l, i64, ivs[axis]);
          Value w = hasIndices
                        ? Value(tensor::ExtractOp::create(b, l, indices, ValueRange{ivs[0]}))
                        : Value(arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0)));
          auto c64 = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          Value j = arith::SubIOp::create(b, l, s, w);
          if (circular) {
            // (s - w) mod maxLen in [0, maxLen), then the last row that
            // lands on s: j + floor((seqLen - 1 - j) / maxLen) * maxLen.
            Value m = c64(maxLen);
            Value r = arith::RemSIOp::create(b, l, j, m);
            Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, c64(0));
            j = arith::SelectOp::create(b, l, neg, arith::AddIOp::create(b, l, r, m), r);
            if (seqLen > maxLen) {
              Value rest = arith::SubIOp::create(b, l, c64(seqLen - 1), j);
              Value laps = arith::DivSIOp::create(b, l, rest, m);
              Value last = arith::AddIOp::create(b, l, j, arith::MulIOp::create(b, l, laps, m));
              Value some = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, rest, c64(0));
              j = arith::SelectOp::create(b, l, some, last, j);
            }
          }
          Value inRange = arith::AndIOp::create(
              b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, j, c64(0)),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, j, c64(seqLen)));
          Value clamped = arith::SelectOp::create(b, l, inRange, j, c64(0));
          SmallVector<Value> at(ivs.begin(), ivs.end());
          at[axis] = arith::IndexCastOp::create(b, l, b.getIndexType(), clamped);
          Value past = tensor::ExtractOp::create(b, l, cache, ivs);
          if (seqLen == 0)
            return past;
          Value fresh = tensor::ExtractOp::create(b, l, update, at);
          return arith::SelectOp::create(b, l, inRange, fresh, past);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// CenterCropPad with a shape given at run time (a constant shape becomes
/// Slice and Pad on import): the result has the model's declared dims, run()
/// checks that `shape` asks for them (status 9 otherwise), and each result
/// element reads the input at its position shifted by the crop start or
/// the left padding, zero outside the input.
struct CenterCropPadLowering : OpConversionPattern<onnx::CenterCropPadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::CenterCropPadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Value x = adaptor.getInputData(), shape = adaptor.getShape();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto shapeType = dyn_cast<RankedTensorType>(shape.getType());
    if (!type || !xType || !shapeType)
      return rewriter.notifyMatchFailure(op, "operands and result must be ranked");
    if (!xType.hasStaticShape())
      return op.emitError("cannot lower 'onnx.CenterCropPad': the dims of input_data must be "
                          "known at compile time");
    if (!type.hasStaticShape())
      return op.emitError("cannot lower 'onnx.CenterCropPad': the dims of its result depend "
                          "on the values of 'shape'; declare the output's dims in the model");
    int64_t rank = xType.getRank();
    SmallVector<int64_t> axes;
    if (auto given = op.getAxes())
      for (int64_t a : *given)
        axes.push_back(a < 0 ? a + rank : a);
    else
      for (int64_t d = 0; d < rank; ++d)
        axes.push_back(d);
    if (shapeType.getRank() != 1 || shapeType.getDimSize(0) != static_cast<int64_t>(axes.size()))
      return op.emitError("cannot lower 'onnx.CenterCropPad': 'shape' is ")
             << op.getShape().getType() << ", expected " << axes.size() << " values";
    Type elem = type.getElementType();
    bool numeric = isa<IntegerType, FloatType>(elem) && !isa<onnx::StringType>(
                                                              getElementTypeOrSelf(op.getType()));
    // Where a dim is not in `axes` it is kept; else offset = crop start
    // (positive) or minus the left padding.
    SmallVector<int64_t> offset(rank, 0);
    bool pads = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t in = xType.getDimSize(d), out = type.getDimSize(d);
      if (!llvm::is_contained(axes, d)) {
        if (in != out)
          return op.emitError("cannot lower 'onnx.CenterCropPad': dim ")
                 << d << " is not in 'axes' but the result has " << out << " for " << in;
        continue;
      }
      offset[d] = out <= in ? (in - out) / 2 : -((out - in) / 2);
      pads |= out > in;
    }
    if (pads && !numeric)
      return op.emitError("cannot lower 'onnx.CenterCropPad': padding a tensor of ")
             << getElementTypeOrSelf(op.getType()) << " (no zero value)";

    // run() checks each value of `shape` against the declared dim.
    Type i64 = rewriter.getI64Type();
    func::FuncOp check = declareRuntimeFunction(
        rewriter, op, "onnxcc_check_equal", "onnxcc_rt::check_equal",
        rewriter.getFunctionType({i64, i64}, {rewriter.getI32Type()}), /*usesStringPool=*/false);
    for (auto [i, a] : llvm::enumerate(axes)) {
      Value v = tensor::ExtractOp::create(rewriter, loc, shape,
                                          ValueRange{indexConst(rewriter, loc, i)});
      if (v.getType() != i64)
        v = arith::ExtSIOp::create(rewriter, loc, i64, v);
      Value want = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getI64IntegerAttr(type.getDimSize(a)));
      func::CallOp::create(rewriter, loc, check, ValueRange{v, want});
    }

    Value y = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at;
          Value inside;
          for (int64_t d = 0; d < rank; ++d) {
            if (offset[d] == 0 && type.getDimSize(d) <= xType.getDimSize(d)) {
              at.push_back(ivs[d]);
              continue;
            }
            Value p = arith::AddIOp::create(b, l, ivs[d], indexConst(b, l, offset[d]));
            if (type.getDimSize(d) > xType.getDimSize(d)) {
              Value ok = arith::AndIOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, p, indexConst(b, l, 0)),
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, p,
                                        indexConst(b, l, xType.getDimSize(d))));
              inside = inside ? Value(arith::AndIOp::create(b, l, inside, ok)) : ok;
              p = clampIndex(b, l, p, indexConst(b, l, 0),
                             indexConst(b, l, std::max<int64_t>(xType.getDimSize(d) - 1, 0)));
            }
            at.push_back(p);
          }
          if (xType.getNumElements() == 0)
            return zeroOf(b, l, elem);
          Value v = tensor::ExtractOp::create(b, l, x, at);
          if (!inside)
            return v;
          return arith::SelectOp::create(b, l, inside, v, zeroOf(b, l, elem));
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// BatchNormalization with training_mode=1: the batch statistics over every
/// dim but the channels (mean, and the variance divided by the count), Y
/// normalized with them, and the running statistics
/// input * momentum + batch * (1 - momentum).
struct BatchNormTrainingLowering : OpConversionPattern<onnx::BatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::BatchNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getTrainingMode() != 1)
      return rewriter.notifyMatchFailure(op, "inference mode");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Type elem = type.getElementType();
    if (!elem.isF32() && !elem.isF64())
      return op.emitError("cannot lower 'onnx.BatchNormalization' in training mode for ")
             << elem << " (float and double only)";
    int64_t rank = type.getRank();
    int64_t channels = type.getDimSize(1);
    for (Value v : {adaptor.getScale(), adaptor.getB(), adaptor.getInputMean(),
                    adaptor.getInputVar()}) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getRank() != 1 || t.getDimSize(0) != channels)
        return op.emitError("cannot lower 'onnx.BatchNormalization': scale, B, mean and var "
                            "must have shape [")
               << channels << "]";
    }
    Value x = adaptor.getX();
    int64_t count = type.getNumElements() / std::max<int64_t>(channels, 1);
    auto statType = RankedTensorType::get({channels}, elem);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::reduction);
    iterators[1] = utils::IteratorType::parallel;
    auto channelSum = [&](ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                          function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
      Value init = buildFilled(rewriter, loc, statType, rewriter.getFloatAttr(elem, 0.0));
      SmallVector<AffineMap> maps(inputMaps.begin(), inputMaps.end());
      maps.push_back(channel);
      auto g = linalg::GenericOp::create(
          rewriter, loc, statType, inputs, init, maps, iterators,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value t = term(b, l, args.drop_back());
            linalg::YieldOp::create(b, l, Value(arith::AddFOp::create(b, l, args.back(), t)));
          });
      // Divided by the count.
      Value n = floatConst(rewriter, loc, elem, static_cast<double>(std::max<int64_t>(count, 1)));
      return buildIndexedGeneric(rewriter, loc, statType,
                                 [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
                                   Value s = tensor::ExtractOp::create(b, l, g.getResult(0), ivs);
                                   return arith::DivFOp::create(b, l, s, n);
                                 });
    };
    Value mean = channelSum(ValueRange{x}, {identity},
                            [](OpBuilder &, Location, ValueRange v) { return v[0]; });
    Value var = channelSum(ValueRange{x, mean}, {identity, channel},
                           [](OpBuilder &b, Location l, ValueRange v) -> Value {
                             Value d = arith::SubFOp::create(b, l, v[0], v[1]);
                             return arith::MulFOp::create(b, l, d, d);
                           });
    double epsilon = op.getEpsilon().convertToDouble();
    Value scale = adaptor.getScale(), bias = adaptor.getB();
    Value y = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          Value c = ivs[1];
          Value d = arith::SubFOp::create(b, l, tensor::ExtractOp::create(b, l, x, ivs),
                                          tensor::ExtractOp::create(b, l, mean, c));
          Value v = arith::AddFOp::create(b, l, tensor::ExtractOp::create(b, l, var, c),
                                          floatConst(b, l, elem, epsilon));
          Value n = arith::DivFOp::create(b, l, d, math::SqrtOp::create(b, l, v));
          Value s = arith::MulFOp::create(b, l, n, tensor::ExtractOp::create(b, l, scale, c));
          return arith::AddFOp::create(b, l, s, tensor::ExtractOp::create(b, l, bias, c));
        });
    double momentum = op.getMomentum().convertToDouble();
    auto running = [&](Value input, Value batch) {
      return buildIndexedGeneric(
          rewriter, loc, statType, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
            Value a = arith::MulFOp::create(b, l, tensor::ExtractOp::create(b, l, input, ivs),
                                            floatConst(b, l, elem, momentum));
            Value c = arith::MulFOp::create(b, l, tensor::ExtractOp::create(b, l, batch, ivs),
                                            floatConst(b, l, elem, 1.0 - momentum));
            return arith::AddFOp::create(b, l, a, c);
          });
    };
    SmallVector<Value> results = {y, Value(), Value()};
    if (!isa<NoneType>(op->getResult(1).getType()))
      results[1] = running(adaptor.getInputMean(), mean);
    if (!isa<NoneType>(op->getResult(2).getType()))
      results[2] = running(adaptor.getInputVar(), var);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Dropout whose training_mode is not a constant false. With a ratio of 0
/// (or at run time not training) nothing is dropped: the output is the
/// input and the mask all true. Dropping elements needs random numbers,
/// which onnxcc does not generate: a constant non-zero ratio in training
/// mode is a compile error, and one known only at run time makes run()
/// return 15 (onnxcc_rt::check_no_random) when it is not 0 while training.
struct TrainingDropoutLowering : OpConversionPattern<onnx::DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  static std::optional<double> constantRatio(Value v) {
    Attribute attr;
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      attr = c.getValue();
    else if (auto c = v.getDefiningOp<onnx::ConstantOp>())
      attr = c.getValueAttr();
    auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr);
    if (!dense || dense.getNumElements() != 1)
      return std::nullopt;
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  }
  static std::optional<bool> constantFlag(Value v) {
    Attribute attr;
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      attr = c.getValue();
    else if (auto c = v.getDefiningOp<onnx::ConstantOp>())
      attr = c.getValueAttr();
    auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
    if (!dense || dense.getNumElements() != 1 || !dense.getElementType().isInteger(1))
      return std::nullopt;
    return *dense.getValues<bool>().begin();
  }

  LogicalResult matchAndRewrite(onnx::DropoutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value training = op.getTrainingMode();
    if (isa<NoneType>(training.getType()))
      return rewriter.notifyMatchFailure(op, "inference");
    std::optional<bool> on = constantFlag(adaptor.getTrainingMode());
    if (!on)
      on = constantFlag(training);
    if (on && !*on)
      return rewriter.notifyMatchFailure(op, "inference");
    Location loc = op.getLoc();
    // ONNX's default ratio is 0.5.
    std::optional<double> ratio = 0.5;
    bool hasRatio = !isa<NoneType>(op.getRatio().getType());
    if (hasRatio) {
      ratio = constantRatio(adaptor.getRatio());
      if (!ratio)
        ratio = constantRatio(op.getRatio());
    }
    if (on && ratio && *ratio != 0)
      return op.emitError("cannot lower 'onnx.Dropout' in training mode with ratio ")
             << *ratio << ": it draws random numbers, which onnxcc does not generate";
    if (!on || !ratio) {
      // Decided at run time: training with a non-zero ratio is status 15.
      Value random = on ? Value() : scalarOf(rewriter, loc, adaptor.getTrainingMode());
      if (!ratio) {
        Value r = scalarOf(rewriter, loc, adaptor.getRatio());
        Value nonZero = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNE, r,
                                              floatConst(rewriter, loc, r.getType(), 0.0));
        random = random ? Value(arith::AndIOp::create(rewriter, loc, random, nonZero)) : nonZero;
      }
      if (random) {
        func::FuncOp check = declareRuntimeFunction(
            rewriter, op, "onnxcc_check_no_random", "onnxcc_rt::check_no_random",
            rewriter.getFunctionType({rewriter.getI1Type()}, {rewriter.getI32Type()}),
            /*usesStringPool=*/false);
        func::CallOp::create(rewriter, loc, check, ValueRange{random});
      }
    }
    SmallVector<SmallVector<Value>> results;
    results.push_back({adaptor.getData()});
    Value mask = op.getMask();
    if (mask.use_empty() || isa<NoneType>(mask.getType())) {
      results.push_back({});
    } else {
      auto maskType = staticResultType(rewriter, getTypeConverter(), op, 1);
      if (!maskType)
        return failure();
      results.push_back({buildFilled(rewriter, loc, maskType, rewriter.getBoolAttr(true))});
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

/// Bernoulli draws random numbers: refused with a line that says so.
struct BernoulliRefusal : OpConversionPattern<onnx::BernoulliOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::BernoulliOp op, OpAdaptor,
                                ConversionPatternRewriter &) const override {
    return op.emitError("cannot lower 'onnx.Bernoulli': it draws random numbers, which onnxcc "
                        "does not generate (the generated code is deterministic)");
  }
};

} // namespace

void populateMiscPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<TopKLowering, LRNLowering, QuantizeLinearLowering, DequantizeLinearLowering,
               DynamicQuantizeLinearLowering, MatMulIntegerLowering, QLinearMatMulLowering,
               EinsumLowering, ReverseSequenceLowering, TensorScatterLowering,
               CenterCropPadLowering, BatchNormTrainingLowering, TrainingDropoutLowering,
               BernoulliRefusal>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
