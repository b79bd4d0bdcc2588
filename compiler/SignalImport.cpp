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

/// The first result of `type` built from `operands`.
llvm::Expected<Value> buildOne(NodeContext &nc, StringRef type, ArrayRef<Value> operands,
                               ArrayRef<NamedAttribute> attrs = {}) {
  auto o = nc.build(type, operands, attrs);
  if (!o)
    return o.takeError();
  return (*o)->getResult(0);
}

Error setIdentityOutput(NodeContext &nc, Value v) {
  auto id = nc.build("Identity", {v}, {}, 1, /*asNodeOutputs=*/true);
  if (!id)
    return id.takeError();
  return nc.setOutput(0, (*id)->getResult(0));
}

/// `target` (an int64 shape) where `ok` holds, else `shape` with dim 0 one
/// larger: a target that setCheckedOutput's check refuses.
llvm::Expected<Value> targetUnless(NodeContext &nc, Value ok, Value target,
                                   ArrayRef<int64_t> shape) {
  SmallVector<int64_t> other(shape);
  other[0] += 1;
  return buildOne(nc, "Where", {ok, target, nc.constI64(other)});
}

/// Binds node output 0 to `result` reshaped to `target` (allowzero), typed
/// as the node's declared output: for a result whose shape the compiler took
/// from that declaration while the model gives it at run time, Reshape's
/// run-time check makes run() return 9 when `target` asks for other dims.
Error setCheckedOutput(NodeContext &nc, Value result, Value target) {
  OpBuilder &b = nc.builder();
  auto y = nc.build("Reshape", {result, target},
                    {b.getNamedAttr("allowzero", b.getI64IntegerAttr(1))}, 1,
                    /*asNodeOutputs=*/true);
  if (!y)
    return y.takeError();
  return nc.setOutput(0, (*y)->getResult(0));
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
  // signal axis (the default) for any other value. Where the axes give
  // results of different shapes (a one-sided transform, dft_length), those
  // the declared result shape rules out are left out, and an axis that names
  // one of them makes run() return 9.
  auto axisType = dyn_cast<RankedTensorType>(axisValue.getType());
  if (!axisType || axisType.getNumElements() != 1)
    return nc.error("axis must be a scalar");
  RankedTensorType declared = nc.declaredOutputType(0);
  auto fitsDeclared = [&](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    if (!declared || !r || r.getRank() != declared.getRank())
      return !declared;
    for (int64_t d = 0; d < r.getRank(); ++d)
      if (!r.isDynamicDim(d) && !declared.isDynamicDim(d) &&
          r.getDimSize(d) != declared.getDimSize(d))
        return false;
    return true;
  };
  Type axisElem = axisType.getElementType();
  // axis == a or axis == a - rank.
  auto names = [&](int64_t a) -> llvm::Expected<Value> {
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
    return (*cond)->getResult(0);
  };
  Value selected, allowed;
  Type selectedType;
  bool ruledOut = false;
  for (int64_t a = rank - 2; a >= 0; --a) {
    auto y = build(a);
    if (!y) {
      // An axis the transform cannot take (a one-sided inverse over a dim of
      // 1) is ruled out too, where a declared shape says which ones remain.
      if (!declared)
        return y.takeError();
      llvm::consumeError(y.takeError());
      ruledOut = true;
      continue;
    }
    if (!fitsDeclared(y->getType())) {
      ruledOut = true;
      continue;
    }
    auto cond = names(a);
    if (!cond)
      return cond.takeError();
    if (allowed) {
      auto any = nc.build("Or", {allowed, *cond}, {});
      if (!any)
        return any.takeError();
      allowed = (*any)->getResult(0);
    } else {
      allowed = *cond;
    }
    if (!selected) {
      selected = *y;
      selectedType = y->getType();
      continue;
    }
    if (y->getType() != selectedType)
      return nc.error("axis must be a constant: the result shape depends on it (" +
                      Twine(onesided ? "a one-sided transform" : "dft_length") +
                      ") and the declared result shape does not say which");
    auto where = nc.build("Where", {*cond, *y, selected}, {});
    if (!where)
      return where.takeError();
    selected = (*where)->getResult(0);
  }
  if (!selected)
    return nc.error("no axis gives the declared result shape");
  if (ruledOut) {
    // The result's shape, or another when the axis is not one of the
    // allowed ones (status 9).
    auto st = dyn_cast<RankedTensorType>(selectedType);
    if (!st || !st.hasStaticShape())
      return nc.error("axis must be a constant: the result shape depends on it");
    auto target = targetUnless(nc, allowed, nc.constI64(st.getShape()), st.getShape());
    if (!target)
      return target.takeError();
    return setCheckedOutput(nc, selected, *target);
  }
  auto id = nc.build("Identity", {selected}, {}, 1, /*asNodeOutputs=*/true);
  if (!id)
    return id.takeError();
  return nc.setOutput(0, (*id)->getResult(0));
}

