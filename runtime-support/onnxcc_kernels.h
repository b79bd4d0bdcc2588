// onnxcc_kernels.h - float32 compute kernels of the onnxcc runtime support:
// convolution (im2col + register-blocked GEMM), GEMM with a packed constant B
// operand, depthwise convolution and vectorized activations.
//
// Header-only, C++17, standard library plus <immintrin.h> on x86 or
// <arm_neon.h> on AArch64. Generated
// code defines ONNXCC_KERNELS_ISA before including this header; the SIMD
// code enables its instruction set itself (target pragmas), so the generated
// source builds with a plain `c++ -std=c++17 -O2`. The packing and sizing
// functions are plain portable C++: the onnxcc compiler includes this header
// to pack constant weights at compile time.
//
// Matrix products use one scheme everywhere: an MR x NR tile of the output
// lives in vector registers; per step k the kernel loads NR values of the "B"
// operand (NV vectors) and broadcasts MR values of the "A" operand.
//  - conv2d: A = packed weights (MR output channels per panel), B = im2col of
//    the input (output pixels are the vector dimension), packed per block of
//    pixels into scratch, blocked over K so the block stays in L2.
//  - gemm_packed_b: A = activation rows, B = packed weights (NR columns per
//    panel).
//  - conv2d_nhwc (channels last): A = im2col rows of the input (or the input
//    itself for 1x1 stride-1 convs), B = weights packed like pack_gemm_b.
//  - depthwise_conv2d_nhwc: channels are the vector dimension; 3x3 / 5x5
//    kernels keep their weight vectors in registers (dw_nhwc_vec).
// Tiles: AVX-512 8 x 48 (24 zmm accumulators), AVX2 4 x 24 (12 ymm), NEON
// 8 x 12 (24 of the 32 q registers), generic 8 x 8 (gemm 4 x 8) in plain
// loops. Column tails use masked loads
// and stores; nothing is read or written outside the buffers.
//
// Aliasing: the output may be the z (residual) operand itself; it must not
// overlap x, the weights, bias or scratch. Work split: a call computes part
// `part` of `parts` (a fixed slice of the work units); every output element
// is computed by the same sequence of operations whatever the split, so the
// results are bitwise identical for any `parts`.
#ifndef ONNXCC_KERNELS_H
#define ONNXCC_KERNELS_H

#define ONNXCC_ISA_GENERIC 0
#define ONNXCC_ISA_AVX2 1
#define ONNXCC_ISA_AVX512 2
#define ONNXCC_ISA_NEON 3

#ifndef ONNXCC_KERNELS_ISA
#define ONNXCC_KERNELS_ISA ONNXCC_ISA_GENERIC
#endif

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
#if !(defined(__x86_64__) || defined(_M_X64))
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
#error "onnxcc: generated for x86 AVX-512; recompile the model with --target-cpu generic"
#else
#error "onnxcc: generated for x86 AVX2; recompile the model with --target-cpu generic"
#endif
#endif
#if !defined(__GNUC__)
#error "onnxcc: the x86 kernels need GCC or clang; recompile the model with --target-cpu generic"
#endif
#include <immintrin.h>
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_NEON
#if !defined(__aarch64__) && !defined(_M_ARM64)
#error "onnxcc: generated for AArch64 NEON; recompile the model with --target-cpu generic"
#endif
#include <arm_neon.h>
#elif ONNXCC_KERNELS_ISA != ONNXCC_ISA_GENERIC
#error "onnxcc: unknown ONNXCC_KERNELS_ISA"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace onnxcc_rt {
namespace kernels {

/// Statuses of the kernels (see codegen/cpp/ABI.md): the weights were packed
/// for another ISA than ONNXCC_KERNELS_ISA; the CPU lacks the ISA's
/// instructions.
constexpr int kStatusWrongIsa = 7;
constexpr int kStatusCpuUnsupported = 8;

/// Whether the running CPU has the instructions of ONNXCC_KERNELS_ISA (run()
/// checks this first, so that a model compiled for another machine returns
/// a status instead of dying of an illegal instruction). F16C, which every
/// AVX2 CPU has, is not asked for: clang 14 does not know its name. NEON
/// (Advanced SIMD) is part of every AArch64 CPU.
inline bool cpu_supported() {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#else
  return true;
#endif
}

//===----------------------------------------------------------------------===//
// Layout constants and packing (portable, any host).
//===----------------------------------------------------------------------===//

/// Output channels per packed conv-weight panel (rows of the register tile).
constexpr int conv_mr(int isa) { return isa == ONNXCC_ISA_AVX2 ? 4 : 8; }
/// Output pixels per conv register tile (columns of the tile).
constexpr int conv_nr(int isa) {
  return isa == ONNXCC_ISA_AVX512 ? 48
         : isa == ONNXCC_ISA_AVX2 ? 24
         : isa == ONNXCC_ISA_NEON ? 12
                                  : 8;
}
/// Columns per packed GEMM-B panel.
constexpr int gemm_nr(int isa) { return conv_nr(isa); }
/// Rows of the GEMM register tile (Vec::GemmMR of the ISA).
constexpr int gemm_mr(int isa) {
  return isa == ONNXCC_ISA_AVX512 || isa == ONNXCC_ISA_NEON ? 8 : 4;
}

namespace detail {
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

/// Cache blocking of a convolution: K (= Cg*KH*KW) is cut into blocks of
/// `kc` and the OH*OW output pixels into blocks of `nb` (a multiple of the
/// tile width). One packed im2col block (kc x nb floats, ~256 KB) stays in
/// L2 while every weight panel streams over it; the kc x MR slice of a
/// weight panel stays in L1 across the tiles of the block.
struct ConvPlan {
  int64_t kc, nb;
};
inline ConvPlan conv_plan(int isa, int64_t K, int64_t P) {
  const int64_t nr = conv_nr(isa);
  const int64_t kcMax = 256;
  int64_t nk = ceil_div(K, kcMax);
  int64_t kc = ceil_div(K, nk);
  int64_t nbMax = std::max<int64_t>(nr, (int64_t(64) * 1024 / kc) / nr * nr);
  int64_t npb = ceil_div(P, nbMax);
  int64_t nb = round_up(ceil_div(P, npb), nr);
  return {kc, nb};
}

/// GEMM: K is cut into blocks of this many steps (C is re-read per block).
constexpr int64_t kGemmKc = 512;
} // namespace detail

inline int64_t packed_conv_weights_floats(int isa, int64_t M, int64_t K, int64_t G) {
  int64_t mr = conv_mr(isa);
  return G * detail::round_up(M / G, mr) * K;
}

/// Packs conv weights W[M][K] (K = Cg*KH*KW, group g owns rows g*Mg ..
/// (g+1)*Mg-1). Layout: per group, ceil(Mg/MR) panels; panel p holds K steps
/// of MR values, out[k*MR + r] = W[g*Mg + p*MR + r][k]; rows past the
/// group's last are zero.
inline void pack_conv_weights(int isa, const float *w, int64_t M, int64_t K, int64_t G,
                              float *out) {
  const int64_t mr = conv_mr(isa), mg = M / G, panels = detail::ceil_div(mg, mr);
  for (int64_t g = 0; g < G; ++g)
    for (int64_t p = 0; p < panels; ++p) {
      float *dst = out + (g * panels + p) * mr * K;
      for (int64_t k = 0; k < K; ++k)
        for (int64_t r = 0; r < mr; ++r) {
          int64_t m = p * mr + r;
          dst[k * mr + r] = m < mg ? w[(g * mg + m) * K + k] : 0.0f;
        }
    }
}

inline int64_t packed_gemm_b_floats(int isa, int64_t K, int64_t N) {
  return detail::round_up(N, gemm_nr(isa)) * K;
}

/// Packs B[K][N] (or B stored [N][K] when `transposed`) times `scale`.
/// Layout: panels of NR columns; panel j holds K rows of NR values,
/// out[(j*K + k)*NR + n] = scale * B[k][j*NR + n]; columns past N are zero.
inline void pack_gemm_b(int isa, const float *b, int64_t K, int64_t N, bool transposed, float scale,
                        float *out) {
  const int64_t nr = gemm_nr(isa), panels = detail::ceil_div(N, nr);
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < nr; ++n) {
        int64_t col = j * nr + n;
        float v = 0.0f;
        if (col < N)
          v = scale * (transposed ? b[col * K + k] : b[k * N + col]);
        out[(j * K + k) * nr + n] = v;
      }
}

/// Scratch floats per part of conv3d: one packed im2col block, or 0 for a
/// 1x1x1 stride-1 unpadded convolution (it reads the input directly).
inline int64_t conv3d_scratch_floats(int isa, int64_t C, int64_t KD, int64_t KH, int64_t KW,
                                     int64_t G, int64_t OD, int64_t OH, int64_t OW, bool direct) {
  if (direct)
    return 0;
  detail::ConvPlan plan = detail::conv_plan(isa, (C / G) * KD * KH * KW, OD * OH * OW);
  return plan.kc * plan.nb;
}

/// Scratch floats per part of conv2d: one packed im2col block, or 0 for a
/// 1x1 stride-1 unpadded convolution (it reads the input directly).
inline int64_t conv2d_scratch_floats(int isa, int64_t C, int64_t KH, int64_t KW, int64_t G,
                                     int64_t OH, int64_t OW, int64_t SH, int64_t SW, int64_t PT,
                                     int64_t PL, int64_t PB, int64_t PR, int64_t DH, int64_t DW) {
  (void)DH;
  (void)DW;
  if (KH == 1 && KW == 1 && SH == 1 && SW == 1 && PT == 0 && PL == 0 && PB == 0 && PR == 0)
    return 0;
  detail::ConvPlan plan = detail::conv_plan(isa, (C / G) * KH * KW, OH * OW);
  return plan.kc * plan.nb;
}

namespace detail {
/// Depthwise scratch. The padded input plane of one channel is split into
/// SH*SW polyphase planes: plane (a,b) holds padded rows a, a+SH, ... and
/// columns b, b+SW, ..., `rq` floats per row. Output pixel (oh, ow) reads
/// tap (kh, kw) at plane ((kh*DH)%SH, (kw*DW)%SW), row oh + kh*DH/SH,
/// column ow + kw*DW/SW: with outputs indexed j = oh*rq + ow (a "flattened"
/// row pitch of rq, the columns ow >= OW being junk) every tap is one
/// contiguous run, so small images fill whole vectors. Sums go to `tmp`
/// (OH*rq floats), the epilogue copies the valid columns out. The sums are
/// done kDwVecs vectors at a time, so they may run up to 128 floats past J:
/// one extra zero row plus 128 floats per plane and 128 floats of tmp absorb
/// that.
constexpr int kDwVecs = 8;
static_assert(kDwVecs == 8, "depthwise_conv2d's tail switch covers 1..8 vectors");
struct DwPlan {
  int64_t hq, rq, plane, tmp;
};
inline DwPlan dw_plan(int64_t H, int64_t W, int64_t SH, int64_t SW, int64_t PT, int64_t PL,
                      int64_t PB, int64_t PR, int64_t OH) {
  int64_t hq = ceil_div(H + PT + PB, SH), rq = ceil_div(W + PL + PR, SW);
  return {hq, rq, (hq + 1) * rq + 128, OH * rq + 128};
}
} // namespace detail

inline int64_t depthwise_conv2d_scratch_floats(int isa, int64_t H, int64_t W, int64_t KH,
                                               int64_t KW, int64_t SH, int64_t SW, int64_t PT,
                                               int64_t PL, int64_t PB, int64_t PR, int64_t DH,
                                               int64_t DW, int64_t OH, int64_t OW) {
  (void)isa, (void)KH, (void)KW, (void)DH, (void)DW, (void)OW;
  detail::DwPlan plan = detail::dw_plan(H, W, SH, SW, PT, PL, PB, PR, OH);
  return SH * SW * plan.plane + plan.tmp;
}

//===----------------------------------------------------------------------===//
// Channels-last (NHWC) layouts and sizes (portable, any host).
//===----------------------------------------------------------------------===//

/// Floats per vector of the ISA (Vec::W of the compiled one): the channel
/// padding of the NHWC depthwise weights, the Winograd block rounding.
constexpr int vec_width(int isa) {
  return isa == ONNXCC_ISA_AVX512 ? 16 : isa == ONNXCC_ISA_AVX2 ? 8 : 4; // NEON: 4
}

namespace detail {
/// NHWC conv: output pixels (rows of the GEMM) per block: the block's
/// im2col rows (rows x K floats) stay within 1 MB; a multiple of 8 (every
/// GEMM row tile), at most 256 rows and no more than one image needs. The
/// weights stream once per block, each value used by the block's rows: a
/// 7x7 image at K = 4608 is one block of 56 rows, not seven of 8 (which
/// read ResNet's 9 MB layer from L3 seven times). Depends on K and OH*OW
/// only, never on the split.
inline int64_t nhwc_block_rows(int64_t K, int64_t P) {
  int64_t rb = (int64_t(262144) / std::max<int64_t>(K, 1)) / 8 * 8;
  rb = std::max<int64_t>(8, std::min<int64_t>(256, rb));
  return std::min(rb, round_up(std::max<int64_t>(P, 1), 8));
}
/// NHWC conv: K steps per block (the kc x NR slice of a B panel stays in L1
/// / L2 while the block's row tiles stream over it).
constexpr int64_t kNhwcKc = 256;
/// Channels of the NHWC depthwise weights, padded to whole vectors.
inline int64_t dw_nhwc_cp(int isa, int64_t C) { return round_up(C, vec_width(isa)); }
} // namespace detail

inline int64_t packed_depthwise_nhwc_weights_floats(int isa, int64_t C, int64_t KH, int64_t KW) {
  return KH * KW * detail::dw_nhwc_cp(isa, C);
}

/// Packs depthwise weights w[C][1][KH][KW] as [KH][KW][Cp] (Cp = C rounded
/// up to whole vectors of the ISA): out[(kh*KW + kw)*Cp + c] =
/// w[(c*KH + kh)*KW + kw]; channels past C are zero.
inline void pack_depthwise_nhwc_weights(int isa, const float *w, int64_t C, int64_t KH, int64_t KW,
                                        float *out) {
  const int64_t cp = detail::dw_nhwc_cp(isa, C);
  for (int64_t t = 0; t < KH * KW; ++t)
    for (int64_t c = 0; c < cp; ++c)
      out[t * cp + c] = c < C ? w[c * KH * KW + t] : 0.0f;
}

inline int64_t packed_conv_nhwc_weights_floats(int isa, int64_t M, int64_t C, int64_t KH,
                                               int64_t KW) {
  return packed_gemm_b_floats(isa, KH * KW * C, M);
}

/// Packs conv weights w[M][C][KH][KW] as the B operand [K][M] of a GEMM,
/// K index (kh*KW + kw)*C + c, N index m, in pack_gemm_b's panel layout:
/// out[(j*K + k)*NR + n] = w[j*NR + n][c][kh][kw]; columns past M are zero.
inline void pack_conv_nhwc_weights(int isa, const float *w, int64_t M, int64_t C, int64_t KH,
                                   int64_t KW, float *out) {
  const int64_t nr = gemm_nr(isa), panels = detail::ceil_div(M, nr), K = KH * KW * C;
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t t = 0; t < KH * KW; ++t)
      for (int64_t c = 0; c < C; ++c) {
        float *dst = out + (j * K + t * C + c) * nr;
        for (int64_t n = 0; n < nr; ++n) {
          int64_t m = j * nr + n;
          dst[n] = m < M ? w[(m * C + c) * KH * KW + t] : 0.0f;
        }
      }
}

/// Scratch floats per part of conv2d_nhwc: one block of im2col rows, or 0
/// for a 1x1 stride-1 unpadded convolution (it reads x as the A matrix).
inline int64_t conv2d_nhwc_scratch_floats(int isa, int64_t C, int64_t KH, int64_t KW, int64_t OH,
                                          int64_t OW, int64_t SH, int64_t SW, int64_t PT,
                                          int64_t PL, int64_t PB, int64_t PR, int64_t DH,
                                          int64_t DW) {
  (void)isa, (void)DH, (void)DW;
  if (KH == 1 && KW == 1 && SH == 1 && SW == 1 && PT == 0 && PL == 0 && PB == 0 && PR == 0)
    return 0;
  const int64_t K = KH * KW * C;
  return detail::nhwc_block_rows(K, OH * OW) * K;
}

/// Activation codes of the fused epilogues and of activate().
enum Act : int32_t {
  kActNone = 0,
  kActRelu = 1,
  kActClip = 2,
  kActLeakyRelu = 3,
  kActSigmoid = 4,
  kActHardSigmoid = 5,
  kActHardSwish = 6,
  kActSilu = 7,
  kActGeluErf = 8,
  kActGeluTanh = 9,
  kActTanh = 10,
};

//===----------------------------------------------------------------------===//
// Vector abstraction. Exactly one of these is compiled per translation unit;
// the SIMD ones sit inside a target pragma region.
//===----------------------------------------------------------------------===//

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
// (GCC's `#pragma GCC target` does not expand macros: the strings are
// repeated there.)
#define ONNXCC_KERNELS_TARGET "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2,f16c"
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
#define ONNXCC_KERNELS_TARGET "avx2,fma,bmi,bmi2,f16c"
#endif

