// RUN: onnxcc-opt %s --split-input-file --onnx-infer-shapes -verify-diagnostics | FileCheck %s

/// A branch whose shapes do not fit (6 elements cannot be reshaped to
/// [4, -1]) does not stop the compile: a warning names the node, the branch
/// becomes zeros of the other branch's shapes, and the If is marked so that
/// the lowering makes the branch return status 11 when it is taken.
// CHECK-LABEL: func.func @else_cannot_run(
// CHECK: "onnx.If"
// CHECK:   "onnx.Reshape"
// CHECK: }, {
// CHECK-NOT: "onnx.Reshape"
// CHECK:   %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<2x3xf32>}>
// CHECK:   onnx.Yield %[[Z]] : tensor<2x3xf32>
// CHECK: }) {onnxcc.invalid_branch = 1 : i64} : (tensor<i1>) -> tensor<2x3xf32>
func.func @else_cannot_run(%c: tensor<i1>, %x: tensor<6xf32>) -> tensor<*xf32> {
  // expected-warning @+1 {{else_branch cannot run with these shapes ('onnx.Reshape' op cannot reshape input [6] to [4, ?]: 6 elements do not divide into 4); if it is taken, run() returns status 11}}
  %0 = "onnx.If"(%c) ({
    %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
    %t = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<*xf32>
    "onnx.Yield"(%t) : (tensor<*xf32>) -> ()
  }, {
    %s = "onnx.Constant"() {value = dense<[4, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
    %e = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<*xf32>
    "onnx.Yield"(%e) : (tensor<*xf32>) -> ()
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Outside a branch the same Reshape is an error.
func.func @not_in_a_branch(%x: tensor<6xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[4, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{cannot reshape input [6] to [4, ?]}}
  %e = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %e : tensor<*xf32>
}

// -----

/// When neither branch can run there is nothing to give the result a shape.
func.func @both_cannot_run(%c: tensor<i1>, %x: tensor<6xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{then_branch cannot run with these shapes}}
  %0 = "onnx.If"(%c) ({
    %s = "onnx.Constant"() {value = dense<[5, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
    %t = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<*xf32>
    "onnx.Yield"(%t) : (tensor<*xf32>) -> ()
  }, {
    %s = "onnx.Constant"() {value = dense<[4, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
    %e = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<*xf32>
    "onnx.Yield"(%e) : (tensor<*xf32>) -> ()
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
