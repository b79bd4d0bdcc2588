// onnxcc_kernels_rnn.h - RNN, GRU and LSTM over a whole sequence with
// constant weights. Included at the end of onnxcc_kernels.h (it uses its
// Vec, activations and GEMM packing); the packing and sizing functions are
// plain portable C++ the compiler calls.
//
// Scheme: the compiler turns one ONNX RNN / GRU / LSTM node into two calls.
//  1. gemm_packed_b: the input projections of every time step and direction
//     at once, XW = X W^T + Wb (+ the parts of Rb that add to a gate input
//     unchanged), one [rows, dirs * G * H] matrix (G gates; rows in X's
//     order: t * batch + b for layout 0, b * seq + t for layout 1).
//  2. recurrent (this header): per direction, the time loop. Each step is
//     one small GEMM of the hidden states (batch rows) by R, packed at
//     compile time into the column panels gemm_packed_b reads (NR columns
//     per panel, the K = H rows of a panel contiguous, so that a step
//     streams R once, vectorized over gate columns), followed by the gates
//     as vector passes over the gate pre-activations, which stay in L1.
// The batch is cut into blocks of up to kRnnRows rows that share each pass
// over R. With one or two rows (batch 1 is the common case: a GEMV) the
// even and odd steps of the K loop go to separate accumulators, so the FMA
// chains are long enough to hide their latency.
//
// ONNX semantics kept here: activations f, g, h per direction with their
// alpha / beta, clip (bounds every activation input but h's), GRU's
// linear_before_reset (0: the candidate reads (r . H) Rh^T, a second GEMM
// after the z and r gates), LSTM's peepholes and input_forget, reverse and
// bidirectional directions, sequence_lens (a batch entry stops at its length:
// its state is frozen and Y is zero from there on; a reverse direction starts
// at its own last step), layouts 0 and 1, initial states and the three
// outputs Y, Y_h, Y_c.
//
// Work split: a unit is (direction, block of batch rows); a call computes
// the units of part `part` of `parts`. A unit's results are computed by the
// same operations whatever the split, so they are bitwise identical for
// any `parts`.
#ifndef ONNXCC_KERNELS_RNN_H
#define ONNXCC_KERNELS_RNN_H

#include "onnxcc_kernels.h"

