//===- StackSequences.cpp - Sequences as stacked tensors -----------------===//
//
// A sequence of L tensors that all have one static shape S and one element
// type is the tensor [L, S...] (its stack). This pass follows sequence values
// through the sequence ops in program order, keeps the stack of each one it
// can express, and rewrites the sequence ops into onnx tensor ops on stacks:
//
//   SequenceConstruct     Concat of the Unsqueeze'd elements
//   SequenceInsert        Concat with the new element, then a Gather along
//                         axis 0 that moves it into place
//   SequenceErase         Gather along axis 0 of the rows that stay
//   SequenceAt            Gather along axis 0 with a scalar index
//   SequenceLength        an int64 scalar constant
//   ConcatFromSequence    Transpose (+ Reshape when no new axis)
//   SplitToSequence       Transpose (+ Reshape) of the input
//
// Runtime positions select with index vectors computed by onnx ops (Less,
// Equal, Where, Add); constant positions give constant index vectors.
//
// A sequence whose length or element shapes the data decides (a split with
// run-time sizes, an insert at a run-time position among elements of
// different shapes, an element whose dims the data decides) is, when
// compiling (onnxcc.runtime_sequences on the function), a ragged stack:
// `stack` [capacity, D...] holds element k in row k, padded with zeros to
// D, the largest dims any element can have; `dims` [capacity, rank] its
// dims and `count` (an int64 scalar) how many rows hold elements. The
// capacity is fixed at compile time (an insert adds a row), and positions
// given at run time are checked by onnx.CheckedIndex (status 16):
//
//   SequenceInsert        Gather of the rows and the padded new element
//   SequenceErase         Gather of the rows that stay
//   SequenceAt            Gather of the row, Slice of it to its dims
//   SequenceLength        count
//   ConcatFromSequence    Gather of each output position from the element
//                         that covers it, sliced to the elements' total
//   SplitToSequence       Gather of the input at each part's positions
//                         (clamped), its dims from the sizes
//   RaggedSequence        its rows and dims (a Loop's appends, see
//                         LoopSequences.cpp), padded to the trip bound
//   If                    both branches' sequences as ragged stacks of one
//                         capacity, yielded as three more results
//
// A ragged output sequence is three ports that run() packs densely.
// Anything else is left alone, with the ops that use it, for the lowering
// to report; only its length is kept where SequenceLength is all that needs
// it.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>
#include <optional>

using namespace mlir;

namespace onnxcc::onnx {

#define GEN_PASS_DEF_ONNXSTACKSEQUENCESPASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {

/// ONNX TensorProto::INT64, the `to` of a Cast to int64.
constexpr int64_t kOnnxInt64 = 7;

/// What the pass knows about one sequence value.
struct SeqInfo {
  enum class Kind {
    Stack,  // `stack` is the tensor [length, S...]
    Empty,  // no elements
    Length, // only the length is known
    List,   // `elements`, of shapes that differ (ragged)
    Ragged, // `stack` [capacity, D...] padded, `dims`, `count` (see above)
  };
  Kind kind = Kind::Length;
  int64_t length = 0;
  Value stack;
  SmallVector<Value> elements;
  // Ragged: the dims of each element [capacity, rank] (int64), the element
  // count (int64 scalar), and each dim all elements share (-1 where they
  // differ).
  Value dims, count;
  SmallVector<int64_t> fixedDims;
  // Ragged: elements may have a smaller rank than the stack's rows (their
  // dims end in -1 for each dim they lack).
  bool mixedRank = false;

  static SeqInfo ragged(Value stack, Value dims, Value count, ArrayRef<int64_t> fixed,
                        bool mixedRank = false) {
    SeqInfo info = ofStack(stack);
    info.kind = Kind::Ragged;
    info.dims = dims;
    info.count = count;
    info.fixedDims.assign(fixed.begin(), fixed.end());
    info.mixedRank = mixedRank;
    return info;
  }
  bool isRagged() const { return kind == Kind::Ragged; }

  static SeqInfo ofStack(Value stack) {
    auto type = cast<RankedTensorType>(stack.getType());
    return SeqInfo{Kind::Stack, type.getDimSize(0), stack};
  }
  static SeqInfo empty() { return SeqInfo{Kind::Empty, 0, {}}; }
  static SeqInfo lengthOnly(int64_t length) { return SeqInfo{Kind::Length, length, {}}; }
  static SeqInfo ofList(ArrayRef<Value> elements) {
    SeqInfo info{Kind::List, static_cast<int64_t>(elements.size()), {}};
    info.elements.assign(elements.begin(), elements.end());
    return info;
  }

  bool isStack() const { return kind == Kind::Stack; }
  RankedTensorType stackType() const { return cast<RankedTensorType>(stack.getType()); }
  /// The shape of one element.
  ArrayRef<int64_t> elementShape() const { return stackType().getShape().drop_front(); }
  Type elementType() const { return stackType().getElementType(); }
};

/// The static ranked tensor type of `v`, or null.
RankedTensorType staticTensorType(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

/// `axis` in [-rank, rank - 1] made non-negative, or nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Emits the onnx tensor ops that stand for the sequence ops.
class StackBuilder {
public:
  explicit StackBuilder(Operation *at) : b(at), loc(at->getLoc()) {}

  /// Every op this builder created, in creation order.
  SmallVector<Operation *> created;

  OpBuilder &builder() { return b; }

  Type i64() { return b.getI64Type(); }

  template <typename OpTy>
  Value make(Type type, ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    auto op = OpTy::create(b, loc, TypeRange{type}, operands, attrs);
    created.push_back(op);
    return op->getResult(0);
  }

  NamedAttribute i64Attr(StringRef name, int64_t value) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(value));
  }

