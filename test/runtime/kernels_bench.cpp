// kernels_bench.cpp - single-thread GFLOP/s of the onnxcc kernels on
// ResNet-18 / MobileNetV2 / transformer layer shapes.
//
//   c++ -std=c++17 -O2 -DONNXCC_KERNELS_ISA=2 -Iruntime-support \
//       test/runtime/kernels_bench.cpp -o kernels_bench && ./kernels_bench
#include "onnxcc_kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <vector>

namespace k = onnxcc_rt::kernels;
static constexpr int kIsa = ONNXCC_KERNELS_ISA;

namespace {

/// This thread's CPU time in seconds (the machine is shared: wall-clock time
/// would count other jobs' time slices).
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// Best-of-several CPU time of `fn` in seconds; a sample lasts >= 20 ms.
template <typename F> double best_time(F fn) {
  fn();
  int reps = 1;
  for (;;) {
    double t0 = cpu_seconds();
    for (int i = 0; i < reps; ++i)
      fn();
    if (cpu_seconds() - t0 > 0.02)
      break;
    reps *= 2;
  }
  double best = 1e30;
  for (int trial = 0; trial < 10; ++trial) {
    double t0 = cpu_seconds();
    for (int i = 0; i < reps; ++i)
      fn();
    best = std::min(best, (cpu_seconds() - t0) / reps);
  }
  return best;
}

std::vector<float> filled(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = 12345;
  for (float &f : v) {
    s = s * 1664525u + 1013904223u;
    f = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
  return v;
}

void conv(const char *name, int64_t C, int64_t H, int64_t M, int64_t KS, int64_t S, int64_t P,
          int act) {
  const int64_t W = H, OH = (H + 2 * P - KS) / S + 1, OW = OH, K = C * KS * KS;
  auto x = filled(C * H * W), w = filled(M * K), bias = filled(M);
  std::vector<float> y(M * OH * OW), wp(k::packed_conv_weights_floats(kIsa, M, K, 1));
  k::pack_conv_weights(kIsa, w.data(), M, K, 1, wp.data());
  std::vector<float> scratch(
      k::conv2d_scratch_floats(kIsa, C, KS, KS, 1, OH, OW, S, S, P, P, P, P, 1, 1) + 1);
  double t = best_time([&] {
    k::conv2d(x.data(), wp.data(), bias.data(), 1, y.data(), 0, y.data(), scratch.data(), 1, C, H,
              W, M, OH, OW, KS, KS, S, S, P, P, P, P, 1, 1, 1, act, 0, 0, 0, 1, kIsa);
  });
  double flop = 2.0 * M * K * OH * OW;
  std::printf("%-34s %8.3f ms %7.1f GFLOP/s\n", name, t * 1e3, flop / t * 1e-9);
}

void dw(const char *name, int64_t C, int64_t H, int64_t KS, int64_t S) {
  const int64_t P = KS / 2, OH = (H + 2 * P - KS) / S + 1;
  auto x = filled(C * H * H), w = filled(C * KS * KS), bias = filled(C);
  std::vector<float> y(C * OH * OH);
  std::vector<float> scratch(
      k::depthwise_conv2d_scratch_floats(kIsa, H, H, KS, KS, S, S, P, P, P, P, 1, 1, OH, OH));
  double t = best_time([&] {
    k::depthwise_conv2d(x.data(), w.data(), bias.data(), 1, y.data(), 0, y.data(), scratch.data(),
                        1, C, H, H, OH, OH, KS, KS, S, S, P, P, P, P, 1, 1, 1, 0, 0, 0, 1);
  });
  double flop = 2.0 * C * KS * KS * OH * OH;
  double bytes = 4.0 * (C * H * H + C * OH * OH);
  std::printf("%-34s %8.3f ms %7.1f GFLOP/s %6.1f GB/s\n", name, t * 1e3, flop / t * 1e-9,
              bytes / t * 1e-9);
}

void gemm(const char *name, int64_t M, int64_t K, int64_t N) {
  auto a = filled(M * K), b = filled(K * N), bias = filled(N);
  std::vector<float> c(M * N), bp(k::packed_gemm_b_floats(kIsa, K, N));
  k::pack_gemm_b(kIsa, b.data(), K, N, true, 1.0f, bp.data());
  double t = best_time([&] {
    k::gemm_packed_b(a.data(), K, bp.data(), bias.data(), 1, c.data(), 0, c.data(), M, N, K, 0, 0,
                     0, 0, 1, kIsa);
  });
  double flop = 2.0 * M * N * K;
  std::printf("%-34s %8.3f ms %7.1f GFLOP/s %6.1f GB/s(B)\n", name, t * 1e3, flop / t * 1e-9,
              4.0 * K * N / t * 1e-9);
}

void act(const char *name, int32_t code) {
  auto x = filled(1 << 16);
  double t = best_time([&] { k::activate(x.data(), 1 << 16, code, 0, 1); });
  std::printf("%-34s %8.3f ms %7.2f Gelem/s\n", name, t * 1e3, (1 << 16) / t * 1e-9);
}

} // namespace

int main() {
  std::printf("ISA %d, single thread\n", kIsa);
  conv("conv 7x7 s2 3->64 @224 (stem)", 3, 224, 64, 7, 2, 3, 1);
  conv("conv 3x3 64->64 @56", 64, 56, 64, 3, 1, 1, 1);
  conv("conv 3x3 s2 64->128 @56", 64, 56, 128, 3, 2, 1, 1);
  conv("conv 3x3 128->128 @28", 128, 28, 128, 3, 1, 1, 1);
  conv("conv 3x3 256->256 @14", 256, 14, 256, 3, 1, 1, 1);
  conv("conv 3x3 512->512 @7", 512, 7, 512, 3, 1, 1, 1);
  conv("conv 1x1 s2 64->128 @56", 64, 56, 128, 1, 2, 0, 0);
  conv("conv 1x1 s2 256->512 @14", 256, 14, 512, 1, 2, 0, 0);
  conv("conv 1x1 32->192 @56 (mbv2)", 32, 56, 192, 1, 1, 0, 0);
  conv("conv 1x1 192->32 @56 (mbv2)", 192, 56, 32, 1, 1, 0, 0);
  conv("conv 1x1 96->576 @14 (mbv2)", 96, 14, 576, 1, 1, 0, 6);
  conv("conv 1x1 960->320 @7 (mbv2)", 960, 7, 320, 1, 1, 0, 0);
  conv("conv 1x1 320->1280 @7 (mbv2)", 320, 7, 1280, 1, 1, 0, 6);
  dw("dw 3x3 s1 32 @112", 32, 112, 3, 1);
  dw("dw 3x3 s2 96 @112", 96, 112, 3, 2);
  dw("dw 3x3 s1 144 @56", 144, 56, 3, 1);
  dw("dw 3x3 s2 144 @56", 144, 56, 3, 2);
  dw("dw 3x3 s1 384 @14", 384, 14, 3, 1);
  dw("dw 3x3 s1 960 @7", 960, 7, 3, 1);
  dw("dw 5x5 s1 240 @28 (effnet)", 240, 28, 5, 1);
  dw("dw 5x5 s2 672 @14 (effnet)", 672, 14, 5, 2);
  gemm("gemm 64x256 * 256x1024", 64, 256, 1024);
  gemm("gemm 64x1024 * 1024x256", 64, 1024, 256);
  gemm("gemv 1x512 * 512x1000", 1, 512, 1000);
  gemm("gemv 1x1280 * 1280x1000", 1, 1280, 1000);
  act("activate sigmoid 64K", 4);
  act("activate gelu_erf 64K", 8);
  act("activate tanh 64K", 10);
  return 0;
}
