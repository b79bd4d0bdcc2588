//===- DataDependent.cpp - Ops whose result dims depend on the data ------===//
//
// NonZero and the ops like it produce results whose dims are known only once
// their inputs' values are: shape inference names each such dim (a symbol
// the op defines at run time, with an upper bound in the inputs' symbols,
// onnx::ShapeContext::dataDim), the lowering here computes its value and
// gives it to OnnxTypeConverter::defineDataDim, and every op after it reads
// the dim as it reads an input's symbol. Buffers take the bound's room.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// `x` as a 1-D tensor of its elements in row-major order.
Value flatten(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t n = type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
  auto flatType = RankedTensorType::get({n}, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flatType, x, ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(b, loc, flatType, x, ArrayRef<ReassociationIndices>{all});
}

/// The sizes of `x`'s dims as index values.
SmallVector<Value> dimSizes(OpBuilder &b, Location loc, Value x) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < cast<RankedTensorType>(x.getType()).getRank(); ++d)
    sizes.push_back(tensor::DimOp::create(b, loc, x, d));
  return sizes;
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  Value p = indexConst(b, loc, 1);
  for (Value s : sizes)
    p = arith::MulIOp::create(b, loc, p, s);
  return p;
}

/// `v != 0` (NaN counts as non-zero, as ONNX Runtime has it).
Value isNonZero(OpBuilder &b, Location loc, Value v) {
  if (isa<FloatType>(v.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                 floatConst(b, loc, v.getType(), 0.0));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

/// NonZero: one pass counts, a second writes each non-zero element's
/// coordinates into column `count` so far of a [rank, n + 1] tensor; a zero
/// element writes to the spare last column instead, so that no write depends
/// on a branch. The result is the first n columns.
struct NonZeroLowering : OpConversionPattern<onnx::NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::NonZeroOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType)
      return rewriter.notifyMatchFailure(op, "input is not ranked");
    Location loc = op.getLoc();
    int64_t rank = xType.getRank();
    SmallVector<Value> sizes = dimSizes(rewriter, loc, x);
    Value numel = product(rewriter, loc, sizes);
    Value flat = flatten(rewriter, loc, x);
    Value zero = indexConst(rewriter, loc, 0), one = indexConst(rewriter, loc, 1);

    auto counted = scf::ForOp::create(
        rewriter, loc, zero, numel, one, ValueRange{zero},
        [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
          Value nz = isNonZero(b, l, tensor::ExtractOp::create(b, l, flat, i));
          Value add = arith::SelectOp::create(b, l, nz, indexConst(b, l, 1), indexConst(b, l, 0));
          scf::YieldOp::create(b, l, Value(arith::AddIOp::create(b, l, acc[0], add)));
        });
    Value n = onnxConverter(getTypeConverter())
                  .defineDataDim(rewriter, loc, op, 0, counted.getResult(0));
    if (!n)
      return rewriter.notifyMatchFailure(op, "its count has no bound");

    Type i64 = rewriter.getI64Type();
    Value spare = arith::AddIOp::create(rewriter, loc, n, one);
    auto scratchType = RankedTensorType::get({rank, ShapedType::kDynamic}, i64);
    Value scratch = emptyTensor(rewriter, loc, scratchType, ValueRange{spare});
    auto filled = scf::ForOp::create(
        rewriter, loc, zero, numel, one, ValueRange{scratch, zero},
        [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
          Value nz = isNonZero(b, l, tensor::ExtractOp::create(b, l, flat, i));
          Value column = arith::SelectOp::create(b, l, nz, acc[1], n);
          Value out = acc[0];
          Value rest = i;
          for (int64_t d = rank - 1; d >= 0; --d) {
            Value coord = arith::RemUIOp::create(b, l, rest, sizes[d]);
            rest = arith::DivUIOp::create(b, l, rest, sizes[d]);
            out = tensor::InsertOp::create(b, l, arith::IndexCastOp::create(b, l, i64, coord), out,
                                           ValueRange{indexConst(b, l, d), column});
          }
          Value next = arith::AddIOp::create(
              b, l, acc[1],
              arith::SelectOp::create(b, l, nz, indexConst(b, l, 1), indexConst(b, l, 0)));
          scf::YieldOp::create(b, l, ValueRange{out, next});
        });
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> resultSizes = {rewriter.getIndexAttr(rank), n};
    SmallVector<OpFoldResult> strides = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
    auto resultType = RankedTensorType::get({rank, ShapedType::kDynamic}, i64);
    Value result = tensor::ExtractSliceOp::create(rewriter, loc, resultType, filled.getResult(0),
                                                  offsets, resultSizes, strides);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Compress: the input as [outer, dim, inner] slices along the axis (the
/// flattened input without one); a first pass numbers the kept positions
/// of the condition, a second writes each element at its slice's number,
/// or into a spare slice past the last for a dropped one (no branch).
struct CompressLowering : OpConversionPattern<onnx::CompressOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::CompressOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput(), condition = adaptor.getCondition();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto condType = dyn_cast<RankedTensorType>(condition.getType());
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    if (!xType || !condType || condType.getRank() != 1 || !resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked input and a 1-D condition");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
    SmallVector<Value> sizes = dimSizes(b, loc, x);
    int64_t rank = xType.getRank();
    int64_t axis = 0;
    if (op.getAxis()) {
      axis = static_cast<int64_t>(*op.getAxis());
      if (axis < 0)
        axis += rank;
      if (axis < 0 || axis >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
    } else {
      x = flatten(b, loc, x);
      sizes = {product(b, loc, sizes)};
      rank = 1;
    }
    Value outer = product(b, loc, ArrayRef<Value>(sizes).take_front(axis));
    Value inner = product(b, loc, ArrayRef<Value>(sizes).drop_front(axis + 1));
    Value dim = sizes[axis];
    // The condition's positions past its end are dropped.
    Value usable = arith::MinUIOp::create(b, loc, dim, tensor::DimOp::create(b, loc, condition, 0));

    // slot[j]: the number of kept positions before j, or the spare slot.
    auto slotsType = RankedTensorType::get({ShapedType::kDynamic}, b.getIndexType());
    Value slots = emptyTensor(b, loc, slotsType, ValueRange{dim});
    auto numbered = scf::ForOp::create(
        b, loc, zero, dim, one, ValueRange{slots, zero},
        [&](OpBuilder &nb, Location l, Value j, ValueRange acc) {
          Value inRange = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, j, usable);
          Value at = arith::SelectOp::create(nb, l, inRange, j, indexConst(nb, l, 0));
          Value keep = arith::AndIOp::create(
              nb, l, inRange, tensor::ExtractOp::create(nb, l, condition, ValueRange{at}));
          Value slot = arith::SelectOp::create(nb, l, keep, acc[1], indexConst(nb, l, -1));
          Value next = arith::AddIOp::create(
              nb, l, acc[1],
              arith::SelectOp::create(nb, l, keep, indexConst(nb, l, 1), indexConst(nb, l, 0)));
          scf::YieldOp::create(
              nb, l, ValueRange{tensor::InsertOp::create(nb, l, slot, acc[0], ValueRange{j}), next});
        });
    Value n = onnxConverter(getTypeConverter())
                  .defineDataDim(b, loc, op, 0, numbered.getResult(1));
    if (!n)
      return rewriter.notifyMatchFailure(op, "its count has no bound");
    slots = numbered.getResult(0);

    // The kept elements densely, [outer, n, inner] flat, then a spare
    // block of `inner` that dropped elements go to.
    Type elem = xType.getElementType();
    Value keptCount = product(b, loc, {outer, n, inner});
    Value scratch = emptyTensor(b, loc, RankedTensorType::get({ShapedType::kDynamic}, elem),
                                ValueRange{arith::AddIOp::create(b, loc, keptCount, inner)});
    Value flatX = flatten(b, loc, x);
    Value total = product(b, loc, {outer, dim, inner});
    auto filled = scf::ForOp::create(
        b, loc, zero, total, one, ValueRange{scratch},
        [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
          Value k = arith::RemUIOp::create(nb, l, i, inner);
          Value rest = arith::DivUIOp::create(nb, l, i, inner);
          Value j = arith::RemUIOp::create(nb, l, rest, dim);
          Value o = arith::DivUIOp::create(nb, l, rest, dim);
          Value slot = tensor::ExtractOp::create(nb, l, slots, ValueRange{j});
          Value dropped = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, slot,
                                                indexConst(nb, l, 0));
          // (o * n + slot) * inner + k, or keptCount + k.
          Value at = arith::AddIOp::create(
              nb, l,
              arith::MulIOp::create(
                  nb, l, arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, o, n), slot),
                  inner),
              k);
          at = arith::SelectOp::create(nb, l, dropped,
                                       arith::AddIOp::create(nb, l, keptCount, k), at);
          Value v = tensor::ExtractOp::create(nb, l, flatX, ValueRange{i});
          scf::YieldOp::create(
              nb, l, Value(tensor::InsertOp::create(nb, l, v, acc[0], ValueRange{at})));
        });
    Value result = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({ShapedType::kDynamic}, elem), filled.getResult(0),
        ArrayRef<OpFoldResult>{b.getIndexAttr(0)}, ArrayRef<OpFoldResult>{keptCount},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    SmallVector<OpFoldResult> resultSizes;
    ReassociationIndices all;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      all.push_back(d);
      if (!resultType.isDynamicDim(d))
        resultSizes.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      else
        resultSizes.push_back(d == axis ? OpFoldResult(n) : OpFoldResult(sizes[d]));
    }
    result = tensor::ExpandShapeOp::create(b, loc, resultType, result,
                                           ArrayRef<ReassociationIndices>{all}, resultSizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The C++ type runtime-support's templates take for element type `t` of
/// onnx value `v` (unsigned where the ONNX type is), or "".
std::string cElementType(Type t, Value v) {
  bool isUnsigned = isUnsignedInt(onnxElementType(v));
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isInteger(1))
    return "bool";
  if (auto i = dyn_cast<IntegerType>(t))
    if (llvm::is_contained({8u, 16u, 32u, 64u}, i.getWidth()))
      return (isUnsigned ? "uint" : "int") + std::to_string(i.getWidth()) + "_t";
  return "";
}

