// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// Unary elementwise ops keep the input's shape, symbolic batch included.
// CHECK-LABEL: func.func @unary_keeps_shape(
// CHECK-SAME: -> tensor<?x3xf32>
// CHECK: %[[V0:.*]] = "onnx.Abs"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V1:.*]] = "onnx.Acos"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V2:.*]] = "onnx.Acosh"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V3:.*]] = "onnx.Asin"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V4:.*]] = "onnx.Asinh"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V5:.*]] = "onnx.Atan"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V6:.*]] = "onnx.Atanh"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V7:.*]] = "onnx.Ceil"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V8:.*]] = "onnx.Celu"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V9:.*]] = "onnx.Cos"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V10:.*]] = "onnx.Cosh"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V11:.*]] = "onnx.Elu"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V12:.*]] = "onnx.Erf"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V13:.*]] = "onnx.Exp"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V14:.*]] = "onnx.Floor"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V15:.*]] = "onnx.HardSigmoid"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V16:.*]] = "onnx.HardSwish"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V17:.*]] = "onnx.Identity"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V18:.*]] = "onnx.LeakyRelu"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V19:.*]] = "onnx.Log"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V20:.*]] = "onnx.Neg"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V21:.*]] = "onnx.Reciprocal"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V22:.*]] = "onnx.Relu"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V23:.*]] = "onnx.Round"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V24:.*]] = "onnx.Selu"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V25:.*]] = "onnx.Sigmoid"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V26:.*]] = "onnx.Sign"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V27:.*]] = "onnx.Sin"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V28:.*]] = "onnx.Sinh"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V29:.*]] = "onnx.Softplus"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V30:.*]] = "onnx.Softsign"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V31:.*]] = "onnx.Sqrt"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V32:.*]] = "onnx.Tan"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V33:.*]] = "onnx.Tanh"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V34:.*]] = "onnx.ThresholdedRelu"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V35:.*]] = "onnx.Shrink"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V36:.*]] = "onnx.Softmax"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V37:.*]] = "onnx.LogSoftmax"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V38:.*]] = "onnx.Hardmax"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: %[[V39:.*]] = "onnx.MeanVarianceNormalization"(%{{.*}}){{.*}} -> tensor<?x3xf32>
// CHECK: return %[[V39]] : tensor<?x3xf32>
func.func @unary_keeps_shape(%a: tensor<?x3xf32> {onnx.dim_params = ["batch", ""]}) -> tensor<*xf32> {
  %v0 = "onnx.Abs"(%a) : (tensor<?x3xf32>) -> tensor<*xf32>
  %v1 = "onnx.Acos"(%v0) : (tensor<*xf32>) -> tensor<*xf32>
  %v2 = "onnx.Acosh"(%v1) : (tensor<*xf32>) -> tensor<*xf32>
  %v3 = "onnx.Asin"(%v2) : (tensor<*xf32>) -> tensor<*xf32>
  %v4 = "onnx.Asinh"(%v3) : (tensor<*xf32>) -> tensor<*xf32>
  %v5 = "onnx.Atan"(%v4) : (tensor<*xf32>) -> tensor<*xf32>
  %v6 = "onnx.Atanh"(%v5) : (tensor<*xf32>) -> tensor<*xf32>
  %v7 = "onnx.Ceil"(%v6) : (tensor<*xf32>) -> tensor<*xf32>
  %v8 = "onnx.Celu"(%v7) : (tensor<*xf32>) -> tensor<*xf32>
  %v9 = "onnx.Cos"(%v8) : (tensor<*xf32>) -> tensor<*xf32>
  %v10 = "onnx.Cosh"(%v9) : (tensor<*xf32>) -> tensor<*xf32>
  %v11 = "onnx.Elu"(%v10) : (tensor<*xf32>) -> tensor<*xf32>
  %v12 = "onnx.Erf"(%v11) : (tensor<*xf32>) -> tensor<*xf32>
  %v13 = "onnx.Exp"(%v12) : (tensor<*xf32>) -> tensor<*xf32>
  %v14 = "onnx.Floor"(%v13) : (tensor<*xf32>) -> tensor<*xf32>
  %v15 = "onnx.HardSigmoid"(%v14) : (tensor<*xf32>) -> tensor<*xf32>
  %v16 = "onnx.HardSwish"(%v15) : (tensor<*xf32>) -> tensor<*xf32>
  %v17 = "onnx.Identity"(%v16) : (tensor<*xf32>) -> tensor<*xf32>
  %v18 = "onnx.LeakyRelu"(%v17) : (tensor<*xf32>) -> tensor<*xf32>
  %v19 = "onnx.Log"(%v18) : (tensor<*xf32>) -> tensor<*xf32>
  %v20 = "onnx.Neg"(%v19) : (tensor<*xf32>) -> tensor<*xf32>
  %v21 = "onnx.Reciprocal"(%v20) : (tensor<*xf32>) -> tensor<*xf32>
  %v22 = "onnx.Relu"(%v21) : (tensor<*xf32>) -> tensor<*xf32>
  %v23 = "onnx.Round"(%v22) : (tensor<*xf32>) -> tensor<*xf32>
  %v24 = "onnx.Selu"(%v23) : (tensor<*xf32>) -> tensor<*xf32>
  %v25 = "onnx.Sigmoid"(%v24) : (tensor<*xf32>) -> tensor<*xf32>
  %v26 = "onnx.Sign"(%v25) : (tensor<*xf32>) -> tensor<*xf32>
  %v27 = "onnx.Sin"(%v26) : (tensor<*xf32>) -> tensor<*xf32>
  %v28 = "onnx.Sinh"(%v27) : (tensor<*xf32>) -> tensor<*xf32>
  %v29 = "onnx.Softplus"(%v28) : (tensor<*xf32>) -> tensor<*xf32>
  %v30 = "onnx.Softsign"(%v29) : (tensor<*xf32>) -> tensor<*xf32>
  %v31 = "onnx.Sqrt"(%v30) : (tensor<*xf32>) -> tensor<*xf32>
  %v32 = "onnx.Tan"(%v31) : (tensor<*xf32>) -> tensor<*xf32>
  %v33 = "onnx.Tanh"(%v32) : (tensor<*xf32>) -> tensor<*xf32>
  %v34 = "onnx.ThresholdedRelu"(%v33) : (tensor<*xf32>) -> tensor<*xf32>
  %v35 = "onnx.Shrink"(%v34) : (tensor<*xf32>) -> tensor<*xf32>
  %v36 = "onnx.Softmax"(%v35) : (tensor<*xf32>) -> tensor<*xf32>
  %v37 = "onnx.LogSoftmax"(%v36) : (tensor<*xf32>) -> tensor<*xf32>
  %v38 = "onnx.Hardmax"(%v37) : (tensor<*xf32>) -> tensor<*xf32>
  %v39 = "onnx.MeanVarianceNormalization"(%v38) : (tensor<*xf32>) -> tensor<*xf32>
  return %v39 : tensor<*xf32>
}

