// kernels_test.cpp - checks runtime-support/onnxcc_kernels.h against naive
// double-precision references. Build with -DONNXCC_KERNELS_ISA=<0|1|2> and
// -I runtime-support; prints one PASS/FAIL line per case group and exits
// non-zero on any failure.
//
// Every output and scratch buffer is surrounded by sentinel guards that must
// survive the call; absent bias / z operands point at NaN buffers, so a read
// of them shows up as NaN in the output.
#include "onnxcc_kernels.h"

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace k = onnxcc_rt::kernels;
static constexpr int kIsa = ONNXCC_KERNELS_ISA;

namespace {

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<uint32_t>(s >> 11);
  }
  float uniform() { return (next() & 0xffffff) / float(1 << 23) - 1.0f; } // [-1, 1)
};

/// A float buffer with sentinel guards on both sides.
class Guarded {
public:
  static constexpr int kGuard = 67;
  explicit Guarded(int64_t n, float fill = 0.0f)
      : n_(n), mem_(static_cast<size_t>(n + 2 * kGuard)) {
    for (int i = 0; i < kGuard; ++i)
      mem_[i] = mem_[n + kGuard + i] = sentinel();
    for (int64_t i = 0; i < n; ++i)
      mem_[kGuard + i] = fill;
  }
  float *data() { return mem_.data() + kGuard; }
  float &operator[](int64_t i) { return data()[i]; }
  int64_t size() const { return n_; }
  bool guards_ok() const {
    for (int i = 0; i < kGuard; ++i)
      if (!same(mem_[i]) || !same(mem_[n_ + kGuard + i]))
        return false;
    return true;
  }

private:
  static float sentinel() { return -12345.678f; }
  static bool same(float v) { return std::memcmp(&v, &kS, 4) == 0; }
  static const float kS;
  int64_t n_;
  std::vector<float> mem_;
};
const float Guarded::kS = -12345.678f;

double act_ref(double x, int act, double p0, double p1) {
  switch (act) {
  case 1:
    return x != x ? x : std::max(0.0, x);
  case 2:
    return x != x ? x : std::min(p1, std::max(p0, x));
  case 3:
    return x < 0 ? p0 * x : x;
  case 4:
    return 1.0 / (1.0 + std::exp(-x));
  case 5:
    return std::max(0.0, std::min(1.0, p0 * x + p1));
  case 6:
    return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
  case 7:
    return x / (1.0 + std::exp(-x));
  case 8:
    return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
  case 9: {
    double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
    return x / (1.0 + std::exp(-2 * u));
  }
  case 10:
    return std::tanh(x);
  default:
    return x;
  }
}

void act_params(int act, float &p0, float &p1) {
  p0 = p1 = 0;
  if (act == 2) {
    p0 = -0.25f;
    p1 = 0.5f;
  } else if (act == 3) {
    p0 = 0.1f;
  } else if (act == 5) {
    p0 = 0.2f;
    p1 = 0.5f;
  }
}

int g_failures = 0;
void report(const std::string &group, int bad, const std::string &detail) {
  std::printf("%s %s%s%s\n", bad ? "FAIL" : "PASS", group.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  if (bad)
    ++g_failures;
}

/// Checks got against a double reference with the conv/gemm tolerance:
/// |err| <= 1e-5 * (sum |terms|) + 1e-6, scaled through the activation.
bool close(float got, double ref, double absSum) {
  if (std::isnan(ref))
    return std::isnan(got);
  double tol = 1e-5 * 1.2 * absSum + 1e-6 + 4e-6 * std::fabs(ref);
  return std::fabs(got - ref) <= tol;
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//
struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, g;
};

std::string conv_name(const ConvCase &t) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "n%" PRId64 " c%" PRId64 " %" PRId64 "x%" PRId64 " m%" PRId64 " k%" PRId64
                "x%" PRId64 " s%" PRId64 ",%" PRId64 " p%" PRId64 ",%" PRId64 ",%" PRId64
                ",%" PRId64 " d%" PRId64 ",%" PRId64 " g%" PRId64,
                t.n, t.c, t.h, t.w, t.m, t.kh, t.kw, t.sh, t.sw, t.pt, t.pl, t.pb, t.pr, t.dh, t.dw,
                t.g);
  return buf;
}

