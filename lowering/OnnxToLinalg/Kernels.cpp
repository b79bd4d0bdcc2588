//===- Kernels.cpp - Heavy ops to calls into runtime-support kernels -----===//
//
// With a kernel ISA chosen (the pass option `kernels`), float32 Conv, Gemm
// and MatMul with constant weights, and their fused forms, become calls to
// the kernels of runtime-support/onnxcc_kernels.h instead of loop nests:
//
//   Conv / FusedConv   onnxcc_rt::kernels::conv2d: im2col + register-blocked
//                      GEMM over weights packed here, at compile time, into
//                      the kernel's panel layout; depthwise convolutions
//                      (group == C == M) go to depthwise_conv2d, and 3x3
//                      stride-1 ones, where the header's winograd_applies
//                      says it pays, to conv2d_winograd (weights transformed
//                      here).
//   Gemm / FusedGemm,  onnxcc_rt::kernels::gemm_packed_b: A's rows times the
//   MatMul / FusedMatMul  constant B packed into column panels (Gemm's alpha
//                      folded into the packing, beta into the bias).
//   ScaledDotProductAttention, LayerNormalization and Softmax (over the last
//                      dim)  attention, layer_norm and softmax.
//   MaxPool (2-D), GlobalAveragePool  max_pool2d, global_avg_pool.
//   FusedConvNHWC (onnx-channels-last)  depthwise_conv2d_nhwc (channels in
//                      the vector) or conv2d_nhwc (im2col rows + the packed-B
//                      GEMM; a 1x1 convolution is the GEMM itself); 3x3
//                      stride-1 ones on small planes, where
//                      winograd_nhwc_applies, to conv2d_winograd_nhwc
//                      (F(2x2, 3x3)).
//   ReduceMean over consecutive axes  reduce_mean_mid.
//
// The epilogue (bias, residual Z, activation) runs inside the kernel as it
// stores each tile. The packing and sizing functions are the header's own,
// compiled into onnxcc, so the layout has a single definition. Anything
// these patterns do not take (other dtypes, non-constant weights, 1-D or
// 3-D convolutions, broadcasting biases) keeps its linalg lowering: they
// only match with a higher benefit.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/KernelCall.h"

#include "dialects/onnx/Transforms/Constants.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"

#include "runtime-support/onnxcc_kernels.h"

#include <array>

using namespace mlir;

namespace onnxcc::lowering {

std::optional<int> kernelIsaFromName(StringRef name) {
  if (name == "generic")
    return ONNXCC_ISA_GENERIC;
  if (name == "avx2")
    return ONNXCC_ISA_AVX2;
  if (name == "avx512")
    return ONNXCC_ISA_AVX512;
  if (name == "neon")
    return ONNXCC_ISA_NEON;
  return std::nullopt;
}

namespace {

namespace k = onnxcc_rt::kernels;

using Activation = KernelActivation;

template <typename OpTy> std::optional<Activation> activationOf(OpTy op) {
  if constexpr (std::is_same_v<OpTy, onnx::FusedConvOp> ||
                std::is_same_v<OpTy, onnx::FusedConvNHWCOp> ||
                std::is_same_v<OpTy, onnx::FusedGemmOp> ||
                std::is_same_v<OpTy, onnx::FusedMatMulOp>)
    return kernelActivation(op.getActivation(), op.getActivationParams());
  else
    return Activation();
}

/// The NCHW view of channels-last (NHWC) type `t`.
RankedTensorType nchwView(RankedTensorType t) {
  ArrayRef<int64_t> d = t.getShape();
  return RankedTensorType::get({d[0], d[3], d[1], d[2]}, t.getElementType());
}

/// Conv, FusedConv and FusedConvNHWC with a constant 4-D float32 W and
/// static shapes.
template <typename OpTy> struct ConvKernelLowering : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;
  using KernelPattern<OpTy>::target;
  using KernelPattern<OpTy>::threads;
  static constexpr bool kChannelsLast = std::is_same_v<OpTy, onnx::FusedConvNHWCOp>;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto yType = staticResultType(rewriter, this->getTypeConverter(), op);
    if (!yType || !xType || !xType.hasStaticShape() || !isF32Tensor(adaptor.getX()) ||
        xType.getRank() < 3 || xType.getRank() > 5 || yType.getRank() != xType.getRank() ||
        (kChannelsLast && xType.getRank() != 4))
      return rewriter.notifyMatchFailure(op, "not a static 1-D, 2-D or 3-D float32 convolution");
    const int64_t spatial = xType.getRank() - 2;
    // Dims and the window are read from NCHW views of the types.
    RankedTensorType xView = kChannelsLast ? nchwView(xType) : xType;
    RankedTensorType yView = kChannelsLast ? nchwView(yType) : yType;
    std::optional<Activation> act = activationOf(op);
    if (!act)
      return rewriter.notifyMatchFailure(op, "an activation the kernels do not compute");
    std::optional<std::vector<float>> weights = constantFloats(op.getW());
    auto wType = dyn_cast<RankedTensorType>(op.getW().getType());
    if (!weights || !wType || wType.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "W is not a constant float32 tensor of X's rank");
    int64_t batch = xView.getDimSize(0), C = xView.getDimSize(1);
    int64_t M = wType.getDimSize(0);
    int64_t G = static_cast<int64_t>(op.getGroup());
    if (yView.getDimSize(0) != batch || yView.getDimSize(1) != M)
      return rewriter.notifyMatchFailure(op, "the dims of X, W and Y disagree");
    auto w = resolveConvWindow(rewriter, op, xView, wType, yView);
    if (failed(w))
      return failure();
    Value bias = present(adaptor.getB());
    if (bias && (!isF32Tensor(bias, 1) ||
                 cast<RankedTensorType>(bias.getType()).getDimSize(0) != M))
      return rewriter.notifyMatchFailure(op, "B is not a float32 [M] tensor");
    Value z;
    if constexpr (!std::is_same_v<OpTy, onnx::ConvOp>) {
      z = present(adaptor.getZ());
      if (z && z.getType() != yType)
        return rewriter.notifyMatchFailure(op, "Z does not have the result's type");
    }

