// onnxcc_kernels_int8.h - exact 8-bit integer matrix products: MatMulInteger
// (and the products of QLinearMatMul and the dynamic-quantization graphs)
// with a constant B operand. Included at the end of onnxcc_kernels.h; the
// packing and sizing functions are plain portable C++ the compiler calls.
//
// C[M][N] = sum_k (A[m][k] - a_zp) * (B[k][n] - b_zp[n]) in int32, A and B
// each uint8 or int8, the zero points per tensor (A's also per row, B's per
// column), exactly as ONNX defines it: no intermediate saturation.
//
// Scheme: both operands become int16 with their zero points subtracted
// (values in [-255, 255]), k steps taken in pairs. B is packed at compile
// time into panels of NR columns, each (k pair, column) two int16
// [B'(2p, n), B'(2p+1, n)]; at run time a chunk of A's rows is converted
// into scratch as one 32-bit word per (row, k pair). The micro-kernel
// broadcasts an A word and multiplies it with a B vector by `pmaddwd`
// (AVX2, AVX-512BW): each 32-bit lane gets a0 b0 + a1 b1, at most
// 2 * 255 * 255 = 130,050, added to int32 accumulators. Unlike `pmaddubsw`
// (u8 x s8 pair sums saturated to int16, which ONNX Runtime's AVX2 path
// uses) nothing saturates, so every product is exact; the int32 sums wrap
// like ONNX's int32 accumulation only past K of about 33,000 at full range.
// Tiles: AVX-512 8 x 48, AVX2 4 x 16, generic and NEON 4 x 8 in plain loops
// (NEON has no int16 pair product; its compiler vectorizes the loops).
// Without a fused multiply-add each product needs a temporary register
// besides its accumulator, so AVX2's 16 registers hold a 4 x 16 tile (8
// accumulators) rather than the float GEMM's 4 x 24: 4 x 24 spills
// accumulators and runs at 80 GOP/s on a Zen 3 core, 4 x 16 at 110.
//
// Blocking: A is converted a chunk of kIgemmMc rows at a time (kept in L2);
// for each B panel the K loop is cut into blocks of kIgemmKc k steps whose
// B slice stays in L1 while the chunk's row tiles stream over it.
//
// Work split: a unit is (chunk of rows, group of B panels); every output is
// computed by the same integer operations whatever the split, and integer
// sums do not depend on their order anyway.
#ifndef ONNXCC_KERNELS_INT8_H
#define ONNXCC_KERNELS_INT8_H

#include "onnxcc_kernels.h"

namespace onnxcc_rt {
namespace kernels {

//===----------------------------------------------------------------------===//
// Layout and packing (portable, any host).
//===----------------------------------------------------------------------===//

/// Columns per packed int8 GEMM-B panel.
constexpr int igemm_nr(int isa) {
  return isa == ONNXCC_ISA_AVX512 ? 48 : isa == ONNXCC_ISA_AVX2 ? 16 : 8;
}
/// Rows of the int8 GEMM register tile.
constexpr int igemm_mr(int isa) { return isa == ONNXCC_ISA_AVX512 ? 8 : 4; }

namespace detail {
/// Rows of A converted per chunk (a multiple of every igemm_mr).
constexpr int64_t kIgemmMc = 64;
/// K steps per block (a multiple of 2).
constexpr int64_t kIgemmKc = 512;
inline int64_t igemm_pairs(int64_t K) { return (K + 1) / 2; }
} // namespace detail

/// int16 values of a packed B: per panel of NR columns, K rounded up to a
/// pair, two values per (pair, column).
inline int64_t packed_igemm_b_values(int isa, int64_t K, int64_t N) {
  return detail::round_up(N, igemm_nr(isa)) * detail::igemm_pairs(K) * 2;
}

/// Packs B[K][N] (int8 or uint8 values given as int32, `b_zp` one per
/// column or null for 0) into `out` (packed_igemm_b_values int16s):
/// out[((j*P + p)*NR + n)*2 + t] = B[2p + t][j*NR + n] - b_zp[j*NR + n];
/// zero past K and past N.
inline void pack_igemm_b(int isa, const int32_t *b, const int32_t *b_zp, int64_t K, int64_t N,
                         int16_t *out) {
  const int64_t nr = igemm_nr(isa), panels = detail::ceil_div(N, nr);
  const int64_t pairs = detail::igemm_pairs(K);
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t p = 0; p < pairs; ++p)
      for (int64_t n = 0; n < nr; ++n)
        for (int64_t t = 0; t < 2; ++t) {
          int64_t col = j * nr + n, k = 2 * p + t;
          int32_t v = 0;
          if (col < N && k < K)
            v = b[k * N + col] - (b_zp ? b_zp[col] : 0);
          out[((j * pairs + p) * nr + n) * 2 + t] = static_cast<int16_t>(v);
        }
}

/// Scratch bytes per part of igemm_packed_b: one converted chunk of A.
inline int64_t igemm_scratch_bytes(int isa, int64_t K) {
  (void)isa;
  return detail::kIgemmMc * detail::igemm_pairs(K) * 4;
}

//===----------------------------------------------------------------------===//
// Run-time kernel (SIMD; its own target pragma region).
//===----------------------------------------------------------------------===//

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
#define ONNXCC_INT8_TARGET "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2,f16c"
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
#define ONNXCC_INT8_TARGET "avx2,fma,bmi,bmi2,f16c"
#endif

#ifdef ONNXCC_INT8_TARGET
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(ONNXCC_INT8_TARGET))), apply_to = function)
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

