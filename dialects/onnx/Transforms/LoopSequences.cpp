//===- LoopSequences.cpp - Sequences a Loop appends to -------------------===//
//
// torch.jit.script exports `res = []; for ...: res.append(t)` as a Loop
// that carries a sequence, starting from SequenceEmpty, with a
// SequenceInsert at the back in its body. Such a sequence holds exactly the
// tensors of every iteration in order, which is what a scan output of the
// Loop is: the carried sequence becomes a scan output, and the final
// sequence its rows (SplitToSequence along axis 0, keepdims 0), which
// onnx-stack-sequences then expresses as a tensor when the trip count is
// known at compile time.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace onnxcc::onnx {

namespace {

/// The SequenceInsert that appends to carried value `k` of `loop` (and
/// whose result the body yields as that value's next one), when that is all
/// the body does with it and the sequence starts empty; else null.
SequenceInsertOp appendOnly(LoopOp loop, unsigned k) {
  if (!loop.getVInitial()[k].getDefiningOp<SequenceEmptyOp>())
    return {};
  Block &body = loop.getBody().front();
  BlockArgument arg = body.getArgument(2 + k);
  if (!arg.hasOneUse())
    return {};
  auto insert = dyn_cast<SequenceInsertOp>(*arg.getUsers().begin());
  if (!insert || insert.getInputSequence() != arg ||
      !isa<NoneType>(insert.getPosition().getType()) || !insert->hasOneUse())
    return {};
  Operation *yield = body.getTerminator();
  if (yield->getOperand(1 + k) != insert.getResult())
    return {};
  return insert;
}

/// Rewrites carried value `k` of `loop` (see appendOnly) into a scan
/// output; returns the new Loop.
LoopOp toScanOutput(LoopOp loop, unsigned k, SequenceInsertOp insert) {
  MLIRContext *ctx = loop.getContext();
  Block &body = loop.getBody().front();
  Operation *yield = body.getTerminator();
  Value tensor = insert.getTensor();
  // The body yields the tensor as a new last scan output.
  SmallVector<Value> yielded(yield->getOperands());
  yielded.erase(yielded.begin() + 1 + k);
  yielded.push_back(tensor);
  yield->setOperands(yielded);
  insert->erase();
  body.eraseArgument(2 + k);

  SmallVector<Value> operands(loop->getOperands());
  Value init = operands[2 + k];
  operands.erase(operands.begin() + 2 + k);
  SmallVector<Type> types(loop->getResultTypes());
  Type seqType = types[k];
  types.erase(types.begin() + k);
  types.push_back(UnrankedTensorType::get(cast<TensorType>(tensor.getType()).getElementType()));

  OpBuilder b(loop);
  OperationState state(loop.getLoc(), loop->getName());
  state.addOperands(operands);
  state.addAttributes(loop->getAttrs());
  state.addTypes(types);
  state.addRegion()->takeBody(loop.getBody());
  Operation *replacement = b.create(state);

  OperationState none(loop.getLoc(), NoValueOp::getOperationName());
  none.addTypes(NoneType::get(ctx));
  Value noSplit = b.create(none)->getResult(0);
  OperationState split(loop.getLoc(), SplitToSequenceOp::getOperationName());
  split.addOperands({replacement->getResults().back(), noSplit});
  split.addAttribute("axis", b.getI64IntegerAttr(0));
  split.addAttribute("keepdims", b.getI64IntegerAttr(0));
  split.addTypes(seqType);
  Value sequence = b.create(split)->getResult(0);

  // Results after k move down by one: the scan outputs follow the carried.
  for (unsigned i = 0; i < loop->getNumResults(); ++i)
    loop->getResult(i).replaceAllUsesWith(
        i == k ? sequence : replacement->getResult(i < k ? i : i - 1));
  loop->erase();
  if (Operation *empty = init.getDefiningOp(); empty && empty->use_empty())
    empty->erase();
  return cast<LoopOp>(replacement);
}

} // namespace

bool appendedSequencesToScanOutputs(func::FuncOp func) {
  bool changed = false;
  SmallVector<LoopOp> loops;
  func.walk([&](LoopOp loop) { loops.push_back(loop); });
  for (LoopOp loop : loops) {
    // Each rewrite replaces the op: the next candidate is on the new one.
    for (bool again = true; again;) {
      again = false;
      for (unsigned k = 0; k < loop.getVInitial().size(); ++k) {
        if (!isa<SeqType>(loop.getVInitial()[k].getType()))
          continue;
        if (SequenceInsertOp insert = appendOnly(loop, k)) {
          loop = toScanOutput(loop, k, insert);
          changed = again = true;
          break;
        }
      }
    }
  }
  return changed;
}

} // namespace onnxcc::onnx
