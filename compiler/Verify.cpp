//===- Verify.cpp - onnxcc verify: compile, build, run, compare ----------===//
//
// The generated model is built together with a generic harness (main.cpp)
// that knows nothing about the model beyond the ABI: it prints the tensor
// table with --describe, and otherwise reads raw input files, calls
// NAME_run_generic and writes raw output files. Everything that needs
// protobuf (reading input_K.pb / output_K.pb, checking dtypes and shapes,
// comparing) happens here, so the harness stays dependency-free. A string
// tensor travels as its strings one after the other, each ended by a NUL;
// the harness passes and takes arrays of `const char *`.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify.h"
#include "codegen/SourceText.h"
#include "compiler/Driver.h"
#include "compiler/HalideTarget.h"
#include "compiler/Importer.h"
#include "compiler/ModelLoader.h"

#include "onnx.pb.h"

#include <google/protobuf/io/coded_stream.h>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace llvm;

namespace onnxcc {

char VerifyError::ID = 0;

StringRef verifyStageName(VerifyStage stage) {
  switch (stage) {
  case VerifyStage::Compile:
    return "compile";
  case VerifyStage::Build:
    return "build";
  case VerifyStage::Dataset:
    return "dataset";
  case VerifyStage::Run:
    return "run";
  }
  return "verify";
}

void VerifyError::log(raw_ostream &os) const {
  os << verifyStageName(stage) << ": " << message;
}

std::error_code VerifyError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

namespace {

Error makeError(VerifyStage stage, const Twine &message) {
  return make_error<VerifyError>(stage, message.str());
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// How a TensorProto data type is laid out and compared.
struct DType {
  const char *name; ///< as in NAME_tensor_info::dtype and `onnxcc inspect`
  int32_t elemSize;
  enum Kind {
    Float, Signed, Unsigned, Bool, Half, BFloat, Complex, String, Unsupported,
    SmallFloat, ///< float8/float4: one bit pattern per byte (see smallFloat)
  } kind;
  /// Elements per byte in a TensorProto (4-bit: 2, 2-bit: 4); the harness
  /// takes one per byte, sign-extended for int4/int2.
  int32_t perByte = 1;
  /// SmallFloat layout: exponent and mantissa bits, bias, and which codes are
  /// special: 'f' (FN: S.1111.111 is NaN), 'u' (FNUZ: 0x80 is NaN), 'i' (IEEE:
  /// all-ones exponent is inf/NaN), 'e' (E8M0: 0xff is NaN), 'n' (none).
  int32_t expBits = 0, mantBits = 0, bias = 0;
  char special = 'n';
};

/// Indexed by TensorProto::DataType. A string element is a `const char *` in
/// the generated code; the float8/float4 types are bit patterns, one per
/// uint8_t, the 4-bit and 2-bit integers one per int8_t/uint8_t (see
/// codegen/cpp/ABI.md).
constexpr DType dtypes[] = {
    {"undefined", 0, DType::Unsupported}, {"float32", 4, DType::Float},
    {"uint8", 1, DType::Unsigned},        {"int8", 1, DType::Signed},
    {"uint16", 2, DType::Unsigned},       {"int16", 2, DType::Signed},
    {"int32", 4, DType::Signed},          {"int64", 8, DType::Signed},
    {"string", static_cast<int32_t>(sizeof(const char *)), DType::String},
    {"bool", 1, DType::Bool},
    {"float16", 2, DType::Half},          {"float64", 8, DType::Float},
    {"uint32", 4, DType::Unsigned},       {"uint64", 8, DType::Unsigned},
    {"complex64", 8, DType::Complex},     {"complex128", 16, DType::Complex},
    {"bfloat16", 2, DType::BFloat},
    {"float8e4m3fn", 1, DType::SmallFloat, 1, 4, 3, 7, 'f'},
    {"float8e4m3fnuz", 1, DType::SmallFloat, 1, 4, 3, 8, 'u'},
    {"float8e5m2", 1, DType::SmallFloat, 1, 5, 2, 15, 'i'},
    {"float8e5m2fnuz", 1, DType::SmallFloat, 1, 5, 2, 16, 'u'},
    {"uint4", 1, DType::Unsigned, 2},
    {"int4", 1, DType::Signed, 2},
    {"float4e2m1", 1, DType::SmallFloat, 2, 2, 1, 1, 'n'},
    {"float8e8m0", 1, DType::SmallFloat, 1, 8, 0, 127, 'e'},
    {"uint2", 1, DType::Unsigned, 4},
    {"int2", 1, DType::Signed, 4},
};

/// The value of a float8/float4 bit pattern (independent of the generated
/// code's conversions in onnxcc_rt.h, so that verify checks them).
double smallFloat(const DType &dtype, uint8_t bits) {
  int width = 1 + dtype.expBits + dtype.mantBits;
  if (dtype.special == 'e') // E8M0: no sign, no mantissa, 2^(e - 127)
    return bits == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, bits - 127);
  unsigned sign = (bits >> (width - 1)) & 1u;
  unsigned exponent = (bits >> dtype.mantBits) & ((1u << dtype.expBits) - 1);
  unsigned mantissa = bits & ((1u << dtype.mantBits) - 1);
  unsigned allOnes = (1u << dtype.expBits) - 1;
  double nan = std::numeric_limits<double>::quiet_NaN();
  if (dtype.special == 'f' && exponent == allOnes && mantissa == (1u << dtype.mantBits) - 1)
    return nan;
  if (dtype.special == 'u' && sign && exponent == 0 && mantissa == 0)
    return nan;
  if (dtype.special == 'i' && exponent == allOnes)
    return mantissa ? nan : (sign ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
  double magnitude = exponent == 0
                         ? std::ldexp(mantissa, 1 - dtype.bias - dtype.mantBits)
                         : std::ldexp(mantissa + (1u << dtype.mantBits),
                                      static_cast<int>(exponent) - dtype.bias - dtype.mantBits);
  return sign ? -magnitude : magnitude;
}

const DType *lookupDType(int32_t dataType) {
  if (dataType < 0 || static_cast<size_t>(dataType) >= std::size(dtypes))
    return nullptr;
  return &dtypes[dataType];
}

const DType *lookupDType(StringRef name) {
  for (const DType &dtype : dtypes)
    if (name == dtype.name)
      return &dtype;
  return nullptr;
}

double halfToDouble(uint16_t bits) {
  int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0)
    value = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    value = mantissa ? std::numeric_limits<double>::quiet_NaN()
                     : std::numeric_limits<double>::infinity();
  else
    value = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -value : value;
}

/// Element `index` of a dense little-endian buffer as a double (for the
/// tolerance check and the diff report). Complex values are read per part.
double loadElement(const DType &dtype, const char *data, size_t index) {
  auto load = [&](auto tag, size_t i) {
    decltype(tag) value;
    std::memcpy(&value, data + i * sizeof(value), sizeof(value));
    return value;
  };
  switch (dtype.kind) {
  case DType::Float:
  case DType::Complex:
    if (dtype.elemSize == 4 || (dtype.elemSize == 8 && dtype.kind == DType::Complex))
      return load(float(), index);
    return load(double(), index);
  case DType::Half:
    return halfToDouble(load(uint16_t(), index));
  case DType::BFloat: {
    uint32_t bits = uint32_t(load(uint16_t(), index)) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  case DType::SmallFloat:
    return smallFloat(dtype, load(uint8_t(), index));
  case DType::Bool:
  case DType::Unsigned:
    switch (dtype.elemSize) {
    case 1:
      return load(uint8_t(), index);
    case 2:
      return load(uint16_t(), index);
    case 4:
      return load(uint32_t(), index);
    default:
      return static_cast<double>(load(uint64_t(), index));
    }
  case DType::Signed:
    switch (dtype.elemSize) {
    case 1:
      return load(int8_t(), index);
    case 2:
      return load(int16_t(), index);
    case 4:
      return load(int32_t(), index);
    default:
      return static_cast<double>(load(int64_t(), index));
    }
  case DType::String:
  case DType::Unsupported:
    break;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// TensorProto files
//===----------------------------------------------------------------------===//

/// A tensor of a dataset, densely laid out as the harness takes it (strings:
/// each followed by a NUL).
struct Tensor {
  const DType *dtype = nullptr;
  SmallVector<int64_t> shape;
  std::string bytes;
  std::vector<std::string> strings; ///< the elements of a string tensor
};

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(shape))
    text += (i ? "," : "") + std::to_string(dim);
  return text + "]";
}

/// Appends `values` truncated to `elemSize` bytes each (little-endian host),
/// the way TensorProto packs narrow types into int32_data.
template <typename T>
void appendNarrowed(std::string &bytes, const T &values, int32_t elemSize) {
  for (auto value : values) {
    uint64_t bits = static_cast<uint64_t>(value);
    bytes.append(reinterpret_cast<const char *>(&bits), elemSize);
  }
}

Expected<Tensor> tensorOf(const ::onnx::TensorProto &proto, StringRef path);

Expected<Tensor> readTensor(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(VerifyStage::Dataset,
                     "cannot read " + path + ": " + buffer.getError().message());
  ::onnx::TensorProto proto;
  if (!proto.ParseFromArray((*buffer)->getBufferStart(), (*buffer)->getBufferSize()))
    return makeError(VerifyStage::Dataset, path + ": not a TensorProto");
  return tensorOf(proto, path);
}

/// A sequence or optional of a dataset (SequenceProto / OptionalProto):
/// whether it holds a value, and its tensors (one for an optional tensor).
struct BoundaryValue {
  bool present = true;
  SmallVector<Tensor> elements;
};

/// The fields of a protobuf message: (field number, bytes) of its
/// length-delimited fields, in order; false when the bytes are no message.
/// (onnx.proto's generated code lacks onnx-data.proto's SequenceProto and
/// OptionalProto: their few fields are read directly.)
bool messageFields(StringRef data, SmallVectorImpl<std::pair<uint32_t, std::string>> &fields) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(data.data()),
                                            static_cast<int>(data.size()));
  while (uint32_t tag = in.ReadTag()) {
    uint64_t varint;
    uint32_t fixed32, length;
    uint64_t fixed64;
    std::string bytes;
    switch (tag & 7) {
    case 0:
      if (!in.ReadVarint64(&varint))
        return false;
      break;
    case 1:
      if (!in.ReadLittleEndian64(&fixed64))
        return false;
      break;
    case 2:
      if (!in.ReadVarint32(&length) || !in.ReadString(&bytes, static_cast<int>(length)))
        return false;
      fields.push_back({tag >> 3, std::move(bytes)});
      break;
    case 5:
      if (!in.ReadLittleEndian32(&fixed32))
        return false;
      break;
    default:
      return false;
    }
  }
  return in.ConsumedEntireMessage();
}

/// Reads PATH as what `kind` says (see TensorTable): 1 a SequenceProto, 2
/// or 3 an OptionalProto (onnx-data.proto: tensor_values = 3 of a
/// sequence; tensor_value = 3 and sequence_value = 5 of an optional).
Expected<BoundaryValue> readBoundaryValue(StringRef path, int kind) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(VerifyStage::Dataset,
                     "cannot read " + path + ": " + buffer.getError().message());
  BoundaryValue value;
  auto addSequence = [&](StringRef bytes) -> Error {
    SmallVector<std::pair<uint32_t, std::string>> fields;
    if (!messageFields(bytes, fields))
      return makeError(VerifyStage::Dataset, path + ": not a SequenceProto");
    for (const auto &[number, field] : fields) {
      if (number == 4 || number == 5 || number == 6 || number == 7)
        return makeError(VerifyStage::Dataset,
                         path + ": only sequences of tensors are supported");
      if (number != 3)
        continue;
      ::onnx::TensorProto proto;
      if (!proto.ParseFromString(field))
        return makeError(VerifyStage::Dataset, path + ": an element is not a TensorProto");
      auto tensor = tensorOf(proto, path);
      if (!tensor)
        return tensor.takeError();
      value.elements.push_back(std::move(*tensor));
    }
    return Error::success();
  };
  if (kind == 1) {
    if (Error e = addSequence((*buffer)->getBuffer()))
      return std::move(e);
    return value;
  }
  SmallVector<std::pair<uint32_t, std::string>> fields;
  if (!messageFields((*buffer)->getBuffer(), fields))
    return makeError(VerifyStage::Dataset, path + ": not an OptionalProto");
  value.present = false;
  for (const auto &[number, field] : fields) {
    if (number == 3) {
      if (kind != 2)
        return makeError(VerifyStage::Dataset,
                         path + ": an optional tensor, the model's is a sequence");
      ::onnx::TensorProto proto;
      if (!proto.ParseFromString(field))
        return makeError(VerifyStage::Dataset, path + ": the value is not a TensorProto");
      auto tensor = tensorOf(proto, path);
      if (!tensor)
        return tensor.takeError();
      value.elements.push_back(std::move(*tensor));
      value.present = true;
    } else if (number == 5) {
      if (kind != 3)
        return makeError(VerifyStage::Dataset,
                         path + ": an optional sequence, the model's is a tensor");
      if (Error e = addSequence(field))
        return std::move(e);
      value.present = true;
    } else if (number == 4 || number == 6 || number == 7) {
      return makeError(VerifyStage::Dataset,
                       path + ": only optional tensors and sequences are supported");
    }
  }
  return value;
}

