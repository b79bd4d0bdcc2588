//===- Recurrent.cpp - RNN, GRU and LSTM to kernels or an scf.for --------===//
//
// With a kernel ISA, float32 RNN, GRU and LSTM nodes with constant W, R and
// B become two kernel calls: gemm_packed_b for the input projections of
// every step and direction at once (W packed at compile time, the biases
// that add to a gate input unchanged folded into its bias), then
// onnxcc_rt::kernels::recurrent (runtime-support/onnxcc_kernels_rnn.h) for
// the time loop, with R packed at compile time so that each step streams it
// once and the gates run on the step's product in L1.
//
// Otherwise (no kernels, weights computed at run time, activations without
// their parameters) each direction becomes one scf.for over the sequence
// carrying the hidden state (and the LSTM cell state) as tensors. The input
// projection X W^T + Wb of every step is one contraction before the loop;
// inside it, H R^T + Rb is a contraction per step and the gates are one
// elementwise linalg.generic over [batch, hidden].
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/KernelCall.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineMap.h"

#include "runtime-support/onnxcc_kernels.h"

#include <array>

using namespace mlir;

namespace onnxcc::lowering {
namespace {

enum class Cell { Rnn, Gru, Lstm };
enum class Activation { Sigmoid, Tanh, Relu };

/// Gate blocks stacked in W, R and each half of B.
int64_t gateCount(Cell cell) {
  switch (cell) {
  case Cell::Rnn:
    return 1;
  case Cell::Gru:
    return 3;
  case Cell::Lstm:
    return 4;
  }
  return 1;
}

/// Activation functions one direction takes (f; f, g; f, g, h).
ArrayRef<StringRef> defaultActivations(Cell cell) {
  static const StringRef rnn[] = {"Tanh"};
  static const StringRef gru[] = {"Sigmoid", "Tanh"};
  static const StringRef lstm[] = {"Sigmoid", "Tanh", "Tanh"};
  switch (cell) {
  case Cell::Rnn:
    return rnn;
  case Cell::Gru:
    return gru;
  case Cell::Lstm:
    return lstm;
  }
  return rnn;
}

/// The operands (converted; null when absent) and attributes of one recurrent
/// op, and the sizes `prepare` derives from them.
struct Recurrent {
  Cell cell = Cell::Rnn;
  Value x, w, r, bias, seqLens, initialH, initialC, peepholes;
  ArrayAttr activationNames;
  FloatAttr clip;
  StringRef direction;
  int64_t layout = 0;
  bool linearBeforeReset = false;
  bool inputForget = false;

  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1, gates = 1;
  bool batchMajor = false;
  Type elem;
  /// The activation names, f (g, h) of each direction in turn.
  SmallVector<StringRef> activationList;
  SmallVector<Activation> activations;
};

/// Checks shapes, element types and the number of activations; fills the
/// derived sizes and `activationList`. With `symbolic`, the sequence length
/// and the batch may be dynamic (seq and batch are then kDynamic).
LogicalResult prepareShapes(ConversionPatternRewriter &rewriter, Operation *op, Recurrent &rc,
                            bool symbolic = false) {
  auto xType = dyn_cast<RankedTensorType>(rc.x.getType());
  if (!xType || xType.getRank() != 3 || (!symbolic && !xType.hasStaticShape()) ||
      xType.isDynamicDim(2))
    return rewriter.notifyMatchFailure(op, "X needs a static rank-3 shape");
  rc.elem = xType.getElementType();
  if (!isa<FloatType>(rc.elem))
    return rewriter.notifyMatchFailure(op, "X must be a float tensor");
  if (rc.layout != 0 && rc.layout != 1)
    return rewriter.notifyMatchFailure(op, "layout must be 0 or 1");
  rc.batchMajor = rc.layout == 1;
  rc.seq = xType.getDimSize(rc.batchMajor ? 1 : 0);
  rc.batch = xType.getDimSize(rc.batchMajor ? 0 : 1);
  rc.input = xType.getDimSize(2);
  if (rc.direction == "bidirectional")
    rc.dirs = 2;
  else if (rc.direction != "forward" && rc.direction != "reverse")
    return rewriter.notifyMatchFailure(op, "unknown direction");
  rc.gates = gateCount(rc.cell);
  auto rType = dyn_cast<RankedTensorType>(rc.r.getType());
  if (!rType || !rType.hasStaticShape() || rType.getRank() != 3)
    return rewriter.notifyMatchFailure(op, "R needs a static rank-3 shape");
  rc.hidden = rType.getDimSize(2);

  auto expect = [&](Value v, ArrayRef<int64_t> shape, Type elem) {
    if (!v)
      return true;
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getShape() == shape && t.getElementType() == elem;
  };
  int64_t gh = rc.gates * rc.hidden;
  SmallVector<int64_t> stateShape =
      rc.batchMajor ? SmallVector<int64_t>{rc.batch, rc.dirs, rc.hidden}
                    : SmallVector<int64_t>{rc.dirs, rc.batch, rc.hidden};
  if (!expect(rc.w, {rc.dirs, gh, rc.input}, rc.elem) ||
      !expect(rc.r, {rc.dirs, gh, rc.hidden}, rc.elem) ||
      !expect(rc.bias, {rc.dirs, 2 * gh}, rc.elem) ||
      !expect(rc.initialH, stateShape, rc.elem) || !expect(rc.initialC, stateShape, rc.elem) ||
      !expect(rc.peepholes, {rc.dirs, 3 * rc.hidden}, rc.elem))
    return rewriter.notifyMatchFailure(op, "W, R, B, initial states or P have the wrong shape");
  if (!expect(rc.seqLens, {rc.batch}, rewriter.getI32Type()))
    return rewriter.notifyMatchFailure(op, "sequence_lens must be i32 [batch]");

  ArrayRef<StringRef> defaults = defaultActivations(rc.cell);
  SmallVector<StringRef> &names = rc.activationList;
  if (rc.activationNames) {
    for (Attribute a : rc.activationNames)
      names.push_back(cast<StringAttr>(a).getValue());
  } else {
    for (int64_t d = 0; d < rc.dirs; ++d)
      names.append(defaults.begin(), defaults.end());
  }
  if (static_cast<int64_t>(names.size()) != rc.dirs * static_cast<int64_t>(defaults.size()))
    return rewriter.notifyMatchFailure(op, "activations has the wrong number of entries");
  return success();
}

/// prepareShapes, and the activations the loop lowering computes.
LogicalResult prepare(ConversionPatternRewriter &rewriter, Operation *op, Recurrent &rc) {
  if (failed(prepareShapes(rewriter, op, rc)))
    return failure();
  for (StringRef name : rc.activationList) {
    if (name.equals_insensitive("sigmoid"))
      rc.activations.push_back(Activation::Sigmoid);
    else if (name.equals_insensitive("tanh"))
      rc.activations.push_back(Activation::Tanh);
    else if (name.equals_insensitive("relu"))
      rc.activations.push_back(Activation::Relu);
    else
      return rewriter.notifyMatchFailure(op, "only Sigmoid, Tanh and Relu activations are lowered");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Scalar and tensor helpers
//===----------------------------------------------------------------------===//

Value activate(OpBuilder &b, Location loc, Activation a, Value x) {
  switch (a) {
  case Activation::Sigmoid: {
    Value one = floatConst(b, loc, x.getType(), 1.0);
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
  }
  case Activation::Tanh:
    return math::TanhOp::create(b, loc, x);
  case Activation::Relu:
    return arith::MaximumFOp::create(b, loc, x, floatConst(b, loc, x.getType(), 0.0));
  }
  return x;
}

/// `clip` bounds every activation's input to [-clip, clip].
Value clipped(OpBuilder &b, Location loc, FloatAttr clip, Value x) {
  if (!clip)
    return x;
  double c = clip.getValueAsDouble();
  Value lo = arith::MaximumFOp::create(b, loc, x, floatConst(b, loc, x.getType(), -c));
  return arith::MinimumFOp::create(b, loc, lo, floatConst(b, loc, x.getType(), c));
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> r;
  for (int64_t v : values)
    r.push_back(b.getIndexAttr(v));
  return r;
}

/// The slice of `src` at `offsets` with `sizes`, with its unit dims dropped
/// down to `shape`.
Value slice(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> offsets,
            ArrayRef<int64_t> sizes, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(src.getType());
  SmallVector<OpFoldResult> ones(sizes.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()),
                                        src, offsets, indexAttrs(b, sizes), ones);
}

Value insert(OpBuilder &b, Location loc, Value src, Value dest, ArrayRef<OpFoldResult> offsets,
             ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> ones(sizes.size(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, src, dest, offsets, indexAttrs(b, sizes), ones);
}

/// result[..., n] = bias[n] + sum_k lhs[..., k] * weight[n, k]: the gate
/// inputs of all steps at once (lhs = X) or of one step (lhs = H).
/// `swapLeading` reads a batch-major X as if it were time-major.
Value project(OpBuilder &b, Location loc, Value lhs, Value weight, Value bias,
              bool swapLeading = false) {
  MLIRContext *ctx = b.getContext();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t rank = lhsType.getRank();
  SmallVector<int64_t> shape(lhsType.getShape());
  if (swapLeading)
    std::swap(shape[0], shape[1]);
  shape.back() = weightType.getDimSize(0);
  auto resultType = RankedTensorType::get(shape, lhsType.getElementType());

  int64_t numDims = rank + 1, nDim = rank - 1, kDim = rank;
  SmallVector<AffineExpr> lhsExprs, outExprs;
  for (int64_t d = 0; d < rank - 1; ++d) {
    int64_t src = d;
    if (swapLeading && d < 2)
      src = 1 - d;
    lhsExprs.push_back(getAffineDimExpr(src, ctx));
  }
  lhsExprs.push_back(getAffineDimExpr(kDim, ctx));
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineExpr> weightExprs = {getAffineDimExpr(nDim, ctx),
                                         getAffineDimExpr(kDim, ctx)};
  SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, lhsExprs, ctx),
                                 AffineMap::get(numDims, 0, weightExprs, ctx),
                                 AffineMap::get(numDims, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);

  Value init =
      bias ? buildBroadcastGeneric(b, loc, resultType, bias,
                                   [](OpBuilder &, Location, ValueRange args) { return args[0]; })
           : buildFilled(b, loc, resultType, b.getZeroAttr(resultType.getElementType()));
  return linalg::GenericOp::create(
             b, loc, resultType, ValueRange{lhs, weight}, init, maps, iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               Value p = arith::MulFOp::create(nb, nloc, args[0], args[1]);
               linalg::YieldOp::create(nb, nloc, Value(arith::AddFOp::create(nb, nloc, args[2], p)));
             })
      .getResult(0);
}

using PointwiseBody = function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange full,
                                                      ValueRange perHidden, ValueRange perBatch)>;

/// A linalg.generic over [batch, hidden] reading [batch, hidden] tensors
/// (`full`), [hidden] vectors (`perHidden`) and [batch] vectors (`perBatch`),
/// yielding `numResults` [batch, hidden] tensors of `elem`.
SmallVector<Value> pointwise(OpBuilder &b, Location loc, int64_t batch, int64_t hidden, Type elem,
                             ArrayRef<Value> full, ArrayRef<Value> perHidden,
                             ArrayRef<Value> perBatch, unsigned numResults, PointwiseBody body) {
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap hiddenMap = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
  AffineMap batchMap = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  auto add = [&](ArrayRef<Value> values, AffineMap map) {
    for (Value v : values) {
      inputs.push_back(v);
      maps.push_back(map);
    }
  };
  add(full, identity);
  add(perHidden, hiddenMap);
  add(perBatch, batchMap);
  auto type = RankedTensorType::get({batch, hidden}, elem);
  SmallVector<Value> inits;
  SmallVector<Type> types;
  for (unsigned i = 0; i < numResults; ++i) {
    inits.push_back(tensor::EmptyOp::create(b, loc, type.getShape(), elem));
    types.push_back(type);
    maps.push_back(identity);
  }
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  size_t nFull = full.size(), nHidden = perHidden.size(), nBatch = perBatch.size();
  auto generic = linalg::GenericOp::create(
      b, loc, types, inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> r = body(nb, nloc, args.take_front(nFull),
                                    args.slice(nFull, nHidden), args.slice(nFull + nHidden, nBatch));
        linalg::YieldOp::create(nb, nloc, r);
      });
  return SmallVector<Value>(generic.getResults());
}

