// RUN: onnxcc-opt %s --split-input-file --onnx-stack-sequences | FileCheck %s
// The shape functions agree with the types the pass gives: nothing changes.
// RUN: onnxcc-opt %s --split-input-file --onnx-stack-sequences --onnx-infer-shapes | FileCheck %s

/// SequenceConstruct stacks its Unsqueeze'd elements; erase and insert at
/// constant positions (counted from the back) are Gathers of constant rows,
/// SequenceAt a Gather of one row. No sequence op is left.
// CHECK-LABEL: func.func @construct_erase_insert_at(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>, %[[Z:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: onnx.Sequence
// CHECK: %[[ZERO:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[UX:.*]] = "onnx.Unsqueeze"(%[[X]], %[[ZERO]]) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<1x2x3xf32>
// CHECK: %[[UY:.*]] = "onnx.Unsqueeze"(%[[Y]], %[[ZERO]])
// CHECK: %[[UZ:.*]] = "onnx.Unsqueeze"(%[[Z]], %[[ZERO]])
// CHECK: %[[S1:.*]] = "onnx.Concat"(%[[UX]], %[[UY]], %[[UZ]]) <{axis = 0 : i64}> : {{.*}} -> tensor<3x2x3xf32>
// CHECK: %[[KEEP:.*]] = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
// CHECK: %[[S2:.*]] = "onnx.Gather"(%[[S1]], %[[KEEP]]) <{axis = 0 : i64}> : (tensor<3x2x3xf32>, tensor<2xi64>) -> tensor<2x2x3xf32>
// CHECK: %[[UX2:.*]] = "onnx.Unsqueeze"(%[[X]], %{{.*}})
// CHECK: %[[J:.*]] = "onnx.Concat"(%[[S2]], %[[UX2]]) <{axis = 0 : i64}> : {{.*}} -> tensor<3x2x3xf32>
// CHECK: %[[ORDER:.*]] = "onnx.Constant"() <{value = dense<[0, 2, 1]> : tensor<3xi64>}>
// CHECK: %[[S3:.*]] = "onnx.Gather"(%[[J]], %[[ORDER]]) <{axis = 0 : i64}> : (tensor<3x2x3xf32>, tensor<3xi64>) -> tensor<3x2x3xf32>
// CHECK: %[[TWO:.*]] = "onnx.Constant"() <{value = dense<2> : tensor<i64>}>
// CHECK: %[[AT:.*]] = "onnx.Gather"(%[[S3]], %[[TWO]]) <{axis = 0 : i64}> : (tensor<3x2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
// CHECK: return %[[AT]] : tensor<2x3xf32>
func.func @construct_erase_insert_at(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %z: tensor<2x3xf32>) -> tensor<*xf32> {
  %m3 = "onnx.Constant"() {value = dense<-3> : tensor<i64>} : () -> tensor<i64>
  %m1 = "onnx.Constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %s1 = "onnx.SequenceConstruct"(%x, %y, %z) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> !onnx.seq<tensor<2x3xf32>>
  %s2 = "onnx.SequenceErase"(%s1, %m3) : (!onnx.seq<tensor<2x3xf32>>, tensor<i64>) -> !onnx.seq<tensor<2x3xf32>>
  %s3 = "onnx.SequenceInsert"(%s2, %x, %m1) : (!onnx.seq<tensor<2x3xf32>>, tensor<2x3xf32>, tensor<i64>) -> !onnx.seq<tensor<2x3xf32>>
  %0 = "onnx.SequenceAt"(%s3, %m1) : (!onnx.seq<tensor<2x3xf32>>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Runtime positions. Insert: the new row is row n of the Concat and
/// indices[i] = i < p ? i : (i == p ? n : i - 1), after p += n for p < 0.
/// Erase (an int32 position, cast): indices[i] = i < p ? i : i + 1. At: a
/// Gather with the position squeezed to a scalar (Gather counts negative
/// indices from the back like SequenceAt).
// CHECK-LABEL: func.func @runtime_positions(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>, %[[P:[^:]*]]: tensor<i64>, %[[Q:[^:]*]]: tensor<i32>, %[[R:[^:]*]]: tensor<1xi64>)
// CHECK-NOT: onnx.Sequence
// CHECK: %[[S1:.*]] = "onnx.Concat"({{.*}}) <{axis = 0 : i64}> : {{.*}} -> tensor<2x4xf32>
// CHECK: %[[J:.*]] = "onnx.Concat"(%[[S1]], %{{.*}}) <{axis = 0 : i64}> : {{.*}} -> tensor<3x4xf32>
// CHECK: %[[C0:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<i64>}>
// CHECK: %[[NEG:.*]] = "onnx.Less"(%[[P]], %[[C0]]) : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK: %[[C2:.*]] = "onnx.Constant"() <{value = dense<2> : tensor<i64>}>
// CHECK: %[[SHIFT:.*]] = "onnx.Add"(%[[P]], %[[C2]])
// CHECK: %[[PN:.*]] = "onnx.Where"(%[[NEG]], %[[SHIFT]], %[[P]]) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[I:.*]] = "onnx.Constant"() <{value = dense<[0, 1, 2]> : tensor<3xi64>}>
// CHECK: %[[BEFORE:.*]] = "onnx.Less"(%[[I]], %[[PN]]) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
// CHECK: %[[AT:.*]] = "onnx.Equal"(%[[I]], %[[PN]]) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
// CHECK: %[[IM1:.*]] = "onnx.Constant"() <{value = dense<[-1, 0, 1]> : tensor<3xi64>}>
// CHECK: %[[AFTER:.*]] = "onnx.Where"(%[[AT]], %[[C2]], %[[IM1]]) : (tensor<3xi1>, tensor<i64>, tensor<3xi64>) -> tensor<3xi64>
// CHECK: %[[IDX:.*]] = "onnx.Where"(%[[BEFORE]], %[[I]], %[[AFTER]]) : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
// CHECK: %[[S2:.*]] = "onnx.Gather"(%[[J]], %[[IDX]]) <{axis = 0 : i64}> : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
// CHECK: %[[Q64:.*]] = "onnx.Cast"(%[[Q]]) <{to = 7 : i64}> : (tensor<i32>) -> tensor<i64>
// CHECK: %[[QNEG:.*]] = "onnx.Less"(%[[Q64]], %{{.*}})
// CHECK: %[[C3:.*]] = "onnx.Constant"() <{value = dense<3> : tensor<i64>}>
// CHECK: %[[QSHIFT:.*]] = "onnx.Add"(%[[Q64]], %[[C3]])
// CHECK: %[[QN:.*]] = "onnx.Where"(%[[QNEG]], %[[QSHIFT]], %[[Q64]])
// CHECK: %[[I2:.*]] = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}>
// CHECK: %[[KEEP:.*]] = "onnx.Less"(%[[I2]], %[[QN]])
// CHECK: %[[IP1:.*]] = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
// CHECK: %[[IDX2:.*]] = "onnx.Where"(%[[KEEP]], %[[I2]], %[[IP1]])
// CHECK: %[[S3:.*]] = "onnx.Gather"(%[[S2]], %[[IDX2]]) <{axis = 0 : i64}> : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
// CHECK: %[[RS:.*]] = "onnx.Squeeze"(%[[R]], %{{.*}}) : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64>
// CHECK: %[[E:.*]] = "onnx.Gather"(%[[S3]], %[[RS]]) <{axis = 0 : i64}> : (tensor<2x4xf32>, tensor<i64>) -> tensor<4xf32>
// CHECK: return %[[E]] : tensor<4xf32>
func.func @runtime_positions(%x: tensor<4xf32>, %y: tensor<4xf32>, %p: tensor<i64>, %q: tensor<i32>, %r: tensor<1xi64>) -> tensor<*xf32> {
  %s1 = "onnx.SequenceConstruct"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> !onnx.seq<tensor<4xf32>>
  %s2 = "onnx.SequenceInsert"(%s1, %x, %p) : (!onnx.seq<tensor<4xf32>>, tensor<4xf32>, tensor<i64>) -> !onnx.seq<tensor<4xf32>>
  %s3 = "onnx.SequenceErase"(%s2, %q) : (!onnx.seq<tensor<4xf32>>, tensor<i32>) -> !onnx.seq<tensor<4xf32>>
  %0 = "onnx.SequenceAt"(%s3, %r) : (!onnx.seq<tensor<4xf32>>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// SequenceEmpty then inserts at the back (no position) stacks with Concat;
/// SequenceLength is a constant. ConcatFromSequence with axis -1 and no new
/// axis: the stack's dim 0 moves next to the last dim, then both merge.
// CHECK-LABEL: func.func @empty_insert_concat(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.Sequence
// CHECK: %[[UA:.*]] = "onnx.Unsqueeze"(%[[A]], %{{.*}})
// CHECK: %[[UB:.*]] = "onnx.Unsqueeze"(%[[B]], %{{.*}})
// CHECK: %[[S:.*]] = "onnx.Concat"(%[[UA]], %[[UB]]) <{axis = 0 : i64}> : {{.*}} -> tensor<2x2x3xf32>
// CHECK: %[[LEN:.*]] = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
// CHECK: %[[T:.*]] = "onnx.Transpose"(%[[S]]) <{perm = array<i64: 1, 0, 2>}> : (tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
// CHECK: %[[SHAPE:.*]] = "onnx.Constant"() <{value = dense<[2, 6]> : tensor<2xi64>}>
// CHECK: %[[CAT:.*]] = "onnx.Reshape"(%[[T]], %[[SHAPE]]) <{allowzero = 0 : i64}> : (tensor<2x2x3xf32>, tensor<2xi64>) -> tensor<2x6xf32>
// CHECK: return %[[LEN]], %[[CAT]] : tensor<i64>, tensor<2x6xf32>
func.func @empty_insert_concat(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<*xi64>, tensor<*xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %e = "onnx.SequenceEmpty"() {dtype = 1 : i64} : () -> !onnx.seq<tensor<*xf32>>
  %s1 = "onnx.SequenceInsert"(%e, %a, %none) : (!onnx.seq<tensor<*xf32>>, tensor<2x3xf32>, none) -> !onnx.seq<tensor<*xf32>>
  %s2 = "onnx.SequenceInsert"(%s1, %b, %none) : (!onnx.seq<tensor<*xf32>>, tensor<2x3xf32>, none) -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.SequenceLength"(%s2) : (!onnx.seq<tensor<*xf32>>) -> tensor<*xi64>
  %1 = "onnx.ConcatFromSequence"(%s2) {axis = -1 : i64} : (!onnx.seq<tensor<*xf32>>) -> tensor<*xf32>
  return %0, %1 : tensor<*xi64>, tensor<*xf32>
}

// -----

/// SplitToSequence without a split: size-1 parts along the axis, the axis
/// moved to the front (keepdims = 0), or first split in [count, 1]
/// (keepdims = 1). ConcatFromSequence with new_axis = 1 at axis -1 (the new
/// last dim) is one Transpose.
// CHECK-LABEL: func.func @split_no_sizes(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x4xf32>)
// CHECK-NOT: onnx.Sequence
// CHECK: %[[A:.*]] = "onnx.Transpose"(%[[X]]) <{perm = array<i64: 1, 0, 2>}> : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK: %[[C1:.*]] = "onnx.Constant"() <{value = dense<1> : tensor<i64>}>
// CHECK: %[[AT:.*]] = "onnx.Gather"(%[[A]], %[[C1]]) <{axis = 0 : i64}> : (tensor<3x2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
// CHECK: %[[SHAPE:.*]] = "onnx.Constant"() <{value = dense<[2, 3, 1, 4]> : tensor<4xi64>}>
// CHECK: %[[R:.*]] = "onnx.Reshape"(%[[X]], %[[SHAPE]]) <{allowzero = 0 : i64}> : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x1x4xf32>
// CHECK: %[[B:.*]] = "onnx.Transpose"(%[[R]]) <{perm = array<i64: 1, 0, 2, 3>}> : (tensor<2x3x1x4xf32>) -> tensor<3x2x1x4xf32>
// CHECK: %[[STK:.*]] = "onnx.Transpose"(%[[B]]) <{perm = array<i64: 1, 2, 3, 0>}> : (tensor<3x2x1x4xf32>) -> tensor<2x1x4x3xf32>
// CHECK: return %[[AT]], %[[STK]] : tensor<2x4xf32>, tensor<2x1x4x3xf32>
func.func @split_no_sizes(%x: tensor<2x3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %one = "onnx.Constant"() {value = dense<-2> : tensor<i64>} : () -> tensor<i64>
  %a = "onnx.SplitToSequence"(%x, %none) {axis = 1 : i64, keepdims = 0 : i64} : (tensor<2x3x4xf32>, none) -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.SequenceAt"(%a, %one) : (!onnx.seq<tensor<*xf32>>, tensor<i64>) -> tensor<*xf32>
  %b = "onnx.SplitToSequence"(%x, %none) {axis = -2 : i64} : (tensor<2x3x4xf32>, none) -> !onnx.seq<tensor<*xf32>>
  %1 = "onnx.ConcatFromSequence"(%b) {axis = -1 : i64, new_axis = 1 : i64} : (!onnx.seq<tensor<*xf32>>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Constant split sizes that are all equal: a scalar chunk size that divides
/// the dim, or a vector of equal parts. keepdims does not apply.
// CHECK-LABEL: func.func @split_equal_sizes(
// CHECK-SAME: %[[X:[^:]*]]: tensor<6x2xf32>)
// CHECK-NOT: onnx.Sequence
// CHECK: %[[SHAPE:.*]] = "onnx.Constant"() <{value = dense<[3, 2, 2]> : tensor<3xi64>}>
// CHECK: %[[A:.*]] = "onnx.Reshape"(%[[X]], %[[SHAPE]]) {{.*}} -> tensor<3x2x2xf32>
// CHECK: "onnx.Gather"(%[[A]], %{{.*}}) <{axis = 0 : i64}> : (tensor<3x2x2xf32>, tensor<i64>) -> tensor<2x2xf32>
// CHECK: %[[SHAPE2:.*]] = "onnx.Constant"() <{value = dense<[2, 3, 2]> : tensor<3xi64>}>
// CHECK: %[[B:.*]] = "onnx.Reshape"(%[[X]], %[[SHAPE2]]) {{.*}} -> tensor<2x3x2xf32>
// CHECK: %[[C2:.*]] = "onnx.Constant"() <{value = dense<2> : tensor<i64>}>
// CHECK: %[[T:.*]] = "onnx.Transpose"(%[[B]]) <{perm = array<i64: 1, 0, 2>}> : (tensor<2x3x2xf32>) -> tensor<3x2x2xf32>
// CHECK: %[[CAT:.*]] = "onnx.Reshape"(%[[T]], %{{.*}}) {{.*}} -> tensor<3x4xf32>
// CHECK: return %{{.*}}, %[[C2]], %[[CAT]] : tensor<2x2xf32>, tensor<i64>, tensor<3x4xf32>
func.func @split_equal_sizes(%x: tensor<6x2xf32>) -> (tensor<*xf32>, tensor<*xi64>, tensor<*xf32>) {
  %two = "onnx.Constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %threes = "onnx.Constant"() {value = dense<[3, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %a = "onnx.SplitToSequence"(%x, %two) {keepdims = 0 : i64} : (tensor<6x2xf32>, tensor<i64>) -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.SequenceAt"(%a, %two) : (!onnx.seq<tensor<*xf32>>, tensor<i64>) -> tensor<*xf32>
  %b = "onnx.SplitToSequence"(%x, %threes) : (tensor<6x2xf32>, tensor<2xi32>) -> !onnx.seq<tensor<*xf32>>
  %1 = "onnx.SequenceLength"(%b) : (!onnx.seq<tensor<*xf32>>) -> tensor<*xi64>
  %2 = "onnx.ConcatFromSequence"(%b) {axis = 1 : i64} : (!onnx.seq<tensor<*xf32>>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xi64>, tensor<*xf32>
}

// -----

/// Runtime split sizes of static count K: only the length is known, which is
/// all SequenceLength needs. The input's shape does not matter.
// CHECK-LABEL: func.func @split_runtime_sizes_length(
// CHECK-NOT: onnx.SplitToSequence
// CHECK: %[[LEN:.*]] = "onnx.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT: return %[[LEN]]
func.func @split_runtime_sizes_length(%x: tensor<?xf32>, %sizes: tensor<3xi64>) -> tensor<*xi64> {
  %s = "onnx.SplitToSequence"(%x, %sizes) : (tensor<?xf32>, tensor<3xi64>) -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.SequenceLength"(%s) : (!onnx.seq<tensor<*xf32>>) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}

// -----

/// Negative: runtime split sizes give parts of unknown shapes; SequenceAt
/// cannot be a Gather. Everything stays.
// CHECK-LABEL: func.func @split_runtime_sizes_at(
// CHECK: %[[S:.*]] = "onnx.SplitToSequence"
// CHECK: "onnx.SequenceAt"(%[[S]]
// CHECK-NOT: onnx.Gather
func.func @split_runtime_sizes_at(%x: tensor<6xf32>, %sizes: tensor<3xi64>, %p: tensor<i64>) -> tensor<*xf32> {
  %s = "onnx.SplitToSequence"(%x, %sizes) : (tensor<6xf32>, tensor<3xi64>) -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.SequenceAt"(%s, %p) : (!onnx.seq<tensor<*xf32>>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Negative: constant split sizes that differ, and a chunk size that does not
/// divide the dim (the last part would be smaller), stay.
// CHECK-LABEL: func.func @split_unequal_sizes(
// CHECK: "onnx.SplitToSequence"
// CHECK: "onnx.ConcatFromSequence"
// CHECK: "onnx.SplitToSequence"
// CHECK: "onnx.ConcatFromSequence"
// CHECK-NOT: onnx.Transpose
// CHECK-NOT: onnx.Reshape
func.func @split_unequal_sizes(%x: tensor<5x2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %sizes = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %two = "onnx.Constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %a = "onnx.SplitToSequence"(%x, %sizes) : (tensor<5x2xf32>, tensor<2xi64>) -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.ConcatFromSequence"(%a) {axis = 1 : i64, new_axis = 1 : i64} : (!onnx.seq<tensor<*xf32>>) -> tensor<*xf32>
  %b = "onnx.SplitToSequence"(%x, %two) : (tensor<5x2xf32>, tensor<i64>) -> !onnx.seq<tensor<*xf32>>
  %1 = "onnx.ConcatFromSequence"(%b) {axis = 1 : i64, new_axis = 1 : i64} : (!onnx.seq<tensor<*xf32>>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Elements of different shapes (simple/test_sequence_model1) are no stack,
/// but a SequenceAt at a constant position of a list built in the function
/// is that element: nothing of the sequence is left.
// CHECK-LABEL: func.func @different_shapes(
// CHECK-SAME: %{{.*}}: tensor<2x3xf32>, %[[Y:.*]]: tensor<1x3xf32>)
// CHECK-NOT: onnx.Sequence
// CHECK: return %[[Y]]
func.func @different_shapes(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>) -> tensor<*xf32> {
  %none = "onnx.NoValue"() : () -> none
  %p = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %e = "onnx.SequenceEmpty"() : () -> !onnx.seq<tensor<*xf32>>
  %s1 = "onnx.SequenceInsert"(%e, %x, %none) : (!onnx.seq<tensor<*xf32>>, tensor<2x3xf32>, none) -> !onnx.seq<tensor<*xf32>>
  %s2 = "onnx.SequenceInsert"(%s1, %y, %none) : (!onnx.seq<tensor<*xf32>>, tensor<1x3xf32>, none) -> !onnx.seq<tensor<*xf32>>
  %0 = "onnx.SequenceAt"(%s2, %p) : (!onnx.seq<tensor<*xf32>>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A sequence argument has no known length; an element of dynamic shape at
/// a constant position is read directly (no stack needed); a constant
/// position out of range is left for the lowering to report.
// CHECK-LABEL: func.func @unknown_sequences(
// CHECK-SAME: %{{.*}}: !onnx.seq<tensor<2xf32>>, %[[D:[^:]*]]: tensor<?xf32>
// CHECK: "onnx.SequenceLength"(%{{.*}})
// CHECK: "onnx.SequenceConstruct"
// CHECK: %[[FAR:.*]] = "onnx.SequenceAt"
// CHECK: return %{{.*}}, %[[D]], %[[FAR]]
// CHECK-NOT: onnx.Gather
func.func @unknown_sequences(%s: !onnx.seq<tensor<2xf32>>, %d: tensor<?xf32>, %x: tensor<2xf32>) -> (tensor<*xi64>, tensor<*xf32>, tensor<*xf32>) {
  %p = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %far = "onnx.Constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.SequenceLength"(%s) : (!onnx.seq<tensor<2xf32>>) -> tensor<*xi64>
  %t = "onnx.SequenceConstruct"(%d, %d) : (tensor<?xf32>, tensor<?xf32>) -> !onnx.seq<tensor<?xf32>>
  %1 = "onnx.SequenceAt"(%t, %p) : (!onnx.seq<tensor<?xf32>>, tensor<i64>) -> tensor<*xf32>
  %u = "onnx.SequenceConstruct"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> !onnx.seq<tensor<2xf32>>
  %2 = "onnx.SequenceAt"(%u, %far) : (!onnx.seq<tensor<2xf32>>, tensor<i64>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xi64>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// A sequence the function returns stays for that use; SequenceAt on it
/// still becomes a Gather of its stack.
// CHECK-LABEL: func.func @returned_sequence(
// CHECK: %[[S:.*]] = "onnx.Concat"
// CHECK: %[[SEQ:.*]] = "onnx.SequenceConstruct"
// CHECK: %[[AT:.*]] = "onnx.Gather"(%[[S]]
// CHECK: return %[[SEQ]], %[[AT]]
func.func @returned_sequence(%x: tensor<2xf32>) -> (!onnx.seq<tensor<2xf32>>, tensor<*xf32>) {
  %p = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %s = "onnx.SequenceConstruct"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> !onnx.seq<tensor<2xf32>>
  %0 = "onnx.SequenceAt"(%s, %p) : (!onnx.seq<tensor<2xf32>>, tensor<i64>) -> tensor<*xf32>
  return %s, %0 : !onnx.seq<tensor<2xf32>>, tensor<*xf32>
}

// -----

/// When compiling (onnxcc.runtime_sequences), a split with a chunk size given
/// at run time is a ragged stack: the chunk size is checked (CheckedIndex of
/// size - 1 in [0, 6)), the parts are Gathers of clamped positions with
/// their count moved to the front, and SequenceAt at a run-time position is
/// a checked index, the row and a Slice of it to the element's dims.
// CHECK-LABEL: func.func @ragged_split_at(
// CHECK-SAME: %[[X:.*]]: tensor<3x6xf32>, %[[S:.*]]: tensor<i64>, %[[P:.*]]: tensor<i64>)
// CHECK-NOT: onnx.Sequence
// CHECK-NOT: onnx.SplitToSequence
// CHECK: %[[SIZE1:.*]] = "onnx.CheckedIndex"(%{{.*}}, %{{.*}}) <{bound = false, end = false, negative = false}>
// CHECK: %[[PARTS:.*]] = "onnx.Gather"(%[[X]], %{{.*}}) <{axis = 1 : i64}> : (tensor<3x6xf32>, tensor<6x6xi64>) -> tensor<3x6x6xf32>
// CHECK: %[[STACK:.*]] = "onnx.Transpose"(%[[PARTS]]) <{perm = array<i64: 1, 0, 2>}> : (tensor<3x6x6xf32>) -> tensor<6x3x6xf32>
// CHECK: %[[POS:.*]] = "onnx.CheckedIndex"(%[[P]], %{{.*}}) <{bound = false, end = false, negative = true}>
// CHECK: %[[ROW:.*]] = "onnx.Gather"(%[[STACK]], %[[POS]]) <{axis = 0 : i64}> : (tensor<6x3x6xf32>, tensor<i64>) -> tensor<3x6xf32>
// CHECK: %[[DIMS:.*]] = "onnx.Gather"(%{{.*}}, %[[POS]]) <{axis = 0 : i64}> : (tensor<6x2xi64>, tensor<i64>) -> tensor<2xi64>
// CHECK: %[[AT:.*]] = "onnx.Slice"(%[[ROW]], %{{[0-9]+}}, %[[DIMS]], %{{[0-9]+}}, %{{[0-9]+}}) {{.*}}: (tensor<3x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, none) -> tensor<3x?xf32>
// CHECK: return %[[AT]]
func.func @ragged_split_at(%x: tensor<3x6xf32>, %s: tensor<i64>, %p: tensor<i64>) -> tensor<*xf32>
    attributes {onnxcc.runtime_sequences} {
  %seq = "onnx.SplitToSequence"(%x, %s) {axis = 1 : i64} : (tensor<3x6xf32>, tensor<i64>) -> !onnx.seq<tensor<*xf32>>
  %at = "onnx.SequenceAt"(%seq, %p) : (!onnx.seq<tensor<*xf32>>, tensor<i64>) -> tensor<*xf32>
  return %at : tensor<*xf32>
}

// -----

/// Without onnxcc.runtime_sequences (onnxcc optimize), the same split stays.
// CHECK-LABEL: func.func @ragged_split_optimize(
// CHECK: onnx.SplitToSequence
// CHECK-NOT: onnx.CheckedIndex
func.func @ragged_split_optimize(%x: tensor<3x6xf32>, %s: tensor<i64>, %p: tensor<i64>) -> tensor<*xf32> {
  %seq = "onnx.SplitToSequence"(%x, %s) {axis = 1 : i64} : (tensor<3x6xf32>, tensor<i64>) -> !onnx.seq<tensor<*xf32>>
  %at = "onnx.SequenceAt"(%seq, %p) : (!onnx.seq<tensor<*xf32>>, tensor<i64>) -> tensor<*xf32>
  return %at : tensor<*xf32>
}

// -----

/// When compiling, a Loop that carries a sequence its body changes other
/// than by appending (an insert at the front) carries its ragged stack:
/// capacity 1 + 2 inserts per iteration of the trip count's bound 3, rows of
/// the largest dims; the scalar among [2]s has the dims row [-1]. The body
/// reads the stack back as a sequence and yields the new one's, its count
/// checked against the capacity (status 10); SequenceLength of the result
/// is the Loop's count.
// CHECK-LABEL: func.func @carried_ragged(
// CHECK-NOT: onnx.Sequence
// CHECK: %[[DIMS:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}-1], [0], [0], [0], [0], [0], [0]]> : tensor<7x1xi64>}>
// CHECK: %[[LOOP:.*]]:3 = "onnx.Loop"(%{{.*}}, %{{.*}}, %{{.*}}, %[[DIMS]], %{{.*}}) ({
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<7x2xf32>, %{{.*}}: tensor<7x1xi64>, %{{.*}}: tensor<i64>):
// CHECK: %[[COUNT:.*]] = "onnx.CheckedIndex"(%{{.*}}, %{{.*}}) <{bound = true, end = false, negative = false}>
// CHECK: onnx.Yield %{{.*}}, %{{.*}}, %{{.*}}, %[[COUNT]] : tensor<i1>, tensor<7x2xf32>, tensor<7x1xi64>, tensor<i64>
// CHECK: }) : (tensor<i64>, tensor<i1>, tensor<7x2xf32>, tensor<7x1xi64>, tensor<i64>) -> (tensor<7x2xf32>, tensor<7x1xi64>, tensor<i64>)
// CHECK: return %[[LOOP]]#2 : tensor<i64>
func.func @carried_ragged(%s: tensor<f32>, %v: tensor<2xf32>, %m: tensor<i64>) -> tensor<i64>
    attributes {onnxcc.runtime_sequences, onnxcc.bounds = {"*" = 3 : i64}} {
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %init = "onnx.SequenceConstruct"(%s) : (tensor<f32>) -> !onnx.seq<tensor<f32>>
  %r = "onnx.Loop"(%m, %t, %init) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %acc: !onnx.seq<tensor<*xf32>>):
    %zero = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %none = onnx.NoValue
    %a = "onnx.SequenceInsert"(%acc, %v, %none) : (!onnx.seq<tensor<*xf32>>, tensor<2xf32>, none) -> !onnx.seq<tensor<*xf32>>
    %b = "onnx.SequenceInsert"(%a, %v, %zero) : (!onnx.seq<tensor<*xf32>>, tensor<2xf32>, tensor<i64>) -> !onnx.seq<tensor<*xf32>>
    onnx.Yield %c, %b : tensor<i1>, !onnx.seq<tensor<*xf32>>
  }) : (tensor<i64>, tensor<i1>, !onnx.seq<tensor<f32>>) -> !onnx.seq<tensor<*xf32>>
  %n = "onnx.SequenceLength"(%r) : (!onnx.seq<tensor<*xf32>>) -> tensor<i64>
  return %n : tensor<i64>
}
