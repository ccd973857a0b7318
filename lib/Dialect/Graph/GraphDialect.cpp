//===- GraphDialect.cpp - the gplace graph dialect and its types ----------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Dialect/Graph/KernelElementType.h"
#include "gplace/Dialect/OpVerifyHooks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace gplace::graph;

#include "gplace/Dialect/Graph/GraphDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Graph/GraphTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "gplace/Dialect/Graph/GraphAttrs.cpp.inc"

#include "gplace/Dialect/Graph/GraphInterfaces.cpp.inc"

// Verification without a heap allocation per op (OpVerifyHooks.h), declared
// before initialize() instantiates the ops' Model.
#define GPLACE_OPERAND_SEGMENTS_OP(Op)                                         \
  GPLACE_VERIFY_SEGMENTS_FROM_PROPERTIES(Op)
#define GPLACE_OP_CLASS(Op) GPLACE_VERIFY_WITHOUT_ALLOCATION(Op)
#include "gplace/Dialect/Graph/GraphOpClasses.inc"

namespace {
/// Graph ops may be inlined anywhere (MLIR's --inline): they have no
/// regions and refer to nothing but their operands.
struct GraphInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool,
                       IRMapping &) const final {
    return true;
  }
};
} // namespace

namespace gplace::graph::detail {
/// GraphOps.cpp: matmul_accumulate's InferTypeOpInterface model.
void attachMatmulAccumulateTypeInference(mlir::MLIRContext &context);
} // namespace gplace::graph::detail

void GraphDialect::initialize() {
  builtinPolicies = std::make_unique<gplace::PolicyRegistry>();
  gplace::registerBuiltinPolicies(*builtinPolicies);
  policies = builtinPolicies.get();
  addTypes<
#define GET_TYPEDEF_LIST
#include "gplace/Dialect/Graph/GraphTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gplace/Dialect/Graph/GraphAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "gplace/Dialect/Graph/GraphOps.cpp.inc"
      >();
  addInterfaces<GraphInlinerInterface>();
  detail::attachMatmulAccumulateTypeInference(*getContext());
}

LogicalResult GraphDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getDevicesAttrName()) {
    auto list = dyn_cast<ArrayAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !list || list.empty() ||
        !llvm::all_of(list, [](Attribute a) { return isa<DeviceAttr>(a); }))
      return op->emitError()
             << "'" << name
             << "' must be a non-empty list of #gplace.device on a module";
    llvm::StringSet<> seen;
    for (Attribute device : list)
      if (!seen.insert(cast<DeviceAttr>(device).getName()).second)
        return op->emitError() << "'" << name << "' lists device '"
                               << cast<DeviceAttr>(device).getName()
                               << "' twice";
    return success();
  }
  if (name == getDefaultDeviceAttrName() || name == getDevicePolicyAttrName() ||
      name == getColocateWithAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string, but got "
                             << attr.getValue();
    return success();
  }
  if (name == getAllowSoftPlacementAttrName()) {
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute on a function";
    return success();
  }
  // Pipeline parallelism's marks (gplace::kMicroBatchAttrName and
  // kPipelineAttrName, docs/passes/pipeline-parallel.md).
  if (name == "gplace.micro_batch") {
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!index || index.getInt() < 0)
      return op->emitError() << "'" << name
                             << "' must be a non-negative integer, but got "
                             << attr.getValue();
    return success();
  }
  if (name == "gplace.pipeline") {
    if (!isa<FunctionOpInterface>(op) || !isa<DictionaryAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a dictionary on a function";
    return success();
  }
  // What --gplace-rematerialize="auto=true" did per device
  // (docs/passes/rematerialize.md).
  if (name == "gplace.rematerialized") {
    auto list = dyn_cast<ArrayAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !list ||
        !llvm::all_of(list, [](Attribute a) { return isa<DictionaryAttr>(a); }))
      return op->emitError()
             << "'" << name << "' must be a list of dictionaries on a module";
    return success();
  }
  // The limit on the stacks of a While's gradient, in bytes
  // (docs/dialect.md#gradients-of-if-and-while).
  if (name == "gplace.gradient_stack_bytes") {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<WhileOp, ModuleOp>(op) || !bytes || bytes.getInt() < 0)
      return op->emitError() << "'" << name
                             << "' must be a non-negative integer on a "
                                "gplace.while or a module";
    return success();
  }
  return op->emitError() << "unknown gplace attribute '" << name
                         << "' (known: '" << getDefaultDeviceAttrName()
                         << "', '" << getDevicePolicyAttrName() << "', '"
                         << getAllowSoftPlacementAttrName() << "', '"
                         << getDevicesAttrName() << "', '"
                         << getColocateWithAttrName()
                         << "', 'gplace.micro_batch', 'gplace.pipeline', "
                            "'gplace.rematerialized', "
                            "'gplace.gradient_stack_bytes')";
}

