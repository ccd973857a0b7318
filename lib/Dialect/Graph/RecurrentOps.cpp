//===- RecurrentOps.cpp - cudnn_rnn and its gradient ----------------------===//
//
// The shape rule, verifiers, kernel parameters, cost and gradient of the
// recurrent layer ops (dialects/graph/GraphOps.td, "Recurrent layers"):
// gplace.cudnn_rnn, TensorFlow's CudnnRNNV3 with its weights as ONNX's W,
// R and B, and gplace.cudnn_rnn_backprop. Their kernels are oneDNN's RNN
// primitives (lib/Runtime/DnnlKernels.cpp). Messages follow GraphOps.cpp's
// style.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "RuleError.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace gplace::graph;
using gplace::graph::detail::completeProperties;
using gplace::graph::detail::RuleError;

namespace {

RankedTensorType rankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType())
               : RankedTensorType();
}

/// The cell of `mode` as the kernels number it (KernelParams::rnnKind),
/// with its gates; -1 for an unknown mode.
int64_t kindOf(StringRef mode, bool linearBeforeReset) {
  if (mode == "rnn_tanh")
    return 0;
  if (mode == "rnn_relu")
    return 1;
  if (mode == "lstm")
    return 2;
  if (mode == "gru")
    return linearBeforeReset ? 4 : 3;
  return -1;
}
int64_t gatesOf(int64_t kind) { return kind <= 1 ? 1 : kind == 2 ? 4 : 3; }

/// The direction as the kernels number it (KernelParams::rnnDirection), or
/// -1.
int64_t directionOf(StringRef direction) {
  if (direction == "forward")
    return 0;
  if (direction == "reverse")
    return 1;
  if (direction == "bidirectional")
    return 2;
  return -1;
}

/// cudnn_rnn's rule: the types of output, output_h and output_c from the
/// input, the initial state and the weights.
LogicalResult recurrentTypes(RankedTensorType input, RankedTensorType h,
                             RankedTensorType w, RankedTensorType r,
                             RankedTensorType b, StringRef mode,
                             StringRef direction, bool linearBeforeReset,
                             const RuleError &error,
                             SmallVectorImpl<Type> &types) {
  int64_t kind = kindOf(mode, linearBeforeReset);
  if (kind < 0)
    return error() << "rnn_mode must be \"rnn_tanh\", \"rnn_relu\", \"gru\" "
                      "or \"lstm\", not \""
                   << mode << "\"";
  if (linearBeforeReset && mode != "gru")
    return error() << "linear_before_reset applies to rnn_mode \"gru\" only";
  int64_t directionKind = directionOf(direction);
  if (directionKind < 0)
    return error() << "direction must be \"forward\", \"reverse\" or "
                      "\"bidirectional\", not \""
                   << direction << "\"";
  int64_t dirs = directionKind == 2 ? 2 : 1;
  if (input.getRank() != 3)
    return error() << "input must be [seq, batch, input_size], not "
                   << input;
  if (h.getRank() != 3)
    return error() << "input_h must be [directions, batch, hidden], not " << h;
  int64_t seq = input.getDimSize(0), batch = input.getDimSize(1),
          inputSize = input.getDimSize(2), hidden = h.getDimSize(2);
  if (seq < 1 || batch < 1 || inputSize < 1 || hidden < 1)
    return error() << "needs a non-empty sequence, batch, input_size and "
                      "hidden size, not input "
                   << input << " and input_h " << h;
  if (h.getDimSize(0) != dirs || h.getDimSize(1) != batch)
    return error() << "input_h must be [" << dirs << ", " << batch << ", "
                   << hidden << "] ([directions, batch, hidden]) for input "
                   << input << " and direction \"" << direction << "\", not "
                   << h;
  int64_t gates = gatesOf(kind);
  auto expect = [&](RankedTensorType type, ArrayRef<int64_t> shape,
                    StringRef what, StringRef layout) -> LogicalResult {
    if (type.getShape() == shape)
      return success();
    InFlightDiagnostic d = error();
    d << what << " must be [";
    llvm::interleaveComma(shape, d);
    return d << "] (" << layout << ") for rnn_mode \"" << mode
             << "\", not " << type;
  };
  if (failed(expect(w, {dirs, gates * hidden, inputSize}, "w",
                    "[directions, gates * hidden, input_size]")) ||
      failed(expect(r, {dirs, gates * hidden, hidden}, "r",
                    "[directions, gates * hidden, hidden]")) ||
      failed(expect(b, {dirs, 2 * gates * hidden}, "b",
                    "[directions, 2 * gates * hidden]")))
    return failure();
  Type element = input.getElementType();
  for (RankedTensorType type : {h, w, r, b})
    if (type.getElementType() != element)
      return error() << "operands must share the input's element type "
                     << element << ", not " << type;
  types.push_back(RankedTensorType::get({seq, batch, dirs * hidden}, element));
  types.push_back(h);
  types.push_back(h);
  return success();
}

