//===- Idx.cpp - IDX files ------------------------------------------------===//

#include "gplace/Runtime/Idx.h"
#include "gplace/Support/Shape.h"

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

namespace gplace::runtime {

namespace {

struct GzCloser {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

/// Reads exactly `n` bytes; false at the end of the data or on an error.
bool readExactly(gzFile file, void *out, size_t n) {
  return n == 0 ||
         gzread(file, out, static_cast<unsigned>(n)) == static_cast<int>(n);
}

/// zlib's message for the last error on `file` ("incorrect data check":
/// a CRC that does not match; "unexpected end of file": a gzip stream cut
/// before its trailer), or "" when there is none.
std::string gzipError(gzFile file) {
  int code = Z_OK;
  const char *message = gzerror(file, &code);
  if (code == Z_OK || code == Z_STREAM_END)
    return "";
  if (!message || !*message)
    return "zlib error " + std::to_string(code);
  // zlib writes "<path>: <why>"; the caller names the file.
  std::string text = message;
  size_t colon = text.rfind(": ");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

} // namespace

StatusOr<HostTensor> readIdx(const std::string &path) {
  auto fail = [&](const std::string &why) {
    return Status::invalidArgument("cannot read IDX file '" + path + "': " +
                                   why);
  };
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    return fail(std::filesystem::exists(path, error) ? "not a regular file"
                                                     : "no such file");
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file)
    return fail(std::strerror(errno));
  unsigned char magic[4];
  if (!readExactly(file.get(), magic, 4)) {
    if (std::string why = gzipError(file.get()); !why.empty())
      return fail("corrupt gzip data: " + why);
    return fail("shorter than its 4-byte magic number");
  }
  if (magic[0] != 0 || magic[1] != 0)
    return fail("bad magic number (an IDX file starts with two zero bytes)");
  TensorType type;
  int64_t elementSize = 0;
  switch (magic[2]) {
  case 0x08:
    type.elementType = ElementType::UI8;
    elementSize = 1;
    break;
  case 0x0B:
    type.elementType = ElementType::I32;
    elementSize = 2;
    break;
  case 0x0C:
    type.elementType = ElementType::I32;
    elementSize = 4;
    break;
  case 0x0D:
    type.elementType = ElementType::F32;
    elementSize = 4;
    break;
  case 0x0E:
    type.elementType = ElementType::F64;
    elementSize = 8;
    break;
  default:
    return fail("unsupported type code 0x" +
                std::string(1, "0123456789abcdef"[magic[2] >> 4]) +
                std::string(1, "0123456789abcdef"[magic[2] & 15]) +
                " (expected 0x08 ubyte, 0x0b short, 0x0c int, 0x0d float or "
                "0x0e double)");
  }
  int rank = magic[3];
  if (rank < 1 || rank > 16)
    return fail("unsupported number of dimensions " + std::to_string(rank) +
                " (expected 1 to 16)");
  for (int d = 0; d < rank; ++d) {
    unsigned char be[4];
    if (!readExactly(file.get(), be, 4)) {
      if (std::string why = gzipError(file.get()); !why.empty())
        return fail("corrupt gzip data: " + why);
      return fail("truncated in its dimensions");
    }
    type.shape.push_back((int64_t(be[0]) << 24) | (int64_t(be[1]) << 16) |
                         (int64_t(be[2]) << 8) | int64_t(be[3]));
  }
  std::optional<int64_t> count = checkedNumElements(type.shape);
  int64_t fileBytes = 0;
  if (!count || __builtin_mul_overflow(*count, elementSize, &fileBytes))
    return fail("shape " + type.str() + " is too large");
  // The data, a chunk at a time: memory follows what is really there.
  std::vector<unsigned char> raw;
  constexpr int64_t kChunk = 1 << 20;
  while (static_cast<int64_t>(raw.size()) < fileBytes) {
    size_t want = static_cast<size_t>(
        std::min<int64_t>(kChunk, fileBytes - static_cast<int64_t>(raw.size())));
    size_t old = raw.size();
    raw.resize(old + want);
    int got = gzread(file.get(), raw.data() + old, static_cast<unsigned>(want));
    if (got < 0)
      return fail("corrupt gzip data: " + gzipError(file.get()));
    raw.resize(old + static_cast<size_t>(got));
    if (static_cast<size_t>(got) < want)
      return fail("truncated: the shape " + type.str() + " needs " +
                  std::to_string(fileBytes) + " bytes of data, found " +
                  std::to_string(raw.size()));
  }
  unsigned char extra;
  if (gzread(file.get(), &extra, 1) > 0)
    return fail("trailing data after the " + std::to_string(fileBytes) +
                " bytes the shape " + type.str() + " needs");
  // The end of a gzip stream checks its CRC-32 and length: a corrupt or
  // cut file is refused (as Python's gzip module refuses it), even when
  // the data before its trailer has the shape's size.
  if (std::string why = gzipError(file.get()); !why.empty())
    return fail("corrupt gzip data: " + why);
  HostTensor tensor(type);
  int64_t n = *count;
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char *p = raw.data() + i * elementSize;
    uint64_t v = 0;
    for (int64_t b = 0; b < elementSize; ++b)
      v = (v << 8) | p[b];
    uint8_t *out = tensor.data.data() + i * elementBytes(type.elementType);
    switch (magic[2]) {
    case 0x08:
      *out = static_cast<uint8_t>(v);
      break;
    case 0x0B: {
      int32_t s = static_cast<int16_t>(static_cast<uint16_t>(v));
      std::memcpy(out, &s, 4);
      break;
    }
    case 0x0C:
    case 0x0D: {
      uint32_t w = static_cast<uint32_t>(v);
      std::memcpy(out, &w, 4);
      break;
    }
    default:
      std::memcpy(out, &v, 8);
      break;
    }
  }
  return tensor;
}

StatusOr<HostTensor> readTensorFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {};
  // IDX files start with two zero bytes (plain) or gzip's 1f 8b, or are
  // named so (MNIST's train-images-idx3-ubyte, x.idx: a bad one gets the
  // IDX reader's message); anything else, and a file that cannot be
  // opened, gets the .npy reader (and its messages).
  in.read(magic, 2);
  std::string name = std::filesystem::path(path).filename().string();
  bool namedIdx = name.find("idx") != std::string::npos &&
                  (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy"));
  bool idx = (in && ((magic[0] == 0 && magic[1] == 0) ||
                     (static_cast<unsigned char>(magic[0]) == 0x1f &&
                      static_cast<unsigned char>(magic[1]) == 0x8b))) ||
             namedIdx;
  return idx ? readIdx(path) : readNpy(path);
}

} // namespace gplace::runtime
