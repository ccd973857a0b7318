//===- Tensors.cpp - ONNX tensors and types ---------------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

//===----------------------------------------------------------------------===//
// Tensors.
//===----------------------------------------------------------------------===//

/// gplace's element type for ONNX's TensorProto data type, if it has one.
std::optional<ElementType> toElementType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return ElementType::F32;
  case onnx::TensorProto::FLOAT16:
    return ElementType::F16;
  case onnx::TensorProto::BFLOAT16:
    return ElementType::BF16;
  case onnx::TensorProto::DOUBLE:
    return ElementType::F64;
  case onnx::TensorProto::INT32:
    return ElementType::I32;
  case onnx::TensorProto::INT64:
    return ElementType::I64;
  case onnx::TensorProto::BOOL:
    return ElementType::I1;
  case onnx::TensorProto::UINT8:
    return ElementType::UI8;
  case onnx::TensorProto::INT8:
    return ElementType::I8;
  case onnx::TensorProto::INT16:
    return ElementType::I16;
  case onnx::TensorProto::UINT16:
    return ElementType::UI16;
  case onnx::TensorProto::UINT32:
    return ElementType::UI32;
  default: // UINT64 (no exact unsigned arithmetic in i64), STRING, ...
    return std::nullopt;
  }
}

std::string onnxTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  return "data type " + std::to_string(onnxType);
}

/// ONNX's TensorProto data type for an MLIR element type gplace has; 0
/// (UNDEFINED) for any other.
int32_t toOnnxType(Type element) {
  if (element.isF32())
    return onnx::TensorProto::FLOAT;
  if (element.isF16())
    return onnx::TensorProto::FLOAT16;
  if (element.isBF16())
    return onnx::TensorProto::BFLOAT16;
  if (element.isF64())
    return onnx::TensorProto::DOUBLE;
  if (element.isSignlessInteger(32))
    return onnx::TensorProto::INT32;
  if (element.isSignlessInteger(64))
    return onnx::TensorProto::INT64;
  if (element.isInteger(1))
    return onnx::TensorProto::BOOL;
  if (element.isUnsignedInteger(8))
    return onnx::TensorProto::UINT8;
  if (element.isSignlessInteger(8))
    return onnx::TensorProto::INT8;
  if (element.isSignlessInteger(16))
    return onnx::TensorProto::INT16;
  if (element.isUnsignedInteger(16))
    return onnx::TensorProto::UINT16;
  if (element.isUnsignedInteger(32))
    return onnx::TensorProto::UINT32;
  return onnx::TensorProto::UNDEFINED;
}

/// `value` as a TensorProto named `name` (raw data, little-endian as
/// DenseElementsAttr holds it; booleans one byte each), for ONNX's shape
/// inference to read; false for an element type ONNX has no twin for.
bool toTensorProto(DenseElementsAttr value, const std::string &name,
                   onnx::TensorProto &tensor) {
  auto type = cast<RankedTensorType>(value.getType());
  int32_t dataType = toOnnxType(type.getElementType());
  if (dataType == onnx::TensorProto::UNDEFINED)
    return false;
  tensor.set_name(name);
  tensor.set_data_type(dataType);
  for (int64_t d : type.getShape())
    tensor.add_dims(d);
  std::string raw;
  int64_t count = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    for (bool b : value.getValues<bool>())
      raw.push_back(b ? 1 : 0);
  } else {
    ArrayRef<char> data = value.getRawData();
    if (value.isSplat())
      for (int64_t i = 0; i < count; ++i)
        raw.append(data.data(), data.size());
    else
      raw.assign(data.data(), data.size());
  }
  tensor.set_raw_data(std::move(raw));
  return true;
}

