//===- MLShapes.cpp - Shape functions of the ai.onnx.ml ops ---------------===//
//
// The ops of dialects/onnx/OnnxMLOps.gen.td. The models and predictors take
// X as [N, C] (a 1-D X is one row, as ONNX Runtime reads it); their outputs
// are [N] labels and [N, classes or targets] scores. ZipMap's sequence of
// maps is held as its values, the shape of X (see MLZipMapOp below); the ops
// that take maps (CastMap, DictVectorizer) have no shape here.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"

using namespace mlir;

namespace onnxcc::onnx {
namespace {

std::string text(const Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? "," : "") + s[i].str();
  return r + "]";
}

/// The same shape as operand 0 for every result.
LogicalResult sameAsInput(ShapeContext &ctx, unsigned results = 1) {
  if (auto x = ctx.operandShape(0))
    for (unsigned i = 0; i < results; ++i)
      ctx.setShape(i, *x);
  return success();
}

/// N of a predictor's X ([N, C], or [C] for one row); failure for other ranks.
FailureOr<Dim> rows(ShapeContext &ctx, const Shape &x) {
  if (x.size() == 1)
    return Dim::known(1);
  if (x.size() == 2)
    return x[0];
  return ctx.fail("input X has shape " + text(x) + ", expected [N, C] or [C]");
}

/// Y [N] (when `labels`) and scores [N, width] of a predictor.
LogicalResult predictorShapes(ShapeContext &ctx, int64_t width, bool labels) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  auto n = rows(ctx, *x);
  if (failed(n))
    return failure();
  if (labels)
    ctx.setShape(0, Shape{*n});
  ctx.setShape(labels ? 1 : 0, Shape{*n, width > 0 ? Dim::known(width) : Dim::unknown()});
  return success();
}

/// The number of class labels of a classifier (classlabels_strings, or
/// classlabels_ints / classlabels_int64s as the op names them).
int64_t numLabels(Operation *op) {
  if (auto s = op->getAttrOfType<ArrayAttr>("classlabels_strings"))
    return s.size();
  for (StringRef name : {"classlabels_ints", "classlabels_int64s"})
    if (auto i = op->getAttrOfType<DenseI64ArrayAttr>(name))
      return i.size();
  return 0;
}

} // namespace

/// X [..., C] and indices Y give [..., |Y|]; a 1-D X gives [1, |Y|].
LogicalResult MLArrayFeatureExtractorOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0), y = ctx.operandShape(1);
  if (!x || !y)
    return success();
  if (x->empty())
    return ctx.fail("input X is a scalar; it needs at least one dim");
  Dim k = Dim::known(1);
  for (const Dim &d : *y)
    k = mulDims(k, d);
  Shape out = x->size() == 1 ? Shape{Dim::known(1)} : Shape(x->begin(), x->end() - 1);
  out.push_back(k);
  ctx.setShape(0, out);
  return success();
}

LogicalResult MLBinarizerOp::inferShapes(ShapeContext &ctx) { return sameAsInput(ctx); }
LogicalResult MLImputerOp::inferShapes(ShapeContext &ctx) { return sameAsInput(ctx); }
LogicalResult MLLabelEncoderOp::inferShapes(ShapeContext &ctx) { return sameAsInput(ctx); }
LogicalResult MLCategoryMapperOp::inferShapes(ShapeContext &ctx) { return sameAsInput(ctx); }
LogicalResult MLScalerOp::inferShapes(ShapeContext &ctx) { return sameAsInput(ctx); }

LogicalResult MLNormalizerOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (x && x->size() != 1 && x->size() != 2)
    return ctx.fail("input X has shape " + text(*x) + ", expected [N, C] or [C]");
  return sameAsInput(ctx);
}

/// X [...] gives [..., number of categories].
LogicalResult MLOneHotEncoderOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  int64_t cats = 0;
  if (auto s = getCatsStrings())
    cats = s->size();
  else if (auto i = getCatsInt64s())
    cats = i->size();
  Shape out = *x;
  out.push_back(Dim::known(cats));
  ctx.setShape(0, out);
  return success();
}

/// [N, sum of inputdimensions].
LogicalResult MLFeatureVectorizerOp::inferShapes(ShapeContext &ctx) {
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  auto n = rows(ctx, *x);
  if (failed(n))
    return failure();
  int64_t width = 0;
  if (auto dims = getInputdimensions())
    for (int64_t d : *dims)
      width += d;
  ctx.setShape(0, Shape{*n, Dim::known(width)});
  return success();
}

LogicalResult MLLinearRegressorOp::inferShapes(ShapeContext &ctx) {
  return predictorShapes(ctx, static_cast<int64_t>(getTargets()), /*labels=*/false);
}

