// RUN: onnxcc-opt %s --convert-onnx-to-linalg --split-input-file -verify-diagnostics | FileCheck %s

/// Reduction none: one parallel generic over the target's shape reads the
/// class index, clamps it into [0, C) and extracts -input[n, t, d] * w[t];
/// an ignored position yields 0 through a select.
// CHECK-LABEL: func.func @nll_none_weight_ii
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[T:.*]]: tensor<2x4xi64>, %[[W:.*]]: tensor<3xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[T]] : tensor<2x4xi64>)
// CHECK: ^bb0(%[[IDX:.*]]: i64, %{{.*}}: f32):
// CHECK-DAG: %[[N:.*]] = linalg.index 0
// CHECK-DAG: %[[D:.*]] = linalg.index 1
// CHECK: %[[C:.*]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK: arith.cmpi slt, %[[C]]
// CHECK: arith.cmpi sgt
// CHECK: %[[CL:.*]] = arith.select
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[N]], %[[CL]], %[[D]]]
// CHECK: %[[WV:.*]] = tensor.extract %[[W]][%[[CL]]]
// CHECK: %[[NEG:.*]] = arith.negf %[[V]]
// CHECK: %[[L:.*]] = arith.mulf %[[NEG]], %[[WV]]
// CHECK: %[[IGN:.*]] = arith.cmpi eq, %[[IDX]], %{{.*}} : i64
// CHECK: %[[R:.*]] = arith.select %[[IGN]], %{{.*}}, %[[L]]
// CHECK: linalg.yield %[[R]]
func.func @nll_none_weight_ii(%x: tensor<2x3x4xf32>, %t: tensor<2x4xi64>, %w: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %w) {ignore_index = 1 : i64, reduction = "none"} : (tensor<2x3x4xf32>, tensor<2x4xi64>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

/// Reduction mean: one generic reduces every loop into the loss sum and the
/// sum of the weights taken; a rank-0 generic divides them. int32 targets
/// are widened before the index cast and the ignore_index compare.
// CHECK-LABEL: func.func @nll_mean_i32
// CHECK-DAG: %[[Z0:.*]] = linalg.fill
// CHECK-DAG: %[[Z1:.*]] = linalg.fill
// CHECK: %[[S:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK-SAME: outs(%[[Z0]], %[[Z1]] : tensor<f32>, tensor<f32>)
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[M:.*]] = linalg.generic
// CHECK-SAME: ins(%[[S]]#0, %[[S]]#1 : tensor<f32>, tensor<f32>)
// CHECK: arith.divf
// CHECK: return %[[M]]
func.func @nll_mean_i32(%x: tensor<5x3xf32>, %t: tensor<5xi32>) -> tensor<f32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %none) {ignore_index = -1 : i64} : (tensor<5x3xf32>, tensor<5xi32>, none) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

/// Reduction sum needs no weight total and no division.
// CHECK-LABEL: func.func @nll_sum
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK-NOT: arith.divf
// CHECK: return %[[S]]
func.func @nll_sum(%x: tensor<2x3x4xf64>, %t: tensor<2x4xi64>) -> tensor<f64> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %none) {reduction = "sum"} : (tensor<2x3x4xf64>, tensor<2x4xi64>, none) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

/// SoftmaxCrossEntropyLoss: log_softmax over dim 1 (max, sum of exp, then
/// x - max - log(sum)) feeds the NLL; log_prob is that tensor.
// CHECK-LABEL: func.func @sce_log_prob
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: %[[LP:.*]] = linalg.generic
// CHECK: math.log
// CHECK: linalg.generic
// CHECK: tensor.extract %[[LP]]
// CHECK: return %{{.*}}, %[[LP]]
func.func @sce_log_prob(%x: tensor<3x5xf32>, %t: tensor<3xi64>) -> (tensor<f32>, tensor<3x5xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %0, %1 = "onnx.SoftmaxCrossEntropyLoss"(%x, %t, %none) {reduction = "mean"} : (tensor<3x5xf32>, tensor<3xi64>, none) -> (tensor<f32>, tensor<3x5xf32>)
  return %0, %1 : tensor<f32>, tensor<3x5xf32>
}

// -----

/// A weight whose length is not C is rejected, not read out of bounds.
func.func @negative_nll_weight_length(%x: tensor<2x3xf32>, %t: tensor<2xi64>, %w: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{failed to legalize operation 'onnx.NegativeLogLikelihoodLoss'}}
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %w) {reduction = "sum"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