using CellBody = function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange states,
                                                 ValueRange full, ValueRange perHidden)>;

/// The pointwise update of one step: `cell` turns the old states and the gate
/// inputs into new states. With sequence lengths, a batch entry at or past its
/// length keeps its states and outputs zeros. Returns the new states, then
/// the step's output.
SmallVector<Value> stepUpdate(OpBuilder &b, Location loc, const Recurrent &rc, Value step,
                              ValueRange states, ArrayRef<Value> full,
                              ArrayRef<Value> perHidden, CellBody cell) {
  SmallVector<Value> allFull(states.begin(), states.end());
  allFull.append(full.begin(), full.end());
  SmallVector<Value> perBatch;
  Value stepI32;
  if (rc.seqLens) {
    perBatch.push_back(rc.seqLens);
    stepI32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), step);
  }
  size_t numStates = states.size();
  unsigned numResults = numStates + (rc.seqLens ? 1 : 0);
  SmallVector<Value> results = pointwise(
      b, loc, rc.batch, rc.hidden, rc.elem, allFull, perHidden, perBatch, numResults,
      [&](OpBuilder &nb, Location nloc, ValueRange f, ValueRange h, ValueRange lens) {
        ValueRange old = f.take_front(numStates);
        SmallVector<Value> next = cell(nb, nloc, old, f.drop_front(numStates), h);
        if (!rc.seqLens)
          return next;
        Value valid =
            arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt, stepI32, lens[0]);
        SmallVector<Value> masked;
        for (size_t i = 0; i < numStates; ++i)
          masked.push_back(arith::SelectOp::create(nb, nloc, valid, next[i], old[i]));
        masked.push_back(arith::SelectOp::create(nb, nloc, valid, next[0],
                                                 floatConst(nb, nloc, rc.elem, 0.0)));
        return masked;
      });
  if (!rc.seqLens)
    results.push_back(results[0]);
  return results;
}

