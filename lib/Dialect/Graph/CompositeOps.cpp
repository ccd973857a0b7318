//===- CompositeOps.cpp - shape rules of the composite graph ops ----------===//
//
// The result types and verifiers of the composite ops
// (dialects/graph/GraphCompositeOps.td) whose result is not their input's
// type, or whose attributes must fit their input: log_softmax,
// softmax_2d, log_softmax_2d, gemm, layer_norm, celu. Their decompositions are
// in Decompositions.cpp. Messages follow GraphOps.cpp's style.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/Shape.h"
#include "RuleError.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace gplace::graph;
using gplace::graph::detail::matmulType;
using gplace::graph::detail::normalizeAxis;
using gplace::graph::detail::completeProperties;
using gplace::graph::detail::RuleError;

namespace {

/// The ranked tensor type of `value`, or null (inference may see operands
/// no verifier has checked yet).
RankedTensorType rankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType())
               : RankedTensorType();
}

/// Checks that a rank-`rank` input has `axis` (softmax_2d, log_softmax_2d,
/// log_softmax over the last dimension: `axis` -1).
LogicalResult verifySoftmaxInput(Operation *op, RankedTensorType input,
                                 int64_t axis) {
  if (input.getRank() < 1)
    return op->emitOpError()
           << "expects an operand of rank at least 1, but got " << input;
  return normalizeAxis(RuleError{op, {}, {}}, "axis", axis,
                               input.getRank());
}

/// gemm: matmul's rule on `a` and `b`; `c`, if given, of their element type
/// and broadcasting to the product's shape without changing it.
FailureOr<RankedTensorType> gemmType(RankedTensorType a, RankedTensorType b,
                                     RankedTensorType c, bool transposeA,
                                     bool transposeB, const RuleError &error) {
  FailureOr<RankedTensorType> product =
      matmulType(a, b, transposeA, transposeB, error);
  if (failed(product) || !c)
    return product;
  if (c.getElementType() != product->getElementType())
    return error() << "c has element type " << c.getElementType()
                   << " but the product has element type "
                   << product->getElementType(),
           failure();
  std::optional<std::vector<int64_t>> shape =
      gplace::broadcastShapes(product->getShape(), c.getShape());
  if (!shape || ArrayRef<int64_t>(*shape) != product->getShape())
    return error() << "c of type " << c
                   << " does not broadcast to the product's type " << *product,
           failure();
  return product;
}

/// layer_norm: the input's type, then the mean's and inverse standard
/// deviation's (the dimensions from `axis` on kept as 1, in f32 for f16
/// and bf16 inputs); `scale` and `bias`, if given, of the input's element
/// type and broadcasting to its shape without changing it.
LogicalResult layerNormTypes(RankedTensorType input, RankedTensorType scale,
                             RankedTensorType bias, int64_t axisAttr,
                             const RuleError &error,
                             SmallVectorImpl<Type> &types) {
  FailureOr<int64_t> axis =
      normalizeAxis(error, "axis", axisAttr, input.getRank());
  if (failed(axis))
    return failure();
  std::pair<const char *, RankedTensorType> operands[] = {{"scale", scale},
                                                          {"bias", bias}};
  for (auto [what, operand] : operands) {
    if (!operand)
      continue;
    if (operand.getElementType() != input.getElementType())
      return error() << what << " has element type "
                     << operand.getElementType()
                     << " but the input has element type "
                     << input.getElementType(),
             failure();
    std::optional<std::vector<int64_t>> shape =
        gplace::broadcastShapes(input.getShape(), operand.getShape());
    if (!shape || ArrayRef<int64_t>(*shape) != input.getShape())
      return error() << what << " of type " << operand
                     << " does not broadcast to the input's type " << input,
             failure();
  }
  Type element = input.getElementType();
  if (element.isF16() || element.isBF16())
    element = Float32Type::get(element.getContext());
  SmallVector<int64_t> kept(input.getShape());
  for (int64_t d = *axis; d < input.getRank(); ++d)
    kept[d] = 1;
  auto statistic = RankedTensorType::get(kept, element);
  types.append({input, statistic, statistic});
  return success();
}

