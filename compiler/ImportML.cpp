//===- ImportML.cpp - Import of ai.onnx.ml operators ---------------------===//
#include "compiler/ImportML.h"
#include "compiler/Errors.h"
#include "compiler/ImporterImpl.h"
#include "dialects/onnx/OnnxOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc::importer {

/// Newest ai.onnx.ml opset the importer knows.
constexpr int64_t kMaxMLOpset = 5;

Error importMLNode(GraphImporter &importer, const ::onnx::NodeProto &node, int index,
                   int64_t opset) {
  if (opset > kMaxMLOpset)
    return makeError("opset " + Twine(opset) +
                     " of domain ai.onnx.ml is newer than the newest onnxcc "
                     "supports (" +
                     Twine(kMaxMLOpset) + ")");
  ::onnx::NodeProto renamed = node;
  renamed.set_op_type("ml." + node.op_type());
  const OpSchemaInfo *schema = lookupSchema(renamed.op_type());
  if (!schema)
    return makeError("unknown operator '" + node.op_type() + "' of domain ai.onnx.ml");
  int since = 0;
  for (int v : schema->allSince)
    if (v <= opset)
      since = v;
  if (!since)
    return makeError(node.op_type() + " does not exist in ai.onnx.ml opset " + Twine(opset) +
                     " (it was introduced in opset " + Twine(schema->allSince.front()) + ")");
  if (!llvm::is_contained(schema->compatibleSince, since))
    return makeError("the ai.onnx.ml opset " + Twine(since) + " version of " + node.op_type() +
                     " is not supported (it differs from opset " + Twine(schema->latestSince) +
                     ", the version onnxcc implements)");
  NodeContext nc(importer, renamed, index, opset, since);
  return nc.importGeneric();
}

namespace {
Attribute attrNamed(ArrayRef<NamedAttribute> attrs, StringRef name) {
  for (const NamedAttribute &a : attrs)
    if (a.getName() == name)
      return a.getValue();
  return {};
}

Type tensorOf(Type elem) { return elem ? UnrankedTensorType::get(elem) : Type(); }
} // namespace

Type mlResultType(MLIRContext *ctx, StringRef opType, unsigned index, ArrayRef<Value> operands,
                  ArrayRef<NamedAttribute> attrs) {
  Type i64 = IntegerType::get(ctx, 64), str = onnx::StringType::get(ctx);
  Type f32 = Float32Type::get(ctx);
  if (opType == "ml.LinearClassifier" || opType == "ml.SVMClassifier" ||
      opType == "ml.TreeEnsembleClassifier")
    return tensorOf(index == 0 ? (attrNamed(attrs, "classlabels_strings") ? str : i64) : f32);
  if (opType == "ml.LabelEncoder") {
    if (auto t = dyn_cast_or_null<ElementsAttr>(attrNamed(attrs, "values_tensor")))
      return tensorOf(t.getElementType());
    if (attrNamed(attrs, "values_strings"))
      return tensorOf(str);
    if (attrNamed(attrs, "values_floats"))
      return tensorOf(f32);
    return tensorOf(i64);
  }
  if (opType == "ml.CategoryMapper" && !operands.empty())
    if (auto t = dyn_cast<TensorType>(operands[0].getType()))
      return tensorOf(isa<onnx::StringType>(t.getElementType()) ? i64 : str);
  // The sequence of maps is held as its values (MLShapes.cpp): X's type.
  if (opType == "ml.ZipMap" && !operands.empty())
    if (auto t = dyn_cast<TensorType>(operands[0].getType()))
      return t;
  return {};
}

Error checkZipMapDeclaration(const ::onnx::TypeProto &declared, bool stringLabels) {
  auto wrong = [&] {
    return makeError(Twine("its output is declared as another type than ZipMap's "
                           "sequence of maps from ") +
                     (stringLabels ? "string" : "int64") + " to float");
  };
  if (!declared.has_sequence_type() || !declared.sequence_type().elem_type().has_map_type())
    return wrong();
  const auto &map = declared.sequence_type().elem_type().map_type();
  int key = stringLabels ? ::onnx::TensorProto::STRING : ::onnx::TensorProto::INT64;
  if (map.key_type() != key || !map.value_type().has_tensor_type() ||
      map.value_type().tensor_type().elem_type() != ::onnx::TensorProto::FLOAT)
    return wrong();
  return Error::success();
}

} // namespace onnxcc::importer
