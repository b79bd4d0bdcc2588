//===- Losses.cpp - onnx ops to linalg: loss family -----------------------===//
//
// NegativeLogLikelihoodLoss is one linalg.generic over the target's shape
// [N, d1, ...]: each position reads its class index (runtime data), clamps it
// into [0, C) so that no read leaves the buffer (the value is irrelevant for
// an out-of-range index, which ONNX leaves undefined unless it is the
// ignore_index), and reads -input[n, t, d..] * weight[t], or 0 where
// t == ignore_index. With reduction none the generic writes the loss per
// position; with sum or mean it reduces every loop into two scalars, the loss
// sum and the sum of the weights taken, and mean divides them in a rank-0
// generic.
//
// SoftmaxCrossEntropyLoss is the same loss over log_softmax(scores, axis 1),
// computed as x - max - log(sum(exp(x - max))) with two reductions over the
// class dim; log_prob, when asked for, is that tensor.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/IR/AffineMap.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

using MultiBody = function_ref<SmallVector<Value>(OpBuilder &, Location, ArrayRef<Value> ivs,
                                                  ValueRange args)>;

RankedTensorType rankedOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

/// A linalg.generic with the given inputs, outputs (inits), maps and
/// iterators; `body` gets the loop indices and the block arguments (inputs,
/// then the current output elements) and returns one value per output.
SmallVector<Value> buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                                ValueRange outputs, ArrayRef<AffineMap> maps,
                                ArrayRef<utils::IteratorType> iterators, MultiBody body) {
  unsigned numLoops = iterators.size();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(outputs), inputs, outputs, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> ivs;
        for (unsigned d = 0; d < numLoops; ++d)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, d));
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, ivs, args));
      });
  return SmallVector<Value>(generic.getResults());
}

/// The map from the iteration space of an [N, C, d1, ...] tensor to the same
/// space without the class dim: where per-position values live.
AffineMap withoutClassDim(int64_t rank, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != 1)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// Checks the operands shared by both losses: input [N, C, d..] of a float
/// type, target [N, d..] of i32/i64, weight absent or [C] of the input's
/// type, and the loss type (the target's shape for none, a scalar else).
LogicalResult checkOperands(ConversionPatternRewriter &rewriter, Operation *op,
                            RankedTensorType inType, RankedTensorType targetType, Value weight,
                            RankedTensorType lossType, StringRef reduction) {
  if (!inType || inType.getRank() < 2 || !isa<FloatType>(inType.getElementType()))
    return rewriter.notifyMatchFailure(op, "input must be a float tensor [N, C, d1, ...]");
  if (inType.getDimSize(1) == 0)
    return rewriter.notifyMatchFailure(op, "input has no classes");
  SmallVector<int64_t> expected(inType.getShape());
  expected.erase(expected.begin() + 1);
  if (!targetType || targetType.getShape() != ArrayRef<int64_t>(expected))
    return rewriter.notifyMatchFailure(op, "target must be the input's shape without dim 1");
  Type targetElem = targetType.getElementType();
  if (!targetElem.isInteger(32) && !targetElem.isInteger(64))
    return rewriter.notifyMatchFailure(op, "target must be int32 or int64");
  if (weight) {
    auto weightType = rankedOf(weight);
    if (!weightType || weightType.getRank() != 1 ||
        weightType.getDimSize(0) != inType.getDimSize(1) ||
        weightType.getElementType() != inType.getElementType())
      return rewriter.notifyMatchFailure(op, "weight must be [C] of the input's type");
  }
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return rewriter.notifyMatchFailure(op, "reduction must be none, sum or mean");
  if (lossType.getElementType() != inType.getElementType())
    return rewriter.notifyMatchFailure(op, "loss must have the input's type");
  if (reduction == "none" ? lossType.getShape() != targetType.getShape()
                          : lossType.getRank() != 0)
    return rewriter.notifyMatchFailure(op, "loss must be the target's shape for reduction "
                                           "none, a scalar else");
  return success();
}

