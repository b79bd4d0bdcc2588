//===- OnnxOps.cpp - Verifiers and folders of onnx ops ------------------===//
#include "dialects/onnx/OnnxOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace onnxcc::onnx;

#include "dialects/onnx/OnnxInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/onnx/OnnxOps.cpp.inc"

namespace {
/// The rank of `v` when it is a ranked tensor, else nullopt.
std::optional<int64_t> rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return std::nullopt;
}

/// Checks that `axis` lies in [-rank, rank).
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank,
                         StringRef what = "axis") {
  if (axis < -rank || axis >= rank)
    return op->emitOpError() << what << " " << axis << " is out of range for rank "
                             << rank;
  return success();
}

/// Verifies a subgraph region: one block ending in onnx.Yield with
/// `expectedResults` values (when known).
LogicalResult verifySubgraph(Operation *op, Region &region, StringRef name,
                             std::optional<size_t> expectedArgs,
                             std::optional<size_t> expectedResults) {
  if (region.empty())
    return op->emitOpError() << "region '" << name << "' is empty";
  Block &block = region.front();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "region '" << name
                             << "' must end with onnx.Yield";
  if (expectedArgs && block.getNumArguments() != *expectedArgs)
    return op->emitOpError() << "region '" << name << "' has "
                             << block.getNumArguments() << " arguments, expected "
                             << *expectedArgs;
  if (expectedResults && yield.getNumOperands() != *expectedResults)
    return op->emitOpError() << "region '" << name << "' yields "
                             << yield.getNumOperands() << " values, expected "
                             << *expectedResults;
  return success();
}
} // namespace

OpFoldResult NoValueOp::fold(FoldAdaptor) { return UnitAttr::get(getContext()); }

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  std::optional<int64_t> rank;
  for (Value v : getInputs()) {
    auto r = rankOf(v);
    if (!r)
      continue;
    if (rank && *rank != *r)
      return emitOpError() << "inputs have different ranks (" << *rank << " and "
                           << *r << ")";
    rank = r;
  }
  if (rank)
    return verifyAxis(*this, getAxis(), *rank);
  return success();
}

LogicalResult ConstantOp::verify() {
  int present = 0;
  for (StringRef name : {"value", "sparse_value", "value_float", "value_floats",
                         "value_int", "value_ints", "value_string", "value_strings"})
    present += (*this)->hasAttr(name) ? 1 : 0;
  if (present != 1)
    return emitOpError() << "needs exactly one value attribute, has " << present;
  return success();
}

LogicalResult ConvOp::verify() {
  auto xRank = rankOf(getX());
  auto wRank = rankOf(getW());
  if (xRank && *xRank < 3)
    return emitOpError() << "input X must have rank >= 3, has rank " << *xRank;
  if (xRank && wRank && *xRank != *wRank)
    return emitOpError() << "input X (rank " << *xRank << ") and weight W (rank "
                         << *wRank << ") must have the same rank";
  int64_t spatial = xRank ? *xRank - 2 : (wRank ? *wRank - 2 : -1);
  if (static_cast<int64_t>(getGroup()) < 1)
    return emitOpError() << "group must be positive, is "
                         << static_cast<int64_t>(getGroup());
  auto checkLen = [&](std::optional<ArrayRef<int64_t>> a, StringRef name,
                      int64_t factor) -> LogicalResult {
    if (!a || spatial < 0)
      return success();
    if (static_cast<int64_t>(a->size()) != factor * spatial)
      return emitOpError() << name << " has " << a->size() << " values, expected "
                           << factor * spatial;
    return success();
  };
  if (failed(checkLen(getKernelShape(), "kernel_shape", 1)) ||
      failed(checkLen(getStrides(), "strides", 1)) ||
      failed(checkLen(getDilations(), "dilations", 1)) ||
      failed(checkLen(getPads(), "pads", 2)))
    return failure();
  if (auto s = getStrides())
    if (llvm::any_of(*s, [](int64_t v) { return v < 1; }))
      return emitOpError("strides must be positive");
  if (auto d = getDilations())
    if (llvm::any_of(*d, [](int64_t v) { return v < 1; }))
      return emitOpError("dilations must be positive");
  if (auto p = getPads())
    if (llvm::any_of(*p, [](int64_t v) { return v < 0; }))
      return emitOpError("pads must be non-negative");
  StringRef autoPad = getAutoPad();
  if (!llvm::is_contained({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}, autoPad))
    return emitOpError() << "unknown auto_pad '" << autoPad << "'";
  return success();
}

