//===- ShapeContext.h - Symbolic shapes for onnx shape functions ---------===//
#ifndef ONNXCC_DIALECTS_ONNX_SHAPECONTEXT_H
#define ONNXCC_DIALECTS_ONNX_SHAPECONTEXT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace onnxcc::onnx {

/// A polynomial with integer coefficients over named symbolic dims, kept in
/// a canonical form (terms ordered by their symbols' names, no zero
/// coefficients) so that equal expressions compare equal: `2*batch*seq + 1`.
/// Derived dims (Flatten of [batch, seq, 4], Concat along seq) stay exact.
class SymExpr {
public:
  struct Term {
    int64_t coeff;
    llvm::SmallVector<mlir::StringAttr, 2> syms; // sorted by name, repeats allowed
    bool operator==(const Term &o) const { return coeff == o.coeff && syms == o.syms; }
  };

  static SymExpr constant(int64_t c);
  static SymExpr symbol(mlir::StringAttr s);

  bool isConstant() const { return terms.empty() || (terms.size() == 1 && terms[0].syms.empty()); }
  int64_t constantValue() const { return terms.empty() ? 0 : terms[0].coeff; }
  llvm::ArrayRef<Term> getTerms() const { return terms; }

  /// Sum, difference and product; nullopt when a coefficient overflows.
  static std::optional<SymExpr> add(const SymExpr &a, const SymExpr &b);
  static std::optional<SymExpr> sub(const SymExpr &a, const SymExpr &b);
  static std::optional<SymExpr> mul(const SymExpr &a, const SymExpr &b);
  /// `a / b` when it is exact term by term for a monomial `b` (a constant or
  /// a product of symbols times a constant); nullopt otherwise.
  static std::optional<SymExpr> divExact(const SymExpr &a, const SymExpr &b);

  bool operator==(const SymExpr &o) const { return terms == o.terms; }
  bool operator!=(const SymExpr &o) const { return !(*this == o); }
  /// `2*batch*seq + 1`, with `join` between the factors of a term.
  std::string str(llvm::StringRef join = "*") const;
  /// The symbols it mentions, in name order.
  llvm::SmallVector<mlir::StringAttr> symbols() const;

private:
  void normalize();
  llvm::SmallVector<Term, 2> terms;
};

/// One dimension of a shape: a static size, a symbolic size (an ONNX
/// dim_param such as "batch", or a polynomial of them), or unknown.
struct Dim {
  int64_t size = mlir::ShapedType::kDynamic;
  SymExpr expr; // the symbolic size; meaningful only when not static

  static Dim known(int64_t n) { return Dim{n, {}}; }
  static Dim unknown() { return Dim{}; }
  static Dim named(mlir::StringAttr s) { return Dim{mlir::ShapedType::kDynamic, SymExpr::symbol(s)}; }
  /// A dim from an expression: static when it is a constant, unknown for nullopt.
  static Dim of(const std::optional<SymExpr> &e) {
    if (!e)
      return unknown();
    return e->isConstant() ? known(e->constantValue()) : Dim{mlir::ShapedType::kDynamic, *e};
  }
  bool isStatic() const { return size != mlir::ShapedType::kDynamic; }
  bool isSymbolic() const { return !isStatic() && !expr.isConstant(); }
  /// The size as an expression (a constant when static); nullopt when unknown.
  std::optional<SymExpr> asExpr() const {
    if (isStatic())
      return SymExpr::constant(size);
    if (isSymbolic())
      return expr;
    return std::nullopt;
  }
  /// "3", "batch", "2*seq" or "?".
  std::string str() const;
  bool operator==(const Dim &o) const { return size == o.size && expr == o.expr; }
  bool operator!=(const Dim &o) const { return !(*this == o); }
};

/// A dim as an attribute, the form later stages (memory planning, code
/// generation) read without this library: an integer for a static size, or
/// an array of terms, each [coefficient, symbol names...]. Null when unknown.
mlir::Attribute dimToAttr(mlir::MLIRContext *ctx, const Dim &d);
/// The inverse of dimToAttr; unknown for anything else.
Dim dimFromAttr(mlir::Attribute a);

/// Arithmetic on dims: unknown when an operand is unknown or it overflows.
Dim addDims(const Dim &a, const Dim &b);
Dim subDims(const Dim &a, const Dim &b);
Dim mulDims(const Dim &a, const Dim &b);
/// `a / b` when exact (see SymExpr::divExact), else unknown.
Dim divDimsExact(const Dim &a, const Dim &b);

