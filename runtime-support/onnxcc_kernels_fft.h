// onnxcc_kernels_fft.h - fast Fourier transforms for DFT and STFT: batched
// mixed-radix Stockham FFTs (radix 4, 2, 3, 5 and odd primes up to 61) and
// Bluestein's chirp-z transform for lengths with larger prime factors.
// Included at the end of onnxcc_kernels.h (it uses its Vec); the plan
// functions are plain portable C++ the compiler calls to compute the
// twiddles at compile time, in double precision.
//
// Scheme:
//  - fft_lines transforms many lines (the DFT axis of every other index, or
//    the frames of an STFT) described by strides, so that any axis works
//    and STFT's framing and window multiply happen while a line is copied in.
//  - Lines are batched across SIMD lanes: a group of W lines (W = the
//    vector width) is copied into scratch as split-complex vectors, element
//    j being W real parts then W imaginary parts. Every butterfly then is
//    plain vector arithmetic on W lines at once, for any radix and any stage,
//    with no shuffles; twiddles are broadcast scalars.
//  - Real input (forward or inverse) packs two lines into one complex line,
//    z = a + i b, and separates their spectra afterwards:
//    A[k] = (Z[k] + conj Z[n-k]) / 2, B[k] = (Z[k] - conj Z[n-k]) / 2i; an
//    inverse transform to a real signal (IRFFT) packs the two spectra the
//    same way, its real and imaginary outputs being the two signals. A group
//    then holds 2W lines.
//  - Inverse transforms are forward ones on conjugates:
//    ifft(v) = conj(fft(conj v)) / n.
//  - Stages: Stockham autosort, decimation in frequency. A stage of radix p
//    over sub-transforms of length nn (stride s, m = nn / p) reads
//    a_r = x[q + s (j + r m)], computes the p-point DFT b_t, and writes
//    b_t w_nn^(j t) to y[q + s (p j + t)]; the next stage has nn = m and
//    stride s p; the output comes out in natural order.
//  - Lengths up to 12 are a product with the matrix of twiddles instead
//    (kFftMatrixMaxLength).
//  - Bluestein (n with a prime factor above 61, where it is cheaper): with
//    w_j = e^(-i pi j^2 / n), X[k] = w_k sum_j (x_j w_j) conj(w_(k-j)), a
//    circular convolution of length M >= 2n - 1 (M 5-smooth) through two
//    M-point FFTs; the FFT of the conj(w) sequence (divided by M) is part of
//    the plan.
//  - Plans: twiddles, chirps and the chirp spectrum are computed in double
//    (angles reduced to [0, 2 pi) with exact integer arithmetic first) and
//    rounded to float once: the compiler stores them as a constant blob.
//    float32 results stay within 3e-7 of max |X| of a double-precision DFT
//    for every length class up to 4096, Bluestein included
//    (test/runtime/fft_test.cpp checks 1e-6).
//  - Copies: contiguous lines move in and out a W x W block at a time
//    through a register transpose; strided ones element by element.
// Work split: part `part` of `parts` takes a fixed range of line groups;
// groups do not depend on `parts` and lanes never mix, so results are bitwise
// identical for any split.
#ifndef ONNXCC_KERNELS_FFT_H
#define ONNXCC_KERNELS_FFT_H

#include "onnxcc_kernels.h"

