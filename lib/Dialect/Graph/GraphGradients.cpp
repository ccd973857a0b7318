//===- GraphGradients.cpp - each op's vector-Jacobian product -------------===//
//
// GradientOpInterface::buildGradients of every differentiable graph op:
// TensorFlow's gradient registry (math_grad.py, nn_grad.py, array_grad.py)
// written as graph ops. Each function receives the gradients of its op's
// results and builds the gradients of its data operands; broadcasting
// operands get the gradient summed over the dimensions they were stretched
// along. Integer operands get none.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "gplace/Support/Shape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <numeric>

using namespace mlir;
using namespace gplace::graph;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Builds graph ops at the builder's insertion point, at `loc`.
class Emitter {
public:
  Emitter(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  /// An OpT of `operands`; its result type `type`, or (null) the one the
  /// op's rule infers (buildOp).
  template <typename OpT>
  Value op(Type type, ValueRange operands,
           ArrayRef<NamedAttribute> attributes = {}) {
    return buildOp<OpT>(b, loc, operands, attributes,
                        type ? TypeRange{type} : TypeRange{})
        ->getResult(0);
  }

  /// A splat constant of `type` (a float tensor) holding `value`.
  Value constant(RankedTensorType type, double value) {
    return buildSplatConstant(b, loc, type, value);
  }
  /// A scalar constant of `like`'s element type.
  Value scalar(Value like, double value) {
    return constant(RankedTensorType::get({}, typeOf(like).getElementType()),
                    value);
  }

  Value reshape(Value v, ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, typeOf(v).getElementType());
    if (type == v.getType())
      return v;
    return op<ReshapeOp>(type, v);
  }

  /// `v` summed over `axes` (keeping none).
  Value reduceSum(Value v, ArrayRef<int64_t> axes, bool keepDims = false) {
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes))};
    if (keepDims)
      attrs.push_back(b.getNamedAttr("keep_dims", b.getUnitAttr()));
    return op<ReduceSumOp>(Type(), v, attrs);
  }

  /// The gradient `grad` of a broadcast result, summed back to `target`,
  /// the shape of the operand that was broadcast (TensorFlow's
  /// BroadcastGradientArgs followed by a sum and a reshape).
  Value sumToShape(Value grad, RankedTensorType target) {
    RankedTensorType type = typeOf(grad);
    if (type == target)
      return grad;
    int64_t lead = type.getRank() - target.getRank();
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d < lead || (target.getDimSize(d - lead) == 1 &&
                       type.getDimSize(d) != 1))
        axes.push_back(d);
    Value sum = axes.empty() ? grad : reduceSum(grad, axes);
    return reshape(sum, target.getShape());
  }

  Value broadcastTo(Value v, RankedTensorType type) {
    if (v.getType() == type)
      return v;
    return op<BroadcastToOp>(type, v);
  }

  Value addN(ArrayRef<Value> values) {
    if (values.size() == 1)
      return values.front();
    return b.create<AddNOp>(loc, values.front().getType(), values,
                            StringAttr(), StringAttr(), StringAttr(),
                            ValueRange());
  }

  template <typename OpT> Value binary(Value lhs, Value rhs) {
    return op<OpT>(Type(), ValueRange{lhs, rhs});
  }
  template <typename OpT> Value unary(Value x) { return op<OpT>(x.getType(), x); }

  Value matmul(Value a, Value b2, bool ta, bool tb) {
    SmallVector<NamedAttribute> attrs;
    if (ta)
      attrs.push_back(b.getNamedAttr("transpose_a", b.getUnitAttr()));
    if (tb)
      attrs.push_back(b.getNamedAttr("transpose_b", b.getUnitAttr()));
    return op<MatmulOp>(Type(), ValueRange{a, b2}, attrs);
  }

  OpBuilder &b;
  Location loc;
};