constexpr int kIgemmMR = igemm_mr(ONNXCC_KERNELS_ISA);
constexpr int kIgemmNR = igemm_nr(ONNXCC_KERNELS_ISA);

/// Rows r0 .. r1-1 of A (element (m, k) at a[m*lda + k], uint8 when
/// `a_unsigned`, else int8) minus their zero points, as one 32-bit word of
/// two int16 per (row, k pair): row tile t (MR rows) at out + t*P*MR, word
/// (p, r) at [p*MR + r]; rows past r1 and the odd step past K are zero.
inline void igemm_convert_a(const void *a, int32_t a_unsigned, int64_t lda, const void *a_zp,
                            int32_t a_zp_kind, int64_t r0, int64_t r1, int64_t K,
                            int32_t *out) {
  const int64_t pairs = igemm_pairs(K), tiles = ceil_div(r1 - r0, kIgemmMR);
  for (int64_t t = 0; t < tiles; ++t)
    for (int r = 0; r < kIgemmMR; ++r) {
      const int64_t m = r0 + t * kIgemmMR + r;
      int32_t *dst = out + t * pairs * kIgemmMR + r;
      if (m >= r1) {
        for (int64_t p = 0; p < pairs; ++p)
          dst[p * kIgemmMR] = 0;
        continue;
      }
      int32_t zp = 0;
      if (a_zp_kind != 0) {
        const int64_t at = a_zp_kind == 2 ? m : 0;
        zp = a_unsigned ? int32_t(static_cast<const uint8_t *>(a_zp)[at])
                        : int32_t(static_cast<const int8_t *>(a_zp)[at]);
      }
      auto value = [&](int64_t k) -> int32_t {
        if (k >= K)
          return 0;
        return (a_unsigned ? int32_t(static_cast<const uint8_t *>(a)[m * lda + k])
                           : int32_t(static_cast<const int8_t *>(a)[m * lda + k])) -
               zp;
      };
      for (int64_t p = 0; p < pairs; ++p) {
        uint32_t lo = static_cast<uint16_t>(static_cast<int16_t>(value(2 * p)));
        uint32_t hi = static_cast<uint16_t>(static_cast<int16_t>(value(2 * p + 1)));
        dst[p * kIgemmMR] = static_cast<int32_t>(lo | (hi << 16));
      }
    }
}

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
typedef __m512i IV;
inline IV iv_zero() { return _mm512_setzero_si512(); }
inline IV iv_load(const void *p) { return _mm512_loadu_si512(p); }
inline void iv_store(void *p, IV v) { _mm512_storeu_si512(p, v); }
inline IV iv_bcast(int32_t v) { return _mm512_set1_epi32(v); }
inline IV iv_madd(IV a, IV b) { return _mm512_madd_epi16(a, b); }
inline IV iv_add(IV a, IV b) { return _mm512_add_epi32(a, b); }
constexpr int kIvLanes = 16;
#else
typedef __m256i IV;
inline IV iv_zero() { return _mm256_setzero_si256(); }
inline IV iv_load(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }
inline void iv_store(void *p, IV v) { _mm256_storeu_si256(static_cast<__m256i *>(p), v); }
inline IV iv_bcast(int32_t v) { return _mm256_set1_epi32(v); }
inline IV iv_madd(IV a, IV b) { return _mm256_madd_epi16(a, b); }
inline IV iv_add(IV a, IV b) { return _mm256_add_epi32(a, b); }
constexpr int kIvLanes = 8;
#endif
constexpr int kIvPerTile = kIgemmNR / kIvLanes;

