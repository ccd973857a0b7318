//===- ConvolutionOps.cpp - conv2d, pooling, dropout ----------------------===//
//
// What the window ops (Graph_WindowOp: conv2d, depthwise_conv2d_native,
// max_pool, avg_pool and their gradients), fused_batch_norm and dropout
// are, besides their ODS records: their verifiers (TensorFlow's shape
// functions in nn_ops.cc and GetWindowedOutputSizeVerbose), the kernel
// parameters resolved from TensorFlow's layout-dependent attributes, their
// gradients (nn_grad.py: _Conv2DGrad, _DepthwiseConv2dNativeGrad,
// _MaxPoolGrad, _AvgPoolGrad, _FusedBatchNormV3Grad), and the remapper's
// fusion of conv2d, bias_add and relu into fused_conv2d (Grappler's
// remapper.cc).
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "RuleError.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace gplace::graph;
using gplace::DeviceSet;
using gplace::WindowDim;

namespace {

/// The dimensions of a rank-4 tensor in a layout.
struct Layout {
  bool channelsFirst = false;
  int64_t height() const { return channelsFirst ? 2 : 1; }
  int64_t width() const { return channelsFirst ? 3 : 2; }
  int64_t channels() const { return channelsFirst ? 1 : 3; }
  const char *name(int64_t dim) const {
    if (dim == 0)
      return "batch";
    if (dim == height())
      return "height";
    if (dim == width())
      return "width";
    return "channels";
  }
};

/// Where a window op's attributes come from and its errors go: a built op
/// (its verifier), or the attributes an op is about to be built with (type
/// inference).
struct AttrSource {
  gplace::graph::detail::RuleError error;
  DictionaryAttr attrs;

  Attribute get(StringRef name) const {
    return error.op ? error.op->getAttr(name)
           : attrs  ? attrs.get(name)
                    : Attribute();
  }
  template <typename T> T getAs(StringRef name) const {
    return dyn_cast_or_null<T>(get(name));
  }
};

/// Reads `data_format` ("NHWC", the default, or "NCHW") into
/// `channelsFirst`; fails with an error at the op for any other value.
LogicalResult readDataFormat(const AttrSource &src, bool &channelsFirst) {
  channelsFirst = false;
  auto format = src.getAs<StringAttr>("data_format");
  if (!format || format.getValue() == "NHWC")
    return success();
  if (format.getValue() == "NCHW")
    return channelsFirst = true, success();
  return src.error() << "data_format must be \"NHWC\" or \"NCHW\", "
                        "not "
                     << format;
}
LogicalResult readDataFormat(Operation *op, bool &channelsFirst) {
  return readDataFormat(AttrSource{{op, {}, {}}, {}}, channelsFirst);
}

} // namespace

void gplace::graph::detail::setChannelsFirst(Operation *op,
                                             bool channelsFirst) {
  bool current;
  if (failed(readDataFormat(op, current)) || current == channelsFirst)
    return;
  // Entry i of the new order is entry from[i] of the old one.
  static constexpr int64_t kToFirst[4] = {0, 3, 1, 2};
  static constexpr int64_t kToLast[4] = {0, 2, 3, 1};
  const int64_t *from = channelsFirst ? kToFirst : kToLast;
  Builder b(op->getContext());
  for (StringRef name : {"strides", "ksize", "dilations"})
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name);
        attr && attr.size() == 4) {
      SmallVector<int64_t, 4> permuted;
      for (int i = 0; i < 4; ++i)
        permuted.push_back(attr[from[i]]);
      op->setAttr(name, b.getDenseI64ArrayAttr(permuted));
    }
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("explicit_paddings");
      attr && attr.size() == 8) {
    SmallVector<int64_t, 8> permuted;
    for (int i = 0; i < 4; ++i)
      permuted.append({attr[2 * from[i]], attr[2 * from[i] + 1]});
    op->setAttr("explicit_paddings", b.getDenseI64ArrayAttr(permuted));
  }
  if (channelsFirst)
    op->setAttr("data_format", b.getStringAttr("NCHW"));
  else
    op->removeAttr("data_format");
}

namespace {

/// What the window ops' verifiers and kernel parameters share: the
/// attributes, checked, and the window they give.
class WindowVerifier {
public:
  /// `depthwise`: the filter is [height, width, in_channels,
  /// channel_multiplier] (depthwise_conv2d_native and its gradients).
  /// `prefix`: the window's attributes are named with it (`pool_ksize`,
  /// `pool_strides`, `pool_padding`: fused_conv2d_pool's pool), and it is
  /// NHWC.
  explicit WindowVerifier(Operation *op, bool depthwise = false,
                          StringRef prefix = "")
      : src{{op, {}, {}}, {}}, depthwise(depthwise), prefix(prefix) {}
  /// Over attributes an op is about to be built with (type inference).
  explicit WindowVerifier(AttrSource src, bool depthwise = false,
                          StringRef prefix = "")
      : src(src), depthwise(depthwise), prefix(prefix) {}

  /// Checks `data_format`, `strides`, `padding`, `dilations`,
  /// `explicit_paddings` and (pools) `ksize`.
  LogicalResult verifyAttributes(bool convolution) {
    if ((prefix.empty() && failed(readDataFormat(src, layout.channelsFirst))) ||
        failed(readFour("strides", strides, /*positive=*/true)))
      return failure();
    dilations = {1, 1, 1, 1};
    if (src.get(named("dilations")) &&
        failed(readFour("dilations", dilations, /*positive=*/true)))
      return failure();
    if (!convolution && failed(readFour("ksize", ksize, /*positive=*/true)))
      return failure();
    StringRef p = paddingAttr() ? paddingAttr().getValue() : StringRef();
    if (p == "SAME")
      padding = Same;
    else if (p == "VALID")
      padding = Valid;
    else if (p == "EXPLICIT" && convolution)
      padding = Explicit;
    else
      return src.error()
             << named("padding") << " must be \"SAME\", \"VALID\""
             << (convolution ? " or \"EXPLICIT\"" : "") << ", not \"" << p
             << "\"";
    auto explicitPads =
        src.getAs<DenseI64ArrayAttr>(named("explicit_paddings"));
    if (padding == Explicit) {
      if (!explicitPads || explicitPads.size() != 8)
        return src.error() << "padding \"EXPLICIT\" needs 8 "
                                    "explicit_paddings (before and after "
                                    "each dimension)";
      for (int64_t d = 0; d < 4; ++d) {
        int64_t before = explicitPads[2 * d], after = explicitPads[2 * d + 1];
        if (before < 0 || after < 0)
          return src.error() << "explicit_paddings must not be negative";
        bool spatial = d == layout.height() || d == layout.width();
        if (!spatial && (before || after))
          return src.error()
                 << "explicit_paddings of the " << layout.name(d)
                 << " dimension must be 0";
      }
      pads = explicitPads.asArrayRef();
    } else if (explicitPads && !explicitPads.empty()) {
      return src.error()
             << "explicit_paddings are only allowed with padding \"EXPLICIT\"";
    }
    return success();
  }

