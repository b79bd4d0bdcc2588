// onnxcc_kernels_winograd.h - Winograd F(4x4, 3x3) convolution for 3x3,
// stride 1, dilation 1, group 1 float32 convolutions. Included at the end of
// onnxcc_kernels.h (it uses its Vec, ukernel and epilogue helpers); the
// packing and sizing functions are plain portable C++ the compiler calls.
//
// Scheme (Lavin & Gray): the output is cut into 4x4 tiles; tile t reads a
// 6x6 input patch d (zeros outside the padded input). For each of the 36
// positions xi of the 6x6 transformed domain,
//   Y_xi[m][t] = sum_c U_xi[m][c] * V_xi[c][t],
//   U = G g G^T (weights, packed at compile time), V = B^T d B (run time),
// and the output tile is A^T Y A, followed by the fused epilogue.
//  - The 36 products run through the register-blocked microkernel: A = a
//    packed U_xi panel (MR output channels, C steps), B = V_xi of a block of
//    nb <= NR tiles packed like conv2d's im2col block (C steps of nb).
//  - Work unit: (block of tiles, chunk of weight panels). The block's V
//    (36 * C * nb floats) is built once per unit and stays in L2 while the
//    panels stream over it; per panel, the 36 products of MR channels go to a
//    small buffer that the output transform reads back from L1/L2.
//  - Tiles are numbered over the whole batch (image, tile row, tile column),
//    so blocks may span images. The transforms run one lane per tile: the
//    input's vertical pass runs along the image rows (contiguous vectors),
//    its horizontal pass reads those rows with stride-4 loads; the output
//    transform interleaves its results back into rows, and the epilogue
//    (bias, z, activation) runs along the output rows.
//  - Accuracy: U is computed in double; for N(0,1) inputs and He-initialised
//    weights (C up to 512) the error stays below 1e-5 of max |y| (the test
//    checks 1e-4), about 10x that of direct convolution.
// Every output element is computed by the same operations whatever `parts`
// is (the blocks do not depend on it), so results are bitwise identical.
#ifndef ONNXCC_KERNELS_WINOGRAD_H
#define ONNXCC_KERNELS_WINOGRAD_H

#include "onnxcc_kernels.h"