Type toMlirType(ElementType type, MLIRContext *context) {
  Builder b(context);
  switch (type) {
  case ElementType::F32:
    return b.getF32Type();
  case ElementType::F16:
    return b.getF16Type();
  case ElementType::BF16:
    return b.getBF16Type();
  case ElementType::F64:
    return b.getF64Type();
  case ElementType::I32:
    return b.getI32Type();
  case ElementType::I64:
    return b.getI64Type();
  case ElementType::I1:
    return b.getI1Type();
  case ElementType::UI8:
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  case ElementType::I8:
    return b.getIntegerType(8);
  case ElementType::I16:
    return b.getIntegerType(16);
  case ElementType::UI16:
    return IntegerType::get(context, 16, IntegerType::Unsigned);
  case ElementType::UI32:
    return IntegerType::get(context, 32, IntegerType::Unsigned);
  }
  return {};
}

/// The bytes of `tensor` (`count` elements of `type`, gplace's host layout:
/// little-endian, one byte per bool), from its raw data, its typed fields
/// or its external data file (relative to `directory`).
gplace::StatusOr<std::vector<uint8_t>> tensorBytes(const onnx::TensorProto &tensor,
                                               ElementType type, int64_t count,
                                               llvm::StringRef directory) {
  std::string what = "tensor '" + tensor.name() + "'";
  // The byte count, without overflow; nothing is allocated before the data
  // is known to hold it (a few bytes of data must not make the shape's
  // gigabytes).
  int64_t size = 0;
  if (count < 0 || __builtin_mul_overflow(count, elementBytes(type), &size))
    return gplace::Status::invalidArgument(what + " is too large");
  std::vector<uint8_t> bytes;
  if (tensor.has_segment())
    return gplace::Status::invalidArgument(what + " is segmented, which gplace "
                                              "does not read");
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
      long long number = 0;
      bool isNumber =
          !llvm::StringRef(entry.value()).getAsInteger(10, number) &&
          number >= 0;
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset" || entry.key() == "length") {
        if (!isNumber)
          return gplace::Status::invalidArgument(
              what + ": external data " + entry.key() + " '" + entry.value() +
              "' is not a non-negative integer");
        (entry.key() == "offset" ? offset : length) = number;
      }
    }
    if (location.empty())
      return gplace::Status::invalidArgument(what +
                                         ": external data without a location");
    // As ONNX 1.13's checker (CVE-2022-25882): the data lies in the
    // model's directory or below it, never at an absolute path or up
    // through "..", which would let a model read any file of the host.
    bool outside = llvm::sys::path::is_absolute(location) ||
                   llvm::sys::path::has_root_name(location);
    for (auto it = llvm::sys::path::begin(location),
              end = llvm::sys::path::end(location);
         it != end && !outside; ++it)
      outside = *it == "..";
    if (outside)
      return gplace::Status::invalidArgument(
          what + ": external data location '" + location +
          "' must be a relative path inside the model's directory");
    llvm::SmallString<256> file(directory);
    llvm::sys::path::append(file, location);
    // Followed through symbolic links, the file must still be in the
    // model's directory, and a regular file: not a device (/dev/zero never
    // ends) or a pipe (which blocks).
    llvm::SmallString<256> realDirectory, realFile;
    if (std::error_code error = llvm::sys::fs::real_path(file, realFile))
      return gplace::Status::invalidArgument(
          what + ": cannot read its external data '" + file.str().str() +
          "': " + error.message());
    if (llvm::sys::fs::real_path(directory.empty() ? "." : directory,
                                 realDirectory) ||
        !llvm::StringRef(realFile).starts_with(realDirectory.str().str() +
                                               "/"))
      return gplace::Status::invalidArgument(
          what + ": external data location '" + location +
          "' leads outside the model's directory (through a symbolic link)");
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(realFile, status) ||
        status.type() != llvm::sys::fs::file_type::regular_file)
      return gplace::Status::invalidArgument(
          what + ": external data '" + location +
          "' is not a regular file (a device or a pipe is never read)");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(realFile, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer)
      return gplace::Status::invalidArgument(
          what + ": cannot read its external data '" + file.str().str() +
          "': " + buffer.getError().message());
    int64_t available = (*buffer)->getBufferSize();
    if (offset > available)
      return gplace::Status::invalidArgument(
          what + ": external data '" + location + "' has offset " +
          std::to_string(offset) + ", but the file holds " +
          std::to_string(available) + " bytes");
    if (length >= 0 && length != size)
      return gplace::Status::invalidArgument(
          what + ": external data '" + location + "' has length " +
          std::to_string(length) + ", but the tensor's shape and type take " +
          std::to_string(size) + " bytes");
    if (available - offset < size)
      return gplace::Status::invalidArgument(
          what + ": external data '" + location + "' holds " +
          std::to_string(available - offset) + " bytes from offset " +
          std::to_string(offset) + ", but the tensor's shape and type take " +
          std::to_string(size));
    bytes.resize(size);
    if (size)
      std::memcpy(bytes.data(), (*buffer)->getBufferStart() + offset, size);
    if (type == ElementType::I1) // gplace's bools are 0 or 1.
      for (uint8_t &b : bytes)
        b = b != 0;
    return bytes;
  }
  if (tensor.has_raw_data()) {
    if (static_cast<int64_t>(tensor.raw_data().size()) != size)
      return gplace::Status::invalidArgument(
          what + " holds " + std::to_string(tensor.raw_data().size()) +
          " bytes of raw data, expected " + std::to_string(size));
    bytes.resize(size);
    if (size)
      std::memcpy(bytes.data(), tensor.raw_data().data(), size);
    if (type == ElementType::I1) // gplace's bools are 0 or 1.
      for (uint8_t &b : bytes)
        b = b != 0;
    return bytes;
  }
  auto wrongCount = [&](int64_t got) {
    return gplace::Status::invalidArgument(what + " holds " + std::to_string(got) +
                                       " values, expected " +
                                       std::to_string(count));
  };
  auto copy = [&](const auto &field, auto convert) -> gplace::Status {
    if (field.size() != count)
      return wrongCount(field.size());
    bytes.resize(size);
    int64_t width = elementBytes(type);
    for (int64_t i = 0; i < count; ++i) {
      auto value = convert(field.Get(i));
      std::memcpy(bytes.data() + i * width, &value, width);
    }
    return gplace::Status::ok();
  };
  gplace::Status copied = gplace::Status::ok();
  switch (type) {
  case ElementType::F32:
    copied = copy(tensor.float_data(), [](float v) { return v; });
    break;
  case ElementType::F64:
    copied = copy(tensor.double_data(), [](double v) { return v; });
    break;
  case ElementType::I64:
    copied = copy(tensor.int64_data(), [](int64_t v) { return v; });
    break;
  case ElementType::I32:
    copied = copy(tensor.int32_data(), [](int32_t v) { return v; });
    break;
  case ElementType::F16:
  case ElementType::BF16: // The bits, in int32_data's low half.
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<uint16_t>(v); });
    break;
  case ElementType::I1:
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<uint8_t>(v != 0); });
    break;
  case ElementType::UI8:
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<uint8_t>(v); });
    break;
  case ElementType::I8:
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<int8_t>(v); });
    break;
  case ElementType::I16:
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<int16_t>(v); });
    break;
  case ElementType::UI16:
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<uint16_t>(v); });
    break;
  case ElementType::UI32: // ONNX keeps uint32 in uint64_data.
    copied = copy(tensor.uint64_data(),
                  [](uint64_t v) { return static_cast<uint32_t>(v); });
    break;
  }
  if (!copied)
    return copied;
  return bytes;
}

