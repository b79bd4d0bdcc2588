//===- HalideTarget.cpp - onnxcc compile/verify --target halide ----------===//
//
// compile: the linalg-on-tensors module goes to codegen/halide, whose files
// are written next to each other. verify: the same files built the way
// add_halide_generator/add_halide_library do, with the C++ compiler and the
// Halide 14 install directly (onnxcc itself never links libHalide): the
// generator against libHalide and GenGen.cpp, run for the host target.
//
//===----------------------------------------------------------------------===//
#include "compiler/HalideTarget.h"
#include "compiler/Errors.h"
#include "compiler/TargetCpu.h"
#include "compiler/Verify.h"

#include "codegen/halide/HalideEmitter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace onnxcc {
namespace {

Error writeText(StringRef dir, StringRef name, StringRef contents) {
  SmallString<256> file(dir);
  path::append(file, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(file, ec, fs::OF_None);
  if (ec)
    return makeError("cannot write " + file + ": " + ec.message());
  os << contents;
  os.close();
  if (os.has_error())
    return makeError("cannot write " + file);
  return Error::success();
}

/// The Halide 14 install: $ONNXCC_HALIDE_ROOT (a prefix with include/,
/// lib/ and share/tools or src/) or Debian's libhalide14-0-dev.
struct HalideInstall {
  std::string includeDir, library, genGen, pluginDir;
};

std::optional<HalideInstall> locateHalide() {
  SmallVector<HalideInstall> candidates;
  if (auto root = llvm::sys::Process::GetEnv("ONNXCC_HALIDE_ROOT"))
    candidates.push_back({*root + "/include", *root + "/lib/libHalide.so",
                          *root + "/share/tools/GenGen.cpp", *root + "/lib"});
  candidates.push_back({"/usr/include/halide14", "/usr/lib/x86_64-linux-gnu/libHalide14.so",
                        "/usr/src/halide14/GenGen.cpp", "/usr/lib/x86_64-linux-gnu/halide14"});
  candidates.push_back({"/usr/include/halide14", "/usr/lib/aarch64-linux-gnu/libHalide14.so",
                        "/usr/src/halide14/GenGen.cpp", "/usr/lib/aarch64-linux-gnu/halide14"});
  for (const HalideInstall &c : candidates)
    if (fs::exists(c.includeDir + "/Halide.h") && fs::exists(c.library) && fs::exists(c.genGen))
      return c;
  return std::nullopt;
}

std::string hashFile(StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return buffer ? llvm::utohexstr(llvm::xxh3_64bits((*buffer)->getBuffer())) : "absent";
}

std::string inDir(StringRef dir, const Twine &file) {
  SmallString<256> p(dir);
  path::append(p, file);
  return std::string(p);
}

/// Runs `command` unless `stampFile` holds `stamp` (the hash of the command
/// and its inputs), then writes it.
Error runStamped(StringRef what, ArrayRef<std::string> command, StringRef stampFile,
                 StringRef stamp, StringRef logFile) {
  if (auto old = llvm::MemoryBuffer::getFile(stampFile); old && (*old)->getBuffer() == stamp)
    return Error::success();
  fs::remove(stampFile);
  if (Error e = runHarnessProgram(VerifyStage::Build, what, command, logFile, logFile))
    return e;
  return writeText(path::parent_path(stampFile), path::filename(stampFile), stamp);
}

/// A precompiled Halide.h for generator builds by `compiler` with `flags`
/// (see precompiledHeader): a one-line header including it, in a folder of
/// the temporary directory named after the compiler, the flags and Halide.h.
/// A generator build spends most of its time parsing Halide.h (3.8 of 4.9 s
/// for a one-node model with GCC 12; 1.9 s with the precompiled header, most
/// of it loading its 130 MB). Empty when precompiling fails: the build then
/// parses the header itself and reports any error.
std::string precompiledHalideHeader(ArrayRef<std::string> compiler, ArrayRef<std::string> flags,
                                    const HalideInstall &halide) {
  std::string key = hashFile(halide.includeDir + "/Halide.h");
  for (const std::string &arg : compiler)
    key += "\n" + arg;
  for (const std::string &arg : flags)
    key += "\n" + arg;
  SmallString<256> dir;
  path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
  path::append(dir, "onnxcc-halide-pch-" + llvm::utohexstr(llvm::xxh3_64bits(key)));
  if (fs::create_directories(dir))
    return "";
  SmallVector<std::string> command(compiler.begin(), compiler.end());
  command.append(flags.begin(), flags.end());
  return precompiledHeader(dir, "onnxcc_halide.h", "#include \"Halide.h\"\n", command);
}

} // namespace

Error checkHalideAutoscheduler(StringRef name) {
  if (name.empty() || name == "Mullapudi2016" || name == "Li2018" || name == "Adams2019")
    return Error::success();
  return makeError("--halide-autoscheduler: unknown autoscheduler '" + name +
                   "' (Mullapudi2016, Li2018 or Adams2019)");
}

Expected<std::string> halideTargetForCpu(StringRef targetCpu) {
  auto cpu = describeTargetCpu(targetCpu);
  if (!cpu)
    return cpu.takeError();
  return halideTargetFor(*cpu);
}

Error writeHalideModel(ModuleOp module, StringRef modelPath, const CompileOptions &options) {
  if (Error e = checkHalideAutoscheduler(options.halideAutoscheduler))
    return e;
  auto halideTarget = halideTargetForCpu(options.targetCpu);
  if (!halideTarget)
    return halideTarget.takeError();
  codegen::HalideEmitOptions emitOptions;
  emitOptions.name = options.name;
  emitOptions.modelPath = path::filename(modelPath).str();
  emitOptions.autoscheduler = options.halideAutoscheduler;
  emitOptions.threads = options.threads;
  emitOptions.halideTarget = *halideTarget;
  auto model = codegen::emitHalide(module, emitOptions);
  if (!model)
    return makeError(modelPath + ": " + toString(model.takeError()));
  if (std::error_code ec = fs::create_directories(options.outDir))
    return makeError("cannot create " + options.outDir + ": " + ec.message());
  const std::string &n = options.name;
  for (auto [file, text] : {std::pair<std::string, const std::string *>{n + "_generator.cpp",
                                                                          &model->generator},
                            {n + ".h", &model->header},
                            {n + ".cpp", &model->source},
                            {n + ".cpp.weights", &model->weights},
                            {"CMakeLists.txt", &model->cmake}})
    if (Error e = writeText(options.outDir, file, *text))
      return e;
  return Error::success();
}

Expected<bool> findHalideInstall(std::string *reason) {
  if (locateHalide())
    return true;
  if (reason)
    *reason = "Halide 14 is not installed (apt-get install libhalide14-0-dev, or set "
              "ONNXCC_HALIDE_ROOT)";
  return false;
}

Expected<std::string> buildHalidePipeline(StringRef workDir, StringRef name, StringRef cxx,
                                          StringRef autoscheduler, StringRef targetCpu) {
  std::optional<HalideInstall> halide = locateHalide();
  if (!halide)
    return makeError("build: Halide 14 is not installed (apt-get install libhalide14-0-dev, "
                     "or set ONNXCC_HALIDE_ROOT)");
  if (Error e = checkHalideAutoscheduler(autoscheduler))
    return std::move(e);
  auto compiler = findCxxCompiler(cxx);
  if (!compiler)
    return compiler.takeError();
  auto halideTarget = halideTargetForCpu(targetCpu);
  if (!halideTarget)
    return halideTarget.takeError();

  // GenGen.cpp once per compiler and Halide version, shared by every build.
  SmallString<256> genGenObj;
  path::system_temp_directory(/*ErasedOnReboot=*/true, genGenObj);
  std::string compilerKey;
  for (const std::string &arg : *compiler)
    compilerKey += arg + " ";
  path::append(genGenObj, "onnxcc-halide-gengen-" +
                              llvm::utohexstr(llvm::xxh3_64bits(compilerKey + hashFile(halide->genGen))) +
                              ".o");
  if (!fs::exists(genGenObj)) {
    std::string partial = inDir(workDir, "GenGen.o");
    SmallVector<std::string> command(*compiler);
    command.append({"-std=c++17", "-O1", "-I", halide->includeDir, "-c",
                    halide->genGen, "-o", partial});
    if (Error e = runHarnessProgram(VerifyStage::Build, "the Halide GenGen build", command,
                                    inDir(workDir, "halide.log"), inDir(workDir, "halide.log")))
      return std::move(e);
    // Another build may have renamed its copy in the meantime: both are the same.
    if (fs::rename(partial, genGenObj) && fs::copy_file(partial, genGenObj))
      return makeError("build: cannot write " + genGenObj);
  }

  std::string generator = inDir(workDir, name + "_generator");
  SmallVector<std::string> build(*compiler);
  SmallVector<std::string> flags{"-std=c++17", "-O0", "-I", halide->includeDir};
  build.append(flags.begin(), flags.end());
  std::string pch = precompiledHalideHeader(*compiler, flags, *halide);
  if (!pch.empty())
    build.append({"-include", pch});
  build.append({inDir(workDir, name + "_generator.cpp"), std::string(genGenObj), "-o", generator,
                halide->library, "-ldl", "-lpthread", "-Wl,-rpath," + path::parent_path(halide->library).str()});
  std::string stamp = llvm::join(build, " ") + "\n" +
                      hashFile(inDir(workDir, name + "_generator.cpp")) + "\n";
  if (Error e = runStamped("the Halide generator build", build,
                           inDir(workDir, name + "_generator.stamp"), stamp,
                           inDir(workDir, "halide.log")))
    return std::move(e);

  SmallVector<std::string> run{generator, "-g", name.str(), "-o", workDir.str(), "-e", "object,c_header",
                               "-f", (name + "_pipeline").str(), "target=" + *halideTarget + "-no_runtime"};
  if (!autoscheduler.empty()) {
    std::string lower = StringRef(autoscheduler).lower();
    run.append({"-p", halide->pluginDir + "/libautoschedule_" + lower + ".so", "-s",
                autoscheduler.str(), "auto_schedule=true"});
  }
  if (Error e = runStamped("the Halide generator", run, inDir(workDir, name + "_pipeline.stamp"),
                           llvm::join(run, " ") + "\n" + hashFile(generator) + "\n",
                           inDir(workDir, "halide.log")))
    return std::move(e);
  // The runtime depends only on Halide and the target: one for every build.
  SmallString<256> runtimeObj;
  path::system_temp_directory(/*ErasedOnReboot=*/true, runtimeObj);
  path::append(runtimeObj, "onnxcc-halide-runtime-" + hashFile(halide->library) + "-" +
                               llvm::utohexstr(llvm::xxh3_64bits(*halideTarget)) + ".o");
  if (!fs::exists(runtimeObj)) {
    SmallVector<std::string> runtime{generator, "-r", name.str() + "_halide_runtime", "-o",
                                     workDir.str(), "-e", "object", "target=" + *halideTarget};
    if (Error e = runHarnessProgram(VerifyStage::Build, "the Halide runtime", runtime,
                                    inDir(workDir, "halide.log"), inDir(workDir, "halide.log")))
      return std::move(e);
    std::string built = inDir(workDir, name + "_halide_runtime.o");
    if (fs::rename(built, runtimeObj) && fs::copy_file(built, runtimeObj))
      return makeError("build: cannot write " + runtimeObj);
  }
  // The pipeline's hash keeps the harness's build stamp honest.
  return "-I" + halide->includeDir + " -DONNXCC_HALIDE_PIPELINE=0x" +
         hashFile(inDir(workDir, name + "_pipeline.o")) + " " +
         inDir(workDir, name + "_pipeline.o") + " " + std::string(runtimeObj) + " -ldl";
}

} // namespace onnxcc
