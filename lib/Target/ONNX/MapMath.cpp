//===- MapMath.cpp - elementwise ops, contractions, reductions --------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cctype>
#include <cmath>

namespace gplace::frontend::onnx_import {

/// The product of `x` along `axis`, kept as a dimension of 1: the halves
/// multiplied, ceil(size / 2) at a time (the odd element carried by a
/// concat), until one is left; log2(size) slices and muls, differentiable.
Value productAlong(Node &n, Value x, int64_t axis) {
  Builder &b = n.builder();
  auto type = cast<RankedTensorType>(x.getType());
  std::string at = "axis_" + std::to_string(axis);
  if (type.getDimSize(axis) == 0) {
    SmallVector<int64_t> kept(type.getShape());
    kept[axis] = 1;
    auto keptType = RankedTensorType::get(kept, type.getElementType());
    Type element = type.getElementType();
    Attribute one = isa<FloatType>(element)
                        ? Attribute(b.getFloatAttr(element, 1))
                        : Attribute(b.getIntegerAttr(element, 1));
    return n.constant(DenseElementsAttr::get(keptType, one), at + "_empty");
  }
  auto slice = [&](Value v, int64_t begin, int64_t size,
                   const std::string &suffix) {
    auto vType = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> begins(vType.getRank(), 0), sizes(vType.getShape());
    begins[axis] = begin;
    sizes[axis] = size;
    return n.op<SliceOp>(
        RankedTensorType::get(sizes, vType.getElementType()), v,
        {n.named("begin", b.getDenseI64ArrayAttr(begins)),
         n.named("size", b.getDenseI64ArrayAttr(sizes))},
        suffix);
  };
  for (int step = 0; cast<RankedTensorType>(x.getType()).getDimSize(axis) > 1;
       ++step) {
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t size = xType.getDimSize(axis), half = size / 2;
    std::string s = at + "_" + std::to_string(step);
    Value front = slice(x, 0, half, s + "_front");
    Value back = slice(x, half, half, s + "_back");
    Value product = n.op<MulOp>(front.getType(), {front, back}, {}, s + "_mul");
    if (size % 2) {
      Value odd = slice(x, 2 * half, 1, s + "_odd");
      SmallVector<int64_t> joined(xType.getShape());
      joined[axis] = half + 1;
      product = n.importer.b.create<ConcatOp>(
          n.loc, RankedTensorType::get(joined, xType.getElementType()),
          ValueRange{product, odd}, b.getI64IntegerAttr(axis), StringAttr(),
          b.getStringAttr(n.name + "/" + s + "_concat"), StringAttr(),
          ValueRange());
    }
    x = product;
  }
  return x;
}

namespace {

//===----------------------------------------------------------------------===//
// The mapping: one function per ONNX op type.
//===----------------------------------------------------------------------===//

template <typename OpT>
bool mapUnary(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<OpT>(n.outputTypes[0], n.input(0)));
  return true;
}

template <typename OpT>
bool mapBinary(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<OpT>(n.outputTypes[0], {n.input(0), n.input(1)}));
  return true;
}

/// Pow: gplace.pow, TensorFlow's, of one floating-point type (ONNX lets the
/// exponent have another type, an integer one too).
/// Pow: the exponent cast to the base's type; integer bases (whose result
/// is the base's type, as ONNX's) computed in f64 and cast back
/// (truncating, as numpy's astype).
bool mapPow(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType base = n.inputType(0), exponent = n.inputType(1);
  if (!base || !exponent) {
    reason = "an omitted input";
    return false;
  }
  Value x = n.input(0), y = n.input(1);
  auto castTo = [&](Value v, Type element, llvm::StringRef suffix) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() == element)
      return v;
    return n.op<CastOp>(RankedTensorType::get(type.getShape(), element), v,
                        {}, suffix);
  };
  if (isFloat(base)) {
    y = castTo(y, base.getElementType(), "exponent");
    results.push_back(n.op<PowOp>(n.outputTypes[0], {x, y}));
    return true;
  }
  Type f64 = n.builder().getF64Type();
  Value power = n.op<PowOp>(Type(), {castTo(x, f64, "base_f64"),
                                     castTo(y, f64, "exponent_f64")},
                            {}, "pow");
  results.push_back(n.op<CastOp>(n.outputTypes[0], power));
  return true;
}

bool mapAbs(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Value negated = n.op<NegOp>(x.getType(), x, {}, "neg");
  results.push_back(n.op<MaximumOp>(n.outputTypes[0], {x, negated}));
  return true;
}

