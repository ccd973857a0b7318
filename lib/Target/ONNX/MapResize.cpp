//===- MapResize.cpp - Resize and Upsample as constant interpolations -----===//
//
// Part of the ONNX importer: see OnnxImporter.h. Resize (opsets 10 to 13)
// and Upsample, with their scales or sizes (and roi) known at import time,
// are separable: each output element along an axis is a fixed combination
// of input elements along that axis, whatever the data. So the
// interpolation weights are computed at import time, one matrix per
// resized axis, exactly as ONNX's reference (onnx/backend/test/case/node/
// resize.py: the coordinate transformation, the neighbours of the input
// edge-padded, exclude_outside's renormalization, tf_crop_and_resize's
// extrapolation), and applied axis by axis from the last, as the
// reference interpolates the inner dimensions first:
// - nearest: a `gather` along the axis at constant indices (any element
//   type; the values are copied exactly);
// - linear and cubic (and nearest with extrapolated positions): the axis
//   moved last (`transpose`), the rows times the constant [in, out]
//   weights (`matmul`), plus a constant row of the extrapolation value
//   where tf_crop_and_resize leaves the input (`add`).
// GridSample's coordinates are data: elementwise ops on them, one
// `gather` of the input's rows for a block of taps per sample
// (GridSampler below); so are RoiAlign's samples', computed from its rois.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <algorithm>
#include <cmath>

namespace gplace::frontend::onnx_import {

namespace {

/// The elements of one axis' weights (input size times output size) above
/// which a Resize is refused.
constexpr int64_t kMaxResizeWeights = int64_t(1) << 24;

/// How output coordinates map to input ones and what is interpolated: the
/// attributes of ONNX's Resize.
struct ResizeForm {
  std::string mode = "nearest"; ///< nearest, linear, cubic.
  std::string transform = "half_pixel";
  std::string nearestMode = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
};

/// The interpolation along one axis: weights[o * in + i] is input element
/// i's weight in output element o; an output element outside the input
/// (tf_crop_and_resize) takes the extrapolation value instead.
struct AxisWeights {
  int64_t in = 0, out = 0;
  std::vector<double> weights;
  std::vector<bool> outside;
  bool anyOutside = false;

