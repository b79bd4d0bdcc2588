// kernels_test.cpp - checks runtime-support/onnxcc_kernels.h against naive
// double-precision references. Build with -DONNXCC_KERNELS_ISA=<0|1|2|3> and
// -I runtime-support; prints one PASS/FAIL line per case group and exits
// non-zero on any failure.
//
// Every output and scratch buffer is surrounded by sentinel guards that must
// survive the call; absent bias / z operands point at NaN buffers, so a read
// of them shows up as NaN in the output.
#include "onnxcc_kernels.h"
#include "test_rng.h"

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
  report("conv2d isa_check mismatch returns kStatusWrongIsa", rc != k::kStatusWrongIsa,
         rc != k::kStatusWrongIsa ? "rc " + std::to_string(rc) : "");
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


//===----------------------------------------------------------------------===//
// conv2d_winograd
//===----------------------------------------------------------------------===//
struct WinoCase {
  int64_t n, c, h, w, m, pt, pl, pb, pr;
};

std::string wino_name(const WinoCase &t) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "n%" PRId64 " c%" PRId64 " %" PRId64 "x%" PRId64 " m%" PRId64 " p%" PRId64
                ",%" PRId64 ",%" PRId64 ",%" PRId64,
                t.n, t.c, t.h, t.w, t.m, t.pt, t.pl, t.pb, t.pr);
  return buf;
}

/// Standard normal sample (Box-Muller).
float normal(Rng &rng) {
  double u1 = ((rng.next() & 0xffffff) + 1) / double(1 << 24);
  double u2 = (rng.next() & 0xffffff) / double(1 << 24);
  return static_cast<float>(std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
}

/// Runs one Winograd case (parts 1..3, bitwise equal, guards) against a
/// double reference. Tolerance: |err| <= tol * max |conv sum| over the case
/// (Winograd rounds like a transform of the whole tile, not per term),
/// scaled through the activation. he: N(0,1) inputs and He-initialised
/// weights, no epilogue; *relErr gets max |err| / max |out|.
/// [n][c][h][w] -> [n][h][w][c], or back when `back`.
std::vector<float> relayout(const std::vector<float> &v, int64_t n, int64_t c, int64_t h,
                            int64_t w, bool back) {
  std::vector<float> out(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t q = 0; q < h * w; ++q) {
        const int64_t nchw = (b * c + ch) * h * w + q, nhwc = (b * h * w + q) * c + ch;
        if (back)
          out[nchw] = v[nhwc];
        else
          out[nhwc] = v[nchw];
      }
  return out;
}

/// (nhwc: the same case through conv2d_winograd_nhwc, F(2x2, 3x3), with x,
/// z and y channels-last.)
std::string run_wino(const WinoCase &t, int act, bool hasBias, bool hasZ, uint64_t seed,
                     bool aliasZ = false, bool he = false, double *relErr = nullptr,
                     bool nhwc = false) {
  Rng rng(seed);
  const int64_t oh = t.h + t.pt + t.pb - 2, ow = t.w + t.pl + t.pr - 2;
  std::vector<float> x(t.n * t.c * t.h * t.w), w(t.m * t.c * 9), bias(t.m), z(t.n * t.m * oh * ow);
  const float heScale = static_cast<float>(std::sqrt(2.0 / (9.0 * t.c)));
  for (float &v : x)
    v = he ? normal(rng) : rng.uniform();
  for (float &v : w)
    v = he ? normal(rng) * heScale : rng.uniform();
  for (float &v : bias)
    v = rng.uniform();
  for (float &v : z)
    v = rng.uniform();
  float p0, p1;
  act_params(act, p0, p1);
  Guarded wp(nhwc ? k::packed_winograd_nhwc_weights_floats(kIsa, t.m, t.c)
                  : k::packed_winograd_weights_floats(kIsa, t.m, t.c));
  if (nhwc)
    k::pack_winograd_nhwc_weights(kIsa, w.data(), t.m, t.c, wp.data());
  else
    k::pack_winograd_weights(kIsa, w.data(), t.m, t.c, wp.data());
  if (!wp.guards_ok())
    return "pack_winograd_weights wrote out of bounds";
  const int64_t sf =
      nhwc ? k::winograd_nhwc_scratch_floats(kIsa, t.c, oh, ow)
           : k::winograd_scratch_floats(kIsa, t.c, t.m, t.h, t.w, oh, ow, t.pt, t.pl, t.pb, t.pr);
  const std::vector<float> xl = nhwc ? relayout(x, t.n, t.c, t.h, t.w, false) : x;
  const std::vector<float> zl = nhwc ? relayout(z, t.n, t.m, oh, ow, false) : z;
  const int64_t ysize = t.n * t.m * oh * ow;
  std::vector<float> nans(ysize + t.m, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> first;
  for (int parts = 1; parts <= 3; ++parts) {
    Guarded y(ysize, 777.0f), scratch(sf * parts, 3.0e38f);
    const float *zp = hasZ ? zl.data() : nans.data();
    if (aliasZ) {
      std::memcpy(y.data(), zl.data(), ysize * sizeof(float));
      zp = y.data();
    }
    for (int64_t p = 0; p < parts; ++p) {
      const float *bp = hasBias ? bias.data() : nans.data();
      int rc = nhwc ? k::conv2d_winograd_nhwc(xl.data(), wp.data(), bp, hasBias, zp, hasZ,
                                              y.data(), scratch.data(), t.n, t.c, t.h, t.w, t.m,
                                              oh, ow, t.pt, t.pl, t.pb, t.pr, act, p0, p1, p,
                                              parts, kIsa)
                    : k::conv2d_winograd(xl.data(), wp.data(), bp, hasBias, zp, hasZ, y.data(),
                                         scratch.data(), t.n, t.c, t.h, t.w, t.m, oh, ow, t.pt,
                                         t.pl, t.pb, t.pr, act, p0, p1, p, parts);
      if (rc != 0)
        return "conv2d_winograd returned " + std::to_string(rc);
    }
    if (!y.guards_ok())
      return "output guard overwritten (parts=" + std::to_string(parts) + ")";
    if (!scratch.guards_ok())
      return "scratch guard overwritten (parts=" + std::to_string(parts) + ")";
    if (parts == 1)
      first.assign(y.data(), y.data() + ysize);
    else if (std::memcmp(first.data(), y.data(), ysize * sizeof(float)) != 0)
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
  }
  if (nhwc)
    first = relayout(first, t.n, t.m, oh, ow, true);
  std::vector<double> sums(ysize);
  double maxSum = 0;
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t m = 0; m < t.m; ++m)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = 0;
          for (int64_t c = 0; c < t.c; ++c)
            for (int64_t a = 0; a < 3; ++a)
              for (int64_t e = 0; e < 3; ++e) {
                int64_t ih = i - t.pt + a, iw = j - t.pl + e;
                if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
                  continue;
                acc += double(w[(m * t.c + c) * 9 + a * 3 + e]) *
                       x[((b * t.c + c) * t.h + ih) * t.w + iw];
              }
          int64_t o = ((b * t.m + m) * oh + i) * ow + j;
          sums[o] = acc;
          maxSum = std::max(maxSum, std::fabs(acc));
        }
  double maxErr = 0, maxOut = 0;
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t m = 0; m < t.m; ++m)
      for (int64_t q = 0; q < oh * ow; ++q) {
        int64_t o = (b * t.m + m) * oh * ow + q;
        double acc = sums[o], extra = 0;
        if (hasBias) {
          acc += bias[m];
          extra += std::fabs(bias[m]);
        }
        if (hasZ) {
          acc += z[o];
          extra += std::fabs(z[o]);
        }
        double ref = act_ref(acc, act, p0, p1);
        maxErr = std::max(maxErr, std::fabs(first[o] - ref));
        maxOut = std::max(maxOut, std::fabs(ref));
        double tol = 1e-4 * maxSum + 1e-6 * extra + 4e-6 * std::fabs(ref) + 1e-6;
        if (!(std::fabs(first[o] - ref) <= tol)) {
          char buf[200];
          std::snprintf(buf, sizeof buf, "y[%" PRId64 "] = %.9g, want %.9g (act %d)", o, first[o],
                        ref, act);
          return buf;
        }
      }
  if (relErr)
    *relErr = maxErr / maxOut;
  return "";
}

