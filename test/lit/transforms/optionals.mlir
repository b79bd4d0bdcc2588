// RUN: onnxcc-opt %s --split-input-file --onnx-stack-sequences | FileCheck %s

/// Optionals made inside the graph: OptionalHasElement is a constant,
/// OptionalGetElement the value, and the Optional ops go away.
// CHECK-LABEL: func.func @made_here(
// CHECK-NOT: onnx.Optional
// CHECK-DAG: %[[T:.*]] = "onnx.Constant"() <{value = dense<true> : tensor<i1>}>
// CHECK-DAG: %[[F:.*]] = "onnx.Constant"() <{value = dense<false> : tensor<i1>}>
// CHECK: return %[[T]], %[[F]], %arg0
func.func @made_here(%x: tensor<3xf32>) -> (tensor<i1>, tensor<i1>, tensor<3xf32>) {
  %some = "onnx.Optional"(%x) : (tensor<3xf32>) -> !onnx.opt<tensor<3xf32>>
  %n = "onnx.NoValue"() : () -> none
  %none = "onnx.Optional"(%n) {type_ = tensor<3xf32>} : (none) -> !onnx.opt<tensor<3xf32>>
  %a = "onnx.OptionalHasElement"(%some) : (!onnx.opt<tensor<3xf32>>) -> tensor<i1>
  %b = "onnx.OptionalHasElement"(%none) : (!onnx.opt<tensor<3xf32>>) -> tensor<i1>
  %v = "onnx.OptionalGetElement"(%some) : (!onnx.opt<tensor<3xf32>>) -> tensor<3xf32>
  return %a, %b, %v : tensor<i1>, tensor<i1>, tensor<3xf32>
}

// -----

/// A tensor where an optional is expected is present; OptionalGetElement of
/// it is the tensor.
// CHECK-LABEL: func.func @tensor_given(
// CHECK: %[[T:.*]] = "onnx.Constant"() <{value = dense<true> : tensor<i1>}>
// CHECK: return %[[T]], %arg0
func.func @tensor_given(%x: tensor<3xf32>) -> (tensor<i1>, tensor<3xf32>) {
  %a = "onnx.OptionalHasElement"(%x) : (tensor<3xf32>) -> tensor<i1>
  %v = "onnx.OptionalGetElement"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %a, %v : tensor<i1>, tensor<3xf32>
}

// -----

/// An optional graph input is not known here: the ops stay.
// CHECK-LABEL: func.func @optional_input(
// CHECK: "onnx.OptionalHasElement"(%arg0)
func.func @optional_input(%o: !onnx.opt<tensor<3xf32>>) -> tensor<i1> {
  %a = "onnx.OptionalHasElement"(%o) : (!onnx.opt<tensor<3xf32>>) -> tensor<i1>
  return %a : tensor<i1>
}
