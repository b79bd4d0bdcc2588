// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file -verify-diagnostics | FileCheck %s

// Constant indices are checked against static axes: ONNX makes an index
// outside [-s, s) an error. Indices known only at run time, or an axis of
// symbolic size, are left to the generated code (which clamps).

/// s - 1 and -s are the ends of the valid range.
// CHECK-LABEL: func.func @gather_boundaries(
// CHECK: "onnx.Gather"{{.*}} -> tensor<2x3xf32>
func.func @gather_boundaries(%x: tensor<5x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[4, -5]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.Gather"(%x, %i) : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_gather_past_end(%x: tensor<5x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[1, 5]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{index 5 of input 'indices' is out of range [-5, 5) of axis 0}}
  %0 = "onnx.Gather"(%x, %i) : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// int32 indices, read from a splat.
func.func @negative_gather_below_start(%x: tensor<5x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<-4> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  // expected-error @+1 {{index -4 of input 'indices' is out of range [-3, 3) of axis 1}}
  %0 = "onnx.Gather"(%x, %i) {axis = 1 : i64} : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Indices in a resource blob (as the importer stores large initializers):
/// [2, 9] after the 4-byte alignment prefix.
func.func @negative_gather_resource(%x: tensor<5x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense_resource<idx> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{index 9 of input 'indices' is out of range [-5, 5) of axis 0}}
  %0 = "onnx.Gather"(%x, %i) : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

{-#
  dialect_resources: {
    builtin: {
      idx: "0x0800000002000000000000000900000000000000"
    }
  }
#-}

// -----

/// A symbolic batch dim does not hide the static axis.
func.func @negative_gather_symbolic_batch(%x: tensor<?x4xf32> {onnx.dim_params = ["batch", ""]}) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  // expected-error @+1 {{index 4 of input 'indices' is out of range [-4, 4) of axis 1}}
  %0 = "onnx.Gather"(%x, %i) {axis = 1 : i64} : (tensor<?x4xf32>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// An axis of symbolic size cannot be checked: the index stays for run time.
// CHECK-LABEL: func.func @gather_symbolic_axis(
// CHECK: "onnx.Gather"{{.*}} -> tensor<1x4xf32>
func.func @gather_symbolic_axis(%x: tensor<?x4xf32> {onnx.dim_params = ["batch", ""]}) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[100]> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "onnx.Gather"(%x, %i) : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Indices computed from a shape count as constants.
func.func @negative_gather_shape_indices(%x: tensor<5x3xf32>, %s: tensor<2x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Shape"(%s) : (tensor<2x3xf32>) -> tensor<2xi64>
  // expected-error @+1 {{index 3 of input 'indices' is out of range [-3, 3) of axis 1}}
  %0 = "onnx.Gather"(%x, %i) {axis = 1 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @gather_elements_boundaries(
// CHECK: "onnx.GatherElements"{{.*}} -> tensor<2x2xf32>
func.func @gather_elements_boundaries(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[2, -3], [0, -1]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %0 = "onnx.GatherElements"(%x, %i) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_gather_elements(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[0, 1], [-3, 2]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  // expected-error @+1 {{index -3 of input 'indices' is out of range [-2, 2) of axis 0}}
  %0 = "onnx.GatherElements"(%x, %i) : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Off the axis, indices address data by position.
func.func @negative_gather_elements_wider(%x: tensor<2x3xf32>, %i: tensor<2x4xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{indices [2, 4] are larger than data [2, 3] in dim 1, which is not the axis}}
  %0 = "onnx.GatherElements"(%x, %i) : (tensor<2x3xf32>, tensor<2x4xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// With batch_dims 1 each tuple indexes data from axis 1: [3, 4] there.
// CHECK-LABEL: func.func @gather_nd_batch_boundaries(
// CHECK: "onnx.GatherND"{{.*}} -> tensor<2x1xf32>
func.func @gather_nd_batch_boundaries(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[[2, -4]], [[-3, 3]]]> : tensor<2x1x2xi64>} : () -> tensor<2x1x2xi64>
  %0 = "onnx.GatherND"(%x, %i) {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_gather_nd_batch(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[[2, -4]], [[-3, 4]]]> : tensor<2x1x2xi64>} : () -> tensor<2x1x2xi64>
  // expected-error @+1 {{index 4 of input 'indices' is out of range [-4, 4) of axis 2}}
  %0 = "onnx.GatherND"(%x, %i) {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_gather_nd_batch_dims_differ(%x: tensor<2x3xf32>, %i: tensor<3x1xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{batch dim 0 of indices [3, 1] differs from data [2, 3]}}
  %0 = "onnx.GatherND"(%x, %i) {batch_dims = 1 : i64} : (tensor<2x3xf32>, tensor<3x1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_elements_boundaries(
// CHECK: "onnx.ScatterElements"{{.*}} -> tensor<2x3xf32>
func.func @scatter_elements_boundaries(%x: tensor<2x3xf32>, %u: tensor<1x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[1, -2, 0]]> : tensor<1x3xi64>} : () -> tensor<1x3xi64>
  %0 = "onnx.ScatterElements"(%x, %i, %u) : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_scatter_elements(%x: tensor<2x3xf32>, %u: tensor<1x3xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[1, 3, 0]]> : tensor<1x3xi64>} : () -> tensor<1x3xi64>
  // expected-error @+1 {{index 3 of input 'indices' is out of range [-3, 3) of axis 1}}
  %0 = "onnx.ScatterElements"(%x, %i, %u) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_scatter_elements_updates(%x: tensor<2x3xf32>, %i: tensor<1x3xi64>, %u: tensor<1x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{updates [1, 2] and indices [1, 3] must have the same shape}}
  %0 = "onnx.ScatterElements"(%x, %i, %u) : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_scatter_elements_wider(%x: tensor<2x3xf32>, %i: tensor<1x4xi64>, %u: tensor<1x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{indices [1, 4] are larger than data [2, 3] in dim 1, which is not the axis}}
  %0 = "onnx.ScatterElements"(%x, %i, %u) : (tensor<2x3xf32>, tensor<1x4xi64>, tensor<1x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_nd_boundaries(
// CHECK: "onnx.ScatterND"{{.*}} -> tensor<4x3xf32>
func.func @scatter_nd_boundaries(%x: tensor<4x3xf32>, %u: tensor<2xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[-4, 2], [3, -3]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %0 = "onnx.ScatterND"(%x, %i, %u) : (tensor<4x3xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_scatter_nd(%x: tensor<4x3xf32>, %u: tensor<2xf32>) -> tensor<*xf32> {
  %i = "onnx.Constant"() {value = dense<[[-4, 2], [3, -4]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  // expected-error @+1 {{index -4 of input 'indices' is out of range [-3, 3) of axis 1}}
  %0 = "onnx.ScatterND"(%x, %i, %u) : (tensor<4x3xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_scatter_nd_updates(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{updates [2, 2] must have shape [2, 3] (indices [2, 1] without its last dim, then data [4, 3] from dim 1)}}
  %0 = "onnx.ScatterND"(%x, %i, %u) : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_scatter_nd_tuple_length(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{last dim of indices (3) must be at most the rank 2 of data}}
  %0 = "onnx.ScatterND"(%x, %i, %u) : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @cumsum_negative_axis(
// CHECK: "onnx.CumSum"{{.*}} -> tensor<2x3xf32>
func.func @cumsum_negative_axis(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %a = "onnx.Constant"() {value = dense<-2> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.CumSum"(%x, %a) : (tensor<2x3xf32>, tensor<i64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @negative_cumsum_axis(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %a = "onnx.Constant"() {value = dense<-3> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+1 {{axis -3 is out of range for input of rank 2}}
  %0 = "onnx.CumSum"(%x, %a) : (tensor<2x3xf32>, tensor<i32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
