//===- Transformer.cpp - Attention, RMSNormalization, RotaryEmbedding ----===//
//
// The transformer ops of opsets 23-25 (dialects/onnx/TransformerOps.td),
// each lowered as a whole rather than through the ops of its ONNX function:
//
//   Attention         scores [B, Hq, Sq, T] = Q K^T, K read in place (3-D
//                     inputs through a free [B, S, H, D] view, GQA by the
//                     query head divided by the group size, the past
//                     concatenated only when there is one); one pass that
//                     scales, softcaps and masks (attn_mask, is_causal,
//                     nonpad_kv_seqlen, the window) into the logits; a
//                     softmax whose fully masked rows are zero; and the
//                     contraction with V written straight into Y's layout
//                     (3-D Y is a view of [B, Sq, Hq, Dv]). float16 and
//                     bfloat16 accumulate and take the softmax in float32.
//   RMSNormalization  one reduction of x^2 per row in the stash type, then
//                     one elementwise pass x * rsqrt(mean + eps) * scale.
//   RotaryEmbedding   one pass over Y reading each element's partner and its
//                     cos/sin (at position_ids when given, clamped into the
//                     caches).
//
// Shapes must be static.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace onnxcc::lowering {
namespace {

using utils::IteratorType;

bool present(Value v) { return v && !isa<NoneType>(v.getType()); }

/// The float type computations on `elem` run in: float32 for the 16-bit
/// floats, else `elem` itself.
Type computeType(Type elem) {
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(elem.getContext());
  return elem;
}

/// A float (or index/integer) conversion between float types.
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// A linalg.generic with `outs` as its initial results.
linalg::GenericOp generic(OpBuilder &b, Location loc, ValueRange ins, ValueRange outs,
                          ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iterators,
                          function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(b, loc, TypeRange(outs), ins, outs, maps, iterators,
                                   [&](OpBuilder &nb, Location l, ValueRange args) {
                                     linalg::YieldOp::create(nb, l, body(nb, l, args));
                                   });
}

AffineMap mapOf(MLIRContext *ctx, unsigned dims, ArrayRef<AffineExpr> results) {
  return AffineMap::get(dims, 0, results, ctx);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// A Q, K or V operand: [B, H, S, D] (heads first) or a view [B, S, H, D] of
/// a 3-D input (sequence first).
struct HeadView {
  Value t;
  bool seqFirst = false;
  /// Its element at (b, h, s, d) as affine results.
  SmallVector<AffineExpr> at(AffineExpr b, AffineExpr h, AffineExpr s, AffineExpr d) const {
    if (seqFirst)
      return {b, s, h, d};
    return {b, h, s, d};
  }
};

/// [B, S, H * D] viewed as [B, S, H, D].
Value splitHeads(OpBuilder &b, Location loc, Value v, int64_t heads) {
  auto type = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto viewType =
      RankedTensorType::get({s[0], s[1], heads, s[2] / heads}, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, viewType, v,
                                       SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// `view` as a [B, H, S, D] tensor (a transpose of a sequence-first view).
Value headsFirst(OpBuilder &b, Location loc, const HeadView &view) {
  if (!view.seqFirst)
    return view.t;
  auto type = cast<RankedTensorType>(view.t.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto outType = RankedTensorType::get({s[0], s[2], s[1], s[3]}, type.getElementType());
  Value init = emptyTensor(b, loc, outType);
  return linalg::TransposeOp::create(b, loc, view.t, init, ArrayRef<int64_t>{0, 2, 1, 3})
      ->getResult(0);
}

/// past [B, H, P, D] followed by `cur` along the sequence: [B, H, P + S, D].
Value concatPast(OpBuilder &b, Location loc, Value past, Value cur) {
  auto pType = cast<RankedTensorType>(past.getType());
  auto cType = cast<RankedTensorType>(cur.getType());
  ArrayRef<int64_t> p = pType.getShape(), c = cType.getShape();
  auto outType = RankedTensorType::get({p[0], p[1], p[2] + c[2], p[3]}, pType.getElementType());
  MLIRContext *ctx = b.getContext();
  Value out = emptyTensor(b, loc, outType);
  SmallVector<int64_t> ones(4, 1);
  out = tensor::InsertSliceOp::create(b, loc, past, out,
                                      getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(4, 0)),
                                      getAsIndexOpFoldResult(ctx, p),
                                      getAsIndexOpFoldResult(ctx, ones));
  return tensor::InsertSliceOp::create(b, loc, cur, out,
                                       getAsIndexOpFoldResult(ctx, {0, 0, p[2], 0}),
                                       getAsIndexOpFoldResult(ctx, c),
                                       getAsIndexOpFoldResult(ctx, ones));
}

/// `t` converted elementwise to `to` (itself when it has that type).
Value convertTensor(OpBuilder &b, Location loc, Value t, Type to) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getElementType() == to)
    return t;
  auto outType = RankedTensorType::get(type.getShape(), to);
  int64_t rank = type.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<IteratorType> its(rank, IteratorType::parallel);
  return generic(b, loc, {t}, {emptyTensor(b, loc, outType)}, {id, id}, its,
                 [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                   return {convertFloat(nb, l, a[0], to)};
                 })
      .getResult(0);
}

struct AttentionLowering : OpConversionPattern<onnx::AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::AttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto qType = dyn_cast<RankedTensorType>(adaptor.getQ().getType());
    auto kType = dyn_cast<RankedTensorType>(adaptor.getK().getType());
    auto vType = dyn_cast<RankedTensorType>(adaptor.getV().getType());
    if (!qType || !kType || !vType || !qType.hasStaticShape() || !kType.hasStaticShape() ||
        !vType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "Q, K and V must have static shapes");
    RankedTensorType yType = staticResultType(rewriter, getTypeConverter(), op, 0);
    if (!yType)
      return failure();
    int64_t rank = qType.getRank();
    if ((rank != 3 && rank != 4) || kType.getRank() != rank || vType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "Q, K and V are not all 3-D or all 4-D");
    Type elem = qType.getElementType(), vElem = vType.getElementType();
    Type acc = computeType(elem);
    if (computeType(vElem) != acc)
      acc = Float64Type::get(ctx);

    // Q, K, V as [B, H, S, D] or [B, S, H, D] views.
    HeadView q{adaptor.getQ()}, k{adaptor.getK()}, v{adaptor.getV()};
    int64_t hq, hkv;
    if (rank == 3 && (!op.getQNumHeads() || !op.getKvNumHeads()))
      return rewriter.notifyMatchFailure(op, "3-D inputs without q_num_heads/kv_num_heads");
    if (rank == 3) {
      hq = static_cast<int64_t>(*op.getQNumHeads());
      hkv = static_cast<int64_t>(*op.getKvNumHeads());
      q = {splitHeads(rewriter, loc, q.t, hq), true};
      k = {splitHeads(rewriter, loc, k.t, hkv), true};
      v = {splitHeads(rewriter, loc, v.t, hkv), true};
    } else {
      hq = qType.getDimSize(1);
      hkv = kType.getDimSize(1);
    }
    auto dimsOf = [](const HeadView &h) {
      ArrayRef<int64_t> s = cast<RankedTensorType>(h.t.getType()).getShape();
      // (B, H, S, D)
      return h.seqFirst ? SmallVector<int64_t>{s[0], s[2], s[1], s[3]}
                        : SmallVector<int64_t>{s[0], s[1], s[2], s[3]};
    };
    SmallVector<int64_t> qd = dimsOf(q), kd = dimsOf(k), vd = dimsOf(v);
    int64_t batch = qd[0], sq = qd[2], d = qd[3], dv = vd[3];
    if (hkv < 1 || hq % hkv)
      return rewriter.notifyMatchFailure(op, "query heads are not a multiple of kv heads");
    int64_t group = hq / hkv;

    // The keys and values attended: the past followed by K and V.
    Value pastK = adaptor.getPastKey(), pastV = adaptor.getPastValue();
    bool hasPast = present(pastK);
    int64_t past = 0;
    Value presentK, presentV;
    if (hasPast) {
      auto pkType = dyn_cast<RankedTensorType>(pastK.getType());
      if (!pkType || !pkType.hasStaticShape() ||
          !cast<RankedTensorType>(pastV.getType()).hasStaticShape())
        return rewriter.notifyMatchFailure(op, "past_key and past_value must be static");
      past = pkType.getDimSize(2);
      presentK = concatPast(rewriter, loc, pastK, headsFirst(rewriter, loc, k));
      presentV = concatPast(rewriter, loc, pastV, headsFirst(rewriter, loc, v));
      k = {presentK, false};
      v = {presentV, false};
    }
    int64_t total = past + kd[2];

    // Scale and attributes.
    double scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0 / std::sqrt(double(d));
    double softcap = op.getSoftcap().convertToDouble();
    int64_t mode = op.getQkMatmulOutputMode();
    bool causal = op.getIsCausal() != 0;
    int64_t left = op.getLeftWindowSize(), right = op.getRightWindowSize();
    Type smType = acc;
    if (auto p = op.getSoftmaxPrecision()) {
      switch (*p) {
      case 1: smType = rewriter.getF32Type(); break;
      case 10: smType = rewriter.getF16Type(); break;
      case 11: smType = rewriter.getF64Type(); break;
      case 16: smType = rewriter.getBF16Type(); break;
      default: return rewriter.notifyMatchFailure(op, "unknown softmax_precision");
      }
      // The 16-bit precisions round the logits, the sums stay float32.
    }
    Type smCompute = computeType(smType);

    // 1. scores[b, h, i, j] = sum_d Q[b, h, i, d] K[b, h / group, j, d].
    AffineExpr b0, h0, i0, j0, c0;
    bindDims(ctx, b0, h0, i0, j0, c0);
    AffineExpr hk = group == 1 ? h0 : h0.floorDiv(group);
    auto scoresType = RankedTensorType::get({batch, hq, sq, total}, acc);
    Value scores = buildFilled(rewriter, loc, scoresType, rewriter.getZeroAttr(acc));
    SmallVector<IteratorType> contraction = {IteratorType::parallel, IteratorType::parallel,
                                             IteratorType::parallel, IteratorType::parallel,
                                             IteratorType::reduction};
    scores = generic(rewriter, loc, {q.t, k.t}, {scores},
                     {mapOf(ctx, 5, q.at(b0, h0, i0, c0)), mapOf(ctx, 5, k.at(b0, hk, j0, c0)),
                      mapOf(ctx, 5, {b0, h0, i0, j0})},
                     contraction,
                     [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                       Value x = convertFloat(nb, l, a[0], acc);
                       Value y = convertFloat(nb, l, a[1], acc);
                       return {arith::AddFOp::create(
                           nb, l, a[2], arith::MulFOp::create(nb, l, x, y))};
                     })
                 .getResult(0);

    // 2. logits = softcap(scores * scale) + bias, in the softmax's type;
    //    the qk_matmul_output of modes 0-2 alongside.
    Value mask = adaptor.getAttnMask(), nonpad = adaptor.getNonpadKvSeqlen();
    bool hasMask = present(mask), hasNonpad = present(nonpad);
    RankedTensorType maskType;
    Type maskElem;
    if (hasMask) {
      maskType = dyn_cast<RankedTensorType>(mask.getType());
      if (!maskType || !maskType.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "attn_mask must be static");
      maskElem = onnxElementType(op.getAttnMask());
    }
    Value qkOut = op.getQkMatmulOutput();
    bool wantQk = !qkOut.use_empty();
    bool qkBeforeSoftmax = wantQk && mode != 3;
    auto logitsType = RankedTensorType::get({batch, hq, sq, total}, smCompute);
    auto qkType = RankedTensorType::get({batch, hq, sq, total}, elem);
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<IteratorType> par4(4, IteratorType::parallel);
    SmallVector<Value> logitOuts = {emptyTensor(rewriter, loc, logitsType)};
    SmallVector<AffineMap> logitMaps = {id4, id4};
    if (qkBeforeSoftmax) {
      logitOuts.push_back(emptyTensor(rewriter, loc, qkType));
      logitMaps.push_back(id4);
    }
    const double inf = std::numeric_limits<double>::infinity();
    auto logitsOp = generic(
        rewriter, loc, {scores}, logitOuts, logitMaps, par4,
        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
          Value bi = linalg::IndexOp::create(nb, l, 0), hi = linalg::IndexOp::create(nb, l, 1);
          Value ii = linalg::IndexOp::create(nb, l, 2), ji = linalg::IndexOp::create(nb, l, 3);
          Value s = a[0];
          if (scale != 1.0)
            s = arith::MulFOp::create(nb, l, s, floatConst(nb, l, acc, scale));
          Value raw = s;
          if (softcap > 0) {
            Value c = floatConst(nb, l, acc, softcap);
            s = arith::MulFOp::create(
                nb, l, c, math::TanhOp::create(nb, l, arith::DivFOp::create(nb, l, s, c)));
          }
          Value logit = convertFloat(nb, l, convertFloat(nb, l, s, smType), smCompute);
          Value ninf = floatConst(nb, l, smCompute, -inf);
          // Positions every rule allows; a float mask adds its value.
          Value allowed;
          auto both = [&](Value c) {
            allowed = allowed ? arith::AndIOp::create(nb, l, allowed, c).getResult() : c;
          };
          Value added;
          if (hasMask) {
            ArrayRef<int64_t> ms = maskType.getShape();
            int64_t mr = ms.size();
            Value full[4] = {bi, hi, ii, ji};
            SmallVector<Value> at;
            for (int64_t m = 0; m < mr; ++m) {
              Value idx = full[4 - mr + m];
              if (ms[m] == 1)
                idx = indexConst(nb, l, 0);
              else if (m == mr - 1)
                idx = clampIndex(nb, l, idx, indexConst(nb, l, 0), indexConst(nb, l, ms[m] - 1));
              at.push_back(idx);
            }
            Value mv = tensor::ExtractOp::create(nb, l, mask, at);
            if (ms[mr - 1] != 1 && ms[mr - 1] < total)
              both(arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, ji,
                                         indexConst(nb, l, ms[mr - 1])));
            if (maskElem.isInteger(1))
              both(mv);
            else
              added = castScalar(nb, l, mv, maskElem, smCompute);
          }
          // The count of valid keys before the query block.
          Value offset;
          Value nonpadLen;
          if (hasNonpad) {
            Value n = tensor::ExtractOp::create(nb, l, nonpad, ValueRange{bi});
            nonpadLen = arith::IndexCastOp::create(nb, l, nb.getIndexType(), n);
          }
          if (hasPast && past != 0)
            offset = indexConst(nb, l, past);
          else if (!hasPast && hasNonpad)
            offset = arith::SubIOp::create(nb, l, nonpadLen, indexConst(nb, l, sq));
          Value pos = offset ? arith::AddIOp::create(nb, l, ii, offset).getResult() : ii;
          using P = arith::CmpIPredicate;
          if (causal)
            both(arith::CmpIOp::create(nb, l, P::sle, ji, pos));
          if (left >= 0)
            both(arith::CmpIOp::create(
                nb, l, P::sge, ji, arith::SubIOp::create(nb, l, pos, indexConst(nb, l, left))));
          if (right >= 0)
            both(arith::CmpIOp::create(
                nb, l, P::sle, ji, arith::AddIOp::create(nb, l, pos, indexConst(nb, l, right))));
          if (hasNonpad)
            both(arith::CmpIOp::create(nb, l, P::slt, ji, nonpadLen));
          Value biased = added ? arith::AddFOp::create(nb, l, logit, added).getResult() : logit;
          if (allowed)
            biased = arith::SelectOp::create(nb, l, allowed, biased, ninf);
          SmallVector<Value> results = {biased};
          if (qkBeforeSoftmax) {
            Value shown = mode == 0 ? raw : mode == 1 ? s : biased;
            results.push_back(convertFloat(nb, l, shown, elem));
          }
          return results;
        });
    Value logits = logitsOp.getResult(0);

    // 3. The softmax over the keys; a row with no visible key is zero.
    auto rowType = RankedTensorType::get({batch, hq, sq}, smCompute);
    AffineMap rowMap = mapOf(ctx, 4, {b0, h0, i0});
    SmallVector<IteratorType> rowReduce = {IteratorType::parallel, IteratorType::parallel,
                                           IteratorType::parallel, IteratorType::reduction};
    Value rowMax = buildFilled(rewriter, loc, rowType, rewriter.getFloatAttr(smCompute, -inf));
    rowMax = generic(rewriter, loc, {logits}, {rowMax}, {id4, rowMap}, rowReduce,
                     [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                       return {arith::MaximumFOp::create(nb, l, a[1], a[0])};
                     })
                 .getResult(0);
    auto shifted = [&](OpBuilder &nb, Location l, Value x, Value m) -> Value {
      // exp(x - m), 0 where the whole row is masked (m = -inf).
      Value ninf = floatConst(nb, l, smCompute, -inf);
      Value masked = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, m, ninf);
      Value e = math::ExpOp::create(nb, l, arith::SubFOp::create(nb, l, x, m));
      return arith::SelectOp::create(nb, l, masked, floatConst(nb, l, smCompute, 0.0), e);
    };
    Value rowSum = buildFilled(rewriter, loc, rowType, rewriter.getZeroAttr(smCompute));
    rowSum = generic(rewriter, loc, {logits, rowMax}, {rowSum}, {id4, rowMap, rowMap}, rowReduce,
                     [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                       return {arith::AddFOp::create(nb, l, a[2], shifted(nb, l, a[0], a[1]))};
                     })
                 .getResult(0);
    auto probsType = RankedTensorType::get({batch, hq, sq, total}, smCompute);
    Value probs =
        generic(rewriter, loc, {logits, rowMax, rowSum}, {emptyTensor(rewriter, loc, probsType)},
                {id4, rowMap, rowMap, id4}, par4,
                [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                  Value e = shifted(nb, l, a[0], a[1]);
                  Value zero = floatConst(nb, l, smCompute, 0.0);
                  // A masked row has sum 0: keep its zeros.
                  Value isZero =
                      arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, a[2], zero);
                  Value p = arith::DivFOp::create(nb, l, e, a[2]);
                  p = arith::SelectOp::create(nb, l, isZero, zero, p);
                  // The probabilities in the softmax precision.
                  return {convertFloat(nb, l, convertFloat(nb, l, p, smType), smCompute)};
                })
            .getResult(0);

    // 4. Y[b, h, i, c] = sum_j probs[b, h, i, j] V[b, h / group, j, c],
    //    written as [B, Sq, Hq, Dv] for 3-D Y.
    Type yAcc = smCompute == acc ? acc : (acc.getIntOrFloatBitWidth() >= smCompute.getIntOrFloatBitWidth() ? acc : smCompute);
    SmallVector<int64_t> yShape = rank == 3 ? SmallVector<int64_t>{batch, sq, hq, dv}
                                            : SmallVector<int64_t>{batch, hq, sq, dv};
    auto yAccType = RankedTensorType::get(yShape, yAcc);
    Value y = buildFilled(rewriter, loc, yAccType, rewriter.getZeroAttr(yAcc));
    // Dims (b, h, i, c, j).
    AffineExpr cY = j0, jY = c0;
    SmallVector<AffineExpr> yAt = rank == 3 ? SmallVector<AffineExpr>{b0, i0, h0, cY}
                                            : SmallVector<AffineExpr>{b0, h0, i0, cY};
    y = generic(rewriter, loc, {probs, v.t}, {y},
                {mapOf(ctx, 5, {b0, h0, i0, jY}), mapOf(ctx, 5, v.at(b0, hk, jY, cY)),
                 mapOf(ctx, 5, yAt)},
                contraction,
                [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                  Value p = convertFloat(nb, l, a[0], yAcc);
                  Value x = convertFloat(nb, l, a[1], yAcc);
                  return {arith::AddFOp::create(nb, l, a[2], arith::MulFOp::create(nb, l, p, x))};
                })
            .getResult(0);
    y = convertTensor(rewriter, loc, y, yType.getElementType());
    if (rank == 3)
      y = tensor::CollapseShapeOp::create(rewriter, loc, yType, y,
                                          SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});

    // 5. The optional outputs that something reads.
    SmallVector<Value> results = {y, Value(), Value(), Value()};
    for (unsigned r : {1u, 2u}) {
      if (op->getResult(r).use_empty()) {
        results[r] = emptyTensor(rewriter, loc,
                                 cast<RankedTensorType>(getTypeConverter()->convertType(
                                     op->getResult(r).getType())));
        continue;
      }
      Value cache = r == 1 ? (hasPast ? presentK : headsFirst(rewriter, loc, k))
                           : (hasPast ? presentV : headsFirst(rewriter, loc, v));
      results[r] = cache;
    }
    if (wantQk)
      results[3] = mode == 3 ? convertTensor(rewriter, loc, probs, elem) : logitsOp.getResult(1);
    else
      results[3] = emptyTensor(rewriter, loc,
                               cast<RankedTensorType>(getTypeConverter()->convertType(
                                   op->getResult(3).getType())));
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RMSNormalization
//===----------------------------------------------------------------------===//

