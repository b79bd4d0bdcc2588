//===- TransformerShapes.cpp - Shape functions of the transformer ops ----===//
//
// Attention, RMSNormalization and RotaryEmbedding (dialects/onnx/
// TransformerOps.td). Dims that must agree are unified (checked at run time
// when symbolic); statically wrong shapes fail with a line naming them.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"

using namespace mlir;

namespace onnxcc::onnx {
namespace {

std::string text(const Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? "," : "") + s[i].str();
  return r + "]";
}

/// `d / n` for a head count `n`: exact when static, else symbolic or unknown.
FailureOr<Dim> perHead(ShapeContext &ctx, const Dim &d, int64_t n, StringRef what) {
  if (d.isStatic() && d.size % n)
    return ctx.fail(what + " " + d.str() + " is not a multiple of the " + Twine(n) + " heads");
  return divDimsExact(d, Dim::known(n));
}

} // namespace

/// Y is [B, Hq, Sq, Dv] (3-D: [B, Sq, Hq * Dv]); present_key/value are
/// [B, Hkv, P + Skv, D or Dv], qk_matmul_output [B, Hq, Sq, P + Skv].
LogicalResult AttentionOp::inferShapes(ShapeContext &ctx) {
  auto q = ctx.operandShape(0), k = ctx.operandShape(1), v = ctx.operandShape(2);
  if (!q || !k || !v)
    return success();
  int64_t rank = q->size();
  if ((rank != 3 && rank != 4) || k->size() != q->size() || v->size() != q->size())
    return ctx.fail("Q " + text(*q) + ", K " + text(*k) + " and V " + text(*v) +
                    " must all be 3-D or all 4-D");
  Dim batch = (*q)[0], hq, hkv, sq, skv, d, dv;
  if (rank == 3) {
    if (!getQNumHeads() || !getKvNumHeads())
      return ctx.fail("3-D Q, K and V need q_num_heads and kv_num_heads");
    int64_t nq = static_cast<int64_t>(*getQNumHeads());
    int64_t nkv = static_cast<int64_t>(*getKvNumHeads());
    if (nq < 1 || nkv < 1)
      return ctx.fail("q_num_heads " + Twine(nq) + " and kv_num_heads " + Twine(nkv) +
                      " must be positive");
    hq = Dim::known(nq);
    hkv = Dim::known(nkv);
    sq = (*q)[1];
    skv = (*k)[1];
    auto dq = perHead(ctx, (*q)[2], nq, "Q's hidden size");
    auto dk = perHead(ctx, (*k)[2], nkv, "K's hidden size");
    auto dvv = perHead(ctx, (*v)[2], nkv, "V's hidden size");
    if (failed(dq) || failed(dk) || failed(dvv))
      return failure();
    auto u = ctx.unify(*dq, *dk);
    if (failed(u))
      return ctx.fail("Q " + text(*q) + " and K " + text(*k) + " differ in their head size");
    d = *u;
    dv = *dvv;
    if (failed(ctx.unify((*v)[1], skv)))
      return ctx.fail("K " + text(*k) + " and V " + text(*v) + " differ in their sequence dim");
  } else {
    hq = (*q)[1];
    hkv = (*k)[1];
    sq = (*q)[2];
    skv = (*k)[2];
    auto u = ctx.unify((*q)[3], (*k)[3]);
    if (failed(u))
      return ctx.fail("Q " + text(*q) + " and K " + text(*k) + " differ in their head size");
    d = *u;
    dv = (*v)[3];
    if (failed(ctx.unify((*v)[1], hkv)) || failed(ctx.unify((*v)[2], skv)))
      return ctx.fail("K " + text(*k) + " and V " + text(*v) +
                      " differ in their heads or sequence dim");
  }
  if (failed(ctx.unify((*k)[0], batch)) || failed(ctx.unify((*v)[0], batch)))
    return ctx.fail("Q " + text(*q) + ", K " + text(*k) + " and V " + text(*v) +
                    " differ in their batch dim");
  if (hq.isStatic() && hkv.isStatic() && (hkv.size == 0 || hq.size % hkv.size))
    return ctx.fail("the " + hq.str() + " query heads are not a multiple of the " + hkv.str() +
                    " key/value heads");
  bool hasPast = ctx.hasOperand(4), hasPastV = ctx.hasOperand(5);
  if (hasPast != hasPastV)
    return ctx.fail("past_key and past_value must be given together");
  Dim total = skv;
  if (hasPast) {
    auto pk = ctx.operandShape(4), pv = ctx.operandShape(5);
    if (pk && pv) {
      if (pk->size() != 4 || pv->size() != 4)
        return ctx.fail("past_key " + text(*pk) + " and past_value " + text(*pv) +
                        " must be 4-D");
      if (failed(ctx.unify((*pk)[0], batch)) || failed(ctx.unify((*pk)[1], hkv)) ||
          failed(ctx.unify((*pk)[3], d)) || failed(ctx.unify((*pv)[0], batch)) ||
          failed(ctx.unify((*pv)[1], hkv)) || failed(ctx.unify((*pv)[2], (*pk)[2])) ||
          failed(ctx.unify((*pv)[3], dv)))
        return ctx.fail("past_key " + text(*pk) + " and past_value " + text(*pv) +
                        " do not match K " + text(*k) + " and V " + text(*v));
      total = addDims((*pk)[2], skv);
    } else {
      total = Dim::unknown();
    }
  }
  if (ctx.hasOperand(3)) {
    if (auto m = ctx.operandShape(3)) {
      Shape full = {batch, hq, sq, total};
      if (m->empty() || m->size() > 4)
        return ctx.fail("attn_mask " + text(*m) + " must have rank 1 to 4");
      for (size_t i = 0; i < m->size(); ++i) {
        const Dim &md = (*m)[i], &fd = full[4 - m->size() + i];
        bool last = i + 1 == m->size();
        if (md.isStatic() && fd.isStatic() && md.size != 1 &&
            (last ? md.size > fd.size : md.size != fd.size))
          return ctx.fail("attn_mask " + text(*m) + " does not broadcast to " + text(full));
      }
    }
  }
  if (ctx.hasOperand(6)) {
    if (hasPast)
      return ctx.fail("nonpad_kv_seqlen cannot be used with past_key and past_value");
    if (auto n = ctx.operandShape(6))
      if (n->size() != 1 || failed(ctx.unify((*n)[0], batch)))
        return ctx.fail("nonpad_kv_seqlen " + text(*n) + " must be [batch]");
  }
  int64_t mode = getQkMatmulOutputMode();
  if (mode < 0 || mode > 3)
    return ctx.fail("qk_matmul_output_mode " + Twine(mode) + " is not 0, 1, 2 or 3");
  if (auto p = getSoftmaxPrecision(); p && *p != 1 && *p != 10 && *p != 11 && *p != 16)
    return ctx.fail("softmax_precision " + Twine(*p) +
                    " is not FLOAT (1), FLOAT16 (10), DOUBLE (11) or BFLOAT16 (16)");
  if (rank == 3)
    ctx.setShape(0, {batch, sq, mulDims(hq, dv)});
  else
    ctx.setShape(0, {batch, hq, sq, dv});
  ctx.setShape(1, {batch, hkv, total, d});
  ctx.setShape(2, {batch, hkv, total, dv});
  ctx.setShape(3, {batch, hq, sq, total});
  return success();
}

