// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg | FileCheck %s
// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg=kernels=avx2 | FileCheck %s --check-prefix=KERNEL

/// 3-D GQA attention (9 query heads over 3 kv heads), causal: Q and K are read
/// in place through [B, S, H, D] views, the kv head is the query head floordiv
/// 3; the scale and the causal frontier (key <= query: no past, no offset) are
/// one pass; the softmax keeps fully masked rows (max = -inf) at zero; Y is
/// written as [B, S, H, Dv] and collapsed. With kernels: one call of
/// attention, no loop nest (and no [Sq, T] tensor).
// CHECK-DAG: #[[QMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG: #[[KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 floordiv 3, d4)>
// CHECK-DAG: #[[VMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d1 floordiv 3, d3)>
// CHECK-DAG: #[[YMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @gqa_causal_3d(
// CHECK: %[[QV:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2, 3]] output_shape [2, 4, 9, 8]
// CHECK: %[[KV:.*]] = tensor.expand_shape %arg1 {{\[\[}}0], [1], [2, 3]] output_shape [2, 6, 3, 8]
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[KMAP]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QV]], %[[KV]] : {{.*}}) outs(%{{.*}} : tensor<2x9x4x6xf32>)
// CHECK: %[[L:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x9x4x6xf32>)
// CHECK: %[[I:.*]] = linalg.index 2
// CHECK: %[[J:.*]] = linalg.index 3
// CHECK: arith.constant 0.353553385 : f32
// CHECK: %[[VIS:.*]] = arith.cmpi sle, %[[J]], %[[I]]
// CHECK: arith.select %[[VIS]], %{{.*}}, %cst
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<2x9x4x6xf32>) outs(%{{.*}} : tensor<2x9x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[L]], %[[MAX]] :
// CHECK: arith.cmpf oeq
// CHECK: math.exp
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[L]], %[[MAX]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [{{.*}}, #[[VMAP]], #[[YMAP]]], {{.*}} ins(%[[P]], %{{.*}} : tensor<2x9x4x6xf32>, tensor<2x6x3x8xf32>) outs(%{{.*}} : tensor<2x4x9x8xf32>)
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1], [2, 3]] : tensor<2x4x9x8xf32> into tensor<2x4x72xf32>
// KERNEL-LABEL: func.func @gqa_causal_3d(
// KERNEL-NOT: linalg.generic
// KERNEL: call @onnxcc_kernels_attention(
// KERNEL-NOT: linalg.generic
// KERNEL: return
func.func @gqa_causal_3d(%q: tensor<2x4x72xf32>, %k: tensor<2x6x24xf32>, %v: tensor<2x6x24xf32>) -> tensor<2x4x72xf32> {
  %none = onnx.NoValue
  %y, %pk, %pv, %qk = "onnx.Attention"(%q, %k, %v, %none, %none, %none, %none) <{is_causal = 1 : i64, kv_num_heads = 3 : i64, q_num_heads = 9 : i64}> : (tensor<2x4x72xf32>, tensor<2x6x24xf32>, tensor<2x6x24xf32>, none, none, none, none) -> (tensor<2x4x72xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>, tensor<2x9x4x6xf32>)
  return %y : tensor<2x4x72xf32>
}

// -----

/// A past of 2: present_key is past then K (two insert_slices), the causal
/// frontier is key <= query + 2; a bool mask [4, 7] is read at (query, key)
/// and and-ed in; the qk_matmul_output of mode 2 (with the bias) comes out
/// of the masking pass.
// CHECK-LABEL: func.func @past_mask_qk(
// CHECK: tensor.insert_slice %arg3 into %{{.*}}[0, 0, 0, 0] [1, 2, 2, 4] [1, 1, 1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[0, 0, 2, 0] [1, 2, 5, 4] [1, 1, 1, 1]
// CHECK: %[[L:.*]]:2 = linalg.generic
// CHECK: %[[M:.*]] = tensor.extract %arg5[
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[POS:.*]] = arith.addi %{{.*}}, %[[C2]]
// CHECK: arith.cmpi sle, %{{.*}}, %[[POS]]
// CHECK: arith.andi %[[M]]
// CHECK: return %{{.*}}, %{{.*}}, %[[L]]#1 :
// KERNEL-LABEL: func.func @past_mask_qk(
// KERNEL-NOT: call @onnxcc_kernels_attention(
// KERNEL: return
func.func @past_mask_qk(%q: tensor<1x2x5x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %pk: tensor<1x2x2x4xf32>, %pv: tensor<1x2x2x4xf32>, %m: tensor<5x7xi1>) -> (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x5x7xf32>) {
  %none = onnx.NoValue
  %y, %prk, %prv, %qk = "onnx.Attention"(%q, %k, %v, %m, %pk, %pv, %none) <{is_causal = 1 : i64, qk_matmul_output_mode = 2 : i64}> : (tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<5x7xi1>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, none) -> (tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x5x7xf32>)
  return %y, %prk, %qk : tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x5x7xf32>
}

// -----

