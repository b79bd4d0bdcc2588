//===- InferShapes.cpp - The onnx-infer-shapes pass ----------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

#include <tuple>

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

/// Gives argument `arg` of a subgraph the shape `shape` of what it receives,
/// with type `type` (the operand's, or the operand's with one dim dropped);
/// arguments the model declared with another static shape keep theirs.
void refineArgument(BlockArgument arg, Type type, const std::optional<Shape> &shape,
                    ShapeMap &map) {
  auto want = dyn_cast<RankedTensorType>(type);
  if (!want)
    return;
  if (auto have = dyn_cast<RankedTensorType>(arg.getType())) {
    if (have.getRank() != want.getRank())
      return;
    for (int64_t d = 0; d < have.getRank(); ++d)
      if (!have.isDynamicDim(d) && have.getDimSize(d) != want.getDimSize(d))
        return;
  } else if (!isa<UnrankedTensorType>(arg.getType()) ||
             cast<TensorType>(arg.getType()).getElementType() != want.getElementType()) {
    return;
  }
  arg.setType(want);
  if (shape)
    map.set(arg, *shape);
}

/// Before the body of a Loop or Scan is inferred: its loop-carried
/// arguments get the shapes of the initial values, the per-iteration slices
/// of the scan inputs those of the inputs without the scan axis. (A value
/// that changes shape across iterations makes the op's result unknown.)
void refineSubgraphArguments(Operation *op, ShapeMap &map) {
  if (auto loop = dyn_cast<LoopOp>(op)) {
    if (loop.getBody().empty())
      return;
    Block &body = loop.getBody().front();
    for (auto [k, init] : llvm::enumerate(loop.getVInitial()))
      if (k + 2 < body.getNumArguments())
        refineArgument(body.getArgument(k + 2), init.getType(), map.lookup(init), map);
    return;
  }
  auto scan = dyn_cast<ScanOp>(op);
  if (!scan || scan.getBody().empty())
    return;
  Block &body = scan.getBody().front();
  auto inputs = scan.getInitialStateAndScanInputs();
  int64_t numScan = scan.getNumScanInputs();
  int64_t numStates = static_cast<int64_t>(inputs.size()) - numScan;
  if (numScan < 0 || numStates < 0 || body.getNumArguments() != inputs.size())
    return;
  auto axes = scan.getScanInputAxes();
  for (auto [k, input] : llvm::enumerate(inputs)) {
    int64_t i = static_cast<int64_t>(k);
    if (i < numStates) {
      refineArgument(body.getArgument(k), input.getType(), map.lookup(input), map);
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type)
      continue;
    int64_t axis = axes && i - numStates < static_cast<int64_t>(axes->size())
                       ? (*axes)[i - numStates]
                       : 0;
    int64_t rank = type.getRank();
    if (axis < -rank || axis >= rank)
      continue;
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> dims(type.getShape());
    dims.erase(dims.begin() + axis);
    std::optional<Shape> shape = map.lookup(input);
    if (shape)
      shape->erase(shape->begin() + axis);
    refineArgument(body.getArgument(k), RankedTensorType::get(dims, type.getElementType()),
                   shape, map);
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

/// Replaces branch `index` (0 then_branch, 1 else_branch) of `op` by zeros
/// of the shapes the other branch yields and marks it (attribute
/// onnxcc.invalid_branch) for the lowering, which makes it return a status
/// when taken. False, changing nothing, when the other branch's results do
/// not all have static shapes and numeric types.
bool stubBranch(IfOp op, unsigned index) {
  Region &bad = index == 0 ? op.getThenBranch() : op.getElseBranch();
  Region &good = index == 0 ? op.getElseBranch() : op.getThenBranch();
  if (bad.empty() || good.empty())
    return false;
  SmallVector<DenseElementsAttr> zeros;
  for (Type t : good.front().getTerminator()->getOperandTypes()) {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !type.hasStaticShape())
      return false;
    Type elem = type.getElementType();
    Attribute zero;
    if (isa<FloatType>(elem))
      zero = FloatAttr::get(elem, 0.0);
    else if (isa<IntegerType>(elem))
      zero = IntegerAttr::get(elem, 0);
    else
      return false;
    zeros.push_back(DenseElementsAttr::get(type, zero));
  }
  Block &block = bad.front();
  Location loc = block.getTerminator()->getLoc();
  for (Operation &o : llvm::make_early_inc_range(llvm::reverse(block))) {
    o.dropAllUses();
    o.erase();
  }
  OpBuilder b = OpBuilder::atBlockEnd(&block);
  SmallVector<Value> values;
  for (DenseElementsAttr z : zeros)
    values.push_back(ConstantOp::create(b, loc, TypeRange{z.getType()}, ValueRange{},
                                        {b.getNamedAttr("value", z)})
                         ->getResult(0));
  YieldOp::create(b, loc, values);
  op->setAttr("onnxcc.invalid_branch", b.getI64IntegerAttr(index));
  return true;
}

/// The branch of an If that `op` is in, innermost first: the If and 0
/// (then_branch) or 1 (else_branch); a null If when none.
std::pair<IfOp, unsigned> enclosingBranch(Operation *op) {
  for (Region *r = op->getParentRegion(); r; r = r->getParentRegion()) {
    auto ifOp = dyn_cast_or_null<IfOp>(r->getParentOp());
    if (ifOp)
      return {ifOp, r == &ifOp.getThenBranch() ? 0u : 1u};
    if (isa_and_nonnull<func::FuncOp>(r->getParentOp()))
      break;
  }
  return {IfOp(), 0};
}

/// One pass over `func`. A shape function that objects inside a branch of
/// an If is not an error: the branch is recorded in `invalid` with the
/// objection, for the caller to replace; other objections are.
LogicalResult inferOnce(func::FuncOp func, ShapeMap &map,
                        SmallVectorImpl<std::tuple<IfOp, unsigned, std::string>> &invalid) {
  seedArguments(func, map);
  struct Held {
    DiagnosticSeverity severity;
    Location loc;
    std::string text;
  };
  SmallVector<Held> held, kept;
  WalkResult r;
  {
    ScopedDiagnosticHandler handler(func.getContext(), [&](Diagnostic &d) {
      held.push_back({d.getSeverity(), d.getLocation(), d.str()});
      return success();
    });
    r = func.walk([&](Operation *op, const WalkStage &stage) {
      if (stage.isBeforeAllRegions())
        refineSubgraphArguments(op, map);
      if (!stage.isAfterAllRegions())
        return WalkResult::advance();
      held.clear();
      LogicalResult result = inferShapes(op, map);
      auto [ifOp, branch] = enclosingBranch(op);
      if (succeeded(result) || !ifOp) {
        kept.append(held.begin(), held.end());
        return succeeded(result) ? WalkResult::advance() : WalkResult::interrupt();
      }
      bool seen = llvm::any_of(invalid, [&, ifOp = ifOp, branch = branch](const auto &e) {
        return std::get<0>(e) == ifOp && std::get<1>(e) == branch;
      });
      if (!seen)
        invalid.emplace_back(ifOp, branch, held.empty() ? std::string("its shapes do not fit")
                                                        : held.front().text);
      return WalkResult::advance();
    });
  }
  for (const Held &h : kept) {
    if (h.severity == DiagnosticSeverity::Error)
      emitError(h.loc) << h.text;
    else if (h.severity == DiagnosticSeverity::Warning)
      emitWarning(h.loc) << h.text;
    else
      emitRemark(h.loc) << h.text;
  }
  return failure(r.wasInterrupted());
}

} // namespace

