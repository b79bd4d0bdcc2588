//===- Elementwise.cpp - Elementwise onnx ops to linalg.generic ----------===//
//
// Every elementwise op is one linalg.generic over the result shape, with
// broadcasting indexing maps for its operands, and a scalar body built by a
// small function per op. Signedness comes from the onnx element type.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AffineMap.h"

#include <limits>
#include <optional>

using namespace mlir;

namespace onnxcc::lowering {

Value buildFilled(OpBuilder &b, Location loc, RankedTensorType type, TypedAttr value,
                  ValueRange dynamicSizes) {
  Value empty = emptyTensor(b, loc, type, dynamicSizes);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

Value buildBroadcastGeneric(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange operands,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  SmallVector<Value> sizes(rank);
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<AffineExpr> exprs;
    int64_t offset = rank - t.getRank();
    for (int64_t d = 0; d < t.getRank(); ++d) {
      bool broadcast = t.getDimSize(d) == 1 && resultType.getDimSize(offset + d) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + d, ctx));
      if (resultType.isDynamicDim(offset + d) && t.isDynamicDim(d) && !sizes[offset + d])
        sizes[offset + d] = tensor::DimOp::create(b, loc, v, d);
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (resultType.isDynamicDim(d))
      dynamicSizes.push_back(sizes[d]);
  Value init = emptyTensor(b, loc, resultType, dynamicSizes);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, operands, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value broadcastSymbolicDims(OpBuilder &b, Operation *at, Location loc, Value operand,
                            RankedTensorType resultType, ArrayRef<Value> otherSizes) {
  auto t = cast<RankedTensorType>(operand.getType());
  int64_t offset = resultType.getRank() - t.getRank();
  SmallVector<int64_t> shape(t.getShape());
  // The size each checked dim must be 1 or equal to: a constant for a static
  // result dim, the result's run-time size where otherSizes gives one.
  SmallVector<Value> target(t.getRank());
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (!t.isDynamicDim(d))
      continue;
    if (!resultType.isDynamicDim(offset + d)) {
      shape[d] = resultType.getDimSize(offset + d);
      target[d] = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(shape[d]));
    } else if (static_cast<size_t>(d) < otherSizes.size() && otherSizes[d]) {
      target[d] = arith::IndexCastOp::create(b, loc, b.getI64Type(), otherSizes[d]);
    }
  }
  if (llvm::all_of(target, [](Value v) { return !v; }))
    return operand;
  Type i64 = b.getI64Type();
  func::FuncOp check = declareRuntimeFunction(
      b, at, "onnxcc_check_broadcast", "onnxcc_rt::check_broadcast",
      b.getFunctionType({i64, i64}, {b.getI32Type()}), /*usesStringPool=*/false);
  SmallVector<Value> isOne(t.getRank());
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (target[d]) {
      Value dim = tensor::DimOp::create(b, loc, operand, d);
      func::CallOp::create(b, loc, check,
                           ValueRange{arith::IndexCastOp::create(b, loc, i64, dim), target[d]});
      isOne[d] =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, dim, indexConst(b, loc, 1));
    }
    if (ShapedType::isDynamic(shape[d]))
      dynamicSizes.push_back(target[d] ? otherSizes[d]
                                       : Value(tensor::DimOp::create(b, loc, operand, d)));
  }
  auto type = RankedTensorType::get(shape, t.getElementType());
  Value init = emptyTensor(b, loc, type, dynamicSizes);
  int64_t rank = t.getRank();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      b, loc, type, ValueRange{}, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> at;
        Value zero = indexConst(nb, nloc, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, nloc, d);
          at.push_back(isOne[d] ? Value(arith::SelectOp::create(nb, nloc, isOne[d], zero, i)) : i);
        }
        linalg::YieldOp::create(nb, nloc,
                                Value(tensor::ExtractOp::create(nb, nloc, operand, at)));
      });
  return copy.getResult(0);
}

Value broadcastOperand(OpBuilder &b, Operation *op, Location loc, const TypeConverter *converter,
                       unsigned operand, Value converted, RankedTensorType resultType,
                       ValueRange resultSizes) {
  auto t = cast<RankedTensorType>(converted.getType());
  const OnnxTypeConverter &conv = onnxConverter(converter);
  auto shape = conv.shapeOf(op->getOperand(operand));
  auto outShape = conv.shapeOf(op->getResult(0));
  int64_t offset = resultType.getRank() - t.getRank();
  SmallVector<Value> otherSizes(t.getRank());
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (!t.isDynamicDim(d) || !resultType.isDynamicDim(offset + d))
      continue;
    // The same symbol needs no check; anything not known to be it does.
    bool same = shape && outShape && shape->size() == static_cast<size_t>(t.getRank()) &&
                outShape->size() == static_cast<size_t>(resultType.getRank()) &&
                (*shape)[d] == (*outShape)[offset + d];
    if (!same)
      otherSizes[d] = resultSizes[resultType.getDynamicDimIndex(offset + d)];
  }
  return broadcastSymbolicDims(b, op, loc, converted, resultType, otherSizes);
}

