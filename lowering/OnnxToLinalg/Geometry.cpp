//===- Geometry.cpp - Det, RoiAlign to linalg -----------------------------===//
//
// Det: each matrix (static M x M, M <= 16) is reduced by Gaussian
// elimination with partial pivoting, unrolled in the body of one generic
// over the batch, in f64: the pivot of column c is found by comparing rows
// below it in turn and swapping (selects) when one is larger in magnitude,
// each swap flipping the sign; a zero pivot gives a zero determinant.
//
// RoiAlign: one generic over Y [R, C, oh, ow]; each element averages (or,
// mode max, takes the largest of) sampling_ratio^2 bilinear samples of its
// bin, as ONNX's reference and ONNX Runtime do: a sample outside
// [-1, H] x [-1, W] reads 0, coordinates below 0 read 0, a low index at the
// last row or column reads that row or column; max mode takes per sample
// the largest of its four weighted taps.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "dialects/onnx/OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// Scalar float arithmetic in one type.
struct F {
  OpBuilder &b;
  Location loc;
  FloatType type;
  Value c(double v) { return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v)); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value sel(Value cond, Value x, Value y) { return arith::SelectOp::create(b, loc, cond, x, y); }
  Value conv(Value v) {
    auto from = cast<FloatType>(v.getType());
    if (from == type)
      return v;
    if (from.getWidth() < type.getWidth())
      return arith::ExtFOp::create(b, loc, type, v);
    return arith::TruncFOp::create(b, loc, type, v);
  }
  Value to(Value v, Type t) {
    auto target = cast<FloatType>(t);
    if (target == type)
      return v;
    if (target.getWidth() < type.getWidth())
      return arith::TruncFOp::create(b, loc, target, v);
    return arith::ExtFOp::create(b, loc, target, v);
  }
  Value fromIndex(Value i) {
    return arith::SIToFPOp::create(b, loc, type,
                                   arith::IndexCastOp::create(b, loc, b.getI64Type(), i));
  }
};

