// onnxcc_kernels_int8.h - exact 8-bit integer matrix products: MatMulInteger
// (the product of ONNX Runtime's dynamic quantization) with a constant B
// operand, QLinearConv with constant weights (also what a QDQ convolution
// becomes) on the same GEMM tiles, DynamicQuantizeLinear and QuantizeLinear. Included at the end of
// onnxcc_kernels.h; the packing and sizing functions are plain portable C++
// the compiler calls.
//
// C[M][N] = sum_k (A[m][k] - a_zp) * (B[k][n] - b_zp[n]) in int32, A and B
// each uint8 or int8, the zero points per tensor (A's also per row, B's per
// column), exactly as ONNX defines it: no intermediate saturation. B minus
// its zero point (B') is packed at compile time in one of two formats:
//
//  - quads (x86, when exact): B' in int8, four k steps per 32-bit lane. The
//    micro-kernel multiplies A's bytes (uint8; int8 A is shifted by 128,
//    and its zero point with it) with B' by `pmaddubsw`, which sums each
//    pair of products into int16 with saturation, then `pmaddwd` by ones
//    into int32. That is exact when no pair sum can pass 32767: every
//    pair of B' values of a column with |b0| + |b1| <= 128 (255 * 128 =
//    32640), which the compiler checks on the constant B (weights
//    quantized to 7 bits, ONNX Runtime's reduce_range, always pass;
//    full-range int8 weights may not). The zero point of A comes off at
//    the end: C = sum a b' - a_zp * colsum(B'), colsum packed after B'.
//  - pairs (everywhere): B' in int16 (values in [-255, 255]), two k steps
//    per 32-bit lane; A's rows minus their zero points converted to int16
//    at run time; `pmaddwd` gives a0 b0 + a1 b1 per lane (at most 130,050,
//    nothing saturates) added to int32 accumulators. Twice the bytes of B
//    and about 0.6x the speed of quads on a Zen 3 core, but exact for any
//    values. ONNX Runtime's AVX2 path uses pmaddubsw unconditionally and
//    gives wrong sums for full-range weights on CPUs without VNNI.
//
// int32 sums wrap like ONNX's int32 accumulation (only possible past K of
// about 33,000 at full range). Tiles: AVX-512 8 x 48, AVX2 4 x 16, generic
// and NEON 4 x 8 in plain loops (NEON has neither product; its compiler
// vectorizes the loops). Without a fused multiply-add each product needs a
// temporary register besides its accumulator, so AVX2's 16 registers hold
// a 4 x 16 tile (8 accumulators) rather than the float GEMM's 4 x 24:
// 4 x 24 spills accumulators (80 GOP/s on a Zen 3 core, 4 x 16: 110).
//
// Blocking: A is converted a chunk of kIgemmMc rows at a time (kept in L2);
// for each B panel the K loop is cut into blocks of kIgemmKc k steps whose
// B slice stays in L1 while the chunk's row tiles stream over it.
//
// Work split: a unit is (chunk of rows, group of B panels); every output is
// computed by the same integer operations whatever the split.
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

/// The packed formats of B (see the top of this file).
enum IgemmFormat : int32_t { kIgemmPairs = 0, kIgemmQuads = 1 };

namespace detail {
/// Rows of A converted per chunk (a multiple of every igemm_mr).
constexpr int64_t kIgemmMc = 64;
/// K steps per block (a multiple of 4).
constexpr int64_t kIgemmKc = 512;
/// k steps per 32-bit lane of a format.
constexpr int64_t igemm_group(int32_t format) { return format == kIgemmQuads ? 4 : 2; }
inline int64_t igemm_groups(int32_t format, int64_t K) {
  return ceil_div(K, igemm_group(format));
}
} // namespace detail

/// Whether B (values as int32, `b_zp` per column or null) may be packed as
/// quads: an x86 ISA, every B' = B - b_zp in int8, and every pair (4q, 4q+1),
/// (4q+2, 4q+3) of a column with |b0| + |b1| <= 128.
inline bool igemm_quads_exact(int isa, const int32_t *b, const int32_t *b_zp, int64_t K,
                              int64_t N) {
  if (isa != ONNXCC_ISA_AVX2 && isa != ONNXCC_ISA_AVX512)
    return false;
  for (int64_t k = 0; k < K; k += 2)
    for (int64_t n = 0; n < N; ++n) {
      int64_t sum = 0;
      for (int64_t t = k; t < std::min(K, k + 2); ++t) {
        int64_t v = int64_t(b[t * N + n]) - (b_zp ? b_zp[n] : 0);
        if (v < -128 || v > 127)
          return false;
        sum += v < 0 ? -v : v;
      }
      if (sum > 128)
        return false;
    }
  return true;
}

/// Bytes of a B packed in `format`: per panel of NR columns, K rounded up to
/// whole groups, one 32-bit lane per (group, column); quads add an int32
/// column sum per column of the panels.
inline int64_t packed_igemm_b_bytes(int isa, int32_t format, int64_t K, int64_t N) {
  const int64_t cols = detail::round_up(N, igemm_nr(isa));
  return cols * detail::igemm_groups(format, K) * 4 + (format == kIgemmQuads ? cols * 4 : 0);
}

/// Packs B[K][N] (int8 or uint8 values given as int32, `b_zp` one per
/// column or null for 0) into `out` (packed_igemm_b_bytes bytes): B' = B -
/// b_zp; panel j, group g, column n holds B'[G*g + t][j*NR + n] for t < G
/// (G = 2 int16 or 4 int8 of the 32-bit lane), zero past K and past N;
/// quads then hold colsum[c] = sum_k B'[k][c] (int32, zero past N).
inline void pack_igemm_b(int isa, int32_t format, const int32_t *b, const int32_t *b_zp,
                         int64_t K, int64_t N, void *out) {
  const int64_t nr = igemm_nr(isa), panels = detail::ceil_div(N, nr);
  const int64_t group = detail::igemm_group(format), groups = detail::igemm_groups(format, K);
  auto value = [&](int64_t k, int64_t col) -> int32_t {
    if (col >= N || k >= K)
      return 0;
    return b[k * N + col] - (b_zp ? b_zp[col] : 0);
  };
  int16_t *o16 = static_cast<int16_t *>(out);
  int8_t *o8 = static_cast<int8_t *>(out);
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t n = 0; n < nr; ++n)
        for (int64_t t = 0; t < group; ++t) {
          const int64_t at = ((j * groups + g) * nr + n) * group + t;
          const int32_t v = value(g * group + t, j * nr + n);
          if (format == kIgemmQuads)
            o8[at] = static_cast<int8_t>(v);
          else
            o16[at] = static_cast<int16_t>(v);
        }
  if (format == kIgemmQuads) {
    int8_t *sums = o8 + panels * nr * groups * 4;
    for (int64_t col = 0; col < panels * nr; ++col) {
      int32_t s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += value(k, col);
      std::memcpy(sums + col * 4, &s, 4);
    }
  }
}

/// Scratch bytes per part of igemm_packed_b: one converted chunk of A (the
/// larger of the two formats').
inline int64_t igemm_scratch_bytes(int isa, int64_t K) {
  (void)isa;
  return detail::kIgemmMc * detail::igemm_groups(kIgemmPairs, K) * 4;
}

/// The input layouts of qconv_packed_w, which order K: kQconvIm2col, k =
/// (c, ky, kx), an im2col of the NCHW input, K = C * KH * KW;
/// kQconvChannels, k = (ky, kx, c), read from a channels-last copy of the
/// input with its padding and C rounded up to a multiple of 4 (Cp: every
/// quad of k is four channels of one pixel), K = Cp * KH * KW, the rows of
/// the channels past C equal to the weights' zero points (B' = 0).
enum QconvLayout : int32_t { kQconvIm2col = 0, kQconvChannels = 1 };

/// Sizes of the channels-last padded copy of one image: the rows and
/// columns the windows reach.
inline int64_t qconv_padded_bytes(int32_t layout, int64_t C, int64_t KH, int64_t KW, int64_t SH,
                                  int64_t SW, int64_t DH, int64_t DW, int64_t OH, int64_t OW) {
  if (layout != kQconvChannels)
    return 0;
  return ((OH - 1) * SH + (KH - 1) * DH + 1) * ((OW - 1) * SW + (KW - 1) * DW + 1) *
         detail::round_up(C, 4);
}

