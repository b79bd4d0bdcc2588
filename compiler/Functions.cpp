//===- Functions.cpp - Model-local and schema functions, inlined at import -===//
#include "compiler/Functions.h"
#include "compiler/Errors.h"
#include "compiler/ImporterImpl.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

#include <mutex>
#include <string_view>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc::importer {

namespace {
/// "" and "ai.onnx" are the same domain.
std::string canonicalDomain(StringRef domain) {
  return domain == "ai.onnx" ? std::string() : domain.str();
}
} // namespace

std::string functionLabel(const ::onnx::FunctionProto &fn) {
  std::string label = (fn.domain().empty() ? std::string("ai.onnx") : fn.domain()) + ":" +
                      fn.name();
  if (!fn.overload().empty())
    label += ":" + fn.overload();
  return label;
}

Error FunctionLibrary::add(const ::onnx::ModelProto &model) {
  for (const ::onnx::FunctionProto &fn : model.functions()) {
    if (fn.name().empty())
      return makeError("a model-local function has no name");
    auto key = std::make_tuple(canonicalDomain(fn.domain()), fn.name(), fn.overload());
    if (!functions.emplace(key, &fn).second)
      return makeError("model-local function " + functionLabel(fn) + " is defined twice");
  }
  return Error::success();
}

const ::onnx::FunctionProto *FunctionLibrary::find(const ::onnx::NodeProto &node) const {
  auto it = functions.find(
      std::make_tuple(canonicalDomain(node.domain()), node.op_type(), node.overload()));
  return it == functions.end() ? nullptr : it->second;
}

bool FunctionLibrary::hasDomain(StringRef domain) const {
  std::string d = canonicalDomain(domain);
  for (const auto &entry : functions)
    if (std::get<0>(entry.first) == d)
      return true;
  return false;
}

namespace {
struct Instantiator {
  const ::onnx::FunctionProto &fn;
  /// Attribute values by the function's attribute name: the call's, else the
  /// function's defaults.
  llvm::StringMap<const ::onnx::AttributeProto *> values;
  /// Formal inputs the call leaves out: their uses read as absent inputs.
  llvm::StringSet<> absent;

  Error rewriteGraph(::onnx::GraphProto &graph, StringRef prefix) {
    for (int i = 0; i < graph.node_size(); ++i) {
      ::onnx::NodeProto &node = *graph.mutable_node(i);
      std::string inner = node.name().empty() ? node.op_type() + "_" + std::to_string(i)
                                              : node.name();
      node.set_name((prefix + "/" + inner).str());
      for (std::string &in : *node.mutable_input())
        if (absent.contains(in))
          in.clear();
      if (Error e = rewriteAttributes(node, prefix))
        return e;
    }
    return Error::success();
  }

  Error rewriteAttributes(::onnx::NodeProto &node, StringRef prefix) {
    google::protobuf::RepeatedPtrField<::onnx::AttributeProto> resolved;
    for (const ::onnx::AttributeProto &a : node.attribute()) {
      if (a.ref_attr_name().empty()) {
        ::onnx::AttributeProto &copy = *resolved.Add();
        copy = a;
        if (copy.has_g())
          if (Error e = rewriteGraph(*copy.mutable_g(), node.name()))
            return e;
        for (::onnx::GraphProto &g : *copy.mutable_graphs())
          if (Error e = rewriteGraph(g, node.name()))
            return e;
        continue;
      }
      auto it = values.find(a.ref_attr_name());
      if (it == values.end()) {
        // Neither the call nor the function gives it: the node's own default.
        if (!llvm::is_contained(fn.attribute(), a.ref_attr_name()) &&
            !llvm::any_of(fn.attribute_proto(), [&](const ::onnx::AttributeProto &d) {
              return d.name() == a.ref_attr_name();
            }))
          return makeError("function " + functionLabel(fn) + ": node '" + node.name() +
                           "' refers to attribute '" + a.ref_attr_name() +
                           "', which the function does not declare");
        continue;
      }
      const ::onnx::AttributeProto &value = *it->second;
      if (a.type() != ::onnx::AttributeProto::UNDEFINED &&
          value.type() != ::onnx::AttributeProto::UNDEFINED && a.type() != value.type())
        return makeError("function " + functionLabel(fn) + ": attribute '" +
                         a.ref_attr_name() + "' is given as " +
                         ::onnx::AttributeProto::AttributeType_Name(value.type()) +
                         " where node '" + node.name() + "' needs " +
                         ::onnx::AttributeProto::AttributeType_Name(a.type()));
      ::onnx::AttributeProto &copy = *resolved.Add();
      copy = value;
      copy.set_name(a.name());
      copy.clear_ref_attr_name();
      if (copy.type() == ::onnx::AttributeProto::UNDEFINED)
        copy.set_type(a.type());
    }
    node.mutable_attribute()->Swap(&resolved);
    return Error::success();
  }
};
} // namespace