  bool isIdentity() const {
    if (in != out || anyOutside)
      return false;
    for (int64_t o = 0; o < out; ++o)
      for (int64_t i = 0; i < in; ++i)
        if (weights[o * in + i] != (i == o ? 1.0 : 0.0))
          return false;
    return true;
  }
};

/// The coefficients of the reference's get_coeffs for `ratio` in (0, 1].
SmallVector<double> coefficients(const ResizeForm &form, double ratio) {
  if (form.mode == "linear")
    return {1 - ratio, ratio};
  if (form.mode == "cubic") {
    double a = form.cubicA, r = ratio, s = 1 - ratio;
    return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * s - (a + 3)) * s * s + 1,
            ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
  }
  // nearest: [left, right].
  if (ratio == std::floor(ratio))
    return {0, 1};
  bool right;
  if (form.nearestMode == "round_prefer_ceil")
    right = ratio >= 0.5;
  else if (form.nearestMode == "floor")
    right = false;
  else if (form.nearestMode == "ceil")
    right = true;
  else // round_prefer_floor
    right = ratio > 0.5;
  return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
}

/// The weights along an axis of `in` elements resized to `out` by `scale`
/// (roiStart and roiEnd: tf_crop_and_resize's region).
AxisWeights axisWeights(const ResizeForm &form, int64_t in, int64_t out,
                        double scale, double roiStart, double roiEnd) {
  AxisWeights w;
  w.in = in;
  w.out = out;
  w.weights.assign(in * out, 0.0);
  w.outside.assign(out, false);
  // The reference's output width is the scale times the input's (not the
  // output's size, which is its floor).
  double width = scale * static_cast<double>(in);
  for (int64_t o = 0; o < out; ++o) {
    double x = static_cast<double>(o), xo;
    const std::string &t = form.transform;
    if (t == "align_corners") {
      xo = width == 1 ? 0.0 : x * (in - 1) / (width - 1);
    } else if (t == "asymmetric") {
      xo = x / scale;
    } else if (t == "tf_crop_and_resize") {
      xo = width == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                      : x * (roiEnd - roiStart) * (in - 1) / (width - 1);
      xo += roiStart * (in - 1);
      if (xo < 0 || xo > in - 1) {
        w.outside[o] = true;
        w.anyOutside = true;
        continue;
      }
    } else if (t == "pytorch_half_pixel") {
      xo = width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (t == "tf_half_pixel_for_nn") {
      xo = (x + 0.5) / scale;
    } else { // half_pixel
      xo = (x + 0.5) / scale - 0.5;
    }
    double floorXo = std::floor(xo);
    double ratio = xo == floorXo ? 1.0 : xo - floorXo;
    SmallVector<double> coeffs = coefficients(form, ratio);
    int64_t n = coeffs.size();
    // The n indices nearest xo in the input edge-padded by ceil(n / 2),
    // the smaller first on ties, in ascending order.
    int64_t pad = (n + 1) / 2, limit = in + 2 * pad;
    double xp = xo + pad;
    SmallVector<int64_t> candidates;
    for (int64_t c = static_cast<int64_t>(std::floor(xp)) - n;
         c <= static_cast<int64_t>(std::ceil(xp)) + n; ++c)
      if (c >= 0 && c < limit)
        candidates.push_back(c);
    llvm::stable_sort(candidates, [&](int64_t a, int64_t b) {
      double da = std::fabs(xp - a), db = std::fabs(xp - b);
      return da != db ? da < db : a < b;
    });
    candidates.resize(std::min<size_t>(candidates.size(), n));
    llvm::sort(candidates);
    if (form.excludeOutside) {
      double sum = 0;
      for (auto [k, c] : llvm::enumerate(candidates)) {
        int64_t idx = c - pad;
        if (idx < 0 || idx >= in)
          coeffs[k] = 0;
        sum += coeffs[k];
      }
      for (double &c : coeffs)
        c /= sum;
    }
    for (auto [k, c] : llvm::enumerate(candidates)) {
      int64_t idx = std::clamp<int64_t>(c - pad, 0, in - 1);
      w.weights[o * in + idx] += coeffs[k];
    }
  }
  return w;
}

/// The input index each output element copies, if every output element
/// copies one (nearest, nothing extrapolated).
std::optional<SmallVector<int64_t>> copiedIndices(const AxisWeights &w) {
  if (w.anyOutside)
    return std::nullopt;
  SmallVector<int64_t> indices;
  for (int64_t o = 0; o < w.out; ++o) {
    int64_t found = -1;
    for (int64_t i = 0; i < w.in; ++i) {
      double v = w.weights[o * w.in + i];
      if (v == 1.0 && found < 0)
        found = i;
      else if (v != 0.0)
        return std::nullopt;
    }
    if (found < 0)
      return std::nullopt;
    indices.push_back(found);
  }
  return indices;
}

/// `x` resized along `axis` with `w`.
/// The op that yields the node's output (`last`) takes its name.
Value resizeAxis(Node &n, Value x, int64_t axis, const AxisWeights &w,
                 double extrapolation, bool last, std::string &reason) {
  auto type = cast<RankedTensorType>(x.getType());
  Builder &b = n.builder();
  std::string what = "axis_" + std::to_string(axis);
  std::string final = last ? "" : what;
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = w.out;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (std::optional<SmallVector<int64_t>> indices = copiedIndices(w)) {
    auto indexType = RankedTensorType::get({w.out}, b.getI64Type());
    Value idx = n.constant(DenseElementsAttr::get(indexType,
                                                  ArrayRef<int64_t>(*indices)),
                           what + "_indices");
    return n.op<GatherOp>(resultType, {x, idx},
                          {n.named("axis", b.getI64IntegerAttr(axis))},
                          final);
  }
  auto element = dyn_cast<FloatType>(type.getElementType());
  if (!element) {
    reason = "interpolation of a non-float input";
    return {};
  }
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm = axisLastPermutation(rank, axis);
  Value moved = axis == rank - 1 ? x : n.transpose(x, perm, what + "_last");
  SmallVector<int64_t> movedShape;
  for (int64_t d : perm)
    movedShape.push_back(type.getDimSize(d));
  int64_t rows = type.getNumElements() / w.in;
  Value matrix = n.reshape(moved, {rows, w.in}, what + "_rows");
  // [in, out]: the weights transposed.
  SmallVector<APFloat> weights;
  for (int64_t i = 0; i < w.in; ++i)
    for (int64_t o = 0; o < w.out; ++o) {
      APFloat v(w.weights[o * w.in + i]);
      bool lost;
      v.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      weights.push_back(v);
    }
  Value weightValue = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({w.in, w.out}, element),
                             weights),
      what + "_weights");
  auto productType = RankedTensorType::get({rows, w.out}, element);
  Value product =
      n.op<MatmulOp>(productType, {matrix, weightValue}, {}, what + "_matmul");
  if (w.anyOutside) {
    SmallVector<APFloat> bias;
    for (int64_t o = 0; o < w.out; ++o) {
      APFloat v(w.outside[o] ? extrapolation : 0.0);
      bool lost;
      v.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      bias.push_back(v);
    }
    Value biasValue = n.constant(
        DenseElementsAttr::get(RankedTensorType::get({w.out}, element), bias),
        what + "_extrapolated");
    product = n.op<AddOp>(productType, {product, biasValue}, {},
                          what + "_extrapolate");
  }
  movedShape.back() = w.out;
  if (axis == rank - 1)
    return n.reshape(product, movedShape, final);
  Value back = n.reshape(product, movedShape, what + "_moved");
  SmallVector<int64_t> inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  return n.transpose(back, inverse, final);
}