/// `len - 1 - pos` clamped into [0, seq), as an index.
Value reversedIndex(OpBuilder &b, Location loc, Value lenI32, Value pos, int64_t seq) {
  Value len = arith::IndexCastOp::create(b, loc, b.getIndexType(), lenI32);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value idx = arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, len, one), pos);
  idx = arith::MinSIOp::create(b, loc, idx, arith::ConstantIndexOp::create(b, loc, seq - 1));
  return arith::MaxSIOp::create(b, loc, idx, arith::ConstantIndexOp::create(b, loc, 0));
}

/// The reverse direction with sequence lengths runs each batch entry from its
/// own last step: step t of entry b reads time len[b]-1-t (steps past the
/// length are masked by `stepUpdate`).
Value reverseWithinLengths(OpBuilder &b, Location loc, Value xw, Value seqLens) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(xw.getType());
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, getAffineDimExpr(1, ctx)),
                                 AffineMap::getMultiDimIdentityMap(3, ctx)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::GenericOp::create(
             b, loc, type, seqLens, init, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value t = linalg::IndexOp::create(nb, nloc, 0);
               Value bi = linalg::IndexOp::create(nb, nloc, 1);
               Value n = linalg::IndexOp::create(nb, nloc, 2);
               Value idx = reversedIndex(nb, nloc, args[0], t, type.getDimSize(0));
               Value v = tensor::ExtractOp::create(nb, nloc, xw, ValueRange{idx, bi, n});
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

/// Puts the outputs of a reverse direction run by `reverseWithinLengths`
/// ([step, batch, hidden]) back in time order, zero past each length, as
/// [seq, batch, hidden] or, batch-major, [batch, seq, hidden].
Value restoreTimeOrder(OpBuilder &b, Location loc, Value steps, Value seqLens, bool batchMajor) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(steps.getType());
  int64_t seq = type.getDimSize(0);
  SmallVector<int64_t> shape(type.getShape());
  AffineMap outMap = AffineMap::getMultiDimIdentityMap(3, ctx);
  if (batchMajor) {
    std::swap(shape[0], shape[1]);
    outMap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0, 2}, ctx);
  }
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, getAffineDimExpr(1, ctx)), outMap};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::GenericOp::create(
             b, loc, resultType, seqLens, init, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value p = linalg::IndexOp::create(nb, nloc, 0);
               Value bi = linalg::IndexOp::create(nb, nloc, 1);
               Value j = linalg::IndexOp::create(nb, nloc, 2);
               Value idx = reversedIndex(nb, nloc, args[0], p, seq);
               Value v = tensor::ExtractOp::create(nb, nloc, steps, ValueRange{idx, bi, j});
               Value pI32 = arith::IndexCastOp::create(nb, nloc, nb.getI32Type(), p);
               Value valid =
                   arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt, pI32, args[0]);
               Value zero = floatConst(nb, nloc, type.getElementType(), 0.0);
               linalg::YieldOp::create(nb, nloc,
                                       Value(arith::SelectOp::create(nb, nloc, valid, v, zero)));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Cells
//===----------------------------------------------------------------------===//

/// Weights of one direction: R [gates*hidden, hidden], its bias Rb (null when
/// B is absent), P [3*hidden] (null when absent) and the activations.
struct DirectionWeights {
  Value r, rb, p;
  ArrayRef<Activation> acts;
};

/// Gate `k` ([batch, hidden]) of a [batch, gates*hidden] tensor.
Value gate(OpBuilder &b, Location loc, const Recurrent &rc, Value m, int64_t k) {
  return slice(b, loc, m, indexAttrs(b, {0, k * rc.hidden}), {rc.batch, rc.hidden},
               {rc.batch, rc.hidden});
}

/// Rows [k*hidden, (k+count)*hidden) of R and of Rb.
std::pair<Value, Value> recurrentRows(OpBuilder &b, Location loc, const Recurrent &rc,
                                      const DirectionWeights &dw, int64_t k, int64_t count) {
  int64_t rows = count * rc.hidden;
  Value r = slice(b, loc, dw.r, indexAttrs(b, {k * rc.hidden, 0}), {rows, rc.hidden},
                  {rows, rc.hidden});
  Value rb = dw.rb ? slice(b, loc, dw.rb, indexAttrs(b, {k * rc.hidden}), {rows}, {rows})
                   : Value();
  return {r, rb};
}

Value sum(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value s = values.front();
  for (Value v : values.drop_front())
    s = arith::AddFOp::create(b, loc, s, v);
  return s;
}

/// Ht = f(Xt W^T + Wb + Ht-1 R^T + Rb).
SmallVector<Value> rnnStep(OpBuilder &b, Location loc, const Recurrent &rc,
                           const DirectionWeights &dw, Value step, Value xw, ValueRange states) {
  Value hr = project(b, loc, states[0], dw.r, dw.rb);
  return stepUpdate(b, loc, rc, step, states, {xw, hr}, {},
                    [&](OpBuilder &nb, Location nloc, ValueRange, ValueRange f, ValueRange) {
                      Value a = clipped(nb, nloc, rc.clip, sum(nb, nloc, {f[0], f[1]}));
                      return SmallVector<Value>{activate(nb, nloc, dw.acts[0], a)};
                    });
}

