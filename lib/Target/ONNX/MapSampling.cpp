//===- MapSampling.cpp - GridSample and RoiAlign
//---------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. GridSample's coordinates
// are data: elementwise ops on them, one `gather` of the input's rows for a
// block of taps per sample (GridSampler below); so are RoiAlign's
// samples', computed from its rois. (Resize and Upsample, whose weights are
// known at import time, are in MapResize.cpp.)
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <algorithm>
#include <cmath>

namespace gplace::frontend::onnx_import {

namespace {

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
  Value rows;         ///< The input as [N * H * W, C].
  Value batchOffsets; ///< Each sample's image's first row, n * H * W.
  int counter = 0;

  /// A sampler of input 0 (`x`, [N, C, H, W]) at `coords`: its rows are
  /// x's NHWC transpose as [N * H * W, C].
  static GridSampler over(Node &n, RankedTensorType x, RankedTensorType coords,
                          bool alignCorners, std::string padding) {
    int64_t batch = x.getDimSize(0), channels = x.getDimSize(1),
            height = x.getDimSize(2), width = x.getDimSize(3);
    GridSampler g{n,     coords,       batch, channels, height, width,
                  alignCorners, std::move(padding), {},    {}};
    Value nhwc = n.transpose(n.input(0), {0, 2, 3, 1}, "nhwc");
    g.rows = n.reshape(nhwc, {batch * height * width, channels}, "rows");
    return g;
  }

  std::string fresh(llvm::StringRef what) {
    return (what + "_" + std::to_string(counter++)).str();
  }
  Value constant(double v) { return n.scalar(coords, v, fresh("c")); }
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
  GridSampler g = GridSampler::over(
      n, x, coords, n.getInt("align_corners", 0) != 0, padding);
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
  std::string transform =
      n.opset >= 16
          ? n.getString("coordinate_transformation_mode", "half_pixel")
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
  int64_t channels = x.getDimSize(1), height = x.getDimSize(2),
          width = x.getDimSize(3);
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
  GridSampler g =
      GridSampler::over(n, x, coords, /*alignCorners=*/false, "zeros");
  Value image =
      n.reshape(toI64(n, n.input(2), "batch_i64"), {count, 1, 1}, "batch");
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
    v = n.op<MulOp>(Type(), {v, g.constant(scale)}, {},
                    (what + "_scaled").str());
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
    Value at =
        n.op<MulOp>(coords, {bin, offsets(offset, (what + "_offsets").str())},
                    {}, (what + "_offset").str());
    return g.add(start, at);
  };
  Value sx = sample(startX, endX, outW, offsetX, "x");
  Value sy = sample(startY, endY, outH, offsetY, "y");
  // A sample outside [-1, size] weighs nothing; one inside is clamped to
  // [0, size - 1], its low neighbour its floor, its high one the next
  // (the last at the edge).
  Value valid = n.op<LogicalAndOp>(
      g.withI1(), {g.mask(sx, -1, width), g.mask(sy, -1, height)}, {}, "valid");
  if (adaptive)
    valid = n.op<LogicalAndOp>(
        g.withI1(),
        {valid, n.constant(DenseElementsAttr::get(
                               g.withI1(),
                               ArrayRef<bool>(mode == "avg" ? present : own)),
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
  Value bins =
      n.reshape(combined, {count, outH, outW, samples, channels}, "samples");
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
    inverse =
        n.constant(DenseElementsAttr::get(
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

void addSamplingMappers(llvm::StringMap<MapFn> &table) {
  table["GridSample"] = mapGridSample;
  table["RoiAlign"] = mapRoiAlign;
}

} // namespace gplace::frontend::onnx_import
