//===- DataMovement.cpp - Shape and data-movement onnx ops to tensor ops -===//
//
// Ops that only move data lower to tensor ops that bufferize to views
// (extract_slice, insert_slice, expand/collapse_shape) or to plain copies
// (linalg.transpose); where the source position is not an affine function of
// the destination's (reflect padding, tiling, negative steps), a
// linalg.generic computes it with linalg.index and reads with tensor.extract.
// Shape-like operands (starts, pads, shapes...) known only at run time give
// the result the static dims the model declares, and run() returns 9 when
// their values give other dims (checkDeclaredDim).
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// Element `k` of a 1-D integer tensor read at run time, as i64.
Value readI64(OpBuilder &b, Location loc, Value t, int64_t k) {
  Value v = tensor::ExtractOp::create(b, loc, t, ValueRange{indexConst(b, loc, k)});
  if (v.getType().getIntOrFloatBitWidth() < 64)
    v = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
  return v;
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

/// a * v for i64 values in [0, 2^62], saturated at 2^62: products of sizes
/// read from the data never overflow (no undefined behaviour in run()),
/// and a saturated one matches no real element count.
Value saturatingMul(OpBuilder &b, Location loc, Value a, Value v) {
  Value limit = i64Const(b, loc, int64_t(1) << 62);
  Value most = arith::DivSIOp::create(b, loc, limit,
                                      arith::MaxSIOp::create(b, loc, v, i64Const(b, loc, 1)));
  Value over = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, a, most);
  Value product = arith::MulIOp::create(b, loc, arith::MinSIOp::create(b, loc, a, most), v);
  return arith::SelectOp::create(b, loc, over, limit, product);
}

/// `v` clamped into [lo, hi].
Value clampI64(OpBuilder &b, Location loc, Value v, int64_t lo, int64_t hi) {
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, i64Const(b, loc, lo)),
                                i64Const(b, loc, hi));
}

/// Whether the values of shape operand `i` of `op` (`converted`, a 1-D
/// tensor of `length` values) are known only at run time: not a constant,
/// and not computed from dims (Shape -> Gather -> Concat chains, which shape
/// inference followed into the result type).
bool shapeValuesAtRunTime(Operation *op, unsigned i, Value converted, int64_t length,
                          const OnnxTypeConverter &converter) {
  auto type = dyn_cast<RankedTensorType>(converted.getType());
  if (matchPattern(converted, m_Constant()) || !type || type.getRank() != 1 ||
      type.getDimSize(0) != length)
    return false;
  onnx::ShapeContext ctx(op, converter.shapes);
  auto dims = ctx.operandDims(i);
  return !dims || !llvm::all_of(*dims, [](const onnx::Dim &d) { return d.asExpr().has_value(); });
}

/// The dynamic sizes of `op`'s result 0 (`type`, with `sizes` from
/// symbolicResultType) where the dims `op` decides from the data (its own
/// data dims, onnxcc.data_dims) take `valueOf(d)` (an index value), bounded
/// as OnnxTypeConverter::defineDataDim says. Failure when a dim has no
/// bound.
FailureOr<SmallVector<Value>> withOwnDataDims(OpBuilder &b, Location loc, Operation *op,
                                              const OnnxTypeConverter &converter,
                                              RankedTensorType type, ValueRange sizes,
                                              function_ref<Value(int64_t)> valueOf) {
  SmallVector<Value> out(sizes.begin(), sizes.end());
  auto shape = converter.shapeOf(op->getResult(0));
  auto own = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
  if (!shape || !own || static_cast<int64_t>(shape->size()) != type.getRank())
    return out;
  unsigned j = 0;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    const onnx::Dim &dim = (*shape)[d];
    for (auto [k, name] : llvm::enumerate(own)) {
      auto s = dyn_cast<StringAttr>(name);
      if (!s || !dim.isSymbolic() || dim.expr != onnx::SymExpr::symbol(s))
        continue;
      Value v = converter.defineDataDim(b, loc, op, k, valueOf(d));
      if (!v)
        return failure();
      out[j] = v;
    }
    ++j;
  }
  return out;
}

/// Reshape-like ops (Reshape, Flatten, Squeeze, Unsqueeze) keep the data
/// order: a tensor.reshape to the static result shape.
template <typename OpTy>
struct ReshapeLikeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, this->getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Location loc = op.getLoc();
    Value input = adaptor.getOperands()[0];
    auto inputType = cast<RankedTensorType>(input.getType());
    if constexpr (std::is_same_v<OpTy, onnx::ReshapeOp>) {
      checkRuntimeShape(op, adaptor, input, type, rewriter);
      if (op->hasAttr("onnxcc.data_dims"))
        return lowerRunTimeShape(op, adaptor, input, type, typeAndSizes->second, rewriter);
    }
    if (!type.hasStaticShape() || !inputType.hasStaticShape())
      return lowerSymbolic(op, input, type, typeAndSizes->second, rewriter);
    // Collapse to 1-D, expand to the result: both are views after bufferization.
    Value flat = input;
    if (inputType.getRank() != 1) {
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        all[0].push_back(d);
      if (inputType.getRank() == 0)
        all.clear();
      int64_t count = inputType.hasStaticShape() ? inputType.getNumElements()
                                                 : ShapedType::kDynamic;
      auto flatType = RankedTensorType::get(
          inputType.getRank() == 0 ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{count},
          inputType.getElementType());
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flatType, input, all);
    }
    auto flatType = cast<RankedTensorType>(flat.getType());
    if (flatType.getRank() == 0 && type.getRank() == 0) {
      rewriter.replaceOp(op, flat);
      return success();
    }
    if (type.getRank() == 1 && flatType.getRank() == 1) {
      if (flatType != type)
        flat = tensor::CastOp::create(rewriter, loc, type, flat);
      rewriter.replaceOp(op, flat);
      return success();
    }
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    if (flatType.getRank() == 0)
      all.clear();
    if (type.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, flat, SmallVector<ReassociationIndices>{});
      return success();
    }
    if (type.hasStaticShape()) {
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, flat, all);
      return success();
    }
    SmallVector<OpFoldResult> outputShape;
    unsigned next = 0;
    for (int64_t d = 0; d < type.getRank(); ++d)
      outputShape.push_back(type.isDynamicDim(d) ? OpFoldResult(typeAndSizes->second[next++])
                                                 : OpFoldResult(rewriter.getIndexAttr(
                                                       type.getDimSize(d))));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, flat, all, outputShape);
    return success();
  }

  /// A shape known only at run time (not a constant, and not computed
  /// from the input dims, which shape inference followed): run() returns 9
  /// unless each value gives the static result dim there: itself, the input
  /// dim for a 0 (without allowzero), anything for the one -1 (the element
  /// counts agree, so it is then the declared dim).
  void checkRuntimeShape(onnx::ReshapeOp op, typename OpTy::Adaptor adaptor, Value input,
                         RankedTensorType type, ConversionPatternRewriter &rewriter) const {
    Value shape = adaptor.getShape();
    if (!shapeValuesAtRunTime(op, 1, shape, type.getRank(),
                              onnxConverter(this->getTypeConverter())))
      return;
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(input.getType());
    bool allowZero = op.getAllowzero() != 0;
    Value zero = i64Const(rewriter, loc, 0), minusOne = i64Const(rewriter, loc, -1);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d))
        continue;
      Value given = readI64(rewriter, loc, shape, d), v = given;
      Value declared = i64Const(rewriter, loc, type.getDimSize(d));
      if (!allowZero) {
        Value copied = d < inType.getRank()
                           ? arith::IndexCastOp::create(
                                 rewriter, loc, rewriter.getI64Type(),
                                 tensor::DimOp::create(rewriter, loc, input, d))
                                 .getResult()
                           : zero;
        Value isZero = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, v, zero);
        v = arith::SelectOp::create(rewriter, loc, isZero, copied, v);
      }
      Value inferred =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, given, minusOne);
      v = arith::SelectOp::create(rewriter, loc, inferred, declared, v);
      checkDeclaredDim(rewriter, loc, op, v, type.getDimSize(d));
    }
  }
  template <typename Other>
  void checkRuntimeShape(Other, typename OpTy::Adaptor, Value, RankedTensorType,
                         ConversionPatternRewriter &) const {}

  /// A shape given at run time whose values decide result dims (shape
  /// inference made them data dims): each dim is its value, the input's dim
  /// for a 0 (without allowzero), or the element count over the others' for
  /// the one -1. run() returns 9 for another negative value, for two -1s,
  /// for a -1 that does not divide, and when the element counts differ; the
  /// data stays in place (collapsed to one dim and expanded).
  LogicalResult lowerRunTimeShape(onnx::ReshapeOp op, typename OpTy::Adaptor adaptor,
                                  Value input, RankedTensorType type, ValueRange sizes,
                                  ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank(), inRank = inType.getRank();
    Value shape = adaptor.getShape();
    Type i64 = rewriter.getI64Type();
    Value zero = i64Const(rewriter, loc, 0), one = i64Const(rewriter, loc, 1),
          minusOne = i64Const(rewriter, loc, -1);
    auto cmp = [&](arith::CmpIPredicate p, Value a, Value b) -> Value {
      return arith::CmpIOp::create(rewriter, loc, p, a, b);
    };
    auto select = [&](Value c, Value a, Value b) -> Value {
      return arith::SelectOp::create(rewriter, loc, c, a, b);
    };
    Value count = one;
    for (int64_t d = 0; d < inRank; ++d)
      count = arith::MulIOp::create(
          rewriter, loc, count,
          arith::IndexCastOp::create(rewriter, loc, i64,
                                     tensor::DimOp::create(rewriter, loc, input, d)));
    // Each value with 0 copied; -1 left as it is for now.
    SmallVector<Value> dims(rank);
    Value known = one, inferred = zero;
    for (int64_t d = 0; d < rank; ++d) {
      Value v = readI64(rewriter, loc, shape, d);
      checkDims(rewriter, loc, op, "at_least", v, minusOne);
      // Past 2^62 the element counts cannot agree (checked below).
      v = clampI64(rewriter, loc, v, -1, int64_t(1) << 62);
      if (op.getAllowzero() == 0) {
        Value copied = d < inRank ? Value(arith::IndexCastOp::create(
                                        rewriter, loc, i64,
                                        tensor::DimOp::create(rewriter, loc, input, d)))
                                  : zero;
        v = select(cmp(arith::CmpIPredicate::eq, v, zero), copied, v);
      }
      Value isInferred = cmp(arith::CmpIPredicate::eq, v, minusOne);
      inferred = arith::AddIOp::create(
          rewriter, loc, inferred, arith::ExtUIOp::create(rewriter, loc, i64, isInferred));
      known = saturatingMul(rewriter, loc, known, select(isInferred, one, v));
      dims[d] = v;
    }
    checkDims(rewriter, loc, op, "at_least", one, inferred);
    // The -1: count / known (a known product of 0 makes it 0).
    Value safe = arith::MaxSIOp::create(rewriter, loc, known, one);
    Value quotient = arith::DivSIOp::create(rewriter, loc, count, safe);
    Value total = one;
    for (int64_t d = 0; d < rank; ++d) {
      dims[d] = select(cmp(arith::CmpIPredicate::eq, dims[d], minusOne), quotient, dims[d]);
      total = saturatingMul(rewriter, loc, total, dims[d]);
      if (!type.isDynamicDim(d))
        checkDeclaredDim(rewriter, loc, op, dims[d], type.getDimSize(d));
    }
    checkDims(rewriter, loc, op, "equal", total, count);
    auto dataSizes = withOwnDataDims(rewriter, loc, op, onnxConverter(this->getTypeConverter()),
                                     type, sizes, [&](int64_t d) {
                                       return arith::IndexCastOp::create(
                                                  rewriter, loc, rewriter.getIndexType(), dims[d])
                                           .getResult();
                                     });
    if (failed(dataSizes))
      return rewriter.notifyMatchFailure(op, "a result dim has no bound");
    return lowerThroughOneDim(op, input, type, *dataSizes, rewriter);
  }
  template <typename Other>
  LogicalResult lowerRunTimeShape(Other op, typename OpTy::Adaptor, Value, RankedTensorType,
                                  ValueRange, ConversionPatternRewriter &rewriter) const {
    return rewriter.notifyMatchFailure(op, "only Reshape takes a shape");
  }

  /// With symbolic dims, input and result dims are matched in groups of
  /// equal products (exact polynomials of the symbols); each group collapses
  /// to one dim and expands to the result's. Where they do not match up
  /// ([S0, 8, S1] to [4, 16], whose counts shape inference left for run()
  /// to check), the input collapses to one dim that expands to the result.
  LogicalResult lowerSymbolic(OpTy op, Value input, RankedTensorType type,
                              ValueRange resultSizes,
                              ConversionPatternRewriter &rewriter) const {
    const OnnxTypeConverter &converter = onnxConverter(this->getTypeConverter());
    auto inShape = converter.shapeOf(op->getOperand(0));
    auto outShape = converter.shapeOf(op->getResult(0));
    if (!inShape || !outShape)
      return rewriter.notifyMatchFailure(op, "symbolic shapes are not known");
    // No element (a static 0 beside symbolic dims): nothing to move, and
    // collapsing a group with a symbolic dim into a static 0 would not
    // verify.
    if (llvm::is_contained(type.getShape(), 0) ||
        llvm::is_contained(cast<RankedTensorType>(input.getType()).getShape(), 0)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, op.getLoc(), type, resultSizes));
      return success();
    }
    SmallVector<ReassociationIndices> inGroups, outGroups;
    if (!matchGroups(*inShape, *outShape, inGroups, outGroups))
      return lowerThroughOneDim(op, input, type, resultSizes, rewriter);
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> midShape;
    for (const ReassociationIndices &g : inGroups) {
      int64_t n = 1;
      for (int64_t d : g)
        n = inputType.isDynamicDim(d) || n == ShapedType::kDynamic ? ShapedType::kDynamic
                                                                   : n * inputType.getDimSize(d);
      midShape.push_back(n);
    }
    auto midType = RankedTensorType::get(midShape, inputType.getElementType());
    Value mid = input;
    if (midType != inputType)
      mid = tensor::CollapseShapeOp::create(rewriter, loc, midType, input, inGroups);
    if (midType == type) {
      rewriter.replaceOp(op, mid);
      return success();
    }
    SmallVector<OpFoldResult> outputShape;
    unsigned next = 0;
    for (int64_t d = 0; d < type.getRank(); ++d)
      outputShape.push_back(type.isDynamicDim(d)
                                ? OpFoldResult(resultSizes[next++])
                                : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d))));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, mid, outGroups, outputShape);
    return success();
  }

  /// Splits the dims of `in` and `out` into consecutive groups of equal
  /// products; false when they do not split so.
  static bool matchGroups(const onnx::Shape &in, const onnx::Shape &out,
                          SmallVector<ReassociationIndices> &inGroups,
                          SmallVector<ReassociationIndices> &outGroups) {
    size_t i = 0, o = 0;
    while (i < in.size() || o < out.size()) {
      ReassociationIndices ig, og;
      onnx::Dim inProduct = onnx::Dim::known(1), outProduct = onnx::Dim::known(1);
      auto take = [&](const onnx::Shape &shape, size_t &k, ReassociationIndices &g,
                      onnx::Dim &product) {
        product = onnx::mulDims(product, shape[k]);
        g.push_back(k++);
      };
      if (i < in.size())
        take(in, i, ig, inProduct);
      if (o < out.size())
        take(out, o, og, outProduct);
      while (inProduct != outProduct) {
        if (inProduct.isStatic() && inProduct.size == 0)
          return false;
        // Grow the side whose product divides the other's.
        bool growIn = onnx::divDimsExact(outProduct, inProduct).asExpr().has_value();
        if (growIn && i < in.size())
          take(in, i, ig, inProduct);
        else if (o < out.size())
          take(out, o, og, outProduct);
        else if (i < in.size())
          take(in, i, ig, inProduct);
        else
          return false;
        if (inProduct.asExpr() == std::nullopt || outProduct.asExpr() == std::nullopt)
          return false;
      }
      // Trailing 1s join the last group.
      while (i < in.size() && in[i] == onnx::Dim::known(1) &&
             (o == out.size() || out[o] != onnx::Dim::known(1)))
        ig.push_back(i++);
      while (o < out.size() && out[o] == onnx::Dim::known(1) &&
             (i == in.size() || in[i] != onnx::Dim::known(1)))
        og.push_back(o++);
      if (ig.empty() || og.empty())
        return false;
      inGroups.push_back(ig);
      outGroups.push_back(og);
    }
    return true;
  }

  /// The input collapsed to one dim, expanded to the result. run() has
  /// checked that the element counts agree (onnx::dimConstraints), so a
  /// static result takes the static count.
  LogicalResult lowerThroughOneDim(OpTy op, Value input, RankedTensorType type,
                                   ValueRange resultSizes,
                                   ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type element = inputType.getElementType();
    auto flatType = RankedTensorType::get({ShapedType::kDynamic}, element);
    Value flat = input;
    if (inputType.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, RankedTensorType::get({1}, element),
                                           input, SmallVector<ReassociationIndices>{});
    else if (inputType.getRank() > 1) {
      ReassociationIndices all;
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        all.push_back(d);
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({inputType.hasStaticShape() ? inputType.getNumElements()
                                                            : ShapedType::kDynamic},
                                element),
          input, SmallVector<ReassociationIndices>{all});
    }
    if (flat.getType() != flatType)
      flat = tensor::CastOp::create(rewriter, loc, flatType, flat);
    if (type.hasStaticShape()) {
      flat = tensor::CastOp::create(
          rewriter, loc, RankedTensorType::get({type.getNumElements()}, element), flat);
      if (type.getRank() == 1) {
        rewriter.replaceOp(op, flat);
        return success();
      }
      SmallVector<ReassociationIndices> groups;
      if (type.getRank() > 0) {
        groups.emplace_back();
        for (int64_t d = 0; d < type.getRank(); ++d)
          groups[0].push_back(d);
      }
      if (type.getRank() == 0)
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, flat, groups);
      else
        rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, flat, groups);
      return success();
    }
    ReassociationIndices all;
    SmallVector<OpFoldResult> outputShape;
    unsigned next = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      all.push_back(d);
      outputShape.push_back(type.isDynamicDim(d)
                                ? OpFoldResult(resultSizes[next++])
                                : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d))));
    }
    if (type.getRank() == 1) {
      rewriter.replaceOp(op, flat);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, flat,
                                                       SmallVector<ReassociationIndices>{all},
                                                       outputShape);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The integer contents of a shape-like operand, known at compile time only
