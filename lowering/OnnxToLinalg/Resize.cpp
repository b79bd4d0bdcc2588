//===- Resize.cpp - onnx ops to linalg: resize family -----------------------===//
//
// onnx.Resize (the importer maps Upsample and Resize-10/11 onto the opset 13
// form) becomes one linalg.generic over the result: each output element maps
// its position back to input coordinates along every resized axis, picks the
// neighbours the ONNX reference picks, and reads them with tensor.extract.
//
// The per-axis scale, the output size and the coordinate transform follow the
// ONNX reference implementation (backend/test/case/node/resize.py), which
// interpolates one axis at a time in float64:
//   - with `sizes`, scale = size_out / size_in; with `scales`, the float32
//     scale widened to double, and size_out = floor(size_in * scale);
//   - x_ori is computed with the same operations in the same order, in f64,
//     so that nearest rounding ties fall the same way;
//   - ratio = x_ori - floor(x_ori) in (0, 1] (1 when x_ori is an integer,
//     the left neighbour being then x_ori - 1);
//   - the n taps are the n positions nearest to x_ori in the input padded by
//     n / 2 edge values on each side, i.e. a window clamped to the padded
//     range, each tap reading the clamped (edge) input position.
// Axes whose size and scale are unchanged map positions to themselves and are
// read directly. Linear and cubic accumulate in f64, outer axis over inner,
// as the reference does.
//
// Antialiasing (Resize 18's `antialias`, carried by the importer as the
// discardable attribute `antialias`): a linear or cubic kernel downsampling by
// scale s < 1 is stretched by 1 / s. Its taps are the n = 2 - 2 * start
// positions nearest x_ori (start = floor(-1 / s) + 1 for linear,
// floor(-2 / s) + 1 for cubic), tap k weighing kernel((k + start - ratio) * s)
// (linear 1 - |t| clipped at 0; cubic Keys' kernel), normalized to sum 1.
// With scales read at run time the taps are those of the smallest scale
// giving the result's size; the extra taps of a larger scale weigh 0.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include <cmath>

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// More taps than this per output element (4^k for cubic over k axes) would
/// emit an unreasonable amount of code; such resizes are refused.
constexpr int64_t kMaxTaps = 4096;

enum class Mode { Nearest, Linear, Cubic };
enum class Transform {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfCropAndResize,
  TfHalfPixelForNN
};
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

/// What one input axis needs to be resampled. The scale and the roi are
/// known at compile time when they come from constants; otherwise they are
/// read from the `scales` and `roi` operands at run time.
struct AxisPlan {
  int64_t dim = 0;
  int64_t inSize = 0;
  int64_t outSize = 0;
  std::optional<double> scale;
  std::optional<double> roiStart;
  std::optional<double> roiEnd;
  /// Taps per output element along this axis: 2 (linear) or 4 (cubic), more
  /// when antialiasing stretches the kernel by 1 / scale.
  int64_t taps = 1;
  /// Whether the kernel is stretched (antialiasing).
  bool antialias = false;
  /// A symbolic input or result dim (inSize and outSize are then
  /// kDynamic): both sizes at run time (the result's scale * size for a
  /// constant scale, or what `sizes` says).
  Value inSizeValue;
  Value outSizeValue;
  /// With `sizes` and a symbolic dim, the scale out / in computed at run
  /// time (f64, 1 for an empty input).
  Value scaleValue;
};