/// Gates z, r, h. Without linear_before_reset the candidate reads
/// (r . Ht-1) Rh^T, a second contraction after the z and r gates.
SmallVector<Value> gruStep(OpBuilder &b, Location loc, const Recurrent &rc,
                           const DirectionWeights &dw, Value step, Value xw, ValueRange states) {
  Value h = states[0];
  Value xz = gate(b, loc, rc, xw, 0), xr = gate(b, loc, rc, xw, 1), xh = gate(b, loc, rc, xw, 2);
  Activation f = dw.acts[0], g = dw.acts[1];
  /// (1 - z) . candidate + z . Ht-1
  auto blend = [&](OpBuilder &nb, Location nloc, Value z, Value cand, Value old) -> Value {
    Value one = floatConst(nb, nloc, rc.elem, 1.0);
    Value keep = arith::MulFOp::create(nb, nloc, z, old);
    Value fresh =
        arith::MulFOp::create(nb, nloc, arith::SubFOp::create(nb, nloc, one, z), cand);
    return arith::AddFOp::create(nb, nloc, fresh, keep);
  };
  if (rc.linearBeforeReset) {
    Value hAll = project(b, loc, h, dw.r, dw.rb);
    Value hz = gate(b, loc, rc, hAll, 0), hr = gate(b, loc, rc, hAll, 1),
          hh = gate(b, loc, rc, hAll, 2);
    return stepUpdate(
        b, loc, rc, step, states, {xz, xr, xh, hz, hr, hh}, {},
        [&](OpBuilder &nb, Location nloc, ValueRange old, ValueRange v, ValueRange) {
          Value z = activate(nb, nloc, f, clipped(nb, nloc, rc.clip, sum(nb, nloc, {v[0], v[3]})));
          Value r = activate(nb, nloc, f, clipped(nb, nloc, rc.clip, sum(nb, nloc, {v[1], v[4]})));
          Value reset = arith::MulFOp::create(nb, nloc, r, v[5]);
          Value cand =
              activate(nb, nloc, g, clipped(nb, nloc, rc.clip, sum(nb, nloc, {v[2], reset})));
          return SmallVector<Value>{blend(nb, nloc, z, cand, old[0])};
        });
  }
  auto [rZr, rbZr] = recurrentRows(b, loc, rc, dw, 0, 2);
  Value hzr = project(b, loc, h, rZr, rbZr);
  SmallVector<Value> zr = pointwise(
      b, loc, rc.batch, rc.hidden, rc.elem,
      {xz, xr, gate(b, loc, rc, hzr, 0), gate(b, loc, rc, hzr, 1), h}, {}, {}, 2,
      [&](OpBuilder &nb, Location nloc, ValueRange v, ValueRange, ValueRange) {
        Value z = activate(nb, nloc, f, clipped(nb, nloc, rc.clip, sum(nb, nloc, {v[0], v[2]})));
        Value r = activate(nb, nloc, f, clipped(nb, nloc, rc.clip, sum(nb, nloc, {v[1], v[3]})));
        return SmallVector<Value>{z, arith::MulFOp::create(nb, nloc, r, v[4])};
      });
  auto [rH, rbH] = recurrentRows(b, loc, rc, dw, 2, 1);
  Value hh = project(b, loc, zr[1], rH, rbH);
  return stepUpdate(
      b, loc, rc, step, states, {zr[0], xh, hh}, {},
      [&](OpBuilder &nb, Location nloc, ValueRange old, ValueRange v, ValueRange) {
        Value cand = activate(nb, nloc, g, clipped(nb, nloc, rc.clip, sum(nb, nloc, {v[1], v[2]})));
        return SmallVector<Value>{blend(nb, nloc, v[0], cand, old[0])};
      });
}

/// Gates i, o, f, c with optional peepholes P = [Pi, Po, Pf]; input_forget
/// couples f = 1 - i.
SmallVector<Value> lstmStep(OpBuilder &b, Location loc, const Recurrent &rc,
                            const DirectionWeights &dw, Value step, Value xw, ValueRange states) {
  Value hAll = project(b, loc, states[0], dw.r, dw.rb);
  SmallVector<Value> full;
  for (Value m : {xw, hAll})
    for (int64_t k = 0; k < 4; ++k)
      full.push_back(gate(b, loc, rc, m, k));
  SmallVector<Value> peep;
  if (dw.p)
    for (int64_t k = 0; k < 3; ++k)
      peep.push_back(slice(b, loc, dw.p, indexAttrs(b, {k * rc.hidden}), {rc.hidden}, {rc.hidden}));
  Activation f = dw.acts[0], g = dw.acts[1], h = dw.acts[2];
  return stepUpdate(
      b, loc, rc, step, states, full, peep,
      [&](OpBuilder &nb, Location nloc, ValueRange old, ValueRange v, ValueRange p) {
        Value c = old[1];
        /// Pre-activation of gate k (i 0, o 1, f 2, c 3), with peephole
        /// `peepIndex` on `cell` when P is given.
        auto pre = [&](int64_t k, int64_t peepIndex, Value cell) {
          SmallVector<Value> terms = {v[k], v[4 + k]};
          if (peepIndex >= 0 && !p.empty())
            terms.push_back(arith::MulFOp::create(nb, nloc, p[peepIndex], cell));
          return clipped(nb, nloc, rc.clip, sum(nb, nloc, terms));
        };
        Value i = activate(nb, nloc, f, pre(0, 0, c));
        Value fg = rc.inputForget
                       ? Value(arith::SubFOp::create(nb, nloc, floatConst(nb, nloc, rc.elem, 1.0), i))
                       : activate(nb, nloc, f, pre(2, 2, c));
        Value cand = activate(nb, nloc, g, pre(3, -1, c));
        Value cNew = arith::AddFOp::create(nb, nloc, arith::MulFOp::create(nb, nloc, fg, c),
                                           arith::MulFOp::create(nb, nloc, i, cand));
        Value o = activate(nb, nloc, f, pre(1, 1, cNew));
        Value hNew = arith::MulFOp::create(nb, nloc, o, activate(nb, nloc, h, cNew));
        return SmallVector<Value>{hNew, cNew};
      });
}

