//===- MapTensors.cpp - data movement, constants, normalization -------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

bool mapCast(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  if (x.getType() == n.outputTypes[0])
    results.push_back(n.op<IdentityOp>(x.getType(), x));
  else
    results.push_back(n.op<CastOp>(n.outputTypes[0], x));
  return true;
}

bool mapTranspose(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> given = n.getInts("perm"))
    perm = *given;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  results.push_back(n.op<TransposeOp>(
      n.outputTypes[0], x,
      {n.named("perm", n.builder().getDenseI64ArrayAttr(perm))}));
  return true;
}

/// Reshape, Flatten, Squeeze, Unsqueeze: the result's shape is shape
/// inference's (Reshape's 0 and -1, Flatten's axis, the axes resolved).
bool mapReshape(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], n.input(0)));
  return true;
}

bool mapIdentity(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<IdentityOp>(n.outputTypes[0], n.input(0)));
  return true;
}

/// Expand: numpy broadcasting to the inferred shape.
bool mapExpand(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  if (x.getType() == n.outputTypes[0])
    results.push_back(n.op<IdentityOp>(x.getType(), x));
  else
    results.push_back(n.op<BroadcastToOp>(n.outputTypes[0], x));
  return true;
}

bool mapConcat(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  SmallVector<Value> inputs;
  for (int i = 0; i < n.numInputs(); ++i)
    inputs.push_back(n.input(i));
  if (llvm::is_contained(inputs, Value())) {
    reason = "an omitted input";
    return false;
  }
  int64_t axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, n.outputTypes[0].getRank(), reason))
    return false;
  Builder &b = n.builder();
  results.push_back(n.importer.b.create<ConcatOp>(
      n.loc, n.outputTypes[0], inputs, b.getI64IntegerAttr(axis),
      StringAttr(), b.getStringAttr(n.name), StringAttr(), ValueRange()));
  return true;
}

/// The begin and size of a Slice along each dimension.
bool mapSlice(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.getInts("starts").value_or(SmallVector<int64_t>());
    ends = n.getInts("ends").value_or(SmallVector<int64_t>());
    if (auto a = n.getInts("axes"))
      axes = *a;
  } else {
    // Known at import time: importNode refuses them computed at run time
    // (importTimeInputs) before this runs.
    for (int i = 1; i < 5; ++i)
      if (n.hasInput(i))
        (i == 1   ? starts
         : i == 2 ? ends
         : i == 3 ? axes
                  : steps) = toInts(*n.constant(i));
  }
  if (axes.empty())
    for (int64_t d = 0; d < static_cast<int64_t>(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    reason = "starts, ends, axes and steps of different lengths";
    return false;
  }
  // Steps of 1: one slice. Other steps: the indices along each such axis,
  // as ONNX clamps them (a negative step counts down from a start clamped
  // to [0, dim - 1] to an end clamped to [-1, dim - 1]), then a `gather`
  // of those constant indices per axis.
  SmallVector<int64_t> begin(rank, 0), size(type.getShape());
  SmallVector<std::pair<int64_t, SmallVector<int64_t>>> strided;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t axis = axes[i];
    if (!normalizeAxis(axis, rank, reason))
      return false;
    int64_t dim = type.getDimSize(axis), step = steps[i];
    if (step == 0) {
      reason = "a step of 0";
      return false;
    }
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step == 1) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      begin[axis] = s;
      size[axis] = std::max<int64_t>(0, e - s);
      continue;
    }
    SmallVector<int64_t> indices;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      for (int64_t j = s; j < e; j += step)
        indices.push_back(j);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      for (int64_t j = s; j > e; j += step)
        indices.push_back(j);
    }
    strided.push_back({axis, std::move(indices)});
  }
  Builder &b = n.builder();
  RankedTensorType sliced =
      strided.empty() ? n.outputTypes[0]
                      : RankedTensorType::get(size, type.getElementType());
  Value y = n.op<SliceOp>(sliced, n.input(0),
                          {n.named("begin", b.getDenseI64ArrayAttr(begin)),
                           n.named("size", b.getDenseI64ArrayAttr(size))},
                          strided.empty() ? "" : "contiguous");
  SmallVector<int64_t> shape(size);
  for (auto &[axis, indices] : strided) {
    shape[axis] = static_cast<int64_t>(indices.size());
    std::string at = "axis_" + std::to_string(axis);
    Value index = n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({shape[axis]}, b.getI64Type()),
            ArrayRef<int64_t>(indices)),
        at + "_indices");
    y = n.op<GatherOp>(RankedTensorType::get(shape, type.getElementType()),
                       {y, index}, {n.named("axis", b.getI64IntegerAttr(axis))},
                       axis == strided.back().first ? "" : at);
  }
  if (y.getType() != n.outputTypes[0]) {
    reason = "an output shape shape inference disagrees with";
    return false;
  }
  results.push_back(y);
  return true;
}