/// Scratch bytes per part of qconv_packed_w (N output channels, K = C *
/// kernel area, `padded` = qconv_padded_bytes): the input chunk (an im2col
/// of K x kIgemmMc bytes, or the padded channels-last image and the offsets
/// of K's groups), its converted words, the chunk's int32 sums (kIgemmMc x N
/// rounded up to whole panels) and their requantized bytes.
inline int64_t qconv_scratch_bytes(int isa, int64_t K, int64_t N, int64_t padded) {
  const int64_t input = padded > 0 ? detail::round_up(padded, 64) +
                                         detail::round_up(detail::igemm_groups(kIgemmPairs, K) * 8, 64)
                                   : detail::round_up(K * detail::kIgemmMc, 64);
  return input + igemm_scratch_bytes(isa, K) +
         detail::kIgemmMc * detail::round_up(N, igemm_nr(isa)) * 5;
}

//===----------------------------------------------------------------------===//
// Weight-only 4-bit matrix products (DequantizeLinear-21 of blocked int4 or
// uint4 weights feeding MatMul), packing (portable).
//===----------------------------------------------------------------------===//

/// Columns per panel of the 4-bit weights (every ISA).
constexpr int64_t kQ4Nr = 16;

/// Bytes of packed 4-bit weights: per panel of 16 columns and block of
/// `block` k steps, `block` rows of 8 bytes (the last block padded).
inline int64_t packed_q4_bytes(int64_t K, int64_t N, int64_t block) {
  return detail::ceil_div(N, kQ4Nr) * detail::ceil_div(K, block) * block * 8;
}
/// Floats of the packed per-block parameters: scale then zero point, 16 of
/// each per (panel, block).
inline int64_t packed_q4_param_floats(int64_t K, int64_t N, int64_t block) {
  return detail::ceil_div(N, kQ4Nr) * detail::ceil_div(K, block) * 2 * kQ4Nr;
}

/// Packs W = (Q - zero_point) * scale, Q[K][N] of 4-bit values (int4 in
/// [-8, 7] when `is_signed`, else uint4; given as int32), scale and
/// zero_point [ceil(K/block)][N] (zero_point null for 0), blocks along K.
/// Each value is stored as u = Q + 8 (signed) or Q, an unsigned nibble, with
/// the zero point z = zero_point + 8 (or zero_point) as a float, so that W =
/// (u - z) * scale. Panel j, block b, row kk: byte i holds column 16j + i in
/// its low nibble and column 16j + 8 + i in its high one; params hold the
/// 16 scales then the 16 zero points. Columns past N get scale 0.
inline void pack_q4(const int32_t *q, const float *scale, const int32_t *zero_point,
                    bool is_signed, int64_t K, int64_t N, int64_t block, uint8_t *out,
                    float *params) {
  const int64_t panels = detail::ceil_div(N, kQ4Nr), blocks = detail::ceil_div(K, block);
  const int32_t shift = is_signed ? 8 : 0;
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t pb = j * blocks + b;
      float *sc = params + pb * 2 * kQ4Nr, *zs = sc + kQ4Nr;
      for (int64_t n = 0; n < kQ4Nr; ++n) {
        const int64_t col = j * kQ4Nr + n;
        sc[n] = col < N ? scale[b * N + col] : 0.0f;
        zs[n] = col < N ? static_cast<float>((zero_point ? zero_point[b * N + col] : 0) + shift)
                        : 0.0f;
      }
      for (int64_t kk = 0; kk < block; ++kk) {
        const int64_t k = b * block + kk;
        uint8_t *row = out + (pb * block + kk) * 8;
        for (int64_t i = 0; i < 8; ++i) {
          auto nibble = [&](int64_t col) -> uint32_t {
            if (col >= N || k >= K)
              return 0;
            return static_cast<uint32_t>(q[k * N + col] + shift) & 0xF;
          };
          row[i] = static_cast<uint8_t>(nibble(j * kQ4Nr + i) | (nibble(j * kQ4Nr + 8 + i) << 4));
        }
      }
    }
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

/// A's element (m, k) as int32 (uint8 when `a_unsigned`, else int8).
inline int32_t igemm_a(const void *a, int32_t a_unsigned, int64_t at) {
  return a_unsigned ? int32_t(static_cast<const uint8_t *>(a)[at])
                    : int32_t(static_cast<const int8_t *>(a)[at]);
}

/// The zero point of A's row m (0 when absent).
inline int32_t igemm_a_zp(const void *a_zp, int32_t a_unsigned, int32_t a_zp_kind, int64_t m) {
  return a_zp_kind == 0 ? 0 : igemm_a(a_zp, a_unsigned, a_zp_kind == 2 ? m : 0);
}

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
/// Four quads groups of four rows: 16 bytes from each of `rows` (four
/// 32-bit words, groups g .. g+3 of that row) transposed so that dst[i *
/// kIgemmMR + r] holds row r's word of group g + i, xor `flip` (0x80 bytes
/// turn int8 into uint8 + 128).
inline void quad_words_4x4(const uint8_t *const rows[4], int32_t *dst, __m128i flip) {
  const __m128i q0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[0]));
  const __m128i q1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[1]));
  const __m128i q2 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[2]));
  const __m128i q3 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[3]));
  const __m128i t0 = _mm_unpacklo_epi32(q0, q1), t1 = _mm_unpacklo_epi32(q2, q3);
  const __m128i t2 = _mm_unpackhi_epi32(q0, q1), t3 = _mm_unpackhi_epi32(q2, q3);
  const __m128i o[4] = {_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1),
                        _mm_unpacklo_epi64(t2, t3), _mm_unpackhi_epi64(t2, t3)};
  for (int i = 0; i < 4; ++i)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i * kIgemmMR), _mm_xor_si128(o[i], flip));
}
#endif