    // The geometry as 3-D (depth, height, width): a 2-D convolution has a
    // depth of 1, a 1-D one also a height of 1.
    Location loc = op.getLoc();
    int64_t dims[3][8]; // per axis: in, out, kernel, stride, dilation, pad begin, pad end
    for (int64_t a = 0; a < 3; ++a) {
      int64_t i = a - (3 - spatial);
      if (i < 0) {
        int64_t unit[8] = {1, 1, 1, 1, 1, 0, 0, 0};
        std::copy(unit, unit + 8, dims[a]);
        continue;
      }
      int64_t axis[8] = {xView.getDimSize(2 + i), yView.getDimSize(2 + i), w->kernel[i],
                         w->strides[i],           w->dilations[i],        w->padBegin[i],
                         w->padEnd[i],            0};
      std::copy(axis, axis + 8, dims[a]);
    }
    int64_t D = dims[0][0], H = dims[1][0], W = dims[2][0];
    int64_t OD = dims[0][1], OH = dims[1][1], OW = dims[2][1];
    int64_t KD = dims[0][2], KH = dims[1][2], KW = dims[2][2];
    int64_t SD = dims[0][3], SH = dims[1][3], SW = dims[2][3];
    int64_t DD = dims[0][4], DH = dims[1][4], DW = dims[2][4];
    int64_t PF = dims[0][5], PT = dims[1][5], PL = dims[2][5];
    int64_t PK = dims[0][6], PB = dims[1][6], PR = dims[2][6];
    if (spatial == 3) {
      // conv3d: im2col over the depth too (any group, depthwise included).
      int64_t K = (C / G) * KD * KH * KW;
      std::vector<float> packed(k::packed_conv_weights_floats(target, M, K, G));
      k::pack_conv_weights(target, weights->data(), M, K, G, packed.data());
      Value weightBuffer = packedConstant(rewriter, loc, op, "_packed", packed);
      bool direct = KD == 1 && KH == 1 && KW == 1 && SD == 1 && SH == 1 && SW == 1 &&
                    PF == 0 && PT == 0 && PL == 0 && PK == 0 && PB == 0 && PR == 0;
      KernelCall call(rewriter, loc, threads);
      call.buffer(flatBuffer(rewriter, loc, adaptor.getX(), /*readOnly=*/true));
      call.buffer(weightBuffer);
      call.buffer(bias ? flatBuffer(rewriter, loc, bias, /*readOnly=*/true) : weightBuffer);
      call.i32(bias ? 1 : 0);
      call.buffer(z ? flatBuffer(rewriter, loc, z, /*readOnly=*/true) : weightBuffer);
      call.i32(z ? 1 : 0);
      Value out = outputBuffer(rewriter, loc, yType);
      call.buffer(out);
      call.buffer(scratchBuffer(
          rewriter, loc,
          k::conv3d_scratch_floats(target, C, KD, KH, KW, G, OD, OH, OW, direct) * threads));
      for (int64_t v : {batch, C, D, H, W, M, OD, OH, OW, KD, KH, KW, SD, SH, SW, PF, PT, PL, PK,
                        PB, PR, DD, DH, DW, G})
        call.i64(v);
      call.activation(*act);
      call.partition();
      call.i32(target);
      call.emit(op, "conv3d");
      rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, {}));
      return success();
    }
    (void)D, (void)OD, (void)KD, (void)SD, (void)DD, (void)PF, (void)PK;
    // NCHW: depthwise, Winograd (3x3 stride 1, where the header says it
    // pays) and im2col + GEMM; channels-last: depthwise and im2col + GEMM
    // (group 1).
    enum { Direct, Depthwise, Winograd, DirectNHWC, DepthwiseNHWC, WinogradNHWC } algorithm =
        Direct;
    bool depthwise = G == C && M == C && C > 1;
    if (kChannelsLast) {
      if (!depthwise && G != 1)
        return rewriter.notifyMatchFailure(op, "a grouped channels-last convolution");
      algorithm = depthwise ? DepthwiseNHWC : DirectNHWC;
      if (k::winograd_nhwc_applies(target, C, M, OH, OW, KH, KW, SH, SW, DH, DW, G))
        algorithm = WinogradNHWC;
    } else if (depthwise) {
      algorithm = Depthwise;
    } else if (k::winograd_applies(target, C, M, OH, OW, KH, KW, SH, SW, DH, DW, G)) {
      algorithm = Winograd;
    }
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, adaptor.getX(), /*readOnly=*/true));
    Value weightBuffer;
    int64_t scratch;
    if (algorithm == Depthwise) {
      // [C, 1, KH, KW] is already the kernel's layout.
      weightBuffer = flatBuffer(rewriter, loc, adaptor.getW(), /*readOnly=*/true);
      scratch = k::depthwise_conv2d_scratch_floats(target, H, W, KH, KW, SH, SW, PT, PL, PB, PR, DH,
                                                   DW, OH, OW);
    } else if (algorithm == DepthwiseNHWC) {
      std::vector<float> packed(k::packed_depthwise_nhwc_weights_floats(target, C, KH, KW));
      k::pack_depthwise_nhwc_weights(target, weights->data(), C, KH, KW, packed.data());
      weightBuffer = packedConstant(rewriter, loc, op, "_nhwc", packed);
      scratch = 0;
    } else if (algorithm == DirectNHWC) {
      std::vector<float> packed(k::packed_conv_nhwc_weights_floats(target, M, C, KH, KW));
      k::pack_conv_nhwc_weights(target, weights->data(), M, C, KH, KW, packed.data());
      weightBuffer = packedConstant(rewriter, loc, op, "_nhwc", packed);
      scratch = k::conv2d_nhwc_scratch_floats(target, C, KH, KW, OH, OW, SH, SW, PT, PL, PB, PR,
                                              DH, DW);
    } else if (algorithm == WinogradNHWC) {
      std::vector<float> packed(k::packed_winograd_nhwc_weights_floats(target, M, C));
      k::pack_winograd_nhwc_weights(target, weights->data(), M, C, packed.data());
      weightBuffer = packedConstant(rewriter, loc, op, "_winograd_nhwc", packed);
      scratch = k::winograd_nhwc_scratch_floats(target, C, OH, OW);
    } else if (algorithm == Winograd) {
      std::vector<float> packed(k::packed_winograd_weights_floats(target, M, C));
      k::pack_winograd_weights(target, weights->data(), M, C, packed.data());
      weightBuffer = packedConstant(rewriter, loc, op, "_winograd", packed);
      scratch = k::winograd_scratch_floats(target, C, M, H, W, OH, OW, PT, PL, PB, PR);
    } else {
      int64_t K = (C / G) * KH * KW;
      std::vector<float> packed(k::packed_conv_weights_floats(target, M, K, G));
      k::pack_conv_weights(target, weights->data(), M, K, G, packed.data());
      weightBuffer = packedConstant(rewriter, loc, op, "_packed", packed);
      scratch = k::conv2d_scratch_floats(target, C, KH, KW, G, OH, OW, SH, SW, PT, PL, PB, PR, DH,
                                         DW);
    }
    call.buffer(weightBuffer);
    // Absent operands still pass a valid pointer, which the kernel ignores.
    call.buffer(bias ? flatBuffer(rewriter, loc, bias, /*readOnly=*/true) : weightBuffer);
    call.i32(bias ? 1 : 0);
    call.buffer(z ? flatBuffer(rewriter, loc, z, /*readOnly=*/true) : weightBuffer);
    call.i32(z ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType);
    call.buffer(out);
    // Each part has scratch of its own (channels-last depthwise needs none).
    if (algorithm != DepthwiseNHWC)
      call.buffer(scratchBuffer(rewriter, loc, scratch * threads));
    for (int64_t v : {batch, C, H, W})
      call.i64(v);
    if (algorithm != Depthwise && algorithm != DepthwiseNHWC)
      call.i64(M);
    if (algorithm == Winograd || algorithm == WinogradNHWC) {
      for (int64_t v : {OH, OW, PT, PL, PB, PR})
        call.i64(v);
    } else if (algorithm == DepthwiseNHWC) {
      for (int64_t v : {OH, OW, KH, KW, SH, SW, PT, PL, DH, DW})
        call.i64(v);
    } else {
      for (int64_t v : {OH, OW, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW})
        call.i64(v);
    }
    if (algorithm == Direct)
      call.i64(G);
    call.activation(*act);
    call.partition();
    if (algorithm == Direct || algorithm == DirectNHWC || algorithm == WinogradNHWC)
      call.i32(target);
    static constexpr StringLiteral names[] = {"conv2d",          "depthwise_conv2d",
                                              "conv2d_winograd", "conv2d_nhwc",
                                              "depthwise_conv2d_nhwc", "conv2d_winograd_nhwc"};
    call.emit(op, names[algorithm]);
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, {}));
    return success();
  }
};

/// ConvTranspose over a static float32 X of 1 to 3 spatial dims with a
/// constant W: onnxcc_rt::kernels::conv_transpose, the weights packed here
/// per group and tap (pack_conv_transpose_weights). The pads are resolved
/// as the linalg lowering resolves them (auto_pad, output_shape,
/// output_padding), the output dims are the result's.
struct ConvTransposeKernelLowering : KernelPattern<onnx::ConvTransposeOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::ConvTransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType || !xType || !xType.hasStaticShape() || !isF32Tensor(adaptor.getX()) ||
        xType.getRank() < 3 || xType.getRank() > 5 || yType.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "not a static float32 ConvTranspose of 1-3 dims");
    std::optional<std::vector<float>> weights = constantFloats(op.getW());
    auto wType = dyn_cast<RankedTensorType>(op.getW().getType());
    if (!weights || !wType || wType.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "W is not a constant float32 tensor of X's rank");
    int64_t group = static_cast<int64_t>(op.getGroup());
    int64_t batch = xType.getDimSize(0), C = xType.getDimSize(1), Mg = wType.getDimSize(1);
    int64_t M = Mg * group;
    if (group < 1 || C % group || C != wType.getDimSize(0) || yType.getDimSize(1) != M ||
        yType.getDimSize(0) != batch)
      return rewriter.notifyMatchFailure(op, "channels do not match W and group");
    ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
    if (auto k = op.getKernelShape(); k && *k != kernel)
      return rewriter.notifyMatchFailure(op, "kernel_shape does not match W");
    size_t n = kernel.size();
    auto strides = intsOr(rewriter, op, op.getStrides(), n, 1, "strides", 1);
    auto dilations = intsOr(rewriter, op, op.getDilations(), n, 1, "dilations", 1);
    auto pads = intsOr(rewriter, op, op.getPads(), 2 * n, 0, "pads", 0);
    auto outputPadding = intsOr(rewriter, op, op.getOutputPadding(), n, 0, "output_padding", 0);
    if (failed(strides) || failed(dilations) || failed(pads) || failed(outputPadding))
      return failure();
    StringRef autoPad = op.getAutoPad();
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
        autoPad != "SAME_LOWER")
      return rewriter.notifyMatchFailure(op, "unknown auto_pad value");
    Value bias = present(adaptor.getB());
    if (bias && (!isF32Tensor(bias, 1) ||
                 cast<RankedTensorType>(bias.getType()).getDimSize(0) != M))
      return rewriter.notifyMatchFailure(op, "B is not a float32 [M] tensor");

    // Per axis, as 3-D (depth, height, width): in, out, kernel, stride,
    // dilation and the begin pad (output o = i * s - pad + k * d).
    int64_t g3[3][6];
    for (int64_t a = 0; a < 3; ++a) {
      int64_t i = a - (3 - static_cast<int64_t>(n));
      if (i < 0) {
        int64_t unit[6] = {1, 1, 1, 1, 1, 0};
        std::copy(unit, unit + 6, g3[a]);
        continue;
      }
      int64_t in = xType.getDimSize(2 + i), out = yType.getDimSize(2 + i);
      int64_t s = (*strides)[i], d = (*dilations)[i], reach = (kernel[i] - 1) * d;
      int64_t padBegin = (*pads)[i];
      if (autoPad == "VALID") {
        padBegin = 0;
      } else if (op.getOutputShape() || autoPad != "NOTSET") {
        int64_t total = s * (in - 1) + (*outputPadding)[i] + reach + 1 - out;
        int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        padBegin = autoPad == "SAME_UPPER" ? half : total - half;
      }
      int64_t axis[6] = {in, out, kernel[i], s, d, padBegin};
      std::copy(axis, axis + 6, g3[a]);
    }
    // A begin pad below 0 (output_shape larger than the formula) shifts
    // the output right; the kernel takes pads >= 0 only.
    for (auto &axis : g3)
      if (axis[5] < 0)
        return rewriter.notifyMatchFailure(op, "a negative begin pad");
    int64_t taps = g3[0][2] * g3[1][2] * g3[2][2];
    Location loc = op.getLoc();
    std::vector<float> packed(k::packed_conv_transpose_weights_floats(target, C, Mg, group, taps));
    k::pack_conv_transpose_weights(target, weights->data(), C, Mg, group, taps, packed.data());
    Value weightBuffer = packedConstant(rewriter, loc, op, "_packed", packed);
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, adaptor.getX(), /*readOnly=*/true));
    call.buffer(weightBuffer);
    call.buffer(bias ? flatBuffer(rewriter, loc, bias, /*readOnly=*/true) : weightBuffer);
    call.i32(bias ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType);
    call.buffer(out);
    int64_t pixels = g3[0][0] * g3[1][0] * g3[2][0];
    call.buffer(scratchBuffer(
        rewriter, loc, k::conv_transpose_scratch_floats(target, C, group, pixels) * threads));
    call.i64(batch);
    call.i64(C);
    for (auto &axis : g3)
      call.i64(axis[0]);
    call.i64(M);
    for (int field : {1, 2, 3})
      for (auto &axis : g3)
        call.i64(axis[field]);
    for (auto &axis : g3) // pads
      call.i64(axis[5]);
    for (auto &axis : g3) // dilations
      call.i64(axis[4]);
    call.i64(group);
    call.partition();
    call.i32(target);
    call.emit(op, "conv_transpose");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, {}));
    return success();
  }
};

