//===- Graph.cpp - onnxcc graph: draw a model's graph ---------------------===//
//
// The main function of the imported (or optimized) module becomes a list of
// nodes (graph inputs, initializers, ops, graph outputs) and edges (values,
// labelled with their type). A layered layout places them: longest-path
// layers, dummy nodes on long edges, barycenter sweeps for the order within
// a layer, then x coordinates balanced between neighbours. The writers turn
// that into DOT, SVG or an HTML page with the SVG, its data and a small
// script for pan, zoom and a details panel.
//
//===----------------------------------------------------------------------===//
#include "compiler/Graph.h"
#include "codegen/SourceText.h"
#include "compiler/Driver.h"
#include "compiler/Errors.h"
#include "compiler/Importer.h"
#include "compiler/Inspect.h"
#include "compiler/ModelLoader.h"

#include "dialects/onnx/OnnxDialect.h"
#include "dialects/onnx/OnnxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace onnxcc {
namespace {

//===----------------------------------------------------------------------===//
// Strings
//===----------------------------------------------------------------------===//

// Names come from the model file and protobuf does not check them: they
// reach DOT, SVG and HTML only through codegen/SourceText.h.
using codegen::cleanText;

/// At most `limit` characters of clean text `s`, cut at a character
/// boundary, with an ellipsis when cut.
std::string shorten(const std::string &s, size_t limit) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
      continue;
    if (chars == limit)
      return s.substr(0, i) + "\xE2\x80\xA6";
    ++chars;
  }
  return s;
}

/// Characters (not bytes) of clean text, for the width of a label.
size_t charCount(const std::string &s) {
  size_t n = 0;
  for (char c : s)
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

using codegen::dotString;
using codegen::xmlText;

/// A number with at most two decimals, the same on every machine.
std::string num(double v) {
  double r = std::round(v * 100) / 100;
  if (r == 0)
    r = 0; // no "-0"
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.2f", r);
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.')
    s.pop_back();
  return s;
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

/// The dtype name `onnxcc inspect` prints, else the MLIR type.
std::string elementName(Type t) {
  std::string name = dtypeName(t);
  if (name == "unknown")
    llvm::raw_string_ostream(name = "") << t;
  return name;
}

/// `float32[1, 3, 224, 224]`; a dynamic dim by its name in `dimParams` (a
/// graph input's or output's onnx.dim_params) when it has one, else `?`.
std::string typeName(Type t, ArrayAttr dimParams = {}) {
  if (auto ranked = dyn_cast<RankedTensorType>(t)) {
    std::string s = elementName(ranked.getElementType()) + "[";
    for (int64_t i = 0; i < ranked.getRank(); ++i) {
      if (i)
        s += ", ";
      int64_t d = ranked.getDimSize(i);
      StringAttr param;
      if (dimParams && static_cast<size_t>(i) < dimParams.size())
        param = dyn_cast<StringAttr>(dimParams[i]);
      if (!ShapedType::isDynamic(d))
        s += std::to_string(d);
      else if (param && !param.getValue().empty())
        s += cleanText(param.getValue());
      else
        s += "?";
    }
    return s + "]";
  }
  if (auto unranked = dyn_cast<UnrankedTensorType>(t))
    return elementName(unranked.getElementType()) + "[*]";
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return cleanText(s);
}

enum class Kind { Input, Initializer, Op, Output };

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Input: return "input";
  case Kind::Initializer: return "initializer";
  case Kind::Op: return "op";
  case Kind::Output: return "output";
  }
  return "op";
}

struct Port {
  std::string name;
  std::string type;
};

struct Node {
  Kind kind = Kind::Op;
  /// The op (`Conv`, `onnx.FusedConv` outside the onnx dialect), or the value
  /// name for inputs, outputs and initializers.
  std::string title;
  /// The ONNX node name of an op.
  std::string name;
  /// One line under the title: the type of an input/output, the shape and
  /// size of a constant, the subgraphs of an If/Loop.
  std::string note;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<Port> inputs, outputs;
  /// Bytes of a constant's data (0 when unknown or not a constant).
  uint64_t bytes = 0;
  /// The ops the importer wrote this node as, when more than one.
  std::string importedAs;
};

struct Edge {
  int from, to;
  std::string label;
};

struct Graph {
  std::string title;
  std::vector<Node> nodes;
  std::vector<Edge> edges;
};

/// The ONNX node names a location carries: one for an imported node, the
/// nodes a fused op replaced (its anchor first) for a fused location.
void collectNames(Location loc, std::vector<std::string> &names) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    names.push_back(cleanText(name.getName().getValue()));
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      collectNames(l, names);
}

/// The importer gives an initializer a bare NameLoc; a node's NameLoc wraps
/// its place in the file.
bool isInitializer(Operation *op) {
  if (!isa<onnx::ConstantOp>(op))
    return false;
  auto name = dyn_cast<NameLoc>(op->getLoc());
  return name && isa<UnknownLoc>(name.getChildLoc());
}

