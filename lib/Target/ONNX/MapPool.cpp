//===- MapPool.cpp - pools ------------------------------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include "Window.h"

#include <limits>

namespace gplace::frontend::onnx_import {

namespace {

/// A pool with explicit pads [top, bottom, left, right]: the input padded
/// (pad; for MaxPool, select of the lowest value outside a constant mask of
/// the input's place), then the pool VALID; AveragePool without
/// count_include_pad rescaled by a constant: the window's size over the
/// elements of the input it covers.
template <typename OpT>
bool explicitPool(Node &n, Value x, const Window &window,
                  ArrayRef<int64_t> pads, bool countPads,
                  SmallVectorImpl<Value> &results, std::string &reason) {
  constexpr bool average = std::is_same_v<OpT, AvgPoolOp>;
  Builder &b = n.builder();
  RankedTensorType in = window.input;
  Type element = in.getElementType();
  int64_t outH = window.output.getDimSize(2), outW = window.output.getDimSize(3);
  // ceil_mode's last windows, past the end pads: more pads there (not
  // counted by AveragePool, whatever count_include_pad says of the others).
  SmallVector<int64_t> padsWithEnd(pads);
  for (int i = 0; i < 2; ++i) {
    int64_t reach = (window.output.getDimSize(2 + i) - 1) * window.strides[i] +
                    (window.kernel[i] - 1) * window.dilations[i] + 1;
    int64_t extra = reach - (in.getDimSize(2 + i) + pads[2 * i] +
                             pads[2 * i + 1]);
    if (extra > 0) {
      if (countPads) {
        reason = "ceil_mode with count_include_pad = 1";
        return false;
      }
      padsWithEnd[2 * i + 1] += extra;
    }
  }
  pads = padsWithEnd;
  SmallVector<int64_t> paddedShape(in.getShape());
  paddedShape[2] += pads[0] + pads[1];
  paddedShape[3] += pads[2] + pads[3];
  for (int i = 0; i < 2; ++i) {
    WindowDim dim;
    dim.size = window.kernel[i];
    dim.stride = window.strides[i];
    dim.dilation = window.dilations[i];
    std::optional<int64_t> size = windowOutputSize(dim, paddedShape[2 + i]);
    if (!size || *size != window.output.getDimSize(2 + i)) {
      reason = "ceil_mode changing the output size";
      return false;
    }
  }
  if (window.oneD && cast<RankedTensorType>(x.getType()).getRank() == 3)
    x = n.reshape(x, in.getShape(), "input_2d");
  auto paddedType = RankedTensorType::get(paddedShape, element);
  bool unpadded = llvm::all_of(pads, [](int64_t p) { return p == 0; });
  Value padded =
      unpadded ? x
               : n.op<PadOp>(paddedType, x,
                             {n.named("paddings",
                                      b.getDenseI64ArrayAttr(
                                          {0, 0, 0, 0, pads[0], pads[1],
                                           pads[2], pads[3]}))},
                             "padded");
  if (!average && !unpadded) {
    // The lowest value where the pads are, so that they never win.
    auto maskType = RankedTensorType::get({paddedShape[2], paddedShape[3]},
                                          b.getI1Type());
    SmallVector<bool> inside;
    for (int64_t i = 0; i < paddedShape[2]; ++i)
      for (int64_t j = 0; j < paddedShape[3]; ++j)
        inside.push_back(i >= pads[0] && i < pads[0] + in.getDimSize(2) &&
                         j >= pads[2] && j < pads[2] + in.getDimSize(3));
    Value mask = n.constant(
        DenseElementsAttr::get(maskType, ArrayRef<bool>(inside)), "inside");
    Value lowest = n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({}, element),
            b.getFloatAttr(element, -std::numeric_limits<double>::infinity())),
        "lowest");
    padded = n.op<SelectOp>(paddedType, {mask, padded, lowest}, {},
                            "padded_lowest");
  }
  bool rescale = average && !countPads;
  bool last = !rescale && !window.oneD && !window.folded;
  if (llvm::any_of(window.dilations, [](int64_t d) { return d != 1; })) {
    // A dilated MaxPool whose strides are not multiples of its dilations
    // (dilatedPool takes the others): the maximum of each window position's
    // elements, gathered (constant indices) along the height, then the
    // width.
    auto indices = [&](int d, int64_t offset, const std::string &suffix) {
      SmallVector<int64_t> values;
      for (int64_t o = 0; o < window.output.getDimSize(2 + d); ++o)
        values.push_back(o * window.strides[d] + offset);
      return n.constant(
          DenseElementsAttr::get(
              RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type()),
              ArrayRef<int64_t>(values)),
          suffix);
    };
    Value y;
    for (int64_t a = 0; a < window.kernel[0]; ++a) {
      std::string at = "window_" + std::to_string(a);
      SmallVector<int64_t> rowsShape(paddedShape);
      rowsShape[2] = outH;
      Value rows = n.op<GatherOp>(
          RankedTensorType::get(rowsShape, element),
          {padded, indices(0, a * window.dilations[0], at + "_rows")},
          {n.named("axis", b.getI64IntegerAttr(2))}, at);
      for (int64_t c = 0; c < window.kernel[1]; ++c) {
        std::string ac = at + "_" + std::to_string(c);
        bool final = a == window.kernel[0] - 1 && c == window.kernel[1] - 1;
        Value term = n.op<GatherOp>(
            window.output,
            {rows, indices(1, c * window.dilations[1], ac + "_columns")},
            {n.named("axis", b.getI64IntegerAttr(3))}, ac);
        y = y ? n.op<MaximumOp>(window.output, {y, term}, {},
                                final && last ? "" : ac + "_max")
              : term;
      }
    }
    if (window.oneD)
      y = n.reshape(y, n.outputTypes[0].getShape());
    results.push_back(y);
    return true;
  }
  Value y = n.op<OpT>(
      window.output, padded,
      {n.named("ksize", b.getDenseI64ArrayAttr(nchw(window.kernel))),
       n.named("strides", b.getDenseI64ArrayAttr(nchw(window.strides))),
       n.named("padding", b.getStringAttr("VALID")),
       n.named("data_format", b.getStringAttr("NCHW"))},
      last ? "" : "Pool2D");
  if (rescale) {
    SmallVector<Attribute> scales;
    for (int64_t i = 0; i < outH; ++i)
      for (int64_t j = 0; j < outW; ++j) {
        auto covered = [&](int d, int64_t o) {
          int64_t begin = o * window.strides[d] - pads[2 * d];
          int64_t end = begin + window.kernel[d];
          return std::min(end, in.getDimSize(2 + d)) -
                 std::max<int64_t>(begin, 0);
        };
        int64_t count = covered(0, i) * covered(1, j);
        scales.push_back(b.getFloatAttr(
            element, static_cast<double>(window.kernel[0] * window.kernel[1]) /
                         std::max<int64_t>(count, 1)));
      }
    Value scale = n.constant(
        DenseElementsAttr::get(RankedTensorType::get({outH, outW}, element),
                               scales),
        "scale");
    y = n.op<MulOp>(window.output, {y, scale}, {},
                    window.oneD || window.folded ? "rescaled" : "");
  }
  if (window.oneD)
    y = n.reshape(y, n.outputTypes[0].getShape());
  results.push_back(y);
  return true;
}

