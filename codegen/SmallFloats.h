//===- SmallFloats.h - ONNX's 8-bit and 4-bit float types in emitters -----===//
//
// The float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0) and float4 (E2M1)
// types are one bit pattern per byte in generated code (codegen/cpp/ABI.md);
// both emitters name their conversions after the type.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_CODEGEN_SMALLFLOATS_H
#define ONNXCC_CODEGEN_SMALLFLOATS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

namespace onnxcc::codegen {

/// The conversions' stem of an 8-bit or 4-bit float type (`f8e4m3fn`:
/// `f8e4m3fn_to_f32`, `f32_to_f8e4m3fn`, `round_f8e4m3fn`), or "".
inline llvm::StringRef smallFloatName(mlir::Type t) {
  if (llvm::isa<mlir::Float8E4M3FNType>(t))
    return "f8e4m3fn";
  if (llvm::isa<mlir::Float8E4M3FNUZType>(t))
    return "f8e4m3fnuz";
  if (llvm::isa<mlir::Float8E5M2Type>(t))
    return "f8e5m2";
  if (llvm::isa<mlir::Float8E5M2FNUZType>(t))
    return "f8e5m2fnuz";
  if (llvm::isa<mlir::Float8E8M0FNUType>(t))
    return "f8e8m0";
  if (llvm::isa<mlir::Float4E2M1FNType>(t))
    return "f4e2m1";
  return "";
}

} // namespace onnxcc::codegen

#endif // ONNXCC_CODEGEN_SMALLFLOATS_H