namespace onnxcc_rt {
namespace kernels {

/// The cell of a recurrent call.
enum RnnCell : int32_t { kRnnCellRnn = 0, kRnnCellGru = 1, kRnnCellLstm = 2 };

/// The ONNX recurrent activations, as the `acts` operand encodes them.
enum RnnActivation : int32_t {
  kRnnSigmoid = 0,
  kRnnTanh = 1,
  kRnnRelu = 2,
  kRnnAffine = 3,          // alpha x + beta
  kRnnLeakyRelu = 4,       // x >= 0 ? x : alpha x
  kRnnThresholdedRelu = 5, // x >= alpha ? x : 0
  kRnnScaledTanh = 6,      // alpha tanh(beta x)
  kRnnHardSigmoid = 7,     // min(max(alpha x + beta, 0), 1)
  kRnnElu = 8,             // x >= 0 ? x : alpha (e^x - 1)
  kRnnSoftsign = 9,        // x / (1 + |x|)
  kRnnSoftplus = 10,       // log(1 + e^x)
};

/// run()'s status for a sequence_lens entry outside [0, seq_length] (that of
/// a run-time position outside its sequence, onnxcc_rt::status_position).
constexpr int kStatusRnnLength = 16;

/// Batch rows that share one pass over R per step.
constexpr int kRnnRows = 4;

/// Gate blocks of W, R and each half of B.
inline int64_t rnn_gates(int32_t cell) {
  return cell == kRnnCellLstm ? 4 : cell == kRnnCellGru ? 3 : 1;
}

/// Whether the GRU candidate needs the second GEMM on (r . H).
inline bool rnn_split_candidate(int32_t cell, int32_t linear_before_reset) {
  return cell == kRnnCellGru && !linear_before_reset;
}

/// Floats of one direction's packed R.
inline int64_t packed_recurrent_r_floats(int isa, int32_t cell, int32_t linear_before_reset,
                                         int64_t hidden) {
  if (rnn_split_candidate(cell, linear_before_reset))
    return packed_gemm_b_floats(isa, hidden, 2 * hidden) +
           packed_gemm_b_floats(isa, hidden, hidden);
  return packed_gemm_b_floats(isa, hidden, rnn_gates(cell) * hidden);
}

/// Packs one direction's R [G*H][H] (row n: the weights of gate column n)
/// as the B operand of H x R^T: gemm panels of all G*H columns, or for a
/// GRU without linear_before_reset the z and r columns, then the h ones.
inline void pack_recurrent_r(int isa, int32_t cell, int32_t linear_before_reset, const float *r,
                             int64_t hidden, float *out) {
  const int64_t h = hidden;
  if (rnn_split_candidate(cell, linear_before_reset)) {
    pack_gemm_b(isa, r, h, 2 * h, /*transposed=*/true, 1.0f, out);
    pack_gemm_b(isa, r + 2 * h * h, h, h, /*transposed=*/true, 1.0f,
                out + packed_gemm_b_floats(isa, h, 2 * h));
    return;
  }
  pack_gemm_b(isa, r, h, rnn_gates(cell) * h, /*transposed=*/true, 1.0f, out);
}

namespace detail {
/// Floats per batch row of the scratch: the hidden state, the cell state,
/// a temporary row (r . H, or h(C)), the gate pre-activations (G*H columns
/// padded to whole panels) and the candidate's (H columns, padded), rounded
/// to a cache line.
inline int64_t rnn_row_floats(int isa, int32_t cell, int64_t hidden) {
  const int64_t nr = gemm_nr(isa);
  int64_t n = 3 * hidden + round_up(rnn_gates(cell) * hidden, nr) + round_up(hidden, nr);
  return round_up(n, 16);
}
} // namespace detail

/// Scratch floats of a recurrent call: one row block per (direction, batch
/// row), whatever `parts` is (units write disjoint rows).
inline int64_t recurrent_scratch_floats(int isa, int32_t cell, int64_t batch, int64_t hidden,
                                        int64_t dirs) {
  return dirs * batch * detail::rnn_row_floats(isa, cell, hidden);
}

//===----------------------------------------------------------------------===//
// Run-time kernel (SIMD; its own target pragma region).
//===----------------------------------------------------------------------===//

#if ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX512
#define ONNXCC_RNN_TARGET "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2,f16c"
#elif ONNXCC_KERNELS_ISA == ONNXCC_ISA_AVX2
#define ONNXCC_RNN_TARGET "avx2,fma,bmi,bmi2,f16c"
#endif

#ifdef ONNXCC_RNN_TARGET
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(ONNXCC_RNN_TARGET))), apply_to = function)
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

/// n (1..W) floats at p as a vector (lanes past n are 0), and back.
inline VT rnn_load(const float *p, int n) { return n == Vec::W ? Vec::load(p) : Vec::load_n(p, n); }
inline void rnn_store(float *p, VT v, int n) {
  if (n == Vec::W)
    Vec::store(p, v);
  else
    Vec::store_n(p, v, n);
}

/// f(i, n) over [0, count) in vectors: n = W, then the tail.
template <class F> inline void rnn_each(int64_t count, F &&f) {
  int64_t i = 0;
  for (; i + Vec::W <= count; i += Vec::W)
    f(i, Vec::W);
  if (i < count)
    f(i, static_cast<int>(count - i));
}

/// e^x - 1 without cancellation near 0: a Taylor polynomial below ln2/2 in
/// magnitude, e^x - 1 above (vtanh's scheme, for both signs).
inline VT rnn_expm1(VT x) {
  VT p = Vec::set1(1.0f / 40320);
  p = Vec::fma(p, x, Vec::set1(1.0f / 5040));
  p = Vec::fma(p, x, Vec::set1(1.0f / 720));
  p = Vec::fma(p, x, Vec::set1(1.0f / 120));
  p = Vec::fma(p, x, Vec::set1(1.0f / 24));
  p = Vec::fma(p, x, Vec::set1(1.0f / 6));
  p = Vec::fma(p, x, Vec::set1(0.5f));
  VT small = Vec::fma(Vec::mul(p, x), x, x);
  VT big = Vec::sub(vexp_lo(x), Vec::set1(1.0f));
  return Vec::sel_lt(Vec::abs(x), Vec::set1(0.34657359f), small, big);
}

