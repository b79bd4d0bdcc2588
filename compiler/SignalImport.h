//===- SignalImport.h - Import of the signal and geometry ops -------------===//
#ifndef ONNXCC_COMPILER_SIGNALIMPORT_H
#define ONNXCC_COMPILER_SIGNALIMPORT_H

#include "compiler/ImporterImpl.h"

namespace onnxcc::importer {

/// DFT 20 (`axis` an input, default -2) as the dialect's DFT (axis an
/// attribute, made non-negative). An axis known only at run time computes
/// the transform along every axis it may name and selects one (Where); that
/// needs the same result shape for each, so not for one-sided transforms.
llvm::Error dft20(NodeContext &nc);

/// DeformConv 19 and 22 (2-D): GridSample at the offset positions, then the
/// convolution as a MatMul (see SignalImport.cpp).
llvm::Error deformConv19(NodeContext &nc);

/// Col2Im 18 (image_shape and block_shape constant) as a Gather with a
/// constant index table, Where and ReduceSum.
llvm::Error col2im18(NodeContext &nc);

/// AffineGrid 20 (size constant) as a constant base grid times theta
/// transposed.
llvm::Error affineGrid20(NodeContext &nc);

} // namespace onnxcc::importer

#endif // ONNXCC_COMPILER_SIGNALIMPORT_H
