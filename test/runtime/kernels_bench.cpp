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
#include <string>
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

/// Winograd F(4x4, 3x3) on a 3x3 stride-1 pad-1 layer; GFLOP/s counted as
/// direct-convolution FLOPs (2*M*C*9*OH*OW) so the figures compare to conv().
void wino(const char *name, int64_t C, int64_t H, int64_t M, int act, int64_t batch = 1) {
  const int64_t W = H, OH = H, OW = W;
  auto x = filled(batch * C * H * W), w = filled(M * C * 9), bias = filled(M);
  std::vector<float> y(batch * M * OH * OW), wp(k::packed_winograd_weights_floats(kIsa, M, C));
  k::pack_winograd_weights(kIsa, w.data(), M, C, wp.data());
  std::vector<float> scratch(k::winograd_scratch_floats(kIsa, C, M, H, W, OH, OW, 1, 1, 1, 1));
  double t = best_time([&] {
    k::conv2d_winograd(x.data(), wp.data(), bias.data(), 1, y.data(), 0, y.data(), scratch.data(),
                       batch, C, H, W, M, OH, OW, 1, 1, 1, 1, act, 0, 0, 0, 1);
  });
  double flop = 2.0 * batch * M * C * 9 * OH * OW;
  std::printf("%-34s %8.3f ms %7.1f GFLOP/s (direct-conv FLOPs)\n", name, t * 1e3,
              flop / t * 1e-9);
}

