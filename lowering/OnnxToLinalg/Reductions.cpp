//===- Reductions.cpp - onnx ops to linalg: reduction family -----------------------===//
//
// Every reduction is a linalg.generic over the input's iteration space with
// reduction iterators on the reduced dims, writing a tensor of the kept dims
// that linalg.fill initialized. What follows it (the mean's division, a sqrt,
// a log, the keepdims shape) is one elementwise linalg.generic. The
// normalizations chain these: statistics by reductions, then one elementwise
// generic over the input. Axes must be known at compile time.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/MathExtras.h"

#include <limits>
#include <optional>

using namespace mlir;

namespace onnxcc::lowering {
namespace {

using ScalarBody = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;
/// Combines the scalar inputs of one point of the iteration space with the
/// accumulator.
using AccumulateBody = llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Value)>;

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// The map from an iteration space of `reduced.size()` dims to the dims that
/// are not reduced: how a reduction's result is read back.
AffineMap keptDimsMap(ArrayRef<bool> reduced, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (auto [d, r] : llvm::enumerate(reduced))
    if (!r)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(reduced.size(), 0, exprs, ctx);
}

SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape, ArrayRef<bool> reduced) {
  SmallVector<int64_t> kept;
  for (auto [size, r] : llvm::zip_equal(shape, reduced))
    if (!r)
      kept.push_back(size);
  return kept;
}

/// `shape` with the reduced dims set to 1: the keepdims form.
SmallVector<int64_t> keepDimsShape(ArrayRef<int64_t> shape, ArrayRef<bool> reduced) {
  SmallVector<int64_t> kept;
  for (auto [size, r] : llvm::zip_equal(shape, reduced))
    kept.push_back(r ? 1 : size);
  return kept;
}

/// Reads `t` with unidirectional (numpy) broadcasting into an iteration space
/// of `shape`: trailing dims align; dims of size 1 read index 0.
AffineMap broadcastMap(RankedTensorType t, ArrayRef<int64_t> shape, MLIRContext *ctx) {
  int64_t rank = shape.size();
  int64_t offset = rank - t.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    bool broadcast = t.getDimSize(d) == 1 && shape[offset + d] != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(offset + d, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// A linalg.generic over `shape` reducing the dims marked in `reduced`; its
/// result has the kept dims and the type of `init`, which fills it first.
Value buildReduction(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                     ArrayRef<bool> reduced, ValueRange inputs, ArrayRef<AffineMap> maps,
                     TypedAttr init, AccumulateBody body) {
  MLIRContext *ctx = b.getContext();
  auto resultType = RankedTensorType::get(keptShape(shape, reduced), init.getType());
  // Symbolic kept dims take their size from the first input (read through
  // the identity map by every caller that has them).
  SmallVector<Value> dynamicSizes;
  for (auto [d, size] : llvm::enumerate(shape))
    if (!reduced[d] && ShapedType::isDynamic(size))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, inputs[0], d));
  Value out = buildFilled(b, loc, resultType, init, dynamicSizes);
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(keptDimsMap(reduced, ctx));
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduced)
    iterators.push_back(r ? utils::IteratorType::reduction : utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{out}, allMaps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       body(nb, nloc, args.drop_back(), args.back()));
             })
      .getResult(0);
}

/// An elementwise linalg.generic producing `resultType`, reading `inputs`
/// through `maps` (from the result's dims).
Value buildParallel(OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
                    ArrayRef<AffineMap> maps, ScalarBody body,
                    ValueRange resultSizes = {}) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  // Symbolic dims take their size from the first input of the result's rank
  // read through the identity map.
  SmallVector<Value> dynamicSizes(resultSizes);
  if (!resultType.hasStaticShape() && dynamicSizes.empty()) {
    auto source = llvm::find_if(llvm::zip(inputs, maps), [&](auto pair) {
      return std::get<1>(pair).isIdentity() && std::get<1>(pair).getNumResults() == rank;
    });
    if (source != llvm::zip(inputs, maps).end())
      for (int64_t d = 0; d < rank; ++d)
        if (resultType.isDynamicDim(d))
          dynamicSizes.push_back(tensor::DimOp::create(b, loc, std::get<0>(*source), d));
  }
  Value init = emptyTensor(b, loc, resultType, dynamicSizes);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{init}, allMaps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, body(nb, nloc, args.drop_back()));
             })
      .getResult(0);
}

/// Reads tensors of the kept dims (reductions' results) into `resultType`:
/// the keepdims form when its rank is that of `reduced`, else the kept dims.
Value buildEpilogue(OpBuilder &b, Location loc, RankedTensorType resultType,
                    ArrayRef<bool> reduced, ValueRange inputs, ScalarBody body,
                    ValueRange resultSizes = {}) {
  MLIRContext *ctx = b.getContext();
  AffineMap map = resultType.getRank() == static_cast<int64_t>(reduced.size())
                      ? keptDimsMap(reduced, ctx)
                      : AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx);
  SmallVector<AffineMap> maps(inputs.size(), map);
  return buildParallel(b, loc, resultType, inputs, maps, body, resultSizes);
}

/// The largest or smallest value of `t` (signless, with `isUnsigned` saying
/// how to read it); for floats, infinity when `infinite`, else the largest
/// finite magnitude.
TypedAttr extremeAttr(Type t, bool isUnsigned, bool largest, bool infinite) {
  if (auto f = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    return FloatAttr::get(t, infinite ? APFloat::getInf(sem, !largest)
                                      : APFloat::getLargest(sem, !largest));
  }
  unsigned width = t.getIntOrFloatBitWidth();
  APInt v = isUnsigned ? (largest ? APInt::getMaxValue(width) : APInt::getZero(width))
                       : (largest ? APInt::getSignedMaxValue(width)
                                  : APInt::getSignedMinValue(width));
  return IntegerAttr::get(t, v);
}

TypedAttr oneAttr(OpBuilder &b, Type t) {
  if (isa<FloatType>(t))
    return b.getFloatAttr(t, 1.0);
  return b.getIntegerAttr(t, 1);
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value absolute(OpBuilder &b, Location loc, Value x, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(b, loc, x);
  if (isUnsigned)
    return x;
  return math::AbsIOp::create(b, loc, x);
}

Value maximum(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value minimum(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

/// The integers of a constant: an onnx.Constant defining the original
/// operand, or an arith.constant defining the converted one.
FailureOr<SmallVector<int64_t>> constantInts(Value original, Value converted) {
  Attribute value;
  if (auto c = original.getDefiningOp<onnx::ConstantOp>())
    value = c.getValueAttr();
  else if (auto c = converted.getDefiningOp<arith::ConstantOp>())
    value = c.getValue();
  if (!value)
    return failure();
  SmallVector<int64_t> ints;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(value)) {
    for (const APInt &v : dense)
      ints.push_back(v.getSExtValue());
    return ints;
  }
  if (auto res = dyn_cast<DenseI64ResourceElementsAttr>(value)) {
    if (auto data = res.tryGetAsArrayRef())
      return SmallVector<int64_t>(data->begin(), data->end());
    return failure();
  }
  if (auto res = dyn_cast<DenseI32ResourceElementsAttr>(value)) {
    if (auto data = res.tryGetAsArrayRef())
      return SmallVector<int64_t>(data->begin(), data->end());
    return failure();
  }
  return failure();
}

/// `axis` in [-rank, rank) made non-negative, or failure.
FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

/// Marks `axes` (ONNX axes, possibly negative) among `rank` dims; failure on
/// an axis out of range or repeated.
FailureOr<SmallVector<bool>> markAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    FailureOr<int64_t> d = normalizeAxis(a, rank);
    if (failed(d) || reduced[*d])
      return failure();
    reduced[*d] = true;
  }
  return reduced;
}

/// The static ranked input of a pattern, or null after a match failure.
RankedTensorType staticInputType(ConversionPatternRewriter &rewriter, Operation *op, Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape()) {
    (void)rewriter.notifyMatchFailure(op, "input needs a static shape");
    return {};
  }
  return t;
}

/// The static input of an op whose result has the input's shape, or null
/// after a match failure.
RankedTensorType sameShapeInput(ConversionPatternRewriter &rewriter, Operation *op, Value v,
                                RankedTensorType resultType) {
  auto t = staticInputType(rewriter, op, v);
  if (t && t.getShape() != resultType.getShape()) {
    (void)rewriter.notifyMatchFailure(op, "result shape differs from the input's");
    return {};
  }
  return t;
}

/// The type of `v`, the converted onnx value `in`, when it has the shape of
/// `op`'s result 0, of `resultType`: the same static dims and, where they
/// are symbolic, the same symbolic dims. Null (a match failure) otherwise.
RankedTensorType symbolicSameShapeInput(ConversionPatternRewriter &rewriter,
                                        const TypeConverter *converter, Operation *op,
                                        Value in, Value v, RankedTensorType resultType) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (t && t.getShape() == resultType.getShape() && !resultType.hasStaticShape()) {
    // The result's symbolic dims are the input's (its sizes come from it).
    const OnnxTypeConverter &onnxTypes = onnxConverter(converter);
    auto inShape = onnxTypes.shapeOf(in), outShape = onnxTypes.shapeOf(op->getResult(0));
    if (!inShape || !outShape || *inShape != *outShape)
      t = {};
  }
  if (!t || t.getShape() != resultType.getShape()) {
    (void)rewriter.notifyMatchFailure(op, "result shape differs from the input's");
    return {};
  }
  return t;
}

