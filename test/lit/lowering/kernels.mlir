// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg=kernels=avx512 -verify-diagnostics | FileCheck %s
// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg -verify-diagnostics | FileCheck %s --check-prefix=NONE
// RUN: not onnxcc-opt %s --split-input-file --convert-onnx-to-linalg=kernels=sse9 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: unknown kernel ISA 'sse9' (none, generic, avx2 or avx512)
// NONE-NOT: call @onnxcc_kernels
// NONE-NOT: onnxcc.kernels_isa

/// A fused 3x3 convolution becomes one call: X, the weights packed at compile
/// time, the bias, Z, the output and a scratch buffer, then the geometry and
/// the epilogue (Relu is code 1). No loop nest is left.
// CHECK: module attributes {onnxcc.kernels_isa = "avx512"}
// CHECK: func.func private @onnxcc_kernels_conv2d({{.*}}) -> (i32 {onnxcc.status}) attributes {onnxcc.runtime = "onnxcc_rt::kernels::conv2d"}
// CHECK-LABEL: func.func @conv_residual_relu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x5x5xf32>, %[[Z:[^:]*]]: tensor<1x3x5x5xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[XF:.*]] = tensor.collapse_shape %[[X]]
// CHECK: %[[XB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[WP:.*]] = arith.constant dense_resource<{{.*}}_packed> : tensor<144xf32>
// CHECK: %[[WB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[BB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: tensor.collapse_shape %[[Z]]
// CHECK: %[[ZB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[OUT:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: %[[SCRATCH:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK: call @onnxcc_kernels_conv2d(%[[XB]], %[[WB]], %[[BB]], %[[ONE]], %[[ZB]], %{{.*}}, %[[OUT]], %[[SCRATCH]], {{.*}}, %[[RELU]],
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] output_shape [1, 3, 5, 5]
// CHECK-NOT: linalg.generic
func.func @conv_residual_relu(%x: tensor<1x2x5x5xf32>, %z: tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x3x3xf32>} : () -> tensor<3x2x3x3xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %y = "onnx.FusedConv"(%x, %w, %b, %z) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>, tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// -----

/// group == C == M: the depthwise kernel, reading W as it is (no packing).
/// Clip(0, 6) is code 2 with its bounds; stride 2, asymmetric pads.
// CHECK-LABEL: func.func @depthwise_relu6(
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<4x1x3x3xf32>
// CHECK: tensor.collapse_shape %[[W]]
// CHECK: %[[CLIP:.*]] = arith.constant 2 : i32
// CHECK: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: call @onnxcc_kernels_depthwise_conv2d({{.*}}, %[[CLIP]], %[[LO]], %[[HI]],
// CHECK-NOT: linalg.generic
func.func @depthwise_relu6(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x1x3x3xf32>} : () -> tensor<4x1x3x3xf32>
  %y = "onnx.FusedConv"(%x, %w, %none, %none) {group = 4 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, activation = "Clip", activation_params = array<f32: 0.0, 6.0>} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>, none, none) -> tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}

// -----

/// Gemm with transB: alpha goes into the packed weights, beta * C becomes a
/// per-column bias constant [0.5, 1, 1.5].
// CHECK-LABEL: func.func @gemm_alpha_beta(
// CHECK: arith.constant dense_resource<[[BIAS:.*_bias]]> : tensor<3xf32>
// CHECK: arith.constant dense_resource<{{.*}}_packed> : tensor<{{[0-9]+}}xf32>
// CHECK: call @onnxcc_kernels_gemm_packed_b(
// CHECK-NOT: linalg.generic
// CHECK: [[BIAS]]: "0x040000000000003F0000803F0000C03F"
func.func @gemm_alpha_beta(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x4xf32>} : () -> tensor<3x4xf32>
  %c = "onnx.Constant"() {value = dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>} : () -> tensor<1x3xf32>
  %y = "onnx.Gemm"(%a, %w, %c) {transB = 1 : i64, alpha = 2.0 : f32, beta = 0.5 : f32} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