/// The floats of a constant (scales, roi).
SmallVector<double> toDoubles(DenseElementsAttr attr) {
  SmallVector<double> values;
  for (const APFloat &v : attr.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  return values;
}

/// `x` resized to `outputType` by `scales` (one per dimension), as
/// `form` says; roi: tf_crop_and_resize's [starts..., ends...].
bool resize(Node &n, const ResizeForm &form, ArrayRef<double> scales,
            ArrayRef<double> roi, SmallVectorImpl<Value> &results,
            std::string &reason) {
  RankedTensorType type = n.inputType(0);
  RankedTensorType outputType = n.outputTypes[0];
  int64_t rank = type.getRank();
  if (outputType.getRank() != rank) {
    reason = "an output of another rank than the input";
    return false;
  }
  if (form.transform == "tf_crop_and_resize" &&
      static_cast<int64_t>(roi.size()) != 2 * rank) {
    reason = "tf_crop_and_resize without an roi of 2 * rank values";
    return false;
  }
  Value x = n.input(0);
  SmallVector<int64_t> resized;
  SmallVector<AxisWeights> weights(rank);
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (!(scales[d] > 0) || !std::isfinite(scales[d])) {
      reason = "a scale that is not positive";
      return false;
    }
    int64_t in = type.getDimSize(d), out = outputType.getDimSize(d);
    if (in == 0 || out == 0) {
      reason = "an empty input or output";
      return false;
    }
    // The weights are an [in, out] matrix, computed and held at import
    // time.
    if (in > kMaxResizeWeights / out) {
      reason = "a resize of " + std::to_string(in) + " to " +
               std::to_string(out) +
               " elements along an axis: its weights would hold more than "
               "2^24 elements";
      return false;
    }
    weights[d] = axisWeights(
        form, in, out, scales[d],
        roi.empty() ? 0.0 : roi[d], roi.empty() ? 1.0 : roi[rank + d]);
    if (!weights[d].isIdentity())
      resized.push_back(d);
  }
  if (resized.empty()) {
    results.push_back(n.op<IdentityOp>(outputType, x));
    return true;
  }
  for (int64_t d : resized) {
    x = resizeAxis(n, x, d, weights[d], form.extrapolation,
                   d == resized.back(), reason);
    if (!x)
      return false;
  }
  results.push_back(x);
  return true;
}

/// Resize: the scales (opset 10: input 1; 11 and after: input 2) or the
/// sizes (input 3), and roi (input 1), known at import time
/// (importTimeInputs). Opset 10 and Upsample (and the Resize ONNX's
/// version converter makes of them) take the output coordinate over the
/// scale, the nearest element below.
bool mapResize(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (!type || !n.outputTypes[0]) {
    reason = "an omitted input";
    return false;
  }
  int64_t rank = type.getRank();
  ResizeForm form;
  form.mode = n.getString("mode", "nearest");
  bool older = n.opset < 11 || (n.importer.upgradedFrom > 0 &&
                                n.importer.upgradedFrom < 11);
  if (older) {
    form.transform = "asymmetric";
    form.nearestMode = "floor";
  }
  if (n.opset >= 11) {
    form.transform = n.getString("coordinate_transformation_mode",
                                 form.transform);
    form.nearestMode = n.getString("nearest_mode", form.nearestMode);
    form.cubicA = n.getFloat("cubic_coeff_a", -0.75f);
    form.excludeOutside = n.getInt("exclude_outside", 0) != 0;
    form.extrapolation = n.getFloat("extrapolation_value", 0.0f);
  }
  if (form.mode != "nearest" && form.mode != "linear" && form.mode != "cubic") {
    reason = "mode '" + form.mode + "'";
    return false;
  }
  static const char *const transforms[] = {
      "half_pixel",   "pytorch_half_pixel",   "align_corners",
      "asymmetric",   "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!llvm::is_contained(transforms, form.transform)) {
    reason = "coordinate_transformation_mode '" + form.transform + "'";
    return false;
  }
  static const char *const nearestModes[] = {"round_prefer_floor",
                                             "round_prefer_ceil", "floor",
                                             "ceil"};
  if (!llvm::is_contained(nearestModes, form.nearestMode)) {
    reason = "nearest_mode '" + form.nearestMode + "'";
    return false;
  }
  int scalesInput = n.opset < 11 ? 1 : 2;
  SmallVector<double> scales, roi;
  if (n.hasInput(scalesInput)) {
    std::optional<DenseElementsAttr> c = n.constant(scalesInput);
    if (!c) {
      reason = "scales computed at run time";
      return false;
    }
    scales = toDoubles(*c);
  }
  if (scales.empty() && n.opset >= 11 && n.hasInput(3)) {
    std::optional<DenseElementsAttr> c = n.constant(3);
    if (!c) {
      reason = "sizes computed at run time";
      return false;
    }
    SmallVector<int64_t> sizes = toInts(*c);
    if (static_cast<int64_t>(sizes.size()) != rank) {
      reason = "sizes of another length than the input's rank";
      return false;
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (sizes[d] != n.outputTypes[0].getDimSize(d)) {
        reason = "sizes that differ from the output's shape";
        return false;
      }
      scales.push_back(static_cast<double>(sizes[d]) /
                       static_cast<double>(type.getDimSize(d)));
    }
  } else if (static_cast<int64_t>(scales.size()) != rank) {
    reason = "neither scales nor sizes of the input's rank";
    return false;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      if (static_cast<int64_t>(std::floor(
              scales[d] * static_cast<double>(type.getDimSize(d)))) !=
          n.outputTypes[0].getDimSize(d)) {
        reason = "scales that do not give the output's shape";
        return false;
      }
  }
  if (form.transform == "tf_crop_and_resize") {
    std::optional<DenseElementsAttr> c =
        n.opset >= 11 && n.hasInput(1) ? n.constant(1) : std::nullopt;
    if (!c) {
      reason = "tf_crop_and_resize without a constant roi";
      return false;
    }
    roi = toDoubles(*c);
  }
  return resize(n, form, scales, roi, results, reason);
}

