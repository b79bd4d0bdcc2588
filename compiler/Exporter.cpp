//===- Exporter.cpp - The onnx dialect back to an ONNX ModelProto ---------===//
//
// The inverse of the importer for graphs after the graph passes: one node per
// op, named values, initializers for constants. onnxcc's own ops either stay
// nodes of domain ai.onnxcc or are written as the standard nodes they stand
// for (FusedConv as Conv, Add, Relu; ScaledDotProductAttention as
// Transpose, MatMul, Mul, Add, Softmax, MatMul; ...).
//
//===----------------------------------------------------------------------===//
#include "compiler/Exporter.h"
#include "compiler/Errors.h"

#include "compiler/ImporterImpl.h"
#include "dialects/onnx/OnnxDialect.h"
#include "dialects/onnx/OnnxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx.pb.h"

using namespace mlir;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc {
namespace {

/// The opset every op of the dialect has the form of (Reduce* aside).
constexpr int64_t kBaseOpset = importer::kImplementedOpset;

/// `v` as MLIR prints it.
template <typename T>
std::string printed(T v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v;
  return s;
}

/// The TensorProto data type of an element type, or 0 (UNDEFINED).
int dataTypeOf(Type t) {
  using TP = ::onnx::TensorProto;
  if (t.isF32()) return TP::FLOAT;
  if (t.isF64()) return TP::DOUBLE;
  if (t.isF16()) return TP::FLOAT16;
  if (t.isBF16()) return TP::BFLOAT16;
  if (t.isInteger(1)) return TP::BOOL;
  if (isa<onnx::StringType>(t)) return TP::STRING;
  // The types of ONNX 1.14 to 1.20, newer than the onnx.proto compiled here.
  if (isa<Float8E4M3FNType>(t)) return importer::kFloat8E4M3FN;
  if (isa<Float8E4M3FNUZType>(t)) return importer::kFloat8E4M3FNUZ;
  if (isa<Float8E5M2Type>(t)) return importer::kFloat8E5M2;
  if (isa<Float8E5M2FNUZType>(t)) return importer::kFloat8E5M2FNUZ;
  if (isa<Float4E2M1FNType>(t)) return importer::kFloat4E2M1;
  if (isa<Float8E8M0FNUType>(t)) return importer::kFloat8E8M0;
  if (auto c = dyn_cast<ComplexType>(t)) {
    if (c.getElementType().isF32()) return TP::COMPLEX64;
    if (c.getElementType().isF64()) return TP::COMPLEX128;
    return TP::UNDEFINED;
  }
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 2: return u ? importer::kUInt2 : importer::kInt2;
    case 4: return u ? importer::kUInt4 : importer::kInt4;
    case 8: return u ? TP::UINT8 : TP::INT8;
    case 16: return u ? TP::UINT16 : TP::INT16;
    case 32: return u ? TP::UINT32 : TP::INT32;
    case 64: return u ? TP::UINT64 : TP::INT64;
    default: return TP::UNDEFINED;
    }
  }
  return TP::UNDEFINED;
}

/// The first ai.onnx opset whose operators take element type `t` (IR 9 the
/// float8 types, IR 10 int4, IR 11 float4, IR 12 float8 E8M0, IR 13 int2):
/// 17 for the types every opset-17 model may have.
int64_t typeOpset(Type t) {
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.getWidth() == 2)
      return 25;
    if (i.getWidth() == 4)
      return 21;
  }
  if (isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type, Float8E5M2FNUZType>(t))
    return 19;
  if (isa<Float4E2M1FNType>(t))
    return 23;
  if (isa<Float8E8M0FNUType>(t))
    return 24;
  return kBaseOpset;
}

/// The IR version of the ONNX release that introduced ai.onnx opset `opset`.
int64_t irVersionOf(int64_t opset) {
  if (opset <= 18)
    return 8;
  if (opset <= 20)
    return 9;
  if (opset <= 22)
    return 10;
  if (opset == 23)
    return 11;
  if (opset == 24)
    return 12;
  return 13;
}

/// Whether `op` is one of onnxcc's own ops rather than an ONNX operator.
bool isInternalOp(Operation *op) {
  return isa<onnx::FusedConvOp, onnx::FusedConvNHWCOp, onnx::FusedGemmOp, onnx::FusedMatMulOp, onnx::GeluOp,
             onnx::SiLUOp, onnx::ScaledDotProductAttentionOp>(op);
}

/// `raw` (one element of `elem` per byte) in ONNX's packing of `elem`:
/// several elements per byte, the first in the low bits, the last byte's
/// unused bits zero.
std::string packed(std::string raw, Type elem) {
  int64_t per = importer::elementsPerByte(dataTypeOf(elem));
  if (per == 1)
    return raw;
  unsigned bits = 8 / per;
  unsigned mask = (1u << bits) - 1;
  std::string out((raw.size() + per - 1) / per, '\0');
  for (size_t i = 0; i < raw.size(); ++i)
    out[i / per] = static_cast<char>(static_cast<unsigned char>(out[i / per]) |
                                     ((static_cast<unsigned char>(raw[i]) & mask)
                                      << (bits * (i % per))));
  return out;
}

/// The name of the node `op` came from (the first NameLoc of its location),
/// else its op type.
std::string nodeNameOf(Operation *op) {
  std::string base;
  std::function<void(Location)> find = [&](Location loc) {
    if (!base.empty())
      return;
    if (auto n = dyn_cast<NameLoc>(loc))
      base = n.getName().str();
    else if (auto f = dyn_cast<FusedLoc>(loc))
      for (Location l : f.getLocations())
        find(l);
  };
  find(op->getLoc());
  if (base.empty())
    base = op->getName().stripDialect().str();
  return base;
}

/// The opset that has the transformer op `op` (opsets 23-27, defined by
/// hand in TransformerOps.td, not in the generated schema table) with the
/// inputs and attributes it uses; 0 for any other op.
int64_t transformerOpset(Operation *op) {
  if (auto attention = dyn_cast<onnx::AttentionOp>(op)) {
    if (static_cast<int64_t>(attention.getLeftWindowSize()) != -1 ||
        static_cast<int64_t>(attention.getRightWindowSize()) != -1)
      return 25;
    return isa<NoneType>(attention.getNonpadKvSeqlen().getType()) ? 23 : 24;
  }
  if (isa<onnx::RMSNormalizationOp, onnx::RotaryEmbeddingOp>(op))
    return 23;
  if (isa<onnx::CausalConvWithStateOp, onnx::LinearAttentionOp>(op))
    return 27;
  return 0;
}

class ModelExporter {
public:
  ModelExporter(const ExportOptions &options, int64_t opset)
      : options(options), opset(opset) {}

  Error exportMain(func::FuncOp func, ::onnx::GraphProto &graph);

private:
  /// Fills `tp` with `type`; symbolic dims take names from `dimParams`.
  Error writeType(Type type, ::onnx::TypeProto &tp, ArrayAttr dimParams, const Twine &what);
  Error writeTensor(ElementsAttr attr, ::onnx::TensorProto &t, const Twine &what);
  Error exportBlock(Block &block, ::onnx::GraphProto &graph);
  Error exportOp(Operation *op, ::onnx::GraphProto &graph);
  Error exportAttribute(Operation *op, NamedAttribute attr, const importer::AttrSpec &spec,
                        ::onnx::AttributeProto &a);
  Error expandInternal(Operation *op, ::onnx::GraphProto &graph);
  Error exportReduce(Operation *op, ::onnx::GraphProto &graph);

