//===- ChannelsLast.cpp - The onnx-channels-last pass ----------------------===//
//
// Runs convolution chains in channels-last (NHWC) layout, so that only the
// chain's inputs and outputs are transposed from and to ONNX's NCHW:
//
//  1. Chains. Two 2-D convolutions (Conv, FusedConv) belong to one chain when
//     one reads the other's result through ops that do not care about the
//     layout: elementwise ops (Relu, Clip, Sigmoid, ..., Add, Mul, ...),
//     GlobalAveragePool and ReduceMean keeping its dims. Only convolutions the channels-last kernels compute
//     take part: float32, static shapes, constant W, and group 1 or
//     depthwise (group == C == M).
//  2. Choice. In mode `depthwise-chains` (the default) a chain goes
//     channels-last when it holds a depthwise convolution: their kernels
//     keep the channels in the vector, where NCHW has short planes (7x7,
//     14x14) that fill vectors poorly. Chains without (ResNet-like ones,
//     whose 3x3 convolutions run Winograd in NCHW) stay NCHW. Besides, a
//     convolution with a small output plane (under 64 pixels, where
//     Winograd does not apply either) goes channels-last on its own when its
//     output channels fill 16-lane vectors better than its pixels do:
//     ResNet's 7x7 stage, whose 49 pixels fill 4 vectors to 77% while its
//     512 channels fill 32 to 100%. Its transposes are as small as its
//     planes. Mode `all` converts every eligible convolution.
//  3. Each chosen convolution becomes onnx.FusedConvNHWC between a Transpose
//     to NHWC of X (and of the residual Z) and a Transpose back to NCHW.
//  4. The transposes back to NCHW sink through the layout-agnostic ops
//     (constant operands are transposed instead and fold at compile time;
//     GlobalAveragePool becomes ReduceMean over H and W, ReduceMean's axes
//     are renumbered) until each meets
//     the Transpose to NHWC of the next convolution, where onnx-simplify's
//     patterns cancel the pair.
//
// The pass is correct whatever it converts: every layout change is an
// explicit Transpose, so a chain that the sinking cannot close keeps a
// transpose where it stops.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Constants.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXCHANNELSLASTPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {

constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

bool isNone(Value v) { return !v || isa<NoneType>(v.getType()); }

RankedTensorType staticF32(Value v, int64_t rank) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getRank() == rank && t.getElementType().isF32()
             ? t
             : RankedTensorType();
}

/// `type` with its dims permuted: result dim k is dim perm[k].
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape, type.getElementType());
}

Value transpose(RewriterBase &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = permuted(cast<RankedTensorType>(v.getType()), perm);
  return TransposeOp::create(b, loc, TypeRange{type}, ValueRange{v},
                             ArrayRef<NamedAttribute>{
                                 b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))})
      .getResult();
}

/// A 1-D int64 onnx.Constant holding `values` (shapes, axes).
Value i64Constant(RewriterBase &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, TypeRange{type}, ValueRange{},
                            ArrayRef<NamedAttribute>{b.getNamedAttr(
                                "value", DenseIntElementsAttr::get(type, values))})
      .getResult();
}

/// `v` when it is the result of a Transpose to NCHW.
TransposeOp toNCHW(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  if (!t || !t.getPerm() || *t.getPerm() != ArrayRef<int64_t>(kToNCHW))
    return TransposeOp();
  return t;
}

bool isUnaryElementwise(Operation *op) {
  return isa<ReluOp, ClipOp, SigmoidOp, SiLUOp, HardSwishOp, HardSigmoidOp, LeakyReluOp, TanhOp,
             GeluOp, NegOp, AbsOp, EluOp, ErfOp, SoftplusOp>(op);
}

bool isBinaryElementwise(Operation *op) { return isa<AddOp, SubOp, MulOp, DivOp>(op); }

/// The epilogue kinds of a fused convolution (see onnx.FusedConv).
bool knownActivation(StringRef kind) {
  return llvm::is_contained({"", "Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid",
                             "HardSwish", "SiLU", "Gelu", "GeluTanh", "Tanh"},
                            kind);
}