  /// An int64 constant; one op per value in the ops of one sequence op.
  Value constInts(ArrayRef<int64_t> values, ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, i64());
    auto attr = DenseIntElementsAttr::get(type, values);
    Value &c = constants[attr];
    if (!c)
      c = make<ConstantOp>(type, {}, {b.getNamedAttr("value", attr)});
    return c;
  }
  Value constVector(ArrayRef<int64_t> values) {
    return constInts(values, {static_cast<int64_t>(values.size())});
  }
  Value constScalar(int64_t value) { return constInts({value}, {}); }
  /// [start, start + 1, ..., start + n - 1].
  Value iota(int64_t n, int64_t start = 0) {
    SmallVector<int64_t> values(n);
    std::iota(values.begin(), values.end(), start);
    return constVector(values);
  }

  /// `x` with a new dim of size 1 in front.
  Value unsqueeze0(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    return make<UnsqueezeOp>(RankedTensorType::get(shape, type.getElementType()),
                             {x, constVector({0})});
  }

  /// `parts` (stacks of one element shape) one after the other along axis 0.
  Value concat0(ArrayRef<Value> parts) {
    if (parts.size() == 1)
      return parts.front();
    auto first = cast<RankedTensorType>(parts.front().getType());
    SmallVector<int64_t> shape(first.getShape());
    shape[0] = 0;
    for (Value p : parts)
      shape[0] += cast<RankedTensorType>(p.getType()).getDimSize(0);
    return make<ConcatOp>(RankedTensorType::get(shape, first.getElementType()), parts,
                          {i64Attr("axis", 0)});
  }

  /// data[indices] along axis 0; `indices` is a scalar or a vector.
  Value gather0(Value data, Value indices) {
    auto type = cast<RankedTensorType>(data.getType());
    auto indexType = cast<RankedTensorType>(indices.getType());
    SmallVector<int64_t> shape(indexType.getShape());
    llvm::append_range(shape, type.getShape().drop_front());
    return make<GatherOp>(RankedTensorType::get(shape, type.getElementType()),
                          {data, indices}, {i64Attr("axis", 0)});
  }

  Value transpose(Value x, ArrayRef<int64_t> perm) {
    auto type = cast<RankedTensorType>(x.getType());
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return x;
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    return make<TransposeOp>(RankedTensorType::get(shape, type.getElementType()), {x},
                             {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))});
  }

  Value reshape(Value x, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getShape() == shape)
      return x;
    return make<ReshapeOp>(RankedTensorType::get(shape, type.getElementType()),
                           {x, constVector(shape)}, {i64Attr("allowzero", 0)});
  }

  /// An elementwise binary op on int64 operands; `resultElem` is i64 or i1.
  template <typename OpTy>
  Value binary(Value lhs, Value rhs, Type resultElem) {
    return make<OpTy>(RankedTensorType::get(broadcast(lhs, rhs), resultElem), {lhs, rhs});
  }
  /// cond ? x : y elementwise, on int64 `x` and `y`.
  Value where(Value cond, Value x, Value y) {
    SmallVector<int64_t> shape = broadcastShapes(broadcast(cond, x), shapeOf(y));
    return make<WhereOp>(RankedTensorType::get(shape, i64()), {cond, x, y});
  }

  /// The runtime position `pos` (int32 or int64, one element) as an int64
  /// scalar; null when it has more than one element.
  Value scalarPosition(Value pos) {
    auto type = staticTensorType(pos);
    if (!type || type.getNumElements() != 1 || type.getRank() > 1)
      return {};
    if (!type.getElementType().isInteger(64))
      pos = make<CastOp>(RankedTensorType::get(type.getShape(), i64()), {pos},
                         {i64Attr("to", kOnnxInt64)});
    if (type.getRank() == 1)
      pos = make<SqueezeOp>(RankedTensorType::get({}, i64()), {pos, constVector({0})});
    return pos;
  }

  /// `pos` + `n` where `pos` is negative: the ONNX rule for positions that
  /// count from the back of a sequence of length `n`.
  Value normalizePosition(Value pos, int64_t n) {
    Type i1 = b.getI1Type();
    Value negative = binary<LessOp>(pos, constScalar(0), i1);
    Value shifted = binary<AddOp>(pos, constScalar(n), i64());
    return where(negative, shifted, pos);
  }

  /// `index` checked against [0, limit) (or [0, limit] with `end`) at run
  /// time, counted from the back where negative when `negative`.
  /// With `bound`: `index` is a count checked to be at most `limit`, a
  /// capacity (status 10).
  Value checkedIndex(Value index, Value limit, bool end, bool negative = true,
                     bool bound = false) {
    SmallVector<NamedAttribute> attrs{b.getNamedAttr("end", b.getBoolAttr(end)),
                                      b.getNamedAttr("negative", b.getBoolAttr(negative))};
    if (bound)
      attrs.push_back(b.getNamedAttr("bound", b.getBoolAttr(true)));
    return make<CheckedIndexOp>(RankedTensorType::get({}, i64()), {index, limit}, attrs);
  }

  /// data[indices] along `axis`.
  Value gather(Value data, Value indices, int64_t axis) {
    auto type = cast<RankedTensorType>(data.getType());
    auto indexType = cast<RankedTensorType>(indices.getType());
    SmallVector<int64_t> shape(type.getShape().take_front(axis));
    llvm::append_range(shape, indexType.getShape());
    llvm::append_range(shape, type.getShape().drop_front(axis + 1));
    return make<GatherOp>(RankedTensorType::get(shape, type.getElementType()), {data, indices},
                          {i64Attr("axis", axis)});
  }

  /// The dims of `x` as an int64 vector: a constant when they are static.
  Value shapeVector(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.hasStaticShape())
      return constVector(type.getShape());
    return make<ShapeOp>(RankedTensorType::get({type.getRank()}, i64()), {x});
  }

  /// `x` padded with zeros at the end of each dim to `to` (its dims are at
  /// most `to`, checked by Pad's lowering where they are not static).
  Value padTo(Value x, ArrayRef<int64_t> to) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getShape() == to)
      return x;
    int64_t rank = type.getRank();
    Value pads;
    if (type.hasStaticShape()) {
      SmallVector<int64_t> values(rank, 0);
      for (int64_t d = 0; d < rank; ++d)
        values.push_back(to[d] - type.getDimSize(d));
      pads = constVector(values);
    } else {
      Value ends = binary<SubOp>(constVector(to), shapeVector(x), i64());
      pads = make<ConcatOp>(RankedTensorType::get({2 * rank}, i64()),
                            {constVector(SmallVector<int64_t>(rank, 0)), ends},
                            {i64Attr("axis", 0)});
    }
    return make<PadOp>(RankedTensorType::get(to, type.getElementType()), {x, pads, none()},
                       {b.getNamedAttr("mode", b.getStringAttr("constant"))});
  }

  /// `x` with trailing dims of size 1 up to `rank`: an element of a smaller
  /// rank in a row of a ragged stack of mixed ranks.
  Value toRank(Value x, int64_t rank) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() >= rank)
      return x;
    SmallVector<int64_t> shape(type.getShape()), axes;
    for (int64_t d = type.getRank(); d < rank; ++d) {
      shape.push_back(1);
      axes.push_back(d);
    }
    return make<UnsqueezeOp>(RankedTensorType::get(shape, type.getElementType()),
                             {x, constVector(axes)});
  }

  /// The dims of `x` as a row of a ragged stack's dims of `rank` entries:
  /// -1 for each dim it lacks.
  Value dimsRow(Value x, int64_t rank) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() >= rank)
      return shapeVector(x);
    SmallVector<int64_t> missing(rank - type.getRank(), -1);
    if (type.getRank() == 0)
      return constVector(missing);
    return make<ConcatOp>(RankedTensorType::get({rank}, i64()),
                          {shapeVector(x), constVector(missing)}, {i64Attr("axis", 0)});
  }

  /// The first `n` rows of `x` (along axis 0).
  Value takeRows(Value x, int64_t n) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getDimSize(0) == n)
      return x;
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = n;
    return make<SliceOp>(RankedTensorType::get(shape, type.getElementType()),
                         {x, constVector({0}), constVector({n}), constVector({0}), none()});
  }

  /// An absent optional operand.
  Value none() {
    Value v = NoValueOp::create(b, loc, b.getNoneType());
    created.push_back(v.getDefiningOp());
    return v;
  }

  /// Zeros of static `type`, filled at run time (ConstantOfShape).
  Value zeros(RankedTensorType type) {
    Type elem = type.getElementType();
    auto one = RankedTensorType::get({1}, elem);
    Attribute zero = isa<FloatType>(elem) ? Attribute(b.getFloatAttr(elem, 0.0))
                                          : Attribute(b.getIntegerAttr(elem, 0));
    return make<ConstantOfShapeOp>(
        type, {constVector(type.getShape())},
        {b.getNamedAttr("value", DenseElementsAttr::get(one, zero))});
  }

private:
  static SmallVector<int64_t> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
    SmallVector<int64_t> out(std::max(a.size(), c.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
      int64_t y = i < out.size() - c.size() ? 1 : c[i - (out.size() - c.size())];
      out[i] = x == 1 ? y : x;
    }
    return out;
  }
  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }
  static SmallVector<int64_t> broadcast(Value a, Value c) {
    return broadcastShapes(shapeOf(a), shapeOf(c));
  }

  OpBuilder b;
  Location loc;
  llvm::DenseMap<Attribute, Value> constants;
};

} // namespace

std::pair<Value, Value> paddedWithDims(Operation *at, Value x, ArrayRef<int64_t> to) {
  StackBuilder b(at);
  return {b.padTo(x, to), b.shapeVector(x)};
}

std::optional<SmallVector<int64_t>> dimBounds(Value v, const ShapeMap *shapes) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return std::nullopt;
  if (type.hasStaticShape())
    return SmallVector<int64_t>(type.getShape());
  if (!shapes)
    return std::nullopt;
  auto shape = shapes->lookup(v);
  if (!shape || static_cast<int64_t>(shape->size()) != type.getRank())
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const Dim &d : *shape) {
    if (d.isStatic()) {
      out.push_back(d.size);
      continue;
    }
    if (!d.isSymbolic())
      return std::nullopt;
    std::optional<SymExpr> bound = shapes->upperBound(d.expr);
    if (!bound || !bound->isConstant() || bound->constantValue() < 0)
      return std::nullopt;
    out.push_back(bound->constantValue());
  }
  return out;
}

namespace {

class SequenceStacker {
public:
  explicit SequenceStacker(func::FuncOp func) : func(func) {}

  /// `expand`: make the output sequences ports (an error when one is not
  /// known); else only those that are known.
  LogicalResult run(bool expand = true) {
    if (func->hasAttr("onnxcc.runtime_sequences")) {
      // The bounds of dims the data decides, for ragged elements.
      ScopedDiagnosticHandler quiet(func.getContext(), [](Diagnostic &) { return success(); });
      shapes.emplace();
      (void)inferShapesInFunction(func, &*shapes);
    }
    func.walk([&](Operation *op) { visit(op); });
    if (refused)
      return failure();
    if (failed(expandResults(expand)))
      return failure();
    // Replaced tensor results first, then sequence ops nothing uses any more,
    // last to first so that chains go away.
    for (auto [op, value] : replacements)
      op->getResult(0).replaceAllUsesWith(value);
    for (auto [result, value] : rowsReplacements)
      result.replaceAllUsesWith(value);
    llvm::DenseSet<Operation *> erased;
    auto eraseDead = [&] {
      for (Operation *op : llvm::reverse(visited))
        if (!erased.contains(op) && op->use_empty()) {
          erased.insert(op);
          op->erase();
        }
      // Ops built for a sequence whose users stayed are dead.
      for (Operation *op : llvm::reverse(created))
        if (!erased.contains(op) && op->use_empty()) {
          erased.insert(op);
          op->erase();
        }
    };
    eraseDead();
    // Ifs that yield ragged stacks drop their sequence results once nothing
    // reads them; what their branches built for them is then dead too.
    if (!raggedIfs.empty()) {
      for (IfOp op : raggedIfs) {
        SmallVector<unsigned> keep;
        for (OpResult r : op->getResults())
          if (!isa<SeqType>(r.getType()) || !r.use_empty())
            keep.push_back(r.getResultNumber());
        if (keep.size() != op->getNumResults())
          rebuildIf(op, keep, {}, {}, {});
      }
      eraseDead();
    }
    // A replaced result may have a more precise type than the one it had;
    // the function's result types follow what its return now yields.
    Operation *terminator = func.getBody().back().getTerminator();
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   terminator->getOperandTypes()));
    return success();
  }