Expected<std::unique_ptr<FunctionInstance>>
instantiateFunction(const ::onnx::FunctionProto &fn, const ::onnx::NodeProto &call,
                    const llvm::StringMap<int64_t> &callerOpsets, StringRef prefix) {
  std::string label = functionLabel(fn);
  if (call.input_size() > fn.input_size())
    return makeError("has " + Twine(call.input_size()) + " inputs, function " + label +
                     " takes " + Twine(fn.input_size()));
  if (call.output_size() > fn.output_size())
    return makeError("has " + Twine(call.output_size()) + " outputs, function " + label +
                     " has " + Twine(fn.output_size()));

  Instantiator inst{fn, {}, {}};
  llvm::StringSet<> declared;
  for (const std::string &name : fn.attribute())
    declared.insert(name);
  for (const ::onnx::AttributeProto &d : fn.attribute_proto()) {
    declared.insert(d.name());
    inst.values[d.name()] = &d;
  }
  llvm::StringSet<> given;
  for (const ::onnx::AttributeProto &a : call.attribute()) {
    if (!given.insert(a.name()).second)
      return makeError("attribute '" + a.name() + "' is given twice");
    if (!declared.contains(a.name()))
      return makeError("attribute '" + a.name() + "' is not an attribute of function " +
                       label);
    if (!a.ref_attr_name().empty())
      return makeError("attribute '" + a.name() + "' refers to '" + a.ref_attr_name() +
                       "' outside a function");
    inst.values[a.name()] = &a;
  }

  auto instance = std::make_unique<FunctionInstance>();
  ::onnx::GraphProto &body = instance->body;
  body.set_name(label);
  llvm::StringSet<> formals;
  for (int i = 0; i < fn.input_size(); ++i) {
    if (fn.input(i).empty() || !formals.insert(fn.input(i)).second)
      return makeError("function " + label + " has an empty or repeated input name '" +
                       fn.input(i) + "'");
    body.add_input()->set_name(fn.input(i));
    if (i >= call.input_size() || call.input(i).empty())
      inst.absent.insert(fn.input(i));
  }
  for (const std::string &out : fn.output())
    body.add_output()->set_name(out);
  *body.mutable_node() = fn.node();
  *body.mutable_value_info() = fn.value_info();
  if (Error e = inst.rewriteGraph(body, prefix))
    return std::move(e);

  instance->opsets = callerOpsets;
  for (const ::onnx::OperatorSetIdProto &o : fn.opset_import()) {
    std::string domain = canonicalDomain(o.domain());
    if (domain.empty() && (o.version() < 1 || o.version() > kMaxOpset))
      return makeError("function " + label + " imports opset " + Twine(o.version()) +
                       " of ai.onnx; onnxcc supports 1 to " + Twine(kMaxOpset));
    instance->opsets[domain] = o.version();
  }
  return std::move(instance);
}

//===----------------------------------------------------------------------===//
// Schema functions
//===----------------------------------------------------------------------===//

namespace {
struct SchemaFunctionEntry {
  const char *opType;
  int schemaSince;
  int functionOpset;
  std::string_view bytes;
};

const SchemaFunctionEntry kSchemaFunctions[] = {
#define SCHEMA_FUNCTION(OP, SINCE, FOPSET, BYTES)                              \
  {OP, SINCE, FOPSET, std::string_view(BYTES, sizeof(BYTES) - 1)},
#include "compiler/SchemaFunctions.gen.inc"
#undef SCHEMA_FUNCTION
};
} // namespace

