//===- onnxcc.cpp - The onnxcc command-line driver -----------------------===//
//
// onnxcc import MODEL          print the model as onnx-dialect MLIR
// onnxcc inspect MODEL [--json] print facts about the model
// onnxcc verify MODEL DATASET   compile, build, run and compare with a dataset
// onnxcc optimize MODEL -o OUT   the model after the graph passes, as ONNX
// onnxcc bench MODEL             compile, build and time on random inputs
// onnxcc graph MODEL -o FILE     draw the graph: .dot, .svg or .html
//
//===----------------------------------------------------------------------===//
#include "compiler/Bench.h"
#include "codegen/SourceText.h"
#include "compiler/Driver.h"
#include "compiler/Graph.h"
#include "compiler/Importer.h"
#include "compiler/Inspect.h"
#include "compiler/ModelLoader.h"
#include "compiler/Registration.h"
#include "compiler/TargetCpu.h"
#include "compiler/Verify.h"

#include "onnx.pb.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "google/protobuf/text_format.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
cl::SubCommand compileCmd("compile", "Compile a model to C++ (NAME.h, NAME.cpp, weights)");
cl::opt<std::string> compileModelPath(cl::Positional, cl::desc("<model.onnx|.onnxtxt>"),
                                      cl::Required, cl::sub(compileCmd));
cl::opt<std::string> compileOutDir("o", cl::desc("Output folder (for --emit=cpp) or file"),
                                   cl::value_desc("dir"), cl::sub(compileCmd));
cl::opt<std::string> compileName("name", cl::desc("Model name: file names and symbol prefix "
                                                  "(default: the model's file name)"),
                                 cl::sub(compileCmd));
cl::list<std::string> compileShapes("shape",
                                    cl::desc("Static dims of an input: NAME=D0xD1x... (repeatable)"),
                                    cl::sub(compileCmd));
cl::list<std::string> compileSequences(
    "sequence",
    cl::desc("Element shapes of a sequence input: NAME=[D0xD1],[D0],[] (one [...] per "
             "element, [] a scalar, nothing for an empty sequence; repeatable)"),
    cl::sub(compileCmd));
cl::list<std::string> compileBounds(
    "bound",
    cl::desc("The most a data-dependent dim of node NODE can be, where nothing in the model "
             "bounds it (a Range over run-time values): NODE=N, or *=N for every such node "
             "(repeatable)"),
    cl::sub(compileCmd));
cl::opt<std::string> compileTarget(
    "target",
    cl::desc("Code generator: cpp, halide (a Halide generator, its C ABI wrapper and a "
             "CMakeLists.txt) or cuda (PTX kernels launched by C++ through the CUDA driver)"),
    cl::init("cpp"), cl::sub(compileCmd));
cl::opt<std::string> compileCudaArch(
    "cuda-arch",
    cl::desc("With --target cuda: the GPU architecture of the PTX (default sm_80, which also "
             "runs on newer GPUs)"),
    cl::init("sm_80"), cl::sub(compileCmd));
cl::opt<std::string> compileHalideAutoscheduler(
    "halide-autoscheduler",
    cl::desc("With --target halide: schedule with Halide's Mullapudi2016, Li2018 or Adams2019 "
             "instead of onnxcc's schedule"),
    cl::sub(compileCmd));
cl::opt<std::string> compileWeights(
    "weights",
    cl::desc("embed: weights inside the object (default); file: NAME.weights, passed to run()"),
    cl::init("embed"), cl::sub(compileCmd));
cl::opt<int64_t> compileStringPool(
    "string-pool",
    cl::desc("Bytes of the arena for the strings the model writes (default 65536; counted "
             "only when it writes strings)"),
    cl::value_desc("bytes"), cl::init(65536), cl::sub(compileCmd));
cl::opt<onnxcc::EmitStage> compileEmit(
    "emit", cl::desc("Where to stop"), cl::init(onnxcc::EmitStage::Cpp),
    cl::values(clEnumValN(onnxcc::EmitStage::Onnx, "onnx",
                          "the onnx dialect after shape inference and the graph passes"),
               clEnumValN(onnxcc::EmitStage::Lowered, "lowered", "loops over buffers in one arena"),
               clEnumValN(onnxcc::EmitStage::Cpp, "cpp", "the C++ files")),
    cl::sub(compileCmd));

