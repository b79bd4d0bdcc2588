// rnn_kernels_test.cpp - checks runtime-support/onnxcc_kernels_rnn.h
// (onnxcc_rt::kernels::recurrent) against a double-precision reference of
// ONNX's RNN, GRU and LSTM equations written from the operator spec. Build
// with -DONNXCC_KERNELS_ISA=<0|1|2|3> and -I runtime-support; prints one
// PASS/FAIL line per case group and exits non-zero on any failure.
//
// Each case draws a cell, direction, layout, batch, hidden size, sequence,
// activations (all eleven ONNX ones, with alpha/beta), clip, sequence
// lengths, initial states, peepholes, input_forget and linear_before_reset;
// runs the kernel with 1, 2 and 3 parts (bitwise identical results), with
// sentinel guards around every output and the scratch, and with NaN
// buffers behind every absent operand (a read of one shows up as NaN).
#include "onnxcc_kernels.h"
#include "test_rng.h"

#include <algorithm>
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
  static constexpr int kGuard = 37;
  explicit Guarded(int64_t n, float fill) : n_(n), mem_(static_cast<size_t>(n + 2 * kGuard), fill) {
    for (int i = 0; i < kGuard; ++i)
      mem_[i] = mem_[n + kGuard + i] = kSentinel;
  }
  float *data() { return mem_.data() + kGuard; }
  bool guards_ok() const {
    for (int i = 0; i < kGuard; ++i)
      if (!same(mem_[i]) || !same(mem_[n_ + kGuard + i]))
        return false;
    return true;
  }

private:
  static constexpr float kSentinel = -12345.678f;
  static bool same(float v) {
    float s = kSentinel;
    return std::memcmp(&v, &s, 4) == 0;
  }
  int64_t n_;
  std::vector<float> mem_;
};

double act_ref(int code, double x, double a, double b) {
  switch (code) {
  case k::kRnnSigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case k::kRnnTanh:
    return std::tanh(x);
  case k::kRnnRelu:
    return std::max(0.0, x);
  case k::kRnnAffine:
    return a * x + b;
  case k::kRnnLeakyRelu:
    return x >= 0 ? x : a * x;
  case k::kRnnThresholdedRelu:
    return x >= a ? x : 0.0;
  case k::kRnnScaledTanh:
    return a * std::tanh(b * x);
  case k::kRnnHardSigmoid:
    return std::min(1.0, std::max(0.0, a * x + b));
  case k::kRnnElu:
    return x >= 0 ? x : a * std::expm1(x);
  case k::kRnnSoftsign:
    return x / (1.0 + std::fabs(x));
  default:
    return std::log1p(std::exp(x));
  }
}

struct Case {
  int32_t cell = 0;
  int64_t seq = 1, batch = 1, hidden = 1, dirs = 1;
  bool reverse = false;
  int32_t layout = 0;
  bool lbr = false, inputForget = false, hasPeep = false, hasLens = false, hasH0 = false,
       hasC0 = false, hasClip = false;
  float clip = 0;
  bool hasY = true, hasYh = true, hasYc = true;
  std::vector<float> acts; // [dirs][3][3]
};

std::string describe(const Case &c) {
  static const char *cells[] = {"rnn", "gru", "lstm"};
  char buf[300];
  std::snprintf(buf, sizeof buf,
                "%s seq %" PRId64 " batch %" PRId64 " hidden %" PRId64 " dirs %" PRId64
                "%s layout %d%s%s%s%s%s%s clip %g acts",
                cells[c.cell], c.seq, c.batch, c.hidden, c.dirs, c.reverse ? " reverse" : "",
                c.layout, c.lbr ? " lbr" : "", c.inputForget ? " input_forget" : "",
                c.hasPeep ? " peep" : "", c.hasLens ? " lens" : "", c.hasH0 ? " h0" : "",
                c.hasC0 ? " c0" : "", c.hasClip ? c.clip : 0.0);
  std::string s = buf;
  for (size_t i = 0; i < c.acts.size(); i += 3)
    s += " " + std::to_string(static_cast<int>(c.acts[i]));
  return s;
}

