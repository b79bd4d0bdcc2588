//===- FoldConstants.cpp - The onnx-fold-constants pass ------------------===//
//
// Replaces onnx ops whose data operands are all onnx.Constant (absent
// optional operands are fine) by onnx.Constant, in nested regions too, until
// nothing changes: a folded result feeds the next op.
//
// Elementwise ops are not computed by a second copy of their math. Their
// scalar body, the one the lowering builds (buildElementwiseScalar), is built
// once into a scratch block, and every output element is computed by running
// MLIR's own folders (arith, math) over that body on attribute operands. When
// an op of the body does not fold (a division by zero, exp on f16, a cast out
// of range...) the onnx op stays for run time. So folded and computed values
// agree.
//
// DequantizeLinear of integer constants (int2 to int32, per tensor, per
// axis or blocked) folds to float32 with the lowering's arithmetic, except
// 4-bit weights that the weight-only kernel reads as they are
// (lowering::feedsQ4Kernel).
//
// Data movement (Shape, Size, Gather, Concat, Reshape, Flatten, Squeeze,
// Unsqueeze, Slice, Transpose, Identity, Expand, Tile, ConstantOfShape) is
// index arithmetic on the elements' bytes, for any element type. Range runs
// the ops its lowering emits through the same folders. Integer ReduceSum,
// ReduceProd, ReduceMin and ReduceMax (shape arithmetic) wrap like the
// generated code. Shape and Size only need static dims, not a constant.
//
// A result is folded when its bytes are at most `size-limit`, or no more
// than the constant operands that die with the fold, or when it is read only
// as the weights of heavy ops (Conv W, MatMul B...), which the lowering packs
// at compile time anyway. Elementwise float arithmetic (Cast between float
// types, +, -, *, /) of any size is evaluated on APFloat values as the
// folders of its body compute it; other elementwise ops fold up to 64 Ki
// elements. Results of 1 KiB or more
// become resource blobs named after the node (deterministic); smaller ones,
// splats and booleans stay inline. Anything unexpected skips the fold.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "dialects/onnx/OnnxDialect.h"
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Constants.h"
#include "dialects/onnx/Transforms/Passes.h"
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

namespace onnxcc {
#define GEN_PASS_DEF_ONNXFOLDCONSTANTSPASS
#include "lowering/Passes.h.inc"

namespace {
using namespace mlir;

/// Folded constants at least this large become resource blobs, as the
/// importer writes initializers.
constexpr int64_t kBlobThresholdBytes = 1024;

/// Elementwise results with more elements than this stay for run time: every
/// element evaluated makes attributes that live as long as the context.
constexpr int64_t kMaxEvaluatedElements = int64_t(1) << 16;

/// Bytes one element takes in a folded tensor (a bool takes one); nullopt for
/// types the pass does not fold (strings, complex numbers).
std::optional<int64_t> elementBytes(Type t) {
  unsigned width = 0;
  if (auto i = dyn_cast<IntegerType>(t))
    width = i.getWidth();
  else if (auto f = dyn_cast<FloatType>(t))
    width = f.getWidth();
  else
    return std::nullopt;
  if (width == 1)
    return 1;
  if (width % 8 != 0 || width > 64)
    return std::nullopt;
  return width / 8;
}

/// A static tensor type the pass can produce.
RankedTensorType foldableType(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  if (!r || !r.hasStaticShape() || r.getEncoding() || !elementBytes(r.getElementType()))
    return {};
  return r;
}

/// A tensor value unpacked: row-major elements, each `width` little-endian
/// bytes of its bit pattern (one 0/1 byte per bool).
struct Tensor {
  RankedTensorType type;
  int64_t width = 0;
  std::vector<char> bytes;

  static Tensor zeros(RankedTensorType type) {
    Tensor t;
    t.type = type;
    t.width = *elementBytes(type.getElementType());
    t.bytes.assign(type.getNumElements() * t.width, 0);
    return t;
  }
  int64_t size() const { return type.getNumElements(); }
  ArrayRef<int64_t> shape() const { return type.getShape(); }
  uint64_t bits(int64_t i) const {
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + i * width, width);
    return v;
  }
  void setBits(int64_t i, uint64_t v) { std::memcpy(bytes.data() + i * width, &v, width); }
  void copyElement(int64_t to, const Tensor &from, int64_t at) {
    std::memcpy(bytes.data() + to * width, from.bytes.data() + at * width, width);
  }
  /// Element `i` of an integer tensor as int64 (sign- or zero-extended).
  int64_t intAt(int64_t i) const {
    unsigned w = type.getElementType().getIntOrFloatBitWidth();
    APInt v(w, bits(i));
    return type.getElementType().isUnsignedInteger() || w == 1 ? int64_t(v.getZExtValue())
                                                               : v.getSExtValue();
  }
};

uint64_t bitsOf(const APInt &v) { return v.getZExtValue(); }

/// The elements of `attr` unpacked; nullopt when it is not readable here.
std::optional<Tensor> readAttr(ElementsAttr attr, RankedTensorType type) {
  if (!attr || !type || attr.getType() != type)
    return std::nullopt;
  Tensor t = Tensor::zeros(type);
  int64_t n = t.size();
  Type elem = type.getElementType();
  if (n == 0)
    return t;
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr)) {
    if (elem.isInteger(1)) {
      int64_t i = 0;
      for (bool v : dense.getValues<bool>())
        t.setBits(i++, v ? 1 : 0);
      return t;
    }
    if (dense.isSplat()) {
      uint64_t v = isa<FloatType>(elem) ? bitsOf(dense.getSplatValue<APFloat>().bitcastToAPInt())
                                        : bitsOf(dense.getSplatValue<APInt>());
      for (int64_t i = 0; i < n; ++i)
        t.setBits(i, v);
      return t;
    }
    ArrayRef<char> raw = dense.getRawData();
    if (static_cast<int64_t>(raw.size()) != n * t.width)
      return std::nullopt;
    std::memcpy(t.bytes.data(), raw.data(), raw.size());
    return t;
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || elem.isInteger(1))
      return std::nullopt;
    ArrayRef<char> raw = blob->getData();
    if (static_cast<int64_t>(raw.size()) != n * t.width)
      return std::nullopt;
    // Blobs hold little-endian host data, as the importer writes them.
    if (!raw.empty())
      std::memcpy(t.bytes.data(), raw.data(), raw.size());
    return t;
  }
  return std::nullopt;
}

/// The value of the onnx.Constant that defines `v`, unpacked.
std::optional<Tensor> readConstant(Value v) {
  auto cst = v.getDefiningOp<onnx::ConstantOp>();
  if (!cst)
    return std::nullopt;
  return readAttr(cst.getValueAttr(), foldableType(v.getType()));
}

/// The elements of an integer constant as int64.
std::optional<SmallVector<int64_t>> readInts(Value v) {
  auto t = readConstant(v);
  if (!t || !isa<IntegerType>(t->type.getElementType()) ||
      t->type.getElementType().isInteger(1))
    return std::nullopt;
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < t->size(); ++i)
    out.push_back(t->intAt(i));
  return out;
}