/// Operand gradients of a binary elementwise op whose broadcast-shaped
/// gradients are `dl` and `dr` (null for none).
void sumBinary(Emitter &e, Value lhs, Value rhs, Value dl, Value dr,
               SmallVectorImpl<Value> &out) {
  out.push_back(dl && isFloatTensor(lhs) ? e.sumToShape(dl, typeOf(lhs))
                                         : Value());
  out.push_back(dr && isFloatTensor(rhs) ? e.sumToShape(dr, typeOf(rhs))
                                         : Value());
}

/// The shape `input` has after reducing `axes` with keep_dims.
SmallVector<int64_t> keptShape(RankedTensorType input, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t axis : axes)
    shape[axis < 0 ? axis + input.getRank() : axis] = 1;
  return shape;
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise ops (math_grad.py).
//===----------------------------------------------------------------------===//

LogicalResult AddOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  sumBinary(e, getLhs(), getRhs(), dys[0], dys[0], out);
  return success();
}

LogicalResult SubOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  sumBinary(e, getLhs(), getRhs(), dys[0], e.unary<NegOp>(dys[0]), out);
  return success();
}

LogicalResult MulOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value dy = dys[0];
  sumBinary(e, getLhs(), getRhs(), e.binary<MulOp>(dy, getRhs()),
            e.binary<MulOp>(dy, getLhs()), out);
  return success();
}

LogicalResult DivOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  // d(x / y) = dy / y, -dy * (x / y) / y.
  Emitter e(b, getLoc());
  Value dy = dys[0];
  Value dl = e.binary<DivOp>(dy, getRhs());
  Value dr = e.unary<NegOp>(
      e.binary<MulOp>(dy, e.binary<DivOp>(getResult(), getRhs())));
  sumBinary(e, getLhs(), getRhs(), dl, dr, out);
  return success();
}

/// TensorFlow's _SelectGradV2: the gradient goes to `then` where the
/// condition holds and to `else` elsewhere (zeros in the other), each
/// summed back to its operand's shape; the condition has none.
LogicalResult SelectOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value dy = dys[0], condition = getCondition();
  Value zero = e.scalar(dy, 0.0);
  out.push_back(Value());
  sumBinary(e, getThenValue(), getElseValue(),
            e.op<SelectOp>(dy.getType(), ValueRange{condition, dy, zero}),
            e.op<SelectOp>(dy.getType(), ValueRange{condition, zero, dy}), out);
  return success();
}

LogicalResult MaximumOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  // TensorFlow's _MaximumGrad: the gradient goes to lhs where lhs >= rhs
  // (ties, two equal infinities included), else to rhs (a NaN on either
  // side included), chosen by select: an infinite gradient reaches only the
  // side it is chosen for.
  Emitter e(b, getLoc());
  Value dy = dys[0], lhs = getLhs(), rhs = getRhs();
  Value mask = e.op<GreaterEqualOp>(Type(), ValueRange{lhs, rhs});
  Value zero = e.scalar(dy, 0.0);
  sumBinary(e, lhs, rhs, e.op<SelectOp>(Type(), ValueRange{mask, dy, zero}),
            e.op<SelectOp>(Type(), ValueRange{mask, zero, dy}), out);
  return success();
}

/// TensorFlow's _PowGrad, for z = x^y: dz/dx = y * x^(y - 1), dz/dy = z *
/// log(x) where x > 0, else 0 (TensorFlow's where(x > 0, log(x), 0); here
/// relu_grad keeps log(max(x, the smallest normal)) where x > 0, so a
/// subnormal x counts as the smallest normal).
LogicalResult PowOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value x = getLhs(), y = getRhs(), dy = dys[0];
  Value dl = e.binary<MulOp>(
      dy, e.binary<MulOp>(
              y, e.binary<PowOp>(x, e.binary<SubOp>(y, e.scalar(y, 1.0)))));
  auto element = cast<FloatType>(typeOf(x).getElementType());
  double smallest = APFloat::getSmallestNormalized(element.getFloatSemantics())
                        .convertToDouble();
  Value logX = e.unary<LogOp>(e.binary<MaximumOp>(x, e.scalar(x, smallest)));
  Value dr = e.binary<MulOp>(
      dy, e.binary<MulOp>(getResult(), e.binary<ReluGradOp>(logX, x)));
  sumBinary(e, x, y, dl, dr, out);
  return success();
}