bool gplace::graph::isValidGraphTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getEncoding())
    return false;
  Type element = tensor.getElementType();
  return element.isF32() || element.isF16() || element.isBF16() ||
         element.isF64() || element.isSignlessInteger(32) ||
         element.isSignlessInteger(64) || element.isSignlessInteger(1) ||
         element.isUnsignedInteger(8) || element.isSignlessInteger(8) ||
         element.isSignlessInteger(16) || element.isUnsignedInteger(16) ||
         element.isUnsignedInteger(32);
}

LogicalResult ResourceType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   RankedTensorType valueType) {
  if (!isValidGraphTensorType(valueType))
    return emitError() << "resource value type must be a statically shaped "
                          "tensor of "
                       << kGraphElementTypes << ", but got " << valueType;
  return success();
}

void gplace::graph::OpName::appendTo(SmallVectorImpl<char> &out) const {
  out.append(text.begin(), text.end());
  if (suffix == 0)
    return;
  // `_<suffix>` by hand: a Twine's stream took 400 instructions a name,
  // and --gplace-convert-graph-to-plan names every step.
  char digits[std::numeric_limits<unsigned>::digits10 + 2];
  char *end = digits + sizeof(digits), *begin = end;
  for (unsigned rest = suffix; rest != 0; rest /= 10)
    *--begin = static_cast<char>('0' + rest % 10);
  out.push_back('_');
  out.append(begin, end);
}

std::string gplace::graph::OpName::str() const {
  SmallString<64> name;
  appendTo(name);
  return std::string(name);
}

std::vector<OpName> gplace::graph::getOpNameParts(Operation *root) {
  // Default prefixes are op names without a `_<number>` suffix, so defaults
  // can only collide with names users gave; only those need checking.
  llvm::StringSet<> userNames;
  std::vector<OpName> names;
  // Per unnamed op, the counter of its default prefix (null for an op with
  // a name of the user's). The prefix and its counter are looked up once
  // per kind of op rather than hashed per op: at 100k ops the string
  // table was most of this function's time.
  llvm::StringMap<unsigned> nextSuffix;
  DenseMap<const void *, std::pair<StringRef, unsigned *>> byKind;
  std::vector<unsigned *> counters;
  InterfaceCache<PlacedOpInterface> placed;
  // A function's ops are nearly all in its body's one block: sized once.
  if (root->getNumRegions() == 1 && root->getRegion(0).hasOneBlock()) {
    size_t numOps = root->getRegion(0).front().getOperations().size();
    names.reserve(numOps);
    counters.reserve(numOps);
  }
  placed.walk(root, [&](PlacedOpInterface op) {
    StringRef user = op.getUserName();
    if (!user.empty()) {
      userNames.insert(user);
      names.push_back({user, 0});
      counters.push_back(nullptr);
      return;
    }
    auto [it, isNew] =
        byKind.try_emplace(op->getName().getAsOpaquePointer());
    if (isNew) {
      StringRef prefix = op.getDefaultNamePrefix(); // A string literal.
      it->second = {prefix, &nextSuffix[prefix]};
    }
    names.push_back({it->second.first, 0});
    counters.push_back(it->second.second);
  });
  SmallString<64> candidate;
  for (auto [name, counter] : llvm::zip(names, counters)) {
    if (!counter)
      continue;
    do {
      name.suffix = (*counter)++;
      if (userNames.empty())
        break;
      candidate.clear();
      name.appendTo(candidate);
    } while (userNames.contains(candidate));
  }
  return names;
}

