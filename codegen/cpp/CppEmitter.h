//===- CppEmitter.h - Lowered modules to a C++ header and source ---------===//
#ifndef ONNXCC_CODEGEN_CPP_CPPEMITTER_H
#define ONNXCC_CODEGEN_CPP_CPPEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace onnxcc::codegen {

struct CppEmitOptions {
  /// Symbol prefix and file stem (a C identifier).
  std::string name;
  /// Shown in the banner of the generated files.
  std::string modelPath;
  /// Embed the weights in the object (assembler .incbin of NAME.cpp.weights);
  /// when false, run() takes a pointer to them (the NAME.weights file).
  bool embedWeights = true;
  /// The CUDA target: the module holds the host function with gpu.launch_func
  /// ops and the kernels' PTX (gpu.binary); NAME.cpp launches them through
  /// runtime-support/onnxcc_cuda.h (see ABI.md, "The CUDA target").
  bool cuda = false;
  /// Per-node timing hooks (onnxcc compile --profile): a timestamp at the
  /// start of each node's code (a kernel call or a loop nest) and at the end
  /// of run(), written to a table the caller attaches (ABI.md, "Profiling").
  /// Without it the generated code has no trace of them.
  bool profile = false;
};

/// The generated files (see codegen/cpp/ABI.md).
struct CppModel {
  std::string header;  ///< NAME.h
  std::string source;  ///< NAME.cpp
  std::string weights; ///< NAME.cpp.weights
  /// The source includes runtime-support's onnxcc_kernels.h.
  bool usesKernels = false;
  /// The source includes runtime-support's onnxcc_threads.h (--threads > 1).
  bool usesThreads = false;
  /// NAME.cpp includes onnxcc_ml.h (the ai.onnx.ml kernels).
  bool usesML = false;
  /// The CUDA target: the kernels' PTX (also embedded in NAME.cpp), written
  /// to NAME.ptx for inspection and ptxas.
  std::string ptx;
  /// With CppEmitOptions::profile: NAME.profile.json, the nodes the
  /// timestamps delimit (see ABI.md, "Profiling"), for tools.
  std::string profileJson;
};

/// Prints the lowered `module` (one function over memrefs, from the CPU
/// lowering pipeline) as C++. Fails with a diagnostic at the first op or
/// type it cannot print.
llvm::Expected<CppModel> emitCpp(mlir::ModuleOp module, const CppEmitOptions &options);

} // namespace onnxcc::codegen

#endif // ONNXCC_CODEGEN_CPP_CPPEMITTER_H
