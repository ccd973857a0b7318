//===- Tensor.cpp - tensor types, result formatting, .npy files -----------===//

#include "gplace/Runtime/Tensor.h"

#include <Eigen/Core>

#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

namespace gplace::runtime {

//===----------------------------------------------------------------------===//
// Formatting.
//===----------------------------------------------------------------------===//

namespace {

std::string formatFloat(double value, bool isDouble) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buffer[64];
  std::to_chars_result result =
      isDouble ? std::to_chars(buffer, buffer + sizeof(buffer), value)
               : std::to_chars(buffer, buffer + sizeof(buffer),
                               static_cast<float>(value));
  return std::string(buffer, result.ptr);
}

/// The shortest decimal that reads back as the same 16-bit float.
template <typename Half> std::string formatHalf(Half value) {
  float asFloat = static_cast<float>(value);
  if (std::isnan(asFloat) || std::isinf(asFloat))
    return formatFloat(asFloat, false);
  char buffer[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::to_chars_result result =
        std::to_chars(buffer, buffer + sizeof(buffer), asFloat,
                      std::chars_format::general, precision);
    float back = 0;
    std::from_chars(buffer, result.ptr, back);
    // `back` is the value rounded to `precision` digits; printing it as the
    // shortest float avoids exponents for small integers ("10", not
    // "1e+01").
    if (Eigen::numext::bit_cast<uint16_t>(Half(back)) ==
        Eigen::numext::bit_cast<uint16_t>(value))
      return formatFloat(back, false);
  }
  return formatFloat(asFloat, false);
}

std::string formatElement(ElementType type, const uint8_t *p) {
  switch (type) {
  case ElementType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return formatFloat(v, false);
  }
  case ElementType::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return formatFloat(v, true);
  }
  case ElementType::F16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return formatHalf(Eigen::numext::bit_cast<Eigen::half>(bits));
  }
  case ElementType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return formatHalf(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
  }
  case ElementType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return std::to_string(v);
  }
  case ElementType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return std::to_string(v);
  }
  case ElementType::I1:
    return *p ? "true" : "false";
  case ElementType::UI8:
    return std::to_string(static_cast<unsigned>(*p));
  case ElementType::I8:
    return std::to_string(static_cast<int>(static_cast<int8_t>(*p)));
  case ElementType::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return std::to_string(v);
  }
  case ElementType::UI16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return std::to_string(v);
  }
  case ElementType::UI32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return std::to_string(v);
  }
  }
  return "?";
}

void formatLevel(const HostTensor &tensor, size_t dim, int64_t &index,
                 std::string &out) {
  const std::vector<int64_t> &shape = tensor.type.shape;
  int64_t size = elementBytes(tensor.type.elementType);
  if (dim == shape.size()) {
    out += formatElement(tensor.type.elementType,
                         tensor.data.data() + index * size);
    ++index;
    return;
  }
  out += "[";
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i)
      out += ", ";
    formatLevel(tensor, dim + 1, index, out);
  }
  out += "]";
}

} // namespace

std::optional<double> floatElementValue(ElementType type, const void *data) {
  uint16_t bits = 0;
  switch (type) {
  case ElementType::F32: {
    float v;
    std::memcpy(&v, data, 4);
    return v;
  }
  case ElementType::F64: {
    double v;
    std::memcpy(&v, data, 8);
    return v;
  }
  case ElementType::F16:
    std::memcpy(&bits, data, 2);
    return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
  case ElementType::BF16:
    std::memcpy(&bits, data, 2);
    return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
  default:
    return std::nullopt;
  }
}

std::string formatTensor(const HostTensor &tensor) {
  std::string out = tensor.type.str() + "=";
  int64_t index = 0;
  formatLevel(tensor, 0, index, out);
  return out;
}

//===----------------------------------------------------------------------===//
// .npy files.
//===----------------------------------------------------------------------===//

