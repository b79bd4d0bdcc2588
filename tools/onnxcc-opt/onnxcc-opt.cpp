//===- onnxcc-opt.cpp - mlir-opt with the onnxcc dialects and passes -----===//
#include "compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  onnxcc::registerAllDialects(registry);
  onnxcc::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "onnxcc optimizer driver\n", registry));
}
