//===- ImportML.h - Import of ai.onnx.ml operators -----------------------===//
//
// The ai.onnx.ml operators are the dialect's ops `onnx.ml.<Name>`; their
// schema table (dialects/onnx/OnnxMLSchema.gen.inc) is keyed "ml.<Name>".
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_COMPILER_IMPORTML_H
#define ONNXCC_COMPILER_IMPORTML_H

#include "mlir/IR/Builders.h"
#include "llvm/Support/Error.h"

namespace onnx {
class NodeProto;
class TypeProto;
} // namespace onnx

namespace onnxcc::importer {

class GraphImporter;

/// Imports `node` (domain ai.onnx.ml, whose opset the model imports at
/// `opset`) as the op ml.<op_type> at the version the dialect implements.
llvm::Error importMLNode(GraphImporter &importer, const ::onnx::NodeProto &node, int index,
                         int64_t opset);

/// The type of result `index` of ml op `opType` ("ml.<Name>") where an
/// attribute decides it (class labels, LabelEncoder's values, CategoryMapper's
/// direction); null where the schema's type variables do.
mlir::Type mlResultType(mlir::MLIRContext *ctx, llvm::StringRef opType, unsigned index,
                        llvm::ArrayRef<mlir::Value> operands,
                        llvm::ArrayRef<mlir::NamedAttribute> attrs);

/// Checks the type a model declares for ZipMap's output: a sequence of maps
/// from the labels' type (string or int64) to float.
llvm::Error checkZipMapDeclaration(const ::onnx::TypeProto &declared, bool stringLabels);

} // namespace onnxcc::importer

#endif // ONNXCC_COMPILER_IMPORTML_H