struct RMSNormalizationLowering : OpConversionPattern<onnx::RMSNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::RMSNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX(), scale = adaptor.getScale();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    RankedTensorType yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType || !xType || !xType.hasStaticShape() ||
        !cast<RankedTensorType>(scale.getType()).hasStaticShape())
      return rewriter.notifyMatchFailure(op, "X and scale must have static shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = xType.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    Type elem = xType.getElementType();
    Type stash;
    switch (op.getStashType()) {
    case 1: stash = rewriter.getF32Type(); break;
    case 10: stash = rewriter.getF16Type(); break;
    case 11: stash = rewriter.getF64Type(); break;
    case 16: stash = rewriter.getBF16Type(); break;
    default:
      return op.emitError("stash_type ") << op.getStashType() << " is not a float type";
    }
    Type sum = computeType(stash);
    int64_t count = 1;
    SmallVector<int64_t> rowShape;
    for (int64_t dd = 0; dd < rank; ++dd) {
      if (dd < axis)
        rowShape.push_back(xType.getDimSize(dd));
      else
        count *= xType.getDimSize(dd);
    }
    SmallVector<AffineExpr> rowExprs;
    for (int64_t dd = 0; dd < axis; ++dd)
      rowExprs.push_back(getAffineDimExpr(dd, ctx));
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap rowMap = mapOf(ctx, rank, rowExprs);
    SmallVector<IteratorType> its(rank, IteratorType::parallel);
    for (int64_t dd = axis; dd < rank; ++dd)
      its[dd] = IteratorType::reduction;
    auto rowType = RankedTensorType::get(rowShape, sum);
    Value sq = buildFilled(rewriter, loc, rowType, rewriter.getZeroAttr(sum));
    sq = generic(rewriter, loc, {x}, {sq}, {id, rowMap}, its,
                 [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                   Value v = convertFloat(nb, l, convertFloat(nb, l, a[0], stash), sum);
                   return {arith::AddFOp::create(nb, l, a[1], arith::MulFOp::create(nb, l, v, v))};
                 })
             .getResult(0);
    // inv[row] = 1 / sqrt(mean + epsilon), in the stash type.
    double eps = op.getEpsilon().convertToDouble();
    SmallVector<AffineExpr> all;
    for (int64_t dd = 0; dd < axis; ++dd)
      all.push_back(getAffineDimExpr(dd, ctx));
    AffineMap rowId = AffineMap::getMultiDimIdentityMap(axis, ctx);
    Value inv = generic(rewriter, loc, {sq}, {emptyTensor(rewriter, loc, rowType)},
                        {rowId, rowId}, SmallVector<IteratorType>(axis, IteratorType::parallel),
                        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                          Value mean = arith::DivFOp::create(
                              nb, l, a[0], floatConst(nb, l, sum, double(count)));
                          Value ms = arith::AddFOp::create(nb, l, mean, floatConst(nb, l, sum, eps));
                          ms = convertFloat(nb, l, convertFloat(nb, l, ms, stash), sum);
                          Value rms = math::SqrtOp::create(nb, l, ms);
                          return {rms};
                        })
                    .getResult(0);
    // Y = (T)(x / rms) * scale, scale broadcast from the right.
    auto sType = cast<RankedTensorType>(scale.getType());
    int64_t sRank = sType.getRank();
    SmallVector<AffineExpr> sExprs;
    for (int64_t dd = 0; dd < sRank; ++dd) {
      int64_t xd = rank - sRank + dd;
      sExprs.push_back(sType.getDimSize(dd) == 1 && xType.getDimSize(xd) != 1
                           ? getAffineConstantExpr(0, ctx)
                           : getAffineDimExpr(xd, ctx));
    }
    Type yElem = yType.getElementType();
    Value y = generic(rewriter, loc, {x, inv, scale}, {emptyTensor(rewriter, loc, yType)},
                      {id, rowMap, mapOf(ctx, rank, sExprs), id},
                      SmallVector<IteratorType>(rank, IteratorType::parallel),
                      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                        Value v = convertFloat(nb, l, convertFloat(nb, l, a[0], stash), sum);
                        Value n = arith::DivFOp::create(nb, l, v, a[1]);
                        n = convertFloat(nb, l, convertFloat(nb, l, n, stash), elem);
                        Type c = computeType(yElem);
                        Value s = arith::MulFOp::create(nb, l, convertFloat(nb, l, n, c),
                                                        convertFloat(nb, l, a[2], c));
                        return {convertFloat(nb, l, s, yElem)};
                      })
                  .getResult(0);
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

