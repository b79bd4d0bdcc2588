// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// QuantizeLinear/DequantizeLinear keep x's shape, per-axis scales included.
// CHECK-LABEL: func.func @quantize_dequantize(
// CHECK: %[[Q:.*]] = "onnx.QuantizeLinear"{{.*}} -> tensor<?x3x8x8xui8>
// CHECK: %[[D:.*]] = "onnx.DequantizeLinear"(%[[Q]]{{.*}} -> tensor<?x3x8x8xf32>
// CHECK: return %[[D]]
func.func @quantize_dequantize(%x: tensor<?x3x8x8xf32> {onnx.dim_params = ["N", "", "", ""]}, %s: tensor<3xf32>, %z: tensor<3xui8>) -> tensor<*xf32> {
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<?x3x8x8xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<*xui8>
  %1 = "onnx.DequantizeLinear"(%0, %s, %z) : (tensor<*xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

/// DynamicQuantizeLinear: y like x, scale and zero point scalars.
// CHECK-LABEL: func.func @dynamic_quantize(
// CHECK: "onnx.DynamicQuantizeLinear"{{.*}} -> (tensor<4x5xui8>, tensor<f32>, tensor<ui8>)
func.func @dynamic_quantize(%x: tensor<4x5xf32>) -> (tensor<*xui8>, tensor<*xf32>, tensor<*xui8>) {
  %0, %1, %2 = "onnx.DynamicQuantizeLinear"(%x) : (tensor<4x5xf32>) -> (tensor<*xui8>, tensor<*xf32>, tensor<*xui8>)
  return %0, %1, %2 : tensor<*xui8>, tensor<*xf32>, tensor<*xui8>
}

// -----

/// Integer matmuls follow MatMul's rule.
// CHECK-LABEL: func.func @integer_matmuls(
// CHECK: "onnx.MatMulInteger"{{.*}} -> tensor<2x3x5xi32>
// CHECK: "onnx.QLinearMatMul"{{.*}} -> tensor<2x3x5xui8>
func.func @integer_matmuls(%a: tensor<2x3x4xui8>, %b: tensor<4x5xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> (tensor<*xi32>, tensor<*xui8>) {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.MatMulInteger"(%a, %b, %n, %n) : (tensor<2x3x4xui8>, tensor<4x5xui8>, none, none) -> tensor<*xi32>
  %1 = "onnx.QLinearMatMul"(%a, %s, %z, %b, %s, %z, %s, %z) : (tensor<2x3x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<*xui8>
  return %0, %1 : tensor<*xi32>, tensor<*xui8>
}

// -----

/// Integer convolutions follow Conv's rule; QLinearConv's W is operand 3.
// CHECK-LABEL: func.func @integer_convs(
// CHECK: "onnx.ConvInteger"{{.*}} -> tensor<1x4x6x6xi32>
// CHECK: "onnx.QLinearConv"{{.*}} -> tensor<1x4x3x3xui8>
func.func @integer_convs(%x: tensor<1x2x8x8xui8>, %w: tensor<4x2x3x3xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> (tensor<*xi32>, tensor<*xui8>) {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvInteger"(%x, %w, %n, %n) : (tensor<1x2x8x8xui8>, tensor<4x2x3x3xui8>, none, none) -> tensor<*xi32>
  %1 = "onnx.QLinearConv"(%x, %s, %z, %w, %s, %z, %s, %z, %n) {strides = array<i64: 2, 2>} : (tensor<1x2x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<4x2x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, none) -> tensor<*xui8>
  return %0, %1 : tensor<*xi32>, tensor<*xui8>
}
