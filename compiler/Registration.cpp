//===- Registration.cpp - Dialects and passes onnxcc tools use -----------===//
#include "compiler/Registration.h"

#include "dialects/onnx/OnnxDialect.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/Passes.h"

namespace onnxcc {

void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<onnx::OnnxDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
}

void registerAllPasses() {
  onnx::registerOnnxTransformsPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
}

} // namespace onnxcc
