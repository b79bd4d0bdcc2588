//===- SignalImport.cpp - Import of the signal and geometry ops -----------===//
#include "compiler/SignalImport.h"

#include "dialects/onnx/OnnxOps.h"

using namespace mlir;
using llvm::Error;
using llvm::Twine;

namespace onnxcc::importer {
namespace {

/// The integer contents of `v` when it is an onnx.Constant.
std::optional<SmallVector<int64_t>> constantInts(Value v) {
  auto c = v.getDefiningOp<onnx::ConstantOp>();
  auto dense = c ? dyn_cast<DenseIntElementsAttr>(c.getValueAttr()) : DenseIntElementsAttr();
  if (!dense)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &x : dense.getValues<APInt>())
    out.push_back(x.getSExtValue());
  return out;
}

Error knownAttributes(NodeContext &nc, ArrayRef<StringRef> known) {
  for (const auto &a : nc.node.attribute())
    if (!llvm::is_contained(known, a.name()))
      return nc.error("unknown attribute '" + a.name() + "'");
  return Error::success();
}

} // namespace

Error dft20(NodeContext &nc) {
  if (Error e = knownAttributes(nc, {"inverse", "onesided"}))
    return e;
  if (nc.numInputs() < 1 || nc.numInputs() > 3 || !nc.hasInput(0))
    return nc.error("DFT takes 1 to 3 inputs (input, dft_length, axis), has " +
                    Twine(nc.numInputs()));
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  Value length = nc.noValue();
  if (nc.hasInput(1)) {
    auto l = nc.input(1);
    if (!l)
      return l.takeError();
    length = *l;
  }
  auto type = dyn_cast<RankedTensorType>(x->getType());
  if (!type)
    return nc.error("the rank of input must be known");
  int64_t rank = type.getRank();
  if (rank < 2)
    return nc.error("input must have rank >= 2, has " + Twine(rank));
  int64_t inverse = nc.intAttr("inverse", 0), onesided = nc.intAttr("onesided", 0);
  OpBuilder &b = nc.builder();
  auto build = [&](int64_t axis, bool asOutput = false) -> llvm::Expected<Value> {
    auto op = nc.build("DFT", {*x, length},
                       {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
                        b.getNamedAttr("inverse", b.getI64IntegerAttr(inverse)),
                        b.getNamedAttr("onesided", b.getI64IntegerAttr(onesided))},
                       1, asOutput);
    if (!op)
      return op.takeError();
    return (*op)->getResult(0);
  };
  auto checkAxis = [&](int64_t axis) -> llvm::Expected<int64_t> {
    if (axis < -rank || axis > rank - 2 || axis == -1)
      return nc.error("axis " + Twine(axis) + " is out of range for input of rank " +
                      Twine(rank) + " ([-r, -2] or [0, r - 2])");
    return axis < 0 ? axis + rank : axis;
  };

  Value axisValue;
  if (nc.hasInput(2)) {
    auto a = nc.input(2);
    if (!a)
      return a.takeError();
    axisValue = *a;
  }
  std::optional<SmallVector<int64_t>> constAxis =
      axisValue ? constantInts(axisValue) : SmallVector<int64_t>{-2};
  if (constAxis) {
    if (constAxis->size() != 1)
      return nc.error("axis must be a scalar, has " + Twine(constAxis->size()) + " values");
    auto axis = checkAxis((*constAxis)[0]);
    if (!axis)
      return axis.takeError();
    auto y = build(*axis, /*asOutput=*/true);
    if (!y)
      return y.takeError();
    return nc.setOutput(0, *y);
  }

  // Known at run time only: one transform per axis it may name, the last
  // signal axis (the default) for any other value.
  auto axisType = dyn_cast<RankedTensorType>(axisValue.getType());
  if (!axisType || axisType.getNumElements() != 1)
    return nc.error("axis must be a scalar");
  Value selected;
  Type selectedType;
  for (int64_t a = rank - 2; a >= 0; --a) {
    auto y = build(a);
    if (!y)
      return y.takeError();
    if (!selected) {
      selected = *y;
      selectedType = y->getType();
      continue;
    }
    if (y->getType() != selectedType)
      return nc.error("axis must be a constant: the result shape depends on it (" +
                      Twine(onesided ? "a one-sided transform" : "dft_length") + ")");
    // axis == a or axis == a - rank.
    Type axisElem = axisType.getElementType();
    auto eq = [&](int64_t v) -> llvm::Expected<Value> {
      auto c = nc.build("Constant", {},
                        {b.getNamedAttr("value", DenseElementsAttr::get(
                                                     RankedTensorType::get({}, axisElem),
                                                     APInt(axisElem.getIntOrFloatBitWidth(), v,
                                                           /*isSigned=*/true)))});
      if (!c)
        return c.takeError();
      auto e = nc.build("Equal", {axisValue, (*c)->getResult(0)}, {});
      if (!e)
        return e.takeError();
      return (*e)->getResult(0);
    };
    auto e1 = eq(a);
    if (!e1)
      return e1.takeError();
    auto e2 = eq(a - rank);
    if (!e2)
      return e2.takeError();
    auto cond = nc.build("Or", {*e1, *e2}, {});
    if (!cond)
      return cond.takeError();
    auto where = nc.build("Where", {(*cond)->getResult(0), *y, selected}, {});
    if (!where)
      return where.takeError();
    selected = (*where)->getResult(0);
  }
  auto id = nc.build("Identity", {selected}, {}, 1, /*asNodeOutputs=*/true);
  if (!id)
    return id.takeError();
  return nc.setOutput(0, (*id)->getResult(0));
}

} // namespace onnxcc::importer
