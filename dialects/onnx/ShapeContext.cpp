//===- ShapeContext.cpp - Running onnx shape functions -------------------===//
#include "dialects/onnx/ShapeContext.h"
#include "dialects/onnx/OnnxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir;

namespace onnxcc::onnx {

std::optional<Shape> ShapeMap::lookup(Value v) const {
  auto it = shapes.find(v);
  if (it != shapes.end())
    return it->second;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return std::nullopt;
  Shape s;
  for (int64_t d : t.getShape())
    s.push_back(ShapedType::isDynamic(d) ? Dim::unknown() : Dim::known(d));
  return s;
}

bool ShapeContext::hasOperand(unsigned i) const {
  return i < op->getNumOperands() && !isa<NoneType>(op->getOperand(i).getType());
}

ElementsAttr ShapeContext::getConstant(Value v) const {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return {};
  return c.getValueAttr();
}

//===----------------------------------------------------------------------===//
// SymExpr and Dim
//===----------------------------------------------------------------------===//

namespace {
bool symsLess(ArrayRef<StringAttr> a, ArrayRef<StringAttr> b) {
  if (a.size() != b.size())
    return a.size() < b.size();
  for (auto [x, y] : llvm::zip(a, b))
    if (x != y)
      return x.getValue() < y.getValue();
  return false;
}
} // namespace

SymExpr SymExpr::constant(int64_t c) {
  SymExpr e;
  if (c != 0)
    e.terms.push_back(Term{c, {}});
  return e;
}

SymExpr SymExpr::symbol(StringAttr s) {
  SymExpr e;
  e.terms.push_back(Term{1, {s}});
  return e;
}

void SymExpr::normalize() {
  for (Term &t : terms)
    llvm::sort(t.syms, [](StringAttr a, StringAttr b) { return a.getValue() < b.getValue(); });
  llvm::sort(terms, [](const Term &a, const Term &b) { return symsLess(a.syms, b.syms); });
  SmallVector<Term, 2> merged;
  for (Term &t : terms) {
    if (!merged.empty() && merged.back().syms == t.syms)
      merged.back().coeff += t.coeff; // callers checked overflow
    else
      merged.push_back(t);
  }
  llvm::erase_if(merged, [](const Term &t) { return t.coeff == 0; });
  terms = std::move(merged);
}

std::optional<SymExpr> SymExpr::add(const SymExpr &a, const SymExpr &b) {
  SymExpr out = a;
  for (const Term &t : b.terms) {
    auto same = llvm::find_if(out.terms, [&](const Term &u) { return u.syms == t.syms; });
    if (same == out.terms.end()) {
      out.terms.push_back(t);
      continue;
    }
    int64_t sum;
    if (__builtin_add_overflow(same->coeff, t.coeff, &sum))
      return std::nullopt;
    same->coeff = sum;
  }
  out.normalize();
  return out;
}

std::optional<SymExpr> SymExpr::sub(const SymExpr &a, const SymExpr &b) {
  SymExpr neg = b;
  for (Term &t : neg.terms) {
    if (t.coeff == INT64_MIN)
      return std::nullopt;
    t.coeff = -t.coeff;
  }
  return add(a, neg);
}

std::optional<SymExpr> SymExpr::mul(const SymExpr &a, const SymExpr &b) {
  SymExpr out;
  for (const Term &x : a.terms) {
    for (const Term &y : b.terms) {
      Term t;
      if (__builtin_mul_overflow(x.coeff, y.coeff, &t.coeff))
        return std::nullopt;
      t.syms = x.syms;
      t.syms.append(y.syms.begin(), y.syms.end());
      SymExpr one;
      one.terms.push_back(t);
      one.normalize();
      auto sum = add(out, one);
      if (!sum)
        return std::nullopt;
      out = *sum;
    }
  }
  return out;
}

std::optional<SymExpr> SymExpr::divExact(const SymExpr &a, const SymExpr &b) {
  if (b.terms.size() != 1 || b.terms[0].coeff == 0)
    return std::nullopt;
  const Term &d = b.terms[0];
  SymExpr out;
  for (const Term &t : a.terms) {
    if ((t.coeff == INT64_MIN && d.coeff == -1) || t.coeff % d.coeff != 0)
      return std::nullopt;
    Term q{t.coeff / d.coeff, t.syms};
    for (StringAttr s : d.syms) {
      auto it = llvm::find(q.syms, s);
      if (it == q.syms.end())
        return std::nullopt;
      q.syms.erase(it);
    }
    out.terms.push_back(q);
  }
  out.normalize();
  return out;
}

std::string SymExpr::str(StringRef join) const {
  if (terms.empty())
    return "0";
  std::string out;
  for (const Term &t : terms) {
    int64_t c = t.coeff;
    if (!out.empty())
      out += c < 0 ? " - " : " + ";
    else if (c < 0)
      out += "-";
    uint64_t mag = c < 0 ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
    std::string factors;
    if (mag != 1 || t.syms.empty())
      factors = std::to_string(mag);
    for (StringAttr s : t.syms)
      factors += (factors.empty() ? "" : join.str()) + s.getValue().str();
    out += factors;
  }
  return out;
}

SmallVector<StringAttr> SymExpr::symbols() const {
  SmallVector<StringAttr> out;
  for (const Term &t : terms)
    for (StringAttr s : t.syms)
      if (!llvm::is_contained(out, s))
        out.push_back(s);
  llvm::sort(out, [](StringAttr a, StringAttr b) { return a.getValue() < b.getValue(); });
  return out;
}

std::string Dim::str() const {
  if (isStatic())
    return std::to_string(size);
  if (isSymbolic())
    return expr.str();
  return "?";
}

Attribute dimToAttr(MLIRContext *ctx, const Dim &d) {
  Builder b(ctx);
  if (d.isStatic())
    return b.getI64IntegerAttr(d.size);
  if (!d.isSymbolic())
    return {};
  SmallVector<Attribute> terms;
  for (const SymExpr::Term &t : d.expr.getTerms()) {
    SmallVector<Attribute> parts = {b.getI64IntegerAttr(t.coeff)};
    parts.append(t.syms.begin(), t.syms.end());
    terms.push_back(b.getArrayAttr(parts));
  }
  return b.getArrayAttr(terms);
}

Dim dimFromAttr(Attribute a) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return Dim::known(i.getInt());
  auto terms = dyn_cast_or_null<ArrayAttr>(a);
  if (!terms)
    return Dim::unknown();
  std::optional<SymExpr> sum = SymExpr::constant(0);
  for (Attribute t : terms) {
    auto parts = dyn_cast<ArrayAttr>(t);
    if (!parts || parts.empty() || !isa<IntegerAttr>(parts[0]))
      return Dim::unknown();
    std::optional<SymExpr> term = SymExpr::constant(cast<IntegerAttr>(parts[0]).getInt());
    for (Attribute s : parts.getValue().drop_front()) {
      auto name = dyn_cast<StringAttr>(s);
      if (!name || !term)
        return Dim::unknown();
      term = SymExpr::mul(*term, SymExpr::symbol(name));
    }
    if (!term || !(sum = SymExpr::add(*sum, *term)))
      return Dim::unknown();
  }
  return Dim::of(sum);
}