  /// The window over the input's height and width: its size from
  /// `filter` (convolutions: [height, width, in, out]) or `ksize`, its
  /// pads from the input's spatial sizes.
  WindowAttrs window(RankedTensorType input, RankedTensorType filter) const {
    WindowAttrs w;
    w.channelsFirst = layout.channelsFirst;
    WindowDim *dims[2] = {&w.height, &w.width};
    int64_t spatial[2] = {layout.height(), layout.width()};
    for (int i = 0; i < 2; ++i) {
      WindowDim &dim = *dims[i];
      int64_t d = spatial[i];
      dim.size = filter ? filter.getDimSize(i) : ksize[d];
      dim.stride = strides[d];
      dim.dilation = dilations[d];
      if (padding == Same) {
        gplace::setSamePadding(dim, input.getDimSize(d));
      } else if (padding == Explicit) {
        dim.padBefore = pads[2 * d];
        dim.padAfter = pads[2 * d + 1];
      }
    }
    return w;
  }

  /// The output's shape from `input` (and `filter`, for convolutions),
  /// TensorFlow's shape function: rank 4, its batch, its channels (the
  /// filter's output channels, or the input's), its spatial sizes from the
  /// window. Fails, saying why, where the attributes or operands do not
  /// fit (verifyAttributes first).
  FailureOr<SmallVector<int64_t, 4>> outputShape(RankedTensorType input,
                                                 RankedTensorType filter,
                                                 StringRef inputName) {
    if (input.getRank() != 4)
      return src.error() << inputName << " must have rank 4, not "
                         << input.getRank() << " (" << input << ")",
             failure();
    for (int64_t d : {0, 1, 2, 3}) {
      bool spatial = d == layout.height() || d == layout.width();
      if (!spatial && strides[d] != 1)
        return src.error() << named("strides") << " in the " << layout.name(d)
                           << " dimension must be 1, as TensorFlow's",
               failure();
      if (!spatial && dilations[d] != 1)
        return src.error() << named("dilations") << " in the "
                           << layout.name(d)
                           << " dimension must be 1, as TensorFlow's",
               failure();
      if (!filter && !spatial && ksize[d] != 1)
        return src.error() << named("ksize") << " in the " << layout.name(d)
                           << " dimension must be 1, as TensorFlow's",
               failure();
    }
    int64_t channels = input.getDimSize(layout.channels());
    int64_t outChannels = channels;
    if (filter) {
      if (filter.getRank() != 4)
        return src.error() << "filter must have rank 4 ([height, width, "
                              "in_channels, out_channels]), not "
                           << filter,
               failure();
      if (filter.getDimSize(0) <= 0 || filter.getDimSize(1) <= 0)
        return src.error() << "filter's height and width must be "
                              "positive, not "
                           << filter,
               failure();
      int64_t filterIn = filter.getDimSize(2);
      outChannels = filter.getDimSize(3);
      // The groups below are channels / filterIn: none without channels.
      if (channels <= 0)
        return src.error() << inputName << " has " << channels
                           << " channels; a convolution needs at least one",
               failure();
      if (depthwise) {
        if (filterIn != channels)
          return src.error()
                     << "filter has " << filterIn
                     << " input channels, expected the input's " << channels
                     << " (depthwise: [height, width, in_channels, "
                        "channel_multiplier])",
                 failure();
        outChannels = channels * filter.getDimSize(3);
      } else if (filterIn <= 0 || channels % filterIn != 0) {
        return src.error() << "input has " << channels
                           << " channels, which is not a multiple of the "
                              "filter's "
                           << filterIn << " input channels",
               failure();
      }
      int64_t groups = channels / filterIn;
      if (outChannels % groups != 0)
        return src.error() << "filter's " << outChannels
                           << " output channels are not a multiple of the "
                           << groups << " groups (input channels " << channels
                           << " / filter input channels " << filterIn << ")",
               failure();
    }
    SmallVector<int64_t, 4> shape(4);
    shape[0] = input.getDimSize(0);
    shape[layout.channels()] = outChannels;
    WindowAttrs w = window(input, filter);
    const WindowDim *dims[2] = {&w.height, &w.width};
    int64_t spatial[2] = {layout.height(), layout.width()};
    for (int i = 0; i < 2; ++i) {
      int64_t d = spatial[i], in = input.getDimSize(d);
      std::optional<int64_t> size = gplace::windowOutputSize(*dims[i], in);
      // TensorFlow's SAME: ceil(input / stride), 0 for an empty input
      // whatever the window.
      if (!size && in == 0 && paddingAttr() &&
          paddingAttr().getValue() == "SAME")
        size = 0;
      if (!size)
        return src.error()
                   << "window of " << dims[i]->size << " (dilation "
                   << dims[i]->dilation << ") does not fit the " << inputName
                   << "'s " << layout.name(d) << " of " << in
                   << " with padding " << paddingAttr()
                   << " (TensorFlow: computed output size would be negative)",
               failure();
      shape[d] = *size;
    }
    return shape;
  }

  /// The output's element type: the input's, which the filter shares.
  FailureOr<Type> elementType(RankedTensorType input,
                              RankedTensorType filter) {
    if (filter && filter.getElementType() != input.getElementType())
      return src.error() << "operands and result must have one element type",
             failure();
    return input.getElementType();
  }

  /// Checks `input` and `output` (and `filter`, for convolutions) against
  /// each other: rank 4, one element type, and the output's shape
  /// outputShape() computes, each difference named.
  LogicalResult verifyShapes(RankedTensorType input, RankedTensorType filter,
                             RankedTensorType output, StringRef inputName,
                             StringRef outputName) {
    for (auto [type, what] : {std::pair(input, inputName),
                              std::pair(output, outputName)})
      if (type.getRank() != 4)
        return src.error() << what << " must have rank 4, not "
                           << type.getRank() << " (" << type << ")";
    if (input.getElementType() != output.getElementType() ||
        (filter && filter.getElementType() != input.getElementType()))
      return src.error() << "operands and result must have one element type";
    FailureOr<SmallVector<int64_t, 4>> shape =
        outputShape(input, filter, inputName);
    if (failed(shape))
      return failure();
    if (output.getDimSize(0) != (*shape)[0])
      return src.error() << outputName << " dimension 0 (batch) is "
                         << output.getDimSize(0) << ", expected "
                         << (*shape)[0] << " from " << inputName;
    int64_t c = layout.channels();
    if (output.getDimSize(c) != (*shape)[c])
      return src.error() << outputName << " dimension " << c
                         << " (channels) is " << output.getDimSize(c)
                         << ", expected " << (*shape)[c] << " from "
                         << (filter ? "the filter" : inputName);
    int64_t spatial[2] = {layout.height(), layout.width()};
    for (int i = 0; i < 2; ++i) {
      int64_t d = spatial[i], in = input.getDimSize(d);
      if (output.getDimSize(d) == (*shape)[d])
        continue;
      // The window, for the message only.
      WindowAttrs w = window(input, filter);
      const WindowDim *dims[2] = {&w.height, &w.width};
      return src.error()
             << outputName << " dimension " << d << " (" << layout.name(d)
             << ") is " << output.getDimSize(d) << ", expected " << (*shape)[d]
             << " from " << inputName << " " << layout.name(d) << " " << in
             << ", window " << dims[i]->size << ", stride " << dims[i]->stride
             << ", dilation " << dims[i]->dilation << ", padding "
             << paddingAttr();
    }
    return success();
  }

private:
  /// The attribute `name` of the window (`prefix` + name).
  std::string named(StringRef name) const { return (prefix + name).str(); }
  StringAttr paddingAttr() const {
    return src.getAs<StringAttr>(named("padding"));
  }