/// Gemm/FusedGemm (transA = 0) and MatMul/FusedMatMul whose B is a constant
/// 2-D float32 tensor: C = act(A B + bias + Z) with A's leading dims as rows.
template <typename OpTy> struct GemmKernelLowering : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;
  using KernelPattern<OpTy>::target;
  using KernelPattern<OpTy>::threads;

  static constexpr bool isGemm =
      std::is_same_v<OpTy, onnx::GemmOp> || std::is_same_v<OpTy, onnx::FusedGemmOp>;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value a = adaptor.getA();
    auto aType = dyn_cast<RankedTensorType>(a.getType());
    if (!aType || !isF32Tensor(a) || aType.getRank() < 2 || (isGemm && aType.getRank() != 2))
      return rewriter.notifyMatchFailure(op, "A is not a float32 matrix (or stack of them)");
    std::optional<Activation> act = activationOf(op);
    if (!act)
      return rewriter.notifyMatchFailure(op, "an activation the kernels do not compute");
    std::optional<std::vector<float>> weights = constantFloats(op.getB());
    auto bType = dyn_cast<RankedTensorType>(op.getB().getType());
    if (!weights || !bType || bType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "B is not a constant float32 matrix");
    bool transB = false;
    float alpha = 1, beta = 1;
    if constexpr (isGemm) {
      if (op.getTransA() != 0)
        return rewriter.notifyMatchFailure(op, "transA");
      transB = op.getTransB() != 0;
      alpha = op.getAlpha().convertToFloat();
      beta = op.getBeta().convertToFloat();
    }
    int64_t K = bType.getDimSize(transB ? 1 : 0), N = bType.getDimSize(transB ? 0 : 1);
    if (aType.isDynamicDim(aType.getRank() - 1) || aType.getDimSize(aType.getRank() - 1) != K)
      return rewriter.notifyMatchFailure(op, "A's last dim is not B's K");
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    if (yType.getRank() != aType.getRank() || yType.getDimSize(yType.getRank() - 1) != N)
      return rewriter.notifyMatchFailure(op, "the result is not A's rows by N");

    // The bias, one value per column: Gemm's C (times beta) or FusedMatMul's
    // Bias, when it broadcasts along the rows only.
    Location loc = op.getLoc();
    Value biasBuffer;
    Value biasValue;
    if constexpr (isGemm)
      biasValue = beta != 0 ? present(op.getC()) : Value();
    else if constexpr (std::is_same_v<OpTy, onnx::FusedMatMulOp>)
      biasValue = present(op.getBias());
    if (biasValue) {
      auto t = dyn_cast<RankedTensorType>(biasValue.getType());
      if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
        return rewriter.notifyMatchFailure(op, "the bias is not a static float32 tensor");
      for (int64_t d = 0; d + 1 < t.getRank(); ++d)
        if (t.getDimSize(d) != 1)
          return rewriter.notifyMatchFailure(op, "the bias varies along the rows");
      int64_t last = t.getRank() ? t.getDimSize(t.getRank() - 1) : 1;
      if (last != N && last != 1)
        return rewriter.notifyMatchFailure(op, "the bias does not broadcast to N");
      std::optional<std::vector<float>> values = constantFloats(biasValue);
      if (values) {
        std::vector<float> perColumn(N);
        for (int64_t n = 0; n < N; ++n)
          perColumn[n] = beta * (*values)[last == 1 ? 0 : n];
        biasBuffer = packedConstant(rewriter, loc, op, "_bias", perColumn);
      } else if (last == N && beta == 1) {
        // Gemm's C and FusedMatMul's Bias are both operand 2.
        biasBuffer = flatBuffer(rewriter, loc, adaptor.getOperands()[2], /*readOnly=*/true);
      } else {
        return rewriter.notifyMatchFailure(op, "a scaled or broadcast bias that is not constant");
      }
    }
    Value z;
    if constexpr (std::is_same_v<OpTy, onnx::FusedGemmOp> ||
                  std::is_same_v<OpTy, onnx::FusedMatMulOp>) {
      z = present(adaptor.getZ());
      if (z && cast<RankedTensorType>(z.getType()).getShape() != yType.getShape())
        return rewriter.notifyMatchFailure(op, "Z does not have the result's shape");
    }
    std::vector<float> packed(k::packed_gemm_b_floats(target, K, N));
    k::pack_gemm_b(target, weights->data(), K, N, transB, alpha, packed.data());
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, a, /*readOnly=*/true));
    call.i64(K); // lda
    Value weightBuffer = packedConstant(rewriter, loc, op, "_packed", packed);
    call.buffer(weightBuffer);
    call.buffer(biasBuffer ? biasBuffer : weightBuffer);
    call.i32(biasBuffer ? 1 : 0);
    call.buffer(z ? flatBuffer(rewriter, loc, z, /*readOnly=*/true) : weightBuffer);
    call.i32(z ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    // A's rows: the product of its leading dims, static or symbolic.
    call.i64(dimProduct(rewriter, loc, a, 0, aType.getRank() - 1));
    call.i64(N);
    call.i64(K);
    call.activation(*act);
    call.partition();
    call.i32(target);
    call.emit(op, "gemm_packed_b");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// The scratch buffer of an attention() call over `keys` keys (static or
/// symbolic) of head size `d`, split into `parts`: attention_scratch_floats
/// per part, or for a symbolic count the polynomial bound memory planning
/// reads ((T + NR - 1) (D + 64) per part: K packed and 64 rows of scores).
Value attentionScratch(OpBuilder &b, Location loc, Value keys, int64_t d, int target,
                       int64_t parts) {
  if (std::optional<int64_t> t = getConstantIntValue(keys))
    return scratchBuffer(b, loc, k::attention_scratch_floats(target, *t, d) * parts);
  Value tp = arith::AddIOp::create(b, loc, keys, indexConst(b, loc, k::gemm_nr(target) - 1));
  Value perPart =
      arith::MulIOp::create(b, loc, tp, indexConst(b, loc, std::max<int64_t>(d, 1) + 64));
  Value floats = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, perPart, indexConst(b, loc, parts)),
      indexConst(b, loc, 16));
  return flatBuffer(b, loc,
                    emptyTensor(b, loc, RankedTensorType::get({ShapedType::kDynamic}, b.getF32Type()),
                                {floats}),
                    /*readOnly=*/false);
}

/// An operand of a contraction read in place: the flat buffer of the value
/// behind a chain of Transposes (which then need no copy) and the stride of
/// each of the operand's dims in it; `innermost` is the operand dim whose
/// stride is 1.
struct StridedOperand {
  Value buffer;
  SmallVector<Value> strides;
  int64_t innermost = -1;
};