/// The scalar attribute of element type `elem` with bit pattern `bits`.
TypedAttr scalarAttr(Type elem, uint64_t bits) {
  if (auto f = dyn_cast<FloatType>(elem))
    return FloatAttr::get(elem, APFloat(f.getFloatSemantics(), APInt(f.getWidth(), bits)));
  unsigned w = elem.getIntOrFloatBitWidth();
  return IntegerAttr::get(elem, APInt(w, w == 64 ? bits : bits & ((uint64_t(1) << w) - 1)));
}

/// The bit pattern of a folded scalar of type `elem`; nullopt when the folder
/// gave something else (a poison value, another type).
std::optional<uint64_t> scalarBits(Attribute a, Type elem) {
  if (auto f = dyn_cast_or_null<FloatAttr>(a); f && f.getType() == elem)
    return bitsOf(f.getValue().bitcastToAPInt());
  if (auto i = dyn_cast_or_null<IntegerAttr>(a); i && i.getType() == elem)
    return bitsOf(i.getValue());
  return std::nullopt;
}

/// `t`'s elements as an attribute: a splat when they are all equal, inline
/// dense data when small or boolean, else a resource blob named `blobName`.
ElementsAttr makeAttr(const Tensor &t, StringRef blobName) {
  int64_t n = t.size();
  Type elem = t.type.getElementType();
  if (n == 0)
    return DenseElementsAttr::get(t.type, ArrayRef<Attribute>{});
  bool splat = true;
  for (int64_t i = 1; i < n && splat; ++i)
    splat = std::memcmp(t.bytes.data(), t.bytes.data() + i * t.width, t.width) == 0;
  if (splat)
    return DenseElementsAttr::get(t.type, ArrayRef<Attribute>{scalarAttr(elem, t.bits(0))});
  if (elem.isInteger(1)) {
    SmallVector<bool> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(t.bits(i) != 0);
    return DenseElementsAttr::get(t.type, values);
  }
  ArrayRef<char> raw(t.bytes.data(), t.bytes.size());
  if (static_cast<int64_t>(raw.size()) >= kBlobThresholdBytes) {
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, t.width);
    return DenseResourceElementsAttr::get(t.type, blobName, std::move(blob));
  }
  return DenseElementsAttr::getFromRawBuffer(t.type, raw);
}

/// The type a scalar of onnx element type `t` has in the lowering's bodies:
/// signless integers (i1 for bool), floats as they are.
Type scalarType(Type t) {
  if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

/// A scalar computation built once into a detached block and evaluated on
/// attribute operands by the folders of its ops.
class ScalarProgram {
public:
  ScalarProgram(MLIRContext *ctx, TypeRange argTypes)
      : ctx(ctx), block(std::make_unique<Block>()) {
    for (Type t : argTypes)
      block->addArgument(t, UnknownLoc::get(ctx));
  }
  ~ScalarProgram() { block->clear(); }

  /// A builder at the end of the body (the block has no parent region).
  OpBuilder builder() {
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(block.get());
    return b;
  }
  Block::BlockArgListType args() { return block->getArguments(); }

  /// The value of `result` for `args`; null when an op does not fold.
  Attribute evaluate(Value result, ArrayRef<Attribute> argValues) {
    values.clear();
    for (auto [arg, v] : llvm::zip_equal(block->getArguments(), argValues))
      values[arg] = v;
    SmallVector<Attribute, 4> operands;
    SmallVector<OpFoldResult, 2> folded;
    for (Operation &op : *block) {
      bool done = false;
      // A folder may update its op in place (extsi of extsi); fold again.
      for (int attempt = 0; attempt < 4 && !done; ++attempt) {
        operands.clear();
        for (Value o : op.getOperands()) {
          Attribute a = values.lookup(o);
          if (!a)
            return {};
          operands.push_back(a);
        }
        folded.clear();
        if (failed(op.fold(operands, folded)))
          return {};
        if (folded.empty())
          continue;
        if (folded.size() != op.getNumResults())
          return {};
        done = true;
        for (auto [res, f] : llvm::zip_equal(op.getResults(), folded)) {
          Attribute a = dyn_cast<Attribute>(f);
          if (!a) {
            Value v = cast<Value>(f);
            if (v == res) {
              done = false;
              break;
            }
            a = values.lookup(v);
          }
          if (!a)
            return {};
          values[res] = a;
        }
      }
      if (!done)
        return {};
    }
    return values.lookup(result);
  }

  /// Whether the body is float arithmetic only (add, sub, mul, div, neg,
  /// extf), which evaluateFloats computes as the ops' folders do (IEEE
  /// operations of APFloat, round to nearest even) without an attribute per
  /// value: how weights of millions of elements (a Cast from float16, a
  /// scale) fold.
  bool isFloatArithmetic() const {
    for (BlockArgument arg : block->getArguments())
      if (!isa<FloatType>(arg.getType()))
        return false;
    for (Operation &op : *block) {
      if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
               arith::ExtFOp>(op))
        return false;
      if (auto fm = dyn_cast<arith::ArithFastMathInterface>(op);
          fm && fm.getFastMathFlagsAttr() &&
          fm.getFastMathFlagsAttr().getValue() != arith::FastMathFlags::none)
        return false;
    }
    return true;
  }

  /// The value of `result` for `args` (isFloatArithmetic bodies); nullopt
  /// where an operation is invalid or divides by zero (the op then stays
  /// for run time, as when a folder declines).
  std::optional<APFloat> evaluateFloats(Value result, ArrayRef<APFloat> args) {
    floats.clear();
    for (auto [arg, v] : llvm::zip_equal(block->getArguments(), args))
      floats.try_emplace(arg, v);
    for (Operation &op : *block) {
      auto in = [&](unsigned i) -> const APFloat * {
        auto it = floats.find(op.getOperand(i));
        return it == floats.end() ? nullptr : &it->second;
      };
      const APFloat *a = in(0);
      if (!a)
        return std::nullopt;
      APFloat r = *a;
      APFloat::opStatus status = APFloat::opOK;
      if (isa<arith::NegFOp>(op)) {
        r.changeSign();
      } else if (isa<arith::ExtFOp>(op)) {
        bool loses = false;
        status = r.convert(cast<FloatType>(op.getResult(0).getType()).getFloatSemantics(),
                           APFloat::rmNearestTiesToEven, &loses);
      } else {
        const APFloat *b = in(1);
        if (!b)
          return std::nullopt;
        if (isa<arith::AddFOp>(op))
          status = r.add(*b, APFloat::rmNearestTiesToEven);
        else if (isa<arith::SubFOp>(op))
          status = r.subtract(*b, APFloat::rmNearestTiesToEven);
        else if (isa<arith::MulFOp>(op))
          status = r.multiply(*b, APFloat::rmNearestTiesToEven);
        else
          status = r.divide(*b, APFloat::rmNearestTiesToEven);
      }
      if (status & (APFloat::opInvalidOp | APFloat::opDivByZero))
        return std::nullopt;
      floats.insert_or_assign(op.getResult(0), r);
    }
    auto it = floats.find(result);
    if (it == floats.end())
      return std::nullopt;
    return it->second;
  }

private:
  MLIRContext *ctx;
  std::unique_ptr<Block> block;
  DenseMap<Value, Attribute> values;
  DenseMap<Value, APFloat> floats;
};

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Calls `fn(outIndex, outLinear)` for every element of `shape` in order.
void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<bool(ArrayRef<int64_t>, int64_t)> fn) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (!fn(idx, i))
      return;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// A tensor of `type` whose element at out index `i` is `in`'s element at
