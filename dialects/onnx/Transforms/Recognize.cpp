//===- Recognize.cpp - The onnx-recognize pass ---------------------------===//
//
// Exporters for older opsets write LayerNormalization, GELU, SiLU and
// attention as chains of elementwise and reduction nodes. Each chain that
// computes exactly one of these ops becomes that op (rewrite patterns applied
// to a fixpoint):
//
//   LayerNormalization  d = x - ReduceMean(x, trailing axes);
//                       d / Sqrt(ReduceMean(d^2 or d*d) + eps), or
//                       d * Reciprocal(Sqrt(...)); then optionally * scale and
//                       + bias, constants that broadcast over the normalized
//                       axes only
//   Gelu                x * 0.5 * (1 + Erf(x / sqrt(2)))            "none"
//                       x * 0.5 * (1 + Tanh(sqrt(2/pi) *
//                                (x + 0.044715 * x^3)))             "tanh"
//   SiLU                x * Sigmoid(x)
//   HardSwish           x * HardSigmoid(x, alpha 1/6, beta 0.5)
//   ScaledDotProduct-   Softmax(MatMul(Q, Transpose(K)) * c [+ Mask], -1) V,
//   Attention           the scale c also found as a division, on Q, on K
//                       (before or after its Transpose), or on both
//   QLinearConv         QuantizeLinear([Relu](Conv(DequantizeLinear(x),
//                       DequantizeLinear(W), [DequantizeLinear(B)]))), the
//                       QDQ form of ONNX Runtime's quantize_static: the
//                       integer convolution (matchQdqConv says which)
//
// Products are read as a whole: a tree of single-use Muls, and Divs by a
// constant, is a constant factor times its other leaves, so x * 0.5 * t,
// (x * t) * 0.5 and 0.5 * (x * t) match alike, and x / 1.4142135 is
// x * 0.70710678. Constants must have the exact values within a relative
// 1e-5. Every intermediate value of a chain must have no use outside it
// (the input and the constants may have any), and the last value must keep
// its type, so the new op replaces the chain one for one; the greedy driver
// erases the nodes left dead.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Constants.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXRECOGNIZEPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {

/// The relative tolerance of the constants of a pattern.
constexpr double kTolerance = 1e-5;

bool approx(double value, double expected) {
  return std::abs(value - expected) <= kTolerance * std::abs(expected);
}

/// The number held by the onnx.Constant that defines `v`, when it holds
/// exactly one (of any shape), as a double.
std::optional<double> scalarConstant(Value v) {
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst)
    return std::nullopt;
  auto attr = dyn_cast_or_null<DenseElementsAttr>(cst.getValueAttr());
  if (!attr || attr.getNumElements() != 1)
    return std::nullopt;
  if (isa<FloatType>(attr.getElementType())) {
    APFloat x = *attr.getValues<APFloat>().begin();
    bool lossy = false;
    x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lossy);
    return x.convertToDouble();
  }
  if (attr.getElementType().isSignlessInteger() &&
      attr.getElementType().getIntOrFloatBitWidth() > 1)
    return static_cast<double>((*attr.getValues<APInt>().begin()).getSExtValue());
  return std::nullopt;
}

/// `v` is defined by an op of type OpTy and has no other use.
template <typename OpTy>
OpTy singleUse(Value v) {
  if (!v || !v.hasOneUse())
    return {};
  return v.getDefiningOp<OpTy>();
}

/// The operand of binary `op` that is not `v` (op's operands are {v, other}).
Value otherOperand(Operation *op, Value v) {
  return op->getOperand(0) == v ? op->getOperand(1) : op->getOperand(0);
}

bool isFloatTensor(Type t) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  return ranked && isa<FloatType>(ranked.getElementType());
}

/// A product read through single-use Muls and Divs by constants: `factor`
/// times the product of `leaves`.
struct Product {
  double factor = 1.0;
  SmallVector<Value> leaves;
};

void collectFactors(Value v, bool isRoot, Product &p) {
  Operation *def = v.getDefiningOp();
  bool interior = def && (isRoot || v.hasOneUse());
  if (interior && isa<MulOp>(def)) {
    collectFactors(def->getOperand(0), false, p);
    collectFactors(def->getOperand(1), false, p);
    return;
  }
  if (interior && isa<DivOp>(def)) {
    if (std::optional<double> c = scalarConstant(def->getOperand(1)); c && *c != 0.0) {
      p.factor /= *c;
      collectFactors(def->getOperand(0), false, p);
      return;
    }
  }
  if (!isRoot) {
    if (std::optional<double> c = scalarConstant(v)) {
      p.factor *= *c;
      return;
    }
  }
  p.leaves.push_back(v);
}

