// RUN: onnxcc-opt %s --convert-onnx-to-linalg --split-input-file | FileCheck %s

/// Ops new in opsets 18 to 28 that lower natively. The bitwise ops are the
/// integer and/or/xor of the (signless) elements; BitwiseNot xors with all ones.
// CHECK-LABEL: func.func @bitwise
// CHECK: arith.andi %{{.*}}, %{{.*}} : i16
// CHECK: arith.ori %{{.*}}, %{{.*}} : i16
// CHECK: arith.xori %{{.*}}, %{{.*}} : i16
// CHECK: %[[ONES:.*]] = arith.constant -1 : i16
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i16
func.func @bitwise(%a: tensor<2x3xui16>, %b: tensor<3xui16>) -> tensor<2x3xui16> {
  %0 = "onnx.BitwiseAnd"(%a, %b) : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %1 = "onnx.BitwiseOr"(%0, %b) : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %2 = "onnx.BitwiseXor"(%1, %a) : (tensor<2x3xui16>, tensor<2x3xui16>) -> tensor<2x3xui16>
  %3 = "onnx.BitwiseNot"(%2) : (tensor<2x3xui16>) -> tensor<2x3xui16>
  return %3 : tensor<2x3xui16>
}

// -----

/// BitCast keeps the bits: a float as the integer of its width; a bool
/// becomes the byte 0 or 1.
// CHECK-LABEL: func.func @bitcast
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.extui %{{.*}} : i1 to i8
func.func @bitcast(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xui8>) {
  %0 = "onnx.BitCast"(%x) {to = 6 : i64} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "onnx.BitCast"(%b) {to = 2 : i64} : (tensor<4xi1>) -> tensor<4xui8>
  return %0, %1 : tensor<4xi32>, tensor<4xui8>
}

// -----

/// CumProd is CumSum with products, starting from 1.
// CHECK-LABEL: func.func @cumprod_exclusive
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.cmpi ult
// CHECK: arith.mulf
func.func @cumprod_exclusive(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %ax = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.CumProd"(%x, %ax) {exclusive = 1 : i64, reverse = 0 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

/// StringConcat broadcasts both operands' pointers to the result, then one
/// runtime-support call writes the concatenations into the string pool.
// CHECK-LABEL: func.func @string_concat
// CHECK-COUNT-2: linalg.generic
// CHECK: call @onnxcc_rt_string_concat(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?xi64>, memref<?xi64>, index, memref<?xi64>) -> i32
func.func @string_concat(%a: tensor<2x3x!onnx.string>, %b: tensor<3x!onnx.string>) -> tensor<2x3x!onnx.string> {
  %0 = "onnx.StringConcat"(%a, %b) : (tensor<2x3x!onnx.string>, tensor<3x!onnx.string>) -> tensor<2x3x!onnx.string>
  return %0 : tensor<2x3x!onnx.string>
}