/// The elements of a constant operand as doubles: an onnx.Constant defining
/// the original operand or an arith.constant defining the converted one.
std::optional<SmallVector<double>> constantDoubles(Value original, Value converted) {
  Attribute value;
  if (auto c = original.getDefiningOp<onnx::ConstantOp>())
    value = c.getValueAttr();
  else if (auto c = converted.getDefiningOp<arith::ConstantOp>())
    value = c.getValue();
  auto elements = dyn_cast_or_null<ElementsAttr>(value);
  if (!elements)
    return std::nullopt;
  SmallVector<double> out;
  Type elem = elements.getElementType();
  if (isa<FloatType>(elem)) {
    auto values = elements.tryGetValues<APFloat>();
    if (values) {
      for (APFloat f : *values) {
        bool lost = false;
        f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        out.push_back(f.convertToDouble());
      }
      return out;
    }
    if (auto res = dyn_cast<DenseF32ResourceElementsAttr>(value))
      if (auto data = res.tryGetAsArrayRef())
        return SmallVector<double>(data->begin(), data->end());
    if (auto res = dyn_cast<DenseF64ResourceElementsAttr>(value))
      if (auto data = res.tryGetAsArrayRef())
        return SmallVector<double>(data->begin(), data->end());
    return std::nullopt;
  }
  if (elem.isInteger()) {
    auto values = elements.tryGetValues<APInt>();
    if (values) {
      for (const APInt &a : *values)
        out.push_back(static_cast<double>(a.getSExtValue()));
      return out;
    }
    if (auto res = dyn_cast<DenseI64ResourceElementsAttr>(value))
      if (auto data = res.tryGetAsArrayRef())
        return SmallVector<double>(data->begin(), data->end());
    return std::nullopt;
  }
  return std::nullopt;
}

/// Length of a 1-D operand, or nullopt when absent (`none`) or not 1-D.
std::optional<int64_t> length1D(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0))
    return std::nullopt;
  return t.getDimSize(0);
}

/// Scalar builders for the f64 and index arithmetic in the generic's body.
struct Scalars {
  OpBuilder &b;
  Location loc;