/// The keys of every map of an output that holds ZipMap's sequence of maps
/// as its values (the harness's `keys` lines): int64 or string keys.
struct MapKeys {
  bool strings = false;
  SmallVector<int64_t> ints;
  SmallVector<std::string> texts;
  size_t size() const { return strings ? texts.size() : ints.size(); }
  std::string key(size_t k) const {
    return strings ? "'" + codegen::displayText(texts[k]) + "'" : std::to_string(ints[k]);
  }
};

/// A reference sequence of maps read as the values the compiled model gives:
/// `values` float32, row i holding map i's values in the order of `keys`;
/// `mismatch` says how the maps' keys differ from `keys` (a failed check,
/// not a bad dataset).
struct MapSequence {
  Tensor values;
  std::string mismatch;
};

/// A MapProto (onnx-data.proto: key_type = 2, keys = 3 (packed or not),
/// string_keys = 4, values = 5, a SequenceProto of tensors, one value each
/// or several in one): its keys and its values, one tensor of them all.
struct ParsedMap {
  SmallVector<int64_t> ints;
  SmallVector<std::string> texts;
  Tensor values; ///< bytes as the harness takes them (strings NUL-ended)
};

Expected<ParsedMap> parseMapProto(StringRef bytes, StringRef path) {
  auto bad = [&](const Twine &why) { return makeError(VerifyStage::Dataset, path + ": " + why); };
  ParsedMap map;
  uint64_t valueCount = 0;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  while (uint32_t tag = in.ReadTag()) {
    uint32_t fieldNumber = tag >> 3, wire = tag & 7;
    uint64_t varint;
    uint32_t length;
    std::string field;
    if (wire == 0) {
      if (!in.ReadVarint64(&varint))
        return bad("a map is not a MapProto");
      if (fieldNumber == 3)
        map.ints.push_back(static_cast<int64_t>(varint));
      continue;
    }
    if (wire != 2 || !in.ReadVarint32(&length) ||
        !in.ReadString(&field, static_cast<int>(length)))
      return bad("a map is not a MapProto");
    if (fieldNumber == 3) { // packed keys
      google::protobuf::io::CodedInputStream packed(
          reinterpret_cast<const uint8_t *>(field.data()), static_cast<int>(field.size()));
      while (packed.CurrentPosition() < static_cast<int>(field.size())) {
        if (!packed.ReadVarint64(&varint))
          return bad("a map's keys are not int64");
        map.ints.push_back(static_cast<int64_t>(varint));
      }
    } else if (fieldNumber == 4) {
      map.texts.push_back(std::move(field));
    } else if (fieldNumber == 5) {
      SmallVector<std::pair<uint32_t, std::string>> valueFields;
      if (!messageFields(field, valueFields))
        return bad("a map's values are not a SequenceProto");
      for (const auto &[valueNumber, valueField] : valueFields) {
        if (valueNumber != 3)
          return bad("a map's values are not tensors");
        ::onnx::TensorProto proto;
        if (!proto.ParseFromString(valueField))
          return bad("a map's value is not a TensorProto");
        auto tensor = tensorOf(proto, path);
        if (!tensor)
          return tensor.takeError();
        if (map.values.dtype && tensor->dtype != map.values.dtype)
          return bad("a map's values differ in type");
        map.values.dtype = tensor->dtype;
        map.values.bytes += tensor->bytes;
        uint64_t count = 1;
        for (int64_t d : tensor->shape)
          count *= d;
        valueCount += count;
      }
    }
  }
  if (!in.ConsumedEntireMessage())
    return bad("a map is not a MapProto");
  if (!map.ints.empty() && !map.texts.empty())
    return bad("a map has both int64 and string keys");
  size_t keys = map.ints.size() + map.texts.size();
  if (valueCount != keys)
    return bad("a map has " + Twine(keys) + " keys and " + Twine(valueCount) + " values");
  map.values.shape.assign({static_cast<int64_t>(keys)});
  return map;
}

/// Reads PATH, a SequenceProto of MapProtos (map_values = 6) whose values
/// are float, as an output of `rank` (2: [maps, K]; 1: [K], one map) with
/// these keys.
Expected<MapSequence> readMapSequence(StringRef path, const MapKeys &keys, size_t rank) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(VerifyStage::Dataset,
                     "cannot read " + path + ": " + buffer.getError().message());
  auto bad = [&](const Twine &why) { return makeError(VerifyStage::Dataset, path + ": " + why); };
  SmallVector<std::pair<uint32_t, std::string>> fields;
  if (!messageFields((*buffer)->getBuffer(), fields))
    return bad("not a SequenceProto");
  MapSequence result;
  result.values.dtype = lookupDType("float32");
  std::vector<float> values;
  size_t maps = 0;
  for (const auto &[number, field] : fields) {
    if (number == 3 || number == 4 || number == 5 || number == 7)
      return bad("a sequence of tensors, sequences or optionals; the model's output is a "
                 "sequence of maps");
    if (number != 6)
      continue;
    auto map = parseMapProto(field, path);
    if (!map)
      return map.takeError();
    size_t mapKeys = keys.strings ? map->texts.size() : map->ints.size();
    if ((keys.strings ? map->ints.size() : map->texts.size()) != 0)
      return bad(Twine("map ") + Twine(maps) + " has " + (keys.strings ? "int64" : "string") +
                 " keys; the model's are " + (keys.strings ? "strings" : "int64"));
    if (mapKeys && map->values.dtype != result.values.dtype)
      return bad("a map's value is " + Twine(map->values.dtype->name) + ", not float32");
    std::vector<float> mapValues(mapKeys);
    if (mapKeys)
      std::memcpy(mapValues.data(), map->values.bytes.data(), mapKeys * sizeof(float));
    // The values in the order of the model's keys.
    for (size_t k = 0; k < keys.size(); ++k) {
      size_t found = mapKeys;
      for (size_t j = 0; j < mapKeys; ++j)
        if (keys.strings ? map->texts[j] == keys.texts[k] : map->ints[j] == keys.ints[k])
          found = j;
      if (found == mapKeys && result.mismatch.empty())
        result.mismatch = "expected map " + std::to_string(maps) + " has no key " + keys.key(k);
      values.push_back(found == mapKeys ? 0.0f : mapValues[found]);
    }
    if (mapKeys != keys.size() && result.mismatch.empty())
      result.mismatch = "expected map " + std::to_string(maps) + " has " +
                        std::to_string(mapKeys) + " keys, the model's " +
                        std::to_string(keys.size());
    ++maps;
  }
  if (rank == 1 && maps != 1)
    return bad(Twine(maps) + " maps; the model's output is one map");
  result.values.shape.assign({static_cast<int64_t>(maps), static_cast<int64_t>(keys.size())});
  if (rank == 1)
    result.values.shape.erase(result.values.shape.begin());
  result.values.bytes.assign(reinterpret_cast<const char *>(values.data()),
                             values.size() * sizeof(float));
  return result;
}

Expected<Tensor> tensorOf(const ::onnx::TensorProto &proto, StringRef path) {
  Tensor tensor;
  tensor.dtype = lookupDType(proto.data_type());
  if (!tensor.dtype || tensor.dtype->kind == DType::Unsupported) {
    std::string name = tensor.dtype ? tensor.dtype->name
                                    : "data type " + std::to_string(proto.data_type());
    return makeError(VerifyStage::Dataset, path + ": " + name + " tensors are not supported");
  }
  if (proto.data_location() == ::onnx::TensorProto::EXTERNAL)
    return makeError(VerifyStage::Dataset, path + ": external data is not supported");

  uint64_t numElements = 1;
  for (int64_t dim : proto.dims()) {
    if (dim < 0)
      return makeError(VerifyStage::Dataset, path + ": negative dimension");
    tensor.shape.push_back(dim);
    numElements *= dim;
  }
  const DType &dtype = *tensor.dtype;
  uint64_t numBytes = numElements * dtype.elemSize;

  if (dtype.perByte > 1) {
    // int4/uint4/float4e2m1 two, int2/uint2 four per byte, low bits first, in
    // raw_data or one byte per int32_data value: one per byte for the harness.
    uint64_t packed = (numElements + dtype.perByte - 1) / dtype.perByte;
    std::string source;
    if (proto.has_raw_data())
      source = proto.raw_data();
    else
      appendNarrowed(source, proto.int32_data(), 1);
    if (source.size() != packed)
      return makeError(VerifyStage::Dataset,
                       path + ": " + Twine(source.size()) + " packed bytes, shape " +
                           formatShape(tensor.shape) + " of " + dtype.name + " needs " +
                           Twine(packed));
    unsigned bits = 8 / dtype.perByte, mask = (1u << bits) - 1;
    for (uint64_t i = 0; i < numElements; ++i) {
      unsigned v = (static_cast<uint8_t>(source[i / dtype.perByte]) >> (bits * (i % dtype.perByte))) & mask;
      if (dtype.kind == DType::Signed && (v >> (bits - 1)))
        v |= 0xffu << bits;
      tensor.bytes.push_back(static_cast<char>(v));
    }
    return tensor;
  }

  if (dtype.kind == DType::String) {
    if (proto.has_raw_data())
      return makeError(VerifyStage::Dataset, path + ": a string tensor with raw_data");
    for (const std::string &value : proto.string_data()) {
      if (value.find('\0') != std::string::npos)
        return makeError(VerifyStage::Dataset,
                         path + ": a string with a NUL byte, which the generated code's "
                                "NUL-terminated strings cannot hold");
      tensor.strings.push_back(value);
      tensor.bytes += value;
      tensor.bytes.push_back('\0');
    }
    if (tensor.strings.size() != numElements)
      return makeError(VerifyStage::Dataset, path + ": " + Twine(tensor.strings.size()) +
                                                 " values for shape " +
                                                 formatShape(tensor.shape));
    return tensor;
  }

  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != numBytes)
      return makeError(VerifyStage::Dataset,
                       path + ": raw_data holds " + Twine(proto.raw_data().size()) +
                           " bytes, shape " + formatShape(tensor.shape) + " of " +
                           dtype.name + " needs " + Twine(numBytes));
    tensor.bytes = proto.raw_data();
    return tensor;
  }

  // Typed fields: which one holds the values depends on the type.
  std::string &bytes = tensor.bytes;
  uint64_t count = 0;
  switch (dtype.kind) {
  case DType::Float:
  case DType::Complex:
    if (dtype.elemSize == 4 || (dtype.kind == DType::Complex && dtype.elemSize == 8)) {
      count = proto.float_data_size();
      bytes.assign(reinterpret_cast<const char *>(proto.float_data().data()), count * 4);
    } else {
      count = proto.double_data_size();
      bytes.assign(reinterpret_cast<const char *>(proto.double_data().data()), count * 8);
    }
    if (dtype.kind == DType::Complex)
      count /= 2;
    break;
  case DType::Signed:
    if (dtype.elemSize == 8) {
      count = proto.int64_data_size();
      appendNarrowed(bytes, proto.int64_data(), 8);
      break;
    }
    [[fallthrough]];
  case DType::Bool:
  case DType::Half:
  case DType::BFloat:
  case DType::SmallFloat:
  case DType::Unsigned:
    if (dtype.kind == DType::Unsigned && dtype.elemSize >= 4) {
      count = proto.uint64_data_size();
      appendNarrowed(bytes, proto.uint64_data(), dtype.elemSize);
      break;
    }
    count = proto.int32_data_size();
    appendNarrowed(bytes, proto.int32_data(), dtype.elemSize);
    break;
  case DType::String:
  case DType::Unsupported:
    break;
  }
  if (count != numElements)
    return makeError(VerifyStage::Dataset, path + ": " + Twine(count) +
                                               " values for shape " +
                                               formatShape(tensor.shape));
  return tensor;
}