/// The number of elements a reduction over the `reduced` dims of `shape`
/// combines, or nullopt when a reduced dim is symbolic (the count is then a
/// run-time value) or the product does not fit in int64_t.
std::optional<int64_t> reducedCount(ArrayRef<int64_t> shape, ArrayRef<bool> reduced) {
  int64_t n = 1;
  for (auto [size, r] : llvm::zip_equal(shape, reduced)) {
    if (!r)
      continue;
    if (ShapedType::isDynamic(size) || llvm::MulOverflow(n, size, n))
      return std::nullopt;
  }
  return n;
}

/// `m` where it is finite, else 0: the shift of a log-sum-exp.
Value finiteOrZero(OpBuilder &b, Location l, Value m) {
  Value inf = floatConst(b, l, m.getType(), std::numeric_limits<double>::infinity());
  Value finite = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                       math::AbsFOp::create(b, l, m), inf);
  return arith::SelectOp::create(b, l, finite, m, floatConst(b, l, m.getType(), 0));
}

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/// How a Reduce* of run-time axes accumulates (all kinds but LogSumExp,
/// which takes two passes): the initial value and acc = combine(acc, x).
struct Accumulation {
  TypedAttr init;
  std::function<Value(OpBuilder &, Location, Value, Value)> combine;
};
Accumulation accumulationOf(OpBuilder &b, ReduceKind kind, Type elem, bool isUnsigned) {
  switch (kind) {
  case ReduceKind::SumSquare:
  case ReduceKind::L2:
    return {b.getZeroAttr(elem), [](OpBuilder &nb, Location l, Value a, Value x) {
              return add(nb, l, a, mul(nb, l, x, x));
            }};
  case ReduceKind::L1:
    return {b.getZeroAttr(elem), [isUnsigned](OpBuilder &nb, Location l, Value a, Value x) {
              return add(nb, l, a, absolute(nb, l, x, isUnsigned));
            }};
  case ReduceKind::Prod:
    return {oneAttr(b, elem),
            [](OpBuilder &nb, Location l, Value a, Value x) { return mul(nb, l, a, x); }};
  case ReduceKind::Max:
  case ReduceKind::Min: {
    // Infinity, also for an empty reduction (the ONNX spec, ONNX Runtime 1.30).
    bool isMax = kind == ReduceKind::Max;
    return {extremeAttr(elem, isUnsigned, !isMax, true),
            [isMax, isUnsigned](OpBuilder &nb, Location l, Value a, Value x) {
              return isMax ? maximum(nb, l, a, x, isUnsigned) : minimum(nb, l, a, x, isUnsigned);
            }};
  }
  default: // Sum, Mean, LogSum
    return {b.getZeroAttr(elem),
            [](OpBuilder &nb, Location l, Value a, Value x) { return add(nb, l, a, x); }};
  }
}

/// A Reduce* whose axes arrive at run time into a result of static shape
/// (the shape the model declares, onnxcc-mark-declared-shapes): run()
/// returns 9 unless the axes give that shape, and each result element
/// reduces the input elements whose kept coordinates are its own, one
/// linalg.generic over result x input (no scatter: the Halide target takes
/// it; the work is result size x input size). `mask` says which input dims
/// the axes reduce, `position` which result dim a kept one is without
/// keepdims, `resultDims` the dims the axes give.
LogicalResult lowerRuntimeAxesStatic(Operation *op, ReduceKind kind, Value data,
                                     ArrayRef<Value> mask, ArrayRef<Value> position,
                                     ArrayRef<Value> resultDims, Value reducedCount,
                                     bool keepDims, bool isUnsigned,
                                     RankedTensorType resultType, Type convertedType,
                                     ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  OpBuilder &b = rewriter;
  auto inType = cast<RankedTensorType>(data.getType());
  Type elem = inType.getElementType();
  bool isFloat = isa<FloatType>(elem);
  int64_t rank = inType.getRank(), outRank = resultType.getRank();
  Type i64 = b.getI64Type();
  func::FuncOp check = declareRuntimeFunction(b, op, "onnxcc_check_equal",
                                              "onnxcc_rt::check_equal",
                                              b.getFunctionType({i64, i64}, {b.getI32Type()}),
                                              /*usesStringPool=*/false);
  for (int64_t j = 0; j < outRank; ++j)
    func::CallOp::create(b, loc, check,
                         ValueRange{arith::IndexCastOp::create(b, loc, i64, resultDims[j]),
                                    arith::ConstantIntOp::create(b, loc, resultType.getDimSize(j), 64)});

  // Loops: the result's dims (parallel), then the input's (reduction).
  MLIRContext *ctx = b.getContext();
  unsigned numLoops = outRank + rank;
  SmallVector<AffineExpr> outExprs, inExprs;
  for (int64_t j = 0; j < outRank; ++j)
    outExprs.push_back(getAffineDimExpr(j, ctx));
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(getAffineDimExpr(outRank + d, ctx));
  AffineMap inMap = AffineMap::get(numLoops, 0, inExprs, ctx);
  AffineMap outMap = AffineMap::get(numLoops, 0, outExprs, ctx);
  SmallVector<utils::IteratorType> iterators(outRank, utils::IteratorType::parallel);
  iterators.append(rank, utils::IteratorType::reduction);
  // Whether input element i belongs to result element o.
  auto belongs = [&](OpBuilder &nb, Location l) {
    Value all = arith::ConstantIntOp::create(nb, l, 1, 1);
    for (int64_t d = 0; d < rank; ++d) {
      Value o = indexConst(nb, l, 0);
      if (keepDims) {
        o = linalg::IndexOp::create(nb, l, d);
      } else {
        for (int64_t j = 0; j < outRank; ++j)
          o = arith::SelectOp::create(
              nb, l,
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, position[d],
                                    indexConst(nb, l, j)),
              linalg::IndexOp::create(nb, l, j), o);
      }
      Value i = linalg::IndexOp::create(nb, l, outRank + d);
      Value same = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, i, o);
      all = arith::AndIOp::create(nb, l, all, arith::OrIOp::create(nb, l, mask[d], same));
    }
    return all;
  };
  auto filled = [&](TypedAttr value) {
    Value v = arith::ConstantOp::create(b, loc, value);
    return linalg::FillOp::create(b, loc, v, emptyTensor(b, loc, resultType, {})).getResult(0);
  };
  // acc[o] = combine(acc[o], x) over the input elements of o; `extra`, when
  // given, is read at o too (the max of LogSumExp).
  auto reduce = [&](Value init, Value extra,
                    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> combine) {
    SmallVector<Value> ins = {data};
    SmallVector<AffineMap> maps = {inMap};
    if (extra) {
      ins.push_back(extra);
      maps.push_back(outMap);
    }
    maps.push_back(outMap);
    return linalg::GenericOp::create(
               b, loc, TypeRange{resultType}, ins, ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value x = args[0], acc = args.back();
                 Value m = extra ? args[1] : Value();
                 Value combined = combine(nb, l, acc, x, m);
                 linalg::YieldOp::create(
                     nb, l, Value(arith::SelectOp::create(nb, l, belongs(nb, l), combined, acc)));
               })
        .getResult(0);
  };
  Value acc, max;
  if (kind == ReduceKind::LogSumExp) {
    max = reduce(filled(extremeAttr(elem, false, false, true)), {},
                 [](OpBuilder &nb, Location l, Value a, Value x, Value) -> Value {
                   return arith::MaximumFOp::create(nb, l, a, x);
                 });
    acc = reduce(filled(b.getZeroAttr(elem)), max,
                 [&](OpBuilder &nb, Location l, Value a, Value x, Value m) {
                   Value e = math::ExpOp::create(
                       nb, l, arith::SubFOp::create(nb, l, x, finiteOrZero(nb, l, m)));
                   return Value(arith::AddFOp::create(nb, l, a, e));
                 });
  } else {
    Accumulation accumulation = accumulationOf(b, kind, elem, isUnsigned);
    acc = reduce(filled(accumulation.init), {},
                 [&](OpBuilder &nb, Location l, Value a, Value x, Value) {
                   return accumulation.combine(nb, l, a, x);
                 });
  }
  bool hasEpilogue = kind == ReduceKind::Mean || kind == ReduceKind::L2 ||
                     kind == ReduceKind::LogSum || kind == ReduceKind::LogSumExp;
  if (hasEpilogue) {
    AffineMap id = b.getMultiDimIdentityMap(outRank);
    SmallVector<Value> ins = {acc};
    if (max)
      ins.push_back(max);
    SmallVector<AffineMap> maps(ins.size() + 1, id);
    SmallVector<utils::IteratorType> parallel(outRank, utils::IteratorType::parallel);
    acc = linalg::GenericOp::create(
              b, loc, TypeRange{resultType}, ins,
              ValueRange{emptyTensor(b, loc, resultType, {})}, maps, parallel,
              [&](OpBuilder &nb, Location l, ValueRange args) {
                Value v = args[0], r;
                switch (kind) {
                case ReduceKind::Mean: {
                  Value n = arith::IndexCastOp::create(nb, l, nb.getI64Type(), reducedCount);
                  if (isFloat) {
                    r = arith::DivFOp::create(nb, l, v, arith::SIToFPOp::create(nb, l, elem, n));
                  } else {
                    if (elem.getIntOrFloatBitWidth() != 64)
                      n = arith::TruncIOp::create(nb, l, elem, n);
                    r = isUnsigned ? Value(arith::DivUIOp::create(nb, l, v, n))
                                   : Value(arith::DivSIOp::create(nb, l, v, n));
                  }
                  break;
                }
                case ReduceKind::L2: r = math::SqrtOp::create(nb, l, v); break;
                case ReduceKind::LogSum: r = math::LogOp::create(nb, l, v); break;
                default:
                  r = arith::AddFOp::create(nb, l, math::LogOp::create(nb, l, v),
                                            finiteOrZero(nb, l, args[1]));
                  break;
                }
                linalg::YieldOp::create(nb, l, r);
              })
              .getResult(0);
  }
  if (acc.getType() != convertedType)
    acc = tensor::CastOp::create(b, loc, convertedType, acc);
  rewriter.replaceOp(op, acc);
  return success();
}

