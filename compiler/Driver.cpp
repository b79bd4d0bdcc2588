//===- Driver.cpp - onnxcc compile: model to C++ -------------------------===//
#include "compiler/Driver.h"
#include "compiler/Errors.h"

#include "codegen/SourceText.h"
#include "codegen/cpp/CppEmitter.h"
#include "compiler/Exporter.h"
#include "compiler/Flops.h"
#include "compiler/Report.h"
#include "compiler/HalideTarget.h"
#include "compiler/TargetCpu.h"
#include "compiler/Importer.h"
#include "compiler/ModelLoader.h"
#include "compiler/Registration.h"
#include "dialects/onnx/OnnxDialect.h"
#include "lowering/Passes.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <mutex>

using namespace mlir;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc {

std::string dtypeName(Type t) {
  if (auto s = dyn_cast<ShapedType>(t))
    t = s.getElementType();
  if (t.isF32()) return "float32";
  if (t.isF64()) return "float64";
  if (t.isF16()) return "float16";
  if (t.isBF16()) return "bfloat16";
  if (isa<Float8E4M3FNType>(t)) return "float8e4m3fn";
  if (isa<Float8E4M3FNUZType>(t)) return "float8e4m3fnuz";
  if (isa<Float8E5M2Type>(t)) return "float8e5m2";
  if (isa<Float8E5M2FNUZType>(t)) return "float8e5m2fnuz";
  if (isa<Float8E8M0FNUType>(t)) return "float8e8m0";
  if (isa<Float4E2M1FNType>(t)) return "float4e2m1";
  if (t.isInteger(1)) return "bool";
  if (isa<onnx::StringType>(t)) return "string";
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.isUnsigned() ? "uint" : "int") + std::to_string(i.getWidth());
  return "unknown";
}

// kRuntimeSupportHeader: runtime-support/onnxcc_rt.h, embedded at build time
// (compiler/EmbedText.cmake), so that onnxcc works wherever it is installed.
#include "onnxcc_rt.inc"
// kKernelsHeader: runtime-support/onnxcc_kernels.h, likewise.
#include "onnxcc_kernels.inc"
// kWinogradHeader: runtime-support/onnxcc_kernels_winograd.h, likewise (the
// kernels header includes it).
#include "onnxcc_kernels_winograd.inc"
// kRnnHeader: runtime-support/onnxcc_kernels_rnn.h (RNN, GRU and LSTM),
// likewise.
#include "onnxcc_kernels_rnn.inc"
// kFftHeader: runtime-support/onnxcc_kernels_fft.h, likewise.
#include "onnxcc_kernels_fft.inc"
// kInt8Header: runtime-support/onnxcc_kernels_int8.h (integer GEMM),
// likewise.
#include "onnxcc_kernels_int8.inc"
// kThreadsHeader: runtime-support/onnxcc_threads.h, likewise.
#include "onnxcc_threads.inc"
// kMLHeader: runtime-support/onnxcc_ml.h (ai.onnx.ml kernels), likewise.
#include "onnxcc_ml.inc"
// kCudaHeader: runtime-support/onnxcc_cuda.h (the CUDA target's launcher).
#include "onnxcc_cuda.inc"

namespace {

/// Applies --shape: inputs with symbolic dims get the given static dims.
Error setShapes(func::FuncOp func, const std::vector<std::pair<std::string, std::vector<int64_t>>> &shapes) {
  SmallVector<Type> argTypes(func.getArgumentTypes());
  for (const auto &[name, dims] : shapes) {
    bool found = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto n = func.getArgAttrOfType<StringAttr>(i, "onnx.name");
      if (!n || n.getValue() != name)
        continue;
      found = true;
      if (func.getArgAttr(i, "onnxcc.map_part"))
        return makeError("--shape names '" + name +
                         "', a map input: its length is given to run() at run time");
      // An optional tensor: the shape of its value.
      if (auto opt = dyn_cast<onnx::OptType>(argTypes[i]); opt && isa<TensorType>(opt.getElementType())) {
        func.setArgAttr(i, "onnxcc.content_shape", DenseI64ArrayAttr::get(func.getContext(), dims));
        continue;
      }
      auto t = dyn_cast<RankedTensorType>(argTypes[i]);
      if (!t || t.getRank() != static_cast<int64_t>(dims.size()))
        return makeError("--shape " + name + ": the input has rank " +
                         Twine(t ? t.getRank() : -1) + ", the shape gives " +
                         Twine(dims.size()) + " dims");
      for (auto [declared, given] : llvm::zip(t.getShape(), dims))
        if (!ShapedType::isDynamic(declared) && declared != given)
          return makeError("--shape " + name + ": dim " + Twine(given) +
                           " contradicts the model's " + Twine(declared));
      // As the importer: sizes in bytes stay far from int64's limits.
      int64_t count = 1;
      for (int64_t d : dims) {
        if (d < 0)
          return makeError("--shape " + name + ": dim " + Twine(d) + " is negative");
        if (d > 0 && count > (int64_t(1) << 59) / d)
          return makeError("--shape " + name + ": more than 2^59 elements");
        count *= d;
      }
      argTypes[i] = RankedTensorType::get(dims, t.getElementType());
      func.getArgument(i).setType(argTypes[i]);
    }
    if (!found)
      return makeError("--shape names '" + name + "', which is not an input of the model");
  }
  func.setType(FunctionType::get(func.getContext(), argTypes, func.getResultTypes()));
  return Error::success();
}

