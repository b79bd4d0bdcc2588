// RUN: onnxcc-opt %s --split-input-file --onnxcc-map-to-gpu --verify-diagnostics | FileCheck %s

// A parallel loop is one thread per point: the iteration space (4 x 6 with
// steps 1 and 2 from 0 and 1: 4 x 3 points) linearized over blocks of 256,
// the thread's point recovered by division and remainder, a guard for the
// last block. A sequential nest after it is a kernel of one thread.
// CHECK-LABEL: func.func @parallel
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS:.*]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[T:.*]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: arith.muli %{{.*}}, %c256
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: gpu.terminator
func.func @parallel(%a: memref<4x6xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c1) to (%c4, %c6) step (%c1, %c2) {
    memref.store %f, %a[%i, %j] : memref<4x6xf32>
    scf.reduce
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %a[%i, %c0] : memref<4x6xf32>
    memref.store %v, %b[%i] : memref<4xf32>
  }
  return
}

// -----

// Division by zero, MIN / -1, shifts past the width and out-of-range casts
// get defined values inside kernels (selects around a safe operation).
// CHECK-LABEL: func.func @undefined
// CHECK: gpu.launch
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[D:.*]], %c0_i32
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %c1_i32, %[[D]]
// CHECK: %[[Q:.*]] = arith.divsi %{{.*}}, %[[SAFE]]
// CHECK: arith.select %[[Z]], %c0_i32, %[[Q]]
// CHECK: arith.cmpi uge
// CHECK: arith.shli
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf olt
// CHECK: arith.fptosi
// CHECK: arith.select
// CHECK: arith.select
func.func @undefined(%x: memref<8xi32>, %y: memref<8xf32>, %o: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %x[%i] : memref<8xi32>
    %d = memref.load %x[%c0] : memref<8xi32>
    %q = arith.divsi %a, %d : i32
    %s = arith.shli %q, %d : i32
    %f = memref.load %y[%i] : memref<8xf32>
    %c = arith.fptosi %f : f32 to i32
    %r = arith.addi %s, %c : i32
    memref.store %r, %o[%i] : memref<8xi32>
    scf.reduce
  }
  return
}

// -----

// A scalar the host reads (a run-time shape operand) stays on the host: the
// emitter reads it from device memory after the kernels before it.
// CHECK-LABEL: func.func @host_read
// CHECK: %[[N:.*]] = memref.load %arg0[%c0] : memref<4xindex>
// CHECK: gpu.launch
func.func @host_read(%x: memref<4xindex>, %o: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.load %x[%c0] : memref<4xindex>
  %f = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %o[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A size computed by a loop over tensor values is refused.
func.func @host_loop(%x: memref<4xindex>, %o: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{a size, a branch or a loop bound that depends on tensor values cannot be computed on the GPU target yet}}
  %n = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> index {
    %v = memref.load %x[%i] : memref<4xindex>
    %s = arith.addi %acc, %v : index
    scf.yield %s : index
  }
  %f = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %o[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