using Shape = llvm::SmallVector<Dim, 4>;

/// A dim that a sliding window (Conv, the pools) derives from a symbolic
/// input dim `in`: `floor(span / stride) + 1`, or with `ceil`
/// `ceil(span / stride) + 1`, and with `dropLast` one less when that last
/// window would start at or past `in + padBegin` (ceil_mode with explicit
/// pads never starts a window in the end padding). `span` is the padded input minus the window extent. The result
/// is not a polynomial of the symbols, so it becomes a symbol of its own
/// (ShapeContext::derivedDim) that run() computes from the inputs' symbols.
///
/// With `slice`, it is the length of a Slice of `in` from `sliceStart` to
/// `sliceEnd` by `sliceStep` (constants, clamped into the dim as ONNX says)
/// where that is no polynomial of the symbols: `x[:, :512]` has min(S, 512)
/// elements, `x[::2]` ceil(S/2).
///
/// With `broadcast`, the dim is instead the multidirectional broadcast of two
/// different symbolic dims `in` and `span` (`[A] + [B]`): `span` when `in`
/// is 1, else `in`, and run() returns 9 unless `span` is 1 or that.
///
/// With `quotient`, it is `in / span` for two polynomials that do not divide
/// term by term (Reshape's -1 of [S0, 3] to [-1, 2], Split of S into equal
/// parts, DepthToSpace's C / b^2): exact, run() returning 9 when `span` is 0
/// or does not divide `in`; with `ceil`, rounded up instead (Split's
/// num_outputs), `span` being at least 1.
///
/// With `scaled`, it is floor(`in` * `scale`) in double precision (Resize by
/// a constant scale that is not an integer, 1.5 * H).
struct DerivedDim {
  SymExpr span;
  int64_t stride = 1;
  bool ceil = false;
  bool dropLast = false;
  SymExpr in;
  int64_t padBegin = 0;
  bool broadcast = false;
  bool slice = false;
  int64_t sliceStart = 0, sliceEnd = 0, sliceStep = 1;
  bool quotient = false;
  bool scaled = false;
  double scale = 0.0;
  bool operator==(const DerivedDim &o) const {
    return span == o.span && stride == o.stride && ceil == o.ceil && dropLast == o.dropLast &&
           in == o.in && padBegin == o.padBegin && broadcast == o.broadcast &&
           quotient == o.quotient && scaled == o.scaled && scale == o.scale &&
           slice == o.slice && sliceStart == o.sliceStart && sliceEnd == o.sliceEnd &&
           sliceStep == o.sliceStep;
  }
};

/// Symbolic shapes of the values of one function, and the inputs and outputs
/// of one shape function call.
class ShapeMap {
public:
  /// The shape of `v`: from this map, else from its ranked tensor type;
  /// nullopt when unranked or not a tensor.
  std::optional<Shape> lookup(mlir::Value v) const;
  void set(mlir::Value v, Shape s) { shapes[v] = std::move(s); }
  void erase(mlir::Value v) { shapes.erase(v); }

