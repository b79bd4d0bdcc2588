//===- Importer.cpp - ONNX ModelProto to the onnx dialect -----------------===//
//
// Walks the main graph in order and builds one onnx op per node. Each node is
// resolved against the opset of its domain: versions whose signature matches
// the dialect's op import generically; older forms go through a handler in
// OpsetNormalization.cpp; anything else is a one-line error naming the node.
//
//===----------------------------------------------------------------------===//
#include "compiler/Importer.h"
#include "compiler/Errors.h"
#include "compiler/Functions.h"
#include "compiler/ImportML.h"
#include "compiler/ImporterImpl.h"

#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc::importer {

//===----------------------------------------------------------------------===//
// The generated schema table
//===----------------------------------------------------------------------===//

namespace {
#define ONNX_OP(NAME, LATEST, ALL, COMPAT, INPUTS, ATTRS, OUTS)                \
  namespace NAME##_schema {                                                    \
  [[maybe_unused]] constexpr int all[] = {ONNX_UNPAREN ALL};                   \
  [[maybe_unused]] constexpr int compat[] = {0, ONNX_UNPAREN COMPAT};          \
  [[maybe_unused]] const InputSpec inputs[] = {{nullptr, 0}, ONNX_UNPAREN INPUTS}; \
  [[maybe_unused]] const AttrSpec attrs[] = {{nullptr, AttrKind::Int}, ONNX_UNPAREN ATTRS}; \
  [[maybe_unused]] const OutTypeRule outs[] = {{0, nullptr, 0}, ONNX_UNPAREN OUTS}; \
  }
#define ONNX_UNPAREN(...) __VA_ARGS__
#include "dialects/onnx/OnnxSchema.gen.inc"
// ai.onnx.ml operators: their tables live in namespace ml_NAME_schema.
#define ONNX_ML_OP(NAME, ...) ONNX_OP(ml_##NAME, __VA_ARGS__)
#include "dialects/onnx/OnnxMLSchema.gen.inc"
#undef ONNX_OP
#undef ONNX_ML_OP

/// Drops the placeholder first element each table starts with (so that an
/// empty list in the generated file still forms a valid array).
template <typename T, size_t N>
llvm::ArrayRef<T> tail(const T (&a)[N]) {
  return llvm::ArrayRef<T>(a).drop_front();
}

const llvm::StringMap<OpSchemaInfo> &schemaTable() {
  static const llvm::StringMap<OpSchemaInfo> table = [] {
    llvm::StringMap<OpSchemaInfo> t;
#define ONNX_SCHEMA_ENTRY(KEY, NS, LATEST)                                     \
  t[KEY] = OpSchemaInfo{KEY, LATEST, NS::all, tail(NS::compat), tail(NS::inputs),    \
                        tail(NS::attrs), tail(NS::outs)};
#define ONNX_OP(NAME, LATEST, ...) ONNX_SCHEMA_ENTRY(#NAME, NAME##_schema, LATEST)
#include "dialects/onnx/OnnxSchema.gen.inc"
    // ai.onnx.ml operators are keyed "ml.NAME", the name of their op.
#define ONNX_ML_OP(NAME, LATEST, ...) ONNX_SCHEMA_ENTRY("ml." #NAME, ml_##NAME##_schema, LATEST)
#include "dialects/onnx/OnnxMLSchema.gen.inc"
#undef ONNX_OP
#undef ONNX_ML_OP
#undef ONNX_SCHEMA_ENTRY
    return t;
  }();
  return table;
}
} // namespace

const AttrSpec *OpSchemaInfo::findAttr(StringRef attrName) const {
  for (const AttrSpec &a : attrs)
    if (attrName == a.name)
      return &a;
  return nullptr;
}

const OpSchemaInfo *lookupSchema(StringRef opType) {
  auto &t = schemaTable();
  auto it = t.find(opType);
  return it == t.end() ? nullptr : &it->second;
}

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

int64_t elementsPerByte(int dataType) {
  switch (dataType) {
  case kUInt4:
  case kInt4:
  case kFloat4E2M1: return 2;
  case kUInt2:
  case kInt2: return 4;
  default: return 1;
  }
}

namespace {
StringRef dataTypeName(int t) {
  static const char *const newer[] = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
                                      "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1",
                                      "FLOAT8E8M0", "UINT2", "INT2"};
  if (t >= kFloat8E4M3FN && t <= kInt2)
    return newer[t - kFloat8E4M3FN];
  if (::onnx::TensorProto_DataType_IsValid(t))
    return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(t));
  return "unknown";
}

/// The MLIR element type of an ONNX TensorProto data type, or null.
Type elementTypeFor(MLIRContext *ctx, int dataType) {
  Builder b(ctx);
  switch (dataType) {
  case ::onnx::TensorProto::FLOAT: return b.getF32Type();
  case ::onnx::TensorProto::DOUBLE: return b.getF64Type();
  case ::onnx::TensorProto::FLOAT16: return b.getF16Type();
  case ::onnx::TensorProto::BFLOAT16: return b.getBF16Type();
  case ::onnx::TensorProto::INT8: return b.getIntegerType(8);
  case ::onnx::TensorProto::INT16: return b.getIntegerType(16);
  case ::onnx::TensorProto::INT32: return b.getIntegerType(32);
  case ::onnx::TensorProto::INT64: return b.getIntegerType(64);
  case ::onnx::TensorProto::UINT8: return b.getIntegerType(8, /*isSigned=*/false);
  case ::onnx::TensorProto::UINT16: return b.getIntegerType(16, false);
  case ::onnx::TensorProto::UINT32: return b.getIntegerType(32, false);
  case ::onnx::TensorProto::UINT64: return b.getIntegerType(64, false);
  case ::onnx::TensorProto::BOOL: return b.getI1Type();
  case ::onnx::TensorProto::STRING: return onnx::StringType::get(ctx);
  case ::onnx::TensorProto::COMPLEX64: return ComplexType::get(b.getF32Type());
  case ::onnx::TensorProto::COMPLEX128: return ComplexType::get(b.getF64Type());
  case kFloat8E4M3FN: return b.getType<Float8E4M3FNType>();
  case kFloat8E4M3FNUZ: return b.getType<Float8E4M3FNUZType>();
  case kFloat8E5M2: return b.getType<Float8E5M2Type>();
  case kFloat8E5M2FNUZ: return b.getType<Float8E5M2FNUZType>();
  case kFloat8E8M0: return b.getType<Float8E8M0FNUType>();
  case kFloat4E2M1: return b.getType<Float4E2M1FNType>();
  case kUInt4: return b.getIntegerType(4, /*isSigned=*/false);
  case kInt4: return b.getIntegerType(4);
  case kUInt2: return b.getIntegerType(2, /*isSigned=*/false);
  case kInt2: return b.getIntegerType(2);
  default: return {};
  }
}

/// Bytes one element of `dataType` takes in raw_data (0 for strings/unknown);
/// the packed 4-bit and 2-bit types count 1 (see elementsPerByte).
int64_t byteWidth(int dataType) {
  switch (dataType) {
  case kFloat8E4M3FN:
  case kFloat8E4M3FNUZ:
  case kFloat8E5M2:
  case kFloat8E5M2FNUZ:
  case kFloat8E8M0:
  case kUInt4:
  case kInt4:
  case kFloat4E2M1:
  case kUInt2:
  case kInt2:
  case ::onnx::TensorProto::BOOL:
  case ::onnx::TensorProto::INT8:
  case ::onnx::TensorProto::UINT8: return 1;
  case ::onnx::TensorProto::INT16:
  case ::onnx::TensorProto::UINT16:
  case ::onnx::TensorProto::FLOAT16:
  case ::onnx::TensorProto::BFLOAT16: return 2;
  case ::onnx::TensorProto::FLOAT:
  case ::onnx::TensorProto::INT32:
  case ::onnx::TensorProto::UINT32: return 4;
  case ::onnx::TensorProto::DOUBLE:
  case ::onnx::TensorProto::INT64:
  case ::onnx::TensorProto::UINT64:
  case ::onnx::TensorProto::COMPLEX64: return 8;
  case ::onnx::TensorProto::COMPLEX128: return 16;
  default: return 0;
  }
}

/// Element type of an ONNX type string from the schema ("tensor(int64)").
Type elementTypeForString(MLIRContext *ctx, StringRef s) {
  if (!s.consume_front("tensor(") || !s.consume_back(")"))
    return {};
  static const std::pair<const char *, int> names[] = {
      {"float", ::onnx::TensorProto::FLOAT},     {"double", ::onnx::TensorProto::DOUBLE},
      {"float16", ::onnx::TensorProto::FLOAT16}, {"bfloat16", ::onnx::TensorProto::BFLOAT16},
      {"int8", ::onnx::TensorProto::INT8},       {"int16", ::onnx::TensorProto::INT16},
      {"int32", ::onnx::TensorProto::INT32},     {"int64", ::onnx::TensorProto::INT64},
      {"uint8", ::onnx::TensorProto::UINT8},     {"uint16", ::onnx::TensorProto::UINT16},
      {"uint32", ::onnx::TensorProto::UINT32},   {"uint64", ::onnx::TensorProto::UINT64},
      {"bool", ::onnx::TensorProto::BOOL},       {"string", ::onnx::TensorProto::STRING},
      {"complex64", ::onnx::TensorProto::COMPLEX64},
      {"complex128", ::onnx::TensorProto::COMPLEX128},
      {"float8e4m3fn", kFloat8E4M3FN},           {"float8e4m3fnuz", kFloat8E4M3FNUZ},
      {"float8e5m2", kFloat8E5M2},               {"float8e5m2fnuz", kFloat8E5M2FNUZ},
      {"float8e8m0", kFloat8E8M0},               {"float4e2m1", kFloat4E2M1},
      {"uint4", kUInt4},                         {"int4", kInt4},
      {"uint2", kUInt2},                         {"int2", kInt2}};
  for (auto &[name, dt] : names)
    if (s == name)
      return elementTypeFor(ctx, dt);
  return {};
}

/// Blob names must print as resource keys: keep [A-Za-z0-9_.].
std::string blobName(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_');
  if (out.empty() || llvm::isDigit(out[0]))
    out.insert(0, "w_");
  return out;
}

/// Tensors at least this large become resource blobs instead of inline
/// dense attributes; smaller ones stay readable in the printed IR.
constexpr size_t kBlobThresholdBytes = 1024;

/// Sizes in bytes are computed in int64 downstream: a tensor's static
/// element count stays far enough from overflowing (16 bytes an element).
constexpr int64_t kMaxElements = int64_t(1) << 59;

/// True when the static dims of `shape` hold more than kMaxElements elements
/// (dynamic dims are left out).
bool tooManyElements(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d) || d <= 0)
      continue;
    if (count > kMaxElements / d)
      return true;
    count *= d;
  }
  return false;
}
} // namespace

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

class GraphImporter {
public:
  GraphImporter(MLIRContext *ctx, LoadedModel &model, const ImportOptions &options)
      : ctx(ctx), builder(ctx), model(model), options(options) {}

  Expected<OwningOpRef<ModuleOp>> importModel();

