// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg -verify-diagnostics | FileCheck %s

/// TopK ranks every element of a slice (loops: dims, other index along the
/// axis) by the elements before it: a better value, or an equal one at a
/// lower index so that ties keep the lower index first. Output j is then the
/// element of rank j, with its index.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OTHER:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @top_k
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>
// CHECK: %[[RANKS:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[OTHER]], #[[ID]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[X]] : {{.*}}) outs(%{{.*}} : tensor<3x4xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi ult
// CHECK: %[[PICK:.*]]:2 = linalg.generic {indexing_maps = [#[[OTHER]], #[[OTHER]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[RANKS]] : {{.*}}) outs({{.*}} : tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK: %[[HIT:.*]] = arith.cmpi eq
// CHECK: arith.select %[[HIT]]
// CHECK: arith.select %[[HIT]]
// CHECK: return %[[PICK]]#0, %[[PICK]]#1
func.func @top_k(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %v, %i = "onnx.TopK"(%x, %k) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

/// The smallest values of an unsigned type compare unsigned.
// CHECK-LABEL: func.func @top_k_smallest_unsigned
// CHECK: linalg.generic
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i8
func.func @top_k_smallest_unsigned(%x: tensor<5xui8>, %k: tensor<1xi64>) -> (tensor<2xui8>, tensor<2xi64>) {
  %v, %i = "onnx.TopK"(%x, %k) {largest = 0 : i64} : (tensor<5xui8>, tensor<1xi64>) -> (tensor<2xui8>, tensor<2xi64>)
  return %v, %i : tensor<2xui8>, tensor<2xi64>
}

// -----

/// LRN pads the channels with zeros ((size - 1) / 2 before), sums squares
/// over a window whose extent is a tensor<size>, then divides by
/// (bias + alpha / size * sum)^beta.
// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d4, d2, d3)>
// CHECK-DAG: #[[WMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d4)>
// CHECK-LABEL: func.func @lrn
// CHECK-SAME: (%[[X:.*]]: tensor<1x5x2x2xf32>)
// CHECK: %[[PAD:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 1, 0, 0] [1, 5, 2, 2] [1, 1, 1, 1] : tensor<1x5x2x2xf32> into tensor<1x7x2x2xf32>
// CHECK: %[[SUMS:.*]] = linalg.generic {indexing_maps = [#[[XMAP]], #[[WMAP]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[PAD]], %{{.*}} : tensor<1x7x2x2xf32>, tensor<3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[SUMS]] :
// CHECK: arith.constant 6.66666674E-5 : f32
// CHECK: math.powf
// CHECK: arith.divf
func.func @lrn(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %0 = "onnx.LRN"(%x) {size = 3 : i64, alpha = 2.0e-4 : f32, beta = 0.75 : f32, bias = 1.0 : f32} : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}

// -----

/// Per-axis QuantizeLinear: scale and zero point follow the axis; round half
/// to even, add the zero point, saturate to the int8 range.
// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[AXIS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quantize_linear_axis
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]], #[[AXIS]], #[[AXIS]], #[[XMAP]]]
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.constant -1.280000e+02 : f32
// CHECK: arith.maximumf
// CHECK: arith.constant 1.270000e+02 : f32
// CHECK: arith.minimumf
// CHECK: arith.fptosi %{{.*}} : f32 to i8
func.func @quantize_linear_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xi8> {
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

/// Per-tensor DequantizeLinear of a 1-D uint8 tensor: the default axis (1)
/// does not matter for a scalar scale; unsigned values convert unsigned.
// CHECK-LABEL: func.func @dequantize_linear
// CHECK: linalg.generic
// CHECK: %[[X:.*]] = arith.uitofp %{{.*}} : i8 to f32
// CHECK: %[[Z:.*]] = arith.uitofp %{{.*}} : i8 to f32
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[Z]]
// CHECK: arith.mulf %[[D]]
func.func @dequantize_linear(%x: tensor<4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xf32> {
  %0 = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// DynamicQuantizeLinear: min and max in one reduction from 0 (so the range
/// always holds 0), then scale, zero point and y.
// CHECK-LABEL: func.func @dynamic_quantize_linear
// CHECK: %[[RANGE:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: %[[SCALE:.*]] = linalg.generic {{.*}} ins(%[[RANGE]]#0, %[[RANGE]]#1 : tensor<f32>, tensor<f32>)
// CHECK: %[[ZP:.*]] = linalg.generic {{.*}} ins(%[[RANGE]]#0, %[[SCALE]] : tensor<f32>, tensor<f32>)
// CHECK: math.roundeven
// CHECK: arith.fptoui
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[SCALE]], %[[ZP]] :
// CHECK: return %[[Y]], %[[SCALE]], %[[ZP]]
func.func @dynamic_quantize_linear(%x: tensor<6xf32>) -> (tensor<6xui8>, tensor<f32>, tensor<ui8>) {
  %y, %s, %z = "onnx.DynamicQuantizeLinear"(%x) : (tensor<6xf32>) -> (tensor<6xui8>, tensor<f32>, tensor<ui8>)
  return %y, %s, %z : tensor<6xui8>, tensor<f32>, tensor<ui8>
}

// -----

/// MatMulInteger: one i32 contraction with the zero points subtracted in the
/// body (a scalar one for A, one per column for B).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[AZ:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[BZ:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @matmul_integer
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[AZ]], #[[BZ]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} {{.*}} outs(%{{.*}} : tensor<4x2xi32>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.addi
func.func @matmul_integer(%a: tensor<4x3xui8>, %b: tensor<3x2xui8>, %az: tensor<ui8>, %bz: tensor<2xui8>) -> tensor<4x2xi32> {
  %0 = "onnx.MatMulInteger"(%a, %b, %az, %bz) : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>, tensor<2xui8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

/// QLinearMatMul: the i32 contraction, then a_scale * b_scale / y_scale,
/// round half to even, y_zero_point and saturation. One-element [1] scales
/// and zero points are read as rank-0 tensors.
// CHECK-LABEL: func.func @qlinear_matmul
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1xi8> into tensor<i8>
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], {{.*}} : tensor<2x3xi32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i8>)
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: math.roundeven
// CHECK: arith.fptosi %{{.*}} : f32 to i8
func.func @qlinear_matmul(%a: tensor<2x4xi8>, %as: tensor<1xf32>, %az: tensor<1xi8>, %b: tensor<4x3xi8>, %bs: tensor<1xf32>, %bz: tensor<1xi8>, %ys: tensor<1xf32>, %yz: tensor<1xi8>) -> tensor<2x3xi8> {
  %0 = "onnx.QLinearMatMul"(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : (tensor<2x4xi8>, tensor<1xf32>, tensor<1xi8>, tensor<4x3xi8>, tensor<1xf32>, tensor<1xi8>, tensor<1xf32>, tensor<1xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

/// Einsum: every subscript a loop, the output's first, the contracted ones
/// after as reductions (spaces in the equation are ignored).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @einsum_batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @einsum_batch_matmul(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = "onnx.Einsum"(%a, %b) {equation = "bij, bjk -> bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

/// A subscript repeated in one operand reads its diagonal; the ellipsis
/// stands for the leading dims.
// CHECK-DAG: #[[DIAG:.*]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CHECK-LABEL: func.func @einsum_batch_diagonal
// CHECK: linalg.generic {indexing_maps = [#[[DIAG]], {{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @einsum_batch_diagonal(%a: tensor<3x5x5xf64>) -> tensor<3x5xf64> {
  %0 = "onnx.Einsum"(%a) {equation = "...ii ->...i"} : (tensor<3x5x5xf64>) -> tensor<3x5xf64>
  return %0 : tensor<3x5xf64>
}

// -----

/// Without "->" the output is the subscripts used once, sorted: "ji" is a
/// transpose.
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @einsum_implicit_transpose
// CHECK: linalg.generic {indexing_maps = [#[[T]], {{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @einsum_implicit_transpose(%a: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %0 = "onnx.Einsum"(%a) {equation = "ji"} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

/// An equation whose term has more subscripts than its operand has dims is
/// a clean error.
func.func @negative_einsum_bad_rank(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to legalize operation 'onnx.Einsum'}}
  %0 = "onnx.Einsum"(%a) {equation = "ijk->k"} : (tensor<3x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// ReverseSequence gathers along the time axis at len[b] - 1 - t for
/// t < len[b] (clamped into the axis), the length read per batch element.
// CHECK-DAG: #[[LENS:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reverse_sequence
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x2xf32>, %[[L:.*]]: tensor<3xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[LENS]], {{.*}}]{{.*}} ins(%[[L]] : tensor<3xi64>)
// CHECK: %[[T:.*]] = linalg.index 0
// CHECK: %[[B:.*]] = linalg.index 1
// CHECK: %[[C:.*]] = linalg.index 2
// CHECK: arith.cmpi slt
// CHECK: %[[SRC:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: tensor.extract %[[X]][%[[SRC]], %[[B]], %[[C]]]
func.func @reverse_sequence(%x: tensor<4x3x2xf32>, %lens: tensor<3xi64>) -> tensor<4x3x2xf32> {
  %0 = "onnx.ReverseSequence"(%x, %lens) {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x3x2xf32>, tensor<3xi64>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

/// TopK whose Values do not keep X's other dims is a clean error.
func.func @negative_top_k_bad_shape(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<2x2xf32>, tensor<2x2xi64>) {
  // expected-error @+1 {{failed to legalize operation 'onnx.TopK'}}
  %v, %i = "onnx.TopK"(%x, %k) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return %v, %i : tensor<2x2xf32>, tensor<2x2xi64>
}
