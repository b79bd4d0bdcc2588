//===- Optionals.cpp - Optionals whose presence is known -----------------===//
//
// Inside a graph, whether an optional holds a value is known when it is
// made: Optional(x) holds x, Optional() (or an absent input) holds nothing,
// and a tensor or sequence given where an optional is expected is present.
// OptionalHasElement then becomes a constant and OptionalGetElement the value
// itself; the Optional ops nothing reads any more go away. Optionals at the
// graph's boundary (inputs and outputs) are not handled here.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace onnxcc::onnx {

namespace {
/// The value `v` holds when known: the present value (null when empty).
/// False when it is not known (a function argument, a loop-carried value).
bool knownContent(Value v, Value &content) {
  if (isa<NoneType>(v.getType())) {
    content = {};
    return true;
  }
  if (!isa<OptType>(v.getType())) {
    content = v;
    return true;
  }
  auto opt = v.getDefiningOp<OptionalOp>();
  if (!opt)
    return false;
  Value input = opt.getInput();
  content = input && !isa<NoneType>(input.getType()) ? input : Value();
  return true;
}
} // namespace

void resolveOptionals(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<OptionalHasElementOp, OptionalGetElementOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    Value content;
    if (!knownContent(op->getOperand(0), content))
      continue;
    if (isa<OptionalHasElementOp>(op)) {
      OpBuilder b(op);
      auto type = RankedTensorType::get({}, b.getI1Type());
      auto c = ConstantOp::create(
          b, op->getLoc(), TypeRange{type}, ValueRange{},
          {b.getNamedAttr("value", DenseElementsAttr::get(type, static_cast<bool>(content)))});
      op->getResult(0).replaceAllUsesWith(c->getResult(0));
      op->erase();
      continue;
    }
    // OptionalGetElement of an empty optional is the model's error, left to
    // the lowering to report; of a value, that value (same type or refined).
    if (!content)
      continue;
    Value result = op->getResult(0);
    if (result.getType() != content.getType() &&
        !(isa<TensorType>(result.getType()) && isa<TensorType>(content.getType())) &&
        !(isa<SeqType>(result.getType()) && isa<SeqType>(content.getType())))
      continue;
    result.replaceAllUsesWith(content);
    op->erase();
  }
  SmallVector<OptionalOp> unused;
  func.walk([&](OptionalOp op) {
    if (op->use_empty())
      unused.push_back(op);
  });
  for (OptionalOp op : unused)
    op->erase();
}

//===----------------------------------------------------------------------===//
// Sequences and optionals at the graph's boundary
//===----------------------------------------------------------------------===//
//
// The generated code takes and returns tensors only (codegen/cpp/ABI.md,
// "Sequences and optionals" says how the C interface groups them). Each
// graph input or output gets an entry in the function's onnxcc.io_inputs /
// onnxcc.io_outputs ({name, kind, count, elem_type}), and each tensor port
// the index of its entry (onnxcc.io) and its role in it (onnxcc.role):
//
//   tensor             one port, role "value"
//   sequence           one port per element ("element", onnxcc.element = k),
//                      or its stack [count, S...] ("stack"), or none (count 0)
//   optional           a bool scalar ("flag") and the value's port(s)
//
// An input sequence's element count and element shapes are fixed at
// compile time (onnxcc.sequence_shapes, from --sequence): it becomes one
// tensor argument per element and a SequenceConstruct of them. An input
// optional becomes its flag and its value; OptionalHasElement reads the
// flag and OptionalGetElement the value. Output sequences are made into
// ports by onnx-stack-sequences (expandSequenceResults), once it knows them.

