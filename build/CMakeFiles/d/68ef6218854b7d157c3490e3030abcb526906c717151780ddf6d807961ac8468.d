dialects/onnx/OnnxInterfaces.cpp.inc: \
  /usr/lib/llvm-22/include/mlir/IR/AttrTypeBase.td \
  /usr/lib/llvm-22/include/mlir/IR/CommonAttrConstraints.td \
  /usr/lib/llvm-22/include/mlir/IR/CommonTypeConstraints.td \
  /usr/lib/llvm-22/include/mlir/IR/Constraints.td \
  /usr/lib/llvm-22/include/mlir/IR/DialectBase.td \
  /usr/lib/llvm-22/include/mlir/IR/Interfaces.td \
  /usr/lib/llvm-22/include/mlir/IR/OpBase.td \
  /usr/lib/llvm-22/include/mlir/IR/Properties.td \
  /usr/lib/llvm-22/include/mlir/IR/Traits.td \
  /usr/lib/llvm-22/include/mlir/IR/Utils.td
