// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// If: dims both branches agree on are kept, others become a dim the run
/// decides (the op's data dim If#0, at most 5). The first region is
/// else_branch, the second then_branch.
// CHECK-LABEL: func.func @if_join_branches(
// CHECK: %[[R:.*]]:2 = "onnx.If"
// CHECK: }) {onnxcc.data_dims = ["If#0"]} : (tensor<i1>) -> (tensor<2x?xf32>, tensor<2x3xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @if_join_branches(%c: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0:2 = "onnx.If"(%c) ({
    %e = "onnx.Relu"(%b) : (tensor<2x5xf32>) -> tensor<*xf32>
    %f = "onnx.Neg"(%a) : (tensor<2x3xf32>) -> tensor<*xf32>
    "onnx.Yield"(%e, %f) : (tensor<*xf32>, tensor<*xf32>) -> ()
  }, {
    %t = "onnx.Relu"(%a) : (tensor<2x3xf32>) -> tensor<*xf32>
    "onnx.Yield"(%t, %a) : (tensor<*xf32>, tensor<2x3xf32>) -> ()
  }) : (tensor<i1>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Loop: the carried value keeps its shape; the scan output stacks the
/// body's value along a new first dim of trip count M (no condition input).
// CHECK-LABEL: func.func @loop_carried_and_scan(
// CHECK: %[[L:.*]]:2 = "onnx.Loop"
// CHECK: -> (tensor<2x3xf32>, tensor<5x2x3xf32>)
// CHECK: return %[[L]]#0, %[[L]]#1
func.func @loop_carried_and_scan(%x: tensor<2x3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %m = "onnx.Constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %n = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.Loop"(%m, %n, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<2x3xf32>):
    %next = "onnx.Add"(%v, %v) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
    "onnx.Yield"(%cond, %next, %next) : (tensor<i1>, tensor<*xf32>, tensor<*xf32>) -> ()
  }) : (tensor<i64>, none, tensor<2x3xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Scan: the state keeps its shape; the scan output gets the sequence length
/// of the scan input (axis 0) in front.
// CHECK-LABEL: func.func @scan_state_and_output(
// CHECK: %[[S:.*]]:2 = "onnx.Scan"
// CHECK: -> (tensor<4xf32>, tensor<7x4xf32>)
// CHECK: return %[[S]]#0, %[[S]]#1
func.func @scan_state_and_output(%init: tensor<4xf32>, %xs: tensor<7x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) ({
  ^bb0(%acc: tensor<4xf32>, %x: tensor<4xf32>):
    %sum = "onnx.Add"(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
    "onnx.Yield"(%sum, %sum) : (tensor<*xf32>, tensor<*xf32>) -> ()
  }) {num_scan_inputs = 1 : i64} : (tensor<4xf32>, tensor<7x4xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// The body of a Scan is inferred with the shapes it receives: the state's,
/// and the scan input's without its scan axis (here axis 1 of [3, 7]).
// CHECK-LABEL: func.func @scan_body_arguments(
// CHECK: ^bb0(%{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>):
// CHECK: "onnx.Add"{{.*}} -> tensor<3xf32>
// CHECK: -> (tensor<3xf32>, tensor<7x3xf32>)
func.func @scan_body_arguments(%init: tensor<3xf32>, %xs: tensor<3x7xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) ({
  ^bb0(%acc: tensor<*xf32>, %x: tensor<*xf32>):
    %sum = "onnx.Add"(%acc, %x) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
    "onnx.Yield"(%sum, %sum) : (tensor<*xf32>, tensor<*xf32>) -> ()
  }) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>} : (tensor<3xf32>, tensor<3x7xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// A condition input that is a constant true and that the body passes on
/// unchanged cannot end the loop: the trip count is M.
// CHECK-LABEL: func.func @loop_only_m_matters(
// CHECK: -> (tensor<2xf32>, tensor<4x2xf32>)
func.func @loop_only_m_matters(%x: tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %m = "onnx.Constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %0:2 = "onnx.Loop"(%m, %t, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<2xf32>):
    %c = "onnx.Identity"(%cond) : (tensor<i1>) -> tensor<i1>
    %next = "onnx.Neg"(%v) : (tensor<2xf32>) -> tensor<*xf32>
    "onnx.Yield"(%c, %next, %next) : (tensor<i1>, tensor<*xf32>, tensor<*xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// A body whose condition is computed can end the loop early: the scan
/// output's first dim stays unknown.
// CHECK-LABEL: func.func @loop_condition_computed(
// CHECK: -> (tensor<2xf32>, tensor<?x2xf32>)
func.func @loop_condition_computed(%x: tensor<2xf32>, %stop: tensor<i1>) -> (tensor<*xf32>, tensor<*xf32>) {
  %m = "onnx.Constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %0:2 = "onnx.Loop"(%m, %t, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<2xf32>):
    %next = "onnx.Neg"(%v) : (tensor<2xf32>) -> tensor<*xf32>
    "onnx.Yield"(%stop, %next, %next) : (tensor<i1>, tensor<*xf32>, tensor<*xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}