FailureOr<StridedOperand> stridedOperand(ConversionPatternRewriter &rewriter, Location loc,
                                         Value onnxValue) {
  auto type = dyn_cast<RankedTensorType>(onnxValue.getType());
  if (!type)
    return failure();
  int64_t rank = type.getRank();
  // perm[i]: the source dim that operand dim i reads.
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value v = onnxValue;
  while (auto t = v.getDefiningOp<onnx::TransposeOp>()) {
    SmallVector<int64_t> p;
    if (auto attr = t.getPerm())
      p.assign(attr->begin(), attr->end());
    else
      for (int64_t d = rank - 1; d >= 0; --d)
        p.push_back(d);
    if (static_cast<int64_t>(p.size()) != rank)
      break;
    for (int64_t &d : perm)
      d = p[d];
    v = t.getData();
  }
  Value source = rewriter.getRemappedValue(v);
  if (!source || !isF32Tensor(source, rank))
    return failure();
  StridedOperand r;
  r.buffer = flatBuffer(rewriter, loc, source, /*readOnly=*/true);
  for (int64_t i = 0; i < rank; ++i) {
    r.strides.push_back(dimProduct(rewriter, loc, source, perm[i] + 1, rank));
    if (perm[i] == rank - 1)
      r.innermost = i;
  }
  return r;
}