/// when it comes from an onnx.Constant (`original`) or has already become an
/// arith.constant (`converted`).
std::optional<SmallVector<int64_t>> constantInts(Value original, Value converted) {
  ElementsAttr attr;
  if (auto c = original.getDefiningOp<onnx::ConstantOp>())
    attr = c.getValueAttr();
  else if (auto c = converted.getDefiningOp<arith::ConstantOp>())
    attr = dyn_cast<ElementsAttr>(c.getValue());
  if (!attr || !attr.getElementType().isInteger())
    return std::nullopt;
  auto values = attr.tryGetValues<APInt>();
  if (!values)
    return std::nullopt;
  bool isUnsigned = attr.getElementType().isUnsignedInteger();
  SmallVector<int64_t> out;
  for (APInt a : *values)
    out.push_back(isUnsigned ? static_cast<int64_t>(a.getZExtValue()) : a.getSExtValue());
  return out;
}

Value emptyOf(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

/// Transposes `input` by `perm` (result dim i is input dim perm[i]).
Value buildTranspose(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> perm) {
  auto inType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  for (int64_t p : perm) {
    shape.push_back(inType.getDimSize(p));
    if (inType.isDynamicDim(p))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, input, p));
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, inType.getElementType(), dynamicSizes);
  return linalg::TransposeOp::create(b, loc, input, init, perm)->getResult(0);
}

/// Normalizes an ONNX axis in [-rank, rank) to [0, rank), or nullopt.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Transpose, Concat, Split, Slice
//===----------------------------------------------------------------------===//

struct TransposeLowering : OpConversionPattern<onnx::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    int64_t rank = type.getRank();
    SmallVector<int64_t> perm;
    if (auto p = op.getPerm())
      perm.assign(p->begin(), p->end());
    else
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    SmallVector<bool> seen(rank, false);
    if (static_cast<int64_t>(perm.size()) != rank)
      return rewriter.notifyMatchFailure(op, "perm does not match the rank");
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[p])
        return rewriter.notifyMatchFailure(op, "perm is not a permutation");
      seen[p] = true;
    }
    rewriter.replaceOp(op, buildTranspose(rewriter, op.getLoc(), adaptor.getData(), perm));
    return success();
  }
};

/// Concat: tensor.concat of the non-empty inputs. It bufferizes to one
/// buffer and a copy into each part (which memory planning then removes where
/// the input can be computed in its part); its bufferization analysis is
/// linear in the inputs, where a chain of insert_slice ops was cubic.
struct ConcatLowering : OpConversionPattern<onnx::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    if (!type.hasStaticShape())
      return lowerSymbolic(op, adaptor, type, typeAndSizes->second, rewriter);
    int64_t rank = type.getRank();
    auto axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    SmallVector<Value> parts;
    int64_t total = 0;
    for (Value input : adaptor.getInputs()) {
      auto t = dyn_cast<RankedTensorType>(input.getType());
      if (!t || t.getRank() != rank)
        return rewriter.notifyMatchFailure(op, "inputs must have the result's rank");
      if (t.getDimSize(*axis) == 0)
        continue;
      total += t.getDimSize(*axis);
      parts.push_back(input);
    }
    if (total != type.getDimSize(*axis))
      return rewriter.notifyMatchFailure(op, "input sizes do not add up to the result");
    // A result with a 0 in another dim has no elements either: the parts'
    // subviews would sit at offsets past that dim's end, which the memref
    // verifier rejects.
    if (parts.empty() || llvm::is_contained(type.getShape(), 0)) {
      rewriter.replaceOp(op, emptyOf(rewriter, op.getLoc(), type));
      return success();
    }
    Value result = tensor::ConcatOp::create(rewriter, op.getLoc(), type, *axis, parts);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// With symbolic dims, the inputs' sizes along the axis must add up to the
  /// result's. Outside the axis, shape inference unified each input's dims
  /// with the result's; where they agree only for some values of the
  /// symbols ([S0, 4] and [S1, 4] along dim 1), run() has checked that they
  /// do (checkDimConstraints) before any part is copied.
  LogicalResult lowerSymbolic(onnx::ConcatOp op, OpAdaptor adaptor, RankedTensorType type,
                              ValueRange resultSizes,
                              ConversionPatternRewriter &rewriter) const {
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    int64_t rank = type.getRank();
    auto axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    auto outShape = converter.shapeOf(op.getResult());
    if (!outShape || static_cast<int64_t>(outShape->size()) != rank)
      return rewriter.notifyMatchFailure(op, "the result's symbolic shape is not known");
    SmallVector<Value> parts;
    onnx::Dim total = onnx::Dim::known(0);
    for (auto [original, input] : llvm::zip_equal(op.getInputs(), adaptor.getInputs())) {
      auto shape = converter.shapeOf(original);
      auto t = dyn_cast<RankedTensorType>(input.getType());
      if (!shape || !t || t.getRank() != rank || static_cast<int64_t>(shape->size()) != rank)
        return rewriter.notifyMatchFailure(op, "inputs must have the result's rank");
      total = onnx::addDims(total, (*shape)[*axis]);
      if ((*shape)[*axis] != onnx::Dim::known(0))
        parts.push_back(input);
    }
    if (!total.asExpr() || total != (*outShape)[*axis])
      return rewriter.notifyMatchFailure(op, "input sizes do not add up to the result");
    Location loc = op.getLoc();
    if (parts.empty() || llvm::is_contained(type.getShape(), 0)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, type, resultSizes));
      return success();
    }
    rewriter.replaceOp(op, tensor::ConcatOp::create(rewriter, loc, type, *axis, parts));
    return success();
  }
};