namespace onnxcc_rt {
namespace kernels {

namespace detail {
/// Output tile edge (m) and transformed tile edge (alpha = m + 2).
constexpr int kWinoM = 4;
constexpr int kWinoA = kWinoM + 2;
constexpr int kWinoXi = kWinoA * kWinoA;

/// Tiles per block: the block's transformed input (36 * C * nb floats) is
/// kept near 768 KB (L2), nb a multiple of the vector width, at least 16
/// (each weight is loaded once per block: large C streams 36 * M * C weights)
/// and at most one register-tile width. Independent of the batch size (so
/// scratch sizing does not need it).
inline int64_t wino_nb_max(int isa, int64_t C) {
  const int64_t w = vec_width(isa), nr = conv_nr(isa);
  const int64_t budget = 192 * 1024;
  int64_t nb = budget / (kWinoXi * std::max<int64_t>(C, 1)) / w * w;
  return std::min(nr, std::max(std::min<int64_t>(nr, 16), nb));
}

/// Floats per row buffer of the transforms: 4 columns per tile of a block
/// plus slack for whole-vector accesses past the last tile.
inline int64_t wino_row_floats(int isa, int64_t C) {
  const int64_t w = vec_width(isa);
  return 4 * round_up(wino_nb_max(isa, C), w) + 4 * w;
}

struct WinoPlan {
  int64_t th, tw, tiles, nb, nblocks;
};
inline WinoPlan wino_plan(int isa, int64_t batch, int64_t C, int64_t OH, int64_t OW) {
  const int64_t w = vec_width(isa);
  WinoPlan p;
  p.th = ceil_div(OH, kWinoM);
  p.tw = ceil_div(OW, kWinoM);
  p.tiles = batch * p.th * p.tw;
  const int64_t nbMax = wino_nb_max(isa, C);
  p.nblocks = ceil_div(p.tiles, nbMax);
  p.nb = std::min(nbMax, round_up(ceil_div(p.tiles, std::max<int64_t>(p.nblocks, 1)), w));
  return p;
}
} // namespace detail

/// Whether conv2d_winograd handles this convolution and is expected to beat
/// conv2d: 3x3, stride 1, dilation 1, one group, at least 16 input and
/// output channels and 64 output pixels. Its weights are 4x the direct
/// ones (36 positions instead of 9): a 7x7 image at batch 1 would gain ~10%
/// for that (its time is streaming the weights), so it stays direct.
inline bool winograd_applies(int isa, int64_t C, int64_t M, int64_t OH, int64_t OW, int64_t KH,
                             int64_t KW, int64_t SH, int64_t SW, int64_t DH, int64_t DW,
                             int64_t G) {
  (void)isa;
  if (KH != 3 || KW != 3 || SH != 1 || SW != 1 || DH != 1 || DW != 1 || G != 1)
    return false;
  return C >= 16 && M >= 16 && OH >= 1 && OW >= 1 && OH * OW >= 64;
}

inline int64_t packed_winograd_weights_floats(int isa, int64_t M, int64_t C) {
  return detail::kWinoXi * detail::round_up(M, conv_mr(isa)) * C;
}

/// Transforms and packs weights w[M][C][3][3]: U = G g G^T (in double),
/// laid out as conv weight panels of MR output channels, the 36 positions of
/// a panel together (the kernel streams a panel's 36 products in order):
/// out[((p * 36 + xi) * C + c) * MR + r] = U_xi[p*MR + r][c], zero for rows
/// past M.
inline void pack_winograd_weights(int isa, const float *w, int64_t M, int64_t C, float *out) {
  using detail::kWinoA;
  using detail::kWinoXi;
  const int64_t mr = conv_mr(isa), panels = detail::ceil_div(M, mr);
  // Rows of G for F(4x4, 3x3) with interpolation points 0, +-1, +-2, inf.
  static const double g[kWinoA][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t r = 0; r < mr; ++r) {
        const int64_t m = p * mr + r;
        double u[kWinoA][kWinoA] = {};
        if (m < M) {
          const float *k = w + (m * C + c) * 9;
          double t[kWinoA][3]; // G g
          for (int i = 0; i < kWinoA; ++i)
            for (int j = 0; j < 3; ++j)
              t[i][j] = g[i][0] * k[j] + g[i][1] * k[3 + j] + g[i][2] * k[6 + j];
          for (int i = 0; i < kWinoA; ++i)
            for (int j = 0; j < kWinoA; ++j)
              u[i][j] = t[i][0] * g[j][0] + t[i][1] * g[j][1] + t[i][2] * g[j][2];
        }
        for (int i = 0; i < kWinoA; ++i)
          for (int j = 0; j < kWinoA; ++j)
            out[((p * kWinoXi + i * kWinoA + j) * C + c) * mr + r] = static_cast<float>(u[i][j]);
      }
}

/// Scratch floats per part of conv2d_winograd: the transformed input of one
/// block of tiles, the 36 products of one weight panel and the row buffers
/// of the transforms (see conv2d_winograd).
inline int64_t winograd_scratch_floats(int isa, int64_t C, int64_t M, int64_t H, int64_t W,
                                       int64_t OH, int64_t OW, int64_t PT, int64_t PL, int64_t PB,
                                       int64_t PR) {
  (void)M, (void)H, (void)W, (void)OH, (void)OW, (void)PT, (void)PL, (void)PB, (void)PR;
  const int64_t nb = detail::wino_nb_max(isa, C), lanes = vec_width(isa);
  return detail::kWinoXi * (C * nb + conv_mr(isa) * detail::round_up(nb, lanes) + 32) +
         16 * detail::wino_row_floats(isa, C) + 16;
}

//===----------------------------------------------------------------------===//
// Channels last: Winograd F(2x2, 3x3).
//
// For small planes in NHWC (ResNet's 7x7 stage), where the weights dominate:
// F(2x2, 3x3) needs 16 transformed positions (weights 16/9 of the direct
// ones, where F(4x4) needs 4x) for 2.25x fewer multiplications. Tile t
// (image, tile row, tile column over the whole batch) reads a 4x4 input
// patch d; V_xi = (B^T d B)_xi runs along the channels (one vector of
// channels per step), the 16 products are GEMMs [tiles x C] x [C x M] with U_xi
// packed as GEMM B panels, and A^T m A with the fused epilogue writes 2x2
// outputs along the output channels.
//===----------------------------------------------------------------------===//

namespace detail {
constexpr int kWino2Xi = 16;

/// Tiles per block of conv2d_winograd_nhwc: their transformed input (16 x
/// tiles x C floats) stays within 1 MB; a multiple of 8 (the GEMM row tile),
/// at most 64 and no more than one image has. Independent of the batch.
inline int64_t wino2_block_tiles(int64_t C, int64_t OH, int64_t OW) {
  int64_t tb = (int64_t(262144) / (kWino2Xi * std::max<int64_t>(C, 1))) / 8 * 8;
  tb = std::max<int64_t>(8, std::min<int64_t>(64, tb));
  return std::min(tb, round_up(std::max<int64_t>(ceil_div(OH, 2) * ceil_div(OW, 2), 1), 8));
}
} // namespace detail

/// Whether conv2d_winograd_nhwc handles this channels-last convolution and
/// is expected to beat conv2d_nhwc: 3x3, stride 1, dilation 1, one group,
/// at least 16 input and output channels, and a plane under 64 pixels (where
/// conv2d_winograd does not apply; larger planes have not been measured).
inline bool winograd_nhwc_applies(int isa, int64_t C, int64_t M, int64_t OH, int64_t OW,
                                  int64_t KH, int64_t KW, int64_t SH, int64_t SW, int64_t DH,
                                  int64_t DW, int64_t G) {
  (void)isa;
  if (KH != 3 || KW != 3 || SH != 1 || SW != 1 || DH != 1 || DW != 1 || G != 1)
    return false;
  return C >= 16 && M >= 16 && OH >= 1 && OW >= 1 && OH * OW < 64;
}

inline int64_t packed_winograd_nhwc_weights_floats(int isa, int64_t M, int64_t C) {
  return detail::kWino2Xi * packed_gemm_b_floats(isa, C, M);
}

/// Transforms and packs weights w[M][C][3][3]: U = G g G^T (in double), each
/// of the 16 positions as the B operand [C][M] of a GEMM in pack_gemm_b's
/// panel layout: out[((xi * panels + j) * C + c) * NR + n] =
/// U_xi[j*NR + n][c], zero for columns past M.
inline void pack_winograd_nhwc_weights(int isa, const float *w, int64_t M, int64_t C,
                                       float *out) {
  const int64_t nr = gemm_nr(isa), panels = detail::ceil_div(M, nr);
  // G for F(2x2, 3x3), interpolation points 0, +-1.
  static const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t n = 0; n < nr; ++n) {
        const int64_t m = j * nr + n;
        double u[4][4] = {};
        if (m < M) {
          const float *k = w + (m * C + c) * 9;
          double t[4][3]; // G g
          for (int i = 0; i < 4; ++i)
            for (int q = 0; q < 3; ++q)
              t[i][q] = g[i][0] * k[q] + g[i][1] * k[3 + q] + g[i][2] * k[6 + q];
          for (int i = 0; i < 4; ++i)
            for (int q = 0; q < 4; ++q)
              u[i][q] = t[i][0] * g[q][0] + t[i][1] * g[q][1] + t[i][2] * g[q][2];
        }
        for (int xi = 0; xi < detail::kWino2Xi; ++xi)
          out[((xi * panels + j) * C + c) * nr + n] = static_cast<float>(u[xi / 4][xi % 4]);
      }
}

/// Scratch floats per part of conv2d_winograd_nhwc: the transformed input of
/// one block of tiles and the 16 products of one B panel.
inline int64_t winograd_nhwc_scratch_floats(int isa, int64_t C, int64_t OH, int64_t OW) {
  const int64_t tb = detail::wino2_block_tiles(C, OH, OW);
  return detail::kWino2Xi * tb * (C + gemm_nr(isa));
}

//===----------------------------------------------------------------------===//
// Run-time kernel (SIMD; its own target pragma region).
//===----------------------------------------------------------------------===//

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
#define ONNXCC_WINOGRAD_TARGET "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2,f16c"
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
#define ONNXCC_WINOGRAD_TARGET "avx2,fma,bmi,bmi2,f16c"
#endif

#ifdef ONNXCC_WINOGRAD_TARGET
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(ONNXCC_WINOGRAD_TARGET))), apply_to = function)
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

