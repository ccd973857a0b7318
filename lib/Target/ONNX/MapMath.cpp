//===- MapMath.cpp - elementwise ops, contractions, reductions --------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

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
bool mapPow(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType base = n.inputType(0), exponent = n.inputType(1);
  if (!base || !exponent || !isFloat(base) ||
      base.getElementType() != exponent.getElementType()) {
    reason = "an exponent of another type than the base, or integers";
    return false;
  }
  results.push_back(n.op<PowOp>(n.outputTypes[0], {n.input(0), n.input(1)}));
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

/// PRelu: relu(x) - slope * relu(-x), the slope broadcast to x.
bool mapPRelu(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value x = n.input(0), slope = n.input(1);
  RankedTensorType out = n.outputTypes[0];
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
bool batchedMatMul(Node &n, SmallVectorImpl<Value> &results,
                   std::string &reason) {
  Value a = n.input(0), b = n.input(1);
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() < 2) {
    reason = "a rank-1 left operand with a batched right one";
    return false;
  }
  ArrayRef<int64_t> batchA = ta.getShape().drop_back(2);
  ArrayRef<int64_t> batchB = tb.getShape().drop_back(2);
  std::optional<std::vector<int64_t>> batch = broadcastShapes(batchA, batchB);
  if (!batch) {
    reason = "batch dimensions that do not broadcast";
    return false;
  }
  int64_t count = 1;
  for (int64_t d : *batch)
    count *= d;
  if (count > 256) {
    reason = "more than 256 batched products";
    return false;
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
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], joined));
  return true;
}

/// MatMul: rank 2 directly; a rank-1 operand as a row or a column; a
/// higher-rank left operand against a rank-2 right one as one product over
/// its rows (numpy's matmul).
bool mapMatMul(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value a = n.input(0), b = n.input(1);
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() == 0 || tb.getRank() == 0) {
    reason = "a scalar operand";
    return false;
  }
  if (tb.getRank() > 2)
    return batchedMatMul(n, results, reason);
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
  bool direct = productType == n.outputTypes[0];
  Value product =
      n.op<MatmulOp>(productType, {a, b}, {}, direct ? "" : "MatMul");
  results.push_back(direct ? product
                           : n.reshape(product, n.outputTypes[0].getShape()));
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
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
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
  Sum, Mean, Max, Min, SumSquare, L1, L2, LogSum, LogSumExp
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
  if (n.getInt("select_last_index", 0)) {
    reason = "select_last_index = 1";
    return false;
  }
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, type.getRank(), reason))
    return false;
  if (Min)
    x = n.op<NegOp>(type, x, {}, "neg");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != axis)
      shape.push_back(type.getDimSize(d));
  auto removed = RankedTensorType::get(shape, n.outputTypes[0].getElementType());
  bool keep = n.getInt("keepdims", 1);
  Value y = n.op<ArgMaxOp>(removed, x,
                           {n.named("axis", n.builder().getI64IntegerAttr(axis))},
                           keep ? "ArgMax" : "");
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
  table["Div"] = mapBinary<DivOp>;
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