/// MatMul, FusedMatMul, Gemm and FusedGemm whose B is an activation (or a
/// constant the packed-weights pattern does not take): onnxcc_rt::kernels::
/// matmul, which reads both operands in place through their strides
/// (Transposes feeding it included), broadcasts batch dims (up to three)
/// and packs at run time what the micro-kernel needs packed.
template <typename OpTy> struct MatMulKernelLowering : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;
  using KernelPattern<OpTy>::target;
  using KernelPattern<OpTy>::threads;
  static constexpr bool isGemm =
      std::is_same_v<OpTy, onnx::GemmOp> || std::is_same_v<OpTy, onnx::FusedGemmOp>;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value aValue = op.getA(), bValue = op.getB();
    auto aType = dyn_cast<RankedTensorType>(adaptor.getA().getType());
    auto bType = dyn_cast<RankedTensorType>(adaptor.getB().getType());
    if (!aType || !bType || !isF32Tensor(adaptor.getA()) || !isF32Tensor(adaptor.getB()))
      return rewriter.notifyMatchFailure(op, "A and B are not float32 tensors");
    std::optional<KernelActivation> act = activationOf(op);
    if (!act)
      return rewriter.notifyMatchFailure(op, "an activation the kernels do not compute");
    bool transA = false, transB = false;
    float alpha = 1, beta = 1;
    if constexpr (isGemm) {
      transA = op.getTransA() != 0;
      transB = op.getTransB() != 0;
      alpha = op.getAlpha().convertToFloat();
      beta = op.getBeta().convertToFloat();
      if (alpha != 1)
        return rewriter.notifyMatchFailure(op, "alpha is not 1");
    }
    // A constant 2-D B goes to gemm_packed_b (weights packed at compile
    // time) unless that pattern cannot take it (a transposed A).
    if (constantFloats(bValue) && bType.getRank() == 2 && !transA)
      return rewriter.notifyMatchFailure(op, "a constant B: the packed-weights kernel");
    int64_t aRank = aType.getRank(), bRank = bType.getRank();
    if (aRank < 1 || bRank < 1 || (isGemm && (aRank != 2 || bRank != 2)))
      return rewriter.notifyMatchFailure(op, "operands of rank 0");
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    if (yType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "a dot product of two vectors");
    bool hasM = aRank >= 2, hasN = bRank >= 2;
    int64_t batchRank = yType.getRank() - (hasM ? 1 : 0) - (hasN ? 1 : 0);
    if (batchRank < 0 || batchRank > 3)
      return rewriter.notifyMatchFailure(op, "more than three batch dims");
    // Matrix dims of each operand.
    int64_t aM = hasM ? (transA ? aRank - 1 : aRank - 2) : -1;
    int64_t aK = hasM ? (transA ? aRank - 2 : aRank - 1) : 0;
    int64_t bK = hasN ? (transB ? bRank - 1 : bRank - 2) : 0;
    int64_t bN = hasN ? (transB ? bRank - 2 : bRank - 1) : -1;
    if (!aType.isDynamicDim(aK) && !bType.isDynamicDim(bK) &&
        aType.getDimSize(aK) != bType.getDimSize(bK))
      return rewriter.notifyMatchFailure(op, "A's K differs from B's");

    Location loc = op.getLoc();
    auto a = stridedOperand(rewriter, loc, aValue);
    auto b = stridedOperand(rewriter, loc, bValue);
    if (failed(a) || failed(b))
      return rewriter.notifyMatchFailure(op, "an operand is not a float32 tensor");
    const OnnxTypeConverter &converter = onnxConverter(this->getTypeConverter());
    std::optional<onnx::Shape> aShape = converter.shapeOf(aValue),
                               bShape = converter.shapeOf(bValue),
                               yShape = converter.shapeOf(op.getResult());
    if (!aShape || !bShape || !yShape)
      return rewriter.notifyMatchFailure(op, "shapes unknown");
    Value zero = indexConst(rewriter, loc, 0), one = indexConst(rewriter, loc, 1);
    Value dimA = adaptor.getA(), dimB = adaptor.getB();
    auto dimOf = [&](Value t, int64_t d) -> Value {
      auto tt = cast<RankedTensorType>(t.getType());
      if (!tt.isDynamicDim(d))
        return indexConst(rewriter, loc, tt.getDimSize(d));
      return tensor::DimOp::create(rewriter, loc, t, d);
    };
    Value M = hasM ? dimOf(dimA, aM) : one;
    Value K = dimOf(dimA, aK);
    Value N = hasN ? dimOf(dimB, bN) : one;
    Value sam = hasM ? a->strides[aM] : zero, sak = a->strides[aK];
    Value sbk = b->strides[bK], sbn = hasN ? b->strides[bN] : zero;

    // Batch dims: the result's, each operand's aligned to the right; an
    // operand dim of 1 against a larger one broadcasts (stride 0).
    SmallVector<Value> nb(3, one), sa(3, zero), sb(3, zero);
    auto batchStride = [&](const onnx::Shape &shape, Value converted, const StridedOperand &x,
                           int64_t xBatch, int64_t d, Value target, Value &stride) -> bool {
      int64_t od = d - (batchRank - xBatch);
      if (od < 0)
        return true;
      auto s = broadcastStride(rewriter, loc, op, shape[od], (*yShape)[d],
                               dimOf(converted, od), target, x.strides[od]);
      if (failed(s))
        return false;
      stride = *s;
      return true;
    };
    int64_t aBatch = aRank - (hasM ? 2 : 1), bBatch = bRank - (hasN ? 2 : 1);
    for (int64_t d = 0; d < batchRank; ++d) {
      int64_t slot = 3 - batchRank + d;
      nb[slot] = yType.isDynamicDim(d) ? tensor::DimOp::create(rewriter, loc,
                                                               emptyTensor(rewriter, loc, yType,
                                                                           ySizes),
                                                               d)
                                               .getResult()
                                       : indexConst(rewriter, loc, yType.getDimSize(d));
      if (!batchStride(*aShape, dimA, *a, aBatch, d, nb[slot], sa[slot]) ||
          !batchStride(*bShape, dimB, *b, bBatch, d, nb[slot], sb[slot]))
        return rewriter.notifyMatchFailure(op, "batch dims that do not broadcast");
    }

    // The bias, one value per column: Gemm's C (times beta) or FusedMatMul's
    // Bias, when it broadcasts along the rows only.
    Value biasBuffer;
    Value biasValue;
    if constexpr (isGemm)
      biasValue = beta != 0 ? present(op.getC()) : Value();
    else if constexpr (std::is_same_v<OpTy, onnx::FusedMatMulOp>)
      biasValue = present(op.getBias());
    if (biasValue) {
      auto t = dyn_cast<RankedTensorType>(biasValue.getType());
      int64_t n = hasN ? bType.getDimSize(bN) : 1;
      if (!t || !t.hasStaticShape() || !t.getElementType().isF32() || ShapedType::isDynamic(n))
        return rewriter.notifyMatchFailure(op, "the bias is not a static float32 tensor");
      for (int64_t d = 0; d + 1 < t.getRank(); ++d)
        if (t.getDimSize(d) != 1)
          return rewriter.notifyMatchFailure(op, "the bias varies along the rows");
      int64_t last = t.getRank() ? t.getDimSize(t.getRank() - 1) : 1;
      if (last != n && last != 1)
        return rewriter.notifyMatchFailure(op, "the bias does not broadcast to N");
      if (std::optional<std::vector<float>> values = constantFloats(biasValue)) {
        std::vector<float> perColumn(n);
        for (int64_t i = 0; i < n; ++i)
          perColumn[i] = beta * (*values)[last == 1 ? 0 : i];
        biasBuffer = packedConstant(rewriter, loc, op, "_bias", perColumn);
      } else if (last == n && beta == 1) {
        biasBuffer = flatBuffer(rewriter, loc, adaptor.getOperands()[2], /*readOnly=*/true);
      } else {
        return rewriter.notifyMatchFailure(op, "a scaled or broadcast bias that is not constant");
      }
    }
    Value z;
    if constexpr (std::is_same_v<OpTy, onnx::FusedGemmOp> ||
                  std::is_same_v<OpTy, onnx::FusedMatMulOp>) {
      z = present(adaptor.getZ());
      if (z && cast<RankedTensorType>(z.getType()).getShape() != yType.getShape())
        return rewriter.notifyMatchFailure(op, "Z does not have the result's shape");
    }

    // Scratch per part: what the kernel may pack (A when its k dim is not
    // contiguous, B when its n dim is not), sized for the largest plan as a
    // polynomial of the dims (what memory planning reads): N rounded up to
    // whole panels is at most N + NR - 1.
    auto mul = [&](Value x, Value y) { return arith::MulIOp::create(rewriter, loc, x, y); };
    auto add = [&](Value x, Value y) { return arith::AddIOp::create(rewriter, loc, x, y); };
    Value perPart = zero;
    if (a->innermost != aK)
      perPart = add(perPart, mul(M, K));
    if (hasN && b->innermost != bN)
      perPart = add(perPart, mul(add(N, indexConst(rewriter, loc, k::gemm_nr(target) - 1)), K));
    Value scratchFloats =
        add(mul(perPart, indexConst(rewriter, loc, threads)), indexConst(rewriter, loc, 16));
    Value scratch = flatBuffer(
        rewriter, loc,
        emptyTensor(rewriter, loc,
                    RankedTensorType::get({ShapedType::kDynamic}, rewriter.getF32Type()),
                    {scratchFloats}),
        /*readOnly=*/false);

    KernelCall call(rewriter, loc, threads);
    call.buffer(a->buffer);
    call.buffer(b->buffer);
    call.buffer(biasBuffer ? biasBuffer : b->buffer);
    call.i32(biasBuffer ? 1 : 0);
    call.buffer(z ? flatBuffer(rewriter, loc, z, /*readOnly=*/true) : b->buffer);
    call.i32(z ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    call.buffer(scratch);
    call.i64(perPart);
    for (Value v : {M, N, K, sam, sak, sbk, sbn})
      call.i64(v);
    for (Value v : nb)
      call.i64(v);
    for (Value v : sa)
      call.i64(v);
    for (Value v : sb)
      call.i64(v);
    call.activation(*act);
    call.partition();
    call.i32(target);
    call.emit(op, "matmul");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// ScaledDotProductAttention over float32 Q [..., Sq, D], K [..., Sk, D],
/// V [..., Sk, Dv]: onnxcc_rt::kernels::attention, blocked over query rows
/// (no [Sq, Sk] scores tensor). Q, K and V are read in place through the
/// Transposes that feed them ([B, S, H, D] viewed as [B, H, S, D]); the two
/// dims before the matrix dims are the kernel's batch and head (K and V
/// broadcast along them with stride 0), more leading dims are read as one
/// contiguous batch. A mask broadcasts to [..., Sq, Sk] dim by dim.
struct AttentionKernelLowering : KernelPattern<onnx::ScaledDotProductAttentionOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::ScaledDotProductAttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto qType = dyn_cast<RankedTensorType>(adaptor.getQ().getType());
    auto kType = dyn_cast<RankedTensorType>(adaptor.getK().getType());
    auto vType = dyn_cast<RankedTensorType>(adaptor.getV().getType());
    if (!qType || !kType || !vType || !isF32Tensor(adaptor.getQ()) ||
        !isF32Tensor(adaptor.getK()) || !isF32Tensor(adaptor.getV()) || qType.getRank() < 2 ||
        kType.getRank() != qType.getRank() || vType.getRank() != qType.getRank())
      return rewriter.notifyMatchFailure(op, "Q, K, V are not float32 tensors of one rank");
    int64_t rank = qType.getRank();
    int64_t D = qType.getDimSize(rank - 1), Dv = vType.getDimSize(rank - 1);
    if (ShapedType::isDynamic(D) || ShapedType::isDynamic(Dv) ||
        kType.getDimSize(rank - 1) != D)
      return rewriter.notifyMatchFailure(op, "head sizes are not static or do not agree");
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    std::optional<onnx::Shape> qShape = converter.shapeOf(op.getQ()),
                               kShape = converter.shapeOf(op.getK()),
                               vShape = converter.shapeOf(op.getV());
    if (!qShape || !kShape || !vShape || !((*kShape)[rank - 2] == (*vShape)[rank - 2]))
      return rewriter.notifyMatchFailure(op, "K and V do not have the same keys");

    Location loc = op.getLoc();
    Value zero = indexConst(rewriter, loc, 0), one = indexConst(rewriter, loc, 1);
    auto dimOf = [&](Value t, int64_t d) -> Value {
      auto tt = cast<RankedTensorType>(t.getType());
      if (!tt.isDynamicDim(d))
        return indexConst(rewriter, loc, tt.getDimSize(d));
      return tensor::DimOp::create(rewriter, loc, t, d);
    };
    // Each operand: in place through Transposes when it has at most two
    // leading dims, else its contiguous buffer (leading dims as one batch).
    struct Operand {
      Value buffer;
      Value bs, hs, rs; // batch, head and row strides
    };
    Value batch = one, heads = one;
    if (rank >= 4) {
      batch = dimProduct(rewriter, loc, adaptor.getQ(), 0, rank - 3);
      heads = dimOf(adaptor.getQ(), rank - 3);
    } else if (rank == 3) {
      heads = dimOf(adaptor.getQ(), 0);
    }
    auto operand = [&](Value onnxValue, Value converted, const onnx::Shape &shape,
                       Operand &out) -> bool {
      auto strided = rank <= 4 ? stridedOperand(rewriter, loc, onnxValue)
                               : FailureOr<StridedOperand>(failure());
      SmallVector<Value> strides;
      if (succeeded(strided) && strided->innermost == rank - 1) {
        out.buffer = strided->buffer;
        strides = strided->strides;
      } else {
        out.buffer = flatBuffer(rewriter, loc, converted, /*readOnly=*/true);
        for (int64_t d = 0; d < rank; ++d)
          strides.push_back(dimProduct(rewriter, loc, converted, d + 1, rank));
      }
      out.rs = strides[rank - 2];
      out.hs = out.bs = zero;
      // A leading dim of 1 against Q's larger one broadcasts.
      auto lead = [&](int64_t d) -> std::optional<Value> {
        auto s = broadcastStride(rewriter, loc, op, shape[d], (*qShape)[d], dimOf(converted, d),
                                 dimOf(adaptor.getQ(), d), strides[d]);
        if (failed(s))
          return std::nullopt;
        return *s;
      };
      if (rank >= 3) {
        auto h = lead(rank - 3);
        if (!h)
          return false;
        out.hs = *h;
      }
      if (rank == 4) {
        auto b = lead(0);
        if (!b)
          return false;
        out.bs = *b;
      } else if (rank > 4) {
        for (int64_t d = 0; d < rank - 3; ++d)
          if (!((*qShape)[d] == shape[d]))
            return false;
        out.bs = strides[rank - 4];
      }
      return true;
    };
    Operand q, k, v;
    if (!operand(op.getQ(), adaptor.getQ(), *qShape, q) ||
        !operand(op.getK(), adaptor.getK(), *kShape, k) ||
        !operand(op.getV(), adaptor.getV(), *vShape, v))
      return rewriter.notifyMatchFailure(op, "K or V does not broadcast to Q's leading dims");

    // The mask, aligned to [..., Sq, Sk], strides 0 where it broadcasts
    // (static or symbolic dims: each is 1 or the dim it meets).
    Value mask = present(adaptor.getMask());
    Value mbs = zero, mhs = zero, mrs = zero, mcs = zero;
    if (mask) {
      auto mType = dyn_cast<RankedTensorType>(mask.getType());
      std::optional<onnx::Shape> mShape = converter.shapeOf(op.getMask());
      if (!mType || !mType.getElementType().isF32() || mType.getRank() > rank || !mShape)
        return rewriter.notifyMatchFailure(op, "a mask that is not float32");
      int64_t mRank = mType.getRank();
      // What dim d of [..., Sq, Sk] is: Q's leading dims, Sq, then Sk.
      auto target = [&](int64_t d) -> const onnx::Dim & {
        return d == rank - 1 ? (*kShape)[rank - 2] : (*qShape)[d];
      };
      auto targetValue = [&](int64_t d) -> Value {
        return d == rank - 1 ? dimOf(adaptor.getK(), rank - 2) : dimOf(adaptor.getQ(), d);
      };
      auto maskStride = [&](int64_t d, Value &stride) -> bool {
        int64_t md = d - (rank - mRank);
        if (md < 0)
          return true;
        auto s = broadcastStride(rewriter, loc, op, (*mShape)[md], target(d), dimOf(mask, md),
                                 targetValue(d), dimProduct(rewriter, loc, mask, md + 1, mRank));
        if (failed(s))
          return false;
        stride = *s;
        return true;
      };
      bool ok = maskStride(rank - 1, mcs) && maskStride(rank - 2, mrs);
      if (ok && rank >= 3)
        ok = maskStride(rank - 3, mhs);
      if (ok && rank == 4)
        ok = maskStride(0, mbs);
      if (ok && rank > 4) {
        // The batch dims merged: the mask has all of them or none.
        bool all = mRank == rank, none = true;
        for (int64_t d = 0; d < rank - 3; ++d) {
          int64_t md = d - (rank - mRank);
          if (md < 0)
            continue;
          const onnx::Dim &dim = (*mShape)[md];
          bool one = dim.isStatic() && dim.size == 1;
          none = none && one;
          all = all && dim == target(d);
        }
        ok = all || none;
        if (all)
          mbs = dimProduct(rewriter, loc, mask, rank - 3, mRank);
      }
      if (!ok)
        return rewriter.notifyMatchFailure(op, "a mask the kernel cannot broadcast");
      mask = flatBuffer(rewriter, loc, mask, /*readOnly=*/true);
    }

    Value sq = dimOf(adaptor.getQ(), rank - 2), sk = dimOf(adaptor.getK(), rank - 2);
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    auto mul = [&](Value x, Value y) { return arith::MulIOp::create(rewriter, loc, x, y); };
    // Y: dense [lead..., Sq, Dv].
    Value yrs = indexConst(rewriter, loc, Dv);
    Value yhs = mul(sq, yrs);
    Value ybs = rank >= 3 ? mul(heads, yhs) : zero;
    KernelCall call(rewriter, loc, threads);
    call.buffer(q.buffer);
    call.buffer(k.buffer);
    call.buffer(v.buffer);
    call.buffer(mask ? mask : v.buffer);
    call.i32(mask ? 1 : 0);
    call.buffer(out);
    call.buffer(attentionScratch(rewriter, loc, sk, D, target, threads));
    for (Value x : {batch, heads, heads, sq, sk})
      call.i64(x);
    call.i64(D);
    call.i64(Dv);
    for (Value x : {q.bs, q.hs, q.rs, k.bs, k.hs, k.rs, v.bs, v.hs, v.rs, ybs, yhs, yrs, mbs, mhs,
                    mrs, mcs})
      call.i64(x);
    call.f32(op.getScale().convertToFloat());
    call.f32(0.0f);
    call.i32(0);
    call.i64(0);
    call.partition();
    call.emit(op, "attention");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// ONNX Attention (opsets 23-25) on static float32 Q, K, V without
/// nonpad_kv_seqlen, a window, a qk_matmul_output that is read, or another
/// softmax precision: onnxcc_rt::kernels::attention_heads, one query row at
/// a time (no [Sq, T] buffer). 3-D operands are read in place through their
/// strides; a past is concatenated first (the present outputs); attn_mask
/// becomes an additive float tensor of its own shape (bool: 0 or -inf, a
/// short last dim padded with -inf).
struct OnnxAttentionKernelLowering : KernelPattern<onnx::AttentionOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::AttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value q = adaptor.getQ(), key = adaptor.getK(), v = adaptor.getV();
    auto qType = dyn_cast<RankedTensorType>(q.getType());
    auto kType = dyn_cast<RankedTensorType>(key.getType());
    auto vType = dyn_cast<RankedTensorType>(v.getType());
    if (!qType || !kType || !vType || !isF32Tensor(q) || !isF32Tensor(key) || !isF32Tensor(v) ||
        !qType.hasStaticShape() || !kType.hasStaticShape() || !vType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "Q, K, V are not static float32 tensors");
    if (present(adaptor.getNonpadKvSeqlen()) || static_cast<int64_t>(op.getLeftWindowSize()) != -1 ||
        static_cast<int64_t>(op.getRightWindowSize()) != -1 ||
        !op.getQkMatmulOutput().use_empty() ||
        (op.getSoftmaxPrecision() && *op.getSoftmaxPrecision() != 1))
      return rewriter.notifyMatchFailure(op, "a feature the kernel does not compute");
    RankedTensorType yType = staticResultType(rewriter, getTypeConverter(), op, 0);
    if (!yType)
      return failure();
    Location loc = op.getLoc();
    int64_t rank = qType.getRank();
    if ((rank != 3 && rank != 4) || kType.getRank() != rank || vType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "Q, K and V are not all 3-D or all 4-D");
    ArrayRef<int64_t> qs = qType.getShape(), ks = kType.getShape(), vs = vType.getShape();
    int64_t batch = qs[0], hq, hkv, sq, skv, d, dv;
    if (rank == 3 && (!op.getQNumHeads() || !op.getKvNumHeads() || *op.getQNumHeads() < 1 ||
                      *op.getKvNumHeads() < 1))
      return rewriter.notifyMatchFailure(op, "3-D inputs without head counts");
    if (rank == 3) {
      hq = static_cast<int64_t>(*op.getQNumHeads());
      hkv = static_cast<int64_t>(*op.getKvNumHeads());
      sq = qs[1];
      skv = ks[1];
      d = qs[2] / hq;
      dv = vs[2] / hkv;
    } else {
      hq = qs[1];
      hkv = ks[1];
      sq = qs[2];
      skv = ks[2];
      d = qs[3];
      dv = vs[3];
    }
    if (hkv < 1 || hq % hkv || d < 1)
      return rewriter.notifyMatchFailure(op, "query heads are not a multiple of kv heads");
    // Strides (batch, head, row) of [B, H, S, X] or [B, S, H * X].
    auto strides = [&](bool seqFirst, int64_t h, int64_t s, int64_t x) {
      return seqFirst ? std::array<int64_t, 3>{s * h * x, x, h * x}
                      : std::array<int64_t, 3>{h * s * x, s * x, x};
    };
    bool seqFirst = rank == 3;
    std::array<int64_t, 3> qst = strides(seqFirst, hq, sq, d), kst = strides(seqFirst, hkv, skv, d),
                           vst = strides(seqFirst, hkv, skv, dv),
                           yst = strides(seqFirst, hq, sq, dv);
    // The past, then K and V: [B, Hkv, P + S, D] (heads first).
    Value pastK = present(adaptor.getPastKey()), pastV = present(adaptor.getPastValue());
    int64_t past = 0;
    SmallVector<Value> results(4);
    auto headsFirst = [&](Value x, int64_t h, int64_t s, int64_t w) -> Value {
      if (!seqFirst)
        return x;
      auto viewType = RankedTensorType::get({batch, s, h, w}, rewriter.getF32Type());
      Value view = tensor::ExpandShapeOp::create(
          rewriter, loc, viewType, x, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
      auto outType = RankedTensorType::get({batch, h, s, w}, rewriter.getF32Type());
      return linalg::TransposeOp::create(rewriter, loc, view, emptyTensor(rewriter, loc, outType),
                                         ArrayRef<int64_t>{0, 2, 1, 3})
          ->getResult(0);
    };
    if (pastK) {
      auto pkType = dyn_cast<RankedTensorType>(pastK.getType());
      auto pvType = dyn_cast<RankedTensorType>(pastV ? pastV.getType() : Type());
      if (!pkType || !pvType || !isF32Tensor(pastK, 4) || !isF32Tensor(pastV, 4) ||
          !pkType.hasStaticShape() || !pvType.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "past_key/past_value are not static float32");
      past = pkType.getDimSize(2);
      auto concat = [&](Value p, Value cur, int64_t w) -> Value {
        MLIRContext *ctx = rewriter.getContext();
        auto outType = RankedTensorType::get({batch, hkv, past + skv, w}, rewriter.getF32Type());
        Value out = emptyTensor(rewriter, loc, outType);
        SmallVector<int64_t> ones(4, 1);
        out = tensor::InsertSliceOp::create(
            rewriter, loc, p, out, getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(4, 0)),
            getAsIndexOpFoldResult(ctx, {batch, hkv, past, w}), getAsIndexOpFoldResult(ctx, ones));
        return tensor::InsertSliceOp::create(
            rewriter, loc, cur, out, getAsIndexOpFoldResult(ctx, {0, 0, past, 0}),
            getAsIndexOpFoldResult(ctx, {batch, hkv, skv, w}), getAsIndexOpFoldResult(ctx, ones));
      };
      key = concat(pastK, headsFirst(key, hkv, skv, d), d);
      v = concat(pastV, headsFirst(v, hkv, skv, dv), dv);
      results[1] = key;
      results[2] = v;
      kst = strides(false, hkv, past + skv, d);
      vst = strides(false, hkv, past + skv, dv);
    } else {
      if (!op.getPresentKey().use_empty())
        results[1] = headsFirst(key, hkv, skv, d);
      if (!op.getPresentValue().use_empty())
        results[2] = headsFirst(v, hkv, skv, dv);
    }
    int64_t t = past + skv;
    // The additive mask, of attn_mask's shape with T keys.
    Value mask = present(adaptor.getAttnMask());
    int64_t mst[3] = {0, 0, 0};
    if (mask) {
      auto mType = dyn_cast<RankedTensorType>(mask.getType());
      if (!mType || !mType.hasStaticShape() || mType.getRank() < 1 || mType.getRank() > 4)
        return rewriter.notifyMatchFailure(op, "attn_mask is not static");
      Type mElem = onnxElementType(op.getAttnMask());
      if (!mElem.isInteger(1) && !isa<FloatType>(mElem))
        return rewriter.notifyMatchFailure(op, "an integer attn_mask");
      int64_t mRank = mType.getRank(), mCols = mType.getDimSize(mRank - 1);
      SmallVector<int64_t> biasShape(mType.getShape());
      biasShape.back() = t;
      auto biasType = RankedTensorType::get(biasShape, rewriter.getF32Type());
      Value rawMask = mask;
      mask = buildIndexedGeneric(
          rewriter, loc, biasType, [&](OpBuilder &b, Location l, ArrayRef<Value> iv) -> Value {
            SmallVector<Value> at(iv.begin(), iv.end());
            Value j = iv.back();
            at.back() = mCols == 1 ? indexConst(b, l, 0)
                                   : clampIndex(b, l, j, indexConst(b, l, 0),
                                                indexConst(b, l, mCols - 1));
            Value m = tensor::ExtractOp::create(b, l, rawMask, at);
            Value ninf = arith::ConstantOp::create(
                b, l, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
            Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0f));
            Value value = mElem.isInteger(1) ? arith::SelectOp::create(b, l, m, zero, ninf)
                                             : castScalar(b, l, m, mElem, b.getF32Type());
            if (mCols == 1 || mCols >= t)
              return value;
            Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j,
                                                 indexConst(b, l, mCols));
            return arith::SelectOp::create(b, l, inside, value, ninf);
          });
      // Strides over (batch, head, row) of the mask aligned to [B, Hq, Sq, T].
      int64_t full[3] = {batch, hq, sq}, stride = t;
      for (int64_t dd = 2; dd >= 0; --dd) {
        int64_t md = mRank - 1 - (3 - dd);
        int64_t size = md >= 0 ? biasShape[md] : 1;
        if (size != 1 && size != full[dd])
          return rewriter.notifyMatchFailure(op, "attn_mask does not broadcast");
        mst[dd] = size == 1 ? 0 : stride;
        stride *= size;
      }
    }
    double scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0 / std::sqrt(double(d));
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, q, /*readOnly=*/true));
    call.buffer(flatBuffer(rewriter, loc, key, /*readOnly=*/true));
    Value vBuffer = flatBuffer(rewriter, loc, v, /*readOnly=*/true);
    call.buffer(vBuffer);
    call.buffer(mask ? flatBuffer(rewriter, loc, mask, /*readOnly=*/true) : vBuffer);
    call.i32(mask ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType);
    call.buffer(out);
    call.buffer(scratchBuffer(rewriter, loc, k::attention_scratch_floats(target, t, d) * threads));
    for (int64_t x : {batch, hq, hkv, sq, t, d, dv})
      call.i64(x);
    for (const auto &st : {qst, kst, vst, yst})
      for (int64_t x : st)
        call.i64(x);
    for (int64_t x : mst)
      call.i64(x);
    call.i64(1); // the mask's columns are contiguous
    call.f32(static_cast<float>(scale));
    call.f32(op.getSoftcap().convertToFloat());
    call.i32(op.getIsCausal() ? 1 : 0);
    call.i64(past);
    call.partition();
    call.emit(op, "attention");
    results[0] = resultTensor(rewriter, loc, out, yType, {});
    // Outputs nothing reads get an (unused) empty tensor.
    for (unsigned r = 1; r < 4; ++r)
      if (!results[r])
        results[r] = emptyTensor(
            rewriter, loc,
            cast<RankedTensorType>(getTypeConverter()->convertType(op->getResult(r).getType())));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Whether `v` is a static float32 tensor of `n` elements whose last dim is n