private:
  /// The sequence outputs of a function with onnxcc.io_outputs (see
  /// expandBoundaryValues) as tensor ports: a stack is one port, a list one
  /// per element, an empty sequence none; the count goes to its entry.
  LogicalResult expandResults(bool mustExpand) {
    auto io = func->getAttrOfType<ArrayAttr>("onnxcc.io_outputs");
    Operation *ret = func.getBody().back().getTerminator();
    // The results still to expand: those of role "sequence".
    auto pending = [&](unsigned k) {
      auto role = func.getResultAttrOfType<StringAttr>(k, "onnxcc.role");
      return role && role.getValue() == "sequence";
    };
    if (!io || llvm::none_of(llvm::seq(ret->getNumOperands()), pending))
      return success();
    MLIRContext *ctx = func.getContext();
    Builder b(ctx);
    SmallVector<Attribute> entries(io.begin(), io.end());
    SmallVector<Value> results;
    SmallVector<DictionaryAttr> attrs;
    for (auto [k, v] : llvm::enumerate(ret->getOperands())) {
      DictionaryAttr old = func.getResultAttrDict(k);
      if (!pending(k)) {
        results.push_back(v);
        attrs.push_back(old ? old : DictionaryAttr::get(ctx));
        continue;
      }
      auto name = func.getResultAttrOfType<StringAttr>(k, "onnx.name");
      auto index = func.getResultAttrOfType<IntegerAttr>(k, "onnxcc.io");
      const SeqInfo *info = lookup(v);
      auto fail = [&](const Twine &why) {
        return emitError(v.getLoc()) << "output '" << (name ? name.getValue() : "?")
                                     << "' is a sequence " << why;
      };
      if (!index || index.getInt() >= static_cast<int64_t>(entries.size()))
        return fail("without its entry in onnxcc.io_outputs");
      if (!mustExpand && (!info || info->kind == SeqInfo::Kind::Length))
        return success();
      if (!info || info->kind == SeqInfo::Kind::Length)
        return fail("whose elements compile cannot follow yet (its length or its elements' "
                    "shapes depend on the data)");
      auto port = [&](Value element, StringRef role, int64_t e) {
        auto type = dyn_cast<RankedTensorType>(element.getType());
        if (!type || !type.hasStaticShape())
          return false;
        NamedAttrList list(old);
        list.set("onnxcc.role", b.getStringAttr(role));
        if (e >= 0)
          list.set("onnxcc.element", b.getI64IntegerAttr(e));
        results.push_back(element);
        attrs.push_back(list.getDictionary(ctx));
        return true;
      };
      bool ok = true;
      if (info->kind == SeqInfo::Kind::Stack)
        ok = port(info->stack, "stack", -1);
      if (info->isRagged())
        ok = port(info->stack, "ragged_data", -1) && port(info->dims, "ragged_dims", -1) &&
             port(info->count, "ragged_count", -1);
      for (auto [e, element] : llvm::enumerate(info->elements))
        ok = ok && port(element, "element", e);
      if (!ok)
        return fail("whose elements' shapes are not known at compile time");
      NamedAttrList entry(cast<DictionaryAttr>(entries[index.getInt()]));
      entry.set("count", b.getI64IntegerAttr(info->length));
      entries[index.getInt()] = entry.getDictionary(ctx);
    }
    ret->setOperands(results);
    SmallVector<Type> types;
    for (Value v : results)
      types.push_back(v.getType());
    func.setType(FunctionType::get(ctx, func.getArgumentTypes(), types));
    func.setAllResultAttrs(attrs);
    func->setAttr("onnxcc.io_outputs", ArrayAttr::get(ctx, entries));
    return success();
  }

  const SeqInfo *lookup(Value seq) const {
    auto it = infos.find(seq);
    return it == infos.end() ? nullptr : &it->second;
  }

  /// The constant integers behind `v`, if it is a constant.
  std::optional<SmallVector<int64_t>> constInts(Operation *user, Value v) const {
    ShapeMap map;
    return ShapeContext(user, map).getIntValues(v);
  }

  /// The constant scalar position behind `pos`, if there is one.
  std::optional<int64_t> constPosition(Operation *user, Value pos) const {
    auto values = constInts(user, pos);
    if (!values || values->size() != 1)
      return std::nullopt;
    return values->front();
  }

  /// Whether sequences the data decides may become ragged stacks.
  bool raggedAllowed() const { return shapes.has_value(); }

  std::optional<SmallVector<int64_t>> dimBounds(Value v) const {
    return onnx::dimBounds(v, shapes ? &*shapes : nullptr);
  }

  /// The rank, element type, capacity, largest dims and shared dims of a
  /// sequence that can become ragged; nullopt for the others (an empty one
  /// gives rank -1: any).
  struct RaggedShape {
    int64_t rank = -1;
    Type elem;
    int64_t capacity = 0;
    SmallVector<int64_t> maxDims, fixedDims;
    // Elements of different ranks: `rank` is the largest.
    bool mixed = false;

    /// Makes room for elements of `bounds` (-1 dims of `fixed` where they
    /// differ): the largest of both, mixed when the ranks differ.
    void widen(ArrayRef<int64_t> bounds, ArrayRef<int64_t> fixed, bool otherMixed) {
      int64_t other = bounds.size();
      mixed |= otherMixed || other != rank;
      for (int64_t d = 0; d < std::max(rank, other); ++d) {
        if (d >= rank) {
          maxDims.push_back(bounds[d]);
          fixedDims.push_back(-1);
          continue;
        }
        if (d >= other) {
          fixedDims[d] = -1;
          continue;
        }
        maxDims[d] = std::max(maxDims[d], bounds[d]);
        if (fixedDims[d] != fixed[d])
          fixedDims[d] = -1;
      }
      rank = std::max(rank, other);
    }
  };
  std::optional<RaggedShape> raggedShape(const SeqInfo &in) const {
    RaggedShape r;
    auto merge = [&](RankedTensorType t) {
      if (r.rank < 0) {
        r.rank = t.getRank();
        r.elem = t.getElementType();
        r.maxDims.assign(t.getShape().begin(), t.getShape().end());
        r.fixedDims = r.maxDims;
        return true;
      }
      if (t.getElementType() != r.elem)
        return false;
      r.widen(t.getShape(), t.getShape(), false);
      return true;
    };
    switch (in.kind) {
    case SeqInfo::Kind::Empty:
      return r;
    case SeqInfo::Kind::Stack: {
      auto t = in.stackType();
      r.capacity = in.length;
      merge(RankedTensorType::get(t.getShape().drop_front(), t.getElementType()));
      return r;
    }
    case SeqInfo::Kind::List:
      r.capacity = in.length;
      for (Value e : in.elements) {
        auto t = staticTensorType(e);
        if (!t || !merge(t))
          return std::nullopt;
      }
      return r;
    case SeqInfo::Kind::Ragged: {
      auto t = in.stackType();
      r.capacity = t.getDimSize(0);
      r.rank = t.getRank() - 1;
      r.elem = t.getElementType();
      r.maxDims.assign(t.getShape().begin() + 1, t.getShape().end());
      r.fixedDims = in.fixedDims;
      r.mixed = in.mixedRank;
      return r;
    }
    case SeqInfo::Kind::Length:
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// `in` as a ragged stack of `capacity` rows of dims `maxDims` (at least
  /// its own).
  SeqInfo toRagged(const SeqInfo &in, const RaggedShape &shape, int64_t capacity,
                   ArrayRef<int64_t> maxDims, StackBuilder &b) {
    int64_t rank = maxDims.size();
    SmallVector<int64_t> stackShape{capacity};
    llvm::append_range(stackShape, maxDims);
    auto stackType = RankedTensorType::get(stackShape, shape.elem);
    SmallVector<int64_t> dimsShape{capacity, rank};
    switch (in.kind) {
    case SeqInfo::Kind::Ragged: {
      // Rows past `capacity` hold no element (the caller checks the
      // count); dims it lacks are -1.
      int64_t cap = std::min(capacity, in.stackType().getDimSize(0));
      Value stack = b.toRank(b.takeRows(in.stack, cap), rank + 1);
      Value dims = b.takeRows(in.dims, cap);
      int64_t had = cast<RankedTensorType>(dims.getType()).getDimSize(1);
      if (had < rank)
        dims = b.make<ConcatOp>(
            RankedTensorType::get({cap, rank}, b.i64()),
            {dims, b.constInts(SmallVector<int64_t>(cap * (rank - had), -1), {cap, rank - had})},
            {b.i64Attr("axis", 1)});
      return SeqInfo::ragged(b.padTo(stack, stackShape), b.padTo(dims, dimsShape), in.count,
                             shape.fixedDims, shape.mixed);
    }
    case SeqInfo::Kind::Empty:
      return SeqInfo::ragged(b.zeros(stackType),
                             b.zeros(RankedTensorType::get(dimsShape, b.i64())),
                             b.constScalar(0), maxDims, shape.mixed);
    default:
      break;
    }
    SmallVector<Value> rows;
    SmallVector<int64_t> dims;
    for (Value e : listOf(in, b)) {
      auto t = cast<RankedTensorType>(e.getType());
      rows.push_back(b.unsqueeze0(b.padTo(b.toRank(e, rank), maxDims)));
      llvm::append_range(dims, t.getShape());
      for (int64_t d = t.getRank(); d < rank; ++d)
        dims.push_back(-1);
    }
    int64_t n = rows.size();
    dims.resize(capacity * rank, 0);
    Value stack = b.padTo(b.concat0(rows), stackShape);
    return SeqInfo::ragged(stack, b.constInts(dims, dimsShape), b.constScalar(n),
                           shape.fixedDims, shape.mixed);
  }

  /// SequenceInsert as a ragged stack: one more row, dims as large as the
  /// new element's can be.
  bool insertRagged(SequenceInsertOp op, const SeqInfo &in, StackBuilder &b) {
    if (!raggedAllowed())
      return false;
    Value t = op.getTensor();
    auto type = dyn_cast<RankedTensorType>(t.getType());
    std::optional<SmallVector<int64_t>> bounds = dimBounds(t);
    std::optional<RaggedShape> shape = raggedShape(in);
    if (!type || !bounds || !shape)
      return false;
    if (shape->rank < 0) {
      shape->rank = type.getRank();
      shape->elem = type.getElementType();
      shape->maxDims = *bounds;
      shape->fixedDims.assign(type.getShape().begin(), type.getShape().end());
      for (int64_t &d : shape->fixedDims)
        d = ShapedType::isDynamic(d) ? -1 : d;
    }
    if (shape->elem != type.getElementType())
      return false;
    SmallVector<int64_t> fixed(type.getShape());
    for (int64_t &d : fixed)
      d = ShapedType::isDynamic(d) ? -1 : d;
    shape->widen(*bounds, fixed, false);
    SmallVector<int64_t> maxDims(shape->maxDims);
    int64_t cap = shape->capacity;
    SeqInfo r = toRagged(in, *shape, cap, maxDims, b);
    Value row = b.unsqueeze0(b.padTo(b.toRank(t, shape->rank), maxDims));
    Value dimsRow = b.unsqueeze0(b.dimsRow(t, shape->rank));
    Value joined = b.concat0({r.stack, row});
    Value joinedDims = b.concat0({r.dims, dimsRow});
    Value pos = op.getPosition();
    Value p = r.count;
    if (!isa<NoneType>(pos.getType())) {
      Value scalar = b.scalarPosition(pos);
      if (!scalar)
        return false;
      p = b.checkedIndex(scalar, r.count, /*end=*/true);
    }
    // indices[i] = i < p ? i : (i == p ? cap : i - 1), i in [0, cap].
    Type i1 = IntegerType::get(op.getContext(), 1);
    Value i = b.iota(cap + 1);
    Value before = b.binary<LessOp>(i, p, i1);
    Value at = b.binary<EqualOp>(i, p, i1);
    Value indices = b.where(before, i, b.where(at, b.constScalar(cap), b.iota(cap + 1, -1)));
    define(op.getResult(),
           SeqInfo::ragged(b.gather0(joined, indices), b.gather0(joinedDims, indices),
                           b.binary<AddOp>(r.count, b.constScalar(1), b.i64()),
                           shape->fixedDims, shape->mixed));
    return true;
  }

  /// Element `pos` of a ragged stack: its row, sliced to its dims.
  Value atRagged(Operation *op, const SeqInfo &in, Value pos, StackBuilder &b) {
    // An element's rank must be known at compile time.
    if (in.mixedRank)
      return {};
    Value scalar = b.scalarPosition(pos);
    if (!scalar)
      return {};
    Value p = b.checkedIndex(scalar, in.count, /*end=*/false);
    Value row = b.gather0(in.stack, p);
    auto rowType = cast<RankedTensorType>(row.getType());
    int64_t rank = rowType.getRank();
    if (rank == 0)
      return row;
    Value dims = b.gather0(in.dims, p);
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(in.fixedDims[d] >= 0 ? in.fixedDims[d] : ShapedType::kDynamic);
    return b.make<SliceOp>(RankedTensorType::get(shape, rowType.getElementType()),
                           {row, b.constVector(SmallVector<int64_t>(rank, 0)), dims,
                            b.iota(rank), b.none()});
  }

  void visit(Operation *op) {
    StackBuilder b(op);
    bool done = llvm::TypeSwitch<Operation *, bool>(op)
                    .Case<SequenceConstructOp, SequenceEmptyOp, SequenceInsertOp,
                          SequenceEraseOp, SequenceAtOp, SequenceLengthOp,
                          ConcatFromSequenceOp, SplitToSequenceOp, IdentityOp, IfOp,
                          RaggedSequenceOp, RaggedRowsOp>(
                        [&](auto op) { return rewrite(op, b); })
                    .Default([](Operation *) { return false; });
    llvm::append_range(created, b.created);
    if (done)
      visited.push_back(op);
  }

  void define(Value seq, SeqInfo info) { infos[seq] = info; }

  /// SequenceAt or ConcatFromSequence of a sequence whose elements differ in
  /// rank: what they give has no rank known at compile time (an error that
  /// fails the pass; the message names the node).
  bool refuseMixedRank(Operation *op) {
    op->emitError() << op->getName().stripDialect()
                    << " of a sequence whose elements differ in rank, which compile cannot "
                       "give a result of one rank";
    refused = true;
    return false;
  }

  /// The elements of a stack (its rows), list or empty sequence.
  SmallVector<Value> listOf(const SeqInfo &info, StackBuilder &b) {
    if (info.kind == SeqInfo::Kind::List)
      return info.elements;
    SmallVector<Value> rows;
    if (info.isStack())
      for (int64_t i = 0; i < info.length; ++i)
        rows.push_back(b.gather0(info.stack, b.constScalar(i)));
    return rows;
  }
  void replace(Operation *op, Value value) { replacements.push_back({op, value}); }

  bool rewrite(SequenceConstructOp op, StackBuilder &b) {
    auto inputs = op.getInputs();
    if (inputs.empty())
      return false;
    auto first = staticTensorType(inputs.front());
    bool uniform = first && llvm::all_of(inputs, [&](Value in) { return in.getType() == first; });
    if (!uniform) {
      // Elements of different shapes: a list, as long as they are tensors
      // of one element type.
      for (Value in : inputs)
        if (!isa<RankedTensorType>(in.getType()) ||
            cast<TensorType>(in.getType()).getElementType() !=
                cast<TensorType>(inputs.front().getType()).getElementType())
          return false;
      define(op.getResult(), SeqInfo::ofList(llvm::to_vector(inputs)));
      return true;
    }
    SmallVector<Value> rows;
    for (Value in : inputs)
      rows.push_back(b.unsqueeze0(in));
    define(op.getResult(), SeqInfo::ofStack(b.concat0(rows)));
    return true;
  }

  /// The rows a Loop appended (padded) and their dims, as a ragged stack of
  /// as many rows as the trip count's bound.
  bool rewrite(RaggedSequenceOp op, StackBuilder &b) {
    if (!raggedAllowed())
      return false;
    auto rowsType = dyn_cast<RankedTensorType>(op.getRows().getType());
    auto dimsType = dyn_cast<RankedTensorType>(op.getDims().getType());
    std::optional<SmallVector<int64_t>> bounds = dimBounds(op.getRows());
    if (!rowsType || !dimsType || !bounds || rowsType.getRank() < 1 ||
        dimsType.getRank() != 2 || dimsType.isDynamicDim(1) ||
        dimsType.getDimSize(1) != rowsType.getRank() - 1)
      return false;
    int64_t cap = std::max<int64_t>((*bounds)[0], 1);
    SmallVector<int64_t> stackShape{cap};
    llvm::append_range(stackShape, ArrayRef<int64_t>(*bounds).drop_front());
    // A Loop's carried sequence gives its count; appended rows are all
    // elements.
    Value count = op.getCount() ? op.getCount()
                                : b.gather0(b.shapeVector(op.getRows()), b.constScalar(0));
    SmallVector<int64_t> fixed(rowsType.getRank() - 1, -1);
    if (auto given = op.getFixedDims(); given && given->size() == fixed.size())
      fixed.assign(given->begin(), given->end());
    define(op.getResult(),
           SeqInfo::ragged(b.padTo(op.getRows(), stackShape),
                           b.padTo(op.getDims(), {cap, rowsType.getRank() - 1}), count, fixed,
                           op->hasAttr("onnxcc.mixed_rank")));
    return true;
  }

  /// A sequence as the ragged stack of `capacity` rows of `max_dims` a
  /// Loop carries, its count checked against the capacity (status 10).
  bool rewrite(RaggedRowsOp op, StackBuilder &b) {
    const SeqInfo *in = lookup(op.getSequence());
    if (!in || !raggedAllowed())
      return false;
    std::optional<RaggedShape> shape = raggedShape(*in);
    if (!shape)
      return false;
    ArrayRef<int64_t> maxDims = op.getMaxDims();
    int64_t rank = maxDims.size();
    if (shape->rank > rank || (shape->elem && shape->elem != getElementTypeOrSelf(
                                                                op.getRows().getType())))
      return false;
    for (int64_t d = 0; d < shape->rank; ++d)
      if (shape->maxDims[d] > maxDims[d])
        return false;
    if (shape->rank < 0) {
      shape->rank = rank;
      shape->elem = getElementTypeOrSelf(op.getRows().getType());
      shape->maxDims.assign(maxDims.begin(), maxDims.end());
      shape->fixedDims.assign(rank, -1);
    }
    shape->widen(maxDims, SmallVector<int64_t>(rank, -1), shape->mixed);
    int64_t cap = op.getCapacity();
    if (!in->isRagged() && shape->capacity > cap)
      return false;
    SeqInfo r = toRagged(*in, *shape, cap, maxDims, b);
    Value count = b.checkedIndex(r.count, b.constScalar(cap), /*end=*/false,
                                 /*negative=*/false, /*bound=*/true);
    Value parts[] = {r.stack, r.dims, count};
    for (auto [result, value] : llvm::zip(op->getResults(), parts))
      rowsReplacements.push_back({result, value});
    visited.push_back(op);
    return true;
  }

  bool rewrite(SequenceEmptyOp op, StackBuilder &) {
    define(op.getResult(), SeqInfo::empty());
    return true;
  }

  /// An If whose branches both yield a stack of one type for a sequence
  /// result yields that stack (its branches were visited first).
  bool rewrite(IfOp op, StackBuilder &) {
    Operation *thenYield = op.getThenBranch().front().getTerminator();
    Operation *elseYield = op.getElseBranch().front().getTerminator();
    for (OpResult r : op->getResults()) {
      if (!isa<SeqType>(r.getType()))
        continue;
      unsigned k = r.getResultNumber();
      const SeqInfo *a = lookup(thenYield->getOperand(k));
      const SeqInfo *c = lookup(elseYield->getOperand(k));
      if (!a || !c || !a->isStack() || !c->isStack() || a->stack.getType() != c->stack.getType())
        continue;
      thenYield->setOperand(k, a->stack);
      elseYield->setOperand(k, c->stack);
      r.setType(a->stack.getType());
      define(r, SeqInfo::ofStack(r));
    }
    // Sequences the branches give in other forms (lengths or element shapes
    // that differ, a ragged stack): ragged stacks of one capacity and one
    // largest shape, three more results each.
    if (raggedAllowed())
      raggedIfResults(op);
    // The If itself stays.
    return false;
  }

  void raggedIfResults(IfOp op) {
    Operation *thenYield = op.getThenBranch().front().getTerminator();
    Operation *elseYield = op.getElseBranch().front().getTerminator();
    SmallVector<unsigned> ragged;
    SmallVector<Type> types;
    SmallVector<Value> thenExtra, elseExtra;
    SmallVector<SmallVector<int64_t>> fixed;
    SmallVector<bool> mixed;
    for (OpResult r : op->getResults()) {
      unsigned k = r.getResultNumber();
      if (!isa<SeqType>(r.getType()) || lookup(r))
        continue;
      const SeqInfo *a = lookup(thenYield->getOperand(k));
      const SeqInfo *c = lookup(elseYield->getOperand(k));
      std::optional<RaggedShape> sa = a ? raggedShape(*a) : std::nullopt;
      std::optional<RaggedShape> sc = c ? raggedShape(*c) : std::nullopt;
      if (!sa || !sc)
        continue;
      if (sa->rank < 0 && sc->rank < 0)
        continue;
      if (sa->rank < 0)
        sa->rank = sc->rank, sa->elem = sc->elem, sa->maxDims = sc->maxDims,
        sa->fixedDims = sc->fixedDims;
      if (sc->rank < 0)
        sc->rank = sa->rank, sc->elem = sa->elem, sc->maxDims = sa->maxDims,
        sc->fixedDims = sa->fixedDims;
      if (sa->elem != sc->elem)
        continue;
      int64_t cap = std::max<int64_t>({sa->capacity, sc->capacity, 1});
      // One shape for both: the largest rank and dims (mixed ranks when
      // they differ).
      RaggedShape joined = *sa;
      joined.widen(sc->maxDims, sc->fixedDims, sc->mixed);
      SmallVector<int64_t> maxDims = joined.maxDims, fixedDims = joined.fixedDims;
      sa->rank = sc->rank = joined.rank;
      sa->mixed = sc->mixed = joined.mixed;
      sa->fixedDims = sc->fixedDims = fixedDims;
      StackBuilder tb(thenYield), eb(elseYield);
      SeqInfo ra = toRagged(*a, *sa, cap, maxDims, tb);
      SeqInfo rc = toRagged(*c, *sc, cap, maxDims, eb);
      mixed.push_back(joined.mixed);
      llvm::append_range(created, tb.created);
      llvm::append_range(created, eb.created);
      ragged.push_back(k);
      fixed.push_back(fixedDims);
      for (Value v : {ra.stack, ra.dims, ra.count})
        types.push_back(v.getType());
      llvm::append_range(thenExtra, ValueRange{ra.stack, ra.dims, ra.count});
      llvm::append_range(elseExtra, ValueRange{rc.stack, rc.dims, rc.count});
    }
    if (ragged.empty())
      return;
    SmallVector<unsigned> keep;
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      keep.push_back(i);
    unsigned first = op->getNumResults();
    IfOp rebuilt = rebuildIf(op, keep, types, thenExtra, elseExtra);
    for (auto [j, k] : llvm::enumerate(ragged))
      define(rebuilt->getResult(k),
             SeqInfo::ragged(rebuilt->getResult(first + 3 * j),
                             rebuilt->getResult(first + 3 * j + 1),
                             rebuilt->getResult(first + 3 * j + 2), fixed[j], mixed[j]));
    raggedIfs.push_back(rebuilt);
  }

  bool rewrite(IdentityOp op, StackBuilder &) {
    const SeqInfo *in = lookup(op.getInput());
    if (!in)
      return false;
    define(op.getResult(), *in);
    return true;
  }

  bool rewrite(SequenceInsertOp op, StackBuilder &b) {
    const SeqInfo *in = lookup(op.getInputSequence());
    auto elemType = staticTensorType(op.getTensor());
    if (!in || in->kind == SeqInfo::Kind::Length)
      return false;
    // A ragged stack stays one; an element whose dims the data decides
    // makes one.
    if (in->isRagged() || !elemType)
      return insertRagged(op, *in, b);
    Value pos = op.getPosition();
    bool hasPos = !isa<NoneType>(pos.getType());
    std::optional<int64_t> constPos = hasPos ? constPosition(op, pos) : std::nullopt;
    bool fits = in->kind == SeqInfo::Kind::Empty ||
                (in->isStack() && elemType.getShape() == in->elementShape() &&
                 elemType.getElementType() == in->elementType());
    if (!fits) {
      // Into a list, or a stack of another element shape: a list, at a
      // position known at compile time; else a ragged stack.
      if (hasPos && !constPos)
        return insertRagged(op, *in, b);
      SmallVector<Value> elements = listOf(*in, b);
      int64_t n = elements.size();
      int64_t p = constPos ? *constPos : n;
      if (p < -n || p > n)
        return false;
      if (!elements.empty() && cast<TensorType>(elements.front().getType()).getElementType() !=
                                   elemType.getElementType())
        return false;
      elements.insert(elements.begin() + (p < 0 ? p + n : p), op.getTensor());
      define(op.getResult(), SeqInfo::ofList(elements));
      return true;
    }
    Value row = b.unsqueeze0(op.getTensor());
    if (in->kind == SeqInfo::Kind::Empty) {
      // The only valid position in an empty sequence is 0.
      if (constPos && *constPos != 0)
        return false;
      define(op.getResult(), SeqInfo::ofStack(row));
      return true;
    }
    int64_t n = in->length;
    // The new element is row n of `joined`; a Gather puts it into place.
    Value joined = b.concat0({in->stack, row});
    if (!hasPos) {
      define(op.getResult(), SeqInfo::ofStack(joined));
      return true;
    }
    Value indices;
    if (constPos) {
      int64_t p = *constPos;
      if (p < -n || p > n)
        return false;
      if (p < 0)
        p += n;
      if (p == n) {
        define(op.getResult(), SeqInfo::ofStack(joined));
        return true;
      }
      SmallVector<int64_t> values;
      for (int64_t i = 0; i <= n; ++i)
        values.push_back(i < p ? i : i == p ? n : i - 1);
      indices = b.constVector(values);
    } else {
      Value p = b.scalarPosition(pos);
      if (!p)
        return false;
      p = b.normalizePosition(p, n);
      // indices[i] = i < p ? i : (i == p ? n : i - 1), i in [0, n].
      Type i1 = IntegerType::get(op.getContext(), 1);
      Value i = b.iota(n + 1);
      Value before = b.binary<LessOp>(i, p, i1);
      Value at = b.binary<EqualOp>(i, p, i1);
      Value after = b.where(at, b.constScalar(n), b.iota(n + 1, -1));
      indices = b.where(before, i, after);
    }
    define(op.getResult(), SeqInfo::ofStack(b.gather0(joined, indices)));
    return true;
  }

  bool rewrite(SequenceEraseOp op, StackBuilder &b) {
    const SeqInfo *in = lookup(op.getInputSequence());
    if (in && in->isRagged()) {
      // indices[i] = i < p ? i : min(i + 1, cap - 1): the rows after p move
      // up one.
      Value pos = op.getPosition();
      Value index = isa<NoneType>(pos.getType()) ? b.constScalar(-1) : b.scalarPosition(pos);
      if (!index)
        return false;
      Value p = b.checkedIndex(index, in->count, /*end=*/false);
      int64_t cap = in->length;
      Type i1 = IntegerType::get(op.getContext(), 1);
      Value i = b.iota(cap);
      Value next = b.make<MinOp>(RankedTensorType::get({cap}, b.i64()),
                                 {b.iota(cap, 1), b.constScalar(cap - 1)});
      Value indices = b.where(b.binary<LessOp>(i, p, i1), i, next);
      define(op.getResult(),
             SeqInfo::ragged(b.gather0(in->stack, indices), b.gather0(in->dims, indices),
                             b.binary<SubOp>(in->count, b.constScalar(1), b.i64()),
                             in->fixedDims, in->mixedRank));
      return true;
    }
    if (in && in->kind == SeqInfo::Kind::List) {
      Value pos = op.getPosition();
      int64_t n = in->length;
      std::optional<int64_t> p =
          isa<NoneType>(pos.getType()) ? std::optional<int64_t>(n - 1) : constPosition(op, pos);
      if (!p || *p < -n || *p >= n)
        return false;
      SmallVector<Value> elements(in->elements);
      elements.erase(elements.begin() + (*p < 0 ? *p + n : *p));
      define(op.getResult(), elements.empty() ? SeqInfo::empty() : SeqInfo::ofList(elements));
      return true;
    }
    if (!in || !in->isStack())
      return false;
    int64_t n = in->length;
    Value pos = op.getPosition();
    bool hasPos = !isa<NoneType>(pos.getType());
    std::optional<int64_t> constPos = hasPos ? constPosition(op, pos) : std::nullopt;
    if (constPos && (*constPos < -n || *constPos >= n))
      return false;
    Value p = hasPos && !constPos ? b.scalarPosition(pos) : Value();
    if (hasPos && !constPos && !p)
      return false;
    if (n == 1) {
      define(op.getResult(), SeqInfo::empty());
      return true;
    }
    Value indices;
    if (!p) {
      int64_t erased = constPos ? (*constPos < 0 ? *constPos + n : *constPos) : n - 1;
      SmallVector<int64_t> values;
      for (int64_t i = 0; i < n; ++i)
        if (i != erased)
          values.push_back(i);
      indices = b.constVector(values);
    } else {
      // indices[i] = i < p ? i : i + 1, i in [0, n - 1).
      p = b.normalizePosition(p, n);
      Type i1 = IntegerType::get(op.getContext(), 1);
      Value i = b.iota(n - 1);
      indices = b.where(b.binary<LessOp>(i, p, i1), i, b.iota(n - 1, 1));
    }
    define(op.getResult(), SeqInfo::ofStack(b.gather0(in->stack, indices)));
    return true;
  }

  bool rewrite(SequenceAtOp op, StackBuilder &b) {
    const SeqInfo *in = lookup(op.getInputSequence());
    if (in && in->isRagged() && in->mixedRank)
      return refuseMixedRank(op);
    if (in && in->isRagged()) {
      Value element = atRagged(op, *in, op.getPosition(), b);
      if (!element)
        return false;
      replace(op, element);
      return true;
    }
    if (in && in->kind == SeqInfo::Kind::List) {
      std::optional<int64_t> p = constPosition(op, op.getPosition());
      int64_t n = in->length;
      if (!p && raggedAllowed()) {
        // Elements of different shapes at a run-time position: read from
        // their ragged stack.
        std::optional<RaggedShape> shape = raggedShape(*in);
        if (!shape)
          return false;
        SeqInfo r = toRagged(*in, *shape, shape->capacity, shape->maxDims, b);
        Value element = atRagged(op, r, op.getPosition(), b);
        if (!element)
          return false;
        replace(op, element);
        return true;
      }
      if (!p || *p < -n || *p >= n)
        return false;
      replace(op, in->elements[*p < 0 ? *p + n : *p]);
      return true;
    }
    if (!in || !in->isStack())
      return false;
    int64_t n = in->length;
    Value pos = op.getPosition();
    Value index;
    if (std::optional<int64_t> p = constPosition(op, pos)) {
      if (*p < -n || *p >= n)
        return false;
      index = b.constScalar(*p < 0 ? *p + n : *p);
    } else {
      // Gather counts negative indices from the back, as SequenceAt does.
      index = b.scalarPosition(pos);
      if (!index)
        return false;
    }
    replace(op, b.gather0(in->stack, index));
    return true;
  }

  bool rewrite(SequenceLengthOp op, StackBuilder &b) {
    const SeqInfo *in = lookup(op.getInputSequence());
    if (!in)
      return false;
    replace(op, in->isRagged() ? in->count : b.constScalar(in->length));
    return true;
  }

  /// new_axis = 0 concatenates the elements along `axis`, new_axis = 1 stacks
  /// them along a new dim at `axis`.
  bool rewrite(ConcatFromSequenceOp op, StackBuilder &b) {
    const SeqInfo *in = lookup(op.getInputSequence());
    if (in && in->isRagged() && in->mixedRank)
      return refuseMixedRank(op);
    if (in && in->isRagged()) {
      Value joined = concatRagged(op, *in, b);
      if (!joined)
        return false;
      replace(op, joined);
      return true;
    }
    if (!in || !in->isStack())
      return false;
    ArrayRef<int64_t> elem = in->elementShape();
    int64_t rank = elem.size();
    bool newAxis = op.getNewAxis() != 0;
    auto axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), newAxis ? rank + 1 : rank);
    if (!axis)
      return false;
    // The stack's dim 0 moves to `axis`.
    SmallVector<int64_t> perm;
    for (int64_t d = 1; d <= rank; ++d) {
      if (d - 1 == *axis)
        perm.push_back(0);
      perm.push_back(d);
    }
    if (*axis == rank)
      perm.push_back(0);
    Value moved = b.transpose(in->stack, perm);
    if (!newAxis) {
      SmallVector<int64_t> shape(elem);
      shape[*axis] *= in->length;
      moved = b.reshape(moved, shape);
    }
    replace(op, moved);
    return true;
  }

  /// Parts of equal size along `axis`: the input with that dim split in
  /// [count, size] and count moved to the front. Without a split, size-1
  /// parts that keep the dim or not (keepdims).
  bool rewrite(SplitToSequenceOp op, StackBuilder &b) {
    auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!inputType)
      return false;
    auto axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), inputType.getRank());
    if (!axis)
      return false;
    Value split = op.getSplit();
    bool hasSplit = !isa<NoneType>(split.getType());
    auto splitType = dyn_cast<RankedTensorType>(split.getType());
    std::optional<SmallVector<int64_t>> sizes;
    if (hasSplit) {
      sizes = constInts(op, split);
      if (!sizes && raggedAllowed())
        if (splitRagged(op, b))
          return true;
      // Runtime sizes: a 1-D split of static length K gives K parts of
      // unknown shapes, enough for SequenceLength.
      if (!sizes) {
        if (!splitType || splitType.getRank() != 1 || splitType.isDynamicDim(0))
          return false;
        define(op.getResult(), SeqInfo::lengthOnly(splitType.getDimSize(0)));
        return true;
      }
    }
    auto type = staticTensorType(op.getInput());
    if (!type)
      return false;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t dim = shape[*axis];
    int64_t size = 1;
    // keepdims only applies without a split.
    bool keepDim = hasSplit || op.getKeepdims() != 0;
    if (hasSplit) {
      if (sizes->empty() || !splitType)
        return false;
      size = sizes->front();
      if (size <= 0 || !llvm::all_equal(*sizes))
        return false;
      // A scalar split is a chunk size; a vector lists every part.
      if (splitType.getRank() == 0 ? dim % size != 0
                                   : size * static_cast<int64_t>(sizes->size()) != dim)
        return false;
    }
    int64_t count = dim / size;
    if (count == 0) {
      define(op.getResult(), SeqInfo::empty());
      return true;
    }
    // [.., count, size, ..] with count then moved to the front.
    SmallVector<int64_t> split4(shape.take_front(*axis));
    split4.push_back(count);
    if (keepDim)
      split4.push_back(size);
    llvm::append_range(split4, shape.drop_front(*axis + 1));
    Value parts = b.reshape(op.getInput(), split4);
    SmallVector<int64_t> perm{*axis};
    for (int64_t d = 0; d < static_cast<int64_t>(split4.size()); ++d)
      if (d != *axis)
        perm.push_back(d);
    define(op.getResult(), SeqInfo::ofStack(b.transpose(parts, perm)));
    return true;
  }

  /// The elements of a ragged stack one after another along `axis` (no new
  /// axis; the other dims shared and static): output position p along the
  /// axis comes from element k(p), the last whose start is at most p, at
  /// p - start[k]; the positions run over all rows' room (capacity x D) and
  /// a Slice keeps the elements' total.
  Value concatRagged(ConcatFromSequenceOp op, const SeqInfo &in, StackBuilder &b) {
    if (op.getNewAxis() != 0)
      return {};
    auto stackType = in.stackType();
    SmallVector<int64_t> maxDims(stackType.getShape().drop_front());
    int64_t rank = maxDims.size();
    auto axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (!axis)
      return {};
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && in.fixedDims[d] < 0)
        return {};
    int64_t cap = in.length, room = maxDims[*axis], n = cap * room;
    if (n == 0)
      return {};
    Type i64 = b.i64(), i1 = b.builder().getI1Type();
    auto vec = [&](int64_t len) { return RankedTensorType::get({len}, i64); };
    // lens[k]: element k's dim along the axis, 0 for the rows past count.
    Value lens = b.where(b.binary<LessOp>(b.iota(cap), in.count, i1),
                         b.gather(in.dims, b.constScalar(*axis), 1), b.constScalar(0));
    Value sums = b.make<CumSumOp>(vec(cap), {lens, b.constScalar(0)});
    Value starts = b.binary<SubOp>(sums, lens, i64);
    Value total = b.gather0(sums, b.constScalar(cap - 1));
    Value p = b.iota(n);
    Value startRow = b.make<UnsqueezeOp>(RankedTensorType::get({1, cap}, i64),
                                         {starts, b.constVector({0})});
    Value pColumn = b.make<UnsqueezeOp>(RankedTensorType::get({n, 1}, i64),
                                        {p, b.constVector({1})});
    Value begun = b.make<CastOp>(RankedTensorType::get({n, cap}, i64),
                                 {b.binary<LessOrEqualOp>(startRow, pColumn, i1)},
                                 {b.i64Attr("to", kOnnxInt64)});
    Value counted = b.make<ReduceSumOp>(vec(n), {begun, b.constVector({1})},
                                        {b.i64Attr("keepdims", 0)});
    Value k = b.make<MaxOp>(vec(n), {b.binary<SubOp>(counted, b.constScalar(1), i64),
                                     b.constScalar(0)});
    Value j = b.binary<SubOp>(p, b.gather0(starts, k), i64);
    j = b.make<MinOp>(vec(n), {b.make<MaxOp>(vec(n), {j, b.constScalar(0)}),
                               b.constScalar(room - 1)});
    Value flat = b.binary<AddOp>(b.binary<MulOp>(k, b.constScalar(room), i64), j, i64);
    // [cap, D...] with the axis next to the rows, the two merged.
    SmallVector<int64_t> perm{0, *axis + 1};
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis)
        perm.push_back(d + 1);
    Value moved = b.transpose(in.stack, perm);
    SmallVector<int64_t> merged{n};
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis)
        merged.push_back(maxDims[d]);
    Value rows = b.gather0(b.reshape(moved, merged), flat);
    // The positions' dim back at the axis.
    SmallVector<int64_t> back;
    for (int64_t d = 0; d < rank; ++d)
      back.push_back(d < *axis ? d + 1 : d == *axis ? 0 : d);
    Value joined = b.transpose(rows, back);
    SmallVector<int64_t> shape(cast<RankedTensorType>(joined.getType()).getShape());
    shape[*axis] = ShapedType::kDynamic;
    return b.make<SliceOp>(RankedTensorType::get(shape, stackType.getElementType()),
                           {joined, b.constVector({0}), b.unsqueeze0(total),
                            b.constVector({*axis}), b.none()});
  }

  /// SplitToSequence with sizes given at run time, as a ragged stack: part
  /// k is the input at positions starts[k] + j along the axis (clamped to
  /// the input), j < n, its dim there lens[k]. A scalar size s gives
  /// ceil(n / s) parts of s (the last one shorter), at most n of them
  /// (1 <= s, checked); a vector its own parts (each in [0, n], summing to
  /// n, checked).
  bool splitRagged(SplitToSequenceOp op, StackBuilder &b) {
    auto type = staticTensorType(op.getInput());
    auto splitType = dyn_cast<RankedTensorType>(op.getSplit().getType());
    if (!type || !splitType || !splitType.hasStaticShape() || splitType.getRank() > 1)
      return false;
    int64_t rank = type.getRank();
    auto axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (!axis)
      return false;
    int64_t n = type.getDimSize(*axis);
    if (n < 1)
      return false;
    Type i64 = b.i64();
    Value split = op.getSplit();
    if (!splitType.getElementType().isInteger(64))
      split = b.make<CastOp>(RankedTensorType::get(splitType.getShape(), i64), {split},
                             {b.i64Attr("to", kOnnxInt64)});
    int64_t cap;
    Value starts, lens, count;
    if (splitType.getRank() == 0) {
      cap = n;
      // size - 1 in [0, n): 1 <= size, a size above n taken as n.
      Value clamped = b.make<MinOp>(RankedTensorType::get({}, i64), {split, b.constScalar(n)});
      Value size = b.binary<AddOp>(
          b.checkedIndex(b.binary<SubOp>(clamped, b.constScalar(1), i64), b.constScalar(n),
                         /*end=*/false, /*negative=*/false),
          b.constScalar(1), i64);
      count = b.binary<DivOp>(b.binary<AddOp>(size, b.constScalar(n - 1), i64), size, i64);
      starts = b.binary<MulOp>(b.iota(cap), size, i64);
      Value left = b.binary<SubOp>(b.constScalar(n), starts, i64);
      lens = b.make<MinOp>(RankedTensorType::get({cap}, i64), {left, size});
    } else {
      cap = splitType.getDimSize(0);
      if (cap < 1)
        return false;
      // Each size checked in [0, n] (the checks are the values used, so
      // that they stay).
      SmallVector<Value> checked;
      for (int64_t k = 0; k < cap; ++k)
        checked.push_back(b.unsqueeze0(b.checkedIndex(b.gather0(split, b.constScalar(k)),
                                                      b.constScalar(n), /*end=*/true,
                                                      /*negative=*/false)));
      lens = b.concat0(checked);
      Value sums = b.make<CumSumOp>(RankedTensorType::get({cap}, i64),
                                    {lens, b.constScalar(0)});
      // The sizes sum to n: sum - n in [0, 1), which is added to the count.
      Value zero = b.checkedIndex(
          b.binary<SubOp>(b.gather0(sums, b.constScalar(cap - 1)), b.constScalar(n), i64),
          b.constScalar(1), /*end=*/false, /*negative=*/false);
      starts = b.binary<SubOp>(sums, lens, i64);
      count = b.binary<AddOp>(zero, b.constScalar(cap), i64);
    }
    // positions[k, j] = min(starts[k] + j, n - 1).
    Value column = b.make<UnsqueezeOp>(RankedTensorType::get({cap, 1}, i64),
                                       {starts, b.constVector({1})});
    Value positions = b.make<MinOp>(RankedTensorType::get({cap, n}, i64),
                                    {b.binary<AddOp>(column, b.iota(n), i64),
                                     b.constScalar(n - 1)});
    Value parts = b.gather(op.getInput(), positions, *axis);
    // [.., cap, n, ..] with cap moved to the front.
    SmallVector<int64_t> perm{*axis};
    for (int64_t d = 0; d <= rank; ++d)
      if (d != *axis)
        perm.push_back(d);
    Value stack = b.transpose(parts, perm);
    // dims[k] = the input's dims with lens[k] at the axis.
    SmallVector<int64_t> base, mask;
    for (int64_t k = 0; k < cap; ++k)
      for (int64_t d = 0; d < rank; ++d)
        base.push_back(d == *axis ? 0 : type.getDimSize(d));
    for (int64_t d = 0; d < rank; ++d)
      mask.push_back(d == *axis ? 1 : 0);
    Value lensColumn = b.make<UnsqueezeOp>(RankedTensorType::get({cap, 1}, i64),
                                           {lens, b.constVector({1})});
    Value dims = b.binary<AddOp>(b.constInts(base, {cap, rank}),
                                 b.binary<MulOp>(lensColumn, b.constVector(mask), i64), i64);
    SmallVector<int64_t> fixed(type.getShape());
    fixed[*axis] = -1;
    define(op.getResult(), SeqInfo::ragged(stack, dims, count, fixed));
    return true;
  }

  func::FuncOp func;
  /// The Ifs rebuilt to yield ragged stacks (raggedIfResults).
  SmallVector<IfOp> raggedIfs;
  /// Shapes with the bounds of dims the data decides, when compiling.
  std::optional<ShapeMap> shapes;
  llvm::DenseMap<Value, SeqInfo> infos;
  SmallVector<std::pair<Operation *, Value>> replacements;
  // The results of RaggedRows ops and what replaces them.
  SmallVector<std::pair<Value, Value>> rowsReplacements;
  // An op was refused with an error (refuseMixedRank).
  bool refused = false;
  SmallVector<Operation *> visited;
  SmallVector<Operation *> created;
};