//===----------------------------------------------------------------------===//
// Datasets
//===----------------------------------------------------------------------===//

struct Dataset {
  std::string name; ///< the folder name, as printed
  SmallVector<std::string> inputs, outputs;
};

/// The trailing number of `name` (test_data_set_12 -> 12), for numeric order.
unsigned trailingNumber(StringRef name) {
  size_t pos = name.find_last_not_of("0123456789");
  unsigned value = 0;
  name.substr(pos == StringRef::npos ? 0 : pos + 1).getAsInteger(10, value);
  return value;
}

/// input_K.pb / output_K.pb files of one folder, in K order; K must run
/// from 0 without gaps so that K matches the model's input order.
Expected<Dataset> readDatasetFolder(StringRef dir) {
  Dataset dataset;
  dataset.name = sys::path::filename(dir).str();
  std::error_code ec;
  SmallVector<std::pair<unsigned, std::string>> inputs, outputs;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    StringRef file = sys::path::filename(it->path());
    if (!file.ends_with(".pb"))
      continue;
    StringRef stem = file.drop_back(3);
    unsigned index;
    if (stem.consume_front("input_") && !stem.getAsInteger(10, index))
      inputs.push_back({index, it->path()});
    else if (stem.consume_front("output_") && !stem.getAsInteger(10, index))
      outputs.push_back({index, it->path()});
  }
  if (ec)
    return makeError(VerifyStage::Dataset, "cannot list " + dir + ": " + ec.message());
  for (auto *files : {&inputs, &outputs}) {
    llvm::sort(*files);
    for (auto [i, file] : llvm::enumerate(*files))
      if (file.first != i)
        return makeError(VerifyStage::Dataset, dir + ": " + sys::path::filename(file.second) +
                                                   " without the files before it");
  }
  for (auto &file : inputs)
    dataset.inputs.push_back(file.second);
  for (auto &file : outputs)
    dataset.outputs.push_back(file.second);
  return dataset;
}

/// `dir` is one dataset when it holds .pb files itself, else a test folder
/// whose test_data_set_* subfolders are the datasets.
Expected<SmallVector<Dataset>> findDatasets(StringRef dir) {
  if (!sys::fs::is_directory(dir))
    return makeError(VerifyStage::Dataset, dir + ": not a folder");
  auto single = readDatasetFolder(dir);
  if (!single)
    return single.takeError();
  SmallVector<Dataset> datasets;
  if (!single->inputs.empty() || !single->outputs.empty()) {
    datasets.push_back(std::move(*single));
    return datasets;
  }
  std::error_code ec;
  SmallVector<std::pair<unsigned, std::string>> folders;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    if (name.starts_with("test_data_set_") && sys::fs::is_directory(it->path()))
      folders.push_back({trailingNumber(name), it->path()});
  }
  if (ec)
    return makeError(VerifyStage::Dataset, "cannot list " + dir + ": " + ec.message());
  llvm::sort(folders);
  for (auto &folder : folders) {
    auto dataset = readDatasetFolder(folder.second);
    if (!dataset)
      return dataset.takeError();
    if (dataset->outputs.empty())
      return makeError(VerifyStage::Dataset, folder.second + ": no output_K.pb files");
    datasets.push_back(std::move(*dataset));
  }
  if (datasets.empty())
    return makeError(VerifyStage::Dataset,
                     dir + ": no input_K.pb/output_K.pb files and no test_data_set_* folders");
  return datasets;
}

//===----------------------------------------------------------------------===//
// The harness
//===----------------------------------------------------------------------===//

/// Uses nothing but the C library so that a thousand of them build quickly;
/// @NAME@ is replaced by the model name.
constexpr const char *harnessTemplate = R"(// Generic harness written by onnxcc verify: runs @NAME@ on raw tensor files.
//   run --describe            prints the tensor table, one line per tensor:
//                             in|out DTYPE ELEM_SIZE RANK DIMS... NAME
//                             (names as hex digits of their bytes)
//   run IN... -- OUT...       reads dense inputs, runs, writes dense outputs
//                             (strings: each followed by a NUL)
// Outputs that hold ZipMap's maps add `keys K int64 COUNT KEY...` or
// `keys K string COUNT HEXKEY...` lines; map inputs (two tensor entries,
// keys then values) `mapin K PART SYMBOL` lines.
// With symbolic dims, --describe also prints `sym NAME` lines, and a run is
//   run --dims=D0,D1,... SHAPE:IN... -- SHAPE:OUT...
// with each tensor's actual shape (dims joined by 'x', empty for a scalar).
#define @NAME@_NO_CXX_WRAPPER
#include "@NAME@.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The harness only moves bytes: GCC compiles it unoptimized whatever the
// flags, which the model keeps (a fifth of a small model's verify time).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O0")
#endif

#ifdef @NAME@_NUM_SYMBOLS
#define NUM_SYMBOLS @NAME@_NUM_SYMBOLS
#else
#define NUM_SYMBOLS 0
#endif

/// The actual shapes of the tensors, from SHAPE:PATH arguments (symbolic
/// models); null entries use the table's static shapes.
static int64_t *actualShape[@NAME@_NUM_INPUTS + @NAME@_NUM_OUTPUTS + 1];

static size_t numBytesOf(const @NAME@_tensor_info *t, const int64_t *shape) {
  size_t n = (size_t)t->elem_size;
  for (int32_t i = 0; i < t->rank; ++i)
    n *= (size_t)(shape ? shape[i] : t->shape[i]);
  return n;
}

/// Splits "2x3:path" into the shape (rank dims) and the path; the path alone
/// when there is no shape prefix (static models).
static const char *splitShape(char *arg, int32_t rank, int64_t **shape) {
  *shape = NULL;
  if (NUM_SYMBOLS == 0)
    return arg;
  char *colon = strchr(arg, ':');
  if (!colon)
    return NULL;
  *colon = 0;
  int64_t *dims = (int64_t *)calloc(rank ? (size_t)rank : 1, sizeof(int64_t));
  char *at = arg;
  for (int32_t i = 0; i < rank; ++i) {
    char *end;
    dims[i] = strtoll(at, &end, 10);
    if (end == at || (i + 1 < rank ? *end != 'x' : *end != 0))
      return NULL;
    at = end + 1;
  }
  if (rank == 0 && *arg != 0)
    return NULL;
  *shape = dims;
  return colon + 1;
}

static int isString(const @NAME@_tensor_info *t) { return strcmp(t->dtype, "string") == 0; }

#ifdef @NAME@_HAS_SEQUENCES
// Sequences and optionals travel as their elements' bytes one after another
// in PATH and as "present count dims..." in PATH.seq.
static inline int inputKind(int i) { return @NAME@_input_kinds[i].kind; }
static inline int outputKind(int i) { return @NAME@_output_kinds[i].kind; }
static @NAME@_value inValues[@NAME@_NUM_INPUTS + 1], outValues[@NAME@_NUM_OUTPUTS + 1];
static int outPresent[@NAME@_NUM_OUTPUTS + 1];
#else
static inline int inputKind(int i) { (void)i; return 0; }
static inline int outputKind(int i) { (void)i; return 0; }
#endif

/// A name from the model as hex digits of its bytes, so that no byte of it
/// (a newline, a space) can break the line.
static void printHex(const char *s) {
  for (; *s; ++s)
    printf("%02x", (unsigned)(unsigned char)*s);
}

static void describe(const char *kind, const @NAME@_tensor_info *t) {
  printf("%s %s %d %d", kind, t->dtype, (int)t->elem_size, (int)t->rank);
  for (int32_t i = 0; i < t->rank; ++i)
    printf(" %lld", (long long)t->shape[i]);
  printf(" ");
  printHex(t->name);
  printf("\n");
}

/// Tensors get the arena's alignment too: kernels may rely on it.
static void *allocate(size_t bytes, size_t align) {
  size_t size = (bytes + align - 1) / align * align;
  void *p = aligned_alloc(align, size ? size : align);
  if (p)
    memset(p, 0, size ? size : align);
  return p;
}

/// A string input file holds `count` strings, each ended by a NUL: returns
/// them as an array of pointers into the file's bytes (kept), or null.
static const char **readStrings(const char *path, size_t count, size_t align) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t size = 4096, length = 0, got;
  char *text = (char *)malloc(size);
  while (text && (got = fread(text + length, 1, size - length, f)) > 0) {
    length += got;
    if (length == size) {
      char *bigger = (char *)realloc(text, size *= 2);
      if (!bigger)
        free(text);
      text = bigger;
    }
  }
  fclose(f);
  const char **strings = (const char **)allocate(count * sizeof(const char *), align);
  if (!text || !strings)
    return NULL;
  size_t at = 0;
  for (size_t k = 0; k < count; ++k) {
    const char *end = at < length ? (const char *)memchr(text + at, 0, length - at) : NULL;
    if (!end)
      return NULL;
    strings[k] = text + at;
    at = (size_t)(end - text) + 1;
  }
  if (count == 0)
    free(text); /* nothing points into it (LeakSanitizer would say so) */
  return at == length ? strings : NULL;
}