cl::opt<std::string> compilePassPipeline(
    "pass-pipeline",
    cl::desc("Run this textual pass pipeline instead of the default one, e.g. "
             "'builtin.module(onnxcc-optimize-graph)'"),
    cl::sub(compileCmd));
cl::opt<bool> compilePrintIr("print-ir-after-all",
                             cl::desc("Print the IR after every pass to stderr"),
                             cl::sub(compileCmd));
cl::opt<bool> compileTimePasses("time-passes", cl::desc("Report the time of every pass"),
                                cl::sub(compileCmd));
cl::opt<std::string> compileTargetCpu(
    "target-cpu",
    cl::desc("CPU the code runs on: native (default; this machine), generic (portable C++), "
             "x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512), armv8-a (AArch64 NEON), none (loop "
             "nests, no kernels)"),
    cl::init("native"), cl::sub(compileCmd));
cl::opt<int64_t> compileThreads(
    "threads",
    cl::desc("Split each heavy layer over N threads of a persistent pool (default 1: no "
             "threads)"),
    cl::value_desc("N"), cl::init(1), cl::sub(compileCmd));

cl::opt<bool> compileProfile(
    "profile",
    cl::desc("Per-node timing hooks in the generated code: a timestamp at the start of each "
             "node's code, written to a table the caller attaches (NAME_profile_attach); also "
             "writes NAME.profile.json. Without it the code has none (onnxcc bench --profile "
             "uses it)"),
    cl::sub(compileCmd));
cl::opt<std::string> compileReport(
    "report",
    cl::desc("After lowering, print each heavy op (Conv, MatMul, attention, pooling, RNNs, "
             "DFT...) with the path it took (the kernel, or loops), its FLOPs and share; "
             "--report=FILE.json also writes them as JSON"),
    cl::value_desc("file.json"), cl::ValueOptional, cl::sub(compileCmd));

cl::opt<bool> compileQuiet(
    "quiet",
    cl::desc("Print no progress lines (they go to stderr only when it is a terminal)"),
    cl::sub(compileCmd));
cl::alias compileQuietShort("q", cl::desc("Alias for --quiet"), cl::aliasopt(compileQuiet));

cl::SubCommand graphCmd("graph", "Draw the model's graph: FILE.dot (Graphviz source), "
                                 ".svg, or .html (one self-contained page: pan, zoom, "
                                 "click a node for its details)");
cl::opt<std::string> graphModelPath(cl::Positional, cl::desc("<model.onnx|.onnxtxt>"),
                                    cl::Required, cl::sub(graphCmd));
cl::opt<std::string> graphOut("o", cl::desc("Output file: .dot, .svg or .html"),
                              cl::value_desc("file"), cl::Required, cl::sub(graphCmd));
cl::opt<bool> graphOptimized("optimized",
                             cl::desc("Draw the graph after the graph passes (fused ops "
                                      "included) instead of as imported"),
                             cl::sub(graphCmd));
cl::list<std::string> graphShapes("shape",
                                  cl::desc("With --optimized: static dims of an input, "
                                           "NAME=D0xD1x... (repeatable)"),
                                  cl::sub(graphCmd));

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

cl::opt<bool> inspectOptimized(
    "optimized",
    cl::desc("Describe the model after the graph passes (fused ops count as nodes of "
             "domain ai.onnxcc)"),
    cl::sub(inspectCmd));
cl::list<std::string> inspectShapes("shape",
                                    cl::desc("With --optimized: static dims of an input, "
                                             "NAME=D0xD1x... (repeatable)"),
                                    cl::sub(inspectCmd));

cl::SubCommand targetInfoCmd("target-info",
                             "Print what onnxcc compiles for a CPU: its features, the "
                             "kernel ISA of the cpp target and the Halide target string");
