//===- Graph.h - onnxcc graph: draw a model's graph -----------------------===//
//
// `onnxcc graph MODEL -o FILE` writes the model's graph as Graphviz source
// (.dot), a picture (.svg) or one self-contained interactive page (.html).
// The layout is computed here (layers, barycenter ordering, coordinates), so
// nothing else needs to be installed to read the picture.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_COMPILER_GRAPH_H
#define ONNXCC_COMPILER_GRAPH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace onnxcc {

struct GraphOptions {
  /// Draw the main function after the graph passes (as `onnxcc inspect
  /// --optimized` sees it) rather than as imported.
  bool optimized = false;
  /// With `optimized`: static dims of inputs, input name -> dims.
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
};

/// Writes the graph of the model at `modelPath` to `outPath`, in the format
/// its extension names: .dot, .svg or .html. Deterministic: the same model
/// and options give the same bytes. Errors are one line.
llvm::Error writeModelGraph(llvm::StringRef modelPath, llvm::StringRef outPath,
                            const GraphOptions &options);

} // namespace onnxcc

#endif // ONNXCC_COMPILER_GRAPH_H
