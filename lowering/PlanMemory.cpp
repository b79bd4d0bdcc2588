//===- PlanMemory.cpp - Outputs as arguments, intermediates in one arena -===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace onnxcc {
#define GEN_PASS_DEF_ONNXCCPLANMEMORYPASS
#define GEN_PASS_DEF_ONNXCCPROTECTINPUTSPASS
#include "lowering/Passes.h.inc"

namespace {

/// Bytes of a static memref, or nullopt.
std::optional<int64_t> byteSize(MemRefType t) {
  if (!t.hasStaticShape() || !t.getLayout().isIdentity())
    return std::nullopt;
  int64_t bits = t.getElementType().isIndex() ? 64 : t.getElementTypeBitWidth();
  int64_t bytes = (bits + 7) / 8;
  return t.getNumElements() * bytes;
}

/// One buffer to place: its live range in top-level op positions.
struct Buffer {
  memref::AllocOp alloc;
  int64_t size;
  int64_t first, last;
  int64_t offset = 0;
};

struct OnnxccProtectInputsPass
    : public impl::OnnxccProtectInputsPassBase<OnnxccProtectInputsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.setArgAttr(i, "bufferization.writable", BoolAttr::get(func.getContext(), false));
  }
};

struct OnnxccPlanMemoryPass : public impl::OnnxccPlanMemoryPassBase<OnnxccPlanMemoryPass> {
  using OnnxccPlanMemoryPassBase::OnnxccPlanMemoryPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitError("memory planning needs a function with one block");
      return signalPassFailure();
    }
    if (failed(resultsToArguments(func)))
      return signalPassFailure();
    if (failed(placeInArena(func)))
      return signalPassFailure();
  }

  /// Returned buffers become trailing output arguments (with the result's
  /// attributes); an alloc that is returned is replaced by its argument.
  LogicalResult resultsToArguments(func::FuncOp func) {
    Block &entry = func.getBody().front();
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    unsigned numInputs = func.getNumArguments();
    SmallVector<Type> argTypes(func.getArgumentTypes());
    SmallVector<DictionaryAttr> resultAttrs;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      resultAttrs.push_back(func.getResultAttrDict(i));
    OpBuilder b(ret);
    llvm::SmallPtrSet<Operation *, 4> replacedAllocs;
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type)
        return ret.emitError("function result is not a buffer");
      if (!type.hasStaticShape())
        return ret.emitError() << "output buffer " << type
                               << " has no static shape; the arena needs static shapes";
      auto argType = MemRefType::get(type.getShape(), type.getElementType());
      BlockArgument arg = entry.addArgument(argType, ret.getLoc());
      argTypes.push_back(argType);
      auto alloc = v.getDefiningOp<memref::AllocOp>();
      if (alloc && type.getLayout().isIdentity() && !replacedAllocs.count(alloc)) {
        replacedAllocs.insert(alloc);
        alloc.getResult().replaceAllUsesWith(arg);
        alloc.erase();
        continue;
      }
      memref::CopyOp::create(b, ret.getLoc(), v, arg);
    }
    func::ReturnOp::create(b, ret.getLoc());
    ret.erase();
    func.setType(FunctionType::get(func.getContext(), argTypes, {}));
    for (auto [i, attrs] : llvm::enumerate(resultAttrs)) {
      if (attrs)
        func.setArgAttrs(numInputs + i, attrs);
      func.setArgAttr(numInputs + i, "onnxcc.output", UnitAttr::get(func.getContext()));
    }
    return success();
  }

  LogicalResult placeInArena(func::FuncOp func) {
    Block &entry = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    int64_t pos = 0;
    for (Operation &op : entry)
      position[&op] = pos++;
    auto topLevel = [&](Operation *op) {
      while (op->getBlock() != &entry)
        op = op->getParentOp();
      return position[op];
    };

    SmallVector<Buffer> buffers;
    WalkResult walk = func.walk([&](memref::AllocOp alloc) {
      auto size = byteSize(alloc.getType());
      if (!size || !alloc.getDynamicSizes().empty()) {
        alloc.emitError() << "buffer " << alloc.getType()
                          << " has no static size; the arena needs static shapes";
        return WalkResult::interrupt();
      }
      Buffer buf{alloc, std::max<int64_t>(*size, 1), topLevel(alloc), topLevel(alloc)};
      // Follow views of the buffer: their uses keep it alive.
      SmallVector<Value> worklist = {alloc.getResult()};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (OpOperand &use : v.getUses()) {
          Operation *user = use.getOwner();
          buf.last = std::max(buf.last, topLevel(user));
          if (auto view = dyn_cast<ViewLikeOpInterface>(user))
            if (view.getViewSource() == v)
              for (Value r : user->getResults())
                worklist.push_back(r);
          if (isa<memref::ExtractStridedMetadataOp, memref::CastOp>(user))
            for (Value r : user->getResults())
              worklist.push_back(r);
        }
      }
      buffers.push_back(buf);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    // Largest first, each at the lowest aligned offset that overlaps no
    // buffer live at the same time. Ties keep program order: deterministic.
    SmallVector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    llvm::stable_sort(order, [](Buffer *a, Buffer *b) { return a->size > b->size; });
    SmallVector<Buffer *> placed;
    int64_t arenaSize = 0;
    auto alignUp = [&](int64_t v) { return (v + alignment - 1) / alignment * alignment; };
    for (Buffer *buf : order) {
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (Buffer *p : placed)
        if (p->first <= buf->last && buf->first <= p->last)
          busy.push_back({p->offset, p->offset + p->size});
      llvm::sort(busy);
      int64_t offset = 0;
      for (auto [lo, hi] : busy) {
        if (offset + buf->size <= lo)
          break;
        offset = std::max(offset, alignUp(hi));
      }
      buf->offset = offset;
      placed.push_back(buf);
      arenaSize = std::max(arenaSize, alignUp(offset + buf->size));
    }

    MLIRContext *ctx = func.getContext();
    auto arenaType = MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8));
    BlockArgument arena = entry.addArgument(arenaType, func.getLoc());
    SmallVector<Type> argTypes(func.getArgumentTypes());
    argTypes.push_back(arenaType);
    func.setType(FunctionType::get(ctx, argTypes, func.getResultTypes()));
    func.setArgAttr(arena.getArgNumber(), "onnxcc.arena", UnitAttr::get(ctx));
    for (Buffer &buf : buffers) {
      OpBuilder b(buf.alloc);
      Value offset = arith::ConstantIndexOp::create(b, buf.alloc.getLoc(), buf.offset);
      Value view = memref::ViewOp::create(b, buf.alloc.getLoc(), buf.alloc.getType(), arena,
                                          offset, ValueRange{});
      buf.alloc.getResult().replaceAllUsesWith(view);
      buf.alloc.erase();
    }
    // Deallocations (none are inserted by the pipeline) would now be wrong.
    func.walk([](memref::DeallocOp d) { d.erase(); });
    func->setAttr("onnxcc.arena_size", IntegerAttr::get(IntegerType::get(ctx, 64), arenaSize));
    func->setAttr("onnxcc.arena_alignment",
                  IntegerAttr::get(IntegerType::get(ctx, 64), alignment.getValue()));
    return success();
  }
};

} // namespace
} // namespace onnxcc