cl::opt<std::string> targetInfoCpu("target-cpu",
                                   cl::desc("CPU, as for compile (default native: this machine)"),
                                   cl::init("native"), cl::sub(targetInfoCmd));
cl::opt<std::string> targetInfoPrint(
    "print",
    cl::desc("Print only this value: kernel-isa or halide-target (for build scripts)"),
    cl::sub(targetInfoCmd));

cl::SubCommand optimizeCmd("optimize", "Run the graph passes and write the result as an "
                                       "ONNX model of standard operators (the opset read, "
                                       "17 at least)");
cl::opt<std::string> optimizeModelPath(cl::Positional, cl::desc("<model.onnx|.onnxtxt>"),
                                       cl::Required, cl::sub(optimizeCmd));
cl::opt<std::string> optimizeOut("o", cl::desc("Output model (.onnx, or .onnxtxt for text)"),
                                 cl::value_desc("file"), cl::Required, cl::sub(optimizeCmd));
cl::list<std::string> optimizeShapes("shape",
                                     cl::desc("Static dims of an input: NAME=D0xD1x... "
                                              "(repeatable)"),
                                     cl::sub(optimizeCmd));
cl::opt<bool> optimizeKeepFused(
    "keep-fused",
    cl::desc("Keep onnxcc's fused ops as nodes of domain ai.onnxcc (only onnxcc reads those)"),
    cl::sub(optimizeCmd));
cl::opt<bool> optimizeChannelsLast(
    "channels-last",
    cl::desc("Also choose the layout as compile does for the kernels: convolution chains "
             "holding a depthwise convolution run channels-last (NHWC), between Transposes"),
    cl::sub(optimizeCmd));

cl::opt<bool> importDebugInfo("mlir-print-debuginfo",
                               cl::desc("Print locations (ONNX node names)"),
                               cl::sub(importCmd));

cl::SubCommand verifyCmd("verify", "Compile a model, build and run it on ONNX test "
                                   "data, and compare with the expected outputs");
cl::opt<std::string> verifyModelPath(cl::Positional, cl::desc("<model.onnx|.onnxtxt>"),
                                     cl::Required, cl::sub(verifyCmd));
cl::opt<std::string> verifyDataset(cl::Positional,
                                   cl::desc("<test_data_set_N folder or test folder>"),
                                   cl::Required, cl::sub(verifyCmd));
cl::opt<double> verifyAtol("atol", cl::desc("Absolute tolerance (default 1e-7)"),
                           cl::init(1e-7), cl::sub(verifyCmd));
cl::opt<double> verifyRtol("rtol", cl::desc("Relative tolerance (default 1e-3)"),
                           cl::init(1e-3), cl::sub(verifyCmd));
cl::opt<std::string> verifyKeep("keep",
                                cl::desc("Keep the generated code, harness and binary in "
                                         "this folder (reused as a build cache)"),
                                cl::value_desc("dir"), cl::sub(verifyCmd));
cl::opt<std::string> verifyTargetCpu(
    "target-cpu",
    cl::desc("As for compile: native (default), generic, x86-64-v3, x86-64-v4, armv8-a, none"),
    cl::init("native"), cl::sub(verifyCmd));
cl::opt<std::string> verifyTarget("target",
                                  cl::desc("As for compile: cpp (default), halide or cuda (exit "
                                           "status 4 where no GPU or CUDA driver is)"),
                                  cl::init("cpp"), cl::sub(verifyCmd));
cl::opt<std::string> verifyHalideAutoscheduler(
    "halide-autoscheduler", cl::desc("As for compile, with --target halide"),
    cl::sub(verifyCmd));
cl::opt<int64_t> verifyThreads("threads", cl::desc("As for compile (default 1)"),
                               cl::value_desc("N"), cl::init(1), cl::sub(verifyCmd));
cl::list<std::string> verifyBounds("bound", cl::desc("As for compile: NODE=N or *=N"),
                                  cl::sub(verifyCmd));
