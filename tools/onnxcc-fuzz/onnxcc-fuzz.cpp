//===- onnxcc-fuzz.cpp - libFuzzer target of the model importer -----------===//
//
// Feeds each input to the path `onnxcc import` takes: the model loader
// (parseModel, in memory), the importer, the MLIR verifier and shape
// inference. An input whose first byte is '#' is read as protobuf text format
// (the '#' line is a comment there, so such an input is a valid .onnxtxt
// file); any other input is read as binary protobuf. Errors are expected
// results; a crash, abort, failed assertion, hang, leak or sanitizer report
// is a bug.
//
//   onnxcc-fuzz -rss_limit_mb=2048 -timeout=10 -max_len=65536 CORPUS_DIR
//
//===----------------------------------------------------------------------===//
#include "compiler/Importer.h"
#include "compiler/ModelLoader.h"

#include "onnx.pb.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace {
/// External data is looked up next to the model; a folder that does not
/// exist keeps the fuzzer from reading any file.
constexpr const char *kModelPath = "/nonexistent-onnxcc-fuzz/input.onnx";

void runOne(llvm::StringRef bytes, bool text) {
  auto model = onnxcc::parseModel(bytes, kModelPath, text);
  if (!model) {
    llvm::consumeError(model.takeError());
    return;
  }
  // A fresh context per input, as `onnxcc import` has: nothing one input
  // interns can change how the next one imports. No threads: the results
  // must not depend on scheduling.
  mlir::DialectRegistry registry;
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  onnxcc::ImportOptions options;
  options.inferShapes = true;
  auto module = onnxcc::importModel(context, *model, options);
  if (!module)
    llvm::consumeError(module.takeError());
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  runOne(bytes, /*text=*/!bytes.empty() && bytes.front() == '#');
  return 0;
}
