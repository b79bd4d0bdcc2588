//===- ShapeFunctions.cpp - One shape function per onnx op ---------------===//
//
// Every op of the dialect implements ShapeInferenceOpInterface::inferShapes
// here. Shapes are symbolic: a dim is static, a named ONNX dim_param, or
// unknown. A dim that passes through an op unchanged keeps its symbol;
// arithmetic on a symbolic dim gives an unknown dim. Ops are grouped by the
// rule their shape follows.
//
// A shape function never asserts on user IR: when an input it needs is
// missing, unranked or not constant it leaves the result unknown (or gives
// only its rank), and when static shapes contradict each other it fails with
// a message naming the dims. Constant operands are held to the op's rules
// too: an index known at compile time outside its static axis is an error
// here, not a clamp in the generated code.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace onnxcc::onnx;

namespace {

/// Result 0 has the shape of operand 0.
LogicalResult sameAsFirstOperand(ShapeContext &ctx) {
  if (auto s = ctx.operandShape(0))
    ctx.setShape(0, *s);
  return success();
}

/// Every result has the shape of operand 0 (Dropout's mask, MaxPool-free ops
/// with a second same-shaped output).
LogicalResult allResultsAsFirstOperand(ShapeContext &ctx) {
  auto s = ctx.operandShape(0);
  if (!s)
    return success();
  for (unsigned i = 0, e = ctx.getOp()->getNumResults(); i < e; ++i)
    ctx.setShape(i, *s);
  return success();
}

/// The results are not tensors (sequences, optionals), or their shapes depend
/// on nothing a shape function can see; they keep their declared types.
LogicalResult noTensorShape(ShapeContext &) { return success(); }

/// Multidirectional (numpy) broadcast of two dims.
FailureOr<Dim> broadcastDim(const Dim &a, const Dim &b) {
  if (a.isStatic() && a.size == 1)
    return b;
  if (b.isStatic() && b.size == 1)
    return a;
  if (a.isStatic() && b.isStatic()) {
    if (a.size != b.size)
      return failure();
    return a;
  }
  if (a.isStatic())
    return a;
  if (b.isStatic())
    return b;
  if (a.isSymbolic() && a == b)
    return a;
  return Dim::unknown();
}


/// A dim that is either `a` or `b` (the two branches of an If): kept only
/// when both agree.
Dim joinDim(const Dim &a, const Dim &b) { return a == b ? a : Dim::unknown(); }

/// Joins two optional shapes of the same value coming from different paths;
/// nullopt when the ranks differ or one is unknown.
std::optional<Shape> joinShapes(const std::optional<Shape> &a,
                                const std::optional<Shape> &b) {
  if (!a || !b || a->size() != b->size())
    return std::nullopt;
  Shape out;
  for (auto [x, y] : llvm::zip(*a, *b))
    out.push_back(joinDim(x, y));
  return out;
}

/// Text for a dim in a diagnostic: its size, its symbol or "?".
std::string dimText(const Dim &d) { return d.str(); }

/// Text for a shape in a diagnostic, e.g. [batch, 3, ?].
std::string shapeText(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i)
      out += ", ";
    out += dimText(s[i]);
  }
  return out + "]";
}

/// `axis` in [-rank, rank) made non-negative; nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// The product of two dims; a static 1 keeps the other dim (and its symbol).
Dim mulDim(const Dim &a, const Dim &b) {
  if (a.isStatic() && a.size == 1)
    return b;
  if (b.isStatic() && b.size == 1)
    return a;
  if (a.isStatic() && b.isStatic()) {
    int64_t product;
    if (llvm::MulOverflow(a.size, b.size, product))
      return Dim::unknown();
    return Dim::known(product);
  }
  if ((a.isStatic() && a.size == 0) || (b.isStatic() && b.size == 0))
    return Dim::known(0);
  return mulDims(a, b);
}

/// The product of `dims`; 1 for none.
Dim productOf(ArrayRef<Dim> dims) {
  Dim p = Dim::known(1);
  for (const Dim &d : dims)
    p = mulDim(p, d);
  return p;
}

/// Floor division for possibly negative numerators.
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Ceiling division for possibly negative numerators.
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// The single integer held by constant operand `i` (a scalar or a 1-element
/// tensor).
std::optional<int64_t> operandScalar(ShapeContext &ctx, unsigned i) {
  auto v = ctx.operandInts(i);
  if (!v || v->size() != 1)
    return std::nullopt;
  return v->front();
}

/// The length of 1-D operand `i` when it is static.
std::optional<int64_t> operandLength(ShapeContext &ctx, unsigned i) {
  if (!ctx.hasOperand(i))
    return std::nullopt;
  auto s = ctx.operandShape(i);
  if (!s || s->size() != 1 || !(*s)[0].isStatic())
    return std::nullopt;
  return (*s)[0].size;
}

/// Reads an INTS attribute with a default of `n` copies of `fill`; nullopt
/// when present with the wrong length (the verifier reports it).
std::optional<SmallVector<int64_t>> intsOr(std::optional<ArrayRef<int64_t>> attr,
                                           size_t n, int64_t fill) {
  if (!attr)
    return SmallVector<int64_t>(n, fill);
  if (attr->size() != n)
    return std::nullopt;
  return SmallVector<int64_t>(attr->begin(), attr->end());
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Window attributes shared by Conv-like and pooling ops.
struct Window {
  StringRef autoPad = "NOTSET";
  std::optional<ArrayRef<int64_t>> kernel;
  std::optional<ArrayRef<int64_t>> strides;
  std::optional<ArrayRef<int64_t>> dilations;
  std::optional<ArrayRef<int64_t>> pads;
  bool ceilMode = false;
};

/// The output spatial dims of a sliding window over `in` (the spatial dims of
/// X), following the ONNX pooling/convolution formulas. Unknown dims stay
/// unknown; a window larger than its padded input is an error.
FailureOr<Shape> slideWindow(ShapeContext &ctx, ArrayRef<Dim> in, const Window &w) {
  size_t n = in.size();
  Shape out(n, Dim::unknown());
  if (!w.kernel || w.kernel->size() != n)
    return out;
  auto strides = intsOr(w.strides, n, 1);
  auto dilations = intsOr(w.dilations, n, 1);
  auto pads = intsOr(w.pads, 2 * n, 0);
  if (!strides || !dilations || !pads)
    return out;
  for (size_t i = 0; i < n; ++i) {
    int64_t k = (*w.kernel)[i], s = (*strides)[i], d = (*dilations)[i];
    if (k < 1 || s < 1 || d < 1 || (!in[i].isStatic() && !in[i].isSymbolic()))
      continue;
    int64_t extent;
    bool overflow =
        llvm::MulOverflow(k - 1, d, extent) || llvm::AddOverflow(extent, int64_t(1), extent);
    if (in[i].isSymbolic()) {
      // A symbolic input dim: the output is (padded - extent)/s + 1, a
      // derived symbol unless the stride is 1. The input must be at least
      // as long as the window (run() checks it: status 9).
      bool same = w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER";
      int64_t padTotal = 0;
      if (w.autoPad == "NOTSET")
        overflow = overflow || llvm::AddOverflow((*pads)[i], (*pads)[i + n], padTotal);
      if (overflow)
        return ctx.fail("the window or padding of spatial dim " + Twine(i) +
                        " is too large (its size overflows int64)");
      DerivedDim def;
      def.in = in[i].expr;
      def.stride = s;
      // SAME: ceil(in / s) = floor((in - 1) / s) + 1.
      std::optional<SymExpr> span =
          SymExpr::sub(in[i].expr, SymExpr::constant(same ? 1 : extent - padTotal));
      if (!span)
        continue;
      def.span = *span;
      if (!same && extent > padTotal)
        ctx.requireAtLeast(in[i], extent - padTotal);
      if (w.ceilMode && !same) {
        def.ceil = true;
        def.dropLast = w.autoPad == "NOTSET";
        def.padBegin = def.dropLast ? (*pads)[i] : 0;
        if (s == 1) {
          // The last window starts at span, which is at or past
          // in + padBegin exactly when the end pad reaches the extent.
          int64_t padEnd = def.dropLast ? (*pads)[i + n] : 0;
          def.ceil = def.dropLast = false;
          def.padBegin = 0;
          if (padEnd >= extent && w.autoPad == "NOTSET") {
            if (auto shorter = SymExpr::sub(*span, SymExpr::constant(1)))
              def.span = *shorter;
            else
              continue;
          }
        }
      }
      out[i] = ctx.derivedDim(def);
      continue;
    }
    int64_t size = in[i].size;
    int64_t padded = size;
    if (w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER") {
      out[i] = Dim::known(ceilDiv(size, s));
      continue;
    }
    if (w.autoPad != "VALID")
      overflow = overflow || llvm::AddOverflow(padded, (*pads)[i], padded) ||
                 llvm::AddOverflow(padded, (*pads)[i + n], padded);
    if (overflow)
      return ctx.fail("the window or padding of spatial dim " + Twine(i) +
                      " is too large (its size overflows int64)");
    if (padded < extent)
      return ctx.fail("spatial dim " + Twine(i) + " of size " + Twine(padded) +
                      " (with padding) is smaller than the window extent " +
                      Twine(extent));
    int64_t span = padded - extent;
    int64_t outSize = (w.ceilMode ? ceilDiv(span, s) : span / s) + 1;
    // ceil_mode drops a last window that would start in the end padding, as
    // the spec says (and ONNX Runtime and PyTorch do).
    if (w.ceilMode && w.autoPad == "NOTSET" && (outSize - 1) * s >= size + (*pads)[i])
      --outSize;
    out[i] = Dim::known(outSize);
  }
  return out;
}

/// The output spatial dims of a convolution whose kernel dims are W's and
/// some of them symbolic (weights given at run time): (in + pads - extent)
/// / stride + 1 with extent = dilation * (k - 1) + 1, a polynomial for
/// stride 1 and a derived dim otherwise; run() checks that the padded input
/// holds the window. Explicit pads only (auto_pad NOTSET or VALID).
FailureOr<Shape> symbolicKernelWindow(ShapeContext &ctx, ArrayRef<Dim> in, ArrayRef<Dim> kernel,
                                      const Window &w) {
  size_t n = in.size();
  Shape out(n, Dim::unknown());
  auto strides = intsOr(w.strides, n, 1);
  auto dilations = intsOr(w.dilations, n, 1);
  auto pads = intsOr(w.pads, 2 * n, 0);
  if (!strides || !dilations || !pads || kernel.size() != n)
    return out;
  for (size_t i = 0; i < n; ++i) {
    int64_t s = (*strides)[i], d = (*dilations)[i];
    int64_t padTotal = w.autoPad == "NOTSET" ? (*pads)[i] + (*pads)[i + n] : 0;
    auto inExpr = in[i].asExpr(), k = kernel[i].asExpr();
    if (s < 1 || d < 1 || !inExpr || !k)
      continue;
    // span = in + pads - (d * (k - 1) + 1)
    std::optional<SymExpr> dk = SymExpr::mul(*k, SymExpr::constant(d));
    std::optional<SymExpr> extent =
        dk ? SymExpr::add(*dk, SymExpr::constant(1 - d)) : std::nullopt;
    std::optional<SymExpr> padded = SymExpr::add(*inExpr, SymExpr::constant(padTotal));
    std::optional<SymExpr> span =
        extent && padded ? SymExpr::sub(*padded, *extent) : std::nullopt;
    if (!span)
      continue;
    ctx.requireAtLeast(Dim::of(padded), Dim::of(extent));
    if (kernel[i].isStatic() && kernel[i].size < 1)
      return ctx.fail("W's spatial dim " + Twine(i) + " is " + Twine(kernel[i].size) +
                      ", expected at least 1");
    ctx.requireAtLeast(kernel[i], 1);
    DerivedDim def;
    def.span = *span;
    def.stride = s;
    def.in = *inExpr;
    out[i] = ctx.derivedDim(def);
  }
  return out;
}

/// Shape of a Conv-like op: X [N, C, spatial...], W [M, C/group, k...] gives
/// [N, M, out...]. `xIdx`/`wIdx` are the operand positions of X and W. With
/// `channelsLast` (2-D only), X [N, H, W, C] gives [N, OH, OW, M].
LogicalResult convShape(ShapeContext &ctx, unsigned xIdx, unsigned wIdx,
                        Window w, int64_t group, bool channelsLast = false) {
  auto x = ctx.operandShape(xIdx);
  auto wt = ctx.operandShape(wIdx);
  if (!x)
    return success();
  if (channelsLast) {
    if (x->size() != 4)
      return ctx.fail("channels-last input X has shape " + shapeText(*x) +
                      ", expected rank 4 (N, H, W, C)");
    x = Shape{(*x)[0], (*x)[3], (*x)[1], (*x)[2]};
  }
  if (x->size() < 3)
    return ctx.fail("input X has shape " + shapeText(*x) +
                    ", expected rank >= 3 (N, C, spatial...)");
  Dim outChannels = Dim::unknown();
  SmallVector<int64_t> kernelFromW;
  if (wt) {
    if (wt->size() != x->size())
      return ctx.fail("input X " + shapeText(*x) + " and weight W " +
                      shapeText(*wt) + " have different ranks");
    outChannels = (*wt)[0];
    Dim c = (*x)[1], wc = (*wt)[1];
    if (c.isStatic() && wc.isStatic() && group > 0 && c.size != wc.size * group)
      return ctx.fail("input channels " + Twine(c.size) +
                      " do not match weight channels " + Twine(wc.size) +
                      " times group " + Twine(group));
    // A symbolic channel dim must be W's channels times group: an equality
    // run() checks, or one that binds its symbol (bindSymbols).
    if (group > 0 && (!c.isStatic() || !wc.isStatic()))
      (void)ctx.unify(c, mulDims(wc, Dim::known(group)));
    // So must W's symbolic spatial dims be kernel_shape's.
    if (w.kernel && w.kernel->size() == wt->size() - 2)
      for (size_t i = 2; i < wt->size(); ++i)
        if (!(*wt)[i].isStatic())
          (void)ctx.unify((*wt)[i], Dim::known((*w.kernel)[i - 2]));
    if (!w.kernel) {
      for (size_t i = 2; i < wt->size(); ++i) {
        if (!(*wt)[i].isStatic())
          break;
        kernelFromW.push_back((*wt)[i].size);
      }
      if (kernelFromW.size() == wt->size() - 2)
        w.kernel = ArrayRef<int64_t>(kernelFromW);
    }
  }
  FailureOr<Shape> spatial = failure();
  if (wt && !w.kernel && (w.autoPad == "NOTSET" || w.autoPad == "VALID") &&
      llvm::any_of(ArrayRef<Dim>(*wt).drop_front(2), [](const Dim &d) { return d.isSymbolic(); }))
    spatial = symbolicKernelWindow(ctx, ArrayRef<Dim>(*x).drop_front(2),
                                   ArrayRef<Dim>(*wt).drop_front(2), w);
  else
    spatial = slideWindow(ctx, ArrayRef<Dim>(*x).drop_front(2), w);
  if (failed(spatial))
    return failure();
  Shape out{(*x)[0], outChannels};
  out.append(spatial->begin(), spatial->end());
  if (channelsLast)
    out = Shape{out[0], out[2], out[3], out[1]};
  ctx.setShape(0, out);
  return success();
}

/// Shape of a pooling op: [N, C, out...]; every result gets it (MaxPool's
/// Indices has the shape of Y).
LogicalResult poolShape(ShapeContext &ctx, const Window &w) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() < 3)
    return ctx.fail("input X has shape " + shapeText(*x) +
                    ", expected rank >= 3 (N, C, spatial...)");
  auto spatial = slideWindow(ctx, ArrayRef<Dim>(*x).drop_front(2), w);
  if (failed(spatial))
    return failure();
  Shape out{(*x)[0], (*x)[1]};
  out.append(spatial->begin(), spatial->end());
  for (unsigned i = 0, e = ctx.getOp()->getNumResults(); i < e; ++i)
    ctx.setShape(i, out);
  return success();
}