/// A Reduce* whose axes arrive at run time (a 1-D tensor of k axes): which
/// dims are reduced is a mask computed from them (run() returns 9 unless
/// they are k distinct axes in range), the result dims are data-dependent
/// dims (onnx::ShapeContext::dataDim), and one loop over the input adds each
/// element into the result element its kept coordinates give. The result is
/// laid out alike with and without keepdims (dropped dims are 1).
LogicalResult lowerRuntimeAxes(Operation *op, ReduceKind kind, Value data, Value axes,
                               bool keepDims, bool isUnsigned, const OnnxTypeConverter &types,
                               ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  auto inType = dyn_cast<RankedTensorType>(data.getType());
  auto axesType = dyn_cast<RankedTensorType>(axes.getType());
  auto resultType = dyn_cast_or_null<RankedTensorType>(
      types.convertType(op->getResult(0).getType()));
  if (!inType || !axesType || axesType.getRank() != 1 || axesType.isDynamicDim(0) ||
      !resultType)
    return rewriter.notifyMatchFailure(op, "run-time axes need a 1-D axes of static length");
  int64_t rank = inType.getRank(), k = axesType.getDimSize(0);
  if (k < 1 || k > rank || k > 64)
    return rewriter.notifyMatchFailure(op, "run-time axes: bad number of axes");
  Type elem = inType.getElementType();
  bool isFloat = isa<FloatType>(elem);
  if (!isFloat &&
      (kind == ReduceKind::L2 || kind == ReduceKind::LogSum || kind == ReduceKind::LogSumExp))
    return rewriter.notifyMatchFailure(op, "integer input is only lowered for exact reductions");
  // A bool is 0 or 1, not 0 or -1.
  isUnsigned |= elem.isInteger(1);
  OpBuilder &b = rewriter;
  auto idx = [&](int64_t v) { return indexConst(b, loc, v); };
  Value zero = idx(0), one = idx(1);

  // The mask of reduced dims, and the check that the axes are k distinct
  // dims in range.
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(tensor::DimOp::create(b, loc, data, d));
  Value falseV = arith::ConstantIntOp::create(b, loc, 0, 1);
  SmallVector<Value> mask(rank, falseV);
  for (int64_t j = 0; j < k; ++j) {
    Value a = tensor::ExtractOp::create(b, loc, axes, ValueRange{idx(j)});
    a = arith::IndexCastOp::create(b, loc, b.getIndexType(), a);
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, zero);
    a = arith::SelectOp::create(b, loc, negative, arith::AddIOp::create(b, loc, a, idx(rank)), a);
    for (int64_t d = 0; d < rank; ++d)
      mask[d] = arith::OrIOp::create(
          b, loc, mask[d], arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, idx(d)));
  }
  Value marked = zero;
  for (int64_t d = 0; d < rank; ++d)
    marked = arith::AddIOp::create(b, loc, marked,
                                   arith::SelectOp::create(b, loc, mask[d], one, zero));
  Type i64 = b.getI64Type();
  func::FuncOp check = declareRuntimeFunction(b, op, "onnxcc_check_equal",
                                              "onnxcc_rt::check_equal",
                                              b.getFunctionType({i64, i64}, {b.getI32Type()}),
                                              /*usesStringPool=*/false);
  func::CallOp::create(b, loc, check,
                       ValueRange{arith::IndexCastOp::create(b, loc, i64, marked),
                                  arith::ConstantIntOp::create(b, loc, k, 64)});

  // The keepdims dims, the result's dims and its strides.
  SmallVector<Value> kept(rank), strides(rank);
  Value outCount = one, reducedCount = one;
  for (int64_t d = rank - 1; d >= 0; --d) {
    kept[d] = arith::SelectOp::create(b, loc, mask[d], one, sizes[d]);
    strides[d] = outCount;
    outCount = arith::MulIOp::create(b, loc, outCount, kept[d]);
    reducedCount = arith::MulIOp::create(
        b, loc, reducedCount, arith::SelectOp::create(b, loc, mask[d], sizes[d], one));
  }
  SmallVector<Value> resultDims;
  // Input dim d is result dim position[d] when it is kept and not keepdims.
  SmallVector<Value> position(rank);
  {
    Value before = zero;
    for (int64_t d = 0; d < rank; ++d) {
      position[d] = before;
      before = arith::AddIOp::create(b, loc, before,
                                     arith::SelectOp::create(b, loc, mask[d], zero, one));
    }
  }
  if (keepDims) {
    resultDims = kept;
  } else {
    // Result dim j is the j-th kept input dim.
    for (int64_t j = 0; j < resultType.getRank(); ++j) {
      Value dim = zero;
      for (int64_t d = j; d < rank; ++d) {
        Value here = arith::AndIOp::create(
            b, loc, arith::XOrIOp::create(b, loc, mask[d], arith::ConstantIntOp::create(b, loc, 1, 1)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, position[d], idx(j)));
        dim = arith::SelectOp::create(b, loc, here, sizes[d], dim);
      }
      resultDims.push_back(dim);
    }
  }
  // The shape the model declares, where the target compiles for it
  // (onnxcc-mark-declared-shapes).
  if (auto declared = op->getAttrOfType<DenseI64ArrayAttr>("onnxcc.declared_shape");
      declared && inType.hasStaticShape() &&
      static_cast<int64_t>(declared.size()) == resultType.getRank() &&
      llvm::all_of(declared.asArrayRef(), [](int64_t d) { return d >= 0; })) {
    auto staticType = RankedTensorType::get(declared.asArrayRef(), elem);
    return lowerRuntimeAxesStatic(op, kind, data, mask, position, resultDims, reducedCount,
                                  keepDims, isUnsigned, staticType, resultType, rewriter);
  }

  // The result's element count from the dims as defined (with their
  // bounds), so that its buffers have a planned size.
  SmallVector<Value> dynamicDims;
  unsigned next = 0;
  Value accCount = one;
  for (int64_t j = 0; j < resultType.getRank(); ++j) {
    if (!resultType.isDynamicDim(j)) {
      accCount = arith::MulIOp::create(b, loc, accCount, idx(resultType.getDimSize(j)));
      continue;
    }
    Value v = types.defineDataDim(b, loc, op, next++, resultDims[j]);
    if (!v)
      return rewriter.notifyMatchFailure(op, "a result dim has no bound");
    dynamicDims.push_back(v);
    accCount = arith::MulIOp::create(b, loc, accCount, v);
  }

  // Accumulate into a 1-D tensor of the result's elements.
  bool scalar = resultType.getRank() == 0;
  auto accType = RankedTensorType::get({scalar ? 1 : ShapedType::kDynamic}, elem);
  SmallVector<Value> accSizes;
  if (!scalar)
    accSizes.push_back(accCount);
  auto filledWith = [&](Value value) {
    return linalg::FillOp::create(b, loc, value, emptyTensor(b, loc, accType, accSizes))
        .getResult(0);
  };
  auto filled = [&](TypedAttr value) {
    return filledWith(arith::ConstantOp::create(b, loc, value).getResult());
  };
  Value numel = one;
  for (Value size : sizes)
    numel = arith::MulIOp::create(b, loc, numel, size);
  Value flat = data;
  {
    ReassociationIndices all;
    for (int64_t d = 0; d < rank; ++d)
      all.push_back(d);
    auto flatType = RankedTensorType::get(
        {inType.hasStaticShape() ? inType.getNumElements() : ShapedType::kDynamic}, elem);
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, data,
                                           ArrayRef<ReassociationIndices>{all});
  }
  // One pass: acc[o] = combine(acc[o], x) for each element x.
  auto pass = [&](Value init, function_ref<Value(OpBuilder &, Location, Value, Value, Value)>
                                  combine) {
    return scf::ForOp::create(
               b, loc, zero, numel, one, ValueRange{init},
               [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
                 Value x = tensor::ExtractOp::create(nb, l, flat, ValueRange{i});
                 Value rest = i, o = indexConst(nb, l, 0);
                 for (int64_t d = rank - 1; d >= 0; --d) {
                   Value c = arith::RemUIOp::create(nb, l, rest, sizes[d]);
                   rest = arith::DivUIOp::create(nb, l, rest, sizes[d]);
                   Value term = arith::MulIOp::create(nb, l, c, strides[d]);
                   o = arith::AddIOp::create(
                       nb, l, o,
                       arith::SelectOp::create(nb, l, mask[d], indexConst(nb, l, 0), term));
                 }
                 Value a = tensor::ExtractOp::create(nb, l, acc[0], ValueRange{o});
                 Value updated = combine(nb, l, a, x, o);
                 scf::YieldOp::create(
                     nb, l, Value(tensor::InsertOp::create(nb, l, updated, acc[0], ValueRange{o})));
               })
        .getResult(0);
  };
  Value acc, max;
  if (kind == ReduceKind::LogSumExp) {
    // log(sum(exp(x - m))) + m with m the max (0 where not finite).
    max = pass(filled(extremeAttr(elem, false, false, true)),
               [](OpBuilder &nb, Location l, Value a, Value x, Value) -> Value {
                 return arith::MaximumFOp::create(nb, l, a, x);
               });
    acc = pass(filled(b.getZeroAttr(elem)), [&](OpBuilder &nb, Location l, Value a, Value x, Value o) {
      Value m = finiteOrZero(nb, l, tensor::ExtractOp::create(nb, l, max, ValueRange{o}));
      Value e = math::ExpOp::create(nb, l, arith::SubFOp::create(nb, l, x, m));
      return Value(arith::AddFOp::create(nb, l, a, e));
    });
  } else {
    Accumulation accumulation = accumulationOf(b, kind, elem, isUnsigned);
    acc = pass(filled(accumulation.init), [&](OpBuilder &nb, Location l, Value a, Value x, Value) {
      return accumulation.combine(nb, l, a, x);
    });
  }

  // The epilogue, element by element.
  std::function<Value(OpBuilder &, Location, Value, Value)> epilogue;
  switch (kind) {
  case ReduceKind::Mean:
    epilogue = [&](OpBuilder &nb, Location l, Value v, Value) -> Value {
      Value n = arith::IndexCastOp::create(nb, l, nb.getI64Type(), reducedCount);
      if (isFloat)
        return arith::DivFOp::create(nb, l, v, arith::SIToFPOp::create(nb, l, elem, n));
      if (elem.getIntOrFloatBitWidth() != 64)
        n = arith::TruncIOp::create(nb, l, elem, n);
      if (isUnsigned)
        return arith::DivUIOp::create(nb, l, v, n);
      return arith::DivSIOp::create(nb, l, v, n);
    };
    break;
  case ReduceKind::L2:
    epilogue = [](OpBuilder &nb, Location l, Value v, Value) -> Value {
      return math::SqrtOp::create(nb, l, v);
    };
    break;
  case ReduceKind::LogSum:
    epilogue = [](OpBuilder &nb, Location l, Value v, Value) -> Value {
      return math::LogOp::create(nb, l, v);
    };
    break;
  case ReduceKind::LogSumExp:
    epilogue = [&](OpBuilder &nb, Location l, Value v, Value o) -> Value {
      Value m = finiteOrZero(nb, l, tensor::ExtractOp::create(nb, l, max, ValueRange{o}));
      return arith::AddFOp::create(nb, l, math::LogOp::create(nb, l, v), m);
    };
    break;
  default:
    break;
  }
  if (epilogue)
    acc = scf::ForOp::create(
              b, loc, zero, scalar ? one : accCount, one, ValueRange{acc},
              [&](OpBuilder &nb, Location l, Value o, ValueRange args) {
                Value v = tensor::ExtractOp::create(nb, l, args[0], ValueRange{o});
                scf::YieldOp::create(nb, l,
                                     Value(tensor::InsertOp::create(
                                         nb, l, epilogue(nb, l, v, o), args[0], ValueRange{o})));
              })
              .getResult(0);

  Value result;
  if (scalar) {
    result = tensor::CollapseShapeOp::create(b, loc, resultType, acc,
                                             ArrayRef<ReassociationIndices>{});
  } else {
    ReassociationIndices all;
    for (int64_t j = 0; j < resultType.getRank(); ++j)
      all.push_back(j);
    SmallVector<OpFoldResult> outShape;
    unsigned dyn = 0;
    for (int64_t j = 0; j < resultType.getRank(); ++j)
      outShape.push_back(resultType.isDynamicDim(j)
                             ? OpFoldResult(dynamicDims[dyn++])
                             : OpFoldResult(b.getIndexAttr(resultType.getDimSize(j))));
    result = tensor::ExpandShapeOp::create(b, loc, resultType, acc,
                                           ArrayRef<ReassociationIndices>{all}, outShape);
  }
  rewriter.replaceOp(op, result);
  return success();
}