/// Whether conv `op` (Conv or FusedConv) is one the channels-last kernels
/// compute, and whether it is depthwise.
bool eligible(Operation *op, bool &depthwise) {
  Value x = op->getOperand(0), w = op->getOperand(1), b = op->getOperand(2);
  auto xType = staticF32(x, 4);
  auto yType = staticF32(op->getResult(0), 4);
  auto wType = staticF32(w, 4);
  if (!xType || !yType || !wType || !staticConstantValue(w))
    return false;
  int64_t c = xType.getDimSize(1), m = wType.getDimSize(0);
  auto fused = dyn_cast<FusedConvOp>(op);
  int64_t group = static_cast<int64_t>(fused ? fused.getGroup() : cast<ConvOp>(op).getGroup());
  depthwise = group == c && m == c && c > 1;
  if (group != 1 && !depthwise)
    return false;
  if (!isNone(b)) {
    auto bType = dyn_cast<RankedTensorType>(b.getType());
    if (!bType || bType.getRank() != 1 || bType.getDimSize(0) != m ||
        !bType.getElementType().isF32())
      return false;
  }
  if (fused) {
    if (!isNone(fused.getZ()) && fused.getZ().getType() != yType)
      return false;
    if (!knownActivation(fused.getActivation()))
      return false;
  }
  return true;
}

/// Whether `conv` (eligible) has an output plane under 64 pixels that its
/// output channels fill vectors of 16 lanes better than: M / roundup(M, 16)
/// against P / roundup(P, 16), the fractions of the lanes in use.
bool smallPlane(Operation *conv) {
  auto yType = cast<RankedTensorType>(conv->getResult(0).getType());
  int64_t m = yType.getDimSize(1), p = yType.getDimSize(2) * yType.getDimSize(3);
  if (p >= 64 || m <= 0 || p <= 0)
    return false;
  auto fill = [](int64_t n) {
    return static_cast<double>(n) / static_cast<double>((n + 15) / 16 * 16);
  };
  return fill(m) > fill(p);
}

/// Transposes to NHWC made for the converted convolutions, one per value:
/// convolutions reading one value (a residual and the next block's input)
/// share it.
class NHWCValues {
public:
  explicit NHWCValues(IRRewriter &b) : b(b) {}

  Value get(Value v) {
    Value &t = cache[v];
    if (!t) {
      OpBuilder::InsertionGuard guard(b);
      if (Operation *def = v.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
      t = transpose(b, v.getLoc(), v, kToNHWC);
    }
    return t;
  }

private:
  IRRewriter &b;
  llvm::DenseMap<Value, Value> cache;
};

/// Rewrites conv `op` as a FusedConvNHWC between transposes.
void convertConv(IRRewriter &b, NHWCValues &nhwc, Operation *op) {
  Location loc = op->getLoc();
  Value z;
  if (auto fused = dyn_cast<FusedConvOp>(op))
    z = fused.getZ();
  Value x = nhwc.get(op->getOperand(0));
  if (!isNone(z))
    z = nhwc.get(z);
  b.setInsertionPoint(op);
  if (isNone(z))
    z = isNone(op->getOperand(2)) ? op->getOperand(2)
                                  : NoValueOp::create(b, loc, b.getNoneType()).getResult();
  auto yType = cast<RankedTensorType>(op->getResult(0).getType());
  // Conv's attributes are a subset of FusedConvNHWC's, with the same names.
  auto conv = FusedConvNHWCOp::create(b, loc, TypeRange{permuted(yType, kToNHWC)},
                                      ValueRange{x, op->getOperand(1), op->getOperand(2), z},
                                      op->getAttrs());
  b.replaceOp(op, transpose(b, loc, conv.getY(), kToNCHW));
}

/// U(Transpose(x)) -> Transpose(U(x)) for an elementwise op U of one
/// tensor operand (Clip's bounds are scalars).
struct SinkThroughUnary : RewritePattern {
  SinkThroughUnary(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isUnaryElementwise(op) || op->getNumResults() != 1)
      return failure();
    TransposeOp t = toNCHW(op->getOperand(0));
    auto yType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !yType || yType.getRank() != 4 || op->getOperand(0).getType() != yType)
      return failure();
    Operation *moved = rewriter.clone(*op);
    rewriter.modifyOpInPlace(moved, [&] {
      moved->setOperand(0, t.getData());
      moved->getResult(0).setType(permuted(yType, kToNHWC));
    });
    rewriter.replaceOp(op, transpose(rewriter, op->getLoc(), moved->getResult(0), kToNCHW));
    return success();
  }
};