int main(int argc, char **argv) {
  const int numInputs = @NAME@_NUM_INPUTS, numOutputs = @NAME@_NUM_OUTPUTS;
  if (argc == 2 && strcmp(argv[1], "--describe") == 0) {
    for (int i = 0; i < numInputs; ++i)
      describe("in", &@NAME@_inputs[i]);
    for (int i = 0; i < numOutputs; ++i)
      describe("out", &@NAME@_outputs[i]);
#ifdef @NAME@_HAS_SEQUENCES
    for (int i = 0; i < numInputs; ++i)
      printf("kind in %d %d %d\n", i, (int)@NAME@_input_kinds[i].kind,
             (int)@NAME@_input_kinds[i].max_count);
    for (int i = 0; i < numOutputs; ++i)
      printf("kind out %d %d %d\n", i, (int)@NAME@_output_kinds[i].kind,
             (int)@NAME@_output_kinds[i].max_count);
#endif
#ifdef @NAME@_HAS_MAP_INPUTS
    for (int i = 0; i < numInputs; ++i)
      if (@NAME@_input_maps[i].part)
        printf("mapin %d %d %d\n", i, (int)@NAME@_input_maps[i].part,
               (int)@NAME@_input_maps[i].symbol);
#endif
#ifdef @NAME@_HAS_MAP_OUTPUTS
    for (int i = 0; i < numOutputs; ++i) {
      const @NAME@_map_keys *m = &@NAME@_output_map_keys[i];
      if (m->count == 0)
        continue;
      printf("keys %d %s %lld", i, m->string_keys ? "string" : "int64", (long long)m->count);
      for (int64_t k = 0; k < m->count; ++k) {
        if (m->string_keys) {
          printf(" x"); /* "x" + hex digits: an empty key is a word too */
          printHex(m->string_keys[k]);
        } else {
          printf(" %lld", (long long)m->int64_keys[k]);
        }
      }
      printf("\n");
    }
#endif
#ifdef @NAME@_NUM_SYMBOLS
    for (int k = 0; k < NUM_SYMBOLS; ++k) {
      printf("sym ");
      printHex(@NAME@_symbols[k]);
      printf("\n");
    }
#endif
    return 0;
  }
  int64_t symbolDims[NUM_SYMBOLS + 1];
  if (NUM_SYMBOLS > 0) {
    if (argc < 2 || strncmp(argv[1], "--dims=", 7) != 0) {
      fprintf(stderr, "usage: %s --dims=D0,... SHAPE:IN... -- SHAPE:OUT...\n", argv[0]);
      return 2;
    }
    char *at = argv[1] + 7;
    for (int k = 0; k < NUM_SYMBOLS; ++k) {
      char *end;
      symbolDims[k] = strtoll(at, &end, 10);
      if (end == at || (k + 1 < NUM_SYMBOLS ? *end != ',' : *end != 0)) {
        fprintf(stderr, "bad --dims: %s\n", argv[1]);
        return 2;
      }
      at = end + 1;
    }
    ++argv;
    --argc;
  }
  if (argc != numInputs + numOutputs + 2 || strcmp(argv[numInputs + 1], "--") != 0) {
    fprintf(stderr, "usage: %s IN... -- OUT... (%d inputs, %d outputs)\n", argv[0],
            numInputs, numOutputs);
    return 2;
  }
  for (int i = 0; i < numInputs + numOutputs; ++i) {
    int isInput = i < numInputs;
    int slot = isInput ? 1 + i : numInputs + 2 + (i - numInputs);
    const @NAME@_tensor_info *t = isInput ? &@NAME@_inputs[i] : &@NAME@_outputs[i - numInputs];
    const char *path = splitShape(argv[slot], t->rank, &actualShape[i]);
    if (!path) {
      fprintf(stderr, "bad SHAPE:PATH argument %s\n", argv[slot]);
      return 2;
    }
    argv[slot] = (char *)path;
  }
  const size_t align = @NAME@_ARENA_ALIGN < 64 ? 64 : @NAME@_ARENA_ALIGN;
  // The tensors live until the process exits; static, so that LeakSanitizer
  // (harnesses built with -fsanitize=address) sees them as still referenced.
  static const void *inputs[@NAME@_NUM_INPUTS + 1];
  static void *outputs[@NAME@_NUM_OUTPUTS + 1];
  for (int i = 0; i < numInputs; ++i) {
#ifdef @NAME@_HAS_SEQUENCES
    if (inputKind(i) != 0) {
      const @NAME@_tensor_info *t = &@NAME@_inputs[i];
      char seqPath[4096];
      snprintf(seqPath, sizeof seqPath, "%s.seq", argv[1 + i]);
      FILE *sf = fopen(seqPath, "r");
      long long present = 0, count = 0;
      if (!sf || fscanf(sf, "%lld %lld", &present, &count) != 2 || count < 0 || count > 1000000) {
        fprintf(stderr, "cannot read %s\n", seqPath);
        return 2;
      }
      int64_t *dims = (int64_t *)allocate((size_t)(count * t->rank + 1) * sizeof(int64_t), align);
      size_t elements = 0;
      for (long long k = 0; k < count; ++k) {
        size_t product = 1;
        for (int32_t d = 0; d < t->rank; ++d) {
          long long v;
          if (fscanf(sf, "%lld", &v) != 1 || v < 0) {
            fprintf(stderr, "cannot read %s\n", seqPath);
            return 2;
          }
          dims[k * t->rank + d] = v;
          product *= (size_t)v;
        }
        elements += product;
      }
      fclose(sf);
      size_t bytes = elements * (size_t)t->elem_size;
      void *data = allocate(bytes, align);
      FILE *f = fopen(argv[1 + i], "rb");
      if (!data || !f || fread(data, 1, bytes, f) != bytes) {
        fprintf(stderr, "cannot read %s\n", argv[1 + i]);
        return 2;
      }
      fclose(f);
      inValues[i].data = present ? data : NULL;
      inValues[i].count = count;
      inValues[i].dims = dims;
      inValues[i].present = (int32_t)present;
      inputs[i] = &inValues[i];
      continue;
    }
#endif
    if (isString(&@NAME@_inputs[i])) {
      size_t count = numBytesOf(&@NAME@_inputs[i], actualShape[i]) / sizeof(const char *);
      inputs[i] = readStrings(argv[1 + i], count, align);
      if (!inputs[i]) {
        fprintf(stderr, "%s: input '%s' needs exactly %zu NUL-terminated strings\n",
                argv[1 + i], @NAME@_inputs[i].name, count);
        return 2;
      }
      continue;
    }
    size_t bytes = numBytesOf(&@NAME@_inputs[i], actualShape[i]);
    void *data = allocate(bytes, align);
    FILE *f = fopen(argv[1 + i], "rb");
    if (!data || !f) {
      fprintf(stderr, "cannot read %s\n", argv[1 + i]);
      return 2;
    }
    size_t got = fread(data, 1, bytes, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != bytes || extra != EOF) {
      fprintf(stderr, "%s: input '%s' needs exactly %zu bytes\n", argv[1 + i],
              @NAME@_inputs[i].name, bytes);
      return 2;
    }
    inputs[i] = data;
  }
#ifdef @NAME@_HAS_DATA_DEPENDENT_DIMS
  // Outputs whose dims the data decides: buffers of their capacity, and
  // where run() writes their dims (-1 until it does).
  static int64_t *outputDims[@NAME@_NUM_OUTPUTS + 1];
#endif
  for (int i = 0; i < numOutputs; ++i) {
    const @NAME@_tensor_info *t = &@NAME@_outputs[i];
#ifdef @NAME@_HAS_SEQUENCES
    if (outputKind(i) != 0) {
      const @NAME@_value_kind *k = &@NAME@_output_kinds[i];
      outValues[i].data = allocate((size_t)(k->capacity + 1) * (size_t)t->elem_size, align);
      outValues[i].dims =
          (int64_t *)allocate((size_t)(k->max_count * t->rank + 1) * sizeof(int64_t), align);
      outValues[i].count = -1;
      outValues[i].present = -1;
      if (!outValues[i].data || !outValues[i].dims) {
        fprintf(stderr, "out of memory\n");
        return 2;
      }
      outputs[i] = &outValues[i];
      continue;
    }
#endif
    size_t bytes = 0;
    int known = 1;
    for (int32_t d = 0; d < t->rank; ++d)
      known &= actualShape[numInputs + i] || t->shape[d] >= 0;
    if (known)
      bytes = numBytesOf(t, actualShape[numInputs + i]);
#ifdef @NAME@_HAS_DATA_DEPENDENT_DIMS
#ifdef @NAME@_NUM_SYMBOLS
    int64_t capacity = @NAME@_output_capacity(i, symbolDims);
#else
    int64_t capacity = @NAME@_output_capacity(i);
#endif
    if ((size_t)capacity * (size_t)t->elem_size > bytes)
      bytes = (size_t)capacity * (size_t)t->elem_size;
    outputDims[i] = (int64_t *)allocate((t->rank ? (size_t)t->rank : 1) * sizeof(int64_t), align);
    if (!outputDims[i]) {
      fprintf(stderr, "out of memory\n");
      return 2;
    }
    for (int32_t d = 0; d < t->rank; ++d)
      outputDims[i][d] = -1;
#endif
    outputs[i] = allocate(bytes, align);
    if (!outputs[i]) {
      fprintf(stderr, "out of memory\n");
      return 2;
    }
  }
#if defined(@NAME@_CUDA)
  // The CUDA target: the model on device 0, host copies in and out. No
  // driver or no GPU is exit status 4, which verify reports as such.
  @NAME@_cuda *cudaModel = NULL;
  int status = @NAME@_cuda_create(&cudaModel, 0);
  if (status == 20 || status == 21) {
    fprintf(stderr, "no CUDA GPU: %s\n", @NAME@_cuda_status_message(NULL, status));
    return 4;
  }
  if (status == 0) {
#ifdef @NAME@_NUM_SYMBOLS
    status = @NAME@_cuda_run_host_generic(cudaModel, symbolDims, inputs, outputs);
#else
    status = @NAME@_cuda_run_host_generic(cudaModel, inputs, outputs);
#endif
  }
  if (status != 0) {
    fprintf(stderr, "@NAME@_cuda returned status %d: %s\n", status,
            @NAME@_cuda_status_message(cudaModel, status));
    return 3;
  }
  @NAME@_cuda_destroy(cudaModel);
#else
#ifdef @NAME@_NUM_SYMBOLS
  const size_t arenaSize = @NAME@_arena_size_generic(symbolDims);
#else
  const size_t arenaSize = @NAME@_ARENA_SIZE;
#endif
  void *arena = allocate(arenaSize, @NAME@_ARENA_ALIGN);
  if (!arena) {
    fprintf(stderr, "cannot allocate the %zu-byte arena\n", arenaSize);
    return 2;
  }
#if defined(@NAME@_NUM_SYMBOLS) && defined(@NAME@_HAS_DATA_DEPENDENT_DIMS)
  int status = @NAME@_run_generic(arena, arenaSize, symbolDims, inputs, outputs, outputDims);
#elif defined(@NAME@_NUM_SYMBOLS)
  int status = @NAME@_run_generic(arena, arenaSize, symbolDims, inputs, outputs);
#elif defined(@NAME@_HAS_DATA_DEPENDENT_DIMS)
  int status = @NAME@_run_generic(arena, inputs, outputs, outputDims);
#else
  int status = @NAME@_run_generic(arena, inputs, outputs);
#endif
  if (status != 0) {
    fprintf(stderr, "@NAME@_run_generic returned status %d\n", status);
    return 3;
  }
#endif
  for (int i = 0; i < numOutputs; ++i) {
    const char *path = argv[numInputs + 2 + i];
#ifdef @NAME@_HAS_SEQUENCES
    if (outputKind(i) != 0) {
      const @NAME@_tensor_info *t = &@NAME@_outputs[i];
      const @NAME@_value *v = &outValues[i];
      int present = outputKind(i) == 1 ? 1 : v->present;
      int64_t count = outputKind(i) == 2 ? (present ? 1 : 0) : v->count;
      char seqPath[4096];
      snprintf(seqPath, sizeof seqPath, "%s.seq", path);
      FILE *sf = fopen(seqPath, "w");
      size_t elements = 0;
      if (sf)
        fprintf(sf, "%d %lld\n", present, (long long)count);
      for (int64_t k = 0; sf && k < count && k <= @NAME@_output_kinds[i].max_count; ++k) {
        size_t product = 1;
        for (int32_t d = 0; d < t->rank; ++d) {
          int64_t dim = outputKind(i) == 2 ? t->shape[d] : v->dims[k * t->rank + d];
          fprintf(sf, "%lld ", (long long)dim);
          /* -1: a dim an element of a smaller rank lacks (ABI.md). */
          product *= dim < 0 ? 1 : (size_t)dim;
        }
        fprintf(sf, "\n");
        elements += product;
      }
      if (elements > (size_t)@NAME@_output_kinds[i].capacity)
        elements = 0;
      FILE *f = fopen(path, "wb");
      size_t bytes = elements * (size_t)t->elem_size;
      if (!sf || fclose(sf) != 0 || !f || fwrite(v->data, 1, bytes, f) != bytes || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 2;
      }
      continue;
    }
#endif
    const int64_t *shape = actualShape[numInputs + i];
#ifdef @NAME@_HAS_DATA_DEPENDENT_DIMS
    // The dims run() wrote go to PATH.dims, for verify to compare.
    if (@NAME@_outputs[i].rank > 0 && outputDims[i][0] >= 0) {
      shape = outputDims[i];
      char dimsPath[4096];
      snprintf(dimsPath, sizeof dimsPath, "%s.dims", path);
      FILE *df = fopen(dimsPath, "w");
      for (int32_t d = 0; df && d < @NAME@_outputs[i].rank; ++d)
        fprintf(df, "%lld\n", (long long)shape[d]);
      if (!df || fclose(df) != 0) {
        fprintf(stderr, "cannot write %s\n", dimsPath);
        return 2;
      }
    }
#endif
    size_t bytes = numBytesOf(&@NAME@_outputs[i], shape);
    FILE *f = fopen(path, "wb");
    if (f && isString(&@NAME@_outputs[i])) {
      const char *const *strings = (const char *const *)outputs[i];
      int ok = 1;
      for (size_t k = 0; ok && k < bytes / sizeof(const char *); ++k) {
        if (!strings[k]) {
          fprintf(stderr, "output '%s' has a null string at element %zu\n",
                  @NAME@_outputs[i].name, k);
          return 2;
        }
        size_t length = strlen(strings[k]) + 1;
        ok = fwrite(strings[k], 1, length, f) == length;
      }
      if (ok && fclose(f) == 0)
        continue;
      f = NULL;
    }
    if (!f || fwrite(outputs[i], 1, bytes, f) != bytes || fclose(f) != 0) {
      fprintf(stderr, "cannot write %s\n", path);
      return 2;
    }
  }
#ifndef @NAME@_CUDA
  // Only now: the strings of string outputs may live in the arena.
  free(arena);
#endif
  return 0;
}
)";

