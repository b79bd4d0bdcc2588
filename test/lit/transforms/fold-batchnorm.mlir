// RUN: onnxcc-opt %s --split-input-file --onnx-fold-batchnorm --mlir-print-debuginfo | FileCheck %s

/// Conv with a bias. epsilon = 1, var = [3, 0]: sqrt(var + eps) = [2, 1],
/// s = scale / sqrt = [1/2, 2/1] = [0.5, 2].
/// W' = W * s = [2 * 0.5, 3 * 2] = [1, 6].
/// b' = (b - mean) * s + B = [(1 - 1) * 0.5 + 0.5, (-1 - 3) * 2 + 0] = [0.5, -8].
/// The Conv keeps its location; the BatchNormalization and the old constants go.
// CHECK-LABEL: func.func @conv_bias(
// CHECK-NOT: onnx.BatchNormalization
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf32>}>
// CHECK: %[[B:.*]] = "onnx.Constant"() <{value = dense<[5.000000e-01, -8.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[Y:.*]] = "onnx.Conv"(%{{.*}}, %[[W]], %[[B]]) {{.*}} -> tensor<1x2x3x3xf32> loc(#[[LOC:.*]])
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: onnx.Constant
// CHECK: #[[LOC]] = loc("conv0")
func.func @conv_bias(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %scale = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() {value = dense<[0.5, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[3.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32> loc("conv0")
  %y, %m, %v = "onnx.BatchNormalization"(%c, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y : tensor<1x2x3x3xf32>
}

// -----

/// Conv without a bias, float64: as above with b = 0:
/// b' = (0 - mean) * s + B = [-1 * 0.5 + 0.5, -3 * 2 + 0] = [0, -6].
// CHECK-LABEL: func.func @conv_no_bias_f64(
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf64>}>
// CHECK: %[[B:.*]] = "onnx.Constant"() <{value = dense<[0.000000e+00, -6.000000e+00]> : tensor<2xf64>}>
// CHECK: %[[Y:.*]] = "onnx.Conv"(%{{.*}}, %[[W]], %[[B]])
// CHECK-NEXT: return %[[Y]]
func.func @conv_no_bias_f64(%x: tensor<1x1x3x3xf64>) -> tensor<1x2x3x3xf64> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf64>} : () -> tensor<2x1x1x1xf64>
  %scale = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf64>} : () -> tensor<2xf64>
  %bias = "onnx.Constant"() {value = dense<[0.5, 0.0]> : tensor<2xf64>} : () -> tensor<2xf64>
  %mean = "onnx.Constant"() {value = dense<[1.0, 3.0]> : tensor<2xf64>} : () -> tensor<2xf64>
  %var = "onnx.Constant"() {value = dense<[3.0, 0.0]> : tensor<2xf64>} : () -> tensor<2xf64>
  %c = "onnx.Conv"(%x, %w, %none) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf64>, tensor<2x1x1x1xf64>, none) -> tensor<1x2x3x3xf64>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<1x2x3x3xf64>, none, none)
  return %y : tensor<1x2x3x3xf64>
}

// -----

