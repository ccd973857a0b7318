//===- MapLosses.cpp - losses, one-hot selections, layouts, constants
//-------===//
//
// Part of the ONNX importer: see OnnxImporter.h. The op types here are
// compositions of graph ops that have kernels (and gradients where the
// composed ops have them), built node by node:
// - NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the classes
//   moved to the last dimension, a one_hot mask of the targets (weighted,
//   with ignore_index's targets masked out), mul and reduce_sum; the
//   losses are differentiable with respect to the scores;
// - Hardmax: one_hot(argmax) along the axis;
// - CastLike: a cast to the second input's element type;
// - Tile: reshape, broadcast_to and reshape (TensorFlow's Tile as a
//   broadcast), DepthToSpace and SpaceToDepth: reshape, transpose, reshape;
// - Range and EyeLike: constants, computed at import time.
// The training domain's ops are in MapTraining.cpp.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include "gplace/Dialect/Graph/GraphBuilders.h"

#include <cmath>

namespace gplace::frontend::onnx_import {

namespace {

/// `v` of element type `element`, as an attribute of that type (integers
/// truncated).
Attribute elementAttr(Builder &b, Type element, double v) {
  if (isa<FloatType>(element))
    return b.getFloatAttr(element, v);
  return b.getIntegerAttr(element, static_cast<int64_t>(v));
}

/// Records `value` as output 0's value, known at import time (made an op
/// where it is first used, as Constant's).
bool knownOutput(Node &n, DenseElementsAttr value,
                 SmallVectorImpl<Value> &results, std::string &reason) {
  if (value.getType() != n.outputTypes[0]) {
    reason = "a value of another type than ONNX's shape inference gives";
    return false;
  }
  n.importer.constants[n.proto.output(0)] = value;
  results.push_back(Value());
  return true;
}

/// All the dimensions of a rank-`rank` tensor.
SmallVector<int64_t> allAxes(int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < rank; ++d)
    axes.push_back(d);
  return axes;
}

Value reduceSum(Node &n, Value x, ArrayRef<int64_t> axes,
                llvm::StringRef suffix) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      shape.push_back(type.getDimSize(d));
  return n.op<ReduceSumOp>(
      RankedTensorType::get(shape, type.getElementType()), x,
      {n.named("axes", n.builder().getDenseI64ArrayAttr(axes))}, suffix);
}

/// The permutation that moves dimension 1 (the classes) of a rank-`rank`
/// tensor last: [0, 2, ..., rank - 1, 1].
SmallVector<int64_t> classesLast(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[perm[i]] = i;
  return inv;
}

