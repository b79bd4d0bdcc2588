//===- ClassicalML.cpp - ai.onnx.ml ops to calls into runtime-support ----===//
//
// Each ai.onnx.ml op becomes one call into runtime-support/onnxcc_ml.h. Its
// attributes are read, checked and turned into constant arrays here, at
// compile time: tree ensembles (all three ops, every version) into one
// flattened node array whose children are node indices or leaves, lookup
// tables (LabelEncoder, CategoryMapper, OneHotEncoder) into sorted keys with
// their values. Strings the model holds (keys, values, class labels) become
// one constant block of NUL-terminated strings and offsets into it. The
// kernels are templates: the element types of the buffers choose them.
//
// A tree ensemble call runs in --threads parts over the rows.
//
// The rows may be a symbolic dim (skl2onnx writes X as [None, C]): the
// counts the calls take are then run-time values and the results have that
// dim; the features (and every other dim but the leading ones) are static.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>

using namespace mlir;

namespace onnxcc::lowering {
namespace {

/// Strings packed NUL-terminated one after the other, and their offsets.
struct StringTable {
  std::string bytes;
  SmallVector<int64_t> offsets;
  /// False when a string holds a NUL (it could not be told apart).
  bool add(StringRef s) {
    if (s.contains('\0'))
      return false;
    offsets.push_back(bytes.size());
    bytes += s.str();
    bytes.push_back('\0');
    return true;
  }
};

/// The product of the first `count` dims of tensor `t` (all of them when -1).
OpFoldResult leadingElements(OpBuilder &b, Location loc, Value t, int64_t count = -1) {
  int64_t rank = cast<RankedTensorType>(t.getType()).getRank();
  return dimProduct(b, loc, t, 0, count < 0 ? rank : count);
}

/// Whether `t` holds `rows` x `perRow` elements: static and that many, or,
/// for rows known only at run time, its first dim dynamic (shape inference
/// gave it the rows' symbol) and the others static, multiplying to perRow.
bool rowsTimes(RankedTensorType t, OpFoldResult rows, int64_t perRow) {
  if (std::optional<int64_t> n = getConstantIntValue(rows))
    return t.hasStaticShape() && t.getNumElements() == *n * perRow;
  if (t.getRank() < 1 || !t.isDynamicDim(0))
    return false;
  int64_t rest = 1;
  for (int64_t d = 1; d < t.getRank(); ++d) {
    if (t.isDynamicDim(d))
      return false;
    rest *= t.getDimSize(d);
  }
  return rest == perRow;
}

/// The converted type of result `i` of an ml op, static or with symbolic
/// dims, and the sizes of those; a null type after a match failure.
struct MLResult {
  RankedTensorType type;
  SmallVector<Value> sizes;
  explicit operator bool() const { return static_cast<bool>(type); }
};
MLResult mlResult(ConversionPatternRewriter &rewriter, const TypeConverter *converter,
                  Operation *op, unsigned i = 0) {
  auto r = symbolicResultType(rewriter, converter, op, i);
  if (failed(r))
    return {};
  return {r->first, r->second};
}

/// A call being assembled: its operands (buffers and scalars), its result
/// buffers, then the call itself.
class RuntimeCall {
public:
  RuntimeCall(ConversionPatternRewriter &rewriter, Operation *op)
      : b(rewriter), op(op), loc(op->getLoc()) {}

  /// A converted tensor, read only.
  void input(Value tensor) { args.push_back(flatBuffer(b, loc, tensor, /*readOnly=*/true)); }

  /// A 1-D constant array (a single zero when `values` is empty: an array of
  /// no element is never read).
  template <typename T> void constant(ArrayRef<T> values, Type elem) {
    SmallVector<T> data(values.begin(), values.end());
    if (data.empty())
      data.push_back(T());
    auto type = RankedTensorType::get({static_cast<int64_t>(data.size())}, elem);
    input(arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, ArrayRef<T>(data))));
  }
  void i64s(ArrayRef<int64_t> v) { constant(v, b.getI64Type()); }
  void chars(StringRef bytes) {
    SmallVector<int8_t> data(bytes.begin(), bytes.end());
    data.push_back(0);
    constant(ArrayRef<int8_t>(data), b.getI8Type());
  }
  /// Floating-point values in `elem` (f32 or f64).
  void reals(ArrayRef<double> v, Type elem) {
    if (elem.isF64()) {
      constant(v, elem);
      return;
    }
    SmallVector<float> f(v.begin(), v.end());
    constant(ArrayRef<float>(f), elem);
  }
  void index(int64_t v) { args.push_back(indexConst(b, loc, v)); }
  /// A count, constant or known at run time.
  void index(OpFoldResult v) {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      index(*c);
    else
      args.push_back(cast<Value>(v));
  }
  /// A classifier's labels (classLabels): the ints or string offsets, the
  /// string bytes, and whether they are strings.
  void labels(const std::pair<SmallVector<int64_t>, StringTable> &l, bool strings) {
    i64s(l.first);
    chars(l.second.bytes);
    flag(strings);
  }
  void i32(int32_t v) { args.push_back(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v))); }
  void flag(bool v) { args.push_back(arith::ConstantOp::create(b, loc, b.getBoolAttr(v))); }
  /// A scratch or result buffer of `type` (its dynamic dims `sizes`);
  /// results are taken by `result`.
  void output(RankedTensorType type, ValueRange sizes = {}) {
    Value buffer = flatBuffer(b, loc, emptyTensor(b, loc, type, sizes), /*readOnly=*/false);
    outputs.push_back({buffer, type, SmallVector<Value>(sizes)});
    args.push_back(buffer);
  }
  void output(const MLResult &r) { output(r.type, r.sizes); }
  /// Marks the operand added next as the part index of a call in `parts`.
  void partOperand(int64_t numParts) {
    part = args.size();
    parts = numParts;
    index(0);
  }

  /// Emits the call to `cName` (a template the operand types instantiate).
  void emit(StringRef cName) {
    SmallVector<Type> types;
    for (Value v : args)
      types.push_back(v.getType());
    auto type = FunctionType::get(op->getContext(), types, {b.getI32Type()});
    // One declaration per instantiation: its name spells the operand types.
    std::string symbol;
    llvm::raw_string_ostream os(symbol);
    os << cName << "_" << type;
    for (char &c : symbol)
      if (!llvm::isAlnum(c))
        c = '_';
    func::FuncOp callee = declareRuntimeFunction(b, op, symbol, cName, type, stringPool);
    auto call = func::CallOp::create(b, loc, callee, args);
    if (parts > 1) {
      call->setAttr("onnxcc.parts", b.getI64IntegerAttr(parts));
      call->setAttr("onnxcc.part_operand", b.getI64IntegerAttr(part));
    }
  }
  /// Output buffer `i` as a tensor of its type.
  Value result(unsigned i) {
    const Output &out = outputs[i];
    if (out.type.hasStaticShape())
      return tensorFromFlatBuffer(b, loc, out.buffer, out.type);
    return resultTensor(b, loc, out.buffer, out.type, out.sizes);
  }

  ConversionPatternRewriter &b;

private:
  Operation *op;
  Location loc;
  SmallVector<Value> args;
  struct Output {
    Value buffer;
    RankedTensorType type;
    SmallVector<Value> sizes;
  };
  SmallVector<Output> outputs;
  int64_t part = -1, parts = 1;

public:
  /// The call writes strings: the model's string pool is its last argument.
  bool stringPool = false;
};

LogicalResult fail(Operation *op, const Twine &why) {
  return op->emitError("cannot lower '") << op->getName() << "': " << why;
}

/// The values of a FLOATS attribute or of its *_as_tensor (double) form.
SmallVector<double> realsOf(std::optional<ArrayRef<float>> floats,
                            std::optional<ElementsAttr> tensor) {
  SmallVector<double> out;
  if (tensor) {
    for (APFloat v : tensor->getValues<APFloat>()) {
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      out.push_back(v.convertToDouble());
    }
  } else if (floats) {
    out.assign(floats->begin(), floats->end());
  }
  return out;
}

/// The values of a tensor attribute as doubles (float types) or null.
std::optional<SmallVector<double>> tensorReals(ElementsAttr t) {
  if (!t || !isa<FloatType>(t.getElementType()))
    return std::nullopt;
  return realsOf(std::nullopt, t);
}

//===----------------------------------------------------------------------===//
// Tree ensembles
//===----------------------------------------------------------------------===//

/// Rows the tree kernels evaluate together (onnxcc_rt::ml::tree_block): the
/// size of their scratch per part.
constexpr int64_t kTreeBlock = 64;

/// A tree ensemble as the kernel reads it (see onnxcc_ml.h tree_ensemble).
struct FlatEnsemble {
  SmallVector<int64_t> feature, mode, onTrue, onFalse, memberBegin{0};
  SmallVector<double> split, members;
  SmallVector<int64_t> leafBegin{0}, leafTarget;
  SmallVector<double> leafWeight;
  SmallVector<int64_t> roots;
  int64_t numTargets = 0;

