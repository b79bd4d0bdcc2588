// RUN: onnxcc-opt %s --split-input-file "--convert-onnx-to-linalg=kernels=avx2 threads=2" -verify-diagnostics | FileCheck %s

/// A bidirectional GRU with constant W, R and B is two calls and no loop:
/// gemm_packed_b for X W^T of both directions at once (W packed at compile
/// time, N = 2 * 3 * 5 columns, the biases folded but GRU's Rbh with
/// linear_before_reset), then `recurrent` on its output with R packed, Rbh,
/// Y and Y_h. Both calls are split in 2 parts (one direction each).
// CHECK-LABEL: func.func @gru_bidirectional(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x1x3xf32>
// CHECK-NOT: scf.for
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %[[X]]
// CHECK: %[[XB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[W:.*]] = arith.constant dense_resource<{{.*}}_w_packed> : tensor<144xf32>
// CHECK: %[[WB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: arith.constant dense_resource<{{.*}}_w_bias> : tensor<30xf32>
// CHECK: %[[BB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[XW:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: call @onnxcc_kernels_gemm_packed_b(%[[XB]], %{{.*}}, %[[WB]], %[[BB]], %{{.*}}, %[[WB]], %{{.*}}, %[[XW]], {{.*}} {onnxcc.part_operand = 14 : i64, onnxcc.parts = 2 : i64}
// CHECK: bufferization.to_tensor %[[XW]] restrict writable
// CHECK: %[[XWB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: arith.constant dense_resource<{{.*}}_r_packed> : tensor<240xf32>
// CHECK: %[[RB:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: arith.constant dense_resource<{{.*}}_rbh> : tensor<10xf32>
// CHECK: %[[RBH:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: arith.constant dense<0> : tensor<1xi32>
// CHECK: %[[SCRATCH:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: %[[Y:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: %[[YH:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: %[[ACTS:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: call @onnxcc_kernels_recurrent(%[[XWB]], %[[RB]], %[[RBH]], %{{.*}}, %[[RB]], %{{.*}}, %{{.*}}, %{{.*}}, %[[RB]], %{{.*}}, %[[RB]], %{{.*}}, %[[Y]], %{{.*}}, %[[YH]], %{{.*}}, %[[SCRATCH]], %{{.*}}, %[[SCRATCH]], %[[ACTS]], {{.*}} {onnxcc.part_operand = 31 : i64, onnxcc.parts = 2 : i64}
// CHECK: bufferization.to_tensor %[[Y]] restrict writable
// CHECK: bufferization.to_tensor %[[YH]] restrict writable
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @gru_bidirectional(%x: tensor<4x1x3xf32>) -> (tensor<4x2x1x5xf32>, tensor<2x1x5xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.25> : tensor<2x15x3xf32>} : () -> tensor<2x15x3xf32>
  %r = "onnx.Constant"() {value = dense<0.5> : tensor<2x15x5xf32>} : () -> tensor<2x15x5xf32>
  %b = "onnx.Constant"() {value = dense<0.125> : tensor<2x30xf32>} : () -> tensor<2x30xf32>
  %y, %yh = "onnx.GRU"(%x, %w, %r, %b, %n, %n) {direction = "bidirectional", hidden_size = 5 : i64, linear_before_reset = 1 : i64} : (tensor<4x1x3xf32>, tensor<2x15x3xf32>, tensor<2x15x5xf32>, tensor<2x30xf32>, none, none) -> (tensor<4x2x1x5xf32>, tensor<2x1x5xf32>)
  return %y, %yh : tensor<4x2x1x5xf32>, tensor<2x1x5xf32>
}

// -----

