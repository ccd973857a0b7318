//===- MapDataDependent.cpp - NonZero, Unique, NonMaxSuppression ----------===//
//
// Part of the ONNX importer: see OnnxImporter.h. The ops whose outputs'
// shapes their inputs' values decide. gplace's tensors are statically
// shaped (memory is planned before a step runs), so every input of these
// nodes must be known at import time (dataDependentInputs, which
// importTimeInputs includes: an initializer, a Constant node, a value
// folded, or a graph input whose value the caller gives, which specializes
// the graph); their outputs are then computed here as constants, as ONNX's
// definitions and reference implementation compute them
// (onnx/reference/ops/op_non_zero.py, op_unique.py,
// op_non_max_suppression.py). An input computed at run time is refused
// with dataDependentNote's words (Importer::importNode); docs/onnx.md says
// why gplace does not pad to a bound, as TensorFlow's NonMaxSuppressionV4
// does.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cmath>

namespace gplace::frontend::onnx_import {

namespace {

/// The elements of a constant as numbers, ordered as numpy orders them:
/// floating-point ones as doubles (exact for f16, bf16 and f32), NaN after
/// every number and equal to NaN (numpy's unique, equal_nan); integers as
/// int64 (i1 and ui8 zero-extended).
struct Numbers {
  explicit Numbers(DenseElementsAttr value)
      : isFloat(isa<FloatType>(value.getElementType())) {
    if (isFloat) {
      for (APFloat v : value.getValues<APFloat>()) {
        bool lost;
        v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        floats.push_back(v.convertToDouble());
      }
      return;
    }
    Type element = value.getElementType();
    bool unsignedInt = element.isUnsignedInteger() || element.isInteger(1);
    for (const APInt &v : value.getValues<APInt>())
      ints.push_back(unsignedInt ? static_cast<int64_t>(v.getZExtValue())
                                 : v.getSExtValue());
  }

