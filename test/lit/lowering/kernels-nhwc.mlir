// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg=kernels=avx512 -verify-diagnostics | FileCheck %s
// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg=kernels=generic -verify-diagnostics | FileCheck %s --check-prefix=GENERIC
// RUN: not onnxcc-opt %s --split-input-file --convert-onnx-to-linalg 2>&1 | FileCheck %s --check-prefix=NONE

// NONE: error: cannot lower 'onnx.FusedConvNHWC': channels-last convolutions run on the kernels only (pass option kernels=generic|avx2|avx512), as static float32 group-1 or depthwise convolutions

/// A channels-last depthwise convolution: W [C, 1, KH, KW] packed to
/// [KH][KW][C rounded up to a vector] (16 floats on AVX-512, 4 on generic
/// C++: 0.5 four times, then zeros), no scratch. The geometry follows the
/// NHWC dims: batch 1, C 4, H 6, W 6, OH 3, OW 3, 3x3, stride 2, pads
/// top/left 1, dilation 1; Clip(0, 6) is code 2.
// CHECK-LABEL: func.func @depthwise_nhwc(
// CHECK: arith.constant dense_resource<node_nhwc> : tensor<144xf32>
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: call @onnxcc_kernels_depthwise_conv2d_nhwc(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c1_i64, %c4_i64, %c6_i64, %c6_i64_{{[0-9]+}}, %c3_i64, %c3_i64_{{[0-9]+}}, %c3_i64_{{[0-9]+}}, %c3_i64_{{[0-9]+}}, %c2_i64, %c2_i64_{{[0-9]+}}, %c1_i64_{{[0-9]+}}, %c1_i64_{{[0-9]+}}, %c1_i64_{{[0-9]+}}, %c1_i64_{{[0-9]+}}, %[[C2]],
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 3, 3, 4]
// CHECK: node_nhwc: "0x040000000000003F0000003F0000003F0000003F{{(00000000){12}()}}0000003F
// GENERIC-LABEL: func.func @depthwise_nhwc(
// GENERIC: arith.constant dense_resource<node_nhwc> : tensor<36xf32>
// GENERIC: node_nhwc: "0x040000000000003F0000003F0000003F0000003F0000003F
func.func @depthwise_nhwc(%x: tensor<1x6x6x4xf32>) -> tensor<1x3x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x1x3x3xf32>} : () -> tensor<4x1x3x3xf32>
  %y = "onnx.FusedConvNHWC"(%x, %w, %none, %none) {group = 4 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, activation = "Clip", activation_params = array<f32: 0.0, 6.0>} : (tensor<1x6x6x4xf32>, tensor<4x1x3x3xf32>, none, none) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// -----

/// A channels-last group-1 convolution is a GEMM whose K index is
/// (kh, kw, c) and whose N index is m: W [2, 2, 1, 2] = 1..8 packs as
/// rows k of the B panel: (kw 0, c 0) -> [1, 5], (0, 1) -> [3, 7],
/// (1, 0) -> [2, 6], (1, 1) -> [4, 8], each padded to the panel width (48 on
/// AVX-512). The bias and residual Z are passed, the ISA check comes last.
// CHECK-LABEL: func.func @conv_nhwc(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x3x4x2xf32>, %[[Z:[^:]*]]: tensor<1x3x3x2xf32>
// CHECK: arith.constant dense_resource<node_nhwc> : tensor<192xf32>
// CHECK: %[[ISA:.*]] = arith.constant 2 : i32
// CHECK: call @onnxcc_kernels_conv2d_nhwc({{.*}}, %[[ISA]])
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 3, 3, 2]
// CHECK: node_nhwc: "0x040000000000803F0000A040{{(00000000){46}()}}000040400000E040{{(00000000){46}()}}000000400000C040{{(00000000){46}()}}0000804000000041
func.func @conv_nhwc(%x: tensor<1x3x4x2xf32>, %z: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[5.0, 6.0]], [[7.0, 8.0]]]]> : tensor<2x2x1x2xf32>} : () -> tensor<2x2x1x2xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "onnx.FusedConvNHWC"(%x, %w, %b, %z) {activation = "SiLU"} : (tensor<1x3x4x2xf32>, tensor<2x2x1x2xf32>, tensor<2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

/// ReduceMean over H and W of [N, H, W, C] (global average pooling of
/// channels-last data) is reduce_mean_mid over [1][H*W = 20][C = 32].
// CHECK-LABEL: func.func @mean_hw(
// CHECK: %[[OUTER:.*]] = arith.constant 1 : i64
// CHECK: %[[R:.*]] = arith.constant 20 : i64
// CHECK: %[[INNER:.*]] = arith.constant 32 : i64
// CHECK: call @onnxcc_kernels_reduce_mean_mid(%{{.*}}, %{{.*}}, %[[OUTER]], %[[R]], %[[INNER]],
// CHECK-NOT: linalg.generic
func.func @mean_hw(%x: tensor<1x4x5x32xf32>) -> tensor<1x1x1x32xf32> {
  %axes = "onnx.Constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %y = "onnx.ReduceMean"(%x, %axes) {keepdims = 1 : i64} : (tensor<1x4x5x32xf32>, tensor<2xi64>) -> tensor<1x1x1x32xf32>
  return %y : tensor<1x1x1x32xf32>
}

// -----

/// Axes that are not one run of dims, or too few elements after them, keep
/// the loop nest.
// CHECK-LABEL: func.func @negative_mean(
// CHECK-NOT: call @onnxcc_kernels_reduce_mean_mid
// CHECK: linalg.generic
// CHECK-NOT: call @onnxcc_kernels_reduce_mean_mid
// CHECK: return
func.func @negative_mean(%x: tensor<2x4x5x32xf32>, %y: tensor<4x5x6xf32>) -> (tensor<1x4x1x32xf32>, tensor<4x5xf32>) {
  %a = "onnx.Constant"() {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.ReduceMean"(%x, %a) {keepdims = 1 : i64} : (tensor<2x4x5x32xf32>, tensor<2xi64>) -> tensor<1x4x1x32xf32>
  %l = "onnx.Constant"() {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = "onnx.ReduceMean"(%y, %l) {keepdims = 0 : i64} : (tensor<4x5x6xf32>, tensor<1xi64>) -> tensor<4x5xf32>
  return %r, %s : tensor<1x4x1x32xf32>, tensor<4x5xf32>
}

// -----

/// A grouped channels-last convolution that is not depthwise has no kernel.
func.func @negative_grouped_nhwc(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x2x1x1xf32>} : () -> tensor<4x2x1x1xf32>
  // expected-error @+2 {{cannot lower 'onnx.FusedConvNHWC': channels-last convolutions run on the kernels only}}
  // expected-error @+1 {{failed to legalize operation 'onnx.FusedConvNHWC'}}
  %y = "onnx.FusedConvNHWC"(%x, %w, %none, %none) {group = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>, none, none) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
