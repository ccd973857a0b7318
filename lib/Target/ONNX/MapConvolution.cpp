//===- MapConvolution.cpp - convolutions ------------------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include "Window.h"

namespace gplace::frontend::onnx_import {

namespace {

/// `value` transposed by `perm` (result dimension i is dimension perm[i]),
/// for constants the importer rearranges once instead of every run;
/// std::nullopt for booleans, whose storage is not one element a byte.
std::optional<DenseElementsAttr> transposeConstant(DenseElementsAttr value,
                                                   ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (value.isSplat())
    return value.reshape(resultType);
  if (type.getElementType().isInteger(1))
    return std::nullopt;
  int64_t width = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> in = value.getRawData();
  std::vector<char> out(in.size());
  std::vector<int64_t> inStrides = rowMajorStrides(type.getShape());
  int64_t rank = shape.size(), count = type.getNumElements();
  SmallVector<int64_t> index(rank, 0);
  for (int64_t o = 0; o < count; ++o) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * inStrides[perm[d]];
    std::memcpy(out.data() + o * width, in.data() + source * width, width);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}


/// The filter `w` (ONNX's OIHW, or OIW for a 1-D convolution when `oneD`,
/// widened to OIW1) as TensorFlow's HWIO: rearranged at import time when
/// input 1 is a constant (an initializer that stays a constant), else by a
/// `transpose` each run. Conv's and ConvTranspose's filters both come this
/// way (ConvTranspose's IOHW lands as HWOI, Conv2DBackpropInput's order).
/// With `input1` false, `w` is not input 1 but computed from the node's
/// inputs (ConvInteger's, QLinearConv's): always the `transpose`, which
/// folding computes once where `w` is a constant.
Value hwioFilter(Node &n, Value w, RankedTensorType wType, bool oneD,
                 bool input1 = true) {
  std::optional<DenseElementsAttr> constantFilter =
      input1 ? n.constant(1) : std::nullopt;
  bool variable = n.importer.options.initializersAsVariables &&
                  n.importer.initializers.count(n.proto.input(1));
  SmallVector<int64_t> shape(wType.getShape());
  if (oneD)
    shape.push_back(1);
  if (constantFilter && !variable)
    if (std::optional<DenseElementsAttr> hwio = transposeConstant(
            constantFilter->reshape(
                RankedTensorType::get(shape, wType.getElementType())),
            {2, 3, 1, 0}))
      return n.constant(*hwio, "filter");
  if (oneD)
    w = n.reshape(w, shape, "filter_2d");
  return n.transpose(w, {2, 3, 1, 0}, "filter");
}

/// Conv: 1-D and 2-D (NCHW, the filter OIHW transposed to HWIO), any
/// padding, groups, the bias added per channel.
} // namespace

Value conv(Node &n, Value x, Value w, Value bias, bool final,
           bool filterIsInput1, std::string &reason) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (wType.getRank() != xType.getRank() || xType.getRank() < 3) {
    reason = "a filter of another rank than the input";
    return nullptr;
  }
  // Conv2D groups as TensorFlow's does, by the channels: the input's over
  // the filter's. ONNX names the group count, which must agree (ONNX 1.12's
  // shape inference does not check it; ONNX Runtime refuses the model).
  int64_t group = n.getInt("group", 1);
  if (group < 1 || xType.getDimSize(1) != wType.getDimSize(1) * group) {
    reason = "group " + std::to_string(group) + " with " +
             std::to_string(xType.getDimSize(1)) +
             " input channels and a filter of " +
             std::to_string(wType.getDimSize(1)) +
             " (the input's channels must be the filter's times the group)";
    return nullptr;
  }
  Window window;
  if (!window.read(n, xType, wType.getShape().drop_front(2), reason))
    return nullptr;
  Padding padding;
  if (!window.padding(n, padding, reason))
    return nullptr;
  if (window.oneD)
    x = n.reshape(x, window.input.getShape(), "input_2d");
  Builder &b = n.builder();
  Value filter = hwioFilter(n, w, wType, window.oneD, filterIsInput1);
  SmallVector<NamedAttribute> attrs = {
      n.named("strides", b.getDenseI64ArrayAttr(nchw(window.strides))),
      n.named("padding", b.getStringAttr(padding.mode)),
      n.named("data_format", b.getStringAttr("NCHW")),
      n.named("dilations", b.getDenseI64ArrayAttr(nchw(window.dilations)))};
  if (padding.mode == "EXPLICIT")
    attrs.push_back(n.named(
        "explicit_paddings",
        b.getDenseI64ArrayAttr({0, 0, 0, 0, padding.pads[0], padding.pads[1],
                                padding.pads[2], padding.pads[3]})));
  bool last = final && !bias && !window.oneD;
  Value y = n.op<Conv2DOp>(window.output, {x, filter}, attrs,
                           last ? "" : "Conv2D");
  if (bias) {
    int64_t channels = window.output.getDimSize(1);
    Value b3 = n.reshape(bias, {channels, 1, 1}, "bias");
    y = n.op<AddOp>(window.output, {y, b3}, {},
                    final && !window.oneD ? "" : "BiasAdd");
  }
  if (window.oneD)
    y = n.reshape(y, n.outputTypes[0].getShape(), final ? "" : "output_1d");
  return y;
}