/// 1 / (1 + e^-x) as vsigmoid, with a true division: GRU's 1 - z and
/// LSTM's f = 1 - i cancel where the gate nears 1, and there the division
/// keeps the gate within an ulp of the correctly rounded value (rcp and a
/// Newton step can be 2 ulp off, which 1 - z turns into a 10% error).
inline VT rnn_sigmoid(VT x) {
  VT t = vexp_lo(Vec::nabs(x));
  VT s = Vec::div(Vec::set1(1.0f), Vec::add(Vec::set1(1.0f), t));
  return Vec::sel_lt(x, Vec::zero(), Vec::mul(t, s), s);
}

/// Activation A of one vector (parameters broadcast). NaN propagates.
template <int A> inline VT rnn_act_v(VT x, VT alpha, VT beta) {
  const VT zero = Vec::zero();
  if constexpr (A == kRnnSigmoid) {
    return rnn_sigmoid(x);
  } else if constexpr (A == kRnnTanh) {
    return vtanh(x);
  } else if constexpr (A == kRnnRelu) {
    return Vec::max(zero, x);
  } else if constexpr (A == kRnnAffine) {
    return Vec::fma(alpha, x, beta);
  } else if constexpr (A == kRnnLeakyRelu) {
    return Vec::sel_lt(x, zero, Vec::mul(alpha, x), x);
  } else if constexpr (A == kRnnThresholdedRelu) {
    return Vec::sel_lt(x, alpha, zero, x);
  } else if constexpr (A == kRnnScaledTanh) {
    return Vec::mul(alpha, vtanh(Vec::mul(beta, x)));
  } else if constexpr (A == kRnnHardSigmoid) {
    return Vec::min(Vec::set1(1.0f), Vec::max(zero, Vec::fma(alpha, x, beta)));
  } else if constexpr (A == kRnnElu) {
    return Vec::sel_lt(x, zero, Vec::mul(alpha, rnn_expm1(x)), x);
  } else if constexpr (A == kRnnSoftsign) {
    return Vec::div(x, Vec::add(Vec::set1(1.0f), Vec::abs(x)));
  } else {
    // Softplus: max(x, 0) + log1p(e^-|x|) (no overflow), lane by lane.
    float t[Vec::W];
    Vec::store(t, x);
    for (float &v : t)
      v = (v > 0 ? v : 0.0f) + std::log1p(std::exp(-std::fabs(v)));
    (void)alpha, (void)beta, (void)zero;
    return Vec::load(t);
  }
}

template <int A> ONNXCC_NOINLINE void rnn_act_run(float *x, int64_t n, float alpha, float beta) {
  const VT a = Vec::set1(alpha), b = Vec::set1(beta);
  rnn_each(n, [&](int64_t i, int m) {
    rnn_store(x + i, rnn_act_v<A>(rnn_load(x + i, m), a, b), m);
  });
}

/// Applies activation act = {code, alpha, beta} to x[0..n) in place.
inline void rnn_activate(const float *act, float *x, int64_t n) {
  const float alpha = act[1], beta = act[2];
  switch (static_cast<int>(act[0])) {
  case kRnnSigmoid:
    return rnn_act_run<kRnnSigmoid>(x, n, alpha, beta);
  case kRnnTanh:
    return rnn_act_run<kRnnTanh>(x, n, alpha, beta);
  case kRnnRelu:
    return rnn_act_run<kRnnRelu>(x, n, alpha, beta);
  case kRnnAffine:
    return rnn_act_run<kRnnAffine>(x, n, alpha, beta);
  case kRnnLeakyRelu:
    return rnn_act_run<kRnnLeakyRelu>(x, n, alpha, beta);
  case kRnnThresholdedRelu:
    return rnn_act_run<kRnnThresholdedRelu>(x, n, alpha, beta);
  case kRnnScaledTanh:
    return rnn_act_run<kRnnScaledTanh>(x, n, alpha, beta);
  case kRnnHardSigmoid:
    return rnn_act_run<kRnnHardSigmoid>(x, n, alpha, beta);
  case kRnnElu:
    return rnn_act_run<kRnnElu>(x, n, alpha, beta);
  case kRnnSoftsign:
    return rnn_act_run<kRnnSoftsign>(x, n, alpha, beta);
  default:
    return rnn_act_run<kRnnSoftplus>(x, n, alpha, beta);
  }
}

