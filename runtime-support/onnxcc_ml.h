//===- onnxcc_ml.h - Classical ML (ai.onnx.ml) kernels --------------------===//
//
// Part of onnxcc's runtime support: generated code that uses an ai.onnx.ml
// operator includes this header (after onnxcc_rt.h). The lowering
// (lowering/OnnxToLinalg/ClassicalML.cpp) turns each op's attributes into
// constant arrays at compile time and calls one function here per op.
//
// Numerics follow ONNX Runtime: scores accumulate in the type of the
// thresholds and weights (float, or double for the *_as_tensor attributes),
// and the post transforms (SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT) are
// computed in float as ONNX Runtime does.
//
// Strings are `const char *` (see ABI.md). A string the model holds (a class
// label, a LabelEncoder value) is written as a pointer into the model's
// constant data: `chars` + an offset, valid as long as the weights are.
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_ML_H
#define ONNXCC_ML_H

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace onnxcc_rt {
namespace ml {

/// run() returns this for data the model cannot map: an index out of range
/// (ArrayFeatureExtractor), an unknown category (OneHotEncoder, zeros=0).
/// (10 and 11 are onnxcc_rt's data-dependent bound and invalid branch.)
constexpr int status_bad_value = 12;

/// Post transforms as TreeEnsemble-5 numbers them.
enum : int32_t {
  post_none = 0,
  post_softmax = 1,
  post_logistic = 2,
  post_softmax_zero = 3,
  post_probit = 4
};
/// Aggregate functions as TreeEnsemble-5 numbers them.
enum : int32_t { aggregate_average = 0, aggregate_sum = 1, aggregate_min = 2, aggregate_max = 3 };
/// Node modes as TreeEnsemble-5 numbers them.
enum : int64_t {
  mode_leq = 0,
  mode_lt = 1,
  mode_gte = 2,
  mode_gt = 3,
  mode_eq = 4,
  mode_neq = 5,
  mode_member = 6
};

inline float logistic(float v) {
  float e = 1.0f / (1.0f + std::exp(-std::fabs(v)));
  return v < 0 ? 1.0f - e : e;
}

/// The inverse error function by Winitzki's approximation (a = 0.147), as
/// ONNX Runtime computes PROBIT.
inline float erf_inv(float x) {
  float sign = x < 0 ? -1.0f : 1.0f;
  float l = std::log((1 - x) * (1 + x));
  float a = 2 / (3.14159f * 0.147f) + 0.5f * l;
  float b = 1 / 0.147f * l;
  return sign * std::sqrt(-a + std::sqrt(a * a - b));
}

inline float probit(float v) { return 1.41421356f * erf_inv(2 * v - 1); }

/// Softmax of `n` scores in place, in float.
template <typename T> void softmax(T *v, int64_t n, bool skip_zeros) {
  float top = -std::numeric_limits<float>::max();
  for (int64_t i = 0; i < n; ++i)
    top = std::max(top, static_cast<float>(v[i]));
  float scale = std::exp(-top), sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    float x = static_cast<float>(v[i]);
    if (skip_zeros && !(x > 1e-7f || x < -1e-7f)) {
      v[i] = static_cast<T>(x * scale);
      continue;
    }
    v[i] = static_cast<T>(std::exp(x - top));
    sum += static_cast<float>(v[i]);
  }
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(static_cast<float>(v[i]) / sum);
}

/// `post` applied to the `n` scores at `v` (n >= 2, or a regression target).
template <typename T> void post_transform(T *v, int64_t n, int32_t post) {
  switch (post) {
  case post_softmax:
  case post_softmax_zero:
    if (n >= 2 || post == post_softmax_zero)
      softmax(v, n, post == post_softmax_zero);
    else
      softmax(v, n, false);
    break;
  case post_logistic:
    for (int64_t i = 0; i < n; ++i)
      v[i] = static_cast<T>(logistic(static_cast<float>(v[i])));
    break;
  case post_probit:
    for (int64_t i = 0; i < n; ++i)
      v[i] = static_cast<T>(probit(static_cast<float>(v[i])));
    break;
  default:
    break;
  }
}

/// Writes label `k` of a table: an int64, or (when `strings`) the string at
/// chars + values[k].
inline void write_label(void *out, int64_t i, const int64_t *values, const char *chars,
                        bool strings, int64_t k) {
  if (strings) {
    const char *s = chars + values[k];
    std::memcpy(static_cast<char *>(out) + i * sizeof(s), &s, sizeof(s));
  } else {
    std::memcpy(static_cast<char *>(out) + i * sizeof(int64_t), &values[k], sizeof(int64_t));
  }
}

//===----------------------------------------------------------------------===//
// Tree ensembles
//===----------------------------------------------------------------------===//

constexpr int32_t uniform_no_missing = 8;
/// Added to a fast walk's uniform mode when the node records are packed for
/// it (float thresholds): {feature | 2^31 when a missing value goes the true
/// way, the threshold's bits, true child, false child}, one load a step.
constexpr int32_t uniform_packed = 16;

/// Rows a tree ensemble evaluates together: every tree is walked for a block
/// of rows before the next, so that its nodes stay in cache.
constexpr int64_t tree_block = 64;

/// A tree ensemble flattened at compile time (every version of the three
/// ops). Node i is nodes[4 i .. 4 i + 4) = {feature, true child, false
/// child, mode (| 16 when a missing value goes the true way)} and
/// node_split[i]. Nodes num_nodes + l stand for leaf l: both their children
/// are themselves, so a walk may take more steps than a tree is deep. A
/// MEMBER node's set is member_values[member_begin[i] .. member_begin[i +
/// 1]). Leaf l adds leaf_weight[j] to target leaf_target[j] for j in
/// leaf_begin[l] .. leaf_begin[l + 1]. Tree t starts at node roots[t] and
/// reaches a leaf in at most tree_depth[t] steps. `uniform_mode` is
/// mode_leq or mode_lt when every node has that mode (the fast walk), plus
/// uniform_no_missing when no node sends a missing value the true way, plus
/// uniform_packed when `nodes` holds the packed records; else -1.
template <typename S> struct tree_ensemble {
  const int32_t *nodes;
  const S *node_split;
  const int64_t *member_begin;
  const S *member_values;
  const int64_t *leaf_begin;
  const int64_t *leaf_target;
  const S *leaf_weight;
  const int64_t *roots;
  const int64_t *tree_depth;
  int64_t num_nodes;
  int64_t num_trees;
  int64_t num_targets;
  int64_t num_features;
  int32_t uniform_mode;
};

/// Whether value `v` goes the true way at node `i` (`n` its record).
template <typename S>
bool branch_true(const tree_ensemble<S> &e, const int32_t *n, int64_t i, S v) {
  S split = e.node_split[i];
  if (std::isnan(v))
    return (n[3] & 16) != 0;
  switch (n[3] & 15) {
  case mode_leq:
    return v <= split;
  case mode_lt:
    return v < split;
  case mode_gte:
    return v >= split;
  case mode_gt:
    return v > split;
  case mode_eq:
    return v == split;
  case mode_neq:
    return v != split;
  default:
    for (int64_t k = e.member_begin[i]; k < e.member_begin[i + 1]; ++k)
      if (e.member_values[k] == v)
        return true;
    return false;
  }
}

/// The leaf row `x` reaches from `child` (a root); Mode is the ensemble's
/// uniform mode (without uniform_no_missing), or -1 for any.
template <int Mode, bool Packed, typename S, typename X>
int64_t find_leaf(const tree_ensemble<S> &e, const X *x, int64_t child) {
  while (child < e.num_nodes) {
    const int32_t *n = e.nodes + 4 * child;
    if (Packed) {
      float split;
      std::memcpy(&split, n + 1, sizeof(split));
      S v = static_cast<S>(x[n[0] & 0x7fffffff]);
      bool go_true = (Mode == mode_leq ? v <= split : v < split) | ((v != v) & (n[0] < 0));
      child = go_true ? n[2] : n[3];
      continue;
    }
    S v = static_cast<S>(x[n[0]]);
    bool go_true;
    if (Mode == mode_leq || Mode == mode_lt) {
      S split = e.node_split[child];
      go_true = (Mode == mode_leq ? v <= split : v < split) | ((v != v) & ((n[3] & 16) != 0));
    } else {
      go_true = branch_true(e, n, child, v);
    }
    child = go_true ? n[1] : n[2];
  }
  return child - e.num_nodes;
}

/// Adds the votes of leaf `leaf` to one row's scores and has flags.
template <typename S>
void add_leaf(const tree_ensemble<S> &e, int64_t leaf, int32_t aggregate, S *scores, int8_t *has) {
  for (int64_t j = e.leaf_begin[leaf]; j < e.leaf_begin[leaf + 1]; ++j) {
    int64_t t = e.leaf_target[j];
    S w = e.leaf_weight[j];
    if (aggregate == aggregate_min)
      scores[t] = !has[t] || w < scores[t] ? w : scores[t];
    else if (aggregate == aggregate_max)
      scores[t] = !has[t] || w > scores[t] ? w : scores[t];
    else
      scores[t] += w;
    has[t] = 1;
  }
}

/// Rows walked through one tree in lockstep: their independent chains of
/// node loads overlap.
constexpr int64_t tree_lanes = 8;

template <int Mode, bool Missing, bool Packed, typename S, typename X>
void aggregate_block_mode(const tree_ensemble<S> &e, const X *x, int64_t rows, int32_t aggregate,
                          S *scores, int8_t *has) {
  int64_t n = e.num_targets, f = e.num_features;
  for (int64_t tree = 0; tree < e.num_trees; ++tree) {
    int64_t root = e.roots[tree];
    int64_t r = 0;
    if (Mode == mode_leq || Mode == mode_lt) {
      // Every lane takes the tree's depth in steps (leaves loop on
      // themselves): no branch but the comparison's select.
      int64_t depth = e.tree_depth[tree];
      for (; r + tree_lanes <= rows; r += tree_lanes) {
        int32_t child[tree_lanes];
        for (int64_t k = 0; k < tree_lanes; ++k)
          child[k] = static_cast<int32_t>(root);
        for (int64_t d = 0; d < depth; ++d)
          for (int64_t k = 0; k < tree_lanes; ++k) {
            const int32_t *node = e.nodes + 4 * static_cast<int64_t>(child[k]);
            if (Packed) {
              float split;
              std::memcpy(&split, node + 1, sizeof(split));
              S v = static_cast<S>(x[(r + k) * f + (node[0] & 0x7fffffff)]);
              bool go_true = Mode == mode_leq ? v <= split : v < split;
              if (Missing)
                go_true |= (v != v) & (node[0] < 0);
              child[k] = node[3 - static_cast<int>(go_true)];
              continue;
            }
            S v = static_cast<S>(x[(r + k) * f + node[0]]);
            S split = e.node_split[child[k]];
            bool go_true = Mode == mode_leq ? v <= split : v < split;
            if (Missing)
              go_true |= (v != v) & ((node[3] & 16) != 0);
            // An indexed load, not a branch: the way is data-dependent.
            child[k] = node[2 - static_cast<int>(go_true)];
          }
        for (int64_t k = 0; k < tree_lanes; ++k) {
          int64_t leaf = child[k] - e.num_nodes;
          if (aggregate == aggregate_min || aggregate == aggregate_max) {
            add_leaf(e, leaf, aggregate, scores + (r + k) * n, has + (r + k) * n);
            continue;
          }
          for (int64_t j = e.leaf_begin[leaf]; j < e.leaf_begin[leaf + 1]; ++j) {
            int64_t at = (r + k) * n + e.leaf_target[j];
            scores[at] += e.leaf_weight[j];
            has[at] = 1;
          }
        }
      }
    }
    for (; r < rows; ++r)
      add_leaf(e, find_leaf<Mode, Packed>(e, x + r * f, root), aggregate, scores + r * n,
               has + r * n);
  }
}

/// Aggregates the trees' votes for `rows` (at most tree_block) rows from x
/// into scores[r * num_targets + t] and has[...] (whether a tree voted for
/// the target), tree by tree.
template <typename S, typename X>
void aggregate_block(const tree_ensemble<S> &e, const X *x, int64_t rows, int32_t aggregate,
                     S *scores, int8_t *has) {
  std::fill(scores, scores + rows * e.num_targets, S(0));
  std::fill(has, has + rows * e.num_targets, int8_t(0));
  int32_t mode = e.uniform_mode;
  bool packed = mode >= uniform_packed;
  if (packed)
    mode -= uniform_packed;
  // A block without a missing value takes the walk that does not test for
  // one.
  if (mode == mode_leq || mode == mode_lt) {
    bool any_nan = false;
    for (int64_t i = 0; i < rows * e.num_features; ++i)
      any_nan |= x[i] != x[i];
    if (!any_nan)
      mode += uniform_no_missing;
  }
  if (packed) {
    switch (mode) {
    case mode_leq:
      return aggregate_block_mode<mode_leq, true, true>(e, x, rows, aggregate, scores, has);
    case mode_lt:
      return aggregate_block_mode<mode_lt, true, true>(e, x, rows, aggregate, scores, has);
    case mode_leq + uniform_no_missing:
      return aggregate_block_mode<mode_leq, false, true>(e, x, rows, aggregate, scores, has);
    default:
      return aggregate_block_mode<mode_lt, false, true>(e, x, rows, aggregate, scores, has);
    }
  }
  switch (mode) {
  case mode_leq:
    return aggregate_block_mode<mode_leq, true, false>(e, x, rows, aggregate, scores, has);
  case mode_lt:
    return aggregate_block_mode<mode_lt, true, false>(e, x, rows, aggregate, scores, has);
  case mode_leq + uniform_no_missing:
    return aggregate_block_mode<mode_leq, false, false>(e, x, rows, aggregate, scores, has);
  case mode_lt + uniform_no_missing:
    return aggregate_block_mode<mode_lt, false, false>(e, x, rows, aggregate, scores, has);
  default:
    return aggregate_block_mode<-1, true, false>(e, x, rows, aggregate, scores, has);
  }
}

/// TreeEnsembleRegressor and TreeEnsemble: rows [begin, end) of `x`
/// ([rows, num_features]) into `out` ([rows, num_targets]). `base` holds
/// num_base base values (added per target when there is one per target).
/// `scores` and `has` hold tree_block * num_targets values.
template <typename S, typename X, typename O>
int tree_regressor(const tree_ensemble<S> &e, const X *x, int64_t begin, int64_t end,
                   int32_t aggregate, int32_t post, const S *base, int64_t num_base, O *out,
                   S *scores, int8_t *has) {
  int64_t n = e.num_targets;
  for (int64_t b = begin; b < end; b += tree_block) {
    int64_t rows = std::min(tree_block, end - b);
    aggregate_block(e, x + b * e.num_features, rows, aggregate, scores, has);
    for (int64_t i = 0; i < rows; ++i) {
      int64_t r = b + i;
      for (int64_t t = 0; t < n; ++t) {
        S v = scores[i * n + t];
        if (aggregate == aggregate_average)
          v /= static_cast<S>(e.num_trees);
        if (num_base == n)
          v += base[t];
        out[r * n + t] = static_cast<O>(v);
      }
      if (n == 1) {
        if (post == post_probit)
          out[r] = static_cast<O>(probit(static_cast<float>(out[r])));
      } else {
        post_transform(out + r * n, n, post);
      }
    }
  }
  return 0;
}

/// One row of tree_classifier from its aggregated scores.
template <typename S>
void classify_row(int64_t n, int32_t post, const S *base, int64_t num_base,
                  const int64_t *class_labels, const char *chars, bool strings, bool binary,
                  bool all_positive, void *y, int64_t r, float *zr, int64_t z_width, S *scores,
                  int8_t *has) {
  if (n > 2) {
    for (int64_t k = 0; k < num_base && k < n; ++k) {
      scores[k] = has[k] ? scores[k] + base[k] : base[k];
      has[k] = 1;
    }
    int64_t best = -1;
    S top = 0;
    for (int64_t k = 0; k < n; ++k)
      if (has[k] && (best < 0 || scores[k] > top)) {
        best = k;
        top = scores[k];
      }
    write_label(y, r, class_labels, chars, strings, best < 0 ? 0 : best);
    for (int64_t k = 0; k < n; ++k)
      zr[k] = static_cast<float>(scores[k]);
    post_transform(zr, n, post);
    return;
  }
  // Two classes (ONNX Runtime's binary rules).
  int64_t count = 2;
  int add_second = -1;
  if (num_base == 2) {
    if (has[1]) {
      scores[1] = base[1] + scores[0];
      scores[0] = -scores[1];
    } else {
      scores[1] += base[1];
      scores[0] += base[0];
    }
  } else if (num_base == 1) {
    scores[0] += base[0];
    if (!has[1])
      count = 1;
  } else if (num_base == 0) {
    add_second = 3;
    if (!has[1])
      count = 1;
  }
  S positive = count == 2 && has[1] ? scores[1] : (has[0] ? scores[0] : 0);
  int64_t label;
  if (binary) {
    if (all_positive) {
      label = positive > S(0.5) ? 1 : 0;
      add_second = label ? 0 : 1;
    } else {
      label = positive > 0 ? 1 : 0;
      add_second = label ? 2 : 3;
    }
  } else {
    label = positive > 0 ? 1 : 0;
  }
  write_label(y, r, class_labels, chars, strings, label);
  if (count == 2) {
    zr[0] = static_cast<float>(scores[0]);
    zr[1] = static_cast<float>(scores[1]);
    post_transform(zr, 2, post);
    return;
  }
  float s = static_cast<float>(scores[0]);
  if (post == post_probit) {
    zr[0] = probit(s);
    if (z_width > 1)
      zr[1] = 0;
  } else if (add_second == 0 || add_second == 1) {
    zr[0] = 1 - s;
    zr[1] = s;
  } else if (add_second == 2 || add_second == 3) {
    zr[0] = post == post_logistic ? logistic(-s) : -s;
    zr[1] = post == post_logistic ? logistic(s) : s;
  } else {
    zr[0] = s;
    if (z_width > 1)
      zr[1] = 0;
  }
}

/// TreeEnsembleClassifier: labels into `y` (class_labels / chars as in
/// write_label) and scores into `z` ([rows, z_width]) as ONNX Runtime
/// decides them, binary cases included: `binary` when there are two labels
/// and every vote is for one class id; `all_positive` when no weight is
/// negative.
template <typename S, typename X>
int tree_classifier(const tree_ensemble<S> &e, const X *x, int64_t begin, int64_t end, int32_t post,
                    const S *base, int64_t num_base, const int64_t *class_labels, const char *chars,
                    bool strings, bool binary, bool all_positive, void *y, float *z,
                    int64_t z_width, S *scores_block, int8_t *has_block) {
  int64_t n = e.num_targets;
  for (int64_t b = begin; b < end; b += tree_block) {
    int64_t rows = std::min(tree_block, end - b);
    aggregate_block(e, x + b * e.num_features, rows, aggregate_sum, scores_block, has_block);
    for (int64_t i = 0; i < rows; ++i)
      classify_row(n, post, base, num_base, class_labels, chars, strings, binary, all_positive, y,
                   b + i, z + (b + i) * z_width, z_width, scores_block + i * n, has_block + i * n);
  }
  return 0;
}

/// The ensemble of the arrays the lowering made (see tree_ensemble).
#define ONNXCC_ML_ENSEMBLE_PARAMS                                                                  \
  int64_t num_features, const int32_t *nodes, const S *node_split, int64_t num_nodes,              \
      int32_t uniform_mode, const int64_t *member_begin, const S *member_values,                   \
      const int64_t *leaf_begin, const int64_t *leaf_target, const S *leaf_weight,                 \
      const int64_t *roots, const int64_t *tree_depth, int64_t num_trees, int64_t num_targets
#define ONNXCC_ML_ENSEMBLE                                                                         \
  tree_ensemble<S> {                                                                               \
    nodes, node_split, member_begin, member_values, leaf_begin, leaf_target, leaf_weight, roots,   \
        tree_depth, num_nodes, num_trees, num_targets, num_features, uniform_mode                  \
  }

/// Rows [begin, end) of part `part` of `parts` of `rows`.
inline void part_rows(int64_t rows, int64_t part, int64_t parts, int64_t &begin, int64_t &end) {
  begin = rows * part / parts;
  end = rows * (part + 1) / parts;
}

/// TreeEnsembleRegressor / TreeEnsemble over part `part` of `parts` of the
/// rows; `scores` and `has` hold tree_block * num_targets values per part.
template <typename S, typename X, typename O>
int tree_ensemble_regressor(const X *x, int64_t rows, int64_t part, int64_t parts,
                            ONNXCC_ML_ENSEMBLE_PARAMS, int32_t aggregate, int32_t post,
                            const S *base, int64_t num_base, O *out, S *scores, int8_t *has) {
  int64_t begin, end;
  part_rows(rows, part, parts, begin, end);
  return tree_regressor(ONNXCC_ML_ENSEMBLE, x, begin, end, aggregate, post, base, num_base, out,
                        scores + part * tree_block * num_targets,
                        has + part * tree_block * num_targets);
}

/// TreeEnsembleClassifier over part `part` of `parts` of the rows.
template <typename S, typename X>
int tree_ensemble_classifier(const X *x, int64_t rows, int64_t part, int64_t parts,
                             ONNXCC_ML_ENSEMBLE_PARAMS, int32_t post, const S *base,
                             int64_t num_base, const int64_t *class_labels, const int8_t *chars,
                             bool strings, bool binary, bool all_positive, void *y, float *z,
                             int64_t z_width, S *scores, int8_t *has) {
  int64_t begin, end;
  part_rows(rows, part, parts, begin, end);
  return tree_classifier(ONNXCC_ML_ENSEMBLE, x, begin, end, post, base, num_base, class_labels,
                         reinterpret_cast<const char *>(chars), strings, binary, all_positive, y, z,
                         z_width, scores + part * tree_block * num_targets,
                         has + part * tree_block * num_targets);
}

#undef ONNXCC_ML_ENSEMBLE_PARAMS
#undef ONNXCC_ML_ENSEMBLE

//===----------------------------------------------------------------------===//
// Transforms and linear models
//===----------------------------------------------------------------------===//

/// Binarizer: 1 where x > threshold, else 0.
template <typename T> int binarizer(const T *x, int64_t n, const double *threshold, T *y) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<double>(x[i]) > *threshold ? T(1) : T(0);
  return 0;
}