/// B(Transpose(x), y) -> Transpose(B(x, y')) for a broadcasting elementwise
/// op B whose other operands are transposes to NCHW as well (y' their input),
/// constants (y' = the constant brought to rank 4 and transposed to NHWC,
/// which onnx-fold-constants computes), or all-ones shapes (unchanged).
struct SinkThroughBinary : RewritePattern {
  SinkThroughBinary(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isBinaryElementwise(op))
      return failure();
    auto yType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!yType || yType.getRank() != 4 || !yType.hasStaticShape())
      return failure();
    enum Kind { Transposed, Constant, Ones };
    SmallVector<Kind> kinds;
    bool anyTransposed = false;
    for (Value v : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || !type.hasStaticShape() || type.getRank() > 4)
        return failure();
      if (toNCHW(v)) {
        kinds.push_back(Transposed);
        anyTransposed = true;
      } else if (llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; })) {
        kinds.push_back(Ones);
      } else if (staticConstantValue(v)) {
        kinds.push_back(Constant);
      } else {
        return failure();
      }
    }
    if (!anyTransposed)
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (auto [v, kind] : llvm::zip(op->getOperands(), kinds)) {
      if (kind == Transposed) {
        operands.push_back(toNCHW(v).getData());
        continue;
      }
      if (kind == Ones) {
        operands.push_back(v);
        continue;
      }
      auto type = cast<RankedTensorType>(v.getType());
      Value c = v;
      if (type.getRank() < 4) {
        SmallVector<int64_t> shape(4 - type.getRank(), 1);
        llvm::append_range(shape, type.getShape());
        Value target = i64Constant(rewriter, loc, shape);
        c = ReshapeOp::create(rewriter, loc,
                              TypeRange{RankedTensorType::get(shape, type.getElementType())},
                              ValueRange{c, target}, ArrayRef<NamedAttribute>{})
                .getResult();
      }
      operands.push_back(transpose(rewriter, loc, c, kToNHWC));
    }
    Operation *moved = rewriter.clone(*op);
    rewriter.modifyOpInPlace(moved, [&] {
      moved->setOperands(operands);
      moved->getResult(0).setType(permuted(yType, kToNHWC));
    });
    rewriter.replaceOp(op, transpose(rewriter, loc, moved->getResult(0), kToNCHW));
    return success();
  }
};

/// GlobalAveragePool(Transpose(x)) -> Transpose(ReduceMean(x, axes [1, 2])).
struct SinkThroughGlobalAveragePool : OpRewritePattern<GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GlobalAveragePoolOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHW(op.getX());
    auto yType = dyn_cast<RankedTensorType>(op.getY().getType());
    if (!t || !yType || yType.getRank() != 4 || !yType.hasStaticShape())
      return failure();
    Location loc = op.getLoc();
    Value axes = i64Constant(rewriter, loc, {1, 2});
    auto mean = ReduceMeanOp::create(
        rewriter, loc, TypeRange{permuted(yType, kToNHWC)}, ValueRange{t.getData(), axes},
        ArrayRef<NamedAttribute>{rewriter.getNamedAttr("keepdims", rewriter.getI64IntegerAttr(1))});
    rewriter.replaceOp(op, transpose(rewriter, loc, mean.getResult(), kToNCHW));
    return success();
  }
};