cl::opt<std::string> verifyCxx("cxx", cl::desc("C++ compiler (default: $CXX, else c++)"),
                               cl::value_desc("path"), cl::sub(verifyCmd));
cl::opt<std::string> verifyRunWith(
    "run-with",
    cl::desc("Run the harness through this program (an emulator for a cross-built harness, "
             "e.g. --cxx \"aarch64-linux-gnu-g++ -static\" --run-with qemu-aarch64)"),
    cl::value_desc("command"), cl::sub(verifyCmd));
cl::opt<std::string> verifyCxxOpt("cxx-opt",
                                  cl::desc("Optimization flag of the harness build"),
                                  cl::init("-O2"), cl::sub(verifyCmd));
cl::opt<std::string> verifyPchCache(
    "pch-cache",
    cl::desc("Keep a precompiled onnxcc_rt.h per compiler and flags in this folder and build "
             "the harness with it (GCC; shared by many verify runs)"),
    cl::value_desc("dir"), cl::sub(verifyCmd));
cl::opt<std::string> verifyGenerated(
    "use-generated",
    cl::desc("Skip compiling; use a copy of the generated files in this folder"),
    cl::value_desc("dir"), cl::sub(verifyCmd), cl::Hidden);

cl::SubCommand benchCmd("bench", "Compile a model, build it with a timing harness and time "
                                 "it on seeded random inputs; the last line is "
                                 "'median_ms=X p90_ms=Y gflops=Z'");
cl::opt<std::string> benchModelPath(cl::Positional, cl::desc("<model.onnx|.onnxtxt>"),
                                    cl::Required, cl::sub(benchCmd));
cl::opt<unsigned> benchThreads("threads", cl::desc("Threads of the generated code (default 1)"),
                               cl::init(1), cl::sub(benchCmd));
cl::opt<std::string> benchTarget("target", cl::desc("As for compile: cpp (default) or halide"),
                                 cl::init("cpp"), cl::sub(benchCmd));
cl::opt<std::string> benchHalideAutoscheduler(
    "halide-autoscheduler", cl::desc("As for compile, with --target halide"), cl::sub(benchCmd));
cl::opt<std::string> benchTargetCpu(
    "target-cpu", cl::desc("CPU the code runs on, as for compile (default native)"),
    cl::init("native"), cl::sub(benchCmd));
cl::opt<unsigned> benchIters("iters", cl::desc("Timed runs (default 50)"), cl::init(50),
                             cl::sub(benchCmd));
cl::opt<unsigned> benchWarmup("warmup", cl::desc("Untimed runs before them (default 5)"),
                              cl::init(5), cl::sub(benchCmd));
cl::opt<uint64_t> benchSeed("seed", cl::desc("Seed of the random inputs (default 1)"),
                            cl::init(1), cl::sub(benchCmd));
cl::list<std::string> benchInputs(
    "input",
    cl::desc("The raw bytes of an input instead of random values: one file per model input, "
             "in model order (repeatable)"),
    cl::value_desc("file"), cl::sub(benchCmd));
cl::list<std::string> benchShapes(
    "shape",
    cl::desc("Dims of an input: NAME=D0xD1x... (repeatable; symbolic dims not given get 1 "
             "as an input's first dim, else 64)"),
    cl::sub(benchCmd));
cl::opt<std::string> benchKeep("keep",
                               cl::desc("Keep the generated code, harness and binary (DIR/run) "
                                        "in this folder (reused as a build cache)"),
                               cl::value_desc("dir"), cl::sub(benchCmd));
cl::opt<std::string> benchCxx("cxx", cl::desc("C++ compiler (default: $CXX, else c++)"),
                              cl::value_desc("path"), cl::sub(benchCmd));
cl::opt<std::string> benchCxxFlags("cxx-flags",
                                   cl::desc("Flags of the harness build (default -O2)"),
                                   cl::init("-O2"), cl::sub(benchCmd));
cl::opt<bool> benchProfile(
    "profile",
    cl::desc("Compile with per-node timing hooks (compile --profile), print the time of each "
             "node over the timed runs, sorted, and write a Chrome trace (--trace)"),
    cl::sub(benchCmd));