namespace {

/// Conv of a 3-D window (input [N, C, D, H, W], filter [M, C / group, kD,
/// kH, kW]) as 2-D convolutions, the depth folded into the batch: the input
/// padded along D (`pad`) and moved to [N, D, C, H, W]; for each depth tap
/// t, the depths od * sD + t * dD (`gather` at constant indices) as a batch
/// of N * D_out images, convolved (`conv2d`, NCHW, H and W padded
/// explicitly) with the filter's tap t; the taps' results `add`ed, the bias
/// added, and the result moved back to [N, M, D_out, H_out, W_out]. As
/// XLA and cuDNN decompose 3-D convolutions where they lack a kernel.
bool conv3d(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value x = n.input(0), w = n.input(1);
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  RankedTensorType outType = n.outputTypes[0];
  if (wType.getRank() != 5 || !outType || outType.getRank() != 5) {
    reason = "a filter of another rank than the input";
    return false;
  }
  int64_t group = n.getInt("group", 1);
  if (group < 1 || xType.getDimSize(1) != wType.getDimSize(1) * group) {
    reason = "group " + std::to_string(group) +
             " that does not divide the input's channels as the filter's";
    return false;
  }
  auto list = [&](llvm::StringRef name, int64_t size, int64_t fill) {
    return n.getInts(name).value_or(SmallVector<int64_t>(size, fill));
  };
  SmallVector<int64_t> strides = list("strides", 3, 1),
                       dilations = list("dilations", 3, 1),
                       pads = list("pads", 6, 0);
  if (strides.size() != 3 || dilations.size() != 3 || pads.size() != 6) {
    reason = "strides, dilations or pads of the wrong length";
    return false;
  }
  if (!autoPads3d(n, wType.getShape().drop_front(2), strides, dilations,
                  xType, pads, reason))
    return false;
  int64_t batch = xType.getDimSize(0), channels = xType.getDimSize(1);
  int64_t depth = xType.getDimSize(2), height = xType.getDimSize(3),
          width = xType.getDimSize(4);
  int64_t filters = wType.getDimSize(0), taps = wType.getDimSize(2);
  int64_t outDepth = outType.getDimSize(2), outHeight = outType.getDimSize(3),
          outWidth = outType.getDimSize(4);
  int64_t paddedDepth = depth + pads[0] + pads[3];
  if (outType.getDimSize(1) != filters ||
      (outDepth - 1) * strides[0] + (taps - 1) * dilations[0] >= paddedDepth) {
    reason = "an output shape the window does not give";
    return false;
  }
  if (batch * outDepth * taps > 4096) {
    reason = "more than 4096 depth slices";
    return false;
  }
  Builder &b = n.builder();
  Type element = xType.getElementType();
  if (pads[0] || pads[3])
    x = n.op<PadOp>(
        RankedTensorType::get({batch, channels, paddedDepth, height, width},
                              element),
        x,
        {n.named("paddings", b.getDenseI64ArrayAttr(
                                 {0, 0, 0, 0, pads[0], pads[3], 0, 0, 0, 0}))},
        "depth_padded");
  Value depthMajor = n.transpose(x, {0, 2, 1, 3, 4}, "depth_major");
  auto sliceType = RankedTensorType::get(
      {batch * outDepth, filters, outHeight, outWidth}, element);
  SmallVector<NamedAttribute> attrs = {
      n.named("strides", b.getDenseI64ArrayAttr({1, 1, strides[1], strides[2]})),
      n.named("padding", b.getStringAttr("EXPLICIT")),
      n.named("data_format", b.getStringAttr("NCHW")),
      n.named("dilations",
              b.getDenseI64ArrayAttr({1, 1, dilations[1], dilations[2]})),
      n.named("explicit_paddings",
              b.getDenseI64ArrayAttr(
                  {0, 0, 0, 0, pads[1], pads[4], pads[2], pads[5]}))};
  Value sum;
  for (int64_t t = 0; t < taps; ++t) {
    std::string tag = "_" + std::to_string(t);
    SmallVector<int64_t> indices;
    for (int64_t od = 0; od < outDepth; ++od)
      indices.push_back(od * strides[0] + t * dilations[0]);
    Value picked = n.op<GatherOp>(
        RankedTensorType::get({batch, outDepth, channels, height, width},
                              element),
        {depthMajor,
         n.constant(DenseElementsAttr::get(
                        RankedTensorType::get({outDepth}, b.getI64Type()),
                        ArrayRef<int64_t>(indices)),
                    "depths" + tag)},
        {n.named("axis", b.getI64IntegerAttr(1))}, "tap" + tag);
    Value images = n.reshape(
        picked, {batch * outDepth, channels, height, width}, "images" + tag);
    SmallVector<int64_t> begin = {0, 0, t, 0, 0};
    SmallVector<int64_t> sizes(wType.getShape());
    sizes[2] = 1;
    Value tap = n.op<SliceOp>(
        RankedTensorType::get(sizes, wType.getElementType()), w,
        {n.named("begin", b.getDenseI64ArrayAttr(begin)),
         n.named("size", b.getDenseI64ArrayAttr(sizes))},
        "filter_tap" + tag);
    Value oihw = n.reshape(tap, {sizes[0], sizes[1], sizes[3], sizes[4]},
                           "filter_oihw" + tag);
    Value hwio = n.transpose(oihw, {2, 3, 1, 0}, "filter" + tag);
    Value y = n.op<Conv2DOp>(sliceType, {images, hwio}, attrs, "Conv2D" + tag);
    sum = sum ? n.op<AddOp>(sliceType, {sum, y}, {}, "sum" + tag) : y;
  }
  if (n.hasInput(2))
    sum = n.op<AddOp>(sliceType,
                      {sum, n.reshape(n.input(2), {filters, 1, 1}, "bias")},
                      {}, "BiasAdd");
  Value unfolded = n.reshape(
      sum, {batch, outDepth, filters, outHeight, outWidth}, "depth_unfolded");
  results.push_back(n.transpose(unfolded, {0, 2, 1, 3, 4}));
  return true;
}

/// Conv: conv of its input, filter and bias.
bool mapConv(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  if (n.inputType(0) && n.inputType(0).getRank() == 5)
    return conv3d(n, results, reason);
  Value y = conv(n, n.input(0), n.input(1), n.input(2), /*final=*/true,
                 /*filterIsInput1=*/true, reason);
  if (!y)
    return false;
  results.push_back(y);
  return true;
}

/// ConvTranspose's pads along one spatial dimension (`in` to `out`, of
/// stride `s`, dilation `d`, kernel `k`, `outputPadding`): the given ones
/// (`givenBefore`, `givenAfter`), VALID's (none before), or from auto_pad
/// SAME or output_shape as ONNX computes them (a result larger than the
/// windows reach: zeros at the end, as output_padding's); false with
/// `reason` where they do not give the result's size.
bool transposePads(Node &n, int64_t in, int64_t out, int64_t s, int64_t d,
                   int64_t k, int64_t outputPadding, int64_t givenBefore,
                   int64_t givenAfter, int64_t &before, int64_t &after,
                   std::string &reason) {
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  bool derived = n.attr("output_shape") || autoPad == "SAME_UPPER" ||
                 autoPad == "SAME_LOWER";
  if (autoPad != "NOTSET" && autoPad != "VALID" && !derived) {
    reason = "auto_pad '" + autoPad + "'";
    return false;
  }
  int64_t total = s * (in - 1) + outputPadding + (k - 1) * d + 1 - out;
  int64_t extra = 0;
  if (derived && total < 0) {
    before = after = 0;
    extra = -total;
    total = 0;
  } else if (derived) {
    before = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
    after = total - before;
  } else if (autoPad == "VALID") {
    before = 0;
    after = total;
  } else {
    before = givenBefore;
    after = givenAfter;
  }
  if (before < 0 || after < 0 || before + after != total ||
      outputPadding < 0 || outputPadding + extra >= s) {
    reason = "pads or an output_padding that do not give the result's "
             "size (or are negative)";
    return false;
  }
  return true;
}

/// ConvTranspose of a 3-D window (input [N, C, D, H, W], filter [C, M, kD,
/// kH, kW], group 1) as one 2-D transposed convolution and a gather over
/// the depth: the input as a batch of N * D images [C, H, W], the filter
/// as [kH, kW, kD * M, C] (`transpose`, `reshape`), so that
/// `conv2d_backprop_input` (H and W's strides, dilations and pads) gives
/// every depth tap's image at once, [N * D, kD * M, H_out, W_out]; then
/// output depth od sums the taps kd whose input depth id = (od + padD - kd
/// * dD) / sD is whole and inside: a `gather` at constant indices along
/// the depth (a tap that has none reads an appended zero image) and a
/// `reduce_sum` over the kD taps; the bias added, the result moved back to
/// [N, M, D_out, H_out, W_out].
bool convTranspose3d(Node &n, SmallVectorImpl<Value> &results,
                     std::string &reason) {
  Value x = n.input(0), w = n.input(1);
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (n.getInt("group", 1) != 1) {
    reason = "a 3-D window with group other than 1";
    return false;
  }
  RankedTensorType outType = n.outputTypes[0];
  if (wType.getRank() != 5 || !outType || outType.getRank() != 5 ||
      !xType.hasStaticShape() || !outType.hasStaticShape() ||
      wType.getDimSize(0) != xType.getDimSize(1) ||
      outType.getDimSize(1) != wType.getDimSize(1)) {
    reason = "a filter of another rank than the input, or whose first "
             "dimensions are not the input's and the output's channels";
    return false;
  }
  SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
  auto list = [&](llvm::StringRef name, int64_t size, int64_t fill) {
    return n.getInts(name).value_or(SmallVector<int64_t>(size, fill));
  };
  SmallVector<int64_t> given = list("kernel_shape", 3, 0);
  SmallVector<int64_t> strides = list("strides", 3, 1),
                       dilations = list("dilations", 3, 1),
                       pads = list("pads", 6, 0),
                       outputPadding = list("output_padding", 3, 0);
  if (n.attr("kernel_shape") && given != kernel) {
    reason = "a kernel_shape other than the filter's";
    return false;
  }
  if (strides.size() != 3 || dilations.size() != 3 || pads.size() != 6 ||
      outputPadding.size() != 3) {
    reason = "strides, dilations, pads or output_padding of the wrong length";
    return false;
  }
  int64_t batch = xType.getDimSize(0), channels = xType.getDimSize(1);
  int64_t depth = xType.getDimSize(2), height = xType.getDimSize(3),
          width = xType.getDimSize(4);
  int64_t filters = wType.getDimSize(1);
  int64_t outDepth = outType.getDimSize(2), outHeight = outType.getDimSize(3),
          outWidth = outType.getDimSize(4);
  SmallVector<int64_t> before(3), after(3);
  for (int i = 0; i < 3; ++i)
    if (!transposePads(n, xType.getDimSize(2 + i), outType.getDimSize(2 + i),
                       strides[i], dilations[i], kernel[i], outputPadding[i],
                       pads[i], pads[3 + i], before[i], after[i], reason))
      return false;
  int64_t taps = kernel[0];
  if (batch * outDepth * taps > 4096) {
    reason = "more than 4096 depth slices";
    return false;
  }
  Builder &b = n.builder();
  Type element = xType.getElementType();
  // Every depth tap of every input depth's image.
  Value images = n.reshape(n.transpose(x, {0, 2, 1, 3, 4}, "depth_major"),
                           {batch * depth, channels, height, width},
                           "images");
  Value filter = n.reshape(
      n.transpose(w, {3, 4, 2, 1, 0}, "filter_hw_taps"),
      {kernel[1], kernel[2], taps * filters, channels}, "filter");
  bool valid = !before[1] && !after[1] && !before[2] && !after[2];
  SmallVector<NamedAttribute> attrs = {
      n.named("strides", b.getDenseI64ArrayAttr({1, 1, strides[1], strides[2]})),
      n.named("padding", b.getStringAttr(valid ? "VALID" : "EXPLICIT")),
      n.named("data_format", b.getStringAttr("NCHW")),
      n.named("dilations",
              b.getDenseI64ArrayAttr({1, 1, dilations[1], dilations[2]}))};
  if (!valid)
    attrs.push_back(n.named(
        "explicit_paddings",
        b.getDenseI64ArrayAttr(
            {0, 0, 0, 0, before[1], after[1], before[2], after[2]})));
  Value planes = n.op<Conv2DBackpropInputOp>(
      RankedTensorType::get(
          {batch * depth, taps * filters, outHeight, outWidth}, element),
      {filter, images}, attrs, "Conv2DBackpropInput");
  if (!planes) {
    reason = "shapes conv2d_backprop_input does not take";
    return false;
  }
  // [N, kD * D + 1, M, H_out, W_out]: tap kd of depth id at kd * D + id,
  // then a zero image.
  Value byTap = n.transpose(
      n.reshape(planes, {batch, depth, taps, filters, outHeight, outWidth},
                "planes_split"),
      {0, 2, 1, 3, 4, 5}, "planes_by_tap");
  byTap = n.reshape(byTap, {batch, taps * depth, filters, outHeight, outWidth},
                    "planes");
  Value zero = n.constant(
      DenseElementsAttr::get(
          RankedTensorType::get({batch, 1, filters, outHeight, outWidth},
                                element),
          b.getFloatAttr(element, 0)),
      "zero_plane");
  Value withZero = n.importer.b.create<ConcatOp>(
      n.loc,
      RankedTensorType::get(
          {batch, taps * depth + 1, filters, outHeight, outWidth}, element),
      ValueRange{byTap, zero}, b.getI64IntegerAttr(1), StringAttr(),
      b.getStringAttr(n.name + "/planes_and_zero"), StringAttr(),
      ValueRange());
  SmallVector<int64_t> slots;
  for (int64_t od = 0; od < outDepth; ++od)
    for (int64_t kd = 0; kd < taps; ++kd) {
      int64_t p = od + before[0] - kd * dilations[0];
      int64_t id = p / strides[0];
      bool hit = p >= 0 && p % strides[0] == 0 && id < depth;
      slots.push_back(hit ? kd * depth + id : taps * depth);
    }
  Value gathered = n.op<GatherOp>(
      RankedTensorType::get(
          {batch, outDepth, taps, filters, outHeight, outWidth}, element),
      {withZero, n.constant(DenseElementsAttr::get(
                                RankedTensorType::get({outDepth, taps},
                                                      b.getI64Type()),
                                ArrayRef<int64_t>(slots)),
                            "depth_taps_indices")},
      {n.named("axis", b.getI64IntegerAttr(1))}, "depth_taps");
  auto depthMajorOut = RankedTensorType::get(
      {batch, outDepth, filters, outHeight, outWidth}, element);
  Value y = n.op<ReduceSumOp>(
      depthMajorOut, gathered,
      {n.named("axes", b.getDenseI64ArrayAttr({2}))}, "depth_sum");
  if (n.hasInput(2))
    y = n.op<AddOp>(depthMajorOut,
                    {y, n.reshape(n.input(2), {filters, 1, 1}, "bias")}, {},
                    "BiasAdd");
  results.push_back(n.transpose(y, {0, 2, 1, 3, 4}));
  return true;
}

/// ConvTranspose: 3-D by convTranspose3d; 1-D and 2-D, TensorFlow's
/// conv2d_transpose, which is conv2d_backprop_input (NCHW) with the filter [C, M / group, kH, kW] as
/// the HWIO filter [kH, kW, M / group, C] of the convolution it reverses;
/// the pads from `pads`, or from auto_pad or output_shape as ONNX computes
/// them (the result's size is shape inference's); the bias added per
/// channel.
bool mapConvTranspose(Node &n, SmallVectorImpl<Value> &results,
                      std::string &reason) {
  Value x = n.input(0), w = n.input(1);
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (xType.getRank() == 5)
    return convTranspose3d(n, results, reason);
  if (wType.getRank() != xType.getRank() || xType.getRank() < 3 ||
      wType.getDimSize(0) != xType.getDimSize(1)) {
    reason = "a filter of another rank than the input, or whose first "
             "dimension is not the input's channels";
    return false;
  }
  Window window;
  SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
  if (std::optional<SmallVector<int64_t>> given = n.getInts("kernel_shape"))
    if (*given != kernel) {
      reason = "a kernel_shape other than the filter's";
      return false;
    }
  if (!window.read(n, xType, kernel, reason))
    return false;
  int64_t spatial = xType.getRank() - 2;
  SmallVector<int64_t> outputPadding =
      n.getInts("output_padding").value_or(SmallVector<int64_t>(spatial, 0));
  if (static_cast<int64_t>(outputPadding.size()) != spatial) {
    reason = "output_padding of the wrong length";
    return false;
  }
  // [top, bottom, left, right].
  SmallVector<int64_t> pads(4, 0);
  for (int64_t i = 0; i < spatial; ++i)
    if (!transposePads(n, window.input.getDimSize(2 + i),
                       window.output.getDimSize(2 + i), window.strides[i],
                       window.dilations[i], window.kernel[i],
                       outputPadding[i], window.pads[i],
                       window.pads[(window.oneD ? 2 : spatial) + i],
                       pads[2 * i], pads[2 * i + 1], reason))
      return false;
  if (window.oneD)
    x = n.reshape(x, window.input.getShape(), "input_2d");
  Builder &b = n.builder();
  Value filter = hwioFilter(n, w, wType, window.oneD);
  bool valid = llvm::all_of(pads, [](int64_t p) { return p == 0; });
  SmallVector<NamedAttribute> attrs = {
      n.named("strides", b.getDenseI64ArrayAttr(nchw(window.strides))),
      n.named("padding", b.getStringAttr(valid ? "VALID" : "EXPLICIT")),
      n.named("data_format", b.getStringAttr("NCHW")),
      n.named("dilations", b.getDenseI64ArrayAttr(nchw(window.dilations)))};
  if (!valid)
    attrs.push_back(n.named(
        "explicit_paddings", b.getDenseI64ArrayAttr({0, 0, 0, 0, pads[0],
                                                     pads[1], pads[2],
                                                     pads[3]})));
  Value bias = n.input(2);
  bool last = !bias && !window.oneD;
  Value y = n.op<Conv2DBackpropInputOp>(window.output, {filter, x}, attrs,
                                        last ? "" : "Conv2DBackpropInput");
  if (!y) {
    reason = "a group or shapes conv2d_backprop_input does not take";
    return false;
  }
  if (bias) {
    int64_t channels = window.output.getDimSize(1);
    Value b3 = n.reshape(bias, {channels, 1, 1}, "bias");
    y = n.op<AddOp>(window.output, {y, b3}, {},
                    window.oneD ? "BiasAdd" : "");
  }
  if (window.oneD)
    y = n.reshape(y, n.outputTypes[0].getShape());
  results.push_back(y);
  return true;
}

} // namespace

void addConvolutionMappers(llvm::StringMap<MapFn> &table) {
  table["Conv"] = mapConv;
  table["ConvTranspose"] = floatInput<mapConvTranspose>;
}

} // namespace gplace::frontend::onnx_import