/// ReduceMean(Transpose(x), axes, keepdims 1) -> Transpose(ReduceMean(x,
/// the same axes of x)): PyTorch writes global average pooling as a mean
/// over dims 2 and 3.
struct SinkThroughReduceMean : OpRewritePattern<ReduceMeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMeanOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHW(op.getData());
    auto yType = dyn_cast<RankedTensorType>(op.getReduced().getType());
    auto axes = constantInts(op.getAxes());
    if (!t || !yType || yType.getRank() != 4 || !yType.hasStaticShape() || op.getKeepdims() != 1 ||
        !axes || axes->empty())
      return failure();
    // NCHW dim a is NHWC dim kToNCHW[a].
    SmallVector<int64_t> mapped;
    for (int64_t a : *axes) {
      if (a < -4 || a >= 4)
        return failure();
      mapped.push_back(kToNCHW[a < 0 ? a + 4 : a]);
    }
    Location loc = op.getLoc();
    Value newAxes = i64Constant(rewriter, loc, mapped);
    Operation *moved = rewriter.clone(*op);
    rewriter.modifyOpInPlace(moved, [&] {
      moved->setOperands({t.getData(), newAxes});
      moved->getResult(0).setType(permuted(yType, kToNHWC));
    });
    rewriter.replaceOp(op, transpose(rewriter, loc, moved->getResult(0), kToNCHW));
    return success();
  }
};

/// Whether values flow through `op` from one convolution of a chain to the
/// next without the layout mattering.
bool isLayoutAgnostic(Operation *op) {
  if (isUnaryElementwise(op) || isBinaryElementwise(op) || isa<GlobalAveragePoolOp>(op))
    return true;
  auto mean = dyn_cast<ReduceMeanOp>(op);
  return mean && mean.getKeepdims() == 1 && constantInts(mean.getAxes());
}

/// Convolutions linked through layout-agnostic ops, as classes of one
/// equivalence relation over the eligible convolutions.
struct Chains {
  llvm::EquivalenceClasses<Operation *> classes;
  llvm::SmallPtrSet<Operation *, 16> depthwise;
};

Chains findChains(ArrayRef<Operation *> convs) {
  Chains chains;
  llvm::SmallPtrSet<Operation *, 32> isConv(convs.begin(), convs.end());
  for (Operation *conv : convs) {
    chains.classes.insert(conv);
    SmallVector<Value> work = {conv->getOperand(0)};
    if (auto fused = dyn_cast<FusedConvOp>(conv); fused && !isNone(fused.getZ()))
      work.push_back(fused.getZ());
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || !seen.insert(def).second)
        continue;
      if (isConv.contains(def)) {
        chains.classes.unionSets(conv, def);
        continue;
      }
      if (isLayoutAgnostic(def))
        for (Value v : def->getOperands())
          if (isa<RankedTensorType>(v.getType()))
            work.push_back(v);
    }
  }
  return chains;
}

struct OnnxChannelsLastPass : public impl::OnnxChannelsLastPassBase<OnnxChannelsLastPass> {
  using OnnxChannelsLastPassBase::OnnxChannelsLastPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (mode != "depthwise-chains" && mode != "all") {
      func.emitError() << "onnx-channels-last: unknown mode '" << mode
                       << "' (expected depthwise-chains or all)";
      return signalPassFailure();
    }
    SmallVector<Operation *> convs;
    llvm::SmallPtrSet<Operation *, 16> depthwise;
    func.walk([&](Operation *op) {
      bool dw = false;
      if (isa<ConvOp, FusedConvOp>(op) && eligible(op, dw)) {
        convs.push_back(op);
        if (dw)
          depthwise.insert(op);
      }
    });
    Chains chains = findChains(convs);
    llvm::SmallPtrSet<Operation *, 16> chosenLeaders;
    for (Operation *conv : convs)
      if (mode == "all" || depthwise.contains(conv))
        chosenLeaders.insert(chains.classes.getLeaderValue(conv));
    IRRewriter rewriter(&getContext());
    NHWCValues nhwc(rewriter);
    for (Operation *conv : convs)
      if (chosenLeaders.contains(chains.classes.getLeaderValue(conv)) || smallPlane(conv))
        convertConv(rewriter, nhwc, conv);

    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    // First the sinking, then the cancelling of the transpose pairs it left
    // (apart, so that no transpose becomes a Reshape while it can still sink).
    RewritePatternSet sinking(&getContext());
    sinking.add<SinkThroughUnary, SinkThroughBinary, SinkThroughGlobalAveragePool,
                SinkThroughReduceMean>(&getContext());
    (void)applyPatternsGreedily(func, std::move(sinking), config);
    RewritePatternSet cleanup(&getContext());
    populateOnnxSimplifyPatterns(cleanup);
    (void)applyPatternsGreedily(func, std::move(cleanup), config);
  }
};

} // namespace

} // namespace onnxcc::onnx
