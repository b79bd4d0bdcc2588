//===- KernelCall.cpp - Building calls into runtime-support kernels ------===//
#include "lowering/OnnxToLinalg/KernelCall.h"

#include "dialects/onnx/Transforms/Constants.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace onnxcc::lowering {

bool isF32Tensor(Value v, int64_t rank) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isF32() && (rank < 0 || t.getRank() == rank);
}

std::optional<KernelActivation> kernelActivation(StringRef kind,
                                                 std::optional<ArrayRef<float>> params) {
  struct Entry {
    StringRef name;
    int32_t code;
    unsigned numParams;
    float default0, default1; // ONNX's defaults when params are absent
    bool paramsOptional;
  };
  static const Entry table[] = {
      {"", 0, 0, 0, 0, false},          {"Relu", 1, 0, 0, 0, false},
      {"Clip", 2, 2, 0, 0, false},      {"LeakyRelu", 3, 1, 0.01f, 0, true},
      {"Sigmoid", 4, 0, 0, 0, false},   {"HardSigmoid", 5, 2, 0.2f, 0.5f, true},
      {"HardSwish", 6, 0, 0, 0, false}, {"SiLU", 7, 0, 0, 0, false},
      {"Gelu", 8, 0, 0, 0, false},      {"GeluTanh", 9, 0, 0, 0, false},
      {"Tanh", 10, 0, 0, 0, false},
  };
  const Entry *e = llvm::find_if(table, [&](const Entry &x) { return x.name == kind; });
  if (e == std::end(table))
    return std::nullopt;
  KernelActivation a;
  a.code = e->code;
  if (!params) {
    if (e->numParams && !e->paramsOptional)
      return std::nullopt;
    a.p0 = e->default0;
    a.p1 = e->default1;
    return a;
  }
  if (params->size() != e->numParams)
    return std::nullopt;
  if (e->numParams > 0)
    a.p0 = (*params)[0];
  if (e->numParams > 1)
    a.p1 = (*params)[1];
  return a;
}

std::optional<std::vector<float>> constantFloats(Value v) {
  ElementsAttr attr = onnx::staticConstantValue(v);
  if (!attr || !attr.getElementType().isF32())
    return std::nullopt;
  auto values = onnx::readFloatElements(attr);
  if (!values)
    return std::nullopt;
  return std::vector<float>(values->begin(), values->end());
}

namespace {
/// A constant 1-D tensor of `count` `elem` values with bytes `raw`, as a
/// resource blob named after `op` and `suffix`, viewed as a flat read-only
/// buffer.
Value packedBlob(OpBuilder &b, Location loc, Operation *op, StringRef suffix, Type elem,
                 ArrayRef<char> raw, int64_t count, size_t align) {
  auto type = RankedTensorType::get({count}, elem);
  auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, align);
  auto attr = DenseResourceElementsAttr::get(type, blobName(op, suffix), std::move(blob));
  Value c = arith::ConstantOp::create(b, loc, attr);
  return flatBuffer(b, loc, c, /*readOnly=*/true);
}
} // namespace

Value packedConstantBytes(OpBuilder &b, Location loc, Operation *op, StringRef suffix,
                          ArrayRef<char> data) {
  static const char unread[4] = {};
  if (data.empty())
    data = ArrayRef<char>(unread);
  return packedBlob(b, loc, op, suffix, b.getI8Type(), data, data.size(), 64);
}

std::optional<std::vector<int32_t>> constantIntegers(Value v, unsigned width) {
  ElementsAttr attr = onnx::staticConstantValue(v);
  auto elem = attr ? dyn_cast<IntegerType>(attr.getElementType()) : nullptr;
  if (!elem || elem.getWidth() != width || width > 32)
    return std::nullopt;
  auto values = onnx::readIntegerElements(attr);
  if (!values)
    return std::nullopt;
  return std::vector<int32_t>(values->begin(), values->end());
}

Value packedConstant(OpBuilder &b, Location loc, Operation *op, StringRef suffix,
                     ArrayRef<float> data) {
  // Weights with a dim of 0 still get a buffer: one element, never read
  // (an empty blob would copy from a null pointer).
  static const float unread = 0;
  if (data.empty())
    data = ArrayRef<float>(unread);
  ArrayRef<char> raw(reinterpret_cast<const char *>(data.data()), data.size() * sizeof(float));
  return packedBlob(b, loc, op, suffix, b.getF32Type(), raw, data.size(), alignof(float));
}

FailureOr<Value> broadcastStride(OpBuilder &b, Location loc, Operation *at, const onnx::Dim &dim,
                                 const onnx::Dim &target, Value dimValue, Value targetValue,
                                 Value stride) {
  if (dim == target)
    return stride;
  if (dim.isStatic() && dim.size == 1)
    return indexConst(b, loc, 0);
  if (dim.isStatic() && target.isStatic())
    return failure();
  checkDims(b, loc, at, "broadcast", dimValue, targetValue);
  Value one = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, dimValue,
                                    indexConst(b, loc, 1));
  return arith::SelectOp::create(b, loc, one, indexConst(b, loc, 0), stride).getResult();
}

Value outputBuffer(OpBuilder &b, Location loc, RankedTensorType type, ValueRange sizes) {
  return flatBuffer(b, loc, emptyTensor(b, loc, type, sizes), /*readOnly=*/false);
}

Value scratchBuffer(OpBuilder &b, Location loc, int64_t floats) {
  return outputBuffer(b, loc,
                      RankedTensorType::get({std::max<int64_t>(floats, 16)}, b.getF32Type()));
}

void KernelCall::i64(int64_t v) {
  operands.push_back(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)));
}

void KernelCall::i64(Value index) {
  operands.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), index));
}

void KernelCall::i32(int32_t v) {
  operands.push_back(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)));
}

void KernelCall::f32(float v) {
  operands.push_back(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v)));
}

void KernelCall::partition() {
  partOperand = operands.size();
  i64(0);
  i64(parts);
}

void KernelCall::emit(Operation *at, StringRef name) {
  SmallVector<Type> types;
  for (Value v : operands)
    types.push_back(v.getType());
  auto type = FunctionType::get(b.getContext(), types, {b.getI32Type()});
  func::FuncOp callee = declareRuntimeFunction(b, at, ("onnxcc_kernels_" + name).str(),
                                               ("onnxcc_rt::kernels::" + name).str(), type,
                                               /*usesStringPool=*/false);
  auto call = func::CallOp::create(b, loc, callee, operands);
  if (parts > 1) {
    call->setAttr("onnxcc.parts", b.getI64IntegerAttr(parts));
    call->setAttr("onnxcc.part_operand", b.getI64IntegerAttr(partOperand));
  }
}

} // namespace onnxcc::lowering
