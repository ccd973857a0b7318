//===- Shape.h - static shapes: sizes, strides, broadcasting ----*- C++ -*-===//
//
// The one place that says how big a tensor is and how numpy broadcasting
// lines shapes up: the graph's verifiers, the memory planner, the host
// kernels and the NVRTC kernel generator all call these. Sizes are checked:
// a shape whose element count or byte size does not fit in int64_t has
// none. Plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_SHAPE_H
#define GPLACE_SUPPORT_SHAPE_H

#include "gplace/Support/ElementType.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gplace {

/// A read-only view of a shape (dimension sizes, outermost first): any
/// contiguous array of int64_t with data() and size() (std::vector,
/// llvm::ArrayRef, llvm::SmallVector).
class ShapeRef {
public:
  ShapeRef() = default;
  ShapeRef(const int64_t *data, size_t size) : data_(data), size_(size) {}
  template <typename Container>
  ShapeRef(const Container &dims) : data_(dims.data()), size_(dims.size()) {}

  const int64_t *begin() const { return data_; }
  const int64_t *end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return data_[i]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

private:
  const int64_t *data_ = nullptr;
  size_t size_ = 0;
};

/// The number of elements of `shape` (1 for a scalar), or std::nullopt if a
/// dimension is negative or the product overflows int64_t.
std::optional<int64_t> checkedNumElements(ShapeRef shape);

/// The bytes of a dense row-major tensor of `shape` and `type`
/// (checkedNumElements * elementBytes), or std::nullopt on overflow.
std::optional<int64_t> checkedTensorBytes(ShapeRef shape, ElementType type);

/// Row-major strides of `shape`, in elements (the last dimension's is 1).
std::vector<int64_t> rowMajorStrides(ShapeRef shape);

/// The numpy broadcast of `lhs` and `rhs`: shapes align at their last
/// dimension and a dimension of size 1 stretches to the other's size.
/// Returns std::nullopt when they are not broadcast-compatible, and then
/// sets `lhsDim`/`rhsDim` (when given) to the first incompatible pair of
/// dimensions, each in its own shape's numbering.
std::optional<std::vector<int64_t>> broadcastShapes(ShapeRef lhs, ShapeRef rhs,
                                                    int64_t *lhsDim = nullptr,
                                                    int64_t *rhsDim = nullptr);

/// The strides, in elements, that read an operand of shape `shape`
/// broadcast to `outShape` (aligned at the last dimension, 0 along the
/// dimensions it is stretched over or lacks): element `i` of the output
/// reads the operand at sum(index_d(i) * strides[d]). `shape` must
/// broadcast to `outShape`.
std::vector<int64_t> broadcastStrides(ShapeRef shape, ShapeRef outShape);

/// A window moved over one spatial dimension of a convolution or pooling,
/// as TensorFlow's GetWindowedOutputSizeVerbose computes it: `size`
/// elements `dilation` apart, moved by `stride`, over the input with
/// `padBefore` and `padAfter` zeros added.
struct WindowDim {
  int64_t size = 1, stride = 1, dilation = 1;
  int64_t padBefore = 0, padAfter = 0;
  /// The window's extent in input elements: (size - 1) * dilation + 1.
  int64_t extent() const { return (size - 1) * dilation + 1; }
};

/// The padding "SAME" gives a window over `input` elements (TensorFlow's
/// Padding::SAME): the output has ceil(input / stride) elements and the
/// zeros needed for it are split in two, the extra one after. Sets
/// `window.padBefore` and `padAfter`; `size`, `stride` and `dilation` are
/// positive.
void setSamePadding(WindowDim &window, int64_t input);

/// The number of window positions over `input` elements:
/// (input + pads - extent) / stride + 1, or std::nullopt when the window
/// does not fit once (TensorFlow's "Computed output size would be
/// negative") or a size overflows. `size`, `stride` and `dilation` are
/// positive.
std::optional<int64_t> windowOutputSize(const WindowDim &window,
                                        int64_t input);

} // namespace gplace

#endif // GPLACE_SUPPORT_SHAPE_H