  /// -1, 0 or 1 as element `a` orders before, with or after element `b`.
  int compare(int64_t a, int64_t b) const {
    if (!isFloat)
      return ints[a] < ints[b] ? -1 : ints[a] > ints[b] ? 1 : 0;
    double x = floats[a], y = floats[b];
    if (std::isnan(x) || std::isnan(y))
      return std::isnan(x) - std::isnan(y);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  bool nonZero(int64_t k) const {
    return isFloat ? floats[k] != 0.0 : ints[k] != 0; // NaN is not zero.
  }

  bool isFloat;
  std::vector<double> floats;
  std::vector<int64_t> ints;
};

DenseElementsAttr int64s(Node &n, ArrayRef<int64_t> shape,
                         ArrayRef<int64_t> values) {
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, n.builder().getI64Type()), values);
}

/// Records `values` (one per output, in order) as the node's outputs, known
/// at import time (made ops where they are first used, as Constant's). A
/// static type ONNX's shape inference gave an output (a model declaring
/// the shapes it expects) must be its value's.
bool knownOutputs(Node &n, ArrayRef<DenseElementsAttr> values,
                  SmallVectorImpl<Value> &results, std::string &reason) {
  for (auto [i, value] : llvm::enumerate(values)) {
    if (static_cast<int>(i) >= n.proto.output_size())
      break;
    const std::string &out = n.proto.output(i);
    if (!out.empty() && n.outputTypes[i] &&
        n.outputTypes[i] != value.getType()) {
      reason = "output '" + out + "' is declared with another shape than "
               "its computed value's";
      return false;
    }
  }
  for (auto [i, value] : llvm::enumerate(values)) {
    if (static_cast<int>(i) >= n.proto.output_size())
      break;
    if (!n.proto.output(i).empty())
      n.importer.constants[n.proto.output(i)] = value;
    results.push_back(Value());
  }
  return true;
}

/// Input `i`'s value; else (importNode checks the inputs first) a reason.
std::optional<DenseElementsAttr> knownInput(Node &n, int i,
                                            std::string &reason) {
  std::optional<DenseElementsAttr> value = n.constant(i);
  if (!value)
    reason = "input " + std::to_string(i) + " not known at import time";
  return value;
}

/// NonZero: the indices of X's non-zero elements (NaN included), [rank,
/// count] int64 in row-major order, as numpy's nonzero. A scalar X is
/// refused: ONNX's shape inference gives it a [0, count] output, numpy's
/// nonzero (which ONNX's reference calls) [1, count].
bool mapNonZero(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  std::optional<DenseElementsAttr> x = knownInput(n, 0, reason);
  if (!x)
    return false;
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if (rank == 0) {
    reason = "a scalar input (ONNX's shape inference gives it a [0, N] "
             "output, numpy's nonzero [1, N])";
    return false;
  }
  Numbers numbers(*x);
  SmallVector<int64_t> hits;
  for (int64_t k = 0, e = type.getNumElements(); k < e; ++k)
    if (numbers.nonZero(k))
      hits.push_back(k);
  int64_t count = static_cast<int64_t>(hits.size());
  SmallVector<int64_t> indices(rank * count);
  for (auto [j, flat] : llvm::enumerate(hits))
    for (int64_t d = rank - 1; d >= 0; --d) {
      indices[d * count + j] = flat % type.getDimSize(d);
      flat /= type.getDimSize(d);
    }
  return knownOutputs(n, {int64s(n, {rank, count}, indices)}, results,
                      reason);
}

/// Unique: the distinct elements of X (without `axis`, over X flattened)
/// or its distinct slices along `axis` (negative: from the end), as numpy's
/// unique with return_index, return_inverse and return_counts computes
/// them: sorted ascending (slices lexicographically, as numpy compares the
/// rows of X moved to put `axis` first) with `sorted` 1, else in the order
/// of their first occurrences; indices are the first occurrences, as
/// numpy's stable sort finds them. Y is X's slices at those indices along
/// `axis`, as ONNX's definition says (its reference implementation takes
/// the unsorted Y along axis 0 whatever `axis` is; its tests use axis 0).
bool mapUnique(Node &n, SmallVectorImpl<Value> &results,
               std::string &reason) {
  std::optional<DenseElementsAttr> x = knownInput(n, 0, reason);
  if (!x)
    return false;
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  // X as [outer, length, inner]: the slices along the axis are `length`.
  int64_t outer = 1, length = type.getNumElements(), inner = 1;
  std::optional<int64_t> axis;
  if (const onnx::AttributeProto *a = n.attr("axis")) {
    axis = a->i() < 0 ? a->i() + rank : a->i();
    if (*axis < 0 || *axis >= rank) {
      reason = "axis " + std::to_string(a->i()) + " outside [-rank, rank)";
      return false;
    }
    length = type.getDimSize(*axis);
    for (int64_t d = 0; d < *axis; ++d)
      outer *= type.getDimSize(d);
    for (int64_t d = *axis + 1; d < rank; ++d)
      inner *= type.getDimSize(d);
  }
  Numbers numbers(*x);
  auto at = [&](int64_t o, int64_t slice, int64_t i) {
    return (o * length + slice) * inner + i;
  };
  auto compareSlices = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        if (int c = numbers.compare(at(o, a, i), at(o, b, i)))
          return c;
    return 0;
  };
  SmallVector<int64_t> order(length);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return compareSlices(a, b) < 0;
  });
  // The groups of equal slices, in sorted order: each one's first
  // occurrence and count; each slice's group.
  SmallVector<int64_t> first, counts, group(length);
  for (auto [k, slice] : llvm::enumerate(order)) {
    if (k == 0 || compareSlices(order[k - 1], slice) != 0) {
      first.push_back(slice);
      counts.push_back(0);
    }
    ++counts.back();
    group[slice] = static_cast<int64_t>(first.size()) - 1;
  }
  int64_t unique = static_cast<int64_t>(first.size());
  // Unsorted: the groups in the order of their first occurrences.
  SmallVector<int64_t> position(unique);
  std::iota(position.begin(), position.end(), 0);
  if (n.getInt("sorted", 1) == 0) {
    SmallVector<int64_t> byFirst(position);
    llvm::sort(byFirst,
               [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    SmallVector<int64_t> reordered, recounted;
    for (auto [k, g] : llvm::enumerate(byFirst)) {
      position[g] = static_cast<int64_t>(k);
      reordered.push_back(first[g]);
      recounted.push_back(counts[g]);
    }
    first = std::move(reordered);
    counts = std::move(recounted);
  }
  SmallVector<int64_t> inverse(length);
  for (int64_t slice = 0; slice < length; ++slice)
    inverse[slice] = position[group[slice]];

  SmallVector<Attribute> elements(x->getValues<Attribute>());
  SmallVector<Attribute> y;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t slice : first)
      for (int64_t i = 0; i < inner; ++i)
        y.push_back(elements[at(o, slice, i)]);
  SmallVector<int64_t> yShape{unique};
  if (axis) {
    yShape.assign(type.getShape().begin(), type.getShape().end());
    yShape[*axis] = unique;
  }
  DenseElementsAttr yValue = DenseElementsAttr::get(
      RankedTensorType::get(yShape, type.getElementType()), y);
  return knownOutputs(n,
                      {yValue, int64s(n, {unique}, first),
                       int64s(n, {length}, inverse),
                       int64s(n, {unique}, counts)},
                      results, reason);
}

