//===- FoldBatchNorm.cpp - The onnx-fold-batchnorm pass ------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXFOLDBATCHNORMPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {
struct OnnxFoldBatchNormPass : public impl::OnnxFoldBatchNormPassBase<OnnxFoldBatchNormPass> {
  void runOnOperation() override {}
};
} // namespace

} // namespace onnxcc::onnx