Value castScalar(OpBuilder &b, Location loc, Value v, Type from, Type to) {
  if (isSmallFloat(from) || isSmallFloat(to) || isSubByteInt(from) || isSubByteInt(to))
    return castScalarSmall(b, loc, v, from, to, /*saturate=*/true, "up");
  Type toSignless = to;
  if (auto i = dyn_cast<IntegerType>(to); i && !i.isSignless())
    toSignless = b.getIntegerType(i.getWidth());
  if (from == to)
    return v;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  bool fromUnsigned = from.isUnsignedInteger() || from.isInteger(1);
  if (to.isInteger(1)) {
    Value zero = arith::ConstantOp::create(b, loc, v.getType(), b.getZeroAttr(v.getType()));
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (fromFloat && toFloat) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw < tw)
      return arith::ExtFOp::create(b, loc, toSignless, v);
    if (fw > tw)
      return arith::TruncFOp::create(b, loc, toSignless, v);
    return v;
  }
  if (fromFloat) {
    if (to.isUnsignedInteger())
      return arith::FPToUIOp::create(b, loc, toSignless, v);
    return arith::FPToSIOp::create(b, loc, toSignless, v);
  }
  if (toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, toSignless, v);
    return arith::SIToFPOp::create(b, loc, toSignless, v);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromUnsigned ? Value(arith::ExtUIOp::create(b, loc, toSignless, v))
                        : Value(arith::ExtSIOp::create(b, loc, toSignless, v));
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, toSignless, v);
  return v;
}

namespace {

/// The scalar computation of one elementwise op: `args` are the converted
/// scalar operands (absent optional operands left out), `elem` the onnx
/// element type of operand 0 (it carries the signedness).
using ScalarFn = Value (*)(OpBuilder &, Location, Operation *, ValueRange args, Type elem);

Value constantLike(OpBuilder &b, Location loc, Type t, double v) {
  if (isa<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  if (t.isInteger(1))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(v != 0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, static_cast<int64_t>(v)));
}

/// The value of a float attribute `name` of `op`, or `fallback` (the ONNX
/// default, given as the float the attribute would hold) when it is absent.
double floatAttr(Operation *op, StringRef name, double fallback) {
  if (auto a = op->getAttrOfType<FloatAttr>(name))
    return a.getValueAsDouble();
  return fallback;
}

int64_t intAttr(Operation *op, StringRef name, int64_t fallback) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getValue().getSExtValue();
  return fallback;
}

/// The comparisons ONNX needs; floats compare ordered (false on NaN), integers
/// signed or unsigned after the onnx element type.
enum class Cmp { eq, ne, lt, le, gt, ge };

Value compare(OpBuilder &b, Location loc, Cmp kind, Value lhs, Value rhs, Type elem) {
  if (isa<FloatType>(elem)) {
    using P = arith::CmpFPredicate;
    P p = kind == Cmp::eq   ? P::OEQ
          : kind == Cmp::ne ? P::UNE
          : kind == Cmp::lt ? P::OLT
          : kind == Cmp::le ? P::OLE
          : kind == Cmp::gt ? P::OGT
                            : P::OGE;
    return arith::CmpFOp::create(b, loc, p, lhs, rhs);
  }
  using P = arith::CmpIPredicate;
  bool u = elem.isUnsignedInteger() || elem.isInteger(1);
  P p = kind == Cmp::eq   ? P::eq
        : kind == Cmp::ne ? P::ne
        : kind == Cmp::lt ? (u ? P::ult : P::slt)
        : kind == Cmp::le ? (u ? P::ule : P::sle)
        : kind == Cmp::gt ? (u ? P::ugt : P::sgt)
                          : (u ? P::uge : P::sge);
  return arith::CmpIOp::create(b, loc, p, lhs, rhs);
}

Value pick(OpBuilder &b, Location loc, Value cond, Value t, Value f) {
  return arith::SelectOp::create(b, loc, cond, t, f);
}

template <typename FOp, typename SIOp, typename UIOp = SIOp>
Value binaryArith(OpBuilder &b, Location loc, Value lhs, Value rhs, Type elem) {
  if (isa<FloatType>(elem))
    return FOp::create(b, loc, lhs, rhs);
  if (elem.isUnsignedInteger())
    return UIOp::create(b, loc, lhs, rhs);
  return SIOp::create(b, loc, lhs, rhs);
}

template <typename FOp, typename SIOp, typename UIOp = SIOp>
Value binary(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  return binaryArith<FOp, SIOp, UIOp>(b, loc, args[0], args[1], elem);
}

/// Sum, Max and Min of any number of operands: a left fold.
template <typename FOp, typename SIOp, typename UIOp = SIOp>
Value variadic(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  Value acc = args[0];
  for (Value v : args.drop_front())
    acc = binaryArith<FOp, SIOp, UIOp>(b, loc, acc, v, elem);
  return acc;
}

