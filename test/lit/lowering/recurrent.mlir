// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg -verify-diagnostics | FileCheck %s

/// A reverse RNN: X W^T for every step is one contraction before the loop;
/// the loop walks time backwards (step t reads and writes time 3 - t), keeps
/// H in a pair of slots (read t % 2, write the other) and writes each step's
/// H into Y.
// CHECK-LABEL: func.func @rnn_reverse
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x3xf32>, %[[W:.*]]: tensor<1x5x3xf32>, %[[R:.*]]: tensor<1x5x5xf32>)
// CHECK: %[[Y0:.*]] = tensor.empty() : tensor<4x1x2x5xf32>
// CHECK: %[[WD:.*]] = tensor.extract_slice %[[W]][0, 0, 0] [1, 5, 3] [1, 1, 1] : tensor<1x5x3xf32> to tensor<5x3xf32>
// CHECK: %[[RD:.*]] = tensor.extract_slice %[[R]][0, 0, 0] [1, 5, 5] [1, 1, 1] : tensor<1x5x5xf32> to tensor<5x5xf32>
// CHECK: %[[XW:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[WD]] : {{.*}}) outs({{.*}} : tensor<4x2x5xf32>)
// CHECK: %[[PAIR:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [1, 2, 5] [1, 1, 1] : tensor<2x5xf32> into tensor<2x2x5xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %[[PAIR]], %[[Y:.*]] = %[[Y0]])
// CHECK: %[[POS:.*]] = arith.subi %{{.*}}, %[[T]] : index
// CHECK: %[[XWT:.*]] = tensor.extract_slice %[[XW]][%[[POS]], 0, 0] [1, 2, 5]
// CHECK: %[[CUR:.*]] = arith.remui %[[T]], %{{.*}} : index
// CHECK: %[[NXT:.*]] = arith.subi %{{.*}}, %[[CUR]] : index
// CHECK: %[[HT:.*]] = tensor.extract_slice %[[H]][%[[CUR]], 0, 0] [1, 2, 5]
// CHECK: %[[HR:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[HT]], %[[RD]] :
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} ins(%[[HT]], %[[XWT]], %[[HR]] :
// CHECK: math.tanh
// CHECK: %[[H2:.*]] = tensor.insert_slice %[[NEW]] into %[[H]][%[[NXT]], 0, 0] [1, 2, 5]
// CHECK: %[[Y2:.*]] = tensor.insert_slice %[[NEW]] into %[[Y]][%[[POS]], 0, 0, 0] [1, 1, 2, 5]
// CHECK: scf.yield %[[H2]], %[[Y2]]
// CHECK: return %[[LOOP]]#1
func.func @rnn_reverse(%x: tensor<4x2x3xf32>, %w: tensor<1x5x3xf32>, %r: tensor<1x5x5xf32>) -> tensor<4x1x2x5xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.RNN"(%x, %w, %r, %n, %n, %n) {direction = "reverse", hidden_size = 5 : i64} : (tensor<4x2x3xf32>, tensor<1x5x3xf32>, tensor<1x5x5xf32>, none, none, none) -> (tensor<4x1x2x5xf32>, none)
  return %y : tensor<4x1x2x5xf32>
}

// -----

/// GRU without linear_before_reset: the candidate reads (r . H) Rh^T, so a
/// step has two contractions: H by the z and r rows of R, then r . H by the
/// h rows. Y_h is the last slot written (3 steps: slot 1).
// CHECK-LABEL: func.func @gru_default
// CHECK: %[[LOOP:.*]] = scf.for
// CHECK: %[[RZR:.*]] = tensor.extract_slice %{{.*}}[0, 0] [10, 5] [1, 1] : tensor<15x5xf32> to tensor<10x5xf32>
// CHECK: linalg.generic {{.*}}"reduction"]} ins(%{{.*}}, %[[RZR]] : tensor<2x5xf32>, tensor<10x5xf32>)
// CHECK: %[[ZR:.*]]:2 = linalg.generic
// CHECK: math.exp
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: %[[RH:.*]] = tensor.extract_slice %{{.*}}[10, 0] [5, 5] [1, 1] : tensor<15x5xf32> to tensor<5x5xf32>
// CHECK: linalg.generic {{.*}}"reduction"]} ins(%[[ZR]]#1, %[[RH]] :
// CHECK: math.tanh
// CHECK: arith.subf
// CHECK: scf.yield
// CHECK: %[[LAST:.*]] = tensor.extract_slice %[[LOOP]][1, 0, 0] [1, 2, 5]
// CHECK: tensor.insert_slice %[[LAST]] into %{{.*}}[0, 0, 0] [1, 2, 5]
func.func @gru_default(%x: tensor<3x2x4xf32>, %w: tensor<1x15x4xf32>, %r: tensor<1x15x5xf32>) -> tensor<1x2x5xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.GRU"(%x, %w, %r, %n, %n, %n) {hidden_size = 5 : i64} : (tensor<3x2x4xf32>, tensor<1x15x4xf32>, tensor<1x15x5xf32>, none, none, none) -> (none, tensor<1x2x5xf32>)
  return %yh : tensor<1x2x5xf32>
}

