// RUN: onnxcc-opt %s --convert-onnx-to-linalg --split-input-file -verify-diagnostics | FileCheck %s

/// A reduction is one generic with reduction iterators on the reduced dims,
/// writing the kept dims after a fill with the identity of the reduction;
/// keepdims is an elementwise generic that reads it back.
// CHECK-LABEL: func.func @reduce_sum_keepdims
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: outs(%[[INIT]] : tensor<3x5xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[SUM]] : tensor<3x5xf32>)
// CHECK-SAME: outs(%{{.*}} : tensor<3x1x5xf32>)
// CHECK: return %[[R]]
func.func @reduce_sum_keepdims(%x: tensor<3x4x5xf32>) -> tensor<3x1x5xf32> {
  %ax = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.ReduceSum"(%x, %ax) : (tensor<3x4x5xf32>, tensor<1xi64>) -> tensor<3x1x5xf32>
  return %0 : tensor<3x1x5xf32>
}

// -----

/// The mean divides the sum by the number of reduced elements; negative axes
/// count from the end; keepdims = 0 drops them.
// CHECK-LABEL: func.func @reduce_mean_drop
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel", "reduction"]
// CHECK: %[[N:.*]] = arith.constant 1.500000e+01 : f32
// CHECK: arith.divf %{{.*}}, %[[N]]
func.func @reduce_mean_drop(%x: tensor<3x4x5xf32>) -> tensor<4xf32> {
  %ax = "onnx.Constant"() {value = dense<[0, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.ReduceMean"(%x, %ax) {keepdims = 0 : i64} : (tensor<3x4x5xf32>, tensor<2xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Max starts at -inf, so that a row of -inf reduces to -inf; absent axes
/// reduce every dim.
// CHECK-LABEL: func.func @reduce_max_all
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK: arith.maximumf
func.func @reduce_max_all(%x: tensor<3x4xf32>) -> tensor<f32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ReduceMax"(%x, %n) {keepdims = 0 : i64} : (tensor<3x4xf32>, none) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

/// An empty reduction of Min gives +inf, as the ONNX spec and ONNX Runtime
/// 1.30 have it.
// CHECK-LABEL: func.func @reduce_min_empty
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.minimumf
func.func @reduce_min_empty(%x: tensor<0x4xf32>) -> tensor<1x4xf32> {
  %ax = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.ReduceMin"(%x, %ax) : (tensor<0x4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

/// noop_with_empty_axes with no axes reduces nothing: every element is its
/// own group (here squared).
// CHECK-LABEL: func.func @reduce_sum_square_noop
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.mulf
// CHECK-NOT: iterator_types = [{{.*}}"reduction"
func.func @reduce_sum_square_noop(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.ReduceSumSquare"(%x, %n) {noop_with_empty_axes = 1 : i64} : (tensor<3x4xf32>, none) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

/// LogSumExp subtracts the max (where finite) before exp.
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK: arith.maximumf
// CHECK: math.absf
// CHECK: arith.select
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: math.log
// CHECK: arith.addf
func.func @reduce_log_sum_exp(%x: tensor<3x4xf32>) -> tensor<3x1xf32> {
  %ax = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.ReduceLogSumExp"(%x, %ax) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

/// ArgMax keeps the value and the index; select_last_index takes the last
/// of equal values (>=).
// CHECK-LABEL: func.func @argmax_last
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xi64>)
// CHECK: arith.cmpf oge
// CHECK: linalg.index 1
// CHECK: return %[[R]]#1
func.func @argmax_last(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  %0 = "onnx.ArgMax"(%x) {axis = 1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

/// Softmax: max, then the sum of exp(x - max), then exp(x - max) / sum.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[MAX]] :
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[MAX]], %[[SUM]] :
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "onnx.Softmax"(%x) {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

/// LayerNormalization normalizes the dims from `axis` on; its optional Mean
/// and InvStdDev keep the input's rank.
// CHECK-LABEL: func.func @layer_norm
// CHECK-COUNT-5: linalg.generic
// CHECK: math.sqrt
// CHECK: -> tensor<2x3x4xf32>
// CHECK: -> tensor<2x1x1xf32>
// CHECK: -> tensor<2x1x1xf32>
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %y, %m, %i = "onnx.LayerNormalization"(%x, %s, %b) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %y, %m, %i : tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// -----

/// CumSum is a generic with one more (reduction) dim j; reverse exclusive
/// sums where j > i.
// CHECK-LABEL: func.func @cumsum_reverse_exclusive
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[I:.*]] = linalg.index 1
// CHECK: %[[J:.*]] = linalg.index 2
// CHECK: arith.cmpi ugt, %[[J]], %[[I]]
func.func @cumsum_reverse_exclusive(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %ax = "onnx.Constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "onnx.CumSum"(%x, %ax) {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

/// Inference BatchNormalization is one elementwise generic reading the [C]
/// operands at dim 1.
// CHECK-LABEL: func.func @batchnorm
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: math.sqrt
// CHECK-NOT: linalg.generic
func.func @batchnorm(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %y, %m, %v = "onnx.BatchNormalization"(%x, %c, %c, %c, %c) : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, none, none)
  return %y : tensor<2x3x4xf32>
}

// -----

/// GlobalAveragePool reduces every dim after N and C and keeps them as 1.
// CHECK-LABEL: func.func @global_average_pool
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: %[[N:.*]] = arith.constant 2.000000e+01 : f32
// CHECK: arith.divf %{{.*}}, %[[N]]
// CHECK: -> tensor<2x3x1x1xf32>
func.func @global_average_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %0 = "onnx.GlobalAveragePool"(%x) : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// -----

/// Axes computed at run time: the reduced dims are a mask from them (checked
/// to be distinct axes in range), each result dim a data-dependent dim at
/// most its input dim (the declared 3x1 is not trusted), and one loop adds
/// each element into the result element of its kept coordinates.
// CHECK-LABEL: func.func @reduce_dynamic_axes
// CHECK: call @onnxcc_check_equal
// CHECK: %[[D0:.*]] = arith.minui %{{.*}}, %c3
// CHECK: %[[D1:.*]] = arith.minui %{{.*}}, %c4
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK: tensor.insert
// CHECK: tensor.expand_shape %{{.*}} output_shape [%[[D0]], %[[D1]]] : tensor<?xf32> into tensor<?x?xf32>
func.func @reduce_dynamic_axes(%x: tensor<3x4xf32>, %ax: tensor<1xi64>) -> tensor<3x1xf32> {
  %0 = "onnx.ReduceSum"(%x, %ax) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

/// Training-mode BatchNormalization: the batch mean and variance are sums
/// over every dim but the channels (reductions into [C]), then Y and the
/// running statistics.
// CHECK-LABEL: func.func @batchnorm_training
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: math.sqrt
func.func @batchnorm_training(%x: tensor<2x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %y, %m, %v = "onnx.BatchNormalization"(%x, %c, %c, %c, %c) {training_mode = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<2x3xf32>
}

// -----

/// A CumSum axis computed at run time is checked to be in [-2, 2) (a status
/// from run() otherwise) and picks, in one generic, the dim j runs along.
// CHECK-LABEL: func.func @cumsum_dynamic_axis
// CHECK: %[[AX:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: call @onnxcc_check_at_least(%[[AX]], %{{.*}})
// CHECK: call @onnxcc_check_at_least(%{{.*}}, %[[AX]])
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x3xf32>
func.func @cumsum_dynamic_axis(%x: tensor<2x3xf32>, %ax: tensor<i64>) -> tensor<2x3xf32> {
  %0 = "onnx.CumSum"(%x, %ax) : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