/// `buffer` (1-D, from flatBuffer) as a tensor of its first `length`
/// elements.
Value bufferPrefix(OpBuilder &b, Location loc, Value buffer, int64_t capacity, Value length) {
  Type elem = cast<MemRefType>(buffer.getType()).getElementType();
  Value t = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get({ShapedType::kDynamic}, elem), buffer, /*restrict=*/true,
      /*writable=*/true);
  t = tensor::CastOp::create(b, loc, RankedTensorType::get({capacity}, elem), t);
  return tensor::ExtractSliceOp::create(b, loc, RankedTensorType::get({ShapedType::kDynamic}, elem),
                                        t, ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
                                        ArrayRef<OpFoldResult>{length},
                                        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

/// Unique: one runtime-support call over the static input's slices along
/// the axis; the number of distinct ones is a data-dependent dim shared by
/// Y, indices and counts.
struct UniqueLowering : OpConversionPattern<onnx::UniqueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::UniqueOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || !xType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static input");
    std::string cType = cElementType(xType.getElementType(), op.getX());
    if (cType.empty())
      return rewriter.notifyMatchFailure(op, "element type not supported");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    int64_t rank = xType.getRank(), axis = 0, outer = 1, inner = 1, dim = xType.getNumElements();
    if (op.getAxis()) {
      axis = static_cast<int64_t>(*op.getAxis());
      if (axis < 0)
        axis += rank;
      if (axis < 0 || axis >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      dim = xType.getDimSize(axis);
      for (int64_t d = 0; d < rank; ++d)
        (d < axis ? outer : inner) *= d == axis ? 1 : xType.getDimSize(d);
    }
    Type i64 = b.getI64Type();
    Type elem = xType.getElementType();
    auto buffer = [&](Type t, int64_t n) {
      return flatBuffer(b, loc, emptyTensor(b, loc, RankedTensorType::get({std::max<int64_t>(n, 1)}, t)),
                        /*readOnly=*/false);
    };
    int64_t yCapacity = std::max<int64_t>(outer * dim * inner, 1);
    Value y = buffer(elem, yCapacity), indices = buffer(i64, dim), inverse = buffer(i64, dim),
          counts = buffer(i64, dim), count = buffer(i64, 1), scratch = buffer(i64, 3 * dim);
    auto i64c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); };
    Value operands[] = {flatBuffer(b, loc, x, /*readOnly=*/true),
                        i64c(outer),
                        i64c(dim),
                        i64c(inner),
                        arith::ConstantIntOp::create(b, loc, op.getSorted() != 0, 1),
                        y,
                        indices,
                        inverse,
                        counts,
                        count,
                        scratch};
    SmallVector<Type> argTypes;
    for (Value v : operands)
      argTypes.push_back(v.getType());
    func::FuncOp callee = declareRuntimeFunction(
        b, op, "onnxcc_rt_unique_" + cType, "onnxcc_rt::unique<" + cType + ">",
        FunctionType::get(ctx, argTypes, {b.getI32Type()}), /*usesStringPool=*/false);
    func::CallOp::create(b, loc, callee, operands);

    Value distinct = tensor::ExtractOp::create(b, loc, bufferPrefix(b, loc, count, 1, indexConst(b, loc, 1)),
                                               ValueRange{indexConst(b, loc, 0)});
    distinct = arith::IndexCastOp::create(b, loc, b.getIndexType(), distinct);
    Value u = onnxConverter(getTypeConverter()).defineDataDim(b, loc, op, 0, distinct);
    if (!u)
      return rewriter.notifyMatchFailure(op, "the distinct count has no bound");

    SmallVector<Value> results;
    auto yType = cast<RankedTensorType>(getTypeConverter()->convertType(op.getY().getType()));
    Value yCount = arith::MulIOp::create(b, loc, u, indexConst(b, loc, outer * inner));
    SmallVector<OpFoldResult> ySizes;
    ReassociationIndices all;
    for (int64_t d = 0; d < yType.getRank(); ++d) {
      all.push_back(d);
      ySizes.push_back(yType.isDynamicDim(d) ? OpFoldResult(u)
                                             : OpFoldResult(b.getIndexAttr(yType.getDimSize(d))));
    }
    results.push_back(tensor::ExpandShapeOp::create(
        b, loc, yType, bufferPrefix(b, loc, y, yCapacity, yCount),
        ArrayRef<ReassociationIndices>{all}, ySizes));
    results.push_back(bufferPrefix(b, loc, indices, std::max<int64_t>(dim, 1), u));
    results.push_back(tensor::CastOp::create(
        b, loc, RankedTensorType::get({dim}, i64),
        bufferPrefix(b, loc, inverse, std::max<int64_t>(dim, 1), indexConst(b, loc, dim))));
    results.push_back(bufferPrefix(b, loc, counts, std::max<int64_t>(dim, 1), u));
    // Absent outputs are none.
    for (unsigned i = 1; i < 4; ++i)
      if (isa<NoneType>(op->getResult(i).getType()))
        results[i] = onnx::NoValueOp::create(b, loc, NoneType::get(ctx));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The first element of an optional 1-element operand, or `fallback`.