  /// A name no other value of the model has, made from `hint`.
  std::string fresh(StringRef hint);
  StringRef nameOf(Value v);
  /// Appends a node and returns it.
  ::onnx::NodeProto &addNode(::onnx::GraphProto &graph, StringRef opType, Operation *origin,
                             ArrayRef<std::string> inputs, ArrayRef<std::string> outputs,
                             StringRef domain = "", StringRef name = "");
  /// An initializer holding `values` (rank 0 when `shape` is empty).
  std::string addFloatConstant(::onnx::GraphProto &graph, Type elem, ArrayRef<double> values,
                               ArrayRef<int64_t> shape, StringRef hint);
  /// An int64 initializer holding `values`: 1-D, or a scalar when `scalar`.
  std::string addI64Constant(::onnx::GraphProto &graph, ArrayRef<int64_t> values,
                             StringRef hint, bool scalar = false);
  /// Appends `act(x)` nodes; returns the name of the result (`out` when
  /// given).
  FailureOr<std::string> addActivation(::onnx::GraphProto &graph, Operation *origin,
                                       StringRef kind, ArrayRef<float> params,
                                       const std::string &x, Type elem, std::string out);
  /// Appends the epilogue `act(y + bias + z)` of a fused op, ending in its
  /// result's name.
  Error addEpilogue(::onnx::GraphProto &graph, Operation *op, std::string y, std::string bias,
                    std::string z, std::string result = "");
  /// A Transpose node of `op`: output = Transpose(input, perm).
  void addTranspose(::onnx::GraphProto &graph, Operation *op, const std::string &input,
                    const std::string &output, ArrayRef<int64_t> perm);
  std::string nodeName(Operation *op, StringRef suffix = "");

  const ExportOptions &options;
  /// The ai.onnx opset written: each node takes its form at it.
  int64_t opset;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> used;
  llvm::StringMap<unsigned> nodeNameCount;
  unsigned counter = 0;
};

std::string ModelExporter::fresh(StringRef hint) {
  std::string base = hint.empty() ? std::string("v") : hint.str();
  if (used.insert(base).second)
    return base;
  while (true) {
    std::string candidate = base + "_" + std::to_string(++counter);
    if (used.insert(candidate).second)
      return candidate;
  }
}

StringRef ModelExporter::nameOf(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  std::string hint = "v";
  if (auto c = v.getDefiningOp<onnx::ConstantOp>()) {
    // Initializers keep their names (their location is the bare name);
    // constants a node made are named after the node.
    auto n = dyn_cast<NameLoc>(c->getLoc());
    hint = n && isa<UnknownLoc>(n.getChildLoc()) ? n.getName().str()
                                                  : nodeName(c) + "_const";
  } else if (Operation *def = v.getDefiningOp()) {
    hint = nodeName(def);
    if (def->getNumResults() > 1)
      hint += ":" + std::to_string(cast<OpResult>(v).getResultNumber());
  }
  return names[v] = fresh(hint);
}

std::string ModelExporter::nodeName(Operation *op, StringRef suffix) {
  std::string base = nodeNameOf(op);
  return suffix.empty() ? base : base + "/" + suffix.str();
}

Error ModelExporter::writeType(Type type, ::onnx::TypeProto &tp, ArrayAttr dimParams,
                               const Twine &what) {
  if (auto seq = dyn_cast<onnx::SeqType>(type))
    return writeType(seq.getElementType(), *tp.mutable_sequence_type()->mutable_elem_type(),
                     {}, what);
  if (auto opt = dyn_cast<onnx::OptType>(type))
    return writeType(opt.getElementType(), *tp.mutable_optional_type()->mutable_elem_type(),
                     {}, what);
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return makeError(what + " has type " + printed(type) + ", which ONNX cannot express");
  int dt = dataTypeOf(tensor.getElementType());
  if (!dt)
    return makeError(what + " has element type " + printed(tensor.getElementType()) +
                     ", which ONNX cannot express");
  auto *tt = tp.mutable_tensor_type();
  tt->set_elem_type(dt);
  auto ranked = dyn_cast<RankedTensorType>(tensor);
  if (!ranked)
    return Error::success();
  auto *shape = tt->mutable_shape();
  for (int64_t d = 0; d < ranked.getRank(); ++d) {
    auto *dim = shape->add_dim();
    if (!ranked.isDynamicDim(d)) {
      dim->set_dim_value(ranked.getDimSize(d));
      continue;
    }
    if (dimParams && d < static_cast<int64_t>(dimParams.size()))
      if (auto p = dyn_cast<StringAttr>(dimParams[d]); p && !p.getValue().empty())
        dim->set_dim_param(p.str());
  }
  return Error::success();
}

Error ModelExporter::writeTensor(ElementsAttr attr, ::onnx::TensorProto &t, const Twine &what) {
  auto type = cast<ShapedType>(attr.getType());
  Type elem = type.getElementType();
  int dt = dataTypeOf(elem);
  if (!dt)
    return makeError(what + " has element type " + printed(elem) + ", which ONNX cannot express");
  t.set_data_type(dt);
  for (int64_t d : type.getShape())
    t.add_dims(d);
  int64_t n = type.getNumElements();
  if (auto strings = dyn_cast<DenseStringElementsAttr>(attr)) {
    ArrayRef<StringRef> data = strings.getRawStringData();
    for (int64_t i = 0; i < n; ++i)
      t.add_string_data((strings.isSplat() ? data[0] : data[i]).str());
    return Error::success();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return makeError(what + ": the weights of resource '" +
                       resource.getRawHandle().getKey() + "' are missing");
    ArrayRef<char> data = blob->getData();
    t.set_raw_data(packed(std::string(data.data(), data.size()), elem));
    return Error::success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return makeError(what + " is not a dense tensor");
  std::string raw;
  if (elem.isInteger(1)) {
    raw.reserve(n);
    for (bool b : dense.getValues<bool>())
      raw.push_back(b ? 1 : 0);
  } else {
    ArrayRef<char> data = dense.getRawData();
    if (dense.isSplat()) {
      raw.reserve(data.size() * n);
      for (int64_t i = 0; i < n; ++i)
        raw.append(data.data(), data.size());
    } else {
      raw.assign(data.data(), data.size());
    }
  }
  t.set_raw_data(packed(std::move(raw), elem));
  return Error::success();
}

::onnx::NodeProto &ModelExporter::addNode(::onnx::GraphProto &graph, StringRef opType,
                                          Operation *origin, ArrayRef<std::string> inputs,
                                          ArrayRef<std::string> outputs, StringRef domain,
                                          StringRef name) {
  ::onnx::NodeProto &node = *graph.add_node();
  node.set_op_type(opType.str());
  if (!domain.empty())
    node.set_domain(domain.str());
  std::string base = name.empty() ? nodeName(origin) : name.str();
  unsigned &count = nodeNameCount[base];
  node.set_name(count++ == 0 ? base : base + "/" + std::to_string(count - 1));
  // Absent optional inputs at the end are left out.
  size_t numInputs = inputs.size();
  while (numInputs && inputs[numInputs - 1].empty())
    --numInputs;
  for (size_t i = 0; i < numInputs; ++i)
    node.add_input(inputs[i]);
  size_t numOutputs = outputs.size();
  while (numOutputs && outputs[numOutputs - 1].empty())
    --numOutputs;
  for (size_t i = 0; i < numOutputs; ++i)
    node.add_output(outputs[i]);
  return node;
}

std::string ModelExporter::addFloatConstant(::onnx::GraphProto &graph, Type elem,
                                            ArrayRef<double> values, ArrayRef<int64_t> shape,
                                            StringRef hint) {
  std::string name = fresh(hint);
  ::onnx::TensorProto &t = *graph.add_initializer();
  t.set_name(name);
  t.set_data_type(dataTypeOf(elem));
  for (int64_t d : shape)
    t.add_dims(d);
  std::string raw;
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(cast<FloatType>(elem).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    APInt bits = f.bitcastToAPInt();
    for (unsigned byte = 0; byte < bits.getBitWidth() / 8; ++byte)
      raw.push_back(static_cast<char>(bits.extractBitsAsZExtValue(8, byte * 8)));
  }
  t.set_raw_data(raw);
  return name;
}

std::string ModelExporter::addI64Constant(::onnx::GraphProto &graph, ArrayRef<int64_t> values,
                                          StringRef hint, bool scalar) {
  std::string name = fresh(hint);
  ::onnx::TensorProto &t = *graph.add_initializer();
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::INT64);
  if (!scalar)
    t.add_dims(values.size());
  for (int64_t v : values)
    t.add_int64_data(v);
  return name;
}

