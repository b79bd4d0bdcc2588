// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg -verify-diagnostics | FileCheck %s

/// FusedConv lowers as Conv does (the bias B starts the accumulator), then
/// one generic over the convolution's result adds Z and applies Relu.
// CHECK-DAG: #[[BMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @fused_conv_residual_relu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[Z:[^:]*]]: tensor<1x3x4x4xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BMAP]], {{.*}}]
// CHECK: %[[CONV:.*]] = linalg.generic {{.*}} outs(%[[INIT]] : tensor<1x1x3x4x4xf32>)
// CHECK: %[[Y:.*]] = tensor.collapse_shape %[[CONV]]
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ID4]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[Y]], %[[Z]] : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[YV:.*]]: f32, %[[ZV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[YV]], %[[ZV]] : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]]
func.func @fused_conv_residual_relu(%x: tensor<1x2x4x4xf32>, %z: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %y = "onnx.FusedConv"(%x, %w, %b, %z) {activation = "Relu"} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

/// Nothing to add and no activation: no epilogue after the convolution.
// CHECK-LABEL: func.func @fused_conv_no_epilogue(
// CHECK: %[[Y:.*]] = tensor.collapse_shape
// CHECK-NEXT: return %[[Y]]
func.func @fused_conv_no_epilogue(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %y = "onnx.FusedConv"(%x, %w, %b, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>, none) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

/// A symbolic batch: the FusedConv runs in a loop over it on static slices
/// of X, and of Z, which has the result's shape.
// CHECK-LABEL: func.func @fused_conv_symbolic_batch(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x2x4x4xf32>{{.*}}, %[[Z:[^:]*]]: tensor<?x3x4x4xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x2x4x4xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<?x3x4x4xf32>)
// CHECK-DAG: %[[XS:.*]] = tensor.extract_slice %[[X]][%[[I]], 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<?x2x4x4xf32> to tensor<1x2x4x4xf32>
// CHECK-DAG: %[[ZS:.*]] = tensor.extract_slice %[[Z]][%[[I]], 0, 0, 0] [1, 3, 4, 4] [1, 1, 1, 1] : tensor<?x3x4x4xf32> to tensor<1x3x4x4xf32>
// CHECK: tensor.expand_shape %[[XS]]
// CHECK: %[[Y:.*]] = tensor.collapse_shape
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[Y]], %[[ZS]] : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>)
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: tensor.insert_slice %[[E]] into %[[ACC]][%[[I]], 0, 0, 0] [1, 3, 4, 4] [1, 1, 1, 1]
func.func @fused_conv_symbolic_batch(%x: tensor<?x2x4x4xf32> {onnx.dim_params = ["N", "", "", ""]}, %z: tensor<?x3x4x4xf32> {onnx.dim_params = ["N", "", "", ""]}) -> tensor<?x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %y = "onnx.FusedConv"(%x, %w, %none, %z) {activation = "Tanh"} : (tensor<?x2x4x4xf32>, tensor<3x2x1x1xf32>, none, tensor<?x3x4x4xf32>) -> tensor<?x3x4x4xf32>
  return %y : tensor<?x3x4x4xf32>
}

// -----

