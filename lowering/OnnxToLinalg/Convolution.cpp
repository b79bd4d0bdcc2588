//===- Convolution.cpp - onnx ops to linalg: convolution and pooling ------===//
//
// Conv, ConvTranspose and the pooling ops become one linalg.generic over the
// output with reduction loops over (channels of a group, kernel window). The
// input is read through an explicitly padded tensor (filled with the neutral
// value of the reduction), so the loop body has no bounds checks. This is the
// reference form: runtime-support kernels can later replace one generic each.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"

#include <cmath>

using namespace mlir;

namespace onnxcc::lowering {

/// Reads an optional INTS attribute of `n` values, or `n` copies of `dflt`.
FailureOr<SmallVector<int64_t>> intsOr(RewriterBase &rewriter, Operation *op,
                                       std::optional<ArrayRef<int64_t>> attr, size_t n,
                                       int64_t dflt, StringRef name, int64_t min) {
  SmallVector<int64_t> values(n, dflt);
  if (attr) {
    if (attr->size() != n)
      return rewriter.notifyMatchFailure(op, Twine(name) + " has the wrong number of values");
    values.assign(attr->begin(), attr->end());
  }
  for (int64_t v : values)
    if (v < min)
      return rewriter.notifyMatchFailure(op, Twine(name) + " has an out-of-range value");
  return values;
}

/// Resolves the window of `op` from its attributes and the static spatial
/// sizes of its input and result.
FailureOr<Window> resolveWindow(RewriterBase &rewriter, Operation *op,
                                ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                                ArrayRef<int64_t> kernel,
                                std::optional<ArrayRef<int64_t>> strides,
                                std::optional<ArrayRef<int64_t>> dilations,
                                std::optional<ArrayRef<int64_t>> pads, StringRef autoPad) {
  size_t n = in.size();
  Window w;
  w.in.assign(in.begin(), in.end());
  w.out.assign(out.begin(), out.end());
  if (kernel.size() != n || out.size() != n)
    return rewriter.notifyMatchFailure(op, "kernel rank does not match the input");
  w.kernel.assign(kernel.begin(), kernel.end());
  if (llvm::any_of(w.kernel, [](int64_t k) { return k < 1; }))
    return rewriter.notifyMatchFailure(op, "kernel_shape has a non-positive value");
  auto s = intsOr(rewriter, op, strides, n, 1, "strides", 1);
  auto d = intsOr(rewriter, op, dilations, n, 1, "dilations", 1);
  auto p = intsOr(rewriter, op, pads, 2 * n, 0, "pads", 0);
  if (failed(s) || failed(d) || failed(p))
    return failure();
  w.strides = *s;
  w.dilations = *d;
  for (size_t i = 0; i < n; ++i) {
    int64_t begin = 0, end = 0;
    if (autoPad == "NOTSET") {
      begin = (*p)[i];
      end = (*p)[i + n];
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t total = std::max<int64_t>(0, (out[i] - 1) * w.strides[i] + w.extent(i) - in[i]);
      begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (autoPad != "VALID") {
      return rewriter.notifyMatchFailure(op, "unknown auto_pad value");
    }
    w.padBegin.push_back(begin);
    w.padEnd.push_back(end);
    int64_t needed = out[i] > 0 ? (out[i] - 1) * w.strides[i] + w.extent(i) : 0;
    w.overhang.push_back(std::max<int64_t>(0, needed - (in[i] + begin + end)));
  }
  return w;
}

namespace {

int64_t ceilDivPositive(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floorDivPositive(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// `x` ([N, C, spatial...]) with its spatial dims padded as `w` says, the
/// padding filled with `neutral`.
Value padInput(OpBuilder &b, Location loc, Value x, const Window &w, TypedAttr neutral) {
  if (!w.needsPadding())
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
  for (size_t i = 0; i < w.rank(); ++i) {
    shape[i + 2] += w.padBegin[i] + w.padEnd[i] + w.overhang[i];
    offsets[i + 2] = w.padBegin[i];
  }
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  Value filled = buildFilled(b, loc, paddedType, neutral);
  MLIRContext *ctx = b.getContext();
  return tensor::InsertSliceOp::create(b, loc, x, filled, getAsIndexOpFoldResult(ctx, offsets),
                                       getAsIndexOpFoldResult(ctx, type.getShape()),
                                       getAsIndexOpFoldResult(ctx, strides));
}

/// Splits dim `dim` of `v` into [outer, size / outer] (a view).
Value splitDim(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t outer) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d == dim) {
      groups.push_back({static_cast<int64_t>(shape.size()),
                        static_cast<int64_t>(shape.size()) + 1});
      shape.push_back(outer);
      shape.push_back(type.getDimSize(d) / outer);
      continue;
    }
    groups.push_back({static_cast<int64_t>(shape.size())});
    shape.push_back(type.getDimSize(d));
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
}

/// Merges dims `dim` and `dim + 1` of `v` (a view).
Value mergeDims(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d == dim) {
      groups.push_back({d, d + 1});
      shape.push_back(type.isDynamicDim(d) || type.isDynamicDim(d + 1)
                          ? ShapedType::kDynamic
                          : type.getDimSize(d) * type.getDimSize(d + 1));
      ++d;
      continue;
    }
    groups.push_back({d});
    shape.push_back(type.getDimSize(d));
  }
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
}

Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value splitDimMixed(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t outer);

/// The [N, G, M/G, out...] accumulator of a convolution (its dynamic dims
/// `dynamic`): the bias broadcast, or zeros when `bias` is null or none.
Value buildConvInit(OpBuilder &b, Location loc, RankedTensorType type, Value bias,
                    int64_t group, ValueRange dynamic = {}) {
  if (!bias || isa<NoneType>(bias.getType()))
    return buildFilled(b, loc, type, b.getZeroAttr(type.getElementType()), dynamic);
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  Value grouped = splitDimMixed(b, loc, bias, 0, group);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  Value empty = emptyTensor(b, loc, type, dynamic);
  return linalg::GenericOp::create(
             b, loc, type, grouped, empty, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = args[0];
               if (v.getType() != type.getElementType())
                 v = arith::ExtFOp::create(nb, nloc, type.getElementType(), v);
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

/// The grouped convolution generic shared by Conv and ConvTranspose:
///   y[n, g, m, o...] += x[n, g, c, input index of (o, k)]
///                       * w[weight index of (g, m, c, k)]
/// over loops (n, g, m, o..., c, k...). `x` is [N, G, C/G, padded...];
/// `inputExprs` (the spatial part) and `weightExprs` map the loops to the
/// indices of x and w. Every k must appear alone in `weightExprs`.
Value buildGroupedConv(OpBuilder &b, Location loc, Value x, Value weight,
                       ArrayRef<AffineExpr> inputExprs, ArrayRef<AffineExpr> weightExprs,
                       Value init) {
  MLIRContext *ctx = b.getContext();
  int64_t s = static_cast<int64_t>(inputExprs.size());
  int64_t numLoops = 3 + 2 * s + 1;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  int64_t cLoop = 3 + s;
  SmallVector<AffineExpr> xExprs = {dim(0), dim(1), dim(cLoop)};
  SmallVector<AffineExpr> yExprs = {dim(0), dim(1), dim(2)};
  llvm::append_range(xExprs, inputExprs);
  for (int64_t i = 0; i < s; ++i)
    yExprs.push_back(dim(3 + i));
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, xExprs, ctx),
                                 AffineMap::get(numLoops, 0, weightExprs, ctx),
                                 AffineMap::get(numLoops, 0, yExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(3 + s, utils::IteratorType::parallel);
  iterators.append(1 + s, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x, weight}, init, maps, iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               // float16 operands into a float32 accumulator (buildConv).
               auto widen = [&](Value v) -> Value {
                 Type acc = args[2].getType();
                 return v.getType() == acc || !isa<FloatType>(acc)
                            ? v
                            : arith::ExtFOp::create(nb, nloc, acc, v).getResult();
               };
               Value product = isa<FloatType>(args[0].getType())
                                   ? Value(arith::MulFOp::create(nb, nloc, widen(args[0]),
                                                                 widen(args[1])))
                                   : Value(arith::MulIOp::create(nb, nloc, args[0], args[1]));
               linalg::YieldOp::create(nb, nloc, addScalars(nb, nloc, args[2], product));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Windows over symbolic spatial dims
//===----------------------------------------------------------------------===//

/// A window whose input or output spatial sizes are symbolic: the sizes and
/// pads are values computed in run() (the output sizes are the result's
/// dims, derived symbols of the shape functions).
struct SymbolicWindow {
  SmallVector<int64_t> kernel, strides, dilations;
  /// Per spatial dim: the input size, the begin pad and the padded size
  /// (input + both pads, at least what the last window reaches).
  SmallVector<Value> in, padBegin, padEnd, padded;
  /// Whether any pad (or ceil_mode overhang) is there at all.
  bool needsPadding = false;
  /// All dims of X and of Y.
  SmallVector<OpFoldResult> xSizes, ySizes;
  size_t rank() const { return kernel.size(); }
  int64_t extent(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
};

Value indexValue(OpBuilder &b, Location loc, OpFoldResult v) {
  if (auto value = dyn_cast<Value>(v))
    return value;
  return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(v));
}

/// All dims of `v`, static ones as attributes.
SmallVector<OpFoldResult> mixedSizes(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> out;
  for (int64_t d = 0; d < type.getRank(); ++d)
    out.push_back(type.isDynamicDim(d)
                      ? OpFoldResult(tensor::DimOp::create(b, loc, v, d).getResult())
                      : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return out;
}

/// All dims of a result of `type` whose dynamic dims are `dynamic`, static
/// ones as attributes.
SmallVector<OpFoldResult> mixedSizes(OpBuilder &b, RankedTensorType type, ValueRange dynamic) {
  SmallVector<OpFoldResult> out;
  for (int64_t d = 0, k = 0; d < type.getRank(); ++d)
    out.push_back(type.isDynamicDim(d) ? OpFoldResult(dynamic[k++])
                                       : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return out;
}

/// Whether `op`'s input X (operand 0) has a symbolic spatial dim: such a
/// Conv or pool lowers through the symbolic window path below, not on
/// static slices.
} // namespace

bool hasSymbolicWindow(Operation *op) {
  if (!isa<onnx::ConvOp, onnx::ConvTransposeOp, onnx::MaxPoolOp, onnx::AveragePoolOp,
           onnx::LpPoolOp>(op) ||
      op->getNumOperands() == 0)
    return false;
  auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!x || x.getRank() < 3)
    return false;
  for (int64_t d = 2; d < x.getRank(); ++d)
    if (x.isDynamicDim(d))
      return true;
  return false;
}

namespace {

/// Resolves a window over X (`x`, [N, C, in...]) giving Y of dims `ySizes`.
FailureOr<SymbolicWindow>
resolveSymbolicWindow(ConversionPatternRewriter &rewriter, Operation *op, Value x,
                      ArrayRef<OpFoldResult> ySizes, ArrayRef<int64_t> kernel,
                      std::optional<ArrayRef<int64_t>> strides,
                      std::optional<ArrayRef<int64_t>> dilations,
                      std::optional<ArrayRef<int64_t>> pads, StringRef autoPad,
                      bool ceilMode) {
  OpBuilder &b = rewriter;
  Location loc = op->getLoc();
  SymbolicWindow w;
  w.xSizes = mixedSizes(b, loc, x);
  w.ySizes.assign(ySizes.begin(), ySizes.end());
  size_t n = w.xSizes.size() - 2;
  if (kernel.size() != n || ySizes.size() != n + 2)
    return rewriter.notifyMatchFailure(op, "kernel rank does not match the input");
  w.kernel.assign(kernel.begin(), kernel.end());
  if (llvm::any_of(w.kernel, [](int64_t k) { return k < 1; }))
    return rewriter.notifyMatchFailure(op, "kernel_shape has a non-positive value");
  auto s = intsOr(rewriter, op, strides, n, 1, "strides", 1);
  auto d = intsOr(rewriter, op, dilations, n, 1, "dilations", 1);
  auto p = intsOr(rewriter, op, pads, 2 * n, 0, "pads", 0);
  if (failed(s) || failed(d) || failed(p))
    return failure();
  w.strides = *s;
  w.dilations = *d;
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return rewriter.notifyMatchFailure(op, "unknown auto_pad value");
  auto cst = [&](int64_t c) { return Value(arith::ConstantIndexOp::create(b, loc, c)); };
  for (size_t i = 0; i < n; ++i) {
    Value in = indexValue(b, loc, w.xSizes[i + 2]);
    Value out = indexValue(b, loc, ySizes[i + 2]);
    // What the last window reaches: (out - 1) * stride + extent (0 when out is).
    Value needed = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, out, cst(1)),
                                      cst(w.strides[i])),
        cst(w.extent(i)));
    Value isEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, out, cst(0));
    needed = arith::SelectOp::create(b, loc, isEmpty, cst(0), needed);
    // (`needed` only sizes SAME's pads.)
    Value begin, end;
    if (same) {
      Value total = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, needed, in),
                                           cst(0));
      Value half = arith::DivSIOp::create(b, loc, total, cst(2));
      begin = autoPad == "SAME_UPPER" ? half : Value(arith::SubIOp::create(b, loc, total, half));
      end = arith::SubIOp::create(b, loc, total, begin);
    } else if (autoPad == "NOTSET") {
      begin = cst((*p)[i]);
      end = cst((*p)[i + n]);
    } else {
      begin = end = cst(0);
    }
    w.in.push_back(in);
    w.padBegin.push_back(begin);
    w.padEnd.push_back(end);
    // The padded buffer: at least what the last window reaches, as the
    // input's size plus a constant (memory planning needs a polynomial of
    // the symbols). Without ceil_mode the window fits in the pads; ceil_mode
    // reaches at most stride - 1 past them; SAME pads less than the extent.
    int64_t extra = same ? w.extent(i) - 1 : autoPad == "NOTSET" ? (*p)[i] + (*p)[i + n] : 0;
    if (ceilMode && !same)
      extra += w.strides[i] - 1;
    w.needsPadding |= extra != 0;
    w.padded.push_back(arith::AddIOp::create(b, loc, in, cst(extra)));
  }
  return w;
}

