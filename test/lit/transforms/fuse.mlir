// RUN: onnxcc-opt %s --split-input-file --onnx-fuse | FileCheck %s
// RUN: onnxcc-opt %s --split-input-file --onnx-fuse --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

/// The pass is at a fixpoint after one run: a second run changes nothing.
// RUN: onnxcc-opt %s --split-input-file --onnx-fuse > %t.once.mlir
// RUN: onnxcc-opt %t.once.mlir --split-input-file --onnx-fuse > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

/// A rank-2 MatMul whose only use adds a C that broadcasts to [M, N] is a
/// Gemm (C on either side of the Add). The Gemm has nothing after it to take.
// CHECK-LABEL: func.func @matmul_add_to_gemm(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>, %[[C:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = "onnx.Gemm"(%[[A]], %[[B]], %[[C]]) {{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
// LOC-LABEL: func.func @matmul_add_to_gemm(
// LOC: "onnx.Gemm"{{.*}} loc(#[[GEMM:.*]])
// LOC-DAG: #[[MM:.*]] = loc("mm0")
// LOC-DAG: #[[ADD:.*]] = loc("add0")
// LOC-DAG: #[[GEMM]] = loc(fused[#[[MM]], #[[ADD]]])
func.func @matmul_add_to_gemm(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("mm0")
  %y = "onnx.Add"(%c, %m) : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("add0")
  return %y : tensor<2x4xf32>
}

// -----

