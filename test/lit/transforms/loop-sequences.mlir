// RUN: onnxcc-opt %s --split-input-file --onnx-stack-sequences | FileCheck %s

/// A Loop that appends one tensor per iteration to a sequence it carries
/// from SequenceEmpty (list.append under torch.jit.script): the tensors
/// become a scan output, the sequence its rows, then a stacked tensor that
/// ConcatFromSequence reads.
// CHECK-LABEL: func.func @appended(
// CHECK-NOT: onnx.Sequence
// CHECK: %[[L:.*]]:2 = "onnx.Loop"
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<3xf32>):
// CHECK: onnx.Yield %{{.*}}, %[[T:.*]], %[[T]] : tensor<i1>, tensor<3xf32>, tensor<3xf32>
// CHECK: -> (tensor<3xf32>, tensor<5x3xf32>)
// CHECK-NOT: onnx.Sequence
// CHECK: return %[[L]]#1, %[[L]]#0
func.func @appended(%x: tensor<3xf32>) -> (tensor<*xf32>, tensor<3xf32>) {
  %m = "onnx.Constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %n = "onnx.NoValue"() : () -> none
  %e = "onnx.SequenceEmpty"() {dtype = 1 : i64} : () -> !onnx.seq<tensor<*xf32>>
  %0:2 = "onnx.Loop"(%m, %n, %x, %e) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %h: tensor<3xf32>, %s: !onnx.seq<tensor<*xf32>>):
    %t = "onnx.Tanh"(%h) : (tensor<3xf32>) -> tensor<3xf32>
    %none = "onnx.NoValue"() : () -> none
    %s2 = "onnx.SequenceInsert"(%s, %t, %none) : (!onnx.seq<tensor<*xf32>>, tensor<3xf32>, none) -> !onnx.seq<tensor<*xf32>>
    "onnx.Yield"(%c, %t, %s2) : (tensor<i1>, tensor<3xf32>, !onnx.seq<tensor<*xf32>>) -> ()
  }) : (tensor<i64>, none, tensor<3xf32>, !onnx.seq<tensor<*xf32>>) -> (tensor<3xf32>, !onnx.seq<tensor<*xf32>>)
  %stack = "onnx.ConcatFromSequence"(%0#1) {axis = 0 : i64, new_axis = 1 : i64} : (!onnx.seq<tensor<*xf32>>) -> tensor<*xf32>
  return %stack, %0#0 : tensor<*xf32>, tensor<3xf32>
}

// -----

/// A sequence the body also reads (SequenceAt) is not only appended to: it
/// stays.
// CHECK-LABEL: func.func @read_too(
// CHECK: "onnx.SequenceInsert"
func.func @read_too(%x: tensor<3xf32>) -> !onnx.seq<tensor<*xf32>> {
  %m = "onnx.Constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %n = "onnx.NoValue"() : () -> none
  %e = "onnx.SequenceEmpty"() {dtype = 1 : i64} : () -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.Loop"(%m, %n, %e) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %s: !onnx.seq<tensor<*xf32>>):
    %l = "onnx.SequenceLength"(%s) : (!onnx.seq<tensor<*xf32>>) -> tensor<i64>
    %f = "onnx.Cast"(%l) {to = 1 : i64} : (tensor<i64>) -> tensor<f32>
    %t = "onnx.Add"(%x, %f) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %none = "onnx.NoValue"() : () -> none
    %s2 = "onnx.SequenceInsert"(%s, %t, %none) : (!onnx.seq<tensor<*xf32>>, tensor<3xf32>, none) -> !onnx.seq<tensor<*xf32>>
    "onnx.Yield"(%c, %s2) : (tensor<i1>, !onnx.seq<tensor<*xf32>>) -> ()
  }) : (tensor<i64>, none, !onnx.seq<tensor<*xf32>>) -> !onnx.seq<tensor<*xf32>>
  return %0 : !onnx.seq<tensor<*xf32>>
}

// -----

/// SequenceMap: a Loop over the elements of its first sequence, reading
/// element i of each sequence input and the tensor inputs whole; its
/// results are the rows of the scan outputs. With sequences of known
/// length everything becomes tensors.
// CHECK-LABEL: func.func @sequence_map(
// CHECK-NOT: onnx.Sequence
// CHECK: %[[L:.*]] = "onnx.Loop"
// CHECK: ^bb0(%[[I:.*]]: tensor<i64>, %[[C:.*]]: tensor<i1>):
// CHECK: "onnx.Gather"(%{{.*}}, %{{.*}})
// CHECK: %[[S:.*]] = "onnx.Add"
// CHECK: onnx.Yield %[[C]], %[[S]] : tensor<i1>, tensor<4xf32>
// CHECK: -> tensor<3x4xf32>
// CHECK: return %[[L]]
func.func @sequence_map(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %xs = "onnx.SplitToSequence"(%x, %n) {axis = 0 : i64, keepdims = 0 : i64} : (tensor<3x4xf32>, none) -> !onnx.seq<tensor<*xf32>>
  %r = "onnx.SequenceMap"(%xs, %y) ({
  ^bb0(%e: tensor<4xf32>, %v: tensor<4xf32>):
    %s = "onnx.Add"(%e, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "onnx.Yield"(%s) : (tensor<4xf32>) -> ()
  }) : (!onnx.seq<tensor<*xf32>>, tensor<4xf32>) -> !onnx.seq<tensor<*xf32>>
  %out = "onnx.ConcatFromSequence"(%r) {axis = 0 : i64, new_axis = 1 : i64} : (!onnx.seq<tensor<*xf32>>) -> tensor<*xf32>
  return %out : tensor<*xf32>
}
