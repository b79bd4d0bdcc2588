//===- PlanMemory.cpp - Outputs as arguments, intermediates in one arena -===//
#include "lowering/Passes.h"

#include "dialects/onnx/ShapeContext.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <cmath>

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
  onnx::SymExpr bytes; // the size when symbolic
  Value offsetValue;   // the offset when symbolic
  int host = -1;       // the buffer this one lives inside (static shapes), or -1
  int64_t hostOffset = 0; // its byte offset there
};

using onnx::SymExpr;

/// The attributes of `arg` when it is an argument of a function, as far as
/// the function's argument attributes reach (an output buffer added as an
/// argument may have none: reading past them would read past the array).
DictionaryAttr argAttrs(BlockArgument arg) {
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  ArrayAttr all = func && arg.getOwner()->isEntryBlock() ? func.getArgAttrsAttr() : ArrayAttr();
  return all && arg.getArgNumber() < all.size()
             ? dyn_cast_or_null<DictionaryAttr>(all[arg.getArgNumber()])
             : DictionaryAttr();
}

/// The symbol an index argument stands for, or null.
StringAttr symbolOf(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  DictionaryAttr attrs = arg ? argAttrs(arg) : DictionaryAttr();
  return attrs ? attrs.getAs<StringAttr>("onnxcc.symbol") : StringAttr();
}

/// `v` (an index value computed from the symbols) as a polynomial. A
/// data-dependent dim (a NonZero's count, computed at run time as
/// `arith.minui %count, %bound`) is its bound, an upper bound of `v` as long
/// as it is not subtracted (`negated`): then `*bounded` is set, or, with
/// `bounded` null, there is no polynomial. With `derived` (buffer sizes), a
/// derived symbol is itself rather than its bound.
std::optional<SymExpr> polyOf(Value v, int depth = 0, bool negated = false,
                              bool *bounded = nullptr, bool derived = false);

/// Dim `d` of memref `m` as a polynomial of the symbols (see polyOf).
std::optional<SymExpr> dimPoly(Value m, int64_t d, int depth = 0, bool negated = false,
                               bool *bounded = nullptr, bool derived = false) {
  auto type = cast<MemRefType>(m.getType());
  if (!type.isDynamicDim(d))
    return SymExpr::constant(type.getDimSize(d));
  if (depth > 64)
    return std::nullopt;
  if (auto arg = dyn_cast<BlockArgument>(m)) {
    DictionaryAttr attrs = argAttrs(arg);
    auto dims = attrs ? attrs.getAs<ArrayAttr>("onnxcc.dims") : ArrayAttr();
    if (!dims || d >= static_cast<int64_t>(dims.size()))
      return std::nullopt;
    return onnx::dimFromAttr(dims[d]).asExpr();
  }
  Operation *def = m.getDefiningOp();
  if (auto alloc = dyn_cast<memref::AllocOp>(def))
    return polyOf(alloc.getDynamicSizes()[type.getDynamicDimIndex(d)], depth + 1, negated, bounded, derived);
  if (auto view = dyn_cast<memref::ViewOp>(def))
    return polyOf(view.getSizes()[type.getDynamicDimIndex(d)], depth + 1, negated, bounded, derived);
  if (auto cast = dyn_cast<memref::CastOp>(def))
    return dimPoly(cast.getSource(), d, depth + 1, negated, bounded, derived);
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
    OpFoldResult size = expand.getMixedOutputShape()[d];
    if (auto attr = dyn_cast<Attribute>(size))
      return SymExpr::constant(cast<IntegerAttr>(attr).getInt());
    return polyOf(cast<Value>(size), depth + 1, negated, bounded, derived);
  }
  // A view of part of a buffer (a Split's part) has the sizes it was made
  // with; the dims it drops are 1 and do not count.
  if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    SmallVector<OpFoldResult> sizes = subview.getMixedSizes();
    int64_t kept = -1;
    for (auto [s, size] : llvm::enumerate(sizes)) {
      if (dropped.test(s) || ++kept != d)
        continue;
      if (auto attr = dyn_cast<Attribute>(size))
        return SymExpr::constant(cast<IntegerAttr>(attr).getInt());
      return polyOf(cast<Value>(size), depth + 1, negated, bounded, derived);
    }
    return std::nullopt;
  }
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
    OpFoldResult size = expand.getMixedOutputShape()[d];
    if (auto attr = dyn_cast<Attribute>(size))
      return SymExpr::constant(cast<IntegerAttr>(attr).getInt());
    return polyOf(cast<Value>(size), depth + 1, negated, bounded, derived);
  }
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
    std::optional<SymExpr> product = SymExpr::constant(1);
    // A local: the range-for would otherwise walk a destroyed temporary.
    SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
    for (int64_t s : groups[d]) {
      auto part = dimPoly(collapse.getSrc(), s, depth + 1, negated, bounded, derived);
      if (!part || !(product = SymExpr::mul(*product, *part)))
        return std::nullopt;
    }
    return product;
  }
  return std::nullopt;
}

