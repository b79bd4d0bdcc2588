// fft_test.cpp - checks fft_lines of runtime-support/onnxcc_kernels_fft.h
// against a naive double-precision DFT (angles reduced exactly, as the
// O(N^2) lowering does). Build with -DONNXCC_KERNELS_ISA=<0|1|2|3> and
// -I runtime-support; prints one PASS/FAIL line per case group and exits
// non-zero on any failure.
//
// Cases: the twiddle-matrix lengths (up to 12), direct ones (radix 4, 2, 3,
// 5, odd primes up to 61) and Bluestein ones (primes 67, 97, 127, 401, 1021,
// 4093), every mode (forward real and complex, one-sided, inverse, IRFFT),
// inputs shorter and longer than n, lines along a middle axis (strided) and
// STFT frames with a window, line counts that leave a group partly empty.
// Outputs and scratch carry sentinel guards; results must be bitwise
// identical for 1 and 3 parts. --quick skips lengths above 420.
#include "onnxcc_kernels.h"
#include "test_rng.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace k = onnxcc_rt::kernels;
static constexpr int kIsa = ONNXCC_KERNELS_ISA;

namespace {

int g_failures = 0;

constexpr int kGuard = 37;
constexpr float kSentinel = -12345.678f;

/// A buffer of n floats between sentinel guards.
struct Guarded {
  std::vector<float> mem;
  int64_t n;
  explicit Guarded(int64_t count)
      : mem(static_cast<size_t>(count + 2 * kGuard), kSentinel), n(count) {}
  float *data() { return mem.data() + kGuard; }
  bool guards_ok() const {
    for (int i = 0; i < kGuard; ++i)
      if (mem[i] != kSentinel || mem[n + kGuard + i] != kSentinel)
        return false;
    return true;
  }
};

/// One call of fft_lines: x laid out [outer][len][inner][x_c] (axis lines)
/// or as STFT frames, y [outer][y_len][inner][y_c] or [outer][frames][y_len][y_c].
struct Case {
  const char *what;
  int64_t n, outer, inner, x_len, y_len;
  int x_c;
  int32_t mode;
  bool stft = false;   // lines are frames: inner = frames, step below
  int64_t step = 0;    // STFT frame step
  bool window = false; // STFT window
};

/// The ONNX DFT of one line in double: bins k < y_len of the length-n
/// transform of v (x_len complex values; zero-padded / truncated to n), or
/// for the Hermitian mode the real signal of the spectrum bins 0..n/2.
void reference(const Case &c, const std::vector<double> &re, const std::vector<double> &im,
               std::vector<double> &outRe, std::vector<double> &outIm) {
  const int64_t n = c.n;
  // cos and sin of 2 pi a / n, a < n.
  static std::vector<double> cosT, sinT;
  if (static_cast<int64_t>(cosT.size()) != n) {
    cosT.resize(static_cast<size_t>(n));
    sinT.resize(static_cast<size_t>(n));
    for (int64_t a = 0; a < n; ++a) {
      cosT[a] = std::cos(2 * M_PI * static_cast<double>(a) / static_cast<double>(n));
      sinT[a] = std::sin(2 * M_PI * static_cast<double>(a) / static_cast<double>(n));
    }
  }
  outRe.assign(static_cast<size_t>(c.y_len), 0.0);
  outIm.assign(static_cast<size_t>(c.y_len), 0.0);
  for (int64_t kk = 0; kk < c.y_len; ++kk) {
    double sr = 0, si = 0;
    if (c.mode == k::kFftInverseHermitian) {
      for (int64_t bin = 0; bin < n; ++bin) {
        const bool direct = 2 * bin <= n;
        const int64_t j = direct ? bin : n - bin;
        if (j >= c.x_len)
          continue;
        double xr = re[j], xi = direct ? im[j] : -im[j];
        const size_t a = static_cast<size_t>((bin * kk) % n);
        sr += xr * cosT[a] - xi * sinT[a];
      }
      outRe[kk] = sr / static_cast<double>(n);
      continue;
    }
    const double sign = c.mode == k::kFftInverse ? 1.0 : -1.0;
    for (int64_t j = 0; j < std::min(c.x_len, n); ++j) {
      const size_t a = static_cast<size_t>((j * kk) % n);
      const double cs = cosT[a], sn = sign * sinT[a];
      sr += re[j] * cs - im[j] * sn;
      si += re[j] * sn + im[j] * cs;
    }
    const double scale = c.mode == k::kFftInverse ? 1.0 / static_cast<double>(n) : 1.0;
    outRe[kk] = sr * scale;
    outIm[kk] = si * scale;
  }
}

/// Runs `c` with `parts` parts; returns y.
std::vector<float> run(const Case &c, const std::vector<float> &x, const std::vector<float> &win,
                       int64_t parts, bool &guards) {
  const int y_c = c.mode == k::kFftInverseHermitian ? 1 : 2;
  const int64_t planLen = k::fft_plan_length(c.n);
  std::vector<float> plan(static_cast<size_t>(k::fft_plan_floats(c.n, planLen)));
  std::vector<double> work(static_cast<size_t>(k::fft_plan_work_doubles(c.n, planLen)));
  k::fft_plan(c.n, planLen, plan.data(), work.data());
  const int64_t ySize = c.outer * c.inner * c.y_len * y_c;
  Guarded y(ySize), scratch(k::fft_scratch_floats(kIsa, planLen) * parts);
  int64_t xs_outer, xs_inner, xs_elem, ys_outer, ys_inner, ys_elem;
  if (c.stft) {
    const int64_t length = static_cast<int64_t>(x.size()) / (c.outer * c.x_c);
    xs_outer = length * c.x_c;
    xs_inner = c.step * c.x_c;
    xs_elem = c.x_c;
    ys_outer = c.inner * c.y_len * y_c;
    ys_inner = c.y_len * y_c;
    ys_elem = y_c;
  } else {
    xs_outer = c.x_len * c.inner * c.x_c;
    xs_inner = c.x_c;
    xs_elem = c.inner * c.x_c;
    ys_outer = c.y_len * c.inner * y_c;
    ys_inner = y_c;
    ys_elem = c.inner * y_c;
  }
  // (The kernel reads at most n elements of a line, or bins up to n/2.)
  const int64_t xLen = c.mode == k::kFftInverseHermitian ? c.x_len : std::min(c.x_len, c.n);
  guards = true;
  for (int64_t p = 0; p < parts; ++p) {
    int status = k::fft_lines(x.data(), win.data(), c.window ? 1 : 0, y.data(), plan.data(),
                              scratch.data(), c.outer, c.inner, xs_outer, xs_inner, xs_elem, xLen,
                              c.x_c, ys_outer, ys_inner, ys_elem, c.y_len, y_c, c.n, planLen,
                              c.mode, kIsa, p, parts);
    if (status != 0) {
      std::printf("  %s n=%lld: status %d\n", c.what, static_cast<long long>(c.n), status);
      guards = false;
    }
  }
  guards = guards && y.guards_ok() && scratch.guards_ok();
  return std::vector<float>(y.data(), y.data() + ySize);
}

/// Checks case `c`; returns the error relative to max |reference|.
double check(const Case &c, double tol, bool &ok) {
  Rng rng(static_cast<uint64_t>(c.n * 131 + c.outer * 7 + c.inner + c.mode * 1000 + c.x_c));
  int64_t length = c.x_len;
  if (c.stft)
    length = (c.inner - 1) * c.step + c.x_len + 3;
  std::vector<float> x(static_cast<size_t>(c.outer * length * (c.stft ? 1 : c.inner) * c.x_c));
  for (float &v : x)
    v = rng.uniform();
  std::vector<float> win(static_cast<size_t>(std::max<int64_t>(c.x_len, 1)));
  for (size_t i = 0; i < win.size(); ++i)
    win[i] = c.window ? static_cast<float>(0.5 - 0.5 * std::cos(2 * M_PI * i / win.size())) : 0.f;
  bool guards1 = false, guards3 = false;
  std::vector<float> y1 = run(c, x, win, 1, guards1);
  std::vector<float> y3 = run(c, x, win, 3, guards3);
  const int y_c = c.mode == k::kFftInverseHermitian ? 1 : 2;
  double maxRef = 0, maxErr = 0;
  std::vector<double> re(static_cast<size_t>(c.x_len)), im(static_cast<size_t>(c.x_len));
  std::vector<double> outRe, outIm;
  for (int64_t o = 0; o < c.outer; ++o)
    for (int64_t i = 0; i < c.inner; ++i) {
      for (int64_t j = 0; j < c.x_len; ++j) {
        size_t at = c.stft ? static_cast<size_t>((o * length + i * c.step + j) * c.x_c)
                           : static_cast<size_t>(((o * c.x_len + j) * c.inner + i) * c.x_c);
        const double w = c.window ? win[j] : 1.0;
        re[j] = x[at] * w;
        im[j] = c.x_c == 2 ? x[at + 1] * w : 0.0;
      }
      reference(c, re, im, outRe, outIm);
      for (int64_t kk = 0; kk < c.y_len; ++kk) {
        size_t at = c.stft ? static_cast<size_t>(((o * c.inner + i) * c.y_len + kk) * y_c)
                           : static_cast<size_t>(((o * c.y_len + kk) * c.inner + i) * y_c);
        maxRef = std::max({maxRef, std::fabs(outRe[kk]), std::fabs(outIm[kk])});
        maxErr = std::max(maxErr, std::fabs(y1[at] - outRe[kk]));
        if (y_c == 2)
          maxErr = std::max(maxErr, std::fabs(y1[at + 1] - outIm[kk]));
      }
    }
  const double rel = maxErr / std::max(maxRef, 1e-30);
  const bool same = std::memcmp(y1.data(), y3.data(), y1.size() * sizeof(float)) == 0;
  if (!(rel <= tol) || !guards1 || !guards3 || !same) {
    std::printf("  %s n=%lld outer=%lld inner=%lld: rel error %.3g (tol %.1g)%s%s\n", c.what,
                static_cast<long long>(c.n), static_cast<long long>(c.outer),
                static_cast<long long>(c.inner), rel, tol,
                guards1 && guards3 ? "" : ", guards or status broken",
                same ? "" : ", parts 1 and 3 differ");
    ok = false;
  }
  return rel;
}

void group(const char *name, const std::vector<int64_t> &lengths, double tol) {
  bool ok = true;
  double worst = 0;
  for (int64_t n : lengths) {
    const int64_t half = n / 2 + 1;
    Case cases[] = {
        {"complex", n, 3, 1, n, n, 2, k::kFftForward},
        {"real", n, 2, 1, n, n, 1, k::kFftForward},
        {"rfft", n, 1, 21, n, half, 1, k::kFftForward},
        {"inverse", n, 2, 5, n, n, 2, k::kFftInverse},
        {"inverse real", n, 1, 3, n, n, 1, k::kFftInverse},
        {"irfft", n, 4, 5, half, n, 2, k::kFftInverseHermitian},
        {"irfft real bins", n, 1, 2, half, n, 1, k::kFftInverseHermitian},
        {"irfft short", n, 2, 1, std::max<int64_t>(half - 2, 1), n, 2, k::kFftInverseHermitian},
        {"irfft long", n, 1, 2, n, n, 2, k::kFftInverseHermitian},
        {"padded", n, 2, 3, std::max<int64_t>(n / 3, 1), n, 2, k::kFftForward},
        {"truncated", n, 1, 4, n + 5, n, 2, k::kFftForward},
        {"stft", n, 2, 9, n, half, 1, k::kFftForward, true, std::max<int64_t>(n / 3, 1), true},
        {"stft complex", n, 1, 5, n, n, 2, k::kFftForward, true, std::max<int64_t>(n / 2, 1),
         true},
    };
    for (Case &c : cases) {
      // Long lines: few of them (the reference is O(n^2) per line); the
      // short ones cover partial and several groups.
      if (n > 256) {
        c.outer = 1;
        c.inner = std::min<int64_t>(c.inner, n > 1100 ? 2 : 3);
      }
      worst = std::max(worst, check(c, tol, ok));
    }
  }
  std::printf("%s %s (worst rel error %.2g)\n", ok ? "PASS" : "FAIL", name, worst);
  if (!ok)
    ++g_failures;
}

/// Plans: direct for smooth lengths, Bluestein above the odd-radix limit.
void test_plans() {
  bool ok = k::fft_plan_length(400) == 400 && k::fft_plan_length(1024) == 1024 &&
            k::fft_plan_length(7 * 11 * 13) == 7 * 11 * 13 && k::fft_plan_length(0) == 0 &&
            k::fft_plan_length(k::kFftMaxLength + 1) == 0;
  for (int64_t n : {67, 401, 1021, 4093}) {
    int64_t m = k::fft_plan_length(n);
    ok = ok && m >= 2 * n - 1 && onnxcc_rt::kernels::detail::fft_factors(m).count > 0;
    for (int64_t f = m; f > 1;) {
      int64_t p = f % 4 == 0 ? 4 : f % 2 == 0 ? 2 : f % 3 == 0 ? 3 : f % 5 == 0 ? 5 : 0;
      if (!p) {
        ok = false;
        break;
      }
      f /= p;
    }
  }
  std::printf("%s plans\n", ok ? "PASS" : "FAIL");
  if (!ok)
    ++g_failures;
}

} // namespace

int main(int argc, char **argv) {
  // --quick (emulated and sanitized runs): lengths up to 420.
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::printf("ISA %d (vector width %d)\n", kIsa, k::vec_width(kIsa));
  test_plans();
  group("small lengths",
        {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 20, 22, 25, 26, 27, 32, 39},
        1e-6);
  group("mixed radix", {49, 60, 64, 100, 121, 128, 210, 256, 400, 420}, 1e-6);
  group("odd primes", {17, 31, 37, 61, 59 * 2, 61 * 3}, 1e-6);
  group("bluestein", {67, 97, 127, 401}, 1e-6);
  if (!quick)
    group("large", {512, 1000, 1021, 1024, 2048, 4096, 4093, 3 * 5 * 7 * 4 * 9}, 1e-6);
  std::printf("%s: %d group(s) failed\n", g_failures ? "FAILED" : "ALL PASSED", g_failures);
  return g_failures ? 1 : 0;
}
