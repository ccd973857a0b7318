//===- MapIndexing.cpp - indices computed at run time, masks, prefix sums --===//
//
// Part of the ONNX importer: see OnnxImporter.h. The op types here are
// compositions of graph ops that have kernels, with their indices (and
// Trilu's k, CumSum's axis) read at run time; the shapes are static, so
// the index arithmetic's constant parts are computed at import time:
// - GatherElements, GatherND, ReverseSequence: the data flattened (to one
//   dimension, or to rows), the flat index of each element computed with
//   int64 `mul`, `add` and `select` (negative indices wrapped), one
//   `gather` (whose gradient, unsorted_segment_sum, makes them trainable
//   with respect to the data);
// - ScatterElements, ScatterND: the same flat indices, the updates summed
//   into their places by `unsorted_segment_sum` and a mask of the places
//   written chosen by `select` (reduction `none` and `add`); `mul` as the
//   product of the data and a factor per update and place (the update
//   where it is sent, else 1) along the updates;
// - Trilu: `select` with the mask `j - i >= k` (a constant where k is);
// - CumSum: `matmul` by a constant triangular matrix of ones along the
//   axis moved last (exclusive and reverse choose the triangle); an axis
//   given at run time selects among the products along every axis.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

Value toI64(Node &n, Value v, llvm::StringRef suffix) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType().isInteger(64))
    return v;
  return n.op<CastOp>(
      RankedTensorType::get(type.getShape(), n.builder().getI64Type()), v, {},
      suffix);
}

Value i64Constant(Node &n, ArrayRef<int64_t> shape, ArrayRef<int64_t> values,
                  llvm::StringRef suffix) {
  auto type = RankedTensorType::get(shape, n.builder().getI64Type());
  return n.constant(DenseElementsAttr::get(type, values), suffix);
}

SmallVector<int64_t> axisLastPermutation(int64_t rank, int64_t axis) {
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  return perm;
}

namespace {

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t p = 1;
  for (int64_t d : shape)
    p *= d;
  return p;
}

/// `index` (int64) with negative values wrapped by `size` (a value that
/// broadcasts against it): select(0 > index, index + size, index).
Value wrapNegative(Node &n, Value index, Value size, llvm::StringRef what) {
  auto type = cast<RankedTensorType>(index.getType());
  auto mask = RankedTensorType::get(type.getShape(), n.builder().getI1Type());
  Value zero = n.scalar(type, 0, (what + "_zero").str());
  Value negative =
      n.op<GreaterOp>(mask, {zero, index}, {}, (what + "_negative").str());
  Value wrapped =
      n.op<AddOp>(type, {index, size}, {}, (what + "_wrapped").str());
  return n.op<SelectOp>(type, {negative, wrapped, index}, {}, what);
}

/// The flat index into `data` of each element of ONNX's GatherElements and
/// ScatterElements: `indices` (int64, negative wrapped) times the stride
/// of `axis`, plus the constant offset of the element's other coordinates.
Value elementsFlatIndex(Node &n, RankedTensorType data, Value indices,
                        int64_t axis) {
  auto type = cast<RankedTensorType>(indices.getType());
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> strides = stridesOf(data.getShape());
  Value index = wrapNegative(
      n, toI64(n, indices, "indices_i64"),
      n.scalar(n.builder().getI64Type(), data.getDimSize(axis), "axis_size"),
      "indices");
  int64_t count = product(shape);
  SmallVector<int64_t> offsets(count, 0);
  SmallVector<int64_t> coordinate(shape.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (static_cast<int64_t>(d) != axis)
        offset += coordinate[d] * strides[d];
    offsets[i] = offset;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++coordinate[d] < shape[d])
        break;
      coordinate[d] = 0;
    }
  }
  auto i64 = RankedTensorType::get(shape, n.builder().getI64Type());
  Value scaled = n.op<MulOp>(
      i64, {index, n.scalar(i64, strides[axis], "axis_stride")}, {},
      "scaled");
  return n.op<AddOp>(i64, {scaled, i64Constant(n, shape, offsets, "offsets")},
                     {}, "flat_indices");
}

