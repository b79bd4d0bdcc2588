//===- Quantized.cpp - Integer matrix products to the int8 kernels -------===//
//
// MatMulInteger whose B is a constant 8-bit matrix becomes a call to
// onnxcc_rt::kernels::igemm_packed_b (runtime-support/onnxcc_kernels_int8.h):
// B minus its zero point is packed at compile time, as int8 quads where the
// weights make pmaddubsw exact (checked here on the values), else as int16
// pairs; A's rows are converted at run time, and the int32 result is exact,
// as ONNX defines it. This is the product that ONNX Runtime's dynamic quantization
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
    std::optional<std::vector<int32_t>> b = constantIntegers(op.getB(), 8);
    if (!b || !bType || bType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "B is not a constant 8-bit matrix");
    int64_t K = bType.getDimSize(0), N = bType.getDimSize(1);
    if (aType.isDynamicDim(aType.getRank() - 1) || aType.getDimSize(aType.getRank() - 1) != K)
      return rewriter.notifyMatchFailure(op, "A's last dim is not B's K");

    std::vector<int32_t> bZeroPoints;
    if (Value zp = present(op.getBZeroPoint())) {
      std::optional<std::vector<int32_t>> values = constantIntegers(zp, 8);
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

    const int32_t *bzp = bZeroPoints.empty() ? nullptr : bZeroPoints.data();
    int32_t format = k::igemm_quads_exact(target, b->data(), bzp, K, N) ? k::kIgemmQuads
                                                                         : k::kIgemmPairs;
    std::vector<char> packed(k::packed_igemm_b_bytes(target, format, K, N));
    k::pack_igemm_b(target, format, b->data(), bzp, K, N, packed.data());
    bool aUnsigned = onnxElementType(op.getA()).isUnsignedInteger();
    Value aBuffer = flatBuffer(rewriter, loc, a, /*readOnly=*/true);
    KernelCall call(rewriter, loc, threads);
    call.buffer(aBuffer);
    call.i32(aUnsigned ? 1 : 0);
    call.i64(K); // lda
    call.buffer(aZp ? aZp : aBuffer);
    call.i32(aZpKind);
    call.buffer(packedConstantBytes(rewriter, loc, op, "_packed", packed));
    call.i32(format);
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

/// One constant element of `v` as a float: a float32 scale, or an 8-bit
/// zero point; nullopt when `v` is something else.
std::optional<float> scalarConstant(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1)
    return std::nullopt;
  if (t.getElementType().isF32()) {
    auto values = constantFloats(v);
    return values ? std::optional<float>((*values)[0]) : std::nullopt;
  }
  auto values = constantIntegers(v, 8);
  return values ? std::optional<float>(static_cast<float>((*values)[0])) : std::nullopt;
}

/// The single constant float32 value of `v`, or nullopt.
std::optional<float> scalarFloat(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1 || !t.getElementType().isF32())
    return std::nullopt;
  auto values = constantFloats(v);
  return values ? std::optional<float>((*values)[0]) : std::nullopt;
}