/// Rows r0 .. r1-1 of A (element (m, k) at a[m*lda + k]) converted for
/// `format`, one 32-bit word per (row, group): row tile t (MR rows) at out
/// + t*G*MR, word (g, r) at [g*MR + r]. Pairs: two int16 a - a_zp. Quads:
/// four uint8 a (int8 a + 128). Rows past r1 and steps past K are zero.
/// zrow[i] gets row r0 + i's zero point as the quads epilogue subtracts it
/// (int8 A's shifted by 128 too).
inline void igemm_convert_a(const void *a, int32_t a_unsigned, int64_t lda, const void *a_zp,
                            int32_t a_zp_kind, int32_t format, int64_t r0, int64_t r1,
                            int64_t K, int32_t *out, int32_t *zrow) {
  const int64_t groups = igemm_groups(format, K), tiles = ceil_div(r1 - r0, kIgemmMR);
  const int32_t shift = a_unsigned ? 0 : 128;
  for (int64_t t = 0; t < tiles; ++t) {
    // Quads of a full tile, 4 groups of 4 rows at a time: a 4 x 4 transpose
    // of the rows' 32-bit words (int8 A flipped to A + 128 by the xor).
    int64_t first = 0; // the first group the per-row loop below converts
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
    if (format == kIgemmQuads && r0 + (t + 1) * kIgemmMR <= r1) {
      const __m128i flip = _mm_set1_epi8(a_unsigned ? 0 : static_cast<char>(0x80));
      const uint8_t *base = static_cast<const uint8_t *>(a) + (r0 + t * kIgemmMR) * lda;
      int32_t *tile = out + t * groups * kIgemmMR;
      for (; 4 * first + 16 <= K; first += 4)
        for (int h = 0; h < kIgemmMR; h += 4) {
          const uint8_t *p = base + h * lda + 4 * first;
          const uint8_t *src[4] = {p, p + lda, p + 2 * lda, p + 3 * lda};
          quad_words_4x4(src, tile + first * kIgemmMR + h, flip);
        }
    }
#endif
    for (int r = 0; r < kIgemmMR; ++r) {
      const int64_t m = r0 + t * kIgemmMR + r;
      int32_t *dst = out + t * groups * kIgemmMR + r;
      if (m >= r1) {
        for (int64_t g = 0; g < groups; ++g)
          dst[g * kIgemmMR] = 0;
        continue;
      }
      const int32_t zp = igemm_a_zp(a_zp, a_unsigned, a_zp_kind, m);
      zrow[m - r0] = zp + shift;
      const int64_t row = m * lda;
      if (format == kIgemmQuads) {
        for (int64_t g = first; g < groups; ++g) {
          uint32_t word = 0;
          for (int64_t i = 0; i < 4; ++i) {
            const int64_t k = 4 * g + i;
            const uint32_t v = k < K ? uint32_t(igemm_a(a, a_unsigned, row + k) + shift) : 0u;
            word |= v << (8 * i);
          }
          dst[g * kIgemmMR] = static_cast<int32_t>(word);
        }
      } else {
        for (int64_t g = 0; g < groups; ++g) {
          const int64_t k = 2 * g;
          const int32_t lo = igemm_a(a, a_unsigned, row + k) - zp;
          const int32_t hi = k + 1 < K ? igemm_a(a, a_unsigned, row + k + 1) - zp : 0;
          const uint32_t word = uint32_t(static_cast<uint16_t>(static_cast<int16_t>(lo))) |
                                (uint32_t(static_cast<uint16_t>(static_cast<int16_t>(hi))) << 16);
          dst[g * kIgemmMR] = static_cast<int32_t>(word);
        }
      }
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
inline IV iv_maddubs(IV a, IV b) { return _mm512_maddubs_epi16(a, b); }
inline IV iv_add(IV a, IV b) { return _mm512_add_epi32(a, b); }
inline IV iv_sub(IV a, IV b) { return _mm512_sub_epi32(a, b); }
inline IV iv_mullo(IV a, IV b) { return _mm512_mullo_epi32(a, b); }
inline IV iv_ones16() { return _mm512_set1_epi16(1); }
constexpr int kIvLanes = 16;
#else
typedef __m256i IV;
inline IV iv_zero() { return _mm256_setzero_si256(); }
inline IV iv_load(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }
inline void iv_store(void *p, IV v) { _mm256_storeu_si256(static_cast<__m256i *>(p), v); }
inline IV iv_bcast(int32_t v) { return _mm256_set1_epi32(v); }
inline IV iv_madd(IV a, IV b) { return _mm256_madd_epi16(a, b); }
inline IV iv_maddubs(IV a, IV b) { return _mm256_maddubs_epi16(a, b); }
inline IV iv_add(IV a, IV b) { return _mm256_add_epi32(a, b); }
inline IV iv_sub(IV a, IV b) { return _mm256_sub_epi32(a, b); }
inline IV iv_mullo(IV a, IV b) { return _mm256_mullo_epi32(a, b); }
inline IV iv_ones16() { return _mm256_set1_epi16(1); }
constexpr int kIvLanes = 8;
#endif
constexpr int kIvPerTile = kIgemmNR / kIvLanes;

/// R rows x NR columns of C (pitch ldc; `nrows` <= R and `ncols` <= NR of
/// them stored; never inlined: inlined into a large caller, its accumulators
/// were spilled, a third of the speed) over `groups` groups of k steps: A words at ap[g*MR + r],
/// B lanes at bp + g*NR*4 bytes. Quads with `zrow` subtract zrow[r] *
/// colsum (the first K block); added to C when `accumulate`.
template <int R, int32_t Format>
ONNXCC_NOINLINE inline void igemm_tile(int64_t groups, const int32_t *ap, const void *bpv, int32_t *c,
                       int64_t ldc, int nrows, int ncols, bool accumulate, const int32_t *zrow,
                       const int32_t *colsum) {
  const char *bp = static_cast<const char *>(bpv);
  IV acc[R][kIvPerTile];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kIvPerTile; ++v)
      acc[r][v] = iv_zero();
  const IV ones = iv_ones16();
  for (int64_t g = 0; g < groups; ++g) {
    IV bv[kIvPerTile];
#pragma GCC unroll 4
    for (int v = 0; v < kIvPerTile; ++v) {
      bv[v] = iv_load(bp + (g * kIgemmNR + v * kIvLanes) * 4);
#if defined(__GNUC__)
      // Kept in a register: folded into each multiply as a memory operand,
      // the loads would outnumber the load ports (see the float ukernel).
      __asm__("" : "+v"(bv[v]));
#endif
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const IV a = iv_bcast(ap[g * kIgemmMR + r]);
#pragma GCC unroll 4
      for (int v = 0; v < kIvPerTile; ++v) {
        if constexpr (Format == kIgemmQuads)
          acc[r][v] = iv_add(acc[r][v], iv_madd(iv_maddubs(a, bv[v]), ones));
        else
          acc[r][v] = iv_add(acc[r][v], iv_madd(a, bv[v]));
      }
    }
  }
  if (Format == kIgemmQuads && zrow) {
#pragma GCC unroll 4
    for (int v = 0; v < kIvPerTile; ++v) {
      const IV cs = iv_load(colsum + v * kIvLanes);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r)
        acc[r][v] = iv_sub(acc[r][v], iv_mullo(iv_bcast(zrow[r]), cs));
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
/// uint32 so that a wrapping sum is defined behaviour. Quads compute the
/// products exactly (no int16 step: the compiler checked that none would
/// saturate, so the sums are the same).
template <int R, int32_t Format>
ONNXCC_NOINLINE inline void igemm_tile(int64_t groups, const int32_t *ap, const void *bpv, int32_t *c,
                       int64_t ldc, int nrows, int ncols, bool accumulate, const int32_t *zrow,
                       const int32_t *colsum) {
  uint32_t acc[R][kIgemmNR] = {};
  for (int64_t g = 0; g < groups; ++g)
    for (int r = 0; r < R; ++r) {
      const uint32_t word = static_cast<uint32_t>(ap[g * kIgemmMR + r]);
      if constexpr (Format == kIgemmQuads) {
        const int8_t *b = static_cast<const int8_t *>(bpv) + g * kIgemmNR * 4;
        for (int n = 0; n < kIgemmNR; ++n) {
          int32_t s = 0;
          for (int i = 0; i < 4; ++i)
            s += int32_t((word >> (8 * i)) & 0xff) * b[4 * n + i];
          acc[r][n] += static_cast<uint32_t>(s);
        }
      } else {
        const int32_t a0 = static_cast<int16_t>(word & 0xffff);
        const int32_t a1 = static_cast<int16_t>(word >> 16);
        const int16_t *b = static_cast<const int16_t *>(bpv) + g * kIgemmNR * 2;
        for (int n = 0; n < kIgemmNR; ++n)
          acc[r][n] += static_cast<uint32_t>(a0 * b[2 * n] + a1 * b[2 * n + 1]);
      }
    }
  if (Format == kIgemmQuads && zrow)
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < kIgemmNR; ++n)
        acc[r][n] -= static_cast<uint32_t>(zrow[r]) * static_cast<uint32_t>(colsum[n]);
  for (int r = 0; r < nrows; ++r)
    for (int n = 0; n < ncols; ++n) {
      uint32_t v = acc[r][n] + (accumulate ? static_cast<uint32_t>(c[r * ldc + n]) : 0u);
      c[r * ldc + n] = static_cast<int32_t>(v);
    }
}

#endif

/// The units of part `part` of one igemm_packed_b call in `Format`.
template <int32_t Format>
inline void igemm_run(const void *a, int32_t a_unsigned, int64_t lda, const void *a_zp,
                      int32_t a_zp_kind, const void *bpacked, int32_t *c, int64_t M, int64_t N,
                      int64_t K, int32_t *apack, int64_t part, int64_t parts) {
  constexpr int MR = kIgemmMR;
  constexpr int64_t NR = kIgemmNR;
  const int64_t groups = igemm_groups(Format, K), npan = ceil_div(N, NR);
  const int64_t blockGroups = kIgemmKc / igemm_group(Format);
  const char *bbase = static_cast<const char *>(bpacked);
  const int32_t *colsums =
      Format == kIgemmQuads
          ? reinterpret_cast<const int32_t *>(bbase + npan * NR * groups * 4)
          : nullptr;
  const int64_t chunks = ceil_div(M, kIgemmMc);
  // Enough units for every part: B panels split into groups when there
  // are fewer chunks of rows than parts.
  int64_t pgroups = 1;
  if (chunks < 2 * parts)
    pgroups = std::max<int64_t>(1, std::min(npan, ceil_div(2 * parts, chunks)));
  const int64_t total = chunks * pgroups;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  int32_t zrow[kIgemmMc] = {};
  int64_t converted = -1;
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t chunk = u / pgroups, pg = u % pgroups;
    const int64_t r0 = chunk * kIgemmMc, r1 = std::min(M, r0 + kIgemmMc);
    if (converted != chunk) {
      igemm_convert_a(a, a_unsigned, lda, a_zp, a_zp_kind, Format, r0, r1, K, apack, zrow);
      converted = chunk;
    }
    const int64_t j0 = npan * pg / pgroups, j1 = npan * (pg + 1) / pgroups;
    const int64_t tiles = ceil_div(r1 - r0, MR);
    for (int64_t j = j0; j < j1; ++j) {
      const int ncols = static_cast<int>(std::min<int64_t>(NR, N - j * NR));
      const char *bp = bbase + j * groups * NR * 4;
      const int32_t *cs = colsums ? colsums + j * NR : nullptr;
      for (int64_t g0 = 0; g0 < groups || g0 == 0; g0 += blockGroups) {
        const int64_t gc = std::min<int64_t>(blockGroups, groups - g0);
        for (int64_t t = 0; t < tiles; ++t) {
          const int64_t m = r0 + t * MR;
          const int nrows = static_cast<int>(std::min<int64_t>(MR, r1 - m));
          const int32_t *ap = apack + (t * groups + g0) * MR;
          int32_t *cp = c + m * N + j * NR;
          const int32_t *z = g0 == 0 ? zrow + (m - r0) : nullptr;
          if (nrows == 1)
            igemm_tile<1, Format>(gc, ap, bp + g0 * NR * 4, cp, N, 1, ncols, g0 > 0, z, cs);
          else
            igemm_tile<MR, Format>(gc, ap, bp + g0 * NR * 4, cp, N, nrows, ncols, g0 > 0, z,
                                   cs);
        }
        if (groups == 0)
          break;
      }
    }
  }
}

} // namespace detail

/// C[M][N] (int32) = (A - a_zp) x (B - b_zp) with B packed by pack_igemm_b
/// in `format`. A: M rows of K uint8 (a_unsigned) or int8 values, row pitch
/// lda; a_zp of A's type, absent (a_zp_kind 0), one value (1) or one per
/// row (2). scratch: igemm_scratch_bytes per part (part p uses the p-th
/// slice).
inline int igemm_packed_b(const void *a, int32_t a_unsigned, int64_t lda, const void *a_zp,
                          int32_t a_zp_kind, const void *bpacked, int32_t format, int32_t *c,
                          int64_t M, int64_t N, int64_t K, void *scratch, int64_t part,
                          int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA || (format != kIgemmPairs && format != kIgemmQuads))
    return kStatusWrongIsa;
  int32_t *apack =
      static_cast<int32_t *>(scratch) + part * (igemm_scratch_bytes(isa_check, K) / 4);
  if (format == kIgemmQuads)
    igemm_run<kIgemmQuads>(a, a_unsigned, lda, a_zp, a_zp_kind, bpacked, c, M, N, K, apack, part,
                           parts);
  else
    igemm_run<kIgemmPairs>(a, a_unsigned, lda, a_zp, a_zp_kind, bpacked, c, M, N, K, apack, part,
                           parts);
  return 0;
}