/// B^T applied to 6 vectors (one column or row of a 6x6 patch).
inline void wino_in6(const VT *in, VT *out) {
  const VT four = Vec::set1(4.0f), five = Vec::set1(5.0f), two = Vec::set1(2.0f);
  VT t0 = Vec::fnma(four, in[2], in[4]);         // in4 - 4 in2
  VT t1 = Vec::fnma(four, in[1], in[3]);         // in3 - 4 in1
  VT t2 = Vec::sub(in[4], in[2]);                // in4 - in2
  VT t3 = Vec::mul(two, Vec::sub(in[3], in[1])); // 2 (in3 - in1)
  out[0] = Vec::fma(four, in[0], Vec::fnma(five, in[2], in[4]));
  out[1] = Vec::add(t0, t1);
  out[2] = Vec::sub(t0, t1);
  out[3] = Vec::add(t2, t3);
  out[4] = Vec::sub(t2, t3);
  out[5] = Vec::fma(four, in[1], Vec::fnma(five, in[3], in[5]));
}

/// A^T applied to 6 vectors.
inline void wino_out6(const VT *m, VT *out) {
  VT a = Vec::add(m[1], m[2]), b = Vec::sub(m[1], m[2]);
  VT c = Vec::add(m[3], m[4]), d = Vec::sub(m[3], m[4]);
  out[0] = Vec::add(Vec::add(m[0], a), c);
  out[1] = Vec::fma(Vec::set1(2.0f), d, b);
  out[2] = Vec::fma(Vec::set1(4.0f), c, a);
  out[3] = Vec::add(Vec::fma(Vec::set1(8.0f), d, b), m[5]);
}

/// Lanes i in [lo, hi) of p[i], the others 0 (p[i] outside [lo, hi) is not
/// read: p itself may point before the buffer).
inline VT wino_load_range(const float *p, int lo, int hi) {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  const unsigned m = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>(m), p);
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
  const __m256i i = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i m = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(lo), i),
                                        _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), i));
  return _mm256_maskload_ps(p, m);
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_NEON
  float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int i = lo; i < hi; ++i)
    t[i] = p[i];
  return vld1q_f32(t);
#else
  VT r = Vec::zero();
  for (int i = lo; i < hi; ++i)
    r.v[i] = p[i];
  return r;
#endif
}