/// QLinearConv of a static 2-D, one-group convolution with constant 8-bit
/// weights, per-tensor or per-channel weight scales and zero points, and
/// constant x_scale, y_scale and y_zero_point: qconv_packed_w, the int8
/// GEMM over a channels-last copy (or an im2col) of the input with the
/// requantization of the loop lowering (the same bytes). What a QDQ convolution becomes too
/// (onnx-recognize). Others keep the loops of Convolution.cpp.
struct QLinearConvKernelLowering : KernelPattern<onnx::QLinearConvOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::QLinearConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    auto wType = dyn_cast<RankedTensorType>(op.getW().getType());
    if (!xType || !yType || !wType || !xType.hasStaticShape() || xType.getRank() != 4 ||
        yType.getRank() != 4 || wType.getRank() != 4 || !wType.hasStaticShape() ||
        !isInt8Type(onnxElementType(op.getX())) || !isInt8Type(onnxElementType(op.getY())) ||
        op.getGroup() != 1)
      return rewriter.notifyMatchFailure(op, "not a static 2-D one-group 8-bit convolution");
    std::optional<std::vector<int32_t>> w = constantIntegers(op.getW(), 8);
    if (!w)
      return rewriter.notifyMatchFailure(op, "W is not a constant 8-bit tensor");
    const int64_t batch = xType.getDimSize(0), C = xType.getDimSize(1);
    const int64_t M = wType.getDimSize(0);
    if (yType.getDimSize(0) != batch || yType.getDimSize(1) != M)
      return rewriter.notifyMatchFailure(op, "the dims of X, W and Y disagree");
    auto window = resolveConvWindow(rewriter, op, xType, wType, yType);
    if (failed(window))
      return failure();
    // Per-output-channel parameters: one value, or M of them.
    auto perChannel = [&](std::optional<std::vector<float>> v) -> std::optional<std::vector<float>> {
      if (!v || (v->size() != 1 && static_cast<int64_t>(v->size()) != M))
        return std::nullopt;
      if (v->size() == 1)
        v->assign(M, (*v)[0]);
      return v;
    };
    std::optional<float> xScale = scalarFloat(op.getXScale()), yScale = scalarFloat(op.getYScale());
    std::optional<float> yZp = scalarConstant(op.getYZeroPoint());
    auto wScaleType = dyn_cast<RankedTensorType>(op.getWScale().getType());
    std::optional<std::vector<float>> wScale;
    if (wScaleType && wScaleType.getElementType().isF32() && wScaleType.getRank() <= 1)
      wScale = perChannel(constantFloats(op.getWScale()));
    if (!xScale || !yScale || !yZp || !wScale)
      return rewriter.notifyMatchFailure(
          op, "scales and the output zero point are not constants of the kernel's forms");
    std::vector<int32_t> wZp;
    if (Value zp = present(op.getWZeroPoint())) {
      std::optional<std::vector<int32_t>> values = constantIntegers(zp, 8);
      auto t = dyn_cast<RankedTensorType>(zp.getType());
      if (!values || !t || t.getRank() > 1 ||
          (values->size() != 1 && static_cast<int64_t>(values->size()) != M))
        return rewriter.notifyMatchFailure(op, "w_zero_point is not constant, one or per channel");
      wZp.assign(M, (*values)[0]);
      if (values->size() != 1)
        wZp = *values;
    }
    Value xZp = present(adaptor.getXZeroPoint());
    auto xZpType = xZp ? dyn_cast<RankedTensorType>(xZp.getType()) : RankedTensorType();
    if (!xZp || !xZpType || !xZpType.hasStaticShape() || xZpType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "x_zero_point is not one value");
    Value bias = present(adaptor.getB());
    if (bias) {
      auto t = dyn_cast<RankedTensorType>(bias.getType());
      if (!t || t.getRank() != 1 || t.getDimSize(0) != M || !t.getElementType().isInteger(32))
        return rewriter.notifyMatchFailure(op, "B is not an int32 [M] tensor");
    }

    // W [M][C][KH][KW] as B [K][M], K in the order of the kernel's input
    // layout: (ky, kx, c) read from a channels-last copy whose channels are
    // rounded up to 4 (Cp; the extra rows of B hold the zero points, so
    // they add nothing) where that adds at most a third to K (an RGB
    // stem's 3 channels: 4), else (c, ky, kx) of an im2col. The
    // requantization multiplier per channel as the loops compute it:
    // (x_scale * w_scale) / y_scale in float32.
    const int64_t KH = window->kernel[0], KW = window->kernel[1], area = KH * KW;
    const int64_t Cp = (C + 3) / 4 * 4;
    const int32_t layout = Cp * 3 <= C * 4 ? k::kQconvChannels : k::kQconvIm2col;
    const int64_t K = (layout == k::kQconvChannels ? Cp : C) * area;
    std::vector<int32_t> b(K * M);
    for (int64_t o = 0; o < M; ++o)
      for (int64_t c = 0; c < (layout == k::kQconvChannels ? Cp : C); ++c)
        for (int64_t at = 0; at < area; ++at) {
          int64_t kk = layout == k::kQconvChannels ? at * Cp + c : c * area + at;
          b[kk * M + o] = c < C ? (*w)[(o * C + c) * area + at] : (wZp.empty() ? 0 : wZp[o]);
        }
    std::vector<float> mult(M);
    for (int64_t o = 0; o < M; ++o) {
      float product = *xScale * (*wScale)[o];
      mult[o] = product / *yScale;
    }
    const int32_t *bzp = wZp.empty() ? nullptr : wZp.data();
    int32_t format =
        k::igemm_quads_exact(target, b.data(), bzp, K, M) ? k::kIgemmQuads : k::kIgemmPairs;
    std::vector<char> packed(k::packed_igemm_b_bytes(target, format, K, M));
    k::pack_igemm_b(target, format, b.data(), bzp, K, M, packed.data());
    const bool yUnsigned = onnxElementType(op.getY()).isUnsignedInteger();

    Location loc = op.getLoc();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, adaptor.getX(), /*readOnly=*/true));
    call.i32(onnxElementType(op.getX()).isUnsignedInteger() ? 1 : 0);
    call.buffer(flatBuffer(rewriter, loc, xZp, /*readOnly=*/true));
    for (int64_t v : {batch, C, xType.getDimSize(2), xType.getDimSize(3), window->kernel[0],
                      window->kernel[1], window->strides[0], window->strides[1],
                      window->dilations[0], window->dilations[1], window->padBegin[0],
                      window->padBegin[1], yType.getDimSize(2), yType.getDimSize(3)})
      call.i64(v);
    call.i32(layout);
    Value packedW = packedConstantBytes(rewriter, loc, op, "_packed", packed);
    call.buffer(packedW);
    call.i32(format);
    call.i64(M);
    Value multBuffer = packedConstant(rewriter, loc, op, "_mult", mult);
    call.buffer(bias ? flatBuffer(rewriter, loc, bias, /*readOnly=*/true) : multBuffer);
    call.i32(bias ? 1 : 0);
    call.buffer(multBuffer);
    call.f32(*yZp);
    call.f32(yUnsigned ? 0.0f : -128.0f);
    call.f32(yUnsigned ? 255.0f : 127.0f);
    call.i32(yUnsigned ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType);
    call.buffer(out);
    int64_t padded = k::qconv_padded_bytes(
        layout, C, KH, KW, window->strides[0], window->strides[1], window->dilations[0],
        window->dilations[1], yType.getDimSize(2), yType.getDimSize(3));
    int64_t scratchFloats = (k::qconv_scratch_bytes(target, K, M, padded) + 3) / 4;
    call.buffer(scratchBuffer(rewriter, loc, scratchFloats * threads));
    call.partition();
    call.i32(target);
    call.emit(op, "qconv_packed_w");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, {}));
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

