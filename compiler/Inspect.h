//===- Inspect.h - Facts about an ONNX model, without MLIR ----------------===//
#ifndef ONNXCC_COMPILER_INSPECT_H
#define ONNXCC_COMPILER_INSPECT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace onnxcc {

/// One dimension of a declared shape: a number (dim_value), a symbol
/// (dim_param) or nothing at all. Kept apart so that `N` and `224` print
/// differently and the JSON form can tell a symbol from a number.
struct DimSummary {
  std::optional<int64_t> value;
  std::string param;
};

/// A graph input or output as the model declares it.
struct ValueSummary {
  std::string name;
  /// The whole type in one string, e.g. `float32[N, 3, 224, 224]` or
  /// `sequence<int64[?]>`.
  std::string type;
  /// Set only for tensor types, so the JSON form can give dtype and shape
  /// separately.
  bool isTensor = false;
  std::string dtype;
  /// Unset when the tensor has no declared shape (unranked).
  std::optional<std::vector<DimSummary>> shape;
};

/// Everything `onnxcc inspect` reports. Every list is in a fixed order so
/// that the output is byte-identical run to run.
struct ModelSummary {
  int64_t irVersion = 0;
  /// (domain, version), the default domain spelled `ai.onnx`, sorted by domain.
  std::vector<std::pair<std::string, int64_t>> opsets;
  std::string producerName;
  std::string producerVersion;
  std::string graphName;
  /// Inputs that are initializers are weights, not inputs, and are left out.
  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;
  uint64_t nodeCount = 0;
  /// Nodes of the main graph plus those of every If/Loop/Scan body, recursively.
  uint64_t nodeCountWithSubgraphs = 0;
  /// Op type (domain-qualified outside ai.onnx) and count over all graphs,
  /// sorted by count descending, then by name.
  std::vector<std::pair<std::string, uint64_t>> opHistogram;
  /// Initializers of all graphs, dense and sparse.
  uint64_t initializerCount = 0;
  /// Elements of those initializers, from their dims, so that external data
  /// is counted without reading it.
  uint64_t parameterCount = 0;
  uint64_t parameterBytes = 0;
  /// Model-local functions (IR 8+) in the model's order: `domain:name`
  /// (`:overload` when there is one) and their node count. The importer
  /// inlines their calls; the histogram counts the calls, not their bodies.
  std::vector<std::pair<std::string, uint64_t>> functions;
};

/// Bytes in binary units with one decimal (`24 B`, `1.5 KiB`, `44.6 MiB`),
/// for a reader's sense of scale.
std::string formatBytes(uint64_t bytes);

/// The printable name of an ONNX TensorProto data type (`float32`, `int64`,
/// ...); `type<N>` for a number this build does not know.
std::string getDataTypeName(int32_t dataType);

/// Gathers the facts about `model`. Fails with a one-line message on
/// initializers whose size cannot be computed (negative dims, overflow,
/// unknown data type): their byte count would be a lie.
llvm::Expected<ModelSummary> summarizeModel(const ::onnx::ModelProto &model);

/// Prints the summary for people to read.
void printModelSummary(const ModelSummary &summary, llvm::raw_ostream &os);

/// Prints the summary as one JSON object (keys sorted, lists in the order
/// of the text form), for scripts and tests.
void printModelSummaryJson(const ModelSummary &summary, llvm::raw_ostream &os);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_INSPECT_H
