//===- Strings.cpp - String ops to calls into runtime-support ------------===//
//
// A string tensor is lowered as a tensor of i64: each element is the
// `const char *` of a NUL-terminated string in the generated code.
//
// String ops become calls to runtime-support functions over buffers: the
// operands go through bufferization.to_buffer, the call writes the result
// buffer, and bufferization.to_tensor makes it a tensor again. The callee is
// a private declaration carrying
//   onnxcc.runtime = "<C++ function>"  what the emitter calls,
//   onnxcc.string_pool                  the function takes the model's string
//                                       pool as an extra last argument,
// and its i32 result is marked onnxcc.status: the generated run() returns
// it when it is not 0.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace onnxcc::lowering {

/// Declares (once per module) the runtime-support function `cName` as
/// `symbol` of type `type`; see Patterns.h.
func::FuncOp declareRuntimeFunction(OpBuilder &rewriter, Operation *at,
                                    StringRef symbol, StringRef cName, FunctionType type,
                                    bool usesStringPool) {
  auto module = at->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(symbol))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto func = func::FuncOp::create(rewriter, module.getLoc(), symbol, type);
  func.setPrivate();
  func->setAttr("onnxcc.runtime", rewriter.getStringAttr(cName));
  if (usesStringPool)
    func->setAttr("onnxcc.string_pool", rewriter.getUnitAttr());
  func.setResultAttr(0, "onnxcc.status", rewriter.getUnitAttr());
  return func;
}

/// `tensor` (a static tensor) as a 1-D buffer of dynamic size.
Value flatBuffer(OpBuilder &b, Location loc, Value tensor, bool readOnly) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getRank() == 0) {
    // A scalar has no dim to collapse into: expand it to one element.
    tensor = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, type.getElementType()), tensor,
        ArrayRef<ReassociationIndices>{});
  } else if (type.getRank() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    tensor = tensor::CollapseShapeOp::create(b, loc, tensor, all);
  }
  auto dynamic = RankedTensorType::get({ShapedType::kDynamic}, type.getElementType());
  tensor = tensor::CastOp::create(b, loc, dynamic, tensor);
  auto buffer = MemRefType::get({ShapedType::kDynamic}, type.getElementType());
  return bufferization::ToBufferOp::create(b, loc, buffer, tensor, readOnly);
}

/// The static tensor of `type` whose elements a call wrote into `buffer`
/// (from flatBuffer).
Value tensorFromFlatBuffer(OpBuilder &b, Location loc, Value buffer, RankedTensorType type) {
  auto flatType = RankedTensorType::get({ShapedType::kDynamic}, type.getElementType());
  Value result = bufferization::ToTensorOp::create(b, loc, flatType, buffer,
                                                   /*restrict=*/true, /*writable=*/true);
  int64_t n = type.getNumElements();
  result = tensor::CastOp::create(b, loc, RankedTensorType::get({n}, type.getElementType()),
                                  result);
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, result,
                                           ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 1)
    return result;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all[0].push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, type, result, all);
}