LogicalResult NegOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.unary<NegOp>(dys[0]));
  return success();
}

LogicalResult ExpOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<MulOp>(dys[0], getResult()));
  return success();
}

/// TensorFlow's SqrtGrad: dy * 0.5 / y.
LogicalResult SqrtOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<DivOp>(
      e.binary<MulOp>(dys[0], e.scalar(getResult(), 0.5)), getResult()));
  return success();
}

LogicalResult LogOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<DivOp>(dys[0], getInput()));
  return success();
}

LogicalResult TanhOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<TanhGradOp>(getResult(), dys[0]));
  return success();
}

LogicalResult SigmoidOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<SigmoidGradOp>(getResult(), dys[0]));
  return success();
}

LogicalResult ReluOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  // ReluGrad(dy, relu(x)): relu(x) > 0 exactly where x > 0.
  Emitter e(b, getLoc());
  out.push_back(isFloatTensor(getInput())
                    ? e.binary<ReluGradOp>(dys[0], getResult())
                    : Value());
  return success();
}

/// TensorFlow's _ReluGradGrad: relu_grad(dy, features) for the incoming
/// gradients; none for the features (a step function's derivative is 0
/// where it exists).
LogicalResult ReluGradOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                         SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value dl = isFloatTensor(getLhs()) ? e.binary<ReluGradOp>(dys[0], getRhs())
                                     : Value();
  sumBinary(e, getLhs(), getRhs(), dl, Value(), out);
  return success();
}

/// TensorFlow's _SigmoidGradGrad, for sigmoid_grad(y, dy) = dy * y * (1 -
/// y): d/dy = g * dy * (1 - 2y), d/d(dy) = sigmoid_grad(y, g).
LogicalResult SigmoidGradOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                            SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value y = getLhs(), g = dys[0];
  Value gb = e.binary<MulOp>(g, getRhs());
  Value dl = e.binary<SubOp>(
      gb, e.binary<MulOp>(e.binary<MulOp>(gb, e.scalar(gb, 2.0)), y));
  Value dr = e.binary<SigmoidGradOp>(y, g);
  sumBinary(e, getLhs(), getRhs(), dl, dr, out);
  return success();
}

/// TensorFlow's _TanhGradGrad, for tanh_grad(y, dy) = dy * (1 - y * y):
/// d/dy = g * -2 * dy * y, d/d(dy) = tanh_grad(y, g).
LogicalResult TanhGradOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                         SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value y = getLhs(), g = dys[0];
  Value dl = e.binary<MulOp>(
      e.binary<MulOp>(e.binary<MulOp>(g, e.scalar(g, -2.0)), getRhs()), y);
  Value dr = e.binary<TanhGradOp>(y, g);
  sumBinary(e, getLhs(), getRhs(), dl, dr, out);
  return success();
}

//===----------------------------------------------------------------------===//
// The trigonometric and hyperbolic functions, erf, sign, softsign and
// floor_mod (math_grad.py's _SinGrad ... _ErfGrad, _SignGrad,
// _FloorModGrad; nn_grad.py's _SoftsignGrad).
//===----------------------------------------------------------------------===//

namespace {
/// 1 - x * x, or 1 + x * x.
Value oneMinusSquare(Emitter &e, Value x, bool plus = false) {
  Value x2 = e.unary<SquareOp>(x);
  Value one = e.scalar(x, 1.0);
  return plus ? e.binary<AddOp>(one, x2) : e.binary<SubOp>(one, x2);
}
} // namespace

