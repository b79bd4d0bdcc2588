// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// Every Reduce* op reduces the constant axes and keeps them as 1 by default.
// CHECK-LABEL: func.func @reduce_keepdims(
// CHECK: "onnx.ReduceSum"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceMean"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceMax"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceMin"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceProd"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceL1"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceL2"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceLogSum"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceLogSumExp"{{.*}} -> tensor<?x1x5xf32>
// CHECK: "onnx.ReduceSumSquare"{{.*}} -> tensor<?x1x5xf32>
func.func @reduce_keepdims(%a: tensor<?x4x5xf32> {onnx.dim_params = ["batch", "", ""]}) -> tensor<*xf32> {
  %ax = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.ReduceSum"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %1 = "onnx.ReduceMean"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %2 = "onnx.ReduceMax"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %3 = "onnx.ReduceMin"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %4 = "onnx.ReduceProd"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %5 = "onnx.ReduceL1"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %6 = "onnx.ReduceL2"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %7 = "onnx.ReduceLogSum"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %8 = "onnx.ReduceLogSumExp"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  %9 = "onnx.ReduceSumSquare"(%a, %ax) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %9 : tensor<*xf32>
}

// -----

/// keepdims = 0 drops the reduced axes; negative axes count from the end.
// CHECK-LABEL: func.func @reduce_drop_axes(
// CHECK: %[[R:.*]] = "onnx.ReduceMean"{{.*}} -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @reduce_drop_axes(%a: tensor<3x4x5xf32>) -> tensor<*xf32> {
  %ax = "onnx.Constant"() {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.ReduceMean"(%a, %ax) {keepdims = 0 : i64} : (tensor<3x4x5xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Absent axes reduce everything, unless noop_with_empty_axes is set.
// CHECK-LABEL: func.func @reduce_all_or_noop(
// CHECK: "onnx.ReduceMax"{{.*}} -> tensor<1x1xf32>
// CHECK: "onnx.ReduceMax"{{.*}} -> tensor<f32>
// CHECK: "onnx.ReduceMax"{{.*}} -> tensor<3x4xf32>
func.func @reduce_all_or_noop(%a: tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ReduceMax"(%a, %n) : (tensor<3x4xf32>, none) -> tensor<*xf32>
  %1 = "onnx.ReduceMax"(%a, %n) {keepdims = 0 : i64} : (tensor<3x4xf32>, none) -> tensor<*xf32>
  %2 = "onnx.ReduceMax"(%a, %n) {noop_with_empty_axes = 1 : i64} : (tensor<3x4xf32>, none) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Axes that are not constant: keepdims still gives the rank.
// CHECK-LABEL: func.func @reduce_dynamic_axes(
// CHECK: "onnx.ReduceSum"{{.*}} -> tensor<?x?x?xf32>
// CHECK: "onnx.ReduceSum"{{.*}} -> tensor<?xf32>
func.func @reduce_dynamic_axes(%a: tensor<3x4x5xf32>, %ax: tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.ReduceSum"(%a, %ax) : (tensor<3x4x5xf32>, tensor<2xi64>) -> tensor<*xf32>
  %1 = "onnx.ReduceSum"(%a, %ax) {keepdims = 0 : i64} : (tensor<3x4x5xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// ArgMax/ArgMin reduce one axis to int64 indices.
// CHECK-LABEL: func.func @arg_reduce(
// CHECK: "onnx.ArgMax"{{.*}} -> tensor<3x1xi64>
// CHECK: "onnx.ArgMin"{{.*}} -> tensor<4xi64>
func.func @arg_reduce(%a: tensor<3x4xf32>) -> (tensor<*xi64>, tensor<*xi64>) {
  %0 = "onnx.ArgMax"(%a) {axis = -1 : i64} : (tensor<3x4xf32>) -> tensor<*xi64>
  %1 = "onnx.ArgMin"(%a) {keepdims = 0 : i64} : (tensor<3x4xf32>) -> tensor<*xi64>
  return %0, %1 : tensor<*xi64>, tensor<*xi64>
}
