//===- Fuse.cpp - The onnx-fuse pass --------------------------------------===//
//
// Folds the elementwise nodes that follow a Conv, Gemm or MatMul into the
// epilogue of one fused node (rewrite patterns applied to a fixpoint):
//
//   MatMul(A, B) + C, A and B of rank 2, C broadcasting to [M, N]
//                                    Gemm(A, B, C)
//   anchor [+ bias] [+ Z] [activation]
//                                    FusedConv / FusedGemm / FusedMatMul
//
// The anchor is a float Conv, Gemm or MatMul; each stage is optional, but
// they come in this order and at least one is there:
//
//   bias        an Add of a constant that varies along the output channel
//               only: Conv [M], [M, 1, 1], [1, M, 1, 1]..., added to the
//               Conv's constant B (or becoming B); MatMul [N] or [1.., N]
//               (the last dim), becoming Bias; Gemm without C: any constant
//               broadcasting to [M, N], becoming C with beta 1
//   residual    an Add (either operand order) of a value Z with exactly the
//               result's shape that does not depend on the anchor
//   activation  Relu, Clip with constant bounds, LeakyRelu, Sigmoid,
//               HardSigmoid, HardSwish, SiLU, Gelu, Tanh; nothing follows it
//
// Every value between the anchor and the last absorbed node must have
// exactly one use, and each node must keep the anchor's result type, so the
// fused node replaces the chain one for one. Shapes are proven from the types
// and from the symbolic dims of shape inference (a symbolic dim equals only
// the same symbolic expression); where they cannot be, nothing changes.
// The fused node's location fuses those of the nodes it replaces, the
// anchor's first, so that errors and generated code name the anchor.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"
#include "dialects/onnx/Transforms/Constants.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>
#include <optional>

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXFUSEPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {

/// Element types of the fused ops.
bool isFusableFloat(Type t) { return t.isF16() || t.isF32() || t.isF64(); }

bool isNone(Value v) { return !v || isa<NoneType>(v.getType()); }

/// The ranked tensor type of `v` with a fusable float element type, or null.
RankedTensorType floatTensorType(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isFusableFloat(t.getElementType()) ? t : RankedTensorType();
}

/// Whether two dims are provably the same size: equal static sizes, or the
/// same symbolic expression.
bool provablyEqual(const Dim &a, const Dim &b) {
  if (a.isStatic() || b.isStatic())
    return a.isStatic() && b.isStatic() && a.size == b.size;
  return a.isSymbolic() && b.isSymbolic() && a.expr == b.expr;
}

/// An inline constant of `type` holding `values`, each rounded once to the
/// element type.
DenseElementsAttr makeConstant(RankedTensorType type, ArrayRef<double> values) {
  const llvm::fltSemantics &sem = cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> rounded;
  for (double d : values) {
    APFloat v(d);
    bool lossy = false;
    v.convert(sem, APFloat::rmNearestTiesToEven, &lossy);
    rounded.push_back(v);
  }
  return DenseElementsAttr::get(type, rounded);
}

/// `attr` (a constant) with the same elements in shape `type`.
ElementsAttr reshapeConstant(ElementsAttr attr, RankedTensorType type) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.reshape(type);
  return DenseResourceElementsAttr::get(type, cast<DenseResourceElementsAttr>(attr).getRawHandle());
}

/// The operand of binary `op` that is not `v` (`v` must be one of them).
Value otherOperand(Operation *op, Value v) {
  return op->getOperand(0) == v ? op->getOperand(1) : op->getOperand(0);
}

/// Whether `v` is computed from a result of `anchor` (through the operands
/// of the ops between them, including uses inside their regions).
bool dependsOn(Value v, Operation *anchor) {
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def)
      continue;
    if (def == anchor)
      return true;
    // Values defined before the anchor in its block cannot depend on it.
    if (def->getBlock() == anchor->getBlock() && def->isBeforeInBlock(anchor))
      continue;
    if (!seen.insert(def).second)
      continue;
    def->walk([&](Operation *nested) { llvm::append_range(work, nested->getOperands()); });
  }
  return false;
}

/// The symbolic shapes the pass proves its conditions with, kept in step
/// with the rewrites: erased ops forget their shapes (a later op may reuse
/// their storage), replacements take over the shape of what they replace.
class ShapeTracker : public RewriterBase::Listener {
public:
  explicit ShapeTracker(func::FuncOp func) {
    // Shape inference ran earlier in the pipeline; errors it would report
    // here only mean that fewer shapes are proven.
    ScopedDiagnosticHandler quiet(func.getContext(), [](Diagnostic &) { return success(); });
    (void)inferShapesInFunction(func, &map);
  }

