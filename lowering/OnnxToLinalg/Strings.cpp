//===- Strings.cpp - String ops to calls into runtime-support ------------===//
//
// A string tensor is lowered as a tensor of i64: each element is the
// `const char *` of a NUL-terminated string in the generated code.
//
//===----------------------------------------------------------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {

void populateStringPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {}

} // namespace onnxcc::lowering