  Value f64(double v) { return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v)); }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  Value cmpF(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value cmpI(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value addI(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  /// An index position as f64.
  Value indexToF64(Value i) {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
    return arith::SIToFPOp::create(b, loc, b.getF64Type(), i64);
  }
  /// A whole-valued f64 as an index.
  Value f64ToIndex(Value f) {
    Value i64 = arith::FPToSIOp::create(b, loc, b.getI64Type(), f);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
  }
  /// Clamps an index to [lo, hi] with compare and select.
  Value clamp(Value i, int64_t lo, int64_t hi) { return clamp(i, index(lo), index(hi)); }
  Value clamp(Value i, Value loV, Value hiV) {
    i = select(cmpI(arith::CmpIPredicate::slt, i, loV), loV, i);
    return select(cmpI(arith::CmpIPredicate::sgt, i, hiV), hiV, i);
  }
  /// An axis's input size plus `k`, as an index and as f64 (a constant for
  /// a static dim, from its run-time size for a symbolic one).
  Value inSizePlus(const AxisPlan &plan, int64_t k) {
    if (!plan.inSizeValue)
      return index(plan.inSize + k);
    return k ? addI(plan.inSizeValue, index(k)) : plan.inSizeValue;
  }
  Value inSizeF64(const AxisPlan &plan, double k = 0.0) {
    if (!plan.inSizeValue)
      return f64(static_cast<double>(plan.inSize) + k);
    Value v = indexToF64(plan.inSizeValue);
    return k != 0.0 ? add(v, f64(k)) : v;
  }
  Value outSizeF64(const AxisPlan &plan) {
    return plan.outSizeValue ? indexToF64(plan.outSizeValue)
                             : f64(static_cast<double>(plan.outSize));
  }
};

/// The run-time sampling of one axis for one output element: the tap
/// positions to read (already clamped into the input), their weights (f64;
/// empty for nearest) and, for tf_crop_and_resize, whether x_ori lies
/// outside the input.
struct AxisSample {
  SmallVector<Value> positions;
  SmallVector<Value> weights;
  Value outside;
};

/// One axis's scale and roi (start, and end - start) as f64 values in the
/// generic's body.
struct AxisParams {
  Value scale;
  Value roiStart;
  Value extent;
};

struct ResizeLowering : OpConversionPattern<onnx::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(onnx::ResizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto typeAndSizes = symbolicResultType(rewriter, getTypeConverter(), op);
    if (failed(typeAndSizes))
      return failure();
    RankedTensorType type = typeAndSizes->first;
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType)
      return rewriter.notifyMatchFailure(op, "X needs a ranked type");
    int64_t rank = xType.getRank();
    if (type.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "result rank differs from X's");
    // Sizes given at run time where the model leaves the dims open: each
    // such dim is the size read (run() returns 9 for a negative one, 10 past
    // the bound).
    if (auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims")) {
      const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
      auto shape = converter.shapeOf(op.getY());
      auto sizesType = dyn_cast<RankedTensorType>(adaptor.getSizes().getType());
      if (!shape || !sizesType || sizesType.getRank() != 1)
        return rewriter.notifyMatchFailure(op, "sizes read at run time need a known shape");
      Location loc = op.getLoc();
      for (auto [k, a] : llvm::enumerate(names)) {
        auto name = dyn_cast<StringAttr>(a);
        for (int64_t d = 0; name && d < rank; ++d) {
          if ((*shape)[d] != onnx::Dim::named(name))
            continue;
          Value size = tensor::ExtractOp::create(rewriter, loc, adaptor.getSizes(),
                                                 ValueRange{indexConst(rewriter, loc, d)});
          checkDims(rewriter, loc, op, "at_least", size,
                    arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), 0));
          Value n = converter.defineDataDim(
              rewriter, loc, op, k,
              arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), size));
          if (!n)
            return rewriter.notifyMatchFailure(op, "a size has no bound");
        }
      }
    }
    // Symbolic dims (an upsampling of [N, C, H, W] by 2 with the image size
    // given at run time, or a resize of any image to fixed sizes): each is
    // kept (scale 1), scaled by a constant (the shape function made the
    // result k*H, an integer k), or resized to `sizes` (constant, or dims
    // of other tensors), the scale then computed at run time.
    bool symbolic = !xType.hasStaticShape() || !type.hasStaticShape();
    bool hasSizes = length1D(op.getSizes()).value_or(0) != 0;
    if (symbolic && (op.getCoordinateTransformationMode() == "tf_crop_and_resize" ||
                     (!hasSizes && !constantDoubles(op.getScales(), adaptor.getScales())) ||
                     (hasSizes && op->hasAttr("antialias") && op.getMode() != "nearest")))
      return op.emitError("cannot lower 'onnx.Resize' with symbolic dims: "
                          "tf_crop_and_resize, scales given at run time and antialiased "
                          "sizes need static dims (pass --shape to fix them)");

    Mode mode = llvm::StringSwitch<Mode>(op.getMode())
                    .Case("linear", Mode::Linear)
                    .Case("cubic", Mode::Cubic)
                    .Default(Mode::Nearest);
    Transform transform =
        llvm::StringSwitch<Transform>(op.getCoordinateTransformationMode())
            .Case("pytorch_half_pixel", Transform::PytorchHalfPixel)
            .Case("half_pixel_symmetric", Transform::HalfPixelSymmetric)
            .Case("align_corners", Transform::AlignCorners)
            .Case("asymmetric", Transform::Asymmetric)
            .Case("tf_crop_and_resize", Transform::TfCropAndResize)
            .Case("tf_half_pixel_for_nn", Transform::TfHalfPixelForNN)
            .Default(Transform::HalfPixel);
    NearestRounding rounding = llvm::StringSwitch<NearestRounding>(op.getNearestMode())
                                   .Case("round_prefer_ceil", NearestRounding::RoundPreferCeil)
                                   .Case("floor", NearestRounding::Floor)
                                   .Case("ceil", NearestRounding::Ceil)
                                   .Default(NearestRounding::RoundPreferFloor);
    Type elem = type.getElementType();
    if (mode != Mode::Nearest && !isa<FloatType>(elem))
      return rewriter.notifyMatchFailure(op, "linear and cubic resize need a float tensor");

    // Per-axis scales: from `sizes` when given (and not empty), else `scales`.
    // Sizes read at run time must be the result's static shape, which then
    // stands for them; scales read at run time only move sample positions.
    SmallVector<AxisPlan> axes(rank);
    for (int64_t d = 0; d < rank; ++d) {
      axes[d].dim = d;
      axes[d].inSize = xType.getDimSize(d);
      axes[d].outSize = type.getDimSize(d);
      if (xType.isDynamicDim(d) || type.isDynamicDim(d)) {
        if (!hasSizes && (!xType.isDynamicDim(d) || !type.isDynamicDim(d)))
          return rewriter.notifyMatchFailure(op, "a symbolic dim must stay symbolic");
        axes[d].inSize = axes[d].outSize = ShapedType::kDynamic;
        axes[d].inSizeValue = tensor::DimOp::create(rewriter, op.getLoc(), x, d);
        axes[d].outSizeValue =
            type.isDynamicDim(d)
                ? typeAndSizes->second[type.getDynamicDimIndex(d)]
                : indexConst(rewriter, op.getLoc(), type.getDimSize(d));
      }
    }
    bool bySizes = false;
    if (auto n = length1D(op.getSizes()); n && *n != 0) {
      if (*n != rank)
        return rewriter.notifyMatchFailure(op, "sizes needs one value per input dim");
      bySizes = true;
      if (auto sizes = constantDoubles(op.getSizes(), adaptor.getSizes()))
        for (int64_t d = 0; d < rank; ++d)
          if (!axes[d].outSizeValue && static_cast<int64_t>((*sizes)[d]) != axes[d].outSize)
            return rewriter.notifyMatchFailure(op, "result shape disagrees with sizes");
      const OnnxTypeConverter &converter = onnxConverter(getTypeConverter());
      auto inShape = converter.shapeOf(op.getX()), outShape = converter.shapeOf(op.getResult());
      for (AxisPlan &axis : axes) {
        if (axis.inSizeValue) {
          // The same symbolic size in and out is kept; else the scale is
          // out / in at run time, and run() returns 9 for an empty input
          // dim resized to a non-empty one.
          if (inShape && outShape && (*inShape)[axis.dim] == (*outShape)[axis.dim] &&
              (*inShape)[axis.dim].isSymbolic()) {
            axis.scale = 1.0;
            continue;
          }
          Location loc = op.getLoc();
          Value one = indexConst(rewriter, loc, 1);
          checkDims(rewriter, loc, op, "at_least", axis.inSizeValue,
                    arith::MinUIOp::create(rewriter, loc, axis.outSizeValue, one));
          Scalars sc{rewriter, loc};
          Value in = sc.indexToF64(arith::MaxUIOp::create(rewriter, loc, axis.inSizeValue, one));
          axis.scaleValue = sc.div(sc.indexToF64(axis.outSizeValue), in);
          continue;
        }
        if (axis.inSize == 0 && axis.outSize != 0)
          return rewriter.notifyMatchFailure(op, "cannot resize an empty dim");
        axis.scale = axis.inSize == 0 ? 1.0
                                      : static_cast<double>(axis.outSize) /
                                            static_cast<double>(axis.inSize);
      }
    } else {
      if (length1D(op.getScales()) != std::optional<int64_t>(rank))
        return rewriter.notifyMatchFailure(op, "scales needs one value per input dim");
      if (auto given = constantDoubles(op.getScales(), adaptor.getScales())) {
        for (int64_t d = 0; d < rank; ++d) {
          double s = (*given)[d];
          if (!(s > 0) || !std::isfinite(s))
            return rewriter.notifyMatchFailure(op, "scales must be positive and finite");
          // round(H * s) under Resize-18's keep_aspect_ratio_policy.
          double size = static_cast<double>(axes[d].inSize) * s;
          size = op->hasAttr("onnxcc.rounded_size") ? std::round(size) : std::floor(size);
          if (axes[d].inSizeValue) {
            // k*H for an integer k, else floor(H * s), a derived dim.
          } else if (static_cast<int64_t>(size) != axes[d].outSize)
            return rewriter.notifyMatchFailure(op, "result shape disagrees with scales");
          axes[d].scale = s;
        }
      }
    }

    Value roiTensor;
    if (transform == Transform::TfCropAndResize) {
      if (length1D(op.getRoi()) != std::optional<int64_t>(2 * rank))
        return rewriter.notifyMatchFailure(op, "tf_crop_and_resize needs 2 * rank roi values");
      if (auto roi = constantDoubles(op.getRoi(), adaptor.getRoi())) {
        for (int64_t d = 0; d < rank; ++d) {
          axes[d].roiStart = (*roi)[d];
          axes[d].roiEnd = (*roi)[d + rank];
        }
      } else {
        roiTensor = adaptor.getRoi();
      }
    }

    Location loc = op.getLoc();
    if (type.hasStaticShape() && type.getNumElements() == 0) {
      rewriter.replaceOp(
          op, tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType()));
      return success();
    }

    // The axes that are actually resampled; the others read their own
    // position. A dim of size 1 kept at 1 reads index 0 whatever the scale,
    // coordinate mode or roi; a larger one is unchanged only for a scale of 1
    // known at compile time (and, cropping, the full roi).
    SmallVector<AxisPlan> plans;
    for (AxisPlan &axis : axes) {
      if (axis.inSizeValue) {
        // An empty symbolic dim gives an empty result: nothing is read.
        if (axis.scale != 1.0)
          plans.push_back(axis);
        continue;
      }
      bool sameSize = axis.inSize == axis.outSize;
      bool fullRoi = transform != Transform::TfCropAndResize ||
                     (axis.roiStart == 0.0 && axis.roiEnd == 1.0);
      if (sameSize && (axis.inSize == 1 || (axis.scale == 1.0 && fullRoi)))
        continue;
      if (axis.inSize == 0)
        return rewriter.notifyMatchFailure(op, "cannot resize an empty dim");
      plans.push_back(axis);
    }
    bool antialias = op->hasAttr("antialias") && mode != Mode::Nearest;
    int64_t taps = 1;
    for (AxisPlan &plan : plans) {
      if (mode == Mode::Nearest)
        break;
      plan.taps = mode == Mode::Cubic ? 4 : 2;
      if (antialias) {
        // Scales read at run time: the footprint of the smallest scale that
        // gives this output size (out / in); a larger one's extra taps weigh 0.
        double k = std::min(plan.scale ? *plan.scale
                                       : static_cast<double>(plan.outSize) /
                                             static_cast<double>(plan.inSize),
                            1.0);
        double reach = mode == Mode::Cubic ? 2.0 : 1.0;
        int64_t start = static_cast<int64_t>(std::floor(-reach / k) + 1);
        plan.taps = 2 - 2 * start;
        plan.antialias = true;
      }
      if ((taps *= plan.taps) > kMaxTaps)
        return rewriter.notifyMatchFailure(op, "too many resized axes for one kernel");
    }

    Value scalesTensor = bySizes ? Value() : adaptor.getScales();
    Type roiElem =
        transform == Transform::TfCropAndResize ? onnxElementType(op.getRoi()) : Type();
    double cubicA = op.getCubicCoeffA().convertToDouble();
    bool excludeOutside = op.getExcludeOutside() != 0;
    double extrapolation = op.getExtrapolationValue().convertToDouble();

    auto body = [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
      Scalars s{b, l};
      SmallVector<AxisSample> samples;
      for (const AxisPlan &plan : plans) {
        AxisParams params = axisParams(s, plan, scalesTensor, roiTensor, roiElem, rank);
        samples.push_back(sampleAxis(s, plan, params, ivs[plan.dim], mode, transform,
                                     rounding, cubicA, excludeOutside));
      }

      Value result;
      if (mode == Mode::Nearest) {
        SmallVector<Value> at(ivs);
        for (auto [plan, sample] : llvm::zip(plans, samples))
          at[plan.dim] = sample.positions.front();
        result = tensor::ExtractOp::create(b, l, x, at);
      } else {
        SmallVector<Value> at(ivs);
        Value sum = interpolate(s, x, plans, samples, 0, at);
        result = sum.getType() == elem ? sum : arith::TruncFOp::create(b, l, elem, sum);
      }
      if (transform != Transform::TfCropAndResize || plans.empty())
        return result;
      Value outside = samples.front().outside;
      for (const AxisSample &sample : ArrayRef(samples).drop_front())
        outside = s.orI(outside, sample.outside);
      return s.select(outside, scalarConstant(b, l, elem, extrapolation), result);
    };
    rewriter.replaceOp(op, buildIndexedGeneric(rewriter, loc, type, body, typeAndSizes->second));
    return success();
  }