/// The elements of `seq` when a SequenceConstruct (through Identity) makes
/// it.
std::optional<SmallVector<Value>> constructed(Value seq) {
  while (auto id = seq.getDefiningOp<IdentityOp>())
    seq = id.getInput();
  if (auto c = seq.getDefiningOp<SequenceConstructOp>())
    return llvm::to_vector(c.getInputs());
  return std::nullopt;
}

/// A scalar int64 or bool constant behind `v`, if there is one.
std::optional<int64_t> scalarConstant(Operation *user, Value v) {
  if (auto c = v.getDefiningOp<ConstantOp>())
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(c->getAttr("value"));
        dense && dense.getNumElements() == 1 && dense.getElementType().isInteger(1))
      return dense.getValues<bool>()[0] ? 1 : 0;
  ShapeMap map;
  auto values = ShapeContext(user, map).getIntValues(v);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

/// The most iterations `loop` runs: its trip count when it is a constant,
/// else the user's bound for the node (--bound NODE=N or *=N).
std::optional<int64_t> tripBound(LoopOp loop) {
  if (!isa<NoneType>(loop.getM().getType()))
    if (std::optional<int64_t> m = scalarConstant(loop, loop.getM()))
      return std::max<int64_t>(*m, 0);
  auto func = loop->getParentOfType<func::FuncOp>();
  auto bounds = func ? func->getAttrOfType<DictionaryAttr>("onnxcc.bounds") : nullptr;
  if (!bounds)
    return std::nullopt;
  StringRef name;
  Location loc = loop.getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location l : fused.getLocations())
      if (auto n = dyn_cast<NameLoc>(l)) {
        name = n.getName().getValue();
        break;
      }
  } else if (auto n = dyn_cast<NameLoc>(loc)) {
    name = n.getName().getValue();
  }
  auto given = dyn_cast_or_null<IntegerAttr>(bounds.get(name));
  if (!given)
    given = dyn_cast_or_null<IntegerAttr>(bounds.get("*"));
  if (!given)
    return std::nullopt;
  return given.getInt();
}