namespace {
NamedAttribute named(MLIRContext *ctx, StringRef name, Attribute value) {
  return NamedAttribute(StringAttr::get(ctx, name), value);
}

/// The attributes of a port of entry `io` with `role` (and element `k`).
DictionaryAttr portAttrs(MLIRContext *ctx, ArrayRef<NamedAttribute> base, int64_t io,
                         StringRef role, int64_t element = -1) {
  Builder b(ctx);
  NamedAttrList attrs(base);
  attrs.set("onnxcc.io", b.getI64IntegerAttr(io));
  attrs.set("onnxcc.role", b.getStringAttr(role));
  if (element >= 0)
    attrs.set("onnxcc.element", b.getI64IntegerAttr(element));
  return attrs.getDictionary(ctx);
}

DictionaryAttr ioEntry(MLIRContext *ctx, StringRef name, StringRef kind, int64_t count,
                       Type elemType) {
  Builder b(ctx);
  SmallVector<NamedAttribute> attrs{named(ctx, "name", b.getStringAttr(name)),
                                    named(ctx, "kind", b.getStringAttr(kind)),
                                    named(ctx, "count", b.getI64IntegerAttr(count))};
  if (elemType)
    attrs.push_back(named(ctx, "elem_type", TypeAttr::get(elemType)));
  return DictionaryAttr::get(ctx, attrs);
}

/// The element (tensor) type of a sequence or optional type, recursively.
Type tensorElementType(Type t) {
  if (auto seq = dyn_cast<SeqType>(t))
    return tensorElementType(seq.getElementType());
  if (auto opt = dyn_cast<OptType>(t))
    return tensorElementType(opt.getElementType());
  if (auto tensor = dyn_cast<TensorType>(t))
    return tensor.getElementType();
  return t;
}

Value boolConstant(OpBuilder &b, Location loc, bool value) {
  auto type = RankedTensorType::get({}, b.getI1Type());
  return ConstantOp::create(b, loc, TypeRange{type}, ValueRange{},
                            {b.getNamedAttr("value", DenseElementsAttr::get(type, value))})
      ->getResult(0);
}

/// A value of static tensor type `type` (zeros): what an absent optional
/// output holds.
Value zeros(OpBuilder &b, Location loc, RankedTensorType type) {
  Attribute zero = isa<FloatType>(type.getElementType())
                       ? Attribute(b.getFloatAttr(type.getElementType(), 0.0))
                       : Attribute(b.getIntegerAttr(type.getElementType(), 0));
  return ConstantOp::create(b, loc, TypeRange{type}, ValueRange{},
                            {b.getNamedAttr("value", DenseElementsAttr::get(type, zero))})
      ->getResult(0);
}

struct Expanded {
  Value flag;    // the optional's present flag (null for a sequence/tensor)
  Value content; // the tensor or the sequence
};

/// Carried value `k` of `loop`, an optional given as `value` (flag +
/// content), as two carried values: the content in its place and the flag
/// after the last carried value. In the body OptionalHasElement reads the
/// flag and OptionalGetElement the content; what the body yields for it
/// must be an optional whose content is known (a value, Optional(x),
/// Optional()) or the carried value itself. The Loop's result for it is
/// the content (its flag goes where nothing needs it unless the result is
/// read as an optional, which fails). Returns the new Loop, or null with an
/// error emitted.
LoopOp carryOptional(LoopOp loop, unsigned k, Expanded value, StringRef name) {
  Block &body = loop.getBody().front();
  Operation *yield = body.getTerminator();
  unsigned numCarried = loop.getVInitial().size();
  BlockArgument arg = body.getArgument(2 + k);
  auto fail = [&](const Twine &why) {
    loop->emitError() << "the optional input '" << name << "' is carried by 'onnx.Loop', "
                      << why;
    return LoopOp();
  };
  if (loop->getResult(k).getType() != value.content.getType() &&
      isa<OptType>(loop->getResult(k).getType()) && !loop->getResult(k).use_empty())
    return fail("whose result compile cannot give as an optional yet");
  // The body's uses of the carried optional: presence and content only.
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (!isa<OptionalHasElementOp, OptionalGetElementOp>(user) && user != yield)
      return fail("and the body gives it to '" + user->getName().getStringRef().str() +
                  "', which compile cannot give an optional at run time yet");
  }
  Value next = yield->getOperand(1 + k), nextContent;
  bool passThrough = next == arg;
  if (!passThrough && !knownContent(next, nextContent))
    return fail("and the body yields an optional whose presence is not known");
  if (!passThrough && !nextContent)
    return fail("and the body yields an empty optional for it");
  MLIRContext *ctx = loop.getContext();
  auto i1 = RankedTensorType::get({}, IntegerType::get(ctx, 1));
  // One content type for the initial value and what the body yields.
  // A sequence's elements may change across iterations (a Loop that
  // inserts into it): any shape.
  Type contentType = value.content.getType();
  if (isa<SeqType>(contentType)) {
    if (!passThrough && !isa<SeqType>(nextContent.getType()))
      return fail("and the body yields a value of another kind for it");
    contentType = SeqType::get(ctx, UnrankedTensorType::get(tensorElementType(contentType)));
  } else if (!passThrough && nextContent.getType() != contentType) {
    if (isa<TensorType>(contentType) && isa<TensorType>(nextContent.getType()))
      contentType = UnrankedTensorType::get(tensorElementType(contentType));
    else
      return fail("and the body yields a value of another kind for it");
  }
  arg.setType(contentType);
  Value flagArg = body.insertArgument(2 + numCarried, i1, arg.getLoc());
  for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
    if (isa<OptionalHasElementOp>(user)) {
      user->getResult(0).replaceAllUsesWith(flagArg);
      user->erase();
    } else if (isa<OptionalGetElementOp>(user)) {
      user->getResult(0).replaceAllUsesWith(arg);
      user->erase();
    }
  }
  // The body yields the content and the flag (true: a value).
  OpBuilder yb(yield);
  SmallVector<Value> yielded(yield->getOperands());
  Value nextFlag = passThrough ? Value(flagArg) : boolConstant(yb, yield->getLoc(), true);
  if (!passThrough)
    yielded[1 + k] = nextContent;
  yielded.insert(yielded.begin() + 1 + numCarried, nextFlag);
  yield->setOperands(yielded);

  SmallVector<Value> operands(loop->getOperands());
  operands[2 + k] = value.content;
  operands.insert(operands.begin() + 2 + numCarried, value.flag);
  SmallVector<Type> types(loop->getResultTypes());
  types[k] = contentType;
  types.insert(types.begin() + numCarried, i1);
  LoopOp rebuilt = rebuildLoop(loop, operands, types);
  for (unsigned i = 0; i < loop->getNumResults(); ++i)
    loop->getResult(i).replaceAllUsesWith(rebuilt->getResult(i < numCarried ? i : i + 1));
  loop->erase();
  return rebuilt;
}