  /// Checks what the kernel relies on: children and features in range,
  /// targets below numTargets, and no node reachable from itself.
  LogicalResult check(Operation *op, int64_t numFeatures) const {
    int64_t nodes = feature.size(), leaves = leafBegin.size() - 1;
    // The kernel holds node and leaf indices (leaf l is node `nodes` + l)
    // and features in int32.
    if (nodes + leaves >= INT32_MAX || numFeatures >= INT32_MAX)
      return fail(op, "the ensemble has more than 2^31 nodes, leaves or features");
    auto validChild = [&](int64_t c) { return c >= 0 ? c < nodes : -1 - c < leaves; };
    for (int64_t i = 0; i < nodes; ++i) {
      if (!validChild(onTrue[i]) || !validChild(onFalse[i]))
        return fail(op, "node " + Twine(i) + " has a child out of range");
      if (feature[i] < 0 || (numFeatures >= 0 && feature[i] >= numFeatures))
        return fail(op, "node " + Twine(i) + " reads feature " + Twine(feature[i]) +
                            " of an input with " + Twine(numFeatures));
    }
    for (int64_t t : leafTarget)
      if (t < 0 || t >= numTargets)
        return fail(op,
                    "a leaf votes for target or class " + Twine(t) + " of " + Twine(numTargets));
    for (int64_t r : roots)
      if (!validChild(r))
        return fail(op, "a tree root is out of range");
    // Nodes in an order where children come after parents (no cycle).
    SmallVector<int64_t> indegree(nodes, 0);
    for (int64_t i = 0; i < nodes; ++i)
      for (int64_t c : {onTrue[i], onFalse[i]})
        if (c >= 0)
          ++indegree[c];
    SmallVector<int64_t> ready;
    for (int64_t i = 0; i < nodes; ++i)
      if (!indegree[i])
        ready.push_back(i);
    int64_t seen = 0;
    while (!ready.empty()) {
      int64_t i = ready.pop_back_val();
      ++seen;
      for (int64_t c : {onTrue[i], onFalse[i]})
        if (c >= 0 && --indegree[c] == 0)
          ready.push_back(c);
    }
    if (seen != nodes)
      return fail(op, "the trees have a cycle");
    return success();
  }

  /// Adds the ensemble's arrays to `call` (ONNXCC_ML_ENSEMBLE_PARAMS): the
  /// nodes packed as {feature, true child, false child, mode} in int32, then
  /// a node per leaf whose children are itself (a child that is leaf l
  /// becomes node N + l), the depth of each tree, and the mode every node
  /// shares when it is BRANCH_LEQ or BRANCH_LT (+ 8 when no missing value
  /// goes the true way; -1 otherwise), which selects the kernel's fast walk.
  /// Call after check().
  void addTo(RuntimeCall &call, int64_t numFeatures, Type s) const {
    int64_t nodes = feature.size(), leaves = leafBegin.size() - 1;
    auto node = [&](int64_t child) { return child >= 0 ? child : nodes + (-1 - child); };
    call.index(numFeatures);
    int32_t uniform = mode.empty() ? 0 : static_cast<int32_t>(mode[0] & 15);
    if (uniform > 1 || llvm::any_of(mode, [&](int64_t m) { return (m & 15) != uniform; }))
      uniform = -1;
    bool missingTrue = llvm::any_of(mode, [](int64_t m) { return (m & 16) != 0; });
    // A fast walk over float thresholds reads packed records (onnxcc_ml.h
    // uniform_packed): {feature | 2^31 when a missing value goes the true
    // way, the threshold's bits, true child, false child}.
    bool packedRecords = uniform >= 0 && numFeatures > 0 && s.isF32();
    SmallVector<int32_t> packed;
    for (int64_t i = 0; i < nodes; ++i) {
      if (packedRecords) {
        uint32_t bits = llvm::bit_cast<uint32_t>(static_cast<float>(split[i]));
        uint32_t f = static_cast<uint32_t>(feature[i]) | ((mode[i] & 16) ? 0x80000000u : 0u);
        for (uint32_t v : {f, bits, static_cast<uint32_t>(node(onTrue[i])),
                           static_cast<uint32_t>(node(onFalse[i]))})
          packed.push_back(static_cast<int32_t>(v));
        continue;
      }
      for (int64_t v : {feature[i], node(onTrue[i]), node(onFalse[i]), mode[i]})
        packed.push_back(static_cast<int32_t>(v));
    }
    SmallVector<double> splits(split);
    for (int64_t l = 0; l < leaves; ++l) {
      if (packedRecords) {
        for (int64_t v : {int64_t(0), int64_t(0), nodes + l, nodes + l})
          packed.push_back(static_cast<int32_t>(v));
      } else {
        for (int64_t v : {int64_t(0), nodes + l, nodes + l, int64_t(0)})
          packed.push_back(static_cast<int32_t>(v));
      }
      splits.push_back(0);
    }
    call.constant(ArrayRef<int32_t>(packed), call.b.getI32Type());
    call.reals(splits, s);
    call.index(nodes);
    // A leaf-only tree walks no node: the fast walk reads no feature then.
    call.i32(numFeatures <= 0 || uniform < 0
                 ? -1
                 : uniform + (missingTrue ? 0 : 8) + (packedRecords ? 16 : 0));
    call.i64s(memberBegin);
    call.reals(members, s);
    call.i64s(leafBegin);
    call.i64s(leafTarget);
    call.reals(leafWeight, s);
    SmallVector<int64_t> rootNodes;
    for (int64_t r : roots)
      rootNodes.push_back(node(r));
    call.i64s(rootNodes);
    call.i64s(depths());
    call.index(roots.size());
    call.index(numTargets);
  }

  /// The most nodes a walk from each root visits, in one pass over the
  /// nodes (acyclic, by check(); nodes may be shared, so no recursion).
  SmallVector<int64_t> depths() const {
    int64_t nodes = feature.size();
    SmallVector<int64_t> depth(nodes, -1);
    auto of = [&](int64_t c) { return c < 0 ? 0 : depth[c]; };
    SmallVector<int64_t> stack;
    for (int64_t start = 0; start < nodes; ++start) {
      stack.push_back(start);
      while (!stack.empty()) {
        int64_t i = stack.back();
        if (depth[i] >= 0) {
          stack.pop_back();
          continue;
        }
        bool ready = true;
        for (int64_t c : {onTrue[i], onFalse[i]})
          if (c >= 0 && depth[c] < 0) {
            stack.push_back(c);
            ready = false;
          }
        if (ready) {
          depth[i] = 1 + std::max(of(onTrue[i]), of(onFalse[i]));
          stack.pop_back();
        }
      }
    }
    SmallVector<int64_t> out;
    for (int64_t r : roots)
      out.push_back(of(r));
    return out;
  }
};

std::optional<int64_t> modeCode(StringRef m) {
  return llvm::StringSwitch<std::optional<int64_t>>(m)
      .Case("BRANCH_LEQ", 0)
      .Case("BRANCH_LT", 1)
      .Case("BRANCH_GTE", 2)
      .Case("BRANCH_GT", 3)
      .Case("BRANCH_EQ", 4)
      .Case("BRANCH_NEQ", 5)
      .Case("BRANCH_MEMBER", 6)
      .Case("LEAF", 7)
      .Default(std::nullopt);
}

std::optional<int32_t> postCode(StringRef p) {
  return llvm::StringSwitch<std::optional<int32_t>>(p)
      .Case("NONE", 0)
      .Case("SOFTMAX", 1)
      .Case("LOGISTIC", 2)
      .Case("SOFTMAX_ZERO", 3)
      .Case("PROBIT", 4)
      .Default(std::nullopt);
}

