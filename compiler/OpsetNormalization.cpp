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

#include "dialects/onnx/OnnxOps.h"

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
  auto op = nc.build(opType, operands, attrs, numResults);
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
  if (nc.node.output_size() > 1 && !nc.node.output(1).empty() && nc.sinceVersion < 10)
    return nc.error("the mask output of Dropout before opset 10 is not supported");
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  Value ratio = nc.constScalar(nc.builder().getF32Type(), nc.floatAttr("ratio", 0.5f));
  return emit(nc, "Dropout", {*x, ratio, nc.noValue()}, {}, 2);
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

/// Resize 11 had a required roi and an extra coordinate mode; otherwise as 13.
Error resize11(NodeContext &nc) {
  if (nc.stringAttr("coordinate_transformation_mode", "") == "tf_half_pixel_for_nn")
    return nc.error("coordinate_transformation_mode 'tf_half_pixel_for_nn' is not supported");
  return nc.importGeneric();
}

/// The refusal of a newer version of an op whose new feature the node uses.
Error unsupportedVersion(NodeContext &nc, const llvm::Twine &feature) {
  const OpSchemaInfo *schema = lookupSchema(nc.node.op_type());
  return nc.error("the opset " + llvm::Twine(nc.sinceVersion) + " version of " +
                  nc.node.op_type() + " is not supported " + feature +
                  " (it differs from opset " + llvm::Twine(schema ? schema->latestSince : 0) +
                  ", the version onnxcc implements)");
}

/// Split 18 adds `num_outputs`; without it, it is Split 13.
Error split18(NodeContext &nc) {
  if (nc.attr("num_outputs"))
    return unsupportedVersion(nc, "with attribute 'num_outputs'");
  return nc.importGeneric();
}

/// Pad 18 adds the `axes` input, Pad 19 the mode 'wrap'; without them, it is Pad 13.
Error pad18(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"mode"}))
    return e;
  if (nc.hasInput(3))
    return unsupportedVersion(nc, "with the 'axes' input");
  std::string mode = nc.stringAttr("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return unsupportedVersion(nc, "with mode '" + mode + "'");
  if (nc.numInputs() > 4)
    return nc.error("has " + llvm::Twine(nc.numInputs()) +
                    " inputs, the operator takes at most 4");
  auto in = inputs(nc, 3);
  if (!in)
    return in.takeError();
  SmallVector<NamedAttribute> attrs;
  if (nc.attr("mode"))
    attrs.push_back(namedStr(nc, "mode", mode));
  return emit(nc, "Pad", *in, attrs);
}

bool allOnes(const std::optional<SmallVector<int64_t>> &v) {
  return !v || llvm::all_of(*v, [](int64_t x) { return x == 1; });
}

/// AveragePool 19 adds `dilations`; with all of them 1, it is AveragePool 11.
Error averagePool19(NodeContext &nc) {
  if (!allOnes(nc.intsAttr("dilations")))
    return unsupportedVersion(nc, "with dilations other than 1");
  return nc.importGeneric({"dilations"});
}

/// LpPool 18 adds `ceil_mode` and `dilations`; with ceil_mode 0 and all
/// dilations 1, it is LpPool 11.
Error lpPool18(NodeContext &nc) {
  if (nc.intAttr("ceil_mode", 0) != 0)
    return unsupportedVersion(nc, "with ceil_mode 1");
  if (!allOnes(nc.intsAttr("dilations")))
    return unsupportedVersion(nc, "with dilations other than 1");
  return nc.importGeneric({"ceil_mode", "dilations"});
}

/// Cast 19 adds `saturate` and Cast 24 `round_mode`, which only concern the
/// float8 and float4 element types (ONNX types 17 and up); to the types Cast 13
/// knows, it is Cast 13.
Error cast19(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"to", "saturate", "round_mode"}))
    return e;
  if (const auto *to = nc.attr("to")) {
    int64_t t = to->i();
    bool known = (t >= 1 && t <= 13) || t == 16; // FLOAT .. UINT64, BFLOAT16
    if (!known)
      return unsupportedVersion(nc, "with target type " + llvm::Twine(t));
  }
  return nc.importGeneric({"saturate", "round_mode"});
}

/// CastLike 19 adds `saturate` and CastLike 24 `round_mode` (float8 and float4
/// targets only, which the importer does not read): it is CastLike 15.
Error castLike19(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"saturate", "round_mode"}))
    return e;
  if (nc.hasInput(1)) {
    auto target = nc.input(1);
    if (!target)
      return target.takeError();
    Type elem = elementTypeOf(*target);
    if (auto f = dyn_cast_or_null<FloatType>(elem); f && f.getWidth() < 16)
      return unsupportedVersion(nc, "with a float8 or float4 target");
  }
  return nc.importGeneric({"saturate", "round_mode"});
}

/// QuantizeLinear 19 adds `saturate` (float8 outputs only), 21 `block_size`
/// and `output_dtype`, 23 `precision`; unused, it is QuantizeLinear 13.
Error quantize19(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis", "saturate", "block_size", "output_dtype",
                                    "precision"}))
    return e;
  for (StringRef a : {"block_size", "output_dtype", "precision"})
    if (nc.intAttr(a, 0) != 0)
      return unsupportedVersion(nc, "with attribute '" + a + "'");
  return nc.importGeneric({"saturate", "block_size", "output_dtype", "precision"});
}

/// DequantizeLinear 21 adds `block_size`, 23 `output_dtype`; unused, it is
/// DequantizeLinear 13.
Error dequantize21(NodeContext &nc) {
  if (Error e = onlyAttributes(nc, {"axis", "block_size", "output_dtype"}))
    return e;
  for (StringRef a : {"block_size", "output_dtype"})
    if (nc.intAttr(a, 0) != 0)
      return unsupportedVersion(nc, "with attribute '" + a + "'");
  return nc.importGeneric({"block_size", "output_dtype"});
}

/// ScatterElements 18 and ScatterND 18 add the reductions 'max' and 'min';
/// with 'none', 'add' or 'mul', they are the opset-16 versions.
Error scatterReduction18(NodeContext &nc) {
  std::string reduction = nc.stringAttr("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul")
    return unsupportedVersion(nc, "with reduction '" + reduction + "'");
  return nc.importGeneric();
}

/// Resize 18 adds `antialias`, `axes` and `keep_aspect_ratio_policy`, Resize
/// 19 the coordinate mode 'half_pixel_symmetric'; unused, it is Resize 13.
Error resize18(NodeContext &nc) {
  if (nc.intAttr("antialias", 0) != 0)
    return unsupportedVersion(nc, "with antialias 1");
  if (nc.attr("axes"))
    return unsupportedVersion(nc, "with attribute 'axes'");
  std::string policy = nc.stringAttr("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch")
    return unsupportedVersion(nc, "with keep_aspect_ratio_policy '" + policy + "'");
  std::string coords = nc.stringAttr("coordinate_transformation_mode", "half_pixel");
  if (coords == "half_pixel_symmetric")
    return unsupportedVersion(nc, "with coordinate_transformation_mode '" + coords + "'");
  return nc.importGeneric({"antialias", "keep_aspect_ratio_policy"});
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
    // Ops new in opsets 18 to 28 that an op of the dialect implements (by
    // opset, as they have no schema in the table).
    {"Gelu", 20, kMaxOpset, gelu20},
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