/// `tensor`'s type, or an error naming what gplace lacks.
gplace::StatusOr<gplace::TensorType> tensorType(const onnx::TensorProto &tensor) {
  std::optional<ElementType> element = toElementType(tensor.data_type());
  if (!element)
    return gplace::Status::invalidArgument(
        "tensor '" + tensor.name() + "' has element type " +
        onnxTypeName(tensor.data_type()) + ", which gplace does not have");
  gplace::TensorType type;
  type.elementType = *element;
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return gplace::Status::invalidArgument("tensor '" + tensor.name() +
                                         "' has a negative dimension");
    type.shape.push_back(d);
  }
  if (!checkedNumElements(type.shape))
    return gplace::Status::invalidArgument("tensor '" + tensor.name() +
                                       "' is too large");
  return type;
}

/// `tensor` as a dense elements attribute.
gplace::StatusOr<DenseElementsAttr> tensorAttr(const onnx::TensorProto &tensor,
                                           llvm::StringRef directory,
                                           MLIRContext *context) {
  gplace::StatusOr<gplace::TensorType> type = tensorType(tensor);
  if (!type)
    return type.status();
  gplace::StatusOr<std::vector<uint8_t>> bytes = tensorBytes(
      tensor, type->elementType, type->numElements(), directory);
  if (!bytes)
    return bytes.status();
  auto shaped = RankedTensorType::get(
      type->shape, toMlirType(type->elementType, context));
  if (type->elementType == ElementType::I1) {
    llvm::SmallVector<bool> values(bytes->begin(), bytes->end());
    return DenseElementsAttr::get(shaped, llvm::ArrayRef<bool>(values));
  }
  return DenseElementsAttr::getFromRawBuffer(
      shaped, llvm::ArrayRef<char>(reinterpret_cast<const char *>(bytes->data()),
                                   bytes->size()));
}