/// conv2d_winograd, or with `nhwc` conv2d_winograd_nhwc, on the same cases.
void test_winograd(bool nhwc) {
  const std::string kname = nhwc ? "conv2d_winograd_nhwc" : "conv2d_winograd";
  int bad = 0, idx = 0;
  std::string detail;
  const WinoCase cases[] = {
      // n  c   h   w   m  pt pl pb pr
      {1, 16, 8, 8, 16, 1, 1, 1, 1},     // 2x2 tiles
      {1, 16, 14, 14, 32, 1, 1, 1, 1},   // 16 tiles
      {2, 19, 13, 11, 21, 1, 1, 1, 1},   // odd sizes, batch 2, C and M off the tile
      {1, 3, 9, 11, 5, 1, 1, 1, 1},      // tiny channel counts
      {1, 7, 10, 12, 9, 0, 1, 2, 0},     // asymmetric pads
      {1, 5, 9, 9, 7, 0, 0, 0, 0},       // no padding, OH = 7
      {1, 4, 3, 3, 3, 2, 2, 2, 2},       // pad > half the input
      {1, 6, 1, 1, 6, 1, 1, 1, 1},       // 1x1 image
      {2, 8, 30, 29, 10, 1, 1, 1, 1},    // several blocks, blocks across images
      {1, 33, 56, 5, 12, 1, 1, 1, 1},    // tall
      {1, 3, 4, 70, 11, 1, 2, 1, 0},     // wide
      {1, 64, 23, 23, 40, 1, 1, 1, 1},   // 36 tiles
      {1, 130, 9, 10, 17, 1, 1, 1, 1},   // C > 128 (smaller blocks)
      {3, 300, 6, 7, 9, 1, 1, 1, 1},     // C = 300, batch 3
  };
  for (const WinoCase &t : cases) {
    for (int variant = 0; variant < 3; ++variant) {
      int act = (idx * 3 + variant) % 11;
      bool hasBias = (idx + variant) % 2 == 0, hasZ = (idx + variant) % 3 != 1;
      std::string err =
          run_wino(t, act, hasBias, hasZ, 500 + idx * 7 + variant, false, false, nullptr, nhwc);
      if (!err.empty() && !bad++)
        detail = wino_name(t) + ": " + err;
    }
    ++idx;
  }
  report(kname + " shapes (" + std::to_string(idx) + " shapes x 3 epilogues, parts 1-3)",
         bad, detail);

  bad = 0;
  for (int act = 0; act <= 10; ++act) {
    WinoCase t{2, 9, 11, 10, 13, 1, 1, 1, 1};
    std::string err = run_wino(t, act, act % 2 == 0, true, 600 + act,
                               /*aliasZ=*/act % 2 == 1, false, nullptr, nhwc);
    if (!err.empty() && !bad++)
      detail = wino_name(t) + ": " + err;
  }
  for (int64_t hw = 1; hw <= 13; ++hw) {
    WinoCase t{1, 3, hw, 14 - hw, 5, 1, 1, 1, 1};
    std::string err = run_wino(t, 1, true, true, 700 + hw, /*aliasZ=*/true, false, nullptr, nhwc);
    if (!err.empty() && !bad++)
      detail = wino_name(t) + ": " + err;
  }
  report(kname + " activations 0..10, in place (z == y), edge tiles", bad, detail);

  // Accuracy of F(4x4, 3x3): N(0,1) inputs, He-initialised weights.
  bad = 0;
  double worst = 0;
  const WinoCase acc[] = {{1, 64, 12, 12, 16, 1, 1, 1, 1},
                          {1, 256, 8, 8, 16, 1, 1, 1, 1},
                          {1, 512, 7, 7, 16, 1, 1, 1, 1}};
  for (const WinoCase &t : acc) {
    double rel = 0;
    std::string err = run_wino(t, 0, false, false, 800 + t.c, false, true, &rel, nhwc);
    worst = std::max(worst, rel);
    if ((!err.empty() || rel > 1e-4) && !bad++)
      detail = wino_name(t) + ": " + (err.empty() ? "max err / max |y| too big" : err);
  }
  char buf[80];
  std::snprintf(buf, sizeof buf, "max err / max |y| = %.3g", worst);
  report(kname + " accuracy (He weights, C 64..512, <= 1e-4 of max |y|)", bad,
         bad ? detail + "; " + buf : buf);

  // Applicability: 3x3, stride 1, dilation 1, one group, C and M >= 16;
  // NCHW from 64 output pixels, channels-last below.
  struct Applies {
    int64_t c, m, oh, ow, kh, sh, dh, g;
    bool nchw, nhwc;
  };
  const Applies cases2[] = {
      {64, 64, 56, 56, 3, 1, 1, 1, true, false},  {64, 64, 56, 56, 3, 2, 1, 1, false, false},
      {64, 64, 56, 56, 3, 1, 2, 1, false, false}, {64, 64, 56, 56, 3, 1, 1, 2, false, false},
      {64, 64, 56, 56, 5, 1, 1, 1, false, false}, {3, 64, 224, 224, 3, 1, 1, 1, false, false},
      {512, 512, 7, 7, 3, 1, 1, 1, false, true},  {512, 512, 8, 8, 3, 1, 1, 1, true, false},
      {512, 512, 7, 7, 3, 2, 1, 1, false, false}, {512, 512, 7, 7, 3, 1, 2, 1, false, false},
      {512, 512, 7, 7, 3, 1, 1, 2, false, false}, {512, 512, 7, 7, 1, 1, 1, 1, false, false},
      {8, 512, 7, 7, 3, 1, 1, 1, false, false},
  };
  auto applies = nhwc ? k::winograd_nhwc_applies : k::winograd_applies;
  bad = 0;
  for (const Applies &t : cases2)
    if (applies(kIsa, t.c, t.m, t.oh, t.ow, t.kh, t.kh, t.sh, t.sh, t.dh, t.dh, t.g) !=
            (nhwc ? t.nhwc : t.nchw) &&
        !bad++)
      detail = "c" + std::to_string(t.c) + " m" + std::to_string(t.m) + " " +
               std::to_string(t.oh) + "x" + std::to_string(t.ow) + " k" + std::to_string(t.kh) +
               " s" + std::to_string(t.sh) + " d" + std::to_string(t.dh) + " g" +
               std::to_string(t.g);
  report(nhwc ? "winograd_nhwc_applies" : "winograd_applies", bad, bad ? detail : "");
}
//===----------------------------------------------------------------------===//
// Depthwise shapes of MobileNetV2 / EfficientNet, and size sweeps (tails)
//===----------------------------------------------------------------------===//
void test_depthwise_shapes() {
  int bad = 0, count = 0;
  std::string detail;
  auto run = [&](const ConvCase &t, int act, bool hasBias, bool hasZ) {
    std::string err = run_dw(t, act, hasBias, hasZ, 500 + count);
    ++count;
    if (!err.empty() && !bad++)
      detail = conv_name(t) + " act " + std::to_string(act) + ": " + err;
  };
  // Network shapes (few channels): 3x3 / 5x5, stride 1 / 2, maps 56..7.
  for (int64_t hw : {56, 28, 14, 7})
    for (int64_t ks : {3, 5})
      for (int64_t s : {1, 2}) {
        int64_t p = ks / 2;
        run({1, 3, hw, hw, 0, ks, ks, s, s, p, p, p, p, 1, 1, 0}, s == 1 ? 2 : 7, true, hw == 14);
      }
  // TF-style asymmetric "same" padding for stride 2 (EfficientNet exports).
  run({1, 4, 14, 14, 0, 5, 5, 2, 2, 1, 1, 2, 2, 1, 1, 0}, 7, true, false);
  run({1, 4, 28, 28, 0, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 0}, 7, true, false);
  // Every map size 1..20 (the flattened sums end anywhere in a vector
  // group), stride 1 and 2, 3x3 and 5x5.
  for (int64_t hw = 1; hw <= 20; ++hw)
    for (int64_t ks : {3, 5})
      for (int64_t s : {1, 2}) {
        int64_t p = ks / 2;
        run({1, 2, hw, hw + (hw % 3), 0, ks, ks, s, s, p, p, p, p, 1, 1, 0}, int(hw % 11),
            hw % 2 == 0, hw % 3 == 0);
      }
  // Wide 3x3 stride-1 rows (the row-sharing path), 1..7 rows.
  for (int64_t h = 1; h <= 7; ++h)
    run({1, 2, h, 96 + 5 * h, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0}, int(h + 3) % 11, h % 2 == 1,
        h % 3 == 1);
  // Non-square, batch 2, many channels, stride 3.
  run({2, 37, 9, 13, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0}, 6, true, true);
  run({1, 3, 17, 19, 0, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 0}, 1, false, true);
  report("depthwise_conv2d network shapes and size sweep (" + std::to_string(count) + " cases)", bad,
         detail);
}

