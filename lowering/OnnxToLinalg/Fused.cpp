//===- Fused.cpp - onnx fused ops to linalg -------------------------------===//
//
// onnx.FusedConv, onnx.FusedGemm and onnx.FusedMatMul (made by onnx-fuse)
// lower as their anchor does (Convolution.cpp, Linear.cpp), then one
// linalg.generic over the anchor's result computes the epilogue:
//
//   FusedConv    Y = act(conv + Z)                  the bias B starts the
//                                                   convolution's accumulator
//   FusedGemm    Y = act(alpha * A'B' + beta * C + Z)
//   FusedMatMul  Y = act(A B + Bias + Z)
//
// With nothing to add or apply there is no epilogue. An unknown
// activation, or parameters that do not fit it, is an error naming the op.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// Checks the activation of fused op `op` against what the epilogue can
/// compute; reports one error line at the op when it cannot.
LogicalResult checkActivation(Operation *op, StringRef kind,
                              std::optional<ArrayRef<float>> params) {
  struct Kind {
    StringRef name;
    unsigned numParams;
    bool paramsOptional; // absent params take the ONNX op's defaults
    StringRef paramNames;
  };
  static const Kind kinds[] = {
      {"", 0, false, ""},
      {"Relu", 0, false, ""},
      {"Clip", 2, false, "min, max"},
      {"LeakyRelu", 1, true, "alpha"},
      {"Sigmoid", 0, false, ""},
      {"HardSigmoid", 2, true, "alpha, beta"},
      {"HardSwish", 0, false, ""},
      {"SiLU", 0, false, ""},
      {"Gelu", 0, false, ""},
      {"GeluTanh", 0, false, ""},
      {"Tanh", 0, false, ""},
  };
  const Kind *k = llvm::find_if(kinds, [&](const Kind &x) { return x.name == kind; });
  if (k == std::end(kinds))
    return op->emitError() << "cannot lower '" << op->getName() << "': unknown activation '" << kind
                           << "'";
  size_t n = params ? params->size() : 0;
  if (n == k->numParams || (!params && k->paramsOptional))
    return success();
  InFlightDiagnostic d = op->emitError();
  d << "cannot lower '" << op->getName() << "': activation '" << kind << "' takes ";
  if (k->numParams == 0)
    d << "no params";
  else
    d << k->numParams << " params (" << k->paramNames << ")";
  return d << ", got " << n;
}

/// One linalg.generic computing
///   activation(alpha * anchor + beta * bias + z)
/// over `anchor` ([type]); `bias` (broadcasting to it) and `z` (its shape)
/// may be null. `anchor` itself when there is nothing to compute.
Value buildEpilogue(OpBuilder &b, Operation *op, const TypeConverter *converter,
                    RankedTensorType type, Value anchor, Value bias, Value z, double alpha,
                    double beta, StringRef kind, ArrayRef<float> params, Type elem) {
  if (!bias && !z && alpha == 1.0 && kind.empty())
    return anchor;
  Location loc = op->getLoc();
  // Bias and Z are operands 2 and 3 of every fused op; a symbolic dim of
  // theirs broadcasts to the anchor's (checked at run time).
  const unsigned biasOperand = 2, zOperand = 3;
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, anchor, d));
  SmallVector<Value> inputs = {anchor};
  if (bias)
    inputs.push_back(broadcastOperand(b, op, loc, converter, biasOperand, bias, type, sizes));
  if (z)
    inputs.push_back(broadcastOperand(b, op, loc, converter, zOperand, z, type, sizes));
  return buildBroadcastGeneric(
      b, loc, type, inputs, [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Type t = args[0].getType();
        auto scaled = [&](Value v, double s) -> Value {
          if (s == 1.0)
            return v;
          return arith::MulFOp::create(nb, nloc, v, floatConst(nb, nloc, t, s));
        };
        Value r = scaled(args[0], alpha);
        unsigned next = 1;
        if (bias)
          r = arith::AddFOp::create(nb, nloc, r, scaled(args[next++], beta));
        if (z)
          r = arith::AddFOp::create(nb, nloc, r, args[next++]);
        // checkActivation has accepted the kind and its params.
        return *buildActivation(nb, nloc, kind, params, r, elem);
      });
}