/// Z has a column per intercept, two for one intercept and two labels.
LogicalResult MLLinearClassifierOp::inferShapes(ShapeContext &ctx) {
  int64_t classes = getIntercepts() ? getIntercepts()->size() : 0;
  if (classes == 1 && numLabels(getOperation()) == 2)
    classes = 2;
  return predictorShapes(ctx, classes, /*labels=*/true);
}

LogicalResult MLTreeEnsembleClassifierOp::inferShapes(ShapeContext &ctx) {
  return predictorShapes(ctx, numLabels(getOperation()), /*labels=*/true);
}

LogicalResult MLTreeEnsembleRegressorOp::inferShapes(ShapeContext &ctx) {
  return predictorShapes(ctx, getNTargets() ? static_cast<int64_t>(*getNTargets()) : 0,
                         /*labels=*/false);
}

LogicalResult MLTreeEnsembleOp::inferShapes(ShapeContext &ctx) {
  return predictorShapes(ctx, getNTargets() ? static_cast<int64_t>(*getNTargets()) : 0,
                         /*labels=*/false);
}

/// Z has a column per class, except for support vectors without
/// probabilities: a column per pair of classes (two for two classes).
LogicalResult MLSVMClassifierOp::inferShapes(ShapeContext &ctx) {
  int64_t classes = numLabels(getOperation());
  int64_t vectors = 0;
  if (auto perClass = getVectorsPerClass())
    for (int64_t v : *perClass)
      vectors += std::max<int64_t>(v, 0);
  bool probabilities = getProbA() && !getProbA()->empty();
  int64_t width = classes;
  if (vectors > 0 && !probabilities)
    width = classes > 2 ? classes * (classes - 1) / 2 : 2;
  return predictorShapes(ctx, width, /*labels=*/true);
}

// Not lowered yet (the lowering refuses them by name); maps have no shape.
LogicalResult MLSVMRegressorOp::inferShapes(ShapeContext &ctx) {
  return predictorShapes(ctx, 1, /*labels=*/false);
}
LogicalResult MLCastMapOp::inferShapes(ShapeContext &) { return success(); }
LogicalResult MLDictVectorizerOp::inferShapes(ShapeContext &) { return success(); }

/// onnxcc holds ZipMap's sequence of maps as the maps' values: Z is X, [N, C]
/// (or [C], one map), every row mapping the same C class labels; the labels
/// are the attribute. So Z has X's shape, and C must be the number of labels.
LogicalResult MLZipMapOp::inferShapes(ShapeContext &ctx) {
  int64_t labels = numLabels(getOperation());
  if (!getClasslabelsStrings() == !getClasslabelsInt64s())
    return ctx.fail("exactly one of classlabels_int64s and classlabels_strings must be given");
  auto x = ctx.operandShape(0);
  if (!x)
    return success();
  if (x->size() != 1 && x->size() != 2)
    return ctx.fail("input X has shape " + text(*x) + ", expected [N, C] or [C]");
  if (x->back().isStatic() && x->back().size != labels)
    return ctx.fail("input X has " + std::to_string(x->back().size) +
                    " columns but the node has " + std::to_string(labels) + " class labels");
  ctx.setShape(0, *x);
  return success();
}

/// Y [1, size of the vocabulary].
LogicalResult MapDictVectorizerOp::inferShapes(ShapeContext &ctx) {
  if (!getInt64Vocabulary() == !getStringVocabulary())
    return ctx.fail("exactly one of int64_vocabulary and string_vocabulary must be given");
  bool stringKeys = isa<StringType>(cast<TensorType>(getKeys().getType()).getElementType());
  if (stringKeys != static_cast<bool>(getStringVocabulary()))
    return ctx.fail(Twine("the map's keys are ") + (stringKeys ? "strings" : "int64") +
                    " but the vocabulary is not");
  int64_t size = getInt64Vocabulary() ? getInt64Vocabulary()->size() : getStringVocabulary()->size();
  ctx.setShape(0, Shape{Dim::known(1), Dim::known(size)});
  return success();
}

/// DENSE: Y [1, n], n the map's size; SPARSE: Y [1, max_map].
LogicalResult MapCastOp::inferShapes(ShapeContext &ctx) {
  if (getMapForm() == "SPARSE") {
    if (getMaxMap() <= 0)
      return ctx.fail("max_map must be positive for map_form SPARSE");
    ctx.setShape(0, Shape{Dim::known(1), Dim::known(getMaxMap())});
    return success();
  }
  if (getMapForm() != "DENSE")
    return ctx.fail("map_form '" + getMapForm() + "' is not DENSE or SPARSE");
  if (auto keys = ctx.operandShape(0); keys && keys->size() == 1)
    ctx.setShape(0, Shape{Dim::known(1), (*keys)[0]});
  return success();
}

} // namespace onnxcc::onnx