namespace detail {

/// Rows r0 .. r0+R-1 of C (pitch ldc) for 4-bit panel j: per block, the
/// products with the unsigned nibbles summed in float (k even and odd in
/// separate accumulators), then C += scale * (sum - z * sum_k a). Columns
/// past `ncols` are computed (scale 0) but not stored.
template <int R>
inline void q4_panel(const float *a, int64_t lda, int64_t K, int64_t block, const uint8_t *q,
                     const float *params, const float *bias, float *c, int64_t ldc, int ncols) {
  const int64_t blocks = ceil_div(K, block);
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  __m256 out[R][2];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 2; ++v)
      out[r][v] = bias ? (ncols == kQ4Nr ? _mm256_loadu_ps(bias + 8 * v)
                                         : _mm256_setzero_ps())
                       : _mm256_setzero_ps();
  alignas(32) float tailBias[kQ4Nr] = {};
  if (bias && ncols < kQ4Nr) {
    for (int n = 0; n < ncols; ++n)
      tailBias[n] = bias[n];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < 2; ++v)
        out[r][v] = _mm256_load_ps(tailBias + 8 * v);
  }
  const __m128i low = _mm_set1_epi8(0x0F);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t k0 = b * block, k1 = std::min(K, k0 + block);
    __m256 s0[R][2], s1[R][2], asum[R];
    for (int r = 0; r < R; ++r) {
      asum[r] = _mm256_setzero_ps();
      for (int v = 0; v < 2; ++v)
        s0[r][v] = s1[r][v] = _mm256_setzero_ps();
    }
    const uint8_t *qb = q + b * block * 8;
    int64_t k = k0;
    auto step = [&](int64_t kk, __m256(&acc)[R][2]) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(qb + (kk - k0) * 8));
      const __m128i lo = _mm_and_si128(bytes, low);
      const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), low);
      const __m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(lo));
      const __m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(hi));
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m256 av = _mm256_set1_ps(a[r * lda + kk]);
        asum[r] = _mm256_add_ps(asum[r], av);
        acc[r][0] = _mm256_fmadd_ps(av, f0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(av, f1, acc[r][1]);
      }
    };
    for (; k + 2 <= k1; k += 2) {
      step(k, s0);
      step(k + 1, s1);
    }
    if (k < k1)
      step(k, s0);
    const float *sc = params + b * 2 * kQ4Nr, *zs = sc + kQ4Nr;
    for (int v = 0; v < 2; ++v) {
      const __m256 sv = _mm256_loadu_ps(sc + 8 * v), zv = _mm256_loadu_ps(zs + 8 * v);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m256 sum = _mm256_add_ps(s0[r][v], s1[r][v]);
        out[r][v] = _mm256_fmadd_ps(sv, _mm256_fnmadd_ps(zv, asum[r], sum), out[r][v]);
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    if (ncols == kQ4Nr) {
      _mm256_storeu_ps(c + r * ldc, out[r][0]);
      _mm256_storeu_ps(c + r * ldc + 8, out[r][1]);
    } else {
      alignas(32) float tmp[kQ4Nr];
      _mm256_store_ps(tmp, out[r][0]);
      _mm256_store_ps(tmp + 8, out[r][1]);
      for (int n = 0; n < ncols; ++n)
        c[r * ldc + n] = tmp[n];
    }
  }
#else
  float out[R][kQ4Nr];
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < kQ4Nr; ++n)
      out[r][n] = bias && n < ncols ? bias[n] : 0.0f;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t k0 = b * block, k1 = std::min(K, k0 + block);
    float sum[R][kQ4Nr] = {}, asum[R] = {};
    const uint8_t *qb = q + b * block * 8;
    for (int64_t k = k0; k < k1; ++k) {
      const uint8_t *row = qb + (k - k0) * 8;
      for (int r = 0; r < R; ++r) {
        const float av = a[r * lda + k];
        asum[r] += av;
        for (int i = 0; i < 8; ++i) {
          sum[r][i] += av * static_cast<float>(row[i] & 0xF);
          sum[r][8 + i] += av * static_cast<float>(row[i] >> 4);
        }
      }
    }
    const float *sc = params + b * 2 * kQ4Nr, *zs = sc + kQ4Nr;
    for (int r = 0; r < R; ++r)
      for (int n = 0; n < kQ4Nr; ++n)
        out[r][n] += sc[n] * (sum[r][n] - zs[n] * asum[r]);
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < ncols; ++n)
      c[r * ldc + n] = out[r][n];
#endif
}

} // namespace detail

