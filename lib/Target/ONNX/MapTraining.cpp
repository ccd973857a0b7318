//===- MapTraining.cpp - ai.onnx.preview.training's ops -------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. The op types of the
// training domain (ai.onnx.preview.training, opset 1):
// - the optimizers Adagrad, Momentum and Adam: their update formulas as
//   elementwise ops, functions of their inputs (ONNX's training ops return
//   the new values; they write no variable);
// - Gradient: gplace.gradients.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include "gplace/Dialect/Graph/GraphBuilders.h"

#include <cmath>

namespace gplace::frontend::onnx_import {

namespace {

/// The training domain's optimizers (ai.onnx.preview.training, opset 1):
/// inputs R (the learning rate, a float scalar), T (the step count, an
/// int64 scalar), then `groups` lists of n tensors each (X..., G..., and
/// the optimizer's state); outputs the new X..., then the new states.
/// Their formulas are ONNX's reference (onnx/backend/test/case/node/
/// adagrad.py, momentum.py, adam.py), computed in each X's element type.
struct Optimizer {
  Node &n;
  int64_t count = 0; ///< n: the tensors optimized.

  /// Checks the input and output counts and the element types; false with
  /// `reason` if they do not fit.
  bool check(int groups, int outputGroups, std::string &reason) {
    int64_t inputs = n.numInputs() - 2;
    if (inputs <= 0 || inputs % groups != 0) {
      reason =
          "an input count that is not 2 + " + std::to_string(groups) + " x n";
      return false;
    }
    count = inputs / groups;
    if (n.proto.output_size() != outputGroups * count) {
      reason = "an output count that is not " + std::to_string(outputGroups) +
               " x n";
      return false;
    }
    for (int i = 0; i < n.numInputs(); ++i) {
      RankedTensorType type = n.hasInput(i) ? n.inputType(i) : nullptr;
      if (!type) {
        reason = "an omitted input";
        return false;
      }
      if (i == 1 ? !type.getElementType().isInteger(64) : !isFloat(type)) {
        reason =
            i == 1 ? "a step count T that is not int64" : "a non-float input";
        return false;
      }
      if (i < 2 && type.getRank() != 0) {
        reason = "a learning rate R or step count T that is not a scalar";
        return false;
      }
    }
    return true;
  }
  /// Input `i` of group `group` (0 for X, 1 for G, ...).
  Value input(int group, int64_t i) { return n.input(2 + group * count + i); }
  /// A rank-0 `value` of `like`'s element type.
  Value scalar(Value like, double value, const std::string &suffix) {
    return n.scalar(like.getType(), value, suffix);
  }
  /// Input `input` (R or T) as a rank-0 tensor of `like`'s element type.
  Value scalarInput(int input, Value like, const std::string &suffix) {
    Value v = n.input(input);
    Type element = cast<RankedTensorType>(like.getType()).getElementType();
    if (cast<RankedTensorType>(v.getType()).getElementType() == element)
      return v;
    return n.op<CastOp>(RankedTensorType::get({}, element), v, {}, suffix);
  }
  template <typename OpT>
  Value binary(Value a, Value b, const std::string &suffix) {
    return n.op<OpT>(n.broadcastType(a, b), {a, b}, {}, suffix);
  }
  /// `norm_coefficient * x + g`: the gradient with its L2 term's added.
  Value regularized(Value x, Value g, const std::string &tag) {
    float norm = n.getFloat("norm_coefficient", 0.0f);
    if (norm == 0.0f)
      return g;
    return binary<AddOp>(
        binary<MulOp>(scalar(x, norm, tag + "norm_coefficient"), x,
                      tag + "norm"),
        g, tag + "regularized");
  }
  /// Whether T > 0: ONNX's optimizers treat the first step (T = 0) apart.
  Value started() {
    Value t = n.input(1);
    return n.op<GreaterOp>(RankedTensorType::get({}, n.builder().getI1Type()),
                           {t, n.scalar(t.getType(), 0.0, "zero_step")}, {},
                           "started");
  }
  /// `cond ? a : b`, all of rank 0.
  Value select(Value cond, Value a, Value b, const std::string &suffix) {
    return n.op<SelectOp>(a.getType(), {cond, a, b}, {}, suffix);
  }
  /// The prefix of tensor i's helper ops' names: "i/".
  static std::string tag(int64_t i) { return std::to_string(i) + "/"; }
};

/// Adagrad: r' = R / (1 + T decay_factor); g' = norm_coefficient X + G;
/// H' = H + g'^2; X' = X - r' g' / (sqrt(H') + epsilon).
bool mapAdagrad(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Optimizer o{n};
  if (!o.check(3, 2, reason))
    return false;
  // The defaults are ONNX's schema's (onnx/defs/training/defs.cc).
  float decay = n.getFloat("decay_factor", 0.0f);
  float epsilon = n.getFloat("epsilon", 1e-6f);
  SmallVector<Value> xs, hs;
  for (int64_t i = 0; i < o.count; ++i) {
    std::string tag = Optimizer::tag(i);
    Value x = o.input(0, i), g = o.input(1, i), h = o.input(2, i);
    Value t = o.scalarInput(1, x, tag + "step");
    Value rate = o.binary<DivOp>(
        o.scalarInput(0, x, tag + "rate"),
        o.binary<AddOp>(o.scalar(x, 1.0, tag + "one"),
                        o.binary<MulOp>(t, o.scalar(x, decay, tag + "decay"),
                                        tag + "decayed"),
                        tag + "decay_denominator"),
        tag + "adjusted_rate");
    Value gr = o.regularized(x, g, tag);
    Value hNew = o.binary<AddOp>(h, o.binary<MulOp>(gr, gr, tag + "square"),
                                 tag + "h_new");
    Value root = o.binary<AddOp>(
        n.op<SqrtOp>(h.getType(), hNew, {}, tag + "sqrt"),
        o.scalar(x, epsilon, tag + "epsilon"), tag + "denominator");
    Value step = o.binary<DivOp>(o.binary<MulOp>(rate, gr, tag + "scaled"),
                                 root, tag + "step_size");
    xs.push_back(o.binary<SubOp>(x, step, tag + "x_new"));
    hs.push_back(hNew);
  }
  results.append(xs);
  results.append(hs);
  return true;
}

/// Momentum: g' = norm_coefficient X + G; b = beta, or 1 when T = 0;
/// V' = alpha V + b g'; X' = X - R V' (`standard`) or
/// X' = X - R (g' + alpha V') (`nesterov`).
bool mapMomentum(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  Optimizer o{n};
  if (!o.check(3, 2, reason))
    return false;
  std::string mode = n.getString("mode", "");
  if (mode != "standard" && mode != "nesterov") {
    reason = "mode '" + mode + "' (ONNX defines 'standard' and 'nesterov')";
    return false;
  }
  float alpha = n.getFloat("alpha", 0.0f), beta = n.getFloat("beta", 0.0f);
  Value started = o.started();
  SmallVector<Value> xs, vs;
  for (int64_t i = 0; i < o.count; ++i) {
    std::string tag = Optimizer::tag(i);
    Value x = o.input(0, i), g = o.input(1, i), v = o.input(2, i);
    Value gr = o.regularized(x, g, tag);
    Value b = o.select(started, o.scalar(x, beta, tag + "beta"),
                       o.scalar(x, 1.0, tag + "one"), tag + "beta_adjusted");
    Value a = o.scalar(x, alpha, tag + "alpha");
    Value vNew =
        o.binary<AddOp>(o.binary<MulOp>(a, v, tag + "decayed"),
                        o.binary<MulOp>(b, gr, tag + "scaled"), tag + "v_new");
    Value direction =
        mode == "standard"
            ? vNew
            : o.binary<AddOp>(gr, o.binary<MulOp>(a, vNew, tag + "lookahead"),
                              tag + "nesterov");
    Value rate = o.scalarInput(0, x, tag + "rate");
    xs.push_back(o.binary<SubOp>(
        x, o.binary<MulOp>(rate, direction, tag + "step_size"), tag + "x_new"));
    vs.push_back(vNew);
  }
  results.append(xs);
  results.append(vs);
  return true;
}

/// Adam: g' = norm_coefficient X + G; V' = alpha V + (1 - alpha) g';
/// H' = beta H + (1 - beta) g'^2; r' = R sqrt(1 - beta^T) / (1 - alpha^T),
/// or R when T = 0; X' = (1 - norm_coefficient_post)
/// (X - r' V' / (sqrt(H') + epsilon)). TensorFlow's ApplyAdam is this
/// update with both norm coefficients 0 (its epsilon also outside the
/// square root).
bool mapAdam(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Optimizer o{n};
  if (!o.check(4, 3, reason))
    return false;
  float alpha = n.getFloat("alpha", 0.9f), beta = n.getFloat("beta", 0.999f);
  float epsilon = n.getFloat("epsilon", 1e-6f);
  float post = n.getFloat("norm_coefficient_post", 0.0f);
  Value started = o.started();
  SmallVector<Value> xs, vs, hs;
  for (int64_t i = 0; i < o.count; ++i) {
    std::string tag = Optimizer::tag(i);
    Value x = o.input(0, i), g = o.input(1, i), v = o.input(2, i),
          h = o.input(3, i);
    Value gr = o.regularized(x, g, tag);
    Value one = o.scalar(x, 1.0, tag + "one");
    Value vNew = o.binary<AddOp>(
        o.binary<MulOp>(o.scalar(x, alpha, tag + "alpha"), v,
                        tag + "v_decayed"),
        o.binary<MulOp>(o.scalar(x, 1.0 - alpha, tag + "one_minus_alpha"), gr,
                        tag + "v_scaled"),
        tag + "v_new");
    Value hNew = o.binary<AddOp>(
        o.binary<MulOp>(o.scalar(x, beta, tag + "beta"), h, tag + "h_decayed"),
        o.binary<MulOp>(o.scalar(x, 1.0 - beta, tag + "one_minus_beta"),
                        o.binary<MulOp>(gr, gr, tag + "square"),
                        tag + "h_scaled"),
        tag + "h_new");
    // The bias correction. At T = 0 both powers are 1 and the quotient is
    // 0 / 0, which the select discards.
    Value t = o.scalarInput(1, x, tag + "step");
    Value alphaT =
        n.op<PowOp>(t.getType(), {o.scalar(x, alpha, tag + "alpha_base"), t},
                    {}, tag + "alpha_power");
    Value betaT =
        n.op<PowOp>(t.getType(), {o.scalar(x, beta, tag + "beta_base"), t}, {},
                    tag + "beta_power");
    Value rate = o.scalarInput(0, x, tag + "rate");
    Value corrected = o.binary<DivOp>(
        o.binary<MulOp>(
            rate,
            n.op<SqrtOp>(t.getType(),
                         o.binary<SubOp>(one, betaT, tag + "beta_bias"), {},
                         tag + "beta_bias_sqrt"),
            tag + "rate_scaled"),
        o.binary<SubOp>(one, alphaT, tag + "alpha_bias"),
        tag + "rate_corrected");
    Value adjusted = o.select(started, corrected, rate, tag + "adjusted_rate");
    Value root = o.binary<AddOp>(
        n.op<SqrtOp>(h.getType(), hNew, {}, tag + "sqrt"),
        o.scalar(x, epsilon, tag + "epsilon"), tag + "denominator");
    Value xNew = o.binary<SubOp>(
        x,
        o.binary<MulOp>(adjusted,
                        o.binary<DivOp>(vNew, root, tag + "direction"),
                        tag + "step_size"),
        tag + "x_updated");
    if (post != 0.0f)
      xNew = o.binary<MulOp>(o.scalar(x, 1.0 - post, tag + "post_decay"), xNew,
                             tag + "x_decayed");
    xs.push_back(xNew);
    vs.push_back(vNew);
    hs.push_back(hNew);
  }
  results.append(xs);
  results.append(vs);
  results.append(hs);
  return true;
}

} // namespace

/// ai.onnx.preview.training's Gradient: the gradients of the tensor named
/// `y` with respect to the tensors named `xs` (its inputs are the values of
/// `xs`, then of `zs`), as gplace.gradients (tf.gradients): the gradients
/// of sum(y), one output per x, of its type. gplace differentiates the
/// graph at the values it computes, so each input must be the tensor its
/// name in `xs` or `zs` says (ONNX's substitution of other values is
/// refused), `y` must be computed before the node, in the same graph or
/// subgraph as the node and its xs, and no x may be known at import time
/// (an initializer or a folded value: the paths from it to y may have been
/// folded away), but for a floating-point initializer imported as a
/// variable (--initializers-as-variables: its read is never folded); every
/// op on a path from an x to y must have a gradient.
bool mapGradient(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  auto strings = [&](llvm::StringRef attrName) {
    std::vector<std::string> list;
    if (const onnx::AttributeProto *a = n.attr(attrName))
      list.assign(a->strings().begin(), a->strings().end());
    return list;
  };
  std::vector<std::string> xs = strings("xs"), zs = strings("zs");
  std::string y = n.getString("y", "");
  if (xs.empty() || y.empty()) {
    reason = "no xs or no y";
    return false;
  }
  if (n.numInputs() != static_cast<int64_t>(xs.size() + zs.size())) {
    reason = "an input count that is not the count of xs and zs";
    return false;
  }
  if (n.proto.output_size() > static_cast<int>(xs.size())) {
    reason = "more outputs than xs";
    return false;
  }
  for (int i = 0; i < n.numInputs(); ++i) {
    const std::string &named =
        i < static_cast<int>(xs.size()) ? xs[i] : zs[i - xs.size()];
    if (n.proto.input(i) != named) {
      reason = "input #" + std::to_string(i) + " ('" + n.proto.input(i) +
               "') is not the tensor its attribute names ('" + named +
               "'): gplace computes gradients at the values the graph "
               "computes";
      return false;
    }
  }
  Importer &im = n.importer;
  Value target = im.values.lookup(y);
  if (!target) {
    reason = im.constants.count(y)
                 ? "y ('" + y + "') is known at import time"
                 : "y ('" + y + "') is not computed before the node";
    return false;
  }
  SmallVector<Value> operands{target};
  for (const std::string &x : xs) {
    // A floating-point initializer imported as a variable is read, never
    // folded: its gradient is the read's.
    bool variable = im.options.initializersAsVariables &&
                    im.initializers.count(x) && im.constants.count(x) &&
                    isFloat(im.constants.find(x)->second.getElementType());
    if (im.constants.count(x) && !variable) {
      reason = "x '" + x +
               "' is known at import time (an initializer or a "
               "folded value; --initializers-as-variables makes an "
               "initializer a variable)";
      return false;
    }
    Value v = variable ? im.materialize(x) : im.values.lookup(x);
    if (!v) {
      reason = "x '" + x + "' is not computed before the node";
      return false;
    }
    operands.push_back(v);
  }
  Region *region = im.b.getInsertionBlock()->getParent();
  for (Value v : operands) {
    if (!isFloat(v.getType())) {
      reason = "a tensor that is not a float";
      return false;
    }
    // A run-time If's or Loop's region reads outer tensors through block
    // arguments, which would cut the paths between them.
    if (v.getParentRegion() != region) {
      reason = "y or an x is outside the subgraph the node is in";
      return false;
    }
  }
  // Every placed op on a path from an x to y needs a gradient (or has none
  // by definition), as --gplace-differentiate requires: one without is an
  // unsupported form here, not a compile error later.
  Block &block = *im.b.getInsertionBlock();
  DenseSet<Operation *> path =
      getOpsBetween(block, ArrayRef<Value>(operands).drop_front(), target);
  for (Operation &each : block) {
    if (!path.contains(&each))
      continue; // (In block order: the first such op is named.)
    Operation *op = &each;
    auto placed = dyn_cast<PlacedOpInterface>(op);
    if (placed && llvm::any_of(op->getResultTypes(), isFloat) &&
        !op->hasTrait<graph::OpTrait::NotDifferentiable>() &&
        !isa<GradientOpInterface>(op)) {
      std::string opName = "an op";
      if (auto nameAttr = op->getAttrOfType<StringAttr>("name"))
        opName = "'" + nameAttr.str() + "'";
      reason = "no gradient for " + opName + " (" +
               placed.getTensorFlowType().str() + ") on the path from xs to y";
      return false;
    }
  }
  auto gradients = buildOp<GradientsOp>(
      im.b, n.loc, operands,
      {n.named(
           "operandSegmentSizes",
           im.b.getDenseI32ArrayAttr({1, static_cast<int32_t>(xs.size()), 0})),
       n.named("name", im.b.getStringAttr(n.name))});
  if (!gradients)
    return false;
  for (int i = 0; i < n.proto.output_size(); ++i) {
    // ONNX's shape inference has no rule for Gradient: an undeclared
    // output has its x's type.
    if (!n.outputTypes[i] && !n.proto.output(i).empty())
      n.outputTypes[i] =
          cast<RankedTensorType>(gradients->getResult(i).getType());
    results.push_back(gradients->getResult(i));
  }
  return true;
}

void addTrainingMappers(llvm::StringMap<MapFn> &table) {
  table["ai.onnx.preview.training.Adagrad"] = mapAdagrad;
  table["ai.onnx.preview.training.Adam"] = mapAdam;
  table["ai.onnx.preview.training.Gradient"] = mapGradient;
  table["ai.onnx.preview.training.Momentum"] = mapMomentum;
}

} // namespace gplace::frontend::onnx_import