/// X padded as `w` says, the padding filled with `neutral`.
Value padSymbolic(OpBuilder &b, Location loc, Value x, const SymbolicWindow &w,
                  TypedAttr neutral) {
  if (!w.needsPadding)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<Value> dynamic;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d < 2) {
      if (type.isDynamicDim(d))
        dynamic.push_back(indexValue(b, loc, w.xSizes[d]));
      continue;
    }
    shape[d] = ShapedType::kDynamic;
    dynamic.push_back(w.padded[d - 2]);
    offsets[d] = w.padBegin[d - 2];
  }
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  Value filled = buildFilled(b, loc, paddedType, neutral, dynamic);
  return tensor::InsertSliceOp::create(b, loc, x, filled, offsets, w.xSizes, strides);
}

/// Splits dim `dim` of `v` into [outer, size / outer], other dims kept
/// (symbolic ones too). A symbolic `dim` splits only with `outer` 1.
Value splitDimMixed(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t outer) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.hasStaticShape())
    return splitDim(b, loc, v, dim, outer);
  SmallVector<OpFoldResult> sizes = mixedSizes(b, loc, v), outSizes;
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t at = static_cast<int64_t>(shape.size());
    if (d == dim && type.isDynamicDim(d)) {
      assert(outer == 1 && "a symbolic dim splits only into [1, size]");
      groups.push_back({at, at + 1});
      shape.append({1, ShapedType::kDynamic});
      outSizes.append({b.getIndexAttr(1), sizes[d]});
      continue;
    }
    if (d == dim) {
      groups.push_back({at, at + 1});
      shape.append({outer, type.getDimSize(d) / outer});
      outSizes.append({b.getIndexAttr(outer), b.getIndexAttr(type.getDimSize(d) / outer)});
      continue;
    }
    groups.push_back({at});
    shape.push_back(type.getDimSize(d));
    outSizes.push_back(sizes[d]);
  }
  return tensor::ExpandShapeOp::create(b, loc,
                                       RankedTensorType::get(shape, type.getElementType()), v,
                                       groups, outSizes);
}

/// The dynamic ones of `sizes`, as values.
SmallVector<Value> dynamicOf(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> out;
  for (OpFoldResult s : sizes)
    if (auto v = dyn_cast<Value>(s))
      out.push_back(v);
  return out;
}

/// The shapes of a Conv-like op over symbolic spatial dims: Y's type and
/// dynamic sizes, X and W of the same rank >= 3, W static.
struct SymbolicConvShapes {
  RankedTensorType x, w, y;
  SmallVector<Value> yDynamic;
};

FailureOr<SymbolicConvShapes> symbolicConvShapes(ConversionPatternRewriter &rewriter,
                                                 const TypeConverter *converter, Operation *op,
                                                 Value x, Value w) {
  auto result = symbolicResultType(rewriter, converter, op, 0);
  if (failed(result))
    return failure();
  SymbolicConvShapes s{dyn_cast<RankedTensorType>(x.getType()),
                       dyn_cast<RankedTensorType>(w.getType()), result->first, result->second};
  if (!s.x || !s.w || s.x.getRank() < 3 || s.w.getRank() != s.x.getRank() ||
      s.y.getRank() != s.x.getRank() || (s.w.isDynamicDim(1) && !s.x.isDynamicDim(1)))
    return rewriter.notifyMatchFailure(op, "X, W and Y need the same rank >= 3, W's "
                                           "channels static");
  return s;
}