/// Bytes of a constant result, from its type.
uint64_t constantBytes(Type t) {
  auto shaped = dyn_cast<RankedTensorType>(t);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  Type element = shaped.getElementType();
  uint64_t bits = 0;
  if (element.isIntOrFloat())
    bits = element.getIntOrFloatBitWidth();
  else if (auto complex = dyn_cast<ComplexType>(element))
    bits = 2 * complex.getElementType().getIntOrFloatBitWidth();
  if (element.isInteger(1))
    bits = 8;
  uint64_t count = static_cast<uint64_t>(shaped.getNumElements());
  return (count * bits + 7) / 8;
}

std::string attrText(Attribute attr) {
  if (auto elements = dyn_cast<ElementsAttr>(attr)) {
    if (elements.getNumElements() > 16)
      return typeName(elements.getType()) + " (" + std::to_string(elements.getNumElements()) +
             " values)";
  }
  std::string s;
  llvm::raw_string_ostream(s) << attr;
  return shorten(cleanText(s), 300);
}

/// The main function as nodes and edges.
Graph buildGraph(func::FuncOp func, StringRef title) {
  Graph graph;
  graph.title = cleanText(title);
  llvm::DenseMap<Value, int> producer;
  llvm::DenseMap<Value, std::string> valueName;
  // The graph inputs' types with their dim names; every other value's type
  // comes from typeName alone.
  llvm::DenseMap<Value, std::string> inputType;
  auto typeOf = [&](Value v) {
    auto it = inputType.find(v);
    return it == inputType.end() ? typeName(v.getType()) : it->second;
  };

  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Node node;
    node.kind = Kind::Input;
    auto name = func.getArgAttrOfType<StringAttr>(i, "onnx.name");
    node.title = name ? cleanText(name.getValue()) : "input " + std::to_string(i);
    node.note = typeName(func.getArgument(i).getType(),
                         func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params"));
    inputType[func.getArgument(i)] = node.note;
    node.outputs.push_back({node.title, node.note});
    producer[func.getArgument(i)] = graph.nodes.size();
    valueName[func.getArgument(i)] = node.title;
    graph.nodes.push_back(std::move(node));
  }

  // Edges are (producer, consumer) pairs, each once however often the value
  // is used.
  llvm::DenseSet<std::pair<Value, int>> seen;
  auto addEdge = [&](Value v, int to) {
    auto it = producer.find(v);
    if (it == producer.end() || isa<NoneType>(v.getType()))
      return;
    if (!seen.insert({v, to}).second)
      return;
    graph.edges.push_back({it->second, to, typeOf(v)});
  };
  auto portOf = [&](Value v) -> Port {
    if (isa<NoneType>(v.getType()))
      return {"(none)", "none"};
    auto it = valueName.find(v);
    return {it == valueName.end() ? std::string("?") : it->second, typeOf(v)};
  };

  Region &body = func.getBody();
  Operation *returnOp = nullptr;
  // The ops of the node being built: one ONNX node the importer wrote as
  // several ops (an attribute of an older opset that became a Constant
  // input, ...) stays one node. They are consecutive and share a location.
  Location groupLoc = UnknownLoc::get(func.getContext());
  std::vector<std::string> groupOps;
  unsigned groupResults = 0;
  for (Operation &op : body.front()) {
    if (isa<func::ReturnOp>(op)) {
      returnOp = &op;
      continue;
    }
    // Placeholders for absent optional inputs are no nodes of the model.
    if (isa<onnx::NoValueOp>(op))
      continue;
    bool initializer = isInitializer(&op);
    std::string shortOp = cleanText(op.getDialect() && op.getDialect()->getNamespace() == "onnx"
                                        ? op.getName().stripDialect()
                                        : op.getName().getStringRef());
    bool merge = !graph.nodes.empty() && graph.nodes.back().kind == Kind::Op && !initializer &&
                 !isa<UnknownLoc>(op.getLoc()) && op.getLoc() == groupLoc;
    if (!merge) {
      Node fresh;
      std::vector<std::string> names;
      collectNames(op.getLoc(), names);
      fresh.kind = initializer ? Kind::Initializer : Kind::Op;
      if (initializer) {
        fresh.title = names.empty() ? std::string("initializer") : names.front();
      } else {
        if (!names.empty())
          fresh.name = names.front();
        if (names.size() > 1) {
          std::string fused;
          for (size_t i = 0; i < names.size(); ++i)
            fused += (i ? ", " : "") + names[i];
          fresh.attrs.push_back({"(fused from)", shorten(fused, 300)});
        }
      }
      graph.nodes.push_back(std::move(fresh));
      groupLoc = op.getLoc();
      groupOps.clear();
      groupResults = 0;
    }
    int id = graph.nodes.size() - 1;
    Node &node = graph.nodes[id];
    groupOps.push_back(shortOp);
    if (!initializer)
      node.title = shortOp; // the last op of a group is the node's own
    node.note.clear();
    node.bytes = 0;
    if (groupOps.size() > 1) {
      std::string ops;
      for (size_t i = 0; i < groupOps.size(); ++i)
        ops += (i ? ", " : "") + groupOps[i];
      node.importedAs = ops;
    }
    if (isa<onnx::ConstantOp>(op) && op.getNumResults() == 1 && groupOps.size() == 1) {
      Type t = op.getResult(0).getType();
      node.bytes = constantBytes(t);
      node.note = typeName(t) + ", " + formatBytes(node.bytes);
    }
    for (NamedAttribute attr : op.getAttrs()) {
      std::string name = cleanText(attr.getName().getValue());
      if (merge)
        name = shortOp + "." + name;
      if (isa<onnx::ConstantOp>(op) && isa<ElementsAttr>(attr.getValue()))
        node.attrs.push_back({name, "(" + formatBytes(constantBytes(op.getResult(0).getType())) +
                                        " of data)"});
      else
        node.attrs.push_back({name, attrText(attr.getValue())});
    }
    if (op.getNumRegions() > 0) {
      unsigned nested = 0;
      op.walk([&](Operation *inner) {
        if (inner != &op && !inner->hasTrait<OpTrait::IsTerminator>())
          ++nested;
      });
      node.note = std::to_string(op.getNumRegions()) +
                  (op.getNumRegions() == 1 ? " subgraph, " : " subgraphs, ") +
                  std::to_string(nested) + (nested == 1 ? " op" : " ops") + " (not drawn)";
    }
    auto isInternal = [&](Value v) {
      auto it = producer.find(v);
      return it != producer.end() && it->second == id;
    };
    for (Value operand : op.getOperands()) {
      if (isInternal(operand))
        continue;
      node.inputs.push_back(portOf(operand));
      addEdge(operand, id);
    }
    // Values of this graph a subgraph reads directly.
    op.walk([&](Operation *inner) {
      if (inner == &op)
        return;
      for (Value operand : inner->getOperands())
        if (operand.getParentRegion() == &body && producer.count(operand) &&
            !isInternal(operand)) {
          if (seen.count({operand, id}))
            continue;
          node.inputs.push_back(portOf(operand));
          node.inputs.back().name += " (read by a subgraph)";
          addEdge(operand, id);
        }
    });
    std::string base = initializer ? node.title
                       : node.name.empty() ? node.title + "#" + std::to_string(id)
                                           : node.name;
    for (Value result : op.getResults()) {
      std::string name = groupResults ? base + ":" + std::to_string(groupResults) : base;
      ++groupResults;
      valueName[result] = name;
      producer[result] = id;
      // A value only the node's own later ops read is no output of it.
      bool external = result.use_empty();
      for (Operation *user : result.getUsers())
        external |= user->getBlock() != &body.front() || user->getLoc() != groupLoc ||
                    isa<func::ReturnOp>(user);
      if (external)
        node.outputs.push_back({name, typeName(result.getType())});
    }
  }

  if (returnOp) {
    for (unsigned i = 0; i < returnOp->getNumOperands(); ++i) {
      Value v = returnOp->getOperand(i);
      Node node;
      node.kind = Kind::Output;
      auto name = func.getResultAttrOfType<StringAttr>(i, "onnx.name");
      node.title = name ? cleanText(name.getValue()) : "output " + std::to_string(i);
      node.note = typeName(v.getType(), func.getResultAttrOfType<ArrayAttr>(i, "onnx.dim_params"));
      node.inputs.push_back(portOf(v));
      int id = graph.nodes.size();
      graph.nodes.push_back(std::move(node));
      addEdge(v, id);
    }
  }
  return graph;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

constexpr double kCharWidth = 7.3;  // 12px monospace
constexpr double kLineHeight = 15;
constexpr double kNodeGap = 28;     // between nodes of a layer
constexpr double kLayerGap = 64;    // between layers, room for edge labels
constexpr double kMargin = 24;
constexpr size_t kTitleChars = 36;
constexpr size_t kLineChars = 44;
/// Dummy boxes at most: a value read by every node of a long chain would
/// otherwise need a number quadratic in the chain's length. Past it the
/// longest edges are drawn straight, over the layers between.
constexpr size_t kMaxDummies = 200000;

struct Box {
  double x = 0, y = 0, w = 0, h = 0; // center, size
  int layer = 0;
  bool dummy = false;
  std::vector<int> preds, succs;
};

struct Layout {
  std::vector<Box> boxes; // graph nodes first, then dummies
  /// Per edge of the graph: the points its path goes through.
  std::vector<std::vector<std::pair<double, double>>> paths;
  double width = 0, height = 0;
};

std::vector<std::string> nodeLines(const Node &node) {
  std::vector<std::string> lines{shorten(node.title, kTitleChars)};
  if (!node.name.empty())
    lines.push_back(shorten(node.name, kLineChars));
  if (!node.note.empty())
    lines.push_back(shorten(node.note, kLineChars));
  return lines;
}

Layout layoutGraph(const Graph &graph) {
  Layout layout;
  size_t n = graph.nodes.size();
  layout.boxes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> lines = nodeLines(graph.nodes[i]);
    size_t chars = 0;
    for (const std::string &line : lines)
      chars = std::max(chars, charCount(line));
    layout.boxes[i].w = std::max(48.0, chars * kCharWidth + 20);
    layout.boxes[i].h = lines.size() * kLineHeight + 12;
  }
  for (const Edge &e : graph.edges) {
    layout.boxes[e.from].succs.push_back(e.to);
    layout.boxes[e.to].preds.push_back(e.from);
  }

  // Longest-path layers; nodes come in topological order (SSA order).
  for (size_t i = 0; i < n; ++i) {
    int layer = 0;
    for (int p : layout.boxes[i].preds)
      layer = std::max(layer, layout.boxes[p].layer + 1);
    layout.boxes[i].layer = layer;
  }
  // Constants sit right above their first consumer rather than at the top.
  for (size_t i = n; i-- > 0;) {
    Box &box = layout.boxes[i];
    if (!box.preds.empty() || box.succs.empty() ||
        graph.nodes[i].kind == Kind::Input)
      continue;
    int layer = INT32_MAX;
    for (int s : box.succs)
      layer = std::min(layer, layout.boxes[s].layer - 1);
    box.layer = std::max(box.layer, layer);
  }

  // Dummy boxes split edges that span several layers.
  std::vector<std::vector<int>> chains(graph.edges.size());
  for (auto &box : layout.boxes) {
    box.preds.clear();
    box.succs.clear();
  }
  auto span = [&](size_t e) {
    return static_cast<size_t>(layout.boxes[graph.edges[e].to].layer -
                               layout.boxes[graph.edges[e].from].layer - 1);
  };
  // The shortest edges get their dummies first (ties by edge order).
  std::vector<size_t> byLength(graph.edges.size());
  for (size_t e = 0; e < byLength.size(); ++e)
    byLength[e] = e;
  std::sort(byLength.begin(), byLength.end(), [&](size_t a, size_t b) {
    return span(a) != span(b) ? span(a) < span(b) : a < b;
  });
  std::vector<bool> straight(graph.edges.size(), false);
  size_t dummies = 0;
  for (size_t e : byLength) {
    if (dummies + span(e) > kMaxDummies)
      straight[e] = true;
    else
      dummies += span(e);
  }
  for (size_t e = 0; e < graph.edges.size(); ++e) {
    int from = graph.edges[e].from, to = graph.edges[e].to;
    std::vector<int> &chain = chains[e];
    chain.push_back(from);
    for (int l = layout.boxes[from].layer + 1; !straight[e] && l < layout.boxes[to].layer;
         ++l) {
      Box dummy;
      dummy.dummy = true;
      dummy.layer = l;
      dummy.w = 10;
      dummy.h = 0;
      layout.boxes.push_back(dummy);
      chain.push_back(layout.boxes.size() - 1);
    }
    chain.push_back(to);
    for (size_t k = 0; k + 1 < chain.size(); ++k) {
      layout.boxes[chain[k]].succs.push_back(chain[k + 1]);
      layout.boxes[chain[k + 1]].preds.push_back(chain[k]);
    }
  }

  int layerCount = 0;
  for (const Box &box : layout.boxes)
    layerCount = std::max(layerCount, box.layer + 1);
  std::vector<std::vector<int>> layers(layerCount);
  for (size_t i = 0; i < layout.boxes.size(); ++i)
    layers[layout.boxes[i].layer].push_back(i);
  std::vector<double> pos(layout.boxes.size());
  auto number = [&](const std::vector<int> &layer) {
    for (size_t k = 0; k < layer.size(); ++k)
      pos[layer[k]] = k;
  };
  for (auto &layer : layers)
    number(layer);

  // Barycenter sweeps: down (by predecessors), then up (by successors).
  auto sweep = [&](std::vector<int> &layer, bool down) {
    std::vector<std::pair<double, int>> keyed;
    for (int b : layer) {
      const std::vector<int> &adj = down ? layout.boxes[b].preds : layout.boxes[b].succs;
      double key = pos[b];
      if (!adj.empty()) {
        double sum = 0;
        for (int a : adj)
          sum += pos[a];
        key = sum / adj.size();
      }
      keyed.push_back({key, b});
    }
    // Ties keep their order: the key's second part is the old position.
    std::sort(keyed.begin(), keyed.end(), [&](const auto &a, const auto &b) {
      if (a.first != b.first)
        return a.first < b.first;
      return pos[a.second] < pos[b.second];
    });
    for (size_t k = 0; k < keyed.size(); ++k)
      layer[k] = keyed[k].second;
    number(layer);
  };
  for (int round = 0; round < 6; ++round) {
    for (int l = 1; l < layerCount; ++l)
      sweep(layers[l], /*down=*/true);
    for (int l = layerCount - 2; l >= 0; --l)
      sweep(layers[l], /*down=*/false);
  }

  // x: pack each layer, then move every box towards its neighbours' mean,
  // keeping the order and the gaps. Boxes move by priority (nodes that read
  // data, then dummies, then constants): a box moved earlier in the sweep
  // stays; later ones are pushed aside or stop at it.
  auto gap = [&](int a, int b) {
    return (layout.boxes[a].w + layout.boxes[b].w) / 2 + kNodeGap;
  };
  for (auto &layer : layers) {
    double x = 0;
    for (size_t k = 0; k < layer.size(); ++k) {
      if (k)
        x += gap(layer[k - 1], layer[k]);
      layout.boxes[layer[k]].x = x;
    }
  }
  // 2: a node of the graph that reads something (or a graph input), 1: a
  // dummy, 0: a constant.
  auto tier = [&](int b) {
    const Box &box = layout.boxes[b];
    if (box.dummy)
      return 1;
    return box.preds.empty() && graph.nodes[b].kind != Kind::Input ? 0 : 2;
  };
  auto place = [&](std::vector<int> &layer, bool down) {
    size_t m = layer.size();
    if (!m)
      return;
    std::vector<double> want(m);
    for (size_t k = 0; k < m; ++k) {
      const Box &box = layout.boxes[layer[k]];
      const std::vector<int> &adj = down ? box.preds : box.succs;
      want[k] = box.x;
      // Only the neighbours of the highest tier count: a node follows the
      // nodes it is linked with rather than the dummies of an edge passing
      // by (a residual connection) or the constants it reads, which follow
      // it instead. Without this each residual block shifts the chain.
      double sum[3] = {0, 0, 0}, count[3] = {0, 0, 0};
      for (int a : adj) {
        int t = tier(a);
        sum[t] += layout.boxes[a].x;
        ++count[t];
      }
      for (int t = 2; t >= 0; --t)
        if (count[t]) {
          want[k] = sum[t] / count[t];
          break;
        }
    }
    auto priority = [&](size_t k) { return tier(layer[k]); };
    std::vector<size_t> byPriority(m);
    for (size_t k = 0; k < m; ++k)
      byPriority[k] = k;
    std::sort(byPriority.begin(), byPriority.end(), [&](size_t a, size_t b) {
      return priority(a) != priority(b) ? priority(a) > priority(b) : a < b;
    });
    auto x = [&](size_t k) -> double & { return layout.boxes[layer[k]].x; };
    std::vector<bool> fixed(m, false);
    for (size_t k : byPriority) {
      double target = want[k];
      if (target > x(k)) {
        // No further right than the first fixed box allows.
        double acc = 0;
        for (size_t j = k + 1; j < m; ++j) {
          acc += gap(layer[j - 1], layer[j]);
          if (fixed[j]) {
            target = std::min(target, x(j) - acc);
            break;
          }
        }
        if (target > x(k)) {
          x(k) = target;
          for (size_t j = k + 1; j < m; ++j) {
            double need = x(j - 1) + gap(layer[j - 1], layer[j]);
            if (x(j) >= need)
              break;
            x(j) = need;
          }
        }
      } else if (target < x(k)) {
        double acc = 0;
        for (size_t j = k; j-- > 0;) {
          acc += gap(layer[j], layer[j + 1]);
          if (fixed[j]) {
            target = std::max(target, x(j) + acc);
            break;
          }
        }
        if (target < x(k)) {
          x(k) = target;
          for (size_t j = k; j-- > 0;) {
            double need = x(j + 1) - gap(layer[j], layer[j + 1]);
            if (x(j) <= need)
              break;
            x(j) = need;
          }
        }
      }
      fixed[k] = true;
    }
  };
  for (int round = 0; round < 8; ++round) {
    for (int l = 1; l < layerCount; ++l)
      place(layers[l], /*down=*/true);
    for (int l = layerCount - 2; l >= 0; --l)
      place(layers[l], /*down=*/false);
  }

  // y: layers top to bottom, each as tall as its tallest box.
  double y = kMargin;
  for (auto &layer : layers) {
    double height = 0;
    for (int b : layer)
      height = std::max(height, layout.boxes[b].h);
    for (int b : layer)
      layout.boxes[b].y = y + height / 2;
    y += height + kLayerGap;
  }
  double minX = 0, maxX = 0;
  bool first = true;
  for (const Box &box : layout.boxes) {
    double l = box.x - box.w / 2, r = box.x + box.w / 2;
    minX = first ? l : std::min(minX, l);
    maxX = first ? r : std::max(maxX, r);
    first = false;
  }
  for (Box &box : layout.boxes)
    box.x += kMargin - minX;
  layout.width = std::max(200.0, maxX - minX + 2 * kMargin);
  layout.height = std::max(100.0, y - kLayerGap + kMargin);

  for (size_t e = 0; e < graph.edges.size(); ++e) {
    std::vector<std::pair<double, double>> path;
    const std::vector<int> &chain = chains[e];
    for (size_t k = 0; k < chain.size(); ++k) {
      const Box &box = layout.boxes[chain[k]];
      if (k == 0)
        path.push_back({box.x, box.y + box.h / 2});
      else if (k + 1 == chain.size())
        path.push_back({box.x, box.y - box.h / 2 - 2});
      else
        path.push_back({box.x, box.y});
    }
    layout.paths.push_back(std::move(path));
  }
  return layout;
}

