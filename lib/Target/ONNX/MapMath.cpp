//===- MapMath.cpp - elementwise ops, contractions, reductions --------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cctype>
#include <cmath>

namespace gplace::frontend::onnx_import {

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

/// MatMul of a right operand of rank > 2: numpy's broadcast over the batch
/// dimensions, one gplace.matmul per product (at most 256), joined.
Value batchedMatMul(Node &n, Value a, Value b, RankedTensorType result,
                    std::string &reason) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() < 2) {
    reason = "a rank-1 left operand with a batched right one";
    return nullptr;
  }
  ArrayRef<int64_t> batchA = ta.getShape().drop_back(2);
  ArrayRef<int64_t> batchB = tb.getShape().drop_back(2);
  std::optional<std::vector<int64_t>> batch = broadcastShapes(batchA, batchB);
  if (!batch) {
    reason = "batch dimensions that do not broadcast";
    return nullptr;
  }
  int64_t count = 1;
  for (int64_t d : *batch)
    count *= d;
  if (count > 256) {
    reason = "more than 256 batched products";
    return nullptr;
  }
  int64_t m = ta.getDimSize(ta.getRank() - 2);
  int64_t cols = tb.getShape().back();
  Type element = ta.getElementType();
  Builder &builder = n.builder();
  // Operand `x` (batch dims `dims`) at broadcast batch index `flat`, as a
  // matrix.
  auto matrix = [&](Value x, RankedTensorType type, ArrayRef<int64_t> dims,
                    int64_t flat, llvm::StringRef what) {
    SmallVector<int64_t> begin(type.getRank(), 0), size(type.getShape());
    int64_t rest = flat;
    for (int64_t i = batch->size() - 1; i >= 0; --i) {
      int64_t index = rest % (*batch)[i];
      rest /= (*batch)[i];
      int64_t d = i - (static_cast<int64_t>(batch->size()) - dims.size());
      if (d < 0)
        continue;
      begin[d] = dims[d] == 1 ? 0 : index;
      size[d] = 1;
    }
    SmallVector<int64_t> sliced(size);
    Value part = n.op<SliceOp>(
        RankedTensorType::get(sliced, element), x,
        {n.named("begin", builder.getDenseI64ArrayAttr(begin)),
         n.named("size", builder.getDenseI64ArrayAttr(size))},
        (what + "_" + std::to_string(flat)).str());
    ArrayRef<int64_t> shape = type.getShape().take_back(2);
    return n.reshape(part, shape, (what + "_matrix_" + std::to_string(flat)).str());
  };
  SmallVector<Value> products;
  auto productType = RankedTensorType::get({1, m, cols}, element);
  for (int64_t i = 0; i < count; ++i) {
    Value lhs = matrix(a, ta, batchA, i, "lhs");
    Value rhs = matrix(b, tb, batchB, i, "rhs");
    Value p = n.op<MatmulOp>(RankedTensorType::get({m, cols}, element),
                             {lhs, rhs}, {}, "MatMul_" + std::to_string(i));
    products.push_back(n.reshape(p, productType.getShape(),
                                 "product_" + std::to_string(i)));
  }
  Value joined = products.front();
  if (products.size() > 1)
    joined = n.importer.b.create<ConcatOp>(
        n.loc, RankedTensorType::get({count, m, cols}, element), products,
        builder.getI64IntegerAttr(0), StringAttr(),
        builder.getStringAttr(n.name + "/concat"), StringAttr(), ValueRange());
  return n.op<ReshapeOp>(result, joined, {},
                        result == n.outputTypes[0] ? "" : "product");
}

} // namespace

