//===- TargetCpuTest.cpp - Unit tests of compiler/TargetCpu.h -------------===//
//
// The feature sets below are what LLVM's getHostCPUFeatures reports on each
// CPU (the relevant subset, from the vendors' CPUID documentation). The
// cases that matter: AMD's Zen 4 and Zen 5 have AVX-512 with BF16 and VNNI
// but neither AVX512-FP16 nor AMX, so they must never get Halide's
// avx512_sapphirerapids (whose LLVM CPU emits FP16 instructions: an illegal
// instruction there), which Intel's Sapphire Rapids does get.
//
//===----------------------------------------------------------------------===//
#include "compiler/TargetCpu.h"

#include "gtest/gtest.h"

#include <initializer_list>
#include <string>

using namespace onnxcc;

namespace {

CpuDescription x86Linux(std::initializer_list<const char *> features) {
  CpuDescription cpu;
  cpu.arch = "x86_64";
  cpu.os = "linux";
  for (const char *f : features)
    cpu.features.insert(f);
  return cpu;
}

/// Zen 3 (EPYC Milan): AVX2, no AVX-512.
CpuDescription zen3() {
  return x86Linux({"sse4.1", "sse4.2", "avx", "avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt",
                   "movbe", "popcnt", "aes", "vaes", "vpclmulqdq", "sha", "adx"});
}

/// Zen 4 (EPYC Genoa): AVX-512 up to VBMI2/BITALG/VPOPCNTDQ, VNNI and BF16
/// in their EVEX forms; no AVX-VNNI, no AVX512-FP16, no AMX.
CpuDescription zen4() {
  CpuDescription cpu = zen3();
  for (const char *f : {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512ifma",
                        "avx512vbmi", "avx512vbmi2", "avx512vnni", "avx512bitalg",
                        "avx512vpopcntdq", "avx512bf16", "gfni"})
    cpu.features.insert(f);
  return cpu;
}

/// Zen 5 (EPYC Turin): Zen 4 plus AVX-VNNI and VP2INTERSECT; still no
/// AVX512-FP16 and no AMX (the CPU of the crash this file guards against).
CpuDescription zen5() {
  CpuDescription cpu = zen4();
  for (const char *f : {"avxvnni", "avx512vp2intersect", "movdiri", "movdir64b"})
    cpu.features.insert(f);
  return cpu;
}

/// Ice Lake server: AVX-512 with IFMA/VBMI/VNNI, no BF16, no FP16.
CpuDescription iceLake() {
  return x86Linux({"sse4.1", "sse4.2", "avx", "avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt",
                   "movbe", "popcnt", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl",
                   "avx512ifma", "avx512vbmi", "avx512vbmi2", "avx512vnni", "avx512bitalg",
                   "avx512vpopcntdq", "gfni", "vaes", "vpclmulqdq", "sha"});
}

/// Sapphire Rapids: Ice Lake plus BF16, AVX-VNNI, AVX512-FP16 and AMX.
CpuDescription sapphireRapids() {
  CpuDescription cpu = iceLake();
  for (const char *f : {"avx512bf16", "avxvnni", "avx512fp16", "amx-tile", "amx-int8", "amx-bf16",
                        "serialize", "tsxldtrk"})
    cpu.features.insert(f);
  return cpu;
}

const char *kCannonlake =
    "x86-64-linux-sse41-avx-f16c-avx2-fma-avx512-avx512_skylake-avx512_cannonlake";

TEST(TargetCpu, HalideTargetOfZen3) {
  EXPECT_EQ(halideTargetFor(zen3()), "x86-64-linux-sse41-avx-f16c-avx2-fma");
  EXPECT_EQ(kernelIsaFor(zen3()), "avx2");
}

TEST(TargetCpu, HalideTargetOfZen4) {
  EXPECT_EQ(halideTargetFor(zen4()), kCannonlake);
  EXPECT_EQ(kernelIsaFor(zen4()), "avx512");
}

TEST(TargetCpu, HalideTargetOfZen5HasNoSapphireRapids) {
  std::string target = halideTargetFor(zen5());
  EXPECT_EQ(target, kCannonlake);
  EXPECT_EQ(target.find("sapphirerapids"), std::string::npos);
  EXPECT_EQ(kernelIsaFor(zen5()), "avx512");
}

TEST(TargetCpu, HalideTargetOfIceLake) {
  EXPECT_EQ(halideTargetFor(iceLake()), kCannonlake);
  EXPECT_EQ(kernelIsaFor(iceLake()), "avx512");
}

TEST(TargetCpu, HalideTargetOfSapphireRapids) {
  EXPECT_EQ(halideTargetFor(sapphireRapids()), std::string(kCannonlake) + "-avx512_sapphirerapids");
  EXPECT_EQ(kernelIsaFor(sapphireRapids()), "avx512");
}

/// Each instruction family that avx512_sapphirerapids brings is required:
/// without any one of them the target stops at avx512_cannonlake.
TEST(TargetCpu, SapphireRapidsNeedsEachOfItsFeatures) {
  for (const char *f : {"avx512fp16", "amx-tile", "amx-int8", "amx-bf16", "avx512bf16", "avxvnni"}) {
    CpuDescription cpu = sapphireRapids();
    cpu.features.erase(f);
    EXPECT_EQ(halideTargetFor(cpu), kCannonlake) << "without " << f;
  }
}

/// AVX2 without FMA (or without BMI2, which Halide's haswell CPU emits)
/// stops at avx; AVX-512 F without VL/BW/DQ is the plain avx512 level.
TEST(TargetCpu, PartialLevels) {
  CpuDescription noFma = zen3();
  noFma.features.erase("fma");
  EXPECT_EQ(halideTargetFor(noFma), "x86-64-linux-sse41-avx-f16c");
  EXPECT_EQ(kernelIsaFor(noFma), "generic");
  CpuDescription noBmi2 = zen3();
  noBmi2.features.erase("bmi2");
  EXPECT_EQ(halideTargetFor(noBmi2), "x86-64-linux-sse41-avx-f16c");
  CpuDescription knightsLanding = zen3();
  knightsLanding.features.insert("avx512f");
  knightsLanding.features.insert("avx512cd");
  EXPECT_EQ(halideTargetFor(knightsLanding), "x86-64-linux-sse41-avx-f16c-avx2-fma-avx512");
  EXPECT_EQ(kernelIsaFor(knightsLanding), "avx2");
  EXPECT_EQ(halideTargetFor(x86Linux({})), "x86-64-linux");
}

TEST(TargetCpu, NamedTargetCpus) {
  auto v3 = describeTargetCpu("x86-64-v3");
  ASSERT_TRUE(static_cast<bool>(v3));
  EXPECT_EQ(kernelIsaFor(*v3), "avx2");
  EXPECT_EQ(halideTargetFor(*v3).substr(0, 7), "x86-64-");
  EXPECT_NE(halideTargetFor(*v3).find("-sse41-avx-f16c-avx2-fma"), std::string::npos);
  EXPECT_EQ(halideTargetFor(*v3).find("avx512"), std::string::npos);

  auto v4 = describeTargetCpu("x86-64-v4");
  ASSERT_TRUE(static_cast<bool>(v4));
  EXPECT_EQ(kernelIsaFor(*v4), "avx512");
  std::string v4Target = halideTargetFor(*v4);
  EXPECT_NE(v4Target.find("-avx512-avx512_skylake"), std::string::npos);
  EXPECT_EQ(v4Target.find("cannonlake"), std::string::npos);

  auto arm = describeTargetCpu("armv8-a");
  ASSERT_TRUE(static_cast<bool>(arm));
  EXPECT_EQ(kernelIsaFor(*arm), "neon");
  EXPECT_EQ(halideTargetFor(*arm).substr(0, 7), "arm-64-");

  auto bogus = describeTargetCpu("pentium4");
  ASSERT_FALSE(static_cast<bool>(bogus));
  EXPECT_NE(llvm::toString(bogus.takeError()).find("unknown CPU 'pentium4'"), std::string::npos);
}

TEST(TargetCpu, AArch64Features) {
  CpuDescription cpu;
  cpu.arch = "aarch64";
  cpu.os = "linux";
  cpu.features.insert("neon");
  EXPECT_EQ(halideTargetFor(cpu), "arm-64-linux");
  cpu.features.insert("dotprod");
  cpu.features.insert("fullfp16");
  EXPECT_EQ(halideTargetFor(cpu), "arm-64-linux-arm_dot_prod-arm_fp16");
  EXPECT_EQ(kernelIsaFor(cpu), "neon");
}

/// The host's own description gives a target naming its architecture, and
/// the same answer twice.
TEST(TargetCpu, Host) {
  std::string target = halideTargetFor(hostCpu());
  EXPECT_FALSE(target.empty());
  EXPECT_EQ(target, halideTargetFor(hostCpu()));
  auto native = describeTargetCpu("native");
  ASSERT_TRUE(static_cast<bool>(native));
  EXPECT_EQ(halideTargetFor(*native), target);
}

} // namespace