/// Whether box `a` suppresses box `b` (rows of 4 of `boxes`): their
/// intersection over union is above `threshold`, computed in f32 as ONNX's
/// reference (op_non_max_suppression.py's suppress_by_iou, ONNX Runtime's
/// SuppressByIOU) computes it. `centerPointBox`: [x_center, y_center,
/// width, height], else corners [y1, x1, y2, x2] in either order.
bool suppressByIou(const float *a, const float *b, bool centerPointBox,
                   float threshold) {
  auto ordered = [](float p, float q) {
    return p >= q ? std::pair<float, float>(q, p) : std::pair(p, q);
  };
  std::pair<float, float> xa, xb, ya, yb; // (min, max)
  if (!centerPointBox) {
    xa = ordered(a[1], a[3]), xb = ordered(b[1], b[3]);
    ya = ordered(a[0], a[2]), yb = ordered(b[0], b[2]);
  } else {
    float aw = a[2] / 2, ah = a[3] / 2, bw = b[2] / 2, bh = b[3] / 2;
    xa = {a[0] - aw, a[0] + aw}, xb = {b[0] - bw, b[0] + bw};
    ya = {a[1] - ah, a[1] + ah}, yb = {b[1] - bh, b[1] + bh};
  }
  float xMin = std::max(xa.first, xb.first);
  float xMax = std::min(xa.second, xb.second);
  if (xMax <= xMin)
    return false;
  float yMin = std::max(ya.first, yb.first);
  float yMax = std::min(ya.second, yb.second);
  if (yMax <= yMin)
    return false;
  float intersection = (xMax - xMin) * (yMax - yMin);
  if (intersection <= 0)
    return false;
  float areaA = (xa.second - xa.first) * (ya.second - ya.first);
  float areaB = (xb.second - xb.first) * (yb.second - yb.first);
  float unionArea = areaA + areaB - intersection;
  if (areaA <= 0 || areaB <= 0 || unionArea <= 0)
    return false;
  return intersection / unionArea > threshold;
}

/// The first element of optional input `i` (a scalar or [1]), if given.
template <typename T>
std::optional<T> firstOf(Node &n, int i) {
  std::optional<DenseElementsAttr> value = n.constant(i);
  if (!value || value->getNumElements() == 0)
    return std::nullopt;
  return *value->getValues<T>().begin();
}