Value matMul(Node &n, Value a, Value b, RankedTensorType result,
             std::string &reason) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() == 0 || tb.getRank() == 0) {
    reason = "a scalar operand";
    return nullptr;
  }
  if (tb.getRank() > 2)
    return batchedMatMul(n, a, b, result, reason);
  if (tb.getRank() == 1)
    b = n.reshape(b, {tb.getDimSize(0), 1}, "rhs_column");
  int64_t k = ta.getShape().back();
  int64_t rows = 1;
  for (int64_t d : ta.getShape().drop_back())
    rows *= d;
  if (ta.getRank() != 2)
    a = n.reshape(a, {rows, k}, "lhs_rows");
  int64_t cols = cast<RankedTensorType>(b.getType()).getDimSize(1);
  auto productType =
      RankedTensorType::get({rows, cols}, ta.getElementType());
  // Named after the node where it yields the node's output.
  bool final = result == n.outputTypes[0];
  bool direct = productType == result;
  Value product = n.op<MatmulOp>(productType, {a, b}, {},
                                 direct && final ? "" : "MatMul");
  return direct ? product
                : n.reshape(product, result.getShape(),
                            final ? "" : "product");
}

namespace {

/// MatMul: matMul of its operands.
bool mapMatMul(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value product = matMul(n, n.input(0), n.input(1), n.outputTypes[0], reason);
  if (!product)
    return false;
  results.push_back(product);
  return true;
}

/// Gemm: gplace.gemm, alpha * op(A) op(B) + beta * C (Decompositions.cpp).
bool mapGemm(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Builder &b = n.builder();
  SmallVector<NamedAttribute> attrs;
  for (const char *name : {"alpha", "beta"})
    if (const onnx::AttributeProto *a = n.attr(name))
      attrs.push_back(n.named(name, b.getF32FloatAttr(a->f())));
  if (n.getInt("transA", 0))
    attrs.push_back(n.named("transpose_a", b.getUnitAttr()));
  if (n.getInt("transB", 0))
    attrs.push_back(n.named("transpose_b", b.getUnitAttr()));
  Operation *gemm = n.opWithOptionalOperands<GemmOp>(
      {n.input(0), n.input(1), n.input(2)}, attrs);
  results.push_back(gemm ? gemm->getResult(0) : Value());
  return true;
}

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
    if (n.hasInput(1)) {
      std::optional<DenseElementsAttr> c = n.constant(1);
      if (!c) {
        reason = "axes computed at run time";
        return false;
      }
      given = toInts(*c);
    }
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

/// One Einsum operand's dimensions, labelled: a letter's code, or 256 +
/// i for the i-th dimension of the (right-aligned) ellipsis.
using Labels = SmallVector<int64_t>;

/// `term`'s labels for an operand of rank `rank` (-1: the output, whose
/// ellipsis has `ellipsis` dimensions); false if it does not fit.
bool parseTerm(llvm::StringRef term, int64_t rank, int64_t &ellipsis,
               Labels &labels) {
  size_t dots = term.find("...");
  llvm::StringRef before = term, after;
  if (dots != llvm::StringRef::npos) {
    before = term.take_front(dots);
    after = term.drop_front(dots + 3);
  }
  for (llvm::StringRef part : {before, after})
    for (char c : part)
      if (!std::isalpha(static_cast<unsigned char>(c)))
        return false;
  int64_t letters = before.size() + after.size();
  int64_t own = dots == llvm::StringRef::npos ? 0 : rank < 0 ? ellipsis
                                                              : rank - letters;
  if (own < 0 || (rank >= 0 && dots == llvm::StringRef::npos &&
                  letters != rank))
    return false;
  if (rank >= 0)
    ellipsis = std::max(ellipsis, own);
  for (char c : before)
    labels.push_back(c);
  for (int64_t i = 0; i < own; ++i)
    labels.push_back(256 + i - own); // Right-aligned: fixed up by the caller.
  for (char c : after)
    labels.push_back(c);
  return true;
}

Value transposeUnlessIdentity(Node &n, Value v, ArrayRef<int64_t> perm,
                              llvm::StringRef suffix) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return n.transpose(v, perm, suffix);
  return v;
}

