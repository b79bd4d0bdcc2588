//===- Indexing.cpp - onnx ops to linalg: indexing family -----------------===//
//
// Ops whose element positions depend on runtime data (Gather*, Scatter*,
// OneHot) or on the position itself (Range, Trilu, EyeLike) become one
// linalg.generic each: loop positions come from linalg.index, runtime indices
// are read as inputs or with tensor.extract, and data is read with
// tensor.extract at the computed position. Negative indices wrap; indices out
// of range are clamped so that bad input can never read or write outside a
// buffer.
//
// Scatter ops have no destination-passing form in linalg, so each output
// element reduces over all updates (a reduction loop) and keeps the last
// match, or combines all matches for add/mul/max/min: exact ONNX semantics,
// at the cost of output size times update count.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

using BodyFn = function_ref<Value(OpBuilder &, Location, ArrayRef<Value> ivs, ValueRange args)>;

/// A linalg.generic writing a fresh tensor of `type` over `numLoops` loops;
/// the first `type.getRank()` loops are the result's dims (identity map), the
/// rest are reductions. `body` gets the loop indices and the block arguments
/// (inputs, then the current output element).
Value buildGeneric(OpBuilder &b, Location loc, RankedTensorType type, unsigned numLoops,
                   ValueRange inputs, ArrayRef<AffineMap> inputMaps, BodyFn body,
                   ValueRange dynamicSizes = {}) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.resize(numLoops, utils::IteratorType::reduction);
  Value init = emptyTensor(b, loc, type, dynamicSizes);
  auto generic = linalg::GenericOp::create(
      b, loc, type, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> ivs;
        for (unsigned d = 0; d < numLoops; ++d)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, d));
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, ivs, args));
      });
  return generic.getResult(0);
}

/// An integer index scalar of onnx type `elem` as an index.
Value toIndex(OpBuilder &b, Location loc, Value v, Type elem) {
  if (v.getType().isIndex())
    return v;
  if (isa<FloatType>(v.getType()))
    v = arith::FPToSIOp::create(b, loc, b.getI64Type(), v);
  else if (elem.isUnsignedInteger())
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// Clamps an index to [lo, hi] with compare and select (the emitted C++
/// then never mixes literal and int64_t operand types).
Value clampIndex(OpBuilder &b, Location loc, Value idx, int64_t lo, int64_t hi) {
  return lowering::clampIndex(b, loc, idx, indexConst(b, loc, lo), indexConst(b, loc, hi));
}

/// ONNX index semantics along a dim of size `dim`: negative counts from the
/// end. Out-of-range indices are an error in ONNX; clamping keeps every
/// access inside the buffer.
/// wrapIndex for a dim known at run time (a symbolic one, at least 1).
Value wrapIndex(OpBuilder &b, Location loc, Value idx, Value dim) {
  Value zero = indexConst(b, loc, 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  idx = arith::SelectOp::create(b, loc, negative, arith::AddIOp::create(b, loc, idx, dim), idx);
  Value last = arith::SubIOp::create(b, loc, dim, indexConst(b, loc, 1));
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, idx, zero), last);
}