struct RotaryEmbeddingLowering : OpConversionPattern<onnx::RotaryEmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::RotaryEmbeddingOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX(), cosC = adaptor.getCosCache(), sinC = adaptor.getSinCache();
    Value ids = adaptor.getPositionIds();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto cType = dyn_cast<RankedTensorType>(cosC.getType());
    RankedTensorType yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType || !xType || !cType || !xType.hasStaticShape() || !cType.hasStaticShape() ||
        !cast<RankedTensorType>(sinC.getType()).hasStaticShape())
      return rewriter.notifyMatchFailure(op, "X and the caches must have static shapes");
    bool hasIds = present(ids);
    int64_t rank = xType.getRank();
    if ((rank != 3 && rank != 4) || (rank == 3 && (!op.getNumHeads() || *op.getNumHeads() < 1)))
      return rewriter.notifyMatchFailure(op, "X is not 4-D or 3-D with num_heads");
    int64_t heads = rank == 4 ? xType.getDimSize(1) : static_cast<int64_t>(*op.getNumHeads());
    int64_t head = rank == 4 ? xType.getDimSize(3) : xType.getDimSize(2) / heads;
    int64_t dim = op.getRotaryEmbeddingDim() ? static_cast<int64_t>(op.getRotaryEmbeddingDim())
                                             : head;
    int64_t half = dim / 2, positions = cType.getDimSize(0);
    bool interleaved = op.getInterleaved() != 0;
    Type elem = xType.getElementType(), c = computeType(elem);
    Location loc = op.getLoc();
    Value y = buildIndexedGeneric(
        rewriter, loc, yType, [&](OpBuilder &b, Location l, ArrayRef<Value> iv) -> Value {
          // (batch, seq, element within the head) and the position of the
          // element's head in X.
          Value bi = iv[0], si = rank == 4 ? iv[2] : iv[1], e;
          if (rank == 4)
            e = iv[3];
          else
            e = arith::RemUIOp::create(b, l, iv[2], indexConst(b, l, head));
          Value xv = tensor::ExtractOp::create(b, l, x, iv);
          Value rotated = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, e,
                                                indexConst(b, l, dim));
          // The pair (first, second) and whether this element is the second.
          Value isSecond, k;
          if (interleaved) {
            isSecond = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::ne,
                arith::RemUIOp::create(b, l, e, indexConst(b, l, 2)), indexConst(b, l, 0));
            k = arith::DivUIOp::create(b, l, e, indexConst(b, l, 2));
          } else {
            isSecond = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, e,
                                             indexConst(b, l, half));
            k = arith::SelectOp::create(b, l, isSecond,
                                        arith::SubIOp::create(b, l, e, indexConst(b, l, half)), e);
          }
          int64_t step = interleaved ? 1 : half;
          // Outside the rotated part k may exceed the caches: clamp it.
          k = clampIndex(b, l, k, indexConst(b, l, 0), indexConst(b, l, std::max<int64_t>(half - 1, 0)));
          Value last = iv.back();
          Value partnerPos = arith::SelectOp::create(
              b, l, isSecond, arith::SubIOp::create(b, l, last, indexConst(b, l, step)),
              arith::AddIOp::create(b, l, last, indexConst(b, l, step)));
          // Clamp into X's last dim (only reached for rotated elements).
          partnerPos = clampIndex(b, l, partnerPos, indexConst(b, l, 0),
                                  indexConst(b, l, xType.getDimSize(rank - 1) - 1));
          SmallVector<Value> pAt(iv.begin(), iv.end());
          pAt.back() = partnerPos;
          Value pv = tensor::ExtractOp::create(b, l, x, pAt);
          SmallVector<Value> cAt;
          if (hasIds) {
            Value id = tensor::ExtractOp::create(b, l, ids, ValueRange{bi, si});
            Value pos = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
            pos = clampIndex(b, l, pos, indexConst(b, l, 0),
                             indexConst(b, l, std::max<int64_t>(positions - 1, 0)));
            cAt = {pos, k};
          } else {
            cAt = {bi, si, k};
          }
          Value cv = convertFloat(b, l, tensor::ExtractOp::create(b, l, cosC, cAt), c);
          Value sv = convertFloat(b, l, tensor::ExtractOp::create(b, l, sinC, cAt), c);
          Value xc = convertFloat(b, l, xv, c), pc = convertFloat(b, l, pv, c);
          // first' = cos * first - sin * second; second' = sin * first + cos * second.
          Value asFirst = arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, cv, xc),
                                                arith::MulFOp::create(b, l, sv, pc));
          Value asSecond = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, sv, pc),
                                                 arith::MulFOp::create(b, l, cv, xc));
          Value r = arith::SelectOp::create(b, l, isSecond, asSecond, asFirst);
          r = convertFloat(b, l, r, elem);
          return arith::SelectOp::create(b, l, rotated, r, xv);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// CausalConvWithState
