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
// GridSample and RoiAlign, whose coordinates are data, are in
// MapSampling.cpp.
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

} // namespace

void addResizeMappers(llvm::StringMap<MapFn> &table) {
  table["Resize"] = mapResize;
  table["Upsample"] = mapUpsample;
}

} // namespace gplace::frontend::onnx_import