namespace {

/// Locales whose case mapping is the one runtime-support implements (the
/// Unicode simple mapping, as in en_US): none given, C/POSIX and English.
bool isSupportedLocale(StringRef locale) {
  StringRef language = locale.split('.').first;
  return language.empty() || language == "C" || language == "POSIX" || language == "en" ||
         language.starts_with("en_") || language.starts_with("en-");
}

/// StringNormalizer: onnxcc_rt::string_normalizer(in, n, out, capacity,
/// stopwords, stopword_bytes, case_action, case_sensitive[, pool]). The result
/// size is the declared (static) one; run() fails with a status when the
/// number of strings kept differs.
struct StringNormalizerLowering : OpConversionPattern<onnx::StringNormalizerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::StringNormalizerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto yType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!xType || !yType)
      return rewriter.notifyMatchFailure(op, "input or result is not a ranked tensor");
    if (!yType.hasStaticShape())
      return op.emitError("cannot lower 'onnx.StringNormalizer': the number of strings it "
                          "keeps depends on the data; declare the output's dims in the model");
    if (!ctx->getLoadedDialect<bufferization::BufferizationDialect>())
      return op.emitError("cannot lower 'onnx.StringNormalizer': the bufferization dialect is "
                          "not loaded");
    int64_t rank = xType.getRank();
    if ((rank != 1 && rank != 2) || yType.getRank() != rank ||
        (rank == 2 && (xType.getDimSize(0) != 1 || yType.getDimSize(0) != 1)))
      return op.emitError("cannot lower 'onnx.StringNormalizer': input ")
             << op.getX().getType() << " and output " << op.getType()
             << " are not [C] or [1, C]";
    if (!xType.hasStaticShape())
      return op.emitError("cannot lower 'onnx.StringNormalizer' with symbolic dims yet (pass "
                          "--shape to fix them)");

    int32_t action;
    StringRef caseAction = op.getCaseChangeAction();
    if (caseAction == "NONE")
      action = 0;
    else if (caseAction == "LOWER")
      action = 1;
    else if (caseAction == "UPPER")
      action = 2;
    else
      return op.emitError("cannot lower 'onnx.StringNormalizer': case_change_action '")
             << caseAction << "' is not NONE, LOWER or UPPER";
    if (auto locale = op.getLocale(); locale && !isSupportedLocale(*locale))
      return op.emitError("cannot lower 'onnx.StringNormalizer': locale '")
             << *locale << "' is not supported (only en_US-like case mapping)";

    // The stopwords, NUL-terminated one after the other (a weight).
    std::string words;
    if (auto stopwords = op.getStopwords())
      for (Attribute w : *stopwords) {
        StringRef word = cast<StringAttr>(w).getValue();
        if (word.contains('\0'))
          return op.emitError("cannot lower 'onnx.StringNormalizer': a stopword holds a NUL "
                              "character");
        words += word.str() + '\0';
      }
    int64_t wordBytes = words.size();
    if (words.empty())
      words.push_back('\0'); // A buffer of one byte, never read.
    Type i8 = IntegerType::get(ctx, 8);
    auto wordsType = RankedTensorType::get({static_cast<int64_t>(words.size())}, i8);
    SmallVector<int8_t> wordBytesData(words.begin(), words.end());
    Value wordsTensor = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(wordsType, ArrayRef<int8_t>(wordBytesData)));

    Value in = flatBuffer(rewriter, loc, adaptor.getX(), /*readOnly=*/true);
    Value out = flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, yType), /*readOnly=*/false);
    Value stopwords = flatBuffer(rewriter, loc, wordsTensor, /*readOnly=*/true);
    Value operands[] = {
        in,
        indexConst(rewriter, loc, xType.getNumElements()),
        out,
        indexConst(rewriter, loc, yType.getNumElements()),
        stopwords,
        indexConst(rewriter, loc, wordBytes),
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(action)),
        arith::ConstantOp::create(rewriter, loc,
                                  rewriter.getBoolAttr(op.getIsCaseSensitive() != 0)),
    };
    SmallVector<Type> types;
    for (Value v : operands)
      types.push_back(v.getType());
    auto type = FunctionType::get(ctx, types, {IntegerType::get(ctx, 32)});
    // Only a case change writes new strings.
    bool writes = action != 0;
    func::FuncOp callee = declareRuntimeFunction(
        rewriter, op, writes ? "onnxcc_rt_string_normalizer_pool" : "onnxcc_rt_string_normalizer",
        "onnxcc_rt::string_normalizer", type, /*usesStringPool=*/writes);
    func::CallOp::create(rewriter, loc, callee, operands);

    auto flatType = RankedTensorType::get({ShapedType::kDynamic}, yType.getElementType());
    Value result = bufferization::ToTensorOp::create(rewriter, loc, flatType, out,
                                                     /*restrict=*/true, /*writable=*/true);
    auto staticFlat = RankedTensorType::get({yType.getNumElements()}, yType.getElementType());
    result = tensor::CastOp::create(rewriter, loc, staticFlat, result);
    if (rank == 2)
      result = tensor::ExpandShapeOp::create(rewriter, loc, yType, result,
                                             SmallVector<ReassociationIndices>{{0, 1}});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// StringConcat: both operands broadcast to the result (copies of their
/// pointers), then one call concatenates each pair into the string pool.
struct StringConcatLowering : OpConversionPattern<onnx::StringConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::StringConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = adaptor.getX(), y = adaptor.getY();
    for (Value v : {x, y}) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || !t.hasStaticShape() || t.getRank() > type.getRank())
        return rewriter.notifyMatchFailure(op, "operands must be static and broadcast");
    }
    auto copy = [](OpBuilder &, Location, ValueRange args) { return args[0]; };
    Value a = buildBroadcastGeneric(rewriter, loc, type, x, copy);
    Value b = buildBroadcastGeneric(rewriter, loc, type, y, copy);
    Value out = flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, type), /*readOnly=*/false);
    Value operands[] = {flatBuffer(rewriter, loc, a, /*readOnly=*/true),
                        flatBuffer(rewriter, loc, b, /*readOnly=*/true),
                        indexConst(rewriter, loc, type.getNumElements()), out};
    SmallVector<Type> types;
    for (Value v : operands)
      types.push_back(v.getType());
    func::FuncOp callee = declareRuntimeFunction(
        rewriter, op, "onnxcc_rt_string_concat", "onnxcc_rt::string_concat",
        FunctionType::get(ctx, types, {IntegerType::get(ctx, 32)}), /*usesStringPool=*/true);
    func::CallOp::create(rewriter, loc, callee, operands);
    rewriter.replaceOp(op, tensorFromFlatBuffer(rewriter, loc, out, type));
    return success();
  }
};

} // namespace

void populateStringPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<StringNormalizerLowering, StringConcatLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