/// Applies --shape, then checks that every dim left is a named parameter (the
/// generated code takes those at call time).
Error applyShapes(func::FuncOp func, const CompileOptions &options) {
  if (Error e = setShapes(func, options.shapes))
    return e;
  // --sequence: the element shapes of a sequence input (or of the value of
  // an optional sequence).
  for (const auto &[name, shapes] : options.sequences) {
    bool found = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto n = func.getArgAttrOfType<StringAttr>(i, "onnx.name");
      if (!n || n.getValue() != name)
        continue;
      Type t = func.getArgumentTypes()[i];
      if (auto opt = dyn_cast<onnx::OptType>(t))
        t = opt.getElementType();
      if (!isa<onnx::SeqType>(t))
        return makeError("--sequence names '" + name + "', which is not a sequence input");
      found = true;
      SmallVector<Attribute> elements;
      for (const std::vector<int64_t> &dims : shapes) {
        int64_t count = 1;
        for (int64_t d : dims) {
          if (d < 0)
            return makeError("--sequence " + name + ": dim " + Twine(d) + " is negative");
          if (d > 0 && count > (int64_t(1) << 59) / d)
            return makeError("--sequence " + name + ": an element of more than 2^59 elements");
          count *= d;
        }
        elements.push_back(DenseI64ArrayAttr::get(func.getContext(), dims));
      }
      func.setArgAttr(i, "onnxcc.sequence_shapes", ArrayAttr::get(func.getContext(), elements));
    }
    if (!found)
      return makeError("--sequence names '" + name + "', which is not an input of the model");
  }
  // --bound: read by the shape functions of ops with data-dependent dims
  // (onnx::ShapeContext::dataDim).
  if (!options.bounds.empty()) {
    MLIRContext *ctx = func.getContext();
    SmallVector<NamedAttribute> bounds;
    for (const auto &[node, n] : options.bounds)
      bounds.push_back(NamedAttribute(StringAttr::get(ctx, node),
                                      IntegerAttr::get(IntegerType::get(ctx, 64), n)));
    func->setAttr("onnxcc.bounds", DictionaryAttr::get(ctx, bounds));
    // A bound turns a dim the model declares (and the shape functions took)
    // into a data-dependent one: keep the declared shape for the targets
    // that compile for it (onnxcc-mark-declared-shapes).
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      auto t = dyn_cast<RankedTensorType>(func.getResultTypes()[i]);
      if (t && t.hasStaticShape() && !func.getResultAttr(i, "onnx.declared_shape"))
        func.setResultAttr(i, "onnx.declared_shape", DenseI64ArrayAttr::get(ctx, t.getShape()));
    }
  }
  SmallVector<Type> argTypes(func.getArgumentTypes());
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto t = dyn_cast<RankedTensorType>(argTypes[i]);
    if (t && t.hasStaticShape())
      continue;
    auto n = func.getArgAttrOfType<StringAttr>(i, "onnx.name");
    // Sequences and optionals: onnx::expandBoundaryValues checks them.
    if (!isa<TensorType>(argTypes[i]))
      continue;
    // Named dims (dim_params) become parameters of the generated code.
    auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
    bool allNamed = t && params && params.size() == static_cast<size_t>(t.getRank());
    for (int64_t d = 0; allNamed && d < t.getRank(); ++d) {
      auto name = dyn_cast<StringAttr>(params[d]);
      allNamed = !t.isDynamicDim(d) || (name && !name.getValue().empty());
    }
    if (allNamed)
      continue;
    // The importer names every dim of a ranked input: what is left is an
    // input without a shape.
    return makeError("input '" + (n ? n.getValue() : StringRef("?")) +
                     "' has no shape (its rank is not known); give it with --shape " +
                     (n ? n.getValue() : StringRef("NAME")) + "=D0xD1x...");
  }
  return Error::success();
}

