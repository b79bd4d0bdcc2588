//===- OnnxOps.cpp - Verifiers and folders of onnx ops ------------------===//
#include "dialects/onnx/OnnxOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace onnxcc::onnx;

#include "dialects/onnx/OnnxInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/onnx/OnnxOps.cpp.inc"

namespace {
/// The rank of `v` when it is a ranked tensor, else nullopt.
std::optional<int64_t> rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return std::nullopt;
}

/// Checks that `axis` lies in [-rank, rank).
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank,
                         StringRef what = "axis") {
  if (axis < -rank || axis >= rank)
    return op->emitOpError() << what << " " << axis << " is out of range for rank "
                             << rank;
  return success();
}

/// Verifies a subgraph region: one block ending in onnx.Yield with
/// `expectedResults` values (when known).
LogicalResult verifySubgraph(Operation *op, Region &region, StringRef name,
                             std::optional<size_t> expectedArgs,
                             std::optional<size_t> expectedResults) {
  if (region.empty())
    return op->emitOpError() << "region '" << name << "' is empty";
  Block &block = region.front();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "region '" << name
                             << "' must end with onnx.Yield";
  if (expectedArgs && block.getNumArguments() != *expectedArgs)
    return op->emitOpError() << "region '" << name << "' has "
                             << block.getNumArguments() << " arguments, expected "
                             << *expectedArgs;
  if (expectedResults && yield.getNumOperands() != *expectedResults)
    return op->emitOpError() << "region '" << name << "' yields "
                             << yield.getNumOperands() << " values, expected "
                             << *expectedResults;
  return success();
}
} // namespace

OpFoldResult NoValueOp::fold(FoldAdaptor) { return UnitAttr::get(getContext()); }

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  std::optional<int64_t> rank;
  for (Value v : getInputs()) {
    auto r = rankOf(v);
    if (!r)
      continue;
    if (rank && *rank != *r)
      return emitOpError() << "inputs have different ranks (" << *rank << " and "
                           << *r << ")";
    rank = r;
  }
  if (rank)
    return verifyAxis(*this, getAxis(), *rank);
  return success();
}

LogicalResult ConstantOp::verify() {
  int present = 0;
  for (StringRef name : {"value", "sparse_value", "value_float", "value_floats",
                         "value_int", "value_ints", "value_string", "value_strings"})
    present += (*this)->hasAttr(name) ? 1 : 0;
  if (present != 1)
    return emitOpError() << "needs exactly one value attribute, has " << present;
  return success();
}

LogicalResult ConvOp::verify() {
  auto xRank = rankOf(getX());
  auto wRank = rankOf(getW());
  if (xRank && *xRank < 3)
    return emitOpError() << "input X must have rank >= 3, has rank " << *xRank;
  if (xRank && wRank && *xRank != *wRank)
    return emitOpError() << "input X (rank " << *xRank << ") and weight W (rank "
                         << *wRank << ") must have the same rank";
  int64_t spatial = xRank ? *xRank - 2 : (wRank ? *wRank - 2 : -1);
  if (getGroup() < 1)
    return emitOpError() << "group must be positive, is " << getGroup();
  auto checkLen = [&](std::optional<ArrayRef<int64_t>> a, StringRef name,
                      int64_t factor) -> LogicalResult {
    if (!a || spatial < 0)
      return success();
    if (static_cast<int64_t>(a->size()) != factor * spatial)
      return emitOpError() << name << " has " << a->size() << " values, expected "
                           << factor * spatial;
    return success();
  };
  if (failed(checkLen(getKernelShape(), "kernel_shape", 1)) ||
      failed(checkLen(getStrides(), "strides", 1)) ||
      failed(checkLen(getDilations(), "dilations", 1)) ||
      failed(checkLen(getPads(), "pads", 2)))
    return failure();
  if (auto s = getStrides())
    if (llvm::any_of(*s, [](int64_t v) { return v < 1; }))
      return emitOpError("strides must be positive");
  if (auto d = getDilations())
    if (llvm::any_of(*d, [](int64_t v) { return v < 1; }))
      return emitOpError("dilations must be positive");
  if (auto p = getPads())
    if (llvm::any_of(*p, [](int64_t v) { return v < 0; }))
      return emitOpError("pads must be non-negative");
  StringRef autoPad = getAutoPad();
  if (!llvm::is_contained({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}, autoPad))
    return emitOpError() << "unknown auto_pad '" << autoPad << "'";
  return success();
}

LogicalResult GemmOp::verify() {
  for (Value v : {getA(), getB()})
    if (auto r = rankOf(v); r && *r != 2)
      return emitOpError() << "inputs A and B must have rank 2, one has rank " << *r;
  return success();
}

LogicalResult TransposeOp::verify() {
  auto perm = getPerm();
  if (!perm)
    return success();
  llvm::SmallBitVector seen(perm->size());
  for (int64_t p : *perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm->size()) || seen.test(p))
      return emitOpError("perm must be a permutation of [0, rank)");
    seen.set(p);
  }
  if (auto r = rankOf(getData()); r && *r != static_cast<int64_t>(perm->size()))
    return emitOpError() << "perm has " << perm->size()
                         << " values but the input has rank " << *r;
  return success();
}

LogicalResult IfOp::verify() {
  size_t n = getNumResults();
  if (failed(verifySubgraph(*this, getThenBranch(), "then_branch", 0, n)) ||
      failed(verifySubgraph(*this, getElseBranch(), "else_branch", 0, n)))
    return failure();
  return success();
}

LogicalResult LoopOp::verify() {
  // body(iteration_num, condition, loop-carried...) -> (condition, carried..., scan...)
  size_t carried = getVInitial().size();
  if (failed(verifySubgraph(*this, getBody(), "body", carried + 2, std::nullopt)))
    return failure();
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getNumOperands() < carried + 1)
    return emitOpError() << "body yields " << yield.getNumOperands()
                         << " values, expected at least " << carried + 1;
  if (getNumResults() != yield.getNumOperands() - 1)
    return emitOpError() << "has " << getNumResults() << " results but the body yields "
                         << yield.getNumOperands() - 1 << " loop values";
  return success();
}

LogicalResult ScanOp::verify() {
  int64_t numScanInputs = getNumScanInputs();
  int64_t numInputs = getInitialStateAndScanInputs().size();
  if (numScanInputs < 0 || numScanInputs > numInputs)
    return emitOpError() << "num_scan_inputs " << numScanInputs
                         << " is out of range for " << numInputs << " inputs";
  return verifySubgraph(*this, getBody(), "body", numInputs, getNumResults());
}
