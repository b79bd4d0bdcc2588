//===- OnnxToLinalg.cpp - The convert-onnx-to-linalg pass ----------------===//
#include "lowering/OnnxToLinalg/Patterns.h"
#include "lowering/Passes.h"

#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/DialectConversion.h"

#include <set>
#include <tuple>

using namespace mlir;

namespace onnxcc {
#define GEN_PASS_DEF_CONVERTONNXTOLINALGPASS
#include "lowering/Passes.h.inc"
} // namespace onnxcc

namespace onnxcc::lowering {

OnnxTypeConverter::OnnxTypeConverter() {
  addConversion([](Type t) -> std::optional<Type> {
    if (isa<NoneType>(t))
      return t;
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked)
      return std::nullopt;
    Type elem = ranked.getElementType();
    if (auto i = dyn_cast<IntegerType>(elem); i && i.getWidth() > 1 && i.getWidth() < 8)
      // int4/uint4/int2/uint2: one value per byte (see SmallTypes.cpp).
      elem = IntegerType::get(t.getContext(), 8);
    else if (auto i = dyn_cast<IntegerType>(elem); i && !i.isSignless())
      elem = IntegerType::get(t.getContext(), i.getWidth());
    else if (isa<onnx::StringType>(elem))
      // A string is its `const char *` in the generated code, held as i64.
      elem = IntegerType::get(t.getContext(), 64);
    else if (!elem.isIntOrFloat())
      return std::nullopt;
    return RankedTensorType::get(ranked.getShape(), elem);
  });
  addConversion([](Type t) -> std::optional<Type> {
    if (t.isIntOrIndexOrFloat())
      return t;
    return std::nullopt;
  });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs, Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs).getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

Value OnnxTypeConverter::materialize(OpBuilder &b, Location loc, Operation *inFunc,
                                     const onnx::SymExpr &e) const {
  auto func = isa<func::FuncOp>(inFunc) ? cast<func::FuncOp>(inFunc)
                                        : inFunc->getParentOfType<func::FuncOp>();
  auto it = symbols.find(func);
  auto symbolValue = [&](StringAttr s) -> Value {
    if (it == symbols.end())
      return {};
    for (auto &[name, value] : it->second)
      if (name == s)
        return value;
    return {};
  };
  Value sum;
  for (const onnx::SymExpr::Term &t : e.getTerms()) {
    Value term;
    for (StringAttr s : t.syms) {
      Value v = symbolValue(s);
      if (!v)
        return {};
      term = term ? Value(arith::MulIOp::create(b, loc, term, v)) : v;
    }
    if (!term)
      term = indexConst(b, loc, t.coeff);
    else if (t.coeff != 1)
      term = arith::MulIOp::create(b, loc, term, indexConst(b, loc, t.coeff));
    sum = sum ? Value(arith::AddIOp::create(b, loc, sum, term)) : term;
  }
  return sum ? sum : indexConst(b, loc, 0);
}

Value OnnxTypeConverter::defineDataDim(OpBuilder &b, Location loc, Operation *op, unsigned k,
                                       Value count) const {
  auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
  StringAttr name = names && k < names.size() ? dyn_cast<StringAttr>(names[k]) : StringAttr();
  // A dim an output declares static, for a target that compiles for it
  // (onnxcc-mark-declared-shapes): that value; run() returns 9 unless the
  // data gives it.
  auto func = op->getParentOfType<func::FuncOp>();
  auto declared = func ? func->getAttrOfType<DictionaryAttr>("onnxcc.declared_data_dims")
                       : DictionaryAttr();
  if (auto value = name && declared ? declared.getAs<IntegerAttr>(name) : IntegerAttr()) {
    Value v = indexConst(b, loc, value.getInt());
    checkDims(b, loc, op, "equal", count, v);
    if (Value placeholder = dataPlaceholders.lookup(name))
      dataValues[placeholder] = v;
    return v;
  }
  std::optional<onnx::SymExpr> bound = name ? shapes.boundOf(name) : std::nullopt;
  Value limit = bound ? materialize(b, loc, op, *bound) : Value();
  if (!limit)
    return {};
  // A bound the user gave may be wrong: run() returns 10 then.
  if (shapes.isUserBound(name))
    checkDims(b, loc, op, "bound", count, limit);
  Value v = arith::MinUIOp::create(b, loc, count, limit);
  if (Value placeholder = dataPlaceholders.lookup(name))
    dataValues[placeholder] = v;
  return v;
}

FailureOr<SmallVector<Value>> OnnxTypeConverter::dynamicSizes(OpBuilder &b, Location loc,
                                                              Value v,
                                                              RankedTensorType type) const {
  SmallVector<Value> out;
  if (type.hasStaticShape())
    return out;
  auto shape = shapes.lookup(v);
  if (!shape || static_cast<int64_t>(shape->size()) != type.getRank())
    return failure();
  Operation *anchor = v.getDefiningOp() ? v.getDefiningOp()
                                        : cast<BlockArgument>(v).getOwner()->getParentOp();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    const onnx::Dim &dim = (*shape)[d];
    if (!dim.isSymbolic())
      return failure();
    Value size = materialize(b, loc, anchor, dim.expr);
    if (!size)
      return failure();
    out.push_back(size);
  }
  return out;
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type, ValueRange dynamicSizes) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(), dynamicSizes);
}

FailureOr<std::pair<RankedTensorType, SmallVector<Value>>>
symbolicResultType(ConversionPatternRewriter &rewriter, const TypeConverter *converter,
                   Operation *op, unsigned i) {
  auto t = dyn_cast_or_null<RankedTensorType>(
      converter->convertType(op->getResult(i).getType()));
  if (!t)
    return rewriter.notifyMatchFailure(op, "result is not a ranked tensor");
  auto sizes = onnxConverter(converter).dynamicSizes(rewriter, op->getLoc(), op->getResult(i), t);
  if (failed(sizes))
    return rewriter.notifyMatchFailure(op, "a dynamic result dim is not symbolic");
  return std::make_pair(t, *sizes);
}

namespace {
/// The node name in `loc`, or "".
StringRef nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (StringRef n = nodeName(l); !n.empty())
        return n;
  return "";
}
} // namespace

std::string blobName(Operation *op, StringRef suffix) {
  std::string out;
  for (char c : nodeName(op->getLoc()))
    out.push_back(llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_');
  if (out.empty())
    out = "node";
  else if (llvm::isDigit(out[0]))
    out.insert(0, "w_");
  return out + suffix.str();
}

Type onnxElementType(Value v) {
  if (auto t = dyn_cast<ShapedType>(v.getType()))
    return t.getElementType();
  return v.getType();
}

RankedTensorType staticResultType(ConversionPatternRewriter &rewriter,
                                  const TypeConverter *converter, Operation *op, unsigned i) {
  auto t = dyn_cast_or_null<RankedTensorType>(
      converter->convertType(op->getResult(i).getType()));
  if (!t || !t.hasStaticShape()) {
    (void)rewriter.notifyMatchFailure(op, "result needs a static shape");
    return {};
  }
  return t;
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value floatConst(OpBuilder &b, Location loc, Type t, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
}

Value clampIndex(OpBuilder &b, Location loc, Value idx, Value lo, Value hi) {
  Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, lo);
  idx = arith::SelectOp::create(b, loc, below, lo, idx);
  Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, idx, hi);
  return arith::SelectOp::create(b, loc, above, hi, idx);
}