Error writeFile(StringRef dir, StringRef name, StringRef contents) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError("cannot write " + path + ": " + ec.message());
  os << contents;
  os.close();
  if (os.has_error())
    return makeError("cannot write " + path);
  return Error::success();
}
/// A diagnostic handler keeping the first error in `diagnostic`, prefixed
/// with the ONNX node it is about; warnings go to stderr at once, one line
/// each ("onnxcc: warning: node 'x': ...").
std::function<LogicalResult(Diagnostic &)> firstErrorCollector(std::string &diagnostic) {
  return [&diagnostic](Diagnostic &d) {
    bool warning = d.getSeverity() == DiagnosticSeverity::Warning;
    if (warning || (diagnostic.empty() && d.getSeverity() == DiagnosticSeverity::Error)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      // A fused node's location lists the nodes it replaced, its anchor
      // first: that one names it.
      bool named = false;
      std::function<void(Location)> findName = [&](Location loc) {
        if (named)
          return;
        if (auto name = dyn_cast<NameLoc>(loc)) {
          os << "node '" << name.getName().getValue() << "': ";
          named = true;
          return;
        }
        if (auto fused = dyn_cast<FusedLoc>(loc))
          for (Location l : fused.getLocations())
            findName(l);
      };
      findName(d.getLocation());
      os << d.str();
      if (warning)
        llvm::errs() << "onnxcc: warning: " << codegen::displayText(text, 400) << "\n";
      else
        diagnostic = text;
    }
    return success();
  };
}

/// The model at `modelPath` imported into `context`.
llvm::Expected<OwningOpRef<ModuleOp>> loadAndImport(MLIRContext &context, StringRef modelPath) {
  auto model = loadModel(modelPath);
  if (!model)
    return model.takeError();
  return importModel(context, *model);
}

/// `onnxcc compile`'s progress lines (--quiet or a stderr that is no
/// terminal turn them off): each stage as it starts, the time at the end.
class Progress {
public:
  explicit Progress(bool enabled) : enabled(enabled) {}
  void stage(StringRef what) {
    if (!enabled)
      return;
    llvm::errs() << "onnxcc: [" << ++count << "] " << what << "\n";
    llvm::errs().flush();
  }
  void done() {
    if (!enabled)
      return;
    std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    llvm::errs() << "onnxcc: done in " << llvm::format("%.2f", seconds.count()) << " s\n";
    llvm::errs().flush();
  }

private:
  bool enabled;
  unsigned count = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

/// Reports the lowering stage when the first pass past the graph passes
/// starts (the pipeline is one pass manager).
class LoweringProgress : public PassInstrumentation {
public:
  explicit LoweringProgress(Progress &progress) : progress(progress) {}
  void runBeforePass(Pass *pass, Operation *) override {
    // Module-level pass: no other pass runs at the same time.
    if (pass->getArgument() == "convert-onnx-to-linalg" && !seen) {
      seen = true;
      progress.stage("lowering");
    }
  }

private:
  Progress &progress;
  bool seen = false;
};
} // namespace

std::unique_ptr<MLIRContext> makeCompilerContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  return context;
}

llvm::Expected<OwningOpRef<ModuleOp>> optimizeModule(MLIRContext &context, StringRef modelPath,
                                                     const OptimizeOptions &options) {
  auto module = loadAndImport(context, modelPath);
  if (!module)
    return module.takeError();
  auto func = *(*module)->getOps<func::FuncOp>().begin();
  if (Error e = setShapes(func, options.shapes))
    return makeError(modelPath + ": " + toString(std::move(e)));

  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, firstErrorCollector(diagnostic));
  PassManager pm(&context);
  // The optimized model keeps its float16 arithmetic.
  buildGraphPipeline(pm, /*foldBatchNorm=*/true, /*float16AsFloat32=*/false);
  if (options.channelsLast)
    buildLayoutPipeline(pm);
  if (failed(pm.run(**module)))
    return makeError(modelPath + ": " + (diagnostic.empty() ? "optimization failed" : diagnostic));
  return std::move(*module);
}

