//===- TargetCpu.cpp - The CPU generated code runs on --------------------===//
#include "compiler/TargetCpu.h"
#include "compiler/Errors.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using llvm::StringRef;

namespace onnxcc {
namespace {

/// The host's architecture and OS, as CpuDescription names them.
CpuDescription hostArchAndOs() {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  CpuDescription cpu;
  cpu.arch = llvm::Triple::getArchTypeName(triple.getArch()).str();
  if (triple.isOSLinux())
    cpu.os = "linux";
  else if (triple.isMacOSX())
    cpu.os = "osx";
  else if (triple.isOSWindows())
    cpu.os = "windows";
  else
    cpu.os = llvm::Triple::getOSTypeName(triple.getOS()).str();
  return cpu;
}

/// The x86-64 micro-architecture levels (psABI): the features each adds.
constexpr StringRef kX86V2[] = {"cx16", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3", "sahf"};
constexpr StringRef kX86V3[] = {"avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe",
                                "xsave"};
constexpr StringRef kX86V4[] = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"};

} // namespace

CpuDescription hostCpu() {
  CpuDescription cpu = hostArchAndOs();
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    if (entry.getValue())
      cpu.features.insert(entry.getKey());
  // Advanced SIMD is part of every AArch64 CPU, whatever the OS reports.
  if (cpu.arch == "aarch64")
    cpu.features.insert("neon");
  return cpu;
}

llvm::Expected<CpuDescription> describeTargetCpu(StringRef targetCpu) {
  if (targetCpu == "native")
    return hostCpu();
  CpuDescription cpu = hostArchAndOs();
  auto add = [&](llvm::ArrayRef<StringRef> names) {
    for (StringRef f : names)
      cpu.features.insert(f);
  };
  if (targetCpu == "generic" || targetCpu == "none")
    return cpu;
  if (targetCpu == "x86-64-v3" || targetCpu == "avx2" || targetCpu == "x86-64-v4" ||
      targetCpu == "avx512") {
    cpu.arch = "x86_64";
    add(kX86V2);
    add(kX86V3);
    if (targetCpu == "x86-64-v4" || targetCpu == "avx512")
      add(kX86V4);
    return cpu;
  }
  if (targetCpu == "armv8-a" || targetCpu == "neon") {
    cpu.arch = "aarch64";
    add({"neon"});
    return cpu;
  }
  return makeError("--target-cpu: unknown CPU '" + targetCpu +
                   "' (native, generic, x86-64-v3, x86-64-v4, armv8-a or none)");
}

std::string kernelIsaFor(const CpuDescription &cpu) {
  if (cpu.arch == "aarch64")
    return "neon";
  if (cpu.arch != "x86_64")
    return "generic";
  if (cpu.has("avx512f") && cpu.has("avx512vl") && cpu.has("avx512bw") && cpu.has("avx512dq") &&
      cpu.has("fma"))
    return "avx512";
  if (cpu.has("avx2") && cpu.has("fma"))
    return "avx2";
  return "generic";
}

std::string halideTargetFor(const CpuDescription &cpu) {
  StringRef arch = cpu.arch == "x86_64" ? "x86-64" : cpu.arch == "aarch64" ? "arm-64" : "";
  bool knownOs = cpu.os == "linux" || cpu.os == "osx" || cpu.os == "windows";
  if (arch.empty() || !knownOs)
    return "host";
  std::string target = (arch + "-" + cpu.os).str();
  auto allOf = [&](std::initializer_list<StringRef> names) {
    for (StringRef f : names)
      if (!cpu.has(f))
        return false;
    return true;
  };
  auto feature = [&](StringRef halideName) { target += ("-" + halideName).str(); };
  if (arch == "arm-64") {
    // Halide 14 emits sdot/udot under arm_dot_prod and half arithmetic
    // under arm_fp16.
    if (cpu.has("dotprod"))
      feature("arm_dot_prod");
    if (cpu.has("fullfp16"))
      feature("arm_fp16");
    return target;
  }
  // Each Halide x86 feature implies the ones before it in this chain (its
  // code generator passes the matching LLVM CPU, e.g. "sapphirerapids" for
  // avx512_sapphirerapids, whose instructions include AVX512-FP16 and AMX):
  // a level is given only when the CPU has everything that LLVM CPU has
  // which Halide may use.
  if (!cpu.has("sse4.1"))
    return target;
  feature("sse41");
  if (!cpu.has("avx"))
    return target;
  feature("avx");
  if (cpu.has("f16c"))
    feature("f16c");
  if (!allOf({"avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt", "movbe"}))
    return target;
  feature("avx2");
  feature("fma");
  if (!allOf({"avx512f", "avx512cd"}))
    return target;
  feature("avx512");
  if (!allOf({"avx512vl", "avx512bw", "avx512dq"}))
    return target;
  feature("avx512_skylake");
  if (!allOf({"avx512ifma", "avx512vbmi"}))
    return target;
  feature("avx512_cannonlake");
  if (!allOf({"avx512bf16", "avxvnni", "avx512vnni", "avx512vbmi2", "avx512bitalg",
              "avx512vpopcntdq", "avx512fp16", "amx-tile", "amx-int8", "amx-bf16"}))
    return target;
  feature("avx512_sapphirerapids");
  return target;
}

} // namespace onnxcc
