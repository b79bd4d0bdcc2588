//===- Simplify.cpp - The onnx-simplify pass ----------------------------===//
//
// Graph simplifications on the onnx dialect, as rewrite patterns applied to a
// fixpoint, followed by common subexpression elimination:
//
//   Identity, inference Dropout          their input
//   Cast to the same element type        its input
//   Reshape to the input's static shape  its input
//   Transpose with the identity perm     its input
//   Pad with all-zero constant pads      its input
//   Slice keeping the whole input        its input
//   Squeeze/Unsqueeze keeping the rank   its input
//   Transpose(Transpose(x))              one Transpose of x, or x
//   Transpose moving only dims of size 1 Reshape (no data moves: [1,1,1,C]
//                                        to [1,C,1,1])
//   Reshape(Reshape(x))                  one Reshape of x
//   Squeeze(Unsqueeze(x)), and the other way round, with the same axes: x
//   If whose branches yield a scalar and a [1] that only broadcasts with
//   tensors of rank >= 1 (AffineGrid's body, a step of 1 or of 2/(D-1))
//                                        both yield the [1]
//   Reshape to a shape computed at run time whose dims shape inference knows
//                                        Reshape to a constant shape, with 0
//                                        (copy the input's dim) and -1 for
//                                        the symbolic dims (as PyTorch's
//                                        Shape -> Gather -> Concat chains are)
//
// A value is only replaced by one of the same type, so the function's
// signature and its returned values stay as they are. Shapes are only trusted
// where the types give them statically: a dynamic dim equals nothing.
// The greedy driver erases the nodes left dead.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"
#include "dialects/onnx/Transforms/Constants.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXSIMPLIFYPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {

bool isNone(Value v) { return !v || isa<NoneType>(v.getType()); }

RankedTensorType staticType(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

/// Replaces `op`'s single result by `input` when both have one type.
LogicalResult forwardInput(PatternRewriter &rewriter, Operation *op, Value input) {
  if (op->getResult(0).getType() != input.getType())
    return rewriter.notifyMatchFailure(op, "result and input types differ");
  rewriter.replaceOp(op, input);
  return success();
}

/// Axes normalized into [0, rank) and sorted; nullopt when out of range or
/// repeated.
std::optional<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + rank : a;
    if (n < 0 || n >= rank)
      return std::nullopt;
    out.push_back(n);
  }
  llvm::sort(out);
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    return std::nullopt;
  return out;
}

/// The permutation of a Transpose: its perm, else the reversed dims.
std::optional<SmallVector<int64_t>> permutation(TransposeOp op) {
  if (auto perm = op.getPerm())
    return SmallVector<int64_t>(perm->begin(), perm->end());
  auto type = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!type)
    return std::nullopt;
  SmallVector<int64_t> perm;
  for (int64_t i = type.getRank() - 1; i >= 0; --i)
    perm.push_back(i);
  return perm;
}

bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return false;
  return true;
}

struct RemoveIdentity : OpRewritePattern<IdentityOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IdentityOp op, PatternRewriter &rewriter) const override {
    return forwardInput(rewriter, op, op.getInput());
  }
};

/// Dropout outside training passes its data through; its mask, when used, is
/// all true.
struct RemoveInferenceDropout : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op, PatternRewriter &rewriter) const override {
    Value training = op.getTrainingMode();
    if (!isNone(training)) {
      auto flag = constantInts(training);
      if (!flag || flag->size() != 1 || (*flag)[0] != 0)
        return rewriter.notifyMatchFailure(op, "training mode is not constant false");
    }
    if (op.getOutput().getType() != op.getData().getType())
      return rewriter.notifyMatchFailure(op, "result and input types differ");
    Value mask = op.getMask();
    Value ones;
    if (!isNone(mask) && !mask.use_empty()) {
      auto maskType = staticType(mask);
      auto dataType = staticType(op.getData());
      if (!maskType || !dataType || maskType.getShape() != dataType.getShape())
        return rewriter.notifyMatchFailure(op, "mask shape is not static");
      auto attr = DenseElementsAttr::get(maskType, true);
      ones = ConstantOp::create(rewriter, op.getLoc(), TypeRange{maskType}, ValueRange{},
                                {rewriter.getNamedAttr("value", attr)})
                 ->getResult(0);
    }
    rewriter.replaceAllUsesWith(op.getOutput(), op.getData());
    if (ones)
      rewriter.replaceAllUsesWith(mask, ones);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RemoveNoOpCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<ShapedType>(op.getInput().getType());
    auto out = dyn_cast<ShapedType>(op.getOutput().getType());
    if (!in || !out || in.getElementType() != out.getElementType())
      return rewriter.notifyMatchFailure(op, "element types differ");
    return forwardInput(rewriter, op, op.getInput());
  }
};