Value wrapIndex(OpBuilder &b, Location loc, Value idx, int64_t dim) {
  Value zero = indexConst(b, loc, 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  Value shifted = arith::AddIOp::create(b, loc, idx, indexConst(b, loc, dim));
  idx = arith::SelectOp::create(b, loc, negative, shifted, idx);
  return clampIndex(b, loc, idx, 0, std::max<int64_t>(dim - 1, 0));
}

/// The same wrap, without the clamp: for comparisons against a position,
/// where an out-of-range index must simply match nothing.
Value wrapOnly(OpBuilder &b, Location loc, Value idx, int64_t dim) {
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, indexConst(b, loc, 0));
  Value shifted = arith::AddIOp::create(b, loc, idx, indexConst(b, loc, dim));
  return arith::SelectOp::create(b, loc, negative, shifted, idx);
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

AffineMap dimsMap(MLIRContext *ctx, unsigned numLoops, ArrayRef<AffineExpr> exprs) {
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

RankedTensorType rankedOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// True when every dim of `t` is nonzero.
bool nonEmpty(RankedTensorType t) { return !t.hasStaticShape() || t.getNumElements() != 0; }

//===----------------------------------------------------------------------===//
// Gather family
//===----------------------------------------------------------------------===//

/// The run-time size of a gather's symbolic `axis` of `data` (null when it
/// is static). Constant indices need it long enough (checkIndexValues, a
/// run-time check); indices read at run time need it not empty when there
/// are any: run() returns 9 (onnxcc_rt::check_at_least) for an empty axis
/// and indices to read it with, where every index would be out of range and
/// even the clamp has no element to read.
Value symbolicAxisSize(OpBuilder &b, Location loc, Operation *op, Value data, int64_t axis,
                       Value indices) {
  if (!rankedOf(data).isDynamicDim(axis))
    return {};
  Value size = tensor::DimOp::create(b, loc, data, axis);
  // The original op's indices operand (operand 1 of Gather and GatherElements).
  if (op->getOperand(1).getDefiningOp<onnx::ConstantOp>())
    return size;
  Value count = dimProduct(b, loc, indices, 0, rankedOf(indices).getRank());
  if (auto c = getConstantIntValue(count); c && *c == 0)
    return size;
  checkDims(b, loc, op, "at_least", size,
            arith::MinUIOp::create(b, loc, count, indexConst(b, loc, 1)));
  return size;
}

/// Gather: out[a.., i.., b..] = data[a.., wrap(indices[i..]), b..].
struct GatherLowering : OpConversionPattern<onnx::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = rankedOf(data);
    auto indType = rankedOf(indices);
    int64_t r = dataType.getRank(), q = indType.getRank();
    auto axis = normalizeAxis(op.getAxis(), r);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (type.getRank() != r - 1 + q)
      return rewriter.notifyMatchFailure(op, "result rank is not r - 1 + q");
    Location loc = op.getLoc();
    if (!nonEmpty(type)) {
      rewriter.replaceOp(op, tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                     type.getElementType()));
      return success();
    }
    if (dataType.getDimSize(*axis) == 0)
      return rewriter.notifyMatchFailure(op, "gathers from an empty axis");
    MLIRContext *ctx = getContext();
    unsigned loops = type.getRank();
    SmallVector<AffineExpr> indExprs;
    for (int64_t i = 0; i < q; ++i)
      indExprs.push_back(getAffineDimExpr(*axis + i, ctx));
    Type indElem = onnxElementType(op.getIndices());
    int64_t axisDim = dataType.getDimSize(*axis);
    Value axisSize = symbolicAxisSize(rewriter, loc, op, data, *axis, indices);
    Value result = buildGeneric(
        rewriter, loc, type, loops, indices, dimsMap(ctx, loops, indExprs),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange args) -> Value {
          SmallVector<Value> at(ivs.take_front(*axis));
          Value idx = toIndex(b, l, args[0], indElem);
          at.push_back(axisSize ? wrapIndex(b, l, idx, axisSize) : wrapIndex(b, l, idx, axisDim));
          llvm::append_range(at, ivs.drop_front(*axis + q));
          return tensor::ExtractOp::create(b, l, data, at);
        },
        typeAndSizes->second);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherElements: out[p] = data[p with p[axis] = wrap(indices[p])].