LogicalResult SinOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<MulOp>(dys[0], e.unary<CosOp>(getInput())));
  return success();
}

LogicalResult CosOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.unary<NegOp>(
      e.binary<MulOp>(dys[0], e.unary<SinOp>(getInput()))));
  return success();
}

/// dy * sec(x)^2, sec(x) = 1 / cos(x).
LogicalResult TanOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value x = getInput();
  Value sec = e.binary<DivOp>(e.scalar(x, 1.0), e.unary<CosOp>(x));
  out.push_back(e.binary<MulOp>(dys[0], e.unary<SquareOp>(sec)));
  return success();
}

/// dy / sqrt(1 - x^2).
LogicalResult AsinOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<DivOp>(
      dys[0], e.unary<SqrtOp>(oneMinusSquare(e, getInput()))));
  return success();
}

/// -dy / sqrt(1 - x^2).
LogicalResult AcosOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.unary<NegOp>(e.binary<DivOp>(
      dys[0], e.unary<SqrtOp>(oneMinusSquare(e, getInput())))));
  return success();
}

/// dy / (1 + x^2).
LogicalResult AtanOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(
      e.binary<DivOp>(dys[0], oneMinusSquare(e, getInput(), /*plus=*/true)));
  return success();
}

LogicalResult SinhOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<MulOp>(dys[0], e.unary<CoshOp>(getInput())));
  return success();
}

LogicalResult CoshOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<MulOp>(dys[0], e.unary<SinhOp>(getInput())));
  return success();
}

/// dy / cosh(y), y = asinh(x).
LogicalResult AsinhOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                      SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<DivOp>(dys[0], e.unary<CoshOp>(getResult())));
  return success();
}

/// dy / sinh(y), y = acosh(x).
LogicalResult AcoshOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                      SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<DivOp>(dys[0], e.unary<SinhOp>(getResult())));
  return success();
}

/// dy / (1 - x^2).
LogicalResult AtanhOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                      SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<DivOp>(dys[0], oneMinusSquare(e, getInput())));
  return success();
}

/// dy * 2 / sqrt(pi) * exp(-x^2).
LogicalResult ErfOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value x = getInput();
  Value gauss = e.unary<ExpOp>(e.unary<NegOp>(e.unary<SquareOp>(x)));
  Value scaled =
      e.binary<MulOp>(e.scalar(x, 1.1283791670955126), gauss); // 2/sqrt(pi)
  out.push_back(e.binary<MulOp>(dys[0], scaled));
  return success();
}

/// TensorFlow's _SignGrad: zeros of the operand's type (none for
/// integers).
LogicalResult SignOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(isFloatTensor(getInput())
                    ? e.constant(typeOf(getInput()), 0.0)
                    : Value());
  return success();
}

/// TensorFlow's _SoftsignGrad: softsign_grad(dy, x).
LogicalResult SoftsignOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                         SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.binary<SoftsignGradOp>(dys[0], getInput()));
  return success();
}

/// TensorFlow's _FloorModGrad: dy for x, -dy * floor(x / y) for y (its
/// floor_div on floats); integers get none.
LogicalResult FloorModOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                         SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  Value x = getLhs(), y = getRhs(), dy = dys[0];
  if (!isFloatTensor(x)) {
    out.append({Value(), Value()});
    return success();
  }
  Value floorDiv = e.unary<FloorOp>(e.binary<DivOp>(x, y));
  Value dr = e.unary<NegOp>(e.binary<MulOp>(dy, floorDiv));
  sumBinary(e, x, y, dy, dr, out);
  return success();
}

LogicalResult SquareOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  if (!isFloatTensor(getInput())) {
    out.push_back(Value());
    return success();
  }
  out.push_back(e.binary<MulOp>(
      dys[0], e.binary<MulOp>(getInput(), e.scalar(getInput(), 2.0))));
  return success();
}

LogicalResult AddNOp::buildGradients(OpBuilder &, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  for (Value input : getInputs())
    out.push_back(isFloatTensor(input) ? dys[0] : Value());
  return success();
}

