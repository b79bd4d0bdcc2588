//===- HalideEmitter.cpp - linalg on tensors to a Halide generator -------===//
//
// The input is one func.func over static tensors, right after the ONNX to
// linalg conversion (buildHalideLoweringPipeline): linalg.generic (named ops
// generalized), tensor data movement, arith/math scalars and constants.
// Every tensor value becomes a Halide Func (a model input, a weight buffer
// or a definition):
//
//   linalg.generic      a Func over the loop dims of its output map; the
//                       other dims become an RDom and an update definition
//   tensor.* slices, reshapes, concat, pad
//                       index functions (pure definitions that select and
//                       divide indices)
//   dense constants     Input buffers filled by NAME.cpp from the weights
//
// Each scalar SSA value becomes a C++ `Expr` local of the generator, so
// shared subexpressions stay shared. Halide's dims run innermost first: a
// row-major ONNX tensor of dims [n0, ..., nk] is called as f(dk, ..., d0).
// Names from the model never reach the generator: its buffers and Funcs
// are numbered (in0, w0, out0, f3), and NAME.h/NAME.cpp hold the names as
// escaped literals (HalideWrapper.cpp).
//
//===----------------------------------------------------------------------===//
#include "codegen/halide/HalideEmitter.h"
#include "codegen/SmallFloats.h"
#include "codegen/SourceText.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc::codegen {
namespace {

Error errorAt(Operation *op, const Twine &message) {
  std::string text = message.str();
  op->emitError(text);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + op->getName().getStringRef().str() + "': " + text);
}

// float8/float4 tensors (smallFloatName) hold one bit pattern per byte (ABI.md),
// Halide UInt(8); only truncf to them and extf from them compute on their
// values, with the generator's f32_to_NAME / NAME_to_f32.

/// The Halide type of an element (signless integers as signed; index as
/// int32), or "" when Halide cannot hold it.
std::string halideType(Type t) {
  if (!smallFloatName(t).empty())
    return "UInt(8)";
  if (t.isF32())
    return "Float(32)";
  if (t.isF64())
    return "Float(64)";
  if (t.isF16())
    return "Float(16)";
  if (t.isBF16())
    return "BFloat(16)";
  if (t.isIndex())
    return "Int(32)";
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.getWidth() == 1)
      return "Bool()";
    if (i.getWidth() == 8 || i.getWidth() == 16 || i.getWidth() == 32 || i.getWidth() == 64)
      return "Int(" + std::to_string(i.getWidth()) + ")";
  }
  return "";
}

/// The C++ element type of a Halide buffer of `t`.
std::string bufferElement(Type t) {
  if (!smallFloatName(t).empty())
    return "uint8_t";
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isF16())
    return "float16_t";
  if (t.isBF16())
    return "bfloat16_t";
  if (t.isInteger(1))
    return "bool";
  return "int" + std::to_string(t.getIntOrFloatBitWidth()) + "_t";
}

std::string unsignedOf(Type t) {
  return "UInt(" + std::to_string(t.isIndex() ? 32 : t.getIntOrFloatBitWidth()) + ")";
}

std::string floatLiteral(const APFloat &v, Type t) {
  std::string type = halideType(t);
  if (v.isNaN())
    return "make_const(" + type + ", std::numeric_limits<double>::quiet_NaN())";
  if (v.isInfinity())
    return std::string("make_const(") + type + ", " + (v.isNegative() ? "-" : "") +
           "std::numeric_limits<double>::infinity())";
  // Exact: every float16, bfloat16 and float32 value is a double.
  APFloat wide = v;
  bool lost = false;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  double d = wide.convertToDouble();
  char buf[64];
  snprintf(buf, sizeof buf, "%a", d);
  return "make_const(" + type + ", " + buf + ")";
}

/// A float8/float4 value as its bit pattern (a UInt(8) Expr).
std::string smallFloatLiteral(const APFloat &v) {
  return "make_const(UInt(8), " + std::to_string(v.bitcastToAPInt().getZExtValue()) + ")";
}

std::string intLiteral(const APInt &v, Type t) {
  if (t.isInteger(1))
    return v.isZero() ? "const_false()" : "const_true()";
  return "make_const(" + halideType(t) + ", int64_t(" + std::to_string(v.getSExtValue()) +
         "LL))";
}

bool isHalfFloat(Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 16; }

/// The operands of an arith/math op as Exprs; 16-bit floats widened to
/// float32 (Halide's float16/bfloat16 math and is_nan do not compile on
/// every target), which is also the ABI's rule: computed in float, rounded
/// to the type after each op (see narrowResult).
void widenHalfOperands(Operation &op, SmallVectorImpl<std::string> &a) {
  if (isa<arith::BitcastOp>(op))
    return;
  for (auto [k, v] : llvm::enumerate(op.getOperands()))
    if (isHalfFloat(v.getType()))
      a[k] = "cast(Float(32), " + a[k] + ")";
}

/// `expr`, computed in float32 from widened operands, in the result type.
std::string narrowResult(Operation &op, const std::string &expr) {
  if (isa<arith::BitcastOp, arith::TruncFOp>(op) || op.getNumResults() != 1)
    return expr;
  Type t = op.getResult(0).getType();
  if (!isHalfFloat(t))
    return expr;
  for (Value v : op.getOperands())
    if (isHalfFloat(v.getType()) || isa<math::MathDialect>(op.getDialect()))
      return "cast(" + halideType(t) + ", " + expr + ")";
  return expr;
}

/// Halide's calls run innermost first.
std::string call(StringRef f, ArrayRef<std::string> onnxOrder) {
  std::string s = f.str() + "(";
  for (size_t i = 0; i < onnxOrder.size(); ++i)
    s += (i ? ", " : "") + onnxOrder[onnxOrder.size() - 1 - i];
  return s + ")";
}

std::string dimVar(int64_t d) { return "d" + std::to_string(d); }

/// Whether float bit patterns of `ft` (packed, raw) hold an infinity or a
/// NaN: an all-ones exponent for the IEEE layouts (float16, bfloat16,
/// float32, float64), APFloat for the others.
bool rawHasNonFinite(FloatType ft, ArrayRef<char> raw) {
  unsigned width = ft.getWidth(), bytes = width / 8;
  if (!bytes || width % 8)
    return false;
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  bool ieee = ft.isF16() || ft.isBF16() || ft.isF32() || ft.isF64();
  unsigned mantissa = APFloat::semanticsPrecision(sem) - 1;
  uint64_t exponent = ((uint64_t(1) << (width - 1 - mantissa)) - 1) << mantissa;
  for (size_t at = 0; at + bytes <= raw.size(); at += bytes) {
    uint64_t bits = 0;
    memcpy(&bits, raw.data() + at, bytes);
    if (ieee ? (bits & exponent) == exponent
             : !APFloat(sem, APInt(width, bits)).isFinite())
      return true;
  }
  return false;
}

/// Whether a float constant (scalar or tensor, inline or a blob) holds an
/// infinity or a NaN.
bool constantIsNonFinite(arith::ConstantOp op) {
  auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(op.getType()));
  if (!ft)
    return false;
  if (auto f = dyn_cast<FloatAttr>(op.getValue()))
    return !f.getValue().isFinite();
  if (auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue())) {
    if (dense.isSplat())
      return !dense.getSplatValue<APFloat>().isFinite();
    return rawHasNonFinite(ft, dense.getRawData());
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(op.getValue()))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return rawHasNonFinite(ft, blob->getData());
  return false;
}

