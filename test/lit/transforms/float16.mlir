// RUN: onnxcc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(onnx-f16-as-f32))' | FileCheck %s

/// float16 in, out and in between: the input and the constant are cast to
/// float32 where they are made, the ops compute in float32, a Cast to
/// float16 keeps its rounding (a Cast back follows it), a ConstantOfShape
/// of a float16 value fills with the float32 value, and the output is cast
/// to float16 before the return.
// CHECK-LABEL: func.func @half_chain(
// CHECK-SAME: %[[X:.*]]: tensor<4xf16>) -> tensor<4xf16>
// CHECK: %[[XF:.*]] = "onnx.Cast"(%[[X]]) <{to = 1 : i64}> : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: %[[C:.*]] = "onnx.Constant"() <{value = dense<1.500000e+00> : tensor<4xf16>}>
// CHECK: %[[CF:.*]] = "onnx.Cast"(%[[C]]) <{to = 1 : i64}> : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[XF]], %[[CF]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = "onnx.Cast"(%[[M]]) <{to = 10 : i64}> : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: %[[RF:.*]] = "onnx.Cast"(%[[R]]) <{to = 1 : i64}> : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: "onnx.ConstantOfShape"(%{{.*}}) <{value = dense<2.500000e-01> : tensor<1xf32>}> : (tensor<1xi64>) -> tensor<4xf32>
// CHECK: %[[S:.*]] = "onnx.Add"(%[[RF]], %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[OUT:.*]] = "onnx.Cast"(%[[S]]) <{to = 10 : i64}> : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: return %[[OUT]] : tensor<4xf16>
func.func @half_chain(%x: tensor<4xf16>) -> tensor<4xf16> {
  %c = "onnx.Constant"() {value = dense<1.5> : tensor<4xf16>} : () -> tensor<4xf16>
  %m = "onnx.Mul"(%x, %c) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %r = "onnx.Cast"(%m) {to = 10 : i64} : (tensor<4xf16>) -> tensor<4xf16>
  %shape = "onnx.Constant"() {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  %q = "onnx.ConstantOfShape"(%shape) {value = dense<0.25> : tensor<1xf16>} : (tensor<1xi64>) -> tensor<4xf16>
  %s = "onnx.Add"(%r, %q) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %s : tensor<4xf16>
}

// -----

/// No float16: nothing changes.
// CHECK-LABEL: func.func @float_only(
// CHECK-NEXT: "onnx.Relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return
func.func @float_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