/// the linear index `map(i)`; nullopt when `map` returns a negative index.
std::optional<Tensor> remap(const Tensor &in, RankedTensorType type,
                            llvm::function_ref<int64_t(ArrayRef<int64_t>)> map) {
  Tensor out = Tensor::zeros(type);
  bool ok = true;
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> idx, int64_t i) {
    int64_t at = map(idx);
    if (at < 0 || at >= in.size())
      return ok = false;
    out.copyElement(i, in, at);
    return true;
  });
  if (!ok)
    return std::nullopt;
  return out;
}

/// The linear index in a tensor of `shape` (strides `strides`) that the
/// multidirectional broadcast to an out index `idx` reads.
int64_t broadcastIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> idx) {
  int64_t off = idx.size() - shape.size(), at = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    at += (shape[d] == 1 ? 0 : idx[off + d]) * strides[d];
  return at;
}

/// Whether `shape` broadcasts to `to`.
bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> to) {
  if (shape.size() > to.size())
    return false;
  int64_t off = to.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && shape[d] != to[off + d])
      return false;
  return true;
}

int64_t intAttr(Operation *op, StringRef name, int64_t fallback) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getValue().getSExtValue();
  return fallback;
}

/// `axis` in [-rank, rank) made non-negative; nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

bool isAbsent(Value v) { return isa<NoneType>(v.getType()); }

/// The elements of an integer constant of width 2 to 32 as int64, sign- or
/// zero-extended by the type's signedness; nullopt for anything else.
std::optional<SmallVector<int64_t>> readQuantized(Value v) {
  ElementsAttr attr = onnx::staticConstantValue(v);
  auto elem = attr ? dyn_cast<IntegerType>(attr.getElementType()) : nullptr;
  if (!elem || elem.getWidth() > 32)
    return std::nullopt;
  return onnx::readIntegerElements(attr);
}

/// Evaluates one onnx op whose operands are constant. Each method returns
/// the results, or nullopt to leave the op for run time.
class Folder {
public:
  using Results = std::optional<SmallVector<Tensor, 1>>;

  explicit Folder(Operation *op) : op(op) {}

  Results run() {
    if (auto shape = dyn_cast<onnx::ShapeOp>(op))
      return one(foldShape(shape));
    if (auto size = dyn_cast<onnx::SizeOp>(op))
      return one(foldSize(size));
    if (isa<onnx::IdentityOp>(op))
      return one(foldReshapeLike(readConstant(op->getOperand(0))));
    if (isa<onnx::ReshapeOp>(op))
      return one(foldReshape());
    if (isa<onnx::FlattenOp, onnx::SqueezeOp, onnx::UnsqueezeOp>(op))
      return one(foldReshapeLike(readConstant(op->getOperand(0))));
    if (isa<onnx::GatherOp>(op))
      return one(foldGather());
    if (isa<onnx::ConcatOp>(op))
      return one(foldConcat());
    if (isa<onnx::SliceOp>(op))
      return one(foldSlice());
    if (isa<onnx::TransposeOp>(op))
      return one(foldTranspose());
    if (isa<onnx::ExpandOp>(op))
      return one(foldExpand());
    if (isa<onnx::TileOp>(op))
      return one(foldTile());
    if (isa<onnx::ConstantOfShapeOp>(op))
      return one(foldConstantOfShape());
    if (isa<onnx::RangeOp>(op))
      return one(foldRange());
    if (isa<onnx::ReduceSumOp, onnx::ReduceProdOp, onnx::ReduceMinOp, onnx::ReduceMaxOp>(op))
      return one(foldReduce());
    if (isa<onnx::DequantizeLinearOp>(op))
      return one(foldDequantize());
    if (lowering::isElementwiseOp(op))
      return one(foldElementwise());
    return std::nullopt;
  }

private:
  static Results one(std::optional<Tensor> t) {
    if (!t)
      return std::nullopt;
    SmallVector<Tensor, 1> r;
    r.push_back(std::move(*t));
    return r;
  }

  RankedTensorType resultType() const { return foldableType(op->getResult(0).getType()); }

  /// `data` with the op's result type: the elements stay in order
  /// (Identity, Reshape, Flatten, Squeeze, Unsqueeze).
  std::optional<Tensor> foldReshapeLike(std::optional<Tensor> data) {
    RankedTensorType type = resultType();
    if (!data || !type || type.getElementType() != data->type.getElementType() ||
        type.getNumElements() != data->size())
      return std::nullopt;
    // The dims the op's attributes and operands give must be the result's.
    if (!checkReshapeShape(data->shape(), type.getShape()))
      return std::nullopt;
    data->type = type;
    return data;
  }

