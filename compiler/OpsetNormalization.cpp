//===- OpsetNormalization.cpp - Older opsets to the dialect's form -------===//
//
// One handler per (operator, since-version range) whose older form differs
// from the version the dialect implements: attributes that became inputs,
// changed axis semantics, renamed or replaced operators. Each handler builds
// the equivalent ops of the dialect through NodeContext::build, so result
// types, verification and shape inference are the same as for a plain node.
//
// Versions newer than the implemented one that add a feature are mapped onto
// it only where the node leaves the feature unused; otherwise the node is
// refused with the importer's "the opset N version of OP is not supported".
//
//===----------------------------------------------------------------------===//
#include "compiler/ImporterImpl.h"
#include "compiler/NewOps.h"
#include "compiler/SignalImport.h"

#include "dialects/onnx/OnnxOps.h"

#include "llvm/ADT/SmallBitVector.h"

#include <limits>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace onnxcc::importer {
namespace {

NamedAttribute namedI64(NodeContext &nc, StringRef name, int64_t v) {
  return nc.builder().getNamedAttr(name, nc.builder().getI64IntegerAttr(v));
}
NamedAttribute namedF32(NodeContext &nc, StringRef name, float v) {
  return nc.builder().getNamedAttr(name, nc.builder().getF32FloatAttr(v));
}
NamedAttribute namedStr(NodeContext &nc, StringRef name, StringRef v) {
  return nc.builder().getNamedAttr(name, nc.builder().getStringAttr(v));
}

/// Collects node inputs [0, n) (absent ones as onnx.NoValue).
Expected<SmallVector<Value>> inputs(NodeContext &nc, unsigned n) {
  SmallVector<Value> values;
  for (unsigned i = 0; i < n; ++i) {
    auto v = nc.input(i);
    if (!v)
      return v.takeError();
    values.push_back(*v);
  }
  return values;
}

/// Rejects node attributes other than `known`.
Error onlyAttributes(NodeContext &nc, ArrayRef<StringRef> known) {
  for (const auto &a : nc.node.attribute())
    if (!llvm::is_contained(known, a.name()) && a.name() != "consumed_inputs")
      return nc.error("unknown attribute '" + a.name() + "' for opset " +
                      llvm::Twine(nc.sinceVersion));
  return Error::success();
}

/// Builds `opType` and binds its results to the node's outputs.
Error emit(NodeContext &nc, StringRef opType, ArrayRef<Value> operands,
           ArrayRef<NamedAttribute> attrs, unsigned numResults = 1) {
  auto op = nc.build(opType, operands, attrs, numResults, /*asNodeOutputs=*/true);
  if (!op)
    return op.takeError();
  for (unsigned i = 0; i < numResults; ++i)
    if (Error e = nc.setOutput(i, (*op)->getResult(i)))
      return e;
  return Error::success();
}

Type elementTypeOf(Value v) {
  if (auto t = dyn_cast<TensorType>(v.getType()))
    return t.getElementType();
  return {};
}

/// Constant: every value_* form becomes the `value` tensor.
Error constant(NodeContext &nc) {
  if (nc.node.attribute_size() != 1)
    return nc.error("Constant needs exactly one value attribute, has " +
                    llvm::Twine(nc.node.attribute_size()));
  const ::onnx::AttributeProto &a = nc.node.attribute(0);
  OpBuilder &b = nc.builder();
  ElementsAttr value;
  StringRef name = a.name();
  if (name == "value") {
    if (!a.has_t())
      return nc.error("Constant attribute 'value' has no tensor");
    auto t = nc.convertTensor(a.t(), "attribute 'value'");
    if (!t)
      return t.takeError();
    value = *t;
  } else if (name == "value_float") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), a.f());
  } else if (name == "value_floats") {
    SmallVector<float> v(a.floats().begin(), a.floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getF32Type()),
        ArrayRef<float>(v));
  } else if (name == "value_int") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), a.i());
  } else if (name == "value_ints") {
    SmallVector<int64_t> v(a.ints().begin(), a.ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getI64Type()),
        ArrayRef<int64_t>(v));
  } else if (name == "value_string") {
    value = DenseStringElementsAttr::get(
        RankedTensorType::get({}, onnx::StringType::get(b.getContext())), {a.s()});
  } else if (name == "value_strings") {
    SmallVector<StringRef> v(a.strings().begin(), a.strings().end());
    value = DenseStringElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())},
                              onnx::StringType::get(b.getContext())),
        v);
  } else if (name == "sparse_value") {
    auto dense = nc.convertSparseTensor(a.sparse_tensor());
    if (!dense)
      return dense.takeError();
    value = *dense;
  } else {
    return nc.error("unknown attribute '" + name + "'");
  }
  return emit(nc, "Constant", {}, {b.getNamedAttr("value", value)});
}

/// Softmax, LogSoftmax and Hardmax before opset 13 work on the input
/// flattened to 2-D at `axis` (default 1): Flatten, the op on the last axis,
/// then Reshape back. When `axis` is the last axis, the forms agree.
Error coercedSoftmax(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  int64_t axis = nc.intAttr("axis", 1);
  StringRef op = nc.node.op_type();
  if (auto t = dyn_cast<RankedTensorType>(x->getType())) {
    int64_t rank = t.getRank();
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
      return nc.error("axis " + llvm::Twine(axis) + " is out of range for rank " +
                      llvm::Twine(rank));
    if ((axis < 0 ? axis + rank : axis) == rank - 1)
      return emit(nc, op, {*x}, {namedI64(nc, "axis", -1)});
  }
  auto flat = nc.build("Flatten", {*x}, {namedI64(nc, "axis", axis)});
  if (!flat)
    return flat.takeError();
  auto inner = nc.build(op, {(*flat)->getResult(0)}, {namedI64(nc, "axis", 1)});
  if (!inner)
    return inner.takeError();
  auto shape = nc.build("Shape", {*x}, {});
  if (!shape)
    return shape.takeError();
  return emit(nc, "Reshape", {(*inner)->getResult(0), (*shape)->getResult(0)}, {});
}

/// Reduce* ops with `axes` as an attribute: axes becomes an i64 input.
Error reduceAxesAttr(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axes", "keepdims"}))
    return e;
  auto data = nc.input(0);
  if (!data)
    return data.takeError();
  Value axes = nc.noValue();
  if (auto a = nc.intsAttr("axes"))
    axes = nc.constI64(*a);
  return emit(nc, nc.node.op_type(), {*data, axes},
              {namedI64(nc, "keepdims", nc.intAttr("keepdims", 1))});
}

/// Clip before 11: `min` and `max` attributes become scalar inputs.
Error clipAttrs(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"min", "max"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementTypeOf(*x);
  if (!elem)
    return nc.error("input is not a tensor");
  Value lo = nc.attr("min") ? nc.constScalar(elem, nc.floatAttr("min", 0)) : nc.noValue();
  Value hi = nc.attr("max") ? nc.constScalar(elem, nc.floatAttr("max", 0)) : nc.noValue();
  return emit(nc, "Clip", {*x, lo, hi}, {});
}

/// Split before 13: the `split` attribute becomes an input.
Error splitAttr(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis", "split"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  Value split = nc.noValue();
  if (nc.hasInput(1)) { // Opset 1 could pass it as a second input.
    auto s = nc.input(1);
    if (!s)
      return s.takeError();
    split = *s;
  } else if (auto s = nc.intsAttr("split")) {
    split = nc.constI64(*s);
  }
  return emit(nc, "Split", {*x, split}, {namedI64(nc, "axis", nc.intAttr("axis", 0))},
              std::max(1, nc.node.output_size()));
}

/// Squeeze and Unsqueeze before 13: `axes` becomes an input.
Error axesAttrToInput(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axes"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  Value axes = nc.noValue();
  if (auto a = nc.intsAttr("axes"))
    axes = nc.constI64(*a);
  else if (nc.node.op_type() == "Unsqueeze")
    return nc.error("Unsqueeze needs the 'axes' attribute before opset 13");
  return emit(nc, nc.node.op_type(), {*x, axes}, {});
}