bool mapReciprocal(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Value one = n.scalar(x.getType(), 1.0, "one");
  results.push_back(n.op<DivOp>(n.outputTypes[0], {one, x}));
  return true;
}

bool mapLeakyRelu(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  float alpha = n.getFloat("alpha", 0.01f);
  if (alpha < 0 || alpha > 1) {
    reason = "alpha outside [0, 1]";
    return false;
  }
  Value x = n.input(0);
  Value scaled = n.op<MulOp>(x.getType(), {x, n.scalar(x.getType(), alpha,
                                                       "alpha")},
                             {}, "mul");
  results.push_back(n.op<MaximumOp>(n.outputTypes[0], {x, scaled}));
  return true;
}

/// relu(-x), for the activations below: -min(x, 0).
Value negativePart(Node &n, Value x, llvm::StringRef suffix) {
  Value neg = n.op<NegOp>(x.getType(), x, {}, (suffix + "_neg").str());
  return n.op<ReluOp>(x.getType(), neg, {}, suffix);
}

/// PRelu: relu(x) - slope * relu(-x), the slope broadcast to x. A slope
/// [C] that does not broadcast is per channel (dimension 1), as PRelu
/// before opset 7 read it (PyTorch's exports of PReLU(C)).
bool mapPRelu(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value x = n.input(0), slope = n.input(1);
  RankedTensorType out = n.outputTypes[0];
  auto xType = cast<RankedTensorType>(x.getType());
  auto slopeType = cast<RankedTensorType>(slope.getType());
  if (n.broadcastType(x, slope) != out && xType.getRank() > 2 &&
      slopeType.getRank() == 1 &&
      slopeType.getDimSize(0) == xType.getDimSize(1)) {
    SmallVector<int64_t> perChannel(xType.getRank() - 1, 1);
    perChannel[0] = xType.getDimSize(1);
    slope = n.reshape(slope, perChannel, "slope");
  }
  if (n.broadcastType(x, slope) != out) {
    reason = "a slope that does not broadcast to the input";
    return false;
  }
  Value positive = n.op<ReluOp>(out, x, {}, "positive");
  Value negative = negativePart(n, x, "negative");
  Value scaled = n.op<MulOp>(out, {negative, slope}, {}, "scaled");
  results.push_back(n.op<SubOp>(out, {positive, scaled}));
  return true;
}

/// Elu and Selu: gamma * (relu(x) + alpha * (exp(-relu(-x)) - 1)).
template <bool Scaled>
bool mapElu(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  // gplace.elu / gplace.selu, decomposed at the end of the import
  // (Decompositions.cpp).
  Builder &b = n.builder();
  Value x = n.input(0);
  SmallVector<NamedAttribute> attrs;
  if (const onnx::AttributeProto *alpha = n.attr("alpha"))
    attrs.push_back(n.named("alpha", b.getF32FloatAttr(alpha->f())));
  if (const onnx::AttributeProto *gamma = n.attr("gamma"); gamma && Scaled)
    attrs.push_back(n.named("gamma", b.getF32FloatAttr(gamma->f())));
  results.push_back(Scaled ? n.op<SeluOp>(x.getType(), x, attrs)
                           : n.op<EluOp>(x.getType(), x, attrs));
  return true;
}

/// Softplus: relu(x) + log(1 + exp(-|x|)), which does not overflow.
bool mapSoftplus(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Type t = x.getType();
  Value neg = n.op<NegOp>(t, x, {}, "neg");
  Value abs = n.op<MaximumOp>(t, {x, neg}, {}, "abs");
  Value negAbs = n.op<NegOp>(t, abs, {}, "neg_abs");
  Value exp = n.op<ExpOp>(t, negAbs, {}, "exp");
  Value onePlus = n.op<AddOp>(t, {exp, n.scalar(t, 1.0, "one")}, {}, "add");
  Value log = n.op<LogOp>(t, onePlus, {}, "log");
  Value positive = n.op<ReluOp>(t, x, {}, "positive");
  results.push_back(n.op<AddOp>(t, {positive, log}));
  return true;
}

/// Clip: max(x, min) then min(., max); bounds from attributes (opset < 11)
/// or optional inputs.
bool mapClip(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Value lo, hi;
  if (n.opset < 11) {
    if (n.attr("min"))
      lo = n.scalar(x.getType(), n.getFloat("min", 0), "min");
    if (n.attr("max"))
      hi = n.scalar(x.getType(), n.getFloat("max", 0), "max");
  } else {
    lo = n.input(1);
    hi = n.input(2);
  }
  Value y = x;
  if (lo)
    y = n.op<MaximumOp>(n.outputTypes[0], {y, lo}, {}, hi ? "lower" : "");
  if (hi)
    y = n.minimum(y, hi, n.outputTypes[0]);
  if (!lo && !hi)
    y = n.op<IdentityOp>(n.outputTypes[0], x);
  results.push_back(y);
  return true;
}