/// C[M][N] = act(A[M][K] x W + bias[N] + Z[M][N]) (bias and Z when given)
/// with W packed by pack_q4 (4-bit values, blocks of `block` k steps along
/// K): the weights stay 4-bit in memory, an eighth of float's bytes, and
/// are widened in registers. For the few rows of a decode step (a GEMV is
/// memory-bound); work units are panels of 16 columns. C may be Z itself.
inline int gemm_q4(const float *a, int64_t lda, const void *packed, const float *params,
                   const float *bias, int32_t has_bias, const float *z, int32_t has_z, float *c,
                   int64_t M, int64_t N, int64_t K, int64_t block, int32_t act, float p0,
                   float p1, int64_t part, int64_t parts, int32_t isa_check) {
  using namespace detail;
  const uint8_t *q = static_cast<const uint8_t *>(packed);
  if (isa_check != ONNXCC_KERNELS_ISA || block < 1)
    return kStatusWrongIsa;
  const int64_t panels = ceil_div(N, kQ4Nr), blocks = ceil_div(K, block);
  const int64_t j0 = panels * part / parts, j1 = panels * (part + 1) / parts;
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t *qj = q + j * blocks * block * 8;
    const float *pj = params + j * blocks * 2 * kQ4Nr;
    const float *bj = has_bias ? bias + j * kQ4Nr : nullptr;
    const int ncols = static_cast<int>(std::min<int64_t>(kQ4Nr, N - j * kQ4Nr));
    int64_t m = 0;
    for (; m + 4 <= M; m += 4)
      q4_panel<4>(a + m * lda, lda, K, block, qj, pj, bj, c + m * N + j * kQ4Nr, N, ncols);
    for (; m + 2 <= M; m += 2)
      q4_panel<2>(a + m * lda, lda, K, block, qj, pj, bj, c + m * N + j * kQ4Nr, N, ncols);
    for (; m < M; ++m)
      q4_panel<1>(a + m * lda, lda, K, block, qj, pj, bj, c + m * N + j * kQ4Nr, N, ncols);
    if (has_z || act != kActNone)
      for (m = 0; m < M; ++m) {
        float *row = c + m * N + j * kQ4Nr;
        if (has_z)
          for (int n = 0; n < ncols; ++n)
            row[n] += z[m * N + j * kQ4Nr + n];
        activate(row, ncols, act, p0, p1);
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

namespace detail {

/// Rows 0 .. rows-1 of A given transposed (A[m][k] at at[k*ldt + m],
/// bytes of uint8 or int8 values) converted for `format` like
/// igemm_convert_a does (the same words), with one zero point `zp` for all
/// rows: the layout an im2col of an NCHW convolution gives, whose columns
/// are output pixels. Quads of full tiles are 4 x 4 byte transposes.
inline void igemm_convert_at(const uint8_t *at, int64_t ldt, int64_t rows, int64_t K,
                             int32_t a_unsigned, int32_t zp, int32_t format, int32_t *out) {
  const int64_t groups = igemm_groups(format, K), tiles = ceil_div(rows, kIgemmMR);
  const uint32_t flip = a_unsigned ? 0u : 0x80808080u; // int8 + 128 as uint8
  auto value = [&](int64_t k, int64_t m) -> int32_t {
    const uint8_t raw = at[k * ldt + m];
    return a_unsigned ? int32_t(raw) : int32_t(static_cast<int8_t>(raw));
  };
  int64_t first = 0; // the first tile the loop below converts
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  // Quads of whole blocks of 16 pixels (4 or 2 tiles) at once: the bytes
  // of k = 4g .. 4g+3 interleaved by unpacks, 4 pixels' words per 16 bytes.
  if (format == kIgemmQuads) {
    const __m128i vflip = _mm_set1_epi32(static_cast<int32_t>(flip));
    const int64_t blocks = rows / 16, whole = K / 4;
    auto word = [&](int64_t g, int64_t m) -> int32_t {
      uint32_t w = 0;
      for (int64_t i = 0; i < 4; ++i)
        if (4 * g + i < K)
          w |= (uint32_t(at[(4 * g + i) * ldt + m]) ^ (flip & 0xffu)) << (8 * i);
      return static_cast<int32_t>(w);
    };
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t m0 = 16 * b;
      for (int64_t g = 0; g < whole; ++g) {
        const uint8_t *src = at + 4 * g * ldt + m0;
        const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src));
        const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + ldt));
        const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + 2 * ldt));
        const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + 3 * ldt));
        const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
        const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
        const __m128i words[4] = {_mm_unpacklo_epi16(lo01, lo23), _mm_unpackhi_epi16(lo01, lo23),
                                  _mm_unpacklo_epi16(hi01, hi23), _mm_unpackhi_epi16(hi01, hi23)};
        for (int q = 0; q < 4; ++q) {
          const int64_t m = m0 + 4 * q;
          int32_t *dst = out + (m / kIgemmMR) * groups * kIgemmMR + g * kIgemmMR + m % kIgemmMR;
          _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), _mm_xor_si128(words[q], vflip));
        }
      }
      for (int64_t g = whole; g < groups; ++g)
        for (int64_t m = m0; m < m0 + 16; ++m)
          out[(m / kIgemmMR) * groups * kIgemmMR + g * kIgemmMR + m % kIgemmMR] = word(g, m);
    }
    first = blocks * 16 / kIgemmMR;
  }
#endif
  for (int64_t t = first; t < tiles; ++t) {
    const int64_t m0 = t * kIgemmMR;
    int32_t *tile = out + t * groups * kIgemmMR;
    const bool full = m0 + kIgemmMR <= rows;
    if (format == kIgemmQuads) {
      int64_t g = 0;
      if (full)
        for (; 4 * g + 4 <= K; ++g)
          for (int h = 0; h < kIgemmMR; h += 4) {
            // Row i of the 4 x 4 block: bytes k = 4g + i of pixels m0+h ..
            // m0+h+3; the word of pixel r packs its four k bytes.
            uint32_t in[4];
            for (int i = 0; i < 4; ++i)
              std::memcpy(&in[i], at + (4 * g + i) * ldt + m0 + h, 4);
            for (int r = 0; r < 4; ++r) {
              const uint32_t word = ((in[0] >> (8 * r)) & 0xffu) |
                                    (((in[1] >> (8 * r)) & 0xffu) << 8) |
                                    (((in[2] >> (8 * r)) & 0xffu) << 16) |
                                    (((in[3] >> (8 * r)) & 0xffu) << 24);
              tile[g * kIgemmMR + h + r] = static_cast<int32_t>(word ^ flip);
            }
          }
      for (; g < groups; ++g)
        for (int r = 0; r < kIgemmMR; ++r) {
          uint32_t word = 0;
          if (m0 + r < rows)
            for (int64_t i = 0; i < 4; ++i) {
              const int64_t k = 4 * g + i;
              if (k < K)
                word |= (uint32_t(at[k * ldt + m0 + r]) ^ (flip & 0xffu)) << (8 * i);
            }
          tile[g * kIgemmMR + r] = static_cast<int32_t>(word);
        }
    } else {
      for (int64_t g = 0; g < groups; ++g)
        for (int r = 0; r < kIgemmMR; ++r) {
          const int64_t m = m0 + r, k = 2 * g;
          int32_t lo = 0, hi = 0;
          if (m < rows) {
            lo = value(k, m) - zp;
            hi = k + 1 < K ? value(k + 1, m) - zp : 0;
          }
          tile[g * kIgemmMR + r] = static_cast<int32_t>(
              uint32_t(static_cast<uint16_t>(static_cast<int16_t>(lo))) |
              (uint32_t(static_cast<uint16_t>(static_cast<int16_t>(hi))) << 16));
        }
    }
  }
}

/// The geometry of a 2-D convolution of one group (NCHW, OIHW weights).
struct QconvShape {
  int64_t C, H, W, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW;
  /// Channels per pixel of the channels-last copy: C rounded up to 4 (the
  /// extra ones hold the zero point, their weights B' = 0).
  int64_t Cp;
};

