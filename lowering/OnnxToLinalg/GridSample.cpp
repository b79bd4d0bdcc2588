//===- GridSample.cpp - GridSample to linalg ------------------------------===//
//
// GridSample reads X [N, C, D1..Dr] at the positions of grid [N, O1..Or, r]
// (normalized to [-1, 1], the last spatial dim first) into Y [N, C, O1..Or].
// One generic over Y computes each element from its grid entry:
//   - the position in pixels, x = (g + 1) / 2 * (D - 1) with align_corners,
//     else ((g + 1) * D - 1) / 2, in f32 (f64 for f64 data);
//   - nearest: rounded half to even;
//   - a position outside [lo, hi] ([0, D - 1] with align_corners, else
//     [-0.5, D - 0.5]) is clamped to [0, D - 1] (border) or reflected back
//     into [lo, hi] (reflection);
//   - nearest reads one pixel, linear 2^r and cubic 4^r (Keys, a = -0.75)
//     around floor(x), each tap's index mapped by the padding mode: zeros
//     reads 0 outside the input, border clamps, reflection reflects.
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

enum class SampleMode { Nearest, Linear, Cubic };
enum class Padding { Zeros, Border, Reflection };

/// Scalar arithmetic in one float type.
struct Arith {
  OpBuilder &b;
  Location loc;
  FloatType type;
  Value c(double v) { return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v)); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
  }
  Value gt(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
  }
  Value sel(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  Value floor(Value x) { return math::FloorOp::create(b, loc, x); }
  Value clamp(Value x, double lo, double hi) {
    return arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, c(lo)), c(hi));
  }
  /// `x` reflected into [lo, hi] by its nearer border, as often as needed.
  Value reflect(Value x, double lo, double hi) {
    double range = hi - lo;
    if (range <= 0)
      return c(lo);
    auto fold = [&](Value dx, bool fromLow) {
      // n whole ranges and r left over: an even n lands r from the near
      // border, an odd one r from the far one.
      Value n = math::TruncOp::create(b, loc, div(dx, c(range)));
      Value r = sub(dx, mul(n, c(range)));
      Value half = mul(n, c(0.5));
      Value even = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         math::TruncOp::create(b, loc, half), half);
      Value nearSide = fromLow ? add(c(lo), r) : sub(c(hi), r);
      Value farSide = fromLow ? sub(c(hi), r) : add(c(lo), r);
      return sel(even, nearSide, farSide);
    };
    Value below = fold(sub(c(lo), x), /*fromLow=*/true);
    Value above = fold(sub(x, c(hi)), /*fromLow=*/false);
    return sel(lt(x, c(lo)), below, sel(gt(x, c(hi)), above, x));
  }
};