/// Global pooling: [N, C, 1, ...].
LogicalResult globalPoolShape(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() < 2)
    return ctx.fail("input X has shape " + shapeText(*x) + ", expected rank >= 2");
  Shape out{(*x)[0], (*x)[1]};
  out.append(x->size() - 2, Dim::known(1));
  ctx.setShape(0, out);
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// numpy.matmul: 1-D operands are promoted and the promoted dim dropped; batch
/// dims broadcast. `aIdx`/`bIdx` are the operand positions of A and B.
/// `derivedBatch`: batch dims of two different symbols broadcast to a
/// derived dim (ShapeContext::broadcastDerivedDim), for the ops whose
/// lowering repeats a batch dim of 1 at run time (broadcastMatMulBatch).
LogicalResult matmulShape(ShapeContext &ctx, unsigned aIdx, unsigned bIdx,
                          bool derivedBatch = false) {
  auto a = ctx.operandShape(aIdx);
  auto b = ctx.operandShape(bIdx);
  if (!a || !b)
    return success();
  if (a->empty() || b->empty())
    return ctx.fail("operands must have rank >= 1, got " + shapeText(*a) +
                    " and " + shapeText(*b));
  Shape lhs = *a, rhs = *b;
  bool lhsVector = lhs.size() == 1, rhsVector = rhs.size() == 1;
  if (lhsVector)
    lhs.insert(lhs.begin(), Dim::known(1));
  if (rhsVector)
    rhs.push_back(Dim::known(1));
  Dim k1 = lhs[lhs.size() - 1], k2 = rhs[rhs.size() - 2];
  if (failed(ctx.unify(k1, k2)))
    return ctx.fail("inner dims differ: A " + shapeText(*a) + " has " +
                    dimText(k1) + ", B " + shapeText(*b) + " has " + dimText(k2));
  ArrayRef<Dim> lb = ArrayRef<Dim>(lhs).drop_back(2);
  ArrayRef<Dim> rb = ArrayRef<Dim>(rhs).drop_back(2);
  size_t batchRank = std::max(lb.size(), rb.size());
  Shape out;
  for (size_t i = 0; i < batchRank; ++i) {
    Dim x = i + lb.size() >= batchRank ? lb[i + lb.size() - batchRank] : Dim::known(1);
    Dim y = i + rb.size() >= batchRank ? rb[i + rb.size() - batchRank] : Dim::known(1);
    auto d = broadcastDim(x, y);
    if (failed(d))
      return ctx.fail("batch dims " + dimText(x) + " and " + dimText(y) +
                      " do not broadcast");
    if (derivedBatch && !d->isStatic() && !d->isSymbolic())
      d = ctx.broadcastDerivedDim(x, y);
    out.push_back(*d);
  }
  if (!lhsVector)
    out.push_back(lhs[lhs.size() - 2]);
  if (!rhsVector)
    out.push_back(rhs.back());
  ctx.setShape(0, out);
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Reduces `data` over `axes` (all axes when empty, unless `noopWhenEmpty`).
/// `axes` nullopt means the axes are not known at compile time.
LogicalResult reduceShape(ShapeContext &ctx, std::optional<SmallVector<int64_t>> axes,
                          std::optional<int64_t> numAxes, bool keepDims,
                          bool noopWhenEmpty) {
  auto data = ctx.operandShape(0);
  if (!data)
    return success();
  int64_t rank = data->size();
  if (!axes) {
    // Which axes are reduced is known at run time only: each result dim is
    // data-dependent (a dim of 1 stays 1), at most the input dims it can be.
    if (!numAxes || *numAxes <= 0 || *numAxes > rank) {
      if (keepDims)
        ctx.setRank(0, rank);
      return success();
    }
    Shape out;
    unsigned next = 0;
    int64_t outRank = keepDims ? rank : rank - *numAxes;
    for (int64_t j = 0; j < outRank; ++j) {
      // Without keepdims, result dim j is one of input dims j .. j + numAxes.
      ArrayRef<Dim> candidates = ArrayRef<Dim>(*data).slice(j, keepDims ? 1 : *numAxes + 1);
      bool allSame = keepDims ? candidates.front() == Dim::known(1)
                              : llvm::all_of(candidates, [&](const Dim &d) {
                                  return d.isStatic() && d == candidates.front();
                                });
      if (allSame) {
        out.push_back(candidates.front());
        continue;
      }
      // The largest candidate when all are static, else their sum; a
      // reduced dim kept as 1 may exceed an empty one.
      Dim bound = Dim::known(keepDims ? 1 : 0);
      if (llvm::all_of(candidates, [](const Dim &d) { return d.isStatic(); }))
        for (const Dim &d : candidates)
          bound = Dim::known(std::max(bound.size, d.size));
      else
        for (const Dim &d : candidates)
          bound = addDims(bound, d);
      out.push_back(ctx.dataDim(next++, bound));
    }
    ctx.setShape(0, out);
    return success();
  }
  if (axes->empty() && noopWhenEmpty) {
    ctx.setShape(0, *data);
    return success();
  }
  llvm::SmallBitVector reduced(rank, axes->empty());
  for (int64_t axis : *axes) {
    auto a = normalizeAxis(axis, rank);
    if (!a)
      return ctx.fail("axis " + Twine(axis) + " is out of range for input of rank " +
                      Twine(rank));
    reduced.set(*a);
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.test(i))
      out.push_back((*data)[i]);
    else if (keepDims)
      out.push_back(Dim::known(1));
  }
  ctx.setShape(0, out);
  return success();
}

/// The Reduce* ops in their opset-18 form: optional `axes` input.
template <typename OpT>
LogicalResult reduceOpShape(OpT op, ShapeContext &ctx) {
  bool keepDims = static_cast<int64_t>(op.getKeepdims()) != 0;
  bool noop = static_cast<int64_t>(op.getNoopWithEmptyAxes()) != 0;
  if (!ctx.hasOperand(1))
    return reduceShape(ctx, SmallVector<int64_t>{}, std::nullopt, keepDims, noop);
  return reduceShape(ctx, ctx.operandInts(1), operandLength(ctx, 1), keepDims, noop);
}

/// ArgMax/ArgMin: one axis, keepdims.
LogicalResult argReduceShape(ShapeContext &ctx, int64_t axis, bool keepDims) {
  auto data = ctx.operandShape(0);
  if (!data)
    return success();
  if (data->empty())
    return ctx.fail("input must have rank >= 1");
  return reduceShape(ctx, SmallVector<int64_t>{axis}, std::nullopt, keepDims, false);
}

//===----------------------------------------------------------------------===//
// Recurrent networks
//===----------------------------------------------------------------------===//

/// RNN/GRU/LSTM: X [seq, batch, input] (layout 0) or [batch, seq, input]
/// (layout 1); R [dirs, gates*hidden, hidden]. Y is [seq, dirs, batch, hidden]
/// (layout 1: [batch, seq, dirs, hidden]); Y_h and Y_c are [dirs, batch,
/// hidden] (layout 1: [batch, dirs, hidden]).
LogicalResult recurrentShape(ShapeContext &ctx, StringRef direction,
                             std::optional<uint64_t> hiddenSize, int64_t layout) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() != 3)
    return ctx.fail("input X has shape " + shapeText(*x) + ", expected rank 3");
  Dim seq = layout == 0 ? (*x)[0] : (*x)[1];
  Dim batch = layout == 0 ? (*x)[1] : (*x)[0];
  Dim dirs = Dim::known(direction == "bidirectional" ? 2 : 1);
  Dim hidden = Dim::unknown();
  if (hiddenSize)
    hidden = Dim::known(static_cast<int64_t>(*hiddenSize));
  if (auto r = ctx.operandShape(2); r && r->size() == 3) {
    auto h = ctx.unify(hidden, (*r)[2]);
    if (failed(h))
      return ctx.fail("hidden_size " + dimText(hidden) + " does not match R " +
                      shapeText(*r));
    hidden = *h;
  }
  if (layout == 0) {
    ctx.setShape(0, Shape{seq, dirs, batch, hidden});
    for (unsigned i = 1, e = ctx.getOp()->getNumResults(); i < e; ++i)
      ctx.setShape(i, Shape{dirs, batch, hidden});
    return success();
  }
  ctx.setShape(0, Shape{batch, seq, dirs, hidden});
  for (unsigned i = 1, e = ctx.getOp()->getNumResults(); i < e; ++i)
    ctx.setShape(i, Shape{batch, dirs, hidden});
  return success();
}

/// The shape a sequence's element type declares, if ranked.
std::optional<Shape> shapeOfType(Type t) {
  auto ranked = dyn_cast_or_null<RankedTensorType>(t);
  if (!ranked)
    return std::nullopt;
  Shape s;
  for (int64_t d : ranked.getShape())
    s.push_back(ShapedType::isDynamic(d) ? Dim::unknown() : Dim::known(d));
  return s;
}

/// Window functions: a 1-D tensor of `size` elements (a scalar input).
LogicalResult windowShape(ShapeContext &ctx) {
  if (auto n = operandScalar(ctx, 0)) {
    if (*n < 0)
      return ctx.fail("window size " + Twine(*n) + " is negative");
    ctx.setShape(0, Shape{Dim::known(*n)});
    return success();
  }
  // Known at run time only: at most the bound the user gives (--bound).
  ctx.setShape(0, Shape{ctx.dataDim(0, Dim::unknown())});
  return success();
}

/// The shape of operand `i` read as a constant 1-D shape tensor: each value a
/// static dim; nullopt when not constant.
FailureOr<std::optional<Shape>> constantShapeOperand(ShapeContext &ctx, unsigned i,
                                                     StringRef what) {
  auto values = ctx.operandDims(i);
  if (!values)
    return std::optional<Shape>();
  Shape s;
  for (const Dim &v : *values) {
    if (v.isStatic() && v.size < 0)
      return ctx.fail(what + " has negative value " + Twine(v.size));
    s.push_back(v);
  }
  return std::optional<Shape>(s);
}

/// Checks the index values of operand `indicesIdx` when they are known at
/// compile time: the element at `position` indexes axis `axisOf(position)` of
/// `data` and must lie in [-s, s) when that axis has a static size s (ONNX
/// makes anything else an error; indices that arrive at run time are clamped
/// instead, see codegen/cpp/ABI.md). Symbolic or unknown axes are not checked.
LogicalResult checkIndexValues(ShapeContext &ctx, unsigned indicesIdx, const Shape &data,
                               llvm::function_ref<int64_t(int64_t position)> axisOf) {
  std::optional<std::pair<int64_t, int64_t>> bad; // (value, axis)
  // A constant index into a symbolic dim needs the dim long enough.
  SmallVector<int64_t> least(data.size(), 0);
  ctx.forEachIntValue(ctx.getOp()->getOperand(indicesIdx), [&](int64_t position, int64_t v) {
    int64_t axis = axisOf(position);
    const Dim &d = data[axis];
    if (!d.isStatic()) {
      if (v >= 0 && v < std::numeric_limits<int64_t>::max())
        least[axis] = std::max(least[axis], v + 1);
      else if (v < 0 && v > std::numeric_limits<int64_t>::min())
        least[axis] = std::max(least[axis], -v);
      return true;
    }
    if (v >= -d.size && v < d.size)
      return true;
    bad = {v, axis};
    return false;
  });
  if (!bad) {
    for (auto [d, n] : llvm::zip(data, least))
      if (n > 0)
        ctx.requireAtLeast(d, n);
    return success();
  }
  int64_t s = data[bad->second].size;
  return ctx.fail("index " + Twine(bad->first) + " of input 'indices' is out of range [" +
                  Twine(-s) + ", " + Twine(s) + ") of axis " + Twine(bad->second));
}

/// GatherElements and ScatterElements: off the axis, indices (and the
/// updates, which have their shape) address data's elements by position, so
/// no static dim of indices may exceed data's there.
LogicalResult checkElementsShape(ShapeContext &ctx, const Shape &data, const Shape &indices,
                                 int64_t axis) {
  for (size_t d = 0; d < data.size() && d < indices.size(); ++d) {
    if (static_cast<int64_t>(d) != axis && (!data[d].isStatic() || !indices[d].isStatic()))
      ctx.requireAtLeast(data[d], indices[d]); // checked at run time
    if (static_cast<int64_t>(d) == axis || !data[d].isStatic() || !indices[d].isStatic() ||
        indices[d].size <= data[d].size)
      continue;
    return ctx.fail("indices " + shapeText(indices) + " are larger than data " +
                    shapeText(data) + " in dim " + Twine(d) + ", which is not the axis");
  }
  return success();
}

/// GatherND and ScatterND: each k-tuple of the indices (k their last,
/// static dim) indexes data's axes first, first + 1, ..., first + k - 1.
LogicalResult checkIndexTuples(ShapeContext &ctx, unsigned indicesIdx, const Shape &data,
                               int64_t k, int64_t first) {
  if (k < 1 || first + k > static_cast<int64_t>(data.size()))
    return success();
  return checkIndexValues(ctx, indicesIdx, data,
                          [&](int64_t position) { return first + position % k; });
}

} // namespace

namespace onnxcc::onnx {
/// Broadcasts the shapes of all present operands into result 0.
LogicalResult broadcastOperands(ShapeContext &ctx) {
  Operation *op = ctx.getOp();
  Shape out;
  unsigned ownDataDims = 0;
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i) {
    if (!ctx.hasOperand(i))
      continue;
    auto s = ctx.operandShape(i);
    if (!s)
      return success();
    if (s->size() > out.size())
      out.insert(out.begin(), s->size() - out.size(), Dim::known(1));
    size_t offset = out.size() - s->size();
    for (size_t j = 0; j < s->size(); ++j) {
      auto d = broadcastDim(out[offset + j], (*s)[j]);
      if (failed(d))
        return ctx.fail("operand #" + Twine(i) + " dim " + Twine(j) + " of size " +
                        dimText((*s)[j]) + " does not broadcast with size " +
                        dimText(out[offset + j]));
      // Two different symbols ([A] + [B]): a dim run() derives from both.
      if (!d->isStatic() && !d->isSymbolic())
        d = ctx.broadcastDerivedDim(out[offset + j], (*s)[j]);
      // Two dims the data decides: one run() computes after both (in the
      // elementwise lowering, which strings do not have).
      if (!d->isStatic() && !d->isSymbolic() && !isa<StringConcatOp>(op))
        d = ctx.broadcastDataDim(ownDataDims++, out[offset + j], (*s)[j]);
      out[offset + j] = *d;
    }
  }
  ctx.setShape(0, out);
  return success();
}
} // namespace onnxcc::onnx

#define SHAPE_FN(OP, FN)                                                       \
  LogicalResult OP##Op::inferShapes(ShapeContext &ctx) { return FN(ctx); }

// Elementwise ops and ops whose first result has the shape of the first input.
#define UNARY(OP) SHAPE_FN(OP, sameAsFirstOperand)
UNARY(Abs) UNARY(Acos) UNARY(Acosh) UNARY(Asin) UNARY(Asinh) UNARY(Atan)
UNARY(Atanh) UNARY(Ceil) UNARY(Celu) UNARY(Cos) UNARY(Cosh) UNARY(Elu)
UNARY(Erf) UNARY(Exp) UNARY(Floor) UNARY(HardSigmoid) UNARY(HardSwish)
UNARY(Identity) UNARY(IsInf) UNARY(IsNaN) UNARY(LeakyRelu) UNARY(Log)
UNARY(Neg) UNARY(Not) UNARY(Reciprocal) UNARY(Relu) UNARY(Round) UNARY(Selu)
UNARY(Sigmoid) UNARY(Sign) UNARY(Sin) UNARY(Sinh) UNARY(Softplus)
UNARY(Softsign) UNARY(Sqrt) UNARY(Tan) UNARY(Tanh) UNARY(ThresholdedRelu)
UNARY(Shrink) UNARY(Cast) UNARY(CastLike) UNARY(Softmax) UNARY(LogSoftmax)
UNARY(Hardmax) UNARY(LRN) UNARY(MeanVarianceNormalization)
UNARY(Trilu) UNARY(Bernoulli)
UNARY(RandomNormalLike) UNARY(RandomUniformLike) UNARY(Clip)
UNARY(LpNormalization) UNARY(EyeLike) UNARY(ReverseSequence)
UNARY(QuantizeLinear)
UNARY(DequantizeLinear)
UNARY(BitwiseNot) UNARY(BitCast)

// Ops whose every result has the shape of the first input.
SHAPE_FN(Dropout, allResultsAsFirstOperand)

// Multidirectional broadcasting.
#define BCAST(OP) SHAPE_FN(OP, broadcastOperands)
BCAST(Add) BCAST(Sub) BCAST(Mul) BCAST(Div) BCAST(Pow) BCAST(Mod) BCAST(And)
BCAST(Or) BCAST(Xor) BCAST(Equal) BCAST(Greater) BCAST(GreaterOrEqual)
BCAST(Less) BCAST(LessOrEqual) BCAST(PRelu) BCAST(Max) BCAST(Min) BCAST(Mean)
BCAST(Sum) BCAST(Where) BCAST(BitShift)
BCAST(BitwiseAnd) BCAST(BitwiseOr) BCAST(BitwiseXor) BCAST(StringConcat)

