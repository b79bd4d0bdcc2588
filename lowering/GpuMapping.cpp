//===- GpuMapping.cpp - Loop nests to gpu.launch for the CUDA target -----===//
//
// The CPU lowering leaves one function: scalar code (sizes, offsets into the
// arena, run-time checks) around loop nests over buffers. For CUDA the scalar
// code stays on the host and each loop nest becomes a kernel:
//
//   - a top-level scf.parallel: one thread per iteration, the iteration
//     space linearized and cut into blocks (what linalg's parallel dims
//     give: elementwise ops, the output points of convolutions, matrix
//     products and reductions, each with its sequential inner loops);
//   - anything else that touches memory (a sequential loop nest, a lone
//     store): a kernel of one thread, in program order;
//   - a host loop or branch whose body holds parallel loops (the per-batch
//     splitting of symbolic dims) stays on the host, its body handled the
//     same way.
//
// Kernels run in order on one stream, so program order is kept. What the
// host would have to read from device memory is refused with the op's
// location.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace onnxcc {
#define GEN_PASS_DEF_ONNXCCMAPTOGPUPASS
#define GEN_PASS_DEF_ONNXCCMERGEGPUMODULESPASS
#include "lowering/Passes.h.inc"
} // namespace onnxcc

using namespace mlir;

namespace onnxcc {
namespace {

/// Whether `op` reads or writes buffer contents (not only their metadata).
bool touchesMemory(Operation *op) {
  bool touches = false;
  op->walk([&](Operation *inner) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp, memref::AtomicRMWOp,
            memref::GenericAtomicRMWOp>(inner))
      touches = true;
    if (auto call = dyn_cast<func::CallOp>(inner))
      touches |= llvm::any_of(call.getOperandTypes(), llvm::IsaPred<MemRefType>);
  });
  return touches;
}

/// Whether `op` holds work that must be launched from the host: a parallel
/// loop, or a call (runtime checks run on the host).
bool holdsHostWork(Operation *op) {
  bool holds = false;
  op->walk([&](Operation *inner) {
    if (inner != op && isa<scf::ParallelOp, func::CallOp>(inner))
      holds = true;
  });
  return holds;
}

/// memref.copy as a parallel loop of loads and stores over the source's dims.
void expandCopy(memref::CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getSource().getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  if (type.getRank() == 0) {
    Value v = memref::LoadOp::create(b, loc, copy.getSource(), ValueRange{});
    memref::StoreOp::create(b, loc, v, copy.getTarget(), ValueRange{});
    copy.erase();
    return;
  }
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lbs.push_back(zero);
    steps.push_back(one);
    ubs.push_back(memref::DimOp::create(b, loc, copy.getSource(), d));
  }
  scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                          [&](OpBuilder &nb, Location l, ValueRange ivs) {
                            Value v = memref::LoadOp::create(nb, l, copy.getSource(), ivs);
                            memref::StoreOp::create(nb, l, v, copy.getTarget(), ivs);
                          });
  copy.erase();
}