/// TreeEnsembleRegressor/Classifier 1 and 3: nodes keyed by (tree id, node
/// id), votes (`ids` the target or class of each) at LEAF nodes.
template <typename Op>
FailureOr<FlatEnsemble> flattenV3(Op op, ArrayRef<int64_t> voteTrees, ArrayRef<int64_t> voteNodes,
                                  ArrayRef<int64_t> ids, ArrayRef<double> weights,
                                  int64_t numTargets) {
  auto ints = [](std::optional<ArrayRef<int64_t>> a) { return a.value_or(ArrayRef<int64_t>()); };
  ArrayRef<int64_t> trees = ints(op.getNodesTreeids()), nodeIds = ints(op.getNodesNodeids());
  ArrayRef<int64_t> features = ints(op.getNodesFeatureids());
  ArrayRef<int64_t> onTrue = ints(op.getNodesTruenodeids());
  ArrayRef<int64_t> onFalse = ints(op.getNodesFalsenodeids());
  SmallVector<double> values = realsOf(op.getNodesValues(), op.getNodesValuesAsTensor());
  ArrayAttr modes = op.getNodesModes().value_or(ArrayAttr::get(op.getContext(), {}));
  auto missing = op.getNodesMissingValueTracksTrue();
  size_t n = trees.size();
  if (nodeIds.size() != n || features.size() != n || onTrue.size() != n || onFalse.size() != n ||
      modes.size() != n || values.size() != n ||
      (missing && !missing->empty() && missing->size() != n))
    return fail(op, "the nodes_* attributes differ in length");
  if (voteNodes.size() != voteTrees.size() || ids.size() != voteTrees.size() ||
      weights.size() != voteTrees.size())
    return fail(op, "the leaf vote attributes differ in length");
  std::map<std::pair<int64_t, int64_t>, int64_t> position;
  for (size_t i = 0; i < n; ++i)
    if (!position.emplace(std::make_pair(trees[i], nodeIds[i]), i).second)
      return fail(op,
                  "node " + Twine(nodeIds[i]) + " of tree " + Twine(trees[i]) + " is given twice");
  FlatEnsemble e;
  e.numTargets = numTargets;
  // Every LEAF node is a leaf; the others are nodes, in order.
  SmallVector<int64_t> code(n);
  std::map<int64_t, SmallVector<int64_t>> leafVotes;
  for (size_t j = 0; j < voteTrees.size(); ++j) {
    auto it = position.find({voteTrees[j], voteNodes[j]});
    if (it == position.end())
      return fail(op, "a vote is for node " + Twine(voteNodes[j]) + " of tree " +
                          Twine(voteTrees[j]) + ", which does not exist");
    leafVotes[it->second].push_back(j);
  }
  for (size_t i = 0; i < n; ++i) {
    auto m = modeCode(cast<StringAttr>(modes[i]).getValue());
    if (!m || *m == 6)
      return fail(op, "node mode '" + cast<StringAttr>(modes[i]).getValue() +
                          "' is not one of BRANCH_LEQ/LT/GTE/GT/EQ/NEQ and LEAF");
    if (*m == 7) {
      code[i] = -1 - static_cast<int64_t>(e.leafBegin.size() - 1);
      for (int64_t j : leafVotes[i]) {
        e.leafTarget.push_back(ids[j]);
        e.leafWeight.push_back(weights[j]);
      }
      e.leafBegin.push_back(e.leafTarget.size());
    } else {
      code[i] = e.feature.size();
      e.feature.push_back(features[i]);
      e.split.push_back(values[i]);
      bool tracksTrue = missing && !missing->empty() && (*missing)[i];
      e.mode.push_back(*m | (tracksTrue ? 16 : 0));
      e.memberBegin.push_back(0);
    }
  }
  SmallVector<bool> isChild(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (code[i] < 0)
      continue;
    for (auto [target, list] :
         {std::pair(onTrue[i], &e.onTrue), std::pair(onFalse[i], &e.onFalse)}) {
      auto it = position.find({trees[i], target});
      if (it == position.end())
        return fail(op, "node " + Twine(nodeIds[i]) + " of tree " + Twine(trees[i]) +
                            " has child " + Twine(target) + ", which does not exist");
      isChild[it->second] = true;
      list->push_back(code[it->second]);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (!isChild[i])
      e.roots.push_back(code[i]);
  return e;
}

/// TreeEnsemble 5: nodes are indices; a child is a leaf when its *leafs
/// flag is set; BRANCH_MEMBER sets follow each other in membership_values,
/// separated by NaN.
FailureOr<FlatEnsemble> flattenV5(onnx::MLTreeEnsembleOp op) {
  ArrayRef<int64_t> features = op.getNodesFeatureids();
  ArrayRef<int64_t> onTrue = op.getNodesTruenodeids(), onFalse = op.getNodesFalsenodeids();
  ArrayRef<int64_t> trueLeaf = op.getNodesTrueleafs(), falseLeaf = op.getNodesFalseleafs();
  auto splits = tensorReals(op.getNodesSplits());
  auto weights = tensorReals(op.getLeafWeights());
  if (!splits || !weights)
    return fail(op, "nodes_splits and leaf_weights must be float tensors");
  ElementsAttr modes = op.getNodesModes();
  size_t n = features.size();
  auto missing = op.getNodesMissingValueTracksTrue();
  if (onTrue.size() != n || onFalse.size() != n || trueLeaf.size() != n || falseLeaf.size() != n ||
      splits->size() != n || static_cast<size_t>(modes.getNumElements()) != n ||
      (missing && !missing->empty() && missing->size() != n))
    return fail(op, "the nodes_* attributes differ in length");
  if (op.getLeafTargetids().size() != weights->size())
    return fail(op, "leaf_targetids and leaf_weights differ in length");
  SmallVector<double> members;
  if (auto m = op.getMembershipValues()) {
    auto r = tensorReals(*m);
    if (!r)
      return fail(op, "membership_values must be a float tensor");
    members = *r;
  }
  FlatEnsemble e;
  e.numTargets = op.getNTargets() ? static_cast<int64_t>(*op.getNTargets()) : 0;
  size_t memberPos = 0;
  SmallVector<int64_t> modeValues;
  for (APInt v : modes.getValues<APInt>())
    modeValues.push_back(v.getZExtValue());
  for (size_t i = 0; i < n; ++i) {
    int64_t m = modeValues[i];
    if (m < 0 || m > 6)
      return fail(op, "node mode " + Twine(m) + " is not 0 to 6");
    e.feature.push_back(features[i]);
    e.split.push_back((*splits)[i]);
    bool tracksTrue = missing && !missing->empty() && (*missing)[i];
    e.mode.push_back(m | (tracksTrue ? 16 : 0));
    e.onTrue.push_back(trueLeaf[i] ? -1 - onTrue[i] : onTrue[i]);
    e.onFalse.push_back(falseLeaf[i] ? -1 - onFalse[i] : onFalse[i]);
    if (m == 6) {
      while (memberPos < members.size() && !std::isnan(members[memberPos]))
        e.members.push_back(members[memberPos++]);
      ++memberPos; // the NaN that ends the set
    }
    e.memberBegin.push_back(e.members.size());
  }
  for (size_t l = 0; l < weights->size(); ++l) {
    e.leafTarget.push_back(op.getLeafTargetids()[l]);
    e.leafWeight.push_back((*weights)[l]);
    e.leafBegin.push_back(l + 1);
  }
  e.roots.assign(op.getTreeRoots().begin(), op.getTreeRoots().end());
  return e;
}

/// X as [rows, features] (a 1-D X is one row): the rows static or known at
/// run time, the features static.
FailureOr<std::pair<OpFoldResult, int64_t>> rowsAndFeatures(OpBuilder &b, Operation *op,
                                                            Value x) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || (t.getRank() != 1 && t.getRank() != 2) || t.isDynamicDim(t.getRank() - 1))
    return fail(op, "X must be a [N, C] or [C] tensor with static C (pass --shape to fix it)");
  if (t.getRank() == 1)
    return std::make_pair(OpFoldResult(b.getIndexAttr(1)), t.getDimSize(0));
  return std::make_pair(tensor::getMixedSize(b, op->getLoc(), x, 0), t.getDimSize(1));
}

/// The number of parts a row loop of `rows` runs in for `threads` (all of
/// them when the rows are known only at run time; a part may get none).
int64_t partsFor(Operation *op, OpFoldResult rows) {
  auto module = op->getParentOfType<ModuleOp>();
  int64_t threads = 1;
  if (auto a = module->getAttrOfType<IntegerAttr>("onnxcc.threads"))
    threads = a.getInt();
  std::optional<int64_t> n = getConstantIntValue(rows);
  return std::max<int64_t>(1, n ? std::min(threads, *n) : threads);
}

/// The regression call shared by TreeEnsembleRegressor and TreeEnsemble.
LogicalResult lowerRegressor(ConversionPatternRewriter &rewriter, Operation *op, Value x,
                             const FlatEnsemble &e, Type s, int32_t aggregate, int32_t post,
                             ArrayRef<double> base, const MLResult &y) {
  auto dims = rowsAndFeatures(rewriter, op, x);
  if (failed(dims) || failed(e.check(op, dims->second)))
    return failure();
  if (!y || !rowsTimes(y.type, dims->first, e.numTargets))
    return fail(op, "the result is not [N, n_targets]");
  int64_t parts = partsFor(op, dims->first);
  RuntimeCall call(rewriter, op);
  call.input(x);
  call.index(dims->first);
  call.partOperand(parts);
  call.index(parts);
  e.addTo(call, dims->second, s);
  call.i32(aggregate);
  call.i32(post);
  call.reals(base, s);
  call.index(base.size());
  call.output(y);
  int64_t scratch = parts * kTreeBlock * std::max<int64_t>(1, e.numTargets);
  call.output(RankedTensorType::get({scratch}, s));
  call.output(RankedTensorType::get({scratch}, rewriter.getI8Type()));
  call.emit("onnxcc_rt::ml::tree_ensemble_regressor");
  rewriter.replaceOp(op, call.result(0));
  return success();
}

/// Whether any of the attributes is a *_as_tensor (double) one: the scores
/// then accumulate in double.
template <typename... A> Type scoreType(Builder &b, const A &...tensors) {
  return (static_cast<bool>(tensors) || ...) ? Type(b.getF64Type()) : Type(b.getF32Type());
}

struct TreeEnsembleLowering : OpConversionPattern<onnx::MLTreeEnsembleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLTreeEnsembleOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y)
      return failure();
    Type s = y.type.getElementType();
    if (!s.isF32() && !s.isF64())
      return fail(op, "only float and double inputs are supported");
    auto e = flattenV5(op);
    if (failed(e))
      return failure();
    int64_t aggregate = op.getAggregateFunction(), post = op.getPostTransform();
    if (aggregate < 0 || aggregate > 3 || post < 0 || post > 4)
      return fail(op, "aggregate_function or post_transform is out of range");
    return lowerRegressor(rewriter, op, adaptor.getX(), *e, s, aggregate, post, {}, y);
  }
};

struct TreeEnsembleRegressorLowering : OpConversionPattern<onnx::MLTreeEnsembleRegressorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLTreeEnsembleRegressorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y)
      return failure();
    auto trees = op.getTargetTreeids(), nodes = op.getTargetNodeids(), ids = op.getTargetIds();
    SmallVector<double> weights = realsOf(op.getTargetWeights(), op.getTargetWeightsAsTensor());
    int64_t targets = op.getNTargets() ? static_cast<int64_t>(*op.getNTargets()) : 1;
    auto e = flattenV3(op, trees.value_or(ArrayRef<int64_t>()), nodes.value_or(ArrayRef<int64_t>()),
                       ids.value_or(ArrayRef<int64_t>()), weights, targets);
    if (failed(e))
      return failure();
    std::optional<int32_t> aggregate =
        llvm::StringSwitch<std::optional<int32_t>>(op.getAggregateFunction())
            .Case("AVERAGE", 0)
            .Case("SUM", 1)
            .Case("MIN", 2)
            .Case("MAX", 3)
            .Default(std::nullopt);
    auto post = postCode(op.getPostTransform());
    if (!aggregate || !post)
      return fail(op, "aggregate_function '" + op.getAggregateFunction() + "' or post_transform '" +
                          op.getPostTransform() + "' is unknown");
    Type s = scoreType(rewriter, op.getNodesValuesAsTensor(), op.getTargetWeightsAsTensor(),
                       op.getBaseValuesAsTensor());
    SmallVector<double> base = realsOf(op.getBaseValues(), op.getBaseValuesAsTensor());
    return lowerRegressor(rewriter, op, adaptor.getX(), *e, s, *aggregate, *post, base, y);
  }
};

