//===- MapSelection.cpp - OneHot, TopK, Compress ---------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. Op types whose
// attribute-like input (OneHot's depth, TopK's k, Compress's condition)
// is known at import time (importTimeInputs):
// - OneHot: `one_hot` (TensorFlow's OneHot) of the indices cast to int64,
//   negative ones wrapped by `select`, the new dimension moved to `axis`
//   by `transpose`;
// - TopK: TensorFlow's TopKV2 semantics (sorted, ties to the lower index)
//   without a sort kernel: each element's rank is the number of elements
//   that come before it (`greater`, `equal`, a constant mask of the lower
//   indices, `reduce_sum`), and output j takes the element of rank j
//   (`equal`, `select`, `reduce_sum`): O(n^2) work along the axis,
//   refused above kMaxTopKComparisons;
// - Compress: a `gather` at the constant indices where the condition
//   holds.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cmath>

namespace gplace::frontend::onnx_import {

std::optional<int64_t> scalarInt(DenseElementsAttr v) {
  if (v.getNumElements() != 1)
    return std::nullopt;
  Type element = v.getElementType();
  if (isa<FloatType>(element)) {
    double d = (*v.getValues<APFloat>().begin()).convertToDouble();
    if (!std::isfinite(d) || std::fabs(d) > 9.0e15)
      return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (element.isInteger(1))
    return std::nullopt;
  return (*v.getValues<APInt>().begin()).getSExtValue();
}

namespace {

/// TopK's comparisons (rows x n x n) above which it is refused: its
/// intermediate tensors hold that many elements.
constexpr int64_t kMaxTopKComparisons = int64_t(1) << 24;

/// The permutation that moves the last of `rank` dimensions to `axis`.
SmallVector<int64_t> lastTo(int64_t axis, int64_t rank) {
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d == axis)
      perm.push_back(rank - 1);
    perm.push_back(d);
  }
  if (axis == rank - 1)
    perm.push_back(rank - 1);
  return perm;
}

/// OneHot: values = [off, on]; indices in [-depth, depth) (negative ones
/// count from the end, as numpy's mod), others give a row of `off`.
bool mapOneHot(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType indices = n.inputType(0), values = n.inputType(2);
  std::optional<DenseElementsAttr> depthValue = n.constant(1);
  if (!indices || !values || !depthValue) {
    reason = "depth computed at run time";
    return false;
  }
  std::optional<int64_t> depth = scalarInt(*depthValue);
  if (!depth || *depth < 1) {
    reason = "a depth that is not a positive integer";
    return false;
  }
  if (values.getRank() != 1 || values.getDimSize(0) != 2) {
    reason = "values that are not [off_value, on_value]";
    return false;
  }
  int64_t rank = indices.getRank() + 1;
  int64_t axis = n.getInt("axis", -1);
  if (!normalizeAxis(axis, rank, reason))
    return false;
  Builder &b = n.builder();
  Type element = values.getElementType();
  auto scalarType = RankedTensorType::get({}, element);
  auto part = [&](int64_t at, llvm::StringRef what) {
    Value s = n.op<SliceOp>(RankedTensorType::get({1}, element), n.input(2),
                            {n.named("begin", b.getDenseI64ArrayAttr({at})),
                             n.named("size", b.getDenseI64ArrayAttr({1}))},
                            what);
    return n.op<ReshapeOp>(scalarType, s, {}, (what + "_scalar").str());
  };
  Value off = part(0, "off"), on = part(1, "on");
  Value index = toI64(n, n.input(0), "indices_i64");
  auto i64 = RankedTensorType::get(indices.getShape(), b.getI64Type());
  Value zero = n.scalar(b.getI64Type(), 0, "zero");
  Value negative = n.op<GreaterOp>(
      RankedTensorType::get(indices.getShape(), b.getI1Type()), {zero, index},
      {}, "negative");
  Value wrapped = n.op<AddOp>(
      i64, {index, n.scalar(b.getI64Type(), *depth, "depth")}, {}, "wrapped");
  index = n.op<SelectOp>(i64, {negative, wrapped, index}, {}, "indices");
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(*depth);
  auto hotType = RankedTensorType::get(shape, element);
  if (axis == rank - 1) {
    results.push_back(n.op<OneHotOp>(hotType, {index, on, off}));
    return true;
  }
  Value hot = n.op<OneHotOp>(hotType, {index, on, off}, {}, "last");
  results.push_back(n.transpose(hot, lastTo(axis, rank)));
  return true;
}

/// TopK: the k largest (or smallest) elements along `axis`, sorted, and
/// their indices; equal elements in the order of their indices.
bool mapTopK(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (!type || type.getRank() == 0) {
    reason = "a rank-0 input";
    return false;
  }
  std::optional<int64_t> k;
  if (n.opset < 10) {
    if (n.attr("k"))
      k = n.getInt("k", 0);
  } else if (std::optional<DenseElementsAttr> c = n.constant(1)) {
    k = scalarInt(*c);
  }
  if (!k) {
    reason = "k computed at run time";
    return false;
  }
  int64_t rank = type.getRank();
  int64_t axis = n.getInt("axis", -1);
  if (!normalizeAxis(axis, rank, reason))
    return false;
  int64_t size = type.getDimSize(axis);
  if (*k < 0 || *k > size) {
    reason = "k = " + std::to_string(*k) + " outside [0, " +
             std::to_string(size) + "]";
    return false;
  }
  if (*k == 0 || size == 0) {
    reason = "an empty result (k = 0)";
    return false;
  }
  int64_t rows = type.getNumElements() / size;
  if (rows * size > kMaxTopKComparisons / size) {
    reason = "TopK over " + std::to_string(rows) + " rows of " +
             std::to_string(size) +
             " elements: its comparisons would hold more than 2^24 elements";
    return false;
  }
  bool largest = n.getInt("largest", 1) != 0;
  Builder &b = n.builder();
  Type element = type.getElementType();
  auto i1 = b.getI1Type();
  auto i64 = b.getI64Type();

  // The axis last, as rows: x [rows, n].
  SmallVector<int64_t> perm = axisLastPermutation(rank, axis);
  Value x = n.input(0);
  if (axis != rank - 1)
    x = n.transpose(x, perm, "last");
  Value xi = n.reshape(x, {rows, size, 1}, "x_i");
  Value xj = n.reshape(x, {rows, 1, size}, "x_j");
  auto cube = RankedTensorType::get({rows, size, size}, i1);
  // Element j comes before element i: larger (smaller), or equal at a
  // lower index.
  Value before = largest ? n.op<GreaterOp>(cube, {xj, xi}, {}, "beats")
                         : n.op<GreaterOp>(cube, {xi, xj}, {}, "beats");
  SmallVector<bool> lower(size * size);
  for (int64_t i = 0; i < size; ++i)
    for (int64_t j = 0; j < size; ++j)
      lower[i * size + j] = j < i;
  Value lowerMask = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({size, size}, i1),
                             ArrayRef<bool>(lower)),
      "lower_index");
  Value equal = n.op<EqualOp>(cube, {xj, xi}, {}, "equal");
  Value tie = n.op<LogicalAndOp>(cube, {equal, lowerMask}, {}, "tie");
  before = n.op<LogicalOrOp>(cube, {before, tie}, {}, "before");
  auto cubeI64 = RankedTensorType::get({rows, size, size}, i64);
  Value counted =
      n.op<SelectOp>(cubeI64,
                     {before, n.scalar(i64, 1, "one"), n.scalar(i64, 0, "zero")},
                     {}, "counted");
  Value rankOf = n.op<ReduceSumOp>(
      RankedTensorType::get({rows, size}, i64), counted,
      {n.named("axes", b.getDenseI64ArrayAttr({2}))}, "rank");
  // chosen[r, i, j]: element i is output j.
  SmallVector<int64_t> iota(*k);
  for (int64_t j = 0; j < *k; ++j)
    iota[j] = j;
  Value positions = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({*k}, i64),
                             ArrayRef<int64_t>(iota)),
      "positions");
  Value chosen = n.op<EqualOp>(
      RankedTensorType::get({rows, size, *k}, i1),
      {n.reshape(rankOf, {rows, size, 1}, "rank_column"), positions}, {},
      "chosen");
  SmallVector<int64_t> indexValues(size);
  for (int64_t i = 0; i < size; ++i)
    indexValues[i] = i;
  Value indexColumn = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({size, 1}, i64),
                             ArrayRef<int64_t>(indexValues)),
      "index_column");
  Value valueSums = n.op<SelectOp>(
      RankedTensorType::get({rows, size, *k}, element),
      {chosen, xi, n.scalar(element, 0, "value_zero")}, {}, "value_terms");
  Value indexSums = n.op<SelectOp>(
      RankedTensorType::get({rows, size, *k}, i64),
      {chosen, indexColumn, n.scalar(i64, 0, "index_zero")}, {}, "index_terms");
  auto axes = n.named("axes", b.getDenseI64ArrayAttr({1}));
  // Rows that are the outputs' layout already (rank 2, the last axis) are
  // the outputs: the values take the node's name.
  bool asRows = rank == 2 && axis == 1;
  Value values = n.op<ReduceSumOp>(RankedTensorType::get({rows, *k}, element),
                                   valueSums, {axes},
                                   asRows ? "" : "value_rows");
  Value indices = n.op<ReduceSumOp>(RankedTensorType::get({rows, *k}, i64),
                                    indexSums, {axes},
                                    asRows ? "indices" : "index_rows");
  // Back to the input's layout, the axis of size k.
  SmallVector<int64_t> movedShape;
  for (int64_t d : perm)
    movedShape.push_back(d == axis ? *k : type.getDimSize(d));
  SmallVector<int64_t> inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  auto finish = [&](Value v, llvm::StringRef what) {
    if (axis == rank - 1)
      return n.reshape(v, movedShape, what);
    Value moved = n.reshape(
        v, movedShape, what.empty() ? "values_moved" : (what + "_moved").str());
    return n.transpose(moved, inverse, what);
  };
  results.push_back(asRows ? values : finish(values, ""));
  results.push_back(asRows ? indices : finish(indices, "indices"));
  return true;
}

