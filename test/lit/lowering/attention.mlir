// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg | FileCheck %s

/// Q K^T is a contraction over D reading K [b, j, d] in place; the scores are
/// scaled and the mask [3, 5] added in one elementwise generic; Softmax is
/// max, sum of exp(x - max), exp(x - max) / sum; then a contraction with V
/// over Sk.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MASK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @static_mask(
// CHECK-SAME: %[[QA:[^:]*]]: tensor<2x3x4xf32>, %[[KA:[^:]*]]: tensor<2x5x4xf32>, %[[VA:[^:]*]]: tensor<2x5x6xf32>, %[[MA:[^:]*]]: tensor<3x5xf32>
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[QA]], %[[KA]] : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[MASK]], #[[ID]]], {{.*}} ins(%[[S]], %[[MA]] : tensor<2x3x5xf32>, tensor<3x5xf32>)
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[X:.*]] = arith.mulf %{{.*}}, %[[HALF]]
// CHECK: arith.addf %[[X]], %{{.*}}
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<2x3x5xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[MAX]] : tensor<2x3x5xf32>, tensor<2x3xf32>)
// CHECK: math.exp
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[MAX]], %[[SUM]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[V]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %[[VA]] : tensor<2x3x5xf32>, tensor<2x5x6xf32>) outs(%{{.*}} : tensor<2x3x6xf32>)
// CHECK: return %[[Y]] : tensor<2x3x6xf32>
func.func @static_mask(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>, %m: tensor<3x5xf32>) -> tensor<2x3x6xf32> {
  %y = "onnx.ScaledDotProductAttention"(%q, %k, %v, %m) {scale = 0.5 : f32} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, tensor<3x5xf32>) -> tensor<2x3x6xf32>
  return %y : tensor<2x3x6xf32>
}

// -----

/// Symbolic batch and sequence: the scores [b, s, s] take b and s from the
/// symbols and Sk from K; the result [b, s, 8] from the symbols. No mask.
// CHECK-LABEL: func.func @symbolic(
// CHECK-SAME: %[[B:[^:]*]]: index {onnxcc.symbol = "b"}, %[[S:[^:]*]]: index {onnxcc.symbol = "s"}, %[[QA:[^:]*]]: tensor<?x?x8xf32> {{{[^}]*}}}, %[[KA:[^:]*]]: tensor<?x?x8xf32>
// CHECK: %[[SK:.*]] = tensor.dim %[[KA]], %c1
// CHECK: tensor.empty(%[[B]], %[[S]], %[[SK]]) : tensor<?x?x?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[QA]], %[[KA]] : tensor<?x?x8xf32>, tensor<?x?x8xf32>) outs(%{{.*}} : tensor<?x?x?xf32>)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: tensor.empty(%[[B]], %[[S]]) : tensor<?x?x8xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x8xf32>)
// CHECK: return %[[Y]]
func.func @symbolic(%q: tensor<?x?x8xf32> {onnx.dim_params = ["b", "s", ""]}, %k: tensor<?x?x8xf32> {onnx.dim_params = ["b", "s", ""]}, %v: tensor<?x?x8xf32> {onnx.dim_params = ["b", "s", ""]}) -> tensor<?x?x8xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.ScaledDotProductAttention"(%q, %k, %v, %n) {scale = 0.125 : f32} : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, none) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

/// Rank 4 with K and V shared by the heads (dim 1 is 1 for them): they read
/// index 0 there. No label check here: the maps are printed above the function.
// CHECK-DAG: #[[KB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d3, d4)>
// CHECK-DAG: #[[VB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d4, d3)>
// CHECK: func.func @broadcast_heads(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KB]], #{{.*}}]
// CHECK-SAME: outs(%{{.*}} : tensor<1x4x3x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[VB]], #{{.*}}]
// CHECK-SAME: outs(%{{.*}} : tensor<1x4x3x6xf32>)
func.func @broadcast_heads(%q: tensor<1x4x3x8xf32>, %k: tensor<1x1x2x8xf32>, %v: tensor<1x1x2x6xf32>) -> tensor<1x4x3x6xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.ScaledDotProductAttention"(%q, %k, %v, %n) {scale = 1.0 : f32} : (tensor<1x4x3x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x6xf32>, none) -> tensor<1x4x3x6xf32>
  return %y : tensor<1x4x3x6xf32>
}