/// Integer arithmetic and casts that LLVM leaves undefined get the values
/// the cpp target documents (ABI.md, "Arithmetic that ONNX leaves
/// undefined"): x / 0 and x % 0 are 0, MIN / -1 is MIN, a shift by the width
/// or more is 0 (an arithmetic right shift gives the sign), and a float to
/// integer cast saturates, NaN giving 0 (the GPU's own conversion).
void defineUndefinedArithmetic(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<arith::DivSIOp, arith::RemSIOp, arith::DivUIOp, arith::RemUIOp, arith::ShLIOp,
            arith::ShRSIOp, arith::ShRUIOp, arith::FPToSIOp, arith::FPToUIOp>(op) &&
        isa<IntegerType>(op->getResult(0).getType()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto type = cast<IntegerType>(op->getResult(0).getType());
    unsigned width = type.getWidth();
    auto constant = [&](const APInt &v) {
      return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v)).getResult();
    };
    Value result;
    if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
      bool isSigned = isa<arith::FPToSIOp>(op);
      Value x = op->getOperand(0);
      auto ft = cast<FloatType>(x.getType());
      APInt lowInt = isSigned ? APInt::getSignedMinValue(width) : APInt::getZero(width);
      APInt highInt = isSigned ? APInt::getSignedMaxValue(width) : APInt::getMaxValue(width);
      // In range: [low, limit), low = -2^(width-1) or 0 and limit = 2^(width-1)
      // or 2^width, both exact in binary floating point (limit may round to
      // infinity in a narrow float type, which keeps the test right).
      APFloat low(ft.getFloatSemantics());
      low.convertFromAPInt(lowInt, isSigned, APFloat::rmNearestTiesToEven);
      APFloat two(ft.getFloatSemantics(), 2);
      APFloat limit(ft.getFloatSemantics(), 1);
      for (unsigned k = 0; k < (isSigned ? width - 1 : width); ++k)
        limit.multiply(two, APFloat::rmNearestTiesToEven);
      Value lowF = arith::ConstantFloatOp::create(b, loc, ft, low);
      Value limitF = arith::ConstantFloatOp::create(b, loc, ft, limit);
      Value geLow = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, lowF);
      Value ltHigh = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, limitF);
      Value inRange = arith::AndIOp::create(b, loc, geLow, ltHigh);
      Value zeroF = arith::ConstantFloatOp::create(b, loc, ft, APFloat::getZero(ft.getFloatSemantics()));
      Value safe = arith::SelectOp::create(b, loc, inRange, x, zeroF);
      Value cast = isSigned ? arith::FPToSIOp::create(b, loc, type, safe).getResult()
                            : arith::FPToUIOp::create(b, loc, type, safe).getResult();
      Value aboveHigh = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, limitF);
      Value belowLow = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, lowF);
      result = arith::SelectOp::create(b, loc, aboveHigh, constant(highInt), cast);
      result = arith::SelectOp::create(b, loc, belowLow, constant(lowInt), result);
    } else if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
      Value x = op->getOperand(0), n = op->getOperand(1);
      Value w = constant(APInt(width, width));
      Value tooFar = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, n, w);
      Value safeN = arith::SelectOp::create(b, loc, tooFar, constant(APInt(width, 0)), n);
      Operation *shift = b.clone(*op);
      shift->setOperand(1, safeN);
      Value past = constant(APInt(width, 0));
      if (isa<arith::ShRSIOp>(op))
        past = arith::ShRSIOp::create(b, loc, x, constant(APInt(width, width - 1)));
      result = arith::SelectOp::create(b, loc, tooFar, past, shift->getResult(0));
    } else {
      Value x = op->getOperand(0), d = op->getOperand(1);
      Value zero = constant(APInt(width, 0)), one = constant(APInt(width, 1));
      Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, zero);
      Value avoid = isZero;
      if (isa<arith::DivSIOp, arith::RemSIOp>(op)) {
        Value isMin = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x,
                                            constant(APInt::getSignedMinValue(width)));
        Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d,
                                                 constant(APInt::getAllOnes(width)));
        avoid = arith::OrIOp::create(b, loc, isZero,
                                     arith::AndIOp::create(b, loc, isMin, isMinusOne));
      }
      Value safeD = arith::SelectOp::create(b, loc, avoid, one, d);
      Operation *div = b.clone(*op);
      div->setOperand(1, safeD);
      // x / 0 and x % 0 are 0; MIN / -1 is MIN (x / 1), MIN % -1 is 0 (x % 1).
      result = arith::SelectOp::create(b, loc, isZero, zero, div->getResult(0));
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

struct MapToGpu : impl::OnnxccMapToGpuPassBase<MapToGpu> {
  using Base::Base;