  /// Data-dependent dims (ShapeContext::dataDim): symbols that ops define at
  /// run time from the values they read, each with an upper bound in the
  /// inputs' symbols. Shape functions see them through a const map.
  void setBound(mlir::StringAttr symbol, SymExpr bound, bool fromUser = false) const {
    bounds[symbol] = std::move(bound);
    if (fromUser)
      userBounds.insert(symbol);
  }
  /// Whether the bound came from --bound (run() checks it: status 10).
  bool isUserBound(mlir::StringAttr symbol) const { return userBounds.contains(symbol); }
  /// The bound of a data-dependent symbol, or nullopt for an input's symbol.
  std::optional<SymExpr> boundOf(mlir::StringAttr symbol) const {
    auto it = bounds.find(symbol);
    if (it == bounds.end())
      return std::nullopt;
    return it->second;
  }
  bool isDataSymbol(mlir::StringAttr symbol) const { return bounds.count(symbol); }
  /// Derived dims (ShapeContext::derivedDim): symbols that are functions of
  /// other symbols, each with its definition and, like a data-dependent
  /// dim, an upper bound (span + 1) that memory planning uses.
  void setDerived(mlir::StringAttr symbol, DerivedDim def) const {
    if (!derived.count(symbol))
      derivedOrder.push_back(symbol);
    derived[symbol] = std::move(def);
  }
  const DerivedDim *derivedOf(mlir::StringAttr symbol) const {
    auto it = derived.find(symbol);
    return it == derived.end() ? nullptr : &it->second;
  }
  /// The derived symbols, each after those its definition uses.
  llvm::ArrayRef<mlir::StringAttr> derivedSymbols() const { return derivedOrder; }
  /// Whether `d` is computed from a data-dependent symbol.
  bool dependsOnData(const Dim &d) const {
    return d.isSymbolic() &&
           llvm::any_of(d.expr.symbols(), [&](mlir::StringAttr s) { return isDataSymbol(s); });
  }
  /// An upper bound of `e` over the inputs' symbols: each data-dependent
  /// symbol replaced by its bound where it appears with a positive
  /// coefficient, terms where it appears with a negative one dropped (every
  /// dim is >= 0). Nullopt when a coefficient overflows.
  std::optional<SymExpr> upperBound(const SymExpr &e) const;

private:
  llvm::DenseMap<mlir::Value, Shape> shapes;
  mutable llvm::DenseMap<mlir::StringAttr, SymExpr> bounds;
  mutable llvm::DenseSet<mlir::StringAttr> userBounds;
  mutable llvm::DenseMap<mlir::StringAttr, DerivedDim> derived;
  mutable llvm::SmallVector<mlir::StringAttr> derivedOrder;
};

/// A rule on dims that shape inference relied on but that holds only for
/// some values of the symbols: `lhs == rhs`, `lhs >= rhs`, or `lhs != rhs`.
struct DimConstraint {
  enum Kind { Equal, AtLeast, Differs } kind;
  Dim lhs, rhs;
};

/// The one value of one symbol that makes `a == b` hold, when the equality
/// fixes it: `5*S == 15` (S = 3), `2 + S == 8`, `24*B*S == 24*B` (S = 1,
/// the common factors cancelled). Nullopt when it does not (two symbols
/// left, no integral non-negative solution, or no symbol at all).
std::optional<std::pair<mlir::StringAttr, int64_t>> solveForSymbol(const Dim &a, const Dim &b);

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
  /// The contents of integer operand `v` as dims: static where known at
  /// compile time, symbolic where computed from symbolic shapes (Shape ->
  /// Gather -> Concat chains), unknown elsewhere; nullopt when not even the
  /// number of elements is known.
  std::optional<llvm::SmallVector<Dim>> getDimValues(mlir::Value v) const;
  std::optional<llvm::SmallVector<Dim>> operandDims(unsigned i) const {
    if (!hasOperand(i))
      return std::nullopt;
    return getDimValues(op->getOperand(i));
  }
  std::optional<llvm::SmallVector<int64_t>> operandInts(unsigned i) const {
    if (!hasOperand(i))
      return std::nullopt;
    return getIntValues(op->getOperand(i));
  }
  /// Calls `fn(position, value)` for the elements of integer operand `v` in
  /// order, when they are known at compile time: an onnx.Constant of any size
  /// (read in place, resource blobs included), else what getIntValues
  /// computes. Stops at the first `fn` that returns false. Returns false
  /// when the values are not known. Index checks read indices through this:
  /// index tensors may be far larger than the shape values getIntValues is
  /// meant for.
  bool forEachIntValue(mlir::Value v,
                       llvm::function_ref<bool(int64_t position, int64_t value)> fn) const;
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

  /// The `k`-th dim of this op's results that depends on the values it
  /// reads (NonZero's count, a Range's length), which is at most `bound`:
  /// a symbol defined at run time, named once per op (`NonZero#0`, recorded
  /// on the op as `onnxcc.data_dims`) and unique in the function. Its bound
  /// is kept in the inputs' symbols (ShapeMap::upperBound). Unknown when
  /// `bound` is.
  Dim dataDim(unsigned k, const Dim &bound);
  /// The dim `def` defines: a polynomial when it is one (stride 1 without
  /// ceil), else a derived symbol named after its definition, the same
  /// symbol for the same definition anywhere in the function (a ResNet's
  /// strided 3x3 and its 1x1 downsample give the same dim). Unknown when the
  /// bound overflows.
  Dim derivedDim(const DerivedDim &def);
  /// The broadcast of two different symbolic dims, a derived dim
  /// (DerivedDim::broadcast) of the inputs' symbols; unknown when either
  /// involves a dim only the data decides (it is not known when run()
  /// starts).
  Dim broadcastDerivedDim(const Dim &a, const Dim &b);
  /// The broadcast of two different dims, at least one of which the data
  /// decides (a Range's length against a ConstantOfShape's dim): the op's
  /// `k`-th own data dim (dataDim), at most the larger of their bounds,
  /// which the elementwise lowering computes and checks at run time.
  /// Unknown when either is unknown.
  Dim broadcastDataDim(unsigned k, const Dim &a, const Dim &b);
  /// `num / den`: static or a polynomial where it divides exactly, else a
  /// derived dim (DerivedDim::quotient) that run() computes and checks.
  /// Rounded up with `ceil`. Unknown when either is unknown or involves a
  /// dim only the data decides.
  Dim quotientDim(const Dim &num, const Dim &den, bool ceil = false);
  const ShapeMap &getMap() const { return map; }

  /// Two dims that the op needs equal: the more precise one, or failure when
  /// both are static and differ. An equality that holds only for some values
  /// of the symbols (a symbolic dim and a static one, or two different
  /// symbolic dims) is recorded: the generated code checks it at run time
  /// (see dimEqualities).
  mlir::FailureOr<Dim> unify(const Dim &a, const Dim &b);
  /// Records that the op's inferred shapes assume `d >= least` (a Slice
  /// [1:] of a symbolic dim has d - 1 elements when d >= 1): checked at run
  /// time like the equalities.
  void requireAtLeast(const Dim &d, int64_t least) {
    if (!d.isStatic())
      constraints.push_back({DimConstraint::AtLeast, d, Dim::known(least)});
  }
  /// The same with a bound that may be symbolic too (a symbolic dim of
  /// GatherElements' indices against data's): `d >= least` at run time.
  void requireAtLeast(const Dim &d, const Dim &least) {
    if (least.isStatic()) {
      requireAtLeast(d, least.size);
      return;
    }
    if (d != least)
      constraints.push_back({DimConstraint::AtLeast, d, least});
  }
  /// Records that the op's inferred shapes assume `d != other` (Squeeze
  /// without axes keeps a dim the data decides only when it is not 1):
  /// checked at run time like the equalities.
  void requireDiffers(const Dim &d, int64_t other) {
    if (!d.isStatic())
      constraints.push_back({DimConstraint::Differs, d, Dim::known(other)});
  }
  llvm::ArrayRef<DimConstraint> getConstraints() const { return constraints; }

  /// Emits an error at the op; returns failure for convenient chaining.
  mlir::LogicalResult fail(const llvm::Twine &message) const;