/// HardSigmoid: gplace.hard_sigmoid (Decompositions.cpp).
bool mapHardSigmoid(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  SmallVector<NamedAttribute> attrs;
  for (const char *name : {"alpha", "beta"})
    if (const onnx::AttributeProto *a = n.attr(name))
      attrs.push_back(n.named(name, n.builder().getF32FloatAttr(a->f())));
  results.push_back(n.op<HardSigmoidOp>(n.outputTypes[0], x, attrs));
  return true;
}

/// Sum, Max, Min, Mean of one or more broadcastable inputs.
template <typename Kind>
bool mapVariadic(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  for (int i = 0; i < n.numInputs(); ++i)
    if (!n.hasInput(i)) {
      reason = "an omitted input";
      return false;
    }
  Value acc = n.input(0);
  for (int i = 1; i < n.numInputs(); ++i) {
    Value next = n.input(i);
    RankedTensorType type = n.broadcastType(acc, next);
    if (!type) {
      reason = "inputs do not broadcast";
      return false;
    }
    bool last = i + 1 == n.numInputs() && !Kind::mean;
    std::string suffix = last ? "" : "acc_" + std::to_string(i);
    if (Kind::op == 0)
      acc = n.op<AddOp>(type, {acc, next}, {}, suffix);
    else if (Kind::op == 1)
      acc = n.op<MaximumOp>(type, {acc, next}, {}, suffix);
    else
      acc = n.minimum(acc, next, type, suffix);
  }
  if (Kind::mean && n.numInputs() > 1)
    acc = n.op<DivOp>(n.outputTypes[0],
                      {acc, n.scalar(acc.getType(), n.numInputs(), "count")});
  else if (n.numInputs() == 1)
    acc = n.op<IdentityOp>(n.outputTypes[0], acc);
  results.push_back(acc);
  return true;
}
struct SumKind { static constexpr int op = 0; static constexpr bool mean = false; };
struct MaxKind { static constexpr int op = 1; static constexpr bool mean = false; };
struct MinKind { static constexpr int op = 2; static constexpr bool mean = false; };
struct MeanKind { static constexpr int op = 0; static constexpr bool mean = true; };

/// Softmax and LogSoftmax over the last axis of `x` (a float tensor).
Value softmaxLastAxis(Node &n, Value x, bool log, bool final) {
  auto type = cast<RankedTensorType>(x.getType());
  // gplace.log_softmax is decomposed at the end of the import
  // (Decompositions.cpp): x - max - log(sum(exp(x - max))).
  if (!log)
    return n.op<SoftmaxOp>(type, x, {}, final ? "" : "Softmax");
  return n.op<LogSoftmaxOp>(type, x, {}, final ? "" : "LogSoftmax");
}

template <bool Log>
bool mapSoftmax(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank == 0) {
    reason = "a scalar input";
    return false;
  }
  int64_t axis = n.getInt("axis", n.opset < 13 ? 1 : -1);
  if (!normalizeAxis(axis, rank, reason))
    return false;
  if (n.opset < 13) {
    // The input coerced to 2-D at `axis` (Decompositions.cpp).
    SmallVector<NamedAttribute> attrs = {
        n.named("axis", n.builder().getI64IntegerAttr(axis))};
    results.push_back(Log ? n.op<LogSoftmax2DOp>(type, x, attrs)
                          : n.op<Softmax2DOp>(type, x, attrs));
    return true;
  }
  if (axis == rank - 1) {
    results.push_back(softmaxLastAxis(n, x, Log, true));
    return true;
  }
  SmallVector<int64_t> perm = axisLastPermutation(rank, axis);
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  Value moved = n.transpose(x, perm, "to_last");
  Value y = softmaxLastAxis(n, moved, Log, false);
  results.push_back(n.transpose(y, inverse));
  return true;
}

