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
  std::unique_ptr<onnx::ModelProto> proto;
  std::string path;
  std::string dir;

  LoadedModel();
  LoadedModel(LoadedModel &&);
  LoadedModel &operator=(LoadedModel &&);
  ~LoadedModel();
};

/// Newest ONNX IR version the loader accepts. Versions 9 and 10 (ONNX 1.13 to
/// 1.16) only added element types and fields that the importer checks and
/// rejects on its own; later ones may change what existing fields mean.
constexpr int64_t kMaxIrVersion = 10;

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