Error ModelExporter::exportAttribute(Operation *op, NamedAttribute attr,
                                     const importer::AttrSpec &spec,
                                     ::onnx::AttributeProto &a) {
  using AK = importer::AttrKind;
  using AP = ::onnx::AttributeProto;
  Attribute v = attr.getValue();
  std::string what = "attribute '" + attr.getName().str() + "' of " + nodeName(op) + " (" +
                     op->getName().stripDialect().str() + ")";
  a.set_name(attr.getName().str());
  switch (spec.kind) {
  case AK::Int:
    if (auto i = dyn_cast<IntegerAttr>(v)) {
      a.set_type(AP::INT);
      a.set_i(i.getValue().getSExtValue());
      return Error::success();
    }
    if (auto t = dyn_cast<TypeAttr>(v)) {
      a.set_type(AP::INT);
      a.set_i(dataTypeOf(t.getValue()));
      return Error::success();
    }
    break;
  case AK::Float:
    if (auto f = dyn_cast<FloatAttr>(v)) {
      a.set_type(AP::FLOAT);
      a.set_f(static_cast<float>(f.getValueAsDouble()));
      return Error::success();
    }
    break;
  case AK::String:
    if (auto s = dyn_cast<StringAttr>(v)) {
      a.set_type(AP::STRING);
      a.set_s(s.str());
      return Error::success();
    }
    break;
  case AK::Ints:
    if (auto ints = dyn_cast<DenseI64ArrayAttr>(v)) {
      a.set_type(AP::INTS);
      for (int64_t i : ints.asArrayRef())
        a.add_ints(i);
      return Error::success();
    }
    break;
  case AK::Floats:
    if (auto floats = dyn_cast<DenseF32ArrayAttr>(v)) {
      a.set_type(AP::FLOATS);
      for (float f : floats.asArrayRef())
        a.add_floats(f);
      return Error::success();
    }
    break;
  case AK::Strings:
    if (auto strs = dyn_cast<ArrayAttr>(v)) {
      a.set_type(AP::STRINGS);
      for (Attribute s : strs)
        a.add_strings(cast<StringAttr>(s).str());
      return Error::success();
    }
    break;
  case AK::Tensor:
    if (auto t = dyn_cast<ElementsAttr>(v)) {
      a.set_type(AP::TENSOR);
      return writeTensor(t, *a.mutable_t(), what);
    }
    break;
  case AK::Tensors:
    if (auto ts = dyn_cast<ArrayAttr>(v)) {
      a.set_type(AP::TENSORS);
      for (Attribute t : ts)
        if (Error e = writeTensor(cast<ElementsAttr>(t), *a.add_tensors(), what))
          return e;
      return Error::success();
    }
    break;
  case AK::TypeProto:
    if (auto t = dyn_cast<TypeAttr>(v)) {
      a.set_type(AP::TYPE_PROTO);
      return writeType(t.getValue(), *a.mutable_tp(), {}, what);
    }
    break;
  case AK::TypeProtos:
    if (auto ts = dyn_cast<ArrayAttr>(v)) {
      a.set_type(AP::TYPE_PROTOS);
      for (Attribute t : ts)
        if (Error e = writeType(cast<TypeAttr>(t).getValue(), *a.add_type_protos(), {}, what))
          return e;
      return Error::success();
    }
    break;
  case AK::SparseTensor:
  case AK::Graph:
    break;
  }
  return makeError("cannot write " + what + ": unexpected value " + printed(v));
}

Error ModelExporter::exportBlock(Block &block, ::onnx::GraphProto &graph) {
  for (Operation &op : block.without_terminator())
    if (Error e = exportOp(&op, graph))
      return e;
  return Error::success();
}

