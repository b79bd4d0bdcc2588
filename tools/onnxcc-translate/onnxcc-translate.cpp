//===- onnxcc-translate.cpp - mlir-translate with the onnxcc emitters ----===//
//
// --onnxcc-to-cpp prints the C++ that `onnxcc compile` writes for a lowered
// module: NAME.h, then NAME.cpp, each after a `// ==== FILE` marker (the
// weights blob is summarized, not printed), so that lit tests can FileCheck
// the emitter alone.
//
//===----------------------------------------------------------------------===//
#include "codegen/cpp/CppEmitter.h"
#include "compiler/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

static llvm::cl::opt<std::string> modelName("onnxcc-name",
                                            llvm::cl::desc("Model name for --onnxcc-to-cpp"),
                                            llvm::cl::init("model"));

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration toCpp(
      "onnxcc-to-cpp", "Print a lowered onnxcc module as C++ (header, then source)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a module");
        onnxcc::codegen::CppEmitOptions options;
        options.name = modelName;
        options.modelPath = "input.mlir";
        auto cpp = onnxcc::codegen::emitCpp(module, options);
        if (!cpp) {
          // The emitter has reported the error at the op it could not print.
          llvm::consumeError(cpp.takeError());
          return failure();
        }
        os << "// ==== " << modelName << ".h\n" << cpp->header;
        os << "// ==== " << modelName << ".cpp\n" << cpp->source;
        os << "// ==== " << modelName << ".cpp.weights: " << cpp->weights.size() << " bytes\n";
        return success();
      },
      [](DialectRegistry &registry) { onnxcc::registerAllDialects(registry); });
  return failed(mlirTranslateMain(argc, argv, "onnxcc translation driver\n"));
}