// Sequence and optional ops: their results are not tensors.
#define NO_TENSOR(OP) SHAPE_FN(OP, noTensorShape)
NO_TENSOR(Optional) NO_TENSOR(SequenceConstruct) NO_TENSOR(SequenceEmpty)
NO_TENSOR(SequenceErase) NO_TENSOR(SequenceInsert) NO_TENSOR(SequenceMap)
NO_TENSOR(SplitToSequence)

// Window functions.
SHAPE_FN(BlackmanWindow, windowShape)
SHAPE_FN(HammingWindow, windowShape)
SHAPE_FN(HannWindow, windowShape)

// Global pooling.
SHAPE_FN(GlobalAveragePool, globalPoolShape)
SHAPE_FN(GlobalLpPool, globalPoolShape)
SHAPE_FN(GlobalMaxPool, globalPoolShape)

// Reductions.
#define REDUCE(OP)                                                             \
  LogicalResult OP##Op::inferShapes(ShapeContext &ctx) {                       \
    return reduceOpShape(*this, ctx);                                          \
  }
REDUCE(ReduceL1) REDUCE(ReduceL2) REDUCE(ReduceLogSum) REDUCE(ReduceLogSumExp)
REDUCE(ReduceMax) REDUCE(ReduceMean) REDUCE(ReduceMin) REDUCE(ReduceProd)
REDUCE(ReduceSum) REDUCE(ReduceSumSquare)

//===----------------------------------------------------------------------===//
// Ops with a shape rule of their own
//===----------------------------------------------------------------------===//

LogicalResult ArgMaxOp::inferShapes(ShapeContext &ctx) {
  return argReduceShape(ctx, static_cast<int64_t>(getAxis()), getKeepdims() != 0);
}

LogicalResult ArgMinOp::inferShapes(ShapeContext &ctx) {
  return argReduceShape(ctx, static_cast<int64_t>(getAxis()), getKeepdims() != 0);
}

/// The `dilations` of AveragePool 19 and LpPool 18, which the importer
/// keeps as an extra attribute of the dialect's ops (see poolWithWindow).
static std::optional<ArrayRef<int64_t>> extraDilations(Operation *op) {
  if (auto d = op->getAttrOfType<DenseI64ArrayAttr>("dilations"))
    return d.asArrayRef();
  return std::nullopt;
}

LogicalResult AveragePoolOp::inferShapes(ShapeContext &ctx) {
  Window w;
  w.autoPad = getAutoPad();
  w.kernel = getKernelShape();
  w.strides = getStrides();
  w.dilations = extraDilations(*this);
  w.pads = getPads();
  w.ceilMode = getCeilMode() != 0;
  return poolShape(ctx, w);
}

LogicalResult MaxPoolOp::inferShapes(ShapeContext &ctx) {
  Window w;
  w.autoPad = getAutoPad();
  w.kernel = getKernelShape();
  w.strides = getStrides();
  w.dilations = getDilations();
  w.pads = getPads();
  w.ceilMode = getCeilMode() != 0;
  return poolShape(ctx, w);
}

LogicalResult LpPoolOp::inferShapes(ShapeContext &ctx) {
  Window w;
  w.autoPad = getAutoPad();
  w.kernel = getKernelShape();
  w.strides = getStrides();
  w.dilations = extraDilations(*this);
  w.pads = getPads();
  auto ceil = (*this)->getAttrOfType<IntegerAttr>("ceil_mode");
  w.ceilMode = ceil && ceil.getInt() != 0;
  return poolShape(ctx, w);
}

/// The window of a Conv-like op (Conv, ConvInteger, QLinearConv, FusedConv).
template <typename ConvLikeOp>
static Window convWindow(ConvLikeOp op) {
  Window w;
  w.autoPad = op.getAutoPad();
  w.kernel = op.getKernelShape();
  w.strides = op.getStrides();
  w.dilations = op.getDilations();
  w.pads = op.getPads();
  return w;
}

LogicalResult ConvOp::inferShapes(ShapeContext &ctx) {
  Window w = convWindow(*this);
  // A symbolic output-channel dim of W must be B's length.
  if (ctx.hasOperand(2))
    if (auto wt = ctx.operandShape(1), b = ctx.operandShape(2);
        wt && b && !wt->empty() && b->size() == 1 && !(*wt)[0].isStatic())
      (void)ctx.unify((*wt)[0], (*b)[0]);
  return convShape(ctx, 0, 1, w, static_cast<int64_t>(getGroup()));
}

LogicalResult ConvIntegerOp::inferShapes(ShapeContext &ctx) {
  Window w = convWindow(*this);
  return convShape(ctx, 0, 1, w, static_cast<int64_t>(getGroup()));
}

LogicalResult QLinearConvOp::inferShapes(ShapeContext &ctx) {
  Window w = convWindow(*this);
  return convShape(ctx, 0, 3, w, static_cast<int64_t>(getGroup()));
}

/// X [N, C, in...], W [C, M/group, k...] gives [N, M, out...] with
/// out = stride * (in - 1) + output_padding + ((k - 1) * dilation + 1) - pads,
/// or output_shape when given, or in * stride for SAME_* auto padding.
LogicalResult ConvTransposeOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() < 3)
    return ctx.fail("input X has shape " + shapeText(*x) +
                    ", expected rank >= 3 (N, C, spatial...)");
  size_t n = x->size() - 2;
  int64_t group = static_cast<int64_t>(getGroup());
  Dim outChannels = Dim::unknown();
  SmallVector<int64_t> kernel;
  if (auto k = getKernelShape())
    kernel.assign(k->begin(), k->end());
  if (auto wt = ctx.operandShape(1)) {
    if (wt->size() != x->size())
      return ctx.fail("input X " + shapeText(*x) + " and weight W " +
                      shapeText(*wt) + " have different ranks");
    if (failed(ctx.unify((*x)[1], (*wt)[0])))
      return ctx.fail("input channels " + dimText((*x)[1]) +
                      " do not match weight dim 0 of size " + dimText((*wt)[0]));
    outChannels = group > 0 ? mulDim((*wt)[1], Dim::known(group)) : Dim::unknown();
    if (kernel.empty() &&
        llvm::all_of(ArrayRef<Dim>(*wt).drop_front(2), [](const Dim &d) { return d.isStatic(); }))
      for (size_t i = 2; i < wt->size(); ++i)
        kernel.push_back((*wt)[i].size);
  }
  Shape out{(*x)[0], outChannels};
  if (auto outputShape = getOutputShape()) {
    // output_shape lists the spatial dims (some exporters give all dims).
    ArrayRef<int64_t> spatial = *outputShape;
    if (spatial.size() == n + 2)
      spatial = spatial.drop_front(2);
    if (spatial.size() != n)
      return ctx.fail("output_shape has " + Twine(outputShape->size()) +
                      " values, expected " + Twine(n));
    for (int64_t d : spatial) {
      if (d < 0)
        return ctx.fail("output_shape has negative value " + Twine(d));
      out.push_back(Dim::known(d));
    }
    ctx.setShape(0, out);
    return success();
  }
  auto strides = intsOr(getStrides(), n, 1);
  auto dilations = intsOr(getDilations(), n, 1);
  auto pads = intsOr(getPads(), 2 * n, 0);
  auto outputPadding = intsOr(getOutputPadding(), n, 0);
  StringRef autoPad = getAutoPad();
  for (size_t i = 0; i < n; ++i) {
    Dim in = (*x)[i + 2];
    if (strides && in.isSymbolic()) {
      // A symbolic input size: the result is stride * in plus a constant
      // (SAME: stride * in), a polynomial of the symbols, with in >= 1 and
      // the result at least 0 checked at run time.
      int64_t s = (*strides)[i];
      Dim scaled = mulDims(in, Dim::known(s));
      if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        out.push_back(scaled);
        continue;
      }
      if (kernel.size() != n || !dilations || !pads || !outputPadding) {
        out.push_back(Dim::unknown());
        continue;
      }
      int64_t extent = (kernel[i] - 1) * (*dilations)[i] + 1;
      int64_t constant = (*outputPadding)[i] + extent - s -
                         (autoPad == "VALID" ? 0 : (*pads)[i] + (*pads)[i + n]);
      Dim size = addDims(scaled, Dim::known(constant));
      if (!size.isSymbolic()) {
        out.push_back(Dim::unknown());
        continue;
      }
      // s * in + constant >= 0 for in >= ceil(-constant / s), and in >= 1
      // (an empty input has no transposed size ONNX defines).
      int64_t least = constant >= 0 ? 1 : std::max<int64_t>(1, (-constant + s - 1) / s);
      ctx.requireAtLeast(in, least);
      out.push_back(size);
      continue;
    }
    if (!strides || !in.isStatic()) {
      out.push_back(Dim::unknown());
      continue;
    }
    int64_t s = (*strides)[i];
    auto tooLarge = [&] {
      return ctx.fail("the stride, window or padding of spatial dim " + Twine(i) +
                      " is too large (its size overflows int64)");
    };
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t size;
      if (llvm::MulOverflow(in.size, s, size))
        return tooLarge();
      out.push_back(Dim::known(size));
      continue;
    }
    if (kernel.size() != n || !dilations || !pads || !outputPadding) {
      out.push_back(Dim::unknown());
      continue;
    }
    int64_t extent, size, padding;
    if (llvm::MulOverflow(kernel[i] - 1, (*dilations)[i], extent) ||
        llvm::AddOverflow(extent, int64_t(1), extent) ||
        llvm::MulOverflow(s, in.size - 1, size) ||
        llvm::AddOverflow(size, (*outputPadding)[i], size) ||
        llvm::AddOverflow(size, extent, size) ||
        llvm::AddOverflow((*pads)[i], (*pads)[i + n], padding) ||
        (autoPad != "VALID" && llvm::SubOverflow(size, padding, size)))
      return tooLarge();
    if (size < 0)
      return ctx.fail("spatial dim " + Twine(i) + " would have negative size " +
                      Twine(size));
    out.push_back(Dim::known(size));
  }
  ctx.setShape(0, out);
  return success();
}

/// Y has the shape of X [N, C, ...]; operands 1 to `lastPerChannel` (1-D)
/// have one value per channel, whose count unify records. The shapes of
/// BatchNormalization and InstanceNormalization.
static LogicalResult perChannelNormShape(ShapeContext &ctx, unsigned lastPerChannel) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() < 2)
    return ctx.fail("input X has shape " + shapeText(*x) + ", expected rank >= 2");
  ctx.setShape(0, *x);
  for (unsigned i = 1; i <= lastPerChannel; ++i) {
    auto s = ctx.operandShape(i);
    if (s && s->size() == 1 && failed(ctx.unify((*s)[0], (*x)[1])))
      return ctx.fail("operand #" + Twine(i) + " has shape " + shapeText(*s) +
                      " but X has " + dimText((*x)[1]) + " channels");
  }
  return success();
}

/// Y has the shape of X; running_mean/var (training mode) have shape [C].
LogicalResult BatchNormalizationOp::inferShapes(ShapeContext &ctx) {
  if (failed(perChannelNormShape(ctx, 4)))
    return failure();
  if (auto x = ctx.operandShape(0); x && x->size() >= 2) {
    ctx.setShape(1, Shape{(*x)[1]});
    ctx.setShape(2, Shape{(*x)[1]});
  }
  return success();
}

/// Y has the shape of X; scale and B have one value per channel.
LogicalResult InstanceNormalizationOp::inferShapes(ShapeContext &ctx) {
  return perChannelNormShape(ctx, 2);
}

/// Y has the shape of X; Mean and InvStdDev keep the dims before `axis` and
/// have 1 for the normalized dims.
LogicalResult LayerNormalizationOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  ctx.setShape(0, *x);
  int64_t rank = x->size();
  auto axis = normalizeAxis(static_cast<int64_t>(getAxis()), rank);
  if (!axis)
    return ctx.fail("axis " + Twine(static_cast<int64_t>(getAxis())) +
                    " is out of range for input of rank " + Twine(rank));
  // Scale and B broadcast into X; a dim of theirs that is not a static 1
  // is X's (checked at run time where that holds only for some values of
  // the symbols).
  for (unsigned i = 1; i < 3; ++i) {
    auto s = ctx.hasOperand(i) ? ctx.operandShape(i) : std::nullopt;
    if (!s)
      continue;
    if (static_cast<int64_t>(s->size()) > rank)
      return ctx.fail((i == 1 ? "Scale " : "B ") + shapeText(*s) +
                      " has more dims than X " + shapeText(*x));
    size_t offset = rank - s->size();
    for (size_t d = 0; d < s->size(); ++d) {
      const Dim &sd = (*s)[d];
      if (sd.isStatic() && sd.size == 1)
        continue;
      if (failed(ctx.unify(sd, (*x)[offset + d])))
        return ctx.fail((i == 1 ? "Scale " : "B ") + shapeText(*s) +
                        " does not broadcast into X " + shapeText(*x));
    }
  }
  Shape stats(x->begin(), x->begin() + *axis);
  stats.append(rank - *axis, Dim::known(1));
  ctx.setShape(1, stats);
  ctx.setShape(2, stats);
  return success();
}

/// With an axis the rank is kept and that dim is data dependent; without one
/// the result is 1-D of unknown length.
LogicalResult CompressOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0), condition = ctx.operandShape(1);
  // The kept count: at most the dim (or element count) and the condition's
  // length.
  auto bounded = [&](const Dim &all) {
    Dim bound = all;
    if (condition && condition->size() == 1 && (*condition)[0].isStatic() && all.isStatic())
      bound = Dim::known(std::min(all.size, (*condition)[0].size));
    return ctx.dataDim(0, bound);
  };
  if (!getAxis()) {
    if (!x)
      ctx.setRank(0, 1);
    else
      ctx.setShape(0, Shape{bounded(productOf(*x))});
    return success();
  }
  if (!x)
    return success();
  int64_t axisAttr = static_cast<int64_t>(*getAxis());
  auto axis = normalizeAxis(axisAttr, x->size());
  if (!axis)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for input of rank " +
                    Twine(x->size()));
  Shape out = *x;
  out[*axis] = bounded((*x)[*axis]);
  ctx.setShape(0, out);
  return success();
}

/// Non-axis dims must agree; the axis dim is the sum of the inputs'.
LogicalResult ConcatOp::inferShapes(ShapeContext &ctx) {
  std::optional<Shape> out;
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  std::optional<int64_t> axis;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto s = ctx.getShape(v);
    if (!s) {
      if (out && axis)
        (*out)[*axis] = Dim::unknown();
      continue;
    }
    if (!out) {
      axis = normalizeAxis(axisAttr, s->size());
      if (!axis)
        return ctx.fail("axis " + Twine(axisAttr) +
                        " is out of range for inputs of rank " + Twine(s->size()));
      out = *s;
      if (i != 0)
        (*out)[*axis] = Dim::unknown();
      continue;
    }
    if (s->size() != out->size())
      return ctx.fail("input #" + Twine(i) + " has rank " + Twine(s->size()) +
                      ", input #0 has rank " + Twine(out->size()));
    for (size_t d = 0; d < s->size(); ++d) {
      if (static_cast<int64_t>(d) == *axis) {
        (*out)[d] = addDims((*out)[d], (*s)[d]);
        continue;
      }
      auto u = ctx.unify((*out)[d], (*s)[d]);
      if (failed(u))
        return ctx.fail("input #" + Twine(i) + " has size " + dimText((*s)[d]) +
                        " in dim " + Twine(d) + " where earlier inputs have " +
                        dimText((*out)[d]));
      (*out)[d] = *u;
    }
  }
  if (out)
    ctx.setShape(0, *out);
  return success();
}

/// The rank follows the sequence's element type when it is ranked.
LogicalResult ConcatFromSequenceOp::inferShapes(ShapeContext &ctx) {
  auto seq = dyn_cast<SeqType>(getInputSequence().getType());
  if (!seq)
    return success();
  auto elem = shapeOfType(seq.getElementType());
  if (!elem)
    return success();
  int64_t rank = elem->size() + (getNewAxis() != 0 ? 1 : 0);
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  auto axis = normalizeAxis(axisAttr, rank);
  if (!axis)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for rank " +
                    Twine(rank));
  Shape out = *elem;
  if (getNewAxis() != 0)
    out.insert(out.begin() + *axis, Dim::unknown());
  else
    out[*axis] = Dim::unknown();
  ctx.setShape(0, out);
  return success();
}

