//===- ModelLoader.h - Reading ONNX models from disk ---------------------===//
#ifndef ONNXCC_COMPILER_MODELLOADER_H
#define ONNXCC_COMPILER_MODELLOADER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace onnxcc {

/// A parsed model and where it came from (external data is relative to dir).
struct LoadedModel {
  std::unique_ptr<::onnx::ModelProto> proto;
  std::string path;
  std::string dir;

  LoadedModel();
  LoadedModel(LoadedModel &&);
  LoadedModel &operator=(LoadedModel &&);
  ~LoadedModel();
};

/// Newest ONNX IR version the loader accepts (ONNX 1.20 to 1.22; opsets up to
/// 28 come in it). Versions 9 to 13 only added element types (float8, int4,
/// float4e2m1 in 11, float8e8m0 in 12, int2 in 13), which the importer
/// rejects on its own, function overloads, and in 11 the multi-device
/// configuration (ModelProto.configuration, NodeProto.device_configurations:
/// where nodes run and how tensors are sharded, not what they compute), which
/// the importer ignores. None changes what an existing field means.
constexpr int64_t kMaxIrVersion = 13;

/// True for the file names read as protobuf text format (.onnxtxt, .pbtxt,
/// .textproto, .prototxt); anything else is read as binary protobuf.
bool isTextModelPath(llvm::StringRef path);

/// Reads and parses an ONNX model, binary or text. Errors are one line that
/// names the file: unreadable, truncated or malformed (a known field with the
/// wrong wire type too), nested too deep, not a model, an IR version out of
/// range.
llvm::Expected<LoadedModel> loadModel(llvm::StringRef path);

/// Parses a model held in memory as loadModel does a file's bytes: as text
/// when `text`, else as binary. `path` names the model in errors and is where
/// external data is looked up (relative to its folder).
llvm::Expected<LoadedModel> parseModel(llvm::StringRef bytes, llvm::StringRef path, bool text);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_MODELLOADER_H
