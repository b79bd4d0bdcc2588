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
// SequenceMap is such a Loop too: one iteration per element of its first
// sequence, reading element i of each sequence input (SequenceAt) and the
// other inputs as they are, its outputs the scan outputs' rows.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"
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

/// Builds `name` with `operands`, `attrs` and one result of `type` at `b`.
Operation *build(OpBuilder &b, Location loc, StringRef name, ValueRange operands, Type type,
                 ArrayRef<NamedAttribute> attrs = {}) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  state.addAttributes(attrs);
  return b.create(state);
}

/// The rows of `stacked` along axis 0 as a sequence of type `seqType`. A
/// ConcatFromSequence that stacks them again along axis 0 (torch.stack) is
/// `stacked` itself: that needs no sequence, even of a length known only at
/// run time.
Value rowsOf(OpBuilder &b, Location loc, Value stacked, Type seqType,
             SmallVectorImpl<Operation *> &stackedAgain) {
  Value none = build(b, loc, NoValueOp::getOperationName(), {}, NoneType::get(b.getContext()))
                   ->getResult(0);
  Value rows = build(b, loc, SplitToSequenceOp::getOperationName(), {stacked, none}, seqType,
                     {b.getNamedAttr("axis", b.getI64IntegerAttr(0)),
                      b.getNamedAttr("keepdims", b.getI64IntegerAttr(0))})
                   ->getResult(0);
  stackedAgain.push_back(rows.getDefiningOp());
  return rows;
}

/// Replaces each ConcatFromSequence(axis 0, new_axis 1) of the rows `split`
/// made by the input of `split`.
void foldStackedAgain(ArrayRef<Operation *> splits) {
  for (Operation *split : splits) {
    Value rows = split->getResult(0);
    for (Operation *user : llvm::make_early_inc_range(rows.getUsers())) {
      auto concat = dyn_cast<ConcatFromSequenceOp>(user);
      if (!concat || concat.getAxis() != 0 || concat.getNewAxis() != 1)
        continue;
      concat.getResult().replaceAllUsesWith(split->getOperand(0));
      concat->erase();
    }
    if (rows.use_empty())
      split->erase();
  }
}

/// Rewrites carried value `k` of `loop` (see appendOnly) into a scan
/// output; returns the new Loop. With `bounds`, the tensor's dims are the
/// data's: the scan outputs are its rows padded to them and its dims.
LoopOp toScanOutput(LoopOp loop, unsigned k, SequenceInsertOp insert,
                    std::optional<SmallVector<int64_t>> bounds) {
  Block &body = loop.getBody().front();
  Operation *yield = body.getTerminator();
  Value tensor = insert.getTensor();
  Type appendedType = tensor.getType();
  // The body yields the tensor as a new last scan output.
  SmallVector<Value> yielded(yield->getOperands());
  yielded.erase(yielded.begin() + 1 + k);
  Value dims;
  if (bounds) {
    std::tie(tensor, dims) = paddedWithDims(yield, tensor, *bounds);
  }
  yielded.push_back(tensor);
  if (dims)
    yielded.push_back(dims);
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
  if (dims)
    types.push_back(UnrankedTensorType::get(IntegerType::get(loop.getContext(), 64)));

  OpBuilder b(loop);
  Operation *replacement = rebuildLoop(loop, operands, types);

  SmallVector<Operation *> splits;
  // The dims every appended tensor has: its static ones.
  SmallVector<int64_t> fixed;
  if (auto appended = dyn_cast<RankedTensorType>(appendedType))
    for (int64_t d : appended.getShape())
      fixed.push_back(ShapedType::isDynamic(d) ? -1 : d);
  Value sequence =
      dims ? build(b, loop.getLoc(), RaggedSequenceOp::getOperationName(),
                   {replacement->getResult(replacement->getNumResults() - 2),
                    replacement->getResults().back()},
                   seqType, {b.getNamedAttr("fixed_dims", b.getDenseI64ArrayAttr(fixed))})
                 ->getResult(0)
           : rowsOf(b, loop.getLoc(), replacement->getResults().back(), seqType, splits);

  // Results after k move down by one: the scan outputs follow the carried.
  for (unsigned i = 0; i < loop->getNumResults(); ++i)
    loop->getResult(i).replaceAllUsesWith(
        i == k ? sequence : replacement->getResult(i < k ? i : i - 1));
  loop->erase();
  if (Operation *empty = init.getDefiningOp(); empty && empty->use_empty())
    empty->erase();
  foldStackedAgain(splits);
  return cast<LoopOp>(replacement);
}