/// The data and indices of an Elements op, checked: the same rank, each
/// dimension but `axis` of the indices within the data's.
bool elementsOperands(Node &n, int64_t &axis, std::string &reason) {
  RankedTensorType data = n.inputType(0), indices = n.inputType(1);
  if (!data || !indices || data.getRank() == 0 ||
      indices.getRank() != data.getRank()) {
    reason = "indices of another rank than the data";
    return false;
  }
  axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, data.getRank(), reason))
    return false;
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > data.getDimSize(d)) {
      reason = "indices larger than the data along a dimension but the axis";
      return false;
    }
  return true;
}

/// GatherElements: gather(reshape(data, [N]), flat index).
bool mapGatherElements(Node &n, SmallVectorImpl<Value> &results,
                       std::string &reason) {
  int64_t axis;
  if (!elementsOperands(n, axis, reason))
    return false;
  RankedTensorType data = n.inputType(0);
  Value flat = elementsFlatIndex(n, data, n.input(1), axis);
  Value rows = n.reshape(n.input(0), {data.getNumElements()}, "flat");
  results.push_back(
      n.op<GatherOp>(n.outputTypes[0], {rows, flat},
                     {n.named("axis", n.builder().getI64IntegerAttr(0))}));
  return true;
}

/// ScatterElements' and ScatterND's reduction.
enum class Reduction { None, Add, Mul };

/// The product of `data` ([P, rest...]) and, at each row, the updates
/// ([M, rest...]) that `rows` ([M], int64 in [0, P)) send there: a factor
/// per update and row, select(rows[m] == p, updates[m], 1) ([M, P,
/// rest...], the hits by `equal` with a constant iota), multiplied along M
/// (productAlong: a tree of `mul`s, log2(M) deep) and into the data.
/// Updates sent to one row multiply; ONNX's reference multiplies them in
/// order, which for floats may round the last bit otherwise than the tree
/// (integers wrap the same either way).
Value scatterProduct(Node &n, Value data, Value updates, Value rows) {
  auto dataType = cast<RankedTensorType>(data.getType());
  auto updatesType = cast<RankedTensorType>(updates.getType());
  int64_t m = updatesType.getDimSize(0), p = dataType.getDimSize(0);
  int64_t rank = dataType.getRank();
  Type element = dataType.getElementType();
  Builder &b = n.builder();
  SmallVector<int64_t> iota(p);
  std::iota(iota.begin(), iota.end(), 0);
  SmallVector<int64_t> hitShape = {m, p};
  hitShape.append(rank - 1, 1);
  Value hits = n.op<EqualOp>(
      RankedTensorType::get({m, p}, b.getI1Type()),
      {n.reshape(rows, {m, 1}, "rows_column"),
       n.constant(DenseElementsAttr::get(
                      RankedTensorType::get({1, p}, b.getI64Type()),
                      ArrayRef<int64_t>(iota)),
                  "places")},
      {}, "hits");
  hits = n.reshape(hits, hitShape, "hits_broadcast");
  SmallVector<int64_t> spread(updatesType.getShape());
  spread.insert(spread.begin() + 1, 1);
  SmallVector<int64_t> factorShape(spread);
  factorShape[1] = p;
  Value factors = n.op<SelectOp>(
      RankedTensorType::get(factorShape, element),
      {hits, n.reshape(updates, spread, "updates_spread"),
       n.scalar(element, 1, "one")},
      {}, "factors");
  Value product = n.reshape(productAlong(n, factors, 0),
                            dataType.getShape(), "products");
  return n.op<MulOp>(dataType, {data, product}, {}, "multiplied");
}