/// Runs one case; returns a description of the first problem or "".
std::string run_case(const Case &c, uint64_t seed, double &worst) {
  Rng rng(seed);
  const int64_t H = c.hidden, G = k::rnn_gates(c.cell), GH = G * H, B = c.batch, S = c.seq,
                D = c.dirs;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // The projections the first call would have produced, and R (scaled so
  // that the states stay in the activations' interesting range).
  std::vector<float> xw(S * B * D * GH), r(D * GH * H), rbias(D * H), peep(D * 3 * H),
      h0(D * B * H), c0(D * B * H);
  for (float &v : xw)
    v = 1.5f * rng.uniform();
  for (float &v : r)
    v = rng.uniform() * (1.5f / std::sqrt(static_cast<float>(H)));
  for (float &v : rbias)
    v = 0.5f * rng.uniform();
  for (float &v : peep)
    v = 0.5f * rng.uniform();
  for (float &v : h0)
    v = rng.uniform();
  for (float &v : c0)
    v = rng.uniform();
  std::vector<int32_t> lens(B, static_cast<int32_t>(S));
  if (c.hasLens)
    for (int32_t &l : lens)
      l = rng.below(static_cast<int>(S) + 1);
  const bool useRbias = c.cell == k::kRnnCellGru && c.lbr;
  const bool usePeep = c.cell == k::kRnnCellLstm && c.hasPeep;
  const bool useC0 = c.cell == k::kRnnCellLstm && c.hasC0;
  const bool wantYc = c.cell == k::kRnnCellLstm && c.hasYc;

  const int64_t perDir = k::packed_recurrent_r_floats(kIsa, c.cell, c.lbr, H);
  Guarded packed(D * perDir, 0.0f);
  for (int64_t d = 0; d < D; ++d)
    k::pack_recurrent_r(kIsa, c.cell, c.lbr, r.data() + d * GH * H, H, packed.data() + d * perDir);
  if (!packed.guards_ok())
    return "pack_recurrent_r wrote out of bounds";

  std::vector<float> nans(std::max<int64_t>(D * 3 * H, D * B * H) + 16, nan);
  const int32_t nanLens[1] = {0};
  const int64_t ySize = S * D * B * H, stateSize = D * B * H;
  const int64_t scratchSize = k::recurrent_scratch_floats(kIsa, c.cell, B, H, D);
  std::vector<float> first;
  for (int parts = 1; parts <= 3; ++parts) {
    Guarded y(ySize, 777.0f), yh(stateSize, 777.0f), yc(stateSize, 777.0f),
        scratch(scratchSize, 3.0e38f);
    for (int64_t p = 0; p < parts; ++p) {
      int rc = k::recurrent(
          xw.data(), packed.data(), useRbias ? rbias.data() : nans.data(), useRbias,
          usePeep ? peep.data() : nans.data(), usePeep, c.hasLens ? lens.data() : nanLens,
          c.hasLens, c.hasH0 ? h0.data() : nans.data(), c.hasH0, useC0 ? c0.data() : nans.data(),
          useC0, y.data(), c.hasY, yh.data(), c.hasYh, yc.data(), wantYc, scratch.data(),
          c.acts.data(), S, B, H, D, c.cell, c.reverse, c.layout, c.lbr, c.inputForget, c.clip,
          c.hasClip, p, parts, kIsa);
      if (rc != 0)
        return "recurrent returned " + std::to_string(rc);
    }
    if (!y.guards_ok() || !yh.guards_ok() || !yc.guards_ok() || !scratch.guards_ok())
      return "a guard was overwritten (parts=" + std::to_string(parts) + ")";
    std::vector<float> all(y.data(), y.data() + ySize);
    all.insert(all.end(), yh.data(), yh.data() + stateSize);
    all.insert(all.end(), yc.data(), yc.data() + stateSize);
    if (parts == 1) {
      first = all;
      continue;
    }
    if (std::memcmp(first.data(), all.data(), all.size() * sizeof(float)) != 0)
      return "parts=" + std::to_string(parts) + " differs bitwise from parts=1";
  }

  // The reference, per direction and batch entry.
  auto stateAt = [&](int64_t d, int64_t b) {
    return c.layout == 0 ? (d * B + b) * H : (b * D + d) * H;
  };
  auto yAt = [&](int64_t t, int64_t d, int64_t b) {
    return c.layout == 0 ? ((t * D + d) * B + b) * H : ((b * S + t) * D + d) * H;
  };
  auto xwAt = [&](int64_t t, int64_t b, int64_t d) {
    return ((c.layout == 0 ? t * B + b : b * S + t) * D + d) * GH;
  };
  std::vector<double> yRef(ySize, 0.0), yhRef(stateSize), ycRef(stateSize);
  for (int64_t d = 0; d < D; ++d) {
    const float *a = c.acts.data() + d * 9;
    auto f = [&](int which, double x) {
      if (c.hasClip && which < 2)
        x = std::min<double>(c.clip, std::max<double>(-c.clip, x));
      return act_ref(static_cast<int>(a[which * 3]), x, a[which * 3 + 1], a[which * 3 + 2]);
    };
    const float *rd = r.data() + d * GH * H;
    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> h(H), cs(H, 0.0), hr(GH), next(H);
      for (int64_t i = 0; i < H; ++i) {
        h[i] = c.hasH0 ? h0[stateAt(d, b) + i] : 0.0;
        cs[i] = useC0 ? c0[stateAt(d, b) + i] : 0.0;
      }
      const int64_t L = lens[b];
      for (int64_t s = 0; s < L; ++s) {
        const int64_t t = (c.reverse || d == 1) ? L - 1 - s : s;
        const float *x = xw.data() + xwAt(t, b, d);
        for (int64_t n = 0; n < GH; ++n) {
          double acc = 0;
          for (int64_t kk = 0; kk < H; ++kk)
            acc += h[kk] * rd[n * H + kk];
          hr[n] = acc;
        }
        for (int64_t i = 0; i < H; ++i) {
          if (c.cell == k::kRnnCellRnn) {
            next[i] = f(0, x[i] + hr[i]);
          } else if (c.cell == k::kRnnCellGru) {
            double z = f(0, x[i] + hr[i]);
            double rr = f(0, x[H + i] + hr[H + i]);
            double cand;
            if (c.lbr) {
              cand = f(1, x[2 * H + i] + rr * (hr[2 * H + i] + rbias[d * H + i]));
            } else {
              // (r . h) Rh^T needs every r first: computed below.
              cand = 0;
            }
            next[i] = c.lbr ? (1 - z) * cand + z * h[i] : rr * h[i];
          } else {
            const double *p = nullptr;
            std::vector<double> pv(3 * H, 0.0);
            if (usePeep)
              for (int64_t j = 0; j < 3 * H; ++j)
                pv[j] = peep[d * 3 * H + j];
            p = pv.data();
            double gi = f(0, x[i] + hr[i] + p[i] * cs[i]);
            double gf = c.inputForget
                            ? 1 - gi
                            : f(0, x[2 * H + i] + hr[2 * H + i] + p[2 * H + i] * cs[i]);
            double gc = f(1, x[3 * H + i] + hr[3 * H + i]);
            double cn = gf * cs[i] + gi * gc;
            double go = f(0, x[H + i] + hr[H + i] + p[H + i] * cn);
            cs[i] = cn;
            next[i] = go * act_ref(static_cast<int>(a[6]), cn, a[7], a[8]);
          }
        }
        if (c.cell == k::kRnnCellGru && !c.lbr) {
          // next holds r . h: the candidate's product with Rh.
          for (int64_t i = 0; i < H; ++i) {
            double acc = 0;
            for (int64_t kk = 0; kk < H; ++kk)
              acc += next[kk] * rd[(2 * H + i) * H + kk];
            double z = f(0, x[i] + hr[i]);
            double cand = f(1, x[2 * H + i] + acc);
            hr[i] = (1 - z) * cand + z * h[i];
          }
          for (int64_t i = 0; i < H; ++i)
            next[i] = hr[i];
        }
        h = next;
        for (int64_t i = 0; i < H; ++i)
          yRef[yAt(t, d, b) + i] = h[i];
      }
      for (int64_t i = 0; i < H; ++i) {
        yhRef[stateAt(d, b) + i] = h[i];
        ycRef[stateAt(d, b) + i] = cs[i];
      }
    }
  }
  // The error grows with the steps through the recurrence: float rounding of
  // ~1e-7 per op, amplified by up to a few units per step.
  const double tol = 3e-6 * std::sqrt(static_cast<double>(S)) + 2e-6;
  auto check = [&](const char *what, bool present, const float *got, const std::vector<double> &ref,
                   int64_t n) -> std::string {
    for (int64_t i = 0; i < n; ++i) {
      if (!present) {
        if (got[i] != 777.0f)
          return std::string(what) + " written though absent";
        continue;
      }
      double err = std::fabs(got[i] - ref[i]);
      worst = std::max(worst, err / (1 + std::fabs(ref[i])));
      if (!(err <= tol * (1 + std::fabs(ref[i])))) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s[%" PRId64 "] = %.9g, reference %.9g", what, i, got[i],
                      ref[i]);
        return buf;
      }
    }
    return "";
  };
  std::string e = check("Y", c.hasY, first.data(), yRef, ySize);
  if (e.empty())
    e = check("Y_h", c.hasYh, first.data() + ySize, yhRef, stateSize);
  if (e.empty())
    e = check("Y_c", wantYc, first.data() + ySize + stateSize, ycRef, stateSize);
  return e;
}