/// The shape of the value attribute (scalar for value_float/int/string, 1-D
/// for the list forms).
LogicalResult ConstantOp::inferShapes(ShapeContext &ctx) {
  if (auto v = getValue()) {
    if (auto t = dyn_cast<RankedTensorType>(v->getType()))
      if (auto s = shapeOfType(t))
        ctx.setShape(0, *s);
    return success();
  }
  if (auto v = getSparseValue()) {
    if (auto t = dyn_cast<RankedTensorType>(v->getType()))
      if (auto s = shapeOfType(t))
        ctx.setShape(0, *s);
    return success();
  }
  if (getValueFloat() || getValueInt() || getValueString()) {
    ctx.setShape(0, Shape{});
    return success();
  }
  if (auto v = getValueFloats())
    ctx.setShape(0, Shape{Dim::known(v->size())});
  else if (auto v = getValueInts())
    ctx.setShape(0, Shape{Dim::known(v->size())});
  else if (auto v = getValueStrings())
    ctx.setShape(0, Shape{Dim::known(v->size())});
  return success();
}

/// The shape is the value of the 1-D input.
LogicalResult ConstantOfShapeOp::inferShapes(ShapeContext &ctx) {
  auto s = constantShapeOperand(ctx, 0, "input shape");
  if (failed(s))
    return failure();
  if (*s) {
    // A value known only at run time (a size that is an input of the
    // model): a dim the data decides, bounded by --bound, unless the model
    // declares it.
    auto declared = dyn_cast<RankedTensorType>(getOperation()->getResult(0).getType());
    unsigned next = 0;
    for (auto [d, dim] : llvm::enumerate(**s)) {
      if (dim.isStatic() || dim.isSymbolic())
        continue;
      if (declared && declared.getRank() == static_cast<int64_t>((*s)->size()) &&
          !declared.isDynamicDim(d))
        dim = Dim::known(declared.getDimSize(d));
      else
        dim = ctx.dataDim(next++, Dim::unknown());
    }
    ctx.setShape(0, **s);
    return success();
  }
  if (auto n = operandLength(ctx, 0))
    ctx.setRank(0, *n);
  return success();
}

/// input [..., m, 1 or 2] gives [..., n', 2]: n is dft_length (when
/// constant) or m (2 (m - 1) for the inverse one-sided transform); n' is n,
/// or n / 2 + 1 for the forward one-sided one. The inverse one-sided
/// transform (IRFFT) gives a real [..., n, 1]. A negative axis counts from
/// the back of all dims: [-r, -2] or [0, r - 2].
LogicalResult DFTOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t rank = x->size();
  if (rank < 2)
    return ctx.fail("input has shape " + shapeText(*x) + ", expected rank >= 2");
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  int64_t axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  if (axis < 0 || axis > rank - 2)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for input of rank " +
                    Twine(rank) + " ([-r, -2] or [0, r - 2])");
  bool irfft = getOnesided() != 0 && getInverse() != 0;
  Shape out = *x;
  Dim n = (*x)[axis];
  if (ctx.hasOperand(1)) {
    n = Dim::unknown();
    if (auto len = operandScalar(ctx, 1)) {
      if (*len < 1)
        return ctx.fail("dft_length " + Twine(*len) + " must be positive");
      n = Dim::known(*len);
    }
  } else if (irfft) {
    n = n.isStatic() ? Dim::known(2 * (n.size - 1)) : Dim::unknown();
    if (n.isStatic() && n.size < 1)
      return ctx.fail("the one-sided inverse DFT of " + Twine((*x)[axis].size) +
                      " bins has no default dft_length");
  }
  if (getOnesided() != 0 && !irfft)
    n = n.isStatic() ? Dim::known(n.size / 2 + 1) : Dim::unknown();
  out[axis] = n;
  out.back() = Dim::known(irfft ? 1 : 2);
  ctx.setShape(0, out);
  return success();
}

/// [N, C, H, W] gives [N, C / b^2, H * b, W * b].
LogicalResult DepthToSpaceOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() != 4)
    return ctx.fail("input has shape " + shapeText(*x) + ", expected rank 4");
  int64_t b = static_cast<int64_t>(getBlocksize());
  if (b < 1)
    return ctx.fail("blocksize " + Twine(b) + " must be positive");
  Dim c = (*x)[1];
  if (c.isStatic() && c.size % (b * b) != 0)
    return ctx.fail("channels " + Twine(c.size) + " are not divisible by blocksize^2 = " +
                    Twine(b * b));
  ctx.setShape(0, Shape{(*x)[0], ctx.quotientDim(c, Dim::known(b * b)), mulDim((*x)[2], Dim::known(b)),
                        mulDim((*x)[3], Dim::known(b))});
  return success();
}

/// [N, C, H, W] gives [N, C * b^2, H / b, W / b].
LogicalResult SpaceToDepthOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() != 4)
    return ctx.fail("input has shape " + shapeText(*x) + ", expected rank 4");
  int64_t b = static_cast<int64_t>(getBlocksize());
  if (b < 1)
    return ctx.fail("blocksize " + Twine(b) + " must be positive");
  for (int i = 2; i < 4; ++i)
    if ((*x)[i].isStatic() && (*x)[i].size % b != 0)
      return ctx.fail("spatial dim " + Twine((*x)[i].size) +
                      " is not divisible by blocksize " + Twine(b));
  ctx.setShape(0, Shape{(*x)[0], mulDim((*x)[1], Dim::known(b * b)),
                        ctx.quotientDim((*x)[2], Dim::known(b)),
                        ctx.quotientDim((*x)[3], Dim::known(b))});
  return success();
}

/// [*, M, M] gives [*].
LogicalResult DetOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() < 2)
    return ctx.fail("input has shape " + shapeText(*x) + ", expected rank >= 2");
  Dim m = (*x)[x->size() - 2], n = x->back();
  if (failed(ctx.unify(m, n)))
    return ctx.fail("input has shape " + shapeText(*x) +
                    ", the last two dims must be equal");
  ctx.setShape(0, Shape(x->begin(), x->end() - 2));
  return success();
}

/// y has the shape of x; y_scale and y_zero_point are scalars.
LogicalResult DynamicQuantizeLinearOp::inferShapes(ShapeContext &ctx) {
  if (auto x = ctx.operandShape(0))
    ctx.setShape(0, *x);
  ctx.setShape(1, Shape{});
  ctx.setShape(2, Shape{});
  return success();
}

/// Labels bind dims across inputs; "..." broadcasts. The output is given after
/// "->" or, implicitly, the broadcast dims then the labels used once, sorted.
LogicalResult EinsumOp::inferShapes(ShapeContext &ctx) {
  std::string eq;
  for (char c : getEquation())
    if (c != ' ')
      eq.push_back(c);
  StringRef equation(eq);
  auto [lhs, rhs] = equation.split("->");
  bool explicitOutput = equation.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  auto inputs = getInputs();
  if (terms.size() != inputs.size())
    return ctx.fail("equation has " + Twine(terms.size()) + " input terms but the op has " +
                    Twine(inputs.size()) + " inputs");
  llvm::DenseMap<char, Dim> labels;
  llvm::DenseMap<char, int> uses;
  Shape ellipsis;
  bool unknownRank = false;
  for (auto [term, v] : llvm::zip(terms, inputs)) {
    size_t dots = term.find("...");
    std::string letters = term.str();
    if (dots != StringRef::npos)
      letters.erase(dots, 3);
    for (char c : letters) {
      if (!llvm::isAlpha(c))
        return ctx.fail("equation term '" + term + "' has invalid label '" +
                        Twine(c) + "'");
      ++uses[c];
    }
    auto s = ctx.getShape(v);
    if (!s) {
      unknownRank = true;
      continue;
    }
    int64_t ellipsisRank = static_cast<int64_t>(s->size()) - letters.size();
    if (ellipsisRank < 0 || (dots == StringRef::npos && ellipsisRank != 0))
      return ctx.fail("equation term '" + term + "' does not match an input of shape " +
                      shapeText(*s));
    size_t dim = 0;
    for (size_t pos = 0; pos < term.size();) {
      if (pos == dots) {
        Shape part(s->begin() + dim, s->begin() + dim + ellipsisRank);
        if (part.size() > ellipsis.size())
          ellipsis.insert(ellipsis.begin(), part.size() - ellipsis.size(), Dim::known(1));
        size_t offset = ellipsis.size() - part.size();
        for (size_t j = 0; j < part.size(); ++j) {
          auto b = broadcastDim(ellipsis[offset + j], part[j]);
          if (failed(b))
            return ctx.fail("dims covered by '...' do not broadcast");
          ellipsis[offset + j] = *b;
        }
        dim += ellipsisRank;
        pos += 3;
        continue;
      }
      char c = term[pos++];
      Dim d = (*s)[dim++];
      auto it = labels.find(c);
      if (it == labels.end()) {
        labels[c] = d;
        continue;
      }
      auto u = ctx.unify(it->second, d);
      if (failed(u)) {
        // A size-1 dim broadcasts against the label's other occurrences.
        if (d.isStatic() && d.size == 1)
          continue;
        if (it->second.isStatic() && it->second.size == 1) {
          it->second = d;
          continue;
        }
        return ctx.fail("label '" + Twine(c) + "' has sizes " + dimText(it->second) +
                        " and " + dimText(d));
      }
      it->second = *u;
    }
  }
  auto labelDim = [&](char c) {
    auto it = labels.find(c);
    return it == labels.end() ? Dim::unknown() : it->second;
  };
  if (!explicitOutput) {
    if (unknownRank)
      return success();
    Shape out = ellipsis;
    SmallVector<char> once;
    for (auto [c, n] : uses)
      if (n == 1)
        once.push_back(c);
    llvm::sort(once);
    for (char c : once)
      out.push_back(labelDim(c));
    ctx.setShape(0, out);
    return success();
  }
  size_t dots = rhs.find("...");
  if (dots != StringRef::npos && unknownRank)
    return success();
  Shape out;
  for (size_t pos = 0; pos < rhs.size();) {
    if (pos == dots) {
      out.append(ellipsis.begin(), ellipsis.end());
      pos += 3;
      continue;
    }
    char c = rhs[pos++];
    if (!uses.count(c))
      return ctx.fail("output label '" + Twine(c) + "' does not appear in any input");
    out.push_back(labelDim(c));
  }
  ctx.setShape(0, out);
  return success();
}

/// Broadcast of the input with the constant shape operand.
LogicalResult ExpandOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  auto values = ctx.operandDims(1);
  if (!values) {
    auto n = operandLength(ctx, 1);
    if (x && n)
      ctx.setRank(0, std::max<int64_t>(*n, x->size()));
    return success();
  }
  if (!x)
    return success();
  Shape target;
  for (const Dim &v : *values) {
    if (v.isStatic() && v.size < 0)
      return ctx.fail("shape has negative value " + Twine(v.size));
    target.push_back(v);
  }
  Shape out = *x;
  if (target.size() > out.size())
    out.insert(out.begin(), target.size() - out.size(), Dim::known(1));
  size_t offset = out.size() - target.size();
  auto declared = dyn_cast<RankedTensorType>(getOperation()->getResult(0).getType());
  unsigned next = 0;
  for (size_t i = 0; i < target.size(); ++i) {
    // A value known only at run time: the input's dim when that is a
    // static N other than 1 (the value must be 1 or N), the dim the model
    // declares, else a dim the data decides (bounded by --bound).
    if (!target[i].isStatic() && !target[i].isSymbolic()) {
      const Dim &in = out[offset + i];
      if (in.isStatic() && in.size != 1)
        continue;
      if (declared && declared.getRank() == static_cast<int64_t>(out.size()) &&
          !declared.isDynamicDim(offset + i))
        out[offset + i] = Dim::known(declared.getDimSize(offset + i));
      else
        out[offset + i] = ctx.dataDim(next++, Dim::unknown());
      continue;
    }
    auto d = broadcastDim(out[offset + i], target[i]);
    if (failed(d))
      return ctx.fail("input " + shapeText(*x) + " does not broadcast to shape value " +
                      dimText(target[i]) + " in dim " + Twine(offset + i));
    out[offset + i] = *d;
  }
  ctx.setShape(0, out);
  return success();
}

/// [d0 * ... * d(axis-1), d(axis) * ... * d(n-1)].
LogicalResult FlattenOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t rank = x->size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < -rank || axis > rank)
    return ctx.fail("axis " + Twine(axis) + " is out of range [" + Twine(-rank) + ", " +
                    Twine(rank) + "]");
  if (axis < 0)
    axis += rank;
  ArrayRef<Dim> dims(*x);
  ctx.setShape(0, Shape{productOf(dims.take_front(axis)), productOf(dims.drop_front(axis))});
  return success();
}

LogicalResult RNNOp::inferShapes(ShapeContext &ctx) {
  return recurrentShape(ctx, getDirection(), getHiddenSize(),
                        static_cast<int64_t>(getLayout()));
}

LogicalResult GRUOp::inferShapes(ShapeContext &ctx) {
  return recurrentShape(ctx, getDirection(), getHiddenSize(),
                        static_cast<int64_t>(getLayout()));
}

LogicalResult LSTMOp::inferShapes(ShapeContext &ctx) {
  return recurrentShape(ctx, getDirection(), getHiddenSize(),
                        static_cast<int64_t>(getLayout()));
}

/// data[:axis] + indices + data[axis+1:].
LogicalResult GatherOp::inferShapes(ShapeContext &ctx) {
  auto data = ctx.operandShape(0);
  auto indices = ctx.operandShape(1);
  if (!data || !indices)
    return success();
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  auto axis = normalizeAxis(axisAttr, data->size());
  if (!axis)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for data of rank " +
                    Twine(data->size()));
  if (failed(checkIndexValues(ctx, 1, *data, [&](int64_t) { return *axis; })))
    return failure();
  Shape out(data->begin(), data->begin() + *axis);
  out.append(indices->begin(), indices->end());
  out.append(data->begin() + *axis + 1, data->end());
  ctx.setShape(0, out);
  return success();
}

/// The shape of indices, which must have the rank of data.
LogicalResult GatherElementsOp::inferShapes(ShapeContext &ctx) {
  auto data = ctx.operandShape(0);
  auto indices = ctx.operandShape(1);
  if (!indices)
    return success();
  if (data && data->size() != indices->size())
    return ctx.fail("indices " + shapeText(*indices) + " and data " + shapeText(*data) +
                    " must have the same rank");
  if (data) {
    int64_t axisAttr = static_cast<int64_t>(getAxis());
    auto axis = normalizeAxis(axisAttr, data->size());
    if (!axis)
      return ctx.fail("axis " + Twine(axisAttr) + " is out of range for data of rank " +
                      Twine(data->size()));
    if (failed(checkElementsShape(ctx, *data, *indices, *axis)) ||
        failed(checkIndexValues(ctx, 1, *data, [&](int64_t) { return *axis; })))
      return failure();
  }
  ctx.setShape(0, *indices);
  return success();
}

/// The shape of data; updates have the shape of indices, which has the rank
/// of data.
LogicalResult ScatterElementsOp::inferShapes(ShapeContext &ctx) {
  auto data = ctx.operandShape(0);
  auto indices = ctx.operandShape(1);
  auto updates = ctx.operandShape(2);
  if (data)
    ctx.setShape(0, *data);
  if (indices && updates) {
    if (indices->size() != updates->size())
      return ctx.fail("updates " + shapeText(*updates) + " and indices " +
                      shapeText(*indices) + " must have the same shape");
    for (auto [u, i] : llvm::zip(*updates, *indices))
      if (failed(ctx.unify(u, i)))
        return ctx.fail("updates " + shapeText(*updates) + " and indices " +
                        shapeText(*indices) + " must have the same shape");
  }
  if (!data || !indices)
    return success();
  if (data->size() != indices->size())
    return ctx.fail("indices " + shapeText(*indices) + " and data " + shapeText(*data) +
                    " must have the same rank");
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  auto axis = normalizeAxis(axisAttr, data->size());
  if (!axis)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for data of rank " +
                    Twine(data->size()));
  if (failed(checkElementsShape(ctx, *data, *indices, *axis)))
    return failure();
  return checkIndexValues(ctx, 1, *data, [&](int64_t) { return *axis; });
}