//===----------------------------------------------------------------------===//
// Activations: tails, large magnitudes, every code through conv epilogues
//===----------------------------------------------------------------------===//
void test_activation_edges() {
  int bad = 0;
  std::string detail;
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  // Lengths 1..40: the masked tail gives the same bits as full vectors.
  Rng rng(4242);
  std::vector<float> src(40);
  for (float &v : src)
    v = 8 * rng.uniform();
  src[3] = nan;
  src[17] = -inf;
  src[29] = inf;
  for (int act = 0; act <= 10; ++act) {
    float p0, p1;
    act_params(act, p0, p1);
    std::vector<float> full(src);
    k::activate(full.data(), 40, act, p0, p1);
    for (int n = 1; n <= 40; ++n) {
      Guarded g(n);
      std::memcpy(g.data(), src.data(), n * sizeof(float));
      k::activate(g.data(), n, act, p0, p1);
      if (!g.guards_ok() || std::memcmp(g.data(), full.data(), n * sizeof(float)) != 0) {
        if (!bad++)
          detail = "act " + std::to_string(act) + " n " + std::to_string(n) + " differs";
      }
    }
  }
  // Large magnitudes and the subnormal range of sigmoid / SiLU.
  const float xs[] = {1e5f,   -1e5f,  1e10f,  -1e10f, 3e12f,  -3e12f, 1e17f,
                      -1e17f, -87.5f, -90.0f, -100.0f, -105.0f, -120.0f, 88.5f,
                      -0.0f,  0.0f,   3e38f,  -3e38f, 1e-40f, -1e-40f};
  const int nx = sizeof xs / sizeof xs[0];
  for (int act = 0; act <= 10; ++act) {
    float p0, p1;
    act_params(act, p0, p1);
    Guarded g(nx);
    std::memcpy(g.data(), xs, sizeof xs);
    k::activate(g.data(), nx, act, p0, p1);
    for (int i = 0; i < nx; ++i) {
      double ref = act_ref(xs[i], act, p0, p1);
      if (std::isnan(ref) && (act == 7 || act == 8 || act == 9)) // inf*0 in the reference
        ref = xs[i] > 0 ? xs[i] : 0.0;
      bool ok = std::fabs(g[i] - ref) <= 2e-6 * std::fabs(ref) + 1e-30 && !std::isnan(g[i]);
      if (!ok && !bad++) {
        char buf[120];
        std::snprintf(buf, sizeof buf, "act %d f(%g) = %.9g, want %.9g", act, xs[i], g[i], ref);
        detail = buf;
      }
    }
    if (!g.guards_ok() && !bad++)
      detail = "guard overwritten";
  }
  report("activate tails (bitwise = full vectors), large |x|, subnormal range", bad, detail);
}