// -----

/// Binary ops broadcast numpy-style: [2,1,4] with [3,1] gives [2,3,4].
// CHECK-LABEL: func.func @binary_broadcast(
// CHECK: %[[ADD:.*]] = "onnx.Add"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Sub"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Mul"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Div"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Pow"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Mod"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.PRelu"{{.*}} -> tensor<2x3x4xf32>
// CHECK: return %[[ADD]]
func.func @binary_broadcast(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>) -> tensor<*xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %1 = "onnx.Sub"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %2 = "onnx.Mul"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %3 = "onnx.Div"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %4 = "onnx.Pow"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %5 = "onnx.Mod"(%a, %b) {fmod = 1 : i64} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %6 = "onnx.PRelu"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Comparisons and logic ops broadcast and give bool.
// CHECK-LABEL: func.func @compare_logic(
// CHECK: "onnx.Equal"{{.*}} -> tensor<5x4xi1>
// CHECK: "onnx.Greater"{{.*}} -> tensor<5x4xi1>
// CHECK: "onnx.GreaterOrEqual"{{.*}} -> tensor<5x4xi1>
// CHECK: "onnx.Less"{{.*}} -> tensor<5x4xi1>
// CHECK: "onnx.LessOrEqual"{{.*}} -> tensor<5x4xi1>
// CHECK: %[[AND:.*]] = "onnx.And"{{.*}} -> tensor<5x4xi1>
// CHECK: "onnx.Or"(%[[AND]], {{.*}} -> tensor<5x4xi1>
// CHECK: "onnx.Xor"{{.*}} -> tensor<5x4xi1>
// CHECK: "onnx.Not"{{.*}} -> tensor<5x4xi1>
func.func @compare_logic(%a: tensor<5x4xf32>, %b: tensor<4xf32>) -> tensor<*xi1> {
  %0 = "onnx.Equal"(%a, %b) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<*xi1>
  %1 = "onnx.Greater"(%a, %b) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<*xi1>
  %2 = "onnx.GreaterOrEqual"(%a, %b) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<*xi1>
  %3 = "onnx.Less"(%a, %b) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<*xi1>
  %4 = "onnx.LessOrEqual"(%a, %b) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<*xi1>
  %5 = "onnx.And"(%0, %1) : (tensor<*xi1>, tensor<*xi1>) -> tensor<*xi1>
  %6 = "onnx.Or"(%5, %2) : (tensor<*xi1>, tensor<*xi1>) -> tensor<*xi1>
  %7 = "onnx.Xor"(%6, %3) : (tensor<*xi1>, tensor<*xi1>) -> tensor<*xi1>
  %8 = "onnx.Not"(%7) : (tensor<*xi1>) -> tensor<*xi1>
  return %8 : tensor<*xi1>
}