LogicalResult BiasAddOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  // BiasAddGrad: the bias gets dy summed over every dimension but the last.
  Emitter e(b, getLoc());
  out.push_back(dys[0]);
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d + 1 < getValue().getType().getRank(); ++d)
    axes.push_back(d);
  out.push_back(e.reduceSum(dys[0], axes));
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix product, reductions, softmax, the loss.
//===----------------------------------------------------------------------===//

/// TensorFlow's _MatMulGrad, for each combination of transposes: the
/// gradients of `a` and `w` in `a x w` (each transposed as `ta`, `tb`).
static void matmulGradients(Emitter &e, Value dy, Value a, Value w, bool ta,
                            bool tb, SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(a)) {
    out.append({Value(), Value()});
    return;
  }
  if (!ta && !tb) {
    out.push_back(e.matmul(dy, w, false, true));
    out.push_back(e.matmul(a, dy, true, false));
  } else if (!ta && tb) {
    out.push_back(e.matmul(dy, w, false, false));
    out.push_back(e.matmul(dy, a, true, false));
  } else if (ta && !tb) {
    out.push_back(e.matmul(w, dy, false, true));
    out.push_back(e.matmul(a, dy, false, false));
  } else {
    out.push_back(e.matmul(w, dy, true, true));
    out.push_back(e.matmul(dy, a, true, true));
  }
}

LogicalResult MatmulOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  matmulGradients(e, dys[0], getLhs(), getRhs(), getTransposeA(),
                  getTransposeB(), out);
  return success();
}

LogicalResult MatmulAccumulateOp::buildGradients(OpBuilder &b,
                                                 ArrayRef<Value> dys,
                                                 SmallVectorImpl<Value> &out) {
  // The accumulator's gradient is dy; the product's, matmul's.
  Emitter e(b, getLoc());
  out.push_back(isFloatTensor(getAccumulator()) ? dys[0] : Value());
  matmulGradients(e, dys[0], getLhs(), getRhs(), getTransposeA(),
                  getTransposeB(), out);
  return success();
}

/// dy of a reduction over `axes`, broadcast back to the input's shape.
static Value broadcastReduced(Emitter &e, Value dy, RankedTensorType input,
                              ArrayRef<int64_t> axes) {
  return e.broadcastTo(e.reshape(dy, keptShape(input, axes)), input);
}

LogicalResult ReduceSumOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(isFloatTensor(getInput())
                    ? broadcastReduced(e, dys[0], getInput().getType(),
                                       getAxes())
                    : Value());
  return success();
}

LogicalResult ReduceMeanOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                           SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  RankedTensorType input = getInput().getType();
  if (!isFloatTensor(getInput())) {
    out.push_back(Value());
    return success();
  }
  int64_t count = 1;
  for (int64_t axis : getAxes())
    count *= input.getDimSize(axis < 0 ? axis + input.getRank() : axis);
  Value scaled = e.binary<MulOp>(
      dys[0], e.scalar(dys[0], count ? 1.0 / static_cast<double>(count) : 0));
  out.push_back(broadcastReduced(e, scaled, input, getAxes()));
  return success();
}

LogicalResult ReduceMaxOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          SmallVectorImpl<Value> &out) {
  // TensorFlow's _MinOrMaxGrad: the gradient is shared equally by the
  // elements equal to the maximum.
  Emitter e(b, getLoc());
  RankedTensorType input = getInput().getType();
  if (!isFloatTensor(getInput())) {
    out.push_back(Value());
    return success();
  }
  Value y = broadcastReduced(e, getResult(), input, getAxes());
  Value equal = e.op<EqualOp>(Type(), ValueRange{getInput(), y});
  Value indicators = e.op<CastOp>(input, equal);
  SmallVector<int64_t> axes;
  for (int64_t axis : getAxes())
    axes.push_back(axis < 0 ? axis + input.getRank() : axis);
  Value count = e.reduceSum(indicators, axes, /*keepDims=*/true);
  Value dy = broadcastReduced(e, dys[0], input, getAxes());
  out.push_back(e.binary<DivOp>(e.binary<MulOp>(indicators, dy), count));
  return success();
}

