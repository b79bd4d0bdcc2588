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
// bin (sampling_ratio 0: ceil(bin height) x ceil(bin width) samples, loops
// whose counts the roi decides), as ONNX's reference and ONNX Runtime do: a sample outside
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
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>
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
    // 0 (the default, torchvision's -1) is adaptive: ceil(size / bins)
    // samples per bin side, per roi.
    int64_t ratio = static_cast<int64_t>(op.getSamplingRatio());
    if (ratio < 0)
      return rewriter.notifyMatchFailure(op, "negative sampling_ratio");
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
          // Adaptive: the sample counts per side, ceil(bin size), at least
          // 0 (NaN and negative bins sample nothing, as ONNX Runtime).
          Value gridH, gridW;
          if (ratio == 0) {
            auto count = [&](Value bin) {
              Value c = math::CeilOp::create(b, l, bin);
              Value ok = f.cmp(arith::CmpFPredicate::OGE, c, f.c(0.0));
              // Bounded by what the grid can hold (a roi larger than the
              // image by far still samples at most that many).
              Value bounded = f.sel(ok, arith::MinimumFOp::create(b, l, c, f.c(65536.0)),
                                    f.c(0.0));
              return arith::IndexCastOp::create(
                  b, l, b.getIndexType(), arith::FPToSIOp::create(b, l, b.getI64Type(), bounded));
            };
            gridH = count(binH);
            gridW = count(binW);
          }
          Value stepH = ratio ? f.div(binH, f.c(static_cast<double>(ratio)))
                              : f.div(binH, f.fromIndex(gridH));
          Value stepW = ratio ? f.div(binW, f.c(static_cast<double>(ratio)))
                              : f.div(binW, f.fromIndex(gridW));
          // Low and high tap along one dim of size `d` and the weight of the
          // high one; `inside` false beyond [-1, d].
          struct Taps {
            Value low, high, frac, inside;
          };
          // (Each takes the builder of the block it builds in: the
          // adaptive grid's samples are inside loops.)
          auto taps = [&](F &g, Value v, int64_t d) -> Taps {
            OpBuilder &gb = g.b;
            Location gl = g.loc;
            Value inside = arith::AndIOp::create(
                gb, gl, g.cmp(arith::CmpFPredicate::OGE, v, g.c(-1.0)),
                g.cmp(arith::CmpFPredicate::OLE, v, g.c(static_cast<double>(d))));
            v = g.max(v, g.c(0.0));
            Value fl = math::FloorOp::create(gb, gl, v);
            Value atEnd = g.cmp(arith::CmpFPredicate::OGE, fl, g.c(static_cast<double>(d - 1)));
            fl = g.sel(atEnd, g.c(static_cast<double>(d - 1)), fl);
            Value frac = g.sel(atEnd, g.c(0.0), g.sub(v, fl));
            Value low = arith::IndexCastOp::create(
                gb, gl, gb.getIndexType(), arith::FPToSIOp::create(gb, gl, gb.getI64Type(), fl));
            low = clampIndex(gb, gl, low, indexConst(gb, gl, 0), indexConst(gb, gl, d - 1));
            Value high = arith::AddIOp::create(gb, gl, low, indexConst(gb, gl, 1));
            high = clampIndex(gb, gl, high, indexConst(gb, gl, 0), indexConst(gb, gl, d - 1));
            return {low, high, frac, inside};
          };
          auto pixel = [&](F &g, Value yi, Value xi) {
            return g.conv(
                tensor::ExtractOp::create(g.b, g.loc, x, ValueRange{bi, ivs[1], yi, xi}));
          };
          // One sample at offsets (iy + 0.5, ix + 0.5) steps into the bin.
          auto sample = [&](F &g, Value fy, Value fx) {
            Taps ty = taps(g, g.add(baseH, g.mul(g.add(fy, g.c(0.5)), stepH)), h);
            Taps tx = taps(g, g.add(baseW, g.mul(g.add(fx, g.c(0.5)), stepW)), w);
            Value inside = arith::AndIOp::create(g.b, g.loc, ty.inside, tx.inside);
            Value hy = g.sub(g.c(1.0), ty.frac), hx = g.sub(g.c(1.0), tx.frac);
            Value t1 = g.mul(g.mul(hy, hx), pixel(g, ty.low, tx.low));
            Value t2 = g.mul(g.mul(hy, tx.frac), pixel(g, ty.low, tx.high));
            Value t3 = g.mul(g.mul(ty.frac, hx), pixel(g, ty.high, tx.low));
            Value t4 = g.mul(g.mul(ty.frac, tx.frac), pixel(g, ty.high, tx.high));
            Value v = isMax ? g.max(g.max(t1, t2), g.max(t3, t4))
                            : g.add(g.add(t1, t2), g.add(t3, t4));
            return g.sel(inside, v, g.c(0.0));
          };
          if (ratio > 0) {
            Value acc;
            for (int64_t iy = 0; iy < ratio; ++iy)
              for (int64_t ix = 0; ix < ratio; ++ix) {
                Value v = sample(f, f.c(static_cast<double>(iy)), f.c(static_cast<double>(ix)));
                acc = !acc ? v : isMax ? f.max(acc, v) : f.add(acc, v);
              }
            if (!isMax)
              acc = f.div(acc, f.c(static_cast<double>(ratio * ratio)));
            return f.to(acc, elem);
          }
          // Adaptive: loops over the roi's grid; max starts from the first
          // sample, and a grid of no samples gives 0.
          Value zero = indexConst(b, l, 0), one = indexConst(b, l, 1);
          Value init = isMax ? f.c(-std::numeric_limits<double>::infinity()) : f.c(0.0);
          auto rows = scf::ForOp::create(
              b, l, zero, gridH, one, ValueRange{init},
              [&](OpBuilder &rb, Location rl, Value iy, ValueRange rowAcc) {
                F rf{rb, rl, calc};
                Value fy = rf.fromIndex(iy);
                auto cols = scf::ForOp::create(
                    rb, rl, zero, gridW, one, ValueRange{rowAcc[0]},
                    [&](OpBuilder &cb, Location cl, Value ix, ValueRange colAcc) {
                      F cf{cb, cl, calc};
                      Value v = sample(cf, fy, cf.fromIndex(ix));
                      Value next = isMax ? cf.max(colAcc[0], v) : cf.add(colAcc[0], v);
                      scf::YieldOp::create(cb, cl, next);
                    });
                scf::YieldOp::create(rb, rl, cols.getResult(0));
              });
          Value acc = rows.getResult(0);
          Value count = arith::MulIOp::create(b, l, gridH, gridW);
          Value none = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, count, zero);
          if (!isMax)
            acc = f.div(acc, f.fromIndex(arith::MaxSIOp::create(b, l, count, one)));
          acc = f.sel(none, f.c(0.0), acc);
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