/// The product whose last node defines `v` (a Mul, or a Div by a constant);
/// nothing when `v` is neither.
std::optional<Product> productOf(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !isa<MulOp, DivOp>(def))
    return std::nullopt;
  Product p;
  collectFactors(v, /*isRoot=*/true, p);
  if (p.leaves.size() == 1 && p.leaves.front() == v)
    return std::nullopt;
  return p;
}

/// `v` = 1 + `inner` with `inner` (of type OpTy, single use) returned.
template <typename OpTy>
OpTy onePlus(Value v) {
  auto add = singleUse<AddOp>(v);
  if (!add)
    return {};
  for (auto [one, term] : {std::pair(add.getA(), add.getB()), std::pair(add.getB(), add.getA())})
    if (std::optional<double> c = scalarConstant(one); c && approx(*c, 1.0))
      if (auto op = singleUse<OpTy>(term))
        return op;
  return {};
}

/// `v` = factor * x with a single-use product.
bool isScaled(Value v, Value x, double factor) {
  if (!v.hasOneUse())
    return false;
  std::optional<Product> p = productOf(v);
  return p && p->leaves.size() == 1 && p->leaves.front() == x && approx(p->factor, factor);
}

/// `v` = 0.044715 * x^3 with x^3 as Pow(x, 3) or a product of three x.
bool isCubicTerm(Value v, Value x) {
  if (!v.hasOneUse())
    return false;
  std::optional<Product> p = productOf(v);
  if (!p || !approx(p->factor, 0.044715))
    return false;
  int64_t power = 0;
  for (Value leaf : p->leaves) {
    if (leaf == x) {
      ++power;
      continue;
    }
    auto pow = singleUse<PowOp>(leaf);
    std::optional<double> e = pow ? scalarConstant(pow.getY()) : std::nullopt;
    if (!pow || pow.getX() != x || !e || *e != 3.0)
      return false;
    power += 3;
  }
  return power == 3;
}

//===----------------------------------------------------------------------===//
// GELU and SiLU
//===----------------------------------------------------------------------===//

/// x * 0.5 * (1 + Erf(x / sqrt(2))) and the tanh form, rooted at the last
/// Mul (or Div) of the outer product.
struct RecognizeGelu : RewritePattern {
  RecognizeGelu(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *root, PatternRewriter &rewriter) const override {
    if (!isa<MulOp, DivOp>(root))
      return failure();
    Value y = root->getResult(0);
    std::optional<Product> p = productOf(y);
    if (!p || p->leaves.size() != 2 || !approx(p->factor, 0.5))
      return failure();
    for (auto [x, term] :
         {std::pair(p->leaves[0], p->leaves[1]), std::pair(p->leaves[1], p->leaves[0])}) {
      if (x.getType() != y.getType() || !isFloatTensor(x.getType()))
        continue;
      if (auto erf = onePlus<ErfOp>(term); erf && isScaled(erf.getInput(), x, M_SQRT1_2)) {
        rewriter.replaceOpWithNewOp<GeluOp>(root, y.getType(), x, "none");
        return success();
      }
      auto tanh = onePlus<TanhOp>(term);
      if (!tanh || !tanh.getInput().hasOneUse())
        continue;
      std::optional<Product> inner = productOf(tanh.getInput());
      if (!inner || inner->leaves.size() != 1 || !approx(inner->factor, std::sqrt(2.0 / M_PI)))
        continue;
      auto sum = singleUse<AddOp>(inner->leaves.front());
      if (!sum || (sum.getA() != x && sum.getB() != x) || !isCubicTerm(otherOperand(sum, x), x))
        continue;
      rewriter.replaceOpWithNewOp<GeluOp>(root, y.getType(), x, "tanh");
      return success();
    }
    return failure();
  }
};

/// x * Sigmoid(x), either order.
struct RecognizeSiLU : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    for (auto [x, s] : {std::pair(mul.getA(), mul.getB()), std::pair(mul.getB(), mul.getA())}) {
      auto sigmoid = singleUse<SigmoidOp>(s);
      if (!sigmoid || sigmoid.getX() != x || x.getType() != mul.getType() ||
          !isFloatTensor(x.getType()))
        continue;
      rewriter.replaceOpWithNewOp<SiLUOp>(mul, mul.getType(), x);
      return success();
    }
    return failure();
  }
};

