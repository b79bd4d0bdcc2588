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
// CHECK: linalg.copy ins(%[[A]] : {{.*}}) outs(%[[B]] :
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C:.*]] = memref.view %[[ARENA]][%[[C0B]]][] : memref<?xi8> to memref<16xf32>
// CHECK: linalg.copy ins(%[[B]] : {{.*}}) outs(%[[C]] :
// CHECK: linalg.copy ins(%[[C]] : {{.*}}) outs(%[[OUT]] :
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @chain(%x: memref<16xf32>) -> (memref<16xf32> {onnx.name = "y"}) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
  // %a is dead here: %c may reuse its bytes.
  %c = memref.alloc() : memref<16xf32>
  linalg.copy ins(%b : memref<16xf32>) outs(%c : memref<16xf32>)
  %r = memref.alloc() : memref<16xf32>
  linalg.copy ins(%c : memref<16xf32>) outs(%r : memref<16xf32>)
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

// -----

/// Concat: each part is computed where the copy would have put it. %a and %b
/// become views of %cat at bytes 0 and 64; the copies are gone and %cat is
/// live from the first write of %a.
// CHECK-LABEL: func.func @concat_in_place
// CHECK-SAME: onnxcc.arena_size = 128
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %{{.*}}[%[[C0]]][] : memref<?xi8> to memref<1x16xf32>
// CHECK: linalg.copy ins(%{{.*}} : {{.*}}) outs(%[[A]] :
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %{{.*}}[%[[C64]]][] : memref<?xi8> to memref<1x16xf32>
// CHECK: linalg.copy ins(%{{.*}} : {{.*}}) outs(%[[B]] :
// CHECK: %[[CAT:.*]] = memref.view %{{.*}} : memref<?xi8> to memref<2x16xf32>
// CHECK-NOT: memref.copy %[[A]]
// CHECK-NOT: memref.copy %[[B]]
// CHECK: memref.copy %[[CAT]], %{{.*}} : memref<2x16xf32> to memref<2x16xf32>
func.func @concat_in_place(%x: memref<1x16xf32>, %y: memref<1x16xf32>) -> memref<2x16xf32> {
  %a = memref.alloc() : memref<1x16xf32>
  linalg.copy ins(%x : memref<1x16xf32>) outs(%a : memref<1x16xf32>)
  %b = memref.alloc() : memref<1x16xf32>
  linalg.copy ins(%y : memref<1x16xf32>) outs(%b : memref<1x16xf32>)
  %cat = memref.alloc() : memref<2x16xf32>
  %p0 = memref.subview %cat[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  memref.copy %a, %p0 : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  %p1 = memref.subview %cat[1, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  memref.copy %b, %p1 : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  // A consumer, so that %cat is not the output itself.
  %r = memref.alloc() : memref<2x16xf32>
  memref.copy %cat, %r : memref<2x16xf32> to memref<2x16xf32>
  return %r : memref<2x16xf32>
}

// -----

/// Not in place: %a is read after its copy.
// CHECK-LABEL: func.func @negative_read_after_copy
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1]>>
func.func @negative_read_after_copy(%x: memref<1x16xf32>) -> (memref<1x16xf32>, memref<2x16xf32>) {
  %a = memref.alloc() : memref<1x16xf32>
  linalg.copy ins(%x : memref<1x16xf32>) outs(%a : memref<1x16xf32>)
  %cat = memref.alloc() : memref<2x16xf32>
  %p0 = memref.subview %cat[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  memref.copy %a, %p0 : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  %p1 = memref.subview %cat[1, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  memref.copy %x, %p1 : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  %ra = memref.alloc() : memref<1x16xf32>
  linalg.copy ins(%a : memref<1x16xf32>) outs(%ra : memref<1x16xf32>)
  %rcat = memref.alloc() : memref<2x16xf32>
  linalg.copy ins(%cat : memref<2x16xf32>) outs(%rcat : memref<2x16xf32>)
  return %ra, %rcat : memref<1x16xf32>, memref<2x16xf32>
}

// -----

/// Not in place: %b's part starts 4 bytes in (the arena's alignment is 64).
// CHECK-LABEL: func.func @negative_misaligned
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<1x16xf32> to memref<1x16xf32, strided<[17, 1], offset: 1>>
func.func @negative_misaligned(%x: memref<1x16xf32>) -> memref<1x17xf32> {
  %b = memref.alloc() : memref<1x16xf32>
  linalg.copy ins(%x : memref<1x16xf32>) outs(%b : memref<1x16xf32>)
  %cat = memref.alloc() : memref<1x17xf32>
  %p1 = memref.subview %cat[0, 1] [1, 16] [1, 1] : memref<1x17xf32> to memref<1x16xf32, strided<[17, 1], offset: 1>>
  memref.copy %b, %p1 : memref<1x16xf32> to memref<1x16xf32, strided<[17, 1], offset: 1>>
  %r = memref.alloc() : memref<1x17xf32>
  linalg.copy ins(%cat : memref<1x17xf32>) outs(%r : memref<1x17xf32>)
  return %r : memref<1x17xf32>
}

// -----

/// Not in place: a column of %cat is not contiguous.
// CHECK-LABEL: func.func @negative_column
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<16x1xf32> to memref<16x1xf32, strided<[2, 1]>>
func.func @negative_column(%x: memref<16x1xf32>) -> memref<16x2xf32> {
  %c = memref.alloc() : memref<16x1xf32>
  linalg.copy ins(%x : memref<16x1xf32>) outs(%c : memref<16x1xf32>)
  %cat = memref.alloc() : memref<16x2xf32>
  %q0 = memref.subview %cat[0, 0] [16, 1] [1, 1] : memref<16x2xf32> to memref<16x1xf32, strided<[2, 1]>>
  memref.copy %c, %q0 : memref<16x1xf32> to memref<16x1xf32, strided<[2, 1]>>
  %r = memref.alloc() : memref<16x2xf32>
  linalg.copy ins(%cat : memref<16x2xf32>) outs(%r : memref<16x2xf32>)
  return %r : memref<16x2xf32>
}

// -----

/// Not in place: %cat is written (filled) before the copy into it; %d's
/// bytes would be overwritten by the fill.
// CHECK-LABEL: func.func @negative_written_before
// CHECK: linalg.fill
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
func.func @negative_written_before(%x: memref<1x16xf32>) -> memref<2x16xf32> {
  %cst = arith.constant 0.0 : f32
  %d = memref.alloc() : memref<1x16xf32>
  linalg.copy ins(%x : memref<1x16xf32>) outs(%d : memref<1x16xf32>)
  %cat = memref.alloc() : memref<2x16xf32>
  linalg.fill ins(%cst : f32) outs(%cat : memref<2x16xf32>)
  %s0 = memref.subview %cat[1, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  memref.copy %d, %s0 : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  %r = memref.alloc() : memref<2x16xf32>
  linalg.copy ins(%cat : memref<2x16xf32>) outs(%r : memref<2x16xf32>)
  return %r : memref<2x16xf32>
}

// -----

/// A size read through a collapse_shape of a symbolic buffer: the dim of
/// the collapsed group is the product of its source dims (4 n bytes here).
/// This once walked a destroyed temporary (caught by the sanitizer build).
// CHECK-LABEL: func.func @symbolic_collapse
// CHECK: arith.muli %{{.*}}, %c4
// CHECK: memref.view %{{.*}} : memref<?xi8> to memref<?xf32>
func.func @symbolic_collapse(%n: index {onnxcc.symbol = "n"}, %x: memref<1x?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<1x?xf32>
  memref.copy %x, %a : memref<1x?xf32> to memref<1x?xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<1x?xf32> into memref<?xf32>
  %d = memref.dim %flat, %c0 : memref<?xf32>
  %b = memref.alloc(%d) : memref<?xf32>
  linalg.copy ins(%flat : memref<?xf32>) outs(%b : memref<?xf32>)
  %r = memref.alloc(%d) : memref<?xf32>
  linalg.copy ins(%b : memref<?xf32>) outs(%r : memref<?xf32>)
  return %r : memref<?xf32>
}