LogicalResult RMSNormalizationOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t rank = x->size(), axis = static_cast<int64_t>(getAxis());
  if (axis < -rank || axis >= rank)
    return ctx.fail("axis " + Twine(axis) + " is out of range for input of rank " + Twine(rank));
  if (auto s = ctx.operandShape(1)) {
    if (static_cast<int64_t>(s->size()) > rank)
      return ctx.fail("scale " + text(*s) + " does not broadcast to X " + text(*x));
    for (size_t i = 0; i < s->size(); ++i) {
      const Dim &sd = (*s)[i], &xd = (*x)[rank - s->size() + i];
      if (sd.isStatic() && xd.isStatic() && sd.size != 1 && sd.size != xd.size)
        return ctx.fail("scale " + text(*s) + " does not broadcast to X " + text(*x));
    }
  }
  ctx.setShape(0, *x);
  return success();
}

LogicalResult RotaryEmbeddingOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t rank = x->size();
  if (rank != 3 && rank != 4)
    return ctx.fail("X " + text(*x) + " must be 3-D or 4-D");
  Dim head = (*x)[3 % rank];
  if (rank == 3) {
    if (!getNumHeads() || *getNumHeads() < 1)
      return ctx.fail("3-D X " + text(*x) + " needs a positive num_heads");
    auto h = perHead(ctx, (*x)[2], static_cast<int64_t>(*getNumHeads()), "X's hidden size");
    if (failed(h))
      return failure();
    head = *h;
  }
  int64_t dim = static_cast<int64_t>(getRotaryEmbeddingDim());
  if (head.isStatic()) {
    int64_t r = dim == 0 ? head.size : dim;
    if (r < 0 || r > head.size || r % 2)
      return ctx.fail("rotary_embedding_dim " + Twine(r) + " must be even and at most the head size " +
                      Twine(head.size));
  }
  Dim batch = (*x)[0], seq = (*x)[rank == 4 ? 2 : 1];
  bool hasIds = ctx.hasOperand(3);
  for (unsigned i : {1u, 2u}) {
    auto c = ctx.operandShape(i);
    if (!c)
      continue;
    StringRef name = i == 1 ? "cos_cache" : "sin_cache";
    if (c->size() != (hasIds ? 2u : 3u))
      return ctx.fail(name + " " + text(*c) + " must be " +
                      (hasIds ? "2-D with position_ids" : "3-D without position_ids"));
    if (head.isStatic() && c->back().isStatic()) {
      int64_t r = dim == 0 ? head.size : dim;
      if (c->back().size != r / 2)
        return ctx.fail(name + " " + text(*c) + " must have " + Twine(r / 2) +
                        " values per position");
    }
    if (!hasIds && (failed(ctx.unify((*c)[0], batch)) || failed(ctx.unify((*c)[1], seq))))
      return ctx.fail(name + " " + text(*c) + " must be [batch, seq, dim/2] for X " + text(*x));
  }
  if (hasIds)
    if (auto p = ctx.operandShape(3))
      if (p->size() != 2 || failed(ctx.unify((*p)[0], batch)) ||
          failed(ctx.unify((*p)[1], seq)))
        return ctx.fail("position_ids " + text(*p) + " must be [batch, seq] for X " + text(*x));
  ctx.setShape(0, *x);
  return success();
}

