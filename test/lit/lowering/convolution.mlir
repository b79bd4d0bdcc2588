// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg -verify-diagnostics | FileCheck %s

/// Grouped Conv with bias, pads and strides: X is padded with zeros into a
/// bigger tensor, channels split by group, and one generic reduces over
/// (channels of the group, kernel window) into an accumulator that starts at
/// the bias.
// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-DAG: #[[WMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[YMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[BMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-LABEL: func.func @conv_group_bias_pads
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x5x5xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) {{.*}} -> tensor<1x4x7x7xf32>
// CHECK: %[[PAD:.*]] = tensor.insert_slice %[[X]] into %[[FILL]][0, 0, 1, 1] [1, 4, 5, 5] [1, 1, 1, 1]
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] {{.*}} into tensor<1x2x2x7x7xf32>
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] {{.*}} into tensor<2x3x2x3x3xf32>
// CHECK: %[[BG:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1]] {{.*}} into tensor<2x3xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BMAP]], {{.*}}]{{.*}} ins(%[[BG]] : tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[XMAP]], #[[WMAP]], #[[YMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XG]], %[[WG]] : {{.*}}) outs(%[[INIT]] : tensor<1x2x3x3x3xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x3x3xf32> into tensor<1x6x3x3xf32>
func.func @conv_group_bias_pads(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x3x3xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

/// SAME_LOWER with an odd total padding puts the extra pad at the start:
/// in 5, kernel 2 (extent 2), out 5 gives total 1, begin 1, end 0. Without a
/// bias the accumulator starts at zero.
// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + d5)>
// CHECK-LABEL: func.func @conv_same_lower
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x5xf32>
// CHECK: tensor.insert_slice %[[X]] into %{{.*}}[0, 0, 1] [1, 1, 5] [1, 1, 1] : tensor<1x1x5xf32> into tensor<1x1x6xf32>
// CHECK: linalg.fill {{.*}} -> tensor<1x1x2x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]],
func.func @conv_same_lower(%x: tensor<1x1x5xf32>, %w: tensor<2x1x2xf32>) -> tensor<1x2x5xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %n) {auto_pad = "SAME_LOWER"} : (tensor<1x1x5xf32>, tensor<2x1x2xf32>, none) -> tensor<1x2x5xf32>
  return %0 : tensor<1x2x5xf32>
}

// -----

/// ConvTranspose: X spread out by the stride into a zero tensor at offset
/// (k - 1) * d - pad_begin = 1, then a stride-1 convolution that reads the
/// kernel tap k at the flipped input position o + (2 - k).
// CHECK-DAG: #[[ZMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + -d5 + 2)>
// CHECK-DAG: #[[WMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d2, d5)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x3xf32>
// CHECK: %[[Z:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 0, 1] [1, 1, 3] [1, 1, 2] : tensor<1x1x3xf32> into tensor<1x1x8xf32>
// CHECK: %[[ZG:.*]] = tensor.expand_shape %[[Z]]
// CHECK: linalg.generic {indexing_maps = [#[[ZMAP]], #[[WMAP]], {{.*}}]{{.*}} ins(%[[ZG]],
func.func @conv_transpose(%x: tensor<1x1x3xf32>, %w: tensor<1x2x3xf32>) -> tensor<1x2x6xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {strides = array<i64: 2>, pads = array<i64: 1, 0>} : (tensor<1x1x3xf32>, tensor<1x2x3xf32>, none) -> tensor<1x2x6xf32>
  return %0 : tensor<1x2x6xf32>
}

// -----

/// MaxPool with ceil_mode: the last window reaches one past the input, so
/// the input is padded by one at the end with -inf (a padded position never
/// wins). An unused window-shaped operand gives the kernel loops their bounds.
// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @maxpool_ceil
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x4x4xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[NEGINF]] : f32) {{.*}} -> tensor<1x1x5x5xf32>
// CHECK: %[[PAD:.*]] = tensor.insert_slice %[[X]] into %[[FILL]][0, 0, 0, 0] [1, 1, 4, 4]
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]], #[[KMAP]], {{.*}}]{{.*}} ins(%[[PAD]], %[[WINDOW]] :
// CHECK: arith.maximumf
func.func @maxpool_ceil(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0, %1 = "onnx.MaxPool"(%x) {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, none)
  return %0 : tensor<1x1x2x2xf32>
}

// -----

/// uint8 MaxPool pads with 0 (the lowest value) and compares unsigned.
// CHECK-LABEL: func.func @maxpool_uint8
// CHECK: arith.constant 0 : i8
// CHECK: arith.maxui
func.func @maxpool_uint8(%x: tensor<1x1x3xui8>) -> tensor<1x1x3xui8> {
  %0, %1 = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>} : (tensor<1x1x3xui8>) -> (tensor<1x1x3xui8>, none)
  return %0 : tensor<1x1x3xui8>
}

// -----