/// Split: one extract_slice (a view) per output; the output types, fixed by
/// shape inference, give each part's size whether `split` was given or not.
struct SplitLowering : OpConversionPattern<onnx::SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::SplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    auto axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (!inType.hasStaticShape())
      return lowerSymbolic(op, input, *axis, rewriter);
    SmallVector<Value> results;
    int64_t offset = 0;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      auto type = staticResultType(rewriter, getTypeConverter(), op, i);
      if (!type)
        return failure();
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[*axis] = offset;
      offset += type.getDimSize(*axis);
      if (offset > inType.getDimSize(*axis))
        return rewriter.notifyMatchFailure(op, "parts exceed the input");
      // An empty part has no valid offset to slice at.
      if (type.getNumElements() == 0) {
        results.push_back(emptyOf(rewriter, op.getLoc(), type));
        continue;
      }
      results.push_back(tensor::ExtractSliceOp::create(rewriter, op.getLoc(), type, input,
                                                       ValueRange{}, ValueRange{}, ValueRange{},
                                                       offsets, type.getShape(), strides));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  /// With symbolic dims, each part has the input's dims outside the axis,
  /// and the parts' sizes along the axis add up to the input's: shape
  /// inference made them so, and where that holds only for some values of
  /// the symbols (constant `split` sizes of a symbolic dim, a part whose
  /// declared dim is static) run() has checked it (checkDimConstraints;
  /// equal parts of a symbolic dim are a quotient that run() checks).
  LogicalResult lowerSymbolic(onnx::SplitOp op, Value input, int64_t axis,
                              ConversionPatternRewriter &rewriter) const {
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto inShape = converter.shapeOf(op.getInput());
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    if (!inShape || static_cast<int64_t>(inShape->size()) != rank)
      return rewriter.notifyMatchFailure(op, "the input's symbolic shape is not known");
    Location loc = op.getLoc();
    SmallVector<Value> results;
    onnx::Dim offset = onnx::Dim::known(0);
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op, i);
      if (failed(typeAndSizes))
        return failure();
      auto [type, sizes] = *typeAndSizes;
      auto shape = converter.shapeOf(op->getResult(i));
      if (!shape || static_cast<int64_t>(shape->size()) != rank)
        return rewriter.notifyMatchFailure(op, "a part's symbolic shape is not known");
      auto offsetExpr = offset.asExpr();
      if (!offsetExpr)
        return rewriter.notifyMatchFailure(op, "a part's offset is not known");
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> partSizes;
      unsigned next = 0;
      for (int64_t d = 0; d < rank; ++d)
        partSizes.push_back(type.isDynamicDim(d)
                                ? OpFoldResult(sizes[next++])
                                : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d))));
      if (offset.isStatic()) {
        offsets[axis] = rewriter.getIndexAttr(offset.size);
      } else {
        Value v = converter.materialize(rewriter, loc, op, *offsetExpr);
        if (!v)
          return rewriter.notifyMatchFailure(op, "a part's offset is not known");
        offsets[axis] = v;
      }
      offset = onnx::addDims(offset, (*shape)[axis]);
      // An empty part has no valid offset to slice at.
      if (llvm::is_contained(type.getShape(), 0)) {
        results.push_back(emptyTensor(rewriter, loc, type, sizes));
        continue;
      }
      results.push_back(tensor::ExtractSliceOp::create(rewriter, loc, type, input, offsets,
                                                       partSizes, strides));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Slice with constant starts/ends/axes/steps. Positive steps are one strided