Value scalarOf(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<Value> zeros(type.getRank(), indexConst(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, t, zeros);
}

void checkDims(OpBuilder &b, Location loc, Operation *at, StringRef kind, Value lhs, Value rhs) {
  Type i64 = b.getI64Type();
  auto widen = [&](Value v) -> Value {
    if (v.getType() == i64)
      return v;
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, i64, v);
    return arith::ExtSIOp::create(b, loc, i64, v);
  };
  func::FuncOp check = declareRuntimeFunction(
      b, at, ("onnxcc_check_" + kind).str(), ("onnxcc_rt::check_" + kind).str(),
      b.getFunctionType({i64, i64}, {b.getI32Type()}), /*usesStringPool=*/false);
  func::CallOp::create(b, loc, check, ValueRange{widen(lhs), widen(rhs)});
}

void checkDeclaredDim(OpBuilder &b, Location loc, Operation *at, Value actual,
                      int64_t declared) {
  checkDims(b, loc, at, "equal", actual,
            arith::ConstantIntOp::create(b, loc, b.getI64Type(), declared));
}

Value buildIndexedGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                          function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body,
                          ValueRange dynamicSizes) {
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, type, dynamicSizes);
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{}, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; d < rank; ++d)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, d));
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, ivs));
      });
  return generic.getResult(0);
}

Value slicePosition(OpBuilder &b, Location loc, Value dim, int64_t k, bool backwards) {
  if (k < 0)
    return arith::MaxSIOp::create(b, loc, arith::AddIOp::create(b, loc, dim, indexConst(b, loc, k)),
                                  indexConst(b, loc, backwards ? -1 : 0));
  Value last = backwards ? Value(arith::SubIOp::create(b, loc, dim, indexConst(b, loc, 1))) : dim;
  return arith::MinSIOp::create(b, loc, indexConst(b, loc, k), last);
}

Value sliceLength(OpBuilder &b, Location loc, Value dim, int64_t start, int64_t end,
                  int64_t step) {
  bool backwards = step < 0;
  Value s = slicePosition(b, loc, dim, start, backwards);
  Value e = slicePosition(b, loc, dim, end, backwards);
  Value span = backwards ? arith::SubIOp::create(b, loc, s, e) : arith::SubIOp::create(b, loc, e, s);
  span = arith::MaxSIOp::create(b, loc, span, indexConst(b, loc, 0));
  int64_t stride = backwards ? -step : step;
  if (stride == 1)
    return span;
  return arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, indexConst(b, loc, stride - 1)),
      indexConst(b, loc, stride));
}

namespace {
/// onnx.Constant becomes arith.constant of the signless tensor type.
struct ConstantLowering : OpConversionPattern<onnx::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    ElementsAttr value = op.getValueAttr();
    if (!value)
      return rewriter.notifyMatchFailure(op, "only the `value` form is lowered");
    TypedAttr converted;
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (!dense.getElementType().isIntOrFloat())
        return rewriter.notifyMatchFailure(op, "string constants are not lowered");
      if (auto i = dyn_cast<IntegerType>(dense.getElementType());
          i && i.getWidth() > 1 && i.getWidth() < 8) {
        // int4/int2 sign-extend, uint4/uint2 zero-extend to their i8.
        bool isUnsigned = i.isUnsigned();
        converted = dense.mapValues(type.getElementType(), [&](const APInt &v) {
                           return isUnsigned ? v.zext(8) : v.sext(8);
                         }).reshape(type);
      } else {
        converted = dense.getType() == type ? dense : dense.bitcast(type.getElementType())
                                                          .reshape(type);
      }
    } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
      converted = DenseResourceElementsAttr::get(type, res.getRawHandle());
    } else {
      return rewriter.notifyMatchFailure(op, "unsupported constant attribute");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, converted);
    return success();
  }
};

/// Binds each symbol that the model allows only one value of: a Reshape of
/// `[S, 4, 5]` to the constant shape `[1, 60, 1]` (S = 3), a Squeeze of S
/// (S = 1), constant Split sizes along S, a BatchNormalization whose
/// channel dim S meets its [C] scale. Such a model fails at every other
/// value in any runtime; compiling it for the one value keeps the whole
/// graph static instead of refusing it. The inputs' types get the value,
/// `onnxcc.bound_symbols` on `func` records it (run() still takes the symbol
/// and returns 9 for any other value, see addSymbolArguments), and a
/// warning names the node that fixed it.
void bindSymbols(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  SmallVector<NamedAttribute> bound;
  if (auto old = func->getAttrOfType<DictionaryAttr>("onnxcc.bound_symbols"))
    bound.append(old.begin(), old.end());
  for (int round = 0; round < 64; ++round) {
    onnx::ShapeMap shapes;
    {
      ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
      (void)onnx::inferShapesInFunction(func, &shapes);
    }
    std::optional<std::pair<StringAttr, int64_t>> found;
    Operation *where = nullptr;
    func.walk([&](Operation *op) {
      if (!op->getDialect() || op->getDialect()->getNamespace() != "onnx")
        return WalkResult::advance();
      for (const onnx::DimConstraint &c : onnx::dimConstraints(op, shapes))
        if (c.kind == onnx::DimConstraint::Equal)
          if ((found = onnx::solveForSymbol(c.lhs, c.rhs))) {
            where = op;
            return WalkResult::interrupt();
          }
      return WalkResult::advance();
    });
    if (!found)
      break;
    auto [symbol, value] = *found;
    bool changed = false;
    for (BlockArgument arg : func.getArguments()) {
      auto params = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "onnx.dim_params");
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!params || !type || params.size() != static_cast<size_t>(type.getRank()))
        continue;
      SmallVector<int64_t> dims(type.getShape());
      for (auto [d, p] : llvm::zip(dims, params))
        if (p == symbol && ShapedType::isDynamic(d)) {
          d = value;
          changed = true;
        }
      arg.setType(RankedTensorType::get(dims, type.getElementType()));
    }
    if (!changed)
      break; // not an input's symbol: nothing to bind
    bound.push_back(NamedAttribute(symbol, IntegerAttr::get(IntegerType::get(ctx, 64), value)));
    func.setType(FunctionType::get(ctx, func.getBody().getArgumentTypes(),
                                   func.getResultTypes()));
    where->emitWarning() << "'" << where->getName().stripDialect() << "' needs symbol '"
                         << symbol.getValue() << "' to be " << value
                         << ": compiled for that value only (run() returns 9 for others)";
  }
  if (!bound.empty())
    func->setAttr("onnxcc.bound_symbols", DictionaryAttr::get(ctx, bound));
}

