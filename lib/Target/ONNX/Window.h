//===- Window.h - window attributes of convolutions and pools -*- C++ -*-===//
//
// Part of the ONNX importer: see OnnxImporter.h. What MapConvolution.cpp
// and MapPool.cpp share: the attributes of a 1-D or 2-D window op read as
// 2-D, and their padding.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_TARGET_ONNX_WINDOW_H
#define GPLACE_LIB_TARGET_ONNX_WINDOW_H

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

/// The padding of a 2-D window op: "VALID", "SAME" or explicit pads
/// [top, bottom, left, right], from auto_pad or pads.
struct Padding {
  std::string mode;
  SmallVector<int64_t> pads; ///< top, bottom, left, right
};

/// A 1-D or 2-D window op's attributes, as 2-D: a 1-D op (input [N, C, L])
/// runs as a 2-D one over [N, C, L, 1].
struct Window {
  bool oneD = false;
  /// The 2-D part of a 3-D pool (MapPool.cpp, pool3d): its result is not
  /// the node's, so every op it builds is a named helper.
  bool folded = false;
  SmallVector<int64_t> kernel, strides, dilations;
  SmallVector<int64_t> pads; ///< ONNX's order: begins, then ends.
  RankedTensorType input, output; ///< 4-D.

  /// Reads the attributes of node `n` over input `x` with `kernel` (the
  /// filter's or kernel_shape's spatial sizes); false with `reason` for a
  /// 3-D window or malformed lists.
  bool read(Node &n, RankedTensorType x, ArrayRef<int64_t> kernelSizes,
            std::string &reason) {
    int64_t spatial = x.getRank() - 2;
    if (spatial != 1 && spatial != 2) {
      reason = "a " + std::to_string(spatial) + "-D window (gplace has 1-D "
               "and 2-D)";
      return false;
    }
    oneD = spatial == 1;
    auto list = [&](llvm::StringRef name, SmallVector<int64_t> &out) {
      out = n.getInts(name).value_or(SmallVector<int64_t>(spatial, 1));
      if (static_cast<int64_t>(out.size()) != spatial)
        return false;
      if (oneD)
        out.push_back(1);
      return true;
    };
    kernel.assign(kernelSizes.begin(), kernelSizes.end());
    if (static_cast<int64_t>(kernel.size()) != spatial ||
        !list("strides", strides) || !list("dilations", dilations)) {
      reason = "kernel_shape, strides or dilations of the wrong length";
      return false;
    }
    if (oneD)
      kernel.push_back(1);
    SmallVector<int64_t> given =
        n.getInts("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
    if (static_cast<int64_t>(given.size()) != 2 * spatial) {
      reason = "pads of the wrong length";
      return false;
    }
    pads = oneD ? SmallVector<int64_t>{given[0], 0, given[1], 0} : given;
    SmallVector<int64_t> shape(x.getShape());
    SmallVector<int64_t> outShape(n.outputTypes[0].getShape());
    if (oneD) {
      shape.push_back(1);
      outShape.push_back(1);
    }
    input = RankedTensorType::get(shape, x.getElementType());
    output = RankedTensorType::get(outShape, x.getElementType());
    return true;
  }

  /// The padding: auto_pad, or pads that are none, TensorFlow's SAME, or
  /// explicit.
  bool padding(Node &n, Padding &padding, std::string &reason) const {
    std::string autoPad = n.getString("auto_pad", "NOTSET");
    padding.pads.assign(4, 0);
    if (autoPad == "VALID") {
      padding.mode = "VALID";
      return true;
    }
    auto same = [&](int i) {
      WindowDim dim;
      dim.size = kernel[i];
      dim.stride = strides[i];
      dim.dilation = dilations[i];
      setSamePadding(dim, input.getDimSize(2 + i));
      return dim;
    };
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      padding.mode = "SAME";
      for (int i = 0; i < 2; ++i) {
        WindowDim dim = same(i);
        if (autoPad == "SAME_LOWER")
          std::swap(dim.padBefore, dim.padAfter);
        padding.pads[2 * i] = dim.padBefore;
        padding.pads[2 * i + 1] = dim.padAfter;
        if (dim.padBefore != dim.padAfter && autoPad == "SAME_LOWER")
          padding.mode = "EXPLICIT";
      }
      return true;
    }
    if (autoPad != "NOTSET") {
      reason = "auto_pad '" + autoPad + "'";
      return false;
    }
    padding.pads = {pads[0], pads[2], pads[1], pads[3]};
    if (llvm::all_of(pads, [](int64_t p) { return p == 0; })) {
      padding.mode = "VALID";
      return true;
    }
    // Pads equal to TensorFlow's SAME ones are SAME.
    bool isSame = true;
    for (int i = 0; i < 2; ++i) {
      WindowDim dim = same(i);
      isSame &= dim.padBefore == padding.pads[2 * i] &&
                dim.padAfter == padding.pads[2 * i + 1];
    }
    padding.mode = isSame ? "SAME" : "EXPLICIT";
    return true;
  }
};

/// The pads [d, h, w before; d, h, w after] of a 3-D window op (Conv,
/// MaxPool, AveragePool over [N, C, D, H, W] `x`) under the node's
/// auto_pad: `pads` as given for NOTSET, zeros for VALID, SAME_UPPER's and
/// SAME_LOWER's (TensorFlow's SAME, the extra pad after or before) from
/// `kernel`, `strides` and `dilations`; false with `reason` for another
/// auto_pad.
inline bool autoPads3d(Node &n, ArrayRef<int64_t> kernel,
                       ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                       RankedTensorType x, SmallVectorImpl<int64_t> &pads,
                       std::string &reason) {
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    pads.assign(6, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int i = 0; i < 3; ++i) {
      WindowDim dim;
      dim.size = kernel[i];
      dim.stride = strides[i];
      dim.dilation = dilations[i];
      setSamePadding(dim, x.getDimSize(2 + i));
      if (autoPad == "SAME_LOWER")
        std::swap(dim.padBefore, dim.padAfter);
      pads[i] = dim.padBefore;
      pads[3 + i] = dim.padAfter;
    }
  } else if (autoPad != "NOTSET") {
    reason = "auto_pad '" + autoPad + "'";
    return false;
  }
  return true;
}

/// `hw` (two spatial sizes) as NCHW's four, `fill` for N and C.
inline SmallVector<int64_t> nchw(ArrayRef<int64_t> hw, int64_t fill = 1) {
  return {fill, fill, hw[0], hw[1]};
}

} // namespace gplace::frontend::onnx_import

#endif // GPLACE_LIB_TARGET_ONNX_WINDOW_H