/// `v`'s repeated labels taken as diagonals (a constant gather of the
/// pair's flattened dimensions) and its labels outside `keep` summed.
Value reduceTerm(Node &n, Value v, Labels &labels, ArrayRef<int64_t> keep,
                 const std::string &what) {
  Builder &b = n.builder();
  for (int step = 0;; ++step) {
    int64_t p = -1, q = -1;
    for (size_t i = 0; i < labels.size() && p < 0; ++i)
      for (size_t j = i + 1; j < labels.size(); ++j)
        if (labels[i] == labels[j]) {
          p = i;
          q = j;
          break;
        }
    if (p < 0)
      break;
    auto type = cast<RankedTensorType>(v.getType());
    int64_t size = type.getDimSize(p);
    std::string at = what + "_diagonal_" + std::to_string(step);
    SmallVector<int64_t> perm;
    Labels moved;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != p && d != q) {
        perm.push_back(d);
        moved.push_back(labels[d]);
      }
    int64_t label = labels[p];
    perm.push_back(p);
    perm.push_back(q);
    Value last = transposeUnlessIdentity(n, v, perm, at + "_last");
    SmallVector<int64_t> shape;
    for (int64_t d : ArrayRef<int64_t>(perm).drop_back(2))
      shape.push_back(type.getDimSize(d));
    shape.push_back(size * size);
    Value flat = n.reshape(last, shape, at + "_flat");
    SmallVector<int64_t> indices;
    for (int64_t i = 0; i < size; ++i)
      indices.push_back(i * (size + 1));
    Value index = n.constant(
        DenseElementsAttr::get(RankedTensorType::get({size}, b.getI64Type()),
                               ArrayRef<int64_t>(indices)),
        at + "_indices");
    shape.back() = size;
    v = n.op<GatherOp>(RankedTensorType::get(shape, type.getElementType()),
                       {flat, index},
                       {n.named("axis", b.getI64IntegerAttr(shape.size() - 1))},
                       at);
    moved.push_back(label);
    labels = moved;
  }
  SmallVector<int64_t> summed;
  Labels kept;
  SmallVector<int64_t> keptShape;
  auto type = cast<RankedTensorType>(v.getType());
  for (size_t d = 0; d < labels.size(); ++d) {
    if (llvm::is_contained(keep, labels[d])) {
      kept.push_back(labels[d]);
      keptShape.push_back(type.getDimSize(d));
    } else {
      summed.push_back(d);
    }
  }
  if (summed.empty())
    return v;
  labels = kept;
  return n.op<ReduceSumOp>(
      RankedTensorType::get(keptShape, type.getElementType()), v,
      {n.named("axes", b.getDenseI64ArrayAttr(summed))}, what + "_sum");
}