const ::onnx::FunctionProto *lookupSchemaFunction(StringRef opType, int64_t opset) {
  // The schema version active at `opset`, then its newest body usable there.
  int active = 0;
  for (const SchemaFunctionEntry &e : kSchemaFunctions)
    if (opType == e.opType && e.schemaSince <= opset)
      active = std::max(active, e.schemaSince);
  const SchemaFunctionEntry *best = nullptr;
  for (const SchemaFunctionEntry &e : kSchemaFunctions)
    if (opType == e.opType && e.schemaSince == active && e.functionOpset > 0 &&
        e.functionOpset <= opset && (!best || e.functionOpset > best->functionOpset))
      best = &e;
  if (!best)
    return nullptr;
  // Parsed once; the table is read-only data of the binary.
  static std::mutex mutex;
  static llvm::StringMap<std::unique_ptr<::onnx::FunctionProto>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = (Twine(best->opType) + "@" + Twine(best->schemaSince) + "@" +
                     Twine(best->functionOpset))
                        .str();
  auto &slot = cache[key];
  if (!slot) {
    auto fn = std::make_unique<::onnx::FunctionProto>();
    if (!fn->ParseFromArray(best->bytes.data(), static_cast<int>(best->bytes.size())))
      return nullptr;
    slot = std::move(fn);
  }
  return slot.get();
}

//===----------------------------------------------------------------------===//
// FlexAttention (ai.onnx.preview 1)
//===----------------------------------------------------------------------===//
//
// Y = prob_mod(Softmax(score_mod(Cast<P>(Q' K'^T)))) V, where Q' = Q * sqrt(s)
// and K' = K * sqrt(s) (s = `scale`, default 1/sqrt(head_size)), K and V's
// heads repeated Hq/Hkv times each (group query attention), P the
// softmax_precision (default float, double for double Q). With P other than
// Q's type, V is cast to P and Y back to Q's type. This is ONNX's own
// expansion of the op, written out here.

namespace {
struct BodyBuilder {
  ::onnx::FunctionProto &fn;
  int counter = 0;

