//===- CppEmitter.cpp - Lowered modules to a C++ header and source -------===//
//
// The input is one func.func over memrefs (inputs, outputs, then the arena),
// made of scf loops, arith/math scalars and memref accesses, plus
// memref.global constants. Each memref value is tracked as a base pointer
// expression with an offset and strides; each scalar becomes a local. Ops
// are printed by a dispatch over their type; anything else is an error.
// func.call reaches runtime-support functions: private declarations naming
// their C++ function (onnxcc.runtime); an onnxcc.status result is returned
// by run() when not 0; onnxcc.string_pool functions also get the model's
// string pool, a fixed part of the arena after the planned buffers.
//
//===----------------------------------------------------------------------===//
#include "codegen/cpp/CppEmitter.h"
#include "codegen/cpp/NodeSegments.h"
#include "codegen/SmallFloats.h"
#include "codegen/SourceText.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc::codegen {
namespace {

/// Reports `message` at `op` (a diagnostic, for tools and lit) and returns it
/// as an Error (for the driver's one-line message).
Error errorAt(Operation *op, const Twine &message) {
  std::string text =
      ("cannot generate C++ for '" + op->getName().getStringRef() + "': " + message).str();
  op->emitError(text);
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

/// The C++ type of a scalar MLIR type, or empty when there is none.
std::string cType(Type t) {
  if (t.isIndex())
    return "int64_t";
  // float16, bfloat16, float8 and float4 values are computed in float and
  // rounded back after each op (see `define`); in memory they are 16-bit or
  // 8-bit patterns.
  if (t.isF32() || t.isF16() || t.isBF16() || !smallFloatName(t).empty())
    return "float";
  if (t.isF64())
    return "double";
  if (auto i = dyn_cast<IntegerType>(t)) {
    switch (i.getWidth()) {
    case 1: return "bool";
    case 8: return i.isUnsigned() ? "uint8_t" : "int8_t";
    case 16: return i.isUnsigned() ? "uint16_t" : "int16_t";
    case 32: return i.isUnsigned() ? "uint32_t" : "int32_t";
    case 64: return i.isUnsigned() ? "uint64_t" : "int64_t";
    default: return "";
    }
  }
  return "";
}

/// The C++ type of an element in memory.
std::string storageType(Type t) {
  if (t.isF16() || t.isBF16())
    return "uint16_t";
  if (!smallFloatName(t).empty())
    return "uint8_t";
  return cType(t);
}

/// The runtime-support function rounding a float to `t`'s precision ("" for
/// types computed exactly).
std::string roundingFor(Type t) {
  if (t.isF16())
    return "onnxcc_rt::round_f16";
  if (t.isBF16())
    return "onnxcc_rt::round_bf16";
  if (StringRef small = smallFloatName(t); !small.empty())
    return ("onnxcc_rt::round_" + small).str();
  return "";
}

/// The unsigned C++ type of the same width (for unsigned arith ops).
std::string unsignedType(Type t) {
  if (t.isIndex())
    return "uint64_t";
  switch (t.getIntOrFloatBitWidth()) {
  case 1: return "bool";
  case 8: return "uint8_t";
  case 16: return "uint16_t";
  case 32: return "uint32_t";
  default: return "uint64_t";
  }
}

/// A literal that reads back exactly.
std::string floatLiteral(const APFloat &value, Type t) {
  bool isFloat = !t.isF64();
  std::string type = isFloat ? "float" : "double";
  if (value.isNaN())
    return "std::numeric_limits<" + type + ">::quiet_NaN()";
  if (value.isInfinity())
    return std::string(value.isNegative() ? "-" : "") + "std::numeric_limits<" + type +
           ">::infinity()";
  double d = value.convertToDouble();
  char buf[64];
  snprintf(buf, sizeof(buf), isFloat ? "%.9g" : "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos)
    s += ".0";
  return isFloat ? s + "f" : s;
}

std::string intLiteral(const APInt &value, Type t) {
  if (t.isInteger(1))
    return value.isZero() ? "false" : "true";
  int64_t v = value.getSExtValue();
  if (t.isIndex())
    return std::to_string(v); // Loop bounds and offsets: plain numbers.
  unsigned width = t.getIntOrFloatBitWidth();
  if (width == 64 && v == INT64_MIN)
    return "INT64_MIN";
  std::string s = std::to_string(v);
  if (width == 64)
    return "INT64_C(" + s + ")";
  return "(" + cType(t) + ")" + s;
}

/// Where a memref's elements are: `base[offset + sum(index_i * stride_i)]`.
struct MemRefView {
  std::string base;
  std::string offset;
  SmallVector<std::string> sizes;
  SmallVector<std::string> strides;
};

class Emitter {
public:
  Emitter(const CppEmitOptions &options) : options(options) {}
  Expected<CppModel> emit(ModuleOp module);

private:
  Error collectWeights(ModuleOp module);
  Error emitFunction(func::FuncOp func);
  Error emitBlock(Block &block);
  Error emitOp(Operation &op);
  Error emitArith(Operation &op);
  Error emitMath(Operation &op);
  Error emitMemRef(Operation &op);
  Error emitFor(scf::ForOp op);
  Error emitParallel(scf::ParallelOp op);
  Error emitIf(scf::IfOp op);
  void assignCarried(scf::YieldOp yield, ArrayRef<std::string> carried);
  Error emitWhile(scf::WhileOp op);
  Error emitCall(func::CallOp op);
  Error emitLaunch(gpu::LaunchFuncOp op);
  void emitNodeComment(Operation &op);

  std::string value(Value v) { return names.lookup(v); }
  /// Parts a top-level parallel loop nest is split into on the thread pool.
  int64_t loopParts(scf::ParallelOp op) const;
  int64_t moduleThreads = 1; // the module's onnxcc.threads
  /// The expression for the first byte of the weights.
  std::string weightsBase() const {
    if (options.cuda)
      return "cuda_weights_";
    return options.embedWeights ? options.name + "_weights" : std::string("weights_");
  }
  std::string newName(StringRef prefix = "v") { return (prefix + Twine(nextId++)).str(); }
  /// Starts a line of the function body; a pending node comment goes first,
  /// so that ops that print nothing (constants) leave no stray comments.
  llvm::raw_ostream &line() {
    if (!pendingNode.empty()) {
      os.indent(indent * 2) << "// " << pendingNode << "\n";
      lastNode = pendingNode;
      pendingNode.clear();
    }
    if (pendingMark >= 0) {
      os.indent(indent * 2) << options.name << "_profile_mark_(" << pendingMark << ");\n";
      pendingMark = -1;
    }
    return os.indent(indent * 2);
  }
  /// Declares `v` as a local initialized with `expr`.
  Error define(Value v, const Twine &expr) {
    std::string t = cType(v.getType());
    if (t.empty())
      return errorAt(v.getDefiningOp(), "unsupported scalar type");
    std::string n = newName();
    std::string round = roundingFor(v.getType());
    // A size that only views use may end up in no expression (the view's
    // strides are static, or fold into another name).
    bool maybeUnused = llvm::any_of(v.getUsers(), [](Operation *user) {
      return isa<ViewLikeOpInterface, memref::ReinterpretCastOp>(user);
    });
    llvm::raw_ostream &out = line() << (maybeUnused ? "[[maybe_unused]] " : "");
    if (!round.empty() && !isa_and_nonnull<memref::LoadOp>(v.getDefiningOp()))
      out << "const " << t << " " << n << " = " << round << "(" << expr << ");\n";
    else
      out << "const " << t << " " << n << " = " << expr << ";\n";
    names[v] = n;
    return Error::success();
  }
  std::string element(Value memref, ValueRange indices);
  MemRefView identityView(MemRefType t, std::string base, ArrayRef<std::string> sizes = {});
  /// A dim attribute (onnxcc.dims) as a C++ expression of the symbols.
  std::string dimExpr(Attribute a);
  llvm::StringMap<std::string> symbolIdents;
  /// A fresh local named after the ONNX node or tensor `op` came from.
  std::string localName(Operation *op, StringRef prefix);

  const CppEmitOptions &options;
  std::string body;
  llvm::raw_string_ostream os{body};
  int indent = 1;
  int nextId = 0;
  DenseMap<Value, std::string> names;
  DenseMap<Value, MemRefView> views;
  /// Identifiers in use in the generated function (ports, named locals).
  IdentifierTable idents;
  /// Offsets of the constants in the weights blob.
  llvm::StringMap<int64_t> globalOffsets;
  std::string weights;
  std::string lastNode;
  std::string pendingNode;
  /// --profile: the mark (timestamp) that starts at each top-level op that
  /// begins a node's work, the mark line() prints next, and the final mark
  /// (before run() returns); -1 when not profiling the function emitted.
  DenseMap<Operation *, int> markAt;
  int pendingMark = -1;
  int endMark = -1;
  /// Bytes the string pool takes at the end of the arena (0: no pool).
  int64_t stringPoolBytes = 0;
  /// The CUDA target: the kernels the host launches, by symbol, in the order
  /// of NAME_kernel_names_.
  llvm::MapVector<SymbolRefAttr, int> kernels;
};

std::string Emitter::localName(Operation *op, StringRef prefix) {
  std::string base;
  std::function<void(Location)> visit = [&](Location loc) {
    if (!base.empty())
      return;
    if (auto name = dyn_cast<NameLoc>(loc)) {
      base = name.getName().str();
      return;
    }
    if (auto fused = dyn_cast<FusedLoc>(loc))
      for (Location l : fused.getLocations())
        visit(l);
  };
  visit(op->getLoc());
  return idents.unique(base, prefix);
}

MemRefView Emitter::identityView(MemRefType t, std::string base, ArrayRef<std::string> sizes) {
  MemRefView v;
  v.base = std::move(base);
  v.offset = "0";
  for (int64_t d = 0; d < t.getRank(); ++d)
    v.sizes.push_back(t.isDynamicDim(d) ? "(" + sizes[t.getDynamicDimIndex(d)] + ")"
                                        : std::to_string(t.getDimSize(d)));
  // Row-major strides; static trailing products stay numbers.
  SmallVector<std::string> strides(t.getRank());
  std::string dynamicPart;
  int64_t staticPart = 1;
  for (int64_t d = t.getRank() - 1; d >= 0; --d) {
    strides[d] = dynamicPart.empty() ? std::to_string(staticPart)
                                     : dynamicPart + " * " + std::to_string(staticPart);
    if (t.isDynamicDim(d))
      dynamicPart = dynamicPart.empty() ? v.sizes[d] : dynamicPart + " * " + v.sizes[d];
    else
      staticPart *= t.getDimSize(d);
  }
  v.strides = strides;
  return v;
}

std::string Emitter::dimExpr(Attribute a) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return std::to_string(i.getInt());
  std::string out;
  for (Attribute t : cast<ArrayAttr>(a)) {
    auto parts = cast<ArrayAttr>(t);
    int64_t coeff = cast<IntegerAttr>(parts[0]).getInt();
    std::string term;
    for (Attribute sym : parts.getValue().drop_front())
      term += (term.empty() ? "" : " * ") + symbolIdents.lookup(cast<StringAttr>(sym).getValue());
    // A later negative term is subtracted: "4 - J" (int64_t's minimum has
    // no magnitude to print and stays added).
    bool minus = !out.empty() && coeff < 0 && coeff != std::numeric_limits<int64_t>::min();
    int64_t shown = minus ? -coeff : coeff;
    if (term.empty())
      term = std::to_string(shown);
    else if (shown != 1)
      term = std::to_string(shown) + " * " + term;
    out += (out.empty() ? "" : minus ? " - " : " + ") + term;
  }
  return out.empty() ? "0" : out;
}

std::string Emitter::element(Value memref, ValueRange indices) {
  const MemRefView &v = views[memref];
  std::string index;
  if (v.offset != "0")
    index = v.offset;
  for (auto [i, idx] : llvm::enumerate(indices)) {
    std::string term = v.strides[i] == "1" ? value(idx) : value(idx) + " * " + v.strides[i];
    if (v.strides[i] == "0")
      continue;
    index = index.empty() ? term : index + " + " + term;
  }
  if (index.empty())
    index = "0";
  return v.base + "[" + index + "]";
}

Error Emitter::collectWeights(ModuleOp module) {
  for (auto global : module.getOps<memref::GlobalOp>()) {
    if (!global.getConstant() || !global.getInitialValue())
      return errorAt(global, "only constant globals with an initial value are supported");
    auto type = global.getType();
    auto attr = *global.getInitialValue();
    if (!type.getElementType().isIntOrFloat() || cType(type.getElementType()).empty())
      return errorAt(global, "constant of unsupported element type");
    int64_t elemBytes = (type.getElementTypeBitWidth() + 7) / 8;
    std::string bytes;
    if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
      if (dense.getElementType().isInteger(1)) {
        for (bool b : dense.getValues<bool>())
          bytes.push_back(b ? 1 : 0);
      } else {
        ArrayRef<char> raw = dense.getRawData();
        if (dense.isSplat())
          for (int64_t i = 0; i < type.getNumElements(); ++i)
            bytes.append(raw.data(), elemBytes);
        else
          bytes.assign(raw.data(), raw.size());
      }
    } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
      AsmResourceBlob *blob = res.getRawHandle().getBlob();
      if (!blob)
        return errorAt(global, "constant blob has no data");
      ArrayRef<char> raw = blob->getData();
      bytes.assign(raw.data(), raw.size());
    } else {
      return errorAt(global, "unsupported constant attribute");
    }
    if (static_cast<int64_t>(bytes.size()) != type.getNumElements() * elemBytes)
      return errorAt(global, "constant has the wrong number of bytes");
    weights.resize((weights.size() + 63) / 64 * 64, '\0');
    globalOffsets[global.getSymName()] = weights.size();
    weights += bytes;
  }
  return Error::success();
}

void Emitter::emitNodeComment(Operation &op) {
  // The onnx op a lowered op came from: FusedLoc<"OpType">[NameLoc("node")].
  std::string opType, nodeName;
  std::function<void(Location)> visit = [&](Location loc) {
    if (auto fused = dyn_cast<FusedLoc>(loc)) {
      if (auto meta = dyn_cast_or_null<StringAttr>(fused.getMetadata()); meta && opType.empty())
        opType = meta.str();
      for (Location l : fused.getLocations())
        visit(l);
    } else if (auto name = dyn_cast<NameLoc>(loc)) {
      if (nodeName.empty())
        nodeName = name.getName().str();
    }
  };
  visit(op.getLoc());
  if (opType.empty())
    return;
  // Both come from the model: only their comment-safe form goes there.
  std::string label =
      commentText(opType) + (nodeName.empty() ? "" : " '" + commentText(nodeName) + "'");
  pendingNode = label == lastNode ? "" : label;
}

Error Emitter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (Error e = emitOp(op))
      return e;
  return Error::success();
}

Error Emitter::emitOp(Operation &op) {
  if (indent == 1) {
    emitNodeComment(op);
    if (auto it = markAt.find(&op); it != markAt.end())
      pendingMark = it->second;
  }
  Dialect *dialect = op.getDialect();
  StringRef ns = dialect ? dialect->getNamespace() : "";
  if (ns == "arith")
    return emitArith(op);
  if (ns == "math")
    return emitMath(op);
  if (ns == "memref")
    return emitMemRef(op);
  if (auto f = dyn_cast<scf::ForOp>(op))
    return emitFor(f);
  if (auto p = dyn_cast<scf::ParallelOp>(op))
    return emitParallel(p);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return emitIf(i);
  if (auto w = dyn_cast<scf::WhileOp>(op))
    return emitWhile(w);
  if (auto call = dyn_cast<func::CallOp>(op))
    return emitCall(call);
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
    return emitLaunch(launch);
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    if (endMark >= 0 && indent == 1)
      line() << options.name << "_profile_mark_(" << endMark << ");\n";
    if (ret.getNumOperands() == 1)
      line() << "return static_cast<size_t>(" << value(ret.getOperand(0)) << ")"
             << (stringPoolBytes ? " + " + std::to_string(stringPoolBytes) + "u" : "") << ";\n";
    else
      line() << "return 0;\n";
    return Error::success();
  }
  return errorAt(&op, "no C++ emission for this op");
}