bool mapSplit(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, type.getRank(), reason))
    return false;
  int64_t offset = 0;
  Builder &b = n.builder();
  for (auto [i, out] : llvm::enumerate(n.outputTypes)) {
    if (!out) {
      results.push_back({});
      continue;
    }
    if (out.getRank() != type.getRank()) {
      reason = "outputs of another rank than the input";
      return false;
    }
    SmallVector<int64_t> begin(type.getRank(), 0), size(out.getShape());
    begin[axis] = offset;
    offset += out.getDimSize(axis);
    results.push_back(n.op<SliceOp>(
        out, n.input(0),
        {n.named("begin", b.getDenseI64ArrayAttr(begin)),
         n.named("size", b.getDenseI64ArrayAttr(size))},
        i == 0 ? "" : "output_" + std::to_string(i)));
  }
  return true;
}

/// Pad: mode `constant` as `pad` (with a value other than 0, or one given
/// at run time: `select` of the value outside a constant mask of the
/// input's place); `reflect` and `edge` as a `gather` along each padded
/// dimension with constant indices.
bool mapPad(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  std::string mode = n.getString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    reason = "mode '" + mode + "'";
    return false;
  }
  RankedTensorType type = n.inputType(0);
  SmallVector<int64_t> pads;
  // The constant value: none (0), a constant, or a value at run time.
  std::optional<double> fill = 0.0;
  Value fillValue;
  if (n.opset < 11) {
    pads = n.getInts("pads").value_or(SmallVector<int64_t>());
    fill = n.getFloat("value", 0);
  } else {
    // Known at import time: importNode refuses them computed at run time
    // (importTimeInputs) before this runs.
    pads = toInts(*n.constant(1));
    if (n.hasInput(2)) {
      std::optional<DenseElementsAttr> v = n.constant(2);
      if (v && v->getNumElements() == 1)
        fill = isFloat(v->getElementType())
                   ? v->getValues<APFloat>()[0].convertToDouble()
                   : static_cast<double>(v->getValues<APInt>()[0].getSExtValue());
      else if (v) {
        reason = "a constant_value that is not one value";
        return false;
      } else {
        fill = std::nullopt;
        fillValue = n.input(2);
      }
    }
  }
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank) {
    reason = "pads of the wrong length";
    return false;
  }
  SmallVector<int64_t> paddings;
  for (int64_t d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[rank + d] < 0) {
      reason = "negative pads";
      return false;
    }
    paddings.push_back(pads[d]);
    paddings.push_back(pads[rank + d]);
  }
  Builder &b = n.builder();
  RankedTensorType out = n.outputTypes[0];
  if (mode == "constant") {
    bool zero = fill && *fill == 0;
    Value padded = n.op<PadOp>(
        out, n.input(0),
        {n.named("paddings", b.getDenseI64ArrayAttr(paddings))},
        zero ? "" : "zeros");
    if (zero) {
      results.push_back(padded);
      return true;
    }
    // True where the input lies.
    auto maskType = RankedTensorType::get(out.getShape(), b.getI1Type());
    SmallVector<bool> inside(out.getNumElements());
    SmallVector<int64_t> index(rank, 0);
    for (bool &in : inside) {
      in = true;
      for (int64_t d = 0; d < rank; ++d)
        in &= index[d] >= pads[d] && index[d] < pads[d] + type.getDimSize(d);
      for (int64_t d = rank - 1; d >= 0 && ++index[d] == out.getDimSize(d);
           --d)
        index[d] = 0;
    }
    Value mask = n.constant(
        DenseElementsAttr::get(maskType, ArrayRef<bool>(inside)), "inside");
    Value value = fill ? n.scalar(type, *fill, "constant_value")
                       : n.reshape(fillValue, {}, "constant_value");
    results.push_back(n.op<SelectOp>(out, {mask, padded, value}));
    return true;
  }
  SmallVector<int64_t> padded;
  for (int64_t d = 0; d < rank; ++d)
    if (pads[d] || pads[rank + d])
      padded.push_back(d);
  Value y = n.input(0);
  if (padded.empty()) {
    results.push_back(n.op<IdentityOp>(out, y));
    return true;
  }
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d : padded) {
    int64_t size = type.getDimSize(d);
    if (size < 1 || (mode == "reflect" &&
                     (pads[d] >= size || pads[rank + d] >= size))) {
      reason = "reflect pads not smaller than the dimension, or an empty "
               "dimension";
      return false;
    }
    SmallVector<int64_t> indices;
    for (int64_t i = -pads[d]; i < size + pads[rank + d]; ++i) {
      int64_t j = i;
      if (mode == "edge")
        j = std::clamp<int64_t>(i, 0, size - 1);
      else if (i < 0)
        j = -i;
      else if (i >= size)
        j = 2 * (size - 1) - i;
      indices.push_back(j);
    }
    shape[d] = indices.size();
    std::string at = "axis_" + std::to_string(d);
    Value index = n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({static_cast<int64_t>(indices.size())},
                                  b.getI64Type()),
            ArrayRef<int64_t>(indices)),
        at + "_indices");
    y = n.op<GatherOp>(RankedTensorType::get(shape, type.getElementType()),
                       {y, index}, {n.named("axis", b.getI64IntegerAttr(d))},
                       d == padded.back() ? "" : at);
  }
  results.push_back(y);
  return true;
}