/// Pad before 11: `pads`/`paddings`, `value` and `mode` attributes.
Error padAttrs(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"pads", "paddings", "value", "mode"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  auto pads = nc.intsAttr(nc.sinceVersion < 2 ? "paddings" : "pads");
  if (!pads)
    return nc.error("Pad needs the 'pads' attribute before opset 11");
  std::string mode = nc.stringAttr("mode", "constant");
  Value value = nc.noValue();
  if (mode == "constant") {
    Type elem = elementTypeOf(*x);
    if (!elem)
      return nc.error("input is not a tensor");
    value = nc.constScalar(elem, nc.floatAttr("value", 0));
  }
  return emit(nc, "Pad", {*x, nc.constI64(*pads), value}, {namedStr(nc, "mode", mode)});
}

/// Slice before 10: `starts`, `ends`, `axes` attributes.
Error sliceAttrs(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"starts", "ends", "axes"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  auto starts = nc.intsAttr("starts");
  auto ends = nc.intsAttr("ends");
  if (!starts || !ends)
    return nc.error("Slice needs 'starts' and 'ends' before opset 10");
  Value axes = nc.noValue();
  if (auto a = nc.intsAttr("axes"))
    axes = nc.constI64(*a);
  return emit(nc, "Slice", {*x, nc.constI64(*starts), nc.constI64(*ends), axes, nc.noValue()},
              {});
}

/// TopK before 10: `k` attribute becomes a 1-element input.
Error topkAttr(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"k", "axis"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  const auto *k = nc.attr("k");
  if (!k)
    return nc.error("TopK needs the 'k' attribute before opset 10");
  return emit(nc, "TopK", {*x, nc.constI64({k->i()})},
              {namedI64(nc, "axis", nc.intAttr("axis", -1))}, 2);
}

/// Dropout before 12: `ratio` attribute; is_test is implied at inference.
Error dropoutAttrs(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"ratio", "is_test", "seed"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  Value ratio = nc.constScalar(nc.builder().getF32Type(), nc.floatAttr("ratio", 0.5f));
  if (nc.node.output_size() < 2 || nc.node.output(1).empty() || nc.sinceVersion >= 10)
    return emit(nc, "Dropout", {*x, ratio, nc.noValue()}, {}, 2);
  // Before opset 10 the mask has the data's type: at inference (onnxcc never
  // trains) every element is kept, so it is all ones of X's shape.
  auto elem = dyn_cast_or_null<FloatType>(elementTypeOf(*x));
  if (!elem)
    return nc.error("the mask output of Dropout before opset 10 needs float data");
  auto dropout = nc.build("Dropout", {*x, ratio, nc.noValue()}, {}, 2);
  if (!dropout)
    return dropout.takeError();
  auto shape = nc.build("Shape", {*x}, {});
  if (!shape)
    return shape.takeError();
  auto one = DenseElementsAttr::get(RankedTensorType::get({1}, elem),
                                    nc.builder().getFloatAttr(elem, 1.0).getValue());
  auto mask = nc.build("ConstantOfShape", {(*shape)->getResult(0)},
                       {nc.builder().getNamedAttr("value", one)});
  if (!mask)
    return mask.takeError();
  if (Error e = nc.setOutput(0, (*dropout)->getResult(0)))
    return e;
  return nc.setOutput(1, (*mask)->getResult(0));
}

/// BatchNormalization before 14: inference form only.
Error batchNormLegacy(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"epsilon", "momentum", "is_test", "spatial"}))
    return e;
  if (nc.intAttr("spatial", 1) != 1)
    return nc.error("BatchNormalization with spatial=0 is not supported");
  for (int i = 1; i < nc.node.output_size(); ++i)
    if (!nc.node.output(i).empty())
      return nc.error("the training outputs of BatchNormalization are not supported");
  auto in = inputs(nc, 5);
  if (!in)
    return in.takeError();
  return emit(nc, "BatchNormalization", *in,
              {namedF32(nc, "epsilon", nc.floatAttr("epsilon", 1e-5f)),
               namedF32(nc, "momentum", nc.floatAttr("momentum", 0.9f)),
               namedI64(nc, "training_mode", 0)},
              3);
}

/// Upsample (all versions) and Resize-10 are Resize with asymmetric
/// coordinates and floor rounding for nearest.
Error upsample(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"mode", "scales", "width_scale", "height_scale"}))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  std::string mode = nc.stringAttr("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  if (mode != "nearest" && mode != "linear")
    return nc.error("unknown Upsample mode '" + mode + "'");
  Value scales;
  if (nc.hasInput(1)) {
    auto s = nc.input(1);
    if (!s)
      return s.takeError();
    scales = *s;
  } else if (const auto *a = nc.attr("scales")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    auto type = RankedTensorType::get({static_cast<int64_t>(v.size())},
                                      nc.builder().getF32Type());
    auto op = nc.build("Constant", {}, {nc.builder().getNamedAttr(
                                          "value", DenseElementsAttr::get(type, ArrayRef<float>(v)))});
    if (!op)
      return op.takeError();
    scales = (*op)->getResult(0);
  } else {
    return nc.error("Upsample needs scales");
  }
  return emit(nc, "Resize", {*x, nc.noValue(), scales, nc.noValue()},
              {namedStr(nc, "mode", mode),
               namedStr(nc, "coordinate_transformation_mode", "asymmetric"),
               namedStr(nc, "nearest_mode", "floor")});
}

/// Scatter (deprecated) is ScatterElements.
Error scatter(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis"}))
    return e;
  auto in = inputs(nc, 3);
  if (!in)
    return in.takeError();
  return emit(nc, "ScatterElements", *in, {namedI64(nc, "axis", nc.intAttr("axis", 0))});
}

/// Concat before 4 had a default axis of 1.
Error concatDefaultAxis(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis"}))
    return e;
  auto in = inputs(nc, nc.numInputs());
  if (!in)
    return in.takeError();
  return emit(nc, "Concat", *in, {namedI64(nc, "axis", nc.intAttr("axis", 1))});
}

/// Binary ops before 7: with broadcast=1 and `axis`, B lines up with A
/// starting at `axis`, which numpy broadcasting expresses by giving B
/// trailing unit dims.
Error legacyBroadcast(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"broadcast", "axis"}))
    return e;
  auto in = inputs(nc, 2);
  if (!in)
    return in.takeError();
  Value a = (*in)[0], b = (*in)[1];
  if (nc.intAttr("broadcast", 0) && nc.attr("axis")) {
    auto at = dyn_cast<RankedTensorType>(a.getType());
    auto bt = dyn_cast<RankedTensorType>(b.getType());
    if (!at || !bt)
      return nc.error("legacy broadcasting with 'axis' needs inputs of known rank");
    int64_t axis = nc.intAttr("axis", 0);
    if (axis < 0)
      axis += at.getRank();
    int64_t trailing = at.getRank() - axis - bt.getRank();
    if (axis < 0 || trailing < 0)
      return nc.error("broadcast axis " + llvm::Twine(nc.intAttr("axis", 0)) +
                      " does not fit input ranks " + llvm::Twine(at.getRank()) + " and " +
                      llvm::Twine(bt.getRank()));
    if (trailing > 0) {
      SmallVector<int64_t> axes;
      for (int64_t i = 0; i < trailing; ++i)
        axes.push_back(bt.getRank() + i);
      auto u = nc.build("Unsqueeze", {b, nc.constI64(axes)}, {});
      if (!u)
        return u.takeError();
      b = (*u)->getResult(0);
    }
  }
  return emit(nc, nc.node.op_type(), {a, b}, {});
}

/// PRelu before 7: a 1-D slope of C values applies along axis 1 (channels).
Error preluChannelSlope(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {}))
    return e;
  auto in = inputs(nc, 2);
  if (!in)
    return in.takeError();
  Value x = (*in)[0], slope = (*in)[1];
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto st = dyn_cast<RankedTensorType>(slope.getType());
  if (xt && st && st.getRank() == 1 && xt.getRank() > 2 && st.getDimSize(0) != 1) {
    SmallVector<int64_t> axes;
    for (int64_t i = 1; i < xt.getRank() - 1; ++i)
      axes.push_back(i);
    auto u = nc.build("Unsqueeze", {slope, nc.constI64(axes)}, {});
    if (!u)
      return u.takeError();
    slope = (*u)->getResult(0);
  }
  return emit(nc, "PRelu", {x, slope}, {});
}

/// Gemm before 7: `broadcast` only allowed what numpy broadcasting allows.
Error gemmLegacy(NodeContext &nc) { return nc.importGeneric({"broadcast"}); }

