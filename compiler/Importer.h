//===- Importer.h - ONNX ModelProto to the onnx dialect -------------------===//
#ifndef ONNXCC_COMPILER_IMPORTER_H
#define ONNXCC_COMPILER_IMPORTER_H

#include "compiler/ModelLoader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

namespace onnx {
class GraphProto;
} // namespace onnx

namespace onnxcc {

struct ImportOptions {
  /// Run each op's shape function while importing.
  bool inferShapes = true;
  /// Name of the function the main graph becomes.
  std::string funcName = "main_graph";
};

/// Imports `model` into a module holding one func.func for its main graph.
/// Large initializers move into resource blobs (no second copy of their
/// bytes), so `model.proto` is left without them. Every error is one line
/// naming the node (name and index), op, domain and opset.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importModel(mlir::MLIRContext &context, LoadedModel &model,
            const ImportOptions &options = {});

/// The symbol of each dim of each graph input that is not an initializer,
/// in order: the dim's dim_param; for a dim with neither dim_value nor
/// dim_param (ONNX Runtime takes any size there), one of its own named after
/// the input and the axis, "NAME:AXIS", primed until no dim_param of the
/// model's inputs and outputs has that name; "" for a dim with a size. A map
/// input has one, its length: "count(NAME)". An input without a shape has
/// none. The compiled code takes these symbols; verify binds them to a
/// dataset's dims the same way.
std::vector<std::vector<std::string>> inputDimSymbols(const ::onnx::GraphProto &graph);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_IMPORTER_H