/// Constant, Shape and Size: values known at import time.
/// The op is made where the value is first used as a tensor (never, for
/// Reshape's shape and the like), named after the value.
bool recordConstant(Node &n, DenseElementsAttr value,
                    SmallVectorImpl<Value> &results) {
  if (value.getType() != n.outputTypes[0])
    return false;
  n.importer.constants[n.proto.output(0)] = value;
  results.push_back(Value());
  return true;
}

bool mapConstant(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  Builder &b = n.builder();
  RankedTensorType out = n.outputTypes[0];
  if (const onnx::AttributeProto *a = n.attr("value")) {
    gplace::StatusOr<DenseElementsAttr> value =
        tensorAttr(a->t(), n.importer.directory, n.importer.context);
    if (!value) {
      reason = value.status().message();
      return false;
    }
    return recordConstant(n, *value, results);
  }
  // The other forms: a type shape inference gave, checked before the
  // attribute is built.
  auto matches = [&](Type element, int64_t count) {
    if (out.getElementType() == element && out.getNumElements() == count)
      return true;
    reason = "a value of another type than its output's";
    return false;
  };
  if (const onnx::AttributeProto *a = n.attr("value_float"))
    return matches(b.getF32Type(), 1) &&
           recordConstant(
               n, DenseElementsAttr::get(out, b.getF32FloatAttr(a->f())),
               results);
  if (const onnx::AttributeProto *a = n.attr("value_int"))
    return matches(b.getI64Type(), 1) &&
           recordConstant(
               n, DenseElementsAttr::get(out, b.getI64IntegerAttr(a->i())),
               results);
  if (const onnx::AttributeProto *a = n.attr("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    return matches(b.getF32Type(), v.size()) &&
           recordConstant(n, DenseElementsAttr::get(out, ArrayRef<float>(v)),
                          results);
  }
  if (const onnx::AttributeProto *a = n.attr("value_ints")) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    return matches(b.getI64Type(), v.size()) &&
           recordConstant(n, DenseElementsAttr::get(out, ArrayRef<int64_t>(v)),
                          results);
  }
  reason = "a sparse or string value";
  return false;
}

