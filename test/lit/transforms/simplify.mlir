// RUN: onnxcc-opt %s --onnx-simplify --split-input-file | FileCheck %s
// RUN: onnxcc-opt %s --onnx-simplify --split-input-file > %t.once
// RUN: onnxcc-opt %s --onnx-simplify --onnx-simplify --split-input-file > %t.twice
// RUN: diff %t.once %t.twice

// Identity disappears; the function's result is then its argument.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {onnx.name = "x"}) -> (tensor<2x3xf32> {onnx.name = "y"})
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @identity(%x: tensor<2x3xf32> {onnx.name = "x"}) -> (tensor<2x3xf32> {onnx.name = "y"}) {
  %0 = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "onnx.Identity"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Dropout without training_mode passes its data through.
// CHECK-LABEL: func.func @dropout_inference
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.*]] = "onnx.Relu"(%[[X]])
// CHECK-NEXT: return %[[R]]
func.func @dropout_inference(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = onnx.NoValue
  %r = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0, %m = "onnx.Dropout"(%x, %r, %none) : (tensor<2x3xf32>, tensor<f32>, none) -> (tensor<2x3xf32>, none)
  %1 = "onnx.Relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Constant false training_mode: the used mask becomes a constant all true.
// CHECK-LABEL: func.func @dropout_mask
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.Dropout
// CHECK: %[[M:.*]] = "onnx.Constant"() <{value = dense<true> : tensor<2x3xi1>}>
// CHECK-NOT: onnx.Dropout
// CHECK: return %[[X]], %[[M]]
func.func @dropout_mask(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %none = onnx.NoValue
  %t = "onnx.Constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
  %0, %m = "onnx.Dropout"(%x, %none, %t) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  return %0, %m : tensor<2x3xf32>, tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func.func @negative_dropout_training
// CHECK: onnx.Dropout
func.func @negative_dropout_training(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = onnx.NoValue
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %0, %m = "onnx.Dropout"(%x, %none, %t) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, none)
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_dropout_runtime_mode
// CHECK: onnx.Dropout
func.func @negative_dropout_runtime_mode(%x: tensor<2x3xf32>, %t: tensor<i1>) -> tensor<2x3xf32> {
  %none = onnx.NoValue
  %0, %m = "onnx.Dropout"(%x, %none, %t) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, none)
  return %0 : tensor<2x3xf32>
}

// -----

// The mask of a Dropout on a dynamic shape cannot be a constant.
// CHECK-LABEL: func.func @negative_dropout_dynamic_mask
// CHECK: onnx.Dropout
func.func @negative_dropout_dynamic_mask(%x: tensor<?x3xf32>) -> tensor<?x3xi1> {
  %none = onnx.NoValue
  %0, %m = "onnx.Dropout"(%x, %none, %none) : (tensor<?x3xf32>, none, none) -> (tensor<?x3xf32>, tensor<?x3xi1>)
  return %m : tensor<?x3xi1>
}

// -----

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]]
func.func @cast_same_type(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "onnx.Cast"(%x) {to = 6 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @negative_cast_other_type
// CHECK: onnx.Cast
func.func @negative_cast_other_type(%x: tensor<4xi32>) -> tensor<4xi64> {
  %0 = "onnx.Cast"(%x) {to = 7 : i64} : (tensor<4xi32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @reshape_same_shape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_same_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = "onnx.Constant"() {value = dense<[2, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_reshape_other_shape
// CHECK: onnx.Reshape
func.func @negative_reshape_other_shape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %s = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A symbolic dim is equal to nothing, not even another `?`.
// CHECK-LABEL: func.func @negative_reshape_symbolic
// CHECK: onnx.Reshape
func.func @negative_reshape_symbolic(%x: tensor<?x?xf32> {onnx.dim_params = ["a", "b"]}) -> tensor<?x?xf32> {
  %s = "onnx.Constant"() {value = dense<[-1, 6]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// The outer Reshape reads the original input directly; the inner one dies.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[S:.*]] = "onnx.Constant"() <{value = dense<[4, -1]>
// CHECK-NEXT: %[[R:.*]] = "onnx.Reshape"(%[[X]], %[[S]]) <{allowzero = 0 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %s1 = "onnx.Constant"() {value = dense<[6, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %s2 = "onnx.Constant"() {value = dense<[4, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s1) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %1 = "onnx.Reshape"(%0, %s2) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// A chain back to the input's static shape is no Reshape at all.
// CHECK-LABEL: func.func @reshape_roundtrip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_roundtrip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s1 = "onnx.Constant"() {value = dense<[6]> : tensor<1xi64>} : () -> tensor<1xi64>
  %s2 = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s1) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  %1 = "onnx.Reshape"(%0, %s2) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A 0 in the outer shape copies a dim of the intermediate value (6 here, 2
// for the input).
// CHECK-LABEL: func.func @negative_reshape_chain_zero
// CHECK: %[[R0:.*]] = "onnx.Reshape"(%{{.*}}, %{{.*}})
// CHECK: "onnx.Reshape"(%[[R0]], %{{.*}})
func.func @negative_reshape_chain_zero(%x: tensor<2x3x4xf32>) -> tensor<6x2x2xf32> {
  %s1 = "onnx.Constant"() {value = dense<[6, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %s2 = "onnx.Constant"() {value = dense<[0, 2, -1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %0 = "onnx.Reshape"(%x, %s1) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %1 = "onnx.Reshape"(%0, %s2) : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<6x2x2xf32>
  return %1 : tensor<6x2x2xf32>
}

// -----

// With allowzero, 0 is a literal size: the chain merges whatever the shape.
// CHECK-LABEL: func.func @reshape_chain_allowzero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK: %[[R:.*]] = "onnx.Reshape"(%[[X]], %[[S]]) <{allowzero = 1 : i64}>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain_allowzero(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %s1 = "onnx.Constant"() {value = dense<[6]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Reshape"(%x, %s1) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  %1 = "onnx.Reshape"(%0, %s) {allowzero = 1 : i64} : (tensor<6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Transpose"(%x) {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Two default (reversing) Transposes cancel.
// CHECK-LABEL: func.func @transpose_inverse_pair
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse_pair(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "onnx.Transpose"(%x) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = "onnx.Transpose"(%0) : (tensor<4x3x2xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// [1, 2, 0] then [1, 2, 0] is [2, 0, 1] of the input.
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = "onnx.Transpose"(%[[X]]) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = "onnx.Transpose"(%x) {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = "onnx.Transpose"(%0) {perm = array<i64: 1, 2, 0>} : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// A pair that is not inverse stays one Transpose, not the identity.
// CHECK-LABEL: func.func @negative_transpose_not_inverse
// CHECK-COUNT-1: onnx.Transpose
// CHECK-NOT: onnx.Transpose
func.func @negative_transpose_not_inverse(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = "onnx.Transpose"(%x) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = "onnx.Transpose"(%0) {perm = array<i64: 2, 0, 1>} : (tensor<2x4x3xf32>) -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @pad_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @pad_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = onnx.NoValue
  %p = "onnx.Constant"() {value = dense<0> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.Pad"(%x, %p, %none) {mode = "reflect"} : (tensor<2x3xf32>, tensor<4xi64>, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_pad
// CHECK: onnx.Pad
// CHECK: onnx.Pad
func.func @negative_pad(%x: tensor<2x3xf32>, %q: tensor<4xi64>) -> (tensor<2x5xf32>, tensor<?x?xf32>) {
  %none = onnx.NoValue
  %p = "onnx.Constant"() {value = dense<[0, 1, 0, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.Pad"(%x, %p, %none) : (tensor<2x3xf32>, tensor<4xi64>, none) -> tensor<2x5xf32>
  %1 = "onnx.Pad"(%x, %q, %none) : (tensor<2x3xf32>, tensor<4xi64>, none) -> tensor<?x?xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<?x?xf32>
}

// -----

// Ends past the dims clamp; negative starts count from the end.
// CHECK-LABEL: func.func @slice_whole
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @slice_whole(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %st = "onnx.Constant"() {value = dense<[-3, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %en = "onnx.Constant"() {value = dense<[9223372036854775807, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %ax = "onnx.Constant"() {value = dense<[1, -2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %sp = "onnx.Constant"() {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Slice"(%x, %st, %en, %ax, %sp) : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_slice
// CHECK-COUNT-3: onnx.Slice
func.func @negative_slice(%x: tensor<4xf32>, %y: tensor<?xf32>) -> (tensor<3xf32>, tensor<4xf32>, tensor<?xf32>) {
  %none = onnx.NoValue
  %z = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = "onnx.Constant"() {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
  %big = "onnx.Constant"() {value = dense<100> : tensor<1xi64>} : () -> tensor<1xi64>
  %m1 = "onnx.Constant"() {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = "onnx.Constant"() {value = dense<-100> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Slice"(%x, %z, %e, %none, %none) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<3xf32>
  // Reversed, not kept.
  %1 = "onnx.Slice"(%x, %m1, %s, %none, %m1) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<4xf32>
  // Not a static input.
  %2 = "onnx.Slice"(%y, %z, %big, %none, %none) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<4xf32>, tensor<?xf32>
}

// -----

// Squeeze of no unit dim and Unsqueeze of no axes change nothing.
// CHECK-LABEL: func.func @squeeze_unsqueeze_noop
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @squeeze_unsqueeze_noop(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %none = onnx.NoValue
  %e = "onnx.Constant"() {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  %0 = "onnx.Squeeze"(%x, %none) : (tensor<2x3xf32>, none) -> tensor<2x3xf32>
  %1 = "onnx.Unsqueeze"(%x, %e) : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The pairs cancel with the same axes, however spelled (-1 is 2 here), even
// on symbolic dims.
// CHECK-LABEL: func.func @squeeze_unsqueeze_pairs
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>{{.*}}, %[[Y:.*]]: tensor<2x1x3xf32>)
// CHECK-NEXT: return %[[X]], %[[Y]]
func.func @squeeze_unsqueeze_pairs(%x: tensor<?x3xf32> {onnx.dim_params = ["n", ""]}, %y: tensor<2x1x3xf32>) -> (tensor<?x3xf32>, tensor<2x1x3xf32>) {
  %a = "onnx.Constant"() {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Unsqueeze"(%x, %a) : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?x3x1xf32>
  %1 = "onnx.Squeeze"(%0, %b) : (tensor<?x3x1xf32>, tensor<1xi64>) -> tensor<?x3xf32>
  %2 = "onnx.Squeeze"(%y, %c) : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %3 = "onnx.Unsqueeze"(%2, %c) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
  return %1, %3 : tensor<?x3xf32>, tensor<2x1x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_squeeze_unsqueeze_other_axes
// CHECK: onnx.Unsqueeze
// CHECK: onnx.Squeeze
func.func @negative_squeeze_unsqueeze_other_axes(%x: tensor<2x1xf32>) -> tensor<1x2xf32> {
  %a = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = "onnx.Constant"() {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Unsqueeze"(%x, %a) : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<1x2x1xf32>
  %1 = "onnx.Squeeze"(%0, %b) : (tensor<1x2x1xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

// -----

// Identical nodes merge and dead ones go.
// CHECK-LABEL: func.func @cse_and_dce
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = "onnx.Relu"(%[[X]])
// CHECK-NEXT: %[[A:.*]] = "onnx.Add"(%[[R]], %[[R]])
// CHECK-NEXT: return %[[A]]
func.func @cse_and_dce(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %dead = "onnx.Exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "onnx.Add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Nodes that become identical once an Identity is gone merge too.
// CHECK-LABEL: func.func @cse_after_rewrite
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.*]] = "onnx.Relu"(%[[X]])
// CHECK-NEXT: %[[S:.*]] = "onnx.Sub"(%[[R]], %[[R]])
// CHECK-NEXT: return %[[S]]
func.func @cse_after_rewrite(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "onnx.Relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "onnx.Sub"(%1, %2) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// -----

// PyTorch computes a Reshape's target from the input's Shape: [seq, batch*4, 8]
// from x [seq, batch, 32]. Shape inference knows it symbolically, so the
// target becomes the constant [0, -1, 8] (0 copies seq) and the Shape,
// Gather, Mul, Unsqueeze and Concat nodes computing it die.
// CHECK-LABEL: func.func @reshape_symbolic_target
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x32xf32>
// CHECK-NEXT: %[[S:.*]] = "onnx.Constant"() <{value = dense<[0, -1, 8]> : tensor<3xi64>}>
// CHECK-NEXT: %[[R:.*]] = "onnx.Reshape"(%[[X]], %[[S]])
// CHECK-NEXT: return %[[R]]
func.func @reshape_symbolic_target(%x: tensor<?x?x32xf32> {onnx.dim_params = ["seq", "batch", ""]}) -> tensor<?x?x8xf32> {
  %shape = "onnx.Shape"(%x) : (tensor<?x?x32xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %four = "onnx.Constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %ax = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %eight = "onnx.Constant"() {value = dense<8> : tensor<1xi64>} : () -> tensor<1xi64>
  %seq = "onnx.Gather"(%shape, %i0) : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %batch = "onnx.Gather"(%shape, %i1) : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %heads = "onnx.Mul"(%batch, %four) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %u0 = "onnx.Unsqueeze"(%seq, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %u1 = "onnx.Unsqueeze"(%heads, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %target = "onnx.Concat"(%u0, %u1, %eight) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r = "onnx.Reshape"(%x, %target) : (tensor<?x?x32xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
  return %r : tensor<?x?x8xf32>
}

// -----

// [seq*batch, 32] to [seq, batch, 32]: two symbolic dims that are not the
// input's at the same position cannot both be written with 0 and -1.
// CHECK-LABEL: func.func @negative_reshape_symbolic_target
// CHECK: %[[S:.*]] = "onnx.Shape"
// CHECK-NEXT: "onnx.Reshape"(%{{.*}}, %[[S]])
func.func @negative_reshape_symbolic_target(%x: tensor<?x?x32xf32> {onnx.dim_params = ["seq", "batch", ""]}) -> tensor<?x?x32xf32> {
  %flat = "onnx.Constant"() {value = dense<[-1, 32]> : tensor<2xi64>} : () -> tensor<2xi64>
  %y = "onnx.Reshape"(%x, %flat) : (tensor<?x?x32xf32>, tensor<2xi64>) -> tensor<?x32xf32>
  %shape = "onnx.Shape"(%x) : (tensor<?x?x32xf32>) -> tensor<3xi64>
  %r = "onnx.Reshape"(%y, %shape) : (tensor<?x32xf32>, tensor<3xi64>) -> tensor<?x?x32xf32>
  return %r : tensor<?x?x32xf32>
}