/// Resize 11 had a required roi and an extra coordinate mode,
/// tf_half_pixel_for_nn (x_original = (x_resized + 0.5) / scale), which the
/// dialect's Resize keeps; otherwise as 13.
Error resize11(NodeContext &nc) { return nc.importGeneric(); }

/// The refusal of a newer version of an op whose new feature the node uses.
Error unsupportedVersion(NodeContext &nc, const llvm::Twine &feature) {
  const OpSchemaInfo *schema = lookupSchema(nc.node.op_type());
  return nc.error("the opset " + llvm::Twine(nc.sinceVersion) + " version of " +
                  nc.node.op_type() + " is not supported " + feature +
                  " (it differs from opset " + llvm::Twine(schema ? schema->latestSince : 0) +
                  ", the version onnxcc implements)");
}

/// The static rank of `v`, or nullopt.
std::optional<int64_t> rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return std::nullopt;
}

/// The contents of node input `i` when it is an integer constant (an
/// initializer or a Constant node), else nullopt.
std::optional<SmallVector<int64_t>> constantInput(NodeContext &nc, unsigned i) {
  if (!nc.hasInput(i))
    return std::nullopt;
  auto v = nc.input(i);
  if (!v) {
    llvm::consumeError(v.takeError());
    return std::nullopt;
  }
  auto c = v->getDefiningOp<onnx::ConstantOp>();
  auto dense = c ? dyn_cast<DenseIntElementsAttr>(c.getValueAttr()) : DenseIntElementsAttr();
  if (!dense)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &x : dense.getValues<APInt>())
    out.push_back(x.getSExtValue());
  return out;
}

/// Split 18 adds `num_outputs`: that many parts of ceil(dim / num_outputs),
/// the last one smaller when the dim does not divide. It is Split 13 with
/// those sizes (or with none when the dim divides, symbolic or not).
Error split18(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis", "num_outputs"}))
    return e;
  const auto *numAttr = nc.attr("num_outputs");
  if (!numAttr)
    return nc.importGeneric();
  int64_t n = numAttr->i();
  if (nc.hasInput(1))
    return nc.error("takes 'num_outputs' or the 'split' input, not both");
  if (n < 1 || n != nc.node.output_size())
    return nc.error("num_outputs is " + llvm::Twine(n) + " but the node has " +
                    llvm::Twine(nc.node.output_size()) + " outputs");
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  int64_t axis = nc.intAttr("axis", 0);
  Value split = nc.noValue();
  if (auto t = dyn_cast<RankedTensorType>(x->getType())) {
    int64_t rank = t.getRank();
    if (axis < -rank || axis >= rank)
      return nc.error("axis " + llvm::Twine(axis) + " is out of range for input of rank " +
                      llvm::Twine(rank));
    int64_t dim = t.getDimSize(axis < 0 ? axis + rank : axis);
    // A dim that does not split into n parts is left to shape inference,
    // which reports it, or, inside a branch of an If, compiles that branch
    // to return a status (the branch may never be taken with these shapes).
    int64_t chunk = ShapedType::isDynamic(dim) ? 0 : (dim + n - 1) / n;
    if (!ShapedType::isDynamic(dim) && dim % n != 0 && chunk * (n - 1) <= dim) {
      SmallVector<int64_t> sizes(n, chunk);
      sizes.back() = dim - chunk * (n - 1);
      split = nc.constI64(sizes);
    }
  }
  return emit(nc, "Split", {*x, split}, {namedI64(nc, "axis", axis)}, n);
}

/// The pads over every dim of a rank-`rank` input from `pads` ([2k]) and
/// Pad 18's `axes` (node input 3, [k], known only at run time):
///   full[d] = sum_i (axes[i] mod rank == d) * pads[i], likewise the ends.
/// Axes out of [-rank, rank) wrap around (a run-time value cannot be refused).
Expected<Value> padsOfRuntimeAxes(NodeContext &nc, Value pads, int64_t rank) {
  auto axes = nc.input(3);
  if (!axes)
    return axes.takeError();
  auto axesType = dyn_cast<RankedTensorType>(axes->getType());
  if (!axesType || axesType.getRank() != 1 || axesType.isDynamicDim(0))
    return nc.error("needs an 'axes' input of static length when it is known only at run time");
  int64_t k = axesType.getDimSize(0);
  auto op = [&](StringRef type, ArrayRef<Value> operands,
                ArrayRef<NamedAttribute> attrs = {}) -> Expected<Value> {
    auto built = nc.build(type, operands, attrs);
    if (!built)
      return built.takeError();
    return (*built)->getResult(0);
  };
  Value r = nc.constI64({rank});
  auto shifted = op("Add", {*axes, r});
  if (!shifted)
    return shifted.takeError();
  auto normalized = op("Mod", {*shifted, r});
  if (!normalized)
    return normalized.takeError();
  auto row = op("Unsqueeze", {*normalized, nc.constI64({0})}); // [1, k]
  if (!row)
    return row.takeError();
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(d);
  auto column = op("Unsqueeze", {nc.constI64(dims), nc.constI64({1})}); // [rank, 1]
  if (!column)
    return column.takeError();
  auto hit = op("Equal", {*column, *row});
  if (!hit)
    return hit.takeError();
  auto select = op("Cast", {*hit}, {namedI64(nc, "to", 7)}); // [rank, k]
  if (!select)
    return select.takeError();
  SmallVector<Value> halves;
  for (int64_t h = 0; h < 2; ++h) {
    auto part = op("Slice", {pads, nc.constI64({h * k}), nc.constI64({(h + 1) * k}),
                             nc.constI64({0}), nc.noValue()});
    if (!part)
      return part.takeError();
    auto spread = op("Unsqueeze", {*part, nc.constI64({0})});
    if (!spread)
      return spread.takeError();
    auto product = op("Mul", {*select, *spread});
    if (!product)
      return product.takeError();
    auto sum = op("ReduceSum", {*product, nc.constI64({1})}, {namedI64(nc, "keepdims", 0)});
    if (!sum)
      return sum.takeError();
    halves.push_back(*sum);
  }
  return op("Concat", halves, {namedI64(nc, "axis", 0)});
}

/// Pad 18 adds the `axes` input, Pad 19 the mode 'wrap'. Constant axes
/// become pads over every dim: the given pads gathered into place, zeros
/// elsewhere (pads itself may be a run-time value).
Error pad18(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"mode"}))
    return e;
  std::string mode = nc.stringAttr("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return nc.error("unknown mode '" + mode + "' (constant, reflect, edge or wrap)");
  if (nc.numInputs() > 4)
    return nc.error("has " + llvm::Twine(nc.numInputs()) +
                    " inputs, the operator takes at most 4");
  auto in = inputs(nc, 3);
  if (!in)
    return in.takeError();
  if (nc.hasInput(3)) {
    auto axes = constantInput(nc, 3);
    auto rank = rankOf((*in)[0]);
    if (!rank)
      return nc.error("needs a ranked data input to place the pads of 'axes'");
    if (!axes) {
      auto full = padsOfRuntimeAxes(nc, (*in)[1], *rank);
      if (!full)
        return full.takeError();
      (*in)[1] = *full;
      SmallVector<NamedAttribute> attrs;
      if (nc.attr("mode"))
        attrs.push_back(namedStr(nc, "mode", mode));
      return emit(nc, "Pad", *in, attrs);
    }
    int64_t k = axes->size();
    // Position 2k of [pads..., 0] is the zero.
    SmallVector<int64_t> where(2 * *rank, 2 * k);
    llvm::SmallBitVector seen(*rank);
    for (auto [i, a] : llvm::enumerate(*axes)) {
      if (a < -*rank || a >= *rank)
        return nc.error("axis " + llvm::Twine(a) + " is out of range for data of rank " +
                        llvm::Twine(*rank));
      int64_t d = a < 0 ? a + *rank : a;
      if (seen.test(d))
        return nc.error("axis " + llvm::Twine(a) + " appears more than once");
      seen.set(d);
      where[d] = i;
      where[*rank + d] = k + i;
    }
    auto padded = nc.build("Concat", {(*in)[1], nc.constI64({0})},
                           {namedI64(nc, "axis", 0)});
    if (!padded)
      return padded.takeError();
    auto full = nc.build("Gather", {(*padded)->getResult(0), nc.constI64(where)},
                         {namedI64(nc, "axis", 0)});
    if (!full)
      return full.takeError();
    (*in)[1] = (*full)->getResult(0);
  }
  SmallVector<NamedAttribute> attrs;
  if (nc.attr("mode"))
    attrs.push_back(namedStr(nc, "mode", mode));
  return emit(nc, "Pad", *in, attrs);
}