/// R rows x NR columns of C (pitch ldc; `nrows` <= R and `ncols` <= NR of
/// them stored) over `pairs` k pairs: A words at ap[p*MR + r], B at
/// bp[(p*NR + n)*2]; added to C when `accumulate`.
template <int R>
inline void igemm_tile(int64_t pairs, const int32_t *ap, const int16_t *bp, int32_t *c,
                       int64_t ldc, int nrows, int ncols, bool accumulate) {
  IV acc[R][kIvPerTile];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kIvPerTile; ++v)
      acc[r][v] = iv_zero();
  for (int64_t p = 0; p < pairs; ++p) {
    IV bv[kIvPerTile];
#pragma GCC unroll 4
    for (int v = 0; v < kIvPerTile; ++v) {
      bv[v] = iv_load(bp + (p * kIgemmNR + v * kIvLanes) * 2);
#if defined(__GNUC__)
      // Kept in a register: folded into each pmaddwd as a memory operand,
      // the loads would outnumber the load ports (see the float ukernel).
      __asm__("" : "+v"(bv[v]));
#endif
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const IV a = iv_bcast(ap[p * kIgemmMR + r]);
#pragma GCC unroll 4
      for (int v = 0; v < kIvPerTile; ++v)
        acc[r][v] = iv_add(acc[r][v], iv_madd(a, bv[v]));
    }
  }
  if (nrows == R && ncols == kIgemmNR) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < kIvPerTile; ++v) {
        int32_t *dst = c + r * ldc + v * kIvLanes;
        iv_store(dst, accumulate ? iv_add(acc[r][v], iv_load(dst)) : acc[r][v]);
      }
    return;
  }
  alignas(64) int32_t tmp[kIgemmNR];
  for (int r = 0; r < nrows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kIvPerTile; ++v)
      iv_store(tmp + v * kIvLanes, acc[r][v]);
    int32_t *dst = c + r * ldc;
    for (int n = 0; n < ncols; ++n)
      dst[n] = accumulate ? static_cast<int32_t>(static_cast<uint32_t>(dst[n]) +
                                                 static_cast<uint32_t>(tmp[n]))
                          : tmp[n];
  }
}

#else

/// The portable tile (generic and NEON): the same sums in plain loops, in
/// uint32 so that a wrapping sum is defined behaviour.
template <int R>
inline void igemm_tile(int64_t pairs, const int32_t *ap, const int16_t *bp, int32_t *c,
                       int64_t ldc, int nrows, int ncols, bool accumulate) {
  uint32_t acc[R][kIgemmNR] = {};
  for (int64_t p = 0; p < pairs; ++p)
    for (int r = 0; r < R; ++r) {
      const uint32_t word = static_cast<uint32_t>(ap[p * kIgemmMR + r]);
      const int32_t a0 = static_cast<int16_t>(word & 0xffff), a1 = static_cast<int16_t>(word >> 16);
      const int16_t *b = bp + p * kIgemmNR * 2;
      for (int n = 0; n < kIgemmNR; ++n)
        acc[r][n] += static_cast<uint32_t>(a0 * b[2 * n] + a1 * b[2 * n + 1]);
    }
  for (int r = 0; r < nrows; ++r)
    for (int n = 0; n < ncols; ++n) {
      uint32_t v = acc[r][n] + (accumulate ? static_cast<uint32_t>(c[r * ldc + n]) : 0u);
      c[r * ldc + n] = static_cast<int32_t>(v);
    }
}