Error ModelExporter::exportOp(Operation *op, ::onnx::GraphProto &graph) {
  if (isa<onnx::NoValueOp>(op))
    return Error::success();
  if (auto c = dyn_cast<onnx::ConstantOp>(op)) {
    // A constant with a value becomes an initializer; the other forms
    // (value_float, ...) stay Constant nodes through the generic path.
    if (auto value = c.getValueAttr()) {
      ::onnx::TensorProto &t = *graph.add_initializer();
      t.set_name(nameOf(c.getResult()).str());
      return writeTensor(value, t, "constant " + nodeName(op));
    }
  }
  if (isInternalOp(op) && options.expandInternalOps)
    return expandInternal(op, graph);
  // DictVectorizer and CastMap of a map graph input (its keys argument
  // carries the input's name).
  if (isa<onnx::MapDictVectorizerOp, onnx::MapCastOp>(op)) {
    auto dict = dyn_cast<onnx::MapDictVectorizerOp>(op);
    ::onnx::NodeProto &node =
        addNode(graph, dict ? "DictVectorizer" : "CastMap", op,
                {nameOf(op->getOperand(0)).str()}, {nameOf(op->getResult(0)).str()}, "ai.onnx.ml");
    auto attr = [&](StringRef name, ::onnx::AttributeProto::AttributeType type) {
      ::onnx::AttributeProto &a = *node.add_attribute();
      a.set_name(name.str());
      a.set_type(type);
      return &a;
    };
    if (dict) {
      if (auto ints = dict.getInt64Vocabulary()) {
        ::onnx::AttributeProto *a = attr("int64_vocabulary", ::onnx::AttributeProto::INTS);
        for (int64_t v : *ints)
          a->add_ints(v);
      }
      if (auto strings = dict.getStringVocabulary()) {
        ::onnx::AttributeProto *a = attr("string_vocabulary", ::onnx::AttributeProto::STRINGS);
        for (Attribute v : *strings)
          a->add_strings(cast<StringAttr>(v).str());
      }
      return Error::success();
    }
    auto castMap = cast<onnx::MapCastOp>(op);
    attr("cast_to", ::onnx::AttributeProto::STRING)->set_s(castMap.getCastTo().str());
    attr("map_form", ::onnx::AttributeProto::STRING)->set_s(castMap.getMapForm().str());
    attr("max_map", ::onnx::AttributeProto::INT)->set_i(castMap.getMaxMap());
    return Error::success();
  }

  StringRef opType = op->getName().stripDialect();
  if (opType.starts_with("Reduce") && opType != "ReduceSum" && opset < 18)
    return exportReduce(op, graph);
  if (op->getDialect() == nullptr || op->getDialect()->getNamespace() != "onnx")
    return makeError("cannot write op '" + op->getName().getStringRef() + "' (" + nodeName(op) +
                     ") as ONNX: it is not an onnx op");
  // The transformer ops of opsets 23-27 have every result; the node's
  // absent outputs are the results nothing uses.
  bool transformer = transformerOpset(op) != 0;
  SmallVector<std::string> inputs, outputs;
  for (Value v : op->getOperands())
    inputs.push_back(isa<NoneType>(v.getType()) ? std::string() : nameOf(v).str());
  // Range takes scalars; the dialect's also takes [1]s (a Split's parts).
  if (isa<onnx::RangeOp>(op))
    for (auto [k, v] : llvm::enumerate(op->getOperands()))
      if (auto t = dyn_cast<RankedTensorType>(v.getType()); t && t.getRank() == 1) {
        std::string scalar = fresh(inputs[k] + "_scalar");
        addNode(graph, "Squeeze", op, {inputs[k], addI64Constant(graph, {0}, "axes")},
                {scalar});
        inputs[k] = scalar;
      }
  // A zero point of one value (the importer's for output_dtype) beside a
  // per-axis or blocked scale takes the scale's shape, as ONNX requires.
  if (isa<onnx::QuantizeLinearOp, onnx::DequantizeLinearOp>(op)) {
    auto scale = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    auto zero = op->getOperand(2).getDefiningOp<onnx::ConstantOp>();
    auto value = zero ? dyn_cast_or_null<DenseElementsAttr>(zero.getValueAttr()) : nullptr;
    if (scale && scale.getRank() > 0 && scale.hasStaticShape() && value && value.isSplat() &&
        cast<ShapedType>(value.getType()).getRank() == 0) {
      ::onnx::TensorProto &t = *graph.add_initializer();
      inputs[2] = fresh(inputs[2] + "_full");
      t.set_name(inputs[2]);
      if (Error e = writeTensor(value.resizeSplat(RankedTensorType::get(
                                    scale.getShape(), value.getElementType())),
                                t, "zero point of " + nodeName(op)))
        return e;
    }
  }
  for (Value r : op->getResults())
    outputs.push_back(isa<NoneType>(r.getType()) || (transformer && r.use_empty())
                          ? std::string()
                          : nameOf(r).str());
  bool internal = isInternalOp(op);
  // ai.onnx.ml operators are the dialect's ml.<Name> ops.
  bool ml = opType.starts_with("ml.");
  ::onnx::NodeProto &node =
      addNode(graph, ml ? opType.drop_front(3) : opType, op, inputs, outputs,
              internal ? kOnnxccDomain : (ml ? "ai.onnx.ml" : ""));

  const importer::OpSchemaInfo *schema = internal ? nullptr : importer::lookupSchema(opType);
  if (!schema && !internal && !transformer)
    return makeError("cannot write op '" + opType + "' (" + nodeName(op) +
                     "): it has no ONNX schema");
  if (schema && !ml && schema->latestSince > opset)
    return makeError("cannot write op '" + opType + "' (" + nodeName(op) + ") at opset " +
                     Twine(opset) + ": it exists from opset " + Twine(schema->latestSince) +
                     " on");
  auto addAttr = [&](StringRef name, ::onnx::AttributeProto::AttributeType type) {
    ::onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(name.str());
    a.set_type(type);
    return &a;
  };
  // The attributes of later versions that the dialect's op carries as
  // onnxcc.* (exportModel raised the opset to theirs).
  for (StringRef name : {"saturate", "block_size"})
    if (auto v = op->getAttrOfType<IntegerAttr>(("onnxcc." + name).str()))
      addAttr(name, ::onnx::AttributeProto::INT)->set_i(v.getInt());
  if (auto v = op->getAttrOfType<StringAttr>("onnxcc.round_mode"))
    addAttr("round_mode", ::onnx::AttributeProto::STRING)->set_s(v.str());
  if (isa<onnx::ResizeOp>(op) && op->hasAttr("antialias"))
    addAttr("antialias", ::onnx::AttributeProto::INT)->set_i(1);
  // Split 18 takes `num_outputs` when `split` is absent.
  if (isa<onnx::SplitOp>(op) && opset >= 18 && isa<NoneType>(op->getOperand(1).getType()))
    addAttr("num_outputs", ::onnx::AttributeProto::INT)->set_i(op->getNumResults());
  // DFT 20 takes `axis` as its third input.
  if (auto dft = dyn_cast<onnx::DFTOp>(op); dft && opset >= 20) {
    if (node.input_size() < 2)
      node.add_input("");
    node.add_input(addI64Constant(graph, {static_cast<int64_t>(dft.getAxis())},
                                  nodeName(op) + "_axis", true));
  }
  for (NamedAttribute attr : op->getAttrs()) {
    StringRef name = attr.getName().getValue();
    if (name.starts_with("onnx.") || name.starts_with("onnxcc."))
      continue;
    if (isa<onnx::ResizeOp>(op) && name == "antialias")
      continue;
    if (isa<onnx::DFTOp>(op) && name == "axis" && opset >= 20)
      continue;
    // GridSample 20 names the modes bilinear and bicubic linear and cubic.
    if (isa<onnx::GridSampleOp>(op) && name == "mode" && opset >= 20) {
      StringRef mode = cast<StringAttr>(attr.getValue()).getValue();
      addAttr("mode", ::onnx::AttributeProto::STRING)
          ->set_s(mode == "bilinear" ? "linear" : mode == "bicubic" ? "cubic" : mode.str());
      continue;
    }
    // Attention's window sizes (opset 25) are left out when they are the
    // default -1, so that the node is valid at opsets 23 and 24.
    if (isa<onnx::AttentionOp>(op) &&
        (name == "left_window_size" || name == "right_window_size") &&
        cast<IntegerAttr>(attr.getValue()).getInt() == -1)
      continue;
    if (internal || transformer) {
      // onnxcc's own ops and the transformer ops keep their attributes by
      // their MLIR kind.
      ::onnx::AttributeProto &a = *node.add_attribute();
      a.set_name(name.str());
      Attribute v = attr.getValue();
      if (auto i = dyn_cast<IntegerAttr>(v)) {
        a.set_type(::onnx::AttributeProto::INT);
        a.set_i(i.getValue().getSExtValue());
      } else if (auto f = dyn_cast<FloatAttr>(v)) {
        a.set_type(::onnx::AttributeProto::FLOAT);
        a.set_f(static_cast<float>(f.getValueAsDouble()));
      } else if (auto s = dyn_cast<StringAttr>(v)) {
        a.set_type(::onnx::AttributeProto::STRING);
        a.set_s(s.str());
      } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(v)) {
        a.set_type(::onnx::AttributeProto::INTS);
        for (int64_t x : ints.asArrayRef())
          a.add_ints(x);
      } else if (auto floats = dyn_cast<DenseF32ArrayAttr>(v)) {
        a.set_type(::onnx::AttributeProto::FLOATS);
        for (float x : floats.asArrayRef())
          a.add_floats(x);
      } else {
        return makeError("cannot write attribute '" + name + "' of " + nodeName(op));
      }
      continue;
    }
    // AveragePool-19's and LpPool-18's dilations and LpPool-18's ceil_mode,
    // which the dialect's ops carry under their ONNX names (exportModel
    // raised the opset to theirs).
    if (isa<onnx::AveragePoolOp, onnx::LpPoolOp>(op) && !schema->findAttr(name)) {
      if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr.getValue()); ints && name == "dilations") {
        ::onnx::AttributeProto *a = addAttr(name, ::onnx::AttributeProto::INTS);
        for (int64_t d : ints.asArrayRef())
          a->add_ints(d);
        continue;
      }
      if (auto i = dyn_cast<IntegerAttr>(attr.getValue()); i && name == "ceil_mode") {
        addAttr(name, ::onnx::AttributeProto::INT)->set_i(i.getInt());
        continue;
      }
    }
    const importer::AttrSpec *spec = schema->findAttr(name);
    if (!spec)
      return makeError("cannot write attribute '" + name + "' of " + nodeName(op) + " (" +
                       opType + "): the operator has no such attribute");
    if (Error e = exportAttribute(op, attr, *spec, *node.add_attribute()))
      return e;
  }
  if (op->getNumRegions() == 0)
    return Error::success();

  // Regions are the operator's graph attributes: If's then_branch and
  // else_branch in that order, the body of the others.
  SmallVector<StringRef, 2> graphAttrs;
  if (isa<onnx::IfOp>(op))
    graphAttrs = {"then_branch", "else_branch"};
  else
    for (const importer::AttrSpec &spec : schema->attrs)
      if (spec.kind == importer::AttrKind::Graph)
        graphAttrs.push_back(spec.name);
  if (graphAttrs.size() != op->getNumRegions())
    return makeError("cannot write " + nodeName(op) + " (" + opType + "): " +
                     Twine(op->getNumRegions()) + " regions for " + Twine(graphAttrs.size()) +
                     " graph attributes");
  for (auto [region, attrName] : llvm::zip(op->getRegions(), graphAttrs)) {
    ::onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(attrName.str());
    a.set_type(::onnx::AttributeProto::GRAPH);
    ::onnx::GraphProto &sub = *a.mutable_g();
    sub.set_name(nodeName(op, attrName));
    Block &body = region.front();
    for (BlockArgument arg : body.getArguments()) {
      ::onnx::ValueInfoProto &in = *sub.add_input();
      in.set_name(nameOf(arg).str());
      if (Error e = writeType(arg.getType(), *in.mutable_type(), {},
                              "input of " + sub.name()))
        return e;
    }
    if (Error e = exportBlock(body, sub))
      return e;
    // Subgraph outputs are values the subgraph produces: an input, an
    // outer value or a repeated one goes through an Identity.
    auto yield = cast<onnx::YieldOp>(body.getTerminator());
    llvm::StringSet<> produced;
    for (const auto &n : sub.node())
      for (const auto &o : n.output())
        produced.insert(o);
    llvm::StringSet<> written;
    for (Value v : yield.getOperands()) {
      std::string name = nameOf(v).str();
      if (!produced.count(name) || !written.insert(name).second) {
        std::string copy = fresh(name);
        addNode(sub, "Identity", op, {name}, {copy});
        name = copy;
        written.insert(name);
      }
      ::onnx::ValueInfoProto &out = *sub.add_output();
      out.set_name(name);
      if (Error e = writeType(v.getType(), *out.mutable_type(), {}, "output of " + sub.name()))
        return e;
    }
  }
  return Error::success();
}