/// Conv over symbolic spatial dims: the reference generic of buildConv
/// over a padded input whose sizes are computed at run time.
FailureOr<Value> buildSymbolicConv(ConversionPatternRewriter &rewriter, Operation *op,
                                   const TypeConverter *converter, Value xIn, Value wIn,
                                   Value bias, int64_t group,
                                   std::optional<ArrayRef<int64_t>> kernelAttr,
                                   std::optional<ArrayRef<int64_t>> strides,
                                   std::optional<ArrayRef<int64_t>> dilations,
                                   std::optional<ArrayRef<int64_t>> pads, StringRef autoPad,
                                   Type accElem) {
  auto shapes = symbolicConvShapes(rewriter, converter, op, xIn, wIn);
  if (failed(shapes))
    return failure();
  auto [xType, wType, yType, yDynamic] = *shapes;
  int64_t channels = xType.getDimSize(1), outChannels = wType.getDimSize(0);
  // Output channels given at run time (weights that are an input of the
  // model) come in one group.
  bool symbolicM = ShapedType::isDynamic(outChannels);
  // Input channels given at run time on both X and W (one group): the
  // reduction runs over them; shape inference unified X's with W's, which
  // run() checks.
  bool symbolicC = ShapedType::isDynamic(channels);
  if (symbolicC ? group != 1 || !wType.isDynamicDim(1)
                : group < 1 || channels % group || channels / group != wType.getDimSize(1))
    return rewriter.notifyMatchFailure(op, "channels do not match W and group");
  if ((symbolicM ? group != 1 : outChannels % group != 0) || yType.getDimSize(1) != outChannels)
    return rewriter.notifyMatchFailure(op, "channels do not match W and group");
  ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
  if (kernelAttr && *kernelAttr != kernel)
    return rewriter.notifyMatchFailure(op, "kernel_shape does not match W");
  // Symbolic kernel dims (weights given at run time): the loops take them
  // from W, and with explicit pads the window's extent sizes nothing else
  // (shape inference derived Y's dims from them), so 1 stands for them.
  SmallVector<int64_t> windowKernel(kernel);
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  for (int64_t &k : windowKernel)
    if (ShapedType::isDynamic(k)) {
      if (same)
        return rewriter.notifyMatchFailure(op, "SAME padding of a symbolic kernel");
      k = 1;
    }
  if (accElem)
    yType = RankedTensorType::get(yType.getShape(), accElem);
  Location loc = op->getLoc();
  SmallVector<OpFoldResult> ySizes = mixedSizes(rewriter, yType, yDynamic);
  auto w = resolveSymbolicWindow(rewriter, op, xIn, ySizes, windowKernel, strides, dilations,
                                 pads, autoPad, /*ceilMode=*/false);
  if (failed(w))
    return failure();
  MLIRContext *ctx = rewriter.getContext();
  Type elem = yType.getElementType();
  Value x = padSymbolic(rewriter, loc, xIn, *w, rewriter.getZeroAttr(elem));
  x = splitDimMixed(rewriter, loc, x, 1, group);
  Value weight = splitDimMixed(rewriter, loc, wIn, 0, group);
  int64_t s = static_cast<int64_t>(w->rank());
  SmallVector<AffineExpr> wExprs = {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx),
                                    getAffineDimExpr(3 + s, ctx)};
  for (int64_t i = 0; i < s; ++i)
    wExprs.push_back(getAffineDimExpr(4 + s + i, ctx));
  // The [N, G, M/G, out...] accumulator: zeros, or the bias broadcast.
  SmallVector<int64_t> groupedShape = {yType.getDimSize(0), group,
                                       symbolicM ? ShapedType::kDynamic : outChannels / group};
  llvm::append_range(groupedShape, yType.getShape().drop_front(2));
  SmallVector<OpFoldResult> groupedSizes = {
      ySizes[0], rewriter.getIndexAttr(group),
      symbolicM ? ySizes[1] : OpFoldResult(rewriter.getIndexAttr(outChannels / group))};
  llvm::append_range(groupedSizes, ArrayRef(ySizes).drop_front(2));
  auto groupedType = RankedTensorType::get(groupedShape, elem);
  Value init = buildConvInit(rewriter, loc, groupedType, bias, group,
                             dynamicOf(rewriter, loc, groupedSizes));
  SmallVector<AffineExpr> xExprs;
  for (int64_t i = 0; i < s; ++i)
    xExprs.push_back(getAffineDimExpr(3 + i, ctx) * w->strides[i] +
                     getAffineDimExpr(4 + s + i, ctx) * w->dilations[i]);
  Value y = buildGroupedConv(rewriter, loc, x, weight, xExprs, wExprs, init);
  return mergeDims(rewriter, loc, y, 1);
}

/// Shapes of a Conv-like op, checked: X [N, C, in...], W, Y [N, M, out...].
struct ConvShapes {
  RankedTensorType x, w, y;
};

FailureOr<ConvShapes> convShapes(ConversionPatternRewriter &rewriter, Operation *op,
                                 const TypeConverter *converter, Value x, Value w,
                                 Value bias) {
  ConvShapes shapes;
  shapes.y = staticResultType(rewriter, converter, op);
  if (!shapes.y)
    return failure();
  shapes.x = dyn_cast<RankedTensorType>(x.getType());
  shapes.w = dyn_cast<RankedTensorType>(w.getType());
  if (!shapes.x || !shapes.w || !shapes.x.hasStaticShape() || !shapes.w.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "X and W need static shapes");
  if (shapes.x.getRank() < 3 || shapes.w.getRank() != shapes.x.getRank() ||
      shapes.y.getRank() != shapes.x.getRank())
    return rewriter.notifyMatchFailure(op, "X, W and Y need the same rank >= 3");
  if (auto b = bias ? dyn_cast<RankedTensorType>(bias.getType()) : RankedTensorType();
      b && (b.getRank() != 1 || b.getDimSize(0) != shapes.y.getDimSize(1)))
    return rewriter.notifyMatchFailure(op, "bias must have one value per output channel");
  return shapes;
}

/// Conv: Y[n, m, o...] = B[m] + sum over the channels of m's group and the
/// kernel window of X_padded[n, c, o * s + k * d] * W[m, c, k]. Shared by
/// Conv and ConvInteger (whose operands arrive as i32 without zero points).
/// `accElem`, when given, is the accumulator's element type in place of the
/// result's (QLinearConv accumulates in i32, then requantizes).
template <typename OpTy>
FailureOr<Value> buildConv(ConversionPatternRewriter &rewriter, OpTy op,
                           const TypeConverter *converter, Value xIn, Value wIn, Value bias,
                           Type accElem = {}) {
  auto wt = dyn_cast<RankedTensorType>(wIn.getType());
  // X's channels known only at run time (a slice of a symbolic dim) are W's
  // times group: run() checks that equality (shape inference unified them).
  if (auto xt = dyn_cast<RankedTensorType>(xIn.getType());
      xt && wt && xt.getRank() >= 2 && wt.getRank() >= 2 && xt.isDynamicDim(1) &&
      !wt.isDynamicDim(1) && op.getGroup() >= 1) {
    SmallVector<int64_t> shape(xt.getShape());
    shape[1] = wt.getDimSize(1) * static_cast<int64_t>(op.getGroup());
    xIn = tensor::CastOp::create(rewriter, op.getLoc(),
                                 RankedTensorType::get(shape, xt.getElementType()), xIn);
  }
  if (auto xt = dyn_cast<RankedTensorType>(xIn.getType());
      xt && (hasSymbolicWindow(op) || (wt && !wt.hasStaticShape())))
    return buildSymbolicConv(rewriter, op, converter, xIn, wIn, bias,
                             static_cast<int64_t>(op.getGroup()), op.getKernelShape(),
                             op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad(),
                             accElem);
  auto shapes = convShapes(rewriter, op, converter, xIn, wIn, bias);
  if (failed(shapes))
    return failure();
  auto [xType, wType, yType] = *shapes;
  if (accElem)
    yType = RankedTensorType::get(yType.getShape(), accElem);
  // float16/bfloat16 accumulate in float32, rounded once at the end.
  RankedTensorType roundedType;
  if (Type wide = accumulatorType(yType.getElementType()); wide != yType.getElementType()) {
    roundedType = yType;
    yType = RankedTensorType::get(yType.getShape(), wide);
  }
  auto w = resolveConvWindow(rewriter, op, xType, wType, yType);
  if (failed(w))
    return failure();
  int64_t group = static_cast<int64_t>(op.getGroup());
  int64_t outChannels = wType.getDimSize(0);

  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type elem = yType.getElementType();
  Value x = padInput(rewriter, loc, xIn, *w,
                     rewriter.getZeroAttr(cast<RankedTensorType>(xIn.getType()).getElementType()));
  x = splitDim(rewriter, loc, x, 1, group);
  Value weight = splitDim(rewriter, loc, wIn, 0, group);
  int64_t s = static_cast<int64_t>(w->rank());
  // Loops (n, g, m, o..., c, k...); W is [G, M/G, C/G, k...].
  SmallVector<AffineExpr> wExprs = {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx),
                                    getAffineDimExpr(3 + s, ctx)};
  for (int64_t i = 0; i < s; ++i)
    wExprs.push_back(getAffineDimExpr(4 + s + i, ctx));
  SmallVector<int64_t> groupedShape = {yType.getDimSize(0), group, outChannels / group};
  llvm::append_range(groupedShape, yType.getShape().drop_front(2));
  Value init =
      buildConvInit(rewriter, loc, RankedTensorType::get(groupedShape, elem), bias, group);
  SmallVector<AffineExpr> xExprs;
  for (int64_t i = 0; i < s; ++i)
    xExprs.push_back(getAffineDimExpr(3 + i, ctx) * w->strides[i] +
                     getAffineDimExpr(4 + s + i, ctx) * w->dilations[i]);
  Value y = buildGroupedConv(rewriter, loc, x, weight, xExprs, wExprs, init);
  y = mergeDims(rewriter, loc, y, 1);
  return roundedType ? roundAccumulator(rewriter, loc, y, roundedType) : y;
}

struct ConvLowering : OpConversionPattern<onnx::ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto y = buildConv(rewriter, op, getTypeConverter(), adaptor.getX(), adaptor.getW(),
                       adaptor.getB());
    if (failed(y))
      return failure();
    rewriter.replaceOp(op, *y);
    return success();
  }
};