/// The negative log-likelihood of `logProb` ([N, d1, ..., dk, C], the
/// classes last) at `target` ([N, d1, ..., dk]), ONNX's
/// NegativeLogLikelihoodLoss: -logProb[..., target] * weight[target], 0
/// where the target is ignore_index; reduced by `reduction` ("none", "sum",
/// "mean": the sum over the sum of the weights of the targets not
/// ignored). The class is selected by a one_hot mask (a target outside
/// [0, C) gives a row of zeros; an ignored one is made -1 first), so that
/// the loss is a mul and reduce_sum of `logProb`, differentiable. With
/// `lossShape` (the node's target shape, when the caller flattened its
/// dimensions after N), an unreduced loss is reshaped to it.
bool negativeLogLikelihood(Node &n, Value logProb, Value target, Value weight,
                           SmallVectorImpl<Value> &results,
                           std::string &reason,
                           std::optional<ArrayRef<int64_t>> lossShape = {}) {
  auto probType = cast<RankedTensorType>(logProb.getType());
  auto targetType = dyn_cast_or_null<RankedTensorType>(
      target ? target.getType() : Type());
  int64_t rank = probType.getRank();
  Type element = probType.getElementType();
  if (!targetType ||
      targetType.getShape() != probType.getShape().drop_back()) {
    reason = "a target whose shape is not the input's without the classes";
    return false;
  }
  int64_t classes = probType.getShape().back();
  if (weight) {
    auto weightType = cast<RankedTensorType>(weight.getType());
    if (weightType.getShape() != ArrayRef<int64_t>{classes} ||
        weightType.getElementType() != element) {
      reason = "a weight that is not one value of the input's type per class";
      return false;
    }
  }
  std::string reduction = n.getString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    reason = "reduction '" + reduction + "'";
    return false;
  }
  if (const onnx::AttributeProto *ignore = n.attr("ignore_index")) {
    auto mask = RankedTensorType::get(targetType.getShape(),
                                      n.builder().getI1Type());
    Value ignored = n.op<EqualOp>(
        mask, {target, n.scalar(targetType, ignore->i(), "ignore_index")}, {},
        "ignored");
    target = n.op<SelectOp>(
        targetType, {ignored, n.scalar(targetType, -1, "none"), target}, {},
        "target");
  }
  Value selected =
      n.op<OneHotOp>(probType,
                     {target, n.scalar(probType, 1, "on"),
                      n.scalar(probType, 0, "off")},
                     {}, "one_hot");
  if (weight)
    selected = n.op<MulOp>(probType, {selected, weight}, {}, "weights");
  Value picked = n.op<MulOp>(probType, {logProb, selected}, {}, "picked");
  Value sum = reduceSum(n, picked, {rank - 1}, "sum_classes");
  bool none = reduction == "none";
  Value loss =
      n.op<NegOp>(sum.getType(), sum, {}, none && !lossShape ? "" : "loss");
  if (none) {
    results.push_back(lossShape ? n.reshape(loss, *lossShape) : loss);
    return true;
  }
  auto scalarType = RankedTensorType::get({}, element);
  if (reduction == "sum") {
    results.push_back(reduceSum(n, loss, allAxes(rank - 1), ""));
    return true;
  }
  if (!weight && !n.attr("ignore_index")) {
    results.push_back(n.op<ReduceMeanOp>(
        scalarType, loss,
        {n.named("axes", n.builder().getDenseI64ArrayAttr(allAxes(rank - 1)))}));
    return true;
  }
  Value total = reduceSum(n, loss, allAxes(rank - 1), "total");
  Value weights = reduceSum(n, selected, allAxes(rank), "total_weight");
  results.push_back(n.op<DivOp>(scalarType, {total, weights}));
  return true;
}

/// `input` [N, C, d1, ..., dk] and `target` [N, d1, ..., dk] reshaped to
/// [N, C, d1 * ... * dk] and [N, d1 * ... * dk] (`input_3d`,
/// `target_3d`): the losses' elementwise ops and reductions on
/// three dimensions rather than k + 2, the same elements in the same
/// order. False (nothing built) where the target is not of that shape.
bool flattenSpatial(Node &n, Value &input, Value &target) {
  auto type = cast<RankedTensorType>(input.getType());
  auto targetType = dyn_cast_or_null<RankedTensorType>(
      target ? target.getType() : Type());
  if (!targetType || targetType.getRank() != type.getRank() - 1 ||
      targetType.getDimSize(0) != type.getDimSize(0) ||
      targetType.getShape().drop_front() != type.getShape().drop_front(2))
    return false;
  int64_t spatial = 1;
  for (int64_t d : type.getShape().drop_front(2))
    spatial *= d;
  int64_t batch = type.getDimSize(0), classes = type.getDimSize(1);
  input = n.reshape(input, {batch, classes, spatial}, "input_3d");
  target = n.reshape(target, {batch, spatial}, "target_3d");
  return true;
}

/// NegativeLogLikelihoodLoss: input [N, C, d1, ..., dk] (log-probabilities),
/// target [N, d1, ..., dk], optional weight [C]; k > 1 flattened to one
/// (flattenSpatial).
bool mapNegativeLogLikelihoodLoss(Node &n, SmallVectorImpl<Value> &results,
                                  std::string &reason) {
  Value input = n.input(0);
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() < 2) {
    reason = "an input of rank below 2";
    return false;
  }
  Value target = n.input(1);
  std::optional<ArrayRef<int64_t>> lossShape;
  if (type.getRank() > 3 && flattenSpatial(n, input, target)) {
    lossShape = n.inputType(1).getShape();
    type = cast<RankedTensorType>(input.getType());
  }
  if (type.getRank() > 2)
    input = n.transpose(input, classesLast(type.getRank()), "classes_last");
  return negativeLogLikelihood(n, input, target, n.input(2), results, reason,
                               lossShape);
}