/// The negative log likelihood of `logProb` [N, C, d..] at `target` [N, d..]
/// (see the file comment); `weight` may be null.
Value buildNll(OpBuilder &b, Location loc, Value logProb, Value target, Value weight,
               std::optional<int64_t> ignoreIndex, StringRef reduction,
               RankedTensorType lossType) {
  MLIRContext *ctx = b.getContext();
  auto targetType = cast<RankedTensorType>(target.getType());
  int64_t rank = targetType.getRank();
  int64_t classes = cast<RankedTensorType>(logProb.getType()).getDimSize(1);
  Type elem = lossType.getElementType();
  bool reduce = reduction != "none";

  /// Per position: the loss term and the weight it counts with.
  auto term = [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs,
                  Value t) -> std::pair<Value, Value> {
    Value t64 = t;
    if (!t.getType().isInteger(64))
      t64 = arith::ExtSIOp::create(nb, l, nb.getI64Type(), t);
    Value cls = arith::IndexCastOp::create(nb, l, nb.getIndexType(), t64);
    Value lo = indexConst(nb, l, 0), hi = indexConst(nb, l, classes - 1);
    Value below = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, cls, lo);
    cls = arith::SelectOp::create(nb, l, below, lo, cls);
    Value above = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, cls, hi);
    cls = arith::SelectOp::create(nb, l, above, hi, cls);
    SmallVector<Value> at{ivs[0], cls};
    llvm::append_range(at, ivs.drop_front());
    Value x = tensor::ExtractOp::create(nb, l, logProb, at);
    Value w = weight ? Value(tensor::ExtractOp::create(nb, l, weight, ValueRange{cls}))
                     : floatConst(nb, l, elem, 1.0);
    Value loss = arith::MulFOp::create(nb, l, arith::NegFOp::create(nb, l, x), w);
    if (!ignoreIndex)
      return {loss, w};
    // A select, not a multiplication by 0: an ignored position reads an
    // arbitrary class whose log-probability may be -inf.
    Value ii = arith::ConstantIntOp::create(nb, l, nb.getI64Type(), *ignoreIndex);
    Value ignored = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, t64, ii);
    Value zero = floatConst(nb, l, elem, 0.0);
    return {arith::SelectOp::create(nb, l, ignored, zero, loss),
            arith::SelectOp::create(nb, l, ignored, zero, w)};
  };

  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  if (!reduce) {
    Value init = tensor::EmptyOp::create(b, loc, lossType.getShape(), elem);
    SmallVector<utils::IteratorType> parallel(rank, utils::IteratorType::parallel);
    return buildGeneric(b, loc, target, init, {identity, identity}, parallel,
                        [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs,
                            ValueRange args) -> SmallVector<Value> {
                          return {term(nb, l, ivs, args[0]).first};
                        })
        .front();
  }

  auto scalarType = RankedTensorType::get({}, elem);
  /// One zero-filled scalar per accumulator: a shared init would bufferize
  /// into a copy per output.
  auto zeroSum = [&] { return buildFilled(b, loc, scalarType, b.getFloatAttr(elem, 0.0)); };
  AffineMap toScalar = AffineMap::get(rank, 0, {}, ctx);
  SmallVector<utils::IteratorType> reducing(rank, utils::IteratorType::reduction);
  bool mean = reduction == "mean";
  SmallVector<Value> inits{zeroSum()};
  SmallVector<AffineMap> maps{identity, toScalar};
  if (mean) {
    inits.push_back(zeroSum());
    maps.push_back(toScalar);
  }
  SmallVector<Value> sums = buildGeneric(
      b, loc, target, inits, maps, reducing,
      [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs, ValueRange args) -> SmallVector<Value> {
        auto [loss, w] = term(nb, l, ivs, args[0]);
        SmallVector<Value> next{arith::AddFOp::create(nb, l, args[1], loss)};
        if (mean)
          next.push_back(arith::AddFOp::create(nb, l, args[2], w));
        return next;
      });
  if (!mean)
    return sums.front();
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, elem);
  AffineMap scalar = AffineMap::get(0, 0, {}, ctx);
  return buildGeneric(b, loc, sums, init, {scalar, scalar, scalar}, {},
                      [&](OpBuilder &nb, Location l, ArrayRef<Value>,
                          ValueRange args) -> SmallVector<Value> {
                        return {arith::DivFOp::create(nb, l, args[0], args[1])};
                      })
      .front();
}