/// A dilated MaxPool whose strides are multiples of its dilations (in each
/// dimension, stride = m * dilation): every window reads only the rows and
/// columns of the padded input at multiples of the dilation, so the pool is
/// an undilated one (kernel unchanged, stride m) over that subsampled
/// input: the rows, then the columns, the window reaches gathered from the
/// input (constant indices), padded with the lowest value where they fall in
/// the pads, then explicitPool. K_h + K_w taps a window position become one
/// `max_pool`, where the general decomposition gathers each of the K_h * K_w
/// taps. False (nothing built) where a stride is not a multiple of its
/// dilation or a dimension's window positions reach no input element.
bool dilatedPool(Node &n, Value x, const Window &window, ArrayRef<int64_t> pads,
                 SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType in = window.input;
  Window sub = window;
  // Per dimension: the subsampled rows (padded coordinates d * j, j < size)
  // the input covers, [first, first + count), at input rows start + d * k.
  SmallVector<int64_t> subPads(4, 0), subShape(in.getShape());
  SmallVector<int64_t> starts(2), counts(2);
  for (int i = 0; i < 2; ++i) {
    int64_t d = window.dilations[i], s = window.strides[i];
    if (s % d != 0)
      return false;
    int64_t m = s / d, size = in.getDimSize(2 + i), before = pads[2 * i];
    int64_t rows = (window.output.getDimSize(2 + i) - 1) * m + window.kernel[i];
    int64_t first = (before + d - 1) / d;
    int64_t end = std::min(rows, (size + before + d - 1) / d);
    if (end <= first)
      return false;
    starts[i] = d * first - before;
    counts[i] = end - first;
    subPads[2 * i] = first;
    subPads[2 * i + 1] = rows - end;
    subShape[2 + i] = counts[i];
    sub.strides[i] = m;
    sub.dilations[i] = 1;
  }
  Builder &b = n.builder();
  if (window.oneD)
    x = n.reshape(x, in.getShape(), "input_2d");
  SmallVector<int64_t> shape(in.getShape());
  for (int i = 0; i < 2; ++i) {
    int64_t d = window.dilations[i];
    if (d == 1 && starts[i] == 0 && counts[i] == in.getDimSize(2 + i))
      continue;
    SmallVector<int64_t> indices;
    for (int64_t k = 0; k < counts[i]; ++k)
      indices.push_back(starts[i] + d * k);
    Value constant = n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({counts[i]}, b.getI64Type()),
            ArrayRef<int64_t>(indices)),
        i == 0 ? "dilated_rows_indices" : "dilated_columns_indices");
    shape[2 + i] = counts[i];
    x = n.op<GatherOp>(RankedTensorType::get(shape, in.getElementType()),
                       {x, constant},
                       {n.named("axis", b.getI64IntegerAttr(2 + i))},
                       i == 0 ? "dilated_rows" : "dilated_columns");
  }
  sub.input = RankedTensorType::get(subShape, in.getElementType());
  return explicitPool<MaxPoolOp>(n, x, sub, subPads, /*countPads=*/false,
                                 results, reason);
}