//===----------------------------------------------------------------------===//
// max_pool2d / global_avg_pool
//===----------------------------------------------------------------------===//
struct PoolCase {
  int64_t planes, h, w, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
  bool ceil;
};

std::string run_maxpool(const PoolCase &t, uint64_t seed, int nans) {
  Rng rng(seed);
  auto out_size = [&](int64_t in, int64_t k, int64_t s, int64_t pa, int64_t pb, int64_t d) {
    int64_t span = in + pa + pb - d * (k - 1) - 1;
    int64_t o = (t.ceil ? (span + s - 1) / s : span / s) + 1;
    // ONNX: the last ceil_mode window must start inside the input or left pad.
    if (t.ceil && (o - 1) * s >= in + pa)
      --o;
    return o;
  };
  const int64_t oh = out_size(t.h, t.kh, t.sh, t.pt, t.pb, t.dh);
  const int64_t ow = out_size(t.w, t.kw, t.sw, t.pl, t.pr, t.dw);
  if (oh < 1 || ow < 1)
    return "bad test case: empty output";
  std::vector<float> x(t.planes * t.h * t.w);
  for (float &v : x)
    v = rng.uniform();
  for (int i = 0; i < nans; ++i)
    x[rng.next() % x.size()] = std::nanf("");
  const int64_t ysize = t.planes * oh * ow;
  std::vector<float> first;
  for (int parts = 1; parts <= 3; ++parts) {
    Guarded y(ysize, 777.0f);
    for (int p = 0; p < parts; ++p)
      if (k::max_pool2d(x.data(), y.data(), t.planes, t.h, t.w, oh, ow, t.kh, t.kw, t.sh, t.sw,
                        t.pt, t.pl, t.dh, t.dw, p, parts) != 0)
        return "max_pool2d returned non-zero";
    if (!y.guards_ok())
      return "output guard overwritten";
    if (parts == 1)
      first.assign(y.data(), y.data() + ysize);
    else if (std::memcmp(first.data(), y.data(), ysize * sizeof(float)) != 0)
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
  }
  for (int64_t p = 0; p < t.planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double m = -INFINITY;
        bool anyNan = false, any = false;
        for (int64_t a = 0; a < t.kh; ++a)
          for (int64_t e = 0; e < t.kw; ++e) {
            int64_t ih = i * t.sh - t.pt + a * t.dh, iw = j * t.sw - t.pl + e * t.dw;
            if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
              continue;
            double v = x[(p * t.h + ih) * t.w + iw];
            any = true;
            anyNan |= std::isnan(v);
            m = std::max(m, v);
          }
        float got = first[(p * oh + i) * ow + j];
        bool ok = anyNan ? std::isnan(got) : (any && double(got) == m);
        if (!ok) {
          char buf[160];
          std::snprintf(buf, sizeof buf, "y[%" PRId64 "][%" PRId64 "][%" PRId64 "] = %g, want %g",
                        p, i, j, got, anyNan ? NAN : m);
          return buf;
        }
      }
  return "";
}