LogicalResult GemmOp::verify() {
  for (Value v : {getA(), getB()})
    if (auto r = rankOf(v); r && *r != 2)
      return emitOpError() << "inputs A and B must have rank 2, one has rank " << *r;
  return success();
}

LogicalResult TransposeOp::verify() {
  auto perm = getPerm();
  if (!perm)
    return success();
  llvm::SmallBitVector seen(perm->size());
  for (int64_t p : *perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm->size()) || seen.test(p))
      return emitOpError("perm must be a permutation of [0, rank)");
    seen.set(p);
  }
  if (auto r = rankOf(getData()); r && *r != static_cast<int64_t>(perm->size()))
    return emitOpError() << "perm has " << perm->size()
                         << " values but the input has rank " << *r;
  return success();
}

LogicalResult IfOp::verify() {
  size_t n = getNumResults();
  if (failed(verifySubgraph(*this, getThenBranch(), "then_branch", 0, n)) ||
      failed(verifySubgraph(*this, getElseBranch(), "else_branch", 0, n)))
    return failure();
  return success();
}

LogicalResult LoopOp::verify() {
  // body(iteration_num, condition, loop-carried...) -> (condition, carried..., scan...)
  size_t carried = getVInitial().size();
  if (failed(verifySubgraph(*this, getBody(), "body", carried + 2, std::nullopt)))
    return failure();
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getNumOperands() < carried + 1)
    return emitOpError() << "body yields " << yield.getNumOperands()
                         << " values, expected at least " << carried + 1;
  if (getNumResults() != yield.getNumOperands() - 1)
    return emitOpError() << "has " << getNumResults() << " results but the body yields "
                         << yield.getNumOperands() - 1 << " loop values";
  return success();
}

LogicalResult ScanOp::verify() {
  int64_t numScanInputs = getNumScanInputs();
  int64_t numInputs = getInitialStateAndScanInputs().size();
  if (numScanInputs < 0 || numScanInputs > numInputs)
    return emitOpError() << "num_scan_inputs " << numScanInputs
                         << " is out of range for " << numInputs << " inputs";
  return verifySubgraph(*this, getBody(), "body", numInputs, getNumResults());
}

//===----------------------------------------------------------------------===//
// Verifiers of attributes and ranks that can be checked without shapes
//===----------------------------------------------------------------------===//

namespace {
/// Checks that string attribute `name` is one of `choices`.
LogicalResult verifyOneOf(Operation *op, StringRef name, StringRef value,
                          ArrayRef<StringRef> choices) {
  if (llvm::is_contained(choices, value))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << name << " '" << value << "' is not one of ";
  llvm::interleave(
      choices, [&](StringRef c) { diag << "'" << c << "'"; }, [&] { diag << ", "; });
  return diag;
}

/// Checks that `v` is 1-D when ranked (shape-like inputs: shape, axes, pads).
LogicalResult verify1D(Operation *op, Value v, StringRef name) {
  if (auto r = rankOf(v); r && *r != 1)
    return op->emitOpError() << "input '" << name << "' must be a 1-D tensor, has rank "
                             << *r;
  return success();
}

/// Checks that `v` is a scalar or a 1-element 1-D tensor when ranked.
LogicalResult verifyScalarLike(Operation *op, Value v, StringRef name) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() == 0)
    return success();
  if (t.getRank() == 1 && (t.isDynamicDim(0) || t.getDimSize(0) == 1))
    return success();
  return op->emitOpError() << "input '" << name << "' must be a scalar, has type " << t;
}