struct RemoveNoOpReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    if (!staticType(op.getData()))
      return rewriter.notifyMatchFailure(op, "input shape is not static");
    // A target given at run time is checked against the result's dims by
    // the lowering: the same type does not make it a no-op for every value.
    if (!op.getShape().getDefiningOp<ConstantOp>())
      return rewriter.notifyMatchFailure(op, "target shape is not constant");
    return forwardInput(rewriter, op, op.getData());
  }
};

/// Reshape(Reshape(x, s1), s2) is Reshape(x, s2) unless s2 copies dims of the
/// intermediate value (0 entries without allowzero).
struct MergeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    if (op.getAllowzero() == 0) {
      auto shape = constantInts(op.getShape());
      if (!shape || llvm::is_contained(*shape, 0))
        return rewriter.notifyMatchFailure(op, "outer shape may copy intermediate dims");
    }
    rewriter.modifyOpInPlace(op, [&] { op.getDataMutable().assign(inner.getData()); });
    return success();
  }
};

struct SimplifyTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto perm = permutation(op);
    if (!perm)
      return rewriter.notifyMatchFailure(op, "unknown rank");
    if (isIdentityPermutation(*perm))
      return forwardInput(rewriter, op, op.getData());
    auto inner = op.getData().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    auto innerPerm = permutation(inner);
    if (!innerPerm || innerPerm->size() != perm->size())
      return failure();
    // Result dim k is intermediate dim perm[k], which is input dim
    // innerPerm[perm[k]].
    SmallVector<int64_t> composed;
    for (int64_t p : *perm) {
      if (p < 0 || p >= static_cast<int64_t>(innerPerm->size()))
        return failure();
      composed.push_back((*innerPerm)[p]);
    }
    if (isIdentityPermutation(composed))
      return forwardInput(rewriter, op, inner.getData());
    rewriter.modifyOpInPlace(op, [&] {
      op.getDataMutable().assign(inner.getData());
      op.setPermAttr(rewriter.getDenseI64ArrayAttr(composed));
    });
    return success();
  }
};

/// A Transpose of a static shape that keeps the dims larger than 1 in order
/// moves no data: it is a Reshape.
struct TransposeOfUnitDims : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto in = staticType(op.getData());
    auto out = staticType(op.getTransposed());
    auto perm = permutation(op);
    if (!in || !out || !perm || isIdentityPermutation(*perm))
      return failure();
    int64_t last = -1;
    for (int64_t p : *perm) {
      if (p < 0 || p >= in.getRank())
        return failure();
      if (in.getDimSize(p) == 1)
        continue;
      if (p < last)
        return rewriter.notifyMatchFailure(op, "moves a dim larger than 1");
      last = p;
    }
    auto shapeType = RankedTensorType::get({out.getRank()}, rewriter.getI64Type());
    Value shape = ConstantOp::create(
        rewriter, op.getLoc(), TypeRange{shapeType}, ValueRange{},
        ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
            "value", DenseIntElementsAttr::get(shapeType, out.getShape()))});
    // A 0 in the target is a size only with allowzero; else it copies the
    // input's dim, and a re-inferred shape would differ from `out`.
    SmallVector<NamedAttribute> attrs;
    if (llvm::is_contained(out.getShape(), 0))
      attrs.push_back(rewriter.getNamedAttr("allowzero", rewriter.getI64IntegerAttr(1)));
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, TypeRange{out}, ValueRange{op.getData(), shape},
                                           attrs);
    return success();
  }
};

struct RemoveNoOpPad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op, PatternRewriter &rewriter) const override {
    auto pads = constantInts(op.getPads());
    if (!pads || llvm::any_of(*pads, [](int64_t p) { return p != 0; }))
      return rewriter.notifyMatchFailure(op, "pads are not constant zeros");
    return forwardInput(rewriter, op, op.getData());
  }
};

