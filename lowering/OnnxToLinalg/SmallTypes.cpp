//===- SmallTypes.cpp - Casts to and from the float8/float4/int4/int2 types -===//
//
// ONNX's element types narrower than a byte or with 8-bit float layouts
// (TensorProto 17..26):
//
// - float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ), float8 E8M0 and float4 E2M1
//   stay MLIR float types; the generated code computes them in float and
//   keeps one bit pattern per byte in memory (codegen/cpp/CppEmitter.cpp,
//   runtime-support/onnxcc_rt.h). arith.truncf to them rounds to nearest
//   even without saturating; Cast's `saturate` (the default) clamps to the
//   largest finite value first, so that inf and values past the range become
//   it and NaN stays NaN. E8M0 is computed here from the float's bits with
//   Cast's `round_mode`, as ONNX's reference does.
// - int4/uint4/int2/uint2 become i8 after type conversion (one value per
//   byte, sign- or zero-extended); a cast to them converts to i32 and wraps
//   to the narrow width (two's complement), like ONNX's casts to narrower
//   integers.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/APFloat.h"

namespace onnxcc::lowering {
using namespace mlir;

bool isSmallFloat(Type t) {
  return isa_and_nonnull<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
                         Float8E5M2FNUZType, Float8E8M0FNUType, Float4E2M1FNType>(t);
}

bool isSubByteInt(Type t) {
  auto i = dyn_cast_or_null<IntegerType>(t);
  return i && i.getWidth() > 1 && i.getWidth() < 8;
}

Type accumulatorType(Type elem) {
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(elem.getContext());
  return elem;
}

Value roundAccumulator(OpBuilder &b, Location loc, Value acc, RankedTensorType type,
                       ValueRange dynamicSizes) {
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, type, dynamicSizes);
  return linalg::GenericOp::create(
             b, loc, type, acc, init, SmallVector<AffineMap>{identity, identity}, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value rounded =
                   arith::TruncFOp::create(nb, l, type.getElementType(), args[0]).getResult();
               linalg::YieldOp::create(nb, l, rounded);
             })
      .getResult(0);
}

namespace {

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(static_cast<int32_t>(v)));
}

/// `x` (f32) as a float of `to` (E8M0) with Cast's round_mode and saturate:
/// the exponent of x, rounded up (any fraction), to nearest (guard bit, ties
/// up except below the smallest normal) or down; NaN and inf give 0xff (NaN).
Value castToE8M0(OpBuilder &b, Location loc, Value x, Type to, bool saturate,
                 StringRef roundMode) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  auto andMask = [&](Value v, int64_t mask) {
    return arith::AndIOp::create(b, loc, v, i32Const(b, loc, mask));
  };
  auto nonZero = [&](Value v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, i32Const(b, loc, 0));
  };
  auto eq = [&](Value v, int64_t c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, i32Const(b, loc, c));
  };
  Value exponent = andMask(arith::ShRUIOp::create(b, loc, bits, i32Const(b, loc, 23)), 0xff);
  Value special = eq(exponent, 0xff);
  Value roundUp;
  if (roundMode == "up") {
    roundUp = nonZero(andMask(bits, 0x7fffff));
  } else if (roundMode == "nearest") {
    Value g = nonZero(andMask(bits, 0x400000));
    Value r = nonZero(andMask(bits, 0x200000));
    Value s = nonZero(andMask(bits, 0x1fffff));
    Value lsb = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, exponent,
                                      i32Const(b, loc, 0));
    Value any = arith::OrIOp::create(b, loc, arith::OrIOp::create(b, loc, r, s), lsb);
    roundUp = arith::AndIOp::create(b, loc, g, any);
  }
  Value e = exponent;
  if (roundUp) {
    if (saturate) {
      Value notMax = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, exponent,
                                           i32Const(b, loc, 0xfe));
      roundUp = arith::AndIOp::create(b, loc, roundUp, notMax);
    }
    e = arith::AddIOp::create(b, loc, e, arith::ExtUIOp::create(b, loc, i32, roundUp));
  }
  e = arith::SelectOp::create(b, loc, special, i32Const(b, loc, 0xff), e);
  // 2^(e - 127) as a float: e << 23, 2^-127 (a subnormal) for 0, NaN for 0xff.
  Value pow2 = arith::ShLIOp::create(b, loc, e, i32Const(b, loc, 23));
  pow2 = arith::SelectOp::create(b, loc, eq(e, 0), i32Const(b, loc, 0x00400000), pow2);
  pow2 = arith::SelectOp::create(b, loc, eq(e, 0xff), i32Const(b, loc, 0x7fc00000), pow2);
  Value f = arith::BitcastOp::create(b, loc, b.getF32Type(), pow2);
  return arith::TruncFOp::create(b, loc, to, f);
}

} // namespace

Value castScalarSmall(OpBuilder &b, Location loc, Value v, Type from, Type to, bool saturate,
                      StringRef roundMode) {
  Type f32 = b.getF32Type();
  if (from == to)
    return v;
  // From a sub-byte integer: its i8 holds the value.
  if (isSubByteInt(from)) {
    Type i8 = IntegerType::get(b.getContext(), 8,
                               from.isUnsignedInteger() ? IntegerType::Unsigned
                                                        : IntegerType::Signed);
    return castScalarSmall(b, loc, v, i8, to, saturate, roundMode);
  }
  // To a sub-byte integer: through i32, then wrapped to the width.
  if (isSubByteInt(to)) {
    Type si32 = IntegerType::get(b.getContext(), 32, IntegerType::Signed);
    Value w = castScalarSmall(b, loc, v, from, si32, saturate, roundMode);
    unsigned width = to.getIntOrFloatBitWidth();
    if (to.isUnsignedInteger())
      w = arith::AndIOp::create(b, loc, w, i32Const(b, loc, (1 << width) - 1));
    else
      w = arith::ShRSIOp::create(
          b, loc, arith::ShLIOp::create(b, loc, w, i32Const(b, loc, 32 - width)),
          i32Const(b, loc, 32 - width));
    return arith::TruncIOp::create(b, loc, b.getI8Type(), w);
  }
  // From a small float: exactly to f32 first.
  if (isSmallFloat(from)) {
    Value w = arith::ExtFOp::create(b, loc, f32, v);
    return castScalarSmall(b, loc, w, f32, to, saturate, roundMode);
  }
  if (!isSmallFloat(to))
    return castScalar(b, loc, v, from, to);
  // To a small float: from f32.
  Value x = castScalar(b, loc, v, from, f32);
  if (isa<Float8E8M0FNUType>(to))
    return castToE8M0(b, loc, x, to, saturate, roundMode);
  if (saturate && !isa<Float4E2M1FNType>(to)) {
    // float4 has no inf or NaN: the conversion itself saturates.
    const llvm::fltSemantics &sem = cast<FloatType>(to).getFloatSemantics();
    double largest = llvm::APFloat::getLargest(sem).convertToDouble();
    Value hi = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(largest)));
    Value lo = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(-static_cast<float>(largest)));
    x = arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, lo), hi);
  }
  return arith::TruncFOp::create(b, loc, to, x);
}

} // namespace onnxcc::lowering