/// The dialect gives every Reduce* op its axes as an input (the form of
/// opset 18); at opset 17 only ReduceSum has that, the others take an `axes`
/// attribute, so the axes must be a constant.
Error ModelExporter::exportReduce(Operation *op, ::onnx::GraphProto &graph) {
  StringRef opType = op->getName().stripDialect();
  Value data = op->getOperand(0), axes = op->getOperand(1);
  std::string result = nameOf(op->getResult(0)).str();
  auto keep = op->getAttrOfType<IntegerAttr>("keepdims");
  auto noop = op->getAttrOfType<IntegerAttr>("noop_with_empty_axes");
  std::optional<SmallVector<int64_t>> values;
  if (isa<NoneType>(axes.getType())) {
    values.emplace();
  } else if (auto c = axes.getDefiningOp<onnx::ConstantOp>()) {
    if (auto dense = dyn_cast_or_null<DenseIntElementsAttr>(c.getValueAttr())) {
      values.emplace();
      for (const APInt &a : dense.getValues<APInt>())
        values->push_back(a.getSExtValue());
    }
  }
  if (!values)
    return makeError("cannot write " + nodeName(op) + " (" + opType +
                     ") at opset 17: its axes are computed at run time");
  if (values->empty() && noop && noop.getInt()) {
    addNode(graph, "Identity", op, {nameOf(data).str()}, {result});
    return Error::success();
  }
  ::onnx::NodeProto &node = addNode(graph, opType, op, {nameOf(data).str()}, {result});
  if (!values->empty()) {
    ::onnx::AttributeProto &a = *node.add_attribute();
    a.set_name("axes");
    a.set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : *values)
      a.add_ints(v);
  }
  if (keep) {
    ::onnx::AttributeProto &a = *node.add_attribute();
    a.set_name("keepdims");
    a.set_type(::onnx::AttributeProto::INT);
    a.set_i(keep.getInt());
  }
  return Error::success();
}