/// Class labels (ints, or strings into a table) of a classifier; failure
/// when there are none or a label holds a NUL.
FailureOr<std::pair<SmallVector<int64_t>, StringTable>> classLabels(Operation *op) {
  std::pair<SmallVector<int64_t>, StringTable> out;
  if (auto strings = op->getAttrOfType<ArrayAttr>("classlabels_strings")) {
    for (Attribute a : strings)
      if (!out.second.add(cast<StringAttr>(a).getValue()))
        return fail(op, "a class label holds a NUL character");
    out.first = out.second.offsets;
  } else {
    for (StringRef name : {"classlabels_ints", "classlabels_int64s"})
      if (auto ints = op->getAttrOfType<DenseI64ArrayAttr>(name))
        out.first.assign(ints.asArrayRef().begin(), ints.asArrayRef().end());
  }
  if (out.first.empty())
    return fail(op, "it has no class labels");
  return out;
}

struct TreeEnsembleClassifierLowering : OpConversionPattern<onnx::MLTreeEnsembleClassifierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLTreeEnsembleClassifierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op, 0);
    MLResult z = mlResult(rewriter, getTypeConverter(), op, 1);
    if (!y || !z)
      return failure();
    auto labels = classLabels(op);
    if (failed(labels))
      return failure();
    int64_t classes = labels->first.size();
    auto trees = op.getClassTreeids(), nodes = op.getClassNodeids(), ids = op.getClassIds();
    SmallVector<double> weights = realsOf(op.getClassWeights(), op.getClassWeightsAsTensor());
    auto e = flattenV3(op, trees.value_or(ArrayRef<int64_t>()), nodes.value_or(ArrayRef<int64_t>()),
                       ids.value_or(ArrayRef<int64_t>()), weights, classes);
    if (failed(e))
      return failure();
    auto post = postCode(op.getPostTransform());
    if (!post)
      return fail(op, "post_transform '" + op.getPostTransform() + "' is unknown");
    auto dims = rowsAndFeatures(rewriter, op, adaptor.getX());
    if (failed(dims) || failed(e->check(op, dims->second)))
      return failure();
    if (!rowsTimes(y.type, dims->first, 1) || !rowsTimes(z.type, dims->first, classes))
      return fail(op, "the results are not [N] and [N, classes]");
    SmallVector<int64_t> distinct(e->leafTarget);
    llvm::sort(distinct);
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    bool binary = classes == 2 && distinct.size() == 1;
    bool allPositive = llvm::all_of(weights, [](double w) { return w >= 0; });
    Type s = scoreType(rewriter, op.getNodesValuesAsTensor(), op.getClassWeightsAsTensor(),
                       op.getBaseValuesAsTensor());
    SmallVector<double> base = realsOf(op.getBaseValues(), op.getBaseValuesAsTensor());
    int64_t parts = partsFor(op, dims->first);
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(dims->first);
    call.partOperand(parts);
    call.index(parts);
    e->addTo(call, dims->second, s);
    call.i32(*post);
    call.reals(base, s);
    call.index(base.size());
    call.labels(*labels, op.getClasslabelsStrings().has_value());
    call.flag(binary);
    call.flag(allPositive);
    call.output(y);
    call.output(z);
    call.index(classes);
    call.output(RankedTensorType::get({parts * kTreeBlock * classes}, s));
    call.output(RankedTensorType::get({parts * kTreeBlock * classes}, rewriter.getI8Type()));
    call.emit("onnxcc_rt::ml::tree_ensemble_classifier");
    rewriter.replaceOp(op, {call.result(0), call.result(1)});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Lookup tables
//===----------------------------------------------------------------------===//

/// One side (keys or values) of a lookup table: numbers in `elem`, or
/// strings (offsets into `strings`).
struct Column {
  Type elem; // the converted element type; i64 for strings
  bool isString = false;
  SmallVector<double> reals;
  SmallVector<int64_t> ints;
  StringTable strings;
  size_t size() const {
    return isString ? strings.offsets.size() : (reals.empty() ? ints.size() : reals.size());
  }
};

/// The column of a LabelEncoder-style attribute set: strings, int64s,
/// floats or a tensor.
FailureOr<Column> columnOf(Operation *op, Builder &b, std::optional<ArrayAttr> strings,
                           std::optional<ArrayRef<int64_t>> ints,
                           std::optional<ArrayRef<float>> floats,
                           std::optional<ElementsAttr> tensor, StringRef what) {
  Column c;
  if (tensor) {
    if (auto s = dyn_cast<DenseStringElementsAttr>(*tensor)) {
      c.isString = true;
      c.elem = b.getI64Type();
      for (StringRef v : s.getRawStringData())
        if (!c.strings.add(v))
          return fail(op, what + " holds a NUL character");
      return c;
    }
    c.elem = tensor->getElementType();
    if (isa<FloatType>(c.elem)) {
      if (!c.elem.isF32() && !c.elem.isF64())
        return fail(op, what + " has an unsupported element type");
      c.reals = *tensorReals(*tensor);
    } else if (c.elem.isInteger(64) || c.elem.isInteger(32) || c.elem.isInteger(16)) {
      for (APInt v : tensor->getValues<APInt>())
        c.ints.push_back(v.getSExtValue());
      c.elem = b.getIntegerType(c.elem.getIntOrFloatBitWidth());
    } else {
      return fail(op, what + " has an unsupported element type");
    }
    return c;
  }
  if (strings) {
    c.isString = true;
    c.elem = b.getI64Type();
    for (Attribute a : *strings)
      if (!c.strings.add(cast<StringAttr>(a).getValue()))
        return fail(op, what + " holds a NUL character");
  } else if (ints) {
    c.elem = b.getI64Type();
    c.ints.assign(ints->begin(), ints->end());
  } else if (floats) {
    c.elem = b.getF32Type();
    c.reals.assign(floats->begin(), floats->end());
  } else {
    return fail(op, what + " are missing");
  }
  return c;
}

/// Adds the column's array (in order `order`, then `extra` as a last value
/// when given) and its strings to `call`.
void addColumn(RuntimeCall &call, const Column &c, ArrayRef<size_t> order,
               const Column *extra = nullptr) {
  auto pick = [&](auto &from, auto &into, const auto *tail) {
    for (size_t i : order)
      into.push_back(from[i]);
    if (tail)
      into.push_back((*tail)[0]);
  };
  if (c.isString) {
    SmallVector<int64_t> v;
    std::string bytes = c.strings.bytes;
    pick(c.strings.offsets, v, static_cast<const SmallVector<int64_t> *>(nullptr));
    if (extra) {
      v.push_back(bytes.size());
      bytes += extra->strings.bytes;
    }
    call.i64s(v);
    call.chars(bytes);
    call.flag(true);
    return;
  }
  if (!c.reals.empty() || c.elem.isF32() || c.elem.isF64()) {
    SmallVector<double> v;
    pick(c.reals, v, extra ? &extra->reals : nullptr);
    call.reals(v, c.elem);
  } else {
    SmallVector<int64_t> v;
    pick(c.ints, v, extra ? &extra->ints : nullptr);
    unsigned width = c.elem.getIntOrFloatBitWidth();
    if (width == 64) {
      call.i64s(v);
    } else if (width == 32) {
      SmallVector<int32_t> n(v.begin(), v.end());
      call.constant(ArrayRef<int32_t>(n), c.elem);
    } else {
      SmallVector<int16_t> n(v.begin(), v.end());
      call.constant(ArrayRef<int16_t>(n), c.elem);
    }
  }
  call.chars("");
  call.flag(false);
}

/// The order that sorts the keys (NaN last, strings by bytes), stable; with
/// `unique`, later duplicates dropped (the first of equal keys wins, as in
/// ONNX Runtime).
SmallVector<size_t> sortedKeys(const Column &keys, bool unique = true) {
  SmallVector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  auto str = [&](size_t i) {
    return StringRef(keys.strings.bytes.data() + keys.strings.offsets[i]);
  };
  auto less = [&](size_t a, size_t b) {
    if (keys.isString)
      return str(a) < str(b);
    if (!keys.reals.empty()) {
      double x = keys.reals[a], y = keys.reals[b];
      return std::isnan(x) ? false : (std::isnan(y) ? true : x < y);
    }
    return keys.ints[a] < keys.ints[b];
  };
  llvm::stable_sort(order, less);
  if (!unique)
    return order;
  SmallVector<size_t> first;
  for (size_t i : order)
    if (first.empty() || less(first.back(), i))
      first.push_back(i);
  return first;
}

/// A lookup of every element of `x` in `keys`, giving `values` (or the last
/// of `fallback`) into a tensor of `yType`.
LogicalResult lowerLookup(ConversionPatternRewriter &rewriter, Operation *op, Value x,
                          const Column &keys, const Column &values, const Column &fallback,
                          const MLResult &y) {
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  RankedTensorType yType = y.type;
  if (!xType || xType.getShape() != yType.getShape())
    return fail(op, "the result's shape is not the input's");
  if (keys.size() != values.size())
    return fail(op, "the keys and values differ in number");
  if (xType.getElementType() != keys.elem)
    return fail(op, "the keys' type is not the input's");
  if (yType.getElementType() != values.elem || fallback.isString != values.isString)
    return fail(op, "the values' type is not the result's");
  SmallVector<size_t> order = sortedKeys(keys);
  RuntimeCall call(rewriter, op);
  call.input(x);
  call.index(leadingElements(rewriter, op->getLoc(), x));
  addColumn(call, keys, order);
  call.index(order.size());
  addColumn(call, values, order, &fallback);
  call.output(y);
  call.emit("onnxcc_rt::ml::label_encoder");
  rewriter.replaceOp(op, call.result(0));
  return success();
}

