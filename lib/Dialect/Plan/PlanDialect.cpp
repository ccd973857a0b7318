//===- PlanDialect.cpp - gplan, the executable plan
//------------------------===//

#include "gplace/Dialect/Plan/PlanDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gplace::plan;

#include "gplace/Dialect/Plan/PlanDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Plan/PlanTypes.cpp.inc"

#define GET_OP_CLASSES
#include "gplace/Dialect/Plan/PlanOps.cpp.inc"

void PlanDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "gplace/Dialect/Plan/PlanTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "gplace/Dialect/Plan/PlanOps.cpp.inc"
      >();
}

LogicalResult ProgramOp::verify() {
  if (getBody().empty() || !isa<ReturnOp>(getBody().front().back()))
    return emitOpError() << "must end with gplan.return";
  return success();
}

/// The buffer type holding `value`, for the result of constant and
/// variable.
static LogicalResult inferBufferOf(MLIRContext *context,
                                   std::optional<Location> location,
                                   Attribute value,
                                   SmallVectorImpl<Type> &inferred) {
  auto elements = dyn_cast_or_null<ElementsAttr>(value);
  auto type = elements ? dyn_cast<RankedTensorType>(elements.getType())
                       : RankedTensorType();
  if (!type)
    return emitOptionalError(location, "expects a ranked tensor value");
  inferred.push_back(BufferType::get(context, type));
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  return inferBufferOf(context, location, adaptor.getValueAttr(), inferred);
}

LogicalResult VariableOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  return inferBufferOf(context, location, adaptor.getInitialValueAttr(),
                       inferred);
}

LogicalResult CopyOp::verify() {
  if (getSource().getType() != getTarget().getType())
    return emitOpError() << "copies between buffers of different types "
                         << getSource().getType() << " and "
                         << getTarget().getType();
  return success();
}