/// Slice whose every sliced axis runs from 0 to its end with step 1.
struct RemoveNoOpSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto type = staticType(op.getData());
    if (!type)
      return rewriter.notifyMatchFailure(op, "input shape is not static");
    int64_t rank = type.getRank();
    auto starts = constantInts(op.getStarts());
    auto ends = constantInts(op.getEnds());
    if (!starts || !ends || starts->size() != ends->size())
      return rewriter.notifyMatchFailure(op, "starts/ends are not constant");
    SmallVector<int64_t> axes, steps(starts->size(), 1);
    if (isNone(op.getAxes())) {
      for (int64_t i = 0; i < static_cast<int64_t>(starts->size()); ++i)
        axes.push_back(i);
    } else {
      auto values = constantInts(op.getAxes());
      if (!values)
        return rewriter.notifyMatchFailure(op, "axes are not constant");
      axes = *values;
    }
    if (!isNone(op.getSteps())) {
      auto values = constantInts(op.getSteps());
      if (!values)
        return rewriter.notifyMatchFailure(op, "steps are not constant");
      steps = *values;
    }
    if (axes.size() != starts->size() || steps.size() != starts->size() ||
        !normalizeAxes(axes, rank))
      return failure();
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      int64_t dim = type.getDimSize(axis);
      if (dim == 0)
        continue;
      if (steps[i] != 1)
        return rewriter.notifyMatchFailure(op, "a step is not 1");
      int64_t start = (*starts)[i], end = (*ends)[i];
      if (start < 0)
        start += dim;
      if (end < 0)
        end += dim;
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      if (start != 0 || end != dim)
        return rewriter.notifyMatchFailure(op, "an axis is not kept whole");
    }
    return forwardInput(rewriter, op, op.getData());
  }
};

/// Squeeze/Unsqueeze whose result has the rank of its input did nothing.
template <typename OpTy>
struct RemoveNoOpRankChange : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Value data = op->getOperand(0);
    auto in = dyn_cast<RankedTensorType>(data.getType());
    auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!in || !out || in.getRank() != out.getRank())
      return failure();
    if (!in.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "input shape is not static");
    return forwardInput(rewriter, op, data);
  }
};

/// The normalized constant axes of a Squeeze or Unsqueeze, where `rank` is the
/// rank with the unit dims present.
std::optional<SmallVector<int64_t>> unitAxes(Value axes, int64_t rank) {
  if (isNone(axes))
    return std::nullopt;
  auto values = constantInts(axes);
  if (!values || values->empty())
    return std::nullopt;
  return normalizeAxes(*values, rank);
}

/// Squeeze(Unsqueeze(x, a), a) is x.
struct SqueezeOfUnsqueeze : OpRewritePattern<SqueezeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SqueezeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<UnsqueezeOp>();
    if (!inner)
      return failure();
    auto mid = dyn_cast<RankedTensorType>(inner.getExpanded().getType());
    if (!mid)
      return failure();
    auto a = unitAxes(op.getAxes(), mid.getRank());
    auto b = unitAxes(inner.getAxes(), mid.getRank());
    if (!a || !b || *a != *b)
      return rewriter.notifyMatchFailure(op, "axes differ");
    return forwardInput(rewriter, op, inner.getData());
  }
};

/// Unsqueeze(Squeeze(x, a), a) is x.
struct UnsqueezeOfSqueeze : OpRewritePattern<UnsqueezeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnsqueezeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<SqueezeOp>();
    if (!inner)
      return failure();
    auto outer = dyn_cast<RankedTensorType>(op.getExpanded().getType());
    if (!outer)
      return failure();
    auto a = unitAxes(op.getAxes(), outer.getRank());
    auto b = unitAxes(inner.getAxes(), outer.getRank());
    if (!a || !b || *a != *b)
      return rewriter.notifyMatchFailure(op, "axes differ");
    return forwardInput(rewriter, op, inner.getData());
  }
};

