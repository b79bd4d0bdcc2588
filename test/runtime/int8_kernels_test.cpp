// int8_kernels_test.cpp - checks runtime-support/onnxcc_kernels_int8.h
// (onnxcc_rt::kernels::igemm_packed_b) against a direct int64 evaluation of
// ONNX's MatMulInteger: sum_k (A[m][k] - a_zp) * (B[k][n] - b_zp[n]). Build
// with -DONNXCC_KERNELS_ISA=<0|1|2|3> and -I runtime-support; prints one
// PASS/FAIL line per case group and exits non-zero on any failure.
//
// Cases draw every signedness pair (uint8/int8 A and B), zero points absent,
// per tensor, per row of A and per column of B, the full value range
// (including -128 x -128 pair sums that saturate int16 in pmaddubsw), shapes
// around every tile, chunk and K-block edge (odd K, K = 0, M = 1, N below a
// panel), a row pitch larger than K, and 1, 2 and 3 parts (results must be
// identical). Sentinel guards around C and the scratch catch stray writes.
// Also the quantized convolution (qconv_packed_w) against a direct
// evaluation of QLinearConv, and quantize_linear_8 and qdq_add_8 (the
// residual addition of a QDQ graph) against the spec.
#include "onnxcc_kernels.h"
#include "test_rng.h"

#include <cinttypes>
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace k = onnxcc_rt::kernels;
static constexpr int kIsa = ONNXCC_KERNELS_ISA;