void test_pooling() {
  const PoolCase cases[] = {
      // planes h   w  kh kw sh sw pt pl pb pr dh dw ceil
      {3, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false}, // ResNet stem pool
      {2, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, false},
      {2, 9, 11, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, true}, // ceil_mode
      {2, 13, 17, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, true},
      {4, 7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false}, // stride 1 "same"
      {2, 10, 37, 3, 2, 1, 2, 2, 1, 0, 1, 2, 2, false}, // dilation, asymmetric pads
      {2, 12, 50, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, true},  // stride 3 (scalar path)
      {1, 5, 5, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, false},   // window > interior
      {3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false},
      {2, 6, 70, 1, 4, 1, 2, 0, 3, 0, 3, 1, 1, true}, // wide rows, stride 2 vectors
      {5, 33, 35, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true},
  };
  int bad = 0, idx = 0;
  std::string detail;
  for (const PoolCase &t : cases) {
    for (int nans : {0, 7}) {
      std::string err = run_maxpool(t, 60 + idx, nans);
      if (!err.empty() && !bad++) {
        char buf[120];
        std::snprintf(buf, sizeof buf, "case %d (%" PRId64 "x%" PRId64 " k%" PRId64 "x%" PRId64
                                       " s%" PRId64 ",%" PRId64 ", %d NaNs): ",
                      idx, t.h, t.w, t.kh, t.kw, t.sh, t.sw, nans);
        detail = buf + err;
      }
    }
    ++idx;
  }
  // Every width 1..40 with 3x3 stride 2 pad 1 and 2x2 stride 1 (tails).
  for (int64_t w = 1; w <= 40; ++w) {
    PoolCase a{2, 5, w, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, w % 2 == 1};
    PoolCase b{1, 3, w + 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, false};
    for (const PoolCase &t : {a, b}) {
      std::string err = run_maxpool(t, 900 + w, int(w % 3));
      if (!err.empty() && !bad++)
        detail = "width " + std::to_string(w) + ": " + err;
    }
  }
  report("max_pool2d (pads, strides, dilation, ceil_mode, NaN, widths 1..40, parts 1-3)", bad,
         detail);

  bad = 0;
  const int64_t shapes[][2] = {{1, 1},   {3, 7},   {5, 16},  {2, 49},  {1280, 49}, {7, 63},
                               {4, 64},  {3, 65},  {2, 196}, {3, 3136}, {1, 12544}, {6, 100}};
  for (auto &sh : shapes) {
    const int64_t rows = sh[0], cols = sh[1];
    Rng rng(rows * 131 + cols);
    std::vector<float> x(rows * cols);
    for (float &v : x)
      v = rng.uniform() + 0.25f;
    std::vector<float> first;
    std::string err;
    for (int parts = 1; parts <= 3 && err.empty(); ++parts) {
      Guarded y(rows, 777.0f);
      for (int p = 0; p < parts; ++p)
        if (k::global_avg_pool(x.data(), y.data(), rows, cols, p, parts) != 0)
          err = "returned non-zero";
      if (!y.guards_ok())
        err = "output guard overwritten";
      else if (parts == 1)
        first.assign(y.data(), y.data() + rows);
      else if (std::memcmp(first.data(), y.data(), rows * sizeof(float)) != 0)
        err = "parts=" + std::to_string(parts) + " differs bitwise";
    }
    for (int64_t r = 0; r < rows && err.empty(); ++r) {
      double sum = 0, abssum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        sum += x[r * cols + c];
        abssum += std::fabs(x[r * cols + c]);
      }
      double ref = sum / cols;
      if (!(std::fabs(first[r] - ref) <= 2e-6 * abssum / cols + 1e-7)) {
        char buf[120];
        std::snprintf(buf, sizeof buf, "row %" PRId64 ": %.9g, want %.9g", r, first[r], ref);
        err = buf;
      }
    }
    if (!err.empty() && !bad++)
      detail = std::to_string(rows) + "x" + std::to_string(cols) + ": " + err;
  }
  {
    // NaN / inf in a row.
    float row[20] = {};
    row[11] = std::nanf("");
    float r2[20] = {};
    r2[3] = std::numeric_limits<float>::infinity();
    float out[2];
    k::global_avg_pool(row, out, 1, 20, 0, 1);
    k::global_avg_pool(r2, out + 1, 1, 20, 0, 1);
    if (!(std::isnan(out[0]) && std::isinf(out[1])) && !bad++)
      detail = "NaN / inf not propagated";
  }
  report("global_avg_pool (shapes, parts 1-3 bitwise, NaN/inf)", bad, detail);
}

//===----------------------------------------------------------------------===//
// Channels-last kernels: depthwise_conv2d_nhwc, conv2d_nhwc, reduce_mean_mid
//===----------------------------------------------------------------------===//

/// The split counts every NHWC kernel is run with (7 leaves parts without
/// work on small shapes and splits channels / panels).
const int kNhwcParts[] = {1, 2, 3, 7};

std::string run_dw_nhwc(const ConvCase &t, int act, bool hasBias, bool hasZ, uint64_t seed,
                        bool aliasZ = false) {
  Rng rng(seed);
  const int64_t oh = (t.h + t.pt + t.pb - t.dh * (t.kh - 1) - 1) / t.sh + 1;
  const int64_t ow = (t.w + t.pl + t.pr - t.dw * (t.kw - 1) - 1) / t.sw + 1;
  const int64_t C = t.c;
  std::vector<float> x(t.n * t.h * t.w * C), w(C * t.kh * t.kw), bias(C), z(t.n * oh * ow * C);
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
  Guarded wp(k::packed_depthwise_nhwc_weights_floats(kIsa, C, t.kh, t.kw));
  k::pack_depthwise_nhwc_weights(kIsa, w.data(), C, t.kh, t.kw, wp.data());
  if (!wp.guards_ok())
    return "pack_depthwise_nhwc_weights wrote out of bounds";
  const int64_t ysize = t.n * oh * ow * C;
  std::vector<float> nans(ysize + C, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> first;
  for (int parts : kNhwcParts) {
    Guarded y(ysize, 777.0f);
    const float *zp = hasZ ? z.data() : nans.data();
    if (aliasZ) {
      std::memcpy(y.data(), z.data(), ysize * sizeof(float));
      zp = y.data();
    }
    for (int p = 0; p < parts; ++p) {
      int rc = k::depthwise_conv2d_nhwc(x.data(), wp.data(), hasBias ? bias.data() : nans.data(),
                                        hasBias, zp, hasZ, y.data(), t.n, C, t.h, t.w, oh, ow,
                                        t.kh, t.kw, t.sh, t.sw, t.pt, t.pl, t.dh, t.dw, act, p0,
                                        p1, p, parts);
      if (rc != 0)
        return "depthwise_conv2d_nhwc returned " + std::to_string(rc);
    }
    if (!y.guards_ok())
      return "output guard overwritten (parts=" + std::to_string(parts) + ")";
    if (parts == 1)
      first.assign(y.data(), y.data() + ysize);
    else if (std::memcmp(first.data(), y.data(), ysize * sizeof(float)) != 0)
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
  }
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t c = 0; c < C; ++c) {
          double acc = 0, absSum = 0;
          for (int64_t a = 0; a < t.kh; ++a)
            for (int64_t e = 0; e < t.kw; ++e) {
              int64_t ih = i * t.sh - t.pt + a * t.dh, iw = j * t.sw - t.pl + e * t.dw;
              if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
                continue;
              double term =
                  double(w[(c * t.kh + a) * t.kw + e]) * x[((b * t.h + ih) * t.w + iw) * C + c];
              acc += term;
              absSum += std::fabs(term);
            }
          int64_t o = ((b * oh + i) * ow + j) * C + c;
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
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "y[%" PRId64 "][%" PRId64 "][%" PRId64 "][%" PRId64
                          "] = %.9g, want %.9g (act %d)",
                          b, i, j, c, first[o], ref, act);
            return buf;
          }
        }
  return "";
}

