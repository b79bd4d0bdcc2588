// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// Sequence results keep their types; SequenceAt takes the element type's
/// shape and SequenceLength is a scalar.
// CHECK-LABEL: func.func @sequence_ops(
// CHECK: %[[S:.*]] = "onnx.SequenceConstruct"{{.*}} -> !onnx.seq<tensor<2x3xf32>>
// CHECK: "onnx.SequenceEmpty"
// CHECK: "onnx.SequenceInsert"
// CHECK: "onnx.SequenceErase"
// CHECK: %[[AT:.*]] = "onnx.SequenceAt"{{.*}} -> tensor<2x3xf32>
// CHECK: %[[LEN:.*]] = "onnx.SequenceLength"{{.*}} -> tensor<i64>
// CHECK: return %[[AT]], %[[LEN]]
func.func @sequence_ops(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %p: tensor<i64>) -> (tensor<*xf32>, tensor<*xi64>) {
  %s = "onnx.SequenceConstruct"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> !onnx.seq<tensor<2x3xf32>>
  %e = "onnx.SequenceEmpty"() {dtype = 1 : i64} : () -> !onnx.seq<tensor<*xf32>>
  %n = "onnx.NoValue"() : () -> none
  %i = "onnx.SequenceInsert"(%s, %a, %n) : (!onnx.seq<tensor<2x3xf32>>, tensor<2x3xf32>, none) -> !onnx.seq<tensor<2x3xf32>>
  %r = "onnx.SequenceErase"(%i, %p) : (!onnx.seq<tensor<2x3xf32>>, tensor<i64>) -> !onnx.seq<tensor<2x3xf32>>
  %0 = "onnx.SequenceAt"(%r, %p) : (!onnx.seq<tensor<2x3xf32>>, tensor<i64>) -> tensor<*xf32>
  %1 = "onnx.SequenceLength"(%r) : (!onnx.seq<tensor<2x3xf32>>) -> tensor<*xi64>
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

/// SplitToSequence then ConcatFromSequence: the concat axis depends on the
/// sequence length, so it is unknown; new_axis adds a dim.
// CHECK-LABEL: func.func @split_concat_sequence(
// CHECK: "onnx.SplitToSequence"
// CHECK: "onnx.ConcatFromSequence"{{.*}} -> tensor<?x4xf32>
// CHECK: "onnx.ConcatFromSequence"{{.*}} -> tensor<1x?x4xf32>
func.func @split_concat_sequence(%a: tensor<6x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.SplitToSequence"(%a, %n) {keepdims = 1 : i64} : (tensor<6x4xf32>, none) -> !onnx.seq<tensor<1x4xf32>>
  %0 = "onnx.ConcatFromSequence"(%s) {axis = 0 : i64} : (!onnx.seq<tensor<1x4xf32>>) -> tensor<*xf32>
  %1 = "onnx.ConcatFromSequence"(%s) {axis = 1 : i64, new_axis = 1 : i64} : (!onnx.seq<tensor<1x4xf32>>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// SequenceMap applies its body to each element; its results are sequences.
// CHECK-LABEL: func.func @sequence_map(
// CHECK: "onnx.SequenceMap"
// CHECK: "onnx.Relu"{{.*}} -> tensor<2xf32>
func.func @sequence_map(%s: !onnx.seq<tensor<2xf32>>) -> !onnx.seq<tensor<2xf32>> {
  %0 = "onnx.SequenceMap"(%s) ({
  ^bb0(%x: tensor<2xf32>):
    %r = "onnx.Relu"(%x) : (tensor<2xf32>) -> tensor<*xf32>
    "onnx.Yield"(%r) : (tensor<*xf32>) -> ()
  }) : (!onnx.seq<tensor<2xf32>>) -> !onnx.seq<tensor<2xf32>>
  return %0 : !onnx.seq<tensor<2xf32>>
}

// -----

/// Optional wraps a value; OptionalGetElement unwraps it with its shape;
/// OptionalHasElement is a bool scalar.
// CHECK-LABEL: func.func @optional_ops(
// CHECK: %[[O:.*]] = "onnx.Optional"{{.*}} -> !onnx.opt<tensor<3x4xf32>>
// CHECK: %[[G:.*]] = "onnx.OptionalGetElement"(%[[O]]){{.*}} -> tensor<3x4xf32>
// CHECK: %[[H:.*]] = "onnx.OptionalHasElement"(%[[O]]){{.*}} -> tensor<i1>
// CHECK: return %[[G]], %[[H]]
func.func @optional_ops(%a: tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xi1>) {
  %o = "onnx.Optional"(%a) : (tensor<3x4xf32>) -> !onnx.opt<tensor<3x4xf32>>
  %0 = "onnx.OptionalGetElement"(%o) : (!onnx.opt<tensor<3x4xf32>>) -> tensor<*xf32>
  %1 = "onnx.OptionalHasElement"(%o) : (!onnx.opt<tensor<3x4xf32>>) -> tensor<*xi1>
  return %0, %1 : tensor<*xf32>, tensor<*xi1>
}
