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
include "dialects/onnx/OnnxMLOps.gen.td"
include "dialects/onnx/TransformerOps.td"

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

// Ops the graph passes create. They are not ONNX operators; `onnxcc optimize`
// writes each back as the standard nodes it stands for.

class Onnx_InternalOp<string mnemonic, list<Trait> traits = []>
    : Onnx_Op<mnemonic, !listconcat([Pure,
        DeclareOpInterfaceMethods<OnnxShapeInferenceOpInterface>], traits)>;

defvar Onnx_FloatTensor = TensorOf<[F32, F64, F16]>;
defvar Onnx_OptFloatTensor = AnyTypeOf<[TensorOf<[F32, F64, F16]>, NoneType]>;

// The epilogue of a fused node: Y = activation(anchor + bias + Z).
// `activation` is one of "" (none), Relu, Clip (params min, max), LeakyRelu
// (alpha), Sigmoid, HardSigmoid (alpha, beta), HardSwish, SiLU, Gelu,
// GeluTanh, Tanh.
defvar Onnx_EpilogueAttrs = (ins
    DefaultValuedStrAttr<StrAttr, "">:$activation,
    OptionalAttr<DenseF32ArrayAttr>:$activation_params);

def Onnx_FusedConvOp : Onnx_InternalOp<"FusedConv"> {
  let summary = "Conv with bias, residual add and activation in its epilogue (onnxcc)";
  let description = [{
    Y = activation(Conv(X, W, B) + Z). Z, when present, has Y's shape.
  }];
  let arguments = !con((ins
    Onnx_FloatTensor:$X,
    Onnx_FloatTensor:$W,
    Onnx_OptFloatTensor:$B,
    Onnx_OptFloatTensor:$Z,
    DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedAttr<I64Attr, "1">:$group,
    OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$strides), Onnx_EpilogueAttrs);
  let results = (outs Onnx_FloatTensor:$Y);
}

def Onnx_FusedConvNHWCOp : Onnx_InternalOp<"FusedConvNHWC"> {
  let summary = "FusedConv over channels-last activations (onnxcc)";
  let description = [{
    onnx.FusedConv of a 2-D convolution whose X [N, H, W, C], Z and
    Y [N, OH, OW, M] are channels-last; W [M, C/group, KH, KW], B and the
    attributes are as for Conv. Made by onnx-channels-last for convolution
    chains; `onnxcc optimize` writes it as Transpose, Conv, epilogue,
    Transpose.
  }];
  let arguments = !con((ins
    Onnx_FloatTensor:$X,
    Onnx_FloatTensor:$W,
    Onnx_OptFloatTensor:$B,
    Onnx_OptFloatTensor:$Z,
    DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedAttr<I64Attr, "1">:$group,
    OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
    OptionalAttr<DenseI64ArrayAttr>:$pads,
    OptionalAttr<DenseI64ArrayAttr>:$strides), Onnx_EpilogueAttrs);
  let results = (outs Onnx_FloatTensor:$Y);
}

def Onnx_FusedGemmOp : Onnx_InternalOp<"FusedGemm"> {
  let summary = "Gemm with residual add and activation in its epilogue (onnxcc)";
  let description = [{
    Y = activation(Gemm(A, B, C) + Z). Z, when present, has Y's shape.
  }];
  let arguments = !con((ins
    Onnx_FloatTensor:$A,
    Onnx_FloatTensor:$B,
    Onnx_OptFloatTensor:$C,
    Onnx_OptFloatTensor:$Z,
    DefaultValuedAttr<F32Attr, "::llvm::APFloat(1.0f)">:$alpha,
    DefaultValuedAttr<F32Attr, "::llvm::APFloat(1.0f)">:$beta,
    DefaultValuedAttr<I64Attr, "0">:$transA,
    DefaultValuedAttr<I64Attr, "0">:$transB), Onnx_EpilogueAttrs);
  let results = (outs Onnx_FloatTensor:$Y);
}

def Onnx_FusedMatMulOp : Onnx_InternalOp<"FusedMatMul"> {
  let summary = "MatMul with bias, residual add and activation in its epilogue (onnxcc)";
  let description = [{
    Y = activation(MatMul(A, B) + Bias + Z). Bias broadcasts to Y's shape
    without changing it; Z, when present, has Y's shape.
  }];
  let arguments = !con((ins
    Onnx_FloatTensor:$A,
    Onnx_FloatTensor:$B,
    Onnx_OptFloatTensor:$Bias,
    Onnx_OptFloatTensor:$Z), Onnx_EpilogueAttrs);
  let results = (outs Onnx_FloatTensor:$Y);
}

def Onnx_GeluOp : Onnx_InternalOp<"Gelu"> {
  let summary = "Gaussian error linear unit (onnxcc; ONNX's Gelu of opset 20)";
  let description = [{
    x * 0.5 * (1 + erf(x / sqrt(2))), or with approximate = "tanh"
    x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
  }];
  let arguments = (ins Onnx_FloatTensor:$X,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs Onnx_FloatTensor:$Y);
}

def Onnx_SiLUOp : Onnx_InternalOp<"SiLU"> {
  let summary = "x * Sigmoid(x) (onnxcc)";
  let arguments = (ins Onnx_FloatTensor:$X);
  let results = (outs Onnx_FloatTensor:$Y);
}