namespace {
template <typename Fn>
Dim combine(const Dim &a, const Dim &b, Fn fn) {
  auto x = a.asExpr(), y = b.asExpr();
  if (!x || !y)
    return Dim::unknown();
  return Dim::of(fn(*x, *y));
}
} // namespace

Dim addDims(const Dim &a, const Dim &b) { return combine(a, b, SymExpr::add); }
Dim subDims(const Dim &a, const Dim &b) { return combine(a, b, SymExpr::sub); }
Dim mulDims(const Dim &a, const Dim &b) { return combine(a, b, SymExpr::mul); }
Dim divDimsExact(const Dim &a, const Dim &b) { return combine(a, b, SymExpr::divExact); }

//===----------------------------------------------------------------------===//
// Evaluating shape computations
//===----------------------------------------------------------------------===//

namespace {
using Dims = SmallVector<Dim>;

/// The sizes of `dims` when every one is static.
std::optional<SmallVector<int64_t>> staticValues(const std::optional<Dims> &dims) {
  if (!dims)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const Dim &d : *dims) {
    if (!d.isStatic())
      return std::nullopt;
    out.push_back(d.size);
  }
  return out;
}

/// Integer tensors computed from shapes are evaluated at compile time: the
/// Shape -> Gather/Slice -> Concat -> Reshape/ConstantOfShape subgraphs that
/// exporters and older opsets produce. Each element is a static value, a
/// symbolic dim (from the Shape of a tensor with symbolic dims) or unknown.
/// Small values only.
class DimEvaluator {
public:
  explicit DimEvaluator(const ShapeContext &ctx) : ctx(ctx) {}