namespace onnxcc_rt {
namespace kernels {

/// Modes of fft_lines: a forward transform, an inverse one (scaled by 1/n),
/// and an inverse one whose input holds bins 0..n/2 of a Hermitian spectrum
/// and whose output is real (IRFFT).
constexpr int32_t kFftForward = 0;
constexpr int32_t kFftInverse = 1;
constexpr int32_t kFftInverseHermitian = 2;

/// Longest transform the kernels take (a Bluestein convolution stays below
/// 2^26 elements, so j * j and every twiddle index fit int64 exactly).
constexpr int64_t kFftMaxLength = int64_t(1) << 24;
/// Lengths up to this are a product with the n x n matrix of twiddles
/// instead of stages. Like the O(N^2) definition its sums are exactly
/// symmetric: the Nyquist bin of a real signal given as complex,
/// sum x_j (-1)^j, comes out real to ~1e-16 where stages leave an imaginary
/// part of ~eps |X| (ONNX's DFT tests, n = 10, want 1e-7 absolute there).
/// It costs at most ~1.4x the stages up to 12 (4 n^2 multiply-adds per
/// group), ~3x at 16.
constexpr int64_t kFftMatrixMaxLength = 12;

namespace detail {

constexpr int kFftMaxStages = 64;
/// Odd primes up to this are stages of their own (about 2p operations per
/// element); a length with a larger prime factor goes through Bluestein.
constexpr int64_t kFftMaxOddRadix = 61;

struct FftFactors {
  int count = 0;    ///< stages; -1 when a prime factor exceeds kFftMaxOddRadix
  int64_t radix[kFftMaxStages] = {};
};

/// The stages of a length-n transform: radix 4 as often as it goes, one
/// radix 2 where needed, then the odd primes in increasing order.
inline FftFactors fft_factors(int64_t n) {
  FftFactors f;
  if (n < 1)
    return f.count = -1, f;
  while (n % 4 == 0 && f.count < kFftMaxStages) {
    f.radix[f.count++] = 4;
    n /= 4;
  }
  if (n % 2 == 0) {
    f.radix[f.count++] = 2;
    n /= 2;
  }
  for (int64_t p = 3; n > 1; p += 2) {
    if (p > kFftMaxOddRadix)
      return f.count = -1, f;
    while (n % p == 0 && f.count < kFftMaxStages) {
      f.radix[f.count++] = p;
      n /= p;
    }
  }
  return f;
}

/// Relative cost of a stage of radix p per element (vector operations and
/// the element's load and store), for choosing between plans.
inline double fft_radix_cost(int64_t p) {
  switch (p) {
  case 2:
    return 9;
  case 3:
    return 12;
  case 4:
    return 13;
  case 5:
    return 17;
  default:
    return 2.0 * static_cast<double>(p) + 8;
  }
}

/// Cost of a direct (mixed-radix) transform of length n; negative when n has
/// a prime factor no stage takes.
inline double fft_direct_cost(int64_t n) {
  FftFactors f = fft_factors(n);
  if (f.count < 0)
    return -1;
  double c = 0;
  for (int i = 0; i < f.count; ++i)
    c += fft_radix_cost(f.radix[i]);
  return c * static_cast<double>(n);
}

/// The cheapest 5-smooth convolution length M >= 2n - 1 of Bluestein's
/// algorithm (a power of two is always a candidate).
inline int64_t fft_bluestein_length(int64_t n) {
  const int64_t lo = 2 * n - 1;
  int64_t hi = 1;
  while (hi < lo)
    hi *= 2;
  int64_t best = hi;
  double bestCost = fft_direct_cost(hi);
  for (int64_t a = 1; a <= hi; a *= 2)
    for (int64_t b = a; b <= hi; b *= 3)
      for (int64_t c = b; c <= hi; c *= 5)
        if (c >= lo) {
          double cost = fft_direct_cost(c);
          if (cost < bestCost || (cost == bestCost && c < best)) {
            best = c;
            bestCost = cost;
          }
          break; // larger multiples of 5 only cost more
        }
  return best;
}

inline double fft_bluestein_cost(int64_t n, int64_t m) {
  return 2 * fft_direct_cost(m) + 8 * static_cast<double>(m) + 16 * static_cast<double>(n);
}

/// e^(-2 pi i num / den) for 0 <= num < den, in double.
inline void fft_unit(int64_t num, int64_t den, double &re, double &im) {
  const double angle = -2.0 * 3.14159265358979323846 * static_cast<double>(num) /
                       static_cast<double>(den);
  re = std::cos(angle);
  im = std::sin(angle);
}

/// Floats of the stage twiddles of a direct length-n plan.
inline int64_t fft_stage_floats(int64_t n) {
  FftFactors f = fft_factors(n);
  int64_t total = 0, nn = n;
  for (int i = 0; i < f.count; ++i) {
    const int64_t p = f.radix[i], m = nn / p;
    total += 2 * m * (p - 1);
    if (p > 5)
      total += 2 * ((p - 1) / 2) * ((p - 1) / 2);
    nn = m;
  }
  return total;
}

/// Writes the stage twiddles of a direct length-n plan: per stage,
/// w_nn^(j t) for j < m, 1 <= t < p as (re, im) pairs, and for odd primes
/// above 5 the tables cos(2 pi r t / p), then sin(2 pi r t / p), for
/// 1 <= t, r <= (p - 1) / 2. Returns the end of what it wrote.
inline float *fft_write_stages(int64_t n, float *out) {
  FftFactors f = fft_factors(n);
  int64_t nn = n;
  for (int i = 0; i < f.count; ++i) {
    const int64_t p = f.radix[i], m = nn / p;
    for (int64_t j = 0; j < m; ++j)
      for (int64_t t = 1; t < p; ++t) {
        double re, im;
        fft_unit((j * t) % nn, nn, re, im);
        *out++ = static_cast<float>(re);
        *out++ = static_cast<float>(im);
      }
    if (p > 5) {
      const int64_t h = (p - 1) / 2;
      for (int part = 0; part < 2; ++part)
        for (int64_t t = 1; t <= h; ++t)
          for (int64_t r = 1; r <= h; ++r) {
            double re, im;
            fft_unit((r * t) % p, p, re, im);
            // (fft_unit's imaginary part is -sin.)
            *out++ = static_cast<float>(part == 0 ? re : -im);
          }
    }
    nn = m;
  }
  return out;
}

/// In-place double-precision forward DFT of length n (5-smooth or with small
/// odd primes), the same Stockham stages as the kernels with twiddles
/// computed exactly; `wre`, `wim` are n doubles of work each. For the
/// compiler (Bluestein's chirp spectrum): O(n * sum of radices).
inline void fft_double(int64_t n, double *re, double *im, double *wre, double *wim) {
  FftFactors f = fft_factors(n);
  double *ar = re, *ai = im, *br = wre, *bi = wim;
  int64_t nn = n, s = 1;
  for (int st = 0; st < f.count; ++st) {
    const int64_t p = f.radix[st], m = nn / p;
    double cr[kFftMaxOddRadix + 1], ci[kFftMaxOddRadix + 1];
    for (int64_t k = 0; k < p; ++k)
      fft_unit(k, p, cr[k], ci[k]);
    double tr[kFftMaxOddRadix + 1], ti[kFftMaxOddRadix + 1];
    for (int64_t j = 0; j < m; ++j) {
      for (int64_t t = 0; t < p; ++t)
        fft_unit((j * t) % nn, nn, tr[t], ti[t]);
      for (int64_t q = 0; q < s; ++q)
        for (int64_t t = 0; t < p; ++t) {
          double sr = 0, si = 0;
          for (int64_t r = 0; r < p; ++r) {
            const int64_t e = q + s * (j + r * m), k = (r * t) % p;
            sr += ar[e] * cr[k] - ai[e] * ci[k];
            si += ar[e] * ci[k] + ai[e] * cr[k];
          }
          const int64_t o = q + s * (p * j + t);
          br[o] = sr * tr[t] - si * ti[t];
          bi[o] = sr * ti[t] + si * tr[t];
        }
    }
    std::swap(ar, br);
    std::swap(ai, bi);
    nn = m;
    s *= p;
  }
  if (ar != re) {
    std::copy(ar, ar + n, re);
    std::copy(ai, ai + n, im);
  }
}

} // namespace detail

/// The length the stages of a length-n transform run at: n itself (direct)
/// or Bluestein's convolution length, whichever is cheaper; 0 when n is
/// outside [1, kFftMaxLength].
inline int64_t fft_plan_length(int64_t n) {
  if (n < 1 || n > kFftMaxLength)
    return 0;
  const double direct = detail::fft_direct_cost(n);
  const int64_t m = detail::fft_bluestein_length(n);
  if (direct >= 0 && direct <= detail::fft_bluestein_cost(n, m))
    return n;
  return m;
}

/// Floats of the plan of a length-n transform whose stages run at
/// `plan_len` (fft_plan_length(n)).
inline int64_t fft_plan_floats(int64_t n, int64_t plan_len) {
  if (n <= kFftMatrixMaxLength)
    return 2 * n * n;
  int64_t total = detail::fft_stage_floats(plan_len);
  if (plan_len != n)
    total += 2 * n + 2 * plan_len; // chirp, chirp spectrum
  return total;
}

/// Doubles of work fft_plan needs.
inline int64_t fft_plan_work_doubles(int64_t n, int64_t plan_len) {
  return plan_len != n ? 4 * plan_len : 0;
}

/// Writes the plan (fft_plan_floats floats): for lengths up to
/// kFftMatrixMaxLength the matrix e^(-2 pi i j k / n), row k, as (re, im)
/// pairs; else for Bluestein the chirp
/// w_j = e^(-i pi j^2 / n) (j < n) and the spectrum of conj(w) laid out
/// circularly over plan_len elements, divided by plan_len, as (re, im)
/// pairs; then the stage twiddles.
inline void fft_plan(int64_t n, int64_t plan_len, float *out, double *work) {
  if (n <= kFftMatrixMaxLength) {
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j) {
        double re, im;
        detail::fft_unit((j * k) % n, n, re, im);
        out[2 * (k * n + j)] = static_cast<float>(re);
        out[2 * (k * n + j) + 1] = static_cast<float>(im);
      }
    return;
  }
  if (plan_len != n) {
    const int64_t m = plan_len;
    for (int64_t j = 0; j < n; ++j) {
      double re, im;
      detail::fft_unit((j * j) % (2 * n), 2 * n, re, im);
      out[2 * j] = static_cast<float>(re);
      out[2 * j + 1] = static_cast<float>(im);
    }
    double *br = work, *bi = work + m, *wr = work + 2 * m, *wi = work + 3 * m;
    std::fill(br, br + m, 0.0);
    std::fill(bi, bi + m, 0.0);
    for (int64_t j = 0; j < n; ++j) {
      double re, im;
      detail::fft_unit((j * j) % (2 * n), 2 * n, re, im);
      br[j] = re;
      bi[j] = -im;
      if (j > 0) {
        br[m - j] = re;
        bi[m - j] = -im;
      }
    }
    detail::fft_double(m, br, bi, wr, wi);
    float *spectrum = out + 2 * n;
    const double scale = 1.0 / static_cast<double>(m);
    for (int64_t k = 0; k < m; ++k) {
      spectrum[2 * k] = static_cast<float>(br[k] * scale);
      spectrum[2 * k + 1] = static_cast<float>(bi[k] * scale);
    }
    out += 2 * n + 2 * m;
  }
  detail::fft_write_stages(plan_len, out);
}

/// Scratch floats per part of fft_lines: two split-complex buffers of
/// plan_len elements of W lanes.
inline int64_t fft_scratch_floats(int isa, int64_t plan_len) {
  return 4 * plan_len * vec_width(isa);
}

//===----------------------------------------------------------------------===//
// Run-time kernel (SIMD; its own target pragma region).
//===----------------------------------------------------------------------===//

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
#define ONNXCC_FFT_TARGET "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2,f16c"
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
#define ONNXCC_FFT_TARGET "avx2,fma,bmi,bmi2,f16c"
#endif

#ifdef ONNXCC_FFT_TARGET
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(ONNXCC_FFT_TARGET))), apply_to = function)
#else
#pragma GCC push_options
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2,f16c")
#else
#pragma GCC target("avx2,fma,bmi,bmi2,f16c")
#endif
#endif
#endif

