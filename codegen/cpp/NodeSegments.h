//===- NodeSegments.h - The lowered code of each ONNX node ----------------===//
//
// After lowering, the model is one function whose top-level ops each carry
// the location of the ONNX node they came from: FusedLoc<"OpType">[NameLoc
// ("node"), ...] (a fused node lists every node it replaced). A segment is a
// run of consecutive top-level ops of one node; ops that carry no op type
// (views, scalars made by memory planning) belong to the segment before
// them. `onnxcc compile --report` tells from the segments which path each
// heavy op took (a runtime-support kernel or a loop nest), and `--profile`
// puts a timestamp at the start of each segment that does work.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_CODEGEN_CPP_NODESEGMENTS_H
#define ONNXCC_CODEGEN_CPP_NODESEGMENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <utility>
#include <vector>

namespace onnxcc::codegen {

/// An ONNX node as the locations record it: its name and its position in
/// its graph (the importer's FileLineColLoc line, 1-based), which tells
/// apart nodes that share a name.
struct SourceNode {
  std::string name;
  unsigned line = 0;
  bool operator==(const SourceNode &o) const { return name == o.name && line == o.line; }
  bool operator<(const SourceNode &o) const {
    return line != o.line ? line < o.line : name < o.name;
  }
};

/// The ONNX nodes `loc` names, in the order the location lists them (a fused
/// node's anchor first), each once.
llvm::SmallVector<SourceNode> sourceNodes(mlir::Location loc);

/// The op type the lowering recorded on `loc` (the FusedLoc's metadata:
/// "Conv", "FusedMatMul"...), or "".
std::string loweredOpType(mlir::Location loc);

struct NodeSegment {
  /// The node as the generated code's comment names it: the op type on the
  /// location and its first ONNX node's name.
  std::string opType;
  std::string nodeName;
  /// Every ONNX node its ops' locations name.
  llvm::SmallVector<SourceNode> sources;
  /// The top-level ops of the segment, in order.
  llvm::SmallVector<mlir::Operation *> ops;
  /// The runtime-support functions it calls, in order of first call: a
  /// kernel by its name in onnxcc_rt::kernels ("conv2d_nchwc"), anything
  /// else by its name in onnxcc_rt ("ml::tree_ensemble").
  llvm::SmallVector<std::string> calls;
  /// It holds a loop nest (scf.for, scf.parallel or scf.while).
  bool loops = false;
  /// It copies buffers (memref.copy) outside any loop.
  bool copies = false;
  /// It stores scalars outside any loop.
  bool stores = false;
  /// Whether it computes anything (calls, loops, copies, stores) rather than
  /// only naming views and scalars.
  bool work() const { return !calls.empty() || loops || copies || stores; }
};

/// The segments of `func`'s body in order.
std::vector<NodeSegment> segmentFunction(mlir::func::FuncOp func);

/// The path a node took, from its segments' calls and loops: "conv2d_nchwc",
/// "gemm_packed_b + loops", "loops", "copy", or "-" (views only).
std::string describePath(llvm::ArrayRef<std::string> calls, bool loops, bool copies);

} // namespace onnxcc::codegen

#endif // ONNXCC_CODEGEN_CPP_NODESEGMENTS_H