std::optional<SymExpr> polyOf(Value v, int depth, bool negated, bool *bounded, bool derived) {
  if (depth > 64)
    return std::nullopt;
  if (StringAttr s = symbolOf(v))
    return SymExpr::symbol(s);
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  // With `derived`, a derived symbol (a strided window's length, a
  // quotient) is itself, which placeSymbolic computes again from the
  // inputs' symbols; else its bound (the minui below).
  if (auto name = def->getAttrOfType<StringAttr>("onnxcc.derived_symbol"); name && derived)
    return SymExpr::symbol(name);
  if (auto c = dyn_cast<arith::ConstantIndexOp>(def))
    return SymExpr::constant(c.value());
  if (auto dim = dyn_cast<memref::DimOp>(def)) {
    auto index = dim.getConstantIndex();
    if (!index)
      return std::nullopt;
    return dimPoly(dim.getSource(), *index, depth + 1, negated, bounded, derived);
  }
  // Sums and products in an affine map (the size of a tensor.concat).
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    AffineMap map = apply.getAffineMap();
    if (map.getNumResults() != 1)
      return std::nullopt;
    std::function<std::optional<SymExpr>(AffineExpr)> eval =
        [&](AffineExpr e) -> std::optional<SymExpr> {
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        return SymExpr::constant(c.getValue());
      if (auto d = dyn_cast<AffineDimExpr>(e))
        return polyOf(apply.getMapOperands()[d.getPosition()], depth + 1, negated, bounded, derived);
      if (auto s = dyn_cast<AffineSymbolExpr>(e))
        return polyOf(apply.getMapOperands()[map.getNumDims() + s.getPosition()], depth + 1, negated, bounded, derived);
      auto bin = dyn_cast<AffineBinaryOpExpr>(e);
      if (!bin || (e.getKind() != AffineExprKind::Add && e.getKind() != AffineExprKind::Mul))
        return std::nullopt;
      auto a = eval(bin.getLHS()), b = eval(bin.getRHS());
      if (!a || !b)
        return std::nullopt;
      return e.getKind() == AffineExprKind::Add ? SymExpr::add(*a, *b) : SymExpr::mul(*a, *b);
    };
    return eval(map.getResult(0));
  }
  if (auto min = dyn_cast<arith::MinUIOp>(def)) {
    if (auto exact = polyOf(min.getLhs(), depth + 1, negated, nullptr, derived))
      return exact;
    if (negated || !bounded)
      return std::nullopt;
    *bounded = true;
    return polyOf(min.getRhs(), depth + 1, negated, bounded, derived);
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    auto a = polyOf(def->getOperand(0), depth + 1, negated, bounded, derived);
    auto b = polyOf(def->getOperand(1), depth + 1,
                    isa<arith::SubIOp>(def) ? !negated : negated, bounded, derived);
    if (!a || !b)
      return std::nullopt;
    if (isa<arith::AddIOp>(def))
      return SymExpr::add(*a, *b);
    if (isa<arith::SubIOp>(def))
      return SymExpr::sub(*a, *b);
    return SymExpr::mul(*a, *b);
  }
  return std::nullopt;
}

/// Builds `e` from the symbol values in `symbols`.
Value buildPoly(OpBuilder &b, Location loc, const SymExpr &e,
                const llvm::DenseMap<StringAttr, Value> &symbols) {
  Value sum;
  for (const SymExpr::Term &t : e.getTerms()) {
    Value term;
    for (StringAttr s : t.syms) {
      Value v = symbols.lookup(s);
      term = term ? Value(arith::MulIOp::create(b, loc, term, v)) : v;
    }
    Value c = arith::ConstantIndexOp::create(b, loc, t.coeff);
    term = !term ? c : t.coeff == 1 ? term : Value(arith::MulIOp::create(b, loc, term, c));
    sum = sum ? Value(arith::AddIOp::create(b, loc, sum, term)) : term;
  }
  return sum ? sum : Value(arith::ConstantIndexOp::create(b, loc, 0));
}

/// Follows views and casts from `v` back to the buffer they view.
Value viewRoot(Value v) {
  for (int depth = 0; depth < 64; ++depth) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return v;
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      v = cast.getSource();
    else
      return v;
  }
  return v;
}

/// The element offset of `v` (a strided memref) when its elements are one
/// contiguous run starting there, else nullopt. Dims of size 1 may have any
/// stride.
std::optional<int64_t> contiguousOffset(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || ShapedType::isDynamic(offset))
    return std::nullopt;
  int64_t expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (type.getDimSize(d) != 1 && strides[d] != expected)
      return std::nullopt;
    expected *= type.getDimSize(d);
  }
  return offset;
}

