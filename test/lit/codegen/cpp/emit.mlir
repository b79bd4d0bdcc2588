// RUN: onnxcc-translate %s --onnxcc-to-cpp --onnxcc-name=tiny --split-input-file -verify-diagnostics | FileCheck %s

/// The C interface names ports after their ONNX tensors, states dtypes and
/// shapes, the arena size; loops index through strides; constants go into
/// the weights blob; each node gets a comment with its op and name.
// CHECK-LABEL: // ==== tiny.h
// CHECK: #define tiny_ARENA_SIZE 64u
// CHECK: #define tiny_NUM_INPUTS 1
// CHECK: int tiny_run(void *arena,
// CHECK-NEXT: const float *x /* x: float32[2, 3] */,
// CHECK-NEXT: uint8_t *y /* y: uint8[2, 3] */);
// CHECK: namespace tiny {
// CHECK: struct Model {
// CHECK-LABEL: // ==== tiny.cpp
// CHECK: extern "C" const unsigned char tiny_weights[];
// CHECK: ".incbin \"" __FILE__ ".weights\"\n"
// CHECK: {"x", "float32", 4, 2, inputs_shape_0},
// CHECK: extern "C" int tiny_run(void *arena, const float *x, uint8_t *y) {
// CHECK: if (!arena || !x || !y)
// CHECK: const float *const [[W:w_[a-z]+]] = reinterpret_cast<const float *>(tiny_weights + 0);
// CHECK: float *const [[T:buf_[a-z]+]] = reinterpret_cast<float *>(arena_ + 0);
// CHECK: // Add 'bias'
// CHECK: for (int64_t [[I:i[0-9]+]] = 0; [[I]] < 2; ++[[I]]) {
// CHECK: for (int64_t [[J:i[0-9]+]] = 0; [[J]] < 3; ++[[J]]) {
// CHECK: const float [[A:v[0-9]+]] = x[[[I]] * 3 + [[J]]];
// CHECK: const float [[B:v[0-9]+]] = [[W]][[[J]]];
// CHECK: const float [[S:v[0-9]+]] = ([[A]] + [[B]]);
// CHECK: [[T]][[[I]] * 3 + [[J]]] = [[S]];
// CHECK: // Cast 'to_u8'
// CHECK: static_cast<int8_t>(onnxcc_rt::fp_to_ui<uint8_t>(
// CHECK: return 0;
// CHECK: // ==== tiny.cpp.weights: 12 bytes
module {
  memref.global "private" constant @cst : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
  func.func @main_graph(%x: memref<2x3xf32> {onnx.name = "x", onnx.dtype = "float32"},
                        %y: memref<2x3xi8> {onnx.name = "y", onnx.dtype = "uint8", onnxcc.output},
                        %arena: memref<?xi8> {onnxcc.arena})
      attributes {onnxcc.arena_size = 64 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %w = memref.get_global @cst : memref<3xf32>
    %t = memref.view %arena[%c0][] : memref<?xi8> to memref<2x3xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        %a = memref.load %x[%i, %j] : memref<2x3xf32>
        %b = memref.load %w[%j] : memref<3xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %t[%i, %j] : memref<2x3xf32>
      } loc(fused<"Add">["bias"])
    } loc(fused<"Add">["bias"])
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        %a = memref.load %t[%i, %j] : memref<2x3xf32>
        %u = arith.fptoui %a : f32 to i8
        memref.store %u, %y[%i, %j] : memref<2x3xi8>
      }
    } loc(fused<"Cast">["to_u8"])
    return
  }
}

// -----

/// An op the emitter does not know is an error, never silently dropped.
module {
  func.func @main_graph(%x: memref<2xf32> {onnx.name = "x"}, %arena: memref<?xi8> {onnxcc.arena}) {
    // expected-error @+1 {{cannot generate C++ for 'memref.alloc': unsupported memref op}}
    %a = memref.alloc() : memref<2xf32>
    return
  }
}

// -----

/// Port names that are C++ keywords or look like the emitter's locals are
/// prefixed, so the generated code compiles.
// CHECK-LABEL: // ==== tiny.h
// CHECK: int tiny_run(void *arena,
// CHECK-NEXT: const bool *p_not /* not: bool[2] */,
// CHECK-NEXT: bool *p_v1 /* v1: bool[2] */);
module {
  func.func @main_graph(%x: memref<2xi1> {onnx.name = "not", onnx.dtype = "bool"},
                        %y: memref<2xi1> {onnx.name = "v1", onnx.dtype = "bool", onnxcc.output},
                        %arena: memref<?xi8> {onnxcc.arena}) {
    memref.copy %x, %y : memref<2xi1> to memref<2xi1>
    return
  }
}

// -----

/// float16 is stored as 16-bit patterns and computed in float, rounded back
/// to half precision after every op.
// CHECK-LABEL: // ==== tiny.h
// CHECK: const uint16_t *x /* x: float16[4] */,
// CHECK: const float [[A:v[0-9]+]] = onnxcc_rt::f16_to_f32(x[[[I:i[0-9]+]]]);
// CHECK: const float [[S:v[0-9]+]] = onnxcc_rt::round_f16(([[A]] + [[A]]));
// CHECK: y[[[I]]] = onnxcc_rt::f32_to_f16([[S]]);
module {
  func.func @main_graph(%x: memref<4xf16> {onnx.name = "x", onnx.dtype = "float16"},
                        %y: memref<4xf16> {onnx.name = "y", onnx.dtype = "float16", onnxcc.output},
                        %arena: memref<?xi8> {onnxcc.arena}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %a = memref.load %x[%i] : memref<4xf16>
      %s = arith.addf %a, %a : f16
      memref.store %s, %y[%i] : memref<4xf16>
    }
    return
  }
}
