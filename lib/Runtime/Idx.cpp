//===- Idx.cpp - IDX files ------------------------------------------------===//

#include "gplace/Runtime/Idx.h"
#include "gplace/Support/Shape.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>

namespace gplace::runtime {

namespace {

/// The bytes of an IDX file, plain or gzip (RFC 1952: one or more members,
/// each inflated by zlib, which checks its CRC-32 and length), read in
/// order from the file loaded whole. A gzip file ends with its last member,
/// or zero bytes of padding (as Python's gzip module reads them); anything
/// else after it is refused.
class IdxStream {
public:
  explicit IdxStream(std::string bytes) : bytes_(std::move(bytes)) {
    gzip_ = bytes_.size() >= 2 &&
            static_cast<unsigned char>(bytes_[0]) == 0x1f &&
            static_cast<unsigned char>(bytes_[1]) == 0x8b;
    if (!gzip_)
      return;
    if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK)
      error_ = "zlib cannot start";
    else
      started_ = true;
  }
  IdxStream(const IdxStream &) = delete;
  IdxStream &operator=(const IdxStream &) = delete;
  ~IdxStream() {
    if (started_)
      inflateEnd(&stream_);
  }

  /// Reads up to `n` bytes into `out`; fewer at the end of the data or on
  /// an error (then error() says why).
  size_t read(void *out, size_t n) {
    if (!gzip_) {
      size_t got = std::min(n, bytes_.size() - offset_);
      std::memcpy(out, bytes_.data() + offset_, got);
      offset_ += got;
      return got;
    }
    auto *dst = static_cast<unsigned char *>(out);
    size_t got = 0;
    while (got < n && error_.empty()) {
      if (ended_) {
        // Another member, zero padding, or the end.
        size_t at = position();
        while (at < bytes_.size() && bytes_[at] == 0)
          ++at;
        if (at == bytes_.size())
          break;
        if (at + 1 < bytes_.size() &&
            static_cast<unsigned char>(bytes_[at]) == 0x1f &&
            static_cast<unsigned char>(bytes_[at + 1]) == 0x8b) {
          skipTo(at);
          inflateReset(&stream_);
          ended_ = false;
          continue;
        }
        error_ = "data after the end of the gzip stream";
        break;
      }
      refill();
      stream_.next_out = dst + got;
      size_t want = std::min(n - got, kMaxIn);
      stream_.avail_out = static_cast<uInt>(want);
      int code = inflate(&stream_, Z_NO_FLUSH);
      size_t produced = want - stream_.avail_out;
      got += produced;
      if (code == Z_STREAM_END) {
        ended_ = true;
      } else if (code == Z_BUF_ERROR || (code == Z_OK && produced == 0 &&
                                         position() == bytes_.size())) {
        error_ = "unexpected end of file";
      } else if (code != Z_OK) {
        error_ = stream_.msg ? stream_.msg
                             : "zlib error " + std::to_string(code);
      }
    }
    return got;
  }

  /// Reads exactly `n` bytes; false at the end of the data or on an error.
  bool readExactly(void *out, size_t n) { return read(out, n) == n; }

  /// Why the data is corrupt ("incorrect data check": a CRC that does not
  /// match; "unexpected end of file": a gzip stream cut before its end), or
  /// "".
  const std::string &error() const { return error_; }

private:
  /// zlib counts in 32 bits: feed it at most this much at once.
  static constexpr size_t kMaxIn = size_t(1) << 30;

  /// The offset of the next unread compressed byte.
  size_t position() const { return consumedBefore_ + (fed_ - stream_.avail_in); }

  /// Moves the next compressed byte to offset `at` (forward).
  void skipTo(size_t at) {
    while (position() < at) {
      refill();
      size_t k = std::min<size_t>(at - position(), stream_.avail_in);
      stream_.next_in += k;
      stream_.avail_in -= static_cast<uInt>(k);
    }
  }

  void refill() {
    if (stream_.avail_in != 0)
      return;
    consumedBefore_ += fed_;
    fed_ = std::min(bytes_.size() - consumedBefore_, kMaxIn);
    stream_.next_in =
        reinterpret_cast<Bytef *>(bytes_.data() + consumedBefore_);
    stream_.avail_in = static_cast<uInt>(fed_);
  }

  std::string bytes_;
  bool gzip_ = false;
  size_t offset_ = 0; ///< Plain files: the next byte.
  z_stream stream_{};
  bool started_ = false, ended_ = false;
  size_t consumedBefore_ = 0; ///< Bytes before the current feed.
  size_t fed_ = 0;            ///< Bytes of the current feed.
  std::string error_;
};

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
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (!in && !in.eof())
    return fail(std::strerror(errno));
  IdxStream file(std::move(bytes));
  auto corrupt = [&]() -> std::optional<std::string> {
    if (file.error().empty())
      return std::nullopt;
    return "corrupt gzip data: " + file.error();
  };
  unsigned char magic[4];
  if (!file.readExactly(magic, 4)) {
    if (std::optional<std::string> why = corrupt())
      return fail(*why);
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
    if (!file.readExactly(be, 4)) {
      if (std::optional<std::string> why = corrupt())
        return fail(*why);
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
    size_t got = file.read(raw.data() + old, want);
    if (std::optional<std::string> why = corrupt())
      return fail(*why);
    raw.resize(old + got);
    if (got < want)
      return fail("truncated: the shape " + type.str() + " needs " +
                  std::to_string(fileBytes) + " bytes of data, found " +
                  std::to_string(raw.size()));
  }
  unsigned char extra;
  if (file.read(&extra, 1) > 0)
    return fail("trailing data after the " + std::to_string(fileBytes) +
                " bytes the shape " + type.str() + " needs");
  // The end of a gzip stream checks its CRC-32 and length: a corrupt or
  // cut file is refused (as Python's gzip module refuses it), even when
  // the data before its trailer has the shape's size.
  if (std::optional<std::string> why = corrupt())
    return fail(*why);
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
  // Not opened unless it is a regular file: opening a FIFO without a
  // writer (or a terminal) blocks. The .npy reader words the refusal.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    return readNpy(path);
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {};
  // A .npy file starts with "\x93NUMPY", whatever its name; IDX files
  // start with two zero bytes (plain) or gzip's 1f 8b, or are named so
  // (MNIST's train-images-idx3-ubyte, x.idx: a bad one gets the IDX
  // reader's message); anything else gets the .npy reader (and its
  // messages).
  in.read(magic, 6);
  size_t got = static_cast<size_t>(in.gcount());
  if (got == 6 && std::string_view(magic, 6) == "\x93NUMPY")
    return readNpy(path);
  std::string name = std::filesystem::path(path).filename().string();
  bool namedIdx = name.find("idx") != std::string::npos &&
                  (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy"));
  bool idx = (got >= 2 && ((magic[0] == 0 && magic[1] == 0) ||
                           (static_cast<unsigned char>(magic[0]) == 0x1f &&
                            static_cast<unsigned char>(magic[1]) == 0x8b))) ||
             namedIdx;
  return idx ? readIdx(path) : readNpy(path);
}

} // namespace gplace::runtime
