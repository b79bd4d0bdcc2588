//===- OnnxDialect.h - The onnx dialect ---------------------------------===//
#ifndef ONNXCC_DIALECTS_ONNX_ONNXDIALECT_H
#define ONNXCC_DIALECTS_ONNX_ONNXDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "dialects/onnx/OnnxOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/onnx/OnnxOpsTypes.h.inc"

#endif // ONNXCC_DIALECTS_ONNX_ONNXDIALECT_H
