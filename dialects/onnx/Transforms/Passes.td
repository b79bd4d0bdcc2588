//===- Passes.td - Graph passes over the onnx dialect ------*- tablegen -*-===//
#ifndef ONNXCC_ONNX_TRANSFORMS_PASSES_TD
#define ONNXCC_ONNX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OnnxInferShapesPass : Pass<"onnx-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "Infer static and symbolic shapes of every onnx value";
  let description = [{
    Runs each op's shape function in program order, seeded by the function
    arguments' types and their `onnx.dim_params` names, and refines result
    types where dims become static. An op whose shape function finds its
    operands inconsistent is an error.
  }];
}

#endif // ONNXCC_ONNX_TRANSFORMS_PASSES_TD