/// `v` (elements of onnx type `from`) as i32 minus its zero point `zp` (none,
/// a scalar, or for W one value per output channel, dim 0).
FailureOr<Value> subtractZeroPoint(ConversionPatternRewriter &rewriter, Operation *op, Value v,
                                   Type from, Value zp, Type zpFrom) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(v.getType());
  Type i32 = rewriter.getI32Type();
  auto resultType = RankedTensorType::get(type.getShape(), i32);
  SmallVector<Value> operands = {v};
  if (!isa<NoneType>(zp.getType())) {
    auto zpType = dyn_cast<RankedTensorType>(zp.getType());
    if (!zpType || zpType.getRank() > 1 ||
        (zpType.getRank() == 1 && zpType.getDimSize(0) != 1 &&
         zpType.getDimSize(0) != type.getDimSize(0)))
      return rewriter.notifyMatchFailure(op, "zero point must be a scalar or one per channel");
    if (zpType.getRank() == 1 && type.getRank() > 1) {
      // [M] -> [M, 1, ...] so that it broadcasts along dim 0.
      SmallVector<int64_t> shape(type.getRank(), 1);
      shape[0] = zpType.getDimSize(0);
      SmallVector<ReassociationIndices> groups(1);
      for (int64_t d = 0; d < type.getRank(); ++d)
        groups[0].push_back(d);
      zp = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, zpType.getElementType()), zp, groups);
    }
    operands.push_back(zp);
  }
  return buildBroadcastGeneric(
      rewriter, loc, resultType, operands,
      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
        Value r = castScalar(b, l, args[0], from, i32);
        if (args.size() == 1)
          return r;
        return arith::SubIOp::create(b, l, r, castScalar(b, l, args[1], zpFrom, i32));
      });
}

/// ConvInteger: Conv over (x - x_zero_point) and (w - w_zero_point) in i32.
/// Padding is zero after the subtraction, i.e. the zero point before it.
struct ConvIntegerLowering : OpConversionPattern<onnx::ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConvIntegerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
    if (!xType || !wType || !xType.hasStaticShape() || !wType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "X and W need static shapes");
    auto x = subtractZeroPoint(rewriter, op, adaptor.getX(), onnxElementType(op.getX()),
                               adaptor.getXZeroPoint(), onnxElementType(op.getXZeroPoint()));
    if (failed(x))
      return failure();
    auto w = subtractZeroPoint(rewriter, op, adaptor.getW(), onnxElementType(op.getW()),
                               adaptor.getWZeroPoint(), onnxElementType(op.getWZeroPoint()));
    if (failed(w))
      return failure();
    auto y = buildConv(rewriter, op, getTypeConverter(), *x, *w, /*bias=*/Value());
    if (failed(y))
      return failure();
    rewriter.replaceOp(op, *y);
    return success();
  }
};

/// QLinearConv: the ConvInteger accumulation plus B (i32), scaled by
/// x_scale * w_scale / y_scale (w_scale per output channel or scalar),
/// rounded half to even, shifted by y_zero_point and saturated.
struct QLinearConvLowering : OpConversionPattern<onnx::QLinearConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::QLinearConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType)
      return failure();
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
    if (!xType || !wType || !xType.hasStaticShape() || !wType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "X and W need static shapes");
    auto isScalar = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.hasStaticShape() && t.getNumElements() == 1 && t.getRank() <= 1;
    };
    if (!isScalar(adaptor.getXScale()) || !isScalar(adaptor.getYScale()) ||
        !isScalar(adaptor.getYZeroPoint()))
      return rewriter.notifyMatchFailure(op, "x_scale, y_scale and y_zero_point must be scalars");
    auto x = subtractZeroPoint(rewriter, op, adaptor.getX(), onnxElementType(op.getX()),
                               adaptor.getXZeroPoint(), onnxElementType(op.getXZeroPoint()));
    if (failed(x))
      return failure();
    auto w = subtractZeroPoint(rewriter, op, adaptor.getW(), onnxElementType(op.getW()),
                               adaptor.getWZeroPoint(), onnxElementType(op.getWZeroPoint()));
    if (failed(w))
      return failure();
    auto acc = buildConv(rewriter, op, getTypeConverter(), *x, *w, adaptor.getB(),
                         rewriter.getI32Type());
    if (failed(acc))
      return failure();

    Location loc = op.getLoc();
    int64_t rank = yType.getRank();
    // w_scale [M] -> [M, 1, ...] to broadcast along the channel dim.
    Value wScale = adaptor.getWScale();
    auto wScaleType = dyn_cast<RankedTensorType>(wScale.getType());
    if (!wScaleType || wScaleType.getRank() > 1 ||
        (wScaleType.getRank() == 1 && wScaleType.getDimSize(0) != 1 &&
         wScaleType.getDimSize(0) != yType.getDimSize(1)))
      return rewriter.notifyMatchFailure(op, "w_scale must be a scalar or one per channel");
    if (wScaleType.getRank() == 1) {
      SmallVector<int64_t> shape(rank - 1, 1);
      shape[0] = wScaleType.getDimSize(0);
      SmallVector<ReassociationIndices> groups(1);
      for (int64_t d = 0; d < rank - 1; ++d)
        groups[0].push_back(d);
      wScale = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, wScaleType.getElementType()), wScale,
          groups);
    }
    Type yOnnx = onnxElementType(op.getY());
    bool isUnsigned = isUnsignedInt(yOnnx);
    unsigned width = yOnnx.getIntOrFloatBitWidth();
    double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi = isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
    Type zpOnnx = onnxElementType(op.getYZeroPoint());
    Value y = buildBroadcastGeneric(
        rewriter, loc, yType,
        ValueRange{*acc, adaptor.getXScale(), wScale, adaptor.getYScale(),
                   adaptor.getYZeroPoint()},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Type f32 = b.getF32Type();
          Value a = arith::SIToFPOp::create(b, l, f32, args[0]);
          Value scale = arith::MulFOp::create(b, l, args[1], args[2]);
          scale = arith::DivFOp::create(b, l, scale, args[3]);
          Value r = math::RoundEvenOp::create(b, l, arith::MulFOp::create(b, l, a, scale));
          r = arith::AddFOp::create(b, l, r, castScalar(b, l, args[4], zpOnnx, f32));
          r = arith::MaximumFOp::create(
              b, l, r, arith::ConstantOp::create(b, l, b.getF32FloatAttr(lo)));
          r = arith::MinimumFOp::create(
              b, l, r, arith::ConstantOp::create(b, l, b.getF32FloatAttr(hi)));
          return castScalar(b, l, r, f32, yOnnx);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// The index maps of ConvTranspose's grouped convolution over Z, loops (n,
/// g, m, o..., c, k...): W [G, C/G, M/G, k...] read at (g, c, m, k) and Z at
/// o + (K - 1 - k) * d (the kernel flipped).
void transposedConvMaps(MLIRContext *ctx, ArrayRef<int64_t> kernel, ArrayRef<int64_t> dilations,
                        SmallVectorImpl<AffineExpr> &zExprs,
                        SmallVectorImpl<AffineExpr> &wExprs) {
  int64_t s = static_cast<int64_t>(kernel.size());
  wExprs.assign({getAffineDimExpr(1, ctx), getAffineDimExpr(3 + s, ctx), getAffineDimExpr(2, ctx)});
  zExprs.clear();
  for (int64_t i = 0; i < s; ++i) {
    AffineExpr k = getAffineDimExpr(4 + s + i, ctx);
    wExprs.push_back(k);
    zExprs.push_back(getAffineDimExpr(3 + i, ctx) +
                     (getAffineConstantExpr(kernel[i] - 1, ctx) - k) * dilations[i]);
  }
}

/// ConvTranspose as a convolution: X is spread out by the stride (zeros in
/// between) and placed at offset (k - 1) * d - pad_begin of a zero tensor Z,
/// then Y[n, m, o...] = B[m] + sum Z[n, c, o + k * d] * W[c, m, K - 1 - k]
/// (the kernel flipped). Entries of X that land outside Z never reach Y.
///
/// With symbolic spatial dims (an image of any size) the same with run-time
/// sizes: the result's dims are s * in + c (shape inference), Z is the
/// result plus the kernel's reach, and the part of X that lands inside Z
/// starts at a constant and has a run-time length.
FailureOr<Value> buildSymbolicConvTranspose(ConversionPatternRewriter &rewriter,
                                            onnx::ConvTransposeOp op,
                                            const TypeConverter *converter, Value xIn, Value wIn,
                                            Value bias) {
  auto shapes = symbolicConvShapes(rewriter, converter, op, xIn, wIn);
  if (failed(shapes))
    return failure();
  auto [xType, wType, yType, yDynamic] = *shapes;
  if (op.getOutputShape())
    return rewriter.notifyMatchFailure(op, "output_shape with symbolic input dims");
  int64_t group = static_cast<int64_t>(op.getGroup());
  int64_t channels = xType.getDimSize(1);
  int64_t outChannels = wType.getDimSize(1) * group;
  if (ShapedType::isDynamic(channels) || group < 1 || channels % group ||
      channels != wType.getDimSize(0) || yType.getDimSize(1) != outChannels)
    return rewriter.notifyMatchFailure(op, "channels do not match W and group");
  ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
  if (auto k = op.getKernelShape(); k && *k != kernel)
    return rewriter.notifyMatchFailure(op, "kernel_shape does not match W");
  size_t n = kernel.size();
  auto strides = intsOr(rewriter, op, op.getStrides(), n, 1, "strides", 1);
  auto dilations = intsOr(rewriter, op, op.getDilations(), n, 1, "dilations", 1);
  auto pads = intsOr(rewriter, op, op.getPads(), 2 * n, 0, "pads", 0);
  auto outputPadding = intsOr(rewriter, op, op.getOutputPadding(), n, 0, "output_padding", 0);
  if (failed(strides) || failed(dilations) || failed(pads) || failed(outputPadding))
    return failure();
  StringRef autoPad = op.getAutoPad();
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return rewriter.notifyMatchFailure(op, "unknown auto_pad value");

  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type elem = yType.getElementType();
  SmallVector<OpFoldResult> xSizes = mixedSizes(rewriter, loc, xIn);
  SmallVector<OpFoldResult> ySizes = mixedSizes(rewriter, yType, yDynamic);
  auto cst = [&](int64_t c) { return Value(arith::ConstantIndexOp::create(rewriter, loc, c)); };
  SmallVector<int64_t> zShape = {xType.getDimSize(0), channels};
  SmallVector<Value> zDynamic;
  if (xType.isDynamicDim(0))
    zDynamic.push_back(indexValue(rewriter, loc, xSizes[0]));
  SmallVector<OpFoldResult> sliceOffsets = {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)},
                            sliceSizes = {xSizes[0], xSizes[1]},
                            sliceStrides(n + 2, rewriter.getIndexAttr(1)),
                            zOffsets = {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)},
                            zStrides = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
  for (size_t i = 0; i < n; ++i) {
    int64_t s = (*strides)[i], reach = (kernel[i] - 1) * (*dilations)[i];
    // The begin pad: explicit, none (VALID), or SAME's half of a total that
    // is a constant since out = in * s.
    int64_t padBegin = (*pads)[i];
    if (autoPad == "VALID") {
      padBegin = 0;
    } else if (same) {
      int64_t total = (*outputPadding)[i] + reach + 1 - s;
      int64_t half = floorDivPositive(total, 2);
      padBegin = autoPad == "SAME_UPPER" ? half : total - half;
    }
    int64_t offset = reach - padBegin;
    Value in = indexValue(rewriter, loc, xSizes[i + 2]);
    Value out = indexValue(rewriter, loc, ySizes[i + 2]);
    // Z: the result plus the kernel's reach (a polynomial of the symbols).
    Value zSize = arith::AddIOp::create(rewriter, loc, out, cst(reach));
    zShape.push_back(xType.isDynamicDim(i + 2) || yType.isDynamicDim(i + 2)
                         ? ShapedType::kDynamic
                         : yType.getDimSize(i + 2) + reach);
    if (ShapedType::isDynamic(zShape.back()))
      zDynamic.push_back(zSize);
    // X[j] lands on Z[j * s + offset]: the j in [first, last] land inside,
    // first = max(0, ceil(-offset / s)) and last = min(in - 1,
    // floor((zSize - 1 - offset) / s)), where zSize - 1 - offset =
    // out - 1 + padBegin >= -1 (so the division is of a value >= s - 1).
    int64_t first = std::max<int64_t>(0, ceilDivPositive(-offset, s));
    Value numer = arith::AddIOp::create(rewriter, loc, out, cst(padBegin - 1 + s));
    Value lastPlusOne = arith::DivSIOp::create(rewriter, loc, numer, cst(s));
    Value count = arith::MinSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, in, cst(first)),
        arith::SubIOp::create(rewriter, loc, lastPlusOne, cst(first)));
    count = arith::MaxSIOp::create(rewriter, loc, count, cst(0));
    sliceOffsets.push_back(rewriter.getIndexAttr(first));
    sliceSizes.push_back(count);
    zOffsets.push_back(rewriter.getIndexAttr(first * s + offset));
    zStrides.push_back(rewriter.getIndexAttr(s));
  }
  auto zType = RankedTensorType::get(zShape, elem);
  Value z = buildFilled(rewriter, loc, zType, rewriter.getZeroAttr(elem), zDynamic);
  Value x = tensor::ExtractSliceOp::create(rewriter, loc, xIn, sliceOffsets, sliceSizes,
                                           sliceStrides);
  z = tensor::InsertSliceOp::create(rewriter, loc, x, z, zOffsets, sliceSizes, zStrides);
  z = splitDimMixed(rewriter, loc, z, 1, group);
  Value weight = splitDim(rewriter, loc, wIn, 0, group);
  SmallVector<AffineExpr> zExprs, wExprs;
  transposedConvMaps(ctx, kernel, *dilations, zExprs, wExprs);
  SmallVector<int64_t> groupedShape = {yType.getDimSize(0), group, outChannels / group};
  llvm::append_range(groupedShape, yType.getShape().drop_front(2));
  SmallVector<OpFoldResult> groupedSizes = {ySizes[0], rewriter.getIndexAttr(group),
                                            rewriter.getIndexAttr(outChannels / group)};
  llvm::append_range(groupedSizes, ArrayRef(ySizes).drop_front(2));
  Value init = buildConvInit(rewriter, loc, RankedTensorType::get(groupedShape, elem), bias,
                             group, dynamicOf(rewriter, loc, groupedSizes));
  Value y = buildGroupedConv(rewriter, loc, z, weight, zExprs, wExprs, init);
  return mergeDims(rewriter, loc, y, 1);
}