  LogicalResult readFour(StringRef base, SmallVectorImpl<int64_t> &out,
                         bool positive) {
    std::string name = named(base);
    auto attr = src.getAs<DenseI64ArrayAttr>(name);
    if (!attr || attr.size() != 4)
      return src.error() << name << " must have 4 entries (one per "
                                          "dimension of data_format)";
    out.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
    if (positive && llvm::any_of(out, [](int64_t v) { return v <= 0; }))
      return src.error() << name << " must be positive";
    return success();
  }

  AttrSource src;
  bool depthwise;
  StringRef prefix;
  Layout layout;
  SmallVector<int64_t, 4> strides, dilations, ksize;
  ArrayRef<int64_t> pads;
  enum { Same, Valid, Explicit } padding = Valid;
};

/// The window of a verified op over `input` (with `filter` for
/// convolutions).
WindowAttrs windowOf(Operation *op, bool convolution, RankedTensorType input,
                     RankedTensorType filter) {
  WindowVerifier verifier(op);
  (void)verifier.verifyAttributes(convolution);
  return verifier.window(input, filter);
}

/// The kernel parameters of a window.
DictionaryAttr windowParameters(Operation *op, const WindowAttrs &w) {
  Builder b(op->getContext());
  SmallVector<NamedAttribute, 5> params = {
      b.getNamedAttr("window_size",
                     b.getDenseI64ArrayAttr({w.height.size, w.width.size})),
      b.getNamedAttr("window_strides", b.getDenseI64ArrayAttr(
                                           {w.height.stride, w.width.stride})),
      b.getNamedAttr("window_dilations",
                     b.getDenseI64ArrayAttr(
                         {w.height.dilation, w.width.dilation})),
      b.getNamedAttr("window_pads",
                     b.getDenseI64ArrayAttr(
                         {w.height.padBefore, w.height.padAfter,
                          w.width.padBefore, w.width.padAfter}))};
  if (w.channelsFirst)
    params.push_back(b.getNamedAttr("channels_first", b.getUnitAttr()));
  return b.getDictionaryAttr(params);
}

/// The op's attributes that are not placement attributes: what its
/// gradient ops take over.
SmallVector<NamedAttribute> windowAttributes(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (llvm::is_contained({"strides", "padding", "explicit_paddings",
                            "data_format", "dilations", "ksize"},
                           attr.getName().getValue()))
      attrs.push_back(attr);
  return attrs;
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolutions.
//===----------------------------------------------------------------------===//

// Type inference of the window ops: the rule verifyShapes checks, over the
// attributes the op is built with.

/// The attributes of an op about to be built (its properties and the
/// other attributes).
template <typename OpT>
static AttrSource buildSource(MLIRContext *context,
                              std::optional<Location> location,
                              DictionaryAttr attributes,
                              OpaqueProperties properties) {
  AttrSource src;
  src.error.location = location;
  src.error.opName = OpT::getOperationName();
  NamedAttrList all(attributes);
  if (properties)
    if (auto inherent = dyn_cast_or_null<DictionaryAttr>(
            OpT::getPropertiesAsAttr(context,
                                     *properties.as<typename OpT::Properties *>())))
      for (NamedAttribute attr : inherent)
        all.set(attr.getName(), attr.getValue());
  src.attrs = all.getDictionary(context);
  return src;
}

/// A window op's result type from `input` and `filter` (null for pools),
/// or failure; `prefix` names the window's attributes.
static FailureOr<RankedTensorType>
inferWindow(const AttrSource &src, Value input, Value filter, bool convolution,
            bool depthwise = false, StringRef prefix = "",
            RankedTensorType inputType = {}) {
  if (!inputType)
    inputType = input ? dyn_cast<RankedTensorType>(input.getType())
                      : RankedTensorType();
  RankedTensorType filterType =
      filter ? dyn_cast<RankedTensorType>(filter.getType())
             : RankedTensorType();
  if (!inputType || (filter && !filterType))
    return failure();
  WindowVerifier v(src, depthwise, prefix);
  if (failed(v.verifyAttributes(convolution)))
    return failure();
  FailureOr<SmallVector<int64_t, 4>> shape =
      v.outputShape(inputType, filterType, "input");
  FailureOr<Type> element = v.elementType(inputType, filterType);
  if (failed(shape) || failed(element))
    return failure();
  return RankedTensorType::get(*shape, *element);
}

#define GPLACE_WINDOW_INFERENCE(OpT, ...)                                      \
  LogicalResult OpT::inferReturnTypes(                                         \
      MLIRContext *context, std::optional<Location> location,                  \
      ValueRange operands, DictionaryAttr attributes,                          \
      OpaqueProperties properties, RegionRange regions,                        \
      SmallVectorImpl<Type> &inferredReturnTypes) {                            \
    Adaptor adaptor(operands, attributes, properties, regions);                \
    AttrSource src =                                                           \
        buildSource<OpT>(context, location, attributes, properties);           \
    FailureOr<RankedTensorType> type = __VA_ARGS__;                            \
    if (failed(type))                                                          \
      return failure();                                                        \
    inferredReturnTypes.push_back(*type);                                      \
    return success();                                                          \
  }                                                                            \
  LogicalResult OpT::refineReturnTypes(                                        \
      MLIRContext *, std::optional<Location>, ValueRange, DictionaryAttr,      \
      OpaqueProperties, RegionRange, SmallVectorImpl<Type> &) {                \
    return success();                                                          \
  }

GPLACE_WINDOW_INFERENCE(Conv2DOp, inferWindow(src, adaptor.getInput(),
                                              adaptor.getFilter(), true))
GPLACE_WINDOW_INFERENCE(FusedConv2DOp, inferWindow(src, adaptor.getInput(),
                                                   adaptor.getFilter(), true))
GPLACE_WINDOW_INFERENCE(DepthwiseConv2dNativeOp,
                        inferWindow(src, adaptor.getInput(),
                                    adaptor.getFilter(), true, true))
GPLACE_WINDOW_INFERENCE(MaxPoolOp,
                        inferWindow(src, adaptor.getInput(), {}, false))
GPLACE_WINDOW_INFERENCE(AvgPoolOp,
                        inferWindow(src, adaptor.getInput(), {}, false))
// The convolution's result, then its pool (NHWC, `pool_` attributes).
GPLACE_WINDOW_INFERENCE(
    FusedConv2DPoolOp, ([&]() -> FailureOr<RankedTensorType> {
      FailureOr<RankedTensorType> conv =
          inferWindow(src, adaptor.getInput(), adaptor.getFilter(), true);
      if (failed(conv))
        return failure();
      return inferWindow(src, {}, {}, false, false, "pool_", *conv);
    }()))

LogicalResult Conv2DOp::verify() {
  WindowVerifier v(*this);
  if (failed(v.verifyAttributes(/*convolution=*/true)))
    return failure();
  return v.verifyShapes(getInput().getType(), getFilter().getType(), getType(),
                        "input", "result");
}
WindowAttrs Conv2DOp::getWindowAttrs() {
  return windowOf(*this, true, getInput().getType(), getFilter().getType());
}
DictionaryAttr Conv2DOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult Conv2DBackpropInputOp::verify() {
  WindowVerifier v(*this);
  if (failed(v.verifyAttributes(/*convolution=*/true)))
    return failure();
  return v.verifyShapes(getType(), getFilter().getType(),
                        getOutBackprop().getType(), "result",
                        "out_backprop");
}
WindowAttrs Conv2DBackpropInputOp::getWindowAttrs() {
  return windowOf(*this, true, getType(), getFilter().getType());
}
DictionaryAttr Conv2DBackpropInputOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult Conv2DBackpropFilterOp::verify() {
  WindowVerifier v(*this);
  if (failed(v.verifyAttributes(/*convolution=*/true)))
    return failure();
  return v.verifyShapes(getInput().getType(), getType(),
                        getOutBackprop().getType(), "input", "out_backprop");
}
WindowAttrs Conv2DBackpropFilterOp::getWindowAttrs() {
  return windowOf(*this, true, getInput().getType(), getType());
}
DictionaryAttr Conv2DBackpropFilterOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

//===----------------------------------------------------------------------===//
// Batch normalization (nn_ops: FusedBatchNormV3, FusedBatchNormGradV3).
//===----------------------------------------------------------------------===//

/// What fused_batch_norm and its gradient share: `x` rank 4 in
/// `data_format`, `scale` a vector of its channels of x's element type, a
/// non-negative epsilon.
static LogicalResult verifyBatchNorm(Operation *op, RankedTensorType x,
                                     RankedTensorType scale, float epsilon) {
  bool channelsFirst;
  if (failed(readDataFormat(op, channelsFirst)))
    return failure();
  if (x.getRank() != 4)
    return op->emitOpError() << "x must have rank 4, not " << x.getRank()
                             << " (" << x << ")";
  int64_t channels = x.getDimSize(channelsFirst ? 1 : 3);
  if (scale.getRank() != 1 || scale.getDimSize(0) != channels ||
      scale.getElementType() != x.getElementType())
    return op->emitOpError()
           << "scale, offset, mean and variance must be vectors of x's "
           << channels << " channels (dimension " << (channelsFirst ? 1 : 3)
           << ") of " << x.getElementType() << ", not " << scale;
  if (!(epsilon >= 0))
    return op->emitOpError() << "epsilon must be non-negative, not "
                             << epsilon;
  return success();
}

/// The kernel parameters of fused_batch_norm and its gradient.
static DictionaryAttr batchNormParameters(Operation *op) {
  Builder b(op->getContext());
  SmallVector<NamedAttribute, 3> params = {
      b.getNamedAttr("epsilon", op->getAttr("epsilon"))};
  if (op->hasAttr("is_training"))
    params.push_back(b.getNamedAttr("is_training", b.getUnitAttr()));
  bool channelsFirst;
  (void)readDataFormat(op, channelsFirst); // Verified.
  if (channelsFirst)
    params.push_back(b.getNamedAttr("channels_first", b.getUnitAttr()));
  return b.getDictionaryAttr(params);
}

LogicalResult FusedBatchNormOp::verify() {
  return verifyBatchNorm(*this, getX().getType(), getScale().getType(),
                         getEpsilon().convertToFloat());
}
DictionaryAttr FusedBatchNormOp::getKernelParameters() {
  return batchNormParameters(*this);
}
LogicalResult FusedBatchNormGradOp::verify() {
  return verifyBatchNorm(*this, getX().getType(), getScale().getType(),
                         getEpsilon().convertToFloat());
}
DictionaryAttr FusedBatchNormGradOp::getKernelParameters() {
  return batchNormParameters(*this);
}

LogicalResult FusedBatchNormOp::buildGradients(OpBuilder &b,
                                               ArrayRef<Value> dys,
                                               SmallVectorImpl<Value> &out) {
  // nn_grad.py's _FusedBatchNormV3Grad: through y only (the statistics'
  // gradients are ignored); none for mean and variance.
  if (!dys[0]) {
    out.append(5, Value());
    return success();
  }
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"epsilon", "is_training", "data_format"})
    if (Attribute value = (*this)->getAttr(name))
      attrs.push_back(b.getNamedAttr(name, value));
  auto grad = b.create<FusedBatchNormGradOp>(
      getLoc(),
      TypeRange{getX().getType(), getScale().getType(), getScale().getType()},
      ValueRange{dys[0], getX(), getScale(), getBatchMean(),
                 getBatchVariance()},
      attrs);
  out.append({grad.getXBackprop(), grad.getScaleBackprop(),
              grad.getOffsetBackprop(), Value(), Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// Depthwise convolutions.
//===----------------------------------------------------------------------===//

LogicalResult DepthwiseConv2dNativeOp::verify() {
  WindowVerifier v(*this, /*depthwise=*/true);
  if (failed(v.verifyAttributes(/*convolution=*/true)))
    return failure();
  return v.verifyShapes(getInput().getType(), getFilter().getType(), getType(),
                        "input", "result");
}
WindowAttrs DepthwiseConv2dNativeOp::getWindowAttrs() {
  return windowOf(*this, true, getInput().getType(), getFilter().getType());
}
DictionaryAttr DepthwiseConv2dNativeOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult DepthwiseConv2dNativeBackpropInputOp::verify() {
  WindowVerifier v(*this, /*depthwise=*/true);
  if (failed(v.verifyAttributes(/*convolution=*/true)))
    return failure();
  return v.verifyShapes(getType(), getFilter().getType(),
                        getOutBackprop().getType(), "result", "out_backprop");
}
WindowAttrs DepthwiseConv2dNativeBackpropInputOp::getWindowAttrs() {
  return windowOf(*this, true, getType(), getFilter().getType());
}
DictionaryAttr DepthwiseConv2dNativeBackpropInputOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult DepthwiseConv2dNativeBackpropFilterOp::verify() {
  WindowVerifier v(*this, /*depthwise=*/true);
  if (failed(v.verifyAttributes(/*convolution=*/true)))
    return failure();
  return v.verifyShapes(getInput().getType(), getType(),
                        getOutBackprop().getType(), "input", "out_backprop");
}
WindowAttrs DepthwiseConv2dNativeBackpropFilterOp::getWindowAttrs() {
  return windowOf(*this, true, getInput().getType(), getType());
}
DictionaryAttr DepthwiseConv2dNativeBackpropFilterOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult DepthwiseConv2dNativeOp::buildGradients(
    OpBuilder &b, ArrayRef<Value> dys, SmallVectorImpl<Value> &out) {
  // nn_grad.py's _DepthwiseConv2dNativeGrad.
  SmallVector<NamedAttribute> attrs = windowAttributes(*this);
  out.push_back(b.create<DepthwiseConv2dNativeBackpropInputOp>(
      getLoc(), TypeRange{getInput().getType()},
      ValueRange{getFilter(), dys[0]}, attrs));
  out.push_back(b.create<DepthwiseConv2dNativeBackpropFilterOp>(
      getLoc(), TypeRange{getFilter().getType()},
      ValueRange{getInput(), dys[0]}, attrs));
  return success();
}

LogicalResult FusedConv2DOp::verify() {
  WindowVerifier v(*this);
  if (failed(v.verifyAttributes(/*convolution=*/true)) ||
      failed(v.verifyShapes(getInput().getType(), getFilter().getType(),
                            getType(), "input", "result")))
    return failure();
  SmallVector<StringRef> ops;
  for (Attribute op : getFusedOps())
    ops.push_back(cast<StringAttr>(op).getValue());
  if (!(ops.size() == 1 && ops[0] == "BiasAdd") &&
      !(ops.size() == 2 && ops[0] == "BiasAdd" && ops[1] == "Relu"))
    return emitOpError() << "fused_ops must be [\"BiasAdd\"] or "
                            "[\"BiasAdd\", \"Relu\"], not "
                         << getFusedOps();
  RankedTensorType bias = getBias().getType();
  int64_t channels =
      getType().getDimSize(getWindowAttrs().channelsFirst ? 1 : 3);
  if (bias.getRank() != 1 || bias.getDimSize(0) != channels ||
      bias.getElementType() != getType().getElementType())
    return emitOpError() << "bias must be a vector of the result's "
                         << channels << " channels of "
                         << getType().getElementType() << ", not " << bias;
  return success();
}
WindowAttrs FusedConv2DOp::getWindowAttrs() {
  return windowOf(*this, true, getInput().getType(), getFilter().getType());
}
DictionaryAttr FusedConv2DOp::getKernelParameters() {
  DictionaryAttr window = windowParameters(*this, getWindowAttrs());
  if (getFusedOps().size() < 2)
    return window;
  NamedAttrList params(window);
  params.append("fused_relu", UnitAttr::get(getContext()));
  return params.getDictionary(getContext());
}

LogicalResult FusedConv2DPoolOp::verify() {
  WindowVerifier v(*this);
  if (failed(v.verifyAttributes(/*convolution=*/true)))
    return failure();
  if (getWindowAttrs().channelsFirst)
    return emitOpError() << "runs NHWC only, not data_format "
                         << getDataFormatAttr();
  RankedTensorType input = getInput().getType(), filter = getFilter().getType();
  RankedTensorType conv = getConvolutionType();
  if (failed(
          v.verifyShapes(input, filter, conv, "input", "convolution's result")))
    return failure();
  SmallVector<StringRef> ops;
  for (Attribute op : getFusedOps())
    ops.push_back(cast<StringAttr>(op).getValue());
  ArrayRef<StringRef> activation = ArrayRef(ops).drop_back();
  if (ops.empty() || (ops.back() != "MaxPool" && ops.back() != "AvgPool") ||
      !(activation == ArrayRef<StringRef>{"BiasAdd"} ||
        activation == ArrayRef<StringRef>{"BiasAdd", "Relu"}))
    return emitOpError() << "fused_ops must be [\"BiasAdd\"(, \"Relu\"), "
                            "\"MaxPool\" or \"AvgPool\"], not "
                         << getFusedOps();
  RankedTensorType bias = getBias().getType();
  int64_t channels = conv.getDimSize(3);
  if (bias.getRank() != 1 || bias.getDimSize(0) != channels ||
      bias.getElementType() != conv.getElementType())
    return emitOpError() << "bias must be a vector of the convolution's "
                         << channels << " channels of " << conv.getElementType()
                         << ", not " << bias;
  WindowVerifier pool(*this, /*depthwise=*/false, "pool_");
  if (failed(pool.verifyAttributes(/*convolution=*/false)))
    return failure();
  return pool.verifyShapes(conv, nullptr, getType(), "convolution's result",
                           "result");
}
WindowAttrs FusedConv2DPoolOp::getWindowAttrs() {
  return windowOf(*this, true, getInput().getType(), getFilter().getType());
}
RankedTensorType FusedConv2DPoolOp::getConvolutionType() {
  // The input's type where the window does not fit or the ranks are wrong:
  // the verifier reports those against it.
  RankedTensorType input = getInput().getType(), filter = getFilter().getType();
  if (input.getRank() != 4 || filter.getRank() != 4)
    return input;
  SmallVector<int64_t, 4> shape(input.getShape());
  shape[3] = filter.getDimSize(3);
  WindowAttrs w = getWindowAttrs();
  if (std::optional<int64_t> height =
          gplace::windowOutputSize(w.height, input.getDimSize(1)))
    shape[1] = *height;
  if (std::optional<int64_t> width =
          gplace::windowOutputSize(w.width, input.getDimSize(2)))
    shape[2] = *width;
  return RankedTensorType::get(shape, input.getElementType());
}
DictionaryAttr FusedConv2DPoolOp::getKernelParameters() {
  NamedAttrList params(windowParameters(*this, getWindowAttrs()));
  if (getFusedOps().size() == 3)
    params.append("fused_relu", UnitAttr::get(getContext()));
  WindowVerifier v(*this, /*depthwise=*/false, "pool_");
  (void)v.verifyAttributes(/*convolution=*/false);
  WindowAttrs pool = v.window(getConvolutionType(), nullptr);
  // The pool's window parameters, named pool_*: a pool has no dilation,
  // and the layout is NHWC.
  for (NamedAttribute attr : windowParameters(*this, pool))
    if (attr.getName() != "window_dilations" &&
        attr.getName() != "channels_first")
      params.append("pool_" + attr.getName().str(), attr.getValue());
  if (cast<StringAttr>(getFusedOps().getValue().back()).getValue() == "AvgPool")
    params.append("pool_average", UnitAttr::get(getContext()));
  return params.getDictionary(getContext());
}
int64_t gplace::graph::detail::getFusedConv2DPoolFlops(Operation *op) {
  auto fused = cast<FusedConv2DPoolOp>(op);
  RankedTensorType conv = fused.getConvolutionType();
  ArrayRef<int64_t> filter = fused.getFilter().getType().getShape();
  int64_t outChannels = filter.size() == 4 ? filter[3] : 0;
  if (outChannels <= 0)
    return 0;
  int64_t perOutput =
      fused.getFilter().getType().getNumElements() / outChannels;
  auto ksize = fused.getPoolKsize();
  int64_t window = ksize.size() == 4 ? ksize[1] * ksize[2] : 1;
  return conv.getNumElements() * (2 * perOutput + window);
}

namespace {

/// Whether `absorbed` may run inside `into`'s kernel: the same placement
/// request, assignment and colocation (every discardable attribute), and
/// no control dependencies of its own.
bool fusible(Operation *absorbed, Operation *into) {
  auto controlDeps = [](Operation *op) {
    return llvm::any_of(op->getOperandTypes(),
                        [](Type t) { return isa<ControlType>(t); });
  };
  return !controlDeps(absorbed) &&
         absorbed->getAttr("device") == into->getAttr("device") &&
         absorbed->getAttr("assigned_device") ==
             into->getAttr("assigned_device") &&
         absorbed->getDiscardableAttrDictionary() ==
             into->getDiscardableAttrDictionary();
}

/// Points every `gplace.colocate_with` naming one of `absorbed`, in the
/// function around `fused`, at `fusedName`.
void retargetColocation(Operation *fused, ArrayRef<Attribute> absorbed,
                        StringAttr fusedName, PatternRewriter &rewriter) {
  Operation *scope = fused;
  while (scope->getParentOp() && !isa<ModuleOp>(scope->getParentOp()))
    scope = scope->getParentOp();
  StringRef key = GraphDialect::getColocateWithAttrName();
  scope->walk([&](Operation *op) {
    Attribute target = op->getAttr(key);
    if (target && llvm::is_contained(absorbed, target))
      rewriter.modifyOpInPlace(op, [&] { op->setAttr(key, fusedName); });
  });
}

/// Appends to `attrs` what a fused op takes from the ops it replaces:
/// `first`'s device request, assignment and discardable attributes
/// (colocation), and the name of `last`, else of `first`.
void appendFusedAttributes(Operation *first, Operation *last,
                           SmallVectorImpl<NamedAttribute> &attrs,
                           PatternRewriter &rewriter) {
  for (StringRef name : {"device", "assigned_device"})
    if (Attribute value = first->getAttr(name))
      attrs.push_back(rewriter.getNamedAttr(name, value));
  if (Attribute name = last->getAttr("name") ? last->getAttr("name")
                                             : first->getAttr("name"))
    attrs.push_back(rewriter.getNamedAttr("name", name));
  for (NamedAttribute attr : first->getDiscardableAttrs())
    attrs.push_back(attr);
}

/// Points the colocation constraints that name one of `absorbed` (the ops
/// `fused` replaces) at `fused`.
void takeOverColocation(Operation *fused, ArrayRef<Operation *> absorbed,
                        PatternRewriter &rewriter) {
  auto fusedName = fused->getAttrOfType<StringAttr>("name");
  SmallVector<Attribute, 3> names;
  for (Operation *op : absorbed)
    if (Attribute name = op->getAttr("name"); name && name != fusedName)
      names.push_back(name);
  if (fusedName && !names.empty())
    retargetColocation(fused, names, fusedName, rewriter);
}

/// The attributes of an op the remapper makes for `op`: the name `op`'s
/// name + `suffix` (when `op` has a name) and `conv`'s device request and
/// assignment.
SmallVector<NamedAttribute, 3> helperAttributes(Conv2DOp conv, Operation *op,
                                                StringRef suffix,
                                                PatternRewriter &rewriter) {
  SmallVector<NamedAttribute, 3> attrs;
  if (auto name = op->getAttrOfType<StringAttr>("name"))
    attrs.push_back(rewriter.getNamedAttr(
        "name", rewriter.getStringAttr(name.getValue() + suffix)));
  for (StringRef key : {"device", "assigned_device"})
    if (Attribute value = conv->getAttr(key))
      attrs.push_back(rewriter.getNamedAttr(key, value));
  return attrs;
}

/// Replaces `conv` and `biasAdd` (an op adding `bias`, [C] or [1, ..., 1,
/// C], to `conv`'s result), and the relu that is `biasAdd`'s only use if
/// fusible, by one fused_conv2d of `conv`'s input and `filter`, named
/// after the last op it replaces; colocation constraints on the replaced
/// ops move to it.
void fuseConvolution(Conv2DOp conv, Value filter, Value bias,
                     Operation *biasAdd, PatternRewriter &rewriter) {
  Operation *last = biasAdd;
  SmallVector<Attribute, 2> fusedOps = {rewriter.getStringAttr("BiasAdd")};
  if (biasAdd->hasOneUse()) {
    auto relu = dyn_cast<ReluOp>(*biasAdd->user_begin());
    if (relu && fusible(relu, conv)) {
      last = relu;
      fusedOps.push_back(rewriter.getStringAttr("Relu"));
    }
  }
  SmallVector<NamedAttribute> attrs = windowAttributes(conv);
  attrs.push_back(
      rewriter.getNamedAttr("fused_ops", rewriter.getArrayAttr(fusedOps)));
  appendFusedAttributes(conv, last, attrs, rewriter);
  rewriter.setInsertionPoint(last);
  auto biasType = cast<RankedTensorType>(bias.getType());
  if (biasType.getRank() != 1) {
    // [1, ..., 1, C] as the vector fused_conv2d takes (a reshape: no copy).
    bias = rewriter
               .create<ReshapeOp>(
                   biasAdd->getLoc(),
                   TypeRange{RankedTensorType::get({biasType.getShape().back()},
                                                   biasType.getElementType())},
                   ValueRange{bias},
                   helperAttributes(conv, biasAdd, "-1-ReshapeToBias-Remapper",
                                    rewriter))
               .getResult();
  }
  SmallVector<Value> operands = {conv.getInput(), filter, bias};
  llvm::append_range(operands, conv.getControlDeps());
  auto fused = rewriter.create<FusedConv2DOp>(
      last->getLoc(), TypeRange{last->getResult(0).getType()}, operands, attrs);
  // Colocation constraints on the absorbed ops now name the fused op.
  takeOverColocation(fused, {conv.getOperation(), biasAdd, last}, rewriter);
  // `last` may be a fused_batch_norm, whose batch_mean and batch_variance
  // the caller has replaced: its first result is the one to replace.
  rewriter.replaceAllUsesWith(last->getResult(0), fused.getResult());
  rewriter.eraseOp(last);
  if (last != biasAdd)
    rewriter.eraseOp(biasAdd);
  rewriter.eraseOp(conv);
}

/// The conv2d and the bias that `op` adds to it, if `op` is a
/// bias_add of a conv2d or an add of a conv2d and a "bias-semantic"
/// operand (Grappler's IsBiasSemanticAdd: [C] or [1, ..., 1, C], C the
/// convolution's output channels, as an imported ONNX Conv's bias becomes
/// once --gplace-layout ran it NHWC); else {}.
std::pair<Conv2DOp, Value> convolutionAndBias(Operation *op) {
  if (auto biasAdd = dyn_cast<BiasAddOp>(op))
    return {biasAdd.getValue().getDefiningOp<Conv2DOp>(), biasAdd.getBias()};
  auto add = dyn_cast<AddOp>(op);
  if (!add)
    return {};
  for (int i = 0; i < 2; ++i) {
    auto conv = add->getOperand(i).getDefiningOp<Conv2DOp>();
    Value bias = add->getOperand(1 - i);
    if (!conv || conv.getType() != add.getType())
      continue;
    auto type = cast<RankedTensorType>(bias.getType());
    int64_t channels = conv.getType().getDimSize(3);
    ArrayRef<int64_t> shape = type.getShape();
    if (type.getRank() >= 1 && type.getRank() <= 4 &&
        shape.back() == channels &&
        llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; }))
      return {conv, bias};
  }
  return {};
}

/// Grappler's remapper for Conv2D + BiasAdd (+ Relu): anchored on the
/// bias_add (or bias-semantic add), which takes the relu along when that
/// is its only use. Written as match() and rewrite() (as every remapper
/// pattern is): --gplace-remap asks match() alone whether anything fuses
/// before it touches the IR.
struct FuseConv2DBiasAdd : RewritePattern {
  FuseConv2DBiasAdd(StringRef root, MLIRContext *context)
      : RewritePattern(root, /*benefit=*/1, context) {}

  LogicalResult match(Operation *biasAdd) const override {
    auto [conv, bias] = convolutionAndBias(biasAdd);
    return success(conv && conv->hasOneUse() &&
                   !conv.getWindowAttrs().channelsFirst &&
                   fusible(biasAdd, conv));
  }

  void rewrite(Operation *biasAdd, PatternRewriter &rewriter) const override {
    auto [conv, bias] = convolutionAndBias(biasAdd);
    fuseConvolution(conv, conv.getFilter(), bias, biasAdd, rewriter);
  }
};

/// `bn`'s epsilon (an f32 attribute) in `scalar`'s element type.
APFloat epsilonOf(FusedBatchNormOp bn, RankedTensorType scalar) {
  APFloat epsilon = bn.getEpsilonAttr().getValue();
  bool losesInfo;
  epsilon.convert(
      cast<FloatType>(scalar.getElementType()).getFloatSemantics(),
      APFloat::rmNearestTiesToEven, &losesInfo);
  return epsilon;
}

/// Conv2D + FusedBatchNorm (+ Relu) in inference, as Grappler's remapper
/// fuses them into _FusedConv2D with fused_ops = ["FusedBatchNorm"(,
/// "Relu")]: here the normalization folds into the filter and a bias,
/// computed by small ops from the batch norm's vectors (TensorFlow's
/// fold_batch_norms graph transform, ONNX Runtime's Conv + BatchNormalization
/// fusion), so the kernel is the conv2d + bias (+ relu) one:
///   s = scale / sqrt(variance + epsilon)
///   filter' = filter * s (per output channel), bias = offset - mean * s.
/// Anchored on the fused_batch_norm (NHWC, not training) whose input is a
/// conv2d used by it alone; its batch_mean and batch_variance, which in
/// inference are its mean and variance, are replaced by those.
struct FoldBatchNormIntoConv2D : OpRewritePattern<FusedBatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult match(FusedBatchNormOp bn) const override {
    auto conv = bn.getX().getDefiningOp<Conv2DOp>();
    return success(conv && conv->hasOneUse() && !bn.getIsTraining() &&
                   !cast<LayoutSensitiveOpInterface>(bn.getOperation())
                        .isChannelsFirst() &&
                   !conv.getWindowAttrs().channelsFirst && fusible(bn, conv));
  }

  void rewrite(FusedBatchNormOp bn, PatternRewriter &rewriter) const override {
    auto conv = bn.getX().getDefiningOp<Conv2DOp>();
    rewriter.setInsertionPoint(bn);
    Location loc = bn.getLoc();
    auto vector = cast<RankedTensorType>(bn.getScale().getType());
    auto make = [&](auto op, StringRef suffix, Type type, ValueRange operands) {
      return rewriter
          .create<decltype(op)>(loc, TypeRange{type}, operands,
                                helperAttributes(conv, bn, suffix, rewriter))
          .getResult();
    };
    SmallVector<NamedAttribute, 3> epsilonAttrs =
        helperAttributes(conv, bn, "-FoldBatchNorm/epsilon", rewriter);
    auto scalar = RankedTensorType::get({}, vector.getElementType());
    Value epsilon = buildConstant(rewriter, loc,
                                  DenseElementsAttr::get(scalar,
                                                         epsilonOf(bn, scalar)),
                                  epsilonAttrs);
    Value shifted = make(AddOp(), "-FoldBatchNorm/add", vector,
                         {bn.getVariance(), epsilon});
    Value deviation = make(SqrtOp(), "-FoldBatchNorm/Sqrt", vector, {shifted});
    Value factor = make(DivOp(), "-FoldBatchNorm/truediv", vector,
                        {bn.getScale(), deviation});
    Value filter = make(MulOp(), "-FoldBatchNorm/mul",
                        conv.getFilter().getType(), {conv.getFilter(), factor});
    Value scaledMean =
        make(MulOp(), "-FoldBatchNorm/mul_1", vector, {bn.getMean(), factor});
    Value bias = make(SubOp(), "-FoldBatchNorm/sub", vector,
                      {bn.getOffset(), scaledMean});
    rewriter.replaceAllUsesWith(bn.getBatchMean(), bn.getMean());
    rewriter.replaceAllUsesWith(bn.getBatchVariance(), bn.getVariance());
    fuseConvolution(conv, filter, bias, bn, rewriter);
  }
};

/// fused_conv2d + max_pool or avg_pool → fused_conv2d_pool, anchored on
/// the pool (NHWC, f32) whose input is a fused_conv2d used by it alone,
/// where both can only run on a CPU: oneDNN's convolution then writes a
/// blocked layout that the pool reads (the seeds' conv_net at batch 128:
/// its first convolution and pool 0.49 ms against 0.74 ms). Where a GPU
/// might take them, they stay apart (cuDNN has no such fusion here).
template <typename PoolOp> struct FuseConv2DPool : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;