FailureOr<std::string> ModelExporter::addActivation(::onnx::GraphProto &graph,
                                                    Operation *origin, StringRef kind,
                                                    ArrayRef<float> params,
                                                    const std::string &x, Type elem,
                                                    std::string out) {
  if (out.empty())
    out = fresh(nodeName(origin, kind));
  auto param = [&](size_t i, float fallback) { return i < params.size() ? params[i] : fallback; };
  auto floatAttr = [](::onnx::NodeProto &n, StringRef name, float v) {
    ::onnx::AttributeProto &a = *n.add_attribute();
    a.set_name(name.str());
    a.set_type(::onnx::AttributeProto::FLOAT);
    a.set_f(v);
  };
  auto scalar = [&](double v, StringRef hint) {
    return addFloatConstant(graph, elem, {v}, {}, nodeName(origin, hint));
  };
  if (kind == "Relu" || kind == "Sigmoid" || kind == "HardSwish" || kind == "Tanh") {
    addNode(graph, kind, origin, {x}, {out});
  } else if (kind == "LeakyRelu") {
    floatAttr(addNode(graph, kind, origin, {x}, {out}), "alpha", param(0, 0.01f));
  } else if (kind == "HardSigmoid") {
    ::onnx::NodeProto &n = addNode(graph, kind, origin, {x}, {out});
    floatAttr(n, "alpha", param(0, 0.2f));
    floatAttr(n, "beta", param(1, 0.5f));
  } else if (kind == "Clip") {
    if (params.size() != 2)
      return failure();
    addNode(graph, kind, origin, {x, scalar(params[0], "min"), scalar(params[1], "max")}, {out});
  } else if (kind == "SiLU") {
    std::string s = fresh(nodeName(origin, "sigmoid"));
    addNode(graph, "Sigmoid", origin, {x}, {s});
    addNode(graph, "Mul", origin, {x, s}, {out});
  } else if (kind == "Gelu") {
    // x * 0.5 * (1 + erf(x / sqrt(2)))
    std::string scaled = fresh(nodeName(origin, "gelu_scaled"));
    addNode(graph, "Mul", origin, {x, scalar(0.7071067811865476, "inv_sqrt2")}, {scaled});
    std::string erf = fresh(nodeName(origin, "gelu_erf"));
    addNode(graph, "Erf", origin, {scaled}, {erf});
    std::string onePlus = fresh(nodeName(origin, "gelu_one_plus"));
    addNode(graph, "Add", origin, {erf, scalar(1.0, "one")}, {onePlus});
    std::string half = fresh(nodeName(origin, "gelu_half"));
    addNode(graph, "Mul", origin, {x, scalar(0.5, "half")}, {half});
    addNode(graph, "Mul", origin, {half, onePlus}, {out});
  } else if (kind == "GeluTanh") {
    // x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    std::string x2 = fresh(nodeName(origin, "gelu_x2"));
    addNode(graph, "Mul", origin, {x, x}, {x2});
    std::string x3 = fresh(nodeName(origin, "gelu_x3"));
    addNode(graph, "Mul", origin, {x2, x}, {x3});
    std::string cubic = fresh(nodeName(origin, "gelu_cubic"));
    addNode(graph, "Mul", origin, {x3, scalar(0.044715, "c")}, {cubic});
    std::string poly = fresh(nodeName(origin, "gelu_poly"));
    addNode(graph, "Add", origin, {x, cubic}, {poly});
    std::string scaled = fresh(nodeName(origin, "gelu_scaled"));
    addNode(graph, "Mul", origin, {poly, scalar(0.7978845608028654, "sqrt_2_over_pi")},
            {scaled});
    std::string th = fresh(nodeName(origin, "gelu_tanh"));
    addNode(graph, "Tanh", origin, {scaled}, {th});
    std::string onePlus = fresh(nodeName(origin, "gelu_one_plus"));
    addNode(graph, "Add", origin, {th, scalar(1.0, "one")}, {onePlus});
    std::string half = fresh(nodeName(origin, "gelu_half"));
    addNode(graph, "Mul", origin, {x, scalar(0.5, "half")}, {half});
    addNode(graph, "Mul", origin, {half, onePlus}, {out});
  } else {
    return failure();
  }
  return out;
}

void ModelExporter::addTranspose(::onnx::GraphProto &graph, Operation *op,
                                 const std::string &input, const std::string &output,
                                 ArrayRef<int64_t> perm) {
  ::onnx::NodeProto &node = addNode(graph, "Transpose", op, {input}, {output});
  ::onnx::AttributeProto &a = *node.add_attribute();
  a.set_name("perm");
  a.set_type(::onnx::AttributeProto::INTS);
  for (int64_t p : perm)
    a.add_ints(p);
}

/// Writes act(y + bias + z) of fused op `op` as standard nodes into
/// `result` (default: the op's result); an empty bias or z is absent.
Error ModelExporter::addEpilogue(::onnx::GraphProto &graph, Operation *op, std::string y,
                                 std::string bias, std::string z, std::string result) {
  if (result.empty())
    result = nameOf(op->getResult(0)).str();
  auto kind = op->getAttrOfType<StringAttr>("activation");
  StringRef act = kind ? kind.getValue() : StringRef();
  ArrayRef<float> params;
  if (auto p = op->getAttrOfType<DenseF32ArrayAttr>("activation_params"))
    params = p.asArrayRef();
  SmallVector<std::string> adds;
  if (!bias.empty())
    adds.push_back(bias);
  if (!z.empty())
    adds.push_back(z);
  for (auto [i, v] : llvm::enumerate(adds)) {
    bool last = i + 1 == adds.size() && act.empty();
    std::string sum = last ? result : fresh(nodeName(op, "sum"));
    addNode(graph, "Add", op, {y, v}, {sum});
    y = sum;
  }
  if (act.empty()) {
    if (adds.empty())
      addNode(graph, "Identity", op, {y}, {result});
    return Error::success();
  }
  Type elem = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  if (failed(addActivation(graph, op, act, params, y, elem, result)))
    return makeError("cannot write " + nodeName(op) + ": unknown activation '" + act +
                     "' or wrong parameters");
  return Error::success();
}