std::string instantiateHarness(StringRef name) {
  std::string text = harnessTemplate;
  for (size_t pos; (pos = text.find("@NAME@")) != std::string::npos;)
    text.replace(pos, 6, name.str());
  return text;
}

/// One line of `run --describe`.
struct TensorInfo {
  std::string name;
  const DType *dtype = nullptr;
  std::string dtypeName;
  int32_t elemSize = 0;
  SmallVector<int64_t> shape;

  uint64_t numElements() const {
    uint64_t n = 1;
    for (int64_t dim : shape)
      n *= dim;
    return n;
  }
};

struct TensorTable {
  SmallVector<TensorInfo> inputs, outputs;
  /// Per input/output: 0 a tensor, 1 a sequence, 2 an optional tensor, 3 an
  /// optional sequence (the harness's `kind` lines; all 0 without them).
  SmallVector<int> inputKinds, outputKinds;
  /// The model's symbolic dims, in the order the generated code takes them.
  SmallVector<std::string> symbols;
  /// Per output, the keys of the maps it holds (ZipMap's sequence of maps as
  /// [N, K] values); none for a plain tensor.
  SmallVector<std::optional<MapKeys>> outputMapKeys;
  /// Per input, 0 for a tensor, 1 for a map's keys, 2 for its values (the
  /// entry after its keys), and the map's length's index among the symbols.
  SmallVector<std::pair<int, int>> inputMaps;
  int mapPart(size_t i) const { return i < inputMaps.size() ? inputMaps[i].first : 0; }
  /// Per model input, the symbol of each dim ("" when it has a size):
  /// which symbol a symbolic dim is.
  std::vector<std::vector<std::string>> dimParams;
};

/// The line of a child's stderr that says what went wrong, trimmed: the
/// first with "error:" (a compiler's diagnostic comes after "In file
/// included from" lines), else the first non-empty one.
std::string errorLine(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return "";
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (StringRef line : lines)
    if (line.contains("error:"))
      return line.trim().str();
  for (StringRef line : lines)
    if (!line.trim().empty())
      return line.trim().str();
  return "";
}

/// Runs `args` with stdout and stderr sent to files in `workDir`; an error
/// (with the child's first stderr line) when it fails to start, crashes or
/// exits non-zero.
Error runProgram(VerifyStage stage, StringRef what, ArrayRef<std::string> args,
                 StringRef stdoutPath, StringRef stderrPath) {
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {StringRef(""), stdoutPath, stderrPath};
  std::string errMsg;
  bool executionFailed = false;
  int rc = sys::ExecuteAndWait(args[0], argRefs, std::nullopt, redirects,
                               /*SecondsToWait=*/0, /*MemoryLimit=*/0, &errMsg,
                               &executionFailed);
  if (executionFailed)
    return makeError(stage, "cannot run " + args[0] + ": " + errMsg);
  if (rc == 0)
    return Error::success();
  std::string detail = errorLine(stderrPath);
  if (rc < 0)
    return makeError(stage, what + " crashed (" + errMsg + ")" +
                                (detail.empty() ? "" : ": " + detail));
  return makeError(stage, what + " failed with exit status " + Twine(rc) +
                              (detail.empty() ? "" : ": " + detail));
}

/// `runCommand`: the harness binary, after the --run-with emulator if any.
Expected<TensorTable> describeHarness(StringRef workDir, ArrayRef<std::string> runCommand) {
  SmallString<256> outPath(workDir), errPath(workDir);
  sys::path::append(outPath, "describe.txt");
  sys::path::append(errPath, "describe.err");
  SmallVector<std::string> command(runCommand.begin(), runCommand.end());
  command.push_back("--describe");
  if (auto err = runProgram(VerifyStage::Run, "the harness (--describe)", command, outPath,
                            errPath))
    return std::move(err);
  auto buffer = MemoryBuffer::getFile(outPath);
  if (!buffer)
    return makeError(VerifyStage::Run, "cannot read " + outPath);
  TensorTable table;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    auto bad = [&] {
      return makeError(VerifyStage::Run, "cannot parse the tensor table line '" + line + "'");
    };
    TensorInfo info;
    auto [kind, rest] = line.split(' ');
    // Names come as hex digits of their bytes.
    auto unhex = [](StringRef hex, std::string &out) {
      return hex.size() % 2 == 0 && llvm::all_of(hex, llvm::isHexDigit) &&
             (out = llvm::fromHex(hex), true);
    };
    if (kind == "kind") {
      SmallVector<StringRef> words;
      rest.split(words, ' ', -1, /*KeepEmpty=*/false);
      unsigned index;
      int value;
      if (words.size() != 4 || words[1].getAsInteger(10, index) ||
          words[2].getAsInteger(10, value) || (words[0] != "in" && words[0] != "out"))
        return bad();
      auto &kinds = words[0] == "in" ? table.inputKinds : table.outputKinds;
      if (kinds.size() <= index)
        kinds.resize(index + 1, 0);
      kinds[index] = value;
      continue;
    }
    if (kind == "mapin") {
      SmallVector<StringRef> words;
      rest.split(words, ' ', -1, /*KeepEmpty=*/false);
      unsigned index;
      int part, symbol;
      if (words.size() != 3 || words[0].getAsInteger(10, index) ||
          words[1].getAsInteger(10, part) || words[2].getAsInteger(10, symbol) || part < 1 ||
          part > 2 || symbol < 0)
        return bad();
      if (table.inputMaps.size() <= index)
        table.inputMaps.resize(index + 1, {0, -1});
      table.inputMaps[index] = {part, symbol};
      continue;
    }
    if (kind == "keys") {
      SmallVector<StringRef> words;
      rest.split(words, ' ', -1, /*KeepEmpty=*/false);
      unsigned index, count;
      if (words.size() < 3 || words[0].getAsInteger(10, index) ||
          words[2].getAsInteger(10, count) || words.size() != 3 + size_t(count) ||
          (words[1] != "int64" && words[1] != "string"))
        return bad();
      MapKeys keys;
      keys.strings = words[1] == "string";
      for (StringRef word : ArrayRef(words).drop_front(3)) {
        std::string text;
        int64_t value;
        if (keys.strings ? !word.consume_front("x") || !unhex(word, text)
                         : word.getAsInteger(10, value))
          return bad();
        if (keys.strings)
          keys.texts.push_back(std::move(text));
        else
          keys.ints.push_back(value);
      }
      if (table.outputMapKeys.size() <= index)
        table.outputMapKeys.resize(index + 1);
      table.outputMapKeys[index] = std::move(keys);
      continue;
    }
    if (kind == "sym") {
      std::string name;
      if (!unhex(rest, name))
        return bad();
      table.symbols.push_back(std::move(name));
      continue;
    }
    auto [dtypeName, rest1] = rest.split(' ');
    auto [elemSize, rest2] = rest1.split(' ');
    auto [rankText, rest3] = rest2.split(' ');
    unsigned rank;
    if (elemSize.getAsInteger(10, info.elemSize) || rankText.getAsInteger(10, rank))
      return bad();
    for (unsigned i = 0; i < rank; ++i) {
      auto [dimText, tail] = rest3.split(' ');
      int64_t dim;
      if (dimText.getAsInteger(10, dim))
        return bad();
      info.shape.push_back(dim);
      rest3 = tail;
    }
    if (!unhex(rest3, info.name))
      return bad();
    info.dtypeName = dtypeName.str();
    info.dtype = lookupDType(dtypeName);
    if (kind == "in")
      table.inputs.push_back(std::move(info));
    else if (kind == "out")
      table.outputs.push_back(std::move(info));
    else
      return bad();
  }
  return table;
}

/// `spec` split at spaces, its first word looked up on PATH unless it is a
/// path; an error naming `what` when it is not found.
Expected<SmallVector<std::string>> resolveCommand(StringRef spec, VerifyStage stage,
                                                  StringRef what) {
  SmallVector<StringRef> words;
  spec.split(words, ' ', -1, /*KeepEmpty=*/false);
  SmallVector<std::string> command;
  for (StringRef word : words)
    command.push_back(word.str());
  if (!command.empty() && !sys::path::has_parent_path(command[0])) {
    auto path = sys::findProgramByName(command[0]);
    if (!path)
      return makeError(stage, what + " '" + command[0] + "' not found");
    command[0] = *path;
  }
  return command;
}

/// The compiler and its leading arguments: --cxx, else $CXX (which may
/// carry arguments, e.g. "ccache g++"), else c++.
Expected<SmallVector<std::string>> findCompiler(StringRef cxxOption) {
  std::string spec = cxxOption.str();
  if (spec.empty())
    if (std::optional<std::string> env = sys::Process::GetEnv("CXX"))
      spec = *env;
  if (StringRef(spec).trim().empty())
    spec = "c++";
  return resolveCommand(spec, VerifyStage::Build, "C++ compiler");
}

/// The --run-with emulator and its leading arguments (e.g. "qemu-aarch64 -L
/// /usr/aarch64-linux-gnu"); empty when there is none.
Expected<SmallVector<std::string>> findRunner(StringRef spec) {
  return resolveCommand(spec, VerifyStage::Run, "--run-with program");
}

/// Finds the model name of a folder written by `onnxcc compile`: the NAME
/// for which both NAME.h and NAME.cpp are there.
Expected<std::string> findGeneratedName(StringRef dir) {
  std::error_code ec;
  SmallVector<std::string> names;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    StringRef file = sys::path::filename(it->path());
    if (!file.ends_with(".cpp") || file == "main.cpp")
      continue;
    StringRef name = file.drop_back(4);
    SmallString<256> header(dir);
    sys::path::append(header, name + ".h");
    if (sys::fs::exists(header))
      names.push_back(name.str());
  }
  if (ec)
    return makeError(VerifyStage::Build, "cannot list " + dir + ": " + ec.message());
  if (names.size() != 1)
    return makeError(VerifyStage::Build,
                     dir + ": expected one generated NAME.h/NAME.cpp pair, found " +
                         Twine(names.size()));
  return names.front();
}

/// Copies the files of a folder written by `onnxcc compile` into the work
/// folder (the harness is built there, never in the given folder) and
/// returns the model name.
Expected<std::string> copyGenerated(StringRef fromDir, StringRef workDir) {
  auto name = findGeneratedName(fromDir);
  if (!name)
    return name.takeError();
  for (std::string file : {*name + ".h", *name + ".cpp", *name + ".cpp.weights",
                           std::string("onnxcc_rt.h"), std::string("onnxcc_kernels.h"),
                           std::string("onnxcc_kernels_winograd.h"),
                           std::string("onnxcc_kernels_rnn.h"),
                           std::string("onnxcc_kernels_fft.h"),
                           std::string("onnxcc_kernels_int8.h"),
                           std::string("onnxcc_threads.h"), std::string("onnxcc_ml.h")}) {
    SmallString<256> from(fromDir), to(workDir);
    sys::path::append(from, file);
    sys::path::append(to, file);
    if (!sys::fs::exists(from))
      continue;
    if (std::error_code ec = sys::fs::copy_file(from, to))
      return makeError(VerifyStage::Build, "cannot copy " + from + ": " + ec.message());
  }
  return name;
}

/// The model's inputs that are not initializers, in order: what the
/// generated code takes and the datasets' input_K.pb files give.
Expected<std::vector<::onnx::ValueInfoProto>> modelInputs(StringRef modelPath) {
  auto model = loadModel(modelPath);
  if (!model)
    return makeError(VerifyStage::Compile, toString(model.takeError()));
  const ::onnx::GraphProto &graph = model->proto->graph();
  StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  std::vector<::onnx::ValueInfoProto> inputs;
  for (const auto &input : graph.input())
    if (!initializers.contains(input.name()))
      inputs.push_back(input);
  return inputs;
}

/// Shapes for inputs with symbolic or unknown dims, taken from the first
/// dataset: the generated code has static shapes.
Expected<std::vector<std::pair<std::string, std::vector<int64_t>>>>
shapesFromDataset(StringRef modelPath, const Dataset &dataset) {
  auto inputs = modelInputs(modelPath);
  if (!inputs)
    return inputs.takeError();
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  for (auto [index, input] : llvm::enumerate(*inputs)) {
    if (!input.type().has_tensor_type())
      continue;
    const auto &tensorType = input.type().tensor_type();
    bool isStatic = tensorType.has_shape() &&
                    llvm::all_of(tensorType.shape().dim(), [](const auto &dim) {
                      return dim.has_dim_value() && dim.dim_value() >= 0;
                    });
    if (isStatic || index >= dataset.inputs.size())
      continue;
    auto tensor = readTensor(dataset.inputs[index]);
    if (!tensor)
      return tensor.takeError();
    shapes.push_back({input.name(), {tensor->shape.begin(), tensor->shape.end()}});
  }
  return shapes;
}

