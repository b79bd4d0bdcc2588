//===- ShapeContext.cpp - Running onnx shape functions -------------------===//
#include "dialects/onnx/ShapeContext.h"
#include "dialects/onnx/OnnxOps.h"

#include "mlir/IR/Diagnostics.h"

#include <algorithm>

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

namespace {
/// Integer tensors computed from shapes are evaluated at compile time: the
/// Shape -> Gather/Slice -> Concat -> Reshape/ConstantOfShape subgraphs that
/// exporters and older opsets produce. Small values only; anything else is
/// not known.
class IntEvaluator {
public:
  explicit IntEvaluator(const ShapeContext &ctx) : ctx(ctx) {}

  std::optional<SmallVector<int64_t>> eval(Value v, int depth = 0) {
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
      int64_t n = 1;
      for (const Dim &d : *shape) {
        if (!d.isStatic())
          return std::nullopt;
        n *= d.size;
      }
      return SmallVector<int64_t>{n};
    }
    // Ops that keep the values (in order) and change only the shape or type.
    if (isa<IdentityOp, UnsqueezeOp, SqueezeOp, ReshapeOp, FlattenOp>(def))
      return eval(def->getOperand(0), depth + 1);
    if (auto cast = dyn_cast<CastOp>(def)) {
      auto from = dyn_cast<TensorType>(cast.getInput().getType());
      auto to = dyn_cast<TensorType>(cast.getOutput().getType());
      if (!from || !to || !from.getElementType().isInteger() || !to.getElementType().isInteger())
        return std::nullopt;
      return eval(cast.getInput(), depth + 1);
    }
    if (auto concat = dyn_cast<ConcatOp>(def)) {
      SmallVector<int64_t> out;
      for (Value in : concat.getInputs()) {
        auto part = eval(in, depth + 1);
        if (!part || !isVector(in))
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
      SmallVector<int64_t> out;
      int64_t n = data->size();
      for (int64_t i : *indices) {
        if (i < -n || i >= n)
          return std::nullopt;
        out.push_back((*data)[i < 0 ? i + n : i]);
      }
      return out;
    }
    if (auto slice = dyn_cast<SliceOp>(def))
      return sliceOf(slice, depth);
    if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(def) && def->getNumOperands() == 2) {
      auto lhs = eval(def->getOperand(0), depth + 1);
      auto rhs = eval(def->getOperand(1), depth + 1);
      if (!lhs || !rhs)
        return std::nullopt;
      size_t n = std::max(lhs->size(), rhs->size());
      if ((lhs->size() != n && lhs->size() != 1) || (rhs->size() != n && rhs->size() != 1))
        return std::nullopt;
      SmallVector<int64_t> out;
      for (size_t i = 0; i < n; ++i) {
        int64_t a = (*lhs)[lhs->size() == 1 ? 0 : i], b = (*rhs)[rhs->size() == 1 ? 0 : i];
        if (isa<AddOp>(def))
          out.push_back(a + b);
        else if (isa<SubOp>(def))
          out.push_back(a - b);
        else if (isa<MulOp>(def))
          out.push_back(a * b);
        else if (isa<MaxOp>(def))
          out.push_back(std::max(a, b));
        else if (isa<MinOp>(def))
          out.push_back(std::min(a, b));
        else if (b == 0 || (a == INT64_MIN && b == -1))
          return std::nullopt;
        else
          out.push_back(a / b);
      }
      return out;
    }
    if (auto fill = dyn_cast<ConstantOfShapeOp>(def)) {
      auto shape = eval(fill.getInput(), depth + 1);
      if (!shape)
        return std::nullopt;
      int64_t count = 1;
      for (int64_t d : *shape) {
        if (d < 0 || (d && count > kMaxElements / d))
          return std::nullopt;
        count *= d;
      }
      int64_t value = 0;
      if (auto attr = fill.getValueAttr()) {
        auto elems = dyn_cast<DenseIntElementsAttr>(attr);
        if (!elems || elems.getNumElements() != 1)
          return std::nullopt;
        value = (*elems.getValues<APInt>().begin()).getSExtValue();
      }
      return SmallVector<int64_t>(count, value);
    }
    return std::nullopt;
  }

private:
  static constexpr int kMaxDepth = 32;
  static constexpr int64_t kMaxElements = 4096;