  // Used by NodeContext and the opset handlers.
  OpBuilder &getBuilder() { return builder; }
  MLIRContext *getContext() { return ctx; }
  Expected<Value> lookupValue(StringRef name);
  Value noValue();
  Error bindOutput(StringRef name, Value v);
  Expected<Operation *> buildOp(NodeContext &nc, StringRef opType,
                                ArrayRef<Value> operands,
                                ArrayRef<NamedAttribute> attrs, unsigned numResults,
                                ArrayRef<std::string> outputNames,
                                llvm::function_ref<Error(OperationState &)> addRegions = {});
  Error importGenericNode(NodeContext &nc, ArrayRef<StringRef> dropAttrs);
  /// The ranked tensor type the model declares for value `name` (value_info,
  /// graph output), or null when it declares none or an incomplete one.
  RankedTensorType declaredTensorType(StringRef name);
  Expected<ElementsAttr> convertTensor(const ::onnx::TensorProto &t, StringRef what);
  Expected<RankedTensorType> tensorTypeOf(const ::onnx::TensorProto &t, StringRef what);
  Value makeConstant(Location loc, ElementsAttr attr);
  Value makeConstantPublic(Location loc, ElementsAttr attr) { return makeConstant(loc, attr); }
  Location nodeLoc(const ::onnx::NodeProto &node, int index);
  Error markZipMapOutputs(mlir::func::FuncOp func);
  /// The values argument of a map graph input whose keys argument is `v`,
  /// or null.
  Value mapValuesOf(Value v) const { return mapInputs.lookup(v); }
  Error importMapNode(const ::onnx::NodeProto &node, int index);
  Error nodeError(const ::onnx::NodeProto &node, int index, int64_t opset,
                  const Twine &message);

private:
  /// Value names visible in one graph (subgraphs see their parents' names).
  struct Scope {
    llvm::StringMap<Value> values;
    llvm::StringMap<const ::onnx::TypeProto *> valueInfo;
    std::string graphName;
    /// The graph whose nodes are being imported, and the node at hand.
    const ::onnx::GraphProto *graph = nullptr;
    int currentNode = -1;
    /// A function body: names of the enclosing scopes are not visible.
    bool isolated = false;
  };

  std::string undefinedInputMessage(StringRef name) const;

  Expected<Type> convertType(const ::onnx::TypeProto &t, StringRef what);
  Expected<Value> importInitializer(::onnx::TensorProto &t);
  Error importNodes(::onnx::GraphProto &graph);
  Error importNode(const ::onnx::NodeProto &node, int index);
  Error inlineFlexAttention(const ::onnx::NodeProto &node, int index);
  Error inlineFunction(const ::onnx::NodeProto &node, int index,
                       const ::onnx::FunctionProto &fn);
  Expected<Attribute> convertAttribute(const ::onnx::AttributeProto &a, AttrKind kind,
                                       StringRef opName);
  Error importSubgraph(NodeContext &nc, const ::onnx::GraphProto &graph, Region &region,
                       ArrayRef<Type> argTypes);
  Expected<Type> resultType(NodeContext &nc, StringRef opType, unsigned index,
                            ArrayRef<Value> operands,
                            ArrayRef<NamedAttribute> attrs, StringRef outputName,
                            OperationState &state);
  const ::onnx::TypeProto *findValueInfo(StringRef name) const;
  int64_t opsetFor(StringRef domain) const;
  Expected<ElementsAttr> externalTensor(const ::onnx::TensorProto &t, ShapedType type,
                                        StringRef what);

  MLIRContext *ctx;
  OpBuilder builder;
  LoadedModel &model;
  const ImportOptions &options;
  llvm::StringMap<int64_t> opsets;
  SmallVector<Scope, 2> scopes;
  onnx::ShapeMap shapeMap;
  Value noValueCache;
  /// Sub-graph nesting, to name nodes inside If/Loop/Scan bodies in errors.
  SmallVector<std::string, 2> graphPath;
  /// Model-local functions, and the calls being inlined (to find recursion).
  FunctionLibrary functions;
  SmallVector<const ::onnx::FunctionProto *, 2> callStack;
  /// Nodes added by inlining so far: functions calling functions several
  /// times each grow exponentially, so the total is bounded.
  int64_t inlinedNodes = 0;
  /// Graph inputs of map type: the keys argument (what the input's name
  /// stands for) and the values argument.
  llvm::DenseMap<Value, Value> mapInputs;
};

Location GraphImporter::nodeLoc(const ::onnx::NodeProto &node, int index) {
  std::string name = node.name().empty()
                         ? (node.op_type() + "_" + Twine(index)).str()
                         : node.name();
  return NameLoc::get(StringAttr::get(ctx, name),
                      FileLineColLoc::get(ctx, model.path, index + 1, 0));
}

Error GraphImporter::nodeError(const ::onnx::NodeProto &node, int index, int64_t opset,
                               const Twine &message) {
  std::string where = node.name().empty() ? "node #" + std::to_string(index) + " ("
                                          : "node '" + node.name() + "' (#" +
                                                std::to_string(index) + ", ";
  if (!graphPath.empty())
    where += "in subgraph " + llvm::join(graphPath, "/") + ", ";
  StringRef domain = node.domain().empty() ? StringRef("ai.onnx") : StringRef(node.domain());
  return makeError(model.path + ": " + where + node.op_type() + ", domain " +
                   domain + ", opset " + Twine(opset) + "): " + message);
}

int64_t GraphImporter::opsetFor(StringRef domain) const {
  if (domain == "ai.onnx")
    domain = "";
  auto it = opsets.find(domain);
  return it == opsets.end() ? -1 : it->second;
}

Expected<Value> GraphImporter::lookupValue(StringRef name) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->values.find(name);
    if (found != it->values.end())
      return found->second;
    if (it->isolated)
      break;
  }
  return makeError(undefinedInputMessage(name));
}

/// How node `index` of `graph` is named in messages.
static std::string nodeLabel(const ::onnx::NodeProto &node, int index) {
  if (node.name().empty())
    return "#" + std::to_string(index) + " (" + node.op_type() + ")";
  return "'" + node.name() + "' (#" + std::to_string(index) + ")";
}

/// True when node `from` of `graph` reads, directly or through other nodes,
/// an output of node `target`.
static bool dependsOn(const ::onnx::GraphProto &graph, int from, int target) {
  llvm::StringMap<int> producer;
  for (int i = 0; i < graph.node_size(); ++i)
    for (const std::string &out : graph.node(i).output())
      if (!out.empty())
        producer.try_emplace(out, i);
  SmallVector<int> work{from};
  llvm::DenseSet<int> seen{from};
  while (!work.empty()) {
    int n = work.pop_back_val();
    for (const std::string &in : graph.node(n).input()) {
      auto it = producer.find(in);
      if (it == producer.end())
        continue;
      if (it->second == target)
        return true;
      if (seen.insert(it->second).second)
        work.push_back(it->second);
    }
  }
  return false;
}

std::string GraphImporter::undefinedInputMessage(StringRef name) const {
  // A node at or after the current one that produces the value: the graph
  // has a cycle, or is out of order and could not be sorted.
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    if (!it->graph || it->currentNode < 0)
      continue;
    const ::onnx::GraphProto &graph = *it->graph;
    for (int j = it->currentNode; j < graph.node_size(); ++j) {
      if (!llvm::is_contained(graph.node(j).output(), name))
        continue;
      std::string producer = nodeLabel(graph.node(j), j);
      if (j == it->currentNode)
        return ("input '" + name + "' is an output of the same node: the graph has a cycle")
            .str();
      if (dependsOn(graph, j, it->currentNode))
        return ("input '" + name + "' comes from node " + producer +
                ", which depends on this node: the graph has a cycle")
            .str();
      // The loader sorts nodes that are merely out of order (sortNodes in
      // ModelLoader.cpp); it leaves a graph with a cycle or a name written
      // twice as it is.
      return ("input '" + name + "' comes from node " + producer +
              ", which comes later, and the nodes cannot be put in order: the graph has "
              "a cycle or writes a name twice")
          .str();
    }
  }
  return ("input '" + name + "' is not produced by any earlier node, initializer or graph "
          "input")
      .str();
}

const ::onnx::TypeProto *GraphImporter::findValueInfo(StringRef name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->valueInfo.find(name);
    if (found != it->valueInfo.end())
      return found->second;
    if (it->isolated)
      break;
  }
  return nullptr;
}

Value GraphImporter::noValue() {
  // One onnx.NoValue per function body, at its start.
  Block *block = builder.getInsertionBlock();
  if (noValueCache && noValueCache.getParentBlock() == block)
    return noValueCache;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  noValueCache = onnx::NoValueOp::create(builder, builder.getUnknownLoc(), builder.getNoneType()).getResult();
  return noValueCache;
}

Error GraphImporter::bindOutput(StringRef name, Value v) {
  if (name.empty())
    return Error::success();
  Scope &scope = scopes.back();
  if (scope.values.count(name))
    return makeError("output '" + name + "' is already defined (ONNX graphs are SSA)");
  scope.values[name] = v;
  return Error::success();
}

Expected<Type> GraphImporter::convertType(const ::onnx::TypeProto &t, StringRef what) {
  switch (t.value_case()) {
  case ::onnx::TypeProto::kTensorType: {
    const auto &tt = t.tensor_type();
    Type elem = elementTypeFor(ctx, tt.elem_type());
    if (!elem)
      return makeError(what + " has unsupported element type " +
                       dataTypeName(tt.elem_type()) + " (" + Twine(tt.elem_type()) + ")");
    if (!tt.has_shape())
      return UnrankedTensorType::get(elem);
    SmallVector<int64_t> dims;
    for (const auto &d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        if (d.dim_value() < 0)
          return makeError(what + " has negative dimension " + Twine(d.dim_value()));
        dims.push_back(d.dim_value());
      } else {
        dims.push_back(ShapedType::kDynamic);
      }
    }
    if (tooManyElements(dims))
      return makeError(what + " has more than 2^59 elements");
    return RankedTensorType::get(dims, elem);
  }
  case ::onnx::TypeProto::kSequenceType: {
    if (!t.sequence_type().has_elem_type())
      return makeError(what + " is a sequence with no element type");
    auto inner = convertType(t.sequence_type().elem_type(), what);
    if (!inner)
      return inner.takeError();
    return onnx::SeqType::get(ctx, *inner);
  }
  case ::onnx::TypeProto::kOptionalType: {
    if (!t.optional_type().has_elem_type())
      return makeError(what + " is an optional with no element type");
    auto inner = convertType(t.optional_type().elem_type(), what);
    if (!inner)
      return inner.takeError();
    return onnx::OptType::get(ctx, *inner);
  }
  case ::onnx::TypeProto::kMapType:
    return makeError(what + " has a map type, which is not supported");
  case ::onnx::TypeProto::kSparseTensorType:
    return makeError(what + " has a sparse tensor type, which is not supported");
  default:
    return makeError(what + " has no type");
  }
}

/// The dim_param names of a tensor type, "" where a dim has none; empty when
/// the type has no named dims.
static SmallVector<Attribute> dimParams(MLIRContext *ctx, const ::onnx::TypeProto &t) {
  SmallVector<Attribute> names;
  if (!t.has_tensor_type() || !t.tensor_type().has_shape())
    return names;
  bool any = false;
  for (const auto &d : t.tensor_type().shape().dim()) {
    std::string p = d.has_dim_param() ? d.dim_param() : "";
    any |= !p.empty();
    names.push_back(StringAttr::get(ctx, p));
  }
  if (!any)
    names.clear();
  return names;
}