//===----------------------------------------------------------------------===//
// The op
//===----------------------------------------------------------------------===//

LogicalResult lowerRecurrent(ConversionPatternRewriter &rewriter, Operation *op,
                             const TypeConverter *converter, Recurrent &rc) {
  if (failed(prepare(rewriter, op, rc)))
    return failure();
  Location loc = op->getLoc();
  bool isLstm = rc.cell == Cell::Lstm;
  unsigned numStates = isLstm ? 2 : 1;

  /// Results that are present and used; the others are not computed.
  SmallVector<RankedTensorType> resultTypes;
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
    Value res = op->getResult(i);
    if (isa<NoneType>(res.getType()) || res.use_empty()) {
      resultTypes.push_back({});
      continue;
    }
    auto t = staticResultType(rewriter, converter, op, i);
    if (!t)
      return failure();
    resultTypes.push_back(t);
  }
  auto emptyOf = [&](RankedTensorType t) -> Value {
    return t ? Value(tensor::EmptyOp::create(rewriter, loc, t.getShape(), t.getElementType()))
             : Value();
  };
  Value y = emptyOf(resultTypes[0]);
  Value finals[2] = {emptyOf(resultTypes[1]), isLstm ? emptyOf(resultTypes[2]) : Value()};

  int64_t gh = rc.gates * rc.hidden, perDir = defaultActivations(rc.cell).size();
  int64_t seq = rc.seq, batch = rc.batch, hidden = rc.hidden;
  auto stateType = RankedTensorType::get({batch, hidden}, rc.elem);
  for (int64_t d = 0; d < rc.dirs; ++d) {
    bool reverse = rc.direction == "reverse" || d == 1;
    DirectionWeights dw;
    dw.acts = ArrayRef(rc.activations).slice(d * perDir, perDir);
    Value w = slice(rewriter, loc, rc.w, indexAttrs(rewriter, {d, 0, 0}), {1, gh, rc.input},
                    {gh, rc.input});
    dw.r = slice(rewriter, loc, rc.r, indexAttrs(rewriter, {d, 0, 0}), {1, gh, hidden},
                 {gh, hidden});
    Value wb;
    if (rc.bias) {
      wb = slice(rewriter, loc, rc.bias, indexAttrs(rewriter, {d, 0}), {1, gh}, {gh});
      dw.rb = slice(rewriter, loc, rc.bias, indexAttrs(rewriter, {d, gh}), {1, gh}, {gh});
    }
    if (rc.peepholes)
      dw.p = slice(rewriter, loc, rc.peepholes, indexAttrs(rewriter, {d, 0}), {1, 3 * hidden},
                   {3 * hidden});

    Value xw = project(rewriter, loc, rc.x, w, wb, rc.batchMajor);
    bool inStepOrder = reverse && rc.seqLens;
    if (inStepOrder)
      xw = reverseWithinLengths(rewriter, loc, xw, rc.seqLens);

    /// Each state lives in a [2, batch, hidden] pair of slots: step t reads
    /// slot t % 2 and writes the other. Yielding the pair updated in place
    /// (rather than a fresh [batch, hidden] tensor) is what lets scf.for
    /// bufferize without a copy per step.
    auto pairType = RankedTensorType::get({2, batch, hidden}, rc.elem);
    SmallVector<Value> iterArgs;
    for (Value init : {rc.initialH, rc.initialC}) {
      if (iterArgs.size() == numStates)
        break;
      SmallVector<int64_t> at = rc.batchMajor ? SmallVector<int64_t>{0, d, 0}
                                              : SmallVector<int64_t>{d, 0, 0};
      SmallVector<int64_t> sizes = rc.batchMajor ? SmallVector<int64_t>{batch, 1, hidden}
                                                 : SmallVector<int64_t>{1, batch, hidden};
      Value state = init ? slice(rewriter, loc, init, indexAttrs(rewriter, at), sizes,
                                 {batch, hidden})
                         : buildFilled(rewriter, loc, stateType, rewriter.getZeroAttr(rc.elem));
      Value pair = tensor::EmptyOp::create(rewriter, loc, pairType.getShape(), rc.elem);
      iterArgs.push_back(insert(rewriter, loc, state, pair, indexAttrs(rewriter, {0, 0, 0}),
                                {1, batch, hidden}));
    }
    Value outputs;
    if (y)
      outputs = inStepOrder ? Value(tensor::EmptyOp::create(rewriter, loc,
                                                             {seq, batch, hidden}, rc.elem))
                            : y;
    if (outputs)
      iterArgs.push_back(outputs);

    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, seq);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, one, iterArgs,
        [&](OpBuilder &b, Location l, Value t, ValueRange args) {
          Value pos = t;
          if (reverse && !rc.seqLens)
            pos = arith::SubIOp::create(b, l, arith::ConstantIndexOp::create(b, l, seq - 1), t);
          SmallVector<OpFoldResult> xAt = {pos, b.getIndexAttr(0), b.getIndexAttr(0)};
          Value xwT = slice(b, l, xw, xAt, {1, batch, gh}, {batch, gh});
          Value cur = arith::RemUIOp::create(b, l, t, arith::ConstantIndexOp::create(b, l, 2));
          Value nxt = arith::SubIOp::create(b, l, arith::ConstantIndexOp::create(b, l, 1), cur);
          SmallVector<Value> states;
          for (unsigned s = 0; s < numStates; ++s)
            states.push_back(slice(b, l, args[s], {cur, b.getIndexAttr(0), b.getIndexAttr(0)},
                                   {1, batch, hidden}, {batch, hidden}));
          SmallVector<Value> next;
          switch (rc.cell) {
          case Cell::Rnn:
            next = rnnStep(b, l, rc, dw, t, xwT, states);
            break;
          case Cell::Gru:
            next = gruStep(b, l, rc, dw, t, xwT, states);
            break;
          case Cell::Lstm:
            next = lstmStep(b, l, rc, dw, t, xwT, states);
            break;
          }
          Value out = next.pop_back_val();
          for (unsigned s = 0; s < numStates; ++s)
            next[s] = insert(b, l, next[s], args[s], {nxt, b.getIndexAttr(0), b.getIndexAttr(0)},
                             {1, batch, hidden});
          if (outputs) {
            Value acc = args.back();
            if (inStepOrder)
              acc = insert(b, l, out, acc, {t, b.getIndexAttr(0), b.getIndexAttr(0)},
                           {1, batch, hidden});
            else if (rc.batchMajor)
              acc = insert(b, l, out, acc,
                           {b.getIndexAttr(0), pos, b.getIndexAttr(d), b.getIndexAttr(0)},
                           {batch, 1, 1, hidden});
            else
              acc = insert(b, l, out, acc,
                           {pos, b.getIndexAttr(d), b.getIndexAttr(0), b.getIndexAttr(0)},
                           {1, 1, batch, hidden});
            next.push_back(acc);
          }
          scf::YieldOp::create(b, l, next);
        });

    for (unsigned s = 0; s < numStates; ++s) {
      if (!finals[s])
        continue;
      SmallVector<int64_t> at = rc.batchMajor ? SmallVector<int64_t>{0, d, 0}
                                              : SmallVector<int64_t>{d, 0, 0};
      SmallVector<int64_t> sizes = rc.batchMajor ? SmallVector<int64_t>{batch, 1, hidden}
                                                 : SmallVector<int64_t>{1, batch, hidden};
      Value last = slice(rewriter, loc, loop.getResult(s), indexAttrs(rewriter, {seq % 2, 0, 0}),
                         {1, batch, hidden}, {batch, hidden});
      finals[s] = insert(rewriter, loc, last, finals[s], indexAttrs(rewriter, at), sizes);
    }
    if (!outputs)
      continue;
    Value result = loop.getResults().back();
    if (!inStepOrder) {
      y = result;
      continue;
    }
    Value ordered = restoreTimeOrder(rewriter, loc, result, rc.seqLens, rc.batchMajor);
    if (rc.batchMajor)
      y = insert(rewriter, loc, ordered, y, indexAttrs(rewriter, {0, 0, d, 0}),
                 {batch, seq, 1, hidden});
    else
      y = insert(rewriter, loc, ordered, y, indexAttrs(rewriter, {0, d, 0, 0}),
                 {seq, 1, batch, hidden});
  }

  SmallVector<SmallVector<Value>> replacements;
  SmallVector<Value> computed = {y, finals[0], finals[1]};
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    replacements.push_back(computed[i] ? SmallVector<Value>{computed[i]} : SmallVector<Value>{});
  rewriter.replaceOpWithMultiple(op, std::move(replacements));
  return success();
}