  LogicalResult mapBlock(Block &block);
  void launchParallel(scf::ParallelOp loop);
  void launchSequential(ArrayRef<Operation *> ops);

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func->hasAttr("onnxcc.arena_size_of"))
        continue;
      // Constants are read through pointers the host passes.
      Block &entry = func.getBody().front();
      // A memref.dim of a reinterpret_cast is that size (upstream's folder
      // does not look through the cast): the canonicalizer after this pass
      // then drops a view the host reads only for its dims, which would be
      // an unused variable in the host code.
      func.walk([&](memref::DimOp dim) {
        auto cast = dim.getSource().getDefiningOp<memref::ReinterpretCastOp>();
        std::optional<int64_t> index = dim.getConstantIndex();
        if (!cast || !index || *index < 0 || *index >= cast.getType().getRank())
          return;
        OpBuilder b(dim);
        dim.replaceAllUsesWith(
            getValueOrCreateConstantIndexOp(b, dim.getLoc(), cast.getMixedSizes()[*index]));
        dim.erase();
      });
      SmallVector<memref::GetGlobalOp> globals;
      func.walk([&](memref::GetGlobalOp g) { globals.push_back(g); });
      for (memref::GetGlobalOp g : globals)
        g->moveBefore(&entry, entry.begin());
      SmallVector<memref::CopyOp> copies;
      func.walk([&](memref::CopyOp c) { copies.push_back(c); });
      for (memref::CopyOp c : copies)
        expandCopy(c);
      if (failed(mapBlock(entry)))
        return signalPassFailure();
      bool smallFloats = false;
      func.walk([&](gpu::LaunchOp launch) {
        defineUndefinedArithmetic(launch);
        launch.walk([&](Operation *op) {
          // math.trunc has no NVVM lowering: copysign(floor(|x|), x).
          if (auto trunc = dyn_cast<math::TruncOp>(op)) {
            OpBuilder b(trunc);
            Value x = trunc.getOperand();
            Value floor = math::FloorOp::create(b, trunc.getLoc(),
                                                math::AbsFOp::create(b, trunc.getLoc(), x));
            trunc.replaceAllUsesWith(math::CopySignOp::create(b, trunc.getLoc(), floor, x)
                                         .getResult());
            trunc.erase();
            return;
          }
          for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
            Type e = getElementTypeOrSelf(t);
            if (auto m = dyn_cast<MemRefType>(t))
              e = m.getElementType();
            if (isa<FloatType>(e) && cast<FloatType>(e).getWidth() < 16 && !smallFloats) {
              smallFloats = true;
              op->emitError("float8 and float4 element types are not supported by --target "
                            "cuda yet");
            }
          }
        });
      });
      if (smallFloats)
        return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
  }
};

LogicalResult MapToGpu::mapBlock(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  SmallVector<Operation *> sequential;
  auto flush = [&] {
    if (!sequential.empty())
      launchSequential(sequential);
    sequential.clear();
  };
  for (Operation *op : ops) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      flush();
      if (loop.getNumResults() != 0)
        return op->emitError("a parallel loop with reductions cannot run on the "
                                          "GPU yet");
      launchParallel(loop);
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      flush();
      if (llvm::any_of(call.getOperandTypes(), llvm::IsaPred<MemRefType>)) {
        std::string callee = call.getCallee().str();
        if (auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                call, call.getCalleeAttr()))
          if (auto rt = fn->getAttrOfType<StringAttr>("onnxcc.runtime"))
            callee = rt.str();
        return op->emitError("the runtime-support function '" + callee +
                             "' has no CUDA version yet");
      }
      continue;
    }
    if (!touchesMemory(op) && !isa<memref::AllocaOp, memref::AllocOp>(op)) {
      // Host scalar code, views, the return. Only adjacent ops share a
      // kernel: a later one may use what this op defines.
      flush();
      continue;
    }
    if (op->getNumRegions() && holdsHostWork(op)) {
      flush();
      if (llvm::any_of(op->getResultTypes(), llvm::IsaPred<MemRefType>))
        return op->emitError("a host loop or branch yielding buffers cannot run on "
                                          "the GPU yet");
      for (Region &r : op->getRegions())
        for (Block &b : r)
          if (failed(mapBlock(b)))
            return failure();
      continue;
    }
    if (isa<memref::AllocaOp, memref::AllocOp>(op))
      return op->emitError("a buffer outside the arena cannot be used on the GPU");
    // A scalar the host reads (a run-time shape operand): the emitter reads
    // it from device memory once the kernels before it have finished.
    if (isa<memref::LoadOp>(op)) {
      flush();
      continue;
    }
    // A value computed from tensor data that the host needs.
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (user->getBlock() == &block || !op->isAncestor(user))
          return op->emitError("a size, a branch or a loop bound that depends on tensor "
                               "values cannot be computed on the GPU target yet");
    sequential.push_back(op);
  }
  flush();
  return success();
}