//===----------------------------------------------------------------------===//
// Writers
//===----------------------------------------------------------------------===//

std::string writeDot(const Graph &graph) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "digraph \"" << dotString(graph.title) << "\" {\n"
     << "  rankdir=TB;\n"
     << "  node [fontname=\"monospace\", fontsize=11];\n"
     << "  edge [fontname=\"monospace\", fontsize=9];\n";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node &node = graph.nodes[i];
    std::string label;
    for (const std::string &line : nodeLines(node))
      label += (label.empty() ? "" : "\\n") + dotString(line);
    os << "  n" << i << " [label=\"" << label << "\"";
    switch (node.kind) {
    case Kind::Input:
      os << ", shape=invhouse, style=filled, fillcolor=\"#d8f0d8\"";
      break;
    case Kind::Output:
      os << ", shape=house, style=filled, fillcolor=\"#f8e0c8\"";
      break;
    case Kind::Initializer:
      os << ", shape=note, fontsize=9, style=filled, fillcolor=\"#eeeeee\"";
      break;
    case Kind::Op:
      os << ", shape=box, style=\"rounded,filled\", fillcolor=\"#dde8f8\"";
      break;
    }
    os << ", class=\"" << kindName(node.kind) << "\"];\n";
  }
  for (const Edge &e : graph.edges)
    os << "  n" << e.from << " -> n" << e.to << " [label=\"" << dotString(e.label) << "\"];\n";
  os << "}\n";
  return out;
}