template <typename OpTy, ReduceKind kind>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<NoneType>(op.getAxes().getType()) &&
        failed(constantInts(op.getAxes(), adaptor.getAxes())))
      return lowerRuntimeAxes(op, kind, adaptor.getData(), adaptor.getAxes(),
                              op.getKeepdims() != 0, isUnsignedInt(onnxElementType(op.getData())),
                              onnxConverter(this->getTypeConverter()), rewriter);
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value data = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(data.getType());
    if (!inType)
      return rewriter.notifyMatchFailure(op, "input is not ranked");
    Type elem = inType.getElementType();
    bool isFloat = isa<FloatType>(elem);
    bool isUnsigned = isUnsignedInt(onnxElementType(op.getData()));
    if (!isFloat &&
        (kind == ReduceKind::L2 || kind == ReduceKind::LogSum || kind == ReduceKind::LogSumExp))
      return rewriter.notifyMatchFailure(op, "integer input is only lowered for exact reductions");

    // Axes: none or empty reduce everything, unless noop_with_empty_axes.
    int64_t rank = inType.getRank();
    SmallVector<int64_t> axes;
    if (!isa<NoneType>(op.getAxes().getType())) {
      FailureOr<SmallVector<int64_t>> c = constantInts(op.getAxes(), adaptor.getAxes());
      if (failed(c))
        return rewriter.notifyMatchFailure(op, "axes must be a constant");
      axes = std::move(*c);
    }
    SmallVector<bool> reduced(rank, op.getNoopWithEmptyAxes() == 0);
    if (!axes.empty()) {
      FailureOr<SmallVector<bool>> marked = markAxes(axes, rank);
      if (failed(marked))
        return rewriter.notifyMatchFailure(op, "axes out of range or repeated");
      reduced = std::move(*marked);
    }
    ArrayRef<int64_t> shape = inType.getShape();
    SmallVector<int64_t> expected =
        op.getKeepdims() ? keepDimsShape(shape, reduced) : keptShape(shape, reduced);
    if (type.getShape() != ArrayRef<int64_t>(expected))
      return rewriter.notifyMatchFailure(op, "result shape disagrees with the axes");

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    std::optional<int64_t> staticCount = reducedCount(shape, reduced);
    bool symbolicCount = false;
    for (auto [d, size] : llvm::enumerate(shape))
      symbolicCount |= reduced[d] && ShapedType::isDynamic(size);
    if (!staticCount && !symbolicCount)
      return rewriter.notifyMatchFailure(op, "the number of reduced elements overflows int64");
    int64_t count = staticCount.value_or(0);
    // The number of reduced elements, at run time when a reduced dim is
    // symbolic.
    auto countValue = [&](OpBuilder &b, Location l) -> Value {
      Value n = indexConst(b, l, 1);
      for (auto [d, size] : llvm::enumerate(shape))
        if (reduced[d])
          n = arith::MulIOp::create(b, l, n,
                                    ShapedType::isDynamic(size)
                                        ? Value(tensor::DimOp::create(b, l, data, d))
                                        : indexConst(b, l, size));
      return n;
    };
    Value runtimeCount = symbolicCount ? countValue(rewriter, loc) : Value();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto reduce = [&](TypedAttr init, AccumulateBody body) {
      return buildReduction(rewriter, loc, shape, reduced, data, identity, init, body);
    };
    TypedAttr zero = rewriter.getZeroAttr(elem);

    Value acc;
    SmallVector<Value> epilogueInputs;
    std::function<Value(OpBuilder &, Location, ValueRange)> epilogue;
    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
    case ReduceKind::LogSum:
      acc = reduce(zero, [](OpBuilder &b, Location l, ValueRange x, Value a) {
        return add(b, l, a, x[0]);
      });
      break;
    case ReduceKind::SumSquare:
    case ReduceKind::L2:
      acc = reduce(zero, [](OpBuilder &b, Location l, ValueRange x, Value a) {
        return add(b, l, a, mul(b, l, x[0], x[0]));
      });
      break;
    case ReduceKind::L1:
      acc = reduce(zero, [&](OpBuilder &b, Location l, ValueRange x, Value a) {
        return add(b, l, a, absolute(b, l, x[0], isUnsigned));
      });
      break;
    case ReduceKind::Prod:
      acc = reduce(oneAttr(rewriter, elem), [](OpBuilder &b, Location l, ValueRange x, Value a) {
        return mul(b, l, a, x[0]);
      });
      break;
    case ReduceKind::Max:
      // -inf, which is also what an empty reduction gives (as the ONNX spec
      // and ONNX Runtime 1.30 have it).
      acc = reduce(extremeAttr(elem, isUnsigned, /*largest=*/false, /*infinite=*/true),
                   [&](OpBuilder &b, Location l, ValueRange x, Value a) {
                     return maximum(b, l, a, x[0], isUnsigned);
                   });
      break;
    case ReduceKind::Min:
      acc = reduce(extremeAttr(elem, isUnsigned, /*largest=*/true, /*infinite=*/true),
                   [&](OpBuilder &b, Location l, ValueRange x, Value a) {
                     return minimum(b, l, a, x[0], isUnsigned);
                   });
      break;
    case ReduceKind::LogSumExp: {
      // log(sum(exp(x - m))) + m with m the max, so that exp cannot
      // overflow; m is replaced by 0 where it is not finite (all -inf, an
      // empty set, +inf or NaN), which gives the naive formula's result.
      Value max = reduce(extremeAttr(elem, false, /*largest=*/false, /*infinite=*/true),
                         [](OpBuilder &b, Location l, ValueRange x, Value a) {
                           return arith::MaximumFOp::create(b, l, a, x[0]);
                         });
      acc = buildReduction(
          rewriter, loc, shape, reduced, ValueRange{data, max},
          {identity, keptDimsMap(reduced, ctx)}, zero,
          [&](OpBuilder &b, Location l, ValueRange x, Value a) -> Value {
            Value d = arith::SubFOp::create(b, l, x[0], finiteOrZero(b, l, x[1]));
            return arith::AddFOp::create(b, l, a, math::ExpOp::create(b, l, d));
          });
      epilogueInputs.push_back(max);
      epilogue = [&](OpBuilder &b, Location l, ValueRange v) -> Value {
        Value log = math::LogOp::create(b, l, v[0]);
        return arith::AddFOp::create(b, l, log, finiteOrZero(b, l, v[1]));
      };
      break;
    }
    }
    epilogueInputs.insert(epilogueInputs.begin(), acc);

    switch (kind) {
    case ReduceKind::Mean:
      epilogue = [&](OpBuilder &b, Location l, ValueRange v) -> Value {
        if (runtimeCount) {
          Value n = arith::IndexCastOp::create(b, l, b.getI64Type(), runtimeCount);
          if (isFloat)
            return arith::DivFOp::create(b, l, v[0], arith::SIToFPOp::create(b, l, elem, n));
          if (elem.getIntOrFloatBitWidth() != 64)
            n = arith::TruncIOp::create(b, l, elem, n);
          if (isUnsigned)
            return arith::DivUIOp::create(b, l, v[0], n);
          return arith::DivSIOp::create(b, l, v[0], n);
        }
        if (isFloat)
          return arith::DivFOp::create(b, l, v[0],
                                       floatConst(b, l, elem, static_cast<double>(count)));
        Value n = arith::ConstantOp::create(b, l, b.getIntegerAttr(elem, count));
        if (isUnsigned)
          return arith::DivUIOp::create(b, l, v[0], n);
        return arith::DivSIOp::create(b, l, v[0], n);
      };
      break;
    case ReduceKind::L2:
      epilogue = [](OpBuilder &b, Location l, ValueRange v) -> Value {
        return math::SqrtOp::create(b, l, v[0]);
      };
      break;
    case ReduceKind::LogSum:
      epilogue = [](OpBuilder &b, Location l, ValueRange v) -> Value {
        return math::LogOp::create(b, l, v[0]);
      };
      break;
    default:
      break;
    }

    if (!epilogue && type.getRank() != rank) {
      rewriter.replaceOp(op, acc);
      return success();
    }
    if (!epilogue)
      epilogue = [](OpBuilder &, Location, ValueRange v) { return v[0]; };
    rewriter.replaceOp(op, buildEpilogue(rewriter, loc, type, reduced, epilogueInputs, epilogue,
                                         typeAndSizes->second));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin, Hardmax