  LogicalResult match(PoolOp pool) const override {
    auto conv = pool.getInput().template getDefiningOp<FusedConv2DOp>();
    if (!conv || !conv->hasOneUse() || conv.getWindowAttrs().channelsFirst ||
        pool.getWindowAttrs().channelsFirst || !fusible(pool, conv) ||
        !conv.getType().getElementType().isF32())
      return failure();
    auto module = pool->template getParentOfType<ModuleOp>();
    DeviceSet devices =
        (module ? getModuleDevices(module) : std::nullopt)
            .value_or(DeviceSet::localhost(/*numCpus=*/1, /*numGpus=*/0));
    return success(runsOnCpusOnly(conv, devices));
  }

  void rewrite(PoolOp pool, PatternRewriter &rewriter) const override {
    auto conv = pool.getInput().template getDefiningOp<FusedConv2DOp>();
    SmallVector<NamedAttribute> attrs = windowAttributes(conv);
    SmallVector<Attribute, 3> fusedOps(conv.getFusedOps().getValue());
    fusedOps.push_back(rewriter.getStringAttr(
        std::is_same_v<PoolOp, MaxPoolOp> ? "MaxPool" : "AvgPool"));
    attrs.push_back(
        rewriter.getNamedAttr("fused_ops", rewriter.getArrayAttr(fusedOps)));
    attrs.push_back(rewriter.getNamedAttr("pool_ksize", pool.getKsizeAttr()));
    attrs.push_back(
        rewriter.getNamedAttr("pool_strides", pool.getStridesAttr()));
    attrs.push_back(
        rewriter.getNamedAttr("pool_padding", pool.getPaddingAttr()));
    appendFusedAttributes(conv, pool, attrs, rewriter);
    rewriter.setInsertionPoint(pool);
    SmallVector<Value> operands = {conv.getInput(), conv.getFilter(),
                                   conv.getBias()};
    llvm::append_range(operands, conv.getControlDeps());
    auto fused = rewriter.create<FusedConv2DPoolOp>(
        pool.getLoc(), TypeRange{pool.getType()}, operands, attrs);
    takeOverColocation(fused, {conv.getOperation(), pool.getOperation()},
                       rewriter);
    rewriter.replaceAllUsesWith(pool.getResult(), fused.getResult());
    rewriter.eraseOp(pool);
    rewriter.eraseOp(conv);
  }
};