struct ConvTransposeLowering : OpConversionPattern<onnx::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConvTransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (hasSymbolicWindow(op)) {
      auto y = buildSymbolicConvTranspose(rewriter, op, getTypeConverter(), adaptor.getX(),
                                          adaptor.getW(), adaptor.getB());
      if (failed(y))
        return failure();
      rewriter.replaceOp(op, *y);
      return success();
    }
    auto shapes = convShapes(rewriter, op, getTypeConverter(), adaptor.getX(), adaptor.getW(),
                             adaptor.getB());
    if (failed(shapes))
      return failure();
    auto [xType, wType, yType] = *shapes;
    int64_t group = static_cast<int64_t>(op.getGroup());
    int64_t channels = xType.getDimSize(1);
    int64_t outChannels = wType.getDimSize(1) * group;
    if (group < 1 || channels % group || channels != wType.getDimSize(0) ||
        yType.getDimSize(1) != outChannels)
      return rewriter.notifyMatchFailure(op, "channels do not match W and group");
    ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
    if (auto k = op.getKernelShape(); k && *k != kernel)
      return rewriter.notifyMatchFailure(op, "kernel_shape does not match W");
    size_t n = kernel.size();
    ArrayRef<int64_t> in = xType.getShape().drop_front(2);
    ArrayRef<int64_t> out = yType.getShape().drop_front(2);
    auto strides = intsOr(rewriter, op, op.getStrides(), n, 1, "strides", 1);
    auto dilations = intsOr(rewriter, op, op.getDilations(), n, 1, "dilations", 1);
    auto pads = intsOr(rewriter, op, op.getPads(), 2 * n, 0, "pads", 0);
    auto outputPadding =
        intsOr(rewriter, op, op.getOutputPadding(), n, 0, "output_padding", 0);
    if (failed(strides) || failed(dilations) || failed(pads) || failed(outputPadding))
      return failure();
    StringRef autoPad = op.getAutoPad();
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
        autoPad != "SAME_LOWER")
      return rewriter.notifyMatchFailure(op, "unknown auto_pad value");

    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type elem = yType.getElementType();
    SmallVector<int64_t> zShape = {xType.getDimSize(0), channels};
    SmallVector<int64_t> sliceOffsets = {0, 0}, sliceSizes = {xType.getDimSize(0), channels},
                         sliceStrides = {1, 1}, zOffsets = {0, 0}, zStrides = {1, 1};
    bool empty = false;
    for (size_t i = 0; i < n; ++i) {
      int64_t s = (*strides)[i], reach = (kernel[i] - 1) * (*dilations)[i];
      int64_t padBegin = (*pads)[i];
      if (autoPad == "VALID") {
        padBegin = 0;
      } else if (op.getOutputShape() || autoPad != "NOTSET") {
        int64_t total = s * (in[i] - 1) + (*outputPadding)[i] + reach + 1 - out[i];
        // output_shape may ask for more than the formula gives (total < 0):
        // the extra lands at the end, as with output_padding (floor division).
        int64_t half = floorDivPositive(total, 2);
        padBegin = autoPad == "SAME_UPPER" ? half : total - half;
      }
      int64_t offset = reach - padBegin;
      int64_t zSize = out[i] + reach;
      zShape.push_back(zSize);
      // X[j] lands on Z[j * s + offset]; keep the j that land inside Z.
      int64_t first = std::max<int64_t>(0, ceilDivPositive(-offset, s));
      int64_t last = std::min<int64_t>(in[i] - 1, floorDivPositive(zSize - 1 - offset, s));
      if (last < first)
        empty = true;
      sliceOffsets.push_back(first);
      sliceSizes.push_back(last - first + 1);
      sliceStrides.push_back(1);
      zOffsets.push_back(first * s + offset);
      zStrides.push_back(s);
    }
    Value z = buildFilled(rewriter, loc, RankedTensorType::get(zShape, elem),
                          rewriter.getZeroAttr(elem));
    if (!empty) {
      Value x = adaptor.getX();
      if (ArrayRef<int64_t>(sliceSizes) != xType.getShape())
        x = tensor::ExtractSliceOp::create(rewriter, loc, x,
                                           getAsIndexOpFoldResult(ctx, sliceOffsets),
                                           getAsIndexOpFoldResult(ctx, sliceSizes),
                                           getAsIndexOpFoldResult(ctx, sliceStrides));
      z = tensor::InsertSliceOp::create(rewriter, loc, x, z, getAsIndexOpFoldResult(ctx, zOffsets),
                                        getAsIndexOpFoldResult(ctx, sliceSizes),
                                        getAsIndexOpFoldResult(ctx, zStrides));
    }
    z = splitDim(rewriter, loc, z, 1, group);
    // W is [C, M/G, k...] -> [G, C/G, M/G, k...]; loops (n, g, m, o..., c, k...).
    Value weight = splitDim(rewriter, loc, adaptor.getW(), 0, group);
    SmallVector<AffineExpr> zExprs, wExprs;
    transposedConvMaps(ctx, kernel, *dilations, zExprs, wExprs);
    SmallVector<int64_t> groupedShape = {yType.getDimSize(0), group, outChannels / group};
    llvm::append_range(groupedShape, out);
    Value init = buildConvInit(rewriter, loc, RankedTensorType::get(groupedShape, elem),
                               adaptor.getB(), group);
    Value y = buildGroupedConv(rewriter, loc, z, weight, zExprs, wExprs, init);
    rewriter.replaceOp(op, mergeDims(rewriter, loc, y, 1));
    return success();
  }
};

