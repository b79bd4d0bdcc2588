// RUN: onnxcc-opt %s --split-input-file --onnxcc-lower-halide | FileCheck %s

/// A Reduce* with axes given at run time, whose result the model declares
/// static (the importer's onnx.declared_shape): for the Halide target the
/// function returns that shape, each result dim the axes give is checked
/// against it (run() returns 9), and one reduction over result x input
/// takes the elements that belong to each result element (no scatter loop).
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: -> (tensor<2x1x3xf32> {onnx.declared_shape = array<i64: 2, 1, 3>
// CHECK-NOT: onnxcc.num_data_dims
// CHECK-COUNT-3: call @onnxcc_check_equal
// CHECK: call @onnxcc_check_equal
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: math.absf
// CHECK: arith.select
// CHECK: return {{.*}} : tensor<2x1x3xf32>
func.func @main_graph(%arg0: tensor<2x1x3xf32> {onnx.name = "x"}, %arg1: tensor<1xi64> {onnx.name = "axes"}) -> (tensor<?x?x?xf32> {onnx.declared_shape = array<i64: 2, 1, 3>, onnx.name = "y"}) attributes {onnxcc.num_data_dims = 3 : i64} {
  %0 = "onnx.ReduceL1"(%arg0, %arg1) <{keepdims = 1 : i64, noop_with_empty_axes = 0 : i64}> {onnxcc.data_dims = ["ReduceL1#0", "ReduceL1#1", "ReduceL1#2"]} : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

/// Without a declared shape the result keeps its data-dependent dims (the
/// Halide emitter refuses it in one line) and the scatter of each element
/// into its result element (its 6 steps unrolled).
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: -> (tensor<?x1x?xf32> {onnx.name = "y"})
// CHECK-COUNT-6: tensor.insert {{.*}} : tensor<?xf32>
func.func @main_graph(%arg0: tensor<2x1x3xf32> {onnx.name = "x"}, %arg1: tensor<1xi64> {onnx.name = "axes"}) -> (tensor<?x?x?xf32> {onnx.name = "y"}) attributes {onnxcc.num_data_dims = 3 : i64} {
  %0 = "onnx.ReduceL1"(%arg0, %arg1) <{keepdims = 1 : i64, noop_with_empty_axes = 0 : i64}> {onnxcc.data_dims = ["ReduceL1#0", "ReduceL1#1", "ReduceL1#2"]} : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

/// Also through elementwise ops after the reduction (ReduceL2's function
/// body: ReduceSum, then Sqrt): the whole chain computes the declared shape.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: -> (tensor<2x1x3xf32> {onnx.declared_shape = array<i64: 2, 1, 3>
// CHECK-NOT: scf.for
// CHECK: math.sqrt
// CHECK: return {{.*}} : tensor<2x1x3xf32>
func.func @main_graph(%arg0: tensor<2x1x3xf32> {onnx.name = "x"}, %arg1: tensor<1xi64> {onnx.name = "axes"}) -> (tensor<?x?x?xf32> {onnx.declared_shape = array<i64: 2, 1, 3>, onnx.name = "y"}) attributes {onnxcc.num_data_dims = 3 : i64} {
  %0 = "onnx.ReduceSum"(%arg0, %arg1) <{keepdims = 1 : i64, noop_with_empty_axes = 0 : i64}> {onnxcc.data_dims = ["ReduceSum#0", "ReduceSum#1", "ReduceSum#2"]} : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %1 = "onnx.Sqrt"(%0) : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %1 : tensor<?x?x?xf32>
}