  std::optional<Shape> lookup(Value v) const { return map.lookup(v); }

  /// Whether `a` and `b` provably have the same shape, every dim known.
  bool sameShape(Value a, Value b) const {
    auto sa = lookup(a), sb = lookup(b);
    if (!sa || !sb || sa->size() != sb->size())
      return false;
    return llvm::all_of(llvm::zip(*sa, *sb),
                        [](auto p) { return provablyEqual(std::get<0>(p), std::get<1>(p)); });
  }

  /// Whether `c` broadcasts to `result`'s shape unidirectionally: at most its
  /// rank, and each dim (aligned from the end) 1 or provably equal.
  bool broadcastsTo(Value c, Value result) const {
    auto sc = lookup(c), sr = lookup(result);
    if (!sc || !sr || sc->size() > sr->size())
      return false;
    size_t offset = sr->size() - sc->size();
    for (auto [i, d] : llvm::enumerate(*sc))
      if (!(d.isStatic() && d.size == 1) && !provablyEqual(d, (*sr)[offset + i]))
        return false;
    return true;
  }

  void replaced(Value from, Value to) {
    if (auto s = lookup(from))
      map.set(to, *s);
  }

  void notifyOperationErased(Operation *op) override {
    for (Value r : op->getResults())
      map.erase(r);
  }

private:
  ShapeMap map;
};

//===----------------------------------------------------------------------===//
// MatMul + Add -> Gemm
//===----------------------------------------------------------------------===//

/// The Add that makes `mm` a Gemm, and its C: A and B of rank 2 (float),
/// the product's only use adds C, which broadcasts to [M, N]. Null when the
/// pattern does not apply.
AddOp gemmAddOf(MatMulOp mm, const ShapeTracker &shapes, Value *c = nullptr) {
  auto a = floatTensorType(mm.getA()), b = floatTensorType(mm.getB());
  Value y = mm.getY();
  if (!a || !b || a.getRank() != 2 || b.getRank() != 2 || !y.hasOneUse())
    return {};
  auto add = dyn_cast<AddOp>(*y.getUsers().begin());
  if (!add || add.getC().getType() != y.getType())
    return {};
  Value other = otherOperand(add, y);
  auto ct = dyn_cast<RankedTensorType>(other.getType());
  if (!ct || ct.getElementType() != a.getElementType() || !shapes.broadcastsTo(other, y))
    return {};
  if (c)
    *c = other;
  return add;
}

struct MatMulAddToGemm : OpRewritePattern<MatMulOp> {
  MatMulAddToGemm(MLIRContext *ctx, ShapeTracker &shapes)
      : OpRewritePattern(ctx, /*benefit=*/2), shapes(shapes) {}

  LogicalResult matchAndRewrite(MatMulOp mm, PatternRewriter &rewriter) const override {
    Value c;
    AddOp add = gemmAddOf(mm, shapes, &c);
    if (!add)
      return rewriter.notifyMatchFailure(mm, "not a rank-2 MatMul whose only use adds C");
    Location loc = rewriter.getFusedLoc({mm.getLoc(), add.getLoc()});
    rewriter.setInsertionPoint(add);
    auto gemm = GemmOp::create(rewriter, loc, TypeRange{add.getC().getType()},
                               ValueRange{mm.getA(), mm.getB(), c}, ArrayRef<NamedAttribute>{});
    shapes.replaced(add.getC(), gemm.getY());
    rewriter.replaceOp(add, gemm.getY());
    rewriter.eraseOp(mm);
    return success();
  }

  ShapeTracker &shapes;
};

//===----------------------------------------------------------------------===//
// Epilogues
//===----------------------------------------------------------------------===//

/// What follows an anchor and goes into its fused node.
struct Epilogue {
  /// The absorbed nodes, in order; the last one's result is replaced.
  SmallVector<Operation *> nodes;
  /// The constant of the bias add, or null.
  Value bias;
  /// The residual, or null.
  Value residual;
  StringRef activation;
  SmallVector<float> params;
};

/// A single float from constant `v`, or nullopt.
std::optional<double> scalarConstant(Value v) {
  ElementsAttr attr = staticConstantValue(v);
  if (!attr || attr.getNumElements() != 1)
    return std::nullopt;
  auto values = readFloatElements(attr);
  if (!values)
    return std::nullopt;
  return values->front();
}