/// Whether `op` waits for its operands without reading them (a group: a
/// micro-batch's "done" token over its gradients).
bool isControlOnly(Operation *op) {
  return op->hasTrait<::gplace::graph::OpTrait::ControlOnly>();
}

/// The matmul whose product `add` adds to an accumulator of the add's own
/// type (no broadcast), and that accumulator; {} if none. The product has
/// no other use but ops that only wait for it (ControlOnly: a
/// micro-batch's "done" group), which then wait for the sum. Where both
/// operands are such products (a running sum's first two terms), the later
/// one is the product.
std::pair<MatmulOp, Value> productAndAccumulator(AddOp add) {
  MatmulOp product;
  Value accumulator;
  for (int i = 0; i < 2; ++i) {
    auto matmul = add->getOperand(i).getDefiningOp<MatmulOp>();
    Value other = add->getOperand(1 - i);
    auto onlyUse = [&](Operation *user) {
      return user == add.getOperation() || isControlOnly(user);
    };
    if (!matmul || matmul.getType() != add.getType() ||
        other.getType() != add.getType() ||
        llvm::count_if(matmul->getUsers(), [&](Operation *user) {
          return user == add.getOperation();
        }) != 1 ||
        !llvm::all_of(matmul->getUsers(), onlyUse) ||
        matmul->getBlock() != add->getBlock() || other == matmul.getResult())
      continue;
    if (!product || product->isBeforeInBlock(matmul)) {
      product = matmul;
      accumulator = other;
    }
  }
  return {product, accumulator};
}

