//===- Signal.cpp - DFT, STFT and MelWeightMatrix to linalg ---------------===//
//
// DFT with static shapes and a constant dft_length is a contraction with a
// constant matrix: out[.., k, .., oc] = sum over j, ic of
// x[.., j, .., ic] * W[k, oc, j, ic], where W holds the cos/sin twiddles
// (computed in double, the angle reduced mod n first) for the forward,
// inverse (scaled by 1/n), one-sided forward (RFFT: the first n / 2 + 1
// bins) and one-sided inverse (IRFFT: the bins above n / 2 are the
// conjugates of those below, the result real) transforms. Input positions
// at or beyond n are dropped (W is 0 there); an input shorter than n reads
// as zero-padded.
//
// With kernels on (--target-cpu other than none), float32 DFT and STFT with
// static shapes and constant lengths become one call to
// onnxcc_rt::kernels::fft_lines instead (runtime-support/
// onnxcc_kernels_fft.h): batched mixed-radix or Bluestein FFTs whose
// twiddles are computed here, in double, into a constant blob. STFT's frames
// and window are strides and a multiplier of that call. The contraction
// stays the fallback (other dtypes, dynamic shapes, the Halide and CUDA
// targets).
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/KernelCall.h"
#include "lowering/OnnxToLinalg/Patterns.h"

#include "dialects/onnx/OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "dialects/onnx/Transforms/Constants.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include "runtime-support/onnxcc_kernels.h"

#include <cmath>

using namespace mlir;

namespace onnxcc::lowering {
namespace {

using onnx::constantInts;

/// cos and sin of 2 pi (k j mod n) / n.
std::pair<double, double> twiddle(int64_t k, int64_t j, int64_t n) {
  double angle = 2.0 * M_PI * static_cast<double>((k % n) * (j % n) % n) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

/// `v` (a float scalar) converted to `to`.
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  auto from = cast<FloatType>(v.getType());
  auto target = cast<FloatType>(to);
  if (from == target)
    return v;
  if (from.getWidth() < target.getWidth())
    return arith::ExtFOp::create(b, loc, target, v);
  return arith::TruncFOp::create(b, loc, target, v);
}

/// out = sum over j, ic of x[.., j at `axis`, .., ic] * w[k, oc, j, ic],
/// computed in the element type of `w`, then converted to `type`'s.
/// Without `w` (null), `coefficient(k, oc, j, ic)` computes each entry in the
/// loop body instead ([j, ic] sized by `jSize`, `icSize`).
Value contractAlong(
    OpBuilder &b, Location loc, Value x, Value w, int64_t axis, RankedTensorType type,
    FloatType calcElem = {}, int64_t jSize = 0, int64_t icSize = 0,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value, Value, Value)> coefficient =
        nullptr) {
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  Type calc = w ? cast<RankedTensorType>(w.getType()).getElementType() : Type(calcElem);
  if (!w) // Only sizes the j and ic loops.
    w = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{jSize, icSize}, calc);
  SmallVector<AffineExpr> xExprs, wExprs, outExprs;
  for (int64_t i = 0; i < rank; ++i) {
    outExprs.push_back(getAffineDimExpr(i, ctx));
    if (i == axis)
      xExprs.push_back(getAffineDimExpr(rank, ctx));
    else if (i == rank - 1)
      xExprs.push_back(getAffineDimExpr(rank + 1, ctx));
    else
      xExprs.push_back(getAffineDimExpr(i, ctx));
  }
  if (coefficient)
    wExprs = {getAffineDimExpr(rank, ctx), getAffineDimExpr(rank + 1, ctx)};
  else
    wExprs = {getAffineDimExpr(axis, ctx), getAffineDimExpr(rank - 1, ctx),
              getAffineDimExpr(rank, ctx), getAffineDimExpr(rank + 1, ctx)};
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 2, 0, xExprs, ctx),
                                 AffineMap::get(rank + 2, 0, wExprs, ctx),
                                 AffineMap::get(rank + 2, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  iterators.push_back(utils::IteratorType::reduction);
  auto calcType = RankedTensorType::get(type.getShape(), calc);
  Value init = buildFilled(b, loc, calcType, b.getFloatAttr(calc, 0.0));
  Value sum = linalg::GenericOp::create(
                  b, loc, TypeRange{calcType}, ValueRange{x, w}, ValueRange{init}, maps,
                  iterators,
                  [&](OpBuilder &nb, Location l, ValueRange args) {
                    Value xv = convertFloat(nb, l, args[0], calc);
                    Value coef =
                        coefficient ? coefficient(nb, l, linalg::IndexOp::create(nb, l, axis),
                                                  linalg::IndexOp::create(nb, l, rank - 1),
                                                  linalg::IndexOp::create(nb, l, rank),
                                                  linalg::IndexOp::create(nb, l, rank + 1))
                                    : args[1];
                    Value p = arith::MulFOp::create(nb, l, xv, coef);
                    linalg::YieldOp::create(nb, l,
                                            Value(arith::AddFOp::create(nb, l, args[2], p)));
                  })
                  .getResult(0);
  if (calc == type.getElementType())
    return sum;
  return buildBroadcastGeneric(b, loc, type, ValueRange{sum},
                               [&](OpBuilder &nb, Location l, ValueRange args) {
                                 return convertFloat(nb, l, args[0], type.getElementType());
                               });
}

