//===- Optionals.cpp - Optionals whose presence is known -----------------===//
//
// Inside a graph, whether an optional holds a value is known when it is
// made: Optional(x) holds x, Optional() (or an absent input) holds nothing,
// and a tensor or sequence given where an optional is expected is present.
// OptionalHasElement then becomes a constant and OptionalGetElement the value
// itself; the Optional ops nothing reads any more go away. Optionals at the
// graph's boundary (inputs and outputs) are not handled here.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace onnxcc::onnx {

namespace {
/// The value `v` holds when known: the present value (null when empty).
/// False when it is not known (a function argument, a loop-carried value).
bool knownContent(Value v, Value &content) {
  if (isa<NoneType>(v.getType())) {
    content = {};
    return true;
  }
  if (!isa<OptType>(v.getType())) {
    content = v;
    return true;
  }
  auto opt = v.getDefiningOp<OptionalOp>();
  if (!opt)
    return false;
  Value input = opt.getInput();
  content = input && !isa<NoneType>(input.getType()) ? input : Value();
  return true;
}
} // namespace

void resolveOptionals(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<OptionalHasElementOp, OptionalGetElementOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    Value content;
    if (!knownContent(op->getOperand(0), content))
      continue;
    if (isa<OptionalHasElementOp>(op)) {
      OpBuilder b(op);
      auto type = RankedTensorType::get({}, b.getI1Type());
      auto c = ConstantOp::create(
          b, op->getLoc(), TypeRange{type}, ValueRange{},
          {b.getNamedAttr("value", DenseElementsAttr::get(type, static_cast<bool>(content)))});
      op->getResult(0).replaceAllUsesWith(c->getResult(0));
      op->erase();
      continue;
    }
    // OptionalGetElement of an empty optional is the model's error, left to
    // the lowering to report; of a value, that value (same type or refined).
    if (!content)
      continue;
    Value result = op->getResult(0);
    if (result.getType() != content.getType() &&
        !(isa<TensorType>(result.getType()) && isa<TensorType>(content.getType())))
      continue;
    result.replaceAllUsesWith(content);
    op->erase();
  }
  SmallVector<OptionalOp> unused;
  func.walk([&](OptionalOp op) {
    if (op->use_empty())
      unused.push_back(op);
  });
  for (OptionalOp op : unused)
    op->erase();
}

} // namespace onnxcc::onnx