/// Einsum of one or two operands: each operand's diagonals taken and its
/// labels no one else needs summed (reduceTerm); two operands as one
/// product over the contracted labels, batched by the shared output labels
/// (a matmul, or mul and reduce_sum with a batch); the result transposed
/// to the output's order. Broadcast ellipsis dimensions are refused.
bool mapEinsum(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  std::string equation;
  for (char c : n.getString("equation", ""))
    if (c != ' ')
      equation.push_back(c);
  llvm::StringRef eq(equation);
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<llvm::StringRef> terms;
  lhs.split(terms, ',');
  int64_t count = n.numInputs();
  if (static_cast<int64_t>(terms.size()) != count || count < 1 || count > 2) {
    reason = count > 2 ? "more than two operands"
                       : "an equation with another number of operands";
    return false;
  }
  int64_t ellipsis = 0;
  SmallVector<Labels> labels(count);
  SmallVector<Value> values;
  for (int64_t i = 0; i < count; ++i) {
    RankedTensorType type = n.inputType(i);
    if (!type || !parseTerm(terms[i], type.getRank(), ellipsis, labels[i])) {
      reason = "an equation term that does not fit its operand";
      return false;
    }
    values.push_back(n.input(i));
  }
  // Ellipsis labels right-aligned: 256 + position among `ellipsis`.
  llvm::DenseMap<int64_t, int64_t> sizes;
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t &l : labels[i])
      if (l >= 128 && l < 256)
        l += ellipsis; // 256 + i - own -> 256 + ellipsis - own + i
    auto type = n.inputType(i);
    for (size_t d = 0; d < labels[i].size(); ++d) {
      auto [it, inserted] = sizes.try_emplace(labels[i][d], type.getDimSize(d));
      if (!inserted && it->second != type.getDimSize(d)) {
        reason = "dimensions of one label with different sizes (broadcast)";
        return false;
      }
    }
  }
  Labels out;
  if (explicitOutput) {
    if (!parseTerm(rhs, -1, ellipsis, out)) {
      reason = "an output term that does not fit";
      return false;
    }
    for (int64_t &l : out)
      if (l >= 128 && l < 256)
        l += ellipsis;
  } else {
    for (int64_t e = 0; e < ellipsis; ++e)
      out.push_back(256 + e);
    for (int c = 0; c < 256; ++c) {
      int uses = 0;
      for (const Labels &ls : labels)
        uses += llvm::count(ls, c);
      if (uses == 1)
        out.push_back(c);
    }
  }
  for (int64_t l : out)
    if (!sizes.count(l)) {
      reason = "an output label no operand has";
      return false;
    }
  Type element = n.outputTypes[0].getElementType();
  for (int64_t i = 0; i < count; ++i) {
    Labels keep = out;
    if (count == 2)
      llvm::append_range(keep, labels[1 - i]);
    values[i] = reduceTerm(n, values[i], labels[i], keep,
                           "operand_" + std::to_string(i));
  }
  Value v = values[0];
  Labels have = labels[0];
  if (count == 2) {
    Labels batch, left, right, contracted;
    for (int64_t l : labels[0]) {
      bool other = llvm::is_contained(labels[1], l);
      bool kept = llvm::is_contained(out, l);
      (other ? (kept ? batch : contracted) : left).push_back(l);
    }
    for (int64_t l : labels[1])
      if (!llvm::is_contained(labels[0], l))
        right.push_back(l);
    auto arrange = [&](int64_t i, ArrayRef<Labels> groups,
                       ArrayRef<int64_t> dims, const std::string &what) {
      SmallVector<int64_t> perm;
      for (const Labels &g : groups)
        for (int64_t l : g)
          perm.push_back(llvm::find(labels[i], l) - labels[i].begin());
      Value t = transposeUnlessIdentity(n, values[i], perm, what + "_order");
      return n.reshape(t, dims, what + "_grouped");
    };
    auto product = [&](const Labels &g) {
      int64_t p = 1;
      for (int64_t l : g)
        p *= sizes[l];
      return p;
    };
    int64_t nb = product(batch), nl = product(left), nr = product(right),
            nk = product(contracted);
    Value prod;
    if (nb == 1) {
      Value a = arrange(0, {batch, left, contracted}, {nl, nk}, "operand_0");
      Value b = arrange(1, {batch, contracted, right}, {nk, nr}, "operand_1");
      prod = n.op<MatmulOp>(RankedTensorType::get({nl, nr}, element), {a, b},
                            {}, "matmul");
    } else {
      Value a = arrange(0, {batch, left, contracted}, {nb, nl, nk, 1},
                        "operand_0");
      Value b = arrange(1, {batch, contracted, right}, {nb, 1, nk, nr},
                        "operand_1");
      Value m = n.op<MulOp>(RankedTensorType::get({nb, nl, nk, nr}, element),
                            {a, b}, {}, "products");
      prod = n.op<ReduceSumOp>(
          RankedTensorType::get({nb, nl, nr}, element), m,
          {n.named("axes", n.builder().getDenseI64ArrayAttr({2}))}, "sums");
    }
    have.clear();
    SmallVector<int64_t> shape;
    for (const Labels &g : {batch, left, right})
      for (int64_t l : g) {
        have.push_back(l);
        shape.push_back(sizes[l]);
      }
    v = n.reshape(prod, shape, "ungrouped");
  }
  SmallVector<int64_t> perm;
  for (int64_t l : out)
    perm.push_back(llvm::find(have, l) - have.begin());
  if (have.size() != out.size()) {
    reason = "labels left over";
    return false;
  }
  Value y = transposeUnlessIdentity(n, v, perm, "");
  if (y == v && v.getDefiningOp() && v.getType() == n.outputTypes[0]) {
    // The last op this node made yields the output: named after the node.
    v.getDefiningOp()->setAttr("name", n.builder().getStringAttr(n.name));
    results.push_back(v);
  } else {
    results.push_back(y != v ? y : n.op<IdentityOp>(n.outputTypes[0], v));
  }
  return true;
}

