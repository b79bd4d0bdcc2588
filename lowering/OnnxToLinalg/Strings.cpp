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

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <variant>
#include <vector>

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

/// Calls runtime-support function `cName` (declared once as `symbol`) on
/// `operands`; its i32 status is run()'s when not 0.
static void emitRuntimeCall(OpBuilder &b, Location loc, Operation *at, StringRef symbol,
                            StringRef cName, ValueRange operands, bool usesStringPool) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> types;
  for (Value v : operands)
    types.push_back(v.getType());
  func::FuncOp callee = declareRuntimeFunction(
      b, at, symbol, cName, FunctionType::get(ctx, types, {IntegerType::get(ctx, 32)}),
      usesStringPool);
  func::CallOp::create(b, loc, callee, operands);
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

/// A pairwise string op: both operands broadcast to `type`'s shape (copies
/// of their string pointers), then one runtime-support call `name` over the
/// pairs writes the flat result. Match failure unless the operands are
/// static and broadcast to the result.
LogicalResult lowerStringPairs(ConversionPatternRewriter &rewriter, Operation *op,
                               RankedTensorType type, Value x, Value y, StringRef symbol,
                               StringRef name, bool usesStringPool) {
  Location loc = op->getLoc();
  for (Value v : {x, y}) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || t.getRank() > type.getRank())
      return rewriter.notifyMatchFailure(op, "operands must be static and broadcast");
  }
  auto pointers = RankedTensorType::get(type.getShape(), rewriter.getI64Type());
  auto copy = [](OpBuilder &, Location, ValueRange args) { return args[0]; };
  Value a = buildBroadcastGeneric(rewriter, loc, pointers, x, copy);
  Value b = buildBroadcastGeneric(rewriter, loc, pointers, y, copy);
  Value out = flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, type), /*readOnly=*/false);
  Value operands[] = {flatBuffer(rewriter, loc, a, /*readOnly=*/true),
                      flatBuffer(rewriter, loc, b, /*readOnly=*/true),
                      indexConst(rewriter, loc, type.getNumElements()), out};
  emitRuntimeCall(rewriter, loc, op, symbol, name, operands, usesStringPool);
  rewriter.replaceOp(op, tensorFromFlatBuffer(rewriter, loc, out, type));
  return success();
}

/// StringConcat: one call concatenates each pair into the string pool.
struct StringConcatLowering : OpConversionPattern<onnx::StringConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::StringConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    return lowerStringPairs(rewriter, op, type, adaptor.getX(), adaptor.getY(),
                            "onnxcc_rt_string_concat", "onnxcc_rt::string_concat",
                            /*usesStringPool=*/true);
  }
};

/// Equal on strings: onnxcc_rt::string_equal compares each pair.
struct StringEqualLowering : OpConversionPattern<onnx::EqualOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::EqualOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<onnx::StringType>(onnxElementType(op.getA())))
      return rewriter.notifyMatchFailure(op, "not strings");
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    return lowerStringPairs(rewriter, op, type, adaptor.getA(), adaptor.getB(),
                            "onnxcc_rt_string_equal", "onnxcc_rt::string_equal",
                            /*usesStringPool=*/false);
  }
};

/// A NUL-terminated byte string as a constant i8 tensor.
Value cString(OpBuilder &b, Location loc, StringRef text) {
  SmallVector<int8_t> bytes(text.begin(), text.end());
  bytes.push_back(0);
  auto type = RankedTensorType::get({static_cast<int64_t>(bytes.size())}, b.getI8Type());
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, ArrayRef<int8_t>(bytes)));
}