/// ConstantOfShape of a shape known at import time.
bool mapConstantOfShape(Node &n, SmallVectorImpl<Value> &results,
                        std::string &reason) {
  RankedTensorType out = n.outputTypes[0];
  Attribute value = n.builder().getZeroAttr(out.getElementType());
  if (const onnx::AttributeProto *a = n.attr("value")) {
    gplace::StatusOr<DenseElementsAttr> given =
        tensorAttr(a->t(), n.importer.directory, n.importer.context);
    if (!given) {
      reason = given.status().message();
      return false;
    }
    if (given->getNumElements() != 1 ||
        given->getElementType() != out.getElementType()) {
      reason = "a value that is not one element of the output's type";
      return false;
    }
    value = given->getSplatValue<Attribute>();
  }
  return recordConstant(n, DenseElementsAttr::get(out, value), results);
}

bool mapShape(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  ArrayRef<int64_t> dims = n.inputType(0).getShape();
  int64_t rank = dims.size();
  int64_t start = n.getInt("start", 0), end = n.getInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  SmallVector<int64_t> v(dims.begin() + start, dims.begin() + end);
  if (n.outputTypes[0].getNumElements() != static_cast<int64_t>(v.size()) ||
      !n.outputTypes[0].getElementType().isInteger(64)) {
    reason = "a shape shape inference disagrees with";
    return false;
  }
  return recordConstant(
      n, DenseElementsAttr::get(n.outputTypes[0], ArrayRef<int64_t>(v)),
      results);
}

bool mapSize(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  int64_t count = n.inputType(0).getNumElements();
  if (n.outputTypes[0].getNumElements() != 1 ||
      !n.outputTypes[0].getElementType().isInteger(64)) {
    reason = "an output that is not one int64";
    return false;
  }
  return recordConstant(
      n, DenseElementsAttr::get(n.outputTypes[0], ArrayRef<int64_t>(count)),
      results);
}

bool mapEqual(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<EqualOp>(n.outputTypes[0], {n.input(0), n.input(1)}));
  return true;
}

/// Greater and GreaterOrEqual, and Less and LessOrEqual as those with their
/// operands swapped (a NaN compares false either way).
template <typename OpT, bool Swap>
bool mapComparison(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<OpT>(n.outputTypes[0],
                              {n.input(Swap ? 1 : 0), n.input(Swap ? 0 : 1)}));
  return true;
}

/// Gather: gplace.gather, with ONNX's negative indices (counting from the
/// end of the axis) resolved: in place when the indices are constants, else
/// by select(index < 0, index + n, index).
bool mapGather(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType data = n.inputType(0), indicesType = n.inputType(1);
  if (!data || !indicesType || data.getRank() == 0) {
    reason = "an omitted or rank-0 input";
    return false;
  }
  int64_t axis = n.getInt("axis", 0);
  if (axis < -data.getRank() || axis >= data.getRank()) {
    reason = "axis " + std::to_string(axis) + " of data of rank " +
             std::to_string(data.getRank());
    return false;
  }
  if (axis < 0)
    axis += data.getRank();
  int64_t dim = data.getDimSize(axis);
  Builder &b = n.builder();
  Value indices;
  if (std::optional<DenseElementsAttr> known = n.constant(1)) {
    SmallVector<int64_t> values = toInts(*known);
    for (int64_t &v : values)
      if (v < 0)
        v += dim;
    indices = n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get(indicesType.getShape(), b.getI64Type()),
            llvm::ArrayRef<int64_t>(values)),
        "indices");
  } else {
    Value given = n.input(1);
    auto mask = RankedTensorType::get(indicesType.getShape(), b.getI1Type());
    Value zero = n.scalar(indicesType, 0, "zero");
    Value negative = n.op<GreaterOp>(mask, {zero, given}, {}, "negative");
    Value wrapped = n.op<AddOp>(
        indicesType, {given, n.scalar(indicesType, dim, "dim")}, {}, "wrapped");
    indices =
        n.op<SelectOp>(indicesType, {negative, wrapped, given}, {}, "indices");
  }
  results.push_back(
      n.op<GatherOp>(n.outputTypes[0], {n.input(0), indices},
                     {n.named("axis", b.getI64IntegerAttr(axis))}));
  return true;
}

