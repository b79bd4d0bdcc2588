// RUN: onnxcc-opt %s --onnxcc-lower-cpu | FileCheck %s

/// The memory plan of a Scan: the state pair is allocated before the loop
/// and read after it, so no buffer of the body (live only inside the loop)
/// shares its bytes: each iteration's temporaries are written while the
/// pair holds the state the next iteration reads. The scan output is
/// written in place into the output argument, row by row.
// CHECK-LABEL: func.func @scan(
// CHECK-SAME: %[[OUT:[^:]*]]: memref<3x4xf32> {onnxcc.output}, %[[ARENA:[^:]*]]: memref<?xi8> {onnxcc.arena}
// CHECK: %[[PAIR:.*]] = memref.view %[[ARENA]][%c0][] : memref<?xi8> to memref<2x4xf32>
// CHECK: memref.copy %arg0, %{{.*}} : memref<4xf32> to memref<4xf32, strided<[1]>>
// CHECK: scf.for %[[I:.*]] = %c0 to %c3 step %c1 {
// CHECK-NOT: memref.view %[[ARENA]][%c0]
// CHECK:   memref.reinterpret_cast %[[OUT]]
// CHECK-NOT: memref.view %[[ARENA]][%c0]
// CHECK:   memref.reinterpret_cast %[[PAIR]]
// CHECK: }
// CHECK: memref.reinterpret_cast %[[PAIR]] to offset: [4]
func.func @scan(%init: tensor<4xf32>, %xs: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) ({
  ^bb0(%acc: tensor<4xf32>, %x: tensor<4xf32>):
    %e = "onnx.Exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %none = "onnx.NoValue"() : () -> none
    %s = "onnx.ReduceSum"(%e, %none) {keepdims = 1 : i64} : (tensor<4xf32>, none) -> tensor<1xf32>
    %d = "onnx.Div"(%e, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    %sum = "onnx.Add"(%acc, %d) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "onnx.Yield"(%sum, %d) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {num_scan_inputs = 1 : i64} : (tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<3x4xf32>
}