LogicalResult SoftmaxOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  // (dy - sum(dy * y, -1)) * y.
  Emitter e(b, getLoc());
  Value y = getResult(), dy = dys[0];
  int64_t last = getInput().getType().getRank() - 1;
  Value dot = e.reduceSum(e.binary<MulOp>(dy, y), {last}, /*keepDims=*/true);
  out.push_back(e.binary<MulOp>(e.binary<SubOp>(dy, dot), y));
  return success();
}

LogicalResult SparseSoftmaxCrossEntropyWithLogitsOp::buildGradients(
    OpBuilder &b, ArrayRef<Value> dys, SmallVectorImpl<Value> &out) {
  // TensorFlow's _SparseSoftmaxCrossEntropyWithLogitsGrad: backprop scaled
  // by each example's loss gradient.
  if (dys[1])
    return emitOpError() << "has no gradient through its backprop result";
  Emitter e(b, getLoc());
  RankedTensorType features = getFeatures().getType();
  Value dloss = e.reshape(dys[0], {features.getDimSize(0), 1});
  out.push_back(e.binary<MulOp>(getBackprop(), dloss));
  out.push_back(Value());
  return success();
}

//===----------------------------------------------------------------------===//
// Type and shape ops (array_grad.py).
//===----------------------------------------------------------------------===//

LogicalResult CastOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  if (!isFloatTensor(getInput()) || !isFloatTensor(getResult())) {
    out.push_back(Value());
    return success();
  }
  out.push_back(e.op<CastOp>(getInput().getType(), dys[0]));
  return success();
}

/// TensorFlow's _GatherV2Grad, dense: the incoming gradient's slices summed
/// into the rows of params they were gathered from
/// (UnsortedSegmentSum), with the indexed dimensions moved to the front
/// and back for an axis other than 0. The indices have none.
LogicalResult GatherOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(getParams())) {
    out.append({Value(), Value()});
    return success();
  }
  Emitter e(b, getLoc());
  RankedTensorType params = getParams().getType(),
                   indices = getIndices().getType();
  // I64Attr's getter is unsigned: the axis may be negative.
  auto given = static_cast<int64_t>(getAxis());
  int64_t rank = params.getRank(), axis = given < 0 ? given + rank : given,
          indexRank = indices.getRank();
  Value dy = dys[0];
  RankedTensorType dyType = typeOf(dy);
  auto transpose = [&](Value v, ArrayRef<int64_t> perm) {
    return e.op<TransposeOp>(
        Type(), v, {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))});
  };
  // The indexed dimensions of dy first: [axis, axis + indexRank), then the
  // rest in order.
  if (axis != 0) {
    SmallVector<int64_t> perm;
    for (int64_t d = axis; d < axis + indexRank; ++d)
      perm.push_back(d);
    for (int64_t d = 0; d < dyType.getRank(); ++d)
      if (d < axis || d >= axis + indexRank)
        perm.push_back(d);
    dy = transpose(dy, perm);
  }
  // [params' axis dimension, params' others in order].
  SmallVector<int64_t> summed = {params.getDimSize(axis)};
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      summed.push_back(params.getDimSize(d));
  Value sums = e.op<UnsortedSegmentSumOp>(
      RankedTensorType::get(summed, params.getElementType()),
      ValueRange{dy, getIndices()});
  if (axis != 0) {
    SmallVector<int64_t> perm;
    for (int64_t d = 1; d <= axis; ++d)
      perm.push_back(d);
    perm.push_back(0);
    for (int64_t d = axis + 1; d < rank; ++d)
      perm.push_back(d);
    sums = transpose(sums, perm);
  }
  out.append({sums, Value()});
  return success();
}