struct DFTLowering : OpConversionPattern<onnx::DFTOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::DFTOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getInput();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !xType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "input needs a static shape");
    auto elem = dyn_cast<FloatType>(xType.getElementType());
    if (!elem)
      return rewriter.notifyMatchFailure(op, "input must be float");
    int64_t rank = xType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis > rank - 2 || type.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t m = xType.getDimSize(axis), inC = xType.getDimSize(rank - 1);
    bool inverse = op.getInverse() != 0, onesided = op.getOnesided() != 0;
    bool irfft = inverse && onesided;
    int64_t n = irfft ? 2 * (m - 1) : m;
    if (!isa<NoneType>(op.getDftLength().getType())) {
      auto len = constantInts(op.getDftLength());
      if (!len || len->size() != 1)
        return rewriter.notifyMatchFailure(op, "dft_length must be a constant");
      n = (*len)[0];
    }
    int64_t k = type.getDimSize(axis), outC = type.getDimSize(rank - 1);
    if (n < 1 || (inC != 1 && inC != 2) || outC != (irfft ? 1 : 2) ||
        k != (onesided && !inverse ? n / 2 + 1 : n))
      return rewriter.notifyMatchFailure(op, "input and result shapes do not match");
    Location loc = op.getLoc();
    if (type.getNumElements() == 0 || m == 0) {
      rewriter.replaceOp(op, buildFilled(rewriter, loc, type, rewriter.getFloatAttr(elem, 0.0)));
      return success();
    }
    FloatType calc = elem.getWidth() == 64 ? FloatType(rewriter.getF64Type())
                                           : FloatType(rewriter.getF32Type());
    if (k * outC * m * inC > (int64_t(1) << 22)) {
      // Too large a matrix to keep: the same entries computed in the loop
      // (cos and sin per term), in f64 then `calc`.
      auto coefficient = [&](OpBuilder &nb, Location l, Value kk, Value oc, Value j,
                             Value ic) -> Value {
        FloatType f64 = nb.getF64Type();
        auto c64 = [&](double v) { return floatConst(nb, l, f64, v); };
        auto idx = [&](int64_t v) { return indexConst(nb, l, v); };
        using P = arith::CmpIPredicate;
        auto cmp = [&](P p, Value a, Value bb) { return arith::CmpIOp::create(nb, l, p, a, bb); };
        auto sel = [&](Value c, Value a, Value bb) {
          return arith::SelectOp::create(nb, l, c, a, bb).getResult();
        };
        Value kj = arith::RemUIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, arith::RemUIOp::create(nb, l, kk, idx(n)),
                                  arith::RemUIOp::create(nb, l, j, idx(n))),
            idx(n));
        Value angle = arith::MulFOp::create(
            nb, l, c64(2.0 * M_PI / static_cast<double>(n)),
            arith::UIToFPOp::create(nb, l, f64,
                                    arith::IndexCastOp::create(nb, l, nb.getI64Type(), kj)));
        Value c = math::CosOp::create(nb, l, angle), sn = math::SinOp::create(nb, l, angle);
        Value isRe = cmp(P::eq, ic, idx(0));
        Value v;
        if (!irfft) {
          if (!inverse)
            sn = arith::NegFOp::create(nb, l, sn);
          // oc 0: c (ic 0), -s (ic 1); oc 1: s (ic 0), c (ic 1).
          Value re = sel(isRe, c, arith::NegFOp::create(nb, l, sn));
          Value im = sel(isRe, sn, c);
          v = sel(cmp(P::eq, oc, idx(0)), re, im);
          v = sel(cmp(P::ult, j, idx(std::min(m, n))), v, c64(0.0));
          if (inverse)
            v = arith::MulFOp::create(nb, l, v, c64(1.0 / static_cast<double>(n)));
        } else {
          // Bin j counted once (j == 0, j == n / 2 for even n) or twice
          // (with its conjugate n - j); nothing above n / 2.
          Value twice = arith::AndIOp::create(
              nb, l, cmp(P::ugt, j, idx(0)),
              arith::AndIOp::create(
                  nb, l, cmp(P::ule, j, idx(n / 2)),
                  cmp(P::ne, arith::MulIOp::create(nb, l, j, idx(2)), idx(n))));
          Value weight = sel(twice, c64(2.0 / static_cast<double>(n)),
                             c64(1.0 / static_cast<double>(n)));
          weight = sel(cmp(P::ule, j, idx(n / 2)), weight, c64(0.0));
          v = arith::MulFOp::create(nb, l, sel(isRe, c, arith::NegFOp::create(nb, l, sn)),
                                    weight);
        }
        return convertFloat(nb, l, v, calc);
      };
      rewriter.replaceOp(op, contractAlong(rewriter, loc, x, Value(), axis, type, calc, m, inC,
                                           coefficient));
      return success();
    }
    // W [k, oc, j, ic].
    std::vector<double> w(static_cast<size_t>(k * outC * m * inC), 0.0);
    auto at = [&](int64_t kk, int64_t oc, int64_t j, int64_t ic) -> double & {
      return w[static_cast<size_t>(((kk * outC + oc) * m + j) * inC + ic)];
    };
    double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    if (!irfft) {
      // (xr + i xi)(c + i s), s = +-sin by direction.
      double sign = inverse ? 1.0 : -1.0;
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < std::min(m, n); ++j) {
          auto [c, s] = twiddle(kk, j, n);
          s *= sign;
          at(kk, 0, j, 0) = c * scale;
          at(kk, 1, j, 0) = s * scale;
          if (inC == 2) {
            at(kk, 0, j, 1) = -s * scale;
            at(kk, 1, j, 1) = c * scale;
          }
        }
    } else {
      // out[t] = 1/n sum over all n bins of Re(X[b] e^{+i theta}), bin b read
      // from the input when b <= n / 2, else the conjugate of bin n - b.
      for (int64_t t = 0; t < k; ++t)
        for (int64_t bin = 0; bin < n; ++bin) {
          bool direct = bin <= n / 2;
          int64_t j = direct ? bin : n - bin;
          if (j >= m)
            continue;
          auto [c, s] = twiddle(bin, t, n);
          at(t, 0, j, 0) += c * scale;
          if (inC == 2)
            at(t, 0, j, 1) += (direct ? -s : s) * scale;
        }
    }
    auto wType = RankedTensorType::get({k, outC, m, inC}, calc);
    DenseElementsAttr attr;
    if (calc.isF64()) {
      attr = DenseElementsAttr::get(wType, ArrayRef<double>(w));
    } else {
      std::vector<float> wf(w.begin(), w.end());
      attr = DenseElementsAttr::get(wType, ArrayRef<float>(wf));
    }
    Value wConst = arith::ConstantOp::create(rewriter, loc, attr);
    rewriter.replaceOp(op, contractAlong(rewriter, loc, x, wConst, axis, type));
    return success();
  }
};