void dw(const char *name, int64_t C, int64_t H, int64_t KS, int64_t S, int act = 1) {
  const int64_t P = KS / 2, OH = (H + 2 * P - KS) / S + 1;
  auto x = filled(C * H * H), w = filled(C * KS * KS), bias = filled(C);
  std::vector<float> y(C * OH * OH);
  std::vector<float> scratch(
      k::depthwise_conv2d_scratch_floats(kIsa, H, H, KS, KS, S, S, P, P, P, P, 1, 1, OH, OH));
  double t = best_time([&] {
    k::depthwise_conv2d(x.data(), w.data(), bias.data(), 1, y.data(), 0, y.data(), scratch.data(),
                        1, C, H, H, OH, OH, KS, KS, S, S, P, P, P, P, 1, 1, act, 0, 6, 0, 1);
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
  auto x0 = filled(1 << 16), x = x0;
  for (float &v : x0)
    v *= 16.0f; // [-8, 8)
  // (Re-copied every call: iterating an activation in place would converge
  // to its fixed points.)
  double t = best_time([&] {
    std::copy(x0.begin(), x0.end(), x.begin());
    if (code >= 0)
      k::activate(x.data(), 1 << 16, code, 0, 6);
  });
  std::printf("%-34s %8.3f ms %7.2f Gelem/s\n", name, t * 1e3, (1 << 16) / t * 1e-9);
}

void maxpool(const char *name, int64_t C, int64_t H, int64_t KS, int64_t S, int64_t P) {
  const int64_t OH = (H + 2 * P - KS) / S + 1;
  auto x = filled(C * H * H);
  std::vector<float> y(C * OH * OH);
  double t = best_time([&] {
    k::max_pool2d(x.data(), y.data(), C, H, H, OH, OH, KS, KS, S, S, P, P, 1, 1, 0, 1);
  });
  std::printf("%-34s %8.3f ms %7.2f Gelem/s in %6.1f GB/s\n", name, t * 1e3, C * H * H / t * 1e-9,
              4.0 * (C * H * H + C * OH * OH) / t * 1e-9);
}

void gap(const char *name, int64_t rows, int64_t cols) {
  auto x = filled(rows * cols);
  std::vector<float> y(rows);
  double t = best_time([&] { k::global_avg_pool(x.data(), y.data(), rows, cols, 0, 1); });
  std::printf("%-34s %8.3f ms %7.2f Gelem/s in\n", name, t * 1e3, rows * cols / t * 1e-9);
}

/// depthwise_conv2d_nhwc on the same shape as dw() (pad k/2, square map).
void dw_nhwc(const char *name, int64_t C, int64_t H, int64_t KS, int64_t S, int act = 1) {
  const int64_t P = KS / 2, OH = (H + 2 * P - KS) / S + 1;
  auto x = filled(H * H * C), w = filled(C * KS * KS), bias = filled(C);
  std::vector<float> y(OH * OH * C), wp(k::packed_depthwise_nhwc_weights_floats(kIsa, C, KS, KS));
  k::pack_depthwise_nhwc_weights(kIsa, w.data(), C, KS, KS, wp.data());
  double t = best_time([&] {
    k::depthwise_conv2d_nhwc(x.data(), wp.data(), bias.data(), 1, y.data(), 0, y.data(), 1, C, H,
                             H, OH, OH, KS, KS, S, S, P, P, 1, 1, act, 0, 6, 0, 1);
  });
  double flop = 2.0 * C * KS * KS * OH * OH;
  double bytes = 4.0 * (C * H * H + C * OH * OH);
  std::printf("%-34s %8.3f ms %7.1f GFLOP/s %6.1f GB/s\n", name, t * 1e3, flop / t * 1e-9,
              bytes / t * 1e-9);
}

/// conv2d_nhwc (batch 1, square map, pad P on every side).
void conv_nhwc(const char *name, int64_t C, int64_t H, int64_t M, int64_t KS, int64_t S, int64_t P,
               int act) {
  const int64_t W = H, OH = (H + 2 * P - KS) / S + 1, OW = OH, K = C * KS * KS;
  auto x = filled(H * W * C), w = filled(M * K), bias = filled(M);
  std::vector<float> y(OH * OW * M), wp(k::packed_conv_nhwc_weights_floats(kIsa, M, C, KS, KS));
  k::pack_conv_nhwc_weights(kIsa, w.data(), M, C, KS, KS, wp.data());
  std::vector<float> scratch(
      k::conv2d_nhwc_scratch_floats(kIsa, C, KS, KS, OH, OW, S, S, P, P, P, P, 1, 1) + 1);
  double t = best_time([&] {
    k::conv2d_nhwc(x.data(), wp.data(), bias.data(), 1, y.data(), 0, y.data(), scratch.data(), 1,
                   C, H, W, M, OH, OW, KS, KS, S, S, P, P, P, P, 1, 1, act, 0, 6, 0, 1, kIsa);
  });
  double flop = 2.0 * M * K * OH * OW;
  std::printf("%-34s %8.3f ms %7.1f GFLOP/s\n", name, t * 1e3, flop / t * 1e-9);
}

void mean_mid(const char *name, int64_t outer, int64_t R, int64_t inner) {
  auto x = filled(outer * R * inner);
  std::vector<float> y(outer * inner);
  double t = best_time([&] { k::reduce_mean_mid(x.data(), y.data(), outer, R, inner, 0, 1); });
  std::printf("%-34s %8.3f ms %7.2f Gelem/s in\n", name, t * 1e3, outer * R * inner / t * 1e-9);
}

} // namespace

int main(int argc, char **argv) {
  std::printf("ISA %d, single thread\n", kIsa);
  // `kernels_bench nhwc`: only the channels-last comparisons.
  const bool nhwcOnly = argc > 1 && std::string(argv[1]) == "nhwc";
  if (!nhwcOnly) {
  conv("conv 7x7 s2 3->64 @224 (stem)", 3, 224, 64, 7, 2, 3, 1);
  conv("conv 3x3 64->64 @56", 64, 56, 64, 3, 1, 1, 1);
  conv("conv 3x3 s2 64->128 @56", 64, 56, 128, 3, 2, 1, 1);
  conv("conv 3x3 128->128 @28", 128, 28, 128, 3, 1, 1, 1);
  conv("conv 3x3 256->256 @14", 256, 14, 256, 3, 1, 1, 1);
  conv("conv 3x3 512->512 @7", 512, 7, 512, 3, 1, 1, 1);
  wino("winograd 3x3 64->64 @56", 64, 56, 64, 1);
  wino("winograd 3x3 128->128 @28", 128, 28, 128, 1);
  wino("winograd 3x3 256->256 @14", 256, 14, 256, 1);
  wino("winograd 3x3 512->512 @7", 512, 7, 512, 1);
  wino("winograd 3x3 512->512 @7 batch 4", 512, 7, 512, 1, 4);
  conv("conv 1x1 s2 64->128 @56", 64, 56, 128, 1, 2, 0, 0);
  conv("conv 1x1 s2 256->512 @14", 256, 14, 512, 1, 2, 0, 0);
  conv("conv 1x1 32->192 @56 (mbv2)", 32, 56, 192, 1, 1, 0, 0);
  conv("conv 1x1 192->32 @56 (mbv2)", 192, 56, 32, 1, 1, 0, 0);
  conv("conv 1x1 96->576 @14 (mbv2)", 96, 14, 576, 1, 1, 0, 6);
  conv("conv 1x1 960->320 @7 (mbv2)", 960, 7, 320, 1, 1, 0, 0);
  conv("conv 1x1 320->1280 @7 (mbv2)", 320, 7, 1280, 1, 1, 0, 6);
  // MobileNetV2 (ReLU6 = Clip 0..6) and EfficientNet-B0 (SiLU) depthwise layers.
  dw("dw 3x3 s1 32 @112 (mbv2)", 32, 112, 3, 1, 2);
  dw("dw 3x3 s2 96 @112 (mbv2)", 96, 112, 3, 2, 2);
  dw("dw 3x3 s1 144 @56 (mbv2)", 144, 56, 3, 1, 2);
  dw("dw 3x3 s2 144 @56 (mbv2)", 144, 56, 3, 2, 2);
  dw("dw 3x3 s1 192 @28 (mbv2)", 192, 28, 3, 1, 2);
  dw("dw 3x3 s2 192 @28 (mbv2)", 192, 28, 3, 2, 2);
  dw("dw 3x3 s1 384 @14 (mbv2)", 384, 14, 3, 1, 2);
  dw("dw 3x3 s1 576 @14 (mbv2)", 576, 14, 3, 1, 2);
  dw("dw 3x3 s2 576 @14 (mbv2)", 576, 14, 3, 2, 2);
  dw("dw 3x3 s1 960 @7 (mbv2)", 960, 7, 3, 1, 2);
  dw("dw 5x5 s2 144 @56 (effnet)", 144, 56, 5, 2, 7);
  dw("dw 5x5 s1 240 @28 (effnet)", 240, 28, 5, 1, 7);
  dw("dw 3x3 s2 240 @28 (effnet)", 240, 28, 3, 2, 7);
  dw("dw 3x3 s1 480 @14 (effnet)", 480, 14, 3, 1, 7);
  dw("dw 5x5 s1 672 @14 (effnet)", 672, 14, 5, 1, 7);
  dw("dw 5x5 s2 672 @14 (effnet)", 672, 14, 5, 2, 7);
  dw("dw 5x5 s1 1152 @7 (effnet)", 1152, 7, 5, 1, 7);
  dw("dw 3x3 s1 1152 @7 (effnet)", 1152, 7, 3, 1, 7);
  gemm("gemm 64x256 * 256x1024", 64, 256, 1024);
  gemm("gemm 64x1024 * 1024x256", 64, 1024, 256);
  gemm("gemv 1x512 * 512x1000", 1, 512, 1000);
  gemm("gemv 1x1280 * 1280x1000", 1, 1280, 1000);
  maxpool("maxpool 3x3 s2 64 @112 (resnet)", 64, 112, 3, 2, 1);
  maxpool("maxpool 2x2 s2 64 @56", 64, 56, 2, 2, 0);
  gap("global_avg_pool 1280 x 7x7 (mbv2)", 1280, 49);
  gap("global_avg_pool 512 x 7x7 (resnet)", 512, 49);
  gap("global_avg_pool 144 x 56x56", 144, 3136);
  act("copy 64K (included in activate rows)", -1);
  act("activate relu 64K", 1);
  act("activate clip 64K", 2);
  act("activate sigmoid 64K", 4);
  act("activate hardswish 64K", 6);
  act("activate silu 64K", 7);
  act("activate gelu_erf 64K", 8);
  act("activate gelu_tanh 64K", 9);
  act("activate tanh 64K", 10);
  conv("conv 1x1 40->240 @28 silu (effnet)", 40, 28, 240, 1, 1, 0, 7);
  conv("conv 1x1 80->480 @14 silu (effnet)", 80, 14, 480, 1, 1, 0, 7);
  }
  // Channels last (NHWC) against the NCHW kernels on the same shapes.
  struct DwShape {
    const char *name;
    int64_t C, H, KS, S;
    int act;
  } dws[] = {{"3x3 s1 32 @112", 32, 112, 3, 1, 2},   {"3x3 s2 96 @112", 96, 112, 3, 2, 2},
             {"3x3 s1 144 @56", 144, 56, 3, 1, 2},   {"3x3 s2 144 @56", 144, 56, 3, 2, 2},
             {"3x3 s1 192 @28", 192, 28, 3, 1, 2},   {"3x3 s2 192 @28", 192, 28, 3, 2, 2},
             {"3x3 s1 384 @14", 384, 14, 3, 1, 2},   {"3x3 s1 576 @14", 576, 14, 3, 1, 2},
             {"3x3 s2 576 @14", 576, 14, 3, 2, 2},   {"3x3 s1 960 @7", 960, 7, 3, 1, 2},
             {"5x5 s2 144 @56 silu", 144, 56, 5, 2, 7}, {"5x5 s1 240 @28 silu", 240, 28, 5, 1, 7},
             {"3x3 s2 240 @28 silu", 240, 28, 3, 2, 7}, {"3x3 s1 480 @14 silu", 480, 14, 3, 1, 7},
             {"5x5 s1 672 @14 silu", 672, 14, 5, 1, 7}, {"5x5 s2 672 @14 silu", 672, 14, 5, 2, 7},
             {"5x5 s1 1152 @7 silu", 1152, 7, 5, 1, 7}, {"3x3 s1 1152 @7 silu", 1152, 7, 3, 1, 7}};
  for (const DwShape &d : dws) {
    std::string n = std::string("dw nchw ") + d.name, m = std::string("dw nhwc ") + d.name;
    dw(n.c_str(), d.C, d.H, d.KS, d.S, d.act);
    dw_nhwc(m.c_str(), d.C, d.H, d.KS, d.S, d.act);
  }
  struct ConvShape {
    const char *name;
    int64_t C, H, M, KS, S, P;
    int act;
  } convs[] = {{"3x3 s2 3->32 @224 (stem)", 3, 224, 32, 3, 2, 1, 2},
               {"1x1 32->16 @112", 32, 112, 16, 1, 1, 0, 0},
               {"1x1 16->96 @112", 16, 112, 96, 1, 1, 0, 2},
               {"1x1 24->144 @56", 24, 56, 144, 1, 1, 0, 2},
               {"1x1 144->24 @56", 144, 56, 24, 1, 1, 0, 0},
               {"1x1 32->192 @28", 32, 28, 192, 1, 1, 0, 2},
               {"1x1 192->32 @28", 192, 28, 32, 1, 1, 0, 0},
               {"1x1 64->384 @14", 64, 14, 384, 1, 1, 0, 2},
               {"1x1 384->64 @14", 384, 14, 64, 1, 1, 0, 0},
               {"1x1 96->576 @14", 96, 14, 576, 1, 1, 0, 2},
               {"1x1 576->96 @14", 576, 14, 96, 1, 1, 0, 0},
               {"1x1 160->960 @7", 160, 7, 960, 1, 1, 0, 2},
               {"1x1 960->320 @7", 960, 7, 320, 1, 1, 0, 0},
               {"1x1 320->1280 @7", 320, 7, 1280, 1, 1, 0, 2},
               {"1x1 40->240 @28 silu", 40, 28, 240, 1, 1, 0, 7},
               {"1x1 80->480 @14 silu", 80, 14, 480, 1, 1, 0, 7}};
  for (const ConvShape &c : convs) {
    std::string n = std::string("conv nchw ") + c.name, m = std::string("conv nhwc ") + c.name;
    conv(n.c_str(), c.C, c.H, c.M, c.KS, c.S, c.P, c.act);
    conv_nhwc(m.c_str(), c.C, c.H, c.M, c.KS, c.S, c.P, c.act);
  }
  mean_mid("reduce_mean_mid 1 x 49 x 1280", 1, 49, 1280);
  mean_mid("reduce_mean_mid 1 x 3136 x 144", 1, 3136, 144);
  return 0;
}