#ifdef ONNXCC_KERNELS_TARGET
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(ONNXCC_KERNELS_TARGET))), apply_to = function)
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

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
/// 16 lanes of AVX-512; tails through lane masks.
struct Vec {
  using T = __m512;
  static constexpr int W = 16;
  static constexpr int MR = conv_mr(ONNXCC_ISA_AVX512); // conv tile rows
  static constexpr int NV = 3;                          // tile columns in vectors
  static constexpr int GemmMR = 8;
  static __mmask16 mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static T zero() { return _mm512_setzero_ps(); }
  static T set1(float f) { return _mm512_set1_ps(f); }
  static T load(const float *p) { return _mm512_loadu_ps(p); }
  static T load_n(const float *p, int n) { return _mm512_maskz_loadu_ps(mask(n), p); }
  static void store(float *p, T v) { _mm512_storeu_ps(p, v); }
  static void store_n(float *p, T v, int n) { _mm512_mask_storeu_ps(p, mask(n), v); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T fnma(T a, T b, T c) { return _mm512_fnmadd_ps(a, b, c); }
  static T fms(T a, T b, T c) { return _mm512_fmsub_ps(a, b, c); }
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  static T sub(T a, T b) { return _mm512_sub_ps(a, b); }
  static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T div(T a, T b) { return _mm512_div_ps(a, b); }
  /// Approximate 1/a (relative error < 2^-14).
  static T rcp(T a) { return _mm512_maskz_rcp14_ps(0xffff, a); }
  /// -|a|.
  static T nabs(T a) { return _mm512_or_ps(a, _mm512_set1_ps(-0.0f)); }
  // (The maskz forms avoid GCC 12's -Wmaybe-uninitialized on the plain
  // intrinsics, which pass _mm512_undefined_* as the merge source.)
  /// x86 semantics: returns b when either operand is NaN.
  static T max(T a, T b) { return _mm512_maskz_max_ps(0xffff, a, b); }
  static T min(T a, T b) { return _mm512_maskz_min_ps(0xffff, a, b); }
  static T abs(T a) { return _mm512_abs_ps(a); }
  /// a < b ? x : y (false for NaN).
  static T sel_lt(T a, T b, T x, T y) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), y, x);
  }
  /// a is NaN ? x : y.
  static T sel_nan(T a, T x, T y) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), y, x);
  }
  /// Magnitude of `mag` with the sign of `sgn`.
  static T copysign(T mag, T sgn) {
    __m512i m = _mm512_set1_epi32(0x7fffffff);
    return _mm512_castsi512_ps(
        _mm512_ternarylogic_epi32(_mm512_castps_si512(mag), _mm512_castps_si512(sgn), m, 0xe4));
  }
  /// p[0], p[2], ..., p[2W-2] (reads p[0 .. 2W-1]).
  static T load_even(const float *p) {
    const __m512i idx =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, _mm512_loadu_ps(p + 16));
  }
  /// As load_even, reading only p[0 .. n) (n <= 2W; lanes past it are 0).
  static T load_even_n(const float *p, int n) {
    const __m512i idx =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(load_n(p, std::min(n, W)), idx,
                                  load_n(p + W, std::max(n - W, 0)));
  }
  /// 2^n for integral n in [-126, 127].
  static T pow2i(T n) {
    __m512i i = _mm512_maskz_cvtps_epi32(0xffff, n);
    i = _mm512_add_epi32(i, _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, i, 23));
  }
};
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
/// 8 lanes of AVX2; tails through vmaskmov.
struct Vec {
  using T = __m256;
  static constexpr int W = 8;
  static constexpr int MR = conv_mr(ONNXCC_ISA_AVX2);
  static constexpr int NV = 3;
  static constexpr int GemmMR = 4;
  static __m256i mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static T zero() { return _mm256_setzero_ps(); }
  static T set1(float f) { return _mm256_set1_ps(f); }
  static T load(const float *p) { return _mm256_loadu_ps(p); }
  static T load_n(const float *p, int n) { return _mm256_maskload_ps(p, mask(n)); }
  static void store(float *p, T v) { _mm256_storeu_ps(p, v); }
  static void store_n(float *p, T v, int n) { _mm256_maskstore_ps(p, mask(n), v); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T fnma(T a, T b, T c) { return _mm256_fnmadd_ps(a, b, c); }
  static T fms(T a, T b, T c) { return _mm256_fmsub_ps(a, b, c); }
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  static T sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T div(T a, T b) { return _mm256_div_ps(a, b); }
  /// Approximate 1/a (relative error < 1.5 * 2^-12).
  static T rcp(T a) { return _mm256_rcp_ps(a); }
  static T nabs(T a) { return _mm256_or_ps(a, _mm256_set1_ps(-0.0f)); }
  static T max(T a, T b) { return _mm256_max_ps(a, b); }
  static T min(T a, T b) { return _mm256_min_ps(a, b); }
  static T abs(T a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static T sel_lt(T a, T b, T x, T y) {
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(a, b, _CMP_LT_OQ));
  }
  static T sel_nan(T a, T x, T y) {
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  }
  static T copysign(T mag, T sgn) {
    __m256 s = _mm256_set1_ps(-0.0f);
    return _mm256_or_ps(_mm256_andnot_ps(s, mag), _mm256_and_ps(s, sgn));
  }
  static T load_even(const float *p) {
    __m256 even = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x88);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), 0xd8));
  }
  static T load_even_n(const float *p, int n) {
    __m256 even = _mm256_shuffle_ps(load_n(p, std::min(n, W)), load_n(p + W, std::max(n - W, 0)),
                                    0x88);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), 0xd8));
  }
  static T pow2i(T n) {
    __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(i, 23));
  }
};
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_NEON
/// 4 lanes of AArch64 Advanced SIMD; tails through a copy on the stack. The
/// comparisons and selects keep the x86 semantics (max returns b when either
/// operand is NaN), so every ISA treats NaN alike.
struct Vec {
  using T = float32x4_t;
  static constexpr int W = 4;
  static constexpr int MR = conv_mr(ONNXCC_ISA_NEON);
  static constexpr int NV = 3;
  static constexpr int GemmMR = 8;
  static T zero() { return vdupq_n_f32(0.0f); }
  static T set1(float f) { return vdupq_n_f32(f); }
  static T load(const float *p) { return vld1q_f32(p); }
  static T load_n(const float *p, int n) {
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; ++i)
      t[i] = p[i];
    return vld1q_f32(t);
  }
  static void store(float *p, T v) { vst1q_f32(p, v); }
  static void store_n(float *p, T v, int n) {
    float t[4];
    vst1q_f32(t, v);
    for (int i = 0; i < n; ++i)
      p[i] = t[i];
  }
  static T fma(T a, T b, T c) { return vfmaq_f32(c, a, b); }
  static T fnma(T a, T b, T c) { return vfmsq_f32(c, a, b); }
  static T fms(T a, T b, T c) { return vnegq_f32(vfmsq_f32(c, a, b)); }
  static T add(T a, T b) { return vaddq_f32(a, b); }
  static T sub(T a, T b) { return vsubq_f32(a, b); }
  static T mul(T a, T b) { return vmulq_f32(a, b); }
  static T div(T a, T b) { return vdivq_f32(a, b); }
  /// Approximate 1/a: the 8-bit estimate and one Newton step (relative
  /// error < 2^-15).
  static T rcp(T a) {
    T r = vrecpeq_f32(a);
    return vmulq_f32(r, vrecpsq_f32(a, r));
  }
  static T nabs(T a) { return vnegq_f32(vabsq_f32(a)); }
  static T max(T a, T b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
  static T min(T a, T b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
  static T abs(T a) { return vabsq_f32(a); }
  static T sel_lt(T a, T b, T x, T y) { return vbslq_f32(vcltq_f32(a, b), x, y); }
  static T sel_nan(T a, T x, T y) { return vbslq_f32(vceqq_f32(a, a), y, x); }
  static T copysign(T mag, T sgn) { return vbslq_f32(vdupq_n_u32(0x80000000u), sgn, mag); }
  static T load_even(const float *p) { return vld2q_f32(p).val[0]; }
  static T load_even_n(const float *p, int n) {
    float t[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; ++i)
      t[i] = p[i];
    return vld2q_f32(t).val[0];
  }
  static T pow2i(T n) {
    int32x4_t i = vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127));
    return vreinterpretq_f32_s32(vshlq_n_s32(i, 23));
  }
};
#else
/// Portable 4-lane "vector" of plain floats (one SSE / NEON register: the
/// compiler vectorizes the lane loops; an 8 x 8 tile keeps 16 of them).
struct Vec {
  struct T {
    float v[4];
  };
  static constexpr int W = 4;
  static constexpr int MR = conv_mr(ONNXCC_ISA_GENERIC);
  static constexpr int NV = 2;
  static constexpr int GemmMR = 4;
  static T zero() { return set1(0.0f); }
  static T set1(float f) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = f;
    return r;
  }
  static T load(const float *p) {
    T r;
    std::memcpy(r.v, p, sizeof(r.v));
    return r;
  }
  static T load_n(const float *p, int n) {
    T r = zero();
    for (int i = 0; i < n; ++i)
      r.v[i] = p[i];
    return r;
  }
  static void store(float *p, T v) { std::memcpy(p, v.v, sizeof(v.v)); }
  static void store_n(float *p, T v, int n) {
    for (int i = 0; i < n; ++i)
      p[i] = v.v[i];
  }
#define ONNXCC_LANEWISE(name, expr)                                                                \
  static T name(T a, T b) {                                                                        \
    T r;                                                                                           \
    for (int i = 0; i < W; ++i) {                                                                  \
      float x = a.v[i], y = b.v[i];                                                                \
      r.v[i] = (expr);                                                                             \
    }                                                                                              \
    return r;                                                                                      \
  }
  ONNXCC_LANEWISE(add, x + y)
  ONNXCC_LANEWISE(sub, x - y)
  ONNXCC_LANEWISE(mul, x *y)
  ONNXCC_LANEWISE(div, x / y)
  ONNXCC_LANEWISE(max, x > y ? x : y)
  ONNXCC_LANEWISE(min, x < y ? x : y)
  ONNXCC_LANEWISE(copysign, std::copysign(x, y))
#undef ONNXCC_LANEWISE
  static T fma(T a, T b, T c) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = a.v[i] * b.v[i] + c.v[i];
    return r;
  }
  static T fnma(T a, T b, T c) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = c.v[i] - a.v[i] * b.v[i];
    return r;
  }
  /// a*b - c with the product exact (used to split x*x); std::fma is exact
  /// everywhere, if slow without hardware FMA.
  static T fms(T a, T b, T c) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = std::fma(a.v[i], b.v[i], -c.v[i]);
    return r;
  }
  static T abs(T a) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = std::fabs(a.v[i]);
    return r;
  }
  static T nabs(T a) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = -std::fabs(a.v[i]);
    return r;
  }
  static T rcp(T a) { return div(set1(1.0f), a); }
  static T sel_lt(T a, T b, T x, T y) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = a.v[i] < b.v[i] ? x.v[i] : y.v[i];
    return r;
  }
  static T sel_nan(T a, T x, T y) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = a.v[i] != a.v[i] ? x.v[i] : y.v[i];
    return r;
  }
  static T load_even(const float *p) {
    T r;
    for (int i = 0; i < W; ++i)
      r.v[i] = p[2 * i];
    return r;
  }
  static T load_even_n(const float *p, int n) {
    T r = zero();
    for (int i = 0; 2 * i < n; ++i)
      r.v[i] = p[2 * i];
    return r;
  }
  static T pow2i(T n) {
    T r;
    for (int i = 0; i < W; ++i) {
      // (NaN lanes, from NaN inputs, are replaced by the caller.)
      int32_t e = n.v[i] == n.v[i] ? static_cast<int32_t>(n.v[i]) : 0;
      uint32_t bits = static_cast<uint32_t>(e + 127) << 23;
      std::memcpy(&r.v[i], &bits, 4);
    }
    return r;
  }
};
#endif

using VT = Vec::T;
static_assert(vec_width(ONNXCC_KERNELS_ISA) == Vec::W, "vec_width disagrees with Vec");
static_assert(gemm_mr(ONNXCC_KERNELS_ISA) == Vec::GemmMR, "gemm_mr disagrees with Vec");

//===----------------------------------------------------------------------===//
// Elementary functions.
//===----------------------------------------------------------------------===//

/// e^x: range reduction x = n*ln2 + r, |r| <= ln2/2, degree-7 Taylor
/// polynomial for e^r (relative error < 2e-8 before rounding), times 2^n.
/// Results below FLT_MIN flush to 0, overflow gives +inf, NaN propagates.
inline VT vexp(VT x) {
  const VT lo = Vec::set1(-87.3365447f), hi = Vec::set1(88.3762626f);
  VT xc = Vec::min(hi, Vec::max(lo, x));
  // Round to nearest integer with the 1.5*2^23 trick (|x*log2e| < 2^22).
  const VT magic = Vec::set1(12582912.0f);
  VT n = Vec::sub(Vec::fma(xc, Vec::set1(1.44269504f), magic), magic);
  VT r = Vec::fnma(n, Vec::set1(0.693359375f), xc);
  r = Vec::fnma(n, Vec::set1(-2.12194440e-4f), r);
  VT p = Vec::set1(1.0f / 5040);
  p = Vec::fma(p, r, Vec::set1(1.0f / 720));
  p = Vec::fma(p, r, Vec::set1(1.0f / 120));
  p = Vec::fma(p, r, Vec::set1(1.0f / 24));
  p = Vec::fma(p, r, Vec::set1(1.0f / 6));
  p = Vec::fma(p, r, Vec::set1(0.5f));
  p = Vec::fma(p, r, Vec::set1(1.0f));
  p = Vec::fma(p, r, Vec::set1(1.0f));
  VT y = Vec::mul(p, Vec::pow2i(n));
  y = Vec::sel_lt(x, lo, Vec::zero(), y);
  y = Vec::sel_lt(hi, x, Vec::set1(std::numeric_limits<float>::infinity()), y);
  return Vec::sel_nan(x, x, y);
}

