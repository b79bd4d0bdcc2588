//===- ShapeContext.h - Symbolic shapes for onnx shape functions ---------===//
#ifndef ONNXCC_DIALECTS_ONNX_SHAPECONTEXT_H
#define ONNXCC_DIALECTS_ONNX_SHAPECONTEXT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace onnxcc::onnx {

/// One dimension of a shape: a static size, a named symbolic size (an ONNX
/// dim_param such as "batch"), or unknown.
struct Dim {
  int64_t size = mlir::ShapedType::kDynamic;
  mlir::StringAttr symbol;

  static Dim known(int64_t n) { return Dim{n, {}}; }
  static Dim unknown() { return Dim{}; }
  static Dim named(mlir::StringAttr s) { return Dim{mlir::ShapedType::kDynamic, s}; }
  bool isStatic() const { return size != mlir::ShapedType::kDynamic; }
  bool isSymbolic() const { return !isStatic() && symbol; }
  bool operator==(const Dim &o) const {
    return size == o.size && symbol == o.symbol;
  }
  bool operator!=(const Dim &o) const { return !(*this == o); }
};

using Shape = llvm::SmallVector<Dim, 4>;

/// Symbolic shapes of the values of one function, and the inputs and outputs
/// of one shape function call.
class ShapeMap {
public:
  /// The shape of `v`: from this map, else from its ranked tensor type;
  /// nullopt when unranked or not a tensor.
  std::optional<Shape> lookup(mlir::Value v) const;
  void set(mlir::Value v, Shape s) { shapes[v] = std::move(s); }
  void erase(mlir::Value v) { shapes.erase(v); }

private:
  llvm::DenseMap<mlir::Value, Shape> shapes;
};

/// What a shape function sees: its op, the shapes of its operands and the
/// contents of constant operands; it records result shapes.
class ShapeContext {
public:
  ShapeContext(mlir::Operation *op, const ShapeMap &map) : op(op), map(map) {
    results.resize(op->getNumResults());
  }

  mlir::Operation *getOp() const { return op; }
  std::optional<Shape> getShape(mlir::Value v) const { return map.lookup(v); }
  std::optional<Shape> operandShape(unsigned i) const {
    return i < op->getNumOperands() ? getShape(op->getOperand(i)) : std::nullopt;
  }
  /// True when operand `i` is present (not an absent optional input).
  bool hasOperand(unsigned i) const;
  /// The integer contents of constant operand `v`, if it is one.
  std::optional<llvm::SmallVector<int64_t>> getIntValues(mlir::Value v) const;
  std::optional<llvm::SmallVector<int64_t>> operandInts(unsigned i) const {
    if (!hasOperand(i))
      return std::nullopt;
    return getIntValues(op->getOperand(i));
  }
  /// The floating-point contents of constant operand `v`, if it is one.
  std::optional<llvm::SmallVector<double>> getFloatValues(mlir::Value v) const;
  /// The constant attribute behind `v`, if `v` is an onnx.Constant.
  mlir::ElementsAttr getConstant(mlir::Value v) const;

  void setShape(unsigned result, Shape s) { results[result] = std::move(s); }
  /// Sets a result of known rank whose dims are all unknown.
  void setRank(unsigned result, int64_t rank) {
    results[result] = Shape(rank, Dim::unknown());
  }
  const std::optional<Shape> &resultShape(unsigned i) const { return results[i]; }

  /// Emits an error at the op; returns failure for convenient chaining.
  mlir::LogicalResult fail(const llvm::Twine &message) const;

private:
  mlir::Operation *op;
  const ShapeMap &map;
  llvm::SmallVector<std::optional<Shape>, 2> results;
};

/// Runs the shape function of `op` (when it has one) and records result shapes
/// in `map`, refining the result types where dims became static. Fails when the
/// shape function reports an error or contradicts a declared static dim.
mlir::LogicalResult inferShapes(mlir::Operation *op, ShapeMap &map);

/// Builds the ranked tensor type for `shape` and `elementType`; symbolic and
/// unknown dims are dynamic.
mlir::RankedTensorType toTensorType(const Shape &shape, mlir::Type elementType);

} // namespace onnxcc::onnx

#endif // ONNXCC_DIALECTS_ONNX_SHAPECONTEXT_H