/// The verifier's side of a rule: the op's result types are the rule's.
LogicalResult verifyResultTypes(Operation *op, ArrayRef<Type> expected) {
  for (auto [i, pair] : llvm::enumerate(llvm::zip(op->getResultTypes(),
                                                  expected))) {
    auto [actual, rule] = pair;
    if (actual != rule)
      return op->emitOpError()
             << "result #" << i << " has type " << actual
             << " but the expected type is " << rule;
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// softmax over the last dimension, or at `axis` coerced to 2-D.
//===----------------------------------------------------------------------===//

/// celu divides by alpha (ONNX: "The Alpha value in Celu formula which
/// control the shape of the unit"; 0 would divide by zero).
LogicalResult CeluOp::verify() {
  if (getAlpha().isZero())
    return emitOpError() << "expects a nonzero alpha";
  return success();
}

LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmaxInput(*this, getInput().getType(), -1);
}

LogicalResult Softmax2DOp::verify() {
  return verifySoftmaxInput(*this, getInput().getType(),
                            static_cast<int64_t>(getAxis()));
}

LogicalResult LogSoftmax2DOp::verify() {
  return verifySoftmaxInput(*this, getInput().getType(),
                            static_cast<int64_t>(getAxis()));
}

//===----------------------------------------------------------------------===//
// gemm.
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties,
    RegionRange regions, SmallVectorImpl<Type> &inferredReturnTypes) {
  Adaptor adaptor(operands, attributes, properties, regions);
  RankedTensorType a = rankedType(adaptor.getA()),
                   b = rankedType(adaptor.getB());
  if (!a || !b || (adaptor.getC() && !rankedType(adaptor.getC())))
    return failure();
  FailureOr<RankedTensorType> type =
      gemmType(a, b, rankedType(adaptor.getC()), adaptor.getTransposeA(),
               adaptor.getTransposeB(),
               RuleError{nullptr, location, getOperationName()});
  if (failed(type))
    return failure();
  inferredReturnTypes.push_back(*type);
  return success();
}

LogicalResult GemmOp::verify() {
  RankedTensorType c = getC() ? getC().getType() : RankedTensorType();
  FailureOr<RankedTensorType> type =
      gemmType(getA().getType(), getB().getType(), c, getTransposeA(),
               getTransposeB(), RuleError{*this, {}, {}});
  if (failed(type))
    return failure();
  return verifyResultTypes(*this, {*type});
}

//===----------------------------------------------------------------------===//
// layer_norm.
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    ValueRange operands, DictionaryAttr attributes,
    OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  // `axis` may still be in `attributes`, or be the default.
  FailureOr<Properties> complete = completeProperties<LayerNormOp>(
      context, location, attributes, properties);
  if (failed(complete))
    return failure();
  Adaptor adaptor(operands, attributes, *complete, regions);
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input || (adaptor.getScale() && !rankedType(adaptor.getScale())) ||
      (adaptor.getBias() && !rankedType(adaptor.getBias())))
    return failure();
  return layerNormTypes(input, rankedType(adaptor.getScale()),
                        rankedType(adaptor.getBias()),
                        static_cast<int64_t>(adaptor.getAxis()),
                        RuleError{nullptr, location, getOperationName()},
                        inferredReturnTypes);
}

LogicalResult LayerNormOp::verify() {
  SmallVector<Type, 3> types;
  if (failed(layerNormTypes(
          getInput().getType(),
          getScale() ? getScale().getType() : RankedTensorType(),
          getBias() ? getBias().getType() : RankedTensorType(),
          static_cast<int64_t>(getAxis()),
          RuleError{*this, {}, {}}, types)))
    return failure();
  return verifyResultTypes(*this, types);
}
