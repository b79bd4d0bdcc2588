//===- OnnxccPch.h - the headers precompiled for the compiler's libraries -===//
//
// Most of the compiler's translation units start by parsing the same MLIR and
// ONNX-dialect headers: 16 of the 29 s a lowering file takes at -O0, 12 s at
// -O2. Precompiled once per build (onnxcc_precompile_headers in the top-level
// CMakeLists.txt) and put in front of every file of those libraries, they are
// parsed once. Only headers that any file may see first belong here: nothing
// that depends on a macro a file defines before its includes (GEN_PASS_DEF_*).
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"