/// c[r][0 .. NR) = sum_k a[r][k] * b[k][0 .. NR) for R rows of one packed
/// panel (K steps of NR = NV * W floats). `Split` sums the even and odd
/// steps apart (then adds them), for twice the independent FMA chains.
template <int R, bool Split>
inline void rnn_tile(int64_t K, const float *a, int64_t lda, const float *b, float *c,
                     int64_t ldc) {
  constexpr int NV = Vec::NV, W = Vec::W, NR = NV * W;
  VT acc[R][NV], odd[R][NV];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j)
      acc[r][j] = odd[r][j] = Vec::zero();
  int64_t k = 0;
  if constexpr (Split) {
    for (; k + 2 <= K; k += 2) {
      const float *b0 = b + k * NR;
      prefetch_ahead(b0, 8 * NR * sizeof(float));
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const VT a0 = Vec::set1(a[r * lda + k]), a1 = Vec::set1(a[r * lda + k + 1]);
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
          acc[r][j] = Vec::fma(a0, Vec::load(b0 + j * W), acc[r][j]);
          odd[r][j] = Vec::fma(a1, Vec::load(b0 + NR + j * W), odd[r][j]);
        }
      }
    }
  }
  for (; k < K; ++k) {
    const float *b0 = b + k * NR;
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const VT a0 = Vec::set1(a[r * lda + k]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j)
        acc[r][j] = Vec::fma(a0, Vec::load(b0 + j * W), acc[r][j]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j)
      Vec::store(c + r * ldc + j * W, Split ? Vec::add(acc[r][j], odd[r][j]) : acc[r][j]);
}

/// c[r][0 .. round_up(N, NR)) = a[r] x B for `rows` (1..kRnnRows) rows, B
/// packed by pack_gemm_b (K x N).
inline void rnn_gemm(const float *a, int64_t lda, int rows, const float *bp, int64_t K, int64_t N,
                     float *c, int64_t ldc) {
  constexpr int64_t NR = Vec::NV * Vec::W;
  static_assert(kRnnRows == 4, "rnn_gemm's switch covers 1..4 rows");
  const int64_t panels = ceil_div(N, NR);
  for (int64_t j = 0; j < panels; ++j) {
    const float *b = bp + j * K * NR;
    float *cj = c + j * NR;
    switch (rows) {
    case 1:
      rnn_tile<1, true>(K, a, lda, b, cj, ldc);
      break;
    case 2:
      rnn_tile<2, true>(K, a, lda, b, cj, ldc);
      break;
    case 3:
      rnn_tile<3, false>(K, a, lda, b, cj, ldc);
      break;
    default:
      rnn_tile<4, false>(K, a, lda, b, cj, ldc);
      break;
    }
  }
}

/// The cell-independent parameters of one direction.
struct RnnDir {
  int32_t cell;
  int64_t hidden;
  const float *acts; // f, g, h: {code, alpha, beta} each
  bool clip;
  float clipValue;
  const float *rbias; // GRU with linear_before_reset: Rbh [H], else null
  const float *peep;  // LSTM: [Pi, Po, Pf] ([3H]), else null
  bool inputForget;
};

/// clip(x) when the direction clips.
struct RnnClip {
  bool on;
  VT lo, hi;
  explicit RnnClip(const RnnDir &d)
      : on(d.clip), lo(Vec::set1(-d.clipValue)), hi(Vec::set1(d.clipValue)) {}
  VT operator()(VT x) const { return on ? Vec::min(hi, Vec::max(lo, x)) : x; }
};

/// One step of a plain RNN for one row: h = f(clip(x + pre)).
inline void rnn_step_rnn(const RnnDir &d, const float *x, float *pre, float *h) {
  const int64_t H = d.hidden;
  const RnnClip clip(d);
  rnn_each(H, [&](int64_t i, int n) {
    rnn_store(pre + i, clip(Vec::add(rnn_load(x + i, n), rnn_load(pre + i, n))), n);
  });
  rnn_activate(d.acts, pre, H);
  std::memcpy(h, pre, static_cast<size_t>(H) * sizeof(float));
}

