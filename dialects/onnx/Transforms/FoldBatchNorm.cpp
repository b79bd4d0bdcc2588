//===- FoldBatchNorm.cpp - The onnx-fold-batchnorm pass ------------------===//
//
// An inference BatchNormalization computes, per channel c,
//
//   Y = (X - mean[c]) * s[c] + B[c],   s[c] = scale[c] / sqrt(var[c] + eps)
//
// When X is the only use of a Conv, ConvTranspose or Gemm whose weights and
// bias are constants, the affine map moves into that node: the weights of
// output channel c are multiplied by s[c] and the bias becomes
// (bias[c] - mean[c]) * s[c] + B[c]. The new constants are computed in double
// precision and rounded once to the element type (f16, bf16, f32, f64).
//
// Weight layouts (output channel c of the BatchNormalization):
//   Conv            W [C_out, C_in/group, k...]       c = dim 0
//   ConvTranspose   W [C_in, C_out/group, k...]       c = g * C_out/group + dim 1,
//                                                     g = dim 0 / (C_in/group)
//   Gemm            B [K, N] (transB = 0) or [N, K]   c = the N index; the
//                   BatchNormalization must normalize dim 1 of the [M, N] result
//
// The folded node keeps its own location; weights that came as resource
// blobs give resource blobs again, small ones stay inline.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Constants.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXFOLDBATCHNORMPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {

/// Constants at least this large are written back as resource blobs (as the
/// importer does), unless the original was inline.
constexpr size_t kBlobThresholdBytes = 1024;

/// Element types the pass computes with.
bool isFoldableFloat(Type t) { return t.isF16() || t.isBF16() || t.isF32() || t.isF64(); }

/// The `value` of the onnx.Constant that defines `v`, or null.
ElementsAttr constantValue(Value v) {
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst)
    return {};
  return cst.getValueAttr();
}

/// The elements of a floating-point constant as doubles, in row-major order.
std::optional<SmallVector<double>> readDoubles(ElementsAttr attr) {
  if (!isFoldableFloat(attr.getElementType()))
    return std::nullopt;
  return readFloatElements(attr);
}

/// The doubles of the constant that defines `v`, when it has `expected`
/// elements and element type `elemType`.
std::optional<SmallVector<double>> constDoubles(Value v, Type elemType, int64_t expected) {
  ElementsAttr attr = constantValue(v);
  if (!attr || attr.getElementType() != elemType)
    return std::nullopt;
  auto values = readDoubles(attr);
  if (!values || static_cast<int64_t>(values->size()) != expected)
    return std::nullopt;
  return values;
}

/// A constant of `type` holding `values` rounded to its element type; a
/// resource blob named after `blobHint` when `asBlob` and it is large.
ElementsAttr makeConstant(RankedTensorType type, ArrayRef<double> values, bool asBlob,
                          StringRef blobHint) {
  auto floatType = cast<FloatType>(type.getElementType());
  const llvm::fltSemantics &sem = floatType.getFloatSemantics();
  unsigned width = floatType.getWidth();
  size_t bytes = width / 8;
  std::vector<char> raw(values.size() * bytes);
  for (size_t i = 0; i < values.size(); ++i) {
    APFloat v(values[i]);
    bool lossy = false;
    v.convert(sem, APFloat::rmNearestTiesToEven, &lossy);
    uint64_t bits = v.bitcastToAPInt().getZExtValue();
    std::memcpy(raw.data() + i * bytes, &bits, bytes);
  }
  if (asBlob && raw.size() >= kBlobThresholdBytes) {
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(raw), bytes);
    return DenseResourceElementsAttr::get(type, blobHint, std::move(blob));
  }
  return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw));
}

/// The statistics of one BatchNormalization as a per-channel affine map.
struct Affine {
  SmallVector<double> mul; // s[c]
  SmallVector<double> add; // B[c] - mean[c] * s[c]
};

class BatchNormFolder {
public:
  BatchNormFolder(BatchNormalizationOp bn) : bn(bn), b(bn) {}

  /// Folds `bn` into its producer; false (and nothing changed) when the
  /// pattern does not apply.
  bool run() {
    if (bn.getTrainingMode() != 0)
      return false;
    if (!bn.getRunningMean().use_empty() || !bn.getRunningVar().use_empty())
      return false;
    auto yType = dyn_cast<RankedTensorType>(bn.getY().getType());
    Value x = bn.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!yType || !xType || xType.getRank() < 2 || !x.hasOneUse())
      return false;
    elemType = xType.getElementType();
    if (!isFoldableFloat(elemType) || yType.getElementType() != elemType)
      return false;
    Operation *producer = x.getDefiningOp();
    if (!producer)
      return false;
    if (auto conv = dyn_cast<ConvOp>(producer))
      return foldConv(conv, /*transposed=*/false, conv.getGroup());
    if (auto convT = dyn_cast<ConvTransposeOp>(producer))
      return foldConv(convT, /*transposed=*/true, convT.getGroup());
    if (auto gemm = dyn_cast<GemmOp>(producer))
      return foldGemm(gemm);
    return false;
  }

