//===- Tensor.h - tensor types and host tensors -----------------*- C++ -*-===//
//
// Tensor types (element type and static shape), tensors in host memory, and
// their text and .npy forms: the inputs and results of gplace-run (SPEC §7).
// Plain C++17.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_TENSOR_H
#define GPLACE_RUNTIME_TENSOR_H

#include "gplace/Runtime/Status.h"
#include "gplace/Support/ElementType.h"
#include "gplace/Support/Shape.h"
#include "gplace/Support/TensorType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gplace::runtime {

using gplace::HostTensor;
using gplace::TensorType;

/// Formats `tensor` as SPEC §7 prints results: `2x2xf32=[[22, 28], [49,
/// 64]]`, rows nested in brackets, numbers in their shortest round-trip
/// decimal form (for f16 and bf16, the shortest that round-trips in that
/// type), booleans as `true`/`false`, scalars as `f32=12`.
std::string formatTensor(const HostTensor &tensor);

/// The value of the element at `data` of element type `type` as a double,
/// if `type` is a floating-point type (f16, bf16, f32, f64); std::nullopt
/// for integers and booleans.
std::optional<double> floatElementValue(gplace::ElementType type,
                                        const void *data);

/// Reads a NumPy .npy file (format versions 1-3, little-endian, C order) of
/// dtype float16, float32, float64, int32, int64, bool, uint8, int8,
/// int16, uint16 or uint32 (gplace's element types). bfloat16 has no
/// NumPy dtype and is refused. Only regular files are read (not a directory
/// or a device such as /dev/zero); the header's shape is checked against
/// the file's size before the data is allocated; a repeated header key has
/// its last value, as NumPy reads the header's dict. Errors (invalid
/// argument) name the file and what is wrong.
StatusOr<HostTensor> readNpy(const std::string &path);

/// The tensor that the bytes of a .npy file hold, read as readNpy reads a
/// file (the header's shape checked against the bytes there are before the
/// data is allocated). Errors (invalid argument): what is wrong, without a
/// file name.
StatusOr<HostTensor> decodeNpy(std::string_view bytes);

/// The bytes of `tensor` as a .npy file, as writeNpy writes them (format
/// 1.0; 2.0 for a header over 64 KiB). Errors (invalid argument): an
/// element type NumPy has no dtype for ("NumPy has no bf16 dtype").
StatusOr<std::string> encodeNpy(const HostTensor &tensor);

/// The first bytes of encodeNpy's: the magic string, the version, the
/// header's length and the header (padded so that the data that follows
/// starts at a multiple of 64 bytes), for writers that write the data from
/// where it lies. Errors: as encodeNpy's.
StatusOr<std::string> encodeNpyHeader(const TensorType &type);

/// Whether NumPy has a dtype for `type` (every element type but bf16), so
/// that writeNpy can write it.
bool hasNpyDtype(gplace::ElementType type);

/// Writes `tensor` as a .npy file (format version 1.0). bf16 is refused. A
/// regular or new file is written beside `path` and renamed over it, so a
/// failure never leaves it torn; a device or pipe is written in place.
/// Every write error (a full disk, a directory) is an invalid-argument
/// status naming the file and the reason.
Status writeNpy(const std::string &path, const HostTensor &tensor);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_TENSOR_H