/// An LSTM whose sequence_lens, initial states and peepholes come at run
/// time: they are passed as they are (flags 1); Y and Y_h are not read, so
/// only Y_c is written (the scratch stands in for the others, flags 0). One
/// direction and a batch of 2 (one block of rows): the call is not split.
// CHECK-LABEL: func.func @lstm_lens_states_peepholes(
// CHECK-SAME: %[[X:[^:]*]]: tensor<3x2x4xf32>, %[[L:[^:]*]]: tensor<2xi32>, %[[H0:[^:]*]]: tensor<1x2x6xf32>, %[[C0:[^:]*]]: tensor<1x2x6xf32>, %[[P:[^:]*]]: tensor<1x18xf32>
// CHECK: call @onnxcc_kernels_gemm_packed_b
// CHECK: dense_resource<{{.*}}_r_packed>
// CHECK: tensor.collapse_shape %[[P]]
// CHECK: %[[PB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<?xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: tensor.cast %[[L]]
// CHECK: %[[LB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<?xi32>
// CHECK: tensor.collapse_shape %[[H0]]
// CHECK: %[[HB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<?xf32>
// CHECK: tensor.collapse_shape %[[C0]]
// CHECK: %[[CB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<?xf32>
// CHECK: %[[SCRATCH:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: %[[YC:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: %[[LSTM:.*]] = arith.constant 2 : i32
// CHECK: call @onnxcc_kernels_recurrent(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PB]], %[[ONE]], %[[LB]], %{{.*}}, %[[HB]], %{{.*}}, %[[CB]], %{{.*}}, %[[SCRATCH]], %{{.*}}, %[[SCRATCH]], %{{.*}}, %[[YC]], %{{.*}}, %[[SCRATCH]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LSTM]],
// CHECK-NOT: onnxcc.parts
// CHECK-NOT: scf.for
// CHECK: return
func.func @lstm_lens_states_peepholes(%x: tensor<3x2x4xf32>, %l: tensor<2xi32>, %h0: tensor<1x2x6xf32>, %c0: tensor<1x2x6xf32>, %p: tensor<1x18xf32>) -> tensor<1x2x6xf32> {
  %n = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.25> : tensor<1x24x4xf32>} : () -> tensor<1x24x4xf32>
  %r = "onnx.Constant"() {value = dense<0.5> : tensor<1x24x6xf32>} : () -> tensor<1x24x6xf32>
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %n, %l, %h0, %c0, %p) {hidden_size = 6 : i64, input_forget = 1 : i64} : (tensor<3x2x4xf32>, tensor<1x24x4xf32>, tensor<1x24x6xf32>, none, tensor<2xi32>, tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x18xf32>) -> (none, none, tensor<1x2x6xf32>)
  return %yc : tensor<1x2x6xf32>
}

// -----

/// The activations with their parameters go into a constant table, three
/// {code, alpha, beta} per direction: Affine takes alpha 0.5 and beta 0.25
/// from the lists; an RNN's unused g and h are Tanh (code 1).
// CHECK-LABEL: func.func @rnn_affine(
// CHECK: call @onnxcc_kernels_recurrent
// CHECK: {{.*}}_acts: "0x04000000000040400000003F0000803E0000803F00000000000000000000803F0000000000000000"
func.func @rnn_affine(%x: tensor<2x1x3xf32>) -> tensor<1x1x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.25> : tensor<1x4x3xf32>} : () -> tensor<1x4x3xf32>
  %r = "onnx.Constant"() {value = dense<0.5> : tensor<1x4x4xf32>} : () -> tensor<1x4x4xf32>
  %y, %yh = "onnx.RNN"(%x, %w, %r, %n, %n, %n) {activations = ["Affine"], activation_alpha = array<f32: 0.5>, activation_beta = array<f32: 0.25>, hidden_size = 4 : i64} : (tensor<2x1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (none, tensor<1x1x4xf32>)
  return %yh : tensor<1x1x4xf32>
}

// -----

/// W computed at run time: the scf.for lowering.
// CHECK-LABEL: func.func @rnn_runtime_weights(
// CHECK-NOT: onnxcc_kernels_recurrent
// CHECK: scf.for
func.func @rnn_runtime_weights(%x: tensor<2x1x3xf32>, %w: tensor<1x4x3xf32>) -> tensor<1x1x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Constant"() {value = dense<0.5> : tensor<1x4x4xf32>} : () -> tensor<1x4x4xf32>
  %y, %yh = "onnx.RNN"(%x, %w, %r, %n, %n, %n) {hidden_size = 4 : i64} : (tensor<2x1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (none, tensor<1x1x4xf32>)
  return %yh : tensor<1x1x4xf32>
}

// -----

/// Affine without its alpha and beta has no default: neither lowering takes
/// it.
func.func @negative_rnn_affine_without_parameters(%x: tensor<2x1x3xf32>) -> tensor<1x1x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<0.25> : tensor<1x4x3xf32>} : () -> tensor<1x4x3xf32>
  %r = "onnx.Constant"() {value = dense<0.5> : tensor<1x4x4xf32>} : () -> tensor<1x4x4xf32>
  // expected-error @+1 {{failed to legalize operation 'onnx.RNN'}}
  %y, %yh = "onnx.RNN"(%x, %w, %r, %n, %n, %n) {activations = ["Affine"], hidden_size = 4 : i64} : (tensor<2x1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (none, tensor<1x1x4xf32>)
  return %yh : tensor<1x1x4xf32>
}
