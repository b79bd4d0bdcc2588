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

    Symbolic dims are polynomials of the dim_params (Flatten of
    [batch, seq, 4] gives [batch*seq*4]); with `annotate`, each op with a
    symbolic result records them as `onnx.symbolic_dims` (one string array
    per result) for tests and debugging.
  }];
  let options = [
    Option<"annotate", "annotate", "bool", "false",
           "Record symbolic result dims as the onnx.symbolic_dims attribute">,
  ];
}

def OnnxStackSequencesPass : Pass<"onnx-stack-sequences", "::mlir::func::FuncOp"> {
  let summary = "Replace sequence values by stacked tensors of statically known length";
  let description = [{
    A sequence whose length is known at compile time and whose elements share
    one static shape becomes one tensor with the sequence index as its leading
    dim; the sequence ops become onnx tensor ops on it (runtime positions
    select with Gather). Sequences this cannot express are left alone for the
    lowering to report. Optionals whose presence is known first resolve:
    OptionalHasElement becomes a constant, OptionalGetElement the value.
  }];
}

def OnnxFloat16AsFloat32Pass : Pass<"onnx-f16-as-f32", "::mlir::func::FuncOp"> {
  let summary = "Compute a float16 model in float32 between its inputs and outputs";
  let description = [{
    Every float16 value becomes float32: float16 inputs and constants are
    cast to float32 where they are made, ops with float16 results get
    float32 results, a Cast to float16 is kept and followed by a Cast back
    (its rounding stays), and float16 outputs are cast to float16 before the
    return. Functions with float16 sequences or optionals or ai.onnx.ml ops
    are left as they are.
  }];
}

def OnnxSimplifyPass : Pass<"onnx-simplify", "::mlir::func::FuncOp"> {
  let summary = "Remove no-op nodes and fold redundant node pairs";
  let description = [{
    Removes Identity, inference Dropout and no-op Cast/Reshape/Transpose/Pad/
    Slice; merges Transpose pairs, Reshape chains and Unsqueeze/Squeeze pairs;
    erases dead nodes and merges identical ones (common subexpressions).
  }];
}

def OnnxFoldBatchNormPass : Pass<"onnx-fold-batchnorm", "::mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNormalization into the preceding Conv/ConvTranspose/Gemm";
  let description = [{
    A BatchNormalization with constant statistics whose input is the only use
    of a Conv, ConvTranspose or Gemm with constant weights becomes new
    constant weights and bias of that node.
  }];
}

def OnnxRecognizePass : Pass<"onnx-recognize", "::mlir::func::FuncOp"> {
  let summary = "Recognize LayerNormalization, GELU, SiLU and attention in decomposed form";
  let description = [{
    Older opsets and exporters write these as chains of elementwise and
    reduction nodes; each chain that computes exactly the op becomes one
    onnx.LayerNormalization, onnx.Gelu, onnx.SiLU or
    onnx.ScaledDotProductAttention.
  }];
}

def OnnxFusePass : Pass<"onnx-fuse", "::mlir::func::FuncOp"> {
  let summary = "MatMul+Add into Gemm; bias, activation and residual add into epilogues";
  let description = [{
    A rank-2 MatMul whose only use adds a bias that broadcasts to its result
    becomes Gemm. Conv, Gemm and MatMul absorb a following bias add,
    residual add and activation (Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid,
    HardSwish, SiLU, Gelu, Tanh) into onnx.FusedConv, onnx.FusedGemm and
    onnx.FusedMatMul.
  }];
}

def OnnxChannelsLastPass : Pass<"onnx-channels-last", "::mlir::func::FuncOp"> {
  let summary = "Run convolution chains in channels-last (NHWC) layout";
  let description = [{
    Convolutions linked through elementwise ops and GlobalAveragePool form
    chains. A chain holding a depthwise convolution is chosen (mode
    depthwise-chains) or every chain (mode all); so is, on its own, a
    convolution whose output plane has under 64 pixels and whose output
    channels fill 16-lane vectors better than those pixels do. The chosen
    convolutions become onnx.FusedConvNHWC between transposes, and the
    transposes back to NCHW sink through the chain until they cancel against
    the next convolution's, so only the chain's inputs and outputs are
    transposed. Only float32 2-D convolutions with static
    shapes, constant W and group 1 or depthwise take part (what the kernels
    compute); run it only when the lowering uses kernels.
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"depthwise-chains\"",
           "Which chains go channels-last: depthwise-chains (those holding a "
           "depthwise convolution) or all">,
  ];
}

#endif // ONNXCC_ONNX_TRANSFORMS_PASSES_TD