/// StringSplit: onnxcc_rt::string_split_count finds the largest number of
/// pieces, the data-dependent last dim of Y (at most maxsplit + 1, else the
/// user's --bound); onnxcc_rt::string_split then writes the pieces (copied
/// into the string pool, rows padded with empty strings) and Z.
struct StringSplitLowering : OpConversionPattern<onnx::StringSplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::StringSplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto yType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    auto zType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getZ().getType()));
    if (!xType || !yType || !zType)
      return rewriter.notifyMatchFailure(op, "operands and results must be ranked");
    if (!xType.hasStaticShape())
      return op.emitError("cannot lower 'onnx.StringSplit' with symbolic dims yet (pass "
                          "--shape to fix them)");
    StringRef delimiter = op.getDelimiter().value_or("");
    if (delimiter.contains('\0'))
      return op.emitError("cannot lower 'onnx.StringSplit': the delimiter holds a NUL "
                          "character");
    int64_t maxsplit = op.getMaxsplit().value_or(-1);
    if (maxsplit < 0)
      maxsplit = -1;
    Type i64 = rewriter.getI64Type();
    int64_t n = xType.getNumElements();
    Value in = flatBuffer(rewriter, loc, x, /*readOnly=*/true);
    Value delim = flatBuffer(rewriter, loc, cString(rewriter, loc, delimiter), /*readOnly=*/true);
    Value maxValue = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(maxsplit));

    if (n == 0) {
      // No strings: no pieces, and results of no elements.
      Value width = onnxConverter(getTypeConverter())
                        .defineDataDim(rewriter, loc, op, 0, indexConst(rewriter, loc, 0));
      if (!width)
        return op.emitError("cannot lower 'onnx.StringSplit': the number of pieces has no "
                            "bound");
      SmallVector<int64_t> dims(xType.getShape());
      dims.push_back(ShapedType::kDynamic);
      Value y = emptyTensor(rewriter, loc, RankedTensorType::get(dims, i64), ValueRange{width});
      if (y.getType() != yType)
        y = tensor::CastOp::create(rewriter, loc, yType, y);
      rewriter.replaceOp(op, ValueRange{y, emptyTensor(rewriter, loc, zType)});
      return success();
    }
    auto oneType = RankedTensorType::get({1}, i64);
    Value countBuffer =
        flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, oneType), /*readOnly=*/false);
    Value countOperands[] = {in, indexConst(rewriter, loc, n), delim, maxValue, countBuffer};
    SmallVector<Type> types;
    for (Value v : countOperands)
      types.push_back(v.getType());
    func::FuncOp counter = declareRuntimeFunction(
        rewriter, op, "onnxcc_rt_string_split_count", "onnxcc_rt::string_split_count",
        FunctionType::get(ctx, types, {IntegerType::get(ctx, 32)}), /*usesStringPool=*/false);
    func::CallOp::create(rewriter, loc, counter, countOperands);
    Value counted = tensorFromFlatBuffer(rewriter, loc, countBuffer, oneType);
    Value pieces = tensor::ExtractOp::create(rewriter, loc, counted,
                                             ValueRange{indexConst(rewriter, loc, 0)});
    pieces = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), pieces);
    Value width = onnxConverter(getTypeConverter()).defineDataDim(rewriter, loc, op, 0, pieces);
    if (!width)
      return op.emitError("cannot lower 'onnx.StringSplit': the number of pieces is not known "
                          "at compile time (it depends on the data: give it a bound with "
                          "--bound NODE=N, or set maxsplit)");

    // Y as one flat buffer of n * width pointers.
    Value total = arith::MulIOp::create(rewriter, loc, indexConst(rewriter, loc, n), width);
    auto flatType = RankedTensorType::get({ShapedType::kDynamic}, i64);
    Value yFlat = emptyTensor(rewriter, loc, flatType, ValueRange{total});
    Value yBuffer = bufferization::ToBufferOp::create(
        rewriter, loc, MemRefType::get({ShapedType::kDynamic}, i64), yFlat, /*readOnly=*/false);
    Value zBuffer =
        flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, zType), /*readOnly=*/false);
    Value operands[] = {in,
                        indexConst(rewriter, loc, n),
                        delim,
                        maxValue,
                        arith::IndexCastOp::create(rewriter, loc, i64, width),
                        yBuffer,
                        zBuffer};
    types.clear();
    for (Value v : operands)
      types.push_back(v.getType());
    func::FuncOp splitter = declareRuntimeFunction(
        rewriter, op, "onnxcc_rt_string_split", "onnxcc_rt::string_split",
        FunctionType::get(ctx, types, {IntegerType::get(ctx, 32)}), /*usesStringPool=*/true);
    func::CallOp::create(rewriter, loc, splitter, operands);

    Value y = bufferization::ToTensorOp::create(rewriter, loc, flatType, yBuffer,
                                                /*restrict=*/true, /*writable=*/true);
    if (yType.getRank() > 1) {
      SmallVector<OpFoldResult> outShape;
      for (int64_t d : xType.getShape())
        outShape.push_back(rewriter.getIndexAttr(d));
      outShape.push_back(width);
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < yType.getRank(); ++d)
        all[0].push_back(d);
      auto expandedType = RankedTensorType::get(
          SmallVector<int64_t>(xType.getShape().begin(), xType.getShape().end()), i64);
      SmallVector<int64_t> dims(xType.getShape());
      dims.push_back(ShapedType::kDynamic);
      expandedType = RankedTensorType::get(dims, i64);
      y = tensor::ExpandShapeOp::create(rewriter, loc, expandedType, y, all, outShape);
    }
    if (y.getType() != yType)
      y = tensor::CastOp::create(rewriter, loc, yType, y);
    Value z = tensorFromFlatBuffer(rewriter, loc, zBuffer, zType);
    rewriter.replaceOp(op, ValueRange{y, z});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RegexFullMatch: a compiler of RE2 syntax into the program that
