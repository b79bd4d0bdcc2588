//===- OnnxInterfaces.td - Interfaces of onnx ops ----------*- tablegen -*-===//
#ifndef ONNXCC_ONNX_INTERFACES_TD
#define ONNXCC_ONNX_INTERFACES_TD

include "mlir/IR/OpBase.td"

def OnnxShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::onnxcc::onnx";
  let description = [{
    The op's shape function: from the shapes (static or symbolic dims) of its
    operands, and the values of constant operands, it gives the shapes of its
    results. Shared by the importer, the shape-inference pass and lowering.
  }];
  let methods = [
    InterfaceMethod<
      "Computes result shapes into `ctx`; failure when a shape is invalid "
      "(the function has emitted an error). Results it cannot know stay unset.",
      "::mlir::LogicalResult", "inferShapes",
      (ins "::onnxcc::onnx::ShapeContext &":$ctx)>,
  ];
}

#endif // ONNXCC_ONNX_INTERFACES_TD
