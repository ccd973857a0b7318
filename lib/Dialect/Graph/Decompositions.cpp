//===- Decompositions.cpp - composite ops into ops with kernels -----------===//
//
// The decompositions of the composite graph ops (Graph_Composite), written
// once here for every frontend: the ONNX importer maps Elu, Selu and
// LogSoftmax to these ops and applies the patterns, --gplace-decompose
// applies them to any graph. Each new op is built with graph::buildOp (its
// result type inferred), named `<name>/<part>` after the composite, the
// last one taking the composite's name, and carries its device request and
// other attributes.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"

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

  /// An OpT of `operands` named `<name>/<part>` (`part` empty: `<name>`).
  template <typename OpT>
  Value op(ValueRange operands, llvm::StringRef part,
           ArrayRef<NamedAttribute> attributes = {}) {
    SmallVector<NamedAttribute> attrs(attributes);
    attrs.append(inherited());
    attrs.push_back(named(part));
    return buildOp<OpT>(rewriter, composite->getLoc(), operands, attrs)
        ->getResult(0);
  }

  /// A scalar constant of `like`'s element type, named `<name>/<part>`.
  Value scalar(Value like, double value, llvm::StringRef part) {
    Type element = getElementTypeOrSelf(like.getType());
    auto type = RankedTensorType::get({}, element);
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr(
            "value", DenseElementsAttr::get(
                         type, rewriter.getFloatAttr(element, value))),
        named(part)};
    attrs.append(inherited());
    return rewriter
        .create<ConstantOp>(composite->getLoc(), TypeRange{type}, ValueRange{},
                            attrs)
        ->getResult(0);
  }

  /// `keep_dims` reduction attributes over the last dimension of `x`.
  SmallVector<NamedAttribute> lastAxis(Value x) {
    int64_t last = cast<RankedTensorType>(x.getType()).getRank() - 1;
    return {rewriter.getNamedAttr("axes", rewriter.getDenseI64ArrayAttr({last})),
            rewriter.getNamedAttr("keep_dims", rewriter.getUnitAttr())};
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

/// x - max - log(sum(exp(x - max))) over the last dimension.
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
    Value max = p.op<ReduceMaxOp>(x, "max", p.lastAxis(x));
    Value shifted = p.op<SubOp>({x, max}, "shifted");
    Value exp = p.op<ExpOp>(shifted, "exp");
    Value sum = p.op<ReduceSumOp>(exp, "sum", p.lastAxis(x));
    Value logSum = p.op<LogOp>(sum, "log");
    rewriter.replaceOp(op, p.op<SubOp>({shifted, logSum}, ""));
    return success();
  }
};

} // namespace

void gplace::graph::populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeElu, DecomposeSelu, DecomposeLogSoftmax>(
      patterns.getContext());
}