/// The SVG drawing; `standalone` adds the XML namespace a .svg file needs
/// (an HTML page's parser gives inline SVG its namespace itself).
std::string writeSvg(const Graph &graph, const Layout &layout, bool standalone) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "<svg";
  if (standalone)
    os << " xmlns=\"http://www.w3.org/2000/svg\"";
  os << " class=\"onnxcc-graph\" width=\"" << num(layout.width) << "\" height=\""
     << num(layout.height) << "\" viewBox=\"0 0 " << num(layout.width) << " "
     << num(layout.height) << "\" font-family=\"monospace\" font-size=\"12\">\n"
     << "<title>" << xmlText(graph.title) << "</title>\n"
     << "<style>\n"
     << ".node rect{stroke:#456;stroke-width:1}\n"
     << ".node.op rect{fill:#dde8f8}\n"
     << ".node.input rect{fill:#d8f0d8}\n"
     << ".node.output rect{fill:#f8e0c8}\n"
     << ".node.initializer rect{fill:#eeeeee;stroke:#999}\n"
     << ".node .title{font-weight:bold}\n"
     << ".node .sub{fill:#445}\n"
     << ".node.selected rect{stroke:#d22;stroke-width:3}\n"
     << ".edge path{fill:none;stroke:#789;stroke-width:1.2}\n"
     << ".edge text{fill:#567;font-size:10px}\n"
     << "</style>\n"
     << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
        "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
        "<path d=\"M0,0L10,5L0,10z\" fill=\"#789\"/></marker></defs>\n"
     << "<g id=\"viewport\">\n"
     << "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" << num(layout.width)
     << "\" height=\"" << num(layout.height) << "\" fill=\"#ffffff\"/>\n";
  for (size_t e = 0; e < graph.edges.size(); ++e) {
    const auto &path = layout.paths[e];
    os << "<g class=\"edge\" data-from=\"" << graph.edges[e].from << "\" data-to=\""
       << graph.edges[e].to << "\"><title>" << xmlText(graph.edges[e].label) << "</title><path d=\"M"
       << num(path[0].first) << "," << num(path[0].second);
    for (size_t k = 0; k + 1 < path.size(); ++k) {
      double midY = (path[k].second + path[k + 1].second) / 2;
      os << " C" << num(path[k].first) << "," << num(midY) << " " << num(path[k + 1].first)
         << "," << num(midY) << " " << num(path[k + 1].first) << ","
         << num(path[k + 1].second);
    }
    os << "\" marker-end=\"url(#arrow)\"/>";
    // The label sits on the last segment, just above the consumer.
    const auto &a = path[path.size() - 2];
    const auto &b = path.back();
    os << "<text x=\"" << num((a.first + b.first) / 2 + 4) << "\" y=\""
       << num(b.second - 8) << "\">" << xmlText(shorten(graph.edges[e].label, kLineChars))
       << "</text></g>\n";
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node &node = graph.nodes[i];
    const Box &box = layout.boxes[i];
    std::vector<std::string> lines = nodeLines(node);
    os << "<g class=\"node " << kindName(node.kind) << "\" id=\"node" << i << "\" data-id=\""
       << i << "\"><title>" << xmlText(node.title + (node.name.empty() ? "" : " " + node.name))
       << "</title><rect x=\"" << num(box.x - box.w / 2) << "\" y=\"" << num(box.y - box.h / 2)
       << "\" width=\"" << num(box.w) << "\" height=\"" << num(box.h) << "\" rx=\""
       << (node.kind == Kind::Op ? 6 : node.kind == Kind::Initializer ? 1 : 12) << "\"/>";
    for (size_t k = 0; k < lines.size(); ++k)
      os << "<text class=\"" << (k ? "sub" : "title") << "\" x=\"" << num(box.x)
         << "\" y=\"" << num(box.y - box.h / 2 + 6 + kLineHeight * (k + 1) - 3)
         << "\" text-anchor=\"middle\">" << xmlText(lines[k]) << "</text>";
    os << "</g>\n";
  }
  os << "</g>\n</svg>\n";
  return out;
}