Value mean(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value sum = variadic<arith::AddFOp, arith::AddIOp>(b, loc, op, args, elem);
  Value n = constantLike(b, loc, sum.getType(), static_cast<double>(args.size()));
  return binaryArith<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>(b, loc, sum, n, elem);
}

template <typename FOp>
Value unaryFloat(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  return FOp::create(b, loc, args[0]);
}

/// A float function that ONNX also defines on integers (Erf): computed in
/// double and converted back with Cast semantics.
template <typename FOp>
Value unaryFloatAnyType(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  if (isa<FloatType>(elem))
    return FOp::create(b, loc, args[0]);
  Type f64 = b.getF64Type();
  Value x = castScalar(b, loc, args[0], elem, f64);
  return castScalar(b, loc, FOp::create(b, loc, x), f64, elem);
}

Value identity(OpBuilder &, Location, Operation *, ValueRange args, Type) { return args[0]; }

Value absolute(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  if (isa<FloatType>(elem))
    return math::AbsFOp::create(b, loc, args[0]);
  if (elem.isUnsignedInteger())
    return args[0];
  return math::AbsIOp::create(b, loc, args[0]);
}

Value neg(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  if (isa<FloatType>(elem))
    return arith::NegFOp::create(b, loc, args[0]);
  Value zero = constantLike(b, loc, args[0].getType(), 0);
  return arith::SubIOp::create(b, loc, zero, args[0]);
}

Value reciprocal(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  Value one = constantLike(b, loc, args[0].getType(), 1);
  return arith::DivFOp::create(b, loc, one, args[0]);
}

/// -1, 0 or 1; a NaN stays NaN.
Value sign(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  Value x = args[0];
  Type t = x.getType();
  Value zero = constantLike(b, loc, t, 0), one = constantLike(b, loc, t, 1);
  if (elem.isUnsignedInteger())
    return pick(b, loc, compare(b, loc, Cmp::ne, x, zero, elem), one, zero);
  Value minusOne = constantLike(b, loc, t, -1);
  Value negOrRest = pick(b, loc, compare(b, loc, Cmp::lt, x, zero, elem), minusOne,
                           isa<FloatType>(elem) ? x : zero);
  return pick(b, loc, compare(b, loc, Cmp::gt, x, zero, elem), one, negOrRest);
}

Value relu(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  Value zero = constantLike(b, loc, args[0].getType(), 0);
  if (isa<FloatType>(elem))
    return arith::MaximumFOp::create(b, loc, args[0], zero);
  return arith::MaxSIOp::create(b, loc, args[0], zero);
}

Value leakyReluOf(OpBuilder &b, Location loc, Value x, double alphaV, Type elem) {
  Type t = x.getType();
  Value alpha = constantLike(b, loc, t, alphaV);
  Value scaled = arith::MulFOp::create(b, loc, alpha, x);
  return pick(b, loc, compare(b, loc, Cmp::lt, x, constantLike(b, loc, t, 0), elem), scaled,
                x);
}

Value leakyRelu(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  return leakyReluOf(b, loc, args[0], floatAttr(op, "alpha", 0.01f), elem);
}

/// x where slope's broadcast operand is not negative, slope * x elsewhere.
Value prelu(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  Value x = args[0];
  if (elem.isUnsignedInteger())
    return x;
  Value scaled = binaryArith<arith::MulFOp, arith::MulIOp>(b, loc, args[1], x, elem);
  Value zero = constantLike(b, loc, x.getType(), 0);
  return pick(b, loc, compare(b, loc, Cmp::lt, x, zero, elem), scaled, x);
}

/// alpha * (exp(x) - 1) for x < 0, x elsewhere.
Value elu(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value x = args[0];
  Type t = x.getType();
  Value alpha = constantLike(b, loc, t, floatAttr(op, "alpha", 1.0));
  Value em1 = math::ExpM1Op::create(b, loc, x);
  Value neg = arith::MulFOp::create(b, loc, alpha, em1);
  return pick(b, loc, compare(b, loc, Cmp::lt, x, constantLike(b, loc, t, 0), elem), neg, x);
}

/// gamma * x for x > 0, gamma * (alpha * exp(x) - alpha) elsewhere.
Value selu(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value x = args[0];
  Type t = x.getType();
  Value alpha = constantLike(b, loc, t, floatAttr(op, "alpha", 1.67326319217681884765625f));
  Value gamma = constantLike(b, loc, t, floatAttr(op, "gamma", 1.05070102214813232421875f));
  Value e = math::ExpOp::create(b, loc, x);
  Value neg = arith::SubFOp::create(b, loc, arith::MulFOp::create(b, loc, alpha, e), alpha);
  Value picked =
      pick(b, loc, compare(b, loc, Cmp::gt, x, constantLike(b, loc, t, 0), elem), x, neg);
  return arith::MulFOp::create(b, loc, gamma, picked);
}

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), written as a select:
/// the two terms are never both non-zero.
Value celu(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value x = args[0];
  Type t = x.getType();
  Value alpha = constantLike(b, loc, t, floatAttr(op, "alpha", 1.0));
  Value em1 = math::ExpM1Op::create(b, loc, arith::DivFOp::create(b, loc, x, alpha));
  Value neg = arith::MulFOp::create(b, loc, alpha, em1);
  return pick(b, loc, compare(b, loc, Cmp::gt, x, constantLike(b, loc, t, 0), elem), x, neg);
}