/// The kind of reduction a pooling op does over its window.
enum class PoolKind { Max, Average, Lp };

/// The value padding takes so that it never changes the reduction: the
/// lowest value for max (padded positions never win), zero for the sums.
TypedAttr neutralValue(OpBuilder &b, Type elem, bool isUnsigned, PoolKind kind) {
  if (kind != PoolKind::Max)
    return b.getZeroAttr(elem);
  if (auto f = dyn_cast<FloatType>(elem))
    return b.getFloatAttr(elem, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/true));
  unsigned width = elem.getIntOrFloatBitWidth();
  return b.getIntegerAttr(elem, isUnsigned ? APInt::getMinValue(width)
                                           : APInt::getSignedMinValue(width));
}

/// |x|^p for LpPool's accumulation.
Value lpTerm(OpBuilder &b, Location loc, Value x, int64_t p) {
  if (p == 2)
    return arith::MulFOp::create(b, loc, x, x);
  Value a = math::AbsFOp::create(b, loc, x);
  if (p == 1)
    return a;
  Value exponent = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(x.getType(), static_cast<double>(p)));
  return math::PowFOp::create(b, loc, a, exponent);
}

/// The sliding-window reduction of a pooling op: loops (n, c, o..., k...),
/// result [N, C, out...]. With `indices`, also the flat index (ONNX MaxPool's
/// Indices) of the maximum; the first maximum wins.
struct WindowReduction {
  Value result, indices;
};

WindowReduction buildWindowReduction(OpBuilder &b, Location loc, Value x,
                                     RankedTensorType resultType, const Window &w,
                                     PoolKind kind, bool isUnsigned, int64_t p,
                                     RankedTensorType indicesType, bool columnMajor) {
  MLIRContext *ctx = b.getContext();
  auto xType = cast<RankedTensorType>(x.getType());
  Type elem = resultType.getElementType();
  TypedAttr neutral = neutralValue(b, elem, isUnsigned, kind);
  Value padded = padInput(b, loc, x, w, neutral);
  int64_t s = static_cast<int64_t>(w.rank());
  int64_t numLoops = 2 + 2 * s;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xExprs = {dim(0), dim(1)}, yExprs = {dim(0), dim(1)};
  for (int64_t i = 0; i < s; ++i) {
    xExprs.push_back(dim(2 + i) * w.strides[i] + dim(2 + s + i) * w.dilations[i]);
    yExprs.push_back(dim(2 + i));
  }
  // An operand of the window's shape, never read, gives each kernel loop
  // a pure use (linalg needs the loop bounds from some operand's shape).
  SmallVector<AffineExpr> windowExprs;
  for (int64_t i = 0; i < s; ++i)
    windowExprs.push_back(dim(2 + s + i));
  Value window = tensor::EmptyOp::create(b, loc, w.kernel, elem);
  AffineMap yMap = AffineMap::get(numLoops, 0, yExprs, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, xExprs, ctx),
                                 AffineMap::get(numLoops, 0, windowExprs, ctx), yMap};
  SmallVector<Value> inits = {buildFilled(b, loc, resultType, neutral)};
  SmallVector<Type> resultTypes = {resultType};
  if (indicesType) {
    maps.push_back(yMap);
    inits.push_back(buildFilled(b, loc, indicesType, b.getI64IntegerAttr(0)));
    resultTypes.push_back(indicesType);
  }
  SmallVector<utils::IteratorType> iterators(2 + s, utils::IteratorType::parallel);
  iterators.append(s, utils::IteratorType::reduction);
  auto body = [&](OpBuilder &nb, Location nloc, ValueRange args) {
    Value v = args[0], acc = args[2];
    if (kind == PoolKind::Average) {
      linalg::YieldOp::create(nb, nloc, addScalars(nb, nloc, acc, v));
      return;
    }
    if (kind == PoolKind::Lp) {
      linalg::YieldOp::create(nb, nloc,
                              ValueRange{arith::AddFOp::create(nb, nloc, acc, lpTerm(nb, nloc, v, p))});
      return;
    }
    if (!indicesType) {
      Value m = isa<FloatType>(elem) ? Value(arith::MaximumFOp::create(nb, nloc, acc, v))
                : isUnsigned         ? Value(arith::MaxUIOp::create(nb, nloc, acc, v))
                                     : Value(arith::MaxSIOp::create(nb, nloc, acc, v));
      linalg::YieldOp::create(nb, nloc, m);
      return;
    }
    // Flat index of the element read: ((n * C + c) * H + h) * W + w, with
    // (h, w) swapped for column-major storage_order.
    SmallVector<int64_t> sizes = {xType.getDimSize(0), xType.getDimSize(1)};
    SmallVector<Value> coords = {linalg::IndexOp::create(nb, nloc, 0),
                                 linalg::IndexOp::create(nb, nloc, 1)};
    SmallVector<int64_t> spatialSizes;
    SmallVector<Value> spatialCoords;
    for (int64_t i = 0; i < s; ++i) {
      Value o = linalg::IndexOp::create(nb, nloc, 2 + i);
      Value k = linalg::IndexOp::create(nb, nloc, 2 + s + i);
      auto cst = [&](int64_t c) { return arith::ConstantIndexOp::create(nb, nloc, c); };
      Value at = arith::AddIOp::create(nb, nloc,
                                       arith::MulIOp::create(nb, nloc, o, cst(w.strides[i])),
                                       arith::MulIOp::create(nb, nloc, k, cst(w.dilations[i])));
      spatialCoords.push_back(arith::SubIOp::create(nb, nloc, at, cst(w.padBegin[i])));
      spatialSizes.push_back(w.in[i]);
    }
    if (columnMajor) {
      std::reverse(spatialCoords.begin(), spatialCoords.end());
      std::reverse(spatialSizes.begin(), spatialSizes.end());
    }
    llvm::append_range(coords, spatialCoords);
    llvm::append_range(sizes, spatialSizes);
    Value flat = arith::ConstantIndexOp::create(nb, nloc, 0);
    for (auto [c, size] : llvm::zip(coords, sizes)) {
      flat = arith::MulIOp::create(nb, nloc, flat, arith::ConstantIndexOp::create(nb, nloc, size));
      flat = arith::AddIOp::create(nb, nloc, flat, c);
    }
    flat = arith::IndexCastOp::create(nb, nloc, nb.getI64Type(), flat);
    Value better = isa<FloatType>(elem)
                       ? Value(arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::OGT, v, acc))
                       : Value(arith::CmpIOp::create(nb, nloc,
                                                     isUnsigned ? arith::CmpIPredicate::ugt
                                                                : arith::CmpIPredicate::sgt,
                                                     v, acc));
    Value m = arith::SelectOp::create(nb, nloc, better, v, acc);
    Value idx = arith::SelectOp::create(nb, nloc, better, flat, args[3]);
    linalg::YieldOp::create(nb, nloc, ValueRange{m, idx});
  };
  auto generic = linalg::GenericOp::create(b, loc, resultTypes, ValueRange{padded, window},
                                           inits, maps, iterators, body);
  WindowReduction r;
  r.result = generic.getResult(0);
  if (indicesType)
    r.indices = generic.getResult(1);
  return r;
}

/// `sums` [N, C, out...] divided by the number of window positions each
/// output counts: the positions inside the input, or with
/// `countPadding` also those in the pads (never those past the pads that
/// ceil_mode windows reach).
Value divideByCount(OpBuilder &b, Location loc, Value sums, const Window &w,
                    bool countPadding) {
  auto type = cast<RankedTensorType>(sums.getType());
  Type elem = type.getElementType();
  size_t s = w.rank();
  // counts[i][o]: window positions of output o along dim i that count.
  SmallVector<SmallVector<int64_t>> counts(s);
  for (size_t i = 0; i < s; ++i) {
    int64_t lo = countPadding ? 0 : w.padBegin[i];
    int64_t hi = countPadding ? w.in[i] + w.padBegin[i] + w.padEnd[i] : w.padBegin[i] + w.in[i];
    for (int64_t o = 0; o < w.out[i]; ++o) {
      int64_t n = 0;
      for (int64_t k = 0; k < w.kernel[i]; ++k) {
        int64_t at = o * w.strides[i] + k * w.dilations[i];
        n += at >= lo && at < hi;
      }
      counts[i].push_back(n);
    }
  }
  ArrayRef<int64_t> outShape = type.getShape().drop_front(2);
  int64_t total = 1;
  for (int64_t d : outShape)
    total *= d;
  SmallVector<double> divisors;
  divisors.reserve(total);
  SmallVector<int64_t> pos(s, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t n = 1;
    for (size_t i = 0; i < s; ++i)
      n *= counts[i][pos[i]];
    divisors.push_back(static_cast<double>(n));
    for (int64_t i = static_cast<int64_t>(s) - 1; i >= 0; --i) {
      if (++pos[i] < outShape[i])
        break;
      pos[i] = 0;
    }
  }
  bool uniform = llvm::all_equal(divisors);
  if (uniform) {
    double divisor = divisors.empty() ? 1.0 : divisors.front();
    return buildBroadcastGeneric(b, loc, type, sums,
                                 [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
                                   Value d = arith::ConstantOp::create(
                                       nb, nloc, nb.getFloatAttr(elem, divisor));
                                   return arith::DivFOp::create(nb, nloc, args[0], d);
                                 });
  }
  // One divisor per output position, broadcast over N and C.
  SmallVector<int64_t> divisorShape = {1, 1};
  llvm::append_range(divisorShape, outShape);
  auto divisorType = RankedTensorType::get(divisorShape, elem);
  SmallVector<APFloat> values;
  const llvm::fltSemantics &sem = cast<FloatType>(elem).getFloatSemantics();
  for (double d : divisors) {
    APFloat v(d);
    bool lost;
    v.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    values.push_back(v);
  }
  Value divisor = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(divisorType, values));
  return buildBroadcastGeneric(b, loc, type, ValueRange{sums, divisor},
                               [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
                                 return arith::DivFOp::create(nb, nloc, args[0], args[1]);
                               });
}