namespace detail {

/// The p-point DFT of a[0..p) in place (re, im), for the small radices.
template <int P> struct FftButterfly;

template <> struct FftButterfly<2> {
  static void run(VT *re, VT *im) {
    VT r = Vec::sub(re[0], re[1]), i = Vec::sub(im[0], im[1]);
    re[0] = Vec::add(re[0], re[1]);
    im[0] = Vec::add(im[0], im[1]);
    re[1] = r;
    im[1] = i;
  }
};

template <> struct FftButterfly<4> {
  static void run(VT *re, VT *im) {
    // b1 = (a0 - a2) - i (a1 - a3), b3 = (a0 - a2) + i (a1 - a3).
    VT t0r = Vec::add(re[0], re[2]), t0i = Vec::add(im[0], im[2]);
    VT t1r = Vec::sub(re[0], re[2]), t1i = Vec::sub(im[0], im[2]);
    VT t2r = Vec::add(re[1], re[3]), t2i = Vec::add(im[1], im[3]);
    VT t3r = Vec::sub(re[1], re[3]), t3i = Vec::sub(im[1], im[3]);
    re[0] = Vec::add(t0r, t2r);
    im[0] = Vec::add(t0i, t2i);
    re[2] = Vec::sub(t0r, t2r);
    im[2] = Vec::sub(t0i, t2i);
    re[1] = Vec::add(t1r, t3i);
    im[1] = Vec::sub(t1i, t3r);
    re[3] = Vec::sub(t1r, t3i);
    im[3] = Vec::add(t1i, t3r);
  }
};

template <> struct FftButterfly<3> {
  static void run(VT *re, VT *im) {
    // b1,2 = a0 - (a1 + a2) / 2 -+ i sin(2 pi / 3) (a1 - a2).
    const VT half = Vec::set1(0.5f), s60 = Vec::set1(0.866025403784438646763723170752936183f);
    VT sr = Vec::add(re[1], re[2]), si = Vec::add(im[1], im[2]);
    VT dr = Vec::mul(s60, Vec::sub(re[1], re[2])), di = Vec::mul(s60, Vec::sub(im[1], im[2]));
    VT mr = Vec::fnma(half, sr, re[0]), mi = Vec::fnma(half, si, im[0]);
    re[0] = Vec::add(re[0], sr);
    im[0] = Vec::add(im[0], si);
    re[1] = Vec::add(mr, di);
    im[1] = Vec::sub(mi, dr);
    re[2] = Vec::sub(mr, di);
    im[2] = Vec::add(mi, dr);
  }
};

template <> struct FftButterfly<5> {
  static void run(VT *re, VT *im) {
    const VT c1 = Vec::set1(0.309016994374947424102293417182819059f);  // cos(2 pi / 5)
    const VT c2 = Vec::set1(-0.809016994374947424102293417182819059f); // cos(4 pi / 5)
    const VT s1 = Vec::set1(0.951056516295153572116439333379382143f);  // sin(2 pi / 5)
    const VT s2 = Vec::set1(0.587785252292473129168705954639072769f);  // sin(4 pi / 5)
    VT p1r = Vec::add(re[1], re[4]), p1i = Vec::add(im[1], im[4]);
    VT d1r = Vec::sub(re[1], re[4]), d1i = Vec::sub(im[1], im[4]);
    VT p2r = Vec::add(re[2], re[3]), p2i = Vec::add(im[2], im[3]);
    VT d2r = Vec::sub(re[2], re[3]), d2i = Vec::sub(im[2], im[3]);
    // A1 = a0 + c1 p1 + c2 p2, B1 = s1 d1 + s2 d2 (b1 = A1 - i B1, b4 = A1 + i B1);
    // A2 = a0 + c2 p1 + c1 p2, B2 = s2 d1 - s1 d2 (b2 = A2 - i B2, b3 = A2 + i B2).
    VT a1r = Vec::fma(c2, p2r, Vec::fma(c1, p1r, re[0]));
    VT a1i = Vec::fma(c2, p2i, Vec::fma(c1, p1i, im[0]));
    VT a2r = Vec::fma(c1, p2r, Vec::fma(c2, p1r, re[0]));
    VT a2i = Vec::fma(c1, p2i, Vec::fma(c2, p1i, im[0]));
    VT b1r = Vec::fma(s2, d2r, Vec::mul(s1, d1r)), b1i = Vec::fma(s2, d2i, Vec::mul(s1, d1i));
    VT b2r = Vec::fnma(s1, d2r, Vec::mul(s2, d1r)), b2i = Vec::fnma(s1, d2i, Vec::mul(s2, d1i));
    re[0] = Vec::add(re[0], Vec::add(p1r, p2r));
    im[0] = Vec::add(im[0], Vec::add(p1i, p2i));
    // -i B = (B.im, -B.re).
    re[1] = Vec::add(a1r, b1i);
    im[1] = Vec::sub(a1i, b1r);
    re[4] = Vec::sub(a1r, b1i);
    im[4] = Vec::add(a1i, b1r);
    re[2] = Vec::add(a2r, b2i);
    im[2] = Vec::sub(a2i, b2r);
    re[3] = Vec::sub(a2r, b2i);
    im[3] = Vec::add(a2i, b2r);
  }
};

/// One Stockham stage of radix P (2, 3, 4, 5) for j in [j0, j1): see the
/// file comment. Elements are 2W floats apart; twiddles (re, im) per (j, t).
template <int P>
inline void fft_stage(const float *in, float *out, int64_t m, int64_t s, const float *tw) {
  constexpr int W = Vec::W;
  constexpr int64_t E = 2 * W;
  const int64_t far = s * m * E;
  // j = 0: all twiddles are 1.
  for (int64_t q = 0; q < s; ++q) {
    VT re[P], im[P];
    const float *src = in + q * E;
    for (int r = 0; r < P; ++r) {
      re[r] = Vec::load(src + r * far);
      im[r] = Vec::load(src + r * far + W);
    }
    FftButterfly<P>::run(re, im);
    float *dst = out + q * E;
    for (int t = 0; t < P; ++t) {
      Vec::store(dst + t * s * E, re[t]);
      Vec::store(dst + t * s * E + W, im[t]);
    }
  }
  for (int64_t j = 1; j < m; ++j) {
    VT wr[P - 1], wi[P - 1];
    const float *w = tw + 2 * (P - 1) * j;
    for (int t = 0; t < P - 1; ++t) {
      wr[t] = Vec::set1(w[2 * t]);
      wi[t] = Vec::set1(w[2 * t + 1]);
    }
    for (int64_t q = 0; q < s; ++q) {
      VT re[P], im[P];
      const float *src = in + (q + s * j) * E;
      for (int r = 0; r < P; ++r) {
        re[r] = Vec::load(src + r * far);
        im[r] = Vec::load(src + r * far + W);
      }
      FftButterfly<P>::run(re, im);
      float *dst = out + (q + s * P * j) * E;
      Vec::store(dst, re[0]);
      Vec::store(dst + W, im[0]);
      for (int t = 1; t < P; ++t) {
        VT r = Vec::fnma(im[t], wi[t - 1], Vec::mul(re[t], wr[t - 1]));
        VT i = Vec::fma(im[t], wr[t - 1], Vec::mul(re[t], wi[t - 1]));
        Vec::store(dst + t * s * E, r);
        Vec::store(dst + t * s * E + W, i);
      }
    }
  }
}

/// A Stockham stage of odd prime radix p > 5: the symmetric form
/// b_t, b_(p-t) = a0 + sum_r cos(2 pi r t / p) (a_r + a_(p-r))
///                 -+ i sum_r sin(2 pi r t / p) (a_r - a_(p-r)).
inline void fft_stage_odd(const float *in, float *out, int64_t p, int64_t m, int64_t s,
                          const float *tw, const float *cosTable, const float *sinTable) {
  constexpr int W = Vec::W;
  constexpr int64_t E = 2 * W;
  const int64_t far = s * m * E, h = (p - 1) / 2;
  VT sr[kFftMaxOddRadix / 2 + 1], si[kFftMaxOddRadix / 2 + 1];
  VT dr[kFftMaxOddRadix / 2 + 1], di[kFftMaxOddRadix / 2 + 1];
  for (int64_t j = 0; j < m; ++j) {
    const float *w = tw + 2 * (p - 1) * j;
    for (int64_t q = 0; q < s; ++q) {
      const float *src = in + (q + s * j) * E;
      VT a0r = Vec::load(src), a0i = Vec::load(src + W);
      VT b0r = a0r, b0i = a0i;
      for (int64_t r = 1; r <= h; ++r) {
        VT xr = Vec::load(src + r * far), xi = Vec::load(src + r * far + W);
        VT yr = Vec::load(src + (p - r) * far), yi = Vec::load(src + (p - r) * far + W);
        sr[r] = Vec::add(xr, yr);
        si[r] = Vec::add(xi, yi);
        dr[r] = Vec::sub(xr, yr);
        di[r] = Vec::sub(xi, yi);
        b0r = Vec::add(b0r, sr[r]);
        b0i = Vec::add(b0i, si[r]);
      }
      float *dst = out + (q + s * p * j) * E;
      Vec::store(dst, b0r);
      Vec::store(dst + W, b0i);
      for (int64_t t = 1; t <= h; ++t) {
        VT ar = a0r, ai = a0i, br = Vec::zero(), bi = Vec::zero();
        for (int64_t r = 1; r <= h; ++r) {
          const VT c = Vec::set1(cosTable[(t - 1) * h + r - 1]);
          const VT sn = Vec::set1(sinTable[(t - 1) * h + r - 1]);
          ar = Vec::fma(c, sr[r], ar);
          ai = Vec::fma(c, si[r], ai);
          br = Vec::fma(sn, dr[r], br);
          bi = Vec::fma(sn, di[r], bi);
        }
        // b_t = A - i B, b_(p-t) = A + i B; then the twiddles.
        const int64_t tt[2] = {t, p - t};
        const VT outR[2] = {Vec::add(ar, bi), Vec::sub(ar, bi)};
        const VT outI[2] = {Vec::sub(ai, br), Vec::add(ai, br)};
        for (int k = 0; k < 2; ++k) {
          const VT c = Vec::set1(w[2 * (tt[k] - 1)]), sn = Vec::set1(w[2 * (tt[k] - 1) + 1]);
          VT r = Vec::fnma(outI[k], sn, Vec::mul(outR[k], c));
          VT i = Vec::fma(outI[k], c, Vec::mul(outR[k], sn));
          Vec::store(dst + tt[k] * s * E, r);
          Vec::store(dst + tt[k] * s * E + W, i);
        }
      }
    }
  }
}

/// Runs the stages of a direct length-n FFT on buffer `a` (b: the other
/// buffer); returns the buffer holding the result. `tw` advances past the
/// stage twiddles.
inline float *fft_run_stages(float *a, float *b, int64_t n, const FftFactors &f,
                             const float *tw) {
  int64_t nn = n, s = 1;
  for (int st = 0; st < f.count; ++st) {
    const int64_t p = f.radix[st], m = nn / p;
    switch (p) {
    case 2:
      fft_stage<2>(a, b, m, s, tw);
      break;
    case 3:
      fft_stage<3>(a, b, m, s, tw);
      break;
    case 4:
      fft_stage<4>(a, b, m, s, tw);
      break;
    case 5:
      fft_stage<5>(a, b, m, s, tw);
      break;
    default: {
      const int64_t h = (p - 1) / 2;
      const float *cosTable = tw + 2 * m * (p - 1);
      fft_stage_odd(a, b, p, m, s, tw, cosTable, cosTable + h * h);
      tw += 2 * h * h;
      break;
    }
    }
    tw += 2 * m * (p - 1);
    std::swap(a, b);
    nn = m;
    s *= p;
  }
  return a;
}

/// Transposes the W x W block v (lane j of v[i] <-> lane i of v[j]).
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
inline void fft_transpose8(__m256 *r) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x20);
    r[4 + i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x31);
  }
}
#endif