//===----------------------------------------------------------------------===//

/// The i64 index of the largest (`isMax`) or smallest element of `x` along
/// `axis`, the first or last one among equals; a tensor of the other dims.
/// NaN counts as the extreme, as numpy's argmax has it.
Value buildArgExtreme(OpBuilder &b, Location loc, Value x, int64_t axis, bool isMax,
                      bool selectLast, bool isUnsigned) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(x.getType());
  Type elem = inType.getElementType();
  int64_t rank = inType.getRank();
  SmallVector<bool> reduced(rank, false);
  reduced[axis] = true;
  SmallVector<int64_t> kept = keptShape(inType.getShape(), reduced);
  auto valueType = RankedTensorType::get(kept, elem);
  auto indexType = RankedTensorType::get(kept, b.getI64Type());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d] && inType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, x, d));
  Value values = buildFilled(b, loc, valueType,
                             extremeAttr(elem, isUnsigned, /*largest=*/!isMax, true), sizes);
  Value indices = buildFilled(b, loc, indexType, b.getI64IntegerAttr(0), sizes);
  AffineMap keptMap = keptDimsMap(reduced, ctx);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx), keptMap,
                                 keptMap};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{valueType, indexType}, ValueRange{x}, ValueRange{values, indices}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = args[0], best = args[1], bestIndex = args[2];
        Value better;
        if (isa<FloatType>(elem)) {
          using P = arith::CmpFPredicate;
          P strict = isMax ? P::OGT : P::OLT, loose = isMax ? P::OGE : P::OLE;
          Value cmp = arith::CmpFOp::create(nb, l, selectLast ? loose : strict, v, best);
          Value vIsNan = arith::CmpFOp::create(nb, l, P::UNO, v, v);
          Value nanWins = vIsNan;
          if (!selectLast)
            nanWins = arith::AndIOp::create(
                nb, l, vIsNan, arith::CmpFOp::create(nb, l, P::ORD, best, best));
          better = arith::OrIOp::create(nb, l, cmp, nanWins);
        } else {
          using P = arith::CmpIPredicate;
          P pred = isMax ? (isUnsigned ? (selectLast ? P::uge : P::ugt)
                                       : (selectLast ? P::sge : P::sgt))
                         : (isUnsigned ? (selectLast ? P::ule : P::ult)
                                       : (selectLast ? P::sle : P::slt));
          better = arith::CmpIOp::create(nb, l, pred, v, best);
        }
        Value i = arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                             linalg::IndexOp::create(nb, l, axis));
        Value newBest = arith::SelectOp::create(nb, l, better, v, best);
        Value newIndex = arith::SelectOp::create(nb, l, better, i, bestIndex);
        linalg::YieldOp::create(nb, l, ValueRange{newBest, newIndex});
      });
  return generic.getResult(1);
}

template <typename OpTy, bool isMax>
struct ArgExtremeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, this->getTypeConverter(), op);
    if (!type)
      return failure();
    Value data = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(data.getType());
    if (!inType || inType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "input must have rank 1 or more");
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), inType.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    // The axis may be symbolic (the loop over it runs its size at run time;
    // an empty one leaves index 0); the other dims are the static result's.
    for (int64_t d = 0; d < inType.getRank(); ++d)
      if (d != *axis && inType.isDynamicDim(d))
        return rewriter.notifyMatchFailure(op, "input needs static dims besides the axis");
    SmallVector<bool> reduced(inType.getRank(), false);
    reduced[*axis] = true;
    SmallVector<int64_t> expected = op.getKeepdims()
                                        ? keepDimsShape(inType.getShape(), reduced)
                                        : keptShape(inType.getShape(), reduced);
    if (type.getShape() != ArrayRef<int64_t>(expected))
      return rewriter.notifyMatchFailure(op, "result shape disagrees with the axis");
    Location loc = op.getLoc();
    Value indices = buildArgExtreme(rewriter, loc, data, *axis, isMax,
                                    op.getSelectLastIndex() != 0,
                                    isUnsignedInt(onnxElementType(op.getData())));
    if (type.getRank() != inType.getRank()) {
      rewriter.replaceOp(op, indices);
      return success();
    }
    rewriter.replaceOp(op, buildEpilogue(rewriter, loc, type, reduced, indices,
                                         [](OpBuilder &, Location, ValueRange v) { return v[0]; }));
    return success();
  }
};

/// Hardmax: 1 at the first largest element along the axis (ArgMax), 0
/// elsewhere; any dim may be symbolic.
struct HardmaxLowering : OpConversionPattern<onnx::HardmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::HardmaxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value input = adaptor.getInput();
    auto inType =
        symbolicSameShapeInput(rewriter, getTypeConverter(), op, op.getInput(), input, type);
    if (!inType || inType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "input must have rank 1 or more");
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), inType.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    int64_t a = *axis;
    Value indices = buildArgExtreme(rewriter, loc, input, a, /*isMax=*/true,
                                    /*selectLast=*/false, /*isUnsigned=*/false);
    SmallVector<bool> reduced(inType.getRank(), false);
    reduced[a] = true;
    Type elem = type.getElementType();
    Value result = buildParallel(
        rewriter, loc, type, indices, keptDimsMap(reduced, rewriter.getContext()),
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                               linalg::IndexOp::create(b, l, a));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i, v[0]);
          return arith::SelectOp::create(b, l, hit, floatConst(b, l, elem, 1),
                                         floatConst(b, l, elem, 0));
        },
        typeAndSizes->second);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax
//===----------------------------------------------------------------------===//

template <typename OpTy, bool isLog>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value input = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(input.getType());
    if (inType && inType.getShape() != type.getShape())
      return rewriter.notifyMatchFailure(op, "result shape differs from the input's");
    if (!inType || inType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "input must have rank 1 or more");
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), inType.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOp(op, buildSoftmax(rewriter, op.getLoc(), input, *axis, isLog));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// Mean and (biased) variance of `x` over the `reduced` dims, computed in
/// `computeType`: two tensors of the kept dims. The variance is the mean of
/// squared deviations (two passes), which loses less than E[x²] - E[x]².
std::pair<Value, Value> buildMoments(OpBuilder &b, Location loc, Value x, Type xElem,
                                     ArrayRef<bool> reduced, Type computeType) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = inType.getShape();
  int64_t rank = inType.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap keptMap = keptDimsMap(reduced, ctx);
  auto keptType = RankedTensorType::get(keptShape(shape, reduced), computeType);
  // The number of reduced elements, known at run time when a reduced dim is
  // symbolic (then x is empty when it is 0, and so is the result that
  // reads the moments).
  Value runtimeCount;
  int64_t staticCount = 1;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!reduced[d])
      continue;
    if (!ShapedType::isDynamic(size)) {
      staticCount *= size;
      continue;
    }
    Value n = tensor::DimOp::create(b, loc, x, d);
    runtimeCount = runtimeCount ? Value(arith::MulIOp::create(b, loc, runtimeCount, n)) : n;
  }
  if (runtimeCount && staticCount != 1)
    runtimeCount = arith::MulIOp::create(b, loc, runtimeCount, indexConst(b, loc, staticCount));
  double count = static_cast<double>(staticCount);
  TypedAttr zero = b.getZeroAttr(computeType);

  Value sum = buildReduction(b, loc, shape, reduced, x, identity, zero,
                             [&](OpBuilder &nb, Location l, ValueRange v, Value a) -> Value {
                               Value c = castScalar(nb, l, v[0], xElem, computeType);
                               return arith::AddFOp::create(nb, l, a, c);
                             });
  auto divideByCount = [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
    if (runtimeCount) {
      Value n = arith::IndexCastOp::create(nb, l, nb.getI64Type(), runtimeCount);
      return arith::DivFOp::create(nb, l, v[0], arith::SIToFPOp::create(nb, l, computeType, n));
    }
    return arith::DivFOp::create(nb, l, v[0], floatConst(nb, l, computeType, count));
  };
  SmallVector<AffineMap> keptIdentity = {
      AffineMap::getMultiDimIdentityMap(keptType.getRank(), ctx)};
  Value mean = buildParallel(b, loc, keptType, sum, keptIdentity, divideByCount);
  Value squares = buildReduction(
      b, loc, shape, reduced, ValueRange{x, mean}, {identity, keptMap}, zero,
      [&](OpBuilder &nb, Location l, ValueRange v, Value a) -> Value {
        Value d = arith::SubFOp::create(nb, l, castScalar(nb, l, v[0], xElem, computeType), v[1]);
        return arith::AddFOp::create(nb, l, a, arith::MulFOp::create(nb, l, d, d));
      });
  Value variance = buildParallel(b, loc, keptType, squares, keptIdentity, divideByCount);
  return {mean, variance};
}