/// A's rows at most this many (static) for the 4-bit weight-only kernel;
/// more rows take the float GEMM on weights dequantized at compile time.
constexpr int64_t kQ4MaxRows = 16;

/// The 4-bit weights of DequantizeLinear `dq` as the q4 kernel packs them:
/// Q [K, N] constant int4/uint4, scale and zero point per block of K (axis
/// 0, block_size), per column (axis 1) or per tensor.
struct Q4Weights {
  int64_t K = 0, N = 0, block = 0;
  bool isSigned = true;
  std::vector<int32_t> q, zp;   // zp empty: 0
  std::vector<float> scale;     // [ceil(K / block)][N]
};

std::optional<Q4Weights> q4Weights(onnx::DequantizeLinearOp dq, bool readValues) {
  auto xType = dyn_cast<RankedTensorType>(dq.getX().getType());
  auto yType = dyn_cast<RankedTensorType>(dq.getY().getType());
  auto elem = xType ? dyn_cast<IntegerType>(xType.getElementType()) : nullptr;
  auto scaleType = dyn_cast<RankedTensorType>(dq.getXScale().getType());
  if (!elem || elem.getWidth() != 4 || xType.getRank() != 2 || !xType.hasStaticShape() ||
      !yType || !yType.getElementType().isF32() || !scaleType || !scaleType.hasStaticShape() ||
      !scaleType.getElementType().isF32() || !onnx::staticConstantValue(dq.getX()) ||
      !onnx::staticConstantValue(dq.getXScale()))
    return std::nullopt;
  Q4Weights w;
  w.K = xType.getDimSize(0);
  w.N = xType.getDimSize(1);
  w.isSigned = !elem.isUnsigned();
  int64_t axis = dq.getAxis() < 0 ? dq.getAxis() + 2 : dq.getAxis();
  int64_t blockSize = 0;
  if (auto a = dq->getAttrOfType<IntegerAttr>("onnxcc.block_size"))
    blockSize = a.getInt();
  // Which parameter layout: [ceil(K/B), N] blocked along K, [N] per
  // column, or one value.
  enum { PerTensor, PerColumn, Blocked } kind;
  if (scaleType.getNumElements() == 1) {
    kind = PerTensor;
    w.block = std::max<int64_t>(w.K, 1);
  } else if (blockSize > 0 && axis == 0 && scaleType.getRank() == 2 &&
             scaleType.getDimSize(0) == (w.K + blockSize - 1) / blockSize &&
             scaleType.getDimSize(1) == w.N) {
    kind = Blocked;
    w.block = blockSize;
  } else if (blockSize == 0 && axis == 1 && scaleType.getRank() == 1 &&
             scaleType.getDimSize(0) == w.N) {
    kind = PerColumn;
    w.block = std::max<int64_t>(w.K, 1);
  } else {
    return std::nullopt;
  }
  Value zpValue = present(dq.getXZeroPoint());
  if (zpValue) {
    auto t = dyn_cast<RankedTensorType>(zpValue.getType());
    if (!t || t.getShape() != scaleType.getShape() || !onnx::staticConstantValue(zpValue))
      return std::nullopt;
  }
  if (!readValues)
    return w;
  auto q = constantIntegers(dq.getX(), 4);
  auto scale = constantFloats(dq.getXScale());
  if (!q || !scale)
    return std::nullopt;
  std::optional<std::vector<int32_t>> zp;
  if (zpValue && !(zp = constantIntegers(zpValue, 4)))
    return std::nullopt;
  w.q = std::move(*q);
  const int64_t blocks = (w.K + w.block - 1) / w.block;
  w.scale.resize(blocks * w.N);
  if (zp)
    w.zp.resize(blocks * w.N);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t n = 0; n < w.N; ++n) {
      int64_t at = kind == PerTensor ? 0 : kind == PerColumn ? n : b * w.N + n;
      w.scale[b * w.N + n] = (*scale)[at];
      if (zp)
        w.zp[b * w.N + n] = (*zp)[at];
    }
  return w;
}

