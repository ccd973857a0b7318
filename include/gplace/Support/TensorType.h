//===- TensorType.h - tensor types and host tensors -------------*- C++ -*-===//
//
// A tensor type (element type and static shape) and a tensor in host
// memory: what the runtime runs on and what the readers of files (the ONNX
// importer, the .npy and IDX readers) produce, in Support so that those
// readers do not link the runtime. gplace::runtime names the same types.
// Plain C++17.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_TENSORTYPE_H
#define GPLACE_SUPPORT_TENSORTYPE_H

#include "gplace/Support/ElementType.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gplace {

/// An element type and a static shape.
struct TensorType {
  ElementType elementType = ElementType::F32;
  std::vector<int64_t> shape;

  /// The number of elements (Shape.h's checkedNumElements; INT64_MAX if it
  /// overflows, which no allocation satisfies).
  int64_t numElements() const;
  /// numElements() * elementBytes(), checked the same way.
  int64_t bytes() const;
  /// "2x3xf32"; "f32" for a scalar (SPEC §7's result format).
  std::string str() const;
  friend bool operator==(const TensorType &a, const TensorType &b) {
    return a.elementType == b.elementType && a.shape == b.shape;
  }
  friend bool operator!=(const TensorType &a, const TensorType &b) {
    return !(a == b);
  }
};

/// A tensor in host memory, densely packed in row-major order.
struct HostTensor {
  TensorType type;
  std::vector<uint8_t> data; ///< type.bytes() bytes.

  explicit HostTensor(TensorType type = {})
      : type(std::move(type)), data(this->type.bytes()) {}
};

} // namespace gplace

#endif // GPLACE_SUPPORT_TENSORTYPE_H