/// Replaces the uses of optional `opt` (flag + content); return operands
/// are left for the caller, recorded in `returned`.
LogicalResult replaceOptional(Value opt, Expanded value, StringRef name,
                              DenseMap<Value, Expanded> &returned,
                              SmallVectorImpl<Operation *> &identities) {
  // A Loop that carries it carries its flag and content instead.
  for (OpOperand &use : llvm::make_early_inc_range(opt.getUses())) {
    auto loop = dyn_cast<LoopOp>(use.getOwner());
    if (!loop || use.getOperandNumber() < 2)
      continue;
    if (!carryOptional(loop, use.getOperandNumber() - 2, value, name))
      return failure();
  }
  for (Operation *user : llvm::make_early_inc_range(opt.getUsers())) {
    if (isa<func::ReturnOp>(user)) {
      returned[opt] = value;
      continue;
    }
    if (isa<OptionalHasElementOp>(user)) {
      user->getResult(0).replaceAllUsesWith(value.flag);
      user->erase();
      continue;
    }
    if (isa<OptionalGetElementOp>(user)) {
      user->getResult(0).replaceAllUsesWith(value.content);
      user->erase();
      continue;
    }
    if (isa<IdentityOp>(user)) {
      // Erased once the results no longer read it.
      identities.push_back(user);
      if (failed(replaceOptional(user->getResult(0), value, name, returned, identities)))
        return failure();
      continue;
    }
    return user->emitError() << "the optional input '" << name << "' reaches '"
                             << user->getName().getStringRef()
                             << "', which compile cannot give an optional at run time yet";
  }
  return success();
}
} // namespace


IfOp rebuildIf(IfOp op, ArrayRef<unsigned> keep, TypeRange extraTypes, ValueRange thenExtra,
               ValueRange elseExtra) {
  SmallVector<Type> types;
  for (unsigned k : keep)
    types.push_back(op->getResult(k).getType());
  llvm::append_range(types, extraTypes);
  OpBuilder b(op);
  OperationState state(op.getLoc(), op->getName());
  state.addOperands(op->getOperands());
  state.addAttributes(op->getAttrs());
  state.addTypes(types);
  state.addRegion()->takeBody(op.getThenBranch());
  state.addRegion()->takeBody(op.getElseBranch());
  auto rebuilt = cast<IfOp>(b.create(state));
  for (auto [region, extra] : {std::make_pair(&rebuilt.getThenBranch(), thenExtra),
                               std::make_pair(&rebuilt.getElseBranch(), elseExtra)}) {
    Operation *yield = region->front().getTerminator();
    SmallVector<Value> values;
    for (unsigned k : keep)
      values.push_back(yield->getOperand(k));
    llvm::append_range(values, extra);
    yield->setOperands(values);
  }
  for (auto [i, k] : llvm::enumerate(keep))
    op->getResult(k).replaceAllUsesWith(rebuilt->getResult(i));
  op->erase();
  return rebuilt;
}