cl::opt<std::string> benchTrace(
    "trace",
    cl::desc("With --profile: the Chrome-trace JSON, as ONNX Runtime's profiler writes it "
             "(default onnxcc_profile_NAME.json in the current folder)"),
    cl::value_desc("file.json"), cl::sub(benchCmd));
cl::opt<unsigned> benchProfileTop("profile-top",
                                  cl::desc("With --profile: the nodes the table lists, the "
                                           "slowest first (default 30; 0: all)"),
                                  cl::init(30), cl::sub(benchCmd));
cl::opt<std::string> benchJson("json",
                               cl::desc("Also write every result (per-run times included) "
                                        "to this file as JSON"),
                               cl::value_desc("file"), cl::sub(benchCmd));

/// Prints `message` as the tool's one-line error and returns exit status 1.
int reportError(const Twine &message) {
  // One line, whatever names from the model the message quotes.
  WithColor::error(errs(), "onnxcc") << onnxcc::codegen::displayText(message.str(), 8192)
                                     << "\n";
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

/// Parses --shape NAME=D0xD1x... values.
Expected<std::vector<std::pair<std::string, std::vector<int64_t>>>>
parseShapes(ArrayRef<std::string> specs) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  for (const std::string &spec : specs) {
    auto [name, dims] = StringRef(spec).rsplit('=');
    if (name.empty() || dims.empty())
      return createStringError(inconvertibleErrorCode(),
                               "--shape '" + spec + "' is not NAME=D0xD1x...");
    std::vector<int64_t> values;
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef p : parts) {
      int64_t v;
      if (p.getAsInteger(10, v) || v < 0)
        return createStringError(inconvertibleErrorCode(),
                                 "--shape '" + spec + "': '" + p + "' is not a dimension");
      values.push_back(v);
    }
    shapes.push_back({name.str(), values});
  }
  return shapes;
}

/// Parses --sequence NAME=[D0xD1],[D0],[] values.
Expected<std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>>>
parseSequences(ArrayRef<std::string> specs) {
  std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>> sequences;
  for (const std::string &spec : specs) {
    auto bad = [&](const Twine &why) {
      return createStringError(inconvertibleErrorCode(),
                               "--sequence '" + spec + "': " + why +
                                   " (expected NAME=[D0xD1],[D0],[])");
    };
    auto [name, rest] = StringRef(spec).split('=');
    if (name.empty() || name.size() == spec.size())
      return bad("no NAME=");
    std::vector<std::vector<int64_t>> shapes;
    while (!rest.empty()) {
      if (!rest.consume_front("["))
        return bad("an element shape must start with '['");
      auto [dims, tail] = rest.split(']');
      if (tail.size() == rest.size())
        return bad("an element shape must end with ']'");
      std::vector<int64_t> values;
      SmallVector<StringRef> parts;
      if (!dims.empty())
        dims.split(parts, 'x');
      for (StringRef p : parts) {
        int64_t v;
        if (p.getAsInteger(10, v) || v < 0)
          return bad("'" + p + "' is not a dimension");
        values.push_back(v);
      }
      shapes.push_back(std::move(values));
      rest = tail;
      if (!rest.empty() && !rest.consume_front(","))
        return bad("element shapes are separated by ','");
    }
    sequences.push_back({name.str(), std::move(shapes)});
  }
  return sequences;
}

/// Parses --bound NODE=N values.
Expected<std::vector<std::pair<std::string, int64_t>>> parseBounds(ArrayRef<std::string> specs) {
  std::vector<std::pair<std::string, int64_t>> bounds;
  for (const std::string &spec : specs) {
    auto [name, value] = StringRef(spec).rsplit('=');
    int64_t n;
    if (name.empty() || value.getAsInteger(10, n) || n < 0 || n > (int64_t(1) << 31))
      return createStringError(inconvertibleErrorCode(),
                               "--bound '" + spec + "' is not NODE=N (N from 0 to 2^31)");
    bounds.push_back({name.str(), n});
  }
  return bounds;
}