/// extract_slice (a view); a negative step reads through a generic.
struct SliceLowering : OpConversionPattern<onnx::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    // A result with a static dim of 0 that constant operands decide has no
    // elements to read (and an extract_slice at offset 0 of a dim of size 0
    // would not verify).
    auto constant = [&](Value v, Value converted) {
      return isa<NoneType>(v.getType()) || constantInts(v, converted).has_value();
    };
    bool constantOperands = constant(op.getStarts(), adaptor.getStarts()) &&
                            constant(op.getEnds(), adaptor.getEnds()) &&
                            constant(op.getAxes(), adaptor.getAxes()) &&
                            constant(op.getSteps(), adaptor.getSteps());
    if (constantOperands && llvm::is_contained(typeAndSizes->first.getShape(), 0)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, op.getLoc(), typeAndSizes->first,
                                         typeAndSizes->second));
      return success();
    }
    bool staticInput = cast<RankedTensorType>(adaptor.getData().getType()).hasStaticShape();
    if (staticInput && !typeAndSizes->first.hasStaticShape() && op->hasAttr("onnxcc.data_dims"))
      return lowerAtRunTime(op, adaptor, typeAndSizes->first, rewriter);
    // Starts or ends given at run time of an input whose dims are symbolic or
    // the data's.
    if (!staticInput &&
        (!constantInts(op.getStarts(), adaptor.getStarts()) ||
         !constantInts(op.getEnds(), adaptor.getEnds()) ||
         (!isa<NoneType>(op.getAxes().getType()) &&
          !constantInts(op.getAxes(), adaptor.getAxes())) ||
         (!isa<NoneType>(op.getSteps().getType()) &&
          !constantInts(op.getSteps(), adaptor.getSteps()))))
      return lowerAtRunTime(op, adaptor, typeAndSizes->first, rewriter);
    if (!typeAndSizes->first.hasStaticShape() || !staticInput)
      return lowerSymbolic(op, adaptor, typeAndSizes->first, rewriter);
    RankedTensorType type = typeAndSizes->first;
    Value input = adaptor.getData();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    bool hasAxes = !isa<NoneType>(op.getAxes().getType());
    bool hasSteps = !isa<NoneType>(op.getSteps().getType());
    auto starts = constantInts(op.getStarts(), adaptor.getStarts());
    auto ends = constantInts(op.getEnds(), adaptor.getEnds());
    std::optional<SmallVector<int64_t>> axesC, stepsC;
    if (hasAxes)
      axesC = constantInts(op.getAxes(), adaptor.getAxes());
    if (hasSteps)
      stepsC = constantInts(op.getSteps(), adaptor.getSteps());
    if (!starts || !ends || (hasAxes && !axesC) || (hasSteps && !stepsC))
      return lowerAtRunTime(op, adaptor, type, rewriter);
    SmallVector<int64_t> axes, steps(starts->size(), 1);
    if (hasAxes) {
      axes = *axesC;
    } else {
      for (int64_t i = 0, e = starts->size(); i < e; ++i)
        axes.push_back(i);
    }
    if (hasSteps)
      steps = *stepsC;
    if (ends->size() != starts->size() || axes.size() != starts->size() ||
        steps.size() != starts->size())
      return rewriter.notifyMatchFailure(op, "starts, ends, axes and steps differ in length");

    SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
    SmallVector<int64_t> sizes(inType.getShape());
    SmallVector<bool> seen(rank, false);
    bool anyNegative = false;
    for (size_t i = 0; i < axes.size(); ++i) {
      auto axis = normalizeAxis(axes[i], rank);
      if (!axis || seen[*axis])
        return rewriter.notifyMatchFailure(op, "invalid or repeated axis");
      seen[*axis] = true;
      int64_t dim = inType.getDimSize(*axis), step = steps[i];
      if (step == 0)
        return rewriter.notifyMatchFailure(op, "step must not be 0");
      onnx::SliceAxis slice = onnx::normalizeSliceAxis((*starts)[i], (*ends)[i], step, dim);
      anyNegative |= step < 0;
      offsets[*axis] = slice.start;
      strides[*axis] = step;
      sizes[*axis] = slice.count;
    }
    if (ArrayRef<int64_t>(sizes) != type.getShape())
      return rewriter.notifyMatchFailure(op, "slice sizes disagree with the result type");
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyOf(rewriter, loc, type));
      return success();
    }
    if (!anyNegative) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, input, ValueRange{},
                                                          ValueRange{}, ValueRange{}, offsets,
                                                          sizes, strides);
      return success();
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            Value scaled = arith::MulIOp::create(b, l, ivs[d], indexConst(b, l, strides[d]));
            at.push_back(arith::AddIOp::create(b, l, scaled, indexConst(b, l, offsets[d])));
          }
          return tensor::ExtractOp::create(b, l, input, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Symbolic dims kept whole, or sliced where symbolicSliceDim gave the
  /// length (its lower bound on the dim checked by run() first); static
  /// dims sliced as usual. Starts/ends/axes/steps are known at compile time.
  /// A backwards step reads through a generic (extract_slice strides are
  /// positive).
  LogicalResult lowerSymbolic(onnx::SliceOp op, OpAdaptor adaptor, RankedTensorType type,
                              ConversionPatternRewriter &rewriter) const {
    Value input = adaptor.getData();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    onnx::ShapeContext ctx(op, onnxConverter(getTypeConverter()).shapes);
    auto starts = ctx.operandInts(1), ends = ctx.operandInts(2);
    std::optional<SmallVector<int64_t>> axes = ctx.operandInts(3), steps = ctx.operandInts(4);
    if (!starts || !ends || (ctx.hasOperand(3) && !axes) || (ctx.hasOperand(4) && !steps))
      return rewriter.notifyMatchFailure(op, "symbolic slice needs constant parameters");
    if (!axes) {
      axes.emplace();
      for (int64_t i = 0, e = starts->size(); i < e; ++i)
        axes->push_back(i);
    }
    if (!steps)
      steps = SmallVector<int64_t>(starts->size(), 1);
    if (ends->size() != starts->size() || axes->size() != starts->size() ||
        steps->size() != starts->size())
      return rewriter.notifyMatchFailure(op, "starts, ends, axes and steps differ in length");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<int64_t> strides(rank, 1);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(inType.isDynamicDim(d)
                          ? OpFoldResult(tensor::DimOp::create(rewriter, loc, input, d).getResult())
                          : OpFoldResult(rewriter.getIndexAttr(inType.getDimSize(d))));
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto outShape = converter.shapeOf(op->getResult(0));
    bool backwards = false;
    constexpr int64_t far = std::numeric_limits<int32_t>::max();
    for (size_t i = 0; i < axes->size(); ++i) {
      auto axis = normalizeAxis((*axes)[i], rank);
      int64_t step = (*steps)[i];
      if (!axis || step == 0)
        return rewriter.notifyMatchFailure(op, "invalid axis or step");
      if (inType.isDynamicDim(*axis)) {
        // The length is the result's (symbolicSliceDim); the first element
        // read is the start, from the dim's end when negative.
        if (!outShape || (*outShape)[*axis].asExpr() == std::nullopt)
          return rewriter.notifyMatchFailure(op, "symbolic slice of a symbolic dim");
        const onnx::Dim &length = (*outShape)[*axis];
        int64_t start = (*starts)[i];
        if (length.isStatic()) {
          sizes[*axis] = rewriter.getIndexAttr(length.size);
        } else {
          Value n = converter.materialize(rewriter, loc, op, length.expr);
          if (!n)
            return rewriter.notifyMatchFailure(op, "slice length is not computable");
          sizes[*axis] = n;
        }
        // The first element read: the start clamped into the dim as ONNX
        // says (at run time: the dim may be shorter than the bounds).
        strides[*axis] = step;
        backwards |= step < 0;
        if (length.isStatic() && length.size == 0) {
          offsets[*axis] = rewriter.getIndexAttr(0);
          strides[*axis] = 1;
        } else {
          Value dim = tensor::DimOp::create(rewriter, loc, input, *axis);
          offsets[*axis] = slicePosition(rewriter, loc, dim, std::clamp<int64_t>(start, -far, far),
                                         step < 0);
        }
        continue;
      }
      int64_t dim = inType.getDimSize(*axis);
      onnx::SliceAxis slice = onnx::normalizeSliceAxis((*starts)[i], (*ends)[i], step, dim);
      if (type.getDimSize(*axis) != slice.count)
        return rewriter.notifyMatchFailure(op, "slice sizes disagree with the result type");
      offsets[*axis] = rewriter.getIndexAttr(slice.start);
      strides[*axis] = slice.count ? step : 1;
      backwards |= slice.count && step < 0;
      sizes[*axis] = rewriter.getIndexAttr(slice.count);
    }
    if (!backwards) {
      SmallVector<OpFoldResult> strideAttrs;
      for (int64_t st : strides)
        strideAttrs.push_back(rewriter.getIndexAttr(st));
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, input, offsets, sizes,
                                                          strideAttrs);
      return success();
    }
    // in[offset + i * step] per dim, over the result's sizes.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]));
    Value result = buildIndexedGeneric(
        rewriter, loc, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            Value scaled = arith::MulIOp::create(b, l, ivs[d], indexConst(b, l, strides[d]));
            at.push_back(arith::AddIOp::create(
                b, l, scaled, getValueOrCreateConstantIndexOp(b, l, offsets[d])));
          }
          return tensor::ExtractOp::create(b, l, input, at);
        },
        dynamicSizes);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Starts, ends, axes or steps known only at run time: the result shape
  /// is still static (declared or inferred), so each dim's first position
  /// and step are computed once, with the ONNX clamping, and a generic reads
  /// in[start + i * step] (clamped into the input, whatever the data). run()
  /// returns 9 unless the values give the static result dims (and no step
  /// is 0); a result dim the run decides (SliceOp::inferShapes) is the count
  /// the values give.
  LogicalResult lowerAtRunTime(onnx::SliceOp op, OpAdaptor adaptor, RankedTensorType type,
                               ConversionPatternRewriter &rewriter) const {
    Value input = adaptor.getData();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    Location loc = op.getLoc();
    auto oneD = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getRank() == 1 ? t.getDimSize(0) : int64_t(-1);
    };
    int64_t n = oneD(adaptor.getStarts());
    bool hasAxes = !isa<NoneType>(adaptor.getAxes().getType());
    bool hasSteps = !isa<NoneType>(adaptor.getSteps().getType());
    if (n < 0 || (hasAxes && oneD(adaptor.getAxes()) != n) ||
        (hasSteps && oneD(adaptor.getSteps()) != n))
      return rewriter.notifyMatchFailure(op, "starts, axes and steps must be 1-D of one length");
    if (type.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "result rank differs from the input's");
    if (oneD(adaptor.getEnds()) != n)
      return rewriter.notifyMatchFailure(op, "starts and ends must be 1-D of one length");
    // The input's dims, as i64 (a symbolic or data-dependent one read at
    // run time).
    SmallVector<Value> first(rank), step(rank), count(rank), dims(rank);
    for (int64_t d = 0; d < rank; ++d) {
      first[d] = i64Const(rewriter, loc, 0);
      step[d] = i64Const(rewriter, loc, 1);
      dims[d] = inType.isDynamicDim(d)
                    ? Value(arith::IndexCastOp::create(
                          rewriter, loc, rewriter.getI64Type(),
                          tensor::DimOp::create(rewriter, loc, input, d)))
                    : i64Const(rewriter, loc, inType.getDimSize(d));
      count[d] = dims[d];
    }
    Value zero = i64Const(rewriter, loc, 0), one = i64Const(rewriter, loc, 1);
    auto select = [&](Value c, Value t, Value f) -> Value {
      return arith::SelectOp::create(rewriter, loc, c, t, f);
    };
    auto cmp = [&](arith::CmpIPredicate p, Value a, Value b) -> Value {
      return arith::CmpIOp::create(rewriter, loc, p, a, b);
    };
    using P = arith::CmpIPredicate;
    for (int64_t k = 0; k < n; ++k) {
      Value axis = hasAxes ? readI64(rewriter, loc, adaptor.getAxes(), k)
                           : i64Const(rewriter, loc, k);
      Value negAxis = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, axis, zero);
      Value wrapped = arith::AddIOp::create(rewriter, loc, axis, i64Const(rewriter, loc, rank));
      axis = arith::SelectOp::create(rewriter, loc, negAxis, wrapped, axis);
      Value st = hasSteps ? readI64(rewriter, loc, adaptor.getSteps(), k)
                          : i64Const(rewriter, loc, 1);
      Value start = readI64(rewriter, loc, adaptor.getStarts(), k);
      Value end = readI64(rewriter, loc, adaptor.getEnds(), k);
      // A step of 0 is invalid: run() returns 9 (and the count below
      // divides by 1 instead).
      checkDeclaredDim(rewriter, loc, op, cmp(P::eq, st, zero), 0);
      Value positive = cmp(P::sgt, st, zero);
      for (int64_t d = 0; d < rank; ++d) {
        Value dimV = dims[d];
        Value lastV = arith::SubIOp::create(rewriter, loc, dimV, one);
        Value s = select(cmp(P::slt, start, zero),
                         arith::AddIOp::create(rewriter, loc, start, dimV), start);
        Value e = select(cmp(P::slt, end, zero), arith::AddIOp::create(rewriter, loc, end, dimV),
                         end);
        s = clampIndex(rewriter, loc, s, zero, select(positive, dimV, lastV));
        e = clampIndex(rewriter, loc, e, select(positive, zero, i64Const(rewriter, loc, -1)),
                       select(positive, dimV, lastV));
        // The element count, as normalizeSliceAxis has it: the distance
        // covered over the step, rounded up (the step clamped to the dim so
        // that nothing overflows).
        Value far = arith::AddIOp::create(rewriter, loc, dimV, one);
        Value stride = select(positive, st, arith::SubIOp::create(rewriter, loc, zero, st));
        stride = select(cmp(P::sgt, stride, far), far, stride);
        stride = select(cmp(P::eq, st, zero), one, stride);
        Value span = select(positive, arith::SubIOp::create(rewriter, loc, e, s),
                            arith::SubIOp::create(rewriter, loc, s, e));
        Value rounded = arith::DivSIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, span,
                                  arith::SubIOp::create(rewriter, loc, stride, one)),
            stride);
        Value c = select(cmp(P::sgt, span, zero), rounded, zero);
        Value here = cmp(P::eq, axis, i64Const(rewriter, loc, d));
        first[d] = select(here, s, first[d]);
        step[d] = select(here, st, step[d]);
        count[d] = select(here, c, count[d]);
      }
    }
    SmallVector<Value> dataSizes;
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto shape = converter.shapeOf(op.getOutput());
    auto own = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d)) {
        checkDeclaredDim(rewriter, loc, op, count[d], type.getDimSize(d));
        continue;
      }
      Value size = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), count[d]);
      // A dim this Slice decides (data dim `d` of its own), or one it keeps
      // from the input (a symbolic or another op's data dim: the count must
      // be it).
      const onnx::Dim *dim =
          shape && static_cast<int64_t>(shape->size()) == rank ? &(*shape)[d] : nullptr;
      bool decided = dim && own && static_cast<size_t>(d) < own.size() && dim->isSymbolic() &&
                     dim->expr == onnx::SymExpr::symbol(dyn_cast<StringAttr>(own[d]));
      Value n;
      if (decided || !dim || !dim->isSymbolic()) {
        n = converter.defineDataDim(rewriter, loc, op, d, size);
      } else {
        n = converter.materialize(rewriter, loc, op, dim->expr);
        if (n)
          checkDims(rewriter, loc, op, "equal", size, n);
      }
      if (!n)
        return rewriter.notifyMatchFailure(op, "a sliced dim has no bound");
      dataSizes.push_back(n);
    }
    if (type.hasStaticShape() && type.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyOf(rewriter, loc, type));
      return success();
    }
    SmallVector<Value> last(rank);
    for (int64_t d = 0; d < rank; ++d) {
      first[d] = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), first[d]);
      step[d] = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), step[d]);
      last[d] = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                           arith::SubIOp::create(rewriter, loc, dims[d], one));
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            Value scaled = arith::MulIOp::create(b, l, ivs[d], step[d]);
            Value pos = arith::AddIOp::create(b, l, scaled, first[d]);
            at.push_back(clampIndex(b, l, pos, indexConst(b, l, 0), last[d]));
          }
          return tensor::ExtractOp::create(b, l, input, at);
        },
        dataSizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Expand, Tile, Pad
//===----------------------------------------------------------------------===//