/// Range 27 widens the types; for the types of Range 11 it is Range 11.
Error range27(NodeContext &nc) { return nc.importGeneric(); }

/// GridSample 20 renames the modes bilinear and bicubic to linear and cubic
/// and allows N-D inputs, which the dialect's GridSample takes too.
Error gridSample20(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"align_corners", "mode", "padding_mode"}))
    return e;
  auto in = inputs(nc, 2);
  if (!in)
    return in.takeError();
  std::string mode = nc.stringAttr("mode", "linear");
  if (mode == "linear")
    mode = "bilinear";
  else if (mode == "cubic")
    mode = "bicubic";
  else if (mode != "nearest")
    return nc.error("unknown mode '" + mode + "' (linear, cubic or nearest)");
  return emit(nc, "GridSample", *in,
              {namedI64(nc, "align_corners", nc.intAttr("align_corners", 0)),
               namedStr(nc, "mode", mode),
               namedStr(nc, "padding_mode", nc.stringAttr("padding_mode", "zeros"))});
}

bool allOnes(const std::optional<SmallVector<int64_t>> &v) {
  return !v || llvm::all_of(*v, [](int64_t x) { return x == 1; });
}

/// A pooling op of the dialect with the window attributes of the node, plus
/// those a later version added (`dilations`, LpPool's `ceil_mode`), which
/// the dialect's AveragePool and LpPool carry as extra attributes of the
/// same name and type as MaxPool's (their shape functions and lowerings read
/// them).
Error poolWithWindow(NodeContext &nc, ArrayRef<StringRef> extra) {
  SmallVector<StringRef> known = {"auto_pad", "kernel_shape", "pads", "strides", "dilations"};
  llvm::append_range(known, extra);
  if (Error e = onlyAttributes(nc, known))
    return e;
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  if (nc.numInputs() != 1)
    return nc.error("takes one input, has " + llvm::Twine(nc.numInputs()));
  OpBuilder &b = nc.builder();
  SmallVector<NamedAttribute> attrs;
  // Dilations of 1 (and LpPool's ceil_mode 0) are the older versions' form.
  for (StringRef name : {"kernel_shape", "pads", "strides", "dilations"})
    if (auto v = nc.intsAttr(name); v && !(name == "dilations" && allOnes(v)))
      attrs.push_back(b.getNamedAttr(name, b.getDenseI64ArrayAttr(*v)));
  if (!nc.intsAttr("kernel_shape"))
    return nc.error("needs the 'kernel_shape' attribute");
  attrs.push_back(namedStr(nc, "auto_pad", nc.stringAttr("auto_pad", "NOTSET")));
  for (StringRef name : extra) {
    if (name == "p")
      attrs.push_back(namedI64(nc, name, nc.intAttr(name, 2)));
    else if (nc.node.op_type() != "LpPool" || nc.intAttr(name, 0) != 0)
      attrs.push_back(namedI64(nc, name, nc.intAttr(name, 0)));
  }
  return emit(nc, nc.node.op_type(), {*x}, attrs);
}

/// AveragePool 19 adds `dilations`.
Error averagePool19(NodeContext &nc) {
  return poolWithWindow(nc, {"ceil_mode", "count_include_pad"});
}

/// LpPool 18 adds `ceil_mode` and `dilations`.
Error lpPool18(NodeContext &nc) { return poolWithWindow(nc, {"ceil_mode", "p"}); }

/// Cast 19 adds `saturate` and Cast 24 `round_mode`, which only concern the
/// float8 targets (ONNX types 17..20, and 24, E8M0, for round_mode); the
/// opset-13 op of the dialect keeps them as the attributes onnxcc.saturate
/// and onnxcc.round_mode, which the lowering reads (SmallTypes.cpp).
Error castAttrs(NodeContext &nc, Type target, SmallVectorImpl<NamedAttribute> &attrs) {
  OpBuilder &b = nc.builder();
  int64_t saturate = nc.intAttr("saturate", 1);
  if (saturate != 0 && saturate != 1)
    return nc.error("saturate must be 0 or 1, is " + llvm::Twine(saturate));
  std::string roundMode = nc.stringAttr("round_mode", "up");
  if (roundMode != "up" && roundMode != "down" && roundMode != "nearest")
    return nc.error("unknown round_mode '" + roundMode + "' (up, down or nearest)");
  bool toE8M0 = isa_and_nonnull<Float8E8M0FNUType>(target);
  bool toFloat8 = toE8M0 || isa_and_nonnull<Float8E4M3FNType, Float8E4M3FNUZType,
                                            Float8E5M2Type, Float8E5M2FNUZType>(target);
  if (saturate == 0 && toFloat8)
    attrs.push_back(b.getNamedAttr("onnxcc.saturate", b.getI64IntegerAttr(0)));
  if (roundMode != "up" && toE8M0)
    attrs.push_back(namedStr(nc, "onnxcc.round_mode", roundMode));
  return Error::success();
}

Error cast19(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"to", "saturate", "round_mode"}))
    return e;
  const auto *to = nc.attr("to");
  if (!to)
    return nc.error("Cast needs the attribute 'to'");
  int64_t t = to->i();
  // FLOAT .. UINT64, BFLOAT16 and the float8/4-bit/2-bit types (no complex).
  bool known = (t >= 1 && t <= 13) || (t >= 16 && t <= 26);
  if (!known)
    return unsupportedVersion(nc, "with target type " + llvm::Twine(t));
  if (nc.numInputs() != 1 || !nc.hasInput(0))
    return nc.error("Cast takes one input, has " + llvm::Twine(nc.numInputs()));
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  SmallVector<NamedAttribute> attrs = {nc.builder().getNamedAttr("to", nc.builder().getI64IntegerAttr(t))};
  if (Error e = castAttrs(nc, elementTypeOfDataType(nc.builder().getContext(), static_cast<int>(t)),
                          attrs))
    return e;
  return emit(nc, "Cast", {*x}, attrs);
}

/// CastLike 19 and 24: the same attributes as Cast 19 and 24.
Error castLike19(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"saturate", "round_mode"}))
    return e;
  if (nc.numInputs() != 2 || !nc.hasInput(0) || !nc.hasInput(1))
    return nc.error("CastLike takes two inputs, has " + llvm::Twine(nc.numInputs()));
  auto values = inputs(nc, 2);
  if (!values)
    return values.takeError();
  SmallVector<NamedAttribute> attrs;
  if (Error e = castAttrs(nc, elementTypeOf((*values)[1]), attrs))
    return e;
  return emit(nc, "CastLike", *values, attrs);
}

/// The three operands of QuantizeLinear/DequantizeLinear (x, the scale, the
/// optional zero point as onnx.NoValue when absent); `v` names the result
/// ("y" for QuantizeLinear's y_scale) in the error.
Expected<SmallVector<Value>> quantizeOperands(NodeContext &nc, StringRef v) {
  if (nc.numInputs() < 2 || nc.numInputs() > 3 || !nc.hasInput(0) || !nc.hasInput(1))
    return nc.error(nc.node.op_type() + " takes x, " + v + "_scale and an optional " + v +
                    "_zero_point");
  auto values = inputs(nc, nc.numInputs());
  if (!values)
    return values.takeError();
  if (values->size() < 3)
    values->push_back(nc.noValue());
  return values;
}

/// `axis`, and `block_size` (opset 21) as onnxcc.block_size when blocked.
Expected<SmallVector<NamedAttribute>> quantizeAttrs(NodeContext &nc) {
  SmallVector<NamedAttribute> attrs = {namedI64(nc, "axis", nc.intAttr("axis", 1))};
  int64_t blockSize = nc.intAttr("block_size", 0);
  if (blockSize < 0)
    return nc.error("block_size must be positive, is " + llvm::Twine(blockSize));
  if (blockSize > 0)
    attrs.push_back(namedI64(nc, "onnxcc.block_size", blockSize));
  return attrs;
}