Error Emitter::emitArith(Operation &op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Type t = c.getType();
    if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
      names[c] = floatLiteral(f.getValue(), t);
      return Error::success();
    }
    if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
      names[c] = intLiteral(i.getValue(), t);
      return Error::success();
    }
    return errorAt(&op, "non-scalar constant");
  }
  auto operand = [&](unsigned i) { return value(op.getOperand(i)); };
  auto binary = [&](StringRef sym) {
    return define(op.getResult(0), "(" + operand(0) + " " + sym + " " + operand(1) + ")");
  };
  Type resultType = op.getNumResults() ? op.getResult(0).getType() : Type();
  std::string rt = resultType ? cType(resultType) : "";
  auto unsignedBinary = [&](StringRef sym) {
    std::string u = unsignedType(op.getOperand(0).getType());
    return define(op.getResult(0), "(" + rt + ")((" + u + ")" + operand(0) + " " + sym + " (" +
                                       u + ")" + operand(1) + ")");
  };
  auto cast = [&]() { return define(op.getResult(0), "static_cast<" + rt + ">(" + operand(0) + ")"); };
  // Integer arithmetic on tensor data (not on `index`, which the lowering
  // keeps in range) goes through onnxcc_rt's helpers where C++ would leave
  // the result undefined: int32/int64 sums and products wrap, division and
  // remainder by 0 or -1 and over-wide shifts have defined values.
  bool dataInt = resultType && resultType.isSignlessInteger() && !resultType.isInteger(1);
  auto helper = [&](StringRef fn, StringRef type) {
    return define(op.getResult(0), ("onnxcc_rt::" + fn + "<").str() + type.str() + ">(" +
                                       operand(0) + ", " + operand(1) + ")");
  };
  auto wrapping = [&](StringRef fn, StringRef sym) {
    if (dataInt && resultType.getIntOrFloatBitWidth() >= 32)
      return helper(fn, rt);
    return binary(sym);
  };
  auto division = [&](StringRef fn, StringRef sym, bool isUnsigned) {
    if (!dataInt)
      return isUnsigned ? unsignedBinary(sym) : binary(sym);
    if (!isUnsigned)
      return helper(fn, rt);
    std::string u = unsignedType(resultType);
    return define(op.getResult(0), "(" + rt + ")onnxcc_rt::" + fn.str() + "<" + u + ">((" + u +
                                       ")" + operand(0) + ", (" + u + ")" + operand(1) + ")");
  };
  auto shift = [&](StringRef fn, StringRef sym, bool isUnsigned) {
    if (!dataInt)
      return isUnsigned ? unsignedBinary(sym) : binary(sym);
    std::string u = unsignedType(resultType);
    std::string amount = "(uint64_t)(" + u + ")" + operand(1);
    std::string type = isUnsigned ? u : rt;
    std::string a = isUnsigned ? "(" + u + ")" + operand(0) : operand(0);
    return define(op.getResult(0), "(" + rt + ")onnxcc_rt::" + fn.str() + "<" + type + ">(" + a +
                                       ", " + amount + ")");
  };
  return llvm::TypeSwitch<Operation *, Error>(&op)
      .Case<arith::AddFOp>([&](auto) { return binary("+"); })
      .Case<arith::SubFOp>([&](auto) { return binary("-"); })
      .Case<arith::MulFOp>([&](auto) { return binary("*"); })
      .Case<arith::DivFOp>([&](auto) { return binary("/"); })
      .Case<arith::AddIOp>([&](auto) { return wrapping("wrap_add", "+"); })
      .Case<arith::SubIOp>([&](auto) { return wrapping("wrap_sub", "-"); })
      .Case<arith::MulIOp>([&](auto) { return wrapping("wrap_mul", "*"); })
      .Case<arith::DivSIOp>([&](auto) { return division("div_s", "/", false); })
      .Case<arith::RemSIOp>([&](auto) { return division("rem_s", "%", false); })
      .Case<arith::DivUIOp>([&](auto) { return division("div_u", "/", true); })
      .Case<arith::RemUIOp>([&](auto) { return division("rem_u", "%", true); })
      .Case<arith::RemFOp>([&](auto) {
        return define(op.getResult(0), "std::fmod(" + operand(0) + ", " + operand(1) + ")");
      })
      .Case<arith::AndIOp>([&](auto) { return binary("&"); })
      .Case<arith::OrIOp>([&](auto) { return binary("|"); })
      .Case<arith::XOrIOp>([&](auto) { return binary("^"); })
      .Case<arith::ShLIOp>([&](auto) { return shift("shl", "<<", true); })
      .Case<arith::ShRUIOp>([&](auto) { return shift("shr_u", ">>", true); })
      .Case<arith::ShRSIOp>([&](auto) { return shift("shr_s", ">>", false); })
      .Case<arith::NegFOp>([&](auto) { return define(op.getResult(0), "(-" + operand(0) + ")"); })
      // Explicit template arguments: a literal operand may have another type.
      .Case<arith::MaxSIOp>([&](auto) {
        return define(op.getResult(0), "std::max<" + rt + ">(" + operand(0) + ", " + operand(1) + ")");
      })
      .Case<arith::MinSIOp>([&](auto) {
        return define(op.getResult(0), "std::min<" + rt + ">(" + operand(0) + ", " + operand(1) + ")");
      })
      .Case<arith::MaxNumFOp>([&](auto) {
        return define(op.getResult(0), "std::fmax(" + operand(0) + ", " + operand(1) + ")");
      })
      .Case<arith::MinNumFOp>([&](auto) {
        return define(op.getResult(0), "std::fmin(" + operand(0) + ", " + operand(1) + ")");
      })
      .Case<arith::MaxUIOp>([&](auto) {
        std::string u = unsignedType(resultType);
        return define(op.getResult(0), "(" + rt + ")std::max((" + u + ")" + operand(0) + ", (" +
                                           u + ")" + operand(1) + ")");
      })
      .Case<arith::MinUIOp>([&](auto) {
        std::string u = unsignedType(resultType);
        return define(op.getResult(0), "(" + rt + ")std::min((" + u + ")" + operand(0) + ", (" +
                                           u + ")" + operand(1) + ")");
      })
      .Case<arith::MaximumFOp>([&](auto) {
        return define(op.getResult(0), "onnxcc_rt::maximum(" + operand(0) + ", " + operand(1) + ")");
      })
      .Case<arith::MinimumFOp>([&](auto) {
        return define(op.getResult(0), "onnxcc_rt::minimum(" + operand(0) + ", " + operand(1) + ")");
      })
      .Case<arith::SelectOp>([&](auto) {
        return define(op.getResult(0),
                      "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")");
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp c) {
        std::string a = operand(0), b = operand(1);
        std::string expr;
        using P = arith::CmpFPredicate;
        switch (c.getPredicate()) {
        case P::OEQ: expr = a + " == " + b; break;
        case P::OGT: expr = a + " > " + b; break;
        case P::OGE: expr = a + " >= " + b; break;
        case P::OLT: expr = a + " < " + b; break;
        case P::OLE: expr = a + " <= " + b; break;
        case P::ONE: expr = "(" + a + " < " + b + " || " + a + " > " + b + ")"; break;
        case P::ORD: expr = "!(std::isnan(" + a + ") || std::isnan(" + b + "))"; break;
        case P::UEQ: expr = "!(" + a + " < " + b + " || " + a + " > " + b + ")"; break;
        case P::UGT: expr = "!(" + a + " <= " + b + ")"; break;
        case P::UGE: expr = "!(" + a + " < " + b + ")"; break;
        case P::ULT: expr = "!(" + a + " >= " + b + ")"; break;
        case P::ULE: expr = "!(" + a + " > " + b + ")"; break;
        case P::UNE: expr = a + " != " + b; break;
        case P::UNO: expr = "(std::isnan(" + a + ") || std::isnan(" + b + "))"; break;
        case P::AlwaysTrue: expr = "true"; break;
        case P::AlwaysFalse: expr = "false"; break;
        }
        return define(c.getResult(), "(" + expr + ")");
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
        using P = arith::CmpIPredicate;
        std::string a = operand(0), b = operand(1);
        P p = c.getPredicate();
        bool isUnsigned = p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
        if (isUnsigned) {
          std::string u = unsignedType(c.getLhs().getType());
          a = "(" + u + ")" + a;
          b = "(" + u + ")" + b;
        }
        StringRef sym;
        switch (p) {
        case P::eq: sym = "=="; break;
        case P::ne: sym = "!="; break;
        case P::slt: case P::ult: sym = "<"; break;
        case P::sle: case P::ule: sym = "<="; break;
        case P::sgt: case P::ugt: sym = ">"; break;
        case P::sge: case P::uge: sym = ">="; break;
        }
        return define(c.getResult(), "(" + a + " " + sym + " " + b + ")");
      })
      .Case<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::TruncIOp, arith::SIToFPOp,
            arith::IndexCastOp>([&](auto) { return cast(); })
      .Case<arith::FPToSIOp>([&](auto) {
        if (resultType.isInteger(1))
          return cast();
        std::string s = unsignedType(resultType);
        s.erase(0, 1); // uintN_t -> intN_t
        return define(op.getResult(0), "static_cast<" + rt + ">(onnxcc_rt::fp_to_si<" + s + ">(" +
                                           operand(0) + "))");
      })
      .Case<arith::ExtUIOp, arith::UIToFPOp, arith::IndexCastUIOp>([&](auto) {
        std::string u = unsignedType(op.getOperand(0).getType());
        return define(op.getResult(0), "static_cast<" + rt + ">((" + u + ")" + operand(0) + ")");
      })
      .Case<arith::FPToUIOp>([&](auto) {
        if (resultType.isInteger(1))
          return cast();
        return define(op.getResult(0), "static_cast<" + rt + ">(onnxcc_rt::fp_to_ui<" +
                                           unsignedType(resultType) + ">(" + operand(0) + "))");
      })
      .Case<arith::BitcastOp>([&](auto) {
        return define(op.getResult(0), "onnxcc_rt::bit_cast<" + rt + ">(" + operand(0) + ")");
      })
      .Default([&](Operation *o) { return errorAt(o, "unsupported arith op"); });
}

Error Emitter::emitMath(Operation &op) {
  auto call = [&](StringRef fn) {
    std::string args;
    for (Value v : op.getOperands())
      args += (args.empty() ? "" : ", ") + value(v);
    return define(op.getResult(0), fn + ("(" + args + ")"));
  };
  return llvm::TypeSwitch<Operation *, Error>(&op)
      .Case<math::ExpOp>([&](auto) { return call("std::exp"); })
      .Case<math::Exp2Op>([&](auto) { return call("std::exp2"); })
      .Case<math::ExpM1Op>([&](auto) { return call("std::expm1"); })
      .Case<math::LogOp>([&](auto) { return call("std::log"); })
      .Case<math::Log2Op>([&](auto) { return call("std::log2"); })
      .Case<math::Log10Op>([&](auto) { return call("std::log10"); })
      .Case<math::Log1pOp>([&](auto) { return call("std::log1p"); })
      .Case<math::SqrtOp>([&](auto) { return call("std::sqrt"); })
      .Case<math::RsqrtOp>([&](auto) { return call("onnxcc_rt::rsqrt"); })
      .Case<math::CbrtOp>([&](auto) { return call("std::cbrt"); })
      .Case<math::TanhOp>([&](auto) { return call("std::tanh"); })
      .Case<math::SinOp>([&](auto) { return call("std::sin"); })
      .Case<math::CosOp>([&](auto) { return call("std::cos"); })
      .Case<math::TanOp>([&](auto) { return call("std::tan"); })
      .Case<math::AsinOp>([&](auto) { return call("std::asin"); })
      .Case<math::AcosOp>([&](auto) { return call("std::acos"); })
      .Case<math::AtanOp>([&](auto) { return call("std::atan"); })
      .Case<math::Atan2Op>([&](auto) { return call("std::atan2"); })
      .Case<math::SinhOp>([&](auto) { return call("std::sinh"); })
      .Case<math::CoshOp>([&](auto) { return call("std::cosh"); })
      .Case<math::AsinhOp>([&](auto) { return call("std::asinh"); })
      .Case<math::AcoshOp>([&](auto) { return call("std::acosh"); })
      .Case<math::AtanhOp>([&](auto) { return call("std::atanh"); })
      .Case<math::ErfOp>([&](auto) { return call("std::erf"); })
      .Case<math::FloorOp>([&](auto) { return call("std::floor"); })
      .Case<math::CeilOp>([&](auto) { return call("std::ceil"); })
      .Case<math::RoundOp>([&](auto) { return call("std::round"); })
      .Case<math::RoundEvenOp>([&](auto) { return call("onnxcc_rt::round_even"); })
      .Case<math::TruncOp>([&](auto) { return call("std::trunc"); })
      .Case<math::AbsFOp>([&](auto) { return call("std::fabs"); })
      .Case<math::AbsIOp>([&](auto) { return call("onnxcc_rt::abs_int"); })
      .Case<math::PowFOp>([&](auto) { return call("std::pow"); })
      .Case<math::CopySignOp>([&](auto) { return call("std::copysign"); })
      .Case<math::FmaOp>([&](auto) { return call("std::fma"); })
      .Case<math::IsNaNOp>([&](auto) { return call("std::isnan"); })
      .Case<math::IsInfOp>([&](auto) { return call("std::isinf"); })
      .Default([&](Operation *o) { return errorAt(o, "unsupported math op"); });
}

Error Emitter::emitMemRef(Operation &op) {
  if (options.cuda && isa<memref::StoreOp, memref::CopyOp>(op))
    return errorAt(&op, "the host code of the CUDA target cannot write device memory "
                        "(onnxcc-map-to-gpu leaves no such op)");
  if (options.cuda) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      // A scalar the host needs (a run-time shape operand): read from the
      // device after the kernels queued so far (ABI.md, "The CUDA target").
      Type t = load.getType();
      std::string st = storageType(t), ct = cType(t);
      if (st.empty() || st != ct)
        return errorAt(&op, "the host reads a device value of an unsupported type");
      std::string n = newName();
      line() << ct << " " << n << " = 0;\n";
      line() << "if (const int s_ = onnxcc_cuda::readDevice(cuda_, &" << n << ", &"
             << element(load.getMemRef(), load.getIndices()) << ", sizeof " << n << "))\n";
      line() << "  return s_;\n";
      names[load.getResult()] = n;
      return Error::success();
    }
  }
  return llvm::TypeSwitch<Operation *, Error>(&op)
      .Case<memref::LoadOp>([&](memref::LoadOp load) {
        Type t = load.getType();
        std::string e = element(load.getMemRef(), load.getIndices());
        if (t.isF16())
          e = "onnxcc_rt::f16_to_f32(" + e + ")";
        else if (t.isBF16())
          e = "onnxcc_rt::bf16_to_f32(" + e + ")";
        else if (StringRef small = smallFloatName(t); !small.empty())
          e = ("onnxcc_rt::" + small + "_to_f32(" + e + ")").str();
        return define(load.getResult(), e);
      })
      .Case<memref::StoreOp>([&](memref::StoreOp store) {
        Type t = store.getValueToStore().getType();
        std::string v = value(store.getValueToStore());
        if (t.isF16())
          v = "onnxcc_rt::f32_to_f16(" + v + ")";
        else if (t.isBF16())
          v = "onnxcc_rt::f32_to_bf16(" + v + ")";
        else if (StringRef small = smallFloatName(t); !small.empty())
          v = ("onnxcc_rt::f32_to_" + small + "(" + v + ")").str();
        line() << element(store.getMemRef(), store.getIndices()) << " = " << v << ";\n";
        return Error::success();
      })
      .Case<memref::GetGlobalOp>([&](memref::GetGlobalOp get) -> Error {
        auto it = globalOffsets.find(get.getName());
        if (it == globalOffsets.end())
          return errorAt(get, "unknown global");
        MemRefType t = get.getType();
        std::string et = storageType(t.getElementType());
        std::string n = localName(get, "w_");
        line() << "const " << et << " *const " << n << " = reinterpret_cast<const " << et
               << " *>(" << weightsBase() << " + " << it->second << ");\n";
        views[get] = identityView(t, n);
        return Error::success();
      })
      .Case<memref::ViewOp>([&](memref::ViewOp view) -> Error {
        MemRefType t = view.getType();
        std::string et = storageType(t.getElementType());
        if (et.empty())
          return errorAt(view, "unsupported element type");
        std::string n = localName(view, "buf_");
        line() << et << " *const " << n << " = reinterpret_cast<" << et << " *>("
               << views[view.getSource()].base << " + " << value(view.getByteShift())
               << ");\n";
        SmallVector<std::string> sizes;
        for (Value s : view.getSizes())
          sizes.push_back(value(s));
        views[view] = identityView(t, n, sizes);
        return Error::success();
      })
      .Case<memref::ReinterpretCastOp>([&](memref::ReinterpretCastOp rc) -> Error {
        MemRefView v;
        v.base = views[rc.getSource()].base;
        auto mixed = [&](OpFoldResult r) -> std::string {
          if (auto a = dyn_cast<Attribute>(r))
            return std::to_string(cast<IntegerAttr>(a).getInt());
          return value(cast<Value>(r));
        };
        SmallVector<OpFoldResult> offsets = rc.getMixedOffsets();
        v.offset = offsets.empty() ? "0" : mixed(offsets[0]);
        for (OpFoldResult s : rc.getMixedSizes())
          v.sizes.push_back(mixed(s));
        for (OpFoldResult s : rc.getMixedStrides())
          v.strides.push_back(mixed(s));
        views[rc] = v;
        return Error::success();
      })
      .Case<memref::ExtractStridedMetadataOp>([&](memref::ExtractStridedMetadataOp md) -> Error {
        // A copy: inserting into `views` below may move its entries.
        MemRefView src = views[md.getSource()];
        MemRefView base;
        base.base = src.base;
        base.offset = "0";
        views[md.getBaseBuffer()] = base;
        names[md.getOffset()] = src.offset;
        for (auto [r, s] : llvm::zip(md.getSizes(), src.sizes))
          names[r] = s;
        for (auto [r, s] : llvm::zip(md.getStrides(), src.strides))
          names[r] = s;
        return Error::success();
      })
      .Case<memref::CastOp>([&](memref::CastOp c) {
        // A copy first: inserting c may move the map's entries.
        MemRefView source = views[c.getSource()];
        views[c] = std::move(source);
        return Error::success();
      })
      .Case<memref::DimOp>([&](memref::DimOp d) -> Error {
        auto idx = d.getConstantIndex();
        if (!idx)
          return errorAt(d, "dynamic dim index");
        names[d] = views[d.getSource()].sizes[*idx];
        return Error::success();
      })
      .Case<memref::CopyOp>([&](memref::CopyOp copy) -> Error {
        auto t = cast<MemRefType>(copy.getSource().getType());
        // One loop per dim over the source's sizes.
        SmallVector<std::string> ivs;
        const MemRefView &sv = views[copy.getSource()];
        for (int64_t d = 0; d < t.getRank(); ++d) {
          std::string iv = newName("i");
          line() << "for (int64_t " << iv << " = 0; " << iv << " < " << sv.sizes[d] << "; ++"
                 << iv << ") {\n";
          ++indent;
          ivs.push_back(iv);
        }
        auto at = [&](Value m) {
          const MemRefView &v = views[m];
          std::string index = v.offset;
          for (auto [i, iv] : llvm::enumerate(ivs))
            index += " + " + iv + " * " + v.strides[i];
          return v.base + "[" + index + "]";
        };
        line() << at(copy.getTarget()) << " = " << at(copy.getSource()) << ";\n";
        for (int64_t d = 0; d < t.getRank(); ++d) {
          --indent;
          line() << "}\n";
        }
        return Error::success();
      })
      .Default([&](Operation *o) { return errorAt(o, "unsupported memref op"); });
}