Value scalarOperand(OpBuilder &b, Location loc, Value v, Value fallback) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return fallback;
  SmallVector<Value> zeros(type.getRank(), indexConst(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, v, zeros);
}

/// NonMaxSuppression: one runtime-support call writes the selected rows
/// into a buffer of the bound's room and their count; the result is the
/// first `count` rows.
struct NonMaxSuppressionLowering : OpConversionPattern<onnx::NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::NonMaxSuppressionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto boxesType = dyn_cast<RankedTensorType>(adaptor.getBoxes().getType());
    auto scoresType = dyn_cast<RankedTensorType>(adaptor.getScores().getType());
    if (!boxesType || !scoresType || !boxesType.hasStaticShape() ||
        !scoresType.hasStaticShape() || boxesType.getRank() != 3 || scoresType.getRank() != 3 ||
        !boxesType.getElementType().isF32() || !scoresType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs static float32 boxes and scores");
    int64_t batches = scoresType.getDimSize(0), classes = scoresType.getDimSize(1),
            spatial = scoresType.getDimSize(2);
    if (boxesType.getDimSize(0) != batches || boxesType.getDimSize(1) != spatial ||
        boxesType.getDimSize(2) != 4)
      return rewriter.notifyMatchFailure(op, "boxes [B, N, 4] do not match scores [B, C, N]");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type i64 = rewriter.getI64Type(), f32 = rewriter.getF32Type();
    // The bound: rows of the result type's dim 0 at most.
    const OnnxTypeConverter &types = onnxConverter(getTypeConverter());
    auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
    auto name = names && !names.empty() ? dyn_cast<StringAttr>(names[0]) : StringAttr();
    std::optional<onnx::SymExpr> bound = name ? types.shapes.boundOf(name) : std::nullopt;
    if (!bound || !bound->isConstant())
      return rewriter.notifyMatchFailure(op, "its row count has no constant bound");
    int64_t capacity = bound->constantValue();

    Value maxPerClass = scalarOperand(rewriter, loc, adaptor.getMaxOutputBoxesPerClass(),
                                      arith::ConstantIntOp::create(rewriter, loc, 0, 64));
    Value iou = scalarOperand(rewriter, loc, adaptor.getIouThreshold(),
                              floatConst(rewriter, loc, f32, 0.0));
    bool hasScoreThreshold = isa<RankedTensorType>(adaptor.getScoreThreshold().getType());
    Value scoreThreshold = scalarOperand(rewriter, loc, adaptor.getScoreThreshold(),
                                         floatConst(rewriter, loc, f32, 0.0));
    auto outType = RankedTensorType::get({std::max<int64_t>(capacity, 1) * 3}, i64);
    Value out = flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, outType), false);
    Value count = flatBuffer(rewriter, loc,
                             emptyTensor(rewriter, loc, RankedTensorType::get({1}, i64)), false);
    Value scratch = flatBuffer(
        rewriter, loc,
        emptyTensor(rewriter, loc, RankedTensorType::get({std::max<int64_t>(spatial, 1) * 2}, i64)),
        false);
    auto i64c = [&](int64_t v) { return arith::ConstantIntOp::create(rewriter, loc, v, 64); };
    auto i1c = [&](bool v) { return arith::ConstantIntOp::create(rewriter, loc, v, 1); };
    Value operands[] = {flatBuffer(rewriter, loc, adaptor.getBoxes(), true),
                        flatBuffer(rewriter, loc, adaptor.getScores(), true),
                        i64c(batches),
                        i64c(classes),
                        i64c(spatial),
                        maxPerClass,
                        iou,
                        scoreThreshold,
                        i1c(hasScoreThreshold),
                        i1c(op.getCenterPointBox() != 0),
                        out,
                        i64c(capacity),
                        count,
                        scratch};
    SmallVector<Type> argTypes;
    for (Value v : operands)
      argTypes.push_back(v.getType());
    func::FuncOp callee = declareRuntimeFunction(
        rewriter, op, "onnxcc_rt_non_max_suppression", "onnxcc_rt::non_max_suppression",
        FunctionType::get(ctx, argTypes, {rewriter.getI32Type()}), /*usesStringPool=*/false);
    func::CallOp::create(rewriter, loc, callee, operands);

    Value countTensor = bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get({ShapedType::kDynamic}, i64), count,
        /*restrict=*/true, /*writable=*/true);
    Value rows = tensor::ExtractOp::create(rewriter, loc, countTensor,
                                           ValueRange{indexConst(rewriter, loc, 0)});
    rows = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), rows);
    Value n = types.defineDataDim(rewriter, loc, op, 0, rows);
    if (!n)
      return rewriter.notifyMatchFailure(op, "its row count has no bound");
    auto flatType = RankedTensorType::get({ShapedType::kDynamic}, i64);
    Value result = bufferization::ToTensorOp::create(rewriter, loc, flatType, out,
                                                     /*restrict=*/true, /*writable=*/true);
    result = tensor::CastOp::create(rewriter, loc, outType, result);
    auto table = RankedTensorType::get({std::max<int64_t>(capacity, 1), 3}, i64);
    result = tensor::ExpandShapeOp::create(rewriter, loc, table, result,
                                           ArrayRef<ReassociationIndices>{{0, 1}});
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {n, rewriter.getIndexAttr(3)};
    SmallVector<OpFoldResult> strides = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
    result = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({ShapedType::kDynamic, 3}, i64), result, offsets,
        sizes, strides);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateDataDependentPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering, NonMaxSuppressionLowering, CompressLowering, UniqueLowering>(
      converter, patterns.getContext());
}

} // namespace onnxcc::lowering