/// Conv with a constant B, then a bias [M, 1, 1] and Relu. The bias goes
/// into B: [1, 2, 3] + [0.5, 0.25, -1] = [1.5, 2.25, 2]. The fused node's
/// location fuses those of the three nodes, the Conv's first.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x4x4xf32>
// CHECK-NOT: onnx.Add
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<3x2x1x1xf32>}>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<[1.500000e+00, 2.250000e+00, 2.000000e+00]> : tensor<3xf32>}>
// CHECK-DAG: %[[NONE:.*]] = onnx.NoValue
// CHECK: %[[Y:.*]] = "onnx.FusedConv"(%[[X]], %[[W]], %[[B]], %[[NONE]]) <{activation = "Relu", {{.*}}kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>}>
// CHECK-NEXT: return %[[Y]]
// LOC-LABEL: func.func @conv_bias_relu(
// LOC: "onnx.FusedConv"{{.*}} loc(#[[FUSED:.*]])
// LOC-DAG: #[[CONV:.*]] = loc("conv0")
// LOC-DAG: #[[BIAS:.*]] = loc("bias0")
// LOC-DAG: #[[RELU:.*]] = loc("relu0")
// LOC-DAG: #[[FUSED]] = loc(fused[#[[CONV]], #[[BIAS]], #[[RELU]]])
func.func @conv_bias_relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %bias = "onnx.Constant"() {value = dense<[[[0.5]], [[0.25]], [[-1.0]]]> : tensor<3x1x1xf32>} : () -> tensor<3x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %b) {kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> loc("conv0")
  %a = "onnx.Add"(%c, %bias) : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32> loc("bias0")
  %r = "onnx.Relu"(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> loc("relu0")
  return %r : tensor<1x3x4x4xf32>
}

// -----

/// Conv without B: a [1, M, 1, 1] bias becomes B ([M], same values). A
/// scalar bias is per channel too: with B [1, 2, 3] and 0.5 it gives
/// [1.5, 2.5, 3.5]. No activation follows.
// CHECK-LABEL: func.func @conv_bias_becomes_b(
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}>
// CHECK-DAG: %[[NONE:.*]] = onnx.NoValue
// CHECK: "onnx.FusedConv"(%{{.*}}, %{{.*}}, %[[B]], %[[NONE]]) <{activation = "",{{.*}}-> tensor<1x3x4x4xf32>
// CHECK-NOT: onnx.Add
// CHECK-LABEL: func.func @conv_scalar_bias(
// CHECK: %[[B2:.*]] = "onnx.Constant"() <{value = dense<[1.500000e+00, 2.500000e+00, 3.500000e+00]> : tensor<3xf32>}>
// CHECK: "onnx.FusedConv"(%{{.*}}, %{{.*}}, %[[B2]], %{{.*}}) <{activation = "Sigmoid"
// CHECK-NOT: onnx.Add
func.func @conv_bias_becomes_b(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %bias = "onnx.Constant"() {value = dense<[[[[1.0]], [[2.0]], [[3.0]]]]> : tensor<1x3x1x1xf32>} : () -> tensor<1x3x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %a = "onnx.Add"(%bias, %c) : (tensor<1x3x1x1xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %a : tensor<1x3x4x4xf32>
}
func.func @conv_scalar_bias(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %bias = "onnx.Constant"() {value = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = "onnx.Conv"(%x, %w, %b) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %a = "onnx.Add"(%c, %bias) : (tensor<1x3x4x4xf32>, tensor<1xf32>) -> tensor<1x3x4x4xf32>
  %s = "onnx.Sigmoid"(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %s : tensor<1x3x4x4xf32>
}

// -----

/// The end of a ResNet basic block: Conv (BatchNormalization already folded
/// into W and B), Add of the block's input (the residual, here on the left)
/// and Relu: one FusedConv with Z. A symbolic batch is the same dim on both
/// sides of the Add, so the shapes are proven equal.
// CHECK-LABEL: func.func @resnet_block(
// CHECK-SAME: %[[H:[^:]*]]: tensor<?x4x8x8xf32>{{.*}}, %[[Z:[^:]*]]: tensor<?x4x8x8xf32>
// CHECK: %[[Y:.*]] = "onnx.FusedConv"(%[[H]], %{{.*}}, %{{.*}}, %[[Z]]) <{activation = "Relu", {{.*}}pads = array<i64: 1, 1, 1, 1>}> : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @resnet_block(%h: tensor<?x4x8x8xf32> {onnx.dim_params = ["N", "", "", ""]}, %z: tensor<?x4x8x8xf32> {onnx.dim_params = ["N", "", "", ""]}) -> tensor<?x4x8x8xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x4x3x3xf32>} : () -> tensor<4x4x3x3xf32>
  %b = "onnx.Constant"() {value = dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = "onnx.Conv"(%h, %w, %b) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  %s = "onnx.Add"(%z, %c) : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %r = "onnx.Relu"(%s) : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %r : tensor<?x4x8x8xf32>
}

// -----

/// Bias, then residual, then activation, all three into one node.
// CHECK-LABEL: func.func @conv_bias_residual_relu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[Z:[^:]*]]: tensor<1x3x4x4xf32>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}>
// CHECK: %[[Y:.*]] = "onnx.FusedConv"(%[[X]], %{{.*}}, %[[B]], %[[Z]]) <{activation = "Relu"
// CHECK-NEXT: return %[[Y]]
func.func @conv_bias_residual_relu(%x: tensor<1x2x4x4xf32>, %z: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %bias = "onnx.Constant"() {value = dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>} : () -> tensor<3x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %a = "onnx.Add"(%c, %bias) : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %s = "onnx.Add"(%a, %z) : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %r = "onnx.Relu"(%s) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// -----

/// Gemm with C, then Relu: the Gemm keeps C and its attributes.
// CHECK-LABEL: func.func @gemm_relu(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<4x3xf32>, %[[C:[^:]*]]: tensor<1x4xf32>
// CHECK-DAG: %[[NONE:.*]] = onnx.NoValue
// CHECK: %[[Y:.*]] = "onnx.FusedGemm"(%[[A]], %[[B]], %[[C]], %[[NONE]]) <{activation = "Relu", alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, {{.*}}transB = 1 : i64}>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_relu(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %g = "onnx.Gemm"(%a, %b, %c) {alpha = 0.5 : f32, beta = 2.0 : f32, transB = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %r = "onnx.Relu"(%g) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

/// Gemm without C: a constant bias that broadcasts to [M, N] becomes C, and
/// beta becomes 1 (the bias is added as it is). HardSigmoid keeps its
/// alpha and beta as params.
// CHECK-LABEL: func.func @gemm_bias_hardsigmoid(
// CHECK: %[[BIAS:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>}>
// CHECK: "onnx.FusedGemm"(%{{.*}}, %{{.*}}, %[[BIAS]], %{{.*}}) <{activation = "HardSigmoid", activation_params = array<f32: 2.500000e-01, 5.000000e-01>, alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32
// CHECK-NOT: onnx.Add
func.func @gemm_bias_hardsigmoid(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %bias = "onnx.Constant"() {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %g = "onnx.Gemm"(%a, %b, %none) {beta = 3.0 : f32} : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  %s = "onnx.Add"(%g, %bias) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %r = "onnx.HardSigmoid"(%s) {alpha = 0.25 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

/// MatMul of rank 3 with a bias along the last dim and Gelu: a FusedMatMul
/// (not a Gemm, which needs rank 2); the tanh Gelu is "GeluTanh".
// CHECK-LABEL: func.func @matmul3_bias_gelu(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x3x8xf32>, %[[B:[^:]*]]: tensor<8x4xf32>
// CHECK-DAG: %[[BIAS:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}>
// CHECK-DAG: %[[NONE:.*]] = onnx.NoValue
// CHECK: %[[Y:.*]] = "onnx.FusedMatMul"(%[[A]], %[[B]], %[[BIAS]], %[[NONE]]) <{activation = "Gelu"}> : (tensor<2x3x8xf32>, tensor<8x4xf32>, tensor<4xf32>, none) -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @matmul3_bias_gelu_tanh(
// CHECK: "onnx.FusedMatMul"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "GeluTanh"}> : (tensor<2x3x8xf32>, tensor<8x4xf32>, tensor<1x1x4xf32>, none)
func.func @matmul3_bias_gelu(%a: tensor<2x3x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x3x4xf32> {
  %bias = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x3x8xf32>, tensor<8x4xf32>) -> tensor<2x3x4xf32>
  %s = "onnx.Add"(%m, %bias) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %g = "onnx.Gelu"(%s) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %g : tensor<2x3x4xf32>
}
func.func @matmul3_bias_gelu_tanh(%a: tensor<2x3x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x3x4xf32> {
  %bias = "onnx.Constant"() {value = dense<1.0> : tensor<1x1x4xf32>} : () -> tensor<1x1x4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x3x8xf32>, tensor<8x4xf32>) -> tensor<2x3x4xf32>
  %s = "onnx.Add"(%bias, %m) : (tensor<1x1x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %g = "onnx.Gelu"(%s) {approximate = "tanh"} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %g : tensor<2x3x4xf32>
}

// -----

/// A transformer feed-forward output with symbolic batch and sequence:
/// MatMul, bias, then the residual (the block input, the same symbolic
/// dims), into one FusedMatMul with Bias and Z.
// CHECK-LABEL: func.func @matmul_symbolic_bias_residual(
// CHECK-SAME: %[[A:[^:]*]]: tensor<?x?x8xf32>{{.*}}, %[[Z:[^:]*]]: tensor<?x?x4xf32>
// CHECK: %[[Y:.*]] = "onnx.FusedMatMul"(%[[A]], %{{.*}}, %{{.*}}, %[[Z]]) <{activation = ""}> : (tensor<?x?x8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @matmul_symbolic_bias_residual(%a: tensor<?x?x8xf32> {onnx.dim_params = ["batch", "seq", ""]}, %z: tensor<?x?x4xf32> {onnx.dim_params = ["batch", "seq", ""]}) -> tensor<?x?x4xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %bias = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %m = "onnx.MatMul"(%a, %w) : (tensor<?x?x8xf32>, tensor<8x4xf32>) -> tensor<?x?x4xf32>
  %s = "onnx.Add"(%m, %bias) : (tensor<?x?x4xf32>, tensor<4xf32>) -> tensor<?x?x4xf32>
  %r = "onnx.Add"(%s, %z) : (tensor<?x?x4xf32>, tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
  return %r : tensor<?x?x4xf32>
}

// -----

/// Relu6 as Clip(0, 6) with constant bounds: params [min, max]. An absent
/// min is -inf.
// CHECK-LABEL: func.func @conv_clip_relu6(
// CHECK: "onnx.FusedConv"{{.*}}<{activation = "Clip", activation_params = array<f32: 0.000000e+00, 6.000000e+00>
// CHECK-NOT: onnx.Clip
// CHECK-LABEL: func.func @conv_clip_max_only(
// CHECK: "onnx.FusedConv"{{.*}}<{activation = "Clip", activation_params = array<f32: 0xFF800000, 6.000000e+00>
// CHECK-NOT: onnx.Clip
func.func @conv_clip_relu6(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %lo = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %hi = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %r = "onnx.Clip"(%c, %lo, %hi) : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}
func.func @conv_clip_max_only(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %hi = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %r = "onnx.Clip"(%c, %none, %hi) : (tensor<1x3x4x4xf32>, none, tensor<f32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// -----

/// LeakyRelu keeps its alpha.
// CHECK-LABEL: func.func @gemm_leaky_relu(
// CHECK: "onnx.FusedGemm"{{.*}}<{activation = "LeakyRelu", activation_params = array<f32: 1.000000e-01>
// CHECK-NOT: onnx.LeakyRelu
func.func @gemm_leaky_relu(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %g = "onnx.Gemm"(%a, %b, %none) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  %r = "onnx.LeakyRelu"(%g) {alpha = 0.1 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

/// HardSwish after a MatMul without bias.
// CHECK-LABEL: func.func @matmul_hardswish(
// CHECK: "onnx.FusedMatMul"{{.*}}<{activation = "HardSwish"}>
// CHECK-NOT: onnx.HardSwish
func.func @matmul_hardswish(%a: tensor<2x3x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x3x4xf32> {
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x3x8xf32>, tensor<8x4xf32>) -> tensor<2x3x4xf32>
  %r = "onnx.HardSwish"(%m) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

/// SiLU (as onnx-recognize writes it) after a Conv, f64.
// CHECK-LABEL: func.func @conv_silu(
// CHECK: "onnx.FusedConv"{{.*}}<{activation = "SiLU"{{.*}} -> tensor<1x3x4x4xf64>
// CHECK-NOT: onnx.SiLU
func.func @conv_silu(%x: tensor<1x2x4x4xf64>) -> tensor<1x3x4x4xf64> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf64>} : () -> tensor<3x2x1x1xf64>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf64>, tensor<3x2x1x1xf64>, none) -> tensor<1x3x4x4xf64>
  %r = "onnx.SiLU"(%c) : (tensor<1x3x4x4xf64>) -> tensor<1x3x4x4xf64>
  return %r : tensor<1x3x4x4xf64>
}

// -----

/// Nothing is absorbed after the activation: the Tanh goes in, the Relu
/// after it stays.
// CHECK-LABEL: func.func @stop_after_activation(
// CHECK: %[[F:.*]] = "onnx.FusedGemm"{{.*}}<{activation = "Tanh"
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[F]])
// CHECK-NEXT: return %[[R]]
func.func @stop_after_activation(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %g = "onnx.Gemm"(%a, %b, %c) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %t = "onnx.Tanh"(%g) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = "onnx.Relu"(%t) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

/// A bias after the residual is out of order: the residual goes in, the
/// bias Add stays.
// CHECK-LABEL: func.func @bias_after_residual(
// CHECK: %[[F:.*]] = "onnx.FusedConv"(%{{.*}}, %{{.*}}, %{{.*}}, %{{[^)]*}}) <{
// CHECK: %[[A:.*]] = "onnx.Add"(%[[F]], %{{.*}})
// CHECK-NEXT: return %[[A]]
func.func @bias_after_residual(%x: tensor<1x2x4x4xf32>, %z: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %bias = "onnx.Constant"() {value = dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>} : () -> tensor<3x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %s = "onnx.Add"(%c, %z) : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %a = "onnx.Add"(%s, %bias) : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %a : tensor<1x3x4x4xf32>
}

// -----

/// The Conv's result has two uses (a Neg and the Relu): nothing fuses.
// CHECK-LABEL: func.func @negative_two_uses(
// CHECK: %[[C:.*]] = "onnx.Conv"
// CHECK: %[[N:.*]] = "onnx.Neg"(%[[C]])
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[C]])
// CHECK-NEXT: return %[[N]], %[[R]]
// CHECK-NOT: onnx.Fused
func.func @negative_two_uses(%x: tensor<1x2x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %n = "onnx.Neg"(%c) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %n, %r : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

/// The bias Add's result has two uses: the bias is absorbed (its Add is the
/// last node, whose uses all move to the fused node) but not the Relu.
// CHECK-LABEL: func.func @negative_intermediate_two_uses(
// CHECK: %[[F:.*]] = "onnx.FusedConv"{{.*}}<{activation = "",
// CHECK: %[[N:.*]] = "onnx.Neg"(%[[F]])
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[F]])
// CHECK-NEXT: return %[[N]], %[[R]]
func.func @negative_intermediate_two_uses(%x: tensor<1x2x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %bias = "onnx.Constant"() {value = dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>} : () -> tensor<3x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %a = "onnx.Add"(%c, %bias) : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %n = "onnx.Neg"(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %r = "onnx.Relu"(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %n, %r : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

/// A bias that changes the result's shape is no bias: [2, 3, 1, 1] makes
/// the Conv's [1, 3, 4, 4] a [2, 3, 4, 4], and a MatMul's [1, 4] plus a
/// [3, 4] C is [3, 4], no Gemm.
// CHECK-LABEL: func.func @negative_bias_changes_shape(
// CHECK: %[[C:.*]] = "onnx.Conv"
// CHECK: "onnx.Add"(%[[C]], %{{.*}}) : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x4x4xf32>
// CHECK-NOT: onnx.Fused
// CHECK-LABEL: func.func @negative_c_changes_shape(
// CHECK: %[[M:.*]] = "onnx.MatMul"
// CHECK: "onnx.Add"(%[[M]], %{{.*}})
// CHECK-NOT: onnx.Gemm
func.func @negative_bias_changes_shape(%x: tensor<1x2x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %bias = "onnx.Constant"() {value = dense<1.0> : tensor<2x3x1x1xf32>} : () -> tensor<2x3x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %a = "onnx.Add"(%c, %bias) : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  return %a : tensor<2x3x4x4xf32>
}
func.func @negative_c_changes_shape(%a: tensor<1x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %m = "onnx.MatMul"(%a, %b) : (tensor<1x3xf32>, tensor<3x4xf32>) -> tensor<1x4xf32>
  %y = "onnx.Add"(%m, %c) : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

/// The residual is computed from the Conv's result (which then has two
/// uses): it cannot be an input of the node that computes the Conv.
// CHECK-LABEL: func.func @negative_residual_depends_on_anchor(
// CHECK: %[[C:.*]] = "onnx.Conv"
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[C]])
// CHECK: "onnx.Add"(%[[C]], %[[R]])
// CHECK-NOT: onnx.Fused
func.func @negative_residual_depends_on_anchor(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %s = "onnx.Add"(%c, %r) : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %s : tensor<1x3x4x4xf32>
}

// -----

/// A residual whose dims cannot be proven equal to the result's (dynamic,
/// no symbolic names) is not absorbed, nor made into a Gemm's C.
// CHECK-LABEL: func.func @negative_residual_unknown_dims(
// CHECK: %[[M:.*]] = "onnx.MatMul"
// CHECK: "onnx.Add"(%[[M]], %{{.*}})
// CHECK-NOT: onnx.Gemm
// CHECK-NOT: onnx.Fused
func.func @negative_residual_unknown_dims(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>, %z: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %m = "onnx.MatMul"(%a, %b) : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  %y = "onnx.Add"(%m, %z) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

/// Clip with a bound that is not a constant is no activation of an epilogue.
// CHECK-LABEL: func.func @negative_clip_bound_not_constant(
// CHECK: %[[C:.*]] = "onnx.Conv"
// CHECK: "onnx.Clip"(%[[C]],
// CHECK-NOT: onnx.Fused
func.func @negative_clip_bound_not_constant(%x: tensor<1x2x4x4xf32>, %hi: tensor<f32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf32>} : () -> tensor<3x2x1x1xf32>
  %lo = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  %r = "onnx.Clip"(%c, %lo, %hi) : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// -----

/// A rank-3 MatMul plus a residual of its shape is not a Gemm (Gemm is
/// rank 2): it becomes a FusedMatMul with Z.
// CHECK-LABEL: func.func @negative_matmul_rank3_not_gemm(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x3x8xf32>, %[[B:[^:]*]]: tensor<8x4xf32>, %[[Z:[^:]*]]: tensor<2x3x4xf32>
// CHECK-NOT: onnx.Gemm
// CHECK: "onnx.FusedMatMul"(%[[A]], %[[B]], %{{.*}}, %[[Z]])
func.func @negative_matmul_rank3_not_gemm(%a: tensor<2x3x8xf32>, %b: tensor<8x4xf32>, %z: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x3x8xf32>, tensor<8x4xf32>) -> tensor<2x3x4xf32>
  %y = "onnx.Add"(%m, %z) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

/// Integer MatMuls stay as they are: no Gemm, no fused node.
// CHECK-LABEL: func.func @negative_integer(
// CHECK: %[[M:.*]] = "onnx.MatMul"
// CHECK: %[[S:.*]] = "onnx.Add"(%[[M]], %{{.*}})
// CHECK: "onnx.Relu"(%[[S]])
// CHECK-NOT: onnx.Gemm
// CHECK-NOT: onnx.Fused
func.func @negative_integer(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  %bias = "onnx.Constant"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : () -> tensor<4xi32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  %s = "onnx.Add"(%m, %bias) : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %r = "onnx.Relu"(%s) : (tensor<2x4xi32>) -> tensor<2x4xi32>
  return %r : tensor<2x4xi32>
}

// -----

/// The activation params are f32: an f64 Clip bound that f32 cannot hold
/// exactly (0.1) keeps the Clip; one it can (0.5) is fused.
// CHECK-LABEL: func.func @negative_clip_bound_not_f32(
// CHECK: %[[C:.*]] = "onnx.Conv"
// CHECK: "onnx.Clip"(%[[C]],
// CHECK-NOT: onnx.Fused
// CHECK-LABEL: func.func @clip_bound_f32_exact(
// CHECK: "onnx.FusedConv"{{.*}}<{activation = "Clip", activation_params = array<f32: 5.000000e-01, 0x7F800000>
func.func @negative_clip_bound_not_f32(%x: tensor<1x2x4x4xf64>) -> tensor<1x3x4x4xf64> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf64>} : () -> tensor<3x2x1x1xf64>
  %lo = "onnx.Constant"() {value = dense<0.1> : tensor<f64>} : () -> tensor<f64>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf64>, tensor<3x2x1x1xf64>, none) -> tensor<1x3x4x4xf64>
  %r = "onnx.Clip"(%c, %lo, %none) : (tensor<1x3x4x4xf64>, tensor<f64>, none) -> tensor<1x3x4x4xf64>
  return %r : tensor<1x3x4x4xf64>
}
func.func @clip_bound_f32_exact(%x: tensor<1x2x4x4xf64>) -> tensor<1x3x4x4xf64> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x2x1x1xf64>} : () -> tensor<3x2x1x1xf64>
  %lo = "onnx.Constant"() {value = dense<0.5> : tensor<f64>} : () -> tensor<f64>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf64>, tensor<3x2x1x1xf64>, none) -> tensor<1x3x4x4xf64>
  %r = "onnx.Clip"(%c, %lo, %none) : (tensor<1x3x4x4xf64>, tensor<f64>, none) -> tensor<1x3x4x4xf64>
  return %r : tensor<1x3x4x4xf64>
}