/// A 1-D or 2-D pool of `x` over `window` with `padding`: padding
/// TensorFlow can express (none, or SAME's, which for AveragePool averages
/// only the elements inside) directly, other pads by explicitPool, dilated
/// MaxPools by dilatedPool or explicitPool's gathers. `countPads`:
/// AveragePool divides by the whole window, pads included.
template <typename OpT>
bool pool2d(Node &n, Value x, const Window &window, const Padding &padding,
            bool countPads, SmallVectorImpl<Value> &results,
            std::string &reason) {
  bool dilated =
      llvm::any_of(window.dilations, [](int64_t d) { return d != 1; });
  if (dilated && dilatedPool(n, x, window, padding.pads, results, reason))
    return true;
  if (padding.mode == "EXPLICIT" || countPads || dilated)
    return explicitPool<OpT>(n, x, window, padding.pads, countPads, results,
                             reason);
  // The output shape must be what the padding gives (ceil_mode may differ).
  for (int i = 0; i < 2; ++i) {
    WindowDim dim;
    dim.size = window.kernel[i];
    dim.stride = window.strides[i];
    if (padding.mode == "SAME")
      setSamePadding(dim, window.input.getDimSize(2 + i));
    std::optional<int64_t> size =
        windowOutputSize(dim, window.input.getDimSize(2 + i));
    if (!size || *size != window.output.getDimSize(2 + i))
      return explicitPool<OpT>(n, x, window, padding.pads, countPads, results,
                               reason);
  }
  if (window.oneD)
    x = n.reshape(x, window.input.getShape(), "input_2d");
  Builder &b = n.builder();
  Value y = n.op<OpT>(
      window.output, x,
      {n.named("ksize", b.getDenseI64ArrayAttr(nchw(window.kernel))),
       n.named("strides", b.getDenseI64ArrayAttr(nchw(window.strides))),
       n.named("padding", b.getStringAttr(padding.mode)),
       n.named("data_format", b.getStringAttr("NCHW"))},
      window.oneD || window.folded ? "Pool2D" : "");
  if (window.oneD)
    y = n.reshape(y, n.outputTypes[0].getShape());
  results.push_back(y);
  return true;
}

