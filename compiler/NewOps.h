//===- NewOps.h - Import of ops new in opsets 18-28 as ops of the dialect -===//
#ifndef ONNXCC_COMPILER_NEWOPS_H
#define ONNXCC_COMPILER_NEWOPS_H

#include "compiler/ImporterImpl.h"

namespace onnxcc::importer {

/// CenterCropPad-18 as a Slice (the axes it crops) and a Pad with zeros (the
/// axes it pads); needs the input's dims and `shape` known at compile time.
llvm::Error centerCropPad18(NodeContext &nc);
llvm::Error imageDecoder20(NodeContext &nc);

} // namespace onnxcc::importer

#endif // ONNXCC_COMPILER_NEWOPS_H