/// x * HardSigmoid(x) with alpha 1/6 and beta 0.5, either order: HardSwish
/// as PyTorch exports it below opset 14.
struct RecognizeHardSwish : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    for (auto [x, s] : {std::pair(mul.getA(), mul.getB()), std::pair(mul.getB(), mul.getA())}) {
      auto hard = singleUse<HardSigmoidOp>(s);
      if (!hard || hard.getX() != x || x.getType() != mul.getType() ||
          !isFloatTensor(x.getType()) ||
          !approx(hard.getAlpha().convertToDouble(), 1.0 / 6.0) ||
          !approx(hard.getBeta().convertToDouble(), 0.5))
        continue;
      rewriter.replaceOpWithNewOp<HardSwishOp>(mul, mul.getType(), x);
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// The axes a ReduceMean with keepdims reduces, sorted and non-negative.
std::optional<SmallVector<int64_t>> meanAxes(ReduceMeanOp mean, int64_t rank) {
  if (mean.getKeepdims() != 1)
    return std::nullopt;
  SmallVector<int64_t> axes;
  if (isa<NoneType>(mean.getAxes().getType())) {
    if (mean.getNoopWithEmptyAxes() != 0)
      return std::nullopt;
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
    return axes;
  }
  std::optional<SmallVector<int64_t>> values = constantInts(mean.getAxes());
  if (!values || values->empty())
    return std::nullopt;
  for (int64_t a : *values) {
    if (a < -rank || a >= rank)
      return std::nullopt;
    axes.push_back(a < 0 ? a + rank : a);
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return std::nullopt;
  return axes;
}

/// `c` is a constant of `x`'s element type that broadcasts over the last
/// `normalized` dims of `x` only.
bool isAffineParam(Value c, RankedTensorType xType, int64_t normalized) {
  auto type = dyn_cast<RankedTensorType>(c.getType());
  if (!c.getDefiningOp<ConstantOp>() || !type || !type.hasStaticShape() ||
      type.getElementType() != xType.getElementType() || type.getRank() > normalized)
    return false;
  int64_t offset = xType.getRank() - type.getRank();
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (size != 1 && size != xType.getDimSize(offset + d))
      return false;
  return true;
}

/// The single user of `v` when it is an OpTy combining `v` with a constant
/// that `isAffineParam` accepts; that constant in `param`.
template <typename OpTy>
OpTy affineUser(Value v, RankedTensorType xType, int64_t normalized, Value &param) {
  if (!v.hasOneUse())
    return {};
  auto op = dyn_cast<OpTy>(*v.getUsers().begin());
  if (!op || op.getType() != xType)
    return {};
  Value other = otherOperand(op, v);
  if (other == v || !isAffineParam(other, xType, normalized))
    return {};
  param = other;
  return op;
}

/// Rooted at the normalizing Div (or Mul by a Reciprocal); takes in the
/// Mul by a scale and the Add of a bias that follow.
struct RecognizeLayerNorm : RewritePattern {
  RecognizeLayerNorm(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *root, PatternRewriter &rewriter) const override {
    Value d, stdDev;
    if (auto div = dyn_cast<DivOp>(root)) {
      d = div.getA();
      stdDev = div.getB();
    } else if (auto mul = dyn_cast<MulOp>(root)) {
      for (auto [a, b] : {std::pair(mul.getA(), mul.getB()), std::pair(mul.getB(), mul.getA())})
        if (auto rec = singleUse<ReciprocalOp>(b)) {
          d = a;
          stdDev = rec.getX();
          break;
        }
    }
    if (!d)
      return failure();
    auto sqrt = singleUse<SqrtOp>(stdDev);
    auto addEps = sqrt ? singleUse<AddOp>(sqrt.getX()) : AddOp();
    if (!addEps)
      return failure();
    Value var;
    std::optional<double> eps;
    for (auto [v, e] :
         {std::pair(addEps.getA(), addEps.getB()), std::pair(addEps.getB(), addEps.getA())})
      if ((eps = scalarConstant(e))) {
        var = v;
        break;
      }
    auto varMean = singleUse<ReduceMeanOp>(var);
    if (!eps || *eps < 0 || !varMean || varMean.getType() != addEps.getType())
      return failure();
    Operation *square = varMean.getData().hasOneUse() ? varMean.getData().getDefiningOp() : nullptr;
    if (auto pow = dyn_cast_or_null<PowOp>(square)) {
      std::optional<double> e = scalarConstant(pow.getY());
      if (pow.getX() != d || !e || *e != 2.0)
        return failure();
    } else if (auto mul = dyn_cast_or_null<MulOp>(square)) {
      if (mul.getA() != d || mul.getB() != d)
        return failure();
    } else {
      return failure();
    }
    // d = x - mean is used by the square and the normalization only.
    auto sub = d.getDefiningOp<SubOp>();
    if (!sub || llvm::any_of(d.getUsers(), [&](Operation *u) { return u != root && u != square; }))
      return failure();
    Value x = sub.getA();
    auto mean = singleUse<ReduceMeanOp>(sub.getB());
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!mean || mean.getData() != x || !xType || !isFloatTensor(xType) || xType.getRank() == 0 ||
        d.getType() != xType || root->getResult(0).getType() != xType)
      return failure();
    int64_t rank = xType.getRank();
    std::optional<SmallVector<int64_t>> axes = meanAxes(mean, rank);
    std::optional<SmallVector<int64_t>> varAxes = meanAxes(varMean, rank);
    if (!axes || !varAxes || *axes != *varAxes || axes->back() != rank - 1 ||
        axes->front() != rank - static_cast<int64_t>(axes->size()))
      return failure();
    int64_t axis = axes->front(), normalized = rank - axis;

    Operation *last = root;
    Value scale, bias;
    if (auto mul = affineUser<MulOp>(last->getResult(0), xType, normalized, scale))
      last = mul;
    if (auto add = affineUser<AddOp>(last->getResult(0), xType, normalized, bias))
      last = add;

    rewriter.setInsertionPoint(last);
    Type elem = xType.getElementType();
    if (!scale) {
      // ONNX wants a Scale: ones over the normalized dims (size 1 where they
      // are not static, to broadcast).
      SmallVector<int64_t> shape;
      for (int64_t size : xType.getShape().drop_front(axis))
        shape.push_back(ShapedType::isDynamic(size) ? 1 : size);
      auto type = RankedTensorType::get(shape, elem);
      auto ones = DenseElementsAttr::get(type, rewriter.getFloatAttr(elem, 1.0));
      scale = ConstantOp::create(rewriter, root->getLoc(), TypeRange{type}, ValueRange{},
                                 {rewriter.getNamedAttr("value", ones)});
    }
    if (!bias)
      bias = NoValueOp::create(rewriter, root->getLoc(), rewriter.getNoneType());
    Type none = rewriter.getNoneType();
    // The location names every node it replaces (the last one first, as
    // before): the ReduceMeans' work is the LayerNormalization's now
    // (`onnxcc compile --report` finds them there).
    Location loc = rewriter.getFusedLoc({last->getLoc(), mean.getLoc(), sub.getLoc(),
                                         square->getLoc(), varMean.getLoc(), addEps.getLoc(),
                                         sqrt.getLoc(), root->getLoc()});
    auto ln = LayerNormalizationOp::create(
        rewriter, loc, TypeRange{xType, none, none}, ValueRange{x, scale, bias},
        {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(axis)),
         rewriter.getNamedAttr("epsilon", rewriter.getF32FloatAttr(static_cast<float>(*eps))),
         // Statistics in the input's precision, as the chain computed them.
         rewriter.getNamedAttr("stash_type", rewriter.getI64IntegerAttr(elem.isF64() ? 11 : 1))});
    rewriter.replaceOp(last, ln.getY());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scaled dot-product attention
//===----------------------------------------------------------------------===//

/// `v` times or divided by a scalar constant, single use: the other operand,
/// with `scale` multiplied by the factor.
Value stripScale(Value v, double &scale) {
  if (auto div = singleUse<DivOp>(v)) {
    std::optional<double> c = scalarConstant(div.getB());
    if (c && *c != 0.0 && div.getA().getType() == v.getType()) {
      scale /= *c;
      return div.getA();
    }
    return {};
  }
  if (auto mul = singleUse<MulOp>(v))
    for (auto [a, b] : {std::pair(mul.getA(), mul.getB()), std::pair(mul.getB(), mul.getA())})
      if (std::optional<double> c = scalarConstant(b); c && a.getType() == v.getType()) {
        scale *= *c;
        return a;
      }
  return {};
}

/// Rooted at MatMul(Softmax(scores, -1), V).
struct RecognizeAttention : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp root, PatternRewriter &rewriter) const override {
    auto softmax = singleUse<SoftmaxOp>(root.getA());
    if (!softmax)
      return failure();
    auto sType = dyn_cast<RankedTensorType>(softmax.getInput().getType());
    if (!sType || sType.getRank() < 2 || !isFloatTensor(sType))
      return failure();
    int64_t rank = sType.getRank();
    int64_t axis = softmax.getAxis();
    if ((axis < 0 ? axis + rank : axis) != rank - 1)
      return failure();