namespace {

constexpr int32_t kGuard = 0x5a5a5a5a;
constexpr int kPad = 32;

struct Case {
  int64_t M, N, K, lda;
  bool aUnsigned, bUnsigned;
  int aZpKind; // 0 none, 1 scalar, 2 per row
  int bZpKind; // 0 none, 1 scalar, 2 per column
  bool extremes;
};

const char *formatName(int32_t format) { return format == k::kIgemmQuads ? "quads" : "pairs"; }

int failures = 0;

/// `format` kIgemmQuads: B' = B - b_zp is drawn within 7 bits ([-64, 63]
/// around each column's zero point), the weights the quads format is for.
bool runCase(const Case &cs, uint64_t seed, const char *group, int32_t format) {
  Rng rng(seed);
  auto draw = [&](bool isUnsigned) -> int32_t {
    if (cs.extremes) {
      int pick = rng.below(4);
      if (pick < 2)
        return isUnsigned ? (pick ? 255 : 0) : (pick ? 127 : -128);
    }
    return isUnsigned ? rng.below(256) : rng.below(256) - 128;
  };
  // A as bytes with its pitch; the gap past K holds values the kernel must
  // not read into the result.
  std::vector<uint8_t> a(std::max<int64_t>(1, cs.M * cs.lda));
  for (auto &v : a)
    v = static_cast<uint8_t>(draw(cs.aUnsigned));
  std::vector<uint8_t> azp(std::max<int64_t>(1, cs.M));
  for (auto &v : azp)
    v = static_cast<uint8_t>(draw(cs.aUnsigned));
  std::vector<int32_t> b(std::max<int64_t>(1, cs.K * cs.N)), bzp(std::max<int64_t>(1, cs.N));
  for (auto &v : b)
    v = draw(cs.bUnsigned);
  for (auto &v : bzp)
    v = draw(cs.bUnsigned);
  if (cs.bZpKind == 1)
    for (auto &v : bzp)
      v = bzp[0];
  if (format == k::kIgemmQuads) {
    // Zero points near the middle of the range, B' within 7 bits of them.
    for (auto &v : bzp)
      v = (cs.bUnsigned ? 128 : 0) + rng.below(21) - 10;
    if (cs.bZpKind == 1)
      for (auto &v : bzp)
        v = bzp[0];
    for (int64_t kk = 0; kk < cs.K; ++kk)
      for (int64_t n = 0; n < cs.N; ++n) {
        int32_t zp = cs.bZpKind ? bzp[n] : 0;
        int32_t d = cs.extremes ? (rng.below(2) ? 63 : -64) : rng.below(128) - 64;
        int32_t lo = cs.bUnsigned ? 0 : -128, hi = cs.bUnsigned ? 255 : 127;
        b[kk * cs.N + n] = std::min(hi, std::max(lo, zp + d));
      }
    if (!k::igemm_quads_exact(ONNXCC_ISA_AVX2, b.data(), cs.bZpKind ? bzp.data() : nullptr,
                              cs.K, cs.N)) {
      std::printf("FAIL %s: 7-bit weights not accepted as exact for quads\n", group);
      return false;
    }
  }
  auto aAt = [&](int64_t m, int64_t kk) -> int64_t {
    uint8_t raw = a[m * cs.lda + kk];
    return cs.aUnsigned ? int64_t(raw) : int64_t(static_cast<int8_t>(raw));
  };
  auto aZp = [&](int64_t m) -> int64_t {
    if (cs.aZpKind == 0)
      return 0;
    uint8_t raw = azp[cs.aZpKind == 2 ? m : 0];
    return cs.aUnsigned ? int64_t(raw) : int64_t(static_cast<int8_t>(raw));
  };
  std::vector<int32_t> packed((k::packed_igemm_b_bytes(kIsa, format, cs.K, cs.N) + 3) / 4);
  k::pack_igemm_b(kIsa, format, b.data(), cs.bZpKind ? bzp.data() : nullptr, cs.K, cs.N,
                  packed.data());

  std::vector<int32_t> results[3];
  for (int parts = 1; parts <= 3; ++parts) {
    std::vector<int32_t> c(cs.M * cs.N + 2 * kPad, kGuard);
    int64_t scratchBytes = k::igemm_scratch_bytes(kIsa, cs.K);
    std::vector<int32_t> scratch(parts * (scratchBytes / 4) + 2 * kPad, kGuard);
    for (int part = 0; part < parts; ++part) {
      int status = k::igemm_packed_b(a.data(), cs.aUnsigned, cs.lda, azp.data(), cs.aZpKind,
                                     packed.data(), format, c.data() + kPad, cs.M, cs.N, cs.K,
                                     scratch.data() + kPad, part,
                                     parts, kIsa);
      if (status != 0) {
        std::printf("FAIL %s (%s): status %d\n", group, formatName(format), status);
        return false;
      }
    }
    for (int i = 0; i < kPad; ++i)
      if (c[i] != kGuard || c[kPad + cs.M * cs.N + i] != kGuard ||
          scratch[i] != kGuard || scratch[scratch.size() - 1 - i] != kGuard) {
        std::printf("FAIL %s (%s): a write outside C or the scratch (M %" PRId64 " N %" PRId64
                    " K %" PRId64 ", %d parts)\n",
                    group, formatName(format), cs.M, cs.N, cs.K, parts);
        return false;
      }
    results[parts - 1].assign(c.begin() + kPad, c.begin() + kPad + cs.M * cs.N);
  }
  for (int64_t m = 0; m < cs.M; ++m)
    for (int64_t n = 0; n < cs.N; ++n) {
      int64_t want = 0;
      for (int64_t kk = 0; kk < cs.K; ++kk)
        want += (aAt(m, kk) - aZp(m)) * (int64_t(b[kk * cs.N + n]) - (cs.bZpKind ? bzp[n] : 0));
      for (int p = 0; p < 3; ++p)
        if (results[p][m * cs.N + n] != want) {
          std::printf("FAIL %s (%s): M %" PRId64 " N %" PRId64 " K %" PRId64 " C[%" PRId64
                      "][%" PRId64 "] = %d, expected %" PRId64 " (%d parts)\n",
                      group, formatName(format), cs.M, cs.N, cs.K, m, n,
                      results[p][m * cs.N + n], want, p + 1);
          return false;
        }
    }
  return true;
}

void group(const char *name, const std::vector<Case> &cases, uint64_t seed) {
  bool ok = true;
  for (int32_t format : {k::kIgemmPairs, k::kIgemmQuads})
    for (size_t i = 0; i < cases.size(); ++i)
      ok = runCase(cases[i], seed * 1000 + i + 500 * format, name, format) && ok;
  std::printf("%s %s (%zu cases, each in both formats)\n", ok ? "PASS" : "FAIL", name,
              cases.size());
  if (!ok)
    ++failures;
}

/// DynamicQuantizeLinear from the ONNX operator spec, in float as its
/// reference implementation computes it: range including 0, scale = range /
/// 255, zero point and values rounded half to even and saturated (NaN to 0,
/// as ABI.md gives the generated code's float-to-uint8 conversion).
void dqlReference(const std::vector<float> &x, std::vector<uint8_t> &y, float &scale,
                  uint8_t &zp) {
  float lo = 0, hi = 0;
  bool nan = false;
  for (float v : x) {
    nan |= std::isnan(v);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (nan)
    lo = hi = std::numeric_limits<float>::quiet_NaN();
  scale = (hi - lo) / 255.0f;
  auto roundHalfEven = [](float v) { return std::nearbyint(v); }; // default mode: to even
  auto saturate = [](float v) -> uint8_t {
    if (std::isnan(v))
      return 0;
    return static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v)));
  };
  float z = -(lo / scale);
  zp = std::isnan(z) ? 0 : saturate(roundHalfEven(std::min(255.0f, std::max(0.0f, z))));
  y.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = saturate(roundHalfEven(x[i] / scale) + zp);
}