/// Sums `updates` ([M, rest...]) into `data` ([P, rest...]) at `rows` ([M],
/// int64 in [0, P)): with reduction `none` the places written take the sum
/// of what is written there, with `add` the data plus it; with `mul` the
/// data times the updates there (scatterProduct).
Value scatterRows(Node &n, Value data, Value updates, Value rows,
                  Reduction reduction) {
  if (reduction == Reduction::Mul)
    return scatterProduct(n, data, updates, rows);
  auto dataType = cast<RankedTensorType>(data.getType());
  auto updatesType = cast<RankedTensorType>(updates.getType());
  Value sums = n.op<UnsortedSegmentSumOp>(dataType, {updates, rows}, {},
                                          "sums");
  if (reduction == Reduction::Add)
    return n.op<AddOp>(dataType, {data, sums}, {}, "added");
  int64_t m = updatesType.getDimSize(0), p = dataType.getDimSize(0);
  Type element = dataType.getElementType();
  Builder &b = n.builder();
  auto onesType = RankedTensorType::get({m}, element);
  Attribute one = isa<FloatType>(element) ? Attribute(b.getFloatAttr(element, 1))
                                          : Attribute(b.getIntegerAttr(element, 1));
  Value ones = n.constant(DenseElementsAttr::get(onesType, one), "ones");
  auto countType = RankedTensorType::get({p}, element);
  Value counts =
      n.op<UnsortedSegmentSumOp>(countType, {ones, rows}, {}, "counts");
  Value written = n.op<GreaterOp>(
      RankedTensorType::get({p}, b.getI1Type()),
      {counts, n.scalar(countType, 0, "zero_count")}, {}, "written");
  SmallVector<int64_t> maskShape(dataType.getRank(), 1);
  maskShape[0] = p;
  written = n.reshape(written, maskShape, "written_rows");
  return n.op<SelectOp>(dataType, {written, sums, data}, {}, "selected");
}

bool scatterReduction(Node &n, Reduction &reduction, std::string &reason) {
  std::string name = n.getString("reduction", "none");
  if (name == "none")
    reduction = Reduction::None;
  else if (name == "add")
    reduction = Reduction::Add;
  else if (name == "mul")
    reduction = Reduction::Mul;
  else {
    reason = "reduction '" + name + "'";
    return false;
  }
  return true;
}

/// ScatterElements: the updates summed into the flattened data at the flat
/// indices (scatterRows).
bool mapScatterElements(Node &n, SmallVectorImpl<Value> &results,
                        std::string &reason) {
  int64_t axis;
  Reduction reduction;
  if (!elementsOperands(n, axis, reason) ||
      !scatterReduction(n, reduction, reason))
    return false;
  RankedTensorType data = n.inputType(0), updates = n.inputType(2);
  if (!updates || updates.getShape() != n.inputType(1).getShape()) {
    reason = "updates of another shape than the indices";
    return false;
  }
  Value flat = elementsFlatIndex(n, data, n.input(1), axis);
  int64_t m = updates.getNumElements();
  Value rows = n.reshape(flat, {m}, "flat_rows");
  Value y =
      scatterRows(n, n.reshape(n.input(0), {data.getNumElements()}, "flat"),
                  n.reshape(n.input(2), {m}, "flat_updates"), rows, reduction);
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], y));
  return true;
}

