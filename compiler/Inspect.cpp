//===- Inspect.cpp - Facts about an ONNX model, without MLIR --------------===//
#include "compiler/Inspect.h"
#include "codegen/SourceText.h"
#include "compiler/Errors.h"

#include "onnx.pb.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <iterator>

using namespace llvm;

namespace onnxcc {

namespace {
/// What one element of a TensorProto data type occupies. Sizes are in bits
/// because the 4-bit types pack two elements per byte.
struct DataTypeInfo {
  const char *name;
  unsigned bits;
};

/// Indexed by TensorProto::DataType. Numbers past BFLOAT16 come from newer
/// ONNX releases than the schema we compile; models that use them still parse
/// (data_type is a plain int32), so they are named here too.
constexpr DataTypeInfo dataTypes[] = {
    {"undefined", 0},     {"float32", 32},        {"uint8", 8},
    {"int8", 8},          {"uint16", 16},         {"int16", 16},
    {"int32", 32},        {"int64", 64},          {"string", 0},
    {"bool", 8},          {"float16", 16},        {"float64", 64},
    {"uint32", 32},       {"uint64", 64},         {"complex64", 64},
    {"complex128", 128},  {"bfloat16", 16},       {"float8e4m3fn", 8},
    {"float8e4m3fnuz", 8}, {"float8e5m2", 8},     {"float8e5m2fnuz", 8},
    {"uint4", 4},         {"int4", 4},            {"float4e2m1", 4},
    {"float8e8m0", 8},    {"uint2", 2},           {"int2", 2},
};
constexpr int32_t stringType = 8;

const DataTypeInfo *lookupDataType(int32_t dataType) {
  if (dataType < 0 || static_cast<size_t>(dataType) >= std::size(dataTypes))
    return nullptr;
  return &dataTypes[dataType];
}

/// The name people know the default domain by; "" and "ai.onnx" are the same.
std::string getDomainName(const std::string &domain) {
  return domain.empty() ? std::string("ai.onnx") : domain;
}

std::string formatDim(const DimSummary &dim) {
  if (dim.value)
    return std::to_string(*dim.value);
  if (!dim.param.empty())
    return dim.param;
  return "?";
}

std::vector<DimSummary> summarizeShape(const ::onnx::TensorShapeProto &shape) {
  std::vector<DimSummary> dims;
  for (const auto &dim : shape.dim()) {
    DimSummary result;
    if (dim.has_dim_value())
      result.value = dim.dim_value();
    else if (dim.has_dim_param())
      result.param = dim.dim_param();
    dims.push_back(std::move(result));
  }
  return dims;
}

std::string formatTensorType(const std::string &dtype,
                             const std::optional<std::vector<DimSummary>> &shape) {
  if (!shape)
    return dtype + " (unranked)";
  std::string result = dtype + "[";
  for (size_t i = 0, e = shape->size(); i != e; ++i) {
    if (i)
      result += ", ";
    result += formatDim((*shape)[i]);
  }
  return result + "]";
}

/// The whole type as one string; nested types (sequence, map, optional)
/// print their element type the same way.
std::string formatType(const ::onnx::TypeProto &type) {
  switch (type.value_case()) {
  case ::onnx::TypeProto::kTensorType: {
    const auto &tensor = type.tensor_type();
    std::optional<std::vector<DimSummary>> shape;
    if (tensor.has_shape())
      shape = summarizeShape(tensor.shape());
    return formatTensorType(getDataTypeName(tensor.elem_type()), shape);
  }
  case ::onnx::TypeProto::kSparseTensorType: {
    const auto &tensor = type.sparse_tensor_type();
    std::optional<std::vector<DimSummary>> shape;
    if (tensor.has_shape())
      shape = summarizeShape(tensor.shape());
    return "sparse " + formatTensorType(getDataTypeName(tensor.elem_type()), shape);
  }
  case ::onnx::TypeProto::kSequenceType:
    return "sequence<" + formatType(type.sequence_type().elem_type()) + ">";
  case ::onnx::TypeProto::kOptionalType:
    return "optional<" + formatType(type.optional_type().elem_type()) + ">";
  case ::onnx::TypeProto::kMapType:
    return "map<" + getDataTypeName(type.map_type().key_type()) + ", " +
           formatType(type.map_type().value_type()) + ">";
  case ::onnx::TypeProto::VALUE_NOT_SET:
    break;
  }
  return "?";
}

ValueSummary summarizeValue(const ::onnx::ValueInfoProto &info) {
  ValueSummary value;
  value.name = info.name();
  value.type = formatType(info.type());
  if (info.type().value_case() != ::onnx::TypeProto::kTensorType)
    return value;
  const auto &tensor = info.type().tensor_type();
  value.isTensor = true;
  value.dtype = getDataTypeName(tensor.elem_type());
  if (tensor.has_shape())
    value.shape = summarizeShape(tensor.shape());
  return value;
}

/// Element count and byte size of one initializer, from its dims and data
/// type only, so that external data needs no reading.
Error addTensorSize(const ::onnx::TensorProto &tensor, uint64_t &elements,
                    uint64_t &bytes) {
  const std::string &name = tensor.name();
  uint64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0)
      return makeError("initializer '" + name + "' has a negative dimension " +
                       Twine(dim));
    auto product = checkedMulUnsigned<uint64_t>(count, static_cast<uint64_t>(dim));
    if (!product)
      return makeError("initializer '" + name +
                       "' has more elements than fit in 64 bits");
    count = *product;
  }
  const DataTypeInfo *info = lookupDataType(tensor.data_type());
  if (!info || tensor.data_type() == 0)
    return makeError("initializer '" + name + "' has unknown data type " +
                     Twine(tensor.data_type()));