Expected<ElementsAttr> GraphImporter::externalTensor(const ::onnx::TensorProto &t,
                                                     ShapedType type, StringRef what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v;
      if (StringRef(kv.value()).getAsInteger(10, v) || v < 0)
        return makeError(what + ": external data " + kv.key() + " '" + kv.value() +
                         "' is not a non-negative integer");
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty())
    return makeError(what + ": external data has no location");
  if (llvm::sys::path::is_absolute(location))
    return makeError(what + ": external data location '" + location +
                     "' must be relative to the model's folder");
  SmallString<256> dirReal, fileReal, joined(model.dir);
  llvm::sys::path::append(joined, location);
  if (llvm::sys::fs::real_path(model.dir, dirReal) ||
      llvm::sys::fs::real_path(joined, fileReal))
    return makeError(what + ": cannot open external data file '" + location + "'");
  StringRef fileRef(fileReal);
  if (!fileRef.starts_with(dirReal) ||
      !llvm::sys::path::is_separator(fileRef[std::min(dirReal.size(), fileRef.size() - 1)]))
    return makeError(what + ": external data location '" + location +
                     "' escapes the model's folder");
  // A named pipe or a device would block or never end: only plain files.
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(fileReal, status) ||
      status.type() != llvm::sys::fs::file_type::regular_file)
    return makeError(what + ": external data location '" + location +
                     "' is not a regular file");
  int64_t width = byteWidth(t.data_type());
  int64_t expected = type.getNumElements() * width;
  if (length >= 0 && length != expected)
    return makeError(what + ": external data length " + Twine(length) + " does not match " +
                     Twine(expected) + " bytes of " + dataTypeName(t.data_type()) + " data");
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(fileReal, fileSize) ||
      static_cast<uint64_t>(offset) + static_cast<uint64_t>(expected) > fileSize)
    return makeError(what + ": external data file '" + location + "' is too small (" +
                     Twine(fileSize) + " bytes) for offset " + Twine(offset) + " + " +
                     Twine(expected) + " bytes");
  auto buffer = llvm::MemoryBuffer::getFileSlice(fileReal, expected, offset);
  if (!buffer)
    return makeError(what + ": cannot read external data '" + location +
                     "': " + buffer.getError().message());
  ArrayRef<char> bytes((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  size_t align = std::max<int64_t>(width, 1);
  if (reinterpret_cast<uintptr_t>(bytes.data()) % align != 0) {
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, align);
    return ElementsAttr(DenseResourceElementsAttr::get(type, blobName(t.name()),
                                                       std::move(blob)));
  }
  // The mapped file stays alive for as long as the blob does: no copy.
  std::shared_ptr<llvm::MemoryBuffer> keep(std::move(*buffer));
  AsmResourceBlob blob(bytes, align,
                       [keep](void *, size_t, size_t) mutable { keep.reset(); },
                       /*dataIsMutable=*/false);
  return ElementsAttr(DenseResourceElementsAttr::get(type, blobName(t.name()), std::move(blob)));
}

Expected<RankedTensorType> GraphImporter::tensorTypeOf(const ::onnx::TensorProto &t,
                                                       StringRef what) {
  Type elem = elementTypeFor(ctx, t.data_type());
  if (!elem)
    return makeError(what + " has unsupported data type " + dataTypeName(t.data_type()) +
                     " (" + Twine(t.data_type()) + ")");
  if (t.has_segment())
    return makeError(what + " is a segmented tensor, which is not supported");
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0)
      return makeError(what + " has negative dimension " + Twine(d));
    if (d != 0 && count > (int64_t(1) << 40) / d)
      return makeError(what + " has more than 2^40 elements");
    count *= d;
    dims.push_back(d);
  }
  return RankedTensorType::get(dims, elem);
}

Expected<ElementsAttr> GraphImporter::convertTensor(const ::onnx::TensorProto &t,
                                                    StringRef what) {
  auto typeOr = tensorTypeOf(t, what);
  if (!typeOr)
    return typeOr.takeError();
  RankedTensorType type = *typeOr;
  int64_t count = type.getNumElements();

  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    if (t.data_type() == ::onnx::TensorProto::STRING || t.data_type() == ::onnx::TensorProto::BOOL ||
        elementsPerByte(t.data_type()) > 1)
      return makeError(what + ": external data of type " + dataTypeName(t.data_type()) +
                       " is not supported");
    return externalTensor(t, type, what);
  }

  if (t.data_type() == ::onnx::TensorProto::STRING) {
    if (t.string_data_size() != count)
      return makeError(what + " has " + Twine(t.string_data_size()) + " strings, expected " +
                       Twine(count));
    SmallVector<StringRef> strs(t.string_data().begin(), t.string_data().end());
    return ElementsAttr(DenseStringElementsAttr::get(type, strs));
  }

  int64_t width = byteWidth(t.data_type());
  int64_t bytes = count * width;
  std::string buffer;
  bool fromRaw = t.has_raw_data();
  if (int64_t per = elementsPerByte(t.data_type()); per > 1) {
    // 4-bit and 2-bit types: packed low bits first, in raw_data or one byte
    // per int32_data value; unpacked here to one element per byte (signed
    // ones sign-extended).
    int64_t packed = (count + per - 1) / per;
    std::string packedBytes;
    if (t.has_raw_data()) {
      if (static_cast<int64_t>(t.raw_data().size()) != packed)
        return makeError(what + " has " + Twine(t.raw_data().size()) +
                         " bytes of raw data, expected " + Twine(packed) + " for " +
                         Twine(count) + " packed elements of " + dataTypeName(t.data_type()));
      packedBytes = t.raw_data();
    } else {
      if (t.int32_data_size() != packed)
        return makeError(what + " has " + Twine(t.int32_data_size()) +
                         " values in int32_data, expected " + Twine(packed) + " packed bytes");
      for (int32_t v : t.int32_data())
        packedBytes.push_back(static_cast<char>(v & 0xff));
    }
    unsigned bits = 8 / per;
    uint8_t mask = static_cast<uint8_t>((1u << bits) - 1), signBit = 1u << (bits - 1);
    bool isSigned = t.data_type() == kInt4 || t.data_type() == kInt2;
    buffer.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      uint8_t v = (static_cast<uint8_t>(packedBytes[i / per]) >> (bits * (i % per))) & mask;
      if (isSigned && (v & signBit))
        v |= static_cast<uint8_t>(~mask);
      buffer[i] = static_cast<char>(v);
    }
    fromRaw = false;
  } else if (t.has_raw_data()) {
    if (static_cast<int64_t>(t.raw_data().size()) != bytes)
      return makeError(what + " has " + Twine(t.raw_data().size()) + " bytes of raw data, expected " +
                       Twine(bytes) + " for " + Twine(count) + " elements of " +
                       dataTypeName(t.data_type()));
  } else {
    // Typed fields: convert into the raw little-endian layout. The counts are
    // checked first, so that a tensor claiming gigabytes it does not carry
    // allocates nothing.
    auto check = [&](int64_t have, int64_t want, StringRef field) -> Error {
      if (have != want)
        return makeError(what + " has " + Twine(have) + " values in " + field + ", expected " +
                         Twine(want));
      return Error::success();
    };
    Error countError = [&]() -> Error {
      switch (t.data_type()) {
      case ::onnx::TensorProto::FLOAT:
      case ::onnx::TensorProto::COMPLEX64:
        return check(t.float_data_size(), bytes / 4, "float_data");
      case ::onnx::TensorProto::DOUBLE:
      case ::onnx::TensorProto::COMPLEX128:
        return check(t.double_data_size(), bytes / 8, "double_data");
      case ::onnx::TensorProto::INT64:
        return check(t.int64_data_size(), count, "int64_data");
      case ::onnx::TensorProto::UINT32:
      case ::onnx::TensorProto::UINT64:
        return check(t.uint64_data_size(), count, "uint64_data");
      default:
        return check(t.int32_data_size(), count, "int32_data");
      }
    }();
    if (countError)
      return std::move(countError);
    buffer.resize(bytes);
    char *out = buffer.data();
    switch (t.data_type()) {
    case ::onnx::TensorProto::FLOAT:
    case ::onnx::TensorProto::COMPLEX64:
      if (auto e = check(t.float_data_size(), bytes / 4, "float_data"))
        return std::move(e);
      if (bytes)
        memcpy(out, t.float_data().data(), bytes);
      break;
    case ::onnx::TensorProto::DOUBLE:
    case ::onnx::TensorProto::COMPLEX128:
      if (auto e = check(t.double_data_size(), bytes / 8, "double_data"))
        return std::move(e);
      if (bytes)
        memcpy(out, t.double_data().data(), bytes);
      break;
    case ::onnx::TensorProto::INT64:
      if (auto e = check(t.int64_data_size(), count, "int64_data"))
        return std::move(e);
      if (bytes)
        memcpy(out, t.int64_data().data(), bytes);
      break;
    case ::onnx::TensorProto::UINT32:
    case ::onnx::TensorProto::UINT64:
      if (auto e = check(t.uint64_data_size(), count, "uint64_data"))
        return std::move(e);
      for (int64_t i = 0; i < count; ++i) {
        uint64_t v = t.uint64_data(i);
        memcpy(out + i * width, &v, width);
      }
      break;
    default:
      // int32_data carries INT32, INT16, INT8, UINT16, UINT8, BOOL and the
      // bit patterns of FLOAT16 and BFLOAT16.
      if (auto e = check(t.int32_data_size(), count, "int32_data"))
        return std::move(e);
      for (int64_t i = 0; i < count; ++i) {
        int32_t v = t.int32_data(i);
        memcpy(out + i * width, &v, width);
      }
      break;
    }
  }
  StringRef raw = fromRaw ? StringRef(t.raw_data()) : StringRef(buffer);

  if (t.data_type() == ::onnx::TensorProto::BOOL) {
    SmallVector<bool> values;
    for (char c : raw)
      values.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  if (static_cast<size_t>(bytes) >= kBlobThresholdBytes) {
    size_t align = std::max<int64_t>(width, 1);
    if (!fromRaw && reinterpret_cast<uintptr_t>(buffer.data()) % align == 0) {
      // The converted typed data moves into the blob: no further copy.
      auto *owned = new std::string(std::move(buffer));
      AsmResourceBlob blob(ArrayRef<char>(owned->data(), owned->size()), align,
                           [owned](void *, size_t, size_t) { delete owned; },
                           /*dataIsMutable=*/false);
      return ElementsAttr(
          DenseResourceElementsAttr::get(type, blobName(t.name()), std::move(blob)));
    }
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(raw.data(), raw.size()), align);
    return ElementsAttr(DenseResourceElementsAttr::get(type, blobName(t.name()), std::move(blob)));
  }
  bool detectedSplat = false;
  ArrayRef<char> rawRef(raw.data(), raw.size());
  if (!DenseElementsAttr::isValidRawBuffer(type, rawRef, detectedSplat))
    return makeError(what + " has raw data that does not fit its type");
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, rawRef));
}

