// RUN: onnxcc-opt %s --split-input-file --onnx-recognize | FileCheck %s
// Running the pass twice gives the same result: what it made matches nothing.
// RUN: onnxcc-opt %s --split-input-file --onnx-recognize --onnx-recognize | FileCheck %s

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// PyTorch's export before opset 17: Pow(d, 2), Div by Sqrt(var + eps), then
/// the weight and the bias.
// CHECK-LABEL: func.func @layernorm_torch(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<[5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00]>
// CHECK: %[[Y:[^,]*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[X]], %[[W]], %[[B]]) <{axis = 2 : i64, epsilon = 9.99999974E-6 : f32, stash_type = 1 : i64}> : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, none, none)
// CHECK-NEXT: return %[[Y]]
func.func @layernorm_torch(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %axes = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = "onnx.Constant"() {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %w = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %b = "onnx.Constant"() {value = dense<[0.5, 0.0, 0.0, 0.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %sd = "onnx.Sqrt"(%ve) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %n = "onnx.Div"(%d, %sd) : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %s = "onnx.Mul"(%n, %w) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %y = "onnx.Add"(%s, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

/// Mul(d, d), Mul by Reciprocal(Sqrt(eps + var)) over the two trailing axes,
/// no weight or bias: Scale is ones over the normalized dims [3, 4], axis 1.
// CHECK-LABEL: func.func @layernorm_reciprocal_two_axes(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-DAG: %[[ONES:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<3x4xf32>}>
// CHECK-DAG: %[[NONE:.*]] = onnx.NoValue
// CHECK: %[[Y:[^,]*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[X]], %[[ONES]], %[[NONE]]) <{axis = 1 : i64, epsilon = 1.000000e-03 : f32
// CHECK-NOT: onnx.ReduceMean
// CHECK: return %[[Y]]
func.func @layernorm_reciprocal_two_axes(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %axes = "onnx.Constant"() {value = dense<[2, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %eps = "onnx.Constant"() {value = dense<1.0E-3> : tensor<1xf32>} : () -> tensor<1xf32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %sq = "onnx.Mul"(%d, %d) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %ve = "onnx.Add"(%eps, %var) : (tensor<1xf32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %sd = "onnx.Sqrt"(%ve) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r = "onnx.Reciprocal"(%sd) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %y = "onnx.Mul"(%r, %d) : (tensor<2x1x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

/// Symbolic leading dims; a weight but no bias.
// CHECK-LABEL: func.func @layernorm_symbolic_scale_only(
// CHECK: %[[Y:[^,]*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 2 : i64{{.*}}}> : (tensor<?x?x8xf32>, tensor<8xf32>, none) -> (tensor<?x?x8xf32>, none, none)
// CHECK-NEXT: return %[[Y]]
func.func @layernorm_symbolic_scale_only(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %axes = "onnx.Constant"() {value = dense<[2]> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = "onnx.Constant"() {value = dense<1.0E-5> : tensor<f32>} : () -> tensor<f32>
  %w = "onnx.Constant"() {value = dense<2.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<?x?x8xf32>, tensor<1xi64>) -> tensor<?x?x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<?x?x8xf32>, tensor<?x?x1xf32>) -> tensor<?x?x8xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<?x?x8xf32>, tensor<f32>) -> tensor<?x?x8xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<?x?x8xf32>, tensor<1xi64>) -> tensor<?x?x1xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<?x?x1xf32>, tensor<f32>) -> tensor<?x?x1xf32>
  %sd = "onnx.Sqrt"(%ve) : (tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %n = "onnx.Div"(%d, %sd) : (tensor<?x?x8xf32>, tensor<?x?x1xf32>) -> tensor<?x?x8xf32>
  %y = "onnx.Mul"(%w, %n) : (tensor<8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

/// A bias [3, 1] varies along dim 1, which is not normalized: the
/// LayerNormalization stops before it and the Add stays.
// CHECK-LABEL: func.func @layernorm_bias_not_normalized_axes(
// CHECK: %[[Y:[^,]*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"
// CHECK: %[[R:.*]] = "onnx.Add"(%[[Y]], %{{.*}})
// CHECK-NEXT: return %[[R]]
func.func @layernorm_bias_not_normalized_axes(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %axes = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = "onnx.Constant"() {value = dense<1.0E-5> : tensor<f32>} : () -> tensor<f32>
  %b = "onnx.Constant"() {value = dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>} : () -> tensor<3x1xf32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %sd = "onnx.Sqrt"(%ve) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %n = "onnx.Div"(%d, %sd) : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %y = "onnx.Add"(%n, %b) : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

/// The statistics over axis 1 of [2, 3, 4] are not over trailing axes.
// CHECK-LABEL: func.func @negative_layernorm_non_trailing_axis(
// CHECK-NOT: onnx.LayerNormalization
// CHECK: onnx.Sqrt
func.func @negative_layernorm_non_trailing_axis(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %axes = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = "onnx.Constant"() {value = dense<1.0E-5> : tensor<f32>} : () -> tensor<f32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
  %sd = "onnx.Sqrt"(%ve) : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %y = "onnx.Div"(%d, %sd) : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

/// The variance is also returned: the chain cannot go.
// CHECK-LABEL: func.func @negative_layernorm_extra_use(
// CHECK-NOT: onnx.LayerNormalization
// CHECK: onnx.Sqrt
func.func @negative_layernorm_extra_use(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>) {
  %axes = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = "onnx.Constant"() {value = dense<1.0E-5> : tensor<f32>} : () -> tensor<f32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %sd = "onnx.Sqrt"(%ve) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "onnx.Div"(%d, %sd) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %y, %var : tensor<2x4xf32>, tensor<2x1xf32>
}

// -----

/// Pow(d, 3) is not a variance.
// CHECK-LABEL: func.func @negative_layernorm_wrong_power(
// CHECK-NOT: onnx.LayerNormalization
// CHECK: onnx.Sqrt
func.func @negative_layernorm_wrong_power(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %axes = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %three = "onnx.Constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %eps = "onnx.Constant"() {value = dense<1.0E-5> : tensor<f32>} : () -> tensor<f32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %sq = "onnx.Pow"(%d, %three) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %sd = "onnx.Sqrt"(%ve) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "onnx.Div"(%d, %sd) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// PyTorch's export: ((x * (Erf(x / 1.4142135) + 1)) * 0.5.
// CHECK-LABEL: func.func @gelu_erf_torch(
// CHECK-SAME: %[[X:.*]]: tensor<?x8xf32>
// CHECK-NEXT: %[[Y:.*]] = "onnx.Gelu"(%[[X]]) <{approximate = "none"}> : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_erf_torch(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %sqrt2 = "onnx.Constant"() {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %a = "onnx.Div"(%x, %sqrt2) : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
  %e = "onnx.Erf"(%a) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %p = "onnx.Add"(%e, %one) : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
  %m = "onnx.Mul"(%x, %p) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = "onnx.Mul"(%m, %half) : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

/// The other order: (0.5 * x) * (1 + Erf(0.70710678 * x)).
// CHECK-LABEL: func.func @gelu_erf_half_first(
// CHECK-NEXT: %[[Y:.*]] = "onnx.Gelu"(%{{.*}}) <{approximate = "none"}>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_erf_half_first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %rsqrt2 = "onnx.Constant"() {value = dense<0.707106769> : tensor<f32>} : () -> tensor<f32>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %half = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %h = "onnx.Mul"(%half, %x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %a = "onnx.Mul"(%rsqrt2, %x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %e = "onnx.Erf"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %p = "onnx.Add"(%one, %e) : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.Mul"(%h, %p) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

/// The tanh form with Pow(x, 3): x * 0.5 * (1 + Tanh(0.7978846 * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @gelu_tanh_pow(
// CHECK-NEXT: %[[Y:.*]] = "onnx.Gelu"(%{{.*}}) <{approximate = "tanh"}>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_tanh_pow(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = "onnx.Constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %c = "onnx.Constant"() {value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %k = "onnx.Constant"() {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %x3 = "onnx.Pow"(%x, %three) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %t = "onnx.Mul"(%c, %x3) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %s = "onnx.Add"(%x, %t) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u = "onnx.Mul"(%s, %k) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %th = "onnx.Tanh"(%u) : (tensor<4xf32>) -> tensor<4xf32>
  %p = "onnx.Add"(%th, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %h = "onnx.Mul"(%x, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %y = "onnx.Mul"(%h, %p) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

/// The tanh form with x * x * x and the 0.5 last.
// CHECK-LABEL: func.func @gelu_tanh_cube(
// CHECK-NEXT: %[[Y:.*]] = "onnx.Gelu"(%{{.*}}) <{approximate = "tanh"}>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_tanh_cube(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c = "onnx.Constant"() {value = dense<0.044715> : tensor<f64>} : () -> tensor<f64>
  %k = "onnx.Constant"() {value = dense<0.79788456080286541> : tensor<f64>} : () -> tensor<f64>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<f64>} : () -> tensor<f64>
  %half = "onnx.Constant"() {value = dense<0.5> : tensor<f64>} : () -> tensor<f64>
  %x2 = "onnx.Mul"(%x, %x) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %x3 = "onnx.Mul"(%x2, %x) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %t = "onnx.Mul"(%x3, %c) : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %s = "onnx.Add"(%t, %x) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %u = "onnx.Mul"(%k, %s) : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
  %th = "onnx.Tanh"(%u) : (tensor<4xf64>) -> tensor<4xf64>
  %p = "onnx.Add"(%one, %th) : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
  %m = "onnx.Mul"(%p, %x) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %y = "onnx.Mul"(%m, %half) : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

/// 0.6 is not 0.5.
// CHECK-LABEL: func.func @negative_gelu_wrong_half(
// CHECK-NOT: onnx.Gelu
// CHECK: onnx.Erf
func.func @negative_gelu_wrong_half(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = "onnx.Constant"() {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "onnx.Constant"() {value = dense<0.6> : tensor<f32>} : () -> tensor<f32>
  %a = "onnx.Div"(%x, %sqrt2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e = "onnx.Erf"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %p = "onnx.Add"(%e, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m = "onnx.Mul"(%x, %p) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.Mul"(%m, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

/// 1.5 is not sqrt(2).
// CHECK-LABEL: func.func @negative_gelu_wrong_sqrt2(
// CHECK-NOT: onnx.Gelu
// CHECK: onnx.Erf
func.func @negative_gelu_wrong_sqrt2(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = "onnx.Constant"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %a = "onnx.Div"(%x, %sqrt2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e = "onnx.Erf"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %p = "onnx.Add"(%e, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m = "onnx.Mul"(%x, %p) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.Mul"(%m, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

/// The Erf's result is also returned.
// CHECK-LABEL: func.func @negative_gelu_extra_use(
// CHECK-NOT: onnx.Gelu
// CHECK: onnx.Erf
func.func @negative_gelu_extra_use(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sqrt2 = "onnx.Constant"() {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %a = "onnx.Div"(%x, %sqrt2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e = "onnx.Erf"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %p = "onnx.Add"(%e, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %m = "onnx.Mul"(%x, %p) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.Mul"(%m, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %y, %e : tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// SiLU
//===----------------------------------------------------------------------===//

/// Both orders.
// CHECK-LABEL: func.func @silu(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>
// CHECK-NEXT: %[[A:.*]] = "onnx.SiLU"(%[[X]]) : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: %[[B:.*]] = "onnx.SiLU"(%[[A]]) : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: return %[[B]]
func.func @silu(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = "onnx.Sigmoid"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %a = "onnx.Mul"(%x, %s) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %t = "onnx.Sigmoid"(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %b = "onnx.Mul"(%t, %a) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

/// HardSwish: x * HardSigmoid(x, 1/6, 0.5), both orders (torch 1.13 at
/// opset 13); other alpha or beta, another operand, or a HardSigmoid used
/// again stay as they are.
// CHECK-LABEL: func.func @hardswish(
// CHECK-SAME: %[[X:.*]]: tensor<2x8xf32>, %[[Y:.*]]: tensor<2x8xf32>
// CHECK-NEXT: %[[A:.*]] = "onnx.HardSwish"(%[[X]])
// CHECK-NEXT: %[[B:.*]] = "onnx.HardSwish"(%[[A]])
// CHECK-NEXT: %[[H:.*]] = "onnx.HardSigmoid"(%[[B]]) <{alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}>
// CHECK-NEXT: %[[C:.*]] = "onnx.Mul"(%[[B]], %[[H]])
// CHECK-NEXT: %[[G:.*]] = "onnx.HardSigmoid"(%[[Y]])
// CHECK-NEXT: %[[D:.*]] = "onnx.Mul"(%[[C]], %[[G]])
// CHECK-NEXT: %[[K:.*]] = "onnx.HardSigmoid"(%[[D]])
// CHECK-NEXT: %[[E:.*]] = "onnx.Mul"(%[[D]], %[[K]])
// CHECK-NEXT: return %[[E]], %[[K]]
func.func @hardswish(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %h = "onnx.HardSigmoid"(%x) {alpha = 0.16666667 : f32, beta = 0.5 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = "onnx.Mul"(%x, %h) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %h2 = "onnx.HardSigmoid"(%a) {alpha = 0.16666667 : f32, beta = 0.5 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %b = "onnx.Mul"(%h2, %a) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %h3 = "onnx.HardSigmoid"(%b) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %c = "onnx.Mul"(%b, %h3) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %g = "onnx.HardSigmoid"(%y) {alpha = 0.16666667 : f32, beta = 0.5 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %d = "onnx.Mul"(%c, %g) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %k = "onnx.HardSigmoid"(%d) {alpha = 0.16666667 : f32, beta = 0.5 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %e = "onnx.Mul"(%d, %k) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %e, %k : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

/// x * Sigmoid(y) is not SiLU; nor is x * Sigmoid(x) when the Sigmoid is
/// used again.
// CHECK-LABEL: func.func @negative_silu(
// CHECK-NOT: onnx.SiLU
// CHECK: return
func.func @negative_silu(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s = "onnx.Sigmoid"(%y) : (tensor<4xf32>) -> tensor<4xf32>
  %a = "onnx.Mul"(%x, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = "onnx.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = "onnx.Mul"(%x, %t) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Scaled dot-product attention
//===----------------------------------------------------------------------===//

/// The scores divided by 2 (scale 0.5), a mask [3, 3] broadcast over the batch.
// CHECK-LABEL: func.func @attention_div_mask(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x3x4xf32>, %[[V:[^:]*]]: tensor<2x3x5xf32>, %[[M:[^:]*]]: tensor<3x3xf32>
// CHECK-NEXT: %[[Y:.*]] = "onnx.ScaledDotProductAttention"(%[[Q]], %[[K]], %[[V]], %[[M]]) <{scale = 5.000000e-01 : f32}> : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x5xf32>, tensor<3x3xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @attention_div_mask(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x5xf32>, %m: tensor<3x3xf32>) -> tensor<2x3x5xf32> {
  %c = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %kt = "onnx.Transpose"(%k) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %s = "onnx.MatMul"(%q, %kt) : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %d = "onnx.Div"(%s, %c) : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  %a = "onnx.Add"(%d, %m) : (tensor<2x3x3xf32>, tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %p = "onnx.Softmax"(%a) {axis = -1 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<2x3x3xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

/// PyTorch 1.13's MultiheadAttention: q / sqrt(8) before the MatMul, K^T as
/// Transpose(k [S, B*H, 8], perm [1, 2, 0]); K becomes Transpose(k, [1, 0, 2]).
/// scale = 1 / 2.828427 = 0.3535534.
// CHECK-LABEL: func.func @attention_torch_mha(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x?x8xf32>, %[[K0:[^:]*]]: tensor<?x?x8xf32>, %[[V:[^:]*]]: tensor<?x?x8xf32>
// CHECK-DAG: %[[NONE:.*]] = onnx.NoValue
// CHECK-DAG: %[[K:.*]] = "onnx.Transpose"(%[[K0]]) <{perm = array<i64: 1, 0, 2>}> : (tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
// CHECK: %[[Y:.*]] = "onnx.ScaledDotProductAttention"(%[[Q]], %[[K]], %[[V]], %[[NONE]]) <{scale = 0.35355{{[0-9]*}} : f32}>
// CHECK-NEXT: return %[[Y]]
func.func @attention_torch_mha(%q: tensor<?x?x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %c = "onnx.Constant"() {value = dense<2.82842708> : tensor<f32>} : () -> tensor<f32>
  %qs = "onnx.Div"(%q, %c) : (tensor<?x?x8xf32>, tensor<f32>) -> tensor<?x?x8xf32>
  %kt = "onnx.Transpose"(%k) {perm = array<i64: 1, 2, 0>} : (tensor<?x?x8xf32>) -> tensor<?x8x?xf32>
  %s = "onnx.MatMul"(%qs, %kt) : (tensor<?x?x8xf32>, tensor<?x8x?xf32>) -> tensor<?x?x?xf32>
  %p = "onnx.Softmax"(%s) {axis = -1 : i64} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<?x?x?xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

/// Rank 4, the scale a Mul by 0.125 on the left, the mask on the left of the
/// Add, Softmax's axis written as 3.
// CHECK-LABEL: func.func @attention_rank4_mul(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x3x8xf32>, %[[K:[^:]*]]: tensor<1x2x3x8xf32>, %[[V:[^:]*]]: tensor<1x2x3x8xf32>, %[[M:[^:]*]]: tensor<1x1x1x3xf32>
// CHECK-NEXT: %[[Y:.*]] = "onnx.ScaledDotProductAttention"(%[[Q]], %[[K]], %[[V]], %[[M]]) <{scale = 1.250000e-01 : f32}>
// CHECK-NEXT: return %[[Y]]
func.func @attention_rank4_mul(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %m: tensor<1x1x1x3xf32>) -> tensor<1x2x3x8xf32> {
  %c = "onnx.Constant"() {value = dense<0.125> : tensor<1xf32>} : () -> tensor<1xf32>
  %kt = "onnx.Transpose"(%k) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x8xf32>) -> tensor<1x2x8x3xf32>
  %s = "onnx.MatMul"(%q, %kt) : (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) -> tensor<1x2x3x3xf32>
  %d = "onnx.Mul"(%c, %s) : (tensor<1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %a = "onnx.Add"(%m, %d) : (tensor<1x1x1x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = "onnx.Softmax"(%a) {axis = 3 : i64} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<1x2x3x3xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  return %y : tensor<1x2x3x8xf32>
}

// -----

/// Softmax over axis 1 is not attention.
// CHECK-LABEL: func.func @negative_attention_softmax_axis(
// CHECK-NOT: onnx.ScaledDotProductAttention
// CHECK: onnx.Softmax
func.func @negative_attention_softmax_axis(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %kt = "onnx.Transpose"(%k) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %s = "onnx.MatMul"(%q, %kt) : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %p = "onnx.Softmax"(%s) {axis = 1 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<2x3x3xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

/// perm [1, 0, 2] keeps k's last dim last: it is not contracted over.
// CHECK-LABEL: func.func @negative_attention_transpose(
// CHECK-NOT: onnx.ScaledDotProductAttention
// CHECK: onnx.Softmax
func.func @negative_attention_transpose(%q: tensor<3x3x3xf32>, %k: tensor<3x3x3xf32>, %v: tensor<3x3x3xf32>) -> tensor<3x3x3xf32> {
  %kt = "onnx.Transpose"(%k) {perm = array<i64: 1, 0, 2>} : (tensor<3x3x3xf32>) -> tensor<3x3x3xf32>
  %s = "onnx.MatMul"(%q, %kt) : (tensor<3x3x3xf32>, tensor<3x3x3xf32>) -> tensor<3x3x3xf32>
  %p = "onnx.Softmax"(%s) {axis = -1 : i64} : (tensor<3x3x3xf32>) -> tensor<3x3x3xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<3x3x3xf32>, tensor<3x3x3xf32>) -> tensor<3x3x3xf32>
  return %y : tensor<3x3x3xf32>
}

// -----

/// The probabilities are also returned.
// CHECK-LABEL: func.func @negative_attention_extra_use(
// CHECK-NOT: onnx.ScaledDotProductAttention
// CHECK: onnx.Softmax
func.func @negative_attention_extra_use(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x3xf32>) {
  %kt = "onnx.Transpose"(%k) {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %s = "onnx.MatMul"(%q, %kt) : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %p = "onnx.Softmax"(%s) {axis = -1 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<2x3x3xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y, %p : tensor<2x3x5xf32>, tensor<2x3x3xf32>
}

// -----

/// What the pass makes is left as it is.
// CHECK-LABEL: func.func @fixpoint(
// CHECK-NEXT: "onnx.Gelu"
// CHECK-NEXT: "onnx.SiLU"
// CHECK-NEXT: "onnx.LayerNormalization"
// CHECK-NEXT: "onnx.ScaledDotProductAttention"
// CHECK-NEXT: return
func.func @fixpoint(%x: tensor<2x4x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x4xf32> {
  %g = "onnx.Gelu"(%x) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %f = "onnx.SiLU"(%g) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l, %m, %i = "onnx.LayerNormalization"(%f, %s, %b) : (tensor<2x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x4xf32>, none, none)
  %y = "onnx.ScaledDotProductAttention"(%l, %l, %l, %b) {scale = 0.5 : f32} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<4xf32>) -> tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// -----

/// Exporters share equal constants between chains: both LayerNorms read one
/// axes, exponent, eps, weight and bias, both GELUs one sqrt(2), 1 and 0.5.
/// Each chain is recognized, and the weight and bias both new ops read stay.
// CHECK-LABEL: func.func @shared_constants(
// CHECK-SAME: %[[X1:[^:]*]]: tensor<2x4xf32>, %[[X2:[^:]*]]: tensor<2x4xf32>
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<[5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00]>
// CHECK-DAG: %[[L1:[^,]*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[X1]], %[[W]], %[[B]])
// CHECK-DAG: %[[L2:[^,]*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[X2]], %[[W]], %[[B]])
// CHECK-DAG: %[[G1:.*]] = "onnx.Gelu"(%[[L1]])
// CHECK-DAG: %[[G2:.*]] = "onnx.Gelu"(%[[L2]])
// CHECK: return %[[G1]], %[[G2]]
// CHECK-NOT: onnx.Erf
func.func @shared_constants(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %axes = "onnx.Constant"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = "onnx.Constant"() {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %w = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %b = "onnx.Constant"() {value = dense<[0.5, 0.0, 0.0, 0.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %sqrt2 = "onnx.Constant"() {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>

  %mean1 = "onnx.ReduceMean"(%x1, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d1 = "onnx.Sub"(%x1, %mean1) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %sq1 = "onnx.Pow"(%d1, %two) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %var1 = "onnx.ReduceMean"(%sq1, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %ve1 = "onnx.Add"(%var1, %eps) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %sd1 = "onnx.Sqrt"(%ve1) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n1 = "onnx.Div"(%d1, %sd1) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %s1 = "onnx.Mul"(%n1, %w) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l1 = "onnx.Add"(%s1, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %a1 = "onnx.Div"(%l1, %sqrt2) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %e1 = "onnx.Erf"(%a1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %p1 = "onnx.Add"(%e1, %one) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %m1 = "onnx.Mul"(%l1, %p1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %y1 = "onnx.Mul"(%m1, %half) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>

  %mean2 = "onnx.ReduceMean"(%x2, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d2 = "onnx.Sub"(%x2, %mean2) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %sq2 = "onnx.Pow"(%d2, %two) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %var2 = "onnx.ReduceMean"(%sq2, %axes) : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %ve2 = "onnx.Add"(%var2, %eps) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %sd2 = "onnx.Sqrt"(%ve2) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n2 = "onnx.Div"(%d2, %sd2) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %s2 = "onnx.Mul"(%n2, %w) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l2 = "onnx.Add"(%s2, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %a2 = "onnx.Div"(%l2, %sqrt2) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %e2 = "onnx.Erf"(%a2) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %p2 = "onnx.Add"(%e2, %one) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %m2 = "onnx.Mul"(%l2, %p2) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %y2 = "onnx.Mul"(%m2, %half) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %y1, %y2 : tensor<2x4xf32>, tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// QLinearConv from the QDQ form of quantize_static
//===----------------------------------------------------------------------===//

// -----

/// DQ(x) and DQ(W) (per channel) into Conv with a DQ'd int32 bias of scale
/// x_scale * w_scale, then Relu and a uint8 QuantizeLinear of zero point 0
/// (which the Relu adds nothing to): one QLinearConv on the quantized values.
// CHECK-LABEL: func.func @qdq_conv_relu(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x5x5xui8>
// CHECK: %[[Y:.*]] = "onnx.QLinearConv"(%[[X]], {{.*}}) <{{{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}}}> : ({{.*}}tensor<2xi32>) -> tensor<1x2x5x5xui8>
// CHECK-NOT: onnx.Conv
// CHECK-NOT: onnx.Relu
// CHECK: return %[[Y]]
func.func @qdq_conv_relu(%x: tensor<1x4x5x5xui8>) -> tensor<1x2x5x5xui8> {
  %xs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = "onnx.Constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "onnx.Constant"() {value = dense<1> : tensor<2x4x3x3xi8>} : () -> tensor<2x4x3x3xi8>
  %ws = "onnx.Constant"() {value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %wz = "onnx.Constant"() {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
  %bq = "onnx.Constant"() {value = dense<[7, -9]> : tensor<2xi32>} : () -> tensor<2xi32>
  %bs = "onnx.Constant"() {value = dense<[0.125, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %ys = "onnx.Constant"() {value = dense<0.1> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %none = "onnx.NoValue"() : () -> none
  %xd = "onnx.DequantizeLinear"(%x, %xs, %xz) : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x5x5xf32>
  %wd = "onnx.DequantizeLinear"(%wq, %ws, %wz) {axis = 0 : i64} : (tensor<2x4x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x4x3x3xf32>
  %bd = "onnx.DequantizeLinear"(%bq, %bs, %none) {axis = 0 : i64} : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
  %c = "onnx.Conv"(%xd, %wd, %bd) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %y = "onnx.QuantizeLinear"(%r, %ys, %yz) : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xui8>
  return %y : tensor<1x2x5x5xui8>
}

// -----

/// A Relu the quantization does not imply (output zero point 5: Relu clamps
/// at 5, QLinearConv would not) and a bias whose scale is not x_scale *
/// w_scale: both stay float.
// CHECK-LABEL: func.func @qdq_conv_kept(
// CHECK: onnx.Conv
// CHECK: onnx.Relu
// CHECK: onnx.Conv
// CHECK-NOT: onnx.QLinearConv
func.func @qdq_conv_kept(%x: tensor<1x4x5x5xui8>) -> (tensor<1x2x5x5xui8>, tensor<1x2x5x5xui8>) {
  %xs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = "onnx.Constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "onnx.Constant"() {value = dense<1> : tensor<2x4x3x3xi8>} : () -> tensor<2x4x3x3xi8>
  %ws = "onnx.Constant"() {value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %wz = "onnx.Constant"() {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
  %bq = "onnx.Constant"() {value = dense<[7, -9]> : tensor<2xi32>} : () -> tensor<2xi32>
  %bs = "onnx.Constant"() {value = dense<[0.125, 0.3]> : tensor<2xf32>} : () -> tensor<2xf32>
  %ys = "onnx.Constant"() {value = dense<0.1> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<5> : tensor<ui8>} : () -> tensor<ui8>
  %xd = "onnx.DequantizeLinear"(%x, %xs, %xz) : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x5x5xf32>
  %wd = "onnx.DequantizeLinear"(%wq, %ws, %wz) {axis = 0 : i64} : (tensor<2x4x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x4x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%xd, %wd, %none) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>, none) -> tensor<1x2x5x5xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %y = "onnx.QuantizeLinear"(%r, %ys, %yz) : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xui8>
  %bd = "onnx.DequantizeLinear"(%bq, %bs, %none) {axis = 0 : i64} : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
  %c2 = "onnx.Conv"(%xd, %wd, %bd) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  %y2 = "onnx.QuantizeLinear"(%c2, %ys, %yz) : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xui8>
  return %y, %y2 : tensor<1x2x5x5xui8>, tensor<1x2x5x5xui8>
}