/// The parts of a FusedMatMul the q4 kernel computes: a bias that varies
/// along the columns only, a Z of the result's shape, a kernel activation.
template <typename OpTy> bool q4Epilogue(OpTy op) {
  if constexpr (std::is_same_v<OpTy, onnx::FusedMatMulOp>) {
    auto yType = dyn_cast<RankedTensorType>(op.getY().getType());
    if (!yType || !yType.hasStaticShape())
      return false;
    if (Value bias = present(op.getBias())) {
      auto t = dyn_cast<RankedTensorType>(bias.getType());
      if (!t || !t.hasStaticShape() || t.getRank() == 0 ||
          t.getDimSize(t.getRank() - 1) != yType.getDimSize(yType.getRank() - 1) ||
          t.getNumElements() != t.getDimSize(t.getRank() - 1))
        return false;
    }
    if (Value z = present(op.getZ()))
      if (z.getType() != op.getY().getType())
        return false;
    return kernelActivation(op.getActivation(), op.getActivationParams()).has_value();
  }
  return true;
}

/// Whether MatMul or FusedMatMul `op` reads 4-bit weights through `dq` as
/// its B, with A a float matrix of at most kQ4MaxRows rows (static), K
/// matching and an epilogue the kernel computes.
template <typename OpTy> bool isQ4MatMul(OpTy op, onnx::DequantizeLinearOp dq) {
  if (op.getB().getDefiningOp() != dq.getOperation() || op.getA() == op.getB() ||
      !q4Epilogue(op))
    return false;
  auto aType = dyn_cast<RankedTensorType>(op.getA().getType());
  auto xType = dyn_cast<RankedTensorType>(dq.getX().getType());
  if (!aType || !aType.getElementType().isF32() || aType.getRank() < 2 || !xType ||
      !aType.hasStaticShape())
    return false;
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < aType.getRank(); ++d)
    rows *= aType.getDimSize(d);
  return rows <= kQ4MaxRows && aType.getDimSize(aType.getRank() - 1) == xType.getDimSize(0);
}

