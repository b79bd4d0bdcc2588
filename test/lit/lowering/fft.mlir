// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg=kernels=avx2 | FileCheck %s
// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg="kernels=generic threads=4" | FileCheck %s --check-prefix=THREADS
// RUN: onnxcc-opt %s --split-input-file --convert-onnx-to-linalg | FileCheck %s --check-prefix=NONE

// Without kernels, DFT and STFT keep their O(N^2) contraction.
// NONE-NOT: onnxcc_kernels_fft_lines
// NONE: linalg.generic
// NONE-NOT: onnxcc_kernels_fft_lines

/// A real one-sided DFT of 400 points (the Whisper window, 4 * 4 * 5 * 5)
/// is one fft_lines call: x, no window, the output, the twiddles computed at
/// compile time (798 floats: 2 m (p - 1) per stage) and scratch (two
/// buffers of 400 elements of 8 lanes, re and im), then the line layout.
/// No loop nest is left.
// CHECK: func.func private @onnxcc_kernels_fft_lines({{.*}}) -> (i32 {onnxcc.status}) attributes {onnxcc.runtime = "onnxcc_rt::kernels::fft_lines"}
// CHECK-LABEL: func.func @rfft_400(
// CHECK-NOT: linalg.generic
// CHECK: %[[X:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[NOWINDOW:.*]] = arith.constant 0 : i32
// CHECK: %[[OUT:.*]] = bufferization.to_buffer %{{.*}} : tensor<?xf32> to memref<?xf32>
// CHECK: arith.constant dense_resource<{{.*}}_fft> : tensor<798xf32>
// CHECK: %[[PLAN:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: tensor.empty() : tensor<12800xf32>
// CHECK: %[[SCRATCH:.*]] = bufferization.to_buffer
/// outer 2, inner 1; x strides 400, 1, 1; 400 real elements; y strides
/// 402, 2, 2; 201 complex bins; n 400, stages at 400; forward; ISA 1.
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 400 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 400 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 402 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 201 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 400 : i64
// CHECK-NEXT: arith.constant 400 : i64
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK: call @onnxcc_kernels_fft_lines(%[[X]], %[[X]], %[[NOWINDOW]], %[[OUT]], %[[PLAN]], %[[SCRATCH]],
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 201, 2]
// CHECK-NOT: linalg.generic
/// One group of 16 real lines (two per complex one): a single part.
// THREADS-LABEL: func.func @rfft_400(
// THREADS: call @onnxcc_kernels_fft_lines
// THREADS-NOT: onnxcc.parts
// THREADS: return
func.func @rfft_400(%x: tensor<2x400x1xf32>) -> tensor<2x201x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.DFT"(%x, %none) {onesided = 1 : i64} : (tensor<2x400x1xf32>, none) -> tensor<2x201x2xf32>
  return %y : tensor<2x201x2xf32>
}

// -----

/// An inverse complex DFT along a middle axis: lines are strided (element
/// stride inner * 2 = 8), 3 * 4 of them; mode 1 (inverse).
// CHECK-LABEL: func.func @inverse_axis1(
// CHECK: arith.constant dense_resource<{{.*}}_fft> : tensor<38xf32>
// CHECK: tensor.empty() : tensor<640xf32>
// CHECK: bufferization.to_buffer
// CHECK-NEXT: arith.constant 3 : i64
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.constant 160 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 20 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 160 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 20 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 20 : i64
// CHECK-NEXT: arith.constant 20 : i64
// CHECK-NEXT: arith.constant 1 : i32
// CHECK: call @onnxcc_kernels_fft_lines(
// CHECK-NOT: linalg.generic
func.func @inverse_axis1(%x: tensor<3x20x4x2xf32>) -> tensor<3x20x4x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.DFT"(%x, %none) {axis = 1 : i64, inverse = 1 : i64} : (tensor<3x20x4x2xf32>, none) -> tensor<3x20x4x2xf32>
  return %y : tensor<3x20x4x2xf32>
}

// -----