/// DeformConv 19/22 (2-D) from ops of the dialect: the sampling positions
/// (each output pixel's window position plus its offset) become a GridSample
/// grid (bilinear, zeros outside: a tap outside the input reads 0), per
/// offset group over its channels; the samples, scaled by the mask, are the
/// columns of a convolution done as a MatMul with W (per group), plus B.
Error deformConv19(NodeContext &nc) {
  if (Error e = knownAttributes(
          nc, {"dilations", "group", "kernel_shape", "offset_group", "pads", "strides"}))
    return e;
  if (nc.numInputs() < 3 || nc.numInputs() > 5 || !nc.hasInput(0) || !nc.hasInput(1) ||
      !nc.hasInput(2))
    return nc.error("DeformConv takes 3 to 5 inputs (X, W, offset, B, mask), has " +
                    Twine(nc.numInputs()));
  SmallVector<Value> in;
  for (unsigned i = 0; i < 5; ++i) {
    if (i >= nc.numInputs() || !nc.hasInput(i)) {
      in.push_back(Value());
      continue;
    }
    auto v = nc.input(i);
    if (!v)
      return v.takeError();
    in.push_back(*v);
  }
  auto staticType = [](Value v) {
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    return t && t.hasStaticShape() ? t : RankedTensorType();
  };
  auto xType = staticType(in[0]), wType = staticType(in[1]), oType = staticType(in[2]);
  if (!xType || !wType || !oType)
    return nc.error("X, W and offset need shapes known at compile time");
  auto elem = dyn_cast<FloatType>(xType.getElementType());
  if (!elem || xType.getRank() != 4 || wType.getRank() != 4 || oType.getRank() != 4)
    return nc.error("only 2-D DeformConv is supported: X [N, C, H, W], W [oC, C/group, kH, kW] "
                    "and offset [N, offset_group*kH*kW*2, oH, oW] of float");
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1), h = xType.getDimSize(2),
          w = xType.getDimSize(3);
  int64_t oc = wType.getDimSize(0), kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  int64_t group = nc.intAttr("group", 1), og = nc.intAttr("offset_group", 1);
  if (group < 1 || og < 1 || c % group || oc % group || c % og ||
      wType.getDimSize(1) != c / group)
    return nc.error("channels: C " + Twine(c) + ", oC " + Twine(oc) + ", W's C/group " +
                    Twine(wType.getDimSize(1)) + " do not fit group " + Twine(group) +
                    " and offset_group " + Twine(og));
  if (auto k = nc.intsAttr("kernel_shape"); k && (k->size() != 2 || (*k)[0] != kh ||
                                                  (*k)[1] != kw))
    return nc.error("kernel_shape does not match W");
  auto ints = [&](StringRef name, size_t count, int64_t dflt) -> llvm::Expected<SmallVector<int64_t>> {
    auto v = nc.intsAttr(name);
    if (!v)
      return SmallVector<int64_t>(count, dflt);
    if (v->size() != count)
      return nc.error("'" + name + "' must have " + Twine(count) + " values");
    return *v;
  };
  auto strides = ints("strides", 2, 1);
  if (!strides)
    return strides.takeError();
  auto dil = ints("dilations", 2, 1);
  if (!dil)
    return dil.takeError();
  auto pads = ints("pads", 4, 0);
  if (!pads)
    return pads.takeError();
  for (int64_t v : *strides)
    if (v < 1)
      return nc.error("strides must be positive");
  for (int64_t v : *dil)
    if (v < 1)
      return nc.error("dilations must be positive");
  int64_t oh = (h + (*pads)[0] + (*pads)[2] - ((kh - 1) * (*dil)[0] + 1)) / (*strides)[0] + 1;
  int64_t ow = (w + (*pads)[1] + (*pads)[3] - ((kw - 1) * (*dil)[1] + 1)) / (*strides)[1] + 1;
  int64_t k = kh * kw;
  if (oh < 1 || ow < 1 || oType.getDimSize(0) != n || oType.getDimSize(1) != og * k * 2 ||
      oType.getDimSize(2) != oh || oType.getDimSize(3) != ow)
    return nc.error("offset must be [" + Twine(n) + ", " + Twine(og * k * 2) + ", " + Twine(oh) +
                    ", " + Twine(ow) + "]");
  if (auto mType = staticType(in[4]); in[4] && (!mType || mType.getNumElements() != n * og * k * oh * ow))
    return nc.error("mask must be [" + Twine(n) + ", " + Twine(og * k) + ", " + Twine(oh) + ", " +
                    Twine(ow) + "]");
  if (auto bType = staticType(in[3]); in[3] && (!bType || bType.getNumElements() != oc))
    return nc.error("B must have " + Twine(oc) + " elements");

  OpBuilder &b = nc.builder();
  auto op = [&](StringRef type, ArrayRef<Value> operands,
                ArrayRef<NamedAttribute> attrs = {}) -> llvm::Expected<Value> {
    auto o = nc.build(type, operands, attrs);
    if (!o)
      return o.takeError();
    return (*o)->getResult(0);
  };
  auto reshape = [&](Value v, ArrayRef<int64_t> shape) {
    return op("Reshape", {v, nc.constI64(shape)});
  };
  auto constF = [&](ArrayRef<int64_t> shape, ArrayRef<double> values) -> llvm::Expected<Value> {
    auto type = RankedTensorType::get(shape, elem);
    SmallVector<APFloat> vals;
    for (double v : values) {
      APFloat f(v);
      bool lost;
      f.convert(elem.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(f);
    }
    return op("Constant", {}, {b.getNamedAttr("value", DenseElementsAttr::get(type, vals))});
  };
#define TRY(var, expr)                                                                             \
  auto var = (expr);                                                                               \
  if (!var)                                                                                        \
    return var.takeError();

  TRY(xg, reshape(in[0], {n * og, c / og, h, w}));
  TRY(off, reshape(in[2], {n, og, k, 2, oh, ow}));
  TRY(offT, op("Transpose", {*off}, {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(
                                                                  {0, 1, 2, 4, 5, 3}))}));
  // The window positions (y, x) of each kernel tap and output pixel.
  SmallVector<double> base;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          base.push_back(static_cast<double>(y * (*strides)[0] - (*pads)[0] + i * (*dil)[0]));
          base.push_back(static_cast<double>(x * (*strides)[1] - (*pads)[1] + j * (*dil)[1]));
        }
  TRY(baseC, constF({k, oh, ow, 2}, base));
  TRY(pos, op("Add", {*offT, *baseC}));
  // (y, x) to GridSample's normalized (x, y) (align_corners 0):
  // g = (2 p + 1) / size - 1.
  double hd = static_cast<double>(h), wd = static_cast<double>(w);
  TRY(m, constF({2, 2}, {0.0, 2.0 / hd, 2.0 / wd, 0.0}));
  TRY(shift, constF({2}, {1.0 / wd - 1.0, 1.0 / hd - 1.0}));
  TRY(scaled, op("MatMul", {*pos, *m}));
  TRY(g, op("Add", {*scaled, *shift}));
  TRY(grid, reshape(*g, {n * og, k * oh, ow, 2}));
  TRY(sampled, op("GridSample", {*xg, *grid},
                  {b.getNamedAttr("align_corners", b.getI64IntegerAttr(0)),
                   b.getNamedAttr("mode", b.getStringAttr("bilinear")),
                   b.getNamedAttr("padding_mode", b.getStringAttr("zeros"))}));
  Value cols = *sampled; // [N * og, C / og, K * oH, oW]
  if (in[4]) {
    TRY(maskR, reshape(in[4], {n * og, 1, k * oh, ow}));
    TRY(masked, op("Mul", {cols, *maskR}));
    cols = *masked;
  }
  int64_t l = oh * ow, ck = (c / group) * k;
  TRY(colsR, reshape(cols, {n, group, ck, l}));
  TRY(wR, reshape(in[1], {group, oc / group, ck}));
  TRY(y, op("MatMul", {*wR, *colsR})); // [N, group, oC / group, L]
  TRY(yR, reshape(*y, {n, oc, oh, ow}));
  Value out = *yR;
  if (in[3]) {
    TRY(bR, reshape(in[3], {oc, 1, 1}));
    TRY(withBias, op("Add", {out, *bR}));
    out = *withBias;
  }
