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

using namespace mlir;

namespace onnxcc::lowering {

Value buildFilled(OpBuilder &b, Location loc, RankedTensorType type, TypedAttr value) {
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

Value buildBroadcastGeneric(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange operands,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<AffineExpr> exprs;
    int64_t offset = rank - t.getRank();
    for (int64_t d = 0; d < t.getRank(); ++d) {
      bool broadcast = t.getDimSize(d) == 1 && resultType.getDimSize(offset + d) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + d, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  Value init =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, operands, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value castScalar(OpBuilder &b, Location loc, Value v, Type from, Type to) {
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
/// scalar operands, `elem` the onnx element type of operand 0 (signedness).
using ScalarFn = Value (*)(OpBuilder &, Location, Operation *, ValueRange args, Type elem);

Value constantLike(OpBuilder &b, Location loc, Type t, double v) {
  if (isa<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, static_cast<int64_t>(v)));
}

template <typename FOp, typename SIOp, typename UIOp = SIOp>
Value binaryArith(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  if (isa<FloatType>(elem))
    return FOp::create(b, loc, args[0], args[1]);
  if (elem.isUnsignedInteger())
    return UIOp::create(b, loc, args[0], args[1]);
  return SIOp::create(b, loc, args[0], args[1]);
}

template <typename FOp>
Value unaryFloat(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  return FOp::create(b, loc, args[0]);
}

Value relu(OpBuilder &b, Location loc, Operation *, ValueRange args, Type elem) {
  Value zero = constantLike(b, loc, args[0].getType(), 0);
  if (isa<FloatType>(elem))
    return arith::MaximumFOp::create(b, loc, args[0], zero);
  return arith::MaxSIOp::create(b, loc, args[0], zero);
}

Value sigmoid(OpBuilder &b, Location loc, Operation *, ValueRange args, Type) {
  Type t = args[0].getType();
  Value one = constantLike(b, loc, t, 1);
  Value neg = arith::NegFOp::create(b, loc, args[0]);
  Value e = math::ExpOp::create(b, loc, neg);
  Value den = arith::AddFOp::create(b, loc, one, e);
  return arith::DivFOp::create(b, loc, one, den);
}

Value identity(OpBuilder &, Location, Operation *, ValueRange args, Type) { return args[0]; }

/// Converts an elementwise onnx op whose operands are all present tensors.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx, StringRef opName,
                      ScalarFn fn)
      : ConversionPattern(converter, opName, /*benefit=*/1, ctx), fn(fn) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticResultType(rewriter, getTypeConverter(), op);
    if (!resultType)
      return failure();
    SmallVector<Value> inputs;
    for (Value v : operands) {
      if (isa<NoneType>(v.getType()))
        continue;
      if (!isa<RankedTensorType>(v.getType()))
        return rewriter.notifyMatchFailure(op, "operand is not a ranked tensor");
      inputs.push_back(v);
    }
    Type elem = onnxElementType(op->getOperand(0));
    Value result = buildBroadcastGeneric(
        rewriter, op->getLoc(), resultType, inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) { return fn(b, loc, op, args, elem); });
    rewriter.replaceOp(op, result);
    return success();
  }

  ScalarFn fn;
};

} // namespace

void populateElementwisePatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto add = [&](StringRef name, ScalarFn fn) {
    patterns.add<ElementwiseLowering>(converter, ctx, name, fn);
  };
  add("onnx.Add", binaryArith<arith::AddFOp, arith::AddIOp>);
  add("onnx.Sub", binaryArith<arith::SubFOp, arith::SubIOp>);
  add("onnx.Mul", binaryArith<arith::MulFOp, arith::MulIOp>);
  add("onnx.Div", binaryArith<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>);
  add("onnx.Relu", relu);
  add("onnx.Sigmoid", sigmoid);
  add("onnx.Tanh", unaryFloat<math::TanhOp>);
  add("onnx.Exp", unaryFloat<math::ExpOp>);
  add("onnx.Sqrt", unaryFloat<math::SqrtOp>);
  add("onnx.Identity", identity);
}

} // namespace onnxcc::lowering