/// Element shapes of the sequence inputs (and optional sequences that hold
/// one) in the first dataset, for --sequence; optional tensors' shapes go
/// to `shapes` when the model does not fix them.
Expected<std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>>>
sequencesFromDataset(StringRef modelPath, const Dataset &dataset,
                     std::vector<std::pair<std::string, std::vector<int64_t>>> &shapes) {
  auto inputs = modelInputs(modelPath);
  if (!inputs)
    return inputs.takeError();
  std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>> sequences;
  for (auto [index, input] : llvm::enumerate(*inputs)) {
    const auto &type = input.type();
    int kind = type.has_sequence_type() ? 1 : 0;
    if (type.has_optional_type())
      kind = type.optional_type().elem_type().has_sequence_type() ? 3 : 2;
    if (!kind || index >= dataset.inputs.size())
      continue;
    auto value = readBoundaryValue(dataset.inputs[index], kind);
    if (!value)
      return value.takeError();
    if (!value->present)
      continue;
    if (kind == 2) {
      const Tensor &t = value->elements.front();
      shapes.push_back({input.name(), {t.shape.begin(), t.shape.end()}});
      continue;
    }
    std::vector<std::vector<int64_t>> elementShapes;
    for (const Tensor &t : value->elements)
      elementShapes.push_back({t.shape.begin(), t.shape.end()});
    sequences.push_back({input.name(), std::move(elementShapes)});
  }
  return sequences;
}

/// The symbols of the dims of the model's (non-initializer) inputs, as the
/// compiled code names them (inputDimSymbols), "" where a dim has a size.
Expected<std::vector<std::vector<std::string>>> inputDimParams(StringRef modelPath) {
  auto model = loadModel(modelPath);
  if (!model)
    return makeError(VerifyStage::Compile, toString(model.takeError()));
  return inputDimSymbols(model->proto->graph());
}

Error writeFile(StringRef path, StringRef contents, VerifyStage stage) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError(stage, "cannot write " + path + ": " + ec.message());
  os << contents;
  os.close();
  if (os.has_error())
    return makeError(stage, "cannot write " + path + ": " + os.error().message());
  return Error::success();
}

} // namespace

std::string precompiledHeader(StringRef dir, StringRef name, StringRef text,
                              ArrayRef<std::string> compileCommand) {
  SmallString<256> header(dir), gch(dir);
  sys::path::append(header, name);
  sys::path::append(gch, name + ".gch");
  if (sys::fs::exists(gch))
    return std::string(header);
  // Concurrent builds each write their own files and rename them into
  // place: a reader sees a whole header and a whole .gch or none.
  std::string tag = "." + Twine(sys::Process::getProcessId()).str() + ".tmp";
  std::string tmpHeader = (header + tag).str(), tmpGch = (gch + tag).str();
  std::string log = (dir + "/build" + tag).str();
  if (Error err = writeFile(tmpHeader, text, VerifyStage::Build)) {
    consumeError(std::move(err));
    return "";
  }
  if (sys::fs::rename(tmpHeader, header))
    return "";
  SmallVector<std::string> command(compileCommand.begin(), compileCommand.end());
  command.append({"-x", "c++-header", std::string(header), "-o", tmpGch});
  if (Error err = runProgram(VerifyStage::Build, ("the precompilation of " + name).str(),
                             command, log, log)) {
    consumeError(std::move(err));
    sys::fs::remove(tmpGch);
    return "";
  }
  sys::fs::remove(log);
  if (sys::fs::rename(tmpGch, gch))
    return "";
  return std::string(header);
}