struct LabelEncoderLowering : OpConversionPattern<onnx::MLLabelEncoderOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLLabelEncoderOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y)
      return failure();
    auto keys = columnOf(op, rewriter, op.getKeysStrings(), op.getKeysInt64s(), op.getKeysFloats(),
                         op.getKeysTensor(), "the keys");
    auto values = columnOf(op, rewriter, op.getValuesStrings(), op.getValuesInt64s(),
                           op.getValuesFloats(), op.getValuesTensor(), "the values");
    if (failed(keys) || failed(values))
      return failure();
    // The default: default_tensor, else the default_* of the values' type.
    FailureOr<Column> fallback = failure();
    SmallVector<int64_t> defaultInt{static_cast<int64_t>(op.getDefaultInt64())};
    SmallVector<float> defaultFloat{op.getDefaultFloat().convertToFloat()};
    if (auto t = op.getDefaultTensor()) {
      fallback =
          columnOf(op, rewriter, std::nullopt, std::nullopt, std::nullopt, *t, "default_tensor");
    } else if (values->isString) {
      auto s = rewriter.getStrArrayAttr({op.getDefaultString()});
      fallback =
          columnOf(op, rewriter, s, std::nullopt, std::nullopt, std::nullopt, "default_string");
    } else {
      fallback = Column();
      fallback->elem = values->elem;
      if (values->elem.isF32() || values->elem.isF64())
        fallback->reals.push_back(defaultFloat[0]);
      else
        fallback->ints.push_back(defaultInt[0]);
    }
    if (failed(fallback) || fallback->size() != 1)
      return fail(op, "the default is not one value");
    return lowerLookup(rewriter, op, adaptor.getX(), *keys, *values, *fallback, y);
  }
};

struct CategoryMapperLowering : OpConversionPattern<onnx::MLCategoryMapperOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLCategoryMapperOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y)
      return failure();
    auto strings = columnOf(op, rewriter, op.getCatsStrings(), std::nullopt, std::nullopt,
                            std::nullopt, "cats_strings");
    auto ints = columnOf(op, rewriter, std::nullopt, op.getCatsInt64s(), std::nullopt, std::nullopt,
                         "cats_int64s");
    if (failed(strings) || failed(ints))
      return failure();
    bool fromStrings = isa<onnx::StringType>(onnxElementType(op.getX()));
    FailureOr<Column> fallback =
        fromStrings ? columnOf(op, rewriter, std::nullopt,
                               ArrayRef<int64_t>{static_cast<int64_t>(op.getDefaultInt64())},
                               std::nullopt, std::nullopt, "default_int64")
                    : columnOf(op, rewriter, rewriter.getStrArrayAttr({op.getDefaultString()}),
                               std::nullopt, std::nullopt, std::nullopt, "default_string");
    if (failed(fallback))
      return failure();
    return fromStrings
               ? lowerLookup(rewriter, op, adaptor.getX(), *strings, *ints, *fallback, y)
               : lowerLookup(rewriter, op, adaptor.getX(), *ints, *strings, *fallback, y);
  }
};

//===----------------------------------------------------------------------===//
// Elementwise transforms and linear models
//===----------------------------------------------------------------------===//

struct BinarizerLowering : OpConversionPattern<onnx::MLBinarizerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLBinarizerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y)
      return failure();
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(leadingElements(rewriter, op.getLoc(), adaptor.getX()));
    call.reals({op.getThreshold().convertToFloat()}, rewriter.getF64Type());
    call.output(y);
    call.emit("onnxcc_rt::ml::binarizer");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

struct ArrayFeatureExtractorLowering : OpConversionPattern<onnx::MLArrayFeatureExtractorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLArrayFeatureExtractorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult z = mlResult(rewriter, getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto yType = dyn_cast<RankedTensorType>(adaptor.getY().getType());
    if (!z || !xType || !yType || !yType.hasStaticShape() || xType.getRank() < 1 ||
        xType.isDynamicDim(xType.getRank() - 1))
      return fail(op, "X must have a static last dim and Y static dims");
    int64_t cols = xType.getShape().back();
    int64_t k = yType.getNumElements();
    OpFoldResult rows = leadingElements(rewriter, op.getLoc(), adaptor.getX(), xType.getRank() - 1);
    // Z is X's leading dims and k ([1, k] for a 1-D X).
    bool fits = z.type.getRank() == std::max<int64_t>(xType.getRank(), 2) &&
                z.type.getShape().back() == k;
    for (int64_t d = 0; fits && xType.getRank() > 1 && d + 1 < xType.getRank(); ++d)
      fits = z.type.getDimSize(d) == xType.getDimSize(d);
    if (!fits)
      return fail(op, "the result is not [..., number of indices]");
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(rows);
    call.index(cols);
    call.input(adaptor.getY());
    call.index(k);
    call.output(z);
    call.emit("onnxcc_rt::ml::array_feature_extractor");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

struct ScalerLowering : OpConversionPattern<onnx::MLScalerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLScalerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y || y.type.getRank() < 1)
      return failure();
    if (y.type.isDynamicDim(y.type.getRank() - 1))
      return fail(op, "X's last dim must be static");
    int64_t cols = y.type.getShape().back();
    SmallVector<double> offset = realsOf(op.getOffset(), std::nullopt);
    SmallVector<double> scale = realsOf(op.getScale(), std::nullopt);
    for (auto [what, v] : {std::pair("offset", &offset), std::pair("scale", &scale)}) {
      if (v->empty())
        v->push_back(what == StringRef("scale") ? 1.0 : 0.0);
      if (v->size() != 1 && static_cast<int64_t>(v->size()) != cols)
        return fail(op, Twine(what) + " has " + Twine(v->size()) + " values for " + Twine(cols) +
                            " columns");
    }
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(leadingElements(rewriter, op.getLoc(), adaptor.getX()));
    call.index(cols);
    call.reals(offset, rewriter.getF32Type());
    call.index(offset.size());
    call.reals(scale, rewriter.getF32Type());
    call.index(scale.size());
    call.output(y);
    call.emit("onnxcc_rt::ml::scaler");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

struct NormalizerLowering : OpConversionPattern<onnx::MLNormalizerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLNormalizerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y || y.type.getRank() < 1)
      return failure();
    if (y.type.isDynamicDim(y.type.getRank() - 1))
      return fail(op, "X's last dim must be static");
    std::optional<int32_t> norm = llvm::StringSwitch<std::optional<int32_t>>(op.getNorm())
                                      .Case("MAX", 0)
                                      .Case("L1", 1)
                                      .Case("L2", 2)
                                      .Default(std::nullopt);
    if (!norm)
      return fail(op, "norm '" + op.getNorm() + "' is not MAX, L1 or L2");
    int64_t cols = y.type.getShape().back();
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(leadingElements(rewriter, op.getLoc(), adaptor.getX(), y.type.getRank() - 1));
    call.index(cols);
    call.i32(*norm);
    call.output(y);
    call.emit("onnxcc_rt::ml::normalizer");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

/// Imputer: floats for float inputs, int64s for integer ones, in X's type.
struct ImputerLowering : OpConversionPattern<onnx::MLImputerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLImputerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y || y.type.getRank() < 1)
      return failure();
    if (y.type.isDynamicDim(y.type.getRank() - 1))
      return fail(op, "X's last dim must be static");
    Type elem = y.type.getElementType();
    int64_t cols = y.type.getShape().back();
    bool isFloat = isa<FloatType>(elem);
    SmallVector<double> imputed = realsOf(op.getImputedValueFloats(), std::nullopt);
    SmallVector<int64_t> imputedInts(op.getImputedValueInt64s().value_or(ArrayRef<int64_t>()));
    size_t count = isFloat ? imputed.size() : imputedInts.size();
    if (count != 1 && static_cast<int64_t>(count) != cols)
      return fail(op, "it has " + Twine(count) + " imputed values for " + Twine(cols) +
                          " columns (imputed_value_" + (isFloat ? "floats" : "int64s") +
                          " must match X's type)");
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(leadingElements(rewriter, op.getLoc(), adaptor.getX()));
    call.index(cols);
    if (isFloat) {
      call.reals(imputed, elem);
      call.index(count);
      call.reals({op.getReplacedValueFloat().convertToFloat()}, elem);
    } else {
      int64_t replaced = op.getReplacedValueInt64();
      if (elem.isInteger(64)) {
        call.i64s(imputedInts);
        call.index(count);
        call.i64s({replaced});
      } else {
        SmallVector<int32_t> narrow(imputedInts.begin(), imputedInts.end());
        call.constant(ArrayRef<int32_t>(narrow), elem);
        call.index(count);
        SmallVector<int32_t> r{static_cast<int32_t>(replaced)};
        call.constant(ArrayRef<int32_t>(r), elem);
      }
    }
    call.output(y);
    call.emit("onnxcc_rt::ml::imputer");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