/// Calls `f(op)` for each op that reads or writes the memory of `root`
/// (every user reached through views and casts that is not one itself).
template <typename F> void forEachAccess(Value root, F f) {
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if ((view && view.getViewSource() == v) ||
          isa<memref::CastOp, memref::ExtractStridedMetadataOp>(user)) {
        for (Value r : user->getResults())
          worklist.push_back(r);
        continue;
      }
      f(user);
    }
  }
}

struct OnnxccProtectInputsPass
    : public impl::OnnxccProtectInputsPassBase<OnnxccProtectInputsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.setArgAttr(i, "bufferization.writable", BoolAttr::get(func.getContext(), false));
  }
};

struct OnnxccPlanMemoryPass : public impl::OnnxccPlanMemoryPassBase<OnnxccPlanMemoryPass> {
  using OnnxccPlanMemoryPassBase::OnnxccPlanMemoryPassBase;

  void runOnOperation() override {
    for (auto func : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      if (func.isExternal() || func->hasAttr("onnxcc.arena_size_of"))
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitError("memory planning needs a function with one block");
        return signalPassFailure();
      }
      if (failed(resultsToArguments(func)))
        return signalPassFailure();
      if (failed(placeInArena(func)))
        return signalPassFailure();
      expandShapesToCasts(func);
    }
  }

  /// A memref.expand_shape that splits one dim into several symbolic dims
  /// becomes a reinterpret_cast with the strides computed here (MLIR 22's
  /// expand-strided-metadata cannot compute them and crashes). Only sources
  /// with the identity layout, whose elements are contiguous from offset 0.
  void expandShapesToCasts(func::FuncOp func) {
    SmallVector<memref::ExpandShapeOp> candidates;
    func.walk([&](memref::ExpandShapeOp e) {
      MemRefType result = e.getResultType();
      for (const ReassociationIndices &g : e.getReassociationIndices())
        if (llvm::count_if(g, [&](int64_t d) { return result.isDynamicDim(d); }) > 1 &&
            e.getSrcType().getLayout().isIdentity()) {
          candidates.push_back(e);
          return;
        }
    });
    for (memref::ExpandShapeOp e : candidates) {
      OpBuilder b(e);
      Location loc = e.getLoc();
      SmallVector<OpFoldResult> sizes = e.getMixedOutputShape();
      MemRefType result = e.getResultType();
      SmallVector<OpFoldResult> strides(result.getRank());
      Value stride = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t d = result.getRank() - 1; d >= 0; --d) {
        strides[d] = stride;
        Value size = isa<Value>(sizes[d])
                         ? cast<Value>(sizes[d])
                         : Value(arith::ConstantIndexOp::create(
                               b, loc, cast<IntegerAttr>(cast<Attribute>(sizes[d])).getInt()));
        stride = arith::MulIOp::create(b, loc, stride, size);
      }
      auto castType = MemRefType::get(
          result.getShape(), result.getElementType(),
          StridedLayoutAttr::get(b.getContext(), 0,
                                 SmallVector<int64_t>(result.getRank(), ShapedType::kDynamic)));
      Value view = memref::ReinterpretCastOp::create(b, loc, castType, e.getSrc(),
                                                     b.getIndexAttr(0), sizes, strides);
      // Users expect the identity layout: the cast back is a no-op view.
      Value same = memref::CastOp::create(b, loc, result, view);
      e.getResult().replaceAllUsesWith(same);
      e.erase();
    }
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
    SmallVector<ArrayAttr> outputDims;
    // The output arguments made so far: a value returned twice (two model
    // outputs that are one tensor) is the first one's argument by the time
    // the loop reaches it again, and is copied from there.
    DenseMap<Value, unsigned> outputArgs;
    // Outputs with data-dependent dims (which of their dims are).
    DenseMap<unsigned, SmallVector<bool>> dataOutputs;
    // Every output's dims first: one output may be a view of another's
    // buffer (a Flatten of an output), which the loop below replaces with an
    // argument whose dims it cannot read yet.
    struct OutputDims {
      SmallVector<Attribute> dims;
      SmallVector<bool> dataDims;
      int64_t unknownDim = -1; // the first dim no polynomial gives
    };
    SmallVector<OutputDims> allDims;
    for (Value v : ret.getOperands()) {
      auto type = dyn_cast<MemRefType>(v.getType());
      OutputDims &one = allDims.emplace_back();
      if (!type || type.hasStaticShape())
        continue;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        bool bounded = false;
        auto poly = dimPoly(v, d, 0, false, &bounded);
        if (!poly) {
          one.unknownDim = d;
          break;
        }
        one.dims.push_back(onnx::dimToAttr(func.getContext(), onnx::Dim::of(*poly)));
        one.dataDims.push_back(bounded);
      }
    }
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type)
        return ret.emitError("function result is not a buffer");
      if (auto earlier = outputArgs.find(v); earlier != outputArgs.end()) {
        outputDims.push_back(outputDims[earlier->second]);
        BlockArgument arg = entry.addArgument(v.getType(), ret.getLoc());
        argTypes.push_back(v.getType());
        outputArgs[arg] = i;
        memref::CopyOp::create(b, ret.getLoc(), v, arg);
        continue;
      }
      if (allDims[i].unknownDim >= 0)
        return ret.emitError() << "output buffer " << type << " has dim " << allDims[i].unknownDim
                               << " that is not a function of the symbolic dims";
      SmallVector<Attribute> dims = allDims[i].dims;
      SmallVector<bool> dataDims = allDims[i].dataDims;
      outputDims.push_back(dims.empty() ? ArrayAttr() : ArrayAttr::get(func.getContext(), dims));
      auto argType = MemRefType::get(type.getShape(), type.getElementType());
      BlockArgument arg = entry.addArgument(argType, ret.getLoc());
      argTypes.push_back(argType);
      outputArgs[arg] = i;
      if (llvm::is_contained(dataDims, true)) {
        // Dims the data decides: the caller's buffer holds the bounds, run()
        // writes the tensor densely with its actual dims and those dims.
        dataOutputs[i] = dataDims;
        auto dimsType = MemRefType::get({type.getRank()}, b.getI64Type());
        BlockArgument dimsArg = entry.addArgument(dimsType, ret.getLoc());
        argTypes.push_back(dimsType);
        copyWithDims(b, ret.getLoc(), v, arg, dimsArg);
        continue;
      }
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
    unsigned arg = numInputs;
    for (auto [i, attrs] : llvm::enumerate(resultAttrs)) {
      if (attrs)
        func.setArgAttrs(arg, attrs);
      func.setArgAttr(arg, "onnxcc.output", UnitAttr::get(func.getContext()));
      if (outputDims[i])
        func.setArgAttr(arg, "onnxcc.dims", outputDims[i]);
      auto data = dataOutputs.find(i);
      if (data == dataOutputs.end()) {
        ++arg;
        continue;
      }
      func.setArgAttr(arg, "onnxcc.data_dependent", Builder(func.getContext()).getDenseBoolArrayAttr(
                                                  data->second));
      func.setArgAttr(arg + 1, "onnxcc.output_dims", UnitAttr::get(func.getContext()));
      arg += 2;
    }
    return success();
  }

  /// Copies `v` densely into the start of output `arg` with `v`'s own dims
  /// (a view of `arg` as `v`'s shape) and stores those dims in `dimsArg`.
  static void copyWithDims(OpBuilder &b, Location loc, Value v, Value arg, Value dimsArg) {
    auto type = cast<MemRefType>(v.getType());
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes(rank), strides(rank);
    Value stride = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value size = memref::DimOp::create(b, loc, v, d);
      sizes[d] = type.isDynamicDim(d) ? OpFoldResult(size) : b.getIndexAttr(type.getDimSize(d));
      strides[d] = stride;
      stride = arith::MulIOp::create(b, loc, stride, size);
      memref::StoreOp::create(b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), size),
                              dimsArg, ValueRange{arith::ConstantIndexOp::create(b, loc, d)});
    }
    auto viewType = MemRefType::get(
        type.getShape(), type.getElementType(),
        StridedLayoutAttr::get(b.getContext(), 0,
                               SmallVector<int64_t>(rank, ShapedType::kDynamic)));
    Value view = memref::ReinterpretCastOp::create(b, loc, viewType, arg, b.getIndexAttr(0),
                                                   sizes, strides);
    memref::CopyOp::create(b, loc, v, view);
  }

  /// Appends the arena argument (memref<?xi8>, attribute onnxcc.arena).
  static BlockArgument addArenaArgument(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    auto arenaType = MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8));
    BlockArgument arena = func.getBody().front().addArgument(arenaType, func.getLoc());
    SmallVector<Type> argTypes(func.getArgumentTypes());
    argTypes.push_back(arenaType);
    func.setType(FunctionType::get(ctx, argTypes, func.getResultTypes()));
    func.setArgAttr(arena.getArgNumber(), "onnxcc.arena", UnitAttr::get(ctx));
    return arena;
  }

  /// Concat writes each input into a part of its result: a memref.copy from
  /// buffer A into a contiguous part of buffer B. When nothing touches A
  /// after the copy, and nothing touches B before it except other such
  /// copies into disjoint parts, A can live in that part of B from the start
  /// and the copy goes away. The buffers stay separate when the offset would
  /// break the arena's alignment. Marks A with B (`host`) and the byte offset;
  /// B's live range grows to cover A's. Static shapes only.
  void coalesceCopies(Block &entry, MutableArrayRef<Buffer> buffers,
                      function_ref<int64_t(Operation *)> topLevel) {
    DenseMap<Operation *, int> indexOf;
    for (auto [i, buf] : llvm::enumerate(buffers))
      if (buf.alloc->getBlock() == &entry)
        indexOf[buf.alloc] = i;
    auto bufferOf = [&](Value v) -> int {
      auto alloc = viewRoot(v).getDefiningOp<memref::AllocOp>();
      auto it = alloc ? indexOf.find(alloc) : indexOf.end();
      return it == indexOf.end() ? -1 : it->second;
    };
    auto elementBytes = [](Value v) {
      return (cast<MemRefType>(v.getType()).getElementTypeBitWidth() + 7) / 8;
    };
    SmallVector<memref::CopyOp> removed;
    for (auto copy : llvm::to_vector(entry.getOps<memref::CopyOp>())) {
      int a = bufferOf(copy.getSource()), b = bufferOf(copy.getTarget());
      if (a < 0 || b < 0 || a == b || buffers[a].host >= 0)
        continue;
      auto sourceType = cast<MemRefType>(copy.getSource().getType());
      std::optional<int64_t> from = contiguousOffset(copy.getSource());
      std::optional<int64_t> to = contiguousOffset(copy.getTarget());
      if (!from || *from != 0 || !to || !sourceType.hasStaticShape() ||
          sourceType.getNumElements() * elementBytes(copy.getSource()) != buffers[a].size)
        continue;
      int64_t begin = *to * elementBytes(copy.getTarget());
      int64_t end = begin + buffers[a].size;
      if (begin % alignment != 0)
        continue;
      int64_t at = topLevel(copy);
      bool safe = true;
      forEachAccess(buffers[a].alloc, [&](Operation *user) {
        safe &= topLevel(user) <= at;
      });
      forEachAccess(buffers[b].alloc, [&](Operation *user) {
        if (user == copy.getOperation() || topLevel(user) > at)
          return;
        // Earlier accesses of B: only copies into other, disjoint parts.
        auto other = dyn_cast<memref::CopyOp>(user);
        std::optional<int64_t> part = other ? contiguousOffset(other.getTarget()) : std::nullopt;
        if (!other || bufferOf(other.getTarget()) != b || bufferOf(other.getSource()) == b ||
            !part) {
          safe = false;
          return;
        }
        auto type = cast<MemRefType>(other.getTarget().getType());
        int64_t lo = *part * elementBytes(other.getTarget());
        int64_t hi = lo + type.getNumElements() * elementBytes(other.getTarget());
        safe &= hi <= begin || end <= lo;
      });
      if (!safe)
        continue;
      buffers[a].host = b;
      buffers[a].hostOffset = begin;
      removed.push_back(copy);
    }
    // A host may itself live inside another buffer: point every buffer at the
    // outermost one, with the offsets added up.
    for (Buffer &buf : buffers) {
      for (int depth = 0; depth < 64 && buf.host >= 0 && buffers[buf.host].host >= 0; ++depth) {
        buf.hostOffset += buffers[buf.host].hostOffset;
        buf.host = buffers[buf.host].host;
      }
    }
    for (Buffer &buf : buffers) {
      if (buf.host < 0)
        continue;
      Buffer &root = buffers[buf.host];
      root.first = std::min(root.first, buf.first);
      root.last = std::max(root.last, buf.last);
    }
    for (memref::CopyOp copy : removed)
      copy.erase();
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
    bool symbolic = false;
    WalkResult walk = func.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      Buffer buf{alloc, 1, topLevel(alloc), topLevel(alloc), 0, {}, {}};
      if (auto size = byteSize(type)) {
        buf.size = std::max<int64_t>(*size, 1);
        buf.bytes = SymExpr::constant(buf.size);
      } else {
        int64_t bits = type.getElementType().isIndex() ? 64 : type.getElementTypeBitWidth();
        std::optional<SymExpr> bytes = SymExpr::constant((bits + 7) / 8);
        // A data-dependent dim takes its bound's room.
        bool bounded = false;
        for (int64_t d = 0; d < type.getRank() && bytes; ++d) {
          auto dim = type.getLayout().isIdentity() ? dimPoly(alloc, d, 0, false, &bounded, /*derived=*/true)
                                                   : std::nullopt;
          bytes = dim ? SymExpr::mul(*bytes, *dim) : std::nullopt;
        }
        if (!bytes) {
          alloc.emitError() << "buffer " << type
                            << " has a size that is not a function of the symbolic dims";
          return WalkResult::interrupt();
        }
        buf.bytes = *bytes;
        if (bytes->isConstant())
          buf.size = std::max<int64_t>(bytes->constantValue(), 1);
        else
          symbolic = true;
      }
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
    if (symbolic || llvm::any_of(func.getArguments(), [](Value a) { return symbolOf(a); }))
      return placeSymbolic(func, buffers);
    coalesceCopies(entry, buffers, topLevel);

    // Largest first, each at the lowest aligned offset that overlaps no
    // buffer live at the same time. Ties keep program order: deterministic.
    SmallVector<Buffer *> order;
    for (Buffer &b : buffers)
      if (b.host < 0)
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
    BlockArgument arena = addArenaArgument(func);
    for (Buffer &buf : buffers) {
      if (buf.host >= 0)
        buf.offset = buffers[buf.host].offset + buf.hostOffset;
      OpBuilder b(buf.alloc);
      Value offset = arith::ConstantIndexOp::create(b, buf.alloc.getLoc(), buf.offset);
      Value view = memref::ViewOp::create(b, buf.alloc.getLoc(), buf.alloc.getType(), arena,
                                          offset, buf.alloc.getDynamicSizes());
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

  /// The largest power of two M <= 2^31 such that, with every symbol at
  /// most M, no size the generated code computes (the arena's offsets and
  /// total, the bytes of every tensor) can overflow int64: the sum over all
  /// buffers and ports of |coefficient| * M^degree per term stays below 2^62.
  /// run() refuses larger dims (status 3).
  int64_t largestSafeDim(func::FuncOp func, ArrayRef<Buffer> buffers) {
    SmallVector<SymExpr> sizes;
    for (const Buffer &buf : buffers)
      sizes.push_back(buf.bytes);
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto dims = func.getArgAttrOfType<ArrayAttr>(i, "onnxcc.dims");
      auto type = dyn_cast<MemRefType>(func.getArgument(i).getType());
      if (!dims || !type)
        continue;
      std::optional<SymExpr> bytes = SymExpr::constant(8);
      for (Attribute d : dims)
        if (auto e = onnx::dimFromAttr(d).asExpr(); e && bytes)
          bytes = SymExpr::mul(*bytes, *e);
      if (bytes)
        sizes.push_back(*bytes);
    }
    const double limit = 4611686018427387904.0; // 2^62
    for (int k = 31; k > 0; --k) {
      double m = std::ldexp(1.0, k), total = 0;
      for (const SymExpr &e : sizes)
        for (const SymExpr::Term &t : e.getTerms())
          total += std::fabs(static_cast<double>(t.coeff)) *
                       std::pow(m, static_cast<double>(t.syms.size())) +
                   static_cast<double>(alignment);
      if (total < limit)
        return int64_t(1) << k;
    }
    return 1;
  }

  /// The value of `v` (pure integer and float arithmetic from the symbol
  /// arguments) with every symbol at `sample`, in double; nullopt for
  /// anything else.
  static std::optional<double> evaluate(Value v, double sample, int depth = 0) {
    if (symbolOf(v))
      return sample;
    Operation *def = v.getDefiningOp();
    if (!def || depth > 64)
      return std::nullopt;
    if (auto c = dyn_cast<arith::ConstantOp>(def)) {
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return static_cast<double>(i.getValue().getSExtValue());
      if (auto f = dyn_cast<FloatAttr>(c.getValue()))
        return f.getValueAsDouble();
      return std::nullopt;
    }
    SmallVector<double, 3> in;
    for (Value operand : def->getOperands()) {
      auto x = evaluate(operand, sample, depth + 1);
      if (!x)
        return std::nullopt;
      in.push_back(*x);
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::UIToFPOp, arith::SIToFPOp,
            arith::FPToUIOp, arith::FPToSIOp>(def))
      return isa<arith::FPToUIOp, arith::FPToSIOp>(def) ? std::trunc(in[0]) : in[0];
    if (isa<math::FloorOp>(def))
      return std::floor(in[0]);
    if (isa<math::CeilOp>(def))
      return std::ceil(in[0]);
    if (isa<arith::AddIOp, arith::AddFOp>(def))
      return in[0] + in[1];
    if (isa<arith::SubIOp, arith::SubFOp>(def))
      return in[0] - in[1];
    if (isa<arith::MulIOp, arith::MulFOp>(def))
      return in[0] * in[1];
    if (isa<arith::DivFOp>(def))
      return in[0] / in[1];
    if (isa<arith::DivSIOp, arith::DivUIOp>(def))
      return in[1] == 0 ? std::nullopt : std::optional<double>(std::trunc(in[0] / in[1]));
    if (isa<arith::MinUIOp, arith::MinSIOp>(def))
      return std::min(in[0], in[1]);
    if (isa<arith::MaxUIOp, arith::MaxSIOp>(def))
      return std::max(in[0], in[1]);
    if (isa<arith::SelectOp>(def))
      return in[0] != 0 ? in[1] : in[2];
    if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq:
        return in[0] == in[1];
      case arith::CmpIPredicate::ne:
        return in[0] != in[1];
      case arith::CmpIPredicate::slt:
      case arith::CmpIPredicate::ult:
        return in[0] < in[1];
      case arith::CmpIPredicate::sle:
      case arith::CmpIPredicate::ule:
        return in[0] <= in[1];
      case arith::CmpIPredicate::sgt:
      case arith::CmpIPredicate::ugt:
        return in[0] > in[1];
      case arith::CmpIPredicate::sge:
      case arith::CmpIPredicate::uge:
        return in[0] >= in[1];
      }
    }
    return std::nullopt;
  }

  /// The order in which placeSymbolic stacks the buffers: by their offsets
  /// in the static plan (largest first, each at the lowest offset free of
  /// the buffers live with it) of their sizes with every input symbol at
  /// 512, so that a symbolic arena reuses the room a static one would. In
  /// program order when a size cannot be evaluated there.
  SmallVector<unsigned> stackingOrder(ArrayRef<Buffer> buffers,
                                      const llvm::DenseMap<StringAttr, Value> &derived) {
    SmallVector<unsigned> order;
    for (unsigned i = 0; i < buffers.size(); ++i)
      order.push_back(i);
    const double sample = 512;
    SmallVector<double> size;
    for (const Buffer &buf : buffers) {
      double total = 0;
      for (const SymExpr::Term &t : buf.bytes.getTerms()) {
        double term = static_cast<double>(t.coeff);
        for (StringAttr s : t.syms) {
          std::optional<double> value = sample;
          if (Value d = derived.lookup(s))
            value = evaluate(d, sample);
          if (!value)
            return order;
          term *= *value;
        }
        total += term;
      }
      size.push_back(std::max(total, 1.0));
    }
    SmallVector<unsigned> bySize(order);
    llvm::stable_sort(bySize, [&](unsigned a, unsigned b) { return size[a] > size[b]; });
    SmallVector<double> offset(buffers.size(), 0);
    SmallVector<unsigned> placed;
    const double align = static_cast<double>(alignment);
    for (unsigned i : bySize) {
      SmallVector<std::pair<double, double>> busy;
      for (unsigned p : placed)
        if (buffers[p].first <= buffers[i].last && buffers[i].first <= buffers[p].last)
          busy.push_back({offset[p], offset[p] + size[p]});
      llvm::sort(busy);
      double at = 0;
      for (auto [lo, hi] : busy) {
        if (at + size[i] <= lo)
          break;
        at = std::max(at, std::ceil(hi / align) * align);
      }
      offset[i] = at;
      placed.push_back(i);
    }
    llvm::stable_sort(order, [&](unsigned a, unsigned b) { return offset[a] < offset[b]; });
    return order;
  }

  /// Offsets computed from the symbols at run time: each buffer goes at the
  /// aligned maximum of the ends of the buffers live at the same time that
  /// come before it in stackingOrder (every two such buffers are ordered
  /// one way, so they never overlap, whatever the symbols). The same
  /// computation, returning the arena size, becomes the function
  /// `<name>_arena_size`.
  LogicalResult placeSymbolic(func::FuncOp func, MutableArrayRef<Buffer> buffers) {
    MLIRContext *ctx = func.getContext();
    Block &entry = func.getBody().front();
    SmallVector<BlockArgument> symbolArgs;
    for (BlockArgument arg : entry.getArguments())
      if (symbolOf(arg))
        symbolArgs.push_back(arg);
    func->setAttr("onnxcc.max_dim",
                  IntegerAttr::get(IntegerType::get(ctx, 64), largestSafeDim(func, buffers)));

    // The derived symbols the sizes use, by name: the minui that computes
    // each in run() (onnxcc.derived_symbol).
    llvm::DenseMap<StringAttr, Value> derived;
    func.walk([&](arith::MinUIOp op) {
      if (auto name = op->getAttrOfType<StringAttr>("onnxcc.derived_symbol"))
        derived.try_emplace(name, op.getResult());
    });
    SmallVector<unsigned> order = stackingOrder(buffers, derived);
    SmallVector<StringAttr> used;
    for (const Buffer &buf : buffers)
      for (const SymExpr::Term &t : buf.bytes.getTerms())
        for (StringAttr s : t.syms)
          if (derived.count(s) && !llvm::is_contained(used, s))
            used.push_back(s);

    // Emits the placement with builder `b` over the symbol values `syms`;
    // returns the arena size. The derived symbols are computed there again
    // (a copy of their arithmetic from the inputs' symbols), so that the
    // offsets come first in run() and <name>_arena_size has them too.
    auto place = [&](OpBuilder &b, Location loc, ArrayRef<Value> syms,
                     SmallVectorImpl<Value> &offsets) -> FailureOr<Value> {
      llvm::DenseMap<StringAttr, Value> symbols;
      IRMapping copies;
      for (auto [arg, v] : llvm::zip(symbolArgs, syms)) {
        symbols[symbolOf(arg)] = v;
        copies.map(Value(arg), v);
      }
      std::function<Value(Value, int)> copy = [&](Value v, int depth) -> Value {
        if (Value known = copies.lookupOrNull(v))
          return known;
        Operation *def = v.getDefiningOp();
        if (!def || depth > 64 || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
          return {};
        for (Value operand : def->getOperands())
          if (!copy(operand, depth + 1))
            return {};
        Operation *clone = b.clone(*def, copies);
        clone->removeAttr("onnxcc.derived_symbol");
        return copies.lookup(v);
      };
      for (StringAttr name : used) {
        Value v = copy(derived.lookup(name), 0);
        if (!v)
          return func.emitError() << "the derived dim '" << name.getValue()
                                  << "' is not computed from the symbolic dims alone";
        symbols[name] = v;
      }
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value mask = arith::ConstantIndexOp::create(b, loc, ~(alignment - 1));
      Value bump = arith::ConstantIndexOp::create(b, loc, alignment - 1);
      auto alignUp = [&](Value v) {
        return arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, v, bump), mask);
      };
      SmallVector<Value> ends(buffers.size());
      offsets.assign(buffers.size(), Value());
      SmallVector<unsigned> done;
      Value total = zero;
      for (unsigned i : order) {
        const Buffer &buf = buffers[i];
        Value offset = zero;
        for (unsigned k : done)
          if (buffers[k].first <= buf.last && buf.first <= buffers[k].last)
            offset = arith::MaxSIOp::create(b, loc, offset, ends[k]);
        offset = alignUp(offset);
        offsets[i] = offset;
        ends[i] = arith::AddIOp::create(b, loc, offset, buildPoly(b, loc, buf.bytes, symbols));
        total = arith::MaxSIOp::create(b, loc, total, ends[i]);
        done.push_back(i);
      }
      return Value(alignUp(total));
    };

    BlockArgument arena = addArenaArgument(func);

    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    SmallVector<Value> syms(symbolArgs.begin(), symbolArgs.end());
    SmallVector<Value> offsets;
    if (failed(place(b, func.getLoc(), syms, offsets)))
      return failure();
    for (auto [buf, offset] : llvm::zip(buffers, offsets)) {
      OpBuilder vb(buf.alloc);
      Value view = memref::ViewOp::create(vb, buf.alloc.getLoc(), buf.alloc.getType(), arena,
                                          offset, buf.alloc.getDynamicSizes());
      buf.alloc.getResult().replaceAllUsesWith(view);
      buf.alloc.erase();
    }
    func.walk([](memref::DeallocOp d) { d.erase(); });

    // <name>_arena_size(symbols...) -> bytes.
    OpBuilder mb(func);
    mb.setInsertionPointAfter(func);
    SmallVector<Type> symbolTypes(symbolArgs.size(), IndexType::get(ctx));
    auto sizeFn = func::FuncOp::create(mb, func.getLoc(), (func.getName() + "_arena_size").str(),
                                       FunctionType::get(ctx, symbolTypes, {IndexType::get(ctx)}));
    Block *body = sizeFn.addEntryBlock();
    for (auto [k, arg] : llvm::enumerate(symbolArgs))
      sizeFn.setArgAttrs(k, func.getArgAttrDict(arg.getArgNumber()));
    OpBuilder fb = OpBuilder::atBlockBegin(body);
    SmallVector<Value> fnSyms(body->getArguments().begin(), body->getArguments().end());
    SmallVector<Value> unused;
    FailureOr<Value> total = place(fb, func.getLoc(), fnSyms, unused);
    if (failed(total))
      return failure();
    func::ReturnOp::create(fb, func.getLoc(), *total);
    sizeFn->setAttr("onnxcc.arena_size_of", FlatSymbolRefAttr::get(func.getSymNameAttr()));
    func->setAttr("onnxcc.arena_size", IntegerAttr::get(IntegerType::get(ctx, 64), 0));
    func->setAttr("onnxcc.arena_alignment",
                  IntegerAttr::get(IntegerType::get(ctx, 64), alignment.getValue()));
    return success();
  }
};

} // namespace
} // namespace onnxcc