/// FusedGemm: the contraction of Gemm (B transposed), then one generic
/// computing LeakyRelu(alpha * AB + beta * C + Z) with C [N] broadcast.
// CHECK-DAG: #[[AMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BTMAP:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[CMAP:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @fused_gemm(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<4x3xf32>, %[[C:[^:]*]]: tensor<4xf32>, %[[Z:[^:]*]]: tensor<2x4xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[AMAP]], #[[BTMAP]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] :
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[CMAP]], #[[ID2]], #[[ID2]]], {{.*}} ins(%[[P]], %[[C]], %[[Z]] : tensor<2x4xf32>, tensor<4xf32>, tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[PV:.*]]: f32, %[[CV:.*]]: f32, %[[ZV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[PA:.*]] = arith.mulf %[[PV]], %[[ALPHA]] : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[CB:.*]] = arith.mulf %[[CV]], %[[BETA]] : f32
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[PA]], %[[CB]] : f32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[ZV]] : f32
// CHECK-NEXT: %[[SLOPE:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[SLOPE]], %[[S2]] : f32
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[S2]]
// CHECK-NEXT: %[[R:.*]] = arith.select %[[NEG]], %[[SCALED]], %[[S2]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]]
func.func @fused_gemm(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>, %z: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = "onnx.FusedGemm"(%a, %b, %c, %z) {alpha = 0.5 : f32, beta = 2.0 : f32, transB = 1 : i64, activation = "LeakyRelu", activation_params = array<f32: 0.1>} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

/// FusedGemm with symbolic M and a Sigmoid, C absent.
// CHECK-LABEL: func.func @fused_gemm_symbolic(
// CHECK-SAME: %[[M:[^:]*]]: index {onnxcc.symbol = "m"}, %[[A:[^:]*]]: tensor<?x3xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[M]]) : tensor<?x4xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<?x3xf32>, tensor<3x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<?x4xf32>)
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
func.func @fused_gemm_symbolic(%a: tensor<?x3xf32> {onnx.dim_params = ["m", ""]}, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.FusedGemm"(%a, %b, %none, %none) {activation = "Sigmoid"} : (tensor<?x3xf32>, tensor<3x4xf32>, none, none) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

/// FusedMatMul with symbolic batch and sequence (a transformer's
/// feed-forward): the MatMul contraction, then one generic adding the bias
/// [N] and Z and applying the exact Gelu.
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[NMAP:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @fused_matmul_symbolic(
// CHECK-SAME: %[[BATCH:[^:]*]]: index {onnxcc.symbol = "batch"}, %[[SEQ:[^:]*]]: index {onnxcc.symbol = "seq"}, %[[A:[^:]*]]: tensor<?x?x8xf32>{{.*}}, %[[Z:[^:]*]]: tensor<?x?x4xf32>
// CHECK-DAG: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<8x4xf32>
// CHECK-DAG: %[[BIAS:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?x4xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[W]] : tensor<?x?x8xf32>, tensor<8x4xf32>)
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[NMAP]], #[[ID3]], #[[ID3]]], {{.*}} ins(%[[P]], %[[BIAS]], %[[Z]] : tensor<?x?x4xf32>, tensor<4xf32>, tensor<?x?x4xf32>)
// CHECK-NEXT: ^bb0(%[[PV:.*]]: f32, %[[BV:.*]]: f32, %[[ZV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[PV]], %[[BV]] : f32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[ZV]] : f32
// CHECK: math.erf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]]
func.func @fused_matmul_symbolic(%a: tensor<?x?x8xf32> {onnx.dim_params = ["batch", "seq", ""]}, %z: tensor<?x?x4xf32> {onnx.dim_params = ["batch", "seq", ""]}) -> tensor<?x?x4xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %bias = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "onnx.FusedMatMul"(%a, %w, %bias, %z) {activation = "Gelu"} : (tensor<?x?x8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

/// Clip params [min, max] clamp the sum (here Relu6 after a MatMul of rank 3
/// with a [1, 1, N] bias).
// CHECK-LABEL: func.func @fused_matmul_clip(
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<1x1x4xf32>)
// CHECK: %[[S:.*]] = arith.addf
// CHECK-DAG: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[S]], %[[LO]] : f32
// CHECK: %[[R1:.*]] = arith.select %[[BELOW]], %[[LO]], %[[S]] : f32
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[R1]], %[[HI]] : f32
// CHECK: arith.select %[[ABOVE]], %[[HI]], %[[R1]] : f32
func.func @fused_matmul_clip(%a: tensor<2x3x8xf32>, %b: tensor<8x4xf32>, %bias: tensor<1x1x4xf32>) -> tensor<2x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.FusedMatMul"(%a, %b, %bias, %none) {activation = "Clip", activation_params = array<f32: 0.0, 6.0>} : (tensor<2x3x8xf32>, tensor<8x4xf32>, tensor<1x1x4xf32>, none) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

/// An activation the epilogue does not know is an error naming the op.
func.func @unknown_activation(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  // expected-error @+2 {{cannot lower 'onnx.FusedConv': unknown activation 'Swish'}}
  // expected-error @+1 {{failed to legalize operation 'onnx.FusedConv'}}
  %y = "onnx.FusedConv"(%x, %w, %none, %none) {activation = "Swish"} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none, none) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

/// Clip needs both bounds.
func.func @clip_one_param(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+2 {{cannot lower 'onnx.FusedMatMul': activation 'Clip' takes 2 params (min, max), got 1}}
  // expected-error @+1 {{failed to legalize operation 'onnx.FusedMatMul'}}
  %y = "onnx.FusedMatMul"(%a, %b, %none, %none) {activation = "Clip", activation_params = array<f32: 0.0>} : (tensor<2x3xf32>, tensor<3x4xf32>, none, none) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

/// Relu takes no params.
func.func @relu_with_params(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+2 {{cannot lower 'onnx.FusedGemm': activation 'Relu' takes no params, got 2}}
  // expected-error @+1 {{failed to legalize operation 'onnx.FusedGemm'}}
  %y = "onnx.FusedGemm"(%a, %b, %none, %none) {activation = "Relu", activation_params = array<f32: 0.0, 1.0>} : (tensor<2x3xf32>, tensor<3x4xf32>, none, none) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
