//===- ModelLoader.h - Reading ONNX models from disk ---------------------===//
#ifndef ONNXCC_COMPILER_MODELLOADER_H
#define ONNXCC_COMPILER_MODELLOADER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

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

/// True for the file names read as protobuf text format (.onnxtxt, .pbtxt,
/// .textproto, .prototxt); anything else is read as binary protobuf.
bool isTextModelPath(llvm::StringRef path);

/// Reads and parses an ONNX model, binary or text. Errors are one line that
/// names the file: unreadable, truncated or malformed, not a model.
llvm::Expected<LoadedModel> loadModel(llvm::StringRef path);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_MODELLOADER_H
