//===- ModelLoader.cpp - Reading ONNX models from disk -------------------===//
#include "compiler/ModelLoader.h"

#include "onnx.pb.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

using namespace llvm;

namespace onnxcc {

LoadedModel::LoadedModel() = default;
LoadedModel::LoadedModel(LoadedModel &&) = default;
LoadedModel &LoadedModel::operator=(LoadedModel &&) = default;
LoadedModel::~LoadedModel() = default;

namespace {
/// Keeps the first error of the text-format parser instead of logging it.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, int column, const std::string &message) override {
    if (!error.empty())
      return;
    error = (Twine(line + 1) + ":" + Twine(column + 1) + ": " + message).str();
  }
  void AddWarning(int, int, const std::string &) override {}
  std::string error;
};

Error makeError(StringRef path, const Twine &message) {
  return createStringError(inconvertibleErrorCode(), (path + ": " + message).str());
}

namespace pb = google::protobuf;

/// How deep messages may nest (subgraphs in subgraphs, types in types):
/// protobuf's own default, which keeps its recursive parser off the end of
/// the stack.
constexpr int kMaxNesting = 100;

/// The deepest nesting of messages in the binary `bytes` of a
/// `descriptor` message, walking the wire format without recursion; 0 when
/// the bytes are malformed before any depth was exceeded.
int nestingDepth(ArrayRef<uint8_t> bytes, const pb::Descriptor *descriptor) {
  struct Frame {
    const pb::Descriptor *descriptor;
    size_t end;
  };
  std::vector<Frame> stack{{descriptor, bytes.size()}};
  size_t pos = 0;
  int deepest = 0;
  auto readVarint = [&](uint64_t &value) {
    value = 0;
    for (int shift = 0; shift < 64 && pos < stack.back().end; shift += 7) {
      uint8_t b = bytes[pos++];
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  };
  while (!stack.empty()) {
    Frame &top = stack.back();
    if (pos == top.end) {
      stack.pop_back();
      continue;
    }
    uint64_t tag, value;
    if (!readVarint(tag))
      return 0;
    switch (tag & 7) {
    case 0:
      if (!readVarint(value))
        return 0;
      break;
    case 1:
    case 5: {
      size_t width = (tag & 7) == 1 ? 8 : 4;
      if (top.end - pos < width)
        return 0;
      pos += width;
      break;
    }
    case 2: {
      if (!readVarint(value) || value > top.end - pos)
        return 0;
      const pb::FieldDescriptor *f = top.descriptor->FindFieldByNumber(static_cast<int>(tag >> 3));
      if (f && f->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
        stack.push_back({f->message_type(), pos + value});
        deepest = std::max(deepest, static_cast<int>(stack.size()) - 1);
        if (deepest > kMaxNesting)
          return deepest;
      } else {
        pos += value;
      }
      break;
    }
    default:
      return 0; // Groups are not used by ONNX; 6 and 7 do not exist.
    }
  }
  return deepest;
}

const char *wireTypeName(pb::UnknownField::Type t) {
  switch (t) {
  case pb::UnknownField::TYPE_VARINT: return "varint";
  case pb::UnknownField::TYPE_FIXED32: return "fixed32";
  case pb::UnknownField::TYPE_FIXED64: return "fixed64";
  case pb::UnknownField::TYPE_LENGTH_DELIMITED: return "length-delimited";
  case pb::UnknownField::TYPE_GROUP: return "group";
  }
  return "unknown";
}

/// Protobuf keeps a known field that arrives with the wrong wire type as an
/// unknown field, so that the model silently loses it (its graph, a node,
/// ir_version). This finds the first such field in `root` and its messages.
std::string findWrongWireType(const pb::Message &root) {
  std::vector<const pb::Message *> work{&root};
  while (!work.empty()) {
    const pb::Message *m = work.back();
    work.pop_back();
    const pb::Reflection *reflection = m->GetReflection();
    const pb::Descriptor *descriptor = m->GetDescriptor();
    const pb::UnknownFieldSet &unknown = reflection->GetUnknownFields(*m);
    for (int i = 0; i < unknown.field_count(); ++i) {
      const pb::UnknownField &u = unknown.field(i);
      const pb::FieldDescriptor *f = descriptor->FindFieldByNumber(u.number());
      if (!f)
        continue;
      std::string where = "field '" + f->name() + "' (" + std::to_string(f->number()) +
                          ") of " + descriptor->name();
      // An enum value the schema does not list is kept as unknown too.
      if (f->type() == pb::FieldDescriptor::TYPE_ENUM &&
          u.type() == pb::UnknownField::TYPE_VARINT)
        return where + " has value " + std::to_string(static_cast<int64_t>(u.varint())) +
               ", which " + f->enum_type()->name() + " does not define";
      return where + " has the wrong wire type (" + wireTypeName(u.type()) + ")";
    }
    std::vector<const pb::FieldDescriptor *> fields;
    reflection->ListFields(*m, &fields);
    for (const pb::FieldDescriptor *f : fields) {
      if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE)
        continue;
      if (!f->is_repeated()) {
        work.push_back(&reflection->GetMessage(*m, f));
        continue;
      }
      for (int i = 0, n = reflection->FieldSize(*m, f); i < n; ++i)
        work.push_back(&reflection->GetRepeatedMessage(*m, f, i));
    }
  }
  return "";
}