/// Adds one leading index argument per symbol of `func`'s inputs (attribute
/// `onnxcc.symbol`) and records each input's dims as `onnxcc.dims`. A bound
/// symbol (bindSymbols) keeps its argument, checked against its value by
/// onnxcc_rt::check_equal first thing in run().
void addSymbolArguments(func::FuncOp func, OnnxTypeConverter &converter) {
  MLIRContext *ctx = func.getContext();
  SmallVector<StringAttr> names;
  auto bound = func->getAttrOfType<DictionaryAttr>("onnxcc.bound_symbols");
  unsigned numInputs = func.getNumArguments();
  for (unsigned i = 0; i < numInputs; ++i) {
    auto shape = converter.shapeOf(func.getArgument(i));
    if (!shape)
      continue;
    SmallVector<Attribute> dims;
    bool dynamic = false;
    auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
    for (auto [k, d] : llvm::enumerate(*shape)) {
      // A bound symbol's dim keeps the symbol's name in the interface.
      if (bound && params && k < params.size())
        if (auto p = dyn_cast<StringAttr>(params[k]); p && bound.get(p)) {
          if (!llvm::is_contained(names, p))
            names.push_back(p);
          dims.push_back(onnx::dimToAttr(ctx, onnx::Dim::named(p)));
          dynamic = true;
          continue;
        }
      for (StringAttr s : d.expr.symbols())
        if (d.isSymbolic() && !llvm::is_contained(names, s))
          names.push_back(s);
      Attribute a = onnx::dimToAttr(ctx, d);
      dynamic |= !d.isStatic();
      dims.push_back(a ? a : Builder(ctx).getI64IntegerAttr(ShapedType::kDynamic));
    }
    if (dynamic)
      func.setArgAttr(i, "onnxcc.dims", ArrayAttr::get(ctx, dims));
  }
  auto &values = converter.symbols[func];
  for (auto [k, name] : llvm::enumerate(names)) {
    NamedAttribute attr(StringAttr::get(ctx, "onnxcc.symbol"), name);
    if (failed(func.insertArgument(k, IndexType::get(ctx), DictionaryAttr::get(ctx, {attr}),
                                   func.getLoc())))
      continue;
    values.push_back({name, func.getArgument(k)});
  }
  if (!bound || func.getBody().front().empty())
    return;
  OpBuilder b(&func.getBody().front().front());
  Location loc = func.getLoc();
  Type i64 = b.getI64Type();
  for (auto [k, name] : llvm::enumerate(names)) {
    auto value = dyn_cast_or_null<IntegerAttr>(bound.get(name));
    if (!value)
      continue;
    func::FuncOp check = declareRuntimeFunction(
        b, &func.getBody().front().front(), "onnxcc_check_equal", "onnxcc_rt::check_equal",
        b.getFunctionType({i64, i64}, {b.getI32Type()}), /*usesStringPool=*/false);
    func::CallOp::create(b, loc, check,
                         ValueRange{arith::IndexCastOp::create(b, loc, i64, func.getArgument(k)),
                                    arith::ConstantIntOp::create(b, loc, value.getInt(), 64)});
  }
}

/// Computes each derived symbol of `func` (onnx::DerivedDim: a sliding
/// window's output length over a symbolic input) first thing in run(), from
/// the inputs' symbols: (span / stride) + 1 rounded as it says, 0 when the
/// padded input is shorter than the window (run() returns 9 then), and
/// through arith.minui with its bound. The minui carries the symbol's name
/// (onnxcc.derived_symbol): memory planning sizes buffers with the symbol
/// itself, computing it again in <name>_arena_size, rather than with its
/// bound.
void defineDerivedSymbols(func::FuncOp func, OnnxTypeConverter &converter) {
  if (func.getBody().empty())
    return;
  auto &values = converter.symbols[func];
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  Location loc = func.getLoc();
  auto define = [&](StringAttr name, Value v) {
    v.getDefiningOp()->setAttr("onnxcc.derived_symbol", name);
    values.push_back({name, v});
  };
  for (StringAttr name : converter.shapes.derivedSymbols()) {
    const onnx::DerivedDim *def = converter.shapes.derivedOf(name);
    std::optional<onnx::SymExpr> bound = converter.shapes.boundOf(name);
    if (!def || !bound)
      continue;
    Value span = converter.materialize(b, loc, func, def->span);
    Value limit = converter.materialize(b, loc, func, *bound);
    if (!span || !limit)
      continue; // not a symbol of this function
    if (def->scaled) {
      // floor(in * scale) in double, as shape inference computes it for a
      // static dim.
      Value in = converter.materialize(b, loc, func, def->in);
      if (!in)
        continue;
      Value f = arith::UIToFPOp::create(
          b, loc, b.getF64Type(), arith::IndexCastUIOp::create(b, loc, b.getI64Type(), in));
      f = arith::MulFOp::create(b, loc, f,
                                arith::ConstantOp::create(b, loc, b.getF64FloatAttr(def->scale)));
      Value size = arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(),
          arith::FPToUIOp::create(b, loc, b.getI64Type(), math::FloorOp::create(b, loc, f)));
      define(name, arith::MinUIOp::create(b, loc, size, limit));
      continue;
    }
    if (def->quotient) {
      // run() returns 9 unless the divisor is at least 1 (and, exact,
      // divides); the division itself never sees a 0.
      Value in = converter.materialize(b, loc, func, def->in);
      if (!in)
        continue;
      Value one = indexConst(b, loc, 1);
      checkDims(b, loc, func, "at_least", span, one);
      Value den = arith::MaxUIOp::create(b, loc, span, one);
      Value num = def->ceil ? Value(arith::AddIOp::create(
                                  b, loc, in, arith::SubIOp::create(b, loc, den, one)))
                            : in;
      Value q = arith::DivUIOp::create(b, loc, num, den);
      if (!def->ceil)
        checkDims(b, loc, func, "equal", arith::MulIOp::create(b, loc, q, den), in);
      define(name, arith::MinUIOp::create(b, loc, q, limit));
      continue;
    }
    if (def->slice) {
      Value in = converter.materialize(b, loc, func, def->in);
      if (!in)
        continue;
      Value length = sliceLength(b, loc, in, def->sliceStart, def->sliceEnd, def->sliceStep);
      define(name, arith::MinUIOp::create(b, loc, length, limit));
      continue;
    }
    if (def->broadcast) {
      // `span` when `in` is 1, else `in`; run() returns 9 unless `span` is
      // 1 or that (onnxcc_rt::check_broadcast).
      Value in = converter.materialize(b, loc, func, def->in);
      if (!in)
        continue;
      Value inIsOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, in,
                                            indexConst(b, loc, 1));
      Value size = arith::SelectOp::create(b, loc, inIsOne, span, in);
      checkDims(b, loc, func, "broadcast", span, size);
      define(name, arith::MinUIOp::create(b, loc, size, limit));
      continue;
    }
    Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
    Value stride = indexConst(b, loc, def->stride);
    Value rounded = def->ceil ? Value(arith::AddIOp::create(b, loc, span,
                                                            indexConst(b, loc, def->stride - 1)))
                              : span;
    Value count = arith::AddIOp::create(b, loc, arith::DivSIOp::create(b, loc, rounded, stride),
                                        one);
    if (def->dropLast) {
      // The last window must start inside the input or its begin padding.
      Value in = converter.materialize(b, loc, func, def->in);
      if (!in)
        continue;
      Value start = arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, count, one),
                                          stride);
      Value limitStart =
          arith::AddIOp::create(b, loc, in, indexConst(b, loc, def->padBegin));
      Value past =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, start, limitStart);
      count = arith::SelectOp::create(b, loc, past, arith::SubIOp::create(b, loc, count, one),
                                      count);
    }
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, span, zero);
    count = arith::SelectOp::create(b, loc, negative, zero, count);
    define(name, arith::MinUIOp::create(b, loc, count, limit));
  }
}