Value thresholdedRelu(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value x = args[0];
  Type t = x.getType();
  Value alpha = constantLike(b, loc, t, floatAttr(op, "alpha", 1.0));
  return pick(b, loc, compare(b, loc, Cmp::gt, x, alpha, elem), x, constantLike(b, loc, t, 0));
}

/// max(0, min(1, alpha * x + beta)).
Value hardSigmoidOf(OpBuilder &b, Location loc, Value x, double alphaV, double betaV) {
  Type t = x.getType();
  Value alpha = constantLike(b, loc, t, alphaV), beta = constantLike(b, loc, t, betaV);
  Value lin = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, alpha, x), beta);
  Value upper = arith::MinimumFOp::create(b, loc, lin, constantLike(b, loc, t, 1));
  return arith::MaximumFOp::create(b, loc, upper, constantLike(b, loc, t, 0));
}

Value hardSigmoid(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type) {
  return hardSigmoidOf(b, loc, args[0], floatAttr(op, "alpha", 0.2f), floatAttr(op, "beta", 0.5));
}

Value hardSwish(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  Value gate = hardSigmoidOf(b, loc, args[0], 1.0 / 6.0, 0.5);
  return arith::MulFOp::create(b, loc, args[0], gate);
}

/// log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) so that large
/// inputs do not overflow.
Value softplus(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  Value x = args[0];
  Type t = x.getType();
  Value absX = math::AbsFOp::create(b, loc, x);
  Value tail = math::Log1pOp::create(
      b, loc, math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, absX)));
  Value pos = arith::MaximumFOp::create(b, loc, x, constantLike(b, loc, t, 0));
  return arith::AddFOp::create(b, loc, pos, tail);
}

Value softsign(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  Value x = args[0];
  Value den = arith::AddFOp::create(b, loc, constantLike(b, loc, x.getType(), 1),
                                    math::AbsFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, x, den);
}

Value sigmoid(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  Type t = args[0].getType();
  Value one = constantLike(b, loc, t, 1);
  Value neg = arith::NegFOp::create(b, loc, args[0]);
  Value e = math::ExpOp::create(b, loc, neg);
  Value den = arith::AddFOp::create(b, loc, one, e);
  return arith::DivFOp::create(b, loc, one, den);
}

/// x * Sigmoid(x).
Value silu(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  return arith::MulFOp::create(b, loc, args[0], sigmoid(b, loc, op, args, elem));
}

/// x * 0.5 * (1 + erf(x / sqrt(2))), or with `tanhApprox`
/// x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
Value geluOf(OpBuilder &b, Location loc, Value x, bool tanhApprox) {
  Type t = x.getType();
  Value inner;
  if (tanhApprox) {
    Value x3 = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value poly = arith::AddFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, constantLike(b, loc, t, 0.044715), x3));
    Value scaled = arith::MulFOp::create(
        b, loc, constantLike(b, loc, t, 0.7978845608028654 /* sqrt(2/pi) */), poly);
    inner = math::TanhOp::create(b, loc, scaled);
  } else {
    Value scaled = arith::MulFOp::create(
        b, loc, x, constantLike(b, loc, t, 0.7071067811865476 /* 1/sqrt(2) */));
    inner = math::ErfOp::create(b, loc, scaled);
  }
  Value onePlus = arith::AddFOp::create(b, loc, constantLike(b, loc, t, 1), inner);
  Value half = arith::MulFOp::create(b, loc, x, constantLike(b, loc, t, 0.5));
  return arith::MulFOp::create(b, loc, half, onePlus);
}

Value gelu(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type) {
  auto a = op->getAttrOfType<StringAttr>("approximate");
  return geluOf(b, loc, args[0], a && a.getValue() == "tanh");
}

/// x + bias below -lambd, x - bias above lambd, 0 between. Integer inputs
/// are compared and shifted in double (the attributes are floats), then cast
/// back.
Value shrink(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Type ft = isa<FloatType>(elem) ? args[0].getType() : b.getF64Type();
  Type fElem = isa<FloatType>(elem) ? elem : ft;
  Value x = castScalar(b, loc, args[0], elem, fElem);
  double lambdV = floatAttr(op, "lambd", 0.5);
  Value bias = constantLike(b, loc, ft, floatAttr(op, "bias", 0.0));
  Value lambd = constantLike(b, loc, ft, lambdV), negLambd = constantLike(b, loc, ft, -lambdV);
  Value low = arith::AddFOp::create(b, loc, x, bias);
  Value high = arith::SubFOp::create(b, loc, x, bias);
  Value zero = constantLike(b, loc, ft, 0);
  Value r = pick(b, loc, compare(b, loc, Cmp::gt, x, lambd, fElem), high, zero);
  r = pick(b, loc, compare(b, loc, Cmp::lt, x, negLambd, fElem), low, r);
  return castScalar(b, loc, r, fElem, elem);
}

