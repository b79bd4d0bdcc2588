//===- TransformerOps.td - Attention, RMSNormalization, RoPE --*- tablegen -*-===//
//
// The transformer operators of ONNX opsets 23-27. They are newer than the
// opset the generated definitions implement (OnnxOps.gen.td), so they are
// written here; the importer maps each version onto them
// (compiler/OpsetNormalization.cpp) and lowering/OnnxToLinalg/Transformer.cpp
// lowers them.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_TRANSFORMER_OPS_TD
#define ONNXCC_TRANSFORMER_OPS_TD

defvar Onnx_TfFloat = TensorOf<[F32, F64, F16, BF16]>;
defvar Onnx_OptTfFloat = AnyTypeOf<[TensorOf<[F32, F64, F16, BF16]>, NoneType]>;

def Onnx_AttentionOp : Onnx_Op<"Attention", [Pure,
    DeclareOpInterfaceMethods<OnnxShapeInferenceOpInterface>]> {
  let summary = "ONNX Attention (ai.onnx, opsets 23, 24 and 25)";
  let description = [{
    Y = Softmax(softcap(Q K^T * scale) + bias) V per head, where bias
    combines attn_mask (bool: 0 or -inf; numeric: added; a last dim shorter
    than the keys is padded with -inf), is_causal (key j is visible to query
    i when j <= i + offset), nonpad_kv_seqlen (keys from nonpad[b] on are
    hidden) and the window of opset 25 (left/right_window_size, -1 for
    none). 3-D Q, K, V are [batch, seq, heads * head_size] with
    q_num_heads/kv_num_heads; 4-D ones [batch, heads, seq, head_size]. A
    query head h reads key/value head h / (q_heads / kv_heads). past_key and
    past_value are prepended to K and V; present_key/present_value are the
    concatenations. qk_matmul_output is, by qk_matmul_output_mode, the scaled
    Q K^T (0), after softcap (1), with the bias (2) or the probabilities (3).
    A query row with no visible key gives zeros. All four results always
    exist; absent outputs of the node have no uses.
  }];
  let arguments = (ins
    Onnx_TfFloat:$Q,
    Onnx_TfFloat:$K,
    Onnx_TfFloat:$V,
    AnyTypeOf<[TensorOf<[I1, I8, I16, I32, I64, UI8, UI16, UI32, UI64, F16, BF16, F32, F64]>,
               NoneType]>:$attn_mask,
    Onnx_OptTfFloat:$past_key,
    Onnx_OptTfFloat:$past_value,
    AnyTypeOf<[TensorOf<[I64]>, NoneType]>:$nonpad_kv_seqlen,
    DefaultValuedAttr<I64Attr, "0">:$is_causal,
    OptionalAttr<I64Attr>:$kv_num_heads,
    OptionalAttr<I64Attr>:$q_num_heads,
    DefaultValuedAttr<I64Attr, "0">:$qk_matmul_output_mode,
    OptionalAttr<F32Attr>:$scale,
    DefaultValuedAttr<F32Attr, "::llvm::APFloat(0.0f)">:$softcap,
    OptionalAttr<I64Attr>:$softmax_precision,
    DefaultValuedAttr<I64Attr, "-1">:$left_window_size,
    DefaultValuedAttr<I64Attr, "-1">:$right_window_size);
  let results = (outs
    Onnx_TfFloat:$Y,
    Onnx_OptTfFloat:$present_key,
    Onnx_OptTfFloat:$present_value,
    Onnx_OptTfFloat:$qk_matmul_output);
}

def Onnx_RMSNormalizationOp : Onnx_Op<"RMSNormalization", [Pure,
    DeclareOpInterfaceMethods<OnnxShapeInferenceOpInterface>]> {
  let summary = "ONNX RMSNormalization (ai.onnx, since opset 23)";
  let description = [{
    Y = X / sqrt(mean(X^2 over dims axis..rank-1) + epsilon) * scale, the
    first stage in the precision of stash_type; scale broadcasts to X.
  }];
  let arguments = (ins
    Onnx_TfFloat:$X,
    Onnx_TfFloat:$scale,
    DefaultValuedAttr<I64Attr, "-1">:$axis,
    DefaultValuedAttr<F32Attr, "::llvm::APFloat(1e-05f)">:$epsilon,
    DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs Onnx_TfFloat:$Y);
}