/// Recognizes `op` as an activation of `x`: sets its kind and parameters.
bool matchActivation(Operation *op, Value x, Epilogue &e) {
  if (op->getNumOperands() < 1 || op->getOperand(0) != x)
    return false;
  if (isa<ReluOp>(op)) {
    e.activation = "Relu";
    return true;
  }
  if (auto clip = dyn_cast<ClipOp>(op)) {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    for (auto [bound, value] : {std::pair{clip.getMin(), &lo}, std::pair{clip.getMax(), &hi}}) {
      if (isNone(bound))
        continue;
      // The params are f32: a bound they cannot hold exactly (f64) stays.
      auto c = scalarConstant(bound);
      if (!c || static_cast<double>(static_cast<float>(*c)) != *c)
        return false;
      *value = *c;
    }
    e.activation = "Clip";
    e.params = {static_cast<float>(lo), static_cast<float>(hi)};
    return true;
  }
  if (auto leaky = dyn_cast<LeakyReluOp>(op)) {
    e.activation = "LeakyRelu";
    e.params = {leaky.getAlpha().convertToFloat()};
    return true;
  }
  if (isa<SigmoidOp>(op)) {
    e.activation = "Sigmoid";
    return true;
  }
  if (auto hard = dyn_cast<HardSigmoidOp>(op)) {
    e.activation = "HardSigmoid";
    e.params = {hard.getAlpha().convertToFloat(), hard.getBeta().convertToFloat()};
    return true;
  }
  if (isa<HardSwishOp>(op)) {
    e.activation = "HardSwish";
    return true;
  }
  if (isa<SiLUOp>(op)) {
    e.activation = "SiLU";
    return true;
  }
  if (auto gelu = dyn_cast<GeluOp>(op)) {
    if (gelu.getApproximate() == "none")
      e.activation = "Gelu";
    else if (gelu.getApproximate() == "tanh")
      e.activation = "GeluTanh";
    else
      return false;
    return true;
  }
  if (isa<TanhOp>(op)) {
    e.activation = "Tanh";
    return true;
  }
  return false;
}

/// Whether constant `c` is a bias `anchor` can take, for a result of `type`.
using BiasCheck = function_ref<bool(Value c)>;

/// Collects the epilogue of `anchor`'s result; `isBias` says whether a
/// constant is a bias the anchor takes (null: none).
Epilogue collectEpilogue(Operation *anchor, const ShapeTracker &shapes, BiasCheck isBias) {
  Epilogue e;
  Value cur = anchor->getResult(0);
  Type type = cur.getType();
  // The next node, when `cur` is its only use and it keeps the type.
  auto next = [&]() -> Operation * {
    if (!cur.hasOneUse())
      return nullptr;
    Operation *user = *cur.getUsers().begin();
    if (user->getNumResults() != 1 || user->getResult(0).getType() != type ||
        user->getBlock() != anchor->getBlock())
      return nullptr;
    return user;
  };
  auto absorb = [&](Operation *op) {
    e.nodes.push_back(op);
    cur = op->getResult(0);
  };
  Operation *op = next();
  if (auto add = dyn_cast_or_null<AddOp>(op); add && isBias) {
    Value other = otherOperand(add, cur);
    if (other != cur && staticConstantValue(other) && isBias(other)) {
      e.bias = other;
      absorb(add);
      op = next();
    }
  }
  if (auto add = dyn_cast_or_null<AddOp>(op)) {
    Value z = otherOperand(add, cur);
    if (z != cur && z.getType() == type && shapes.sameShape(z, cur) && !dependsOn(z, anchor)) {
      e.residual = z;
      absorb(add);
      op = next();
    }
  }
  if (op && matchActivation(op, cur, e))
    absorb(op);
  return e;
}

/// The shape of constant `c`, when it has `c`'s element type `elem` and at
/// most `rank` dims.
std::optional<ArrayRef<int64_t>> biasShape(Value c, Type elem, int64_t rank) {
  auto t = dyn_cast<RankedTensorType>(c.getType());
  if (!t || t.getElementType() != elem || t.getRank() > rank || !t.hasStaticShape())
    return std::nullopt;
  return t.getShape();
}