  std::optional<Dims> eval(Value v, int depth = 0) {
    if (depth > kMaxDepth)
      return std::nullopt;
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto c = dyn_cast<ConstantOp>(def))
      return constant(c);
    if (auto shapeOp = dyn_cast<ShapeOp>(def))
      return shapeOf(shapeOp);
    if (auto size = dyn_cast<SizeOp>(def)) {
      auto shape = ctx.getShape(size.getData());
      if (!shape)
        return std::nullopt;
      Dim n = Dim::known(1);
      for (const Dim &d : *shape)
        n = mulDims(n, d);
      return Dims{n};
    }
    // Ops that keep the values (in order) and change only the shape or type.
    if (isa<IdentityOp, UnsqueezeOp, SqueezeOp, ReshapeOp, FlattenOp>(def))
      return eval(def->getOperand(0), depth + 1);
    if (auto cast = dyn_cast<CastOp>(def)) {
      auto from = dyn_cast<TensorType>(cast.getInput().getType());
      auto to = dyn_cast<TensorType>(cast.getOutput().getType());
      if (!from || !to || !from.getElementType().isInteger() || !to.getElementType().isInteger())
        return std::nullopt;
      auto values = eval(cast.getInput(), depth + 1);
      // To bool: 1 for any other value than 0.
      if (values && to.getElementType().isInteger(1))
        for (Dim &d : *values)
          d = d.isStatic() ? Dim::known(d.size != 0) : Dim::unknown();
      return values;
    }
    if (auto concat = dyn_cast<ConcatOp>(def)) {
      Dims out;
      for (Value in : concat.getInputs()) {
        if (!isVector(in))
          return std::nullopt;
        auto part = eval(in, depth + 1);
        // A part known only at run time (a size read from an input) gives
        // as many unknown values as it has elements.
        auto type = dyn_cast<RankedTensorType>(in.getType());
        if (!part && type && type.hasStaticShape() && type.getNumElements() <= 64)
          part = Dims(type.getNumElements(), Dim::unknown());
        if (!part)
          return std::nullopt;
        out.append(*part);
      }
      return limit(out);
    }
    if (auto gather = dyn_cast<GatherOp>(def)) {
      auto data = eval(gather.getData(), depth + 1);
      auto indices = eval(gather.getIndices(), depth + 1);
      if (!data || !indices || !isVector(gather.getData()))
        return std::nullopt;
      Dims out;
      int64_t n = data->size();
      for (const Dim &d : *indices) {
        if (!d.isStatic() || d.size < -n || d.size >= n)
          return std::nullopt;
        out.push_back((*data)[d.size < 0 ? d.size + n : d.size]);
      }
      return out;
    }
    if (auto slice = dyn_cast<SliceOp>(def))
      return sliceOf(slice, depth);
    if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(def) && def->getNumOperands() == 2)
      return binary(def, depth, arith);
    // Comparisons and logic on such values (the conditions of the Ifs that
    // exporters write around a squeeze or a rank test), as 0 and 1: exact on
    // static values; two equal symbolic dims are equal.
    if (isa<EqualOp, GreaterOp, LessOp, GreaterOrEqualOp, LessOrEqualOp, AndOp, OrOp>(def) &&
        def->getNumOperands() == 2)
      return binary(def, depth, compare);
    if (isa<NotOp>(def)) {
      auto values = eval(def->getOperand(0), depth + 1);
      if (values)
        for (Dim &d : *values)
          d = d.isStatic() ? Dim::known(d.size == 0) : Dim::unknown();
      return values;
    }
    if (auto fill = dyn_cast<ConstantOfShapeOp>(def)) {
      auto shape = eval(fill.getInput(), depth + 1);
      if (!shape)
        return std::nullopt;
      int64_t count = 1;
      for (const Dim &d : *shape) {
        if (!d.isStatic() || d.size < 0 || (d.size && count > kMaxElements / d.size))
          return std::nullopt;
        count *= d.size;
      }
      int64_t value = 0;
      if (auto attr = fill.getValueAttr()) {
        auto elems = dyn_cast<DenseIntElementsAttr>(attr);
        if (!elems || elems.getNumElements() != 1)
          return std::nullopt;
        value = (*elems.getValues<APInt>().begin()).getSExtValue();
      }
      return Dims(count, Dim::known(value));
    }
    return std::nullopt;
  }