/// SoftmaxCrossEntropyLoss: the negative log-likelihood of
/// log_softmax(scores) over the classes (dimension 1), and that
/// log-probability as the optional second output; scores of rank above 3
/// flattened to 3 (flattenSpatial).
bool mapSoftmaxCrossEntropyLoss(Node &n, SmallVectorImpl<Value> &results,
                                std::string &reason) {
  Value scores = n.input(0);
  auto type = cast<RankedTensorType>(scores.getType());
  int64_t rank = type.getRank();
  if (rank < 2) {
    reason = "scores of rank below 2";
    return false;
  }
  Value target = n.input(1);
  std::optional<ArrayRef<int64_t>> lossShape;
  if (rank > 3 && flattenSpatial(n, scores, target)) {
    lossShape = n.inputType(1).getShape();
    rank = 3;
  }
  SmallVector<int64_t> perm = classesLast(rank);
  if (rank > 2)
    scores = n.transpose(scores, perm, "classes_last");
  bool logProbOut = n.outputTypes.size() > 1 && n.outputTypes[1];
  // gplace.log_softmax, decomposed at the end of the node's import
  // (Decompositions.cpp).
  Value logProb = n.op<LogSoftmaxOp>(
      scores.getType(), scores, {},
      logProbOut && rank == 2 ? "log_prob" : "log_softmax");
  if (!negativeLogLikelihood(n, logProb, target, n.input(2), results, reason,
                             lossShape))
    return false;
  if (logProbOut) {
    if (rank > 2)
      logProb = n.transpose(logProb, inverse(perm),
                            lossShape ? "log_prob_3d" : "log_prob");
    if (lossShape)
      logProb = n.reshape(logProb, type.getShape(), "log_prob");
    results.push_back(logProb);
  }
  return true;
}

/// Hardmax: 1 at the first largest value along the axis, 0 elsewhere:
/// one_hot(argmax). Before opset 13 over the input coerced to 2-D at the
/// axis (as Softmax then), also after the version converter upgraded the
/// node (Importer::upgrade).
bool mapHardmax(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank == 0) {
    reason = "a scalar input";
    return false;
  }
  bool coerced =
      n.opset < 13 || n.importer.coercedHardmax.count(n.proto.output(0));
  int64_t axis = n.getInt("axis", coerced ? 1 : -1);
  if (!normalizeAxis(axis, rank, reason))
    return false;
  Builder &b = n.builder();
  Type element = type.getElementType();
  Value on = n.scalar(type, 1, "on"), off = n.scalar(type, 0, "off");
  auto oneHot = [&](Value v, int64_t along, llvm::StringRef suffix) {
    auto vType = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> rest;
    for (int64_t d = 0; d < vType.getRank(); ++d)
      if (d != along)
        rest.push_back(vType.getDimSize(d));
    Value index = n.op<ArgMaxOp>(RankedTensorType::get(rest, b.getI64Type()),
                                 v, {n.named("axis", b.getI64IntegerAttr(along))},
                                 "argmax");
    rest.push_back(vType.getDimSize(along));
    return n.op<OneHotOp>(RankedTensorType::get(rest, element),
                          {index, on, off}, {}, suffix);
  };
  if (coerced) {
    int64_t rows = 1, columns = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? rows : columns) *= type.getDimSize(d);
    Value flat = n.reshape(x, {rows, columns}, "coerced");
    bool direct = flat == x;
    Value y = oneHot(flat, 1, direct ? "" : "one_hot");
    results.push_back(direct ? y : n.reshape(y, type.getShape()));
    return true;
  }
  if (axis == rank - 1) {
    results.push_back(oneHot(x, axis, ""));
    return true;
  }
  // one_hot's new dimension is the last: moved back to `axis`.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d < axis ? d : d == axis ? rank - 1 : d - 1);
  results.push_back(n.transpose(oneHot(x, axis, "one_hot"), perm));
  return true;
}