/// QuantizeLinear 19 adds `saturate` (float8 outputs), 21 `block_size` and
/// `output_dtype`, 23 `precision`. The opset-13 op of the dialect keeps
/// saturate 0 and block_size as onnxcc.saturate / onnxcc.block_size (read by
/// the lowering); `output_dtype` without a zero point becomes a zero point 0
/// of that type; precision is the float the lowering divides in, or refused.
Error quantize19(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis", "saturate", "block_size", "output_dtype",
                                    "precision"}))
    return e;
  int64_t precision = nc.intAttr("precision", 0);
  if (precision != 0 && precision != 1)
    return unsupportedVersion(nc, "with precision " + llvm::Twine(precision) +
                                      " (onnxcc divides in float)");
  auto values = quantizeOperands(nc, "y");
  if (!values)
    return values.takeError();
  SmallVector<Value> operands = *values;
  if (int64_t dtype = nc.intAttr("output_dtype", 0); dtype != 0) {
    Type type = elementTypeOfDataType(nc.builder().getContext(), static_cast<int>(dtype));
    if (!type)
      return nc.error("output_dtype " + llvm::Twine(dtype) + " is not an ONNX data type");
    if (isa<NoneType>(operands[2].getType()))
      operands[2] = nc.constScalar(type, 0.0);
    else if (elementTypeOf(operands[2]) != type)
      return nc.error("output_dtype " + llvm::Twine(dtype) +
                      " differs from the type of y_zero_point");
  }
  auto attrs = quantizeAttrs(nc);
  if (!attrs)
    return attrs.takeError();
  if (nc.intAttr("saturate", 1) == 0)
    attrs->push_back(namedI64(nc, "onnxcc.saturate", 0));
  return emit(nc, "QuantizeLinear", operands, *attrs);
}

/// DequantizeLinear 21 adds `block_size` (kept as onnxcc.block_size), 23
/// `output_dtype`: another type than x_scale's is DequantizeLinear with the
/// scale as float (exact), then one Cast (the lowering computes in float).
Error dequantize21(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis", "block_size", "output_dtype"}))
    return e;
  auto values = quantizeOperands(nc, "x");
  if (!values)
    return values.takeError();
  SmallVector<Value> operands = *values;
  auto quantAttrs = quantizeAttrs(nc);
  if (!quantAttrs)
    return quantAttrs.takeError();
  SmallVector<NamedAttribute> attrs = *quantAttrs;
  int64_t dtype = nc.intAttr("output_dtype", 0);
  Type outType = dtype ? elementTypeOfDataType(nc.builder().getContext(), static_cast<int>(dtype))
                       : Type();
  if (dtype && !isa_and_nonnull<Float32Type, Float16Type, BFloat16Type>(outType))
    return nc.error("output_dtype " + llvm::Twine(dtype) + " is not float, float16 or bfloat16");
  if (!outType || outType == elementTypeOf(operands[1]))
    return emit(nc, "DequantizeLinear", operands, attrs);
  if (!isa_and_nonnull<Float32Type>(elementTypeOf(operands[1]))) {
    constexpr int64_t kFloat = 1;
    auto scale = nc.build("Cast", {operands[1]}, {namedI64(nc, "to", kFloat)});
    if (!scale)
      return scale.takeError();
    operands[1] = (*scale)->getResult(0);
  }
  auto y = nc.build("DequantizeLinear", operands, attrs);
  if (!y)
    return y.takeError();
  return emit(nc, "Cast", {(*y)->getResult(0)}, {namedI64(nc, "to", dtype)});
}

