// RUN: onnxcc-opt %s --split-input-file --onnxcc-lower-cpu -verify-diagnostics | FileCheck %s

/// StringNormalizer becomes a call into runtime-support over buffers: the
/// input strings (their pointers, i64), the output written in place in the
/// output argument, the stopwords as a NUL-separated constant, the counts,
/// the case action (1 LOWER) and case sensitivity. A case change writes new
/// strings: the callee takes the string pool. Its i32 result is a status.
// CHECK-LABEL: module
// CHECK: memref.global "private" constant @[[WORDS:.*]] : memref<14xi8> = dense<[109, 111, 110, 100, 97, 121, 0, 115, 117, 110, 100, 97, 121, 0]>
// CHECK: func.func private @onnxcc_rt_string_normalizer_pool(memref<?xi64>, index, memref<?xi64>, index, memref<?xi8>, index, i32, i1) -> (i32 {onnxcc.status})
// CHECK-SAME: attributes {onnxcc.runtime = "onnxcc_rt::string_normalizer", onnxcc.string_pool}
// CHECK-LABEL: func.func @lower
// CHECK-SAME: (%[[X:.*]]: memref<4xi64>, %[[Y:.*]]: memref<2xi64> {onnxcc.output}, %{{.*}}: memref<?xi8> {onnxcc.arena})
// CHECK-SAME: onnxcc.arena_size = 0
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[LOWER:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[W:.*]] = memref.get_global @[[WORDS]]
// CHECK-DAG: %[[XC:.*]] = memref.cast %[[X]] : memref<4xi64> to memref<?xi64>
// CHECK-DAG: %[[YC:.*]] = memref.cast %[[Y]] : memref<2xi64> to memref<?xi64>
// CHECK-DAG: %[[WC:.*]] = memref.cast %[[W]] : memref<14xi8> to memref<?xi8>
// CHECK: call @onnxcc_rt_string_normalizer_pool(%[[XC]], %[[C4]], %[[YC]], %[[C2]], %[[WC]], %[[C14]], %[[LOWER]], %[[TRUE]])
// CHECK-NOT: memref.copy
// CHECK: return
func.func @lower(%x: tensor<4x!onnx.string>) -> tensor<2x!onnx.string> {
  %0 = "onnx.StringNormalizer"(%x) <{case_change_action = "LOWER", is_case_sensitive = 1 : i64, stopwords = ["monday", "sunday"]}> : (tensor<4x!onnx.string>) -> tensor<2x!onnx.string>
  return %0 : tensor<2x!onnx.string>
}

// -----

/// Without a case change no string is new: the callee takes no pool. Two
/// normalizers share the declaration; the strings between them are an arena
/// buffer of pointers. [1, C] is flattened to [C] and back.
// CHECK-LABEL: module
// CHECK: memref.global "private" constant @{{.*}} : memref<1xi8> = dense<0>
// CHECK: func.func private @onnxcc_rt_string_normalizer(
// CHECK-SAME: attributes {onnxcc.runtime = "onnxcc_rt::string_normalizer"}
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: memref<1x3xi64>, %[[Y:.*]]: memref<1x2xi64> {onnxcc.output}, %[[ARENA:.*]]: memref<?xi8> {onnxcc.arena})
// CHECK-SAME: onnxcc.arena_size = 64
// CHECK: memref.view %[[ARENA]][%{{.*}}][] : memref<?xi8> to memref<1x3xi64>
// CHECK: call @onnxcc_rt_string_normalizer(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?xi64>, index, memref<?xi64>, index, memref<?xi8>, index, i32, i1) -> i32
// CHECK: call @onnxcc_rt_string_normalizer(
// CHECK: return
func.func @chain(%x: tensor<1x3x!onnx.string>) -> tensor<1x2x!onnx.string> {
  %0 = "onnx.StringNormalizer"(%x) <{is_case_sensitive = 0 : i64}> : (tensor<1x3x!onnx.string>) -> tensor<1x3x!onnx.string>
  %1 = "onnx.StringNormalizer"(%0) <{stopwords = ["a"]}> : (tensor<1x3x!onnx.string>) -> tensor<1x2x!onnx.string>
  return %1 : tensor<1x2x!onnx.string>
}

// -----

/// What cannot be honoured is an error naming the op and the reason (the
/// driver shows the first one).
func.func @locale(%x: tensor<2x!onnx.string>) -> tensor<2x!onnx.string> {
  // expected-error @+2 {{cannot lower 'onnx.StringNormalizer': locale 'tr_TR' is not supported (only en_US-like case mapping)}}
  // expected-error @+1 {{failed to legalize operation 'onnx.StringNormalizer'}}
  %0 = "onnx.StringNormalizer"(%x) <{case_change_action = "LOWER", locale = "tr_TR"}> : (tensor<2x!onnx.string>) -> tensor<2x!onnx.string>
  return %0 : tensor<2x!onnx.string>
}

// -----

func.func @rows(%x: tensor<2x3x!onnx.string>) -> tensor<2x3x!onnx.string> {
  // expected-error @+2 {{cannot lower 'onnx.StringNormalizer': input 'tensor<2x3x!onnx.string>' and output 'tensor<2x3x!onnx.string>' are not [C] or [1, C]}}
  // expected-error @+1 {{failed to legalize operation 'onnx.StringNormalizer'}}
  %0 = "onnx.StringNormalizer"(%x) : (tensor<2x3x!onnx.string>) -> tensor<2x3x!onnx.string>
  return %0 : tensor<2x3x!onnx.string>
}

// -----

func.func @action(%x: tensor<2x!onnx.string>) -> tensor<2x!onnx.string> {
  // expected-error @+2 {{cannot lower 'onnx.StringNormalizer': case_change_action 'TITLE' is not NONE, LOWER or UPPER}}
  // expected-error @+1 {{failed to legalize operation 'onnx.StringNormalizer'}}
  %0 = "onnx.StringNormalizer"(%x) <{case_change_action = "TITLE"}> : (tensor<2x!onnx.string>) -> tensor<2x!onnx.string>
  return %0 : tensor<2x!onnx.string>
}
