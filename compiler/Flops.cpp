//===- Flops.cpp - Floating-point work of a model, for onnxcc bench -------===//
//
// The model is imported with its inputs' dims fixed, so that shape inference
// gives every value a static shape, and the FLOPs of the compute-bound ops
// are read off the operand and result types (see Flops.h for the formulas).
// The count is of the model as written, before the graph passes: fusing a
// bias or an activation into a Conv changes no multiply-add.
//
//===----------------------------------------------------------------------===//
#include "compiler/Flops.h"
#include "compiler/Errors.h"
#include "compiler/Importer.h"
#include "compiler/ModelLoader.h"
#include "compiler/Registration.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "onnx.pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc {

namespace {
/// The static shape of `value`, or nothing.
std::optional<ArrayRef<int64_t>> staticShape(Value value) {
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

/// The FLOPs of one node of a counted op type; nothing when its shapes are
/// not all static (or not what the op needs).
std::optional<uint64_t> nodeFlops(Operation *op, StringRef type) {
  if (op->getNumOperands() < 2 || op->getNumResults() < 1)
    return std::nullopt;
  auto a = staticShape(op->getOperand(0)), b = staticShape(op->getOperand(1));
  auto y = staticShape(op->getResult(0));
  if (!a || !b || !y)
    return std::nullopt;
  if (type == "Conv") {
    // W: M x C/G x kernel; each output element is C/G * prod(kernel) MACs.
    if (b->size() < 2)
      return std::nullopt;
    return 2 * product(*y) * product(b->drop_front());
  }
  if (type == "ConvTranspose") {
    // W: C x M/G x kernel; each input element scatters into M/G * kernel.
    if (b->size() < 2)
      return std::nullopt;
    return 2 * product(*a) * product(b->drop_front());
  }
  if (type == "MatMul") {
    if (a->empty())
      return std::nullopt;
    return 2 * product(*y) * static_cast<uint64_t>(a->back());
  }
  // Gemm: A is M x K (K x M with transA).
  if (a->size() != 2)
    return std::nullopt;
  auto transA = op->getAttrOfType<IntegerAttr>("transA");
  int64_t k = transA && transA.getInt() ? (*a)[0] : (*a)[1];
  return 2 * product(*y) * static_cast<uint64_t>(k);
}
} // namespace

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

  static constexpr StringRef kinds[] = {"Conv", "ConvTranspose", "MatMul", "Gemm"};
  uint64_t nodes[std::size(kinds)] = {}, flops[std::size(kinds)] = {};
  FlopCount count;
  func.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (!name.consume_front("onnx."))
      return;
    for (auto [k, kind] : llvm::enumerate(kinds)) {
      if (name != kind)
        continue;
      if (std::optional<uint64_t> f = nodeFlops(op, kind)) {
        ++nodes[k];
        flops[k] += *f;
        count.total += *f;
      } else {
        ++count.uncounted;
      }
    }
  });
  for (auto [k, kind] : llvm::enumerate(kinds))
    if (nodes[k])
      count.byOp.push_back({kind.str(), nodes[k], flops[k]});
  return count;
}

} // namespace onnxcc