/// add(c, matmul(a, b)) -> matmul_accumulate(c, a, b): GEMM with beta = 1
/// into the accumulator, as TensorFlow's oneDNN remapper fuses MatMul + Add
/// and cuBLAS accumulates into C. Where the accumulator is computed before
/// the matmul (a running sum of weight gradients,
/// --gplace-accumulate-gradients) the fused op takes the matmul's place, so
/// each micro-batch's gradient is added as soon as it is computed; else
/// the add's. f32 and f64 (the kernels' types); the add takes no control
/// dependencies and the matmul's placement, as any fusion here, or no
/// device request nor colocation of its own (the running sums
/// --gplace-accumulate-gradients adds): it then goes where the matmul does
/// (a gradient's matmul is colocated with its forward op).
struct FuseMatmulAccumulate : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Whether the fused op goes where the matmul is: the accumulator is
  /// computed before it (else where the add is).
  static bool atMatmul(MatmulOp matmul, Value accumulator) {
    Operation *def = accumulator.getDefiningOp();
    if (!def)
      return accumulator.getParentBlock() == matmul->getBlock();
    return def->getBlock() == matmul->getBlock() &&
           def->isBeforeInBlock(matmul);
  }

  LogicalResult match(AddOp add) const override {
    auto [matmul, accumulator] = productAndAccumulator(add);
    if (!matmul)
      return failure();
    // At the add's place, what waits for the product must come after it.
    if (!atMatmul(matmul, accumulator) &&
        llvm::any_of(matmul->getUsers(), [&](Operation *user) {
          return user != add.getOperation() && user->isBeforeInBlock(add);
        }))
      return failure();
    auto request = add->getAttrOfType<StringAttr>("device");
    if (!fusible(add, matmul) &&
        !((!request || request.getValue().empty()) &&
          add.getControlDeps().empty() &&
          add->getAttr("assigned_device") ==
              matmul->getAttr("assigned_device") &&
          add->getDiscardableAttrDictionary().empty()))
      return failure();
    Type element = add.getType().getElementType();
    return success(element.isF32() || element.isF64());
  }

  void rewrite(AddOp add, PatternRewriter &rewriter) const override {
    auto [matmul, accumulator] = productAndAccumulator(add);
    rewriter.setInsertionPoint(atMatmul(matmul, accumulator)
                                   ? matmul.getOperation()
                                   : add.getOperation());
    SmallVector<NamedAttribute> attrs;
    if (matmul.getTransposeA())
      attrs.push_back(
          rewriter.getNamedAttr("transpose_a", rewriter.getUnitAttr()));
    if (matmul.getTransposeB())
      attrs.push_back(
          rewriter.getNamedAttr("transpose_b", rewriter.getUnitAttr()));
    appendFusedAttributes(matmul, add, attrs, rewriter);
    SmallVector<Value> operands = {accumulator, matmul.getLhs(),
                                   matmul.getRhs()};
    llvm::append_range(operands, matmul.getControlDeps());
    auto fused = rewriter.create<MatmulAccumulateOp>(
        add.getLoc(), TypeRange{add.getType()}, operands, attrs);
    takeOverColocation(fused, {matmul.getOperation(), add.getOperation()},
                       rewriter);
    rewriter.replaceAllUsesWith(add.getResult(), fused.getResult());
    rewriter.eraseOp(add);
    // What only waited for the product waits for the sum.
    rewriter.replaceAllUsesWith(matmul.getResult(), fused.getResult());
    rewriter.eraseOp(matmul);
  }
};

} // namespace