/// Expand: a broadcasting copy to the (statically inferred) result shape.
struct ExpandLowering : OpConversionPattern<onnx::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ExpandOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    checkRuntimeShape(op, adaptor, type, rewriter);
    if (!type.hasStaticShape() && op->hasAttr("onnxcc.data_dims"))
      return lowerRunTimeShape(op, adaptor, type, typeAndSizes->second, rewriter);
    if (!type.hasStaticShape())
      return lowerSymbolic(op, adaptor.getInput(), type, typeAndSizes->second, rewriter);
    if (inType.getRank() > type.getRank())
      return rewriter.notifyMatchFailure(op, "input rank exceeds the result rank");
    // A symbolic input dim is 1 or the result's (checked at run time).
    Value input = broadcastSymbolicDims(rewriter, op, op.getLoc(), adaptor.getInput(), type);
    inType = cast<RankedTensorType>(input.getType());
    int64_t offset = type.getRank() - inType.getRank();
    for (int64_t d = 0; d < inType.getRank(); ++d)
      if (inType.getDimSize(d) != 1 && inType.getDimSize(d) != type.getDimSize(offset + d))
        return rewriter.notifyMatchFailure(op, "input does not broadcast to the result");
    Value result = buildBroadcastGeneric(
        rewriter, op.getLoc(), type, input,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// A shape known only at run time (see ReshapeLikeLowering): run()
  /// returns 9 unless each static result dim is what broadcasting the
  /// input with the shape values gives (the input dim where the value is
  /// 1, else the value).
  void checkRuntimeShape(onnx::ExpandOp op, OpAdaptor adaptor, RankedTensorType type,
                         ConversionPatternRewriter &rewriter) const {
    Value shape = adaptor.getShape(), input = adaptor.getInput();
    auto shapeType = dyn_cast<RankedTensorType>(shape.getType());
    if (!shapeType || shapeType.getRank() != 1 ||
        !shapeValuesAtRunTime(op, 1, shape, shapeType.getDimSize(0),
                              onnxConverter(getTypeConverter())))
      return;
    Location loc = op.getLoc();
    int64_t n = shapeType.getDimSize(0), rank = type.getRank();
    int64_t inRank = cast<RankedTensorType>(input.getType()).getRank();
    for (int64_t k = 0; k < n; ++k) {
      int64_t d = rank - n + k, j = d - (rank - inRank);
      if (d < 0 || type.isDynamicDim(d))
        continue;
      Value v = readI64(rewriter, loc, shape, k);
      if (j >= 0) {
        Value in = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                              tensor::DimOp::create(rewriter, loc, input, j));
        Value isOne = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, v,
                                            i64Const(rewriter, loc, 1));
        v = arith::SelectOp::create(rewriter, loc, isOne, in, v);
      }
      checkDeclaredDim(rewriter, loc, op, v, type.getDimSize(d));
    }
  }

  /// A shape given at run time whose values decide result dims (shape
  /// inference made them data dims bounded by --bound): each is the value,
  /// or the input's dim where the value is 1; run() returns 9 unless the
  /// input's dim is 1 or that. Each input dim of 1 at run time is read at 0.
  LogicalResult lowerRunTimeShape(onnx::ExpandOp op, OpAdaptor adaptor, RankedTensorType type,
                                  ValueRange sizes, ConversionPatternRewriter &rewriter) const {
    Value input = adaptor.getInput(), shape = adaptor.getShape();
    auto inType = cast<RankedTensorType>(input.getType());
    auto shapeType = dyn_cast<RankedTensorType>(shape.getType());
    int64_t rank = type.getRank(), inRank = inType.getRank();
    if (!shapeType || shapeType.getRank() != 1 || shapeType.isDynamicDim(0) || inRank > rank)
      return rewriter.notifyMatchFailure(op, "a 1-D shape and an input of no larger rank");
    int64_t n = shapeType.getDimSize(0);
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto inDim = [&](int64_t j) -> Value {
      return inType.isDynamicDim(j) ? Value(tensor::DimOp::create(rewriter, loc, input, j))
                                    : indexConst(rewriter, loc, inType.getDimSize(j));
    };
    auto dataSizes = withOwnDataDims(
        rewriter, loc, op, onnxConverter(getTypeConverter()), type, sizes, [&](int64_t d) {
          int64_t k = d - (rank - n), j = d - (rank - inRank);
          Value v = k >= 0 ? readI64(rewriter, loc, shape, k) : i64Const(rewriter, loc, 1);
          checkDims(rewriter, loc, op, "at_least", v, i64Const(rewriter, loc, 0));
          if (j < 0)
            return arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v)
                .getResult();
          Value in = arith::IndexCastOp::create(rewriter, loc, i64, inDim(j));
          Value isOne =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, v,
                                    i64Const(rewriter, loc, 1));
          v = arith::SelectOp::create(rewriter, loc, isOne, in, v);
          checkDims(rewriter, loc, op, "broadcast", in, v);
          return arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v)
              .getResult();
        });
    if (failed(dataSizes))
      return rewriter.notifyMatchFailure(op, "a result dim has no bound");
    SmallVector<Value> isOne(inRank);
    for (int64_t j = 0; j < inRank; ++j)
      if (inType.isDynamicDim(j))
        isOne[j] = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, inDim(j),
                                         indexConst(rewriter, loc, 1));
    Value result = buildIndexedGeneric(
        rewriter, loc, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at;
          for (int64_t j = 0; j < inRank; ++j) {
            Value iv = ivs[rank - inRank + j];
            if (!inType.isDynamicDim(j))
              at.push_back(inType.getDimSize(j) == 1 ? indexConst(b, l, 0) : iv);
            else
              at.push_back(arith::SelectOp::create(b, l, isOne[j], indexConst(b, l, 0), iv));
          }
          return tensor::ExtractOp::create(b, l, input, at);
        },
        *dataSizes);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// With symbolic result dims, each input dim is either the result's (the
  /// same polynomial: read in place) or a static 1 (broadcast: read at 0). A
  /// symbolic input dim under a static result dim N is 1 or N, checked at
  /// run time and made static first (broadcastSymbolicDims). A symbolic
  /// input dim broadcast to another symbolic size is not lowered here.
  LogicalResult lowerSymbolic(onnx::ExpandOp op, Value input, RankedTensorType type,
                              ValueRange resultSizes,
                              ConversionPatternRewriter &rewriter) const {
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto inShape = converter.shapeOf(op.getInput());
    auto outShape = converter.shapeOf(op.getOutput());
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank(), inRank = inType.getRank();
    if (!inShape || !outShape || static_cast<int64_t>(inShape->size()) != inRank ||
        static_cast<int64_t>(outShape->size()) != rank || inRank > rank)
      return rewriter.notifyMatchFailure(op, "symbolic shapes are not known");
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    int64_t offset = rank - inRank;
    input = broadcastSymbolicDims(rewriter, op, loc, input, type);
    inType = cast<RankedTensorType>(input.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < inRank; ++d) {
      const onnx::Dim &in = (*inShape)[d], &out = (*outShape)[offset + d];
      int64_t size = inType.getDimSize(d);
      if (size == 1)
        exprs.push_back(getAffineConstantExpr(0, ctx));
      else if ((!ShapedType::isDynamic(size) && size == type.getDimSize(offset + d)) ||
               (in.asExpr() && in == out))
        exprs.push_back(getAffineDimExpr(offset + d, ctx));
      else
        return rewriter.notifyMatchFailure(op, "a symbolic dim is broadcast");
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, loc, type, resultSizes);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{input}, ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Tile: out[i] = in[i mod dim], per dim.
struct TileLowering : OpConversionPattern<onnx::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::TileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    if (inType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "input and result ranks differ");
    if (!type.hasStaticShape() || !inType.hasStaticShape())
      return lowerSymbolic(op, adaptor, rewriter, type, typeAndSizes->second);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (inType.getDimSize(d) == 0 ? type.getDimSize(d) != 0
                                    : type.getDimSize(d) % inType.getDimSize(d) != 0)
        return rewriter.notifyMatchFailure(op, "result is not a whole tiling of the input");
    // Repeats known only at run time: run() returns 9 unless they give the
    // static result dims.
    Value repeats = adaptor.getRepeats();
    auto repeatsType = dyn_cast<RankedTensorType>(repeats.getType());
    if (!matchPattern(repeats, m_Constant()) && repeatsType && repeatsType.getRank() == 1 &&
        repeatsType.getDimSize(0) == type.getRank())
      for (int64_t d = 0; d < type.getRank(); ++d)
        checkDeclaredDim(rewriter, op.getLoc(), op,
                         arith::MulIOp::create(rewriter, op.getLoc(),
                                               readI64(rewriter, op.getLoc(), repeats, d),
                                               i64Const(rewriter, op.getLoc(),
                                                        inType.getDimSize(d))),
                         type.getDimSize(d));
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyOf(rewriter, op.getLoc(), type));
      return success();
    }
    Value result = buildIndexedGeneric(
        rewriter, op.getLoc(), type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          SmallVector<Value> at;
          for (auto [d, iv] : llvm::enumerate(ivs)) {
            int64_t dim = inType.getDimSize(d);
            at.push_back(dim == type.getDimSize(d)
                             ? iv
                             : Value(arith::RemUIOp::create(b, l, iv, indexConst(b, l, dim))));
          }
          return tensor::ExtractOp::create(b, l, input, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Symbolic dims (a result dim r*S of a symbolic S): the repeats must be
  /// constants; a repeated dim reads the input at iv mod its run-time size
  /// (never 0 there: the result dim is then 0 and the loop does not run).
  /// Repeats given at run time, result dims the data's (shape inference
  /// made each open dim a data dim bounded by --bound): dim d is in[d] *
  /// repeats[d] (a negative repeat makes run() return 9, a dim past its
  /// bound 10), and the result reads the input at iv mod in[d].
  LogicalResult lowerRunTimeRepeats(onnx::TileOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &rewriter, RankedTensorType type,
                                    ValueRange sizes) const {
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Value repeats = adaptor.getRepeats();
    auto repeatsType = dyn_cast<RankedTensorType>(repeats.getType());
    if (!repeatsType || repeatsType.getRank() != 1 || repeatsType.getDimSize(0) != type.getRank())
      return rewriter.notifyMatchFailure(op, "one repeat per dim");
    Location loc = op.getLoc();
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto shape = converter.shapeOf(op.getOutput());
    if (!shape || static_cast<int64_t>(shape->size()) != type.getRank())
      return rewriter.notifyMatchFailure(op, "the result's shape is not known");
    SmallVector<Value> dynamic;
    unsigned next = 0, k = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value r = readI64(rewriter, loc, repeats, d);
      checkDims(rewriter, loc, op, "at_least", r, i64Const(rewriter, loc, 0));
      // At most 2^31 + 1, above any --bound (at most 2^31) times a
      // non-empty dim, so that a hostile repeat still fails the bound and
      // the index product cannot overflow.
      r = arith::MinSIOp::create(rewriter, loc, r,
                                 i64Const(rewriter, loc, (int64_t(1) << 31) + 1));
      Value in = inType.isDynamicDim(d) ? Value(tensor::DimOp::create(rewriter, loc, input, d))
                                        : indexConst(rewriter, loc, inType.getDimSize(d));
      Value count = arith::MulIOp::create(
          rewriter, loc, in,
          arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                     arith::MaxSIOp::create(rewriter, loc, r,
                                                            i64Const(rewriter, loc, 0))));
      if (!type.isDynamicDim(d)) {
        // A dim the model declares: the data must give it.
        checkDeclaredDim(rewriter, loc, op,
                         arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), count),
                         type.getDimSize(d));
        continue;
      }
      Value size = (*shape)[d].isStatic() ? sizes[k]
                                          : converter.defineDataDim(rewriter, loc, op, next++,
                                                                    count);
      if (!size)
        return rewriter.notifyMatchFailure(op, "a result dim has no bound");
      dynamic.push_back(size);
      ++k;
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          SmallVector<Value> at;
          for (auto [d, iv] : llvm::enumerate(ivs)) {
            Value dim = inType.isDynamicDim(d)
                            ? Value(tensor::DimOp::create(b, l, input, d))
                            : indexConst(b, l, inType.getDimSize(d));
            // An empty input dim gives an empty result: never read then.
            Value safe = arith::MaxUIOp::create(b, l, dim, indexConst(b, l, 1));
            at.push_back(arith::RemUIOp::create(b, l, iv, safe));
          }
          return tensor::ExtractOp::create(b, l, input, at);
        },
        dynamic);
    rewriter.replaceOp(op, result);
    return success();
  }

  LogicalResult lowerSymbolic(onnx::TileOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter, RankedTensorType type,
                              ValueRange sizes) const {
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto repeats = constantInts(op.getRepeats(), adaptor.getRepeats());
    if (!repeats && op->hasAttr("onnxcc.data_dims"))
      return lowerRunTimeRepeats(op, adaptor, rewriter, type, sizes);
    if (!repeats)
      return op.emitError("cannot lower 'onnx.Tile' with symbolic dims and repeats given at run "
                          "time (pass --shape to fix them)");
    if (static_cast<int64_t>(repeats->size()) != type.getRank())
      return rewriter.notifyMatchFailure(op, "one repeat per dim");
    Location loc = op.getLoc();
    Value result = buildIndexedGeneric(
        rewriter, loc, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          SmallVector<Value> at;
          for (auto [d, iv] : llvm::enumerate(ivs)) {
            if ((*repeats)[d] == 1) {
              at.push_back(iv);
              continue;
            }
            Value dim = inType.isDynamicDim(d)
                            ? Value(tensor::DimOp::create(b, l, input, d))
                            : indexConst(b, l, inType.getDimSize(d));
            at.push_back(arith::RemUIOp::create(b, l, iv, dim));
          }
          return tensor::ExtractOp::create(b, l, input, at);
        },
        sizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The scalar a constant Pad fills with: its constant_value input, or 0.
FailureOr<Value> padValue(ConversionPatternRewriter &rewriter, onnx::PadOp op,
                          onnx::PadOp::Adaptor adaptor, Type elem) {
  Location loc = op.getLoc();
  Value cv = adaptor.getConstantValue();
  if (isa<NoneType>(cv.getType()))
    return Value(arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elem)));
  auto cvType = cast<RankedTensorType>(cv.getType());
  if (cvType.getNumElements() != 1 || cvType.getElementType() != elem)
    return rewriter.notifyMatchFailure(op, "constant_value must be one element of the data type");
  SmallVector<Value> zeros(cvType.getRank(), indexConst(rewriter, loc, 0));
  return Value(tensor::ExtractOp::create(rewriter, loc, cv, zeros));
}