/// MatMul (or FusedMatMul) of A and DequantizeLinear(Q int4, scale[,
/// zero_point]) of few rows: gemm_q4 reads the 4-bit weights, widened in
/// registers, instead of float weights eight times their size (a decode
/// step is memory-bound).
template <typename OpTy> struct Q4MatMulKernelLowering : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;
  using KernelPattern<OpTy>::target;
  using KernelPattern<OpTy>::threads;
  static constexpr bool isFused = std::is_same_v<OpTy, onnx::FusedMatMulOp>;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto dq = op.getB().template getDefiningOp<onnx::DequantizeLinearOp>();
    if (!dq || !isQ4MatMul(op, dq))
      return rewriter.notifyMatchFailure(op, "B is not 4-bit weights of a few-row MatMul");
    std::optional<Q4Weights> w = q4Weights(dq, /*readValues=*/true);
    if (!w)
      return rewriter.notifyMatchFailure(op, "weights the q4 kernel does not read");
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    Value a = adaptor.getA();
    auto aType = cast<RankedTensorType>(a.getType());
    if (yType.getRank() != aType.getRank() || yType.getDimSize(yType.getRank() - 1) != w->N)
      return rewriter.notifyMatchFailure(op, "the result is not A's rows by N");
    Location loc = op.getLoc();
    KernelActivation act;
    Value bias, z;
    if constexpr (isFused) {
      act = *kernelActivation(op.getActivation(), op.getActivationParams());
      if (present(op.getBias()))
        bias = flatBuffer(rewriter, loc, adaptor.getBias(), /*readOnly=*/true);
      if (present(op.getZ()))
        z = flatBuffer(rewriter, loc, adaptor.getZ(), /*readOnly=*/true);
    }
    std::vector<char> packed(k::packed_q4_bytes(w->K, w->N, w->block));
    std::vector<float> params(k::packed_q4_param_floats(w->K, w->N, w->block));
    k::pack_q4(w->q.data(), w->scale.data(), w->zp.empty() ? nullptr : w->zp.data(), w->isSigned,
               w->K, w->N, w->block, reinterpret_cast<uint8_t *>(packed.data()), params.data());
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, a, /*readOnly=*/true));
    call.i64(w->K); // lda
    call.buffer(packedConstantBytes(rewriter, loc, op, "_q4", packed));
    Value paramBuffer = packedConstant(rewriter, loc, op, "_q4_params", params);
    call.buffer(paramBuffer);
    call.buffer(bias ? bias : paramBuffer);
    call.i32(bias ? 1 : 0);
    call.buffer(z ? z : paramBuffer);
    call.i32(z ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, a, 0, aType.getRank() - 1));
    call.i64(w->N);
    call.i64(w->K);
    call.i64(w->block);
    call.activation(act);
    call.partition();
    call.i32(target);
    call.emit(op, "gemm_q4");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// The per-tensor parameters of QuantizeLinear `q` to 8 bits: one
/// constant float32 scale and zero point (0 when absent) and the range it
/// saturates to.
struct QuantizeParams {
  float scale, zp, lo, hi;
  bool isUnsigned;
};
std::optional<QuantizeParams> quantizeParams(onnx::QuantizeLinearOp q) {
  auto qType = dyn_cast<IntegerType>(onnxElementType(q.getY()));
  if (!qType || qType.getWidth() != 8)
    return std::nullopt;
  std::optional<float> scale = scalarFloat(q.getYScale());
  std::optional<float> zp = present(q.getYZeroPoint()) ? scalarConstant(q.getYZeroPoint())
                                                       : std::optional<float>(0.0f);
  if (!scale || !zp)
    return std::nullopt;
  bool isUnsigned = qType.isUnsigned();
  return QuantizeParams{*scale, *zp, isUnsigned ? 0.0f : -128.0f, isUnsigned ? 255.0f : 127.0f,
                        isUnsigned};
}
/// The scale, zero point and range of `p` as kernel arguments.
void addQuantizeArgs(KernelCall &call, const QuantizeParams &p) {
  call.f32(p.scale);
  call.f32(p.zp);
  call.f32(p.lo);
  call.f32(p.hi);
}

