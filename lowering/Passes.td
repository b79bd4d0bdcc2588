//===- Passes.td - Lowering onnx to loops and buffers ------*- tablegen -*-===//
#ifndef ONNXCC_LOWERING_PASSES_TD
#define ONNXCC_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertOnnxToLinalgPass : Pass<"convert-onnx-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower onnx ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Elementwise and broadcasting ops become linalg.generic with broadcast
    indexing maps; contractions become linalg.generic; data movement becomes
    tensor ops; onnx.Constant becomes arith.constant. Unsigned element types
    become signless (signedness lives in the arith ops chosen). Needs static
    shapes; an op it cannot lower is an error naming the op and its node.

    With `kernels` set to an ISA, float32 Conv, Gemm and MatMul with
    constant weights (and their fused forms) become calls to the kernels of
    runtime-support/onnxcc_kernels.h, with the weights packed here; the
    module records the ISA as `onnxcc.kernels_isa` for the emitter. With
    `threads` N > 1 each call computes N fixed parts of its work, marked
    `onnxcc.parts` = N for the emitter, which runs them on a thread pool.
  }];
  let options = [
    Option<"kernels", "kernels", "std::string", "\"none\"",
           "Kernel ISA for heavy ops: none (loop nests), generic, avx2 or avx512">,
    Option<"threads", "threads", "int64_t", "1",
           "Parts each kernel call is split into, run on a thread pool (1: no threads)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::func::FuncDialect", "::mlir::scf::SCFDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def OnnxccFuseElementwisePass : Pass<"onnxcc-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic ops into their consumers, bounded";
  let description = [{
    Upstream's elementwise fusion (linalg::populateElementwiseOpsFusionPatterns,
    reshapes folded by expansion, constant folding of linalg ops), with the
    control function upstream's test pass uses (a producer with one use)
    plus a bound: a fusion whose result would hold more than
    `max-body-ops` ops in its body is not done. Each fusion clones both
    bodies, so without a bound a chain of n elementwise ops costs O(n^2)
    (a chain of 100,000 nodes took minutes); with one it is linear.
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "int64_t", "64",
           "Largest body a fused op may have">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
}

def OnnxccBranchResultsToBuffersPass
    : Pass<"onnxcc-branch-results-to-buffers", "::mlir::func::FuncOp"> {
  let summary = "scf.if results that are buffers become one buffer both branches fill";
  let description = [{
    After bufferization, an scf.if whose branches yield different buffers
    (one a constant, the other a computed buffer) has buffer results, which
    the C++ emitter cannot hold (so has an arith.select of two buffers, the
    canonical form of an scf.if of two constants). Each such result becomes a
    buffer allocated
    before the scf.if that each branch copies its value into. Static shapes
    only; other results stay (and the emitter reports them).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def OnnxccProtectInputsPass : Pass<"onnxcc-protect-inputs", "::mlir::func::FuncOp"> {
  let summary = "Mark function arguments read-only for bufferization";
  let description = [{
    The model's inputs belong to the caller: `bufferization.writable = false`
    on every argument keeps one-shot bufferization from updating them in place.
  }];
}

def OnnxccPlanMemoryPass : Pass<"onnxcc-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Outputs as arguments, every intermediate buffer in one arena";
  let description = [{
    After bufferization: returned buffers become output arguments (written in
    place when they were allocated here, copied otherwise); every remaining
    memref.alloc becomes a memref.view of an arena argument at an offset chosen
    by liveness (buffers whose lifetimes do not overlap share bytes). The arena
    size is recorded as the function's `onnxcc.arena_size` attribute.

    With symbolic dims (index arguments marked `onnxcc.symbol`), sizes are
    polynomials of the symbols: each buffer, in program order, goes at the
    aligned maximum of the ends of the earlier buffers it is live with,
    computed at function entry; a second function `<name>_arena_size`
    (attribute `onnxcc.arena_size_of`) computes the arena size from the
    symbols. Dynamic output dims are recorded as `onnxcc.dims`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64",
           "Alignment of the arena and of every buffer in it">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

def OnnxFoldConstantsPass : Pass<"onnx-fold-constants", "::mlir::func::FuncOp"> {
  let summary = "Evaluate onnx ops whose inputs are all constant";
  let description = [{
    Replaces an op whose operands are constants (or whose result depends only
    on static shapes, like Shape and Size) by an onnx.Constant. Elementwise
    ops are evaluated through the same scalar bodies the lowering generates,
    folded by the arith and math folders, so folded and computed values
    agree. A result larger than `size-limit` bytes (and larger than the
    constants it replaces) is left to run time, so folding never bloats the
    weights.
  }];
  let options = [
    Option<"sizeLimit", "size-limit", "int64_t", "65536",
           "Largest result in bytes folded when it grows the constants">,
  ];
  // The scalar bodies of elementwise ops are built from arith and math ops.
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

def OnnxccMapToGpuPass : Pass<"onnxcc-map-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Put the loop nests of the lowered function into gpu.launch ops";
  let description = [{
    For the CUDA target, after memory planning and the lowering to loops: the
    function that remains on the host computes sizes, views into the arena and
    run-time checks, and every loop nest that reads or writes tensor data
    becomes a `gpu.launch`. A top-level scf.parallel runs one thread per
    iteration (its iteration space linearized over blocks of `block-size`
    threads); any other op that touches memory (a sequential loop nest, a
    store) runs in a kernel of one thread. memref.copy becomes a parallel
    loop first, and constants (memref.get_global) are read where the host
    can pass them. Host loops that only split work (an scf.for whose body
    holds parallel loops, as the per-batch splitting of symbolic dims makes)
    stay on the host and launch their kernels once per iteration. What the
    host would have to read from device memory (a tensor value that decides
    a size or a branch) and calls of runtime-support functions on tensors
    are errors.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block of the kernels of parallel loops">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def OnnxccMergeGpuModulesPass : Pass<"onnxcc-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    After gpu-kernel-outlining, which makes one gpu.module per kernel: one
    module `onnxcc_kernels` with the kernels named k0, k1, ... in the order
    the host launches them first, so that the generated code loads a single
    PTX module.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // ONNXCC_LOWERING_PASSES_TD