/// The input position that output position `j` (relative to the start of
/// the input along one dim of `size` elements) of a wrap or reflect Pad
/// reads: j modulo `period` (size for wrap, 2 * (size - 1) for reflect),
/// mirrored back into the dim for reflect.
Value padSource(OpBuilder &b, Location l, Value j, Value period, Value size, bool reflect) {
  Value m = arith::RemSIOp::create(b, l, j, period);
  m = arith::AddIOp::create(b, l, m, period);
  m = arith::RemSIOp::create(b, l, m, period);
  if (!reflect)
    return m;
  Value mirrored = arith::SubIOp::create(b, l, period, m);
  Value low = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, m, size);
  return arith::SelectOp::create(b, l, low, m, mirrored);
}

/// The input position that output position `iv` of a Pad reads along one
/// dim of size `dim` padded by `begin` and `end` (index values; negative
/// pads crop), for the edge, reflect and wrap modes. As ONNX's reference
/// does, negative pads crop first and the others repeat the cropped part:
/// edge its first or last element, wrap with its length as the period,
/// reflect mirrored about its ends (period 2 * (length - 1)). Clamped into
/// [0, dim - 1]; the caller makes sure that a non-empty result has a
/// non-empty part to repeat.
Value padPosition(OpBuilder &b, Location l, Value iv, Value dim, Value begin, Value end,
                  StringRef mode) {
  Value zero = indexConst(b, l, 0), one = indexConst(b, l, 1);
  Value start = arith::MaxSIOp::create(b, l, arith::SubIOp::create(b, l, zero, begin), zero);
  Value kept = arith::AddIOp::create(
      b, l, dim,
      arith::AddIOp::create(b, l, arith::MinSIOp::create(b, l, begin, zero),
                            arith::MinSIOp::create(b, l, end, zero)));
  kept = arith::MaxSIOp::create(b, l, kept, one);
  Value last = arith::SubIOp::create(b, l, kept, one);
  // Position relative to the kept part.
  Value k = arith::SubIOp::create(b, l, arith::SubIOp::create(b, l, iv, begin), start);
  Value pos;
  if (mode == "wrap") {
    pos = padSource(b, l, k, kept, kept, /*reflect=*/false);
  } else if (mode == "reflect") {
    Value period = arith::MaxSIOp::create(
        b, l, arith::MulIOp::create(b, l, last, indexConst(b, l, 2)), one);
    pos = padSource(b, l, k, period, kept, /*reflect=*/true);
  } else {
    pos = k;
  }
  pos = clampIndex(b, l, pos, zero, last);
  Value dimLast = arith::SubIOp::create(b, l, arith::MaxSIOp::create(b, l, dim, one), one);
  return clampIndex(b, l, arith::AddIOp::create(b, l, start, pos), zero, dimLast);
}