  /// Whether Flatten/Squeeze/Unsqueeze/Identity of `in` gives `out`.
  bool checkReshapeShape(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
    int64_t rank = in.size();
    SmallVector<int64_t> expect;
    if (isa<onnx::ReshapeOp>(op))
      return true; // foldReshape computed the dims
    if (isa<onnx::IdentityOp>(op)) {
      expect.assign(in.begin(), in.end());
    } else if (isa<onnx::FlattenOp>(op)) {
      int64_t axis = intAttr(op, "axis", 1);
      if (axis < -rank || axis > rank)
        return false;
      if (axis < 0)
        axis += rank;
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < rank; ++d)
        (d < axis ? outer : inner) *= in[d];
      expect = {outer, inner};
    } else if (isa<onnx::SqueezeOp>(op)) {
      SmallVector<bool> drop(rank, false);
      if (op->getNumOperands() > 1 && !isAbsent(op->getOperand(1))) {
        auto axes = readInts(op->getOperand(1));
        if (!axes)
          return false;
        for (int64_t a : *axes) {
          auto axis = normalizeAxis(a, rank);
          if (!axis || in[*axis] != 1)
            return false;
          drop[*axis] = true;
        }
      } else {
        for (int64_t d = 0; d < rank; ++d)
          drop[d] = in[d] == 1;
      }
      for (int64_t d = 0; d < rank; ++d)
        if (!drop[d])
          expect.push_back(in[d]);
    } else if (isa<onnx::UnsqueezeOp>(op)) {
      auto axes = readInts(op->getOperand(1));
      if (!axes)
        return false;
      int64_t outRank = rank + axes->size();
      SmallVector<bool> inserted(outRank, false);
      for (int64_t a : *axes) {
        auto axis = normalizeAxis(a, outRank);
        if (!axis || inserted[*axis])
          return false;
        inserted[*axis] = true;
      }
      for (int64_t d = 0, next = 0; d < outRank; ++d)
        expect.push_back(inserted[d] ? 1 : in[next++]);
    } else {
      return false;
    }
    return ArrayRef<int64_t>(expect) == out;
  }

  /// Reshape: 0 copies the input dim (unless allowzero), -1 is inferred.
  std::optional<Tensor> foldReshape() {
    auto data = readConstant(op->getOperand(0));
    auto shape = readInts(op->getOperand(1));
    RankedTensorType type = resultType();
    if (!data || !shape || !type)
      return std::nullopt;
    bool allowZero = intAttr(op, "allowzero", 0) != 0;
    SmallVector<int64_t> dims;
    int64_t known = 1, inferred = -1;
    for (auto [i, s] : llvm::enumerate(*shape)) {
      if (s == 0 && !allowZero) {
        if (i >= data->shape().size())
          return std::nullopt;
        s = data->shape()[i];
      }
      if (s == -1) {
        if (inferred >= 0)
          return std::nullopt;
        inferred = i;
      } else if (s < 0) {
        return std::nullopt;
      } else {
        known *= s;
      }
      dims.push_back(s);
    }
    if (inferred >= 0) {
      if (known == 0 || data->size() % known != 0)
        return std::nullopt;
      dims[inferred] = data->size() / known;
    }
    if (ArrayRef<int64_t>(dims) != type.getShape())
      return std::nullopt;
    return foldReshapeLike(std::move(data));
  }

  /// Shape, of any value whose selected dims are static.
  std::optional<Tensor> foldShape(onnx::ShapeOp shape) {
    auto in = dyn_cast<RankedTensorType>(shape.getData().getType());
    RankedTensorType type = resultType();
    if (!in || !type || !type.getElementType().isInteger(64))
      return std::nullopt;
    int64_t rank = in.getRank();
    auto clampDim = [&](int64_t d) {
      if (d < 0)
        d += rank;
      return std::clamp<int64_t>(d, 0, rank);
    };
    int64_t start = clampDim(intAttr(op, "start", 0));
    int64_t end = clampDim(intAttr(op, "end", rank));
    Tensor out = Tensor::zeros(type);
    if (out.size() != std::max<int64_t>(end - start, 0))
      return std::nullopt;
    for (int64_t d = start; d < end; ++d) {
      if (in.isDynamicDim(d))
        return std::nullopt; // a symbolic dim is known at run time only
      out.setBits(d - start, static_cast<uint64_t>(in.getDimSize(d)));
    }
    return out;
  }

  std::optional<Tensor> foldSize(onnx::SizeOp size) {
    auto in = dyn_cast<RankedTensorType>(size.getData().getType());
    RankedTensorType type = resultType();
    if (!in || !in.hasStaticShape() || !type || type.getNumElements() != 1 ||
        !type.getElementType().isInteger(64))
      return std::nullopt;
    Tensor out = Tensor::zeros(type);
    out.setBits(0, static_cast<uint64_t>(in.getNumElements()));
    return out;
  }

  /// Gather: negative indices count from the end; one out of range leaves
  /// the op (and its run-time error) alone.
  std::optional<Tensor> foldGather() {
    auto data = readConstant(op->getOperand(0));
    auto indices = readConstant(op->getOperand(1));
    RankedTensorType type = resultType();
    if (!data || !indices || !type || type.getElementType() != data->type.getElementType())
      return std::nullopt;
    int64_t rank = data->shape().size();
    auto axis = normalizeAxis(intAttr(op, "axis", 0), rank);
    if (!axis)
      return std::nullopt;
    int64_t dim = data->shape()[*axis];
    SmallVector<int64_t> idx;
    for (int64_t i = 0; i < indices->size(); ++i) {
      int64_t v = indices->intAt(i);
      if (v < -dim || v >= dim)
        return std::nullopt;
      idx.push_back(v < 0 ? v + dim : v);
    }
    SmallVector<int64_t> shape(data->shape().take_front(*axis));
    llvm::append_range(shape, indices->shape());
    llvm::append_range(shape, data->shape().drop_front(*axis + 1));
    if (ArrayRef<int64_t>(shape) != type.getShape())
      return std::nullopt;
    SmallVector<int64_t> strides = stridesOf(data->shape());
    SmallVector<int64_t> idxStrides = stridesOf(indices->shape());
    int64_t q = indices->shape().size();
    return remap(*data, type, [&](ArrayRef<int64_t> out) {
      int64_t at = 0, k = 0;
      for (int64_t d = 0; d < *axis; ++d)
        at += out[d] * strides[d];
      for (int64_t d = 0; d < q; ++d)
        k += out[*axis + d] * idxStrides[d];
      at += idx[k] * strides[*axis];
      for (int64_t d = *axis + 1; d < rank; ++d)
        at += out[d + q - 1] * strides[d];
      return at;
    });
  }

  std::optional<Tensor> foldConcat() {
    RankedTensorType type = resultType();
    if (!type || op->getNumOperands() == 0)
      return std::nullopt;
    SmallVector<Tensor> inputs;
    for (Value v : op->getOperands()) {
      auto t = readConstant(v);
      if (!t || t->type.getElementType() != type.getElementType() ||
          t->shape().size() != type.getShape().size())
        return std::nullopt;
      inputs.push_back(std::move(*t));
    }
    int64_t rank = type.getRank();
    auto axis = normalizeAxis(intAttr(op, "axis", 0), rank);
    if (!axis)
      return std::nullopt;
    int64_t total = 0;
    for (const Tensor &t : inputs) {
      for (int64_t d = 0; d < rank; ++d)
        if (d != *axis && t.shape()[d] != type.getDimSize(d))
          return std::nullopt;
      total += t.shape()[*axis];
    }
    if (total != type.getDimSize(*axis))
      return std::nullopt;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < *axis)
        outer *= type.getDimSize(d);
      else if (d > *axis)
        inner *= type.getDimSize(d);
    }
    Tensor out = Tensor::zeros(type);
    int64_t w = out.width;
    char *dst = out.bytes.data();
    for (int64_t o = 0; o < outer; ++o)
      for (const Tensor &t : inputs) {
        int64_t chunk = t.shape()[*axis] * inner * w;
        if (chunk)
          std::memcpy(dst, t.bytes.data() + o * chunk, chunk);
        dst += chunk;
      }
    return out;
  }

  /// Slice, every form of the inputs: optional axes and steps, negative
  /// starts, ends and steps, ends past the dim.
  std::optional<Tensor> foldSlice() {
    auto data = readConstant(op->getOperand(0));
    auto starts = readInts(op->getOperand(1));
    auto ends = readInts(op->getOperand(2));
    RankedTensorType type = resultType();
    if (!data || !starts || !ends || !type || starts->size() != ends->size() ||
        type.getElementType() != data->type.getElementType())
      return std::nullopt;
    int64_t rank = data->shape().size();
    size_t n = starts->size();
    SmallVector<int64_t> axes, steps(n, 1);
    if (op->getNumOperands() > 3 && !isAbsent(op->getOperand(3))) {
      auto a = readInts(op->getOperand(3));
      if (!a || a->size() != n)
        return std::nullopt;
      axes = *a;
    } else {
      for (size_t i = 0; i < n; ++i)
        axes.push_back(i);
    }
    if (op->getNumOperands() > 4 && !isAbsent(op->getOperand(4))) {
      auto s = readInts(op->getOperand(4));
      if (!s || s->size() != n)
        return std::nullopt;
      steps = *s;
    }
    SmallVector<int64_t> begin(rank, 0), step(rank, 1), shape(data->shape());
    SmallVector<bool> seen(rank, false);
    for (size_t i = 0; i < n; ++i) {
      auto axis = normalizeAxis(axes[i], rank);
      if (!axis || seen[*axis] || steps[i] == 0)
        return std::nullopt;
      seen[*axis] = true;
      int64_t dim = data->shape()[*axis], s = steps[i];
      onnx::SliceAxis slice = onnx::normalizeSliceAxis((*starts)[i], (*ends)[i], s, dim);
      begin[*axis] = slice.start;
      step[*axis] = s;
      shape[*axis] = slice.count;
    }
    if (ArrayRef<int64_t>(shape) != type.getShape())
      return std::nullopt;
    SmallVector<int64_t> strides = stridesOf(data->shape());
    return remap(*data, type, [&](ArrayRef<int64_t> out) {
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d)
        at += (begin[d] + out[d] * step[d]) * strides[d];
      return at;
    });
  }

  std::optional<Tensor> foldTranspose() {
    auto data = readConstant(op->getOperand(0));
    RankedTensorType type = resultType();
    if (!data || !type || type.getElementType() != data->type.getElementType())
      return std::nullopt;
    int64_t rank = data->shape().size();
    SmallVector<int64_t> perm;
    if (auto p = op->getAttrOfType<DenseI64ArrayAttr>("perm"))
      perm.assign(p.asArrayRef().begin(), p.asArrayRef().end());
    else
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    if (static_cast<int64_t>(perm.size()) != rank)
      return std::nullopt;
    SmallVector<bool> seen(rank, false);
    SmallVector<int64_t> shape;
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[p])
        return std::nullopt;
      seen[p] = true;
      shape.push_back(data->shape()[p]);
    }
    if (ArrayRef<int64_t>(shape) != type.getShape())
      return std::nullopt;
    SmallVector<int64_t> strides = stridesOf(data->shape());
    return remap(*data, type, [&](ArrayRef<int64_t> out) {
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d)
        at += out[d] * strides[perm[d]];
      return at;
    });
  }

  std::optional<Tensor> foldExpand() {
    auto data = readConstant(op->getOperand(0));
    auto shape = readInts(op->getOperand(1));
    RankedTensorType type = resultType();
    if (!data || !shape || !type || type.getElementType() != data->type.getElementType())
      return std::nullopt;
    // Multidirectional broadcast of the input's shape and `shape`.
    ArrayRef<int64_t> a = data->shape(), b = *shape;
    size_t rank = std::max(a.size(), b.size());
    SmallVector<int64_t> out(rank);
    for (size_t d = 0; d < rank; ++d) {
      int64_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
      int64_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
      if (x != y && x != 1 && y != 1)
        return std::nullopt;
      out[d] = x == 1 ? y : x;
    }
    if (ArrayRef<int64_t>(out) != type.getShape() || !broadcastsTo(a, out))
      return std::nullopt;
    SmallVector<int64_t> strides = stridesOf(a);
    return remap(*data, type,
                 [&](ArrayRef<int64_t> idx) { return broadcastIndex(a, strides, idx); });
  }

  std::optional<Tensor> foldTile() {
    auto data = readConstant(op->getOperand(0));
    auto repeats = readInts(op->getOperand(1));
    RankedTensorType type = resultType();
    if (!data || !repeats || !type || type.getElementType() != data->type.getElementType() ||
        repeats->size() != data->shape().size())
      return std::nullopt;
    ArrayRef<int64_t> in = data->shape();
    SmallVector<int64_t> shape;
    for (auto [d, r] : llvm::zip_equal(in, *repeats)) {
      if (r < 0)
        return std::nullopt;
      shape.push_back(d * r);
    }
    if (ArrayRef<int64_t>(shape) != type.getShape())
      return std::nullopt;
    SmallVector<int64_t> strides = stridesOf(in);
    return remap(*data, type, [&](ArrayRef<int64_t> out) {
      int64_t at = 0;
      for (size_t d = 0; d < in.size(); ++d)
        at += (out[d] % in[d]) * strides[d];
      return at;
    });
  }

  std::optional<Tensor> foldConstantOfShape() {
    auto shape = readInts(op->getOperand(0));
    RankedTensorType type = resultType();
    if (!shape || !type || ArrayRef<int64_t>(*shape) != type.getShape())
      return std::nullopt;
    Tensor out = Tensor::zeros(type); // the default value is a float zero
    if (auto value = op->getAttrOfType<ElementsAttr>("value")) {
      auto vt = dyn_cast<RankedTensorType>(value.getType());
      if (!vt || vt.getNumElements() != 1 || vt.getElementType() != type.getElementType())
        return std::nullopt;
      auto v = readAttr(value, vt);
      if (!v)
        return std::nullopt;
      for (int64_t i = 0; i < out.size(); ++i)
        out.setBits(i, v->bits(0));
    } else if (!type.getElementType().isF32()) {
      return std::nullopt;
    }
    return out;
  }

  /// Range: out[i] = start + i * delta through the body its lowering emits
  /// (buildRangeElement), evaluated by the folders; the length is the
  /// result's.
  std::optional<Tensor> foldRange() {
    auto start = readConstant(op->getOperand(0));
    auto delta = readConstant(op->getOperand(2));
    RankedTensorType type = resultType();
    if (!start || !delta || !readConstant(op->getOperand(1)) || !type || type.getRank() != 1 ||
        start->size() != 1 || delta->size() != 1)
      return std::nullopt;
    Type elem = type.getElementType();
    if (start->type.getElementType() != elem || delta->type.getElementType() != elem ||
        !(isa<FloatType>(elem) || elem.isSignlessInteger()))
      return std::nullopt;
    MLIRContext *ctx = op->getContext();
    Type i64 = IntegerType::get(ctx, 64);
    ScalarProgram prog(ctx, {i64, elem, elem});
    OpBuilder b = prog.builder();
    Location loc = op->getLoc();
    Value r = lowering::buildRangeElement(b, loc, prog.args()[0], prog.args()[1],
                                          prog.args()[2], elem);
    Tensor out = Tensor::zeros(type);
    Attribute sa = scalarAttr(elem, start->bits(0)), da = scalarAttr(elem, delta->bits(0));
    for (int64_t k = 0; k < out.size(); ++k) {
      auto bits = scalarBits(prog.evaluate(r, {IntegerAttr::get(i64, k), sa, da}), elem);
      if (!bits)
        return std::nullopt;
      out.setBits(k, *bits);
    }
    return out;
  }

  /// ReduceSum/Prod/Min/Max of integers (shape arithmetic), wrapping at the
  /// element width like the generated code.
  std::optional<Tensor> foldReduce() {
    auto data = readConstant(op->getOperand(0));
    RankedTensorType type = resultType();
    if (!data || !type || type.getElementType() != data->type.getElementType())
      return std::nullopt;
    Type elem = type.getElementType();
    // Float ReduceMin/ReduceMax are exact (Resize-18's keep_aspect_ratio_policy
    // picks its one scale so); float sums and products are not folded.
    bool isFloat = elem.isF32() || elem.isF64();
    if ((!isa<IntegerType>(elem) || elem.isInteger(1)) &&
        !(isFloat && isa<onnx::ReduceMinOp, onnx::ReduceMaxOp>(op)))
      return std::nullopt;
    int64_t rank = data->shape().size();
    SmallVector<bool> reduced(rank, false);
    bool hasAxes = op->getNumOperands() > 1 && !isAbsent(op->getOperand(1));
    SmallVector<int64_t> axes;
    if (hasAxes) {
      auto a = readInts(op->getOperand(1));
      if (!a)
        return std::nullopt;
      axes = *a;
    }
    if (axes.empty()) {
      if (intAttr(op, "noop_with_empty_axes", 0) != 0)
        return foldReshapeLikeIdentity(std::move(*data), type);
      reduced.assign(rank, true);
    }
    for (int64_t a : axes) {
      auto axis = normalizeAxis(a, rank);
      if (!axis)
        return std::nullopt;
      reduced[*axis] = true;
    }
    bool keepDims = intAttr(op, "keepdims", 1) != 0;
    SmallVector<int64_t> outShape, keptShape;
    int64_t extent = 1;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = data->shape()[d];
      if (reduced[d])
        extent *= dim;
      keptShape.push_back(reduced[d] ? 1 : dim);
      if (!reduced[d] || keepDims)
        outShape.push_back(reduced[d] ? 1 : dim);
    }
    if (ArrayRef<int64_t>(outShape) != type.getShape())
      return std::nullopt;
    bool isMin = isa<onnx::ReduceMinOp>(op), isMax = isa<onnx::ReduceMaxOp>(op);
    if ((isMin || isMax) && extent == 0)
      return std::nullopt; // no identity to start from
    bool isProd = isa<onnx::ReduceProdOp>(op);
    unsigned w = elem.getIntOrFloatBitWidth();
    bool isUnsigned = elem.isUnsignedInteger();
    auto asDouble = [&](uint64_t x) {
      if (w == 64) {
        double d;
        std::memcpy(&d, &x, sizeof d);
        return d;
      }
      float f;
      uint32_t lo = static_cast<uint32_t>(x);
      std::memcpy(&f, &lo, sizeof f);
      return static_cast<double>(f);
    };
    auto less = [&](uint64_t x, uint64_t y) {
      if (isFloat)
        return asDouble(x) < asDouble(y);
      APInt a(w, x), b(w, y);
      return isUnsigned ? a.ult(b) : a.slt(b);
    };
    // NaN: not folded (which one the run would keep is the lowering's).
    if (isFloat)
      for (int64_t i = 0; i < data->size(); ++i)
        if (std::isnan(asDouble(data->bits(i))))
          return std::nullopt;
    int64_t n = type.getNumElements();
    SmallVector<uint64_t> acc(n, isProd ? 1 : 0);
    SmallVector<bool> started(n, false);
    SmallVector<int64_t> keptStrides = stridesOf(keptShape);
    forEachIndex(data->shape(), [&](ArrayRef<int64_t> idx, int64_t i) {
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d)
        at += (reduced[d] ? 0 : idx[d]) * keptStrides[d];
      uint64_t v = data->bits(i);
      uint64_t &a = acc[at];
      if (isMin || isMax) {
        if (!started[at] || (isMin ? less(v, a) : less(a, v)))
          a = v;
        started[at] = true;
      } else {
        a = isProd ? a * v : a + v; // modulo 2^64, then cut to the width
      }
      return true;
    });
    Tensor out = Tensor::zeros(type);
    for (int64_t i = 0; i < n; ++i)
      out.setBits(i, acc[i]);
    return out;
  }

  static std::optional<Tensor> foldReshapeLikeIdentity(Tensor data, RankedTensorType type) {
    if (data.type != type)
      return std::nullopt;
    return data;
  }

  /// An elementwise op: its scalar body from the lowering, built once and
  /// evaluated per output element (multidirectional broadcasting) by the
  /// folders of the body's ops.
  /// DequantizeLinear of integer constants to float32: (x - zero_point) *
  /// scale in float32, as the lowering's body computes it (the same two
  /// roundings), the scale and zero point per tensor, per axis or blocked.
  /// Quantized weights then reach the float kernels' packing like
  /// initializers, instead of being dequantized on every run.
  std::optional<Tensor> foldDequantize() {
    auto dq = cast<onnx::DequantizeLinearOp>(op);
    RankedTensorType type = resultType();
    auto xType = dyn_cast<RankedTensorType>(dq.getX().getType());
    if (!type || !type.getElementType().isF32() || !xType || xType.getShape() != type.getShape())
      return std::nullopt;
    auto x = readQuantized(dq.getX());
    auto scaleTensor = readConstant(dq.getXScale());
    if (!x || !scaleTensor || !isa<FloatType>(scaleTensor->type.getElementType()))
      return std::nullopt;
    auto scaleSemantics = cast<FloatType>(scaleTensor->type.getElementType());
    std::vector<float> scale(scaleTensor->size());
    for (int64_t i = 0; i < scaleTensor->size(); ++i) {
      APFloat f(scaleSemantics.getFloatSemantics(),
                APInt(scaleSemantics.getWidth(), scaleTensor->bits(i)));
      bool lost = false;
      f.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      scale[i] = f.convertToFloat();
    }
    std::optional<SmallVector<int64_t>> zp;
    if (!isAbsent(dq.getXZeroPoint())) {
      zp = readQuantized(dq.getXZeroPoint());
      if (!zp || zp->size() != scale.size())
        return std::nullopt;
    }
    int64_t rank = xType.getRank();
    int64_t block = op->getAttrOfType<IntegerAttr>("onnxcc.block_size")
                        ? op->getAttrOfType<IntegerAttr>("onnxcc.block_size").getInt()
                        : 0;
    ArrayRef<int64_t> shape = xType.getShape();
    auto paramType = cast<RankedTensorType>(dq.getXScale().getType());
    // Which parameter element each element of x reads.
    enum { PerTensor, PerAxis, Blocked } kind = PerTensor;
    int64_t axis = dq.getAxis();
    if (scale.size() != 1) {
      if (axis < 0)
        axis += rank;
      if (axis < 0 || axis >= rank)
        return std::nullopt;
      if (block > 0) {
        if (paramType.getRank() != rank)
          return std::nullopt;
        for (int64_t d = 0; d < rank; ++d)
          if (paramType.getDimSize(d) != (d == axis ? (shape[d] + block - 1) / block : shape[d]))
            return std::nullopt;
        kind = Blocked;
      } else {
        if (paramType.getRank() != 1 || paramType.getDimSize(0) != shape[axis])
          return std::nullopt;
        kind = PerAxis;
      }
    }
    SmallVector<int64_t> paramStrides =
        kind == Blocked ? stridesOf(paramType.getShape()) : SmallVector<int64_t>();
    Tensor out = Tensor::zeros(type);
    forEachIndex(shape, [&](ArrayRef<int64_t> idx, int64_t i) {
      int64_t p = 0;
      if (kind == PerAxis) {
        p = idx[axis];
      } else if (kind == Blocked) {
        for (int64_t d = 0; d < rank; ++d)
          p += (d == axis ? idx[d] / block : idx[d]) * paramStrides[d];
      }
      float v = static_cast<float>((*x)[i]);
      if (zp)
        v = v - static_cast<float>((*zp)[p]);
      v = v * scale[p];
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      out.setBits(i, bits);
      return true;
    });
    return out;
  }

  std::optional<Tensor> foldElementwise() {
    RankedTensorType type = resultType();
    if (!type || op->getNumResults() != 1 || op->getNumOperands() == 0)
      return std::nullopt;
    // float8/float4 values stay for run time: APFloat has no NaN for float4
    // (ONNX's cast gives 0x8), and its conversions are not onnxcc_rt's.
    if (lowering::isSmallFloat(type.getElementType()) ||
        llvm::any_of(op->getOperands(), [](Value v) {
          return lowering::isSmallFloat(lowering::onnxElementType(v));
        }))
      return std::nullopt;
    unsigned numData = lowering::numElementwiseDataOperands(op);
    SmallVector<Tensor> inputs;
    SmallVector<Type> argTypes;
    for (Value v : op->getOperands().take_front(numData)) {
      if (isAbsent(v))
        continue;
      auto t = readConstant(v);
      if (!t || !broadcastsTo(t->shape(), type.getShape()))
        return std::nullopt;
      argTypes.push_back(scalarType(t->type.getElementType()));
      inputs.push_back(std::move(*t));
    }
    if (inputs.empty())
      return std::nullopt;
    Type elem = lowering::onnxElementType(op->getOperand(0));
    ScalarProgram prog(op->getContext(), argTypes);
    OpBuilder b = prog.builder();
    Value r = lowering::buildElementwiseScalar(b, op->getLoc(), op, prog.args(), elem);
    Type resultScalar = scalarType(type.getElementType());
    if (!r || r.getType() != resultScalar)
      return std::nullopt;
    SmallVector<SmallVector<int64_t>> strides;
    for (const Tensor &t : inputs)
      strides.push_back(stridesOf(t.shape()));
    if (prog.isFloatArithmetic() && isa<FloatType>(resultScalar)) {
      // Float arithmetic, any size: APFloat values, no attributes.
      const llvm::fltSemantics &sem = cast<FloatType>(resultScalar).getFloatSemantics();
      Tensor out = Tensor::zeros(type);
      SmallVector<APFloat> args;
      for (Type t : argTypes)
        args.push_back(APFloat::getZero(cast<FloatType>(t).getFloatSemantics()));
      bool ok = true;
      forEachIndex(type.getShape(), [&](ArrayRef<int64_t> idx, int64_t i) {
        for (size_t k = 0; k < inputs.size(); ++k) {
          const llvm::fltSemantics &in = cast<FloatType>(argTypes[k]).getFloatSemantics();
          uint64_t bits = inputs[k].bits(broadcastIndex(inputs[k].shape(), strides[k], idx));
          args[k] = APFloat(in, APInt(APFloat::getSizeInBits(in), bits));
        }
        std::optional<APFloat> v = prog.evaluateFloats(r, args);
        if (!v || &v->getSemantics() != &sem)
          return ok = false;
        out.setBits(i, v->bitcastToAPInt().getZExtValue());
        return true;
      });
      if (!ok)
        return std::nullopt;
      return out;
    }
    if (type.getNumElements() > kMaxEvaluatedElements)
      return std::nullopt;

    // Each input element becomes an attribute once.
    SmallVector<SmallVector<Attribute>> attrs;
    for (auto [t, argType] : llvm::zip_equal(inputs, argTypes)) {
      SmallVector<Attribute> &a = attrs.emplace_back();
      for (int64_t i = 0; i < t.size(); ++i)
        a.push_back(scalarAttr(argType, t.bits(i)));
    }
    Tensor out = Tensor::zeros(type);
    SmallVector<Attribute> args(inputs.size());
    bool ok = true;
    forEachIndex(type.getShape(), [&](ArrayRef<int64_t> idx, int64_t i) {
      for (size_t k = 0; k < inputs.size(); ++k)
        args[k] = attrs[k][broadcastIndex(inputs[k].shape(), strides[k], idx)];
      auto bits = scalarBits(prog.evaluate(r, args), resultScalar);
      if (!bits)
        return ok = false;
      out.setBits(i, *bits);
      return true;
    });
    if (!ok)
      return std::nullopt;
    return out;
  }

  Operation *op;
};

