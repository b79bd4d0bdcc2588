//===- KernelCall.h - Building calls into runtime-support kernels --------===//
//
// What every pattern that lowers an op to a runtime-support kernel call
// shares (Kernels.cpp, Signal.cpp, Recurrent.cpp...): constants packed at
// compile time into resource blobs, the operand list of one call, scratch
// buffers, and the pattern base that carries the kernel ISA and the number
// of parts (threads) each call is split into.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXCC_LOWERING_ONNXTOLINALG_KERNELCALL_H
#define ONNXCC_LOWERING_ONNXTOLINALG_KERNELCALL_H

#include "lowering/OnnxToLinalg/Patterns.h"

#include <optional>
#include <vector>

namespace onnxcc::lowering {

/// `v` unless it is absent (null or of NoneType).
inline mlir::Value present(mlir::Value v) {
  return v && !mlir::isa<mlir::NoneType>(v.getType()) ? v : mlir::Value();
}

/// Whether `v` is a ranked float32 tensor (of rank `rank` unless -1).
bool isF32Tensor(mlir::Value v, int64_t rank = -1);

/// The epilogue activation as the kernels encode it (kAct* of
/// onnxcc_kernels.h and its two parameters).
struct KernelActivation {
  int32_t code = 0;
  float p0 = 0, p1 = 0;
};

/// The kernel encoding of a fused op's activation `kind` ("" for none) and
/// its parameters; nullopt when the kernels do not compute it.
std::optional<KernelActivation> kernelActivation(llvm::StringRef kind,
                                                 std::optional<llvm::ArrayRef<float>> params);

/// The float32 elements of constant `v` (static shape), or nullopt.
std::optional<std::vector<float>> constantFloats(mlir::Value v);

/// A constant 1-D f32 tensor holding `data`, as a resource blob named after
/// `op` and `suffix` (deterministic), viewed as a flat read-only buffer.
mlir::Value packedConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                           llvm::StringRef suffix, llvm::ArrayRef<float> data);

/// The same for raw bytes (the integer kernels' packed weights), an i8
/// tensor aligned for 64-byte loads.
mlir::Value packedConstantBytes(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                                llvm::StringRef suffix, llvm::ArrayRef<char> data);

/// The elements of constant `v` (static shape) of an integer type `width`
/// bits wide (at most 32: 8-bit weights, 4-bit ones...), widened to int32 by
/// the type's signedness; nullopt otherwise.
std::optional<std::vector<int32_t>> constantIntegers(mlir::Value v, unsigned width);

/// The stride a kernel reads a dim of an operand with when it broadcasts to
/// a dim of the result: `stride` when the two are the same (statically or
/// as one symbolic dim), 0 for a static 1; for dims only known at run time,
/// `select(dim == 1, 0, stride)` after a check that dim is 1 or the target
/// (onnxcc_rt::check_broadcast: run() returns 9 otherwise). Failure for two
/// static dims that do not broadcast. `dimValue` and `targetValue` are the
/// two sizes as index values.
mlir::FailureOr<mlir::Value> broadcastStride(mlir::OpBuilder &b, mlir::Location loc,
                                             mlir::Operation *at, const onnx::Dim &dim,
                                             const onnx::Dim &target, mlir::Value dimValue,
                                             mlir::Value targetValue, mlir::Value stride);

/// The flat buffer a kernel call writes a result of `type` into (dynamic
/// dims `sizes`); resultTensor() turns it back into the tensor.
mlir::Value outputBuffer(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                         mlir::ValueRange sizes = {});

/// A writable scratch buffer of `floats` floats (at least 16, so that the
/// kernel always gets a valid pointer).
mlir::Value scratchBuffer(mlir::OpBuilder &b, mlir::Location loc, int64_t floats);

/// Builds the operand list of one call to onnxcc_rt::kernels::NAME and
/// issues it.
class KernelCall {
public:
  KernelCall(mlir::OpBuilder &b, mlir::Location loc, int64_t parts)
      : b(b), loc(loc), parts(parts) {}
  void buffer(mlir::Value v) { operands.push_back(v); }
  void i64(int64_t v);
  void i64(mlir::Value index);
  void i32(int32_t v);
  void f32(float v);
  /// The part and parts operands: part is 0 here; with parts > 1 the
  /// emitter runs the call once per part (attributes onnxcc.parts and
  /// onnxcc.part_operand).
  void partition();
  void activation(const KernelActivation &a) {
    i32(a.code);
    f32(a.p0);
    f32(a.p1);
  }
  /// Calls onnxcc_rt::kernels::`name` (declared next to `at`'s function).
  void emit(mlir::Operation *at, llvm::StringRef name);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
  int64_t parts;
  int64_t partOperand = -1;
  llvm::SmallVector<mlir::Value> operands;
};

/// A pattern lowering an op to kernel calls: the kernel ISA and the parts
/// of each call, with a benefit above the linalg lowering of the same op
/// (which stays the fallback where the pattern does not apply).
template <typename OpTy> struct KernelPattern : mlir::OpConversionPattern<OpTy> {
  KernelPattern(const mlir::TypeConverter &converter, mlir::MLIRContext *ctx, int isa,
                int64_t threads, unsigned benefit = 2)
      : mlir::OpConversionPattern<OpTy>(converter, ctx, benefit), target(isa),
        threads(threads) {}

  int target; ///< the kernel ISA (ONNXCC_ISA_*)
  int64_t threads;
};

} // namespace onnxcc::lowering

#endif // ONNXCC_LOWERING_ONNXTOLINALG_KERNELCALL_H