/// A sequence a Loop carries and its body changes other than by appending
/// (an insert into what an If gives, a SequenceConstruct that starts it
/// again): when compiling, the Loop carries its ragged stack instead (rows,
/// dims, count; onnx.RaggedRows before the Loop and at the yield,
/// onnx.RaggedSequence at the start of the body and after the Loop). The
/// capacity is the most elements it can hold: its initial ones or the most
/// a SequenceConstruct of the body makes, plus one per SequenceInsert of
/// the body per iteration (the trip count's bound); the rows are as large
/// as the largest dims any element can have (their bounds), of the largest
/// rank (an element of a smaller rank has -1 for the dims it lacks). Only
/// bodies that make sequences with SequenceConstruct, SequenceEmpty,
/// SequenceInsert and If qualify.
bool carriedSequencesToRagged(func::FuncOp func, const ShapeMap &shapes) {
  SmallVector<LoopOp> loops;
  func.walk([&](LoopOp loop) { loops.push_back(loop); });
  bool changed = false;
  for (LoopOp loop : loops) {
    for (unsigned k = 0; k < loop.getVInitial().size(); ++k) {
      Value init = loop.getVInitial()[k];
      if (!isa<SeqType>(init.getType()))
        continue;
      SmallVector<Value> sources;
      int64_t start = 0;
      if (auto elements = constructed(init)) {
        sources = *elements;
        start = elements->size();
      } else if (!init.getDefiningOp<SequenceEmptyOp>()) {
        continue;
      }
      std::optional<int64_t> trips = tripBound(loop);
      if (!trips)
        continue;
      Block &body = loop.getBody().front();
      int64_t inserts = 0;
      bool ok = true;
      body.walk([&](Operation *op) {
        if (auto insert = dyn_cast<SequenceInsertOp>(op)) {
          ++inserts;
          sources.push_back(insert.getTensor());
        } else if (auto construct = dyn_cast<SequenceConstructOp>(op)) {
          start = std::max<int64_t>(start, construct.getInputs().size());
          llvm::append_range(sources, construct.getInputs());
        } else if (!isa<SequenceEmptyOp, IfOp, YieldOp, IdentityOp, SequenceLengthOp>(op) &&
                   llvm::any_of(op->getResultTypes(),
                                [](Type t) { return isa<SeqType>(t); })) {
          ok = false;
        }
      });
      if (!ok || inserts == 0 || sources.empty())
        continue;
      // The element type, the largest rank and dims, the dims all share.
      Type elem;
      int64_t rank = 0;
      for (Value v : sources) {
        auto t = dyn_cast<RankedTensorType>(v.getType());
        if (!t || (elem && t.getElementType() != elem)) {
          ok = false;
          break;
        }
        elem = t.getElementType();
        rank = std::max<int64_t>(rank, t.getRank());
      }
      if (!ok)
        continue;
      SmallVector<int64_t> maxDims(rank, 1), fixed;
      bool mixed = false;
      for (auto [i, v] : llvm::enumerate(sources)) {
        std::optional<SmallVector<int64_t>> bounds = dimBounds(v, &shapes);
        if (!bounds) {
          ok = false;
          break;
        }
        auto t = cast<RankedTensorType>(v.getType());
        mixed |= t.getRank() != rank;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t dim = d < t.getRank() && !t.isDynamicDim(d) ? t.getDimSize(d) : -1;
          if (d < t.getRank())
            maxDims[d] = std::max(maxDims[d], (*bounds)[d]);
          if (i == 0)
            fixed.push_back(dim);
          else if (fixed[d] != dim)
            fixed[d] = -1;
        }
      }
      if (!ok)
        continue;
      int64_t cap = std::max<int64_t>(start + *trips * inserts, 1);
      MLIRContext *ctx = loop.getContext();
      Location loc = loop.getLoc();
      SmallVector<int64_t> rowsShape{cap};
      llvm::append_range(rowsShape, maxDims);
      auto i64 = IntegerType::get(ctx, 64);
      Type rowsType = RankedTensorType::get(rowsShape, elem);
      Type dimsType = RankedTensorType::get({cap, rank}, i64);
      Type countType = RankedTensorType::get({}, i64);
      SmallVector<Type> triple{rowsType, dimsType, countType};
      Builder attrs(ctx);
      SmallVector<NamedAttribute> rowsAttrs{
          attrs.getNamedAttr("capacity", attrs.getI64IntegerAttr(cap)),
          attrs.getNamedAttr("max_dims", attrs.getDenseI64ArrayAttr(maxDims))};
      SmallVector<NamedAttribute> seqAttrs{
          attrs.getNamedAttr("fixed_dims", attrs.getDenseI64ArrayAttr(fixed))};
      if (mixed)
        seqAttrs.push_back(attrs.getNamedAttr("onnxcc.mixed_rank", attrs.getUnitAttr()));
      auto rows = [&](OpBuilder &b, Value seq) {
        return RaggedRowsOp::create(b, loc, TypeRange(triple), ValueRange{seq}, rowsAttrs);
      };
      auto sequence = [&](OpBuilder &b, ValueRange parts, Type type) {
        return RaggedSequenceOp::create(b, loc, TypeRange{type}, parts, seqAttrs)->getResult(0);
      };
      // The body: three arguments for the sequence, read back as one.
      BlockArgument arg = body.getArgument(2 + k);
      SmallVector<Value> parts;
      for (auto [j, t] : llvm::enumerate(triple))
        parts.push_back(body.insertArgument(3 + k + j, t, arg.getLoc()));
      OpBuilder bb = OpBuilder::atBlockBegin(&body);
      arg.replaceAllUsesWith(sequence(bb, parts, arg.getType()));
      body.eraseArgument(2 + k);
      Operation *yield = body.getTerminator();
      OpBuilder yb(yield);
      auto next = rows(yb, yield->getOperand(1 + k));
      SmallVector<Value> yielded(yield->getOperands());
      yielded.erase(yielded.begin() + 1 + k);
      yielded.insert(yielded.begin() + 1 + k, next->getResults().begin(),
                     next->getResults().end());
      yield->setOperands(yielded);
      // The Loop: the initial value's stack in, the result's out.
      OpBuilder b(loop);
      auto first = rows(b, init);
      SmallVector<Value> operands(loop->getOperands());
      operands.erase(operands.begin() + 2 + k);
      operands.insert(operands.begin() + 2 + k, first->getResults().begin(),
                      first->getResults().end());
      SmallVector<Type> types(loop->getResultTypes());
      Type seqType = types[k];
      types.erase(types.begin() + k);
      types.insert(types.begin() + k, triple.begin(), triple.end());
      LoopOp rebuilt = rebuildLoop(loop, operands, types);
      Value result = sequence(b, rebuilt->getResults().slice(k, 3), seqType);
      for (unsigned i = 0; i < loop->getNumResults(); ++i)
        loop->getResult(i).replaceAllUsesWith(i == k   ? result
                                              : i < k ? rebuilt->getResult(i)
                                                      : rebuilt->getResult(i + 2));
      loop->erase();
      loop = rebuilt;
      k += 2;
      changed = true;
    }
  }
  return changed;
}