namespace {

/// With a PCH folder (--pch-cache): a copy of DIR/onnxcc_rt.h in a subfolder
/// named after a hash of the header, the compiler and the flags, next to its
/// precompiled form (see precompiledHeader), made on first use. A build that
/// force-includes it parses the header once per folder instead of once per
/// build (about 0.3 of the 0.7 s a small harness takes at -O1). Empty when
/// there is no header to share or precompiling it failed (the build then
/// includes it as usual and reports any error itself); an error when the
/// folder cannot be made.
Expected<std::string> precompiledRuntimeHeader(StringRef pchDir, StringRef workDir,
                                               ArrayRef<std::string> compileCommand) {
  SmallString<256> source(workDir);
  sys::path::append(source, "onnxcc_rt.h");
  auto header = MemoryBuffer::getFile(source, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!header)
    return "";
  std::string key = (*header)->getBuffer().str();
  for (const std::string &arg : compileCommand)
    key += "\n" + arg;
  SmallString<256> dir(pchDir);
  sys::path::append(dir, utohexstr(xxh3_64bits(key)));
  if (std::error_code ec = sys::fs::create_directories(dir))
    return makeError(VerifyStage::Build,
                     Twine("--pch-cache: cannot create ") + dir + ": " + ec.message());
  return precompiledHeader(dir, "onnxcc_rt.h", (*header)->getBuffer(), compileCommand);
}

/// Builds DIR/run from the generated model and `harnessSource` (written to
/// DIR/main.cpp) unless DIR/run is already there and was built from the same
/// sources with the same command (a kept folder is a build cache). `cxxFlags`
/// is split at spaces ("-O2", "-O3 -march=native"). Sets `*built` to whether
/// the compiler ran. `pchDir`: see precompiledRuntimeHeader.
Error buildHarness(StringRef workDir, StringRef name, StringRef harnessSource, StringRef cxx,
                   StringRef cxxFlags, std::string &runPath, bool *built = nullptr,
                   StringRef pchDir = "") {
  if (built)
    *built = false;
  auto compiler = findCompiler(cxx);
  if (!compiler)
    return compiler.takeError();
  auto inDir = [&](const Twine &file) {
    SmallString<256> path(workDir);
    sys::path::append(path, file);
    return std::string(path);
  };
  runPath = inDir("run");
  if (auto err = writeFile(inDir("main.cpp"), harnessSource, VerifyStage::Build))
    return err;

  SmallVector<std::string> command(*compiler);
  for (const char *arg : {"-std=c++17"})
    command.push_back(arg);
  SmallVector<StringRef> flags;
  cxxFlags.split(flags, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef flag : flags)
    command.push_back(flag.str());
  if (!pchDir.empty()) {
    auto shared = precompiledRuntimeHeader(pchDir, workDir, command);
    if (!shared)
      return shared.takeError();
    if (!shared->empty())
      command.append({"-include", *shared});
  }
  command.push_back(inDir(name + ".cpp"));
  command.push_back(inDir("main.cpp"));
  command.append({"-o", runPath, "-lm", "-lpthread", "-ldl"});

  // The stamp hashes the command and every input of the build.
  std::string stampText;
  for (const std::string &arg : command)
    stampText += arg + "\n";
  for (std::string file : {inDir(name + ".h"), inDir(name + ".cpp"),
                           inDir(name + ".cpp.weights"), inDir("onnxcc_rt.h"),
                           inDir("onnxcc_kernels.h"), inDir("onnxcc_kernels_winograd.h"),
                           inDir("onnxcc_kernels_rnn.h"),
                           inDir("onnxcc_kernels_fft.h"), inDir("onnxcc_kernels_int8.h"),
                           inDir("onnxcc_threads.h"), inDir("onnxcc_ml.h"),
                           inDir("main.cpp")}) {
    auto buffer = MemoryBuffer::getFile(file, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
    stampText += file + " " +
                 (buffer ? utohexstr(xxh3_64bits((*buffer)->getBuffer())) : "absent") + "\n";
  }
  std::string stampPath = inDir("run.stamp");
  if (sys::fs::exists(runPath)) {
    auto old = MemoryBuffer::getFile(stampPath);
    if (old && (*old)->getBuffer() == stampText)
      return Error::success();
  }
  sys::fs::remove(stampPath);
  if (auto err = runProgram(VerifyStage::Build, "the C++ build", command,
                            inDir("build.log"), inDir("build.log")))
    return err;
  if (built)
    *built = true;
  return writeFile(stampPath, stampText, VerifyStage::Build);
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

struct Comparison {
  double maxAbs = 0, maxRel = 0;
  uint64_t mismatches = 0;
  uint64_t worstIndex = 0;
  double worstActual = 0, worstExpected = 0;
  double worstExcess = 0; ///< how far past its tolerance the worst one is
};

bool isExactKind(const DType &dtype) {
  return dtype.kind == DType::Signed || dtype.kind == DType::Unsigned ||
         dtype.kind == DType::Bool;
}

/// The ONNX backend rule per element: |a - b| <= atol + rtol * |b|, NaN
/// equal to NaN, infinities equal to themselves; integers and bools exact.
Comparison compare(const DType &dtype, StringRef actual, StringRef expected,
                   double atol, double rtol) {
  Comparison result;
  bool exact = isExactKind(dtype);
  size_t count = expected.size() / dtype.elemSize;
  if (dtype.kind == DType::Complex)
    count *= 2;
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < count; ++i) {
    double a = loadElement(dtype, actual.data(), i);
    double b = loadElement(dtype, expected.data(), i);
    double absDiff, relDiff;
    bool ok;
    if (exact) {
      size_t size = dtype.elemSize;
      ok = std::memcmp(actual.data() + i * size, expected.data() + i * size, size) == 0;
      absDiff = ok ? 0 : std::fabs(a - b);
      relDiff = ok ? 0 : (b != 0 ? absDiff / std::fabs(b) : inf);
    } else if (dtype.kind == DType::SmallFloat) {
      // float8/float4 conversions must be bit-exact: the same pattern, or
      // NaN for NaN (ONNX keeps a NaN's sign where the type has one).
      ok = actual[i] == expected[i] || (std::isnan(a) && std::isnan(b));
      absDiff = ok ? 0 : (std::isnan(a) || std::isnan(b) ? inf : std::fabs(a - b));
      relDiff = ok ? 0 : (b != 0 && !std::isnan(absDiff) ? absDiff / std::fabs(b) : inf);
    } else if (std::isnan(a) || std::isnan(b)) {
      ok = std::isnan(a) && std::isnan(b);
      absDiff = relDiff = ok ? 0 : inf;
    } else if (std::isinf(a) || std::isinf(b)) {
      ok = a == b;
      absDiff = relDiff = ok ? 0 : inf;
    } else {
      absDiff = std::fabs(a - b);
      relDiff = b != 0 ? absDiff / std::fabs(b) : (absDiff == 0 ? 0 : inf);
      ok = absDiff <= atol + rtol * std::fabs(b);
    }
    result.maxAbs = std::max(result.maxAbs, absDiff);
    result.maxRel = std::max(result.maxRel, relDiff);
    if (ok)
      continue;
    ++result.mismatches;
    // Exact types have no tolerance: the worst is the largest difference.
    double excess = exact ? absDiff : absDiff - (atol + rtol * std::fabs(b));
    if (std::isnan(excess))
      excess = inf;
    if (result.mismatches == 1 || excess > result.worstExcess) {
      result.worstExcess = excess;
      result.worstIndex = dtype.kind == DType::Complex ? i / 2 : i;
      result.worstActual = a;
      result.worstExpected = b;
    }
  }
  return result;
}

std::string formatNumber(double value) {
  std::string text;
  raw_string_ostream os(text);
  os << format("%.6g", value);
  return text;
}

/// Compares a sequence or optional output (the harness's PATH and
/// PATH.seq) with the reference at `expectedPath`: the present flag, the
/// element count, each element's dims, then the values; prints one line.
Expected<bool> compareBoundaryValue(StringRef expectedPath, int kind, const TensorInfo &info,
                                    StringRef actualPath, const VerifyOptions &options,
                                    raw_ostream &os) {
  auto expected = readBoundaryValue(expectedPath, kind);
  if (!expected)
    return expected.takeError();
  auto seq = MemoryBuffer::getFile(actualPath + ".seq");
  auto data = MemoryBuffer::getFile(actualPath, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
  if (!seq || !data)
    return makeError(VerifyStage::Run, "the harness wrote no output '" + info.name + "'");
  SmallVector<StringRef> words;
  (*seq)->getBuffer().split(words, ' ', -1, /*KeepEmpty=*/false);
  SmallVector<int64_t> numbers;
  for (StringRef w : words) {
    SmallVector<StringRef> parts;
    w.split(parts, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef part : parts) {
      int64_t v;
      if (part.trim().getAsInteger(10, v))
        return makeError(VerifyStage::Run, "cannot parse " + actualPath + ".seq");
      numbers.push_back(v);
    }
  }
  if (numbers.size() < 2)
    return makeError(VerifyStage::Run, "cannot parse " + actualPath + ".seq");
  bool present = numbers[0] != 0;
  int64_t count = numbers[1];
  if (present != expected->present) {
    os << "FAIL: " << (present ? "present" : "absent") << ", expected "
       << (expected->present ? "present" : "absent") << "\n";
    return false;
  }
  if (!present) {
    os << "absent as expected, PASS\n";
    return true;
  }
  if (count != static_cast<int64_t>(expected->elements.size())) {
    os << "FAIL: " << count << " elements, expected " << expected->elements.size() << "\n";
    return false;
  }
  size_t rank = info.shape.size();
  if (numbers.size() != 2 + count * rank)
    return makeError(VerifyStage::Run, actualPath + ".seq: " + Twine(numbers.size() - 2) +
                                           " dims for " + Twine(count) + " elements of rank " +
                                           Twine(rank));
  std::string expectedBytes;
  const DType *dtype = lookupDType(info.dtypeName);
  for (auto [k, t] : llvm::enumerate(expected->elements)) {
    ArrayRef<int64_t> got = ArrayRef<int64_t>(numbers).slice(2 + k * rank, rank);
    // An element of a smaller rank than the sequence's largest: its dims
    // end in -1 for each dim it lacks.
    while (!got.empty() && got.back() == -1)
      got = got.drop_back();
    if (t.dtype->name != info.dtypeName) {
      os << "FAIL: dtype " << info.dtypeName << " differs from expected " << t.dtype->name
         << " (element " << k << ")\n";
      return false;
    }
    if (got != ArrayRef<int64_t>(t.shape)) {
      os << "FAIL: element " << k << " has dims " << formatShape(got) << ", expected "
         << formatShape(t.shape) << "\n";
      return false;
    }
    expectedBytes += t.bytes;
  }
  if (!dtype || dtype->kind == DType::String)
    return makeError(VerifyStage::Run, "output '" + info.name + "': dtype " + info.dtypeName +
                                           " in a sequence, which verify cannot compare");
  if ((*data)->getBufferSize() != expectedBytes.size())
    return makeError(VerifyStage::Run, "the harness wrote " + Twine((*data)->getBufferSize()) +
                                           " bytes for output '" + info.name + "', expected " +
                                           Twine(expectedBytes.size()));
  Comparison result = compare(*dtype, (*data)->getBuffer(), expectedBytes, options.atol,
                              options.rtol);
  os << count << (kind == 2 ? " tensor" : " elements") << ", dims equal, max abs diff "
     << formatNumber(result.maxAbs) << ", max rel diff " << formatNumber(result.maxRel) << ", ";
  if (!result.mismatches) {
    os << "PASS\n";
    return true;
  }
  os << "FAIL (" << result.mismatches << " values out of tolerance; worst at element "
     << result.worstIndex << " of all elements together: got "
     << formatNumber(result.worstActual) << ", expected " << formatNumber(result.worstExpected)
     << ")\n";
  return false;
}

/// Runs one dataset; prints a line per output and returns whether all passed.
Expected<bool> verifyDataset(const Dataset &dataset, const TensorTable &table,
                             StringRef workDir, ArrayRef<std::string> runCommand,
                             const VerifyOptions &options, raw_ostream &os) {
  auto inDir = [&](const Twine &file) {
    SmallString<256> path(workDir);
    sys::path::append(path, file);
    return std::string(path);
  };
  // A map input is two entries of the table (keys, values), one file.
  size_t modelInputs = 0;
  for (size_t i = 0; i < table.inputs.size(); ++i)
    modelInputs += table.mapPart(i) != 2;
  if (dataset.inputs.size() != modelInputs)
    return makeError(VerifyStage::Dataset,
                     dataset.name + " has " + Twine(dataset.inputs.size()) +
                         " inputs, the model " + Twine(modelInputs));
  if (dataset.outputs.size() != table.outputs.size())
    return makeError(VerifyStage::Dataset,
                     dataset.name + " has " + Twine(dataset.outputs.size()) +
                         " outputs, the model " + Twine(table.outputs.size()));

  bool symbolic = !table.symbols.empty();
  // An expected output: a tensor, or the values of a sequence of maps.
  std::vector<std::string> mapMismatch(table.outputs.size());
  auto readExpected = [&](size_t i) -> Expected<Tensor> {
    if (i < table.outputMapKeys.size() && table.outputMapKeys[i]) {
      auto maps = readMapSequence(dataset.outputs[i], *table.outputMapKeys[i],
                                  table.outputs[i].shape.size());
      if (!maps)
        return maps.takeError();
      mapMismatch[i] = maps->mismatch;
      return std::move(maps->values);
    }
    return readTensor(dataset.outputs[i]);
  };
  // Symbolic models take the dims of this dataset and every tensor's shape.
  SmallVector<std::optional<int64_t>> symbolValues(table.symbols.size());
  auto shapeArg = [](ArrayRef<int64_t> shape, StringRef path) {
    std::string text;
    for (auto [k, dim] : llvm::enumerate(shape))
      text += (k ? "x" : "") + std::to_string(dim);
    return text + ":" + path.str();
  };
  /// Whether `actual` fits `declared` (-1 matches any dim).
  auto fits = [](ArrayRef<int64_t> actual, ArrayRef<int64_t> declared) {
    if (actual.size() != declared.size())
      return false;
    for (auto [a, d] : llvm::zip(actual, declared))
      if (d >= 0 && a != d)
        return false;
    return true;
  };

  SmallVector<std::string> command(runCommand.begin(), runCommand.end());
  const size_t firstArg = command.size();
  auto inputKind = [&](size_t i) { return i < table.inputKinds.size() ? table.inputKinds[i] : 0; };
  auto outputKind = [&](size_t i) {
    return i < table.outputKinds.size() ? table.outputKinds[i] : 0;
  };
  for (size_t i = 0, j = 0; i < table.inputs.size(); ++i) {
    const TensorInfo &info = table.inputs[i];
    if (table.mapPart(i) == 2)
      continue; // written with its keys
    const size_t modelIndex = j;
    const std::string &path = dataset.inputs[j++];
    if (table.mapPart(i) == 1) {
      // A MapProto: its keys and values as the two entries, their length
      // the map's symbol.
      auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
      if (!buffer)
        return makeError(VerifyStage::Dataset,
                         "cannot read " + path + ": " + buffer.getError().message());
      auto map = parseMapProto((*buffer)->getBuffer(), path);
      if (!map)
        return map.takeError();
      if (i + 1 >= table.inputs.size() || table.mapPart(i + 1) != 2)
        return makeError(VerifyStage::Run,
                         "input '" + info.name + "': the harness gives a map's keys, no values");
      bool stringKeys = info.dtypeName == "string";
      int64_t n = map->ints.size() + map->texts.size();
      const TensorInfo &valuesInfo = table.inputs[i + 1];
      if (n && (stringKeys ? map->texts.empty() : map->ints.empty()))
        return makeError(VerifyStage::Dataset, dataset.name + "/" + sys::path::filename(path) +
                                                   ": the map's keys are not " +
                                                   info.dtypeName + " as input '" + info.name +
                                                   "' takes");
      if (n && map->values.dtype->name != valuesInfo.dtypeName)
        return makeError(VerifyStage::Dataset,
                         dataset.name + "/" + sys::path::filename(path) + ": the map's values are " +
                             map->values.dtype->name + ", input '" + info.name + "' takes " +
                             valuesInfo.dtypeName);
      std::string keyBytes;
      if (stringKeys)
        for (const std::string &t : map->texts)
          keyBytes += t + '\0';
      else
        keyBytes.assign(reinterpret_cast<const char *>(map->ints.data()), n * sizeof(int64_t));
      std::string keysPath = inDir("in" + Twine(i) + ".bin");
      std::string valuesPath = inDir("in" + Twine(i + 1) + ".bin");
      if (auto err = writeFile(keysPath, keyBytes, VerifyStage::Run))
        return std::move(err);
      if (auto err = writeFile(valuesPath, map->values.bytes, VerifyStage::Run))
        return std::move(err);
      int symbol = table.inputMaps[i].second;
      if (symbol >= static_cast<int>(symbolValues.size()))
        return makeError(VerifyStage::Run, "input '" + info.name + "': no such symbol");
      symbolValues[symbol] = n;
      command.push_back(shapeArg({n}, keysPath));
      command.push_back(shapeArg({n}, valuesPath));
      continue;
    }
    if (int kind = inputKind(i)) {
      // A sequence or optional: its elements' bytes, and PATH.seq.
      auto value = readBoundaryValue(path, kind);
      if (!value)
        return value.takeError();
      std::string bytes, seq;
      seq = std::to_string(value->present) + " " + std::to_string(value->elements.size()) + "\n";
      for (const Tensor &t : value->elements) {
        if (t.dtype->name != info.dtypeName)
          return makeError(VerifyStage::Dataset,
                           dataset.name + "/" + sys::path::filename(path) + ": " +
                               t.dtype->name + ", but input '" + info.name + "' is " +
                               info.dtypeName);
        if (t.shape.size() != info.shape.size())
          return makeError(VerifyStage::Dataset,
                           dataset.name + "/" + sys::path::filename(path) + ": an element of rank " +
                               Twine(t.shape.size()) + ", but input '" + info.name +
                               "' has rank " + Twine(info.shape.size()));
        bytes += t.bytes;
        for (int64_t d : t.shape)
          seq += std::to_string(d) + " ";
        seq += "\n";
      }
      std::string rawPath = inDir("in" + Twine(i) + ".bin");
      if (auto err = writeFile(rawPath, bytes, VerifyStage::Run))
        return std::move(err);
      if (auto err = writeFile(rawPath + ".seq", seq, VerifyStage::Run))
        return std::move(err);
      command.push_back(rawPath);
      continue;
    }
    auto tensor = readTensor(path);
    if (!tensor)
      return tensor.takeError();
    StringRef file = sys::path::filename(path);
    // ONNX 1.12's backend data stores bfloat16 tensors as their uint16 bit
    // patterns; the bytes are the same.
    bool bfloat16AsBits =
        info.dtypeName == "bfloat16" && StringRef(tensor->dtype->name) == "uint16";
    if (tensor->dtype->name != info.dtypeName && !bfloat16AsBits)
      return makeError(VerifyStage::Dataset,
                       dataset.name + "/" + file + ": " + tensor->dtype->name +
                           ", but input '" + info.name + "' is " + info.dtypeName);
    if (!fits(tensor->shape, info.shape))
      return makeError(VerifyStage::Dataset,
                       dataset.name + "/" + file + ": shape " + formatShape(tensor->shape) +
                           ", but input '" + info.name + "' is " + formatShape(info.shape));
    for (auto [d, dim] : llvm::enumerate(info.shape)) {
      if (dim >= 0)
        continue;
      StringRef param = modelIndex < table.dimParams.size() &&
                                d < table.dimParams[modelIndex].size()
                            ? StringRef(table.dimParams[modelIndex][d])
                            : StringRef();
      auto it = llvm::find(table.symbols, param);
      if (param.empty() || it == table.symbols.end())
        return makeError(VerifyStage::Dataset, "input '" + info.name + "' dim " + Twine(d) +
                                                   " is symbolic but names no symbol");
      std::optional<int64_t> &value = symbolValues[it - table.symbols.begin()];
      if (value && *value != tensor->shape[d])
        return makeError(VerifyStage::Dataset,
                         dataset.name + "/" + file + ": dim '" + param + "' is " +
                             Twine(tensor->shape[d]) + " here and " + Twine(*value) +
                             " in an earlier input");
      value = tensor->shape[d];
    }
    std::string rawPath = inDir("in" + Twine(i) + ".bin");
    if (auto err = writeFile(rawPath, tensor->bytes, VerifyStage::Run))
      return std::move(err);
    command.push_back(symbolic ? shapeArg(tensor->shape, rawPath) : rawPath);
  }
  command.push_back("--");
  for (size_t i = 0; i < table.outputs.size(); ++i) {
    std::string rawPath = inDir("out" + Twine(i) + ".bin");
    sys::fs::remove(rawPath);
    sys::fs::remove(rawPath + ".dims");
    sys::fs::remove(rawPath + ".seq");
    if (!symbolic || outputKind(i)) {
      command.push_back(rawPath);
      continue;
    }
    // The output buffers get the reference's shape where it fits the
    // declared one; the comparison below reports a mismatch.
    auto expected = readExpected(i);
    if (!expected)
      return expected.takeError();
    if (!fits(expected->shape, table.outputs[i].shape))
      return makeError(VerifyStage::Dataset,
                       dataset.name + ": expected output '" + table.outputs[i].name +
                           "' has shape " + formatShape(expected->shape) +
                           ", the model declares " + formatShape(table.outputs[i].shape));
    command.push_back(shapeArg(expected->shape, rawPath));
  }
  if (symbolic) {
    std::string dims = "--dims=";
    for (auto [k, value] : llvm::enumerate(symbolValues)) {
      if (!value)
        return makeError(VerifyStage::Dataset, "no input gives the symbolic dim '" +
                                                   table.symbols[k] + "'");
      dims += (k ? "," : "") + std::to_string(*value);
    }
    command.insert(command.begin() + firstArg, dims);
  }
  std::string stdoutPath = inDir("run.out"), stderrPath = inDir("run.err");
  if (auto err = runProgram(VerifyStage::Run, "the harness (" + dataset.name + ")",
                            command, stdoutPath, stderrPath))
    return std::move(err);

  bool allPassed = true;
  for (auto [i, path] : llvm::enumerate(dataset.outputs)) {
    const TensorInfo &info = table.outputs[i];
    os << dataset.name << " " << codegen::displayText(info.name) << ": ";
    if (int kind = outputKind(i)) {
      auto passed = compareBoundaryValue(path, kind, info, inDir("out" + Twine(i) + ".bin"),
                                         options, os);
      if (!passed)
        return passed.takeError();
      allPassed &= *passed;
      continue;
    }
    auto expected = readExpected(i);
    if (!expected)
      return expected.takeError();
    if (!mapMismatch[i].empty()) {
      os << "FAIL: " << mapMismatch[i] << "\n";
      allPassed = false;
      continue;
    }
    if (expected->dtype->name != info.dtypeName) {
      os << "FAIL: dtype " << info.dtypeName << " differs from expected "
         << expected->dtype->name << "\n";
      allPassed = false;
      continue;
    }
    if (!fits(expected->shape, info.shape)) {
      os << "FAIL: shape " << formatShape(info.shape) << " differs from expected "
         << formatShape(expected->shape) << "\n";
      allPassed = false;
      continue;
    }
    // Dims the data decided, as run() reported them.
    if (auto dims = MemoryBuffer::getFile(inDir("out" + Twine(i) + ".bin.dims"))) {
      SmallVector<int64_t> got;
      SmallVector<StringRef> lines;
      (*dims)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
      for (StringRef line : lines) {
        int64_t v = -1;
        got.push_back(line.trim().getAsInteger(10, v) ? -1 : v);
      }
      if (ArrayRef<int64_t>(got) != ArrayRef<int64_t>(expected->shape)) {
        os << "FAIL: dims " << formatShape(got) << " (computed from the data) differ from "
           << "expected " << formatShape(expected->shape) << "\n";
        allPassed = false;
        continue;
      }
    }
    auto actual = MemoryBuffer::getFile(inDir("out" + Twine(i) + ".bin"),
                                        /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!actual)
      return makeError(VerifyStage::Run, "the harness wrote no output '" + info.name + "'");
    if (expected->dtype->kind == DType::String) {
      StringRef text = (*actual)->getBuffer();
      SmallVector<StringRef> got;
      while (!text.empty()) {
        auto [value, rest] = text.split('\0');
        got.push_back(value);
        text = rest;
      }
      if (got.size() != expected->strings.size())
        return makeError(VerifyStage::Run, "the harness wrote " + Twine(got.size()) +
                                               " strings for output '" + info.name +
                                               "', expected " + Twine(expected->strings.size()));
      uint64_t mismatches = 0, first = 0;
      for (auto [k, value] : llvm::enumerate(got))
        if (value != expected->strings[k] && mismatches++ == 0)
          first = k;
      if (!mismatches) {
        os << "all " << got.size() << " strings equal, PASS\n";
        continue;
      }
      allPassed = false;
      os << "FAIL (" << mismatches << " of " << got.size()
         << " strings differ; first at element " << first << ": got \"";
      printEscapedString(got[first], os);
      os << "\", expected \"";
      printEscapedString(expected->strings[first], os);
      os << "\")\n";
      continue;
    }
    if ((*actual)->getBufferSize() != expected->bytes.size())
      return makeError(VerifyStage::Run, "the harness wrote " +
                                             Twine((*actual)->getBufferSize()) +
                                             " bytes for output '" + info.name +
                                             "', expected " + Twine(expected->bytes.size()));
    Comparison result = compare(*expected->dtype, (*actual)->getBuffer(), expected->bytes,
                                options.atol, options.rtol);
    os << "max abs diff " << formatNumber(result.maxAbs) << ", max rel diff "
       << formatNumber(result.maxRel) << ", ";
    if (!result.mismatches) {
      os << "PASS\n";
      continue;
    }
    allPassed = false;
    // The reference's count: the declared shape may have symbolic dims.
    uint64_t total = 1;
    for (int64_t d : expected->shape)
      total *= static_cast<uint64_t>(d);
    os << "FAIL (" << result.mismatches << " of "
       << (expected->dtype->kind == DType::Complex ? 2 * total : total)
       << " values out of tolerance; worst at element " << result.worstIndex << ": got "
       << formatNumber(result.worstActual) << ", expected "
       << formatNumber(result.worstExpected) << ")\n";
  }
  return allPassed;
}

} // namespace

Expected<SmallVector<std::string>> findCxxCompiler(StringRef cxx) { return findCompiler(cxx); }

Error runHarnessProgram(VerifyStage stage, StringRef what, ArrayRef<std::string> args,
                        StringRef stdoutPath, StringRef stderrPath) {
  return runProgram(stage, what, args, stdoutPath, stderrPath);
}

Error buildHarnessProgram(StringRef workDir, StringRef name, StringRef harnessSource,
                          StringRef cxx, StringRef cxxFlags, std::string &runPath, bool *built) {
  return buildHarness(workDir, name, harnessSource, cxx, cxxFlags, runPath, built);
}

Expected<bool> verifyModel(StringRef modelPath, StringRef datasetDir,
                           const VerifyOptions &options, raw_ostream &os) {
  auto datasets = findDatasets(datasetDir);
  if (!datasets)
    return datasets.takeError();
  auto runCommand = findRunner(options.runWith);
  if (!runCommand)
    return runCommand.takeError();

  // The work folder: kept, given, or temporary (removed on every exit).
  SmallString<256> workDir;
  bool temporary = false;
  if (!options.keepDir.empty()) {
    workDir = options.keepDir;
    if (std::error_code ec = sys::fs::create_directories(workDir))
      return makeError(VerifyStage::Compile,
                       "cannot create " + workDir + ": " + ec.message());
  } else {
    if (std::error_code ec = sys::fs::createUniqueDirectory("onnxcc-verify", workDir))
      return makeError(VerifyStage::Compile,
                       "cannot create a temporary folder: " + ec.message());
    temporary = true;
  }
  llvm::scope_exit cleanup([&] {
    if (temporary)
      sys::fs::remove_directories(workDir);
  });
  // The generated .cpp finds its weights through __FILE__: build with
  // absolute paths.
  if (std::error_code ec = sys::fs::make_absolute(workDir))
    return makeError(VerifyStage::Build, "cannot resolve " + workDir + ": " + ec.message());

  std::string name;
  if (!options.generatedDir.empty()) {
    auto found = copyGenerated(options.generatedDir, workDir);
    if (!found)
      return found.takeError();
    name = *found;
  } else {
    // Symbolic dims stay symbolic, so that one build serves datasets of
    // different sizes; when the model cannot be compiled that way, its
    // symbolic dims are fixed from the first dataset instead.
    CompileOptions compileOptions;
    compileOptions.name = sanitizeIdentifier(sys::path::stem(modelPath));
    compileOptions.outDir = std::string(workDir);
    compileOptions.emit = EmitStage::Cpp;
    compileOptions.targetCpu = options.targetCpu;
    compileOptions.threads = options.threads;
    compileOptions.bounds = options.bounds;
    compileOptions.target = options.target;
    compileOptions.halideAutoscheduler = options.halideAutoscheduler;
    if (auto err = compileModel(modelPath, compileOptions, nulls())) {
      auto shapes = shapesFromDataset(modelPath, datasets->front());
      if (!shapes) {
        consumeError(std::move(err));
        return shapes.takeError();
      }
      auto sequences = sequencesFromDataset(modelPath, datasets->front(), *shapes);
      if (!sequences) {
        consumeError(std::move(err));
        return sequences.takeError();
      }
      if (shapes->empty() && sequences->empty())
        return makeError(VerifyStage::Compile, toString(std::move(err)));
      consumeError(std::move(err));
      compileOptions.shapes = std::move(*shapes);
      compileOptions.sequences = std::move(*sequences);
      if (auto err2 = compileModel(modelPath, compileOptions, nulls()))
        return makeError(VerifyStage::Compile, toString(std::move(err2)));
    }
    name = compileOptions.name;
  }

  std::string cxxFlags = options.cxxOptLevel;
  if (options.target == "halide") {
    auto flags = buildHalidePipeline(workDir, name, options.cxx, options.halideAutoscheduler,
                                     options.targetCpu);
    if (!flags)
      return flags.takeError();
    cxxFlags += " " + *flags;
  }
  std::string runPath;
  if (auto err = buildHarness(workDir, name, instantiateHarness(name), options.cxx, cxxFlags,
                              runPath, /*built=*/nullptr, options.pchDir))
    return std::move(err);
  runCommand->push_back(runPath);
  auto table = describeHarness(workDir, *runCommand);
  if (!table)
    return table.takeError();
  for (const auto *infos : {&table->inputs, &table->outputs})
    for (auto [index, info] : llvm::enumerate(*infos)) {
      // An output's -1 without symbols is a dim the data decides; a
      // sequence's, one its elements differ in.
      const auto &kinds = infos == &table->outputs ? table->outputKinds : table->inputKinds;
      bool dataDims = infos == &table->outputs ||
                      (index < kinds.size() && (kinds[index] == 1 || kinds[index] == 3));
      if (!info.dtype || info.dtype->kind == DType::Unsupported ||
          info.dtype->elemSize != info.elemSize)
        return makeError(VerifyStage::Run, "tensor '" + info.name + "' has dtype '" +
                                               info.dtypeName + "' of " +
                                               Twine(info.elemSize) +
                                               " bytes, which verify cannot handle");
      if (table->symbols.empty() && !dataDims &&
          llvm::any_of(info.shape, [](int64_t dim) { return dim < 0; }))
        return makeError(VerifyStage::Run, "tensor '" + info.name + "' has the dynamic shape " +
                                               formatShape(info.shape));
    }
  if (!table->symbols.empty()) {
    auto params = inputDimParams(modelPath);
    if (!params)
      return params.takeError();
    table->dimParams = std::move(*params);
    SmallVector<std::string> symbols;
    for (const std::string &sym : table->symbols)
      symbols.push_back(codegen::displayText(sym));
    os << "symbolic dims: " << llvm::join(symbols, ", ") << "\n";
  }

  bool allPassed = true;
  unsigned numOutputs = 0;
  for (const Dataset &dataset : *datasets) {
    auto passed = verifyDataset(dataset, *table, workDir, *runCommand, options, os);
    if (!passed)
      return passed.takeError();
    allPassed &= *passed;
    numOutputs += dataset.outputs.size();
  }
  os << (allPassed ? "PASS" : "FAIL") << ": " << numOutputs << " outputs in "
     << datasets->size() << (datasets->size() == 1 ? " dataset" : " datasets") << "\n";
  return allPassed;
}

} // namespace onnxcc