/// Adds to `reads` every name node `node` reads: its inputs and, for a node
/// with subgraphs, every name read inside them (a superset of what they take
/// from the enclosing graphs).
void collectReads(const ::onnx::NodeProto &node, StringSet<> &reads) {
  for (const std::string &in : node.input())
    if (!in.empty())
      reads.insert(in);
  for (const ::onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g())
      for (const ::onnx::NodeProto &inner : attr.g().node())
        collectReads(inner, reads);
    for (const ::onnx::GraphProto &g : attr.graphs())
      for (const ::onnx::NodeProto &inner : g.node())
        collectReads(inner, reads);
  }
}

/// Puts the nodes of `graph` and of its subgraphs in a topological order when
/// they are not in one: ONNX asks producers to come before their readers, and
/// ONNX Runtime sorts models that do not (exporters and model editors write
/// such files). Among the nodes ready at each step the earliest in the file
/// comes first, so a sorted graph keeps its order. A graph whose nodes read
/// their own outputs, form a cycle or write one name twice is left as it is:
/// the importer names what is wrong with it.
void sortNodes(::onnx::GraphProto &graph) {
  for (::onnx::NodeProto &node : *graph.mutable_node())
    for (::onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        sortNodes(*attr.mutable_g());
      for (::onnx::GraphProto &g : *attr.mutable_graphs())
        sortNodes(g);
    }
  int n = graph.node_size();
  StringMap<int> producer;
  for (int i = 0; i < n; ++i)
    for (const std::string &out : graph.node(i).output())
      if (!out.empty() && !producer.try_emplace(out, i).second)
        return;
  std::vector<std::vector<int>> readers(n);
  std::vector<int> pending(n, 0);
  bool sorted = true;
  for (int i = 0; i < n; ++i) {
    StringSet<> reads;
    collectReads(graph.node(i), reads);
    std::vector<int> from;
    for (const auto &name : reads) {
      auto it = producer.find(name.getKey());
      if (it == producer.end())
        continue;
      if (it->second == i)
        return;
      from.push_back(it->second);
    }
    llvm::sort(from);
    from.erase(std::unique(from.begin(), from.end()), from.end());
    for (int j : from) {
      readers[j].push_back(i);
      sorted &= j < i;
    }
    pending[i] = static_cast<int>(from.size());
  }
  if (sorted)
    return;
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int r : readers[i])
      if (--pending[r] == 0)
        ready.push(r);
  }
  if (static_cast<int>(order.size()) != n)
    return;
  std::vector<::onnx::NodeProto *> nodes(n);
  graph.mutable_node()->ExtractSubrange(0, n, nodes.data());
  for (int i : order)
    graph.mutable_node()->AddAllocated(nodes[i]);
}
} // namespace

bool isTextModelPath(StringRef path) {
  StringRef ext = sys::path::extension(path);
  return ext == ".onnxtxt" || ext == ".pbtxt" || ext == ".textproto" ||
         ext == ".prototxt";
}

Expected<LoadedModel> loadModel(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path, "cannot read model: " + buffer.getError().message());
  return parseModel((*buffer)->getBuffer(), path, isTextModelPath(path));
}

Expected<LoadedModel> parseModel(StringRef bytes, StringRef path, bool text) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return makeError(path, "model file is larger than 2 GiB; keep the weights "
                           "as external data");

  LoadedModel model;
  model.proto = std::make_unique<::onnx::ModelProto>();
  model.path = path.str();
  SmallString<256> dir(path);
  sys::path::remove_filename(dir);
  model.dir = dir.empty() ? std::string(".") : std::string(dir);

  if (text) {
    google::protobuf::TextFormat::Parser parser;
    FirstErrorCollector errors;
    parser.RecordErrorsTo(&errors);
    google::protobuf::io::ArrayInputStream input(bytes.data(),
                                                 static_cast<int>(bytes.size()));
    if (!parser.Parse(&input, model.proto.get()))
      return makeError(path, "malformed ONNX text model: " +
                                 (errors.error.empty() ? std::string("parse error")
                                                       : errors.error));
  } else {
    ArrayRef<uint8_t> data(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
    google::protobuf::io::CodedInputStream input(data.data(), static_cast<int>(data.size()));
    input.SetRecursionLimit(kMaxNesting);
    if (!model.proto->ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
      int depth = nestingDepth(data, ::onnx::ModelProto::descriptor());
      if (depth > kMaxNesting)
        return makeError(path, "the model nests messages (subgraphs, types) more than " +
                                   Twine(kMaxNesting) + " levels deep, more than onnxcc reads");
      return makeError(path, "truncated or malformed ONNX model (not a valid "
                             "ModelProto protobuf)");
    }
    std::string wrongWireType = findWrongWireType(*model.proto);
    if (!wrongWireType.empty())
      return makeError(path, "malformed ONNX model: " + wrongWireType);
  }
  if (!model.proto->has_graph())
    return makeError(path, "not an ONNX model: it has no graph");
  int64_t irVersion = model.proto->ir_version();
  if (irVersion < 0)
    return makeError(path, "invalid IR version " + Twine(irVersion));
  if (irVersion > kMaxIrVersion)
    return makeError(path, "IR version " + Twine(irVersion) +
                               " is newer than the newest onnxcc supports (" +
                               Twine(kMaxIrVersion) + ")");
  if (model.proto->opset_import_size() == 0 && model.proto->ir_version() >= 3)
    return makeError(path, "model declares no opset_import");
  sortNodes(*model.proto->mutable_graph());
  return std::move(model);
}

} // namespace onnxcc