/// Det of 2x2 and 3x3 matrices (batched): the cofactor expansion, with
/// slices, mul, sub and add.
bool mapDet(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2) ||
      type.getDimSize(rank - 1) < 2 || type.getDimSize(rank - 1) > 3) {
    reason = "matrices other than 2x2 and 3x3 (gplace computes Det by "
             "cofactors)";
    return false;
  }
  int64_t size = type.getDimSize(rank - 1);
  Builder &b = n.builder();
  SmallVector<int64_t> batch(type.getShape().drop_back(2));
  auto batchType = RankedTensorType::get(batch, type.getElementType());
  SmallVector<int64_t> elementShape(batch);
  elementShape.push_back(1);
  elementShape.push_back(1);
  auto at = [&](int64_t i, int64_t j) {
    SmallVector<int64_t> begin(rank, 0);
    begin[rank - 2] = i;
    begin[rank - 1] = j;
    std::string s = "m" + std::to_string(i) + std::to_string(j);
    Value e = n.op<SliceOp>(
        RankedTensorType::get(elementShape, type.getElementType()), n.input(0),
        {n.named("begin", b.getDenseI64ArrayAttr(begin)),
         n.named("size", b.getDenseI64ArrayAttr(elementShape))},
        s);
    return n.reshape(e, batch, s + "_scalar");
  };
  auto mul = [&](Value x, Value y, const std::string &s) {
    return n.op<MulOp>(batchType, {x, y}, {}, s);
  };
  auto minor = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                   const std::string &s, bool last) {
    Value ad = mul(at(r0, c0), at(r1, c1), s + "_ad");
    Value bc = mul(at(r0, c1), at(r1, c0), s + "_bc");
    return n.op<SubOp>(batchType, {ad, bc}, {}, last ? "" : s);
  };
  if (size == 2) {
    results.push_back(minor(0, 1, 0, 1, "det", true));
    return true;
  }
  Value t0 = mul(at(0, 0), minor(1, 2, 1, 2, "minor0", false), "term0");
  Value t1 = mul(at(0, 1), minor(1, 2, 0, 2, "minor1", false), "term1");
  Value t2 = mul(at(0, 2), minor(1, 2, 0, 1, "minor2", false), "term2");
  Value d = n.op<SubOp>(batchType, {t0, t1}, {}, "difference");
  results.push_back(n.op<AddOp>(batchType, {d, t2}));
  return true;
}