/// Mod: with fmod=1 the remainder takes the dividend's sign (C fmod / %);
/// with fmod=0 it takes the divisor's (Python), so a non-zero remainder of
/// the other sign is moved by one divisor.
Value mod(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value a = args[0], d = args[1];
  Value r = binaryArith<arith::RemFOp, arith::RemSIOp, arith::RemUIOp>(b, loc, a, d, elem);
  if (intAttr(op, "fmod", 0) != 0 || elem.isUnsignedInteger())
    return r;
  Value zero = constantLike(b, loc, r.getType(), 0);
  Value nonZero = compare(b, loc, Cmp::ne, r, zero, elem);
  Value rNeg = compare(b, loc, Cmp::lt, r, zero, elem);
  Value dNeg = compare(b, loc, Cmp::lt, d, zero, elem);
  Value signsDiffer = arith::XOrIOp::create(b, loc, rNeg, dNeg);
  Value adjust = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
  Value moved = binaryArith<arith::AddFOp, arith::AddIOp>(b, loc, r, d, elem);
  return pick(b, loc, adjust, moved, r);
}

/// Pow: the exponent converts to the base's type for float bases; integer
/// bases are raised in double and truncated back, as ONNX Runtime does.
Value power(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Type expElem = onnxElementType(op->getOperand(1));
  if (isa<FloatType>(elem)) {
    Value y = castScalar(b, loc, args[1], expElem, elem);
    return math::PowFOp::create(b, loc, args[0], y);
  }
  Type f64 = b.getF64Type();
  Value x = castScalar(b, loc, args[0], elem, f64);
  Value y = castScalar(b, loc, args[1], expElem, f64);
  return castScalar(b, loc, math::PowFOp::create(b, loc, x, y), f64, elem);
}

/// BitShift; a shift by the width or more gives 0 (C++ leaves it undefined).
Value bitShift(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type) {
  Value x = args[0], y = args[1];
  Type t = x.getType();
  auto dir = op->getAttrOfType<StringAttr>("direction");
  Value shifted = dir && dir.getValue() == "LEFT" ? Value(arith::ShLIOp::create(b, loc, x, y))
                                                  : Value(arith::ShRUIOp::create(b, loc, x, y));
  Value width = constantLike(b, loc, t, t.getIntOrFloatBitWidth());
  Value tooFar = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, y, width);
  return pick(b, loc, tooFar, constantLike(b, loc, t, 0), shifted);
}

template <typename IOp>
Value logical(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  return IOp::create(b, loc, args[0], args[1]);
}

Value bitwiseNot(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  return arith::XOrIOp::create(b, loc, args[0], constantLike(b, loc, args[0].getType(), -1));
}

/// BitCast: the same bits as another type of the same width (the verifier
/// checks the widths); a bool is the byte 0 or 1, and a byte is true when not 0.
Value bitCast(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type) {
  Value x = args[0];
  Type from = x.getType();
  Type to = onnxElementType(op->getResult(0));
  if (auto toInt = dyn_cast<IntegerType>(to); toInt && !toInt.isSignless())
    to = b.getIntegerType(toInt.getWidth());
  if (from == to)
    return x;
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, x);
  if (to.isInteger(1)) {
    Type bits = b.getIntegerType(from.getIntOrFloatBitWidth());
    Value v = isa<FloatType>(from) ? Value(arith::BitcastOp::create(b, loc, bits, x)) : x;
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, constantLike(b, loc, bits, 0));
  }
  return arith::BitcastOp::create(b, loc, to, x);
}

Value logicalNot(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  return arith::XOrIOp::create(b, loc, args[0], constantLike(b, loc, b.getI1Type(), 1));
}

template <Cmp kind>
Value comparison(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  return compare(b, loc, kind, args[0], args[1], elem);
}

Value where(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  return pick(b, loc, args[0], args[1], args[2]);
}

/// Clip: the optional bounds are left out of `args` when absent. A NaN
/// input stays NaN (the comparisons are false).
Value clip(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value x = args[0];
  unsigned next = 1;
  if (!isa<NoneType>(op->getOperand(1).getType())) {
    Value lo = args[next++];
    x = pick(b, loc, compare(b, loc, Cmp::lt, x, lo, elem), lo, x);
  }
  if (op->getNumOperands() > 2 && !isa<NoneType>(op->getOperand(2).getType())) {
    Value hi = args[next++];
    x = pick(b, loc, compare(b, loc, Cmp::gt, x, hi, elem), hi, x);
  }
  return x;
}