/// A 3-D MaxPool or AveragePool (input [N, C, D, H, W]) as a 2-D pool and a
/// pool over the depth, pooling being separable: the input as [N, C * D,
/// H, W] pooled over H and W by pool2d (its pads, strides, dilations and
/// ceil_mode), the result back as [N, C, D, H_out, W_out]; then each output
/// depth's taps od * sD - pD + k * dD (k < kD) gathered at constant indices
/// into [N, C, D_out, kD, H_out, W_out] and reduced over kD: MaxPool's
/// `reduce_max` (a tap outside the input reads the window's first tap
/// inside it), AveragePool's `reduce_sum` of the taps (the depth padded
/// with zeros) times a constant per output depth: one over the taps inside
/// the input (count_include_pad = 0, the 2-D part averaging only the
/// elements inside too: the clipped window is a box) or inside the padded
/// input (count_include_pad = 1). A depth window that reads no input is
/// refused.
template <typename OpT>
bool pool3d(Node &n, Value x, RankedTensorType xType,
            SmallVectorImpl<Value> &results, std::string &reason) {
  constexpr bool average = std::is_same_v<OpT, AvgPoolOp>;
  RankedTensorType outType = n.outputTypes[0];
  if (!outType || outType.getRank() != 5) {
    reason = "an output of another rank than the input";
    return false;
  }
  auto list = [&](llvm::StringRef name, int64_t size, int64_t fill) {
    return n.getInts(name).value_or(SmallVector<int64_t>(size, fill));
  };
  SmallVector<int64_t> kernel = list("kernel_shape", 0, 0),
                       strides = list("strides", 3, 1),
                       dilations = list("dilations", 3, 1),
                       pads = list("pads", 6, 0);
  if (kernel.size() != 3 || strides.size() != 3 || dilations.size() != 3 ||
      pads.size() != 6) {
    reason = "kernel_shape, strides, dilations or pads of the wrong length";
    return false;
  }
  auto below = [](ArrayRef<int64_t> values, int64_t least) {
    return llvm::any_of(values, [&](int64_t v) { return v < least; });
  };
  if (below(kernel, 1) || below(strides, 1) || below(dilations, 1) ||
      below(pads, 0)) {
    reason = "kernel_shape, strides or dilations below 1, or negative pads";
    return false;
  }
  if (average && llvm::any_of(dilations, [](int64_t d) { return d != 1; })) {
    reason = "dilations other than 1";
    return false;
  }
  if (!xType.hasStaticShape() || !outType.hasStaticShape()) {
    reason = "a 3-D pool of a dynamic shape";
    return false;
  }
  if (!autoPads3d(n, kernel, strides, dilations, xType, pads, reason))
    return false;
  bool countPads = average && n.getInt("count_include_pad", 0);
  int64_t batch = xType.getDimSize(0), channels = xType.getDimSize(1);
  int64_t depth = xType.getDimSize(2), height = xType.getDimSize(3),
          width = xType.getDimSize(4);
  int64_t outDepth = outType.getDimSize(2), outHeight = outType.getDimSize(3),
          outWidth = outType.getDimSize(4);
  if (outType.getDimSize(0) != batch || outType.getDimSize(1) != channels) {
    reason = "an output shape the window does not give";
    return false;
  }
  // Each output depth's taps, and the divisor of its average.
  int64_t taps = kernel[0];
  SmallVector<int64_t> positions;
  SmallVector<double> divisors;
  int64_t lowest = 0, highest = depth - 1;
  for (int64_t od = 0; od < outDepth; ++od) {
    int64_t inside = 0, inPadded = 0, first = -1;
    for (int64_t k = 0; k < taps; ++k) {
      int64_t d = od * strides[0] - pads[0] + k * dilations[0];
      positions.push_back(d);
      lowest = std::min(lowest, d);
      highest = std::max(highest, d);
      if (d >= 0 && d < depth) {
        ++inside;
        if (first < 0)
          first = d;
      }
      inPadded += d >= -pads[0] && d < depth + pads[3];
    }
    if (!inside) {
      reason = "a depth window that reads no input element";
      return false;
    }
    if (!average)
      for (int64_t k = 0; k < taps; ++k) {
        int64_t &d = positions[od * taps + k];
        if (d < 0 || d >= depth)
          d = first;
      }
    divisors.push_back(countPads ? inPadded : inside);
  }

  // The 2-D part, over [N, C * D, H, W].
  Type element = xType.getElementType();
  Window window;
  window.folded = true;
  window.kernel = {kernel[1], kernel[2]};
  window.strides = {strides[1], strides[2]};
  window.dilations = {dilations[1], dilations[2]};
  window.pads = {pads[1], pads[2], pads[4], pads[5]};
  window.input = RankedTensorType::get(
      {batch, channels * depth, height, width}, element);
  window.output = RankedTensorType::get(
      {batch, channels * depth, outHeight, outWidth}, element);
  // auto_pad over H and W as for a 2-D pool, or the pads, SAME's where
  // they are TensorFlow's.
  Padding padding;
  if (!window.padding(n, padding, reason))
    return false;
  bool padded2d = llvm::any_of(padding.pads, [](int64_t p) { return p; });
  SmallVector<Value, 1> pooled;
  Value folded = n.reshape(x, window.input.getShape(), "depth_folded");
  if (!pool2d<OpT>(n, folded, window, padding, countPads && padded2d, pooled,
                   reason))
    return false;
  // A depth window of one tap at every depth: nothing more to pool.
  bool identity = taps == 1 && outDepth == depth;
  for (int64_t od = 0; identity && od < outDepth; ++od)
    identity = positions[od] == od;
  Value y = n.reshape(pooled[0],
                      {batch, channels, depth, outHeight, outWidth},
                      identity ? "" : "depth_unfolded");
  if (identity) {
    results.push_back(y);
    return true;
  }

  // The depth.
  Builder &b = n.builder();
  int64_t before = 0, after = 0;
  if (average) {
    before = -lowest;
    after = highest - (depth - 1);
    for (int64_t &d : positions)
      d += before;
    if (before || after)
      y = n.op<PadOp>(
          RankedTensorType::get({batch, channels, depth + before + after,
                                 outHeight, outWidth},
                                element),
          y,
          {n.named("paddings",
                   b.getDenseI64ArrayAttr(
                       {0, 0, 0, 0, before, after, 0, 0, 0, 0}))},
          "depth_padded");
  }
  Value indices = n.constant(
      DenseElementsAttr::get(
          RankedTensorType::get({outDepth, taps}, b.getI64Type()),
          ArrayRef<int64_t>(positions)),
      "depth_taps_indices");
  Value gathered = n.op<GatherOp>(
      RankedTensorType::get({batch, channels, outDepth, taps, outHeight,
                             outWidth},
                            element),
      {y, indices}, {n.named("axis", b.getI64IntegerAttr(2))}, "depth_taps");
  SmallVector<NamedAttribute> reduceAttrs = {
      n.named("axes", b.getDenseI64ArrayAttr({3}))};
  if (!average) {
    results.push_back(n.op<ReduceMaxOp>(outType, gathered, reduceAttrs));
    return true;
  }
  // Every depth window counting all its taps (no depth padding, or
  // count_include_pad), a power of two of them: their mean, one step
  // instead of a sum and a multiply (test_averagepool_3d_default's mul
  // took 18 µs of 155). The host's mean over other counts divides, slower
  // than the multiply (90 µs against 47 + 18 there).
  if (llvm::isPowerOf2_64(taps) &&
      llvm::all_of(divisors, [&](double d) { return d == double(taps); })) {
    results.push_back(n.op<ReduceMeanOp>(outType, gathered, reduceAttrs));
    return true;
  }
  Value sum =
      n.op<ReduceSumOp>(outType, gathered, reduceAttrs, "depth_sum");
  SmallVector<Attribute> scales;
  for (double divisor : divisors)
    scales.push_back(b.getFloatAttr(element, 1.0 / divisor));
  Value scale = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({outDepth, 1, 1}, element),
                             scales),
      "depth_scale");
  results.push_back(n.op<MulOp>(outType, {sum, scale}));
  return true;
}