/// im2col of output pixels p0 .. p0+rows-1 of one image: at[k][i] (pitch
/// kIgemmMc) = x[c][iy][ix] for k = (c, ky, kx), iy = oy*SH - PT + ky*DH,
/// ix = ox*SW - PL + kx*DW, or the zero point byte outside the image.
inline void qconv_im2col(const uint8_t *x, const QconvShape &s, uint8_t zp, int64_t p0,
                         int64_t rows, uint8_t *at) {
  int64_t k = 0;
  for (int64_t c = 0; c < s.C; ++c)
    for (int64_t ky = 0; ky < s.KH; ++ky)
      for (int64_t kx = 0; kx < s.KW; ++kx, ++k) {
        uint8_t *dst = at + k * kIgemmMc;
        for (int64_t i = 0; i < rows;) {
          const int64_t p = p0 + i, oy = p / s.OW, ox = p % s.OW;
          const int64_t seg = std::min(s.OW - ox, rows - i);
          const int64_t iy = oy * s.SH - s.PT + ky * s.DH;
          if (iy < 0 || iy >= s.H) {
            std::memset(dst + i, zp, static_cast<size_t>(seg));
          } else {
            const uint8_t *src = x + (c * s.H + iy) * s.W;
            const int64_t x0 = kx * s.DW - s.PL;
            // Output columns ox .. ox+seg-1 whose ix is inside [0, W).
            int64_t lo = ox, hi = ox + seg;
            if (x0 < 0)
              lo = std::max(lo, ceil_div(-x0, s.SW));
            hi = std::min(hi, s.W - x0 > 0 ? ceil_div(s.W - x0, s.SW) : 0);
            if (hi <= lo) {
              std::memset(dst + i, zp, static_cast<size_t>(seg));
            } else {
              std::memset(dst + i, zp, static_cast<size_t>(lo - ox));
              if (s.SW == 1) {
                std::memcpy(dst + i + (lo - ox), src + lo + x0, static_cast<size_t>(hi - lo));
              } else {
                for (int64_t o = lo; o < hi; ++o)
                  dst[i + o - ox] = src[o * s.SW + x0];
              }
              std::memset(dst + i + (hi - ox), zp, static_cast<size_t>(ox + seg - hi));
            }
          }
          i += seg;
        }
      }
}

/// Rows py0 .. py1-1 of one image (NCHW, `s.C` planes of H x W) as
/// channels-last rows of the padded frame the windows read: out[(py * Wp +
/// px) * C + c] = x[c][py - PT][px - PL], or the zero point byte outside
/// the image.
inline void qconv_pad_channels_last(const uint8_t *x, const QconvShape &s, uint8_t zp,
                                    int64_t py0, int64_t py1, int64_t Wp, uint8_t *out) {
  for (int64_t py = py0; py < py1; ++py) {
    uint8_t *row = out + py * Wp * s.Cp;
    const int64_t iy = py - s.PT;
    if (iy < 0 || iy >= s.H) {
      std::memset(row, zp, static_cast<size_t>(Wp * s.Cp));
      continue;
    }
    const int64_t x0 = std::min(Wp, std::max<int64_t>(0, s.PL));
    const int64_t x1 = std::max(x0, std::min(Wp, s.PL + s.W));
    if (s.Cp != s.C) {
      std::memset(row, zp, static_cast<size_t>(Wp * s.Cp));
    } else {
      std::memset(row, zp, static_cast<size_t>(x0 * s.Cp));
      std::memset(row + x1 * s.Cp, zp, static_cast<size_t>((Wp - x1) * s.Cp));
    }
    for (int64_t c = 0; c < s.C; ++c) {
      const uint8_t *src = x + (c * s.H + iy) * s.W - s.PL;
      for (int64_t px = x0; px < x1; ++px)
        row[px * s.Cp + c] = src[px];
    }
  }
}

/// Output pixels p0 .. p0+rows-1 converted for `Format` (the words
/// igemm_convert_a makes of their im2col rows) straight from the padded
/// channels-last image: the group g of pixel (oy, ox) is the 4 (quads) or 2
/// (pairs) bytes at ((oy*SH) * Wp + ox*SW) * C + goff[g].
inline void qconv_convert_channels(const uint8_t *img, const QconvShape &s, int64_t Wp,
                                   const int64_t *goff, int64_t p0, int64_t rows,
                                   int64_t groups, int32_t a_unsigned, int32_t zp,
                                   int32_t format, int32_t *out) {
  const int64_t tiles = ceil_div(rows, kIgemmMR);
  const uint32_t flip = a_unsigned ? 0u : 0x80808080u;
  for (int64_t t = 0; t < tiles; ++t) {
    int32_t *tile = out + t * groups * kIgemmMR;
    const uint8_t *base[kIgemmMR];
    for (int r = 0; r < kIgemmMR; ++r) {
      const int64_t m = t * kIgemmMR + r;
      // Rows past the chunk read its first pixel (never stored).
      const int64_t p = p0 + (m < rows ? m : 0), oy = p / s.OW, ox = p % s.OW;
      base[r] = img + ((oy * s.SH) * Wp + ox * s.SW) * s.Cp;
    }
    if (format == kIgemmQuads) {
      int64_t g = 0;
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
      // Four groups of four rows at a time, where the four groups are
      // adjacent bytes: a 4 x 4 transpose of 32-bit words.
      const __m128i vflip = _mm_set1_epi32(static_cast<int32_t>(flip));
      while (g + 4 <= groups) {
        if (goff[g + 3] != goff[g] + 12) {
          // Not adjacent (a window row ends): this group alone.
          for (int r = 0; r < kIgemmMR; ++r) {
            uint32_t w;
            std::memcpy(&w, base[r] + goff[g], 4);
            tile[g * kIgemmMR + r] = static_cast<int32_t>(w ^ flip);
          }
          ++g;
          continue;
        }
        for (int h = 0; h < kIgemmMR; h += 4) {
          const uint8_t *src[4] = {base[h] + goff[g], base[h + 1] + goff[g],
                                   base[h + 2] + goff[g], base[h + 3] + goff[g]};
          quad_words_4x4(src, tile + g * kIgemmMR + h, vflip);
        }
        g += 4;
      }
#endif
      for (; g < groups; ++g)
        for (int r = 0; r < kIgemmMR; ++r) {
          uint32_t w;
          std::memcpy(&w, base[r] + goff[g], 4);
          tile[g * kIgemmMR + r] = static_cast<int32_t>(w ^ flip);
        }
    } else {
      for (int64_t g = 0; g < groups; ++g)
        for (int r = 0; r < kIgemmMR; ++r) {
          const uint8_t *b = base[r] + goff[g];
          const int32_t lo = (a_unsigned ? int32_t(b[0]) : int32_t(int8_t(b[0]))) - zp;
          const int32_t hi = (a_unsigned ? int32_t(b[1]) : int32_t(int8_t(b[1]))) - zp;
          tile[g * kIgemmMR + r] = static_cast<int32_t>(
              uint32_t(static_cast<uint16_t>(static_cast<int16_t>(lo))) |
              (uint32_t(static_cast<uint16_t>(static_cast<int16_t>(hi))) << 16));
        }
    }
  }
}

/// saturate(round_half_even(float(acc) * mult) + y_zp) to [lo, hi] (NaN
/// to 0), the operations of QLinearConv's loop lowering (acc includes the
/// bias).
inline int32_t qconv_requantize(int32_t acc, float mult, float y_zp, float lo, float hi) {
  float r = dql_round_even(static_cast<float>(acc) * mult) + y_zp;
  if (r != r)
    return 0;
  return static_cast<int32_t>(std::min(std::max(r, lo), hi));
}

