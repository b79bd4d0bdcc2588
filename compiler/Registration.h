//===- Registration.h - Dialects and passes onnxcc tools use -------------===//
#ifndef ONNXCC_COMPILER_REGISTRATION_H
#define ONNXCC_COMPILER_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace onnxcc {

/// Adds the onnx dialect and the upstream dialects the pipeline produces.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the project's passes and upstream passes used in its pipelines.
void registerAllPasses();

} // namespace onnxcc

#endif // ONNXCC_COMPILER_REGISTRATION_H