/// p[0], p[4], ..., p[4(W-1)] (reads p[0 .. 4W-1]).
inline VT wino_load4(const float *p) {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  const __m512i lo = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i hi = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 8, 12, 16, 20, 24, 28);
  __m512 a = _mm512_permutex2var_ps(_mm512_loadu_ps(p), lo, _mm512_loadu_ps(p + 16));
  __m512 b = _mm512_permutex2var_ps(_mm512_loadu_ps(p + 32), hi, _mm512_loadu_ps(p + 48));
  return _mm512_mask_blend_ps(0xff00, a, b);
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
  // [p0 p0 p8 p8 | p4 p4 p12 p12], [p16 p16 p24 p24 | p20 p20 p28 p28].
  __m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x00);
  __m256 f = _mm256_shuffle_ps(_mm256_loadu_ps(p + 16), _mm256_loadu_ps(p + 24), 0x00);
  __m256 g = _mm256_shuffle_ps(e, f, _MM_SHUFFLE(2, 0, 2, 0)); // p0 p8 p16 p24 p4 p12 p20 p28
  return _mm256_permutevar8x32_ps(g, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_NEON
  return vld4q_f32(p).val[0];
#else
  VT r;
  for (int i = 0; i < Vec::W; ++i)
    r.v[i] = p[4 * i];
  return r;
#endif
}

/// p[4i + k] = v[k][i] for lanes i < W, k < 4 (writes p[0 .. 4W-1]).
inline void wino_store4(float *p, const VT *v) {
#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
  // (maskz forms: see Vec::max.)
  __m512 t0 = _mm512_maskz_unpacklo_ps(0xffff, v[0], v[1]),
         t1 = _mm512_maskz_unpackhi_ps(0xffff, v[0], v[1]);
  __m512 t2 = _mm512_maskz_unpacklo_ps(0xffff, v[2], v[3]),
         t3 = _mm512_maskz_unpackhi_ps(0xffff, v[2], v[3]);
  // u_j: 128-bit lane L holds the 4 values of lane 4L + j.
  __m512d d0 = _mm512_castps_pd(t0), d1 = _mm512_castps_pd(t1);
  __m512d d2 = _mm512_castps_pd(t2), d3 = _mm512_castps_pd(t3);
  __m512 u0 = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(0xff, d0, d2));
  __m512 u1 = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(0xff, d0, d2));
  __m512 u2 = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(0xff, d1, d3));
  __m512 u3 = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(0xff, d1, d3));
  __m512 w0 = _mm512_maskz_shuffle_f32x4(0xffff, u0, u1, 0x44),
         w1 = _mm512_maskz_shuffle_f32x4(0xffff, u2, u3, 0x44);
  __m512 w2 = _mm512_maskz_shuffle_f32x4(0xffff, u0, u1, 0xee),
         w3 = _mm512_maskz_shuffle_f32x4(0xffff, u2, u3, 0xee);
  _mm512_storeu_ps(p, _mm512_maskz_shuffle_f32x4(0xffff, w0, w1, 0x88));
  _mm512_storeu_ps(p + 16, _mm512_maskz_shuffle_f32x4(0xffff, w0, w1, 0xdd));
  _mm512_storeu_ps(p + 32, _mm512_maskz_shuffle_f32x4(0xffff, w2, w3, 0x88));
  _mm512_storeu_ps(p + 48, _mm512_maskz_shuffle_f32x4(0xffff, w2, w3, 0xdd));
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
  __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
  __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
  __m256d d0 = _mm256_castps_pd(t0), d1 = _mm256_castps_pd(t1);
  __m256d d2 = _mm256_castps_pd(t2), d3 = _mm256_castps_pd(t3);
  __m256 u0 = _mm256_castpd_ps(_mm256_unpacklo_pd(d0, d2));
  __m256 u1 = _mm256_castpd_ps(_mm256_unpackhi_pd(d0, d2));
  __m256 u2 = _mm256_castpd_ps(_mm256_unpacklo_pd(d1, d3));
  __m256 u3 = _mm256_castpd_ps(_mm256_unpackhi_pd(d1, d3));
  _mm256_storeu_ps(p, _mm256_permute2f128_ps(u0, u1, 0x20));
  _mm256_storeu_ps(p + 8, _mm256_permute2f128_ps(u2, u3, 0x20));
  _mm256_storeu_ps(p + 16, _mm256_permute2f128_ps(u0, u1, 0x31));
  _mm256_storeu_ps(p + 24, _mm256_permute2f128_ps(u2, u3, 0x31));
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_NEON
  float32x4x4_t q = {{v[0], v[1], v[2], v[3]}};
  vst4q_f32(p, q);
#else
  for (int i = 0; i < Vec::W; ++i)
    for (int k = 0; k < 4; ++k)
      p[4 * i + k] = v[k].v[i];
#endif
}

/// A run of `n` tiles of one tile row (image img, tile row ti, tile columns
/// tj ..), starting at tile q of the block.
struct WinoSeg {
  int64_t img, ti, tj, n, q;
};
constexpr int kWinoMaxSegs = 64; // >= tiles per block
static_assert(kWinoMaxSegs >= conv_nr(ONNXCC_ISA_AVX512), "a block has at most NR tiles");

inline int wino_segments(int64_t t0, int64_t nt, const WinoPlan &p, WinoSeg *seg) {
  int ns = 0;
  const int64_t per = p.th * p.tw;
  for (int64_t q = 0; q < nt;) {
    int64_t t = t0 + q, r = t % per, tj = r % p.tw, n = std::min(nt - q, p.tw - tj);
    seg[ns++] = WinoSeg{t / per, r / p.tw, tj, n, q};
    q += n;
  }
  return ns;
}