/// The row of data reshaped to [prod(shape[:batch + k]), rest...] that each
/// index tuple of GatherND and ScatterND (`indices`, [..., k]) names:
/// the sum of its (wrapped) coordinates times their strides, plus the
/// constant offset of its batch. Shape: the indices' without the last.
Value tupleRows(Node &n, RankedTensorType data, Value indices, int64_t batch,
                std::string &reason) {
  auto type = cast<RankedTensorType>(indices.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t k = shape.back();
  ArrayRef<int64_t> indexed = data.getShape().slice(batch, k);
  SmallVector<int64_t> strides = stridesOf(indexed);
  int64_t block = product(indexed);
  auto i64 = RankedTensorType::get(shape, n.builder().getI64Type());
  Value index = wrapNegative(
      n, toI64(n, indices, "indices_i64"),
      i64Constant(n, {k}, SmallVector<int64_t>(indexed), "sizes"), "indices");
  Value scaled = n.op<MulOp>(i64, {index, i64Constant(n, {k}, strides, "strides")},
                             {}, "scaled");
  SmallVector<int64_t> rowShape(shape.drop_back());
  auto rowType = RankedTensorType::get(rowShape, n.builder().getI64Type());
  Value rows = n.op<ReduceSumOp>(
      rowType, scaled,
      {n.named("axes", n.builder().getDenseI64ArrayAttr(
                           {static_cast<int64_t>(shape.size()) - 1}))},
      "rows_in_batch");
  if (batch == 0)
    return rows;
  // The batch coordinates are the first `batch` of each row's.
  int64_t count = product(rowShape);
  int64_t perBatch = product(ArrayRef<int64_t>(rowShape).drop_front(batch));
  SmallVector<int64_t> offsets(count);
  for (int64_t i = 0; i < count; ++i)
    offsets[i] = (i / perBatch) * block;
  return n.op<AddOp>(rowType, {rows, i64Constant(n, rowShape, offsets,
                                                 "batch_offsets")},
                     {}, "rows");
}

/// The operands of GatherND and ScatterND, checked: indices [..., k] whose
/// first `batch` dimensions are the data's, batch + k at most the data's
/// rank.
bool ndOperands(Node &n, int64_t batch, std::string &reason) {
  RankedTensorType data = n.inputType(0), indices = n.inputType(1);
  if (!data || !indices || indices.getRank() < 1) {
    reason = "omitted or rank-0 indices";
    return false;
  }
  int64_t k = indices.getShape().back();
  if (batch < 0 || k < 1 || batch + k > data.getRank() ||
      indices.getRank() <= batch ||
      indices.getShape().take_front(batch) !=
          data.getShape().take_front(batch)) {
    reason = "indices whose batch dimensions or last dimension do not fit "
             "the data";
    return false;
  }
  return true;
}

/// GatherND: the rows the index tuples name, gathered from the data
/// reshaped to [prod(shape[:batch + k]), rest...].
bool mapGatherND(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  int64_t batch = n.getInt("batch_dims", 0);
  if (!ndOperands(n, batch, reason))
    return false;
  RankedTensorType data = n.inputType(0);
  int64_t k = n.inputType(1).getShape().back();
  SmallVector<int64_t> flatShape = {product(data.getShape().take_front(batch + k))};
  llvm::append_range(flatShape, data.getShape().drop_front(batch + k));
  Value rows = tupleRows(n, data, n.input(1), batch, reason);
  Value table = n.reshape(n.input(0), flatShape, "rows");
  results.push_back(
      n.op<GatherOp>(n.outputTypes[0], {table, rows},
                     {n.named("axis", n.builder().getI64IntegerAttr(0))}));
  return true;
}

/// ScatterND: the updates summed into the rows the index tuples name
/// (scatterRows).
bool mapScatterND(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  Reduction reduction;
  if (!ndOperands(n, 0, reason) || !scatterReduction(n, reduction, reason))
    return false;
  RankedTensorType data = n.inputType(0), indices = n.inputType(1),
                    updates = n.inputType(2);
  int64_t k = indices.getShape().back();
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(k));
  if (!updates || updates.getShape() != ArrayRef<int64_t>(expected)) {
    reason = "updates of another shape than indices.shape[:-1] + "
             "data.shape[k:]";
    return false;
  }
  SmallVector<int64_t> flatShape = {product(data.getShape().take_front(k))};
  llvm::append_range(flatShape, data.getShape().drop_front(k));
  int64_t m = product(indices.getShape().drop_back());
  SmallVector<int64_t> updateShape = {m};
  llvm::append_range(updateShape, data.getShape().drop_front(k));
  Value rows = n.reshape(tupleRows(n, data, n.input(1), 0, reason), {m},
                         "flat_rows");
  Value y = scatterRows(n, n.reshape(n.input(0), flatShape, "flat"),
                        n.reshape(n.input(2), updateShape, "flat_updates"),
                        rows, reduction);
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], y));
  return true;
}