/// (x - mean) / (sqrt(variance + epsilon) or, MVN's, sqrt(variance) +
/// epsilon) over `axes`, kept: reduce_mean, sub, square, reduce_mean, add,
/// sqrt, div.
Value standardize(Node &n, Value x, ArrayRef<int64_t> axes, double epsilon,
                  bool epsilonOutside, llvm::StringRef suffix) {
  Builder &b = n.builder();
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> kept(type.getShape());
  for (int64_t a : axes)
    kept[a] = 1;
  auto keptType = RankedTensorType::get(kept, type.getElementType());
  SmallVector<NamedAttribute> attrs = {
      n.named("axes", b.getDenseI64ArrayAttr(axes)),
      n.named("keep_dims", b.getUnitAttr())};
  Value mean = n.op<ReduceMeanOp>(keptType, x, attrs, "mean");
  Value centered = n.op<SubOp>(type, {x, mean}, {}, "centered");
  Value square = n.op<SquareOp>(type, centered, {}, "square");
  Value variance = n.op<ReduceMeanOp>(keptType, square, attrs, "variance");
  Value eps = n.scalar(type, epsilon, "epsilon");
  Value deviation;
  if (epsilonOutside) {
    Value root = n.op<SqrtOp>(keptType, variance, {}, "sqrt");
    deviation = n.op<AddOp>(keptType, {root, eps}, {}, "deviation");
  } else {
    Value sum = n.op<AddOp>(keptType, {variance, eps}, {}, "variance_epsilon");
    deviation = n.op<SqrtOp>(keptType, sum, {}, "deviation");
  }
  return n.op<DivOp>(type, {centered, deviation}, {}, suffix);
}

/// InstanceNormalization: x [N, C, D...] standardized over D... (epsilon
/// inside the root), times scale [C] plus B [C] per channel.
bool mapInstanceNorm(Node &n, SmallVectorImpl<Value> &results,
                     std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (type.getRank() < 3) {
    reason = "an input of rank below 3";
    return false;
  }
  int64_t channels = type.getDimSize(1);
  for (int i = 1; i <= 2; ++i) {
    RankedTensorType t = n.inputType(i);
    if (!t || t.getShape() != ArrayRef<int64_t>{channels} ||
        t.getElementType() != type.getElementType()) {
      reason = "a scale or B that is not one value of the input's type per "
               "channel";
      return false;
    }
  }
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < type.getRank(); ++d)
    axes.push_back(d);
  Value y = standardize(n, n.input(0), axes, n.getFloat("epsilon", 1e-5f),
                        false, "normalized");
  SmallVector<int64_t> perChannel(type.getRank() - 1, 1);
  perChannel[0] = channels;
  Value scale = n.reshape(n.input(1), perChannel, "scale");
  Value bias = n.reshape(n.input(2), perChannel, "bias");
  Value scaled = n.op<MulOp>(type, {y, scale}, {}, "scaled");
  results.push_back(n.op<AddOp>(n.outputTypes[0], {scaled, bias}));
  return true;
}

/// MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over
/// `axes` (default [0, 2, 3]), as ONNX's function body computes it.
bool mapMeanVarianceNorm(Node &n, SmallVectorImpl<Value> &results,
                         std::string &reason) {
  RankedTensorType type = n.inputType(0);
  SmallVector<int64_t> axes =
      n.getInts("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  for (int64_t &a : axes)
    if (!normalizeAxis(a, type.getRank(), reason))
      return false;
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  results.push_back(standardize(n, n.input(0), axes, 1e-9, true, ""));
  return true;
}

/// LRN: x / (bias + alpha / size * s)^beta, s the sum of the squares over
/// the channels [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]: the
/// squares with the channels last, a matmul by a constant band of ones.
bool mapLRN(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t size = n.getInt("size", 0);
  if (type.getRank() < 3 || size < 1) {
    reason = "an input of rank below 3, or a size below 1";
    return false;
  }
  Builder &b = n.builder();
  Type element = type.getElementType();
  int64_t rank = type.getRank(), channels = type.getDimSize(1);
  int64_t below = (size - 1) / 2, above = size - 1 - below;
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  Value square = n.op<SquareOp>(type, n.input(0), {}, "square");
  Value last = n.transpose(square, perm, "channels_last");
  auto lastType = cast<RankedTensorType>(last.getType());
  int64_t others = type.getNumElements() / channels;
  Value rows = n.reshape(last, {others, channels}, "rows");
  SmallVector<Attribute> band;
  for (int64_t i = 0; i < channels; ++i)
    for (int64_t j = 0; j < channels; ++j)
      band.push_back(b.getFloatAttr(element, i >= j - below && i <= j + above));
  Value window = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({channels, channels}, element),
                             band),
      "window");
  Value sums = n.op<MatmulOp>(RankedTensorType::get({others, channels}, element),
                              {rows, window}, {}, "window_sums");
  Value unrows = n.reshape(sums, lastType.getShape(), "unrows");
  Value s = n.transpose(unrows, inverse, "sums");
  Value scaled = n.op<MulOp>(
      type, {s, n.scalar(type, n.getFloat("alpha", 1e-4f) / size, "alpha")}, {},
      "scaled");
  Value base = n.op<AddOp>(
      type, {scaled, n.scalar(type, n.getFloat("bias", 1.0f), "bias")}, {},
      "base");
  Value denominator = n.op<PowOp>(
      type, {base, n.scalar(type, n.getFloat("beta", 0.75f), "beta")}, {},
      "denominator");
  results.push_back(n.op<DivOp>(n.outputTypes[0], {n.input(0), denominator}));
  return true;
}

