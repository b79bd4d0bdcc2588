//===- OnnxDialect.cpp - The onnx dialect and its types -----------------===//
#include "dialects/onnx/OnnxDialect.h"
#include "dialects/onnx/OnnxOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxcc::onnx;

#include "dialects/onnx/OnnxOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/onnx/OnnxOpsTypes.cpp.inc"

void OnnxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/onnx/OnnxOps.cpp.inc"
      >();
  registerTypes();
}

void OnnxDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/onnx/OnnxOpsTypes.cpp.inc"
      >();
}
