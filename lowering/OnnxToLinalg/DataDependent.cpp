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

} // namespace

void populateDataDependentPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