#undef TRY
  auto id = nc.build("Identity", {out}, {}, 1, /*asNodeOutputs=*/true);
  if (!id)
    return id.takeError();
  return nc.setOutput(0, (*id)->getResult(0));
}


namespace {

/// Col2Im of `x` [N, C * prod(block), L] (static) for one image and block
/// shape: a gather (see col2im18). The result is [N, C, image...].
llvm::Expected<Value> col2imFor(NodeContext &nc, Value x, ArrayRef<int64_t> image,
                                ArrayRef<int64_t> block, ArrayRef<int64_t> dil,
                                ArrayRef<int64_t> strides, ArrayRef<int64_t> pads) {
  auto type = cast<RankedTensorType>(x.getType());
  size_t r = image.size();
  int64_t k = 1, hw = 1, l = 1;
  SmallVector<int64_t> blocks(r);
  for (size_t d = 0; d < r; ++d) {
    if (image[d] < 1 || block[d] < 1)
      return nc.error("image_shape and block_shape must be positive");
    int64_t span = image[d] + pads[d] + pads[r + d] - (dil[d] * (block[d] - 1) + 1);
    if (span < 0)
      return nc.error("the block does not fit the padded image along dim " + Twine(d));
    blocks[d] = span / strides[d] + 1;
    k *= block[d];
    hw *= image[d];
    l *= blocks[d];
  }
  int64_t n = type.getDimSize(0), ck = type.getDimSize(1);
  if (ck % k != 0 || type.getDimSize(2) != l)
    return nc.error("input is [" + Twine(n) + ", " + Twine(ck) + ", " + Twine(type.getDimSize(2)) +
                    "], expected [N, C * " + Twine(k) + ", " + Twine(l) + "]");
  if (k * hw > (int64_t(1) << 24))
    return nc.error("image and block too large for the gather table (" + Twine(k * hw) +
                    " entries)");
  int64_t c = ck / k;
  SmallVector<int64_t> index(static_cast<size_t>(k * hw), 0);
  SmallVector<bool> covered(static_cast<size_t>(k * hw), false);
  SmallVector<int64_t> kpos(r), ppos(r);
  for (int64_t kf = 0; kf < k; ++kf) {
    for (int64_t rem = kf, d = static_cast<int64_t>(r) - 1; d >= 0; --d) {
      kpos[d] = rem % block[d];
      rem /= block[d];
    }
    for (int64_t pf = 0; pf < hw; ++pf) {
      for (int64_t rem = pf, d = static_cast<int64_t>(r) - 1; d >= 0; --d) {
        ppos[d] = rem % image[d];
        rem /= image[d];
      }
      bool ok = true;
      int64_t lf = 0;
      for (size_t d = 0; d < r && ok; ++d) {
        int64_t t = ppos[d] + pads[d] - kpos[d] * dil[d];
        ok = t >= 0 && t % strides[d] == 0 && t / strides[d] < blocks[d];
        lf = lf * blocks[d] + (ok ? t / strides[d] : 0);
      }
      index[kf * hw + pf] = ok ? kf * l + lf : 0;
      covered[kf * hw + pf] = ok;
    }
  }
  OpBuilder &b = nc.builder();
  auto flat = buildOne(nc, "Reshape", {x, nc.constI64({n, c, k * l})});
  if (!flat)
    return flat.takeError();
  auto idx = buildOne(nc, "Constant", {},
                      {b.getNamedAttr("value", DenseElementsAttr::get(
                                                   RankedTensorType::get({k, hw}, b.getI64Type()),
                                                   ArrayRef<int64_t>(index)))});
  if (!idx)
    return idx.takeError();
  auto gathered = buildOne(nc, "Gather", {*flat, *idx}, {b.getNamedAttr("axis", b.getI64IntegerAttr(2))});
  if (!gathered)
    return gathered.takeError();
  auto mask = buildOne(nc, "Constant", {},
                       {b.getNamedAttr("value", DenseElementsAttr::get(
                                                    RankedTensorType::get({k, hw}, b.getI1Type()),
                                                    ArrayRef<bool>(covered)))});
  if (!mask)
    return mask.takeError();
  auto kept = buildOne(nc, "Where", {*mask, *gathered, nc.constScalar(type.getElementType(), 0.0)});
  if (!kept)
    return kept.takeError();
  auto sum = buildOne(nc, "ReduceSum", {*kept, nc.constI64({2})},
                      {b.getNamedAttr("keepdims", b.getI64IntegerAttr(0))});
  if (!sum)
    return sum.takeError();
  SmallVector<int64_t> shape = {n, c};
  shape.append(image.begin(), image.end());
  return buildOne(nc, "Reshape", {*sum, nc.constI64(shape)});
}

/// Every way to write `k` as an ordered product of `r` positive factors.
void factorizations(int64_t k, size_t r, SmallVector<int64_t> &prefix,
                    SmallVector<SmallVector<int64_t>> &out) {
  if (prefix.size() + 1 == r) {
    prefix.push_back(k);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t f = 1; f <= k && out.size() <= 64; ++f) {
    if (k % f)
      continue;
    prefix.push_back(f);
    factorizations(k / f, r, prefix, out);
    prefix.pop_back();
  }
}

} // namespace