/// Cast and CastLike: to the onnx element type of the result.
/// The importer keeps Cast 19's `saturate` and Cast 24's `round_mode` (which
/// the opset-13 op lacks) as onnxcc.saturate / onnxcc.round_mode.
Value convert(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Type to = onnxElementType(op->getResult(0));
  bool saturate = intAttr(op, "onnxcc.saturate", 1) != 0;
  StringRef roundMode = "up";
  if (auto mode = op->getAttrOfType<StringAttr>("onnxcc.round_mode"))
    roundMode = mode.getValue();
  return castScalarSmall(b, loc, args[0], elem, to, saturate, roundMode);
}

Value isNaN(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, args[0], args[0]);
}

Value isInf(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type elem) {
  Value x = args[0];
  Type t = x.getType();
  bool negative = intAttr(op, "detect_negative", 1) != 0;
  bool positive = intAttr(op, "detect_positive", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  Value r = constantLike(b, loc, b.getI1Type(), 0);
  if (positive)
    r = compare(b, loc, Cmp::eq, x, constantLike(b, loc, t, inf), elem);
  if (negative) {
    Value isNeg = compare(b, loc, Cmp::eq, x, constantLike(b, loc, t, -inf), elem);
    r = positive ? Value(arith::OrIOp::create(b, loc, r, isNeg)) : isNeg;
  }
  return r;
}

/// Converts an elementwise onnx op whose result is one tensor of the
/// broadcast shape; absent optional operands are dropped, and so are the
/// operands past `numData` (CastLike's target only gives a type).
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx, StringRef opName,
                      ScalarFn fn, unsigned numData)
      : ConversionPattern(converter, opName, /*benefit=*/1, ctx), fn(fn), numData(numData) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    // Strings are pointers after conversion: no arithmetic or casts on them.
    auto isString = [](Value v) { return isa<onnx::StringType>(onnxElementType(v)); };
    if (llvm::any_of(op->getOperands(), isString) || llvm::any_of(op->getResults(), isString))
      return rewriter.notifyMatchFailure(op, "string operands are not lowered elementwise");
    if (failed(defineBroadcastDataDims(rewriter, op, operands)))
      return failure();
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType resultType = typeAndSizes->first;
    SmallVector<Value> inputs;
    for (auto [i, v] : llvm::enumerate(operands.take_front(std::min<size_t>(numData, operands.size())))) {
      if (isa<NoneType>(v.getType()))
        continue;
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return rewriter.notifyMatchFailure(op, "operand is not a ranked tensor");
      if (t.getRank() > resultType.getRank())
        return rewriter.notifyMatchFailure(op, "operand has a higher rank than the result");
      // A symbolic dim under another symbol of the result (`[A] + [B]`
      // gives broadcast(A, B)) is read at 0 when it is 1.
      inputs.push_back(broadcastOperand(rewriter, op, op->getLoc(), getTypeConverter(), i, v,
                                        resultType, typeAndSizes->second));
    }
    if (inputs.empty())
      return rewriter.notifyMatchFailure(op, "no operands");
    Type elem = onnxElementType(op->getOperand(0));
    Value result = buildBroadcastGeneric(
        rewriter, op->getLoc(), resultType, inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) { return fn(b, loc, op, args, elem); });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The result dims that broadcast two dims the data decides
  /// (ShapeContext::broadcastDataDim): each operand's size at that dim,
  /// the one that is not 1 (broadcastOperand then checks every operand
  /// against it: status 9).
  LogicalResult defineBroadcastDataDims(ConversionPatternRewriter &rewriter, Operation *op,
                                        ArrayRef<Value> operands) const {
    auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
    if (!names)
      return success();
    const OnnxTypeConverter &conv = onnxConverter(getTypeConverter());
    auto outShape = conv.shapeOf(op->getResult(0));
    if (!outShape)
      return success();
    Location loc = op->getLoc();
    int64_t rank = outShape->size();
    for (auto [k, a] : llvm::enumerate(names)) {
      auto name = dyn_cast<StringAttr>(a);
      if (!name)
        continue;
      for (int64_t d = 0; d < rank; ++d) {
        if ((*outShape)[d] != onnx::Dim::named(name))
          continue;
        Value size = indexConst(rewriter, loc, 1);
        Value one = indexConst(rewriter, loc, 1);
        for (Value v : operands.take_front(std::min<size_t>(numData, operands.size()))) {
          auto t = dyn_cast<RankedTensorType>(v.getType());
          if (!t || t.getRank() < rank - d)
            continue;
          int64_t od = d - (rank - t.getRank());
          Value s = t.isDynamicDim(od) ? Value(tensor::DimOp::create(rewriter, loc, v, od))
                                       : indexConst(rewriter, loc, t.getDimSize(od));
          Value isOne = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, s, one);
          size = arith::SelectOp::create(rewriter, loc, isOne, size, s);
        }
        if (!conv.defineDataDim(rewriter, loc, op, k, size))
          return rewriter.notifyMatchFailure(op, "a broadcast dim has no bound");
      }
    }
    return success();
  }

  ScalarFn fn;
  unsigned numData;
};

