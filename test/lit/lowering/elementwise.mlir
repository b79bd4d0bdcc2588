// RUN: onnxcc-opt %s --convert-onnx-to-linalg --split-input-file -verify-diagnostics | FileCheck %s

/// Binary ops broadcast multidirectionally: a dim of 1 against a larger one
/// reads index 0, a missing leading dim is not indexed at all.
// CHECK-DAG: #[[BA:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[BB:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[BID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[BA]], #[[BB]], #[[BID]]], iterator_types = ["parallel", "parallel"]}
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @add_broadcast(%a: tensor<3x1xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

/// A rank-0 operand has a map with no results.
// CHECK-DAG: #[[S0:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @mul_scalar
// CHECK: indexing_maps = [#{{.*}}, #[[S0]], #{{.*}}]
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
func.func @mul_scalar(%a: tensor<5xi32>, %b: tensor<i32>) -> tensor<5xi32> {
  %0 = "onnx.Mul"(%a, %b) : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

/// Integer division truncates; the signedness comes from the onnx type.
// CHECK-LABEL: func.func @div_int
// CHECK: arith.divsi
// CHECK: arith.divui
func.func @div_int(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xui8>, %d: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xui8>) {
  %0 = "onnx.Div"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "onnx.Div"(%c, %d) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1 : tensor<4xi32>, tensor<4xui8>
}

// -----

/// Mod with fmod=0 on signed integers moves a remainder whose sign differs
/// from the divisor's by one divisor (Python semantics).
// CHECK-LABEL: func.func @mod_python
// CHECK: ^bb0(%[[A:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[R:.*]] = arith.remsi %[[A]], %[[D]] : i32
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[R]], %{{.*}}
// CHECK: %[[RN:.*]] = arith.cmpi slt, %[[R]], %{{.*}}
// CHECK: %[[DN:.*]] = arith.cmpi slt, %[[D]], %{{.*}}
// CHECK: %[[X:.*]] = arith.xori %[[RN]], %[[DN]] : i1
// CHECK: %[[ADJ:.*]] = arith.andi %[[NZ]], %[[X]] : i1
// CHECK: %[[M:.*]] = arith.addi %[[R]], %[[D]] : i32
// CHECK: arith.select %[[ADJ]], %[[M]], %[[R]] : i32
func.func @mod_python(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "onnx.Mod"(%a, %b) {fmod = 0 : i64} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

/// Mod with fmod=1 is the C remainder; unsigned Mod needs no adjustment.
// CHECK-LABEL: func.func @mod_fmod
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: linalg.yield
// CHECK: arith.remui %{{.*}}, %{{.*}} : i16
// CHECK-NEXT: linalg.yield
func.func @mod_fmod(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xui16>, %d: tensor<4xui16>) -> (tensor<4xf32>, tensor<4xui16>) {
  %0 = "onnx.Mod"(%a, %b) {fmod = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.Mod"(%c, %d) {fmod = 0 : i64} : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  return %0, %1 : tensor<4xf32>, tensor<4xui16>
}

// -----

/// Pow converts an integer exponent to the float base's type; an integer
/// base is raised in double and truncated back.
// CHECK-LABEL: func.func @pow
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[YF:.*]] = arith.sitofp %[[Y]] : i64 to f32
// CHECK: math.powf %[[X]], %[[YF]] : f32
// CHECK: ^bb0(%[[XI:.*]]: i32, %[[YI:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[XD:.*]] = arith.sitofp %[[XI]] : i32 to f64
// CHECK: %[[YD:.*]] = arith.sitofp %[[YI]] : i32 to f64
// CHECK: %[[P:.*]] = math.powf %[[XD]], %[[YD]] : f64
// CHECK: arith.fptosi %[[P]] : f64 to i32
func.func @pow(%a: tensor<3xf32>, %b: tensor<3xi64>, %c: tensor<3xi32>, %d: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %0 = "onnx.Pow"(%a, %b) : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  %1 = "onnx.Pow"(%c, %d) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0, %1 : tensor<3xf32>, tensor<3xi32>
}

// -----

/// BitShift by the width or more gives 0 instead of undefined behaviour.
// CHECK-LABEL: func.func @bitshift
// CHECK: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[S:.*]] = arith.shli %[[X]], %[[Y]] : i8
// CHECK: %[[W:.*]] = arith.constant 8 : i8
// CHECK: %[[FAR:.*]] = arith.cmpi uge, %[[Y]], %[[W]] : i8
// CHECK: arith.select %[[FAR]], %{{.*}}, %[[S]] : i8
// CHECK: arith.shrui
func.func @bitshift(%a: tensor<3xui8>, %b: tensor<3xui8>) -> (tensor<3xui8>, tensor<3xui8>) {
  %0 = "onnx.BitShift"(%a, %b) {direction = "LEFT"} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %1 = "onnx.BitShift"(%a, %b) {direction = "RIGHT"} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %0, %1 : tensor<3xui8>, tensor<3xui8>
}

// -----

/// Variadic ops fold left over all operands, each with its own broadcast map;
/// float Max propagates NaN, unsigned Min compares unsigned; Mean divides by N.
// CHECK-LABEL: func.func @variadic
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[M:.*]] = arith.maximumf %[[A]], %[[B]] : f32
// CHECK: arith.maximumf %[[M]], %[[C]] : f32
// CHECK: arith.minui %{{.*}}, %{{.*}} : i32
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i64
// CHECK: %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} : f64
// CHECK: %[[N:.*]] = arith.constant 2.000000e+00 : f64
// CHECK: arith.divf %[[S]], %[[N]] : f64
func.func @variadic(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>, %d: tensor<3xui32>, %e: tensor<3xi64>, %f: tensor<3xf64>) -> (tensor<2x3xf32>, tensor<3xui32>, tensor<3xi64>, tensor<3xf64>) {
  %0 = "onnx.Max"(%a, %b, %c) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = "onnx.Min"(%d, %d) : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  %2 = "onnx.Max"(%e, %e) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %3 = "onnx.Mean"(%f, %f) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<3xui32>, tensor<3xi64>, tensor<3xf64>
}

// -----

/// Clip with an absent min reads only x and max; NaN passes through the
/// ordered compares.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SC:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @clip_max_only
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SC]], #[[ID]]]
// CHECK: ^bb0(%[[X:.*]]: f32, %[[HI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[HI]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[GT]], %[[HI]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
func.func @clip_max_only(%x: tensor<4xf32>, %hi: tensor<f32>) -> tensor<4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Clip"(%x, %n, %hi) : (tensor<4xf32>, none, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Integer Clip compares signed for int8.
// CHECK-LABEL: func.func @clip_int8
// CHECK: ^bb0(%[[X:.*]]: i8, %[[LO:.*]]: i8, %[[HI:.*]]: i8, %{{.*}}: i8):
// CHECK: arith.cmpi slt, %[[X]], %[[LO]] : i8
// CHECK: arith.cmpi sgt, %{{.*}}, %[[HI]] : i8
func.func @clip_int8(%x: tensor<4xi8>, %lo: tensor<i8>, %hi: tensor<i8>) -> tensor<4xi8> {
  %0 = "onnx.Clip"(%x, %lo, %hi) : (tensor<4xi8>, tensor<i8>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

/// Comparisons: ordered for floats, unsigned predicates for unsigned types.
// CHECK-LABEL: func.func @compare
// CHECK: arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i16
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i1
func.func @compare(%a: tensor<3xf32>, %b: tensor<3xui16>, %c: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = "onnx.GreaterOrEqual"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = "onnx.Less"(%b, %b) : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xi1>
  %2 = "onnx.Equal"(%c, %c) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0, %1, %2 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

/// Logic on booleans; Not is xor with true.
// CHECK-LABEL: func.func @logic
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: arith.xori %{{.*}}, %{{.*}} : i1
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[T]] : i1
func.func @logic(%a: tensor<3xi1>, %b: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = "onnx.And"(%a, %b) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %1 = "onnx.Or"(%a, %b) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %2 = "onnx.Xor"(%a, %b) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %3 = "onnx.Not"(%a) : (tensor<3xi1>) -> tensor<3xi1>
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

/// Where selects with a broadcast condition.
// CHECK-DAG: #[[WC:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @where
// CHECK: indexing_maps = [#[[WC]],
// CHECK: ^bb0(%[[C:.*]]: i1, %[[X:.*]]: i64, %[[Y:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: %[[R:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : i64
func.func @where(%c: tensor<3xi1>, %x: tensor<2x3xi64>, %y: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = "onnx.Where"(%c, %x, %y) : (tensor<3xi1>, tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

/// Cast: float to unsigned truncates with fptoui, unsigned widening is
/// zero-extension, anything to bool compares with zero, bool to float is
/// unsigned.
// CHECK-LABEL: func.func @cast
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.extui %{{.*}} : i8 to i64
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f64
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @cast(%a: tensor<3xf32>, %b: tensor<3xui8>, %c: tensor<3xf64>, %d: tensor<3xi1>) -> (tensor<3xui8>, tensor<3xi64>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) {
  %0 = "onnx.Cast"(%a) {to = 2 : i64} : (tensor<3xf32>) -> tensor<3xui8>
  %1 = "onnx.Cast"(%b) {to = 7 : i64} : (tensor<3xui8>) -> tensor<3xi64>
  %2 = "onnx.Cast"(%c) {to = 9 : i64} : (tensor<3xf64>) -> tensor<3xi1>
  %3 = "onnx.Cast"(%d) {to = 1 : i64} : (tensor<3xi1>) -> tensor<3xf32>
  %4 = "onnx.CastLike"(%c, %a) : (tensor<3xf64>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<3xui8>, tensor<3xi64>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
}

// -----

/// CastLike's second operand gives only the type: it is not an input of the
/// generic, whatever its shape.
// CHECK-LABEL: func.func @castlike_target_shape
// CHECK: linalg.generic {{.*}} ins(%{{[^,]*}} : tensor<2x3xi32>)
// CHECK: arith.sitofp %{{.*}} : i32 to f64
func.func @castlike_target_shape(%a: tensor<2x3xi32>, %t: tensor<5x7x9xf64>) -> tensor<2x3xf64> {
  %0 = "onnx.CastLike"(%a, %t) : (tensor<2x3xi32>, tensor<5x7x9xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

/// Unary float functions map to one math op each; Round is half to even.
// CHECK-LABEL: func.func @unary_math
// CHECK: math.log
// CHECK: math.sin
// CHECK: math.acosh
// CHECK: math.erf
// CHECK: math.roundeven
// CHECK: math.floor
func.func @unary_math(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = "onnx.Log"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "onnx.Acosh"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "onnx.Erf"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %4 = "onnx.Round"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %5 = "onnx.Floor"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

/// Erf of an integer goes through double.
// CHECK-LABEL: func.func @erf_int
// CHECK: %[[D:.*]] = arith.sitofp %{{.*}} : i32 to f64
// CHECK: %[[E:.*]] = math.erf %[[D]] : f64
// CHECK: arith.fptosi %[[E]] : f64 to i32
func.func @erf_int(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = "onnx.Erf"(%a) : (tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

/// Abs and Neg by type: absf, absi, nothing for unsigned; negf, 0 - x.
// CHECK-LABEL: func.func @abs_neg
// CHECK: math.absf %{{.*}} : f32
// CHECK: math.absi %{{.*}} : i16
// CHECK: ^bb0(%[[U:.*]]: i16, %{{.*}}: i16):
// CHECK-NEXT: linalg.yield %[[U]] : i16
// CHECK: arith.negf %{{.*}} : f32
// CHECK: %[[Z:.*]] = arith.constant 0 : i8
// CHECK: arith.subi %[[Z]], %{{.*}} : i8
func.func @abs_neg(%a: tensor<3xf32>, %b: tensor<3xi16>, %c: tensor<3xui16>, %d: tensor<3xi8>) -> (tensor<3xf32>, tensor<3xi16>, tensor<3xui16>, tensor<3xf32>, tensor<3xi8>) {
  %0 = "onnx.Abs"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Abs"(%b) : (tensor<3xi16>) -> tensor<3xi16>
  %2 = "onnx.Abs"(%c) : (tensor<3xui16>) -> tensor<3xui16>
  %3 = "onnx.Neg"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %4 = "onnx.Neg"(%d) : (tensor<3xi8>) -> tensor<3xi8>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<3xi16>, tensor<3xui16>, tensor<3xf32>, tensor<3xi8>
}

// -----

/// Sign: -1, 0 or 1 (a float NaN stays NaN); unsigned is x != 0.
// CHECK-LABEL: func.func @sign
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK: %[[N:.*]] = arith.select %[[LT]], %{{.*}}, %[[X]] : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f32
// CHECK: arith.select %[[GT]], %{{.*}}, %[[N]] : f32
// CHECK: ^bb0(%[[U:.*]]: i32, %{{.*}}: i32):
// CHECK: arith.cmpi ne, %[[U]], %{{.*}} : i32
func.func @sign(%a: tensor<3xf32>, %b: tensor<3xui32>) -> (tensor<3xf32>, tensor<3xui32>) {
  %0 = "onnx.Sign"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Sign"(%b) : (tensor<3xui32>) -> tensor<3xui32>
  return %0, %1 : tensor<3xf32>, tensor<3xui32>
}

// -----

/// Reciprocal is 1 / x.
// CHECK-LABEL: func.func @reciprocal
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: arith.divf %[[ONE]], %{{.*}} : f64
func.func @reciprocal(%a: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "onnx.Reciprocal"(%a) : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

/// Relu: NaN-propagating maximumf for floats, maxsi for integers.
// CHECK-LABEL: func.func @relu
// CHECK: arith.maximumf
// CHECK: arith.maxsi
func.func @relu(%a: tensor<3xf32>, %b: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %0 = "onnx.Relu"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Relu"(%b) : (tensor<3xi32>) -> tensor<3xi32>
  return %0, %1 : tensor<3xf32>, tensor<3xi32>
}

// -----

/// LeakyRelu and PRelu scale the negative side; PRelu's slope broadcasts.
// CHECK-LABEL: func.func @leaky_prelu
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[AL:.*]] = arith.constant 1.000000e-01 : f32
// CHECK: %[[SC:.*]] = arith.mulf %[[AL]], %[[X]] : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK: arith.select %[[LT]], %[[SC]], %[[X]] : f32
// CHECK: ^bb0(%[[PX:.*]]: f32, %[[SL:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[PS:.*]] = arith.mulf %[[SL]], %[[PX]] : f32
// CHECK: %[[PLT:.*]] = arith.cmpf olt, %[[PX]], %{{.*}} : f32
// CHECK: arith.select %[[PLT]], %[[PS]], %[[PX]] : f32
func.func @leaky_prelu(%a: tensor<2x3xf32>, %s: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "onnx.LeakyRelu"(%a) {alpha = 1.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "onnx.PRelu"(%a, %s) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// Elu and Celu use expm1 on the negative side; Selu scales both sides.
// CHECK-LABEL: func.func @elu_family
// CHECK: math.expm1
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: arith.divf
// CHECK: math.expm1
// CHECK: arith.cmpf ogt
// CHECK: math.exp
// CHECK: arith.subf
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: arith.mulf
func.func @elu_family(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = "onnx.Elu"(%a) {alpha = 2.000000e+00 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Celu"(%a) {alpha = 2.000000e+00 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "onnx.Selu"(%a) {alpha = 2.000000e+00 : f32, gamma = 3.000000e+00 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

/// ThresholdedRelu keeps x above alpha; HardSigmoid clamps alpha * x + beta;
/// HardSwish multiplies x by HardSigmoid(1/6, 1/2).
// CHECK-LABEL: func.func @hard
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.constant 0.166666672 : f32
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.mulf
func.func @hard(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = "onnx.ThresholdedRelu"(%a) {alpha = 2.000000e+00 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.HardSigmoid"(%a) {alpha = 5.000000e-01 : f32, beta = 6.000000e-01 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "onnx.HardSwish"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

/// Softplus is computed without overflow as max(x, 0) + log1p(exp(-|x|));
/// Softsign is x / (1 + |x|); Sigmoid is 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @soft
// CHECK: math.absf
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: math.log1p
// CHECK: arith.maximumf
// CHECK: arith.addf
// CHECK: math.absf
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @soft(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = "onnx.Softplus"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Softsign"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "onnx.Sigmoid"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

/// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
// CHECK-LABEL: func.func @shrink
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LOW:.*]] = arith.addf %[[X]], %{{.*}} : f32
// CHECK: %[[HIGH:.*]] = arith.subf %[[X]], %{{.*}} : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f32
// CHECK: %[[R:.*]] = arith.select %[[GT]], %[[HIGH]], %{{.*}} : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK: arith.select %[[LT]], %[[LOW]], %[[R]] : f32
func.func @shrink(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.Shrink"(%a) {bias = 1.500000e+00 : f32, lambd = 1.500000e+00 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

/// IsNaN is an unordered self-compare; IsInf compares with the infinities it
/// is asked to detect.
// CHECK-LABEL: func.func @isnan_isinf
// CHECK: arith.cmpf uno, %[[N:.*]], %[[N]] : f32
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: arith.cmpf oeq, %{{.*}}, %[[NINF]] : f32
// CHECK-NOT: 0x7F800000
// CHECK: linalg.yield
func.func @isnan_isinf(%a: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xi1>) {
  %0 = "onnx.IsNaN"(%a) : (tensor<3xf32>) -> tensor<3xi1>
  %1 = "onnx.IsInf"(%a) {detect_positive = 0 : i64} : (tensor<3xf32>) -> tensor<3xi1>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}

// -----

/// Dropout at inference: the output is the input, the mask all true.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: %[[M:.*]] = linalg.fill ins(%[[T]] : i1)
// CHECK: return %[[X]], %[[M]]
func.func @dropout(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %n = "onnx.NoValue"() : () -> none
  %f = "onnx.Constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
  %0, %1 = "onnx.Dropout"(%x, %n, %f) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xi1>
}

// -----

/// Dropout whose training mode is known at run time only (default ratio
/// 0.5): run() returns status 15 when it trains, as dropping needs random
/// numbers; else the output is the input.
// CHECK-LABEL: func.func @dropout_runtime_training
// CHECK: %[[T:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: call @onnxcc_check_no_random(%[[T]])
// CHECK: return %{{.*}} : tensor<2x3xf32>
func.func @dropout_runtime_training(%x: tensor<2x3xf32>, %t: tensor<i1>) -> tensor<2x3xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0, %1 = "onnx.Dropout"(%x, %n, %t) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, none)
  return %0 : tensor<2x3xf32>
}

// -----

/// Training mode with a constant non-zero ratio is random: not compiled.
func.func @negative_dropout_training(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = "onnx.NoValue"() : () -> none
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  // expected-error@+2 {{failed to legalize operation 'onnx.Dropout'}}
  // expected-error@+1 {{cannot lower 'onnx.Dropout' in training mode with ratio 5.000000e-01: it draws random numbers, which onnxcc does not generate}}
  %0, %1 = "onnx.Dropout"(%x, %n, %t) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, none)
  return %0 : tensor<2x3xf32>
}