/// The per-tensor parameters of DequantizeLinear `dq` of 8-bit values:
/// its scale and zero point (0 when absent) as floats.
std::optional<std::pair<float, float>> dequantizeParams(onnx::DequantizeLinearOp dq) {
  if (!isInt8Type(onnxElementType(dq.getX())))
    return std::nullopt;
  std::optional<float> scale = scalarFloat(dq.getXScale());
  std::optional<float> zp = present(dq.getXZeroPoint()) ? scalarConstant(dq.getXZeroPoint())
                                                        : std::optional<float>(0.0f);
  if (!scale || !zp)
    return std::nullopt;
  return std::make_pair(*scale, *zp);
}

/// QuantizeLinear `q` of [Relu](Add(DequantizeLinear(a),
/// DequantizeLinear(b))) per tensor, without broadcasting, the Add and the
/// Relu read only there: what qdq_add_8 computes.
struct QdqAdd {
  onnx::DequantizeLinearOp a, b;
  std::pair<float, float> pa, pb;
  QuantizeParams q;
  bool relu = false;
};
std::optional<QdqAdd> matchQdqAdd(onnx::QuantizeLinearOp q) {
  QdqAdd m;
  Operation *producer = q.getX().getDefiningOp();
  if (auto r = dyn_cast_or_null<onnx::ReluOp>(producer)) {
    if (!r->hasOneUse())
      return std::nullopt;
    m.relu = true;
    producer = r.getX().getDefiningOp();
  }
  auto add = dyn_cast_or_null<onnx::AddOp>(producer);
  if (!add || !add->hasOneUse() || add.getA() == add.getB())
    return std::nullopt;
  m.a = add.getA().getDefiningOp<onnx::DequantizeLinearOp>();
  m.b = add.getB().getDefiningOp<onnx::DequantizeLinearOp>();
  if (!m.a || !m.b || m.a.getY().getType() != add.getC().getType() ||
      m.b.getY().getType() != add.getC().getType() || !isF32Tensor(add.getC()))
    return std::nullopt;
  auto pa = dequantizeParams(m.a), pb = dequantizeParams(m.b);
  auto qp = quantizeParams(q);
  if (!pa || !pb || !qp)
    return std::nullopt;
  m.pa = *pa;
  m.pb = *pb;
  m.q = *qp;
  return m;
}

/// Whether every reader of `dq` is an Add whose QuantizeLinear qdq_add_8
/// computes from dq's quantized input: dq itself is then dead.
bool onlyFeedsQdqAdds(onnx::DequantizeLinearOp dq) {
  return !dq->use_empty() && llvm::all_of(dq->getUsers(), [](Operation *user) {
    if (!isa<onnx::AddOp>(user) || !user->hasOneUse())
      return false;
    Operation *next = *user->getUsers().begin();
    if (isa<onnx::ReluOp>(next) && next->hasOneUse())
      next = *next->getUsers().begin();
    auto q = dyn_cast<onnx::QuantizeLinearOp>(next);
    return q && matchQdqAdd(q).has_value();
  });
}

/// Whether quantize_dequantize takes DequantizeLinear `dq` of a
/// QuantizeLinear of floats read only there, per tensor: not when
/// qdq_add_8 computes that QuantizeLinear (dq then dequantizes its bytes)
/// or reads dq's quantized input instead of dq.
bool quantizeDequantizeTakes(onnx::DequantizeLinearOp dq) {
  auto q = dq.getX().getDefiningOp<onnx::QuantizeLinearOp>();
  auto yType = dyn_cast<RankedTensorType>(dq.getY().getType());
  Value dz = present(dq.getXZeroPoint());
  return q && q->hasOneUse() && isF32Tensor(q.getX()) && yType &&
         yType.getElementType().isF32() && quantizeParams(q) && scalarFloat(dq.getXScale()) &&
         (!dz || scalarConstant(dz)) && !matchQdqAdd(q) && !onlyFeedsQdqAdds(dq);
}