/// A resource blob name for result `i` of `op`.
std::string blobNameFor(Operation *op, unsigned i) {
  std::string suffix = "_folded";
  if (op->getNumResults() > 1)
    suffix += "_" + std::to_string(i);
  return lowering::blobName(op, suffix);
}

int64_t bytesOf(RankedTensorType t) {
  return t.getNumElements() * *elementBytes(t.getElementType());
}

enum class Outcome { NotConstant, Skipped, Folded };

/// Whether `op` takes part: an onnx op (not a constant) with static tensor
/// results the pass can write.
bool isCandidate(Operation *op) {
  if (!isa_and_nonnull<onnx::OnnxDialect>(op->getDialect()) ||
      isa<onnx::ConstantOp, onnx::NoValueOp>(op) || op->getNumResults() == 0 ||
      op->getNumRegions() != 0)
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type t) { return foldableType(t) != nullptr; });
}

/// Whether the operands `op` reads are there: constants (or absent), except
/// that Shape and Size read only the static type, and CastLike's second
/// operand only gives a type.
bool operandsReady(Operation *op) {
  if (isa<onnx::ShapeOp, onnx::SizeOp>(op))
    return true;
  unsigned n = op->getNumOperands();
  if (lowering::isElementwiseOp(op))
    n = lowering::numElementwiseDataOperands(op);
  for (Value v : op->getOperands().take_front(n))
    if (!isAbsent(v) && !v.getDefiningOp<onnx::ConstantOp>())
      return false;
  return true;
}