private:
  /// `v` as a constant of element type `elem` (float, or an integer
  /// truncated toward zero as ONNX casts do).
  static Value scalarConstant(OpBuilder &b, Location loc, Type elem, double v) {
    if (auto f = dyn_cast<FloatType>(elem)) {
      APFloat value(v);
      bool lost = false;
      value.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      return arith::ConstantOp::create(b, loc, FloatAttr::get(elem, value));
    }
    auto bits = elem.getIntOrFloatBitWidth();
    int64_t i = std::isfinite(v) ? static_cast<int64_t>(v) : 0;
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(elem, APInt(bits, i, true, true)));
  }

  /// Element `k` of a 1-D tensor, read at run time.
  static Value readFloat(Scalars &s, Value t, int64_t k) {
    return tensor::ExtractOp::create(s.b, s.loc, t, ValueRange{s.index(k)});
  }
  static Value toF64(Scalars &s, Value v) {
    if (v.getType().isF64())
      return v;
    return arith::ExtFOp::create(s.b, s.loc, s.b.getF64Type(), v);
  }

  /// The scale and roi of one axis as f64 values: constants when known at
  /// compile time, else read from the operands. The roi extent is computed in
  /// the roi's own precision, as the reference does.
  static AxisParams axisParams(Scalars &s, const AxisPlan &plan, Value scalesTensor,
                               Value roiTensor, Type roiElem, int64_t rank) {
    AxisParams params;
    params.scale = plan.scale        ? s.f64(*plan.scale)
                   : plan.scaleValue ? plan.scaleValue
                                     : toF64(s, readFloat(s, scalesTensor, plan.dim));
    if (!roiElem)
      return params;
    if (plan.roiStart) {
      const llvm::fltSemantics &semantics = cast<FloatType>(roiElem).getFloatSemantics();
      bool lost = false;
      APFloat start(*plan.roiStart), end(*plan.roiEnd);
      start.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      end.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      end.subtract(start, APFloat::rmNearestTiesToEven);
      end.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      params.roiStart = s.f64(*plan.roiStart);
      params.extent = s.f64(end.convertToDouble());
      return params;
    }
    Value start = readFloat(s, roiTensor, plan.dim);
    Value end = readFloat(s, roiTensor, plan.dim + rank);
    params.roiStart = toF64(s, start);
    params.extent = toF64(s, s.sub(end, start));
    return params;
  }

  /// x_ori: the input coordinate of output position `xOut` (f64), computed
  /// with the reference's operations in its order. The output width
  /// (scale * size_in) can be 1 only when the result dim is 1.
  static Value inputCoordinate(Scalars &s, const AxisPlan &plan, const AxisParams &params,
                               Value xOut, Transform transform) {
    Value one = s.f64(1.0);
    auto outWidth = [&] { return s.mul(params.scale, s.inSizeF64(plan)); };
    auto unlessWidthOne = [&](Value whenOne, Value otherwise) {
      if (plan.outSize != 1 && !plan.outSizeValue)
        return otherwise;
      return s.select(s.cmpF(arith::CmpFPredicate::OEQ, outWidth(), one), whenOne, otherwise);
    };
    switch (transform) {
    case Transform::AlignCorners:
      return unlessWidthOne(
          s.f64(0.0), s.div(s.mul(xOut, s.inSizeF64(plan, -1)), s.sub(outWidth(), one)));
    case Transform::Asymmetric:
      return s.div(xOut, params.scale);
    case Transform::TfHalfPixelForNN:
      // Resize-11 only (TensorFlow's nearest neighbour with half pixels).
      return s.div(s.add(xOut, s.f64(0.5)), params.scale);
    case Transform::TfCropAndResize: {
      Value whenOne = s.div(s.mul(params.extent, s.inSizeF64(plan, -1)), s.f64(2.0));
      Value otherwise = s.div(s.mul(s.mul(xOut, params.extent), s.inSizeF64(plan, -1)),
                              s.sub(outWidth(), one));
      return s.add(unlessWidthOne(whenOne, otherwise),
                   s.mul(params.roiStart, s.inSizeF64(plan, -1)));
    }
    case Transform::HalfPixelSymmetric: {
      // half_pixel shifted so that the output stays centred when its width
      // (scale * size_in) is cut to a whole size_out: by center * (1 -
      // size_out / width), center = size_in / 2.
      Value adjustment = s.div(s.outSizeF64(plan), outWidth());
      Value offset = s.mul(s.div(s.inSizeF64(plan), s.f64(2.0)), s.sub(one, adjustment));
      return s.add(offset,
                   s.sub(s.div(s.add(xOut, s.f64(0.5)), params.scale), s.f64(0.5)));
    }
    case Transform::PytorchHalfPixel:
    case Transform::HalfPixel: {
      Value ori = s.sub(s.div(s.add(xOut, s.f64(0.5)), params.scale), s.f64(0.5));
      if (transform == Transform::HalfPixel)
        return ori;
      // The spec (and ONNX Runtime) put an output of width 1 at 0; ONNX
      // 1.12's reference said -0.5, which linear and nearest clamp to 0 but
      // cubic does not.
      return unlessWidthOne(s.f64(0.0), ori);
    }
    }
    llvm_unreachable("unknown coordinate transformation");
  }

  /// The taps and weights of one axis for output position `iv`.
  static AxisSample sampleAxis(Scalars &s, const AxisPlan &plan, const AxisParams &params,
                               Value iv, Mode mode, Transform transform,
                               NearestRounding rounding, double cubicA, bool excludeOutside) {
    AxisSample sample;
    Value ori = inputCoordinate(s, plan, params, s.indexToF64(iv), transform);
    if (transform == Transform::TfCropAndResize)
      sample.outside =
          s.orI(s.cmpF(arith::CmpFPredicate::OLT, ori, s.f64(0.0)),
                s.cmpF(arith::CmpFPredicate::OGT, ori, s.inSizeF64(plan, -1)));

    // ratio in (0, 1]: the left neighbour `base` is x_ori - 1 for an integer
    // x_ori, as the reference prefers the pixel left of x_ori.
    Value floorOri = math::FloorOp::create(s.b, s.loc, ori);
    Value isInteger = s.cmpF(arith::CmpFPredicate::OEQ, floorOri, ori);
    Value one = s.f64(1.0);
    Value ratio = s.select(isInteger, one, s.sub(ori, floorOri));
    // Bounded (NaN included, from bad run-time scales) before the conversion
    // to an integer; the window below is clamped to a tighter range anyway.
    Value baseF = s.select(isInteger, s.sub(floorOri, one), floorOri);
    // (A symbolic dim is at most 2^31, NAME_MAX_DIM.)
    double bound = plan.inSizeValue ? 0x1p31 + 4 : static_cast<double>(plan.inSize + 4);
    baseF = arith::MaxNumFOp::create(s.b, s.loc, baseF, s.f64(-bound));
    baseF = arith::MinNumFOp::create(s.b, s.loc, baseF, s.f64(bound));
    Value base = s.f64ToIndex(baseF);

    // The n nearest positions in the input padded by n / 2 edge values: a
    // window starting at base - (n / 2 - 1), kept inside the padded range.
    int64_t n = mode == Mode::Nearest ? 2 : plan.taps;
    int64_t pad = n / 2;
    Value start = s.clamp(s.addI(base, s.index(-(n / 2 - 1))), s.index(-pad),
                          s.inSizePlus(plan, pad - n));
    auto tap = [&](int64_t k) { return s.addI(start, s.index(k)); };
    auto read = [&](Value pos) { return s.clamp(pos, s.index(0), s.inSizePlus(plan, -1)); };

    if (mode == Mode::Nearest) {
      Value half = s.f64(0.5);
      Value right;
      switch (rounding) {
      case NearestRounding::RoundPreferFloor:
        right = s.cmpF(arith::CmpFPredicate::OGT, ratio, half);
        break;
      case NearestRounding::RoundPreferCeil:
        right = s.cmpF(arith::CmpFPredicate::OGE, ratio, half);
        break;
      case NearestRounding::Floor:
        right = isInteger;
        break;
      case NearestRounding::Ceil:
        right = arith::ConstantIntOp::create(s.b, s.loc, s.b.getI1Type(), 1);
        break;
      }
      sample.positions.push_back(read(s.select(right, tap(1), tap(0))));
      return sample;
    }

    if (plan.antialias) {
      // Antialiasing: the kernel at (k + 1 - n / 2 - ratio) * scale, tap k
      // being that far from x_ori, normalized.
      Value k = plan.scale ? s.f64(std::min(*plan.scale, 1.0))
                           : arith::MinimumFOp::create(s.b, s.loc, params.scale, one).getResult();
      Value zero = s.f64(0.0);
      double a = cubicA;
      Value total;
      for (int64_t i = 0; i < n; ++i) {
        Value t = s.mul(s.sub(s.f64(static_cast<double>(i + 1 - n / 2)), ratio), k);
        t = math::AbsFOp::create(s.b, s.loc, t);
        Value w;
        if (mode == Mode::Linear) {
          w = arith::MaximumFOp::create(s.b, s.loc, s.sub(one, t), zero);
        } else {
          Value t2 = s.mul(t, t), t3 = s.mul(t2, t);
          Value nearW = s.add(s.sub(s.mul(s.f64(a + 2), t3), s.mul(s.f64(a + 3), t2)), one);
          Value farW = s.sub(s.add(s.sub(s.mul(s.f64(a), t3), s.mul(s.f64(5 * a), t2)),
                                   s.mul(s.f64(8 * a), t)),
                             s.f64(4 * a));
          w = s.select(s.cmpF(arith::CmpFPredicate::OLE, t, one), nearW,
                       s.select(s.cmpF(arith::CmpFPredicate::OLT, t, s.f64(2.0)), farW, zero));
        }
        sample.weights.push_back(w);
        total = total ? s.add(total, w) : w;
      }
      for (Value &w : sample.weights)
        w = s.div(w, total);
    } else if (mode == Mode::Linear) {
      sample.weights = {s.sub(one, ratio), ratio};
    } else {
      // Keys' cubic convolution weights at distances 1 + r, r, 1 - r, 2 - r.
      Value a = s.f64(cubicA);
      auto far = [&](Value t) { // |t| in [1, 2]
        Value v = s.sub(s.mul(a, t), s.f64(5 * cubicA));
        v = s.add(s.mul(v, t), s.f64(8 * cubicA));
        return s.sub(s.mul(v, t), s.f64(4 * cubicA));
      };
      auto near = [&](Value t) { // |t| in [0, 1]
        Value v = s.sub(s.mul(s.f64(cubicA + 2), t), s.f64(cubicA + 3));
        return s.add(s.mul(s.mul(v, t), t), one);
      };
      Value rest = s.sub(one, ratio);
      sample.weights = {far(s.add(ratio, one)), near(ratio), near(rest), far(s.add(rest, one))};
    }
    for (int64_t k = 0; k < n; ++k)
      sample.positions.push_back(read(tap(k)));
    if (!excludeOutside)
      return sample;

    // exclude_outside: taps outside the input get weight 0, and the rest are
    // renormalized to sum to 1.
    Value zero = s.f64(0.0);
    Value total;
    for (int64_t k = 0; k < n; ++k) {
      Value pos = tap(k);
      Value outside = s.orI(s.cmpI(arith::CmpIPredicate::slt, pos, s.index(0)),
                            s.cmpI(arith::CmpIPredicate::sge, pos, s.inSizePlus(plan, 0)));
      sample.weights[k] = s.select(outside, zero, sample.weights[k]);
      total = total ? s.add(total, sample.weights[k]) : sample.weights[k];
    }
    for (Value &w : sample.weights)
      w = s.div(w, total);
    return sample;
  }

  /// Sum over the taps of axis `i` and beyond (in f64) of weight times the
  /// input at `at`: the outer axis combines the inner axes' interpolations.
  static Value interpolate(Scalars &s, Value x, ArrayRef<AxisPlan> plans,
                           ArrayRef<AxisSample> samples, size_t i, SmallVector<Value> &at) {
    if (i == plans.size()) {
      Value v = tensor::ExtractOp::create(s.b, s.loc, x, at);
      if (!v.getType().isF64())
        v = arith::ExtFOp::create(s.b, s.loc, s.b.getF64Type(), v);
      return v;
    }
    const AxisSample &sample = samples[i];
    Value sum;
    for (auto [pos, weight] : llvm::zip(sample.positions, sample.weights)) {
      at[plans[i].dim] = pos;
      Value term = s.mul(weight, interpolate(s, x, plans, samples, i + 1, at));
      sum = sum ? s.add(sum, term) : term;
    }
    return sum;
  }
};

} // namespace

void populateResizePatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(converter, patterns.getContext());
  populateGridSamplePatterns(converter, patterns);
}

} // namespace onnxcc::lowering