/// DequantizeLinear(QuantizeLinear(x)) per tensor with constant scales and
/// zero points (the activations of a QDQ graph): one vectorized pass,
/// quantize_dequantize, instead of a loop whose rounding and saturation
/// calls do not vectorize. The QuantizeLinear, read only here, is left
/// dead (quantizeDequantizeTakes says which pairs).
struct QuantizeDequantizeKernelLowering : KernelPattern<onnx::DequantizeLinearOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::DequantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!quantizeDequantizeTakes(op))
      return rewriter.notifyMatchFailure(
          op, "not a per-tensor QuantizeLinear of floats read only here, or qdq_add_8's");
    auto q = op.getX().getDefiningOp<onnx::QuantizeLinearOp>();
    std::optional<QuantizeParams> qp = quantizeParams(q);
    std::optional<std::pair<float, float>> dp = dequantizeParams(op);
    Value dzValue = present(op.getXZeroPoint());
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [outType, outSizes] = *typeAndSizes;
    // The converted operand of the QuantizeLinear: its x.
    Value x = rewriter.getRemappedValue(q.getX());
    if (!x || !isa<RankedTensorType>(x.getType()))
      return rewriter.notifyMatchFailure(op, "x has no converted value");
    auto xType = cast<RankedTensorType>(x.getType());
    if (xType.getRank() != outType.getRank())
      return rewriter.notifyMatchFailure(op, "x and y ranks differ");
    Location loc = op.getLoc();
    Value out = outputBuffer(rewriter, loc, outType, outSizes);
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, x, 0, xType.getRank()));
    addQuantizeArgs(call, *qp);
    call.f32(dp->first);
    call.f32(dp->second);
    call.i32(dzValue ? 1 : 0);
    call.partition();
    call.i32(target);
    call.emit(op, "quantize_dequantize");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, outType, outSizes));
    return success();
  }
};

/// QuantizeLinear per tensor (one constant float32 scale and zero point)
/// of a float32 tensor to 8 bits: quantize_linear_8, vectorized, instead of
/// a loop whose rounding and saturation calls do not vectorize. A
/// QuantizeLinear read only by a DequantizeLinear that
/// QuantizeDequantizeKernelLowering takes is left to it (the pair in one
/// pass).
struct QuantizeLinearKernelLowering : KernelPattern<onnx::QuantizeLinearOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::QuantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op->hasOneUse())
      if (auto dq = dyn_cast<onnx::DequantizeLinearOp>(*op->getUsers().begin());
          dq && quantizeDequantizeTakes(dq))
        return rewriter.notifyMatchFailure(op, "read by one DequantizeLinear: the pair's kernel");
    std::optional<QuantizeParams> qp = quantizeParams(op);
    if (!isF32Tensor(adaptor.getX()) || !qp)
      return rewriter.notifyMatchFailure(
          op, "not float32 to 8 bits with a constant scalar scale and zero point");
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    if (xType.getRank() != yType.getRank())
      return rewriter.notifyMatchFailure(op, "x and y ranks differ");
    Location loc = op.getLoc();
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, x, 0, xType.getRank()));
    addQuantizeArgs(call, *qp);
    call.i32(qp->isUnsigned ? 1 : 0);
    call.partition();
    call.i32(target);
    call.emit(op, "quantize_linear_8");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// QuantizeLinear([Relu](Add(DequantizeLinear(a), DequantizeLinear(b))))