/// MaxPool's Indices output (2-D, [N, C, H, W]), as TensorFlow's
/// MaxPoolWithArgmax computes its argmax but in ONNX's order: each output
/// element's window (its taps h = oh * sH - padTop + kh * dH, likewise w,
/// from the padding `pads` and the output's shape, so ceil_mode included)
/// gathered at constant indices from x flattened to [N, C, H * W] with one
/// -inf appended (the taps outside the input), `argmax` over the taps (the
/// first on ties, as ONNX's reference scans them), then that tap's flat
/// index: ((n * C + c) * H + h) * W + w, or with storage_order = 1
/// (column-major) (n * C + c) * H * W + h + w * H.
Value maxPoolIndices(Node &n, Value x, const Window &window,
                     ArrayRef<int64_t> pads, std::string &reason) {
  auto xType = cast<RankedTensorType>(x.getType());
  RankedTensorType indicesType = n.outputTypes[1];
  if (!indicesType || indicesType.getRank() != 4) {
    reason = "the Indices output of a pool that is not 2-D";
    return {};
  }
  int64_t N = xType.getDimSize(0), C = xType.getDimSize(1),
          H = xType.getDimSize(2), W = xType.getDimSize(3);
  int64_t OH = indicesType.getDimSize(2), OW = indicesType.getDimSize(3);
  int64_t KH = window.kernel[0], KW = window.kernel[1], K = KH * KW;
  bool columnMajor = n.getInt("storage_order", 0) != 0;
  SmallVector<int64_t> taps, tapIndex, base;
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t ow = 0; ow < OW; ++ow) {
      base.push_back((oh * OW + ow) * K);
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          int64_t h = oh * window.strides[0] - pads[0] +
                      kh * window.dilations[0];
          int64_t w = ow * window.strides[1] - pads[2] +
                      kw * window.dilations[1];
          bool inside = h >= 0 && h < H && w >= 0 && w < W;
          taps.push_back(inside ? h * W + w : H * W);
          tapIndex.push_back(!inside ? 0 : columnMajor ? h + w * H
                                                       : h * W + w);
        }
    }
  Builder &b = n.builder();
  Type element = xType.getElementType();
  Type i64 = b.getI64Type();
  Value flat = n.reshape(x, {N, C, H * W}, "indices/flat");
  Value lowest = n.constant(
      DenseElementsAttr::get(
          RankedTensorType::get({N, C, 1}, element),
          b.getFloatAttr(element, -std::numeric_limits<double>::infinity())),
      "indices/outside");
  Value extended = n.importer.b.create<ConcatOp>(
      n.loc, RankedTensorType::get({N, C, H * W + 1}, element),
      ValueRange{flat, lowest}, b.getI64IntegerAttr(2), StringAttr(),
      b.getStringAttr(n.name + "/indices/extended"), StringAttr(),
      ValueRange());
  Value windows = n.op<GatherOp>(
      RankedTensorType::get({N, C, OH * OW * K}, element),
      {extended, i64Constant(n, {OH * OW * K}, taps, "indices/taps")},
      {n.named("axis", b.getI64IntegerAttr(2))}, "indices/windows");
  windows = n.reshape(windows, {N, C, OH, OW, K}, "indices/by_window");
  auto quarter = RankedTensorType::get({N, C, OH, OW}, i64);
  Value which = n.op<ArgMaxOp>(quarter, windows,
                               {n.named("axis", b.getI64IntegerAttr(4))},
                               "indices/argmax");
  Value at = n.op<AddOp>(quarter, {which, i64Constant(n, {OH, OW}, base, "indices/base")},
                         {}, "indices/tap");
  Value spatial = n.op<GatherOp>(
      quarter, {i64Constant(n, {OH * OW * K}, tapIndex, "indices/tap_index"), at},
      {n.named("axis", b.getI64IntegerAttr(0))}, "indices/spatial");
  SmallVector<int64_t> offsets;
  for (int64_t i = 0; i < N * C; ++i)
    offsets.push_back(i * H * W);
  Value offset = i64Constant(n, {N, C, 1, 1}, offsets, "indices/channel_offset");
  return n.op<AddOp>(indicesType, {spatial, offset}, {}, "Indices");
}