/// NonMaxSuppression (opset 10, 11): boxes [B, N, 4], scores [B, C, N]
/// (f32); per batch and class, the boxes scoring above score_threshold
/// (every box without it), taken by descending score (equal scores: the
/// lower index first) while fewer than max_output_boxes_per_class (absent:
/// 0, no output) are kept, each kept unless its IoU with one kept before
/// is above iou_threshold (absent: 0). The output is [selected, 3] int64
/// (batch, class, box), batch by batch, class by class, as ONNX's
/// reference orders them.
bool mapNonMaxSuppression(Node &n, SmallVectorImpl<Value> &results,
                          std::string &reason) {
  std::optional<DenseElementsAttr> boxes = knownInput(n, 0, reason);
  std::optional<DenseElementsAttr> scores = knownInput(n, 1, reason);
  if (!boxes || !scores)
    return false;
  for (int i = 2; i < 5; ++i)
    if (n.hasInput(i) && !knownInput(n, i, reason))
      return false;
  auto boxesType = cast<RankedTensorType>(boxes->getType());
  auto scoresType = cast<RankedTensorType>(scores->getType());
  if (!boxesType.getElementType().isF32() ||
      !scoresType.getElementType().isF32() || boxesType.getRank() != 3 ||
      scoresType.getRank() != 3 || boxesType.getDimSize(2) != 4 ||
      boxesType.getDimSize(0) != scoresType.getDimSize(0) ||
      boxesType.getDimSize(1) != scoresType.getDimSize(2)) {
    reason = "boxes and scores that are not f32 [B, N, 4] and [B, C, N]";
    return false;
  }
  int64_t centerPointBox = n.getInt("center_point_box", 0);
  if (centerPointBox != 0 && centerPointBox != 1) {
    reason = "center_point_box " + std::to_string(centerPointBox) +
             " (0 or 1)";
    return false;
  }
  int64_t maxPerClass =
      std::max<int64_t>(firstOf<int64_t>(n, 2).value_or(0), 0);
  float iouThreshold = firstOf<float>(n, 3).value_or(0.0f);
  std::optional<float> scoreThreshold = firstOf<float>(n, 4);

  int64_t batches = boxesType.getDimSize(0), count = boxesType.getDimSize(1),
          classes = scoresType.getDimSize(1);
  SmallVector<float> boxData(boxes->getValues<float>());
  SmallVector<float> scoreData(scores->getValues<float>());
  SmallVector<int64_t> selected;
  for (int64_t batch = 0; batch < batches; ++batch) {
    const float *batchBoxes = boxData.data() + batch * count * 4;
    for (int64_t cls = 0; cls < classes; ++cls) {
      const float *classScores =
          scoreData.data() + (batch * classes + cls) * count;
      SmallVector<int64_t> candidates;
      for (int64_t box = 0; box < count; ++box)
        if (!scoreThreshold || classScores[box] > *scoreThreshold)
          candidates.push_back(box);
      // By descending score, the lower index first among equal scores (a
      // NaN score last).
      llvm::stable_sort(candidates, [&](int64_t a, int64_t b) {
        float sa = classScores[a], sb = classScores[b];
        return !std::isnan(sa) && (std::isnan(sb) || sa > sb);
      });
      SmallVector<int64_t> kept;
      for (int64_t box : candidates) {
        if (static_cast<int64_t>(kept.size()) >= maxPerClass)
          break;
        if (llvm::any_of(kept, [&](int64_t other) {
              return suppressByIou(batchBoxes + box * 4,
                                   batchBoxes + other * 4, centerPointBox,
                                   iouThreshold);
            }))
          continue;
        kept.push_back(box);
        selected.append({batch, cls, box});
      }
    }
  }
  int64_t rows = static_cast<int64_t>(selected.size()) / 3;
  return knownOutputs(n, {int64s(n, {rows, 3}, selected)}, results, reason);
}

} // namespace

ArrayRef<int> dataDependentInputs(llvm::StringRef opType) {
  static const int first[] = {0}, all[] = {0, 1, 2, 3, 4};
  if (opType == "NonZero" || opType == "Unique")
    return first;
  if (opType == "NonMaxSuppression")
    return all;
  return {};
}

std::string dataDependentNote(llvm::StringRef opType,
                              llvm::StringRef nodeName) {
  if (dataDependentInputs(opType).empty())
    return "";
  return (": these values decide the shape of node '" + nodeName + "''s (" +
          opType + ") output, and gplace fixes every shape at import time, "
          "before memory is planned; give the graph inputs they are "
          "computed from at import time (gplace-run gives its small "
          "--input values). gplace does not pad the output to a bound, as "
          "TensorFlow's NonMaxSuppressionV4 does: the ONNX ops after it "
          "would see another shape (docs/onnx.md)")
      .str();
}

void addDataDependentMappers(llvm::StringMap<MapFn> &table) {
  table["NonMaxSuppression"] = mapNonMaxSuppression;
  table["NonZero"] = mapNonZero;
  table["Unique"] = mapUnique;
}

} // namespace gplace::frontend::onnx_import