/// Builds the attributes of a fused node: `anchor`'s own (inherent) ones,
/// `overrides`, and the activation.
SmallVector<NamedAttribute> fusedAttributes(Operation *anchor, const Epilogue &e,
                                            ArrayRef<NamedAttribute> overrides, Builder &b) {
  NamedAttrList attrs;
  for (NamedAttribute a : anchor->getAttrs())
    if (anchor->getInherentAttr(a.getName().getValue()))
      attrs.set(a.getName(), a.getValue());
  for (NamedAttribute a : overrides)
    attrs.set(a.getName(), a.getValue());
  if (!e.activation.empty()) {
    attrs.set("activation", b.getStringAttr(e.activation));
    if (!e.params.empty())
      attrs.set("activation_params", b.getDenseF32ArrayAttr(e.params));
  }
  return SmallVector<NamedAttribute>(attrs.begin(), attrs.end());
}

/// Replaces the epilogue's nodes and `anchor` by the fused node `OpTy` with
/// `operands` (the residual, or none, is appended).
template <typename OpTy>
void replaceWithFused(PatternRewriter &rewriter, ShapeTracker &shapes, Operation *anchor,
                      const Epilogue &e, SmallVector<Value> operands,
                      ArrayRef<NamedAttribute> overrides = {}) {
  Operation *last = e.nodes.back();
  SmallVector<Location> locs = {anchor->getLoc()};
  for (Operation *op : e.nodes)
    locs.push_back(op->getLoc());
  Location loc = rewriter.getFusedLoc(locs);
  rewriter.setInsertionPoint(last);
  Value none;
  auto noValue = [&]() -> Value {
    if (!none)
      none = NoValueOp::create(rewriter, loc, rewriter.getNoneType());
    return none;
  };
  for (Value &v : operands)
    if (!v)
      v = noValue();
  operands.push_back(e.residual ? e.residual : noValue());
  Value result = last->getResult(0);
  auto fused = OpTy::create(rewriter, loc, TypeRange{result.getType()}, operands,
                            fusedAttributes(anchor, e, overrides, rewriter));
  shapes.replaced(result, fused->getResult(0));
  rewriter.replaceOp(last, fused->getResult(0));
  for (Operation *op : llvm::reverse(ArrayRef(e.nodes).drop_back()))
    rewriter.eraseOp(op);
  rewriter.eraseOp(anchor);
}

struct FuseConv : OpRewritePattern<ConvOp> {
  FuseConv(MLIRContext *ctx, ShapeTracker &shapes) : OpRewritePattern(ctx), shapes(shapes) {}

  LogicalResult matchAndRewrite(ConvOp conv, PatternRewriter &rewriter) const override {
    auto y = floatTensorType(conv.getY());
    if (!y || y.getRank() < 3 || y.isDynamicDim(1))
      return rewriter.notifyMatchFailure(conv, "result is not float [N, M, ...] with M known");
    for (int64_t d = 2; d < y.getRank(); ++d)
      if (y.isDynamicDim(d))
        return rewriter.notifyMatchFailure(conv, "symbolic spatial dims: the Conv lowers alone");
    Type elem = y.getElementType();
    int64_t channels = y.getDimSize(1);
    // A bias folds into B when B is absent or a constant of M values.
    Value b = conv.getB();
    ElementsAttr oldBias = isNone(b) ? ElementsAttr() : staticConstantValue(b);
    bool biasFoldable = isNone(b) || (oldBias && oldBias.getElementType() == elem &&
                                      oldBias.getNumElements() == channels);
    auto isBias = [&](Value c) {
      auto shape = biasShape(c, elem, y.getRank());
      if (!shape)
        return false;
      // Aligned with [N, M, spatial...] from the end: 1 except along M.
      int64_t channelAt = static_cast<int64_t>(shape->size()) - (y.getRank() - 1);
      for (auto [i, d] : llvm::enumerate(*shape))
        if (d != 1 && !(static_cast<int64_t>(i) == channelAt && d == channels))
          return false;
      return true;
    };
    Epilogue e = collectEpilogue(conv, shapes, biasFoldable ? BiasCheck(isBias) : BiasCheck());
    if (e.nodes.empty())
      return rewriter.notifyMatchFailure(conv, "nothing to fuse");

    Value newBias = b;
    if (e.bias) {
      auto biasType = RankedTensorType::get({channels}, elem);
      ElementsAttr added = staticConstantValue(e.bias);
      ElementsAttr value;
      if (!oldBias && added.getNumElements() == channels) {
        value = reshapeConstant(added, biasType);
      } else {
        auto addedValues = readFloatElements(added);
        auto oldValues = oldBias ? readFloatElements(oldBias) : SmallVector<double>(channels, 0.0);
        if (!addedValues || !oldValues)
          return rewriter.notifyMatchFailure(conv, "unreadable bias constant");
        SmallVector<double> sum(*oldValues);
        for (int64_t m = 0; m < channels; ++m)
          sum[m] += (*addedValues)[addedValues->size() == 1 ? 0 : m];
        value = makeConstant(biasType, sum);
      }
      rewriter.setInsertionPoint(conv);
      newBias = ConstantOp::create(rewriter, e.bias.getLoc(), TypeRange{biasType}, ValueRange{},
                                   {rewriter.getNamedAttr("value", value)});
    }
    replaceWithFused<FusedConvOp>(rewriter, shapes, conv, e,
                                  {conv.getX(), conv.getW(), isNone(newBias) ? Value() : newBias});
    return success();
  }