void dqlGroup() {
  Rng rng(77);
  bool ok = true;
  int cases = 0;
  auto check = [&](const std::vector<float> &x, const char *what) {
    ++cases;
    std::vector<uint8_t> want;
    float wantScale;
    uint8_t wantZp;
    dqlReference(x, want, wantScale, wantZp);
    std::vector<uint8_t> got(x.size() + kPad, 0xa5);
    float scale = -1;
    uint8_t zp[2] = {0xa5, 0xa5};
    int status = k::dynamic_quantize_u8(x.data(), x.size(), got.data(), &scale, zp, kIsa);
    bool same = status == 0 && zp[0] == wantZp && zp[1] == 0xa5 &&
                (scale == wantScale || (std::isnan(scale) && std::isnan(wantScale)));
    for (size_t i = 0; same && i < x.size(); ++i)
      same = got[i] == want[i];
    for (int i = 0; same && i < kPad; ++i)
      same = got[x.size() + i] == 0xa5;
    if (!same) {
      std::printf("FAIL dynamic_quantize_u8 %s (n %zu): scale %g / %g, zero point %d / %d\n", what,
                  x.size(), scale, wantScale, zp[0], wantZp);
      ok = false;
    }
  };
  for (size_t n : {0, 1, 7, 31, 32, 33, 100, 1000, 98304}) {
    std::vector<float> x(n);
    for (auto &v : x)
      v = (rng.below(1 << 20) - (1 << 19)) / 65536.0f; // [-8, 8)
    check(x, "mixed signs");
    for (auto &v : x)
      v = std::fabs(v) + 0.5f;
    check(x, "all positive");
    for (auto &v : x)
      v = -v;
    check(x, "all negative");
    // Values on rounding boundaries: scale 1 (range 255) and halves.
    for (size_t i = 0; i < n; ++i)
      x[i] = static_cast<float>(static_cast<int>(i % 511) - 255) / 2.0f;
    check(x, "halves");
  }
  // Subnormals among normal values (flushed by the vector path: the same
  // bytes), and a tensor of only tiny values (a tiny scale: not flushed).
  std::vector<float> sub(1000);
  for (size_t i = 0; i < sub.size(); ++i)
    sub[i] = i % 3 == 0 ? (i % 2 ? 1e-39f : -3e-40f) : static_cast<float>(i % 17) - 8.0f;
  check(sub, "subnormals");
  for (size_t i = 0; i < sub.size(); ++i)
    sub[i] = (static_cast<float>(i % 13) - 6.0f) * 1e-39f;
  check(sub, "only subnormals");
  std::vector<float> zeros(70, 0.0f);
  check(zeros, "all zero");
  std::vector<float> special(70, 1.0f);
  special[40] = std::numeric_limits<float>::quiet_NaN();
  check(special, "a NaN");
  special[40] = std::numeric_limits<float>::infinity();
  check(special, "an infinity");
  std::printf("%s dynamic_quantize_u8 (%d cases)\n", ok ? "PASS" : "FAIL", cases);
  if (!ok)
    ++failures;
}

