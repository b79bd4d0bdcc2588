// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file -verify-diagnostics

/// MatMul's inner dims must agree.
func.func @negative_matmul_inner_dims(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{inner dims differ: A [2, 3] has 3, B [4, 5] has 4}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Concat's non-axis dims must agree.
func.func @negative_concat_dims(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{input #1 has size 4 in dim 0 where earlier inputs have 2}}
  %0 = "onnx.Concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Broadcasting 3 against 4 is an error naming both sizes.
func.func @negative_broadcast(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{does not broadcast with size 3}}
  %0 = "onnx.Add"(%a, %b) : (tensor<3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Gemm's K must agree after transposition.
func.func @negative_gemm_k(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{inner dims differ}}
  %0 = "onnx.Gemm"(%a, %b, %n) : (tensor<2x3xf32>, tensor<2x5xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Conv's input channels must be W's channels times group.
func.func @negative_conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{input channels 4 do not match weight channels 3 times group 1}}
  %0 = "onnx.Conv"(%x, %w, %n) : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A pooling window larger than its input.
func.func @negative_pool_window_too_large(%x: tensor<1x1x2x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{spatial dim 0 of size 2 (with padding) is smaller than the window extent 3}}
  %0, %1 = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 3, 3>} : (tensor<1x1x2x2xf32>) -> (tensor<*xf32>, none)
  return %0 : tensor<*xf32>
}

// -----

/// Reshape to a different element count.
func.func @negative_reshape_count(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[4, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{cannot reshape input [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = "onnx.Reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Reshape with two -1 values.
func.func @negative_reshape_two_minus_one(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[-1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{shape has more than one -1}}
  %0 = "onnx.Reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Split sizes must add up to the split dim.
func.func @negative_split_sum(%a: tensor<6xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{split sizes sum to 5 but dim 0 has size 6}}
  %0, %1 = "onnx.Split"(%a, %s) : (tensor<6xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Squeezing a dim that is not 1.
func.func @negative_squeeze_not_one(%a: tensor<3x4xf32>) -> tensor<*xf32> {
  %ax = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+1 {{cannot squeeze dim 0 of size 3}}
  %0 = "onnx.Squeeze"(%a, %ax) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A constant Unsqueeze axis out of range fails cleanly.
func.func @negative_unsqueeze_axis(%a: tensor<3xf32>) -> tensor<*xf32> {
  %ax = "onnx.Constant"() {value = dense<[5]> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error @+1 {{axis 5 is out of range for output rank 2}}
  %0 = "onnx.Unsqueeze"(%a, %ax) : (tensor<3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Slice steps of zero.
func.func @negative_slice_zero_step(%a: tensor<4xf32>) -> tensor<*xf32> {
  %c = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{steps must not be zero}}
  %0 = "onnx.Slice"(%a, %c, %c, %n, %c) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Expand with a negative target dim.
func.func @negative_expand_shape(%a: tensor<3xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[-2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{shape has negative value -2}}
  %0 = "onnx.Expand"(%a, %s) : (tensor<3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A declared static dim that contradicts the shape function.
func.func @negative_declared_shape(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{its shape function gives size 3 where the declaration has 4}}
  %0 = "onnx.Relu"(%a) : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

/// Softmax's axis must be in [-rank, rank).
func.func @negative_softmax_axis(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = "onnx.Softmax"(%a) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Flatten's axis may be rank but not more.
func.func @negative_flatten_axis(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{axis 3 is out of range for rank 3}}
  %0 = "onnx.Flatten"(%a) {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Gather's axis must index data.
func.func @negative_gather_axis(%a: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = "onnx.Gather"(%a, %i) {axis = -3 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Pool kernel_shape must have one value per spatial dim.
func.func @negative_pool_kernel_length(%x: tensor<1x1x8x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{kernel_shape has 1 values, expected 2 for 2 spatial dims}}
  %0 = "onnx.AveragePool"(%x) {kernel_shape = array<i64: 2>} : (tensor<1x1x8x8xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Pool strides must be positive.
func.func @negative_pool_strides(%x: tensor<1x1x8x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{strides values must be positive}}
  %0, %1 = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 1>} : (tensor<1x1x8x8xf32>) -> (tensor<*xf32>, none)
  return %0 : tensor<*xf32>
}

// -----

/// Unknown auto_pad values are rejected.
func.func @negative_pool_auto_pad(%x: tensor<1x1x8x8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{auto_pad 'SAME' is not one of 'NOTSET', 'SAME_UPPER', 'SAME_LOWER', 'VALID'}}
  %0 = "onnx.LpPool"(%x) {kernel_shape = array<i64: 2, 2>, auto_pad = "SAME"} : (tensor<1x1x8x8xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Reshape's shape input must be 1-D.
func.func @negative_reshape_shape_rank(%a: tensor<6xf32>, %s: tensor<1x2xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{input 'shape' must be a 1-D tensor, has rank 2}}
  %0 = "onnx.Reshape"(%a, %s) : (tensor<6xf32>, tensor<1x2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Cast's `to` must be an ONNX data type.
func.func @negative_cast_to(%a: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'to' is 42, which is not an ONNX tensor data type}}
  %0 = "onnx.Cast"(%a) {to = 42 : i64} : (tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Cast's result element type must be the one `to` names.
func.func @negative_cast_result_type(%a: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'to' is 7 ('i64') but the result element type is 'f32'}}
  %0 = "onnx.Cast"(%a) {to = 7 : i64} : (tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// DepthToSpace mode must be DCR or CRD.
func.func @negative_depth_to_space_mode(%a: tensor<1x4x2x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{mode 'XYZ' is not one of 'DCR', 'CRD'}}
  %0 = "onnx.DepthToSpace"(%a) {blocksize = 2 : i64, mode = "XYZ"} : (tensor<1x4x2x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// DepthToSpace blocksize must be positive.
func.func @negative_depth_to_space_blocksize(%a: tensor<1x4x2x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{blocksize must be positive, is 0}}
  %0 = "onnx.DepthToSpace"(%a) {blocksize = 0 : i64} : (tensor<1x4x2x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Pad mode must be constant, reflect, edge or wrap.
func.func @negative_pad_mode(%a: tensor<4xf32>, %p: tensor<2xi64>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{mode 'mirror' is not one of 'constant', 'reflect', 'edge', 'wrap'}}
  %0 = "onnx.Pad"(%a, %p, %n) {mode = "mirror"} : (tensor<4xf32>, tensor<2xi64>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Resize mode must be nearest, linear or cubic.
func.func @negative_resize_mode(%a: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{mode 'area' is not one of 'nearest', 'linear', 'cubic'}}
  %0 = "onnx.Resize"(%a, %n, %s, %n) {mode = "area"} : (tensor<1x1x4x4xf32>, none, tensor<4xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// TopK's axis must index X.
func.func @negative_topk_axis(%a: tensor<5xf32>, %k: tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>) {
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %0, %1 = "onnx.TopK"(%a, %k) {axis = 1 : i64} : (tensor<5xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  return %0, %1 : tensor<*xf32>, tensor<*xi64>
}

// -----

/// Trilu needs a matrix.
func.func @negative_trilu_rank(%a: tensor<5xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{input 'input' must have rank >= 2, has rank 1}}
  %0 = "onnx.Trilu"(%a, %n) : (tensor<5xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// RNN direction must be forward, reverse or bidirectional.
func.func @negative_rnn_direction(%x: tensor<2x1x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{direction 'both' is not one of 'forward', 'reverse', 'bidirectional'}}
  %0, %1 = "onnx.RNN"(%x, %w, %r, %n, %n, %n) {direction = "both"} : (tensor<2x1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Split with a split input must have one size per output.
func.func @negative_split_count(%a: tensor<6xf32>, %s: tensor<3xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  // expected-error @+1 {{split has 3 values but the op has 2 outputs}}
  %0, %1 = "onnx.Split"(%a, %s) : (tensor<6xf32>, tensor<3xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Einsum needs one term per input.
func.func @negative_einsum_terms(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{equation 'ij,jk->ik' has 2 input terms but the op has 1 inputs}}
  %0 = "onnx.Einsum"(%a) {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// ConvTranspose's output_padding must be smaller than its stride.
func.func @negative_conv_transpose_output_padding(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{output_padding 2 must be non-negative and less than its stride 2}}
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {strides = array<i64: 2, 2>, output_padding = array<i64: 2, 0>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Range with delta 0 would never end.
func.func @negative_range_zero_delta() -> tensor<*xi64> {
  %a = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  // expected-error @+1 {{delta must not be zero}}
  %0 = "onnx.Range"(%a, %a, %a) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}

// -----

/// A negative group is rejected, not read as a huge unsigned count.
func.func @negative_conv_group(%x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<*xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{group must be positive, is -2}}
  %0 = "onnx.Conv"(%x, %w, %none) {group = -2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
