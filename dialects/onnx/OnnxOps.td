//===- OnnxOps.td - The operators of the onnx dialect ------*- tablegen -*-===//
#ifndef ONNXCC_ONNX_OPS_TD
#define ONNXCC_ONNX_OPS_TD

include "dialects/onnx/OnnxBase.td"
include "dialects/onnx/OnnxInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

include "dialects/onnx/OnnxOps.gen.td"

// Ops of the dialect that are not ONNX operators.

def Onnx_NoValueOp : Onnx_Op<"NoValue", [Pure, ConstantLike]> {
  let summary = "The value of an absent optional input";
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}

def Onnx_YieldOp : Onnx_Op<"Yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["IfOp", "LoopOp", "ScanOp", "SequenceMapOp"]>]> {
  let summary = "Returns the outputs of a subgraph (If/Loop/Scan/SequenceMap body)";
  let arguments = (ins Variadic<AnyType>:$operands_);
  let assemblyFormat = "attr-dict ($operands_^ `:` type($operands_))?";
}

#endif // ONNXCC_ONNX_OPS_TD