/// Assigns a loop's yielded values to its carried locals, reading every one
/// before assigning any (they may refer to each other).
void Emitter::assignCarried(scf::YieldOp yield, ArrayRef<std::string> carried) {
  SmallVector<std::string> next;
  for (Value v : yield.getOperands()) {
    std::string n = newName("next");
    line() << "const " << cType(v.getType()) << " " << n << " = " << value(v) << ";\n";
    next.push_back(n);
  }
  for (auto [c, n] : llvm::zip(carried, next))
    line() << c << " = " << n << ";\n";
}

Error Emitter::emitFor(scf::ForOp op) {
  // Loop-carried values live in mutable locals around the loop.
  SmallVector<std::string> carried;
  for (auto [init, result] : llvm::zip(op.getInitArgs(), op.getResults())) {
    if (!result.getType().isIntOrIndexOrFloat())
      return errorAt(op, "a for loop carries only scalars");
    std::string n = newName("acc");
    line() << cType(result.getType()) << " " << n << " = " << value(init) << ";\n";
    carried.push_back(n);
    names[result] = n;
  }
  std::string iv = newName("i");
  std::string step = value(op.getStep());
  line() << "for (int64_t " << iv << " = " << value(op.getLowerBound()) << "; " << iv << " < "
         << value(op.getUpperBound()) << "; "
         << (step == "1" ? "++" + iv : iv + " += " + step) << ") {\n";
  ++indent;
  names[op.getInductionVar()] = iv;
  for (auto [arg, n] : llvm::zip(op.getRegionIterArgs(), carried))
    names[arg] = n;
  Block &body = *op.getBody();
  for (Operation &inner : body.without_terminator())
    if (Error e = emitOp(inner))
      return e;
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  assignCarried(yield, carried);
  --indent;
  line() << "}\n";
  return Error::success();
}

/// With --threads N (the module's onnxcc.threads), a parallel loop nest at
/// the top of the function whose outermost dim has static bounds and at
/// least N iterations, and whose static iteration count is large enough to
/// pay for waking the pool, runs in N parts, each a fixed range of that dim.
/// Every element is computed exactly as by one thread: results do not depend
/// on the split. Nests that call functions (a status to return) stay serial.
int64_t Emitter::loopParts(scf::ParallelOp op) const {
  if (moduleThreads < 2 || !isa<func::FuncOp>(op->getParentOp()))
    return 1;
  auto lb = getConstantIntValue(op.getLowerBound()[0]);
  auto ub = getConstantIntValue(op.getUpperBound()[0]);
  auto step = getConstantIntValue(op.getStep()[0]);
  if (!lb || !ub || !step || *step < 1 || (*ub - *lb + *step - 1) / *step < moduleThreads)
    return 1;
  // Iterations of the whole nest, counting dims with unknown bounds as 1.
  const int64_t enough = 32768;
  int64_t work = 1;
  bool calls = false;
  op->walk([&](Operation *inner) {
    calls |= isa<func::CallOp>(inner);
    auto count = [&](Value l, Value u, Value s) {
      auto a = getConstantIntValue(l), b = getConstantIntValue(u), c = getConstantIntValue(s);
      if (a && b && c && *c > 0 && *b > *a)
        work = std::min(work * std::min((*b - *a + *c - 1) / *c, enough), enough);
    };
    if (auto p = dyn_cast<scf::ParallelOp>(inner))
      for (unsigned d = 0; d < p.getNumLoops(); ++d)
        count(p.getLowerBound()[d], p.getUpperBound()[d], p.getStep()[d]);
    else if (auto f = dyn_cast<scf::ForOp>(inner))
      count(f.getLowerBound(), f.getUpperBound(), f.getStep());
  });
  return calls || work < enough ? 1 : moduleThreads;
}

Error Emitter::emitParallel(scf::ParallelOp op) {
  if (op.getNumResults() != 0)
    return errorAt(op, "a parallel loop with reductions");
  int64_t parts = loopParts(op);
  // The innermost loop of the nest is marked independent when no loop or
  // call is inside it and it reads no buffer it writes at other indices
  // than it writes (linalg's parallel dims guarantee that much; the check
  // keeps a nest built otherwise from being vectorized wrongly).
  bool innermost = true;
  SmallVector<memref::StoreOp> stores;
  op.getBody()->walk([&](Operation *inner) {
    if (isa<LoopLikeOpInterface>(inner) || isa<func::CallOp>(inner))
      innermost = false;
    if (auto store = dyn_cast<memref::StoreOp>(inner))
      stores.push_back(store);
  });
  op.getBody()->walk([&](memref::LoadOp load) {
    for (memref::StoreOp store : stores)
      if (store.getMemRef() == load.getMemRef() &&
          !llvm::equal(store.getIndices(), load.getIndices()))
        innermost = false;
  });
  std::string job;
  if (parts > 1) {
    job = newName();
    line() << "auto " << job << " = [&](int64_t part_) {\n";
    ++indent;
  }
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    std::string iv = newName("i");
    std::string step = value(op.getStep()[d]);
    std::string lo = value(op.getLowerBound()[d]), hi = value(op.getUpperBound()[d]);
    if (d == 0 && parts > 1) {
      // Part p takes iterations [T p / N, T (p + 1) / N) of the T there are.
      int64_t l = *getConstantIntValue(op.getLowerBound()[0]);
      int64_t u = *getConstantIntValue(op.getUpperBound()[0]);
      int64_t s = *getConstantIntValue(op.getStep()[0]);
      int64_t trips = (u - l + s - 1) / s;
      // The last part ends at l + T s, past the last iteration by less than s.
      auto bound = [&](const std::string &part) {
        std::string k = part + " * INT64_C(" + std::to_string(trips) + ") / " +
                        std::to_string(parts);
        if (s != 1)
          k = "(" + k + ") * INT64_C(" + std::to_string(s) + ")";
        return l == 0 ? k : "INT64_C(" + std::to_string(l) + ") + " + k;
      };
      lo = bound("part_");
      hi = bound("(part_ + 1)");
    }
    // (GCC at -O2 cannot prove it when buffers might overlap.)
    if (d + 1 == op.getNumLoops() && innermost)
      line() << "ONNXCC_INDEPENDENT\n";
    line() << "for (int64_t " << iv << " = " << lo << "; " << iv << " < " << hi << "; "
           << (step == "1" ? "++" + iv : iv + " += " + step) << ") {\n";
    ++indent;
    names[op.getInductionVars()[d]] = iv;
  }
  Block &body = *op.getBody();
  for (Operation &inner : body.without_terminator())
    if (Error e = emitOp(inner))
      return e;
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    --indent;
    line() << "}\n";
  }
  if (parts > 1) {
    --indent;
    line() << "};\n";
    line() << "onnxcc_rt::parallel_for(" << options.name << "_parallel_, " << options.name
           << "_parallel_ctx_, " << options.name << "_pool_, " << parts << ", " << job << ");\n";
  }
  return Error::success();
}

Error Emitter::emitIf(scf::IfOp op) {
  SmallVector<std::string> results;
  for (Value r : op.getResults()) {
    if (!r.getType().isIntOrIndexOrFloat())
      return errorAt(op, "an if yields only scalars");
    std::string n = newName("sel");
    line() << cType(r.getType()) << " " << n << ";\n";
    results.push_back(n);
    names[r] = n;
  }
  auto emitRegion = [&](Region &region) -> Error {
    ++indent;
    Block &block = region.front();
    for (Operation &inner : block.without_terminator())
      if (Error e = emitOp(inner))
        return e;
    if (auto yield = dyn_cast<scf::YieldOp>(block.getTerminator()))
      for (auto [n, v] : llvm::zip(results, yield.getOperands()))
        line() << n << " = " << value(v) << ";\n";
    --indent;
    return Error::success();
  };
  line() << "if (" << value(op.getCondition()) << ") {\n";
  if (Error e = emitRegion(op.getThenRegion()))
    return e;
  if (!op.getElseRegion().empty()) {
    line() << "} else {\n";
    if (Error e = emitRegion(op.getElseRegion()))
      return e;
  }
  line() << "}\n";
  return Error::success();
}

Error Emitter::emitWhile(scf::WhileOp op) {
  // Carried values live in mutable locals around the loop; the results are
  // the condition's operands when it fails. Only scalars: buffers stay in
  // place (see lowering/OnnxToLinalg/ControlFlow.cpp).
  for (Type t : op->getResultTypes())
    if (!t.isIntOrIndexOrFloat())
      return errorAt(op, "a while loop carries only scalars");
  SmallVector<std::string> carried, results;
  for (auto [init, arg] : llvm::zip(op.getInits(), op.getBeforeArguments())) {
    if (!arg.getType().isIntOrIndexOrFloat())
      return errorAt(op, "a while loop carries only scalars");
    std::string n = newName("acc");
    line() << cType(arg.getType()) << " " << n << " = " << value(init) << ";\n";
    carried.push_back(n);
    names[arg] = n;
  }
  for (Value r : op.getResults()) {
    std::string n = newName("res");
    line() << cType(r.getType()) << " " << n << "{};\n";
    results.push_back(n);
    names[r] = n;
  }
  line() << "for (;;) {\n";
  ++indent;
  Block &before = op.getBefore().front();
  for (Operation &inner : before.without_terminator())
    if (Error e = emitOp(inner))
      return e;
  auto condition = cast<scf::ConditionOp>(before.getTerminator());
  SmallVector<std::string> forwarded;
  for (auto [v, arg] : llvm::zip(condition.getArgs(), op.getAfterArguments())) {
    std::string n = newName("fwd");
    line() << "const " << cType(arg.getType()) << " " << n << " = " << value(v) << ";\n";
    names[arg] = n;
    forwarded.push_back(n);
  }
  line() << "if (!" << value(condition.getCondition()) << ") {\n";
  for (auto [r, n] : llvm::zip(results, forwarded))
    line() << "  " << r << " = " << n << ";\n";
  line() << "  break;\n";
  line() << "}\n";
  Block &after = op.getAfter().front();
  for (Operation &inner : after.without_terminator())
    if (Error e = emitOp(inner))
      return e;
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  assignCarried(yield, carried);
  --indent;
  line() << "}\n";
  return Error::success();
}

/// The runtime-support function a call reaches (a declaration with
/// onnxcc.runtime), or null.
func::FuncOp runtimeCallee(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  if (!callee || !callee.isExternal() || !callee->getAttrOfType<StringAttr>("onnxcc.runtime"))
    return {};
  return callee;
}

Error Emitter::emitCall(func::CallOp op) {
  func::FuncOp callee = runtimeCallee(op);
  if (!callee)
    return errorAt(op, "calls reach only runtime-support functions (declarations with "
                       "onnxcc.runtime)");
  // A call split into parts runs once per part on the thread pool
  // (onnxcc.parts, from --threads); `part_` replaces its part operand.
  int64_t parts = 1, partOperand = -1;
  if (auto a = op->getAttrOfType<IntegerAttr>("onnxcc.parts")) {
    parts = a.getInt();
    auto p = op->getAttrOfType<IntegerAttr>("onnxcc.part_operand");
    if (parts < 1 || !p || p.getInt() < 0 || p.getInt() >= op.getNumOperands() ||
        op.getNumResults() != 1 || !callee.getResultAttr(0, "onnxcc.status"))
      return errorAt(op, "a call in parts needs onnxcc.part_operand and a status result");
    partOperand = p.getInt();
  }
  std::string args;
  for (auto [i, v] : llvm::enumerate(op.getOperands())) {
    std::string arg;
    if (parts > 1 && static_cast<int64_t>(i) == partOperand) {
      arg = "part_";
    } else if (auto type = dyn_cast<MemRefType>(v.getType())) {
      // The first element: runtime functions take dense buffers.
      if (!type.getLayout().isIdentity())
        return errorAt(op, "a runtime-support call takes dense buffers");
      const MemRefView &view = views[v];
      arg = view.offset == "0" ? view.base : "(" + view.base + " + " + view.offset + ")";
    } else {
      arg = value(v);
    }
    args += (args.empty() ? "" : ", ") + arg;
  }
  if (callee->hasAttr("onnxcc.string_pool"))
    args += (args.empty() ? "" : ", ") + std::string("&string_pool_");
  std::string call =
      callee->getAttrOfType<StringAttr>("onnxcc.runtime").str() + "(" + args + ")";
  if (parts > 1) {
    std::string st = newName(), job = newName();
    line() << "int " << st << "[" << parts << "] = {};\n";
    line() << "auto " << job << " = [&](int64_t part_) { " << st << "[part_] = " << call
           << "; };\n";
    line() << "onnxcc_rt::parallel_for(" << options.name << "_parallel_, " << options.name
           << "_parallel_ctx_, " << options.name << "_pool_, " << parts << ", " << job << ");\n";
    line() << "for (const int s_ : " << st << ")\n";
    line() << "  if (s_)\n";
    line() << "    return s_;\n";
    return Error::success();
  }
  if (op.getNumResults() == 0) {
    line() << call << ";\n";
    return Error::success();
  }
  if (op.getNumResults() != 1)
    return errorAt(op, "a runtime-support call with more than one result");
  if (callee.getResultAttr(0, "onnxcc.status")) {
    if (!op.getResult(0).getType().isInteger(32))
      return errorAt(op, "a status is an i32");
    std::string n = newName();
    line() << "if (const int " << n << " = " << call << ")\n";
    line() << "  return " << n << ";\n";
    return Error::success();
  }
  return define(op.getResult(0), call);
}

Error Emitter::emitLaunch(gpu::LaunchFuncOp op) {
  if (!options.cuda)
    return errorAt(op, "a kernel launch needs the CUDA target");
  if (op.getAsyncToken() || !op.getAsyncDependencies().empty() || op.getClusterSizeX() ||
      op.getDynamicSharedMemorySize())
    return errorAt(op, "asynchronous launches, clusters and dynamic shared memory are not "
                       "supported");
  int index = kernels.insert({op.getKernel(), int(kernels.size())}).first->second;
  // The kernel's parameters as the NVVM lowering expands them: a memref is
  // its descriptor (allocated and aligned pointer, offset, sizes, strides),
  // an index a 64-bit integer.
  SmallVector<std::string> params;
  line() << "{\n";
  ++indent;
  for (Value v : op.getKernelOperands()) {
    Type t = v.getType();
    if (auto m = dyn_cast<MemRefType>(t)) {
      const MemRefView &view = views[v];
      if (view.base.empty())
        return errorAt(op, "a kernel argument with no known buffer");
      std::string p = newName("p");
      line() << "const void *" << p << "_ptr = " << view.base << ";\n";
      params.push_back(p + "_ptr");
      params.push_back(p + "_ptr");
      line() << "int64_t " << p << "_offset = " << view.offset << ";\n";
      params.push_back(p + "_offset");
      for (int64_t d = 0; d < m.getRank(); ++d) {
        line() << "int64_t " << p << "_size" << d << " = " << view.sizes[d] << ";\n";
        params.push_back(p + "_size" + std::to_string(d));
      }
      for (int64_t d = 0; d < m.getRank(); ++d) {
        line() << "int64_t " << p << "_stride" << d << " = " << view.strides[d] << ";\n";
        params.push_back(p + "_stride" + std::to_string(d));
      }
      continue;
    }
    std::string type;
    if (t.isIndex() || t.isInteger(64))
      type = "int64_t";
    else if (t.isInteger(32))
      type = "int32_t";
    else if (t.isInteger(16))
      type = "int16_t";
    else if (t.isInteger(8) || t.isInteger(1))
      type = "uint8_t";
    else if (t.isF32())
      type = "float";
    else if (t.isF64())
      type = "double";
    else
      return errorAt(op, "a kernel argument of an unsupported scalar type");
    std::string p = newName("p");
    line() << type << " " << p << " = static_cast<" << type << ">(" << value(v) << ");\n";
    params.push_back(p);
  }
  std::string list;
  for (const std::string &p : params)
    list += (list.empty() ? "" : ", ") + std::string("(void *)&") + p;
  line() << "void *params_[] = {" << (list.empty() ? "nullptr" : list) << "};\n";
  auto dim = [&](Value v) { return "static_cast<int64_t>(" + value(v) + ")"; };
  gpu::KernelDim3 grid = op.getGridSizeOperandValues(), block = op.getBlockSizeOperandValues();
  line() << "if (const int s_ = onnxcc_cuda::launch(cuda_, " << index << ", " << dim(grid.x)
         << ", " << dim(grid.y) << ", " << dim(grid.z) << ", " << dim(block.x) << ", "
         << dim(block.y) << ", " << dim(block.z) << ", params_))\n";
  line() << "  return s_;\n";
  --indent;
  line() << "}\n";
  return Error::success();
}

