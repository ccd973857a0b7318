//===- GraphDialect.cpp - the gplace graph dialect and its types ---------===//

#include "gplace/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gplace::graph;

#include "gplace/Dialect/Graph/GraphDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Graph/GraphTypes.cpp.inc"

#include "gplace/Dialect/Graph/GraphInterfaces.cpp.inc"

void GraphDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "gplace/Dialect/Graph/GraphTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "gplace/Dialect/Graph/GraphOps.cpp.inc"
      >();
}

LogicalResult GraphDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getDefaultDeviceAttrName() || name == getDevicePolicyAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string, but got "
                             << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown gplace attribute '" << name
                         << "' (known: '" << getDefaultDeviceAttrName()
                         << "', '" << getDevicePolicyAttrName() << "')";
}

bool gplace::graph::isValidGraphTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getEncoding())
    return false;
  Type element = tensor.getElementType();
  return element.isF32() || element.isF16() || element.isBF16() ||
         element.isF64() || element.isSignlessInteger(32) ||
         element.isSignlessInteger(64) || element.isSignlessInteger(1);
}

LogicalResult ResourceType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   RankedTensorType valueType) {
  if (!isValidGraphTensorType(valueType))
    return emitError() << "resource value type must be a statically shaped "
                          "tensor of f32, f16, bf16, f64, i32, i64 or i1, "
                          "but got "
                       << valueType;
  return success();
}