/// Imputer: x == replaced (or NaN when replaced is NaN) becomes the imputed
/// value of its column (one value for all columns when num_imputed is 1).
template <typename T>
int imputer(const T *x, int64_t n, int64_t cols, const T *imputed, int64_t num_imputed,
            const T *replaced_value, T *y) {
  T replaced = *replaced_value;
  bool nan = replaced != replaced;
  for (int64_t i = 0; i < n; ++i) {
    T v = x[i];
    bool hit = nan ? v != v : v == replaced;
    y[i] = hit ? imputed[num_imputed == 1 ? 0 : i % cols] : v;
  }
  return 0;
}

/// Scaler: (x - offset) * scale per column (a single value for all).
template <typename T>
int scaler(const T *x, int64_t n, int64_t cols, const float *offset, int64_t num_offset,
           const float *scale, int64_t num_scale, float *y) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = i % cols;
    float o = offset[num_offset == 1 ? 0 : c], s = scale[num_scale == 1 ? 0 : c];
    y[i] = (static_cast<float>(x[i]) - o) * s;
  }
  return 0;
}

/// Normalizer of each row: norm 0 MAX, 1 L1, 2 L2.
template <typename T>
int normalizer(const T *x, int64_t rows, int64_t cols, int32_t norm, float *y) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * cols;
    float *yr = y + r * cols;
    for (int64_t c = 0; c < cols; ++c)
      yr[c] = static_cast<float>(xr[c]);
    float d = 0;
    if (norm == 0) {
      d = -std::numeric_limits<float>::max();
      for (int64_t c = 0; c < cols; ++c)
        d = std::max(d, yr[c]);
    } else if (norm == 1) {
      for (int64_t c = 0; c < cols; ++c)
        d += std::fabs(yr[c]);
    } else {
      for (int64_t c = 0; c < cols; ++c)
        d += yr[c] * yr[c];
      d = std::sqrt(d);
    }
    if (d != 0)
      for (int64_t c = 0; c < cols; ++c)
        yr[c] /= d;
  }
  return 0;
}

