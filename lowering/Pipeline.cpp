//===- Pipeline.cpp - From the onnx dialect to loops over one arena ------===//
#include "lowering/Passes.h"

#include "dialects/onnx/ShapeContext.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace onnxcc {

void buildGraphPipeline(OpPassManager &pm, bool foldBatchNorm, bool float16AsFloat32) {
  // No target onnxcc compiles for has float16 arithmetic it uses: float16
  // models compute in float32 (and their weights take the float32 kernels).
  if (float16AsFloat32)
    pm.addNestedPass<func::FuncOp>(onnx::createOnnxFloat16AsFloat32Pass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxInferShapesPass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxStackSequencesPass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxInferShapesPass());
  // Graph optimizations.
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxSimplifyPass());
  pm.addNestedPass<func::FuncOp>(createOnnxFoldConstantsPass());
  // Operands that only folding made constant (shapes, indices, axes) are
  // checked now: an error the shape functions find there is the model's.
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxInferShapesPass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxSimplifyPass());
  if (foldBatchNorm)
    pm.addNestedPass<func::FuncOp>(onnx::createOnnxFoldBatchNormPass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxRecognizePass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxFusePass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxSimplifyPass());
}

void buildLayoutPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxChannelsLastPass());
  // The constants transposed to NHWC, then the transpose pairs.
  pm.addNestedPass<func::FuncOp>(createOnnxFoldConstantsPass());
  pm.addNestedPass<func::FuncOp>(onnx::createOnnxSimplifyPass());
}

