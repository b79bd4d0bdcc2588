//===- Losses.cpp - onnx ops to linalg: loss family -----------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {

void populateLossPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace onnxcc::lowering