/// A placeholder for each data-dependent dim of `func` (a symbol an op
/// defines from the values it reads, onnx::ShapeContext::dataDim), right
/// after its op: the ops after it size their results and check their dim
/// rules with it as with an input's symbol. The op's lowering gives its
/// value (OnnxTypeConverter::defineDataDim).
void addDataDimPlaceholders(func::FuncOp func, OnnxTypeConverter &converter) {
  auto &values = converter.symbols[func];
  func.walk([&](Operation *op) {
    auto names = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims");
    if (!names)
      return;
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    for (Attribute a : names) {
      auto name = dyn_cast<StringAttr>(a);
      if (!name || !converter.shapes.isDataSymbol(name) ||
          converter.dataPlaceholders.count(name))
        continue;
      auto placeholder = arith::ConstantIndexOp::create(b, op->getLoc(), 0);
      placeholder->setAttr("onnxcc.placeholder", name);
      converter.dataPlaceholders[name] = placeholder;
      values.push_back({name, placeholder});
    }
  });
}

/// After the conversion: each placeholder becomes its value.
LogicalResult replaceDataDimPlaceholders(OnnxTypeConverter &converter) {
  for (auto [name, placeholder] : converter.dataPlaceholders) {
    Value v = converter.dataValues.lookup(placeholder);
    if (!v && !placeholder.use_empty())
      return placeholder.getDefiningOp()->emitError()
             << "the data-dependent dim '" << name.getValue() << "' was not computed";
    if (v)
      placeholder.replaceAllUsesWith(v);
    placeholder.getDefiningOp()->erase();
  }
  return success();
}

/// Checks at run time, before each op of `func`, the dim rules its lowering
/// relies on but that hold only for some values of the symbols
/// (onnx::dimConstraints: a symbolic K against a static weight's in a
/// MatMul, a result dim the model declares static, a Slice [1:] of a
/// symbolic dim that must not be empty): onnxcc_rt::check_equal and
/// check_at_least return status 9 from run() when the dims it was given
/// break one. Each rule is checked once, before its first use.
void checkDimConstraints(func::FuncOp func, OnnxTypeConverter &converter) {
  std::set<std::tuple<int, std::string, std::string>> checked;
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "onnx")
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto value = [&](const onnx::Dim &d) -> Value {
      if (d.isStatic())
        return indexConst(b, loc, d.size);
      if (!d.isSymbolic())
        return {};
      return converter.materialize(b, loc, op, d.expr);
    };
    for (const onnx::DimConstraint &c : onnx::dimConstraints(op, converter.shapes)) {
      if (!c.lhs.isSymbolic() && !c.rhs.isSymbolic())
        continue;
      if (!checked.insert({c.kind, c.lhs.str(), c.rhs.str()}).second)
        continue;
      // A rule on a dim the op itself defines from the data is checked
      // once that dim is known: after the op.
      b.setInsertionPoint(op);
      Operation *lastOwn = nullptr;
      bool mentionsOwn = false;
      if (auto own = op->getAttrOfType<ArrayAttr>("onnxcc.data_dims"))
        for (Attribute a : own)
          if (auto name = dyn_cast<StringAttr>(a))
            if (Value p = converter.dataPlaceholders.lookup(name)) {
              lastOwn = p.getDefiningOp();
              mentionsOwn |= llvm::is_contained(c.lhs.expr.symbols(), name) ||
                             llvm::is_contained(c.rhs.expr.symbols(), name);
            }
      if (mentionsOwn)
        b.setInsertionPointAfter(lastOwn);
      Value lhs = value(c.lhs), rhs = value(c.rhs);
      if (!lhs || !rhs)
        continue;
      checkDims(b, loc, op,
                c.kind == onnx::DimConstraint::Equal     ? "equal"
                : c.kind == onnx::DimConstraint::AtLeast ? "at_least"
                                                         : "differs",
                lhs, rhs);
    }
  }
}

/// `op`'s `axis` attribute (`dflt` when it has none) as a dim of a
/// rank-`rank` operand; nullopt when out of range.
std::optional<int64_t> axisOf(Operation *op, int64_t rank, int64_t dflt) {
  int64_t a = dflt;
  if (auto attr = op->getAttrOfType<IntegerAttr>("axis"))
    a = attr.getInt();
  if (a < -rank || a >= rank)
    return std::nullopt;
  return a < 0 ? a + rank : a;
}

/// How many leading dims of operand 0 and result 0 `op` treats
/// independently (result[i, ...] depends only on operand 0[i, ...] along
/// them, and on a fused Conv's residual Z[i, ...]), or 0.
int64_t independentLeadingDims(Operation *op) {
  auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!x)
    return 0;
  int64_t rank = x.getRank();
  // An axis out of range (which the verifier refuses) treats none.
  auto axisAttr = [&](int64_t dflt) { return axisOf(op, rank, dflt).value_or(0); };
  // The result of a global pool at [n, c] reads only X[n, c, ...].
  if (isa<onnx::GlobalAveragePoolOp, onnx::GlobalMaxPoolOp, onnx::GlobalLpPoolOp>(op))
    return std::min<int64_t>(2, rank);
  // A pool's result at [n, c] reads only X[n, c, ...] too (MaxPool's
  // Indices get the slice's offset, offsetPoolIndices).
  if (isa<onnx::AveragePoolOp, onnx::LpPoolOp, onnx::MaxPoolOp>(op))
    return std::min<int64_t>(2, rank);
  if (isa<onnx::ConvOp, onnx::FusedConvOp, onnx::ConvTransposeOp, onnx::BatchNormalizationOp,
          onnx::InstanceNormalizationOp, onnx::LRNOp, onnx::DepthToSpaceOp,
          onnx::SpaceToDepthOp>(op))
    return 1;
  if (isa<onnx::SoftmaxOp, onnx::LogSoftmaxOp, onnx::HardmaxOp, onnx::LayerNormalizationOp>(op))
    return std::clamp<int64_t>(axisAttr(-1), 0, rank);
  // Trilu keeps or zeroes each matrix of the last two dims on its own.
  if (isa<onnx::TriluOp>(op))
    return std::max<int64_t>(rank - 2, 0);
  if (isa<onnx::ArgMaxOp, onnx::ArgMinOp>(op))
    return std::clamp<int64_t>(axisAttr(0), 0, rank);
  if (op->getName().getStringRef().starts_with("onnx.Reduce") && op->getNumOperands() == 2) {
    Value axes = op->getOperand(1);
    if (isa<NoneType>(axes.getType())) {
      auto noop = op->getAttrOfType<IntegerAttr>("noop_with_empty_axes");
      return noop && noop.getInt() ? rank : 0;
    }
    auto c = axes.getDefiningOp<onnx::ConstantOp>();
    auto values = c ? dyn_cast_or_null<DenseIntElementsAttr>(c.getValueAttr()) : nullptr;
    if (!values)
      return 0;
    int64_t first = rank;
    for (const APInt &a : values.getValues<APInt>()) {
      int64_t v = a.getSExtValue();
      first = std::min(first, v < 0 ? v + rank : v);
    }
    return std::clamp<int64_t>(first, 0, rank);
  }
  return 0;
}

