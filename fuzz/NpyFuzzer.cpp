//===- NpyFuzzer.cpp - gplace-run's tensor file readers on arbitrary bytes ===//
//
// Writes the input to a file and reads it with runtime::readTensorFile,
// gplace-run's reader of --input=@FILE: the .npy reader, or the IDX reader
// (plain or through zlib's gzip) for input that starts as an IDX or a gzip
// file does. Any outcome but a crash, a sanitizer report or a hang is
// fine; a tensor read must have the bytes its type says.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Idx.h"
#include "gplace/Runtime/Tensor.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = [] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/gplace-fuzz-npy-" +
           std::to_string(::getpid()) + ".npy";
  }();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data),
              static_cast<std::streamsize>(size));
  }
  gplace::runtime::StatusOr<gplace::runtime::HostTensor> tensor =
      gplace::runtime::readTensorFile(path);
  if (tensor && static_cast<int64_t>(tensor->data.size()) !=
                    tensor->type.bytes())
    std::abort();
  return 0;
}