/// The shape of data; updates are indices[:-1] + data[k:], k the length of
/// the index tuples.
LogicalResult ScatterNDOp::inferShapes(ShapeContext &ctx) {
  auto data = ctx.operandShape(0);
  auto indices = ctx.operandShape(1);
  auto updates = ctx.operandShape(2);
  if (data)
    ctx.setShape(0, *data);
  if (!data || !indices)
    return success();
  int64_t r = data->size(), q = indices->size();
  if (q < 1 || r < 1)
    return ctx.fail("data and indices must have rank >= 1");
  Dim k = indices->back();
  if (!k.isStatic())
    return success();
  if (k.size > r)
    return ctx.fail("last dim of indices (" + Twine(k.size) + ") must be at most the rank " +
                    Twine(r) + " of data");
  if (updates) {
    Shape expected(indices->begin(), indices->end() - 1);
    expected.append(data->begin() + k.size, data->end());
    bool same = updates->size() == expected.size();
    for (size_t i = 0; same && i < expected.size(); ++i)
      same = succeeded(ctx.unify((*updates)[i], expected[i]));
    if (!same)
      return ctx.fail("updates " + shapeText(*updates) + " must have shape " +
                      shapeText(expected) + " (indices " + shapeText(*indices) +
                      " without its last dim, then data " + shapeText(*data) + " from dim " +
                      Twine(k.size) + ")");
  }
  return checkIndexTuples(ctx, 1, *data, k.size, 0);
}

/// The shape of x; the constant axis must be one of its dims.
static LogicalResult cumulativeShape(ShapeContext &ctx);
LogicalResult CumSumOp::inferShapes(ShapeContext &ctx) { return cumulativeShape(ctx); }
LogicalResult CumProdOp::inferShapes(ShapeContext &ctx) { return cumulativeShape(ctx); }
static LogicalResult cumulativeShape(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  ctx.setShape(0, *x);
  if (auto axis = operandScalar(ctx, 1); axis && !normalizeAxis(*axis, x->size()))
    return ctx.fail("axis " + Twine(*axis) + " is out of range for input of rank " +
                    Twine(x->size()));
  return success();
}

/// indices[:-1] + data[batch_dims + k:], k = indices[-1].
LogicalResult GatherNDOp::inferShapes(ShapeContext &ctx) {
  auto data = ctx.operandShape(0);
  auto indices = ctx.operandShape(1);
  if (!data || !indices)
    return success();
  int64_t b = static_cast<int64_t>(getBatchDims());
  int64_t r = data->size(), q = indices->size();
  if (q < 1 || r < 1)
    return ctx.fail("data and indices must have rank >= 1");
  if (b < 0 || b >= std::min(r, q))
    return ctx.fail("batch_dims " + Twine(b) + " must be less than the ranks of data (" +
                    Twine(r) + ") and indices (" + Twine(q) + ")");
  Dim k = indices->back();
  if (!k.isStatic())
    return success();
  if (k.size < 1 || k.size > r - b)
    return ctx.fail("last dim of indices (" + Twine(k.size) + ") must be in [1, " +
                    Twine(r - b) + "]");
  for (int64_t d = 0; d < b; ++d)
    if (failed(ctx.unify((*data)[d], (*indices)[d])))
      return ctx.fail("batch dim " + Twine(d) + " of indices " + shapeText(*indices) +
                      " differs from data " + shapeText(*data));
  if (failed(checkIndexTuples(ctx, 1, *data, k.size, b)))
    return failure();
  Shape out(indices->begin(), indices->end() - 1);
  out.append(data->begin() + b + k.size, data->end());
  ctx.setShape(0, out);
  return success();
}

/// [M, N] from op(A) [M, K] and op(B) [K, N].
/// Shape of Gemm and FusedGemm: operands A, B, C at 0, 1, 2.
static LogicalResult gemmShape(ShapeContext &ctx, bool ta, bool tb) {
  auto a = ctx.operandShape(0);
  auto b = ctx.operandShape(1);
  if (!a || !b)
    return success();
  if (a->size() != 2 || b->size() != 2)
    return ctx.fail("A " + shapeText(*a) + " and B " + shapeText(*b) + " must have rank 2");
  Dim m = (*a)[ta ? 1 : 0], ka = (*a)[ta ? 0 : 1];
  Dim kb = (*b)[tb ? 1 : 0], n = (*b)[tb ? 0 : 1];
  if (failed(ctx.unify(ka, kb)))
    return ctx.fail("inner dims differ: A " + shapeText(*a) + " gives K = " + dimText(ka) +
                    ", B " + shapeText(*b) + " gives K = " + dimText(kb));
  Shape out{m, n};
  if (auto c = ctx.hasOperand(2) ? ctx.operandShape(2) : std::nullopt) {
    // C broadcasts unidirectionally to [M, N].
    if (c->size() > 2)
      return ctx.fail("C " + shapeText(*c) + " has rank > 2");
    for (size_t i = 0; i < c->size(); ++i) {
      Dim cd = (*c)[i], &od = out[2 - c->size() + i];
      // A symbolic dim of C may be 1 or the result's: the lowering checks
      // which at run time.
      if ((cd.isStatic() && cd.size == 1) || !cd.isStatic())
        continue;
      auto u = ctx.unify(od, cd);
      if (failed(u))
        return ctx.fail("C " + shapeText(*c) + " does not broadcast to [" + dimText(m) +
                        ", " + dimText(n) + "]");
    }
  }
  ctx.setShape(0, out);
  return success();
}

LogicalResult GemmOp::inferShapes(ShapeContext &ctx) {
  return gemmShape(ctx, getTransA() != 0, getTransB() != 0);
}

LogicalResult MatMulOp::inferShapes(ShapeContext &ctx) {
  return matmulShape(ctx, 0, 1, /*derivedBatch=*/true);
}

LogicalResult MatMulIntegerOp::inferShapes(ShapeContext &ctx) {
  return matmulShape(ctx, 0, 1);
}

LogicalResult QLinearMatMulOp::inferShapes(ShapeContext &ctx) {
  return matmulShape(ctx, 0, 3);
}

/// X [N, C, H, W], grid [N, H_out, W_out, 2] gives [N, C, H_out, W_out].
LogicalResult GridSampleOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  auto grid = ctx.operandShape(1);
  if (!x || !grid)
    return success();
  if (x->size() != grid->size() || x->size() < 3)
    return ctx.fail("X " + shapeText(*x) + " and grid " + shapeText(*grid) +
                    " must have the same rank >= 3");
  auto n = ctx.unify((*x)[0], (*grid)[0]);
  if (failed(n))
    return ctx.fail("batch dims of X " + shapeText(*x) + " and grid " + shapeText(*grid) +
                    " differ");
  Shape out{*n, (*x)[1]};
  out.append(grid->begin() + 1, grid->end() - 1);
  ctx.setShape(0, out);
  return success();
}

/// The values the terminator of `region` yields.
static Operation::operand_range yieldedValues(Region &region) {
  return region.front().getTerminator()->getOperands();
}

/// Each result joins what the two branches yield.
/// The shape of `v`, yielded by `region`, as seen outside it: a dim that
/// the data decides inside the region (ShapeContext::dataDim of an op in
/// it) has no value outside, so it is unknown there.
static std::optional<Shape> yieldedShape(ShapeContext &ctx, Region &region, Value v) {
  std::optional<Shape> shape = ctx.getShape(v);
  if (!shape)
    return shape;
  llvm::SmallPtrSet<const void *, 4> inner;
  region.walk([&](Operation *op) {
    if (auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims"))
      for (Attribute a : names)
        inner.insert(a.getAsOpaquePointer());
  });
  if (inner.empty())
    return shape;
  for (Dim &d : *shape)
    if (d.isSymbolic() && llvm::any_of(d.expr.symbols(), [&](StringAttr s) {
          return inner.contains(s.getAsOpaquePointer());
        }))
      d = Dim::unknown();
  return shape;
}

/// The condition `cond` as "dim == value" of a symbolic dim and a constant,
/// through Not and Cast: what PyTorch exports `x.squeeze(d)` as under
/// dynamic shapes (If(Equal(Gather(Shape(x), d), 1)) with Squeeze and
/// Identity branches). `holds` is the condition's value when the equality
/// holds. Nullopt for any other condition.
struct DimPredicate {
  Dim dim;
  int64_t value;
  bool holds;
};
static std::optional<DimPredicate> dimPredicate(ShapeContext &ctx, Value cond) {
  bool holds = true;
  for (int depth = 0; depth < 8; ++depth) {
    Operation *def = cond.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (isa<NotOp>(def)) {
      holds = !holds;
      cond = def->getOperand(0);
      continue;
    }
    if (isa<CastOp, IdentityOp, SqueezeOp, UnsqueezeOp, ReshapeOp>(def)) {
      auto t = dyn_cast<ShapedType>(def->getOperand(0).getType());
      if (!t || !t.getElementType().isInteger(1))
        return std::nullopt;
      cond = def->getOperand(0);
      continue;
    }
    if (!isa<EqualOp>(def))
      return std::nullopt;
    for (unsigned side = 0; side < 2; ++side) {
      auto dims = ctx.getDimValues(def->getOperand(side));
      auto value = ctx.getIntValues(def->getOperand(1 - side));
      if (dims && dims->size() == 1 && (*dims)[0].isSymbolic() && value && value->size() == 1)
        return DimPredicate{(*dims)[0], value->front(), holds};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

/// Each result joins what the two branches yield. The branch a constant
/// condition takes gives its shapes alone. A dim the two branches give
/// different sizes (8 kHz and 16 kHz paths of one audio model) is a dim the
/// run decides (ShapeContext::dataDim), at most the larger of the two (their
/// sum where they are not both static). Branches that give results of
/// different ranks under a condition "dim == value" that the symbolic dims
/// leave open (a squeeze of a dim when it is 1) are compiled for the
/// equality: the branch it takes is kept (onnxcc.assumed_branch and
/// onnxcc.assumed_condition; the lowering warns) and run() checks the
/// equality before the If (status 9).
LogicalResult IfOp::inferShapes(ShapeContext &ctx) {
  if (getThenBranch().empty() || getElseBranch().empty())
    return success();
  auto thenValues = yieldedValues(getThenBranch());
  auto elseValues = yieldedValues(getElseBranch());
  unsigned count = std::min<unsigned>(
      getNumResults(), std::min<size_t>(thenValues.size(), elseValues.size()));
  SmallVector<std::optional<Shape>, 2> thenShapes, elseShapes;
  bool rankDiffers = false;
  for (unsigned i = 0; i < count; ++i) {
    thenShapes.push_back(yieldedShape(ctx, getThenBranch(), thenValues[i]));
    elseShapes.push_back(yieldedShape(ctx, getElseBranch(), elseValues[i]));
    rankDiffers |= thenShapes.back() && elseShapes.back() &&
                   thenShapes.back()->size() != elseShapes.back()->size();
  }
  // A branch known to be taken: a constant condition, or one assumed
  // (below) on an earlier round of inference.
  std::optional<unsigned> taken;
  if (auto cond = operandScalar(ctx, 0)) {
    // A condition the static dims decide (a Cast to bool of a dim), which
    // no constant folding sees: onnx-fold-constants inlines the branch.
    taken = *cond ? 0u : 1u;
    // An assumption an earlier inference made (symbolic dims that --shape
    // fixed since) no longer holds: the condition decides.
    (*this)->removeAttr("onnxcc.assumed_branch");
    (*this)->removeAttr("onnxcc.assumed_condition");
    if (!getCond().getDefiningOp<ConstantOp>())
      (*this)->setAttr("onnxcc.known_branch",
                       IntegerAttr::get(IntegerType::get(getContext(), 64), *taken));
  } else if (auto assumed = (*this)->getAttrOfType<IntegerAttr>("onnxcc.assumed_branch"))
    taken = static_cast<unsigned>(assumed.getInt());
  if (rankDiffers && !(*this)->hasAttr("onnxcc.invalid_branch")) {
    if (auto pred = dimPredicate(ctx, getCond())) {
      if (failed(ctx.unify(pred->dim, Dim::known(pred->value))))
        return failure();
      unsigned branch = pred->holds ? 0u : 1u;
      // The lowering keeps that branch alone and says so (a warning).
      (*this)->setAttr("onnxcc.assumed_branch",
                       IntegerAttr::get(IntegerType::get(getContext(), 64), branch));
      (*this)->setAttr("onnxcc.assumed_condition",
                       StringAttr::get(getContext(), pred->dim.str() + " == " +
                                                         std::to_string(pred->value)));
      taken = branch;
    }
  }
  unsigned dataDims = 0;
  for (unsigned i = 0; i < count; ++i) {
    const std::optional<Shape> &a = thenShapes[i], &b = elseShapes[i];
    if (taken) {
      if (const std::optional<Shape> &s = *taken == 0 ? a : b)
        ctx.setShape(i, *s);
      continue;
    }
    if (!a || !b || a->size() != b->size())
      continue;
    Shape out;
    for (auto [x, y] : llvm::zip(*a, *b)) {
      if (x == y || !x.asExpr() || !y.asExpr()) {
        out.push_back(joinDim(x, y));
        continue;
      }
      Dim bound = x.isStatic() && y.isStatic() ? Dim::known(std::max(x.size, y.size))
                                               : addDims(x, y);
      out.push_back(ctx.dataDim(dataDims++, bound));
    }
    ctx.setShape(i, out);
  }
  return success();
}

/// Whether `v` is a constant true.
static bool isConstantTrue(ShapeContext &ctx, Value v) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(ctx.getConstant(v));
  return dense && dense.getNumElements() == 1 && dense.getElementType().isInteger(1) &&
         dense.getSplatValue<bool>();
}

/// Whether only M ends `loop`: there is no condition input (the body's
/// condition output is then ignored), or a constant true one that the body
/// passes on unchanged or replaces with a constant true.
static bool onlyTripCountMatters(LoopOp loop, ShapeContext &ctx) {
  if (!ctx.hasOperand(1))
    return true;
  if (!isConstantTrue(ctx, loop->getOperand(1)))
    return false;
  Block &body = loop.getBody().front();
  Value v = body.getTerminator()->getOperand(0);
  for (int depth = 0; depth < 16; ++depth) {
    if (v == body.getArgument(1))
      return true;
    auto identity = v.getDefiningOp<IdentityOp>();
    if (!identity)
      break;
    v = identity->getOperand(0);
  }
  return isConstantTrue(ctx, v);
}

/// Loop-carried results join the initial value and what the body yields;
/// scan outputs stack the body's per-iteration values along a new first dim:
/// the trip count, known when M is constant and only M ends the loop, else
/// a dim the run decides (ShapeContext::dataDim), at most M where M is
/// known, else at most the bound the user gives (--bound).
LogicalResult LoopOp::inferShapes(ShapeContext &ctx) {
  if (getBody().empty())
    return success();
  auto yielded = yieldedValues(getBody());
  auto initial = getVInitial();
  size_t carried = initial.size();
  Dim trips = Dim::unknown();
  Dim mDim = Dim::unknown();
  if (auto m = operandScalar(ctx, 0); m && *m >= 0)
    mDim = Dim::known(*m);
  else if (auto dims = ctx.operandDims(0); dims && dims->size() == 1 && (*dims)[0].isSymbolic())
    mDim = (*dims)[0]; // M computed from a symbolic dim (Shape, Gather)
  if (onlyTripCountMatters(*this, ctx))
    trips = mDim;
  if (!trips.asExpr() && getNumResults() > carried)
    trips = ctx.dataDim(0, mDim);
  for (unsigned i = 0, e = getNumResults(); i < e; ++i) {
    if (i + 1 >= yielded.size())
      break;
    auto body = yieldedShape(ctx, getBody(), yielded[i + 1]);
    if (i < carried) {
      if (auto s = joinShapes(ctx.getShape(initial[i]), body))
        ctx.setShape(i, *s);
      continue;
    }
    if (!body)
      continue;
    Shape out{trips};
    out.append(body->begin(), body->end());
    ctx.setShape(i, out);
  }
  return success();
}

/// States join their initial value and the body's; scan outputs insert the
/// sequence length (from the first scan input) at their scan_output_axes.
LogicalResult ScanOp::inferShapes(ShapeContext &ctx) {
  if (getBody().empty())
    return success();
  auto inputs = getInitialStateAndScanInputs();
  int64_t numScan = static_cast<int64_t>(getNumScanInputs());
  int64_t numInputs = inputs.size();
  if (numScan < 0 || numScan > numInputs)
    return success();
  int64_t numStates = numInputs - numScan;
  auto yielded = yieldedValues(getBody());
  Dim seqLen = Dim::unknown();
  if (numScan > 0) {
    if (auto first = ctx.getShape(inputs[numStates])) {
      int64_t axisAttr = 0;
      if (auto axes = getScanInputAxes(); axes && !axes->empty())
        axisAttr = (*axes)[0];
      if (auto axis = normalizeAxis(axisAttr, first->size()))
        seqLen = (*first)[*axis];
    }
  }
  auto outputAxes = getScanOutputAxes();
  for (int64_t i = 0, e = getNumResults(); i < e && i < static_cast<int64_t>(yielded.size());
       ++i) {
    auto body = yieldedShape(ctx, getBody(), yielded[i]);
    if (i < numStates) {
      if (auto s = joinShapes(ctx.getShape(inputs[i]), body))
        ctx.setShape(i, *s);
      continue;
    }
    if (!body)
      continue;
    int64_t j = i - numStates;
    int64_t axisAttr = outputAxes && j < static_cast<int64_t>(outputAxes->size())
                           ? (*outputAxes)[j]
                           : 0;
    auto axis = normalizeAxis(axisAttr, body->size() + 1);
    if (!axis)
      return ctx.fail("scan_output_axes value " + Twine(axisAttr) +
                      " is out of range for output #" + Twine(i));
    Shape out = *body;
    out.insert(out.begin() + *axis, seqLen);
    ctx.setShape(i, out);
  }
  return success();
}

/// [num_rois, C, pooled_h, pooled_w].
LogicalResult MaxRoiPoolOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  auto rois = ctx.operandShape(1);
  if (!x || !rois)
    return success();
  if (x->size() != 4 || rois->size() != 2)
    return ctx.fail("X " + shapeText(*x) + " must have rank 4 and rois " +
                    shapeText(*rois) + " rank 2");
  ArrayRef<int64_t> pooled = getPooledShape();
  if (pooled.size() != 2)
    return ctx.fail("pooled_shape has " + Twine(pooled.size()) + " values, expected 2");
  ctx.setShape(0, Shape{(*rois)[0], (*x)[1], Dim::known(pooled[0]), Dim::known(pooled[1])});
  return success();
}

/// output_shape when constant, else (in - 1) * stride + kernel - pads.
LogicalResult MaxUnpoolOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (ctx.hasOperand(2)) {
    auto s = constantShapeOperand(ctx, 2, "output_shape");
    if (failed(s))
      return failure();
    if (*s)
      ctx.setShape(0, **s);
    else if (x)
      ctx.setRank(0, x->size());
    return success();
  }
  if (!x)
    return success();
  if (x->size() < 3)
    return ctx.fail("input X has shape " + shapeText(*x) + ", expected rank >= 3");
  size_t n = x->size() - 2;
  ArrayRef<int64_t> kernel = getKernelShape();
  auto strides = intsOr(getStrides(), n, 1);
  auto pads = intsOr(getPads(), 2 * n, 0);
  Shape out{(*x)[0], (*x)[1]};
  for (size_t i = 0; i < n; ++i) {
    Dim in = (*x)[i + 2];
    if (!in.isStatic() || kernel.size() != n || !strides || !pads) {
      out.push_back(Dim::unknown());
      continue;
    }
    int64_t size = (in.size - 1) * (*strides)[i] + kernel[i] - (*pads)[i] - (*pads)[i + n];
    if (size < 0)
      return ctx.fail("spatial dim " + Twine(i) + " would have negative size " + Twine(size));
    out.push_back(Dim::known(size));
  }
  ctx.setShape(0, out);
  return success();
}

/// [dft_length / 2 + 1, num_mel_bins]; a dim whose scalar is known at run
/// time only is data-dependent (bounded by --bound).
LogicalResult MelWeightMatrixOp::inferShapes(ShapeContext &ctx) {
  Dim bins = Dim::unknown(), mel = Dim::unknown();
  bool binsKnown = operandScalar(ctx, 1).has_value(), melKnown = operandScalar(ctx, 0).has_value();
  unsigned k = 0;
  if (!binsKnown)
    bins = ctx.dataDim(k++, Dim::unknown());
  if (!melKnown)
    mel = ctx.dataDim(k++, Dim::unknown());
  if (auto n = operandScalar(ctx, 1)) {
    if (*n < 1)
      return ctx.fail("dft_length " + Twine(*n) + " must be positive");
    bins = Dim::known(*n / 2 + 1);
  }
  if (auto m = operandScalar(ctx, 0)) {
    if (*m < 1)
      return ctx.fail("num_mel_bins " + Twine(*m) + " must be positive");
    mel = Dim::known(*m);
  }
  ctx.setShape(0, Shape{bins, mel});
  return success();
}

/// [batch, sample_size].
LogicalResult MultinomialOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() != 2)
    return ctx.fail("input has shape " + shapeText(*x) + ", expected [batch, classes]");
  ctx.setShape(0, Shape{(*x)[0], Dim::known(static_cast<int64_t>(getSampleSize()))});
  return success();
}