/// e^x for x <= 88 (no overflow check; NaN propagates), the exponential
/// of the activations: the range reduction of vexp and a degree-5 minimax
/// polynomial (relative error < 7.5e-8, ~2e-7 rounded to float), results
/// below FLT_MIN flush to 0
/// (AVX-512: vscalefps rounds them to subnormals or 0 itself, so the only
/// range check is a clamp at -110, where e^x rounds to 0).
inline VT vexp_lo(VT x) {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  VT xc = Vec::max(Vec::set1(-110.0f), x);
  VT n = _mm512_maskz_roundscale_ps(0xffff, Vec::mul(xc, Vec::set1(1.44269504f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#else
  const VT lo = Vec::set1(-87.3365447f);
  VT xc = Vec::max(lo, x);
  const VT magic = Vec::set1(12582912.0f);
  VT n = Vec::sub(Vec::fma(xc, Vec::set1(1.44269504f), magic), magic);
#endif
  VT r = Vec::fnma(n, Vec::set1(0.693359375f), xc);
  r = Vec::fnma(n, Vec::set1(-2.12194440e-4f), r);
  VT p = Vec::set1(8.29765480e-3f);
  p = Vec::fma(p, r, Vec::set1(4.19153832e-2f));
  p = Vec::fma(p, r, Vec::set1(1.66675746e-1f));
  p = Vec::fma(p, r, Vec::set1(4.99988943e-1f));
  p = Vec::fma(p, r, Vec::set1(9.99999702e-1f));
  p = Vec::fma(p, r, Vec::set1(1.00000012f));
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  return _mm512_maskz_scalef_ps(0xffff, p, n);
#else
  return Vec::sel_lt(x, lo, Vec::zero(), Vec::mul(p, Vec::pow2i(n)));
#endif
}

/// 1/d for a finite d with 1/d normal, without a division: the hardware
/// estimate refined by one Newton step (relative error ~1e-7).
inline VT vrecip(VT d) {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_GENERIC
  return Vec::div(Vec::set1(1.0f), d);
#else
  VT r = Vec::rcp(d);
  return Vec::fma(r, Vec::fnma(d, r, Vec::set1(1.0f)), r);
#endif
}

/// 1 / (1 + e^-x) from t = e^-|x| (which never overflows): 1/(1+t) for
/// x >= 0, t/(1+t) below. Exact 0/1 limits, NaN propagates.
inline VT vsigmoid(VT x) {
  VT t = vexp_lo(Vec::nabs(x));
  VT s = vrecip(Vec::add(Vec::set1(1.0f), t));
  return Vec::sel_lt(x, Vec::zero(), Vec::mul(t, s), s);
}

/// tanh(x) = sign(x) * e/(e+2) with e = expm1(2|x|); expm1 uses a Taylor
/// polynomial below ln2/2 (no cancellation) and exp(y)-1 above. Once
/// tanh >= 1/2 (e >= 2) the result is formed as 1 - 2/(e+2), which rounds
/// to exactly 1 for large |x|. |x| is clamped at 10 where tanh rounds to 1.
inline VT vtanh(VT x) {
  VT y = Vec::mul(Vec::min(Vec::abs(x), Vec::set1(10.0f)), Vec::set1(2.0f));
  VT p = Vec::set1(1.0f / 40320);
  p = Vec::fma(p, y, Vec::set1(1.0f / 5040));
  p = Vec::fma(p, y, Vec::set1(1.0f / 720));
  p = Vec::fma(p, y, Vec::set1(1.0f / 120));
  p = Vec::fma(p, y, Vec::set1(1.0f / 24));
  p = Vec::fma(p, y, Vec::set1(1.0f / 6));
  p = Vec::fma(p, y, Vec::set1(0.5f));
  VT small = Vec::fma(Vec::mul(p, y), y, y);
  VT big = Vec::sub(vexp_lo(y), Vec::set1(1.0f));
  VT e = Vec::sel_lt(y, Vec::set1(0.34657359f), small, big);
  VT r = vrecip(Vec::add(e, Vec::set1(2.0f)));
  VT t = Vec::sel_lt(e, Vec::set1(2.0f), Vec::mul(e, r),
                     Vec::fnma(Vec::set1(2.0f), r, Vec::set1(1.0f)));
  return Vec::sel_nan(x, x, Vec::copysign(t, x));
}

/// Gelu(x) = 0.5 x erfc(-x/sqrt2). erfc(z), z >= 0, is t*exp(-z^2 + P(t)),
/// t = 1/(1+z/2), with the classic 10-term Chebyshev fit P (relative error
/// < 1.2e-7 for all z). -z^2 = -x^2/2 is carried as an exact hi+lo pair so
/// large |x| keeps its relative accuracy.
inline VT vgelu_erf(VT x) {
  VT z = Vec::mul(Vec::abs(x), Vec::set1(0.70710678f));
  VT t = vrecip(Vec::fma(z, Vec::set1(0.5f), Vec::set1(1.0f)));
  VT p = Vec::set1(0.17087277f);
  p = Vec::fma(p, t, Vec::set1(-0.82215223f));
  p = Vec::fma(p, t, Vec::set1(1.48851587f));
  p = Vec::fma(p, t, Vec::set1(-1.13520398f));
  p = Vec::fma(p, t, Vec::set1(0.27886807f));
  p = Vec::fma(p, t, Vec::set1(-0.18628806f));
  p = Vec::fma(p, t, Vec::set1(0.09678418f));
  p = Vec::fma(p, t, Vec::set1(0.37409196f));
  p = Vec::fma(p, t, Vec::set1(1.00002368f));
  p = Vec::fma(p, t, Vec::set1(-1.26551223f));
  VT half = Vec::set1(0.5f);
  VT xx = Vec::mul(x, x);
  VT xxLo = Vec::fms(x, x, xx);  // x*x == xx + xxLo exactly
  VT s = Vec::fnma(half, xx, p); // p - x^2/2 (hi part)
  // Rounding error of s = -xx/2 + p (TwoSum) plus the low part of -x^2/2.
  VT a = Vec::mul(Vec::set1(-0.5f), xx);
  VT bv = Vec::sub(s, a);
  VT err = Vec::add(Vec::sub(a, Vec::sub(s, bv)), Vec::sub(p, bv));
  err = Vec::fnma(half, xxLo, err);
  VT erfc = Vec::mul(t, vexp_lo(s)); // (s <= 3e-8)
  erfc = Vec::fma(erfc, err, erfc);
  // x >= 0: x * (1 - erfc/2); x < 0: x * erfc/2.
  VT hc = Vec::mul(half, erfc);
  VT g = Vec::sel_lt(x, Vec::zero(), Vec::mul(x, hc), Vec::fnma(x, hc, x));
  return Vec::sel_nan(x, x, g);
}

/// Gelu (tanh form) = 0.5x(1+tanh(u)) = x / (1 + e^-2u), no cancellation.
/// For negative x the result is e^-2u scaled, so 2u = k(x + c x^3) is
/// carried as a hi+lo pair (exact products via FMA, TwoSum for the add) to
/// keep the relative error near 1e-7 where |2u| reaches ~80. With E =
/// e^-|2u| (no overflow) it is x/(1+E) for u >= 0 and x E/(1+E) below. u is
/// computed from x clamped to +-1e4 (x^3 stays finite; the result is x or 0
/// to float precision long before).
inline VT vgelu_tanh(VT x) {
  const VT ch = Vec::set1(0.044715f), cl = Vec::set1(1.5461444e-09f);
  const VT kh = Vec::set1(1.5957692f), kl = Vec::set1(-4.534068e-08f);
  VT xc = Vec::min(Vec::set1(1e4f), Vec::max(Vec::set1(-1e4f), x));
  VT a = Vec::mul(xc, xc);
  VT al = Vec::fms(xc, xc, a); // x^2 = a + al
  VT b = Vec::mul(a, xc);
  VT bl = Vec::fma(al, xc, Vec::fms(a, xc, b)); // x^3 ~ b + bl
  VT p = Vec::mul(ch, b);
  VT pl = Vec::fma(ch, bl, Vec::fma(cl, b, Vec::fms(ch, b, p))); // c x^3 ~ p + pl
  VT s = Vec::add(xc, p);
  VT bb = Vec::sub(s, xc);
  VT e = Vec::add(Vec::sub(xc, Vec::sub(s, bb)), Vec::sub(p, bb)); // x + p = s + e
  e = Vec::add(e, pl);
  VT v = Vec::mul(kh, s);
  VT vl = Vec::fma(kl, s, Vec::fma(kh, e, Vec::fms(kh, s, v))); // 2u ~ v + vl
  // |2u| ~ |v| + avl; e^-(|v|+avl) ~ e^-|v| (1 - avl).
  VT avl = Vec::sel_lt(v, Vec::zero(), Vec::sub(Vec::zero(), vl), vl);
  VT ex = vexp_lo(Vec::nabs(v));
  ex = Vec::fnma(ex, avl, ex);
  VT r = vrecip(Vec::add(Vec::set1(1.0f), ex));
  VT g = Vec::mul(x, Vec::sel_lt(v, Vec::zero(), Vec::mul(ex, r), r));
  return Vec::sel_nan(x, x, g);
}

/// For |x| >= 1e18 (and +-inf) SiLU and Gelu are max(x, 0); the formulas
/// would give inf*0 there.
inline VT big_to_relu(VT x, VT r) {
  return Vec::sel_lt(Vec::abs(x), Vec::set1(1e18f), r, Vec::max(Vec::zero(), x));
}

/// Activation A on one vector; p0 / p1 are its parameters, broadcast.
template <int A> inline VT act_v(VT x, VT p0, VT p1) {
  if constexpr (A == kActRelu) {
    return Vec::max(Vec::zero(), x);
  } else if constexpr (A == kActClip) {
    return Vec::min(p1, Vec::max(p0, x));
  } else if constexpr (A == kActLeakyRelu) {
    return Vec::sel_lt(x, Vec::zero(), Vec::mul(x, p0), x);
  } else if constexpr (A == kActSigmoid) {
    return vsigmoid(x);
  } else if constexpr (A == kActHardSigmoid) {
    return Vec::max(Vec::zero(), Vec::min(Vec::set1(1.0f), Vec::fma(x, p0, p1)));
  } else if constexpr (A == kActHardSwish) {
    // (x + 3) / 6 keeps its relative accuracy near x = -3.
    VT h = Vec::mul(Vec::add(x, Vec::set1(3.0f)), Vec::set1(1.0f / 6));
    return big_to_relu(x, Vec::mul(x, Vec::max(Vec::zero(), Vec::min(Vec::set1(1.0f), h))));
  } else if constexpr (A == kActSilu) {
    // x * sigmoid(x) = x s (x >= 0) or x t s (x < 0), t = e^-|x|, s =
    // 1/(1+t); x = -inf is clamped to -FLT_MAX there (t = 0: -0, not NaN).
    VT t = vexp_lo(Vec::nabs(x));
    VT s = vrecip(Vec::add(Vec::set1(1.0f), t));
    VT xm = Vec::max(Vec::set1(-std::numeric_limits<float>::max()), x);
    return Vec::mul(Vec::mul(xm, Vec::sel_lt(x, Vec::zero(), t, Vec::set1(1.0f))), s);
  } else if constexpr (A == kActGeluErf) {
    return big_to_relu(x, vgelu_erf(x));
  } else if constexpr (A == kActGeluTanh) {
    return big_to_relu(x, vgelu_tanh(x));
  } else if constexpr (A == kActTanh) {
    return vtanh(x);
  } else {
    (void)p0, (void)p1;
    return x;
  }
}

/// Calls f(std::integral_constant<int, act>()): the activation switch runs
/// once per call of f, whose loops use the act_v<act> instance.
template <class F> inline void dispatch_act(int32_t act, F &&f) {
  switch (act) {
#define ONNXCC_ACT_CASE(code)                                                                      \
  case code:                                                                                       \
    f(std::integral_constant<int, code>());                                                        \
    break;
    ONNXCC_ACT_CASE(kActRelu)
    ONNXCC_ACT_CASE(kActClip)
    ONNXCC_ACT_CASE(kActLeakyRelu)
    ONNXCC_ACT_CASE(kActSigmoid)
    ONNXCC_ACT_CASE(kActHardSigmoid)
    ONNXCC_ACT_CASE(kActHardSwish)
    ONNXCC_ACT_CASE(kActSilu)
    ONNXCC_ACT_CASE(kActGeluErf)
    ONNXCC_ACT_CASE(kActGeluTanh)
    ONNXCC_ACT_CASE(kActTanh)
#undef ONNXCC_ACT_CASE
  default:
    f(std::integral_constant<int, kActNone>());
  }
}

/// Applies activation `act` to one vector (one switch per call: loops use
/// dispatch_act and act_v instead).
inline VT apply_act(VT x, int32_t act, float p0, float p1) {
  VT r = x;
  dispatch_act(act, [&](auto a) {
    r = act_v<decltype(a)::value>(x, Vec::set1(p0), Vec::set1(p1));
  });
  return r;
}

#if defined(__GNUC__)
#define ONNXCC_NOINLINE __attribute__((noinline))
#else
#define ONNXCC_NOINLINE
#endif

/// Asks for the cache line at `p` + `bytes` ahead of use (a hint: no fault,
/// whatever the address). Through an integer, so that no pointer past its
/// object is formed.
inline void prefetch_ahead(const float *p, int64_t bytes) {
#if defined(__GNUC__)
  __builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<uintptr_t>(p) +
                                                    static_cast<uintptr_t>(bytes)));
#else
  (void)p, (void)bytes;
#endif
}

/// The epilogue y = act(acc + bias + z) of a GEMM tile runs in two passes
/// over the tile, out of line (inlined into a microkernel, the activation
/// code would crowd the register allocation of its inner loop):
///  - before the first K block, the tile of C is set to bias + z and the
///    microkernel accumulates onto it. z is read before C is written at
///    each element, so z may be the output buffer itself (in-place add).
///  - after the last K block, the activation is applied to the tile (in L1).
/// `bias` and `z` are offset to the tile's first element (null when absent);
/// the bias is per row (conv: output channel) or per column (gemm: output
/// feature).
struct TileInit {
  const float *bias;
  bool biasPerRow;
  const float *z;
  int64_t ldz;
};

ONNXCC_NOINLINE inline void init_tile(float *c, int64_t ldc, int nrows, int ncols,
                                      const TileInit &in) {
  constexpr int W = Vec::W;
  for (int r = 0; r < nrows; ++r) {
    const VT rowBias = Vec::set1(in.bias && in.biasPerRow ? in.bias[r] : 0.0f);
    for (int j = 0; j < ncols; j += W) {
      const int n = std::min(W, ncols - j);
      VT v = rowBias;
      if (in.bias && !in.biasPerRow)
        v = n == W ? Vec::load(in.bias + j) : Vec::load_n(in.bias + j, n);
      if (in.z) {
        const float *zp = in.z + r * in.ldz + j;
        v = Vec::add(v, n == W ? Vec::load(zp) : Vec::load_n(zp, n));
      }
      if (n == W)
        Vec::store(c + r * ldc + j, v);
      else
        Vec::store_n(c + r * ldc + j, v, n);
    }
  }
}

struct ActParams {
  int32_t act;
  float p0, p1;
};

/// y[0..n) = act_v<A>(x[0..n)); y may be x.
template <int A> inline void act_run(const float *x, float *y, int64_t n, VT p0, VT p1) {
  constexpr int W = Vec::W;
  int64_t i = 0;
  for (; i + W <= n; i += W)
    Vec::store(y + i, act_v<A>(Vec::load(x + i), p0, p1));
  if (i < n) {
    const int rest = static_cast<int>(n - i);
    Vec::store_n(y + i, act_v<A>(Vec::load_n(x + i, rest), p0, p1), rest);
  }
}

template <int A>
ONNXCC_NOINLINE void act_tile_t(float *c, int64_t ldc, int nrows, int ncols, float p0, float p1) {
  const VT v0 = Vec::set1(p0), v1 = Vec::set1(p1);
  for (int r = 0; r < nrows; ++r)
    act_run<A>(c + r * ldc, c + r * ldc, ncols, v0, v1);
}

/// Applies the activation to an nrows x ncols tile (one switch per tile).
inline void act_tile(float *c, int64_t ldc, int nrows, int ncols, const ActParams &ap) {
  dispatch_act(ap.act, [&](auto a) {
    act_tile_t<decltype(a)::value>(c, ldc, nrows, ncols, ap.p0, ap.p1);
  });
}

//===----------------------------------------------------------------------===//
// Microkernel: an R x (NV*W) tile of C += A x B over K steps.
//  - PackedA: A is a packed conv panel, element (r,k) at a[k*R + r];
//    otherwise row r of A starts at a + r*lda (gemm).
//  - B step k is NV vectors at b + k*ldb; MaskedB loads the last vector
//    masked (B read in place, the tail could run past the buffer).
//  - ncols valid columns, nrows valid rows are stored; `accumulate` starts
//    from C, otherwise from `bias` (per row or per column; the same values
//    init_tile would have stored in C) or zero; `act` (last K block only)
//    applies the activation: ReLU and Clip on the registers before the
//    store, the others over the stored tile (act_tile).
//===----------------------------------------------------------------------===//
template <int R, int NV, bool PackedA, bool MaskedB>
inline void ukernel(int64_t K, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                    int64_t ldc, int ncols, int nrows, bool accumulate, const ActParams *act,
                    const float *bias, bool biasPerRow) {
  constexpr int W = Vec::W;
  const int lastN = ncols - (NV - 1) * W;
  VT acc[R][NV];
  const bool useColBias = !accumulate && bias && !biasPerRow;
  VT colBias[NV];
#pragma GCC unroll 4
  for (int j = 0; j < NV; ++j)
    colBias[j] = !useColBias                   ? Vec::zero()
                 : j == NV - 1 && lastN < W ? Vec::load_n(bias + j * W, lastN)
                                            : Vec::load(bias + j * W);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      if (r >= nrows)
        acc[r][j] = Vec::zero();
      else if (!accumulate)
        acc[r][j] = !bias ? Vec::zero() : biasPerRow ? Vec::set1(bias[r]) : colBias[j];
      else if (j == NV - 1 && lastN < W)
        acc[r][j] = Vec::load_n(c + r * ldc + j * W, lastN);
      else
        acc[r][j] = Vec::load(c + r * ldc + j * W);
    }
  const float *arow[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
    arow[r] = a + (PackedA ? 0 : r * lda);
  for (int64_t k = 0; k < K; ++k) {
    // A packed panel is a long sequential stream of weights, mostly from
    // memory, which the hardware prefetchers lose at each 4 KB page: 64
    // steps ahead (ResNet-18's 14x14 Winograd layers: 1.23 -> 0.95 ms).
    if constexpr (PackedA)
      prefetch_ahead(a + k * R, 64 * R * sizeof(float));
    VT bv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j)
      bv[j] = (MaskedB && j == NV - 1) ? Vec::load_n(b + j * W, lastN) : Vec::load(b + j * W);
#if defined(__GNUC__) && (ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2 || ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512)
    // Each B vector loaded once into a register: left to itself GCC folds
    // the load into every FMA that uses it (R loads per vector instead of
    // one), and the kernel runs out of load ports before FMA units.
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j)
      __asm__("" : "+v"(bv[j]));
#endif
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      VT av = Vec::set1(PackedA ? a[k * R + r] : arow[r][k]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j)
        acc[r][j] = Vec::fma(av, bv[j], acc[r][j]);
    }
    b += ldb;
  }
  const bool regAct = act && (act->act == kActRelu || act->act == kActClip);
  if (regAct) {
    auto apply = [&](auto a) {
      const VT p0 = Vec::set1(act->p0), p1 = Vec::set1(act->p1);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j)
          acc[r][j] = act_v<decltype(a)::value>(acc[r][j], p0, p1);
    };
    if (act->act == kActRelu)
      apply(std::integral_constant<int, kActRelu>());
    else
      apply(std::integral_constant<int, kActClip>());
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if (r >= nrows)
      break;
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      if (j == NV - 1 && lastN < W)
        Vec::store_n(c + r * ldc + j * W, acc[r][j], lastN);
      else
        Vec::store(c + r * ldc + j * W, acc[r][j]);
    }
  }
  if (act && !regAct)
    act_tile(c, ldc, nrows, ncols, *act);
}

/// Calls the R-row kernel for a tile of `ncols` columns (NV chosen from it).
template <int R, bool PackedA>
inline void ukernel_cols(int64_t K, const float *a, int64_t lda, const float *b, int64_t ldb,
                         bool maskedB, float *c, int64_t ldc, int ncols, int nrows, bool accumulate,
                         const ActParams *act, const float *bias = nullptr,
                         bool biasPerRow = false) {
  constexpr int W = Vec::W;
  int nv = static_cast<int>(ceil_div(ncols, W));
  bool full = ncols == nv * W;
  if (nv >= Vec::NV) {
    if (maskedB && !full)
      ukernel<R, Vec::NV, PackedA, true>(K, a, lda, b, ldb, c, ldc, ncols, nrows, accumulate, act,
                                         bias, biasPerRow);
    else
      ukernel<R, Vec::NV, PackedA, false>(K, a, lda, b, ldb, c, ldc, ncols, nrows, accumulate, act,
                                          bias, biasPerRow);
  } else if (nv == 2) {
    if (maskedB && !full)
      ukernel<R, 2, PackedA, true>(K, a, lda, b, ldb, c, ldc, ncols, nrows, accumulate, act,
                                   bias, biasPerRow);
    else
      ukernel<R, 2, PackedA, false>(K, a, lda, b, ldb, c, ldc, ncols, nrows, accumulate, act,
                                    bias, biasPerRow);
  } else {
    if (maskedB && !full)
      ukernel<R, 1, PackedA, true>(K, a, lda, b, ldb, c, ldc, ncols, nrows, accumulate, act,
                                   bias, biasPerRow);
    else
      ukernel<R, 1, PackedA, false>(K, a, lda, b, ldb, c, ldc, ncols, nrows, accumulate, act,
                                    bias, biasPerRow);
  }
}

/// Small fills and copies inline (the depthwise planes have short rows
/// where a libc call per row would dominate).
inline void zero_floats(float *p, int64_t n) {
  int64_t i = 0;
  for (; i + Vec::W <= n; i += Vec::W)
    Vec::store(p + i, Vec::zero());
  if (i < n)
    Vec::store_n(p + i, Vec::zero(), static_cast<int>(n - i));
}
/// d[i] = s[i*sw] for i < n.
inline void copy_strided(float *d, const float *s, int64_t n, int64_t sw) {
  int64_t i = 0;
  if (sw == 1) {
    for (; i + Vec::W <= n; i += Vec::W)
      Vec::store(d + i, Vec::load(s + i));
    if (i < n)
      Vec::store_n(d + i, Vec::load_n(s + i, static_cast<int>(n - i)), static_cast<int>(n - i));
    return;
  }
  if (sw == 2) { // load_even reads s[2i .. 2i+2W-1]: stay below s[2n-2]
    for (; i + Vec::W < n; i += Vec::W)
      Vec::store(d + i, Vec::load_even(s + 2 * i));
    if (i < n) {
      const int rest = static_cast<int>(n - i);
      Vec::store_n(d + i, Vec::load_even_n(s + 2 * i, 2 * rest - 1), rest);
    }
    return;
  }
  for (; i < n; ++i)
    d[i] = s[i * sw];
}

/// Writes `n` im2col values of one K row into the packed block: pixels q ..
/// q+n-1 of the block (which may cross tile boundaries), read from `row`
/// (null: the row is padding) at columns iw0, iw0+sw, ...
/// Of `n` pixels reading columns iw0, iw0+sw, ...: how many lead into the
/// left padding, and how many valid columns follow.
inline void im2col_span(int64_t n, int64_t iw0, int64_t sw, int64_t W, int64_t &lead,
                        int64_t &valid) {
  lead = iw0 < 0 ? std::min(n, ceil_div(-iw0, sw)) : 0;
  int64_t lastValid = iw0 <= W - 1 ? (W - 1 - iw0) / sw : -1; // last j with col < W
  valid = std::max<int64_t>(0, std::min(n - 1, lastValid) - lead + 1);
}