/// MatMul over a symbolic number of rows: the row count is computed at run
/// time and the result keeps its symbolic dim.
// CHECK-LABEL: func.func @matmul_symbolic_rows(
// CHECK-SAME: %[[N:.*]]: index {onnxcc.symbol = "n"}, %[[A:[^:]*]]: tensor<?x4xf32>
// CHECK: %[[ROWS:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[M:.*]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: call @onnxcc_kernels_gemm_packed_b({{.*}}, %[[M]],
// CHECK: tensor.expand_shape {{.*}} output_shape [%[[N]], 3] : tensor<?xf32> into tensor<?x3xf32>
func.func @matmul_symbolic_rows(%a: tensor<?x4xf32> {onnx.dim_params = ["n", ""]}) -> tensor<?x3xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %y = "onnx.MatMul"(%a, %w) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

/// negative_: weights that are not constants, float64 and 1-D convolutions
/// keep their loop nests.
// CHECK-LABEL: func.func @negative_conv_weights_not_constant(
// CHECK-NOT: call @onnxcc_kernels
// CHECK: linalg.generic
func.func @negative_conv_weights_not_constant(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, none) -> tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_matmul_f64(
// CHECK-NOT: call @onnxcc_kernels
// CHECK: linalg.generic
func.func @negative_matmul_f64(%a: tensor<2x4xf64>) -> tensor<2x3xf64> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<4x3xf64>} : () -> tensor<4x3xf64>
  %y = "onnx.MatMul"(%a, %w) : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}

// -----

/// A 1-D convolution is conv2d with a height of 1: the geometry (batch 1,
/// C 2, H 1, W 5, M 3, OH 1, OW 3, KH 1, KW 3, ...) and no loop nest.
// CHECK-LABEL: func.func @conv1d(
// CHECK-NOT: linalg.generic
// CHECK: call @onnxcc_kernels_conv2d(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c1_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c5_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}},
// CHECK-NOT: linalg.generic
func.func @conv1d(%x: tensor<1x2x5xf32>) -> tensor<1x3x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x3xf32>} : () -> tensor<3x2x3xf32>
  %y = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x5xf32>, tensor<3x2x3xf32>, none) -> tensor<1x3x3xf32>
  return %y : tensor<1x3x3xf32>
}

// -----

/// negative_: a bias that varies along the rows is not a per-column bias.
// CHECK-LABEL: func.func @negative_gemm_bias_per_row(
// CHECK-NOT: call @onnxcc_kernels
// CHECK: linalg.generic
func.func @negative_gemm_bias_per_row(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %c = "onnx.Constant"() {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %y = "onnx.Gemm"(%a, %w, %c) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

/// An activation the kernels do not know falls to the linalg lowering, which
/// reports it.
func.func @negative_unknown_activation(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x3x3xf32>} : () -> tensor<3x2x3x3xf32>
  // expected-error @+2 {{cannot lower 'onnx.FusedConv': unknown activation 'Swoosh'}}
  // expected-error @+1 {{failed to legalize operation 'onnx.FusedConv'}}
  %y = "onnx.FusedConv"(%x, %w, %none, %none) {activation = "Swoosh"} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, none, none) -> tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// -----

/// A 3x3 stride-1 convolution with enough channels and pixels goes to the
/// Winograd kernel, its weights transformed at compile time; one with too
/// few channels stays with im2col + GEMM.
// CHECK-LABEL: func.func @winograd(
// CHECK: arith.constant dense_resource<{{.*}}_winograd>
// CHECK: call @onnxcc_kernels_conv2d_winograd(
// CHECK-NOT: call @onnxcc_kernels_conv2d(
// CHECK: arith.constant dense_resource<{{.*}}_packed>
// CHECK: call @onnxcc_kernels_conv2d(
func.func @winograd(%x: tensor<1x16x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.1> : tensor<16x16x3x3xf32>} : () -> tensor<16x16x3x3xf32>
  %y = "onnx.FusedConv"(%x, %w, %none, %none) {pads = array<i64: 1, 1, 1, 1>, activation = "Relu"} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x8x8xf32>
  %w2 = "onnx.Constant"() {value = dense<0.1> : tensor<8x16x3x3xf32>} : () -> tensor<8x16x3x3xf32>
  %y2 = "onnx.Conv"(%y, %w2, %none) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<8x16x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  return %y2 : tensor<1x8x8x8xf32>
}

