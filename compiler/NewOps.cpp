//===- NewOps.cpp - Import of ops new in opsets 18-28 as ops of the dialect ===//
#include "compiler/NewOps.h"

#include "dialects/onnx/OnnxOps.h"

using namespace mlir;
using llvm::Error;
using llvm::Twine;

namespace onnxcc::importer {

Error centerCropPad18(NodeContext &nc) {
  for (const auto &a : nc.node.attribute())
    if (a.name() != "axes")
      return nc.error("unknown attribute '" + a.name() + "'");
  if (nc.numInputs() != 2 || !nc.hasInput(0) || !nc.hasInput(1))
    return nc.error("CenterCropPad takes 2 inputs (input_data, shape), has " +
                    Twine(nc.numInputs()));
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  auto shapeValue = nc.input(1);
  if (!shapeValue)
    return shapeValue.takeError();
  auto type = dyn_cast<RankedTensorType>(x->getType());
  if (!type || !type.hasStaticShape())
    return nc.error("the dims of input_data must be known at compile time");
  auto constant = shapeValue->getDefiningOp<onnx::ConstantOp>();
  auto values = constant ? dyn_cast_or_null<DenseIntElementsAttr>(constant.getValueAttr())
                         : DenseIntElementsAttr();
  if (!values) {
    // A shape given at run time: the op itself, whose result takes the
    // model's declared dims (run() checks the shape against them).
    auto shapeType = dyn_cast<RankedTensorType>(shapeValue->getType());
    if (!shapeType || shapeType.getRank() != 1)
      return nc.error("'shape' must be a 1-D tensor");
    return nc.importGeneric();
  }
  if (values.getType().getRank() != 1)
    return nc.error("'shape' must be a 1-D tensor");
  SmallVector<int64_t> target;
  for (const APInt &v : values.getValues<APInt>())
    target.push_back(v.getSExtValue());

  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  if (auto given = nc.intsAttr("axes")) {
    axes = *given;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (axes.size() != target.size())
    return nc.error("'shape' has " + Twine(target.size()) + " values for " +
                    Twine(axes.size()) + " axes");
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> cropAxes, starts, ends, pads(2 * rank, 0);
  bool anyPad = false;
  for (auto [axis, size] : llvm::zip(axes, target)) {
    if (axis < -rank || axis >= rank)
      return nc.error("axis " + Twine(axis) + " is out of range for input of rank " +
                      Twine(rank));
    int64_t a = axis < 0 ? axis + rank : axis;
    if (seen[a])
      return nc.error("axis " + Twine(axis) + " is given twice");
    seen[a] = true;
    if (size < 0)
      return nc.error("'shape' has the negative size " + Twine(size));
    int64_t dim = type.getDimSize(a);
    if (size < dim) {
      // The window starts rounded down: an odd difference leaves one more
      // element on the right.
      int64_t start = (dim - size) / 2;
      cropAxes.push_back(a);
      starts.push_back(start);
      ends.push_back(start + size);
    } else if (size > dim) {
      // An odd padding puts the extra element on the right.
      pads[a] = (size - dim) / 2;
      pads[rank + a] = size - dim - pads[a];
      anyPad = true;
    }
  }

  Value y = *x;
  if (!cropAxes.empty()) {
    auto slice = nc.build("Slice", {y, nc.constI64(starts), nc.constI64(ends),
                                    nc.constI64(cropAxes), nc.noValue()},
                          {});
    if (!slice)
      return slice.takeError();
    y = (*slice)->getResult(0);
  }
  if (anyPad) {
    auto pad = nc.build("Pad", {y, nc.constI64(pads), nc.noValue()}, {});
    if (!pad)
      return pad.takeError();
    y = (*pad)->getResult(0);
  }
  if (cropAxes.empty() && !anyPad) {
    auto id = nc.build("Identity", {y}, {});
    if (!id)
      return id.takeError();
    y = (*id)->getResult(0);
  }
  return nc.setOutput(0, y);
}

Error imageDecoder20(NodeContext &nc) {
  return nc.error("ImageDecoder needs an image codec library (JPEG, PNG, BMP, TIFF, WebP, "
                  "JPEG 2000), which the dependency-free generated code does not have: decode "
                  "the image before calling the model");
}

} // namespace onnxcc::importer