/// Checks that `v` has at least `minRank` dims when ranked.
LogicalResult verifyMinRank(Operation *op, Value v, StringRef name, int64_t minRank) {
  if (auto r = rankOf(v); r && *r < minRank)
    return op->emitOpError() << "input '" << name << "' must have rank >= " << minRank
                             << ", has rank " << *r;
  return success();
}

/// Checks the attributes of a sliding window over `x`: lengths of kernel,
/// strides, dilations and pads against its spatial rank, positivity, and
/// auto_pad.
LogicalResult verifyWindowAttrs(Operation *op, Value x,
                                std::optional<ArrayRef<int64_t>> kernel,
                                std::optional<ArrayRef<int64_t>> strides,
                                std::optional<ArrayRef<int64_t>> dilations,
                                std::optional<ArrayRef<int64_t>> pads,
                                StringRef autoPad) {
  if (failed(verifyOneOf(op, "auto_pad", autoPad,
                         {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"})))
    return failure();
  auto xRank = rankOf(x);
  if (xRank && *xRank < 3)
    return op->emitOpError() << "input X must have rank >= 3 (N, C, spatial...), has rank "
                             << *xRank;
  std::optional<int64_t> spatial;
  if (xRank)
    spatial = *xRank - 2;
  else if (kernel)
    spatial = kernel->size();
  auto checkLen = [&](std::optional<ArrayRef<int64_t>> a, StringRef name,
                      int64_t factor) -> LogicalResult {
    if (!a || !spatial)
      return success();
    if (static_cast<int64_t>(a->size()) != factor * *spatial)
      return op->emitOpError() << name << " has " << a->size() << " values, expected "
                               << factor * *spatial << " for " << *spatial
                               << " spatial dims";
    return success();
  };
  if (failed(checkLen(kernel, "kernel_shape", 1)) ||
      failed(checkLen(strides, "strides", 1)) ||
      failed(checkLen(dilations, "dilations", 1)) || failed(checkLen(pads, "pads", 2)))
    return failure();
  auto positive = [&](std::optional<ArrayRef<int64_t>> a, StringRef name) -> LogicalResult {
    if (a && llvm::any_of(*a, [](int64_t v) { return v < 1; }))
      return op->emitOpError() << name << " values must be positive";
    return success();
  };
  if (failed(positive(kernel, "kernel_shape")) || failed(positive(strides, "strides")) ||
      failed(positive(dilations, "dilations")))
    return failure();
  if (pads && llvm::any_of(*pads, [](int64_t v) { return v < 0; }))
    return op->emitOpError("pads values must be non-negative");
  return success();
}

/// Checks an `axis` attribute against the rank of `v` when it is ranked.
LogicalResult verifyAxisOf(Operation *op, Value v, int64_t axis, int64_t extra = 0) {
  if (auto r = rankOf(v))
    return verifyAxis(op, axis, *r + extra);
  return success();
}

/// The element type ONNX TensorProto.DataType `code` names, or null for codes
/// that are not tensor element types.
Type onnxElementType(MLIRContext *ctx, int64_t code) {
  switch (code) {
  case 1: return Float32Type::get(ctx);
  case 2: return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case 3: return IntegerType::get(ctx, 8);
  case 4: return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case 5: return IntegerType::get(ctx, 16);
  case 6: return IntegerType::get(ctx, 32);
  case 7: return IntegerType::get(ctx, 64);
  case 8: return StringType::get(ctx);
  case 9: return IntegerType::get(ctx, 1);
  case 10: return Float16Type::get(ctx);
  case 11: return Float64Type::get(ctx);
  case 12: return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case 13: return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case 14: return ComplexType::get(Float32Type::get(ctx));
  case 15: return ComplexType::get(Float64Type::get(ctx));
  case 16: return BFloat16Type::get(ctx);
  case 17: return Float8E4M3FNType::get(ctx);
  case 18: return Float8E4M3FNUZType::get(ctx);
  case 19: return Float8E5M2Type::get(ctx);
  case 20: return Float8E5M2FNUZType::get(ctx);
  case 21: return IntegerType::get(ctx, 4, IntegerType::Unsigned);
  case 22: return IntegerType::get(ctx, 4);
  case 23: return Float4E2M1FNType::get(ctx);
  case 24: return Float8E8M0FNUType::get(ctx);
  case 25: return IntegerType::get(ctx, 2, IntegerType::Unsigned);
  case 26: return IntegerType::get(ctx, 2);
  default: return {};
  }
}

/// Checks the attributes shared by RNN, GRU and LSTM.
LogicalResult verifyRecurrent(Operation *op, StringRef direction, int64_t layout,
                              std::optional<uint64_t> hiddenSize, Value x) {
  if (failed(verifyOneOf(op, "direction", direction,
                         {"forward", "reverse", "bidirectional"})))
    return failure();
  if (layout != 0 && layout != 1)
    return op->emitOpError() << "layout must be 0 or 1, is " << layout;
  if (hiddenSize && static_cast<int64_t>(*hiddenSize) < 1)
    return op->emitOpError() << "hidden_size must be positive, is "
                             << static_cast<int64_t>(*hiddenSize);
  if (auto r = rankOf(x); r && *r != 3)
    return op->emitOpError() << "input X must have rank 3, has rank " << *r;
  return success();
}
} // namespace

LogicalResult SoftmaxOp::verify() {
  return verifyAxisOf(*this, getInput(), static_cast<int64_t>(getAxis()));
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxisOf(*this, getInput(), static_cast<int64_t>(getAxis()));
}

LogicalResult HardmaxOp::verify() {
  return verifyAxisOf(*this, getInput(), static_cast<int64_t>(getAxis()));
}

LogicalResult FlattenOp::verify() {
  // Flatten's axis may equal the rank (everything in the first dim).
  return verifyAxisOf(*this, getInput(), static_cast<int64_t>(getAxis()), 1);
}

LogicalResult GatherOp::verify() {
  return verifyAxisOf(*this, getData(), static_cast<int64_t>(getAxis()));
}

LogicalResult GatherElementsOp::verify() {
  auto d = rankOf(getData()), i = rankOf(getIndices());
  if (d && i && *d != *i)
    return emitOpError() << "data (rank " << *d << ") and indices (rank " << *i
                         << ") must have the same rank";
  return verifyAxisOf(*this, getData(), static_cast<int64_t>(getAxis()));
}

LogicalResult GatherNDOp::verify() {
  int64_t b = static_cast<int64_t>(getBatchDims());
  if (b < 0)
    return emitOpError() << "batch_dims must be non-negative, is " << b;
  for (Value v : {getData(), getIndices()})
    if (auto r = rankOf(v); r && b >= *r)
      return emitOpError() << "batch_dims " << b << " must be less than the rank " << *r
                           << " of data and indices";
  return success();
}

LogicalResult ArgMaxOp::verify() {
  if (failed(verifyMinRank(*this, getData(), "data", 1)))
    return failure();
  return verifyAxisOf(*this, getData(), static_cast<int64_t>(getAxis()));
}

LogicalResult ArgMinOp::verify() {
  if (failed(verifyMinRank(*this, getData(), "data", 1)))
    return failure();
  return verifyAxisOf(*this, getData(), static_cast<int64_t>(getAxis()));
}

LogicalResult AveragePoolOp::verify() {
  return verifyWindowAttrs(*this, getX(), getKernelShape(), getStrides(), std::nullopt,
                           getPads(), getAutoPad());
}

LogicalResult MaxPoolOp::verify() {
  int64_t order = static_cast<int64_t>(getStorageOrder());
  if (order != 0 && order != 1)
    return emitOpError() << "storage_order must be 0 or 1, is " << order;
  return verifyWindowAttrs(*this, getX(), getKernelShape(), getStrides(), getDilations(),
                           getPads(), getAutoPad());
}

LogicalResult LpPoolOp::verify() {
  return verifyWindowAttrs(*this, getX(), getKernelShape(), getStrides(), std::nullopt,
                           getPads(), getAutoPad());
}

LogicalResult ConvTransposeOp::verify() {
  if (static_cast<int64_t>(getGroup()) < 1)
    return emitOpError() << "group must be positive, is " << static_cast<int64_t>(getGroup());
  auto xRank = rankOf(getX()), wRank = rankOf(getW());
  if (xRank && wRank && *xRank != *wRank)
    return emitOpError() << "input X (rank " << *xRank << ") and weight W (rank " << *wRank
                         << ") must have the same rank";
  if (failed(verifyWindowAttrs(*this, getX(), getKernelShape(), getStrides(),
                               getDilations(), getPads(), getAutoPad())))
    return failure();
  if (auto op = getOutputPadding()) {
    if (auto s = getStrides(); s && s->size() == op->size())
      for (auto [p, st] : llvm::zip(*op, *s))
        if (p < 0 || p >= st)
          return emitOpError() << "output_padding " << p
                               << " must be non-negative and less than its stride " << st;
  }
  return success();
}

LogicalResult SplitOp::verify() {
  if (failed(verifyAxisOf(*this, getInput(), static_cast<int64_t>(getAxis()))))
    return failure();
  if (getNumResults() < 1)
    return emitOpError("needs at least one output");
  if (!isa<NoneType>(getSplit().getType())) {
    if (failed(verify1D(*this, getSplit(), "split")))
      return failure();
    auto t = cast<RankedTensorType>(getSplit().getType());
    if (t.hasStaticShape() && t.getDimSize(0) != static_cast<int64_t>(getNumResults()))
      return emitOpError() << "split has " << t.getDimSize(0) << " values but the op has "
                           << getNumResults() << " outputs";
  }
  return success();
}

/// Squeeze/Unsqueeze axes: 1-D per the spec; a scalar (one axis) is also
/// accepted, as the ONNX backend tests and runtimes use it.
static LogicalResult verifyAxesInput(Operation *op, Value axes) {
  if (auto r = rankOf(axes); r && *r == 0)
    return success();
  return verify1D(op, axes, "axes");
}

LogicalResult SqueezeOp::verify() {
  if (isa<NoneType>(getAxes().getType()))
    return success();
  return verifyAxesInput(*this, getAxes());
}

LogicalResult UnsqueezeOp::verify() { return verifyAxesInput(*this, getAxes()); }

LogicalResult ReshapeOp::verify() {
  int64_t allowZero = static_cast<int64_t>(getAllowzero());
  if (allowZero != 0 && allowZero != 1)
    return emitOpError() << "allowzero must be 0 or 1, is " << allowZero;
  return verify1D(*this, getShape(), "shape");
}

LogicalResult ExpandOp::verify() { return verify1D(*this, getShape(), "shape"); }

LogicalResult TileOp::verify() { return verify1D(*this, getRepeats(), "repeats"); }

/// Cast's and BitCast's `to`: an ONNX data type, the result's element type.
static LogicalResult verifyTo(Operation *op, int64_t to, Value output) {
  Type expected = onnxElementType(op->getContext(), to);
  if (!expected)
    return op->emitOpError() << "'to' is " << to << ", which is not an ONNX tensor data type";
  auto resultType = dyn_cast<TensorType>(output.getType());
  if (resultType && resultType.getElementType() != expected)
    return op->emitOpError() << "'to' is " << to << " (" << expected
                             << ") but the result element type is "
                             << resultType.getElementType();
  return success();
}

LogicalResult CastOp::verify() {
  return verifyTo(*this, static_cast<int64_t>(getTo()), getOutput());
}

/// Bits of one element as BitCast counts them (a bool takes a byte).
static std::optional<unsigned> bitCastWidth(Type t) {
  if (t.isInteger(1))
    return 8;
  if (auto c = dyn_cast<ComplexType>(t))
    if (auto w = bitCastWidth(c.getElementType()))
      return 2 * *w;
  if (t.isIntOrFloat())
    return t.getIntOrFloatBitWidth();
  return std::nullopt;
}

LogicalResult BitCastOp::verify() {
  if (failed(verifyTo(*this, static_cast<int64_t>(getTo()), getOutput())))
    return failure();
  Type expected = onnxElementType(getContext(), static_cast<int64_t>(getTo()));
  Type from = cast<TensorType>(getInput().getType()).getElementType();
  auto fromBits = bitCastWidth(from), toBits = bitCastWidth(expected);
  if (!fromBits || !toBits || *fromBits != *toBits)
    return emitOpError() << "cannot reinterpret " << from << " as " << expected
                         << ": the types must have the same bit width";
  return success();
}

LogicalResult CumProdOp::verify() { return verifyScalarLike(*this, getAxis(), "axis"); }

LogicalResult DepthToSpaceOp::verify() {
  if (static_cast<int64_t>(getBlocksize()) < 1)
    return emitOpError() << "blocksize must be positive, is "
                         << static_cast<int64_t>(getBlocksize());
  if (failed(verifyOneOf(*this, "mode", getMode(), {"DCR", "CRD"})))
    return failure();
  if (auto r = rankOf(getInput()); r && *r != 4)
    return emitOpError() << "input must have rank 4 (N, C, H, W), has rank " << *r;
  return success();
}

LogicalResult SpaceToDepthOp::verify() {
  if (static_cast<int64_t>(getBlocksize()) < 1)
    return emitOpError() << "blocksize must be positive, is "
                         << static_cast<int64_t>(getBlocksize());
  if (auto r = rankOf(getInput()); r && *r != 4)
    return emitOpError() << "input must have rank 4 (N, C, H, W), has rank " << *r;
  return success();
}

LogicalResult PadOp::verify() {
  if (failed(verifyOneOf(*this, "mode", getMode(), {"constant", "reflect", "edge", "wrap"})))
    return failure();
  if (failed(verify1D(*this, getPads(), "pads")))
    return failure();
  auto padsType = cast<RankedTensorType>(getPads().getType());
  if (auto r = rankOf(getData());
      r && padsType.hasStaticShape() && padsType.getDimSize(0) != 2 * *r)
    return emitOpError() << "pads has " << padsType.getDimSize(0)
                         << " values, expected 2 * rank = " << 2 * *r;
  return success();
}

LogicalResult ResizeOp::verify() {
  if (failed(verifyOneOf(*this, "mode", getMode(), {"nearest", "linear", "cubic"})) ||
      failed(verifyOneOf(*this, "coordinate_transformation_mode",
                         getCoordinateTransformationMode(),
                         {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                          "align_corners", "asymmetric", "tf_crop_and_resize",
                          "tf_half_pixel_for_nn"})) ||
      failed(verifyOneOf(*this, "nearest_mode", getNearestMode(),
                         {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})))
    return failure();
  bool hasScales = !isa<NoneType>(getScales().getType());
  bool hasSizes = !isa<NoneType>(getSizes().getType());
  auto nonEmpty = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return !t || t.getRank() != 1 || t.getDimSize(0) != 0;
  };
  if (hasScales && hasSizes && nonEmpty(getScales()) && nonEmpty(getSizes()))
    return emitOpError("takes scales or sizes, not both");
  if (!hasScales && !hasSizes)
    return emitOpError("needs scales or sizes");
  return success();
}

LogicalResult TopKOp::verify() {
  if (failed(verifyMinRank(*this, getX(), "X", 1)) ||
      failed(verify1D(*this, getK(), "K")))
    return failure();
  return verifyAxisOf(*this, getX(), static_cast<int64_t>(getAxis()));
}

LogicalResult TriluOp::verify() {
  if (failed(verifyMinRank(*this, getInput(), "input", 2)))
    return failure();
  if (!isa<NoneType>(getK().getType()))
    return verifyScalarLike(*this, getK(), "k");
  return success();
}

LogicalResult LayerNormalizationOp::verify() {
  return verifyAxisOf(*this, getX(), static_cast<int64_t>(getAxis()));
}

LogicalResult BatchNormalizationOp::verify() {
  int64_t mode = static_cast<int64_t>(getTrainingMode());
  if (mode != 0 && mode != 1)
    return emitOpError() << "training_mode must be 0 or 1, is " << mode;
  if (failed(verifyMinRank(*this, getX(), "X", 2)))
    return failure();
  for (Value v : {getScale(), getB(), getInputMean(), getInputVar()})
    if (auto r = rankOf(v); r && *r != 1)
      return emitOpError() << "scale, B, mean and var must be 1-D, one has rank " << *r;
  return success();
}

LogicalResult OneHotOp::verify() {
  // The output has one more dim than indices.
  if (failed(verifyAxisOf(*this, getIndices(), static_cast<int64_t>(getAxis()), 1)))
    return failure();
  if (failed(verifyScalarLike(*this, getDepth(), "depth")))
    return failure();
  if (auto t = dyn_cast<RankedTensorType>(getValues().getType());
      t && (t.getRank() != 1 || (t.hasStaticShape() && t.getDimSize(0) != 2)))
    return emitOpError() << "input 'values' must be [off_value, on_value], has type " << t;
  return success();
}

LogicalResult EinsumOp::verify() {
  StringRef eq = getEquation();
  auto [lhs, rhs] = eq.split("->");
  for (char c : eq)
    if (!llvm::isAlpha(c) && !llvm::is_contained(StringRef(" ,.->"), c))
      return emitOpError() << "equation '" << eq << "' has invalid character '" << c << "'";
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != getInputs().size())
    return emitOpError() << "equation '" << eq << "' has " << terms.size()
                         << " input terms but the op has " << getInputs().size()
                         << " inputs";
  if (rhs.contains("->") || rhs.contains(','))
    return emitOpError() << "equation '" << eq << "' has a malformed output term";
  return success();
}

LogicalResult RNNOp::verify() {
  return verifyRecurrent(*this, getDirection(), static_cast<int64_t>(getLayout()),
                         getHiddenSize(), getX());
}

LogicalResult GRUOp::verify() {
  return verifyRecurrent(*this, getDirection(), static_cast<int64_t>(getLayout()),
                         getHiddenSize(), getX());
}

LogicalResult LSTMOp::verify() {
  return verifyRecurrent(*this, getDirection(), static_cast<int64_t>(getLayout()),
                         getHiddenSize(), getX());
}

LogicalResult GridSampleOp::verify() {
  if (failed(verifyOneOf(*this, "mode", getMode(), {"bilinear", "nearest", "bicubic"})) ||
      failed(verifyOneOf(*this, "padding_mode", getPaddingMode(),
                         {"zeros", "border", "reflection"})))
    return failure();
  // Rank 4 in opset 16; GridSample 20, which the importer brings here, is N-D.
  if (auto r = rankOf(getX()); r && *r < 3)
    return emitOpError() << "input X must have rank >= 3 (N, C, spatial dims...), has rank "
                         << *r;
  return success();
}

LogicalResult ModOp::verify() {
  int64_t fmod = static_cast<int64_t>(getFmod());
  if (fmod != 0 && fmod != 1)
    return emitOpError() << "fmod must be 0 or 1, is " << fmod;
  return success();
}

LogicalResult BitShiftOp::verify() {
  return verifyOneOf(*this, "direction", getDirection(), {"LEFT", "RIGHT"});
}

LogicalResult ScatterElementsOp::verify() {
  if (failed(verifyOneOf(*this, "reduction", getReduction(), {"none", "add", "mul", "max", "min"})))
    return failure();
  auto d = rankOf(getData()), i = rankOf(getIndices()), u = rankOf(getUpdates());
  if ((d && i && *d != *i) || (i && u && *i != *u))
    return emitOpError("data, indices and updates must have the same rank");
  return verifyAxisOf(*this, getData(), static_cast<int64_t>(getAxis()));
}

LogicalResult ScatterNDOp::verify() {
  return verifyOneOf(*this, "reduction", getReduction(), {"none", "add", "mul", "max", "min"});
}

LogicalResult EyeLikeOp::verify() {
  if (auto r = rankOf(getInput()); r && *r != 2)
    return emitOpError() << "input must have rank 2, has rank " << *r;
  return success();
}

LogicalResult CompressOp::verify() {
  if (failed(verify1D(*this, getCondition(), "condition")))
    return failure();
  if (auto axis = getAxis())
    return verifyAxisOf(*this, getInput(), static_cast<int64_t>(*axis));
  return success();
}

LogicalResult SliceOp::verify() {
  // Named arrays: a braced list inside the range-for would die before the loop.
  Value inputs[] = {getStarts(), getEnds(), getAxes(), getSteps()};
  StringRef names[] = {"starts", "ends", "axes", "steps"};
  for (auto [v, name] : llvm::zip(inputs, names))
    if (!isa<NoneType>(v.getType()) && failed(verify1D(*this, v, name)))
      return failure();
  return success();
}

LogicalResult RangeOp::verify() {
  Value inputs[] = {getStart(), getLimit(), getDelta()};
  StringRef names[] = {"start", "limit", "delta"};
  // A one-element [1] is taken as the scalar it holds, as ONNX Runtime does
  // (the expanded AffineGrid tests of ONNX 1.23 pass one).
  for (auto [v, name] : llvm::zip(inputs, names))
    if (failed(verifyScalarLike(*this, v, name)))
      return failure();
  return success();
}

LogicalResult CumSumOp::verify() { return verifyScalarLike(*this, getAxis(), "axis"); }

LogicalResult LRNOp::verify() {
  if (static_cast<int64_t>(getSize()) < 1)
    return emitOpError() << "size must be positive, is " << static_cast<int64_t>(getSize());
  return verifyMinRank(*this, getX(), "X", 3);
}

LogicalResult DFTOp::verify() {
  if (failed(verifyMinRank(*this, getInput(), "input", 2)))
    return failure();
  if (auto r = rankOf(getInput())) {
    int64_t last = (*r == 0) ? 0 : cast<RankedTensorType>(getInput().getType()).getShape().back();
    if (!ShapedType::isDynamic(last) && last != 1 && last != 2)
      return emitOpError() << "the last dim of input must be 1 (real) or 2 (complex), is "
                           << last;
    // [-r, -2] or [0, r - 2]: the last dim holds the complex parts.
    int64_t axis = static_cast<int64_t>(getAxis());
    if (axis < -*r || axis > *r - 2 || axis == -1)
      return emitOpError() << "axis " << axis << " is out of range for input of rank " << *r;
  }
  return success();
}

LogicalResult TfIdfVectorizerOp::verify() {
  if (failed(verifyOneOf(*this, "mode", getMode(), {"TF", "IDF", "TFIDF"})))
    return failure();
  int64_t lo = static_cast<int64_t>(getMinGramLength());
  int64_t hi = static_cast<int64_t>(getMaxGramLength());
  if (lo < 1 || lo > hi)
    return emitOpError() << "min_gram_length " << lo << " and max_gram_length " << hi
                         << " must satisfy 1 <= min <= max";
  return success();
}

LogicalResult MaxUnpoolOp::verify() {
  return verifyWindowAttrs(*this, getX(), getKernelShape(), getStrides(), std::nullopt,
                           getPads(), "NOTSET");
}