/// The axes of a Reduce* node: attribute or (ReduceSum from opset 13)
/// input 1, normalized; all axes when none are given, unless
/// noop_with_empty_axes.
bool reduceAxes(Node &n, SmallVectorImpl<int64_t> &axes, bool &noop,
                std::string &reason) {
  int64_t rank = n.inputType(0).getRank();
  std::optional<SmallVector<int64_t>> given;
  bool axesInput = n.proto.op_type() == "ReduceSum" && n.opset >= 13;
  if (axesInput) {
    // Known at import time: importNode refuses them computed at run time
    // (importTimeInputs) before this runs.
    if (n.hasInput(1))
      given = toInts(*n.constant(1));
  } else {
    given = n.getInts("axes");
  }
  noop = false;
  if (!given || given->empty()) {
    if (n.getInt("noop_with_empty_axes", 0)) {
      noop = true;
      return true;
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
    return true;
  }
  for (int64_t a : *given) {
    if (!normalizeAxis(a, rank, reason))
      return false;
    axes.push_back(a);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return true;
}

enum class ReduceKind {
  Sum, Mean, Max, Min, SumSquare, L1, L2, LogSum, LogSumExp, Prod
};

template <ReduceKind Kind>
bool mapReduce(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  SmallVector<int64_t> axes;
  bool noop;
  if (!reduceAxes(n, axes, noop, reason))
    return false;
  Value x = n.input(0);
  RankedTensorType out = n.outputTypes[0];
  if (noop) {
    results.push_back(n.op<IdentityOp>(out, x));
    return true;
  }
  Builder &b = n.builder();
  auto type = cast<RankedTensorType>(x.getType());
  bool keep = n.getInt("keepdims", 1);
  SmallVector<int64_t> keptShape(type.getShape());
  for (int64_t a : axes)
    keptShape[a] = 1;
  auto keptType = RankedTensorType::get(keptShape, type.getElementType());
  auto reduce = [&](auto tag, Value v, RankedTensorType resultType,
                    bool keepDims, llvm::StringRef suffix) {
    using OpT = decltype(tag);
    SmallVector<NamedAttribute> attrs = {
        n.named("axes", b.getDenseI64ArrayAttr(axes))};
    if (keepDims)
      attrs.push_back(n.named("keep_dims", b.getUnitAttr()));
    return n.op<OpT>(resultType, v, attrs, suffix);
  };
  switch (Kind) {
  case ReduceKind::Sum:
    results.push_back(reduce(ReduceSumOp(), x, out, keep, ""));
    return true;
  case ReduceKind::Mean:
    results.push_back(reduce(ReduceMeanOp(), x, out, keep, ""));
    return true;
  case ReduceKind::Max:
    results.push_back(reduce(ReduceMaxOp(), x, out, keep, ""));
    return true;
  case ReduceKind::Min: {
    Value neg = n.op<NegOp>(type, x, {}, "neg");
    Value max = reduce(ReduceMaxOp(), neg, out, keep, "max");
    results.push_back(n.op<NegOp>(out, max));
    return true;
  }
  case ReduceKind::SumSquare: {
    Value sq = n.op<SquareOp>(type, x, {}, "square");
    results.push_back(reduce(ReduceSumOp(), sq, out, keep, ""));
    return true;
  }
  case ReduceKind::L2: {
    Value sq = n.op<SquareOp>(type, x, {}, "square");
    Value sum = reduce(ReduceSumOp(), sq, out, keep, "sum");
    results.push_back(n.op<SqrtOp>(out, sum));
    return true;
  }
  case ReduceKind::L1: {
    Value neg = n.op<NegOp>(type, x, {}, "neg");
    Value abs = n.op<MaximumOp>(type, {x, neg}, {}, "abs");
    results.push_back(reduce(ReduceSumOp(), abs, out, keep, ""));
    return true;
  }
  case ReduceKind::LogSum: {
    Value sum = reduce(ReduceSumOp(), x, out, keep, "sum");
    results.push_back(n.op<LogOp>(out, sum));
    return true;
  }
  case ReduceKind::Prod: {
    Value y = x;
    for (int64_t a : axes)
      y = productAlong(n, y, a);
    results.push_back(n.op<ReshapeOp>(out, y));
    return true;
  }
  case ReduceKind::LogSumExp: {
    Value max = reduce(ReduceMaxOp(), x, keptType, true, "max");
    Value shifted = n.op<SubOp>(type, {x, max}, {}, "shifted");
    Value exp = n.op<ExpOp>(type, shifted, {}, "exp");
    Value sum = reduce(ReduceSumOp(), exp, keptType, true, "sum");
    Value logSum = n.op<LogOp>(keptType, sum, {}, "log");
    Value y = n.op<AddOp>(keptType, {logSum, max}, {}, keep ? "" : "keep");
    results.push_back(keep ? y : n.reshape(y, out.getShape()));
    return true;
  }
  }
  return false;
}

template <bool Min>
bool mapArgMax(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  bool last = n.getInt("select_last_index", 0) != 0;
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, type.getRank(), reason))
    return false;
  Builder &b = n.builder();
  int64_t size = type.getDimSize(axis);
  if (last) {
    // The first extreme of the axis reversed (a gather with constant
    // indices) is the last one: size - 1 - its index.
    SmallVector<int64_t> reversed;
    for (int64_t i = size - 1; i >= 0; --i)
      reversed.push_back(i);
    Value indices = n.constant(
        DenseElementsAttr::get(RankedTensorType::get({size}, b.getI64Type()),
                               ArrayRef<int64_t>(reversed)),
        "reversed_indices");
    x = n.op<GatherOp>(type, {x, indices},
                       {n.named("axis", b.getI64IntegerAttr(axis))},
                       "reversed");
  }
  if (Min)
    x = n.op<NegOp>(type, x, {}, "neg");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != axis)
      shape.push_back(type.getDimSize(d));
  auto removed = RankedTensorType::get(shape, n.outputTypes[0].getElementType());
  bool keep = n.getInt("keepdims", 1);
  Value y = n.op<ArgMaxOp>(removed, x,
                           {n.named("axis", b.getI64IntegerAttr(axis))},
                           keep || last ? "ArgMax" : "");
  if (last)
    y = n.op<SubOp>(removed, {n.scalar(removed, size - 1, "last"), y}, {},
                    keep ? "last_index" : "");
  results.push_back(keep ? n.reshape(y, n.outputTypes[0].getShape()) : y);
  return true;
}

} // namespace