Expected<Value> GraphImporter::importInitializer(::onnx::TensorProto &t) {
  std::string what = "initializer '" + t.name() + "'";
  ElementsAttr attr;
  int64_t width = byteWidth(t.data_type());
  if (t.has_raw_data() && t.data_location() != ::onnx::TensorProto::EXTERNAL &&
      t.raw_data().size() >= kBlobThresholdBytes && width > 0 &&
      t.data_type() != ::onnx::TensorProto::BOOL && elementsPerByte(t.data_type()) == 1) {
    // A large raw_data string moves into the resource blob: no second copy.
    auto type = tensorTypeOf(t, what);
    if (!type)
      return type.takeError();
    int64_t expected = type->getNumElements() * width;
    if (static_cast<int64_t>(t.raw_data().size()) != expected)
      return makeError(what + " has " + Twine(t.raw_data().size()) +
                       " bytes of raw data, expected " + Twine(expected));
    std::string *bytes = t.release_raw_data();
    ArrayRef<char> data(bytes->data(), bytes->size());
    if (reinterpret_cast<uintptr_t>(bytes->data()) % width != 0) {
      auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(data, width);
      delete bytes;
      attr = DenseResourceElementsAttr::get(*type, blobName(t.name()), std::move(blob));
    } else {
      AsmResourceBlob blob(data, width, [bytes](void *, size_t, size_t) { delete bytes; },
                           /*dataIsMutable=*/false);
      attr = DenseResourceElementsAttr::get(*type, blobName(t.name()), std::move(blob));
    }
  } else {
    auto converted = convertTensor(t, what);
    if (!converted)
      return converted.takeError();
    attr = *converted;
  }
  Location loc = NameLoc::get(StringAttr::get(ctx, t.name()));
  return makeConstant(loc, attr);
}

Value GraphImporter::makeConstant(Location loc, ElementsAttr attr) {
  NamedAttribute value = builder.getNamedAttr("value", attr);
  return onnx::ConstantOp::create(builder, loc, TypeRange{attr.getType()}, ValueRange{},
                                  ArrayRef<NamedAttribute>{value})
      .getResult();
}

Expected<Attribute> GraphImporter::convertAttribute(const ::onnx::AttributeProto &a,
                                                    AttrKind kind, StringRef opName) {
  using AP = ::onnx::AttributeProto;
  std::string what = "attribute '" + a.name() + "'";
  // Old exporters leave `type` unset; then the schema's kind decides.
  static const std::pair<AttrKind, int> protoTypes[] = {
      {AttrKind::Int, AP::INT},         {AttrKind::Float, AP::FLOAT},
      {AttrKind::String, AP::STRING},   {AttrKind::Ints, AP::INTS},
      {AttrKind::Floats, AP::FLOATS},   {AttrKind::Strings, AP::STRINGS},
      {AttrKind::Tensor, AP::TENSOR},   {AttrKind::SparseTensor, AP::SPARSE_TENSOR},
      {AttrKind::TypeProto, AP::TYPE_PROTO}, {AttrKind::Tensors, AP::TENSORS},
      {AttrKind::TypeProtos, AP::TYPE_PROTOS}, {AttrKind::Graph, AP::GRAPH}};
  int expected = 0;
  for (auto &[k, t] : protoTypes)
    if (k == kind)
      expected = t;
  if (a.type() != AP::UNDEFINED && a.type() != expected)
    return makeError(what + " has type " + AP::AttributeType_Name(a.type()) +
                     ", expected " + AP::AttributeType_Name(static_cast<AP::AttributeType>(expected)));
  if (!a.ref_attr_name().empty())
    return makeError(what + " refers to a function attribute, which is not supported");
  Builder b(ctx);
  switch (kind) {
  case AttrKind::Int:
    return Attribute(b.getI64IntegerAttr(a.i()));
  case AttrKind::Float:
    return Attribute(b.getF32FloatAttr(a.f()));
  case AttrKind::String:
    return Attribute(b.getStringAttr(a.s()));
  case AttrKind::Ints:
    return Attribute(b.getDenseI64ArrayAttr(SmallVector<int64_t>(a.ints().begin(), a.ints().end())));
  case AttrKind::Floats:
    return Attribute(b.getDenseF32ArrayAttr(SmallVector<float>(a.floats().begin(), a.floats().end())));
  case AttrKind::Strings: {
    SmallVector<StringRef> strs(a.strings().begin(), a.strings().end());
    return Attribute(b.getStrArrayAttr(strs));
  }
  case AttrKind::Tensor: {
    if (!a.has_t())
      return makeError(what + " has no tensor");
    auto t = convertTensor(a.t(), what);
    if (!t)
      return t.takeError();
    return Attribute(*t);
  }
  case AttrKind::Tensors: {
    SmallVector<Attribute> ts;
    for (const auto &t : a.tensors()) {
      auto c = convertTensor(t, what);
      if (!c)
        return c.takeError();
      ts.push_back(*c);
    }
    return Attribute(b.getArrayAttr(ts));
  }
  case AttrKind::TypeProto: {
    auto t = convertType(a.tp(), what);
    if (!t)
      return t.takeError();
    return Attribute(TypeAttr::get(*t));
  }
  case AttrKind::TypeProtos: {
    SmallVector<Attribute> ts;
    for (const auto &tp : a.type_protos()) {
      auto t = convertType(tp, what);
      if (!t)
        return t.takeError();
      ts.push_back(TypeAttr::get(*t));
    }
    return Attribute(b.getArrayAttr(ts));
  }
  case AttrKind::SparseTensor:
    return makeError(what + " is a sparse tensor, which is only supported on Constant");
  case AttrKind::Graph:
    break;
  }
  return makeError(what + " is a graph where a value was expected");
}

/// Element type of `v` when it is a tensor; `v`'s whole type otherwise.
static Type valueElementType(Value v) {
  if (auto t = dyn_cast<TensorType>(v.getType()))
    return t.getElementType();
  return {};
}

static Attribute findAttr(ArrayRef<NamedAttribute> attrs, StringRef name) {
  for (const NamedAttribute &a : attrs)
    if (a.getName() == name)
      return a.getValue();
  return {};
}

/// The element type of an ONNX `dtype`-style attribute (or `fallback`).
static Type dtypeAttr(MLIRContext *ctx, ArrayRef<NamedAttribute> attrs, StringRef name,
                      int fallback) {
  int64_t dt = fallback;
  if (auto a = dyn_cast_or_null<IntegerAttr>(findAttr(attrs, name)))
    dt = a.getInt();
  return elementTypeFor(ctx, static_cast<int>(dt));
}

Expected<Type> GraphImporter::resultType(NodeContext &nc, StringRef opType, unsigned index,
                                         ArrayRef<Value> operands,
                                         ArrayRef<NamedAttribute> attrs, StringRef outputName,
                                         OperationState &state) {
  const OpSchemaInfo *schema = lookupSchema(opType);
  // 1. A type the model declares for this value. ZipMap's sequence of maps
  // is held as its values (ImportML.cpp); what the model declares is checked.
  if (opType == "ml.ZipMap" && !outputName.empty()) {
    if (const ::onnx::TypeProto *declared = findValueInfo(outputName))
      if (declared->value_case() != ::onnx::TypeProto::VALUE_NOT_SET)
        if (Error e = checkZipMapDeclaration(*declared,
                                             bool(findAttr(attrs, "classlabels_strings"))))
          return std::move(e);
  } else if (!outputName.empty()) {
    if (const ::onnx::TypeProto *declared = findValueInfo(outputName)) {
      bool complete = !declared->has_tensor_type() ||
                      declared->tensor_type().elem_type() != ::onnx::TensorProto::UNDEFINED;
      if (complete && declared->value_case() != ::onnx::TypeProto::VALUE_NOT_SET) {
        auto t = convertType(*declared, ("value '" + outputName + "'").str());
        if (!t)
          return t.takeError();
        return *t;
      }
    }
  }
  auto unranked = [](Type elem) -> Type {
    if (!elem)
      return {};
    return UnrankedTensorType::get(elem);
  };
  auto operandType = [&](unsigned i) -> Type {
    return i < operands.size() ? operands[i].getType() : Type();
  };
  // 2. Ops whose result type an attribute or a region decides.
  Type special;
  if (opType == "Cast" || opType == "BitCast")
    special = unranked(dtypeAttr(ctx, attrs, "to", ::onnx::TensorProto::UNDEFINED));
  else if (opType == "CastLike" && operands.size() > 1)
    special = unranked(valueElementType(operands[1]));
  else if (opType.starts_with("ml."))
    special = mlResultType(ctx, opType, index, operands, attrs);
  else if (opType == "Gelu" && !operands.empty())
    special = unranked(valueElementType(operands[0]));
  else if (opType == "Attention" && operands.size() > 2)
    // present_value has V's element type, the other results Q's.
    special = unranked(valueElementType(operands[index == 2 ? 2 : 0]));
  else if (opType == "RMSNormalization" && operands.size() > 1)
    special = unranked(valueElementType(operands[1])); // Y has scale's type
  else if (opType == "LinearAttention" && operands.size() > 3)
    // present_state has past_state's type when there is one, else query's.
    special = unranked(valueElementType(
        operands[index == 1 && !isa<NoneType>(operands[3].getType()) ? 3 : 0]));
  else if ((opType == "RotaryEmbedding" || opType == "CausalConvWithState") && !operands.empty())
    special = unranked(valueElementType(operands[0]));
  else if (opType == "Constant" || opType == "ConstantOfShape") {
    if (auto v = dyn_cast_or_null<ElementsAttr>(findAttr(attrs, "value")))
      special = opType == "Constant" ? Type(v.getType()) : unranked(v.getElementType());
    else if (opType == "ConstantOfShape")
      special = unranked(Float32Type::get(ctx));
  } else if (opType == "EyeLike" || opType == "RandomNormalLike" ||
             opType == "RandomUniformLike" || opType == "Bernoulli") {
    special = findAttr(attrs, "dtype")
                  ? unranked(dtypeAttr(ctx, attrs, "dtype", ::onnx::TensorProto::FLOAT))
                  : unranked(operands.empty() ? Type() : valueElementType(operands[0]));
  } else if (opType == "RandomNormal" || opType == "RandomUniform") {
    special = unranked(dtypeAttr(ctx, attrs, "dtype", ::onnx::TensorProto::FLOAT));
  } else if (opType == "Multinomial") {
    special = unranked(dtypeAttr(ctx, attrs, "dtype", ::onnx::TensorProto::INT32));
  } else if (opType == "HannWindow" || opType == "HammingWindow" ||
             opType == "BlackmanWindow" || opType == "MelWeightMatrix") {
    special = unranked(dtypeAttr(ctx, attrs, "output_datatype", ::onnx::TensorProto::FLOAT));
  } else if (opType == "QuantizeLinear" || opType == "DynamicQuantizeLinear") {
    if (opType == "QuantizeLinear" && index == 0)
      special = operands.size() > 2 && !isa<NoneType>(operands[2].getType())
                    ? unranked(valueElementType(operands[2]))
                    : unranked(IntegerType::get(ctx, 8, IntegerType::Unsigned));
  } else if (opType == "SequenceEmpty") {
    special = onnx::SeqType::get(
        ctx, unranked(dtypeAttr(ctx, attrs, "dtype", ::onnx::TensorProto::FLOAT)));
  } else if (opType == "SequenceConstruct" || opType == "SplitToSequence") {
    if (!operands.empty())
      special = onnx::SeqType::get(ctx, unranked(valueElementType(operands[0])));
  } else if (opType == "SequenceAt" || opType == "ConcatFromSequence") {
    if (!operands.empty())
      if (auto seq = dyn_cast<onnx::SeqType>(operands[0].getType()))
        if (auto inner = dyn_cast<TensorType>(seq.getElementType()))
          special = unranked(inner.getElementType());
  } else if (opType == "Optional") {
    if (auto tp = dyn_cast_or_null<TypeAttr>(findAttr(attrs, "type")))
      special = onnx::OptType::get(ctx, tp.getValue());
    else if (!operands.empty() && !isa<NoneType>(operands[0].getType()))
      special = onnx::OptType::get(ctx, operands[0].getType());
  } else if (opType == "OptionalGetElement") {
    if (!operands.empty()) {
      if (auto opt = dyn_cast<onnx::OptType>(operands[0].getType()))
        special = opt.getElementType();
      else
        special = operands[0].getType();
    }
  } else if (opType == "If" || opType == "Loop" || opType == "Scan") {
    // From the yields of the (first) region, already built into `state`.
    Block &body = state.regions.front()->front();
    auto yield = cast<onnx::YieldOp>(body.getTerminator());
    unsigned yieldIndex = index;
    size_t carried = 0;
    if (opType == "Loop") {
      yieldIndex = index + 1; // The body yields its condition first.
      carried = operands.size() - 2;
    } else if (opType == "Scan") {
      auto n = dyn_cast_or_null<IntegerAttr>(findAttr(attrs, "num_scan_inputs"));
      carried = operands.size() - (n ? n.getInt() : 0);
    }
    if (yieldIndex < yield.getNumOperands()) {
      Type yielded = yield.getOperand(yieldIndex).getType();
      bool isScanOutput = opType != "If" && index >= carried;
      if (isScanOutput || opType == "If") {
        // Scan outputs gain a dim; If branches may differ in shape.
        if (auto t = dyn_cast<TensorType>(yielded))
          yielded = UnrankedTensorType::get(t.getElementType());
      }
      if (opType == "Loop" && index < carried)
        yielded = operandType(index + 2);
      if (opType == "Scan" && index < carried)
        yielded = operandType(index);
      special = yielded;
    }
  }
  if (special)
    return special;

  // 3. The schema's type variables.
  if (schema && !schema->outputs.empty()) {
    const OutTypeRule &rule = schema->outputs[std::min<size_t>(index, schema->outputs.size() - 1)];
    if (rule.input >= 0) {
      // Variadic outputs pair with variadic inputs (Loop/Scan-like) by position.
      unsigned i = rule.input;
      if (Type t = operandType(i)) {
        if (auto tt = dyn_cast<TensorType>(t))
          return UnrankedTensorType::get(tt.getElementType());
        if (!isa<NoneType>(t))
          return t;
      }
    } else if (rule.typeStr && *rule.typeStr) {
      if (Type elem = elementTypeForString(ctx, rule.typeStr))
        return UnrankedTensorType::get(elem);
    }
  }
  return nc.error("cannot tell the element type of output #" + Twine(index) +
                  (outputName.empty() ? Twine("") : " '" + outputName + "'") +
                  "; give it a value_info type in the model");
}