#endif

} // namespace detail

/// C[M][N] (int32) = (A - a_zp) x (B - b_zp) with B packed by pack_igemm_b.
/// A: M rows of K uint8 (a_unsigned) or int8 values, row pitch lda; a_zp
/// of A's type, absent (a_zp_kind 0), one value (1) or one per row (2).
/// scratch: igemm_scratch_bytes per part (part p uses the p-th slice).
/// Work units are (chunk of rows, group of B
/// panels).
inline int igemm_packed_b(const void *a, int32_t a_unsigned, int64_t lda, const void *a_zp,
                          int32_t a_zp_kind, const int16_t *bpacked, int32_t *c, int64_t M,
                          int64_t N, int64_t K, void *scratch, int64_t part, int64_t parts,
                          int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  constexpr int MR = kIgemmMR;
  constexpr int64_t NR = kIgemmNR;
  const int64_t pairs = igemm_pairs(K), npan = ceil_div(N, NR);
  const int64_t chunks = ceil_div(M, kIgemmMc);
  // Enough units for every part: B panels split into groups when there
  // are fewer chunks of rows than parts.
  int64_t groups = 1;
  if (chunks < 2 * parts)
    groups = std::max<int64_t>(1, std::min(npan, ceil_div(2 * parts, chunks)));
  const int64_t total = chunks * groups;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  int32_t *apack =
      static_cast<int32_t *>(scratch) + part * (igemm_scratch_bytes(isa_check, K) / 4);
  int64_t converted = -1;
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t chunk = u / groups, g = u % groups;
    const int64_t r0 = chunk * kIgemmMc, r1 = std::min(M, r0 + kIgemmMc);
    if (converted != chunk) {
      igemm_convert_a(a, a_unsigned, lda, a_zp, a_zp_kind, r0, r1, K, apack);
      converted = chunk;
    }
    const int64_t j0 = npan * g / groups, j1 = npan * (g + 1) / groups;
    const int64_t tiles = ceil_div(r1 - r0, MR);
    for (int64_t j = j0; j < j1; ++j) {
      const int ncols = static_cast<int>(std::min<int64_t>(NR, N - j * NR));
      const int16_t *bp = bpacked + j * pairs * NR * 2;
      for (int64_t p0 = 0; p0 < pairs || p0 == 0; p0 += kIgemmKc / 2) {
        const int64_t pc = std::min<int64_t>(kIgemmKc / 2, pairs - p0);
        for (int64_t t = 0; t < tiles; ++t) {
          const int64_t m = r0 + t * MR;
          const int nrows = static_cast<int>(std::min<int64_t>(MR, r1 - m));
          const int32_t *ap = apack + (t * pairs + p0) * MR;
          int32_t *cp = c + m * N + j * NR;
          if (nrows == 1)
            igemm_tile<1>(pc, ap, bp + p0 * NR * 2, cp, N, 1, ncols, p0 > 0);
          else
            igemm_tile<MR>(pc, ap, bp + p0 * NR * 2, cp, N, nrows, ncols, p0 > 0);
        }
        if (pairs == 0)
          break;
      }
    }
  }
  return 0;
}