/// {code, alpha, beta} with the parameters ONNX's defaults would give or
/// random ones, for activations drawn from `pool`.
void draw_act(Rng &rng, std::vector<float> &acts, int code) {
  float alpha = 0, beta = 0;
  switch (code) {
  case k::kRnnAffine:
  case k::kRnnScaledTanh:
    alpha = 0.5f + 0.5f * rng.uniform();
    beta = 0.5f * rng.uniform() + (code == k::kRnnScaledTanh ? 1.0f : 0.0f);
    break;
  case k::kRnnLeakyRelu:
    alpha = 0.01f;
    break;
  case k::kRnnThresholdedRelu:
    alpha = 0.1f;
    break;
  case k::kRnnHardSigmoid:
    alpha = 0.2f;
    beta = 0.5f;
    break;
  case k::kRnnElu:
    alpha = 1.0f;
    break;
  default:
    break;
  }
  acts.insert(acts.end(), {static_cast<float>(code), alpha, beta});
}

int g_failures = 0;
void report(const std::string &group, int bad, const std::string &detail) {
  std::printf("%s %s%s%s\n", bad ? "FAIL" : "PASS", group.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  if (bad)
    ++g_failures;
}

void test_cells(int32_t cell, const char *name) {
  Rng rng(1000 + cell);
  int bad = 0;
  std::string detail;
  double worst = 0;
  const int64_t hiddens[] = {1, 3, 5, 8, 13, 24, 31, 48, 64};
  for (int n = 0; n < 160; ++n) {
    Case c;
    c.cell = cell;
    c.seq = 1 + rng.below(7);
    c.batch = 1 + rng.below(n % 4 == 0 ? 9 : 3);
    c.hidden = hiddens[rng.below(9)];
    c.dirs = 1 + rng.below(2);
    c.reverse = c.dirs == 1 && rng.below(2);
    c.layout = rng.below(2);
    c.lbr = rng.below(2);
    c.inputForget = rng.below(4) == 0;
    c.hasPeep = rng.below(2);
    c.hasLens = rng.below(3) == 0;
    c.hasH0 = rng.below(2);
    c.hasC0 = rng.below(2);
    c.hasClip = rng.below(4) == 0;
    c.clip = 0.5f + rng.below(3);
    c.hasY = rng.below(5) != 0;
    c.hasYh = rng.below(4) != 0;
    c.hasYc = rng.below(2);
    // Mostly the default activations; every fourth case draws them, with
    // clip on so that unbounded ones cannot blow the states up: any
    // activation for g and h, and for the gates f of GRU and LSTM one with
    // values in [0, 1] (which keeps the state updates contracting).
    const int defaults[3][3] = {{k::kRnnTanh, k::kRnnTanh, k::kRnnTanh},
                                {k::kRnnSigmoid, k::kRnnTanh, k::kRnnTanh},
                                {k::kRnnSigmoid, k::kRnnTanh, k::kRnnTanh}};
    const bool drawn = n % 4 == 3;
    if (drawn)
      c.hasClip = true;
    for (int64_t d = 0; d < c.dirs; ++d)
      for (int a = 0; a < 3; ++a) {
        int code = defaults[cell][a];
        if (drawn && a == 0 && cell != k::kRnnCellRnn)
          code = rng.below(2) ? k::kRnnSigmoid : k::kRnnHardSigmoid;
        else if (drawn)
          code = rng.below(11);
        draw_act(rng, c.acts, code);
      }
    std::string e = run_case(c, 7 * n + cell, worst);
    if (!e.empty()) {
      if (!bad)
        detail = describe(c) + ": " + e;
      ++bad;
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, " (worst relative error %.2g)", worst);
  report(std::string("recurrent ") + name + buf, bad, detail);
}

/// A batch-1 GRU of the benchmark's size, over a longer sequence.
void test_long_sequence() {
  Case c;
  c.cell = k::kRnnCellGru;
  c.seq = 64;
  c.hidden = 128;
  c.dirs = 2;
  c.lbr = true;
  for (int64_t d = 0; d < 2; ++d)
    for (int code : {k::kRnnSigmoid, k::kRnnTanh, k::kRnnTanh})
      c.acts.insert(c.acts.end(), {static_cast<float>(code), 0.0f, 0.0f});
  double worst = 0;
  std::string e = run_case(c, 99, worst);
  report("recurrent gru seq 64 hidden 128 bidirectional", !e.empty(), e);
}

/// A length outside [0, seq] is status kStatusRnnLength, before any write.
void test_bad_lengths() {
  const int64_t H = 4;
  std::vector<float> xw(2 * 3 * H), packed(k::packed_recurrent_r_floats(kIsa, 1, 1, H)),
      scratch(k::recurrent_scratch_floats(kIsa, 1, 1, H, 1)), y(2 * H, 5.0f),
      acts = {0, 0, 0, 1, 0, 0, 1, 0, 0};
  int bad = 0;
  for (int32_t len : {-1, 3}) {
    int rc = k::recurrent(xw.data(), packed.data(), xw.data(), 0, xw.data(), 0, &len, 1,
                          xw.data(), 0, xw.data(), 0, y.data(), 1, y.data(), 0, y.data(), 0,
                          scratch.data(), acts.data(), 2, 1, H, 1, k::kRnnCellGru, 0, 0, 1, 0, 0,
                          0, 0, 1, kIsa);
    bad += rc != k::kStatusRnnLength || y[0] != 5.0f;
  }
  report("recurrent sequence_lens outside [0, seq]", bad, bad ? "not status 16" : "");
}

} // namespace

int main() {
  std::printf("ISA %d (gemm_nr %d)\n", kIsa, k::gemm_nr(kIsa));
  test_cells(k::kRnnCellRnn, "rnn");
  test_cells(k::kRnnCellGru, "gru");
  test_cells(k::kRnnCellLstm, "lstm");
  test_long_sequence();
  test_bad_lengths();
  std::printf("%s: %d group(s) failed\n", g_failures ? "FAILED" : "ALL PASSED", g_failures);
  return g_failures ? 1 : 0;
}