/// (lead, valid: im2col_span's for these n pixels; ignored for a padding row.)
inline void im2col_run(float *blk, int64_t kc, int64_t kk, int64_t q, int64_t n, const float *row,
                       int64_t iw0, int64_t sw, int64_t lead, int64_t valid) {
  const int64_t nr = Vec::W * Vec::NV;
  if (!row)
    lead = valid = 0;
  int64_t j = 0;
  while (j < n) {
    int64_t qq = q + j;
    float *dst = blk + (qq / nr) * kc * nr + kk * nr + qq % nr;
    int64_t chunk = std::min(n - j, nr - qq % nr);
    int64_t end = j + chunk;
    int64_t i = j;
    for (; i < std::min(end, lead); ++i)
      *dst++ = 0.0f;
    int64_t vEnd = std::min(end, lead + valid);
    if (i < vEnd) {
      copy_strided(dst, row + iw0 + i * sw, vEnd - i, sw);
      dst += vEnd - i;
      i = vEnd;
    }
    for (; i < end; ++i)
      *dst++ = 0.0f;
    j = end;
  }
}

/// A convolution's geometry for one image group: Cg input channels of D x H
/// x W, output OD x OH x OW, window KD x KH x KW with strides, front / top /
/// left pads and dilations. A 2-D convolution has D = OD = KD = SD = DD = 1
/// and PF = 0 (a 1-D one also H = OH = KH = 1).
struct ConvShape {
  int64_t C, D, H, W, OD, OH, OW, KD, KH, KW, SD, SH, SW, PF, PT, PL, DD, DH, DW;
};

/// Packs im2col rows k0 .. k0+kc-1 (k = (c*KD + kd)*KH*KW + kh*KW + kw) for
/// output pixels p0 .. p0+np-1 (p = (od*OH + oh)*OW + ow) of one image group
/// `x` (Cg channels): tile t of the block holds kc steps of NR pixels,
/// blk[(t*kc + kk)*NR + lane].
inline void pack_im2col(const float *x, const ConvShape &s, int64_t k0, int64_t kc, int64_t p0,
                        int64_t np, float *blk) {
  const int64_t khw = s.KH * s.KW, kdhw = s.KD * khw, nr = Vec::W * Vec::NV;
  const int64_t row0 = p0 / s.OW, ow0 = p0 % s.OW;
  for (int64_t kk = 0; kk < kc; ++kk) {
    int64_t k = k0 + kk, ch = k / kdhw, kd = (k % kdhw) / khw, kh = (k % khw) / s.KW,
            kw = k % s.KW;
    const float *volume = x + ch * s.D * s.H * s.W;
    // Runs over whole output rows share their padding split (no divisions
    // per row: these runs are short, 7 to 112 pixels).
    const int64_t iwFull = -s.PL + kw * s.DW;
    int64_t leadFull, validFull;
    im2col_span(s.OW, iwFull, s.SW, s.W, leadFull, validFull);
    int64_t q = 0, row = row0, ow = ow0;
    int64_t od = row / s.OH, oh = row % s.OH;
    while (q < np) {
      int64_t n = std::min(np - q, s.OW - ow);
      int64_t id = od * s.SD - s.PF + kd * s.DD, ih = oh * s.SH - s.PT + kh * s.DH;
      const float *in = (id >= 0 && id < s.D && ih >= 0 && ih < s.H)
                            ? volume + (id * s.H + ih) * s.W
                            : nullptr;
      if (ow == 0 && n == s.OW) {
        im2col_run(blk, kc, kk, q, n, in, iwFull, s.SW, leadFull, validFull);
      } else {
        const int64_t iw0 = ow * s.SW - s.PL + kw * s.DW;
        int64_t lead, valid;
        im2col_span(n, iw0, s.SW, s.W, lead, valid);
        im2col_run(blk, kc, kk, q, n, in, iw0, s.SW, lead, valid);
      }
      q += n;
      ow = 0;
      if (++oh == s.OH) {
        oh = 0;
        ++od;
      }
    }
    // Zero the unused lanes of a partial last tile (they are loaded, never
    // stored).
    if (np % nr)
      std::memset(blk + ((np / nr) * kc + kk) * nr + np % nr, 0, sizeof(float) * (nr - np % nr));
  }
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Public kernels.
//===----------------------------------------------------------------------===//

/// Applies activation `act` to x[0..n) in place.
inline void activate(float *x, int64_t n, int32_t act, float p0, float p1) {
  using detail::Vec;
  if (act == kActNone)
    return;
  detail::dispatch_act(act, [&](auto a) {
    detail::act_run<decltype(a)::value>(x, x, n, Vec::set1(p0), Vec::set1(p1));
  });
}

/// y[i] = e^x[i] (relative error ~2 ulp; 0 below ~-87.3, inf above ~88.4).
inline void exp_array(const float *x, float *y, int64_t n) {
  using detail::Vec;
  int64_t i = 0;
  for (; i + Vec::W <= n; i += Vec::W)
    Vec::store(y + i, detail::vexp(Vec::load(x + i)));
  if (i < n) {
    int rest = static_cast<int>(n - i);
    Vec::store_n(y + i, detail::vexp(Vec::load_n(x + i, rest)), rest);
  }
}

namespace detail {

/// The largest lane of v (-inf for none).
inline float hmax(VT v) {
  float lanes[Vec::W];
  Vec::store(lanes, v);
  float m = -std::numeric_limits<float>::infinity();
  for (float x : lanes)
    m = x > m ? x : m;
  return m;
}

/// The lanes of v summed in lane order (deterministic).
inline float hsum(VT v) {
  float t[Vec::W];
  Vec::store(t, v);
  float s = 0;
  for (int i = 0; i < Vec::W; ++i)
    s += t[i];
  return s;
}

/// Part `part` of `parts` of [0, n): a contiguous range.
inline void part_range(int64_t n, int64_t part, int64_t parts, int64_t &begin, int64_t &end) {
  begin = n * part / parts;
  end = n * (part + 1) / parts;
}

/// y[0..n) = softmax(x[0..n)), max-subtracted; x and y may be the same.
inline void softmax_row(const float *x, float *y, int64_t n) {
  // The maximum (a NaN input makes every output NaN through the sum).
  float m = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  if (n >= Vec::W) {
    VT vm = Vec::load(x);
    for (i = Vec::W; i + Vec::W <= n; i += Vec::W)
      vm = Vec::max(Vec::load(x + i), vm);
    float t[Vec::W];
    Vec::store(t, vm);
    for (float v : t)
      m = v > m ? v : m;
  }
  for (; i < n; ++i)
    m = x[i] > m ? x[i] : m;
  const VT vmax = Vec::set1(m);
  VT sum = Vec::zero();
  for (i = 0; i + Vec::W <= n; i += Vec::W) {
    VT e = vexp(Vec::sub(Vec::load(x + i), vmax));
    Vec::store(y + i, e);
    sum = Vec::add(sum, e);
  }
  float s = hsum(sum);
  for (; i < n; ++i) {
    float e[Vec::W];
    Vec::store(e, vexp(Vec::set1(x[i] - m)));
    y[i] = e[0];
    s += e[0];
  }
  const VT inv = Vec::set1(1.0f / s);
  for (i = 0; i + Vec::W <= n; i += Vec::W)
    Vec::store(y + i, Vec::mul(Vec::load(y + i), inv));
  if (i < n) {
    int rest = static_cast<int>(n - i);
    Vec::store_n(y + i, Vec::mul(Vec::load_n(y + i, rest), inv), rest);
  }
}

} // namespace detail

/// Softmax over the last dim: `rows` rows of `cols` values. Part `part` of
/// `parts` takes a contiguous range of rows.
inline int softmax(const float *x, float *y, int64_t rows, int64_t cols, int64_t part,
                   int64_t parts) {
  int64_t r0, r1;
  detail::part_range(rows, part, parts, r0, r1);
  for (int64_t r = r0; r < r1; ++r)
    detail::softmax_row(x + r * cols, y + r * cols, cols);
  return 0;
}

namespace detail {
/// The mean and (biased) variance of `cols` floats, in two passes: a vector
/// sum, then a vector sum of squared deviations (the tail of the second in
/// scalar code). The normalizations share it, so they round alike.
inline void row_moments(const float *xr, int64_t cols, float &mean, float &var) {
  VT acc = Vec::zero();
  int64_t i = 0;
  for (; i + Vec::W <= cols; i += Vec::W)
    acc = Vec::add(acc, Vec::load(xr + i));
  if (i < cols)
    acc = Vec::add(acc, Vec::load_n(xr + i, static_cast<int>(cols - i)));
  mean = hsum(acc) / static_cast<float>(cols);
  const VT vmean = Vec::set1(mean);
  acc = Vec::zero();
  for (i = 0; i + Vec::W <= cols; i += Vec::W) {
    VT d = Vec::sub(Vec::load(xr + i), vmean);
    acc = Vec::fma(d, d, acc);
  }
  float tail = 0;
  for (; i < cols; ++i)
    tail += (xr[i] - mean) * (xr[i] - mean);
  var = (hsum(acc) + tail) / static_cast<float>(cols);
}
} // namespace detail

/// LayerNormalization over the last dim: y = (x - mean) / sqrt(var + eps) *
/// scale + bias per row, mean and variance in two passes.
inline int layer_norm(const float *x, const float *scale, const float *bias, int32_t has_bias,
                      float *y, int64_t rows, int64_t cols, float epsilon, int64_t part,
                      int64_t parts) {
  using detail::Vec;
  using detail::VT;
  int64_t r0, r1;
  detail::part_range(rows, part, parts, r0, r1);
  for (int64_t r = r0; r < r1; ++r) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    float mean, var;
    detail::row_moments(xr, cols, mean, var);
    const VT vmean = Vec::set1(mean);
    const VT inv = Vec::set1(1.0f / std::sqrt(var + epsilon));
    for (int64_t i = 0; i < cols; i += Vec::W) {
      int n = static_cast<int>(std::min<int64_t>(Vec::W, cols - i));
      VT v = Vec::mul(Vec::mul(Vec::sub(Vec::load_n(xr + i, n), vmean), inv),
                      Vec::load_n(scale + i, n));
      if (has_bias)
        v = Vec::add(v, Vec::load_n(bias + i, n));
      Vec::store_n(yr + i, v, n);
    }
  }
  return 0;
}

/// InstanceNormalization (and GroupNormalization, which the importer writes
/// as one over its groups): `rows` rows of `cols` values (row r is channel
/// r % channels of its image), y = (x - mean) / sqrt(var + eps) * scale[c] +
/// bias[c] with the row's mean and variance, two passes as layer_norm.
/// Part `part` of `parts` takes a contiguous range of rows.
inline int instance_norm(const float *x, const float *scale, const float *bias, float *y,
                         int64_t rows, int64_t channels, int64_t cols, float epsilon,
                         int64_t part, int64_t parts) {
  using detail::Vec;
  using detail::VT;
  int64_t r0, r1;
  detail::part_range(rows, part, parts, r0, r1);
  for (int64_t r = r0; r < r1; ++r) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    float mean, var;
    detail::row_moments(xr, cols, mean, var);
    const VT vmean = Vec::set1(mean);
    const int64_t c = r % channels;
    const float a = scale[c] / std::sqrt(var + epsilon);
    const VT va = Vec::set1(a), vb = Vec::set1(bias[c]);
    for (int64_t i = 0; i < cols; i += Vec::W) {
      int n = static_cast<int>(std::min<int64_t>(Vec::W, cols - i));
      Vec::store_n(yr + i, Vec::fma(Vec::sub(Vec::load_n(xr + i, n), vmean), va, vb), n);
    }
  }
  return 0;
}

/// y = act(x) elementwise over n values (the activation codes of the fused
/// epilogues: Sigmoid, Tanh, SiLU, Gelu... as vector code instead of a libm
/// call per element). Part `part` of `parts` takes a contiguous range (whole
/// vectors). y may be x.
inline int activation(const float *x, float *y, int64_t n, int32_t act, float p0, float p1,
                      int64_t part, int64_t parts) {
  using detail::Vec;
  const int64_t vectors = detail::ceil_div(n, Vec::W);
  int64_t v0, v1;
  detail::part_range(vectors, part, parts, v0, v1);
  const int64_t i0 = v0 * Vec::W, i1 = std::min(n, v1 * Vec::W);
  if (i0 >= i1)
    return 0;
  detail::dispatch_act(act, [&](auto a) {
    detail::act_run<decltype(a)::value>(x + i0, y + i0, i1 - i0, Vec::set1(p0), Vec::set1(p1));
  });
  return 0;
}

namespace detail {
/// The convolution of conv2d and conv3d (NCDHW, shape `s` per group of
/// `s.C` input channels): see the file comment for the scheme. `direct`: a
/// 1x1(x1) stride-1 unpadded window, whose im2col is the input itself.
inline void conv_gemm(const float *x, const float *wpacked, const float *bias, int32_t has_bias,
                      const float *z, int32_t has_z, float *y, float *scratch, int64_t batch,
                      int64_t M, int64_t G, const ConvShape &s, bool direct, int32_t act,
                      float p0, float p1, int64_t part, int64_t parts) {
  constexpr int MR = Vec::MR;
  const int64_t nr = Vec::W * Vec::NV;
  const int64_t cg = s.C, mg = M / G, K = cg * s.KD * s.KH * s.KW, P = s.OD * s.OH * s.OW;
  const int64_t in = s.D * s.H * s.W;
  const int64_t panels = ceil_div(mg, MR);
  const ConvPlan plan = conv_plan(ONNXCC_KERNELS_ISA, K, P);
  const int64_t npb = ceil_div(P, plan.nb);
  const int64_t outer = batch * G * npb;
  int64_t nmc = 1;
  if (parts > 1 && outer < 2 * parts)
    nmc = std::min(panels, ceil_div(2 * parts, outer));
  const int64_t total = outer * nmc;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  float *blk = scratch + part * (direct ? 0 : plan.kc * plan.nb);
  const ActParams actp{act, p0, p1};
  // Consecutive units of one pixel block (chunks of panels) run as one: the
  // block's im2col is packed once per part, not once per chunk.
  for (int64_t u = u0, next; u < u1; u = next) {
    int64_t t = u / nmc;
    next = std::min(u1, (t + 1) * nmc);
    int64_t pb = t % npb;
    t /= npb;
    int64_t g = t % G, b = t / G;
    int64_t pan0 = panels * (u % nmc) / nmc, pan1 = panels * ((next - 1) % nmc + 1) / nmc;
    int64_t pix0 = pb * plan.nb, np = std::min(plan.nb, P - pix0);
    const float *xg = x + (b * G + g) * cg * in;
    float *yg = y + (b * M + g * mg) * P + pix0;
    const float *zg = has_z ? z + (b * M + g * mg) * P + pix0 : nullptr;
    const float *wg = wpacked + g * panels * MR * K;
    for (int64_t k0 = 0; k0 < K; k0 += plan.kc) {
      int64_t kc = std::min(plan.kc, K - k0);
      bool last = k0 + kc == K;
      if (!direct)
        pack_im2col(xg, s, k0, kc, pix0, np, blk);
      for (int64_t pan = pan0; pan < pan1; ++pan) {
        int64_t m0 = pan * MR;
        int nrows = static_cast<int>(std::min<int64_t>(MR, mg - m0));
        const float *ap = wg + pan * MR * K + k0 * MR;
        for (int64_t q0 = 0; q0 < np; q0 += nr) {
          int ncols = static_cast<int>(std::min(nr, np - q0));
          float *cp = yg + m0 * P + q0;
          // A bias alone starts the accumulators; with z, the tile is set first.
          if (k0 == 0 && zg)
            init_tile(cp, P, nrows, ncols,
                      TileInit{has_bias ? bias + g * mg + m0 : nullptr, true, zg + m0 * P + q0, P});
          const bool acc = k0 > 0 || zg;
          const float *kb = k0 == 0 && has_bias && !zg ? bias + g * mg + m0 : nullptr;
          const ActParams *a = last && act != kActNone ? &actp : nullptr;
          if (direct)
            ukernel_cols<MR, true>(kc, ap, 0, xg + k0 * P + pix0 + q0, P, true, cp, P, ncols, nrows,
                                   acc, a, kb, true);
          else
            ukernel_cols<MR, true>(kc, ap, 0, blk + (q0 / nr) * kc * nr, nr, false, cp, P, ncols,
                                   nrows, acc, a, kb, true);
        }
      }
    }
  }
}
} // namespace detail

/// 2-D convolution (NCHW), see the file comment for the scheme (a 1-D one is
/// H = OH = KH = 1). Work units are (image, group, pixel block, chunk of
/// weight panels); part `part` of `parts` takes a contiguous range. Every
/// output element is computed by the same sequence of operations whatever
/// the split, so results are bitwise identical for any `parts`.
inline int conv2d(const float *x, const float *wpacked, const float *bias, int32_t has_bias,
                  const float *z, int32_t has_z, float *y, float *scratch, int64_t batch, int64_t C,
                  int64_t H, int64_t W, int64_t M, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                  int64_t SH, int64_t SW, int64_t PT, int64_t PL, int64_t PB, int64_t PR,
                  int64_t DH, int64_t DW, int64_t G, int32_t act, float p0, float p1, int64_t part,
                  int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  const bool direct =
      KH == 1 && KW == 1 && SH == 1 && SW == 1 && PT == 0 && PL == 0 && PB == 0 && PR == 0;
  const ConvShape shape{C / G, 1, H, W, 1, OH, OW, 1, KH, KW, 1, SH, SW, 0, PT, PL, 1, DH, DW};
  conv_gemm(x, wpacked, bias, has_bias, z, has_z, y, scratch, batch, M, G, shape, direct, act,
            p0, p1, part, parts);
  return 0;
}

/// 3-D convolution (NCDHW): conv2d's scheme with the depth in the im2col
/// rows (K = Cg*KD*KH*KW) and the output pixels (OD*OH*OW). Weights packed
/// by pack_conv_weights with that K.
inline int conv3d(const float *x, const float *wpacked, const float *bias, int32_t has_bias,
                  const float *z, int32_t has_z, float *y, float *scratch, int64_t batch, int64_t C,
                  int64_t D, int64_t H, int64_t W, int64_t M, int64_t OD, int64_t OH, int64_t OW,
                  int64_t KD, int64_t KH, int64_t KW, int64_t SD, int64_t SH, int64_t SW,
                  int64_t PF, int64_t PT, int64_t PL, int64_t PK, int64_t PB, int64_t PR,
                  int64_t DD, int64_t DH, int64_t DW, int64_t G, int32_t act, float p0, float p1,
                  int64_t part, int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  const bool direct = KD == 1 && KH == 1 && KW == 1 && SD == 1 && SH == 1 && SW == 1 &&
                      PF == 0 && PT == 0 && PL == 0 && PK == 0 && PB == 0 && PR == 0;
  const ConvShape shape{C / G, D, H, W, OD, OH, OW, KD, KH, KW, SD, SH, SW, PF, PT, PL, DD, DH, DW};
  conv_gemm(x, wpacked, bias, has_bias, z, has_z, y, scratch, batch, M, G, shape, direct, act,
            p0, p1, part, parts);
  return 0;
}