/// For each dim of operand 0 of `op`, the dim of its results that it maps to
/// when `op` treats it independently (every result at [..., i, ...] reads
/// operand 0 only at [..., i, ...] there, and the two dims have one size),
/// or -1. Besides the leading dims above: ArgMax/ArgMin and TopK treat every
/// dim but their axis independently (a dropped axis shifts the later dims).
SmallVector<int64_t> independentDims(Operation *op) {
  auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!x)
    return {};
  int64_t rank = x.getRank();
  SmallVector<int64_t> map(rank, -1);
  auto axisAttr = [&](int64_t dflt) { return axisOf(op, rank, dflt); };
  auto allBut = [&](int64_t axis, bool dropped) {
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        map[d] = dropped && d > axis ? d - 1 : d;
  };
  if (isa<onnx::ArgMaxOp, onnx::ArgMinOp>(op)) {
    auto keep = op->getAttrOfType<IntegerAttr>("keepdims");
    if (auto axis = axisAttr(0))
      allBut(*axis, keep && keep.getInt() == 0);
    return map;
  }
  if (isa<onnx::TopKOp>(op)) {
    if (auto axis = axisAttr(-1))
      allBut(*axis, /*dropped=*/false);
    return map;
  }
  // Resize by a constant scale of exactly 1 maps each position to itself
  // along that dim, for the coordinate transformations that send x to x
  // there (not tf_half_pixel_for_nn's x + 0.5, nor tf_crop_and_resize's roi).
  if (auto resize = dyn_cast<onnx::ResizeOp>(op)) {
    StringRef mode = resize.getCoordinateTransformationMode();
    if (mode != "half_pixel" && mode != "asymmetric" && mode != "align_corners" &&
        mode != "pytorch_half_pixel")
      return map;
    auto c = resize.getScales() ? resize.getScales().getDefiningOp<onnx::ConstantOp>() : nullptr;
    auto scales = c ? dyn_cast_or_null<DenseFPElementsAttr>(c.getValueAttr()) : nullptr;
    if (!scales || scales.getNumElements() != rank)
      return map;
    for (auto [d, scale] : llvm::enumerate(scales.getValues<APFloat>()))
      if (scale.isExactlyValue(1.0))
        map[d] = d;
    return map;
  }
  int64_t k = independentLeadingDims(op);
  for (int64_t d = 0; d < std::min(k, rank); ++d)
    map[d] = d;
  return map;
}

/// MaxPool's Indices count positions in the whole of X (the batch and
/// channel included): a slice's indices at split coordinates `ivs` (of X's
/// dims `dims`) move by the elements of X before that slice.
Value offsetPoolIndices(OpBuilder &b, Location loc, Value indices, ValueRange ivs,
                        ArrayRef<int64_t> dims, Value x) {
  auto xType = cast<RankedTensorType>(x.getType());
  Value offset = indexConst(b, loc, 0);
  for (auto [iv, d] : llvm::zip_equal(ivs, dims)) {
    Value stride = iv;
    for (int64_t e = d + 1; e < xType.getRank(); ++e)
      stride = arith::MulIOp::create(
          b, loc, stride,
          xType.isDynamicDim(e) ? Value(tensor::DimOp::create(b, loc, x, e))
                                : indexConst(b, loc, xType.getDimSize(e)));
    offset = arith::AddIOp::create(b, loc, offset, stride);
  }
  offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), offset);
  return buildBroadcastGeneric(b, loc, cast<RankedTensorType>(indices.getType()), indices,
                               [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
                                 return arith::AddIOp::create(nb, nloc, args[0], offset);
                               });
}

