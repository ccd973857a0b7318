//===- GraphDialect.cpp - the gplace graph dialect and its types ---------===//

#include "gplace/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
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

std::vector<std::string> gplace::graph::getOpNames(Operation *root) {
  // Default prefixes are op names without a `_<number>` suffix, so defaults
  // can only collide with names users gave; only those need checking.
  llvm::StringSet<> userNames;
  root->walk([&](PlacedOpInterface op) {
    if (StringAttr name = op->getAttrOfType<StringAttr>("name"))
      userNames.insert(name.getValue());
  });
  std::vector<std::string> names;
  llvm::StringMap<unsigned> nextSuffix;
  root->walk([&](PlacedOpInterface op) {
    std::string &name = names.emplace_back();
    if (StringAttr user = op->getAttrOfType<StringAttr>("name")) {
      name = user.getValue().str();
      return;
    }
    StringRef prefix = op.getDefaultNamePrefix();
    unsigned &suffix = nextSuffix[prefix];
    do {
      name = prefix.str();
      if (suffix != 0)
        name += "_" + std::to_string(suffix);
      ++suffix;
    } while (!userNames.empty() && userNames.contains(name));
  });
  return names;
}

std::optional<Type> gplace::graph::getKernelElementType(Operation *op) {
  auto elementOf = [](Type type) -> std::optional<Type> {
    if (auto resource = dyn_cast<ResourceType>(type))
      type = resource.getValueType();
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return tensor.getElementType();
    return std::nullopt;
  };
  if (op->getNumResults() > 0)
    if (std::optional<Type> type = elementOf(op->getResult(0).getType()))
      return type;
  for (Value operand : op->getOperands())
    if (isa<ResourceType>(operand.getType()))
      return elementOf(operand.getType());
  return std::nullopt;
}

std::string gplace::graph::getKernelElementTypeName(Operation *op) {
  std::string name;
  if (std::optional<Type> type = getKernelElementType(op))
    llvm::raw_string_ostream(name) << *type;
  return name;
}

StringAttr gplace::graph::getValueDevice(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return StringAttr::get(value.getContext(), kHostDevice);
  return value.getDefiningOp()->getAttrOfType<StringAttr>("assigned_device");
}