private:
  static constexpr int kMaxDepth = 32;
  static constexpr int64_t kMaxElements = 4096;

  /// `fn` of the two operands of `def` element by element, a one-element
  /// operand broadcast against the other.
  std::optional<Dims> binary(Operation *def, int depth,
                             Dim (*fn)(Operation *, const Dim &, const Dim &)) {
    auto lhs = eval(def->getOperand(0), depth + 1);
    auto rhs = eval(def->getOperand(1), depth + 1);
    if (!lhs || !rhs)
      return std::nullopt;
    size_t n = std::max(lhs->size(), rhs->size());
    if ((lhs->size() != n && lhs->size() != 1) || (rhs->size() != n && rhs->size() != 1))
      return std::nullopt;
    Dims out;
    for (size_t i = 0; i < n; ++i)
      out.push_back(fn(def, (*lhs)[lhs->size() == 1 ? 0 : i], (*rhs)[rhs->size() == 1 ? 0 : i]));
    return out;
  }

  static bool isVector(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getRank() <= 1;
  }
  static std::optional<Dims> limit(Dims v) {
    if (static_cast<int64_t>(v.size()) > kMaxElements)
      return std::nullopt;
    return v;
  }

  /// One element of a comparison or And/Or, 0 or 1; unknown unless both
  /// are static (or, for Equal and the non-strict orders, the same dim).
  static Dim compare(Operation *def, const Dim &a, const Dim &b) {
    if (!a.isStatic() || !b.isStatic()) {
      bool same = a.isSymbolic() && a == b;
      return same && isa<EqualOp, GreaterOrEqualOp, LessOrEqualOp>(def) ? Dim::known(1)
             : same && isa<GreaterOp, LessOp>(def)                     ? Dim::known(0)
                                                                        : Dim::unknown();
    }
    int64_t x = a.size, y = b.size;
    bool r = isa<EqualOp>(def)          ? x == y
             : isa<GreaterOp>(def)      ? x > y
             : isa<LessOp>(def)         ? x < y
             : isa<GreaterOrEqualOp>(def) ? x >= y
             : isa<LessOrEqualOp>(def)  ? x <= y
             : isa<AndOp>(def)          ? (x != 0 && y != 0)
                                        : (x != 0 || y != 0);
    return Dim::known(r);
  }

  /// One element of Add/Sub/Mul/Div/Max/Min: exact on static values (Div
  /// truncates as integer Div does), symbolic where the result is a
  /// polynomial (Div only when exact), else unknown.
  static Dim arith(Operation *def, const Dim &a, const Dim &b) {
    if (a.isStatic() && b.isStatic()) {
      int64_t x = a.size, y = b.size, r;
      bool overflow = false;
      if (isa<AddOp>(def))
        overflow = __builtin_add_overflow(x, y, &r);
      else if (isa<SubOp>(def))
        overflow = __builtin_sub_overflow(x, y, &r);
      else if (isa<MulOp>(def))
        overflow = __builtin_mul_overflow(x, y, &r);
      else if (isa<MaxOp>(def))
        r = std::max(x, y);
      else if (isa<MinOp>(def))
        r = std::min(x, y);
      else if (y == 0 || (x == INT64_MIN && y == -1))
        overflow = true;
      else
        r = x / y;
      return overflow ? Dim::unknown() : Dim::known(r);
    }
    if (isa<AddOp>(def))
      return addDims(a, b);
    if (isa<SubOp>(def))
      return subDims(a, b);
    if (isa<MulOp>(def))
      return mulDims(a, b);
    if (isa<DivOp>(def))
      return divDimsExact(a, b);
    return Dim::unknown();
  }

  std::optional<Dims> constant(ConstantOp c) {
    ElementsAttr attr = c.getValueAttr();
    if (!attr || !attr.getElementType().isInteger() || attr.getNumElements() > kMaxElements)
      return std::nullopt;
    // Resource blobs of shape operands are small; read them element by element.
    auto values = attr.tryGetValues<APInt>();
    if (!values)
      return std::nullopt;
    Dims out;
    bool isUnsigned = attr.getElementType().isUnsignedInteger();
    for (APInt a : *values)
      out.push_back(
          Dim::known(isUnsigned ? static_cast<int64_t>(a.getZExtValue()) : a.getSExtValue()));
    return out;
  }

  std::optional<Dims> shapeOf(ShapeOp shapeOp) {
    auto shape = ctx.getShape(shapeOp.getData());
    if (!shape)
      return std::nullopt;
    int64_t rank = shape->size();
    int64_t start = shapeOp.getStart();
    int64_t end = shapeOp.getEnd() ? static_cast<int64_t>(*shapeOp.getEnd()) : rank;
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
    Dims dims;
    for (int64_t i = start; i < end; ++i)
      dims.push_back((*shape)[i]);
    return dims;
  }

  /// 1-D Slice with static starts/ends (axes 0, any step).
  std::optional<Dims> sliceOf(SliceOp slice, int depth) {
    if (!isVector(slice.getData()))
      return std::nullopt;
    auto data = eval(slice.getData(), depth + 1);
    auto starts = staticInts(slice.getStarts(), depth);
    auto ends = staticInts(slice.getEnds(), depth);
    if (!data || !starts || !ends || starts->size() != 1 || ends->size() != 1)
      return std::nullopt;
    int64_t step = 1;
    if (!isa<NoneType>(slice.getSteps().getType())) {
      auto steps = staticInts(slice.getSteps(), depth);
      if (!steps || steps->size() != 1 || (*steps)[0] == 0)
        return std::nullopt;
      step = (*steps)[0];
    }
    if (!isa<NoneType>(slice.getAxes().getType())) {
      auto axes = staticInts(slice.getAxes(), depth);
      if (!axes || axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1))
        return std::nullopt;
    }
    int64_t n = data->size();
    auto clampIndex = [&](int64_t i, int64_t lo, int64_t hi) {
      if (i < 0)
        i += n;
      return std::clamp(i, lo, hi);
    };
    Dims out;
    if (step > 0) {
      int64_t b = clampIndex((*starts)[0], 0, n), e = clampIndex((*ends)[0], 0, n);
      for (int64_t i = b; i < e; i += step)
        out.push_back((*data)[i]);
    } else {
      int64_t b = clampIndex((*starts)[0], 0, n - 1), e = clampIndex((*ends)[0], -1, n - 1);
      for (int64_t i = b; i > e; i += step)
        out.push_back((*data)[i]);
    }
    return out;
  }

  std::optional<SmallVector<int64_t>> staticInts(Value v, int depth) {
    return staticValues(eval(v, depth + 1));
  }

  const ShapeContext &ctx;
};
} // namespace