/// Ops whose symbolic dims are all dims they treat independently (a
/// dynamic batch for Conv, rows for Softmax, the dims besides TopK's axis)
/// run in a loop nest over those dims on static slices: the op itself
/// lowers statically. A fused Conv's residual Z, which has the result's
/// shape, is sliced as the result. Every present result is sliced alike
/// (TopK's values and indices). Returns true when `op` was replaced.
bool splitIndependentDims(Operation *op, OnnxTypeConverter &converter) {
  if (op->getNumOperands() == 0 || op->getNumResults() == 0)
    return false;
  auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto y = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!x || !y || y.hasStaticShape() || converter.convertType(x) != x ||
      converter.convertType(y) != y)
    return false;
  SmallVector<int64_t> map = independentDims(op);
  // The split dims of X and where they are in the results. The dims an
  // op reduces to a static result dim may stay symbolic in its slices: the
  // spatial dims of a global pool, the axis of ArgMax/ArgMin and TopK.
  auto reducedBySlice = [&](int64_t d) {
    if (isa<onnx::GlobalAveragePoolOp, onnx::GlobalMaxPoolOp, onnx::GlobalLpPoolOp>(op))
      return d >= 2;
    if (isa<onnx::ArgMaxOp, onnx::ArgMinOp, onnx::TopKOp>(op)) {
      auto attr = op->getAttrOfType<IntegerAttr>("axis");
      int64_t axis = attr ? attr.getInt() : (isa<onnx::TopKOp>(op) ? -1 : 0);
      return d == (axis < 0 ? axis + x.getRank() : axis);
    }
    return false;
  };
  SmallVector<int64_t> dims, resultDims;
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (x.isDynamicDim(d)) {
      if (reducedBySlice(d) && map[d] < 0)
        continue;
      if (map[d] < 0 || map[d] >= y.getRank())
        return false;
      dims.push_back(d);
      resultDims.push_back(map[d]);
    }
  if (dims.empty())
    return false;
  // The present results: all of result 0's shape, dynamic only where X is.
  SmallVector<unsigned> results;
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    if (isa<NoneType>(r.getType()))
      continue;
    auto t = dyn_cast<RankedTensorType>(r.getType());
    if (!t || t.getShape() != y.getShape() || converter.convertType(t) != t)
      return false;
    results.push_back(i);
  }
  if (results.empty() || results.front() != 0)
    return false;
  for (int64_t e = 0; e < y.getRank(); ++e)
    if (y.isDynamicDim(e) && !llvm::is_contained(resultDims, e))
      return false;
  // The symbolic sizes agree: result dim map[d] is X's dim d.
  auto xShape = converter.shapeOf(op->getOperand(0));
  auto yShape = converter.shapeOf(op->getResult(0));
  if (!xShape || !yShape || static_cast<int64_t>(xShape->size()) != x.getRank() ||
      static_cast<int64_t>(yShape->size()) != y.getRank())
    return false;
  for (auto [d, e] : llvm::zip_equal(dims, resultDims))
    if ((*xShape)[d] != (*yShape)[e])
      return false;
  Value residual;
  if (auto fused = dyn_cast<onnx::FusedConvOp>(op); fused && !isa<NoneType>(fused.getZ().getType()))
    residual = fused.getZ();
  if (residual) {
    // Z has the result's shape: dynamic only along the split dims.
    auto z = dyn_cast<RankedTensorType>(residual.getType());
    if (!z || z.getRank() != y.getRank() || converter.convertType(z) != z)
      return false;
    for (int64_t d = 0; d < z.getRank(); ++d)
      if (!llvm::is_contained(resultDims, d) && z.getDimSize(d) != y.getDimSize(d))
        return false;
  }
  for (Value v : op->getOperands().drop_front())
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        v != residual && !isa<NoneType>(v.getType()) && (!t || !t.hasStaticShape()))
      return false;

  OpBuilder b(op);
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  SmallVector<Value> lbs, ubs, steps, dynamicSizes(y.getRank());
  for (auto [d, e] : llvm::zip_equal(dims, resultDims)) {
    lbs.push_back(indexConst(b, loc, 0));
    Value size = tensor::DimOp::create(b, loc, input, d);
    ubs.push_back(size);
    steps.push_back(indexConst(b, loc, 1));
    dynamicSizes[e] = size;
  }
  SmallVector<Value> resultSizes;
  for (int64_t e = 0; e < y.getRank(); ++e)
    if (y.isDynamicDim(e))
      resultSizes.push_back(dynamicSizes[e]);
  SmallVector<Value> inits;
  for (unsigned i : results)
    inits.push_back(emptyTensor(b, loc, cast<RankedTensorType>(op->getResult(i).getType()),
                                resultSizes));
  SmallVector<int64_t> xInner(x.getShape()), yInner(y.getShape());
  for (auto [d, e] : llvm::zip_equal(dims, resultDims)) {
    xInner[d] = 1;
    yInner[e] = 1;
  }
  auto xInnerType = RankedTensorType::get(xInner, x.getElementType());
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, inits,
      [&](OpBuilder &nb, Location nloc, ValueRange ivs, ValueRange acc) -> scf::ValueVector {
        // Dims that stay symbolic in the slice are taken whole.
        auto position = [&](Value full, ArrayRef<int64_t> split, ArrayRef<int64_t> inner,
                            SmallVectorImpl<OpFoldResult> &offsets,
                            SmallVectorImpl<OpFoldResult> &sizes) {
          for (int64_t d = 0, e = inner.size(); d < e; ++d) {
            auto it = llvm::find(split, d);
            offsets.push_back(it != split.end() ? OpFoldResult(ivs[it - split.begin()])
                                                : OpFoldResult(nb.getIndexAttr(0)));
            sizes.push_back(ShapedType::isDynamic(inner[d])
                                ? OpFoldResult(tensor::DimOp::create(nb, nloc, full, d).getResult())
                                : OpFoldResult(nb.getIndexAttr(inner[d])));
          }
        };
        SmallVector<OpFoldResult> xOffsets, xSizes, yOffsets, ySizes;
        position(input, dims, xInner, xOffsets, xSizes);
        position(acc[0], resultDims, yInner, yOffsets, ySizes);
        SmallVector<OpFoldResult> xStrides(x.getRank(), nb.getIndexAttr(1));
        SmallVector<OpFoldResult> yStrides(y.getRank(), nb.getIndexAttr(1));
        Value slice = tensor::ExtractSliceOp::create(nb, nloc, xInnerType, input, xOffsets,
                                                     xSizes, xStrides);
        IRMapping mapping;
        mapping.map(input, slice);
        // Z (when it is not X itself) in the slice of the result.
        if (residual && residual != input) {
          auto zInnerType =
              RankedTensorType::get(yInner, cast<RankedTensorType>(residual.getType())
                                                .getElementType());
          mapping.map(residual, tensor::ExtractSliceOp::create(nb, nloc, zInnerType, residual,
                                                               yOffsets, ySizes, yStrides));
        }
        Operation *inner = nb.clone(*op, mapping);
        scf::ValueVector updated;
        for (auto [k, i] : llvm::enumerate(results)) {
          auto full = cast<RankedTensorType>(op->getResult(i).getType());
          inner->getResult(i).setType(RankedTensorType::get(yInner, full.getElementType()));
          Value part = inner->getResult(i);
          if (isa<onnx::MaxPoolOp>(op) && i == 1)
            part = offsetPoolIndices(nb, nloc, part, ivs, dims, input);
          updated.push_back(tensor::InsertSliceOp::create(nb, nloc, part, acc[k], yOffsets,
                                                          ySizes, yStrides));
        }
        return updated;
      });
  for (auto [k, i] : llvm::enumerate(results)) {
    Value result = nest.results[k];
    if (auto shape = converter.shapes.lookup(op->getResult(i)))
      converter.shapes.set(result, *shape);
    op->getResult(i).replaceAllUsesWith(result);
  }
  op->erase();
  return true;
}

/// Every elementwise op lowers through one broadcasting linalg.generic,
/// whose sizes come from its operands (see Elementwise.cpp).
bool isSymbolicElementwise(Operation *op) { return isElementwiseOp(op); }

/// Dims as "[S0, 3, 5]".
std::string shapeText(const onnx::Shape &shape) {
  std::string out;
  for (const onnx::Dim &d : shape)
    out += (out.empty() ? "" : ", ") + d.str();
  return "[" + out + "]";
}

/// Why the symbolic dims of `op`'s operands fit its results only for some
/// values of the symbols in a way that run() does not check, or "". (Where
/// shape inference unifies a symbolic dim with a static or another symbolic
/// one, as for Concat of [S0, 4] and [S1, 4] along dim 1, Squeeze of [S0, 3]
/// into [3], a Reshape's element counts or constant Split sizes of a
/// symbolic dim, run() checks the equality: checkDimConstraints.)
std::string symbolicMismatch(Operation *op, const OnnxTypeConverter &converter) {
  auto shapeOf = [&](Value v) -> std::optional<onnx::Shape> {
    if (isa<NoneType>(v.getType()))
      return std::nullopt;
    return converter.shapeOf(v);
  };
  auto symbolic = [](const onnx::Shape &s) {
    return llvm::any_of(s, [](const onnx::Dim &d) { return d.isSymbolic(); });
  };
  auto in = shapeOf(op->getOperand(0));
  if (!in)
    return "";
  // Expand to a result with symbolic dims keeps or broadcasts from 1 each
  // input dim; a symbolic one under another symbolic size fits only some
  // values. (Under a static result dim, a run-time check makes it static.)
  if (isa<onnx::ExpandOp>(op)) {
    auto out = shapeOf(op->getResult(0));
    if (!out || out->size() < in->size() || !symbolic(*out))
      return "";
    size_t offset = out->size() - in->size();
    for (size_t d = 0; d < in->size(); ++d)
      if ((*in)[d].isSymbolic() && (*in)[d] != (*out)[offset + d] &&
          !(*out)[offset + d].isStatic())
        return "its input " + shapeText(*in) + " broadcasts to its result " + shapeText(*out) +
               " only for some values of the symbols";
    return "";
  }
  if (isa<onnx::InstanceNormalizationOp>(op) && in->size() >= 2 && (*in)[1].isSymbolic())
    return "its channel dim " + (*in)[1].str() + " of " + shapeText(*in) +
           " must be static (its [C] operands are read at every channel)";
  return "";
}

} // namespace

