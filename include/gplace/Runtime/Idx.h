//===- Idx.h - IDX files (MNIST's format) and data files --------*- C++ -*-===//
//
// The IDX format MNIST and Fashion-MNIST ship in: two zero bytes, a type
// code, the number of dimensions, big-endian uint32 dimensions, then
// big-endian elements; often gzip-compressed. Read through zlib, which
// reads plain and gzip files alike.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_IDX_H
#define GPLACE_RUNTIME_IDX_H

#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"

#include <string>

namespace gplace::runtime {

/// Reads an IDX file, plain or gzip-compressed. Type codes: 0x08 (ubyte)
/// gives ui8, 0x0B (short) and 0x0C (int) give i32, 0x0D (float) f32, 0x0E
/// (double) f64; 0x09 (signed byte) is refused. Errors (invalid argument,
/// naming the file): not a regular file, a bad magic or type code, no or
/// more than 16 dimensions, a shape whose byte size overflows, data
/// shorter or longer than the shape says, gzip data that is corrupt or cut
/// before its trailer (zlib's "incorrect data check", "unexpected end of
/// file"). Memory grows with the data
/// actually read, never from the header alone.
StatusOr<HostTensor> readIdx(const std::string &path);

/// Reads a tensor file: IDX (plain or gzip, by their first two bytes, or
/// a name with "idx" in it that does not end in .npy), else .npy (readNpy,
/// with its errors).
StatusOr<HostTensor> readTensorFile(const std::string &path);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_IDX_H