namespace {

struct NpyType {
  const char *descr;
  ElementType type;
};
const NpyType kNpyTypes[] = {
    {"f2", ElementType::F16}, {"f4", ElementType::F32},
    {"f8", ElementType::F64}, {"i4", ElementType::I32},
    {"i8", ElementType::I64}, {"b1", ElementType::I1},
    {"u1", ElementType::UI8}, {"i1", ElementType::I8},
    {"i2", ElementType::I16}, {"u2", ElementType::UI16},
    {"u4", ElementType::UI32},
};

/// The value of `'key': ` in a .npy header dictionary, up to the next
/// top-level comma or closing brace.
std::optional<std::string> headerValue(const std::string &header,
                                       const std::string &key) {
  // The last one: a header is a Python dict literal, where a repeated key
  // has its last value (as NumPy reads it).
  size_t at = header.rfind("'" + key + "'");
  if (at == std::string::npos)
    return std::nullopt;
  at = header.find(':', at);
  if (at == std::string::npos)
    return std::nullopt;
  size_t begin = header.find_first_not_of(' ', at + 1);
  if (begin == std::string::npos)
    return std::nullopt;
  size_t end = header[begin] == '('    ? header.find(')', begin) + 1
               : header[begin] == '\'' ? header.find('\'', begin + 1) + 1
                                       : header.find_first_of(",}", begin);
  if (end == std::string::npos || end == 0 || end <= begin)
    return std::nullopt;
  return header.substr(begin, end - begin);
}

} // namespace