//===----------------------------------------------------------------------===//
// ConvTranspose: a GEMM per kernel tap, scattered into the output.
//===----------------------------------------------------------------------===//

/// Floats of pack_conv_transpose_weights' output.
inline int64_t packed_conv_transpose_weights_floats(int isa, int64_t C, int64_t Mg, int64_t G,
                                                    int64_t taps) {
  return G * taps * detail::round_up(Mg, conv_mr(isa)) * (C / G);
}

/// Packs ConvTranspose weights W [C][Mg][taps] (taps = KD*KH*KW; group g
/// owns input channels g*Cg .. (g+1)*Cg-1) as, per group and tap, the GEMM's
/// A panels over the Mg output channels: panel p holds Cg steps of MR
/// values, out[(((g*taps + t)*panels + p)*Cg + c)*MR + r] =
/// W[g*Cg + c][p*MR + r][t]; rows past Mg are zero.
inline void pack_conv_transpose_weights(int isa, const float *w, int64_t C, int64_t Mg, int64_t G,
                                        int64_t taps, float *out) {
  const int64_t mr = conv_mr(isa), cg = C / G, panels = detail::ceil_div(Mg, mr);
  for (int64_t g = 0; g < G; ++g)
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t p = 0; p < panels; ++p) {
        float *dst = out + ((g * taps + t) * panels + p) * cg * mr;
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t r = 0; r < mr; ++r) {
            int64_t m = p * mr + r;
            dst[c * mr + r] = m < Mg ? w[((g * cg + c) * Mg + m) * taps + t] : 0.0f;
          }
      }
}

/// Scratch floats per part of conv_transpose(): one tile of products (the
/// MR output channels of one tap over a block of input pixels).
inline int64_t conv_transpose_scratch_floats(int isa, int64_t C, int64_t G, int64_t P) {
  return conv_mr(isa) * detail::conv_plan(isa, C / G, P).nb;
}

/// ConvTranspose (NCDHW; 2-D: D = OD = KD = 1, 1-D also H = OH = KH = 1):
/// input pixel (id, ih, iw) of channel c adds W[c][m][kd][kh][kw] times its
/// value to output (id*SD - PF + kd*DD, ih*SH - PT + kh*DH, iw*SW - PL +
/// kw*DW) of channel m, when inside the output; y starts from the bias.
/// Per (image, group, chunk of output channels), per block of input pixels
/// and per tap: the products of the channel panels (weights packed by
/// pack_conv_transpose_weights) with the block's pixels are one GEMM tile
/// (the input read in place), then added at their output positions. Work
/// units are (image, group, chunk of output-channel panels): each part owns
/// whole output channels, so no two parts write one element, and every
/// output sums its contributions in the same order whatever the split.
inline int conv_transpose(const float *x, const float *wpacked, const float *bias,
                          int32_t has_bias, float *y, float *scratch, int64_t batch, int64_t C,
                          int64_t D, int64_t H, int64_t W, int64_t M, int64_t OD, int64_t OH,
                          int64_t OW, int64_t KD, int64_t KH, int64_t KW, int64_t SD, int64_t SH,
                          int64_t SW, int64_t PF, int64_t PT, int64_t PL, int64_t DD, int64_t DH,
                          int64_t DW, int64_t G, int64_t part, int64_t parts,
                          int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  constexpr int MR = Vec::MR;
  const int64_t nr = Vec::W * Vec::NV;
  const int64_t cg = C / G, mg = M / G, taps = KD * KH * KW;
  const int64_t P = D * H * W, OP = OD * OH * OW;
  const int64_t panels = ceil_div(mg, MR);
  const ConvPlan plan = conv_plan(ONNXCC_KERNELS_ISA, cg, P);
  const int64_t outer = batch * G;
  int64_t nmc = 1;
  if (parts > 1 && outer < 2 * parts)
    nmc = std::min(panels, ceil_div(2 * parts, outer));
  const int64_t total = outer * nmc;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  float *tile = scratch + part * conv_transpose_scratch_floats(ONNXCC_KERNELS_ISA, C, G, P);
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t mc = u % nmc, g = (u / nmc) % G, b = u / (nmc * G);
    const int64_t pan0 = panels * mc / nmc, pan1 = panels * (mc + 1) / nmc;
    const int64_t m0 = pan0 * MR, m1 = std::min(mg, pan1 * MR);
    const float *xg = x + (b * G + g) * cg * P;
    float *yg = y + (b * M + g * mg) * OP;
    for (int64_t m = m0; m < m1; ++m) {
      const float v = has_bias ? bias[g * mg + m] : 0.0f;
      for (int64_t o = 0; o < OP; ++o)
        yg[m * OP + o] = v;
    }
    for (int64_t pix0 = 0; pix0 < P; pix0 += plan.nb) {
      const int64_t np = std::min(plan.nb, P - pix0);
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t kd = t / (KH * KW), kh = (t / KW) % KH, kw = t % KW;
        for (int64_t pan = pan0; pan < pan1; ++pan) {
          const int nrows = static_cast<int>(std::min<int64_t>(MR, mg - pan * MR));
          const float *ap = wpacked + ((g * taps + t) * panels + pan) * cg * MR;
          // The products of MR channels with the block's pixels.
          for (int64_t q0 = 0; q0 < np; q0 += nr) {
            const int ncols = static_cast<int>(std::min(nr, np - q0));
            for (int64_t k0 = 0; k0 < cg || k0 == 0; k0 += plan.kc) {
              const int64_t kc = std::min(plan.kc, cg - k0);
              ukernel_cols<MR, true>(kc, ap + k0 * MR, 0, xg + k0 * P + pix0 + q0, P, true,
                                     tile + q0, plan.nb, ncols, nrows, k0 > 0, nullptr);
              if (cg == 0)
                break;
            }
          }
          // Each run of the block's pixels along one input row lands on one
          // output row, SW apart.
          for (int64_t q = 0; q < np;) {
            const int64_t p = pix0 + q, iw0 = p % W, ih = (p / W) % H, id = p / (W * H);
            const int64_t n = std::min(np - q, W - iw0);
            const int64_t od = id * SD - PF + kd * DD, oh = ih * SH - PT + kh * DH;
            if (od >= 0 && od < OD && oh >= 0 && oh < OH) {
              // Input columns iw0 + j whose output column ow lies in [0, OW).
              const int64_t base = -PL + kw * DW; // ow = iw * SW + base
              int64_t j0 = 0, j1 = n;
              if (iw0 * SW + base < 0)
                j0 = std::min(n, ceil_div(-(iw0 * SW + base), SW));
              const int64_t lastIw = OW - 1 - base >= 0 ? (OW - 1 - base) / SW : -1;
              j1 = std::max(j0, std::min(n, lastIw - iw0 + 1));
              if (j0 < j1)
                for (int r = 0; r < nrows; ++r) {
                  const float *src = tile + r * plan.nb + q + j0;
                  float *dst =
                      yg + (pan * MR + r) * OP + (od * OH + oh) * OW + (iw0 + j0) * SW + base;
                  const int64_t len = j1 - j0;
                  if (SW == 1) {
                    int64_t j = 0;
                    for (; j + Vec::W <= len; j += Vec::W)
                      Vec::store(dst + j, Vec::add(Vec::load(dst + j), Vec::load(src + j)));
                    for (; j < len; ++j)
                      dst[j] += src[j];
                  } else {
                    for (int64_t j = 0; j < len; ++j)
                      dst[j * SW] += src[j];
                  }
                }
            }
            q += n;
          }
        }
      }
    }
  }
  return 0;
}

/// C[M][N] = act(A x B + bias + Z) with B packed by pack_gemm_b. Work units
/// are (B panel, chunk of rows).
inline int gemm_packed_b(const float *a, int64_t lda, const float *bpacked, const float *bias,
                         int32_t has_bias, const float *z, int32_t has_z, float *c, int64_t M,
                         int64_t N, int64_t K, int32_t act, float p0, float p1, int64_t part,
                         int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  constexpr int MR = Vec::GemmMR;
  const int64_t nr = Vec::W * Vec::NV;
  const int64_t npan = ceil_div(N, nr);
  const int64_t mblocks = ceil_div(M, MR);
  const ActParams actp{act, p0, p1};
  int64_t nmc = 1;
  if (parts > 1 && npan < 2 * parts)
    nmc = std::min(mblocks, ceil_div(2 * parts, npan));
  const int64_t total = npan * nmc;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  for (int64_t u = u0; u < u1; ++u) {
    int64_t j = u / nmc, mc = u % nmc;
    int64_t r0 = mblocks * mc / nmc * MR, r1 = std::min(M, mblocks * (mc + 1) / nmc * MR);
    int64_t n0 = j * nr;
    int ncols = static_cast<int>(std::min(nr, N - n0));
    const float *bp = bpacked + j * K * nr;
    for (int64_t k0 = 0; k0 < K || k0 == 0; k0 += kGemmKc) {
      int64_t kc = std::min(kGemmKc, K - k0);
      bool last = k0 + kc >= K;
      for (int64_t m = r0; m < r1;) {
        int64_t rows = r1 - m;
        const float *ap = a + m * lda + k0;
        const float *bk = bp + k0 * nr;
        float *cp = c + m * N + n0;
        int step = rows >= MR ? MR : (MR > 2 && rows >= 2) ? 2 : 1;
        // A bias alone starts the accumulators; with z, the tile is set first.
        if (k0 == 0 && has_z)
          init_tile(cp, N, step, ncols,
                    TileInit{has_bias ? bias + n0 : nullptr, false, z + m * N + n0, N});
        const bool acc = k0 > 0 || has_z;
        const float *kb = k0 == 0 && has_bias && !has_z ? bias + n0 : nullptr;
        const ActParams *e = last && act != kActNone ? &actp : nullptr;
        if (step == MR)
          ukernel_cols<MR, false>(kc, ap, lda, bk, nr, false, cp, N, ncols, MR, acc, e, kb);
        else if (step == 2)
          ukernel_cols<2, false>(kc, ap, lda, bk, nr, false, cp, N, ncols, 2, acc, e, kb);
        else
          ukernel_cols<1, false>(kc, ap, lda, bk, nr, false, cp, N, ncols, 1, acc, e, kb);
        m += step;
      }
      if (K == 0)
        break;
    }
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// MatMul of two activations (neither operand constant): the MLAS approach,
// operands packed at run time into the layout of the GEMM micro-kernel.
//===----------------------------------------------------------------------===//

namespace detail {

/// How matmul() computes one product, from the strides of its operands:
///  - dot: B's columns are contiguous (B is a transposed activation, as
///    K^T in attention) and A has few rows: each output is one dot product
///    of two contiguous vectors, no packing (a decode step's Q K^T);
///  - packA: A's k steps are not contiguous (a transposed A): its rows are
///    copied into scratch first;
///  - packB: B's rows are not contiguous (and not the dot case): B is packed
///    into pack_gemm_b's panels in scratch; otherwise the micro-kernel reads
///    B in place (row pitch sbk), its last vector masked.
struct MatmulPlan {
  bool dot, packA, packB;
};
inline MatmulPlan matmul_plan(int64_t M, int64_t N, int64_t K, int64_t sak, int64_t sbk,
                              int64_t sbn) {
  MatmulPlan p;
  const bool aContiguous = sak == 1 || K <= 1, bRows = sbn == 1 || N <= 1;
  p.dot = !bRows && (sbk == 1 || K <= 1) && M <= 4;
  p.packA = !aContiguous;
  p.packB = !bRows && !p.dot;
  return p;
}

/// Panels j0 .. j1-1 of B (element (k, n) at b[k*sbk + n*sbn]) in
/// pack_gemm_b's layout: out[(j*K + k)*NR + n], zeros past column N.
inline void pack_b_panels(const float *b, int64_t K, int64_t N, int64_t sbk, int64_t sbn,
                          int64_t j0, int64_t j1, float *out) {
  const int64_t nr = Vec::W * Vec::NV;
  for (int64_t j = j0; j < j1; ++j) {
    float *dst = out + j * K * nr;
    const int64_t n0 = j * nr, nn = std::min(nr, N - n0);
    if (sbk == 1) {
      // Columns of B are contiguous: read each once, write it with pitch NR.
      for (int64_t n = 0; n < nn; ++n) {
        const float *src = b + (n0 + n) * sbn;
        for (int64_t k = 0; k < K; ++k)
          dst[k * nr + n] = src[k];
      }
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = nn; n < nr; ++n)
          dst[k * nr + n] = 0.0f;
      continue;
    }
    for (int64_t k = 0; k < K; ++k) {
      const float *src = b + k * sbk + n0 * sbn;
      for (int64_t n = 0; n < nn; ++n)
        dst[k * nr + n] = src[n * sbn];
      for (int64_t n = nn; n < nr; ++n)
        dst[k * nr + n] = 0.0f;
    }
  }
}

/// The sum of x[i] * y[i] for i < n, in a fixed order: four vector
/// accumulators over the whole vectors, then the tail, then the lanes.
inline float dot_contiguous(const float *x, const float *y, int64_t n) {
  constexpr int W = Vec::W;
  VT s0 = Vec::zero(), s1 = Vec::zero(), s2 = Vec::zero(), s3 = Vec::zero();
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    s0 = Vec::fma(Vec::load(x + i), Vec::load(y + i), s0);
    s1 = Vec::fma(Vec::load(x + i + W), Vec::load(y + i + W), s1);
    s2 = Vec::fma(Vec::load(x + i + 2 * W), Vec::load(y + i + 2 * W), s2);
    s3 = Vec::fma(Vec::load(x + i + 3 * W), Vec::load(y + i + 3 * W), s3);
  }
  for (; i + W <= n; i += W)
    s0 = Vec::fma(Vec::load(x + i), Vec::load(y + i), s0);
  if (i < n) {
    const int rest = static_cast<int>(n - i);
    s1 = Vec::fma(Vec::load_n(x + i, rest), Vec::load_n(y + i, rest), s1);
  }
  return hsum(Vec::add(Vec::add(s0, s1), Vec::add(s2, s3)));
}

} // namespace detail

/// Scratch floats per part of matmul() for these dims and strides (the
/// lowering passes at least this much per part; see detail::matmul_plan).
inline int64_t matmul_scratch_floats(int isa, int64_t M, int64_t N, int64_t K, int64_t sak,
                                     int64_t sbk, int64_t sbn) {
  (void)isa;
  detail::MatmulPlan p = detail::matmul_plan(M, N, K, sak, sbk, sbn);
  return (p.packA ? M * K : 0) + (p.packB ? detail::round_up(N, gemm_nr(isa)) * K : 0);
}

/// C = act(A x B + bias + Z) for float32 activations in any layout, batched
/// with broadcasting: for batch index (i0, i1, i2) < (nb0, nb1, nb2), A's
/// element (m, k) is a[i0*sa0 + i1*sa1 + i2*sa2 + m*sam + k*sak] and B's
/// (k, n) is b[i0*sb0 + i1*sb1 + i2*sb2 + k*sbk + n*sbn] (a 0 batch stride
/// broadcasts; a transposed operand is a swap of its two strides), so that a
/// Transpose feeding a MatMul needs no copy. C and Z are dense [batch][M][N];
/// bias has N values (per column). `scratch` holds `scratch_floats` floats
/// per part (matmul_scratch_floats). Work units are (batch, B panel, chunk
/// of rows); part `part` of `parts` takes a contiguous range and packs what
/// its units read. Every output is the same sequence of operations whatever
/// the split (results bitwise identical for any `parts`). Z may be C.
inline int matmul(const float *a, const float *b, const float *bias, int32_t has_bias,
                  const float *z, int32_t has_z, float *c, float *scratch,
                  int64_t scratch_floats, int64_t M, int64_t N, int64_t K, int64_t sam,
                  int64_t sak, int64_t sbk, int64_t sbn, int64_t nb0, int64_t nb1, int64_t nb2,
                  int64_t sa0, int64_t sa1, int64_t sa2, int64_t sb0, int64_t sb1, int64_t sb2,
                  int32_t act, float p0, float p1, int64_t part, int64_t parts,
                  int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  constexpr int MR = Vec::GemmMR;
  const int64_t nr = Vec::W * Vec::NV;
  const int64_t batches = nb0 * nb1 * nb2;
  if (batches == 0 || M == 0 || N == 0)
    return 0;
  const MatmulPlan plan = matmul_plan(M, N, K, sak, sbk, sbn);
  float *aPacked = scratch + part * scratch_floats;
  float *bPacked = aPacked + (plan.packA ? M * K : 0);
  const ActParams actp{act, p0, p1};
  const int64_t npan = plan.dot ? 1 : ceil_div(N, nr);
  const int64_t mblocks = ceil_div(M, MR);
  int64_t nmc = 1;
  if (parts > 1 && batches * npan < 2 * parts)
    nmc = std::min(mblocks, ceil_div(2 * parts, batches * npan));
  const int64_t total = batches * npan * nmc;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  int64_t packedBatch = -1, bPan0 = 0, bPan1 = 0;
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t bi = u / (npan * nmc), j = (u / nmc) % npan, mc = u % nmc;
    const int64_t i2 = bi % nb2, i1 = (bi / nb2) % nb1, i0 = bi / (nb2 * nb1);
    const float *ab = a + i0 * sa0 + i1 * sa1 + i2 * sa2;
    const float *bb = b + i0 * sb0 + i1 * sb1 + i2 * sb2;
    float *cb = c + bi * M * N;
    const float *zb = has_z ? z + bi * M * N : nullptr;
    const int64_t r0 = mblocks * mc / nmc * MR, r1 = std::min(M, mblocks * (mc + 1) / nmc * MR);
    // A's rows (all of them: another unit of this batch may need others)
    // and this part's panels of B, once per batch.
    if (bi != packedBatch) {
      if (plan.packA)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t k = 0; k < K; ++k)
            aPacked[m * K + k] = ab[m * sam + k * sak];
      if (plan.packB) {
        // The panels of this batch the part's units read: from j to the
        // last unit of the batch within the part.
        const int64_t lastU = std::min(u1, (bi + 1) * npan * nmc) - 1;
        bPan0 = j;
        bPan1 = (lastU / nmc) % npan + 1;
        pack_b_panels(bb, K, N, sbk, sbn, bPan0, bPan1, bPacked);
      }
      packedBatch = bi;
    }
    const float *arows = plan.packA ? aPacked : ab;
    const int64_t lda = plan.packA ? K : sam;
    if (plan.dot) {
      // Few rows against B's contiguous columns: one dot product each.
      for (int64_t m = r0; m < r1; ++m)
        for (int64_t n = 0; n < N; ++n) {
          float v = K > 0 ? dot_contiguous(arows + m * lda, bb + n * sbn, K) : 0.0f;
          if (has_bias)
            v += bias[n];
          if (zb)
            v += zb[m * N + n];
          cb[m * N + n] = v;
        }
      if (act != kActNone)
        for (int64_t m = r0; m < r1; ++m)
          activate(cb + m * N, N, act, p0, p1);
      continue;
    }
    const int64_t n0 = j * nr;
    const int ncols = static_cast<int>(std::min(nr, N - n0));
    // B in place (row pitch sbk, the last vector masked) or its packed panel.
    const float *bp = plan.packB ? bPacked + j * K * nr : bb + n0;
    const int64_t ldb = plan.packB ? nr : sbk;
    const bool maskedB = !plan.packB;
    for (int64_t k0 = 0; k0 < K || k0 == 0; k0 += kGemmKc) {
      const int64_t kc = std::min(kGemmKc, K - k0);
      const bool last = k0 + kc >= K;
      for (int64_t m = r0; m < r1;) {
        const int64_t rows = r1 - m;
        const float *ap = arows + m * lda + k0;
        const float *bk = bp + k0 * ldb;
        float *cp = cb + m * N + n0;
        const int step = rows >= MR ? MR : (MR > 2 && rows >= 2) ? 2 : 1;
        // A bias alone starts the accumulators; with z, the tile is set first.
        if (k0 == 0 && zb)
          init_tile(cp, N, step, ncols,
                    TileInit{has_bias ? bias + n0 : nullptr, false, zb + m * N + n0, N});
        const bool acc = k0 > 0 || zb;
        const float *kb = k0 == 0 && has_bias && !zb ? bias + n0 : nullptr;
        const ActParams *e = last && act != kActNone ? &actp : nullptr;
        if (step == MR)
          ukernel_cols<MR, false>(kc, ap, lda, bk, ldb, maskedB, cp, N, ncols, MR, acc, e, kb);
        else if (step == 2)
          ukernel_cols<2, false>(kc, ap, lda, bk, ldb, maskedB, cp, N, ncols, 2, acc, e, kb);
        else
          ukernel_cols<1, false>(kc, ap, lda, bk, ldb, maskedB, cp, N, ncols, 1, acc, e, kb);
        m += step;
      }
      if (K == 0)
        break;
    }
  }
  (void)bPan0;
  (void)bPan1;
  return 0;
}