/// ReverseSequence: the data as [batch, time, rest] rows; each (b, t) with
/// t < lens[b] reads row b * T + lens[b] - 1 - t, the others their own.
bool mapReverseSequence(Node &n, SmallVectorImpl<Value> &results,
                        std::string &reason) {
  RankedTensorType type = n.inputType(0), lensType = n.inputType(1);
  int64_t batchAxis = n.getInt("batch_axis", 1),
          timeAxis = n.getInt("time_axis", 0);
  if (!type || type.getRank() < 2 || !lensType || lensType.getRank() != 1) {
    reason = "an input of rank below 2 or sequence_lens not a vector";
    return false;
  }
  if (!((batchAxis == 0 && timeAxis == 1) ||
        (batchAxis == 1 && timeAxis == 0))) {
    reason = "batch_axis and time_axis other than 0 and 1";
    return false;
  }
  Value x = n.input(0);
  int64_t rank = type.getRank();
  if (timeAxis == 0) {
    SmallVector<int64_t> perm = {1, 0};
    for (int64_t d = 2; d < rank; ++d)
      perm.push_back(d);
    x = n.transpose(x, perm, "batch_major");
  }
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t batch = xType.getDimSize(0), time = xType.getDimSize(1);
  if (lensType.getDimSize(0) != batch) {
    reason = "sequence_lens of another length than the batch";
    return false;
  }
  Builder &b = n.builder();
  auto bt = RankedTensorType::get({batch, time}, b.getI64Type());
  // ONNX Runtime refuses a length outside [0, time]; one past it would read
  // another row's steps.
  Value lens64 = toI64(n, n.input(1), "lens_i64");
  Value checked = n.checkRange(lens64, 0, time, "sequence_lens");
  Value lens = n.reshape(checked, {batch, 1}, "lens");
  SmallVector<int64_t> iota(time);
  for (int64_t t = 0; t < time; ++t)
    iota[t] = t;
  Value t = i64Constant(n, {1, time}, iota, "times");
  Value last = n.op<SubOp>(
      RankedTensorType::get({batch, 1}, b.getI64Type()),
      {lens, n.scalar(b.getI64Type(), 1, "one")}, {}, "last");
  Value reversed = n.op<SubOp>(bt, {last, t}, {}, "reversed");
  Value inside = n.op<GreaterOp>(RankedTensorType::get({batch, time}, b.getI1Type()),
                                 {lens, t}, {}, "inside");
  Value source = n.op<SelectOp>(bt, {inside, reversed, t}, {}, "source_time");
  SmallVector<int64_t> offsets(batch);
  for (int64_t i = 0; i < batch; ++i)
    offsets[i] = i * time;
  Value rows = n.op<AddOp>(
      bt, {source, i64Constant(n, {batch, 1}, offsets, "batch_offsets")}, {},
      "rows");
  SmallVector<int64_t> flatShape = {batch * time};
  llvm::append_range(flatShape, xType.getShape().drop_front(2));
  Value table = n.reshape(x, flatShape, "flat");
  Value flatRows = n.reshape(rows, {batch * time}, "flat_rows");
  Value gathered = n.op<GatherOp>(
      RankedTensorType::get(flatShape, xType.getElementType()),
      {table, flatRows}, {n.named("axis", b.getI64IntegerAttr(0))},
      "gather");
  Value y = n.reshape(gathered, xType.getShape(), timeAxis == 0 ? "reshape" : "");
  if (timeAxis == 0) {
    SmallVector<int64_t> perm = {1, 0};
    for (int64_t d = 2; d < rank; ++d)
      perm.push_back(d);
    y = n.transpose(y, perm);
  } else if (y == gathered) {
    y = n.op<IdentityOp>(n.outputTypes[0], y);
  }
  results.push_back(y);
  return true;
}

/// Trilu: select(mask, x, 0) with the mask `j - i >= k` (upper) or
/// `j - i <= k` (lower) over the last two dimensions; a constant where k
/// is known at import time.
bool mapTrilu(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (!type || type.getRank() < 2) {
    reason = "an input of rank below 2";
    return false;
  }
  bool upper = n.getInt("upper", 1) != 0;
  int64_t rows = type.getDimSize(type.getRank() - 2),
          columns = type.getDimSize(type.getRank() - 1);
  Builder &b = n.builder();
  auto maskType = RankedTensorType::get({rows, columns}, b.getI1Type());
  Value mask;
  std::optional<DenseElementsAttr> known =
      n.hasInput(1) ? n.constant(1) : std::optional<DenseElementsAttr>(
                                          DenseElementsAttr());
  if (known) {
    int64_t k = *known ? toInts(*known)[0] : 0;
    SmallVector<bool> keep;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < columns; ++j)
        keep.push_back(upper ? j - i >= k : j - i <= k);
    mask = n.constant(DenseElementsAttr::get(maskType, ArrayRef<bool>(keep)),
                      "mask");
  } else {
    SmallVector<int64_t> diagonal;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < columns; ++j)
        diagonal.push_back(j - i);
    Value d = i64Constant(n, {rows, columns}, diagonal, "diagonals");
    Value k = n.reshape(toI64(n, n.input(1), "k_i64"), {}, "k");
    mask = upper ? n.op<GreaterEqualOp>(maskType, {d, k}, {}, "mask")
                 : n.op<GreaterEqualOp>(maskType, {k, d}, {}, "mask");
  }
  results.push_back(n.op<SelectOp>(
      n.outputTypes[0], {mask, n.input(0), n.scalar(type, 0, "zero")}));
  return true;
}