/// Inspect needs no MLIR context: it reads the protobuf and nothing else, so
/// it works on models the importer cannot handle yet. With --optimized it
/// describes the model `onnxcc optimize --keep-fused` would write.
int runInspect() {
  if (!inspectOptimized && !inspectShapes.empty())
    return reportError("--shape needs --optimized");
  ::onnx::ModelProto optimized;
  std::optional<onnxcc::LoadedModel> model;
  if (inspectOptimized) {
    onnxcc::OptimizeOptions options;
    auto shapes = parseShapes(inspectShapes);
    if (!shapes)
      return reportError(toString(shapes.takeError()));
    options.shapes = std::move(*shapes);
    options.keepFused = true;
    if (Error e = onnxcc::optimizeModel(inspectModelPath, options, optimized))
      return reportError(toString(std::move(e)));
  } else {
    auto loaded = onnxcc::loadModel(inspectModelPath);
    if (!loaded)
      return reportError(toString(loaded.takeError()));
    model.emplace(std::move(*loaded));
  }
  auto summary = onnxcc::summarizeModel(model ? *model->proto : optimized);
  if (!summary)
    return reportError(inspectModelPath + ": " + toString(summary.takeError()));
  if (inspectJson)
    onnxcc::printModelSummaryJson(*summary, outs());
  else
    onnxcc::printModelSummary(*summary, outs());
  return 0;
}
/// Exit status 0 only when every output of every dataset matched.
int runVerify() {
  onnxcc::VerifyOptions options;
  options.atol = verifyAtol;
  options.rtol = verifyRtol;
  options.keepDir = verifyKeep;
  options.cxx = verifyCxx;
  options.cxxOptLevel = verifyCxxOpt;
  options.pchDir = verifyPchCache;
  options.runWith = verifyRunWith;
  options.targetCpu = verifyTargetCpu;
  options.threads = verifyThreads;
  if (verifyTarget != "cpp" && verifyTarget != "halide" && verifyTarget != "cuda")
    return reportError("--target must be cpp, halide or cuda, not '" + verifyTarget + "'");
  options.target = verifyTarget;
  options.halideAutoscheduler = verifyHalideAutoscheduler;
  options.generatedDir = verifyGenerated;
  auto bounds = parseBounds(verifyBounds);
  if (!bounds)
    return reportError(toString(bounds.takeError()));
  options.bounds = std::move(*bounds);
  auto passed = onnxcc::verifyModel(verifyModelPath, verifyDataset, options, outs());
  outs().flush();
  if (!passed) {
    std::string message = toString(passed.takeError());
    // --target cuda where no GPU (or no driver) is: a distinct status, so
    // that scripts can tell "cannot check here" from a failure.
    if (verifyTarget == "cuda" && StringRef(message).contains("no CUDA GPU")) {
      reportError(message);
      return 4;
    }
    return reportError(message);
  }
  return *passed ? 0 : 1;
}
} // namespace

