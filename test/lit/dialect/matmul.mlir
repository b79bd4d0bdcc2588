// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// MatMul broadcasts batch dims numpy-style.
// CHECK-LABEL: func.func @matmul_batch_broadcast(
// CHECK: %[[Y:.*]] = "onnx.MatMul"{{.*}} -> tensor<2x5x3x6xf32>
// CHECK: return %[[Y]]
func.func @matmul_batch_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<*xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// 1-D operands are promoted and the promoted dim removed again.
// CHECK-LABEL: func.func @matmul_vectors(
// CHECK: "onnx.MatMul"{{.*}} -> tensor<5xf32>
// CHECK: "onnx.MatMul"{{.*}} -> tensor<3xf32>
// CHECK: "onnx.MatMul"{{.*}} -> tensor<f32>
func.func @matmul_vectors(%v: tensor<4xf32>, %m: tensor<4x5xf32>, %n: tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.MatMul"(%v, %m) : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  %1 = "onnx.MatMul"(%n, %v) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<*xf32>
  %2 = "onnx.MatMul"(%v, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// The symbolic rows of A stay; the columns come from B.
// CHECK-LABEL: func.func @matmul_symbolic(
// CHECK: "onnx.MatMul"{{.*}} -> tensor<?x7xf32>
func.func @matmul_symbolic(%a: tensor<?x4xf32> {onnx.dim_params = ["tokens", ""]}, %b: tensor<4x7xf32>) -> tensor<*xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x4xf32>, tensor<4x7xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Gemm with transA and transB; C broadcasts to [M, N].
// CHECK-LABEL: func.func @gemm_transposed(
// CHECK: %[[Y:.*]] = "onnx.Gemm"{{.*}} -> tensor<3x5xf32>
// CHECK: return %[[Y]]
func.func @gemm_transposed(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> tensor<*xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) {transA = 1 : i64, transB = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Einsum with an explicit output, an implicit one, and an ellipsis.
// CHECK-LABEL: func.func @einsum(
// CHECK: "onnx.Einsum"{{.*}} -> tensor<2x4xf32>
// CHECK: "onnx.Einsum"{{.*}} -> tensor<2x4xf32>
// CHECK: "onnx.Einsum"{{.*}} -> tensor<5x2x4xf32>
// CHECK: "onnx.Einsum"{{.*}} -> tensor<3x2xf32>
func.func @einsum(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Einsum"(%a, %b) {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  %1 = "onnx.Einsum"(%a, %b) {equation = "ij,jk"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  %2 = "onnx.Einsum"(%c, %b) {equation = "...ij,jk->...ik"} : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  %3 = "onnx.Einsum"(%a) {equation = "ij->ji"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