/// Xor of bools: not(a == b).
bool mapXor(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value equal = n.op<EqualOp>(n.outputTypes[0], {n.input(0), n.input(1)});
  results.push_back(n.op<LogicalNotOp>(n.outputTypes[0], {equal}));
  return true;
}

bool mapWhere(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(
      n.op<SelectOp>(n.outputTypes[0], {n.input(0), n.input(1), n.input(2)}));
  return true;
}

/// LayerNormalization (opset 17): gplace.layer_norm over the dimensions from
/// `axis` on, with the optional Mean and InvStdDev outputs (decomposed into
/// reduce_mean, sub, mul, sqrt and div, so that training differentiates it
/// as it would the ops: Decompositions.cpp). f16 and bf16 inputs are
/// computed in f32 (the default stash_type) and the result cast back; f32
/// and f64 in their own type.
bool mapLayerNorm(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  // gplace.layer_norm (Decompositions.cpp), its statistics in f32 for f16
  // and bf16 as ONNX's stash_type 1 says.
  if (n.getInt("stash_type", 1) != 1) {
    reason = "a stash_type other than float";
    return false;
  }
  Builder &b = n.builder();
  Operation *layerNorm = n.opWithOptionalOperands<LayerNormOp>(
      {n.input(0), n.input(1), n.input(2)},
      {n.named("axis", b.getI64IntegerAttr(n.getInt("axis", -1))),
       n.named("epsilon", b.getF32FloatAttr(n.getFloat("epsilon", 1e-5f)))});
  if (!layerNorm)
    return false;
  results.append(layerNorm->getResults().begin(),
                 layerNorm->getResults().end());
  return true;
}