/// The target's shape with reduction "none", else a scalar.
LogicalResult NegativeLogLikelihoodLossOp::inferShapes(ShapeContext &ctx) {
  if (getReduction() != "none") {
    ctx.setShape(0, Shape{});
    return success();
  }
  if (auto t = ctx.operandShape(1))
    ctx.setShape(0, *t);
  return success();
}

/// The labels' shape with reduction "none", else a scalar; log_prob has the
/// shape of scores.
LogicalResult SoftmaxCrossEntropyLossOp::inferShapes(ShapeContext &ctx) {
  if (getReduction() != "none")
    ctx.setShape(0, Shape{});
  else if (auto t = ctx.operandShape(1))
    ctx.setShape(0, *t);
  if (auto s = ctx.operandShape(0))
    ctx.setShape(1, *s);
  return success();
}

/// [num_selected, 3]: the count depends on the data.
LogicalResult NonMaxSuppressionOp::inferShapes(ShapeContext &ctx) {
  // At most min(spatial, max_output_boxes_per_class) boxes per batch and
  // class.
  auto boxes = ctx.operandShape(0), scores = ctx.operandShape(1);
  Dim bound = Dim::unknown();
  if (boxes && scores && boxes->size() == 3 && scores->size() == 3) {
    Dim spatial = (*scores)[2];
    if (auto limit = ctx.operandInts(2); limit && limit->size() == 1 && spatial.isStatic())
      spatial = Dim::known(std::clamp<int64_t>((*limit)[0], 0, spatial.size));
    bound = mulDims(mulDims((*scores)[0], (*scores)[1]), spatial);
  }
  ctx.setShape(0, Shape{ctx.dataDim(0, bound), Dim::known(3)});
  return success();
}

/// [rank(X), num_nonzero]: the count depends on the data, at most the
/// number of elements.
LogicalResult NonZeroOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x) {
    ctx.setRank(0, 2);
    return success();
  }
  ctx.setShape(0, Shape{Dim::known(x->size()), ctx.dataDim(0, productOf(*x))});
  return success();
}

/// The indices' shape with depth inserted at axis.
LogicalResult OneHotOp::inferShapes(ShapeContext &ctx) {
  auto indices = ctx.operandShape(0);
  if (!indices)
    return success();
  int64_t rank = indices->size() + 1;
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  auto axis = normalizeAxis(axisAttr, rank);
  if (!axis)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for output rank " +
                    Twine(rank));
  Dim depth = Dim::unknown();
  if (auto values = ctx.getFloatValues(getDepth()); values && values->size() == 1) {
    if (*values->begin() < 1)
      return ctx.fail("depth must be positive");
    depth = Dim::known(static_cast<int64_t>(*values->begin()));
  } else if (auto d = operandScalar(ctx, 1)) {
    if (*d < 1)
      return ctx.fail("depth " + Twine(*d) + " must be positive");
    depth = Dim::known(*d);
  } else if (auto declared = dyn_cast<RankedTensorType>(getOutput().getType());
             !declared || declared.getRank() != rank || declared.isDynamicDim(*axis)) {
    // A depth given at run time where the model leaves the dim open: the
    // data's, bounded by --bound (a declared static dim is checked instead).
    depth = ctx.dataDim(0, Dim::unknown());
  }
  Shape out = *indices;
  out.insert(out.begin() + *axis, depth);
  ctx.setShape(0, out);
  return success();
}

/// The optional's element shape, when its type is ranked.
LogicalResult OptionalGetElementOp::inferShapes(ShapeContext &ctx) {
  Type t = getInput().getType();
  if (auto opt = dyn_cast<OptType>(t))
    t = opt.getElementType();
  if (auto s = isa<TensorType>(t) ? ctx.getShape(getInput()) : std::nullopt)
    ctx.setShape(0, *s);
  else if (auto s = shapeOfType(t))
    ctx.setShape(0, *s);
  return success();
}

/// A boolean scalar.
LogicalResult OptionalHasElementOp::inferShapes(ShapeContext &ctx) {
  ctx.setShape(0, Shape{});
  return success();
}

/// Each dim grows by its begin and end pads (negative pads crop).
LogicalResult PadOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  auto pads = ctx.operandInts(1);
  if (!pads) {
    // Pads known only at run time (CenterCropPad's function body computes
    // them from a target shape given as an input): each dim the declared
    // result leaves open is the data's (in + begin + end), bounded by the
    // user's --bound.
    auto declared = dyn_cast<RankedTensorType>(getOperation()->getResult(0).getType());
    auto count = ctx.operandShape(1);
    if (declared && declared.getRank() == static_cast<int64_t>(x->size()) &&
        !declared.hasStaticShape() && count && count->size() == 1 && (*count)[0].isStatic() &&
        (*count)[0].size == 2 * static_cast<int64_t>(x->size())) {
      Shape out;
      unsigned next = 0;
      for (size_t d = 0; d < x->size(); ++d)
        out.push_back(declared.isDynamicDim(d) ? ctx.dataDim(next++, Dim::unknown())
                                               : Dim::known(declared.getDimSize(d)));
      ctx.setShape(0, out);
      return success();
    }
    ctx.setRank(0, x->size());
    return success();
  }
  size_t rank = x->size();
  if (pads->size() != 2 * rank)
    return ctx.fail("pads has " + Twine(pads->size()) + " values, expected 2 * rank = " +
                    Twine(2 * rank));
  Shape out;
  for (size_t i = 0; i < rank; ++i) {
    int64_t extra = (*pads)[i] + (*pads)[i + rank];
    Dim d = (*x)[i];
    if (extra == 0) {
      out.push_back(d);
      continue;
    }
    // A symbolic dim grows by the pads: `S + 3` holds for every S. A
    // negative pad crops it: `S - 2` with S >= 2 (the elements cropped)
    // checked at run time, as for a Slice [2:].
    if (!d.isStatic()) {
      int64_t cropped = std::max<int64_t>(-(*pads)[i], 0) + std::max<int64_t>(-(*pads)[i + rank], 0);
      Dim size = addDims(d, Dim::known(extra));
      if (cropped > 0 && size.isSymbolic())
        ctx.requireAtLeast(d, cropped);
      out.push_back(size);
      continue;
    }
    if (d.size + extra < 0)
      return ctx.fail("pads make dim " + Twine(i) + " of size " + Twine(d.size) +
                      " negative");
    out.push_back(Dim::known(d.size + extra));
  }
  ctx.setShape(0, out);
  return success();
}

/// max(ceil((limit - start) / delta), 0) elements.
LogicalResult RangeOp::inferShapes(ShapeContext &ctx) {
  auto readScalar = [&](unsigned i) -> std::optional<double> {
    if (auto f = ctx.getFloatValues(ctx.getOp()->getOperand(i)); f && f->size() == 1)
      return f->front();
    if (auto n = operandScalar(ctx, i))
      return static_cast<double>(*n);
    return std::nullopt;
  };
  auto start = readScalar(0), limit = readScalar(1), delta = readScalar(2);
  if (start && delta && *start == 0 && *delta == 1 && !limit) {
    // range(0, n) of a dim n (exporters' positions, arange(seq)): n elements.
    if (auto dims = ctx.operandDims(1); dims && dims->size() == 1 && (*dims)[0].isSymbolic()) {
      ctx.setShape(0, Shape{(*dims)[0]});
      return success();
    }
  }
  if (!start || !limit || !delta) {
    // Known at run time only: at most the bound the user gives (--bound).
    ctx.setShape(0, Shape{ctx.dataDim(0, Dim::unknown())});
    return success();
  }
  if (*delta == 0)
    return ctx.fail("delta must not be zero");
  double n = std::ceil((*limit - *start) / *delta);
  if (!std::isfinite(n) || n > static_cast<double>(std::numeric_limits<int32_t>::max()))
    return ctx.fail("range has too many elements");
  ctx.setShape(0, Shape{Dim::known(n > 0 ? static_cast<int64_t>(n) : 0)});
  return success();
}

/// The shape attribute.
static LogicalResult shapeFromAttr(ShapeContext &ctx, ArrayRef<int64_t> shape) {
  Shape out;
  for (int64_t d : shape) {
    if (d < 0)
      return ctx.fail("shape has negative value " + Twine(d));
    out.push_back(Dim::known(d));
  }
  ctx.setShape(0, out);
  return success();
}

LogicalResult RandomNormalOp::inferShapes(ShapeContext &ctx) {
  return shapeFromAttr(ctx, getShape());
}

LogicalResult RandomUniformOp::inferShapes(ShapeContext &ctx) {
  return shapeFromAttr(ctx, getShape());
}

/// A constant shape: 0 copies the input dim (unless allowzero), -1 takes the
/// remaining elements. Symbolic dims on both sides cancel, so [batch, 6] to
/// [0, 2, -1] gives [batch, 2, 3].
LogicalResult ReshapeOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  auto values = ctx.operandDims(1);
  if (!values) {
    if (auto n = operandLength(ctx, 1))
      ctx.setRank(0, *n);
    return success();
  }
  bool allowZero = getAllowzero() != 0;
  Shape out;
  std::optional<size_t> inferred;
  bool hasZero = false;
  auto declared = dyn_cast<RankedTensorType>(getOperation()->getResult(0).getType());
  bool declaredRank = declared && declared.getRank() == static_cast<int64_t>(values->size());
  unsigned next = 0;
  for (auto [i, v] : llvm::enumerate(*values)) {
    if (!v.isStatic() && !v.isSymbolic()) {
      // A value known only at run time (0, -1 or a size): the dim the model
      // declares, else one the data decides (bounded by --bound).
      if (declaredRank && !declared.isDynamicDim(i))
        out.push_back(Dim::known(declared.getDimSize(i)));
      else
        out.push_back(ctx.dataDim(next++, Dim::unknown()));
      continue;
    }
    if (!v.isStatic()) {
      out.push_back(v); // symbolic (a size computed from a shape)
      continue;
    }
    if (v.size == -1) {
      if (inferred)
        return ctx.fail("shape has more than one -1");
      inferred = i;
      out.push_back(Dim::unknown());
      continue;
    }
    if (v.size < -1)
      return ctx.fail("shape has invalid value " + Twine(v.size));
    if (v.size == 0 && !allowZero) {
      if (!x)
        out.push_back(Dim::unknown());
      else if (i < x->size())
        out.push_back((*x)[i]);
      else
        return ctx.fail("shape value 0 at index " + Twine(i) +
                        " copies a dim the input of rank " + Twine(x->size()) +
                        " does not have");
      continue;
    }
    hasZero |= v.size == 0;
    out.push_back(Dim::known(v.size));
  }
  if (allowZero && inferred && hasZero)
    return ctx.fail("shape has both 0 and -1 with allowzero set");
  if (!x) {
    ctx.setShape(0, out);
    return success();
  }
  Dim inCount = productOf(*x);
  Dim restCount = Dim::known(1);
  for (auto [i, d] : llvm::enumerate(out))
    if (!inferred || i != *inferred)
      restCount = mulDim(restCount, d);
  if (inferred) {
    if (inCount.isStatic() && restCount.isStatic()) {
      if (restCount.size == 0 || inCount.size % restCount.size != 0)
        return ctx.fail("cannot reshape input " + shapeText(*x) + " to " +
                        shapeText(out) + ": " + Twine(inCount.size) +
                        " elements do not divide into " + Twine(restCount.size));
      out[*inferred] = Dim::known(inCount.size / restCount.size);
    } else if (!(restCount.isStatic() && restCount.size == 0)) {
      // Exact, or a derived dim that run() checks divides (S0*S1*3 / 2).
      out[*inferred] = ctx.quotientDim(inCount, restCount);
    }
  } else if (inCount.isStatic() && restCount.isStatic() && inCount.size != restCount.size) {
    return ctx.fail("cannot reshape input " + shapeText(*x) + " (" + Twine(inCount.size) +
                    " elements) to " + shapeText(out) + " (" + Twine(restCount.size) +
                    " elements)");
  } else if (inCount.asExpr() && restCount.asExpr()) {
    // Symbolic counts (a symbolic input to a constant shape) must agree at
    // run time.
    (void)ctx.unify(inCount, restCount);
  }
  ctx.setShape(0, out);
  return success();
}