/// The generator's conversions between float32 and the 8-bit and 4-bit
/// float types, on the bits (exact, whatever Halide's float flags), as
/// runtime-support/onnxcc_rt.h's: round to nearest even, no saturation (a
/// value past the largest finite one becomes inf in E5M2, NaN in the FN and
/// FNUZ types, the largest value in E2M1; Cast's saturate clamps before).
const char *const kSmallFloatHelpers = R"cpp(// float8/float4 <-> float32 on the bits.
Expr u32(uint64_t v) { return make_const(UInt(32), v); }
// |f| rounded to nearest even on the grid of a float with M mantissa bits
// and exponent bias B: the code without sign, maybe past the largest one.
Expr small_float_code(Expr f, int M, int B) {
  Expr u = reinterpret(UInt(32), f) & u32(0x7fffffff);
  Expr e32 = u >> 23;
  int shift = 23 - M;
  Expr r = u - u32(uint64_t(127 - B) << 23);
  Expr normal = (r + u32((1u << (shift - 1)) - 1) + ((r >> shift) & u32(1))) >> shift;
  Expr sig = (u & u32(0x7fffff)) | u32(0x800000);
  // A subnormal of the small type: sig * 2^(e32 - 150) on the grid 2^(1 - B - M).
  Expr s = min(u32(uint64_t(shift + 128 - B)) - min(e32, u32(200)), u32(31));
  Expr half = (u32(1) << (s - u32(1))) - u32(1);
  Expr sub = select(s > u32(24), u32(0), (sig + half + ((sig >> s) & u32(1))) >> s);
  return select(e32 >= u32(uint64_t(128 - B)), normal, e32 == u32(0), u32(0), sub);
}
Expr f32_sign8(Expr f, int at) {
  return cast(UInt(8), (reinterpret(UInt(32), f) >> 31) << at);
}
Expr f32_abs_bits(Expr f) { return reinterpret(UInt(32), f) & u32(0x7fffffff); }
Expr f32_nan(Expr sign) {
  return reinterpret(Float(32), select(sign, u32(0xffc00000), u32(0x7fc00000)));
}
Expr small_float_value(Expr b, int M, int B, int E) {
  Expr u = cast(UInt(32), b);
  Expr sign = (u >> (M + E)) & u32(1);
  Expr exp = (u >> M) & u32((1u << E) - 1);
  Expr mant = u & u32((1u << M) - 1);
  Expr normal = reinterpret(Float(32), (sign << 31) | ((exp + u32(127 - B)) << 23) | (mant << (23 - M)));
  Expr sub = cast(Float(32), mant) * make_const(Float(32), std::ldexp(1.0, 1 - B - M));
  return select(exp == u32(0), select(sign == u32(1), -sub, sub), normal);
}
Expr f8e4m3fn_to_f32(Expr b) {
  return select((b & 0x7f) == 0x7f, f32_nan((b & 0x80) != 0), small_float_value(b, 3, 7, 4));
}
Expr f32_to_f8e4m3fn(Expr f) {
  Expr sign = f32_sign8(f, 7), a = f32_abs_bits(f), code = small_float_code(f, 3, 7);
  return select(a >= u32(0x7f800000) || code > u32(0x7e), sign | 0x7f, a == u32(0), sign,
                sign | cast(UInt(8), code));
}
// The FNUZ types: no inf, no -0, NaN is 0x80.
Expr fnuz_to_f32(Expr b, int M, int B) {
  return select(b == 0x80, f32_nan(const_false()), small_float_value(b, M, B, 7 - M));
}
Expr f32_to_fnuz(Expr f, int M, int B) {
  Expr sign = f32_sign8(f, 7), a = f32_abs_bits(f), code = small_float_code(f, M, B);
  return select(a >= u32(0x7f800000) || code > u32(0x7f), make_const(UInt(8), 0x80),
                code == u32(0), make_const(UInt(8), 0), sign | cast(UInt(8), code));
}
Expr f8e4m3fnuz_to_f32(Expr b) { return fnuz_to_f32(b, 3, 8); }
Expr f32_to_f8e4m3fnuz(Expr f) { return f32_to_fnuz(f, 3, 8); }
Expr f8e5m2_to_f32(Expr b) {
  Expr inf = reinterpret(Float(32), select((b & 0x80) != 0, u32(0xff800000), u32(0x7f800000)));
  return select((b & 0x7f) > 0x7c, f32_nan((b & 0x80) != 0), (b & 0x7f) == 0x7c, inf,
                small_float_value(b, 2, 15, 5));
}
Expr f32_to_f8e5m2(Expr f) {
  Expr sign = f32_sign8(f, 7), a = f32_abs_bits(f), code = small_float_code(f, 2, 15);
  return select(a > u32(0x7f800000), sign | 0x7e, a == u32(0x7f800000) || code > u32(0x7b),
                sign | 0x7c, a == u32(0), sign, sign | cast(UInt(8), code));
}
Expr f8e5m2fnuz_to_f32(Expr b) { return fnuz_to_f32(b, 2, 16); }
Expr f32_to_f8e5m2fnuz(Expr f) { return f32_to_fnuz(f, 2, 16); }
Expr f4e2m1_to_f32(Expr b) { return small_float_value(b & 0xf, 1, 1, 2); }
Expr f32_to_f4e2m1(Expr f) {
  Expr sign = f32_sign8(f, 3), a = f32_abs_bits(f), code = small_float_code(f, 1, 1);
  return select(a > u32(0x7f800000), make_const(UInt(8), 0x8), a == u32(0), sign,
                a == u32(0x7f800000) || code > u32(7), sign | 7, sign | cast(UInt(8), code));
}
Expr f8e8m0_to_f32(Expr b) {
  Expr u = cast(UInt(32), b);
  return select(b == 0xff, f32_nan(const_false()),
                reinterpret(Float(32), select(u == u32(0), u32(0x00400000), u << 23)));
}
Expr f32_to_f8e8m0(Expr f) { return cast(UInt(8), (reinterpret(UInt(32), f) >> 23) & u32(0xff)); }

)cpp";

/// A run-time check of onnxcc_rt (onnxcc_rt.h): the relation it asks of its
/// operands and run()'s status when that does not hold.
struct CheckKind {
  StringRef relation;
  int status;
};
std::optional<CheckKind> checkKind(StringRef callee) {
  return llvm::StringSwitch<std::optional<CheckKind>>(callee)
      .Case("onnxcc_check_equal", CheckKind{"==", 9})
      .Case("onnxcc_check_at_least", CheckKind{">=", 9})
      .Case("onnxcc_check_differs", CheckKind{"!=", 9})
      .Case("onnxcc_check_broadcast", CheckKind{"broadcast", 9})
      .Case("onnxcc_check_bound", CheckKind{"<=", 10})
      .Case("onnxcc_check_no_random", CheckKind{"not", 15})
      .Case("onnxcc_check_position", CheckKind{"position", 16})
      .Default(std::nullopt);
}

class Emitter {
public:
  explicit Emitter(const HalideEmitOptions &options) : options(options) {}
  Expected<HalideModel> emit(ModuleOp module);

private:
  std::string freshExpr() { return "e" + std::to_string(nextExpr++); }
  std::string freshFunc() { return "f" + std::to_string(nextFunc++); }
  /// The Func (or buffer) holding tensor `v`.
  Expected<std::string> funcOf(Value v, Operation *user);
  /// The Expr local of scalar `v`.
  Expected<std::string> exprOf(Value v, Operation *user);
  std::string declare(Value v, const std::string &expr, StringRef indent);
  /// `expr` under strict_float where `op`'s float result may be non-finite.
  std::string strictIfNonFinite(Operation &op, const std::string &expr) const {
    if (op.getNumResults() != 1 || !isa<FloatType>(op.getResult(0).getType()) ||
        !nonFinite.contains(op.getResult(0)) || isa<arith::ConstantOp>(op) || inTupleBody)
      return expr;
    return "strict_float(" + expr + ")";
  }
  std::string pureVars(int64_t rank) const {
    SmallVector<std::string> vars;
    for (int64_t d = 0; d < rank; ++d)
      vars.push_back(dimVar(d));
    return call("", vars);
  }
  std::string newFunc(Value v, const Twine &comment);

  Error emitOp(Operation &op);
  Error emitScalar(Operation &op, StringRef indent);
  Error emitArith(Operation &op, StringRef indent);
  Error emitMath(Operation &op, StringRef indent);
  Error emitConstant(arith::ConstantOp op);
  Error emitGeneric(linalg::GenericOp op);
  Error emitExtractSlice(tensor::ExtractSliceOp op);
  Error emitInsertSlice(tensor::InsertSliceOp op);
  Error emitReshape(Operation *op, Value src, Value result,
                    ArrayRef<ReassociationIndices> groups, bool expand);
  Error emitConcat(tensor::ConcatOp op);
  Error emitPad(tensor::PadOp op);
  Error emitSchedule(func::FuncOp func);

  /// Values that may hold an infinity or NaN that the model's constants
  /// put there (see findNonFinite).
  void findNonFinite(func::FuncOp func);
  llvm::DenseSet<Value> nonFinite;

  /// The index `v`, which may be a static or a dynamic size/offset.
  Expected<std::string> indexOf(OpFoldResult v, Operation *user);

  const HalideEmitOptions &options;
  llvm::DenseMap<Value, std::string> names;
  /// Funcs that are reductions (compute_root, tiled) and the loop extents of
  /// their pure dims (innermost last, ONNX order).
  struct Heavy {
    std::string func;
    SmallVector<int64_t> extents;
    bool hasUpdate;
    /// Dims of its RDom (r<N> for Func f<N>).
    unsigned reductionDims = 0;
  };
  SmallVector<Heavy> heavy;
  /// Funcs defined here that more than one op reads.
  SmallVector<std::string> shared;
  /// The conditions of the run-time checks (onnxcc_rt::check_* calls: a
  /// dim that values given at run time decide against the one the model
  /// declares, ...) and the status of each; every output requires them all.
  SmallVector<std::pair<std::string, int>> checks;
  std::string body;
  llvm::raw_string_ostream os{body};
  std::string members;
  llvm::raw_string_ostream ms{members};
  SmallVector<RankedTensorType> weightTypes;
  SmallVector<size_t> weightOffsets;
  std::string weights;
  unsigned nextExpr = 0, nextFunc = 0, maxRank = 0;
  bool usesSmallFloats = false;
  /// Emitting the body of a Func of Tuples, which Halide 14 miscompiles
  /// with strict_float or order_bits (MaxPool's indices came out 0): it
  /// keeps fast math and float comparisons.
  bool inTupleBody = false;
};

std::string Emitter::declare(Value v, const std::string &expr, StringRef indent) {
  std::string name = freshExpr();
  os << indent << "Expr " << name << " = " << expr << ";\n";
  names[v] = name;
  return name;
}