StatusOr<HostTensor> decodeNpy(std::string_view contents) {
  auto fail = [](const std::string &why) {
    return Status::invalidArgument(why);
  };
  uintmax_t fileSize = contents.size();
  if (contents.size() < 10 || contents.compare(0, 6, "\x93NUMPY") != 0)
    return fail("not a .npy file (bad magic string)");
  int major = static_cast<uint8_t>(contents[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<uint8_t>(contents[8]) |
                   (static_cast<uint8_t>(contents[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (contents.size() < 12)
      return fail("truncated header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= static_cast<size_t>(static_cast<uint8_t>(contents[8 + i]))
                      << (8 * i);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (contents.size() < headerStart + headerLength)
    return fail("truncated header");
  std::string header(contents.substr(headerStart, headerLength));
  std::optional<std::string> descr = headerValue(header, "descr");
  std::optional<std::string> fortran = headerValue(header, "fortran_order");
  std::optional<std::string> shapeText = headerValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return fail("the header lacks 'descr', 'fortran_order' or 'shape'");
  if (*fortran != "False")
    return fail("Fortran-ordered arrays are not supported");
  // descr is quoted: '<f4'. Byte order: '<' little, '|' not applicable,
  // '=' native (little on every machine gplace runs on).
  if (!descr->empty() && descr->front() == '[')
    return fail("structured dtypes (records) are not supported (expected "
                "little-endian f2, f4, f8, i4, i8, b1, u1, i1, i2, u2 or u4)");
  if (descr->size() != 5 || descr->front() != '\'' || descr->back() != '\'' ||
      std::string_view("<|=").find((*descr)[1]) == std::string_view::npos)
    return fail("unsupported dtype " + *descr +
                " (expected little-endian f2, f4, f8, i4, i8, b1, u1, i1, "
                "i2, u2 or u4)");
  std::string code = descr->substr(2, 2);
  TensorType type;
  bool known = false;
  for (const NpyType &npy : kNpyTypes)
    if (code == npy.descr) {
      type.elementType = npy.type;
      known = true;
    }
  if (!known)
    return fail("unsupported dtype " + *descr +
                " (expected f2, f4, f8, i4, i8, b1, u1, i1, i2, u2 or u4)");

  // shape: "(2, 3)", "(4,)" or "()": a tuple, every item a number but an
  // empty one after the last comma.
  if (shapeText->size() < 2 || shapeText->front() != '(' ||
      shapeText->back() != ')')
    return fail("bad shape " + *shapeText + " (expected a tuple)");
  std::string dims = shapeText->substr(1, shapeText->size() - 2);
  std::stringstream stream(dims);
  for (std::string item; std::getline(stream, item, ',');) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos) {
      if (!stream.eof())
        return fail("bad shape " + *shapeText);
      continue;
    }
    int64_t value = 0;
    const char *begin = item.data() + first;
    const char *end = item.data() + item.find_last_not_of(' ') + 1;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || value < 0)
      return fail("bad shape " + *shapeText);
    type.shape.push_back(value);
  }
  // The data's size, checked against the file's before allocating it.
  std::optional<int64_t> bytes =
      checkedTensorBytes(type.shape, type.elementType);
  uintmax_t dataStart = headerStart + headerLength;
  if (!bytes)
    return fail("shape " + *shapeText + " has more bytes than fit in 64 bits");
  if (fileSize - dataStart != static_cast<uintmax_t>(*bytes))
    return fail("expected " + std::to_string(*bytes) +
                " bytes of data for shape " + *shapeText + ", found " +
                std::to_string(fileSize - dataStart));
  HostTensor tensor(type);
  if (!tensor.data.empty())
    std::memcpy(tensor.data.data(), contents.data() + dataStart,
                tensor.data.size());
  if (type.elementType == ElementType::I1)
    for (uint8_t &b : tensor.data)
      b = b != 0;
  return tensor;
}


StatusOr<HostTensor> readNpy(const std::string &path) {
  auto fail = [&](const std::string &why) {
    return Status::invalidArgument("cannot read '" + path + "': " + why);
  };
  // A regular file only: a directory cannot be read, a device (/dev/zero)
  // may never end. Its size bounds what the header may claim.
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status))
    return fail("no such file, or it cannot be opened");
  if (!std::filesystem::is_regular_file(status))
    return fail("not a regular file");
  uintmax_t fileSize = std::filesystem::file_size(path, error);
  if (error)
    return fail(error.message());
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail("no such file, or it cannot be opened");
  std::string contents(static_cast<size_t>(fileSize), '\0');
  in.read(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!in)
    return fail("read error");
  StatusOr<HostTensor> tensor = decodeNpy(contents);
  if (!tensor)
    return fail(tensor.status().message());
  return tensor;
}

bool hasNpyDtype(gplace::ElementType type) {
  for (const NpyType &npy : kNpyTypes)
    if (npy.type == type)
      return true;
  return false;
}

StatusOr<std::string> encodeNpyHeader(const TensorType &type) {
  const char *code = nullptr;
  for (const NpyType &npy : kNpyTypes)
    if (npy.type == type.elementType)
      code = npy.descr;
  if (!code)
    return Status::invalidArgument(
        "NumPy has no " + std::string(elementTypeName(type.elementType)) +
        " dtype");
  std::string shape = "(";
  for (size_t i = 0; i < type.shape.size(); ++i)
    shape += std::to_string(type.shape[i]) +
             (type.shape.size() == 1 || i + 1 < type.shape.size() ? ","
                                                                    : "");
  shape += ")";
  std::string header = std::string("{'descr': '") +
                       (code[1] == '1' ? "|" : "<") + code +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that data starts at a multiple of 64 bytes. A
  // header longer than format 1.0's 16-bit length (a shape of thousands of
  // dimensions) takes format 2.0's 32-bit one, as NumPy writes it.
  bool version2 = 10 + header.size() + 1 > 65535;
  size_t prefix = version2 ? 12 : 10;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string bytes(version2 ? "\x93NUMPY\x02\x00" : "\x93NUMPY\x01\x00", 8);
  uint32_t length = static_cast<uint32_t>(header.size());
  for (int i = 0; i < (version2 ? 4 : 2); ++i)
    bytes += static_cast<char>((length >> (8 * i)) & 0xff);
  bytes += header;
  return bytes;
}

StatusOr<std::string> encodeNpy(const HostTensor &tensor) {
  StatusOr<std::string> bytes = encodeNpyHeader(tensor.type);
  if (!bytes)
    return bytes;
  bytes->append(reinterpret_cast<const char *>(tensor.data.data()),
                tensor.data.size());
  return bytes;
}

Status writeNpy(const std::string &path, const HostTensor &tensor) {
  // A regular file (or a new one) is written beside it and renamed over
  // it, so that a failure never leaves it torn; anything else (a device,
  // a pipe) is written in place. Every write error is reported.
  auto fail = [&](const std::string &why) {
    return Status::invalidArgument("cannot write '" + path + "': " + why);
  };
  StatusOr<std::string> header = encodeNpyHeader(tensor.type);
  if (!header)
    return fail(header.status().message());
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path, error);
  bool inPlace = std::filesystem::exists(status) &&
                 !std::filesystem::is_regular_file(status);
  if (std::filesystem::is_directory(status))
    return fail("it is a directory");
  std::string target = path;
  if (!inPlace)
    target = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    if (!out)
      return fail(std::strerror(errno));
    out.write(header->data(), static_cast<std::streamsize>(header->size()));
    out.write(reinterpret_cast<const char *>(tensor.data.data()),
              static_cast<std::streamsize>(tensor.data.size()));
    out.flush();
    int savedErrno = errno;
    bool written = static_cast<bool>(out);
    out.close();
    if (!written || !out) {
      if (!inPlace)
        std::filesystem::remove(target, error);
      return fail(savedErrno ? std::strerror(savedErrno) : "write error");
    }
  }
  if (!inPlace) {
    std::filesystem::rename(target, path, error);
    if (error) {
      std::filesystem::remove(target, error);
      return fail(error.message());
    }
  }
  return Status::ok();
}

} // namespace gplace::runtime