/// ArrayFeatureExtractor: y[r, j] = x[r, indices[j]] over the last dim.
/// Returns status_bad_value (an index out of range) before writing anything.
template <typename T>
int array_feature_extractor(const T *x, int64_t rows, int64_t cols, const int64_t *indices,
                            int64_t k, T *y) {
  for (int64_t j = 0; j < k; ++j)
    if (indices[j] < 0 || indices[j] >= cols)
      return status_bad_value;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < k; ++j)
      y[r * k + j] = x[r * cols + indices[j]];
  return 0;
}

/// The scores x . coefficients^T + intercepts of `classes` linear models.
template <typename T>
void linear_scores(const T *xr, int64_t cols, const float *coef, const float *intercepts,
                   int64_t num_intercepts, int64_t classes, float *out, bool given) {
  if (given) { // a GEMM computed them: x is [rows, classes]
    for (int64_t k = 0; k < classes; ++k)
      out[k] = static_cast<float>(xr[k]);
    return;
  }
  for (int64_t k = 0; k < classes; ++k) {
    float s = 0;
    for (int64_t c = 0; c < cols; ++c)
      s += static_cast<float>(xr[c]) * coef[k * cols + c];
    out[k] = s + (num_intercepts ? intercepts[k] : 0.0f);
  }
}