/// Upsample (opsets 7 to 9; the version converter makes it a Resize where
/// it can): the scales an attribute (7, 8) or input 1 (9); the output
/// coordinate over the scale, the nearest element below.
bool mapUpsample(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (!type || !n.outputTypes[0]) {
    reason = "an omitted input";
    return false;
  }
  ResizeForm form;
  form.mode = n.getString("mode", "nearest");
  if (form.mode == "bilinear")
    form.mode = "linear";
  if (form.mode != "nearest" && form.mode != "linear") {
    reason = "mode '" + form.mode + "'";
    return false;
  }
  form.transform = "asymmetric";
  form.nearestMode = "floor";
  SmallVector<double> scales;
  if (const onnx::AttributeProto *a = n.attr("scales")) {
    for (float f : a->floats())
      scales.push_back(f);
  } else if (std::optional<DenseElementsAttr> c = n.constant(1)) {
    scales = toDoubles(*c);
  } else {
    reason = "scales computed at run time";
    return false;
  }
  if (static_cast<int64_t>(scales.size()) != type.getRank()) {
    reason = "scales of another length than the input's rank";
    return false;
  }
  return resize(n, form, scales, {}, results, reason);
}

/// GridSample's ops (opset 16; PyTorch's grid_sampler_2d, whose outputs
/// ONNX's tests are): the source coordinates are data, so every step is an
/// elementwise op on f32 tensors, and the taps are one `gather` of the
/// input's rows ([N * H * W, C]) at flat indices, weighted and summed.
/// A sample's taps are a B x A block (rows y, columns x): its x coordinates
/// and weights are [lead..., 1, A] tensors, its y ones [lead..., B, 1],
/// and numpy broadcasting makes the block ([lead..., B, A]), so the step
/// count does not grow with the taps (bicubic's 16: 214 steps one tap at a
/// time).
struct GridSampler {
  Node &n;
  RankedTensorType coords; ///< [lead..., 1] f32: one coordinate per sample.
  int64_t batch, channels, height, width;
  bool alignCorners;
  std::string padding;
  Value rows;          ///< The input as [N * H * W, C].
  Value batchOffsets;  ///< Each sample's image's first row, n * H * W.
  int counter = 0;

  std::string fresh(llvm::StringRef what) {
    return (what + "_" + std::to_string(counter++)).str();
  }
  Value constant(double v) {
    return n.scalar(coords, v, fresh("c"));
  }
  /// An f32 vector: [k] along x (the last dimension), [k, 1] along y.
  Value vector(ArrayRef<float> values, bool alongY) {
    int64_t k = static_cast<int64_t>(values.size());
    auto type = alongY ? RankedTensorType::get({k, 1}, coords.getElementType())
                       : RankedTensorType::get({k}, coords.getElementType());
    return n.constant(DenseElementsAttr::get(type, values), fresh("taps"));
  }
  // Elementwise ops, their result types numpy's broadcast of the operands'.
  Value add(Value a, Value b) {
    return n.op<AddOp>(Type(), {a, b}, {}, fresh("add"));
  }
  Value sub(Value a, Value b) {
    return n.op<SubOp>(Type(), {a, b}, {}, fresh("sub"));
  }
  Value mul(Value a, Value b) {
    return n.op<MulOp>(Type(), {a, b}, {}, fresh("mul"));
  }
  Value floor(Value a) { return n.op<FloorOp>(Type(), a, {}, fresh("floor")); }
  Value max(Value a, Value b) {
    return n.op<MaximumOp>(Type(), {a, b}, {}, fresh("max"));
  }
  Value min(Value a, Value b) {
    return n.minimum(a, b, n.broadcastType(a, b), fresh("min"));
  }
  Value mask(Value v, double low, double high) {
    Value above =
        n.op<GreaterEqualOp>(Type(), {v, constant(low)}, {}, fresh("ge"));
    Value below =
        n.op<GreaterEqualOp>(Type(), {constant(high), v}, {}, fresh("le"));
    return n.op<LogicalAndOp>(Type(), {above, below}, {}, fresh("in"));
  }
  RankedTensorType withI1() {
    return RankedTensorType::get(coords.getShape(), n.builder().getI1Type());
  }