namespace {
/// The flag and the content of optional results `ks` of `op`, when both
/// branches yield an optional whose content is known (Optional(x),
/// Optional(), a value): `op` becomes an If that yields them instead (an
/// absent tensor as zeros of its static type, an absent sequence as an
/// empty one). Failure, with `op` unchanged, when a branch's optional is not
/// known or an absent tensor has no static type.
FailureOr<SmallVector<Expanded>> expandOptionalIf(IfOp op, ArrayRef<unsigned> ks) {
  Region *regions[2] = {&op.getThenBranch(), &op.getElseBranch()};
  SmallVector<Type> types;
  SmallVector<Value> extra[2];
  SmallVector<Operation *> made;
  auto undo = [&] {
    for (Operation *m : llvm::reverse(made))
      m->erase();
    return failure();
  };
  for (unsigned k : ks) {
    Type content = cast<OptType>(op->getResult(k).getType()).getElementType();
    Value known[2];
    for (auto [i, region] : llvm::enumerate(regions))
      if (!knownContent(region->front().getTerminator()->getOperand(k), known[i]))
        return undo();
    for (auto [i, region] : llvm::enumerate(regions)) {
      Operation *yield = region->front().getTerminator();
      OpBuilder b(yield);
      Location loc = yield->getLoc();
      Value v = yield->getOperand(k), value = known[i];
      Value flag = boolConstant(b, loc, static_cast<bool>(value));
      made.push_back(flag.getDefiningOp());
      if (!value) {
        Type absent = content;
        if (auto opt = v.getDefiningOp<OptionalOp>(); opt && opt.getType_Attr())
          absent = opt.getType_Attr().getValue();
        if (isa<SeqType>(absent)) {
          value = SequenceEmptyOp::create(b, loc, TypeRange{absent}, ValueRange{})->getResult(0);
        } else {
          auto declared = dyn_cast<RankedTensorType>(absent);
          if (!declared || !declared.hasStaticShape())
            return undo();
          value = zeros(b, loc, declared);
        }
        made.push_back(value.getDefiningOp());
      }
      extra[i].push_back(flag);
      extra[i].push_back(value);
    }
    // One type for both branches' contents: the sequence type, or the
    // tensor type they share (else unranked; shape inference refines it).
    Value a = extra[0].back(), c = extra[1].back();
    Type contentType = content;
    if (!isa<SeqType>(content))
      contentType = a.getType() == c.getType()
                        ? a.getType()
                        : UnrankedTensorType::get(cast<TensorType>(a.getType()).getElementType());
    types.push_back(RankedTensorType::get({}, IntegerType::get(op.getContext(), 1)));
    types.push_back(contentType);
  }
  SmallVector<unsigned> keep;
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    if (!llvm::is_contained(ks, i))
      keep.push_back(i);
  for (unsigned k : ks)
    op->getResult(k).dropAllUses();
  IfOp rebuilt = rebuildIf(op, keep, types, extra[0], extra[1]);
  SmallVector<Expanded> out;
  for (size_t j = 0; j < ks.size(); ++j)
    out.push_back({rebuilt->getResult(keep.size() + 2 * j),
                   rebuilt->getResult(keep.size() + 2 * j + 1)});
  return out;
}
} // namespace