struct GridSampleLowering : OpConversionPattern<onnx::GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::GridSampleOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getX(), grid = adaptor.getGrid();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto gType = dyn_cast<RankedTensorType>(grid.getType());
    if (!xType || !gType || !xType.hasStaticShape() || !gType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "X and grid need static shapes");
    int64_t rank = xType.getRank(), r = rank - 2;
    if (r < 1 || gType.getRank() != rank || gType.getDimSize(rank - 1) != r)
      return rewriter.notifyMatchFailure(op, "grid must be [N, out..., spatial rank of X]");
    auto elem = dyn_cast<FloatType>(xType.getElementType());
    auto gElem = dyn_cast<FloatType>(gType.getElementType());
    if (!elem || !gElem)
      return rewriter.notifyMatchFailure(op, "GridSample needs float X and grid");
    // 4^r taps for cubic: keep the body a reasonable size.
    if (r > 3)
      return rewriter.notifyMatchFailure(op, "more than 3 spatial dims");
    SampleMode mode;
    StringRef m = op.getMode();
    if (m == "nearest")
      mode = SampleMode::Nearest;
    else if (m == "bilinear" || m == "linear")
      mode = SampleMode::Linear;
    else if (m == "bicubic" || m == "cubic")
      mode = SampleMode::Cubic;
    else
      return rewriter.notifyMatchFailure(op, "unknown mode");
    Padding padding;
    StringRef p = op.getPaddingMode();
    if (p == "zeros")
      padding = Padding::Zeros;
    else if (p == "border")
      padding = Padding::Border;
    else if (p == "reflection")
      padding = Padding::Reflection;
    else
      return rewriter.notifyMatchFailure(op, "unknown padding_mode");
    bool alignCorners = op.getAlignCorners() != 0;
    FloatType calc = elem.getWidth() == 64 ? FloatType(rewriter.getF64Type())
                                           : FloatType(rewriter.getF32Type());
    SmallVector<int64_t> dims(xType.getShape().drop_front(2));
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                     type.getElementType()));
      return success();
    }

    Value result = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          Arith a{b, l, calc};
          auto toCalc = [&](Value v, FloatType from) -> Value {
            if (from.getWidth() < calc.getWidth())
              return arith::ExtFOp::create(b, l, calc, v);
            if (from.getWidth() > calc.getWidth())
              return arith::TruncFOp::create(b, l, calc, v);
            return v;
          };
          auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
          // The position along each spatial dim (grid lists the last first).
          SmallVector<Value> pos(r);
          for (int64_t i = 0; i < r; ++i) {
            SmallVector<Value> at{ivs[0]};
            for (int64_t k = 0; k < r; ++k)
              at.push_back(ivs[2 + k]);
            at.push_back(idx(r - 1 - i));
            Value g = toCalc(tensor::ExtractOp::create(b, l, grid, at), gElem);
            double d = static_cast<double>(dims[i]);
            Value v = alignCorners ? a.mul(a.div(a.add(g, a.c(1)), a.c(2)), a.c(d - 1))
                                   : a.div(a.sub(a.mul(a.add(g, a.c(1)), a.c(d)), a.c(1)),
                                           a.c(2));
            if (mode == SampleMode::Nearest)
              v = math::RoundEvenOp::create(b, l, v);
            double lo = alignCorners ? 0 : -0.5, hi = alignCorners ? d - 1 : d - 0.5;
            if (padding == Padding::Border)
              v = a.sel(a.lt(v, a.c(lo)), a.clamp(v, 0, d - 1),
                        a.sel(a.gt(v, a.c(hi)), a.clamp(v, 0, d - 1), v));
            else if (padding == Padding::Reflection)
              v = a.reflect(v, lo, hi);
            pos[i] = v;
          }
          // Tap `k` (an integer-valued float) along dim i as an index and
          // whether it reads the input (zeros padding reads 0 outside).
          auto tap = [&](Value k, int64_t i) -> std::pair<Value, Value> {
            double d = static_cast<double>(dims[i]);
            Value inside = arith::AndIOp::create(
                b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, k, a.c(0)),
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, k, a.c(d - 1)));
            if (padding == Padding::Reflection) {
              double lo = alignCorners ? 0 : -0.5, hi = alignCorners ? d - 1 : d - 0.5;
              k = math::TruncOp::create(b, l, a.reflect(k, lo, hi));
            }
            // Clamped for border, and so that no index ever leaves the input.
            k = a.clamp(k, 0, d - 1);
            Value index = arith::IndexCastOp::create(
                b, l, b.getIndexType(),
                arith::FPToSIOp::create(b, l, b.getI64Type(), k));
            if (padding != Padding::Zeros)
              inside = arith::ConstantIntOp::create(b, l, 1, 1);
            return {index, inside};
          };
          auto pixel = [&](ArrayRef<std::pair<Value, Value>> taps) -> Value {
            SmallVector<Value> at{ivs[0], ivs[1]};
            Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
            for (auto [index, in] : taps) {
              at.push_back(index);
              inside = arith::AndIOp::create(b, l, inside, in);
            }
            Value v = toCalc(tensor::ExtractOp::create(b, l, x, at), elem);
            return a.sel(inside, v, a.c(0));
          };
          Value out;
          if (mode == SampleMode::Nearest) {
            SmallVector<std::pair<Value, Value>> taps;
            for (int64_t i = 0; i < r; ++i)
              taps.push_back(tap(pos[i], i));
            out = pixel(taps);
          } else {
            // Per dim: the taps from floor(x) - before on, and their weights.
            int64_t n = mode == SampleMode::Linear ? 2 : 4, before = n == 2 ? 0 : 1;
            SmallVector<SmallVector<std::pair<Value, Value>>> taps(r);
            SmallVector<SmallVector<Value>> weights(r);
            for (int64_t i = 0; i < r; ++i) {
              Value base = a.floor(pos[i]);
              Value t = a.sub(pos[i], base);
              for (int64_t k = 0; k < n; ++k)
                taps[i].push_back(tap(a.add(base, a.c(static_cast<double>(k - before))), i));
              if (n == 2) {
                weights[i] = {a.sub(a.c(1), t), t};
              } else {
                // Keys' cubic convolution at distances t + 1, t, 1 - t, 2 - t.
                double c = -0.75;
                auto far = [&](Value s) { // 1 < s < 2
                  return a.sub(
                      a.mul(a.add(a.mul(a.sub(a.mul(a.c(c), s), a.c(5 * c)), s), a.c(8 * c)), s),
                      a.c(4 * c));
                };
                auto near = [&](Value s) { // 0 <= s <= 1
                  return a.add(a.mul(a.mul(a.sub(a.mul(a.c(c + 2), s), a.c(c + 3)), s), s),
                               a.c(1));
                };
                Value one = a.c(1);
                weights[i] = {far(a.add(t, one)), near(t), near(a.sub(one, t)),
                              far(a.sub(a.c(2), t))};
              }
            }
            // Sum over every combination of taps, the first dim outermost.
            std::function<Value(int64_t, SmallVector<std::pair<Value, Value>> &)> sum =
                [&](int64_t i, SmallVector<std::pair<Value, Value>> &chosen) -> Value {
              if (i == r)
                return pixel(chosen);
              Value acc;
              for (int64_t k = 0; k < n; ++k) {
                chosen.push_back(taps[i][k]);
                Value term = a.mul(weights[i][k], sum(i + 1, chosen));
                chosen.pop_back();
                acc = acc ? a.add(acc, term) : term;
              }
              return acc;
            };
            SmallVector<std::pair<Value, Value>> chosen;
            out = sum(0, chosen);
          }
          if (elem.getWidth() < calc.getWidth())
            return arith::TruncFOp::create(b, l, elem, out);
          return out;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateGridSamplePatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