  /// grid_sampler_unnormalize: [-1, 1] to pixel coordinates.
  Value unnormalize(Value g, int64_t size) {
    if (alignCorners) // (g + 1) / 2 * (size - 1)
      return mul(add(g, constant(1)), constant((size - 1) / 2.0));
    // ((g + 1) * size - 1) / 2
    return mul(sub(mul(add(g, constant(1)), constant(size)), constant(1)),
               constant(0.5));
  }
  /// reflect_coordinates over [twiceLow / 2, twiceHigh / 2].
  Value reflect(Value v, int64_t twiceLow, int64_t twiceHigh) {
    if (twiceLow == twiceHigh) // Zeros of v's shape.
      return n.constant(
          DenseElementsAttr::get(cast<RankedTensorType>(v.getType()),
                                 n.builder().getF32FloatAttr(0)),
          fresh("c"));
    double low = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
    Value shifted = sub(v, constant(low));
    Value in = max(shifted, n.op<NegOp>(Type(), shifted, {}, fresh("neg")));
    Value flips = floor(mul(in, constant(1.0 / span)));
    Value extra = sub(in, mul(flips, constant(span)));
    Value half = floor(mul(flips, constant(0.5)));
    Value odd = n.op<GreaterOp>(
        Type(), {sub(flips, mul(half, constant(2))), constant(0.5)}, {},
        fresh("odd"));
    return n.op<SelectOp>(Type(),
                          {odd, add(sub(constant(span), extra), constant(low)),
                           add(extra, constant(low))},
                          {}, fresh("reflected"));
  }
  /// compute_coordinates: the padding mode's clipping or reflection.
  Value pad(Value v, int64_t size) {
    if (padding == "border")
      return min(max(v, constant(0)), constant(size - 1));
    if (padding == "reflection") {
      v = alignCorners ? reflect(v, 0, 2 * (size - 1))
                       : reflect(v, -1, 2 * size - 1);
      return min(max(v, constant(0)), constant(size - 1));
    }
    return v;
  }
  /// The input at a B x A block of integral coordinates, x [lead..., 1, A]
  /// and y [lead..., B, 1], times `weight` ([lead..., B, A] or one that
  /// broadcasts to it), zero where (x, y) is outside the input:
  /// [lead..., B * A, C], the taps in row-major (y, x) order.
  Value taps(Value x, Value y, Value weight) {
    Value inside = n.op<LogicalAndOp>(
        Type(), {mask(x, 0, width - 1), mask(y, 0, height - 1)}, {},
        fresh("inside"));
    Value cx = min(max(x, constant(0)), constant(width - 1));
    Value cy = min(max(y, constant(0)), constant(height - 1));
    Value flat = add(mul(cy, constant(width)), cx);
    auto block = cast<RankedTensorType>(flat.getType());
    auto i64 =
        RankedTensorType::get(block.getShape(), n.builder().getI64Type());
    Value index = n.op<CastOp>(i64, flat, {}, fresh("index"));
    index = n.op<AddOp>(Type(), {index, batchOffsets}, {}, fresh("row"));
    Value gathered = n.op<GatherOp>(
        Type(), {rows, index},
        {n.named("axis", n.builder().getI64IntegerAttr(0))}, fresh("gather"));
    ArrayRef<int64_t> shape = block.getShape();
    SmallVector<int64_t> lead(shape.drop_back(2));
    lead.push_back(shape[shape.size() - 2] * shape.back());
    Value w = n.op<SelectOp>(Type(), {inside, weight, constant(0)}, {},
                             fresh("weight"));
    SmallVector<int64_t> wShape(lead);
    wShape.push_back(1);
    lead.push_back(channels);
    return mul(n.reshape(gathered, lead, fresh("taps")),
               n.reshape(w, wShape, fresh("weights")));
  }
};

/// The cubic convolution coefficients of PyTorch's bicubic sampling
/// (A = -0.75) for the fraction t ([lead..., 1, 1]) at the four taps'
/// distances t + 1, t, 1 - t and 2 - t (the taps at -1, 0, 1, 2):
/// [lead..., 1, 4], or [lead..., 4, 1] `alongY`. The same bits as one
/// tap at a time: each distance is (t - offset) * +-1.
Value cubicWeights(GridSampler &g, Value t, bool alongY) {
  const double a = -0.75;
  auto near = [&](Value x) { // ((A + 2) x - (A + 3)) x x + 1
    Value inner = g.sub(g.mul(x, g.constant(a + 2)), g.constant(a + 3));
    return g.add(g.mul(g.mul(inner, x), x), g.constant(1));
  };
  auto far = [&](Value x) { // ((A x - 5 A) x + 8 A) x - 4 A
    Value inner = g.sub(g.mul(x, g.constant(a)), g.constant(5 * a));
    inner = g.add(g.mul(inner, x), g.constant(8 * a));
    return g.sub(g.mul(inner, x), g.constant(4 * a));
  };
  Value d = g.mul(g.sub(t, g.vector({-1, 0, 1, 2}, alongY)),
                  g.vector({1, 1, -1, -1}, alongY));
  int64_t k = 4;
  Builder &b = g.n.builder();
  auto maskType = alongY ? RankedTensorType::get({k, 1}, b.getI1Type())
                         : RankedTensorType::get({k}, b.getI1Type());
  Value isNear =
      g.n.constant(DenseElementsAttr::get(
                       maskType, ArrayRef<bool>{false, true, true, false}),
                   g.fresh("near"));
  return g.n.op<SelectOp>(Type(), {isNear, near(d), far(d)}, {},
                          g.fresh("cubic"));
}