/// sum^(1/p) for LpPool.
Value lpRoot(OpBuilder &b, Location loc, Value sums, int64_t p) {
  auto type = cast<RankedTensorType>(sums.getType());
  if (p == 1)
    return sums;
  return buildBroadcastGeneric(
      b, loc, type, sums, [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        if (p == 2)
          return math::SqrtOp::create(nb, nloc, args[0]);
        Value e = arith::ConstantOp::create(
            nb, nloc, nb.getFloatAttr(type.getElementType(), 1.0 / static_cast<double>(p)));
        return math::PowFOp::create(nb, nloc, args[0], e);
      });
}

/// A pooling op over symbolic spatial dims (MaxPool without Indices,
/// AveragePool, LpPool): one generic over [N, C, out..., k...] reading the
/// padded input; AveragePool also counts, per output, the window positions
/// that its count_include_pad says count.
FailureOr<Value> buildSymbolicPool(ConversionPatternRewriter &rewriter, Operation *op,
                                   const TypeConverter *converter, Value x, PoolKind kind,
                                   bool isUnsigned, int64_t p, bool countPadding, bool ceilMode,
                                   std::optional<ArrayRef<int64_t>> kernel,
                                   std::optional<ArrayRef<int64_t>> strides,
                                   std::optional<ArrayRef<int64_t>> dilations,
                                   std::optional<ArrayRef<int64_t>> pads, StringRef autoPad) {
  auto result = symbolicResultType(rewriter, converter, op, 0);
  if (failed(result))
    return failure();
  auto [yType, yDynamic] = *result;
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType || xType.getRank() < 3 || yType.getRank() != xType.getRank() || !kernel)
    return rewriter.notifyMatchFailure(op, "X and Y must be [N, C, spatial...] with a kernel");
  Location loc = op->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<OpFoldResult> ySizes = mixedSizes(rewriter, yType, yDynamic);
  auto w = resolveSymbolicWindow(rewriter, op, x, ySizes, *kernel, strides, dilations, pads,
                                 autoPad, ceilMode);
  if (failed(w))
    return failure();
  Type elem = yType.getElementType();
  TypedAttr neutral = neutralValue(rewriter, elem, isUnsigned, kind);
  Value padded = padSymbolic(rewriter, loc, x, *w, neutral);
  int64_t s = static_cast<int64_t>(w->rank());
  int64_t numLoops = 2 + 2 * s;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xExprs = {dim(0), dim(1)}, yExprs = {dim(0), dim(1)}, windowExprs;
  for (int64_t i = 0; i < s; ++i) {
    xExprs.push_back(dim(2 + i) * w->strides[i] + dim(2 + s + i) * w->dilations[i]);
    yExprs.push_back(dim(2 + i));
    windowExprs.push_back(dim(2 + s + i));
  }
  Value window = tensor::EmptyOp::create(rewriter, loc, w->kernel, elem);
  AffineMap yMap = AffineMap::get(numLoops, 0, yExprs, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, xExprs, ctx),
                                 AffineMap::get(numLoops, 0, windowExprs, ctx), yMap};
  SmallVector<Value> inits = {buildFilled(rewriter, loc, yType, neutral, yDynamic)};
  SmallVector<Type> resultTypes = {yType};
  if (kind == PoolKind::Average) {
    maps.push_back(yMap);
    inits.push_back(buildFilled(rewriter, loc, yType, rewriter.getZeroAttr(elem), yDynamic));
    resultTypes.push_back(yType);
  }
  SmallVector<utils::IteratorType> iterators(2 + s, utils::IteratorType::parallel);
  iterators.append(s, utils::IteratorType::reduction);
  auto body = [&](OpBuilder &nb, Location nloc, ValueRange args) {
    Value v = args[0], acc = args[2];
    if (kind == PoolKind::Lp) {
      linalg::YieldOp::create(nb, nloc,
                              ValueRange{arith::AddFOp::create(nb, nloc, acc, lpTerm(nb, nloc, v, p))});
      return;
    }
    if (kind == PoolKind::Max) {
      Value m = isa<FloatType>(elem) ? Value(arith::MaximumFOp::create(nb, nloc, acc, v))
                : isUnsigned         ? Value(arith::MaxUIOp::create(nb, nloc, acc, v))
                                     : Value(arith::MaxSIOp::create(nb, nloc, acc, v));
      linalg::YieldOp::create(nb, nloc, m);
      return;
    }
    // Average: the position read counts when it lies in the input (or, with
    // count_include_pad, in its pads), never past the end pad.
    Value inside = arith::ConstantIntOp::create(nb, nloc, 1, 1);
    for (int64_t i = 0; i < s; ++i) {
      auto cst = [&](int64_t c) { return Value(arith::ConstantIndexOp::create(nb, nloc, c)); };
      Value at = arith::AddIOp::create(
          nb, nloc,
          arith::MulIOp::create(nb, nloc, linalg::IndexOp::create(nb, nloc, 2 + i),
                                cst(w->strides[i])),
          arith::MulIOp::create(nb, nloc, linalg::IndexOp::create(nb, nloc, 2 + s + i),
                                cst(w->dilations[i])));
      Value lo = countPadding ? cst(0) : w->padBegin[i];
      Value inEnd = arith::AddIOp::create(nb, nloc, w->padBegin[i], w->in[i]);
      // With count_include_pad, the pads count (not what ceil_mode windows
      // reach past them).
      Value hi = countPadding ? Value(arith::AddIOp::create(nb, nloc, inEnd, w->padEnd[i]))
                              : inEnd;
      Value ok = arith::AndIOp::create(
          nb, nloc, arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::sge, at, lo),
          arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt, at, hi));
      inside = arith::AndIOp::create(nb, nloc, inside, ok);
    }
    Value one = arith::ConstantOp::create(nb, nloc, nb.getFloatAttr(elem, 1.0));
    Value zero = arith::ConstantOp::create(nb, nloc, nb.getFloatAttr(elem, 0.0));
    Value counted = arith::AddFOp::create(nb, nloc, args[3],
                                          arith::SelectOp::create(nb, nloc, inside, one, zero));
    linalg::YieldOp::create(nb, nloc, ValueRange{addScalars(nb, nloc, acc, v), counted});
  };
  auto generic = linalg::GenericOp::create(rewriter, loc, resultTypes, ValueRange{padded, window},
                                           inits, maps, iterators, body);
  Value y = generic.getResult(0);
  if (kind == PoolKind::Lp)
    return lpRoot(rewriter, loc, y, p);
  if (kind != PoolKind::Average)
    return y;
  return buildBroadcastGeneric(rewriter, loc, yType, ValueRange{y, generic.getResult(1)},
                               [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
                                 return arith::DivFOp::create(nb, nloc, args[0], args[1]);
                               });
}

/// Checks X [N, C, in...] and Y [N, C, out...] of a pooling op.
LogicalResult checkPoolShapes(ConversionPatternRewriter &rewriter, Operation *op, Value x,
                              RankedTensorType yType) {
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType || !xType.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "X needs a static shape");
  if (xType.getRank() < 3 || yType.getRank() != xType.getRank() ||
      xType.getDimSize(0) != yType.getDimSize(0) || xType.getDimSize(1) != yType.getDimSize(1))
    return rewriter.notifyMatchFailure(op, "X and Y must be [N, C, spatial...]");
  return success();
}

/// The `dilations` AveragePool 19 and LpPool 18 carry as an extra attribute
/// (the importer's poolWithWindow).
static std::optional<ArrayRef<int64_t>> extraDilations(Operation *op) {
  if (auto d = op->getAttrOfType<DenseI64ArrayAttr>("dilations"))
    return d.asArrayRef();
  return std::nullopt;
}

