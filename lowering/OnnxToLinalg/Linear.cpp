//===- Linear.cpp - MatMul and Gemm to linalg contractions ---------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/IR/AffineMap.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// Multiply-accumulate of the contraction body for element type `t`.
Value multiplyAdd(OpBuilder &b, Location loc, Value a, Value x, Value acc) {
  if (isa<FloatType>(acc.getType())) {
    Value p = arith::MulFOp::create(b, loc, a, x);
    return arith::AddFOp::create(b, loc, acc, p);
  }
  Value p = arith::MulIOp::create(b, loc, a, x);
  return arith::AddIOp::create(b, loc, acc, p);
}

/// result[batch..., m?, n?] = sum_k a[batch..., m?, k] * b[batch..., k, n?]
/// with numpy matmul semantics: batch dims broadcast; a 1-D `a` has no m, a
/// 1-D `b` has no n. `transA`/`transB` swap the last two dims of 2-D operands.
Value buildContraction(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange resultSizes, Value lhs, Value rhs, bool transA = false,
                       bool transB = false) {
  MLIRContext *ctx = b.getContext();
  bool hasM = cast<RankedTensorType>(lhs.getType()).getRank() >= 2;
  bool hasN = cast<RankedTensorType>(rhs.getType()).getRank() >= 2;
  int64_t batchRank = resultType.getRank() - (hasM ? 1 : 0) - (hasN ? 1 : 0);
  // A symbolic batch dim of an operand against a static one of the result
  // broadcasts (1 or that size, checked at run time).
  Operation *inFunc = b.getInsertionBlock()->getParentOp();
  auto staticBatch = [&](Value v, bool hasMatrixDim) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t matrixRank = hasMatrixDim ? 2 : 1;
    SmallVector<int64_t> target(resultType.getShape().take_front(batchRank));
    llvm::append_range(target, t.getShape().take_back(matrixRank));
    return broadcastSymbolicDims(b, inFunc, loc, v,
                                 RankedTensorType::get(target, t.getElementType()));
  };
  lhs = staticBatch(lhs, hasM);
  rhs = staticBatch(rhs, hasN);
  auto at = cast<RankedTensorType>(lhs.getType());
  auto bt = cast<RankedTensorType>(rhs.getType());
  int64_t numDims = batchRank + (hasM ? 1 : 0) + (hasN ? 1 : 0) + 1;
  int64_t mDim = batchRank, nDim = batchRank + (hasM ? 1 : 0), kDim = numDims - 1;
  auto batchExprs = [&](RankedTensorType t, int64_t operandBatchRank) {
    SmallVector<AffineExpr> exprs;
    int64_t offset = batchRank - operandBatchRank;
    for (int64_t d = 0; d < operandBatchRank; ++d) {
      bool broadcast = t.getDimSize(d) == 1 && resultType.getDimSize(offset + d) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + d, ctx));
    }
    return exprs;
  };
  SmallVector<AffineExpr> aExprs = batchExprs(at, at.getRank() - (hasM ? 2 : 1));
  if (hasM) {
    if (transA) {
      aExprs.push_back(getAffineDimExpr(kDim, ctx));
      aExprs.push_back(getAffineDimExpr(mDim, ctx));
    } else {
      aExprs.push_back(getAffineDimExpr(mDim, ctx));
      aExprs.push_back(getAffineDimExpr(kDim, ctx));
    }
  } else {
    aExprs.push_back(getAffineDimExpr(kDim, ctx));
  }
  SmallVector<AffineExpr> bExprs = batchExprs(bt, bt.getRank() - (hasN ? 2 : 1));
  if (hasN) {
    if (transB) {
      bExprs.push_back(getAffineDimExpr(nDim, ctx));
      bExprs.push_back(getAffineDimExpr(kDim, ctx));
    } else {
      bExprs.push_back(getAffineDimExpr(kDim, ctx));
      bExprs.push_back(getAffineDimExpr(nDim, ctx));
    }
  } else {
    bExprs.push_back(getAffineDimExpr(kDim, ctx));
  }
  SmallVector<AffineExpr> cExprs;
  for (int64_t d = 0; d < numDims - 1; ++d)
    cExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, aExprs, ctx),
                                 AffineMap::get(numDims, 0, bExprs, ctx),
                                 AffineMap::get(numDims, 0, cExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(numDims - 1, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  // float16/bfloat16 products accumulate in float32 and are rounded once at
  // the end (as numpy and ONNX Runtime do); a float16 sum rounded after every
  // term drifts by several ulps over a few dozen terms.
  Type elem = resultType.getElementType();
  Type accElem = accumulatorType(elem);
  auto accType = RankedTensorType::get(resultType.getShape(), accElem);
  Value init = buildFilled(b, loc, accType, b.getZeroAttr(accElem), resultSizes);
  Value acc = linalg::GenericOp::create(
                  b, loc, accType, ValueRange{lhs, rhs}, init, maps, iterators,
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    Value x = args[0], y = args[1];
                    if (accElem != elem) {
                      x = arith::ExtFOp::create(nb, nloc, accElem, x);
                      y = arith::ExtFOp::create(nb, nloc, accElem, y);
                    }
                    linalg::YieldOp::create(nb, nloc, multiplyAdd(nb, nloc, x, y, args[2]));
                  })
                  .getResult(0);
  if (accElem == elem)
    return acc;
  return roundAccumulator(b, loc, acc, resultType, resultSizes);
}