// Halide compiles float arithmetic with LLVM's fast-math flags, no-infs and
// no-NaNs among them, and its simplifier treats floats as reals: `x +
// select(c, 0, -inf)` became `x`, dropping an attention mask. The values an
// infinite or NaN constant of the model flows into are computed with
// strict_float, and their comparisons on the bits (order_bits).
//
// A max or min reduction over a non-empty domain stops the flow (a pooling
// window padded with -inf holds a real element): otherwise every layer after
// a MaxPool would lose fast math. Infinities that come from the inputs at run
// time get Halide's default float semantics.
void Emitter::findNonFinite(func::FuncOp func) {
  auto anyIn = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value v) { return nonFinite.contains(v); });
  };
  auto isMinMax = [](Operation *op) {
    return isa<arith::MaxNumFOp, arith::MinNumFOp, arith::MaximumFOp, arith::MinimumFOp>(op);
  };
  func.walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (constantIsNonFinite(c))
        nonFinite.insert(c.getResult());
      return WalkResult::advance();
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic) {
      // Results follow their operands.
      if (anyIn(op->getOperands()))
        nonFinite.insert(op->result_begin(), op->result_end());
      return WalkResult::advance();
    }
    Block &block = generic.getRegion().front();
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    bool nonEmpty = generic.getNumReductionLoops() > 0 &&
                    llvm::all_of(ranges, [](int64_t r) { return r > 0; });
    for (OpOperand &operand : generic->getOpOperands())
      if (nonFinite.contains(operand.get()))
        nonFinite.insert(block.getArgument(operand.getOperandNumber()));
    // Walk the body now to decide the results.
    for (Operation &inner : block.without_terminator())
      inner.walk<WalkOrder::PreOrder>([&](Operation *nested) {
        if (auto c = dyn_cast<arith::ConstantOp>(nested)) {
          if (constantIsNonFinite(c))
            nonFinite.insert(c.getResult());
        } else if (anyIn(nested->getOperands())) {
          nonFinite.insert(nested->result_begin(), nested->result_end());
        }
      });
    auto yield = cast<linalg::YieldOp>(block.getTerminator());
    for (auto [k, v] : llvm::enumerate(yield.getOperands())) {
      Operation *def = v.getDefiningOp();
      if (!nonFinite.contains(v))
        continue;
      if (nonEmpty && def && isMinMax(def) && def->getBlock() == &block)
        continue;
      nonFinite.insert(generic->getResult(k));
    }
    // Its body was walked above, after its block arguments were marked.
    return WalkResult::skip();
  });
}

std::string Emitter::newFunc(Value v, const Twine &comment) {
  std::string f = freshFunc();
  names[v] = f;
  auto type = cast<RankedTensorType>(v.getType());
  maxRank = std::max<unsigned>(maxRank, type.getRank());
  os << "    Func " << f << "(\"" << f << "\"); // " << comment.str() << "\n";
  return f;
}

Expected<std::string> Emitter::funcOf(Value v, Operation *user) {
  auto it = names.find(v);
  if (it == names.end())
    return errorAt(user, "operand defined by an op the Halide target does not support");
  return it->second;
}

Expected<std::string> Emitter::exprOf(Value v, Operation *user) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto a = dyn_cast<TypedAttr>(c.getValue()); a && !isa<ShapedType>(a.getType())) {
      // A constant defined outside the current block: declared once, at the
      // top of generate().
      if (Error e = emitScalar(*c, "    "))
        return std::move(e);
      return names[v];
    }
  return errorAt(user, "operand defined by an op the Halide target does not support");
}

Expected<std::string> Emitter::indexOf(OpFoldResult v, Operation *user) {
  if (auto a = dyn_cast<Attribute>(v))
    return std::to_string(cast<IntegerAttr>(a).getInt());
  auto e = exprOf(cast<Value>(v), user);
  if (!e)
    return e.takeError();
  return "cast(Int(32), " + *e + ")";
}

Error Emitter::emitConstant(arith::ConstantOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!type)
    return emitScalar(*op, "    ");
  if (halideType(type.getElementType()).empty())
    return errorAt(op, "tensor element type the Halide target does not support");
  if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue()); dense && dense.isSplat()) {
    std::string f = newFunc(op.getResult(), "splat constant");
    Type elem = type.getElementType();
    std::string lit = !smallFloatName(elem).empty()
                          ? smallFloatLiteral(dense.getSplatValue<APFloat>())
                      : isa<FloatType>(elem) ? floatLiteral(dense.getSplatValue<APFloat>(), elem)
                                             : intLiteral(dense.getSplatValue<APInt>(), elem);
    os << "    " << f << pureVars(type.getRank()) << " = " << lit << ";\n";
    return Error::success();
  }
  // Weights: an Input buffer that NAME.cpp fills from the embedded blob.
  int64_t elemBytes = (type.getElementTypeBitWidth() + 7) / 8;
  std::string bytes;
  if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue())) {
    if (dense.getElementType().isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        bytes.push_back(b ? 1 : 0);
    } else {
      ArrayRef<char> raw = dense.getRawData();
      bytes.assign(raw.data(), raw.size());
    }
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(op.getValue())) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return errorAt(op, "constant blob has no data");
    ArrayRef<char> raw = blob->getData();
    bytes.assign(raw.data(), raw.size());
  } else {
    return errorAt(op, "unsupported constant attribute");
  }
  if (static_cast<int64_t>(bytes.size()) != type.getNumElements() * elemBytes)
    return errorAt(op, "constant has the wrong number of bytes");
  std::string w = "w" + std::to_string(weightTypes.size());
  weights.resize((weights.size() + 63) / 64 * 64, '\0');
  weightOffsets.push_back(weights.size());
  weights += bytes;
  weightTypes.push_back(type);
  ms << "  Input<Buffer<" << bufferElement(type.getElementType()) << ", "
     << std::max<int64_t>(type.getRank(), 1) << ">> " << w << "{\"" << w << "\"};\n";
  names[op.getResult()] = w;
  if (!type.getRank()) {
    std::string f = newFunc(op.getResult(), "scalar weight");
    os << "    " << f << "() = " << w << "(0);\n";
  }
  return Error::success();
}