Error optimizeModel(StringRef modelPath, const OptimizeOptions &options,
                    ::onnx::ModelProto &out) {
  std::unique_ptr<MLIRContext> context = makeCompilerContext();
  auto module = optimizeModule(*context, modelPath, options);
  if (!module)
    return module.takeError();
  ExportOptions exportOptions;
  exportOptions.expandInternalOps = !options.keepFused;
  if (Error e = exportModel(**module, out, exportOptions))
    return makeError(modelPath + ": " + toString(std::move(e)));
  return Error::success();
}

std::string sanitizeIdentifier(StringRef s) {
  // NAME prefixes every symbol (NAME_run, NAME_H) and names the C++ wrapper's
  // namespace: no `__` may arise, so runs of `_` become one and none ends it.
  std::string id;
  for (char c : s) {
    char m = llvm::isAlnum(c) ? c : '_';
    if (m != '_' || (!id.empty() && id.back() != '_'))
      id.push_back(m);
  }
  while (!id.empty() && id.back() == '_')
    id.pop_back();
  if (id.size() > 48)
    id = codegen::identifierBase(id);
  if (id.empty() || llvm::isDigit(id[0]) ||
      (codegen::isReservedIdentifier(id) && !codegen::isLibraryFunction(id)))
    id = "model" + (id.empty() ? "" : "_" + id);
  return id;
}

llvm::Expected<std::string> kernelIsaForTarget(StringRef targetCpu) {
  if (targetCpu == "none" || targetCpu == "generic")
    return targetCpu.str();
  auto cpu = describeTargetCpu(targetCpu);
  if (!cpu)
    return cpu.takeError();
  return kernelIsaFor(*cpu);
}

namespace {
extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

/// Whether LLVM's NVPTX backend knows `chip` (sm_80, ...): an unknown one
/// only gets a warning from it and PTX of no use.
bool knownCudaArch(StringRef chip) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
  });
  std::string error;
  llvm::Triple triple("nvptx64-nvidia-cuda");
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  // Asked of the generic subtarget: one made for an unknown chip warns.
  std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
  return info && info->isCPUStringValid(chip);
}
} // namespace