/// MaxPool's Indices: the flat row-major index into X of the first maximum,
/// computed from the loop indices, updated with the value on a strict `>`.
// CHECK-LABEL: func.func @maxpool_indices
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %[[MAX:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK: %[[FLAT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[IN]], %[[MAX]] : f32
// CHECK: %[[V:.*]] = arith.select %[[GT]], %[[IN]], %[[MAX]] : f32
// CHECK: %[[I:.*]] = arith.select %[[GT]], %[[FLAT]], %[[IDX]] : i64
// CHECK: linalg.yield %[[V]], %[[I]] : f32, i64
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @maxpool_indices(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %0, %1 = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0, %1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}

// -----

/// AveragePool without count_include_pad: the edge windows count only the
/// two positions inside the input; the divisors are a constant per output.
// CHECK-LABEL: func.func @averagepool_pads
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: %[[COUNT:.*]] = arith.constant dense<{{\[\[\[}}2.000000e+00, 3.000000e+00, 2.000000e+00]]]> : tensor<1x1x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[COUNT]] :
// CHECK: arith.divf
func.func @averagepool_pads(%x: tensor<1x1x3xf32>) -> tensor<1x1x3xf32> {
  %0 = "onnx.AveragePool"(%x) {kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>} : (tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

/// With count_include_pad every window counts its full size: one scalar.
// CHECK-LABEL: func.func @averagepool_count_include_pad
// CHECK: linalg.generic
// CHECK: %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: arith.divf %{{.*}}, %[[THREE]] : f32
func.func @averagepool_count_include_pad(%x: tensor<1x1x3xf32>) -> tensor<1x1x3xf32> {
  %0 = "onnx.AveragePool"(%x) {count_include_pad = 1 : i64, kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>} : (tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

/// LpPool with p = 2: a sum of squares, then its square root.
// CHECK-LABEL: func.func @lppool
// CHECK: linalg.generic
// CHECK: %[[SQ:.*]] = arith.mulf %[[V:.*]], %[[V]] : f32
// CHECK: arith.addf %{{.*}}, %[[SQ]] : f32
// CHECK: linalg.generic
// CHECK: math.sqrt
func.func @lppool(%x: tensor<1x1x4xf32>) -> tensor<1x1x2xf32> {
  %0 = "onnx.LpPool"(%x) {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<1x1x4xf32>) -> tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

// -----

/// A p below 1 has no meaning: a clean failure, not a crash.
func.func @negative_lppool_p0(%x: tensor<1x1x4xf32>) -> tensor<1x1x2xf32> {
  // expected-error @+1 {{failed to legalize operation 'onnx.LpPool'}}
  %0 = "onnx.LpPool"(%x) {kernel_shape = array<i64: 2>, strides = array<i64: 2>, p = 0 : i64} : (tensor<1x1x4xf32>) -> tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

// -----

/// MaxUnpool as a gather: each Y element scans its (n, c) slice of X and
/// keeps the value whose index names its flat position. A larger
/// output_shape pads the default-shaped result with zeros at the end.
// CHECK-LABEL: func.func @maxunpool_output_shape
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<1x1x4x4xf32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %[[I:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK: %[[FLAT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[HIT:.*]] = arith.cmpi eq, %[[I]], %[[FLAT]] : i64
// CHECK: arith.select %[[HIT]], %[[V]], %[[ACC]] : f32
// CHECK: tensor.insert_slice %[[Y]] into %{{.*}}[0, 0, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : tensor<1x1x4x4xf32> into tensor<1x1x5x5xf32>
func.func @maxunpool_output_shape(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>, %s: tensor<4xi64>) -> tensor<1x1x5x5xf32> {
  %0 = "onnx.MaxUnpool"(%x, %i, %s) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi64>) -> tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x5x5xf32>
}

// -----

/// ConvInteger subtracts the zero points in i32 first (uint8 zero-extends),
/// so padding with zero afterwards is padding with the zero point.
// CHECK-LABEL: func.func @conv_integer
// CHECK: linalg.generic
// CHECK: %[[XE:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK: %[[ZE:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi %[[XE]], %[[ZE]] : i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32) {{.*}} -> tensor<1x1x5x5xi32>
// CHECK: tensor.insert_slice
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.addi
func.func @conv_integer(%x: tensor<1x1x3x3xui8>, %w: tensor<1x1x2x2xui8>, %zp: tensor<ui8>) -> tensor<1x1x4x4xi32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvInteger"(%x, %w, %zp, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>, none) -> tensor<1x1x4x4xi32>
  return %0 : tensor<1x1x4x4xi32>
}

// -----

/// QLinearConv accumulates in i32 (bias included), then requantizes: scale
/// by x_scale * w_scale / y_scale (w_scale per output channel), round half to
/// even, add y_zero_point and saturate to the uint8 range.
// CHECK-LABEL: func.func @qlinear_conv
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x2x2x2xi32>)
// CHECK: arith.muli
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] {{.*}} : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK: linalg.generic
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: math.roundeven
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.fptoui %{{.*}} : f32 to i8
func.func @qlinear_conv(%x: tensor<1x1x3x3xui8>, %xs: tensor<f32>, %xz: tensor<ui8>, %w: tensor<2x1x2x2xui8>, %ws: tensor<2xf32>, %wz: tensor<2xui8>, %ys: tensor<f32>, %yz: tensor<ui8>, %b: tensor<2xi32>) -> tensor<1x2x2x2xui8> {
  %0 = "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) : (tensor<1x1x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x1x2x2xui8>, tensor<2xf32>, tensor<2xui8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x2x2xui8>
  return %0 : tensor<1x2x2x2xui8>
}