/// BatchNormalization over NCHW ([N, C, ...] reshaped to four dimensions:
/// a rank below 4 padded with ones, the spatial dimensions of a rank above
/// 4 but the last merged into one, which changes nothing per channel).
/// training_mode (opset 14 on): normalized by the batch's statistics
/// (fused_batch_norm's is_training), and the outputs running_mean and
/// running_var are `mean * momentum + batch_mean * (1 - momentum)` and the
/// same of the variances, ONNX's batch variance being the biased one where
/// TensorFlow's op returns the Bessel-corrected `v * n / (n - 1)`.
bool mapBatchNorm(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  bool training = n.getInt("training_mode", 0) != 0;
  if ((training || n.outputTypes.size() > 1) && n.opset < 14) {
    reason = "training (outputs beyond Y) below opset 14";
    return false;
  }
  if (n.opset < 7 && n.getInt("spatial", 1) != 1) {
    reason = "spatial = 0";
    return false;
  }
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank < 2) {
    reason = "an input of rank " + std::to_string(rank);
    return false;
  }
  SmallVector<int64_t> four(type.getShape().take_front(std::min<int64_t>(rank, 4)));
  if (rank > 4) {
    four[2] = 1;
    for (int64_t d = 2; d < rank - 1; ++d)
      four[2] *= type.getDimSize(d);
    four[3] = type.getDimSize(rank - 1);
  }
  while (four.size() < 4)
    four.push_back(1);
  Value x4 = n.reshape(x, four, "nchw");
  auto type4 = cast<RankedTensorType>(x4.getType());
  Builder &b = n.builder();
  Type vec = n.inputType(1);
  bool direct = type4 == type;
  // Elements per channel: the batch variance's divisor.
  int64_t perChannel = type4.getNumElements() / type4.getDimSize(1);
  if (training && perChannel < 2) {
    reason = "training_mode with one element per channel";
    return false;
  }
  SmallVector<NamedAttribute> attributes = {
      n.named("epsilon", b.getF32FloatAttr(n.getFloat("epsilon", 1e-5f))),
      n.named("data_format", b.getStringAttr("NCHW")),
      n.named("name", b.getStringAttr(direct ? n.name
                                             : n.name + "/FusedBatchNorm"))};
  if (training)
    attributes.push_back(n.named("is_training", b.getUnitAttr()));
  auto bn = n.importer.b.create<FusedBatchNormOp>(
      n.loc, TypeRange{type4, vec, vec},
      ValueRange{x4, n.input(1), n.input(2), n.input(3), n.input(4)},
      attributes);
  Value y = bn->getResult(0);
  results.push_back(direct ? y : n.reshape(y, type.getShape()));
  if (n.outputTypes.size() < 2)
    return true;
  if (!training) {
    // Opset 14's running statistics at inference: the inputs, unchanged.
    results.push_back(n.op<IdentityOp>(vec, n.input(3), {}, "running_mean"));
    if (n.outputTypes.size() > 2)
      results.push_back(n.op<IdentityOp>(vec, n.input(4), {}, "running_var"));
    return true;
  }
  double momentum = n.getFloat("momentum", 0.9f);
  // One pair of scalars for both running statistics.
  Value keptShare = n.scalar(vec, momentum, "momentum");
  Value addedShare = n.scalar(vec, 1 - momentum, "one_minus_momentum");
  auto average = [&](Value running, Value batch, const char *what) {
    Value kept = n.op<MulOp>(vec, {running, keptShare}, {},
                             std::string(what) + "/kept");
    Value added = n.op<MulOp>(vec, {batch, addedShare}, {},
                              std::string(what) + "/added");
    return n.op<AddOp>(vec, {kept, added}, {}, what);
  };
  results.push_back(average(n.input(3), bn->getResult(1), "running_mean"));
  if (n.outputTypes.size() > 2) {
    double unbias = static_cast<double>(perChannel - 1) / perChannel;
    Value biased = n.op<MulOp>(
        vec, {bn->getResult(2), n.scalar(vec, unbias, "batch_var/unbias")}, {},
        "batch_var");
    results.push_back(average(n.input(4), biased, "running_var"));
  }
  return true;
}

} // namespace

void addTensorMappers(llvm::StringMap<MapFn> &table) {
  table["BatchNormalization"] = mapBatchNorm;
  table["Cast"] = mapCast;
  table["Concat"] = mapConcat;
  table["Constant"] = mapConstant;
  table["ConstantOfShape"] = mapConstantOfShape;
  table["Equal"] = mapEqual;
  table["Expand"] = mapExpand;
  table["Flatten"] = mapReshape;
  table["Gather"] = mapGather;
  table["Greater"] = widenIntegers<mapComparison<GreaterOp, false>>;
  table["GreaterOrEqual"] =
      widenIntegers<mapComparison<GreaterEqualOp, false>>;
  table["Identity"] = mapIdentity;
  table["InstanceNormalization"] = floatInput<mapInstanceNorm>;
  table["LRN"] = floatInput<mapLRN>;
  table["LayerNormalization"] = floatInput<mapLayerNorm>;
  table["Less"] = widenIntegers<mapComparison<GreaterOp, true>>;
  table["LessOrEqual"] =
      widenIntegers<mapComparison<GreaterEqualOp, true>>;
  table["MeanVarianceNormalization"] = floatInput<mapMeanVarianceNorm>;
  table["Pad"] = mapPad;
  table["Reshape"] = mapReshape;
  table["Shape"] = mapShape;
  table["Size"] = mapSize;
  table["Slice"] = mapSlice;
  table["Split"] = mapSplit;
  table["Squeeze"] = mapReshape;
  table["Transpose"] = mapTranspose;
  table["Unsqueeze"] = mapReshape;
  table["Where"] = mapWhere;
  table["Xor"] = mapXor;
}

} // namespace gplace::frontend::onnx_import
