//===- Constants.h - Reading onnx.Constant values in graph passes --------===//
#ifndef ONNXCC_DIALECTS_ONNX_TRANSFORMS_CONSTANTS_H
#define ONNXCC_DIALECTS_ONNX_TRANSFORMS_CONSTANTS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace onnxcc::onnx {

/// The value of the onnx.Constant that defines `v` when it has a static shape
/// and inline (dense) or resource-blob data; null otherwise.
mlir::ElementsAttr staticConstantValue(mlir::Value v);

/// The elements of the integer or bool onnx.Constant that defines `v` (inline
/// data) as int64, bools as 0/1; nullopt otherwise.
std::optional<llvm::SmallVector<int64_t>> constantInts(mlir::Value v);

/// The elements of integer constant `attr` (static shape, inline or a
/// resource blob of little-endian host data; types narrower than a byte one
/// per byte, as the importer unpacks them) as int64, sign- or zero-extended
/// by the type's signedness; nullopt for bools, wider than 64 bits or
/// unreadable data.
std::optional<llvm::SmallVector<int64_t>> readIntegerElements(mlir::ElementsAttr attr);

/// The elements of float constant `attr` (static shape, inline or a resource
/// blob of little-endian host data) as doubles in row-major order; nullopt
/// for other element types or unreadable data.
std::optional<llvm::SmallVector<double>> readFloatElements(mlir::ElementsAttr attr);

} // namespace onnxcc::onnx

#endif // ONNXCC_DIALECTS_ONNX_TRANSFORMS_CONSTANTS_H