Error Emitter::emitArith(Operation &op, StringRef indent) {
  SmallVector<std::string> a;
  for (Value v : op.getOperands()) {
    auto e = exprOf(v, &op);
    if (!e)
      return e.takeError();
    a.push_back(*e);
  }
  // float8/float4: bit patterns, converted from and to float32 by the
  // generator's helpers; a select or a bitcast moves the bits.
  auto isSmall = [](Value v) { return !smallFloatName(v.getType()).empty(); };
  if (llvm::any_of(op.getOperands(), isSmall) || llvm::any_of(op.getResults(), isSmall)) {
    usesSmallFloats = true;
    Type rt = op.getResult(0).getType();
    if (isa<arith::TruncFOp>(op) && isSmall(op.getResult(0))) {
      Type from = op.getOperand(0).getType();
      std::string f32 = from.isF32() ? a[0] : "cast(Float(32), " + a[0] + ")";
      declare(op.getResult(0), "f32_to_" + smallFloatName(rt).str() + "(" + f32 + ")", indent);
      return Error::success();
    }
    if (isa<arith::ExtFOp>(op) && isSmall(op.getOperand(0)) && !isSmall(op.getResult(0))) {
      std::string f32 = smallFloatName(op.getOperand(0).getType()).str() + "_to_f32(" + a[0] + ")";
      declare(op.getResult(0), rt.isF32() ? f32 : "cast(" + halideType(rt) + ", " + f32 + ")",
              indent);
      return Error::success();
    }
    if (isa<arith::SelectOp>(op)) {
      declare(op.getResult(0), "select(" + a[0] + ", " + a[1] + ", " + a[2] + ")", indent);
      return Error::success();
    }
    return errorAt(&op, "element type the Halide target does not support");
  }
  widenHalfOperands(op, a);
  Type rt = op.getNumResults() ? op.getResult(0).getType() : Type();
  std::string ht = rt ? halideType(rt) : "";
  if (rt && ht.empty())
    return errorAt(&op, "element type the Halide target does not support");
  auto bin = [&](StringRef sym) { return "(" + a[0] + " " + sym.str() + " " + a[1] + ")"; };
  auto asUnsigned = [&](const std::string &x, Type t) {
    return "reinterpret(" + unsignedOf(t) + ", " + x + ")";
  };
  auto fromUnsigned = [&](const std::string &x) { return "reinterpret(" + ht + ", " + x + ")"; };
  auto unsignedBin = [&](StringRef f) {
    Type t = op.getOperand(0).getType();
    return fromUnsigned(f.str() + "(" + asUnsigned(a[0], t) + ", " + asUnsigned(a[1], t) + ")");
  };
  auto unsignedOp = [&](StringRef sym) {
    Type t = op.getOperand(0).getType();
    return "(" + asUnsigned(a[0], t) + " " + sym.str() + " " + asUnsigned(a[1], t) + ")";
  };
  auto castTo = [&](const std::string &x) { return "cast(" + ht + ", " + x + ")"; };
  // Signed 32- and 64-bit arithmetic wraps (ABI.md), where Halide assumes it
  // does not overflow: computed on the unsigned bits. Index arithmetic and
  // narrower types (which Halide wraps itself) stay as they are.
  auto wrapping = [&](StringRef sym) {
    auto it = dyn_cast<IntegerType>(rt);
    if (!it || (it.getWidth() != 32 && it.getWidth() != 64))
      return bin(sym);
    Type t = op.getOperand(0).getType();
    return fromUnsigned("(" + asUnsigned(a[0], t) + " " + sym.str() + " " + asUnsigned(a[1], t) +
                        ")");
  };
  auto negated = [&](const std::string &x) {
    Type t = op.getOperand(0).getType();
    return fromUnsigned("(make_zero(" + unsignedOf(t) + ") - " + asUnsigned(x, t) + ")");
  };
  auto safeDivisor = [&] {
    return "select(" + a[1] + " == 0 || " + a[1] + " == -1, make_one(" + ht + "), " + a[1] + ")";
  };
  auto tooFar = [&](Type t) {
    return "(" + asUnsigned(a[1], t) + " >= make_const(" + unsignedOf(t) + ", " +
           std::to_string(t.getIntOrFloatBitWidth()) + "))";
  };
  auto safeShift = [&](Type t) {
    return "select(" + tooFar(t) + ", make_zero(" + unsignedOf(t) + "), " + asUnsigned(a[1], t) +
           ")";
  };
  bool isBool = rt && rt.isInteger(1);
  std::optional<std::string> expr =
      llvm::TypeSwitch<Operation *, std::optional<std::string>>(&op)
          .Case<arith::AddFOp>([&](auto) { return bin("+"); })
          .Case<arith::SubFOp>([&](auto) { return bin("-"); })
          .Case<arith::MulFOp>([&](auto) { return bin("*"); })
          .Case<arith::AddIOp>([&](auto) { return wrapping("+"); })
          .Case<arith::SubIOp>([&](auto) { return wrapping("-"); })
          .Case<arith::MulIOp>([&](auto) { return wrapping("*"); })
          .Case<arith::DivFOp>([&](auto) { return bin("/"); })
          .Case<arith::NegFOp>([&](auto) { return "(-" + a[0] + ")"; })
          .Case<arith::RemFOp>([&](auto) {
            return "(" + a[0] + " - " + a[1] + " * trunc(" + a[0] + " / " + a[1] + "))";
          })
          .Case<arith::DivSIOp>([&](auto) {
            // x / 0 is 0 and MIN / -1 is MIN (ABI.md): the division never
            // sees 0 or -1 (the x86 division traps on MIN / -1).
            return "select(" + a[1] + " == 0, make_zero(" + ht + "), select(" + a[1] +
                   " == -1, " + negated(a[0]) + ", div_round_to_zero(" + a[0] + ", " +
                   safeDivisor() + ")))";
          })
          .Case<arith::RemSIOp>([&](auto) {
            return "select(" + a[1] + " == 0 || " + a[1] + " == -1, make_zero(" + ht +
                   "), mod_round_to_zero(" + a[0] + ", " + safeDivisor() + "))";
          })
          .Case<arith::FloorDivSIOp>([&](auto) {
            // Halide's division rounds down for a positive divisor and up
            // for a negative one; floor division is that with the signs of
            // both operands flipped when the divisor is negative.
            return "select(" + a[1] + " < 0, (-" + a[0] + ") / (-" + a[1] + "), " + a[0] + " / " +
                   a[1] + ")";
          })
          .Case<arith::CeilDivSIOp>([&](auto) {
            return "(-select(" + a[1] + " < 0, " + a[0] + " / (-" + a[1] + "), (-" + a[0] +
                   ") / " + a[1] + "))";
          })
          .Case<arith::DivUIOp, arith::RemUIOp>([&](auto) {
            // Halide's unsigned x / 0 and x % 0 are 0, as ABI.md asks.
            return fromUnsigned(unsignedOp(isa<arith::DivUIOp>(op) ? "/" : "%"));
          })
          .Case<arith::MaxSIOp, arith::MaxNumFOp>([&](auto) { return "max(" + a[0] + ", " + a[1] + ")"; })
          .Case<arith::MinSIOp, arith::MinNumFOp>([&](auto) { return "min(" + a[0] + ", " + a[1] + ")"; })
          .Case<arith::MaxUIOp>([&](auto) { return unsignedBin("max"); })
          .Case<arith::MinUIOp>([&](auto) { return unsignedBin("min"); })
          .Case<arith::MaximumFOp, arith::MinimumFOp>([&](auto) {
            // NaN-propagating.
            bool isMax = isa<arith::MaximumFOp>(op);
            return "select(nan_bits(" + a[0] + "), " + a[0] + ", select(nan_bits(" + a[1] + "), " +
                   a[1] + ", " + (isMax ? "max(" : "min(") + a[0] + ", " + a[1] + ")))";
          })
          .Case<arith::AndIOp>([&](auto) { return bin(isBool ? "&&" : "&"); })
          .Case<arith::OrIOp>([&](auto) { return bin(isBool ? "||" : "|"); })
          .Case<arith::XOrIOp>([&](auto) { return bin(isBool ? "!=" : "^"); })
          // A shift by the width or more gives 0 (an arithmetic right
          // shift: the sign), as ABI.md says; the shift itself never sees
          // such an amount.
          .Case<arith::ShLIOp, arith::ShRUIOp>([&](auto) {
            Type t = op.getOperand(0).getType();
            std::string sym = isa<arith::ShLIOp>(op) ? " << " : " >> ";
            return "select(" + tooFar(t) + ", make_zero(" + ht + "), " +
                   fromUnsigned("(" + asUnsigned(a[0], t) + sym + safeShift(t) + ")") + ")";
          })
          .Case<arith::ShRSIOp>([&](auto) {
            Type t = op.getOperand(0).getType();
            std::string last = "make_const(" + unsignedOf(t) + ", " +
                               std::to_string(t.getIntOrFloatBitWidth() - 1) + ")";
            return "select(" + tooFar(t) + ", (" + a[0] + " >> " + last + "), (" + a[0] + " >> " +
                   safeShift(t) + "))";
          })
          .Case<arith::SelectOp>([&](auto) {
            return "select(" + a[0] + ", " + a[1] + ", " + a[2] + ")";
          })
          .Case<arith::CmpFOp>([&](arith::CmpFOp c) -> std::optional<std::string> {
            using P = arith::CmpFPredicate;
            // Halide's simplifier treats floats as reals (x == -inf becomes
            // !(x > -inf), true for NaN): a comparison with a constant also
            // says that neither operand is NaN, the unordered ones negate
            // those.
            const std::string &x = a[0], &y = a[1];
            std::string ord = "!nan_bits(" + x + ") && !nan_bits(" + y + ")";
            bool withConstant = c.getLhs().getDefiningOp<arith::ConstantOp>() ||
                                c.getRhs().getDefiningOp<arith::ConstantOp>();
            // Halide compiles with LLVM's no-infs flag: a comparison with an
            // infinity of the model (x == -inf for a fully masked row) may
            // be folded to false. Those compare the bits in float order.
            bool withInf = (nonFinite.contains(c.getLhs()) || nonFinite.contains(c.getRhs())) &&
                           !inTupleBody;
            auto ordered = [&](StringRef sym) {
              std::string cmp = withInf ? "order_bits(" + x + ") " + sym.str() + " order_bits(" + y + ")"
                                        : x + " " + sym.str() + " " + y;
              return withConstant ? "(" + ord + " && " + cmp + ")" : "(" + cmp + ")";
            };
            switch (c.getPredicate()) {
            case P::OEQ: return ordered("==");
            case P::OGT: return ordered(">");
            case P::OGE: return ordered(">=");
            case P::OLT: return ordered("<");
            case P::OLE: return ordered("<=");
            case P::ONE: return ordered("!=");
            case P::UEQ: return "!" + ordered("!=");
            case P::UNE: return "!" + ordered("==");
            case P::UGT: return "!" + ordered("<=");
            case P::UGE: return "!" + ordered("<");
            case P::ULT: return "!" + ordered(">=");
            case P::ULE: return "!" + ordered(">");
            case P::ORD: return "(" + ord + ")";
            case P::UNO: return "!(" + ord + ")";
            case P::AlwaysTrue: return std::string("const_true()");
            case P::AlwaysFalse: return std::string("const_false()");
            }
            return std::nullopt;
          })
          .Case<arith::CmpIOp>([&](arith::CmpIOp c) -> std::optional<std::string> {
            using P = arith::CmpIPredicate;
            switch (c.getPredicate()) {
            case P::eq: return bin("==");
            case P::ne: return bin("!=");
            case P::slt: return bin("<");
            case P::sle: return bin("<=");
            case P::sgt: return bin(">");
            case P::sge: return bin(">=");
            case P::ult: return unsignedOp("<");
            case P::ule: return unsignedOp("<=");
            case P::ugt: return unsignedOp(">");
            case P::uge: return unsignedOp(">=");
            }
            return std::nullopt;
          })
          .Case<arith::TruncFOp>([&](auto) -> std::optional<std::string> {
            // Halide's narrowing to 16 bits turns NaN into inf: NaN is
            // written as the quiet NaN of the type.
            if (rt.getIntOrFloatBitWidth() != 16)
              return castTo(a[0]);
            std::string nan = rt.isBF16() ? "0x7fc0" : "0x7e00";
            return "select(nan_bits(" + a[0] + "), reinterpret(" + ht + ", make_const(UInt(16), " +
                   nan + ")), " + castTo(a[0]) + ")";
          })
          .Case<arith::FPToSIOp, arith::FPToUIOp>([&](auto) -> std::optional<std::string> {
            // The values of the cpp target (ABI.md, "Arithmetic that ONNX
            // leaves undefined": x86-64's truncating conversion), where
            // Halide leaves an out-of-range cast undefined: in range of the
            // 32- or 64-bit conversion, the cast; else (NaN included) its
            // minimum; narrower types wrap that; unsigned 64-bit values at
            // or above 2^63 convert from x - 2^63.
            Type from = op.getOperand(0).getType();
            std::string ft = from.isF64() ? "Float(64)" : "Float(32)";
            std::string x = from.isF64() || from.isF32() ? a[0] : "cast(Float(32), " + a[0] + ")";
            auto fc = [&](const char *v) { return "make_const(" + ft + ", " + v + ")"; };
            auto convert = [&](const std::string &v, bool wide, bool viaFloat) {
              std::string lo = wide ? "-9223372036854775808.0" : "-2147483648.0";
              std::string hi = wide ? "9223372036854775808.0" : "2147483648.0";
              std::string it = wide ? "Int(64)" : "Int(32)";
              // NaN explicitly: Halide's simplifier treats floats as reals
              // (x >= c may become !(x < c), true for NaN).
              std::string in = "(!nan_bits(" + v + ") && " + v + " >= " + fc(lo.c_str()) +
                               " && " + v + " < " + fc(hi.c_str()) + ")";
              // Signed results choose the minimum among floats (it is one
              // exactly): Halide 14 miscompiles select(bit test, cast(x),
              // INT64_MIN), giving +1 for x = -1.0
              // (test_resize_downsample_scales_linear_align_corners). The
              // unsigned ones keep the select of integers: a cast to
              // unsigned of that cast would fold into one out-of-range
              // float conversion.
              if (viaFloat)
                return "cast(" + it + ", select(" + in + ", " + v + ", " + fc(lo.c_str()) + "))";
              return "select(" + in + ", cast(" + it + ", select(" + in + ", " + v + ", " +
                     fc("0.0") + ")), " + it + ".min())";
            };
            unsigned width = rt.getIntOrFloatBitWidth();
            bool isSigned = isa<arith::FPToSIOp>(op);
            if (isSigned)
              return castTo(convert(x, width == 64, true));
            std::string u;
            if (width == 64) {
              std::string big =
                  "(!nan_bits(" + x + ") && " + x + " >= " + fc("9223372036854775808.0") + ")";
              std::string high = "(cast(UInt(64), " +
                                 convert("(" + x + " - " + fc("9223372036854775808.0") + ")",
                                         true, false) +
                                 ") ^ make_const(UInt(64), (uint64_t)1 << 63))";
              u = "select(" + big + ", " + high + ", cast(UInt(64), " + convert(x, true, false) +
                  "))";
            } else {
              u = "cast(" + unsignedOf(rt) + ", " + convert(x, width == 32, false) + ")";
            }
            return fromUnsigned(u);
          })
          .Case<arith::ExtFOp, arith::SIToFPOp,
                arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(
              [&](auto) -> std::optional<std::string> {
                if (op.getOperand(0).getType().isInteger(1) && !isBool)
                  return "select(" + a[0] + ", make_one(" + ht + "), make_zero(" + ht + "))";
                return castTo(a[0]);
              })
          .Case<arith::UIToFPOp, arith::ExtUIOp, arith::IndexCastUIOp>(
              [&](auto) -> std::optional<std::string> {
                Type t = op.getOperand(0).getType();
                if (t.isInteger(1))
                  return "select(" + a[0] + ", make_one(" + ht + "), make_zero(" + ht + "))";
                return castTo(asUnsigned(a[0], t));
              })
          .Case<arith::BitcastOp>([&](auto) { return "reinterpret(" + ht + ", " + a[0] + ")"; })
          .Default([](Operation *) { return std::nullopt; });
  if (!expr)
    return errorAt(&op, "op the Halide target does not support");
  declare(op.getResult(0), strictIfNonFinite(op, narrowResult(op, *expr)), indent);
  return Error::success();
}