/// Grouped Conv (group 2, W [C_out=4, C_in/group=2, 1, 1]): the output
/// channel is still dim 0 of W. var = 0, eps = 1: s = scale = [1, 2, 0.5, 4].
/// W' rows: [1, 2] * 1, [3, 4] * 2, [5, 6] * 0.5, [7, 8] * 4
///        = [1, 2], [6, 8], [2.5, 3], [28, 32].
/// b' = -mean * s + B = [0, -1 * 2, -2 * 0.5, -3 * 4 + 1] = [0, -2, -1, -11].
// CHECK-LABEL: func.func @grouped_conv(
// CHECK: "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}8.000000e+00]]], {{\[\[\[}}2.500000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}2.800000e+01]], {{\[\[}}3.200000e+01]]]]> : tensor<4x2x1x1xf32>}>
// CHECK: "onnx.Constant"() <{value = dense<[0.000000e+00, -2.000000e+00, -1.000000e+00, -1.100000e+01]> : tensor<4xf32>}>
// CHECK: "onnx.Conv"{{.*}}group = 2
// CHECK-NOT: onnx.BatchNormalization
func.func @grouped_conv(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]], [[[7.0]], [[8.0]]]]> : tensor<4x2x1x1xf32>} : () -> tensor<4x2x1x1xf32>
  %scale = "onnx.Constant"() {value = dense<[1.0, 2.0, 0.5, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %bias = "onnx.Constant"() {value = dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %mean = "onnx.Constant"() {value = dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %var = "onnx.Constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = "onnx.Conv"(%x, %w, %none) {group = 2 : i64, kernel_shape = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x2x1x1xf32>, none) -> tensor<1x4x2x2xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x2x2xf32>, none, none)
  return %y : tensor<1x4x2x2xf32>
}

// -----

/// Grouped ConvTranspose (group 2, W [C_in=4, C_out/group=2, 1, 1], C_out = 4):
/// W[i][j] feeds output channel (i / 2) * 2 + j. var = 0, eps = 1:
/// s = scale = [1, 2, 3, 4].
/// W' rows: i=0 [1*1, 2*2] = [1, 4]; i=1 [3*1, 4*2] = [3, 8];
///          i=2 [5*3, 6*4] = [15, 24]; i=3 [7*3, 8*4] = [21, 32].
/// b' = (1 - 0) * s + 0.5 = [1.5, 2.5, 3.5, 4.5].
// CHECK-LABEL: func.func @grouped_conv_transpose(
// CHECK: "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}8.000000e+00]]], {{\[\[\[}}1.500000e+01]], {{\[\[}}2.400000e+01]]], {{\[\[\[}}2.100000e+01]], {{\[\[}}3.200000e+01]]]]> : tensor<4x2x1x1xf32>}>
// CHECK: "onnx.Constant"() <{value = dense<[1.500000e+00, 2.500000e+00, 3.500000e+00, 4.500000e+00]> : tensor<4xf32>}>
// CHECK: "onnx.ConvTranspose"
// CHECK-NOT: onnx.BatchNormalization
func.func @grouped_conv_transpose(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]], [[[7.0]], [[8.0]]]]> : tensor<4x2x1x1xf32>} : () -> tensor<4x2x1x1xf32>
  %b = "onnx.Constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %scale = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %bias = "onnx.Constant"() {value = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %mean = "onnx.Constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %var = "onnx.Constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = "onnx.ConvTranspose"(%x, %w, %b) {group = 2 : i64, kernel_shape = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x2x2xf32>, none, none)
  return %y : tensor<1x4x2x2xf32>
}

// -----

/// Gemm, transB = 1 (B is [N=2, K=3], row n is column n of the result),
/// C = [1, 2] with beta = 2. var = [0, 3], eps = 1: sqrt = [1, 2],
/// s = [2, 1] / [1, 2] = [2, 0.5].
/// B' rows: [1, 2, 3] * 2 = [2, 4, 6]; [4, 5, 6] * 0.5 = [2, 2.5, 3].
/// C' = beta * C * s + B - mean * s = [2*1*2 + 0 - 1*2, 2*2*0.5 + 1 - 0] = [2, 3];
/// beta becomes 1.
// CHECK-LABEL: func.func @gemm_trans_b(
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}2.000000e+00, 4.000000e+00, 6.000000e+00], [2.000000e+00, 2.500000e+00, 3.000000e+00]]> : tensor<2x3xf32>}>
// CHECK: %[[C:.*]] = "onnx.Constant"() <{value = dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[Y:.*]] = "onnx.Gemm"(%{{.*}}, %[[W]], %[[C]]) <{alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64}>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_trans_b(%a: tensor<5x3xf32>) -> tensor<5x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %c0 = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %scale = "onnx.Constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() {value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[0.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = "onnx.Gemm"(%a, %w, %c0) {beta = 2.0 : f32, transB = 1 : i64} : (tensor<5x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%g, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<5x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<5x2xf32>, none, none)
  return %y : tensor<5x2xf32>
}

// -----

