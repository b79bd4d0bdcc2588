//===- Flops.cpp - Floating-point work of a model, for onnxcc bench -------===//
//
// The model is imported with its inputs' dims fixed, so that shape inference
// gives every value a static shape, and the FLOPs of the compute-bound ops
// are read off the operand and result types (see Flops.h for the formulas).
// The count is of the model as written, before the graph passes: fusing a
// bias or an activation into a Conv changes no multiply-add. `onnxcc compile
// --report` counts each node the same way (countNodeFlops).
//
//===----------------------------------------------------------------------===//
#include "compiler/Flops.h"
#include "compiler/Errors.h"
#include "compiler/Importer.h"
#include "compiler/ModelLoader.h"
#include "compiler/Registration.h"
#include "dialects/onnx/Transforms/Passes.h"
#include "lowering/Passes.h"

#include "onnx.pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc {

namespace {
/// The static shape of `value`, or nothing.
std::optional<ArrayRef<int64_t>> staticShape(Value value) {
  if (!value)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

uint64_t product(ArrayRef<int64_t> dims) {
  uint64_t n = 1;
  for (int64_t d : dims)
    n *= static_cast<uint64_t>(d);
  return n;
}

int64_t intAttr(Operation *op, StringRef name, int64_t otherwise) {
  auto a = op->getAttrOfType<IntegerAttr>(name);
  return a ? a.getInt() : otherwise;
}

/// The op types counted, in the order FlopCount::byOp lists them.
constexpr StringRef kinds[] = {
    "Conv",          "ConvInteger",       "QLinearConv",        "ConvTranspose",
    "MatMul",        "MatMulInteger",     "QLinearMatMul",      "Gemm",
    "Einsum",        "Attention",         "RNN",                "GRU",
    "LSTM",          "DFT",               "STFT",               "MaxPool",
    "AveragePool",   "LpPool",            "GlobalAveragePool",  "GlobalMaxPool",
    "GlobalLpPool",  "ReduceSum",         "ReduceMean",         "ReduceMax",
    "ReduceMin",     "ReduceProd",        "ReduceL1",           "ReduceL2",
    "ReduceLogSum",  "ReduceLogSumExp",   "ReduceSumSquare"};

/// 2 per multiply-add of the contraction `equation` over `operands`.
std::optional<uint64_t> einsumFlops(Operation *op) {
  auto equation = op->getAttrOfType<StringAttr>("equation");
  if (!equation || op->getNumOperands() == 0)
    return std::nullopt;
  std::string text;
  for (char c : equation.getValue())
    if (c != ' ')
      text.push_back(c);
  StringRef inputs = StringRef(text).split("->").first;
  SmallVector<StringRef> terms;
  inputs.split(terms, ',');
  if (terms.size() != op->getNumOperands())
    return std::nullopt;
  llvm::DenseMap<char, int64_t> extents;
  SmallVector<int64_t> ellipsis; // broadcast extents, right-aligned
  for (auto [term, operand] : llvm::zip(terms, op->getOperands())) {
    auto shape = staticShape(operand);
    if (!shape)
      return std::nullopt;
    auto [before, after] = term.split("...");
    bool hasEllipsis = before.size() != term.size();
    int64_t named = static_cast<int64_t>(before.size() + (hasEllipsis ? after.size() : 0));
    int64_t rank = static_cast<int64_t>(shape->size());
    if (named > rank || (!hasEllipsis && named != rank))
      return std::nullopt;
    int64_t broadcast = rank - named;
    for (auto [i, c] : llvm::enumerate(before))
      extents[c] = std::max(extents.lookup(c), (*shape)[i]);
    for (auto [i, c] : llvm::enumerate(after))
      extents[c] = std::max(extents.lookup(c), (*shape)[before.size() + broadcast + i]);
    if (static_cast<int64_t>(ellipsis.size()) < broadcast)
      ellipsis.insert(ellipsis.begin(), broadcast - ellipsis.size(), 1);
    for (int64_t i = 0; i < broadcast; ++i) {
      int64_t &e = ellipsis[ellipsis.size() - broadcast + i];
      e = std::max(e, (*shape)[before.size() + i]);
    }
  }
  uint64_t all = product(ellipsis);
  for (auto &entry : extents)
    all *= static_cast<uint64_t>(entry.second);
  if (op->getNumOperands() == 1) {
    // A transpose or a reduction of one operand: one add per element read
    // when it reduces.
    auto y = staticShape(op->getResult(0));
    if (!y)
      return std::nullopt;
    return product(*y) < all ? all : 0;
  }
  return 2 * (op->getNumOperands() - 1) * all;
}

/// FLOPs of the FFTs of DFT and STFT (5 N log2 N per complex transform of
/// length N, half that for a real input).
uint64_t fftFlops(uint64_t transforms, uint64_t n, bool real) {
  if (n < 2)
    return 0;
  double f = (real ? 2.5 : 5.0) * double(n) * std::log2(double(n)) * double(transforms);
  return static_cast<uint64_t>(std::llround(f));
}

/// The FLOPs of one node of a counted op type; nothing when its shapes are
/// not all static (or not what the op needs).
std::optional<uint64_t> nodeFlops(Operation *op, StringRef type) {
  if (op->getNumOperands() < 1 || op->getNumResults() < 1)
    return std::nullopt;
  auto x = staticShape(op->getOperand(0));
  auto y = staticShape(op->getResult(0));
  auto operand = [&](unsigned i) -> std::optional<ArrayRef<int64_t>> {
    return i < op->getNumOperands() ? staticShape(op->getOperand(i)) : std::nullopt;
  };
  if (type == "Einsum")
    return einsumFlops(op);
  if (!x || !y)
    return std::nullopt;
  if (type == "Conv" || type == "ConvInteger" || type == "QLinearConv") {
    // W: M x C/G x kernel; each output element is C/G * prod(kernel) MACs.
    auto w = operand(type == "QLinearConv" ? 3 : 1);
    if (!w || w->size() < 2)
      return std::nullopt;
    return 2 * product(*y) * product(w->drop_front());
  }
  if (type == "ConvTranspose") {
    // W: C x M/G x kernel; each input element scatters into M/G * kernel.
    auto w = operand(1);
    if (!w || w->size() < 2)
      return std::nullopt;
    return 2 * product(*x) * product(w->drop_front());
  }
  if (type == "MatMul" || type == "MatMulInteger" || type == "QLinearMatMul") {
    if (x->empty())
      return std::nullopt;
    return 2 * product(*y) * static_cast<uint64_t>(x->back());
  }
  if (type == "Gemm") {
    // A is M x K (K x M with transA).
    if (x->size() != 2)
      return std::nullopt;
    int64_t k = intAttr(op, "transA", 0) ? (*x)[0] : (*x)[1];
    return 2 * product(*y) * static_cast<uint64_t>(k);
  }
  if (type == "Attention") {
    auto k = operand(1), v = operand(2);
    if (!k || !v || x->size() != k->size() || x->size() != v->size() ||
        (x->size() != 3 && x->size() != 4))
      return std::nullopt;
    int64_t batch = (*x)[0], qHeads, qSeq, kvSeq, qkHead, vHead;
    if (x->size() == 4) {
      qHeads = (*x)[1];
      qSeq = (*x)[2];
      kvSeq = (*k)[2];
      qkHead = (*x)[3];
      vHead = (*v)[3];
    } else {
      qHeads = intAttr(op, "q_num_heads", 0);
      int64_t kvHeads = intAttr(op, "kv_num_heads", 0);
      if (qHeads < 1 || kvHeads < 1)
        return std::nullopt;
      qSeq = (*x)[1];
      kvSeq = (*k)[1];
      qkHead = (*x)[2] / qHeads;
      vHead = (*v)[2] / kvHeads;
    }
    // The past keys are attended to as well.
    if (auto past = operand(4); past && past->size() == 4)
      kvSeq += (*past)[2];
    return 2 * product({batch, qHeads, qSeq, kvSeq}) * static_cast<uint64_t>(qkHead + vHead);
  }
  if (type == "RNN" || type == "GRU" || type == "LSTM") {
    // X: seq x batch x input (batch x seq with layout 1); W: directions x
    // gates * hidden x input; R: directions x gates * hidden x hidden.
    auto w = operand(1), r = operand(2);
    if (x->size() != 3 || !w || !r || w->size() != 3 || r->size() != 3)
      return std::nullopt;
    return 2 * product(x->take_front(2)) * product(w->take_front(2)) *
           static_cast<uint64_t>((*w)[2] + (*r)[2]);
  }
  if (type == "DFT") {
    // The input is [..., N, 1] (real) or [..., N, 2] (complex).
    int64_t rank = static_cast<int64_t>(x->size());
    int64_t axis = intAttr(op, "axis", 1);
    if (axis < 0)
      axis += rank;
    if (rank < 2 || axis < 0 || axis >= rank - 1)
      return std::nullopt;
    uint64_t n = static_cast<uint64_t>((*x)[axis]);
    if (n == 0)
      return 0;
    return fftFlops(product(*x) / (n * static_cast<uint64_t>(x->back())), n, x->back() == 1);
  }
  if (type == "STFT") {
    // Output: batch x frames x bins x 2; the frame is the window's length
    // (else the bins tell it).
    if (y->size() != 4 || x->size() != 3)
      return std::nullopt;
    int64_t bins = (*y)[2];
    int64_t n = intAttr(op, "onesided", 1) ? 2 * (bins - 1) : bins;
    if (auto window = operand(2); window && window->size() == 1)
      n = (*window)[0];
    return fftFlops(product(y->take_front(2)), static_cast<uint64_t>(std::max<int64_t>(n, 0)),
                    x->back() == 1);
  }
  if (type == "MaxPool" || type == "AveragePool" || type == "LpPool") {
    auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
    if (!kernel)
      return std::nullopt;
    return product(*y) * product(kernel.asArrayRef());
  }
  // Global pooling and reductions: one per element read.
  return product(*x);
}
} // namespace

namespace {
std::vector<NodeFlops> countInferred(func::FuncOp func) {
  std::vector<NodeFlops> nodes;
  func.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (!name.consume_front("onnx.") || !llvm::is_contained(kinds, name))
      return;
    NodeFlops node;
    node.opType = name.str();
    node.flops = nodeFlops(op, name);
    // The importer's location: NameLoc("node", FileLineColLoc(model, line)).
    Location loc = op->getLoc();
    if (auto fused = dyn_cast<FusedLoc>(loc); fused && fused.getLocations().size() == 1)
      loc = fused.getLocations().front();
    if (auto named = dyn_cast<NameLoc>(loc)) {
      node.name = named.getName().str();
      if (auto file = dyn_cast<FileLineColLoc>(named.getChildLoc()))
        node.line = file.getLine();
    }
    nodes.push_back(std::move(node));
  });
  return nodes;
}
} // namespace

