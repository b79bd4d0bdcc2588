// RUN: onnxcc-opt %s --convert-onnx-to-linalg --split-input-file | FileCheck %s

/// Gather reads runtime indices as an input, wraps negative ones, clamps the
/// rest into range and extracts from the data at the computed position.
// CHECK-DAG: #[[IND:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @gather_axis1
// CHECK-SAME: (%[[D:.*]]: tensor<3x4x5xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[IND]], #{{.*}}]{{.*}} ins(%[[I]] : tensor<2xi64>)
// CHECK: ^bb0(%[[IDX:.*]]: i64, %{{.*}}: f32):
// CHECK-DAG: %[[I0:.*]] = linalg.index 0
// CHECK-DAG: %[[I2:.*]] = linalg.index 2
// CHECK: %[[C:.*]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK: arith.cmpi slt, %[[C]]
// CHECK: arith.cmpi sgt
// CHECK: %[[W:.*]] = arith.select
// CHECK: tensor.extract %[[D]][%[[I0]], %[[W]], %[[I2]]]
func.func @gather_axis1(%d: tensor<3x4x5xf32>, %i: tensor<2xi64>) -> tensor<3x2x5xf32> {
  %0 = "onnx.Gather"(%d, %i) {axis = 1 : i64} : (tensor<3x4x5xf32>, tensor<2xi64>) -> tensor<3x2x5xf32>
  return %0 : tensor<3x2x5xf32>
}

// -----

/// GatherElements replaces only the axis coordinate.
// CHECK-LABEL: func.func @gather_elements
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: arith.cmpi sgt
// CHECK: %[[W:.*]] = arith.select
// CHECK: tensor.extract %{{.*}}[%[[I0]], %[[W]]]
func.func @gather_elements(%d: tensor<2x3xf32>, %i: tensor<2x2xi32>) -> tensor<2x2xf32> {
  %0 = "onnx.GatherElements"(%d, %i) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

/// GatherND reads each tuple component through its own constant-index map;
/// batch dims pass through.
// CHECK-DAG: #[[K0:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @gathernd_batch
// CHECK: linalg.generic {indexing_maps = [#[[K0]], #{{.*}}]
// CHECK: %[[B:.*]] = linalg.index 0
// CHECK: %[[R:.*]] = linalg.index 1
// CHECK: arith.cmpi sgt
// CHECK: %[[W:.*]] = arith.select
// CHECK: tensor.extract %{{.*}}[%[[B]], %[[W]], %[[R]]]
func.func @gathernd_batch(%d: tensor<2x2x2xi32>, %i: tensor<2x1xi64>) -> tensor<2x2xi32> {
  %0 = "onnx.GatherND"(%d, %i) {batch_dims = 1 : i64} : (tensor<2x2x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

/// ScatterElements reduces over the updates' axis into a fresh tensor that
/// starts from the data (the input buffer is never written); add combines
/// every match.
// CHECK-LABEL: func.func @scatter_elements_add
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: arith.select
func.func @scatter_elements_add(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = "onnx.ScatterElements"(%d, %i, %u) {axis = 0 : i64, reduction = "add"} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

/// ScatterND: one reduction loop per leading indices dim.
// CHECK-LABEL: func.func @scatternd
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x1xi64>)
func.func @scatternd(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = "onnx.ScatterND"(%d, %i, %u) : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

/// Range computes start + i * delta from runtime scalars. The length it was
/// declared with is checked first: run() returns 9 unless the values give 5
/// elements (and delta is not 0).
// CHECK-LABEL: func.func @range
// CHECK: call @onnxcc_check_equal
// CHECK: %[[N:.*]] = arith.maxsi
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK: %[[N64:.*]] = arith.index_cast %[[NI]] : index to i64
// CHECK: call @onnxcc_check_equal(%[[N64]], %c5_i64)
// CHECK: %[[S:.*]] = tensor.extract %{{.*}}[]
// CHECK: %[[D:.*]] = tensor.extract %{{.*}}[]
// CHECK: linalg.generic
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %[[D]] : i32
// CHECK: arith.addi %[[S]], %[[M]] : i32
func.func @range(%s: tensor<i32>, %l: tensor<i32>, %d: tensor<i32>) -> tensor<5xi32> {
  %0 = "onnx.Range"(%s, %l, %d) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

/// Trilu (lower) keeps j - i <= k.
// CHECK-LABEL: func.func @tril
// CHECK: arith.cmpi sle
// CHECK: arith.select
func.func @tril(%x: tensor<3x4xi64>) -> tensor<3x4xi64> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Trilu"(%x, %n) {upper = 0 : i64} : (tensor<3x4xi64>, none) -> tensor<3x4xi64>
  return %0 : tensor<3x4xi64>
}

// -----

/// OneHot compares the wrapped index with the position on `axis`.
// CHECK-DAG: #[[IND:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @onehot_axis0
// CHECK: linalg.generic {indexing_maps = [#[[IND]], #{{.*}}]
// CHECK: %[[C:.*]] = linalg.index 0
// CHECK: arith.cmpi eq, %{{.*}}, %[[C]]
func.func @onehot_axis0(%i: tensor<3xi64>, %depth: tensor<i64>, %v: tensor<2xf32>) -> tensor<5x3xf32> {
  %0 = "onnx.OneHot"(%i, %depth, %v) {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// CHECK-LABEL: func.func @eyelike
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[K:.*]] = arith.constant 1 : index
// CHECK: %[[S:.*]] = arith.addi %[[I]], %[[K]]
// CHECK: arith.cmpi eq, %[[J]], %[[S]]
func.func @eyelike(%x: tensor<3x4xf32>) -> tensor<3x4xi32> {
  %0 = "onnx.EyeLike"(%x) {k = 1 : i64, dtype = 6 : i64} : (tensor<3x4xf32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}