std::optional<SmallVector<Dim>> ShapeContext::getDimValues(Value v) const {
  if (auto dims = DimEvaluator(*this).eval(v))
    return dims;
  // Values known only at run time (a shape that is an input of the model):
  // as many unknown dims as the vector has elements.
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (type && type.getRank() == 1 && type.hasStaticShape() && type.getNumElements() <= 64 &&
      type.getElementType().isInteger())
    return SmallVector<Dim>(type.getNumElements(), Dim::unknown());
  return std::nullopt;
}


namespace {
/// The raw little-endian bytes of an integer elements attribute of 8 to 64
/// bits, as the importer and the constant folder store them: a dense
/// attribute (one element when a splat) or a resource blob. Nullopt for
/// anything else (booleans, sparse attributes, a blob of the wrong size).
struct RawInts {
  ArrayRef<char> bytes;
  unsigned width;
  bool isUnsigned;
  bool splat;
  int64_t count;

  int64_t at(int64_t i) const {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes.data() + (splat ? 0 : i * (width / 8)), width / 8);
    if (width == 64 || isUnsigned)
      return static_cast<int64_t>(bits);
    return static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
  }
};

std::optional<RawInts> rawInts(ElementsAttr attr) {
  auto intType = attr ? dyn_cast<IntegerType>(attr.getElementType()) : IntegerType();
  if (!intType || intType.getWidth() % 8 != 0 || intType.getWidth() > 64)
    return std::nullopt;
  RawInts out{{}, intType.getWidth(), intType.isUnsigned(), false, attr.getNumElements()};
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    out.bytes = dense.getRawData();
    out.splat = dense.isSplat();
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    out.bytes = blob->getData();
  } else {
    return std::nullopt;
  }
  size_t bytes = out.width / 8;
  if (out.splat ? out.bytes.size() < bytes
                : out.bytes.size() != static_cast<size_t>(out.count) * bytes)
    return std::nullopt;
  return out;
}
} // namespace

std::optional<SmallVector<int64_t>> ShapeContext::getIntValues(Value v) const {
  // A constant is read as it is: INT64_MIN (a Slice bound "from before the
  // start") is a value here, where as a dim it would read as unknown.
  if (auto raw = rawInts(getConstant(v)); raw && raw->count <= 4096) {
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < raw->count; ++i)
      out.push_back(raw->at(i));
    return out;
  }
  return staticValues(getDimValues(v));
}

bool ShapeContext::forEachIntValue(Value v,
                                   function_ref<bool(int64_t position, int64_t value)> fn) const {
  if (auto raw = rawInts(getConstant(v))) {
    for (int64_t i = 0; i < raw->count; ++i)
      if (!fn(i, raw->at(i)))
        break;
    return true;
  }
  auto values = getIntValues(v);
  if (!values)
    return false;
  for (auto [i, x] : llvm::enumerate(*values))
    if (!fn(i, x))
      break;
  return true;
}