/// GridSample: X [N, C, H, W] sampled at Grid [N, Ho, Wo, 2] (x, y in
/// [-1, 1]): modes bilinear, nearest and bicubic; padding modes zeros,
/// border and reflection; align_corners.
bool mapGridSample(Node &n, SmallVectorImpl<Value> &results,
                   std::string &reason) {
  RankedTensorType x = n.inputType(0), grid = n.inputType(1);
  RankedTensorType result = n.outputTypes[0];
  if (!x || !grid || !result || x.getRank() != 4 || grid.getRank() != 4 ||
      grid.getDimSize(3) != 2 || grid.getDimSize(0) != x.getDimSize(0)) {
    reason = "an input that is not [N, C, H, W] with a grid [N, Ho, Wo, 2]";
    return false;
  }
  if (!x.getElementType().isF32() || !grid.getElementType().isF32()) {
    reason = "an input or grid that is not f32";
    return false;
  }
  std::string mode = n.getString("mode", "bilinear");
  std::string padding = n.getString("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") {
    reason = "mode '" + mode + "'";
    return false;
  }
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    reason = "padding_mode '" + padding + "'";
    return false;
  }
  Builder &b = n.builder();
  int64_t batch = x.getDimSize(0), channels = x.getDimSize(1),
          height = x.getDimSize(2), width = x.getDimSize(3);
  int64_t outH = grid.getDimSize(1), outW = grid.getDimSize(2);
  // One coordinate per sample, with room for a tap block: [N, Ho, Wo, 1, 1].
  auto coords =
      RankedTensorType::get({batch, outH, outW, 1, 1}, b.getF32Type());
  GridSampler g{n, coords, batch, channels, height, width,
                n.getInt("align_corners", 0) != 0, padding, {}, {}};
  Value nhwc = n.transpose(n.input(0), {0, 2, 3, 1}, "nhwc");
  g.rows = n.reshape(nhwc, {batch * height * width, channels}, "rows");
  SmallVector<int64_t> offsets;
  for (int64_t i = 0; i < batch; ++i)
    offsets.push_back(i * height * width);
  g.batchOffsets =
      n.constant(DenseElementsAttr::get(
                     RankedTensorType::get({batch, 1, 1, 1, 1}, b.getI64Type()),
                     ArrayRef<int64_t>(offsets)),
                 "batch_offsets");
  auto part = [&](int64_t at, llvm::StringRef what) {
    Value v = n.op<SliceOp>(
        RankedTensorType::get({batch, outH, outW, 1}, b.getF32Type()),
        n.input(1),
        {n.named("begin", b.getDenseI64ArrayAttr({0, 0, 0, at})),
         n.named("size", b.getDenseI64ArrayAttr({batch, outH, outW, 1}))},
        what);
    return n.reshape(v, coords.getShape(), (what + "_r").str());
  };
  Value ix = g.unnormalize(part(0, "grid_x"), width);
  Value iy = g.unnormalize(part(1, "grid_y"), height);
  Value taps;
  if (mode == "bicubic") {
    // Taps at floor - 1 .. floor + 2 along each axis: a 4 x 4 block.
    Value x0 = g.floor(ix), y0 = g.floor(iy);
    Value wx = cubicWeights(g, g.sub(ix, x0), /*alongY=*/false);
    Value wy = cubicWeights(g, g.sub(iy, y0), /*alongY=*/true);
    Value tx = g.floor(g.pad(g.add(x0, g.vector({-1, 0, 1, 2}, false)), width));
    Value ty = g.floor(g.pad(g.add(y0, g.vector({-1, 0, 1, 2}, true)), height));
    taps = g.taps(tx, ty, g.mul(wx, wy));
  } else {
    ix = g.pad(ix, width);
    iy = g.pad(iy, height);
    if (mode == "nearest") {
      taps = g.taps(n.op<RoundOp>(Type(), ix, {}, "nearest_x"),
                    n.op<RoundOp>(Type(), iy, {}, "nearest_y"), g.constant(1));
    } else {
      // A 2 x 2 block at floor and floor + 1; the weight of one tap is its
      // distance to the other, (other - v) * +-1: x1 - ix and ix - x0.
      Value x0 = g.floor(ix), y0 = g.floor(iy);
      auto weights = [&](Value v, Value v0, bool alongY) {
        return g.mul(g.sub(g.add(v0, g.vector({1, 0}, alongY)), v),
                     g.vector({1, -1}, alongY));
      };
      taps = g.taps(g.add(x0, g.vector({0, 1}, false)),
                    g.add(y0, g.vector({0, 1}, true)),
                    g.mul(weights(ix, x0, false), weights(iy, y0, true)));
    }
  }
  auto sumType =
      RankedTensorType::get({batch, outH, outW, channels}, b.getF32Type());
  Value sum = cast<RankedTensorType>(taps.getType()).getDimSize(3) == 1
                  ? n.reshape(taps, sumType.getShape(), "sum")
                  : n.op<ReduceSumOp>(
                        sumType, taps,
                        {n.named("axes", b.getDenseI64ArrayAttr({3}))}, "sum");
  results.push_back(n.transpose(sum, {0, 3, 1, 2}));
  return true;
}