/// Col2Im 18 as a gather: output pixel p of channel c sums, over the kernel
/// positions k, the column entry of the one block that covers p at k (when
/// the stride lands on it): Gather of the input [N, C, K * L] with a
/// constant index table [K, H*W], zeros where no block covers (Where),
/// ReduceSum over K. image_shape and block_shape given at run time take
/// their values from the declared result [N, C, image...]: each block shape
/// that fits it gets its own gather, the run's block_shape selects one
/// (Where), and Reshape's run-time check holds image_shape to the declared
/// dims and block_shape to one of those (status 9 otherwise).
Error col2im18(NodeContext &nc) {
  if (Error e = knownAttributes(nc, {"dilations", "pads", "strides"}))
    return e;
  if (nc.numInputs() != 3 || !nc.hasInput(0) || !nc.hasInput(1) || !nc.hasInput(2))
    return nc.error("Col2Im takes 3 inputs (input, image_shape, block_shape), has " +
                    Twine(nc.numInputs()));
  auto x = nc.input(0);
  if (!x)
    return x.takeError();
  auto imageValue = nc.input(1);
  if (!imageValue)
    return imageValue.takeError();
  auto blockValue = nc.input(2);
  if (!blockValue)
    return blockValue.takeError();
  std::optional<SmallVector<int64_t>> image = constantInts(*imageValue);
  std::optional<SmallVector<int64_t>> block = constantInts(*blockValue);
  auto type = dyn_cast<RankedTensorType>(x->getType());
  if (!type || !type.hasStaticShape() || type.getRank() != 3)
    return nc.error("input must be [N, C * prod(block_shape), L] with dims known at compile time");
  RankedTensorType declared = nc.declaredOutputType(0);
  bool atRunTime = !image || !block;
  if (atRunTime) {
    auto count = [](Value v) -> int64_t {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getRank() == 1 && !t.isDynamicDim(0) ? t.getDimSize(0) : -1;
    };
    int64_t r = image ? static_cast<int64_t>(image->size()) : count(*imageValue);
    if (!declared || !declared.hasStaticShape() || r < 1 || declared.getRank() != r + 2 ||
        declared.getDimSize(0) != type.getDimSize(0))
      return nc.error("'image_shape' and 'block_shape' must be constants (initializers), or the "
                      "result must have a declared static shape [N, C, image...]: the result "
                      "shape depends on them");
    SmallVector<int64_t> fromDeclared(declared.getShape().drop_front(2));
    if (image && *image != ArrayRef<int64_t>(fromDeclared))
      return nc.error("image_shape does not match the declared result");
    image = fromDeclared;
  }
  size_t r = image->size();
  if (r < 1 || (block && block->size() != r))
    return nc.error("image_shape and block_shape must have the same number (>= 1) of values");
  auto attr = [&](StringRef name, size_t count, int64_t dflt, int64_t min)
      -> llvm::Expected<SmallVector<int64_t>> {
    auto v = nc.intsAttr(name);
    SmallVector<int64_t> out = v ? *v : SmallVector<int64_t>(count, dflt);
    if (out.size() != count)
      return nc.error("'" + name + "' must have " + Twine(count) + " values");
    for (int64_t e : out)
      if (e < min)
        return nc.error("'" + name + "' has the value " + Twine(e) + " (at least " +
                        Twine(min) + ")");
    return out;
  };
  auto dil = attr("dilations", r, 1, 1);
  if (!dil)
    return dil.takeError();
  auto strides = attr("strides", r, 1, 1);
  if (!strides)
    return strides.takeError();
  auto pads = attr("pads", 2 * r, 0, 0);
  if (!pads)
    return pads.takeError();
  if (!atRunTime) {
    auto y = col2imFor(nc, *x, *image, *block, *dil, *strides, *pads);
    if (!y)
      return y.takeError();
    return setIdentityOutput(nc, *y);
  }

  // The block shapes the declared result leaves: C * prod(block) is the
  // input's dim 1, and the blocks they give must number its dim 2.
  SmallVector<SmallVector<int64_t>> candidates;
  int64_t ck = type.getDimSize(1), c = declared.getDimSize(1);
  if (block) {
    candidates.push_back(*block);
  } else if (c >= 1 && ck % c == 0) {
    SmallVector<int64_t> prefix;
    SmallVector<SmallVector<int64_t>> all;
    factorizations(ck / c, r, prefix, all);
    for (auto &cand : all) {
      int64_t l = 1;
      bool fits = true;
      for (size_t d = 0; d < r && fits; ++d) {
        int64_t span =
            (*image)[d] + (*pads)[d] + (*pads)[r + d] - ((*dil)[d] * (cand[d] - 1) + 1);
        fits = span >= 0;
        l *= fits ? span / (*strides)[d] + 1 : 0;
      }
      if (fits && l == type.getDimSize(2))
        candidates.push_back(cand);
    }
  }
  if (candidates.empty() || candidates.size() > 16)
    return nc.error("'block_shape' must be a constant (an initializer): " +
                    Twine(candidates.empty() ? "no" : "too many") +
                    " block shapes fit the input and the declared result");
  OpBuilder &b = nc.builder();
  auto blockType = dyn_cast<RankedTensorType>(blockValue->getType());
  if (!blockType || !blockType.getElementType().isInteger(64))
    return nc.error("block_shape must be int64");
  Value selected, anyMatch;
  for (auto &cand : candidates) {
    auto y = col2imFor(nc, *x, *image, cand, *dil, *strides, *pads);
    if (!y)
      return y.takeError();
    // block_shape == cand, as one bool: the smallest of the element-wise
    // matches as integers.
    auto eq = buildOne(nc, "Equal", {*blockValue, nc.constI64(cand)});
    if (!eq)
      return eq.takeError();
    auto asInt = buildOne(nc, "Cast", {*eq}, {b.getNamedAttr("to", b.getI64IntegerAttr(7))});
    if (!asInt)
      return asInt.takeError();
    auto all = buildOne(nc, "ReduceMin", {*asInt, nc.constI64({0})},
                        {b.getNamedAttr("keepdims", b.getI64IntegerAttr(0))});
    if (!all)
      return all.takeError();
    auto match = buildOne(nc, "Cast", {*all}, {b.getNamedAttr("to", b.getI64IntegerAttr(9))});
    if (!match)
      return match.takeError();
    if (!selected) {
      selected = *y;
      anyMatch = *match;
      continue;
    }
    auto where = buildOne(nc, "Where", {*match, *y, selected});
    if (!where)
      return where.takeError();
    selected = *where;
    auto any = buildOne(nc, "Or", {anyMatch, *match});
    if (!any)
      return any.takeError();
    anyMatch = *any;
  }
  // The target: [N, C, image_shape...] (negative values made 0, allowzero)
  // when block_shape is one of the candidates, else one that differs.
  Value imageDims = *imageValue;
  if (!constantInts(imageDims)) {
    auto nonNegative = buildOne(nc, "Max", {imageDims, nc.constScalar(b.getI64Type(), 0.0)});
    if (!nonNegative)
      return nonNegative.takeError();
    imageDims = *nonNegative;
  }
  auto good = buildOne(nc, "Concat", {nc.constI64({type.getDimSize(0), c}), imageDims},
                       {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
  if (!good)
    return good.takeError();
  auto target = targetUnless(nc, anyMatch, *good, declared.getShape());
  if (!target)
    return target.takeError();
  return setCheckedOutput(nc, selected, *target);
}

/// AffineGrid 20 with a constant size: the base grid (x, y[, z], 1) of the
/// normalized pixel positions, a constant [spatial..., r + 1], times theta
/// transposed (MatMul with batch broadcasting).
Error affineGrid20(NodeContext &nc) {
  if (Error e = knownAttributes(nc, {"align_corners"}))
    return e;
  if (nc.numInputs() != 2 || !nc.hasInput(0))
    return nc.error("AffineGrid takes 2 inputs (theta, size), has " + Twine(nc.numInputs()));
  auto theta = nc.input(0);
  if (!theta)
    return theta.takeError();
  if (!nc.hasInput(1))
    return nc.error("needs the input 'size'");
  auto sizeValue = nc.input(1);
  if (!sizeValue)
    return sizeValue.takeError();
  // A size given at run time: the declared result [N, (D,) H, W, r] gives
  // the grid, and the run checks size against it (status 9; C is free).
  std::optional<SmallVector<int64_t>> size = constantInts(*sizeValue);
  bool sizeAtRunTime = !size;
  if (sizeAtRunTime) {
    RankedTensorType declared = nc.declaredOutputType(0);
    auto sizeType = dyn_cast<RankedTensorType>(sizeValue->getType());
    if (!declared || !declared.hasStaticShape() || declared.getRank() < 4 ||
        declared.getRank() > 5 || declared.getDimSize(declared.getRank() - 1) !=
                                      declared.getRank() - 2 ||
        !sizeType || sizeType.getRank() != 1 || sizeType.isDynamicDim(0) ||
        sizeType.getDimSize(0) != declared.getRank())
      return nc.error("'size' must be a constant (an initializer), or the result must have a "
                      "declared static shape [N, (D,) H, W, 2|3]: the result shape depends on it");
    size = SmallVector<int64_t>{declared.getDimSize(0), 1};
    for (int64_t d = 1; d + 1 < declared.getRank(); ++d)
      size->push_back(declared.getDimSize(d));
  }
  if (size->size() != 4 && size->size() != 5)
    return nc.error("size must have 4 (2-D) or 5 (3-D) values, has " + Twine(size->size()));
  int64_t r = static_cast<int64_t>(size->size()) - 2;
  auto type = dyn_cast<RankedTensorType>(theta->getType());
  auto elem = type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
  int64_t n = (*size)[0];
  if (!type || !elem || !type.hasStaticShape() || type.getRank() != 3 ||
      type.getDimSize(0) != n || type.getDimSize(1) != r || type.getDimSize(2) != r + 1)
    return nc.error("theta must be float [" + Twine(n) + ", " + Twine(r) + ", " + Twine(r + 1) +
                    "] for size with " + Twine(size->size()) + " values");
  bool align = nc.intAttr("align_corners", 0) != 0;
  SmallVector<int64_t> dims(size->begin() + 2, size->end()); // [D,] H, W
  int64_t points = 1;
  for (int64_t d : dims) {
    if (d < 1)
      return nc.error("size has a non-positive spatial dim " + Twine(d));
    points *= d;
  }
  if (points * (r + 1) > (int64_t(1) << 24))
    return nc.error("the grid is too large (" + Twine(points) + " points)");
  auto coord = [&](int64_t i, int64_t d) -> double {
    if (align)
      return d == 1 ? 0.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(d - 1);
    return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(d) - 1.0;
  };
  SmallVector<APFloat> base;
  SmallVector<int64_t> pos(r);
  auto push = [&](double v) {
    APFloat f(v);
    bool lost;
    f.convert(elem.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    base.push_back(f);
  };
  for (int64_t p = 0; p < points; ++p) {
    for (int64_t rem = p, d = r - 1; d >= 0; --d) {
      pos[d] = rem % dims[d];
      rem /= dims[d];
    }
    // x (the last dim) first, then y[, z], then 1.
    for (int64_t d = r - 1; d >= 0; --d)
      push(coord(pos[d], dims[d]));
    push(1.0);
  }
  OpBuilder &b = nc.builder();
  auto grid = buildOne(nc, "Constant", {},
                       {b.getNamedAttr("value", DenseElementsAttr::get(
                                                    RankedTensorType::get({points, r + 1}, elem),
                                                    base))});
  if (!grid)
    return grid.takeError();
  auto thetaT = buildOne(nc, "Transpose", {*theta},
                         {b.getNamedAttr("perm", b.getDenseI64ArrayAttr({0, 2, 1}))});
  if (!thetaT)
    return thetaT.takeError();
  auto out = buildOne(nc, "MatMul", {*grid, *thetaT}); // [N, points, r]
  if (!out)
    return out.takeError();
  SmallVector<int64_t> shape = {n};
  shape.append(dims.begin(), dims.end());
  shape.push_back(r);
  if (!sizeAtRunTime) {
    auto y = buildOne(nc, "Reshape", {*out, nc.constI64(shape)});
    if (!y)
      return y.takeError();
    return setIdentityOutput(nc, *y);
  }
  // The target [size[0], size[2:]..., r] (negative values made 0, and 0
  // kept as 0): Reshape's run-time check against the declared result.
  SmallVector<int64_t> picks = {0};
  for (int64_t d = 2; d < r + 2; ++d)
    picks.push_back(d);
  auto picked = buildOne(nc, "Gather", {*sizeValue, nc.constI64(picks)},
                         {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
  if (!picked)
    return picked.takeError();
  auto sizeElem = cast<RankedTensorType>(sizeValue->getType()).getElementType();
  auto nonNegative = buildOne(nc, "Max", {*picked, nc.constScalar(sizeElem, 0.0)});
  if (!nonNegative)
    return nonNegative.takeError();
  auto target = buildOne(nc, "Concat", {*nonNegative, nc.constI64({r})},
                         {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
  if (!target)
    return target.takeError();
  return setCheckedOutput(nc, *out, *target);
}

} // namespace onnxcc::importer