/// From constant sizes, or floor(dim * scale) for constant scales
/// (round(dim * scale) for onnxcc.rounded_size).
LogicalResult ResizeOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  size_t rank = x->size();
  if (ctx.hasOperand(3) && operandLength(ctx, 3) != std::optional<int64_t>(0)) {
    auto sizes = constantShapeOperand(ctx, 3, "sizes");
    if (failed(sizes))
      return failure();
    if (!*sizes) {
      ctx.setRank(0, rank);
      return success();
    }
    if ((*sizes)->size() != rank)
      return ctx.fail("sizes has " + Twine((*sizes)->size()) + " values for input of rank " +
                      Twine(rank));
    // A size given at run time where the model leaves the dim open: the
    // data's, bounded by --bound (a declared static dim is checked instead).
    auto declared = dyn_cast<RankedTensorType>(getY().getType());
    unsigned next = 0;
    for (auto [d, dim] : llvm::enumerate(**sizes)) {
      if (dim.isStatic() || dim.isSymbolic())
        continue;
      if (!declared || declared.getRank() != static_cast<int64_t>(rank) ||
          declared.isDynamicDim(d))
        dim = ctx.dataDim(next++, Dim::unknown());
    }
    ctx.setShape(0, **sizes);
    return success();
  }
  if (!ctx.hasOperand(2)) {
    ctx.setRank(0, rank);
    return success();
  }
  auto scales = ctx.getFloatValues(getScales());
  if (!scales) {
    ctx.setRank(0, rank);
    return success();
  }
  if (scales->size() != rank)
    return ctx.fail("scales has " + Twine(scales->size()) + " values for input of rank " +
                    Twine(rank));
  // Resize-18's keep_aspect_ratio_policy (scales made at import,
  // onnxcc.rounded_size): round(scale * in) rather than floor.
  bool rounded = (*this)->hasAttr("onnxcc.rounded_size");
  Shape out;
  for (size_t i = 0; i < rank; ++i) {
    double s = (*scales)[i];
    if (!(s > 0))
      return ctx.fail("scale for dim " + Twine(i) + " must be positive");
    Dim d = (*x)[i];
    if (s == 1.0)
      out.push_back(d);
    else if (d.isStatic()) {
      double size = rounded ? std::round(static_cast<double>(d.size) * s)
                            : std::floor(static_cast<double>(d.size) * s);
      // Sizes stay far from int64's limits (the importer caps tensors at
      // 2^59 elements).
      if (!(size < 0x1p59))
        return ctx.fail("the scale of dim " + Twine(i) + " (size " + Twine(d.size) +
                        ") makes it larger than 2^59");
      out.push_back(Dim::known(static_cast<int64_t>(size)));
    } else if (s == std::floor(s) && s <= 0x1p20) {
      // An integer scale of a symbolic dim: k*H exactly.
      out.push_back(mulDims(d, Dim::known(static_cast<int64_t>(s))));
    } else if (d.isSymbolic()) {
      // floor(H * 1.5): a derived dim that run() computes.
      DerivedDim def;
      def.scaled = true;
      def.scale = s;
      def.in = d.expr;
      out.push_back(ctx.derivedDim(def));
    } else {
      out.push_back(Dim::unknown());
    }
  }
  ctx.setShape(0, out);
  return success();
}

/// [num_rois, C, output_height, output_width].
LogicalResult RoiAlignOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  auto rois = ctx.operandShape(1);
  if (!x || !rois)
    return success();
  if (x->size() != 4 || rois->size() != 2)
    return ctx.fail("X " + shapeText(*x) + " must have rank 4 and rois " +
                    shapeText(*rois) + " rank 2");
  ctx.setShape(0, Shape{(*rois)[0], (*x)[1],
                        Dim::known(static_cast<int64_t>(getOutputHeight())),
                        Dim::known(static_cast<int64_t>(getOutputWidth()))});
  return success();
}

/// signal [batch, length, 1 or 2] gives [batch, frames, bins, 2] with
/// frames = (length - frame_length) / frame_step + 1 and bins =
/// frame_length / 2 + 1 when onesided.
LogicalResult STFTOp::inferShapes(ShapeContext &ctx) {
  auto signal = ctx.operandShape(0);
  if (!signal)
    return success();
  if (signal->size() != 3)
    return ctx.fail("signal has shape " + shapeText(*signal) +
                    ", expected [batch, length, 1 or 2]");
  std::optional<int64_t> frameLength;
  if (ctx.hasOperand(3))
    frameLength = operandScalar(ctx, 3);
  else if (auto w = ctx.hasOperand(2) ? ctx.operandShape(2) : std::nullopt;
           w && w->size() == 1 && (*w)[0].isStatic())
    frameLength = (*w)[0].size;
  auto step = operandScalar(ctx, 1);
  if (step && *step < 1)
    return ctx.fail("frame_step " + Twine(*step) + " must be positive");
  if (frameLength && *frameLength < 1)
    return ctx.fail("frame_length " + Twine(*frameLength) + " must be positive");
  Dim frames = Dim::unknown(), bins = Dim::unknown();
  Dim length = (*signal)[1];
  if (frameLength && length.isStatic() && length.size < *frameLength)
    return ctx.fail("signal length " + Twine(length.size) + " is shorter than frame_length " +
                    Twine(*frameLength));
  if (frameLength && step && length.isStatic())
    frames = Dim::known((length.size - *frameLength) / *step + 1);
  if (frameLength)
    bins = Dim::known(getOnesided() != 0 ? *frameLength / 2 + 1 : *frameLength);
  // Sizes known at run time only: data-dependent dims, bounded by the
  // signal length (a frame fits in the signal).
  unsigned k = 0;
  if (!frames.isStatic() && length.isStatic())
    frames = ctx.dataDim(k++, Dim::known(length.size - (frameLength ? *frameLength : 1) + 1));
  if (!bins.isStatic() && length.isStatic())
    bins = ctx.dataDim(k++, Dim::known(getOnesided() != 0 ? length.size / 2 + 1 : length.size));
  ctx.setShape(0, Shape{(*signal)[0], frames, bins, Dim::known(2)});
  return success();
}

/// The element shape the sequence type declares.
LogicalResult SequenceAtOp::inferShapes(ShapeContext &ctx) {
  if (auto seq = dyn_cast<SeqType>(getInputSequence().getType()))
    if (auto s = shapeOfType(seq.getElementType()))
      ctx.setShape(0, *s);
  return success();
}

/// An int64 scalar.
LogicalResult SequenceLengthOp::inferShapes(ShapeContext &ctx) {
  ctx.setShape(0, Shape{});
  return success();
}

/// [end - start] with start/end clamped to [0, rank].
LogicalResult ShapeOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x) {
    ctx.setRank(0, 1);
    return success();
  }
  int64_t rank = x->size();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(static_cast<int64_t>(getStart()));
  int64_t end = getEnd() ? clampIndex(static_cast<int64_t>(*getEnd())) : rank;
  ctx.setShape(0, Shape{Dim::known(std::max<int64_t>(end - start, 0))});
  return success();
}

/// An int64 scalar.
LogicalResult SizeOp::inferShapes(ShapeContext &ctx) {
  ctx.setShape(0, Shape{});
  return success();
}

/// Constant starts/ends/axes/steps, clamped as numpy does; a full-range slice
/// keeps a symbolic dim.
/// The length of a Slice of symbolic dim `d` from `start` to `end` by
/// `step` (ONNX clamps both bounds into the dim) as a polynomial of the
/// symbols, where it is one once `d` is large enough that no bound clamps:
/// that bound is recorded (requireAtLeast) and checked at run time. Each
/// bound is a position from the start (k >= 0) or from the end (d + k,
/// k < 0); the length is their distance, divided by the step when it is a
/// constant. x[1:] has d - 1 elements for d >= 1, x[-3:] and x[2:5] 3 for
/// d >= 3 and d >= 5, x[1:-1] d - 2, x[::-1] d, x[-1:-4:-1] 3, x[1:7:2] 3
/// for d >= 7. Where the polynomial would need d of 2 or more (x[2:5],
/// x[:512], which a shorter input makes shorter) or the length depends on d
/// in another way (a start from the end with an end from the start, x[::2]),
/// the length is a derived dim (DerivedDim::slice) that run() computes from
/// d with ONNX's clamping, right for every d.
Dim symbolicSliceDim(ShapeContext &ctx, const Dim &d, int64_t start, int64_t end,
                     int64_t step) {
  // Bounds this far out clamp to the ends of any dim.
  constexpr int64_t far = std::numeric_limits<int32_t>::max();
  if (step == 0 || !d.isSymbolic())
    return Dim::unknown();
  step = std::clamp<int64_t>(step, -far, far);
  auto derived = [&] {
    DerivedDim def;
    def.slice = true;
    def.in = d.expr;
    def.sliceStart = std::clamp<int64_t>(start, -far, far);
    def.sliceEnd = std::clamp<int64_t>(end, -far, far);
    def.sliceStep = step;
    return ctx.derivedDim(def);
  };
  // A position: `fromEnd` counts from d. `least` is the smallest d for
  // which it does not clamp.
  struct Pos {
    bool fromEnd;
    int64_t k;
  };
  int64_t least = 0;
  Pos s, e;
  if (step > 0) {
    // start and end clamp into [0, d].
    s = start <= -far ? Pos{false, 0} : start >= far ? Pos{true, 0} : Pos{start < 0, start};
    e = end >= far ? Pos{true, 0} : end <= -far ? Pos{false, 0} : Pos{end < 0, end};
    for (Pos p : {s, e})
      least = std::max(least, p.fromEnd ? -p.k : p.k);
  } else {
    // start clamps into [0, d - 1], end into [-1, d - 1] (-1: before the
    // first element).
    s = start >= far ? Pos{true, -1} : start <= -far ? Pos{false, 0} : Pos{start < 0, start};
    e = end <= -far ? Pos{false, -1} : end >= far ? Pos{true, -1} : Pos{end < 0, end};
    least = std::max(least, s.fromEnd ? -s.k : s.k + 1);
    if (!(e.fromEnd == false && e.k == -1))
      least = std::max(least, e.fromEnd ? -e.k - 1 : e.k + 1);
  }
  // The distance covered, from the first position to the last.
  Pos from = step > 0 ? s : e, to = step > 0 ? e : s;
  int64_t stride = step > 0 ? step : -step;
  if (from.fromEnd == to.fromEnd) {
    int64_t span = to.k - from.k;
    if (span <= 0)
      return Dim::known(0); // x[5:2], x[-2:-5]: empty for every d
    if (least > 1)
      return derived();
    ctx.requireAtLeast(d, least);
    return Dim::known((span + stride - 1) / stride);
  }
  if (from.fromEnd || stride != 1)
    return derived(); // x[-3:5]: 5 - (d - 3) depends on d both ways
  // From k to d + k': d + k' - k elements once d >= k - k'.
  least = std::max(least, from.k - to.k);
  if (least > 1)
    return derived();
  ctx.requireAtLeast(d, least);
  return subDims(d, Dim::known(from.k - to.k));
}

LogicalResult SliceOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t rank = x->size();
  auto starts = ctx.operandInts(1);
  auto ends = ctx.operandInts(2);
  std::optional<SmallVector<int64_t>> axes;
  if (ctx.hasOperand(3)) {
    axes = ctx.operandInts(3);
    if (!axes) {
      ctx.setRank(0, rank);
      return success();
    }
  } else if (starts) {
    axes.emplace();
    for (int64_t i = 0, e = starts->size(); i < e; ++i)
      axes->push_back(i);
  } else if (auto s = ctx.operandShape(1); s && s->size() == 1 && (*s)[0].isStatic() &&
                                            (*s)[0].size <= rank) {
    // Starts given at run time: the first as many axes as it has values.
    axes.emplace();
    for (int64_t i = 0; i < (*s)[0].size; ++i)
      axes->push_back(i);
  }
  std::optional<SmallVector<int64_t>> steps;
  if (ctx.hasOperand(4))
    steps = ctx.operandInts(4);
  else if (starts)
    steps = SmallVector<int64_t>(starts->size(), 1);
  Shape out = *x;
  if (axes) {
    llvm::SmallBitVector seen(rank);
    for (int64_t a : *axes) {
      auto axis = normalizeAxis(a, rank);
      if (!axis)
        return ctx.fail("axis " + Twine(a) + " is out of range for input of rank " +
                        Twine(rank));
      if (seen.test(*axis))
        return ctx.fail("axis " + Twine(a) + " appears more than once");
      seen.set(*axis);
    }
  }
  if (!starts || !ends || !axes || !steps) {
    // Only the sliced dims are unknown when the axes are. With the steps
    // known, starts and ends given at run time make each sliced dim one the
    // run decides, at most the input's, unless the model declares a static
    // size there (run() checks it).
    auto declared = dyn_cast<RankedTensorType>(getOutput().getType());
    bool ranked = declared && declared.getRank() == rank;
    bool stepsKnown = !ctx.hasOperand(4) ||
                      (steps && llvm::none_of(*steps, [](int64_t s) { return s == 0; }));
    if (axes)
      for (int64_t a : *axes) {
        int64_t axis = *normalizeAxis(a, rank);
        bool declaredStatic = ranked && !declared.isDynamicDim(axis);
        out[axis] = stepsKnown && !declaredStatic ? ctx.dataDim(axis, (*x)[axis])
                                                  : Dim::unknown();
      }
    else
      out = Shape(rank, Dim::unknown());
    ctx.setShape(0, out);
    return success();
  }
  size_t n = starts->size();
  if (ends->size() != n || axes->size() != n || steps->size() != n)
    return ctx.fail("starts, ends, axes and steps have different lengths");
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = *normalizeAxis((*axes)[i], rank);
    int64_t start = (*starts)[i], end = (*ends)[i], step = (*steps)[i];
    if (step == 0)
      return ctx.fail("steps must not be zero");
    Dim d = (*x)[axis];
    if (!d.isStatic()) {
      out[axis] = symbolicSliceDim(ctx, d, start, end, step);
      continue;
    }
    out[axis] = Dim::known(normalizeSliceAxis(start, end, step, d.size).count);
  }
  ctx.setShape(0, out);
  return success();
}

/// Constant split sizes, or equal parts, one per result.
LogicalResult SplitOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  auto axis = normalizeAxis(axisAttr, x->size());
  if (!axis)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for input of rank " +
                    Twine(x->size()));
  unsigned numResults = getNumResults();
  Dim d = (*x)[*axis];
  SmallVector<Dim> parts;
  if (ctx.hasOperand(1)) {
    auto split = ctx.operandInts(1);
    if (!split) {
      parts.assign(numResults, Dim::unknown());
    } else {
      if (split->size() != numResults)
        return ctx.fail("split has " + Twine(split->size()) + " values but the op has " +
                        Twine(numResults) + " results");
      int64_t total = 0;
      for (int64_t s : *split) {
        if (s < 0)
          return ctx.fail("split has negative value " + Twine(s));
        total += s;
        parts.push_back(Dim::known(s));
      }
      if (d.isStatic() && total != d.size)
        return ctx.fail("split sizes sum to " + Twine(total) + " but dim " + Twine(*axis) +
                        " has size " + Twine(d.size));
      // A symbolic dim split into constant parts must be their sum.
      (void)ctx.unify(d, Dim::known(total));
    }
  } else {
    if (numResults == 0)
      return success();
    if (d.isStatic() && d.size % numResults != 0)
      return ctx.fail("dim " + Twine(*axis) + " of size " + Twine(d.size) +
                      " does not split into " + Twine(numResults) + " equal parts");
    parts.assign(numResults, ctx.quotientDim(d, Dim::known(numResults)));
  }
  for (unsigned i = 0; i < numResults; ++i) {
    Shape out = *x;
    out[*axis] = parts[i];
    ctx.setShape(i, out);
  }
  return success();
}