/// Layout of the transformed input of a block (nb <= NR tiles, so one
/// panel): V_xi[c][q] is at xi * xi + c * ld + q. Each V_xi is a packed B
/// operand of the microkernel (C steps of ld = nbMax floats, read
/// sequentially); the 16 floats between two positions keep the input
/// transform's 36 store streams off a single cache set.
struct WinoVLayout {
  int64_t ld, xi;
};
inline WinoVLayout wino_v_layout(int64_t C, int64_t nbMax) { return {nbMax, C * nbMax + 16}; }

/// Input transform of the nt tiles of a block, vectorized two ways:
///  - vertically (B^T, over the 6 input rows of a tile row) along the
///    image width, straight from the input (masked loads at the borders):
///    for each run of tiles, T0 gets the transformed rows at columns 4q + x
///    (tile q's columns 0..3) and T4 the same shifted by 4 (its columns
///    4..5);
///  - horizontally (B), one lane per tile: stride-4 loads of T0 / T4.
/// V_xi[c][q] goes to vbuf at WinoVLayout.
inline void wino_input(const float *x, int64_t C, int64_t H, int64_t W, int64_t PT, int64_t PL,
                       const WinoSeg *seg, int ns, int64_t nt, float *rows, int64_t L, float *vbuf,
                       const WinoVLayout &vl) {
  constexpr int VW = Vec::W;
  float *T0 = rows, *T4 = rows + kWinoA * L;
  // Lanes past the last tile are loaded (and never stored): start them at 0.
  for (int r = 0; r < kWinoA; ++r) {
    zero_floats(T0 + r * L + 4 * nt, L - 4 * nt);
    zero_floats(T4 + r * L + 4 * nt, L - 4 * nt);
  }
  // Input vector (rows ih, columns iw .. iw+VW-1), zeros outside the image.
  auto load = [&](const float *plane, int64_t ih, int64_t iw) {
    if (ih < 0 || ih >= H)
      return Vec::zero();
    if (iw >= 0 && iw + VW <= W)
      return Vec::load(plane + ih * W + iw);
    const int lo = static_cast<int>(std::min<int64_t>(VW, std::max<int64_t>(0, -iw)));
    const int hi = static_cast<int>(std::max<int64_t>(lo, std::min<int64_t>(VW, W - iw)));
    if (lo == hi)
      return Vec::zero();
    return wino_load_range(plane + ih * W + iw, lo, hi);
  };
  for (int64_t c = 0; c < C; ++c) {
    for (int i = 0; i < ns; ++i) {
      const WinoSeg &sg = seg[i];
      const float *plane = x + (sg.img * C + c) * H * W;
      const int64_t cols = 4 * sg.n, iw0 = 4 * sg.tj - PL, ih0 = 4 * sg.ti - PT;
      float *t0 = T0 + 4 * sg.q, *t4 = T4 + 4 * sg.q;
      // T4[x] = T[x + 4]: its first vector on its own, then each vector of
      // T is stored twice. (Runs in increasing q: the whole vectors past a
      // run's end are overwritten by the next run.)
      VT in[kWinoA], out[kWinoA];
      for (int r = 0; r < kWinoA; ++r)
        in[r] = load(plane, ih0 + r, iw0 + 4);
      wino_in6(in, out);
      for (int r = 0; r < kWinoA; ++r)
        Vec::store(t4 + r * L, out[r]);
      for (int64_t xx = 0; xx < cols + 4; xx += VW) {
        for (int r = 0; r < kWinoA; ++r)
          in[r] = load(plane, ih0 + r, iw0 + xx);
        wino_in6(in, out);
        if (xx < cols)
          for (int r = 0; r < kWinoA; ++r)
            Vec::store(t0 + r * L + xx, out[r]);
        if (xx > 0)
          for (int r = 0; r < kWinoA; ++r)
            Vec::store(t4 + r * L + xx - 4, out[r]);
      }
    }
    for (int64_t q = 0; q < nt; q += VW) {
      float *dst = vbuf + c * vl.ld + q;
      for (int r = 0; r < kWinoA; ++r) {
        const float *a = T0 + r * L + 4 * q, *b = T4 + r * L + 4 * q;
        VT in[kWinoA], out[kWinoA];
        in[0] = wino_load4(a);
        in[1] = wino_load4(a + 1);
        in[2] = wino_load4(a + 2);
        in[3] = wino_load4(a + 3);
        in[4] = wino_load4(b);
        in[5] = wino_load4(b + 1);
        wino_in6(in, out);
        for (int k = 0; k < kWinoA; ++k)
          Vec::store(dst + (r * kWinoA + k) * vl.xi, out[k]);
      }
    }
  }
}