/// MaxPool and AveragePool of `x` (a float tensor): 1-D and 2-D by
/// pool2d, 3-D by pool3d; a 2-D MaxPool's Indices output by
/// maxPoolIndices.
template <typename OpT>
bool floatPool(Node &n, Value x, SmallVectorImpl<Value> &results,
               std::string &reason) {
  auto xType = cast<RankedTensorType>(x.getType());
  constexpr bool isMax = std::is_same_v<OpT, MaxPoolOp>;
  bool indices = n.outputTypes.size() > 1 && n.outputTypes[1];
  if (indices && (xType.getRank() != 4 || !isMax ||
                  !isa<FloatType>(xType.getElementType()))) {
    reason = "the Indices output of a pool that is not a 2-D float MaxPool";
    return false;
  }
  if (n.getInt("storage_order", 0) && !indices) {
    reason = "storage_order = 1";
    return false;
  }
  if (xType.getRank() == 5)
    return pool3d<OpT>(n, x, xType, results, reason);
  Window window;
  if (!window.read(n, xType,
                   n.getInts("kernel_shape").value_or(SmallVector<int64_t>()),
                   reason))
    return false;
  constexpr bool average = std::is_same_v<OpT, AvgPoolOp>;
  if (average &&
      llvm::any_of(window.dilations, [](int64_t d) { return d != 1; })) {
    reason = "dilations other than 1";
    return false;
  }
  Padding padding;
  if (!window.padding(n, padding, reason))
    return false;
  bool countPads = average && n.getInt("count_include_pad", 0) &&
                   llvm::any_of(padding.pads, [](int64_t p) { return p != 0; });
  if (!pool2d<OpT>(n, x, window, padding, countPads, results, reason))
    return false;
  if (indices) {
    Value i = maxPoolIndices(n, x, window, padding.pads, reason);
    if (!i)
      return false;
    results.push_back(i);
  }
  return true;
}

