//===- Passes.h - Lowering onnx to loops and buffers ---------------------===//
#ifndef ONNXCC_LOWERING_PASSES_H
#define ONNXCC_LOWERING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace onnxcc {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

/// Adds shape inference and the graph passes over the onnx dialect
/// (registered as the pipeline onnxcc-optimize-graph). Without
/// `foldBatchNorm`, BatchNormalization stays for the lowering (tests of it on
/// whole models). With `float16AsFloat32` (not for `onnxcc optimize`, whose
/// model keeps its types), float16 computes in float32 (onnx-f16-as-f32).
void buildGraphPipeline(mlir::OpPassManager &pm, bool foldBatchNorm = true,
                        bool float16AsFloat32 = true);

/// Adds the layout choice after the graph passes: onnx-channels-last, then
/// the folding of the constants it transposed and the cancelling of
/// transpose pairs. Only for the kernels (loop nests gain nothing).
void buildLayoutPipeline(mlir::OpPassManager &pm);

/// Adds the passes from the onnx dialect (after import) to loops over
/// buffers in one arena, the input of the C++ emitter: the graph pipeline,
/// then the lowering (registered as onnxcc-lower-cpu). `kernels` is the ISA
/// of the runtime-support kernels heavy ops call, or "none" for loop nests;
/// each kernel call is split into `threads` parts run on a thread pool.
void buildCpuLoweringPipeline(mlir::OpPassManager &pm, llvm::StringRef kernels = "none",
                              int64_t threads = 1, bool foldBatchNorm = true);

/// The graph passes, then the ONNX to linalg conversion with no kernels,
/// named linalg ops generalized: linalg on tensors, what the Halide emitter
/// (codegen/halide) reads. Registered as onnxcc-lower-halide.
void buildHalideLoweringPipeline(mlir::OpPassManager &pm);

/// Options of the CUDA target's lowering.
struct CudaLoweringOptions {
  /// The architecture the PTX is written for (--cuda-arch).
  std::string chip = "sm_80";
  /// The CUDA toolkit whose libdevice the kernels' math functions link
  /// (empty: MLIR's default search).
  std::string toolkitPath;
  /// Threads per block of the kernels of parallel loops.
  int64_t blockSize = 256;
};

/// The CUDA target (registered as onnxcc-lower-cuda): the CPU lowering with
/// no kernels down to parallel loops over one arena, then every loop nest in
/// a gpu.launch (onnxcc-map-to-gpu), outlined into one gpu.module, lowered to
/// NVVM and compiled to PTX by LLVM's NVPTX backend (gpu.binary). The host
/// function is what the C++ emitter prints, with its launches.
void buildCudaLoweringPipeline(mlir::OpPassManager &pm, const CudaLoweringOptions &options);

/// Registers the pipeline as `onnxcc-lower-cpu` for onnxcc-opt.
void registerLoweringPipelines();

} // namespace onnxcc

#endif // ONNXCC_LOWERING_PASSES_H
