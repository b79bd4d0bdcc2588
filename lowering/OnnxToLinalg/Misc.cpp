//===- Misc.cpp - onnx ops to linalg: misc family -----------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {

void populateMiscPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace onnxcc::lowering