/// MaxPool and AveragePool (floatPool). A MaxPool of integers of at most
/// 32 bits (ONNX's uint8 and int8 pools) is the pool of their exact
/// conversion to f32 (to f64 for 32 bits), cast back: each result is one of
/// the input's elements, so the cast back is exact, and the padding's -inf
/// never wins a window (each holds an element of the input).
template <typename OpT>
bool mapPool(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value x = n.input(0);
  auto xType = cast<RankedTensorType>(x.getType());
  auto integer = dyn_cast<IntegerType>(xType.getElementType());
  if (!integer || !std::is_same_v<OpT, MaxPoolOp>)
    return floatPool<OpT>(n, x, results, reason);
  RankedTensorType outType = n.outputTypes[0];
  if (integer.getWidth() > 32 || !outType) {
    reason = "a MaxPool of " + std::to_string(integer.getWidth()) +
             "-bit integers (no float type holds them all exactly)";
    return false;
  }
  Builder &b = n.builder();
  Type wide = integer.getWidth() <= 16 ? Type(b.getF32Type())
                                       : Type(b.getF64Type());
  Value widened = n.op<CastOp>(
      RankedTensorType::get(xType.getShape(), wide), x, {}, "to_float");
  // The pool of the floats, as the node's float twin.
  n.outputTypes[0] = RankedTensorType::get(outType.getShape(), wide);
  bool pooled = floatPool<OpT>(n, widened, results, reason);
  n.outputTypes[0] = outType;
  if (!pooled)
    return false;
  results[0].getDefiningOp()->setAttr("name",
                                      b.getStringAttr(n.name + "/float"));
  results[0] = n.op<CastOp>(outType, results[0]);
  return true;
}

template <typename OpT>
bool mapGlobalPool(Node &n, SmallVectorImpl<Value> &results,
                   std::string &reason) {
  int64_t rank = n.inputType(0).getRank();
  if (rank < 3) {
    reason = "an input of rank " + std::to_string(rank);
    return false;
  }
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  Builder &b = n.builder();
  results.push_back(n.op<OpT>(n.outputTypes[0], n.input(0),
                              {n.named("axes", b.getDenseI64ArrayAttr(axes)),
                               n.named("keep_dims", b.getUnitAttr())}));
  return true;
}

} // namespace

void addPoolMappers(llvm::StringMap<MapFn> &table) {
  table["AveragePool"] = mapPool<AvgPoolOp>;
  table["GlobalAveragePool"] = mapGlobalPool<ReduceMeanOp>;
  table["GlobalMaxPool"] = mapGlobalPool<ReduceMaxOp>;
  table["MaxPool"] = mapPool<MaxPoolOp>;
}

} // namespace gplace::frontend::onnx_import