std::optional<SmallVector<double>> ShapeContext::getFloatValues(Value v) const {
  ElementsAttr attr = getConstant(v);
  if (!attr || !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  auto values = attr.tryGetValues<APFloat>();
  if (!values)
    return std::nullopt;
  SmallVector<double> out;
  for (APFloat a : *values) {
    bool lost;
    a.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(a.convertToDouble());
  }
  return out;
}

FailureOr<Dim> ShapeContext::unify(const Dim &a, const Dim &b) {
  if (a.isStatic() && b.isStatic())
    return a.size == b.size ? FailureOr<Dim>(a) : FailureOr<Dim>(failure());
  if (a != b)
    constraints.push_back({DimConstraint::Equal, a, b});
  if (a.isStatic())
    return a;
  if (b.isStatic())
    return b;
  return a.isSymbolic() ? a : b;
}

std::optional<std::pair<StringAttr, int64_t>> solveForSymbol(const Dim &a, const Dim &b) {
  auto ea = a.asExpr(), eb = b.asExpr();
  if (!ea || !eb || *ea == *eb)
    return std::nullopt;
  // k*S + m == 0, S being the only symbol and appearing once per term.
  auto linear = [](const SymExpr &e) -> std::optional<std::pair<StringAttr, int64_t>> {
    StringAttr sym;
    int64_t k = 0, m = 0;
    for (const SymExpr::Term &t : e.getTerms()) {
      if (t.syms.empty()) {
        m = t.coeff;
        continue;
      }
      if (t.syms.size() != 1 || (sym && sym != t.syms[0]))
        return std::nullopt;
      sym = t.syms[0];
      k = t.coeff;
    }
    if (!sym || k == 0 || m % k != 0 || -m / k < 0)
      return std::nullopt;
    return std::make_pair(sym, -m / k);
  };
  if (auto diff = SymExpr::sub(*ea, *eb))
    if (auto s = linear(*diff))
      return s;
  // Two monomials: cancel the symbols and the factor they share.
  if (ea->getTerms().size() != 1 || eb->getTerms().size() != 1)
    return std::nullopt;
  SymExpr::Term ta = ea->getTerms()[0], tb = eb->getTerms()[0];
  SmallVector<StringAttr, 2> ra, rb;
  size_t i = 0, j = 0;
  auto before = [](StringAttr x, StringAttr y) { return x.getValue() < y.getValue(); };
  while (i < ta.syms.size() || j < tb.syms.size()) {
    if (j == tb.syms.size() || (i < ta.syms.size() && before(ta.syms[i], tb.syms[j])))
      ra.push_back(ta.syms[i++]);
    else if (i == ta.syms.size() || before(tb.syms[j], ta.syms[i]))
      rb.push_back(tb.syms[j++]);
    else
      ++i, ++j; // the same symbol on both sides
  }
  // Only a non-zero common factor cancels.
  if (ra.size() + rb.size() != 1 || ta.coeff == 0 || tb.coeff == 0 ||
      ra.size() + rb.size() == ta.syms.size() + tb.syms.size())
    return std::nullopt;
  int64_t k = ra.empty() ? tb.coeff : ta.coeff, m = ra.empty() ? ta.coeff : tb.coeff;
  if (m % k != 0 || m / k < 0)
    return std::nullopt;
  return std::make_pair(ra.empty() ? rb[0] : ra[0], m / k);
}

SmallVector<DimConstraint> dimConstraints(Operation *op, const ShapeMap &map) {
  auto iface = dyn_cast<ShapeInferenceOpInterface>(op);
  if (!iface)
    return {};
  ShapeContext ctx(op, map);
  {
    // The shapes were inferred before: a failure here has been reported.
    ScopedDiagnosticHandler quiet(op->getContext(), [](Diagnostic &) { return success(); });
    if (failed(iface.inferShapes(ctx)))
      return {};
  }
  SmallVector<DimConstraint> out(ctx.getConstraints());
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
    const std::optional<Shape> &inferred = ctx.resultShape(i);
    auto declared = dyn_cast<RankedTensorType>(op->getResult(i).getType());
    if (!inferred || !declared || declared.getRank() != static_cast<int64_t>(inferred->size()))
      continue;
    for (auto [d, size] : llvm::zip(*inferred, declared.getShape()))
      if (!d.isStatic() && !ShapedType::isDynamic(size) && !map.dependsOnData(d))
        out.push_back({DimConstraint::Equal, d, Dim::known(size)});
  }
  return out;
}

LogicalResult ShapeContext::fail(const Twine &message) const {
  return op->emitOpError() << message;
}

RankedTensorType toTensorType(const Shape &shape, Type elementType) {
  SmallVector<int64_t> dims;
  for (const Dim &d : shape)
    dims.push_back(d.size);
  return RankedTensorType::get(dims, elementType);
}

std::optional<SymExpr> ShapeMap::upperBound(const SymExpr &e) const {
  std::optional<SymExpr> out = SymExpr::constant(0);
  for (const SymExpr::Term &t : e.getTerms()) {
    bool data = llvm::any_of(t.syms, [&](StringAttr s) { return isDataSymbol(s); });
    if (data && t.coeff < 0)
      continue;
    std::optional<SymExpr> term = SymExpr::constant(t.coeff);
    for (StringAttr s : t.syms) {
      std::optional<SymExpr> factor = boundOf(s);
      if (!factor)
        factor = SymExpr::symbol(s);
      if (term)
        term = SymExpr::mul(*term, *factor);
    }
    if (!term || !out)
      return std::nullopt;
    out = SymExpr::add(*out, *term);
  }
  return out;
}

/// The ONNX node name of `op` (its NameLoc), or "".
static StringRef nodeNameOf(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(l))
        return name.getName().getValue();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  return "";
}

Dim ShapeContext::dataDim(unsigned k, const Dim &bound) {
  std::optional<SymExpr> expr = bound.asExpr();
  if (expr)
    expr = map.upperBound(*expr);
  // Else the user's bound for this node (--bound NODE=N or *=N).
  bool fromUser = false;
  if (!expr)
    if (auto func = op->getParentOfType<func::FuncOp>())
      if (auto bounds = func->getAttrOfType<DictionaryAttr>("onnxcc.bounds")) {
        auto given = dyn_cast_or_null<IntegerAttr>(bounds.get(nodeNameOf(op)));
        if (!given)
          given = dyn_cast_or_null<IntegerAttr>(bounds.get("*"));
        if (given) {
          expr = SymExpr::constant(given.getInt());
          fromUser = true;
        }
      }
  if (!expr)
    return Dim::unknown();
  MLIRContext *ctx = op->getContext();
  auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
  SmallVector<Attribute> list = names ? SmallVector<Attribute>(names.getValue())
                                      : SmallVector<Attribute>();
  StringAttr name;
  if (k < list.size())
    name = dyn_cast<StringAttr>(list[k]);
  if (!name) {
    // A fresh name no input dim_param uses: `Op#N`, N counted per function.
    auto func = op->getParentOfType<func::FuncOp>();
    llvm::StringSet<> taken;
    int64_t next = 0;
    if (func) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params"))
          for (Attribute p : params)
            if (auto s = dyn_cast<StringAttr>(p))
              taken.insert(s.getValue());
      if (auto n = func->getAttrOfType<IntegerAttr>("onnxcc.num_data_dims"))
        next = n.getInt();
    }
    std::string text;
    do
      text = (op->getName().stripDialect() + "#" + Twine(next++)).str();
    while (taken.contains(text));
    if (func)
      func->setAttr("onnxcc.num_data_dims",
                    IntegerAttr::get(IntegerType::get(ctx, 64), next));
    name = StringAttr::get(ctx, text);
    list.resize(std::max<size_t>(list.size(), k + 1), StringAttr::get(ctx, ""));
    list[k] = name;
    op->setAttr("onnxcc.data_dims", ArrayAttr::get(ctx, list));
  }
  map.setBound(name, *expr, fromUser);
  return Dim::named(name);
}