/// Gemm, transB = 0 (B is [K=3, N=2], column n scaled), no C; statistics as
/// above, s = [2, 0.5]. B' = [[1*2, 4*0.5], [2*2, 5*0.5], [3*2, 6*0.5]]
/// = [[2, 2], [4, 2.5], [6, 3]]; C' = B - mean * s = [0 - 2, 1 - 0] = [-2, 1].
// CHECK-LABEL: func.func @gemm_no_c(
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}2.000000e+00, 2.000000e+00], [4.000000e+00, 2.500000e+00], [6.000000e+00, 3.000000e+00]]> : tensor<3x2xf32>}>
// CHECK: %[[C:.*]] = "onnx.Constant"() <{value = dense<[-2.000000e+00, 1.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[Y:.*]] = "onnx.Gemm"(%{{.*}}, %[[W]], %[[C]])
// CHECK-NEXT: return %[[Y]]
func.func @gemm_no_c(%a: tensor<5x3xf32>) -> tensor<5x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %scale = "onnx.Constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() {value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[0.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = "onnx.Gemm"(%a, %w, %none) : (tensor<5x3xf32>, tensor<3x2xf32>, none) -> tensor<5x2xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%g, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<5x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<5x2xf32>, none, none)
  return %y : tensor<5x2xf32>
}

// -----

/// Gemm with a per-row C [M=2, 1] (beta 1): C' becomes [M, N].
/// s = [2, 0.5] and B - mean * s = [-2, 1] as above;
/// C'[r][n] = C[r] * s[n] + (B - mean * s)[n]:
///   r=0 (C=1): [1*2 - 2, 1*0.5 + 1] = [0, 1.5]; r=1 (C=2): [2*2 - 2, 2*0.5 + 1] = [2, 2].
// CHECK-LABEL: func.func @gemm_row_c(
// CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}2.000000e+00, 2.000000e+00], [4.000000e+00, 2.500000e+00], [6.000000e+00, 3.000000e+00]]> : tensor<3x2xf32>}>
// CHECK: %[[C:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}0.000000e+00, 1.500000e+00], [2.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>}>
// CHECK: %[[Y:.*]] = "onnx.Gemm"(%{{.*}}, %[[W]], %[[C]]) {{.*}} : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_row_c(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %c0 = "onnx.Constant"() {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %scale = "onnx.Constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() {value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[0.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = "onnx.Gemm"(%a, %w, %c0) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%g, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, none, none)
  return %y : tensor<2x2xf32>
}

// -----

/// float16: s = [0.5, 2] as in @conv_bias; W' = [1, 6], b' = [0.5, -8]
/// (all exact in f16).
// CHECK-LABEL: func.func @conv_f16(
// CHECK: "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf16>}>
// CHECK: "onnx.Constant"() <{value = dense<[5.000000e-01, -8.000000e+00]> : tensor<2xf16>}>
// CHECK-NOT: onnx.BatchNormalization
func.func @conv_f16(%x: tensor<1x1x3x3xf16>) -> tensor<1x2x3x3xf16> {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf16>} : () -> tensor<2x1x1x1xf16>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %scale = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %bias = "onnx.Constant"() {value = dense<[0.5, 0.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %mean = "onnx.Constant"() {value = dense<[1.0, 3.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %var = "onnx.Constant"() {value = dense<[3.0, 0.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf16>, tensor<2x1x1x1xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>) -> (tensor<1x2x3x3xf16>, none, none)
  return %y : tensor<1x2x3x3xf16>
}

// -----

/// The Conv result has another use: folding would change it.
// CHECK-LABEL: func.func @negative_producer_other_use(
// CHECK: "onnx.Conv"
// CHECK: "onnx.BatchNormalization"
func.func @negative_producer_other_use(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %s, %s, %s, %s) : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y, %c : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

/// The mean is a runtime value.
// CHECK-LABEL: func.func @negative_stats_not_constant(
// CHECK: "onnx.Conv"
// CHECK: "onnx.BatchNormalization"
func.func @negative_stats_not_constant(%x: tensor<1x1x3x3xf32>, %mean: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %s, %s, %mean, %s) : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y : tensor<1x2x3x3xf32>
}

// -----

/// Training mode normalizes with the batch statistics, and its running
/// statistics are used.
// CHECK-LABEL: func.func @negative_training_mode(
// CHECK: "onnx.Conv"
// CHECK: "onnx.BatchNormalization"
func.func @negative_training_mode(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<2xf32>) {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %s, %s, %s, %s) {training_mode = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>)
  return %y, %m : tensor<1x2x3x3xf32>, tensor<2xf32>
}

// -----

/// Training mode with the running statistics unused still normalizes with
/// the batch statistics.
// CHECK-LABEL: func.func @negative_training_mode_unused_stats(
// CHECK: "onnx.Conv"
// CHECK: "onnx.BatchNormalization"
func.func @negative_training_mode_unused_stats(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %s, %s, %s, %s) {training_mode = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y : tensor<1x2x3x3xf32>
}

// -----

/// The Conv weights are a runtime value.
// CHECK-LABEL: func.func @negative_weights_not_constant(
// CHECK: "onnx.Conv"
// CHECK: "onnx.BatchNormalization"
func.func @negative_weights_not_constant(%x: tensor<1x1x3x3xf32>, %w: tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %none) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %s, %s, %s, %s) : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y : tensor<1x2x3x3xf32>
}