struct GatherElementsLowering : OpConversionPattern<onnx::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::GatherElementsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = rankedOf(data);
    auto indType = rankedOf(indices);
    int64_t r = dataType.getRank();
    auto axis = normalizeAxis(op.getAxis(), r);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (indType.getShape() != type.getShape() || indType.getRank() != r)
      return rewriter.notifyMatchFailure(op, "result must have the indices' shape");
    // A symbolic data dim is at least the indices' (checked at run time:
    // checkElementsShape).
    for (int64_t d = 0; d < r; ++d)
      if (d != *axis && !dataType.isDynamicDim(d) &&
          indType.getDimSize(d) > dataType.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "indices exceed data outside the axis");
    Location loc = op.getLoc();
    if (!nonEmpty(type)) {
      rewriter.replaceOp(op, tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                     type.getElementType()));
      return success();
    }
    if (dataType.getDimSize(*axis) == 0)
      return rewriter.notifyMatchFailure(op, "gathers from an empty axis");
    MLIRContext *ctx = getContext();
    Type indElem = onnxElementType(op.getIndices());
    int64_t axisDim = dataType.getDimSize(*axis);
    Value axisSize = symbolicAxisSize(rewriter, loc, op, data, *axis, indices);
    Value result = buildGeneric(
        rewriter, loc, type, r, indices, AffineMap::getMultiDimIdentityMap(r, ctx),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange args) -> Value {
          SmallVector<Value> at(ivs);
          Value idx = toIndex(b, l, args[0], indElem);
          at[*axis] = axisSize ? wrapIndex(b, l, idx, axisSize) : wrapIndex(b, l, idx, axisDim);
          return tensor::ExtractOp::create(b, l, data, at);
        },
        typeAndSizes->second);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherND: out[b.., i.., rest..] = data[b.., indices[b.., i.., 0..m-1], rest..].
/// The dims of indices before the tuples may be symbolic (the boxes that
/// NonMaxSuppression selected); data and the tuple length are static.
struct GatherNDLowering : OpConversionPattern<onnx::GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::GatherNDOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = rankedOf(data);
    auto indType = rankedOf(indices);
    if (!dataType.hasStaticShape() || indType.isDynamicDim(indType.getRank() - 1))
      return rewriter.notifyMatchFailure(op, "data and the index tuple length must be static");
    int64_t r = dataType.getRank(), q = indType.getRank(), batch = op.getBatchDims();
    if (q < 1 || batch < 0 || batch >= std::min(r, q))
      return rewriter.notifyMatchFailure(op, "batch_dims must be below both ranks");
    int64_t m = indType.getDimSize(q - 1);
    if (m < 1 || batch + m > r)
      return rewriter.notifyMatchFailure(op, "index tuples longer than data rank");
    for (int64_t d = 0; d < batch; ++d)
      if (dataType.getDimSize(d) != indType.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "batch dims of data and indices differ");
    if (type.getRank() != q - 1 + r - batch - m)
      return rewriter.notifyMatchFailure(op, "unexpected result rank");
    Location loc = op.getLoc();
    if (type.hasStaticShape() && !nonEmpty(type)) {
      rewriter.replaceOp(op, tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                     type.getElementType()));
      return success();
    }
    MLIRContext *ctx = getContext();
    unsigned loops = type.getRank();
    // One input per tuple component: indices[i.., k] with k a constant.
    SmallVector<Value> inputs(m, indices);
    SmallVector<AffineMap> maps;
    for (int64_t k = 0; k < m; ++k) {
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < q - 1; ++d)
        exprs.push_back(getAffineDimExpr(d, ctx));
      exprs.push_back(getAffineConstantExpr(k, ctx));
      maps.push_back(dimsMap(ctx, loops, exprs));
    }
    Type indElem = onnxElementType(op.getIndices());
    Value result = buildGeneric(
        rewriter, loc, type, loops, inputs, maps,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange args) -> Value {
          SmallVector<Value> at(ivs.take_front(batch));
          for (int64_t k = 0; k < m; ++k)
            at.push_back(wrapIndex(b, l, toIndex(b, l, args[k], indElem),
                                   dataType.getDimSize(batch + k)));
          llvm::append_range(at, ivs.drop_front(q - 1));
          return tensor::ExtractOp::create(b, l, data, at);
        },
        typeAndSizes->second);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scatter family
//===----------------------------------------------------------------------===//

/// Combines the current element with a matching update per `reduction`.
Value combine(OpBuilder &b, Location loc, StringRef reduction, Value acc, Value update,
              Type elem) {
  bool isFloat = isa<FloatType>(elem);
  bool isUnsigned = elem.isUnsignedInteger();
  if (reduction == "add")
    return isFloat ? Value(arith::AddFOp::create(b, loc, acc, update))
                   : Value(arith::AddIOp::create(b, loc, acc, update));
  if (reduction == "mul")
    return isFloat ? Value(arith::MulFOp::create(b, loc, acc, update))
                   : Value(arith::MulIOp::create(b, loc, acc, update));
  if (reduction == "max") {
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, acc, update);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, acc, update))
                      : Value(arith::MaxSIOp::create(b, loc, acc, update));
  }
  if (reduction == "min") {
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, acc, update);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, acc, update))
                      : Value(arith::MinSIOp::create(b, loc, acc, update));
  }
  return update;
}