// onnxcc_rt::regex::full_match runs (a Pike VM over code points: time linear
// in the string, no recursion, no allocation). std::regex is not used: its
// ECMAScript grammar differs from RE2 (\s, $ before a final newline, locale
// classes) and its backtracking can overflow the stack on long strings.
// Supported: literals and UTF-8, `.`, classes ([a-z], [^...], \d \w \s and
// their negations, [:alpha:]-style ASCII classes), groups ((...), (?:...),
// (?P<name>...)), `|`, * + ? {n} {n,} {n,m} (lazy or not: the same for a
// full match), ^ $ \A \z \b \B. Refused with an error: flags ((?i) ...),
// Unicode classes (\p), \C, \Q...\E, backreferences.
//===----------------------------------------------------------------------===//

namespace regex {

enum Op : int32_t { Char, Any, Class, Split, Jmp, Assert, Match };

/// The largest code point the matcher sees: invalid UTF-8 bytes are
/// 0x110000 + byte.
constexpr int64_t kMaxCodePoint = 0x1100ff;
constexpr int64_t kMaxRepeat = 1000;
constexpr size_t kMaxInstructions = 100000;

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

struct Node {
  enum Kind { Empty, Literal, AnyChar, Set, Concat, Alternate, Repeat, Anchor } kind = Empty;
  int64_t value = 0; // Literal: the code point; Anchor: the assertion
  Ranges ranges;     // Set
  bool negated = false;
  int64_t min = 0, max = 0; // Repeat; max -1: no limit
  std::vector<std::unique_ptr<Node>> kids;
};

Ranges normalized(Ranges r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (auto [lo, hi] : r) {
    if (!out.empty() && lo <= out.back().second + 1)
      out.back().second = std::max(out.back().second, hi);
    else
      out.push_back({lo, hi});
  }
  return out;
}

Ranges complement(const Ranges &r) {
  Ranges out;
  int64_t next = 0;
  for (auto [lo, hi] : normalized(r)) {
    if (lo > next)
      out.push_back({next, lo - 1});
    next = hi + 1;
  }
  if (next <= kMaxCodePoint)
    out.push_back({next, kMaxCodePoint});
  return out;
}

class Parser {
public:
  explicit Parser(StringRef pattern) : text(pattern) {}
  std::string error;

  std::unique_ptr<Node> parse() {
    auto node = alternation();
    if (error.empty() && pos < text.size())
      fail("unmatched ')'");
    return error.empty() ? std::move(node) : nullptr;
  }

private:
  StringRef text;
  size_t pos = 0;
  int depth = 0;

  void fail(const Twine &message) {
    if (error.empty())
      error = (message + " at offset " + Twine(pos)).str();
  }
  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return text[pos]; }