/// RMSNormalization over dims 1 and 2: one reduction of x^2 per row, then
/// sqrt(sum / 15 + epsilon) per row, then x / rms * scale.
// CHECK-LABEL: func.func @rms(
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 : tensor<2x3x5xf32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.mulf %in, %in
// CHECK: %[[RMS:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2xf32>)
// CHECK: arith.constant 1.500000e+01 : f32
// CHECK: math.sqrt
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[RMS]], %arg1 : tensor<2x3x5xf32>, tensor<2xf32>, tensor<3x5xf32>)
// CHECK: arith.divf
// CHECK: arith.mulf
func.func @rms(%x: tensor<2x3x5xf32>, %s: tensor<3x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "onnx.RMSNormalization"(%x, %s) <{axis = 1 : i64, epsilon = 1.000000e-01 : f32, stash_type = 1 : i64}> : (tensor<2x3x5xf32>, tensor<3x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

/// Interleaved RoPE with position_ids: the partner of element e is e - 1 or
/// e + 1 (odd or even), the cache column e / 2, the position read from
/// position_ids and clamped into the 50 cache rows.
// CHECK-LABEL: func.func @rope(
// CHECK: %[[X:.*]] = tensor.extract %arg0[
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: %[[P:.*]] = tensor.extract %arg0[
// CHECK: %[[ID:.*]] = tensor.extract %arg3[
// CHECK: arith.index_cast %[[ID]]
// CHECK: arith.constant 49 : index
// CHECK: %[[COS:.*]] = tensor.extract %arg1[
// CHECK: %[[SIN:.*]] = tensor.extract %arg2[
// CHECK: arith.mulf %[[COS]], %[[X]]
// CHECK: arith.mulf %[[SIN]], %[[P]]
// CHECK: arith.subf
func.func @rope(%x: tensor<2x4x3x8xf32>, %c: tensor<50x4xf32>, %s: tensor<50x4xf32>, %p: tensor<2x3xi64>) -> tensor<2x4x3x8xf32> {
  %0 = "onnx.RotaryEmbedding"(%x, %c, %s, %p) <{interleaved = 1 : i64, rotary_embedding_dim = 0 : i64}> : (tensor<2x4x3x8xf32>, tensor<50x4xf32>, tensor<50x4xf32>, tensor<2x3xi64>) -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

/// CausalConvWithState: the past (2 = k - 1 positions) and the input are
/// written into one padded [2, 4, 10] tensor; each output is a 3-tap
/// contraction over padded[t + i]; bias and SiLU in one pass; present_state
/// is the last 2 positions of the padded sequence.
// CHECK-DAG: #[[PADMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>
// CHECK-DAG: #[[WMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>
// CHECK-LABEL: func.func @causal_conv(
// CHECK: %[[P1:.*]] = tensor.insert_slice %arg3 into %{{.*}}[0, 0, 0] [2, 4, 2] [1, 1, 1]
// CHECK: %[[P2:.*]] = tensor.insert_slice %arg0 into %[[P1]][0, 0, 2] [2, 4, 8] [1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[PADMAP]], #[[WMAP]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[P2]], %arg1 :
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %arg2 : tensor<2x4x8xf32>, tensor<4xf32>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: %[[S:.*]] = tensor.extract_slice %[[P2]][0, 0, 8] [2, 4, 2] [1, 1, 1]
// CHECK: return %[[Y]], %[[S]]
func.func @causal_conv(%x: tensor<2x4x8xf32>, %w: tensor<4x1x3xf32>, %b: tensor<4xf32>, %p: tensor<2x4x2xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x2xf32>) {
  %y, %s = "onnx.CausalConvWithState"(%x, %w, %b, %p) <{activation = "silu"}> : (tensor<2x4x8xf32>, tensor<4x1x3xf32>, tensor<4xf32>, tensor<2x4x2xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x2xf32>)
  return %y, %s : tensor<2x4x8xf32>, tensor<2x4x2xf32>
}

// -----

/// LinearAttention (gated_delta, 8 query heads over 4 state heads): one
/// scf.for over the 4 tokens carrying the state and the output; each step
/// decays the state in place (exp of the decay), computes the prediction
/// S^T k, applies the delta update in place, reads the state of head h / 2
/// for the outputs of query head h and writes them at token t.
// CHECK-DAG: #[[SH:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 2, d3, d2)>
// CHECK-LABEL: func.func @linear_attention(
// CHECK: %[[R:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>)
// CHECK: %[[D:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<2x4x8x8xf32>)
// CHECK: math.exp
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[D]] : tensor<2x4x8x8xf32>) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%[[U]] : tensor<2x4x8xf32>) outs(%[[D]] : tensor<2x4x8x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[SH]], {{.*}}]{{.*}} ins(%[[N]] : tensor<2x4x8x8xf32>) outs(%{{.*}} : tensor<2x8x8xf32>)
// CHECK: %[[W:.*]] = tensor.insert_slice %{{.*}} into %[[Y]][0, %[[T]], 0, 0] [2, 1, 8, 8]
// CHECK: scf.yield %[[N]], %[[W]]
// CHECK: tensor.collapse_shape %[[R]]#1 {{\[\[}}0], [1], [2, 3]] : tensor<2x4x8x8xf32> into tensor<2x4x64xf32>
func.func @linear_attention(%q: tensor<2x4x64xf32>, %k: tensor<2x4x32xf32>, %v: tensor<2x4x32xf32>, %g: tensor<2x4x32xf32>, %b: tensor<2x4x4xf32>) -> (tensor<2x4x64xf32>, tensor<2x4x8x8xf32>) {
  %none = onnx.NoValue
  %y, %s = "onnx.LinearAttention"(%q, %k, %v, %none, %g, %b) <{kv_num_heads = 4 : i64, q_num_heads = 8 : i64}> : (tensor<2x4x64xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, none, tensor<2x4x32xf32>, tensor<2x4x4xf32>) -> (tensor<2x4x64xf32>, tensor<2x4x8x8xf32>)
  return %y, %s : tensor<2x4x64xf32>, tensor<2x4x8x8xf32>
}
