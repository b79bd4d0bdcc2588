//===- HalideTarget.h - onnxcc compile/verify --target halide ------------===//
#ifndef ONNXCC_COMPILER_HALIDETARGET_H
#define ONNXCC_COMPILER_HALIDETARGET_H

#include "compiler/Driver.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace onnxcc {

/// The autoschedulers of Halide 14 (--halide-autoscheduler); an error names
/// the known ones.
llvm::Error checkHalideAutoscheduler(llvm::StringRef name);

/// Emits the lowered `module` (buildHalideLoweringPipeline) as a Halide
/// generator, its C ABI wrapper and CMakeLists.txt into options.outDir.
llvm::Error writeHalideModel(mlir::ModuleOp module, llvm::StringRef modelPath,
                             const CompileOptions &options);

/// Whether Halide 14 (headers, libHalide, GenGen.cpp) is installed; the
/// reason when not.
llvm::Expected<bool> findHalideInstall(std::string *reason = nullptr);

/// The Halide target string for --target-cpu `targetCpu` (TargetCpu.h:
/// only features the CPU has; never Halide's own guess of the host).
llvm::Expected<std::string> halideTargetForCpu(llvm::StringRef targetCpu);

/// Builds what `onnxcc compile --target halide` wrote into `workDir` as
/// Halide's CMake functions would, without CMake: the generator (with
/// `cxx`), run for the Halide target of --target-cpu `targetCpu` into
/// NAME_pipeline.o and a runtime object. Returns the compiler flags that
/// link NAME.cpp against them.
llvm::Expected<std::string> buildHalidePipeline(llvm::StringRef workDir, llvm::StringRef name,
                                                llvm::StringRef cxx,
                                                llvm::StringRef autoscheduler,
                                                llvm::StringRef targetCpu);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_HALIDETARGET_H
