// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// RNN (layout 0): Y is [seq, dirs, batch, hidden], Y_h [dirs, batch, hidden];
/// hidden_size comes from R when the attribute is absent.
// CHECK-LABEL: func.func @rnn_forward(
// CHECK: %[[Y:.*]], %[[H:.*]] = "onnx.RNN"{{.*}} -> (tensor<7x1x?x16xf32>, tensor<1x?x16xf32>)
// CHECK: return %[[Y]], %[[H]]
func.func @rnn_forward(%x: tensor<7x?x8xf32> {onnx.dim_params = ["", "batch", ""]}, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0, %1 = "onnx.RNN"(%x, %w, %r, %n, %n, %n) : (tensor<7x?x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Bidirectional GRU has two directions.
// CHECK-LABEL: func.func @gru_bidirectional(
// CHECK: "onnx.GRU"{{.*}} -> (tensor<7x2x3x10xf32>, tensor<2x3x10xf32>)
func.func @gru_bidirectional(%x: tensor<7x3x8xf32>, %w: tensor<2x30x8xf32>, %r: tensor<2x30x10xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0, %1 = "onnx.GRU"(%x, %w, %r, %n, %n, %n) {direction = "bidirectional", hidden_size = 10 : i64} : (tensor<7x3x8xf32>, tensor<2x30x8xf32>, tensor<2x30x10xf32>, none, none, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// LSTM with layout 1 puts batch first; an absent Y stays none.
// CHECK-LABEL: func.func @lstm_batch_first(
// CHECK: "onnx.LSTM"{{.*}} -> (none, tensor<3x1x12xf32>, tensor<3x1x12xf32>)
func.func @lstm_batch_first(%x: tensor<3x7x8xf32>, %w: tensor<1x48x8xf32>, %r: tensor<1x48x12xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0, %1, %2 = "onnx.LSTM"(%x, %w, %r, %n, %n, %n, %n, %n) {layout = 1 : i64, hidden_size = 12 : i64} : (tensor<3x7x8xf32>, tensor<1x48x8xf32>, tensor<1x48x12xf32>, none, none, none, none, none) -> (none, tensor<*xf32>, tensor<*xf32>)
  return %1, %2 : tensor<*xf32>, tensor<*xf32>
}