LogicalResult checkReduction(StringRef reduction, Type elem) {
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return failure();
  // add/mul on booleans has no ONNX meaning worth guessing.
  if (reduction != "none" && elem.isInteger(1))
    return failure();
  return success();
}

/// The element an output position starts from: `data` on the first
/// iteration of the reduction loops (the generic writes a fresh tensor, never
/// the input buffer), the running value after.
Value startValue(OpBuilder &b, Location loc, ArrayRef<Value> reductionIvs, Value dataElem,
                 Value acc) {
  if (reductionIvs.empty())
    return dataElem;
  Value zero = indexConst(b, loc, 0);
  Value first;
  for (Value iv : reductionIvs) {
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, iv, zero);
    first = first ? Value(arith::AndIOp::create(b, loc, first, isZero)) : isZero;
  }
  return arith::SelectOp::create(b, loc, first, dataElem, acc);
}

/// ScatterElements: for each output position p, loop k over the updates'
/// axis; the update at (p with p[axis] = k) lands on p when its index is
/// p[axis] (and p lies inside the updates' shape off the axis).
struct ScatterElementsLowering : OpConversionPattern<onnx::ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ScatterElementsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value data = adaptor.getData(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto dataType = rankedOf(data);
    auto indType = rankedOf(indices);
    int64_t r = dataType.getRank();
    auto axis = normalizeAxis(op.getAxis(), r);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (type.getShape() != dataType.getShape() || indType.getRank() != r ||
        rankedOf(updates).getShape() != indType.getShape())
      return rewriter.notifyMatchFailure(op, "shapes of data, indices and updates disagree");
    for (int64_t d = 0; d < r; ++d)
      if (d != *axis && indType.getDimSize(d) > dataType.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "updates exceed data outside the axis");
    StringRef reduction = op.getReduction();
    Type elem = onnxElementType(op.getData());
    if (failed(checkReduction(reduction, elem)))
      return rewriter.notifyMatchFailure(op, "unsupported reduction");
    if (!nonEmpty(indType) || !nonEmpty(type)) {
      rewriter.replaceOp(op, data);
      return success();
    }
    MLIRContext *ctx = getContext();
    Location loc = op.getLoc();
    Type indElem = onnxElementType(op.getIndices());
    int64_t axisDim = dataType.getDimSize(*axis);
    // The reduction loop's bound comes from a 1-D view of the indices along
    // the axis, an input the body does not read.
    Value along = indices;
    if (r > 1) {
      SmallVector<int64_t> offsets(r, 0), sizes(r, 1), strides(r, 1);
      sizes[*axis] = indType.getDimSize(*axis);
      along = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({sizes[*axis]}, indType.getElementType()),
          indices, ValueRange{}, ValueRange{}, ValueRange{}, offsets, sizes, strides);
    }
    SmallVector<AffineMap> maps{
        dimsMap(ctx, r + 1, AffineMap::getMultiDimIdentityMap(r, ctx).getResults()),
        dimsMap(ctx, r + 1, getAffineDimExpr(r, ctx))};
    Value result = buildGeneric(
        rewriter, loc, type, r + 1, ValueRange{data, along}, maps,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange args) -> Value {
          Value acc = startValue(b, l, ivs.drop_front(r), args[0], args.back());
          // Position in indices/updates: p off the axis (clamped; guarded
          // below), k on it.
          SmallVector<Value> at;
          Value inside;
          for (int64_t d = 0; d < r; ++d) {
            if (d == *axis) {
              at.push_back(ivs[r]);
              continue;
            }
            int64_t size = indType.getDimSize(d);
            if (size == dataType.getDimSize(d)) {
              at.push_back(ivs[d]);
              continue;
            }
            Value bound = indexConst(b, l, size);
            Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, ivs[d], bound);
            inside = inside ? Value(arith::AndIOp::create(b, l, inside, ok)) : ok;
            at.push_back(clampIndex(b, l, ivs[d], 0, size - 1));
          }
          Value idx = tensor::ExtractOp::create(b, l, indices, at);
          idx = wrapOnly(b, l, toIndex(b, l, idx, indElem), axisDim);
          Value match = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, idx, ivs[*axis]);
          if (inside)
            match = arith::AndIOp::create(b, l, match, inside);
          Value update = tensor::ExtractOp::create(b, l, updates, at);
          Value next = combine(b, l, reduction, acc, update, elem);
          return arith::SelectOp::create(b, l, match, next, acc);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ScatterND: for each output position p, loop j over the index tuples; the