//===----------------------------------------------------------------------===//

struct CausalConvWithStateLowering : OpConversionPattern<onnx::CausalConvWithStateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::CausalConvWithStateOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput(), w = adaptor.getWeight(), bias = adaptor.getBias();
    Value past = adaptor.getPastState();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    RankedTensorType yType = staticResultType(rewriter, getTypeConverter(), op, 0);
    RankedTensorType sType = staticResultType(rewriter, getTypeConverter(), op, 1);
    if (!yType || !sType || !xType || !wType || !xType.hasStaticShape() ||
        !wType.hasStaticShape() || xType.getRank() != 3 || wType.getRank() != 3 ||
        (present(past) && !cast<RankedTensorType>(past.getType()).hasStaticShape()))
      return rewriter.notifyMatchFailure(op, "operands must be static 3-D tensors");
    StringRef act = op.getActivation();
    if (act != "none" && act != "silu" && act != "swish")
      return rewriter.notifyMatchFailure(op, "unknown activation");
    bool silu = act != "none";
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t batch = xType.getDimSize(0), channels = xType.getDimSize(1),
            length = xType.getDimSize(2), k = wType.getDimSize(2);
    if (k < 1 || wType.getDimSize(0) != channels)
      return rewriter.notifyMatchFailure(op, "weight is not [channels, 1, k]");
    Type elem = xType.getElementType(), c = computeType(elem);
    // padded = past (or zeros) followed by the input: [B, C, k - 1 + L].
    auto paddedType = RankedTensorType::get({batch, channels, k - 1 + length}, elem);
    Value padded = buildFilled(rewriter, loc, paddedType, rewriter.getZeroAttr(elem));
    SmallVector<int64_t> ones(3, 1);
    if (present(past))
      padded = tensor::InsertSliceOp::create(
          rewriter, loc, past, padded, getAsIndexOpFoldResult(ctx, {0, 0, 0}),
          getAsIndexOpFoldResult(ctx, {batch, channels, k - 1}),
          getAsIndexOpFoldResult(ctx, ones));
    padded = tensor::InsertSliceOp::create(rewriter, loc, x, padded,
                                           getAsIndexOpFoldResult(ctx, {0, 0, k - 1}),
                                           getAsIndexOpFoldResult(ctx, xType.getShape()),
                                           getAsIndexOpFoldResult(ctx, ones));
    // acc[b, ch, t] = sum_i w[ch, 0, i] * padded[b, ch, t + i].
    AffineExpr b0, c0, t0, i0;
    bindDims(ctx, b0, c0, t0, i0);
    auto accType = RankedTensorType::get({batch, channels, length}, c);
    Value acc = buildFilled(rewriter, loc, accType, rewriter.getZeroAttr(c));
    acc = generic(rewriter, loc, {padded, w}, {acc},
                  {mapOf(ctx, 4, {b0, c0, t0 + i0}),
                   mapOf(ctx, 4, {c0, getAffineConstantExpr(0, ctx), i0}),
                   mapOf(ctx, 4, {b0, c0, t0})},
                  {IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
                   IteratorType::reduction},
                  [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                    Value p = arith::MulFOp::create(nb, l, convertFloat(nb, l, a[0], c),
                                                    convertFloat(nb, l, a[1], c));
                    return {arith::AddFOp::create(nb, l, a[2], p)};
                  })
              .getResult(0);
    // output = act(acc + bias).
    AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
    SmallVector<Value> ins = {acc};
    SmallVector<AffineMap> maps = {id3};
    bool hasBias = present(bias);
    if (hasBias) {
      ins.push_back(bias);
      maps.push_back(AffineMap::get(3, 0, {getAffineDimExpr(1, ctx)}, ctx));
    }
    maps.push_back(id3);
    Value y = generic(rewriter, loc, ins, {emptyTensor(rewriter, loc, yType)}, maps,
                      SmallVector<IteratorType>(3, IteratorType::parallel),
                      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
                        Value v = a[0];
                        if (hasBias)
                          v = arith::AddFOp::create(nb, l, v, convertFloat(nb, l, a[1], c));
                        if (silu) {
                          // v * sigmoid(v) = v / (1 + exp(-v))
                          Value one = floatConst(nb, l, c, 1.0);
                          Value e = math::ExpOp::create(nb, l, arith::NegFOp::create(nb, l, v));
                          v = arith::DivFOp::create(nb, l, v,
                                                    arith::AddFOp::create(nb, l, one, e));
                        }
                        return {convertFloat(nb, l, v, elem)};
                      })
                  .getResult(0);
    // present_state: the last k - 1 positions of padded (none for k = 1).
    Value state = k == 1 ? emptyTensor(rewriter, loc, sType)
                         : tensor::ExtractSliceOp::create(
                               rewriter, loc, sType, padded,
                               getAsIndexOpFoldResult(ctx, {0, 0, length}),
                               getAsIndexOpFoldResult(ctx, {batch, channels, k - 1}),
                               getAsIndexOpFoldResult(ctx, ones))
                               .getResult();
    rewriter.replaceOp(op, {y, state});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// LinearAttention