/// Pad. Constant mode with constant pads: crop negative pads with
/// extract_slice, then insert into a filled tensor (views and a fill).
/// Otherwise (edge, reflect, wrap, or pads known only at run time) a generic
/// maps each output position to its source position.
struct PadLowering : OpConversionPattern<onnx::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value input = adaptor.getData();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    auto padsType = dyn_cast<RankedTensorType>(adaptor.getPads().getType());
    if (!padsType || padsType.getRank() != 1 || padsType.getDimSize(0) != 2 * rank ||
        type.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "pads must have 2 * rank values");
    StringRef mode = op.getMode();
    if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap")
      return rewriter.notifyMatchFailure(op, "unknown pad mode");
    auto pads = constantInts(op.getPads(), adaptor.getPads());
    if (!type.hasStaticShape()) {
      if (!pads && op->hasAttr("onnxcc.data_dims"))
        return lowerRunTimePads(op, adaptor, type, typeAndSizes->second, rewriter);
      if (!pads)
        return rewriter.notifyMatchFailure(op, "symbolic pad needs constant pads");
      return lowerSymbolic(op, adaptor, type, typeAndSizes->second, *pads, rewriter);
    }
    // Pads given at run time that bring an input whose dims the data
    // decides to a static shape (a ragged sequence's rows).
    if (!pads && !inType.hasStaticShape())
      return lowerRunTimePads(op, adaptor, type, typeAndSizes->second, rewriter);
    if (pads)
      for (int64_t d = 0; d < rank; ++d)
        if (inType.getDimSize(d) + (*pads)[d] + (*pads)[rank + d] != type.getDimSize(d))
          return rewriter.notifyMatchFailure(op, "pads disagree with the result type");
    Location loc = op.getLoc();
    if (!pads)
      // Pads known only at run time: run() returns 9 unless they give the
      // static result dims.
      for (int64_t d = 0; d < rank; ++d) {
        Value sum = arith::AddIOp::create(rewriter, loc, readI64(rewriter, loc, adaptor.getPads(), d),
                                          readI64(rewriter, loc, adaptor.getPads(), rank + d));
        sum = arith::AddIOp::create(rewriter, loc, sum,
                                    i64Const(rewriter, loc, inType.getDimSize(d)));
        checkDeclaredDim(rewriter, loc, op, sum, type.getDimSize(d));
      }
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyOf(rewriter, loc, type));
      return success();
    }
    if (mode != "constant" && inType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "edge/reflect/wrap padding of an empty input");
    if (mode != "constant" && pads)
      for (int64_t d = 0; d < rank; ++d)
        if (inType.getDimSize(d) + std::min<int64_t>((*pads)[d], 0) +
                    std::min<int64_t>((*pads)[rank + d], 0) <=
                0 &&
            type.getDimSize(d) > 0)
          return op.emitError() << "cannot pad dim " << d << " in " << mode
                                << " mode: its pads crop away every element there is to "
                                   "repeat";

    Value fill;
    if (mode == "constant") {
      FailureOr<Value> value = padValue(rewriter, op, adaptor, type.getElementType());
      if (failed(value))
        return failure();
      fill = *value;
      if (pads) {
        rewriter.replaceOp(op, buildConstantPad(rewriter, loc, input, type, *pads, fill));
        return success();
      }
    }

    // The pads as index values, constant or read at run time.
    SmallVector<Value> begin, end;
    for (int64_t d = 0; d < rank; ++d) {
      if (pads) {
        begin.push_back(indexConst(rewriter, loc, (*pads)[d]));
        end.push_back(indexConst(rewriter, loc, (*pads)[rank + d]));
        continue;
      }
      Value v = readI64(rewriter, loc, adaptor.getPads(), d);
      begin.push_back(arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v));
      v = readI64(rewriter, loc, adaptor.getPads(), rank + d);
      end.push_back(arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v));
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, type, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at;
          Value inside;
          Value zero = indexConst(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            int64_t dim = inType.getDimSize(d);
            if (pads && (*pads)[d] == 0 && (*pads)[rank + d] == 0) {
              at.push_back(ivs[d]);
              continue;
            }
            Value j = arith::SubIOp::create(b, l, ivs[d], begin[d]);
            Value last = indexConst(b, l, std::max<int64_t>(dim - 1, 0));
            if (mode == "constant") {
              Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j,
                                               indexConst(b, l, dim));
              inside = inside ? Value(arith::AndIOp::create(b, l, inside, ok)) : ok;
              at.push_back(clampIndex(b, l, j, zero, last));
              continue;
            }
            at.push_back(padPosition(b, l, ivs[d], indexConst(b, l, dim), begin[d], end[d], mode));
          }
          if (mode == "constant" && inType.getNumElements() == 0)
            return fill;
          Value v = tensor::ExtractOp::create(b, l, input, at);
          if (!inside)
            return v;
          return arith::SelectOp::create(b, l, inside, v, fill);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Pads given at run time, result dims the data's (shape inference made
  /// each open dim a data dim bounded by --bound): dim d is in[d] + begin +
  /// end (run() returns 9 when that is negative, or when edge, reflect or
  /// wrap has an empty dim to repeat into a non-empty one; 10 past the
  /// bound). Constant mode fills the result and inserts the part of the
  /// input the pads keep (negative pads crop); the other modes read through
  /// a generic whose positions are clamped into the input.
  LogicalResult lowerRunTimePads(onnx::PadOp op, OpAdaptor adaptor, RankedTensorType type,
                                 ValueRange sizes, ConversionPatternRewriter &rewriter) const {
    Value input = adaptor.getData();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    StringRef mode = op.getMode();
    Location loc = op.getLoc();
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto shape = converter.shapeOf(op.getOutput());
    if (!shape || static_cast<int64_t>(shape->size()) != rank)
      return rewriter.notifyMatchFailure(op, "the result's shape is not known");
    Type index = rewriter.getIndexType();
    Value zero = indexConst(rewriter, loc, 0), one = indexConst(rewriter, loc, 1);
    SmallVector<Value> dims, begins, ends, dynamic, counts;
    unsigned next = 0, k = 0;
    for (int64_t d = 0; d < rank; ++d) {
      // Pads past +-2^61 are as good as infinite (the dim is negative or past
      // any bound: status 9 or 10), and their sums cannot overflow.
      Value begin = clampI64(rewriter, loc, readI64(rewriter, loc, adaptor.getPads(), d),
                             -(int64_t(1) << 61), int64_t(1) << 61);
      Value end = clampI64(rewriter, loc, readI64(rewriter, loc, adaptor.getPads(), rank + d),
                           -(int64_t(1) << 61), int64_t(1) << 61);
      Value dim = inType.isDynamicDim(d) ? Value(tensor::DimOp::create(rewriter, loc, input, d))
                                         : indexConst(rewriter, loc, inType.getDimSize(d));
      Value count = arith::AddIOp::create(
          rewriter, loc, arith::AddIOp::create(rewriter, loc, begin, end),
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), dim));
      checkDims(rewriter, loc, op, "at_least", count, i64Const(rewriter, loc, 0));
      Value size = arith::IndexCastOp::create(rewriter, loc, index, count);
      if (!type.isDynamicDim(d)) {
        checkDeclaredDim(rewriter, loc, op, count, type.getDimSize(d));
      } else {
        if (!(*shape)[d].isStatic())
          size = converter.defineDataDim(rewriter, loc, op, next++, size);
        else
          size = sizes[k];
        if (!size)
          return rewriter.notifyMatchFailure(op, "a result dim has no bound");
        dynamic.push_back(size);
        ++k;
      }
      if (mode != "constant") {
        // Nothing left after the crops to repeat into a non-empty result
        // dim.
        Value zero64 = i64Const(rewriter, loc, 0);
        Value kept = arith::AddIOp::create(
            rewriter, loc, arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), dim),
            arith::AddIOp::create(rewriter, loc,
                                  arith::MinSIOp::create(rewriter, loc, begin, zero64),
                                  arith::MinSIOp::create(rewriter, loc, end, zero64)));
        checkDims(rewriter, loc, op, "at_least", kept,
                  arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                             arith::MinUIOp::create(rewriter, loc, size, one)));
      }
      dims.push_back(dim);
      begins.push_back(arith::IndexCastOp::create(rewriter, loc, index, begin));
      ends.push_back(arith::IndexCastOp::create(rewriter, loc, index, end));
      counts.push_back(size);
    }
    if (mode == "constant") {
      FailureOr<Value> value = padValue(rewriter, op, adaptor, type.getElementType());
      if (failed(value))
        return failure();
      Value filled = linalg::FillOp::create(rewriter, loc, *value,
                                            emptyTensor(rewriter, loc, type, dynamic))
                         .getResult(0);
      // The kept part: from max(-begin, 0), dim + min(begin, 0) + min(end, 0)
      // elements (0 when the pads crop everything), at max(begin, 0).
      SmallVector<OpFoldResult> offsets, keep, at, ones(rank, rewriter.getIndexAttr(1));
      for (int64_t d = 0; d < rank; ++d) {
        Value offset = arith::MinSIOp::create(
            rewriter, loc, arith::MaxSIOp::create(rewriter, loc, arith::SubIOp::create(
                                                                   rewriter, loc, zero, begins[d]),
                                                  zero),
            dims[d]);
        Value kept = arith::AddIOp::create(
            rewriter, loc, dims[d],
            arith::AddIOp::create(rewriter, loc,
                                  arith::MinSIOp::create(rewriter, loc, begins[d], zero),
                                  arith::MinSIOp::create(rewriter, loc, ends[d], zero)));
        kept = arith::MaxSIOp::create(rewriter, loc, kept, zero);
        Value place = arith::MinSIOp::create(
            rewriter, loc, arith::MaxSIOp::create(rewriter, loc, begins[d], zero), counts[d]);
        offsets.push_back(offset);
        keep.push_back(kept);
        at.push_back(place);
      }
      Value part = tensor::ExtractSliceOp::create(rewriter, loc, input, offsets, keep, ones);
      rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, part, filled, at, keep, ones);
      return success();
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(padPosition(b, l, ivs[d], dims[d], begins[d], ends[d], mode));
          return tensor::ExtractOp::create(b, l, input, at);
        },
        dynamic);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// With symbolic dims the pads must be constants, so that the input's part
  /// of the result is at a fixed place for every value of the symbols (a
  /// negative pad crops a symbolic dim by a constant, shape inference checks
  /// that it has that many elements). Constant mode fills the result and
  /// inserts the cropped input;
  /// edge, reflect and wrap read through a generic, which computes the
  /// positions in a symbolic dim from its size at run time.
  /// `pads` are the op's constant pads (matchAndRewrite checked them and the
  /// mode).
  LogicalResult lowerSymbolic(onnx::PadOp op, OpAdaptor adaptor, RankedTensorType type,
                              ValueRange resultSizes, ArrayRef<int64_t> pads,
                              ConversionPatternRewriter &rewriter) const {
    Value input = adaptor.getData();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    StringRef mode = op.getMode();
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto inShape = converter.shapeOf(op.getData());
    auto outShape = converter.shapeOf(op.getOutput());
    if (!inShape || !outShape || static_cast<int64_t>(inShape->size()) != rank ||
        static_cast<int64_t>(outShape->size()) != rank)
      return rewriter.notifyMatchFailure(op, "symbolic shapes are not known");
    for (int64_t d = 0; d < rank; ++d) {
      int64_t begin = pads[d], end = pads[rank + d];
      onnx::Dim grown = onnx::addDims((*inShape)[d], onnx::Dim::known(begin + end));
      if (grown != (*outShape)[d])
        return rewriter.notifyMatchFailure(op, "pads disagree with the result shape");
      if (!inType.isDynamicDim(d)) {
        if (inType.getDimSize(d) + begin + end != type.getDimSize(d))
          return rewriter.notifyMatchFailure(op, "pads disagree with the result type");
        continue;
      }
    }
    Location loc = op.getLoc();
    if (mode == "constant") {
      Value fill;
      FailureOr<Value> value = padValue(rewriter, op, adaptor, type.getElementType());
      if (failed(value))
        return failure();
      fill = *value;
      Value filled =
          linalg::FillOp::create(rewriter, loc, fill, emptyTensor(rewriter, loc, type, resultSizes))
              .getResult(0);
      // Negative pads (of static dims only) crop the input first.
      SmallVector<OpFoldResult> cropOffsets, cropSizes, insertOffsets;
      SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
      SmallVector<int64_t> cropShape;
      bool crop = false;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t begin = pads[d], end = pads[rank + d];
        insertOffsets.push_back(rewriter.getIndexAttr(std::max<int64_t>(begin, 0)));
        if (inType.isDynamicDim(d)) {
          // A negative pad crops the symbolic dim too (shape inference
          // checks at run time that it has that many elements).
          int64_t offset = std::max<int64_t>(-begin, 0);
          int64_t cropped = offset + std::max<int64_t>(-end, 0);
          Value size = tensor::DimOp::create(rewriter, loc, input, d);
          if (cropped) {
            size = arith::SubIOp::create(rewriter, loc, size, indexConst(rewriter, loc, cropped));
            crop = true;
          }
          cropOffsets.push_back(rewriter.getIndexAttr(offset));
          cropSizes.push_back(size);
          cropShape.push_back(ShapedType::kDynamic);
          continue;
        }
        int64_t offset = std::max<int64_t>(-begin, 0);
        int64_t size = inType.getDimSize(d) - offset - std::max<int64_t>(-end, 0);
        // Everything cropped away: the result is the fill.
        if (size <= 0) {
          rewriter.replaceOp(op, filled);
          return success();
        }
        crop |= size != inType.getDimSize(d);
        cropOffsets.push_back(rewriter.getIndexAttr(offset));
        cropSizes.push_back(rewriter.getIndexAttr(size));
        cropShape.push_back(size);
      }
      Value source = input;
      if (crop)
        source = tensor::ExtractSliceOp::create(
            rewriter, loc, RankedTensorType::get(cropShape, type.getElementType()), input,
            cropOffsets, cropSizes, ones);
      rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, source, filled, insertOffsets,
                                                         cropSizes, ones);
      return success();
    }
    // Edge, reflect, wrap. Static padded dims are not empty; a symbolic one
    // may be 0 at run time, where ONNX has no element to repeat: no element
    // is read then (the result is zeros), and every position computed for
    // a symbolic dim is clamped into it, so nothing is read out of bounds.
    for (int64_t d = 0; d < rank; ++d)
      if (!inType.isDynamicDim(d) && (pads[d] || pads[rank + d]) &&
          inType.getDimSize(d) == 0)
        return rewriter.notifyMatchFailure(op, "edge/reflect/wrap padding of an empty dim");
    SmallVector<Value> sizes(rank);
    Value nonEmpty;
    for (int64_t d = 0; d < rank; ++d) {
      if (!inType.isDynamicDim(d))
        continue;
      sizes[d] = tensor::DimOp::create(rewriter, loc, input, d);
      Value positive = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt, sizes[d],
                                             indexConst(rewriter, loc, 0));
      nonEmpty = nonEmpty ? Value(arith::AndIOp::create(rewriter, loc, nonEmpty, positive))
                          : positive;
    }
    Type elem = type.getElementType();
    Value result = buildIndexedGeneric(
        rewriter, loc, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t begin = pads[d], end = pads[rank + d];
            if (begin == 0 && end == 0) {
              at.push_back(ivs[d]);
              continue;
            }
            Value dim = inType.isDynamicDim(d) ? sizes[d]
                                               : indexConst(b, l, inType.getDimSize(d));
            at.push_back(padPosition(b, l, ivs[d], dim, indexConst(b, l, begin),
                                     indexConst(b, l, end), mode));
          }
          if (!nonEmpty)
            return tensor::ExtractOp::create(b, l, input, at);
          auto ifOp = scf::IfOp::create(
              b, l, nonEmpty,
              [&](OpBuilder &tb, Location tl) {
                scf::YieldOp::create(tb, tl,
                                     Value(tensor::ExtractOp::create(tb, tl, input, at)));
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(
                    eb, el, Value(arith::ConstantOp::create(eb, el, eb.getZeroAttr(elem))));
              });
          return ifOp.getResult(0);
        },
        resultSizes);
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value buildConstantPad(OpBuilder &b, Location loc, Value input, RankedTensorType type,
                                ArrayRef<int64_t> pads, Value fill) {
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> begin = pads.take_front(rank), end = pads.drop_front(rank);
    // Negative pads remove elements: crop first.
    SmallVector<int64_t> cropOffsets(rank), cropSizes(rank), insertOffsets(rank), ones(rank, 1);
    bool crop = false;
    for (int64_t d = 0; d < rank; ++d) {
      cropOffsets[d] = std::max<int64_t>(-begin[d], 0);
      cropSizes[d] = inType.getDimSize(d) - cropOffsets[d] - std::max<int64_t>(-end[d], 0);
      insertOffsets[d] = std::max<int64_t>(begin[d], 0);
      crop |= cropSizes[d] != inType.getDimSize(d);
    }
    Value filled = linalg::FillOp::create(b, loc, fill, emptyOf(b, loc, type)).getResult(0);
    if (llvm::any_of(cropSizes, [](int64_t s) { return s <= 0; }))
      return filled;
    Value source = input;
    if (crop)
      source = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(cropSizes, type.getElementType()), input, ValueRange{},
          ValueRange{}, ValueRange{}, cropOffsets, cropSizes, ones);
    return tensor::InsertSliceOp::create(b, loc, source, filled, ValueRange{}, ValueRange{},
                                         ValueRange{}, insertOffsets, cropSizes, ones);
  }
};

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

/// Reshape to 6-D (a view), transpose (a copy), reshape to 4-D (a view).
Value buildBlockShuffle(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> expanded,
                        ArrayRef<ReassociationIndices> expandMap, ArrayRef<int64_t> perm,
                        RankedTensorType resultType,
                        ArrayRef<ReassociationIndices> collapseMap) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto expandedType = RankedTensorType::get(expanded, inType.getElementType());
  Value six = tensor::ExpandShapeOp::create(b, loc, expandedType, input, expandMap);
  Value moved = buildTranspose(b, loc, six, perm);
  return tensor::CollapseShapeOp::create(b, loc, resultType, moved, collapseMap);
}