    // scores [+ mask]: the mask is the operand that is not the scaled
    // MatMul.
    double scale = 1.0;
    Value mask;
    MatMulOp qk;
    auto scoresOf = [&](Value v, double &s) -> MatMulOp {
      if (auto mm = singleUse<MatMulOp>(v))
        return mm;
      Value inner = stripScale(v, s);
      return inner ? singleUse<MatMulOp>(inner) : MatMulOp();
    };
    if (auto add = singleUse<AddOp>(softmax.getInput())) {
      for (auto [a, b] : {std::pair(add.getA(), add.getB()), std::pair(add.getB(), add.getA())}) {
        double s = 1.0;
        auto mm = scoresOf(a, s);
        auto bType = dyn_cast<RankedTensorType>(b.getType());
        if (mm && a.getType() == sType && bType && bType.getRank() <= rank &&
            bType.getElementType() == sType.getElementType()) {
          qk = mm;
          scale = s;
          mask = b;
          break;
        }
      }
    } else {
      qk = scoresOf(softmax.getInput(), scale);
    }
    if (!qk || qk.getType() != sType)
      return failure();

    // K^T = Transpose(K0, perm) where K0's last dim (D) becomes the
    // contraction dim; K is K0 with that perm but the last two swapped.
    // A scale may sit on K^T or on K0 (Whisper scales Q and K each by
    // D^-1/4).
    Value kt = qk.getB();
    if (Value inner = stripScale(kt, scale))
      kt = inner;
    auto transpose = singleUse<TransposeOp>(kt);
    if (!transpose)
      return failure();
    Value k0 = transpose.getData();
    if (Value inner = stripScale(k0, scale))
      k0 = inner;
    auto k0Type = dyn_cast<RankedTensorType>(k0.getType());
    if (!k0Type || k0Type.getRank() != rank)
      return failure();
    SmallVector<int64_t> perm;
    if (std::optional<ArrayRef<int64_t>> p = transpose.getPerm())
      perm.assign(p->begin(), p->end());
    else
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    if (static_cast<int64_t>(perm.size()) != rank || perm[rank - 2] != rank - 1)
      return failure();
    std::swap(perm[rank - 2], perm[rank - 1]);