Error ModelExporter::expandInternal(Operation *op, ::onnx::GraphProto &graph) {
  auto in = [&](Value v) { return isa<NoneType>(v.getType()) ? std::string() : nameOf(v).str(); };
  auto copyAttrs = [&](::onnx::NodeProto &node, StringRef opType,
                       ArrayRef<StringRef> names) -> Error {
    const importer::OpSchemaInfo *schema = importer::lookupSchema(opType);
    for (StringRef name : names) {
      Attribute v = op->getAttr(name);
      if (!v)
        continue;
      if (Error e = exportAttribute(op, NamedAttribute(StringAttr::get(op->getContext(), name), v),
                                    *schema->findAttr(name), *node.add_attribute()))
        return e;
    }
    return Error::success();
  };
  if (auto conv = dyn_cast<onnx::FusedConvOp>(op)) {
    std::string y = fresh(nodeName(op, "conv"));
    ::onnx::NodeProto &node =
        addNode(graph, "Conv", op, {in(conv.getX()), in(conv.getW()), in(conv.getB())}, {y});
    if (Error e = copyAttrs(node, "Conv",
                            {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}))
      return e;
    return addEpilogue(graph, op, y, "", in(conv.getZ()));
  }
  if (auto conv = dyn_cast<onnx::FusedConvNHWCOp>(op)) {
    // Channels-last X and Z are transposed to NCHW for a FusedConv, whose
    // result is transposed back.
    const int64_t toNCHW[] = {0, 3, 1, 2}, toNHWC[] = {0, 2, 3, 1};
    std::string x = fresh(nodeName(op, "x_nchw"));
    addTranspose(graph, op, in(conv.getX()), x, toNCHW);
    std::string z = in(conv.getZ());
    if (!z.empty()) {
      std::string zt = fresh(nodeName(op, "z_nchw"));
      addTranspose(graph, op, z, zt, toNCHW);
      z = zt;
    }
    std::string nchw = fresh(nodeName(op, "y_nchw"));
    bool epilogue = !z.empty() || !conv.getActivation().empty();
    std::string y = epilogue ? fresh(nodeName(op, "conv")) : nchw;
    ::onnx::NodeProto &node = addNode(graph, "Conv", op, {x, in(conv.getW()), in(conv.getB())}, {y});
    if (Error e = copyAttrs(node, "Conv",
                            {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}))
      return e;
    if (epilogue)
      if (Error e = addEpilogue(graph, op, y, "", z, nchw))
        return e;
    addTranspose(graph, op, nchw, nameOf(op->getResult(0)).str(), toNHWC);
    return Error::success();
  }
  if (auto gemm = dyn_cast<onnx::FusedGemmOp>(op)) {
    std::string y = fresh(nodeName(op, "gemm"));
    ::onnx::NodeProto &node =
        addNode(graph, "Gemm", op, {in(gemm.getA()), in(gemm.getB()), in(gemm.getC())}, {y});
    if (Error e = copyAttrs(node, "Gemm", {"alpha", "beta", "transA", "transB"}))
      return e;
    return addEpilogue(graph, op, y, "", in(gemm.getZ()));
  }
  if (auto mm = dyn_cast<onnx::FusedMatMulOp>(op)) {
    std::string y = fresh(nodeName(op, "matmul"));
    addNode(graph, "MatMul", op, {in(mm.getA()), in(mm.getB())}, {y});
    return addEpilogue(graph, op, y, in(mm.getBias()), in(mm.getZ()));
  }
  Type elem = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  std::string result = nameOf(op->getResult(0)).str();
  if (auto gelu = dyn_cast<onnx::GeluOp>(op)) {
    StringRef kind = gelu.getApproximate() == "tanh" ? "GeluTanh" : "Gelu";
    if (failed(addActivation(graph, op, kind, {}, in(gelu.getX()), elem, result)))
      return makeError("cannot write " + nodeName(op));
    return Error::success();
  }
  if (auto silu = dyn_cast<onnx::SiLUOp>(op)) {
    if (failed(addActivation(graph, op, "SiLU", {}, in(silu.getX()), elem, result)))
      return makeError("cannot write " + nodeName(op));
    return Error::success();
  }
  if (auto sdpa = dyn_cast<onnx::ScaledDotProductAttentionOp>(op)) {
    auto kType = dyn_cast<RankedTensorType>(sdpa.getK().getType());
    if (!kType)
      return makeError("cannot write " + nodeName(op) + ": K has no rank");
    int64_t rank = kType.getRank();
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    std::string kt = fresh(nodeName(op, "k_transposed"));
    addTranspose(graph, op, in(sdpa.getK()), kt, perm);
    std::string scores = fresh(nodeName(op, "scores"));
    addNode(graph, "MatMul", op, {in(sdpa.getQ()), kt}, {scores});
    std::string scaled = fresh(nodeName(op, "scaled"));
    addNode(graph, "Mul", op,
            {scores, addFloatConstant(graph, elem, {sdpa.getScale().convertToDouble()}, {},
                                      nodeName(op, "scale"))},
            {scaled});
    if (!isa<NoneType>(sdpa.getMask().getType())) {
      std::string masked = fresh(nodeName(op, "masked"));
      addNode(graph, "Add", op, {scaled, in(sdpa.getMask())}, {masked});
      scaled = masked;
    }
    std::string probs = fresh(nodeName(op, "probs"));
    ::onnx::NodeProto &softmax = addNode(graph, "Softmax", op, {scaled}, {probs});
    ::onnx::AttributeProto &axis = *softmax.add_attribute();
    axis.set_name("axis");
    axis.set_type(::onnx::AttributeProto::INT);
    axis.set_i(-1);
    addNode(graph, "MatMul", op, {probs, in(sdpa.getV())}, {result});
    return Error::success();
  }
  return makeError("cannot write " + nodeName(op) + " (" + op->getName().getStringRef() +
                   ") as standard ONNX");
}

Error ModelExporter::exportMain(func::FuncOp func, ::onnx::GraphProto &graph) {
  Block &entry = func.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  // Graph input and output names are the model's interface: reserved first.
  // A map input is its keys and values arguments; the keys carry its name.
  auto mapPart = [&](BlockArgument arg) {
    auto part = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "onnxcc.map_part");
    return part ? part.getValue() : StringRef();
  };
  for (BlockArgument arg : entry.getArguments()) {
    if (mapPart(arg) == "values")
      continue;
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "onnx.name");
    names[arg] = fresh(name ? name.getValue() : StringRef("input"));
  }
  SmallVector<std::string> outputNames;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "onnx.name");
    outputNames.push_back(fresh(name ? name.getValue() : StringRef("output")));
  }
  // An output computed by a node of the main graph takes the output's name.
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    Operation *def = v.getDefiningOp();
    if (!def || isa<onnx::ConstantOp, onnx::NoValueOp>(def) || names.count(v) ||
        def->getBlock() != &entry)
      continue;
    names[v] = outputNames[i];
  }

  for (BlockArgument arg : entry.getArguments()) {
    if (mapPart(arg) == "values")
      continue;
    ::onnx::ValueInfoProto &in = *graph.add_input();
    in.set_name(names[arg]);
    if (mapPart(arg) == "keys") {
      auto &map = *in.mutable_type()->mutable_map_type();
      Type key = cast<TensorType>(arg.getType()).getElementType();
      Type value = entry.getArgument(arg.getArgNumber() + 1).getType();
      map.set_key_type(dataTypeOf(key));
      if (Error e = writeType(UnrankedTensorType::get(cast<TensorType>(value).getElementType()),
                              *map.mutable_value_type(), {}, "map input '" + in.name() + "'"))
        return e;
      continue;
    }
    auto params = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "onnx.dim_params");
    if (Error e = writeType(arg.getType(), *in.mutable_type(), params,
                            "graph input '" + in.name() + "'"))
      return e;
  }
  if (Error e = exportBlock(entry, graph))
    return e;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    std::string name = nameOf(v).str();
    if (name != outputNames[i])
      addNode(graph, "Identity", func, {name}, {outputNames[i]}, "",
              outputNames[i] + "/identity");
    ::onnx::ValueInfoProto &out = *graph.add_output();
    out.set_name(outputNames[i]);
    // ZipMap's sequence of maps, held as its values (ImportML.cpp).
    if (auto keys = func.getResultAttrOfType<ArrayAttr>(i, "onnxcc.map_keys")) {
      auto &map = *out.mutable_type()->mutable_sequence_type()->mutable_elem_type()
                       ->mutable_map_type();
      map.set_key_type(!keys.empty() && isa<StringAttr>(keys[0]) ? ::onnx::TensorProto::STRING
                                                                : ::onnx::TensorProto::INT64);
      map.mutable_value_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
      continue;
    }
    auto params = func.getResultAttrOfType<ArrayAttr>(i, "onnx.dim_params");
    if (Error e = writeType(v.getType(), *out.mutable_type(), params,
                            "graph output '" + out.name() + "'"))
      return e;
  }
  return Error::success();
}