/// Output transform for output channel m of a block: the 36 products at
/// prod + xi * pXi + q (one lane per tile), A^T . A, interleaved into row
/// buffer O (4 rows, tile q's 4 columns at 4q); then the epilogue (bias, z,
/// activation) along the output rows of each run of tiles.
inline void wino_output(const float *prod, int64_t pXi, int64_t nt, const WinoSeg *seg, int ns,
                        float *O, int64_t L, int64_t m, int64_t M, int64_t OH, int64_t OW,
                        const float *bias, const float *z, float *y, int32_t act, float p0,
                        float p1) {
  constexpr int VW = Vec::W;
  for (int64_t q = 0; q < nt; q += VW) {
    const int nl = static_cast<int>(std::min<int64_t>(VW, nt - q));
    VT t[kWinoA * kWinoM];
    for (int r = 0; r < kWinoA; ++r) {
      VT in[kWinoA], res[kWinoM];
      for (int s = 0; s < kWinoA; ++s) {
        const float *p = prod + (r * kWinoA + s) * pXi + q;
        in[s] = nl == VW ? Vec::load(p) : Vec::load_n(p, nl);
      }
      wino_out6(in, res);
      for (int s = 0; s < kWinoM; ++s)
        t[r * kWinoM + s] = res[s];
    }
    VT out[kWinoM][kWinoM]; // [row a][column k]
    for (int k = 0; k < kWinoM; ++k) {
      VT col[kWinoA], res[kWinoM];
      for (int r = 0; r < kWinoA; ++r)
        col[r] = t[r * kWinoM + k];
      wino_out6(col, res);
      for (int a = 0; a < kWinoM; ++a)
        out[a][k] = res[a];
    }
    for (int a = 0; a < kWinoM; ++a)
      wino_store4(O + a * L + 4 * q, out[a]);
  }
  const VT bv = Vec::set1(bias ? bias[m] : 0.0f);
  for (int i = 0; i < ns; ++i) {
    const WinoSeg &sg = seg[i];
    const int64_t ow0 = 4 * sg.tj, cols = std::min(4 * sg.n, OW - ow0);
    for (int a = 0; a < kWinoM; ++a) {
      const int64_t oh = 4 * sg.ti + a;
      if (oh >= OH)
        break;
      const float *src = O + a * L + 4 * sg.q;
      const int64_t off = ((sg.img * M + m) * OH + oh) * OW + ow0;
      float *yp = y + off;
      const float *zp = z ? z + off : nullptr;
      for (int64_t xx = 0; xx < cols; xx += VW) {
        const int n = static_cast<int>(std::min<int64_t>(VW, cols - xx));
        VT v = n == VW ? Vec::load(src + xx) : Vec::load_n(src + xx, n);
        if (bias)
          v = Vec::add(v, bv);
        if (zp)
          v = Vec::add(v, n == VW ? Vec::load(zp + xx) : Vec::load_n(zp + xx, n));
        if (act == kActRelu) // (the common case inline, as act_tile computes it)
          v = Vec::max(Vec::zero(), v);
        if (n == VW)
          Vec::store(yp + xx, v);
        else
          Vec::store_n(yp + xx, v, n);
      }
      if (act != kActNone && act != kActRelu)
        activate(yp, cols, act, p0, p1); // (the row is in L1)
    }
  }
}

} // namespace detail

/// Winograd F(4x4, 3x3) convolution, see the file comment. Same conventions
/// as conv2d (NCHW; y = act(conv + bias + z), z may be y itself; scratch +
/// part * winograd_scratch_floats for each part). Work units are (block of
/// tiles, chunk of weight panels); part `part` of `parts` takes a contiguous
/// range.
inline int conv2d_winograd(const float *x, const float *wpacked, const float *bias,
                           int32_t has_bias, const float *z, int32_t has_z, float *y,
                           float *scratch, int64_t batch, int64_t C, int64_t H, int64_t W,
                           int64_t M, int64_t OH, int64_t OW, int64_t PT, int64_t PL, int64_t PB,
                           int64_t PR, int32_t act, float p0, float p1, int64_t part,
                           int64_t parts) {
  using namespace detail;
  constexpr int MR = Vec::MR, VW = Vec::W;
  const int isa = ONNXCC_KERNELS_ISA;
  const WinoPlan plan = wino_plan(isa, batch, C, OH, OW);
  const int64_t panels = ceil_div(M, MR);
  const int64_t nbMax = wino_nb_max(isa, C);
  // Scratch (from a 64-byte boundary): V (WinoVLayout), the products
  // [36][MR][ldp] (+16 floats per position, off one cache set), then the row
  // buffers T0, T4 (6 rows each) and O (4 rows) of L floats.
  const int64_t ldp = round_up(nbMax, VW);
  const WinoVLayout vl = wino_v_layout(C, nbMax);
  const int64_t vSize = kWinoXi * vl.xi, pXi = MR * ldp + 16;
  const int64_t L = wino_row_floats(isa, C);
  float *vbuf = scratch + part * winograd_scratch_floats(isa, C, M, H, W, OH, OW, PT, PL, PB, PR);
  vbuf += (64 - reinterpret_cast<uintptr_t>(vbuf) % 64) % 64 / sizeof(float);
  float *pbuf = vbuf + vSize;
  float *rows = pbuf + kWinoXi * pXi;
  float *obuf = rows + 2 * kWinoA * L;
  int64_t nmc = 1;
  if (parts > 1 && plan.nblocks < 2 * parts)
    nmc = std::min(panels, ceil_div(2 * parts, plan.nblocks));
  const int64_t total = plan.nblocks * nmc;
  const int64_t u0 = total * part / parts, u1 = total * (part + 1) / parts;
  const float *bp = has_bias ? bias : nullptr;
  const float *zp = has_z ? z : nullptr;
  WinoSeg seg[kWinoMaxSegs];
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t blk = u / nmc, mc = u % nmc;
    const int64_t t0 = blk * plan.nb, nt = std::min(plan.nb, plan.tiles - t0);
    const int64_t pan0 = panels * mc / nmc, pan1 = panels * (mc + 1) / nmc;
    const int ns = wino_segments(t0, nt, plan, seg);
    wino_input(x, C, H, W, PT, PL, seg, ns, nt, rows, L, vbuf, vl);
    // Per weight panel: the 36 products, then the output transform.
    for (int64_t pan = pan0; pan < pan1; ++pan) {
      const int64_t m0 = pan * MR;
      const int nrows = static_cast<int>(std::min<int64_t>(MR, M - m0));
      for (int xi = 0; xi < kWinoXi; ++xi) {
        const float *ap = wpacked + ((pan * kWinoXi + xi) * C) * MR;
        ukernel_cols<MR, true>(C, ap, 0, vbuf + xi * vl.xi, vl.ld, false, pbuf + xi * pXi, ldp,
                               static_cast<int>(nt), nrows, false, nullptr);
      }
      for (int r = 0; r < nrows; ++r)
        wino_output(pbuf + r * ldp, pXi, nt, seg, ns, obuf, L, m0 + r, M, OH, OW, bp, zp, y, act,
                    p0, p1);
    }
  }
  return 0;
}