/// The operands (converted) and attributes of `op` into `rc`.
template <typename OpTy, Cell kind>
void collect(OpTy op, typename OpTy::Adaptor adaptor, Recurrent &rc) {
  rc.cell = kind;
  rc.x = adaptor.getX();
  rc.w = adaptor.getW();
  rc.r = adaptor.getR();
  rc.bias = present(adaptor.getB());
  rc.seqLens = present(adaptor.getSequenceLens());
  rc.initialH = present(adaptor.getInitialH());
  rc.activationNames = op.getActivationsAttr();
  rc.clip = op.getClipAttr();
  rc.direction = op.getDirection();
  rc.layout = static_cast<int64_t>(op.getLayout());
  if constexpr (kind == Cell::Gru)
    rc.linearBeforeReset = op.getLinearBeforeReset() != 0;
  if constexpr (kind == Cell::Lstm) {
    rc.initialC = present(adaptor.getInitialC());
    rc.peepholes = present(adaptor.getP());
    rc.inputForget = op.getInputForget() != 0;
  }
}

template <typename OpTy, Cell kind>
struct RecurrentLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Recurrent rc;
    collect<OpTy, kind>(op, adaptor, rc);
    return lowerRecurrent(rewriter, op, this->getTypeConverter(), rc);
  }
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace k = onnxcc_rt::kernels;

/// The kernel's encoding {code, alpha, beta} of ONNX activation `name`,
/// taking its alpha and beta from the node's lists in turn (`nextAlpha`,
/// `nextBeta`) or, where the lists run out, the defaults of the ONNX op of
/// that name; nullopt for an unknown name or a missing parameter without a
/// default (Affine, ScaledTanh).
std::optional<std::array<float, 3>> recurrentActivation(StringRef name, ArrayRef<float> alphas,
                                                     ArrayRef<float> betas, size_t &nextAlpha,
                                                     size_t &nextBeta) {
  struct Entry {
    StringRef name;
    int32_t code;
    bool alpha, beta;
    std::optional<float> alphaDefault, betaDefault;
  };
  static const Entry table[] = {
      {"Sigmoid", k::kRnnSigmoid, false, false, {}, {}},
      {"Tanh", k::kRnnTanh, false, false, {}, {}},
      {"Relu", k::kRnnRelu, false, false, {}, {}},
      {"Affine", k::kRnnAffine, true, true, {}, {}},
      {"LeakyRelu", k::kRnnLeakyRelu, true, false, 0.01f, {}},
      {"ThresholdedRelu", k::kRnnThresholdedRelu, true, false, 1.0f, {}},
      {"ScaledTanh", k::kRnnScaledTanh, true, true, {}, {}},
      {"HardSigmoid", k::kRnnHardSigmoid, true, true, 0.2f, 0.5f},
      {"Elu", k::kRnnElu, true, false, 1.0f, {}},
      {"Softsign", k::kRnnSoftsign, false, false, {}, {}},
      {"Softplus", k::kRnnSoftplus, false, false, {}, {}},
  };
  const Entry *e =
      llvm::find_if(table, [&](const Entry &x) { return x.name.equals_insensitive(name); });
  if (e == std::end(table))
    return std::nullopt;
  std::array<float, 3> encoded = {static_cast<float>(e->code), 0.0f, 0.0f};
  auto take = [](bool used, ArrayRef<float> list, size_t &next, std::optional<float> fallback,
                 float &out) {
    if (!used)
      return true;
    if (next < list.size()) {
      out = list[next++];
      return true;
    }
    if (!fallback)
      return false;
    out = *fallback;
    return true;
  };
  if (!take(e->alpha, alphas, nextAlpha, e->alphaDefault, encoded[1]) ||
      !take(e->beta, betas, nextBeta, e->betaDefault, encoded[2]))
    return std::nullopt;
  return encoded;
}