/// Whether `op` is being built inside a branch of an If: there a shape
/// function's objection waits for onnx-infer-shapes, which compiles a branch
/// that cannot run with the given shapes to return a status.
static bool inIfBranch(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (p->hasAttr("onnxcc_import.if"))
      return true;
  return false;
}

Expected<Operation *>
GraphImporter::buildOp(NodeContext &nc, StringRef opType, ArrayRef<Value> operands,
                       ArrayRef<NamedAttribute> attrs, unsigned numResults,
                       ArrayRef<std::string> outputNames,
                       llvm::function_ref<Error(OperationState &)> addRegions) {
  OperationState state(nc.loc(), ("onnx." + opType).str());
  state.addOperands(operands);
  state.addAttributes(attrs);
  if (addRegions)
    if (Error e = addRegions(state))
      return std::move(e);
  const OpSchemaInfo *schema = lookupSchema(opType);
  for (unsigned i = 0; i < numResults; ++i) {
    StringRef name = i < outputNames.size() ? StringRef(outputNames[i]) : StringRef();
    // An absent optional output has type none.
    if (name.empty() && schema && !schema->outputs.empty() &&
        schema->outputs[std::min<size_t>(i, schema->outputs.size() - 1)].option == 'o') {
      state.addTypes(NoneType::get(ctx));
      continue;
    }
    auto t = resultType(nc, opType, i, operands, attrs, name, state);
    if (!t)
      return t.takeError();
    state.addTypes(*t);
  }

  Operation *op = builder.create(state);
  std::string diagnostic;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
    if (diagnostic.empty())
      diagnostic = d.str();
    return success();
  });
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return nc.error(diagnostic.empty() ? std::string("invalid op") : diagnostic);
  }
  if (options.inferShapes && failed(onnx::inferShapes(op, shapeMap)) &&
      !inIfBranch(op)) {
    op->erase();
    return nc.error(diagnostic.empty() ? std::string("shape inference failed") : diagnostic);
  }
  // A shape function may multiply dims past what later sizes can hold.
  for (auto [i, t] : llvm::enumerate(op->getResultTypes())) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (ranked && tooManyElements(ranked.getShape())) {
      op->erase();
      return nc.error("result #" + Twine(i) + " would have more than 2^59 elements");
    }
  }
  return op;
}

