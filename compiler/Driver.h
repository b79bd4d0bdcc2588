//===- Driver.h - onnxcc compile: model to C++ ---------------------------===//
#ifndef ONNXCC_COMPILER_DRIVER_H
#define ONNXCC_COMPILER_DRIVER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace onnxcc {

/// Where `onnxcc compile` stops.
enum class EmitStage {
  Onnx,    ///< the onnx dialect after import and shape inference
  Lowered, ///< loops and buffers after lowering and memory planning
  Cpp,     ///< the generated C++ files
};

struct CompileOptions {
  /// Model name: file names and the symbol prefix (a C identifier).
  std::string name;
  /// Output folder for EmitStage::Cpp.
  std::string outDir;
  /// Shapes for inputs with symbolic dims: input name -> dims.
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  /// Element shapes of sequence inputs (and of optional sequences): input
  /// name -> one shape per element (--sequence NAME=[2x3],[4]); the
  /// compiled code takes exactly that many elements of those shapes.
  std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>> sequences;
  EmitStage emit = EmitStage::Cpp;
  /// Embed the weights in the object; when false they go to NAME.weights and
  /// run() takes a pointer to them.
  bool embedWeights = true;
  /// Bytes of the arena for the strings the model writes (--string-pool);
  /// counted only in models that write strings.
  int64_t stringPoolSize = 65536;
  /// A textual pass pipeline replacing the default one (--pass-pipeline).
  std::string passPipeline;
  /// Print the IR after every pass to stderr (--print-ir-after-all).
  bool printIrAfterAll = false;
  /// Report the time of every pass on stderr (--time-passes).
  bool timePasses = false;
  /// The CPU the generated code runs on (--target-cpu): `native` (the
  /// compiling machine), `generic` (portable C++), `x86-64-v3` (AVX2+FMA),
  /// `x86-64-v4` (AVX-512), `armv8-a` (AArch64 NEON), or `none` (no kernels:
  /// loop nests only). It picks
  /// the ISA of the runtime-support kernels and their packed weight layout.
  std::string targetCpu = "native";
  /// Threads the heavy layers (the kernels' calls) are split over
  /// (--threads); 1 means no threads at all.
  int64_t threads = 1;
  /// Bounds of data-dependent dims that nothing in the model bounds (a
  /// Range over values computed at run time): node name -> the most each
  /// of its data-dependent dims can be; "*" for every such node (--bound).
  std::vector<std::pair<std::string, int64_t>> bounds;
  /// The code generator (--target): cpp, halide (codegen/halide) or cuda
  /// (PTX kernels launched by host C++, see codegen/cpp/ABI.md).
  std::string target = "cpp";
  /// The GPU architecture of the CUDA target's PTX (--cuda-arch).
  std::string cudaArch = "sm_80";
  /// The Halide autoscheduler the generated CMakeLists.txt asks for
  /// (--halide-autoscheduler: Mullapudi2016, Li2018, Adams2019; empty: the
  /// emitter's schedule).
  std::string halideAutoscheduler;
  /// Print each stage (import, graph passes, lowering, emit, write) to
  /// stderr as it starts, and the total time at the end.
  bool progress = false;
  /// Per-node timing hooks in the generated code (--profile; cpp target):
  /// see codegen/cpp/ABI.md, "Profiling". Also writes NAME.profile.json.
  bool profile = false;
  /// --report: print each heavy op's path (kernel or loops), FLOPs and
  /// share of the model's to the IR stream (stdout) after lowering;
  /// --report=FILE also writes them to FILE as JSON (compiler/Report.h).
  bool report = false;
  std::string reportJsonPath;
};

/// The CUDA toolkit whose libdevice the CUDA target links ($CUDA_PATH,
/// $CUDA_HOME, $CUDA_ROOT, /usr/local/cuda, /usr/lib/cuda), or "" when none
/// is found.
std::string findCudaToolkit();

/// The runtime-support kernel ISA (none, generic, avx2, avx512) for
/// --target-cpu `targetCpu`; an error for an unknown name.
llvm::Expected<std::string> kernelIsaForTarget(llvm::StringRef targetCpu);

/// Compiles the model at `modelPath`. For EmitStage::Onnx and ::Lowered the
/// IR is printed to `irOut`; for ::Cpp the files are written to
/// `options.outDir`. Errors are one line.
llvm::Error compileModel(llvm::StringRef modelPath, const CompileOptions &options,
                         llvm::raw_ostream &irOut);

struct OptimizeOptions {
  /// Shapes for inputs with symbolic dims: input name -> dims.
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  /// Keep onnxcc's fused ops as nodes of domain ai.onnxcc instead of
  /// expanding them to standard ONNX.
  bool keepFused = false;
  /// Also run the layout passes (onnx-channels-last) as compile does with
  /// kernels.
  bool channelsLast = false;
};

/// A context with every dialect onnxcc uses loaded; diagnostics are not
/// printed (the functions here turn them into one-line errors).
std::unique_ptr<mlir::MLIRContext> makeCompilerContext();

/// The module optimizeModel exports: the model at `modelPath` imported into
/// `context` (from makeCompilerContext), --shape applied, after the graph
/// passes.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
optimizeModule(mlir::MLIRContext &context, llvm::StringRef modelPath,
               const OptimizeOptions &options);

/// Imports the model at `modelPath`, runs the graph passes (the pipeline
/// onnxcc-optimize-graph) and writes the result into `out` as an ONNX model.
llvm::Error optimizeModel(llvm::StringRef modelPath, const OptimizeOptions &options,
                          ::onnx::ModelProto &out);

/// The dtype name of `t` (of its elements, for a shaped type) as `onnxcc
/// inspect` prints it: float32, int64, bool, string, ...; "unknown" else.
std::string dtypeName(mlir::Type t);

/// A C identifier made from `s` (the default model name from a file name):
/// no keyword, no reserved form, no `__` once NAME_ symbols are made from it.
std::string sanitizeIdentifier(llvm::StringRef s);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_DRIVER_H