/// (a per-column vector, broadcast along the rows).
bool isColumnVector(Value v, int64_t n) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getElementType().isF32() && t.getRank() >= 1 &&
         t.getNumElements() == n && t.getDimSize(t.getRank() - 1) == n;
}

/// LayerNormalization over the last dim of a static float32 X (no Mean or
/// InvStdDev output): onnxcc_rt::kernels::layer_norm.
struct LayerNormKernelLowering : KernelPattern<onnx::LayerNormalizationOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::LayerNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !isF32Tensor(x) || xType.getRank() < 1 ||
        op.getType(0) != op.getX().getType())
      return rewriter.notifyMatchFailure(op, "X is not a float32 tensor");
    int64_t rank = xType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    axis = axis < 0 ? axis + rank : axis;
    if (axis != rank - 1 || op.getStashType() != 1)
      return rewriter.notifyMatchFailure(op, "normalizes more than the last dim");
    if (!isa<NoneType>(op->getResult(1).getType()) || !isa<NoneType>(op->getResult(2).getType()))
      return rewriter.notifyMatchFailure(op, "Mean or InvStdDev is an output");
    int64_t cols = xType.getDimSize(rank - 1);
    Value scale = adaptor.getScale(), bias = present(adaptor.getB());
    if (ShapedType::isDynamic(cols) || cols == 0 || !isColumnVector(scale, cols) ||
        (bias && !isColumnVector(bias, cols)))
      return rewriter.notifyMatchFailure(op, "Scale or B is not one value per column");
    // Rows: the leading dims, static or symbolic.
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op, 0);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;

    Location loc = op.getLoc();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    Value scaleBuffer = flatBuffer(rewriter, loc, scale, /*readOnly=*/true);
    call.buffer(scaleBuffer);
    call.buffer(bias ? flatBuffer(rewriter, loc, bias, /*readOnly=*/true) : scaleBuffer);
    call.i32(bias ? 1 : 0);
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, x, 0, rank - 1));
    call.i64(cols);
    call.f32(op.getEpsilon().convertToFloat());
    call.partition();
    call.emit(op, "layer_norm");
    Value none = onnx::NoValueOp::create(rewriter, loc, rewriter.getNoneType());
    rewriter.replaceOp(op, {resultTensor(rewriter, loc, out, yType, ySizes), none, none});
    return success();
  }
};