std::string findCudaToolkit() {
  // Where libdevice (nvvm/libdevice/libdevice.10.bc) is: $CUDA_PATH,
  // $CUDA_HOME, $CUDA_ROOT, then the usual install folders. The PTX itself
  // needs no toolkit (LLVM's NVPTX backend writes it); libdevice gives the
  // kernels' math functions.
  SmallVector<std::string> candidates;
  for (const char *var : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"})
    if (const char *env = std::getenv(var))
      candidates.push_back(env);
  candidates.push_back("/usr/local/cuda");
  candidates.push_back("/usr/lib/cuda");
  for (const std::string &c : candidates)
    if (llvm::sys::fs::exists(c + "/nvvm/libdevice/libdevice.10.bc"))
      return c;
  return "";
}

Error compileModel(StringRef modelPath, const CompileOptions &options, llvm::raw_ostream &irOut) {
  auto kernelIsa = kernelIsaForTarget(options.targetCpu);
  if (!kernelIsa)
    return kernelIsa.takeError();
  if (options.threads < 1 || options.threads > 256)
    return makeError("--threads must be between 1 and 256, not " + Twine(options.threads));
  Progress progress(options.progress);
  std::unique_ptr<MLIRContext> ownedContext = makeCompilerContext();
  MLIRContext &context = *ownedContext;
  progress.stage("import " + llvm::sys::path::filename(modelPath).str());
  auto module = loadAndImport(context, modelPath);
  if (!module)
    return module.takeError();
  auto func = *(*module)->getOps<func::FuncOp>().begin();
  if (Error e = applyShapes(func, options))
    return makeError(modelPath + ": " + toString(std::move(e)));
  {
    // Sequence and optional inputs and outputs become tensor ports.
    std::string boundaryError;
    ScopedDiagnosticHandler boundaryHandler(&context, firstErrorCollector(boundaryError));
    if (failed(onnx::expandBoundaryValues(func)))
      return makeError(modelPath + ": " + boundaryError);
    if (options.target == "halide" && func->hasAttr("onnxcc.io_inputs"))
      return makeError(modelPath + ": sequence and optional inputs and outputs are not "
                                   "supported by --target halide yet");
    for (StringRef key : {"onnxcc.io_inputs", "onnxcc.io_outputs"}) {
      auto entries = func->getAttrOfType<ArrayAttr>(key);
      if (!entries)
        continue;
      SmallVector<Attribute> withDtypes;
      for (auto entry : entries.getAsRange<DictionaryAttr>()) {
        NamedAttrList list(entry);
        if (auto elem = entry.getAs<TypeAttr>("elem_type"))
          list.set("dtype", StringAttr::get(&context, dtypeName(elem.getValue())));
        withDtypes.push_back(list.getDictionary(&context));
      }
      func->setAttr(key, ArrayAttr::get(&context, withDtypes));
    }
  }
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.setArgAttr(i, "onnx.dtype", StringAttr::get(&context, dtypeName(func.getArgumentTypes()[i])));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    func.setResultAttr(i, "onnx.dtype", StringAttr::get(&context, dtypeName(func.getResultTypes()[i])));
  // Sequences the data decides become ragged stacks with run-time checks
  // (onnx-stack-sequences); the cpp target runs them.
  if (options.target == "cpp")
    func->setAttr("onnxcc.runtime_sequences", UnitAttr::get(&context));

  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, firstErrorCollector(diagnostic));

  if ((options.report || options.profile) && options.target != "cpp")
    return makeError(std::string(options.report ? "--report" : "--profile") +
                     " needs --target cpp");
  if ((options.report || options.profile) &&
      (options.emit != EmitStage::Cpp || !options.passPipeline.empty()))
    return makeError(std::string(options.report ? "--report" : "--profile") +
                     " needs the default pipeline and --emit cpp");
  // --report: the FLOPs of each node, counted on a copy of the imported
  // model with its shapes inferred (the count of onnxcc bench).
  std::vector<NodeFlops> nodeFlops;
  if (options.report) {
    OwningOpRef<ModuleOp> copy = (*module)->clone();
    auto copyFunc = *copy->getOps<func::FuncOp>().begin();
    if (failed(onnx::inferShapesInFunction(copyFunc)))
      return makeError(modelPath + ": " +
                       (diagnostic.empty() ? "shape inference failed" : diagnostic));
    nodeFlops = countNodeFlops(copyFunc);
  }

  PassManager pm(&context);
  if (!options.passPipeline.empty()) {
    std::string message;
    llvm::raw_string_ostream errs(message);
    FailureOr<OpPassManager> parsed = parsePassPipeline(options.passPipeline, errs);
    if (failed(parsed))
      return makeError("--pass-pipeline: " + StringRef(message).trim().split('\n').first);
    if (parsed->getOpAnchorName() != ModuleOp::getOperationName())
      return makeError("--pass-pipeline: the pipeline must be anchored on builtin.module, "
                       "e.g. 'builtin.module(onnxcc-optimize-graph)'");
    static_cast<OpPassManager &>(pm) = *parsed;
  } else if (options.emit == EmitStage::Onnx) {
    buildGraphPipeline(pm);
  } else if (options.target == "halide") {
    buildHalideLoweringPipeline(pm);
  } else if (options.target == "cuda") {
    if (!knownCudaArch(options.cudaArch))
      return makeError("--cuda-arch: LLVM's NVPTX backend does not know '" + options.cudaArch +
                       "' (e.g. sm_80, sm_86, sm_89, sm_90, sm_90a)");
    CudaLoweringOptions cuda;
    cuda.chip = options.cudaArch;
    cuda.toolkitPath = findCudaToolkit();
    buildCudaLoweringPipeline(pm, cuda);
    (**module)->setAttr("onnxcc.cuda_arch", StringAttr::get(&context, options.cudaArch));
  } else {
    buildCpuLoweringPipeline(pm, *kernelIsa, options.threads);
  }
  if (options.printIrAfterAll) {
    context.disableMultithreading();
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
                        /*printAfterOnlyOnFailure=*/false, llvm::errs());
  }
  if (options.timePasses)
    pm.enableTiming();
  pm.addInstrumentation(std::make_unique<LoweringProgress>(progress));
  progress.stage(options.passPipeline.empty() ? "graph passes" : "pass pipeline");
  if (failed(pm.run(**module)))
    return makeError(modelPath + ": " + (diagnostic.empty() ? "lowering failed" : diagnostic));
  if (options.emit != EmitStage::Cpp) {
    progress.stage("print");
    (*module)->print(irOut);
    progress.done();
    return Error::success();
  }

  if (options.report) {
    CompileReport report = buildCompileReport(**module, nodeFlops);
    report.model = llvm::sys::path::filename(modelPath).str();
    report.targetCpu = options.targetCpu;
    report.kernelIsa = *kernelIsa;
    report.threads = options.threads;
    printCompileReport(report, irOut);
    if (!options.reportJsonPath.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream json(options.reportJsonPath, ec, llvm::sys::fs::OF_None);
      if (ec)
        return makeError("cannot write " + options.reportJsonPath + ": " + ec.message());
      printCompileReportJson(report, json);
      json.close();
      if (json.has_error())
        return makeError("cannot write " + options.reportJsonPath);
    }
  }

  if (options.target == "halide") {
    progress.stage("emit Halide");
    Error e = writeHalideModel(**module, modelPath, options);
    progress.done();
    return e;
  }
  // The emitter sizes the string pool from this (see codegen/cpp/ABI.md).
  (**module)->setAttr("onnxcc.string_pool_size",
                      IntegerAttr::get(IntegerType::get(&context, 64), options.stringPoolSize));
  progress.stage("emit C++");
  codegen::CppEmitOptions emitOptions;
  emitOptions.name = options.name;
  emitOptions.modelPath = llvm::sys::path::filename(modelPath).str();
  emitOptions.embedWeights = options.embedWeights;
  emitOptions.cuda = options.target == "cuda";
  emitOptions.profile = options.profile;
  auto cpp = codegen::emitCpp(**module, emitOptions);
  if (!cpp)
    return makeError(modelPath + ": " + toString(cpp.takeError()));
  progress.stage("write " + options.outDir);
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outDir))
    return makeError("cannot create " + options.outDir + ": " + ec.message());
  if (Error e = writeFile(options.outDir, options.name + ".h", cpp->header))
    return e;
  if (Error e = writeFile(options.outDir, options.name + ".cpp", cpp->source))
    return e;
  if (options.profile)
    if (Error e = writeFile(options.outDir, options.name + ".profile.json", cpp->profileJson))
      return e;
  StringRef weightsFile = options.embedWeights ? ".cpp.weights" : ".weights";
  if (Error e = writeFile(options.outDir, options.name + weightsFile.str(), cpp->weights))
    return e;
  if (cpp->usesKernels) {
    if (Error e = writeFile(options.outDir, "onnxcc_kernels.h",
                            StringRef(kKernelsHeader, sizeof(kKernelsHeader) - 1)))
      return e;
    if (Error e = writeFile(options.outDir, "onnxcc_kernels_winograd.h",
                            StringRef(kWinogradHeader, sizeof(kWinogradHeader) - 1)))
      return e;
    if (Error e = writeFile(options.outDir, "onnxcc_kernels_rnn.h",
                            StringRef(kRnnHeader, sizeof(kRnnHeader) - 1)))
      return e;
    if (Error e = writeFile(options.outDir, "onnxcc_kernels_fft.h",
                            StringRef(kFftHeader, sizeof(kFftHeader) - 1)))
      return e;
    if (Error e = writeFile(options.outDir, "onnxcc_kernels_int8.h",
                            StringRef(kInt8Header, sizeof(kInt8Header) - 1)))
      return e;
  }
  if (cpp->usesML)
    if (Error e = writeFile(options.outDir, "onnxcc_ml.h",
                            StringRef(kMLHeader, sizeof(kMLHeader) - 1)))
      return e;
  if (cpp->usesThreads)
    if (Error e = writeFile(options.outDir, "onnxcc_threads.h",
                            StringRef(kThreadsHeader, sizeof(kThreadsHeader) - 1)))
      return e;
  if (options.target == "cuda") {
    if (Error e = writeFile(options.outDir, "onnxcc_cuda.h",
                            StringRef(kCudaHeader, sizeof(kCudaHeader) - 1)))
      return e;
    if (Error e = writeFile(options.outDir, options.name + ".ptx", cpp->ptx))
      return e;
  }
  if (Error e = writeFile(options.outDir, "onnxcc_rt.h",
                          StringRef(kRuntimeSupportHeader, sizeof(kRuntimeSupportHeader) - 1)))
    return e;
  progress.done();
  return Error::success();
}

} // namespace onnxcc