private:
  mlir::Operation *op;
  const ShapeMap &map;
  llvm::SmallVector<std::optional<Shape>, 2> results;
  llvm::SmallVector<DimConstraint, 1> constraints;
};

/// Runs the shape function of `op` (when it has one) and records result shapes
/// in `map`, refining the result types where dims became static. Fails when the
/// shape function reports an error or contradicts a declared static dim.
mlir::LogicalResult inferShapes(mlir::Operation *op, ShapeMap &map);

/// The dim rules `op` relies on that hold only for some values of the
/// symbols, given the shapes in `map`: the pairs its shape function unified
/// (ShapeContext::unify), its requireAtLeast bounds, and a symbolic inferred
/// result dim against the static one the model declares. Nothing else checks
/// them: a lowering that trusts its result type must check these at run time
/// first.
llvm::SmallVector<DimConstraint> dimConstraints(mlir::Operation *op, const ShapeMap &map);

/// Builds the ranked tensor type for `shape` and `elementType`; symbolic and
/// unknown dims are dynamic.
mlir::RankedTensorType toTensorType(const Shape &shape, mlir::Type elementType);

/// One axis of a Slice of a dim of size `dim` after ONNX's rules: a negative
/// start or end counts from the end, then both clamp to [0, dim] for a
/// positive step and to [-1, dim - 1] for a negative one. `count` elements
/// are taken from `start` by the step. Shape inference, the lowering and the
/// constant folder all slice through this.
struct SliceAxis {
  int64_t start;
  int64_t count;
};
SliceAxis normalizeSliceAxis(int64_t start, int64_t end, int64_t step, int64_t dim);

} // namespace onnxcc::onnx

#endif // ONNXCC_DIALECTS_ONNX_SHAPECONTEXT_H
