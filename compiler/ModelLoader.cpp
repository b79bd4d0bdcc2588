//===- ModelLoader.cpp - Reading ONNX models from disk -------------------===//
#include "compiler/ModelLoader.h"

#include "onnx.pb.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <limits>

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
  StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return makeError(path, "model file is larger than 2 GiB; keep the weights "
                           "as external data");

  LoadedModel model;
  model.proto = std::make_unique<onnx::ModelProto>();
  model.path = path.str();
  SmallString<256> dir(path);
  sys::path::remove_filename(dir);
  model.dir = dir.empty() ? std::string(".") : std::string(dir);

  if (isTextModelPath(path)) {
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
    google::protobuf::io::CodedInputStream input(
        reinterpret_cast<const uint8_t *>(bytes.data()), static_cast<int>(bytes.size()));
    if (!model.proto->ParseFromCodedStream(&input) || !input.ConsumedEntireMessage())
      return makeError(path, "truncated or malformed ONNX model (not a valid "
                             "ModelProto protobuf)");
  }
  if (!model.proto->has_graph())
    return makeError(path, "not an ONNX model: it has no graph");
  if (model.proto->opset_import_size() == 0 && model.proto->ir_version() >= 3)
    return makeError(path, "model declares no opset_import");
  return std::move(model);
}

} // namespace onnxcc