Dim ShapeContext::broadcastDerivedDim(const Dim &a, const Dim &b) {
  if (!a.isSymbolic() || !b.isSymbolic() || a == b)
    return Dim::unknown();
  for (const Dim *d : {&a, &b})
    for (mlir::StringAttr s : d->expr.symbols())
      if (map.isDataSymbol(s) && !map.derivedOf(s))
        return Dim::unknown();
  // broadcast(broadcast(A, B), B) is broadcast(A, B): where it is valid,
  // B is 1 or the result.
  auto covers = [&](const Dim &x, const Dim &y) {
    SmallVector<StringAttr> syms = x.expr.symbols();
    if (syms.size() != 1 || x.expr != SymExpr::symbol(syms[0]))
      return false;
    const DerivedDim *def = map.derivedOf(syms[0]);
    return def && def->broadcast && (def->in == y.expr || def->span == y.expr);
  };
  if (covers(a, b))
    return a;
  if (covers(b, a))
    return b;
  // One name for either order.
  bool swap = b.expr.str() < a.expr.str();
  DerivedDim def;
  def.broadcast = true;
  def.in = swap ? b.expr : a.expr;
  def.span = swap ? a.expr : b.expr;
  return derivedDim(def);
}

Dim ShapeContext::broadcastDataDim(unsigned k, const Dim &a, const Dim &b) {
  std::optional<SymExpr> ea = a.asExpr(), eb = b.asExpr();
  if (!ea || !eb || (!map.dependsOnData(a) && !map.dependsOnData(b)))
    return Dim::unknown();
  std::optional<SymExpr> ua = map.upperBound(*ea), ub = map.upperBound(*eb);
  if (!ua || !ub)
    return Dim::unknown();
  // max(x, y) <= x + y for dims (>= 0); the larger one when both are known.
  std::optional<SymExpr> bound =
      ua->isConstant() && ub->isConstant()
          ? std::optional<SymExpr>(
                SymExpr::constant(std::max(ua->constantValue(), ub->constantValue())))
          : SymExpr::add(*ua, *ub);
  if (!bound)
    return Dim::unknown();
  return dataDim(k, Dim::of(bound));
}

Dim ShapeContext::quotientDim(const Dim &num, const Dim &den, bool ceil) {
  if (num.isStatic() && den.isStatic()) {
    if (den.size <= 0 || num.size < 0 || (!ceil && num.size % den.size != 0))
      return Dim::unknown();
    return Dim::known(ceil ? (num.size + den.size - 1) / den.size : num.size / den.size);
  }
  if (!num.asExpr() || !den.asExpr())
    return Dim::unknown();
  if (den.isStatic() && den.size == 1)
    return num;
  if (!ceil)
    if (Dim exact = divDimsExact(num, den); exact.asExpr())
      return exact;
  for (const Dim *d : {&num, &den})
    for (mlir::StringAttr s : d->expr.symbols())
      if (map.isDataSymbol(s) && !map.derivedOf(s))
        return Dim::unknown();
  DerivedDim def;
  def.quotient = true;
  def.ceil = ceil;
  def.in = *num.asExpr();
  def.span = *den.asExpr();
  return derivedDim(def);
}