LogicalResult CausalConvWithStateOp::inferShapes(ShapeContext &ctx) {
  StringRef act = getActivation();
  if (act != "none" && act != "silu" && act != "swish")
    return ctx.fail("activation is '" + act + "', expected 'none', 'silu' or 'swish'");
  auto x = ctx.operandShape(0), w = ctx.operandShape(1);
  if (!x || !w)
    return success();
  if (x->size() != 3 || w->size() != 3)
    return ctx.fail("input " + text(*x) + " and weight " + text(*w) + " must be 3-D");
  if (failed(ctx.unify((*w)[0], (*x)[1])) || failed(ctx.unify((*w)[1], Dim::known(1))))
    return ctx.fail("weight " + text(*w) + " must be [channels, 1, k] for input " + text(*x));
  Dim k = (*w)[2];
  if (k.isStatic() && k.size < 1)
    return ctx.fail("weight " + text(*w) + " has no taps");
  Dim state = subDims(k, Dim::known(1));
  if (ctx.hasOperand(2))
    if (auto b = ctx.operandShape(2))
      if (b->size() != 1 || failed(ctx.unify((*b)[0], (*x)[1])))
        return ctx.fail("bias " + text(*b) + " must be [channels] for input " + text(*x));
  if (ctx.hasOperand(3))
    if (auto p = ctx.operandShape(3))
      if (p->size() != 3 || failed(ctx.unify((*p)[0], (*x)[0])) ||
          failed(ctx.unify((*p)[1], (*x)[1])) || failed(ctx.unify((*p)[2], state)))
        return ctx.fail("past_state " + text(*p) + " must be [batch, channels, k - 1] for input " +
                        text(*x) + " and weight " + text(*w));
  ctx.setShape(0, *x);
  ctx.setShape(1, {(*x)[0], (*x)[1], state});
  return success();
}