def Onnx_ScaledDotProductAttentionOp : Onnx_InternalOp<"ScaledDotProductAttention"> {
  let summary = "Softmax(Q K^T * scale + Mask) V (onnxcc)";
  let description = [{
    Q [..., Sq, D], K [..., Sk, D], V [..., Sk, Dv] with equal (or
    broadcast) leading dims give Y [..., Sq, Dv]. Mask, when present, is
    added to the scores and broadcasts to [..., Sq, Sk].
  }];
  let arguments = (ins
    Onnx_FloatTensor:$Q,
    Onnx_FloatTensor:$K,
    Onnx_FloatTensor:$V,
    Onnx_OptFloatTensor:$Mask,
    F32Attr:$scale);
  let results = (outs Onnx_FloatTensor:$Y);
}

def Onnx_CheckedIndexOp : Onnx_InternalOp<"CheckedIndex"> {
  let summary = "An index checked against a limit known at run time (onnxcc)";
  let description = [{
    `index` (one int32 or int64 element) as an int64 scalar in [0, limit),
    or [0, limit] with `end`; with `negative` an index below 0 counts from
    the back (index + limit). run() returns 16 when it is outside. With `bound`
    the index is a count checked to be at most `limit`, a capacity the
    compiler derived from a bound (status 10). Sequences whose length the
    data decides use it for their positions (SequenceAt,
    SequenceInsert, SequenceErase) and for SplitToSequence's run-time sizes.
    Compile only: `onnxcc optimize` never makes it.
  }];
  let arguments = (ins
    TensorOf<[I32, I64]>:$index,
    TensorOf<[I64]>:$limit,
    DefaultValuedAttr<BoolAttr, "false">:$end,
    DefaultValuedAttr<BoolAttr, "true">:$negative,
    DefaultValuedAttr<BoolAttr, "false">:$bound);
  let results = (outs TensorOf<[I64]>:$Y);
}

def Onnx_RaggedSequenceOp : Onnx_InternalOp<"RaggedSequence"> {
  let summary = "A sequence of the rows of a tensor, each sliced to its dims (onnxcc)";
  let description = [{
    Element k is rows[k] (each row padded to the largest dims) sliced to
    dims[k] (int64, [n, rank]); n is rows' first dim, or `count` when given
    (rows past it are padding; an element of a smaller rank has -1 for each
    dim it lacks, see RaggedRows). `fixed_dims` gives
    the dims every element has (-1 where they differ). A Loop that appends
    tensors whose dims the data decides to a sequence makes one from its
    scan outputs; onnx-stack-sequences turns it into a ragged stack.
    Compile only: `onnxcc optimize` never makes it.
  }];
  let arguments = (ins AnyTensor:$rows, TensorOf<[I64]>:$dims,
                       Optional<TensorOf<[I64]>>:$count,
                       OptionalAttr<DenseI64ArrayAttr>:$fixed_dims);
  let results = (outs Onnx_SeqType:$sequence);
}

def Onnx_RaggedRowsOp : Onnx_InternalOp<"RaggedRows"> {
  let summary = "The ragged stack of a sequence (onnxcc)";
  let description = [{
    The inverse of RaggedSequence with a count: `rows` [capacity,
    max_dims...] holds element k in row k padded with zeros, `dims`
    [capacity, rank] its dims (an element of a smaller rank has its dims,
    then -1 for each dim it lacks) and `count` how many rows hold
    elements. run() returns 10 when the sequence has more than `capacity`
    elements. A Loop that carries a sequence its body changes other than by
    appending carries these (LoopSequences.cpp). Compile only.
  }];
  let arguments = (ins Onnx_SeqType:$sequence, I64Attr:$capacity,
                       DenseI64ArrayAttr:$max_dims);
  let results = (outs AnyTensor:$rows, TensorOf<[I64]>:$dims, TensorOf<[I64]>:$count);
}

// The ai.onnx.ml ops that take a map. A graph input of type map(K, V) is
// two function arguments, its keys [n] and its values [n] (n a symbolic dim
// of its own; see codegen/cpp/ABI.md); the importer gives these ops both.
// `onnxcc optimize` writes them back as the ml op on the map input.

def Onnx_MapDictVectorizerOp : Onnx_InternalOp<"MapDictVectorizer"> {
  let summary = "ai.onnx.ml DictVectorizer of a map given as keys and values (onnxcc)";
  let description = [{
    Y [1, V] holds, at each position of the vocabulary (int64_vocabulary or
    string_vocabulary, whichever the keys' type is), the value of that key,
    or 0 ("" for strings) when the map lacks it. Keys outside the
    vocabulary are ignored.
  }];
  let arguments = (ins
    TensorOf<[I64, Onnx_StringType]>:$keys,
    TensorOf<[I64, F32, F64, Onnx_StringType]>:$values,
    OptionalAttr<DenseI64ArrayAttr>:$int64_vocabulary,
    OptionalAttr<StrArrayAttr>:$string_vocabulary);
  let results = (outs TensorOf<[I64, F32, F64, Onnx_StringType]>:$Y);
}

def Onnx_MapCastOp : Onnx_InternalOp<"MapCast"> {
  let summary = "ai.onnx.ml CastMap of a map given as keys and values (onnxcc)";
  let description = [{
    The int64-keyed map's values cast to `cast_to` (TO_FLOAT, TO_INT64,
    TO_STRING): DENSE gives Y [1, n] in ascending key order, SPARSE gives
    Y [1, max_map] with the value of key i at i (0, or "0.f" for strings,
    where the map lacks i).
  }];
  let arguments = (ins
    TensorOf<[I64]>:$keys,
    TensorOf<[F32, Onnx_StringType]>:$values,
    DefaultValuedStrAttr<StrAttr, "TO_FLOAT">:$cast_to,
    DefaultValuedStrAttr<StrAttr, "DENSE">:$map_form,
    DefaultValuedAttr<I64Attr, "1">:$max_map);
  let results = (outs TensorOf<[F32, I64, Onnx_StringType]>:$Y);
}

#endif // ONNXCC_ONNX_OPS_TD
