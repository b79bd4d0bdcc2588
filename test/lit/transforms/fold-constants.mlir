// RUN: onnxcc-opt %s --split-input-file --onnx-fold-constants | FileCheck %s
// RUN: onnxcc-opt %s --split-input-file --onnx-fold-constants="size-limit=100000" \
// RUN:   | FileCheck %s --check-prefix=RAISED
/// Fixpoint: a second run over the folded output changes nothing (generic
/// form: the custom form of onnx.If's Yield does not parse back).
// RUN: onnxcc-opt %s --split-input-file --onnx-fold-constants --mlir-print-op-generic > %t.once
// RUN: onnxcc-opt %t.once --split-input-file --onnx-fold-constants --mlir-print-op-generic > %t.twice
// RUN: diff %t.once %t.twice

/// Reference values: numpy 1.x (integer and bool ops, casts, f16, indexing)
/// and, for exp, Python's double-precision math.exp rounded once to float32
/// (numpy's own float32 exp is a SIMD approximation one ulp off here):
///   exp([1, -2, 0.5, 3]) / 2 = [1.35914087, 0.0676676407, 0.824360609, 10.0427685]
/// The chain Exp -> Div folds in one run: the folded Exp feeds the Div, and
/// neither the constants nor the ops are left.
// CHECK-LABEL: func.func @exp_div_chain(
// CHECK-NEXT: %[[C:.*]] = "onnx.Constant"() <{value = dense<[1.35914087, 0.0676676407, 0.824360609, 10.0427685]> : tensor<4xf32>}>
// CHECK-NEXT: return %[[C]]
func.func @exp_div_chain() -> tensor<4xf32> {
  %a = "onnx.Constant"() {value = dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %e = "onnx.Exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %d = "onnx.Div"(%e, %two) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

/// Integer Div truncates toward zero (numpy: np.trunc(a / b)):
/// [7, -7, 7, -7] / [2, 2, -2, -2] = [3, -3, -3, 3].
/// The same bits divide differently by signedness: ui8 [200, 7] / [3, 2] =
/// [66, 3], while i8 [-56, 7] / [3, 2] = [-18, 3] (200 is -56 as i8).
// CHECK-LABEL: func.func @integer_division(
// CHECK-DAG: "onnx.Constant"() <{value = dense<[3, -3, -3, 3]> : tensor<4xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[66, 3]> : tensor<2xui8>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[-18, 3]> : tensor<2xi8>}>
// CHECK-NOT: onnx.Div
func.func @integer_division() -> (tensor<4xi32>, tensor<2xui8>, tensor<2xi8>) {
  %a = "onnx.Constant"() {value = dense<[7, -7, 7, -7]> : tensor<4xi32>} : () -> tensor<4xi32>
  %b = "onnx.Constant"() {value = dense<[2, 2, -2, -2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %q = "onnx.Div"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %ua = "onnx.Constant"() {value = dense<[200, 7]> : tensor<2xui8>} : () -> tensor<2xui8>
  %ub = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xui8>} : () -> tensor<2xui8>
  %uq = "onnx.Div"(%ua, %ub) : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %sa = "onnx.Constant"() {value = dense<[-56, 7]> : tensor<2xi8>} : () -> tensor<2xi8>
  %sb = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xi8>} : () -> tensor<2xi8>
  %sq = "onnx.Div"(%sa, %sb) : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return %q, %uq, %sq : tensor<4xi32>, tensor<2xui8>, tensor<2xi8>
}

// -----

/// Cast float -> int truncates (numpy astype): [2.7, -2.7, 0.5, -0.0] ->
/// [2, -2, 0, 0]; int -> bool is != 0.
// CHECK-LABEL: func.func @cast_float_to_int(
// CHECK-DAG: "onnx.Constant"() <{value = dense<[2, -2, 0, 0]> : tensor<4xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[true, false, true]> : tensor<3xi1>}>
// CHECK-NOT: onnx.Cast
func.func @cast_float_to_int() -> (tensor<4xi32>, tensor<3xi1>) {
  %a = "onnx.Constant"() {value = dense<[2.7, -2.7, 0.5, -0.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = "onnx.Cast"(%a) {to = 6 : i64} : (tensor<4xf32>) -> tensor<4xi32>
  %i = "onnx.Constant"() {value = dense<[5, 0, -1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %b = "onnx.Cast"(%i) {to = 9 : i64} : (tensor<3xi64>) -> tensor<3xi1>
  return %c, %b : tensor<4xi32>, tensor<3xi1>
}

// -----

/// Bool ops (numpy &, |, ^, ~ and >):
/// x = [T, T, F, F], y = [T, F, T, F]: and [T, F, F, F], or [T, T, T, F],
/// xor [F, T, T, F], not x [F, F, T, T]; [1, 2, 3] > 2 = [F, F, T].
// CHECK-LABEL: func.func @bool_ops(
// CHECK-DAG: "onnx.Constant"() <{value = dense<[true, false, false, false]> : tensor<4xi1>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[true, true, true, false]> : tensor<4xi1>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[false, true, true, false]> : tensor<4xi1>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[false, false, true, true]> : tensor<4xi1>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[false, false, true]> : tensor<3xi1>}>
// CHECK-NOT: "onnx.{{And|Or|Xor|Not|Greater}}"
func.func @bool_ops() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<3xi1>) {
  %x = "onnx.Constant"() {value = dense<[true, true, false, false]> : tensor<4xi1>} : () -> tensor<4xi1>
  %y = "onnx.Constant"() {value = dense<[true, false, true, false]> : tensor<4xi1>} : () -> tensor<4xi1>
  %and = "onnx.And"(%x, %y) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %or = "onnx.Or"(%x, %y) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %xor = "onnx.Xor"(%x, %y) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %not = "onnx.Not"(%x) : (tensor<4xi1>) -> tensor<4xi1>
  %f = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %gt = "onnx.Greater"(%f, %two) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  return %and, %or, %xor, %not, %gt : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<3xi1>
}

// -----

/// f16 arithmetic rounds to f16 (numpy float16): [0.1, 1.5, 2, -3.3] * 3 =
/// [0.2998046875, 4.5, 6, -9.90625] (0.1 is 0.0999755859375 in f16).
// CHECK-LABEL: func.func @f16_mul(
// CHECK-NEXT: %[[C:.*]] = "onnx.Constant"() <{value = dense<[2.998050e-01, 4.500000e+00, 6.000000e+00, -9.906250e+00]> : tensor<4xf16>}>
// CHECK-NEXT: return %[[C]]
func.func @f16_mul() -> tensor<4xf16> {
  %a = "onnx.Constant"() {value = dense<[0.1, 1.5, 2.0, -3.3]> : tensor<4xf16>} : () -> tensor<4xf16>
  %b = "onnx.Constant"() {value = dense<3.0> : tensor<1xf16>} : () -> tensor<1xf16>
  %m = "onnx.Mul"(%a, %b) : (tensor<4xf16>, tensor<1xf16>) -> tensor<4xf16>
  return %m : tensor<4xf16>
}

// -----

/// Multidirectional broadcasting: [[1], [2]] + [10, 20, 30] =
/// [[11, 21, 31], [12, 22, 32]] (numpy).
// CHECK-LABEL: func.func @broadcast_add(
// CHECK: "onnx.Constant"() <{value = dense<{{\[\[}}11, 21, 31], [12, 22, 32]]> : tensor<2x3xi64>}>
// CHECK-NOT: onnx.Add
func.func @broadcast_add() -> tensor<2x3xi64> {
  %a = "onnx.Constant"() {value = dense<[[1], [2]]> : tensor<2x1xi64>} : () -> tensor<2x1xi64>
  %b = "onnx.Constant"() {value = dense<[10, 20, 30]> : tensor<3xi64>} : () -> tensor<3xi64>
  %s = "onnx.Add"(%a, %b) : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %s : tensor<2x3xi64>
}

// -----

/// PyTorch's Shape -> Gather -> Unsqueeze -> Concat -> Reshape: with static
/// dims the new shape is the constant [2, -1] (dim 0 of 2x3x4), and the
/// Reshape of the (non-constant) input reads it.
// CHECK-LABEL: func.func @shape_chain(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[S:.*]] = "onnx.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}>
// CHECK-NEXT: %[[R:.*]] = "onnx.Reshape"(%[[X]], %[[S]])
// CHECK-NEXT: return %[[R]]
func.func @shape_chain(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %shape = "onnx.Shape"(%x) : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %zero = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %dim = "onnx.Gather"(%shape, %zero) {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %axes = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %dim1 = "onnx.Unsqueeze"(%dim, %axes) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %rest = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %new = "onnx.Concat"(%dim1, %rest) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %new) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

/// Reshape of a constant: 0 copies the input dim, -1 is inferred
/// ([2, 3] -> [0, -1, 1] = [2, 3, 1]); Flatten, Squeeze, Transpose and Tile
/// move elements (numpy: transpose(arange(6).reshape(2, 3)) =
/// [[0, 3], [1, 4], [2, 5]]; tile([[1, 2]], (2, 2)) = [[1, 2, 1, 2] x 2]).
// CHECK-LABEL: func.func @data_movement(
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[\[\[}}0], [1], [2]], {{\[\[}}3], [4], [5]]]> : tensor<2x3x1xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[\[}}0, 1, 2, 3, 4, 5]]> : tensor<1x6xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[\[}}0, 3], [1, 4], [2, 5]]> : tensor<3x2xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[\[}}1, 2, 1, 2], [1, 2, 1, 2]]> : tensor<2x4xi32>}>
// CHECK-NOT: "onnx.{{Reshape|Flatten|Squeeze|Transpose|Tile}}"
func.func @data_movement() -> (tensor<2x3x1xi32>, tensor<1x6xi32>, tensor<6xi32>, tensor<3x2xi32>, tensor<2x4xi32>) {
  %a = "onnx.Constant"() {value = dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
  %s = "onnx.Constant"() {value = dense<[0, -1, 1]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = "onnx.Reshape"(%a, %s) : (tensor<2x3xi32>, tensor<3xi64>) -> tensor<2x3x1xi32>
  %f = "onnx.Flatten"(%a) {axis = 0 : i64} : (tensor<2x3xi32>) -> tensor<1x6xi32>
  %none = "onnx.NoValue"() : () -> none
  %q = "onnx.Squeeze"(%f, %none) : (tensor<1x6xi32>, none) -> tensor<6xi32>
  %t = "onnx.Transpose"(%a) : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %b = "onnx.Constant"() {value = dense<[[1, 2]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %rep = "onnx.Constant"() {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %tile = "onnx.Tile"(%b, %rep) : (tensor<1x2xi32>, tensor<2xi64>) -> tensor<2x4xi32>
  return %r, %f, %q, %t, %tile : tensor<2x3x1xi32>, tensor<1x6xi32>, tensor<6xi32>, tensor<3x2xi32>, tensor<2x4xi32>
}

// -----

/// Slice with negative steps (numpy): arange(10)[9::-3] = [9, 6, 3, 0]
/// (start -1, end -100 clamps to "before 0"); arange(12).reshape(3, 4)
/// [2:0:-1, 3:0:-2] = [[11, 9], [7, 5]] (axes given in reverse order).
// CHECK-LABEL: func.func @slice_negative_steps(
// CHECK-DAG: "onnx.Constant"() <{value = dense<[9, 6, 3, 0]> : tensor<4xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[\[}}11, 9], [7, 5]]> : tensor<2x2xi32>}>
// CHECK-NOT: onnx.Slice
func.func @slice_negative_steps() -> (tensor<4xi32>, tensor<2x2xi32>) {
  %d = "onnx.Constant"() {value = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]> : tensor<10xi32>} : () -> tensor<10xi32>
  %st = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = "onnx.Constant"() {value = dense<[-100]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = "onnx.NoValue"() : () -> none
  %step = "onnx.Constant"() {value = dense<[-3]> : tensor<1xi64>} : () -> tensor<1xi64>
  %s1 = "onnx.Slice"(%d, %st, %en, %none, %step) : (tensor<10xi32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<4xi32>
  %m = "onnx.Constant"() {value = dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>} : () -> tensor<3x4xi32>
  %st2 = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %en2 = "onnx.Constant"() {value = dense<[0, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %ax2 = "onnx.Constant"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %sp2 = "onnx.Constant"() {value = dense<[-2, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s2 = "onnx.Slice"(%m, %st2, %en2, %ax2, %sp2) : (tensor<3x4xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  return %s1, %s2 : tensor<4xi32>, tensor<2x2xi32>
}

// -----

/// Range (numpy arange): (1, 10, 3) = [1, 4, 7]; (0.5, 2, 0.5) = [0.5, 1, 1.5].
// CHECK-LABEL: func.func @range(
// CHECK-DAG: "onnx.Constant"() <{value = dense<[1, 4, 7]> : tensor<3xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[5.000000e-01, 1.000000e+00, 1.500000e+00]> : tensor<3xf32>}>
// CHECK-NOT: onnx.Range
func.func @range() -> (tensor<3xi32>, tensor<3xf32>) {
  %s = "onnx.Constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %l = "onnx.Constant"() {value = dense<10> : tensor<i32>} : () -> tensor<i32>
  %d = "onnx.Constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %r = "onnx.Range"(%s, %l, %d) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3xi32>
  %fs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %fl = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %fr = "onnx.Range"(%fs, %fl, %fs) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  return %r, %fr : tensor<3xi32>, tensor<3xf32>
}

// -----

/// Expand within the size limit: [[1], [2]] to [2, 3] = [[1, 1, 1], [2, 2, 2]];
/// ConstantOfShape, Size, ReduceProd of a shape (2 * 3 * 4 = 24), and a
/// Gather with a negative index (-1 is the last: 4).
// CHECK-LABEL: func.func @small_shape_ops(
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[\[}}1, 1, 1], [2, 2, 2]]> : tensor<2x3xi64>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<7> : tensor<2x2xi32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<24> : tensor<1xi64>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<4> : tensor<i64>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<6> : tensor<i64>}>
// CHECK-NOT: "onnx.{{Expand|ConstantOfShape|ReduceProd|Gather|Size}}"
func.func @small_shape_ops(%x: tensor<2x3xf32>) -> (tensor<2x3xi64>, tensor<2x2xi32>, tensor<1xi64>, tensor<i64>, tensor<i64>) {
  %a = "onnx.Constant"() {value = dense<[[1], [2]]> : tensor<2x1xi64>} : () -> tensor<2x1xi64>
  %shape = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %e = "onnx.Expand"(%a, %shape) : (tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x3xi64>
  %s22 = "onnx.Constant"() {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %c = "onnx.ConstantOfShape"(%s22) {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x2xi32>
  %dims = "onnx.Constant"() {value = dense<[2, 3, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %none = "onnx.NoValue"() : () -> none
  %p = "onnx.ReduceProd"(%dims, %none) : (tensor<3xi64>, none) -> tensor<1xi64>
  %m1 = "onnx.Constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %last = "onnx.Gather"(%dims, %m1) {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %n = "onnx.Size"(%x) : (tensor<2x3xf32>) -> tensor<i64>
  return %e, %c, %p, %last, %n : tensor<2x3xi64>, tensor<2x2xi32>, tensor<1xi64>, tensor<i64>, tensor<i64>
}

// -----

/// Ops inside an If branch fold too (constants from outside the region).
// CHECK-LABEL: func.func @nested_region(
// CHECK: "onnx.If"
// CHECK: %[[C:.*]] = "onnx.Constant"() <{value = dense<[4, 6]> : tensor<2xi64>}>
// CHECK-NEXT: Yield %[[C]]
func.func @nested_region(%c: tensor<i1>) -> tensor<2xi64> {
  %a = "onnx.Constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %b = "onnx.Constant"() {value = dense<[3, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.If"(%c) ({
    %s = "onnx.Add"(%a, %b) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
    "onnx.Yield"(%s) : (tensor<2xi64>) -> ()
  }, {
    "onnx.Yield"(%a) : (tensor<2xi64>) -> ()
  }) : (tensor<i1>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

/// An If whose condition folds (Size of a [4] == 4, as AffineGrid's body
/// has it) is replaced by the branch it takes, whose ops then fold too; the
/// function returns the type that branch yields.
// CHECK-LABEL: func.func @constant_condition(
// CHECK-SAME: -> tensor<1xi64>
// CHECK-NOT: onnx.If
// CHECK: %[[S:.*]]:2 = "onnx.Split"(%arg0
// CHECK-NOT: onnx.If
// CHECK: return %[[S]]#0
func.func @constant_condition(%size: tensor<4xi64>) -> tensor<?xi64> {
  %n = "onnx.Size"(%size) : (tensor<4xi64>) -> tensor<i64>
  %four = "onnx.Constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %c = "onnx.Equal"(%n, %four) : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.If"(%c) ({
    %p:2 = "onnx.Split"(%size, %none) {axis = 0 : i64} : (tensor<4xi64>, none) -> (tensor<1xi64>, tensor<3xi64>)
    "onnx.Yield"(%p#0) : (tensor<1xi64>) -> ()
  }, {
    "onnx.Yield"(%size) : (tensor<4xi64>) -> ()
  }) : (tensor<i1>) -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

/// A constant condition that takes a branch shape inference found cannot
/// run keeps the If: run() must return that branch's status.
// CHECK-LABEL: func.func @constant_condition_invalid_branch(
// CHECK: "onnx.If"
func.func @constant_condition_invalid_branch(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = "onnx.Constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
  %r = "onnx.If"(%c) ({
    "onnx.Yield"(%x) : (tensor<2xf32>) -> ()
  }, {
    %z = "onnx.Constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
    "onnx.Yield"(%z) : (tensor<2xf32>) -> ()
  }) {onnxcc.invalid_branch = 1 : i64} : (tensor<i1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

/// A result of 1 KiB or more becomes a resource blob named after the node
/// (Range 0..299 of i32 = 1200 bytes).
// CHECK-LABEL: func.func @large_result_blob(
// CHECK: "onnx.Constant"() <{value = dense_resource<iota_folded> : tensor<300xi32>}>
// CHECK-NOT: onnx.Range
// CHECK: iota_folded: "0x04000000000000000100000002000000
func.func @large_result_blob() -> tensor<300xi32> {
  %s = "onnx.Constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %l = "onnx.Constant"() {value = dense<300> : tensor<i32>} : () -> tensor<i32>
  %d = "onnx.Constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %r = "onnx.Range"(%s, %l, %d) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<300xi32> loc("iota")
  return %r : tensor<300xi32>
}

// -----

/// Zero-size tensors fold to empty constants.
// CHECK-LABEL: func.func @zero_size(
// CHECK: "onnx.Constant"() <{value = dense<> : tensor<0x3xf32>}>
// CHECK-NOT: onnx.Neg
func.func @zero_size() -> tensor<0x3xf32> {
  %a = "onnx.Constant"() {value = dense<> : tensor<0x3xf32>} : () -> tensor<0x3xf32>
  %n = "onnx.Neg"(%a) : (tensor<0x3xf32>) -> tensor<0x3xf32>
  return %n : tensor<0x3xf32>
}

// -----

/// An operand that is not a constant: the Add stays.
// CHECK-LABEL: func.func @negative_operand_not_constant(
// CHECK: "onnx.Add"
func.func @negative_operand_not_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s = "onnx.Add"(%x, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

/// Expand of a scalar to 129x128 f32 (66048 bytes) is over the default
/// 65536-byte limit and larger than its operands: left for run time. With
/// size-limit=100000 it folds (a splat).
// CHECK-LABEL: func.func @negative_expand_over_limit(
// CHECK: "onnx.Expand"
// RAISED-LABEL: func.func @negative_expand_over_limit(
// RAISED-NEXT: %[[C:.*]] = "onnx.Constant"() <{value = dense<1.500000e+00> : tensor<129x128xf32>}>
// RAISED-NEXT: return %[[C]]
func.func @negative_expand_over_limit() -> tensor<129x128xf32> {
  %a = "onnx.Constant"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %shape = "onnx.Constant"() {value = dense<[129, 128]> : tensor<2xi64>} : () -> tensor<2xi64>
  %e = "onnx.Expand"(%a, %shape) : (tensor<f32>, tensor<2xi64>) -> tensor<129x128xf32>
  return %e : tensor<129x128xf32>
}

// -----

/// Shape of a symbolic dim is known at run time only; the static dims after
/// it (start = 1) fold.
// CHECK-LABEL: func.func @negative_shape_symbolic(
// CHECK-DAG: "onnx.Shape"(%{{.*}}) {{.*}}: (tensor<?x3xf32>) -> tensor<2xi64>
// CHECK-DAG: "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}>
func.func @negative_shape_symbolic(%x: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<1xi64>) {
  %s = "onnx.Shape"(%x) : (tensor<?x3xf32>) -> tensor<2xi64>
  %t = "onnx.Shape"(%x) {start = 1 : i64} : (tensor<?x3xf32>) -> tensor<1xi64>
  return %s, %t : tensor<2xi64>, tensor<1xi64>
}

// -----

/// Gather with an index out of range (3 of 3 elements) is not folded.
// CHECK-LABEL: func.func @negative_gather_out_of_range(
// CHECK: "onnx.Gather"
func.func @negative_gather_out_of_range() -> tensor<i64> {
  %d = "onnx.Constant"() {value = dense<[2, 3, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %i = "onnx.Constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %g = "onnx.Gather"(%d, %i) {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  return %g : tensor<i64>
}

// -----

/// A body op that does not fold leaves the onnx op alone: integer division
/// by zero, and exp on f16 (the math folders only compute f32 and f64).
// CHECK-LABEL: func.func @negative_body_does_not_fold(
// CHECK: "onnx.Div"
// CHECK: "onnx.Exp"
func.func @negative_body_does_not_fold() -> (tensor<2xi32>, tensor<2xf16>) {
  %a = "onnx.Constant"() {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %z = "onnx.Constant"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %q = "onnx.Div"(%a, %z) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %h = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %e = "onnx.Exp"(%h) : (tensor<2xf16>) -> tensor<2xf16>
  return %q, %e : tensor<2xi32>, tensor<2xf16>
}

// -----

/// Zero-size inputs of the index arithmetic: a negative-step Slice of an
/// empty dim and a Concat with an empty operand.
// CHECK-LABEL: func.func @zero_size_data_movement(
// CHECK-DAG: "onnx.Constant"() <{value = dense<> : tensor<0xi64>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
// CHECK-NOT: "onnx.{{Slice|Concat}}"
func.func @zero_size_data_movement() -> (tensor<0xi64>, tensor<2xi64>) {
  %e = "onnx.Constant"() {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  %st = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = "onnx.Constant"() {value = dense<[-9]> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = "onnx.NoValue"() : () -> none
  %step = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = "onnx.Slice"(%e, %st, %en, %none, %step) : (tensor<0xi64>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<0xi64>
  %a = "onnx.Constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %c = "onnx.Concat"(%e, %a) {axis = 0 : i64} : (tensor<0xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %s, %c : tensor<0xi64>, tensor<2xi64>
}

// -----

/// The same Expand read only as a MatMul's B (a weight the lowering packs
/// at compile time anyway) folds whatever its size: weights that exporters
/// build from Constant/ConstantOfShape/Expand take the packed kernels.
// CHECK-LABEL: func.func @expand_weight_over_limit(
// CHECK-NOT: "onnx.Expand"
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<1.500000e+00> : tensor<129x128xf32>}>
// CHECK: "onnx.MatMul"(%{{.*}}, %[[W]])
func.func @expand_weight_over_limit(%x: tensor<2x129xf32>) -> tensor<2x128xf32> {
  %a = "onnx.Constant"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %shape = "onnx.Constant"() {value = dense<[129, 128]> : tensor<2xi64>} : () -> tensor<2xi64>
  %e = "onnx.Expand"(%a, %shape) : (tensor<f32>, tensor<2xi64>) -> tensor<129x128xf32>
  %y = "onnx.MatMul"(%x, %e) : (tensor<2x129xf32>, tensor<129x128xf32>) -> tensor<2x128xf32>
  return %y : tensor<2x128xf32>
}

// -----

/// negative_: read as a weight and as an activation, it stays.
// CHECK-LABEL: func.func @negative_expand_weight_and_data(
// CHECK: "onnx.Expand"
func.func @negative_expand_weight_and_data(%x: tensor<2x129xf32>) -> (tensor<2x128xf32>, tensor<129x128xf32>) {
  %a = "onnx.Constant"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %shape = "onnx.Constant"() {value = dense<[129, 128]> : tensor<2xi64>} : () -> tensor<2xi64>
  %e = "onnx.Expand"(%a, %shape) : (tensor<f32>, tensor<2xi64>) -> tensor<129x128xf32>
  %y = "onnx.MatMul"(%x, %e) : (tensor<2x129xf32>, tensor<129x128xf32>) -> tensor<2x128xf32>
  return %y, %e : tensor<2x128xf32>, tensor<129x128xf32>
}

// -----

/// A Conv weight cast from float16 and scaled, 72 Ki elements (over the
/// 64 Ki elements of attribute-per-value evaluation): the float arithmetic
/// folds on APFloat values. 0x3C00 is 1.0 in float16, 0x4000 2.0; times
/// 0.25 gives 0.25 and 0.5 (exact).
// CHECK-LABEL: func.func @cast_scale_weight(
// CHECK-NOT: "onnx.Cast"
// CHECK-NOT: "onnx.Mul"
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<{{.*}}> : tensor<128x64x3x3xf32>}>
// CHECK: "onnx.Conv"(%{{.*}}, %[[W]],
func.func @cast_scale_weight(%x: tensor<1x64x8x8xf32>) -> tensor<1x128x6x6xf32> {
  %h = "onnx.Constant"() {value = dense<[[[[1.0, 2.0, 1.0], [2.0, 1.0, 2.0], [1.0, 2.0, 1.0]]]]> : tensor<1x1x3x3xf16>} : () -> tensor<1x1x3x3xf16>
  %shape = "onnx.Constant"() {value = dense<[128, 64, 3, 3]> : tensor<4xi64>} : () -> tensor<4xi64>
  %big = "onnx.Expand"(%h, %shape) : (tensor<1x1x3x3xf16>, tensor<4xi64>) -> tensor<128x64x3x3xf16>
  %f = "onnx.Cast"(%big) {to = 1 : i64} : (tensor<128x64x3x3xf16>) -> tensor<128x64x3x3xf32>
  %q = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %w = "onnx.Mul"(%f, %q) : (tensor<128x64x3x3xf32>, tensor<f32>) -> tensor<128x64x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.Conv"(%x, %w, %none) : (tensor<1x64x8x8xf32>, tensor<128x64x3x3xf32>, none) -> tensor<1x128x6x6xf32>
  return %y : tensor<1x128x6x6xf32>
}

// -----

/// DequantizeLinear of constant weights folds, so that the float kernels
/// pack them like initializers: (x - zero_point) * scale per axis (numpy:
/// (np.array([[-128, 3], [127, -1]]) - [[1], [-2]]) * [[0.5], [0.25]] with
/// axis 0 = [[-64.5, 1], [32.25, 0.25]]).
// CHECK-LABEL: func.func @dequantize_per_axis_weight(
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[}}[-6.450000e+01, 1.000000e+00], [3.225000e+01, 2.500000e-01]]> : tensor<2x2xf32>}>
// CHECK-NOT: onnx.DequantizeLinear
// CHECK: "onnx.MatMul"(%{{.*}}, %[[W]])
func.func @dequantize_per_axis_weight(%a: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %q = "onnx.Constant"() {value = dense<[[-128, 3], [127, -1]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %s = "onnx.Constant"() {value = dense<[0.5, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %z = "onnx.Constant"() {value = dense<[1, -2]> : tensor<2xi8>} : () -> tensor<2xi8>
  %w = "onnx.DequantizeLinear"(%q, %s, %z) {axis = 0 : i64} : (tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2xf32>
  %y = "onnx.MatMul"(%a, %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

/// Blocked int4 weights (DequantizeLinear 21, block_size 2 along axis 0, a
/// zero point per block), as weight-only quantizers write them: element
/// [k][n] reads scale and zero point [k / 2][n]. numpy:
/// (np.array([[-8, 7], [1, -1], [2, 3], [0, -5]]) - np.repeat([[1, 0], [-1, 2]], 2, 0))
///   * np.repeat([[0.5, 2], [1, 0.125]], 2, 0)
///   = [[-4.5, 14], [0, -2], [3, 0.125], [1, -0.875]]
/// With 17 rows of A (more than the 4-bit kernel takes) they fold; with one
/// row they stay 4-bit for it (lowering::feedsQ4Kernel).
// CHECK-LABEL: func.func @dequantize_blocked_int4_weight(
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[}}[-4.500000e+00, 1.400000e+01], [0.000000e+00, -2.000000e+00], [3.000000e+00, 1.250000e-01], [1.000000e+00, -8.750000e-01]]> : tensor<4x2xf32>}>
// CHECK-NOT: onnx.DequantizeLinear
// CHECK: "onnx.MatMul"(%{{.*}}, %[[W]])
func.func @dequantize_blocked_int4_weight(%a: tensor<17x4xf32>) -> tensor<17x2xf32> {
  %q = "onnx.Constant"() {value = dense<[[-8, 7], [1, -1], [2, 3], [0, -5]]> : tensor<4x2xi4>} : () -> tensor<4x2xi4>
  %s = "onnx.Constant"() {value = dense<[[0.5, 2.0], [1.0, 0.125]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %z = "onnx.Constant"() {value = dense<[[1, 0], [-1, 2]]> : tensor<2x2xi4>} : () -> tensor<2x2xi4>
  %w = "onnx.DequantizeLinear"(%q, %s, %z) {axis = 0 : i64, block_size = 2 : i64, onnxcc.block_size = 2 : i64} : (tensor<4x2xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<4x2xf32>
  %y = "onnx.MatMul"(%a, %w) : (tensor<17x4xf32>, tensor<4x2xf32>) -> tensor<17x2xf32>
  return %y : tensor<17x2xf32>
}

// -----

// CHECK-LABEL: func.func @dequantize_int4_weight_for_the_q4_kernel(
// CHECK: %[[W:.*]] = "onnx.DequantizeLinear"
// CHECK: "onnx.MatMul"(%{{.*}}, %[[W]])
func.func @dequantize_int4_weight_for_the_q4_kernel(%a: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %q = "onnx.Constant"() {value = dense<[[-8, 7], [1, -1], [2, 3], [0, -5]]> : tensor<4x2xi4>} : () -> tensor<4x2xi4>
  %s = "onnx.Constant"() {value = dense<[[0.5, 2.0], [1.0, 0.125]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.DequantizeLinear"(%q, %s, %none) {axis = 0 : i64, block_size = 2 : i64, onnxcc.block_size = 2 : i64} : (tensor<4x2xi4>, tensor<2x2xf32>, none) -> tensor<4x2xf32>
  %y = "onnx.MatMul"(%a, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

/// uint8 with a float16 scale, per tensor (15 is 0x4B80 in float16, exact):
/// ([0, 255, 128] - 128) * 15 = [-1920, 1905, 0]. An int4 value of 15 would
/// not be valid, so uint8 covers the unsigned path.
// CHECK-LABEL: func.func @dequantize_uint8_f16_scale(
// CHECK: "onnx.Constant"() <{value = dense<[-1.920000e+03, 1.905000e+03, 0.000000e+00]> : tensor<3xf32>}>
// CHECK-NOT: onnx.DequantizeLinear
func.func @dequantize_uint8_f16_scale() -> tensor<3xf32> {
  %q = "onnx.Constant"() {value = dense<[0, 255, 128]> : tensor<3xui8>} : () -> tensor<3xui8>
  %s = "onnx.Constant"() {value = dense<15.0> : tensor<f16>} : () -> tensor<f16>
  %z = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %w = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<3xui8>, tensor<f16>, tensor<ui8>) -> tensor<3xf32>
  return %w : tensor<3xf32>
}