struct DepthToSpaceLowering : OpConversionPattern<onnx::DepthToSpaceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::DepthToSpaceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t b = op.getBlocksize();
    if (!inType.hasStaticShape())
      return lowerSymbolic(op, adaptor, rewriter);
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    if (inType.getRank() != 4 || b <= 0 || inType.getDimSize(1) % (b * b) != 0)
      return rewriter.notifyMatchFailure(op, "needs 4-D input with C divisible by blocksize^2");
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1) / (b * b),
            h = inType.getDimSize(2), w = inType.getDimSize(3);
    SmallVector<ReassociationIndices> expandMap{{0}, {1, 2, 3}, {4}, {5}};
    SmallVector<ReassociationIndices> collapseMap{{0}, {1}, {2, 3}, {4, 5}};
    Value result;
    if (op.getMode() == "DCR")
      result = buildBlockShuffle(rewriter, op.getLoc(), adaptor.getInput(), {n, b, b, c, h, w},
                                 expandMap, {0, 3, 4, 1, 5, 2}, type, collapseMap);
    else if (op.getMode() == "CRD")
      result = buildBlockShuffle(rewriter, op.getLoc(), adaptor.getInput(), {n, c, b, b, h, w},
                                 expandMap, {0, 1, 4, 2, 5, 3}, type, collapseMap);
    else
      return rewriter.notifyMatchFailure(op, "mode must be DCR or CRD");
    rewriter.replaceOp(op, result);
    return success();
  }

  /// With symbolic dims: each element of Y reads X[n, channel, h / b,
  /// w / b], the channel picked by the mode from c and the position
  /// (h % b, w % b) inside the block. Symbolic channels C give Y C / b^2 of
  /// them, a quotient that run() checks.
  LogicalResult lowerSymbolic(onnx::DepthToSpaceOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const {
    auto result = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(result))
      return failure();
    auto [type, dynamic] = *result;
    Value x = adaptor.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    int64_t b = op.getBlocksize();
    StringRef mode = op.getMode();
    if (inType.getRank() != 4 || type.getRank() != 4 || b <= 0 ||
        (!inType.isDynamicDim(1) && inType.getDimSize(1) % (b * b) != 0) ||
        (mode != "DCR" && mode != "CRD"))
      return rewriter.notifyMatchFailure(
          op, "needs 4-D input with C divisible by blocksize^2, DCR or CRD");
    Value y = buildIndexedGeneric(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) -> Value {
          Value bv = indexConst(nb, l, b);
          Value hi = arith::DivUIOp::create(nb, l, ivs[2], bv);
          Value wi = arith::DivUIOp::create(nb, l, ivs[3], bv);
          Value hb = arith::RemUIOp::create(nb, l, ivs[2], bv);
          Value wb = arith::RemUIOp::create(nb, l, ivs[3], bv);
          Value block = arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, hb, bv), wb);
          Value c = type.isDynamicDim(1) ? dynamic[type.isDynamicDim(0) ? 1 : 0]
                                         : indexConst(nb, l, type.getDimSize(1));
          Value channel =
              mode == "DCR"
                  ? arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, block, c), ivs[1])
                        .getResult()
                  : arith::AddIOp::create(
                        nb, l, arith::MulIOp::create(nb, l, ivs[1], indexConst(nb, l, b * b)),
                        block)
                        .getResult();
          return tensor::ExtractOp::create(nb, l, x, ValueRange{ivs[0], channel, hi, wi});
        },
        dynamic);
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct SpaceToDepthLowering : OpConversionPattern<onnx::SpaceToDepthOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::SpaceToDepthOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    if (!inType.hasStaticShape())
      return lowerSymbolic(op, adaptor, rewriter);
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    int64_t b = op.getBlocksize();
    if (inType.getRank() != 4 || b <= 0 || inType.getDimSize(2) % b != 0 ||
        inType.getDimSize(3) % b != 0)
      return rewriter.notifyMatchFailure(op, "needs 4-D input with H, W divisible by blocksize");
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1), h = inType.getDimSize(2) / b,
            w = inType.getDimSize(3) / b;
    Value result = buildBlockShuffle(rewriter, op.getLoc(), adaptor.getInput(),
                                     {n, c, h, b, w, b}, {{0}, {1}, {2, 3}, {4, 5}},
                                     {0, 3, 5, 1, 2, 4}, type, {{0}, {1, 2, 3}, {4}, {5}});
    rewriter.replaceOp(op, result);
    return success();
  }

  /// With symbolic dims: Y[n, (bh * b + bw) * C + c, h, w] is
  /// X[n, c, h * b + bh, w * b + bw]. Symbolic H and W give Y H / b and
  /// W / b, quotients that run() checks.
  LogicalResult lowerSymbolic(onnx::SpaceToDepthOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const {
    auto result = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(result))
      return failure();
    auto [type, dynamic] = *result;
    Value x = adaptor.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    int64_t b = op.getBlocksize();
    if (inType.getRank() != 4 || type.getRank() != 4 || b <= 0)
      return rewriter.notifyMatchFailure(op, "needs 4-D input and a positive blocksize");
    Location loc = op.getLoc();
    Value c = tensor::DimOp::create(rewriter, loc, x, 1);
    Value y = buildIndexedGeneric(
        rewriter, loc, type,
        [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) -> Value {
          Value bv = indexConst(nb, l, b);
          Value block = arith::DivUIOp::create(nb, l, ivs[1], c);
          Value ci = arith::RemUIOp::create(nb, l, ivs[1], c);
          Value bh = arith::DivUIOp::create(nb, l, block, bv);
          Value bw = arith::RemUIOp::create(nb, l, block, bv);
          Value hi = arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, ivs[2], bv), bh);
          Value wi = arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, ivs[3], bv), bw);
          return tensor::ExtractOp::create(nb, l, x, ValueRange{ivs[0], ci, hi, wi});
        },
        dynamic);
    rewriter.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape, Size, ConstantOfShape
//===----------------------------------------------------------------------===//

/// Shape: the static dims [start, end) of the input, as a constant.
struct ShapeLowering : OpConversionPattern<onnx::ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ShapeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
    auto inShape = converter.shapeOf(op.getData());
    if (!inShape)
      return rewriter.notifyMatchFailure(op, "input rank is not known");
    int64_t rank = inShape->size();
    auto clampAxis = [&](int64_t a) {
      if (a < 0)
        a += rank;
      return std::clamp<int64_t>(a, 0, rank);
    };
    int64_t start = clampAxis(op.getStart());
    int64_t end = clampAxis(op.getEnd() ? *op.getEnd() : rank);
    ArrayRef<onnx::Dim> dims = ArrayRef<onnx::Dim>(*inShape).slice(start, std::max<int64_t>(end - start, 0));
    if (type.getRank() != 1 || type.getDimSize(0) != static_cast<int64_t>(dims.size()))
      return rewriter.notifyMatchFailure(op, "result type disagrees with start/end");
    if (llvm::all_of(dims, [](const onnx::Dim &d) { return d.isStatic(); })) {
      SmallVector<int64_t> values;
      for (const onnx::Dim &d : dims)
        values.push_back(d.size);
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, type, DenseElementsAttr::get(type, ArrayRef<int64_t>(values)));
      return success();
    }
    // Symbolic dims are computed from the symbols at run time.
    SmallVector<Value> elements;
    Location loc = op.getLoc();
    for (const onnx::Dim &d : dims) {
      if (d.isStatic()) {
        elements.push_back(arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), d.size));
        continue;
      }
      if (!d.isSymbolic())
        return rewriter.notifyMatchFailure(op, "a dim of the input is not known");
      Value v = converter.materialize(rewriter, loc, op, d.expr);
      if (!v)
        return rewriter.notifyMatchFailure(op, "a symbol has no value");
      elements.push_back(arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), v));
    }
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type, elements);
    return success();
  }
};

struct SizeLowering : OpConversionPattern<onnx::SizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::SizeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!inType || !inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "input shape is not static");
    if (type.getNumElements() != 1 || !type.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "result must be one int64");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type, DenseElementsAttr::get(type, inType.getNumElements()));
    return success();
  }
};

/// CheckedIndex: the index counted from the back where negative (when
/// allowed), checked inside [0, limit) or [0, limit] (status 16).
struct CheckedIndexLowering : OpConversionPattern<onnx::CheckedIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::CheckedIndexOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto indexType = dyn_cast<RankedTensorType>(adaptor.getIndex().getType());
    auto limitType = dyn_cast<RankedTensorType>(adaptor.getLimit().getType());
    if (!indexType || !limitType || !indexType.hasStaticShape() ||
        indexType.getNumElements() != 1 || !limitType.hasStaticShape() ||
        limitType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "index and limit must be one element each");
    Type i64 = rewriter.getI64Type();
    Value index = scalarOf(rewriter, loc, adaptor.getIndex());
    if (index.getType() != i64)
      index = arith::ExtSIOp::create(rewriter, loc, i64, index);
    Value limit = scalarOf(rewriter, loc, adaptor.getLimit());
    Value zero = i64Const(rewriter, loc, 0);
    if (op.getNegative()) {
      Value below = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, index, zero);
      Value fromBack = arith::AddIOp::create(rewriter, loc, index, limit);
      index = arith::SelectOp::create(rewriter, loc, below, fromBack, index);
    }
    Value range = op.getEnd() ? Value(arith::AddIOp::create(rewriter, loc, limit,
                                                              i64Const(rewriter, loc, 1)))
                              : limit;
    // A count against a capacity derived from a bound: status 10 past it.
    bool bound = op.getBound();
    func::FuncOp check = declareRuntimeFunction(
        rewriter, op, bound ? "onnxcc_check_bound" : "onnxcc_check_position",
        bound ? "onnxcc_rt::check_bound" : "onnxcc_rt::check_position",
        rewriter.getFunctionType({i64, i64}, {rewriter.getI32Type()}), /*usesStringPool=*/false);
    func::CallOp::create(rewriter, loc, check, ValueRange{index, bound ? limit : range});
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, RankedTensorType::get({}, i64),
                                                        ValueRange{index});
    return success();
  }
};

/// ConstantOfShape: shape inference gave the result shape (static, or
/// symbolic from Shape -> Gather -> Concat chains), so only `value` matters.
struct ConstantOfShapeLowering : OpConversionPattern<onnx::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConstantOfShapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    // A shape known only at run time (not computed from dims): run()
    // returns 9 unless its values are the static result dims.
    Value shape = adaptor.getInput();
    if (shapeValuesAtRunTime(op, 0, shape, type.getRank(), onnxConverter(getTypeConverter())))
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (!type.isDynamicDim(d))
          checkDeclaredDim(rewriter, op.getLoc(), op, readI64(rewriter, op.getLoc(), shape, d),
                           type.getDimSize(d));
    Type elem = type.getElementType();
    TypedAttr value = rewriter.getZeroAttr(elem);
    if (auto attr = op.getValueAttr()) {
      if (attr.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "value must hold one element");
      if (isa<FloatType>(attr.getElementType())) {
        auto values = attr.tryGetValues<APFloat>();
        if (!values || !isa<FloatType>(elem))
          return rewriter.notifyMatchFailure(op, "value type disagrees with the result");
        value = FloatAttr::get(elem, *values->begin());
      } else if (attr.getElementType().isInteger()) {
        auto values = attr.tryGetValues<APInt>();
        Type valueType = attr.getElementType();
        if (isSubByteInt(valueType)) {
          // int4/uint4/int2/uint2 hold one value per i8 (SmallTypes.cpp).
          if (!values || !elem.isInteger(8))
            return rewriter.notifyMatchFailure(op, "value type disagrees with the result");
          APInt v = *values->begin();
          value = IntegerAttr::get(elem, valueType.isUnsignedInteger() ? v.zext(8) : v.sext(8));
        } else {
          if (!values || !elem.isInteger(valueType.getIntOrFloatBitWidth()))
            return rewriter.notifyMatchFailure(op, "value type disagrees with the result");
          value = IntegerAttr::get(elem, *values->begin());
        }
      } else {
        return rewriter.notifyMatchFailure(op, "unsupported value type");
      }
    }
    // Dims the shape gives at run time (not a constant, not computed from
    // dims): run() returns 9 for a negative one.
    SmallVector<Value> sizes(typeAndSizes->second);
    if (op->hasAttr("onnxcc.data_dims")) {
      Location loc = op.getLoc();
      auto dataSizes = withOwnDataDims(
          rewriter, loc, op, onnxConverter(getTypeConverter()), type, sizes, [&](int64_t d) {
            Value v = readI64(rewriter, loc, shape, d);
            checkDims(rewriter, loc, op, "at_least", v, i64Const(rewriter, loc, 0));
            return arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v)
                .getResult();
          });
      if (failed(dataSizes))
        return rewriter.notifyMatchFailure(op, "a dim has no bound");
      sizes = *dataSizes;
    }
    // A fill rather than a splat constant: large shapes must not become
    // large globals.
    rewriter.replaceOp(op, buildFilled(rewriter, op.getLoc(), type, value, sizes));
    return success();
  }
};

} // namespace

void populateDataMovementPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReshapeLikeLowering<onnx::ReshapeOp>, ReshapeLikeLowering<onnx::FlattenOp>,
               ReshapeLikeLowering<onnx::SqueezeOp>, ReshapeLikeLowering<onnx::UnsqueezeOp>>(
      converter, ctx);
  patterns.add<TransposeLowering, ConcatLowering, SplitLowering, SliceLowering, ExpandLowering,
               TileLowering, PadLowering, DepthToSpaceLowering, SpaceToDepthLowering,
               ShapeLowering, SizeLowering, ConstantOfShapeLowering, CheckedIndexLowering>(
      converter, ctx);
}

} // namespace onnxcc::lowering