/// Whether operand `i` of `op` is a weight of a heavy op that the lowering
/// packs at compile time when it is constant (so that folding it costs no
/// more than the packed copy): Conv/ConvTranspose W and B, Gemm B and C,
/// MatMul B, RNN/GRU/LSTM W, R and B.
bool isWeightOperand(Operation *op, unsigned i) {
  if (isa<onnx::ConvOp, onnx::FusedConvOp, onnx::ConvTransposeOp>(op))
    return i == 1 || i == 2;
  if (isa<onnx::GemmOp, onnx::FusedGemmOp>(op))
    return i == 1 || i == 2;
  if (isa<onnx::MatMulOp, onnx::FusedMatMulOp>(op))
    return i == 1;
  if (isa<onnx::RNNOp, onnx::GRUOp, onnx::LSTMOp>(op))
    return i >= 1 && i <= 3;
  return false;
}

/// The candidate ops whose every result is read only as a weight, directly
/// or through other such ops: they fold whatever their size (ConstantOfShape
/// weights, a Cast of float16 weights, a scaled weight), as an initializer
/// would have been.
llvm::DenseSet<Operation *> weightProducers(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) { ops.push_back(op); });
  llvm::DenseSet<Operation *> producers;
  // Users come after their operands' producers in a block: walk backwards.
  for (Operation *op : llvm::reverse(ops)) {
    if (!isCandidate(op))
      continue;
    bool onlyWeights = true;
    for (Value r : op->getResults())
      for (OpOperand &use : r.getUses()) {
        Operation *user = use.getOwner();
        if (!isWeightOperand(user, use.getOperandNumber()) && !producers.contains(user))
          onlyWeights = false;
      }
    if (onlyWeights && !op->use_empty())
      producers.insert(op);
  }
  return producers;
}

