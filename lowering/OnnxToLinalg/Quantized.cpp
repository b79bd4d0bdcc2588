//===- Quantized.cpp - Integer matrix products to the int8 kernels -------===//
//
// MatMulInteger whose B is a constant 8-bit matrix becomes a call to
// onnxcc_rt::kernels::igemm_packed_b (runtime-support/onnxcc_kernels_int8.h):
// B minus its zero point is packed at compile time into int16 panels, A's
// rows are converted at run time, and the int32 result is exact, as ONNX
// defines it. This is the product that ONNX Runtime's dynamic quantization
// writes (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul). Anything
// else (a B that is not constant, zero points the kernel does not take)
// keeps the linalg lowering of Misc.cpp: the pattern only matches with a
// higher benefit.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/KernelCall.h"

#include "dialects/onnx/Transforms/Constants.h"

#include "runtime-support/onnxcc_kernels.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace k = onnxcc_rt::kernels;

Value resultTensor(OpBuilder &b, Location loc, Value out, RankedTensorType type,
                   ValueRange sizes);
Value dimProduct(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to);

namespace {

bool isInt8Type(Type t) {
  auto i = dyn_cast_or_null<IntegerType>(t);
  return i && i.getWidth() == 8;
}

/// MatMulInteger(A, B, a_zero_point, b_zero_point) with B a constant 2-D
/// int8/uint8 matrix: A's leading dims are the rows; a_zero_point absent,
/// one value, or one per row of a 2-D A; b_zero_point absent, one value or
/// one per column, constant.
struct MatMulIntegerKernelLowering : KernelPattern<onnx::MatMulIntegerOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::MatMulIntegerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value a = adaptor.getA();
    auto aType = dyn_cast<RankedTensorType>(a.getType());
    if (!aType || aType.getRank() < 2 || !isInt8Type(onnxElementType(op.getA())))
      return rewriter.notifyMatchFailure(op, "A is not an 8-bit integer matrix");
    auto bType = dyn_cast<RankedTensorType>(op.getB().getType());
    std::optional<std::vector<int32_t>> b = constantInt8s(op.getB());
    if (!b || !bType || bType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "B is not a constant 8-bit matrix");
    int64_t K = bType.getDimSize(0), N = bType.getDimSize(1);
    if (aType.isDynamicDim(aType.getRank() - 1) || aType.getDimSize(aType.getRank() - 1) != K)
      return rewriter.notifyMatchFailure(op, "A's last dim is not B's K");

    std::vector<int32_t> bZeroPoints;
    if (Value zp = present(op.getBZeroPoint())) {
      std::optional<std::vector<int32_t>> values = constantInt8s(zp);
      auto t = dyn_cast<RankedTensorType>(zp.getType());
      if (!values || !t || (values->size() != 1 && (t.getRank() != 1 || t.getDimSize(0) != N)))
        return rewriter.notifyMatchFailure(
            op, "b_zero_point is not a constant scalar or one per column");
      bZeroPoints.assign(N, (*values)[0]);
      if (values->size() != 1)
        bZeroPoints = *values;
    }

    Location loc = op.getLoc();
    int32_t aZpKind = 0;
    Value aZp;
    if (Value zp = present(adaptor.getAZeroPoint())) {
      auto t = dyn_cast<RankedTensorType>(zp.getType());
      if (!t || !t.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "a_zero_point has no static shape");
      if (t.getNumElements() == 1) {
        aZpKind = 1;
      } else if (aType.getRank() == 2 && t.getRank() == 1 && !aType.isDynamicDim(0) &&
                 t.getDimSize(0) == aType.getDimSize(0)) {
        aZpKind = 2;
      } else {
        return rewriter.notifyMatchFailure(op, "a_zero_point is not a scalar or one per row");
      }
      aZp = flatBuffer(rewriter, loc, zp, /*readOnly=*/true);
    }

    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    if (yType.getRank() != aType.getRank() || yType.getDimSize(yType.getRank() - 1) != N)
      return rewriter.notifyMatchFailure(op, "the result is not A's rows by N");

    std::vector<int16_t> packed(k::packed_igemm_b_values(target, K, N));
    k::pack_igemm_b(target, b->data(), bZeroPoints.empty() ? nullptr : bZeroPoints.data(), K, N,
                    packed.data());
    bool aUnsigned = onnxElementType(op.getA()).isUnsignedInteger();
    Value aBuffer = flatBuffer(rewriter, loc, a, /*readOnly=*/true);
    KernelCall call(rewriter, loc, threads);
    call.buffer(aBuffer);
    call.i32(aUnsigned ? 1 : 0);
    call.i64(K); // lda
    call.buffer(aZp ? aZp : aBuffer);
    call.i32(aZpKind);
    call.buffer(packedConstantI16(rewriter, loc, op, "_packed", packed));
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, a, 0, aType.getRank() - 1));
    call.i64(N);
    call.i64(K);
    int64_t scratchFloats = (k::igemm_scratch_bytes(target, K) + 3) / 4;
    call.buffer(scratchBuffer(rewriter, loc, scratchFloats * threads));
    call.partition();
    call.i32(target);
    call.emit(op, "igemm_packed_b");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// DynamicQuantizeLinear of a float32 tensor: the range, scale, zero point
/// and the uint8 values in one vectorized kernel (dynamic_quantize_u8)
/// instead of a reduction and an elementwise loop nest.
struct DynamicQuantizeLinearKernelLowering : KernelPattern<onnx::DynamicQuantizeLinearOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::DynamicQuantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    if (!isF32Tensor(x))
      return rewriter.notifyMatchFailure(op, "x is not a float32 tensor");
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op, 0);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    auto scaleType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(1).getType()));
    auto zpType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(2).getType()));
    auto xType = cast<RankedTensorType>(x.getType());
    if (!scaleType || !zpType || scaleType.getRank() != 0 || zpType.getRank() != 0 ||
        yType.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "scale and zero point must be scalars");
    Location loc = op.getLoc();
    Value y = outputBuffer(rewriter, loc, yType, ySizes);
    Value scale =
        outputBuffer(rewriter, loc, RankedTensorType::get({1}, scaleType.getElementType()));
    Value zp = outputBuffer(rewriter, loc, RankedTensorType::get({1}, zpType.getElementType()));
    KernelCall call(rewriter, loc, /*parts=*/1);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    call.i64(dimProduct(rewriter, loc, x, 0, xType.getRank()));
    call.buffer(y);
    call.buffer(scale);
    call.buffer(zp);
    call.i32(target);
    call.emit(op, "dynamic_quantize_u8");
    rewriter.replaceOp(op, ValueRange{resultTensor(rewriter, loc, y, yType, ySizes),
                                      tensorFromFlatBuffer(rewriter, loc, scale, scaleType),
                                      tensorFromFlatBuffer(rewriter, loc, zp, zpType)});
    return success();
  }
};

} // namespace

void populateQuantizedKernelPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns,
                                     int isa, int64_t threads) {
  patterns.add<MatMulIntegerKernelLowering, DynamicQuantizeLinearKernelLowering>(
      converter, patterns.getContext(), isa, threads);
}

} // namespace onnxcc::lowering