/// Each Loop that walks a sequence whose elements differ in shape (a
/// SequenceAt at the iteration number of a SequenceConstruct of ragged
/// tensors: an expanded SequenceMap) is its body once per iteration, when
/// the trip count is known (a constant or that sequence's length), the
/// condition stays true and there are no scan outputs.
bool unrollLoopsOverLists(func::FuncOp func) {
  SmallVector<LoopOp> loops;
  func.walk([&](LoopOp loop) { loops.push_back(loop); });
  bool changed = false;
  for (LoopOp loop : loops) {
    Block &body = loop.getBody().front();
    Operation *yield = body.getTerminator();
    unsigned numCarried = loop.getVInitial().size();
    if (yield->getNumOperands() != 1 + numCarried)
      continue;
    bool ragged = false;
    body.walk([&](SequenceAtOp at) {
      if (auto elements = constructed(at.getInputSequence()))
        ragged |= !llvm::all_equal(llvm::map_range(*elements, [](Value e) { return e.getType(); }));
    });
    if (!ragged)
      continue;
    std::optional<int64_t> trips;
    if (auto length = loop.getM().getDefiningOp<SequenceLengthOp>()) {
      if (auto elements = constructed(length.getInputSequence()))
        trips = elements->size();
    } else if (!isa<NoneType>(loop.getM().getType())) {
      trips = scalarConstant(loop, loop.getM());
    }
    if (!trips || *trips < 0 || *trips > 256)
      continue;
    Value cond = loop.getCond();
    if (!isa<NoneType>(cond.getType()) && scalarConstant(loop, cond) != std::optional<int64_t>(1))
      continue;
    Value condOut = yield->getOperand(0);
    while (auto id = condOut.getDefiningOp<IdentityOp>())
      condOut = id.getInput();
    if (condOut != body.getArgument(1) &&
        (condOut.getParentBlock() != &body ||
         scalarConstant(condOut.getDefiningOp() ? condOut.getDefiningOp() : loop, condOut) !=
             std::optional<int64_t>(1)))
      continue;
    OpBuilder b(loop);
    auto scalar = [&](Type elem, int64_t value) {
      auto type = RankedTensorType::get({}, elem);
      Attribute attr = elem.isInteger(1)
                           ? DenseElementsAttr::get(type, value != 0)
                           : DenseElementsAttr::get(type, b.getIntegerAttr(elem, value));
      return ConstantOp::create(b, loop.getLoc(), TypeRange{type}, ValueRange{},
                                {b.getNamedAttr("value", attr)})
          ->getResult(0);
    };
    SmallVector<Value> carried(loop.getVInitial());
    Value alwaysTrue = scalar(b.getI1Type(), 1);
    for (int64_t i = 0; i < *trips; ++i) {
      IRMapping mapping;
      mapping.map(body.getArgument(0), scalar(b.getI64Type(), i));
      mapping.map(body.getArgument(1), alwaysTrue);
      for (unsigned k = 0; k < numCarried; ++k)
        mapping.map(body.getArgument(2 + k), carried[k]);
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      for (unsigned k = 0; k < numCarried; ++k)
        carried[k] = mapping.lookupOrDefault(yield->getOperand(1 + k));
    }
    for (unsigned k = 0; k < numCarried; ++k)
      loop->getResult(k).replaceAllUsesWith(carried[k]);
    loop->erase();
    changed = true;
  }
  return changed;
}

