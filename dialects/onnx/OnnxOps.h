//===- OnnxOps.h - The operators of the onnx dialect --------------------===//
#ifndef ONNXCC_DIALECTS_ONNX_ONNXOPS_H
#define ONNXCC_DIALECTS_ONNX_ONNXOPS_H

#include "dialects/onnx/OnnxDialect.h"
#include "dialects/onnx/ShapeContext.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/onnx/OnnxInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/onnx/OnnxOps.h.inc"

#endif // ONNXCC_DIALECTS_ONNX_ONNXOPS_H