/// update slice j lands on p when tuple j equals p's leading m coordinates.
struct ScatterNDLowering : OpConversionPattern<onnx::ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ScatterNDOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value data = adaptor.getData(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto dataType = rankedOf(data);
    auto indType = rankedOf(indices);
    auto updType = rankedOf(updates);
    int64_t r = dataType.getRank(), q = indType.getRank();
    if (q < 1 || type.getShape() != dataType.getShape())
      return rewriter.notifyMatchFailure(op, "indices must be at least 1-D");
    int64_t m = indType.getDimSize(q - 1);
    if (m > r)
      return rewriter.notifyMatchFailure(op, "index tuples longer than data rank");
    SmallVector<int64_t> expected(indType.getShape().drop_back());
    llvm::append_range(expected, dataType.getShape().drop_front(m));
    if (updType.getShape() != ArrayRef<int64_t>(expected))
      return rewriter.notifyMatchFailure(op, "updates shape must be indices[:-1] + data[m:]");
    StringRef reduction = op.getReduction();
    Type elem = onnxElementType(op.getData());
    if (failed(checkReduction(reduction, elem)))
      return rewriter.notifyMatchFailure(op, "unsupported reduction");
    if (!nonEmpty(updType) || !nonEmpty(type)) {
      rewriter.replaceOp(op, data);
      return success();
    }
    MLIRContext *ctx = getContext();
    unsigned loops = r + q - 1;
    // Inputs: data (identity), updates[j.., p[m..]], indices[j.., k] per k.
    SmallVector<Value> inputs{data, updates};
    SmallVector<AffineMap> maps;
    maps.push_back(dimsMap(ctx, loops, AffineMap::getMultiDimIdentityMap(r, ctx).getResults()));
    SmallVector<AffineExpr> updExprs;
    for (int64_t j = 0; j < q - 1; ++j)
      updExprs.push_back(getAffineDimExpr(r + j, ctx));
    for (int64_t d = m; d < r; ++d)
      updExprs.push_back(getAffineDimExpr(d, ctx));
    maps.push_back(dimsMap(ctx, loops, updExprs));
    for (int64_t k = 0; k < m; ++k) {
      SmallVector<AffineExpr> exprs;
      for (int64_t j = 0; j < q - 1; ++j)
        exprs.push_back(getAffineDimExpr(r + j, ctx));
      exprs.push_back(getAffineConstantExpr(k, ctx));
      inputs.push_back(indices);
      maps.push_back(dimsMap(ctx, loops, exprs));
    }
    Type indElem = onnxElementType(op.getIndices());
    Value result = buildGeneric(
        rewriter, op.getLoc(), type, loops, inputs, maps,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange args) -> Value {
          Value acc = startValue(b, l, ivs.drop_front(r), args[0], args.back());
          Value match;
          for (int64_t k = 0; k < m; ++k) {
            Value idx = wrapOnly(b, l, toIndex(b, l, args[2 + k], indElem),
                                 dataType.getDimSize(k));
            Value eq = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, idx, ivs[k]);
            match = match ? Value(arith::AndIOp::create(b, l, match, eq)) : eq;
          }
          Value next = combine(b, l, reduction, acc, args[1], elem);
          if (!match)
            return next;
          return arith::SelectOp::create(b, l, match, next, acc);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Range, Trilu, OneHot, EyeLike
//===----------------------------------------------------------------------===//

} // namespace