/// OneHotEncoder of int64 or string categories: the sorted categories and
/// the column of each.
struct OneHotEncoderLowering : OpConversionPattern<onnx::MLOneHotEncoderOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLOneHotEncoderOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!y || !xType)
      return failure();
    Type elem = onnxElementType(op.getX());
    bool strings = isa<onnx::StringType>(elem);
    Value x = adaptor.getX();
    if (isa<FloatType>(elem) || elem.isInteger(32)) {
      // Numbers are categories as int64, truncated toward zero as ONNX
      // Runtime converts them; NaN and values beyond int64 are unknown (a
      // key no category has), not converted (which C++ leaves undefined).
      if (!elem.isF32() && !elem.isF64() && !elem.isInteger(32))
        return fail(op, "only string, int64, int32, float and double inputs are supported");
      SmallVector<int64_t> cats(op.getCatsInt64s().value_or(ArrayRef<int64_t>()));
      int64_t unknown = std::numeric_limits<int64_t>::min();
      while (llvm::is_contained(cats, unknown))
        ++unknown;
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < xType.getRank(); ++d)
        if (xType.isDynamicDim(d))
          sizes.push_back(tensor::DimOp::create(rewriter, op.getLoc(), x, d));
      Type i64 = rewriter.getI64Type();
      Value source = x;
      x = buildIndexedGeneric(
          rewriter, op.getLoc(), RankedTensorType::get(xType.getShape(), i64),
          [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
            Value v = tensor::ExtractOp::create(b, l, source, ivs);
            if (!isa<FloatType>(elem))
              return castScalar(b, l, v, elem, i64);
            // -2^63 <= v < 2^63, false for NaN.
            Value low = floatConst(b, l, elem, -9223372036854775808.0);
            Value high = floatConst(b, l, elem, 9223372036854775808.0);
            Value inside = arith::AndIOp::create(
                b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, v, low),
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, v, high));
            Value safe = arith::SelectOp::create(b, l, inside, v, floatConst(b, l, elem, 0.0));
            Value k = castScalar(b, l, safe, elem, i64);
            return arith::SelectOp::create(b, l, inside, k,
                                           arith::ConstantOp::create(b, l, b.getI64IntegerAttr(unknown)))
                .getResult();
          },
          sizes);
      elem = i64;
    }
    if (!strings && !elem.isInteger(64))
      return fail(op, "only string, int64, int32, float and double inputs are supported");
    auto keys = strings ? columnOf(op, rewriter, op.getCatsStrings(), std::nullopt, std::nullopt,
                                   std::nullopt, "cats_strings")
                        : columnOf(op, rewriter, std::nullopt, op.getCatsInt64s(), std::nullopt,
                                   std::nullopt, "cats_int64s");
    if (failed(keys))
      return failure();
    SmallVector<size_t> order = sortedKeys(*keys);
    if (order.size() != keys->size())
      return fail(op, "a category is given twice");
    SmallVector<int64_t> want(xType.getShape());
    want.push_back(order.size());
    if (y.type.getShape() != ArrayRef<int64_t>(want))
      return fail(op, "the result is not [..., number of categories]");
    SmallVector<int64_t> positions(order.begin(), order.end());
    RuntimeCall call(rewriter, op);
    call.input(x);
    call.index(leadingElements(rewriter, op.getLoc(), x));
    addColumn(call, *keys, order);
    call.i64s(positions);
    call.index(order.size());
    call.flag(op.getZeros() != 0);
    call.output(y);
    call.emit("onnxcc_rt::ml::one_hot_encoder");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

/// The coefficients ([classes, C]) and intercepts of a linear model.
template <typename Op>
FailureOr<int64_t> addLinearModel(RuntimeCall &call, Op op, int64_t cols, int64_t classes) {
  SmallVector<double> coef = realsOf(op.getCoefficients(), std::nullopt);
  SmallVector<double> intercepts = realsOf(op.getIntercepts(), std::nullopt);
  if (static_cast<int64_t>(coef.size()) != classes * cols)
    return fail(op, "coefficients has " + Twine(coef.size()) + " values, not " + Twine(classes) +
                        " x " + Twine(cols));
  if (!intercepts.empty() && static_cast<int64_t>(intercepts.size()) != classes)
    return fail(op,
                "intercepts has " + Twine(intercepts.size()) + " values, not " + Twine(classes));
  call.reals(coef, call.b.getF32Type());
  call.reals(intercepts, call.b.getF32Type());
  call.index(intercepts.size());
  return classes;
}

struct LinearRegressorLowering : OpConversionPattern<onnx::MLLinearRegressorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLLinearRegressorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    auto dims = rowsAndFeatures(rewriter, op, adaptor.getX());
    if (!y || failed(dims))
      return failure();
    auto post = postCode(op.getPostTransform());
    if (!post)
      return fail(op, "post_transform '" + op.getPostTransform() + "' is unknown");
    int64_t targets = op.getTargets();
    if (!rowsTimes(y.type, dims->first, targets))
      return fail(op, "the result is not [N, targets]");
    // X may be the scores already (linearModelsAsGemm).
    bool given = op->hasAttr("onnxcc.scores");
    if (given && dims->second != targets)
      return fail(op, "its scores are not [N, targets]");
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(dims->first);
    call.index(dims->second);
    if (given) {
      call.reals({}, rewriter.getF32Type());
      call.reals({}, rewriter.getF32Type());
      call.index(int64_t(0));
    } else if (failed(addLinearModel(call, op, dims->second, targets))) {
      return failure();
    }
    call.index(targets);
    call.i32(*post);
    call.output(y);
    call.flag(given);
    call.emit("onnxcc_rt::ml::linear_regressor");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

struct LinearClassifierLowering : OpConversionPattern<onnx::MLLinearClassifierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLLinearClassifierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op, 0);
    MLResult z = mlResult(rewriter, getTypeConverter(), op, 1);
    auto dims = rowsAndFeatures(rewriter, op, adaptor.getX());
    auto labels = classLabels(op);
    if (!y || !z || failed(dims) || failed(labels))
      return failure();
    auto post = postCode(op.getPostTransform());
    if (!post)
      return fail(op, "post_transform '" + op.getPostTransform() + "' is unknown");
    int64_t classes = op.getIntercepts() ? op.getIntercepts()->size() : 0;
    // X may be the scores already (linearModelsAsGemm).
    auto scores = op->getAttrOfType<IntegerAttr>("onnxcc.scores");
    if (scores)
      classes = scores.getInt();
    else if (!classes && dims->second)
      classes = op.getCoefficients().size() / dims->second;
    if (scores && dims->second != classes)
      return fail(op, "its scores are not [N, classes]");
    int64_t width = z.type.getRank() == 2 ? z.type.getDimSize(1) : 0;
    if (width != (classes == 1 && labels->first.size() == 2 ? 2 : classes) ||
        (classes > 1 && static_cast<int64_t>(labels->first.size()) != classes) ||
        !rowsTimes(y.type, dims->first, 1) || !rowsTimes(z.type, dims->first, width))
      return fail(op, "the number of classes does not match the labels and scores");
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(dims->first);
    call.index(dims->second);
    if (scores) {
      call.reals({}, rewriter.getF32Type());
      call.reals({}, rewriter.getF32Type());
      call.index(int64_t(0));
    } else if (failed(addLinearModel(call, op, dims->second, classes))) {
      return failure();
    }
    call.index(classes);
    call.i32(*post);
    call.labels(*labels, op.getClasslabelsStrings().has_value());
    call.index(labels->first.size());
    call.output(y);
    call.output(z);
    call.index(width);
    call.flag(static_cast<bool>(scores));
    call.emit("onnxcc_rt::ml::linear_classifier");
    rewriter.replaceOp(op, {call.result(0), call.result(1)});
    return success();
  }
};

/// TfIdfVectorizer: the pool (ints, or strings into a table) checked
/// against ngram_counts and ngram_indexes, then one call.
struct TfIdfVectorizerLowering : OpConversionPattern<onnx::TfIdfVectorizerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::TfIdfVectorizerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!y || !xType || xType.getRank() < 1 || xType.getRank() > 2 ||
        xType.isDynamicDim(xType.getRank() - 1) || y.type.isDynamicDim(y.type.getRank() - 1))
      return fail(op, "X must be a [C] or [N, C] tensor with static C");
    int64_t cols = xType.getShape().back();
    OpFoldResult rows = xType.getRank() == 2
                            ? tensor::getMixedSize(rewriter, op.getLoc(), adaptor.getX(), 0)
                            : OpFoldResult(rewriter.getIndexAttr(1));
    int64_t width = y.type.getShape().back();
    auto pool = columnOf(op, rewriter, op.getPoolStrings(), op.getPoolInt64s(), std::nullopt,
                         std::nullopt, "the pool");
    if (failed(pool))
      return failure();
    int64_t poolSize = pool->size();
    ArrayRef<int64_t> counts = op.getNgramCounts(), indexes = op.getNgramIndexes();
    int64_t total = 0;
    for (size_t n = 1; n <= counts.size(); ++n) {
      int64_t end = n < counts.size() ? counts[n] : poolSize;
      if (counts[n - 1] < 0 || end < counts[n - 1] || end > poolSize ||
          (end - counts[n - 1]) % static_cast<int64_t>(n))
        return fail(op, "ngram_counts does not split the pool into n-grams");
      total += (end - counts[n - 1]) / n;
    }
    if (static_cast<int64_t>(indexes.size()) != total ||
        llvm::any_of(indexes, [&](int64_t i) { return i < 0 || i >= width; }))
      return fail(op, "ngram_indexes does not give a column below " + Twine(width) +
                          " to each of the " + Twine(total) + " n-grams");
    auto weights = op.getWeights();
    if (weights && static_cast<int64_t>(weights->size()) != total)
      return fail(op, "weights has " + Twine(weights->size()) + " values for " + Twine(total) +
                          " n-grams");
    std::optional<int32_t> mode = llvm::StringSwitch<std::optional<int32_t>>(op.getMode())
                                      .Case("TF", 0)
                                      .Case("IDF", 1)
                                      .Case("TFIDF", 2)
                                      .Default(std::nullopt);
    int64_t maxSkip = op.getMaxSkipCount();
    if (!mode || maxSkip < 0)
      return fail(op, "mode '" + op.getMode() + "' or max_skip_count is invalid");
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(rows);
    call.index(cols);
    SmallVector<size_t> order(poolSize);
    std::iota(order.begin(), order.end(), 0);
    addColumn(call, *pool, order);
    call.index(poolSize);
    call.i64s(counts);
    call.index(counts.size());
    call.i64s(indexes);
    SmallVector<double> w = realsOf(weights, std::nullopt);
    call.reals(w, rewriter.getF32Type());
    call.flag(weights.has_value());
    call.index(op.getMinGramLength());
    call.index(op.getMaxGramLength());
    call.index(maxSkip);
    call.i32(*mode);
    call.index(width);
    call.output(y);
    call.emit("onnxcc_rt::ml::tfidf_vectorizer");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