/// gemm_q4 against W = (Q - zero_point) * scale and C = A W (+ bias + Z,
/// then ReLU) in double: within 1e-5 of sum |a w| (float sums in another order), and
/// bitwise the same for 1, 2 and 3 parts.
void q4Group() {
  Rng rng(99);
  bool ok = true;
  int cases = 0;
  struct Shape {
    int64_t M, K, N, block;
    bool isSigned, zp, bias;
  };
  const Shape shapes[] = {{1, 64, 16, 32, true, false, false},  {1, 768, 2304, 32, true, false, true},
                          {1, 100, 37, 32, true, true, true},    {3, 45, 20, 16, false, true, false},
                          {4, 128, 48, 64, false, false, true},  {5, 70, 33, 7, true, true, true},
                          {2, 1, 1, 32, true, false, false},     {1, 256, 50, 128, false, true, true}};
  for (const Shape &sh : shapes) {
    ++cases;
    const int64_t blocks = (sh.K + sh.block - 1) / sh.block;
    std::vector<float> a(sh.M * sh.K), scale(blocks * sh.N), bias(sh.N);
    std::vector<int32_t> q(sh.K * sh.N), zp(blocks * sh.N);
    for (auto &v : a)
      v = (rng.below(2001) - 1000) / 1000.0f;
    for (auto &v : q)
      v = sh.isSigned ? rng.below(16) - 8 : rng.below(16);
    for (auto &v : zp)
      v = sh.isSigned ? rng.below(16) - 8 : rng.below(16);
    for (auto &v : scale)
      v = (rng.below(1000) + 1) / 50000.0f;
    for (auto &v : bias)
      v = (rng.below(2001) - 1000) / 1000.0f;
    // With a bias the cases also add a residual Z and apply ReLU.
    std::vector<float> zres(sh.M * sh.N);
    for (auto &v : zres)
      v = (rng.below(2001) - 1000) / 1000.0f;
    std::vector<uint8_t> packed(k::packed_q4_bytes(sh.K, sh.N, sh.block));
    std::vector<float> params(k::packed_q4_param_floats(sh.K, sh.N, sh.block));
    k::pack_q4(q.data(), scale.data(), sh.zp ? zp.data() : nullptr, sh.isSigned, sh.K, sh.N,
               sh.block, packed.data(), params.data());
    std::vector<float> results[3];
    for (int parts = 1; parts <= 3; ++parts) {
      std::vector<float> c(sh.M * sh.N + 2 * kPad, 12345.0f);
      for (int part = 0; part < parts; ++part)
        if (k::gemm_q4(a.data(), sh.K, packed.data(), params.data(), bias.data(), sh.bias,
                       zres.data(), sh.bias, c.data() + kPad, sh.M, sh.N, sh.K, sh.block,
                       sh.bias ? k::kActRelu : k::kActNone, 0.0f, 0.0f, part, parts, kIsa) != 0)
          ok = false;
      for (int i = 0; i < kPad; ++i)
        if (c[i] != 12345.0f || c[kPad + sh.M * sh.N + i] != 12345.0f)
          ok = false;
      results[parts - 1].assign(c.begin() + kPad, c.begin() + kPad + sh.M * sh.N);
    }
    for (int64_t m = 0; m < sh.M; ++m)
      for (int64_t n = 0; n < sh.N; ++n) {
        double want = sh.bias ? bias[n] : 0.0, mag = std::fabs(want);
        for (int64_t kk = 0; kk < sh.K; ++kk) {
          const int64_t at = (kk / sh.block) * sh.N + n;
          const double w = (double(q[kk * sh.N + n]) - (sh.zp ? zp[at] : 0)) * scale[at];
          want += double(a[m * sh.K + kk]) * w;
          mag += std::fabs(double(a[m * sh.K + kk]) * w);
        }
        if (sh.bias) {
          want += zres[m * sh.N + n];
          mag += std::fabs(zres[m * sh.N + n]);
          want = std::max(want, 0.0);
        }
        const float got = results[0][m * sh.N + n];
        if (!(std::fabs(got - want) <= 1e-5 * mag + 1e-7) ||
            std::memcmp(&got, &results[1][m * sh.N + n], 4) ||
            std::memcmp(&got, &results[2][m * sh.N + n], 4)) {
          if (ok)
            std::printf("FAIL gemm_q4 M %" PRId64 " K %" PRId64 " N %" PRId64 " block %" PRId64
                        ": C[%" PRId64 "][%" PRId64 "] = %g, expected %g\n",
                        sh.M, sh.K, sh.N, sh.block, m, n, got, want);
          ok = false;
        }
      }
  }
  std::printf("%s gemm_q4 (%d cases)\n", ok ? "PASS" : "FAIL", cases);
  if (!ok)
    ++failures;
}

/// quantize_dequantize against QuantizeLinear then DequantizeLinear as the
/// spec writes them, evaluated in float (NaN to 0): the same bits, for uint8
/// and int8 ranges, with and without zero points, NaN and infinities, and
/// any split into parts.
void qdqGroup() {
  Rng rng(123);
  bool ok = true;
  int cases = 0;
  struct Params {
    float qs, qz, lo, hi, ds, dz;
    bool hasDz;
  };
  const Params params[] = {{0.0105832173f, 0, 0, 255, 0.0105832173f, 0, false},
                           {0.03f, 128, 0, 255, 0.03f, 128, true},
                           {0.5f, -3, -128, 127, 0.5f, -3, true},
                           {1.0f, 0, -128, 127, 0.25f, 0, false}};
  for (const Params &p : params)
    for (int64_t n : {0, 1, 9, 31, 1000}) {
      ++cases;
      std::vector<float> x(n);
      for (auto &v : x)
        v = (rng.below(1 << 16) - (1 << 15)) / 1024.0f;
      for (int64_t i = 0; i < n; i += 7)
        x[i] = static_cast<float>(static_cast<int>(i % 40) - 20) * p.qs / 2.0f; // halves
      if (n > 5) {
        x[1] = std::numeric_limits<float>::quiet_NaN();
        x[2] = std::numeric_limits<float>::infinity();
        x[3] = -std::numeric_limits<float>::infinity();
      }
      std::vector<float> want(n);
      for (int64_t i = 0; i < n; ++i) {
        float r = std::nearbyint(x[i] / p.qs) + p.qz;
        r = std::isnan(r) ? 0.0f : std::min(p.hi, std::max(p.lo, r));
        want[i] = (p.hasDz ? r - p.dz : r) * p.ds;
      }
      for (int parts = 1; parts <= 3; ++parts) {
        std::vector<float> y(n + kPad, 7.0f);
        for (int part = 0; part < parts; ++part)
          k::quantize_dequantize(x.data(), y.data(), n, p.qs, p.qz, p.lo, p.hi, p.ds, p.dz,
                                 p.hasDz, part, parts, kIsa);
        for (int64_t i = 0; i < n; ++i)
          if (std::memcmp(&y[i], &want[i], 4)) {
            if (ok)
              std::printf("FAIL quantize_dequantize n %" PRId64 " element %" PRId64
                          ": %g, expected %g\n", n, i, y[i], want[i]);
            ok = false;
          }
        for (int i = 0; i < kPad; ++i)
          ok = ok && y[n + i] == 7.0f;
      }
    }
  std::printf("%s quantize_dequantize (%d cases)\n", ok ? "PASS" : "FAIL", cases);
  if (!ok)
    ++failures;
}

