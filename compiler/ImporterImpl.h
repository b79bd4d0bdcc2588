//===- ImporterImpl.h - Internals shared by the importer and its opset handlers
#ifndef ONNXCC_COMPILER_IMPORTERIMPL_H
#define ONNXCC_COMPILER_IMPORTERIMPL_H

#include "onnx.pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace onnxcc::importer {

/// How the generated schema table describes an attribute.
enum class AttrKind {
  Int, Float, String, Ints, Floats, Strings, Tensor, SparseTensor,
  TypeProto, Tensors, TypeProtos, Graph
};

struct InputSpec {
  const char *name;
  char option; // 's' single, 'o' optional, 'v' variadic
};
struct AttrSpec {
  const char *name;
  AttrKind kind;
};
/// Where an output's element type comes from: the operand `input` with the
/// same type variable, else the single type `typeStr`, else unknown.
struct OutTypeRule {
  int input;
  const char *typeStr;
  char option; // 's' single, 'o' optional, 'v' variadic
};

/// One operator of the dialect as the ONNX schemas describe it: the version
/// the dialect implements (`latestSince`), every version up to kMaxOpset, and
/// those that import as the implemented one without a handler.
struct OpSchemaInfo {
  llvm::StringRef name;
  int latestSince;
  llvm::ArrayRef<int> allSince;
  llvm::ArrayRef<int> compatibleSince;
  llvm::ArrayRef<InputSpec> inputs;
  llvm::ArrayRef<AttrSpec> attrs;
  llvm::ArrayRef<OutTypeRule> outputs;

  const AttrSpec *findAttr(llvm::StringRef attrName) const;
};

/// The schema of `opType` in ai.onnx, or null when the dialect has no such op.
const OpSchemaInfo *lookupSchema(llvm::StringRef opType);

/// TensorProto data types newer than the onnx.proto onnxcc compiles (ONNX
/// 1.14 to 1.23): the float8, 4-bit and 2-bit types.
enum NewDataType : int {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

/// Elements one byte of a TensorProto's raw_data holds: 2 for the 4-bit
/// types, 4 for the 2-bit ones (low bits first), 1 otherwise. onnxcc keeps
/// them one per byte in memory (see codegen/cpp/ABI.md).
int64_t elementsPerByte(int dataType);

/// The element type of TensorProto data type `dataType`, or null.
mlir::Type elementTypeOfDataType(mlir::MLIRContext *ctx, int dataType);

/// Newest opset of ai.onnx the importer knows.
constexpr int64_t kMaxOpset = 28;
/// Newest opset whose operator versions the dialect defines: every op of the
/// dialect has the form of its newest version up to this opset (Reduce* that of
/// opset 18), the least opset the exporter writes (compiler/Exporter.cpp).
constexpr int64_t kImplementedOpset = 17;

class GraphImporter;

/// What an opset-normalization handler sees of the node it rewrites.
class NodeContext {
public:
  NodeContext(GraphImporter &importer, const ::onnx::NodeProto &node, int index,
              int64_t opset, int sinceVersion)
      : importer(importer), node(node), index(index), opset(opset),
        sinceVersion(sinceVersion) {}

  GraphImporter &importer;
  const ::onnx::NodeProto &node;
  int index;
  int64_t opset;
  int sinceVersion;

  mlir::OpBuilder &builder();
  mlir::Location loc();

  /// Node input `i`; an absent input gives the value of onnx.NoValue.
  llvm::Expected<mlir::Value> input(unsigned i);
  unsigned numInputs() const { return node.input_size(); }
  bool hasInput(unsigned i) const {
    return static_cast<int>(i) < node.input_size() && !node.input(i).empty();
  }
  const ::onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t intAttr(llvm::StringRef name, int64_t defaultValue) const;
  float floatAttr(llvm::StringRef name, float defaultValue) const;
  std::string stringAttr(llvm::StringRef name, llvm::StringRef defaultValue) const;
  std::optional<llvm::SmallVector<int64_t>> intsAttr(llvm::StringRef name) const;

  /// An onnx.Constant holding `values` as a 1-D i64 tensor (or a scalar).
  mlir::Value constI64(llvm::ArrayRef<int64_t> values, bool scalar = false);
  /// An onnx.Constant scalar of `elementType` with value `v`.
  mlir::Value constScalar(mlir::Type elementType, double v);
  mlir::Value noValue();

  /// Builds op `opType` of the dialect through the importer's generic path
  /// (result types, verification, shape inference). `numResults` results;
  /// `asNodeOutputs` when they are the node's outputs, whose declared types
  /// (value_info, graph outputs) then refine theirs.
  llvm::Expected<mlir::Operation *>
  build(llvm::StringRef opType, llvm::ArrayRef<mlir::Value> operands,
        llvm::ArrayRef<mlir::NamedAttribute> attrs, unsigned numResults = 1,
        bool asNodeOutputs = false);
  /// The ranked tensor type the model declares for node output `i` (its
  /// value_info or graph output; a dim_param dim is dynamic), or null.
  mlir::RankedTensorType declaredOutputType(unsigned i);
  /// Binds the graph name `name` to `v` in the current scope (an error
  /// when it is already bound), and looks names up.
  llvm::Error bindName(llvm::StringRef name, mlir::Value v);
  llvm::Expected<mlir::Value> lookupName(llvm::StringRef name);
  /// A name no value of the scopes has yet, for values a handler passes to
  /// nodes it imports itself (it starts with a control character).
  std::string freshName(llvm::StringRef hint);
  /// Binds node output `i` to `v`.
  llvm::Error setOutput(unsigned i, mlir::Value v);
  /// Imports the node as it is (generic path), after dropping `dropAttrs`.
  llvm::Error importGeneric(llvm::ArrayRef<llvm::StringRef> dropAttrs = {});

  /// Converts a TensorProto (an attribute's) to an elements attribute.
  llvm::Expected<mlir::ElementsAttr> convertTensor(const ::onnx::TensorProto &t,
                                                   llvm::StringRef what);
  /// Expands a SparseTensorProto into a dense elements attribute.
  llvm::Expected<mlir::ElementsAttr>
  convertSparseTensor(const ::onnx::SparseTensorProto &t);

  /// An error naming this node.
  llvm::Error error(const llvm::Twine &message) const;
};

using NormalizeFn = llvm::Error (*)(NodeContext &);

/// The handler that brings (opType, since-version) to the dialect's form, if
/// one is registered.
NormalizeFn lookupNormalization(llvm::StringRef opType, int sinceVersion);

} // namespace onnxcc::importer

#endif // ONNXCC_COMPILER_IMPORTERIMPL_H