  uint64_t size = 0;
  if (tensor.data_type() == stringType) {
    // Strings have no fixed size: count what is stored.
    for (const std::string &s : tensor.string_data())
      size += s.size();
  } else {
    auto bits = checkedMulUnsigned<uint64_t>(count, info->bits);
    if (!bits)
      return makeError("initializer '" + name +
                       "' has more bytes than fit in 64 bits");
    size = *bits / 8 + (*bits % 8 != 0);
  }
  auto newElements = checkedAddUnsigned(elements, count);
  auto newBytes = checkedAddUnsigned(bytes, size);
  if (!newElements || !newBytes)
    return makeError("the initializers hold more than 2^64 elements or bytes");
  elements = *newElements;
  bytes = *newBytes;
  return Error::success();
}

/// Walks a graph and, through node attributes, every subgraph in it.
Error summarizeGraph(const ::onnx::GraphProto &graph, ModelSummary &summary,
                     StringMap<uint64_t> &histogram) {
  for (const auto &tensor : graph.initializer()) {
    if (Error error = addTensorSize(tensor, summary.parameterCount,
                                    summary.parameterBytes))
      return error;
    ++summary.initializerCount;
  }
  for (const auto &sparse : graph.sparse_initializer()) {
    // A sparse initializer holds its stored values plus their indices.
    uint64_t ignoredElements = 0;
    if (Error error = addTensorSize(sparse.values(), summary.parameterCount,
                                    summary.parameterBytes))
      return error;
    if (Error error = addTensorSize(sparse.indices(), ignoredElements,
                                    summary.parameterBytes))
      return error;
    ++summary.initializerCount;
  }
  for (const auto &node : graph.node()) {
    ++summary.nodeCountWithSubgraphs;
    std::string op = node.domain().empty() || node.domain() == "ai.onnx"
                         ? node.op_type()
                         : node.domain() + ":" + node.op_type();
    ++histogram[op];
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        if (Error error = summarizeGraph(attr.g(), summary, histogram))
          return error;
      for (const auto &subgraph : attr.graphs())
        if (Error error = summarizeGraph(subgraph, summary, histogram))
          return error;
    }
  }
  return Error::success();
}