/// The constant target shape of a Reshape from `in` to `out` (symbolic
/// shapes): static dims as they are, a symbolic dim equal to the input's dim
/// at the same position as 0, one other symbolic dim as -1. nullopt when the
/// shapes cannot be written so.
std::optional<SmallVector<int64_t>> constantReshapeTarget(const Shape &in, const Shape &out) {
  SmallVector<int64_t> target;
  bool inferred = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const Dim &d = out[i];
    if (d.isStatic()) {
      if (d.size == 0) // 0 would mean "copy the input's dim"
        return std::nullopt;
      target.push_back(d.size);
    } else if (!d.isSymbolic()) {
      return std::nullopt;
    } else if (i < in.size() && in[i] == d) {
      target.push_back(0);
    } else if (!inferred) {
      inferred = true;
      target.push_back(-1);
    } else {
      return std::nullopt;
    }
  }
  for (const Dim &d : in)
    if (!d.isStatic() && !d.isSymbolic())
      return std::nullopt;
  return target;
}

/// Replaces the run-time shape operand of each Reshape whose target shape
/// inference knows by a constant; the Shape/Gather/Concat nodes computing it
/// are then dead.
void constantReshapeTargets(func::FuncOp func) {
  ShapeMap shapes;
  if (failed(inferShapesInFunction(func, &shapes)))
    return;
  func.walk([&](ReshapeOp op) {
    if (op.getShape().getDefiningOp<ConstantOp>() || op.getAllowzero() != 0)
      return;
    // Only a target computed from dims: one that depends on values given
    // at run time stays an operand, which the lowering checks against the
    // dims the model declares.
    ShapeContext ctx(op, shapes);
    auto values = ctx.operandDims(1);
    if (!values || !llvm::all_of(*values, [](const Dim &d) { return d.asExpr().has_value(); }))
      return;
    auto in = shapes.lookup(op.getData());
    auto out = shapes.lookup(op.getReshaped());
    if (!in || !out)
      return;
    auto target = constantReshapeTarget(*in, *out);
    if (!target)
      return;
    OpBuilder b(op);
    auto type = RankedTensorType::get({static_cast<int64_t>(target->size())}, b.getI64Type());
    auto value = DenseIntElementsAttr::get(type, ArrayRef<int64_t>(*target));
    Value c = ConstantOp::create(b, op.getLoc(), TypeRange{type}, ValueRange{},
                                 ArrayRef<NamedAttribute>{b.getNamedAttr("value", value)})
                  .getResult();
    op.getShapeMutable().assign(c);
  });
}

/// A graph input with no elements (an `axes` of shape [0] given at run time,
/// as "reduce over the default axes" is written) has one value whatever the
/// caller passes: its uses read an empty constant instead, so that ops see
/// constant axes, pads or shapes.
void constantEmptyInputs(func::FuncOp func) {
  if (func.getBody().empty())
    return;
  Block &entry = func.getBody().front();
  OpBuilder b(&entry, entry.begin());
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 0 || arg.use_empty() ||
        !type.getElementType().isIntOrFloat())
      continue;
    auto value = DenseElementsAttr::get(type, ArrayRef<Attribute>{});
    Value c = ConstantOp::create(b, func.getLoc(), TypeRange{type}, ValueRange{},
                                 ArrayRef<NamedAttribute>{b.getNamedAttr("value", value)})
                  .getResult();
    arg.replaceAllUsesWith(c);
  }
}

/// Whether every use of `v` broadcasts it with an operand of rank >= 1, so
/// that a scalar and a [1] give the same results there: elementwise ops,
/// CastLike's target, and through Identity and the yields of If branches, the uses of what they
/// give.
bool onlyBroadcastsWithTensors(Value v, int depth = 0) {
  if (depth > 8)
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    // CastLike's target only gives the element type.
    if (isa<CastLikeOp>(user) && use.getOperandNumber() == 1)
      continue;
    if (isa<IdentityOp>(user)) {
      if (!onlyBroadcastsWithTensors(user->getResult(0), depth + 1))
        return false;
      continue;
    }
    if (isa<YieldOp>(user)) {
      auto ifOp = dyn_cast<IfOp>(user->getParentOp());
      if (!ifOp || !onlyBroadcastsWithTensors(ifOp->getResult(use.getOperandNumber()), depth + 1))
        return false;
      continue;
    }
    if (!isa<AddOp, SubOp, MulOp, DivOp, PowOp, ModOp, EqualOp, LessOp, LessOrEqualOp,
             GreaterOp, GreaterOrEqualOp, AndOp, OrOp, XorOp, WhereOp, MaxOp, MinOp, SumOp,
             MeanOp>(user))
      return false;
    bool tensorBeside = llvm::any_of(user->getOperands(), [&](Value o) {
      auto t = dyn_cast<RankedTensorType>(o.getType());
      return o != v && t && t.getRank() >= 1;
    });
    if (!tensorBeside)
      return false;
  }
  return true;
}