/// Each SequenceMap whose sequence inputs are SequenceConstructs of one
/// length becomes its body once per element, its results SequenceConstructs
/// of the bodies' results.
bool unrollSequenceMaps(func::FuncOp func) {
  SmallVector<SequenceMapOp> maps;
  func.walk([&](SequenceMapOp map) { maps.push_back(map); });
  bool changed = false;
  for (SequenceMapOp map : maps) {
    SmallVector<std::optional<SmallVector<Value>>> elements;
    std::optional<size_t> length;
    bool known = true;
    for (Value in : map->getOperands()) {
      elements.push_back(std::nullopt);
      if (!isa<SeqType>(in.getType()))
        continue;
      elements.back() = constructed(in);
      known &= elements.back().has_value() &&
               (!length || *length == elements.back()->size());
      if (elements.back())
        length = elements.back()->size();
    }
    if (!known || !length || *length == 0)
      continue;
    OpBuilder b(map);
    Block &body = map.getBody().front();
    SmallVector<SmallVector<Value>> outputs(map->getNumResults());
    for (size_t i = 0; i < *length; ++i) {
      IRMapping mapping;
      for (auto [j, arg] : llvm::enumerate(body.getArguments()))
        mapping.map(arg, elements[j] ? (*elements[j])[i] : map->getOperand(j));
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      for (auto [j, v] : llvm::enumerate(body.getTerminator()->getOperands()))
        outputs[j].push_back(mapping.lookupOrDefault(v));
    }
    for (auto [j, r] : llvm::enumerate(map->getResults()))
      r.replaceAllUsesWith(
          SequenceConstructOp::create(b, map.getLoc(), TypeRange{r.getType()}, outputs[j])
              ->getResult(0));
    map->erase();
    changed = true;
  }
  return changed;
}

