//===- InferShapes.cpp - The onnx-infer-shapes pass ----------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"
#include "dialects/onnx/Transforms/Passes.h"

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXINFERSHAPESPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {
/// Records the named dims of `func`'s arguments in `map`.
void seedArguments(func::FuncOp func, ShapeMap &map) {
  for (BlockArgument arg : func.getArguments()) {
    auto params = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "onnx.dim_params");
    auto shape = map.lookup(arg);
    if (!params || !shape || params.size() != shape->size())
      continue;
    for (auto [dim, name] : llvm::zip(*shape, params)) {
      auto str = dyn_cast<StringAttr>(name);
      if (str && !str.getValue().empty() && !dim.isStatic())
        dim = Dim::named(str);
    }
    map.set(arg, *shape);
  }
}

struct OnnxInferShapesPass
    : public impl::OnnxInferShapesPassBase<OnnxInferShapesPass> {
  using OnnxInferShapesPassBase::OnnxInferShapesPassBase;
  void runOnOperation() override {
    ShapeMap map;
    if (failed(inferShapesInFunction(getOperation(), &map)))
      return signalPassFailure();
    if (!annotate)
      return;
    Builder b(&getContext());
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() == 0 || !op->getDialect() ||
          op->getDialect()->getNamespace() != "onnx")
        return;
      SmallVector<Attribute> results;
      bool symbolic = false;
      for (Value r : op->getResults()) {
        SmallVector<Attribute> dims;
        if (auto shape = map.lookup(r))
          for (const Dim &d : *shape) {
            dims.push_back(b.getStringAttr(d.str()));
            symbolic |= d.isSymbolic();
          }
        results.push_back(b.getArrayAttr(dims));
      }
      if (symbolic)
        op->setAttr("onnx.symbolic_dims", b.getArrayAttr(results));
    });
  }
};
} // namespace

LogicalResult inferShapesInFunction(func::FuncOp func, ShapeMap *shapes) {
  ShapeMap local;
  ShapeMap &map = shapes ? *shapes : local;
  seedArguments(func, map);
  WalkResult r = func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    return failed(inferShapes(op, map)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  // The function's result types follow what its return now yields.
  Operation *terminator = func.getBody().back().getTerminator();
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 terminator->getOperandTypes()));
  return success();
}

} // namespace onnxcc::onnx
