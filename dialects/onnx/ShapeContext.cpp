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

std::optional<SmallVector<int64_t>> ShapeContext::getIntValues(Value v) const {
  // The shape of a tensor whose dims are all known is a constant too (the
  // Shape -> Reshape pattern exporters and opset normalization produce).
  if (auto shapeOp = v.getDefiningOp<ShapeOp>()) {
    auto shape = getShape(shapeOp.getData());
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
  ElementsAttr attr = getConstant(v);
  if (!attr || !attr.getElementType().isInteger())
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