namespace {
int runBench() {
  onnxcc::BenchOptions options;
  options.threads = benchThreads;
  options.targetCpu = benchTargetCpu;
  if (benchTarget != "cpp" && benchTarget != "halide")
    return reportError("--target must be cpp or halide, not '" + benchTarget + "'");
  options.target = benchTarget;
  options.halideAutoscheduler = benchHalideAutoscheduler;
  options.iters = benchIters;
  options.warmup = benchWarmup;
  options.seed = benchSeed;
  options.keepDir = benchKeep;
  options.cxx = benchCxx;
  options.cxxFlags = benchCxxFlags;
  options.jsonPath = benchJson;
  if (!benchProfile && (benchTrace.getNumOccurrences() || benchProfileTop.getNumOccurrences()))
    return reportError("--trace and --profile-top need --profile");
  options.profile = benchProfile;
  options.inputFiles.assign(benchInputs.begin(), benchInputs.end());
  options.tracePath = benchTrace;
  options.profileTop = benchProfileTop;
  auto shapes = parseShapes(benchShapes);
  if (!shapes)
    return reportError(toString(shapes.takeError()));
  options.shapes = std::move(*shapes);
  Error err = onnxcc::benchModel(benchModelPath, options, outs());
  outs().flush();
  if (err)
    return reportError(toString(std::move(err)));
  return 0;
}

int runOptimize() {
  onnxcc::OptimizeOptions options;
  auto shapes = parseShapes(optimizeShapes);
  if (!shapes)
    return reportError(toString(shapes.takeError()));
  options.shapes = std::move(*shapes);
  options.keepFused = optimizeKeepFused;
  options.channelsLast = optimizeChannelsLast;
  ::onnx::ModelProto model;
  if (Error e = onnxcc::optimizeModel(optimizeModelPath, options, model))
    return reportError(toString(std::move(e)));
  std::string bytes;
  if (StringRef(optimizeOut).ends_with(".onnxtxt")) {
    if (!google::protobuf::TextFormat::PrintToString(model, &bytes))
      return reportError("cannot write the model as text");
  } else if (model.ByteSizeLong() > static_cast<size_t>(INT32_MAX) ||
             !model.SerializeToString(&bytes)) {
    return reportError("the optimized model is larger than protobuf's 2 GiB limit");
  }
  std::error_code ec;
  raw_fd_ostream os(optimizeOut, ec, sys::fs::OF_None);
  if (ec)
    return reportError("cannot write " + optimizeOut + ": " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return reportError("cannot write " + optimizeOut);
  return 0;
}

int runGraph() {
  if (!graphOptimized && !graphShapes.empty())
    return reportError("--shape needs --optimized");
  onnxcc::GraphOptions options;
  options.optimized = graphOptimized;
  auto shapes = parseShapes(graphShapes);
  if (!shapes)
    return reportError(toString(shapes.takeError()));
  options.shapes = std::move(*shapes);
  if (Error e = onnxcc::writeModelGraph(graphModelPath, graphOut, options))
    return reportError(toString(std::move(e)));
  return 0;
}

int runCompile() {
  if (compileTarget != "cpp" && compileTarget != "halide" && compileTarget != "cuda")
    return reportError("--target must be cpp, halide or cuda, not '" + compileTarget + "'");
  // sm_NN or sm_NNa (the architecture-specific features of sm_90a, sm_100a).
  StringRef archDigits = StringRef(compileCudaArch).drop_front(3);
  if (archDigits.ends_with("a"))
    archDigits = archDigits.drop_back();
  if (!StringRef(compileCudaArch).starts_with("sm_") || archDigits.size() < 2 ||
      !llvm::all_of(archDigits, [](char c) { return llvm::isDigit(c); }))
    return reportError("--cuda-arch must be sm_NN (e.g. sm_80, sm_90a), not '" +
                       compileCudaArch + "'");
  if (compileCudaArch.getNumOccurrences() && compileTarget != "cuda")
    return reportError("--cuda-arch needs --target cuda");
  if (!compileHalideAutoscheduler.empty() && compileTarget != "halide")
    return reportError("--halide-autoscheduler needs --target halide");
  onnxcc::CompileOptions options;
  options.emit = compileEmit;
  options.passPipeline = compilePassPipeline;
  options.printIrAfterAll = compilePrintIr;
  options.timePasses = compileTimePasses;
  options.targetCpu = compileTargetCpu;
  options.threads = compileThreads;
  options.target = compileTarget;
  options.cudaArch = compileCudaArch;
  options.halideAutoscheduler = compileHalideAutoscheduler;
  options.progress = !compileQuiet && sys::Process::StandardErrIsDisplayed();
  options.profile = compileProfile;
  options.report = compileReport.getNumOccurrences() > 0;
  options.reportJsonPath = compileReport;
  if (compileWeights != "embed" && compileWeights != "file")
    return reportError("--weights must be embed or file, not '" + compileWeights + "'");
  options.embedWeights = compileWeights == "embed";
  if (compileStringPool < 0 || compileStringPool > (int64_t(1) << 40))
    return reportError("--string-pool must be between 0 and 2^40 bytes, not " +
                       Twine(compileStringPool.getValue()));
  options.stringPoolSize = compileStringPool;
  options.name = compileName.empty()
                     ? onnxcc::sanitizeIdentifier(sys::path::stem(compileModelPath))
                     : std::string(compileName);
  if (options.name != onnxcc::sanitizeIdentifier(options.name))
    return reportError("--name '" + options.name +
                       "' is not a usable C identifier (letters, digits and single '_' "
                       "inside; no keyword; e.g. '" +
                       onnxcc::sanitizeIdentifier(options.name) + "')");
  auto shapes = parseShapes(compileShapes);
  if (!shapes)
    return reportError(toString(shapes.takeError()));
  options.shapes = std::move(*shapes);
  auto sequences = parseSequences(compileSequences);
  if (!sequences)
    return reportError(toString(sequences.takeError()));
  options.sequences = std::move(*sequences);
  auto bounds = parseBounds(compileBounds);
  if (!bounds)
    return reportError(toString(bounds.takeError()));
  options.bounds = std::move(*bounds);
  if (options.emit == onnxcc::EmitStage::Cpp) {
    if (compileOutDir.empty())
      return reportError("compile needs -o DIR");
    options.outDir = compileOutDir;
    if (Error e = onnxcc::compileModel(compileModelPath, options, outs()))
      return reportError(toString(std::move(e)));
    return 0;
  }
  std::error_code ec;
  raw_fd_ostream os(compileOutDir.empty() ? std::string("-") : std::string(compileOutDir), ec);
  if (ec)
    return reportError("cannot write " + compileOutDir + ": " + ec.message());
  if (Error e = onnxcc::compileModel(compileModelPath, options, os))
    return reportError(toString(std::move(e)));
  return 0;
}

int runTargetInfo() {
  auto cpu = onnxcc::describeTargetCpu(targetInfoCpu);
  if (!cpu)
    return reportError(toString(cpu.takeError()));
  std::string isa = targetInfoCpu == "none" || targetInfoCpu == "generic"
                        ? std::string(targetInfoCpu)
                        : onnxcc::kernelIsaFor(*cpu);
  std::string halide = onnxcc::halideTargetFor(*cpu);
  if (targetInfoPrint == "kernel-isa") {
    outs() << isa << "\n";
    return 0;
  }
  if (targetInfoPrint == "halide-target") {
    outs() << halide << "\n";
    return 0;
  }
  if (!targetInfoPrint.empty())
    return reportError("--print: unknown value '" + targetInfoPrint +
                       "' (kernel-isa or halide-target)");
  SmallVector<StringRef> features;
  for (const auto &f : cpu->features)
    features.push_back(f.getKey());
  llvm::sort(features);
  outs() << "target-cpu: " << targetInfoCpu << "\n"
         << "arch: " << cpu->arch << ", os: " << cpu->os << "\n"
         << "features: " << llvm::join(features, " ") << "\n"
         << "kernel-isa: " << isa << "\n"
         << "halide-target: " << halide << "\n";
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // For --pass-pipeline: the project's passes and pipelines by name.
  onnxcc::registerAllPasses();
  // `onnxcc --help` lists the subcommands, not the hundreds of options LLVM
  // and MLIR register (they stay usable, and listed by --help-hidden).
  for (auto &[name, option] : cl::getRegisteredOptions(cl::SubCommand::getTopLevel()))
    if (name != "help" && name != "version")
      option->setHiddenFlag(cl::Hidden);
  cl::ParseCommandLineOptions(argc, argv, "onnxcc: an ahead-of-time compiler for ONNX models\n");
  if (compileCmd)
    return runCompile();
  if (importCmd)
    return runImport();
  if (inspectCmd)
    return runInspect();
  if (verifyCmd)
    return runVerify();
  if (optimizeCmd)
    return runOptimize();
  if (benchCmd)
    return runBench();
  if (graphCmd)
    return runGraph();
  if (targetInfoCmd)
    return runTargetInfo();
  errs() << "onnxcc: no command given; see 'onnxcc --help'\n";
  return 1;
}