void gplace::graph::populateRemapperPatterns(RewritePatternSet &patterns) {
  for (StringRef root :
       {BiasAddOp::getOperationName(), AddOp::getOperationName()})
    patterns.add<FuseConv2DBiasAdd>(root, patterns.getContext());
  patterns.add<FoldBatchNormIntoConv2D, FuseConv2DPool<MaxPoolOp>,
               FuseConv2DPool<AvgPoolOp>, FuseMatmulAccumulate>(
      patterns.getContext());
}

LogicalResult Conv2DOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       SmallVectorImpl<Value> &out) {
  // nn_grad.py's _Conv2DGrad: both backprops with the op's attributes.
  SmallVector<NamedAttribute> attrs = windowAttributes(*this);
  out.push_back(b.create<Conv2DBackpropInputOp>(
      getLoc(), TypeRange{getInput().getType()},
      ValueRange{getFilter(), dys[0]}, attrs));
  out.push_back(b.create<Conv2DBackpropFilterOp>(
      getLoc(), TypeRange{getFilter().getType()},
      ValueRange{getInput(), dys[0]}, attrs));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling.
//===----------------------------------------------------------------------===//

template <typename OpT> static LogicalResult verifyPool(OpT op) {
  WindowVerifier v(op);
  if (failed(v.verifyAttributes(/*convolution=*/false)))
    return failure();
  return v.verifyShapes(op.getInput().getType(), nullptr, op.getType(),
                        "input", "result");
}
LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }
LogicalResult AvgPoolOp::verify() { return verifyPool(*this); }