    // The scale may also be on Q before the MatMul.
    Value q = qk.getA();
    double qScale = 1.0;
    if (Value inner = stripScale(q, qScale)) {
      q = inner;
      scale *= qScale;
    }
    Value v = root.getB();
    auto qType = dyn_cast<RankedTensorType>(q.getType());
    auto vType = dyn_cast<RankedTensorType>(v.getType());
    auto yType = dyn_cast<RankedTensorType>(root.getType());
    Type elem = sType.getElementType();
    if (!qType || !vType || !yType || qType.getRank() != rank || vType.getRank() != rank ||
        yType.getRank() != rank || qType.getElementType() != elem ||
        vType.getElementType() != elem || k0Type.getElementType() != elem)
      return failure();
    // The result takes Q's leading dims (K and V may broadcast into them).
    for (int64_t d = 0; d < rank - 1; ++d)
      if (qType.getDimSize(d) != yType.getDimSize(d))
        return failure();

    rewriter.setInsertionPoint(root);
    Location loc = root.getLoc();
    Value k = k0;
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
      SmallVector<int64_t> kShape;
      for (int64_t d : perm)
        kShape.push_back(k0Type.getDimSize(d));
      auto kType = RankedTensorType::get(kShape, elem);
      k = TransposeOp::create(rewriter, transpose.getLoc(), TypeRange{kType}, ValueRange{k0},
                              {rewriter.getNamedAttr("perm", rewriter.getDenseI64ArrayAttr(perm))});
    }
    if (!mask)
      mask = NoValueOp::create(rewriter, loc, rewriter.getNoneType());
    // The location names both MatMuls and the Softmax (the root first, as
    // before), so the attention's work is traced to all of them.
    auto attention = ScaledDotProductAttentionOp::create(
        rewriter, rewriter.getFusedLoc({loc, qk.getLoc(), softmax.getLoc()}), TypeRange{yType},
        ValueRange{q, k, v, mask},
        ArrayRef<NamedAttribute>{
            rewriter.getNamedAttr("scale", rewriter.getF32FloatAttr(static_cast<float>(scale)))});
    rewriter.replaceOp(root, attention.getY());
    return success();
  }
};