// -----

/// The Conv bias is a runtime value.
// CHECK-LABEL: func.func @negative_bias_not_constant(
// CHECK: "onnx.Conv"
// CHECK: "onnx.BatchNormalization"
func.func @negative_bias_not_constant(%x: tensor<1x1x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %s, %s, %s, %s) : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y : tensor<1x2x3x3xf32>
}

// -----

/// Integer types: BatchNormalization is float only, so an int32 Gemm reaches
/// it through a Cast, which is not a producer the pass folds through.
// CHECK-LABEL: func.func @negative_integer_gemm(
// CHECK: "onnx.Gemm"{{.*}} -> tensor<5x2xi32>
// CHECK: "onnx.BatchNormalization"
func.func @negative_integer_gemm(%a: tensor<5x3xi32>) -> tensor<5x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1> : tensor<3x2xi32>} : () -> tensor<3x2xi32>
  %s = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = "onnx.Gemm"(%a, %w, %none) : (tensor<5x3xi32>, tensor<3x2xi32>, none) -> tensor<5x2xi32>
  %f = "onnx.Cast"(%g) {to = 1 : i64} : (tensor<5x2xi32>) -> tensor<5x2xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%f, %s, %s, %s, %s) : (tensor<5x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<5x2xf32>, none, none)
  return %y : tensor<5x2xf32>
}

// -----