namespace {
/// From the onnx dialect (after the graph passes) to linalg on buffers in one
/// arena: the lowering with `kernels` and `threads`, fusion, bufferization,
/// memory planning. The CPU and CUDA targets share it.
void addLoweringToBuffers(OpPassManager &pm, StringRef kernels, int64_t threads) {
  ConvertOnnxToLinalgPassOptions lowering;
  lowering.kernels = kernels.str();
  lowering.threads = threads;
  pm.addPass(createConvertOnnxToLinalgPass(lowering));
  pm.addPass(createCanonicalizerPass());
  // tensor.dim of computed tensors becomes the symbols' expressions.
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  pm.addPass(createCanonicalizerPass());
  // Each linalg.generic that reads its operands elementwise fuses into its
  // producer's loop nest.
  pm.addNestedPass<func::FuncOp>(createOnnxccFuseElementwisePass());
  pm.addNestedPass<func::FuncOp>(createOnnxccProtectInputsPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createOnnxccBranchResultsToBuffersPass());
  pm.addPass(createOnnxccPlanMemoryPass());
}

/// linalg on buffers to loops: scf.parallel where linalg says a dim is
/// parallel when `parallel`, else scf.for; then the strided metadata and
/// affine maps as arith.
void addLoops(OpPassManager &pm, bool parallel) {
  if (parallel)
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  else
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
} // namespace

void buildCpuLoweringPipeline(OpPassManager &pm, StringRef kernels, int64_t threads,
                              bool foldBatchNorm) {
  buildGraphPipeline(pm, foldBatchNorm);
  if (kernels != "none")
    buildLayoutPipeline(pm);
  addLoweringToBuffers(pm, kernels, threads);
  // Loop nests stay scf.parallel where linalg says they are parallel: the
  // emitter runs the large ones on the thread pool (with threads) and marks
  // the innermost parallel loops independent for the C++ compiler.
  addLoops(pm, kernels != "none");
}

void buildCudaLoweringPipeline(OpPassManager &pm, const CudaLoweringOptions &options) {
  buildGraphPipeline(pm);
  addLoweringToBuffers(pm, "none", 1);
  // The parallel dims of every linalg op become the threads of its kernel.
  addLoops(pm, /*parallel=*/true);
  OnnxccMapToGpuPassOptions mapping;
  mapping.blockSize = options.blockSize;
  pm.addPass(createOnnxccMapToGpuPass(mapping));
  // Trip counts of static loops become constants, and constants and index
  // arithmetic move into the kernels (no parameter for them).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createOnnxccMergeGpuModulesPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = options.toolkitPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {
/// A function result that a Reduce* with axes given at run time computes has
/// data-dependent dims (also through elementwise ops after it). Where the
/// model declares a static shape for it
/// (`onnx.declared_shape`, from the importer), targets without
/// data-dependent dims (Halide) compile for that shape:
///
/// onnxcc-mark-declared-shapes (before the lowering) gives the Reduce* the
/// declared shape as `onnxcc.declared_shape`; its lowering checks at run
/// time that the axes give that shape (run() returns 9 otherwise) and
/// reduces without a scatter loop, then casts to the dynamic type.
/// onnxcc-take-declared-shapes (after it) makes the result that static
/// tensor.
/// The return of a function of one block (null for a declaration).
func::ReturnOp singleReturn(func::FuncOp func) {
  if (func.isDeclaration() || !func.getBody().hasOneBlock())
    return {};
  return dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
}

struct MarkDeclaredShapesPass
    : public PassWrapper<MarkDeclaredShapesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MarkDeclaredShapesPass)
  StringRef getArgument() const override { return "onnxcc-mark-declared-shapes"; }
  StringRef getDescription() const override {
    return "Mark a Reduce* with run-time axes with the result shape the model declares";
  }
  void runOnOperation() override {
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      func::ReturnOp ret = singleReturn(func);
      if (!ret)
        continue;
      for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
        auto declared = func.getResultAttrOfType<DenseI64ArrayAttr>(i, "onnx.declared_shape");
        // Through elementwise ops of one data operand (a function's
        // expansion: ReduceSum then Sqrt, Log, CastLike).
        Value v = result;
        while (Operation *def = v.getDefiningOp()) {
          if (!v.hasOneUse() || def->getNumResults() != 1 || def->getNumOperands() < 1 ||
              !llvm::is_contained({"onnx.Sqrt", "onnx.Log", "onnx.Exp", "onnx.Abs", "onnx.Neg",
                                   "onnx.Cast", "onnx.CastLike", "onnx.Identity"},
                                  def->getName().getStringRef()))
            break;
          v = def->getOperand(0);
        }
        Operation *def = v.getDefiningOp();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (declared && def && type && v.hasOneUse() && def->getNumResults() == 1 &&
            def->getName().getStringRef().starts_with("onnx.Reduce") &&
            def->getNumOperands() >= 2 && !isa<NoneType>(def->getOperand(1).getType()) &&
            static_cast<int64_t>(declared.size()) == type.getRank())
          def->setAttr("onnxcc.declared_shape", declared);
      }
      // Any other data-dependent dim an output declares static (a Range's
      // length, a window's size): its value is the declared one, checked
      // at run time (OnnxTypeConverter::defineDataDim).
      onnx::ShapeMap shapes;
      {
        ScopedDiagnosticHandler quiet(func.getContext(), [](Diagnostic &) { return success(); });
        (void)onnx::inferShapesInFunction(func, &shapes);
      }
      NamedAttrList declaredDims;
      for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
        auto declared = func.getResultAttrOfType<DenseI64ArrayAttr>(i, "onnx.declared_shape");
        std::optional<onnx::Shape> shape = shapes.lookup(result);
        if (!declared || !shape || static_cast<int64_t>(shape->size()) != declared.size())
          continue;
        for (auto [d, dim] : llvm::enumerate(*shape)) {
          if (!dim.isSymbolic())
            continue;
          auto terms = dim.expr.getTerms();
          if (terms.size() != 1 || terms[0].coeff != 1 || terms[0].syms.size() != 1 ||
              !shapes.isDataSymbol(terms[0].syms[0]) || declaredDims.get(terms[0].syms[0]))
            continue;
          declaredDims.set(terms[0].syms[0],
                           IntegerAttr::get(IntegerType::get(func.getContext(), 64), declared[d]));
        }
      }
      if (!declaredDims.empty())
        func->setAttr("onnxcc.declared_data_dims",
                      declaredDims.getDictionary(func.getContext()));
    }
  }
};

