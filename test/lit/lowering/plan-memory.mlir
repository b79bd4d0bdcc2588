// RUN: onnxcc-opt %s --onnxcc-plan-memory --split-input-file -verify-diagnostics | FileCheck %s

/// Returned buffers become output arguments, written in place; buffers whose
/// lifetimes do not overlap share arena bytes; the arena size is recorded.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32> {onnx.name = "y", onnxcc.output}, %[[ARENA:.*]]: memref<?xi8> {onnxcc.arena})
// CHECK-SAME: attributes {onnxcc.arena_alignment = 64 : i64, onnxcc.arena_size = 128 : i64}
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<?xi8> to memref<16xf32>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[ARENA]][%[[C64]]][] : memref<?xi8> to memref<16xf32>
// CHECK: memref.copy %[[X]], %[[A]]
// CHECK: memref.copy %[[A]], %[[B]]
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C:.*]] = memref.view %[[ARENA]][%[[C0B]]][] : memref<?xi8> to memref<16xf32>
// CHECK: memref.copy %[[B]], %[[C]]
// CHECK: memref.copy %[[C]], %[[OUT]]
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @chain(%x: memref<16xf32>) -> (memref<16xf32> {onnx.name = "y"}) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  // %a is dead here: %c may reuse its bytes.
  %c = memref.alloc() : memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  %r = memref.alloc() : memref<16xf32>
  memref.copy %c, %r : memref<16xf32> to memref<16xf32>
  return %r : memref<16xf32>
}

// -----

/// A returned value that was not allocated here (an input) is copied into
/// its output argument; no arena bytes are needed.
// CHECK-LABEL: func.func @passthrough
// CHECK-SAME: (%[[X:.*]]: memref<4xi64>, %[[OUT:.*]]: memref<4xi64> {onnxcc.output}, %{{.*}}: memref<?xi8> {onnxcc.arena})
// CHECK-SAME: onnxcc.arena_size = 0
// CHECK: memref.copy %[[X]], %[[OUT]]
func.func @passthrough(%x: memref<4xi64>) -> memref<4xi64> {
  return %x : memref<4xi64>
}

// -----

/// A view of a buffer keeps the buffer alive: %a and %b overlap in time.
// CHECK-LABEL: func.func @views
// CHECK-SAME: onnxcc.arena_size = 128
func.func @views(%x: memref<2x8xf32>) -> memref<16xf32> {
  %a = memref.alloc() : memref<2x8xf32>
  memref.copy %x, %a : memref<2x8xf32> to memref<2x8xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x8xf32> into memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %flat, %b : memref<16xf32> to memref<16xf32>
  %r = memref.alloc() : memref<16xf32>
  memref.copy %flat, %r : memref<16xf32> to memref<16xf32>
  memref.copy %b, %r : memref<16xf32> to memref<16xf32>
  return %r : memref<16xf32>
}

// -----

/// Intermediate buffers need static sizes or sizes computed from symbols
/// (index arguments marked onnxcc.symbol); %n is neither.
func.func @negative_dynamic_intermediate(%n: index, %x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{buffer 'memref<?xf32>' has a size that is not a function of the symbolic dims}}
  %a = memref.alloc(%n) : memref<?xf32>
  %r = memref.alloc() : memref<4xf32>
  memref.copy %x, %r : memref<4xf32> to memref<4xf32>
  return %r : memref<4xf32>
}

// -----

/// So do outputs.
func.func @negative_dynamic_output(%n: index) -> memref<?xf32> {
  %a = memref.alloc(%n) : memref<?xf32>
  // expected-error @+1 {{output buffer 'memref<?xf32>' has dim 0 that is not a function of the symbolic dims}}
  return %a : memref<?xf32>
}

// -----

/// Sizes computed from symbols: offsets are computed at entry, in program
/// order, each buffer after the aligned ends of the live ones before it; the
/// arena size becomes a function of the symbols; dynamic output dims are
/// recorded.
// CHECK-LABEL: func.func @symbolic
// CHECK-SAME: (%[[N:.*]]: index {onnxcc.symbol = "n"}, %{{.*}}: memref<?xf32> {onnxcc.dims = {{\[}}{{\[}}[2, "n"]]], onnxcc.output}, %[[ARENA:.*]]: memref<?xi8> {onnxcc.arena})
// CHECK: %[[ZERO:.*]] = arith.andi
// CHECK: %[[BYTES:.*]] = arith.muli %[[N]], %c4
// CHECK: %[[AEND:.*]] = arith.addi %[[ZERO]], %[[BYTES]]
// CHECK: arith.maxsi %c0, %[[AEND]]
// CHECK: %[[MAX:.*]] = arith.maxsi %c0, %[[AEND]]
// CHECK: %[[UP:.*]] = arith.addi %[[MAX]], %c63
// CHECK: %[[OFF:.*]] = arith.andi %[[UP]], %c-64
// CHECK: memref.view %[[ARENA]][%[[ZERO]]][%[[N]]] : memref<?xi8> to memref<?xf32>
// CHECK: memref.view %[[ARENA]][%[[OFF]]][%[[N]]] : memref<?xi8> to memref<?xf32>
// CHECK-LABEL: func.func @symbolic_arena_size
// CHECK-SAME: (%{{.*}}: index {onnxcc.symbol = "n"}) -> index attributes {onnxcc.arena_size_of = @symbolic}
// CHECK: return
func.func @symbolic(%n: index {onnxcc.symbol = "n"}) -> memref<?xf32> {
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  %a = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %b : memref<?xf32> to memref<?xf32>
  %r = memref.alloc(%m) : memref<?xf32>
  %sa = memref.subview %r[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  memref.copy %b, %sa : memref<?xf32> to memref<?xf32, strided<[1]>>
  return %r : memref<?xf32>
}

// -----

/// The largest dim run() accepts keeps every size below 2^62: a buffer of
/// 4*n^4 bytes allows n up to 2^14 (4 * 2^56 = 2^58, while 2^15 would reach
/// 2^62).
// CHECK-LABEL: func.func @symbolic_bound
// CHECK-SAME: onnxcc.max_dim = 16384
func.func @symbolic_bound(%n: index {onnxcc.symbol = "n"}, %x: memref<4xf32>) -> memref<4xf32> {
  %n2 = arith.muli %n, %n : index
  %n4 = arith.muli %n2, %n2 : index
  %a = memref.alloc(%n4) : memref<?xf32>
  %r = memref.alloc() : memref<4xf32>
  memref.copy %x, %r : memref<4xf32> to memref<4xf32>
  return %r : memref<4xf32>
}