void test_depthwise_nhwc() {
  const ConvCase cases[] = {
      // n  c    h   w  (m) kh kw sh sw pt pl pb pr dh dw
      {1, 1, 7, 7, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {1, 3, 13, 9, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {2, 17, 13, 9, 0, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},   // batch 2, stride 2
      {1, 40, 7, 7, 0, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 0},
      {1, 40, 14, 14, 0, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 0},
      {1, 24, 9, 10, 0, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 0},   // TF-style asymmetric
      {1, 19, 11, 12, 0, 5, 5, 2, 2, 1, 1, 2, 2, 1, 1, 0},  // asymmetric 5x5
      {1, 33, 10, 11, 0, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 0},  // dilation 2
      {1, 5, 9, 13, 0, 3, 3, 1, 2, 2, 1, 2, 3, 2, 1, 0},    // mixed dilation / stride / pads
      {1, 3, 1, 1, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},     // 1x1 map
      {2, 80, 1, 1, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},    // 1x1 map, whole vectors
      {1, 7, 3, 3, 0, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 0},     // kernel larger than the map
      {1, 4, 2, 3, 0, 5, 5, 1, 1, 4, 4, 4, 4, 1, 1, 0},     // pads wider than the map
      {1, 96, 16, 16, 0, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},  // mbv2-like
      {1, 144, 7, 7, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {1, 240, 8, 8, 0, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 0},   // effnet-like
      {1, 65, 6, 5, 0, 2, 4, 3, 1, 0, 2, 1, 1, 1, 1, 0},    // even kernel, stride 3
      {2, 1, 20, 30, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},   // one channel, wide rows
      {1, 18, 9, 9, 0, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 0},    // 7x7
  };
  int bad = 0, idx = 0, count = 0;
  std::string detail;
  for (const ConvCase &t : cases) {
    for (int variant = 0; variant < 3; ++variant) {
      int act = (idx * 3 + variant) % 11;
      std::string err = run_dw_nhwc(t, act, (idx + variant) % 2 == 0, (idx + variant) % 3 != 1,
                                    2000 + idx * 5 + variant);
      ++count;
      if (!err.empty() && !bad++)
        detail = conv_name(t) + ": " + err;
    }
    ++idx;
  }
  // Every activation once more with bias and z, and z aliasing y.
  for (int act = 0; act <= 10; ++act) {
    std::string err = run_dw_nhwc(cases[2], act, true, true, 2100 + act);
    ++count;
    if (!err.empty() && !bad++)
      detail = "act " + std::to_string(act) + " " + conv_name(cases[2]) + ": " + err;
  }
  for (int i : {1, 3, 7, 13}) {
    std::string err = run_dw_nhwc(cases[i], 2, i % 2 == 1, true, 2200 + i, /*aliasZ=*/true);
    ++count;
    if (!err.empty() && !bad++)
      detail = "in place " + conv_name(cases[i]) + ": " + err;
  }
  report("depthwise_conv2d_nhwc (" + std::to_string(count) +
             " cases: tails, strides, dilation, pads, every act, in place, parts 1/2/3/7)",
         bad, detail);
}

std::string run_conv_nhwc(const ConvCase &t, int act, bool hasBias, bool hasZ, uint64_t seed,
                          bool aliasZ = false) {
  Rng rng(seed);
  const int64_t oh = (t.h + t.pt + t.pb - t.dh * (t.kh - 1) - 1) / t.sh + 1;
  const int64_t ow = (t.w + t.pl + t.pr - t.dw * (t.kw - 1) - 1) / t.sw + 1;
  const int64_t C = t.c, M = t.m;
  std::vector<float> x(t.n * t.h * t.w * C), w(M * C * t.kh * t.kw), bias(M), z(t.n * oh * ow * M);
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
  Guarded wp(k::packed_conv_nhwc_weights_floats(kIsa, M, C, t.kh, t.kw));
  k::pack_conv_nhwc_weights(kIsa, w.data(), M, C, t.kh, t.kw, wp.data());
  if (!wp.guards_ok())
    return "pack_conv_nhwc_weights wrote out of bounds";
  const int64_t sf = k::conv2d_nhwc_scratch_floats(kIsa, C, t.kh, t.kw, oh, ow, t.sh, t.sw, t.pt,
                                                   t.pl, t.pb, t.pr, t.dh, t.dw);
  const bool direct = t.kh == 1 && t.kw == 1 && t.sh == 1 && t.sw == 1 && t.pt == 0 &&
                      t.pl == 0 && t.pb == 0 && t.pr == 0;
  if (direct && sf != 0)
    return "1x1 stride-1 unpadded conv asks for scratch";
  const int64_t ysize = t.n * oh * ow * M;
  std::vector<float> nans(ysize + M, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> first;
  for (int parts : kNhwcParts) {
    Guarded y(ysize, 777.0f), scratch(sf * parts, 3.0e38f);
    const float *zp = hasZ ? z.data() : nans.data();
    if (aliasZ) {
      std::memcpy(y.data(), z.data(), ysize * sizeof(float));
      zp = y.data();
    }
    for (int p = 0; p < parts; ++p) {
      int rc = k::conv2d_nhwc(x.data(), wp.data(), hasBias ? bias.data() : nans.data(), hasBias,
                              zp, hasZ, y.data(), scratch.data(), t.n, C, t.h, t.w, M, oh, ow,
                              t.kh, t.kw, t.sh, t.sw, t.pt, t.pl, t.pb, t.pr, t.dh, t.dw, act, p0,
                              p1, p, parts, kIsa);
      if (rc != 0)
        return "conv2d_nhwc returned " + std::to_string(rc);
    }
    if (!y.guards_ok())
      return "output guard overwritten (parts=" + std::to_string(parts) + ")";
    if (!scratch.guards_ok())
      return "scratch guard overwritten (parts=" + std::to_string(parts) + ")";
    if (parts == 1)
      first.assign(y.data(), y.data() + ysize);
    else if (std::memcmp(first.data(), y.data(), ysize * sizeof(float)) != 0)
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
  }
  for (int64_t b = 0; b < t.n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t m = 0; m < M; ++m) {
          double acc = 0, absSum = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t a = 0; a < t.kh; ++a)
              for (int64_t e = 0; e < t.kw; ++e) {
                int64_t ih = i * t.sh - t.pt + a * t.dh, iw = j * t.sw - t.pl + e * t.dw;
                if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
                  continue;
                double term = double(w[((m * C + c) * t.kh + a) * t.kw + e]) *
                              x[((b * t.h + ih) * t.w + iw) * C + c];
                acc += term;
                absSum += std::fabs(term);
              }
          int64_t o = ((b * oh + i) * ow + j) * M + m;
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
            std::snprintf(buf, sizeof buf,
                          "y[%" PRId64 "][%" PRId64 "][%" PRId64 "][%" PRId64
                          "] = %.9g, want %.9g (act %d)",
                          b, i, j, m, first[o], ref, act);
            return buf;
          }
        }
  return "";
}

void test_conv_nhwc() {
  const ConvCase cases[] = {
      // n  c     h   w   m  kh kw sh sw pt pl pb pr dh dw
      {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 3, 23, 25, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // stem-like, stride 2
      {1, 3, 24, 24, 32, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 1},  // TF-style asymmetric stem
      {2, 3, 30, 30, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   // blocks across images
      {2, 8, 7, 9, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
      {1, 6, 13, 10, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},   // dilation 2
      {1, 5, 10, 12, 7, 3, 2, 2, 1, 0, 1, 2, 0, 1, 1, 1},   // asymmetric pads
      {1, 9, 3, 3, 6, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1},     // pads wider than the map
      {1, 40, 8, 9, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // K = 360 (2 K blocks)
      {1, 1200, 3, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // K = 10800: 8-row blocks
      {1, 64, 9, 9, 24, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},   // 1x1 stride 2 (im2col)
      {1, 16, 6, 6, 16, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 1x1 padded
      {1, 7, 8, 8, 11, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 1x1 direct
      {2, 33, 5, 7, 19, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   // direct, batch 2
      {1, 17, 13, 9, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // direct, 13x9, C 17, M 40
      {1, 3, 1, 1, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // 1 pixel
      {1, 40, 1, 1, 17, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},
      {1, 1, 4, 4, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // K = 4, M = 1
      {1, 300, 7, 7, 10, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // direct, 2 K blocks
      {2, 24, 20, 20, 100, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}, // direct, many row blocks
      {1, 96, 7, 7, 200, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // mbv2-like expand at 7x7
      {1, 160, 7, 7, 33, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // project
      {1, 2, 21, 23, 3, 3, 3, 3, 2, 1, 0, 0, 2, 1, 2, 1},   // stride 3 / dilation mix
  };
  int bad = 0, idx = 0, count = 0;
  std::string detail;
  for (const ConvCase &t : cases) {
    for (int variant = 0; variant < 3; ++variant) {
      int act = (idx * 3 + variant) % 11;
      std::string err = run_conv_nhwc(t, act, (idx + variant) % 2 == 0, (idx + variant) % 3 != 1,
                                      3000 + idx * 5 + variant);
      ++count;
      if (!err.empty() && !bad++)
        detail = conv_name(t) + ": " + err;
    }
    ++idx;
  }
  for (int act = 0; act <= 10; ++act) {
    std::string err = run_conv_nhwc(cases[1], act, true, act % 2 == 0, 3100 + act);
    ++count;
    if (!err.empty() && !bad++)
      detail = "act " + std::to_string(act) + " " + conv_name(cases[1]) + ": " + err;
  }
  for (int i : {0, 8, 13, 18, 19}) {
    std::string err = run_conv_nhwc(cases[i], 1, true, true, 3200 + i, /*aliasZ=*/true);
    ++count;
    if (!err.empty() && !bad++)
      detail = "in place " + conv_name(cases[i]) + ": " + err;
  }
  // Wrong ISA is refused.
  float dummy[8] = {};
  int rc = k::conv2d_nhwc(dummy, dummy, dummy, 0, dummy, 0, dummy, dummy, 1, 1, 1, 1, 1, 1, 1, 1,
                          1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, kIsa + 1);
  if (rc != k::kStatusWrongIsa && !bad++)
    detail = "isa_check mismatch returned " + std::to_string(rc);
  report("conv2d_nhwc (" + std::to_string(count) +
             " cases: stems, 1x1 direct, K blocks, tails, every act, in place, parts 1/2/3/7, "
             "isa_check)",
         bad, detail);
}

/// The NHWC packings against their documented layouts (the conv one against
/// pack_gemm_b of the [K][M] matrix it stands for).
void test_nhwc_packing() {
  int bad = 0;
  {
    const int64_t C = 19, KH = 3, KW = 2, vw = k::vec_width(kIsa);
    const int64_t cp = (C + vw - 1) / vw * vw;
    std::vector<float> w(C * KH * KW);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = float(i + 1);
    Guarded out(k::packed_depthwise_nhwc_weights_floats(kIsa, C, KH, KW));
    bad += out.size() != KH * KW * cp;
    k::pack_depthwise_nhwc_weights(kIsa, w.data(), C, KH, KW, out.data());
    for (int64_t a = 0; a < KH; ++a)
      for (int64_t e = 0; e < KW; ++e)
        for (int64_t c = 0; c < cp; ++c)
          bad += out[(a * KW + e) * cp + c] != (c < C ? w[(c * KH + a) * KW + e] : 0.0f);
    bad += !out.guards_ok();
  }
  {
    const int64_t M = 53, C = 5, KH = 3, KW = 3, K = KH * KW * C;
    std::vector<float> w(M * C * KH * KW), b(K * M);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = float(i + 1);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t a = 0; a < KH; ++a)
          for (int64_t e = 0; e < KW; ++e)
            b[((a * KW + e) * C + c) * M + m] = w[((m * C + c) * KH + a) * KW + e];
    Guarded out(k::packed_conv_nhwc_weights_floats(kIsa, M, C, KH, KW));
    std::vector<float> want(k::packed_gemm_b_floats(kIsa, K, M));
    bad += out.size() != static_cast<int64_t>(want.size());
    k::pack_conv_nhwc_weights(kIsa, w.data(), M, C, KH, KW, out.data());
    k::pack_gemm_b(kIsa, b.data(), K, M, false, 1.0f, want.data());
    for (size_t i = 0; i < want.size() && static_cast<int64_t>(i) < out.size(); ++i)
      bad += out[i] != want[i];
    bad += !out.guards_ok();
  }
  report("nhwc packing layouts", bad, bad ? std::to_string(bad) + " mismatches" : "");
}

void test_reduce_mean_mid() {
  struct Case {
    int64_t outer, R, inner;
  } cases[] = {{1, 49, 1280}, {2, 49, 1280}, {1, 1, 1},   {3, 7, 1},    {2, 5, 17},
               {1, 13, 64},   {2, 9, 65},    {4, 3, 200}, {1, 3136, 144}, {3, 1, 130},
               {2, 196, 40},  {1, 2, 3},     {5, 4, 127}};
  int bad = 0, count = 0;
  std::string detail;
  for (const Case &t : cases) {
    Rng rng(4000 + count);
    std::vector<float> x(t.outer * t.R * t.inner);
    for (float &v : x)
      v = rng.uniform() * 4.0f;
    if (count == 4) { // NaN and inf propagate to their lanes only
      x[t.inner + 3] = std::nanf("");
      x[2 * t.inner + 5] = std::numeric_limits<float>::infinity();
    }
    const int64_t ysize = t.outer * t.inner;
    std::vector<float> first;
    std::string err;
    for (int parts : kNhwcParts) {
      Guarded y(ysize, 777.0f);
      for (int p = 0; p < parts; ++p)
        if (k::reduce_mean_mid(x.data(), y.data(), t.outer, t.R, t.inner, p, parts) != 0)
          err = "reduce_mean_mid returned non-zero";
      if (!y.guards_ok())
        err = "output guard overwritten";
      if (parts == 1)
        first.assign(y.data(), y.data() + ysize);
      else if (std::memcmp(first.data(), y.data(), ysize * sizeof(float)) != 0)
        err = "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
    }
    // The float sum in r order (the documented sequence) must match exactly;
    // the double-precision mean within rounding.
    for (int64_t o = 0; o < t.outer && err.empty(); ++o)
      for (int64_t i = 0; i < t.inner; ++i) {
        volatile float s = 0.0f;
        double d = 0, absSum = 0;
        for (int64_t r = 0; r < t.R; ++r) {
          float v = x[(o * t.R + r) * t.inner + i];
          s = s + v;
          d += v;
          absSum += std::fabs(v);
        }
        const float want = s / static_cast<float>(t.R);
        const float got = first[o * t.inner + i];
        const bool same = std::memcmp(&got, &want, 4) == 0 || (std::isnan(got) && std::isnan(want));
        const double ref = d / double(t.R);
        const bool near = std::isnan(ref) ? std::isnan(got)
                          : std::isinf(ref) ? got == ref
                                            : std::fabs(got - ref) <= 1e-6 * absSum / t.R + 1e-7;
        if (!same || !near) {
          char buf[200];
          std::snprintf(buf, sizeof buf,
                        "outer %" PRId64 " R %" PRId64 " inner %" PRId64 ": y[%" PRId64
                        "][%" PRId64 "] = %.9g, want %.9g (double %.9g)",
                        t.outer, t.R, t.inner, o, i, got, want, ref);
          err = buf;
          break;
        }
      }
    ++count;
    if (!err.empty() && !bad++)
      detail = err;
  }
  report("reduce_mean_mid (" + std::to_string(count) +
             " shapes, r-ordered sum exact, NaN/inf, parts 1/2/3/7)",
         bad, detail);
}

} // namespace

int main() {
  std::printf("ISA %d (conv_mr %d, gemm_nr %d)\n", kIsa, k::conv_mr(kIsa), k::gemm_nr(kIsa));
  test_packing();
  test_activations();
  test_conv();
  test_gemm();
  test_depthwise();
  test_depthwise_shapes();
  test_activation_edges();
  test_pooling();
  test_winograd(false);
  test_winograd(true);
  test_nhwc_packing();
  test_depthwise_nhwc();
  test_conv_nhwc();
  test_reduce_mean_mid();
  std::printf("%s: %d group(s) failed\n", g_failures ? "FAILED" : "ALL PASSED", g_failures);
  return g_failures ? 1 : 0;
}
