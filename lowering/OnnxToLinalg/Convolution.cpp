//===- Convolution.cpp - onnx ops to linalg: convolution family -----------------------===//
#include "lowering/OnnxToLinalg/Patterns.h"

using namespace mlir;

namespace onnxcc::lowering {

void populateConvolutionPatterns(OnnxTypeConverter &converter, RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace onnxcc::lowering