std::vector<std::string> gplace::graph::getOpNames(Operation *root) {
  std::vector<std::string> names;
  for (const OpName &name : getOpNameParts(root))
    names.push_back(name.str());
  return names;
}

KernelTypeRule gplace::graph::getKernelTypeRule(Operation *op) {
  if (op->hasTrait<OpTrait::KernelTypeFromOperands>())
    return KernelTypeRule::FromOperands;
  if (op->hasTrait<OpTrait::KernelTypeFromOperandAndResult>())
    return KernelTypeRule::FromOperandAndResult;
  return KernelTypeRule::Default;
}

std::optional<Type> gplace::graph::getKernelElementType(Operation *op) {
  return getKernelElementType(op, getKernelTypeRule(op));
}

std::optional<Type> gplace::graph::getKernelElementType(Operation *op,
                                                        KernelTypeRule rule) {
  auto elementOf = [](Type type) -> std::optional<Type> {
    if (auto resource = dyn_cast<ResourceType>(type))
      type = resource.getValueType();
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return tensor.getElementType();
    return std::nullopt;
  };
  if (rule == KernelTypeRule::FromOperands && op->getNumOperands() > 0)
    return elementOf(op->getOperand(0).getType());
  if (rule == KernelTypeRule::FromOperandAndResult &&
      op->getNumOperands() > 0 && op->getNumResults() > 0) {
    std::optional<Type> from = elementOf(op->getOperand(0).getType());
    if (from && !isa<FloatType>(*from))
      return from;
    return elementOf(op->getResult(0).getType());
  }
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

bool gplace::graph::hasKernelFor(Operation *op, DeviceType device) {
  KernelRegistry::AttributeLookup attributes =
      [op](std::string_view name) -> std::optional<std::string> {
    Attribute attr = op->getAttr(llvm::StringRef(name.data(), name.size()));
    if (!attr)
      return std::nullopt;
    if (auto string = dyn_cast<StringAttr>(attr))
      return string.str();
    return std::string();
  };
  return KernelRegistry::global().hasKernel(
      op->getName().getStringRef().str(),
      parseElementType(getKernelElementTypeName(op)), device, &attributes);
}

Value gplace::graph::getResourceRoot(Value resource) {
  while (Operation *producer = resource.getDefiningOp()) {
    if (!producer->hasTrait<OpTrait::ForwardsInput>() ||
        producer->getNumOperands() == 0)
      break;
    resource = producer->getOperand(0);
  }
  return resource;
}

StringAttr gplace::graph::getValueDevice(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return StringAttr::get(value.getContext(), kHostDevice);
  return value.getDefiningOp()->getAttrOfType<StringAttr>("assigned_device");
}

//===----------------------------------------------------------------------===//
// #gplace.device and the module's devices.
//===----------------------------------------------------------------------===//

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, int64_t memoryLimit,
                                 StringRef description, int64_t processes,
                                 int64_t freeMiB, int64_t utilization) {
  std::string error;
  std::optional<gplace::DeviceName> device =
      gplace::DeviceName::parse(name, &error);
  if (!device)
    return emitError() << error;
  if (device->otherType)
    return emitError() << "#gplace.device '" << name << "' has device type '"
                       << *device->otherType
                       << "'; gplace has devices of types CPU and GPU only";
  if (!device->isFullySpecified())
    return emitError() << "#gplace.device needs a full device name, but got '"
                       << name << "'";
  if (memoryLimit < 0)
    return emitError() << "memory_limit of '" << name
                       << "' must not be negative, but is " << memoryLimit;
  bool hasLoad = processes >= 0 || freeMiB >= 0 || utilization >= 0;
  if (hasLoad && (processes < 0 || freeMiB < 0 || utilization < 0))
    return emitError() << "'" << name
                       << "' needs all of processes, free_mib and "
                          "utilization, or none";
  return success();
}

