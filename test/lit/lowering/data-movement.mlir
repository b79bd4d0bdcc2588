// RUN: onnxcc-opt %s --convert-onnx-to-linalg --split-input-file -verify-diagnostics | FileCheck %s

/// Transpose without perm reverses the dims.
// CHECK-LABEL: func.func @transpose_default
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x3x2xf32>) permutation = [2, 1, 0]
func.func @transpose_default(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = "onnx.Transpose"(%x) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

/// Concat is tensor.concat of its non-empty inputs; a negative axis counts
/// from the end.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>, %[[Z:.*]]: tensor<2x0xf32>)
// CHECK: tensor.concat dim(1) %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %z: tensor<2x0xf32>) -> tensor<2x8xf32> {
  %0 = "onnx.Concat"(%a, %z, %b) {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

/// Split sizes come from the result types: each part is a view.
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.*]]: tensor<6x2xf32>)
// CHECK: tensor.extract_slice %[[X]][0, 0] [2, 2] [1, 1]
// CHECK: tensor.extract_slice %[[X]][2, 0] [4, 2] [1, 1]
func.func @split(%x: tensor<6x2xf32>) -> (tensor<2x2xf32>, tensor<4x2xf32>) {
  %s = "onnx.Constant"() {value = dense<[2, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0:2 = "onnx.Split"(%x, %s) {axis = 0 : i64} : (tensor<6x2xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<4x2xf32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<4x2xf32>
}

// -----

/// Slice with positive steps is one strided view; out-of-range ends clamp.
// CHECK-LABEL: func.func @slice_strided
// CHECK-SAME: (%[[X:.*]]: tensor<10x4xf32>)
// CHECK: tensor.extract_slice %[[X]][1, 0] [5, 4] [2, 1]
func.func @slice_strided(%x: tensor<10x4xf32>) -> tensor<5x4xf32> {
  %st = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = "onnx.Constant"() {value = dense<[1000]> : tensor<1xi64>} : () -> tensor<1xi64>
  %ax = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %sp = "onnx.Constant"() {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Slice"(%x, %st, %en, %ax, %sp) : (tensor<10x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

/// A negative step reads through a generic: out[i] = in[start + i * step].
// CHECK-LABEL: func.func @slice_negative_step
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[STEP:.*]] = arith.constant -1 : index
// CHECK: %[[M:.*]] = arith.muli %[[I]], %[[STEP]]
// CHECK: %[[START:.*]] = arith.constant 3 : index
// CHECK: %[[P:.*]] = arith.addi %[[M]], %[[START]]
// CHECK: tensor.extract %{{.*}}[%[[P]]]
func.func @slice_negative_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %st = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = "onnx.Constant"() {value = dense<[-9223372036854775807]> : tensor<1xi64>} : () -> tensor<1xi64>
  %ax = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %sp = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Slice"(%x, %st, %en, %ax, %sp) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Starts known only at run time: each dim's first position and step are
/// computed once, and a generic reads the clamped position.
// CHECK-LABEL: func.func @slice_runtime_starts
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[ST:.*]]: tensor<1xi64>)
// CHECK: %[[S:.*]] = tensor.extract %[[ST]]
// CHECK: %[[FIRST:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: arith.addi %{{.*}}, %[[FIRST]]
// CHECK: tensor.extract %[[X]]
func.func @slice_runtime_starts(%x: tensor<4xf32>, %st: tensor<1xi64>) -> tensor<2xf32> {
  %en = "onnx.Constant"() {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%x, %st, %en, %n, %n) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

/// A result that is not a whole tiling of the input is a clean failure.
func.func @negative_tile_partial(%x: tensor<3x2xf32>, %r: tensor<2xi64>) -> tensor<3x5xf32> {
  // expected-error @+1 {{failed to legalize operation 'onnx.Tile'}}
  %0 = "onnx.Tile"(%x, %r) : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

/// Expand broadcasts size-1 dims by reading index 0.
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @expand
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #{{.*}}]
func.func @expand(%x: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %s = "onnx.Constant"() {value = dense<[4, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Expand"(%x, %s) : (tensor<1x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

/// Tile reads in[i mod dim] on the tiled dims only.
// CHECK-LABEL: func.func @tile
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: %[[I1:.*]] = linalg.index 1
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[R:.*]] = arith.remui %[[I1]], %[[C2]]
// CHECK: tensor.extract %{{.*}}[%[[I0]], %[[R]]]
func.func @tile(%x: tensor<3x2xf32>) -> tensor<3x6xf32> {
  %r = "onnx.Constant"() {value = dense<[1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Tile"(%x, %r) : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

/// Constant padding fills with the runtime constant_value, then inserts the
/// input; negative pads crop it first.
// CHECK-LABEL: func.func @pad_constant
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[V:.*]]: tensor<f32>)
// CHECK: %[[S:.*]] = tensor.extract %[[V]][]
// CHECK: %[[F:.*]] = linalg.fill ins(%[[S]] : f32)
// CHECK: %[[C:.*]] = tensor.extract_slice %[[X]][0, 1] [3, 3] [1, 1]
// CHECK: tensor.insert_slice %[[C]] into %[[F]][1, 0] [3, 3] [1, 1] : tensor<3x3xf32> into tensor<5x5xf32>
func.func @pad_constant(%x: tensor<3x4xf32>, %v: tensor<f32>) -> tensor<5x5xf32> {
  %p = "onnx.Constant"() {value = dense<[1, -1, 1, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.Pad"(%x, %p, %v) {mode = "constant"} : (tensor<3x4xf32>, tensor<4xi64>, tensor<f32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

/// Reflect padding mirrors with period 2 * (dim - 1) of what the pads keep.
// CHECK-LABEL: func.func @pad_reflect
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.remsi
// CHECK: arith.select
// CHECK: tensor.extract
func.func @pad_reflect(%x: tensor<3xf32>) -> tensor<7xf32> {
  %p = "onnx.Constant"() {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%x, %p, %n) {mode = "reflect"} : (tensor<3xf32>, tensor<2xi64>, none) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

/// DepthToSpace (DCR): expand to 6-D, transpose, collapse to 4-D.
// CHECK-LABEL: func.func @depth_to_space_dcr
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3], [4], [5]] output_shape [1, 2, 2, 2, 2, 3]
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 4, 1, 5, 2]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<1x2x2x2x3x2xf32> into tensor<1x2x4x6xf32>
func.func @depth_to_space_dcr(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = "onnx.DepthToSpace"(%x) {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @space_to_depth
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 5, 1, 2, 4]
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x8x2x3xf32>
func.func @space_to_depth(%x: tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32> {
  %0 = "onnx.SpaceToDepth"(%x) {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  return %0 : tensor<1x8x2x3xf32>
}

// -----

/// Shape and Size are compile-time constants of the static input type.
// CHECK-LABEL: func.func @shape_size
// CHECK-DAG: arith.constant dense<[3, 4]> : tensor<2xi64>
// CHECK-DAG: arith.constant dense<120> : tensor<i64>
func.func @shape_size(%x: tensor<2x3x4x5xf32>) -> (tensor<2xi64>, tensor<i64>) {
  %0 = "onnx.Shape"(%x) {start = 1 : i64, end = -1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2xi64>
  %1 = "onnx.Size"(%x) : (tensor<2x3x4x5xf32>) -> tensor<i64>
  return %0, %1 : tensor<2xi64>, tensor<i64>
}

// -----

/// ConstantOfShape fills the static result with `value`.
// CHECK-LABEL: func.func @constant_of_shape
// CHECK: %[[V:.*]] = arith.constant 7 : i32
// CHECK: linalg.fill ins(%[[V]] : i32) outs(%{{.*}} : tensor<2x3xi32>)
func.func @constant_of_shape() -> tensor<2x3xi32> {
  %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.ConstantOfShape"(%s) {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