namespace detail {
/// V for tiles t0 .. t0+nt-1: vbuf[(xi * tb + t - t0) * C + c] =
/// (B^T d B)_xi of channel c, d the tile's 4x4 patch of x (NHWC, zeros
/// outside).
inline void wino2_input(const float *x, int64_t C, int64_t H, int64_t W, int64_t PT, int64_t PL,
                        int64_t th, int64_t tw, int64_t t0, int64_t nt, int64_t tb, float *vbuf) {
  constexpr int VW = Vec::W;
  for (int64_t t = t0; t < t0 + nt; ++t) {
    const int64_t b = t / (th * tw), r = t % (th * tw);
    const int64_t ih0 = 2 * (r / tw) - PT, iw0 = 2 * (r % tw) - PL;
    const float *src[4][4];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const int64_t ih = ih0 + i, iw = iw0 + j;
        src[i][j] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x + ((b * H + ih) * W + iw) * C
                                                            : nullptr;
      }
    float *dst = vbuf + (t - t0) * C;
    for (int64_t c = 0; c < C; c += VW) {
      const int n = static_cast<int>(std::min<int64_t>(VW, C - c));
      VT d[4][4];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          d[i][j] = !src[i][j] ? Vec::zero()
                    : n == VW  ? Vec::load(src[i][j] + c)
                               : Vec::load_n(src[i][j] + c, n);
      VT e[4][4]; // B^T d
      for (int j = 0; j < 4; ++j) {
        e[0][j] = Vec::sub(d[0][j], d[2][j]);
        e[1][j] = Vec::add(d[1][j], d[2][j]);
        e[2][j] = Vec::sub(d[2][j], d[1][j]);
        e[3][j] = Vec::sub(d[1][j], d[3][j]);
      }
      for (int i = 0; i < 4; ++i) {
        const VT v[4] = {Vec::sub(e[i][0], e[i][2]), Vec::add(e[i][1], e[i][2]),
                         Vec::sub(e[i][2], e[i][1]), Vec::sub(e[i][1], e[i][3])};
        for (int j = 0; j < 4; ++j) {
          float *p = dst + (i * 4 + j) * tb * C + c;
          if (n == VW)
            Vec::store(p, v[j]);
          else
            Vec::store_n(p, v[j], n);
        }
      }
    }
  }
}