/// `<"name" (, key = value)*>` with keys memory_limit, description,
/// processes, free_mib, utilization, each at most once.
Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  std::string name, description;
  int64_t values[4] = {0, -1, -1, -1}; // memory_limit, processes, free, util
  const char *keys[4] = {"memory_limit", "processes", "free_mib",
                         "utilization"};
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(loc) << "'" << key << "' given twice";
      return {};
    }
    if (key == "description") {
      if (parser.parseString(&description))
        return {};
      continue;
    }
    auto *it = llvm::find_if(keys, [&](const char *k) { return key == k; });
    if (it == std::end(keys)) {
      parser.emitError(loc)
          << "unknown #gplace.device key '" << key
          << "' (known: memory_limit, description, processes, free_mib, "
             "utilization)";
      return {};
    }
    if (parser.parseInteger(values[it - std::begin(keys)]))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), name, values[0], description,
                    values[1], values[2], values[3]);
}

void DeviceAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getName() << "\"";
  if (getMemoryLimit() != 0)
    printer << ", memory_limit = " << getMemoryLimit();
  if (!getDescription().empty()) {
    printer << ", description = ";
    printer.printString(getDescription());
  }
  if (getProcesses() >= 0)
    printer << ", processes = " << getProcesses()
            << ", free_mib = " << getFreeMiB()
            << ", utilization = " << getUtilization();
  printer << ">";
}

std::optional<gplace::DeviceSet>
gplace::graph::getModuleDevices(Operation *module) {
  auto list =
      module->getAttrOfType<ArrayAttr>(GraphDialect::getDevicesAttrName());
  if (!list)
    return std::nullopt;
  DeviceSet devices;
  for (Attribute attr : list) {
    auto device = dyn_cast<DeviceAttr>(attr);
    if (!device)
      continue; // The dialect's verifier reports it.
    std::optional<DeviceName> name = DeviceName::parse(device.getName());
    if (!name)
      continue;
    DeviceAttributes attributes;
    attributes.memoryLimit = device.getMemoryLimit();
    attributes.description = device.getDescription().str();
    if (device.getProcesses() >= 0)
      attributes.load = GpuLoad{static_cast<int>(device.getProcesses()),
                                device.getFreeMiB(),
                                static_cast<int>(device.getUtilization())};
    devices.add(*name, std::move(attributes));
  }
  return devices;
}

bool gplace::graph::runsOnCpusOnly(Operation *op, const DeviceSet &devices) {
  DeviceName request;
  if (auto attr = op->getAttrOfType<StringAttr>("device")) {
    std::optional<DeviceName> parsed = DeviceName::parse(attr.getValue());
    if (!parsed)
      return false; // Placement reports it.
    request = *parsed;
  }
  bool any = false;
  for (const DeviceName &device : devices.devices()) {
    if (!request.matches(device))
      continue;
    if (device.type != DeviceType::CPU)
      return false;
    any = true;
  }
  return any;
}

void gplace::graph::setModuleDevices(Operation *module,
                                     const DeviceSet &devices) {
  MLIRContext *context = module->getContext();
  SmallVector<Attribute> list;
  for (auto [index, name] : llvm::enumerate(devices.devices())) {
    const DeviceAttributes &attributes = devices.attributes(index);
    const std::optional<GpuLoad> &load = attributes.load;
    list.push_back(DeviceAttr::get(
        context, name.str(), attributes.memoryLimit, attributes.description,
        load ? load->computeProcesses : -1, load ? load->freeMiB : -1,
        load ? load->utilization : -1));
  }
  module->setAttr(GraphDialect::getDevicesAttrName(),
                  ArrayAttr::get(context, list));
}

SmallVector<Operation *> gplace::graph::pinDefaultNames(Operation *root) {
  SmallVector<Operation *> pinned;
  std::vector<std::string> names = getOpNames(root);
  size_t index = 0;
  root->walk<WalkOrder::PreOrder>([&](PlacedOpInterface op) {
    const std::string &name = names[index++];
    if (!op->hasAttr("name")) {
      op->setAttr("name", StringAttr::get(root->getContext(), name));
      pinned.push_back(op);
    }
  });
  return pinned;
}

void gplace::graph::unpinDefaultNames(ArrayRef<Operation *> pinned,
                                      const DenseSet<Operation *> &erased,
                                      const llvm::StringSet<> &changedPrefixes) {
  for (Operation *op : pinned)
    if (!erased.contains(op) &&
        !changedPrefixes.contains(
            cast<PlacedOpInterface>(op).getDefaultNamePrefix()))
      op->removeAttr("name");
}