struct TakeDeclaredShapesPass
    : public PassWrapper<TakeDeclaredShapesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TakeDeclaredShapesPass)
  StringRef getArgument() const override { return "onnxcc-take-declared-shapes"; }
  StringRef getDescription() const override {
    return "Return the static tensor a Reduce* with run-time axes was lowered to";
  }
  void runOnOperation() override {
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      func::ReturnOp ret = singleReturn(func);
      if (!ret)
        continue;
      bool changed = false;
      for (OpOperand &operand : ret->getOpOperands()) {
        auto declared = func.getResultAttrOfType<DenseI64ArrayAttr>(
            operand.getOperandNumber(), "onnx.declared_shape");
        auto cast = operand.get().getDefiningOp<tensor::CastOp>();
        if (!declared || !cast)
          continue;
        auto source = dyn_cast<RankedTensorType>(cast.getSource().getType());
        if (!source || source.getShape() != declared.asArrayRef())
          continue;
        operand.set(cast.getSource());
        changed = true;
      }
      if (!changed)
        continue;
      func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                     ret.getOperandTypes()));
      if (llvm::all_of(ret.getOperandTypes(), [](Type t) {
            auto r = dyn_cast<RankedTensorType>(t);
            return !r || r.hasStaticShape();
          }))
        func->removeAttr("onnxcc.num_data_dims");
    }
  }
};
/// onnxcc-unroll-static-loops: an scf.for of tensors with a constant trip
/// count of at most `kMaxTrips` (an RNN's or a Scan's steps, a linear
/// attention's recurrence) becomes its iterations one after the other: a
/// Halide pipeline is a graph of Funcs without loops around them. Longer
/// loops stay (the emitter refuses them in one line), and so does a loop
/// whose unrolled body would pass `kMaxUnrolledOps` ops (nested loops of a
/// hostile model must not blow up the compile).
struct UnrollStaticLoopsPass
    : public PassWrapper<UnrollStaticLoopsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(UnrollStaticLoopsPass)
  static constexpr int64_t kMaxTrips = 64;
  static constexpr int64_t kMaxUnrolledOps = 1 << 16;
  StringRef getArgument() const override { return "onnxcc-unroll-static-loops"; }
  StringRef getDescription() const override {
    return "Unroll scf.for loops with a small constant trip count";
  }
  void runOnOperation() override {
    // Innermost first: post-order.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips || trips->getSExtValue() > kMaxTrips)
        continue;
      int64_t bodyOps = 0;
      loop.getBody()->walk([&](Operation *) { ++bodyOps; });
      if (bodyOps * trips->getSExtValue() > kMaxUnrolledOps)
        continue;
      (void)loopUnrollFull(loop);
    }
  }
};
} // namespace

void buildHalideLoweringPipeline(OpPassManager &pm) {
  buildGraphPipeline(pm);
  pm.addPass(std::make_unique<MarkDeclaredShapesPass>());
  ConvertOnnxToLinalgPassOptions lowering;
  lowering.kernels = "none";
  pm.addPass(createConvertOnnxToLinalgPass(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(std::make_unique<TakeDeclaredShapesPass>());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(std::make_unique<UnrollStaticLoopsPass>());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createOnnxccFuseElementwisePass());
  pm.addPass(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
struct CpuLoweringOptions : public PassPipelineOptions<CpuLoweringOptions> {
  Option<std::string> kernels{
      *this, "kernels",
      llvm::cl::desc("Kernel ISA for heavy ops: none (loop nests), generic, avx2 or avx512"),
      llvm::cl::init("none")};
  Option<int64_t> threads{*this, "threads",
                          llvm::cl::desc("Parts each kernel call is split into (1: no threads)"),
                          llvm::cl::init(1)};
  Option<bool> foldBatchNorm{*this, "fold-batchnorm",
                             llvm::cl::desc("Fold BatchNormalization into Conv/Gemm weights "
                                            "(false: lower it as it is)"),
                             llvm::cl::init(true)};
};
struct CudaPipelineOptions : public PassPipelineOptions<CudaPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("The GPU architecture (sm_80, ...)"),
                           llvm::cl::init("sm_80")};
  Option<std::string> toolkit{*this, "toolkit",
                              llvm::cl::desc("The CUDA toolkit holding libdevice"),
                              llvm::cl::init("")};
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
};
} // namespace

void registerLoweringPipelines() {
  registerOnnxccLoweringPasses();
  PassPipelineRegistration<>("onnxcc-optimize-graph",
                             "Shape inference and the graph passes over the onnx dialect",
                             [](OpPassManager &pm) { buildGraphPipeline(pm); });
  PassPipelineRegistration<CpuLoweringOptions>(
      "onnxcc-lower-cpu", "Lower the onnx dialect to loops over buffers in one arena",
      [](OpPassManager &pm, const CpuLoweringOptions &options) {
        buildCpuLoweringPipeline(pm, options.kernels, options.threads, options.foldBatchNorm);
      });
  PassPipelineRegistration<CudaPipelineOptions>(
      "onnxcc-lower-cuda",
      "Lower the onnx dialect to host code launching PTX kernels (the CUDA target)",
      [](OpPassManager &pm, const CudaPipelineOptions &o) {
        CudaLoweringOptions options;
        options.chip = o.chip;
        options.toolkitPath = o.toolkit;
        options.blockSize = o.blockSize;
        buildCudaLoweringPipeline(pm, options);
      });
  PassPipelineRegistration<>("onnxcc-lower-halide",
                             "Lower the onnx dialect to linalg on tensors for the Halide target",
                             [](OpPassManager &pm) { buildHalideLoweringPipeline(pm); });
}

} // namespace onnxcc