/// ceil(a / b) for a >= 0 and b > 0, in ops the host emitter prints.
Value ceilDiv(OpBuilder &b, Location loc, Value a, Value d) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value sum = arith::AddIOp::create(b, loc, a, arith::SubIOp::create(b, loc, d, one));
  return arith::DivUIOp::create(b, loc, sum, d);
}

/// One thread per iteration of `loop`, its iteration space linearized.
void MapToGpu::launchParallel(scf::ParallelOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> trips;
  Value total = one;
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    // ceil((ub - lb) / step), 0 when ub <= lb (steps are positive).
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    span = arith::MaxSIOp::create(b, loc, span, zero);
    Value trip = ceilDiv(b, loc, span, step);
    trips.push_back(trip);
    total = arith::MulIOp::create(b, loc, total, trip);
  }
  Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value blocks = ceilDiv(b, loc, total, block);
  auto launch = gpu::LaunchOp::create(b, loc, blocks, one, one, block, one, one);
  OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value bid = launch.getBlockIds().x, tid = launch.getThreadIds().x;
  Value kblock = arith::ConstantIndexOp::create(kb, loc, blockSize);
  Value gid = arith::AddIOp::create(kb, loc, arith::MulIOp::create(kb, loc, bid, kblock), tid);
  Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, gid, total);
  auto guard = scf::IfOp::create(kb, loc, inRange, /*withElseRegion=*/false);
  gpu::TerminatorOp::create(kb, loc);
  OpBuilder ib = guard.getThenBodyBuilder();
  IRMapping map;
  Value rest = gid;
  SmallVector<Value> ivs(trips.size());
  for (int64_t d = int64_t(trips.size()) - 1; d >= 0; --d) {
    Value pos = d == 0 ? rest : arith::RemUIOp::create(ib, loc, rest, trips[d]).getResult();
    if (d > 0)
      rest = arith::DivUIOp::create(ib, loc, rest, trips[d]);
    Value scaled = arith::MulIOp::create(ib, loc, pos, loop.getStep()[d]);
    ivs[d] = arith::AddIOp::create(ib, loc, loop.getLowerBound()[d], scaled);
  }
  for (auto [iv, v] : llvm::zip(loop.getInductionVars(), ivs))
    map.map(iv, v);
  for (Operation &op : loop.getBody()->without_terminator())
    ib.clone(op, map);
  loop.erase();
}

/// `ops`, consecutive in one block, in a kernel of one thread.
void MapToGpu::launchSequential(ArrayRef<Operation *> ops) {
  OpBuilder b(ops.front());
  Location loc = ops.front()->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
  Block &body = launch.getBody().front();
  OpBuilder kb = OpBuilder::atBlockBegin(&body);
  auto term = gpu::TerminatorOp::create(kb, loc);
  for (Operation *op : ops)
    op->moveBefore(term);
}

struct MergeGpuModules : impl::OnnxccMergeGpuModulesPassBase<MergeGpuModules> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(module.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;
    OpBuilder b(modules.front());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), "onnxcc_kernels");
    // The kernels in launch order.
    DenseMap<SymbolRefAttr, SymbolRefAttr> renamed;
    int next = 0;
    Operation *last = nullptr;
    // Collected first: the kernels move between modules below.
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      SymbolRefAttr old = launch.getKernel();
      auto it = renamed.find(old);
      if (it == renamed.end()) {
        auto fn = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(launch, old);
        if (!fn) {
          launch.emitError("launches a kernel that is not there");
          return signalPassFailure();
        }
        std::string name = "k" + std::to_string(next++);
        fn->remove();
        fn.setName(name);
        if (last)
          merged.getBody()->getOperations().insertAfter(last->getIterator(), fn);
        else
          merged.getBody()->push_front(fn);
        last = fn;
        it = renamed
                 .insert({old, SymbolRefAttr::get(merged.getNameAttr(),
                                                  {FlatSymbolRefAttr::get(fn.getNameAttr())})})
                 .first;
      }
      launch.setKernelAttr(it->second);
    }
    for (gpu::GPUModuleOp m : modules)
      m.erase();
  }
};

} // namespace
} // namespace onnxcc