Value present(Value v) { return v && !isa<NoneType>(v.getType()) ? v : Value(); }

/// The activation and params of fused op `op`, checked.
template <typename OpTy> FailureOr<std::pair<StringRef, ArrayRef<float>>> activationOf(OpTy op) {
  StringRef kind = op.getActivation();
  std::optional<ArrayRef<float>> params = op.getActivationParams();
  if (failed(checkActivation(op, kind, params)))
    return failure();
  return std::make_pair(kind, params ? *params : ArrayRef<float>());
}

struct FusedConvLowering : OpConversionPattern<onnx::FusedConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::FusedConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto act = activationOf(op);
    if (failed(act))
      return failure();
    auto y = buildFusedConvAnchor(rewriter, op, getTypeConverter(), adaptor.getX(), adaptor.getW(),
                                  adaptor.getB());
    if (failed(y))
      return failure();
    auto type = cast<RankedTensorType>(y->getType());
    rewriter.replaceOp(op, buildEpilogue(rewriter, op, getTypeConverter(), type, *y, Value(),
                                         present(adaptor.getZ()), 1.0, 1.0, act->first, act->second,
                                         onnxElementType(op.getY())));
    return success();
  }
};

/// onnx.FusedConvNHWC has no loop-nest lowering: onnx-channels-last makes
/// it only for what the kernels compute. Reaching this is an error.
struct FusedConvNHWCLowering : OpConversionPattern<onnx::FusedConvNHWCOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::FusedConvNHWCOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    return op.emitError() << "cannot lower '" << op->getName()
                          << "': channels-last convolutions run on the kernels only (pass "
                             "option kernels=generic|avx2|avx512), as static float32 group-1 "
                             "or depthwise convolutions";
  }
};

struct FusedGemmLowering : OpConversionPattern<onnx::FusedGemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::FusedGemmOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto act = activationOf(op);
    if (failed(act))
      return failure();
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Location loc = op.getLoc();
    Value product =
        buildMatMulContraction(rewriter, loc, type, typeAndSizes->second, adaptor.getA(),
                               adaptor.getB(), op.getTransA() != 0, op.getTransB() != 0);
    double beta = op.getBeta().convertToDouble();
    Value c = beta != 0.0 ? present(adaptor.getC()) : Value();
    rewriter.replaceOp(op,
                       buildEpilogue(rewriter, op, getTypeConverter(), type, product, c,
                                     present(adaptor.getZ()), op.getAlpha().convertToDouble(), beta,
                                     act->first, act->second, onnxElementType(op.getY())));
    return success();
  }
};

struct FusedMatMulLowering : OpConversionPattern<onnx::FusedMatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::FusedMatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto act = activationOf(op);
    if (failed(act))
      return failure();
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Location loc = op.getLoc();
    Value a = broadcastMatMulBatch(rewriter, op, loc, getTypeConverter(), 0, adaptor.getA(),
                                   type, typeAndSizes->second);
    Value b = broadcastMatMulBatch(rewriter, op, loc, getTypeConverter(), 1, adaptor.getB(),
                                   type, typeAndSizes->second);
    Value product = buildMatMulContraction(rewriter, loc, type, typeAndSizes->second, a, b);
    rewriter.replaceOp(op, buildEpilogue(rewriter, op, getTypeConverter(), type, product,
                                         present(adaptor.getBias()), present(adaptor.getZ()), 1.0,
                                         1.0, act->first, act->second, onnxElementType(op.getY())));
    return success();
  }
};

} // namespace

void populateFusedPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<FusedConvLowering, FusedConvNHWCLowering, FusedGemmLowering, FusedMatMulLowering>(converter,
                                                                          patterns.getContext());
}

} // namespace onnxcc::lowering