  ::onnx::NodeProto &node(StringRef op, std::initializer_list<std::string> ins,
                          const std::string &out) {
    ::onnx::NodeProto &n = *fn.add_node();
    n.set_op_type(op.str());
    n.set_name("fa_" + std::to_string(counter++) + "_" + op.str());
    for (const std::string &in : ins)
      n.add_input(in);
    n.add_output(out);
    return n;
  }
  static void intAttr(::onnx::NodeProto &n, StringRef name, int64_t v) {
    ::onnx::AttributeProto &a = *n.add_attribute();
    a.set_name(name.str());
    a.set_type(::onnx::AttributeProto::INT);
    a.set_i(v);
  }
  static void intsAttr(::onnx::NodeProto &n, StringRef name, llvm::ArrayRef<int64_t> v) {
    ::onnx::AttributeProto &a = *n.add_attribute();
    a.set_name(name.str());
    a.set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v)
      a.add_ints(x);
  }
  /// A Constant node of a 1-D int64 or a float scalar tensor.
  std::string ints(const std::string &out, llvm::ArrayRef<int64_t> v) {
    ::onnx::NodeProto &n = node("Constant", {}, out);
    ::onnx::AttributeProto &a = *n.add_attribute();
    a.set_name("value");
    a.set_type(::onnx::AttributeProto::TENSOR);
    ::onnx::TensorProto &t = *a.mutable_t();
    t.set_data_type(::onnx::TensorProto::INT64);
    t.add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v)
      t.add_int64_data(x);
    return out;
  }
  std::string floatScalar(const std::string &out, float v) {
    ::onnx::NodeProto &n = node("Constant", {}, out);
    ::onnx::AttributeProto &a = *n.add_attribute();
    a.set_name("value");
    a.set_type(::onnx::AttributeProto::TENSOR);
    ::onnx::TensorProto &t = *a.mutable_t();
    t.set_data_type(::onnx::TensorProto::FLOAT);
    t.add_float_data(v);
    return out;
  }
  std::string shape(const std::string &out, const std::string &in, int64_t start, int64_t end) {
    ::onnx::NodeProto &n = node("Shape", {in}, out);
    intAttr(n, "start", start);
    intAttr(n, "end", end);
    return out;
  }
  std::string cast(const std::string &out, const std::string &in, int64_t to) {
    intAttr(node("Cast", {in}, out), "to", to);
    return out;
  }

  /// Inlines `g` (one input, one output) reading `input`; returns the name
  /// of its result. Its values are renamed under `prefix`; initializers
  /// become Constant nodes.
  Expected<std::string> inlineGraph(const ::onnx::GraphProto &g, StringRef attr,
                                    const std::string &input) {
    if (g.input_size() != 1 || g.output_size() != 1)
      return makeError("FlexAttention's " + attr + " graph must have one input and one output");
    std::string prefix = ("fa_" + attr + "/").str();
    llvm::StringMap<std::string> renamed;
    renamed[g.input(0).name()] = input;
    for (const ::onnx::TensorProto &init : g.initializer()) {
      std::string name = prefix + init.name();
      ::onnx::NodeProto &n = node("Constant", {}, name);
      ::onnx::AttributeProto &a = *n.add_attribute();
      a.set_name("value");
      a.set_type(::onnx::AttributeProto::TENSOR);
      *a.mutable_t() = init;
      a.mutable_t()->clear_name();
      renamed[init.name()] = name;
    }
    for (const ::onnx::NodeProto &inner : g.node()) {
      ::onnx::NodeProto &n = *fn.add_node();
      n = inner;
      n.set_name(prefix + (inner.name().empty() ? inner.op_type() + "_" +
                                                      std::to_string(counter++)
                                                : inner.name()));
      for (std::string &in : *n.mutable_input()) {
        if (in.empty())
          continue;
        auto it = renamed.find(in);
        if (it == renamed.end())
          return makeError("FlexAttention's " + attr + " graph reads '" + in +
                           "', which it does not define (values of the enclosing graph "
                           "are not supported there)");
        in = it->second;
      }
      for (std::string &out : *n.mutable_output())
        if (!out.empty())
          out = renamed[out] = prefix + out;
    }
    auto it = renamed.find(g.output(0).name());
    if (it == renamed.end())
      return makeError("FlexAttention's " + attr + " graph does not compute its output '" +
                       g.output(0).name() + "'");
    return it->second;
  }
};
} // namespace

