//===- Simplify.cpp - The onnx-simplify pass ----------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXSIMPLIFYPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {
struct OnnxSimplifyPass : public impl::OnnxSimplifyPassBase<OnnxSimplifyPass> {
  void runOnOperation() override {}
};
} // namespace

} // namespace onnxcc::onnx
