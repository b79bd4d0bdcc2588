//===- ShapeFunctions.cpp - One shape function per onnx op ---------------===//
//
// Every op of the dialect implements ShapeInferenceOpInterface::inferShapes
// here. Shapes are symbolic: a dim is static, a named ONNX dim_param, or
// unknown. Ops are grouped by the rule their shape follows.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/ShapeContext.h"

using namespace mlir;
using namespace onnxcc::onnx;

namespace {

/// Result 0 has the shape of operand 0.
LogicalResult sameAsFirstOperand(ShapeContext &ctx) {
  if (auto s = ctx.operandShape(0))
    ctx.setShape(0, *s);
  return success();
}

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

} // namespace

namespace onnxcc::onnx {
/// Broadcasts the shapes of all present operands into result 0.
LogicalResult broadcastOperands(ShapeContext &ctx) {
  Operation *op = ctx.getOp();
  Shape out;
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
                        Twine((*s)[j].size) + " does not broadcast with size " +
                        Twine(out[offset + j].size));
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
UNARY(InstanceNormalization) UNARY(CumSum) UNARY(Trilu) UNARY(Bernoulli)
UNARY(RandomNormalLike) UNARY(RandomUniformLike)

// Multidirectional broadcasting.
#define BCAST(OP) SHAPE_FN(OP, broadcastOperands)
BCAST(Add) BCAST(Sub) BCAST(Mul) BCAST(Div) BCAST(Pow) BCAST(Mod) BCAST(And)
BCAST(Or) BCAST(Xor) BCAST(Equal) BCAST(Greater) BCAST(GreaterOrEqual)
BCAST(Less) BCAST(LessOrEqual) BCAST(PRelu) BCAST(Max) BCAST(Min) BCAST(Mean)
BCAST(Sum) BCAST(Where) BCAST(BitShift)

// Not yet given a shape function: results keep their declared types.
#define UNKNOWN(OP)                                                            \
  LogicalResult OP##Op::inferShapes(ShapeContext &) { return success(); }
UNKNOWN(ArgMax) UNKNOWN(ArgMin) UNKNOWN(AveragePool) UNKNOWN(BatchNormalization)
UNKNOWN(BlackmanWindow) UNKNOWN(Clip) UNKNOWN(Compress) UNKNOWN(Concat)
UNKNOWN(ConcatFromSequence) UNKNOWN(Constant) UNKNOWN(ConstantOfShape)
UNKNOWN(Conv) UNKNOWN(ConvInteger) UNKNOWN(ConvTranspose) UNKNOWN(DFT)
UNKNOWN(DepthToSpace) UNKNOWN(DequantizeLinear) UNKNOWN(Det) UNKNOWN(Dropout)
UNKNOWN(DynamicQuantizeLinear) UNKNOWN(Einsum) UNKNOWN(Expand) UNKNOWN(EyeLike)
UNKNOWN(Flatten) UNKNOWN(GRU) UNKNOWN(Gather) UNKNOWN(GatherElements)
UNKNOWN(GatherND) UNKNOWN(Gemm) UNKNOWN(GlobalAveragePool) UNKNOWN(GlobalLpPool)
UNKNOWN(GlobalMaxPool) UNKNOWN(GridSample) UNKNOWN(HammingWindow)
UNKNOWN(HannWindow) UNKNOWN(If) UNKNOWN(LSTM) UNKNOWN(LayerNormalization)
UNKNOWN(Loop) UNKNOWN(LpNormalization) UNKNOWN(LpPool) UNKNOWN(MatMul)
UNKNOWN(MatMulInteger) UNKNOWN(MaxPool) UNKNOWN(MaxRoiPool) UNKNOWN(MaxUnpool)
UNKNOWN(MelWeightMatrix) UNKNOWN(Multinomial) UNKNOWN(NegativeLogLikelihoodLoss)
UNKNOWN(NonMaxSuppression) UNKNOWN(NonZero) UNKNOWN(OneHot) UNKNOWN(Optional)
UNKNOWN(OptionalGetElement) UNKNOWN(OptionalHasElement) UNKNOWN(Pad)
UNKNOWN(QLinearConv) UNKNOWN(QLinearMatMul) UNKNOWN(QuantizeLinear) UNKNOWN(RNN)
UNKNOWN(RandomNormal) UNKNOWN(RandomUniform) UNKNOWN(Range) UNKNOWN(ReduceL1)
UNKNOWN(ReduceL2) UNKNOWN(ReduceLogSum) UNKNOWN(ReduceLogSumExp)
UNKNOWN(ReduceMax) UNKNOWN(ReduceMean) UNKNOWN(ReduceMin) UNKNOWN(ReduceProd)
UNKNOWN(ReduceSum) UNKNOWN(ReduceSumSquare) UNKNOWN(Reshape) UNKNOWN(Resize)
UNKNOWN(ReverseSequence) UNKNOWN(RoiAlign) UNKNOWN(STFT) UNKNOWN(Scan)
UNKNOWN(ScatterElements) UNKNOWN(ScatterND) UNKNOWN(SequenceAt)
UNKNOWN(SequenceConstruct) UNKNOWN(SequenceEmpty) UNKNOWN(SequenceErase)
UNKNOWN(SequenceInsert) UNKNOWN(SequenceLength) UNKNOWN(SequenceMap)
UNKNOWN(Shape) UNKNOWN(Size) UNKNOWN(Slice) UNKNOWN(SoftmaxCrossEntropyLoss)
UNKNOWN(SpaceToDepth) UNKNOWN(Split) UNKNOWN(SplitToSequence) UNKNOWN(Squeeze)
UNKNOWN(StringNormalizer) UNKNOWN(TfIdfVectorizer) UNKNOWN(Tile) UNKNOWN(TopK)
UNKNOWN(Transpose) UNKNOWN(Unique) UNKNOWN(Unsqueeze)