/// LinearRegressor: [rows, targets]. With `given`, x holds the scores
/// ([rows, targets], a GEMM's: cols is targets) and only the post
/// transform is left.
template <typename T>
int linear_regressor(const T *x, int64_t rows, int64_t cols, const float *coef,
                     const float *intercepts, int64_t num_intercepts, int64_t targets, int32_t post,
                     float *y, bool given = false) {
  for (int64_t r = 0; r < rows; ++r) {
    linear_scores(x + r * cols, cols, coef, intercepts, num_intercepts, targets, y + r * targets,
                  given);
    if (targets == 1 && post == post_probit)
      y[r] = probit(y[r]);
    else if (targets > 1 || post != post_softmax)
      post_transform(y + r * targets, targets, post);
  }
  return 0;
}

/// LinearClassifier as ONNX Runtime computes it: `classes` score columns
/// (one with two labels: the second class is added), labels by the best
/// score (> 0 for one column). With `given`, x holds the scores ([rows,
/// classes], a GEMM's: cols is classes).
template <typename T>
int linear_classifier(const T *x, int64_t rows, int64_t cols, const float *coef,
                      const float *intercepts, int64_t num_intercepts, int64_t classes,
                      int32_t post, const int64_t *class_labels, const int8_t *label_chars,
                      bool strings, int64_t num_labels, void *y, float *z, int64_t z_width,
                      bool given = false) {
  const char *chars = reinterpret_cast<const char *>(label_chars);
  for (int64_t r = 0; r < rows; ++r) {
    float *zr = z + r * z_width;
    linear_scores(x + r * cols, cols, coef, intercepts, num_intercepts, classes, zr, given);
    if (classes == 1) {
      float s = zr[0];
      int64_t label = s > 0 ? 1 : 0;
      if (num_labels == 2) {
        write_label(y, r, class_labels, chars, strings, label);
        // ONNX Runtime: the transformed score v and its complement 1 - v.
        float v = post == post_logistic ? logistic(s) : post == post_probit ? probit(s) : s;
        zr[0] = 1 - v;
        zr[1] = v;
      } else {
        // One label: the positive class is the label, else 0 / "".
        write_label(y, r, class_labels, chars, strings, 0);
        post_transform(zr, 1, post == post_softmax ? post_none : post);
      }
      continue;
    }
    int64_t best = 0;
    for (int64_t k = 1; k < classes; ++k)
      if (zr[k] > zr[best])
        best = k;
    write_label(y, r, class_labels, chars, strings, best);
    post_transform(zr, classes, post);
  }
  return 0;
}

