//===- Functions.h - Model-local and schema functions, inlined at import ---===//
//
// A node whose (domain, op_type, overload) names a FunctionProto is imported as
// the function's body: the importer binds the call's inputs to the function's
// formal inputs in a scope of their own, imports a copy of the body made here
// (attribute references resolved from the call site or the function's
// defaults, node names prefixed with the call's), with the function's own
// opset imports, and binds the call's outputs to the body's results.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_COMPILER_FUNCTIONS_H
#define ONNXCC_COMPILER_FUNCTIONS_H

#include "onnx.pb.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace onnxcc::importer {

/// How a function is named in messages: "domain:name" (":overload").
std::string functionLabel(const ::onnx::FunctionProto &fn);

/// The model-local functions of a model, by (domain, name, overload).
class FunctionLibrary {
public:
  /// Indexes `model.functions()`; an error for a function listed twice or one
  /// without a name.
  llvm::Error add(const ::onnx::ModelProto &model);
  /// The function a node calls, or null.
  const ::onnx::FunctionProto *find(const ::onnx::NodeProto &node) const;
  /// True when some function is in `domain`.
  bool hasDomain(llvm::StringRef domain) const;
  bool empty() const { return functions.empty(); }

private:
  std::map<std::tuple<std::string, std::string, std::string>,
           const ::onnx::FunctionProto *>
      functions;
};

/// One call of a function, ready to import.
struct FunctionInstance {
  /// The body: nodes (attribute references resolved, names prefixed),
  /// value_info; `input` lists the formal inputs the call provides (the
  /// others are absent: their uses in the body read as empty names), `output`
  /// the function's outputs.
  ::onnx::GraphProto body;
  /// The opset of each domain the body's nodes are read at ("" = ai.onnx):
  /// the function's own imports over the caller's.
  llvm::StringMap<int64_t> opsets;
};

/// Instantiates `fn` for `call`. `callerOpsets` are the opsets the call is read
/// at, `prefix` names the call (the body's node names start with it). Errors
/// (arity, attributes) are one line that the caller attaches to the node.
llvm::Expected<std::unique_ptr<FunctionInstance>>
instantiateFunction(const ::onnx::FunctionProto &fn, const ::onnx::NodeProto &call,
                    const llvm::StringMap<int64_t> &callerOpsets, llvm::StringRef prefix);

/// The function body ONNX gives the ai.onnx operator `opType` at `opset`
/// (schema functions, generated into SchemaFunctions.gen.inc), or null.
const ::onnx::FunctionProto *lookupSchemaFunction(llvm::StringRef opType, int64_t opset);

/// FlexAttention (ai.onnx.preview, version 1), whose body ONNX defines per
/// call (a context-dependent function): the scale, the softmax precision
/// (`qIsDouble` picks its default) and the score_mod/prob_mod graphs, inlined,
/// are part of the body. Errors are one line for the caller to attach.
llvm::Expected<std::unique_ptr<::onnx::FunctionProto>>
flexAttentionFunction(const ::onnx::NodeProto &call, int32_t qElemType);

} // namespace onnxcc::importer

#endif // ONNXCC_COMPILER_FUNCTIONS_H