/// FeatureVectorizer: one loop nest over Y [N, sum of inputdimensions]; the
/// column picks its input (a chain of selects over compile-time ranges),
/// whose first min(C_i, inputdimensions[i]) columns are copied as float and
/// the rest are zero.
struct FeatureVectorizerLowering : OpConversionPattern<onnx::MLFeatureVectorizerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLFeatureVectorizerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y || y.type.getRank() != 2 || y.type.isDynamicDim(1))
      return failure();
    RankedTensorType yType = y.type;
    ArrayRef<int64_t> dims = op.getInputdimensions().value_or(ArrayRef<int64_t>());
    ValueRange inputs = adaptor.getX();
    if (dims.size() != inputs.size())
      return fail(op, "inputdimensions has " + Twine(dims.size()) + " values for " +
                          Twine(inputs.size()) + " inputs");
    int64_t rows = yType.getDimSize(0);
    SmallVector<int64_t> offsets, copied;
    int64_t offset = 0;
    for (auto [i, x] : llvm::enumerate(inputs)) {
      auto t = dyn_cast<RankedTensorType>(x.getType());
      if (!t || t.getRank() != 2 || t.isDynamicDim(1) || t.getDimSize(0) != rows || dims[i] < 0)
        return fail(op, "input #" + Twine(i) + " is not a [N, C] tensor with static C and the " +
                            "result's N, or its inputdimensions is negative");
      offsets.push_back(offset);
      copied.push_back(std::min(dims[i], t.getDimSize(1)));
      offset += dims[i];
    }
    if (offset != yType.getDimSize(1))
      return fail(op, "the result does not have sum(inputdimensions) columns");
    Type f32 = rewriter.getF32Type();
    SmallVector<Type> elems;
    for (Value x : op.getX())
      elems.push_back(onnxElementType(x));
    Value result = buildIndexedGeneric(
        rewriter, op.getLoc(), yType, [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          Value value = floatConst(b, l, f32, 0.0);
          for (auto [i, x] : llvm::enumerate(inputs)) {
            if (!copied[i])
              continue;
            Value begin = indexConst(b, l, offsets[i]);
            Value end = indexConst(b, l, offsets[i] + copied[i]);
            Value inside = arith::AndIOp::create(
                b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, ivs[1], begin),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, ivs[1], end));
            // Clamped, so that the columns of other inputs read in bounds.
            Value column = clampIndex(b, l, arith::SubIOp::create(b, l, ivs[1], begin),
                                      indexConst(b, l, 0), indexConst(b, l, copied[i] - 1));
            Value v = tensor::ExtractOp::create(b, l, x, ValueRange{ivs[0], column});
            v = castScalar(b, l, v, elems[i], f32);
            value = arith::SelectOp::create(b, l, inside, v, value);
          }
          return value;
        },
        y.sizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Support vectors [numSV, cols] in the blocks onnxcc_rt::ml::svm_kernels
/// reads: block b holds, per feature, that feature of 16 vectors.
SmallVector<double> blockedSupport(ArrayRef<double> support, int64_t numSV, int64_t cols) {
  constexpr int64_t block = 16; // onnxcc_rt::ml::svm_block
  int64_t blocks = (numSV + block - 1) / block;
  SmallVector<double> out(blocks * cols * block, 0.0);
  for (int64_t v = 0; v < numSV; ++v)
    for (int64_t c = 0; c < cols; ++c)
      out[(v / block) * cols * block + c * block + v % block] = support[v * cols + c];
  return out;
}

/// The kernel code of onnxcc_rt::ml::svm_kernel for `kernelType`.
FailureOr<int32_t> svmKernel(Operation *op, StringRef kernelType) {
  std::optional<int32_t> kernel = llvm::StringSwitch<std::optional<int32_t>>(kernelType)
                                      .Case("LINEAR", 0)
                                      .Case("POLY", 1)
                                      .Case("RBF", 2)
                                      .Case("SIGMOID", 3)
                                      .Default(std::nullopt);
  if (!kernel)
    return fail(op, "kernel_type '" + kernelType + "' is not LINEAR, POLY, RBF or SIGMOID");
  return *kernel;
}

/// SVMRegressor: support vectors [n_supports, C] and their coefficients,
/// or (n_supports 0) a linear model of C coefficients.
struct SVMRegressorLowering : OpConversionPattern<onnx::MLSVMRegressorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLSVMRegressorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    auto dims = rowsAndFeatures(rewriter, op, adaptor.getX());
    if (!y || failed(dims))
      return failure();
    auto [rows, cols] = *dims;
    FailureOr<int32_t> kernel = svmKernel(op, op.getKernelType());
    if (failed(kernel))
      return failure();
    if (op.getPostTransform() != "NONE")
      return fail(op,
                  "post_transform '" + op.getPostTransform() + "' is not supported (only NONE)");
    int64_t numSV = op.getNSupports();
    SmallVector<double> coef = realsOf(op.getCoefficients(), std::nullopt);
    SmallVector<double> support = realsOf(op.getSupportVectors(), std::nullopt);
    SmallVector<double> rho = realsOf(op.getRho(), std::nullopt);
    SmallVector<double> params = realsOf(op.getKernelParams(), std::nullopt);
    params.resize(3, 0.0);
    if (numSV < 0 ||
        (numSV > 0 && (static_cast<int64_t>(coef.size()) != numSV ||
                       static_cast<int64_t>(support.size()) != numSV * cols)) ||
        (numSV == 0 && static_cast<int64_t>(coef.size()) != cols) || rho.size() != 1)
      return fail(op, "coefficients, support_vectors and rho do not fit n_supports " +
                          Twine(numSV) + " and " + Twine(cols) + " features");
    if (!rowsTimes(y.type, rows, 1))
      return fail(op, "the result is not [N, 1]");
    Type f32 = rewriter.getF32Type();
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(rows);
    call.index(cols);
    call.reals(blockedSupport(support, numSV, cols), f32);
    call.index(numSV);
    call.reals(coef, f32);
    call.reals(rho, f32);
    call.i32(*kernel);
    call.reals(params, f32);
    call.flag(op.getOneClass() != 0);
    call.output(y);
    call.output(RankedTensorType::get({std::max<int64_t>(numSV, 1)}, f32));
    call.emit("onnxcc_rt::ml::svm_regressor");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

/// SVMClassifier: support vectors grouped by class (vectors_per_class) with
/// one-vs-one coefficients, or (no support vectors) a linear model per
/// class; see onnxcc_rt::ml::svm_classifier for what it computes.
struct SVMClassifierLowering : OpConversionPattern<onnx::MLSVMClassifierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLSVMClassifierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op, 0);
    MLResult z = mlResult(rewriter, getTypeConverter(), op, 1);
    auto dims = rowsAndFeatures(rewriter, op, adaptor.getX());
    auto labels = classLabels(op);
    if (!y || !z || failed(dims) || failed(labels))
      return failure();
    auto [rows, cols] = *dims;
    int64_t classes = labels->first.size();
    FailureOr<int32_t> kernel = svmKernel(op, op.getKernelType());
    if (failed(kernel))
      return failure();
    auto post = postCode(op.getPostTransform());
    if (!post)
      return fail(op, "post_transform '" + op.getPostTransform() + "' is unknown");
    SmallVector<int64_t> perClass;
    if (auto v = op.getVectorsPerClass())
      perClass.assign(v->begin(), v->end());
    int64_t numSV = 0;
    for (int64_t v : perClass) {
      if (v < 0)
        return fail(op, "vectors_per_class holds a negative count");
      numSV += v;
    }
    SmallVector<double> coef = realsOf(op.getCoefficients(), std::nullopt);
    SmallVector<double> support = realsOf(op.getSupportVectors(), std::nullopt);
    SmallVector<double> rho = realsOf(op.getRho(), std::nullopt);
    SmallVector<double> probA = realsOf(op.getProbA(), std::nullopt);
    SmallVector<double> probB = realsOf(op.getProbB(), std::nullopt);
    SmallVector<double> params = realsOf(op.getKernelParams(), std::nullopt);
    params.resize(3, 0.0);
    int64_t pairs = classes * (classes - 1) / 2;
    bool proba = !probA.empty();
    if (probA.size() != probB.size())
      return fail(op, "prob_a and prob_b differ in length");
    if (numSV > 0) {
      if (static_cast<int64_t>(perClass.size()) != classes)
        return fail(op, "vectors_per_class has " + Twine(perClass.size()) + " counts for " +
                            Twine(classes) + " classes");
      if (static_cast<int64_t>(support.size()) != numSV * cols ||
          static_cast<int64_t>(coef.size()) != (classes - 1) * numSV ||
          static_cast<int64_t>(rho.size()) != pairs ||
          (proba && static_cast<int64_t>(probA.size()) != pairs))
        return fail(op, "support_vectors, coefficients, rho and prob_a/prob_b do not fit " +
                            Twine(numSV) + " support vectors of " + Twine(cols) +
                            " features and " + Twine(classes) + " classes");
    } else if (static_cast<int64_t>(coef.size()) != classes * cols || rho.empty()) {
      return fail(op, "coefficients and rho do not fit a linear model of " + Twine(classes) +
                          " classes over " + Twine(cols) + " features");
    }
    int64_t width = z.type.getRank() == 2 ? z.type.getDimSize(1) : -1;
    int64_t want = numSV > 0 && !proba ? (classes > 2 ? pairs : 2) : classes;
    if (classes < 2 || width != want || !rowsTimes(y.type, rows, 1) ||
        !rowsTimes(z.type, rows, width))
      return fail(op, "the scores are not [N, " + Twine(want) + "] for " + Twine(classes) +
                          " classes");
    bool positive = llvm::all_of(coef, [](double c) { return c >= 0; });
    Type f32 = rewriter.getF32Type();
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getX());
    call.index(rows);
    call.index(cols);
    call.reals(blockedSupport(support, numSV, cols), f32);
    call.index(numSV);
    call.i64s(perClass);
    call.index(classes);
    call.reals(coef, f32);
    call.reals(rho, f32);
    call.reals(probA, f32);
    call.reals(probB, f32);
    call.flag(proba);
    call.i32(*kernel);
    call.reals(params, f32);
    call.i32(*post);
    call.flag(positive);
    call.labels(*labels, op.getClasslabelsStrings().has_value());
    call.output(y);
    call.output(z);
    call.index(width);
    call.output(RankedTensorType::get({numSV + 3 * classes * classes + classes}, f32));
    call.output(RankedTensorType::get({classes}, rewriter.getI64Type()));
    call.emit("onnxcc_rt::ml::svm_classifier");
    rewriter.replaceOp(op, {call.result(0), call.result(1)});
    return success();
  }
};