/// Float32 RNN, GRU and LSTM with constant W, R and B (when present) and
/// static shapes: gemm_packed_b for X W^T + biases, then
/// onnxcc_rt::kernels::recurrent (see the top of this file).
template <typename OpTy, Cell kind> struct RecurrentKernelLowering : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;
  using KernelPattern<OpTy>::target;
  using KernelPattern<OpTy>::threads;

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Recurrent rc;
    collect<OpTy, kind>(op, adaptor, rc);
    if (failed(prepareShapes(rewriter, op, rc, /*symbolic=*/true)))
      return failure();
    if (!rc.elem.isF32())
      return rewriter.notifyMatchFailure(op, "not float32");
    const int64_t seq = rc.seq, batch = rc.batch, input = rc.input, hidden = rc.hidden,
                  dirs = rc.dirs, gh = rc.gates * hidden;
    // A sequence length or batch known only at run time (kDynamic) is an
    // operand of the calls; a run with either 0 computes nothing.
    const bool symbolic = ShapedType::isDynamic(seq) || ShapedType::isDynamic(batch);
    if ((!ShapedType::isDynamic(seq) && seq < 1) ||
        (!ShapedType::isDynamic(batch) && batch < 1) || input < 1 || hidden < 1)
      return rewriter.notifyMatchFailure(op, "an empty dim");
    std::optional<std::vector<float>> w = constantFloats(op.getW());
    std::optional<std::vector<float>> r = constantFloats(op.getR());
    if (!w || !r)
      return rewriter.notifyMatchFailure(op, "W or R is not constant");
    std::optional<std::vector<float>> bias;
    if (rc.bias && !(bias = constantFloats(op.getB())))
      return rewriter.notifyMatchFailure(op, "B is not constant");

    // Activations: f (g, h) per direction, padded to three with unused Tanh.
    std::vector<float> acts;
    ArrayRef<float> alphas, betas;
    if (auto a = op.getActivationAlpha())
      alphas = *a;
    if (auto b = op.getActivationBeta())
      betas = *b;
    size_t nextAlpha = 0, nextBeta = 0;
    int64_t perDir = defaultActivations(rc.cell).size();
    for (int64_t d = 0; d < dirs; ++d) {
      for (int64_t i = 0; i < 3; ++i) {
        if (i >= perDir) {
          acts.insert(acts.end(), {static_cast<float>(k::kRnnTanh), 0.0f, 0.0f});
          continue;
        }
        auto encoded = recurrentActivation(rc.activationList[d * perDir + i], alphas, betas,
                                           nextAlpha, nextBeta);
        if (!encoded)
          return rewriter.notifyMatchFailure(op, "an unknown activation or missing alpha/beta");
        acts.insert(acts.end(), encoded->begin(), encoded->end());
      }
    }

    // The results that are present and read, and their dynamic sizes.
    SmallVector<RankedTensorType> resultTypes;
    SmallVector<SmallVector<Value>> resultSizes;
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
      Value res = op->getResult(i);
      resultSizes.emplace_back();
      if (isa<NoneType>(res.getType()) || res.use_empty()) {
        resultTypes.push_back({});
        continue;
      }
      auto t = symbolicResultType(rewriter, this->getTypeConverter(), op, i);
      if (failed(t))
        return failure();
      resultTypes.push_back(t->first);
      resultSizes.back() = t->second;
    }
    SmallVector<int64_t> yShape = rc.batchMajor
                                      ? SmallVector<int64_t>{batch, seq, dirs, hidden}
                                      : SmallVector<int64_t>{seq, dirs, batch, hidden};
    SmallVector<int64_t> stateShape = rc.batchMajor
                                          ? SmallVector<int64_t>{batch, dirs, hidden}
                                          : SmallVector<int64_t>{dirs, batch, hidden};
    for (unsigned i = 0; i < resultTypes.size(); ++i)
      if (resultTypes[i] &&
          (resultTypes[i].getShape() != ArrayRef<int64_t>(i == 0 ? yShape : stateShape) ||
           !resultTypes[i].getElementType().isF32()))
        return rewriter.notifyMatchFailure(op, "a result of an unexpected type");

    Location loc = op.getLoc();
    // X's dims as index values: constants, or the symbols' expressions (the
    // memory plan sizes buffers from those).
    auto xShape = onnxConverter(this->getTypeConverter()).shapeOf(op.getX());
    auto xDim = [&](int64_t d) -> Value {
      auto xType = cast<RankedTensorType>(rc.x.getType());
      if (!xType.isDynamicDim(d))
        return indexConst(rewriter, loc, xType.getDimSize(d));
      if (!xShape || static_cast<int64_t>(xShape->size()) != 3 || !(*xShape)[d].isSymbolic())
        return Value();
      return onnxConverter(this->getTypeConverter())
          .materialize(rewriter, loc, op, (*xShape)[d].expr);
    };
    Value seqValue = xDim(rc.batchMajor ? 1 : 0), batchValue = xDim(rc.batchMajor ? 0 : 1);
    if (!seqValue || !batchValue)
      return rewriter.notifyMatchFailure(op, "X's dims are not symbolic expressions");
    int32_t cell = rc.cell == Cell::Rnn ? k::kRnnCellRnn
                   : rc.cell == Cell::Gru ? k::kRnnCellGru
                                          : k::kRnnCellLstm;
    bool lbr = rc.linearBeforeReset;

    // 1. XW = X W^T + Wb + Rb for every row of X, both directions at once:
    // W [dirs][G*H][I] is B^T of the product with N = dirs * G * H. GRU's
    // Rbh with linear_before_reset is scaled by r: it stays for the kernel.
    int64_t n = dirs * gh, rows = symbolic ? ShapedType::kDynamic : seq * batch;
    Value rowsValue = arith::MulIOp::create(rewriter, loc, seqValue, batchValue);
    std::vector<float> packedW(k::packed_gemm_b_floats(target, input, n));
    k::pack_gemm_b(target, w->data(), input, n, /*transposed=*/true, 1.0f, packedW.data());
    std::vector<float> rbh;
    std::vector<float> columnBias;
    if (bias) {
      columnBias.resize(n);
      for (int64_t d = 0; d < dirs; ++d)
        for (int64_t j = 0; j < gh; ++j) {
          const float *b = bias->data() + d * 2 * gh;
          bool keepRb = rc.cell == Cell::Gru && lbr && j >= 2 * hidden;
          columnBias[d * gh + j] = b[j] + (keepRb ? 0.0f : b[gh + j]);
          if (keepRb)
            rbh.push_back(b[gh + j]);
        }
    }
    auto xwType = RankedTensorType::get({rows, n}, rewriter.getF32Type());
    Value xwBuffer;
    {
      KernelCall call(rewriter, loc, threads);
      call.buffer(flatBuffer(rewriter, loc, rc.x, /*readOnly=*/true));
      call.i64(input);
      Value weights = packedConstant(rewriter, loc, op, "_w_packed", packedW);
      call.buffer(weights);
      call.buffer(bias ? packedConstant(rewriter, loc, op, "_w_bias", columnBias) : weights);
      call.i32(bias ? 1 : 0);
      call.buffer(weights);
      call.i32(0);
      xwBuffer = outputBuffer(rewriter, loc, xwType, symbolic ? ValueRange{rowsValue} : ValueRange{});
      call.buffer(xwBuffer);
      call.i64(rowsValue);
      call.i64(n);
      call.i64(input);
      call.activation(KernelActivation());
      call.partition();
      call.i32(target);
      call.emit(op, "gemm_packed_b");
    }
    Value xw = symbolic ? resultTensor(rewriter, loc, xwBuffer, xwType, {rowsValue})
                        : tensorFromFlatBuffer(rewriter, loc, xwBuffer, xwType);

    // 2. The recurrence, one unit of work per (direction, block of batch
    // rows).
    int64_t perDirR = k::packed_recurrent_r_floats(target, cell, lbr, hidden);
    std::vector<float> packedR(dirs * perDirR);
    for (int64_t d = 0; d < dirs; ++d)
      k::pack_recurrent_r(target, cell, lbr, r->data() + d * gh * hidden, hidden,
                          packedR.data() + d * perDirR);
    int64_t units = ShapedType::isDynamic(batch) ? threads
                                                 : dirs * ((batch + k::kRnnRows - 1) / k::kRnnRows);
    KernelCall call(rewriter, loc, std::min(threads, units));
    call.buffer(flatBuffer(rewriter, loc, xw, /*readOnly=*/true));
    Value rBuffer = packedConstant(rewriter, loc, op, "_r_packed", packedR);
    call.buffer(rBuffer);
    call.buffer(rbh.empty() ? rBuffer : packedConstant(rewriter, loc, op, "_rbh", rbh));
    call.i32(rbh.empty() ? 0 : 1);
    auto optionalInput = [&](Value v) {
      call.buffer(v ? flatBuffer(rewriter, loc, v, /*readOnly=*/true) : rBuffer);
      call.i32(v ? 1 : 0);
    };
    optionalInput(rc.peepholes);
    if (rc.seqLens) {
      call.buffer(flatBuffer(rewriter, loc, rc.seqLens, /*readOnly=*/true));
    } else {
      auto lensType = RankedTensorType::get({1}, rewriter.getI32Type());
      Value zero = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(lensType, rewriter.getI32IntegerAttr(0)));
      call.buffer(flatBuffer(rewriter, loc, zero, /*readOnly=*/true));
    }
    call.i32(rc.seqLens ? 1 : 0);
    optionalInput(rc.initialH);
    optionalInput(rc.initialC);
    // Outputs nothing reads are not written: the scratch stands in for them.
    Value scratch;
    if (ShapedType::isDynamic(batch)) {
      // The kernel's scratch per batch row times the rows, and 16 floats
      // more (a valid pointer for a batch of 0).
      Value floats = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(
              rewriter, loc, batchValue,
              indexConst(rewriter, loc,
                         k::recurrent_scratch_floats(target, cell, 1, hidden, dirs))),
          indexConst(rewriter, loc, 16));
      scratch = outputBuffer(rewriter, loc,
                             RankedTensorType::get({ShapedType::kDynamic}, rewriter.getF32Type()),
                             {floats});
    } else {
      scratch = scratchBuffer(rewriter, loc,
                              k::recurrent_scratch_floats(target, cell, batch, hidden, dirs));
    }
    SmallVector<Value> outBuffers;
    for (unsigned i = 0; i < 3; ++i) {
      RankedTensorType t = i < resultTypes.size() ? resultTypes[i] : RankedTensorType();
      Value buffer;
      if (t)
        buffer = outputBuffer(rewriter, loc, t, resultSizes[i]);
      outBuffers.push_back(buffer);
      call.buffer(buffer ? buffer : scratch);
      call.i32(buffer ? 1 : 0);
    }
    call.buffer(scratch);
    call.buffer(packedConstant(rewriter, loc, op, "_acts", acts));
    call.i64(seqValue);
    call.i64(batchValue);
    call.i64(hidden);
    call.i64(dirs);
    call.i32(cell);
    call.i32(rc.direction == "reverse" ? 1 : 0);
    call.i32(rc.batchMajor ? 1 : 0);
    call.i32(lbr ? 1 : 0);
    call.i32(rc.inputForget ? 1 : 0);
    call.f32(rc.clip ? static_cast<float>(rc.clip.getValueAsDouble()) : 0.0f);
    call.i32(rc.clip ? 1 : 0);
    call.partition();
    call.i32(target);
    call.emit(op, "recurrent");

    SmallVector<SmallVector<Value>> replacements;
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
      replacements.push_back(
          outBuffers[i] ? SmallVector<Value>{resultTensor(rewriter, loc, outBuffers[i],
                                                          resultTypes[i], resultSizes[i])}
                        : SmallVector<Value>{});
    rewriter.replaceOpWithMultiple(op, std::move(replacements));
    return success();
  }
};

} // namespace

