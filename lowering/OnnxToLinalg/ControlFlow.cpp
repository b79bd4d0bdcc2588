//===- ControlFlow.cpp - If, Loop and Scan as structured control flow ----===//
//
// If becomes scf.if, Scan an scf.for over the sequence, Loop an scf.while.
// The subgraphs move into the new regions and are lowered like any other
// ops; each onnx.Yield is first rewritten here with what its lowering needs
// appended (the destinations, the loop's state buffers, the iteration) and
// a `onnxcc.cf` attribute saying which kind of region it ends.
//
// Every value a region yields goes into a buffer made outside the region,
// so that bufferization writes it in place and the scf ops carry no buffers
// (the C++ emitter has no buffer-valued locals):
//
//   If     each result is copied into a destination made before the scf.if;
//   Scan,  each loop-carried value lives in a pair [2, shape...]: iteration i
//   Loop   reads slot i % 2 and writes slot (i + 1) % 2, so no iteration
//          overwrites what it reads; each scan output is inserted into its
//          full result at the iteration's position.
//
// Only the iteration count (and, for Loop, the condition) are scalars the
// loops carry.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

constexpr StringLiteral kKind = "onnxcc.cf";
constexpr StringLiteral kStates = "onnxcc.cf_states";
constexpr StringLiteral kOutputs = "onnxcc.cf_outputs";
constexpr StringLiteral kAxes = "onnxcc.cf_axes";
constexpr StringLiteral kReverse = "onnxcc.cf_reverse";
/// A Loop whose scan outputs hold as many rows as it runs, which the run
/// decides: each row is written only while it fits (run() then returns 10
/// when the user's bound was too small).
constexpr StringLiteral kGuard = "onnxcc.cf_guard";

/// `v` (converted) as a value of onnx type `onnxType`, for the ops of a
/// subgraph that are not converted yet.
Value asOnnx(OpBuilder &b, Location loc, Value v, Type onnxType) {
  if (v.getType() == onnxType)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, onnxType, v).getResult(0);
}

SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, t, d).getResult())
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return sizes;
}

/// The slice of `t` at `pos` along `axis`, without that dim.
Value sliceAt(OpBuilder &b, Location loc, Value t, int64_t axis, OpFoldResult pos) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = sizesOf(b, loc, t);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[axis] = pos;
  sizes[axis] = b.getIndexAttr(1);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, t, offsets, sizes, strides);
}

/// `v` inserted into `dest` at `pos` along `axis` (a dim `v` lacks).
Value insertAt(OpBuilder &b, Location loc, Value v, Value dest, int64_t axis, OpFoldResult pos) {
  auto type = cast<RankedTensorType>(dest.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = sizesOf(b, loc, dest);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[axis] = pos;
  sizes[axis] = b.getIndexAttr(1);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  if (v.getType() != sliceType)
    v = tensor::CastOp::create(b, loc, sliceType, v);
  return tensor::InsertSliceOp::create(b, loc, v, dest, offsets, sizes, strides);
}

/// A copy of `v` into a new tensor unless it is a fresh value computed in
/// `block` (the result of an elementwise op there): a view of a state or an
/// argument is read only before the states are written. The yield is
/// lowered before the ops of its block (it is made by the op's pattern), so
/// `v` is still the onnx value.
Value freshCopy(OpBuilder &b, Location loc, Value v, Block *block) {
  Value source = v;
  while (auto cast = source.getDefiningOp<UnrealizedConversionCastOp>())
    source = cast.getInputs().front();
  if (Operation *def = source.getDefiningOp();
      def && def->getBlock() == block && isElementwiseOp(def))
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, v, d));
  Value empty = emptyTensor(b, loc, type, dyn);
  return linalg::CopyOp::create(b, loc, v, empty).getResult(0);
}

/// The pair [2, shape...] of a loop-carried value, slot 0 holding `init`.
Value makePair(OpBuilder &b, Location loc, Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> shape{2};
  llvm::append_range(shape, type.getShape());
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, init, d));
  Value pair = emptyTensor(b, loc, RankedTensorType::get(shape, type.getElementType()), dyn);
  return insertAt(b, loc, init, pair, 0, b.getIndexAttr(0));
}