/// 1 / sqrt(variance + epsilon).
Value inverseStdDev(OpBuilder &b, Location l, Value variance, double epsilon) {
  Type t = variance.getType();
  Value v = arith::AddFOp::create(b, l, variance, floatConst(b, l, t, epsilon));
  return arith::DivFOp::create(b, l, floatConst(b, l, t, 1), math::SqrtOp::create(b, l, v));
}

/// The float type named by a TensorProto data type code (stash_type).
Type floatTypeOfCode(MLIRContext *ctx, int64_t code) {
  switch (code) {
  case 1:
    return Float32Type::get(ctx);
  case 10:
    return Float16Type::get(ctx);
  case 11:
    return Float64Type::get(ctx);
  case 16:
    return BFloat16Type::get(ctx);
  default:
    return {};
  }
}

/// LayerNormalization: moments over the dims from `axis` on, then one
/// elementwise pass. Any dim may be symbolic: the count divides at run time,
/// and a Scale or B dim that is not a static 1 is X's (shape inference
/// unified them; run() checks where they agree only for some values).
struct LayerNormalizationLowering : OpConversionPattern<onnx::LayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::LayerNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value x = adaptor.getX();
    auto inType =
        symbolicSameShapeInput(rewriter, getTypeConverter(), op, op.getX(), x, type);
    if (!inType || inType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "input must have rank 1 or more");
    int64_t rank = inType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    MLIRContext *ctx = rewriter.getContext();
    Type computeType = floatTypeOfCode(ctx, op.getStashType());
    if (!computeType)
      return rewriter.notifyMatchFailure(op, "stash_type must be a float type");
    SmallVector<bool> reduced(rank, false);
    for (int64_t d = *axis; d < rank; ++d)
      reduced[d] = true;
    SmallVector<int64_t> statShape = keepDimsShape(inType.getShape(), reduced);
    SmallVector<std::pair<RankedTensorType, SmallVector<Value>>> stats;
    for (unsigned i = 1; i < 3; ++i) {
      if (isa<NoneType>(op->getResult(i).getType())) {
        stats.push_back({});
        continue;
      }
      auto t = symbolicResultType(rewriter, getTypeConverter(), op, i);
      if (failed(t))
        return failure();
      if (t->first.getShape() != ArrayRef<int64_t>(statShape) ||
          !isa<FloatType>(t->first.getElementType()))
        return rewriter.notifyMatchFailure(op, "Mean and InvStdDev must be X's shape with 1 "
                                               "from axis on");
      stats.push_back({t->first, SmallVector<Value>(t->second)});
    }
    Value scale = adaptor.getScale(), bias = adaptor.getB();
    bool hasBias = !isa<NoneType>(bias.getType());
    auto scaleType = dyn_cast<RankedTensorType>(scale.getType());
    auto biasType = hasBias ? dyn_cast<RankedTensorType>(bias.getType()) : RankedTensorType();
    ArrayRef<int64_t> shape = inType.getShape();
    // A dim that is not a static 1 is X's: static where both are, else
    // checked at run time.
    auto fits = [&](RankedTensorType t) {
      int64_t offset = rank - t.getRank();
      if (offset < 0)
        return false;
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (t.getDimSize(d) != 1 && !t.isDynamicDim(d) && !ShapedType::isDynamic(shape[offset + d]) &&
            t.getDimSize(d) != shape[offset + d])
          return false;
      return true;
    };
    if (!scaleType || (hasBias && !biasType) || !fits(scaleType) || (hasBias && !fits(biasType)))
      return rewriter.notifyMatchFailure(op, "Scale and B must broadcast into X");

    Location loc = op.getLoc();
    Type xElem = inType.getElementType();
    double epsilon = op.getEpsilon().convertToDouble();
    auto [mean, variance] = buildMoments(rewriter, loc, x, xElem, reduced, computeType);

    AffineMap keptMap = keptDimsMap(reduced, ctx);
    SmallVector<Value> inputs = {x, mean, variance, scale};
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx), keptMap,
                                   keptMap, broadcastMap(scaleType, shape, ctx)};
    if (hasBias) {
      inputs.push_back(bias);
      maps.push_back(broadcastMap(biasType, shape, ctx));
    }
    Type scaleElem = onnxElementType(op.getScale());
    Type biasElem = hasBias ? onnxElementType(op.getB()) : Type();
    Value y = buildParallel(
        rewriter, loc, type, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          Value d = arith::SubFOp::create(b, l, castScalar(b, l, v[0], xElem, computeType), v[1]);
          Value n = arith::MulFOp::create(b, l, d, inverseStdDev(b, l, v[2], epsilon));
          Value r = arith::MulFOp::create(b, l, n, castScalar(b, l, v[3], scaleElem, computeType));
          if (v.size() > 4)
            r = arith::AddFOp::create(b, l, r, castScalar(b, l, v[4], biasElem, computeType));
          return castScalar(b, l, r, computeType, type.getElementType());
        },
        typeAndSizes->second);

    SmallVector<Value> results = {y, Value(), Value()};
    if (auto [t, sizes] = stats[0]; t)
      results[1] = buildEpilogue(
          rewriter, loc, t, reduced, mean,
          [&, t = t](OpBuilder &b, Location l, ValueRange v) {
            return castScalar(b, l, v[0], computeType, t.getElementType());
          },
          sizes);
    if (auto [t, sizes] = stats[1]; t)
      results[2] = buildEpilogue(
          rewriter, loc, t, reduced, variance,
          [&, t = t](OpBuilder &b, Location l, ValueRange v) {
            return castScalar(b, l, inverseStdDev(b, l, v[0], epsilon), computeType,
                              t.getElementType());
          },
          sizes);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Y = (X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c], with c the
/// dim 1 of X: inference only. Every other dim of X may be symbolic (each
/// element is computed on its own); the channels must be static, as the
/// [C] operands are.
struct BatchNormalizationLowering : OpConversionPattern<onnx::BatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::BatchNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getTrainingMode() != 0)
      return rewriter.notifyMatchFailure(op, "training_mode is not lowered");
    if (!isa<NoneType>(op->getResult(1).getType()) || !isa<NoneType>(op->getResult(2).getType()))
      return rewriter.notifyMatchFailure(op, "running statistics are outputs of training only");
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value x = adaptor.getX();
    auto inType =
        symbolicSameShapeInput(rewriter, getTypeConverter(), op, op.getX(), x, type);
    if (!inType)
      return failure();
    if (inType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "input must have rank 2 or more");
    // Channels known only at run time (a slice of a symbolic dim, or [C]
    // operands given at run time) are read at each channel: shape inference
    // unified the operands' length with X's channels, which run() checks.
    int64_t channels = inType.getDimSize(1);
    SmallVector<Value> inputs = {x};
    for (Value v : {adaptor.getScale(), adaptor.getB(), adaptor.getInputMean(),
                    adaptor.getInputVar()}) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getRank() != 1 ||
          (!ShapedType::isDynamic(channels) && !t.isDynamicDim(0) &&
           t.getDimSize(0) != channels))
        return rewriter.notifyMatchFailure(op, "scale, B, mean and var must have shape [C]");
      inputs.push_back(v);
    }
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = inType.getRank();
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx), channel,
                                   channel, channel, channel};
    double epsilon = op.getEpsilon().convertToDouble();
    Value y = buildParallel(rewriter, op.getLoc(), type, inputs, maps,
                            [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                              Value d = arith::SubFOp::create(b, l, v[0], v[3]);
                              Value n = arith::MulFOp::create(b, l, d,
                                                              inverseStdDev(b, l, v[4], epsilon));
                              Value s = arith::MulFOp::create(b, l, n, v[1]);
                              return arith::AddFOp::create(b, l, s, v[2]);
                            });
    rewriter.replaceOp(op, SmallVector<Value>{y, Value(), Value()});
    return success();
  }
};