//===----------------------------------------------------------------------===//
// Attention: softmax(Q K^T * scale + mask) V, blocked like a GEMM.
//===----------------------------------------------------------------------===//

namespace detail {
/// Query rows per block of attention(): their scores against every key
/// (rows x T floats) stay within ~128 KB, a multiple of the GEMM row tile,
/// between one tile and 64 rows.
inline int64_t attention_block_rows(int isa, int64_t t) {
  const int64_t mr = gemm_mr(isa);
  int64_t rows = (int64_t(32) * 1024 / std::max<int64_t>(t, 1)) / mr * mr;
  return std::min<int64_t>(64, std::max<int64_t>(mr, rows));
}
} // namespace detail

/// Scratch floats per part of attention(): K of one (batch, kv head) packed
/// as the GEMM's B panels ([D][T], panel-major) and the scores of one block
/// of query rows.
inline int64_t attention_scratch_floats(int isa, int64_t t, int64_t d) {
  const int64_t tp = detail::round_up(std::max<int64_t>(t, 1), gemm_nr(isa));
  return tp * std::max<int64_t>(d, 1) + detail::attention_block_rows(isa, t) * tp;
}

/// Attention over strided operands: Q (batch, hq heads, sq rows, d), K
/// (batch, hkv heads, t keys, d), V (batch, hkv, t, dv) and Y (batch, hq, sq,
/// dv), each addressed as base + b * bs + h * hs + row * rs + column
/// (columns contiguous), so that [B, S, H * D] and [B, H, S, D] layouts need
/// no copy, and a 0 batch or head stride broadcasts. Query head h reads
/// key/value head h / (hq / hkv) (GQA/MQA). The logits are softcap(Q K^T *
/// scale) (softcap 0: none) plus the additive mask element mask[b * mbs + h *
/// mhs + i * mrs + j * mcs] when has_mask; with causal, key j is visible to
/// row i only when j <= i + offset. A row whose keys are all hidden (-inf)
/// gives zeros.
///
/// Blocked like a GEMM, never materializing the sq x t scores: per (batch,
/// kv head) K is packed once into the micro-kernel's panels; per block of
/// query rows (attention_block_rows) the scores Q K^T come from the GEMM
/// micro-kernel (each K vector loaded feeds a tile of rows), the softmax
/// runs row by row in place, and P V is a second GEMM reading V in place.
/// Work units are (batch, head, row block); part `part` of `parts` takes a
/// contiguous range. Every output is the same sequence of operations
/// whatever the split.
inline int attention(const float *q, const float *k, const float *v, const float *mask,
                     int32_t has_mask, float *y, float *scratch, int64_t batch, int64_t hq,
                     int64_t hkv, int64_t sq, int64_t t, int64_t d, int64_t dv, int64_t qbs,
                     int64_t qhs, int64_t qrs, int64_t kbs, int64_t khs, int64_t krs,
                     int64_t vbs, int64_t vhs, int64_t vrs, int64_t ybs, int64_t yhs,
                     int64_t yrs, int64_t mbs, int64_t mhs, int64_t mrs, int64_t mcs,
                     float scale, float softcap, int32_t causal, int64_t offset, int64_t part,
                     int64_t parts) {
  using namespace detail;
  constexpr int MR = Vec::GemmMR;
  const int64_t nr = Vec::W * Vec::NV;
  if (batch == 0 || hq == 0 || sq == 0 || dv == 0)
    return 0;
  // The lowering checks that hkv >= 1 divides hq.
  const int64_t group = hq / hkv;
  const int64_t tp = round_up(std::max<int64_t>(t, 1), nr);
  const int64_t rb = attention_block_rows(ONNXCC_KERNELS_ISA, t);
  const int64_t blocks = ceil_div(sq, rb);
  float *kp = scratch + part * attention_scratch_floats(ONNXCC_KERNELS_ISA, t, d);
  float *scores = kp + tp * std::max<int64_t>(d, 1);
  const float ninf = -std::numeric_limits<float>::infinity();
  const int64_t total = batch * hq * blocks;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  int64_t loaded = -1, loadedPanels = 0; // the (batch, kv head) packed in kp
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t blk = u % blocks, h = (u / blocks) % hq, b = u / (blocks * hq);
    const int64_t hk = h / group;
    const int64_t i0 = blk * rb, i1 = std::min(sq, i0 + rb), rows = i1 - i0;
    // Keys any row of the block may see.
    int64_t n = t;
    if (causal)
      n = std::max<int64_t>(0, std::min<int64_t>(t, i1 - 1 + offset + 1));
    const int64_t panels = ceil_div(n, nr);
    if (b * hkv + hk != loaded || panels > loadedPanels) {
      pack_b_panels(k + b * kbs + hk * khs, d, t, 1, krs, 0, ceil_div(t, nr), kp);
      loaded = b * hkv + hk;
      loadedPanels = ceil_div(t, nr);
    }
    // Scores of the block: Q rows x K panels.
    const float *qb = q + b * qbs + h * qhs + i0 * qrs;
    for (int64_t j = 0; j < panels; ++j) {
      const int ncols = static_cast<int>(std::min(nr, n - j * nr));
      for (int64_t k0 = 0; k0 < d || k0 == 0; k0 += kGemmKc) {
        const int64_t kc = std::min(kGemmKc, d - k0);
        const bool acc = k0 > 0;
        for (int64_t r = 0; r < rows;) {
          const int64_t left = rows - r;
          const int step = left >= MR ? MR : (MR > 2 && left >= 2) ? 2 : 1;
          const float *ap = qb + r * qrs + k0;
          const float *bp = kp + j * d * nr + k0 * nr;
          float *cp = scores + r * tp + j * nr;
          if (step == MR)
            ukernel_cols<MR, false>(kc, ap, qrs, bp, nr, false, cp, tp, ncols, MR, acc, nullptr);
          else if (step == 2)
            ukernel_cols<2, false>(kc, ap, qrs, bp, nr, false, cp, tp, ncols, 2, acc, nullptr);
          else
            ukernel_cols<1, false>(kc, ap, qrs, bp, nr, false, cp, tp, ncols, 1, acc, nullptr);
          r += step;
        }
        if (d == 0)
          break;
      }
    }
    // Softmax of each row in place; hidden keys get probability 0.
    const VT vscale = Vec::set1(scale);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      float *s = scores + r * tp;
      int64_t visible = n;
      if (causal)
        visible = std::max<int64_t>(0, std::min<int64_t>(t, i + offset + 1));
      const float *mrow = has_mask ? mask + b * mbs + h * mhs + i * mrs : nullptr;
      // Scale, softcap and mask, and the row's maximum (Vec::max skips a
      // NaN operand: a row whose maximum is -inf is looked at again).
      VT vmax = Vec::set1(ninf);
      for (int64_t j = 0; j < visible; j += Vec::W) {
        const int w = static_cast<int>(std::min<int64_t>(Vec::W, visible - j));
        VT x = Vec::mul(Vec::load_n(s + j, w), vscale);
        if (softcap > 0) {
          Vec::store_n(s + j, x, w);
          for (int e = 0; e < w; ++e)
            s[j + e] = softcap * std::tanh(s[j + e] / softcap);
          x = Vec::load_n(s + j, w);
        }
        if (mrow) {
          if (mcs == 1)
            x = Vec::add(x, Vec::load_n(mrow + j, w));
          else
            x = Vec::add(x, Vec::set1(mrow[0]));
        }
        Vec::store_n(s + j, x, w);
        if (w == Vec::W)
          vmax = Vec::max(x, vmax);
        else
          for (int e = 0; e < w; ++e)
            if (s[j + e] > ninf) {
              vmax = Vec::max(Vec::set1(s[j + e]), vmax);
            }
      }
      float m = hmax(vmax);
      bool nan = false;
      if (m == ninf)
        for (int64_t j = 0; j < visible; ++j)
          nan = nan || s[j] != s[j];
      if (m == ninf && !nan) {
        // Every key hidden: a zero row.
        for (int64_t j = 0; j < n; ++j)
          s[j] = 0.0f;
        continue;
      }
      softmax_row(s, s, visible); // a NaN makes the row NaN
      for (int64_t j = visible; j < n; ++j)
        s[j] = 0.0f;
    }
    // Y rows = P x V, V read in place (row pitch vrs, the last vector
    // masked).
    const float *vb = v + b * vbs + hk * vhs;
    float *yb = y + b * ybs + h * yhs + i0 * yrs;
    for (int64_t c0 = 0; c0 < dv; c0 += nr) {
      const int ncols = static_cast<int>(std::min(nr, dv - c0));
      for (int64_t k0 = 0; k0 < n || k0 == 0; k0 += kGemmKc) {
        const int64_t kc = std::min(kGemmKc, n - k0);
        const bool acc = k0 > 0;
        for (int64_t r = 0; r < rows;) {
          const int64_t left = rows - r;
          const int step = left >= MR ? MR : (MR > 2 && left >= 2) ? 2 : 1;
          const float *ap = scores + r * tp + k0;
          const float *bp = vb + k0 * vrs + c0;
          float *cp = yb + r * yrs + c0;
          if (step == MR)
            ukernel_cols<MR, false>(kc, ap, tp, bp, vrs, true, cp, yrs, ncols, MR, acc, nullptr);
          else if (step == 2)
            ukernel_cols<2, false>(kc, ap, tp, bp, vrs, true, cp, yrs, ncols, 2, acc, nullptr);
          else
            ukernel_cols<1, false>(kc, ap, tp, bp, vrs, true, cp, yrs, ncols, 1, acc, nullptr);
          r += step;
        }
        if (n == 0)
          break;
      }
    }
  }
  return 0;
}

namespace detail {

/// tmp[j .. j + NV*W) = (or +=, unless `first`) the sum over taps t < nt of
/// wt[t] * planes[off[t] + j ..].
template <int NV>
inline void dw_sum(const float *planes, const int64_t *off, const float *wt, int nt, float *tmp,
                   int64_t j, bool first) {
  constexpr int VW = Vec::W;
  VT acc[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v)
    acc[v] = first ? Vec::zero() : Vec::load(tmp + j + v * VW);
  for (int t = 0; t < nt; ++t) {
    const float *src = planes + off[t] + j;
    VT wv = Vec::set1(wt[t]);
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      acc[v] = Vec::fma(wv, Vec::load(src + v * VW), acc[v]);
  }
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v)
    Vec::store(tmp + j + v * VW, acc[v]);
}