/// The single float32 constant of `v`.
std::optional<float> scalarF32(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1 || !t.getElementType().isF32())
    return std::nullopt;
  ElementsAttr attr = staticConstantValue(v);
  auto values = attr ? readFloatElements(attr) : std::nullopt;
  return values ? std::optional<float>(static_cast<float>((*values)[0])) : std::nullopt;
}

bool isByteInt(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() == 8;
}
Type elementOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }
bool isAbsent(Value v) { return !v || isa<NoneType>(v.getType()); }

/// The parts of a QDQ convolution that QLinearConv takes.
struct QdqConv {
  DequantizeLinearOp x, w, b; // b null when the Conv has no bias
  QuantizeLinearOp y;
};

/// Conv whose X, W and B are DequantizeLinear of 8-bit activations, 8-bit
/// constant weights (per tensor, or per output channel on axis 0) and an
/// int32 constant bias with scale x_scale * w_scale (the float products,
/// exactly) and no zero point, read only by a QuantizeLinear to 8 bits,
/// directly or through a Relu that the quantization already implies (its
/// zero point the type's minimum); every scale float32 and every zero point
/// given. Only the 2-D one-group convolutions of static shapes that the
/// integer kernel takes: the others keep the float kernels (Winograd,
/// depthwise), faster than QLinearConv's loops.
std::optional<QdqConv> matchQdqConv(ConvOp conv) {
  QdqConv m;
  m.x = conv.getX().getDefiningOp<DequantizeLinearOp>();
  m.w = conv.getW().getDefiningOp<DequantizeLinearOp>();
  auto xType = dyn_cast<RankedTensorType>(conv.getX().getType());
  auto wType = dyn_cast<RankedTensorType>(conv.getW().getType());
  auto yType = dyn_cast<RankedTensorType>(conv.getY().getType());
  if (!m.x || !m.w || conv.getGroup() != 1 || !xType || !wType || !yType ||
      xType.getRank() != 4 || !xType.hasStaticShape() || !wType.hasStaticShape() ||
      !yType.hasStaticShape() || !conv->hasOneUse())
    return std::nullopt;
  // X: activations, one scale and zero point.
  if (!isByteInt(elementOf(m.x.getX())) || isAbsent(m.x.getXZeroPoint()) ||
      !scalarF32(m.x.getXScale()) || !staticConstantValue(m.x.getXZeroPoint()) ||
      cast<ShapedType>(m.x.getXZeroPoint().getType()).getNumElements() != 1)
    return std::nullopt;
  // W: constant, per tensor or per output channel.
  const int64_t M = wType.getDimSize(0);
  auto wScaleType = dyn_cast<RankedTensorType>(m.w.getXScale().getType());
  if (!isByteInt(elementOf(m.w.getX())) || !staticConstantValue(m.w.getX()) ||
      isAbsent(m.w.getXZeroPoint()) || !staticConstantValue(m.w.getXZeroPoint()) ||
      !wScaleType || !wScaleType.getElementType().isF32() || !staticConstantValue(m.w.getXScale()))
    return std::nullopt;
  int64_t axis = m.w.getAxis() < 0 ? m.w.getAxis() + 4 : m.w.getAxis();
  bool perTensor = wScaleType.getNumElements() == 1 && wScaleType.getRank() <= 1;
  bool perChannel = wScaleType.getRank() == 1 && wScaleType.getDimSize(0) == M && axis == 0;
  if (!(perTensor || perChannel) || m.w->hasAttr("onnxcc.block_size") ||
      cast<ShapedType>(m.w.getXZeroPoint().getType()).getNumElements() !=
          wScaleType.getNumElements())
    return std::nullopt;
  // B: int32 with the product scale, exactly.
  if (!isAbsent(conv.getB())) {
    m.b = conv.getB().getDefiningOp<DequantizeLinearOp>();
    if (!m.b || !elementOf(m.b.getX()).isInteger(32) || !staticConstantValue(m.b.getX()) ||
        !isAbsent(m.b.getXZeroPoint()))
      return std::nullopt;
    ElementsAttr bScaleAttr = staticConstantValue(m.b.getXScale());
    ElementsAttr wScaleAttr = staticConstantValue(m.w.getXScale());
    auto bScale = bScaleAttr && elementOf(m.b.getXScale()).isF32()
                      ? readFloatElements(bScaleAttr) : std::nullopt;
    auto wScale = readFloatElements(wScaleAttr);
    float xScale = *scalarF32(m.x.getXScale());
    if (!bScale || !wScale || (bScale->size() != 1 && static_cast<int64_t>(bScale->size()) != M))
      return std::nullopt;
    for (int64_t o = 0; o < M; ++o) {
      float want = xScale * static_cast<float>((*wScale)[wScale->size() == 1 ? 0 : o]);
      if (static_cast<float>((*bScale)[bScale->size() == 1 ? 0 : o]) != want)
        return std::nullopt;
    }
  }
  // The output: QuantizeLinear to 8 bits, maybe through an implied Relu.
  Operation *user = *conv->getUsers().begin();
  if (auto relu = dyn_cast<ReluOp>(user)) {
    if (!relu->hasOneUse())
      return std::nullopt;
    m.y = dyn_cast<QuantizeLinearOp>(*relu->getUsers().begin());
  } else {
    m.y = dyn_cast<QuantizeLinearOp>(user);
  }
  if (!m.y || isAbsent(m.y.getYZeroPoint()) || !scalarF32(m.y.getYScale()) ||
      !isByteInt(elementOf(m.y.getY())))
    return std::nullopt;
  ElementsAttr yZpAttr = staticConstantValue(m.y.getYZeroPoint());
  auto yZp = yZpAttr ? readIntegerElements(yZpAttr) : std::nullopt;
  if (!yZp || yZp->size() != 1 || elementOf(m.y.getYZeroPoint()) != elementOf(m.y.getY()))
    return std::nullopt;
  if (isa<ReluOp>(user)) {
    int64_t lowest = elementOf(m.y.getY()).isUnsignedInteger() ? 0 : -128;
    if ((*yZp)[0] != lowest)
      return std::nullopt;
  }
  return m;
}