// -----

/// A symbolic dim broadcast against 1 keeps its symbol; against a static size
/// the static size wins.
// CHECK-LABEL: func.func @broadcast_symbolic(
// CHECK: %[[S:.*]] = "onnx.Add"{{.*}} -> tensor<?x8xf32>
// CHECK: %[[T:.*]] = "onnx.Mul"{{.*}} -> tensor<4x8xf32>
// CHECK: return %[[S]], %[[T]] : tensor<?x8xf32>, tensor<4x8xf32>
func.func @broadcast_symbolic(%a: tensor<?x8xf32> {onnx.dim_params = ["batch", ""]}, %b: tensor<1x8xf32>, %c: tensor<4x1xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<*xf32>
  %1 = "onnx.Mul"(%a, %c) : (tensor<?x8xf32>, tensor<4x1xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// Variadic Max/Min/Mean/Sum broadcast all their inputs.
// CHECK-LABEL: func.func @variadic_broadcast(
// CHECK: "onnx.Max"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Min"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Mean"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.Sum"{{.*}} -> tensor<2x3x4xf32>
func.func @variadic_broadcast(%a: tensor<4xf32>, %b: tensor<3x1xf32>, %c: tensor<2x1x1xf32>) -> tensor<*xf32> {
  %0 = "onnx.Max"(%a, %b, %c) : (tensor<4xf32>, tensor<3x1xf32>, tensor<2x1x1xf32>) -> tensor<*xf32>
  %1 = "onnx.Min"(%a, %b, %c) : (tensor<4xf32>, tensor<3x1xf32>, tensor<2x1x1xf32>) -> tensor<*xf32>
  %2 = "onnx.Mean"(%a, %b, %c) : (tensor<4xf32>, tensor<3x1xf32>, tensor<2x1x1xf32>) -> tensor<*xf32>
  %3 = "onnx.Sum"(%a, %b, %c) : (tensor<4xf32>, tensor<3x1xf32>, tensor<2x1x1xf32>) -> tensor<*xf32>
  return %3 : tensor<*xf32>
}

// -----

/// Where broadcasts condition, X and Y.
// CHECK-LABEL: func.func @where_broadcast(
// CHECK: %[[W:.*]] = "onnx.Where"{{.*}} -> tensor<2x5xf32>
// CHECK: return %[[W]]
func.func @where_broadcast(%c: tensor<2x1xi1>, %x: tensor<5xf32>, %y: tensor<f32>) -> tensor<*xf32> {
  %0 = "onnx.Where"(%c, %x, %y) : (tensor<2x1xi1>, tensor<5xf32>, tensor<f32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// BitShift broadcasts like any binary op.
// CHECK-LABEL: func.func @bitshift(
// CHECK: "onnx.BitShift"{{.*}} -> tensor<3x2xui8>
func.func @bitshift(%a: tensor<3x2xui8>, %b: tensor<2xui8>) -> tensor<*xui8> {
  %0 = "onnx.BitShift"(%a, %b) {direction = "LEFT"} : (tensor<3x2xui8>, tensor<2xui8>) -> tensor<*xui8>
  return %0 : tensor<*xui8>
}

// -----

/// Clip with absent min and a present max keeps the input's shape.
// CHECK-LABEL: func.func @clip_optional_bounds(
// CHECK: %[[C:.*]] = "onnx.Clip"{{.*}} -> tensor<4x?xf32>
// CHECK: return %[[C]]
func.func @clip_optional_bounds(%a: tensor<4x?xf32>, %hi: tensor<f32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Clip"(%a, %n, %hi) : (tensor<4x?xf32>, none, tensor<f32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Cast, CastLike, IsInf, IsNaN change the element type only.
// CHECK-LABEL: func.func @cast_like(
// CHECK: "onnx.Cast"{{.*}} -> tensor<2x3xi64>
// CHECK: "onnx.CastLike"{{.*}} -> tensor<2x3xf16>
// CHECK: "onnx.IsInf"{{.*}} -> tensor<2x3xi1>
// CHECK: "onnx.IsNaN"{{.*}} -> tensor<2x3xi1>
func.func @cast_like(%a: tensor<2x3xf32>, %t: tensor<f16>) -> (tensor<*xi64>, tensor<*xf16>, tensor<*xi1>, tensor<*xi1>) {
  %0 = "onnx.Cast"(%a) {to = 7 : i64} : (tensor<2x3xf32>) -> tensor<*xi64>
  %1 = "onnx.CastLike"(%a, %t) : (tensor<2x3xf32>, tensor<f16>) -> tensor<*xf16>
  %2 = "onnx.IsInf"(%a) : (tensor<2x3xf32>) -> tensor<*xi1>
  %3 = "onnx.IsNaN"(%a) : (tensor<2x3xf32>) -> tensor<*xi1>
  return %0, %1, %2, %3 : tensor<*xi64>, tensor<*xf16>, tensor<*xi1>, tensor<*xi1>
}

// -----

/// Dropout's output and mask both have the input's shape.
// CHECK-LABEL: func.func @dropout_mask(
// CHECK: %[[OUT:.*]], %[[MASK:.*]] = "onnx.Dropout"{{.*}} -> (tensor<3x7xf32>, tensor<3x7xi1>)
// CHECK: return %[[OUT]], %[[MASK]]
func.func @dropout_mask(%a: tensor<3x7xf32>) -> (tensor<*xf32>, tensor<*xi1>) {
  %n = "onnx.NoValue"() : () -> none
  %0, %1 = "onnx.Dropout"(%a, %n, %n) : (tensor<3x7xf32>, none, none) -> (tensor<*xf32>, tensor<*xi1>)
  return %0, %1 : tensor<*xf32>, tensor<*xi1>
}

// -----

/// Random ops: the *Like forms and Bernoulli follow the input, the others
/// their shape attribute.
// CHECK-LABEL: func.func @random(
// CHECK: "onnx.RandomNormalLike"{{.*}} -> tensor<2x5xf32>
// CHECK: "onnx.RandomUniformLike"{{.*}} -> tensor<2x5xf32>
// CHECK: "onnx.Bernoulli"{{.*}} -> tensor<2x5xf32>
// CHECK: "onnx.RandomNormal"{{.*}} -> tensor<3x1x4xf32>
// CHECK: "onnx.RandomUniform"{{.*}} -> tensor<6xf32>
func.func @random(%a: tensor<2x5xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.RandomNormalLike"(%a) : (tensor<2x5xf32>) -> tensor<*xf32>
  %1 = "onnx.RandomUniformLike"(%a) : (tensor<2x5xf32>) -> tensor<*xf32>
  %2 = "onnx.Bernoulli"(%a) : (tensor<2x5xf32>) -> tensor<*xf32>
  %3 = "onnx.RandomNormal"() {shape = array<i64: 3, 1, 4>} : () -> tensor<*xf32>
  %4 = "onnx.RandomUniform"() {shape = array<i64: 6>} : () -> tensor<*xf32>
  return %0, %1, %2, %3, %4 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}
