// RUN: onnxcc-opt %s --onnx-infer-shapes=annotate | FileCheck %s

// Symbolic dims are polynomials of the dim_params: products (Flatten),
// sums (Concat), exact quotients (Reshape's -1), and the values of shape
// computations (Shape -> Gather -> Concat -> Reshape, as exporters emit).

// CHECK-LABEL: func.func @derived
func.func @derived(%x: tensor<?x?x4xf32> {onnx.dim_params = ["batch", "seq", ""]},
                   %y: tensor<?x2x4xf32> {onnx.dim_params = ["batch", "", ""]}) {
  // CHECK: onnx.Flatten{{.*}}onnx.symbolic_dims = {{\[\[}}"batch*seq", "4"]]
  %f = "onnx.Flatten"(%x) {axis = 2 : i64} : (tensor<?x?x4xf32>) -> tensor<*xf32>
  // CHECK: onnx.Flatten{{.*}}onnx.symbolic_dims = {{\[\[}}"4*batch*seq", "1"]]
  %g = "onnx.Flatten"(%x) {axis = 3 : i64} : (tensor<?x?x4xf32>) -> tensor<*xf32>
  // CHECK: onnx.Concat{{.*}}onnx.symbolic_dims = {{\[\[}}"batch", "2 + seq", "4"]]
  %c = "onnx.Concat"(%x, %y) {axis = 1 : i64} : (tensor<?x?x4xf32>, tensor<?x2x4xf32>) -> tensor<*xf32>
  // CHECK: onnx.Concat{{.*}}onnx.symbolic_dims = {{\[\[}}"2*batch", "2", "4"]]
  %d = "onnx.Concat"(%y, %y) {axis = 0 : i64} : (tensor<?x2x4xf32>, tensor<?x2x4xf32>) -> tensor<*xf32>
  %shape = "onnx.Constant"() {value = dense<[-1, 8]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: onnx.Reshape{{.*}}onnx.symbolic_dims = {{\[\[}}"batch", "8"]]
  %r = "onnx.Reshape"(%y, %shape) : (tensor<?x2x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  %shape2 = "onnx.Constant"() {value = dense<[-1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // CHECK: onnx.Reshape{{.*}}onnx.symbolic_dims = {{\[\[}}"2*batch*seq", "2"]]
  %r2 = "onnx.Reshape"(%x, %shape2) : (tensor<?x?x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// CHECK-LABEL: func.func @shape_computation
func.func @shape_computation(%x: tensor<?x?x8xf32> {onnx.dim_params = ["batch", "seq", ""]}) {
  %s = "onnx.Shape"(%x) : (tensor<?x?x8xf32>) -> tensor<*xi64>
  %i0 = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %i1 = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = "onnx.Gather"(%s, %i0) {axis = 0 : i64} : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %t = "onnx.Gather"(%s, %i1) {axis = 0 : i64} : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %heads = "onnx.Constant"() {value = dense<[2, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %target = "onnx.Concat"(%b, %t, %heads) {axis = 0 : i64} : (tensor<*xi64>, tensor<*xi64>, tensor<2xi64>) -> tensor<*xi64>
  // CHECK: onnx.Reshape{{.*}}onnx.symbolic_dims = {{\[\[}}"batch", "seq", "2", "4"]]
  %r = "onnx.Reshape"(%x, %target) : (tensor<?x?x8xf32>, tensor<*xi64>) -> tensor<*xf32>
  // seq * 2 computed in the graph (Mul of a gathered dim).
  %two = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %t2 = "onnx.Mul"(%t, %two) : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %four = "onnx.Constant"() {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  %target2 = "onnx.Concat"(%b, %t2, %four) {axis = 0 : i64} : (tensor<*xi64>, tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  // CHECK: onnx.Reshape{{.*}}onnx.symbolic_dims = {{\[\[}}"batch", "2*seq", "4"]]
  %r2 = "onnx.Reshape"(%x, %target2) : (tensor<?x?x8xf32>, tensor<*xi64>) -> tensor<*xf32>
  // CHECK: onnx.Expand{{.*}}onnx.symbolic_dims = {{\[\[}}"batch", "seq", "8"]]
  %e = "onnx.Expand"(%x, %s) : (tensor<?x?x8xf32>, tensor<*xi64>) -> tensor<*xf32>
  return
}

// CHECK-LABEL: func.func @unrelated_symbols
func.func @unrelated_symbols(%x: tensor<?xf32> {onnx.dim_params = ["a"]},
                             %y: tensor<?xf32> {onnx.dim_params = ["b"]}) {
  // Broadcasting two different symbols gives a dim run() derives from both
  // (b when a is 1, else a; the lowering checks b).
  // CHECK: onnx.Add{{.*}}onnx.symbolic_dims = {{\[\[}}"broadcast(a, b)"]]
  // CHECK-SAME: -> tensor<?xf32>
  %s = "onnx.Add"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<*xf32>
  return
}

// A Loop whose trip count is a symbolic dim (Shape -> Gather, as
// torch.jit.script exports `for i in range(x.size(0))`) and that only M
// ends: its scan output has that many rows.
// CHECK-LABEL: func.func @loop_symbolic_trips
func.func @loop_symbolic_trips(%x: tensor<?x3xf32> {onnx.dim_params = ["n", ""]}, %h: tensor<3xf32>) {
  %s = "onnx.Shape"(%x) : (tensor<?x3xf32>) -> tensor<*xi64>
  %i0 = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %m = "onnx.Gather"(%s, %i0) {axis = 0 : i64} : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
  %none = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Loop"
  // CHECK: }) {onnx.symbolic_dims = {{\[\[}}"3"], ["n", "3"]]}
  %0:2 = "onnx.Loop"(%m, %none, %h) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<3xf32>):
    %t = "onnx.Tanh"(%v) : (tensor<3xf32>) -> tensor<3xf32>
    "onnx.Yield"(%c, %t, %t) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> ()
  }) : (tensor<*xi64>, none, tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}