namespace {
/// An error that already names its node; enclosing nodes pass it through.
class NodeError : public llvm::ErrorInfo<NodeError> {
public:
  static char ID;
  explicit NodeError(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string message;
};
char NodeError::ID = 0;
} // namespace

Error GraphImporter::importSubgraph(NodeContext &nc, const ::onnx::GraphProto &constGraph,
                                    Region &region, ArrayRef<Type> argTypes) {
  // The model is ours to consume: initializers of subgraphs move into blobs too.
  auto &graph = const_cast<::onnx::GraphProto &>(constGraph);
  auto *block = new Block();
  region.push_back(block);
  Scope &scope = scopes.emplace_back();
  scope.graphName = graph.name();
  llvm::scope_exit popScope([&] { scopes.pop_back(); });
  for (const auto &vi : graph.value_info())
    if (vi.has_type())
      scope.valueInfo[vi.name()] = &vi.type();
  for (const auto &vi : graph.output())
    if (vi.has_type())
      scope.valueInfo[vi.name()] = &vi.type();

  for (int i = 0; i < graph.input_size(); ++i) {
    const auto &in = graph.input(i);
    Type t = i < static_cast<int>(argTypes.size()) ? argTypes[i] : Type();
    if (in.has_type() && in.type().value_case() != ::onnx::TypeProto::VALUE_NOT_SET &&
        !(in.type().has_tensor_type() &&
          in.type().tensor_type().elem_type() == ::onnx::TensorProto::UNDEFINED)) {
      auto declared = convertType(in.type(), "subgraph input '" + in.name() + "'");
      if (!declared)
        return declared.takeError();
      t = *declared;
    }
    if (!t)
      return makeError("subgraph input '" + in.name() + "' has no type");
    BlockArgument arg = block->addArgument(t, nc.loc());
    if (Error e = bindOutput(in.name(), arg))
      return e;
  }

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  Value savedNoValue = noValueCache;
  noValueCache = Value();
  llvm::scope_exit restore([&] { noValueCache = savedNoValue; });
  graphPath.push_back(nc.node.name().empty() ? nc.node.op_type() : nc.node.name());
  llvm::scope_exit popPath([&] { graphPath.pop_back(); });

  for (auto &init : *graph.mutable_initializer()) {
    auto v = importInitializer(init);
    if (!v)
      return v.takeError();
    if (Error e = bindOutput(init.name(), *v))
      return e;
  }
  if (Error e = importNodes(graph))
    return e;
  SmallVector<Value> results;
  llvm::StringSet<> outputNames;
  for (const auto &out : graph.output()) {
    if (!outputNames.insert(out.name()).second)
      return makeError("subgraph output '" + out.name() + "' is listed twice");
    auto v = lookupValue(out.name());
    if (!v) {
      llvm::consumeError(v.takeError());
      return makeError("subgraph output '" + out.name() + "' is not defined");
    }
    results.push_back(*v);
  }
  builder.setInsertionPointToEnd(block);
  onnx::YieldOp::create(builder, nc.loc(), results);
  return Error::success();
}

Error GraphImporter::importGenericNode(NodeContext &nc, ArrayRef<StringRef> dropAttrs) {
  const ::onnx::NodeProto &node = nc.node;
  const OpSchemaInfo *schema = lookupSchema(node.op_type());
  if (!schema)
    return nc.error("unknown operator");

  // Operands: positional; a variadic parameter takes the rest.
  SmallVector<Value> operands;
  unsigned n = node.input_size();
  size_t numParams = schema->inputs.size();
  bool variadicLast = numParams && schema->inputs.back().option == 'v';
  if (!variadicLast && n > numParams)
    return nc.error("has " + Twine(n) + " inputs, the operator takes at most " +
                    Twine(numParams));
  for (size_t p = 0; p < numParams; ++p) {
    const InputSpec &spec = schema->inputs[p];
    if (spec.option == 'v') {
      for (unsigned i = p; i < n; ++i) {
        if (node.input(i).empty())
          return nc.error("variadic input #" + Twine(i) + " is empty");
        auto v = nc.input(i);
        if (!v)
          return v.takeError();
        operands.push_back(*v);
      }
      break;
    }
    if (p < n && !node.input(p).empty()) {
      auto v = nc.input(p);
      if (!v)
        return v.takeError();
      operands.push_back(*v);
    } else if (spec.option == 'o') {
      operands.push_back(noValue());
    } else {
      return nc.error("required input #" + Twine(p) + " '" + spec.name + "' is missing");
    }
  }

  // Attributes, with subgraphs set aside for regions.
  SmallVector<NamedAttribute> attrs;
  llvm::StringMap<const ::onnx::GraphProto *> graphs;
  llvm::StringSet<> seen;
  for (const auto &a : node.attribute()) {
    if (!seen.insert(a.name()).second)
      return nc.error("attribute '" + a.name() + "' is given twice");
    if (llvm::is_contained(dropAttrs, a.name()) || a.name() == "consumed_inputs")
      continue;
    const AttrSpec *spec = schema->findAttr(a.name());
    if (!spec)
      return nc.error("unknown attribute '" + a.name() + "'");
    if (spec->kind == AttrKind::Graph) {
      if (!a.has_g())
        return nc.error("attribute '" + a.name() + "' has no graph");
      graphs[a.name()] = &a.g();
      continue;
    }
    auto attr = convertAttribute(a, spec->kind, node.op_type());
    if (!attr)
      return attr.takeError();
    attrs.push_back(builder.getNamedAttr(a.name(), *attr));
  }

  // Results: absent optional outputs are still results, of type none.
  size_t fixed = schema->outputs.size();
  bool variadicOut = fixed && schema->outputs.back().option == 'v';
  unsigned outs = node.output_size();
  unsigned numResults;
  if (variadicOut) {
    numResults = std::max<unsigned>(outs, fixed - 1);
  } else {
    if (outs > fixed)
      return nc.error("has " + Twine(outs) + " outputs, the operator has at most " +
                      Twine(fixed));
    numResults = fixed;
  }
  SmallVector<std::string> names(node.output().begin(), node.output().end());

  auto addRegions = [&](OperationState &state) -> Error {
    // Regions follow the dialect's order: by name, If's then_branch first.
    SmallVector<const AttrSpec *> regionSpecs;
    for (const AttrSpec &spec : schema->attrs)
      if (spec.kind == AttrKind::Graph)
        regionSpecs.push_back(&spec);
    llvm::stable_sort(regionSpecs, [](const AttrSpec *a, const AttrSpec *b) {
      return StringRef(a->name) == "then_branch" && StringRef(b->name) != "then_branch";
    });
    // The subgraphs are built in the regions of a placeholder op at the
    // node's place, then move into `state`: while they are built, every op in
    // them has a complete chain of parents up to the function (a region of an
    // op not yet created has none, and verifying a nested If or Loop walks
    // that chain).
    OperationState placeholderState(nc.loc(), "onnxcc_import.subgraphs");
    if (node.op_type() == "If")
      placeholderState.addAttribute("onnxcc_import.if", builder.getUnitAttr());
    for (size_t i = 0; i < regionSpecs.size(); ++i)
      placeholderState.addRegion();
    Operation *placeholder = builder.create(placeholderState);
    llvm::scope_exit erasePlaceholder([&] { placeholder->erase(); });
    for (auto [regionIndex, specPtr] : llvm::enumerate(regionSpecs)) {
      const AttrSpec &spec = *specPtr;
      auto it = graphs.find(spec.name);
      if (it == graphs.end())
        return nc.error(Twine("subgraph attribute '") + spec.name + "' is missing");
      SmallVector<Type> argTypes;
      StringRef op = node.op_type();
      if (op == "Loop") {
        argTypes.push_back(RankedTensorType::get({}, builder.getI64Type()));
        argTypes.push_back(RankedTensorType::get({}, builder.getI1Type()));
        for (size_t i = 2; i < operands.size(); ++i)
          argTypes.push_back(operands[i].getType());
      } else if (op == "Scan") {
        auto numScan = dyn_cast_or_null<IntegerAttr>(findAttr(attrs, "num_scan_inputs"));
        size_t carried = operands.size() - (numScan ? std::min<size_t>(numScan.getInt(), operands.size()) : 0);
        for (size_t i = 0; i < operands.size(); ++i) {
          Type t = operands[i].getType();
          if (i >= carried)
            if (auto tt = dyn_cast<TensorType>(t))
              t = UnrankedTensorType::get(tt.getElementType());
          argTypes.push_back(t);
        }
      }
      if (Error e = importSubgraph(nc, *it->second, placeholder->getRegion(regionIndex),
                                   argTypes))
        return e;
    }
    for (Region &region : placeholder->getRegions())
      state.addRegion()->takeBody(region);
    return Error::success();
  };
  auto op = buildOp(nc, node.op_type(), operands, attrs, numResults, names,
                    graphs.empty() && !llvm::any_of(schema->attrs, [](const AttrSpec &s) {
                      return s.kind == AttrKind::Graph;
                    })
                        ? llvm::function_ref<Error(OperationState &)>()
                        : llvm::function_ref<Error(OperationState &)>(addRegions));
  if (!op)
    return op.takeError();
  for (unsigned i = 0; i < names.size() && i < (*op)->getNumResults(); ++i)
    if (Error e = nc.setOutput(i, (*op)->getResult(i)))
      return e;
  return Error::success();
}

Error GraphImporter::importNodes(::onnx::GraphProto &graph) {
  // The scope is the graph's own; it is popped with the graph.
  scopes.back().graph = &graph;
  for (int i = 0; i < graph.node_size(); ++i) {
    scopes.back().currentNode = i;
    if (Error e = importNode(graph.node(i), i))
      return e;
  }
  scopes.back().currentNode = -1;
  return Error::success();
}

Error GraphImporter::importNode(const ::onnx::NodeProto &node, int index) {
  StringRef domain = node.domain();
  int64_t opset = opsetFor(domain);
  auto fail = [&](Error e) -> Error {
    return llvm::handleErrors(std::move(e),
                              [](std::unique_ptr<NodeError> ne) -> Error {
                                return Error(std::move(ne));
                              },
                              [&](const llvm::ErrorInfoBase &info) -> Error {
                                return Error(std::make_unique<NodeError>(
                                    toString(nodeError(node, index, opset, info.message()))));
                              });
  };
  if (const ::onnx::FunctionProto *fn = functions.find(node))
    return fail(inlineFunction(node, index, *fn));
  if (!domain.empty() && domain != "ai.onnx" && functions.hasDomain(domain))
    return fail(makeError("the model defines no function '" + node.op_type() + "'" +
                          (node.overload().empty() ? std::string()
                                                   : " (overload '" + node.overload() + "')") +
                          " in domain '" + domain + "'"));
  if (domain == "ai.onnx.preview" && node.op_type() == "FlexAttention" && opset == 1)
    return fail(inlineFlexAttention(node, index));
  bool isML = domain == "ai.onnx.ml";
  if (!domain.empty() && domain != "ai.onnx" && !isML)
    return fail(makeError("operator domain '" + domain +
                          "' is not supported (only ai.onnx and ai.onnx.ml)"));
  if (opset < 0)
    return fail(makeError(Twine("the model does not import the ") +
                          (isML ? "ai.onnx.ml" : "ai.onnx") + " opset"));
  if (node.op_type().empty())
    return fail(makeError("node has no op_type"));

  if (isML && (node.op_type() == "DictVectorizer" || node.op_type() == "CastMap"))
    return fail(importMapNode(node, index));
  if (isML)
    return fail(importMLNode(*this, node, index, opset));

  NodeContext nc(*this, node, index, opset, 0);
  const OpSchemaInfo *schema = lookupSchema(node.op_type());
  if (!schema) {
    if (NormalizeFn fn = lookupNormalization(node.op_type(), opset))
      return fail(fn(nc));
    if (const ::onnx::FunctionProto *body = lookupSchemaFunction(node.op_type(), opset))
      return fail(inlineFunction(node, index, *body));
    return fail(makeError("unknown operator '" + node.op_type() + "'"));
  }
  int since = 0;
  for (int v : schema->allSince)
    if (v <= opset)
      since = v;
  if (!since)
    return fail(makeError(node.op_type() + " does not exist in opset " + Twine(opset) +
                          " (it was introduced in opset " + Twine(schema->allSince.front()) + ")"));
  nc.sinceVersion = since;
  if (NormalizeFn fn = lookupNormalization(node.op_type(), since))
    return fail(fn(nc));
  if (llvm::is_contained(schema->compatibleSince, since))
    return fail(nc.importGeneric());
  // A version the dialect lacks, defined by a function body: its expansion.
  if (const ::onnx::FunctionProto *body = lookupSchemaFunction(node.op_type(), opset))
    return fail(inlineFunction(node, index, *body));
  return fail(makeError("the opset " + Twine(since) + " version of " + node.op_type() +
                        " is not supported (it differs from opset " +
                        Twine(schema->latestSince) + ", the version onnxcc implements)"));
}

/// FlexAttention's body depends on the call (functions.h): built for this
/// node, then inlined like any function.
Error GraphImporter::inlineFlexAttention(const ::onnx::NodeProto &node, int index) {
  if (node.input_size() != 3 || node.output_size() != 1)
    return makeError("FlexAttention takes 3 inputs (Q, K, V) and gives 1 output");
  auto q = lookupValue(node.input(0));
  if (!q)
    return q.takeError();
  auto qType = dyn_cast<ShapedType>(q->getType());
  Type elem = qType ? qType.getElementType() : Type();
  int32_t onnxType = !elem                ? 0
                     : elem.isF32()       ? ::onnx::TensorProto::FLOAT
                     : elem.isF64()       ? ::onnx::TensorProto::DOUBLE
                     : elem.isF16()       ? ::onnx::TensorProto::FLOAT16
                     : elem.isBF16()      ? ::onnx::TensorProto::BFLOAT16
                                          : 0;
  auto fn = flexAttentionFunction(node, onnxType);
  if (!fn)
    return fn.takeError();
  return inlineFunction(node, index, **fn);
}

Error GraphImporter::inlineFunction(const ::onnx::NodeProto &node, int index,
                                    const ::onnx::FunctionProto &fn) {
  std::string label = functionLabel(fn);
  if (llvm::is_contained(callStack, &fn)) {
    std::string cycle;
    for (const ::onnx::FunctionProto *f : callStack)
      cycle += functionLabel(*f) + " -> ";
    return makeError("function " + label + " calls itself (" + cycle + label +
                     "): recursion cannot be inlined");
  }
  if (callStack.size() >= 64)
    return makeError("function calls nest more than 64 deep");
  constexpr int64_t kMaxInlinedNodes = int64_t(1) << 20;
  inlinedNodes += fn.node_size();
  if (inlinedNodes > kMaxInlinedNodes)
    return makeError("inlining function " + label + " would make the graph more than " +
                     Twine(kMaxInlinedNodes) + " nodes");
  std::string prefix = node.name().empty()
                           ? node.op_type() + "_" + std::to_string(index)
                           : node.name();
  auto instance = instantiateFunction(fn, node, opsets, prefix);
  if (!instance)
    return instance.takeError();
  ::onnx::GraphProto &body = (*instance)->body;

  // The call's inputs, read in the caller's scope.
  SmallVector<std::pair<std::string, Value>> actuals;
  for (int i = 0; i < body.input_size() && i < node.input_size(); ++i) {
    if (node.input(i).empty())
      continue;
    auto v = lookupValue(node.input(i));
    if (!v)
      return v.takeError();
    actuals.emplace_back(body.input(i).name(), *v);
  }

  Scope &scope = scopes.emplace_back();
  scope.isolated = true;
  scope.graphName = label;
  llvm::scope_exit popScope([&] { scopes.pop_back(); });
  for (const auto &vi : body.value_info())
    if (vi.has_type())
      scope.valueInfo[vi.name()] = &vi.type();
  for (auto &[name, v] : actuals)
    scope.values[name] = v;
  std::swap(opsets, (*instance)->opsets);
  llvm::scope_exit restoreOpsets([&] { std::swap(opsets, (*instance)->opsets); });
  callStack.push_back(&fn);
  llvm::scope_exit popCall([&] { callStack.pop_back(); });
  graphPath.push_back("function " + label);
  llvm::scope_exit popPath([&] { graphPath.pop_back(); });

  if (Error e = importNodes(body))
    return e;
  SmallVector<Value> results;
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) {
      results.push_back(Value());
      continue;
    }
    auto v = lookupValue(body.output(i).name());
    if (!v) {
      llvm::consumeError(v.takeError());
      return makeError("function " + label + " does not compute its output '" +
                       body.output(i).name() + "'");
    }
    results.push_back(*v);
  }
  popPath.release();
  graphPath.pop_back();
  popScope.release();
  scopes.pop_back();
  for (int i = 0; i < node.output_size(); ++i)
    if (results[i])
      if (Error e = bindOutput(node.output(i), results[i]))
        return e;
  return Error::success();
}