/// ScatterElements 18 and ScatterND 18 add the reductions 'max' and 'min',
/// which the dialect's ops (opset 16) take too.
Error scatterReduction18(NodeContext &nc) {
  std::string reduction = nc.stringAttr("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return nc.error("unknown reduction '" + reduction + "' (none, add, mul, max or min)");
  return nc.importGeneric();
}

/// `values` (1-D, one per axis in `axes`, or two per axis for roi) spread
/// over all `rank` dims: Gather(Concat(values, fill), where), `fill` giving
/// the values of the other dims (one, or per dim). Values may be run-time.
Expected<Value> spreadOverAxes(NodeContext &nc, Value values, Value fill,
                               ArrayRef<int64_t> where) {
  auto joined = nc.build("Concat", {values, fill}, {namedI64(nc, "axis", 0)});
  if (!joined)
    return joined.takeError();
  auto full = nc.build("Gather", {(*joined)->getResult(0), nc.constI64(where)},
                       {namedI64(nc, "axis", 0)});
  if (!full)
    return full.takeError();
  return (*full)->getResult(0);
}

/// Resize 18 adds `antialias`, `axes` and `keep_aspect_ratio_policy`, Resize
/// 19 the coordinate mode 'half_pixel_symmetric' (which the dialect's Resize
/// takes). Axes spread roi, scales and sizes over every dim (1.0, the input
/// size and the full [0, 1] roi elsewhere). A sizes policy other than
/// stretch becomes scales: one scale for every listed axis, the smallest
/// (not_larger) or largest (not_smaller) of sizes[i] / in[axes[i]], which
/// is what positions the samples; the output size round(scale * in) is the
/// result's (its declared shape when sizes are known only at run time).
Error resize18Forms(NodeContext &nc);

/// `antialias` (linear and cubic downsampling) rides on the dialect's Resize
/// as the discardable attribute `antialias`, which the lowering reads
/// (lowering/OnnxToLinalg/Resize.cpp); nearest ignores it, as ONNX does. A
/// sizes policy other than stretch marks the Resize `onnxcc.rounded_size`:
/// its output size is round(scale * in), which no Resize given scales has
/// (the exporter refuses it).
Error resize18(NodeContext &nc) {
  bool antialias = nc.intAttr("antialias", 0) != 0 && nc.stringAttr("mode", "nearest") != "nearest";
  bool rounded = nc.stringAttr("keep_aspect_ratio_policy", "stretch") != "stretch";
  OpBuilder &b = nc.builder();
  Block *block = b.getInsertionBlock();
  Block::iterator before = b.getInsertionPoint();
  bool atStart = before == block->begin();
  Block::iterator last = atStart ? block->end() : std::prev(before);
  if (Error e = resize18Forms(nc))
    return e;
  if (!antialias && !rounded)
    return Error::success();
  // The Resize just built: the last op inserted by this node.
  Block::iterator first = atStart ? block->begin() : std::next(last);
  for (Block::iterator it = b.getInsertionPoint(); it != first;) {
    --it;
    if (isa<onnx::ResizeOp>(*it)) {
      if (antialias)
        it->setAttr("antialias", b.getUnitAttr());
      if (rounded)
        it->setAttr("onnxcc.rounded_size", b.getUnitAttr());
      return Error::success();
    }
  }
  return nc.error("no Resize was built");
}

Error resize18Forms(NodeContext &nc) {
  std::string policy = nc.stringAttr("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return nc.error("unknown keep_aspect_ratio_policy '" + policy +
                    "' (stretch, not_larger or not_smaller)");
  if (!nc.attr("axes") && policy == "stretch")
    return nc.importGeneric({"antialias", "keep_aspect_ratio_policy"});
  if (nc.numInputs() > 4)
    return nc.error("has " + llvm::Twine(nc.numInputs()) + " inputs, the operator takes at most 4");
  auto in = inputs(nc, 4);
  if (!in)
    return in.takeError();
  Value x = (*in)[0];
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType)
    return nc.error("needs a ranked input for 'axes' or keep_aspect_ratio_policy");
  int64_t rank = xType.getRank();
  SmallVector<int64_t> axes;
  if (auto a = nc.intsAttr("axes")) {
    llvm::SmallBitVector seen(rank);
    for (int64_t v : *a) {
      if (v < -rank || v >= rank)
        return nc.error("axis " + llvm::Twine(v) + " is out of range for input of rank " +
                        llvm::Twine(rank));
      int64_t d = v < 0 ? v + rank : v;
      if (seen.test(d))
        return nc.error("axis " + llvm::Twine(v) + " appears more than once");
      seen.set(d);
      axes.push_back(d);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  int64_t k = axes.size();
  auto positionOf = [&](int64_t d) -> std::optional<int64_t> {
    for (int64_t i = 0; i < k; ++i)
      if (axes[i] == d)
        return i;
    return std::nullopt;
  };
  auto isPresent = [&](Value v) { return !isa<NoneType>(v.getType()); };
  Value roi = (*in)[1], scales = (*in)[2], sizes = (*in)[3];
  bool hasSizes = isPresent(sizes);
  if (auto t = dyn_cast<RankedTensorType>(sizes.getType()); t && t.getNumElements() == 0)
    hasSizes = false;
  Type f32 = nc.builder().getF32Type();
  if (policy != "stretch") {
    if (!hasSizes)
      return nc.error("keep_aspect_ratio_policy '" + policy + "' needs the 'sizes' input");
    // One scale for the listed axes: min or max of sizes[i] / in[axes[i]].
    SmallVector<float> inSizes;
    for (int64_t d : axes) {
      if (xType.isDynamicDim(d))
        return nc.error("keep_aspect_ratio_policy '" + policy +
                        "' needs static sizes of the resized dims");
      inSizes.push_back(static_cast<float>(xType.getDimSize(d)));
    }
    auto inConst = nc.build(
        "Constant", {},
        {nc.builder().getNamedAttr(
            "value", DenseElementsAttr::get(RankedTensorType::get({k}, f32),
                                            ArrayRef<float>(inSizes)))});
    if (!inConst)
      return inConst.takeError();
    auto asFloat = nc.build("Cast", {sizes}, {namedI64(nc, "to", 1)});
    if (!asFloat)
      return asFloat.takeError();
    auto ratios = nc.build("Div", {(*asFloat)->getResult(0), (*inConst)->getResult(0)}, {});
    if (!ratios)
      return ratios.takeError();
    auto one = nc.build("Reduce" + std::string(policy == "not_larger" ? "Min" : "Max"),
                        {(*ratios)->getResult(0), nc.noValue()},
                        {namedI64(nc, "keepdims", 1)});
    if (!one)
      return one.takeError();
    auto each = nc.build("Expand", {(*one)->getResult(0), nc.constI64({k})}, {});
    if (!each)
      return each.takeError();
    scales = (*each)->getResult(0);
    sizes = nc.noValue();
    hasSizes = false;
  }
  // Spread over every dim.
  // `v` as float32 (scales and roi are float32 in the dialect's Resize).
  auto asF32 = [&](Value v) -> Expected<Value> {
    if (elementTypeOf(v) == f32)
      return v;
    auto cast = nc.build("Cast", {v}, {namedI64(nc, "to", 1)});
    if (!cast)
      return cast.takeError();
    return (*cast)->getResult(0);
  };
  auto floats = [&](ArrayRef<float> v) -> Expected<Value> {
    auto c = nc.build("Constant", {},
                      {nc.builder().getNamedAttr(
                          "value", DenseElementsAttr::get(
                                       RankedTensorType::get({int64_t(v.size())}, f32), v))});
    if (!c)
      return c.takeError();
    return (*c)->getResult(0);
  };
  // Float32 `values` spread over every dim, `fill` for the others.
  auto spreadFloats = [&](Value values, ArrayRef<float> fill,
                          ArrayRef<int64_t> at) -> Expected<Value> {
    auto others = floats(fill);
    if (!others)
      return others.takeError();
    auto wide = asF32(values);
    if (!wide)
      return wide.takeError();
    return spreadOverAxes(nc, *wide, *others, at);
  };
  SmallVector<int64_t> where(rank);
  if (hasSizes) {
    // Other dims keep their size: Concat(sizes, Shape(X)), dim d at k + d.
    auto shape = nc.build("Shape", {x}, {});
    if (!shape)
      return shape.takeError();
    for (int64_t d = 0; d < rank; ++d)
      where[d] = positionOf(d).value_or(k + d);
    auto full = spreadOverAxes(nc, sizes, (*shape)->getResult(0), where);
    if (!full)
      return full.takeError();
    sizes = *full;
  } else if (isPresent(scales)) {
    for (int64_t d = 0; d < rank; ++d)
      where[d] = positionOf(d).value_or(k);
    auto full = spreadFloats(scales, {1.0f}, where);
    if (!full)
      return full.takeError();
    scales = *full;
  }
  if (isPresent(roi) && nc.stringAttr("coordinate_transformation_mode", "half_pixel") ==
                            "tf_crop_and_resize") {
    // Starts then ends; the other dims take all of [0, 1].
    SmallVector<int64_t> roiWhere(2 * rank);
    for (int64_t d = 0; d < rank; ++d) {
      auto i = positionOf(d);
      roiWhere[d] = i ? *i : 2 * k;
      roiWhere[rank + d] = i ? k + *i : 2 * k + 1;
    }
    auto full = spreadFloats(roi, {0.0f, 1.0f}, roiWhere);
    if (!full)
      return full.takeError();
    roi = *full;
  } else {
    roi = nc.noValue();
  }
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"coordinate_transformation_mode", "mode", "nearest_mode"})
    if (nc.attr(name))
      attrs.push_back(namedStr(nc, name, nc.stringAttr(name, "")));
  for (StringRef name : {"cubic_coeff_a", "extrapolation_value"})
    if (nc.attr(name))
      attrs.push_back(namedF32(nc, name, nc.floatAttr(name, 0)));
  if (nc.attr("exclude_outside"))
    attrs.push_back(namedI64(nc, "exclude_outside", nc.intAttr("exclude_outside", 0)));
  if (Error e = onlyAttributes(nc, {"antialias", "axes", "coordinate_transformation_mode",
                                    "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                                    "keep_aspect_ratio_policy", "mode", "nearest_mode"}))
    return e;
  return emit(nc, "Resize", {x, roi, hasSizes ? nc.noValue() : scales, sizes}, attrs);
}

/// GroupNormalization (new in opset 18): X [N, C, ...] viewed as [N, G, L]
/// is InstanceNormalization over its G groups, viewed back as X. Opset 21's
/// scale and bias are per channel (a Mul and an Add over [C, 1, ...]); opset
/// 18's, deprecated, per group (InstanceNormalization's own). stash_type 1
/// (the default) normalizes float16/bfloat16 data in float32.
Error groupNormalization18(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"epsilon", "num_groups", "stash_type"}))
    return e;
  if (nc.numInputs() != 3)
    return nc.error("takes 3 inputs (X, scale, bias), has " + llvm::Twine(nc.numInputs()));
  auto in = inputs(nc, 3);
  if (!in)
    return in.takeError();
  Value x = (*in)[0], scale = (*in)[1], bias = (*in)[2];
  const auto *groupsAttr = nc.attr("num_groups");
  if (!groupsAttr)
    return nc.error("needs the 'num_groups' attribute");
  int64_t groups = groupsAttr->i();
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto elem = xType ? dyn_cast<FloatType>(xType.getElementType()) : FloatType();
  if (!xType || !elem || xType.getRank() < 2 || xType.isDynamicDim(1))
    return nc.error("needs float X of rank >= 2 with a static channel dim");
  int64_t rank = xType.getRank(), channels = xType.getDimSize(1);
  if (groups < 1 || channels % groups != 0)
    return nc.error("num_groups " + llvm::Twine(groups) + " does not divide the " +
                    llvm::Twine(channels) + " channels");
  // (The table has no schema for it: the node's opset decides the version.)
  bool perChannel = nc.opset >= 21;
  int64_t stash = nc.intAttr("stash_type", 1);
  if (stash != 1 && !(stash == 11 && elem.isF64()) && !(elem.isF32() || elem.isF64()))
    return nc.error("stash_type " + llvm::Twine(stash) + " is not supported (1: float32)");
  float epsilon = nc.floatAttr("epsilon", 1e-5f);
  // Normalized in float32 when X is narrower (stash_type 1).
  bool widen = elem.getWidth() < 32;
  FloatType calc = widen ? FloatType(nc.builder().getF32Type()) : elem;
  auto cast = [&](Value v, int64_t to) -> Expected<Value> {
    auto c = nc.build("Cast", {v}, {namedI64(nc, "to", to)});
    if (!c)
      return c.takeError();
    return (*c)->getResult(0);
  };
  Value xs = x;
  if (widen) {
    auto c = cast(x, 1);
    if (!c)
      return c.takeError();
    xs = *c;
  }
  auto grouped = nc.build("Reshape", {xs, nc.constI64({0, groups, -1})}, {});
  if (!grouped)
    return grouped.takeError();
  auto fill = [&](double v, int64_t n) -> Expected<Value> {
    SmallVector<APFloat> values(n, APFloat(v));
    for (APFloat &a : values) {
      bool lost;
      a.convert(calc.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    }
    auto c = nc.build("Constant", {},
                      {nc.builder().getNamedAttr(
                          "value", DenseElementsAttr::get(RankedTensorType::get({n}, calc),
                                                          values))});
    if (!c)
      return c.takeError();
    return (*c)->getResult(0);
  };
  Value gScale, gBias;
  if (perChannel) {
    auto ones = fill(1.0, groups), zeros = fill(0.0, groups);
    if (!ones)
      return ones.takeError();
    if (!zeros)
      return zeros.takeError();
    gScale = *ones;
    gBias = *zeros;
  } else {
    gScale = scale;
    gBias = bias;
    if (widen) {
      auto s = cast(scale, 1), b = cast(bias, 1);
      if (!s)
        return s.takeError();
      if (!b)
        return b.takeError();
      gScale = *s;
      gBias = *b;
    }
  }
  auto normed = nc.build("InstanceNormalization", {(*grouped)->getResult(0), gScale, gBias},
                         {namedF32(nc, "epsilon", epsilon)});
  if (!normed)
    return normed.takeError();
  auto shape = nc.build("Shape", {x}, {});
  if (!shape)
    return shape.takeError();
  auto back = nc.build("Reshape", {(*normed)->getResult(0), (*shape)->getResult(0)}, {});
  if (!back)
    return back.takeError();
  Value y = (*back)->getResult(0);
  if (widen) {
    // Back to X's type before the scale and bias (the second stage).
    auto to = nc.build("CastLike", {y, x}, {});
    if (!to)
      return to.takeError();
    y = (*to)->getResult(0);
  }
  if (!perChannel) {
    if (Error e = nc.setOutput(0, y))
      return e;
    return Error::success();
  }
  // Scale and bias over [C, 1, ...].
  SmallVector<int64_t> axes;
  for (int64_t d = 1; d < rank - 1; ++d)
    axes.push_back(d);
  Value s = scale, b = bias;
  if (!axes.empty()) {
    auto su = nc.build("Unsqueeze", {scale, nc.constI64(axes)}, {});
    if (!su)
      return su.takeError();
    auto bu = nc.build("Unsqueeze", {bias, nc.constI64(axes)}, {});
    if (!bu)
      return bu.takeError();
    s = (*su)->getResult(0);
    b = (*bu)->getResult(0);
  }
  auto scaled = nc.build("Mul", {y, s}, {});
  if (!scaled)
    return scaled.takeError();
  return emit(nc, "Add", {(*scaled)->getResult(0), b}, {});
}

/// Gelu (new in opset 20) is onnxcc's own onnx.Gelu, the op the graph passes
/// make of the Gelu patterns of older opsets: same inputs, attribute and
/// default.
Error gelu20(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"approximate"}))
    return e;
  std::string approximate = nc.stringAttr("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return nc.error("unknown approximate '" + approximate + "' (none or tanh)");
  if (nc.numInputs() != 1 || !nc.hasInput(0))
    return nc.error("Gelu takes one input, has " + llvm::Twine(nc.numInputs()));
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  return emit(nc, "Gelu", {*x}, {namedStr(nc, "approximate", approximate)});
}