/// llvm::json insists on valid UTF-8; protobuf does not check proto2 strings.
json::Value jsonString(const std::string &s) {
  if (json::isUTF8(s))
    return s;
  return json::fixUTF8(s);
}

json::Value valueToJson(const ValueSummary &value) {
  json::Object result{{"name", jsonString(value.name)},
                      {"type", jsonString(value.type)}};
  if (!value.isTensor)
    return result;
  result["dtype"] = value.dtype;
  if (!value.shape) {
    result["shape"] = nullptr;
    return result;
  }
  json::Array dims;
  for (const DimSummary &dim : *value.shape) {
    if (dim.value)
      dims.push_back(*dim.value);
    else if (!dim.param.empty())
      dims.push_back(jsonString(dim.param));
    else
      dims.push_back(nullptr);
  }
  result["shape"] = std::move(dims);
  return result;
}

void printValues(StringRef title, const std::vector<ValueSummary> &values,
                 raw_ostream &os) {
  os << title << ": " << values.size() << "\n";
  // Names from the model, one line each whatever bytes they hold.
  std::vector<std::string> names;
  size_t width = 0;
  for (const ValueSummary &value : values) {
    names.push_back(codegen::displayText(value.name));
    width = std::max(width, names.back().size());
  }
  for (auto [value, name] : llvm::zip(values, names))
    os << "  " << left_justify(name, width) << "  " << codegen::displayText(value.type) << "\n";
}

} // namespace

std::string formatBytes(uint64_t bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double size = static_cast<double>(bytes);
  size_t unit = 0;
  while (size >= 1024.0 && unit + 1 < std::size(units)) {
    size /= 1024.0;
    ++unit;
  }
  if (unit == 0)
    return std::to_string(bytes) + " B";
  return formatv("{0:f1} {1}", size, units[unit]).str();
}

std::string getDataTypeName(int32_t dataType) {
  if (const DataTypeInfo *info = lookupDataType(dataType))
    return info->name;
  return "type" + std::to_string(dataType);
}

Expected<ModelSummary> summarizeModel(const ::onnx::ModelProto &model) {
  ModelSummary summary;
  summary.irVersion = model.ir_version();
  for (const auto &opset : model.opset_import())
    summary.opsets.emplace_back(getDomainName(opset.domain()), opset.version());
  llvm::sort(summary.opsets);
  summary.producerName = model.producer_name();
  summary.producerVersion = model.producer_version();

  const ::onnx::GraphProto &graph = model.graph();
  summary.graphName = graph.name();
  // Old exporters (IR < 4) list every initializer among the inputs too.
  StringSet<> initializerNames;
  for (const auto &tensor : graph.initializer())
    initializerNames.insert(tensor.name());
  for (const auto &sparse : graph.sparse_initializer())
    initializerNames.insert(sparse.values().name());
  for (const auto &input : graph.input())
    if (!initializerNames.contains(input.name()))
      summary.inputs.push_back(summarizeValue(input));
  for (const auto &output : graph.output())
    summary.outputs.push_back(summarizeValue(output));
  summary.nodeCount = graph.node_size();

  StringMap<uint64_t> histogram;
  if (Error error = summarizeGraph(graph, summary, histogram))
    return std::move(error);
  for (const auto &entry : histogram)
    summary.opHistogram.emplace_back(entry.getKey().str(), entry.getValue());
  for (const auto &function : model.functions()) {
    std::string label = getDomainName(function.domain()) + ":" + function.name();
    if (!function.overload().empty())
      label += ":" + function.overload();
    summary.functions.emplace_back(label, function.node_size());
  }
  // StringMap iterates in hash order; sort so the output never depends on it.
  llvm::sort(summary.opHistogram, [](const auto &a, const auto &b) {
    if (a.second != b.second)
      return a.second > b.second;
    return a.first < b.first;
  });
  return summary;
}