Error Emitter::emitMath(Operation &op, StringRef indent) {
  SmallVector<std::string> a;
  for (Value v : op.getOperands()) {
    auto e = exprOf(v, &op);
    if (!e)
      return e.takeError();
    a.push_back(*e);
  }
  widenHalfOperands(op, a);
  Type rt = op.getResult(0).getType();
  if (halideType(rt).empty() || !smallFloatName(rt).empty() ||
      llvm::any_of(op.getOperandTypes(), [](Type t) { return !smallFloatName(t).empty(); }))
    return errorAt(&op, "element type the Halide target does not support");
  // The type the Expr is computed in.
  std::string ht = isHalfFloat(rt) ? "Float(32)" : halideType(rt);
  StringRef name = op.getName().stripDialect();
  static const llvm::StringMap<StringRef> unary = {
      {"exp", "exp"},     {"log", "log"},     {"sqrt", "sqrt"},   {"tanh", "tanh"},
      {"sin", "sin"},     {"cos", "cos"},     {"tan", "tan"},     {"asin", "asin"},
      {"acos", "acos"},   {"atan", "atan"},   {"sinh", "sinh"},   {"cosh", "cosh"},
      {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"}, {"floor", "floor"},
      {"ceil", "ceil"},   {"trunc", "trunc"}, {"roundeven", "round"}, {"erf", "erf"},
      {"absf", "abs"},    {"isnan", "nan_bits"}, {"isinf", "inf_bits"}, {"isfinite", "!nan_or_inf_bits"}};
  std::string expr;
  if (auto it = unary.find(name); it != unary.end()) {
    expr = it->second.str() + "(" + a[0] + ")";
    if (name == "erf" && rt.isF64())
      expr = "cast(Float(64), erf(cast(Float(32), " + a[0] + ")))";
  } else if (name == "absi") {
    expr = "cast(" + ht + ", abs(" + a[0] + "))";
  } else if (name == "rsqrt") {
    expr = "(make_one(" + ht + ") / sqrt(" + a[0] + "))";
  } else if (name == "round") {
    // Halves away from zero.
    expr = "select(" + a[0] + " < 0, -floor(-" + a[0] + " + make_const(" + ht +
           ", 0.5)), floor(" + a[0] + " + make_const(" + ht + ", 0.5)))";
  } else if (name == "exp2") {
    expr = "pow(make_const(" + ht + ", 2.0), " + a[0] + ")";
  } else if (name == "expm1") {
    expr = "(exp(" + a[0] + ") - make_one(" + ht + "))";
  } else if (name == "log1p") {
    expr = "log(" + a[0] + " + make_one(" + ht + "))";
  } else if (name == "log2") {
    expr = "(log(" + a[0] + ") / make_const(" + ht + ", 0x1.62e42fefa39efp-1))";
  } else if (name == "log10") {
    expr = "(log(" + a[0] + ") / make_const(" + ht + ", 0x1.26bb1bbb55516p+1))";
  } else if (name == "powf") {
    expr = "pow(" + a[0] + ", " + a[1] + ")";
  } else if (name == "atan2") {
    expr = "atan2(" + a[0] + ", " + a[1] + ")";
  } else if (name == "fma") {
    expr = "(" + a[0] + " * " + a[1] + " + " + a[2] + ")";
  } else if (name == "copysign") {
    expr = "select(" + a[1] + " < 0 || (" + a[1] + " == 0 && make_one(" + ht + ") / " + a[1] +
           " < 0), -abs(" + a[0] + "), abs(" + a[0] + "))";
  } else {
    return errorAt(&op, "op the Halide target does not support");
  }
  declare(op.getResult(0), strictIfNonFinite(op, narrowResult(op, expr)), indent);
  return Error::success();
}

Error Emitter::emitScalar(Operation &op, StringRef indent) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Type t = c.getType();
    if (halideType(t).empty())
      return errorAt(&op, "element type the Halide target does not support");
    if (auto f = dyn_cast<FloatAttr>(c.getValue()); f && !smallFloatName(t).empty())
      declare(c.getResult(), smallFloatLiteral(f.getValue()), indent);
    else if (f)
      declare(c.getResult(), floatLiteral(f.getValue(), t), indent);
    else
      declare(c.getResult(), intLiteral(cast<IntegerAttr>(c.getValue()).getValue(), t), indent);
    return Error::success();
  }
  if (isa<arith::ArithDialect>(op.getDialect()))
    return emitArith(op, indent);
  if (isa<math::MathDialect>(op.getDialect()))
    return emitMath(op, indent);
  if (auto ex = dyn_cast<tensor::ExtractOp>(op)) {
    auto f = funcOf(ex.getTensor(), &op);
    if (!f)
      return f.takeError();
    // The indices are clamped into the tensor: Halide's bounds inference
    // needs a bound for data-dependent indices (the IR has clamped them).
    SmallVector<std::string> idx;
    auto shape = ex.getTensor().getType().getShape();
    for (auto [k, v] : llvm::enumerate(ex.getIndices())) {
      auto e = exprOf(v, &op);
      if (!e)
        return e.takeError();
      idx.push_back("clamp(" + *e + ", 0, " + std::to_string(shape[k] - 1) + ")");
    }
    declare(ex.getResult(), call(*f, idx), indent);
    return Error::success();
  }
  return errorAt(&op, "op the Halide target does not support");
}

/// An affine expression of the loop dims as a Halide Expr.
std::string affineExpr(AffineExpr e, ArrayRef<std::string> dims) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return std::to_string(c.getValue());
  auto b = cast<AffineBinaryOpExpr>(e);
  std::string l = affineExpr(b.getLHS(), dims), r = affineExpr(b.getRHS(), dims);
  switch (e.getKind()) {
  case AffineExprKind::Add: return "(" + l + " + " + r + ")";
  case AffineExprKind::Mul: return "(" + l + " * " + r + ")";
  case AffineExprKind::FloorDiv: return "(" + l + " / " + r + ")";
  case AffineExprKind::Mod: return "(" + l + " % " + r + ")";
  case AffineExprKind::CeilDiv: return "((" + l + " + " + r + " - 1) / " + r + ")";
  default: return "0";
  }
}