  /// The UTF-8 code point at pos (invalid bytes as 0x110000 + byte).
  int64_t codePoint() {
    unsigned char b = text[pos];
    auto cont = [&](size_t k) {
      return pos + k < text.size() && (static_cast<unsigned char>(text[pos + k]) & 0xc0) == 0x80;
    };
    auto at = [&](size_t k) { return static_cast<unsigned char>(text[pos + k]) & 0x3f; };
    int64_t v = -1;
    int n = 1;
    if (b < 0x80) {
      v = b;
    } else if (b >= 0xc2 && b < 0xe0 && cont(1)) {
      v = (int64_t(b & 0x1f) << 6) | at(1), n = 2;
    } else if (b >= 0xe0 && b < 0xf0 && cont(1) && cont(2)) {
      v = (int64_t(b & 0x0f) << 12) | (int64_t(at(1)) << 6) | at(2), n = 3;
      if (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))
        v = -1, n = 1;
    } else if (b >= 0xf0 && b < 0xf5 && cont(1) && cont(2) && cont(3)) {
      v = (int64_t(b & 0x07) << 18) | (int64_t(at(1)) << 12) | (int64_t(at(2)) << 6) | at(3);
      n = 4;
      if (v < 0x10000 || v > 0x10ffff)
        v = -1, n = 1;
    }
    if (v < 0)
      v = 0x110000 + b;
    pos += n;
    return v;
  }

  std::unique_ptr<Node> make(Node::Kind kind) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    return n;
  }

  std::unique_ptr<Node> alternation() {
    auto first = concatenation();
    if (atEnd() || peek() != '|')
      return first;
    auto alt = make(Node::Alternate);
    alt->kids.push_back(std::move(first));
    while (error.empty() && !atEnd() && peek() == '|') {
      ++pos;
      alt->kids.push_back(concatenation());
    }
    return alt;
  }

  std::unique_ptr<Node> concatenation() {
    auto cat = make(Node::Concat);
    while (error.empty() && !atEnd() && peek() != '|' && peek() != ')') {
      auto atom = this->atom();
      if (!atom)
        return cat;
      atom = repetitions(std::move(atom));
      cat->kids.push_back(std::move(atom));
    }
    return cat;
  }

  /// {n}, {n,} or {n,m} at pos; false (pos unchanged) when it is not one.
  bool counted(int64_t &min, int64_t &max) {
    size_t start = pos;
    auto number = [&](int64_t &v) {
      size_t begin = pos;
      v = 0;
      while (!atEnd() && peek() >= '0' && peek() <= '9') {
        v = std::min<int64_t>(v * 10 + (peek() - '0'), kMaxRepeat + 1);
        ++pos;
      }
      return pos > begin;
    };
    ++pos; // {
    if (!number(min)) {
      pos = start;
      return false;
    }
    max = min;
    if (!atEnd() && peek() == ',') {
      ++pos;
      if (!number(max))
        max = -1;
    }
    if (atEnd() || peek() != '}') {
      pos = start;
      return false;
    }
    ++pos;
    return true;
  }

  std::unique_ptr<Node> repetitions(std::unique_ptr<Node> atom) {
    bool repeated = false;
    while (error.empty() && !atEnd()) {
      char c = peek();
      int64_t min, max;
      if (c == '*' || c == '+' || c == '?') {
        ++pos;
        min = c == '+' ? 1 : 0;
        max = c == '?' ? 1 : -1;
      } else if (c == '{' && counted(min, max)) {
        if (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && max < min)) {
          fail("bad repetition count {" + Twine(min) + "," + Twine(max) + "}");
          return atom;
        }
      } else {
        break;
      }
      if (repeated) {
        fail("bad repetition operator");
        return atom;
      }
      if (atom->kind == Node::Anchor || atom->kind == Node::Empty) {
        fail("missing argument to repetition operator");
        return atom;
      }
      repeated = true;
      if (!atEnd() && peek() == '?')
        ++pos; // Lazy: the same set of full matches.
      auto rep = make(Node::Repeat);
      rep->min = min;
      rep->max = max;
      rep->kids.push_back(std::move(atom));
      atom = std::move(rep);
    }
    return atom;
  }

  std::unique_ptr<Node> set(Ranges r, bool negated) {
    auto n = make(Node::Set);
    n->ranges = normalized(std::move(r));
    n->negated = negated;
    return n;
  }

  static Ranges digits() { return {{'0', '9'}}; }
  static Ranges words() { return {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}}; }
  static Ranges spaces() { return {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}}; }

  /// After a backslash: a class escape (\d \w \s and negations) into
  /// `ranges` (true), or a character into `c`.
  bool escape(int64_t &c, Ranges &ranges, bool inClass) {
    if (atEnd()) {
      fail("trailing \\");
      return false;
    }
    char e = peek();
    ++pos;
    switch (e) {
    case 'd': ranges = digits(); return true;
    case 'D': ranges = complement(digits()); return true;
    case 'w': ranges = words(); return true;
    case 'W': ranges = complement(words()); return true;
    case 's': ranges = spaces(); return true;
    case 'S': ranges = complement(spaces()); return true;
    case 'n': c = '\n'; return false;
    case 't': c = '\t'; return false;
    case 'r': c = '\r'; return false;
    case 'f': c = '\f'; return false;
    case 'v': c = '\v'; return false;
    case 'a': c = '\a'; return false;
    case '0': {
      c = 0;
      for (int k = 0; k < 2 && !atEnd() && peek() >= '0' && peek() <= '7'; ++k)
        c = c * 8 + (text[pos++] - '0');
      return false;
    }
    case 'x': {
      auto hex = [](char h) -> int {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      c = 0;
      if (!atEnd() && peek() == '{') {
        ++pos;
        int n = 0;
        while (!atEnd() && hex(peek()) >= 0 && n < 7)
          c = c * 16 + hex(text[pos++]), ++n;
        if (n == 0 || atEnd() || peek() != '}' || c > 0x10ffff) {
          fail("bad \\x{...} escape");
          return false;
        }
        ++pos;
        return false;
      }
      for (int k = 0; k < 2; ++k) {
        if (atEnd() || hex(peek()) < 0) {
          fail("bad \\x escape");
          return false;
        }
        c = c * 16 + hex(text[pos++]);
      }
      return false;
    }
    default:
      break;
    }
    if (!inClass && (e == 'b' || e == 'B' || e == 'A' || e == 'z')) {
      fail("internal: anchor escape");
      return false;
    }
    unsigned char u = e;
    if (u < 0x80 && !std::isalnum(u)) {
      c = u; // An escaped punctuation character is itself.
      return false;
    }
    --pos;
    if (e == 'p' || e == 'P')
      fail("Unicode classes (\\p, \\P) are not supported");
    else if (e >= '1' && e <= '9')
      fail("backreferences are not supported (RE2 has none)");
    else if (e == 'Q' || e == 'E')
      fail("\\Q...\\E quoting is not supported");
    else if (e == 'C')
      fail("\\C (any byte) is not supported");
    else
      fail(Twine("unknown escape \\") + Twine(std::string(1, e)));
    return false;
  }

  std::unique_ptr<Node> bracket() {
    ++pos; // [
    bool negated = false;
    if (!atEnd() && peek() == '^') {
      negated = true;
      ++pos;
    }
    Ranges ranges;
    bool first = true;
    while (error.empty()) {
      if (atEnd()) {
        fail("missing ]");
        return nullptr;
      }
      if (peek() == ']' && !first)
        break;
      first = false;
      if (text.substr(pos).starts_with("[:")) {
        size_t close = text.find(":]", pos + 2);
        if (close == StringRef::npos) {
          fail("missing :]");
          return nullptr;
        }
        StringRef name = text.slice(pos + 2, close);
        bool neg = name.consume_front("^");
        Ranges r;
        if (name == "alpha") r = {{'A', 'Z'}, {'a', 'z'}};
        else if (name == "digit") r = digits();
        else if (name == "alnum") r = {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}};
        else if (name == "upper") r = {{'A', 'Z'}};
        else if (name == "lower") r = {{'a', 'z'}};
        else if (name == "space") r = {{'\t', '\r'}, {' ', ' '}};
        else if (name == "xdigit") r = {{'0', '9'}, {'A', 'F'}, {'a', 'f'}};
        else if (name == "word") r = words();
        else if (name == "punct") r = {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}};
        else if (name == "blank") r = {{'\t', '\t'}, {' ', ' '}};
        else if (name == "cntrl") r = {{0, 0x1f}, {0x7f, 0x7f}};
        else if (name == "print") r = {{' ', '~'}};
        else if (name == "graph") r = {{'!', '~'}};
        else if (name == "ascii") r = {{0, 0x7f}};
        else {
          fail("unknown class [:" + name + ":]");
          return nullptr;
        }
        if (neg)
          r = complement(r);
        ranges.insert(ranges.end(), r.begin(), r.end());
        pos = close + 2;
        continue;
      }
      int64_t lo;
      if (peek() == '\\') {
        ++pos;
        Ranges r;
        if (escape(lo, r, /*inClass=*/true)) {
          ranges.insert(ranges.end(), r.begin(), r.end());
          continue;
        }
        if (!error.empty())
          return nullptr;
      } else {
        lo = codePoint();
      }
      int64_t hi = lo;
      if (pos + 1 < text.size() && peek() == '-' && text[pos + 1] != ']') {
        ++pos;
        if (peek() == '\\') {
          ++pos;
          Ranges r;
          if (escape(hi, r, /*inClass=*/true)) {
            fail("bad character class range");
            return nullptr;
          }
          if (!error.empty())
            return nullptr;
        } else {
          hi = codePoint();
        }
        if (hi < lo) {
          fail("bad character class range");
          return nullptr;
        }
      }
      ranges.push_back({lo, hi});
    }
    ++pos; // ]
    return set(std::move(ranges), negated);
  }

  std::unique_ptr<Node> atom() {
    char c = peek();
    switch (c) {
    case '(': {
      ++pos;
      if (text.substr(pos).starts_with("?:")) {
        pos += 2;
      } else if (text.substr(pos).starts_with("?P<") || text.substr(pos).starts_with("?<")) {
        size_t close = text.find('>', pos);
        if (close == StringRef::npos) {
          fail("bad named group");
          return nullptr;
        }
        pos = close + 1;
      } else if (!atEnd() && peek() == '?') {
        fail("flags and other (?...) groups are not supported");
        return nullptr;
      }
      if (++depth > 1000) {
        fail("groups nested too deeply");
        return nullptr;
      }
      auto inner = alternation();
      --depth;
      if (atEnd() || peek() != ')') {
        fail("missing )");
        return nullptr;
      }
      ++pos;
      auto group = make(Node::Concat);
      group->kids.push_back(std::move(inner));
      return group;
    }
    case '*':
    case '+':
    case '?':
      fail("missing argument to repetition operator");
      return nullptr;
    case '.':
      ++pos;
      return make(Node::AnyChar);
    case '^':
    case '$': {
      ++pos;
      auto a = make(Node::Anchor);
      a->value = c == '^' ? 0 : 1;
      return a;
    }
    case '[':
      return bracket();
    case '\\': {
      ++pos;
      if (!atEnd() && (peek() == 'b' || peek() == 'B' || peek() == 'A' || peek() == 'z')) {
        char e = text[pos++];
        auto a = make(Node::Anchor);
        a->value = e == 'A' ? 0 : e == 'z' ? 1 : e == 'b' ? 2 : 3;
        return a;
      }
      int64_t ch;
      Ranges r;
      if (escape(ch, r, /*inClass=*/false))
        return set(std::move(r), false);
      if (!error.empty())
        return nullptr;
      auto lit = make(Node::Literal);
      lit->value = ch;
      return lit;
    }
    default: {
      auto lit = make(Node::Literal);
      lit->value = codePoint();
      return lit;
    }
    }
  }
};

