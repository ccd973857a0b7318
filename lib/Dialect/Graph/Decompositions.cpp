//===- Decompositions.cpp - composite ops into ops with kernels -----------===//
//
// The decompositions of the composite graph ops (Graph_Composite,
// dialects/graph/GraphCompositeOps.td), written once here for every
// frontend: the ONNX importer maps Elu, Selu, HardSigmoid, Gemm,
// LayerNormalization, LogSoftmax (and Softmax before opset 13), Celu,
// HardSwish, ThresholdedRelu and Shrink to these ops
// and applies the patterns, --gplace-decompose applies them to any graph.
// Each new op is built with graph::buildOp (its result type inferred, or
// given for cast and reshape), named `<name>/<part>` after the composite,
// the last one taking the composite's name, and carries its device request
// and other attributes. The parts and their names are those the importer
// built before the composites existed, so that an imported model computes
// the same values with the same op names.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace gplace::graph;

namespace {

/// Builds the ops of one decomposition of `composite`.
class Parts {
public:
  Parts(PatternRewriter &rewriter, Operation *composite)
      : rewriter(rewriter), composite(composite),
        name(composite->getAttrOfType<StringAttr>("name").getValue()) {}

  /// An OpT of `operands` named `<name>/<part>` (`part` empty: `<name>`),
  /// of result type `type` (null: the one OpT's rule infers).
  template <typename OpT>
  Value op(ValueRange operands, llvm::StringRef part,
           ArrayRef<NamedAttribute> attributes = {}, Type type = {}) {
    SmallVector<NamedAttribute> attrs(attributes);
    attrs.append(inherited());
    attrs.push_back(named(part));
    return buildOp<OpT>(rewriter, composite->getLoc(), operands, attrs,
                        type ? TypeRange{type} : TypeRange{})
        ->getResult(0);
  }

  /// A scalar constant of `like`'s element type (an integer one truncates
  /// `value`), named `<name>/<part>`.
  Value scalar(Value like, double value, llvm::StringRef part) {
    auto type = RankedTensorType::get({}, getElementTypeOrSelf(like.getType()));
    SmallVector<NamedAttribute> attrs = {named(part)};
    attrs.append(inherited());
    return buildSplatConstant(rewriter, composite->getLoc(), type, value, attrs);
  }

  /// `keep_dims` reduction attributes over the dimensions of `x` from
  /// `first` on (-1: the last dimension).
  SmallVector<NamedAttribute> axesFrom(Value x, int64_t first = -1) {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<int64_t> axes;
    for (int64_t d = first < 0 ? rank - 1 : first; d < rank; ++d)
      axes.push_back(d);
    return {rewriter.getNamedAttr("axes", rewriter.getDenseI64ArrayAttr(axes)),
            rewriter.getNamedAttr("keep_dims", rewriter.getUnitAttr())};
  }

  /// `v` reshaped to `shape` (`v` itself if it has that shape).
  Value reshape(Value v, ArrayRef<int64_t> shape, llvm::StringRef part) {
    auto type = RankedTensorType::get(shape, getElementTypeOrSelf(v.getType()));
    return type == v.getType() ? v : op<ReshapeOp>(v, part, {}, type);
  }

  /// min(a, b) as -max(-a, -b) (no minimum op), its parts named
  /// `<part>neg_a`, `<part>neg_b`, `<part>max` and the last `<part>`.
  Value minimum(Value a, Value b, llvm::StringRef part) {
    Value na = op<NegOp>(a, (part + "neg_a").str());
    Value nb = op<NegOp>(b, (part + "neg_b").str());
    return op<NegOp>(op<MaximumOp>({na, nb}, (part + "max").str()), part);
  }

private:
  NamedAttribute named(llvm::StringRef part) {
    std::string full = part.empty() ? name.str() : (name + "/" + part).str();
    return rewriter.getNamedAttr("name", rewriter.getStringAttr(full));
  }
  /// The composite's device request and its attributes that are not its
  /// own (colocation), which every part keeps.
  SmallVector<NamedAttribute> inherited() {
    SmallVector<NamedAttribute> attrs;
    if (Attribute device = composite->getAttr("device"))
      attrs.push_back(rewriter.getNamedAttr("device", device));
    for (NamedAttribute attr : composite->getDiscardableAttrs())
      attrs.push_back(attr);
    return attrs;
  }