struct MatMulLowering : OpConversionPattern<onnx::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [type, sizes] = *typeAndSizes;
    Location loc = op.getLoc();
    Value a = broadcastMatMulBatch(rewriter, op, loc, getTypeConverter(), 0, adaptor.getA(),
                                   type, sizes);
    Value b = broadcastMatMulBatch(rewriter, op, loc, getTypeConverter(), 1, adaptor.getB(),
                                   type, sizes);
    rewriter.replaceOp(op, buildContraction(rewriter, loc, type, sizes, a, b));
    return success();
  }
};

struct GemmLowering : OpConversionPattern<onnx::GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::GemmOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Location loc = op.getLoc();
    Value product = buildContraction(rewriter, loc, type, typeAndSizes->second, adaptor.getA(),
                                     adaptor.getB(), op.getTransA() != 0, op.getTransB() != 0);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value c = adaptor.getC();
    bool hasC = !isa<NoneType>(c.getType()) && beta != 0.0;
    if (alpha == 1.0 && !hasC) {
      rewriter.replaceOp(op, product);
      return success();
    }
    SmallVector<Value> inputs = {product};
    if (hasC)
      inputs.push_back(broadcastOperand(rewriter, op, loc, getTypeConverter(), 2, c, type,
                                        typeAndSizes->second));
    Type elem = type.getElementType();
    Value result = buildBroadcastGeneric(
        rewriter, loc, type, inputs, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          bool isFloat = isa<FloatType>(elem);
          auto scale = [&](Value v, double s) -> Value {
            if (s == 1.0)
              return v;
            if (isFloat)
              return arith::MulFOp::create(
                  b, l, v, arith::ConstantOp::create(b, l, b.getFloatAttr(elem, s)));
            return arith::MulIOp::create(
                b, l, v,
                arith::ConstantOp::create(b, l, b.getIntegerAttr(elem, static_cast<int64_t>(s))));
          };
          Value r = scale(args[0], alpha);
          if (args.size() > 1) {
            Value cv = scale(args[1], beta);
            r = isFloat ? Value(arith::AddFOp::create(b, l, r, cv))
                        : Value(arith::AddIOp::create(b, l, r, cv));
          }
          return r;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

Value broadcastMatMulBatch(OpBuilder &b, Operation *op, Location loc,
                           const TypeConverter *converter, unsigned operand, Value converted,
                           RankedTensorType resultType, ValueRange resultSizes) {
  auto t = cast<RankedTensorType>(converted.getType());
  if (t.getRank() < 3)
    return converted;
  const OnnxTypeConverter &conv = onnxConverter(converter);
  auto shape = conv.shapeOf(op->getOperand(operand));
  auto outShape = conv.shapeOf(op->getResult(0));
  auto other = cast<RankedTensorType>(op->getOperand(1 - operand).getType());
  int64_t batchRank = resultType.getRank() - 1 - (other.getRank() >= 2 ? 1 : 0);
  int64_t operandBatch = t.getRank() - 2, offset = batchRank - operandBatch;
  if (!shape || !outShape || offset < 0 ||
      shape->size() != static_cast<size_t>(t.getRank()) ||
      outShape->size() != static_cast<size_t>(resultType.getRank()))
    return converted;
  SmallVector<Value> otherSizes(t.getRank());
  SmallVector<int64_t> target(t.getShape());
  bool any = false;
  for (int64_t d = 0; d < operandBatch; ++d) {
    if (!t.isDynamicDim(d) || !resultType.isDynamicDim(offset + d) ||
        (*shape)[d] == (*outShape)[offset + d])
      continue;
    otherSizes[d] = resultSizes[resultType.getDynamicDimIndex(offset + d)];
    any = true;
  }
  if (!any)
    return converted;
  return broadcastSymbolicDims(b, op, loc, converted,
                               RankedTensorType::get(target, t.getElementType()), otherSizes);
}

Value buildMatMulContraction(OpBuilder &b, Location loc, RankedTensorType resultType,
                             ValueRange resultSizes, Value lhs, Value rhs, bool transA,
                             bool transB) {
  return buildContraction(b, loc, resultType, resultSizes, lhs, rhs, transA, transB);
}

void populateLinearPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, GemmLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
