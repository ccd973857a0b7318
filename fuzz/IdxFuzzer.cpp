//===- IdxFuzzer.cpp - the IDX reader on arbitrary bytes ------------------===//
//
// Writes the input to a file and reads it with runtime::readIdx, plain or
// through zlib's gzip (gplace-run's reader of MNIST's files, --input=@FILE
// and data sets): every input, not only those readTensorFile sends to it
// (gplace-fuzz-npy covers that choice). Any outcome but a crash, a
// sanitizer report or a hang is fine; a tensor read must have the bytes
// its type says.
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
    return std::string(dir ? dir : "/tmp") + "/gplace-fuzz-idx-" +
           std::to_string(::getpid()) + ".idx";
  }();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data),
              static_cast<std::streamsize>(size));
  }
  gplace::runtime::StatusOr<gplace::runtime::HostTensor> tensor =
      gplace::runtime::readIdx(path);
  if (tensor && static_cast<int64_t>(tensor->data.size()) !=
                    tensor->type.bytes())
    std::abort();
  return 0;
}
