//===- TargetCpu.h - The CPU generated code runs on ----------------------===//
//
// One description of the CPU the generated code is for (--target-cpu), from
// which every target's choice is made: the runtime-support kernel ISA of the
// cpp target and the Halide target string. Only instructions the CPU really
// reports are used: Halide 14's own host detection infers Sapphire Rapids
// from AVX-VNNI + AVX512-BF16 and then emits AVX512-FP16 instructions, which
// AMD's Zen 4 and Zen 5 lack.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_COMPILER_TARGETCPU_H
#define ONNXCC_COMPILER_TARGETCPU_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <string>

namespace onnxcc {

/// A CPU: its architecture, the operating system code is built for, and
/// its instruction-set features by LLVM's names (sys::getHostCPUFeatures:
/// "avx2", "fma", "avx512f", "avx512fp16", "amx-tile", "dotprod", ...).
struct CpuDescription {
  /// "x86_64", "aarch64", or another LLVM architecture name.
  std::string arch;
  /// "linux", "osx", "windows", or another LLVM OS name.
  std::string os;
  llvm::StringSet<> features;

  bool has(llvm::StringRef feature) const { return features.contains(feature); }
};

/// The machine onnxcc runs on (arch, OS and the features it reports).
CpuDescription hostCpu();

/// The CPU of --target-cpu: `native` (hostCpu()), `x86-64-v3` (AVX2, FMA,
/// F16C...), `x86-64-v4` (v3 + AVX-512 F/CD/BW/DQ/VL), `armv8-a` (AArch64
/// with Advanced SIMD), or `generic` / `none` (the host's architecture with
/// no optional features). An error names the known values.
llvm::Expected<CpuDescription> describeTargetCpu(llvm::StringRef targetCpu);

/// The runtime-support kernel ISA for `cpu`: avx512 (F, VL, BW, DQ and FMA),
/// avx2 (AVX2 and FMA), neon (AArch64) or generic.
std::string kernelIsaFor(const CpuDescription &cpu);

/// The Halide 14 target string for `cpu` (without the no_runtime feature):
/// each Halide feature only when every instruction it lets Halide emit is
/// present; e.g. avx512_sapphirerapids only with AVX512-FP16 and AMX, and
/// "x86-64-linux-avx-avx2-f16c-fma-sse41" for a Zen 3. For an architecture
/// other than x86-64 and AArch64, "host" (Halide's own detection).
std::string halideTargetFor(const CpuDescription &cpu);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_TARGETCPU_H