private:
  /// Reads the statistics for `channels` channels.
  bool readAffine(int64_t channels) {
    auto scale = constDoubles(bn.getScale(), elemType, channels);
    auto bias = constDoubles(bn.getB(), elemType, channels);
    auto mean = constDoubles(bn.getInputMean(), elemType, channels);
    auto var = constDoubles(bn.getInputVar(), elemType, channels);
    if (!scale || !bias || !mean || !var)
      return false;
    double eps = bn.getEpsilon().convertToDouble();
    affine.mul.resize(channels);
    affine.add.resize(channels);
    for (int64_t c = 0; c < channels; ++c) {
      double s = (*scale)[c] / std::sqrt((*var)[c] + eps);
      affine.mul[c] = s;
      affine.add[c] = (*bias)[c] - (*mean)[c] * s;
    }
    return true;
  }

  /// A new onnx.Constant before `producer`, at the location of `like` when
  /// that is a constant (the weight it replaces), else of the producer.
  Value newConstant(Operation *producer, Value like, RankedTensorType type,
                    ArrayRef<double> values, StringRef suffix) {
    ElementsAttr old = like ? constantValue(like) : ElementsAttr();
    bool asBlob = !old || isa<DenseResourceElementsAttr>(old);
    std::string hint = "bnfold";
    if (auto res = dyn_cast_or_null<DenseResourceElementsAttr>(old))
      hint = (res.getRawHandle().getKey() + suffix).str();
    Location loc = like && like.getDefiningOp() ? like.getDefiningOp()->getLoc() : producer->getLoc();
    b.setInsertionPoint(producer);
    ElementsAttr attr = makeConstant(type, values, asBlob, hint);
    auto cst = ConstantOp::create(b, loc, TypeRange{type}, ValueRange{},
                                  {b.getNamedAttr("value", attr)});
    return cst.getResult();
  }

  /// The producer computes the BatchNormalization's result from here on, and
  /// the constants nothing reads any more go. Exporters share equal
  /// initializers, so one constant can be several of these values (scale and
  /// var all ones, B and mean all zeros, mean and the old bias): each is
  /// erased once, and all are found before any is, since a Value lives in
  /// the op that defines it.
  void finish(Operation *producer, ArrayRef<Value> replacedWeights) {
    SmallVector<Value> replaced(replacedWeights);
    replaced.append({bn.getScale(), bn.getB(), bn.getInputMean(), bn.getInputVar()});
    llvm::SetVector<Operation *> defs;
    for (Value v : replaced)
      if (auto cst = v.getDefiningOp<ConstantOp>())
        defs.insert(cst);
    producer->getResult(0).setType(bn.getY().getType());
    bn.getY().replaceAllUsesWith(producer->getResult(0));
    bn.erase();
    for (Operation *def : defs)
      if (def->use_empty())
        def->erase();
  }

  bool foldConv(Operation *conv, bool transposed, int64_t group) {
    // The BatchNormalization normalizes dim 1 of the NC... result.
    Value w = conv->getOperand(1), bias = conv->getOperand(2);
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    if (!wType || !wType.hasStaticShape() || wType.getRank() < 3 ||
        wType.getElementType() != elemType || group < 1)
      return false;
    ArrayRef<int64_t> wShape = wType.getShape();
    int64_t channels = transposed ? wShape[1] * group : wShape[0];
    if (transposed && wShape[0] % group != 0)
      return false;
    auto yType = cast<RankedTensorType>(bn.getX().getType());
    if (!yType.isDynamicDim(1) && yType.getDimSize(1) != channels)
      return false;
    auto weights = constDoubles(w, elemType, wType.getNumElements());
    if (!weights)
      return false;
    SmallVector<double> oldBias(channels, 0.0);
    bool hasBias = !isa<NoneType>(bias.getType());
    if (hasBias) {
      auto values = constDoubles(bias, elemType, channels);
      if (!values)
        return false;
      oldBias = std::move(*values);
    }
    if (!readAffine(channels))
      return false;

    // Per output channel c: W *= s[c]; bias = bias * s[c] + (B - mean * s).
    int64_t inner = 1;
    for (int64_t d : wShape.drop_front(2))
      inner *= d;
    int64_t inPerGroup = transposed ? wShape[0] / group : 0;
    SmallVector<double> &wv = *weights;
    for (int64_t i = 0; i < wShape[0]; ++i)
      for (int64_t j = 0; j < wShape[1]; ++j) {
        int64_t c = transposed ? (i / inPerGroup) * wShape[1] + j : i;
        double s = affine.mul[c];
        for (int64_t k = 0, base = (i * wShape[1] + j) * inner; k < inner; ++k)
          wv[base + k] *= s;
      }
    SmallVector<double> newBias(channels);
    for (int64_t c = 0; c < channels; ++c)
      newBias[c] = oldBias[c] * affine.mul[c] + affine.add[c];

    auto biasType = RankedTensorType::get({channels}, elemType);
    Value newW = newConstant(conv, w, wType, wv, "_bnfold");
    Value newB = newConstant(conv, hasBias ? bias : w, biasType, newBias, "_bnfold_bias");
    conv->setOperand(1, newW);
    conv->setOperand(2, newB);
    finish(conv, {w, bias});
    return true;
  }

  bool foldGemm(GemmOp gemm) {
    // Y [M, N]: the BatchNormalization's channel dim 1 is the column.
    auto yType = cast<RankedTensorType>(bn.getX().getType());
    if (yType.getRank() != 2)
      return false;
    Value w = gemm.getB(), c = gemm.getC();
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    if (!wType || !wType.hasStaticShape() || wType.getRank() != 2 ||
        wType.getElementType() != elemType)
      return false;
    bool transB = gemm.getTransB() != 0;
    int64_t n = transB ? wType.getDimSize(0) : wType.getDimSize(1);
    int64_t k = transB ? wType.getDimSize(1) : wType.getDimSize(0);
    if (!yType.isDynamicDim(1) && yType.getDimSize(1) != n)
      return false;
    auto weights = constDoubles(w, elemType, n * k);
    if (!weights)
      return false;

    // C broadcasts to [M, N]: it stays per column ([N]) unless it has rows.
    int64_t rows = 1;
    SmallVector<double> oldC(n, 0.0);
    bool hasC = !isa<NoneType>(c.getType());
    if (hasC) {
      auto cType = dyn_cast<RankedTensorType>(c.getType());
      if (!cType || !cType.hasStaticShape() || cType.getRank() > 2)
        return false;
      ArrayRef<int64_t> cShape = cType.getShape();
      int64_t cRows = cShape.size() == 2 ? cShape[0] : 1;
      int64_t cCols = cShape.empty() ? 1 : cShape.back();
      if ((cCols != 1 && cCols != n) || (cRows != 1 && yType.isDynamicDim(0)) ||
          (cRows != 1 && cRows != yType.getDimSize(0)))
        return false;
      auto values = constDoubles(c, elemType, cRows * cCols);
      if (!values)
        return false;
      rows = cRows;
      double beta = gemm.getBeta().convertToDouble();
      oldC.assign(rows * n, 0.0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j)
          oldC[r * n + j] = beta * (*values)[r * cCols + (cCols == 1 ? 0 : j)];
    }
    if (!readAffine(n))
      return false;

    SmallVector<double> &wv = *weights;
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        wv[transB ? j * k + i : i * n + j] *= affine.mul[j];
    SmallVector<double> newC(rows * n);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j)
        newC[r * n + j] = oldC[r * n + j] * affine.mul[j] + affine.add[j];

    auto cType = rows == 1 ? RankedTensorType::get({n}, elemType)
                           : RankedTensorType::get({rows, n}, elemType);
    Value newW = newConstant(gemm, w, wType, wv, "_bnfold");
    Value newC2 = newConstant(gemm, hasC ? c : w, cType, newC, "_bnfold_bias");
    gemm.getBMutable().assign(newW);
    gemm.getCMutable().assign(newC2);
    gemm.setBetaAttr(b.getF32FloatAttr(1.0f));
    finish(gemm, {w, c});
    return true;
  }

  BatchNormalizationOp bn;
  OpBuilder b;
  Type elemType;
  Affine affine;
};

struct OnnxFoldBatchNormPass : public impl::OnnxFoldBatchNormPassBase<OnnxFoldBatchNormPass> {
  void runOnOperation() override {
    SmallVector<BatchNormalizationOp> bns;
    getOperation().walk([&](BatchNormalizationOp bn) { bns.push_back(bn); });
    for (BatchNormalizationOp bn : bns)
      BatchNormFolder(bn).run();
  }
};
} // namespace

} // namespace onnxcc::onnx
