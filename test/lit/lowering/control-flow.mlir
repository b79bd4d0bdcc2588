// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg -verify-diagnostics | FileCheck %s

/// If: the condition is read as a scalar; each branch copies its result into
/// one destination made before the scf.if, so that bufferization writes both
/// into one buffer.
// CHECK-LABEL: func.func @if_branches(
// CHECK: %[[C:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: %[[DEST:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = scf.if %[[C]] -> (tensor<2x3xf32>) {
// CHECK:   arith.maximumf
// CHECK:   %[[T:.*]] = linalg.copy ins(%{{.*}} : tensor<2x3xf32>) outs(%[[DEST]] : tensor<2x3xf32>)
// CHECK:   scf.yield %[[T]]
// CHECK: } else {
// CHECK:   arith.negf
// CHECK:   %[[E:.*]] = linalg.copy ins(%{{.*}} : tensor<2x3xf32>) outs(%[[DEST]] : tensor<2x3xf32>)
// CHECK:   scf.yield %[[E]]
// CHECK: return %[[R]]
func.func @if_branches(%c: tensor<i1>, %a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.If"(%c) ({
    %t = "onnx.Relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "onnx.Yield"(%t) : (tensor<2x3xf32>) -> ()
  }, {
    %e = "onnx.Neg"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "onnx.Yield"(%e) : (tensor<2x3xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

/// Scan: an scf.for over the 3 rows. The state lives in a pair [2, 4]: step
/// i reads slot i % 2 and writes slot (i + 1) % 2; the final state is slot
/// 3 % 2. The scan output, written in reverse, goes to row 2 - i of its
/// result; the scan input is read at row i.
// CHECK-LABEL: func.func @scan_pair_and_reverse(
// CHECK: %[[PAIR0:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[PAIR:.*]] = tensor.insert_slice %arg0 into %[[PAIR0]][0, 0] [1, 4] [1, 1]
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[L:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %[[PAIR]], %[[O:.*]] = %[[OUT]]) -> (tensor<2x4xf32>, tensor<3x4xf32>)
// CHECK:   %[[CUR:.*]] = arith.remui %[[I]], %{{.*}} : index
// CHECK:   %[[S:.*]] = tensor.extract_slice %[[P]][%[[CUR]], 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
// CHECK:   %[[X:.*]] = tensor.extract_slice %arg1[%[[I]], 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
// CHECK:   %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[X]]
// CHECK:   %[[ROW:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK:   %[[O2:.*]] = tensor.insert_slice %[[SUM]] into %[[O]][%[[ROW]], 0] [1, 4] [1, 1]
// CHECK:   %[[NEXT:.*]] = arith.remui
// CHECK:   %[[P2:.*]] = tensor.insert_slice %[[SUM]] into %[[P]][%[[NEXT]], 0] [1, 4] [1, 1]
// CHECK:   scf.yield %[[P2]], %[[O2]] : tensor<2x4xf32>, tensor<3x4xf32>
// CHECK: %[[LAST:.*]] = tensor.extract_slice %[[L]]#0[%{{.*}}, 0] [1, 4] [1, 1]
// CHECK: return %[[LAST]], %[[L]]#1
func.func @scan_pair_and_reverse(%init: tensor<4xf32>, %xs: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) ({
  ^bb0(%acc: tensor<4xf32>, %x: tensor<4xf32>):
    %sum = "onnx.Add"(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "onnx.Yield"(%sum, %sum) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {num_scan_inputs = 1 : i64, scan_output_directions = array<i64: 1>} : (tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

/// Scan along axis 1 of its input, its output stacked along axis 1.
// CHECK-LABEL: func.func @scan_axes(
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   tensor.extract_slice %arg1[0, %[[I]]] [2, 1] [1, 1] : tensor<2x5xf32> to tensor<2xf32>
// CHECK:   tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[I]]] [2, 1] [1, 1] : tensor<2xf32> into tensor<2x5xf32>
func.func @scan_axes(%init: tensor<2xf32>, %xs: tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2x5xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) ({
  ^bb0(%acc: tensor<2xf32>, %x: tensor<2xf32>):
    %m = "onnx.Mul"(%acc, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%m, %m) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_output_axes = array<i64: -1>} : (tensor<2xf32>, tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2x5xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2x5xf32>
}

// -----

/// Loop with a run-time trip count and condition: an scf.while that carries
/// the state pair, the iteration (i64) and the condition (i1), and runs
/// while both hold. The body sees the iteration and condition as tensors.
// CHECK-LABEL: func.func @loop_while(
// CHECK: %[[COND:.*]] = tensor.extract %arg1[] : tensor<i1>
// CHECK: %[[M:.*]] = tensor.extract %arg0[] : tensor<i64>
// CHECK: %[[W:.*]]:3 = scf.while (%[[P:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}, %[[C:.*]] = %[[COND]]) : (tensor<2x3xf32>, i64, i1) -> (tensor<2x3xf32>, i64, i1) {
// CHECK:   %[[BELOW:.*]] = arith.cmpi slt, %[[I]], %[[M]] : i64
// CHECK:   %[[GO:.*]] = arith.andi %[[C]], %[[BELOW]] : i1
// CHECK:   scf.condition(%[[GO]]) %[[P]], %[[I]], %[[C]]
// CHECK: } do {
// CHECK: ^bb0(%{{.*}}: tensor<2x3xf32>, %[[J:.*]]: i64, %{{.*}}: i1):
// CHECK:   tensor.from_elements %[[J]] : tensor<i64>
// CHECK:   arith.cmpf olt
// CHECK:   %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : i64
// CHECK:   %[[NEXTC:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK:   scf.yield %{{.*}}, %[[J1]], %[[NEXTC]] : tensor<2x3xf32>, i64, i1
// CHECK: %[[N:.*]] = arith.index_cast %[[W]]#1 : i64 to index
// CHECK: %[[SLOT:.*]] = arith.remui %[[N]]
// CHECK: tensor.extract_slice %[[W]]#0[%[[SLOT]], 0] [1, 3] [1, 1]
func.func @loop_while(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.Loop"(%m, %c, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<3xf32>):
    %n = "onnx.Add"(%v, %v) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %none = "onnx.NoValue"() : () -> none
    %s = "onnx.ReduceSum"(%n, %none) {keepdims = 0 : i64} : (tensor<3xf32>, none) -> tensor<f32>
    %l = "onnx.Constant"() {value = dense<1.0e+02> : tensor<f32>} : () -> tensor<f32>
    %go = "onnx.Less"(%s, %l) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "onnx.Yield"(%go, %n) : (tensor<i1>, tensor<3xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

/// A Loop whose carried values swap: each is copied out of its slot before
/// either slot is written.
// CHECK-LABEL: func.func @loop_swap(
// CHECK: scf.while
// CHECK: } do {
// CHECK:   %[[A:.*]] = tensor.extract_slice
// CHECK:   %[[B:.*]] = tensor.extract_slice
// CHECK:   %[[CB:.*]] = linalg.copy ins(%[[B]]
// CHECK:   %[[CA:.*]] = linalg.copy ins(%[[A]]
// CHECK:   tensor.insert_slice %[[CB]]
// CHECK:   tensor.insert_slice %[[CA]]
func.func @loop_swap(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %m = "onnx.Constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %n = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.Loop"(%m, %n, %x, %y) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf32>):
    "onnx.Yield"(%cond, %b, %a) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, none, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

/// A scan output of a Loop whose trip count is known only at run time, and
/// that nothing bounds (no constant M, no --bound), has no compile-time
/// shape.
func.func @loop_runtime_scan_output(%m: tensor<i64>, %x: tensor<3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{cannot lower 'onnx.Loop': its scan output #0 has a row per iteration, and the trip count is not known at compile time (it depends on the data: give it a bound with --bound NODE=N)}}
  %0:2 = "onnx.Loop"(%m, %n, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<3xf32>):
    "onnx.Yield"(%cond, %v, %v) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> ()
  }) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

/// Branches that yield different dims give a result whose dim the taken
/// branch decides: selected before the scf.if (at most the larger, 5), the
/// size of the destination both branches copy into.
// CHECK-LABEL: func.func @if_shapes_differ(
// CHECK: %[[C:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: %[[D:.*]] = arith.select %[[C]], %c3, %c5 : index
// CHECK: %[[N:.*]] = arith.minui %[[D]]
// CHECK: %[[DEST:.*]] = tensor.empty(%[[N]]) : tensor<2x?xf32>
// CHECK: scf.if %[[C]] -> (tensor<2x?xf32>) {
// CHECK:   linalg.copy ins(%{{.*}} : tensor<2x?xf32>) outs(%[[DEST]] : tensor<2x?xf32>)
// CHECK: } else {
// CHECK:   linalg.copy ins(%{{.*}} : tensor<2x?xf32>) outs(%[[DEST]] : tensor<2x?xf32>)
func.func @if_shapes_differ(%c: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<*xf32> {
  %0 = "onnx.If"(%c) ({
    "onnx.Yield"(%a) : (tensor<2x3xf32>) -> ()
  }, {
    "onnx.Yield"(%b) : (tensor<2x5xf32>) -> ()
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Branches of different ranks under a condition that is data, not a dim
/// compared with a constant: refused, naming the ranks.
func.func @if_ranks_differ(%c: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<6xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{cannot lower 'onnx.If': result #0 has a shape not known at compile time (its branches give results of different ranks, 2 and 1, under a condition that is not a dim compared with a constant)}}
  %0 = "onnx.If"(%c) ({
    "onnx.Yield"(%a) : (tensor<2x3xf32>) -> ()
  }, {
    "onnx.Yield"(%b) : (tensor<6xf32>) -> ()
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// A Scan over a sequence of symbolic length: the loop runs to the length
/// of the scan axis; reversed positions count from the last one.
// CHECK-LABEL: func.func @scan_symbolic(
// CHECK: %[[N:.*]] = tensor.dim %arg2, %{{.*}} : tensor<?x4xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step
// CHECK:   %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK:   %[[POS:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK:   tensor.extract_slice %arg2[%[[POS]], 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
func.func @scan_symbolic(%init: tensor<4xf32>, %xs: tensor<?x4xf32> {onnx.dim_params = ["seq", ""]}) -> (tensor<4xf32>, tensor<?x4xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) ({
  ^bb0(%acc: tensor<4xf32>, %x: tensor<4xf32>):
    %sum = "onnx.Add"(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "onnx.Yield"(%sum, %sum) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {num_scan_inputs = 1 : i64, scan_input_directions = array<i64: 1>, scan_output_directions = array<i64: 1>} : (tensor<4xf32>, tensor<?x4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<?x4xf32>
}