LogicalResult LinearAttentionOp::inferShapes(ShapeContext &ctx) {
  StringRef rule = getUpdateRule();
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    return ctx.fail("update_rule is '" + rule +
                    "', expected 'linear', 'gated', 'delta' or 'gated_delta'");
  if (!getQNumHeads() || !getKvNumHeads() || *getQNumHeads() < 1 || *getKvNumHeads() < 1 ||
      *getQNumHeads() % *getKvNumHeads())
    return ctx.fail("q_num_heads and kv_num_heads must be given, positive, and the first a "
                    "multiple of the second");
  bool gated = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  if (gated && !ctx.hasOperand(4))
    return ctx.fail("update_rule '" + rule + "' needs decay");
  if (delta && !ctx.hasOperand(5))
    return ctx.fail("update_rule '" + rule + "' needs beta");
  auto q = ctx.operandShape(0), k = ctx.operandShape(1), v = ctx.operandShape(2);
  if (!q || !k || !v)
    return success();
  if (q->size() != 3 || k->size() != 3 || v->size() != 3)
    return ctx.fail("query " + text(*q) + ", key " + text(*k) + " and value " + text(*v) +
                    " must be 3-D");
  int64_t hq = static_cast<int64_t>(*getQNumHeads()), hkv = static_cast<int64_t>(*getKvNumHeads());
  auto dk = perHead(ctx, (*q)[2], hq, "query's hidden size");
  auto dkk = perHead(ctx, (*k)[2], hkv, "key's hidden size");
  auto dv = perHead(ctx, (*v)[2], hkv, "value's hidden size");
  if (failed(dk) || failed(dkk) || failed(dv))
    return failure();
  if (failed(ctx.unify(*dk, *dkk)) || failed(ctx.unify((*k)[0], (*q)[0])) ||
      failed(ctx.unify((*v)[0], (*q)[0])) || failed(ctx.unify((*k)[1], (*q)[1])) ||
      failed(ctx.unify((*v)[1], (*q)[1])))
    return ctx.fail("query " + text(*q) + ", key " + text(*k) + " and value " + text(*v) +
                    " do not agree");
  Shape state = {(*q)[0], Dim::known(hkv), *dk, *dv};
  if (ctx.hasOperand(3))
    if (auto p = ctx.operandShape(3))
      if (p->size() != 4 || failed(ctx.unify((*p)[0], state[0])) ||
          failed(ctx.unify((*p)[1], state[1])) || failed(ctx.unify((*p)[2], state[2])) ||
          failed(ctx.unify((*p)[3], state[3])))
        return ctx.fail("past_state " + text(*p) + " must be " + text(state));
  for (unsigned i : {4u, 5u}) {
    if (!ctx.hasOperand(i))
      continue;
    auto g = ctx.operandShape(i);
    if (!g)
      continue;
    StringRef name = i == 4 ? "decay" : "beta";
    Dim last = g->size() == 3 ? (*g)[2] : Dim::unknown();
    bool ok = g->size() == 3 && succeeded(ctx.unify((*g)[0], (*q)[0])) &&
              succeeded(ctx.unify((*g)[1], (*q)[1]));
    if (ok && last.isStatic()) {
      int64_t n = last.size;
      if (i == 4)
        ok = n == hkv || (dk->isStatic() && n == hkv * dk->size);
      else
        ok = n == hkv || n == 1;
    }
    if (!ok)
      return ctx.fail(name + " " + text(*g) + " does not fit query " + text(*q));
  }
  ctx.setShape(0, {(*q)[0], (*q)[1], mulDims(Dim::known(hq), *dv)});
  ctx.setShape(1, state);
  return success();
}

} // namespace onnxcc::onnx