/// Compress: the slices along `axis` (of the input flattened, without
/// one) where the condition holds.
bool mapCompress(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  RankedTensorType type = n.inputType(0);
  std::optional<DenseElementsAttr> condition = n.constant(1);
  if (!type || !condition) {
    reason = "condition computed at run time";
    return false;
  }
  if (!condition->getElementType().isInteger(1) ||
      cast<ShapedType>(condition->getType()).getRank() != 1) {
    reason = "a condition that is not a 1-D bool tensor";
    return false;
  }
  Value x = n.input(0);
  int64_t axis = 0;
  if (n.attr("axis")) {
    axis = n.getInt("axis", 0);
    if (!normalizeAxis(axis, type.getRank(), reason))
      return false;
  } else {
    x = n.reshape(x, {type.getNumElements()}, "flat");
  }
  int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(axis);
  SmallVector<int64_t> kept;
  int64_t i = 0;
  for (bool c : condition->getValues<bool>()) {
    if (i >= size && c) {
      reason = "a condition longer than the axis that holds past its end";
      return false;
    }
    if (c)
      kept.push_back(i);
    ++i;
  }
  if (kept.empty()) {
    reason = "a condition that holds nowhere (an empty result)";
    return false;
  }
  Builder &b = n.builder();
  Value indices = n.constant(
      DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(kept.size())},
                                b.getI64Type()),
          ArrayRef<int64_t>(kept)),
      "indices");
  results.push_back(n.op<GatherOp>(
      n.outputTypes[0], {x, indices},
      {n.named("axis", b.getI64IntegerAttr(axis))}));
  return true;
}

} // namespace

void addSelectionMappers(llvm::StringMap<MapFn> &table) {
  table["Compress"] = mapCompress;
  table["OneHot"] = mapOneHot;
  table["TopK"] = widenIntegers<mapTopK>;
}

} // namespace gplace::frontend::onnx_import