/// Stride-S K x K depthwise sums (dilation 1) of R output rows oh0 .. oh0+R-1
/// at columns c .. c+W-1 into tmp (rows rq apart). Output row r reads plane
/// (kh%S, kw%S) at row r + kh/S, column c + kw/S: a plane row loaded once
/// serves every (r, kh) pair that reads it (K + R - 1 loads per column of
/// taps instead of K*R). Every output sums its taps in the same order
/// whatever R and c.
template <int K, int S, int R>
inline void dw_rows(const float *planes, int64_t plane, int64_t rq, const float *wc, float *tmp,
                    int64_t oh0, int64_t c) {
  VT acc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    acc[r] = Vec::zero();
#pragma GCC unroll 2
  for (int a = 0; a < S; ++a) {
    constexpr int kMa = (K - 1) / S + 1; // (taps per column of phase 0)
    const int ma = (K - 1 - a) / S + 1;  // taps kh = a + S*m, m < ma
#pragma GCC unroll 5
    for (int kw = 0; kw < K; ++kw) {
      const float *base = planes + (a * S + kw % S) * plane + oh0 * rq + c + kw / S;
#pragma GCC unroll 12
      for (int q = 0; q < R + kMa - 1; ++q) {
        if (q >= R + ma - 1)
          break;
        const VT v = Vec::load(base + q * rq);
#pragma GCC unroll 5
        for (int m = 0; m < kMa; ++m) {
          const int r = q - m;
          if (m < ma && r >= 0 && r < R)
            acc[r] = Vec::fma(Vec::set1(wc[(a + S * m) * K + kw]), v, acc[r]);
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    Vec::store(tmp + (oh0 + r) * rq + c, acc[r]);
}

/// All OH x OW outputs of one channel with dw_rows (columns rounded up to
/// whole vectors: tmp row oh holds valid sums in columns < OW only).
template <int K, int S>
ONNXCC_NOINLINE void dw_rows_all(const float *planes, int64_t plane, int64_t rq, const float *wc,
                                 float *tmp, int64_t OH, int64_t OW) {
  constexpr int R = 4;
  int64_t oh = 0;
  for (; oh + R <= OH; oh += R)
    for (int64_t c = 0; c < OW; c += Vec::W)
      dw_rows<K, S, R>(planes, plane, rq, wc, tmp, oh, c);
  for (; oh < OH; ++oh)
    for (int64_t c = 0; c < OW; c += Vec::W)
      dw_rows<K, S, 1>(planes, plane, rq, wc, tmp, oh, c);
}

/// Depthwise epilogue of one channel: y = act(tmp (valid columns) + bias +
/// z), rows of tmp `rq` floats apart. `flat`: tmp holds all OH*rq sums,
/// rounded up to whole vectors (dw_sum), not only the valid columns.
template <int A>
ONNXCC_NOINLINE void dw_finish(float *tmp, int64_t rq, float *yp, const float *zp,
                               int64_t OH, int64_t OW, bool hasBias, float bias, float p0,
                               float p1, bool flat) {
  constexpr int VW = Vec::W;
  const VT bv = Vec::set1(bias), v0 = Vec::set1(p0), v1 = Vec::set1(p1);
  if (!zp && flat) {
    // Bias and activation over the flattened sums (the vectors dw_sum
    // stored: fewer than a vector per row for small maps), then the valid
    // columns are copied out.
    const int64_t J = OH * rq;
    for (int64_t j = 0; j < J; j += VW) {
      VT v = Vec::load(tmp + j);
      if (hasBias)
        v = Vec::add(v, bv);
      Vec::store(tmp + j, act_v<A>(v, v0, v1));
    }
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ow += VW) {
        const int n = static_cast<int>(std::min<int64_t>(VW, OW - ow));
        if (n == VW)
          Vec::store(yp + oh * OW + ow, Vec::load(tmp + oh * rq + ow));
        else
          Vec::store_n(yp + oh * OW + ow, Vec::load(tmp + oh * rq + ow), n);
      }
    return;
  }
  for (int64_t oh = 0; oh < OH; ++oh) {
    const float *tr = tmp + oh * rq;
    float *yr = yp + oh * OW;
    const float *zr = zp ? zp + oh * OW : nullptr;
    for (int64_t ow = 0; ow < OW; ow += VW) {
      const int n = static_cast<int>(std::min<int64_t>(VW, OW - ow));
      VT v = Vec::load(tr + ow);
      if (hasBias)
        v = Vec::add(v, bv);
      if (zr)
        v = Vec::add(v, n == VW ? Vec::load(zr + ow) : Vec::load_n(zr + ow, n));
      v = act_v<A>(v, v0, v1);
      if (n == VW)
        Vec::store(yr + ow, v);
      else
        Vec::store_n(yr + ow, v, n);
    }
  }
}

} // namespace detail

/// Depthwise convolution (group == C == M), see DwPlan for the scheme.
/// Work units are (image, channel). The padding of the planes (and their
/// slack) is the same for every channel: it is zeroed once per call, and
/// per channel only the input rows are copied in.
inline int depthwise_conv2d(const float *x, const float *w, const float *bias, int32_t has_bias,
                            const float *z, int32_t has_z, float *y, float *scratch, int64_t batch,
                            int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH,
                            int64_t KW, int64_t SH, int64_t SW, int64_t PT, int64_t PL, int64_t PB,
                            int64_t PR, int64_t DH, int64_t DW, int32_t act, float p0, float p1,
                            int64_t part, int64_t parts) {
  using namespace detail;
  constexpr int VW = Vec::W;
  const DwPlan plan = dw_plan(H, W, SH, SW, PT, PL, PB, PR, OH);
  const int64_t rq = plan.rq, nplanes = SH * SW;
  float *planes = scratch + part * (nplanes * plan.plane + plan.tmp);
  float *tmp = planes + nplanes * plan.plane;
  const int64_t J = OH * rq; // flattened outputs
  const int64_t total = batch * C;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  if (u0 >= u1)
    return 0;
  zero_floats(planes, nplanes * plan.plane);
  // Offset of each tap (kh, kw) into the planes, 64 taps at a time.
  constexpr int kTaps = 64;
  auto tap_offsets = [&](int64_t t0, int nt, int64_t *off) {
    for (int t = 0; t < nt; ++t) {
      int64_t r = (t0 + t) / KW * DH, c = (t0 + t) % KW * DW;
      off[t] = ((r % SH) * SW + c % SW) * plan.plane + (r / SH) * rq + c / SW;
    }
  };
  int64_t off0[kTaps];
  tap_offsets(0, static_cast<int>(std::min<int64_t>(kTaps, KH * KW)), off0);
  // Plane (pa, pb) holds input rows ih = i*SH + pa - PT for i in
  // [ilo[pa], ihi[pa]) and columns iw = jj*SW + pb - PL for jj in
  // [jlo[pb], jhi[pb]).
  constexpr int kMaxPhase = 16;
  int64_t ilo[kMaxPhase], ihi[kMaxPhase], jlo[kMaxPhase], jhi[kMaxPhase];
  auto valid_range = [](int64_t n, int64_t lim, int64_t s, int64_t ph, int64_t pad, int64_t &lo,
                        int64_t &hi) {
    // Indices k in [0, n) with 0 <= k*s + ph - pad < lim.
    lo = std::min(n, std::max<int64_t>(0, ceil_div(pad - ph, s)));
    hi = std::max(lo, std::min(n, lim - 1 + pad - ph < 0 ? 0 : (lim - 1 + pad - ph) / s + 1));
  };
  const bool phased = SH <= kMaxPhase && SW <= kMaxPhase;
  if (phased) {
    for (int64_t pa = 0; pa < SH; ++pa)
      valid_range(plan.hq, H, SH, pa, PT, ilo[pa], ihi[pa]);
    for (int64_t pb = 0; pb < SW; ++pb)
      valid_range(rq, W, SW, pb, PL, jlo[pb], jhi[pb]);
  }
  const int64_t vstep = kDwVecs * VW;
  // Stride 1, 5x5 with rows of at least 3/4 of a vector, or 3x3 on large
  // maps: whole output rows with plane rows shared between them (dw_rows).
  // Otherwise the flattened sums (measured faster there: small maps fill
  // whole vectors; stride 2 reads four planes).
  const bool rows = KH == KW && SH == 1 && SW == 1 && DH == 1 && DW == 1 &&
                    ((KH == 5 && 4 * OW >= 3 * VW) || (KH == 3 && OW >= 96));
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t ch = u % C;
    const float *xp = x + u * H * W;
    // Polyphase copy of the channel's input (the padding stays zero).
    for (int64_t pa = 0; pa < SH; ++pa)
      for (int64_t pb = 0; pb < SW; ++pb) {
        float *pl = planes + (pa * SW + pb) * plan.plane;
        int64_t i0, i1, j0, j1;
        if (phased) {
          i0 = ilo[pa], i1 = ihi[pa], j0 = jlo[pb], j1 = jhi[pb];
        } else {
          valid_range(plan.hq, H, SH, pa, PT, i0, i1);
          valid_range(rq, W, SW, pb, PL, j0, j1);
        }
        for (int64_t i = i0; i < i1; ++i)
          copy_strided(pl + i * rq + j0, xp + (i * SH + pa - PT) * W + j0 * SW + pb - PL, j1 - j0,
                       SW);
      }
    const float *wc = w + ch * KH * KW;
    if (rows) {
      if (KH == 3)
        dw_rows_all<3, 1>(planes, plan.plane, rq, wc, tmp, OH, OW);
      else
        dw_rows_all<5, 1>(planes, plan.plane, rq, wc, tmp, OH, OW);
    }
    // Sums over the taps, 64 at a time (all of them for kernels up to
    // 8x8), kDwVecs vectors of outputs per step (independent FMA chains),
    // the last step only as many vectors as reach J (at most one vector
    // past it: into the slack of tmp and of the planes, see DwPlan).
    for (int64_t t0 = 0; t0 < (rows ? 0 : KH * KW); t0 += kTaps) {
      int nt = static_cast<int>(std::min<int64_t>(kTaps, KH * KW - t0));
      int64_t offMore[kTaps];
      const int64_t *off = off0;
      if (t0 > 0) {
        tap_offsets(t0, nt, offMore);
        off = offMore;
      }
      const float *wt = wc + t0;
      const bool first = t0 == 0;
      int64_t j = 0;
      for (; j + vstep <= J; j += vstep)
        dw_sum<kDwVecs>(planes, off, wt, nt, tmp, j, first);
      switch (ceil_div(J - j, VW)) {
      case 0:
        break;
      case 1:
        dw_sum<1>(planes, off, wt, nt, tmp, j, first);
        break;
      case 2:
        dw_sum<2>(planes, off, wt, nt, tmp, j, first);
        break;
      case 3:
        dw_sum<3>(planes, off, wt, nt, tmp, j, first);
        break;
      case 4:
        dw_sum<4>(planes, off, wt, nt, tmp, j, first);
        break;
      case 5:
        dw_sum<5>(planes, off, wt, nt, tmp, j, first);
        break;
      case 6:
        dw_sum<6>(planes, off, wt, nt, tmp, j, first);
        break;
      case 7:
        dw_sum<7>(planes, off, wt, nt, tmp, j, first);
        break;
      default: // kDwVecs
        dw_sum<kDwVecs>(planes, off, wt, nt, tmp, j, first);
        break;
      }
    }
    // Epilogue: valid columns of tmp -> y.
    float *yp = y + u * OH * OW;
    const float *zp = has_z ? z + u * OH * OW : nullptr;
    const float b = has_bias ? bias[ch] : 0.0f;
    dispatch_act(act, [&](auto a) {
      dw_finish<decltype(a)::value>(tmp, rq, yp, zp, OH, OW, has_bias != 0, b, p0, p1, !rows);
    });
  }
  return 0;
}

namespace detail {

/// Geometry of one output row of depthwise_conv2d_nhwc.
struct DwNhwcRow {
  const float *xim;   // the image, [H][W][C]
  const float *w;     // packed weights [KH][KW][Cp]
  const float *bias;  // null when absent
  const float *z;     // the row of z, [OW][C] (null when absent)
  float *y;           // the row of y, [OW][C]
  int64_t C, Cp, W, OW, KH, KW, SW, PL, DH, DW;
  int64_t ih0;        // input row of tap kh = 0 (may be outside the image)
  int64_t kh0, kh1;   // taps kh in [kh0, kh1) read rows inside the image
  int64_t owlo, owhi; // columns whose KW taps all lie inside the row
};

/// NV channel vectors starting at channel c (the last one holds `lastN`
/// lanes when Masked) of one output row: for each output column the valid
/// taps in (kh, kw) order, then bias, z and the activation as each vector is
/// stored. The block's weights (NV*KH*KW vectors) stay in L1 over the row.
template <int NV, bool Masked, int A>
ONNXCC_NOINLINE void dw_nhwc_block(const DwNhwcRow &g, int64_t c, int lastN, float p0, float p1) {
  constexpr int VW = Vec::W;
  // Interior columns go OB at a time: each weight vector loaded serves OB
  // outputs (OB*NV accumulators).
  constexpr int OB = 4;
  const VT v0 = Vec::set1(p0), v1 = Vec::set1(p1);
  auto ld = [&](const float *p, int v) {
    return (Masked && v == NV - 1) ? Vec::load_n(p + v * VW, lastN) : Vec::load(p + v * VW);
  };
  VT bv[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    bv[v] = g.bias ? ld(g.bias + c, v) : Vec::zero();
  const int64_t C = g.C, rowStep = g.DH * g.W * C, colStep = g.DW * C, outStep = g.SW * C;
  const int64_t wRow = g.KW * g.Cp;
  const float *wb = g.w + c + g.kh0 * wRow;
  // y = act(acc + bias + z) for one column (z read before y is written).
  auto finish = [&](int64_t ow, const VT *acc) {
    float *yp = g.y + ow * C + c;
    const float *zp = g.z ? g.z + ow * C + c : nullptr;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      VT r = g.bias ? Vec::add(acc[v], bv[v]) : acc[v];
      if (zp)
        r = Vec::add(r, ld(zp, v));
      r = act_v<A>(r, v0, v1);
      if (Masked && v == NV - 1)
        Vec::store_n(yp + v * VW, r, lastN);
      else
        Vec::store(yp + v * VW, r);
    }
  };
  // One column, taps kw in [kw0, kw1) and kh in [kh0, kh1).
  auto column = [&](int64_t ow, int64_t kw0, int64_t kw1) {
    VT acc[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[v] = Vec::zero();
    if (kw0 < kw1 && g.kh0 < g.kh1) { // (no pointer into the padding)
      const int64_t iw0 = ow * g.SW - g.PL;
      const float *xr = g.xim + ((g.ih0 + g.kh0 * g.DH) * g.W + iw0 + kw0 * g.DW) * C + c;
      const float *wr = wb + kw0 * g.Cp;
      for (int64_t kh = g.kh0; kh < g.kh1; ++kh) {
        for (int64_t t = 0; t < kw1 - kw0; ++t) {
          const float *xp = xr + t * colStep, *wp = wr + t * g.Cp;
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            acc[v] = Vec::fma(Vec::load(wp + v * VW), ld(xp, v), acc[v]);
        }
        if (kh + 1 < g.kh1)
          xr += rowStep, wr += wRow;
      }
    }
    finish(ow, acc);
  };
  // OB interior columns ow .. ow+OB-1 (every tap inside the row).
  auto group = [&](int64_t ow) {
    VT acc[OB][NV];
#pragma GCC unroll 4
    for (int o = 0; o < OB; ++o)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[o][v] = Vec::zero();
    if (g.kh0 < g.kh1) {
      const float *xr = g.xim + ((g.ih0 + g.kh0 * g.DH) * g.W + ow * g.SW - g.PL) * C + c;
      const float *wr = wb;
      for (int64_t kh = g.kh0; kh < g.kh1; ++kh) {
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const float *xp = xr + kw * colStep, *wp = wr + kw * g.Cp;
          VT wv[NV];
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            wv[v] = Vec::load(wp + v * VW);
#pragma GCC unroll 4
          for (int o = 0; o < OB; ++o)
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v)
              acc[o][v] = Vec::fma(wv[v], ld(xp + o * outStep, v), acc[o][v]);
        }
        if (kh + 1 < g.kh1)
          xr += rowStep, wr += wRow;
      }
    }
#pragma GCC unroll 4
    for (int o = 0; o < OB; ++o)
      finish(ow + o, acc[o]);
  };
  // Border columns: taps kw in [kw0, kw1) lie inside the row.
  auto border = [&](int64_t ow) {
    const int64_t iw0 = ow * g.SW - g.PL;
    const int64_t kw0 = std::min(g.KW, iw0 >= 0 ? int64_t(0) : ceil_div(-iw0, g.DW));
    const int64_t last = g.W - 1 - iw0;
    const int64_t kw1 = std::max(kw0, std::min(g.KW, last < 0 ? int64_t(0) : last / g.DW + 1));
    column(ow, kw0, kw1);
  };
  for (int64_t ow = 0; ow < g.owlo; ++ow)
    border(ow);
  int64_t ow = g.owlo;
  for (; ow + OB <= g.owhi; ow += OB)
    group(ow);
  for (; ow < g.owhi; ++ow)
    column(ow, 0, g.KW);
  for (ow = std::max(g.owlo, g.owhi); ow < g.OW; ++ow)
    border(ow);
}

/// One channel vector (at channel c, `lastN` lanes when Masked) of one
/// output row for a K x K kernel, stride S, column dilation 1: the K*K
/// weight vectors stay in registers while the row is swept OB columns at a
/// time; each input vector loaded feeds every (column, kw) pair that reads
/// it. Groups that touch the left / right padding or pass OW check each
/// input column (padding taps are skipped, as everywhere). Every output sums
/// its valid taps in (kh, kw) order, exactly like dw_nhwc_block.
template <int K, int S, bool Masked, int A>
ONNXCC_NOINLINE void dw_nhwc_vec(const DwNhwcRow &g, int64_t c, int lastN, float p0, float p1) {
  constexpr int OB = (K == 3 && Vec::W == 16) ? 8 : 4;
  constexpr int NI = (OB - 1) * S + K; // input columns per group
  const VT v0 = Vec::set1(p0), v1 = Vec::set1(p1);
  const int64_t C = g.C;
  auto ld = [&](const float *p) { return Masked ? Vec::load_n(p, lastN) : Vec::load(p); };
  VT wv[K * K];
#pragma GCC unroll 25
  for (int t = 0; t < K * K; ++t)
    wv[t] = Vec::load(g.w + t * g.Cp + c);
  const VT bv = g.bias ? ld(g.bias + c) : Vec::zero();
  const float *rows[K];
#pragma GCC unroll 5
  for (int kh = 0; kh < K; ++kh)
    rows[kh] = (kh >= g.kh0 && kh < g.kh1) ? g.xim + (g.ih0 + kh * g.DH) * g.W * C + c : nullptr;
  auto group = [&](int64_t ow, auto checkedTag) {
    constexpr bool Checked = decltype(checkedTag)::value;
    const int64_t iw0 = ow * S - g.PL;
    VT acc[OB];
#pragma GCC unroll 8
    for (int o = 0; o < OB; ++o)
      acc[o] = Vec::zero();
#pragma GCC unroll 5
    for (int kh = 0; kh < K; ++kh) {
      if (!rows[kh])
        continue;
#pragma GCC unroll 24
      for (int i = 0; i < NI; ++i) {
        if (Checked && (iw0 + i < 0 || iw0 + i >= g.W))
          continue;
        const VT xv = ld(rows[kh] + (iw0 + i) * C);
#pragma GCC unroll 8
        for (int o = 0; o < OB; ++o) {
          const int kw = i - o * S;
          if (kw >= 0 && kw < K)
            acc[o] = Vec::fma(wv[kh * K + kw], xv, acc[o]);
        }
      }
    }
#pragma GCC unroll 8
    for (int o = 0; o < OB; ++o) {
      if (Checked && ow + o >= g.OW)
        break;
      float *yp = g.y + (ow + o) * C + c;
      VT r = g.bias ? Vec::add(acc[o], bv) : acc[o];
      if (g.z)
        r = Vec::add(r, ld(g.z + (ow + o) * C + c));
      r = act_v<A>(r, v0, v1);
      if (Masked)
        Vec::store_n(yp, r, lastN);
      else
        Vec::store(yp, r);
    }
  };
  // Groups whose columns all lie in [owlo, owhi) need no checks.
  for (int64_t ow = 0; ow < g.OW; ow += OB) {
    if (ow >= g.owlo && ow + OB <= g.owhi)
      group(ow, std::false_type());
    else
      group(ow, std::true_type());
  }
}

/// Channel vectors [v0, v1) of one output row, 4 vectors per block (the
/// last vector masked when C is not a multiple of the width).
template <int A>
inline void dw_nhwc_row(const DwNhwcRow &g, int64_t v0, int64_t v1, float p0, float p1) {
  constexpr int VW = Vec::W;
  // Vectors per block: OB x kBlock accumulators fit the registers.
  constexpr int kBlock = VW == 16 ? 4 : 2;
  const int64_t fullVecs = g.C / VW; // vectors without a tail
  const int lastN = static_cast<int>(g.C - fullVecs * VW);
  int64_t v = v0;
  auto call = [&](int nv, bool masked) {
    const int64_t c = v * VW;
    if (masked) {
      switch (nv) {
      case 1: dw_nhwc_block<1, true, A>(g, c, lastN, p0, p1); break;
      case 2: dw_nhwc_block<2, true, A>(g, c, lastN, p0, p1); break;
      case 3: dw_nhwc_block<3, true, A>(g, c, lastN, p0, p1); break;
      default: dw_nhwc_block<4, true, A>(g, c, lastN, p0, p1); break;
      }
    } else {
      switch (nv) {
      case 1: dw_nhwc_block<1, false, A>(g, c, VW, p0, p1); break;
      case 2: dw_nhwc_block<2, false, A>(g, c, VW, p0, p1); break;
      case 3: dw_nhwc_block<3, false, A>(g, c, VW, p0, p1); break;
      default: dw_nhwc_block<4, false, A>(g, c, VW, p0, p1); break;
      }
    }
    v += nv;
  };
  // 3x3 / 5x5 kernels, column dilation 1, stride 1 or 2: dw_nhwc_vec.
  const int kind = g.DW != 1 || g.SW > 2 || g.KW != g.KH ? 0
                   : g.KW == 3                          ? 1
                   : g.KW == 5                          ? 2
                                                        : 0;
  if (kind != 0) {
    for (; v < v1; ++v) {
      const bool masked = lastN != 0 && v + 1 > fullVecs;
      const int n = masked ? lastN : VW;
      const int64_t c = v * VW;
      const int sel = (kind - 1) * 4 + (g.SW == 2 ? 2 : 0) + (masked ? 1 : 0);
      switch (sel) {
      case 0: dw_nhwc_vec<3, 1, false, A>(g, c, n, p0, p1); break;
      case 1: dw_nhwc_vec<3, 1, true, A>(g, c, n, p0, p1); break;
      case 2: dw_nhwc_vec<3, 2, false, A>(g, c, n, p0, p1); break;
      case 3: dw_nhwc_vec<3, 2, true, A>(g, c, n, p0, p1); break;
      case 4: dw_nhwc_vec<5, 1, false, A>(g, c, n, p0, p1); break;
      case 5: dw_nhwc_vec<5, 1, true, A>(g, c, n, p0, p1); break;
      case 6: dw_nhwc_vec<5, 2, false, A>(g, c, n, p0, p1); break;
      default: dw_nhwc_vec<5, 2, true, A>(g, c, n, p0, p1); break;
      }
    }
    return;
  }
  while (v < v1) {
    const int nv = static_cast<int>(std::min<int64_t>(kBlock, v1 - v));
    call(nv, lastN != 0 && v + nv > fullVecs);
  }
}

} // namespace detail