/// SiLU and Gelu of a float32 tensor (static or symbolic), the composite
/// activations onnx-recognize writes: onnxcc_rt::kernels::activation, the
/// vector code of the fused epilogues, instead of a loop calling libm's exp,
/// tanh or erf per element. (Where a Conv or MatMul precedes them, onnx-fuse
/// has already put them in its epilogue; these are the ones left standing,
/// after a normalization.) A lone Sigmoid or Tanh keeps its loop: its libm
/// value is the one the constant folder computes, and folded and computed
/// values agree bitwise (compile/fold-agree.test).
template <typename OpTy> struct ActivationKernelLowering : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;
  using KernelPattern<OpTy>::threads;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getOperands()[0];
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !isF32Tensor(x) || op->getResult(0).getType() != op->getOperand(0).getType())
      return rewriter.notifyMatchFailure(op, "not a float32 tensor");
    StringRef kind;
    if constexpr (std::is_same_v<OpTy, onnx::SiLUOp>)
      kind = "SiLU";
    else
      kind = op.getApproximate() == "tanh" ? "GeluTanh" : "Gelu";
    std::optional<KernelActivation> act = kernelActivation(kind, std::nullopt);
    if (!act)
      return rewriter.notifyMatchFailure(op, "an activation the kernels do not compute");
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    Location loc = op.getLoc();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, x, 0, xType.getRank()));
    call.activation(*act);
    call.partition();
    call.emit(op, "activation");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// InstanceNormalization of a float32 [N, C, ...] tensor (static channels,
/// any other dim symbolic) with [C] scale and bias:
/// onnxcc_rt::kernels::instance_norm, one row per (image, channel).
struct InstanceNormKernelLowering : KernelPattern<onnx::InstanceNormalizationOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::InstanceNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !isF32Tensor(x) || xType.getRank() < 3 || xType.isDynamicDim(1) ||
        op.getType() != op.getInput().getType())
      return rewriter.notifyMatchFailure(op, "not a float32 [N, C, ...] tensor");
    int64_t channels = xType.getDimSize(1);
    Value scale = adaptor.getScale(), bias = adaptor.getB();
    if (!isColumnVector(scale, channels) || !isColumnVector(bias, channels))
      return rewriter.notifyMatchFailure(op, "scale and B are not float32 [C]");
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    Location loc = op.getLoc();
    int64_t rank = xType.getRank();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    call.buffer(flatBuffer(rewriter, loc, scale, /*readOnly=*/true));
    call.buffer(flatBuffer(rewriter, loc, bias, /*readOnly=*/true));
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, x, 0, 2));
    call.i64(channels);
    call.i64(dimProduct(rewriter, loc, x, 2, rank));
    call.f32(op.getEpsilon().convertToFloat());
    call.partition();
    call.emit(op, "instance_norm");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// Softmax over the last dim of a static float32 tensor:
/// onnxcc_rt::kernels::softmax.
struct SoftmaxKernelLowering : KernelPattern<onnx::SoftmaxOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::SoftmaxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !isF32Tensor(x) || xType.getRank() < 1 ||
        op.getType() != op.getInput().getType())
      return rewriter.notifyMatchFailure(op, "not a float32 tensor");
    int64_t rank = xType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    axis = axis < 0 ? axis + rank : axis;
    if (axis != rank - 1)
      return rewriter.notifyMatchFailure(op, "not over the last dim");
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    Location loc = op.getLoc();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    Value out = outputBuffer(rewriter, loc, yType, ySizes);
    call.buffer(out);
    call.i64(dimProduct(rewriter, loc, x, 0, rank - 1));
    call.i64(dimProduct(rewriter, loc, x, rank - 1, rank));
    call.partition();
    call.emit(op, "softmax");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, ySizes));
    return success();
  }
};

/// MaxPool over a static float32 NCHW tensor with no Indices output:
/// onnxcc_rt::kernels::max_pool2d.
struct MaxPoolKernelLowering : KernelPattern<onnx::MaxPoolOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::MaxPoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType || !xType || !xType.hasStaticShape() || !isF32Tensor(x, 4) ||
        yType.getRank() != 4 || yType.getDimSize(0) != xType.getDimSize(0) ||
        yType.getDimSize(1) != xType.getDimSize(1))
      return rewriter.notifyMatchFailure(op, "not a static 2-D float32 pooling");
    if (!isa<NoneType>(op->getResult(1).getType()) && !op->getResult(1).use_empty())
      return rewriter.notifyMatchFailure(op, "Indices is an output");
    auto w = resolveWindow(rewriter, op, xType.getShape().drop_front(2),
                           yType.getShape().drop_front(2), op.getKernelShape(), op.getStrides(),
                           op.getDilations(), op.getPads(), op.getAutoPad());
    if (failed(w))
      return failure();
    Location loc = op.getLoc();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    Value out = outputBuffer(rewriter, loc, yType);
    call.buffer(out);
    call.i64(xType.getDimSize(0) * xType.getDimSize(1));
    for (int64_t v : {xType.getDimSize(2), xType.getDimSize(3), yType.getDimSize(2),
                      yType.getDimSize(3), w->kernel[0], w->kernel[1], w->strides[0],
                      w->strides[1], w->padBegin[0], w->padBegin[1], w->dilations[0],
                      w->dilations[1]})
      call.i64(v);
    call.partition();
    call.emit(op, "max_pool2d");
    SmallVector<SmallVector<Value>> results = {{resultTensor(rewriter, loc, out, yType, {})}, {}};
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

/// GlobalAveragePool over a static float32 [N, C, spatial...] tensor:
/// onnxcc_rt::kernels::global_avg_pool, one row per channel.
struct GlobalAveragePoolKernelLowering : KernelPattern<onnx::GlobalAveragePoolOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::GlobalAveragePoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType || !xType || !xType.hasStaticShape() || !isF32Tensor(x) || xType.getRank() < 3)
      return rewriter.notifyMatchFailure(op, "not a static float32 pooling");
    int64_t rows = xType.getDimSize(0) * xType.getDimSize(1);
    int64_t cols = rows ? xType.getNumElements() / rows : 0;
    if (cols == 0 || yType.getNumElements() != rows)
      return rewriter.notifyMatchFailure(op, "empty spatial dims");
    Location loc = op.getLoc();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    Value out = outputBuffer(rewriter, loc, yType);
    call.buffer(out);
    call.i64(rows);
    call.i64(cols);
    call.partition();
    call.emit(op, "global_avg_pool");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, {}));
    return success();
  }
};

/// ReduceMean of a static float32 tensor over one run of consecutive axes
/// with at least a vector of elements after them: onnxcc_rt::kernels::
/// reduce_mean_mid over x viewed as [outer][R][inner] (global average
/// pooling of channels-last data: [N][H*W][C]).
struct ReduceMeanKernelLowering : KernelPattern<onnx::ReduceMeanOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::ReduceMeanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getData();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType || !xType || !xType.hasStaticShape() || !isF32Tensor(x) || xType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "not a static float32 reduction");
    auto axes = onnx::constantInts(op.getAxes());
    if (!axes || axes->empty())
      return rewriter.notifyMatchFailure(op, "axes are not constant or empty");
    int64_t rank = xType.getRank();
    SmallVector<int64_t> sorted;
    for (int64_t a : *axes)
      sorted.push_back(a < 0 ? a + rank : a);
    llvm::sort(sorted);
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] < 0 || sorted[i] >= rank || sorted[i] != sorted[0] + static_cast<int64_t>(i))
        return rewriter.notifyMatchFailure(op, "axes are not one run of consecutive dims");
    ArrayRef<int64_t> shape = xType.getShape();
    auto product = [&](int64_t from, int64_t to) {
      int64_t p = 1;
      for (int64_t d = from; d < to; ++d)
        p *= shape[d];
      return p;
    };
    int64_t first = sorted.front(), end = sorted.back() + 1;
    int64_t outer = product(0, first), r = product(first, end), inner = product(end, rank);
    if (inner < 16 || r == 0 || yType.getNumElements() != outer * inner)
      return rewriter.notifyMatchFailure(op, "fewer than 16 elements after the axes");
    Location loc = op.getLoc();
    KernelCall call(rewriter, loc, threads);
    call.buffer(flatBuffer(rewriter, loc, x, /*readOnly=*/true));
    Value out = outputBuffer(rewriter, loc, yType);
    call.buffer(out);
    for (int64_t v : {outer, r, inner})
      call.i64(v);
    call.partition();
    call.emit(op, "reduce_mean_mid");
    rewriter.replaceOp(op, resultTensor(rewriter, loc, out, yType, {}));
    return success();
  }
};

} // namespace

void populateKernelPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns, int isa,
                            int64_t threads) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConvKernelLowering<onnx::ConvOp>, ConvKernelLowering<onnx::FusedConvOp>,
               ConvKernelLowering<onnx::FusedConvNHWCOp>,
               GemmKernelLowering<onnx::GemmOp>, GemmKernelLowering<onnx::FusedGemmOp>,
               GemmKernelLowering<onnx::MatMulOp>, GemmKernelLowering<onnx::FusedMatMulOp>,
               MatMulKernelLowering<onnx::GemmOp>, MatMulKernelLowering<onnx::FusedGemmOp>,
               MatMulKernelLowering<onnx::MatMulOp>, MatMulKernelLowering<onnx::FusedMatMulOp>>(
      converter, ctx, isa, threads);
  patterns.add<ConvTransposeKernelLowering, AttentionKernelLowering, OnnxAttentionKernelLowering,
               LayerNormKernelLowering, InstanceNormKernelLowering,
               ActivationKernelLowering<onnx::SiLUOp>, ActivationKernelLowering<onnx::GeluOp>,
               SoftmaxKernelLowering,
               MaxPoolKernelLowering, GlobalAveragePoolKernelLowering, ReduceMeanKernelLowering>(
      converter, ctx, isa, threads);
}

/// The tensor a kernel wrote into flat buffer `out`, reshaped to `type`
/// (whose dynamic dims are `sizes`).
Value resultTensor(OpBuilder &b, Location loc, Value out, RankedTensorType type,
                   ValueRange sizes) {
  auto flat = RankedTensorType::get({ShapedType::kDynamic}, type.getElementType());
  Value t = bufferization::ToTensorOp::create(b, loc, flat, out, /*restrict=*/true,
                                              /*writable=*/true);
  if (type.hasStaticShape())
    t = tensor::CastOp::create(b, loc,
                               RankedTensorType::get({type.getNumElements()},
                                                     type.getElementType()),
                               t);
  if (type.getRank() == 1)
    return tensor::CastOp::create(b, loc, type, t);
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all[0].push_back(d);
  SmallVector<OpFoldResult> shape;
  unsigned next = 0;
  for (int64_t d = 0; d < type.getRank(); ++d)
    shape.push_back(type.isDynamicDim(d) ? OpFoldResult(sizes[next++])
                                         : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return tensor::ExpandShapeOp::create(b, loc, type, t, all, shape);
}

/// The product of dims [from, to) of `v` (a ranked tensor) as an index
/// value, static parts folded into one constant.
Value dimProduct(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t known = 1;
  Value product;
  for (int64_t d = from; d < to; ++d) {
    if (!type.isDynamicDim(d)) {
      known *= type.getDimSize(d);
      continue;
    }
    Value dim = tensor::DimOp::create(b, loc, v, d);
    product = product ? arith::MulIOp::create(b, loc, product, dim).getResult() : dim;
  }
  if (!product)
    return indexConst(b, loc, known);
  if (known != 1)
    product = arith::MulIOp::create(b, loc, product, indexConst(b, loc, known));
  return product;
}

} // namespace onnxcc::lowering