/// DFT, MelWeightMatrix (Signal.cpp); Det, RoiAlign (Geometry.cpp).
void populateSignalPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns);
void populateGeometryPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns);

bool lowersSymbolicDims(Operation *op) {
  // TopK with K given at run time: its axis dim is the run's (its other
  // dims stay static).
  if (isa<onnx::TopKOp>(op) && op->hasAttr("onnxcc.data_dims"))
    return true;
  // OneHot with a depth given at run time (its other dims are the indices').
  if (isa<onnx::OneHotOp>(op))
    return true;
  // A Conv whose weights (an input) have symbolic dims.
  if (isa<onnx::ConvOp, onnx::FusedConvOp>(op) && op->getNumOperands() > 1)
    if (auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
        w && !w.hasStaticShape())
      return true;
  return isSymbolicElementwise(op) || hasSymbolicWindow(op) ||
         isa<onnx::MatMulOp, onnx::GemmOp, onnx::ReshapeOp, onnx::FlattenOp, onnx::SqueezeOp,
             onnx::UnsqueezeOp, onnx::TransposeOp, onnx::GatherOp, onnx::GatherElementsOp,
             onnx::GatherNDOp, onnx::SliceOp, onnx::SoftmaxOp,
             onnx::LogSoftmaxOp, onnx::ReduceSumOp, onnx::ReduceMeanOp, onnx::ReduceMaxOp,
             onnx::ReduceMinOp, onnx::ReduceProdOp, onnx::ReduceL1Op, onnx::ReduceL2Op,
             onnx::ReduceLogSumOp, onnx::ReduceLogSumExpOp, onnx::ReduceSumSquareOp,
             onnx::FusedGemmOp, onnx::FusedMatMulOp, onnx::ScaledDotProductAttentionOp,
             onnx::ConstantOfShapeOp, onnx::TriluOp, onnx::RangeOp, onnx::ConcatOp,
             onnx::SplitOp, onnx::PadOp, onnx::BatchNormalizationOp, onnx::ExpandOp,
             onnx::InstanceNormalizationOp, onnx::NonZeroOp, onnx::NonMaxSuppressionOp, onnx::CompressOp,
             onnx::UniqueOp, onnx::HannWindowOp, onnx::HammingWindowOp,
             onnx::BlackmanWindowOp, onnx::MelWeightMatrixOp, onnx::STFTOp, onnx::IfOp, onnx::LoopOp,
             onnx::ScanOp, onnx::StringSplitOp, onnx::CumSumOp, onnx::CumProdOp, onnx::EinsumOp, onnx::TileOp, onnx::ResizeOp,
             onnx::LayerNormalizationOp, onnx::HardmaxOp>(op) ||
         isa<onnx::DepthToSpaceOp, onnx::SpaceToDepthOp, onnx::LRNOp>(op) ||
         // The ai.onnx.ml ops (ClassicalML.cpp): symbolic rows, static features.
         isa<onnx::MLTreeEnsembleOp, onnx::MLTreeEnsembleRegressorOp,
             onnx::MLTreeEnsembleClassifierOp, onnx::MLLabelEncoderOp, onnx::MLCategoryMapperOp,
             onnx::MLBinarizerOp, onnx::MLArrayFeatureExtractorOp, onnx::MLScalerOp,
             onnx::MLNormalizerOp, onnx::MLImputerOp, onnx::MLOneHotEncoderOp,
             onnx::MLLinearRegressorOp, onnx::MLLinearClassifierOp, onnx::MLSVMRegressorOp,
             onnx::MLSVMClassifierOp, onnx::MLFeatureVectorizerOp, onnx::MLZipMapOp,
             onnx::TfIdfVectorizerOp, onnx::MapDictVectorizerOp, onnx::MapCastOp>(op);
}