Outcome tryFold(Operation *op, int64_t sizeLimit, bool weight) {
  if (!operandsReady(op))
    return Outcome::NotConstant;
  // 4-bit weights of a decode-sized MatMul stay 4-bit: the weight-only
  // kernel reads an eighth of the float bytes.
  if (isa<onnx::DequantizeLinearOp>(op) && lowering::feedsQ4Kernel(op))
    return Outcome::Skipped;
  // Quantized weights and biases of a QDQ convolution stay integer: it
  // becomes QLinearConv (onnx-recognize).
  if (isa<onnx::DequantizeLinearOp>(op) && onnx::feedsQdqConv(op))
    return Outcome::Skipped;
  // The constants that die with the fold: only this op reads them.
  int64_t resultBytes = 0, dyingBytes = 0;
  for (Type t : op->getResultTypes())
    resultBytes += bytesOf(cast<RankedTensorType>(t));
  llvm::SmallDenseSet<Operation *, 4> dying;
  for (Value v : op->getOperands()) {
    auto cst = v.getDefiningOp<onnx::ConstantOp>();
    if (!cst || !llvm::all_of(cst->getUsers(), [&](Operation *u) { return u == op; }))
      continue;
    if (dying.insert(cst).second)
      if (auto t = foldableType(v.getType()))
        dyingBytes += bytesOf(t);
  }
  if (resultBytes > sizeLimit && resultBytes > dyingBytes && !weight)
    return Outcome::NotConstant; // may change when other readers go
  Folder::Results results = Folder(op).run();
  if (!results || results->size() != op->getNumResults())
    return Outcome::Skipped;

  OpBuilder b(op);
  for (auto [i, t] : llvm::enumerate(*results)) {
    Value old = op->getResult(i);
    if (t.type != old.getType())
      return Outcome::Skipped;
  }
  llvm::SetVector<Operation *> defs;
  for (Value v : op->getOperands())
    if (Operation *def = v.getDefiningOp())
      defs.insert(def);
  for (auto [i, t] : llvm::enumerate(*results)) {
    ElementsAttr attr = makeAttr(t, blobNameFor(op, i));
    auto cst = onnx::ConstantOp::create(b, op->getLoc(), TypeRange{t.type}, ValueRange{},
                                        {b.getNamedAttr("value", attr)});
    op->getResult(i).replaceAllUsesWith(cst.getResult());
  }
  op->erase();
  for (Operation *def : defs)
    if (isa<onnx::ConstantOp, onnx::NoValueOp>(def) && def->use_empty())
      def->erase();
  return Outcome::Folded;
}