Error Emitter::emitGeneric(linalg::GenericOp op) {
  unsigned numResults = op.getNumDpsInits();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = cast<RankedTensorType>(init.get().getType());
    if (halideType(type.getElementType()).empty())
      return errorAt(op, "tensor element type the Halide target does not support");
    // Several results are one Func of Tuples: they share the loop nest.
    if (op.getMatchingIndexingMap(&init) != outMap)
      return errorAt(op, "results with different indexing maps");
  }
  if (!outMap.isProjectedPermutation())
    return errorAt(op, "output indexing map is not a projected permutation");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return errorAt(op, "dynamic loop range");
  unsigned numLoops = op.getNumLoops();
  SmallVector<bool> isPure(numLoops, false);
  for (AffineExpr e : outMap.getResults())
    isPure[cast<AffineDimExpr>(e).getPosition()] = true;
  SmallVector<unsigned> reductionDims;
  for (unsigned d = 0; d < numLoops; ++d)
    if (!isPure[d])
      reductionDims.push_back(d);
  maxRank = std::max(maxRank, numLoops);

  StringRef kind = reductionDims.empty() ? "elementwise" : "reduction";
  std::string f;
  if (numResults == 1) {
    f = newFunc(op.getResult(0), kind);
  } else {
    f = freshFunc();
    os << "    Func " << f << "(\"" << f << "\"); // " << kind << " of " << numResults
       << " results\n";
  }
  std::string rdom = "r" + f.substr(1);
  SmallVector<std::string> loopExprs(numLoops);
  if (!reductionDims.empty()) {
    // RDom dims run innermost first.
    os << "    RDom " << rdom << "(";
    for (size_t i = 0; i < reductionDims.size(); ++i) {
      unsigned d = reductionDims[reductionDims.size() - 1 - i];
      os << (i ? ", " : "") << "0, " << ranges[d];
      loopExprs[d] = rdom + "[" + std::to_string(i) + "]";
    }
    os << ");\n";
  }
  for (unsigned d = 0; d < numLoops; ++d)
    if (isPure[d])
      loopExprs[d] = dimVar(d);
  SmallVector<std::string> lhsArgs;
  for (AffineExpr e : outMap.getResults())
    lhsArgs.push_back(dimVar(cast<AffineDimExpr>(e).getPosition()));
  std::string lhs = call(f, lhsArgs);
  auto tuple = [&](ArrayRef<std::string> values) {
    return values.size() == 1 ? values[0] : "Tuple(" + llvm::join(values, ", ") + ")";
  };

  Block &block = op.getRegion().front();
  llvm::SaveAndRestore tupleBody(inTupleBody, numResults > 1);
  os << "    {\n";
  const StringRef indent = "      ";
  auto operandAt = [&](OpOperand &operand, ArrayRef<std::string> dims) -> Expected<std::string> {
    Value v = operand.get();
    if (!isa<RankedTensorType>(v.getType()))
      return exprOf(v, op);
    auto fn = funcOf(v, op);
    if (!fn)
      return fn.takeError();
    SmallVector<std::string> idx;
    for (AffineExpr e : op.getMatchingIndexingMap(&operand).getResults())
      idx.push_back(affineExpr(e, dims));
    return call(*fn, idx);
  };
  bool needsInit = !reductionDims.empty() ||
                   llvm::any_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
                     return !op.getMatchingBlockArgument(&init).use_empty();
                   });
  if (needsInit) {
    SmallVector<std::string> pureDims(numLoops, "0");
    for (unsigned d = 0; d < numLoops; ++d)
      if (isPure[d])
        pureDims[d] = dimVar(d);
    SmallVector<std::string> inits;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto initExpr = operandAt(init, pureDims);
      if (!initExpr)
        return initExpr.takeError();
      inits.push_back(*initExpr);
    }
    if (!reductionDims.empty())
      os << indent << lhs << " = " << tuple(inits) << ";\n";
    for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      BlockArgument outArg = op.getMatchingBlockArgument(&init);
      if (reductionDims.empty())
        declare(outArg, inits[k], indent);
      else
        names[outArg] = numResults == 1 ? lhs : lhs + "[" + std::to_string(k) + "]";
    }
  }
  for (OpOperand *in : op.getDpsInputOperands()) {
    BlockArgument arg = block.getArgument(in->getOperandNumber());
    if (arg.use_empty())
      continue;
    auto e = operandAt(*in, loopExprs);
    if (!e)
      return e.takeError();
    declare(arg, *e, indent);
  }
  for (Operation &inner : block.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      declare(index.getResult(), "Expr(" + loopExprs[index.getDim()] + ")", indent);
      continue;
    }
    if (Error e = emitScalar(inner, indent))
      return e;
  }
  auto yield = cast<linalg::YieldOp>(block.getTerminator());
  SmallVector<std::string> results;
  for (Value v : yield.getOperands()) {
    auto result = exprOf(v, yield);
    if (!result)
      return result.takeError();
    results.push_back(*result);
  }
  os << indent << lhs << " = " << tuple(results) << ";\n";
  os << "    }\n";
  if (numResults > 1) {
    for (unsigned k = 0; k < numResults; ++k) {
      Value result = op.getResult(k);
      std::string g = newFunc(result, "result " + std::to_string(k) + " of " + f);
      int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
      os << "    " << g << pureVars(rank) << " = " << f << pureVars(rank) << "[" << k << "];\n";
    }
  }
  if (!reductionDims.empty()) {
    SmallVector<int64_t> extents;
    for (AffineExpr e : outMap.getResults())
      extents.push_back(ranges[cast<AffineDimExpr>(e).getPosition()]);
    // The Func's pure vars in ONNX order are lhsArgs.
    heavy.push_back({f + "|" + llvm::join(lhsArgs, ","), extents, true,
                     static_cast<unsigned>(reductionDims.size())});
  } else if (numResults > 1 || !op.getResult(0).hasOneUse()) {
    // Computed once rather than inlined into each consumer.
    shared.push_back(f);
  }
  return Error::success();
}

Error Emitter::emitExtractSlice(tensor::ExtractSliceOp op) {
  auto src = funcOf(op.getSource(), op);
  if (!src)
    return src.takeError();
  auto srcType = op.getSourceType();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  std::string f = newFunc(op.getResult(), "slice");
  SmallVector<std::string> idx;
  int64_t outDim = 0;
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets(), strides = op.getMixedStrides();
  for (int64_t d = 0; d < srcType.getRank(); ++d) {
    auto off = indexOf(offsets[d], op);
    if (!off)
      return off.takeError();
    if (dropped.test(d)) {
      idx.push_back("clamp(" + *off + ", 0, " + std::to_string(srcType.getDimSize(d) - 1) + ")");
      continue;
    }
    auto stride = indexOf(strides[d], op);
    if (!stride)
      return stride.takeError();
    std::string e = *off + " + " + dimVar(outDim++) + " * " + *stride;
    bool isStatic = getConstantIntValue(offsets[d]) && getConstantIntValue(strides[d]);
    idx.push_back(isStatic ? "(" + e + ")"
                           : "clamp(" + e + ", 0, " + std::to_string(srcType.getDimSize(d) - 1) + ")");
  }
  os << "    " << f << pureVars(op.getType().getRank()) << " = " << call(*src, idx) << ";\n";
  return Error::success();
}

Error Emitter::emitInsertSlice(tensor::InsertSliceOp op) {
  auto src = funcOf(op.getSource(), op);
  auto dst = funcOf(op.getDest(), op);
  if (!src)
    return src.takeError();
  if (!dst)
    return dst.takeError();
  auto dstType = op.getDestType();
  auto srcType = op.getSourceType();
  std::string f = newFunc(op.getResult(), "insert_slice");
  // A padded copy (convolution, pooling): computed once, not reevaluated
  // with its selects in every tap of the consumer's reduction.
  shared.push_back(f);
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets(), strides = op.getMixedStrides(),
                            sizes = op.getMixedSizes();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  std::string inside = "const_true()";
  SmallVector<std::string> srcIdx;
  int64_t srcDim = 0;
  for (int64_t d = 0; d < dstType.getRank(); ++d) {
    auto size = getConstantIntValue(sizes[d]);
    if (!size)
      return errorAt(op, "dynamic slice size");
    auto off = indexOf(offsets[d], op);
    auto stride = indexOf(strides[d], op);
    if (!off)
      return off.takeError();
    if (!stride)
      return stride.takeError();
    std::string rel = "(" + dimVar(d) + " - " + *off + ")";
    inside += " && " + rel + " >= 0 && " + rel + " < " + std::to_string(*size) + " * " + *stride +
              " && " + rel + " % " + *stride + " == 0";
    if (dropped.test(d))
      continue;
    srcIdx.push_back("clamp(" + rel + " / " + *stride + ", 0, " +
                     std::to_string(srcType.getDimSize(srcDim) - 1) + ")");
    ++srcDim;
  }
  SmallVector<std::string> dims;
  for (int64_t d = 0; d < dstType.getRank(); ++d)
    dims.push_back(dimVar(d));
  os << "    " << f << pureVars(dstType.getRank()) << " = select(" << inside << ", "
     << call(*src, srcIdx) << ", " << call(*dst, dims) << ");\n";
  return Error::success();
}

Error Emitter::emitReshape(Operation *op, Value srcValue, Value result,
                           ArrayRef<ReassociationIndices> groups, bool expand) {
  auto src = funcOf(srcValue, op);
  if (!src)
    return src.takeError();
  auto srcType = cast<RankedTensorType>(srcValue.getType());
  auto dstType = cast<RankedTensorType>(result.getType());
  std::string f = newFunc(result, expand ? "expand_shape" : "collapse_shape");
  // Each group of the wide side (dst for expand, src for collapse) is one
  // dim of the narrow side.
  RankedTensorType wide = expand ? dstType : srcType;
  SmallVector<std::string> srcIdx;
  for (auto [g, group] : llvm::enumerate(groups)) {
    if (expand) {
      // src[g] = linear index of the group's dst dims.
      std::string lin = "0";
      for (int64_t d : group)
        lin = "(" + lin + " * " + std::to_string(wide.getDimSize(d)) + " + " + dimVar(d) + ")";
      srcIdx.push_back(lin);
    } else {
      // src dims of group g from dst[g].
      int64_t inner = 1;
      SmallVector<std::string> parts(group.size());
      for (size_t k = group.size(); k-- > 0;) {
        int64_t size = wide.getDimSize(group[k]);
        parts[k] = "(" + dimVar(g) + " / " + std::to_string(inner) + " % " + std::to_string(size) + ")";
        inner *= size;
      }
      srcIdx.append(parts.begin(), parts.end());
    }
  }
  // A collapse to rank 0 has no groups: every source dim is 1.
  while (static_cast<int64_t>(srcIdx.size()) < srcType.getRank())
    srcIdx.push_back("0");
  os << "    " << f << pureVars(dstType.getRank()) << " = " << call(*src, srcIdx) << ";\n";
  return Error::success();
}