/// dtype names as `onnxcc inspect` prints them.
std::string dtypeOf(func::FuncOp func, unsigned arg) {
  if (auto d = func.getArgAttrOfType<StringAttr>(arg, "onnx.dtype"))
    return d.str();
  return "unknown";
}

Expected<CppModel> Emitter::emit(ModuleOp module) {
  func::FuncOp func, sizeFn;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue; // A runtime-support function (see emitCall).
    if (f->hasAttr("onnxcc.arena_size_of")) {
      if (sizeFn)
        return errorAt(f, "more than one arena size function");
      sizeFn = f;
    } else if (func) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the lowered module must hold exactly one function");
    } else {
      func = f;
    }
  }
  if (!func)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the lowered module must hold exactly one function");
  if (Error e = collectWeights(module))
    return std::move(e);

  const std::string &n = options.name;
  // Classify arguments: symbols, inputs, outputs, the arena.
  struct Port {
    unsigned arg;
    std::string name, dtype, ctype;
    MemRefType type;
    ArrayAttr dims; // onnxcc.dims when some dim is symbolic (or a bound symbol)
    /// An output whose dims the data decides: which dims (onnxcc.data_dependent;
    /// `dims` holds their bounds), and the argument run() writes its dims to.
    SmallVector<bool> dataDims;
    int dimsArg = -1;
    /// An output holding ZipMap's sequence of maps as their values: the keys
    /// of every map (onnxcc.map_keys, int64 or string attributes).
    ArrayAttr mapKeys;
    /// An input that is a map's keys or values ("keys", "values"; see
    /// onnxcc.map_part), or "".
    std::string mapPart;
    bool dataDim(int64_t d) const { return d < int64_t(dataDims.size()) && dataDims[d]; }
    /// Dim `d` is a symbol's: dynamic, or static by a bound symbol
    /// (onnxcc.bound_symbols) whose name the header still shows.
    bool symbolicDim(int64_t d) const {
      return type.isDynamicDim(d) || (dims && !isa<IntegerAttr>(dims[d]));
    }
    /// A string tensor: `const char *` elements, i64 inside.
    bool isString() const { return dtype == "string"; }
    /// The pointer type of the port in the interface.
    std::string paramType(bool input) const {
      if (isString())
        return input ? "const char *const *" : "const char **";
      return input ? "const " + ctype + " *" : ctype + " *";
    }
  };
  SmallVector<Port> inputs, outputs;
  SmallVector<std::pair<unsigned, std::string>> symbols; // arg, symbol name
  int arenaArg = -1;
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (func.getArgAttr(i, "onnxcc.arena")) {
      arenaArg = i;
      continue;
    }
    if (auto sym = func.getArgAttrOfType<StringAttr>(i, "onnxcc.symbol")) {
      symbols.push_back({i, sym.str()});
      continue;
    }
    if (func.getArgAttr(i, "onnxcc.output_dims")) {
      if (outputs.empty() || outputs.back().dataDims.empty() || outputs.back().dimsArg >= 0)
        return errorAt(func, "a dims argument must follow its data-dependent output");
      outputs.back().dimsArg = i;
      continue;
    }
    auto type = dyn_cast<MemRefType>(arg.getType());
    auto dims = func.getArgAttrOfType<ArrayAttr>(i, "onnxcc.dims");
    if (!type || (!type.hasStaticShape() && (!dims || dims.size() != size_t(type.getRank()))))
      return errorAt(func, "function arguments must be buffers with static or symbolic dims");
    auto nameAttr = func.getArgAttrOfType<StringAttr>(i, "onnx.name");
    Port p{i, nameAttr ? nameAttr.str() : "arg" + std::to_string(i), dtypeOf(func, i),
           storageType(type.getElementType()), type,
           dims && dims.size() == size_t(type.getRank()) ? dims : ArrayAttr()};
    // The interface uses the ONNX type; inside, integers are signless.
    if (StringRef(p.dtype).starts_with("uint"))
      p.ctype = "u" + p.ctype;
    if (p.ctype.empty())
      return errorAt(func, "unsupported element type of '" + p.name + "'");
    if (p.isString() && !type.getElementType().isInteger(64))
      return errorAt(func, "string tensor '" + p.name + "' is not held as i64");
    if (auto data = func.getArgAttrOfType<DenseBoolArrayAttr>(i, "onnxcc.data_dependent"))
      p.dataDims.assign(data.asArrayRef().begin(), data.asArrayRef().end());
    p.mapKeys = func.getArgAttrOfType<ArrayAttr>(i, "onnxcc.map_keys");
    if (auto part = func.getArgAttrOfType<StringAttr>(i, "onnxcc.map_part")) {
      p.mapPart = part.str();
      if (func.getArgAttr(i, "onnxcc.output") || p.type.getRank() != 1 || !p.dims ||
          isa<IntegerAttr>(p.dims[0]))
        return errorAt(func, "input '" + p.name + "': a map's " + p.mapPart +
                             " must be 1-D of a symbolic length");
    }
    if (p.mapKeys &&
        (!func.getArgAttr(i, "onnxcc.output") || p.dtype != "float32" ||
         p.type.getRank() < 1 || p.type.getRank() > 2 || p.type.isDynamicDim(p.type.getRank() - 1) ||
         p.type.getDimSize(p.type.getRank() - 1) != int64_t(p.mapKeys.size()) ||
         !(llvm::all_of(p.mapKeys, [](Attribute a) { return isa<IntegerAttr>(a); }) ||
           llvm::all_of(p.mapKeys, [](Attribute a) { return isa<StringAttr>(a); }))))
      return errorAt(func, "output '" + p.name + "': its map keys do not fit its values "
                           "(float32 [N, keys] or [keys])");
    (func.getArgAttr(i, "onnxcc.output") ? outputs : inputs).push_back(p);
  }
  bool hasStrings = llvm::any_of(inputs, [](const Port &p) { return p.isString(); }) ||
                    llvm::any_of(outputs, [](const Port &p) { return p.isString(); });
  if (arenaArg < 0)
    return errorAt(func, "the function has no arena argument (run onnxcc-plan-memory)");
  bool symbolic = !symbols.empty();
  // The largest dim run() accepts: sizes computed from larger ones could
  // overflow (onnxcc-plan-memory's bound).
  int64_t maxDim = 2147483647;
  if (auto a = func->getAttrOfType<IntegerAttr>("onnxcc.max_dim"))
    maxDim = std::min<int64_t>(maxDim, a.getInt());
  if (symbolic && !sizeFn)
    return errorAt(func, "a model with symbolic dims needs its arena size function");
  int64_t arenaSize = 0;
  if (auto a = func->getAttrOfType<IntegerAttr>("onnxcc.arena_size"))
    arenaSize = a.getInt();
  // The string pool follows the planned buffers when some runtime function
  // writes strings; its size is the module's onnxcc.string_pool_size.
  int64_t stringPoolSize = 0;
  bool usesStringPool = false;
  bool usesKernels = false;
  bool usesML = false;
  if (auto a = module->getAttrOfType<IntegerAttr>("onnxcc.threads"))
    moduleThreads = a.getInt();
  int64_t threads = 1; // parts of the calls and loops split for the thread pool
  for (auto loop : func.getOps<scf::ParallelOp>())
    threads = std::max(threads, loopParts(loop));
  func.walk([&](func::CallOp call) {
    if (auto parts = call->getAttrOfType<IntegerAttr>("onnxcc.parts"))
      threads = std::max<int64_t>(threads, parts.getInt());
    if (func::FuncOp callee = runtimeCallee(call)) {
      usesStringPool |= callee->hasAttr("onnxcc.string_pool");
      usesML |= callee->getAttrOfType<StringAttr>("onnxcc.runtime")
                    .getValue()
                    .starts_with("onnxcc_rt::ml::");
      usesKernels |= callee->getAttrOfType<StringAttr>("onnxcc.runtime")
                         .getValue()
                         .starts_with("onnxcc_rt::kernels::");
    }
  });
  // The kernels are compiled for the ISA their weights were packed for.
  StringRef kernelsIsa;
  if (usesKernels) {
    auto isa = module->getAttrOfType<StringAttr>("onnxcc.kernels_isa");
    if (!isa || !llvm::is_contained({"generic", "avx2", "avx512", "neon"}, isa.getValue()))
      return errorAt(module, "calls into the kernels need the module's onnxcc.kernels_isa "
                             "(generic, avx2, avx512 or neon)");
    kernelsIsa = isa.getValue();
  }
  if (usesStringPool) {
    stringPoolSize = 65536;
    if (auto a = module->getAttrOfType<IntegerAttr>("onnxcc.string_pool_size"))
      stringPoolSize = a.getInt();
    if (stringPoolSize < 0)
      return errorAt(module, "negative string pool size");
    stringPoolBytes = (stringPoolSize + 63) / 64 * 64;
    arenaSize += stringPoolBytes;
  }

  if (options.cuda) {
    auto refuse = [&](const Twine &what) {
      return errorAt(func, what + " are not supported by --target cuda yet");
    };
    if (hasStrings)
      return refuse("string tensors");
    if (usesKernels || usesML || usesStringPool)
      return refuse("runtime-support kernels on tensors");
    if (!options.embedWeights)
      return refuse("weights in a separate file (--weights file)");
    for (StringRef key : {"onnxcc.io_inputs", "onnxcc.io_outputs"})
      if (auto io = func->getAttrOfType<ArrayAttr>(key);
          io && llvm::any_of(io, [](Attribute a) {
            auto k = cast<DictionaryAttr>(a).getAs<StringAttr>("kind");
            return k && k.getValue() != "tensor";
          }))
        return refuse("sequence and optional inputs and outputs");
    if (llvm::any_of(outputs, [](const Port &p) { return p.dimsArg >= 0; }))
      return refuse("outputs whose dims depend on the data");
    if (llvm::any_of(outputs, [](const Port &p) { return bool(p.mapKeys); }) ||
        llvm::any_of(inputs, [](const Port &p) { return !p.mapPart.empty(); }))
      return refuse("map inputs and outputs");
  }
  // C identifiers for the ports: the ONNX name, made unique. Besides what
  // IdentifierTable excludes, not one of the emitter's own names (the
  // numbered locals v12, i3, acc4, next5, sel6, the size function's s0, and
  // the model's NAME_ symbols).
  for (const char *own : {"onnxcc_rt", "weights", "weights_", "arena_", "inputs", "outputs",
                          "string_pool_", "arena", "arena_size", "dims", "Model"})
    idents.reserve(own);
  for (const char *numbered : {"v", "i", "acc", "next", "sel", "s", "t_"})
    idents.reserveNumbered(numbered);
  idents.reservePrefix(options.name + "_");
  if (options.cuda) {
    // The CUDA target's own names in run() and NAME_cuda_run().
    for (const char *own : {"cuda_", "cuda_weights_", "params_", "s_", "model", "stream", "m",
                            "bytes", "status", "scope", "host_in", "host_out", "device_in",
                            "device_out", "key"})
      idents.reserve(own);
    idents.reserveNumbered("p");
  }
  SmallVector<std::string> symbolNames;
  for (auto &[arg, name] : symbols) {
    std::string id = idents.unique(name);
    symbolIdents[name] = id;
    names[func.getArgument(arg)] = id;
    symbolNames.push_back(id);
  }
  auto portView = [&](Port &p, const std::string &id) {
    SmallVector<std::string> sizes;
    if (p.dims)
      for (int64_t d = 0; d < p.type.getRank(); ++d)
        if (p.type.isDynamicDim(d))
          sizes.push_back(dimExpr(p.dims[d]));
    return identityView(p.type, id, sizes);
  };
  // Sequences and optionals at the boundary (codegen/cpp/ABI.md, "Sequences
  // and optionals"): the ports of each graph input or output, grouped by
  // their onnxcc.io entry. run() is then a wrapper of the ports' function.
  struct Group {
    std::string name, kind, dtype, ctype, id;
    int64_t count = 0;     // elements of a sequence
    int64_t elemSize = 0;  // bytes per element
    int64_t rank = 0;      // rank of the value or of every element
    SmallVector<SmallVector<int64_t>> shapes; // of the value, or of each element
    SmallVector<const Port *> elements;       // list form
    const Port *stack = nullptr, *value = nullptr, *flag = nullptr;
    // A sequence the data decides: its padded rows [max_count, D...], their
    // dims [max_count, rank] and the count, which run() packs densely.
    const Port *raggedData = nullptr, *raggedDims = nullptr, *raggedCount = nullptr;
    bool ragged() const { return raggedData != nullptr; }
    bool sequence() const { return kind == "sequence" || kind == "optional_sequence"; }
    bool optional() const { return kind == "optional" || kind == "optional_sequence"; }
    int kindCode() const {
      return kind == "sequence" ? 1 : kind == "optional" ? 2 : kind == "optional_sequence" ? 3 : 0;
    }
    int64_t numElements(size_t k) const {
      int64_t e = 1;
      for (int64_t d : shapes[k]) {
        // A tensor whose dims the data decides: see NAME_output_capacity.
        if (ShapedType::isDynamic(d))
          return 0;
        e *= d;
      }
      return e;
    }
    int64_t offset(size_t k) const {
      int64_t o = 0;
      for (size_t j = 0; j < k; ++j)
        o += numElements(j);
      return o;
    }
    int64_t capacity() const { return shapes.empty() ? 0 : offset(shapes.size()); }
    /// The table's shape: each dim the elements agree on, else -1.
    SmallVector<int64_t> commonShape() const {
      SmallVector<int64_t> common(rank, -1);
      if (ragged())
        return common;
      for (int64_t d = 0; d < rank; ++d)
        if (!shapes.empty() && llvm::all_of(shapes, [&](const SmallVector<int64_t> &sh) {
              return sh[d] == shapes.front()[d];
            }))
          common[d] = shapes.front()[d];
      return common;
    }
  };
  std::vector<Group> inGroups, outGroups;
  bool grouped = func->hasAttr("onnxcc.io_inputs") && func->hasAttr("onnxcc.io_outputs");
  if (grouped) {
    if (symbolic)
      return errorAt(func, "sequence or optional inputs and outputs together with symbolic "
                           "dims are not supported yet");
    for (auto [key, groups, ports] :
         {std::make_tuple("onnxcc.io_inputs", &inGroups, &inputs),
          std::make_tuple("onnxcc.io_outputs", &outGroups, &outputs)}) {
      for (auto entry : func->getAttrOfType<ArrayAttr>(key).getAsRange<DictionaryAttr>()) {
        Group g;
        auto str = [&](StringRef k) {
          auto a = entry.getAs<StringAttr>(k);
          return a ? a.str() : std::string();
        };
        g.name = str("name");
        g.kind = str("kind");
        g.dtype = str("dtype");
        if (auto c = entry.getAs<IntegerAttr>("count"))
          g.count = c.getInt();
        if (auto t = entry.getAs<TypeAttr>("elem_type")) {
          Type elem = t.getValue();
          g.ctype = storageType(elem);
          g.elemSize = (elem.getIntOrFloatBitWidth() + 7) / 8;
        }
        groups->push_back(g);
      }
      for (const Port &p : *ports) {
        auto io = func.getArgAttrOfType<IntegerAttr>(p.arg, "onnxcc.io");
        auto role = func.getArgAttrOfType<StringAttr>(p.arg, "onnxcc.role");
        if (!io || !role || io.getInt() < 0 || io.getInt() >= int64_t(groups->size()))
          return errorAt(func, "port '" + p.name + "' belongs to no input or output");
        Group &g = (*groups)[io.getInt()];
        if (p.isString() && role.getValue() != "value")
          return errorAt(func, "'" + p.name + "': sequences and optionals of strings are not "
                               "supported yet");
        if (role.getValue() == "flag") {
          g.flag = &p;
          continue;
        }
        // A ragged sequence's dims and count are int64 whatever its elements.
        if (role.getValue() == "ragged_dims") {
          g.raggedDims = &p;
          continue;
        }
        if (role.getValue() == "ragged_count") {
          g.raggedCount = &p;
          continue;
        }
        if (g.dtype.empty() || g.kind == "tensor")
          g.dtype = p.dtype;
        g.ctype = p.ctype;
        g.elemSize = (p.type.getElementTypeBitWidth() + 7) / 8;
        if (role.getValue() == "value") {
          g.value = &p;
          g.shapes.push_back(SmallVector<int64_t>(p.type.getShape()));
        } else if (role.getValue() == "stack") {
          g.stack = &p;
        } else if (role.getValue() == "element") {
          g.elements.push_back(&p);
        } else if (role.getValue() == "ragged_data") {
          g.raggedData = &p;
        } else {
          return errorAt(func, "port '" + p.name + "' has the unknown role '" + role.getValue() +
                                   "'");
        }
      }
      for (Group &g : *groups) {
        if (g.raggedData || g.raggedDims || g.raggedCount) {
          if (!g.raggedData || !g.raggedDims || !g.raggedCount || !g.raggedData->type.hasStaticShape() ||
              g.raggedData->type.getRank() < 1 || g.elements.size() || g.stack)
            return errorAt(func, "sequence '" + g.name + "' has incomplete ragged ports");
          ArrayRef<int64_t> shape = g.raggedData->type.getShape();
          g.count = shape.front();
          for (int64_t k = 0; k < g.count; ++k)
            g.shapes.push_back(SmallVector<int64_t>(shape.drop_front()));
          g.rank = shape.size() - 1;
        } else if (g.stack) {
          ArrayRef<int64_t> shape = g.stack->type.getShape();
          g.count = shape.front();
          for (int64_t k = 0; k < g.count; ++k)
            g.shapes.push_back(SmallVector<int64_t>(shape.drop_front()));
          g.rank = shape.size() - 1;
        } else if (g.sequence()) {
          llvm::sort(g.elements, [&](const Port *a, const Port *b) {
            return func.getArgAttrOfType<IntegerAttr>(a->arg, "onnxcc.element").getInt() <
                   func.getArgAttrOfType<IntegerAttr>(b->arg, "onnxcc.element").getInt();
          });
          g.count = g.elements.size();
          for (const Port *e : g.elements)
            g.shapes.push_back(SmallVector<int64_t>(e->type.getShape()));
          if (!g.elements.empty())
            g.rank = g.elements.front()->type.getRank();
          for (const Port *e : g.elements)
            if (e->type.getRank() != g.rank)
              return errorAt(func, "the elements of sequence '" + g.name +
                                       "' differ in rank, which the interface cannot express");
        } else if (g.value) {
          g.rank = g.value->type.getRank();
        }
        if (g.kind != "tensor" && g.ctype.empty())
          return errorAt(func, "sequence or optional '" + g.name + "' has no element type");
        if (!g.sequence() && !g.value)
          return errorAt(func, "'" + g.name + "' has no value port");
        if (g.optional() && !g.flag)
          return errorAt(func, "optional '" + g.name + "' has no present flag");
      }
    }
    if (llvm::all_of(inGroups, [](const Group &g) { return g.kind == "tensor"; }) &&
        llvm::all_of(outGroups, [](const Group &g) { return g.kind == "tensor"; }))
      grouped = false;
    for (auto *groups : {&inGroups, &outGroups})
      for (Group &g : *groups)
        g.id = idents.unique(g.name);
  }
  // Inside, a string tensor is its pointers as int64_t (see the
  // static_assert in the source).
  for (Port &p : inputs) {
    std::string id = idents.unique(p.mapPart.empty() ? p.name : p.name + "_" + p.mapPart);
    views[func.getArgument(p.arg)] =
        portView(p, p.isString() ? "reinterpret_cast<const int64_t *>(" + id + ")" : id);
    names[func.getArgument(p.arg)] = id;
  }
  for (Port &p : outputs) {
    std::string id = idents.unique(p.name);
    views[func.getArgument(p.arg)] =
        portView(p, p.isString() ? "reinterpret_cast<int64_t *>(" + id + ")" : id);
    names[func.getArgument(p.arg)] = id;
    if (p.dimsArg >= 0) {
      std::string dimsId = idents.unique(p.name + "_dims");
      BlockArgument dimsArg = func.getArgument(p.dimsArg);
      views[dimsArg] = identityView(cast<MemRefType>(dimsArg.getType()), dimsId);
      names[dimsArg] = dimsId;
    }
  }
  bool hasDataDims = llvm::any_of(outputs, [](const Port &p) { return p.dimsArg >= 0; });
  // The parameter after a data-dependent output: where run() writes its dims.
  auto dimsParam = [&](const Port &p) -> std::string {
    if (p.dimsArg < 0)
      return "";
    return ",\n    int64_t *" + names[func.getArgument(p.dimsArg)] + " /* its " +
           std::to_string(p.type.getRank()) + " dims, written by run() */";
  };
  // The arena size function, over the same symbol names.
  std::string sizeBody;
  if (sizeFn) {
    for (auto [k, arg] : llvm::enumerate(sizeFn.getArguments()))
      names[arg] = k < symbolNames.size() ? symbolNames[k] : "s" + std::to_string(k);
    if (Error e = emitBlock(sizeFn.getBody().front()))
      return std::move(e);
    sizeBody = body;
    body.clear();
    lastNode.clear();
    pendingNode.clear();
  }
  MemRefView arenaView;
  arenaView.base = "arena_";
  arenaView.offset = "0";
  // As a kernel argument (a view made inside a kernel): its bytes.
  arenaView.sizes.push_back(symbolic ? "static_cast<int64_t>(arena_size)"
                                     : std::to_string(arenaSize));
  arenaView.strides.push_back("1");
  views[func.getArgument(arenaArg)] = arenaView;

  // --profile: a mark at the start of each segment that does work (views
  // and scalars cost nothing), one more at the end; the nodes in order of
  // their first mark.
  struct ProfileNode {
    std::string name, opType;
    SmallVector<std::string> calls;
    bool loops = false, copies = false;
  };
  std::vector<ProfileNode> profileNodes;
  std::vector<int> markNodes;
  if (options.profile) {
    std::map<std::pair<std::string, std::string>, int> nodeIndex;
    for (const NodeSegment &segment : segmentFunction(func)) {
      if (!segment.work())
        continue;
      auto [it, added] = nodeIndex.try_emplace({segment.opType, segment.nodeName},
                                               static_cast<int>(profileNodes.size()));
      if (added)
        profileNodes.push_back({segment.nodeName, segment.opType, {}, false, false});
      ProfileNode &node = profileNodes[it->second];
      for (const std::string &call : segment.calls)
        if (!llvm::is_contained(node.calls, call))
          node.calls.push_back(call);
      node.loops |= segment.loops;
      node.copies |= segment.copies || segment.stores;
      markAt[segment.ops.front()] = static_cast<int>(markNodes.size());
      markNodes.push_back(it->second);
    }
    endMark = static_cast<int>(markNodes.size());
    markNodes.push_back(-1);
  }
  if (Error e = emitBlock(func.getBody().front()))
    return std::move(e);
  markAt.clear();
  endMark = -1;
  auto profilePath = [](const ProfileNode &node) {
    return describePath(node.calls, node.loops, node.copies);
  };

  // Dims as the header shows them: numbers, or the symbols' expressions.
  auto dimsOf = [&](const Port &p) {
    std::string s;
    for (int64_t d = 0; d < p.type.getRank(); ++d)
      s += (s.empty() ? "" : ", ") + std::string(p.dataDim(d) ? "<=" : "") +
           (p.symbolicDim(d) ? dimExpr(p.dims[d]) : std::to_string(p.type.getDimSize(d)));
    return s;
  };
  // The shape table: -1 for a symbolic dim.
  auto shapeTable = [](const Port &p) {
    std::string s;
    for (int64_t d = 0; d < p.type.getRank(); ++d)
      s += (s.empty() ? "" : ", ") +
           std::to_string(p.symbolicDim(d) ? -1 : p.type.getDimSize(d));
    return s;
  };
  auto dtypeBytes = [](MemRefType t) { return (t.getElementTypeBitWidth() + 7) / 8; };
  std::string symbolParams; // ", int64_t batch, int64_t seq"
  for (const std::string &id : symbolNames)
    symbolParams += ", int64_t " + id;
  std::string symbolArgs; // ", batch, seq"
  for (const std::string &id : symbolNames)
    symbolArgs += ", " + id;
  std::string arenaParam = symbolic ? "void *arena, size_t arena_size" : "void *arena";
  std::string arenaArgs = symbolic ? "arena, arena_size" : "arena";
  std::string weightsParam = options.embedWeights ? "" : ", const void *weights";

  // The public parameters of the grouped interface (", const float *x, ...").
  auto groupParams = [&](bool comments) {
    std::string out;
    auto comment = [&](const Group &g) -> std::string {
      if (!comments)
        return "";
      std::string dims;
      if (g.ragged()) {
        for (auto [d, v] : llvm::enumerate(g.shapes.empty() ? SmallVector<int64_t>()
                                                             : g.shapes.front()))
          dims += (d ? "x" : "") + std::string("<=") + std::to_string(v);
        return " /* " + commentText(g.name) + ": " + (g.optional() ? "optional " : "") +
               "sequence of <=" + std::to_string(g.count) + " " + g.dtype + " ([" + dims +
               "] each; the data decides) */";
      }
      if (g.sequence()) {
        for (auto [k, sh] : llvm::enumerate(g.shapes)) {
          dims += std::string(k ? ", " : "") + "[";
          for (auto [d, v] : llvm::enumerate(sh))
            dims += (d ? "x" : "") + std::to_string(v);
          dims += "]";
        }
        return " /* " + commentText(g.name) + ": " + (g.optional() ? "optional " : "") +
               "sequence of " + std::to_string(g.count) + " " + g.dtype + " (" + dims + ") */";
      }
      if (g.value && !g.value->type.hasStaticShape())
        dims = dimsOf(*g.value);
      else
        for (auto [d, v] : llvm::enumerate(g.shapes.front()))
          dims += (d ? ", " : "") + std::to_string(v);
      return " /* " + commentText(g.name) + ": " + (g.optional() ? "optional " : "") + g.dtype +
             "[" + dims + "]" +
             (g.value && g.value->mapKeys ? ", the values of a sequence of maps" : "") + " */";
    };
    for (const Group &g : inGroups) {
      if (g.kind == "tensor") {
        out += ",\n    " + g.value->paramType(true) + g.id + comment(g);
        continue;
      }
      out += ",\n    const " + g.ctype + " *" + g.id + comment(g);
      if (g.sequence())
        out += ", int64_t " + g.id + "_count, const int64_t *" + g.id + "_dims";
      if (g.optional())
        out += ", bool " + g.id + "_present";
    }
    for (const Group &g : outGroups) {
      if (g.kind == "tensor") {
        out += ",\n    " + g.value->paramType(false) + g.id + comment(g) + dimsParam(*g.value);
        continue;
      }
      out += ",\n    " + g.ctype + " *" + g.id + comment(g);
      if (g.sequence())
        out += ", int64_t *" + g.id + "_count, int64_t *" + g.id + "_dims";
      if (g.optional())
        out += ", bool *" + g.id + "_present";
    }
    return out;
  };
  // The same as arguments (", x, x_count, ...").
  auto groupArgs = [&]() {
    std::string out;
    for (auto *groups : {&inGroups, &outGroups})
      for (const Group &g : *groups) {
        out += ", " + g.id;
        if (g.kind == "tensor" && g.value && g.value->dimsArg >= 0)
          out += ", " + names[func.getArgument(g.value->dimsArg)];
        if (g.sequence())
          out += ", " + g.id + "_count, " + g.id + "_dims";
        if (g.optional())
          out += ", " + g.id + "_present";
      }
    return out;
  };
  // NAME_inputs/NAME_outputs (a sequence: its elements' dtype and rank, -1
  // for a dim they differ in) and NAME_input_kinds/NAME_output_kinds.
  auto groupTables = [&](llvm::raw_ostream &s) {
    for (auto [kind, groups] : {std::make_pair("inputs", &inGroups),
                                std::make_pair("outputs", &outGroups)}) {
      for (auto [i, g] : llvm::enumerate(*groups)) {
        std::string dims;
        for (int64_t d : g.sequence() ? g.commonShape() : g.shapes.front())
          dims += (dims.empty() ? "" : ", ") + std::to_string(ShapedType::isDynamic(d) ? -1 : d);
        s << "static const int64_t " << kind << "_shape_" << i << "[] = {"
          << (dims.empty() ? "0" : dims) << "};\n";
      }
      s << "extern \"C\" const " << n << "_tensor_info " << n << "_" << kind << "["
        << std::max<size_t>(groups->size(), 1) << "] = {\n";
      for (auto [i, g] : llvm::enumerate(*groups))
        s << "  {" << cStringLiteral(g.name, 96, "\n   ") << ", \"" << g.dtype << "\", "
          << (g.kind == "tensor" && g.value->isString() ? "sizeof(const char *)"
                                                         : std::to_string(g.elemSize))
          << ", " << g.rank << ", " << kind << "_shape_" << i << "},\n";
      if (groups->empty())
        s << "  {nullptr, nullptr, 0, 0, nullptr},\n";
      s << "};\n";
      s << "extern \"C\" const " << n << "_value_kind " << n << "_"
        << StringRef(kind).drop_back() << "_kinds[" << std::max<size_t>(groups->size(), 1)
        << "] = {\n";
      for (const Group &g : *groups)
        s << "  {" << g.kindCode() << ", " << (g.sequence() ? g.count : 0) << ", "
          << g.capacity() << "},\n";
      if (groups->empty())
        s << "  {0, 0, 0},\n";
      s << "};\n\n";
    }
  };
  // NAME_run over the groups, and NAME_run_generic.
  auto groupRun = [&](llvm::raw_ostream &s) {
    s << "extern \"C\" int " << n << "_run(" << arenaParam << weightsParam << groupParams(false)
      << ") {\n";
    s << "  if (!arena" << (options.embedWeights ? "" : " || !weights") << ")\n    return 1;\n";
    // The argument of each port, by its function argument.
    std::map<unsigned, std::string> portArgs;
    auto shapeList = [](const Group &g) {
      std::string out;
      for (const auto &sh : g.shapes)
        for (int64_t d : sh)
          out += (out.empty() ? "" : ", ") + std::to_string(d);
      return out;
    };
    for (const Group &g : inGroups) {
      const std::string &x = g.id;
      if (g.kind == "tensor") {
        portArgs[g.value->arg] = x;
        continue;
      }
      std::string present = g.optional() ? x + "_present" : "true";
      if (g.optional())
        s << "  const bool " << x << "_flag_ = " << x << "_present;\n";
      // An absent optional's ports read zeros.
      int64_t absent = g.sequence() ? 0 : g.capacity();
      if (g.sequence())
        for (size_t k = 0; k < g.shapes.size(); ++k)
          absent = std::max(absent, g.numElements(k));
      if (g.optional())
        s << "  static const " << g.ctype << " " << x << "_absent_[" << std::max<int64_t>(absent, 1)
          << "] = {};\n";
      s << "  if (" << present << ") {\n";
      if (g.sequence()) {
        s << "    if (" << x << "_count != " << g.count << ")\n      return 14;\n";
        if (g.count > 0 && g.rank > 0) {
          s << "    if (!" << x << " || !" << x << "_dims)\n      return 1;\n";
          s << "    static const int64_t " << x << "_expected_[] = {" << shapeList(g) << "};\n";
          s << "    for (int64_t k = 0; k < " << g.count * g.rank << "; ++k)\n      if (" << x
            << "_dims[k] != " << x << "_expected_[k])\n        return 14;\n";
        } else if (g.count > 0) {
          s << "    if (!" << x << ")\n      return 1;\n";
        }
      } else {
        s << "    if (!" << x << ")\n      return 1;\n";
      }
      s << "  }\n";
      if (g.flag)
        portArgs[g.flag->arg] = "&" + x + "_flag_";
      auto at = [&](int64_t offset) {
        std::string p = offset ? x + " + " + std::to_string(offset) : x;
        return g.optional() ? "(" + x + "_present ? " + p + " : " + x + "_absent_)" : p;
      };
      if (g.value)
        portArgs[g.value->arg] = at(0);
      for (auto [k, e] : llvm::enumerate(g.elements))
        portArgs[e->arg] = at(g.offset(k));
    }
    for (const Group &g : outGroups) {
      const std::string &y = g.id;
      if (g.kind == "tensor") {
        portArgs[g.value->arg] = y;
        continue;
      }
      s << "  if (!" << y;
      if (g.sequence())
        s << " || !" << y << "_count" << (g.count > 0 && g.rank > 0 ? " || !" + y + "_dims" : "");
      if (g.optional())
        s << " || !" << y << "_present";
      s << ")\n    return 1;\n";
      if (g.flag)
        portArgs[g.flag->arg] = y + "_present";
      if (g.value)
        portArgs[g.value->arg] = y;
      if (g.stack)
        portArgs[g.stack->arg] = y;
      for (auto [k, e] : llvm::enumerate(g.elements))
        portArgs[e->arg] = g.offset(k) ? y + " + " + std::to_string(g.offset(k)) : y;
      if (g.ragged()) {
        // The padded rows go to the caller's buffer (its capacity is theirs)
        // and are packed there after the run; dims and count go straight
        // to the caller's.
        portArgs[g.raggedData->arg] = y;
        portArgs[g.raggedDims->arg] = y + "_dims";
        portArgs[g.raggedCount->arg] = y + "_count";
      }
    }
    s << "  const int status = " << n << "_run_ports_(arena" << (options.embedWeights ? "" : ", weights");
    for (const Port &p : inputs)
      s << ", " << portArgs[p.arg];
    for (const Port &p : outputs) {
      s << ", " << portArgs[p.arg];
      if (p.dimsArg >= 0)
        s << ", " << names[func.getArgument(p.dimsArg)];
    }
    s << ");\n  if (status != 0)\n    return status;\n";
    for (const Group &g : outGroups) {
      if (!g.sequence())
        continue;
      const std::string &y = g.id;
      if (g.ragged()) {
        // Element k is the box dims[k] at the start of row k: moved to the
        // end of the elements before it. Each element's packed place is at
        // or before its padded one, so a forward copy reads every value
        // before anything overwrites it.
        const SmallVector<int64_t> &maxDims = g.shapes.front();
        int64_t row = 1;
        for (int64_t d : maxDims)
          row *= d;
        s << "  {\n    const int64_t count_ = *" << y << "_count;\n";
        s << "    if (count_ < 0 || count_ > " << g.count << ")\n      return 10;\n";
        s << "    int64_t packed_ = 0;\n";
        s << "    for (int64_t k = 0; k < count_; ++k) {\n";
        s << "      const int64_t *box_ = " << y << "_dims + k * " << g.rank << ";\n";
        // -1: a dim an element of a smaller rank lacks (size 1 in its row).
        for (int64_t d = 0; d < g.rank; ++d)
          s << "      if (box_[" << d << "] < -1 || box_[" << d << "] > " << maxDims[d]
            << ")\n        return 10;\n";
        std::string indent = "      ", src = "k * " + std::to_string(row);
        for (int64_t d = 0; d < g.rank; ++d) {
          int64_t stride = 1;
          for (int64_t e = d + 1; e < g.rank; ++e)
            stride *= maxDims[e];
          s << indent << "for (int64_t i" << d << " = 0; i" << d << " < (box_[" << d
            << "] < 0 ? 1 : box_[" << d << "]); ++i" << d << ")\n";
          indent += "  ";
          src += " + i" + std::to_string(d) + " * " + std::to_string(stride);
        }
        s << indent << y << "[packed_++] = " << y << "[" << src << "];\n";
        s << "    }\n  }\n";
        continue;
      }
      std::string present = g.optional() ? "*" + y + "_present" : "true";
      s << "  *" << y << "_count = " << present << " ? " << g.count << " : 0;\n";
      if (g.count > 0 && g.rank > 0) {
        s << "  static const int64_t " << y << "_shapes_[] = {" << shapeList(g) << "};\n";
        s << "  for (int64_t k = 0; " << present << " && k < " << g.count * g.rank << "; ++k)\n    "
          << y << "_dims[k] = " << y << "_shapes_[k];\n";
      }
    }
    s << "  return 0;\n}\n\n";

    s << "extern \"C\" int " << n << "_run_generic(" << arenaParam << weightsParam
      << ", const void *const *inputs, void *const *outputs"
      << (hasDataDims ? ", int64_t *const *output_dims" : "") << ") {\n";
    s << "  if (!inputs || !outputs" << (hasDataDims ? " || !output_dims" : "")
      << ")\n    return 1;\n";
    for (auto [i, g] : llvm::enumerate(inGroups))
      if (g.kind != "tensor")
        s << "  const " << n << "_value *in" << i << " = static_cast<const " << n
          << "_value *>(inputs[" << i << "]);\n  if (!in" << i << ")\n    return 1;\n";
    for (auto [i, g] : llvm::enumerate(outGroups))
      if (g.kind != "tensor") {
        s << "  " << n << "_value *out" << i << " = static_cast<" << n << "_value *>(outputs["
          << i << "]);\n  if (!out" << i << ")\n    return 1;\n";
        if (g.optional())
          s << "  bool present" << i << " = false;\n";
      }
    s << "  const int status = " << n << "_run(arena" << (options.embedWeights ? "" : ", weights");
    for (auto [i, g] : llvm::enumerate(inGroups)) {
      std::string in = "in" + std::to_string(i);
      if (g.kind == "tensor") {
        s << ",\n      static_cast<" << g.value->paramType(true) << ">(inputs[" << i << "])";
        continue;
      }
      s << ",\n      static_cast<const " << g.ctype << " *>(" << in << "->data)";
      if (g.sequence())
        s << ", " << in << "->count, " << in << "->dims";
      if (g.optional())
        s << ", " << in << "->present != 0";
    }
    for (auto [i, g] : llvm::enumerate(outGroups)) {
      std::string out = "out" + std::to_string(i);
      if (g.kind == "tensor") {
        s << ",\n      static_cast<" << g.value->paramType(false) << ">(outputs[" << i << "])";
        if (g.value->dimsArg >= 0)
          s << ", output_dims[" << i << "]";
        continue;
      }
      s << ",\n      static_cast<" << g.ctype << " *>(" << out << "->data)";
      if (g.sequence())
        s << ", &" << out << "->count, " << out << "->dims";
      if (g.optional())
        s << ", &present" << i;
    }
    s << ");\n";
    for (auto [i, g] : llvm::enumerate(outGroups))
      if (g.optional())
        s << "  out" << i << "->present = present" << i << ";\n";
    s << "  return status;\n}\n";
  };

  // The keys of the outputs that hold ZipMap's maps, in the order of
  // NAME_outputs (null for the others).
  SmallVector<ArrayAttr> outputMapKeys;
  if (grouped)
    for (const Group &g : outGroups)
      outputMapKeys.push_back(g.kind == "tensor" && g.value ? g.value->mapKeys : ArrayAttr());
  else
    for (const Port &p : outputs)
      outputMapKeys.push_back(p.mapKeys);
  const bool hasMapOutputs = llvm::any_of(outputMapKeys, [](ArrayAttr a) { return bool(a); });
  // Map inputs: per input, its part (0 a tensor, 1 keys, 2 values) and the
  // index of its length among the symbols.
  SmallVector<std::pair<int, int>> inputMapParts;
  for (const Port &p : inputs) {
    if (p.mapPart.empty()) {
      inputMapParts.push_back({0, -1});
      continue;
    }
    // Its one dim is the map's own dim_param, count(NAME) (the importer's).
    auto params = func.getArgAttrOfType<ArrayAttr>(p.arg, "onnx.dim_params");
    auto sym = params && params.size() == 1 ? dyn_cast<StringAttr>(params[0]) : StringAttr();
    auto it = llvm::find_if(symbols, [&](const auto &s) { return sym && s.second == sym.getValue(); });
    if (it == symbols.end())
      return errorAt(func, "input '" + p.name + "': its map's length is not a symbol");
    inputMapParts.push_back({p.mapPart == "keys" ? 1 : 2, int(it - symbols.begin())});
  }
  const bool hasMapInputs =
      llvm::any_of(inputMapParts, [](const auto &m) { return m.first != 0; });
  if (hasMapInputs && grouped)
    return errorAt(func, "a model with map inputs and sequence or optional inputs or outputs "
                         "is not supported yet");

  // The CUDA target's interface (ABI.md, "The CUDA target").
  auto cudaPorts = [&](bool comments) {
    std::string out;
    for (Port &p : inputs)
      out += ",\n    " + p.paramType(true) + names[func.getArgument(p.arg)] +
             (comments ? " /* " + commentText(p.name) + ": " + p.dtype + "[" + dimsOf(p) +
                             "], device memory */"
                       : "");
    for (Port &p : outputs)
      out += ",\n    " + p.paramType(false) + names[func.getArgument(p.arg)] +
             (comments ? " /* " + commentText(p.name) + ": " + p.dtype + "[" + dimsOf(p) +
                             "], device memory */"
                       : "");
    return out;
  };
  CppModel model;
  // The CUDA target's API in NAME.cpp: the PTX, the kernels' names, create,
  // run, the host-pointer convenience, destroy and messages.
  auto emitCudaApi = [&](llvm::raw_ostream &s) -> Error {
    std::string ptx;
    for (auto binary : module.getOps<gpu::BinaryOp>()) {
      if (binary.getObjects().size() != 1)
        return errorAt(binary, "expected one PTX object per kernel module");
      auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      if (object.getFormat() != gpu::CompilationTarget::Assembly)
        return errorAt(binary, "expected PTX (gpu-module-to-binary format=isa)");
      if (!ptx.empty())
        return errorAt(binary, "expected one kernel module");
      ptx = object.getObject().str();
    }
    if (ptx.empty() && !kernels.empty())
      return errorAt(module, "the kernels were not compiled to PTX");
    if (ptx.find('\0') != std::string::npos)
      return errorAt(module, "PTX with a NUL byte");
    // A call left unresolved: a libdevice function (math) with no libdevice
    // to link, which the driver would refuse at load time.
    if (size_t at = ptx.find(".extern .func"); at != std::string::npos) {
      size_t end = ptx.find_first_of("\n(;", ptx.find(')', at) + 1);
      StringRef decl = StringRef(ptx).slice(at, end == std::string::npos ? ptx.size() : end);
      StringRef fn = decl.rtrim().rsplit(' ').second;
      return errorAt(module, "the kernels call '" + fn.str() +
                                 "' (libdevice) but no CUDA toolkit with "
                                 "nvvm/libdevice/libdevice.10.bc was found (set CUDA_PATH)");
    }
    model.ptx = ptx;
    std::string symbolDecls; // "  const int64_t N = dims[0];\n"
    for (auto [k, id] : llvm::enumerate(symbolNames))
      symbolDecls += "  const int64_t " + id + " = dims[" + std::to_string(k) + "];\n";
    s << "// The kernels, PTX for " << (module->getAttrOfType<StringAttr>("onnxcc.cuda_arch")
                                            ? module->getAttrOfType<StringAttr>("onnxcc.cuda_arch")
                                                  .getValue()
                                            : StringRef("the --cuda-arch given"))
      << " (" << ptx.size() << " bytes; the driver compiles it for the GPU at hand).\n";
    s << "static const char " << n << "_ptx_[] =\n    " << cStringLiteral(ptx, 100, "\n    ")
      << ";\n";
    s << "static const char *const " << n << "_kernel_names_[" << std::max<size_t>(kernels.size(), 1)
      << "] = {";
    for (auto [k, entry] : llvm::enumerate(kernels))
      s << (k ? ", " : "") << cStringLiteral(entry.first.getLeafReference().getValue());
    if (kernels.empty())
      s << "nullptr";
    s << "};\n\n";
    s << "struct " << n << "_cuda {\n  onnxcc_cuda::Model model;\n};\n\n";
    s << "extern \"C\" int " << n << "_cuda_create(" << n << "_cuda **model, int device) {\n";
    s << "  if (!model)\n    return 1;\n  *model = nullptr;\n";
    s << "  " << n << "_cuda *m = new (std::nothrow) " << n << "_cuda();\n";
    s << "  if (!m)\n    return onnxcc_cuda::kOutOfMemory;\n";
    s << "  const int status = onnxcc_cuda::create(&m->model, device, " << n << "_ptx_, " << n
      << "_kernel_names_, " << kernels.size() << ", "
      << (weights.empty() ? std::string("nullptr") : n + "_weights") << ", " << weights.size()
      << "u);\n";
    s << "  if (status != 0) {\n    onnxcc_cuda::destroy(&m->model);\n    delete m;\n"
      << "    return status;\n  }\n  *model = m;\n  return 0;\n}\n\n";
    s << "extern \"C\" int " << n << "_cuda_run(" << n << "_cuda *model, void *stream"
      << symbolParams << cudaPorts(false) << ") {\n";
    s << "  if (!model)\n    return 1;\n";
    if (symbolic) {
      s << "  if (";
      for (auto [k, id] : llvm::enumerate(symbolNames))
        s << (k ? " || " : "") << id << " < 0 || " << id << " > " << maxDim;
      s << ")\n    return 3;\n";
      s << "  const size_t bytes = " << n << "_arena_size(" << StringRef(symbolArgs).drop_front(2)
        << ");\n";
    } else {
      s << "  const size_t bytes = " << n << "_ARENA_SIZE;\n";
    }
    s << "  onnxcc_cuda::Model *m = &model->model;\n";
    s << "  m->stream = static_cast<onnxcc_cuda::CUstream>(stream);\n";
    s << "  onnxcc_cuda::ContextScope scope(onnxcc_cuda::driver(), m);\n";
    s << "  if (const int status = onnxcc_cuda::reserveArena(m, bytes))\n    return status;\n";
    // What the launches depend on: a run with the same replays the graph.
    std::string key = "int64_t(uintptr_t(m->arena))";
    for (const std::string &id : symbolNames)
      key += ", " + id;
    for (Port &p : inputs)
      key += ", int64_t(uintptr_t(" + names[func.getArgument(p.arg)] + "))";
    for (Port &p : outputs)
      key += ", int64_t(uintptr_t(" + names[func.getArgument(p.arg)] + "))";
    size_t keySize = 1 + symbolNames.size() + inputs.size() + outputs.size();
    s << "  const int64_t key[" << keySize << "] = {" << key << "};\n";
    s << "  " << n << "_cuda_current_ = m;\n";
    s << "  const int status = onnxcc_cuda::runCaptured(m, m->stream, key, " << keySize
      << ", [&] {\n    return " << n
      << "_run_device_(reinterpret_cast<void *>(uintptr_t(m->arena))"
      << (symbolic ? ", m->arenaSize" : "") << symbolArgs;
    for (Port &p : inputs)
      s << ", " << names[func.getArgument(p.arg)];
    for (Port &p : outputs)
      s << ", " << names[func.getArgument(p.arg)];
    s << ");\n  });\n  " << n << "_cuda_current_ = nullptr;\n  return status;\n}\n\n";
    // run_generic
    s << "extern \"C\" int " << n << "_cuda_run_generic(" << n << "_cuda *model, void *stream"
      << (symbolic ? ", const int64_t *dims" : "")
      << ", const void *const *inputs, void *const *outputs) {\n";
    s << "  if (!inputs || !outputs" << (symbolic ? " || !dims" : "") << ")\n    return 1;\n";
    s << "  return " << n << "_cuda_run(model, stream";
    for (size_t k = 0; k < symbols.size(); ++k)
      s << ", dims[" << k << "]";
    for (auto [i, p] : llvm::enumerate(inputs))
      s << ",\n      static_cast<" << p.paramType(true) << ">(inputs[" << i << "])";
    for (auto [i, p] : llvm::enumerate(outputs))
      s << ",\n      static_cast<" << p.paramType(false) << ">(outputs[" << i << "])";
    s << ");\n}\n\n";
    // The bytes of each port for the dims.
    auto bytesOf = [&](const Port &p) {
      std::string product = std::to_string(dtypeBytes(p.type));
      for (int64_t d = 0; d < p.type.getRank(); ++d)
        product += " * size_t(" +
                   (p.symbolicDim(d) ? dimExpr(p.dims[d]) : std::to_string(p.type.getDimSize(d))) +
                   ")";
      return product;
    };
    size_t numPorts = inputs.size() + outputs.size();
    s << "extern \"C\" int " << n << "_cuda_run_host_generic(" << n << "_cuda *model"
      << (symbolic ? ", const int64_t *dims" : "")
      << ", const void *const *inputs, void *const *outputs) {\n";
    s << "  if (!model || !inputs || !outputs" << (symbolic ? " || !dims" : "")
      << ")\n    return 1;\n";
    s << symbolDecls;
    if (symbolic) {
      s << "  if (";
      for (auto [k, id] : llvm::enumerate(symbolNames))
        s << (k ? " || " : "") << id << " < 0 || " << id << " > " << maxDim;
      s << ")\n    return 3;\n";
    }
    s << "  const size_t bytes[" << std::max<size_t>(numPorts, 1) << "] = {";
    size_t k = 0;
    for (const Port &p : inputs)
      s << (k++ ? ", " : "") << bytesOf(p);
    for (const Port &p : outputs)
      s << (k++ ? ", " : "") << bytesOf(p);
    if (numPorts == 0)
      s << "0";
    s << "};\n";
    s << "  const void *host_in[" << std::max<size_t>(inputs.size(), 1) << "] = {};\n";
    s << "  void *host_out[" << std::max<size_t>(outputs.size(), 1) << "] = {};\n";
    s << "  for (int i = 0; i < " << inputs.size() << "; ++i)\n    host_in[i] = inputs[i];\n";
    s << "  for (int i = 0; i < " << outputs.size() << "; ++i)\n    host_out[i] = outputs[i];\n";
    s << "  return onnxcc_cuda::runOnHost(&model->model, " << inputs.size() << ", "
      << outputs.size() << ", bytes, host_in, host_out, [&](void *const *device_in, "
         "void *const *device_out) {\n";
    s << "    return " << n << "_cuda_run_generic(model, nullptr"
      << (symbolic ? ", dims" : "") << ", device_in, device_out);\n  });\n}\n\n";
    s << "extern \"C\" void " << n << "_cuda_destroy(" << n << "_cuda *model) {\n";
    s << "  if (!model)\n    return;\n  onnxcc_cuda::destroy(&model->model);\n  delete model;\n}\n\n";
    s << "extern \"C\" const char *" << n << "_cuda_status_message(const " << n
      << "_cuda *model, int status) {\n";
    s << "  switch (status) {\n  case 1:\n    return \"a null pointer\";\n";
    if (symbolic)
      s << "  case 3:\n    return \"a symbolic dim outside [0, " << n << "_MAX_DIM]\";\n";
    s << "  case 9:\n    return \"dims that break a shape rule of the model\";\n";
    s << "  default:\n    return onnxcc_cuda::message(model ? &model->model : nullptr, status);\n"
      << "  }\n}\n";
    return Error::success();
  };

  if (options.profile) {
    llvm::raw_string_ostream js(model.profileJson);
    llvm::json::OStream j(js, 1);
    j.object([&] {
      j.attribute("model", n);
      j.attributeArray("nodes", [&] {
        for (const ProfileNode &node : profileNodes)
          j.object([&] {
            j.attribute("name", cleanText(node.name));
            j.attribute("op_type", cleanText(node.opType));
            j.attribute("path", profilePath(node));
          });
      });
      j.attributeArray("mark_node", [&] {
        for (int node : markNodes)
          j.value(node);
      });
    });
    js << "\n";
  }
  model.usesKernels = usesKernels;
  model.usesThreads = threads > 1;
  model.usesML = usesML;
  {
    llvm::raw_string_ostream h(model.header);
    std::string guard = llvm::StringRef(n).upper() + "_H";
    h << "// " << n << ".h - generated by onnxcc from " << commentText(options.modelPath)
      << ". Do not edit.\n";
    h << "#ifndef " << guard << "\n#define " << guard << "\n\n";
    h << "#include <stddef.h>\n#include <stdint.h>\n";
    h << "#ifndef __cplusplus\n#include <stdbool.h>\n#endif\n\n";
    if (!symbolic)
      h << "#define " << n << "_ARENA_SIZE " << arenaSize << "u\n";
    h << "#define " << n << "_ARENA_ALIGN 64u\n";
    if (!options.embedWeights)
      h << "#define " << n << "_WEIGHTS_SIZE " << weights.size()
        << "u /* bytes of " << n << ".weights, passed to run() */\n";
    h << "#define " << n << "_NUM_INPUTS " << (grouped ? inGroups.size() : inputs.size()) << "\n";
    h << "#define " << n << "_NUM_OUTPUTS " << (grouped ? outGroups.size() : outputs.size())
      << "\n";
    if (symbolic) {
      h << "#define " << n << "_NUM_SYMBOLS " << symbols.size() << "\n";
      h << "#define " << n << "_MAX_DIM " << maxDim
        << " /* the largest symbolic dim run() accepts */\n";
    }
    h << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    h << "typedef struct " << n << "_tensor_info {\n  const char *name;\n  const char *dtype;\n"
      << "  int32_t elem_size;\n  int32_t rank;\n  const int64_t *shape; /* -1 for a symbolic or data-dependent dim */\n} " << n
      << "_tensor_info;\n\n";
    h << "/* Inputs and outputs in model order. */\n";
    h << "extern const " << n << "_tensor_info " << n << "_inputs["
      << std::max<size_t>(grouped ? inGroups.size() : inputs.size(), 1) << "];\n";
    h << "extern const " << n << "_tensor_info " << n << "_outputs["
      << std::max<size_t>(grouped ? outGroups.size() : outputs.size(), 1) << "];\n\n";
    if (hasMapOutputs) {
      h << "/* Outputs that ONNX gives as a sequence of maps (ZipMap's): the output holds\n"
        << "   the maps' values, float32 [N, K] (map i is row i; [K] is one map), and\n"
        << "   every map has the same K keys, " << n << "_output_map_keys[k] in column order\n"
        << "   (int64 or string keys; count 0 for an output that is a plain tensor). */\n";
      h << "#define " << n << "_HAS_MAP_OUTPUTS 1\n";
      h << "typedef struct " << n << "_map_keys {\n  int64_t count;\n"
        << "  const int64_t *int64_keys;       /* or null */\n"
        << "  const char *const *string_keys;  /* or null */\n} " << n << "_map_keys;\n";
      h << "extern const " << n << "_map_keys " << n << "_output_map_keys["
        << std::max<size_t>(outputMapKeys.size(), 1) << "];\n\n";
    }
    if (hasMapInputs) {
      h << "/* Inputs that ONNX gives as a map (for DictVectorizer and CastMap): two entries\n"
        << "   of " << n << "_inputs with the map's name, its keys then its values, n of\n"
        << "   each, n being the map's own symbolic dim (" << n << "_symbols[symbol],\n"
        << "   \"count(NAME)\"); a key is expected at most once. part: 0 a tensor, 1 a\n"
        << "   map's keys, 2 its values. */\n";
      h << "#define " << n << "_HAS_MAP_INPUTS 1\n";
      h << "typedef struct " << n << "_map_part {\n  int32_t part;\n"
        << "  int32_t symbol; /* -1 for a tensor */\n} " << n << "_map_part;\n";
      h << "extern const " << n << "_map_part " << n << "_input_maps["
        << std::max<size_t>(inputMapParts.size(), 1) << "];\n\n";
    }
    if (symbolic) {
      h << "/* The symbolic dims (ONNX dim_params), in the order run() takes them. */\n";
      h << "extern const char *const " << n << "_symbols[" << symbols.size() << "];\n\n";
      h << "/* Bytes of arena run() needs for these dims (aligned to " << n
        << "_ARENA_ALIGN). */\n";
      h << "size_t " << n << "_arena_size(" << StringRef(symbolParams).drop_front(2) << ");\n";
      h << "/* The same with the dims in an array, in " << n << "_symbols order. */\n";
      h << "size_t " << n << "_arena_size_generic(const int64_t *dims);\n\n";
      if (!options.cuda)
      h << "/* Runs the model for the given symbolic dims. `arena` is at least\n   " << n
        << "_arena_size(...) bytes (`arena_size` says how many), aligned to " << n
        << "_ARENA_ALIGN,\n   owned by the caller; one per concurrent call. Returns 0 on "
           "success, 1 for a null\n   pointer, 2 for a misaligned arena, 3 for a symbolic dim "
           "outside [0, " + n + "_MAX_DIM], 4 for\n   an arena smaller than "
        << n << "_arena_size(...), 9 for dims that break a shape rule of the model\n"
           "   (two dims it needs equal differ, a dim broadcast against a fixed size N is\n"
           "   neither 1 nor N, or a dim is too short for a slice of it). */\n";
    } else if (!options.cuda) {
      h << "/* Runs the model. `arena` is " << n << "_ARENA_SIZE bytes aligned to "
        << n << "_ARENA_ALIGN, owned by the caller; one per concurrent call.\n"
        << "   Returns 0 on success, 1 for a null pointer, 2 for a misaligned arena. */\n";
    }
    if (kernelsIsa == "avx2" || kernelsIsa == "avx512")
      h << "/* Compiled for " << (kernelsIsa == "avx2" ? "x86-64 AVX2+FMA" : "x86-64 AVX-512")
        << " (--target-cpu): run() returns 8 on a CPU without it. */\n";
    else if (kernelsIsa == "neon")
      h << "/* Compiled for AArch64 NEON (--target-cpu): the source builds for AArch64 only. */\n";
    if (hasStrings && usesStringPool)
      h << "/* String tensors are arrays of `const char *` (NUL-terminated UTF-8). Output\n"
        << "   strings point to input strings, to constants or into the arena's "
        << stringPoolSize << "-byte\n"
        << "   string pool: they stay valid until the arena is used again. run() also\n"
        << "   returns 1 for a null string, 5 when the string pool is full, and 6 when the\n"
        << "   number of strings of a data-dependent output differs from its declared dims. */\n";
    else if (hasStrings)
      h << "/* String tensors are arrays of `const char *` (NUL-terminated UTF-8). Output\n"
        << "   strings point to input strings or to constants: they live as long as those.\n"
        << "   run() also returns 1 for a null string and 6 when the number of strings of\n"
        << "   a data-dependent output differs from its declared dims. */\n";
    if (options.cuda) {
      h << "/* The CUDA target (see ABI.md, \"The CUDA target\"). A model is created once\n"
        << "   per device: it loads the kernels (PTX, compiled by the driver for the GPU at\n"
        << "   hand) and copies the weights to the device. run() queues the model on\n"
        << "   `stream` (a CUstream; null for the default stream) and returns without\n"
        << "   waiting: the outputs are ready when the stream is. Inputs and outputs are\n"
        << "   device pointers. The arena (device memory, " << n
        << "_arena_size(...) bytes) belongs to\n"
        << "   the model and grows when dims need more: one model per concurrent stream.\n"
        << "   Statuses: those of the CPU target (0 success, 1 a null pointer"
        << (symbolic ? ", 3 a symbolic\n   dim outside [0, " + n + "_MAX_DIM], 9 dims that break a shape rule of the model" : "")
        << "),\n   20 no CUDA driver (libcuda.so.1), 21 no such device, 22 out of device memory,\n"
        << "   23 the driver could not load the PTX, 24 a launch, copy or synchronization\n"
        << "   failed; " << n << "_cuda_status_message() says more. */\n";
      h << "#define " << n << "_CUDA 1\n";
      h << "typedef struct " << n << "_cuda " << n << "_cuda;\n";
      h << "int " << n << "_cuda_create(" << n << "_cuda **model, int device);\n";
      h << "int " << n << "_cuda_run(" << n << "_cuda *model, void *stream" << symbolParams
        << cudaPorts(true) << ");\n";
      h << "/* The same with arrays of pointers, in model order"
        << (symbolic ? ", and the symbolic dims in `dims`" : "") << ". */\n";
      h << "int " << n << "_cuda_run_generic(" << n << "_cuda *model, void *stream"
        << (symbolic ? ", const int64_t *dims" : "")
        << ", const void *const *inputs, void *const *outputs);\n";
      h << "/* For tests and tools: host pointers; copies the inputs to the device, runs on\n"
        << "   the default stream, waits, and copies the outputs back. */\n";
      h << "int " << n << "_cuda_run_host_generic(" << n << "_cuda *model"
        << (symbolic ? ", const int64_t *dims" : "")
        << ", const void *const *inputs, void *const *outputs);\n";
      h << "void " << n << "_cuda_destroy(" << n << "_cuda *model);\n";
      h << "/* A one-line description of a status (model may be null). */\n";
      h << "const char *" << n << "_cuda_status_message(const " << n
        << "_cuda *model, int status);\n\n";
    } else if (grouped) {
      h << "/* Sequences and optionals (see ABI.md, \"Sequences and optionals\"): a sequence\n"
        << "   is its elements densely one after another, row-major each, its element count\n"
        << "   and count x rank dims; an optional is its value's parameters and a present\n"
        << "   flag. This build takes and returns exactly the element counts and element\n"
        << "   dims shown: run() returns 14 when a sequence input differs from them. */\n";
      h << "#define " << n << "_HAS_SEQUENCES 1\n";
      h << "#define " << n << "_KIND_TENSOR 0\n#define " << n << "_KIND_SEQUENCE 1\n#define "
        << n << "_KIND_OPTIONAL 2\n#define " << n << "_KIND_OPTIONAL_SEQUENCE 3\n";
      h << "/* The kind of each input/output, its most elements (sequences) and the\n"
        << "   elements of all of them together (the data buffer's capacity). */\n";
      h << "typedef struct " << n << "_value_kind {\n  int32_t kind;\n  int32_t max_count;\n"
        << "  int64_t capacity;\n} " << n << "_value_kind;\n";
      h << "extern const " << n << "_value_kind " << n << "_input_kinds["
        << std::max<size_t>(inGroups.size(), 1) << "];\n";
      h << "extern const " << n << "_value_kind " << n << "_output_kinds["
        << std::max<size_t>(outGroups.size(), 1) << "];\n";
      h << "/* run_generic's view of a sequence or optional: inputs[k] / outputs[k] point\n"
        << "   to one (run() writes an output's count, dims and present flag). */\n";
      h << "typedef struct " << n << "_value {\n  void *data;      /* the elements, dense */\n"
        << "  int64_t count;  /* sequence: elements */\n"
        << "  int64_t *dims;  /* sequence: count x rank dims (outputs: max_count x rank) */\n"
        << "  int32_t present; /* optional: 1 when it holds a value */\n} " << n
        << "_value;\n\n";
      h << "int " << n << "_run(" << arenaParam << weightsParam << groupParams(true) << ");\n\n";
      h << "/* The same with arrays of pointers, in model order (" << n
        << "_value for the\n   sequences and optionals). */\n";
      h << "int " << n << "_run_generic(" << arenaParam << weightsParam
        << ", const void *const *inputs, void *const *outputs"
        << (hasDataDims ? ",\n    int64_t *const *output_dims" : "") << ");\n\n";
    } else {
    h << "int " << n << "_run(" << arenaParam << weightsParam << symbolParams;
    for (Port &p : inputs)
      h << ",\n    " << p.paramType(true) << names[func.getArgument(p.arg)] << " /* "
        << commentText(p.name) << ": " << (p.mapPart.empty() ? "" : "the map's " + p.mapPart + ", ")
        << p.dtype << "[" << dimsOf(p) << "] */";
    for (Port &p : outputs)
      h << ",\n    " << p.paramType(false) << names[func.getArgument(p.arg)] << " /* "
        << commentText(p.name) << ": " << p.dtype << "[" << dimsOf(p) << "]"
        << (p.mapKeys ? ", the values of a sequence of maps" : "") << " */" << dimsParam(p);
    h << ");\n\n";
    h << "/* The same with arrays of pointers, in model order"
      << (symbolic ? ", and the symbolic dims in `dims`" : "") << ". */\n";
    h << "int " << n << "_run_generic(" << arenaParam << weightsParam
      << (symbolic ? ", const int64_t *dims" : "")
      << ", const void *const *inputs, void *const *outputs"
      << (hasDataDims ? ",\n    int64_t *const *output_dims" : "") << ");\n\n";
    }
    if (hasDataDims) {
      h << "/* Outputs whose dims depend on the data (shown as <=BOUND above): the caller's\n"
        << "   buffer holds " << n << "_output_capacity(k, ...) elements, run() writes the "
           "tensor\n   densely (row-major in its actual dims) from the start and its dims "
           "to the\n   parameter after it (run_generic: output_dims[k], ignored for other "
           "outputs).\n   run() returns 10 when a bound given with --bound is exceeded. */\n";
      h << "#define " << n << "_HAS_DATA_DEPENDENT_DIMS 1\n";
      h << "int64_t " << n << "_output_capacity(int output"
        << (symbolic ? ", const int64_t *dims" : "") << ");\n\n";
    }
    if (threads > 1) {
      h << "/* Compiled with --threads " << threads << ": run() splits each heavy layer into "
        << threads << " fixed parts. They run on\n"
        << "   a pool of " << threads - 1
        << " worker threads (and the calling thread), started by the first run, unless\n"
        << "   the application installs its own pool before the first run: `parallel` must "
           "call\n"
        << "   fn(task, p) for every p in [0, parts) and return when all have returned. "
           "Results\n"
        << "   do not depend on which thread runs which part. */\n";
      h << "#define " << n << "_THREADS " << threads << "\n";
      h << "typedef void (*" << n << "_parallel_fn)(void *ctx, int64_t parts,\n"
        << "    void (*fn)(void *task, int64_t part), void *task);\n";
      h << "void " << n << "_set_parallel(" << n << "_parallel_fn parallel, void *ctx);\n\n";
    }
    if (options.profile) {
      h << "/* onnxcc profile: begin. Compiled with --profile: run() notes the time\n"
        << "   (steady clock, ns) at " << n << "_PROFILE_MARKS marks: at mark k < MARKS - 1 "
        << "the code of\n   node " << n << "_profile_mark_node[k] of " << n
        << "_profile_nodes starts; it ends at mark k + 1 (the last\n"
        << "   mark is the end of run()). A node whose code is in several places has "
           "several\n   marks. " << n << "_profile_attach(stamps) makes every later run on "
           "the calling\n   thread write mark k to stamps[k] (int64_t stamps["
        << n << "_PROFILE_MARKS]), until\n   it is called with NULL. */\n";
      h << "#define " << n << "_PROFILE_NODES " << profileNodes.size() << "\n";
      h << "#define " << n << "_PROFILE_MARKS " << markNodes.size() << "\n";
      h << "typedef struct " << n << "_profile_node {\n  const char *name;    /* the ONNX "
           "node's */\n  const char *op_type; /* after the graph passes: Conv, FusedMatMul"
           "... */\n  const char *path;    /* kernel names, loops */\n} "
        << n << "_profile_node;\n";
      h << "extern const " << n << "_profile_node " << n << "_profile_nodes["
        << std::max<size_t>(profileNodes.size(), 1) << "];\n";
      h << "extern const int32_t " << n << "_profile_mark_node[" << markNodes.size()
        << "];\n";
      h << "void " << n << "_profile_attach(int64_t *stamps);\n";
      h << "/* onnxcc profile: end */\n";
    }
    // The C++ wrapper is a namespace named after the model, which cannot
    // coexist with a C library function of that name (index, exp, ...):
    // the generated sources and harnesses, which include <cstring> and
    // <cmath>, leave it out.
    h << "#ifdef __cplusplus\n} /* extern \"C\" */\n\n";
    if (options.cuda) {
      h << "#endif\n\n#endif // " << guard << "\n";
    } else {
    h << "#ifndef " << n << "_NO_CXX_WRAPPER\n";
    h << "namespace " << n << " {\n";
    // The wrapper's tensor parameters, and the arguments it passes on (the
    // weights first, then the tensors).
    std::string params, weightsArg, tensorArgs;
    if (!options.embedWeights) {
      params = "const void *weights";
      weightsArg = ", weights";
    }
    if (grouped) {
      std::string g = groupParams(false);
      params += (params.empty() ? StringRef(g).drop_front(2).str() : g);
      tensorArgs += groupArgs();
    }
    for (Port &p : inputs) {
      if (grouped)
        break;
      params += (params.empty() ? "" : ", ") + p.paramType(true) + names[func.getArgument(p.arg)];
      tensorArgs += ", " + names[func.getArgument(p.arg)];
    }
    for (Port &p : outputs) {
      if (grouped)
        break;
      params +=
          (params.empty() ? "" : ", ") + p.paramType(false) + names[func.getArgument(p.arg)];
      tensorArgs += ", " + names[func.getArgument(p.arg)];
      if (p.dimsArg >= 0) {
        params += ", int64_t *" + names[func.getArgument(p.dimsArg)];
        tensorArgs += ", " + names[func.getArgument(p.dimsArg)];
      }
    }
    if (symbolic) {
      h << "/// The model over an arena the caller sizes with arenaSize(dims).\n";
      h << "struct Model {\n  void *arena;\n  size_t arena_size;\n";
      h << "  static size_t arenaSize(" << StringRef(symbolParams).drop_front(2) << ") {\n    return "
        << n << "_arena_size(" << StringRef(symbolArgs).drop_front(2) << ");\n  }\n";
      h << "  int run(" << StringRef(symbolParams).drop_front(2) << (params.empty() ? "" : ", ")
        << params << ") {\n    return " << n << "_run(arena, arena_size" << weightsArg
        << symbolArgs << tensorArgs << ");\n  }\n};\n";
    } else {
      h << "/// The model as a C++ object holding its own arena.\n";
      h << "struct Model {\n  static constexpr size_t kArenaSize = " << n << "_ARENA_SIZE;\n";
      h << "  alignas(64) unsigned char arena[" << n << "_ARENA_SIZE ? " << n
        << "_ARENA_SIZE : 1];\n";
      h << "  int run(" << params << ") {\n    return " << n << "_run(arena" << weightsArg
        << tensorArgs << ");\n  }\n};\n";
    }
    h << "} // namespace " << n << "\n#endif // " << n << "_NO_CXX_WRAPPER\n#endif\n\n#endif // "
      << guard << "\n";
    }
  }
  {
    llvm::raw_string_ostream s(model.source);
    s << "// " << n << ".cpp - generated by onnxcc from " << commentText(options.modelPath)
      << ". Do not edit.\n";
    s << "#define " << n << "_NO_CXX_WRAPPER\n";
    s << "#include \"" << n << ".h\"\n#include \"onnxcc_rt.h\"\n";
    if (!kernelsIsa.empty())
      s << "#define ONNXCC_KERNELS_ISA ONNXCC_ISA_" << kernelsIsa.upper()
        << "\n#include \"onnxcc_kernels.h\"\n";
    if (threads > 1)
      s << "#include \"onnxcc_threads.h\"\n";
    if (usesML)
      s << "#include \"onnxcc_ml.h\"\n";
    if (options.cuda)
      s << "#include \"onnxcc_cuda.h\"\n";
    s << "\n";
    s << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <limits>\n\n";
    if (threads > 1) {
      s << "// The pool that runs the parts of each heavy layer (see " << n << ".h).\n";
      s << "static onnxcc_rt::parallel_fn " << n << "_parallel_ = nullptr;\n";
      s << "static void *" << n << "_parallel_ctx_ = nullptr;\n";
      s << "static onnxcc_rt::ThreadPool &" << n << "_pool_() {\n"
        << "  static onnxcc_rt::ThreadPool pool(" << threads << ");\n  return pool;\n}\n";
      s << "extern \"C\" void " << n << "_set_parallel(" << n
        << "_parallel_fn parallel, void *ctx) {\n  " << n << "_parallel_ = parallel;\n  " << n
        << "_parallel_ctx_ = ctx;\n}\n\n";
    }
    if (!weights.empty() && options.embedWeights) {
      // Weights of 4 MiB or more start on a 2 MiB boundary in an ELF object:
      // the linker then gives their segment that alignment, Linux loads it
      // 2 MiB-aligned, and the page cache's large folios map with one fault
      // per 2 MiB instead of one per 64 KiB (ResNet-18's 96 MB: 1,500 fewer
      // faults, some 4 ms of its cold start). It costs up to 4 MiB of padding
      // in the executable file, not in memory.
      const bool hugeAligned = weights.size() >= (size_t(4) << 20);
      s << "// The weights (" << weights.size() << " bytes) are the file " << n
        << ".cpp.weights next to this one,\n// embedded by the assembler"
        << (hugeAligned ? "; 2 MiB-aligned in ELF objects, so that\n// the system can map "
                          "them with huge pages (see ABI.md, \"The weights\").\n"
                        : ".\n");
      s << "extern \"C\" const unsigned char " << n << "_weights[];\n";
      s << "__asm__(\".section .rodata\\n\"\n";
      if (hugeAligned)
        s << "#ifdef __ELF__\n        \".balign 2097152\\n\"\n#else\n        \".balign "
             "64\\n\"\n#endif\n";
      else
        s << "        \".balign 64\\n\"\n";
      s << "        \".globl " << n
        << "_weights\\n\"\n        \".hidden " << n << "_weights\\n\"\n        \"" << n
        << "_weights:\\n\"\n        \".incbin \\\"\" __FILE__ \".weights\\\"\\n\"\n"
        << "        \".previous\\n\");\n\n";
    }
    auto table = [&](StringRef kind, ArrayRef<Port> ports) {
      for (auto [i, p] : llvm::enumerate(ports))
        s << "static const int64_t " << kind << "_shape_" << i << "[] = {"
          << (p.type.getRank() ? shapeTable(p) : "0") << "};\n";
      s << "extern \"C\" const " << n << "_tensor_info " << n << "_" << kind << "["
        << std::max<size_t>(ports.size(), 1) << "] = {\n";
      for (auto [i, p] : llvm::enumerate(ports))
        s << "  {" << cStringLiteral(p.name, 96, "\n   ") << ", \"" << p.dtype << "\", "
          << (p.isString() ? "sizeof(const char *)" : std::to_string(dtypeBytes(p.type)))
          << ", " << p.type.getRank() << ", " << kind << "_shape_" << i << "},\n";
      if (ports.empty())
        s << "  {nullptr, nullptr, 0, 0, nullptr},\n";
      s << "};\n\n";
    };
    if (hasStrings)
      s << "static_assert(sizeof(const char *) == sizeof(int64_t),\n"
        << "              \"the model holds string pointers as int64_t\");\n\n";
    if (grouped) {
      groupTables(s);
    } else {
      table("inputs", inputs);
      table("outputs", outputs);
    }
    if (hasMapInputs) {
      s << "extern \"C\" const " << n << "_map_part " << n << "_input_maps["
        << std::max<size_t>(inputMapParts.size(), 1) << "] = {";
      for (auto [k, m] : llvm::enumerate(inputMapParts))
        s << (k ? ", " : "") << "{" << m.first << ", " << m.second << "}";
      s << "};\n\n";
    }
    if (hasMapOutputs) {
      for (auto [k, keys] : llvm::enumerate(outputMapKeys)) {
        if (!keys)
          continue;
        bool strings = !keys.empty() && isa<StringAttr>(keys[0]);
        s << "static const " << (strings ? "char *const " : "int64_t ") << "output_map_keys_"
          << k << "[" << std::max<size_t>(keys.size(), 1) << "] = {";
        for (auto [j, key] : llvm::enumerate(keys)) {
          s << (j ? "," : "") << (j % 8 == 0 ? "\n    " : " ");
          if (strings)
            s << cStringLiteral(cast<StringAttr>(key).getValue(), 96, "\n    ");
          else
            s << intLiteral(cast<IntegerAttr>(key).getValue(), IntegerType::get(module.getContext(), 64));
        }
        s << "};\n";
      }
      s << "extern \"C\" const " << n << "_map_keys " << n << "_output_map_keys["
        << std::max<size_t>(outputMapKeys.size(), 1) << "] = {\n";
      for (auto [k, keys] : llvm::enumerate(outputMapKeys)) {
        bool strings = keys && !keys.empty() && isa<StringAttr>(keys[0]);
        if (!keys)
          s << "  {0, nullptr, nullptr},\n";
        else
          s << "  {" << keys.size() << ", " << (strings ? "nullptr" : "output_map_keys_" + std::to_string(k))
            << ", " << (strings ? "output_map_keys_" + std::to_string(k) : "nullptr") << "},\n";
      }
      s << "};\n\n";
    }
    if (symbolic) {
      s << "extern \"C\" const char *const " << n << "_symbols[" << symbols.size() << "] = {";
      for (auto [k, sym] : llvm::enumerate(symbols))
        s << (k ? ", " : "") << cStringLiteral(sym.second, 96, "\n    ");
      s << "};\n\n";
      s << "extern \"C\" size_t " << n << "_arena_size(" << StringRef(symbolParams).drop_front(2)
        << ") {\n";
      for (const std::string &id : symbolNames)
        s << "  (void)" << id << ";\n";
      s << sizeBody;
      s << "}\n\n";
      s << "extern \"C\" size_t " << n << "_arena_size_generic(const int64_t *dims) {\n";
      s << "  return dims ? " << n << "_arena_size(";
      for (size_t k = 0; k < symbols.size(); ++k)
        s << (k ? ", " : "") << "dims[" << k << "]";
      s << ") : 0;\n}\n\n";
    }
    if (options.profile) {
      s << "// onnxcc profile: begin (see " << n << ".h)\n#include <chrono>\n";
      s << "static thread_local int64_t *" << n << "_profile_stamps_ = nullptr;\n";
      s << "static inline void " << n << "_profile_mark_(int k) {\n  if (int64_t *stamps = "
        << n << "_profile_stamps_)\n    stamps[k] = static_cast<int64_t>(\n"
        << "        std::chrono::duration_cast<std::chrono::nanoseconds>(\n"
        << "            std::chrono::steady_clock::now().time_since_epoch())\n"
        << "            .count());\n}\n";
      s << "extern \"C\" void " << n << "_profile_attach(int64_t *stamps) {\n  " << n
        << "_profile_stamps_ = stamps;\n}\n";
      s << "extern \"C\" const " << n << "_profile_node " << n << "_profile_nodes["
        << std::max<size_t>(profileNodes.size(), 1) << "] = {\n";
      for (const ProfileNode &node : profileNodes)
        s << "  {" << cStringLiteral(node.name, 96, "\n   ") << ", "
          << cStringLiteral(node.opType) << ", " << cStringLiteral(profilePath(node)) << "},\n";
      if (profileNodes.empty())
        s << "  {nullptr, nullptr, nullptr},\n";
      s << "};\n";
      s << "extern \"C\" const int32_t " << n << "_profile_mark_node[" << markNodes.size()
        << "] = {";
      for (auto [k, node] : llvm::enumerate(markNodes))
        s << (k ? "," : "") << (k % 16 == 0 ? "\n    " : " ") << node;
      s << "};\n// onnxcc profile: end\n";
    }
    if (grouped)
      s << "// The model over its tensor ports; " << n << "_run() below takes the sequences\n"
        << "// and optionals.\nstatic int " << n << "_run_ports_(" << arenaParam << weightsParam;
    else if (options.cuda)
      s << "// The model on the device: launches onto " << n << "_cuda_current_.\n"
        << "static thread_local onnxcc_cuda::Model *" << n << "_cuda_current_ = nullptr;\n\n"
        << "static int " << n << "_run_device_(" << arenaParam << weightsParam << symbolParams;
    else
      s << "extern \"C\" int " << n << "_run(" << arenaParam << weightsParam << symbolParams;
    for (Port &p : inputs)
      s << ", " << p.paramType(true) << names[func.getArgument(p.arg)];
    for (Port &p : outputs) {
      s << ", " << p.paramType(false) << names[func.getArgument(p.arg)];
      if (p.dimsArg >= 0)
        s << ", int64_t *" << names[func.getArgument(p.dimsArg)];
    }
    s << ") {\n";
    s << "  if (!arena" << (options.embedWeights ? "" : " || !weights");
    for (Port &p : inputs)
      s << " || !" << names[func.getArgument(p.arg)];
    for (Port &p : outputs) {
      s << " || !" << names[func.getArgument(p.arg)];
      if (p.dimsArg >= 0)
        s << " || !" << names[func.getArgument(p.dimsArg)];
    }
    s << ")\n    return 1;\n";
    s << "  if (reinterpret_cast<uintptr_t>(arena) % 64 != 0)\n    return 2;\n";
    if (kernelsIsa == "avx2" || kernelsIsa == "avx512")
      s << "  if (!onnxcc_rt::kernels::cpu_supported())\n    return "
        << "onnxcc_rt::kernels::kStatusCpuUnsupported;\n";
    if (symbolic) {
      s << "  if (";
      for (auto [k, id] : llvm::enumerate(symbolNames))
        s << (k ? " || " : "") << id << " < 0 || " << id << " > " << maxDim;
      s << ")\n    return 3;\n";
      s << "  if (arena_size < " << n << "_arena_size(" << StringRef(symbolArgs).drop_front(2)
        << "))\n    return 4;\n";
    }
    s << "  unsigned char *arena_ = static_cast<unsigned char *>(arena);\n  (void)arena_;\n";
    if (options.cuda)
      s << "  // Device addresses: the host computes with them, never reads through them.\n"
        << "  onnxcc_cuda::Model *const cuda_ = " << n << "_cuda_current_;\n"
        << "  const unsigned char *const cuda_weights_ =\n"
        << "      reinterpret_cast<const unsigned char *>(uintptr_t(cuda_->weights));\n"
        << "  (void)cuda_weights_;\n";
    if (!options.embedWeights)
      s << "  const unsigned char *weights_ = static_cast<const unsigned char *>(weights);\n"
        << "  (void)weights_;\n";
    if (usesStringPool) {
      std::string start = symbolic ? "(" + n + "_arena_size(" +
                                         StringRef(symbolArgs).drop_front(2).str() + ") - " +
                                         std::to_string(stringPoolBytes) + "u)"
                                   : std::to_string(arenaSize - stringPoolBytes);
      s << "  // New strings go to the string pool after the planned buffers.\n";
      s << "  onnxcc_rt::string_pool string_pool_ = {reinterpret_cast<char *>(arena_ + " << start
        << "), " << stringPoolSize << ", 0};\n";
    }
    s << body;
    s << "}\n\n";
    if (hasDataDims) {
      s << "extern \"C\" int64_t " << n << "_output_capacity(int output"
        << (symbolic ? ", const int64_t *dims" : "") << ") {\n";
      if (symbolic) {
        s << "  if (!dims)\n    return 0;\n";
        for (auto [k, id] : llvm::enumerate(symbolNames))
          s << "  [[maybe_unused]] const int64_t " << id << " = dims[" << k << "];\n";
      }
      s << "  switch (output) {\n";
      // Numbered as the interface numbers outputs: by group when grouped.
      SmallVector<const Port *> numbered;
      if (grouped)
        for (const Group &g : outGroups)
          numbered.push_back(g.kind == "tensor" ? g.value : nullptr);
      else
        for (const Port &p : outputs)
          numbered.push_back(&p);
      for (auto [i, pp] : llvm::enumerate(numbered)) {
        if (!pp)
          continue;
        const Port &p = *pp;
        std::string product;
        for (int64_t d = 0; d < p.type.getRank(); ++d)
          product += (product.empty() ? "" : " * ") +
                     (p.symbolicDim(d) ? "(" + dimExpr(p.dims[d]) + ")"
                                       : std::to_string(p.type.getDimSize(d)));
        // In int64_t from the first factor: bounds such as 256^4 overflow int.
        s << "  case " << i << ":\n    return "
          << (product.empty() ? "1" : "INT64_C(1) * " + product) << ";\n";
      }
      s << "  default:\n    return 0;\n  }\n}\n\n";
    }
    if (grouped) {
      groupRun(s);
      s.flush();
      model.weights = std::move(weights);
      return model;
    }
    if (options.cuda) {
      if (Error e = emitCudaApi(s))
        return std::move(e);
      s.flush();
      model.weights = std::move(weights);
      return model;
    }
    s << "extern \"C\" int " << n << "_run_generic(" << arenaParam << weightsParam
      << (symbolic ? ", const int64_t *dims" : "")
      << ", const void *const *inputs, void *const *outputs"
      << (hasDataDims ? ", int64_t *const *output_dims" : "") << ") {\n";
    s << "  if (!inputs || !outputs" << (symbolic ? " || !dims" : "")
      << (hasDataDims ? " || !output_dims" : "") << ")\n    return 1;\n";
    s << "  return " << n << "_run(" << arenaArgs << (options.embedWeights ? "" : ", weights");
    for (size_t k = 0; k < symbols.size(); ++k)
      s << ", dims[" << k << "]";
    for (auto [i, p] : llvm::enumerate(inputs))
      s << ",\n      static_cast<" << p.paramType(true) << ">(inputs[" << i << "])";
    for (auto [i, p] : llvm::enumerate(outputs)) {
      s << ",\n      static_cast<" << p.paramType(false) << ">(outputs[" << i << "])";
      if (p.dimsArg >= 0)
        s << ", output_dims[" << i << "]";
    }
    s << ");\n}\n";
  }
  model.weights = std::move(weights);
  return model;
}

} // namespace

Expected<CppModel> emitCpp(ModuleOp module, const CppEmitOptions &options) {
  Emitter emitter(options);
  return emitter.emit(module);
}

} // namespace onnxcc::codegen
