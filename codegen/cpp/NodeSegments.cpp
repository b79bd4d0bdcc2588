//===- NodeSegments.cpp - The lowered code of each ONNX node --------------===//
#include "codegen/cpp/NodeSegments.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace mlir;
using llvm::StringRef;

namespace onnxcc::codegen {

SmallVector<SourceNode> sourceNodes(Location loc) {
  SmallVector<SourceNode> nodes;
  std::function<void(Location)> visit = [&](Location l) {
    if (auto fused = dyn_cast<FusedLoc>(l)) {
      for (Location inner : fused.getLocations())
        visit(inner);
    } else if (auto name = dyn_cast<NameLoc>(l)) {
      SourceNode node{name.getName().str(), 0};
      if (auto file = dyn_cast<FileLineColLoc>(name.getChildLoc()))
        node.line = file.getLine();
      if (!llvm::is_contained(nodes, node))
        nodes.push_back(std::move(node));
    } else if (auto site = dyn_cast<CallSiteLoc>(l)) {
      visit(site.getCallee());
      visit(site.getCaller());
    }
  };
  visit(loc);
  return nodes;
}

std::string loweredOpType(Location loc) {
  std::string type;
  std::function<void(Location)> visit = [&](Location l) {
    auto fused = dyn_cast<FusedLoc>(l);
    if (!fused || !type.empty())
      return;
    if (auto meta = dyn_cast_or_null<StringAttr>(fused.getMetadata())) {
      type = meta.str();
      return;
    }
    for (Location inner : fused.getLocations())
      visit(inner);
  };
  visit(loc);
  return type;
}

namespace {
/// What `op` (a top-level op of the function) does, added to `segment`.
void classify(Operation *op, NodeSegment &segment) {
  op->walk([&](Operation *inner) {
    if (isa<scf::ForOp, scf::ParallelOp, scf::WhileOp>(inner)) {
      segment.loops = true;
    } else if (isa<memref::CopyOp>(inner)) {
      segment.copies = true;
    } else if (isa<memref::StoreOp>(inner)) {
      segment.stores = true;
    } else if (auto call = dyn_cast<func::CallOp>(inner)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
      auto runtime = callee ? callee->getAttrOfType<StringAttr>("onnxcc.runtime") : StringAttr();
      StringRef name = runtime ? runtime.getValue() : call.getCallee();
      if (!name.consume_front("onnxcc_rt::kernels::"))
        name.consume_front("onnxcc_rt::");
      if (!llvm::is_contained(segment.calls, name))
        segment.calls.push_back(name.str());
    }
  });
}
} // namespace

std::vector<NodeSegment> segmentFunction(func::FuncOp func) {
  std::vector<NodeSegment> segments;
  if (func.getBody().empty())
    return segments;
  for (Operation &op : func.getBody().front().without_terminator()) {
    std::string type = loweredOpType(op.getLoc());
    SmallVector<SourceNode> nodes = sourceNodes(op.getLoc());
    std::string name = nodes.empty() ? std::string() : nodes.front().name;
    bool continues =
        !segments.empty() &&
        (type.empty() || (segments.back().opType == type && segments.back().nodeName == name));
    if (!continues) {
      segments.emplace_back();
      segments.back().opType = type;
      segments.back().nodeName = name;
    }
    NodeSegment &segment = segments.back();
    segment.ops.push_back(&op);
    if (!type.empty())
      for (SourceNode &node : nodes)
        if (!llvm::is_contained(segment.sources, node))
          segment.sources.push_back(std::move(node));
    classify(&op, segment);
  }
  return segments;
}

std::string describePath(llvm::ArrayRef<std::string> calls, bool loops, bool copies) {
  std::string path = llvm::join(calls, " + ");
  if (loops)
    path += path.empty() ? "loops" : " + loops";
  if (path.empty())
    path = copies ? "copy" : "-";
  return path;
}

} // namespace onnxcc::codegen