/// y (NHWC) for tiles t0 .. t0+nt-1 and output channels n0 .. n0+ncols-1:
/// act(A^T m A + bias + z), m the 16 products in pbuf[(xi * tb + t - t0) *
/// NR + n]; outputs past OH / OW are not written.
inline void wino2_output(const float *pbuf, int64_t tb, int64_t t0, int64_t nt, int64_t th,
                         int64_t tw, int64_t OH, int64_t OW, int64_t M, int64_t n0, int ncols,
                         const float *bias, const float *z, float *y, int32_t act, float p0,
                         float p1) {
  constexpr int VW = Vec::W;
  const int64_t nr = VW * Vec::NV;
  for (int64_t t = t0; t < t0 + nt; ++t) {
    const int64_t b = t / (th * tw), r = t % (th * tw);
    const int64_t oh0 = 2 * (r / tw), ow0 = 2 * (r % tw);
    for (int n = 0; n < ncols; n += VW) {
      const int k = std::min(VW, ncols - n);
      VT m[4][4];
      for (int xi = 0; xi < kWino2Xi; ++xi) {
        const float *p = pbuf + (xi * tb + t - t0) * nr + n;
        m[xi / 4][xi % 4] = k == VW ? Vec::load(p) : Vec::load_n(p, k);
      }
      VT s[2][4]; // A^T m
      for (int j = 0; j < 4; ++j) {
        s[0][j] = Vec::add(Vec::add(m[0][j], m[1][j]), m[2][j]);
        s[1][j] = Vec::sub(Vec::sub(m[1][j], m[2][j]), m[3][j]);
      }
      const VT bv = !bias ? Vec::zero() : k == VW ? Vec::load(bias + n0 + n)
                                                  : Vec::load_n(bias + n0 + n, k);
      for (int i = 0; i < 2; ++i) {
        if (oh0 + i >= OH)
          break;
        const VT o[2] = {Vec::add(Vec::add(s[i][0], s[i][1]), s[i][2]),
                         Vec::sub(Vec::sub(s[i][1], s[i][2]), s[i][3])};
        for (int j = 0; j < 2; ++j) {
          if (ow0 + j >= OW)
            break;
          const int64_t at = ((b * OH + oh0 + i) * OW + ow0 + j) * M + n0 + n;
          VT v = Vec::add(o[j], bv);
          if (z)
            v = Vec::add(v, k == VW ? Vec::load(z + at) : Vec::load_n(z + at, k));
          if (act != kActNone)
            v = apply_act(v, act, p0, p1);
          if (k == VW)
            Vec::store(y + at, v);
          else
            Vec::store_n(y + at, v, k);
        }
      }
    }
  }
}
} // namespace detail

/// 3x3 stride-1 convolution (group 1), channels last, by Winograd F(2x2,
/// 3x3): x [batch][H][W][C], y and z [batch][OH][OW][M], weights packed by
/// pack_winograd_nhwc_weights, y = act(conv + bias + z). Work units are
/// (block of tiles, B panel); a part builds a block's V once for its
/// consecutive units. Results are bitwise identical for any `parts`; z may
/// be y itself.
inline int conv2d_winograd_nhwc(const float *x, const float *wpacked, const float *bias,
                                int32_t has_bias, const float *z, int32_t has_z, float *y,
                                float *scratch, int64_t batch, int64_t C, int64_t H, int64_t W,
                                int64_t M, int64_t OH, int64_t OW, int64_t PT, int64_t PL,
                                int64_t PB, int64_t PR, int32_t act, float p0, float p1,
                                int64_t part, int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  (void)PB, (void)PR;
  constexpr int MR = Vec::GemmMR;
  const int isa = ONNXCC_KERNELS_ISA;
  const int64_t nr = Vec::W * Vec::NV;
  const int64_t th = ceil_div(OH, 2), tw = ceil_div(OW, 2), tiles = batch * th * tw;
  if (tiles <= 0 || M <= 0)
    return 0;
  const int64_t tb = wino2_block_tiles(C, OH, OW), nblocks = ceil_div(tiles, tb);
  const int64_t npan = ceil_div(M, nr);
  int64_t u0, u1;
  part_range(nblocks * npan, part, parts, u0, u1);
  float *vbuf = scratch + part * winograd_nhwc_scratch_floats(isa, C, OH, OW);
  float *pbuf = vbuf + kWino2Xi * tb * C;
  const float *bp = has_bias ? bias : nullptr;
  const float *zp = has_z ? z : nullptr;
  int64_t built = -1;
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t blk = u / npan, pan = u % npan;
    const int64_t t0 = blk * tb, nt = std::min(tb, tiles - t0);
    if (blk != built) {
      wino2_input(x, C, H, W, PT, PL, th, tw, t0, nt, tb, vbuf);
      built = blk;
    }
    const int64_t n0 = pan * nr;
    const int ncols = static_cast<int>(std::min(nr, M - n0));
    for (int xi = 0; xi < kWino2Xi; ++xi) {
      const float *a = vbuf + xi * tb * C;
      const float *bk = wpacked + (xi * npan + pan) * C * nr;
      float *cp = pbuf + xi * tb * nr;
      for (int64_t m = 0; m < nt;) {
        const int64_t rest = nt - m;
        const int step = rest >= MR ? MR : (MR > 2 && rest >= 2) ? 2 : 1;
        if (step == MR)
          ukernel_cols<MR, false>(C, a + m * C, C, bk, nr, false, cp + m * nr, nr, ncols, MR,
                                  false, nullptr);
        else if (step == 2)
          ukernel_cols<2, false>(C, a + m * C, C, bk, nr, false, cp + m * nr, nr, ncols, 2, false,
                                 nullptr);
        else
          ukernel_cols<1, false>(C, a + m * C, C, bk, nr, false, cp + m * nr, nr, ncols, 1, false,
                                 nullptr);
        m += step;
      }
    }
    wino2_output(pbuf, tb, t0, nt, th, tw, OH, OW, M, n0, ncols, bp, zp, y, act, p0, p1);
  }
  return 0;
}

#ifdef ONNXCC_WINOGRAD_TARGET
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#undef ONNXCC_WINOGRAD_TARGET
#endif

} // namespace kernels
} // namespace onnxcc_rt

#endif // ONNXCC_KERNELS_WINOGRAD_H
