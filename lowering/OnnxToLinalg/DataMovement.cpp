//===- DataMovement.cpp - Shape and data-movement onnx ops to tensor ops -===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// Reshape-like ops (Reshape, Flatten, Squeeze, Unsqueeze) keep the data
/// order: a tensor.reshape to the static result shape.
template <typename OpTy>
struct ReshapeLikeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, this->getTypeConverter(), op);
    if (!type)
      return failure();
    Location loc = op.getLoc();
    Value input = adaptor.getOperands()[0];
    auto inputType = cast<RankedTensorType>(input.getType());
    // Collapse to 1-D, expand to the result: both are views after bufferization.
    Value flat = input;
    if (inputType.getRank() != 1) {
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        all[0].push_back(d);
      if (inputType.getRank() == 0)
        all.clear();
      auto flatType = RankedTensorType::get(
          inputType.getRank() == 0 ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{inputType.getNumElements()},
          inputType.getElementType());
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flatType, input, all);
    }
    auto flatType = cast<RankedTensorType>(flat.getType());
    if (flatType.getRank() == 0 && type.getRank() == 0) {
      rewriter.replaceOp(op, flat);
      return success();
    }
    if (type.getRank() == 1 && flatType.getRank() == 1) {
      rewriter.replaceOp(op, flat);
      return success();
    }
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    if (flatType.getRank() == 0)
      all.clear();
    if (type.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, flat, SmallVector<ReassociationIndices>{});
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, flat, all);
    return success();
  }
};

} // namespace

void populateDataMovementPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReshapeLikeLowering<onnx::ReshapeOp>, ReshapeLikeLowering<onnx::FlattenOp>,
               ReshapeLikeLowering<onnx::SqueezeOp>, ReshapeLikeLowering<onnx::UnsqueezeOp>>(
      converter, ctx);
}

} // namespace onnxcc::lowering