inline void fft_transpose(VT *v) {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  // Four 8 x 8 blocks: rows 0-7 / 8-15 by columns 0-7 / 8-15. (The maskz
  // forms: see Vec::max.)
  __m256 q[4][8];
  for (int i = 0; i < 8; ++i) {
    q[0][i] = _mm512_maskz_extractf32x8_ps(0xff, v[i], 0);
    q[1][i] = _mm512_maskz_extractf32x8_ps(0xff, v[i], 1);
    q[2][i] = _mm512_maskz_extractf32x8_ps(0xff, v[8 + i], 0);
    q[3][i] = _mm512_maskz_extractf32x8_ps(0xff, v[8 + i], 1);
  }
  for (int blk = 0; blk < 4; ++blk)
    fft_transpose8(q[blk]);
  const __m512 zero = _mm512_setzero_ps();
  for (int i = 0; i < 8; ++i) {
    v[i] = _mm512_maskz_insertf32x8(0xffff, _mm512_maskz_insertf32x8(0xffff, zero, q[0][i], 0),
                                    q[2][i], 1);
    v[8 + i] = _mm512_maskz_insertf32x8(
        0xffff, _mm512_maskz_insertf32x8(0xffff, zero, q[1][i], 0), q[3][i], 1);
  }
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
  fft_transpose8(v);
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_NEON
  float32x4x2_t p = vtrnq_f32(v[0], v[1]), q = vtrnq_f32(v[2], v[3]);
  v[0] = vcombine_f32(vget_low_f32(p.val[0]), vget_low_f32(q.val[0]));
  v[1] = vcombine_f32(vget_low_f32(p.val[1]), vget_low_f32(q.val[1]));
  v[2] = vcombine_f32(vget_high_f32(p.val[0]), vget_high_f32(q.val[0]));
  v[3] = vcombine_f32(vget_high_f32(p.val[1]), vget_high_f32(q.val[1]));
#else
  for (int i = 0; i < Vec::W; ++i)
    for (int j = i + 1; j < Vec::W; ++j)
      std::swap(v[i].v[j], v[j].v[i]);
#endif
}