Error Emitter::emitConcat(tensor::ConcatOp op) {
  int64_t axis = op.getDim();
  auto type = op.getResultType();
  std::string f = newFunc(op.getResult(), "concat");
  std::string expr;
  int64_t offset = 0;
  SmallVector<std::pair<int64_t, std::string>> parts;
  for (Value in : op.getInputs()) {
    auto src = funcOf(in, op);
    if (!src)
      return src.takeError();
    int64_t size = cast<RankedTensorType>(in.getType()).getDimSize(axis);
    SmallVector<std::string> idx;
    for (int64_t d = 0; d < type.getRank(); ++d)
      idx.push_back(d == axis ? "clamp(" + dimVar(d) + " - " + std::to_string(offset) + ", 0, " +
                                    std::to_string(std::max<int64_t>(size - 1, 0)) + ")"
                              : dimVar(d));
    if (size > 0)
      parts.push_back({offset + size, call(*src, idx)});
    offset += size;
  }
  if (parts.empty())
    return errorAt(op, "empty concat");
  expr = parts.back().second;
  for (size_t i = parts.size() - 1; i-- > 0;)
    expr = "select(" + dimVar(axis) + " < " + std::to_string(parts[i].first) + ", " +
           parts[i].second + ", " + expr + ")";
  os << "    " << f << pureVars(type.getRank()) << " = " << expr << ";\n";
  return Error::success();
}

Error Emitter::emitPad(tensor::PadOp op) {
  auto src = funcOf(op.getSource(), op);
  if (!src)
    return src.takeError();
  Value padValue = op.getConstantPaddingValue();
  if (!padValue)
    return errorAt(op, "tensor.pad with a non-constant padding value");
  auto pad = exprOf(padValue, op);
  if (!pad)
    return pad.takeError();
  auto srcType = op.getSourceType();
  std::string f = newFunc(op.getResult(), "pad");
  shared.push_back(f);
  std::string inside = "const_true()";
  SmallVector<std::string> idx;
  for (auto [d, low] : llvm::enumerate(op.getMixedLowPad())) {
    auto l = indexOf(low, op);
    if (!l)
      return l.takeError();
    std::string rel = "(" + dimVar(d) + " - " + *l + ")";
    int64_t size = srcType.getDimSize(d);
    inside += " && " + rel + " >= 0 && " + rel + " < " + std::to_string(size);
    idx.push_back("clamp(" + rel + ", 0, " + std::to_string(std::max<int64_t>(size - 1, 0)) + ")");
  }
  os << "    " << f << pureVars(op.getResultType().getRank()) << " = select(" << inside << ", "
     << call(*src, idx) << ", " << *pad << ");\n";
  return Error::success();
}

Error Emitter::emitOp(Operation &op) {
  if (isa<func::ReturnOp>(op))
    return Error::success();
  if (auto call = dyn_cast<func::CallOp>(op)) {
    std::optional<CheckKind> kind = checkKind(call.getCallee());
    unsigned arity = kind && kind->relation == "not" ? 1 : 2;
    if (!kind || call.getNumOperands() != arity)
      return errorAt(&op, "runtime-support calls the Halide target does not support (" +
                              call.getCallee() + ")");
    SmallVector<std::string> x;
    for (Value v : call.getOperands()) {
      auto e = exprOf(v, &op);
      if (!e)
        return e.takeError();
      x.push_back("(" + *e + ")");
    }
    std::string cond;
    if (kind->relation == "not")
      cond = "!" + x[0];
    else if (kind->relation == "broadcast")
      cond = "(" + x[0] + " == 1 || " + x[0] + " == " + x[1] + ")";
    else if (kind->relation == "position")
      cond = "(" + x[0] + " >= 0 && " + x[0] + " < " + x[1] + ")";
    else
      cond = "(" + x[0] + " " + kind->relation.str() + " " + x[1] + ")";
    checks.push_back({cond, kind->status});
    return Error::success();
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return emitConstant(c);
  if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    // Read only as the initial value of an output no body reads.
    auto type = empty.getType();
    if (halideType(type.getElementType()).empty())
      return errorAt(&op, "tensor element type the Halide target does not support");
    std::string f = newFunc(empty.getResult(), "empty");
    os << "    " << f << pureVars(type.getRank()) << " = make_zero("
       << halideType(type.getElementType()) << ");\n";
    return Error::success();
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op);
      sel && isa<RankedTensorType>(sel.getType()) && sel.getCondition().getType().isInteger(1)) {
    // A whole-tensor choice (an If whose branches are constants).
    auto cond = exprOf(sel.getCondition(), &op);
    if (!cond)
      return cond.takeError();
    auto a = funcOf(sel.getTrueValue(), &op);
    if (!a)
      return a.takeError();
    auto b = funcOf(sel.getFalseValue(), &op);
    if (!b)
      return b.takeError();
    int64_t rank = cast<RankedTensorType>(sel.getType()).getRank();
    std::string f = newFunc(sel.getResult(), "select");
    os << "    " << f << pureVars(rank) << " = select(" << *cond << ", " << *a << pureVars(rank)
       << ", " << *b << pureVars(rank) << ");\n";
    return Error::success();
  }
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return emitGeneric(g);
  if (auto s = dyn_cast<tensor::ExtractSliceOp>(op))
    return emitExtractSlice(s);
  if (auto s = dyn_cast<tensor::InsertSliceOp>(op))
    return emitInsertSlice(s);
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    return emitReshape(&op, e.getSrc(), e.getResult(), e.getReassociationIndices(), true);
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    return emitReshape(&op, c.getSrc(), c.getResult(), c.getReassociationIndices(), false);
  if (auto c = dyn_cast<tensor::ConcatOp>(op))
    return emitConcat(c);
  if (auto p = dyn_cast<tensor::PadOp>(op))
    return emitPad(p);
  if (auto c = dyn_cast<tensor::CastOp>(op)) {
    auto src = funcOf(c.getSource(), &op);
    if (!src)
      return src.takeError();
    names[c.getResult()] = *src;
    return Error::success();
  }
  if (op.getNumResults() == 1 && !isa<ShapedType>(op.getResult(0).getType()) &&
      op.getNumRegions() == 0)
    return emitScalar(op, "    ");
  return errorAt(&op, "op the Halide target does not support");
}

std::string estimates(RankedTensorType type) {
  if (!type.getRank())
    return "{{0, 1}}";
  std::string s = "{";
  for (int64_t d = type.getRank(); d-- > 0;)
    s += "{0, " + std::to_string(type.getDimSize(d)) + "}" + (d ? ", " : "");
  return s + "}";
}

/// The vector lanes of 32 bytes of `t`'s elements.
int64_t lanesOf(Type t) { return std::max<int64_t>(1, 256 / std::max(8u, t.getIntOrFloatBitWidth())); }

Error Emitter::emitSchedule(func::FuncOp func) {
  // Reductions (convolution, GEMM, pooling, reduce): computed once, their
  // initial values vectorized, their update a register tile with the
  // reduction loops around it (below), the outermost dim over threads.
  std::string &s = body;
  s += "    if (!auto_schedule) {\n";
  for (const std::string &f : shared)
    if (!llvm::any_of(heavy, [&](const Heavy &h) { return StringRef(h.func).starts_with(f + "|"); }))
      s += "      " + f + ".compute_root();\n";
  for (const Heavy &h : heavy) {
    auto [f, varList] = StringRef(h.func).split('|');
    SmallVector<StringRef> vars;
    varList.split(vars, ',', -1, false);
    s += "      " + f.str() + ".compute_root();\n";
    if (vars.empty())
      continue;
    int64_t lanes = 8;
    size_t n = vars.size();
    std::string inner = vars[n - 1].str();
    // Where the tile does not divide the extent, the last tile is guarded:
    // rounding the Func's region up would read past the producers' bounds.
    auto tail = [](int64_t extent, int64_t factor) {
      return extent % factor ? ", TailStrategy::GuardWithIf" : "";
    };
    // The initial values: vectorized.
    std::string pure = "      " + f.str();
    if (h.extents[n - 1] >= lanes)
      s += pure + ".vectorize(" + inner + ", " + std::to_string(lanes) +
           tail(h.extents[n - 1], lanes) + ");\n";
    // The update: a register tile of accumulators (the innermost dim
    // vectorized, the third innermost unrolled by 4 -- a convolution's
    // output channels, which share the input's vectors -- and the second by
    // 2; a GEMM's rows by 4) with the reduction loops outside the tile and
    // inside the rest, so the accumulators stay in registers.
    std::string up = "      " + f.str() + ".update()";
    SmallVector<std::string> insideR;
    SmallVector<size_t> splitDims;
    auto split = [&](size_t k, int64_t factor, bool vector) {
      std::string v = vars[k].str();
      s += up + ".split(" + v + ", " + v + "o, " + v + "i, " + std::to_string(factor) +
           tail(h.extents[k], factor) + ")." + (vector ? "vectorize(" : "unroll(") + v + "i);\n";
      insideR.push_back(v + "i");
      splitDims.push_back(k);
    };
    if (h.extents[n - 1] >= lanes)
      split(n - 1, lanes, true);
    if (n >= 3 && h.extents[n - 3] >= 4)
      split(n - 3, 4, false);
    if (n >= 3 && h.extents[n - 2] >= 2)
      split(n - 2, 2, false);
    if (n == 2 && h.extents[0] >= 4)
      split(0, 4, false);
    if (!insideR.empty() && h.reductionDims) {
      std::string r = "r" + f.drop_front(1).str();
      SmallVector<std::string> order(insideR.begin(), insideR.end());
      for (unsigned k = 0; k < h.reductionDims; ++k)
        order.push_back(r + "[" + std::to_string(k) + "]");
      // The outer parts of the split dims, innermost first.
      llvm::sort(splitDims, std::greater<size_t>());
      for (size_t k : splitDims)
        order.push_back(vars[k].str() + "o");
      s += up + ".reorder(" + llvm::join(order, ", ") + ");\n";
    }
    // Threads over the outermost dim with more than one iteration (the
    // outer part of a split one), but the vector's.
    for (size_t k = 0; k + 1 < n; ++k) {
      if (h.extents[k] < 2)
        continue;
      if (llvm::is_contained(splitDims, k)) {
        s += up + ".parallel(" + vars[k].str() + "o);\n";
      } else {
        s += up + ".parallel(" + vars[k].str() + ");\n";
        s += pure + ".parallel(" + vars[k].str() + ");\n";
      }
      break;
    }
  }
  for (auto [i, t] : llvm::enumerate(func.getResultTypes())) {
    auto type = cast<RankedTensorType>(t);
    if (type.getRank() && type.getShape().back() >= lanesOf(type.getElementType()))
      s += "      out" + std::to_string(i) + ".vectorize(" + dimVar(type.getRank() - 1) + ", " +
           std::to_string(lanesOf(type.getElementType())) + ");\n";
  }
  s += "    }\n";
  return Error::success();
}

