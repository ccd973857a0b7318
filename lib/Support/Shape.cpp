//===- Shape.cpp - static shapes: sizes, strides, broadcasting ------------===//

#include "gplace/Support/Shape.h"

#include <algorithm>

namespace gplace {

std::optional<int64_t> checkedNumElements(ShapeRef shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    if (dim < 0 || __builtin_mul_overflow(count, dim, &count))
      return std::nullopt;
  return count;
}

std::optional<int64_t> checkedTensorBytes(ShapeRef shape, ElementType type) {
  std::optional<int64_t> count = checkedNumElements(shape);
  int64_t bytes = 0;
  if (!count || __builtin_mul_overflow(*count, elementBytes(type), &bytes))
    return std::nullopt;
  return bytes;
}

std::vector<int64_t> rowMajorStrides(ShapeRef shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::optional<std::vector<int64_t>> broadcastShapes(ShapeRef lhs, ShapeRef rhs,
                                                    int64_t *lhsDim,
                                                    int64_t *rhsDim) {
  size_t rank = std::max(lhs.size(), rhs.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Walk from the last dimension; a missing dimension acts as size 1.
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (l != r && l != 1 && r != 1) {
      if (lhsDim)
        *lhsDim = static_cast<int64_t>(lhs.size() - 1 - i);
      if (rhsDim)
        *rhsDim = static_cast<int64_t>(rhs.size() - 1 - i);
      return std::nullopt;
    }
    result[rank - 1 - i] = l == 1 ? r : l;
  }
  return result;
}

std::vector<int64_t> broadcastStrides(ShapeRef shape, ShapeRef outShape) {
  std::vector<int64_t> own = rowMajorStrides(shape);
  std::vector<int64_t> strides(outShape.size(), 0);
  size_t offset = outShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    strides[d + offset] = shape[d] == 1 ? 0 : own[d];
  return strides;
}

void setSamePadding(WindowDim &window, int64_t input) {
  int64_t output = (input + window.stride - 1) / window.stride;
  int64_t total = std::max<int64_t>(
      (output - 1) * window.stride + window.extent() - input, 0);
  window.padBefore = total / 2;
  window.padAfter = total - window.padBefore;
}

std::optional<int64_t> windowOutputSize(const WindowDim &window,
                                        int64_t input) {
  int64_t extent, padded;
  if (__builtin_mul_overflow(window.size - 1, window.dilation, &extent) ||
      __builtin_add_overflow(extent, 1, &extent) ||
      __builtin_add_overflow(input, window.padBefore, &padded) ||
      __builtin_add_overflow(padded, window.padAfter, &padded))
    return std::nullopt;
  if (padded < extent)
    return std::nullopt;
  return (padded - extent) / window.stride + 1;
}

} // namespace gplace