/// Depthwise convolution, channels last: x [batch][H][W][C], y and z
/// [batch][OH][OW][C], weights packed by pack_depthwise_nhwc_weights.
/// Channels are the vector dimension; see dw_nhwc_block. Work units are
/// (image, output row, chunk of channel vectors), the chunks only when there
/// are fewer than two rows per part; part `part` of `parts` takes a
/// contiguous range. Each output sums its taps in (kh, kw) order whatever the
/// split. z may be y itself.
inline int depthwise_conv2d_nhwc(const float *x, const float *wpacked, const float *bias,
                                 int32_t has_bias, const float *z, int32_t has_z, float *y,
                                 int64_t batch, int64_t C, int64_t H, int64_t W, int64_t OH,
                                 int64_t OW, int64_t KH, int64_t KW, int64_t SH, int64_t SW,
                                 int64_t PT, int64_t PL, int64_t DH, int64_t DW, int32_t act,
                                 float p0, float p1, int64_t part, int64_t parts) {
  using namespace detail;
  constexpr int VW = Vec::W;
  const int64_t nvec = ceil_div(C, VW), rows = batch * OH;
  if (C <= 0 || rows <= 0 || OW <= 0)
    return 0;
  int64_t ncc = 1;
  if (parts > 1 && rows < 2 * parts)
    ncc = std::min(nvec, ceil_div(2 * parts, rows));
  const int64_t total = rows * ncc;
  int64_t u0, u1;
  part_range(total, part, parts, u0, u1);
  // Interior columns: ow*SW - PL >= 0 and ow*SW - PL + (KW-1)*DW < W.
  const int64_t owlo = std::min(OW, ceil_div(PL, SW));
  const int64_t lastStart = W - 1 + PL - (KW - 1) * DW;
  const int64_t owhi = std::max(owlo, std::min(OW, lastStart < 0 ? int64_t(0) : lastStart / SW + 1));
  DwNhwcRow g{};
  g.w = wpacked;
  g.bias = has_bias ? bias : nullptr;
  g.C = C, g.Cp = dw_nhwc_cp(ONNXCC_KERNELS_ISA, C), g.W = W, g.OW = OW, g.KH = KH, g.KW = KW;
  g.SW = SW;
  g.PL = PL, g.DH = DH, g.DW = DW, g.owlo = owlo, g.owhi = owhi;
  // The row code is instantiated once, without activation: the activation
  // is applied to each finished row while it is in L1 (the same values:
  // act(sum + bias + z)). One instance of the register-blocked code per
  // activation made every model's build several times slower.
  const VT vp0 = Vec::set1(p0), vp1 = Vec::set1(p1);
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t cc = u % ncc, r = u / ncc, b = r / OH, oh = r % OH;
    g.xim = x + b * H * W * C;
    g.y = y + r * OW * C;
    g.z = has_z ? z + r * OW * C : nullptr;
    g.ih0 = oh * SH - PT;
    g.kh0 = std::min(KH, g.ih0 >= 0 ? int64_t(0) : ceil_div(-g.ih0, DH));
    const int64_t last = H - 1 - g.ih0;
    g.kh1 = std::max(g.kh0, std::min(KH, last < 0 ? int64_t(0) : last / DH + 1));
    const int64_t v0 = nvec * cc / ncc, v1 = nvec * (cc + 1) / ncc;
    dw_nhwc_row<kActNone>(g, v0, v1, p0, p1);
    if (act == kActNone)
      continue;
    const int64_t c0 = v0 * VW, c1 = std::min(C, v1 * VW);
    dispatch_act(act, [&](auto a) {
      constexpr int A = decltype(a)::value;
      if (c0 == 0 && c1 == C)
        act_run<A>(g.y, g.y, OW * C, vp0, vp1);
      else
        for (int64_t ow = 0; ow < OW; ++ow)
          act_run<A>(g.y + ow * C + c0, g.y + ow * C + c0, c1 - c0, vp0, vp1);
    });
  }
  return 0;
}

namespace detail {

/// d[0..n) = s[0..n) (short runs inline: the stems copy 3..9 floats).
inline void copy_floats(float *d, const float *s, int64_t n) {
  if (n < 8) {
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[i];
  } else {
    copy_strided(d, s, n, 1);
  }
}

/// Writes the im2col rows of output pixels p0 .. p0+np-1 (counted over the
/// whole batch) into a [np][K] block: row q, columns (kh*KW + kw)*C .. +C
/// are the C channels of input pixel (ih, iw) of the tap, or zeros. With
/// column dilation 1 the KW taps of a row inside the image are one
/// contiguous run of KW*C floats.
inline void im2col_nhwc(const float *x, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW,
                        int64_t KH, int64_t KW, int64_t SH, int64_t SW, int64_t PT, int64_t PL,
                        int64_t DH, int64_t DW, int64_t p0, int64_t np, float *blk) {
  const int64_t K = KH * KW * C, P = OH * OW;
  int64_t b = p0 / P, oh = (p0 % P) / OW, ow = p0 % OW;
  for (int64_t q = 0; q < np; ++q) {
    const float *xim = x + b * H * W * C;
    float *dst = blk + q * K;
    const int64_t iw0 = ow * SW - PL;
    const bool rowInside = DW == 1 && iw0 >= 0 && iw0 + KW <= W;
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * SH - PT + kh * DH;
      if (ih < 0 || ih >= H) {
        zero_floats(dst, KW * C);
        dst += KW * C;
        continue;
      }
      if (rowInside) {
        copy_floats(dst, xim + (ih * W + iw0) * C, KW * C);
        dst += KW * C;
        continue;
      }
      for (int64_t kw = 0; kw < KW; ++kw, dst += C) {
        const int64_t iw = iw0 + kw * DW;
        if (iw < 0 || iw >= W)
          zero_floats(dst, C);
        else
          copy_floats(dst, xim + (ih * W + iw) * C, C);
      }
    }
    if (++ow == OW) {
      ow = 0;
      if (++oh == OH)
        oh = 0, ++b;
    }
  }
}

/// Rows [r0, r0 + nrows) x B panels [pan0, pan1) of C = act(A x B + bias +
/// Z), A row r at a + (r - r0) * lda (K values), B packed by pack_gemm_b,
/// C and Z with row pitch N. K blocks of kNhwcKc; per block and panel the
/// row tiles stream over the B slice.
inline void gemm_rows_nhwc(const float *a, int64_t lda, const float *bpacked, const float *bias,
                           const float *z, float *c, int64_t r0, int64_t nrows, int64_t pan0,
                           int64_t pan1, int64_t N, int64_t K, const ActParams &actp) {
  constexpr int MR = Vec::GemmMR;
  const int64_t nr = Vec::W * Vec::NV;
  for (int64_t k0 = 0; k0 < K; k0 += kNhwcKc) {
    const int64_t kc = std::min(kNhwcKc, K - k0);
    const bool last = k0 + kc == K;
    const ActParams *e = last && actp.act != kActNone ? &actp : nullptr;
    const bool acc = k0 > 0 || z;
    for (int64_t pan = pan0; pan < pan1; ++pan) {
      const int64_t n0 = pan * nr;
      const float *kb = k0 == 0 && bias && !z ? bias + n0 : nullptr;
      const int ncols = static_cast<int>(std::min(nr, N - n0));
      const float *bk = bpacked + (pan * K + k0) * nr;
      for (int64_t m = 0; m < nrows;) {
        const int64_t rest = nrows - m;
        const int step = rest >= MR ? MR : (MR > 2 && rest >= 2) ? 2 : 1;
        const float *ap = a + m * lda + k0;
        float *cp = c + (r0 + m) * N + n0;
        // A bias alone starts the accumulators; with z, the tile is set first.
        if (k0 == 0 && z)
          init_tile(cp, N, step, ncols,
                    TileInit{bias ? bias + n0 : nullptr, false, z + (r0 + m) * N + n0, N});
        if (step == MR)
          ukernel_cols<MR, false>(kc, ap, lda, bk, nr, false, cp, N, ncols, MR, acc, e, kb);
        else if (step == 2)
          ukernel_cols<2, false>(kc, ap, lda, bk, nr, false, cp, N, ncols, 2, acc, e, kb);
        else
          ukernel_cols<1, false>(kc, ap, lda, bk, nr, false, cp, N, ncols, 1, acc, e, kb);
        m += step;
      }
    }
  }
}

} // namespace detail

/// 2-D convolution (group 1), channels last: x [batch][H][W][C], y and z
/// [batch][OH][OW][M], weights packed by pack_conv_nhwc_weights. A GEMM
/// [batch*OH*OW x K] x [K x M]: a 1x1 stride-1 unpadded convolution reads x
/// as A directly; otherwise blocks of nhwc_block_rows output pixels get
/// their im2col rows written to the part's scratch first. Work units are
/// (pixel block, chunk of B panels), the chunks only when there are fewer
/// than two blocks per part; part `part` of `parts` takes a contiguous
/// range. Results are bitwise identical for any `parts`; z may be y itself.
inline int conv2d_nhwc(const float *x, const float *wpacked, const float *bias, int32_t has_bias,
                       const float *z, int32_t has_z, float *y, float *scratch, int64_t batch,
                       int64_t C, int64_t H, int64_t W, int64_t M, int64_t OH, int64_t OW,
                       int64_t KH, int64_t KW, int64_t SH, int64_t SW, int64_t PT, int64_t PL,
                       int64_t PB, int64_t PR, int64_t DH, int64_t DW, int32_t act, float p0,
                       float p1, int64_t part, int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  const int64_t nr = Vec::W * Vec::NV, K = KH * KW * C, P = OH * OW, rows = batch * P;
  if (rows <= 0 || M <= 0)
    return 0;
  const bool direct =
      KH == 1 && KW == 1 && SH == 1 && SW == 1 && PT == 0 && PL == 0 && PB == 0 && PR == 0;
  const int64_t rb = nhwc_block_rows(K, P), nblocks = ceil_div(rows, rb);
  const int64_t npan = ceil_div(M, nr);
  int64_t nmc = 1;
  if (parts > 1 && nblocks < 2 * parts)
    nmc = std::min(npan, ceil_div(2 * parts, nblocks));
  const int64_t total = nblocks * nmc;
  int64_t u0, u1;
  part_range(total, part, parts, u0, u1);
  float *blk = direct ? nullptr : scratch + part * (rb * K);
  const ActParams actp{act, p0, p1};
  // Consecutive units of one pixel block (chunks of panels) run as one: the
  // block's im2col rows are written once per part, not once per chunk.
  for (int64_t u = u0, next; u < u1; u = next) {
    const int64_t blkIdx = u / nmc;
    next = std::min(u1, (blkIdx + 1) * nmc);
    const int64_t r0 = blkIdx * rb, nrows = std::min(rb, rows - r0);
    const float *a = x + r0 * C;
    int64_t lda = C;
    if (!direct) {
      im2col_nhwc(x, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, r0, nrows, blk);
      a = blk;
      lda = K;
    }
    gemm_rows_nhwc(a, lda, wpacked, has_bias ? bias : nullptr, has_z ? z : nullptr, y, r0, nrows,
                   npan * (u % nmc) / nmc, npan * ((next - 1) % nmc + 1) / nmc, M, K, actp);
  }
  return 0;
}

/// Mean over the middle axis: x [outer][R][inner] -> y [outer][inner],
/// y = (x[o][0][i] + x[o][1][i] + ... in order) / R. Work units are (outer
/// index, chunk of 64 inner values); part `part` of `parts` takes a
/// contiguous range.
inline int reduce_mean_mid(const float *x, float *y, int64_t outer, int64_t R, int64_t inner,
                           int64_t part, int64_t parts) {
  using namespace detail;
  constexpr int VW = Vec::W;
  constexpr int64_t kChunk = 64;
  constexpr int kVecs = kChunk / VW;
  const int64_t nchunks = ceil_div(inner, kChunk), total = outer * nchunks;
  int64_t u0, u1;
  part_range(total, part, parts, u0, u1);
  const VT rv = Vec::set1(static_cast<float>(R));
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t o = u / nchunks, i0 = (u % nchunks) * kChunk;
    const int64_t n = std::min(kChunk, inner - i0);
    const float *xp = x + o * R * inner + i0;
    float *yp = y + o * inner + i0;
    if (n == kChunk) {
      VT acc[kVecs];
#pragma GCC unroll 16
      for (int v = 0; v < kVecs; ++v)
        acc[v] = Vec::zero();
      for (int64_t r = 0; r < R; ++r, xp += inner) {
#pragma GCC unroll 16
        for (int v = 0; v < kVecs; ++v)
          acc[v] = Vec::add(acc[v], Vec::load(xp + v * VW));
      }
#pragma GCC unroll 16
      for (int v = 0; v < kVecs; ++v)
        Vec::store(yp + v * VW, Vec::div(acc[v], rv));
    } else {
      // The tail chunk, one vector at a time (the last one masked).
      for (int64_t i = 0; i < n; i += VW) {
        const int m = static_cast<int>(std::min<int64_t>(VW, n - i));
        VT acc = Vec::zero();
        const float *xq = xp + i;
        for (int64_t r = 0; r < R; ++r, xq += inner)
          acc = Vec::add(acc, m == VW ? Vec::load(xq) : Vec::load_n(xq, m));
        if (m == VW)
          Vec::store(yp + i, Vec::div(acc, rv));
        else
          Vec::store_n(yp + i, Vec::div(acc, rv), m);
      }
    }
  }
  return 0;
}

/// Max pooling over NCHW planes: `planes` (= batch*C) planes of H x W ->
/// OH x OW. Window (oh, ow) covers rows oh*SH - PT + kh*DH and columns
/// ow*SW - PL + kw*DW; positions outside the input (pads, ceil_mode windows
/// past the end) are ignored. A NaN in a window gives NaN. Output columns
/// whose window lies inside the row are computed a vector at a time (SW 1
/// or 2), the others one by one. Part `part` of `parts` takes a contiguous
/// range of planes.
inline int max_pool2d(const float *x, float *y, int64_t planes, int64_t H, int64_t W, int64_t OH,
                      int64_t OW, int64_t KH, int64_t KW, int64_t SH, int64_t SW, int64_t PT,
                      int64_t PL, int64_t DH, int64_t DW, int64_t part, int64_t parts) {
  using namespace detail;
  constexpr int VW = Vec::W;
  int64_t p0, p1;
  part_range(planes, part, parts, p0, p1);
  // Interior columns [owlo, owhi): ow*SW - PL >= 0 and ow*SW - PL + (KW-1)*DW < W.
  int64_t owlo = 0, owhi = 0;
  if (SW <= 2) {
    owlo = std::min(OW, ceil_div(PL, SW));
    int64_t last = W - 1 + PL - (KW - 1) * DW;
    owhi = std::max(owlo, std::min(OW, last < 0 ? 0 : last / SW + 1));
  }
  const float ninf = -std::numeric_limits<float>::infinity();
  for (int64_t p = p0; p < p1; ++p) {
    const float *xp = x + p * H * W;
    float *yp = y + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t ih0 = oh * SH - PT;
      // Rows kh in [kh0, kh1) are inside the input.
      const int64_t kh0 = std::min(KH, std::max<int64_t>(0, ceil_div(-ih0, DH)));
      const int64_t kh1 = std::max(kh0, std::min(KH, H - 1 - ih0 < 0 ? 0 : (H - 1 - ih0) / DH + 1));
      float *yr = yp + oh * OW;
      auto scalar = [&](int64_t ow) {
        float m = ninf;
        const int64_t iw0 = ow * SW - PL;
        for (int64_t kh = kh0; kh < kh1; ++kh) {
          const float *row = xp + (ih0 + kh * DH) * W;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = iw0 + kw * DW;
            if (iw < 0 || iw >= W)
              continue;
            const float v = row[iw];
            m = (v > m || v != v) ? v : m; // (a NaN m stays)
          }
        }
        yr[ow] = m;
      };
      for (int64_t ow = 0; ow < owlo; ++ow)
        scalar(ow);
      for (int64_t ow = owlo; ow < owhi; ow += VW) {
        const int n = static_cast<int>(std::min<int64_t>(VW, owhi - ow));
        // Before the last vector, a full stride-2 load (one float past the
        // window) still reads inside the input.
        const bool full = ow + VW < owhi;
        auto load = [&](const float *src) {
          return SW == 1 ? (full ? Vec::load(src) : Vec::load_n(src, n))
                         : (full ? Vec::load_even(src) : Vec::load_even_n(src, 2 * n - 1));
        };
        // max(v, m) keeps a NaN m, sel_nan a NaN v. Two chains (even and odd
        // taps) for latency.
        VT m0 = Vec::set1(ninf), m1 = m0;
        for (int64_t kh = kh0; kh < kh1; ++kh) {
          const float *row = xp + (ih0 + kh * DH) * W + ow * SW - PL;
          int64_t kw = 0;
          for (; kw + 1 < KW; kw += 2) {
            VT v0 = load(row + kw * DW), v1 = load(row + (kw + 1) * DW);
            m0 = Vec::sel_nan(v0, v0, Vec::max(v0, m0));
            m1 = Vec::sel_nan(v1, v1, Vec::max(v1, m1));
          }
          if (kw < KW) {
            VT v0 = load(row + kw * DW);
            m0 = Vec::sel_nan(v0, v0, Vec::max(v0, m0));
          }
        }
        VT m = Vec::sel_nan(m1, m1, Vec::max(m1, m0));
        if (full)
          Vec::store(yr + ow, m);
        else
          Vec::store_n(yr + ow, m, n);
      }
      for (int64_t ow = std::max(owlo, owhi); ow < OW; ++ow)
        scalar(ow);
    }
  }
  return 0;
}

/// GlobalAveragePool over NCHW (rows = N*C, cols = H*W): y[r] = mean of
/// row r, summed in a fixed order (four vector accumulators, then the lanes
/// in order), so the result does not depend on `parts`. Part `part` of
/// `parts` takes a contiguous range of rows.
inline int global_avg_pool(const float *x, float *y, int64_t rows, int64_t cols, int64_t part,
                           int64_t parts) {
  using namespace detail;
  constexpr int VW = Vec::W;
  int64_t r0, r1;
  part_range(rows, part, parts, r0, r1);
  for (int64_t r = r0; r < r1; ++r) {
    const float *xr = x + r * cols;
    VT a0 = Vec::zero(), a1 = Vec::zero(), a2 = Vec::zero(), a3 = Vec::zero();
    int64_t i = 0;
    for (; i + 4 * VW <= cols; i += 4 * VW) {
      a0 = Vec::add(a0, Vec::load(xr + i));
      a1 = Vec::add(a1, Vec::load(xr + i + VW));
      a2 = Vec::add(a2, Vec::load(xr + i + 2 * VW));
      a3 = Vec::add(a3, Vec::load(xr + i + 3 * VW));
    }
    for (; i + VW <= cols; i += VW)
      a0 = Vec::add(a0, Vec::load(xr + i));
    if (i < cols)
      a1 = Vec::add(a1, Vec::load_n(xr + i, static_cast<int>(cols - i)));
    y[r] = hsum(Vec::add(Vec::add(a0, a1), Vec::add(a2, a3))) / static_cast<float>(cols);
  }
  return 0;
}

#ifdef ONNXCC_KERNELS_TARGET
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#undef ONNXCC_KERNELS_TARGET
#endif

} // namespace kernels
} // namespace onnxcc_rt

#include "onnxcc_kernels_winograd.h"
#include "onnxcc_kernels_rnn.h"
#include "onnxcc_kernels_fft.h"
#include "onnxcc_kernels_int8.h"

#endif // ONNXCC_KERNELS_H
