//===- onnxcc.cpp - The onnxcc command-line driver -----------------------===//
//
// onnxcc import MODEL          print the model as onnx-dialect MLIR
// onnxcc inspect MODEL [--json] print facts about the model
//
//===----------------------------------------------------------------------===//
#include "compiler/Importer.h"
#include "compiler/Inspect.h"
#include "compiler/ModelLoader.h"
#include "compiler/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
cl::SubCommand importCmd("import", "Print a model as onnx-dialect MLIR");
cl::opt<std::string> importModelPath(cl::Positional, cl::desc("<model.onnx|.onnxtxt>"),
                                     cl::Required, cl::sub(importCmd));
cl::opt<bool> importNoShapes("no-shape-inference",
                             cl::desc("Keep the types the model declares"),
                             cl::sub(importCmd));
cl::opt<std::string> importOutput("o", cl::desc("Output file (default: stdout)"),
                                  cl::value_desc("file"), cl::init("-"),
                                  cl::sub(importCmd));
cl::opt<unsigned> importElide(
    "elide-weights-larger-than",
    cl::desc("Print weights with more elements than this as a placeholder"),
    cl::init(0), cl::sub(importCmd));

cl::SubCommand inspectCmd("inspect", "Print facts about a model: opsets, "
                                     "inputs/outputs, op histogram, parameters");
cl::opt<std::string> inspectModelPath(cl::Positional, cl::desc("<model.onnx|.onnxtxt>"),
                                      cl::Required, cl::sub(inspectCmd));
cl::opt<bool> inspectJson("json", cl::desc("Print the facts as one JSON object"),
                          cl::sub(inspectCmd));

cl::opt<bool> importDebugInfo("mlir-print-debuginfo",
                               cl::desc("Print locations (ONNX node names)"),
                               cl::sub(importCmd));

/// Prints `message` as the tool's one-line error and returns exit status 1.
int reportError(const Twine &message) {
  WithColor::error(errs(), "onnxcc") << message << "\n";
  return 1;
}

int runImport() {
  mlir::DialectRegistry registry;
  onnxcc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Verification diagnostics are turned into the importer's own errors.
  context.printOpOnDiagnostic(false);

  auto model = onnxcc::loadModel(importModelPath);
  if (!model)
    return reportError(toString(model.takeError()));
  onnxcc::ImportOptions options;
  options.inferShapes = !importNoShapes;
  auto module = onnxcc::importModel(context, *model, options);
  if (!module)
    return reportError(toString(module.takeError()));

  std::error_code ec;
  raw_fd_ostream os(importOutput, ec);
  if (ec)
    return reportError("cannot write " + importOutput + ": " + ec.message());
  mlir::OpPrintingFlags flags;
  if (importElide)
    flags.elideLargeElementsAttrs(importElide).elideLargeResourceString(importElide);
  if (importDebugInfo)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  (*module)->print(os, flags);
  return 0;
}

/// Inspect needs no MLIR context: it reads the protobuf and nothing else, so
/// it works on models the importer cannot handle yet.
int runInspect() {
  auto model = onnxcc::loadModel(inspectModelPath);
  if (!model)
    return reportError(toString(model.takeError()));
  auto summary = onnxcc::summarizeModel(*model->proto);
  if (!summary)
    return reportError(inspectModelPath + ": " + toString(summary.takeError()));
  if (inspectJson)
    onnxcc::printModelSummaryJson(*summary, outs());
  else
    onnxcc::printModelSummary(*summary, outs());
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "onnxcc: an ahead-of-time compiler for ONNX models\n");
  if (importCmd)
    return runImport();
  if (inspectCmd)
    return runInspect();
  errs() << "onnxcc: no command given; see 'onnxcc --help'\n";
  return 1;
}