/// CastLike: a cast to the element type of input 1, whose value is not
/// read.
bool mapCastLike(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  if (x.getType() == n.outputTypes[0])
    results.push_back(n.op<IdentityOp>(x.getType(), x));
  else
    results.push_back(n.op<CastOp>(n.outputTypes[0], x));
  return true;
}

/// Tile with constant repeats: x reshaped with a dimension of 1 before
/// each repeated one, broadcast to the repeats there, reshaped to the
/// result ([r0, d0, r1, d1, ...] row-major is the tiling).
bool mapTile(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  if (n.opset < 6) {
    reason = "Tile before opset 6 (tiles and axis inputs)";
    return false;
  }
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  std::optional<DenseElementsAttr> given = n.constant(1);
  if (!given) {
    reason = "input 1 ('repeats') computed at run time: it must be a "
             "constant";
    return false;
  }
  SmallVector<int64_t> repeats = toInts(*given);
  if (static_cast<int64_t>(repeats.size()) != type.getRank()) {
    reason = "repeats of another length than the input's rank";
    return false;
  }
  SmallVector<int64_t> spread, broadcast;
  for (auto [d, r] : llvm::enumerate(repeats)) {
    if (r < 1) {
      reason = "a repeat below 1";
      return false;
    }
    if (r != 1) {
      spread.push_back(1);
      broadcast.push_back(r);
    }
    spread.push_back(type.getDimSize(d));
    broadcast.push_back(type.getDimSize(d));
  }
  if (spread.size() == static_cast<size_t>(type.getRank())) {
    results.push_back(n.op<IdentityOp>(n.outputTypes[0], x));
    return true;
  }
  Value spreadX = n.reshape(x, spread, "spread");
  Value tiled = n.op<BroadcastToOp>(
      RankedTensorType::get(broadcast, type.getElementType()), spreadX, {},
      "broadcast");
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], tiled));
  return true;
}

/// DepthToSpace (DCR and CRD) and SpaceToDepth on [N, C, H, W]: a reshape
/// to six dimensions, a transpose, a reshape to the result.
template <bool ToSpace>
bool mapDepthSpace(Node &n, SmallVectorImpl<Value> &results,
                   std::string &reason) {
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t b = n.getInt("blocksize", 0);
  if (type.getRank() != 4 || b < 1) {
    reason = "an input of rank other than 4, or a blocksize below 1";
    return false;
  }
  int64_t batch = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  SmallVector<int64_t> shape, perm;
  if (ToSpace) {
    if (c % (b * b)) {
      reason = "channels not a multiple of blocksize^2";
      return false;
    }
    std::string mode = n.getString("mode", "DCR");
    if (mode == "DCR") {
      shape = {batch, b, b, c / (b * b), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      shape = {batch, c / (b * b), b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      reason = "mode '" + mode + "'";
      return false;
    }
  } else {
    if (h % b || w % b) {
      reason = "a height or width not a multiple of blocksize";
      return false;
    }
    shape = {batch, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
  }
  Value split = n.reshape(x, shape, "split");
  Value moved = n.transpose(split, perm, "transpose");
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], moved));
  return true;
}

/// Range of constant start, limit and delta: the constant
/// start + i * delta for i in [0, max(ceil((limit - start) / delta), 0)).
bool mapRange(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  static const char *const names[] = {"start", "limit", "delta"};
  double v[3];
  Type element = n.outputTypes[0].getElementType();
  for (int i = 0; i < 3; ++i) {
    std::optional<DenseElementsAttr> c = n.constant(i);
    if (!c) {
      reason = "input " + std::to_string(i) + " ('" + names[i] +
               "') computed at run time: it must be a constant";
      return false;
    }
    if (c->getNumElements() != 1) {
      reason = std::string("a ") + names[i] + " that is not a scalar";
      return false;
    }
    if (isa<FloatType>(c->getElementType()))
      v[i] = c->getValues<APFloat>()[0].convertToDouble();
    else
      v[i] = static_cast<double>(c->getValues<APInt>()[0].getSExtValue());
  }
  if (v[2] == 0) {
    reason = "a delta of 0";
    return false;
  }
  int64_t count = std::max<int64_t>(
      0, static_cast<int64_t>(std::ceil((v[1] - v[0]) / v[2])));
  if (count != n.outputTypes[0].getNumElements()) {
    reason = "a length shape inference disagrees with";
    return false;
  }
  Builder &b = n.builder();
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(elementAttr(b, element, v[0] + i * v[2]));
  return knownOutput(n, DenseElementsAttr::get(n.outputTypes[0], values),
                     results, reason);
}

