//===- Importer.h - ONNX ModelProto to the onnx dialect -------------------===//
#ifndef ONNXCC_COMPILER_IMPORTER_H
#define ONNXCC_COMPILER_IMPORTER_H

#include "compiler/ModelLoader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

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

} // namespace onnxcc

#endif // ONNXCC_COMPILER_IMPORTER_H