/// x's prefix sums along `axis` (exclusive, reverse as CumSum's): the axis
/// moved last, a matmul by the constant [n, n] matrix with ones where row
/// i adds into column j.
Value prefixSums(Node &n, Value x, int64_t axis, bool exclusive, bool reverse,
                 const std::string &suffix) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank(), size = type.getDimSize(axis);
  std::string at = "axis_" + std::to_string(axis);
  SmallVector<int64_t> perm = axisLastPermutation(rank, axis);
  Value moved = axis == rank - 1 ? x : n.transpose(x, perm, at + "_last");
  auto movedType = cast<RankedTensorType>(moved.getType());
  int64_t others = type.getNumElements() / std::max<int64_t>(size, 1);
  Value matrix = n.reshape(moved, {others, size}, at + "_rows");
  Type element = type.getElementType();
  Builder &b = n.builder();
  SmallVector<Attribute> ones;
  for (int64_t i = 0; i < size; ++i)
    for (int64_t j = 0; j < size; ++j) {
      bool adds = reverse ? (exclusive ? i > j : i >= j)
                          : (exclusive ? i < j : i <= j);
      ones.push_back(isa<FloatType>(element)
                         ? Attribute(b.getFloatAttr(element, adds))
                         : Attribute(b.getIntegerAttr(element, adds)));
    }
  Value triangle = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({size, size}, element),
                             ones),
      at + "_triangle");
  // The op that yields the sums in x's shape is named `suffix`.
  bool last = axis == rank - 1;
  bool flat = movedType.getShape() == ArrayRef<int64_t>{others, size};
  Value sums = n.op<MatmulOp>(RankedTensorType::get({others, size}, element),
                              {matrix, triangle}, {},
                              last && flat ? suffix : at + "_sums");
  Value y = n.reshape(sums, movedType.getShape(),
                      last ? suffix : at + "_unrows");
  if (last)
    return y;
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  return n.transpose(y, inverse, suffix);
}

/// CumSum: prefixSums along the axis; an axis given at run time selects
/// (by `equal` against each, negative wrapped by floor_mod) among the sums
/// along every axis.
bool mapCumSum(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (!type || type.getRank() == 0) {
    reason = "a rank-0 input";
    return false;
  }
  bool exclusive = n.getInt("exclusive", 0) != 0,
       reverse = n.getInt("reverse", 0) != 0;
  int64_t rank = type.getRank();
  Value x = n.input(0);
  std::optional<DenseElementsAttr> known = n.constant(1);
  if (known || rank == 1) {
    int64_t axis = known ? toInts(*known)[0] : 0;
    if (!normalizeAxis(axis, rank, reason))
      return false;
    results.push_back(prefixSums(n, x, axis, exclusive, reverse, ""));
    return true;
  }
  Builder &b = n.builder();
  RankedTensorType axisType = n.inputType(1);
  Value axis = n.op<FloorModOp>(
      axisType, {n.input(1), n.scalar(axisType, rank, "rank")}, {}, "axis");
  Value y;
  for (int64_t d = 0; d < rank; ++d) {
    std::string at = "axis_" + std::to_string(d);
    Value sums = prefixSums(n, x, d, exclusive, reverse, at + "_sums_back");
    if (!y) {
      y = sums;
      continue;
    }
    Value chosen = n.op<EqualOp>(
        RankedTensorType::get(axisType.getShape(), b.getI1Type()),
        {axis, n.scalar(axisType, d, at)}, {}, at + "_chosen");
    chosen = n.reshape(chosen, {}, at + "_chosen_scalar");
    y = n.op<SelectOp>(type, {chosen, sums, y}, {},
                       d == rank - 1 ? "" : at + "_select");
  }
  results.push_back(y);
  return true;
}