/// GRU z and r gates of one row: pre[0 .. 2H) = f(clip(x + pre)).
inline void rnn_gru_zr(const RnnDir &d, const float *x, float *pre) {
  const RnnClip clip(d);
  rnn_each(2 * d.hidden, [&](int64_t i, int n) {
    rnn_store(pre + i, clip(Vec::add(rnn_load(x + i, n), rnn_load(pre + i, n))), n);
  });
  rnn_activate(d.acts, pre, 2 * d.hidden);
}

/// h = (1 - z) . cand + z . h for one row.
inline void rnn_gru_blend(int64_t H, const float *z, const float *cand, float *h) {
  const VT one = Vec::set1(1.0f);
  rnn_each(H, [&](int64_t i, int n) {
    VT zv = rnn_load(z + i, n);
    VT fresh = Vec::mul(Vec::sub(one, zv), rnn_load(cand + i, n));
    rnn_store(h + i, Vec::fma(zv, rnn_load(h + i, n), fresh), n);
  });
}

/// One GRU step with linear_before_reset for one row (pre: [z r h] of H R^T):
/// cand = g(clip(xh + r . (pre_h + Rbh))).
inline void rnn_step_gru_lbr(const RnnDir &d, const float *x, float *pre, float *h) {
  const int64_t H = d.hidden;
  rnn_gru_zr(d, x, pre);
  const RnnClip clip(d);
  float *cand = pre + 2 * H;
  const float *r = pre + H;
  rnn_each(H, [&](int64_t i, int n) {
    VT lin = rnn_load(cand + i, n);
    if (d.rbias)
      lin = Vec::add(lin, rnn_load(d.rbias + i, n));
    VT v = Vec::fma(rnn_load(r + i, n), lin, rnn_load(x + 2 * H + i, n));
    rnn_store(cand + i, clip(v), n);
  });
  rnn_activate(d.acts + 3, cand, H);
  rnn_gru_blend(H, pre, cand, h);
}

/// One LSTM step for one row (pre: [i o f c] of H R^T; c the cell state;
/// tmp a free row).
inline void rnn_step_lstm(const RnnDir &d, const float *x, float *pre, float *h, float *c,
                          float *tmp) {
  const int64_t H = d.hidden;
  const RnnClip clip(d);
  const float *p = d.peep;
  float *gi = pre, *go = pre + H, *gf = pre + 2 * H, *gc = pre + 3 * H;
  rnn_each(H, [&](int64_t i, int n) {
    VT cv = rnn_load(c + i, n);
    VT vi = Vec::add(rnn_load(x + i, n), rnn_load(gi + i, n));
    VT vf = Vec::add(rnn_load(x + 2 * H + i, n), rnn_load(gf + i, n));
    if (p) {
      vi = Vec::fma(rnn_load(p + i, n), cv, vi);
      vf = Vec::fma(rnn_load(p + 2 * H + i, n), cv, vf);
    }
    rnn_store(gi + i, clip(vi), n);
    rnn_store(gf + i, clip(vf), n);
    rnn_store(gc + i, clip(Vec::add(rnn_load(x + 3 * H + i, n), rnn_load(gc + i, n))), n);
    rnn_store(go + i, Vec::add(rnn_load(x + H + i, n), rnn_load(go + i, n)), n);
  });
  rnn_activate(d.acts, gi, H);
  if (!d.inputForget)
    rnn_activate(d.acts, gf, H);
  rnn_activate(d.acts + 3, gc, H);
  const VT one = Vec::set1(1.0f);
  rnn_each(H, [&](int64_t i, int n) {
    VT iv = rnn_load(gi + i, n);
    VT fv = d.inputForget ? Vec::sub(one, iv) : rnn_load(gf + i, n);
    VT cn = Vec::fma(fv, rnn_load(c + i, n), Vec::mul(iv, rnn_load(gc + i, n)));
    rnn_store(c + i, cn, n);
    rnn_store(tmp + i, cn, n);
    VT vo = rnn_load(go + i, n);
    if (p)
      vo = Vec::fma(rnn_load(p + H + i, n), cn, vo);
    rnn_store(go + i, clip(vo), n);
  });
  rnn_activate(d.acts, go, H);
  rnn_activate(d.acts + 6, tmp, H);
  rnn_each(H, [&](int64_t i, int n) {
    rnn_store(h + i, Vec::mul(rnn_load(go + i, n), rnn_load(tmp + i, n)), n);
  });
}

} // namespace detail

