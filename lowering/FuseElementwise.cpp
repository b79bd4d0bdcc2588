//===- FuseElementwise.cpp - Elementwise fusion with a size bound --------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace onnxcc {
#define GEN_PASS_DEF_ONNXCCFUSEELEMENTWISEPASS
#include "lowering/Passes.h.inc"

namespace {

/// Ops in the body of the linalg op defining `v` (0 for other producers).
int64_t bodyOps(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp->getNumRegions() != 1 || linalgOp->getRegion(0).empty())
    return 0;
  return static_cast<int64_t>(linalgOp->getRegion(0).front().getOperations().size());
}

struct OnnxccFuseElementwisePass
    : public impl::OnnxccFuseElementwisePassBase<OnnxccFuseElementwisePass> {
  using OnnxccFuseElementwisePassBase::OnnxccFuseElementwisePassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    int64_t limit = maxBodyOps;
    linalg::ControlFusionFn control = [limit](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      return bodyOps(producer) + bodyOps(fused->getOwner()) <= limit;
    };
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    // Constant folding only of generic ops that have loops: upstream's
    // folding of a named op over a 0-d constant (linalg.copy of a scalar an
    // If branch yields) crashes.
    linalg::ControlFusionFn foldControl = [control](OpOperand *fused) {
      auto generic = dyn_cast<linalg::GenericOp>(fused->getOwner());
      return generic && generic.getNumLoops() > 0 && control(fused);
    };
    linalg::populateConstantFoldLinalgOperations(patterns, foldControl);
    // Top-down, as upstream, for compile time. Not converging leaves valid,
    // less fused IR: not an error.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
} // namespace onnxcc