/// The gradient of each data slice is the result's gradient at its segment
/// id, gathered along axis 0; a negative id, whose slice was dropped, gets
/// zeros (TensorFlow's _UnsortedSegmentSumGrad, _GatherDropNegatives). The
/// ids have none.
LogicalResult UnsortedSegmentSumOp::buildGradients(
    OpBuilder &b, ArrayRef<Value> dys, SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(getData())) {
    out.append({Value(), Value()});
    return success();
  }
  Emitter e(b, getLoc());
  Value ids = getSegmentIds();
  RankedTensorType idsType = typeOf(ids), dataType = typeOf(getData());
  // Scalars, broadcast: no constant of the ids' or the data's size.
  Value zeroIds = e.scalar(ids, 0.0);
  Value clipped = e.op<MaximumOp>(idsType, ValueRange{ids, zeroIds});
  Value gathered = e.op<GatherOp>(
      dataType, ValueRange{dys[0], clipped},
      {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
  // The ids' shape padded with 1s to the data's rank, to select slices.
  SmallVector<int64_t> maskShape(idsType.getShape());
  maskShape.resize(dataType.getRank(), 1);
  Value kept = e.op<GreaterEqualOp>(
      RankedTensorType::get(idsType.getShape(), b.getI1Type()),
      ValueRange{ids, zeroIds});
  kept = e.reshape(kept, maskShape);
  Value grad = e.op<SelectOp>(
      dataType, ValueRange{kept, gathered, e.scalar(getData(), 0.0)});
  out.append({grad, Value()});
  return success();
}

LogicalResult TransposeOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = static_cast<int64_t>(i);
  out.push_back(e.op<TransposeOp>(
      Type(), dys[0],
      {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(inverse))}));
  return success();
}

LogicalResult ReshapeOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(e.reshape(dys[0], getInput().getType().getShape()));
  return success();
}

LogicalResult IdentityOp::buildGradients(OpBuilder &, ArrayRef<Value> dys,
                                         SmallVectorImpl<Value> &out) {
  out.push_back(dys[0]);
  return success();
}

LogicalResult SliceOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                      SmallVectorImpl<Value> &out) {
  // The gradient padded back to the input's shape with zeros.
  Emitter e(b, getLoc());
  RankedTensorType input = getInput().getType(), result = getType();
  SmallVector<int64_t> paddings;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t begin = getBegin()[d];
    paddings.push_back(begin);
    paddings.push_back(input.getDimSize(d) - begin - result.getDimSize(d));
  }
  out.push_back(e.op<PadOp>(
      input, dys[0],
      {b.getNamedAttr("paddings", b.getDenseI64ArrayAttr(paddings))}));
  return success();
}