//===----------------------------------------------------------------------===//

/// One scf.for over the tokens carrying the state [B, Hkv, dk, dv] and the
/// output [B, T, Hq, dv] (in the compute type); each step decays the state
/// (gated rules), applies the (delta) update with the token's key and value,
/// and writes q_t^T S_t * scale for every query head.
struct LinearAttentionLowering : OpConversionPattern<onnx::LinearAttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::LinearAttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value past = adaptor.getPastState(), decay = adaptor.getDecay(), beta = adaptor.getBeta();
    auto qType = dyn_cast<RankedTensorType>(q.getType());
    auto kType = dyn_cast<RankedTensorType>(k.getType());
    auto vType = dyn_cast<RankedTensorType>(v.getType());
    RankedTensorType yType = staticResultType(rewriter, getTypeConverter(), op, 0);
    RankedTensorType sType = staticResultType(rewriter, getTypeConverter(), op, 1);
    if (!yType || !sType || !qType || !kType || !vType || !qType.hasStaticShape() ||
        !kType.hasStaticShape() || !vType.hasStaticShape() || qType.getRank() != 3)
      return rewriter.notifyMatchFailure(op, "operands must be static 3-D tensors");
    for (Value x : {past, decay, beta})
      if (present(x) && !cast<RankedTensorType>(x.getType()).hasStaticShape())
        return rewriter.notifyMatchFailure(op, "operands must be static");
    if (!op.getQNumHeads() || !op.getKvNumHeads())
      return rewriter.notifyMatchFailure(op, "no head counts");
    int64_t hq = static_cast<int64_t>(*op.getQNumHeads());
    int64_t hkv = static_cast<int64_t>(*op.getKvNumHeads());
    if (hq < 1 || hkv < 1 || hq % hkv)
      return rewriter.notifyMatchFailure(op, "bad head counts");
    StringRef rule = op.getUpdateRule();
    bool gated = rule == "gated" || rule == "gated_delta";
    bool delta = rule == "delta" || rule == "gated_delta";
    if ((gated && !present(decay)) || (delta && !present(beta)))
      return rewriter.notifyMatchFailure(op, "decay or beta missing");
    int64_t batch = qType.getDimSize(0), tokens = qType.getDimSize(1);
    int64_t dk = qType.getDimSize(2) / hq, dv = vType.getDimSize(2) / hkv, group = hq / hkv;
    bool decayPerKey =
        gated && cast<RankedTensorType>(decay.getType()).getDimSize(2) == hkv * dk && dk != 1;
    bool betaPerHead = delta && cast<RankedTensorType>(beta.getType()).getDimSize(2) == hkv;
    double scale = op.getScale().convertToDouble();
    if (scale == 0.0)
      scale = 1.0 / std::sqrt(double(dk));
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type elem = qType.getElementType(), c = computeType(elem);
    if (computeType(sType.getElementType()) != c)
      c = rewriter.getF32Type();
    auto stateType = RankedTensorType::get({batch, hkv, dk, dv}, c);
    Value state0 = present(past) ? convertTensor(rewriter, loc, past, c)
                                 : buildFilled(rewriter, loc, stateType, rewriter.getZeroAttr(c));
    auto outType = RankedTensorType::get({batch, tokens, hq, dv}, c);
    Value out0 = emptyTensor(rewriter, loc, outType);
    auto read = [&](OpBuilder &b, Location l, Value t, ArrayRef<Value> at) {
      return convertFloat(b, l, tensor::ExtractOp::create(b, l, t, at), c);
    };
    auto idx = [&](OpBuilder &b, Location l, Value base, int64_t mul, Value add) -> Value {
      Value m = arith::MulIOp::create(b, l, base, indexConst(b, l, mul));
      return arith::AddIOp::create(b, l, m, add);
    };
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<IteratorType> par4(4, IteratorType::parallel);
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 0), indexConst(rewriter, loc, tokens),
        indexConst(rewriter, loc, 1), ValueRange{state0, out0},
        [&](OpBuilder &b, Location l, Value t, ValueRange args) {
          Value s = args[0], y = args[1];
          // Decay: S[b, h, i, :] *= exp(g).
          if (gated)
            s = generic(b, l, {}, {s}, {id4}, par4,
                        [&](OpBuilder &nb, Location nl, ValueRange a) -> SmallVector<Value> {
                          Value bi = linalg::IndexOp::create(nb, nl, 0);
                          Value hi = linalg::IndexOp::create(nb, nl, 1);
                          Value ii = linalg::IndexOp::create(nb, nl, 2);
                          Value col = decayPerKey ? idx(nb, nl, hi, dk, ii) : hi;
                          Value g = read(nb, nl, decay, {bi, t, col});
                          return {arith::MulFOp::create(nb, nl, a[0],
                                                        math::ExpOp::create(nb, nl, g))};
                        })
                    .getResult(0);
          // u[b, h, c] = sum_i S[b, h, i, c] k[i] (the delta rules' prediction).
          Value u;
          if (delta) {
            auto uType = RankedTensorType::get({batch, hkv, dv}, c);
            AffineExpr d0, d1, d2, d3;
            bindDims(ctx, d0, d1, d2, d3);
            u = generic(b, l, {s}, {buildFilled(b, l, uType, b.getZeroAttr(c))},
                        {mapOf(ctx, 4, {d0, d1, d3, d2}), mapOf(ctx, 4, {d0, d1, d2})},
                        {IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
                         IteratorType::reduction},
                        [&](OpBuilder &nb, Location nl, ValueRange a) -> SmallVector<Value> {
                          Value bi = linalg::IndexOp::create(nb, nl, 0);
                          Value hi = linalg::IndexOp::create(nb, nl, 1);
                          Value ii = linalg::IndexOp::create(nb, nl, 3);
                          Value kv = read(nb, nl, k, {bi, t, idx(nb, nl, hi, dk, ii)});
                          return {arith::AddFOp::create(nb, nl, a[1],
                                                        arith::MulFOp::create(nb, nl, a[0], kv))};
                        })
                    .getResult(0);
          }
          // S += k (v - u)^T * beta, or k v^T, in place (the loop carries S).
          SmallVector<Value> ins;
          SmallVector<AffineMap> maps;
          if (delta) {
            ins.push_back(u);
            AffineExpr d0, d1, d2, d3;
            bindDims(ctx, d0, d1, d2, d3);
            maps.push_back(mapOf(ctx, 4, {d0, d1, d3}));
          }
          maps.push_back(id4);
          s = generic(b, l, ins, {s}, maps, par4,
                      [&](OpBuilder &nb, Location nl, ValueRange a) -> SmallVector<Value> {
                        Value bi = linalg::IndexOp::create(nb, nl, 0);
                        Value hi = linalg::IndexOp::create(nb, nl, 1);
                        Value ii = linalg::IndexOp::create(nb, nl, 2);
                        Value ci = linalg::IndexOp::create(nb, nl, 3);
                        Value kv = read(nb, nl, k, {bi, t, idx(nb, nl, hi, dk, ii)});
                        Value vv = read(nb, nl, v, {bi, t, idx(nb, nl, hi, dv, ci)});
                        Value upd;
                        if (delta) {
                          Value bt = read(nb, nl, beta,
                                          {bi, t, betaPerHead ? hi : indexConst(nb, nl, 0)});
                          Value diff = arith::SubFOp::create(nb, nl, vv, a[0]);
                          upd = arith::MulFOp::create(
                              nb, nl, bt, arith::MulFOp::create(nb, nl, kv, diff));
                        } else {
                          upd = arith::MulFOp::create(nb, nl, kv, vv);
                        }
                        return {arith::AddFOp::create(nb, nl, a.back(), upd)};
                      })
                  .getResult(0);
          // o[b, hq, c] = scale * sum_i q[i] S[b, hq / group, i, c].
          auto oType = RankedTensorType::get({batch, hq, dv}, c);
          AffineExpr d0, d1, d2, d3;
          bindDims(ctx, d0, d1, d2, d3);
          AffineExpr hk = group == 1 ? d1 : d1.floorDiv(group);
          Value o = generic(b, l, {s}, {buildFilled(b, l, oType, b.getZeroAttr(c))},
                            {mapOf(ctx, 4, {d0, hk, d3, d2}), mapOf(ctx, 4, {d0, d1, d2})},
                            {IteratorType::parallel, IteratorType::parallel,
                             IteratorType::parallel, IteratorType::reduction},
                            [&](OpBuilder &nb, Location nl, ValueRange a) -> SmallVector<Value> {
                              Value bi = linalg::IndexOp::create(nb, nl, 0);
                              Value hi = linalg::IndexOp::create(nb, nl, 1);
                              Value ii = linalg::IndexOp::create(nb, nl, 3);
                              Value qv = read(nb, nl, q, {bi, t, idx(nb, nl, hi, dk, ii)});
                              qv = arith::MulFOp::create(nb, nl, qv, floatConst(nb, nl, c, scale));
                              return {arith::AddFOp::create(
                                  nb, nl, a[1], arith::MulFOp::create(nb, nl, a[0], qv))};
                            })
                        .getResult(0);
          auto rowType = RankedTensorType::get({batch, 1, hq, dv}, c);
          o = tensor::ExpandShapeOp::create(b, l, rowType, o,
                                            SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
          SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), t, b.getIndexAttr(0),
                                               b.getIndexAttr(0)};
          y = tensor::InsertSliceOp::create(b, l, o, y, offsets,
                                            getAsIndexOpFoldResult(ctx, rowType.getShape()),
                                            getAsIndexOpFoldResult(ctx, {1, 1, 1, 1}));
          scf::YieldOp::create(b, l, ValueRange{s, y});
        });
    Value y = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({batch, tokens, hq * dv}, c), loop.getResult(1),
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
    y = convertTensor(rewriter, loc, y, yType.getElementType());
    Value st = convertTensor(rewriter, loc, loop.getResult(0), sType.getElementType());
    rewriter.replaceOp(op, {y, st});
    return success();
  }
};

} // namespace

void populateTransformerPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AttentionLowering, RMSNormalizationLowering, RotaryEmbeddingLowering,
               CausalConvWithStateLowering, LinearAttentionLowering>(
      converter, patterns.getContext());
}

} // namespace onnxcc::lowering