WindowAttrs MaxPoolOp::getWindowAttrs() {
  return windowOf(*this, false, getInput().getType(), nullptr);
}
WindowAttrs AvgPoolOp::getWindowAttrs() {
  return windowOf(*this, false, getInput().getType(), nullptr);
}
DictionaryAttr MaxPoolOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}
DictionaryAttr AvgPoolOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult MaxPoolGradOp::verify() {
  WindowVerifier v(*this);
  if (failed(v.verifyAttributes(/*convolution=*/false)) ||
      failed(v.verifyShapes(getOrigInput().getType(), nullptr,
                            getOrigOutput().getType(), "orig_input",
                            "orig_output")))
    return failure();
  // grad has orig_output's type, the result orig_input's (AllTypesMatch).
  return success();
}
WindowAttrs MaxPoolGradOp::getWindowAttrs() {
  return windowOf(*this, false, getOrigInput().getType(), nullptr);
}
DictionaryAttr MaxPoolGradOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult AvgPoolGradOp::verify() {
  WindowVerifier v(*this);
  if (failed(v.verifyAttributes(/*convolution=*/false)))
    return failure();
  return v.verifyShapes(getType(), nullptr, getGrad().getType(), "result",
                        "grad");
}
WindowAttrs AvgPoolGradOp::getWindowAttrs() {
  return windowOf(*this, false, getType(), nullptr);
}
DictionaryAttr AvgPoolGradOp::getKernelParameters() {
  return windowParameters(*this, getWindowAttrs());
}

LogicalResult MaxPoolOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  out.push_back(b.create<MaxPoolGradOp>(
      getLoc(), TypeRange{getInput().getType()},
      ValueRange{getInput(), getResult(), dys[0]}, windowAttributes(*this)));
  return success();
}

LogicalResult AvgPoolOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  out.push_back(b.create<AvgPoolGradOp>(getLoc(),
                                        TypeRange{getInput().getType()},
                                        ValueRange{dys[0]},
                                        windowAttributes(*this)));
  return success();
}

//===----------------------------------------------------------------------===//
// Dropout.
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  RankedTensorType input = getInput().getType(), rate = getRate().getType();
  if (rate.getRank() != 0 || rate.getElementType() != input.getElementType())
    return emitOpError() << "rate must be a scalar of the input's element "
                            "type "
                         << input.getElementType() << ", not " << rate;
  RankedTensorType seed = getSeed().getType();
  if (seed.getRank() != 1 || seed.getDimSize(0) != 2)
    return emitOpError() << "seed must be a tensor of 2 integers, not "
                         << seed;
  return success();
}

LogicalResult DropoutOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  // The same mask (same seed, shape and rate) scales the gradient.
  out.push_back(b.create<DropoutOp>(getLoc(), TypeRange{getType()},
                                    ValueRange{dys[0], getRate(), getSeed()},
                                    ArrayRef<NamedAttribute>{}));
  out.push_back(nullptr);
  out.push_back(nullptr);
  return success();
}