/// The units of part `part` of one qconv_packed_w call in `Format`.
template <int32_t Format>
inline void qconv_run(const uint8_t *x, int32_t x_unsigned, int32_t zp, int64_t batch,
                      const QconvShape &s, int32_t layout, const void *bpacked, int64_t N, const int32_t *bias,
                      const float *mult, float y_zp, float lo, float hi, int32_t y_unsigned,
                      uint8_t *y, char *scratch, int64_t part, int64_t parts) {
  constexpr int MR = kIgemmMR;
  constexpr int64_t NR = kIgemmNR;
  const bool channels = layout == kQconvChannels;
  const int64_t K = (channels ? s.Cp : s.C) * s.KH * s.KW, P = s.OH * s.OW;
  const int64_t inPixels = s.H * s.W;
  const int64_t groups = igemm_groups(Format, K), npan = ceil_div(N, NR);
  const int64_t blockGroups = kIgemmKc / igemm_group(Format), ldc = npan * NR;
  const char *bbase = static_cast<const char *>(bpacked);
  const int32_t *colsums =
      Format == kIgemmQuads ? reinterpret_cast<const int32_t *>(bbase + npan * NR * groups * 4)
                            : nullptr;
  const int64_t Hp = (s.OH - 1) * s.SH + (s.KH - 1) * s.DH + 1;
  const int64_t Wp = (s.OW - 1) * s.SW + (s.KW - 1) * s.DW + 1;
  const int64_t padded = channels ? Hp * Wp * s.Cp : 0;
  uint8_t *at = reinterpret_cast<uint8_t *>(scratch);
  int64_t *goff = reinterpret_cast<int64_t *>(scratch + round_up(padded, 64));
  int32_t *apack = reinterpret_cast<int32_t *>(
      scratch + (channels ? round_up(padded, 64) + round_up(igemm_groups(kIgemmPairs, K) * 8, 64)
                          : round_up(K * kIgemmMc, 64)));
  int32_t *cbuf = apack + igemm_scratch_bytes(ONNXCC_KERNELS_ISA, K) / 4;
  uint8_t *stage = reinterpret_cast<uint8_t *>(cbuf + kIgemmMc * ldc);
  if (channels)
    for (int64_t g = 0; g < groups; ++g) {
      // Group g's first k = (ky, kx, c): its offset from a window's corner.
      const int64_t k0 = g * igemm_group(Format), kyx = k0 / s.Cp, c = k0 % s.Cp;
      goff[g] = ((kyx / s.KW) * s.DH * Wp + (kyx % s.KW) * s.DW) * s.Cp + c;
    }
  const int64_t chunks = ceil_div(P, kIgemmMc) * batch;
  int64_t pgroups = 1;
  if (chunks < 2 * parts)
    pgroups = std::max<int64_t>(1, std::min(npan, ceil_div(2 * parts, chunks)));
  const int64_t total = chunks * pgroups;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  const int32_t shift = x_unsigned ? 0 : 128;
  int32_t zrow[kIgemmMc];
  for (int64_t i = 0; i < kIgemmMc; ++i)
    zrow[i] = zp + shift;
  // The padded rows of image `image` made so far: [0, madeRows) is not
  // needed, only the rows this part's chunks read are made, in order.
  int64_t converted = -1, image = -1, madeRows = 0;
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t chunk = u / pgroups, pg = u % pgroups;
    const int64_t n = chunk / ceil_div(P, kIgemmMc);
    const int64_t p0 = (chunk % ceil_div(P, kIgemmMc)) * kIgemmMc;
    const int64_t rows = std::min(kIgemmMc, P - p0);
    const uint8_t *xn = x + n * s.C * inPixels;
    if (channels) {
      // The frame rows that output rows oy0 .. oy1 read.
      const int64_t oy0 = p0 / s.OW, oy1 = (p0 + rows - 1) / s.OW;
      const int64_t need0 = oy0 * s.SH, need1 = std::min(Hp, oy1 * s.SH + (s.KH - 1) * s.DH + 1);
      if (image != n) {
        image = n;
        madeRows = need0;
      }
      if (need1 > madeRows) {
        qconv_pad_channels_last(xn, s, static_cast<uint8_t>(zp), std::max(madeRows, need0),
                                need1, Wp, at);
        madeRows = need1;
      }
    }
    if (converted != chunk) {
      if (channels) {
        qconv_convert_channels(at, s, Wp, goff, p0, rows, groups, x_unsigned, zp, Format,
                               apack);
      } else {
        qconv_im2col(xn, s, static_cast<uint8_t>(zp), p0, rows, at);
        igemm_convert_at(at, kIgemmMc, rows, K, x_unsigned, zp, Format, apack);
      }
      converted = chunk;
    }
    const int64_t j0 = npan * pg / pgroups, j1 = npan * (pg + 1) / pgroups;
    const int64_t tiles = ceil_div(rows, MR);
    for (int64_t j = j0; j < j1; ++j) {
      const char *bp = bbase + j * groups * NR * 4;
      const int32_t *cs = colsums ? colsums + j * NR : nullptr;
      for (int64_t g0 = 0; g0 < groups || g0 == 0; g0 += blockGroups) {
        const int64_t gc = std::min<int64_t>(blockGroups, groups - g0);
        for (int64_t t = 0; t < tiles; ++t) {
          const int nrows = static_cast<int>(std::min<int64_t>(MR, rows - t * MR));
          const int32_t *ap = apack + (t * groups + g0) * MR;
          int32_t *cp = cbuf + t * MR * ldc + j * NR;
          const int32_t *z = g0 == 0 ? zrow : nullptr;
          igemm_tile<MR, Format>(gc, ap, bp + g0 * NR * 4, cp, ldc, nrows, static_cast<int>(NR),
                                 g0 > 0, z, cs);
        }
        if (groups == 0)
          break;
      }
    }
    // Requantized a row of the chunk at a time (vectors along the
    // channels), then moved into the channel planes y[n][col][p0 + r].
    const int64_t c0 = j0 * NR, c1 = std::min(N, j1 * NR);
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t *crow = cbuf + r * ldc;
      uint8_t *srow = stage + r * ldc;
      int64_t col = c0;
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
      const __m256 vz = _mm256_set1_ps(y_zp), vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
      for (; col + 8 <= c1; col += 8) {
        __m256i acc = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(crow + col));
        if (bias)
          acc = _mm256_add_epi32(acc,
                                 _mm256_loadu_si256(reinterpret_cast<const __m256i *>(bias + col)));
        __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(mult + col));
        v = _mm256_add_ps(_mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vz);
        const __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
        v = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(v, vlo), vhi));
        const __m256i q = _mm256_cvttps_epi32(v);
        const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        const __m128i bytes = y_unsigned ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w);
        _mm_storel_epi64(reinterpret_cast<__m128i *>(srow + col), bytes);
      }
#endif
      for (; col < c1; ++col) {
        const int32_t acc = static_cast<int32_t>(static_cast<uint32_t>(crow[col]) +
                                                 static_cast<uint32_t>(bias ? bias[col] : 0));
        srow[col] = static_cast<uint8_t>(qconv_requantize(acc, mult[col], y_zp, lo, hi));
      }
    }
    uint8_t *yn = y + n * N * P + p0;
    for (int64_t col = c0; col < c1; ++col) {
      uint8_t *dst = yn + col * P;
      for (int64_t r = 0; r < rows; ++r)
        dst[r] = stage[r * ldc + col];
    }
  }
}

} // namespace detail

/// QLinearConv of a 2-D, one-group convolution (NCHW) with its weights
/// packed at compile time: W [N][C][KH][KW] as B[K][N] in the order of
/// `layout` (QconvLayout) by pack_igemm_b (its zero points per output
/// channel folded in). x is
/// uint8 (x_unsigned) or int8 with one zero point x_zp (of x's type);
/// y[n][o][p] = saturate(round_half_even(float(sum + bias[o]) * mult[o]) +
/// y_zp) to [lo, hi], sum the exact int32 sum of (x - x_zp)(w - w_zp[o])
/// over the window (padding reads x_zp), mult[o] = x_scale * w_scale[o] /
/// y_scale as the loops compute it: the bytes of the loop lowering. The
/// output pixels of each image go a chunk at a time through an im2col (none
/// for a 1x1 convolution of stride 1) and the int8 GEMM's tiles, then are
/// requantized into the channel planes. scratch: qconv_scratch_bytes per
/// part.
inline int qconv_packed_w(const void *x, int32_t x_unsigned, const void *x_zp, int64_t batch,
                          int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t SH,
                          int64_t SW, int64_t DH, int64_t DW, int64_t PT, int64_t PL, int64_t OH,
                          int64_t OW, int32_t layout, const void *wpacked, int32_t format,
                          int64_t N,
                          const int32_t *bias, int32_t has_bias, const float *mult, float y_zp,
                          float lo, float hi, int32_t y_unsigned, void *y, void *scratch,
                          int64_t part, int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA || (format != kIgemmPairs && format != kIgemmQuads) ||
      (layout != kQconvIm2col && layout != kQconvChannels))
    return kStatusWrongIsa;
  const QconvShape s{C, H, W, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW, round_up(C, 4)};
  const int64_t K = (layout == kQconvChannels ? s.Cp : C) * KH * KW;
  const int64_t padded = qconv_padded_bytes(layout, C, KH, KW, SH, SW, DH, DW, OH, OW);
  const uint8_t zpByte = *static_cast<const uint8_t *>(x_zp);
  const int32_t zp = x_unsigned ? int32_t(zpByte) : int32_t(static_cast<int8_t>(zpByte));
  char *slice = static_cast<char *>(scratch) + part * qconv_scratch_bytes(isa_check, K, N, padded);
  const int32_t *b = has_bias ? bias : nullptr;
  const uint8_t *xb = static_cast<const uint8_t *>(x);
  uint8_t *yb = static_cast<uint8_t *>(y);
  if (format == kIgemmQuads)
    qconv_run<kIgemmQuads>(xb, x_unsigned, zp, batch, s, layout, wpacked, N, b, mult, y_zp, lo, hi,
                           y_unsigned, yb, slice, part, parts);
  else
    qconv_run<kIgemmPairs>(xb, x_unsigned, zp, batch, s, layout, wpacked, N, b, mult, y_zp, lo, hi,
                           y_unsigned, yb, slice, part, parts);
  return 0;
}

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