/// EyeLike: a constant of the input's shape (rank 2) with ones on the
/// diagonal `k` (above the main one when positive).
bool mapEyeLike(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  RankedTensorType out = n.outputTypes[0];
  if (out.getRank() != 2) {
    reason = "an input of rank other than 2";
    return false;
  }
  int64_t k = n.getInt("k", 0);
  Builder &b = n.builder();
  Type element = out.getElementType();
  Attribute one = elementAttr(b, element, 1), zero = elementAttr(b, element, 0);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < out.getDimSize(0); ++i)
    for (int64_t j = 0; j < out.getDimSize(1); ++j)
      values.push_back(j - i == k ? one : zero);
  return knownOutput(n, DenseElementsAttr::get(out, values), results, reason);
}

} // namespace

ArrayRef<int> importTimeInputs(llvm::StringRef opType) {
  static const int range[] = {0, 1, 2}, second[] = {1}, first[] = {0},
                   all5[] = {0, 1, 2, 3, 4},
                   resize[] = {1, 2, 3};
  // The sequence ops' positions (MapSequence.cpp).
  if (ArrayRef<int> positions = sequenceImportTimeInputs(opType);
      !positions.empty())
    return positions;
  // NonZero's, Unique's and NonMaxSuppression's inputs (MapDataDependent.cpp).
  if (ArrayRef<int> inputs = dataDependentInputs(opType); !inputs.empty())
    return inputs;
  if (opType == "Range")
    return range;
  // If's condition, Loop's trip count and condition (ControlFlow.cpp).
  static const int loop[] = {0, 1};
  if (opType == "If")
    return first;
  if (opType == "Loop")
    return loop;
  // Resize: roi, scales, sizes (opset 10: scales); Upsample: scales.
  if (opType == "Resize")
    return resize;
  if (opType == "Tile" || opType == "Upsample" || opType == "TopK" ||
      opType == "OneHot" || opType == "Compress")
    return second;
  // Dropout's training_mode (MapRandom.cpp).
  static const int third[] = {2};
  if (opType == "Dropout")
    return third;
  if (opType == "HannWindow" || opType == "HammingWindow" ||
      opType == "BlackmanWindow")
    return first;
  if (opType == "MelWeightMatrix")
    return all5;
  // STFT: frame_step, frame_length.
  static const int stft[] = {1, 3};
  if (opType == "STFT")
    return stft;
  // Slice's starts, ends, axes and steps (opset 10); Pad's pads (opset
  // 11; its constant_value may be computed at run time); ReduceSum's axes
  // (opset 13). Below those opsets they are attributes, the node has no
  // such inputs, and nothing is asked.
  static const int slice[] = {1, 2, 3, 4};
  if (opType == "Slice")
    return slice;
  if (opType == "Pad" || opType == "ReduceSum")
    return second;
  return {};
}

void addLossMappers(llvm::StringMap<MapFn> &table) {
  table["CastLike"] = mapCastLike;
  table["DepthToSpace"] = mapDepthSpace<true>;
  table["EyeLike"] = mapEyeLike;
  table["Hardmax"] = mapHardmax;
  table["NegativeLogLikelihoodLoss"] =
      floatInput<mapNegativeLogLikelihoodLoss>;
  table["Range"] = mapRange;
  table["SoftmaxCrossEntropyLoss"] = floatInput<mapSoftmaxCrossEntropyLoss>;
  table["SpaceToDepth"] = mapDepthSpace<false>;
  table["Tile"] = mapTile;
}

} // namespace gplace::frontend::onnx_import