/// Emits the program: instructions (3 int32 each), then the classes.
class Emitter {
public:
  std::vector<std::array<int32_t, 3>> code;
  std::vector<std::pair<size_t, Ranges>> classes; // instruction, its ranges
  bool tooLarge = false;

  size_t emit(int32_t op, int32_t a = 0, int32_t b = 0) {
    if (code.size() >= kMaxInstructions) {
      tooLarge = true;
      return code.size();
    }
    code.push_back({op, a, b});
    return code.size() - 1;
  }
  void patch(size_t at, int k, size_t target) {
    if (at < code.size())
      code[at][k] = static_cast<int32_t>(target);
  }

  void node(const Node &n) {
    if (tooLarge)
      return;
    switch (n.kind) {
    case Node::Empty:
      return;
    case Node::Literal:
      emit(Char, static_cast<int32_t>(n.value));
      return;
    case Node::AnyChar:
      emit(Any);
      return;
    case Node::Set: {
      size_t at = emit(Class, 0, n.negated ? 1 : 0);
      classes.push_back({at, n.ranges});
      return;
    }
    case Node::Anchor:
      emit(Assert, static_cast<int32_t>(n.value));
      return;
    case Node::Concat:
      for (const auto &k : n.kids)
        node(*k);
      return;
    case Node::Alternate: {
      std::vector<size_t> jumps;
      for (size_t i = 0; i + 1 < n.kids.size(); ++i) {
        size_t split = emit(Split);
        patch(split, 1, split + 1);
        node(*n.kids[i]);
        jumps.push_back(emit(Jmp));
        patch(split, 2, code.size());
      }
      node(*n.kids.back());
      for (size_t j : jumps)
        patch(j, 1, code.size());
      return;
    }
    case Node::Repeat: {
      const Node &x = *n.kids[0];
      for (int64_t i = 0; i < n.min; ++i)
        node(x);
      if (n.max < 0) {
        size_t split = emit(Split);
        patch(split, 1, split + 1);
        node(x);
        size_t back = emit(Jmp);
        patch(back, 1, split);
        patch(split, 2, code.size());
        return;
      }
      std::vector<size_t> splits;
      for (int64_t i = n.min; i < n.max; ++i) {
        size_t split = emit(Split);
        patch(split, 1, split + 1);
        splits.push_back(split);
        node(x);
      }
      for (size_t s : splits)
        patch(s, 2, code.size());
      return;
    }
    }
  }
};