/// The QDQ convolution matchQdqConv finds becomes one QLinearConv from the
/// quantized input to the quantized output: integer products summed exactly
/// where the float graph rounds each one (ONNX Runtime's QDQ fusion does
/// the same; the difference is within a rounding step of the output).
struct RecognizeQdqConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp conv, PatternRewriter &rewriter) const override {
    std::optional<QdqConv> m = matchQdqConv(conv);
    if (!m)
      return rewriter.notifyMatchFailure(conv, "not a QDQ convolution the kernel takes");
    rewriter.setInsertionPoint(m->y);
    Value bias = m->b ? m->b.getX() : Value();
    if (!bias)
      bias = NoValueOp::create(rewriter, conv.getLoc(), rewriter.getNoneType());
    auto q = QLinearConvOp::create(
        rewriter, rewriter.getFusedLoc({conv.getLoc(), m->y.getLoc()}),
        TypeRange{m->y.getY().getType()},
        ValueRange{m->x.getX(), m->x.getXScale(), m->x.getXZeroPoint(), m->w.getX(),
                   m->w.getXScale(), m->w.getXZeroPoint(), m->y.getYScale(),
                   m->y.getYZeroPoint(), bias},
        conv->getAttrs());
    rewriter.replaceOp(m->y, q.getY());
    return success();
  }
};

} // namespace

bool feedsQdqConv(Operation *op) {
  auto dq = dyn_cast<DequantizeLinearOp>(op);
  if (!dq || dq->use_empty())
    return false;
  return llvm::all_of(dq->getUses(), [&](OpOperand &use) {
    auto conv = dyn_cast<ConvOp>(use.getOwner());
    return conv && use.getOperandNumber() > 0 && matchQdqConv(conv).has_value();
  });
}

namespace {

struct OnnxRecognizePass : public impl::OnnxRecognizePassBase<OnnxRecognizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeLayerNorm, RecognizeGelu, RecognizeSiLU, RecognizeHardSwish,
                 RecognizeAttention, RecognizeQdqConv>(
        &getContext());
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace

} // namespace onnxcc::onnx
