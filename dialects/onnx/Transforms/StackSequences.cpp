//===- StackSequences.cpp - Sequences as stacked tensors -----------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXSTACKSEQUENCESPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {
struct OnnxStackSequencesPass
    : public impl::OnnxStackSequencesPassBase<OnnxStackSequencesPass> {
  void runOnOperation() override {}
};
} // namespace

} // namespace onnxcc::onnx
