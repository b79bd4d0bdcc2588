//===- Report.cpp - onnxcc compile --report: the path of each heavy op ----===//
//
// The lowered function's top-level ops carry the ONNX nodes they came from
// (codegen/cpp/NodeSegments.h): a node of the generated code that holds a
// node the FLOP count knows (Conv, MatMul, attention, pooling, RNNs...)
// is a heavy op, and its path is what its code calls: runtime-support
// kernels, or loop nests the lowering generated. A fused node (FusedConv,
// ScaledDotProductAttention...) holds several ONNX nodes; their FLOPs add
// up.
//
//===----------------------------------------------------------------------===//
#include "compiler/Report.h"

#include "codegen/SourceText.h"
#include "codegen/cpp/NodeSegments.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace mlir;
using llvm::StringRef;

namespace onnxcc {

namespace {
/// 1234567 -> "1.23 M".
std::string humanFlops(uint64_t value) {
  const char *units[] = {"", " K", " M", " G", " T"};
  double v = static_cast<double>(value);
  unsigned u = 0;
  while (v >= 1000 && u + 1 < std::size(units)) {
    v /= 1000;
    ++u;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format(u ? "%.4g" : "%.0f", v) << units[u];
  return text;
}

/// The main function of a lowered module (not the arena size function, not
/// a runtime-support declaration).
func::FuncOp mainFunction(ModuleOp module) {
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && !f->hasAttr("onnxcc.arena_size_of"))
      return f;
  return {};
}
} // namespace

CompileReport buildCompileReport(ModuleOp lowered, llvm::ArrayRef<NodeFlops> flops) {
  CompileReport report;
  // The nodes of the generated code, merged over their segments.
  struct Lowered {
    std::string name, opType;
    SmallVector<std::string> calls;
    bool loops = false, copies = false;
    /// The order of its first code that computes (views of its weights may
    /// come earlier, hoisted to the top of the function).
    int order = -1;
  };
  int computing = 0;
  std::vector<Lowered> nodes;
  std::map<std::pair<std::string, std::string>, size_t> byLabel;
  std::map<std::pair<std::string, unsigned>, size_t> bySource; // ONNX node -> nodes[i]
  std::map<std::string, size_t> bySourceName;
  if (func::FuncOp func = mainFunction(lowered)) {
    std::vector<codegen::NodeSegment> segments = codegen::segmentFunction(func);
    // Segments that only view weights (hoisted to the top) claim their
    // sources after those that compute: a constant shared by several nodes
    // (a zero point) carries all their names, and must not take a node's
    // code away from the call that computes it.
    std::vector<std::pair<std::string, unsigned>> viewSources;
    std::vector<size_t> viewNodes;
    for (const codegen::NodeSegment &segment : segments) {
      if (segment.opType.empty())
        continue;
      auto [it, added] = byLabel.try_emplace({segment.opType, segment.nodeName}, nodes.size());
      if (added)
        nodes.push_back({segment.nodeName, segment.opType, {}, false, false, -1});
      Lowered &node = nodes[it->second];
      if (segment.work() && node.order < 0)
        node.order = computing++;
      for (const std::string &call : segment.calls)
        if (!llvm::is_contained(node.calls, call))
          node.calls.push_back(call);
      node.loops |= segment.loops;
      node.copies |= segment.copies || segment.stores;
      // A node's code stays with the first generated node that names it.
      for (const codegen::SourceNode &source : segment.sources) {
        if (!segment.work()) {
          viewSources.push_back({source.name, source.line});
          viewNodes.push_back(it->second);
          continue;
        }
        bySource.try_emplace({source.name, source.line}, it->second);
        bySourceName.try_emplace(source.name, it->second);
      }
    }
    for (auto [source, node] : llvm::zip(viewSources, viewNodes)) {
      bySource.try_emplace(source, node);
      bySourceName.try_emplace(source.first, node);
    }
  }

  // Each counted ONNX node to the generated node holding it.
  std::map<size_t, HeavyOp> rows; // by generated node
  std::vector<std::pair<int, HeavyOp>> folded;
  for (auto [k, counted] : llvm::enumerate(flops)) {
    if (counted.flops)
      report.totalFlops += *counted.flops;
    // By name and position; by name alone where a pass made the position
    // differ (a node it rebuilt).
    size_t index;
    if (auto it = bySource.find({counted.name, counted.line}); it != bySource.end()) {
      index = it->second;
    } else if (auto byName = bySourceName.find(counted.name); byName != bySourceName.end()) {
      index = byName->second;
    } else {
      HeavyOp op;
      op.node = counted.name;
      op.opType = counted.opType;
      op.sourceTypes = {counted.opType};
      op.path = "folded";
      op.flops = counted.flops;
      folded.push_back({static_cast<int>(nodes.size() + flops.size() + k), std::move(op)});
      continue;
    }
    auto [row, added] = rows.try_emplace(index);
    HeavyOp &op = row->second;
    if (added) {
      const Lowered &node = nodes[index];
      op.node = node.name;
      op.opType = node.opType;
      op.path = codegen::describePath(node.calls, node.loops, node.copies);
      op.kernel = !node.calls.empty();
      op.loops = node.loops;
      op.flops = 0;
    }
    if (!llvm::is_contained(op.sourceTypes, counted.opType))
      op.sourceTypes.push_back(counted.opType);
    if (op.flops && counted.flops)
      *op.flops += *counted.flops;
    else
      op.flops.reset();
  }

  std::vector<std::pair<int, HeavyOp>> ordered;
  int last = computing;
  for (auto &[index, op] : rows)
    ordered.push_back({nodes[index].order >= 0 ? nodes[index].order : last++, std::move(op)});
  for (auto &entry : folded)
    ordered.push_back(std::move(entry));
  llvm::sort(ordered, [](const auto &a, const auto &b) {
    const std::optional<uint64_t> &x = a.second.flops, &y = b.second.flops;
    if (x.has_value() != y.has_value())
      return x.has_value();
    if (x && *x != *y)
      return *x > *y;
    return a.first < b.first;
  });
  for (auto &entry : ordered)
    report.ops.push_back(std::move(entry.second));
  return report;
}

void printCompileReport(const CompileReport &report, llvm::raw_ostream &os) {
  double total = static_cast<double>(report.totalFlops);
  auto share = [&](std::optional<uint64_t> f) -> std::string {
    if (!f)
      return "?";
    std::string text;
    llvm::raw_string_ostream s(text);
    s << llvm::format("%.1f%%", total > 0 ? 100.0 * double(*f) / total : 0.0);
    return text;
  };
  os << "heavy ops of " << codegen::displayText(report.model) << " (target-cpu " << report.targetCpu
     << ", kernels " << report.kernelIsa << ", threads " << report.threads << "), by FLOPs:\n";
  size_t pathWidth = 4, typeWidth = 2;
  for (const HeavyOp &op : report.ops) {
    pathWidth = std::max(pathWidth, op.path.size());
    typeWidth = std::max(typeWidth, op.opType.size());
  }
  pathWidth = std::min<size_t>(pathWidth, 40);
  typeWidth = std::min<size_t>(typeWidth, 28);
  os << llvm::left_justify("FLOPs", 10) << " " << llvm::right_justify("share", 6) << "  "
     << llvm::left_justify("path", pathWidth) << "  " << llvm::left_justify("op", typeWidth)
     << "  node\n";
  for (const HeavyOp &op : report.ops) {
    std::string type = op.opType;
    // What a fused node holds, where that is not obvious from its name.
    if (op.sourceTypes.size() > 1 ||
        (op.sourceTypes.size() == 1 && op.opType != op.sourceTypes[0] &&
         !StringRef(op.opType).contains(op.sourceTypes[0])))
      type += " (" + llvm::join(op.sourceTypes, "+") + ")";
    os << llvm::left_justify(op.flops ? humanFlops(*op.flops) : std::string("?"), 10) << " "
       << llvm::right_justify(share(op.flops), 6) << "  " << llvm::left_justify(op.path, pathWidth)
       << "  " << llvm::left_justify(type, typeWidth) << "  " << codegen::displayText(op.node, 120)
       << "\n";
  }
  // Totals: kernels, loop nests (with no kernel), folded.
  struct Sum {
    size_t count = 0;
    uint64_t flops = 0;
  } kernels, loops, other;
  size_t unknown = 0;
  for (const HeavyOp &op : report.ops) {
    Sum &sum = op.kernel ? kernels : op.loops ? loops : other;
    ++sum.count;
    sum.flops += op.flops.value_or(0);
    unknown += !op.flops;
  }
  auto part = [&](const Sum &sum, StringRef what) {
    os << ", " << sum.count << " " << what << " (" << share(sum.flops) << ")";
  };
  os << "total: " << humanFlops(report.totalFlops) << (report.totalFlops < 1000 ? " " : "")
     << "FLOP in " << report.ops.size() << (report.ops.size() == 1 ? " heavy op" : " heavy ops");
  part(kernels, "in kernels");
  part(loops, "in loops");
  if (other.count)
    part(other, "folded or copies");
  if (unknown)
    os << "; " << unknown << " of unknown shape (--shape gives the dims)";
  os << "\n";
}

void printCompileReportJson(const CompileReport &report, llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("model", codegen::cleanText(report.model));
    j.attribute("target_cpu", report.targetCpu);
    j.attribute("kernel_isa", report.kernelIsa);
    j.attribute("threads", report.threads);
    j.attribute("flops", static_cast<int64_t>(report.totalFlops));
    j.attributeArray("heavy_ops", [&] {
      for (const HeavyOp &op : report.ops)
        j.object([&] {
          j.attribute("node", codegen::cleanText(op.node));
          j.attribute("op_type", codegen::cleanText(op.opType));
          j.attributeArray("onnx_op_types", [&] {
            for (const std::string &t : op.sourceTypes)
              j.value(t);
          });
          j.attribute("path", op.path);
          j.attribute("kernel", op.kernel);
          j.attribute("loops", op.loops);
          if (op.flops) {
            j.attribute("flops", static_cast<int64_t>(*op.flops));
            j.attribute("share",
                        report.totalFlops ? double(*op.flops) / double(report.totalFlops) : 0.0);
          } else {
            j.attribute("flops", nullptr);
            j.attribute("share", nullptr);
          }
        });
    });
  });
  os << "\n";
}

} // namespace onnxcc