/// `v` (an integer or float scalar) as `to` (a float type).
Value toFloat(OpBuilder &b, Location loc, Value v, FloatType to) {
  if (isa<FloatType>(v.getType()))
    return convertFloat(b, loc, v, to);
  return arith::SIToFPOp::create(b, loc, to, v);
}

/// MelWeightMatrix as ONNX's reference computes it: the mel range split
/// into num_mel_bins + 1 steps (mel scale and step in float32 as the
/// reference does, the rest in double), each edge mapped to the spectrogram
/// bin floor((dft_length + 1) * hz / sample_rate); column i is the triangle
/// rising from edge i to edge i + 1 and falling to edge i + 2.
struct MelWeightMatrixLowering : OpConversionPattern<onnx::MelWeightMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MelWeightMatrixOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    if (!type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "needs a 2-D result");
    for (Value v : adaptor.getOperands()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || !t.hasStaticShape() || t.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "inputs must be scalars");
    }
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type();
    auto asI64 = [&](Value v) -> Value {
      auto it = cast<IntegerType>(v.getType());
      return it.getWidth() == 64 ? v : Value(arith::ExtSIOp::create(b, loc, i64, v));
    };
    Value numMel = asI64(scalarOf(b, loc, adaptor.getNumMelBins()));
    Value dftLength = asI64(scalarOf(b, loc, adaptor.getDftLength()));
    Value sampleRate = scalarOf(b, loc, adaptor.getSampleRate());
    Value lower = scalarOf(b, loc, adaptor.getLowerEdgeHertz());
    Value upper = scalarOf(b, loc, adaptor.getUpperEdgeHertz());
    const OnnxTypeConverter &types = onnxConverter(getTypeConverter());
    SmallVector<Value> sizes;
    unsigned k = 0;
    auto zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    if (type.isDynamicDim(0)) {
      Value bins = arith::AddIOp::create(
          b, loc,
          arith::DivSIOp::create(b, loc, dftLength, arith::ConstantIntOp::create(b, loc, 2, 64)),
          arith::ConstantIntOp::create(b, loc, 1, 64));
      bins = arith::MaxSIOp::create(b, loc, bins, zero);
      Value n = types.defineDataDim(b, loc, op, k++,
                                    arith::IndexCastOp::create(b, loc, b.getIndexType(), bins));
      if (!n)
        return rewriter.notifyMatchFailure(op, "its bin count has no bound");
      sizes.push_back(n);
    }
    if (type.isDynamicDim(1)) {
      Value mels = arith::MaxSIOp::create(b, loc, numMel, zero);
      Value n = types.defineDataDim(b, loc, op, k++,
                                    arith::IndexCastOp::create(b, loc, b.getIndexType(), mels));
      if (!n)
        return rewriter.notifyMatchFailure(op, "its mel bin count has no bound");
      sizes.push_back(n);
    }
    FloatType f32 = b.getF32Type(), f64 = b.getF64Type();
    auto c32 = [&](double v) { return floatConst(b, loc, f32, v); };
    auto toMel = [&](Value hz) {
      Value x = arith::AddFOp::create(b, loc, c32(1.0),
                                      arith::DivFOp::create(b, loc, toFloat(b, loc, hz, f32),
                                                            c32(700.0)));
      return arith::MulFOp::create(b, loc, c32(2595.0), math::Log10Op::create(b, loc, x));
    };
    Value lowMel = toMel(lower), highMel = toMel(upper);
    Value count = arith::AddIOp::create(b, loc, numMel, arith::ConstantIntOp::create(b, loc, 2, 64));
    Value step = arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, highMel, lowMel),
                                       toFloat(b, loc, count, f32));
    Value step64 = convertFloat(b, loc, step, f64), low64 = convertFloat(b, loc, lowMel, f64);
    Type elem = type.getElementType();
    Value result = buildIndexedGeneric(
        b, loc, type,
        [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) -> Value {
          auto c64 = [&](double v) { return floatConst(nb, l, f64, v); };
          Value j = arith::IndexCastOp::create(nb, l, i64, ivs[0]);
          Value i = arith::IndexCastOp::create(nb, l, i64, ivs[1]);
          // Edge t: floor((dft_length + 1) * 700 (10^(mel_t / 2595) - 1) / sample_rate).
          auto edge = [&](int64_t off) -> Value {
            Value t = arith::AddIOp::create(nb, l, i, arith::ConstantIntOp::create(nb, l, off, 64));
            Value mel = arith::AddFOp::create(
                nb, l, arith::MulFOp::create(nb, l, toFloat(nb, l, t, f64), step64), low64);
            Value hz = arith::MulFOp::create(
                nb, l, c64(700.0),
                arith::SubFOp::create(
                    nb, l,
                    math::PowFOp::create(nb, l, c64(10.0),
                                         arith::DivFOp::create(nb, l, mel, c64(2595.0))),
                    c64(1.0)));
            // (dft_length + 1) * hz // sample_rate, as numpy's floor division.
            Value num = arith::MulFOp::create(
                nb, l,
                toFloat(nb, l, arith::AddIOp::create(nb, l, dftLength,
                                                     arith::ConstantIntOp::create(nb, l, 1, 64)),
                        f64),
                hz);
            Value q = math::FloorOp::create(
                nb, l, arith::DivFOp::create(nb, l, num, toFloat(nb, l, sampleRate, f64)));
            return arith::FPToSIOp::create(nb, l, i64, q);
          };
          Value lo = edge(0), ce = edge(1), hi = edge(2);
          using P = arith::CmpIPredicate;
          auto cmp = [&](P p, Value x, Value y) { return arith::CmpIOp::create(nb, l, p, x, y); };
          auto ratio = [&](Value num, Value den) {
            return arith::DivFOp::create(nb, l, toFloat(nb, l, num, f64), toFloat(nb, l, den, f64));
          };
          Value lowToCenter = arith::SubIOp::create(nb, l, ce, lo);
          Value centerToHigh = arith::SubIOp::create(nb, l, hi, ce);
          Value zero64 = arith::ConstantIntOp::create(nb, l, 0, 64);
          Value flat = cmp(P::eq, lowToCenter, zero64);
          // Rising side (or the single 1 of a flat one).
          Value onRise = arith::AndIOp::create(nb, l, cmp(P::sge, j, lo), cmp(P::sle, j, ce));
          Value rise = arith::SelectOp::create(nb, l, flat, c64(1.0),
                                               ratio(arith::SubIOp::create(nb, l, j, lo),
                                                     arith::SelectOp::create(
                                                         nb, l, flat,
                                                         arith::ConstantIntOp::create(nb, l, 1, 64),
                                                         lowToCenter)));
          Value riseApplies = arith::SelectOp::create(nb, l, flat, cmp(P::eq, j, ce), onRise);
          Value v = arith::SelectOp::create(nb, l, riseApplies, rise, c64(0.0));
          // Falling side, written after (it wins at the center).
          Value onFall = arith::AndIOp::create(
              nb, l, cmp(P::sgt, centerToHigh, zero64),
              arith::AndIOp::create(nb, l, cmp(P::sge, j, ce), cmp(P::slt, j, hi)));
          Value safeDen = arith::SelectOp::create(nb, l, cmp(P::sgt, centerToHigh, zero64),
                                                  centerToHigh,
                                                  arith::ConstantIntOp::create(nb, l, 1, 64));
          Value fall = ratio(arith::SubIOp::create(nb, l, hi, j), safeDen);
          v = arith::SelectOp::create(nb, l, onFall, fall, v);
          if (auto fe = dyn_cast<FloatType>(elem))
            return convertFloat(nb, l, v, fe);
          return castScalar(nb, l, v, f64, elem);
        },
        sizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// STFT: Y[b, f, k, c] = sum over t < frame_length of
/// x[b, f * frame_step + t] * window[t] * e^{-2 pi i k t / frame_length}
/// (c: real or imaginary part), one generic with t a reduction dim of the
/// static bound (frame_length when known, else the signal length) that
/// masks t >= frame_length; accumulated in double. frame_step and
/// frame_length may be known at run time only: the frame and bin counts are
/// then data-dependent dims.
struct STFTLowering : OpConversionPattern<onnx::STFTOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::STFTOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    Value x = adaptor.getSignal();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || type.getRank() != 4 || !xType || !xType.hasStaticShape() ||
        xType.getRank() != 3 || type.isDynamicDim(0) || type.isDynamicDim(3) ||
        type.getDimSize(3) != 2)
      return rewriter.notifyMatchFailure(op, "signal must be static [batch, length, 1 or 2]");
    auto elem = dyn_cast<FloatType>(xType.getElementType());
    int64_t length = xType.getDimSize(1), inC = xType.getDimSize(2);
    if (!elem || (inC != 1 && inC != 2))
      return rewriter.notifyMatchFailure(op, "signal must be float [batch, length, 1 or 2]");
    bool onesided = op.getOnesided() != 0;
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type(), index = b.getIndexType();
    Value window = adaptor.getWindow();
    auto wType = dyn_cast<RankedTensorType>(window.getType());
    if (wType && (!wType.hasStaticShape() || wType.getRank() != 1 || wType.getDimSize(0) < 1))
      return rewriter.notifyMatchFailure(op, "window must be static and 1-D");
    auto asIndex = [&](Value t) -> Value {
      return arith::IndexCastOp::create(b, loc, index, scalarOf(b, loc, t));
    };
    Value fl;
    int64_t bound;
    if (auto lenType = dyn_cast<RankedTensorType>(adaptor.getFrameLength().getType())) {
      if (!lenType.hasStaticShape() || lenType.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "frame_length must be a scalar");
      fl = asIndex(adaptor.getFrameLength());
      bound = wType ? wType.getDimSize(0) : length;
    } else if (wType) {
      fl = indexConst(b, loc, wType.getDimSize(0));
      bound = wType.getDimSize(0);
    } else {
      return rewriter.notifyMatchFailure(op, "needs a window or frame_length");
    }
    auto stepType = dyn_cast<RankedTensorType>(adaptor.getFrameStep().getType());
    if (!stepType || !stepType.hasStaticShape() || stepType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "frame_step must be a scalar");
    Value one = indexConst(b, loc, 1), zero = indexConst(b, loc, 0);
    fl = arith::MaxSIOp::create(b, loc, fl, one);
    Value step = arith::MaxSIOp::create(b, loc, asIndex(adaptor.getFrameStep()), one);
    const OnnxTypeConverter &types = onnxConverter(getTypeConverter());
    SmallVector<Value> sizes;
    unsigned k = 0;
    if (type.isDynamicDim(1)) {
      // (length - frame_length) / frame_step + 1, 0 when the frame is longer.
      Value room = arith::SubIOp::create(b, loc, indexConst(b, loc, length), fl);
      Value frames = arith::AddIOp::create(
          b, loc, arith::DivSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, room, zero), step),
          one);
      frames = arith::SelectOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, room, zero), zero,
          frames);
      Value n = types.defineDataDim(b, loc, op, k++, frames);
      if (!n)
        return rewriter.notifyMatchFailure(op, "its frame count has no bound");
      sizes.push_back(n);
    }
    if (type.isDynamicDim(2)) {
      Value bins = onesided ? Value(arith::AddIOp::create(
                                  b, loc, arith::DivSIOp::create(b, loc, fl, indexConst(b, loc, 2)),
                                  one))
                            : fl;
      Value n = types.defineDataDim(b, loc, op, k++, bins);
      if (!n)
        return rewriter.notifyMatchFailure(op, "its bin count has no bound");
      sizes.push_back(n);
    }
    FloatType f64 = b.getF64Type();
    MLIRContext *ctx = b.getContext();
    auto accType = RankedTensorType::get(type.getShape(), f64);
    Value init = buildFilled(b, loc, accType, b.getF64FloatAttr(0.0), sizes);
    Value taps = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{bound}, f64);
    SmallVector<AffineMap> maps = {AffineMap::get(5, 0, {getAffineDimExpr(4, ctx)}, ctx),
                                   AffineMap::getMultiDimIdentityMap(4, ctx)};
    maps[1] = AffineMap::get(5, 0,
                             {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
                              getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)},
                             ctx);
    SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value flF = toFloat(b, loc, arith::IndexCastOp::create(b, loc, i64, fl), f64);
    Value sum =
        linalg::GenericOp::create(
            b, loc, TypeRange{accType}, ValueRange{taps}, ValueRange{init}, maps, iterators,
            [&](OpBuilder &nb, Location l, ValueRange args) {
              auto c64 = [&](double v) { return floatConst(nb, l, f64, v); };
              Value bi = linalg::IndexOp::create(nb, l, 0), f = linalg::IndexOp::create(nb, l, 1);
              Value kk = linalg::IndexOp::create(nb, l, 2), c = linalg::IndexOp::create(nb, l, 3);
              Value t = linalg::IndexOp::create(nb, l, 4);
              Value pos = arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, f, step), t);
              Value valid = arith::AndIOp::create(
                  nb, l, arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, t, fl),
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, pos,
                                        indexConst(nb, l, length)));
              pos = clampIndex(nb, l, pos, indexConst(nb, l, 0), indexConst(nb, l, length - 1));
              Value xr = toFloat(nb, l, tensor::ExtractOp::create(
                                            nb, l, x, ValueRange{bi, pos, indexConst(nb, l, 0)}),
                                 f64);
              Value xi = inC == 2 ? toFloat(nb, l,
                                            tensor::ExtractOp::create(
                                                nb, l, x, ValueRange{bi, pos, indexConst(nb, l, 1)}),
                                            f64)
                                  : c64(0.0);
              if (wType) {
                Value wt = clampIndex(nb, l, t, indexConst(nb, l, 0),
                                      indexConst(nb, l, wType.getDimSize(0) - 1));
                Value w = toFloat(nb, l, tensor::ExtractOp::create(nb, l, window, ValueRange{wt}),
                                  f64);
                xr = arith::MulFOp::create(nb, l, xr, w);
                xi = arith::MulFOp::create(nb, l, xi, w);
              }
              // 2 pi ((k t) mod frame_length) / frame_length.
              Value kt = arith::RemUIOp::create(nb, l, arith::MulIOp::create(nb, l, kk, t), fl);
              Value angle = arith::DivFOp::create(
                  nb, l,
                  arith::MulFOp::create(
                      nb, l, c64(2 * M_PI),
                      toFloat(nb, l, arith::IndexCastOp::create(nb, l, i64, kt), f64)),
                  flF);
              Value cs = math::CosOp::create(nb, l, angle), sn = math::SinOp::create(nb, l, angle);
              Value re = arith::AddFOp::create(nb, l, arith::MulFOp::create(nb, l, xr, cs),
                                               arith::MulFOp::create(nb, l, xi, sn));
              Value im = arith::SubFOp::create(nb, l, arith::MulFOp::create(nb, l, xi, cs),
                                               arith::MulFOp::create(nb, l, xr, sn));
              Value isRe = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, c,
                                                 indexConst(nb, l, 0));
              Value v = arith::SelectOp::create(nb, l, isRe, re, im);
              v = arith::SelectOp::create(nb, l, valid, v, c64(0.0));
              linalg::YieldOp::create(nb, l, Value(arith::AddFOp::create(nb, l, args[1], v)));
            })
            .getResult(0);
    Value result = sum;
    if (elem != f64) {
      Value out = emptyTensor(b, loc, type, sizes);
      result = linalg::GenericOp::create(
                   b, loc, TypeRange{type}, ValueRange{sum}, ValueRange{out},
                   SmallVector<AffineMap>(2, AffineMap::getMultiDimIdentityMap(4, ctx)),
                   SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                   [&](OpBuilder &nb, Location l, ValueRange args) {
                     linalg::YieldOp::create(nb, l, convertFloat(nb, l, args[0], elem));
                   })
                   .getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

namespace k = onnxcc_rt::kernels;

/// The strides and lengths of one fft_lines call (see the kernel).
struct FftLines {
  int64_t outer, inner, xsOuter, xsInner, xsElem, xLen, xC;
  int64_t ysOuter, ysInner, ysElem, yLen, yC;
  int64_t n;
  int32_t mode;
};

/// Replaces `op` by a call to fft_lines over `x` (and `window`, if any),
/// its twiddles computed here into a constant blob; `type` is the result.
LogicalResult emitFftLines(ConversionPatternRewriter &rewriter, Operation *op, Value x,
                           Value window, RankedTensorType type, const FftLines &l, int isa,
                           int64_t threads) {
  int64_t planLen = k::fft_plan_length(l.n);
  if (planLen == 0)
    return rewriter.notifyMatchFailure(op, "transform length outside what the FFT kernel takes");
  Location loc = op->getLoc();
  std::vector<float> plan(static_cast<size_t>(k::fft_plan_floats(l.n, planLen)));
  std::vector<double> work(static_cast<size_t>(k::fft_plan_work_doubles(l.n, planLen)));
  k::fft_plan(l.n, planLen, plan.data(), work.data());
  // Groups of lines (2W real lines, W complex ones) are the unit of work:
  // no more parts than groups.
  int64_t perGroup =
      (l.mode == k::kFftInverseHermitian || l.xC == 1 ? 2 : 1) * k::vec_width(isa);
  int64_t groups = (l.outer * l.inner + perGroup - 1) / perGroup;
  int64_t parts = std::max<int64_t>(1, std::min(threads, groups));
  KernelCall call(rewriter, loc, parts);
  Value xBuffer = flatBuffer(rewriter, loc, x, /*readOnly=*/true);
  call.buffer(xBuffer);
  // An absent window still passes a valid pointer, which the kernel ignores.
  call.buffer(window ? flatBuffer(rewriter, loc, window, /*readOnly=*/true) : xBuffer);
  call.i32(window ? 1 : 0);
  Value out = outputBuffer(rewriter, loc, type);
  call.buffer(out);
  call.buffer(packedConstant(rewriter, loc, op, "_fft", plan));
  call.buffer(scratchBuffer(rewriter, loc, k::fft_scratch_floats(isa, planLen) * parts));
  for (int64_t v : {l.outer, l.inner, l.xsOuter, l.xsInner, l.xsElem, l.xLen, l.xC, l.ysOuter,
                    l.ysInner, l.ysElem, l.yLen, l.yC, l.n, planLen})
    call.i64(v);
  call.i32(l.mode);
  call.i32(isa);
  call.partition();
  call.emit(op, "fft_lines");
  rewriter.replaceOp(op, resultTensor(rewriter, loc, out, type, {}));
  return success();
}

/// Float32 DFT with static shapes and a constant dft_length: the lines along
/// `axis` of x viewed as [outer][m][inner][1 or 2].
struct DFTKernelLowering : KernelPattern<onnx::DFTOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::DFTOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    Value x = adaptor.getInput();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !xType || !xType.hasStaticShape() || !isF32Tensor(x) ||
        !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a static float32 DFT");
    int64_t rank = xType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis > rank - 2 || type.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t m = xType.getDimSize(axis), inC = xType.getDimSize(rank - 1);
    bool inverse = op.getInverse() != 0, onesided = op.getOnesided() != 0;
    bool irfft = inverse && onesided;
    int64_t n = irfft ? 2 * (m - 1) : m;
    if (!isa<NoneType>(op.getDftLength().getType())) {
      auto len = constantInts(op.getDftLength());
      if (!len || len->size() != 1)
        return rewriter.notifyMatchFailure(op, "dft_length must be a constant");
      n = (*len)[0];
    }
    int64_t bins = type.getDimSize(axis), outC = type.getDimSize(rank - 1);
    if (n < 1 || (inC != 1 && inC != 2) || outC != (irfft ? 1 : 2) ||
        bins != (onesided && !inverse ? n / 2 + 1 : n))
      return rewriter.notifyMatchFailure(op, "input and result shapes do not match");
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= xType.getDimSize(d);
    for (int64_t d = axis + 1; d < rank - 1; ++d)
      inner *= xType.getDimSize(d);
    if (type.getNumElements() == 0 || m == 0)
      return rewriter.notifyMatchFailure(op, "an empty DFT");
    FftLines l;
    l.outer = outer;
    l.inner = inner;
    l.xC = inC;
    l.xsElem = inner * inC;
    l.xsOuter = m * l.xsElem;
    l.xsInner = inC;
    // IRFFT reads bins up to n / 2 of what is there; the others at most n
    // positions.
    l.xLen = irfft ? m : std::min(m, n);
    l.yC = outC;
    l.ysElem = inner * outC;
    l.ysOuter = bins * l.ysElem;
    l.ysInner = outC;
    l.yLen = bins;
    l.n = n;
    l.mode = irfft ? k::kFftInverseHermitian : inverse ? k::kFftInverse : k::kFftForward;
    return emitFftLines(rewriter, op, x, Value(), type, l, target, threads);
  }
};