Expected<OwningOpRef<ModuleOp>> GraphImporter::importModel() {
  ::onnx::ModelProto &m = *model.proto;
  for (const auto &o : m.opset_import()) {
    std::string domain = o.domain() == "ai.onnx" ? "" : o.domain();
    opsets[domain] = o.version();
  }
  if (m.opset_import_size() == 0)
    opsets[""] = 1; // IR version 1 and 2 models predate opset_import.
  auto defaultOpset = opsets.find("");
  if (defaultOpset != opsets.end() && defaultOpset->second > kMaxOpset)
    return makeError(model.path + ": opset " + Twine(defaultOpset->second) +
                     " of domain ai.onnx is newer than the newest onnxcc supports (" +
                     Twine(kMaxOpset) + ")");
  if (defaultOpset != opsets.end() && defaultOpset->second < 1)
    return makeError(model.path + ": invalid opset " + Twine(defaultOpset->second) +
                     " for domain ai.onnx");

  Location loc = FileLineColLoc::get(ctx, model.path, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  Builder b(ctx);
  SmallVector<NamedAttribute> opsetAttrs;
  for (const auto &[domain, version] : opsets)
    opsetAttrs.push_back(b.getNamedAttr(domain.empty() ? "ai.onnx" : domain,
                                        b.getI64IntegerAttr(version)));
  llvm::sort(opsetAttrs, [](const NamedAttribute &x, const NamedAttribute &y) {
    return x.getName().strref() < y.getName().strref();
  });
  (*module)->setAttr("onnx.opset_import", b.getDictionaryAttr(opsetAttrs));
  (*module)->setAttr("onnx.ir_version", b.getI64IntegerAttr(m.ir_version()));
  if (!m.producer_name().empty())
    (*module)->setAttr("onnx.producer_name", b.getStringAttr(m.producer_name()));
  if (!m.producer_version().empty())
    (*module)->setAttr("onnx.producer_version", b.getStringAttr(m.producer_version()));

  if (Error e = functions.add(m))
    return makeError(model.path + ": " + toString(std::move(e)));

  ::onnx::GraphProto &graph = *m.mutable_graph();
  llvm::StringSet<> initializerNames;
  for (const auto &init : graph.initializer())
    initializerNames.insert(init.name());

  // Inputs that have an initializer are constants with a default value; the
  // compiled model treats them as weights. A map input is two arguments, its
  // keys and its values, whose length is a symbolic dim of its own (the first
  // of "count(NAME)", "count(NAME)'", ... no input or output dim names).
  SmallVector<Type> argTypes;
  SmallVector<const ::onnx::ValueInfoProto *> inputs;
  SmallVector<StringRef> mapParts; // "", "keys" or "values", per argument
  std::vector<std::vector<std::string>> symbols = inputDimSymbols(graph);
  SmallVector<std::string> mapSymbols; // per argument, "" for tensors
  SmallVector<size_t> symbolIndex;     // per argument, its input's in `symbols`
  size_t nextInput = 0;
  for (const auto &in : graph.input()) {
    if (initializerNames.count(in.name()))
      continue;
    size_t index = nextInput++;
    if (in.type().has_map_type()) {
      const auto &map = in.type().map_type();
      Type key = elementTypeFor(ctx, map.key_type());
      if (key && !key.isSignlessInteger(64) && !isa<onnx::StringType>(key))
        key = Type();
      Type value;
      if (map.value_type().has_tensor_type())
        value = elementTypeFor(ctx, map.value_type().tensor_type().elem_type());
      if (!key || !value ||
          !(value.isF32() || value.isF64() || value.isSignlessInteger(64) ||
            isa<onnx::StringType>(value)))
        return makeError(model.path + ": graph input '" + in.name() +
                         "' is a map onnxcc does not support (keys int64 or string, values "
                         "float, double, int64 or string)");
      std::string symbol = symbols[index].front();
      for (auto [part, elem] : {std::pair(StringRef("keys"), key), std::pair(StringRef("values"), value)}) {
        argTypes.push_back(RankedTensorType::get({ShapedType::kDynamic}, elem));
        inputs.push_back(&in);
        mapParts.push_back(part);
        mapSymbols.push_back(symbol);
        symbolIndex.push_back(index);
      }
      continue;
    }
    auto t = convertType(in.type(), "graph input '" + in.name() + "'");
    if (!t)
      return makeError(model.path + ": " + toString(t.takeError()));
    argTypes.push_back(*t);
    inputs.push_back(&in);
    mapParts.push_back("");
    mapSymbols.push_back("");
    symbolIndex.push_back(index);
  }

  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, loc, options.funcName,
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  Scope &scope = scopes.emplace_back();
  scope.graphName = graph.name();
  for (const auto &vi : graph.value_info())
    if (vi.has_type())
      scope.valueInfo[vi.name()] = &vi.type();
  for (const auto &vi : graph.output())
    if (vi.has_type())
      scope.valueInfo[vi.name()] = &vi.type();

  for (auto [i, in] : llvm::enumerate(inputs)) {
    func.setArgAttr(i, "onnx.name", b.getStringAttr(in->name()));
    if (!mapParts[i].empty()) {
      // A map's keys or values: [count(NAME)].
      func.setArgAttr(i, "onnxcc.map_part", b.getStringAttr(mapParts[i]));
      StringAttr symbol = b.getStringAttr(mapSymbols[i]);
      func.setArgAttr(i, "onnx.dim_params", b.getArrayAttr({symbol}));
      shapeMap.set(entry->getArgument(i), onnx::Shape{onnx::Dim::named(symbol)});
      if (mapParts[i] == "values") {
        mapInputs[entry->getArgument(i - 1)] = entry->getArgument(i);
        continue;
      }
      if (scope.values.count(in->name()))
        return makeError(model.path + ": graph input '" + in->name() + "' is declared twice");
      scope.values[in->name()] = entry->getArgument(i);
      continue;
    }
    // Every dynamic dim of a ranked input has a symbol (inputDimSymbols).
    SmallVector<Attribute> params;
    if (isa<RankedTensorType>(argTypes[i]) &&
        !cast<RankedTensorType>(argTypes[i]).hasStaticShape())
      for (const std::string &symbol : symbols[symbolIndex[i]])
        params.push_back(b.getStringAttr(symbol));
    if (!params.empty()) {
      func.setArgAttr(i, "onnx.dim_params", b.getArrayAttr(params));
      // Seed the symbolic shape of the argument.
      onnx::Shape shape;
      for (auto [d, p] : llvm::zip(cast<RankedTensorType>(argTypes[i]).getShape(), params)) {
        StringRef name = cast<StringAttr>(p).getValue();
        shape.push_back(!ShapedType::isDynamic(d) ? onnx::Dim::known(d)
                        : name.empty()            ? onnx::Dim::unknown()
                                                  : onnx::Dim::named(cast<StringAttr>(p)));
      }
      shapeMap.set(entry->getArgument(i), shape);
    }
    if (scope.values.count(in->name()))
      return makeError(model.path + ": graph input '" + in->name() + "' is declared twice");
    scope.values[in->name()] = entry->getArgument(i);
  }
  for (auto &init : *graph.mutable_initializer()) {
    auto v = importInitializer(init);
    if (!v)
      return makeError(model.path + ": " + toString(v.takeError()));
    if (scope.values.count(init.name()))
      return makeError(model.path + ": initializer '" + init.name() + "' is declared twice");
    scope.values[init.name()] = *v;
  }
  if (Error e = importNodes(graph))
    return std::move(e);

  SmallVector<Value> results;
  llvm::StringSet<> outputNames;
  for (const auto &out : graph.output()) {
    if (!outputNames.insert(out.name()).second)
      return makeError(model.path + ": graph output '" + out.name() + "' is listed twice");
    auto v = lookupValue(out.name());
    if (!v) {
      llvm::consumeError(v.takeError());
      return makeError(model.path + ": graph output '" + out.name() +
                       "' is not produced by any node, initializer or input");
    }
    if (mapInputs.count(*v))
      return makeError(model.path + ": graph output '" + out.name() +
                       "' is a map input, which onnxcc cannot return");
    results.push_back(*v);
  }
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, loc, results);
  func.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(graph.output())) {
    func.setResultAttr(i, "onnx.name", b.getStringAttr(out.name()));
    SmallVector<Attribute> params = dimParams(ctx, out.type());
    if (!params.empty())
      func.setResultAttr(i, "onnx.dim_params", b.getArrayAttr(params));
    // A static shape the model declares where the data decides the dims
    // (a Reduce* with axes given at run time): the Halide target compiles
    // for it and checks it at run time (onnxcc-declared-result-shapes).
    auto type = dyn_cast<RankedTensorType>(results[i].getType());
    if (type && !type.hasStaticShape() && out.type().has_tensor_type() &&
        out.type().tensor_type().has_shape() &&
        out.type().tensor_type().shape().dim_size() == type.getRank()) {
      SmallVector<int64_t> dims;
      for (const auto &d : out.type().tensor_type().shape().dim())
        if (d.has_dim_value() && d.dim_value() >= 0 && d.dim_value() <= (int64_t(1) << 40))
          dims.push_back(d.dim_value());
      if (static_cast<int64_t>(dims.size()) == type.getRank())
        func.setResultAttr(i, "onnx.declared_shape", b.getDenseI64ArrayAttr(dims));
    }
  }
  if (Error e = markZipMapOutputs(func))
    return makeError(model.path + ": " + toString(std::move(e)));

  std::string diagnostic;
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      if (diagnostic.empty())
        diagnostic = d.str();
      return success();
    });
    if (failed(mlir::verify(*module)))
      return makeError(model.path + ": the imported model does not verify: " + diagnostic);
  }
  return std::move(module);
}

/// DictVectorizer and CastMap (ai.onnx.ml opset 1) of a map graph input:
/// onnx.MapDictVectorizer / onnx.MapCast over its keys and values.
Error GraphImporter::importMapNode(const ::onnx::NodeProto &node, int index) {
  StringRef op = node.op_type();
  if (node.input_size() != 1 || node.output_size() != 1)
    return makeError(op + " takes one input and gives one output");
  auto x = lookupValue(node.input(0));
  if (!x)
    return x.takeError();
  Value keys = *x, values = mapValuesOf(keys);
  if (!values)
    return makeError("input '" + node.input(0) +
                     "' is not a map graph input (onnxcc takes maps only as graph inputs)");
  Type keyType = cast<TensorType>(keys.getType()).getElementType();
  Type valueType = cast<TensorType>(values.getType()).getElementType();
  std::optional<SmallVector<int64_t>> intVocabulary;
  std::optional<SmallVector<StringRef>> stringVocabulary;
  std::string castTo = "TO_FLOAT", mapForm = "DENSE";
  int64_t maxMap = 1;
  for (const auto &a : node.attribute()) {
    StringRef name = a.name();
    if (op == "DictVectorizer" && name == "int64_vocabulary")
      intVocabulary.emplace(a.ints().begin(), a.ints().end());
    else if (op == "DictVectorizer" && name == "string_vocabulary")
      stringVocabulary.emplace(a.strings().begin(), a.strings().end());
    else if (op == "CastMap" && name == "cast_to")
      castTo = a.s();
    else if (op == "CastMap" && name == "map_form")
      mapForm = a.s();
    else if (op == "CastMap" && name == "max_map")
      maxMap = a.i();
    else
      return makeError("unknown attribute '" + name + "'");
  }
  Location loc = nodeLoc(node, index);
  Value result;
  if (op == "DictVectorizer") {
    if (!intVocabulary == !stringVocabulary)
      return makeError("exactly one of int64_vocabulary and string_vocabulary must be given");
    if (isa<onnx::StringType>(keyType) != stringVocabulary.has_value())
      return makeError("the vocabulary's type is not the map's key type");
    int64_t size = intVocabulary ? intVocabulary->size() : stringVocabulary->size();
    auto type = RankedTensorType::get({1, size}, valueType);
    result = onnx::MapDictVectorizerOp::create(
        builder, loc, type, keys, values,
        intVocabulary ? builder.getDenseI64ArrayAttr(*intVocabulary) : DenseI64ArrayAttr(),
        stringVocabulary ? builder.getStrArrayAttr(*stringVocabulary) : ArrayAttr());
  } else {
    if (!keyType.isInteger(64) || !(valueType.isF32() || isa<onnx::StringType>(valueType)))
      return makeError("CastMap takes a map from int64 to float or string");
    Type to = castTo == "TO_FLOAT"    ? Type(builder.getF32Type())
              : castTo == "TO_INT64"  ? Type(builder.getI64Type())
              : castTo == "TO_STRING" ? Type(onnx::StringType::get(ctx))
                                      : Type();
    if (!to)
      return makeError("cast_to '" + castTo + "' is not TO_FLOAT, TO_INT64 or TO_STRING");
    if (mapForm != "DENSE" && mapForm != "SPARSE")
      return makeError("map_form '" + mapForm + "' is not DENSE or SPARSE");
    if (mapForm == "SPARSE" && maxMap <= 0)
      return makeError("max_map must be positive for map_form SPARSE");
    auto type = RankedTensorType::get({1, mapForm == "SPARSE" ? maxMap : ShapedType::kDynamic},
                                      to);
    result = onnx::MapCastOp::create(builder, loc, type, keys, values, castTo, mapForm, maxMap);
  }
  return bindOutput(node.output(0), result);
}