Dim ShapeContext::derivedDim(const DerivedDim &def) {
  std::optional<SymExpr> bound;
  std::string text;
  if (def.scaled) {
    // At most ceil(scale) * in.
    if (!(def.scale > 0) || !(def.scale <= 0x1p20))
      return Dim::unknown();
    std::optional<SymExpr> times =
        SymExpr::mul(def.in, SymExpr::constant(static_cast<int64_t>(std::ceil(def.scale))));
    bound = times ? map.upperBound(*times) : std::nullopt;
    if (!bound)
      return Dim::unknown();
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", def.scale);
    text = "floor(" + def.in.str() + " * " + buffer + ")";
  } else if (def.quotient) {
    // At most the dividend, the divisor being at least 1.
    bound = map.upperBound(def.in);
    if (!bound)
      return Dim::unknown();
    text = (def.ceil ? "ceil((" : "(") + def.in.str() + ")/(" + def.span.str() +
           (def.ceil ? "))" : ")");
  } else if (def.slice) {
    if (def.sliceStep == 0)
      return Dim::unknown();
    bound = map.upperBound(def.in); // never more than the dim
    if (!bound)
      return Dim::unknown();
    text = "slice(" + def.in.str() + ", " + std::to_string(def.sliceStart) + ":" +
           std::to_string(def.sliceEnd) + ":" + std::to_string(def.sliceStep) + ")";
  } else if (def.broadcast) {
    // At most the larger, so at most the sum.
    std::optional<SymExpr> sum = SymExpr::add(def.in, def.span);
    bound = sum ? map.upperBound(*sum) : std::nullopt;
    if (!bound)
      return Dim::unknown();
    text = "broadcast(" + def.in.str() + ", " + def.span.str() + ")";
  } else {
    std::optional<SymExpr> plusOne = SymExpr::add(def.span, SymExpr::constant(1));
    if (!plusOne || def.stride < 1)
      return Dim::unknown();
    if (def.stride == 1 && !def.ceil)
      return Dim::of(plusOne);
    bound = map.upperBound(*plusOne);
    if (!bound)
      return Dim::unknown();
    // The name says what it is: "(H - 1)/2 + 1", "ceil((H - 2)/2) + 1 [pad 0]".
    text = def.ceil ? "ceil((" + def.span.str() + ")/" + std::to_string(def.stride) + ") + 1"
                    : "(" + def.span.str() + ")/" + std::to_string(def.stride) + " + 1";
    if (def.dropLast)
      text += " [" + def.in.str() + " + " + std::to_string(def.padBegin) + "]";
  }
  MLIRContext *ctx = op->getContext();
  llvm::StringSet<> taken;
  if (auto func = op->getParentOfType<func::FuncOp>())
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params"))
        for (Attribute p : params)
          if (auto s = dyn_cast<StringAttr>(p))
            taken.insert(s.getValue());
  // An input may name a dim like this (a model's names are anything): the
  // derived symbol then gets primes until it is unique.
  StringAttr name;
  while (true) {
    name = StringAttr::get(ctx, text);
    const DerivedDim *existing = map.derivedOf(name);
    if (!taken.contains(text) && (!existing || *existing == def) &&
        (existing || !map.isDataSymbol(name)))
      break;
    text += "'";
  }
  map.setDerived(name, def);
  map.setBound(name, *bound);
  return Dim::named(name);
}

LogicalResult inferShapes(Operation *op, ShapeMap &map) {
  auto iface = dyn_cast<ShapeInferenceOpInterface>(op);
  if (!iface)
    return success();
  ShapeContext ctx(op, map);
  if (failed(iface.inferShapes(ctx)))
    return failure();
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
    const std::optional<Shape> &inferred = ctx.resultShape(i);
    if (!inferred)
      continue;
    Value result = op->getResult(i);
    auto tensorType = dyn_cast<TensorType>(result.getType());
    if (!tensorType)
      continue;
    Shape merged = *inferred;
    if (auto ranked = dyn_cast<RankedTensorType>(tensorType)) {
      if (ranked.getRank() != static_cast<int64_t>(merged.size()))
        return op->emitOpError() << "result #" << i << " is declared with rank "
                                 << ranked.getRank() << " but its shape function gives rank "
                                 << merged.size();
      for (auto [d, declared] : llvm::zip(merged, ranked.getShape())) {
        // A dim the data decides is what the data makes it: a static size
        // the model declares there held for the exporter's example only.
        if (ShapedType::isDynamic(declared) || map.dependsOnData(d))
          continue;
        if (d.isStatic() && d.size != declared)
          return op->emitOpError() << "result #" << i << " is declared as " << ranked
                                   << " but its shape function gives size " << d.size
                                   << " where the declaration has " << declared;
        d = Dim::known(declared);
      }
    }
    map.set(result, merged);
    result.setType(toTensorType(merged, tensorType.getElementType()));
  }
  return success();
}

SliceAxis normalizeSliceAxis(int64_t start, int64_t end, int64_t step, int64_t dim) {
  assert(step != 0 && dim >= 0 && "a slice needs a non-zero step");
  if (dim == 0)
    return {0, 0};
  // Sentinels such as INT64_MIN/MAX would overflow below; clamping first
  // changes no result (a step longer than the dim takes one element at most).
  start = std::clamp<int64_t>(start, -dim - 1, dim + 1);
  end = std::clamp<int64_t>(end, -dim - 1, dim + 1);
  step = std::clamp<int64_t>(step, -dim - 1, dim + 1);
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return {start, end > start ? (end - start + step - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return {start, start > end ? (start - end - step - 1) / -step : 0};
}

} // namespace onnxcc::onnx