struct OnnxStackSequencesPass
    : public impl::OnnxStackSequencesPassBase<OnnxStackSequencesPass> {
  void runOnOperation() override {
    if (getOperation().isExternal())
      return;
    // Optional(seq) followed by OptionalGetElement is the sequence itself.
    resolveOptionals(getOperation());
    // Loops over ragged sequences, one body per element, before their
    // appended sequences become scan outputs (which must be one shape).
    if (unrollLoopsOverLists(getOperation()) && failed(inferShapesInFunction(getOperation())))
      return signalPassFailure();
    // The scan outputs that replace appended sequences need their shapes.
    // When compiling, a tensor whose dims the data decides is appended
    // padded to their bounds.
    std::optional<ShapeMap> bounds;
    if (getOperation()->hasAttr("onnxcc.runtime_sequences")) {
      ScopedDiagnosticHandler quiet(&getContext(), [](Diagnostic &) { return success(); });
      bounds.emplace();
      (void)inferShapesInFunction(getOperation(), &*bounds);
    }
    if (appendedSequencesToScanOutputs(getOperation(), bounds ? &*bounds : nullptr) &&
        failed(inferShapesInFunction(getOperation())))
      return signalPassFailure();
    // Sequences a Loop carries and changes otherwise: their ragged stacks.
    if (bounds && carriedSequencesToRagged(getOperation(), *bounds) &&
        failed(inferShapesInFunction(getOperation())))
      return signalPassFailure();
    // A SequenceMap's Loop knows its trip count once the lengths of the
    // sequences it reads are: stacked, inferred, then stacked again.
    // A SequenceMap over sequences whose elements are known (an input
    // sequence, ragged or not) is its body once per element.
    if (unrollSequenceMaps(getOperation()) && failed(inferShapesInFunction(getOperation())))
      return signalPassFailure();
    if (sequenceMapsToLoops(getOperation())) {
      if (failed(SequenceStacker(getOperation()).run()) ||
          failed(inferShapesInFunction(getOperation())))
        return signalPassFailure();
    }
    // Output sequences that only shapes inferred from this run make known (a
    // Loop's scan output of a trip count a SequenceLength gives) need one
    // more.
    func::FuncOp func = getOperation();
    auto sequenceResults = [&] {
      return llvm::any_of(func.getResultTypes(), [](Type t) { return isa<SeqType>(t); });
    };
    if (failed(SequenceStacker(func).run(/*expand=*/!sequenceResults() ||
                                         !func->hasAttr("onnxcc.io_outputs"))))
      return signalPassFailure();
    if (sequenceResults() && func->hasAttr("onnxcc.io_outputs") &&
        (failed(inferShapesInFunction(func)) || failed(SequenceStacker(func).run())))
      return signalPassFailure();
  }
};
} // namespace

} // namespace onnxcc::onnx