/// SequenceMap as a Loop over the elements of its first input.
void sequenceMapToLoop(SequenceMapOp map) {
  OpBuilder b(map);
  Location loc = map.getLoc();
  MLIRContext *ctx = map.getContext();
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  auto i1 = RankedTensorType::get({}, b.getI1Type());
  Value count = build(b, loc, SequenceLengthOp::getOperationName(), map.getInputSequence(), i64)
                    ->getResult(0);
  Value none = build(b, loc, NoValueOp::getOperationName(), {}, NoneType::get(ctx))->getResult(0);
  Block &old = map.getBody().front();
  Operation *yield = old.getTerminator();
  SmallVector<Type> types;
  for (Type t : yield->getOperandTypes())
    types.push_back(UnrankedTensorType::get(cast<TensorType>(t).getElementType()));
  OperationState state(loc, LoopOp::getOperationName());
  state.addOperands({count, none});
  state.addTypes(types);
  Region *region = state.addRegion();
  Block *body = new Block();
  region->push_back(body);
  Value iter = body->addArgument(i64, loc);
  Value cond = body->addArgument(i1, loc);
  // The block has no op yet to give a builder its context.
  OpBuilder bb(ctx);
  bb.setInsertionPointToStart(body);
  for (auto [j, arg] : llvm::enumerate(old.getArguments())) {
    Value input = map->getOperand(j);
    Value element = input;
    if (isa<SeqType>(input.getType()))
      element = build(bb, loc, SequenceAtOp::getOperationName(), {input, iter}, arg.getType())
                    ->getResult(0);
    arg.replaceAllUsesWith(element);
  }
  body->getOperations().splice(body->end(), old.getOperations());
  SmallVector<Value> yielded{cond};
  llvm::append_range(yielded, yield->getOperands());
  yield->setOperands(yielded);
  Operation *loop = b.create(state);
  SmallVector<Operation *> splits;
  for (auto [k, r] : llvm::enumerate(map->getResults()))
    r.replaceAllUsesWith(rowsOf(b, loc, loop->getResult(k), r.getType(), splits));
  map->erase();
  foldStackedAgain(splits);
}

} // namespace

LoopOp rebuildLoop(LoopOp loop, ValueRange operands, TypeRange types) {
  OpBuilder b(loop);
  OperationState state(loop.getLoc(), loop->getName());
  state.addOperands(operands);
  state.addAttributes(loop->getAttrs());
  state.addTypes(types);
  state.addRegion()->takeBody(loop.getBody());
  return cast<LoopOp>(b.create(state));
}

bool sequenceMapsToLoops(func::FuncOp func) {
  SmallVector<SequenceMapOp> maps;
  func.walk([&](SequenceMapOp map) { maps.push_back(map); });
  for (SequenceMapOp map : maps)
    sequenceMapToLoop(map);
  return !maps.empty();
}

bool appendedSequencesToScanOutputs(func::FuncOp func, const ShapeMap *shapes) {
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
          // A tensor of dims the data decides: rows padded to their bounds
          // (else rows of one shape, which shape inference may yet find).
          std::optional<SmallVector<int64_t>> bounds;
          auto type = dyn_cast<RankedTensorType>(insert.getTensor().getType());
          if (shapes && type && !type.hasStaticShape()) {
            auto shape = shapes->lookup(insert.getTensor());
            bool fromData = shape && llvm::any_of(*shape, [&](const Dim &d) {
                              return shapes->dependsOnData(d);
                            });
            if (fromData)
              bounds = dimBounds(insert.getTensor(), shapes);
          }
          loop = toScanOutput(loop, k, insert, bounds);
          changed = again = true;
          break;
        }
      }
    }
  }
  return changed;
}

} // namespace onnxcc::onnx