  ShapeTracker &shapes;
};

struct FuseGemm : OpRewritePattern<GemmOp> {
  FuseGemm(MLIRContext *ctx, ShapeTracker &shapes) : OpRewritePattern(ctx), shapes(shapes) {}

  LogicalResult matchAndRewrite(GemmOp gemm, PatternRewriter &rewriter) const override {
    auto y = floatTensorType(gemm.getY());
    if (!y || y.getRank() != 2 || !floatTensorType(gemm.getA()) || !floatTensorType(gemm.getB()))
      return rewriter.notifyMatchFailure(gemm, "not a float Gemm");
    bool hasC = !isNone(gemm.getC());
    auto isBias = [&](Value c) { return shapes.broadcastsTo(c, gemm.getY()); };
    Epilogue e = collectEpilogue(gemm, shapes, hasC ? BiasCheck() : BiasCheck(isBias));
    if (e.nodes.empty())
      return rewriter.notifyMatchFailure(gemm, "nothing to fuse");
    SmallVector<NamedAttribute> overrides;
    Value c = hasC ? gemm.getC() : Value();
    if (e.bias) {
      c = e.bias;
      overrides.push_back(rewriter.getNamedAttr("beta", rewriter.getF32FloatAttr(1.0f)));
    }
    replaceWithFused<FusedGemmOp>(rewriter, shapes, gemm, e, {gemm.getA(), gemm.getB(), c},
                                  overrides);
    return success();
  }

  ShapeTracker &shapes;
};

struct FuseMatMul : OpRewritePattern<MatMulOp> {
  FuseMatMul(MLIRContext *ctx, ShapeTracker &shapes) : OpRewritePattern(ctx), shapes(shapes) {}

  LogicalResult matchAndRewrite(MatMulOp mm, PatternRewriter &rewriter) const override {
    auto y = floatTensorType(mm.getY());
    if (!y || y.getRank() < 1 || !floatTensorType(mm.getA()) || !floatTensorType(mm.getB()))
      return rewriter.notifyMatchFailure(mm, "not a float MatMul");
    // MatMulAddToGemm takes it first.
    if (gemmAddOf(mm, shapes))
      return rewriter.notifyMatchFailure(mm, "becomes a Gemm");
    int64_t n = y.getDimSize(y.getRank() - 1);
    auto isBias = [&](Value c) {
      auto shape = biasShape(c, y.getElementType(), y.getRank());
      if (!shape || shape->empty() || ShapedType::isDynamic(n) || shape->back() != n)
        return false;
      return llvm::all_of(shape->drop_back(), [](int64_t d) { return d == 1; });
    };
    Epilogue e = collectEpilogue(mm, shapes, isBias);
    if (e.nodes.empty())
      return rewriter.notifyMatchFailure(mm, "nothing to fuse");
    replaceWithFused<FusedMatMulOp>(rewriter, shapes, mm, e, {mm.getA(), mm.getB(), e.bias});
    return success();
  }

  ShapeTracker &shapes;
};

struct OnnxFusePass : public impl::OnnxFusePassBase<OnnxFusePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    ShapeTracker shapes(func);
    RewritePatternSet patterns(ctx);
    patterns.add<MatMulAddToGemm, FuseConv, FuseGemm, FuseMatMul>(ctx, shapes);
    GreedyRewriteConfig config;
    config.setListener(&shapes);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    // Each rewrite removes an anchor or an Add; the graph is finite, so a
    // round that stops short only leaves fusions undone, never wrong IR.
    (void)applyPatternsGreedily(func, std::move(patterns), config);
  }
};
} // namespace

} // namespace onnxcc::onnx