/// Replaces the terminator of `block` (an onnx.Yield) by one that yields
/// the same values followed by `extra`, tagged `kind`, with `attrs`.
void retagYield(ConversionPatternRewriter &rewriter, Block &block, StringRef kind,
                ValueRange extra, ArrayRef<NamedAttribute> attrs = {}) {
  auto yield = cast<onnx::YieldOp>(block.getTerminator());
  SmallVector<Value> operands(yield.getOperands());
  llvm::append_range(operands, extra);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(yield);
  auto tagged = onnx::YieldOp::create(rewriter, yield.getLoc(), operands);
  tagged->setAttr(kKind, rewriter.getStringAttr(kind));
  for (const NamedAttribute &a : attrs)
    tagged->setAttr(a.getName(), a.getValue());
  rewriter.eraseOp(yield);
}

struct IfLowering : OpConversionPattern<onnx::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::IfOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A branch compiled alone (onnx.If's shape function assumed the dim
    // equality its condition tests; run() checked it before this op): its
    // ops in place of the If.
    if (auto assumed = op->getAttrOfType<IntegerAttr>("onnxcc.assumed_branch")) {
      if (auto cond = op->getAttrOfType<StringAttr>("onnxcc.assumed_condition"))
        op.emitWarning() << "its branches give results of different ranks and its condition is "
                         << cond.getValue()
                         << ", which the symbolic dims leave open: compiled for that case only "
                            "(run() returns 9 for other dims; give the input dims with --shape "
                            "to compile the other case)";
      Region &region = assumed.getInt() == 0 ? op.getThenBranch() : op.getElseBranch();
      Block &block = region.front();
      auto yield = cast<onnx::YieldOp>(block.getTerminator());
      SmallVector<Value> values(yield.getOperands());
      rewriter.inlineBlockBefore(&block, op);
      rewriter.eraseOp(yield);
      for (auto [v, result] : llvm::zip_equal(values, op->getResults()))
        if (v.getType() != result.getType())
          v = tensor::CastOp::create(rewriter, loc, result.getType(), v);
      rewriter.replaceOp(op, values);
      return success();
    }
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    Value cond = scalarOf(rewriter, loc, adaptor.getCond());
    // Dims the branches give different sizes (the op's own data dims,
    // onnx.If's shape function): the taken branch's, chosen before the If
    // from both branches' dims (expressions of the symbols outside it).
    auto own = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
    Operation *thenYield = op.getThenBranch().front().getTerminator();
    Operation *elseYield = op.getElseBranch().front().getTerminator();
    auto dimValue = [&](const onnx::Dim &d) -> Value {
      if (d.isStatic())
        return indexConst(rewriter, loc, d.size);
      return d.isSymbolic() ? converter.materialize(rewriter, loc, op, d.expr) : Value();
    };
    SmallVector<Type> types;
    SmallVector<Value> dests;
    for (unsigned i = 0; i < op.getNumResults(); ++i) {
      auto r = symbolicResultType(rewriter, getTypeConverter(), op, i);
      if (failed(r))
        return failure();
      SmallVector<Value> sizes(r->second);
      auto shape = converter.shapeOf(op->getResult(i));
      auto thenShape = converter.shapeOf(thenYield->getOperand(i));
      auto elseShape = converter.shapeOf(elseYield->getOperand(i));
      int64_t rank = r->first.getRank();
      if (own && shape && thenShape && elseShape && static_cast<int64_t>(shape->size()) == rank &&
          thenShape->size() == shape->size() && elseShape->size() == shape->size()) {
        for (int64_t d = 0, j = 0; d < rank; ++d) {
          if (!r->first.isDynamicDim(d))
            continue;
          for (auto [k, name] : llvm::enumerate(own)) {
            auto symbol = dyn_cast<StringAttr>(name);
            if (!symbol || (*shape)[d] != onnx::Dim::named(symbol))
              continue;
            Value a = dimValue((*thenShape)[d]), b = dimValue((*elseShape)[d]);
            if (!a || !b)
              return rewriter.notifyMatchFailure(op, "a branch's dim is not computable here");
            Value taken = arith::SelectOp::create(rewriter, loc, cond, a, b);
            Value v = converter.defineDataDim(rewriter, loc, op, k, taken);
            if (!v)
              return rewriter.notifyMatchFailure(op, "a dim the branches differ in has no bound");
            sizes[j] = v;
          }
          ++j;
        }
      }
      types.push_back(r->first);
      dests.push_back(emptyTensor(rewriter, loc, r->first, sizes));
    }
    auto ifOp = scf::IfOp::create(rewriter, loc, types, cond, /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    retagYield(rewriter, op.getThenBranch().front(), "if", dests);
    retagYield(rewriter, op.getElseBranch().front(), "if", dests);
    rewriter.inlineRegionBefore(op.getThenBranch(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseBranch(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    // A branch shape inference found cannot run with the compiled shapes
    // (see onnx-infer-shapes) returns its status when taken.
    if (auto bad = op->getAttrOfType<IntegerAttr>("onnxcc.invalid_branch")) {
      Region &region = bad.getInt() == 0 ? ifOp.getThenRegion() : ifOp.getElseRegion();
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&region.front());
      func::FuncOp fail = declareRuntimeFunction(
          rewriter, op, "onnxcc_invalid_branch", "onnxcc_rt::invalid_branch",
          rewriter.getFunctionType({}, {rewriter.getI32Type()}), /*usesStringPool=*/false);
      func::CallOp::create(rewriter, loc, fail, ValueRange{});
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// What Scan and Loop share: the states as pairs, the scan outputs as
/// their full results, and the final states read from the pairs.
struct LoopState {
  SmallVector<Value> pairs;   // [2, shape...] per loop-carried value
  SmallVector<Value> outputs; // the full result per scan output
};

/// `rows`, when given, is the number of rows each scan output holds (its
/// first dim, which the run decides).
FailureOr<LoopState> makeLoopState(ConversionPatternRewriter &rewriter,
                                   const TypeConverter *converter, Operation *op,
                                   ValueRange inits, unsigned firstOutput, Value rows = {}) {
  Location loc = op->getLoc();
  LoopState s;
  for (Value init : inits) {
    if (!isa<RankedTensorType>(init.getType()))
      return rewriter.notifyMatchFailure(op, "a loop-carried value is not a tensor");
    s.pairs.push_back(makePair(rewriter, loc, init));
  }
  for (unsigned i = firstOutput; i < op->getNumResults(); ++i) {
    auto r = symbolicResultType(rewriter, converter, op, i);
    if (failed(r))
      return failure();
    if (rows) {
      if (r->first.getRank() == 0 || !r->first.isDynamicDim(0))
        return rewriter.notifyMatchFailure(op, "a scan output has no first dim to fill");
      r->second.front() = rows;
    }
    s.outputs.push_back(emptyTensor(rewriter, loc, r->first, r->second));
  }
  return s;
}

/// The final states: slot `trips % 2` of each pair.
SmallVector<Value> finalStates(OpBuilder &b, Location loc, ValueRange pairs, Value trips) {
  Value slot = arith::RemUIOp::create(b, loc, trips, indexConst(b, loc, 2));
  SmallVector<Value> out;
  for (Value p : pairs)
    out.push_back(sliceAt(b, loc, p, 0, slot));
  return out;
}

/// Scan: an scf.for over the sequence length of the scan inputs.
struct ScanLowering : OpConversionPattern<onnx::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange operands = adaptor.getInitialStateAndScanInputs();
    int64_t numScan = op.getNumScanInputs();
    int64_t numStates = static_cast<int64_t>(operands.size()) - numScan;
    int64_t numOutputs = static_cast<int64_t>(op.getNumResults()) - numStates;
    if (numScan < 1 || numStates < 0 || numOutputs < 0)
      return rewriter.notifyMatchFailure(op, "needs at least one scan input");
    auto axisList = [&](std::optional<ArrayRef<int64_t>> attr, int64_t n) {
      SmallVector<int64_t> v(n, 0);
      if (attr)
        for (int64_t i = 0; i < n && i < static_cast<int64_t>(attr->size()); ++i)
          v[i] = (*attr)[i];
      return v;
    };
    SmallVector<int64_t> inAxes = axisList(op.getScanInputAxes(), numScan);
    SmallVector<int64_t> inDirs = axisList(op.getScanInputDirections(), numScan);
    SmallVector<int64_t> outAxes = axisList(op.getScanOutputAxes(), numOutputs);
    SmallVector<int64_t> outDirs = axisList(op.getScanOutputDirections(), numOutputs);
    // The sequence length: the scan axis of the scan inputs, static or
    // symbolic (shape inference made them agree).
    int64_t trips = ShapedType::kDynamic;
    for (int64_t j = 0; j < numScan; ++j) {
      auto type = dyn_cast<RankedTensorType>(operands[numStates + j].getType());
      if (!type)
        return rewriter.notifyMatchFailure(op, "a scan input is not a ranked tensor");
      int64_t rank = type.getRank();
      if (inAxes[j] < -rank || inAxes[j] >= rank)
        return rewriter.notifyMatchFailure(op, "scan_input_axes out of range");
      inAxes[j] = inAxes[j] < 0 ? inAxes[j] + rank : inAxes[j];
      int64_t len = type.getDimSize(inAxes[j]);
      if (!ShapedType::isDynamic(len) && !ShapedType::isDynamic(trips) && len != trips)
        return rewriter.notifyMatchFailure(op, "scan inputs differ in sequence length");
      if (!ShapedType::isDynamic(len))
        trips = len;
    }
    for (int64_t j = 0; j < numOutputs; ++j) {
      auto type = cast<RankedTensorType>(
          getTypeConverter()->convertType(op.getResult(numStates + j).getType()));
      int64_t rank = type.getRank();
      if (outAxes[j] < -rank || outAxes[j] >= rank)
        return rewriter.notifyMatchFailure(op, "scan_output_axes out of range");
      outAxes[j] = outAxes[j] < 0 ? outAxes[j] + rank : outAxes[j];
    }
    auto state = makeLoopState(rewriter, getTypeConverter(), op,
                               operands.take_front(numStates), numStates);
    if (failed(state))
      return failure();
    SmallVector<Value> iterArgs(state->pairs);
    llvm::append_range(iterArgs, state->outputs);
    Value ub = ShapedType::isDynamic(trips)
                   ? Value(tensor::DimOp::create(rewriter, loc, operands[numStates], inAxes[0]))
                   : indexConst(rewriter, loc, trips);
    auto loop = scf::ForOp::create(rewriter, loc, indexConst(rewriter, loc, 0), ub,
                                   indexConst(rewriter, loc, 1), iterArgs,
                                   [](OpBuilder &, Location, Value, ValueRange) {});
    Block *body = loop.getBody();
    Block &source = op.getBody().front();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(body);
      Value iv = loop.getInductionVar();
      Value cur = arith::RemUIOp::create(rewriter, loc, iv, indexConst(rewriter, loc, 2));
      Value last = arith::SubIOp::create(rewriter, loc, ub, indexConst(rewriter, loc, 1));
      SmallVector<Value> args;
      for (int64_t k = 0; k < numStates; ++k)
        args.push_back(asOnnx(rewriter, loc, sliceAt(rewriter, loc, body->getArgument(1 + k), 0, cur),
                              source.getArgument(k).getType()));
      for (int64_t j = 0; j < numScan; ++j) {
        Value pos = inDirs[j] ? Value(arith::SubIOp::create(rewriter, loc, last, iv)) : iv;
        args.push_back(asOnnx(rewriter, loc,
                              sliceAt(rewriter, loc, operands[numStates + j], inAxes[j], pos),
                              source.getArgument(numStates + j).getType()));
      }
      SmallVector<Value> extra{iv, last};
      llvm::append_range(extra, body->getArguments().drop_front());
      retagYield(rewriter, source, "scan", extra,
                 {rewriter.getNamedAttr(kStates, rewriter.getI64IntegerAttr(numStates)),
                  rewriter.getNamedAttr(kOutputs, rewriter.getI64IntegerAttr(numOutputs)),
                  rewriter.getNamedAttr(kAxes, rewriter.getDenseI64ArrayAttr(outAxes)),
                  rewriter.getNamedAttr(kReverse, rewriter.getDenseI64ArrayAttr(outDirs))});
      rewriter.mergeBlocks(&source, body, args);
    }
    SmallVector<Value> results =
        finalStates(rewriter, loc, loop.getResults().take_front(numStates), ub);
    llvm::append_range(results, loop.getResults().drop_front(numStates));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Loop: an scf.while carrying the state pairs, the scan outputs, the
/// iteration (i64) and the condition (i1). It runs while i < M (when M is
/// given) and the condition holds (when there is one).
struct LoopLowering : OpConversionPattern<onnx::LoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::LoopOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inits = adaptor.getVInitial();
    int64_t numStates = inits.size();
    int64_t numOutputs = static_cast<int64_t>(op.getNumResults()) - numStates;
    // Scan outputs whose row count the run decides (LoopOp::inferShapes):
    // buffers of the bound's rows.
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    Value capacity;
    // (The op keeps the symbol's name from an earlier inference that could
    // not count the trips; only a first dim that is that symbol now counts.)
    auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
    auto name = names && !names.empty() ? dyn_cast<StringAttr>(names[0]) : StringAttr();
    auto firstOutput = numOutputs > 0 ? converter.shapeOf(op->getResult(numStates))
                                      : std::nullopt;
    if (name && firstOutput && !firstOutput->empty() &&
        (*firstOutput)[0] == onnx::Dim::named(name)) {
      std::optional<onnx::SymExpr> bound = converter.shapes.boundOf(name);
      if (!bound)
        return rewriter.notifyMatchFailure(op, "its trip count has no bound");
      capacity = converter.materialize(rewriter, loc, op, *bound);
      if (!capacity)
        return rewriter.notifyMatchFailure(op, "its trip count's bound is not computable");
    }
    auto state = makeLoopState(rewriter, getTypeConverter(), op, inits, numStates, capacity);
    if (failed(state))
      return failure();
    Value m = adaptor.getM();
    bool hasM = m && isa<RankedTensorType>(m.getType());
    Value cond = adaptor.getCond();
    bool hasCond = cond && isa<RankedTensorType>(cond.getType());
    // A scan output has one row per iteration: its trip count must be M.
    SmallVector<int64_t> axes(numOutputs, 0), dirs(numOutputs, 0);
    int64_t trips = ShapedType::kDynamic;
    if (numOutputs > 0) {
      auto type = cast<RankedTensorType>(state->outputs.front().getType());
      trips = type.getDimSize(0);
    }
    Value i0 = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    Value c0 = hasCond ? scalarOf(rewriter, loc, cond)
                       : Value(arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));
    Value limit = hasM ? scalarOf(rewriter, loc, m) : Value();
    // Buffers first: canonicalization may drop the condition from what the
    // loop forwards, and bufferization pairs forwarded values with the
    // loop's arguments by position.
    SmallVector<Value> iterArgs(state->pairs);
    llvm::append_range(iterArgs, state->outputs);
    size_t numBuffers = iterArgs.size();
    iterArgs.push_back(i0);
    iterArgs.push_back(c0);
    SmallVector<Type> types;
    for (Value v : iterArgs)
      types.push_back(v.getType());
    // Without a condition input the body's condition output is ignored.
    auto loop = scf::WhileOp::create(
        rewriter, loc, types, iterArgs,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value go = hasCond ? args[numBuffers + 1] : c0;
          if (limit) {
            Value below = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                                args[numBuffers], limit);
            go = arith::AndIOp::create(b, l, go, below);
          }
          scf::ConditionOp::create(b, l, go, args);
        },
        [](OpBuilder &, Location, ValueRange) {});
    Block *after = loop.getAfterBody();
    Block &source = op.getBody().front();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(after);
      Value i = after->getArgument(numBuffers);
      Value iv = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), i);
      Value cur = arith::RemUIOp::create(rewriter, loc, iv, indexConst(rewriter, loc, 2));
      SmallVector<Value> args;
      auto scalarTensor = [&](Value v) {
        return tensor::FromElementsOp::create(rewriter, loc, RankedTensorType::get({}, v.getType()),
                                              v)
            .getResult();
      };
      args.push_back(asOnnx(rewriter, loc, scalarTensor(i), source.getArgument(0).getType()));
      args.push_back(asOnnx(rewriter, loc, scalarTensor(after->getArgument(numBuffers + 1)),
                            source.getArgument(1).getType()));
      for (int64_t k = 0; k < numStates; ++k)
        args.push_back(asOnnx(rewriter, loc, sliceAt(rewriter, loc, after->getArgument(k), 0, cur),
                              source.getArgument(2 + k).getType()));
      SmallVector<Value> extra{iv, i};
      llvm::append_range(extra, after->getArguments().take_front(numBuffers));
      SmallVector<NamedAttribute> attrs = {
          rewriter.getNamedAttr(kStates, rewriter.getI64IntegerAttr(numStates)),
          rewriter.getNamedAttr(kOutputs, rewriter.getI64IntegerAttr(numOutputs)),
          rewriter.getNamedAttr(kAxes, rewriter.getDenseI64ArrayAttr(axes)),
          rewriter.getNamedAttr(kReverse, rewriter.getDenseI64ArrayAttr(dirs))};
      // Rows are written only while they fit (the loop itself runs as the
      // model says, and the count is checked after it).
      if (numOutputs > 0)
        attrs.push_back(rewriter.getNamedAttr(kGuard, rewriter.getUnitAttr()));
      retagYield(rewriter, source, "loop", extra, attrs);
      rewriter.mergeBlocks(&source, after, args);
    }
    Value total = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                             loop.getResult(numBuffers));
    SmallVector<Value> results =
        finalStates(rewriter, loc, loop.getResults().take_front(numStates), total);
    if (!capacity) {
      // A static row count (M, or what the model declares): run() returns 9
      // unless the loop ran that many times.
      if (numOutputs > 0 && !ShapedType::isDynamic(trips))
        checkDeclaredDim(rewriter, loc, op, total, trips);
      llvm::append_range(results, loop.getResults().slice(numStates, numOutputs));
      rewriter.replaceOp(op, results);
      return success();
    }
    // The rows the run wrote: the trip count, checked against a user's
    // bound (status 10), as the scan outputs' first dim.
    Value rows = converter.defineDataDim(rewriter, loc, op, 0, total);
    if (!rows)
      return rewriter.notifyMatchFailure(op, "its trip count has no bound");
    for (Value full : loop.getResults().slice(numStates, numOutputs)) {
      auto fullType = cast<RankedTensorType>(full.getType());
      SmallVector<OpFoldResult> offsets(fullType.getRank(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, full);
      SmallVector<OpFoldResult> strides(fullType.getRank(), rewriter.getIndexAttr(1));
      sizes[0] = rows;
      results.push_back(tensor::ExtractSliceOp::create(rewriter, loc, fullType, full, offsets,
                                                       sizes, strides));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The tagged onnx.Yield of a lowered region.
struct YieldLowering : OpConversionPattern<onnx::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::YieldOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto kind = op->getAttrOfType<StringAttr>(kKind);
    if (!kind)
      return rewriter.notifyMatchFailure(op, "not the end of a lowered region");
    Location loc = op.getLoc();
    ValueRange values = adaptor.getOperands();
    if (kind.getValue() == "if") {
      size_t n = values.size() / 2;
      SmallVector<Value> results;
      for (size_t i = 0; i < n; ++i) {
        Value v = values[i], dest = values[n + i];
        if (v.getType() != dest.getType())
          v = tensor::CastOp::create(rewriter, loc, dest.getType(), v);
        results.push_back(linalg::CopyOp::create(rewriter, loc, v, dest).getResult(0));
      }
      rewriter.replaceOpWithNewOp<scf::YieldOp>(op, results);
      return success();
    }
    bool isLoop = kind.getValue() == "loop";
    int64_t numStates = op->getAttrOfType<IntegerAttr>(kStates).getInt();
    int64_t numOutputs = op->getAttrOfType<IntegerAttr>(kOutputs).getInt();
    ArrayRef<int64_t> axes = op->getAttrOfType<DenseI64ArrayAttr>(kAxes).asArrayRef();
    ArrayRef<int64_t> dirs = op->getAttrOfType<DenseI64ArrayAttr>(kReverse).asArrayRef();
    // [cond] states... outputs... iv (i | last) pairs... fulls...: Loop
    // passes its i64 iteration, Scan the last position (reverse outputs).
    size_t at = 0;
    Value cond = isLoop ? values[at++] : Value();
    ValueRange states = values.slice(at, numStates);
    ValueRange outputs = values.slice(at + numStates, numOutputs);
    at += numStates + numOutputs;
    Value iv = values[at++];
    Value second = values[at++];
    Value i = isLoop ? second : Value();
    Value last = isLoop ? Value() : second;
    ValueRange pairs = values.slice(at, numStates);
    ValueRange fulls = values.slice(at + numStates, numOutputs);

    SmallVector<Value> fresh;
    for (Value s : states)
      fresh.push_back(freshCopy(rewriter, loc, s, op->getBlock()));
    SmallVector<Value> next;
    // Scan outputs first: they may read the states' current slots, which the
    // writes below do not touch.
    SmallVector<Value> newFulls;
    bool guard = op->hasAttr(kGuard);
    for (int64_t j = 0; j < numOutputs; ++j) {
      Value pos = iv;
      if (dirs[j] && last)
        pos = arith::SubIOp::create(rewriter, loc, last, iv);
      if (!guard) {
        newFulls.push_back(insertAt(rewriter, loc, outputs[j], fulls[j], axes[j], pos));
        continue;
      }
      // Only the rows that fit: a run past the user's bound writes nothing
      // more and returns 10 after the loop.
      Value rows = tensor::DimOp::create(rewriter, loc, fulls[j], axes[j]);
      Value fits = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, pos, rows);
      Value out = outputs[j], full = fulls[j];
      int64_t axis = axes[j];
      auto written = scf::IfOp::create(
          rewriter, loc, fits,
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, insertAt(b, l, out, full, axis, pos));
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, full); });
      newFulls.push_back(written.getResult(0));
    }
    Value nxt = arith::RemUIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, iv, indexConst(rewriter, loc, 1)),
        indexConst(rewriter, loc, 2));
    for (int64_t k = 0; k < numStates; ++k) {
      auto elemType = cast<RankedTensorType>(pairs[k].getType());
      Value v = fresh[k];
      auto want = RankedTensorType::get(elemType.getShape().drop_front(),
                                        elemType.getElementType());
      auto have = cast<RankedTensorType>(v.getType());
      if (have.getRank() != want.getRank())
        return rewriter.notifyMatchFailure(op, "a loop-carried value changes rank");
      for (int64_t d = 0; d < have.getRank(); ++d)
        if (!have.isDynamicDim(d) && !want.isDynamicDim(d) &&
            have.getDimSize(d) != want.getDimSize(d))
          return rewriter.notifyMatchFailure(op, "a loop-carried value changes shape");
      next.push_back(insertAt(rewriter, loc, v, pairs[k], 0, nxt));
    }
    llvm::append_range(next, newFulls);
    if (isLoop) {
      next.push_back(arith::AddIOp::create(
          rewriter, loc, i, arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(1))));
      next.push_back(scalarOf(rewriter, loc, cond));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, next);
    return success();
  }
};

} // namespace