Value buildRangeElement(OpBuilder &b, Location loc, Value i, Value start, Value delta,
                        Type elem) {
  if (isa<FloatType>(elem)) {
    i = arith::SIToFPOp::create(b, loc, elem, i);
    return arith::AddFOp::create(b, loc, start, arith::MulFOp::create(b, loc, i, delta));
  }
  if (elem.getIntOrFloatBitWidth() < 64)
    i = arith::TruncIOp::create(b, loc, elem, i);
  return arith::AddIOp::create(b, loc, start, arith::MulIOp::create(b, loc, i, delta));
}

namespace {

/// Range: out[i] = start + i * delta; its length was fixed by shape
/// inference, start and delta are read at run time.
struct RangeLowering : OpConversionPattern<onnx::RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::RangeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    if (type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "result must be 1-D");
    if (rankedOf(adaptor.getStart()).getNumElements() != 1 ||
        rankedOf(adaptor.getDelta()).getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "start and delta must be scalars");
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    bool atRunTime = !matchPattern(adaptor.getStart(), m_Constant()) ||
                     !matchPattern(adaptor.getLimit(), m_Constant()) ||
                     !matchPattern(adaptor.getDelta(), m_Constant());
    bool countAtRunTime = (type.hasStaticShape() && atRunTime) ||
                          (op->hasAttr("onnxcc.data_dims") && type.isDynamicDim(0));
    if (countAtRunTime && rankedOf(adaptor.getLimit()).getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "limit must be a scalar");
    if (type.hasStaticShape() && atRunTime) {
      // A length the model declares for values known only at run time:
      // run() returns 9 unless they give it.
      checkDeclaredDim(rewriter, loc, op, count(rewriter, loc, op, adaptor, elem),
                       type.getDimSize(0));
    }
    if (type.hasStaticShape() && !nonEmpty(type)) {
      rewriter.replaceOp(op, tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                     type.getElementType()));
      return success();
    }
    Value start = scalarOf(rewriter, loc, adaptor.getStart());
    Value delta = scalarOf(rewriter, loc, adaptor.getDelta());
    SmallVector<Value> sizes = typeAndSizes->second;
    if (op->hasAttr("onnxcc.data_dims") && type.isDynamicDim(0)) {
      Value n = onnxConverter(getTypeConverter())
                    .defineDataDim(rewriter, loc, op, 0, count(rewriter, loc, op, adaptor, elem));
      if (!n)
        return rewriter.notifyMatchFailure(op, "its length has no bound");
      sizes = {n};
    }
    Value result = buildGeneric(
        rewriter, loc, type, 1, {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange) -> Value {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[0]);
          return buildRangeElement(b, l, i, start, delta, elem);
        },
        sizes);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The length the values give, as an index: max(ceil((limit - start) /
  /// delta), 0). A zero delta (invalid) makes run() return 9 and counts 0;
  /// a float count is capped at 2^62 (NaN counts 0), so that no conversion
  /// overflows.
  static Value count(ConversionPatternRewriter &rewriter, Location loc, onnx::RangeOp op,
                     OpAdaptor adaptor, Type elem) {
    Value start = scalarOf(rewriter, loc, adaptor.getStart());
    Value delta = scalarOf(rewriter, loc, adaptor.getDelta());
    Value limit = scalarOf(rewriter, loc, adaptor.getLimit());
    Type i64 = rewriter.getI64Type();
    Value count;
    if (isa<FloatType>(elem)) {
      Value zero = floatConst(rewriter, loc, elem, 0.0);
      Value isZero = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ, delta, zero);
      checkDeclaredDim(rewriter, loc, op, isZero, 0);
      Value span = arith::SubFOp::create(rewriter, loc, limit, start);
      Value n = math::CeilOp::create(rewriter, loc, arith::DivFOp::create(rewriter, loc, span, delta));
      Value positive = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, n, zero);
      n = arith::SelectOp::create(rewriter, loc, positive, n, zero);
      // 2^62 is exact in every float type whose range reaches it (the
      // others cannot exceed it).
      const llvm::fltSemantics &sem = cast<FloatType>(elem).getFloatSemantics();
      if (llvm::APFloat::getLargest(sem).convertToDouble() > 4611686018427387904.0) {
        Value cap = floatConst(rewriter, loc, elem, 4611686018427387904.0);
        Value above = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, n, cap);
        n = arith::SelectOp::create(rewriter, loc, above, cap, n);
      }
      count = arith::FPToSIOp::create(rewriter, loc, i64, n);
    } else {
      // In i64: ceil(span / delta) as a truncating division of span + delta
      // - 1 (delta > 0) or span + delta + 1 (delta < 0); negative counts are
      // 0.
      if (!elem.isInteger(64)) {
        start = arith::ExtSIOp::create(rewriter, loc, i64, start);
        limit = arith::ExtSIOp::create(rewriter, loc, i64, limit);
        delta = arith::ExtSIOp::create(rewriter, loc, i64, delta);
      }
      Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
      Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
      Value isZero = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, delta, zero);
      checkDeclaredDim(rewriter, loc, op, isZero, 0);
      delta = arith::SelectOp::create(rewriter, loc, isZero, one, delta);
      Value span = arith::SubIOp::create(rewriter, loc, limit, start);
      span = arith::SelectOp::create(rewriter, loc, isZero, zero, span);
      Value up = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt, delta, zero);
      Value adjust = arith::SelectOp::create(rewriter, loc, up,
                                             arith::SubIOp::create(rewriter, loc, delta, one),
                                             arith::AddIOp::create(rewriter, loc, delta, one));
      Value n = arith::DivSIOp::create(rewriter, loc,
                                       arith::AddIOp::create(rewriter, loc, span, adjust), delta);
      count = arith::MaxSIOp::create(rewriter, loc, n, zero);
    }
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), count);
  }
};

