//===- Errors.h - The errors of the compiler library -----------*- C++ -*-===//
#ifndef ONNXCC_COMPILER_ERRORS_H
#define ONNXCC_COMPILER_ERRORS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace onnxcc {

/// An error carrying `message`, one line (the form every onnxcc error takes).
inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

} // namespace onnxcc

#endif // ONNXCC_COMPILER_ERRORS_H