/// The statistics must have one value per output channel of the Conv.
// CHECK-LABEL: func.func @negative_stats_wrong_size(
// CHECK: "onnx.BatchNormalization"
func.func @negative_stats_wrong_size(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %s = "onnx.Constant"() {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %s, %s, %s, %s) : (tensor<1x2x3x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y : tensor<1x2x3x3xf32>
}

// -----

/// Exporters share equal initializers: here one constant is scale and var
/// (%sv) of both BatchNormalizations, one is B and mean of both and the
/// first Conv's bias (%bm), and both Convs read the same weights. Each fold
/// erases the constants left unread once: a use-after-free under ASan before.
/// eps = 1, var = [3, 15]: s = [3, 15] / [2, 4] = [1.5, 3.75];
/// W' = [2 * 1.5, 3 * 3.75] = [3, 11.25] for both Convs.
/// First: b' = (b - mean) * s + B = 0 * s + [1, -1] = [1, -1].
/// Second (no bias): b' = -mean * s + B = [-1.5 + 1, 3.75 - 1] = [-0.5, 2.75].
/// No old constant is left.
// CHECK-LABEL: func.func @shared_statistics(
// CHECK-NOT: onnx.BatchNormalization
// CHECK-DAG: %[[W1:.*]] = "onnx.Constant"() <{value = dense<{{\[\[\[\[}}3.000000e+00]]], {{\[\[\[}}1.125000e+01]]]]> : tensor<2x1x1x1xf32>}>
// CHECK-DAG: %[[B1:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>}>
// CHECK-DAG: %[[W2:.*]] = "onnx.Constant"() <{value = dense<{{\[\[\[\[}}3.000000e+00]]], {{\[\[\[}}1.125000e+01]]]]> : tensor<2x1x1x1xf32>}>
// CHECK-DAG: %[[B2:.*]] = "onnx.Constant"() <{value = dense<[-5.000000e-01, 2.750000e+00]> : tensor<2xf32>}>
// CHECK-DAG: %[[Y1:.*]] = "onnx.Conv"(%{{.*}}, %[[W1]], %[[B1]])
// CHECK-DAG: %[[Y2:.*]] = "onnx.Conv"(%{{.*}}, %[[W2]], %[[B2]])
// CHECK: return %[[Y1]], %[[Y2]]
// CHECK-NOT: onnx.Constant
// CHECK-NOT: dense<[3.000000e+00, 1.500000e+01]>
func.func @shared_statistics(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %sv = "onnx.Constant"() {value = dense<[3.0, 15.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bm = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c1 = "onnx.Conv"(%x, %w, %bm) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y1, %m1, %v1 = "onnx.BatchNormalization"(%c1, %sv, %bm, %bm, %sv) {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  %c2 = "onnx.Conv"(%x, %w, %none) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  %y2, %m2, %v2 = "onnx.BatchNormalization"(%c2, %sv, %bm, %bm, %sv) {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y1, %y2 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

/// Gemm whose C is the BatchNormalization's B and mean, and whose scale is
/// its var (one constant each, as above). s = [3, 15] / [2, 4] = [1.5, 3.75];
/// B' = [[1 * 1.5, 2 * 1.5], [3 * 3.75, 4 * 3.75]] = [[1.5, 3], [11.25, 15]]
/// (transB = 1: row n is column n); C' = (C - mean) * s + B = C = [1, -1].
/// A shared statistic that another node still reads stays: here the scale,
/// read by the Relu.
// CHECK-LABEL: func.func @gemm_shared_statistics(
// CHECK-NOT: onnx.BatchNormalization
// CHECK-DAG: %[[SV:.*]] = "onnx.Constant"() <{value = dense<[3.000000e+00, 1.500000e+01]> : tensor<2xf32>}>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}1.500000e+00, 3.000000e+00], [1.125000e+01, 1.500000e+01]]> : tensor<2x2xf32>}>
// CHECK-DAG: %[[C:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>}>
// CHECK-DAG: %[[Y:.*]] = "onnx.Gemm"(%{{.*}}, %[[B]], %[[C]])
// CHECK-DAG: %[[R:.*]] = "onnx.Relu"(%[[SV]])
// CHECK: return %[[Y]], %[[R]]
// CHECK-NOT: onnx.Constant
func.func @gemm_shared_statistics(%a: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
  %b = "onnx.Constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %sv = "onnx.Constant"() {value = dense<[3.0, 15.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bm = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = "onnx.Gemm"(%a, %b, %bm) {transB = 1 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%g, %sv, %bm, %bm, %sv) {epsilon = 1.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, none, none)
  %r = "onnx.Relu"(%sv) : (tensor<2xf32>) -> tensor<2xf32>
  return %y, %r : tensor<3x2xf32>, tensor<2xf32>
}

// -----

/// Weights in a resource blob (as the importer stores large initializers):
/// W = [2, 3] (little-endian f32 after the 4-byte alignment header), the
/// statistics of @conv_bias: W' = [1, 6], b' = [0.5, -8]; small results stay
/// inline.
// CHECK-LABEL: func.func @conv_resource_weights(
// CHECK: "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf32>}>
// CHECK: "onnx.Constant"() <{value = dense<[5.000000e-01, -8.000000e+00]> : tensor<2xf32>}>
// CHECK-NOT: onnx.BatchNormalization
func.func @conv_resource_weights(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = "onnx.Constant"() {value = dense_resource<conv_w> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %scale = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() {value = dense<[0.5, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[3.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%c, %scale, %bias, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, none, none)
  return %y : tensor<1x2x3x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      conv_w: "0x040000000000004000004040"
    }
  }
#-}
