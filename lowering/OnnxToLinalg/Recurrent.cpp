//===- Recurrent.cpp - onnx ops to linalg: recurrent family ---------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {

void populateRecurrentPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace onnxcc::lowering