/// The SVM kernel (0 LINEAR, 1 POLY, 2 RBF, 3 SIGMOID) of row `x` and
/// vector `v`, in float; params are gamma, coef0 and degree.
template <typename T>
float svm_kernel(const T *x, const float *v, int64_t cols, int32_t kernel, const float *params) {
  float s = 0;
  if (kernel == 2) {
    for (int64_t c = 0; c < cols; ++c) {
      float d = static_cast<float>(x[c]) - v[c];
      s += d * d;
    }
    return std::exp(-params[0] * s);
  }
  for (int64_t c = 0; c < cols; ++c)
    s += static_cast<float>(x[c]) * v[c];
  if (kernel == 1)
    return std::pow(params[0] * s + params[1], params[2]);
  if (kernel == 3)
    return std::tanh(params[0] * s + params[1]);
  return s;
}

/// Support vectors the lowering lays out in blocks of this many: block b
/// holds, for each feature c, the c-th value of vectors 16b .. 16b + 15
/// (zeros past the last vector).
constexpr int64_t svm_block = 16;

/// The kernels of row `x` with all `num_sv` support vectors (`blocked` as
/// above) into `out`: each sums over the features in order, as svm_kernel
/// does, so the values are the same bits; sixteen vectors at a time, the
/// lanes a compiler vectorizes.
template <typename T>
void svm_kernels(const T *x, const float *blocked, int64_t num_sv, int64_t cols, int32_t kernel,
                 const float *params, float *out) {
  for (int64_t b = 0; b * svm_block < num_sv; ++b) {
    const float *v = blocked + b * cols * svm_block;
    float acc[svm_block] = {};
    if (kernel == 2) {
      for (int64_t c = 0; c < cols; ++c) {
        float xc = static_cast<float>(x[c]);
        for (int64_t l = 0; l < svm_block; ++l) {
          float d = xc - v[c * svm_block + l];
          acc[l] += d * d;
        }
      }
    } else {
      for (int64_t c = 0; c < cols; ++c) {
        float xc = static_cast<float>(x[c]);
        for (int64_t l = 0; l < svm_block; ++l)
          acc[l] += xc * v[c * svm_block + l];
      }
    }
    int64_t n = std::min(svm_block, num_sv - b * svm_block);
    for (int64_t l = 0; l < n; ++l) {
      float s = acc[l];
      if (kernel == 2)
        s = std::exp(-params[0] * s);
      else if (kernel == 1)
        s = std::pow(params[0] * s + params[1], params[2]);
      else if (kernel == 3)
        s = std::tanh(params[0] * s + params[1]);
      out[b * svm_block + l] = s;
    }
  }
}

/// SVMRegressor: the sum over the num_sv support vectors (`support` in
/// blocks, see svm_block) of coef * kernel plus rho (without support
/// vectors: the linear model x . coef + rho); one_class gives 1 or -1 by
/// its sign. `kernels` holds num_sv floats of scratch.
template <typename T>
int svm_regressor(const T *x, int64_t rows, int64_t cols, const float *support, int64_t num_sv,
                  const float *coef, const float *rho, int32_t kernel, const float *params,
                  bool one_class, float *y, float *kernels) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * cols;
    float s = 0;
    if (num_sv > 0) {
      svm_kernels(xr, support, num_sv, cols, kernel, params, kernels);
      for (int64_t j = 0; j < num_sv; ++j)
        s += coef[j] * kernels[j];
    } else {
      s = svm_kernel(xr, coef, cols, 0, params);
    }
    s += rho[0];
    y[r] = one_class ? (s > 0 ? 1.0f : -1.0f) : s;
  }
  return 0;
}