  PatternRewriter &rewriter;
  Operation *composite;
  StringRef name;
};

/// relu(x) + alpha * (exp(-relu(-x)) - 1), named as the importer's Elu was.
Value buildElu(Parts &p, Value x, double alpha, llvm::StringRef last) {
  Value positive = p.op<ReluOp>(x, "positive");
  Value negated = p.op<NegOp>(x, "negative_neg");
  Value negative = p.op<ReluOp>(negated, "negative");
  Value minimum = p.op<NegOp>(negative, "minimum");
  Value exp = p.op<ExpOp>(minimum, "exp");
  Value expm1 = p.op<SubOp>({exp, p.scalar(x, 1.0, "one")}, "expm1");
  Value scaled =
      p.op<MulOp>({expm1, p.scalar(x, alpha, "alpha")}, "scaled");
  return p.op<AddOp>({positive, scaled}, last);
}

/// Composite ops must be named before they decompose.
LogicalResult named(Operation *op, PatternRewriter &rewriter) {
  if (op->getAttrOfType<StringAttr>("name"))
    return success();
  return rewriter.notifyMatchFailure(op, "unnamed");
}

struct DecomposeElu : OpRewritePattern<EluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EluOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    rewriter.replaceOp(
        op, buildElu(p, op.getInput(), op.getAlpha().convertToDouble(), ""));
    return success();
  }
};

struct DecomposeSelu : OpRewritePattern<SeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SeluOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput();
    Value elu = buildElu(p, x, op.getAlpha().convertToDouble(), "elu");
    rewriter.replaceOp(
        op, p.op<MulOp>(
                {elu, p.scalar(x, op.getGamma().convertToDouble(), "gamma")},
                ""));
    return success();
  }
};

/// `prefix/part`, or `part` with no prefix (`part` empty: `prefix`).
std::string scoped(llvm::StringRef prefix, llvm::StringRef part) {
  if (prefix.empty() || part.empty())
    return (prefix + part).str();
  return (prefix + "/" + part).str();
}

/// x - max - log(sum(exp(x - max))) over the last dimension, its parts
/// named `<prefix>/max`, ... and the last `<prefix>`.
Value buildLogSoftmax(Parts &p, Value x, llvm::StringRef prefix) {
  Value max = p.op<ReduceMaxOp>(x, scoped(prefix, "max"), p.axesFrom(x));
  Value shifted = p.op<SubOp>({x, max}, scoped(prefix, "shifted"));
  Value exp = p.op<ExpOp>(shifted, scoped(prefix, "exp"));
  Value sum = p.op<ReduceSumOp>(exp, scoped(prefix, "sum"), p.axesFrom(x));
  Value logSum = p.op<LogOp>(sum, scoped(prefix, "log"));
  return p.op<SubOp>({shifted, logSum}, prefix);
}

struct DecomposeLogSoftmax : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput();
    if (cast<RankedTensorType>(x.getType()).getRank() == 0)
      return rewriter.notifyMatchFailure(op, "a scalar");
    rewriter.replaceOp(op, buildLogSoftmax(p, x, ""));
    return success();
  }
};

/// softmax_2d and log_softmax_2d: reshape to [rows, columns] at `axis`, the
/// op over the last dimension (`<name>/Softmax` or `<name>/LogSoftmax`),
/// reshape back; an input of that shape is not reshaped.
template <typename OpT, bool Log>
struct DecomposeCoercedSoftmax : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank(), axis = static_cast<int64_t>(op.getAxis());
    if (rank == 0 || axis < -rank || axis >= rank)
      return rewriter.notifyMatchFailure(op, "no such axis");
    if (axis < 0)
      axis += rank;
    int64_t rows = 1, columns = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? rows : columns) *= type.getDimSize(d);
    Parts p(rewriter, op);
    auto softmax = [&](Value v, llvm::StringRef part) {
      return Log ? buildLogSoftmax(p, v, part) : p.op<SoftmaxOp>(v, part);
    };
    if (type.getShape() == ArrayRef<int64_t>{rows, columns}) {
      rewriter.replaceOp(op, softmax(x, ""));
      return success();
    }
    Value flat = p.reshape(x, {rows, columns}, "coerced");
    Value y = softmax(flat, Log ? "LogSoftmax" : "Softmax");
    rewriter.replaceOp(op, p.reshape(y, type.getShape(), ""));
    return success();
  }
};