/// Runs one conv case; returns a description of the first problem or "".
/// aliasZ: z is the output buffer itself (in-place residual add).
std::string run_conv(const ConvCase &t, int act, bool hasBias, bool hasZ, uint64_t seed,
                     bool aliasZ = false) {
  Rng rng(seed);
  const int64_t oh = (t.h + t.pt + t.pb - t.dh * (t.kh - 1) - 1) / t.sh + 1;
  const int64_t ow = (t.w + t.pl + t.pr - t.dw * (t.kw - 1) - 1) / t.sw + 1;
  const int64_t cg = t.c / t.g, mg = t.m / t.g, K = cg * t.kh * t.kw;
  std::vector<float> x(t.n * t.c * t.h * t.w), w(t.m * K), bias(t.m), z(t.n * t.m * oh * ow);
  for (float &v : x)
    v = rng.uniform();
  for (float &v : w)
    v = rng.uniform();
  for (float &v : bias)
    v = rng.uniform();
  for (float &v : z)
    v = rng.uniform();
  float p0, p1;
  act_params(act, p0, p1);
  Guarded wp(k::packed_conv_weights_floats(kIsa, t.m, K, t.g));
  k::pack_conv_weights(kIsa, w.data(), t.m, K, t.g, wp.data());
  if (!wp.guards_ok())
    return "pack_conv_weights wrote out of bounds";
  const int64_t sf = k::conv2d_scratch_floats(kIsa, t.c, t.kh, t.kw, t.g, oh, ow, t.sh, t.sw, t.pt,
                                              t.pl, t.pb, t.pr, t.dh, t.dw);
  std::vector<float> nans(t.n * t.m * oh * ow + t.m, std::numeric_limits<float>::quiet_NaN());
  const int64_t ysize = t.n * t.m * oh * ow;
  std::vector<float> first;
  for (int parts = 1; parts <= 3; ++parts) {
    Guarded y(ysize, 777.0f), scratch(sf * parts, 3.0e38f);
    const float *zp = hasZ ? z.data() : nans.data();
    if (aliasZ) {
      std::memcpy(y.data(), z.data(), ysize * sizeof(float));
      zp = y.data();
    }
    for (int64_t p = 0; p < parts; ++p) {
      int rc =
          k::conv2d(x.data(), wp.data(), hasBias ? bias.data() : nans.data(), hasBias, zp, hasZ,
                    y.data(), scratch.data(), t.n, t.c, t.h, t.w, t.m, oh, ow, t.kh, t.kw, t.sh,
                    t.sw, t.pt, t.pl, t.pb, t.pr, t.dh, t.dw, t.g, act, p0, p1, p, parts, kIsa);
      if (rc != 0)
        return "conv2d returned " + std::to_string(rc);
    }
    if (!y.guards_ok())
      return "output guard overwritten (parts=" + std::to_string(parts) + ")";
    if (!scratch.guards_ok())
      return "scratch guard overwritten (parts=" + std::to_string(parts) + ")";
    if (parts == 1) {
      first.assign(y.data(), y.data() + ysize);
    } else if (std::memcmp(first.data(), y.data(), ysize * sizeof(float)) != 0) {
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
    }
  }
  // Reference.
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t m = 0; m < t.m; ++m) {
      int64_t g = m / mg;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = 0, absSum = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t a = 0; a < t.kh; ++a)
              for (int64_t e = 0; e < t.kw; ++e) {
                int64_t ih = i * t.sh - t.pt + a * t.dh, iw = j * t.sw - t.pl + e * t.dw;
                if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
                  continue;
                double term = double(w[(m * cg + c) * t.kh * t.kw + a * t.kw + e]) *
                              x[((b * t.c + g * cg + c) * t.h + ih) * t.w + iw];
                acc += term;
                absSum += std::fabs(term);
              }
          int64_t o = ((b * t.m + m) * oh + i) * ow + j;
          if (hasBias) {
            acc += bias[m];
            absSum += std::fabs(bias[m]);
          }
          if (hasZ) {
            acc += z[o];
            absSum += std::fabs(z[o]);
          }
          double ref = act_ref(acc, act, p0, p1);
          if (!close(first[o], ref, absSum)) {
            char buf[200];
            std::snprintf(buf, sizeof buf, "y[%" PRId64 "] = %.9g, want %.9g (act %d)", o, first[o],
                          ref, act);
            return buf;
          }
        }
    }
  return "";
}