/// What the page's panel shows about each node, as JSON.
std::string graphJson(const Graph &graph, const Layout &layout) {
  llvm::json::Array nodes;
  auto ports = [](const std::vector<Port> &list) {
    llvm::json::Array result;
    for (const Port &p : list)
      result.push_back(llvm::json::Array{p.name, p.type});
    return result;
  };
  for (const Node &node : graph.nodes) {
    llvm::json::Array attrs;
    if (!node.importedAs.empty())
      attrs.push_back(llvm::json::Array{"(imported as)", node.importedAs});
    for (const auto &[name, value] : node.attrs)
      attrs.push_back(llvm::json::Array{name, value});
    llvm::json::Object object{{"kind", kindName(node.kind)},
                              {"title", node.title},
                              {"name", node.name},
                              {"note", node.note},
                              {"attrs", std::move(attrs)},
                              {"inputs", ports(node.inputs)},
                              {"outputs", ports(node.outputs)}};
    if (node.bytes)
      object["bytes"] = static_cast<int64_t>(node.bytes);
    nodes.push_back(std::move(object));
  }
  llvm::json::Object root{{"title", graph.title},
                          {"width", static_cast<int64_t>(std::ceil(layout.width))},
                          {"height", static_cast<int64_t>(std::ceil(layout.height))},
                          {"nodes", std::move(nodes)}};
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(root));
  // Inside <script>, "</script" or "<!--" would end or confuse it; JSON
  // reads \u003c as '<'.
  std::string safe;
  for (char c : text) {
    if (c == '<')
      safe += "\\u003c";
    else
      safe.push_back(c);
  }
  return safe;
}