struct DecomposeHardSigmoid : OpRewritePattern<HardSigmoidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HardSigmoidOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput();
    Value ax = p.op<MulOp>(
        {x, p.scalar(x, op.getAlpha().convertToDouble(), "alpha")}, "mul");
    Value axb = p.op<AddOp>(
        {ax, p.scalar(x, op.getBeta().convertToDouble(), "beta")}, "add");
    Value lower = p.op<MaximumOp>({axb, p.scalar(x, 0.0, "zero")}, "lower");
    rewriter.replaceOp(op, p.minimum(lower, p.scalar(x, 1.0, "one"), ""));
    return success();
  }
};

/// relu(x) + alpha * (exp(-relu(-x) / alpha) - 1): elu's parts, the
/// negative part divided by alpha (alpha 1 divides by nothing).
struct DecomposeCelu : OpRewritePattern<CeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CeluOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput();
    double alpha = op.getAlpha().convertToDouble();
    Value positive = p.op<ReluOp>(x, "positive");
    Value negated = p.op<NegOp>(x, "negative_neg");
    Value negative = p.op<ReluOp>(negated, "negative");
    Value minimum = p.op<NegOp>(negative, "minimum");
    if (alpha != 1)
      minimum = p.op<DivOp>({minimum, p.scalar(x, alpha, "alpha")}, "scaled_in");
    Value exp = p.op<ExpOp>(minimum, "exp");
    Value expm1 = p.op<SubOp>({exp, p.scalar(x, 1.0, "one")}, "expm1");
    if (alpha != 1)
      expm1 = p.op<MulOp>({expm1, p.scalar(x, alpha, "alpha_out")}, "scaled");
    rewriter.replaceOp(op, p.op<AddOp>({positive, expm1}, ""));
    return success();
  }
};

/// x * hard_sigmoid(x) with alpha 1/6 and beta 0.5.
struct DecomposeHardSwish : OpRewritePattern<HardSwishOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HardSwishOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput();
    Value ax = p.op<MulOp>({x, p.scalar(x, 1.0 / 6.0, "alpha")}, "mul");
    Value axb = p.op<AddOp>({ax, p.scalar(x, 0.5, "beta")}, "add");
    Value lower = p.op<MaximumOp>({axb, p.scalar(x, 0.0, "zero")}, "lower");
    // min(lower, 1) as -max(-lower, -1), its parts `gate_...`.
    Value na = p.op<NegOp>(lower, "gate_neg_a");
    Value nb = p.op<NegOp>(p.scalar(x, 1.0, "one"), "gate_neg_b");
    Value gate = p.op<NegOp>(p.op<MaximumOp>({na, nb}, "gate_max"), "gate");
    rewriter.replaceOp(op, p.op<MulOp>({x, gate}, ""));
    return success();
  }
};

/// select(greater(x, alpha), x, 0).
struct DecomposeThresholdedRelu : OpRewritePattern<ThresholdedReluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ThresholdedReluOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput();
    Value above = p.op<GreaterOp>(
        {x, p.scalar(x, op.getAlpha().convertToDouble(), "alpha")}, "above");
    rewriter.replaceOp(
        op, p.op<SelectOp>({above, x, p.scalar(x, 0.0, "zero")}, "", {},
                           x.getType()));
    return success();
  }
};

