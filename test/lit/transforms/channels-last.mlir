// RUN: onnxcc-opt %s --split-input-file --onnx-channels-last | FileCheck %s
// RUN: onnxcc-opt %s --split-input-file --onnx-channels-last=mode=all | FileCheck %s --check-prefix=ALL
// RUN: onnxcc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(onnx-channels-last,onnx-fold-constants,onnx-simplify))' | FileCheck %s --check-prefix=FOLD
// RUN: not onnxcc-opt %s --onnx-channels-last=mode=sideways 2>&1 | FileCheck %s --check-prefix=BADMODE

/// The pass is at a fixpoint after one run: a second run changes nothing.
// RUN: onnxcc-opt %s --split-input-file --onnx-channels-last > %t.once.mlir
// RUN: onnxcc-opt %t.once.mlir --split-input-file --onnx-channels-last > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// BADMODE: onnx-channels-last: unknown mode 'sideways' (expected depthwise-chains or all)

/// An inverted residual block (expand 1x1, depthwise 3x3, project 1x1 with
/// the block's input as residual): one chain holding a depthwise conv, so
/// all three run channels-last. The only transposes left are the input's to
/// NHWC and the result's back to NCHW; the residual Z is the NHWC input.
// CHECK-LABEL: func.func @inverted_residual(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x6x6xf32>
// CHECK: %[[XT:.*]] = "onnx.Transpose"(%[[X]]) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x8x6x6xf32>) -> tensor<1x6x6x8xf32>
// CHECK: %[[E:.*]] = "onnx.FusedConvNHWC"(%[[XT]], {{.*}}) <{activation = "Relu"{{.*}}}> : (tensor<1x6x6x8xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>, none) -> tensor<1x6x6x16xf32>
// CHECK: %[[D:.*]] = "onnx.FusedConvNHWC"(%[[E]], {{.*}}) <{activation = "Clip", activation_params = array<f32: 0.000000e+00, 6.000000e+00>{{.*}}group = 16 : i64{{.*}}}> : (tensor<1x6x6x16xf32>, tensor<16x1x3x3xf32>, none, none) -> tensor<1x6x6x16xf32>
// CHECK: %[[P:.*]] = "onnx.FusedConvNHWC"(%[[D]], %{{.*}}, %{{.*}}, %[[XT]]) {{.*}} -> tensor<1x6x6x8xf32>
// CHECK: %[[Y:.*]] = "onnx.Transpose"(%[[P]]) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<1x6x6x8xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NOT: onnx.Transpose
// CHECK: return %[[Y]]
func.func @inverted_residual(%x: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %we = "onnx.Constant"() {value = dense<0.5> : tensor<16x8x1x1xf32>} : () -> tensor<16x8x1x1xf32>
  %be = "onnx.Constant"() {value = dense<0.25> : tensor<16xf32>} : () -> tensor<16xf32>
  %wd = "onnx.Constant"() {value = dense<0.125> : tensor<16x1x3x3xf32>} : () -> tensor<16x1x3x3xf32>
  %wp = "onnx.Constant"() {value = dense<-0.5> : tensor<8x16x1x1xf32>} : () -> tensor<8x16x1x1xf32>
  %e = "onnx.FusedConv"(%x, %we, %be, %none) {activation = "Relu"} : (tensor<1x8x6x6xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>, none) -> tensor<1x16x6x6xf32>
  %d = "onnx.FusedConv"(%e, %wd, %none, %none) {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>, activation = "Clip", activation_params = array<f32: 0.0, 6.0>} : (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>, none, none) -> tensor<1x16x6x6xf32>
  %p = "onnx.FusedConv"(%d, %wp, %none, %x) : (tensor<1x16x6x6xf32>, tensor<8x16x1x1xf32>, none, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %p : tensor<1x8x6x6xf32>
}

// -----

/// A squeeze-and-excitation block: the transposes sink through Sigmoid, Mul
/// and GlobalAveragePool (now ReduceMean over H and W), and the plain Conv
/// of the excitation joins the chain. No transpose is left inside it.
// CHECK-LABEL: func.func @squeeze_excite(
// CHECK: "onnx.Transpose"({{.*}}) <{perm = array<i64: 0, 2, 3, 1>}>
// CHECK-NOT: onnx.Transpose
// CHECK-NOT: onnx.GlobalAveragePool
// CHECK: %[[D:.*]] = "onnx.FusedConvNHWC"({{.*}}group = 16 : i64{{.*}} -> tensor<1x5x5x16xf32>
// CHECK: %[[AXES:.*]] = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
// CHECK: %[[M:.*]] = "onnx.ReduceMean"(%[[D]], %[[AXES]]) <{keepdims = 1 : i64{{.*}}}> : (tensor<1x5x5x16xf32>, tensor<2xi64>) -> tensor<1x1x1x16xf32>
// CHECK: %[[S:.*]] = "onnx.FusedConvNHWC"(%[[M]], {{.*}}) -> tensor<1x1x1x16xf32>
// CHECK: %[[G:.*]] = "onnx.Sigmoid"(%[[S]]) : (tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32>
// CHECK: %[[P:.*]] = "onnx.Mul"(%[[D]], %[[G]]) : (tensor<1x5x5x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x5x5x16xf32>
// CHECK: "onnx.FusedConvNHWC"(%[[P]], {{.*}}) -> tensor<1x5x5x4xf32>
// CHECK: "onnx.Transpose"({{.*}}) <{perm = array<i64: 0, 3, 1, 2>}>
// CHECK-NOT: onnx.Transpose
func.func @squeeze_excite(%x: tensor<1x16x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %wd = "onnx.Constant"() {value = dense<0.125> : tensor<16x1x3x3xf32>} : () -> tensor<16x1x3x3xf32>
  %ws = "onnx.Constant"() {value = dense<0.0625> : tensor<16x16x1x1xf32>} : () -> tensor<16x16x1x1xf32>
  %wp = "onnx.Constant"() {value = dense<0.5> : tensor<4x16x1x1xf32>} : () -> tensor<4x16x1x1xf32>
  %d = "onnx.FusedConv"(%x, %wd, %none, %none) {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>, activation = "SiLU"} : (tensor<1x16x5x5xf32>, tensor<16x1x3x3xf32>, none, none) -> tensor<1x16x5x5xf32>
  %m = "onnx.GlobalAveragePool"(%d) : (tensor<1x16x5x5xf32>) -> tensor<1x16x1x1xf32>
  %s = "onnx.Conv"(%m, %ws, %none) : (tensor<1x16x1x1xf32>, tensor<16x16x1x1xf32>, none) -> tensor<1x16x1x1xf32>
  %g = "onnx.Sigmoid"(%s) : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %p = "onnx.Mul"(%d, %g) : (tensor<1x16x5x5xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x5x5xf32>
  %y = "onnx.Conv"(%p, %wp, %none) : (tensor<1x16x5x5xf32>, tensor<4x16x1x1xf32>, none) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

/// A per-channel constant between two convolutions is brought to NHWC:
/// reshaped to rank 4 and transposed, which onnx-fold-constants computes
/// ([3, 1, 1] -> [1, 1, 1, 3], same values). As the transpose only moves
/// dims of size 1, the simplifications make both one Reshape. A scalar
/// stays as it is.
// CHECK-LABEL: func.func @constant_operands(
// CHECK: %[[T:.*]] = "onnx.Reshape"
// CHECK-SAME: (tensor<3x1x1xf32>, tensor<4xi64>) -> tensor<1x1x1x3xf32>
// CHECK: "onnx.Add"(%{{.*}}, %[[T]]) : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK: "onnx.Mul"(%{{.*}}, %{{.*}}) : (tensor<1x4x4x3xf32>, tensor<f32>) -> tensor<1x4x4x3xf32>
// FOLD-LABEL: func.func @constant_operands(
// FOLD: "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00]]]]> : tensor<1x1x1x3xf32>}>
// FOLD-NOT: "onnx.Transpose"({{.*}}) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x3x1x1xf32>)
func.func @constant_operands(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %wd = "onnx.Constant"() {value = dense<0.5> : tensor<3x1x3x3xf32>} : () -> tensor<3x1x3x3xf32>
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3x3x1x1xf32>} : () -> tensor<3x3x1x1xf32>
  %c = "onnx.Constant"() {value = dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>} : () -> tensor<3x1x1xf32>
  %k = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %d = "onnx.FusedConv"(%x, %wd, %none, %none) {group = 3 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3x1x3x3xf32>, none, none) -> tensor<1x3x4x4xf32>
  %a = "onnx.Add"(%d, %c) : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %m = "onnx.Mul"(%a, %k) : (tensor<1x3x4x4xf32>, tensor<f32>) -> tensor<1x3x4x4xf32>
  %y = "onnx.Conv"(%m, %w, %none) : (tensor<1x3x4x4xf32>, tensor<3x3x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

/// MaxPool is not layout-agnostic: it splits the convolutions into two
/// chains. Only the one with a depthwise conv goes channels-last, and its
/// result is transposed back before the pool.
// CHECK-LABEL: func.func @negative_maxpool_splits_chains(
// CHECK: "onnx.FusedConvNHWC"({{.*}}group = 4 : i64
// CHECK: "onnx.Transpose"({{.*}}) <{perm = array<i64: 0, 3, 1, 2>}>
// CHECK-NEXT: "onnx.MaxPool"
// CHECK: "onnx.Conv"
// ALL-LABEL: func.func @negative_maxpool_splits_chains(
// ALL: "onnx.FusedConvNHWC"({{.*}}group = 4 : i64
// ALL: "onnx.MaxPool"
// ALL: "onnx.FusedConvNHWC"
func.func @negative_maxpool_splits_chains(%x: tensor<1x4x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %wd = "onnx.Constant"() {value = dense<0.5> : tensor<4x1x3x3xf32>} : () -> tensor<4x1x3x3xf32>
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<2x4x3x3xf32>} : () -> tensor<2x4x3x3xf32>
  %d = "onnx.FusedConv"(%x, %wd, %none, %none) {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, none, none) -> tensor<1x4x8x8xf32>
  %p, %i = "onnx.MaxPool"(%d) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, none)
  %y = "onnx.Conv"(%p, %w, %none) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>, none) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

/// Without a depthwise convolution a chain stays NCHW (mode `all` converts
/// it). A grouped convolution that is not depthwise, a non-constant W and a
/// dynamic batch are never converted, nor is float64.
// CHECK-LABEL: func.func @negative_no_depthwise(
// CHECK-NOT: onnx.FusedConvNHWC
// CHECK-NOT: onnx.Transpose
// CHECK: return
// ALL-LABEL: func.func @negative_no_depthwise(
// ALL-COUNT-2: onnx.FusedConvNHWC
// ALL-NOT: onnx.FusedConvNHWC
// ALL: return
func.func @negative_no_depthwise(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x4x3x3xf32>} : () -> tensor<4x4x3x3xf32>
  %a = "onnx.FusedConv"(%x, %w, %none, %none) {pads = array<i64: 1, 1, 1, 1>, activation = "Relu"} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, none, none) -> tensor<1x4x8x8xf32>
  %b = "onnx.FusedConv"(%a, %w, %none, %x) {pads = array<i64: 1, 1, 1, 1>, activation = "Relu"} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, none, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %b : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func.func @negative_grouped(
// CHECK-NOT: onnx.FusedConvNHWC
// ALL-LABEL: func.func @negative_grouped(
// ALL-NOT: onnx.FusedConvNHWC
// ALL: return
func.func @negative_grouped(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x2x1x1xf32>} : () -> tensor<4x2x1x1xf32>
  %a = "onnx.Conv"(%x, %w, %none) {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x1x1xf32>, none) -> tensor<1x4x8x8xf32>
  return %a : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func.func @negative_weights_not_constant(
// CHECK-NOT: onnx.FusedConvNHWC
// ALL-LABEL: func.func @negative_weights_not_constant(
// ALL-NOT: onnx.FusedConvNHWC
// ALL: return
func.func @negative_weights_not_constant(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %a = "onnx.Conv"(%x, %w, %none) {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  return %a : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func.func @negative_dynamic_batch(
// CHECK-NOT: onnx.FusedConvNHWC
// ALL-LABEL: func.func @negative_dynamic_batch(
// ALL-NOT: onnx.FusedConvNHWC
// ALL: return
func.func @negative_dynamic_batch(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x1x3x3xf32>} : () -> tensor<4x1x3x3xf32>
  %a = "onnx.Conv"(%x, %w, %none) {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x8x8xf32>, tensor<4x1x3x3xf32>, none) -> tensor<?x4x8x8xf32>
  return %a : tensor<?x4x8x8xf32>
}

// CHECK-LABEL: func.func @negative_f64(
// CHECK-NOT: onnx.FusedConvNHWC
// ALL-LABEL: func.func @negative_f64(
// ALL-NOT: onnx.FusedConvNHWC
// ALL: return
func.func @negative_f64(%x: tensor<1x4x8x8xf64>) -> tensor<1x4x8x8xf64> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x1x3x3xf64>} : () -> tensor<4x1x3x3xf64>
  %a = "onnx.Conv"(%x, %w, %none) {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf64>, tensor<4x1x3x3xf64>, none) -> tensor<1x4x8x8xf64>
  return %a : tensor<1x4x8x8xf64>
}

// -----

/// Small planes: ResNet's last stage. Both 3x3 convolutions have a 7x7
/// output plane (49 pixels fill 4 vectors of 16 to 77%) and 32 output
/// channels (2 vectors, 100%), so each goes channels-last although the chain
/// has no depthwise convolution. The transpose between them cancels; the
/// input is transposed once for the first conv and for the residual.
// CHECK-LABEL: func.func @small_plane(
// CHECK-SAME: %[[X:.*]]: tensor<1x32x7x7xf32>
// CHECK: %[[XT:.*]] = "onnx.Transpose"(%[[X]]) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x32x7x7xf32>) -> tensor<1x7x7x32xf32>
// CHECK: %[[A:.*]] = "onnx.FusedConvNHWC"(%[[XT]], {{.*}}) -> tensor<1x7x7x32xf32>
// CHECK: %[[B:.*]] = "onnx.FusedConvNHWC"(%[[A]], %{{.*}}, %{{.*}}, %[[XT]]) {{.*}} -> tensor<1x7x7x32xf32>
// CHECK: %[[Y:.*]] = "onnx.Transpose"(%[[B]]) <{perm = array<i64: 0, 3, 1, 2>}>
// CHECK-NOT: onnx.Transpose
// CHECK: return %[[Y]]
func.func @small_plane(%x: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<32x32x3x3xf32>} : () -> tensor<32x32x3x3xf32>
  %a = "onnx.FusedConv"(%x, %w, %none, %none) {pads = array<i64: 1, 1, 1, 1>, activation = "Relu"} : (tensor<1x32x7x7xf32>, tensor<32x32x3x3xf32>, none, none) -> tensor<1x32x7x7xf32>
  %b = "onnx.FusedConv"(%a, %w, %none, %x) {pads = array<i64: 1, 1, 1, 1>, activation = "Relu"} : (tensor<1x32x7x7xf32>, tensor<32x32x3x3xf32>, none, tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %b : tensor<1x32x7x7xf32>
}

/// A stride-2 convolution into a 7x7 plane converts on its own; the 14x14
/// convolution before it (196 pixels) stays NCHW, with a transpose between.
// CHECK-LABEL: func.func @small_plane_after_large(
// CHECK: %[[A:.*]] = "onnx.Conv"({{.*}} -> tensor<1x32x14x14xf32>
// CHECK: %[[AT:.*]] = "onnx.Transpose"(%[[A]]) <{perm = array<i64: 0, 2, 3, 1>}>
// CHECK: "onnx.FusedConvNHWC"(%[[AT]], {{.*}}strides = array<i64: 2, 2>{{.*}} -> tensor<1x7x7x32xf32>
func.func @small_plane_after_large(%x: tensor<1x32x14x14xf32>) -> tensor<1x32x7x7xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<32x32x3x3xf32>} : () -> tensor<32x32x3x3xf32>
  %a = "onnx.Conv"(%x, %w, %none) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x14x14xf32>, tensor<32x32x3x3xf32>, none) -> tensor<1x32x14x14xf32>
  %b = "onnx.Conv"(%a, %w, %none) {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x14x14xf32>, tensor<32x32x3x3xf32>, none) -> tensor<1x32x7x7xf32>
  return %b : tensor<1x32x7x7xf32>
}

/// Not small: an 8x8 plane (64 pixels fill 4 vectors); and a 7x7 plane with
/// 8 output channels (half a vector, below the pixels' 77%).
// CHECK-LABEL: func.func @negative_small_plane(
// CHECK-NOT: onnx.FusedConvNHWC
// CHECK-NOT: onnx.Transpose
// CHECK: return
func.func @negative_small_plane(%x: tensor<1x32x8x8xf32>, %y: tensor<1x32x7x7xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x8x7x7xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<32x32x3x3xf32>} : () -> tensor<32x32x3x3xf32>
  %v = "onnx.Constant"() {value = dense<0.5> : tensor<8x32x3x3xf32>} : () -> tensor<8x32x3x3xf32>
  %a = "onnx.Conv"(%x, %w, %none) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>, none) -> tensor<1x32x8x8xf32>
  %b = "onnx.Conv"(%y, %v, %none) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x7x7xf32>, tensor<8x32x3x3xf32>, none) -> tensor<1x8x7x7xf32>
  return %a, %b : tensor<1x32x8x8xf32>, tensor<1x8x7x7xf32>
}