/// per tensor, without broadcasting: the residual additions of a QDQ
/// graph, one vectorized pass (qdq_add_8) from the quantized inputs to the
/// quantized output instead of four loops (the Add and Relu, read only
/// here, are left dead, and so are DequantizeLinears read only by such
/// Adds: onlyFeedsQdqAdds).
struct QdqAddKernelLowering : KernelPattern<onnx::QuantizeLinearOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::QuantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::optional<QdqAdd> m = matchQdqAdd(op);
    if (!m || !isF32Tensor(adaptor.getX()))
      return rewriter.notifyMatchFailure(op, "not a per-tensor QDQ Add read only here");
    onnx::DequantizeLinearOp da = m->a, db = m->b;
    Value a = rewriter.getRemappedValue(da.getX()), b = rewriter.getRemappedValue(db.getX());
    if (!a || !b || !isa<RankedTensorType>(a.getType()) || a.getType() != b.getType())
      return rewriter.notifyMatchFailure(op, "the quantized inputs have no converted values");
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    auto aType = cast<RankedTensorType>(a.getType());
    if (aType.getRank() != yType.getRank() || aType.getShape() != yType.getShape())
      return rewriter.notifyMatchFailure(op, "shapes differ");
    Location loc = op.getLoc();
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, a, /*readOnly=*/true));
    call.i32(onnxElementType(da.getX()).isUnsignedInteger() ? 1 : 0);
    call.f32(m->pa.first);
    call.f32(m->pa.second);
    call.buffer(flatBuffer(rewriter, loc, b, /*readOnly=*/true));
    call.i32(onnxElementType(db.getX()).isUnsignedInteger() ? 1 : 0);
    call.f32(m->pb.first);
    call.f32(m->pb.second);
    call.i32(m->relu ? 1 : 0);
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, a, 0, aType.getRank()));
    addQuantizeArgs(call, m->q);
    call.i32(m->q.isUnsigned ? 1 : 0);
    call.partition();
    call.i32(target);
    call.emit(op, "qdq_add_8");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

} // namespace

bool quantizedKernelTakesSymbolicDims(Operation *op) {
  if (auto dql = dyn_cast<onnx::DynamicQuantizeLinearOp>(op))
    return isF32Tensor(dql.getX());
  if (auto mm = dyn_cast<onnx::MatMulIntegerOp>(op)) {
    auto aType = dyn_cast<RankedTensorType>(mm.getA().getType());
    auto bType = dyn_cast<RankedTensorType>(mm.getB().getType());
    Value aZp = present(mm.getAZeroPoint());
    auto aZpType = aZp ? dyn_cast<RankedTensorType>(aZp.getType()) : RankedTensorType();
    return aType && aType.getRank() >= 2 && !aType.isDynamicDim(aType.getRank() - 1) &&
           bType && bType.getRank() == 2 && bType.hasStaticShape() &&
           onnx::staticConstantValue(mm.getB()) &&
           (!aZp || (aZpType && aZpType.hasStaticShape() && aZpType.getNumElements() == 1));
  }
  return false;
}

bool feedsQ4Kernel(Operation *op) {
  auto dq = dyn_cast<onnx::DequantizeLinearOp>(op);
  if (!dq || dq->use_empty() || !q4Weights(dq, /*readValues=*/false))
    return false;
  return llvm::all_of(dq->getUsers(), [&](Operation *user) {
    if (auto matmul = dyn_cast<onnx::MatMulOp>(user))
      return isQ4MatMul(matmul, dq);
    if (auto fused = dyn_cast<onnx::FusedMatMulOp>(user))
      return isQ4MatMul(fused, dq);
    return false;
  });
}

namespace {
} // namespace

void populateQuantizedKernelPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns,
                                     int isa, int64_t threads) {
  patterns.add<MatMulIntegerKernelLowering, DynamicQuantizeLinearKernelLowering,
               QuantizeDequantizeKernelLowering, QLinearConvKernelLowering,
               QuantizeLinearKernelLowering>(converter, patterns.getContext(), isa, threads);
  // Above MatMulKernelLowering (a MatMul of two activations: B is not a
  // constant to it).
  patterns.add<Q4MatMulKernelLowering<onnx::MatMulOp>, Q4MatMulKernelLowering<onnx::FusedMatMulOp>>(
      converter, patterns.getContext(), isa, threads, /*benefit=*/3);
  // Above QuantizeLinearKernelLowering: the whole residual addition.
  patterns.add<QdqAddKernelLowering>(converter, patterns.getContext(), isa, threads,
                                     /*benefit=*/3);
}

} // namespace onnxcc::lowering