def Onnx_RotaryEmbeddingOp : Onnx_Op<"RotaryEmbedding", [Pure,
    DeclareOpInterfaceMethods<OnnxShapeInferenceOpInterface>]> {
  let summary = "ONNX RotaryEmbedding (ai.onnx, since opset 23)";
  let description = [{
    Rotates the first rotary_embedding_dim (0: all) values of each head of
    X (4-D [batch, heads, seq, head_size], or 3-D [batch, seq, hidden] with
    num_heads) by the angles whose cos/sin are cos_cache/sin_cache, read at
    position_ids [batch, seq] when present, else [batch, seq, dim/2]
    themselves; halves (x[k], x[k + dim/2]) or, interleaved, pairs
    (x[2k], x[2k+1]).
  }];
  let arguments = (ins
    Onnx_TfFloat:$X,
    Onnx_TfFloat:$cos_cache,
    Onnx_TfFloat:$sin_cache,
    AnyTypeOf<[TensorOf<[I64]>, NoneType]>:$position_ids,
    DefaultValuedAttr<I64Attr, "0">:$interleaved,
    OptionalAttr<I64Attr>:$num_heads,
    DefaultValuedAttr<I64Attr, "0">:$rotary_embedding_dim);
  let results = (outs Onnx_TfFloat:$Y);
}

def Onnx_CausalConvWithStateOp : Onnx_Op<"CausalConvWithState", [Pure,
    DeclareOpInterfaceMethods<OnnxShapeInferenceOpInterface>]> {
  let summary = "ONNX CausalConvWithState (ai.onnx, since opset 27)";
  let description = [{
    Depthwise causal 1-D convolution of input [B, C, L] with weight
    [C, 1, k] over past_state [B, C, k - 1] (zeros when absent) followed by
    the input: output[b, c, t] = act(bias[c] + sum_i w[c, 0, i] *
    padded[b, c, t + i]), act none or silu/swish; present_state is the last
    k - 1 positions of the padded sequence.
  }];
  let arguments = (ins
    Onnx_TfFloat:$input,
    Onnx_TfFloat:$weight,
    Onnx_OptTfFloat:$bias,
    Onnx_OptTfFloat:$past_state,
    DefaultValuedStrAttr<StrAttr, "none">:$activation);
  let results = (outs Onnx_TfFloat:$output, Onnx_TfFloat:$present_state);
}

def Onnx_LinearAttentionOp : Onnx_Op<"LinearAttention", [Pure,
    DeclareOpInterfaceMethods<OnnxShapeInferenceOpInterface>]> {
  let summary = "ONNX LinearAttention (ai.onnx, since opset 27)";
  let description = [{
    The recurrence of linear attention over the T tokens of packed
    [B, T, H * d] query/key/value with a state S [B, Hkv, dk, dv] (past_state
    or zeros): update_rule linear (S += k v^T), gated (S = exp(g) S + k v^T),
    delta (S += beta k (v - S^T k)^T) or gated_delta (both); output_t =
    scale * q_t^T S_t per query head (GQA: head h reads state h / group).
    decay is per key dim [B, T, Hkv * dk] or per head [B, T, Hkv]; beta per
    head [B, T, Hkv] or [B, T, 1]. chunk_size is only a hint.
  }];
  let arguments = (ins
    Onnx_TfFloat:$query,
    Onnx_TfFloat:$key,
    Onnx_TfFloat:$value,
    Onnx_OptTfFloat:$past_state,
    Onnx_OptTfFloat:$decay,
    Onnx_OptTfFloat:$beta,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    OptionalAttr<I64Attr>:$kv_num_heads,
    OptionalAttr<I64Attr>:$q_num_heads,
    DefaultValuedAttr<F32Attr, "::llvm::APFloat(0.0f)">:$scale,
    DefaultValuedStrAttr<StrAttr, "gated_delta">:$update_rule);
  let results = (outs Onnx_TfFloat:$output, Onnx_TfFloat:$present_state);
}

#endif // ONNXCC_TRANSFORMER_OPS_TD