// -----

/// MaxPool (ceil_mode, pads) and GlobalAveragePool call their kernels with
/// the planes of X: N*C of them.
// CHECK-LABEL: func.func @pools(
// CHECK: %[[PLANES:.*]] = arith.constant 6 : i64
// CHECK: call @onnxcc_kernels_max_pool2d(%{{.*}}, %{{.*}}, %[[PLANES]],
// CHECK: %[[ROWS:.*]] = arith.constant 6 : i64
// CHECK: %[[COLS:.*]] = arith.constant 25 : i64
// CHECK: call @onnxcc_kernels_global_avg_pool(%{{.*}}, %{{.*}}, %[[ROWS]], %[[COLS]],
// CHECK-NOT: linalg.generic
func.func @pools(%x: tensor<2x3x9x9xf32>) -> tensor<2x3x1x1xf32> {
  %p, %i = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, ceil_mode = 1 : i64} : (tensor<2x3x9x9xf32>) -> (tensor<2x3x5x5xf32>, none)
  %g = "onnx.GlobalAveragePool"(%p) : (tensor<2x3x5x5xf32>) -> tensor<2x3x1x1xf32>
  return %g : tensor<2x3x1x1xf32>
}

// -----

/// A scalar attention mask (FlexAttention's expansion at opset 26 has one) is
/// expanded to a one-element buffer, which the kernel broadcasts with strides
/// 0, instead of being collapsed (a rank-0 collapse crashed).
// CHECK-LABEL: func.func @attention_scalar_mask(
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: call @onnxcc_kernels_attention(
func.func @attention_scalar_mask(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>, %m: tensor<f32>) -> tensor<1x2x3x4xf32> {
  %y = "onnx.ScaledDotProductAttention"(%q, %k, %v, %m) {scale = 0.5 : f32} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<f32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

/// A MatMul of two activations is one call of the matmul kernel: B comes
/// through a Transpose, which the kernel reads in place (its buffer is the
/// Transpose's input; the transposed copy is left unused, for the
/// canonicalizer to drop), and the batch dims of [4, 1, 5, 6] x [3, 6, 7]
/// broadcast with strides 0.
// CHECK-LABEL: func.func @matmul_activations(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x1x5x6xf32>, %[[B:[^:]*]]: tensor<3x7x6xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[B]]
// CHECK-NOT: linalg.generic
// CHECK: %[[BF:.*]] = tensor.collapse_shape %[[B]]
// CHECK: %[[BC:.*]] = tensor.cast %[[BF]]
// CHECK: %[[BB:.*]] = bufferization.to_buffer %[[BC]] read_only
// CHECK: call @onnxcc_kernels_matmul(%{{[^,]*}}, %[[BB]],
// CHECK-NOT: linalg.generic
// CHECK-NOT: %[[T]]
// NONE-LABEL: func.func @matmul_activations(
// NONE: linalg.transpose
// NONE: linalg.generic
func.func @matmul_activations(%a: tensor<4x1x5x6xf32>, %b: tensor<3x7x6xf32>) -> tensor<4x3x5x7xf32> {
  %bt = "onnx.Transpose"(%b) {perm = array<i64: 0, 2, 1>} : (tensor<3x7x6xf32>) -> tensor<3x6x7xf32>
  %y = "onnx.MatMul"(%a, %bt) : (tensor<4x1x5x6xf32>, tensor<3x6x7xf32>) -> tensor<4x3x5x7xf32>
  return %y : tensor<4x3x5x7xf32>
}

// -----

/// Attention over [B, S, H, D] activations with a symbolic sequence and a
/// padding mask [B, 1, 1, S]: one call of the attention kernel, Q read in
/// place through its Transpose, the mask broadcast over heads and rows.
// CHECK-LABEL: func.func @attention_symbolic_mask(
// CHECK-NOT: linalg.generic
// CHECK: call @onnxcc_kernels_attention(
// CHECK-NOT: linalg.generic
func.func @attention_symbolic_mask(%q: tensor<1x?x4x8xf32> {onnx.dim_params = ["", "seq", "", ""]}, %k: tensor<1x4x?x8xf32> {onnx.dim_params = ["", "", "seq", ""]}, %v: tensor<1x4x?x8xf32> {onnx.dim_params = ["", "", "seq", ""]}, %m: tensor<1x1x1x?xf32> {onnx.dim_params = ["", "", "", "seq"]}) -> tensor<1x4x?x8xf32> {
  %qt = "onnx.Transpose"(%q) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x?x4x8xf32>) -> tensor<1x4x?x8xf32>
  %y = "onnx.ScaledDotProductAttention"(%qt, %k, %v, %m) {scale = 0.35355339 : f32} : (tensor<1x4x?x8xf32>, tensor<1x4x?x8xf32>, tensor<1x4x?x8xf32>, tensor<1x1x1x?xf32>) -> tensor<1x4x?x8xf32>
  return %y : tensor<1x4x?x8xf32>
}

// -----

/// LayerNormalization and Softmax over symbolic rows (a sequence length)
/// take their kernels: the rows are the product of the leading dims at run
/// time.
// CHECK-LABEL: func.func @symbolic_rows(
// CHECK-NOT: linalg.generic
// CHECK: call @onnxcc_kernels_layer_norm(
// CHECK: call @onnxcc_kernels_softmax(
// CHECK-NOT: linalg.generic
func.func @symbolic_rows(%x: tensor<?x?x8xf32> {onnx.dim_params = ["b", "s", ""]}) -> tensor<?x?x8xf32> {
  %g = "onnx.Constant"() {value = dense<1.5> : tensor<8xf32>} : () -> tensor<8xf32>
  %y, %m, %i = "onnx.LayerNormalization"(%x, %g, %g) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x?x8xf32>, none, none)
  %s = "onnx.Softmax"(%y) {axis = -1 : i64} : (tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %s : tensor<?x?x8xf32>
}

// -----

/// A padding mask whose key dim is another symbol than K's (an exporter's
/// position slice gives the sequence a derived symbol): its stride is chosen
/// at run time after a broadcast check (status 9 unless 1 or equal).
// CHECK-LABEL: func.func @attention_mask_other_symbol(
// CHECK-NOT: linalg.generic
// CHECK: call @onnxcc_check_broadcast(
// CHECK: arith.select
// CHECK: call @onnxcc_kernels_attention(
// CHECK-NOT: linalg.generic
func.func @attention_mask_other_symbol(%q: tensor<1x4x?x8xf32> {onnx.dim_params = ["", "", "s", ""]}, %k: tensor<1x4x?x8xf32> {onnx.dim_params = ["", "", "s", ""]}, %v: tensor<1x4x?x8xf32> {onnx.dim_params = ["", "", "s", ""]}, %m: tensor<1x1x1x?xf32> {onnx.dim_params = ["", "", "", "t"]}) -> tensor<1x4x?x8xf32> {
  %y = "onnx.ScaledDotProductAttention"(%q, %k, %v, %m) {scale = 0.35355339 : f32} : (tensor<1x4x?x8xf32>, tensor<1x4x?x8xf32>, tensor<1x4x?x8xf32>, tensor<1x1x1x?xf32>) -> tensor<1x4x?x8xf32>
  return %y : tensor<1x4x?x8xf32>
}
