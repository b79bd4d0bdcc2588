//===- Attention.cpp - ScaledDotProductAttention to linalg ---------------===//
//
// Y = Softmax(Q K^T * scale + Mask, last dim) V for Q [..., Sq, D],
// K [..., Sk, D], V [..., Sk, Dv], Y [..., Sq, Dv]:
//
//   scores [..., Sq, Sk]  MatMul's contraction over D, K read transposed in
//                         place (buildMatMulContraction)
//   t = scores * scale + Mask   Mask broadcast as numpy does
//   p = Softmax(t)        the Softmax lowering's max-subtracted form
//   Y                     a contraction of p and V over Sk
//
// The leading dims of K, V that are 1 where Y's are not broadcast. Any dim
// may be symbolic.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

struct ScaledDotProductAttentionLowering : OpConversionPattern<onnx::ScaledDotProductAttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::ScaledDotProductAttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    auto [yType, ySizes] = *typeAndSizes;
    Value q = adaptor.getQ(), k = adaptor.getK(), v = adaptor.getV(), mask = adaptor.getMask();
    auto qType = dyn_cast<RankedTensorType>(q.getType());
    auto kType = dyn_cast<RankedTensorType>(k.getType());
    auto vType = dyn_cast<RankedTensorType>(v.getType());
    int64_t rank = yType.getRank();
    if (!qType || !kType || !vType || rank < 2 || qType.getRank() != rank ||
        kType.getRank() != rank || vType.getRank() != rank ||
        !isa<FloatType>(yType.getElementType()))
      return rewriter.notifyMatchFailure(op, "Q, K, V and Y must be float tensors of one rank");
    bool hasMask = !isa<NoneType>(mask.getType());
    auto maskType = hasMask ? dyn_cast<RankedTensorType>(mask.getType()) : RankedTensorType();
    if (hasMask && (!maskType || maskType.getRank() > rank))
      return rewriter.notifyMatchFailure(op, "Mask must broadcast to the scores");
    Location loc = op.getLoc();
    Type elem = yType.getElementType();

    // Scores [lead..., Sq, Sk]: Y's dims but the last, which is K's Sk.
    SmallVector<int64_t> scoresShape(yType.getShape());
    scoresShape.back() = kType.getDimSize(rank - 2);
    auto scoresType = RankedTensorType::get(scoresShape, elem);
    SmallVector<Value> scoresSizes;
    for (int64_t d = 0, next = 0; d < rank; ++d) {
      if (!yType.isDynamicDim(d))
        continue;
      Value size = ySizes[next++];
      if (d < rank - 1)
        scoresSizes.push_back(size);
    }
    if (scoresType.isDynamicDim(rank - 1))
      scoresSizes.push_back(tensor::DimOp::create(rewriter, loc, k, rank - 2));
    Value scores = buildMatMulContraction(rewriter, loc, scoresType, scoresSizes, q, k,
                                          /*transA=*/false, /*transB=*/true);

    double scale = op.getScale().convertToDouble();
    SmallVector<Value> inputs = {scores};
    if (hasMask)
      inputs.push_back(mask);
    Value logits = buildBroadcastGeneric(
        rewriter, loc, scoresType, inputs, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value s = args[0];
          if (scale != 1.0)
            s = arith::MulFOp::create(b, l, s, floatConst(b, l, elem, scale));
          if (args.size() > 1)
            s = arith::AddFOp::create(b, l, s, args[1]);
          return s;
        });
    Value probs = buildSoftmax(rewriter, loc, logits, rank - 1);
    rewriter.replaceOp(op, buildMatMulContraction(rewriter, loc, yType, ySizes, probs, v));
    return success();
  }
};

} // namespace

void populateAttentionPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScaledDotProductAttentionLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