DenseElementsAttr hostTensorAttr(const gplace::HostTensor &tensor,
                                 MLIRContext *context) {
  auto shaped = RankedTensorType::get(
      tensor.type.shape, toMlirType(tensor.type.elementType, context));
  if (tensor.type.elementType == ElementType::I1) {
    llvm::SmallVector<bool> values(tensor.data.begin(), tensor.data.end());
    return DenseElementsAttr::get(shaped, llvm::ArrayRef<bool>(values));
  }
  return DenseElementsAttr::getFromRawBuffer(
      shaped, llvm::ArrayRef<char>(
                  reinterpret_cast<const char *>(tensor.data.data()),
                  tensor.data.size()));
}

/// The integers of an integer elements attribute.
SmallVector<int64_t> toInts(DenseElementsAttr attr) {
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

} // namespace gplace::frontend::onnx_import

namespace gplace::frontend {
using namespace onnx_import;

gplace::StatusOr<gplace::HostTensor> readTensorProtoFile(llvm::StringRef path) {
  // A regular file only: a device (/dev/zero) never ends, a pipe blocks.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return gplace::Status::invalidArgument("cannot read '" + path.str() +
                                       "': not a regular file");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return gplace::Status::invalidArgument("cannot read '" + path.str() +
                                       "': " + buffer.getError().message());
  onnx::TensorProto tensor;
  if ((*buffer)->getBufferSize() > static_cast<size_t>(INT_MAX) ||
      !tensor.ParseFromArray((*buffer)->getBufferStart(),
                             static_cast<int>((*buffer)->getBufferSize())) ||
      !tensor.has_data_type())
    return gplace::Status::invalidArgument("'" + path.str() +
                                       "' is not an ONNX TensorProto");
  gplace::StatusOr<gplace::TensorType> type = tensorType(tensor);
  if (!type)
    return gplace::Status::invalidArgument("'" + path.str() +
                                       "': " + type.status().message());
  gplace::StatusOr<std::vector<uint8_t>> bytes =
      tensorBytes(tensor, type->elementType, type->numElements(),
                  llvm::sys::path::parent_path(path));
  if (!bytes)
    return gplace::Status::invalidArgument("'" + path.str() +
                                       "': " + bytes.status().message());
  gplace::HostTensor host(*type);
  host.data = std::move(*bytes);
  return host;
}

} // namespace gplace::frontend