/// QuantizeLinear then DequantizeLinear, per tensor (a QDQ graph's
/// activations): q = saturate(round_half_even(x / q_scale) + q_zp) to [lo,
/// hi], y = (q - dq_zp) * dq_scale (dq_zp only when has_dq_zp), the same
/// operations in the same order as the two ops' loops, so the same bits; NaN
/// quantizes to 0 as the generated code's conversion does (ABI.md). One pass
/// instead of two, and vectorized whatever the build's -march.
inline int quantize_dequantize(const float *x, float *y, int64_t n, float q_scale, float q_zp,
                               float lo, float hi, float dq_scale, float dq_zp,
                               int32_t has_dq_zp, int64_t part, int64_t parts,
                               int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  int64_t i = n * part / parts;
  const int64_t end = n * (part + 1) / parts;
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  const __m256 vs = _mm256_set1_ps(q_scale), vz = _mm256_set1_ps(q_zp);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  const __m256 ds = _mm256_set1_ps(dq_scale), dz = _mm256_set1_ps(dq_zp);
  for (; i + 8 <= end; i += 8) {
    __m256 r = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x + i), vs),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_add_ps(r, vz);
    const __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
    r = _mm256_min_ps(_mm256_max_ps(r, vlo), vhi);
    r = _mm256_andnot_ps(nan, r);
    if (has_dq_zp)
      r = _mm256_sub_ps(r, dz);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(r, ds));
  }
#endif
  for (; i < end; ++i) {
    float r = dql_round_even(x[i] / q_scale) + q_zp;
    r = r != r ? 0.0f : std::min(std::max(r, lo), hi);
    if (has_dq_zp)
      r = r - dq_zp;
    y[i] = r * dq_scale;
  }
  return 0;
}

/// QuantizeLinear per tensor from float32 to 8 bits: y = saturate(
/// round_half_even(x / scale) + zp) to [lo, hi] (uint8 when y_unsigned),
/// NaN to 0: the operations of the op's loops (the same bytes), vectorized
/// whatever the build's -march.
inline int quantize_linear_8(const float *x, void *y, int64_t n, float scale, float zp,
                             float lo, float hi, int32_t y_unsigned, int64_t part, int64_t parts,
                             int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  uint8_t *out = static_cast<uint8_t *>(y);
  int64_t i = n * part / parts;
  const int64_t end = n * (part + 1) / parts;
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  const __m256 vs = _mm256_set1_ps(scale), vz = _mm256_set1_ps(zp);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  for (; i + 32 <= end; i += 32) {
    __m256i q[4];
    for (int j = 0; j < 4; ++j) {
      __m256 r = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x + i + 8 * j), vs),
                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      r = _mm256_add_ps(r, vz);
      const __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
      r = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(r, vlo), vhi));
      q[j] = _mm256_cvttps_epi32(r);
    }
    // 32 int32 in [lo, hi] -> 32 bytes in order (packs work per 128-bit
    // lane: the permute puts the lanes back).
    const __m256i w01 = _mm256_packs_epi32(q[0], q[1]), w23 = _mm256_packs_epi32(q[2], q[3]);
    __m256i b = y_unsigned ? _mm256_packus_epi16(w01, w23) : _mm256_packs_epi16(w01, w23);
    b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), b);
  }
#endif
  for (; i < end; ++i) {
    float r = dql_round_even(x[i] / scale) + zp;
    r = r != r ? 0.0f : std::min(std::max(r, lo), hi);
    out[i] = static_cast<uint8_t>(static_cast<int32_t>(r));
  }
  return 0;
}

namespace detail {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
/// 8 bytes at p (uint8 or int8) as floats.
inline __m256 bytes_to_ps(const void *p, int32_t is_unsigned) {
  const __m128i v = _mm_loadl_epi64(static_cast<const __m128i *>(p));
  return _mm256_cvtepi32_ps(is_unsigned ? _mm256_cvtepu8_epi32(v) : _mm256_cvtepi8_epi32(v));
}
#endif
inline float byte_value(const void *p, int64_t i, int32_t is_unsigned) {
  return is_unsigned ? float(static_cast<const uint8_t *>(p)[i])
                     : float(static_cast<const int8_t *>(p)[i]);
}
} // namespace detail

/// The residual addition of a QDQ graph in one pass: y = QuantizeLinear(
/// [Relu](DequantizeLinear(a) + DequantizeLinear(b))), every parameter per
/// tensor: (a - za) * sa + (b - zb) * sb in float32, max with 0 when
/// `relu`, then / sy, rounded half to even, + zy, saturated to [lo, hi]
/// (NaN to 0): the operations of the four ops' loops, so the same bytes.
/// a, b and y are 8-bit (uint8 where the flag says), n elements each.
inline int qdq_add_8(const void *a, int32_t a_unsigned, float sa, float za, const void *b,
                     int32_t b_unsigned, float sb, float zb, int32_t relu, void *y, int64_t n,
                     float sy, float zy, float lo, float hi, int32_t y_unsigned, int64_t part,
                     int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  const uint8_t *pa = static_cast<const uint8_t *>(a), *pb = static_cast<const uint8_t *>(b);
  uint8_t *out = static_cast<uint8_t *>(y);
  int64_t i = n * part / parts;
  const int64_t end = n * (part + 1) / parts;
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  const __m256 vsa = _mm256_set1_ps(sa), vza = _mm256_set1_ps(za);
  const __m256 vsb = _mm256_set1_ps(sb), vzb = _mm256_set1_ps(zb);
  const __m256 vsy = _mm256_set1_ps(sy), vzy = _mm256_set1_ps(zy);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi), zero = _mm256_setzero_ps();
  for (; i + 16 <= end; i += 16) {
    __m256i q[2];
    for (int j = 0; j < 2; ++j) {
      const __m256 fa = _mm256_mul_ps(_mm256_sub_ps(bytes_to_ps(pa + i + 8 * j, a_unsigned), vza), vsa);
      const __m256 fb = _mm256_mul_ps(_mm256_sub_ps(bytes_to_ps(pb + i + 8 * j, b_unsigned), vzb), vsb);
      __m256 v = _mm256_add_ps(fa, fb);
      if (relu)
        v = _mm256_max_ps(v, zero);
      v = _mm256_add_ps(
          _mm256_round_ps(_mm256_div_ps(v, vsy), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
          vzy);
      const __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
      v = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(v, vlo), vhi));
      q[j] = _mm256_cvttps_epi32(v);
    }
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xd8);
    const __m128i w0 = _mm256_castsi256_si128(w), w1 = _mm256_extracti128_si256(w, 1);
    const __m128i bytes = y_unsigned ? _mm_packus_epi16(w0, w1) : _mm_packs_epi16(w0, w1);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), bytes);
  }
#endif
  for (; i < end; ++i) {
    // One rounding per operation, as the vectors do (no contraction into a
    // fused multiply-add across statements).
    const float fa = (byte_value(pa, i, a_unsigned) - za) * sa;
    const float fb = (byte_value(pb, i, b_unsigned) - zb) * sb;
    float v = fa + fb;
    if (relu)
      v = v > 0.0f ? v : 0.0f;
    float r = dql_round_even(v / sy) + zy;
    r = r != r ? 0.0f : std::min(std::max(r, lo), hi);
    out[i] = static_cast<uint8_t>(static_cast<int32_t>(r));
  }
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
