//===- TensorType.cpp - tensor types ---------------------------------------===//

#include "gplace/Support/TensorType.h"
#include "gplace/Support/Shape.h"

#include <limits>

namespace gplace {

int64_t TensorType::numElements() const {
  return checkedNumElements(shape).value_or(
      std::numeric_limits<int64_t>::max());
}

int64_t TensorType::bytes() const {
  return checkedTensorBytes(shape, elementType)
      .value_or(std::numeric_limits<int64_t>::max());
}

std::string TensorType::str() const {
  std::string out;
  for (int64_t d : shape)
    out += std::to_string(d) + "x";
  return out + std::string(elementTypeName(elementType));
}

} // namespace gplace