/// Trilu: keeps the elements with j - i >= k (upper) or j - i <= k (lower)
/// in the last two dims, zeroes the rest.
struct TriluLowering : OpConversionPattern<onnx::TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::TriluOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value input = adaptor.getInput();
    int64_t r = type.getRank();
    if (r < 2 || rankedOf(input).getShape() != type.getShape())
      return rewriter.notifyMatchFailure(op, "input must be at least 2-D, shaped as the result");
    Location loc = op.getLoc();
    if (type.hasStaticShape() && !nonEmpty(type)) {
      rewriter.replaceOp(op, input);
      return success();
    }
    Value k = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), 0);
    if (!isa<NoneType>(adaptor.getK().getType())) {
      auto kType = rankedOf(adaptor.getK());
      if (kType.getNumElements() != 1 || !kType.getElementType().isInteger(64))
        return rewriter.notifyMatchFailure(op, "k must be one int64");
      k = scalarOf(rewriter, loc, adaptor.getK());
    }
    bool upper = op.getUpper() != 0;
    MLIRContext *ctx = getContext();
    Value result = buildGeneric(
        rewriter, loc, type, r, input, AffineMap::getMultiDimIdentityMap(r, ctx),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange args) -> Value {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[r - 2]);
          Value j = arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[r - 1]);
          Value diff = arith::SubIOp::create(b, l, j, i);
          Value keep = arith::CmpIOp::create(
              b, l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, diff, k);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(args[0].getType()));
          return arith::SelectOp::create(b, l, keep, args[0], zero);
        },
        typeAndSizes->second);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// OneHot: out[.., c, ..] = (wrap(indices[..]) == c) ? on : off, with c at