LogicalResult DynamicUpdateSliceOp::buildGradients(
    OpBuilder &b, ArrayRef<Value> dys, SmallVectorImpl<Value> &out) {
  // XLA's: the input's gradient is dy with the block zeroed; the update's
  // is dy's block at the same (clamped) offsets, gathered one dimension at
  // a time at clamp(indices[d]) + [0, update.shape[d]); the indices have
  // none.
  if (!isFloatTensor(getInput())) {
    out.append({Value(), Value(), Value()});
    return success();
  }
  Emitter e(b, getLoc());
  RankedTensorType input = getInput().getType(),
                   update = getUpdate().getType();
  Value indices = getIndices();
  Type indexElement = typeOf(indices).getElementType();
  out.push_back(e.op<DynamicUpdateSliceOp>(
      input, {dys[0], e.constant(update, 0.0), indices}));
  auto indexConstant = [&](ArrayRef<int64_t> values) -> Value {
    auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                      indexElement);
    SmallVector<APInt> bits;
    for (int64_t v : values)
      bits.push_back(APInt(indexElement.getIntOrFloatBitWidth(), v,
                           /*isSigned=*/true));
    return buildConstant(b, getLoc(), DenseElementsAttr::get(type, bits));
  };
  Value block = dys[0];
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t size = update.getDimSize(d), most = input.getDimSize(d) - size;
    if (most == 0)
      continue;
    // min(max(i, 0), most) = most - max(most - max(i, 0), 0).
    auto one = RankedTensorType::get({1}, indexElement);
    Value at = e.op<SliceOp>(
        one, indices,
        {b.getNamedAttr("begin", b.getDenseI64ArrayAttr({d})),
         b.getNamedAttr("size", b.getDenseI64ArrayAttr({1}))});
    Value zero = indexConstant({0}), top = indexConstant({most});
    at = e.op<MaximumOp>(one, {at, zero});
    at = e.op<SubOp>(one, {top, e.op<MaximumOp>(
                                    one, {e.op<SubOp>(one, {top, at}), zero})});
    SmallVector<int64_t> iota(size);
    std::iota(iota.begin(), iota.end(), 0);
    Value rows = e.op<AddOp>(RankedTensorType::get({size}, indexElement),
                             {at, indexConstant(iota)});
    shape[d] = size;
    block = e.op<GatherOp>(
        RankedTensorType::get(shape, input.getElementType()), {block, rows},
        {b.getNamedAttr("axis", b.getI64IntegerAttr(d))});
  }
  out.push_back(block);
  out.push_back(Value());
  return success();
}

LogicalResult PadOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  RankedTensorType input = getInput().getType();
  SmallVector<int64_t> begin;
  for (int64_t d = 0; d < input.getRank(); ++d)
    begin.push_back(getPaddings()[2 * d]);
  out.push_back(e.op<SliceOp>(
      input, dys[0],
      {b.getNamedAttr("begin", b.getDenseI64ArrayAttr(begin)),
       b.getNamedAttr("size", b.getDenseI64ArrayAttr(input.getShape()))}));
  return success();
}

LogicalResult ConcatOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       SmallVectorImpl<Value> &out) {
  // Each input gets its slice of the gradient.
  Emitter e(b, getLoc());
  int64_t rank = getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis()); // I64Attr reads unsigned.
  if (axis < 0)
    axis += rank;
  int64_t offset = 0;
  for (Value input : getInputs()) {
    RankedTensorType type = typeOf(input);
    SmallVector<int64_t> begin(rank, 0);
    begin[axis] = offset;
    offset += type.getDimSize(axis);
    out.push_back(e.op<SliceOp>(
        type, dys[0],
        {b.getNamedAttr("begin", b.getDenseI64ArrayAttr(begin)),
         b.getNamedAttr("size", b.getDenseI64ArrayAttr(type.getShape()))}));
  }
  return success();
}

LogicalResult BroadcastToOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                            SmallVectorImpl<Value> &out) {
  Emitter e(b, getLoc());
  out.push_back(isFloatTensor(getInput())
                    ? e.sumToShape(dys[0], getInput().getType())
                    : Value());
  return success();
}

DenseSet<Operation *> gplace::graph::getOpsBetween(Block &block, ValueRange xs,
                                                   ValueRange ys,
                                                   Operation *exclude) {
  // Forward from the xs, through data edges, in `block`.
  DenseSet<Operation *> fromX;
  SmallVector<Value> worklist(xs.begin(), xs.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user->getBlock() != &block || user == exclude ||
          !fromX.insert(user).second)
        continue;
      for (Value result : user->getResults())
        if (!isa<ControlType>(result.getType()))
          worklist.push_back(result);
    }
  }
  // Backward from the ys, among those.
  DenseSet<Operation *> path;
  SmallVector<Operation *> stack;
  for (Value y : ys)
    if (Operation *def = y.getDefiningOp())
      stack.push_back(def);
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    if (!fromX.contains(op) || !path.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && !isa<ControlType>(operand.getType()))
        stack.push_back(def);
  }
  return path;
}