/// The recurrence of an RNN (cell 0), GRU (1) or LSTM (2) over `seq` steps
/// of `batch` rows, for `dirs` directions (direction 1 of a bidirectional
/// node, and direction 0 when `reverse`, run backwards).
///  - xw: the input projections (see the top of this header), rows in X's
///    order, dirs * G * H columns: for direction d and gate k, column
///    (d * G + k) * H; the biases that add to a gate input are in it.
///  - rpacked: per direction, R packed by pack_recurrent_r.
///  - rbias: [dirs][H], GRU with linear_before_reset: Rbh (has_rbias).
///  - peep: [dirs][3H], LSTM's P (has_peep). lens: [batch] (has_lens).
///  - h0, c0: initial states, [dirs][batch][H] (layout 0) or
///    [batch][dirs][H] (layout 1) (has_h0, has_c0; else zeros).
///  - y: [seq][dirs][batch][H] or [batch][seq][dirs][H]; yh, yc: shaped as
///    h0 (each written when its has_ flag is set).
///  - acts: [dirs][3][3]: {code, alpha, beta} of f, g, h per direction.
///  - clip: bounds every activation input to [-clip, clip] when has_clip.
/// Returns kStatusRnnLength for a length outside [0, seq].
inline int recurrent(const float *xw, const float *rpacked, const float *rbias, int32_t has_rbias,
                     const float *peep, int32_t has_peep, const int32_t *lens, int32_t has_lens,
                     const float *h0, int32_t has_h0, const float *c0, int32_t has_c0, float *y,
                     int32_t has_y, float *yh, int32_t has_yh, float *yc, int32_t has_yc,
                     float *scratch, const float *acts, int64_t seq, int64_t batch, int64_t hidden,
                     int64_t dirs, int32_t cell, int32_t reverse, int32_t layout,
                     int32_t linear_before_reset, int32_t input_forget, float clip,
                     int32_t has_clip, int64_t part, int64_t parts, int32_t isa_check) {
  using namespace detail;
  if (isa_check != ONNXCC_KERNELS_ISA)
    return kStatusWrongIsa;
  if (has_lens)
    for (int64_t b = 0; b < batch; ++b)
      if (lens[b] < 0 || lens[b] > seq)
        return kStatusRnnLength;
  const int64_t H = hidden, G = rnn_gates(cell), GH = G * H;
  const int isa = ONNXCC_KERNELS_ISA;
  const bool split = rnn_split_candidate(cell, linear_before_reset);
  const int64_t rowFloats = rnn_row_floats(isa, cell, H);
  const int64_t preOffset = 3 * H;
  const int64_t candOffset = preOffset + round_up(GH, gemm_nr(isa));
  const int64_t packedFloats = packed_recurrent_r_floats(isa, cell, linear_before_reset, H);
  const int64_t zrFloats = packed_gemm_b_floats(isa, H, 2 * H);
  const int64_t xwCols = dirs * GH;
  const int64_t blocks = ceil_div(batch, kRnnRows);
  const int64_t units = dirs * blocks;
  // Element offsets of (direction d, batch row b) in a state tensor and of
  // (time t, direction d, batch row b) in Y.
  auto stateAt = [&](int64_t d, int64_t b) {
    return layout == 0 ? (d * batch + b) * H : (b * dirs + d) * H;
  };
  auto yAt = [&](int64_t t, int64_t d, int64_t b) {
    return layout == 0 ? ((t * dirs + d) * batch + b) * H : ((b * seq + t) * dirs + d) * H;
  };
  auto xwRow = [&](int64_t t, int64_t b) { return layout == 0 ? t * batch + b : b * seq + t; };
  const size_t rowBytes = static_cast<size_t>(H) * sizeof(float);

  for (int64_t u = units * part / parts, uEnd = units * (part + 1) / parts; u < uEnd; ++u) {
    const int64_t d = u / blocks, b0 = (u % blocks) * kRnnRows;
    const int rows = static_cast<int>(std::min<int64_t>(kRnnRows, batch - b0));
    const bool backwards = reverse || d == 1;
    RnnDir dir{cell,
               H,
               acts + d * 9,
               has_clip != 0,
               clip,
               has_rbias ? rbias + d * H : nullptr,
               has_peep ? peep + d * 3 * H : nullptr,
               input_forget != 0};
    const float *rp = rpacked + d * packedFloats;
    float *block = scratch + (d * batch + b0) * rowFloats;
    int64_t len[kRnnRows], longest = 0;
    for (int r = 0; r < rows; ++r) {
      const int64_t b = b0 + r;
      float *row = block + r * rowFloats;
      // The states, and the temporary row zeroed (the candidate GEMM reads
      // the rows of entries past their length too).
      if (has_h0)
        std::memcpy(row, h0 + stateAt(d, b), rowBytes);
      else
        zero_floats(row, H);
      if (has_c0)
        std::memcpy(row + H, c0 + stateAt(d, b), rowBytes);
      else
        zero_floats(row + H, H);
      zero_floats(row + 2 * H, H);
      len[r] = has_lens ? lens[b] : seq;
      longest = std::max(longest, len[r]);
      if (has_y)
        for (int64_t t = len[r]; t < seq; ++t)
          zero_floats(y + yAt(t, d, b), H);
    }
    for (int64_t s = 0; s < longest; ++s) {
      rnn_gemm(block, rowFloats, rows, rp, H, split ? 2 * H : GH, block + preOffset, rowFloats);
      for (int r = 0; r < rows; ++r) {
        if (s >= len[r])
          continue;
        const int64_t t = backwards ? len[r] - 1 - s : s;
        const float *x = xw + xwRow(t, b0 + r) * xwCols + d * GH;
        float *row = block + r * rowFloats;
        float *pre = row + preOffset;
        switch (cell) {
        case kRnnCellRnn:
          rnn_step_rnn(dir, x, pre, row);
          break;
        case kRnnCellLstm:
          rnn_step_lstm(dir, x, pre, row, row + H, row + 2 * H);
          break;
        default:
          if (!split) {
            rnn_step_gru_lbr(dir, x, pre, row);
            break;
          }
          // z and r now; r . H for the candidate's GEMM.
          rnn_gru_zr(dir, x, pre);
          rnn_each(H, [&](int64_t i, int n) {
            rnn_store(row + 2 * H + i,
                      Vec::mul(rnn_load(pre + H + i, n), rnn_load(row + i, n)), n);
          });
          break;
        }
      }
      if (split) {
        rnn_gemm(block + 2 * H, rowFloats, rows, rp + zrFloats, H, H, block + candOffset,
                 rowFloats);
        const RnnClip clipOf(dir);
        for (int r = 0; r < rows; ++r) {
          if (s >= len[r])
            continue;
          const int64_t t = backwards ? len[r] - 1 - s : s;
          const float *x = xw + xwRow(t, b0 + r) * xwCols + d * GH + 2 * H;
          float *row = block + r * rowFloats;
          float *cand = row + candOffset;
          rnn_each(H, [&](int64_t i, int n) {
            rnn_store(cand + i, clipOf(Vec::add(rnn_load(x + i, n), rnn_load(cand + i, n))), n);
          });
          rnn_activate(dir.acts + 3, cand, H);
          rnn_gru_blend(H, row + preOffset, cand, row);
        }
      }
      if (has_y)
        for (int r = 0; r < rows; ++r)
          if (s < len[r]) {
            const int64_t t = backwards ? len[r] - 1 - s : s;
            std::memcpy(y + yAt(t, d, b0 + r), block + r * rowFloats, rowBytes);
          }
    }
    for (int r = 0; r < rows; ++r) {
      const float *row = block + r * rowFloats;
      if (has_yh)
        std::memcpy(yh + stateAt(d, b0 + r), row, rowBytes);
      if (has_yc)
        std::memcpy(yc + stateAt(d, b0 + r), row + H, rowBytes);
    }
  }
  return 0;
}

#ifdef ONNXCC_RNN_TARGET
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#undef ONNXCC_RNN_TARGET
#endif

} // namespace kernels
} // namespace onnxcc_rt

#endif // ONNXCC_KERNELS_RNN_H