/// x[e] *= (cr, ci) per element e < count, (cr, ci) from interleaved pairs;
/// with `conjugate`, the product's conjugate.
inline void fft_mul_scalars(float *x, const float *c, int64_t count, bool conjugate) {
  constexpr int W = Vec::W;
  for (int64_t e = 0; e < count; ++e) {
    float *p = x + e * 2 * W;
    const VT cr = Vec::set1(c[2 * e]), ci = Vec::set1(c[2 * e + 1]);
    VT xr = Vec::load(p), xi = Vec::load(p + W);
    VT r = Vec::fnma(xi, ci, Vec::mul(xr, cr));
    VT i = Vec::fma(xi, cr, Vec::mul(xr, ci));
    Vec::store(p, r);
    Vec::store(p + W, conjugate ? Vec::sub(Vec::zero(), i) : i);
  }
}

/// The length-n forward FFT of the group in `a` (elements [0, n) filled,
/// room for plan_len); returns the buffer holding X[0..n).
inline float *fft_transform(float *a, float *b, int64_t n, int64_t plan_len,
                            const FftFactors &f, const float *plan) {
  constexpr int W = Vec::W;
  if (n <= kFftMatrixMaxLength) {
    // X[k] = sum_j a_j m[k][j].
    for (int64_t k = 0; k < n; ++k) {
      VT sr = Vec::zero(), si = Vec::zero();
      const float *row = plan + 2 * k * n;
      for (int64_t j = 0; j < n; ++j) {
        const VT c = Vec::set1(row[2 * j]), sn = Vec::set1(row[2 * j + 1]);
        const VT ar = Vec::load(a + j * 2 * W), ai = Vec::load(a + j * 2 * W + W);
        sr = Vec::fnma(ai, sn, Vec::fma(ar, c, sr));
        si = Vec::fma(ai, c, Vec::fma(ar, sn, si));
      }
      Vec::store(b + k * 2 * W, sr);
      Vec::store(b + k * 2 * W + W, si);
    }
    return b;
  }
  if (plan_len == n)
    return fft_run_stages(a, b, n, f, plan);
  // Bluestein: a_j w_j zero-padded to M, convolved with conj(w) through
  // conj(FFT(conj(FFT(a) * spectrum))), then times w_k.
  const int64_t m = plan_len;
  const float *chirp = plan, *spectrum = plan + 2 * n, *tw = plan + 2 * n + 2 * m;
  fft_mul_scalars(a, chirp, n, false);
  std::fill(a + n * 2 * W, a + m * 2 * W, 0.0f);
  float *r = fft_run_stages(a, b, m, f, tw);
  fft_mul_scalars(r, spectrum, m, true);
  float *other = r == a ? b : a;
  float *r2 = fft_run_stages(r, other, m, f, tw);
  for (int64_t e = 0; e < n; ++e) {
    float *p = r2 + e * 2 * W;
    Vec::store(p + W, Vec::sub(Vec::zero(), Vec::load(p + W)));
  }
  fft_mul_scalars(r2, chirp, n, false);
  return r2;
}

} // namespace detail