Expected<HalideModel> Emitter::emit(ModuleOp module) {
  // One function, and the declarations of the run-time checks it calls.
  func::FuncOp func;
  for (func::FuncOp f : module.getOps<func::FuncOp>()) {
    if (f.isDeclaration()) {
      if (!checkKind(f.getSymName()))
        return errorAt(f, "runtime-support calls the Halide target does not support (" +
                              f.getSymName() + ")");
      continue;
    }
    if (func)
      return errorAt(module, "the Halide target needs exactly one function");
    func = f;
  }
  if (!func)
    return errorAt(module, "the Halide target needs exactly one function");
  if (!func.getBody().hasOneBlock())
    return errorAt(func, "control flow the Halide target does not support");
  SmallVector<HalidePort> inputs, outputs;
  auto port = [&](Type t, DictionaryAttr attrs, unsigned i, StringRef kind,
                  SmallVector<HalidePort> &ports) -> Error {
    if (attrs && attrs.get("onnxcc.map_part"))
      return errorAt(func, kind + " " + Twine(i) +
                               ": a map (for DictVectorizer or CastMap), which the Halide "
                               "target does not support yet");
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !type.hasStaticShape())
      return errorAt(func, kind + " " + Twine(i) +
                               ": the Halide target needs tensors of static shape");
    if (halideType(type.getElementType()).empty() || type.getElementType().isIndex())
      return errorAt(func, kind + " " + Twine(i) + ": element type the Halide target does not support");
    if (attrs && attrs.get("onnxcc.map_keys"))
      return errorAt(func, kind + " " + Twine(i) +
                               ": a sequence of maps (ZipMap), which the Halide target "
                               "does not support yet");
    auto name = attrs ? attrs.getAs<StringAttr>("onnx.name") : StringAttr();
    auto dtype = attrs ? attrs.getAs<StringAttr>("onnx.dtype") : StringAttr();
    ports.push_back({name ? name.str() : (kind + Twine(i)).str(),
                     dtype ? dtype.str() : "", type});
    return Error::success();
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    if (Error e = port(func.getArgumentTypes()[i], func.getArgAttrDict(i), i, "input", inputs))
      return std::move(e);
    std::string in = "in" + std::to_string(i);
    auto type = inputs.back().type;
    ms << "  Input<Buffer<" << bufferElement(type.getElementType()) << ", "
       << std::max<int64_t>(type.getRank(), 1) << ">> " << in << "{\"" << in << "\"};\n";
    names[func.getArgument(i)] = in;
    if (!type.getRank()) {
      // Halide's buffers have at least one dim: a scalar is a buffer of one.
      std::string f = newFunc(func.getArgument(i), "scalar input");
      os << "    " << f << "() = " << in << "(0);\n";
    }
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (Error e = port(func.getResultTypes()[i], func.getResultAttrDict(i), i, "output", outputs))
      return std::move(e);
  findNonFinite(func);
  for (Operation &op : func.getBody().front())
    if (Error e = emitOp(op))
      return std::move(e);

  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  std::string outs;
  llvm::raw_string_ostream outDecls(outs);
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto src = funcOf(v, ret);
    if (!src)
      return src.takeError();
    auto type = outputs[i].type;
    maxRank = std::max<unsigned>(maxRank, type.getRank());
    std::string out = "out" + std::to_string(i);
    outDecls << "  Output<Buffer<" << bufferElement(type.getElementType()) << ", "
             << std::max<int64_t>(type.getRank(), 1) << ">> " << out << "{\"" << out
             << "\"};\n";
    std::string value = *src + pureVars(type.getRank());
    // A failed check is run()'s status: the wrapper's error handler reads
    // it from the requirement's message. The first check is the outermost.
    for (const auto &[cond, status] : llvm::reverse(checks))
      value = "require(" + cond + ", " + value + ", \"onnxcc status " + std::to_string(status) +
              ": a run-time check failed\")";
    os << "    " << out << pureVars(std::max<int64_t>(type.getRank(), 1)) << " = " << value
       << ";\n";
  }
  // Estimates: the autoschedulers need them; the shapes are static.
  for (auto [i, p] : llvm::enumerate(inputs))
    os << "    in" << i << ".set_estimates(" << estimates(p.type) << ");\n";
  for (auto [i, t] : llvm::enumerate(weightTypes))
    os << "    w" << i << ".set_estimates(" << estimates(t) << ");\n";
  for (auto [i, p] : llvm::enumerate(outputs))
    os << "    out" << i << ".set_estimates(" << estimates(p.type) << ");\n";
  if (Error e = emitSchedule(func))
    return std::move(e);

  HalideModel model;
  const std::string &n = options.name;
  std::string g;
  llvm::raw_string_ostream gs(g);
  gs << "// " << n << "_generator.cpp - generated by onnxcc from "
     << commentText(options.modelPath) << ". Do not edit.\n"
     << "// The model as a Halide generator: build it with Halide's add_halide_generator\n"
     << "// and add_halide_library (see the CMakeLists.txt next to it); NAME.cpp calls\n"
     << "// the pipeline " << n << "_pipeline with the inputs, the weights, then the outputs.\n"
     << "#include \"Halide.h\"\n\n#include <cstdint>\n#include <limits>\n\n"
     << "using namespace Halide;\nusing Halide::Internal::const_false;\nusing Halide::Internal::const_true;\n"
     << "using Halide::Internal::make_const;\nusing Halide::Internal::make_one;\n"
     << "using Halide::Internal::make_zero;\n\nnamespace {\n\n"
     << "// NaN and inf tests on the bits: Halide's simplifier treats floats as reals.\n"
     << "Expr abs_bits(Expr x) {\n"
     << "  if (x.type().bits() == 64)\n"
     << "    return reinterpret(UInt(64), x) & make_const(UInt(64), uint64_t(0x7fffffffffffffff));\n"
     << "  return reinterpret(UInt(32), cast(Float(32), x)) & make_const(UInt(32), uint64_t(0x7fffffff));\n"
     << "}\n"
     << "Expr inf_bits_of(Expr x) {\n"
     << "  return x.type().bits() == 64 ? make_const(UInt(64), uint64_t(0x7ff0000000000000))\n"
     << "                               : make_const(UInt(32), uint64_t(0x7f800000));\n"
     << "}\n"
     << "Expr nan_bits(Expr x) { return abs_bits(x) > inf_bits_of(x); }\n"
     << "Expr inf_bits(Expr x) { return abs_bits(x) == inf_bits_of(x); }\n"
     << "Expr nan_or_inf_bits(Expr x) { return abs_bits(x) >= inf_bits_of(x); }\n"
     << "// The bits of a non-NaN float as an integer of the same order (-0 == +0):\n"
     << "// comparisons with an infinity, which LLVM's no-infs flag may fold away.\n"
     << "Expr order_bits(Expr x) {\n"
     << "  Type t = x.type().bits() == 64 ? Int(64) : Int(32);\n"
     << "  Expr b = reinterpret(t, x.type().bits() == 64 ? x : cast(Float(32), x));\n"
     << "  return select(b < make_zero(t), t.min() - b, b);\n"
     << "}\n\n";
  if (usesSmallFloats)
    gs << kSmallFloatHelpers;
  gs << "class " << n << "_generator : public Halide::Generator<" << n << "_generator> {\n"
     << "public:\n"
     << members << outs << "\n  void generate() {\n";
  // Scalars are buffers of one element: d0 is always declared.
  maxRank = std::max(maxRank, 1u);
  {
    gs << "    Var";
    for (unsigned d = 0; d < maxRank; ++d)
      gs << (d ? ", " : " ") << dimVar(d) << "(\"" << dimVar(d) << "\")";
    gs << ";\n    Var";
    for (unsigned d = 0; d < maxRank; ++d)
      gs << (d ? ", " : " ") << dimVar(d) << "o, " << dimVar(d) << "i";
    gs << ";\n";
  }
  gs << body << "  }\n};\n\n} // namespace\n\n"
     << "HALIDE_REGISTER_GENERATOR(" << n << "_generator, " << n << ")\n";
  model.generator = std::move(g);
  model.weights = std::move(weights);
  emitHalideWrapper(options, inputs, outputs, weightTypes, weightOffsets, model);
  return model;
}

} // namespace

Expected<HalideModel> emitHalide(ModuleOp module, const HalideEmitOptions &options) {
  Emitter emitter(options);
  return emitter.emit(module);
}

} // namespace onnxcc::codegen