Expected<std::unique_ptr<::onnx::FunctionProto>>
flexAttentionFunction(const ::onnx::NodeProto &call, int32_t qElemType) {
  auto fn = std::make_unique<::onnx::FunctionProto>();
  fn->set_name("FlexAttention");
  fn->set_domain("ai.onnx.preview");
  for (const char *name : {"Q", "K", "V"})
    fn->add_input(name);
  fn->add_output("Y");
  for (const char *name : {"scale", "softmax_precision", "score_mod", "prob_mod"})
    fn->add_attribute(name);
  ::onnx::OperatorSetIdProto &opset = *fn->add_opset_import();
  opset.set_domain("");
  opset.set_version(23);

  const ::onnx::AttributeProto *scale = nullptr, *precision = nullptr, *scoreMod = nullptr,
                               *probMod = nullptr;
  for (const ::onnx::AttributeProto &a : call.attribute()) {
    if (a.name() == "scale")
      scale = &a;
    else if (a.name() == "softmax_precision")
      precision = &a;
    else if (a.name() == "score_mod")
      scoreMod = &a;
    else if (a.name() == "prob_mod")
      probMod = &a;
  }
  if ((scoreMod && !scoreMod->has_g()) || (probMod && !probMod->has_g()))
    return makeError("FlexAttention's score_mod and prob_mod must be graphs");
  if (qElemType != ::onnx::TensorProto::FLOAT && qElemType != ::onnx::TensorProto::FLOAT16 &&
      qElemType != ::onnx::TensorProto::BFLOAT16 && qElemType != ::onnx::TensorProto::DOUBLE)
    return makeError("FlexAttention's Q must be float16, bfloat16, float or double");
  int64_t p = precision ? precision->i()
                        : (qElemType == ::onnx::TensorProto::DOUBLE ? ::onnx::TensorProto::DOUBLE
                                                                     : ::onnx::TensorProto::FLOAT);
  if (p != ::onnx::TensorProto::FLOAT && p != ::onnx::TensorProto::FLOAT16 &&
      p != ::onnx::TensorProto::BFLOAT16 && p != ::onnx::TensorProto::DOUBLE)
    return makeError("FlexAttention's softmax_precision " + Twine(p) +
                     " is not a float type (1, 10, 11 or 16)");

  BodyBuilder b{*fn};
  // K and V with their heads repeated to Q's: [B, Hkv, S, D] ->
  // [B, Hkv, Hq/Hkv, S, D] -> [B, Hq, S, D].
  std::string batch = b.shape("fa_B", "Q", 0, 1);
  std::string qHeads = b.shape("fa_Hq", "Q", 1, 2);
  std::string kvHeads = b.shape("fa_Hkv", "K", 1, 2);
  std::string kvLen = b.shape("fa_S", "K", 2, 3);
  std::string repeat = "fa_Repeat";
  b.node("Div", {qHeads, kvHeads}, repeat);
  std::string axis2 = b.ints("fa_Axis2", {2});
  auto align = [&](const std::string &x) {
    std::string d = b.shape("fa_" + x + "D", x, 3, 4);
    b.node("Unsqueeze", {x, axis2}, "fa_" + x + "U");
    BodyBuilder::intAttr(
        b.node("Concat", {batch, kvHeads, repeat, kvLen, d}, "fa_" + x + "ExpandShape"), "axis",
        0);
    b.node("Expand", {"fa_" + x + "U", "fa_" + x + "ExpandShape"}, "fa_" + x + "E");
    BodyBuilder::intAttr(
        b.node("Concat", {batch, qHeads, kvLen, d}, "fa_" + x + "AlignedShape"), "axis", 0);
    b.node("Reshape", {"fa_" + x + "E", "fa_" + x + "AlignedShape"}, "fa_" + x + "A");
    return "fa_" + x + "A";
  };
  std::string k = align("K"), v = align("V");

  // sqrt(scale) on each side, in Q's type.
  std::string scaleF;
  if (scale) {
    scaleF = b.floatScalar("fa_Scale", scale->f());
  } else {
    std::string d = b.cast("fa_DF", b.shape("fa_QD", "Q", 3, 4), ::onnx::TensorProto::FLOAT);
    b.node("Sqrt", {d}, "fa_SqrtD");
    b.node("Div", {b.floatScalar("fa_One", 1.0f), "fa_SqrtD"}, "fa_Scale");
    scaleF = "fa_Scale";
  }
  b.node("Sqrt", {scaleF}, "fa_ScaleSqrtF");
  std::string scaleSqrt = b.cast("fa_ScaleSqrt", "fa_ScaleSqrtF", qElemType);
  b.node("Mul", {"Q", scaleSqrt}, "fa_QScaled");
  b.node("Mul", {k, scaleSqrt}, "fa_KScaled");
  BodyBuilder::intsAttr(b.node("Transpose", {"fa_KScaled"}, "fa_KT"), "perm", {0, 1, 3, 2});
  b.node("MatMul", {"fa_QScaled", "fa_KT"}, "fa_Score");
  std::string scores = b.cast("fa_ScoreP", "fa_Score", p);
  if (scoreMod) {
    auto out = b.inlineGraph(scoreMod->g(), "score_mod", scores);
    if (!out)
      return out.takeError();
    scores = *out;
  }
  BodyBuilder::intAttr(b.node("Softmax", {scores}, "fa_Prob"), "axis", -1);
  std::string probs = "fa_Prob";
  if (probMod) {
    auto out = b.inlineGraph(probMod->g(), "prob_mod", probs);
    if (!out)
      return out.takeError();
    probs = *out;
  }
  if (p == qElemType) {
    b.node("MatMul", {probs, v}, "Y");
  } else {
    b.node("MatMul", {probs, b.cast("fa_VP", v, p)}, "fa_YP");
    b.cast("Y", "fa_YP", qElemType);
  }
  return std::move(fn);
}

} // namespace onnxcc::importer
