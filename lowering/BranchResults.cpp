//===- BranchResults.cpp - scf.if buffer results into one buffer ---------===//
#include "lowering/Passes.h"

using namespace mlir;

namespace onnxcc {
#define GEN_PASS_DEF_ONNXCCBRANCHRESULTSTOBUFFERSPASS
#include "lowering/Passes.h.inc"

namespace {

struct OnnxccBranchResultsToBuffersPass
    : public impl::OnnxccBranchResultsToBuffersPassBase<OnnxccBranchResultsToBuffersPass> {
  void runOnOperation() override {
    // A select of two buffers (an scf.if of two constants, canonicalized)
    // becomes an scf.if that yields them, rewritten below.
    SmallVector<arith::SelectOp> selects;
    getOperation().walk([&](arith::SelectOp op) {
      if (isa<MemRefType>(op.getType()) && op.getCondition().getType().isInteger(1))
        selects.push_back(op);
    });
    for (arith::SelectOp op : selects) {
      OpBuilder b(op);
      auto ifOp = scf::IfOp::create(b, op.getLoc(), TypeRange{op.getType()}, op.getCondition(),
                                    /*withElseRegion=*/true);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      scf::YieldOp::create(tb, op.getLoc(), op.getTrueValue());
      OpBuilder eb = ifOp.getElseBodyBuilder();
      scf::YieldOp::create(eb, op.getLoc(), op.getFalseValue());
      op.getResult().replaceAllUsesWith(ifOp.getResult(0));
      op.erase();
    }
    SmallVector<scf::IfOp> ifs;
    getOperation().walk([&](scf::IfOp op) { ifs.push_back(op); });
    // Inner ones first: an outer branch may yield an inner result.
    for (scf::IfOp op : ifs)
      rewrite(op);
  }

  static void rewrite(scf::IfOp op) {
    SmallVector<unsigned> buffers;
    for (auto [i, t] : llvm::enumerate(op.getResultTypes()))
      if (auto m = dyn_cast<MemRefType>(t); m && m.hasStaticShape())
        buffers.push_back(i);
    if (buffers.empty() || op.getElseRegion().empty())
      return;
    OpBuilder b(op);
    SmallVector<Value> allocs;
    for (unsigned i : buffers) {
      auto t = cast<MemRefType>(op.getResult(i).getType());
      allocs.push_back(
          memref::AllocOp::create(b, op.getLoc(), MemRefType::get(t.getShape(), t.getElementType())));
    }
    SmallVector<Type> kept;
    for (auto [i, t] : llvm::enumerate(op.getResultTypes()))
      if (!llvm::is_contained(buffers, i))
        kept.push_back(t);
    for (Region *region : {&op.getThenRegion(), &op.getElseRegion()}) {
      auto yield = cast<scf::YieldOp>(region->front().getTerminator());
      OpBuilder yb(yield);
      SmallVector<Value> rest;
      for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
        auto it = llvm::find(buffers, i);
        if (it == buffers.end()) {
          rest.push_back(v);
          continue;
        }
        memref::CopyOp::create(yb, yield.getLoc(), v, allocs[it - buffers.begin()]);
      }
      scf::YieldOp::create(yb, yield.getLoc(), rest);
      yield.erase();
    }
    auto replacement = scf::IfOp::create(b, op.getLoc(), kept, op.getCondition(),
                                         /*addThenBlock=*/false, /*addElseBlock=*/false);
    replacement.getThenRegion().takeBody(op.getThenRegion());
    replacement.getElseRegion().takeBody(op.getElseRegion());
    unsigned next = 0;
    for (auto [i, r] : llvm::enumerate(op.getResults())) {
      auto it = llvm::find(buffers, i);
      Value with = it == buffers.end() ? replacement.getResult(next++)
                                       : allocs[it - buffers.begin()];
      if (with.getType() != r.getType())
        with = memref::CastOp::create(b, op.getLoc(), r.getType(), with);
      r.replaceAllUsesWith(with);
    }
    op.erase();
  }
};

} // namespace
} // namespace onnxcc
