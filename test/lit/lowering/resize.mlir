// RUN: onnxcc-opt %s --convert-onnx-to-linalg --split-input-file -verify-diagnostics | FileCheck %s

/// Nearest with constant scales: each resized axis maps its position through
/// x / scale (asymmetric), floors it, and reads one clamped position; the
/// unchanged N and C axes read their own position.
// CHECK-LABEL: func.func @nearest_asymmetric_floor
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x2x2xf32>)
// CHECK: linalg.generic
// CHECK-DAG: %[[N:.*]] = linalg.index 0
// CHECK-DAG: %[[C:.*]] = linalg.index 1
// CHECK-DAG: %[[H:.*]] = linalg.index 2
// CHECK: arith.index_cast %[[H]] : index to i64
// CHECK: arith.divf
// CHECK: math.floor
// CHECK: arith.divf
// CHECK: math.floor
// CHECK: tensor.extract %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}] : tensor<1x3x2x2xf32>
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @nearest_asymmetric_floor(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x4x6xf32> {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %n, %s, %n) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x3x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x3x4x6xf32>
  return %0 : tensor<1x3x4x6xf32>
}

// -----

/// Linear with scales only known at run time: the scale of each axis is read
/// from the operand; size-1 axes stay put, so two axes give four taps,
/// accumulated in f64 and rounded back to f32.
// CHECK-LABEL: func.func @linear_runtime_scales
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x2x2xf32>, %[[S:.*]]: tensor<4xf32>)
// CHECK: linalg.generic
// CHECK: %[[SH:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<4xf32>
// CHECK: arith.extf %[[SH]] : f32 to f64
// CHECK-COUNT-4: tensor.extract %[[X]]
// CHECK-NOT: tensor.extract %[[X]]
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @linear_runtime_scales(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<1x1x4x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Resize"(%x, %n, %s, %n) {mode = "linear"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

/// Cubic from constant sizes reads a 4x4 window; exclude_outside zeroes the
/// taps outside the input and renormalizes the weights.
// CHECK-LABEL: func.func @cubic_sizes_exclude_outside
// CHECK: linalg.generic
// CHECK: arith.cmpi sge
// CHECK: arith.divf
// CHECK-COUNT-16: tensor.extract %arg0
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @cubic_sizes_exclude_outside(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %n = "onnx.NoValue"() : () -> none
  %z = "onnx.Constant"() {value = dense<[1, 1, 3, 3]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.Resize"(%x, %n, %n, %z) {mode = "cubic", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = 1 : i64} : (tensor<1x1x4x4xf32>, none, none, tensor<4xi64>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

/// tf_crop_and_resize: a sample whose coordinate leaves the input on any axis
/// is the extrapolation value.
// CHECK-LABEL: func.func @crop_and_resize
// CHECK: linalg.generic
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ogt
// CHECK: %[[V:.*]] = arith.truncf
// CHECK: %[[OUT:.*]] = arith.ori
// CHECK: %[[E:.*]] = arith.constant 1.000000e+01 : f32
// CHECK: arith.select %[[OUT]], %[[E]], %[[V]] : f32
func.func @crop_and_resize(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Constant"() {value = dense<[0.0, 0.0, 0.4, 0.6, 1.0, 1.0, 1.2, 1.7]> : tensor<8xf32>} : () -> tensor<8xf32>
  %z = "onnx.Constant"() {value = dense<[1, 1, 3, 3]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.Resize"(%x, %r, %n, %z) {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.000000e+01 : f32} : (tensor<1x1x4x4xf32>, tensor<8xf32>, none, tensor<4xi64>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

/// Nearest copies elements, so integer tensors resize too.
// CHECK-LABEL: func.func @nearest_int
// CHECK: tensor.extract %arg0{{.*}} : tensor<2x2xi8>
func.func @nearest_int(%x: tensor<2x2xui8>) -> tensor<4x4xui8> {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = "onnx.Resize"(%x, %n, %s, %n) {mode = "nearest"} : (tensor<2x2xui8>, none, tensor<2xf32>, none) -> tensor<4x4xui8>
  return %0 : tensor<4x4xui8>
}

// -----

/// Linear interpolation of integers has no single rounding rule: refused.
func.func @negative_linear_int(%x: tensor<2x2xi32>) -> tensor<4x4xi32> {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @+1 {{failed to legalize operation 'onnx.Resize'}}
  %0 = "onnx.Resize"(%x, %n, %s, %n) {mode = "linear"} : (tensor<2x2xi32>, none, tensor<2xf32>, none) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// -----

/// A result shape other than floor(size * scale) is a lowering error.
func.func @negative_shape_disagrees(%x: tensor<2x2xf32>) -> tensor<5x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() {value = dense<[2.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  // expected-error @+1 {{failed to legalize operation 'onnx.Resize'}}
  %0 = "onnx.Resize"(%x, %n, %s, %n) {mode = "nearest"} : (tensor<2x2xf32>, none, tensor<2xf32>, none) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
