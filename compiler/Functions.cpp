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

} // namespace onnxcc::importer