void test_conv() {
  const ConvCase cases[] = {
      // n  c   h   w   m  kh kw sh sw pt pl pb pr dh dw g
      {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 16, 14, 14, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {2, 8, 7, 9, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
      {1, 6, 13, 10, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},    // dilation 2
      {1, 5, 10, 12, 7, 3, 2, 2, 1, 0, 1, 2, 0, 1, 1, 1},    // asymmetric pads
      {1, 7, 8, 8, 11, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // 1x1 direct
      {2, 33, 5, 7, 19, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 1x1 direct, batch 2
      {1, 64, 9, 9, 24, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},    // 1x1 stride 2
      {1, 16, 6, 6, 16, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 1x1 padded
      {1, 3, 37, 35, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},   // 7x7 s2 stem
      {1, 12, 9, 9, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},    // groups
      {2, 8, 6, 7, 8, 3, 3, 2, 1, 1, 0, 1, 2, 1, 1, 4},      // groups 2 ch each
      {1, 4, 5, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},      // depthwise through GEMM
      {1, 3, 1, 1, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},      // 1 pixel
      {1, 1, 4, 4, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 1},      // K = 4, M = 1
      {1, 300, 7, 7, 10, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   // K blocks, direct
      {1, 40, 8, 9, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // K = 360 (2 blocks)
      {1, 9, 3, 3, 6, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1},      // pad > input
      {1, 3, 4, 50, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // rows longer than a tile
      {1, 2, 21, 23, 3, 3, 3, 3, 2, 1, 0, 0, 2, 1, 2, 1},    // stride 3 / dilation mix
      {1, 11, 16, 16, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // P = 256: tails of the tile
      {1, 128, 10, 10, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // K = 1152
  };
  // Pixel-count tails: P = 1 .. 50 over one row.
  int bad = 0;
  std::string detail;
  int idx = 0;
  for (const ConvCase &t : cases) {
    for (int variant = 0; variant < 3; ++variant) {
      int act = (idx * 3 + variant) % 11;
      bool hasBias = (idx + variant) % 2 == 0, hasZ = (idx + variant) % 3 != 1;
      std::string err = run_conv(t, act, hasBias, hasZ, 100 + idx * 7 + variant);
      if (!err.empty() && !bad++)
        detail = conv_name(t) + ": " + err;
    }
    ++idx;
  }
  report("conv2d shapes (" + std::to_string(idx) + " shapes x 3 epilogues)", bad, detail);

  bad = 0;
  for (int64_t pw = 1; pw <= 50; ++pw)
    for (int64_t m = 1; m <= 9; m += 4) {
      ConvCase t{1, 3, 1, pw, m, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1, 1};
      std::string err = run_conv(t, (pw + m) % 11, pw % 2, m % 2, pw * 10 + m);
      if (!err.empty() && !bad++)
        detail = conv_name(t) + ": " + err;
      ConvCase d{1, 5, 2, pw, m, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1};
      err = run_conv(d, 0, 1, 1, pw * 10 + m + 5);
      if (!err.empty() && !bad++)
        detail = conv_name(d) + ": " + err;
    }
  report("conv2d tails (pixels 1..50, M 1/5/9, padded and direct)", bad, detail);

  bad = 0;
  for (int act = 0; act <= 10; ++act) {
    ConvCase t{1, 6, 5, 6, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    std::string err = run_conv(t, act, 1, 0, 900 + act);
    if (!err.empty() && !bad++)
      detail = conv_name(t) + ": " + err;
  }
  report("conv2d activations 0..10", bad, bad ? detail : "");

  bad = 0;
  {
    const ConvCase alias[] = {{1, 6, 5, 6, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                              {2, 300, 4, 5, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},
                              {1, 40, 8, 9, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
    for (const ConvCase &t : alias) {
      std::string err = run_conv(t, 1, 1, 1, 950 + t.c, /*aliasZ=*/true);
      if (!err.empty() && !bad++)
        detail = conv_name(t) + ": " + err;
    }
  }
  report("conv2d in place (z == y, K blocked too)", bad, bad ? detail : "");

  // Wrong ISA is refused.
  float dummy[8] = {};
  int rc = k::conv2d(dummy, dummy, dummy, 0, dummy, 0, dummy, dummy, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                     1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, kIsa + 1);
  report("conv2d isa_check mismatch returns 5", rc != 5, rc != 5 ? "rc " + std::to_string(rc) : "");
}

//===----------------------------------------------------------------------===//
// gemm_packed_b
//===----------------------------------------------------------------------===//
std::string run_gemm(int64_t M, int64_t N, int64_t K, int64_t lda, bool trans, float scale, int act,
                     bool hasBias, bool hasZ, uint64_t seed, bool aliasZ = false) {
  Rng rng(seed);
  std::vector<float> a(M * lda), b(K * N), bias(N), z(M * N);
  for (float &v : a)
    v = rng.uniform();
  for (float &v : b)
    v = rng.uniform();
  for (float &v : bias)
    v = rng.uniform();
  for (float &v : z)
    v = rng.uniform();
  float p0, p1;
  act_params(act, p0, p1);
  Guarded bp(k::packed_gemm_b_floats(kIsa, K, N));
  k::pack_gemm_b(kIsa, b.data(), K, N, trans, scale, bp.data());
  if (!bp.guards_ok())
    return "pack_gemm_b wrote out of bounds";
  std::vector<float> nans(M * N + N, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> first;
  for (int parts = 1; parts <= 3; ++parts) {
    Guarded c(M * N, 555.0f);
    const float *zp = hasZ ? z.data() : nans.data();
    if (aliasZ) {
      std::memcpy(c.data(), z.data(), M * N * sizeof(float));
      zp = c.data();
    }
    for (int p = 0; p < parts; ++p) {
      int rc = k::gemm_packed_b(a.data(), lda, bp.data(), hasBias ? bias.data() : nans.data(),
                                hasBias, zp, hasZ, c.data(), M, N, K, act, p0, p1, p, parts, kIsa);
      if (rc)
        return "gemm returned " + std::to_string(rc);
    }
    if (!c.guards_ok())
      return "output guard overwritten";
    if (parts == 1)
      first.assign(c.data(), c.data() + M * N);
    else if (std::memcmp(first.data(), c.data(), M * N * sizeof(float)) != 0)
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
  }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0, absSum = 0;
      for (int64_t q = 0; q < K; ++q) {
        double bv = trans ? b[j * K + q] : b[q * N + j];
        double term = double(a[i * lda + q]) * double(scale * float(bv));
        acc += term;
        absSum += std::fabs(term);
      }
      if (hasBias) {
        acc += bias[j];
        absSum += std::fabs(bias[j]);
      }
      if (hasZ) {
        acc += z[i * N + j];
        absSum += std::fabs(z[i * N + j]);
      }
      double ref = act_ref(acc, act, p0, p1);
      if (!close(first[i * N + j], ref, absSum)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "c[%" PRId64 "][%" PRId64 "] = %.9g, want %.9g", i, j,
                      first[i * N + j], ref);
        return buf;
      }
    }
  return "";
}

void test_gemm() {
  int bad = 0, count = 0;
  std::string detail;
  const int64_t Ms[] = {1, 2, 3, 5, 8, 13, 64};
  const int64_t Ns[] = {1, 7, 16, 17, 48, 100, 257};
  const int64_t Ks[] = {1, 3, 64, 200, 513};
  for (int64_t M : Ms)
    for (int64_t N : Ns)
      for (int64_t K : Ks) {
        if (M * N * K > 4000000)
          continue;
        bool trans = (M + N + K) % 2;
        float scale = (N % 3 == 0) ? 0.5f : 1.0f;
        int64_t lda = K + (M % 3);
        int act = count % 11;
        std::string err =
            run_gemm(M, N, K, lda, trans, scale, act, count % 2 == 0, count % 3 == 0, 1000 + count);
        ++count;
        if (!err.empty() && !bad++) {
          char buf[120];
          std::snprintf(buf, sizeof buf, "M%" PRId64 " N%" PRId64 " K%" PRId64 " trans%d: ", M, N,
                        K, int(trans));
          detail = buf + err;
        }
      }
  // Classifier head and transformer shapes.
  struct {
    int64_t M, N, K;
  } big[] = {{1, 1000, 512}, {64, 256, 1024}, {64, 1024, 256}, {3, 1000, 1280}};
  for (auto &s : big) {
    std::string err = run_gemm(s.M, s.N, s.K, s.K, true, 1.0f, 0, true, false, 7 + s.M);
    ++count;
    if (!err.empty() && !bad++)
      detail = "M" + std::to_string(s.M) + " N" + std::to_string(s.N) + ": " + err;
  }
  for (int64_t M : {1, 7, 64}) {
    std::string err = run_gemm(M, 100, 1100, 1100, false, 1.0f, 7, true, true, 77 + M, true);
    ++count;
    if (!err.empty() && !bad++)
      detail = "in place M" + std::to_string(M) + ": " + err;
  }
  report("gemm_packed_b (" + std::to_string(count) +
             " shapes, transB, scale, bias/z, in place, parts 1-3)",
         bad, detail);
}

//===----------------------------------------------------------------------===//
// depthwise_conv2d
//===----------------------------------------------------------------------===//
std::string run_dw(const ConvCase &t, int act, bool hasBias, bool hasZ, uint64_t seed,
                   bool aliasZ = false) {
  Rng rng(seed);
  const int64_t oh = (t.h + t.pt + t.pb - t.dh * (t.kh - 1) - 1) / t.sh + 1;
  const int64_t ow = (t.w + t.pl + t.pr - t.dw * (t.kw - 1) - 1) / t.sw + 1;
  std::vector<float> x(t.n * t.c * t.h * t.w), w(t.c * t.kh * t.kw), bias(t.c),
      z(t.n * t.c * oh * ow);
  for (float &v : x)
    v = rng.uniform();
  for (float &v : w)
    v = rng.uniform();
  for (float &v : bias)
    v = rng.uniform();
  for (float &v : z)
    v = rng.uniform();
  float p0, p1;
  act_params(act, p0, p1);
  const int64_t sf = k::depthwise_conv2d_scratch_floats(kIsa, t.h, t.w, t.kh, t.kw, t.sh, t.sw,
                                                        t.pt, t.pl, t.pb, t.pr, t.dh, t.dw, oh, ow);
  const int64_t ysize = t.n * t.c * oh * ow;
  std::vector<float> nans(ysize + t.c, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> first;
  for (int parts = 1; parts <= 3; ++parts) {
    Guarded y(ysize, 777.0f), scratch(sf * parts, 3.0e38f);
    const float *zp = hasZ ? z.data() : nans.data();
    if (aliasZ) {
      std::memcpy(y.data(), z.data(), ysize * sizeof(float));
      zp = y.data();
    }
    for (int p = 0; p < parts; ++p)
      k::depthwise_conv2d(x.data(), w.data(), hasBias ? bias.data() : nans.data(), hasBias, zp,
                          hasZ, y.data(), scratch.data(), t.n, t.c, t.h, t.w, oh, ow, t.kh, t.kw,
                          t.sh, t.sw, t.pt, t.pl, t.pb, t.pr, t.dh, t.dw, act, p0, p1, p, parts);
    if (!y.guards_ok())
      return "output guard overwritten";
    if (!scratch.guards_ok())
      return "scratch guard overwritten";
    if (parts == 1)
      first.assign(y.data(), y.data() + ysize);
    else if (std::memcmp(first.data(), y.data(), ysize * sizeof(float)) != 0)
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
  }
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = 0, absSum = 0;
          for (int64_t a = 0; a < t.kh; ++a)
            for (int64_t e = 0; e < t.kw; ++e) {
              int64_t ih = i * t.sh - t.pt + a * t.dh, iw = j * t.sw - t.pl + e * t.dw;
              if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
                continue;
              double term =
                  double(w[(c * t.kh + a) * t.kw + e]) * x[((b * t.c + c) * t.h + ih) * t.w + iw];
              acc += term;
              absSum += std::fabs(term);
            }
          int64_t o = ((b * t.c + c) * oh + i) * ow + j;
          if (hasBias) {
            acc += bias[c];
            absSum += std::fabs(bias[c]);
          }
          if (hasZ) {
            acc += z[o];
            absSum += std::fabs(z[o]);
          }
          double ref = act_ref(acc, act, p0, p1);
          if (!close(first[o], ref, absSum)) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "y[%" PRId64 "] = %.9g, want %.9g", o, first[o], ref);
            return buf;
          }
        }
  return "";
}

void test_depthwise() {
  const ConvCase cases[] = {
      // n  c   h   w  (m) kh kw sh sw pt pl pb pr dh dw
      {1, 5, 12, 12, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {2, 4, 13, 17, 0, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
      {1, 3, 11, 40, 0, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 0},
      {1, 6, 14, 15, 0, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 0},
      {1, 7, 9, 10, 0, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 0},  // TF-style asymmetric
      {1, 2, 10, 11, 0, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 0}, // dilation 2
      {1, 3, 1, 1, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {1, 2, 7, 7, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {1, 3, 5, 70, 0, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 0},
      {1, 3, 9, 45, 0, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 0},  // wide rows, dilation 2
      {2, 2, 9, 80, 0, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},  // wide rows, stride 2
      {1, 2, 12, 12, 0, 9, 9, 1, 1, 4, 4, 4, 4, 1, 1, 0}, // 81 taps (> 64)
      {1, 1, 10, 40, 0, 9, 9, 1, 1, 4, 3, 4, 5, 1, 1, 0}, // wide, 81 taps
  };
  int bad = 0, idx = 0;
  std::string detail;
  for (const ConvCase &t : cases) {
    for (int variant = 0; variant < 3; ++variant) {
      int act = (idx * 3 + variant) % 11;
      std::string err =
          run_dw(t, act, (idx + variant) % 2, (idx + variant) % 3 == 0, 300 + idx * 5 + variant);
      if (!err.empty() && !bad++)
        detail = conv_name(t) + ": " + err;
    }
    ++idx;
  }
  for (int i = 0; i < 2; ++i) {
    std::string err = run_dw(cases[i], 6, true, true, 333 + i, /*aliasZ=*/true);
    if (!err.empty() && !bad++)
      detail = "in place " + conv_name(cases[i]) + ": " + err;
  }
  report("depthwise_conv2d (" + std::to_string(idx) + " shapes x 3 epilogues, in place)", bad,
         detail);
}

//===----------------------------------------------------------------------===//
// activate / exp_array
//===----------------------------------------------------------------------===//
void test_activations() {
  std::vector<float> xs;
  for (int i = -300000; i <= 300000; ++i)
    xs.push_back(i * 1e-4f);
  for (float v : {1e-30f, -1e-30f, 1e-8f, -1e-8f, 0.0f, -0.0f, 1e-3f, -1e-3f, 0.34657f, -0.34657f})
    xs.push_back(v);
  const char *names[] = {"none",      "relu", "clip",     "leakyrelu", "sigmoid", "hardsigmoid",
                         "hardswish", "silu", "gelu_erf", "gelu_tanh", "tanh"};
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  for (int act = 0; act <= 10; ++act) {
    float p0, p1;
    act_params(act, p0, p1);
    Guarded y(static_cast<int64_t>(xs.size()));
    std::memcpy(y.data(), xs.data(), xs.size() * sizeof(float));
    k::activate(y.data(), y.size(), act, p0, p1);
    double maxRel = 0;
    float worstX = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      double ref = act_ref(xs[i], act, p0, p1);
      // Piecewise-linear activations round like their float formula (which
      // cancels near its kinks): compare them absolutely below 1.
      bool linear = act == 2 || act == 3 || act == 5 || act == 6;
      double rel = std::fabs(y[i] - ref) / std::max(std::fabs(ref), linear ? 1.0 : 1e-30);
      if (rel > maxRel) {
        maxRel = rel;
        worstX = xs[i];
      }
    }
    // Special values: NaN propagates, infinities and huge values saturate.
    float sp[] = {nan, inf, -inf, 1e30f, -1e30f, 100.0f, -100.0f, 50.0f, -50.0f};
    Guarded s(9);
    std::memcpy(s.data(), sp, sizeof sp);
    k::activate(s.data(), 9, act, p0, p1);
    std::string spBad;
    if (!std::isnan(s[0]))
      spBad += " NaN->" + std::to_string(s[0]);
    for (int i = 1; i < 9; ++i) {
      double ref = act_ref(sp[i], act, p0, p1);
      if (std::isinf(sp[i]) && (act == 7 || act == 8 || act == 9))
        ref = sp[i] > 0 ? sp[i] : 0.0; // limits of x*sigmoid(x) / Gelu
      if (std::isinf(sp[i]) && act == 6)
        ref = sp[i] > 0 ? sp[i] : 0.0;
      bool ok =
          std::isinf(ref) ? s[i] == ref : std::fabs(s[i] - ref) <= 2e-6 * std::fabs(ref) + 1e-30;
      if (!ok)
        spBad += " f(" + std::to_string(sp[i]) + ")=" + std::to_string(s[i]);
    }
    if (act == 10 && !(s[7] == 1.0f && s[8] == -1.0f))
      spBad += " tanh(+-50) not exactly +-1";
    if (act == 4 && !(s[6] < 1e-40f))
      spBad += " sigmoid(-100) not ~0";
    bool bad = maxRel > 2e-6 || !spBad.empty() || !y.guards_ok() || !s.guards_ok();
    char buf[200];
    std::snprintf(buf, sizeof buf, "max rel err %.3g at x=%.6g;%s", maxRel, worstX, spBad.c_str());
    report(std::string("activate ") + names[act] + " (max rel err <= 2e-6 on [-30,30])", bad, buf);
  }
  // exp_array over [-87, 88] plus edges.
  std::vector<float> ex;
  for (int i = -870000; i <= 880000; i += 7)
    ex.push_back(i * 1e-4f);
  ex.push_back(-100.0f);
  ex.push_back(100.0f);
  ex.push_back(nan);
  Guarded ey(static_cast<int64_t>(ex.size()));
  k::exp_array(ex.data(), ey.data(), ey.size());
  double maxRel = 0;
  for (size_t i = 0; i + 3 < ex.size(); ++i) {
    double ref = std::exp(double(ex[i]));
    if (ref < 1.2e-38)
      continue; // subnormal results may flush
    maxRel = std::max(maxRel, std::fabs(ey[i] - ref) / ref);
  }
  size_t n = ex.size();
  bool bad = maxRel > 2e-6 || ey[n - 3] != 0.0f || !std::isinf(ey[n - 2]) ||
             !std::isnan(ey[n - 1]) || !ey.guards_ok();
  char buf[120];
  std::snprintf(buf, sizeof buf, "max rel err %.3g", maxRel);
  report("exp_array (rel err <= 2e-6, 0 / inf / NaN at the edges)", bad, buf);
}

/// Packing layouts documented in the header.
void test_packing() {
  int bad = 0;
  const int64_t M = 10, K = 7, G = 2, mr = k::conv_mr(kIsa);
  std::vector<float> w(M * K);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float(i + 1);
  Guarded out(k::packed_conv_weights_floats(kIsa, M, K, G));
  k::pack_conv_weights(kIsa, w.data(), M, K, G, out.data());
  const int64_t mg = M / G, panels = (mg + mr - 1) / mr;
  for (int64_t g = 0; g < G; ++g)
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t q = 0; q < K; ++q)
        for (int64_t r = 0; r < mr; ++r) {
          int64_t m = p * mr + r;
          float want = m < mg ? w[(g * mg + m) * K + q] : 0.0f;
          bad += out[((g * panels + p) * K + q) * mr + r] != want;
        }
  bad += !out.guards_ok();
  const int64_t N = 21, nr = k::gemm_nr(kIsa);
  std::vector<float> b(K * N);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = float(i + 1);
  Guarded bp(k::packed_gemm_b_floats(kIsa, K, N));
  k::pack_gemm_b(kIsa, b.data(), K, N, false, 2.0f, bp.data());
  for (int64_t j = 0; j * nr < N; ++j)
    for (int64_t q = 0; q < K; ++q)
      for (int64_t c = 0; c < nr; ++c) {
        int64_t col = j * nr + c;
        float want = col < N ? 2.0f * b[q * N + col] : 0.0f;
        bad += bp[(j * K + q) * nr + c] != want;
      }
  bad += !bp.guards_ok();
  report("packing layouts", bad, bad ? std::to_string(bad) + " mismatches" : "");
}

} // namespace

int main() {
  std::printf("ISA %d (conv_mr %d, gemm_nr %d)\n", kIsa, k::conv_mr(kIsa), k::gemm_nr(kIsa));
  test_packing();
  test_activations();
  test_conv();
  test_gemm();
  test_depthwise();
  std::printf("%s: %d group(s) failed\n", g_failures ? "FAILED" : "ALL PASSED", g_failures);
  return g_failures ? 1 : 0;
}