/// `pattern` quoted for a one-line message: printable ASCII, other bytes
/// as \xNN, at most 80 bytes of it.
std::string quoted(StringRef pattern) {
  std::string out = "'";
  for (size_t i = 0; i < pattern.size() && i < 80; ++i) {
    unsigned char c = pattern[i];
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out + (pattern.size() > 80 ? "'..." : "'");
}

/// The program of `pattern` (see onnxcc_rt::regex), or an error message.
std::variant<std::vector<int32_t>, std::string> compile(StringRef pattern, int32_t &count) {
  Parser parser(pattern);
  std::unique_ptr<Node> root = parser.parse();
  if (!root)
    return parser.error;
  Emitter e;
  e.node(*root);
  e.emit(Match);
  size_t classInts = 0;
  for (const auto &[at, r] : e.classes)
    classInts += 1 + 2 * r.size();
  if (e.tooLarge || e.code.size() * 3 + classInts > 4 * kMaxInstructions)
    return std::string("the pattern is too large (more than ") +
           std::to_string(kMaxInstructions) + " instructions once repetitions are expanded)";
  std::vector<int32_t> prog;
  for (const auto &in : e.code)
    prog.insert(prog.end(), in.begin(), in.end());
  for (const auto &[at, r] : e.classes) {
    prog[3 * at + 1] = static_cast<int32_t>(prog.size());
    prog.push_back(static_cast<int32_t>(r.size()));
    for (auto [lo, hi] : r) {
      prog.push_back(static_cast<int32_t>(lo));
      prog.push_back(static_cast<int32_t>(hi));
    }
  }
  count = static_cast<int32_t>(e.code.size());
  return prog;
}

} // namespace regex