/// An If whose condition folded to a constant (AffineGrid's function body
/// branches on Size(size) == 4, a shape known at compile time), or that
/// shape inference found static dims decide (onnxcc.known_branch): the branch
/// it takes, moved in its place. Not when that branch is one shape
/// inference found cannot run (onnxcc.invalid_branch: run() must return its
/// status). A result the function returns gives the function the type the
/// branch yields (shape inference refines it again after this pass).
bool inlineConstantIf(onnx::IfOp op) {
  auto c = op.getCond().getDefiningOp<onnx::ConstantOp>();
  auto value = c ? dyn_cast<DenseIntElementsAttr>(c.getValueAttr()) : nullptr;
  // Or a condition that static dims decide (onnx.If's shape function).
  auto known = op->getAttrOfType<IntegerAttr>("onnxcc.known_branch");
  if ((!value || value.getNumElements() != 1) && !known)
    return false;
  unsigned taken = value && value.getNumElements() == 1
                       ? (value.getValues<APInt>()[0].isZero() ? 1 : 0)
                       : static_cast<unsigned>(known.getInt());
  if (auto invalid = op->getAttrOfType<IntegerAttr>("onnxcc.invalid_branch");
      invalid && invalid.getInt() == taken)
    return false;
  Region &region = taken == 0 ? op.getThenBranch() : op.getElseBranch();
  if (!region.hasOneBlock() || region.front().getNumArguments() != 0)
    return false;
  Block &block = region.front();
  Operation *yield = block.getTerminator();
  if (yield->getNumOperands() != op->getNumResults())
    return false;
  SmallVector<Value> values(yield->getOperands());
  Operation *parent = op->getBlock()->getParentOp();
  op->getBlock()->getOperations().splice(op->getIterator(), block.getOperations(),
                                         block.begin(), yield->getIterator());
  bool returned = false;
  for (auto [result, v] : llvm::zip_equal(op->getResults(), values)) {
    returned |= llvm::any_of(result.getUsers(), [](Operation *u) {
      return isa<func::ReturnOp>(u);
    });
    result.replaceAllUsesWith(v);
  }
  op->erase();
  if (auto func = dyn_cast<func::FuncOp>(parent); func && returned) {
    Operation *ret = func.getBody().back().getTerminator();
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   ret->getOperandTypes()));
  }
  return true;
}

struct OnnxFoldConstantsPass : public impl::OnnxFoldConstantsPassBase<OnnxFoldConstantsPass> {
  using OnnxFoldConstantsPassBase::OnnxFoldConstantsPassBase;

  void runOnOperation() override {
    // Ops whose operands were constant but did not fold: they never will.
    llvm::DenseSet<Operation *> skipped;
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<Operation *> ops;
      getOperation().walk([&](Operation *op) {
        if (isCandidate(op) && !skipped.contains(op))
          ops.push_back(op);
      });
      llvm::DenseSet<Operation *> weights = weightProducers(getOperation());
      for (Operation *op : ops) {
        Outcome o = tryFold(op, sizeLimit, weights.contains(op));
        if (o == Outcome::Folded)
          changed = true;
        else if (o == Outcome::Skipped)
          skipped.insert(op);
      }
      // Every If, inner ones first (the walk is post-order): inlining one
      // moves its branch into the enclosing block and erases only itself
      // and its other branch, whose Ifs were all visited before it. Ifs
      // inside a branch chosen at run time (a model's 8 kHz and 16 kHz
      // paths) fold too.
      SmallVector<onnx::IfOp> ifs;
      getOperation().walk([&](onnx::IfOp op) { ifs.push_back(op); });
      for (onnx::IfOp op : ifs)
        changed |= inlineConstantIf(op);
    }
  }
};
} // namespace
} // namespace onnxcc