/// Float32 STFT with static shapes, a constant frame_step and frame_length
/// (or a window giving it): frame f of batch b is the line at
/// signal[b][f * frame_step], its element t multiplied by window[t].
struct STFTKernelLowering : KernelPattern<onnx::STFTOp> {
  using KernelPattern::KernelPattern;

  LogicalResult matchAndRewrite(onnx::STFTOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    Value x = adaptor.getSignal();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !type.hasStaticShape() || type.getRank() != 4 || !xType ||
        !xType.hasStaticShape() || xType.getRank() != 3 || !isF32Tensor(x) ||
        !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a static float32 STFT");
    int64_t batch = xType.getDimSize(0), length = xType.getDimSize(1),
            inC = xType.getDimSize(2);
    Value window = present(adaptor.getWindow());
    int64_t windowLen = 0;
    if (window) {
      auto wType = dyn_cast<RankedTensorType>(window.getType());
      if (!wType || !wType.hasStaticShape() || wType.getRank() != 1 || !isF32Tensor(window) ||
          wType.getDimSize(0) < 1)
        return rewriter.notifyMatchFailure(op, "window is not a static float32 vector");
      windowLen = wType.getDimSize(0);
    }
    auto step = constantInts(op.getFrameStep());
    if (!step || step->size() != 1 || (*step)[0] < 1)
      return rewriter.notifyMatchFailure(op, "frame_step is not a positive constant");
    int64_t frameLength = windowLen;
    if (Value fl = present(op.getFrameLength())) {
      auto len = constantInts(fl);
      if (!len || len->size() != 1)
        return rewriter.notifyMatchFailure(op, "frame_length is not a constant");
      frameLength = (*len)[0];
    }
    if (frameLength < 1)
      return rewriter.notifyMatchFailure(op, "no positive frame length");
    bool onesided = op.getOnesided() != 0;
    int64_t frames = type.getDimSize(1), bins = type.getDimSize(2);
    // Elements read per frame: the window's, at most the frame's.
    int64_t taps = window ? std::min(windowLen, frameLength) : frameLength;
    if ((inC != 1 && inC != 2) || type.getDimSize(0) != batch || type.getDimSize(3) != 2 ||
        bins != (onesided ? frameLength / 2 + 1 : frameLength) || frames < 1 ||
        (frames - 1) * (*step)[0] + taps > length)
      return rewriter.notifyMatchFailure(op, "signal and result shapes do not match");
    FftLines l;
    l.outer = batch;
    l.inner = frames;
    l.xC = inC;
    l.xsOuter = length * inC;
    l.xsInner = (*step)[0] * inC;
    l.xsElem = inC;
    l.xLen = taps;
    l.yC = 2;
    l.ysOuter = frames * bins * 2;
    l.ysInner = bins * 2;
    l.ysElem = 2;
    l.yLen = bins;
    l.n = frameLength;
    l.mode = k::kFftForward;
    return emitFftLines(rewriter, op, x, window, type, l, target, threads);
  }
};

} // namespace

/// Registered by OnnxToLinalg.cpp (declared there); the kernel patterns
/// only when kernels are on, above the contraction (benefit 2).
void populateSignalPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns);
void populateSignalPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DFTLowering, MelWeightMatrixLowering, STFTLowering>(converter, patterns.getContext());
}

void populateSignalKernelPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns, int isa,
                                  int64_t threads) {
  patterns.add<DFTKernelLowering, STFTKernelLowering>(converter, patterns.getContext(), isa,
                                                      threads);
}

} // namespace onnxcc::lowering