/// Y = scale[c] * (X - mean) / sqrt(var + epsilon) + B[c], the statistics
/// over the spatial dims of each (n, c). Every dim but the channels (which
/// must match the static [C] operands) may be symbolic; symbolic spatial
/// dims make the count of each mean a run-time value.
struct InstanceNormalizationLowering : OpConversionPattern<onnx::InstanceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::InstanceNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value x = adaptor.getInput();
    auto inType =
        symbolicSameShapeInput(rewriter, getTypeConverter(), op, op.getInput(), x, type);
    if (!inType)
      return failure();
    if (inType.getRank() < 3)
      return rewriter.notifyMatchFailure(op, "input must have rank 3 or more");
    int64_t channels = inType.getDimSize(1);
    if (ShapedType::isDynamic(channels))
      return rewriter.notifyMatchFailure(op, "symbolic channels");
    for (Value v : {adaptor.getScale(), adaptor.getB()}) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getRank() != 1 || t.getDimSize(0) != channels)
        return rewriter.notifyMatchFailure(op, "scale and B must have shape [C]");
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = inType.getRank();
    SmallVector<bool> reduced(rank, true);
    reduced[0] = reduced[1] = false;
    Type elem = inType.getElementType();
    auto [mean, variance] = buildMoments(rewriter, loc, x, elem, reduced, elem);
    AffineMap keptMap = keptDimsMap(reduced, ctx);
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    double epsilon = op.getEpsilon().convertToDouble();
    Value y = buildParallel(
        rewriter, loc, type, ValueRange{x, mean, variance, adaptor.getScale(), adaptor.getB()},
        {AffineMap::getMultiDimIdentityMap(rank, ctx), keptMap, keptMap, channel, channel},
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          Value d = arith::SubFOp::create(b, l, v[0], v[1]);
          Value n = arith::MulFOp::create(b, l, d, inverseStdDev(b, l, v[2], epsilon));
          return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, n, v[3]), v[4]);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Y = (X - mean) / (sqrt(var) + 1e-9) over `axes` (default N, H, W), as the
/// ONNX function body defines it.
struct MeanVarianceNormalizationLowering
    : OpConversionPattern<onnx::MeanVarianceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::MeanVarianceNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getX();
    auto inType = sameShapeInput(rewriter, op, x, type);
    if (!inType)
      return failure();
    SmallVector<int64_t> axes = {0, 2, 3};
    if (auto a = op.getAxes())
      axes.assign(a->begin(), a->end());
    FailureOr<SmallVector<bool>> reduced = markAxes(axes, inType.getRank());
    if (failed(reduced))
      return rewriter.notifyMatchFailure(op, "axes out of range or repeated");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type elem = inType.getElementType();
    auto [mean, variance] = buildMoments(rewriter, loc, x, elem, *reduced, elem);
    AffineMap keptMap = keptDimsMap(*reduced, ctx);
    Value y = buildParallel(
        rewriter, loc, type, ValueRange{x, mean, variance},
        {AffineMap::getMultiDimIdentityMap(inType.getRank(), ctx), keptMap, keptMap},
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          Value d = arith::SubFOp::create(b, l, v[0], v[1]);
          Value sd = math::SqrtOp::create(b, l, v[2]);
          Value den = arith::AddFOp::create(b, l, sd, floatConst(b, l, elem, 1e-9));
          return arith::DivFOp::create(b, l, d, den);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Y = X / ||X||_p along `axis`, p 1 or 2; 0 where the norm is 0 (the
/// operator's definition since ONNX 1.20: 0 / 0 is 0, not NaN).
struct LpNormalizationLowering : OpConversionPattern<onnx::LpNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::LpNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getInput();
    auto inType = sameShapeInput(rewriter, op, x, type);
    if (!inType || inType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "input must have rank 1 or more");
    int64_t p = op.getP();
    if (p != 1 && p != 2)
      return rewriter.notifyMatchFailure(op, "p must be 1 or 2");
    int64_t rank = inType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<bool> reduced(rank, false);
    reduced[*axis] = true;
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value norm = buildReduction(
        rewriter, loc, inType.getShape(), reduced, x, identity,
        rewriter.getZeroAttr(inType.getElementType()),
        [&](OpBuilder &b, Location l, ValueRange v, Value a) -> Value {
          Value t = p == 1 ? Value(math::AbsFOp::create(b, l, v[0]))
                           : Value(arith::MulFOp::create(b, l, v[0], v[0]));
          return arith::AddFOp::create(b, l, a, t);
        });
    Value y = buildParallel(rewriter, loc, type, ValueRange{x, norm},
                            {identity, keptDimsMap(reduced, ctx)},
                            [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                              Value n = p == 1 ? v[1] : Value(math::SqrtOp::create(b, l, v[1]));
                              Value zero = floatConst(b, l, n.getType(), 0.0);
                              Value isZero = arith::CmpFOp::create(
                                  b, l, arith::CmpFPredicate::OEQ, n, zero);
                              return arith::SelectOp::create(
                                  b, l, isZero, zero, arith::DivFOp::create(b, l, v[0], n));
                            });
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Global pools
//===----------------------------------------------------------------------===//

enum class PoolKind { Average, Max, Lp };

/// Reduces every dim after N and C, keeping them as 1.
template <typename OpTy, PoolKind kind>
struct GlobalPoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, this->getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getX();
    auto inType = dyn_cast<RankedTensorType>(x.getType());
    if (!inType || inType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "input must have rank 2 or more");
    int64_t rank = inType.getRank();
    SmallVector<bool> reduced(rank, true);
    reduced[0] = reduced[1] = false;
    ArrayRef<int64_t> shape = inType.getShape();
    // Spatial dims may be symbolic: the reduction loops run their sizes at
    // run time, and an average divides by their product then. N and C are
    // the static result's (symbolic ones run in a loop, splitIndependentDims).
    if (inType.isDynamicDim(0) || inType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "symbolic N or C");
    if (type.getShape() != ArrayRef<int64_t>(keepDimsShape(shape, reduced)))
      return rewriter.notifyMatchFailure(op, "result must be N x C x 1 x ...");
    double p = 2;
    if constexpr (kind == PoolKind::Lp)
      p = static_cast<double>(op.getP());
    Location loc = op.getLoc();
    Type elem = inType.getElementType();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    // The window's size: static, times the symbolic spatial dims at run time.
    int64_t count = 1;
    Value runtimeCount;
    for (int64_t d = 2; d < rank; ++d) {
      if (!inType.isDynamicDim(d)) {
        count *= shape[d];
        continue;
      }
      Value n = tensor::DimOp::create(rewriter, loc, x, d);
      runtimeCount = runtimeCount ? Value(arith::MulIOp::create(rewriter, loc, runtimeCount, n)) : n;
    }
    Value acc;
    if (kind == PoolKind::Max) {
      acc = buildReduction(rewriter, loc, shape, reduced, x, identity,
                           extremeAttr(elem, false, /*largest=*/false, /*infinite=*/count != 0),
                           [](OpBuilder &b, Location l, ValueRange v, Value a) {
                             return arith::MaximumFOp::create(b, l, a, v[0]);
                           });
    } else {
      acc = buildReduction(rewriter, loc, shape, reduced, x, identity, rewriter.getZeroAttr(elem),
                           [&](OpBuilder &b, Location l, ValueRange v, Value a) -> Value {
                             Value t = v[0];
                             if (kind == PoolKind::Lp) {
                               Value abs = math::AbsFOp::create(b, l, t);
                               t = p == 1   ? abs
                                   : p == 2 ? Value(arith::MulFOp::create(b, l, t, t))
                                            : Value(math::PowFOp::create(
                                                  b, l, abs, floatConst(b, l, elem, p)));
                             }
                             return arith::AddFOp::create(b, l, a, t);
                           });
    }
    Value y = buildEpilogue(rewriter, loc, type, reduced, acc,
                            [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                              if (kind == PoolKind::Average && runtimeCount) {
                                Value n = arith::MulIOp::create(b, l, runtimeCount,
                                                                indexConst(b, l, count));
                                n = arith::IndexCastOp::create(b, l, b.getI64Type(), n);
                                return arith::DivFOp::create(
                                    b, l, v[0], arith::SIToFPOp::create(b, l, elem, n));
                              }
                              if (kind == PoolKind::Average)
                                return arith::DivFOp::create(
                                    b, l, v[0],
                                    floatConst(b, l, elem, static_cast<double>(count)));
                              if (kind == PoolKind::Max || p == 1)
                                return v[0];
                              if (p == 2)
                                return math::SqrtOp::create(b, l, v[0]);
                              return math::PowFOp::create(b, l, v[0],
                                                          floatConst(b, l, elem, 1.0 / p));
                            });
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

/// y[..., i, ...] = sum of x[..., j, ...] over j <= i (j < i when exclusive;
/// j >= i, j > i when reversed): a generic with one extra reduction dim j.
/// CumProd the same with products (the empty product 1).
template <typename OpTy, bool isProduct>
struct CumulativeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value x = adaptor.getX();
    // Symbolic dims (position ids are a CumSum over [batch, seq]) are the
    // input's: the generic's loops, j included, take their sizes from x.
    auto inType = type.hasStaticShape()
                      ? sameShapeInput(rewriter, op, x, type)
                      : symbolicSameShapeInput(rewriter, this->getTypeConverter(), op,
                                               op.getX(), x, type);
    if (!inType || inType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "input must have rank 1 or more");
    FailureOr<SmallVector<int64_t>> axisValues = constantInts(op.getAxis(), adaptor.getAxis());
    if (failed(axisValues)) {
      if (!type.hasStaticShape())
        return op.emitError("cannot lower '")
               << op->getName() << "' with an axis given at run time and symbolic dims (pass "
                                   "--shape to fix them)";
      return lowerRuntimeAxis(op, adaptor.getAxis(), rewriter, type, x, inType);
    }
    if (axisValues->size() != 1)
      return rewriter.notifyMatchFailure(op, "axis must be a scalar");
    int64_t rank = inType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(axisValues->front(), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t a = *axis;
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> inputExprs, outputExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inputExprs.push_back(getAffineDimExpr(d == a ? rank : d, ctx));
      outputExprs.push_back(getAffineDimExpr(d, ctx));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, inputExprs, ctx),
                                   AffineMap::get(rank + 1, 0, outputExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    bool exclusive = op.getExclusive() != 0, reverse = op.getReverse() != 0;
    using P = arith::CmpIPredicate;
    P pred = reverse ? (exclusive ? P::ugt : P::uge) : (exclusive ? P::ult : P::ule);
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    Value init = buildFilled(rewriter, loc, type,
                             isProduct ? oneAttr(rewriter, elem) : rewriter.getZeroAttr(elem),
                             typeAndSizes->second);
    Value y =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{x}, ValueRange{init}, maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value i = linalg::IndexOp::create(b, l, a);
              Value j = linalg::IndexOp::create(b, l, rank);
              Value inRange = arith::CmpIOp::create(b, l, pred, j, i);
              Value sum = isProduct ? mul(b, l, args[1], args[0]) : add(b, l, args[1], args[0]);
              linalg::YieldOp::create(b, l,
                                      Value(arith::SelectOp::create(b, l, inRange, sum, args[1])));
            })
            .getResult(0);
    rewriter.replaceOp(op, y);
    return success();
  }

  /// The axis known only at run time (x static): one generic over the
  /// result's dims and j, up to the largest dim, that reads x at j along the
  /// axis chosen at run time (tensor.extract, j clamped where it passes that
  /// axis' size and the element left out). An axis outside [-rank, rank)
  /// makes run() return status_shape.
  LogicalResult lowerRuntimeAxis(OpTy op, Value axisTensor, ConversionPatternRewriter &rewriter,
                                 RankedTensorType type, Value x,
                                 RankedTensorType inType) const {
    auto axisType = dyn_cast<RankedTensorType>(axisTensor.getType());
    if (!inType.hasStaticShape() || !axisType || !axisType.hasStaticShape() ||
        axisType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "a run-time axis needs a static input");
    Location loc = op.getLoc();
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> dims = inType.getShape();
    Type i64 = rewriter.getI64Type();
    SmallVector<Value> zeros(axisType.getRank(), indexConst(rewriter, loc, 0));
    Value axis = tensor::ExtractOp::create(rewriter, loc, axisTensor, zeros);
    if (axis.getType() != i64)
      axis = arith::ExtSIOp::create(rewriter, loc, i64, axis);
    func::FuncOp check = declareRuntimeFunction(
        rewriter, op, "onnxcc_check_at_least", "onnxcc_rt::check_at_least",
        rewriter.getFunctionType({i64, i64}, {rewriter.getI32Type()}), /*usesStringPool=*/false);
    auto i64Const = [&](int64_t v) {
      return arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(v)).getResult();
    };
    func::CallOp::create(rewriter, loc, check, ValueRange{axis, i64Const(-rank)});
    func::CallOp::create(rewriter, loc, check, ValueRange{i64Const(rank - 1), axis});
    Value negative = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, axis,
                                           i64Const(0));
    Value normalized = arith::SelectOp::create(
        rewriter, loc, negative, arith::AddIOp::create(rewriter, loc, axis, i64Const(rank)),
        axis);
    Value a = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), normalized);

    int64_t longest = 0;
    for (int64_t d : dims)
      longest = std::max(longest, d);
    Type elem = type.getElementType();
    // A placeholder operand whose only role is to give j its range.
    Value range = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{longest}, elem);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> outputExprs;
    for (int64_t d = 0; d < rank; ++d)
      outputExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
                                   AffineMap::get(rank + 1, 0, outputExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    bool exclusive = op.getExclusive() != 0, reverse = op.getReverse() != 0;
    using P = arith::CmpIPredicate;
    P pred = reverse ? (exclusive ? P::ugt : P::uge) : (exclusive ? P::ult : P::ule);
    Value init = buildFilled(rewriter, loc, type,
                             isProduct ? oneAttr(rewriter, elem) : rewriter.getZeroAttr(elem));
    Value y =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{range}, ValueRange{init}, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              SmallVector<Value> iv;
              for (int64_t d = 0; d < rank; ++d)
                iv.push_back(linalg::IndexOp::create(b, l, d));
              Value j = linalg::IndexOp::create(b, l, rank);
              SmallVector<Value> isAxis;
              Value i = iv[0], size = indexConst(b, l, dims[0]);
              for (int64_t d = 0; d < rank; ++d) {
                isAxis.push_back(
                    arith::CmpIOp::create(b, l, P::eq, a, indexConst(b, l, d)));
                if (d > 0) {
                  i = arith::SelectOp::create(b, l, isAxis[d], iv[d], i);
                  size = arith::SelectOp::create(b, l, isAxis[d], indexConst(b, l, dims[d]),
                                                 size);
                }
              }
              Value inside = arith::CmpIOp::create(b, l, P::ult, j, size);
              Value use = arith::AndIOp::create(b, l, inside,
                                                arith::CmpIOp::create(b, l, pred, j, i));
              Value jc = arith::SelectOp::create(b, l, inside, j, indexConst(b, l, 0));
              SmallVector<Value> at;
              for (int64_t d = 0; d < rank; ++d)
                at.push_back(arith::SelectOp::create(b, l, isAxis[d], jc, iv[d]));
              Value v = tensor::ExtractOp::create(b, l, x, at);
              Value acc = args[1];
              Value next = isProduct ? mul(b, l, acc, v) : add(b, l, acc, v);
              linalg::YieldOp::create(b, l, Value(arith::SelectOp::create(b, l, use, next, acc)));
            })
            .getResult(0);
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