/// The DFT of each row of `re` (and `im`, null for a real signal),
/// [rows, n]: the first `frequencies` frequencies as [rows, frequencies,
/// 2] (real, imaginary), by matmuls with constant cos and sin matrices
/// (1/n and the sines' sign flipped for the inverse).
Value dftRows(Node &n, Value re, Value im, int64_t frequencies, bool inverse) {
  Builder &b = n.builder();
  auto rowsType = cast<RankedTensorType>(re.getType());
  Type element = rowsType.getElementType();
  int64_t rows = rowsType.getDimSize(0), size = rowsType.getDimSize(1);
  bool complex = static_cast<bool>(im);
  double scale = inverse ? 1.0 / size : 1.0;
  auto matrix = [&](bool sine, double sign, const std::string &s) {
    SmallVector<Attribute> values;
    for (int64_t j = 0; j < size; ++j)
      for (int64_t k = 0; k < frequencies; ++k) {
        double theta = 2 * M_PI * static_cast<double>((j * k) % size) / size;
        double v = sine ? std::sin(theta) : std::cos(theta);
        if (std::fabs(v) < 1e-12) // Exact zeros at the quarter turns.
          v = 0;
        values.push_back(b.getFloatAttr(element, sign * scale * v));
      }
    return n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({size, frequencies}, element), values),
        s);
  };
  auto outType = RankedTensorType::get({rows, frequencies}, element);
  auto product = [&](Value v, Value m, const std::string &s) {
    return n.op<MatmulOp>(outType, {v, m}, {}, s);
  };
  // Forward: re' = re C + im S, im' = im C - re S; inverse: the sines'
  // signs flipped, everything over n.
  Value cosines = matrix(false, 1, "cos");
  double sineSign = inverse ? -1 : 1;
  Value sines = matrix(true, sineSign, "sin");
  Value yRe = product(re, cosines, "real_cos");
  Value yIm = n.op<NegOp>(outType, product(re, sines, "real_sin"), {},
                          "real_sin_neg");
  if (complex) {
    yRe = n.op<AddOp>(outType, {yRe, product(im, sines, "imaginary_sin")}, {},
                      "real_part");
    yIm = n.op<AddOp>(outType, {product(im, cosines, "imaginary_cos"), yIm},
                      {}, "imaginary_part");
  }
  auto pairType = RankedTensorType::get({rows, frequencies, 1}, element);
  Value pair = n.importer.b.create<ConcatOp>(
      n.loc, RankedTensorType::get({rows, frequencies, 2}, element),
      ValueRange{n.reshape(yRe, pairType.getShape(), "real_column"),
                 n.reshape(yIm, pairType.getShape(), "imaginary_column")},
      b.getI64IntegerAttr(2), StringAttr(),
      b.getStringAttr(n.name + "/complex"), StringAttr(), ValueRange());
  return pair;
}

/// DFT (opset 17) along `axis`: matmuls by constant cos and sin matrices
/// (1/n and the sign of the sines for the inverse), the real and imaginary
/// parts joined by concat; `onesided` keeps the first n/2 + 1 frequencies.
/// dft_length must be absent.
bool mapDFT(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  if (n.opset < 17 || n.hasInput(1) || rank < 3 ||
      (type.getShape().back() != 1 && type.getShape().back() != 2)) {
    reason = "dft_length, an opset before 17, or an input that is not "
             "[..., n, 1 or 2]";
    return false;
  }
  int64_t axis = n.getInt("axis", 1);
  if (!normalizeAxis(axis, rank - 1, reason))
    return false;
  bool inverse = n.getInt("inverse", 0) != 0;
  bool onesided = n.getInt("onesided", 0) != 0;
  if (inverse && onesided) {
    reason = "inverse with onesided";
    return false;
  }
  Builder &b = n.builder();
  Type element = type.getElementType();
  bool complex = type.getShape().back() == 2;
  int64_t size = type.getDimSize(axis);
  int64_t frequencies = onesided ? size / 2 + 1 : size;
  // [others..., n, c] with the signal axis just before the last.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  Value x = n.input(0);
  bool moved = axis != rank - 2;
  if (moved)
    x = n.transpose(x, perm, "signal_last");
  auto movedType = cast<RankedTensorType>(x.getType());
  int64_t rows = type.getNumElements() / (size * type.getShape().back());
  auto part = [&](int64_t c, const std::string &s) {
    if (!complex)
      return n.reshape(x, {rows, size}, s + "_rows");
    SmallVector<int64_t> begin(rank, 0), sizes(movedType.getShape());
    begin[rank - 1] = c;
    sizes[rank - 1] = 1;
    Value v = n.op<SliceOp>(RankedTensorType::get(sizes, element), x,
                            {n.named("begin", b.getDenseI64ArrayAttr(begin)),
                             n.named("size", b.getDenseI64ArrayAttr(sizes))},
                            s);
    return n.reshape(v, {rows, size}, s + "_rows");
  };
  Value re = part(0, "real");
  Value im = complex ? part(1, "imaginary") : Value();
  Value pair = dftRows(n, re, im, frequencies, inverse);
  SmallVector<int64_t> movedOut(movedType.getShape());
  movedOut[rank - 2] = frequencies;
  movedOut[rank - 1] = 2;
  if (!moved) {
    if (pair.getType() == n.outputTypes[0]) {
      pair.getDefiningOp()->setAttr("name", b.getStringAttr(n.name));
      results.push_back(pair);
    } else {
      results.push_back(n.op<ReshapeOp>(n.outputTypes[0], pair));
    }
    return true;
  }
  Value unrows = n.reshape(pair, movedOut, "unrows");
  SmallVector<int64_t> inv(rank);
  for (int64_t i = 0; i < rank; ++i)
    inv[perm[i]] = i;
  results.push_back(n.transpose(unrows, inv));
  return true;
}