/// MaxUnpool: each value written into its place in the result at its
/// index (ONNX's, flat over the whole result, MaxPool's Indices); the
/// result's shape is shape inference's (from kernel_shape, strides and
/// pads; output_shape is refused). Overlapping windows (a 3x3 pool of
/// stride 2) give one input element's index, and its value, several times:
/// ONNX writes it (`Y[indices] = X`), so the values at an index are summed
/// (unsorted_segment_sum) and divided by their count, in f64 for 32- and
/// 16-bit floats, where a sum of a few equal values and its quotient are
/// exact, so that the value comes back bit for bit (in f32, 3x / 3 is not
/// always x). Different values at one index (indices no MaxPool gave) give
/// their mean.
bool mapMaxUnpool(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  RankedTensorType x = n.inputType(0), indices = n.inputType(1);
  if (!x || !indices || indices.getShape() != x.getShape()) {
    reason = "indices of another shape than the input";
    return false;
  }
  if (n.hasInput(2)) {
    // ONNX's backend test (test_maxunpool_export_with_output_shape)
    // expects the indices read as flat positions in the default-shaped
    // result, padded at the end to output_shape; ONNX Runtime (1.30)
    // reads them as flat positions in output_shape's result: indices
    // 5, 7, 13, 15 into 5x5 put the values at rows 1 and 3, columns 1
    // and 3 in the first, at flat 5, 7, 13, 15 in the second. No rule
    // gives both.
    reason = "output_shape (ONNX's reference reads the indices as flat "
             "positions in the default-shaped result padded at the end, "
             "ONNX Runtime as flat positions in output_shape's result; "
             "they disagree, so gplace does neither)";
    return false;
  }
  RankedTensorType out = n.outputTypes[0];
  Type element = out.getElementType();
  if (!isa<FloatType>(element)) {
    reason = "a non-float input";
    return false;
  }
  Builder &b = n.builder();
  Type wide = element.isF64() ? element : b.getF64Type();
  int64_t count = x.getNumElements(), places = out.getNumElements();
  Value values = n.reshape(n.input(0), {count}, "flat");
  if (wide != element)
    values = n.op<CastOp>(RankedTensorType::get({count}, wide), values, {},
                          "flat_f64");
  Value rows = n.reshape(toI64(n, n.input(1), "indices_i64"), {count},
                         "flat_indices");
  auto placesType = RankedTensorType::get({places}, wide);
  Value sums = n.op<UnsortedSegmentSumOp>(placesType, {values, rows}, {},
                                          "scattered");
  Value ones = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({count}, wide),
                             b.getFloatAttr(wide, 1.0)),
      "ones");
  Value counts =
      n.op<UnsortedSegmentSumOp>(placesType, {ones, rows}, {}, "counts");
  // Places nothing writes: 0 / 1.
  Value divisor = n.op<MaximumOp>(
      placesType, {counts, n.scalar(placesType, 1.0, "one")}, {}, "divisor");
  Value y = n.op<DivOp>(placesType, {sums, divisor}, {}, "written");
  if (wide != element)
    y = n.op<CastOp>(RankedTensorType::get({places}, element), y, {},
                     "written_back");
  results.push_back(n.op<ReshapeOp>(out, y));
  return true;
}

} // namespace

void addIndexingMappers(llvm::StringMap<MapFn> &table) {
  table["CumSum"] = widenIntegers<mapCumSum>;
  table["GatherElements"] = mapGatherElements;
  table["GatherND"] = mapGatherND;
  table["MaxUnpool"] = mapMaxUnpool;
  table["ReverseSequence"] = mapReverseSequence;
  table["ScatterElements"] = mapScatterElements;
  table["ScatterND"] = mapScatterND;
  // Scatter (opsets 9 to 10) is ScatterElements without a reduction.
  table["Scatter"] = mapScatterElements;
  table["Trilu"] = mapTrilu;
}

} // namespace gplace::frontend::onnx_import