/// Imports `opType` (an op of dialects/onnx/TransformerOps.td, with
/// `numOperands` operands) from a node of at most `numInputs` inputs (absent
/// ones as onnx.NoValue), its attributes among `known` as they are, and
/// `numResults` results.
Error transformerOp(NodeContext &nc, StringRef opType, unsigned numInputs,
                    ArrayRef<StringRef> known, unsigned numResults,
                    unsigned numOperands = 0) {
  if (Error e = onlyAttributes(nc, known))
    return e;
  if (nc.numInputs() > numInputs)
    return nc.error(opType + " takes at most " + llvm::Twine(numInputs) + " inputs, has " +
                    llvm::Twine(nc.numInputs()));
  if (nc.node.output_size() > static_cast<int>(numResults))
    return nc.error(opType + " has at most " + llvm::Twine(numResults) + " outputs, has " +
                    llvm::Twine(nc.node.output_size()));
  auto values = inputs(nc, std::max(numInputs, numOperands));
  if (!values)
    return values.takeError();
  SmallVector<NamedAttribute> attrs;
  for (const auto &a : nc.node.attribute()) {
    if (a.type() == ::onnx::AttributeProto::INT)
      attrs.push_back(namedI64(nc, a.name(), a.i()));
    else if (a.type() == ::onnx::AttributeProto::FLOAT)
      attrs.push_back(namedF32(nc, a.name(), a.f()));
    else if (a.type() == ::onnx::AttributeProto::STRING)
      attrs.push_back(namedStr(nc, a.name(), a.s()));
    else
      return nc.error("attribute '" + a.name() + "' must be an int, a float or a string");
  }
  return emit(nc, opType, *values, attrs, numResults);
}

/// Attention 23 (six inputs), 24 (nonpad_kv_seqlen) and 25 (the window).
Error attention23(NodeContext &nc) {
  // Ops without a schema row are looked up by opset: the version in force.
  nc.sinceVersion = nc.opset >= 25 ? 25 : nc.opset >= 24 ? 24 : 23;
  SmallVector<StringRef> known = {"is_causal", "kv_num_heads", "q_num_heads",
                                  "qk_matmul_output_mode", "scale", "softcap",
                                  "softmax_precision"};
  if (nc.sinceVersion >= 25)
    known.append({"left_window_size", "right_window_size"});
  return transformerOp(nc, "Attention", nc.sinceVersion >= 24 ? 7 : 6, known, 4, 7);
}

Error rmsNormalization23(NodeContext &nc) {
  nc.sinceVersion = 23;
  return transformerOp(nc, "RMSNormalization", 2, {"axis", "epsilon", "stash_type"}, 1);
}

Error causalConvWithState27(NodeContext &nc) {
  nc.sinceVersion = 27;
  return transformerOp(nc, "CausalConvWithState", 4, {"activation"}, 2);
}

Error linearAttention27(NodeContext &nc) {
  nc.sinceVersion = 27;
  return transformerOp(nc, "LinearAttention", 6,
                       {"chunk_size", "kv_num_heads", "q_num_heads", "scale", "update_rule"}, 2);
}

Error rotaryEmbedding23(NodeContext &nc) {
  nc.sinceVersion = 23;
  return transformerOp(nc, "RotaryEmbedding", 4,
                       {"interleaved", "num_heads", "rotary_embedding_dim"}, 1);
}

/// OptionalHasElement 18 also takes a tensor or a sequence (true) and no
/// input at all (false, an empty optional).
Error optionalHasElement18(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {}))
    return e;
  if (nc.numInputs() > 1)
    return nc.error("OptionalHasElement takes at most one input, has " +
                    llvm::Twine(nc.numInputs()));
  if (nc.numInputs() == 1 && nc.hasInput(0))
    return nc.importGeneric();
  OpBuilder &b = nc.builder();
  auto type = RankedTensorType::get({}, b.getI1Type());
  return emit(nc, "Constant", {},
              {b.getNamedAttr("value", DenseElementsAttr::get(type, false))});
}

