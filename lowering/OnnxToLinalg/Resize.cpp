//===- Resize.cpp - onnx ops to linalg: resize family -----------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {

void populateResizePatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace onnxcc::lowering