/// The node an op was imported from, for messages.
static std::string opLabel(Operation *op) {
  std::string name;
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    name = loc.getName().str();
  return "node '" + name + "' (" + op->getName().stripDialect().str() + ")";
}

/// ZipMap's sequence of maps is held as its values, [N, C] (ImportML.cpp),
/// which only a graph output can take: the output then carries the class
/// labels as `onnxcc.map_keys` (int64 or string attributes), the keys of every
/// map, for the generated tables, `optimize` and `verify`.
Error GraphImporter::markZipMapOutputs(func::FuncOp func) {
  Block &entry = func.getBody().front();
  Operation *ret = entry.getTerminator();
  Error error = Error::success();
  func.walk([&](onnx::MLZipMapOp zip) {
    if (error)
      return WalkResult::interrupt();
    for (OpOperand &use : zip.getZ().getUses()) {
      if (use.getOwner() == ret)
        continue;
      error = makeError(opLabel(zip) + ": its sequence of maps is read by " +
                        opLabel(use.getOwner()) +
                        "; onnxcc takes a ZipMap's result only as a graph output");
      return WalkResult::interrupt();
    }
    Attribute keys;
    if (auto strings = zip.getClasslabelsStrings())
      keys = *strings;
    else if (auto ints = zip.getClasslabelsInt64s())
      keys = builder.getI64ArrayAttr(*ints);
    for (OpOperand &use : zip.getZ().getUses())
      func.setResultAttr(use.getOperandNumber(), "onnxcc.map_keys", keys);
    return WalkResult::advance();
  });
  return error;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

OpBuilder &NodeContext::builder() { return importer.getBuilder(); }
Location NodeContext::loc() { return importer.nodeLoc(node, index); }

Expected<Value> NodeContext::input(unsigned i) {
  if (!hasInput(i))
    return importer.noValue();
  auto v = importer.lookupValue(node.input(i));
  if (v && importer.mapValuesOf(*v))
    return makeError("input '" + node.input(i) +
                     "' is a map, which onnxcc passes only to DictVectorizer and CastMap");
  if (v && v->getDefiningOp<onnx::MLZipMapOp>())
    return makeError("input '" + node.input(i) +
                     "' is a ZipMap's sequence of maps, which onnxcc takes only as a graph "
                     "output");
  return v;
}

const ::onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::intAttr(StringRef name, int64_t defaultValue) const {
  const auto *a = attr(name);
  return a ? a->i() : defaultValue;
}

float NodeContext::floatAttr(StringRef name, float defaultValue) const {
  const auto *a = attr(name);
  return a ? a->f() : defaultValue;
}

std::string NodeContext::stringAttr(StringRef name, StringRef defaultValue) const {
  const auto *a = attr(name);
  return a ? a->s() : defaultValue.str();
}

std::optional<SmallVector<int64_t>> NodeContext::intsAttr(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

Value NodeContext::constI64(ArrayRef<int64_t> values, bool scalar) {
  auto type = scalar ? RankedTensorType::get({}, builder().getI64Type())
                     : RankedTensorType::get({static_cast<int64_t>(values.size())},
                                             builder().getI64Type());
  Value v = importer.makeConstantPublic(loc(), DenseIntElementsAttr::get(type, values));
  return v;
}

Value NodeContext::constScalar(Type elementType, double v) {
  auto type = RankedTensorType::get({}, elementType);
  ElementsAttr attr;
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    APFloat f(v);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    attr = DenseElementsAttr::get(type, f);
  } else {
    attr = DenseElementsAttr::get(
        type, APInt(elementType.getIntOrFloatBitWidth(), static_cast<int64_t>(v),
                    /*isSigned=*/true));
  }
  return importer.makeConstantPublic(loc(), attr);
}

Value NodeContext::noValue() { return importer.noValue(); }

Expected<Operation *> NodeContext::build(StringRef opType, ArrayRef<Value> operands,
                                         ArrayRef<NamedAttribute> attrs, unsigned numResults,
                                         bool asNodeOutputs) {
  SmallVector<std::string> names;
  if (asNodeOutputs)
    names.assign(node.output().begin(), node.output().end());
  return importer.buildOp(*this, opType, operands, attrs, numResults, names);
}

RankedTensorType GraphImporter::declaredTensorType(StringRef name) {
  const ::onnx::TypeProto *declared = findValueInfo(name);
  if (!declared || !declared->has_tensor_type() || !declared->tensor_type().has_shape() ||
      declared->tensor_type().elem_type() == ::onnx::TensorProto::UNDEFINED)
    return {};
  auto t = convertType(*declared, ("value '" + name + "'").str());
  if (!t) {
    llvm::consumeError(t.takeError());
    return {};
  }
  return dyn_cast<RankedTensorType>(*t);
}

Error NodeContext::bindName(StringRef name, Value v) { return importer.bindOutput(name, v); }

Expected<Value> NodeContext::lookupName(StringRef name) { return importer.lookupValue(name); }

std::string NodeContext::freshName(StringRef hint) {
  for (unsigned k = 0;; ++k) {
    std::string name = ("\x01onnxcc." + hint + "." + Twine(index) + "." + Twine(k)).str();
    auto v = importer.lookupValue(name);
    if (!v) {
      llvm::consumeError(v.takeError());
      return name;
    }
  }
}

RankedTensorType NodeContext::declaredOutputType(unsigned i) {
  if (static_cast<int>(i) >= node.output_size() || node.output(i).empty())
    return {};
  return importer.declaredTensorType(node.output(i));
}

Error NodeContext::setOutput(unsigned i, Value v) {
  if (static_cast<int>(i) >= node.output_size())
    return Error::success();
  return importer.bindOutput(node.output(i), v);
}

Error NodeContext::importGeneric(ArrayRef<StringRef> dropAttrs) {
  return importer.importGenericNode(*this, dropAttrs);
}

Error NodeContext::error(const Twine &message) const { return makeError(message); }

Expected<ElementsAttr> NodeContext::convertTensor(const ::onnx::TensorProto &t, StringRef what) {
  return importer.convertTensor(t, what);
}

/// The raw little-endian bytes of a numeric elements attribute.
static std::optional<ArrayRef<char>> rawBytes(ElementsAttr attr, std::string &storage) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.getElementType().isInteger(1))
      return std::nullopt;
    ArrayRef<char> raw = dense.getRawData();
    if (!dense.isSplat())
      return raw;
    for (int64_t i = 0, n = dense.getNumElements(); i < n; ++i)
      storage.append(raw.data(), raw.size());
    return ArrayRef<char>(storage.data(), storage.size());
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

Expected<ElementsAttr> NodeContext::convertSparseTensor(const ::onnx::SparseTensorProto &t) {
  auto values = convertTensor(t.values(), "sparse_value values");
  if (!values)
    return values.takeError();
  auto indices = convertTensor(t.indices(), "sparse_value indices");
  if (!indices)
    return indices.takeError();
  int width = byteWidth(t.values().data_type());
  std::string valueStorage;
  auto valueBytes = rawBytes(*values, valueStorage);
  if (!width || !valueBytes || values->getShapedType().getRank() != 1 ||
      !indices->getElementType().isInteger(64))
    return error("sparse_value must have 1-D numeric values and int64 indices");
  SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
  int64_t total = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d && total > (int64_t(1) << 32) / d))
      return error("sparse_value has invalid dims");
    total *= d;
  }
  // The dense form is allocated here: bound it as the model file is bounded.
  if (total > (int64_t(1) << 31) / width)
    return error("sparse_value of " + Twine(total) + " elements expands to more than 2 GiB");
  int64_t nnz = values->getNumElements();
  auto idx = indices->tryGetValues<int64_t>();
  if (!idx)
    return error("sparse_value indices are not readable");
  SmallVector<int64_t> flat(idx->begin(), idx->end());
  auto idxShape = indices->getShapedType().getShape();
  bool coords = idxShape.size() == 2;
  if ((coords && (idxShape[0] != nnz || idxShape[1] != static_cast<int64_t>(dims.size()))) ||
      (!coords && static_cast<int64_t>(flat.size()) != nnz))
    return error("sparse_value indices do not match its values and dims");
  std::string dense(total * width, '\0');
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t linear = 0;
    if (coords) {
      for (size_t d = 0; d < dims.size(); ++d) {
        int64_t c = flat[i * dims.size() + d];
        if (c < 0 || c >= dims[d])
          return error("sparse_value index out of range");
        linear = linear * dims[d] + c;
      }
    } else {
      linear = flat[i];
    }
    if (linear < 0 || linear >= total)
      return error("sparse_value index out of range");
    memcpy(dense.data() + linear * width, valueBytes->data() + i * width, width);
  }
  auto type = RankedTensorType::get(dims, values->getElementType());
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(dense.data(), dense.size())));
}

Type elementTypeOfDataType(MLIRContext *ctx, int dataType) {
  return elementTypeFor(ctx, dataType);
}

} // namespace onnxcc::importer

namespace onnxcc {
Expected<OwningOpRef<ModuleOp>> importModel(MLIRContext &context, LoadedModel &model,
                                            const ImportOptions &options) {
  context.getOrLoadDialect<onnx::OnnxDialect>();
  context.getOrLoadDialect<func::FuncDialect>();
  importer::GraphImporter importer(&context, model, options);
  return importer.importModel();
}
std::vector<std::vector<std::string>> inputDimSymbols(const ::onnx::GraphProto &graph) {
  llvm::StringSet<> initializers, taken;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto *list : {&graph.input(), &graph.output()})
    for (const auto &v : *list)
      if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
        for (const auto &d : v.type().tensor_type().shape().dim())
          if (d.has_dim_param())
            taken.insert(d.dim_param());
  auto fresh = [&](std::string symbol) {
    while (taken.count(symbol))
      symbol += "'";
    taken.insert(symbol);
    return symbol;
  };
  std::vector<std::vector<std::string>> symbols;
  for (const auto &in : graph.input()) {
    if (initializers.count(in.name()))
      continue;
    std::vector<std::string> &dims = symbols.emplace_back();
    if (in.type().has_map_type()) {
      dims.push_back(fresh("count(" + in.name() + ")"));
      continue;
    }
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
      continue;
    for (const auto &[axis, d] : llvm::enumerate(in.type().tensor_type().shape().dim()))
      dims.push_back(d.has_dim_value()   ? ""
                     : !d.dim_param().empty() ? d.dim_param()
                                        : fresh(in.name() + ":" + std::to_string(axis)));
  }
  return symbols;
}

} // namespace onnxcc