/// `axis`; depth is the result's dim there (fixed by shape inference).
struct OneHotLowering : OpConversionPattern<onnx::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::OneHotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    SmallVector<Value> sizes(typeAndSizes->second);
    Value indices = adaptor.getIndices(), values = adaptor.getValues();
    int64_t r = type.getRank();
    auto indType = rankedOf(indices);
    if (indType.getRank() != r - 1)
      return rewriter.notifyMatchFailure(op, "result rank must be indices rank + 1");
    auto axis = normalizeAxis(op.getAxis(), r);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    auto valType = rankedOf(values);
    if (valType.getRank() != 1 || valType.getDimSize(0) != 2 ||
        valType.getElementType() != type.getElementType())
      return rewriter.notifyMatchFailure(op, "values must be [off, on] of the result type");
    Location loc = op.getLoc();
    // A depth known only at run time: run() returns 9 unless it is the
    // declared one, or below 1; where the dim is open it is the data's.
    Value depthValue;
    if (!matchPattern(adaptor.getDepth(), m_Constant())) {
      Value depth = scalarOf(rewriter, loc, adaptor.getDepth());
      if (isa<FloatType>(depth.getType()))
        depth = arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(), depth);
      else if (!depth.getType().isInteger(64))
        depth = arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), depth);
      if (!type.isDynamicDim(*axis)) {
        checkDeclaredDim(rewriter, loc, op, depth, type.getDimSize(*axis));
      } else if (op->hasAttr("onnxcc.data_dims")) {
        checkDims(rewriter, loc, op, "at_least", depth,
                  arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), 1));
        depthValue = onnxConverter(getTypeConverter())
                         .defineDataDim(rewriter, loc, op, 0,
                                        arith::IndexCastOp::create(
                                            rewriter, loc, rewriter.getIndexType(), depth));
        if (!depthValue)
          return rewriter.notifyMatchFailure(op, "its depth has no bound");
        sizes[type.getDynamicDimIndex(*axis)] = depthValue;
      }
    }
    if (type.isDynamicDim(*axis) && !depthValue)
      return rewriter.notifyMatchFailure(op, "its depth is not known");
    if (type.hasStaticShape() && !nonEmpty(type)) {
      rewriter.replaceOp(op, tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                     type.getElementType()));
      return success();
    }
    Value off = tensor::ExtractOp::create(rewriter, loc, values,
                                          ValueRange{indexConst(rewriter, loc, 0)});
    Value on = tensor::ExtractOp::create(rewriter, loc, values,
                                         ValueRange{indexConst(rewriter, loc, 1)});
    MLIRContext *ctx = getContext();
    SmallVector<AffineExpr> indExprs;
    for (int64_t d = 0; d < r; ++d)
      if (d != *axis)
        indExprs.push_back(getAffineDimExpr(d, ctx));
    Type indElem = onnxElementType(op.getIndices());
    Value result = buildGeneric(
        rewriter, loc, type, r, indices, dimsMap(ctx, r, indExprs),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange args) -> Value {
          Value idx = toIndex(b, l, args[0], indElem);
          // Negative indices count from the back of the depth.
          Value depth = depthValue ? depthValue : indexConst(b, l, type.getDimSize(*axis));
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, idx, indexConst(b, l, 0));
          idx = arith::SelectOp::create(b, l, negative, arith::AddIOp::create(b, l, idx, depth),
                                        idx);
          Value hot = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, idx, ivs[*axis]);
          return arith::SelectOp::create(b, l, hot, on, off);
        },
        sizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// EyeLike: ones on the k-th diagonal (j == i + k), zeros elsewhere.
struct EyeLikeLowering : OpConversionPattern<onnx::EyeLikeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::EyeLikeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    if (type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "EyeLike needs a 2-D input");
    Location loc = op.getLoc();
    if (!nonEmpty(type)) {
      rewriter.replaceOp(op, tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                     type.getElementType()));
      return success();
    }
    int64_t k = op.getK();
    Type elem = type.getElementType();
    Value result = buildGeneric(
        rewriter, loc, type, 2, {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange) -> Value {
          Value shifted = arith::AddIOp::create(b, l, ivs[0], indexConst(b, l, k));
          Value onDiag = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, ivs[1], shifted);
          TypedAttr one = isa<FloatType>(elem) ? TypedAttr(b.getFloatAttr(elem, 1.0))
                                               : TypedAttr(b.getIntegerAttr(elem, 1));
          Value oneV = arith::ConstantOp::create(b, l, one);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(elem));
          return arith::SelectOp::create(b, l, onDiag, oneV, zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateIndexingPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GatherLowering, GatherElementsLowering, GatherNDLowering,
               ScatterElementsLowering, ScatterNDLowering, RangeLowering, TriluLowering,
               OneHotLowering, EyeLikeLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
