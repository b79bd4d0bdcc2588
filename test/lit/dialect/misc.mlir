// RUN: onnxcc-opt %s --onnx-infer-shapes --split-input-file | FileCheck %s

/// BatchNormalization in training mode: running stats are [C].
// CHECK-LABEL: func.func @batch_norm_training(
// CHECK: %[[Y:.*]], %[[M:.*]], %[[V:.*]] = "onnx.BatchNormalization"{{.*}} -> (tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: return %[[Y]], %[[M]]
func.func @batch_norm_training(%x: tensor<?x3x4x4xf32> {onnx.dim_params = ["N", "", "", ""]}, %s: tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0, %1, %2 = "onnx.BatchNormalization"(%x, %s, %s, %s, %s) {training_mode = 1 : i64} : (tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// LayerNormalization: Mean and InvStdDev keep the dims before axis and have
/// 1 for the normalized ones.
// CHECK-LABEL: func.func @layer_norm_stats(
// CHECK: "onnx.LayerNormalization"{{.*}} -> (tensor<2x5x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
func.func @layer_norm_stats(%x: tensor<2x5x8xf32>, %s: tensor<5x8xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0, %1, %2 = "onnx.LayerNormalization"(%x, %s, %n) {axis = 1 : i64} : (tensor<2x5x8xf32>, tensor<5x8xf32>, none) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Other normalizations keep the input's shape.
// CHECK-LABEL: func.func @normalizations(
// CHECK: "onnx.InstanceNormalization"{{.*}} -> tensor<2x3x5x5xf32>
// CHECK: "onnx.LRN"{{.*}} -> tensor<2x3x5x5xf32>
// CHECK: "onnx.LpNormalization"{{.*}} -> tensor<2x3x5x5xf32>
func.func @normalizations(%x: tensor<2x3x5x5xf32>, %s: tensor<3xf32>) -> tensor<*xf32> {
  %0 = "onnx.InstanceNormalization"(%x, %s, %s) : (tensor<2x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  %1 = "onnx.LRN"(%0) {size = 3 : i64} : (tensor<*xf32>) -> tensor<*xf32>
  %2 = "onnx.LpNormalization"(%1) : (tensor<*xf32>) -> tensor<*xf32>
  return %2 : tensor<*xf32>
}

// -----

/// Resize from constant sizes, or floor(dim * scale) from constant scales.
// CHECK-LABEL: func.func @resize(
// CHECK: "onnx.Resize"{{.*}} -> tensor<1x3x20x30xf32>
// CHECK: "onnx.Resize"{{.*}} -> tensor<?x3x20x15xf32>
func.func @resize(%x: tensor<?x3x10x10xf32> {onnx.dim_params = ["N", "", "", ""]}) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %sizes = "onnx.Constant"() {value = dense<[1, 3, 20, 30]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.Resize"(%x, %n, %n, %sizes) : (tensor<?x3x10x10xf32>, none, none, tensor<4xi64>) -> tensor<*xf32>
  %scales = "onnx.Constant"() {value = dense<[1.0, 1.0, 2.0, 1.5]> : tensor<4xf32>} : () -> tensor<4xf32>
  %1 = "onnx.Resize"(%x, %n, %scales, %n) {mode = "linear"} : (tensor<?x3x10x10xf32>, none, tensor<4xf32>, none) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// DFT: onesided keeps n / 2 + 1 bins; dft_length replaces the signal length;
/// the last dim holds real and imaginary parts.
// CHECK-LABEL: func.func @dft(
// CHECK: "onnx.DFT"{{.*}} -> tensor<2x9x2xf32>
// CHECK: "onnx.DFT"{{.*}} -> tensor<2x8x2xf32>
func.func @dft(%x: tensor<2x16x1xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.DFT"(%x, %n) {onesided = 1 : i64} : (tensor<2x16x1xf32>, none) -> tensor<*xf32>
  %len = "onnx.Constant"() {value = dense<8> : tensor<i64>} : () -> tensor<i64>
  %1 = "onnx.DFT"(%x, %len) : (tensor<2x16x1xf32>, tensor<i64>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

/// STFT: (128 - 16) / 8 + 1 = 15 frames of 16 / 2 + 1 = 9 bins.
// CHECK-LABEL: func.func @stft(
// CHECK: "onnx.STFT"{{.*}} -> tensor<1x15x9x2xf32>
func.func @stft(%x: tensor<1x128x1xf32>, %w: tensor<16xf32>) -> tensor<*xf32> {
  %step = "onnx.Constant"() {value = dense<8> : tensor<i64>} : () -> tensor<i64>
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.STFT"(%x, %step, %w, %n) : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

/// Window functions have the constant size; MelWeightMatrix is
/// [dft_length / 2 + 1, num_mel_bins].
// CHECK-LABEL: func.func @windows_mel(
// CHECK: "onnx.HannWindow"{{.*}} -> tensor<10xf32>
// CHECK: "onnx.HammingWindow"{{.*}} -> tensor<10xf32>
// CHECK: "onnx.BlackmanWindow"{{.*}} -> tensor<10xf32>
// CHECK: "onnx.MelWeightMatrix"{{.*}} -> tensor<9x8xf32>
func.func @windows_mel(%f: tensor<f32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %size = "onnx.Constant"() {value = dense<10> : tensor<i64>} : () -> tensor<i64>
  %0 = "onnx.HannWindow"(%size) : (tensor<i64>) -> tensor<*xf32>
  %1 = "onnx.HammingWindow"(%size) : (tensor<i64>) -> tensor<*xf32>
  %2 = "onnx.BlackmanWindow"(%size) : (tensor<i64>) -> tensor<*xf32>
  %bins = "onnx.Constant"() {value = dense<8> : tensor<i64>} : () -> tensor<i64>
  %dft = "onnx.Constant"() {value = dense<16> : tensor<i64>} : () -> tensor<i64>
  %rate = "onnx.Constant"() {value = dense<16000> : tensor<i64>} : () -> tensor<i64>
  %3 = "onnx.MelWeightMatrix"(%bins, %dft, %rate, %f, %f) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// Multinomial draws sample_size values per batch row.
// CHECK-LABEL: func.func @multinomial(
// CHECK: "onnx.Multinomial"{{.*}} -> tensor<3x4xi32>
func.func @multinomial(%x: tensor<3x5xf32>) -> tensor<*xi32> {
  %0 = "onnx.Multinomial"(%x) {sample_size = 4 : i64} : (tensor<3x5xf32>) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

/// Losses: reduction "none" keeps the target's shape, others give a scalar;
/// SoftmaxCrossEntropyLoss's log_prob has the scores' shape.
// CHECK-LABEL: func.func @losses(
// CHECK: "onnx.NegativeLogLikelihoodLoss"{{.*}} -> tensor<3xf32>
// CHECK: "onnx.NegativeLogLikelihoodLoss"{{.*}} -> tensor<f32>
// CHECK: "onnx.SoftmaxCrossEntropyLoss"{{.*}} -> (tensor<f32>, tensor<3x5xf32>)
func.func @losses(%x: tensor<3x5xf32>, %t: tensor<3xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %n) {reduction = "none"} : (tensor<3x5xf32>, tensor<3xi64>, none) -> tensor<*xf32>
  %1 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %n) : (tensor<3x5xf32>, tensor<3xi64>, none) -> tensor<*xf32>
  %2, %3 = "onnx.SoftmaxCrossEntropyLoss"(%x, %t, %n) : (tensor<3x5xf32>, tensor<3xi64>, none) -> (tensor<*xf32>, tensor<*xf32>)
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

/// NonMaxSuppression selects a data-dependent number of [batch, class, box]
/// triples.
// CHECK-LABEL: func.func @non_max_suppression(
// CHECK: "onnx.NonMaxSuppression"{{.*}} -> tensor<?x3xi64>
func.func @non_max_suppression(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>) -> tensor<*xi64> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.NonMaxSuppression"(%b, %s, %n, %n, %n) : (tensor<1x10x4xf32>, tensor<1x2x10xf32>, none, none, none) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}

// -----

/// Text ops: StringNormalizer may drop words; TfIdfVectorizer has one column
/// per n-gram index.
// CHECK-LABEL: func.func @text(
// CHECK: "onnx.StringNormalizer"{{.*}} -> tensor<1x?x!onnx.string>
// CHECK: "onnx.TfIdfVectorizer"{{.*}} -> tensor<2x3xf32>
func.func @text(%s: tensor<1x4x!onnx.string>, %i: tensor<2x6xi64>) -> (tensor<*x!onnx.string>, tensor<*xf32>) {
  %0 = "onnx.StringNormalizer"(%s) {case_change_action = "LOWER"} : (tensor<1x4x!onnx.string>) -> tensor<*x!onnx.string>
  %1 = "onnx.TfIdfVectorizer"(%i) {max_gram_length = 1 : i64, max_skip_count = 0 : i64, min_gram_length = 1 : i64, mode = "TF", ngram_counts = array<i64: 0>, ngram_indexes = array<i64: 0, 1, 2>, pool_int64s = array<i64: 5, 6, 7>} : (tensor<2x6xi64>) -> tensor<*xf32>
  return %0, %1 : tensor<*x!onnx.string>, tensor<*xf32>
}
