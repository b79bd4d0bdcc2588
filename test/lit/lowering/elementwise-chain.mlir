// RUN: onnxcc-opt %s --onnxcc-lower-cpu | FileCheck %s

// A chain of elementwise ops (with a broadcast operand) is one loop nest:
// each value is loaded once, the four ops run on registers, one store to
// the output, and no intermediate buffer (arena size 0).
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: onnxcc.arena_size = 0
// CHECK: scf.for %[[I:.*]] = %c0 to %c4
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c8
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK-NEXT: %[[Y:.*]] = memref.load %arg1[%[[J]]]
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[X]], %[[Y]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[X]]
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[M]]
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[T]]
// CHECK-NEXT: memref.store %[[R]], %arg2[%[[I]], %[[J]]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @main_graph(%x: tensor<4x8xf32> {onnx.name = "x"}, %y: tensor<8xf32> {onnx.name = "y"}) -> (tensor<4x8xf32> {onnx.name = "z"}) {
  %0 = "onnx.Add"(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "onnx.Mul"(%0, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "onnx.Tanh"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "onnx.Relu"(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}