/// select(greater(-lambd, x), x + bias, select(greater(x, lambd), x - bias,
/// 0)).
struct DecomposeShrink : OpRewritePattern<ShrinkOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ShrinkOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput();
    double bias = op.getBias().convertToDouble(),
           lambd = op.getLambd().convertToDouble();
    Value below = p.op<GreaterOp>({p.scalar(x, -lambd, "neg_lambd"), x},
                                  "below");
    Value above =
        p.op<GreaterOp>({x, p.scalar(x, lambd, "lambd")}, "above");
    Value biasValue = p.scalar(x, bias, "bias");
    Value plus = p.op<AddOp>({x, biasValue}, "plus_bias");
    Value minus = p.op<SubOp>({x, biasValue}, "minus_bias");
    Value upper = p.op<SelectOp>({above, minus, p.scalar(x, 0.0, "zero")},
                                 "upper", {}, x.getType());
    rewriter.replaceOp(
        op, p.op<SelectOp>({below, plus, upper}, "", {}, x.getType()));
    return success();
  }
};

/// matmul (`<name>/MatMul`), times alpha (`<name>/mul_alpha`), plus c
/// times beta (`<name>/mul_beta`); what is 1 is not multiplied.
struct DecomposeGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value c = op.getC();
    double alpha = op.getAlpha().convertToDouble(),
           beta = op.getBeta().convertToDouble();
    SmallVector<NamedAttribute> flags;
    for (auto [flag, set] : {std::pair{"transpose_a", op.getTransposeA()},
                             std::pair{"transpose_b", op.getTransposeB()}})
      if (set)
        flags.push_back(rewriter.getNamedAttr(flag, rewriter.getUnitAttr()));
    bool last = !c && alpha == 1;
    Value y = p.op<MatmulOp>({op.getA(), op.getB()}, last ? "" : "MatMul",
                             flags);
    if (alpha != 1)
      y = p.op<MulOp>({y, p.scalar(y, alpha, "alpha")}, c ? "mul_alpha" : "");
    if (c) {
      if (beta != 1)
        c = p.op<MulOp>({c, p.scalar(y, beta, "beta")}, "mul_beta");
      y = p.op<AddOp>({y, c}, "");
    }
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// The mean and variance over the dimensions from `axis` on (in f32 for
/// f16 and bf16, cast there and back), normalized, then scaled and
/// shifted; the mean and 1 / sqrt(variance + epsilon) are results too.
struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(named(op, rewriter)))
      return failure();
    Parts p(rewriter, op);
    Value x = op.getInput(), scale = op.getScale(), bias = op.getBias();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank(), axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    // The statistics' element type (the verifier's rule).
    Type compute = getElementTypeOrSelf(op.getMean().getType());
    auto computeType = RankedTensorType::get(type.getShape(), compute);
    bool widened = computeType != type, affine = scale || bias;
    Value xc = widened ? p.op<CastOp>(x, "cast", {}, computeType) : x;
    Value mean = p.op<ReduceMeanOp>(xc, "mean", p.axesFrom(xc, axis));
    Value centered = p.op<SubOp>({xc, mean}, "centered");
    Value square = p.op<SquareOp>(centered, "square");
    Value variance =
        p.op<ReduceMeanOp>(square, "variance", p.axesFrom(square, axis));
    Value epsilon =
        p.scalar(variance, op.getEpsilon().convertToDouble(), "epsilon");
    Value shifted = p.op<AddOp>({variance, epsilon}, "shifted");
    Value stddev = p.op<SqrtOp>(shifted, "stddev");
    Value invStdDev =
        p.op<DivOp>({p.scalar(stddev, 1.0, "one"), stddev}, "inv_stddev");
    Value y = p.op<MulOp>({centered, invStdDev},
                          affine || widened ? "normalized" : "");
    if (widened)
      y = p.op<CastOp>(y, affine ? "cast_back" : "", {}, type);
    if (scale)
      y = p.op<MulOp>({y, scale}, bias ? "scaled" : "");
    if (bias)
      y = p.op<AddOp>({y, bias}, "");
    rewriter.replaceOp(op, {y, mean, invStdDev});
    return success();
  }
};

} // namespace

void gplace::graph::populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeElu, DecomposeSelu, DecomposeLogSoftmax,
               DecomposeCoercedSoftmax<Softmax2DOp, false>,
               DecomposeCoercedSoftmax<LogSoftmax2DOp, true>,
               DecomposeHardSigmoid, DecomposeGemm, DecomposeLayerNorm,
               DecomposeCelu, DecomposeHardSwish, DecomposeThresholdedRelu,
               DecomposeShrink>(
      patterns.getContext());
}
