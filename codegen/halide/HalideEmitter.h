//===- HalideEmitter.h - linalg on tensors to a Halide generator ---------===//
#ifndef ONNXCC_CODEGEN_HALIDE_HALIDEEMITTER_H
#define ONNXCC_CODEGEN_HALIDE_HALIDEEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace onnxcc::codegen {

struct HalideEmitOptions {
  /// Symbol prefix and file stem (a C identifier).
  std::string name;
  /// Shown in the banner of the generated files.
  std::string modelPath;
  /// The autoscheduler the CMake fragment asks for (Mullapudi2016, Li2018,
  /// Adams2019); empty: the emitter's own schedule.
  std::string autoscheduler;
  /// Threads of Halide's pool that run() asks for (halide_set_num_threads),
  /// as --threads sizes the cpp target's pool: 1 runs `parallel` loops
  /// serially.
  int64_t threads = 1;
  /// The Halide target the generated CMakeLists.txt builds the pipeline for
  /// (the default of its ONNXCC_<NAME>_HALIDE_TARGET cache variable).
  std::string halideTarget = "host";
};

/// The generated files (see codegen/halide/README.md).
struct HalideModel {
  std::string generator; ///< NAME_generator.cpp: the Halide::Generator
  std::string header;    ///< NAME.h: the C ABI of the cpp target
  std::string source;    ///< NAME.cpp: that ABI over the AOT-compiled pipeline
  std::string weights;   ///< NAME.cpp.weights: embedded by NAME.cpp
  std::string cmake;     ///< CMakeLists.txt: builds it all with Halide's functions
};

/// One model input or output of the C ABI.
struct HalidePort {
  std::string name;  ///< the ONNX name (untrusted bytes)
  std::string dtype; ///< as onnxcc inspect prints it
  mlir::RankedTensorType type;
};

/// Prints the module (one func.func over static tensors: linalg.generic,
/// tensor data movement, arith/math scalars, as buildHalideLoweringPipeline
/// leaves it) as a Halide generator plus the C ABI wrapper. Fails with a
/// diagnostic at the first op or type it cannot express.
llvm::Expected<HalideModel> emitHalide(mlir::ModuleOp module, const HalideEmitOptions &options);

/// NAME.h, NAME.cpp and CMakeLists.txt around the pipeline `NAME_pipeline`
/// whose arguments are the inputs, then `numWeights` weight buffers
/// (`weightOffsets` into NAME.cpp.weights, `weightTypes`), then the outputs.
void emitHalideWrapper(const HalideEmitOptions &options, llvm::ArrayRef<HalidePort> inputs,
                       llvm::ArrayRef<HalidePort> outputs,
                       llvm::ArrayRef<mlir::RankedTensorType> weightTypes,
                       llvm::ArrayRef<size_t> weightOffsets, HalideModel &model);

} // namespace onnxcc::codegen

#endif // ONNXCC_CODEGEN_HALIDE_HALIDEEMITTER_H