/// Softmax (or LogSoftmax) of `input` along `axis`: exp(x - max) / sum, the
/// max subtracted so that exp cannot overflow.
Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t axis, bool isLog) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  Type elem = inType.getElementType();
  SmallVector<bool> reduced(rank, false);
  reduced[axis] = true;
  ArrayRef<int64_t> shape = inType.getShape();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap keptMap = keptDimsMap(reduced, ctx);
  Value max = buildReduction(b, loc, shape, reduced, input, identity,
                             extremeAttr(elem, false, /*largest=*/false, /*infinite=*/true),
                             [](OpBuilder &nb, Location l, ValueRange x, Value a) {
                               return arith::MaximumFOp::create(nb, l, a, x[0]);
                             });
  // float16/bfloat16: the differences, exponentials and their sum in
  // float32, the result rounded once (as ONNX Runtime does).
  Type acc = accumulatorType(elem);
  auto widen = [acc](OpBuilder &nb, Location l, Value v) -> Value {
    return v.getType() == acc ? v : arith::ExtFOp::create(nb, l, acc, v).getResult();
  };
  Value sum = buildReduction(
      b, loc, shape, reduced, ValueRange{input, max}, {identity, keptMap}, b.getZeroAttr(acc),
      [&](OpBuilder &nb, Location l, ValueRange x, Value a) -> Value {
        Value d = arith::SubFOp::create(nb, l, widen(nb, l, x[0]), widen(nb, l, x[1]));
        return arith::AddFOp::create(nb, l, a, math::ExpOp::create(nb, l, d));
      });
  return buildParallel(b, loc, inType, ValueRange{input, max, sum}, {identity, keptMap, keptMap},
                       [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                         Value d = arith::SubFOp::create(nb, l, widen(nb, l, v[0]),
                                                         widen(nb, l, v[1]));
                         Value r = isLog ? Value(arith::SubFOp::create(
                                               nb, l, d, math::LogOp::create(nb, l, v[2])))
                                         : Value(arith::DivFOp::create(
                                               nb, l, math::ExpOp::create(nb, l, d), v[2]));
                         return r.getType() == elem ? r
                                                    : arith::TruncFOp::create(nb, l, elem, r)
                                                          .getResult();
                       });
}

void populateReductionPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering<onnx::ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<onnx::ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<onnx::ReduceMaxOp, ReduceKind::Max>,
               ReduceLowering<onnx::ReduceMinOp, ReduceKind::Min>,
               ReduceLowering<onnx::ReduceProdOp, ReduceKind::Prod>,
               ReduceLowering<onnx::ReduceL1Op, ReduceKind::L1>,
               ReduceLowering<onnx::ReduceL2Op, ReduceKind::L2>,
               ReduceLowering<onnx::ReduceLogSumOp, ReduceKind::LogSum>,
               ReduceLowering<onnx::ReduceLogSumExpOp, ReduceKind::LogSumExp>,
               ReduceLowering<onnx::ReduceSumSquareOp, ReduceKind::SumSquare>>(converter, ctx);
  patterns.add<ArgExtremeLowering<onnx::ArgMaxOp, true>,
               ArgExtremeLowering<onnx::ArgMinOp, false>, HardmaxLowering,
               SoftmaxLowering<onnx::SoftmaxOp, false>,
               SoftmaxLowering<onnx::LogSoftmaxOp, true>>(converter, ctx);
  patterns.add<LayerNormalizationLowering, BatchNormalizationLowering,
               InstanceNormalizationLowering, MeanVarianceNormalizationLowering,
               LpNormalizationLowering>(converter, ctx);
  patterns.add<GlobalPoolLowering<onnx::GlobalAveragePoolOp, PoolKind::Average>,
               GlobalPoolLowering<onnx::GlobalMaxPoolOp, PoolKind::Max>,
               GlobalPoolLowering<onnx::GlobalLpPoolOp, PoolKind::Lp>,
               CumulativeLowering<onnx::CumSumOp, false>,
               CumulativeLowering<onnx::CumProdOp, true>>(converter, ctx);
}

} // namespace onnxcc::lowering