bool recurrentKernelTakesSymbolicDims(Operation *op) {
  if (!isa<onnx::RNNOp, onnx::GRUOp, onnx::LSTMOp>(op) || op->getNumOperands() < 3)
    return false;
  auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!x || x.getRank() != 3 || x.isDynamicDim(2) || !x.getElementType().isF32())
    return false;
  for (unsigned i = 1; i < std::min<unsigned>(op->getNumOperands(), 4); ++i) {
    Value v = op->getOperand(i);
    if (i == 3 && isa<NoneType>(v.getType()))
      continue;
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !constantFloats(v))
      return false;
  }
  return true;
}

void populateRecurrentPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<onnx::RNNOp, Cell::Rnn>, RecurrentLowering<onnx::GRUOp, Cell::Gru>,
               RecurrentLowering<onnx::LSTMOp, Cell::Lstm>>(converter, patterns.getContext());
}

void populateRecurrentKernelPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns,
                                     int isa, int64_t threads) {
  patterns.add<RecurrentKernelLowering<onnx::RNNOp, Cell::Rnn>,
               RecurrentKernelLowering<onnx::GRUOp, Cell::Gru>,
               RecurrentKernelLowering<onnx::LSTMOp, Cell::Lstm>>(converter, patterns.getContext(),
                                                                  isa, threads);
}

} // namespace onnxcc::lowering