/// IRFFT of 7 bins to 12 real values: mode 2, one output channel; a length
/// up to 12 is a product with its 12 x 12 twiddle matrix (288 floats).
// CHECK-LABEL: func.func @irfft_12(
// CHECK: arith.constant dense_resource<{{.*}}_fft> : tensor<288xf32>
// CHECK: arith.constant 7 : i64
// CHECK-NEXT: arith.constant 2 : i64
// CHECK-NEXT: arith.constant 12 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 12 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 12 : i64
// CHECK-NEXT: arith.constant 12 : i64
// CHECK-NEXT: arith.constant 2 : i32
// CHECK: call @onnxcc_kernels_fft_lines(
// CHECK-NOT: linalg.generic
func.func @irfft_12(%x: tensor<2x7x2xf32>) -> tensor<2x12x1xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.DFT"(%x, %none) {inverse = 1 : i64, onesided = 1 : i64} : (tensor<2x7x2xf32>, none) -> tensor<2x12x1xf32>
  return %y : tensor<2x12x1xf32>
}

// -----

/// A prime length (401) goes through Bluestein: stages at the 5-smooth
/// 810 >= 2 * 401 - 1, the plan holding the chirp (802 floats), its spectrum
/// (1620) and the 810-point stages (1618).
// CHECK-LABEL: func.func @prime_401(
// CHECK: arith.constant dense_resource<{{.*}}_fft> : tensor<4040xf32>
// CHECK: %[[PLANLEN:.*]] = arith.constant 810 : i64
// CHECK: call @onnxcc_kernels_fft_lines({{.*}}, %[[PLANLEN]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}})
// CHECK-NOT: linalg.generic
func.func @prime_401(%x: tensor<1x401x2xf32>) -> tensor<1x401x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.DFT"(%x, %none) : (tensor<1x401x2xf32>, none) -> tensor<1x401x2xf32>
  return %y : tensor<1x401x2xf32>
}

// -----

/// STFT with a window given at run time: frames are lines 160 floats apart
/// in the signal, the window multiplies each element as it is copied in
/// (has_window 1); (16000 - 400) / 160 + 1 = 98 frames of 201 bins.
// CHECK-LABEL: func.func @stft_audio(
// CHECK-SAME: %[[S:[^:]*]]: tensor<1x16000x1xf32>, %[[WIN:[^:]*]]: tensor<400xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[X:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[W:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 98 : i64
// CHECK-NEXT: arith.constant 16000 : i64
// CHECK-NEXT: arith.constant 160 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 400 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 39396 : i64
// CHECK-NEXT: arith.constant 402 : i64
// CHECK: call @onnxcc_kernels_fft_lines(%[[X]], %[[W]], %[[ONE]],
// CHECK-NOT: linalg.generic
/// 98 real frames make 7 groups of 16: 4 parts.
// THREADS-LABEL: func.func @stft_audio(
// THREADS: call @onnxcc_kernels_fft_lines({{.*}}) {onnxcc.part_operand = 22 : i64, onnxcc.parts = 4 : i64}
func.func @stft_audio(%x: tensor<1x16000x1xf32>, %w: tensor<400xf32>) -> tensor<1x98x201x2xf32> {
  %step = "onnx.Constant"() {value = dense<160> : tensor<i64>} : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.STFT"(%x, %step, %w, %none) : (tensor<1x16000x1xf32>, tensor<i64>, tensor<400xf32>, none) -> tensor<1x98x201x2xf32>
  return %y : tensor<1x98x201x2xf32>
}

// -----

/// float64 has no FFT kernel: the contraction stays.
// CHECK-LABEL: func.func @negative_f64(
// CHECK-NOT: onnxcc_kernels_fft_lines
// CHECK: linalg.generic
func.func @negative_f64(%x: tensor<2x8x2xf64>) -> tensor<2x8x2xf64> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.DFT"(%x, %none) : (tensor<2x8x2xf64>, none) -> tensor<2x8x2xf64>
  return %y : tensor<2x8x2xf64>
}

// -----

/// A frame step known at run time only: the frame count is data-dependent,
/// the O(N^2) lowering stays.
// CHECK-LABEL: func.func @negative_stft_runtime_step(
// CHECK-NOT: onnxcc_kernels_fft_lines
// CHECK: linalg.generic
func.func @negative_stft_runtime_step(%x: tensor<1x128x1xf32>, %step: tensor<i64>, %w: tensor<16xf32>) -> tensor<1x?x9x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.STFT"(%x, %step, %w, %none) : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>, none) -> tensor<1x?x9x2xf32>
  return %y : tensor<1x?x9x2xf32>
}