std::vector<NodeFlops> countNodeFlops(func::FuncOp func) {
  std::vector<NodeFlops> nodes = countInferred(func);
  if (llvm::all_of(nodes, [](const NodeFlops &n) { return n.flops.has_value(); }))
    return nodes;
  // Shapes that only folding makes static (exporters compute a Pad's pads
  // or a Reshape's shape from constants): fold as the compiler does, infer
  // again, count again. No counted node is removed unless its operands
  // are all constant, which is no run-time work.
  PassManager pm(func.getContext(), func::FuncOp::getOperationName());
  pm.addPass(createOnnxFoldConstantsPass());
  pm.addPass(onnx::createOnnxInferShapesPass());
  if (failed(pm.run(func)))
    return nodes;
  return countInferred(func);
}

llvm::Expected<FlopCount>
countFlops(StringRef modelPath,
           const std::vector<std::pair<std::string, std::vector<int64_t>>> &shapes) {
  auto model = loadModel(modelPath);
  if (!model)
    return model.takeError();

  // Fix the inputs' dims in the model itself: the importer then infers
  // static shapes from the start.
  ::onnx::GraphProto *graph = model->proto->mutable_graph();
  for (const auto &[name, dims] : shapes) {
    ::onnx::ValueInfoProto *input = nullptr;
    for (auto &candidate : *graph->mutable_input())
      if (candidate.name() == name)
        input = &candidate;
    if (!input || !input->type().has_tensor_type())
      return makeError(modelPath + ": '" + name + "' is not a tensor input of the model");
    ::onnx::TensorShapeProto *shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : dims)
      shape->add_dim()->set_dim_value(d);
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    if (diagnostic.empty() && d.getSeverity() == DiagnosticSeverity::Error)
      diagnostic = d.str();
    return success();
  });
  auto module = importModel(context, *model);
  if (!module)
    return module.takeError();
  auto funcs = (*module)->getOps<func::FuncOp>();
  if (funcs.empty())
    return makeError(modelPath + ": the imported model has no function");
  func::FuncOp func = *funcs.begin();
  if (failed(onnx::inferShapesInFunction(func)))
    return makeError(modelPath + ": shape inference failed" +
                     (diagnostic.empty() ? "" : ": " + diagnostic));

  uint64_t nodes[std::size(kinds)] = {}, flops[std::size(kinds)] = {};
  FlopCount count;
  for (const NodeFlops &node : countNodeFlops(func)) {
    size_t k = llvm::find(kinds, node.opType) - std::begin(kinds);
    if (!node.flops) {
      ++count.uncounted;
      continue;
    }
    ++nodes[k];
    flops[k] += *node.flops;
    count.total += *node.flops;
  }
  for (auto [k, kind] : llvm::enumerate(kinds))
    if (nodes[k])
      count.byOp.push_back({kind.str(), nodes[k], flops[k]});
  return count;
}

} // namespace onnxcc