/// Transforms lines of float32 data along one axis (DFT, STFT frames).
/// Line (o, i) for o < outer, i < inner reads element j < x_len, channel
/// c < x_c at x[o xs_outer + i xs_inner + j xs_elem + c] (times window[j]
/// when has_window; elements from x_len to n read as 0) and writes bin
/// k < y_len, channel c < y_c at y[o ys_outer + i ys_inner + k ys_elem + c].
/// x_c: 1 (real) or 2 (complex); y_c: 2, or 1 for kFftInverseHermitian,
/// whose input holds bins 0..n/2 (those at or beyond x_len read as 0; the
/// imaginary parts of bins 0 and n/2 are ignored). plan: fft_plan(n,
/// plan_len); scratch: fft_scratch_floats(isa, plan_len) per part. Status 7
/// (kStatusWrongIsa) when isa is not ONNXCC_KERNELS_ISA or the arguments do
/// not describe a plan.
inline int fft_lines(const float *x, const float *window, int32_t has_window, float *y,
                     const float *plan, float *scratch, int64_t outer, int64_t inner,
                     int64_t xs_outer, int64_t xs_inner, int64_t xs_elem, int64_t x_len,
                     int64_t x_c, int64_t ys_outer, int64_t ys_inner, int64_t ys_elem,
                     int64_t y_len, int64_t y_c, int64_t n, int64_t plan_len, int32_t mode,
                     int32_t isa, int64_t part, int64_t parts) {
  using detail::Vec;
  using detail::VT;
  constexpr int W = Vec::W;
  constexpr int64_t E = 2 * W;
  const bool hermitian = mode == kFftInverseHermitian;
  // (fft_plan_length's search is not repeated here: a plan_len of n or of
  // at least 2n - 1 that the stages take is all the kernel relies on.)
  if (isa != ONNXCC_KERNELS_ISA || n < 1 || n > kFftMaxLength ||
      (plan_len != n && (plan_len < 2 * n - 1 || n <= kFftMatrixMaxLength)) ||
      (x_c != 1 && x_c != 2) || y_c != (hermitian ? 1 : 2) || y_len > n || x_len < 0 ||
      (!hermitian && x_len > n))
    return kStatusWrongIsa;
  const detail::FftFactors f = detail::fft_factors(plan_len);
  if (f.count < 0)
    return kStatusWrongIsa;
  // Two real lines (or two Hermitian spectra) share a complex line.
  const bool paired = hermitian || x_c == 1;
  const bool inverse = mode != kFftForward;
  const int64_t perGroup = paired ? 2 * W : W;
  const int64_t lines = outer * inner;
  const int64_t groups = (lines + perGroup - 1) / perGroup;
  int64_t g0, g1;
  detail::part_range(groups, part, parts, g0, g1);
  float *a = scratch + part * fft_scratch_floats(ONNXCC_KERNELS_ISA, plan_len);
  float *b = a + 2 * plan_len * W;
  auto lineX = [&](int64_t l) { return x + (l / inner) * xs_outer + (l % inner) * xs_inner; };
  auto lineY = [&](int64_t l) { return y + (l / inner) * ys_outer + (l % inner) * ys_inner; };
  const float invN = 1.0f / static_cast<float>(n);
  const int halves = paired ? 2 : 1;
  for (int64_t g = g0; g < g1; ++g) {
    const int64_t l0 = g * perGroup;
    const int count = static_cast<int>(std::min<int64_t>(perGroup, lines - l0));
    const float *srcLine[2 * W];
    float *dstLine[2 * W];
    for (int q = 0; q < count; ++q) {
      srcLine[q] = lineX(l0 + q);
      dstLine[q] = lineY(l0 + q);
    }
    // Copy in: element j of line q goes to lane q % W of element j (real
    // parts for the first W lines, imaginary ones for the next W when
    // paired). Contiguous lines move a W x W block at a time through a
    // transpose; the rest (and block tails) element by element.
    int64_t done = 0; // elements [0, done) written for every lane
    if (!hermitian && x_c == 1 && xs_elem == 1) {
      for (; done + W <= x_len; done += W) {
        const VT w = has_window ? Vec::load(window + done) : Vec::set1(1.0f);
        for (int h = 0; h < 2; ++h) {
          VT rows[W];
          for (int q = 0; q < W; ++q)
            rows[q] = h * W + q < count ? Vec::mul(Vec::load(srcLine[h * W + q] + done), w)
                                        : Vec::zero();
          detail::fft_transpose(rows);
          for (int i = 0; i < W; ++i)
            Vec::store(a + (done + i) * E + h * W, rows[i]);
        }
      }
    } else if (!paired && xs_elem == 2) {
      constexpr int half = W / 2;
      const VT sign = Vec::set1(inverse ? -1.0f : 1.0f);
      for (; done + half <= x_len; done += half) {
        alignas(64) float pairs[W];
        for (int i = 0; i < half; ++i)
          pairs[2 * i] = pairs[2 * i + 1] = has_window ? window[done + i] : 1.0f;
        const VT w = Vec::load(pairs);
        VT rows[W];
        for (int q = 0; q < W; ++q)
          rows[q] = q < count ? Vec::mul(Vec::load(srcLine[q] + 2 * done), w) : Vec::zero();
        detail::fft_transpose(rows);
        for (int i = 0; i < half; ++i) {
          Vec::store(a + (done + i) * E, rows[2 * i]);
          Vec::store(a + (done + i) * E + W, Vec::mul(rows[2 * i + 1], sign));
        }
      }
    }
    std::fill(a + done * E, a + n * E, 0.0f);
    for (int q = 0; q < count; ++q) {
      const float *src = srcLine[q];
      const int lane = q % W;
      if (hermitian) {
        // Spectrum bin j of the line: bins above n / 2 are conjugates.
        // Line a: (re, -im) (the conjugate the inverse transform wants);
        // line b adds i times its bin, conjugated: (-bi, -br).
        const bool second = q >= W;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t sj = 2 * j <= n ? j : n - j;
          if (sj >= x_len)
            continue;
          float re = src[sj * xs_elem], im = x_c == 2 ? src[sj * xs_elem + 1] : 0.0f;
          if (2 * j > n)
            im = -im;
          if (j == 0 || 2 * j == n)
            im = 0.0f;
          float *e = a + j * E + lane;
          if (!second) {
            e[0] = re;
            e[W] = -im;
          } else {
            e[0] -= im;
            e[W] -= re;
          }
        }
      } else if (paired) {
        float *e = a + lane + (q >= W ? W : 0);
        for (int64_t j = done; j < x_len; ++j)
          e[j * E] = src[j * xs_elem] * (has_window ? window[j] : 1.0f);
      } else {
        const float sign = inverse ? -1.0f : 1.0f;
        for (int64_t j = done; j < x_len; ++j) {
          const float w = has_window ? window[j] : 1.0f;
          a[j * E + lane] = src[j * xs_elem] * w;
          a[j * E + W + lane] = src[j * xs_elem + 1] * w * sign;
        }
      }
    }

    const float *r = detail::fft_transform(a, b, n, plan_len, f, plan);

    // Copy out: value(k, h, c) holds channel c of bin k of lines h W + lane.
    // Hermitian: the two real signals are Re and -Im of r, over n. Paired:
    // A = (Z[k] + conj Z[n-k]) / 2, B = (Z[k] - conj Z[n-k]) / 2i. The
    // inverse conjugates and scales.
    const float scale = inverse ? invN : 1.0f;
    const VT reScale = Vec::set1((paired && !hermitian ? 0.5f : 1.0f) * scale);
    const VT imScale = Vec::set1((paired && !hermitian ? 0.5f : 1.0f) * (inverse ? -scale : scale));
    auto value = [&](int64_t k, int h, int c) -> VT {
      const float *zk = r + k * E;
      if (hermitian)
        return h == 0 ? Vec::mul(Vec::load(zk), reScale) : Vec::mul(Vec::load(zk + W), imScale);
      if (!paired)
        return c == 0 ? Vec::mul(Vec::load(zk), reScale) : Vec::mul(Vec::load(zk + W), imScale);
      const float *zn = r + (k == 0 ? 0 : n - k) * E;
      if (h == 0)
        return c == 0 ? Vec::mul(reScale, Vec::add(Vec::load(zk), Vec::load(zn)))
                      : Vec::mul(imScale, Vec::sub(Vec::load(zk + W), Vec::load(zn + W)));
      return c == 0 ? Vec::mul(reScale, Vec::add(Vec::load(zk + W), Vec::load(zn + W)))
                    : Vec::mul(imScale, Vec::sub(Vec::load(zn), Vec::load(zk)));
    };
    for (int h = 0; h < halves; ++h) {
      const int present = std::min(count - h * W, W);
      float *const *dst = dstLine + h * W;
      int64_t k = 0;
      if (ys_elem == y_c) {
        // Bins contiguous along each line: blocks of W / y_c bins.
        const int64_t perBlock = W / y_c;
        for (; k + perBlock <= y_len; k += perBlock) {
          VT rows[W];
          for (int64_t i = 0; i < perBlock; ++i)
            for (int64_t c = 0; c < y_c; ++c)
              rows[i * y_c + c] = value(k + i, h, static_cast<int>(c));
          detail::fft_transpose(rows);
          for (int q = 0; q < present; ++q)
            Vec::store(dst[q] + k * y_c, rows[q]);
        }
      }
      for (; k < y_len; ++k)
        for (int64_t c = 0; c < y_c; ++c) {
          alignas(64) float tmp[W];
          Vec::store(tmp, value(k, h, static_cast<int>(c)));
          for (int q = 0; q < present; ++q)
            dst[q][k * ys_elem + c] = tmp[q];
        }
    }
  }
  return 0;
}

#ifdef ONNXCC_FFT_TARGET
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#undef ONNXCC_FFT_TARGET
#endif

} // namespace kernels
} // namespace onnxcc_rt

#endif // ONNXCC_KERNELS_FFT_H
