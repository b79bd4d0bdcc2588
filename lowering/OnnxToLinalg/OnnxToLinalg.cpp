//===- OnnxToLinalg.cpp - The convert-onnx-to-linalg pass ----------------===//
#include "lowering/OnnxToLinalg/Patterns.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxcc {
#define GEN_PASS_DEF_CONVERTONNXTOLINALGPASS
#include "lowering/Passes.h.inc"
} // namespace onnxcc

namespace onnxcc::lowering {

OnnxTypeConverter::OnnxTypeConverter() {
  addConversion([](Type t) -> std::optional<Type> {
    if (isa<NoneType>(t))
      return t;
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked)
      return std::nullopt;
    if (!ranked.hasStaticShape())
      return std::nullopt;
    Type elem = ranked.getElementType();
    if (auto i = dyn_cast<IntegerType>(elem); i && !i.isSignless())
      elem = IntegerType::get(t.getContext(), i.getWidth());
    else if (!elem.isIntOrFloat())
      return std::nullopt;
    return RankedTensorType::get(ranked.getShape(), elem);
  });
  addConversion([](Type t) -> std::optional<Type> {
    if (t.isIntOrIndexOrFloat())
      return t;
    return std::nullopt;
  });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs, Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs).getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

Type onnxElementType(Value v) {
  if (auto t = dyn_cast<ShapedType>(v.getType()))
    return t.getElementType();
  return v.getType();
}

RankedTensorType staticResultType(ConversionPatternRewriter &rewriter,
                                  const TypeConverter *converter, Operation *op, unsigned i) {
  auto t = dyn_cast_or_null<RankedTensorType>(
      converter->convertType(op->getResult(i).getType()));
  if (!t || !t.hasStaticShape()) {
    (void)rewriter.notifyMatchFailure(op, "result needs a static shape");
    return {};
  }
  return t;
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value floatConst(OpBuilder &b, Location loc, Type t, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
}

Value clampIndex(OpBuilder &b, Location loc, Value idx, Value lo, Value hi) {
  Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, lo);
  idx = arith::SelectOp::create(b, loc, below, lo, idx);
  Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, idx, hi);
  return arith::SelectOp::create(b, loc, above, hi, idx);
}

Value buildIndexedGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                          function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body) {
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{}, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; d < rank; ++d)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, d));
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, ivs));
      });
  return generic.getResult(0);
}

namespace {
/// onnx.Constant becomes arith.constant of the signless tensor type.
struct ConstantLowering : OpConversionPattern<onnx::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(onnx::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticResultType(rewriter, getTypeConverter(), op);
    if (!type)
      return failure();
    ElementsAttr value = op.getValueAttr();
    if (!value)
      return rewriter.notifyMatchFailure(op, "only the `value` form is lowered");
    TypedAttr converted;
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (!dense.getElementType().isIntOrFloat())
        return rewriter.notifyMatchFailure(op, "string constants are not lowered");
      converted = dense.getType() == type ? dense : dense.bitcast(type.getElementType())
                                                        .reshape(type);
    } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
      converted = DenseResourceElementsAttr::get(type, res.getRawHandle());
    } else {
      return rewriter.notifyMatchFailure(op, "unsupported constant attribute");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, converted);
    return success();
  }
};

struct ConvertOnnxToLinalgPass
    : public impl::ConvertOnnxToLinalgPassBase<ConvertOnnxToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Record each op's type and ONNX name on its location, so that the code
    // generated from it can say where it came from.
    module.walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "onnx" &&
          !isa<onnx::NoValueOp, onnx::ConstantOp>(op))
        op->setLoc(FusedLoc::get(ctx, {op->getLoc()},
                                 StringAttr::get(ctx, op->getName().stripDialect())));
    });

    OnnxTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                           math::MathDialect, scf::SCFDialect>();
    target.addIllegalDialect<onnx::OnnxDialect>();
    target.addLegalOp<ModuleOp>();
    // Absent optional operands stay until their users are gone (below).
    target.addLegalOp<onnx::NoValueOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp r) { return converter.isLegal(r.getOperandTypes()); });

    RewritePatternSet patterns(ctx);
    patterns.add<ConstantLowering>(converter, ctx);
    populateElementwisePatterns(converter, patterns);
    populateLinearPatterns(converter, patterns);
    populateDataMovementPatterns(converter, patterns);
    populateReductionPatterns(converter, patterns);
    populateConvolutionPatterns(converter, patterns);
    populateIndexingPatterns(converter, patterns);
    populateLossPatterns(converter, patterns);
    populateResizePatterns(converter, patterns);
    populateMiscPatterns(converter, patterns);
    populateRecurrentPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    // The first op that stays illegal is the error the user sees.
    Operation *failedOp = nullptr;
    module.walk([&](Operation *op) {
      if (failedOp || !op->getDialect() || op->getDialect()->getNamespace() != "onnx")
        return;
      for (Type t : op->getResultTypes())
        if (auto r = dyn_cast<RankedTensorType>(t); !r && !isa<NoneType>(t)) {
          failedOp = op;
          op->emitError() << "cannot lower '" << op->getName()
                          << "': its result shape is not known at compile time";
          return;
        } else if (r && !r.hasStaticShape()) {
          failedOp = op;
          op->emitError() << "cannot lower '" << op->getName() << "': result type " << r
                          << " is not static (pass --shape for symbolic inputs)";
          return;
        }
    });
    if (failedOp)
      return signalPassFailure();
    ConversionConfig config;
    if (failed(applyFullConversion(module, target, std::move(patterns), config)))
      return signalPassFailure();
    module.walk([](onnx::NoValueOp op) {
      if (op->use_empty())
        op->erase();
    });

  }
};
} // namespace
} // namespace onnxcc::lowering