/// log_softmax over dim 1 of `x` [N, C, d..]: x - max - log(sum(exp(x - max))).
Value buildLogSoftmax(OpBuilder &b, Location loc, Value x) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Type elem = type.getElementType();
  SmallVector<int64_t> keptShape(type.getShape());
  keptShape.erase(keptShape.begin() + 1);
  auto keptType = RankedTensorType::get(keptShape, elem);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap kept = withoutClassDim(rank, ctx);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators[1] = utils::IteratorType::reduction;
  auto &sem = cast<FloatType>(elem).getFloatSemantics();
  Value lowest = buildFilled(b, loc, keptType,
                             b.getFloatAttr(elem, APFloat::getInf(sem, /*Negative=*/true)));
  Value max = buildGeneric(b, loc, x, lowest, {identity, kept}, iterators,
                           [&](OpBuilder &nb, Location l, ArrayRef<Value>,
                               ValueRange args) -> SmallVector<Value> {
                             return {arith::MaximumFOp::create(nb, l, args[0], args[1])};
                           })
                  .front();
  Value zero = buildFilled(b, loc, keptType, b.getFloatAttr(elem, 0.0));
  Value sum = buildGeneric(b, loc, ValueRange{x, max}, zero, {identity, kept, kept}, iterators,
                           [&](OpBuilder &nb, Location l, ArrayRef<Value>,
                               ValueRange args) -> SmallVector<Value> {
                             Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
                             Value e = math::ExpOp::create(nb, l, d);
                             return {arith::AddFOp::create(nb, l, args[2], e)};
                           })
                  .front();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), elem);
  SmallVector<utils::IteratorType> parallel(rank, utils::IteratorType::parallel);
  return buildGeneric(b, loc, ValueRange{x, max, sum}, init, {identity, kept, kept, identity},
                      parallel,
                      [&](OpBuilder &nb, Location l, ArrayRef<Value>,
                          ValueRange args) -> SmallVector<Value> {
                        Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
                        Value logSum = math::LogOp::create(nb, l, args[2]);
                        return {arith::SubFOp::create(nb, l, d, logSum)};
                      })
      .front();
}

Value optionalOperand(Value v) { return isa<NoneType>(v.getType()) ? Value() : v; }

struct NegativeLogLikelihoodLossLowering
    : OpConversionPattern<onnx::NegativeLogLikelihoodLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::NegativeLogLikelihoodLossOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value input = adaptor.getInput(), target = adaptor.getTarget();
    Value weight = optionalOperand(adaptor.getWeight());
    StringRef reduction = op.getReduction();
    if (failed(checkOperands(rewriter, op, rankedOf(input), rankedOf(target), weight, type,
                             reduction)))
      return failure();
    rewriter.replaceOp(op, buildNll(rewriter, op.getLoc(), input, target, weight,
                                    op.getIgnoreIndex(), reduction, type));
    return success();
  }
};

struct SoftmaxCrossEntropyLossLowering : OpConversionPattern<onnx::SoftmaxCrossEntropyLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::SoftmaxCrossEntropyLossOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value scores = adaptor.getScores(), labels = adaptor.getLabels();
    Value weights = optionalOperand(adaptor.getWeights());
    StringRef reduction = op.getReduction();
    auto scoresType = rankedOf(scores);
    if (failed(checkOperands(rewriter, op, scoresType, rankedOf(labels), weights, type,
                             reduction)))
      return failure();
    bool wantLogProb = !isa<NoneType>(op.getLogProb().getType());
    if (wantLogProb) {
      auto logProbType = staticResultType(rewriter, getTypeConverter(), op, 1);
      if (!logProbType)
        return failure();
      if (logProbType != scoresType)
        return rewriter.notifyMatchFailure(op, "log_prob must have the scores' type");
    }
    Location loc = op.getLoc();
    Value logProb = buildLogSoftmax(rewriter, loc, scores);
    Value loss = buildNll(rewriter, loc, logProb, labels, weights, op.getIgnoreIndex(),
                          reduction, type);
    rewriter.replaceOp(op, SmallVector<Value>{loss, wantLogProb ? logProb : Value()});
    return success();
  }
};

} // namespace

void populateLossPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<NegativeLogLikelihoodLossLowering, SoftmaxCrossEntropyLossLowering>(
      converter, patterns.getContext());
}

} // namespace onnxcc::lowering