/// RegexFullMatch: the pattern is compiled here (regex::compile) into a
/// constant program that onnxcc_rt::regex_full_match runs on each string,
/// with a scratch buffer of 4 int32 per instruction.
struct RegexFullMatchLowering : OpConversionPattern<onnx::RegexFullMatchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::RegexFullMatchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!xType || !xType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "input must be static");
    if (!op.getPattern())
      return op.emitError("cannot lower 'onnx.RegexFullMatch': it has no 'pattern'");
    int32_t count = 0;
    auto compiled = regex::compile(*op.getPattern(), count);
    if (auto *message = std::get_if<std::string>(&compiled))
      return op.emitError("cannot lower 'onnx.RegexFullMatch': pattern ")
             << regex::quoted(*op.getPattern()) << ": " << *message;
    auto &prog = std::get<std::vector<int32_t>>(compiled);
    Type i32 = rewriter.getI32Type();
    auto progType = RankedTensorType::get({static_cast<int64_t>(prog.size())}, i32);
    Value progTensor = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(progType, ArrayRef<int32_t>(prog)));
    auto scratchType = RankedTensorType::get({4 * static_cast<int64_t>(count)}, i32);
    Value out = flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, type), /*readOnly=*/false);
    Value operands[] = {
        flatBuffer(rewriter, loc, adaptor.getX(), /*readOnly=*/true),
        indexConst(rewriter, loc, xType.getNumElements()),
        out,
        flatBuffer(rewriter, loc, progTensor, /*readOnly=*/true),
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(count)),
        flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, scratchType), /*readOnly=*/false)};
    emitRuntimeCall(rewriter, loc, op, "onnxcc_rt_regex_full_match",
                    "onnxcc_rt::regex_full_match", operands, /*usesStringPool=*/false);
    rewriter.replaceOp(op, tensorFromFlatBuffer(rewriter, loc, out, type));
    return success();
  }
};