constexpr const char *kPageStyle = R"CSS(
html,body{margin:0;height:100%;font-family:sans-serif;font-size:13px;overflow:hidden}
#view{position:absolute;left:0;top:0;right:340px;bottom:0;background:#fafafa;cursor:grab}
#view.dragging{cursor:grabbing}
#view svg{width:100%;height:100%;display:block}
#panel{position:absolute;top:0;right:0;width:340px;bottom:0;overflow:auto;box-sizing:border-box;
padding:10px;border-left:1px solid #ccc;background:#fff}
#panel h1{font-size:15px;margin:0 0 6px 0;word-break:break-all}
#panel h2{font-size:13px;margin:12px 0 4px 0;color:#345}
#panel table{border-collapse:collapse;width:100%}
#panel td{border-top:1px solid #eee;padding:2px 4px;vertical-align:top;font-family:monospace;
font-size:12px;word-break:break-all}
#panel .hint{color:#777}
.node{cursor:pointer}
)CSS";

constexpr const char *kPageScript = R"JS(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('graph-data').textContent);
  var view = document.getElementById('view');
  var svg = view.querySelector('svg');
  var viewport = document.getElementById('viewport');
  var panel = document.getElementById('panel');
  // The drawing is scaled and moved through the viewport group only.
  svg.removeAttribute('viewBox');
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  var tx = 0, ty = 0, k = 1;
  function apply() {
    viewport.setAttribute('transform', 'translate(' + tx + ',' + ty + ') scale(' + k + ')');
  }
  function fit() {
    var r = view.getBoundingClientRect();
    var w = r.width || 800, h = r.height || 600;
    k = Math.min(w / data.width, h / data.height, 1);
    k = Math.max(k, Math.min(0.25, w / data.width));
    tx = (w - data.width * k) / 2;
    ty = Math.max(0, (h - data.height * k) / 2);
    apply();
  }
  function add(parent, tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    parent.appendChild(e);
    return e;
  }
  function table(title, rows) {
    if (!rows.length) return;
    add(panel, 'h2', title);
    var t = add(panel, 'table');
    rows.forEach(function (row) {
      var tr = add(t, 'tr');
      add(tr, 'td', row[0]);
      add(tr, 'td', row[1]);
    });
  }
  var selected = null;
  function show(id) {
    var node = data.nodes[id];
    if (!node) return;
    if (selected) selected.classList.remove('selected');
    selected = document.getElementById('node' + id);
    if (selected) selected.classList.add('selected');
    panel.textContent = '';
    add(panel, 'h1', node.title);
    var facts = [['kind', node.kind]];
    if (node.name) facts.push(['name', node.name]);
    if (node.note) facts.push([node.kind === 'op' || node.kind === 'initializer' ? 'value' : 'type', node.note]);
    if (node.bytes !== undefined) facts.push(['bytes', String(node.bytes)]);
    table('Node', facts);
    table('Attributes', node.attrs);
    table('Inputs', node.inputs);
    table('Outputs', node.outputs);
  }
  var drag = null;
  view.addEventListener('pointerdown', function (e) {
    drag = {x: e.clientX, y: e.clientY, tx: tx, ty: ty, moved: false};
    view.classList.add('dragging');
  });
  window.addEventListener('pointermove', function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    tx = drag.tx + dx;
    ty = drag.ty + dy;
    apply();
  });
  window.addEventListener('pointerup', function (e) {
    if (!drag) return;
    var moved = drag.moved;
    drag = null;
    view.classList.remove('dragging');
    if (moved) return;
    var target = e.target;
    while (target && target !== view) {
      if (target.classList && target.classList.contains('node')) {
        show(Number(target.getAttribute('data-id')));
        return;
      }
      target = target.parentNode;
    }
  });
  view.addEventListener('wheel', function (e) {
    e.preventDefault();
    var r = view.getBoundingClientRect();
    var mx = e.clientX - r.left, my = e.clientY - r.top;
    var f = Math.exp(-e.deltaY * 0.0015);
    var nk = Math.min(8, Math.max(0.02, k * f));
    f = nk / k;
    tx = mx - (mx - tx) * f;
    ty = my - (my - ty) * f;
    k = nk;
    apply();
  }, {passive: false});
  window.addEventListener('keydown', function (e) {
    if (e.key === 'f') fit();
  });
  window.addEventListener('resize', fit);
  fit();
  document.body.setAttribute('data-ready', String(data.nodes.length));
})();
)JS";