struct DetLowering : OpConversionPattern<onnx::DetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::DetOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !xType.hasStaticShape() || xType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "X needs a static shape of rank >= 2");
    auto elem = dyn_cast<FloatType>(xType.getElementType());
    int64_t rank = xType.getRank(), m = xType.getDimSize(rank - 1);
    if (!elem || xType.getDimSize(rank - 2) != m || type.getRank() != rank - 2)
      return rewriter.notifyMatchFailure(op, "X must be float [*, M, M]");
    if (m > 16)
      return rewriter.notifyMatchFailure(op, "matrices larger than 16 x 16");
    Location loc = op.getLoc();
    Value result = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          F f{b, l, b.getF64Type()};
          if (m == 0)
            return f.to(f.c(1.0), elem);
          SmallVector<SmallVector<Value>> a(m, SmallVector<Value>(m));
          for (int64_t r = 0; r < m; ++r)
            for (int64_t c = 0; c < m; ++c) {
              SmallVector<Value> at(ivs.begin(), ivs.end());
              at.push_back(indexConst(b, l, r));
              at.push_back(indexConst(b, l, c));
              a[r][c] = f.conv(tensor::ExtractOp::create(b, l, x, at));
            }
          Value det = f.c(1.0);
          for (int64_t c = 0; c < m; ++c) {
            for (int64_t r = c + 1; r < m; ++r) {
              Value swap = f.cmp(arith::CmpFPredicate::OGT, f.abs(a[r][c]), f.abs(a[c][c]));
              for (int64_t k = c; k < m; ++k) {
                Value top = a[c][k], other = a[r][k];
                a[c][k] = f.sel(swap, other, top);
                a[r][k] = f.sel(swap, top, other);
              }
              det = f.sel(swap, f.sub(f.c(0.0), det), det);
            }
            Value pivot = a[c][c];
            Value zero = f.cmp(arith::CmpFPredicate::OEQ, pivot, f.c(0.0));
            Value safe = f.sel(zero, f.c(1.0), pivot);
            det = f.mul(det, pivot);
            for (int64_t r = c + 1; r < m; ++r) {
              Value factor = f.sel(zero, f.c(0.0), f.div(a[r][c], safe));
              for (int64_t k = c + 1; k < m; ++k)
                a[r][k] = f.sub(a[r][k], f.mul(factor, a[c][k]));
            }
          }
          return f.to(det, elem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct RoiAlignLowering : OpConversionPattern<onnx::RoiAlignOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::RoiAlignOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getX(), rois = adaptor.getRois(), batch = adaptor.getBatchIndices();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto rType = dyn_cast<RankedTensorType>(rois.getType());
    auto bType = dyn_cast<RankedTensorType>(batch.getType());
    if (!xType || !rType || !bType || !xType.hasStaticShape() || !rType.hasStaticShape() ||
        !bType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "X, rois and batch_indices need static shapes");
    auto elem = dyn_cast<FloatType>(xType.getElementType());
    auto rElem = dyn_cast<FloatType>(rType.getElementType());
    if (!elem || !rElem || xType.getRank() != 4 || rType.getRank() != 2 ||
        rType.getDimSize(1) != 4 || bType.getRank() != 1 ||
        bType.getDimSize(0) != rType.getDimSize(0))
      return rewriter.notifyMatchFailure(op, "X [N, C, H, W], rois [R, 4], batch_indices [R]");
    int64_t ratio = static_cast<int64_t>(op.getSamplingRatio());
    if (ratio <= 0)
      return rewriter.notifyMatchFailure(
          op, "sampling_ratio 0 (adaptive: a sample count that depends on the rois)");
    if (ratio > 16)
      return rewriter.notifyMatchFailure(op, "sampling_ratio above 16");
    StringRef mode = op.getMode();
    if (mode != "avg" && mode != "max")
      return rewriter.notifyMatchFailure(op, "mode must be avg or max");
    bool isMax = mode == "max";
    StringRef ctm = op.getCoordinateTransformationMode();
    if (ctm != "half_pixel" && ctm != "output_half_pixel")
      return rewriter.notifyMatchFailure(op, "unknown coordinate_transformation_mode");
    bool halfPixel = ctm == "half_pixel";
    double scale = op.getSpatialScale().convertToDouble();
    int64_t n = xType.getDimSize(0), h = xType.getDimSize(2), w = xType.getDimSize(3);
    int64_t oh = type.getDimSize(2), ow = type.getDimSize(3);
    Location loc = op.getLoc();
    if (type.getNumElements() == 0 || n == 0 || h == 0 || w == 0) {
      rewriter.replaceOp(op, buildFilled(rewriter, loc, type, rewriter.getFloatAttr(elem, 0.0)));
      return success();
    }
    FloatType calc = elem.getWidth() == 64 ? FloatType(rewriter.getF64Type())
                                           : FloatType(rewriter.getF32Type());
    Value result = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          F f{b, l, calc};
          auto roi = [&](int64_t k) {
            return f.conv(tensor::ExtractOp::create(
                b, l, rois, ValueRange{ivs[0], indexConst(b, l, k)}));
          };
          Value bi = tensor::ExtractOp::create(b, l, batch, ValueRange{ivs[0]});
          bi = arith::IndexCastOp::create(b, l, b.getIndexType(), bi);
          bi = clampIndex(b, l, bi, indexConst(b, l, 0), indexConst(b, l, n - 1));
          double offset = halfPixel ? 0.5 : 0.0;
          Value startW = f.sub(f.mul(roi(0), f.c(scale)), f.c(offset));
          Value startH = f.sub(f.mul(roi(1), f.c(scale)), f.c(offset));
          Value endW = f.sub(f.mul(roi(2), f.c(scale)), f.c(offset));
          Value endH = f.sub(f.mul(roi(3), f.c(scale)), f.c(offset));
          Value roiW = f.sub(endW, startW), roiH = f.sub(endH, startH);
          if (!halfPixel) {
            roiW = f.max(roiW, f.c(1.0));
            roiH = f.max(roiH, f.c(1.0));
          }
          Value binH = f.div(roiH, f.c(static_cast<double>(oh)));
          Value binW = f.div(roiW, f.c(static_cast<double>(ow)));
          Value baseH = f.add(startH, f.mul(f.fromIndex(ivs[2]), binH));
          Value baseW = f.add(startW, f.mul(f.fromIndex(ivs[3]), binW));
          Value stepH = f.div(binH, f.c(static_cast<double>(ratio)));
          Value stepW = f.div(binW, f.c(static_cast<double>(ratio)));
          // Low and high tap along one dim of size `d` and the weight of the
          // high one; `inside` false beyond [-1, d].
          struct Taps {
            Value low, high, frac, inside;
          };
          auto taps = [&](Value v, int64_t d) -> Taps {
            Value inside = arith::AndIOp::create(
                b, l, f.cmp(arith::CmpFPredicate::OGE, v, f.c(-1.0)),
                f.cmp(arith::CmpFPredicate::OLE, v, f.c(static_cast<double>(d))));
            v = f.max(v, f.c(0.0));
            Value fl = math::FloorOp::create(b, l, v);
            Value atEnd = f.cmp(arith::CmpFPredicate::OGE, fl, f.c(static_cast<double>(d - 1)));
            fl = f.sel(atEnd, f.c(static_cast<double>(d - 1)), fl);
            Value frac = f.sel(atEnd, f.c(0.0), f.sub(v, fl));
            Value low = arith::IndexCastOp::create(
                b, l, b.getIndexType(), arith::FPToSIOp::create(b, l, b.getI64Type(), fl));
            low = clampIndex(b, l, low, indexConst(b, l, 0), indexConst(b, l, d - 1));
            Value high = arith::AddIOp::create(b, l, low, indexConst(b, l, 1));
            high = clampIndex(b, l, high, indexConst(b, l, 0), indexConst(b, l, d - 1));
            return {low, high, frac, inside};
          };
          auto pixel = [&](Value yi, Value xi) {
            return f.conv(
                tensor::ExtractOp::create(b, l, x, ValueRange{bi, ivs[1], yi, xi}));
          };
          Value acc;
          for (int64_t iy = 0; iy < ratio; ++iy) {
            Value y = f.add(baseH, f.mul(f.c(iy + 0.5), stepH));
            Taps ty = taps(y, h);
            for (int64_t ix = 0; ix < ratio; ++ix) {
              Value xv = f.add(baseW, f.mul(f.c(ix + 0.5), stepW));
              Taps tx = taps(xv, w);
              Value inside = arith::AndIOp::create(b, l, ty.inside, tx.inside);
              Value hy = f.sub(f.c(1.0), ty.frac), hx = f.sub(f.c(1.0), tx.frac);
              Value t1 = f.mul(f.mul(hy, hx), pixel(ty.low, tx.low));
              Value t2 = f.mul(f.mul(hy, tx.frac), pixel(ty.low, tx.high));
              Value t3 = f.mul(f.mul(ty.frac, hx), pixel(ty.high, tx.low));
              Value t4 = f.mul(f.mul(ty.frac, tx.frac), pixel(ty.high, tx.high));
              Value v = isMax ? f.max(f.max(t1, t2), f.max(t3, t4))
                              : f.add(f.add(t1, t2), f.add(t3, t4));
              v = f.sel(inside, v, f.c(0.0));
              acc = !acc ? v : isMax ? f.max(acc, v) : f.add(acc, v);
            }
          }
          if (!isMax)
            acc = f.div(acc, f.c(static_cast<double>(ratio * ratio)));
          return f.to(acc, elem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

/// Registered by OnnxToLinalg.cpp (declared there).
void populateGeometryPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns);
void populateGeometryPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DetLowering, RoiAlignLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