  static bool isVector(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getRank() <= 1;
  }
  static std::optional<SmallVector<int64_t>> limit(SmallVector<int64_t> v) {
    if (static_cast<int64_t>(v.size()) > kMaxElements)
      return std::nullopt;
    return v;
  }

  std::optional<SmallVector<int64_t>> constant(ConstantOp c) {
    ElementsAttr attr = c.getValueAttr();
    if (!attr || !attr.getElementType().isInteger() || attr.getNumElements() > kMaxElements)
      return std::nullopt;
    // Resource blobs of shape operands are small; read them element by element.
    auto values = attr.tryGetValues<APInt>();
    if (!values)
      return std::nullopt;
    SmallVector<int64_t> out;
    bool isUnsigned = attr.getElementType().isUnsignedInteger();
    for (APInt a : *values)
      out.push_back(isUnsigned ? static_cast<int64_t>(a.getZExtValue()) : a.getSExtValue());
    return out;
  }

  std::optional<SmallVector<int64_t>> shapeOf(ShapeOp shapeOp) {
    auto shape = ctx.getShape(shapeOp.getData());
    if (!shape)
      return std::nullopt;
    int64_t rank = shape->size();
    int64_t start = shapeOp.getStart();
    int64_t end = shapeOp.getEnd() ? static_cast<int64_t>(*shapeOp.getEnd()) : rank;
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
    SmallVector<int64_t> dims;
    for (int64_t i = start; i < end; ++i) {
      if (!(*shape)[i].isStatic())
        return std::nullopt;
      dims.push_back((*shape)[i].size);
    }
    return dims;
  }

  /// 1-D Slice with known starts/ends (axes 0, any step).
  std::optional<SmallVector<int64_t>> sliceOf(SliceOp slice, int depth) {
    if (!isVector(slice.getData()))
      return std::nullopt;
    auto data = eval(slice.getData(), depth + 1);
    auto starts = eval(slice.getStarts(), depth + 1);
    auto ends = eval(slice.getEnds(), depth + 1);
    if (!data || !starts || !ends || starts->size() != 1 || ends->size() != 1)
      return std::nullopt;
    int64_t step = 1;
    if (!isa<NoneType>(slice.getSteps().getType())) {
      auto steps = eval(slice.getSteps(), depth + 1);
      if (!steps || steps->size() != 1 || (*steps)[0] == 0)
        return std::nullopt;
      step = (*steps)[0];
    }
    if (!isa<NoneType>(slice.getAxes().getType())) {
      auto axes = eval(slice.getAxes(), depth + 1);
      if (!axes || axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1))
        return std::nullopt;
    }
    int64_t n = data->size();
    auto clampIndex = [&](int64_t i, int64_t lo, int64_t hi) {
      if (i < 0)
        i += n;
      return std::clamp(i, lo, hi);
    };
    SmallVector<int64_t> out;
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

  const ShapeContext &ctx;
};
} // namespace

std::optional<SmallVector<int64_t>> ShapeContext::getIntValues(Value v) const {
  return IntEvaluator(*this).eval(v);
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

LogicalResult ShapeContext::fail(const Twine &message) const {
  return op->emitOpError() << message;
}

RankedTensorType toTensorType(const Shape &shape, Type elementType) {
  SmallVector<int64_t> dims;
  for (const Dim &d : shape)
    dims.push_back(d.size);
  return RankedTensorType::get(dims, elementType);
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
        if (ShapedType::isDynamic(declared))
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

} // namespace onnxcc::onnx