namespace {
struct ConvertOnnxToLinalgPass
    : public impl::ConvertOnnxToLinalgPassBase<ConvertOnnxToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Record each op's type and ONNX name on its location, so that the code
    // generated from it can say where it came from.
    module.walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "onnx" &&
          !isa<onnx::NoValueOp, onnx::ConstantOp>(op))
        op->setLoc(FusedLoc::get(ctx, {op->getLoc()},
                                 StringAttr::get(ctx, op->getName().stripDialect())));
    });

    OnnxTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                           math::MathDialect, scf::SCFDialect>();
    target.addIllegalDialect<onnx::OnnxDialect>();
    target.addLegalOp<ModuleOp>();
    // Absent optional operands stay until their users are gone (below).
    target.addLegalOp<onnx::NoValueOp>();
    // Calls into runtime-support over buffers (string ops).
    target.addLegalOp<func::CallOp>();
    target.addLegalDialect<bufferization::BufferizationDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      // Declarations of runtime-support functions take buffers.
      return f.isExternal() || (converter.isSignatureLegal(f.getFunctionType()) &&
                                converter.isLegal(&f.getBody()));
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp r) { return converter.isLegal(r.getOperandTypes()); });

    RewritePatternSet patterns(ctx);
    patterns.add<ConstantLowering>(converter, ctx);
    populateElementwisePatterns(converter, patterns);
    populateLinearPatterns(converter, patterns);
    populateDataMovementPatterns(converter, patterns);
    populateReductionPatterns(converter, patterns);
    populateConvolutionPatterns(converter, patterns);
    populateIndexingPatterns(converter, patterns);
    populateLossPatterns(converter, patterns);
    populateResizePatterns(converter, patterns);
    populateMiscPatterns(converter, patterns);
    populateSignalPatterns(converter, patterns);
    populateGeometryPatterns(converter, patterns);
    populateRecurrentPatterns(converter, patterns);
    populateStringPatterns(converter, patterns);
    populateDataDependentPatterns(converter, patterns);
    populateClassicalMLPatterns(converter, patterns);
    populateFusedPatterns(converter, patterns);
    populateAttentionPatterns(converter, patterns);
    populateTransformerPatterns(converter, patterns);
    populateControlFlowPatterns(converter, patterns);
    if (kernels != "none") {
      std::optional<int> isa = kernelIsaFromName(kernels);
      if (!isa) {
        module.emitError() << "unknown kernel ISA '" << kernels
                           << "' (none, generic, avx2 or avx512)";
        return signalPassFailure();
      }
      if (threads < 1 || threads > 256) {
        module.emitError() << "threads must be between 1 and 256, not " << threads;
        return signalPassFailure();
      }
      populateKernelPatterns(converter, patterns, *isa, threads);
      populateSignalKernelPatterns(converter, patterns, *isa, threads);
      populateRecurrentKernelPatterns(converter, patterns, *isa, threads);
      populateQuantizedKernelPatterns(converter, patterns, *isa, threads);
      module->setAttr("onnxcc.kernels_isa", StringAttr::get(ctx, kernels));
      // The C++ emitter splits large parallel loop nests into as many parts.
      if (threads > 1)
        module->setAttr("onnxcc.threads",
                        IntegerAttr::get(IntegerType::get(ctx, 64), threads));
    }
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    // Symbolic shapes of every value; each function gets its symbols (the
    // dim_params of its inputs, in order) as leading index arguments.
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      linearModelsAsGemm(func);
      bindSymbols(func);
      {
        // Shapes the lowering can use; an op whose shape function objects is
        // reported by the pattern that cannot lower it.
        ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
        (void)onnx::inferShapesInFunction(func, &converter.shapes);
      }
      // Values nothing uses need no lowering (e.g. the shape computations a
      // lowered Reshape no longer reads).
      bool changed = true;
      while (changed) {
        changed = false;
        SmallVector<Operation *> ops;
        func.walk([&](Operation *op) { ops.push_back(op); });
        for (Operation *op : llvm::reverse(ops))
          if (op->getDialect() && op->getDialect()->getNamespace() == "onnx" &&
              op->getNumRegions() == 0 && op->use_empty() && op->getNumResults() > 0) {
            op->erase();
            changed = true;
          }
      }
      addSymbolArguments(func, converter);
      defineDerivedSymbols(func, converter);
      addDataDimPlaceholders(func, converter);
      checkDimConstraints(func, converter);
    }

    // The ops lowered with their symbolic dims: those of lowersSymbolicDims,
    // and with kernels the quantized ops whose kernels take any rows.
    auto takesSymbolicDims = [&](Operation *op) {
      return lowersSymbolicDims(op) ||
             (kernels != "none" && (quantizedKernelTakesSymbolicDims(op) ||
                                    recurrentKernelTakesSymbolicDims(op)));
    };
    // Ops whose symbolic dims they treat independently run on static slices.
    SmallVector<Operation *> candidates;
    module.walk([&](Operation *op) {
      // Resize lowers symbolic dims it scales by a constant; dims it keeps
      // (a batch) still split off first, so that scales given at run time
      // work there.
      if (op->getDialect() && op->getDialect()->getNamespace() == "onnx" &&
          (!takesSymbolicDims(op) || isa<onnx::ResizeOp>(op)) && op->getNumResults() > 0)
        if (auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
            t && !t.hasStaticShape())
          candidates.push_back(op);
    });
    for (Operation *op : candidates)
      splitIndependentDims(op, converter);

    // The first op that cannot be lowered is the error the user sees.
    Operation *failedOp = nullptr;
    module.walk([&](Operation *op) {
      if (failedOp || !op->getDialect() || op->getDialect()->getNamespace() != "onnx")
        return;
      // Convolutions read W through static loops: weights given at run time
      // with symbolic dims (other than ones bound above, and a Conv's output
      // channels in one group) are refused here.
      // A Conv takes symbolic output channels in one group, and symbolic
      // kernel dims with explicit pads.
      auto convTakes = [&](RankedTensorType w) {
        auto group = op->getAttrOfType<IntegerAttr>("group");
        auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
        bool same = autoPad && autoPad.getValue().starts_with("SAME");
        bool kernelDynamic = llvm::any_of(w.getShape().drop_front(2), ShapedType::isDynamic);
        return isa<onnx::ConvOp, onnx::FusedConvOp>(op) && w.getRank() >= 3 &&
               (!w.isDynamicDim(1) || !group || group.getInt() == 1) &&
               (!w.isDynamicDim(0) || !group || group.getInt() == 1) &&
               (!kernelDynamic || !same);
      };
      if (isa<onnx::ConvOp, onnx::FusedConvOp, onnx::ConvTransposeOp, onnx::ConvIntegerOp>(op))
        if (auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
            w && !w.hasStaticShape() && !convTakes(w)) {
          failedOp = op;
          std::string dims;
          if (auto shape = converter.shapeOf(op->getOperand(1)))
            for (const onnx::Dim &d : *shape)
              dims += (dims.empty() ? "" : ", ") + d.str();
          op->emitError() << "cannot lower '" << op->getName()
                          << "' whose weights W have symbolic dims [" << dims
                          << "] (pass --shape to fix them)";
          return;
        }
      if (op->getNumOperands() > 0 && op->getNumResults() > 0)
        if (std::string why = symbolicMismatch(op, converter); !why.empty()) {
          failedOp = op;
          op->emitError() << "cannot lower '" << op->getName() << "' with symbolic dims: "
                          << why << " (pass --shape to fix them)";
          return;
        }
      for (auto [i, t] : llvm::enumerate(op->getResultTypes())) {
        auto r = dyn_cast<RankedTensorType>(t);
        if (isa<onnx::SeqType>(t)) {
          failedOp = op;
          op->emitError() << "cannot lower '" << op->getName()
                          << "': sequences are compiled only when their length and one "
                             "element shape are known at compile time";
          return;
        }
        std::string controlFlow = controlFlowRefusal(op);
        if (!r && !isa<NoneType>(t)) {
          failedOp = op;
          // Squeeze without axes drops every dim of 1: with a dim that is
          // not static, the rank itself depends on its value.
          if (isa<onnx::SqueezeOp>(op) &&
              (op->getNumOperands() == 1 || isa<NoneType>(op->getOperand(1).getType())))
            controlFlow = "it has no axes and its input has dims known only at run time, so its "
                          "result's rank depends on their values (give Squeeze axes, or pass "
                          "--shape)";
          op->emitError() << "cannot lower '" << op->getName() << "': "
                          << (controlFlow.empty() ? "its result shape is not known at compile time"
                                                  : controlFlow);
          return;
        }
        if (!r || r.hasStaticShape())
          continue;
        auto shape = converter.shapeOf(op->getResult(i));
        for (int64_t d = 0; d < r.getRank(); ++d) {
          if (!r.isDynamicDim(d) || (shape && (*shape)[d].isSymbolic()))
            continue;
          failedOp = op;
          if (!controlFlow.empty())
            op->emitError() << "cannot lower '" << op->getName() << "': " << controlFlow;
          else
            op->emitError() << "cannot lower '" << op->getName() << "': dim " << d
                            << " of its result is not known at compile time"
                            << (op->hasAttr("onnxcc.data_dims") ||
                                        isa<onnx::RangeOp, onnx::StringSplitOp, onnx::TileOp, onnx::PadOp,
                                            onnx::ExpandOp, onnx::ConstantOfShapeOp,
                                            onnx::ReshapeOp, onnx::OneHotOp, onnx::ResizeOp>(op)
                                    ? " (it depends on the data: give it a bound with "
                                      "--bound NODE=N)"
                                    : "");
          return;
        }
        if (!takesSymbolicDims(op)) {
          failedOp = op;
          std::string dims;
          for (const onnx::Dim &d : *shape)
            dims += (dims.empty() ? "" : ", ") + d.str();
          op->emitError() << "cannot lower '" << op->getName() << "' with symbolic dims ["
                          << dims << "] yet (pass --shape to fix them)";
          return;
        }
      }
    });
    if (failedOp)
      return signalPassFailure();
    ConversionConfig config;
    if (failed(applyFullConversion(module, target, std::move(patterns), config)))
      return signalPassFailure();
    if (failed(replaceDataDimPlaceholders(converter)))
      return signalPassFailure();
    module.walk([](onnx::NoValueOp op) {
      if (op->use_empty())
        op->erase();
    });

  }
};
} // namespace
} // namespace onnxcc::lowering