/// Removes the listed axes (each of size 1), or every static 1 when axes is
/// absent.
LogicalResult SqueezeOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t rank = x->size();
  llvm::SmallBitVector drop(rank);
  if (!ctx.hasOperand(1)) {
    // A symbolic dim might be 1: the rank is not known (--shape fixes it).
    // A dim the data decides is kept, and run() checks it is not 1 (status
    // 9): no option can fix it, and graphs that squeeze every 1 away
    // (AffineGrid's function body) are invalid when it is 1 anyway.
    for (int64_t i = 0; i < rank; ++i) {
      const Dim &d = (*x)[i];
      if (!d.isStatic() && !ctx.getMap().dependsOnData(d))
        return success();
      drop[i] = d.isStatic() && d.size == 1;
    }
    for (int64_t i = 0; i < rank; ++i)
      if (!(*x)[i].isStatic())
        ctx.requireDiffers((*x)[i], 1);
  } else {
    auto axes = ctx.operandInts(1);
    if (!axes) {
      if (auto n = operandLength(ctx, 1); n && *n <= rank)
        ctx.setRank(0, rank - *n);
      return success();
    }
    for (int64_t a : *axes) {
      auto axis = normalizeAxis(a, rank);
      if (!axis)
        return ctx.fail("axis " + Twine(a) + " is out of range for input of rank " +
                        Twine(rank));
      if (drop.test(*axis))
        return ctx.fail("axis " + Twine(a) + " appears more than once");
      if ((*x)[*axis].isStatic() && (*x)[*axis].size != 1)
        return ctx.fail("cannot squeeze dim " + Twine(*axis) + " of size " +
                        Twine((*x)[*axis].size));
      // A symbolic dim squeezed away must be 1 at run time.
      (void)ctx.unify((*x)[*axis], Dim::known(1));
      drop.set(*axis);
    }
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop.test(i))
      out.push_back((*x)[i]);
  ctx.setShape(0, out);
  return success();
}

/// Inserts 1s at the axes, numbered in the output's rank.
LogicalResult UnsqueezeOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  auto axes = ctx.operandInts(1);
  if (!axes) {
    if (auto n = operandLength(ctx, 1))
      ctx.setRank(0, x->size() + *n);
    return success();
  }
  int64_t rank = x->size() + axes->size();
  llvm::SmallBitVector inserted(rank);
  for (int64_t a : *axes) {
    auto axis = normalizeAxis(a, rank);
    if (!axis)
      return ctx.fail("axis " + Twine(a) + " is out of range for output rank " + Twine(rank));
    if (inserted.test(*axis))
      return ctx.fail("axis " + Twine(a) + " appears more than once");
    inserted.set(*axis);
  }
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(inserted.test(i) ? Dim::known(1) : (*x)[next++]);
  ctx.setShape(0, out);
  return success();
}

/// [C] or [1, C]: the number of words left depends on the data.
LogicalResult StringNormalizerOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() == 1) {
    ctx.setShape(0, Shape{Dim::unknown()});
    return success();
  }
  if (x->size() == 2) {
    ctx.setShape(0, Shape{(*x)[0], Dim::unknown()});
    return success();
  }
  return ctx.fail("input has shape " + shapeText(*x) + ", expected [C] or [1, C]");
}

/// [C] gives [max(ngram_indexes) + 1]; [N, C] gives [N, that].
LogicalResult TfIdfVectorizerOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  ArrayRef<int64_t> indexes = getNgramIndexes();
  Dim width = Dim::unknown();
  if (!indexes.empty())
    width = Dim::known(*llvm::max_element(indexes) + 1);
  if (x->size() == 1) {
    ctx.setShape(0, Shape{width});
    return success();
  }
  if (x->size() == 2) {
    ctx.setShape(0, Shape{(*x)[0], width});
    return success();
  }
  return ctx.fail("input has shape " + shapeText(*x) + ", expected rank 1 or 2");
}

/// Each dim times its constant repeat.
LogicalResult TileOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  auto repeats = ctx.operandInts(1);
  if (!repeats) {
    // Repeats known only at run time: each dim the declared result leaves
    // open is the data's (in * repeats), bounded by the user's --bound; an
    // empty input dim stays 0.
    auto declared = dyn_cast<RankedTensorType>(getOperation()->getResult(0).getType());
    auto count = ctx.operandShape(1);
    if (declared && declared.getRank() == static_cast<int64_t>(x->size()) &&
        !declared.hasStaticShape() && count && count->size() == 1 && (*count)[0].isStatic() &&
        (*count)[0].size == static_cast<int64_t>(x->size())) {
      Shape out;
      unsigned next = 0;
      for (size_t d = 0; d < x->size(); ++d) {
        if (!declared.isDynamicDim(d))
          out.push_back(Dim::known(declared.getDimSize(d)));
        else if ((*x)[d] == Dim::known(0))
          out.push_back(Dim::known(0));
        else
          out.push_back(ctx.dataDim(next++, Dim::unknown()));
      }
      ctx.setShape(0, out);
      return success();
    }
    ctx.setRank(0, x->size());
    return success();
  }
  if (repeats->size() != x->size())
    return ctx.fail("repeats has " + Twine(repeats->size()) +
                    " values for input of rank " + Twine(x->size()));
  Shape out;
  for (auto [d, r] : llvm::zip(*x, *repeats)) {
    if (r < 0)
      return ctx.fail("repeats has negative value " + Twine(r));
    out.push_back(mulDim(d, Dim::known(r)));
  }
  ctx.setShape(0, out);
  return success();
}

/// Values and Indices: the input with dim `axis` replaced by K.
LogicalResult TopKOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t axisAttr = static_cast<int64_t>(getAxis());
  auto axis = normalizeAxis(axisAttr, x->size());
  if (!axis)
    return ctx.fail("axis " + Twine(axisAttr) + " is out of range for input of rank " +
                    Twine(x->size()));
  Shape out = *x;
  out[*axis] = Dim::unknown();
  // K given at run time: the run decides the dim, at most the axis's,
  // unless the model declares a static size there (run() checks it).
  auto declared = dyn_cast<RankedTensorType>(getValues().getType());
  bool declaredStatic = declared && declared.getRank() == static_cast<int64_t>(x->size()) &&
                        !declared.isDynamicDim(*axis);
  if (!operandScalar(ctx, 1) && !declaredStatic)
    out[*axis] = ctx.dataDim(0, (*x)[*axis]);
  if (auto k = operandScalar(ctx, 1)) {
    if (*k < 0)
      return ctx.fail("K " + Twine(*k) + " is negative");
    Dim d = (*x)[*axis];
    if (d.isStatic() && *k > d.size)
      return ctx.fail("K " + Twine(*k) + " is larger than dim " + Twine(*axis) +
                      " of size " + Twine(d.size));
    ctx.requireAtLeast(d, *k);
    out[*axis] = Dim::known(*k);
  }
  ctx.setShape(0, out);
  ctx.setShape(1, out);
  return success();
}

/// The dims in perm order; reversed when perm is absent.
LogicalResult TransposeOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  size_t rank = x->size();
  Shape out;
  if (auto perm = getPerm()) {
    if (perm->size() != rank)
      return ctx.fail("perm has " + Twine(perm->size()) + " values for input of rank " +
                      Twine(rank));
    for (int64_t p : *perm) {
      if (p < 0 || p >= static_cast<int64_t>(rank))
        return ctx.fail("perm value " + Twine(p) + " is out of range");
      out.push_back((*x)[p]);
    }
  } else {
    out.assign(x->rbegin(), x->rend());
  }
  ctx.setShape(0, out);
  return success();
}

/// Y: 1-D (no axis) or the input with dim `axis` data dependent; indices and
/// counts have the number of unique values; inverse_indices one entry per
/// input element (or per slice along axis).
LogicalResult UniqueOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  Dim inverse = Dim::unknown();
  // The number of distinct values (slices): at most all of them.
  Dim distinct = Dim::unknown();
  if (!getAxis()) {
    if (x)
      inverse = productOf(*x);
    distinct = ctx.dataDim(0, inverse);
    ctx.setShape(0, Shape{distinct});
  } else if (x) {
    int64_t axisAttr = static_cast<int64_t>(*getAxis());
    auto axis = normalizeAxis(axisAttr, x->size());
    if (!axis)
      return ctx.fail("axis " + Twine(axisAttr) + " is out of range for input of rank " +
                      Twine(x->size()));
    inverse = (*x)[*axis];
    distinct = ctx.dataDim(0, inverse);
    Shape out = *x;
    out[*axis] = distinct;
    ctx.setShape(0, out);
  }
  ctx.setShape(1, Shape{distinct});
  ctx.setShape(2, Shape{inverse});
  ctx.setShape(3, Shape{distinct});
  return success();
}

//===----------------------------------------------------------------------===//
// Ops of the graph passes (not ONNX operators)
//===----------------------------------------------------------------------===//

/// The residual operand `zIdx` of a fused op, when present, has the shape of
/// its result (fusion never changes a result's shape).
static LogicalResult residualMatches(ShapeContext &ctx, unsigned zIdx) {
  if (!ctx.hasOperand(zIdx))
    return success();
  auto z = ctx.operandShape(zIdx);
  auto y = ctx.resultShape(0);
  if (!z || !y)
    return success();
  if (z->size() != y->size())
    return ctx.fail("residual Z " + shapeText(*z) + " does not have the result's shape " +
                    shapeText(*y));
  for (auto [zd, yd] : llvm::zip(*z, *y))
    if (zd.isStatic() && yd.isStatic() && zd.size != yd.size)
      return ctx.fail("residual Z " + shapeText(*z) + " does not have the result's shape " +
                      shapeText(*y));
  return success();
}

LogicalResult FusedConvOp::inferShapes(ShapeContext &ctx) {
  Window w = convWindow(*this);
  if (failed(convShape(ctx, 0, 1, w, static_cast<int64_t>(getGroup()))))
    return failure();
  return residualMatches(ctx, 3);
}

LogicalResult FusedConvNHWCOp::inferShapes(ShapeContext &ctx) {
  Window w = convWindow(*this);
  if (failed(convShape(ctx, 0, 1, w, static_cast<int64_t>(getGroup()), /*channelsLast=*/true)))
    return failure();
  return residualMatches(ctx, 3);
}

LogicalResult FusedGemmOp::inferShapes(ShapeContext &ctx) {
  if (failed(gemmShape(ctx, getTransA() != 0, getTransB() != 0)))
    return failure();
  return residualMatches(ctx, 3);
}

LogicalResult FusedMatMulOp::inferShapes(ShapeContext &ctx) {
  if (failed(matmulShape(ctx, 0, 1, /*derivedBatch=*/true)))
    return failure();
  return residualMatches(ctx, 3);
}

LogicalResult GeluOp::inferShapes(ShapeContext &ctx) {
  StringRef a = getApproximate();
  if (a != "none" && a != "tanh")
    return ctx.fail("approximate is '" + a + "', expected 'none' or 'tanh'");
  return sameAsFirstOperand(ctx);
}

LogicalResult SiLUOp::inferShapes(ShapeContext &ctx) { return sameAsFirstOperand(ctx); }
LogicalResult RaggedSequenceOp::inferShapes(ShapeContext &) { return success(); }
LogicalResult RaggedRowsOp::inferShapes(ShapeContext &ctx) {
  Shape rows{Dim::known(getCapacity())};
  for (int64_t d : getMaxDims())
    rows.push_back(Dim::known(d));
  ctx.setShape(0, rows);
  ctx.setShape(1, Shape{Dim::known(getCapacity()),
                        Dim::known(static_cast<int64_t>(getMaxDims().size()))});
  ctx.setShape(2, Shape{});
  return success();
}
LogicalResult CheckedIndexOp::inferShapes(ShapeContext &ctx) {
  ctx.setShape(0, Shape{});
  return success();
}

LogicalResult ScaledDotProductAttentionOp::inferShapes(ShapeContext &ctx) {
  auto q = ctx.operandShape(0), k = ctx.operandShape(1), v = ctx.operandShape(2);
  if (!q || !k || !v)
    return success();
  if (q->size() < 2 || k->size() != q->size() || v->size() != q->size())
    return ctx.fail("Q " + shapeText(*q) + ", K " + shapeText(*k) + " and V " +
                    shapeText(*v) + " must have one rank >= 2");
  Dim d = q->back(), dk = k->back();
  if (failed(ctx.unify(d, dk)))
    return ctx.fail("Q " + shapeText(*q) + " and K " + shapeText(*k) +
                    " differ in their last dim");
  Dim sk = (*k)[k->size() - 2], sv = (*v)[v->size() - 2];
  if (failed(ctx.unify(sk, sv)))
    return ctx.fail("K " + shapeText(*k) + " and V " + shapeText(*v) +
                    " differ in their sequence dim");
  Shape out(q->begin(), q->end());
  out.back() = v->back();
  ctx.setShape(0, out);
  return success();
}

//===----------------------------------------------------------------------===//
// CenterCropPad with a run-time shape, TensorScatter, StringSplit,
// RegexFullMatch (opsets 18-24; lowered in Strings.cpp and Misc.cpp).
//===----------------------------------------------------------------------===//

/// The input's shape with each dim of `axes` the matching value of `shape`
/// (crop or pad to it): unknown where `shape` is known only at run time
/// (the model's declared dims fill those in).
LogicalResult CenterCropPadOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t rank = x->size();
  SmallVector<int64_t> axes;
  if (auto given = getAxes()) {
    axes.assign(given->begin(), given->end());
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (auto s = ctx.operandShape(1); s && s->size() == 1 && (*s)[0].isStatic() &&
                                     (*s)[0].size != static_cast<int64_t>(axes.size()))
    return ctx.fail("shape has " + Twine((*s)[0].size) + " values for " + Twine(axes.size()) +
                    " axes");
  auto sizes = ctx.operandInts(1);
  Shape out = *x;
  llvm::SmallBitVector seen(rank);
  for (auto [i, a] : llvm::enumerate(axes)) {
    auto axis = normalizeAxis(a, rank);
    if (!axis)
      return ctx.fail("axis " + Twine(a) + " is out of range for input of rank " + Twine(rank));
    if (seen.test(*axis))
      return ctx.fail("axis " + Twine(a) + " appears more than once");
    seen.set(*axis);
    if (sizes && i < sizes->size() && (*sizes)[i] >= 0)
      out[*axis] = Dim::known((*sizes)[i]);
    else
      out[*axis] = Dim::unknown();
  }
  ctx.setShape(0, out);
  return success();
}

/// The cache's shape; the update differs from it only along `axis` (not 0),
/// where it is at most as long.
LogicalResult TensorScatterOp::inferShapes(ShapeContext &ctx) {
  auto cache = ctx.operandShape(0), update = ctx.operandShape(1);
  if (!cache)
    return success();
  int64_t rank = cache->size();
  auto axis = normalizeAxis(getAxis(), rank);
  if (rank < 2 || !axis || *axis == 0)
    return ctx.fail("axis " + Twine(getAxis()) + " is not a dim after the batch dim of " +
                    "past_cache " + shapeText(*cache));
  if (getMode() != "linear" && getMode() != "circular")
    return ctx.fail("mode is '" + getMode() + "', expected 'linear' or 'circular'");
  if (update) {
    if (static_cast<int64_t>(update->size()) != rank)
      return ctx.fail("update " + shapeText(*update) + " and past_cache " + shapeText(*cache) +
                      " have different ranks");
    for (int64_t d = 0; d < rank; ++d) {
      const Dim &u = (*update)[d], &c = (*cache)[d];
      if (d == *axis) {
        if (u.isStatic() && c.isStatic() && u.size > c.size)
          return ctx.fail("update " + shapeText(*update) + " is longer than past_cache " +
                          shapeText(*cache) + " along axis " + Twine(d));
        continue;
      }
      if (failed(ctx.unify(u, c)))
        return ctx.fail("update " + shapeText(*update) + " and past_cache " +
                        shapeText(*cache) + " differ in dim " + Twine(d));
    }
  }
  if (auto w = ctx.operandShape(2)) {
    if (w->size() != 1 || failed(ctx.unify((*w)[0], (*cache)[0])))
      return ctx.fail("write_indices " + shapeText(*w) + " is not [batch] of past_cache " +
                      shapeText(*cache));
  }
  ctx.setShape(0, *cache);
  return success();
}

/// Y: X's dims and the largest number of pieces of a string (known at run
/// time only: at most maxsplit + 1, else the user's --bound); Z: X's dims.
LogicalResult StringSplitOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x) {
    return success();
  }
  Dim bound = Dim::unknown();
  if (auto m = getMaxsplit(); m && *m >= 0 && *m < std::numeric_limits<int32_t>::max())
    bound = Dim::known(*m + 1);
  Shape y = *x;
  y.push_back(ctx.dataDim(0, bound));
  ctx.setShape(0, y);
  ctx.setShape(1, *x);
  return success();
}

LogicalResult RegexFullMatchOp::inferShapes(ShapeContext &ctx) {
  return sameAsFirstOperand(ctx);
}