LogicalResult inferShapesInFunction(func::FuncOp func, ShapeMap *shapes) {
  ShapeMap local;
  ShapeMap &map = shapes ? *shapes : local;
  SmallVector<std::tuple<IfOp, unsigned, std::string>> invalid;
  if (failed(inferOnce(func, map, invalid)))
    return failure();
  if (!invalid.empty()) {
    // A branch that cannot run with these shapes does not stop the compile:
    // it returns a status if it is ever taken. Outer Ifs first, so that a
    // stub does not reach into a branch already replaced.
    for (auto &[ifOp, branch, why] : invalid) {
      bool nested = llvm::any_of(invalid, [&, ifOp = ifOp](const auto &e) {
        return std::get<0>(e) != ifOp && std::get<0>(e)->isProperAncestor(ifOp);
      });
      if (nested)
        continue;
      if (!stubBranch(ifOp, branch))
        return ifOp.emitError() << (branch ? "else_branch" : "then_branch")
                                << " cannot run with these shapes: " << why;
      ifOp.emitWarning() << (branch ? "else_branch" : "then_branch")
                         << " cannot run with these shapes (" << why
                         << "); if it is taken, run() returns status 11";
    }
    map = ShapeMap();
    invalid.clear();
    if (failed(inferOnce(func, map, invalid)))
      return failure();
    if (!invalid.empty())
      return std::get<0>(invalid.front()).emitError()
             << "a branch cannot run with these shapes: " << std::get<2>(invalid.front());
  }
  // The function's result types follow what its return now yields.
  Operation *terminator = func.getBody().back().getTerminator();
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 terminator->getOperandTypes()));
  return success();
}

} // namespace onnxcc::onnx