/// qconv_packed_w against a direct evaluation of QLinearConv: int64 sums
/// of (x - x_zp)(w - w_zp[o]) over each window (padding reads nothing:
/// (x_zp - x_zp) = 0), plus the bias, then float(acc) * mult rounded by
/// nearbyint (half to even), + y_zp, clamped. Both input layouts (im2col,
/// channels-last with C rounded up to 4), both packed formats,
/// strides, dilations, asymmetric pads, several images and 1 to 3 parts;
/// guards around y and the scratch.
void qconvGroup() {
  Rng rng(77);
  bool ok = true;
  int cases = 0;
  struct Shape {
    int64_t batch, C, H, W, M, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR;
  };
  const Shape shapes[] = {
      {1, 3, 11, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {2, 4, 8, 8, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 8, 13, 13, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, {1, 16, 9, 10, 33, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 12, 9, 9, 8, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},   {1, 3, 23, 23, 7, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},
      {1, 8, 12, 11, 9, 3, 2, 1, 2, 2, 1, 2, 0, 1, 3},  {1, 5, 6, 7, 3, 2, 3, 1, 1, 1, 2, 0, 1, 2, 0},
      {2, 20, 17, 17, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 64, 5, 5, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
  };
  for (const Shape &sh : shapes)
    for (int variant = 0; variant < 4; ++variant) {
      ++cases;
      const bool xUnsigned = variant % 2 == 0, yUnsigned = variant < 2;
      const bool fullRange = variant == 3, hasBias = variant != 1;
      const int64_t OH = (sh.H + sh.PT + sh.PB - ((sh.KH - 1) * sh.DH + 1)) / sh.SH + 1;
      const int64_t OW = (sh.W + sh.PL + sh.PR - ((sh.KW - 1) * sh.DW + 1)) / sh.SW + 1;
      const int64_t area = sh.KH * sh.KW, K = sh.C * area, P = OH * OW;
      auto xValue = [&]() { return xUnsigned ? rng.below(256) : rng.below(256) - 128; };
      std::vector<uint8_t> x(sh.batch * sh.C * sh.H * sh.W);
      for (auto &v : x)
        v = static_cast<uint8_t>(xValue());
      const int32_t xZp = xValue();
      const uint8_t xZpByte = static_cast<uint8_t>(xZp);
      std::vector<int32_t> w(sh.M * K), wZp(sh.M), bias(sh.M);
      std::vector<float> mult(sh.M);
      for (int64_t o = 0; o < sh.M; ++o) {
        wZp[o] = fullRange ? rng.below(256) - 128 : rng.below(9) - 4;
        bias[o] = rng.below(20001) - 10000;
        mult[o] = (1 + rng.below(1000)) / 65536.0f;
      }
      for (int64_t o = 0; o < sh.M; ++o)
        for (int64_t i = 0; i < K; ++i)
          w[o * K + i] = fullRange ? rng.below(256) - 128 : wZp[o] + rng.below(127) - 63;
      const float yZp = yUnsigned ? 7.0f : -5.0f;
      const float lo = yUnsigned ? 0.0f : -128.0f, hi = yUnsigned ? 255.0f : 127.0f;
      // The reference.
      std::vector<uint8_t> want(sh.batch * sh.M * P);
      auto xAt = [&](int64_t n, int64_t c, int64_t iy, int64_t ix) -> int64_t {
        const uint8_t raw = x[((n * sh.C + c) * sh.H + iy) * sh.W + ix];
        return xUnsigned ? int64_t(raw) : int64_t(static_cast<int8_t>(raw));
      };
      for (int64_t n = 0; n < sh.batch; ++n)
        for (int64_t o = 0; o < sh.M; ++o)
          for (int64_t oy = 0; oy < OH; ++oy)
            for (int64_t ox = 0; ox < OW; ++ox) {
              int64_t acc = hasBias ? bias[o] : 0;
              for (int64_t c = 0; c < sh.C; ++c)
                for (int64_t ky = 0; ky < sh.KH; ++ky)
                  for (int64_t kx = 0; kx < sh.KW; ++kx) {
                    const int64_t iy = oy * sh.SH - sh.PT + ky * sh.DH;
                    const int64_t ix = ox * sh.SW - sh.PL + kx * sh.DW;
                    if (iy < 0 || iy >= sh.H || ix < 0 || ix >= sh.W)
                      continue;
                    acc += (xAt(n, c, iy, ix) - xZp) *
                           (w[o * K + (c * sh.KH + ky) * sh.KW + kx] - wZp[o]);
                  }
              float r = std::nearbyint(static_cast<float>(acc) * mult[o]) + yZp;
              r = std::min(hi, std::max(lo, r));
              want[(n * sh.M + o) * P + oy * OW + ox] = static_cast<uint8_t>(static_cast<int>(r));
            }
      for (int32_t layout : {k::kQconvIm2col, k::kQconvChannels}) {
        // B [K][M] in the layout's K order; channels-last rounds C up to 4
        // with rows of zero points.
        const int64_t Cp = layout == k::kQconvChannels ? (sh.C + 3) / 4 * 4 : sh.C;
        const int64_t KB = Cp * area;
        std::vector<int32_t> b(KB * sh.M);
        for (int64_t o = 0; o < sh.M; ++o)
          for (int64_t c = 0; c < Cp; ++c)
            for (int64_t a = 0; a < area; ++a) {
              const int64_t kk = layout == k::kQconvChannels ? a * Cp + c : c * area + a;
              b[kk * sh.M + o] = c < sh.C ? w[(o * sh.C + c) * area + a] : wZp[o];
            }
        const int32_t format = k::igemm_quads_exact(kIsa, b.data(), wZp.data(), KB, sh.M)
                                   ? k::kIgemmQuads : k::kIgemmPairs;
        if (!fullRange && (kIsa == ONNXCC_ISA_AVX2 || kIsa == ONNXCC_ISA_AVX512) &&
            format != k::kIgemmQuads) {
          std::printf("FAIL qconv: 7-bit weights not packed as quads\n");
          ok = false;
        }
        std::vector<char> packed(k::packed_igemm_b_bytes(kIsa, format, KB, sh.M));
        k::pack_igemm_b(kIsa, format, b.data(), wZp.data(), KB, sh.M, packed.data());
        const int64_t padded = k::qconv_padded_bytes(layout, sh.C, sh.KH, sh.KW, sh.SH, sh.SW,
                                                     sh.DH, sh.DW, OH, OW);
        for (int parts = 1; parts <= 3; ++parts) {
          const int64_t slice = k::qconv_scratch_bytes(kIsa, KB, sh.M, padded);
          std::vector<int32_t> scratch((slice * parts) / 4 + kPad, kGuard);
          std::vector<uint8_t> y(want.size() + kPad, 0xa5);
          for (int part = 0; part < parts; ++part) {
            int status = k::qconv_packed_w(
                x.data(), xUnsigned, &xZpByte, sh.batch, sh.C, sh.H, sh.W, sh.KH, sh.KW, sh.SH,
                sh.SW, sh.DH, sh.DW, sh.PT, sh.PL, OH, OW, layout, packed.data(), format, sh.M,
                bias.data(), hasBias, mult.data(), yZp, lo, hi, yUnsigned, y.data(),
                scratch.data(), part, parts, kIsa);
            if (status != 0) {
              std::printf("FAIL qconv: status %d\n", status);
              ok = false;
            }
          }
          for (size_t i = 0; i < want.size(); ++i)
            if (y[i] != want[i]) {
              if (ok)
                std::printf("FAIL qconv C %" PRId64 " M %" PRId64 " k %" PRId64 "x%" PRId64
                            " variant %d layout %d %s parts %d: y[%zu] %d, expected %d\n",
                            sh.C, sh.M, sh.KH, sh.KW, variant, layout, formatName(format),
                            parts, i, y[i], want[i]);
              ok = false;
              break;
            }
          for (int i = 0; i < kPad; ++i)
            ok = ok && y[want.size() + i] == 0xa5 && scratch[(slice * parts) / 4 + i] == kGuard;
        }
      }
    }
  // A layout the kernel does not know is refused.
  {
    uint8_t one = 0;
    int status = k::qconv_packed_w(&one, 1, &one, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1,
                                   7, &one, k::kIgemmPairs, 1, nullptr, 0,
                                   nullptr, 0, 0, 255, 1, &one, nullptr, 0, 1, kIsa);
    ok = ok && status == k::kStatusWrongIsa;
  }
  std::printf("%s qconv_packed_w (%d cases)\n", ok ? "PASS" : "FAIL", cases);
  if (!ok)
    ++failures;
}

/// quantize_linear_8 against QuantizeLinear as the spec writes it (NaN to
/// 0), uint8 and int8, rounding halves, infinities, any split into parts.
void quantizeGroup() {
  Rng rng(321);
  bool ok = true;
  int cases = 0;
  struct Params {
    float scale, zp, lo, hi;
    bool isUnsigned;
  };
  const Params params[] = {{0.0105832173f, 0, 0, 255, true},
                           {0.03f, 128, 0, 255, true},
                           {0.5f, -3, -128, 127, false}};
  for (const Params &p : params)
    for (int64_t n : {0, 1, 31, 33, 1000}) {
      ++cases;
      std::vector<float> x(n);
      for (auto &v : x)
        v = (rng.below(1 << 16) - (1 << 15)) / 1024.0f;
      for (int64_t i = 0; i < n; i += 7)
        x[i] = static_cast<float>(static_cast<int>(i % 40) - 20) * p.scale / 2.0f;
      if (n > 5) {
        x[1] = std::numeric_limits<float>::quiet_NaN();
        x[2] = std::numeric_limits<float>::infinity();
        x[3] = -std::numeric_limits<float>::infinity();
      }
      std::vector<uint8_t> want(n);
      for (int64_t i = 0; i < n; ++i) {
        float r = std::nearbyint(x[i] / p.scale) + p.zp;
        r = std::isnan(r) ? 0.0f : std::min(p.hi, std::max(p.lo, r));
        want[i] = static_cast<uint8_t>(static_cast<int>(r));
      }
      for (int parts = 1; parts <= 3; ++parts) {
        std::vector<uint8_t> y(n + kPad, 0xa5);
        for (int part = 0; part < parts; ++part)
          k::quantize_linear_8(x.data(), y.data(), n, p.scale, p.zp, p.lo, p.hi, p.isUnsigned,
                               part, parts, kIsa);
        for (int64_t i = 0; i < n; ++i)
          if (y[i] != want[i]) {
            if (ok)
              std::printf("FAIL quantize_linear_8 n %" PRId64 " element %" PRId64
                          ": %d, expected %d\n", n, i, y[i], want[i]);
            ok = false;
          }
        for (int i = 0; i < kPad; ++i)
          ok = ok && y[n + i] == 0xa5;
      }
    }
  std::printf("%s quantize_linear_8 (%d cases)\n", ok ? "PASS" : "FAIL", cases);
  if (!ok)
    ++failures;
}

/// qdq_add_8 against DequantizeLinear, Add, Relu and QuantizeLinear as the
/// spec writes them, one float32 rounding per operation: every signedness,
/// with and without the Relu, rounding halves, any split into parts.
void qdqAddGroup() {
  Rng rng(99);
  bool ok = true;
  int cases = 0;
  for (int variant = 0; variant < 8; ++variant)
    for (int64_t n : {0, 1, 15, 17, 1000}) {
      ++cases;
      const bool au = variant & 1, bu = variant & 2, yu = variant & 4, relu = (variant + n) % 2;
      const float sa = 0.0625f, za = au ? 130.0f : -3.0f, sb = 0.125f, zb = bu ? 7.0f : 0.0f;
      const float sy = 0.25f, zy = yu ? 100.0f : -1.0f;
      const float lo = yu ? 0.0f : -128.0f, hi = yu ? 255.0f : 127.0f;
      std::vector<uint8_t> a(n), b(n);
      for (auto &v : a)
        v = static_cast<uint8_t>(rng.below(256));
      for (auto &v : b)
        v = static_cast<uint8_t>(rng.below(256));
      std::vector<uint8_t> want(n);
      for (int64_t i = 0; i < n; ++i) {
        const float fa = ((au ? float(a[i]) : float(int8_t(a[i]))) - za) * sa;
        const float fb = ((bu ? float(b[i]) : float(int8_t(b[i]))) - zb) * sb;
        float v = fa + fb;
        if (relu)
          v = std::max(v, 0.0f);
        float r = std::nearbyint(v / sy) + zy;
        r = std::min(hi, std::max(lo, r));
        want[i] = static_cast<uint8_t>(static_cast<int>(r));
      }
      for (int parts = 1; parts <= 3; ++parts) {
        std::vector<uint8_t> y(n + kPad, 0xa5);
        for (int part = 0; part < parts; ++part)
          k::qdq_add_8(a.data(), au, sa, za, b.data(), bu, sb, zb, relu, y.data(), n, sy, zy, lo,
                       hi, yu, part, parts, kIsa);
        for (int64_t i = 0; i < n; ++i)
          if (y[i] != want[i]) {
            if (ok)
              std::printf("FAIL qdq_add_8 variant %d n %" PRId64 " element %" PRId64
                          ": %d, expected %d\n", variant, n, i, y[i], want[i]);
            ok = false;
          }
        for (int i = 0; i < kPad; ++i)
          ok = ok && y[n + i] == 0xa5;
      }
    }
  std::printf("%s qdq_add_8 (%d cases)\n", ok ? "PASS" : "FAIL", cases);
  if (!ok)
    ++failures;
}

} // namespace

int main() {
  // Every signedness pair and zero-point form, on one tile-crossing shape.
  std::vector<Case> kinds;
  for (int au = 0; au < 2; ++au)
    for (int bu = 0; bu < 2; ++bu)
      for (int az = 0; az < 3; ++az)
        for (int bz = 0; bz < 3; ++bz)
          kinds.push_back({13, 53, 37, 37, au != 0, bu != 0, az, bz, false});
  group("igemm signedness and zero points", kinds, 1);

  // Full-range extremes: pair sums past int16 (what pmaddubsw saturates).
  std::vector<Case> extremes;
  for (int au = 0; au < 2; ++au)
    for (int bu = 0; bu < 2; ++bu)
      extremes.push_back({9, 50, 64, 64, au != 0, bu != 0, 1, 2, true});
  extremes.push_back({5, 24, 1024, 1024, true, false, 0, 0, true});
  group("igemm full range", extremes, 2);

  // Shapes at every edge: K = 0 and 1, odd K, M = 1, N below a panel,
  // chunks of rows (64) and K blocks (512) crossed, a pitch past K.
  std::vector<Case> shapes = {
      {1, 1, 1, 1, true, false, 1, 1, false},       {1, 7, 0, 1, true, false, 1, 1, false},
      {3, 5, 2, 2, false, false, 1, 2, false},      {1, 768, 768, 768, true, false, 1, 2, false},
      {4, 24, 3, 3, true, true, 2, 2, false},       {8, 48, 9, 9, false, true, 1, 1, false},
      {65, 49, 129, 140, true, false, 1, 2, false}, {130, 97, 1100, 1100, true, false, 1, 2, false},
      {64, 100, 513, 513, false, false, 2, 2, false},
      {2, 200, 1025, 1030, true, false, 1, 2, false},
  };
  group("igemm shapes", shapes, 3);

  // Full-range weights are not exact as quads (a pair of -128s reaches
  // 255 * 256 past int16); 7-bit ones are; non-x86 ISAs never use quads.
  {
    const int32_t full[4] = {-128, 5, -128, 7}; // K = 2, N = 2: column 0 is -128, -128
    const int32_t seven[4] = {-64, 63, -64, -64};
    bool ok = !k::igemm_quads_exact(ONNXCC_ISA_AVX2, full, nullptr, 2, 2) &&
              k::igemm_quads_exact(ONNXCC_ISA_AVX2, seven, nullptr, 2, 2) &&
              !k::igemm_quads_exact(ONNXCC_ISA_GENERIC, seven, nullptr, 2, 2);
    std::printf("%s igemm quads exactness check\n", ok ? "PASS" : "FAIL");
    if (!ok)
      ++failures;
  }

  dqlGroup();
  q4Group();
  qdqGroup();
  qconvGroup();
  quantizeGroup();
  qdqAddGroup();

  // The wrong ISA is refused with a status, not run.
  int32_t c = 0;
  int16_t packed[64] = {};
  uint8_t a[2] = {1, 2};
  int32_t scratch[64];
  int status =
      k::igemm_packed_b(a, 1, 2, a, 0, packed, k::kIgemmPairs, &c, 1, 1, 2, scratch, 0, 1, kIsa + 1);
  std::printf("%s igemm wrong isa status %d\n", status == k::kStatusWrongIsa ? "PASS" : "FAIL",
              status);
  if (status != k::kStatusWrongIsa)
    ++failures;

  if (failures)
    return 1;
  std::printf("ALL PASSED\n");
  return 0;
}