/// DictVectorizer of a map input (its keys and values, n each): the
/// vocabulary sorted (stably, duplicates kept) with the output position of
/// each entry; one call.
struct MapDictVectorizerLowering : OpConversionPattern<onnx::MapDictVectorizerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MapDictVectorizerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y)
      return failure();
    auto keysType = dyn_cast<RankedTensorType>(adaptor.getKeys().getType());
    auto valuesType = dyn_cast<RankedTensorType>(adaptor.getValues().getType());
    if (!keysType || !valuesType || keysType.getRank() != 1 || valuesType.getRank() != 1)
      return fail(op, "the map's keys and values are not 1-D");
    auto vocab = columnOf(op, rewriter, op.getStringVocabulary(), op.getInt64Vocabulary(),
                          std::nullopt, std::nullopt, "the vocabulary");
    if (failed(vocab))
      return failure();
    if (y.type.getShape() != ArrayRef<int64_t>{1, static_cast<int64_t>(vocab->size())})
      return fail(op, "the result is not [1, size of the vocabulary]");
    SmallVector<size_t> order = sortedKeys(*vocab, /*unique=*/false);
    SmallVector<int64_t> positions(order.begin(), order.end());
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getKeys());
    call.input(adaptor.getValues());
    call.index(tensor::getMixedSize(rewriter, op.getLoc(), adaptor.getKeys(), 0));
    addColumn(call, *vocab, order);
    call.i64s(positions);
    call.index(static_cast<int64_t>(order.size()));
    call.flag(isa<onnx::StringType>(onnxElementType(op.getValues())));
    call.output(y);
    call.emit("onnxcc_rt::ml::dict_vectorizer");
    rewriter.replaceOp(op, call.result(0));
    return success();
  }
};

/// CastMap of a map input (int64 keys, float or string values) to float,
/// int64 or strings, as ONNX Runtime casts (std::stof, std::stoll,
/// std::to_string: floats written as strings go to the string pool).
struct MapCastLowering : OpConversionPattern<onnx::MapCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MapCastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLResult y = mlResult(rewriter, getTypeConverter(), op);
    if (!y)
      return failure();
    bool strings = isa<onnx::StringType>(onnxElementType(op.getValues()));
    std::optional<int32_t> to = llvm::StringSwitch<std::optional<int32_t>>(op.getCastTo())
                                    .Case("TO_FLOAT", 0)
                                    .Case("TO_INT64", 1)
                                    .Case("TO_STRING", 2)
                                    .Default(std::nullopt);
    if (!to)
      return fail(op, "cast_to '" + op.getCastTo() + "' is not TO_FLOAT, TO_INT64 or TO_STRING");
    bool sparse = op.getMapForm() == "SPARSE";
    OpFoldResult n = tensor::getMixedSize(rewriter, op.getLoc(), adaptor.getKeys(), 0);
    RuntimeCall call(rewriter, op);
    call.input(adaptor.getKeys());
    call.input(adaptor.getValues());
    call.index(n);
    call.flag(strings);
    call.index(sparse ? op.getMaxMap() : int64_t(-1));
    call.i32(*to);
    // The DENSE order's scratch: n indices (one when there are none).
    if (std::optional<int64_t> count = getConstantIntValue(n))
      call.output(RankedTensorType::get({std::max<int64_t>(*count, 1)}, rewriter.getI64Type()));
    else
      call.output(RankedTensorType::get({ShapedType::kDynamic}, rewriter.getI64Type()),
                  ValueRange{cast<Value>(n)});
    call.output(y);
    call.stringPool = !strings && *to == 2;
    call.emit("onnxcc_rt::ml::cast_map");
    rewriter.replaceOp(op, call.result(1));
    return success();
  }
};

/// ZipMap's sequence of maps is held as its values, X itself (MLShapes.cpp);
/// the importer has put the class labels, the maps' keys, on the graph output
/// it feeds (the only place it may go).
struct ZipMapLowering : OpConversionPattern<onnx::MLZipMapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::MLZipMapOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (adaptor.getX().getType() != getTypeConverter()->convertType(op.getZ().getType()))
      return fail(op, "its result's type differs from its input's");
    rewriter.replaceOp(op, adaptor.getX());
    return success();
  }
};

/// The ai.onnx.ml ops not lowered yet: a clear error rather than a missing
/// pattern's generic one.
template <typename Op> struct UnsupportedMLLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &) const override {
    return fail(op, "this ai.onnx.ml operator is not supported yet");
  }
};

} // namespace

void linearModelsAsGemm(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<onnx::MLLinearClassifierOp, onnx::MLLinearRegressorOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    if (!t || t.getRank() != 2 || t.isDynamicDim(1) || !t.getElementType().isF32() ||
        t.getDimSize(1) == 0)
      continue;
    int64_t cols = t.getDimSize(1);
    ArrayRef<float> coef;
    std::optional<ArrayRef<float>> intercepts;
    int64_t classes;
    if (auto c = dyn_cast<onnx::MLLinearClassifierOp>(op)) {
      coef = c.getCoefficients();
      intercepts = c.getIntercepts();
      classes = intercepts ? static_cast<int64_t>(intercepts->size())
                           : static_cast<int64_t>(coef.size()) / cols;
    } else {
      auto r = cast<onnx::MLLinearRegressorOp>(op);
      coef = r.getCoefficients().value_or(ArrayRef<float>());
      intercepts = r.getIntercepts();
      classes = r.getTargets();
    }
    // What does not fit is left to the lowering's own error.
    if (classes <= 0 || static_cast<int64_t>(coef.size()) != classes * cols ||
        (intercepts && !intercepts->empty() && static_cast<int64_t>(intercepts->size()) != classes))
      continue;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type f32 = b.getF32Type();
    auto constant = [&](ArrayRef<int64_t> shape, ArrayRef<float> values) {
      auto type = RankedTensorType::get(shape, f32);
      return onnx::ConstantOp::create(b, loc, TypeRange{type}, ValueRange{},
                                      {b.getNamedAttr("value", DenseElementsAttr::get(type, values))})
          .getResult();
    };
    Value w = constant({classes, cols}, coef);
    Value bias = intercepts && !intercepts->empty()
                     ? Value(constant({classes}, *intercepts))
                     : Value(onnx::NoValueOp::create(b, loc, b.getNoneType()).getResult());
    auto scoresType = RankedTensorType::get({t.getDimSize(0), classes}, f32);
    Value scores = onnx::GemmOp::create(b, loc, scoresType, x, w, bias, b.getF32FloatAttr(1.0f),
                                        b.getF32FloatAttr(1.0f), b.getI64IntegerAttr(0),
                                        b.getI64IntegerAttr(1))
                       .getResult();
    op->setOperand(0, scores);
    op->setAttr("onnxcc.scores", b.getI64IntegerAttr(classes));
  }
}

void populateClassicalMLPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      TreeEnsembleLowering, TreeEnsembleRegressorLowering, TreeEnsembleClassifierLowering,
      LabelEncoderLowering, CategoryMapperLowering, BinarizerLowering,
      ArrayFeatureExtractorLowering, ScalerLowering, NormalizerLowering, LinearRegressorLowering,
      LinearClassifierLowering, TfIdfVectorizerLowering, ImputerLowering, OneHotEncoderLowering,
      SVMClassifierLowering, SVMRegressorLowering,
      FeatureVectorizerLowering, UnsupportedMLLowering<onnx::MLCastMapOp>,
      UnsupportedMLLowering<onnx::MLDictVectorizerOp>, ZipMapLowering,
      MapDictVectorizerLowering, MapCastLowering>(
      converter, patterns.getContext());
}

} // namespace onnxcc::lowering