struct MaxPoolLowering : OpConversionPattern<onnx::MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MaxPoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (hasSymbolicWindow(op)) {
      if (!isa<NoneType>(op.getIndices().getType()) && !op.getIndices().use_empty())
        return op.emitError("MaxPool's Indices over symbolic spatial dims are not supported "
                            "(pass --shape to fix them)");
      auto y = buildSymbolicPool(rewriter, op, getTypeConverter(), adaptor.getX(), PoolKind::Max,
                                 isUnsignedInt(onnxElementType(op.getX())), 0, false,
                                 op.getCeilMode() != 0,
                                 op.getKernelShape(), op.getStrides(), op.getDilations(),
                                 op.getPads(), op.getAutoPad());
      if (failed(y))
        return failure();
      rewriter.replaceOpWithMultiple(op, {{*y}, {}});
      return success();
    }
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType)
      return failure();
    Value x = adaptor.getX();
    if (failed(checkPoolShapes(rewriter, op, x, yType)))
      return failure();
    RankedTensorType indicesType;
    if (!isa<NoneType>(op.getIndices().getType()) && !op.getIndices().use_empty()) {
      indicesType = staticResultType(rewriter, getTypeConverter(), op, 1);
      if (!indicesType)
        return failure();
    }
    auto xType = cast<RankedTensorType>(x.getType());
    auto w = resolveWindow(rewriter, op, xType.getShape().drop_front(2),
                           yType.getShape().drop_front(2), op.getKernelShape(),
                           op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad());
    if (failed(w))
      return failure();
    bool isUnsigned = isUnsignedInt(onnxElementType(op.getX()));
    WindowReduction r =
        buildWindowReduction(rewriter, op.getLoc(), x, yType, *w, PoolKind::Max, isUnsigned,
                             0, indicesType, op.getStorageOrder() != 0);
    // An Indices result nobody reads (or none at all) gets no replacement.
    SmallVector<SmallVector<Value>> results = {{r.result}, {}};
    if (r.indices)
      results[1].push_back(r.indices);
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

struct AveragePoolLowering : OpConversionPattern<onnx::AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::AveragePoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (hasSymbolicWindow(op)) {
      auto y = buildSymbolicPool(rewriter, op, getTypeConverter(), adaptor.getX(),
                                 PoolKind::Average, false, 0, op.getCountIncludePad() != 0,
                                 op.getCeilMode() != 0,
                                 op.getKernelShape(), op.getStrides(), extraDilations(op),
                                 op.getPads(), op.getAutoPad());
      if (failed(y))
        return failure();
      rewriter.replaceOp(op, *y);
      return success();
    }
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType)
      return failure();
    Value x = adaptor.getX();
    if (failed(checkPoolShapes(rewriter, op, x, yType)))
      return failure();
    auto xType = cast<RankedTensorType>(x.getType());
    auto w = resolveWindow(rewriter, op, xType.getShape().drop_front(2),
                           yType.getShape().drop_front(2), op.getKernelShape(),
                           op.getStrides(), extraDilations(op), op.getPads(), op.getAutoPad());
    if (failed(w))
      return failure();
    Location loc = op.getLoc();
    WindowReduction r = buildWindowReduction(rewriter, loc, x, yType, *w, PoolKind::Average,
                                             false, 0, {}, false);
    rewriter.replaceOp(op, divideByCount(rewriter, loc, r.result, *w,
                                         op.getCountIncludePad() != 0));
    return success();
  }
};

struct LpPoolLowering : OpConversionPattern<onnx::LpPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::LpPoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (hasSymbolicWindow(op)) {
      if (op.getP() < 1)
        return rewriter.notifyMatchFailure(op, "p must be positive");
      auto y = buildSymbolicPool(rewriter, op, getTypeConverter(), adaptor.getX(), PoolKind::Lp,
                                 false, static_cast<int64_t>(op.getP()), false,
                                 op->getAttrOfType<IntegerAttr>("ceil_mode") &&
                                     op->getAttrOfType<IntegerAttr>("ceil_mode").getInt() != 0,
                                 op.getKernelShape(), op.getStrides(), extraDilations(op),
                                 op.getPads(), op.getAutoPad());
      if (failed(y))
        return failure();
      rewriter.replaceOp(op, *y);
      return success();
    }
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType)
      return failure();
    Value x = adaptor.getX();
    if (failed(checkPoolShapes(rewriter, op, x, yType)))
      return failure();
    int64_t p = static_cast<int64_t>(op.getP());
    if (p < 1)
      return rewriter.notifyMatchFailure(op, "p must be positive");
    auto xType = cast<RankedTensorType>(x.getType());
    auto w = resolveWindow(rewriter, op, xType.getShape().drop_front(2),
                           yType.getShape().drop_front(2), op.getKernelShape(),
                           op.getStrides(), extraDilations(op), op.getPads(), op.getAutoPad());
    if (failed(w))
      return failure();
    Location loc = op.getLoc();
    WindowReduction r =
        buildWindowReduction(rewriter, loc, x, yType, *w, PoolKind::Lp, false, p, {}, false);
    rewriter.replaceOp(op, lpRoot(rewriter, loc, r.result, p));
    return success();
  }
};

/// MaxUnpool scatters X to the flat positions I of a zero Y. As a gather
/// (linalg has no scatter): each Y element of slice (n, c) scans the X
/// elements of the same slice and takes the last one whose index names it,
/// as a sequential scatter would. Quadratic in the spatial size, but exact
/// for any indices inside their slice (MaxPool's are). The indices refer to
/// the default output shape, (in - 1) * stride + kernel - pads; a larger
/// output_shape pads that result with zeros at the end (as the ONNX
/// reference does).
struct MaxUnpoolLowering : OpConversionPattern<onnx::MaxUnpoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MaxUnpoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto yType = staticResultType(rewriter, getTypeConverter(), op);
    if (!yType)
      return failure();
    Value x = adaptor.getX(), indices = adaptor.getI();
    if (failed(checkPoolShapes(rewriter, op, x, yType)))
      return failure();
    auto xType = cast<RankedTensorType>(x.getType());
    auto iType = dyn_cast<RankedTensorType>(indices.getType());
    if (!iType || iType.getShape() != xType.getShape())
      return rewriter.notifyMatchFailure(op, "I must have the shape of X");
    int64_t s = xType.getRank() - 2;
    auto strides = intsOr(rewriter, op, op.getStrides(), s, 1, "strides", 1);
    auto pads = intsOr(rewriter, op, op.getPads(), 2 * s, 0, "pads", 0);
    if (failed(strides) || failed(pads))
      return failure();
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (static_cast<int64_t>(kernel.size()) != s)
      return rewriter.notifyMatchFailure(op, "kernel_shape does not match X");
    RankedTensorType outType = yType;
    SmallVector<int64_t> defaultShape(xType.getShape().take_front(2));
    for (int64_t i = 0; i < s; ++i) {
      int64_t size = (xType.getDimSize(2 + i) - 1) * (*strides)[i] + kernel[i] - (*pads)[i] -
                     (*pads)[i + s];
      if (size < 0 || size > outType.getDimSize(2 + i))
        return rewriter.notifyMatchFailure(op, "output_shape is smaller than the default");
      defaultShape.push_back(size);
    }
    yType = RankedTensorType::get(defaultShape, outType.getElementType());
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    int64_t numLoops = 2 + 2 * s;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xExprs = {dim(0), dim(1)}, yExprs = {dim(0), dim(1)};
    for (int64_t i = 0; i < s; ++i) {
      yExprs.push_back(dim(2 + i));
      xExprs.push_back(dim(2 + s + i));
    }
    AffineMap xMap = AffineMap::get(numLoops, 0, xExprs, ctx);
    SmallVector<AffineMap> maps = {xMap, xMap, AffineMap::get(numLoops, 0, yExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(2 + s, utils::IteratorType::parallel);
    iterators.append(s, utils::IteratorType::reduction);
    Value init = buildFilled(rewriter, loc, yType, rewriter.getZeroAttr(yType.getElementType()));
    Value y =
        linalg::GenericOp::create(
            rewriter, loc, yType, ValueRange{x, indices}, init, maps, iterators,
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value flat = arith::ConstantIndexOp::create(nb, nloc, 0);
              for (int64_t d = 0; d < yType.getRank(); ++d) {
                Value size = arith::ConstantIndexOp::create(nb, nloc, yType.getDimSize(d));
                flat = arith::MulIOp::create(nb, nloc, flat, size);
                flat = arith::AddIOp::create(nb, nloc, flat,
                                             linalg::IndexOp::create(nb, nloc, d));
              }
              flat = arith::IndexCastOp::create(nb, nloc, nb.getI64Type(), flat);
              Value hit =
                  arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq, args[1], flat);
              linalg::YieldOp::create(
                  nb, nloc, ValueRange{arith::SelectOp::create(nb, nloc, hit, args[0], args[2])});
            })
            .getResult(0);
    if (yType != outType) {
      Value zeros =
          buildFilled(rewriter, loc, outType, rewriter.getZeroAttr(outType.getElementType()));
      SmallVector<int64_t> offsets(outType.getRank(), 0), unit(outType.getRank(), 1);
      y = tensor::InsertSliceOp::create(rewriter, loc, y, zeros,
                                        getAsIndexOpFoldResult(ctx, offsets),
                                        getAsIndexOpFoldResult(ctx, defaultShape),
                                        getAsIndexOpFoldResult(ctx, unit));
    }
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

FailureOr<Value> buildFusedConvAnchor(ConversionPatternRewriter &rewriter, onnx::FusedConvOp op,
                                      const TypeConverter *converter, Value x, Value w,
                                      Value bias) {
  return buildConv(rewriter, op, converter, x, w, bias);
}

void populateConvolutionPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // Global pools are lowered with the reductions (Reductions.cpp).
  patterns.add<ConvLowering, ConvIntegerLowering, QLinearConvLowering, ConvTransposeLowering, MaxPoolLowering, AveragePoolLowering,
               LpPoolLowering, MaxUnpoolLowering>(converter, ctx);
}

} // namespace onnxcc::lowering