/// RoiAlign (opsets 10 and 16; ONNX's reference, op_roi_align.py): X
/// [N, C, H, W] pooled over each of the R rois [R, 4] (x1, y1, x2, y2,
/// times spatial_scale) of image batch_indices [R] into Ho x Wo bins, each
/// the average (or the maximum) of sampling_ratio x sampling_ratio
/// bilinear samples. The rois are data: the samples' coordinates are
/// elementwise ops on f32 tensors [R, Ho * Wo * S, 1] (S samples per bin),
/// the four taps one 2 x 2 block, a `gather` of X's rows ([N * H * W, C])
/// for all, as GridSample's. sampling_ratio 0 (adaptive: ceil of each roi's
/// size over the bins') needs the rois known at import time: each roi then has
/// its own grid, padded to the largest with repeated samples (max) or samples
/// of no weight (avg, divided by the roi's own count); rois of the run are
/// refused, as the number of samples would not be static.
bool mapRoiAlign(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  RankedTensorType x = n.inputType(0), rois = n.inputType(1),
                   indices = n.inputType(2);
  if (!x || !rois || !indices || x.getRank() != 4 || rois.getRank() != 2 ||
      rois.getDimSize(1) != 4 || indices.getRank() != 1 ||
      indices.getDimSize(0) != rois.getDimSize(0)) {
    reason = "an input that is not [N, C, H, W] with rois [R, 4] and "
             "batch_indices [R]";
    return false;
  }
  if (!x.getElementType().isF32() || !rois.getElementType().isF32()) {
    reason = "an input or rois that are not f32";
    return false;
  }
  std::string mode = n.getString("mode", "avg");
  std::string transform = n.opset >= 16
                              ? n.getString("coordinate_transformation_mode",
                                            "half_pixel")
                              : "output_half_pixel";
  if (mode != "avg" && mode != "max") {
    reason = "mode '" + mode + "'";
    return false;
  }
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    reason = "coordinate_transformation_mode '" + transform + "'";
    return false;
  }
  int64_t ratio = n.getInt("sampling_ratio", 0);
  int64_t outH = n.getInt("output_height", 1),
          outW = n.getInt("output_width", 1);
  if (outH < 1 || outW < 1) {
    reason = "an output size below 1";
    return false;
  }
  float scale = n.getFloat("spatial_scale", 1.0f);
  bool halfPixel = transform == "half_pixel";
  Builder &b = n.builder();
  int64_t batch = x.getDimSize(0), channels = x.getDimSize(1),
          height = x.getDimSize(2), width = x.getDimSize(3);
  int64_t count = rois.getDimSize(0);
  // Each roi's grid (gridY[r] x gridX[r] samples per bin), and the largest.
  SmallVector<int64_t> gridY(count, ratio), gridX(count, ratio);
  int64_t maxY = ratio, maxX = ratio;
  if (ratio <= 0) {
    std::optional<DenseElementsAttr> known = n.constant(1);
    if (!known) {
      reason = "sampling_ratio " + std::to_string(ratio) +
               " (adaptive) with rois computed at run time: the number of "
               "samples would depend on their values";
      return false;
    }
    SmallVector<float> corners(known->getValues<float>());
    maxY = maxX = 1;
    // As the reference, in f32: the roi's size over the bins', rounded up.
    float offset = halfPixel ? 0.5f : 0.0f;
    for (int64_t r = 0; r < count; ++r) {
      float w = (corners[4 * r + 2] * scale - offset) -
                (corners[4 * r] * scale - offset);
      float h = (corners[4 * r + 3] * scale - offset) -
                (corners[4 * r + 1] * scale - offset);
      if (!halfPixel) {
        w = std::max(w, 1.0f);
        h = std::max(h, 1.0f);
      }
      float gy = std::ceil(h / static_cast<float>(outH)),
            gx = std::ceil(w / static_cast<float>(outW));
      if (!(gy < 1e4f && gx < 1e4f)) {
        reason = "an adaptive sampling grid of more than 10^4 samples a side";
        return false;
      }
      gridY[r] = gy < 1 ? 0 : static_cast<int64_t>(gy);
      gridX[r] = gx < 1 ? 0 : static_cast<int64_t>(gx);
      maxY = std::max(maxY, gridY[r]);
      maxX = std::max(maxX, gridX[r]);
    }
  }
  // In double: the attributes may be anything.
  if (static_cast<double>(count) * outH * outW * maxY * maxX *
          std::max<int64_t>(channels, 1) >
      static_cast<double>(int64_t(1) << 26)) {
    reason = "more than 2^26 samples";
    return false;
  }
  int64_t samples = maxY * maxX;
  bool adaptive = ratio <= 0;
  int64_t points = outH * outW * samples;
  auto coords = RankedTensorType::get({count, points, 1}, b.getF32Type());
  GridSampler g{n, coords, batch, channels, height, width,
                /*alignCorners=*/false, "zeros", {}, {}};
  Value nhwc = n.transpose(n.input(0), {0, 2, 3, 1}, "nhwc");
  g.rows = n.reshape(nhwc, {batch * height * width, channels}, "rows");
  Value image = n.reshape(toI64(n, n.input(2), "batch_i64"), {count, 1, 1},
                          "batch");
  g.batchOffsets =
      n.reshape(n.op<MulOp>(Type(),
                            {image, n.scalar(image.getType(), height * width,
                                             "image_size")},
                            {}, "batch_offsets"),
                {count, 1, 1, 1}, "batch_offsets_r");
  // Each roi's corner and size, [R, 1, 1].
  auto corner = [&](int64_t at, llvm::StringRef what) {
    Value v = n.op<SliceOp>(
        RankedTensorType::get({count, 1}, b.getF32Type()), n.input(1),
        {n.named("begin", b.getDenseI64ArrayAttr({0, at})),
         n.named("size", b.getDenseI64ArrayAttr({count, 1}))},
        what);
    v = n.reshape(v, {count, 1, 1}, (what + "_r").str());
    v = n.op<MulOp>(Type(), {v, g.constant(scale)}, {}, (what + "_scaled").str());
    return halfPixel ? n.op<SubOp>(Type(), {v, g.constant(0.5)}, {},
                                   (what + "_shifted").str())
                     : v;
  };
  Value startX = corner(0, "x1"), startY = corner(1, "y1");
  Value endX = corner(2, "x2"), endY = corner(3, "y2");
  // The samples' offsets in bins, [1 (R if adaptive), Ho * Wo * S, 1] in
  // (ph, pw, iy, ix) order: pw + (ix + 0.5) / Sx along x, ph + (iy + 0.5)
  // / Sy along y. A roi's grid smaller than the largest repeats its
  // samples (iy mod Sy, ix mod Sx) where the largest has more; `present`
  // says which are its own (avg weighs the others 0), `own` whether it has
  // any (an empty grid pools to 0, as the reference's).
  int64_t grids = adaptive ? count : 1;
  SmallVector<float> offsetX, offsetY;
  SmallVector<bool> present, own;
  for (int64_t r = 0; r < grids; ++r)
    for (int64_t ph = 0; ph < outH; ++ph)
      for (int64_t pw = 0; pw < outW; ++pw)
        for (int64_t iy = 0; iy < maxY; ++iy)
          for (int64_t ix = 0; ix < maxX; ++ix) {
            int64_t sy = std::max<int64_t>(gridY[r], 1),
                    sx = std::max<int64_t>(gridX[r], 1);
            offsetX.push_back(static_cast<float>(pw + (ix % sx + 0.5) / sx));
            offsetY.push_back(static_cast<float>(ph + (iy % sy + 0.5) / sy));
            present.push_back(iy < gridY[r] && ix < gridX[r]);
            own.push_back(gridY[r] > 0 && gridX[r] > 0);
          }
  auto offsets = [&](ArrayRef<float> values, llvm::StringRef what) {
    return n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({grids, points, 1}, b.getF32Type()), values),
        what);
  };
  // The sample coordinate along one axis, [R, P, 1]: start + bin * offset
  // (bin: the roi's size, at least 1 with output_half_pixel, over the
  // bins').
  auto sample = [&](Value start, Value end, int64_t bins,
                    ArrayRef<float> offset, llvm::StringRef what) {
    Value size = n.op<SubOp>(Type(), {end, start}, {}, (what + "_size").str());
    if (!halfPixel)
      size = n.op<MaximumOp>(Type(), {size, g.constant(1)}, {},
                             (what + "_size_at_least_1").str());
    Value bin = n.op<MulOp>(Type(), {size, g.constant(1.0 / bins)}, {},
                            (what + "_bin").str());
    Value at = n.op<MulOp>(coords, {bin, offsets(offset, (what + "_offsets").str())},
                           {}, (what + "_offset").str());
    return g.add(start, at);
  };
  Value sx = sample(startX, endX, outW, offsetX, "x");
  Value sy = sample(startY, endY, outH, offsetY, "y");
  // A sample outside [-1, size] weighs nothing; one inside is clamped to
  // [0, size - 1], its low neighbour its floor, its high one the next
  // (the last at the edge).
  Value valid = n.op<LogicalAndOp>(g.withI1(), {g.mask(sx, -1, width),
                                                g.mask(sy, -1, height)},
                                   {}, "valid");
  if (adaptive)
    valid = n.op<LogicalAndOp>(
        g.withI1(),
        {valid, n.constant(DenseElementsAttr::get(g.withI1(),
                                                  ArrayRef<bool>(
                                                      mode == "avg" ? present
                                                                    : own)),
                           "present")},
        {}, "valid_present");
  // Each sample's taps, a 2 x 2 block: x [R, P, 1, 2], y [R, P, 2, 1].
  // A sample's low neighbour is its floor, the high one the next but at
  // most size - 1: min(low + {0, 1}, size - 1); their weights 1 - frac and
  // frac, ({1, 0} - frac) * {1, -1} (the same bits).
  auto neighbours = [&](Value v, int64_t size, bool alongY) {
    v = n.reshape(v, {count, points, 1, 1}, g.fresh("sample"));
    Value clamped = g.min(g.max(v, g.constant(0)), g.constant(size - 1));
    Value low = g.floor(clamped);
    Value frac = g.sub(clamped, low);
    return std::make_pair(
        g.min(g.add(low, g.vector({0, 1}, alongY)), g.constant(size - 1)),
        g.mul(g.sub(g.vector({1, 0}, alongY), frac),
              g.vector({1, -1}, alongY)));
  };
  auto [xs, wx] = neighbours(sx, width, false);
  auto [ys, wy] = neighbours(sy, height, true);
  valid = n.reshape(valid, {count, points, 1, 1}, "valid_r");
  Value weight = n.op<SelectOp>(Type(), {valid, g.mul(wy, wx), g.constant(0)},
                                {}, "weight");
  // Per sample: the taps' sum (avg) or maximum (max), [R, P, C]; per bin:
  // the samples' mean or maximum.
  bool max = mode == "max";
  auto perSample =
      RankedTensorType::get({count, points, channels}, b.getF32Type());
  NamedAttribute tapAxis = n.named("axes", b.getDenseI64ArrayAttr({2}));
  Value block = g.taps(xs, ys, weight);
  Value combined =
      max ? n.op<ReduceMaxOp>(perSample, block, {tapAxis}, "taps_max")
          : n.op<ReduceSumOp>(perSample, block, {tapAxis}, "taps_sum");
  Value bins = n.reshape(combined, {count, outH, outW, samples, channels},
                         "samples");
  auto pooledType =
      RankedTensorType::get({count, outH, outW, channels}, b.getF32Type());
  NamedAttribute axes = n.named("axes", b.getDenseI64ArrayAttr({3}));
  // The mean: over each roi's own count of samples, at least 1.
  Value inverse = g.constant(1.0 / samples);
  if (adaptive) {
    SmallVector<float> inverses;
    for (int64_t r = 0; r < count; ++r)
      inverses.push_back(
          1.0f / static_cast<float>(std::max<int64_t>(gridY[r] * gridX[r], 1)));
    inverse = n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({count, 1, 1, 1}, b.getF32Type()),
            ArrayRef<float>(inverses)),
        "inverse_counts");
  }
  Value pooled =
      max ? n.op<ReduceMaxOp>(pooledType, bins, {axes}, "pooled")
          : n.op<MulOp>(pooledType,
                        {n.op<ReduceSumOp>(pooledType, bins, {axes}, "summed"),
                         inverse},
                        {}, "pooled");
  results.push_back(n.transpose(pooled, {0, 3, 1, 2}));
  return true;
}

} // namespace

void addResizeMappers(llvm::StringMap<MapFn> &table) {
  table["Resize"] = mapResize;
  table["Upsample"] = mapUpsample;
  table["GridSample"] = mapGridSample;
  table["RoiAlign"] = mapRoiAlign;
}

} // namespace gplace::frontend::onnx_import