void addMathMappers(llvm::StringMap<MapFn> &table) {
  table["Abs"] = widenIntegers<mapAbs>;
  table["Add"] = widenIntegers<mapBinary<AddOp>>;
  table["And"] = mapBinary<LogicalAndOp>;
  table["ArgMax"] = widenIntegers<mapArgMax<false>>;
  table["ArgMin"] = widenIntegers<mapArgMax<true>>;
  table["Clip"] = widenIntegers<mapClip>;
  table["Div"] = widenIntegers<mapBinary<DivOp>>;
  table["Elu"] = floatInput<mapElu<false>>;
  table["Exp"] = mapUnary<ExpOp>;
  table["HardSigmoid"] = floatInput<mapHardSigmoid>;
  table["LeakyRelu"] = floatInput<mapLeakyRelu>;
  table["Log"] = mapUnary<LogOp>;
  table["LogSoftmax"] = floatInput<mapSoftmax<true>>;
  table["Max"] = widenIntegers<mapVariadic<MaxKind>>;
  table["Mean"] = floatInput<mapVariadic<MeanKind>>;
  table["Min"] = widenIntegers<mapVariadic<MinKind>>;
  table["Mul"] = widenIntegers<mapBinary<MulOp>>;
  table["Neg"] = widenIntegers<mapUnary<NegOp>>;
  table["Not"] = mapUnary<LogicalNotOp>;
  table["Or"] = mapBinary<LogicalOrOp>;
  table["PRelu"] = floatInput<mapPRelu>;
  table["Pow"] = widenIntegers<mapPow>;
  table["Reciprocal"] = floatInput<mapReciprocal>;
  table["ReduceL1"] = widenIntegers<mapReduce<ReduceKind::L1>>;
  table["ReduceL2"] = mapReduce<ReduceKind::L2>;
  table["ReduceLogSum"] = mapReduce<ReduceKind::LogSum>;
  table["ReduceLogSumExp"] = mapReduce<ReduceKind::LogSumExp>;
  table["ReduceMax"] = widenIntegers<mapReduce<ReduceKind::Max>>;
  table["ReduceMean"] = mapReduce<ReduceKind::Mean>;
  table["ReduceMin"] = widenIntegers<mapReduce<ReduceKind::Min>>;
  table["ReduceProd"] = widenIntegers<mapReduce<ReduceKind::Prod>>;
  table["ReduceSum"] = widenIntegers<mapReduce<ReduceKind::Sum>>;
  table["ReduceSumSquare"] = widenIntegers<mapReduce<ReduceKind::SumSquare>>;
  table["Relu"] = widenIntegers<mapUnary<ReluOp>>;
  table["Selu"] = floatInput<mapElu<true>>;
  table["Sigmoid"] = mapUnary<SigmoidOp>;
  table["Softmax"] = mapSoftmax<false>;
  table["Sqrt"] = mapUnary<SqrtOp>;
  table["Softplus"] = floatInput<mapSoftplus>;
  table["Sub"] = widenIntegers<mapBinary<SubOp>>;
  table["Sum"] = mapVariadic<SumKind>;
  table["Tanh"] = mapUnary<TanhOp>;
}

} // namespace gplace::frontend::onnx_import