/// A string constant (a Constant node or an initializer of strings): its
/// bytes, NUL-terminated one after another, and their offsets are constant
/// arrays; onnxcc_rt::string_constant writes the pointers into the result.
struct StringConstantLowering : OpConversionPattern<onnx::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto strings = dyn_cast_or_null<DenseStringElementsAttr>(op.getValueAttr());
    if (!strings)
      return rewriter.notifyMatchFailure(op, "not a string constant");
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    Location loc = op.getLoc();
    SmallVector<int8_t> bytes;
    SmallVector<int64_t> offsets;
    int64_t n = type.getNumElements();
    ArrayRef<StringRef> data = strings.getRawStringData();
    for (int64_t i = 0; i < n; ++i) {
      StringRef text = data[strings.isSplat() ? 0 : i];
      if (text.contains('\0'))
        return op.emitError("cannot lower a string constant whose element ")
               << i << " holds a NUL character (strings are NUL-terminated in the generated code)";
      offsets.push_back(bytes.size());
      bytes.append(text.begin(), text.end());
      bytes.push_back(0);
    }
    if (offsets.empty())
      offsets.push_back(0);
    bytes.push_back(0);
    auto bytesType = RankedTensorType::get({static_cast<int64_t>(bytes.size())}, rewriter.getI8Type());
    auto offsetsType =
        RankedTensorType::get({static_cast<int64_t>(offsets.size())}, rewriter.getI64Type());
    Value bytesTensor = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(bytesType, ArrayRef<int8_t>(bytes)));
    Value offsetsTensor = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(offsetsType, ArrayRef<int64_t>(offsets)));
    Value out = flatBuffer(rewriter, loc, emptyTensor(rewriter, loc, type), /*readOnly=*/false);
    Value operands[] = {flatBuffer(rewriter, loc, bytesTensor, /*readOnly=*/true),
                        flatBuffer(rewriter, loc, offsetsTensor, /*readOnly=*/true),
                        indexConst(rewriter, loc, n), out};
    emitRuntimeCall(rewriter, loc, op, "onnxcc_rt_string_constant", "onnxcc_rt::string_constant",
                    operands, /*usesStringPool=*/false);
    rewriter.replaceOp(op, tensorFromFlatBuffer(rewriter, loc, out, type));
    return success();
  }
};

} // namespace

void populateStringPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<StringNormalizerLowering, StringConcatLowering, StringEqualLowering,
               StringSplitLowering, RegexFullMatchLowering, StringConstantLowering>(converter, patterns.getContext());
}

} // namespace onnxcc::lowering