std::string controlFlowRefusal(Operation *op) {
  auto unknownDims = [](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return !r || !r.hasStaticShape();
  };
  if (auto loop = dyn_cast<onnx::LoopOp>(op)) {
    size_t carried = loop.getVInitial().size();
    for (unsigned i = carried; i < op->getNumResults(); ++i)
      if (unknownDims(op->getResult(i).getType()))
        return "its scan output #" + std::to_string(i - carried) +
               " has a row per iteration, and the trip count is not known at compile time "
               "(it depends on the data: give it a bound with --bound NODE=N)";
    for (unsigned i = 0; i < carried; ++i)
      if (unknownDims(op->getResult(i).getType()))
        return "loop-carried value #" + std::to_string(i) +
               " changes shape across iterations or has a shape not known at compile time";
    return "";
  }
  if (auto scan = dyn_cast<onnx::ScanOp>(op)) {
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      if (unknownDims(op->getResult(i).getType()))
        return "result #" + std::to_string(i) +
               " has a shape not known at compile time (a state that changes shape, or a "
               "sequence length not known at compile time)";
    return "";
  }
  if (auto ifOp = dyn_cast<onnx::IfOp>(op)) {
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      if (!unknownDims(op->getResult(i).getType()))
        continue;
      auto thenType = ifOp.getThenBranch().front().getTerminator()->getOperand(i).getType();
      auto elseType = ifOp.getElseBranch().front().getTerminator()->getOperand(i).getType();
      std::string why = "result #" + std::to_string(i) + " has a shape not known at compile time";
      auto thenRanked = dyn_cast<RankedTensorType>(thenType);
      auto elseRanked = dyn_cast<RankedTensorType>(elseType);
      if (thenRanked && elseRanked && thenRanked.getRank() != elseRanked.getRank())
        why += " (its branches give results of different ranks, " +
               std::to_string(thenRanked.getRank()) + " and " +
               std::to_string(elseRanked.getRank()) +
               ", under a condition that is not a dim compared with a constant)";
      return why;
    }
    return "";
  }
  return "";
}

void populateControlFlowPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<IfLowering, ScanLowering, LoopLowering, YieldLowering>(converter,
                                                                      patterns.getContext());
}

} // namespace onnxcc::lowering