/// STFT (opset 17): the signal [batch, length, 1 or 2] cut into frames of
/// frame_length (or the window's length) every frame_step (both known at
/// import time) by a `gather` at constant indices, times the window, and
/// each frame's DFT (dftRows): [batch, frames, frequencies, 2], the first
/// frame_length / 2 + 1 frequencies when `onesided` (the default).
bool mapSTFT(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (n.opset < 17 || !type || type.getRank() != 3 ||
      (type.getDimSize(2) != 1 && type.getDimSize(2) != 2)) {
    reason = "an opset before 17, or a signal that is not [batch, length, "
             "1 or 2]";
    return false;
  }
  auto intInput = [&](int i) -> std::optional<int64_t> {
    std::optional<DenseElementsAttr> c = n.constant(i);
    if (!c || c->getNumElements() != 1 ||
        !isa<IntegerType>(c->getElementType()))
      return std::nullopt;
    return (*c->getValues<APInt>().begin()).getSExtValue();
  };
  std::optional<int64_t> step = intInput(1);
  if (!step || *step < 1) {
    reason = "a frame_step that is not a positive integer known at import "
             "time";
    return false;
  }
  RankedTensorType window = n.hasInput(2) ? n.inputType(2) : nullptr;
  std::optional<int64_t> frameLength;
  if (n.hasInput(3) && !(frameLength = intInput(3))) {
    reason = "a frame_length not known at import time";
    return false;
  }
  if (window && (window.getRank() != 1 ||
                 (frameLength && *frameLength != window.getDimSize(0)))) {
    reason = "a window that is not [frame_length]";
    return false;
  }
  if (window)
    frameLength = window.getDimSize(0);
  int64_t batch = type.getDimSize(0), length = type.getDimSize(1);
  if (!frameLength || *frameLength < 1 || *frameLength > length) {
    reason = "no window or frame_length, or a frame longer than the signal";
    return false;
  }
  int64_t frames = (length - *frameLength) / *step + 1;
  bool onesided = n.getInt("onesided", 1) != 0;
  int64_t frequencies = onesided ? *frameLength / 2 + 1 : *frameLength;
  int64_t channels = type.getDimSize(2);
  Type element = type.getElementType();
  Builder &b = n.builder();
  SmallVector<int64_t> indices;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < *frameLength; ++j)
      indices.push_back(f * *step + j);
  Value framesIndices = n.constant(
      DenseElementsAttr::get(
          RankedTensorType::get({frames, *frameLength}, b.getI64Type()),
          ArrayRef<int64_t>(indices)),
      "frame_indices");
  auto framedType =
      RankedTensorType::get({batch, frames, *frameLength, channels}, element);
  Value framed = n.op<GatherOp>(framedType, {n.input(0), framesIndices},
                                {n.named("axis", b.getI64IntegerAttr(1))},
                                "frames");
  if (window) {
    if (window.getElementType() != element) {
      reason = "a window of another element type than the signal";
      return false;
    }
    Value w = n.reshape(n.input(2), {1, 1, *frameLength, 1}, "window");
    framed = n.op<MulOp>(framedType, {framed, w}, {}, "windowed");
  }
  int64_t rows = batch * frames;
  auto part = [&](int64_t c, const std::string &s) {
    Value v = framed;
    if (channels == 2) {
      SmallVector<int64_t> begin = {0, 0, 0, c},
                           sizes = {batch, frames, *frameLength, 1};
      v = n.op<SliceOp>(RankedTensorType::get(sizes, element), framed,
                        {n.named("begin", b.getDenseI64ArrayAttr(begin)),
                         n.named("size", b.getDenseI64ArrayAttr(sizes))},
                        s);
    }
    return n.reshape(v, {rows, *frameLength}, s + "_rows");
  };
  Value re = part(0, "real");
  Value im = channels == 2 ? part(1, "imaginary") : Value();
  Value pair = dftRows(n, re, im, frequencies, /*inverse=*/false);
  auto result = RankedTensorType::get({batch, frames, frequencies, 2}, element);
  if (result != n.outputTypes[0]) {
    reason = "an output shape other than [batch, frames, frequencies, 2]";
    return false;
  }
  results.push_back(n.op<ReshapeOp>(result, pair));
  return true;
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
  table["Abs"] = mapAbs;
  table["Add"] = mapBinary<AddOp>;
  table["And"] = mapBinary<LogicalAndOp>;
  table["ArgMax"] = mapArgMax<false>;
  table["ArgMin"] = mapArgMax<true>;
  table["Clip"] = mapClip;
  table["DFT"] = floatInput<mapDFT>;
  table["STFT"] = floatInput<mapSTFT>;
  table["Det"] = floatInput<mapDet>;
  table["Div"] = mapBinary<DivOp>;
  table["Einsum"] = mapEinsum;
  table["Elu"] = floatInput<mapElu<false>>;
  table["Exp"] = mapUnary<ExpOp>;
  table["Gemm"] = mapGemm;
  table["HardSigmoid"] = floatInput<mapHardSigmoid>;
  table["LeakyRelu"] = floatInput<mapLeakyRelu>;
  table["Log"] = mapUnary<LogOp>;
  table["LogSoftmax"] = floatInput<mapSoftmax<true>>;
  table["MatMul"] = mapMatMul;
  table["Max"] = mapVariadic<MaxKind>;
  table["Mean"] = floatInput<mapVariadic<MeanKind>>;
  table["Min"] = mapVariadic<MinKind>;
  table["Mul"] = mapBinary<MulOp>;
  table["Neg"] = mapUnary<NegOp>;
  table["Not"] = mapUnary<LogicalNotOp>;
  table["Or"] = mapBinary<LogicalOrOp>;
  table["PRelu"] = floatInput<mapPRelu>;
  table["Pow"] = mapPow;
  table["Reciprocal"] = floatInput<mapReciprocal>;
  table["ReduceL1"] = mapReduce<ReduceKind::L1>;
  table["ReduceL2"] = mapReduce<ReduceKind::L2>;
  table["ReduceLogSum"] = mapReduce<ReduceKind::LogSum>;
  table["ReduceLogSumExp"] = mapReduce<ReduceKind::LogSumExp>;
  table["ReduceMax"] = mapReduce<ReduceKind::Max>;
  table["ReduceMean"] = mapReduce<ReduceKind::Mean>;
  table["ReduceMin"] = mapReduce<ReduceKind::Min>;
  table["ReduceProd"] = mapReduce<ReduceKind::Prod>;
  table["ReduceSum"] = mapReduce<ReduceKind::Sum>;
  table["ReduceSumSquare"] = mapReduce<ReduceKind::SumSquare>;
  table["Relu"] = mapUnary<ReluOp>;
  table["Selu"] = floatInput<mapElu<true>>;
  table["Sigmoid"] = mapUnary<SigmoidOp>;
  table["Softmax"] = mapSoftmax<false>;
  table["Sqrt"] = mapUnary<SqrtOp>;
  table["Softplus"] = floatInput<mapSoftplus>;
  table["Sub"] = mapBinary<SubOp>;
  table["Sum"] = mapVariadic<SumKind>;
  table["Tanh"] = mapUnary<TanhOp>;
}

} // namespace gplace::frontend::onnx_import