// -----

/// Bidirectional LSTM with sequence_lens known only at run time: a step past
/// an entry's length keeps its states and outputs zero; the reverse direction
/// runs each entry from its own last step (len - 1 - t), reading X W^T in that
/// order and putting its outputs back in time order before they go into Y.
// CHECK-LABEL: func.func @lstm_bidi_lens
// CHECK-SAME: %[[L:[^:]*]]: tensor<2xi32>
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} ins({{.*}}, %[[L]] : {{.*}}, tensor<2xi32>)
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: arith.select %[[VALID]]
// CHECK: arith.select %[[VALID]]
// CHECK: arith.select %[[VALID]]
// CHECK: scf.yield
// CHECK: %[[REV:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<2xi32>) outs(%{{.*}} : tensor<3x2x8xf32>)
// CHECK: tensor.extract
// CHECK: %[[LOOP:.*]]:3 = scf.for
// CHECK: tensor.extract_slice %[[REV]][%{{.*}}, 0, 0] [1, 2, 8]
// CHECK: scf.yield
// CHECK: %[[ORDERED:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<2xi32>) outs(%{{.*}} : tensor<3x2x2xf32>)
// CHECK: tensor.extract %[[LOOP]]#2
// CHECK: tensor.insert_slice %[[ORDERED]] into %{{.*}}[0, 1, 0, 0] [3, 1, 2, 2]
func.func @lstm_bidi_lens(%x: tensor<3x2x4xf32>, %w: tensor<2x8x4xf32>, %r: tensor<2x8x2xf32>, %l: tensor<2xi32>) -> tensor<3x2x2x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %n, %l, %n, %n, %n) {direction = "bidirectional", hidden_size = 2 : i64} : (tensor<3x2x4xf32>, tensor<2x8x4xf32>, tensor<2x8x2xf32>, none, tensor<2xi32>, none, none, none) -> (tensor<3x2x2x2xf32>, none, none)
  return %y : tensor<3x2x2x2xf32>
}

// -----

/// Batch-major (layout 1): X W^T reads X as [seq, batch] by swapping its
/// leading dims, and Y is written at [0, t, 0, 0].
// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-LABEL: func.func @rnn_batch_major
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]], {{.*}} ins(%[[X]], {{.*}}) outs({{.*}} : tensor<4x2x5xf32>)
// CHECK: scf.for %[[T:[^ ]*]] =
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[T]], 0, 0] [2, 1, 1, 5]
func.func @rnn_batch_major(%x: tensor<2x4x3xf32>, %w: tensor<1x5x3xf32>, %r: tensor<1x5x5xf32>) -> tensor<2x4x1x5xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.RNN"(%x, %w, %r, %n, %n, %n) {hidden_size = 5 : i64, layout = 1 : i64} : (tensor<2x4x3xf32>, tensor<1x5x3xf32>, tensor<1x5x5xf32>, none, none, none) -> (tensor<2x4x1x5xf32>, none)
  return %y : tensor<2x4x1x5xf32>
}

// -----

/// Activations other than Sigmoid, Tanh and Relu are a clean failure.
func.func @negative_rnn_softsign(%x: tensor<4x2x3xf32>, %w: tensor<1x5x3xf32>, %r: tensor<1x5x5xf32>) -> tensor<1x2x5xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{failed to legalize operation 'onnx.RNN'}}
  %y, %yh = "onnx.RNN"(%x, %w, %r, %n, %n, %n) {activations = ["Softsign"], hidden_size = 5 : i64} : (tensor<4x2x3xf32>, tensor<1x5x3xf32>, tensor<1x5x5xf32>, none, none, none) -> (none, tensor<1x2x5xf32>)
  return %yh : tensor<1x2x5xf32>
}

// -----

/// sequence_lens must have one entry per batch entry.
func.func @negative_lstm_lens_shape(%x: tensor<3x2x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>, %l: tensor<3xi32>) -> tensor<1x2x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{failed to legalize operation 'onnx.LSTM'}}
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %n, %l, %n, %n, %n) {hidden_size = 2 : i64} : (tensor<3x2x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>, none, tensor<3xi32>, none, none, none) -> (none, tensor<1x2x2xf32>, none)
  return %yh : tensor<1x2x2xf32>
}
