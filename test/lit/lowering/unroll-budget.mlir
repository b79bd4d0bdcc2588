// RUN: onnxcc-opt %s --onnxcc-lower-halide | FileCheck %s

/// The Halide pipeline unrolls loops of at most 64 constant steps, as long
/// as the unrolled body stays under 65536 ops: of three nested loops of 64
/// steps the two inner ones are unrolled, the outer one stays (the emitter
/// refuses it in one line) instead of 262144 copies of the body.
// CHECK-LABEL: func.func @main_graph
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: return
func.func @main_graph(%arg0: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %arg0) -> (tensor<4xf32>) {
    %r2 = scf.for %j = %c0 to %c64 step %c1 iter_args(%b = %a) -> (tensor<4xf32>) {
      %r3 = scf.for %k = %c0 to %c64 step %c1 iter_args(%c = %b) -> (tensor<4xf32>) {
        %e = tensor.extract %c[%c0] : tensor<4xf32>
        %s = arith.addf %e, %e : f32
        %n = tensor.insert %s into %c[%c1] : tensor<4xf32>
        scf.yield %n : tensor<4xf32>
      }
      scf.yield %r3 : tensor<4xf32>
    }
    scf.yield %r2 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