/// The result types `op` has against those expected.
LogicalResult verifyTypes(Operation *op, TypeRange actual,
                          ArrayRef<Type> expected, unsigned first) {
  for (auto [i, pair] : llvm::enumerate(llvm::zip(actual, expected)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError()
             << (first == 0 ? "result " : "operand ") << first + i
             << " must be " << std::get<1>(pair) << ", not "
             << std::get<0>(pair);
  return success();
}

/// The kernel parameters of a recurrent op (cudnn_rnn or its gradient):
/// its cell and direction as the kernels number them.
template <typename OpT>
DictionaryAttr recurrentParameters(OpT op) {
  Builder b(op->getContext());
  return b.getDictionaryAttr(
      {b.getNamedAttr("rnn_kind",
                      b.getI64IntegerAttr(kindOf(
                          op.getRnnMode(), op.getLinearBeforeReset()))),
       b.getNamedAttr("rnn_direction",
                      b.getI64IntegerAttr(directionOf(op.getDirection())))});
}

/// A recurrent op's verifier: cudnn_rnn's rule over its operands and
/// attributes (which the gradient shares), whose result types `actual`
/// (numbered from `first` in the message) must be.
template <typename OpT>
LogicalResult verifyRecurrent(OpT op, TypeRange actual, unsigned first) {
  SmallVector<Type, 3> types;
  if (failed(recurrentTypes(op.getInput().getType(), op.getInputH().getType(),
                            op.getW().getType(), op.getR().getType(),
                            op.getB().getType(), op.getRnnMode(),
                            op.getDirection(), op.getLinearBeforeReset(),
                            RuleError{op, {}, {}}, types)))
    return failure();
  return verifyTypes(op, actual, types, first);
}

/// Two operations per multiply-add of every step's products with W and R.
int64_t recurrentFlops(RankedTensorType input, RankedTensorType w,
                       RankedTensorType r) {
  int64_t seq = input.getDimSize(0), batch = input.getDimSize(1);
  return 2 * seq * batch *
         (w.getNumElements() + r.getNumElements());
}

} // namespace

//===----------------------------------------------------------------------===//
// cudnn_rnn.
//===----------------------------------------------------------------------===//

LogicalResult CudnnRNNOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    ValueRange operands, DictionaryAttr attributes,
    OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  FailureOr<Properties> complete = completeProperties<CudnnRNNOp>(
      context, location, attributes, properties);
  if (failed(complete))
    return failure();
  Adaptor adaptor(operands, attributes, *complete, regions);
  RankedTensorType input = rankedType(adaptor.getInput()),
                   h = rankedType(adaptor.getInputH()),
                   w = rankedType(adaptor.getW()),
                   r = rankedType(adaptor.getR()),
                   b = rankedType(adaptor.getB());
  // The properties' fields, which may be null (the adaptor's accessors
  // assume a verified op).
  StringAttr mode = complete->rnn_mode, direction = complete->direction;
  if (!input || !h || !w || !r || !b || !mode || !direction)
    return failure();
  return recurrentTypes(input, h, w, r, b, mode.getValue(),
                        direction.getValue(),
                        static_cast<bool>(complete->linear_before_reset),
                        RuleError{nullptr, location, getOperationName()},
                        inferredReturnTypes);
}

LogicalResult CudnnRNNOp::verify() {
  return verifyRecurrent(*this, getOperation()->getResultTypes(), 0);
}

DictionaryAttr CudnnRNNOp::getKernelParameters() {
  return recurrentParameters(*this);
}

int64_t CudnnRNNOp::getRecurrentFlops() {
  return recurrentFlops(getInput().getType(), getW().getType(),
                        getR().getType());
}

LogicalResult CudnnRNNOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                         SmallVectorImpl<Value> &out) {
  // TensorFlow's _cudnn_rnn_backward (cudnn_rnn_grad.py): one backprop op
  // for the six operands, given the three results' gradients (zeros where
  // none flows).
  SmallVector<Value, 3> grads;
  for (auto [dy, result] : llvm::zip(dys, getOperation()->getResults())) {
    if (dy) {
      grads.push_back(dy);
      continue;
    }
    grads.push_back(buildSplatConstant(
        b, getLoc(), cast<RankedTensorType>(result.getType()), 0.0));
  }
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"rnn_mode", "direction", "linear_before_reset"})
    if (Attribute value = (*this)->getAttr(name))
      attrs.push_back(b.getNamedAttr(name, value));
  SmallVector<Value, 9> operands = {getInput(), getInputH(), getInputC(),
                                    getW(),     getR(),      getB()};
  operands.append(grads.begin(), grads.end());
  auto grad = b.create<CudnnRNNBackpropOp>(
      getLoc(),
      TypeRange{getInput().getType(), getInputH().getType(),
                getInputC().getType(), getW().getType(), getR().getType(),
                getB().getType()},
      operands, attrs);
  out.append(grad->result_begin(), grad->result_end());
  return success();
}

//===----------------------------------------------------------------------===//
// cudnn_rnn_backprop.
//===----------------------------------------------------------------------===//

LogicalResult CudnnRNNBackpropOp::verify() {
  // The gradients of the forward's results have their types.
  return verifyRecurrent(*this,
                         TypeRange{getOutputBackprop().getType(),
                                   getOutputHBackprop().getType(),
                                   getOutputCBackprop().getType()},
                         6);
}

DictionaryAttr CudnnRNNBackpropOp::getKernelParameters() {
  return recurrentParameters(*this);
}

int64_t CudnnRNNBackpropOp::getRecurrentFlops() {
  // The forward again, then the gradients of the data and of the weights.
  return 3 * recurrentFlops(getInput().getType(), getW().getType(),
                            getR().getType());
}
