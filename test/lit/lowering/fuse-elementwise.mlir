// RUN: onnxcc-opt %s --pass-pipeline='builtin.module(func.func(onnxcc-fuse-elementwise))' | FileCheck %s
// RUN: onnxcc-opt %s --pass-pipeline='builtin.module(func.func(onnxcc-fuse-elementwise{max-body-ops=4}))' | FileCheck %s --check-prefix=BOUND

/// A chain of four elementwise ops (a body of two ops each: addf, yield)
/// fuses into one generic. With a bound of 4 body ops, the first two fuse
/// (3 ops), the third no longer fits with them (5) and fuses with the fourth.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK-COUNT-4: arith.addf
// BOUND-LABEL: func.func @chain
// BOUND: linalg.generic
// BOUND-COUNT-2: arith.addf
// BOUND: linalg.generic
// BOUND-COUNT-2: arith.addf
// BOUND-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %d : tensor<64xf32>
}