/// The class probabilities `p` (k of them) that fit the pairwise ones `r`
/// (k x k, r[i][j] = P(i | i or j)) best, by the fixed-point iteration of
/// Wu, Lin and Weng (2004, method 2) in float with at most 100 steps, as
/// ONNX Runtime runs it. `q` holds k * k + k floats of scratch.
inline void pairwise_coupling(int64_t k, const float *r, float *p, float *q) {
  float *qp = q + k * k;
  float eps = 0.005f / static_cast<float>(k);
  for (int64_t i = 0; i < k; ++i) {
    p[i] = 1.0f / static_cast<float>(k);
    q[i * k + i] = 0;
    for (int64_t j = 0; j < i; ++j) {
      q[i * k + i] += r[j * k + i] * r[j * k + i];
      q[i * k + j] = q[j * k + i];
    }
    for (int64_t j = i + 1; j < k; ++j) {
      q[i * k + i] += r[j * k + i] * r[j * k + i];
      q[i * k + j] = -r[j * k + i] * r[i * k + j];
    }
  }
  for (int step = 0; step < 100; ++step) {
    float pqp = 0;
    for (int64_t i = 0; i < k; ++i) {
      qp[i] = 0;
      for (int64_t j = 0; j < k; ++j)
        qp[i] += q[i * k + j] * p[j];
      pqp += p[i] * qp[i];
    }
    float worst = 0;
    for (int64_t i = 0; i < k; ++i)
      worst = std::max(worst, std::fabs(qp[i] - pqp));
    if (worst < eps)
      break;
    for (int64_t i = 0; i < k; ++i) {
      float diff = (pqp - qp[i]) / q[i * k + i];
      p[i] += diff;
      pqp = (pqp + diff * (diff * q[i * k + i] + 2 * qp[i])) / (1 + diff) / (1 + diff);
      for (int64_t j = 0; j < k; ++j) {
        qp[j] = (qp[j] + diff * q[i * k + j]) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
}

/// SVMClassifier as ONNX Runtime computes it. With support vectors
/// (`num_sv` > 0, `per_class` of them per class, in class order; `support`
/// in blocks, see svm_block): the
/// kernel of the row with each, then one decision value per pair of classes
/// i < j (coef row j - 1 over class i's vectors plus coef row i over class
/// j's, plus rho), each a vote for i (> 0) or j; the label is the first
/// class with the most votes. The scores are the decision values (two
/// classes: two columns from the one value s, see below), or
/// with prob_a/prob_b the class probabilities from the pairwise Platt
/// sigmoids (pairwise_coupling). Without support vectors, `classes` linear
/// scores x . coef + rho[0], labelled by the best (two classes: the second
/// when the best is > 0, or >= 0.5 with non-negative coefficients).
/// `scratch` holds num_sv + 3 * classes^2 + classes floats, `votes`
/// classes integers.
template <typename T>
int svm_classifier(const T *x, int64_t rows, int64_t cols, const float *support, int64_t num_sv,
                   const int64_t *per_class, int64_t classes, const float *coef,
                   const float *rho, const float *prob_a, const float *prob_b, bool proba,
                   int32_t kernel, const float *params, int32_t post, bool coef_positive,
                   const int64_t *class_labels, const int8_t *label_chars, bool strings,
                   void *y, float *z, int64_t z_width, float *scratch, int64_t *votes) {
  const char *chars = reinterpret_cast<const char *>(label_chars);
  float *kernels = scratch;
  float *pairs = kernels + num_sv;
  float *pairwise = pairs + classes * classes;
  float *q = pairwise + classes * classes;
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * cols;
    float *zr = z + r * z_width;
    if (num_sv == 0) {
      // Linear: a score per class.
      float best_score = 0;
      int64_t best = 0;
      for (int64_t k = 0; k < classes; ++k) {
        zr[k] = svm_kernel(xr, coef + k * cols, cols, 0, params) + rho[0];
        if (k == 0 || zr[k] > best_score)
          best_score = zr[k], best = k;
      }
      if (classes == 2 && !proba &&
          ((coef_positive && best_score >= 0.5f) || (!coef_positive && best_score > 0)))
        best = 1;
      write_label(y, r, class_labels, chars, strings, best);
      post_transform(zr, classes, post);
      continue;
    }
    svm_kernels(xr, support, num_sv, cols, kernel, params, kernels);
    for (int64_t k = 0; k < classes; ++k)
      votes[k] = 0;
    int64_t pair = 0;
    for (int64_t i = 0, start_i = 0; i < classes; start_i += per_class[i], ++i) {
      for (int64_t j = i + 1, start_j = start_i + per_class[i]; j < classes;
           start_j += per_class[j], ++j) {
        double sum = 0;
        for (int64_t m = 0; m < per_class[i]; ++m)
          sum += coef[(j - 1) * num_sv + start_i + m] * kernels[start_i + m];
        for (int64_t m = 0; m < per_class[j]; ++m)
          sum += coef[i * num_sv + start_j + m] * kernels[start_j + m];
        sum += rho[pair];
        pairs[pair++] = static_cast<float>(sum);
        ++votes[sum > 0 ? i : j];
      }
    }
    int64_t best = 0;
    for (int64_t k = 1; k < classes; ++k)
      if (votes[k] > votes[best])
        best = k;
    write_label(y, r, class_labels, chars, strings, best);
    if (proba) {
      // Platt's sigmoid per pair, kept off 0 and 1, then the coupling.
      pair = 0;
      for (int64_t i = 0; i < classes; ++i)
        for (int64_t j = i + 1; j < classes; ++j, ++pair) {
          float p = 1 - logistic(pairs[pair] * prob_a[pair] + prob_b[pair]);
          p = std::min(std::max(p, 1.0e-7f), 1 - 1.0e-7f);
          pairwise[i * classes + j] = p;
          pairwise[j * classes + i] = 1 - p;
        }
      pairwise_coupling(classes, pairwise, zr, q);
      post_transform(zr, classes, post);
      continue;
    }
    if (classes == 2) {
      // As ONNX Runtime 1.30 writes them: -s and s; logistic of both;
      // probit of s and 0; 1 - s and s for the softmaxes.
      float s = pairs[0];
      if (post == post_none) {
        zr[0] = -s, zr[1] = s;
      } else if (post == post_logistic) {
        zr[0] = logistic(-s), zr[1] = logistic(s);
      } else if (post == post_probit) {
        zr[0] = probit(s), zr[1] = 0;
      } else {
        zr[0] = 1 - s, zr[1] = s;
      }
      continue;
    }
    for (int64_t k = 0; k < pair; ++k)
      zr[k] = pairs[k];
    post_transform(zr, pair, post);
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Encoders
//===----------------------------------------------------------------------===//

/// A key of a lookup table: numbers compare as they are, with NaN equal to
/// NaN and above every number; strings by their bytes.
template <typename K> struct key_order {
  static bool less(K a, K b) { return (a != a) ? false : ((b != b) ? true : a < b); }
  static bool equal(K a, K b) { return (a != a) ? b != b : a == b; }
};

inline const char *string_at(const void *array, int64_t i) {
  const char *s;
  std::memcpy(&s, static_cast<const char *>(array) + i * sizeof(s), sizeof(s));
  return s;
}

/// The position of `key` among the `n` sorted keys, or -1.
template <typename K> int64_t find_key(const K *keys, int64_t n, K key) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (key_order<K>::less(keys[mid], key))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && key_order<K>::equal(keys[lo], key) ? lo : -1;
}

/// The position of string `key` among the `n` sorted strings chars +
/// offsets[i], or -1.
inline int64_t find_string_key(const int64_t *offsets, const char *chars, int64_t n,
                               const char *key) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (std::strcmp(chars + offsets[mid], key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && std::strcmp(chars + offsets[lo], key) == 0 ? lo : -1;
}

/// The position of x[i] among the sorted keys (numbers: `keys`; strings
/// when `key_strings`: `keys` are offsets into `key_chars`), or -1; -2 for a
/// null string.
template <typename K>
int64_t lookup(const void *x, int64_t i, const K *keys, const char *key_chars, bool key_strings,
               int64_t n) {
  if (key_strings) {
    const char *s = string_at(x, i);
    if (!s)
      return -2;
    return find_string_key(reinterpret_cast<const int64_t *>(keys), key_chars, n, s);
  }
  K v;
  std::memcpy(&v, static_cast<const char *>(x) + i * sizeof(K), sizeof(K));
  return find_key(keys, n, v);
}

/// LabelEncoder (and CategoryMapper): each of the n elements of x is looked
/// up among the sorted keys; the value at its position (or the default,
/// last in `values`) is written to y. String values (`value_strings`) are
/// offsets into value_chars. Returns 1 for a null input string.
template <typename K, typename V>
int label_encoder(const void *x, int64_t n, const K *keys, const int8_t *key_bytes,
                  bool key_strings, int64_t num_keys, const V *values, const int8_t *value_bytes,
                  bool value_strings, void *y) {
  const char *key_chars = reinterpret_cast<const char *>(key_bytes);
  const char *value_chars = reinterpret_cast<const char *>(value_bytes);
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = lookup(x, i, keys, key_chars, key_strings, num_keys);
    if (k == -2)
      return 1;
    const V &v = values[k < 0 ? num_keys : k];
    if (value_strings) {
      const char *s = value_chars + static_cast<int64_t>(v);
      std::memcpy(static_cast<char *>(y) + i * sizeof(s), &s, sizeof(s));
    } else {
      std::memcpy(static_cast<char *>(y) + i * sizeof(V), &v, sizeof(V));
    }
  }
  return 0;
}

/// OneHotEncoder: y[i, positions[k]] = 1 for the category k of x[i]; an
/// unknown category is all zeros when `zeros`, else status 8.
template <typename K>
int one_hot_encoder(const void *x, int64_t n, const K *keys, const int8_t *key_bytes,
                    bool key_strings, const int64_t *positions, int64_t num_keys, bool zeros,
                    float *y) {
  const char *key_chars = reinterpret_cast<const char *>(key_bytes);
  std::fill(y, y + n * num_keys, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = lookup(x, i, keys, key_chars, key_strings, num_keys);
    if (k == -2)
      return 1;
    if (k < 0) {
      if (!zeros)
        return status_bad_value;
      continue;
    }
    y[i * num_keys + positions[k]] = 1.0f;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Maps (DictVectorizer, CastMap)
//===----------------------------------------------------------------------===//
// A map is `n` keys and `n` values (the graph input's two arrays, ABI.md);
// a key is expected at most once (a later one wins).

/// DictVectorizer: y[positions[j]] is the value of the map's key equal to
/// vocabulary entry j (the `m` entries sorted, duplicates kept), or 0 (an
/// empty string when `value_strings`) where the map has no such key; keys
/// outside the vocabulary are ignored. Returns 1 for a null key string.
template <typename K, typename V>
int dict_vectorizer(const void *keys, const V *values, int64_t n, const K *vocab,
                    const int8_t *vocab_bytes, bool key_strings, const int64_t *positions,
                    int64_t m, bool value_strings, V *y) {
  static const char empty[] = "";
  const char *chars = reinterpret_cast<const char *>(vocab_bytes);
  if (value_strings) {
    const char *e = empty;
    for (int64_t j = 0; j < m; ++j)
      std::memcpy(y + j, &e, sizeof(e));
  } else {
    std::fill(y, y + m, V());
  }
  for (int64_t i = 0; i < n; ++i) {
    // The first vocabulary entry equal to the key (lookup's binary search
    // finds the lowest), -1 for none, -2 for a null string.
    int64_t j = lookup(keys, i, vocab, chars, key_strings, m);
    if (j == -2)
      return 1;
    if (j < 0)
      continue;
    // Every vocabulary entry equal to the key (a vocabulary may repeat one).
    for (int64_t k = j; k < m; ++k) {
      bool same = key_strings ? std::strcmp(chars + reinterpret_cast<const int64_t *>(vocab)[k],
                                            chars + reinterpret_cast<const int64_t *>(vocab)[j]) == 0
                              : vocab[k] == vocab[j];
      if (!same)
        break;
      y[positions[k]] = values[i];
    }
  }
  return 0;
}

/// CastMap of an int64-keyed map whose values are floats, or strings when
/// `value_strings` (the `V` elements then hold pointers), as ONNX Runtime
/// computes it. DENSE (`width` < 0): y holds the n values in ascending key
/// order (`order`: n scratch indices). SPARSE: y holds `width` values, key
/// i's at i, keys from `width` on ignored, 0 (or "0.f") where the map lacks
/// one. `to`: 0 float, 1 int64, 2 string. Floats become int64 truncated
/// (NaN and values beyond int64 give INT64_MIN, what x86 converts them to)
/// and strings as std::to_string writes them ("%f", into `pool`); strings
/// become numbers as std::stof / std::stoll read them. Returns 1 for a null
/// string, 5 when the pool is full, 12 for a negative key (SPARSE) or a
/// string that is no number (or beyond the type).
template <typename V, typename Y>
int cast_map(const int64_t *keys, const V *values, int64_t n, bool value_strings, int64_t width,
             int32_t to, int64_t *order, Y *y, string_pool *pool = nullptr) {
  static const char pad_string[] = "0.f"; // ONNX Runtime's pad for strings
  auto convert = [&](int64_t i, Y &out) -> int {
    if (value_strings) {
      const char *s;
      std::memcpy(&s, values + i, sizeof(s));
      if (!s)
        return 1;
      char *end = nullptr;
      errno = 0;
      if (to == 2) {
        std::memcpy(&out, &s, sizeof(s));
      } else if (to == 0) {
        float f = std::strtof(s, &end);
        if (end == s || errno == ERANGE)
          return status_bad_value;
        std::memcpy(&out, &f, sizeof(f));
      } else {
        long long k = std::strtoll(s, &end, 10);
        if (end == s || errno == ERANGE)
          return status_bad_value;
        int64_t v = k;
        std::memcpy(&out, &v, sizeof(v));
      }
      return 0;
    }
    float v;
    std::memcpy(&v, values + i, sizeof(v));
    if (to == 0) {
      std::memcpy(&out, &v, sizeof(v));
    } else if (to == 1) {
      int64_t k = std::numeric_limits<int64_t>::min();
      if (v >= -9223372036854775808.0f && v < 9223372036854775808.0f)
        k = static_cast<int64_t>(v);
      std::memcpy(&out, &k, sizeof(k));
    } else {
      char text[64];
      int length = std::snprintf(text, sizeof(text), "%f", static_cast<double>(v));
      if (length < 0 || length >= static_cast<int>(sizeof(text)))
        return status_bad_value;
      if (!pool || length + 1 > pool->size - pool->used)
        return status_string_pool_full;
      char *copy = pool->data + pool->used;
      std::memcpy(copy, text, static_cast<size_t>(length) + 1);
      pool->used += length + 1;
      const char *s = copy;
      std::memcpy(&out, &s, sizeof(s));
    }
    return 0;
  };
  if (width < 0) {
    for (int64_t i = 0; i < n; ++i)
      order[i] = i;
    onnxcc_rt::sort_indices(order, order + n,
                            [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    for (int64_t j = 0; j < n; ++j)
      if (int status = convert(order[j], y[j]))
        return status;
    return 0;
  }
  for (int64_t i = 0; i < n; ++i)
    if (keys[i] < 0)
      return status_bad_value;
  for (int64_t j = 0; j < width; ++j) {
    if (to == 2) {
      const char *s = pad_string;
      std::memcpy(y + j, &s, sizeof(s));
    } else {
      y[j] = Y();
    }
  }
  for (int64_t i = 0; i < n; ++i)
    if (keys[i] < width)
      if (int status = convert(i, y[keys[i]]))
        return status;
  return 0;
}

/// Whether the n-gram of `n` tokens of `x` from `start`, `step` apart,
/// equals pool n-gram `g` (pool[g * n ..]; strings: offsets into chars).
template <typename T>
bool ngram_equal(const T *x, int64_t start, int64_t step, int64_t n, const int64_t *pool,
                 const char *chars, bool strings) {
  for (int64_t k = 0; k < n; ++k) {
    int64_t at = start + k * step;
    if (strings) {
      const char *s = string_at(x, at);
      if (!s || std::strcmp(s, chars + pool[k]) != 0)
        return false;
    } else if (static_cast<int64_t>(x[at]) != pool[k]) {
      return false;
    }
  }
  return true;
}

/// TfIdfVectorizer over `rows` rows of `cols` tokens: n-grams of min_gram
/// to max_gram tokens with 0 to max_skip tokens skipped between them
/// (unigrams counted once), looked up in the pool (n-grams of n tokens
/// start at pool element counts[n - 1]); y[r, indexes[j]] counts pool
/// n-gram j (mode 0 TF), or is weights[j] when it occurs (1 IDF) or
/// count * weights[j] (2 TFIDF). Returns 1 for a null string.
template <typename T>
int tfidf_vectorizer(const T *x, int64_t rows, int64_t cols, const int64_t *pool,
                     const int8_t *pool_bytes, bool strings, int64_t pool_size,
                     const int64_t *counts, int64_t num_counts, const int64_t *indexes,
                     const float *weights, bool has_weights, int64_t min_gram, int64_t max_gram,
                     int64_t max_skip, int32_t mode, int64_t width, float *y) {
  const char *chars = reinterpret_cast<const char *>(pool_bytes);
  std::fill(y, y + rows * width, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * cols;
    float *yr = y + r * width;
    if (strings)
      for (int64_t c = 0; c < cols; ++c)
        if (!string_at(xr, c))
          return 1;
    for (int64_t skip = 0; skip <= max_skip; ++skip) {
      for (int64_t n = std::max<int64_t>(min_gram, 1); n <= max_gram && n <= num_counts; ++n) {
        if (n == 1 && skip > 0)
          continue;
        int64_t begin = counts[n - 1];
        int64_t end = n < num_counts ? counts[n] : pool_size;
        // The ordinal of the first n-gram of this length in the pool.
        int64_t first = 0;
        for (int64_t m = 1; m < n; ++m)
          first += ((m < num_counts ? counts[m] : pool_size) - counts[m - 1]) / m;
        for (int64_t start = 0; start + (n - 1) * (skip + 1) < cols; ++start)
          for (int64_t g = 0; begin + (g + 1) * n <= end; ++g)
            if (ngram_equal(xr, start, skip + 1, n, pool + begin + g * n, chars, strings)) {
              yr[indexes[first + g]] += 1.0f;
              break;
            }
      }
    }
    if (mode != 0) {
      // Weights are per pool n-gram: apply them at each n-gram's column.
      int64_t total = 0;
      for (int64_t n = 1; n <= num_counts; ++n)
        total += ((n < num_counts ? counts[n] : pool_size) - counts[n - 1]) / n;
      for (int64_t j = 0; j < total; ++j) {
        float &v = yr[indexes[j]];
        float w = has_weights ? weights[j] : 1.0f;
        v = mode == 1 ? (v > 0 ? w : 0.0f) : v * w;
      }
    }
  }
  return 0;
}

} // namespace ml
} // namespace onnxcc_rt

#endif // ONNXCC_ML_H