void printModelSummary(const ModelSummary &summary, raw_ostream &os) {
  os << "ir_version: " << summary.irVersion << "\n";
  os << "opsets:";
  if (summary.opsets.empty())
    os << " none";
  for (size_t i = 0, e = summary.opsets.size(); i != e; ++i)
    os << (i ? ", " : " ") << summary.opsets[i].first << " "
       << summary.opsets[i].second;
  os << "\n";
  os << "producer: "
     << (summary.producerName.empty() ? std::string("?")
                                      : codegen::displayText(summary.producerName));
  if (!summary.producerVersion.empty())
    os << " " << codegen::displayText(summary.producerVersion);
  os << "\n";
  os << "graph: " << codegen::displayText(summary.graphName) << "\n";
  printValues("inputs", summary.inputs, os);
  printValues("outputs", summary.outputs, os);
  os << "nodes: " << summary.nodeCount << " (" << summary.nodeCountWithSubgraphs
     << " with subgraphs)\n";
  os << "ops: " << summary.opHistogram.size() << "\n";
  size_t width = 0;
  for (const auto &entry : summary.opHistogram)
    width = std::max(width, codegen::displayText(entry.first).size());
  for (const auto &entry : summary.opHistogram)
    os << "  " << left_justify(codegen::displayText(entry.first), width) << "  " << entry.second
       << "\n";
  os << "parameters: " << summary.parameterCount << " in "
     << summary.initializerCount << " initializers, " << summary.parameterBytes
     << " bytes (" << formatBytes(summary.parameterBytes) << ")\n";
  if (summary.functions.empty())
    return;
  os << "functions: " << summary.functions.size() << " (inlined where called)\n";
  width = 0;
  for (const auto &entry : summary.functions)
    width = std::max(width, codegen::displayText(entry.first).size());
  for (const auto &entry : summary.functions)
    os << "  " << left_justify(codegen::displayText(entry.first), width) << "  "
       << entry.second << (entry.second == 1 ? " node" : " nodes") << "\n";
}

void printModelSummaryJson(const ModelSummary &summary, raw_ostream &os) {
  json::Object opsets;
  for (const auto &opset : summary.opsets)
    opsets[jsonString(opset.first).getAsString()->str()] = opset.second;
  json::Array inputs, outputs, ops;
  for (const ValueSummary &value : summary.inputs)
    inputs.push_back(valueToJson(value));
  for (const ValueSummary &value : summary.outputs)
    outputs.push_back(valueToJson(value));
  for (const auto &entry : summary.opHistogram)
    ops.push_back(json::Object{{"op", jsonString(entry.first)},
                               {"count", entry.second}});

  json::Object root{
      {"ir_version", summary.irVersion},
      {"opsets", std::move(opsets)},
      {"producer", json::Object{{"name", jsonString(summary.producerName)},
                                {"version", jsonString(summary.producerVersion)}}},
      {"graph", jsonString(summary.graphName)},
      {"inputs", std::move(inputs)},
      {"outputs", std::move(outputs)},
      {"nodes", summary.nodeCount},
      {"nodes_with_subgraphs", summary.nodeCountWithSubgraphs},
      {"ops", std::move(ops)},
      {"parameters", json::Object{{"count", summary.parameterCount},
                                  {"bytes", summary.parameterBytes},
                                  {"initializers", summary.initializerCount}}},
  };
  if (!summary.functions.empty()) {
    json::Array functions;
    for (const auto &entry : summary.functions)
      functions.push_back(json::Object{{"name", jsonString(entry.first)},
                                       {"nodes", entry.second}});
    root["functions"] = std::move(functions);
  }
  os << formatv("{0:2}", json::Value(std::move(root))) << "\n";
}

} // namespace onnxcc