namespace detail {

/// ONNX's minimum / maximum: NaN if either is NaN, -0 below +0.
inline float dql_min(float a, float b) {
  if (a != a || b != b)
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline float dql_max(float a, float b) {
  if (a != a || b != b)
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
/// Round half to even whatever the rounding mode.
inline float dql_round_even(float x) {
  float r = std::round(x);
  if (std::fabs(x - std::trunc(x)) == 0.5f)
    r = 2.0f * std::round(x / 2.0f);
  return r;
}
/// saturate(round_half_even(v) + zp) to uint8; NaN gives 0 (what the
/// generated code's float-to-integer conversion gives on x86-64: ABI.md).
inline uint8_t dql_quantize(float v, float zp) {
  float r = dql_round_even(v) + zp;
  if (r != r)
    return 0;
  r = std::min(std::max(r, 0.0f), 255.0f);
  return static_cast<uint8_t>(r);
}

} // namespace detail

/// DynamicQuantizeLinear of n floats to uint8, as ONNX defines it and the
/// generated loops compute it: the range [min(0, min x), max(0, max x)],
/// y_scale = range / 255, y_zero_point = round(clamp(-min / y_scale, 0,
/// 255)), y = saturate(round(x / y_scale) + y_zero_point), rounding half
/// to even. The vector path divides and rounds exactly like the scalar one
/// (IEEE division, round to nearest even), so the bytes are the same; NaN,
/// infinity and an all-zero x (scale 0) take the scalar path.
inline int dynamic_quantize_u8(const float *x, int64_t n, void *y, float *y_scale,
                               void *y_zero_point, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  uint8_t *out = static_cast<uint8_t *>(y);
  float lo = 0.0f, hi = 0.0f;
  int64_t i = 0;
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  {
    __m256 vlo = _mm256_setzero_ps(), vhi = _mm256_setzero_ps();
    __m256 nan = _mm256_setzero_ps();
    for (; i + 8 <= n; i += 8) {
      __m256 v = _mm256_loadu_ps(x + i);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      vlo = _mm256_min_ps(vlo, v);
      vhi = _mm256_max_ps(vhi, v);
    }
    alignas(32) float l[8], h[8];
    _mm256_store_ps(l, vlo);
    _mm256_store_ps(h, vhi);
    for (int j = 0; j < 8; ++j) {
      lo = dql_min(lo, l[j]);
      hi = dql_max(hi, h[j]);
    }
    if (_mm256_movemask_ps(nan))
      lo = hi = std::numeric_limits<float>::quiet_NaN();
  }
#endif
  for (; i < n; ++i) {
    lo = dql_min(lo, x[i]);
    hi = dql_max(hi, x[i]);
  }
  const float scale = (hi - lo) / 255.0f;
  float zpf = -(lo / scale);
  zpf = dql_max(zpf, 0.0f);
  zpf = dql_min(zpf, 255.0f);
  const uint8_t zp = zpf != zpf ? 0 : static_cast<uint8_t>(dql_round_even(zpf));
  *y_scale = scale;
  *static_cast<uint8_t *>(y_zero_point) = zp;
  const float zpv = static_cast<float>(zp);
  i = 0;
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  if (std::isfinite(scale) && scale > 0.0f && std::isfinite(lo) && std::isfinite(hi)) {
    const __m256 vs = _mm256_set1_ps(scale), vz = _mm256_set1_ps(zpv);
    const __m256 v0 = _mm256_setzero_ps(), v255 = _mm256_set1_ps(255.0f);
    // Subnormal x (GELU's outputs for negative inputs are full of them)
    // make the division take a slow microcode path, 20x slower over a
    // whole tensor. With scale > 2^-100 such an x / scale is below 2^-26
    // and rounds to 0 exactly as x = 0 does (-0 + zp is zp too), so they
    // are flushed to 0 first; the bytes stay the same.
    const __m256 tiny = scale > 0x1p-100f ? _mm256_set1_ps(std::numeric_limits<float>::min())
                                          : _mm256_setzero_ps();
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    for (; i + 32 <= n; i += 32) {
      __m256i q[4];
      for (int j = 0; j < 4; ++j) {
        __m256 xv = _mm256_loadu_ps(x + i + 8 * j);
        xv = _mm256_andnot_ps(_mm256_cmp_ps(_mm256_and_ps(xv, absMask), tiny, _CMP_LT_OQ), xv);
        __m256 v = _mm256_div_ps(xv, vs);
        v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, vz), v0), v255);
        q[j] = _mm256_cvttps_epi32(v);
      }
      // 32 int32 in [0, 255] -> 32 bytes in order (packs work per 128-bit
      // lane: the permute puts the lanes back).
      __m256i w01 = _mm256_packus_epi32(q[0], q[1]), w23 = _mm256_packus_epi32(q[2], q[3]);
      __m256i b = _mm256_packus_epi16(w01, w23);
      b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), b);
    }
  }
#endif
  for (; i < n; ++i)
    out[i] = dql_quantize(x[i] / scale, zpv);
  return 0;
}

#ifdef ONNXCC_INT8_TARGET
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#undef ONNXCC_INT8_TARGET
#endif

} // namespace kernels
} // namespace onnxcc_rt

#endif // ONNXCC_KERNELS_INT8_H