/// The value of a constant boolean scalar or one-element tensor, looking
/// through the conversion's casts; nullopt when it is not a constant.
std::optional<bool> constantBool(Value v) {
  while (auto c = v.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (c.getNumOperands() != 1)
      break;
    v = c.getOperand(0);
  }
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

/// Dropout at inference: the output is the input and the mask all true.
/// Training mode (random masks) is not compiled.
struct DropoutLowering : OpConversionPattern<onnx::DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::DropoutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value training = op.getTrainingMode();
    if (!isa<NoneType>(training.getType())) {
      std::optional<bool> on = constantBool(adaptor.getTrainingMode());
      if (!on)
        on = constantBool(training);
      if (!on || *on)
        return rewriter.notifyMatchFailure(
            op, "training_mode must be absent or a constant false (inference only)");
    }
    Value mask = op.getMask();
    SmallVector<SmallVector<Value>> results;
    results.push_back({adaptor.getData()});
    if (mask.use_empty() || isa<NoneType>(mask.getType())) {
      results.push_back({});
    } else {
      auto maskType = staticResultType(rewriter, getTypeConverter(), op, 1);
      if (!maskType)
        return failure();
      results.push_back(
          {buildFilled(rewriter, op.getLoc(), maskType, rewriter.getBoolAttr(true))});
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

struct ElementwiseEntry {
  ScalarFn fn;
  unsigned numData; // operands past this one only give a type (CastLike)
};

/// Every elementwise op and its scalar computation: the lowering and the
/// constant folder build the same body, so folded and computed values agree.
const llvm::StringMap<ElementwiseEntry> &elementwiseTable() {
  static const llvm::StringMap<ElementwiseEntry> table = {
      // Arithmetic.
      {"onnx.Add", {binary<arith::AddFOp, arith::AddIOp>, ~0u}},
      {"onnx.Sub", {binary<arith::SubFOp, arith::SubIOp>, ~0u}},
      {"onnx.Mul", {binary<arith::MulFOp, arith::MulIOp>, ~0u}},
      {"onnx.Div", {binary<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>, ~0u}},
      {"onnx.Mod", {mod, ~0u}},
      {"onnx.Pow", {power, ~0u}},
      {"onnx.Sum", {variadic<arith::AddFOp, arith::AddIOp>, ~0u}},
      {"onnx.Mean", {mean, ~0u}},
      {"onnx.Max", {variadic<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>, ~0u}},
      {"onnx.Min", {variadic<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>, ~0u}},
      {"onnx.Abs", {absolute, ~0u}},
      {"onnx.Neg", {neg, ~0u}},
      {"onnx.Sign", {sign, ~0u}},
      {"onnx.Reciprocal", {reciprocal, ~0u}},
      {"onnx.Clip", {clip, ~0u}},
      // Float functions.
      {"onnx.Sqrt", {unaryFloat<math::SqrtOp>, ~0u}},
      {"onnx.Exp", {unaryFloat<math::ExpOp>, ~0u}},
      {"onnx.Log", {unaryFloat<math::LogOp>, ~0u}},
      {"onnx.Tanh", {unaryFloat<math::TanhOp>, ~0u}},
      {"onnx.Sin", {unaryFloat<math::SinOp>, ~0u}},
      {"onnx.Cos", {unaryFloat<math::CosOp>, ~0u}},
      {"onnx.Tan", {unaryFloat<math::TanOp>, ~0u}},
      {"onnx.Asin", {unaryFloat<math::AsinOp>, ~0u}},
      {"onnx.Acos", {unaryFloat<math::AcosOp>, ~0u}},
      {"onnx.Atan", {unaryFloat<math::AtanOp>, ~0u}},
      {"onnx.Sinh", {unaryFloat<math::SinhOp>, ~0u}},
      {"onnx.Cosh", {unaryFloat<math::CoshOp>, ~0u}},
      {"onnx.Asinh", {unaryFloat<math::AsinhOp>, ~0u}},
      {"onnx.Acosh", {unaryFloat<math::AcoshOp>, ~0u}},
      {"onnx.Atanh", {unaryFloat<math::AtanhOp>, ~0u}},
      {"onnx.Erf", {unaryFloatAnyType<math::ErfOp>, ~0u}},
      {"onnx.Ceil", {unaryFloat<math::CeilOp>, ~0u}},
      {"onnx.Floor", {unaryFloat<math::FloorOp>, ~0u}},
      {"onnx.Round", {unaryFloat<math::RoundEvenOp>, ~0u}},
      // Activations.
      {"onnx.Relu", {relu, ~0u}},
      {"onnx.LeakyRelu", {leakyRelu, ~0u}},
      {"onnx.PRelu", {prelu, ~0u}},
      {"onnx.Elu", {elu, ~0u}},
      {"onnx.Selu", {selu, ~0u}},
      {"onnx.Celu", {celu, ~0u}},
      {"onnx.ThresholdedRelu", {thresholdedRelu, ~0u}},
      {"onnx.HardSigmoid", {hardSigmoid, ~0u}},
      {"onnx.HardSwish", {hardSwish, ~0u}},
      {"onnx.Softplus", {softplus, ~0u}},
      {"onnx.Softsign", {softsign, ~0u}},
      {"onnx.Sigmoid", {sigmoid, ~0u}},
      {"onnx.Shrink", {shrink, ~0u}},
      // Bits and logic.
      {"onnx.BitShift", {bitShift, ~0u}},
      {"onnx.And", {logical<arith::AndIOp>, ~0u}},
      {"onnx.Or", {logical<arith::OrIOp>, ~0u}},
      {"onnx.Xor", {logical<arith::XOrIOp>, ~0u}},
      {"onnx.Not", {logicalNot, ~0u}},
      {"onnx.BitwiseAnd", {logical<arith::AndIOp>, ~0u}},
      {"onnx.BitwiseOr", {logical<arith::OrIOp>, ~0u}},
      {"onnx.BitwiseXor", {logical<arith::XOrIOp>, ~0u}},
      {"onnx.BitwiseNot", {bitwiseNot, ~0u}},
      {"onnx.Equal", {comparison<Cmp::eq>, ~0u}},
      {"onnx.Greater", {comparison<Cmp::gt>, ~0u}},
      {"onnx.GreaterOrEqual", {comparison<Cmp::ge>, ~0u}},
      {"onnx.Less", {comparison<Cmp::lt>, ~0u}},
      {"onnx.LessOrEqual", {comparison<Cmp::le>, ~0u}},
      {"onnx.Where", {where, ~0u}},
      // Types and tests.
      {"onnx.Cast", {convert, ~0u}},
      {"onnx.CastLike", {convert, 1}},
      {"onnx.BitCast", {bitCast, ~0u}},
      {"onnx.IsNaN", {isNaN, ~0u}},
      {"onnx.IsInf", {isInf, ~0u}},
      {"onnx.Identity", {identity, ~0u}},
      // Made by the graph passes.
      {"onnx.Gelu", {gelu, ~0u}},
      {"onnx.SiLU", {silu, ~0u}},
  };
  return table;
}

} // namespace

bool isElementwiseOp(Operation *op) {
  return elementwiseTable().count(op->getName().getStringRef()) != 0;
}

unsigned numElementwiseDataOperands(Operation *op) {
  auto it = elementwiseTable().find(op->getName().getStringRef());
  if (it == elementwiseTable().end())
    return 0;
  return std::min<unsigned>(it->second.numData, op->getNumOperands());
}

Value buildElementwiseScalar(OpBuilder &b, Location loc, Operation *op, ValueRange args,
                             Type elem) {
  auto it = elementwiseTable().find(op->getName().getStringRef());
  if (it == elementwiseTable().end())
    return {};
  return it->second.fn(b, loc, op, args, elem);
}

FailureOr<Value> buildActivation(OpBuilder &b, Location loc, StringRef kind,
                                 ArrayRef<float> params, Value x, Type elem) {
  auto param = [&](size_t i, double fallback) {
    return i < params.size() ? static_cast<double>(params[i]) : fallback;
  };
  if (kind.empty())
    return x;
  if (kind == "Relu")
    return relu(b, loc, nullptr, x, elem);
  if (kind == "Clip") {
    if (params.size() != 2)
      return failure();
    Type t = x.getType();
    Value lo = constantLike(b, loc, t, params[0]), hi = constantLike(b, loc, t, params[1]);
    Value r = pick(b, loc, compare(b, loc, Cmp::lt, x, lo, elem), lo, x);
    return pick(b, loc, compare(b, loc, Cmp::gt, r, hi, elem), hi, r);
  }
  if (kind == "LeakyRelu")
    return leakyReluOf(b, loc, x, param(0, 0.01f), elem);
  if (kind == "Sigmoid")
    return sigmoid(b, loc, nullptr, x, elem);
  if (kind == "HardSigmoid")
    return hardSigmoidOf(b, loc, x, param(0, 0.2f), param(1, 0.5));
  if (kind == "HardSwish")
    return hardSwish(b, loc, nullptr, x, elem);
  if (kind == "SiLU")
    return silu(b, loc, nullptr, x, elem);
  if (kind == "Gelu")
    return geluOf(b, loc, x, /*tanhApprox=*/false);
  if (kind == "GeluTanh")
    return geluOf(b, loc, x, /*tanhApprox=*/true);
  if (kind == "Tanh")
    return Value(math::TanhOp::create(b, loc, x));
  return failure();
}

void populateElementwisePatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  for (const auto &entry : elementwiseTable())
    patterns.add<ElementwiseLowering>(converter, ctx, entry.getKey(), entry.getValue().fn,
                                      entry.getValue().numData);
  patterns.add<DropoutLowering>(converter, ctx);
}

} // namespace onnxcc::lowering
