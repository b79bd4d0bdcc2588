//===- Float16.cpp - The onnx-f16-as-f32 pass ----------------------------===//
//
// A float16 model computes in float32 between its inputs and outputs, as
// ONNX Runtime's CPU provider runs most float16 nodes: x86 CPUs before
// AVX512-FP16 have no half-precision arithmetic, and the C++ compiler would
// convert each operand of each float16 operation anyway (and no kernel takes
// float16). Every float16 value becomes float32:
//
//   a float16 input, a float16 constant    Cast to float32 after it (the
//                                          constant's folds at compile time)
//   an op with float16 results             the same op with float32 results
//   Cast to float16                        kept, then Cast to float32: the
//                                          rounding it asks for still happens
//   ConstantOfShape of a float16 value     of the float32 value
//   a float16 output                       Cast to float16 before the return
//
// Only the roundings between ops go (each op's float32 result is not rounded
// to float16 before the next op reads it), within float16's precision of
// the float16 computation. Functions with float16 sequences or optionals, or
// ai.onnx.ml ops, are left as they are.
//
//===----------------------------------------------------------------------===//
#include "dialects/onnx/OnnxOps.h"
#include "dialects/onnx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace onnxcc::onnx {
#define GEN_PASS_DEF_ONNXFLOAT16ASFLOAT32PASS
#include "dialects/onnx/Transforms/Passes.h.inc"

namespace {

constexpr int64_t kOnnxFloat = 1;
constexpr int64_t kOnnxFloat16 = 10;

/// `t` with float32 in place of float16 (tensors, ranked or not); null when
/// `t` holds no float16.
Type widened(Type t) {
  if (auto ranked = dyn_cast<RankedTensorType>(t); ranked && ranked.getElementType().isF16())
    return RankedTensorType::get(ranked.getShape(), Float32Type::get(t.getContext()));
  if (auto unranked = dyn_cast<UnrankedTensorType>(t); unranked && unranked.getElementType().isF16())
    return UnrankedTensorType::get(Float32Type::get(t.getContext()));
  return {};
}

/// Whether `t` is a sequence or optional type holding float16 somewhere.
bool wrapsFloat16(Type t) {
  bool found = false;
  if (isa<SeqType, OptType>(t))
    t.walk([&](Type inner) { found |= isa<Float16Type>(inner); });
  return found;
}

/// A Cast of `v` to `type` (ONNX element type `to`) right after `v` is made.
Value castAfter(OpBuilder &b, Value v, Type type, int64_t to) {
  OpBuilder::InsertionGuard guard(b);
  if (auto arg = dyn_cast<BlockArgument>(v))
    b.setInsertionPointToStart(arg.getOwner());
  else
    b.setInsertionPointAfter(v.getDefiningOp());
  return CastOp::create(b, v.getLoc(), TypeRange{type}, ValueRange{v},
                        {b.getNamedAttr("to", b.getI64IntegerAttr(to))})
      ->getResult(0);
}

struct OnnxFloat16AsFloat32Pass
    : public impl::OnnxFloat16AsFloat32PassBase<OnnxFloat16AsFloat32Pass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Which functions it applies to: some float16, nothing it cannot retype.
    bool any = false, refused = false;
    auto look = [&](Type t) {
      any |= bool(widened(t));
      refused |= wrapsFloat16(t);
    };
    for (Type t : func.getArgumentTypes())
      look(t);
    for (Type t : func.getResultTypes())
      look(t);
    func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        look(t);
      for (Region &r : op->getRegions())
        for (Block &block : r)
          for (BlockArgument a : block.getArguments())
            look(a.getType());
      refused |= op->getName().getStringRef().starts_with("onnx.ML");
    });
    if (!any || refused)
      return;

    OpBuilder b(func.getContext());
    // Values that stay float16 (the function's arguments, constants, the
    // results of Casts to float16) read as float32 through a Cast after them.
    auto convertAfter = [&](Value v) {
      Type wide = widened(v.getType());
      if (!wide || v.use_empty())
        return;
      Value cast = castAfter(b, v, wide, kOnnxFloat);
      v.replaceAllUsesExcept(cast, cast.getDefiningOp());
    };
    for (BlockArgument a : func.getArguments())
      convertAfter(a);

    SmallVector<Operation *> ops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != func)
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (isa<ConstantOp>(op)) {
        convertAfter(op->getResult(0));
        continue;
      }
      if (auto cast = dyn_cast<CastOp>(op); cast && cast.getTo() == kOnnxFloat16) {
        // The model's Cast to float16 keeps its rounding; what reads it
        // reads float32 again.
        convertAfter(op->getResult(0));
        continue;
      }
      if (auto fill = dyn_cast<ConstantOfShapeOp>(op))
        if (auto value = fill.getValueAttr())
          if (auto dense = dyn_cast<DenseFPElementsAttr>(value); dense && dense.getElementType().isF16())
            op->setAttr("value", dense.mapValues(b.getF32Type(), [](const APFloat &x) {
              APFloat y = x;
              bool lossy;
              y.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lossy);
              return y.bitcastToAPInt();
            }));
      // Ops that make float16 from an attribute (EyeLike, the Random ops).
      if (auto dtype = op->getAttrOfType<IntegerAttr>("dtype"); dtype && dtype.getInt() == kOnnxFloat16)
        op->setAttr("dtype", b.getI64IntegerAttr(kOnnxFloat));
      for (Region &r : op->getRegions())
        for (Block &block : r)
          for (BlockArgument a : block.getArguments())
            if (Type wide = widened(a.getType()))
              a.setType(wide);
      for (Value r : op->getResults())
        if (Type wide = widened(r.getType()))
          r.setType(wide);
    }

    // The outputs keep their float16 type.
    Operation *ret = func.getBody().back().getTerminator();
    b.setInsertionPoint(ret);
    for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
      Value v = ret->getOperand(i);
      if (v.getType() == type || !widened(type))
        continue;
      ret->setOperand(i, CastOp::create(b, ret->getLoc(), TypeRange{type}, ValueRange{v},
                                        {b.getNamedAttr("to", b.getI64IntegerAttr(kOnnxFloat16))})
                             ->getResult(0));
    }
  }
};

} // namespace
} // namespace onnxcc::onnx
