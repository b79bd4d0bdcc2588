// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// Explicit pads and strides: (32 + 1 + 1 - 3) / 2 + 1 = 16; the output
/// channels come from W.
// CHECK-LABEL: func.func @conv_pads_strides(
// CHECK: %[[Y:.*]] = "onnx.Conv"{{.*}} -> tensor<1x8x16x16xf32>
// CHECK: return %[[Y]]
func.func @conv_pads_strides(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %n) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A symbolic batch passes through; the spatial dims are still computed.
// CHECK-LABEL: func.func @conv_symbolic_batch(
// CHECK: %[[Y:.*]] = "onnx.Conv"{{.*}} -> tensor<?x8x30x30xf32>
// CHECK: return %[[Y]] : tensor<?x8x30x30xf32>
func.func @conv_symbolic_batch(%x: tensor<?x3x32x32xf32> {onnx.dim_params = ["batch", "", "", ""]}, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<*xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) : (tensor<?x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// SAME_UPPER gives ceil(in / stride) whatever the kernel.
// CHECK-LABEL: func.func @conv_same_upper(
// CHECK: "onnx.Conv"{{.*}} -> tensor<1x4x8x8xf32>
func.func @conv_same_upper(%x: tensor<1x3x15x15xf32>, %w: tensor<4x3x5x5xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %n) {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x3x15x15xf32>, tensor<4x3x5x5xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// VALID with dilation 2: the 3x3 kernel covers 5 input positions.
// CHECK-LABEL: func.func @conv_valid_dilated(
// CHECK: "onnx.Conv"{{.*}} -> tensor<2x4x6x8xf32>
func.func @conv_valid_dilated(%x: tensor<2x3x10x12xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %n) {auto_pad = "VALID", dilations = array<i64: 2, 2>} : (tensor<2x3x10x12xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Grouped convolution: W's channel dim times group equals X's channels.
// CHECK-LABEL: func.func @conv_grouped(
// CHECK: "onnx.Conv"{{.*}} -> tensor<1x6x8x8xf32>
func.func @conv_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x1x1xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %n) {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x1x1xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// ConvTranspose: 2 * (5 - 1) + 1 + 3 = 12 with output_padding 1; channels
/// from W's second dim.
// CHECK-LABEL: func.func @conv_transpose_strided(
// CHECK: %[[Y:.*]] = "onnx.ConvTranspose"{{.*}} -> tensor<1x2x12x12xf32>
// CHECK: return %[[Y]]
func.func @conv_transpose_strided(%x: tensor<1x3x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {strides = array<i64: 2, 2>, output_padding = array<i64: 1, 1>} : (tensor<1x3x5x5xf32>, tensor<3x2x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// ConvTranspose with output_shape takes the spatial dims from it.
// CHECK-LABEL: func.func @conv_transpose_output_shape(
// CHECK: "onnx.ConvTranspose"{{.*}} -> tensor<1x2x10x11xf32>
func.func @conv_transpose_output_shape(%x: tensor<1x3x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {strides = array<i64: 2, 2>, output_shape = array<i64: 10, 11>} : (tensor<1x3x5x5xf32>, tensor<3x2x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// ConvTranspose with SAME_UPPER gives in * stride; grouped channels.
// CHECK-LABEL: func.func @conv_transpose_same(
// CHECK: "onnx.ConvTranspose"{{.*}} -> tensor<1x4x10x14xf32>
func.func @conv_transpose_same(%x: tensor<1x4x5x7xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {auto_pad = "SAME_UPPER", group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x4x5x7xf32>, tensor<4x2x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// ceil_mode rounds the window count up: 8 -> 4 with ceil, 3 without.
// CHECK-LABEL: func.func @average_pool_ceil_mode(
// CHECK: %[[C:.*]] = "onnx.AveragePool"{{.*}}ceil_mode = 1{{.*}} -> tensor<1x2x4x4xf32>
// CHECK: %[[F:.*]] = "onnx.AveragePool"{{.*}} -> tensor<1x2x3x3xf32>
// CHECK: return %[[C]], %[[F]]
func.func @average_pool_ceil_mode(%x: tensor<1x2x8x8xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.AveragePool"(%x) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<*xf32>
  %1 = "onnx.AveragePool"(%x) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// MaxPool with dilations; Indices has the shape of Y.
// CHECK-LABEL: func.func @max_pool_dilations_indices(
// CHECK: %[[Y:.*]], %[[I:.*]] = "onnx.MaxPool"{{.*}} -> (tensor<?x3x4x4xf32>, tensor<?x3x4x4xi64>)
// CHECK: return %[[Y]], %[[I]]
func.func @max_pool_dilations_indices(%x: tensor<?x3x6x6xf32> {onnx.dim_params = ["N", "", "", ""]}) -> (tensor<*xf32>, tensor<*xi64>) {
  %0, %1 = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<?x3x6x6xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

/// 1-D LpPool with symmetric padding keeps the length.
// CHECK-LABEL: func.func @lp_pool_1d(
// CHECK: "onnx.LpPool"{{.*}} -> tensor<2x3x10xf32>
func.func @lp_pool_1d(%x: tensor<2x3x10xf32>) -> tensor<*xf32> {
  %0 = "onnx.LpPool"(%x) {kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>} : (tensor<2x3x10xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Global pools keep N and C and make every spatial dim 1.
// CHECK-LABEL: func.func @global_pools(
// CHECK: "onnx.GlobalAveragePool"{{.*}} -> tensor<?x3x1x1xf32>
// CHECK: "onnx.GlobalMaxPool"{{.*}} -> tensor<?x3x1x1xf32>
// CHECK: "onnx.GlobalLpPool"{{.*}} -> tensor<?x3x1x1xf32>
func.func @global_pools(%x: tensor<?x3x7x9xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.GlobalAveragePool"(%x) : (tensor<?x3x7x9xf32>) -> tensor<*xf32>
  %1 = "onnx.GlobalMaxPool"(%x) : (tensor<?x3x7x9xf32>) -> tensor<*xf32>
  %2 = "onnx.GlobalLpPool"(%x) : (tensor<?x3x7x9xf32>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Region pooling: one output per roi, pooled_shape / output_height+width.
// CHECK-LABEL: func.func @roi_pools(
// CHECK: "onnx.MaxRoiPool"{{.*}} -> tensor<5x8x2x3xf32>
// CHECK: "onnx.RoiAlign"{{.*}} -> tensor<5x8x4x6xf32>
func.func @roi_pools(%x: tensor<1x8x20x20xf32>, %rois: tensor<5x5xf32>, %boxes: tensor<5x4xf32>, %idx: tensor<5xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.MaxRoiPool"(%x, %rois) {pooled_shape = array<i64: 2, 3>} : (tensor<1x8x20x20xf32>, tensor<5x5xf32>) -> tensor<*xf32>
  %1 = "onnx.RoiAlign"(%x, %boxes, %idx) {output_height = 4 : i64, output_width = 6 : i64} : (tensor<1x8x20x20xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// MaxUnpool inverts the pooling formula, or follows a constant output_shape.
// CHECK-LABEL: func.func @max_unpool(
// CHECK: %[[A:.*]] = "onnx.MaxUnpool"{{.*}} -> tensor<1x2x8x8xf32>
// CHECK: %[[B:.*]] = "onnx.MaxUnpool"{{.*}} -> tensor<1x2x9x9xf32>
// CHECK: return %[[A]], %[[B]]
func.func @max_unpool(%x: tensor<1x2x4x4xf32>, %i: tensor<1x2x4x4xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() {value = dense<[1, 2, 9, 9]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.MaxUnpool"(%x, %i, %n) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>, none) -> tensor<*xf32>
  %1 = "onnx.MaxUnpool"(%x, %i, %s) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>, tensor<4xi64>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// GridSample takes N and C from X and the output grid size from grid.
// CHECK-LABEL: func.func @grid_sample(
// CHECK: "onnx.GridSample"{{.*}} -> tensor<2x3x5x6xf32>
func.func @grid_sample(%x: tensor<2x3x10x10xf32>, %g: tensor<2x5x6x2xf32>) -> tensor<*xf32> {
  %0 = "onnx.GridSample"(%x, %g) : (tensor<2x3x10x10xf32>, tensor<2x5x6x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