/// An If result that one branch yields as a scalar and the other as a [1],
/// used only where either broadcasts to the same values, is the [1] from
/// both branches: its shape is then known.
void unifyScalarBranchResults(func::FuncOp func) {
  SmallVector<IfOp> ifs;
  func.walk([&](IfOp op) { ifs.push_back(op); });
  // Inner Ifs first (the walk is post-order): an outer one may yield them.
  for (IfOp op : ifs) {
    Operation *thenYield = op.getThenBranch().front().getTerminator();
    Operation *elseYield = op.getElseBranch().front().getTerminator();
    for (OpResult r : op->getResults()) {
      unsigned k = r.getResultNumber();
      if (k >= thenYield->getNumOperands() || k >= elseYield->getNumOperands())
        continue;
      if (auto ranked = dyn_cast<RankedTensorType>(r.getType()); !isa<TensorType>(r.getType()) ||
                                                                  (ranked && ranked.hasStaticShape()))
        continue;
      auto a = dyn_cast<RankedTensorType>(thenYield->getOperand(k).getType());
      auto c = dyn_cast<RankedTensorType>(elseYield->getOperand(k).getType());
      if (!a || !c || a.getElementType() != c.getElementType())
        continue;
      auto isScalar = [](RankedTensorType t) { return t.getRank() == 0; };
      auto isOne = [](RankedTensorType t) {
        return t.getRank() == 1 && t.getDimSize(0) == 1;
      };
      Operation *scalarYield = isScalar(a) && isOne(c)   ? thenYield
                               : isScalar(c) && isOne(a) ? elseYield
                                                         : nullptr;
      if (!scalarYield || !onlyBroadcastsWithTensors(r))
        continue;
      OpBuilder b(scalarYield);
      auto one = RankedTensorType::get({1}, a.getElementType());
      auto axesType = RankedTensorType::get({1}, b.getI64Type());
      Value axes = ConstantOp::create(
                       b, op.getLoc(), TypeRange{axesType}, ValueRange{},
                       {b.getNamedAttr("value", DenseIntElementsAttr::get(axesType, {int64_t(0)}))})
                       ->getResult(0);
      Value lifted = UnsqueezeOp::create(b, op.getLoc(), TypeRange{one},
                                         ValueRange{scalarYield->getOperand(k), axes})
                         ->getResult(0);
      scalarYield->setOperand(k, lifted);
      r.setType(one);
    }
  }
}

struct OnnxSimplifyPass : public impl::OnnxSimplifyPassBase<OnnxSimplifyPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    unifyScalarBranchResults(func);
    constantEmptyInputs(func);
    constantReshapeTargets(func);
    RewritePatternSet patterns(ctx);
    populateOnnxSimplifyPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Only these rewrites and dead-node erasure: no folding, no constant
    // hoisting, and regions (subgraph bodies) keep their blocks and arguments.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);

    IRRewriter rewriter(ctx);
    // Merging identical nodes can make more rewrites apply and vice versa. The
    // IR stays valid when a round stops short of a fixpoint.
    for (int round = 0; round < 8; ++round) {
      (void)applyPatternsGreedily(func, frozen, config);
      bool merged = false;
      DominanceInfo dom(func);
      eliminateCommonSubExpressions(rewriter, dom, func, &merged);
      if (!merged)
        break;
    }
  }
};

} // namespace

void populateOnnxSimplifyPatterns(RewritePatternSet &patterns) {
  patterns.add<RemoveIdentity, RemoveInferenceDropout, RemoveNoOpCast, RemoveNoOpReshape,
               MergeReshapes, SimplifyTranspose, TransposeOfUnitDims, RemoveNoOpPad,
               RemoveNoOpSlice, RemoveNoOpRankChange<SqueezeOp>, RemoveNoOpRankChange<UnsqueezeOp>,
               SqueezeOfUnsqueeze, UnsqueezeOfSqueeze>(patterns.getContext());
}

} // namespace onnxcc::onnx
