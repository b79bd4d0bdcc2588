//===- Constants.cpp - Reading onnx.Constant values in graph passes ------===//
#include "dialects/onnx/Transforms/Constants.h"

#include "dialects/onnx/OnnxOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

namespace onnxcc::onnx {

ElementsAttr staticConstantValue(Value v) {
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst)
    return {};
  ElementsAttr attr = cst.getValueAttr();
  if (!attr || !isa<DenseElementsAttr, DenseResourceElementsAttr>(attr))
    return {};
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  return type && type.hasStaticShape() ? attr : ElementsAttr();
}

std::optional<SmallVector<int64_t>> constantInts(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  auto attr = dyn_cast_or_null<DenseIntElementsAttr>(c.getValueAttr());
  if (!attr)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &x : attr.getValues<APInt>())
    values.push_back(x.getBitWidth() == 1 ? static_cast<int64_t>(!x.isZero())
                                          : x.getSExtValue());
  return values;
}

std::optional<SmallVector<int64_t>> readIntegerElements(ElementsAttr attr) {
  auto type = dyn_cast<ShapedType>(attr.getType());
  auto intType = type ? dyn_cast<IntegerType>(type.getElementType()) : nullptr;
  if (!intType || !type.hasStaticShape())
    return std::nullopt;
  unsigned width = intType.getWidth();
  if (width < 2 || width > 64 || (width > 8 && width % 8 != 0))
    return std::nullopt;
  bool isUnsigned = intType.isUnsigned();
  auto extend = [&](const APInt &v) {
    return isUnsigned ? static_cast<int64_t>(v.getZExtValue()) : v.getSExtValue();
  };
  int64_t n = type.getNumElements();
  SmallVector<int64_t> out;
  out.reserve(n);
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &v : dense.getValues<APInt>())
      out.push_back(extend(v));
    return out;
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob = res ? res.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  ArrayRef<char> raw = blob->getData();
  size_t bytes = width <= 8 ? 1 : width / 8;
  if (raw.size() != static_cast<size_t>(n) * bytes)
    return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = 0;
    // Blobs hold little-endian host data, like the importer writes them.
    std::memcpy(&bits, raw.data() + i * bytes, bytes);
    out.push_back(extend(APInt(width, bits, /*isSigned=*/false, /*implicitTrunc=*/true)));
  }
  return out;
}

std::optional<SmallVector<double>> readFloatElements(ElementsAttr attr) {
  auto type = dyn_cast<ShapedType>(attr.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  auto floatType = dyn_cast<FloatType>(type.getElementType());
  if (!floatType)
    return std::nullopt;
  int64_t n = type.getNumElements();
  SmallVector<double> out;
  out.reserve(n);
  auto push = [&](APFloat v) {
    bool lossy = false;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lossy);
    out.push_back(v.convertToDouble());
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    for (APFloat v : dense.getValues<APFloat>())
      push(v);
    return out;
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob = res ? res.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  ArrayRef<char> raw = blob->getData();
  unsigned width = floatType.getWidth();
  size_t bytes = width / 8;
  if (raw.size() != static_cast<size_t>(n) * bytes)
    return std::nullopt;
  const llvm::fltSemantics &sem = floatType.getFloatSemantics();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = 0;
    // Blobs hold little-endian host data, like the importer writes them.
    std::memcpy(&bits, raw.data() + i * bytes, bytes);
    push(APFloat(sem, APInt(width, bits)));
  }
  return out;
}

} // namespace onnxcc::onnx