std::string writeHtml(const Graph &graph, const Layout &layout) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<title>" << xmlText(graph.title) << "</title>\n<style>" << kPageStyle << "</style>\n"
     << "</head>\n<body>\n<div id=\"view\">\n"
     << writeSvg(graph, layout, /*standalone=*/false) << "</div>\n"
     << "<div id=\"panel\"><h1>" << xmlText(graph.title) << "</h1><p class=\"hint\">"
     << graph.nodes.size()
     << " nodes. Drag to pan, wheel to zoom, f to fit, click a node for its "
        "details.</p></div>\n"
     << "<script type=\"application/json\" id=\"graph-data\">" << graphJson(graph, layout)
     << "</script>\n<script>" << kPageScript << "</script>\n</body>\n</html>\n";
  return out;
}

enum class Format { Dot, Svg, Html };

} // namespace

Error writeModelGraph(StringRef modelPath, StringRef outPath, const GraphOptions &options) {
  std::string ext = llvm::sys::path::extension(outPath).lower();
  Format format;
  if (ext == ".dot" || ext == ".gv")
    format = Format::Dot;
  else if (ext == ".svg")
    format = Format::Svg;
  else if (ext == ".html" || ext == ".htm")
    format = Format::Html;
  else
    return makeError("cannot tell the format of " + outPath +
                     " from its extension (use .dot, .svg or .html)");

  std::unique_ptr<MLIRContext> context = makeCompilerContext();
  OwningOpRef<ModuleOp> module;
  if (options.optimized) {
    OptimizeOptions optimize;
    optimize.shapes = options.shapes;
    auto optimized = optimizeModule(*context, modelPath, optimize);
    if (!optimized)
      return optimized.takeError();
    module = std::move(*optimized);
  } else {
    auto model = loadModel(modelPath);
    if (!model)
      return model.takeError();
    auto imported = importModel(*context, *model);
    if (!imported)
      return imported.takeError();
    module = std::move(*imported);
  }
  auto funcs = module->getOps<func::FuncOp>();
  if (funcs.empty())
    return makeError(modelPath + ": the imported module has no function");
  std::string title = llvm::sys::path::filename(modelPath).str() +
                      (options.optimized ? " (after the graph passes)" : " (as imported)");
  Graph graph = buildGraph(*funcs.begin(), title);

  std::string text;
  if (format == Format::Dot) {
    text = writeDot(graph);
  } else {
    Layout layout = layoutGraph(graph);
    text = format == Format::Svg ? writeSvg(graph, layout, /*standalone=*/true)
                                 : writeHtml(graph, layout);
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(outPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError("cannot write " + outPath + ": " + ec.message());
  os << text;
  os.close();
  if (os.has_error())
    return makeError("cannot write " + outPath + ": " + os.error().message());
  return Error::success();
}

} // namespace onnxcc