/// Scan 8: every state and scan input (and output) has a batch axis 0, and
/// sequence_lens comes first. Each batch row becomes a Scan of the dialect's
/// form (opset 16) over that row with the same body; the rows' results are
/// joined again along axis 0. sequence_lens (rows of different lengths) is
/// not supported.
Error scan8(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"body", "directions", "num_scan_inputs"}))
    return e;
  if (nc.hasInput(0))
    return nc.error("Scan 8 with sequence_lens is not supported (rows of different lengths)");
  int64_t numScan = nc.intAttr("num_scan_inputs", 0);
  int64_t numIn = static_cast<int64_t>(nc.numInputs()) - 1;
  if (numScan < 1 || numScan > numIn)
    return nc.error("num_scan_inputs " + llvm::Twine(numScan) + " does not fit " +
                    llvm::Twine(numIn) + " states and scan inputs");
  const ::onnx::AttributeProto *body = nc.attr("body");
  if (!body || !body->has_g())
    return nc.error("needs the graph attribute 'body'");
  SmallVector<Value> ins;
  int64_t batch = -1;
  for (int64_t i = 1; i <= numIn; ++i) {
    if (!nc.hasInput(i))
      return nc.error("input #" + llvm::Twine(i) + " is missing");
    auto v = nc.input(i);
    if (!v)
      return v.takeError();
    auto t = dyn_cast<RankedTensorType>(v->getType());
    if (!t || t.getRank() < 1 || t.isDynamicDim(0))
      return nc.error("input #" + llvm::Twine(i) +
                      " needs a batch dim (dim 0) known at compile time");
    if (batch >= 0 && t.getDimSize(0) != batch)
      return nc.error("input #" + llvm::Twine(i) + " has batch " +
                      llvm::Twine(t.getDimSize(0)) + ", the others " + llvm::Twine(batch));
    batch = t.getDimSize(0);
    ins.push_back(*v);
  }
  if (batch < 1 || batch > 64)
    return nc.error("batch " + llvm::Twine(batch) + " (1 to 64 rows, one Scan each)");
  unsigned numOut = nc.node.output_size();
  SmallVector<SmallVector<Value>> rows(numOut);
  for (int64_t row = 0; row < batch; ++row) {
    ::onnx::NodeProto scan;
    scan.set_op_type("Scan");
    scan.set_name(nc.node.name());
    for (Value v : ins) {
      auto picked = nc.build("Gather", {v, nc.constI64({row}, /*scalar=*/true)},
                             {namedI64(nc, "axis", 0)});
      if (!picked)
        return picked.takeError();
      std::string name = nc.freshName("scan8.in");
      if (Error e = nc.bindName(name, (*picked)->getResult(0)))
        return e;
      scan.add_input(name);
    }
    SmallVector<std::string> outNames;
    for (unsigned j = 0; j < numOut; ++j) {
      // An unused output stays unused.
      // (Distinct hints: the names are bound only when the Scan is built.)
      outNames.push_back(nc.node.output(j).empty()
                             ? std::string()
                             : nc.freshName(("scan8.out." + llvm::Twine(row) + "." +
                                             llvm::Twine(j)).str()));
      scan.add_output(outNames.back());
    }
    *scan.add_attribute() = *body;
    auto *n = scan.add_attribute();
    n->set_name("num_scan_inputs");
    n->set_type(::onnx::AttributeProto::INT);
    n->set_i(numScan);
    if (const ::onnx::AttributeProto *dirs = nc.attr("directions")) {
      auto *d = scan.add_attribute();
      *d = *dirs;
      d->set_name("scan_input_directions");
    }
    NodeContext sub(nc.importer, scan, nc.index, nc.opset, 16);
    if (Error e = sub.importGeneric())
      return e;
    for (unsigned j = 0; j < numOut; ++j) {
      if (outNames[j].empty())
        continue;
      auto v = nc.lookupName(outNames[j]);
      if (!v)
        return v.takeError();
      auto one = nc.build("Unsqueeze", {*v, nc.constI64({0})}, {});
      if (!one)
        return one.takeError();
      rows[j].push_back((*one)->getResult(0));
    }
  }
  for (unsigned j = 0; j < numOut; ++j) {
    if (rows[j].empty())
      continue;
    Value joined = rows[j].front();
    if (rows[j].size() > 1) {
      auto c = nc.build("Concat", rows[j], {namedI64(nc, "axis", 0)});
      if (!c)
        return c.takeError();
      joined = (*c)->getResult(0);
    }
    if (Error e = nc.setOutput(j, joined))
      return e;
  }
  return Error::success();
}

struct Handler {
  const char *opType;
  int fromSince; // Inclusive range of since-versions (or opsets for
  int toSince;   // replaced ops) the handler covers.
  NormalizeFn fn;
};

const Handler handlers[] = {
    {"Constant", 1, kMaxOpset, constant},
    {"Softmax", 1, 12, coercedSoftmax},
    {"LogSoftmax", 1, 12, coercedSoftmax},
    {"Hardmax", 1, 12, coercedSoftmax},
    // Reduce* of opset 18 and later take `axes` as an input, like the dialect.
    {"ReduceL1", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceL2", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceLogSum", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceLogSumExp", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceMax", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceMean", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceMin", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceProd", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceSumSquare", 1, kImplementedOpset, reduceAxesAttr},
    {"ReduceSum", 1, 12, reduceAxesAttr},
    {"Clip", 1, 10, clipAttrs},
    {"Split", 1, 12, splitAttr},
    {"Squeeze", 1, 12, axesAttrToInput},
    {"Unsqueeze", 1, 12, axesAttrToInput},
    {"Pad", 1, 10, padAttrs},
    {"Slice", 1, 9, sliceAttrs},
    {"TopK", 1, 9, topkAttr},
    {"Dropout", 1, 11, dropoutAttrs},
    {"BatchNormalization", 1, 13, batchNormLegacy},
    {"Upsample", 1, kMaxOpset, upsample},
    {"Resize", 10, 10, upsample},
    {"Resize", 11, 12, resize11},
    {"Scatter", 1, kMaxOpset, scatter},
    {"Concat", 1, 3, concatDefaultAxis},
    {"Gemm", 1, 6, gemmLegacy},
    {"Scan", 8, 8, scan8},
    {"PRelu", 1, 6, preluChannelSlope},
    {"Add", 1, 6, legacyBroadcast},
    {"Sub", 1, 6, legacyBroadcast},
    {"Mul", 1, 6, legacyBroadcast},
    {"Div", 1, 6, legacyBroadcast},
    {"Pow", 1, 6, legacyBroadcast},
    {"And", 1, 6, legacyBroadcast},
    {"Or", 1, 6, legacyBroadcast},
    {"Xor", 1, 6, legacyBroadcast},
    {"Equal", 1, 6, legacyBroadcast},
    {"Greater", 1, 6, legacyBroadcast},
    {"Less", 1, 6, legacyBroadcast},
    // Versions after the implemented one (opset 18 and later).
    {"Split", 18, kMaxOpset, split18},
    {"Pad", 18, kMaxOpset, pad18},
    {"AveragePool", 19, kMaxOpset, averagePool19},
    {"LpPool", 18, kMaxOpset, lpPool18},
    {"Cast", 19, kMaxOpset, cast19},
    {"CastLike", 19, kMaxOpset, castLike19},
    {"QuantizeLinear", 19, kMaxOpset, quantize19},
    {"DequantizeLinear", 21, kMaxOpset, dequantize21},
    {"ScatterElements", 18, kMaxOpset, scatterReduction18},
    {"ScatterND", 18, kMaxOpset, scatterReduction18},
    {"Resize", 18, kMaxOpset, resize18},
    {"Range", 27, kMaxOpset, range27},
    {"GridSample", 20, kMaxOpset, gridSample20},
    {"DFT", 20, kMaxOpset, dft20},
    {"DeformConv", 19, kMaxOpset, deformConv19},
    {"Col2Im", 18, kMaxOpset, col2im18},
    {"AffineGrid", 20, kMaxOpset, affineGrid20},
    {"OptionalHasElement", 18, kMaxOpset, optionalHasElement18},
    // Ops new in opsets 18 to 28 that an op of the dialect implements (by
    // opset, as they have no schema in the table).
    {"Gelu", 20, kMaxOpset, gelu20},
    {"GroupNormalization", 18, kMaxOpset, groupNormalization18},
    {"CenterCropPad", 18, kMaxOpset, centerCropPad18},
    {"ImageDecoder", 20, kMaxOpset, imageDecoder20},
    {"Attention", 23, kMaxOpset, attention23},
    {"RMSNormalization", 23, kMaxOpset, rmsNormalization23},
    {"RotaryEmbedding", 23, kMaxOpset, rotaryEmbedding23},
    {"CausalConvWithState", 27, kMaxOpset, causalConvWithState27},
    {"LinearAttention", 27, kMaxOpset, linearAttention27},
};

} // namespace

NormalizeFn lookupNormalization(StringRef opType, int sinceVersion) {
  for (const Handler &h : handlers)
    if (opType == h.opType && sinceVersion >= h.fromSince && sinceVersion <= h.toSince)
      return h.fn;
  return nullptr;
}

} // namespace onnxcc::importer