/// Removes the initializers no node of `graph` or of its subgraphs reads
/// and no output names (constants whose values became attributes); returns
/// the names the graph reads from outside itself too.
void pruneInitializers(::onnx::GraphProto &graph, llvm::StringSet<> &reads) {
  llvm::StringSet<> local;
  for (const auto &node : graph.node()) {
    for (const auto &in : node.input())
      local.insert(in);
    for (auto &attr : *const_cast<::onnx::NodeProto &>(node).mutable_attribute())
      if (attr.has_g())
        pruneInitializers(*attr.mutable_g(), local);
  }
  for (const auto &out : graph.output())
    local.insert(out.name());
  auto *inits = graph.mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i)
    if (!local.count(inits->Get(i).name()))
      inits->DeleteSubrange(i, 1);
  for (const auto &entry : local)
    reads.insert(entry.getKey());
}

} // namespace

Error exportModel(ModuleOp module, ::onnx::ModelProto &model, const ExportOptions &options) {
  auto funcs = module.getOps<func::FuncOp>();
  if (funcs.empty())
    return makeError("the module has no graph to write");
  func::FuncOp func = *funcs.begin();
  // The opset written: the one the model was read at, raised to the first
  // one that has every node and type of the graph as the dialect holds
  // them, and at least 17 (the form of the dialect's ops). Each node is
  // written in its form at that opset (Reduce* with axes as an input from
  // 18, DFT's axis as an input and GridSample's new mode names from 20, ...).
  int64_t opset = kBaseOpset;
  if (auto imports = module->getAttrOfType<DictionaryAttr>("onnx.opset_import"))
    if (auto read = imports.getAs<IntegerAttr>("ai.onnx"))
      opset = std::max(opset, std::min<int64_t>(read.getInt(), importer::kMaxOpset));
  std::string refused;
  auto need = [&](int64_t version) { opset = std::max(opset, version); };
  auto needType = [&](Type t) {
    while (true) {
      if (auto seq = dyn_cast<onnx::SeqType>(t))
        t = seq.getElementType();
      else if (auto opt = dyn_cast<onnx::OptType>(t))
        t = opt.getElementType();
      else
        break;
    }
    if (auto shaped = dyn_cast<ShapedType>(t))
      need(typeOpset(shaped.getElementType()));
  };
  for (Type t : func.getArgumentTypes())
    needType(t);
  func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      needType(t);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          needType(arg.getType());
    if (op->hasAttr("onnxcc.saturate"))
      need(19);
    if (op->hasAttr("onnxcc.block_size"))
      need(21);
    if (op->hasAttr("onnxcc.round_mode"))
      need(24);
    auto reduction = op->getAttrOfType<StringAttr>("reduction");
    if (isa<onnx::ScatterElementsOp, onnx::ScatterNDOp>(op) && reduction &&
        (reduction.getValue() == "max" || reduction.getValue() == "min"))
      need(18);
    auto dilations = op->getAttrOfType<DenseI64ArrayAttr>("dilations");
    bool dilated = dilations && llvm::any_of(dilations.asArrayRef(),
                                             [](int64_t d) { return d != 1; });
    if (isa<onnx::AveragePoolOp>(op) && dilated)
      need(19);
    auto ceil = op->getAttrOfType<IntegerAttr>("ceil_mode");
    if (isa<onnx::LpPoolOp>(op) && (dilated || (ceil && ceil.getInt() != 0)))
      need(18);
    if (auto pad = dyn_cast<onnx::PadOp>(op); pad && pad.getMode() == "wrap")
      need(19);
    if (auto resize = dyn_cast<onnx::ResizeOp>(op)) {
      if (resize->hasAttr("antialias"))
        need(18);
      if (resize.getCoordinateTransformationMode() == "half_pixel_symmetric")
        need(19);
      if (resize->hasAttr("onnxcc.rounded_size") && refused.empty())
        refused = "Resize '" + nodeNameOf(op) +
                  "' made from keep_aspect_ratio_policy (Resize 18): its output size is "
                  "round(scale * input size), which no Resize given its scales has";
      if (resize.getCoordinateTransformationMode() == "tf_half_pixel_for_nn" && refused.empty())
        refused = "Resize with coordinate_transformation_mode 'tf_half_pixel_for_nn' (" +
                  nodeNameOf(op) + "), which only opsets 11 and 12 have";
    }
    // Reduce* whose axes are computed at run time take them as an input
    // from opset 18 on (ReduceSum from 13).
    StringRef name = op->getName().stripDialect();
    if (name.starts_with("Reduce") && name != "ReduceSum" && op->getNumOperands() > 1 &&
        !isa<NoneType>(op->getOperand(1).getType()) &&
        !op->getOperand(1).getDefiningOp<onnx::ConstantOp>())
      need(18);
    need(transformerOpset(op));
    // The ops new after opset 17 (BitwiseAnd-18, BitCast-26, ...) in their
    // version of the dialect.
    if (op->getDialect() && op->getDialect()->getNamespace() == "onnx" && !isInternalOp(op) &&
        !name.starts_with("ml."))
      if (const importer::OpSchemaInfo *s = importer::lookupSchema(name))
        need(s->latestSince);
  });
  if (!refused.empty())
    return makeError("cannot write " + refused);
  model.set_ir_version(irVersionOf(opset));
  model.set_producer_name("onnxcc");
  auto *opsetImport = model.add_opset_import();
  opsetImport->set_domain("");
  opsetImport->set_version(opset);
  // The ai.onnx.ml opset: the newest version among the ml ops written.
  int mlOpset = 0;
  func.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (isa<onnx::MapDictVectorizerOp, onnx::MapCastOp>(op))
      mlOpset = std::max(mlOpset, 1);
    if (name.starts_with("onnx.ml."))
      if (const importer::OpSchemaInfo *s = importer::lookupSchema(name.drop_front(5)))
        mlOpset = std::max(mlOpset, s->latestSince);
  });
  if (mlOpset) {
    auto *mlImport = model.add_opset_import();
    mlImport->set_domain("ai.onnx.ml");
    mlImport->set_version(mlOpset);
  }
  bool usesInternal = false;
  if (!options.expandInternalOps)
    func.walk([&](Operation *op) { usesInternal |= isInternalOp(op); });
  if (usesInternal) {
    auto *own = model.add_opset_import();
    own->set_domain(kOnnxccDomain);
    own->set_version(1);
  }
  ::onnx::GraphProto &graph = *model.mutable_graph();
  graph.set_name(func.getSymName().str());
  ModelExporter exporter(options, opset);
  if (Error e = exporter.exportMain(func, graph))
    return e;
  llvm::StringSet<> reads;
  pruneInitializers(graph, reads);
  return Error::success();
}

} // namespace onnxcc