LogicalResult expandBoundaryValues(func::FuncOp func) {
  auto isBoundaryType = [](Type t) { return isa<SeqType, OptType>(t); };
  if (!llvm::any_of(func.getArgumentTypes(), isBoundaryType) &&
      !llvm::any_of(func.getResultTypes(), isBoundaryType))
    return success();
  MLIRContext *ctx = func.getContext();
  Block &entry = func.getBody().front();
  Location loc = func.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  unsigned numOld = entry.getNumArguments();
  SmallVector<Attribute> ioInputs;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<Type> argTypes;
  DenseMap<Value, Expanded> returned;
  SmallVector<Operation *> identities;
  auto addArg = [&](Type type, DictionaryAttr attrs) {
    argTypes.push_back(type);
    argAttrs.push_back(attrs);
    return entry.addArgument(type, loc);
  };
  for (unsigned i = 0; i < numOld; ++i) {
    BlockArgument old = entry.getArgument(i);
    SmallVector<NamedAttribute> base;
    if (DictionaryAttr dict = func.getArgAttrDict(i))
      base.assign(dict.begin(), dict.end());
    auto nameAttr = func.getArgAttrOfType<StringAttr>(i, "onnx.name");
    StringRef name = nameAttr ? nameAttr.getValue() : StringRef("?");
    SmallVector<NamedAttribute> nameOnly;
    if (nameAttr)
      nameOnly.push_back(named(ctx, "onnx.name", nameAttr));
    int64_t io = ioInputs.size();
    Type type = old.getType();
    if (!isBoundaryType(type)) {
      old.replaceAllUsesWith(addArg(type, portAttrs(ctx, base, io, "value")));
      ioInputs.push_back(ioEntry(ctx, name, "tensor", 0, {}));
      continue;
    }
    bool optional = isa<OptType>(type);
    Type content = optional ? cast<OptType>(type).getElementType() : type;
    Expanded value;
    if (optional)
      value.flag = addArg(RankedTensorType::get({}, b.getI1Type()),
                          portAttrs(ctx, nameOnly, io, "flag"));
    int64_t count = 0;
    if (auto seq = dyn_cast<SeqType>(content)) {
      auto shapes = func.getArgAttrOfType<ArrayAttr>(i, "onnxcc.sequence_shapes");
      if (!shapes)
        return emitError(loc) << "input '" << name
                              << "' is a sequence: give its element count and element shapes "
                                 "with --sequence "
                              << name << "=[D0xD1...],[...] (the compiled code takes those)";
      Type elem = tensorElementType(seq);
      SmallVector<Value> elements;
      for (auto [k, shape] : llvm::enumerate(shapes.getAsRange<DenseI64ArrayAttr>())) {
        auto declared = dyn_cast<RankedTensorType>(seq.getElementType());
        if (declared && declared.getRank() != static_cast<int64_t>(shape.size()))
          return emitError(loc) << "--sequence " << name << ": element " << k << " has rank "
                                << shape.size() << ", the model declares " << declared.getRank();
        for (auto [d, dim] : llvm::enumerate(shape.asArrayRef()))
          if (declared && !declared.isDynamicDim(d) && declared.getDimSize(d) != dim)
            return emitError(loc) << "--sequence " << name << ": dim " << d << " of element "
                                  << k << " is " << dim << ", the model declares "
                                  << declared.getDimSize(d);
        elements.push_back(addArg(RankedTensorType::get(shape.asArrayRef(), elem),
                                  portAttrs(ctx, nameOnly, io, "element", k)));
      }
      count = elements.size();
      value.content = elements.empty()
                          ? SequenceEmptyOp::create(b, loc, TypeRange{seq}, ValueRange{})
                                ->getResult(0)
                          : SequenceConstructOp::create(b, loc, TypeRange{seq}, elements)
                                ->getResult(0);
    } else {
      auto tensor = dyn_cast<RankedTensorType>(content);
      if (auto given = func.getArgAttrOfType<DenseI64ArrayAttr>(i, "onnxcc.content_shape"))
        tensor = RankedTensorType::get(given.asArrayRef(), tensorElementType(content));
      if (!tensor || !tensor.hasStaticShape())
        return emitError(loc) << "input '" << name
                              << "' is an optional tensor of unknown shape: give it with "
                                 "--shape "
                              << name << "=D0xD1x...";
      value.content = addArg(tensor, portAttrs(ctx, nameOnly, io, "value"));
    }
    StringRef kind = optional ? (isa<SeqType>(content) ? "optional_sequence" : "optional")
                              : "sequence";
    ioInputs.push_back(ioEntry(ctx, name, kind, count, tensorElementType(type)));
    if (optional) {
      if (failed(replaceOptional(old, value, name, returned, identities)))
        return failure();
    } else {
      old.replaceAllUsesWith(value.content);
    }
  }

  // The results: optionals become their flag and value. Those an If makes
  // at run time first, all of one If at once (the If is rebuilt).
  Operation *ret = entry.getTerminator();
  DenseMap<unsigned, Expanded> fromIfs;
  {
    llvm::MapVector<Operation *, SmallVector<std::pair<unsigned, unsigned>>> byIf;
    for (auto [k, v] : llvm::enumerate(ret->getOperands()))
      if (isa<OptType>(v.getType()) && !returned.count(v) && v.hasOneUse())
        if (auto ifOp = v.getDefiningOp<IfOp>())
          byIf[ifOp].push_back({static_cast<unsigned>(k), cast<OpResult>(v).getResultNumber()});
    for (auto &[op, pairs] : byIf) {
      SmallVector<unsigned> ks;
      for (auto [k, r] : pairs)
        ks.push_back(r);
      auto expanded = expandOptionalIf(cast<IfOp>(op), ks);
      if (failed(expanded))
        continue;
      for (auto [j, pair] : llvm::enumerate(pairs))
        fromIfs[pair.first] = (*expanded)[j];
    }
  }
  b.setInsertionPoint(ret);
  SmallVector<Value> results;
  SmallVector<Attribute> resultAttrs, ioOutputs;
  for (auto [k, v] : llvm::enumerate(ret->getOperands())) {
    SmallVector<NamedAttribute> base;
    if (DictionaryAttr dict = func.getResultAttrDict(k))
      base.assign(dict.begin(), dict.end());
    auto nameAttr = func.getResultAttrOfType<StringAttr>(k, "onnx.name");
    StringRef name = nameAttr ? nameAttr.getValue() : StringRef("?");
    SmallVector<NamedAttribute> nameOnly;
    if (nameAttr)
      nameOnly.push_back(named(ctx, "onnx.name", nameAttr));
    int64_t io = ioOutputs.size();
    // An If decides at run time whether the optional holds its value (its
    // operand here is gone: the If was rebuilt).
    auto fromIf = fromIfs.find(k);
    Type type = fromIf != fromIfs.end() ? Type() : v.getType();
    if (type && !isa<OptType>(type)) {
      bool seq = isa<SeqType>(type);
      results.push_back(v);
      resultAttrs.push_back(portAttrs(ctx, base, io, seq ? "sequence" : "value"));
      ioOutputs.push_back(ioEntry(ctx, name, seq ? "sequence" : "tensor", 0,
                                  seq ? tensorElementType(type) : Type()));
      continue;
    }
    Expanded value;
    if (fromIf != fromIfs.end()) {
      value = fromIf->second;
    } else if (auto it = returned.find(v); it != returned.end()) {
      value = it->second;
    } else if (auto opt = v.getDefiningOp<OptionalOp>()) {
      Value input = opt.getInput();
      if (input && !isa<NoneType>(input.getType())) {
        value = {boolConstant(b, loc, true), input};
      } else {
        // Absent: the value's buffer holds zeros of the declared type.
        auto declared = dyn_cast<RankedTensorType>(cast<OptType>(type).getElementType());
        if (auto attr = opt.getType_Attr())
          declared = dyn_cast<RankedTensorType>(attr.getValue());
        if (!declared || !declared.hasStaticShape())
          return opt->emitError() << "output '" << name
                                  << "' is an empty optional of a type without a static shape, "
                                     "which compile cannot return yet";
        value = {boolConstant(b, loc, false), zeros(b, loc, declared)};
      }
    } else {
      return emitError(v.getLoc()) << "output '" << name
                                   << "' is an optional whose presence compile cannot "
                                      "follow yet (made by '"
                                   << (v.getDefiningOp() ? v.getDefiningOp()->getName().getStringRef()
                                                         : StringRef("an argument"))
                                   << "')";
    }
    bool seq = isa<SeqType>(value.content.getType());
    results.push_back(value.flag);
    resultAttrs.push_back(portAttrs(ctx, nameOnly, io, "flag"));
    results.push_back(value.content);
    resultAttrs.push_back(portAttrs(ctx, base, io, seq ? "sequence" : "value"));
    ioOutputs.push_back(ioEntry(ctx, name, seq ? "optional_sequence" : "optional", 0,
                                tensorElementType(value.content.getType())));
  }
  ret->setOperands(results);
  for (Operation *op : llvm::reverse(identities))
    op->erase();
  entry.eraseArguments(0, numOld);
  SmallVector<Type> resultTypes;
  for (Value v : results)
    resultTypes.push_back(v.getType());
  func.setType(FunctionType::get(ctx, argTypes, resultTypes));
  func.setAllArgAttrs(argAttrs);
  SmallVector<DictionaryAttr> resultDicts;
  for (Attribute a : resultAttrs)
    resultDicts.push_back(cast<DictionaryAttr>(a));
  func.setAllResultAttrs(resultDicts);
  func->setAttr("onnxcc.io_inputs", ArrayAttr::get(ctx, ioInputs));
  func->setAttr("onnxcc.io_outputs", ArrayAttr::get(ctx, ioOutputs));
  return success();
}

} // namespace onnxcc::onnx
