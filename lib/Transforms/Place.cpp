//===- Place.cpp - TensorFlow's placer as a pass --------------------------===//
//
// Assigns each graph op a device (SPEC §3). The algorithm is TensorFlow's
// Placer over colocation groups (common_runtime/placer.cc and
// colocation_graph.cc), linear in ops plus edges:
//
//   1. per op: its name, kernels, and `device` merged into the function's
//      device scope;
//   2. per op without a request: the policy's answer;
//   3. union-find colocation groups over resource edges; per group, the
//      intersection of the members' requests and kernel device types, and
//      the members' assigned device;
//   4. per group, in textual order: a device (the assigned one, kept as
//      TensorFlow keeps it; heuristics within the request; the request;
//      priority), with soft placement or an error when none fits;
//      generators wait for a second pass, as in TensorFlow.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/Transforms/Arena.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Support/Shape.h"
#include "gplace/Transforms/CostModel.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/IntEqClasses.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"


namespace gplace {
#define GEN_PASS_DEF_PLACEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// A set of device types, one bit each.
using TypeMask = unsigned;
TypeMask maskOf(DeviceType type) { return 1u << static_cast<unsigned>(type); }
constexpr TypeMask kAnyType = (1u << static_cast<unsigned>(DeviceType::GPU)) |
                              (1u << static_cast<unsigned>(DeviceType::CPU));

std::string joinTypes(TypeMask mask) {
  std::string out;
  for (DeviceType type : {DeviceType::GPU, DeviceType::CPU})
    if (mask & maskOf(type))
      out += (out.empty() ? "" : ", ") + std::string(deviceTypeName(type));
  return out;
}

/// Places the graph ops of one function.
class FunctionPlacer {
public:
  /// `autoProfile`: place the ops without a request by the cost model
  /// under the devices' memory limits (policy=auto) with these rates.
  FunctionPlacer(func::FuncOp func, const DeviceSet &devices,
                 std::optional<PolicyFn> policy, std::string policyName,
                 bool allowSoftPlacement,
                 const CostProfile *autoProfile = nullptr)
      : func_(func), devices_(devices.devices()), deviceSet_(devices),
        policy_(std::move(policy)), policyName_(std::move(policyName)),
        allowSoftPlacement_(allowSoftPlacement), autoProfile_(autoProfile) {}

  /// Places every op. Reports every error and returns failure if any.
  LogicalResult run() {
    // Only graph ops can be placed; a call (TensorFlow places a function's
    // body where it is called) must be inlined first.
    WalkResult foreign = func_.walk([&](Operation *op) {
      if (op == func_.getOperation() || isa<PlacedOpInterface>(op) ||
          op->hasTrait<mlir::OpTrait::IsTerminator>())
        return WalkResult::advance();
      InFlightDiagnostic diag = op->emitError()
                                << "'" << op->getName()
                                << "' is not a gplace op and cannot be placed";
      if (isa<CallOpInterface>(op))
        diag << "; inline the call first (gplace-opt --inline "
                "--symbol-dce)";
      return WalkResult::interrupt();
    });
    if (foreign.wasInterrupted())
      return failure();
    if (failed(collect()) || failed(applyPolicy()) || failed(buildGroups()))
      return failure();
    return autoProfile_ ? placeAuto() : place();
  }

  /// Writes `assigned_device` on every op.
  void writeAssignedDevices() {
    std::vector<StringAttr> attrs(devices_.size());
    for (OpInfo &info : ops_) {
      int device = groups_[classes_[info.index]].device;
      if (!attrs[device])
        attrs[device] =
            StringAttr::get(func_.getContext(), devices_[device].str());
      info.op.assignDevice(attrs[device]);
    }
  }

  /// Prints one log line per op, in textual order:
  /// `name: (TensorFlowType): /job:.../device:GPU:0`.
  void printLog(llvm::raw_ostream &os) const {
    for (const OpInfo &info : ops_) {
      const Group &group = groups_[classes_[info.index]];
      os << name(info.index) << ": (" << info.op.getTensorFlowType()
         << "): " << devices_[group.device].str();
      if (group.softReason >= 0)
        os << " (" << softReasons_[group.softReason] << ")";
      os << "\n";
    }
  }

private:
  /// A device request and its text as written (for messages).
  struct Request {
    DeviceName name;
    std::string text;
    bool fromPolicy = false; ///< The placement policy's answer, not the user's.
  };
  struct OpInfo {
    mutable PlacedOpInterface op; // Interface calls are non-const.
    unsigned index = 0;
    int request = -1;         ///< Into requests_; -1 for none.
    TypeMask kernels = 0;     ///< Device types with a kernel for the op.
    unsigned elementType = 0; ///< Into elementTypes_.
    int assigned = -1;        ///< Into devices_: its valid assigned_device.
  };
  struct Group {
    int request = -1;           ///< Into requests_; -1 for none.
    unsigned requestMember = 0; ///< The first member with a request.
    int assigned = -1;          ///< Into devices_: the members' assigned one.
    unsigned assignedMember = 0;
    unsigned first = 0;         ///< The first member in textual order.
    unsigned size = 0;
    TypeMask kernels = kAnyType;
    int device = -1;
    int softReason = -1; ///< Into softReasons_; -1 if not soft-placed.
    bool failed = false;
  };

  LogicalResult collect();
  LogicalResult applyPolicy();
  LogicalResult buildGroups();
  LogicalResult place();
  LogicalResult placeAuto();
  /// One placement of policy=auto within `budget` (bytes per device, 0 for
  /// none): fills `planned` with what the memory plan will need per device
  /// and `estimated` with the peak the placement itself counted.
  LogicalResult placeAutoWithin(const std::vector<int64_t> &budget,
                                std::vector<int64_t> &planned,
                                std::vector<int64_t> &estimated);
  LogicalResult placeGroup(Group &group);
  /// After placeGroup soft-placed `group`: moves it to `device` (the device
  /// a heuristic prefers, or -1) if soft placement allows that device.
  void preferSoftCandidate(Group &group, int device) const;
  /// Counts one more error in `errors`; at the 20th, reports that placement
  /// of the function stopped and returns true.
  bool tooManyErrors(unsigned &errors) {
    constexpr unsigned kMaxErrors = 20;
    if (++errors < kMaxErrors)
      return false;
    emitError(func_.getLoc()) << "placement stopped after " << kMaxErrors
                              << " errors in this function";
    return true;
  }
  int firstDevice(const DeviceName &request, TypeMask kernels) const;
  bool canPlaceOn(const Group &group, int device) const;
  TypeMask deviceTypes() const;
  bool isGenerator(const OpInfo &info) const;
  std::string describeKernels(const Group &group, TypeMask wanted) const;
  int addRequest(DeviceName name, std::string text) {
    requests_.push_back({std::move(name), std::move(text)});
    return requests_.size() - 1;
  }
  /// The op's name, user-given or TensorFlow's default; computed on first
  /// use (messages, the log, policies), as most runs need none.
  const std::string &name(unsigned index) const {
    if (names_.empty())
      names_ = getOpNames(func_);
    return names_[index];
  }

  func::FuncOp func_;
  const std::vector<DeviceName> &devices_;
  const DeviceSet &deviceSet_;
  std::optional<PolicyFn> policy_;
  std::string policyName_;
  bool allowSoftPlacement_;
  const CostProfile *autoProfile_;

  std::vector<OpInfo> ops_;
  std::vector<Request> requests_;
  std::vector<std::string> elementTypes_; ///< "f32", ...; "" for typeless.
  std::vector<std::string> softReasons_;
  mutable std::vector<std::string> names_;
  mutable TypeMask deviceTypes_ = 0; ///< Of devices_; computed on first use.
  llvm::DenseMap<Operation *, unsigned> index_;
  llvm::IntEqClasses classes_;
  std::vector<Group> groups_; ///< Indexed by colocation class.
};

LogicalResult FunctionPlacer::collect() {
  // The function's device scope (`with tf.device(...)` around the body).
  DeviceName scope;
  std::string scopeText;
  if (auto attr = func_->getAttrOfType<StringAttr>(
          GraphDialect::getDefaultDeviceAttrName())) {
    std::string error;
    std::optional<DeviceName> parsed =
        DeviceName::parse(attr.getValue(), &error);
    if (!parsed)
      return func_.emitError()
             << GraphDialect::getDefaultDeviceAttrName() << ": " << error;
    scope = *parsed;
    scopeText = attr.getValue().str();
  }

  // Requests and kernels are cached: graphs repeat a few of each.
  llvm::DenseMap<StringAttr, int> requestCache;
  llvm::DenseMap<std::pair<OperationName, Type>, std::pair<TypeMask, unsigned>>
      kernelCache;
  const KernelRegistry &registry = KernelRegistry::global();
  int scopeRequest = scope.isEmpty() ? -1 : addRequest(scope, scopeText);
  bool ok = true;
  // Full device names, for assigned devices placement keeps.
  llvm::StringMap<int> deviceIndex;
  for (auto [index, device] : llvm::enumerate(devices_))
    deviceIndex[device.str()] = index;

  func_.walk([&](PlacedOpInterface op) {
    OpInfo &info = ops_.emplace_back();
    info.op = op;
    info.index = ops_.size() - 1;

    // The device types with a kernel for (op, element type).
    std::optional<Type> element = getKernelElementType(op);
    auto [kernels, isNewKernel] = kernelCache.try_emplace(
        std::make_pair(op->getName(), element.value_or(Type())));
    if (isNewKernel) {
      std::string typeName = getKernelElementTypeName(op);
      std::optional<ElementType> type = parseElementType(typeName);
      TypeMask mask = 0;
      for (DeviceType device : {DeviceType::GPU, DeviceType::CPU})
        if (registry.hasKernel(op->getName().getStringRef().str(), type,
                               device))
          mask |= maskOf(device);
      elementTypes_.push_back(std::move(typeName));
      kernels->second = {mask, elementTypes_.size() - 1};
    }
    info.kernels = kernels->second.first;
    info.elementType = kernels->second.second;

    // A device assigned already (an earlier placement) is kept, as
    // TensorFlow's placer keeps a node's assigned device; one that is not a
    // device of the set is an error.
    StringRef assigned = op.getAssignedDeviceName();
    if (!assigned.empty()) {
      auto found = deviceIndex.find(assigned);
      if (found == deviceIndex.end()) {
        op->emitError() << "Assigned device '" << assigned
                        << "' does not match any device; available devices: "
                        << deviceSet_.str()
                        << " (remove assigned_device to place the op again)";
        ok = false;
      } else {
        info.assigned = found->second;
      }
    }

    // The request, merged into the scope: the inner request wins. A
    // transfer (a copy or token inserted by an earlier pass) stays on its
    // destination.
    StringAttr deviceAttr = op->getAttrOfType<StringAttr>("device");
    if (auto transfer = dyn_cast<TransferOpInterface>(op.getOperation()))
      deviceAttr = transfer.getDestinationDevice();
    if (!deviceAttr || deviceAttr.getValue().empty()) {
      info.request = scopeRequest;
      return;
    }
    // Only valid requests are cached, so every bad op gets its own error.
    auto cached = requestCache.find(deviceAttr);
    if (cached != requestCache.end()) {
      info.request = cached->second;
      return;
    }
    std::string error;
    std::optional<DeviceName> request =
        DeviceName::parse(deviceAttr.getValue(), &error);
    std::optional<DeviceName> merged;
    if (!request) {
      op->emitError() << error;
      ok = false;
    } else if (!(merged = DeviceName::merge(scope, *request, &error))) {
      op->emitError() << "Cannot assign a device for operation '"
                      << name(info.index) << "': " << error;
      ok = false;
    } else {
      std::string text =
          scope.isEmpty() ? deviceAttr.getValue().str() : merged->str();
      info.request = addRequest(std::move(*merged), std::move(text));
      requestCache[deviceAttr] = info.request;
    }
  });
  // Indexed once all are known: sized once rather than grown.
  index_.reserve(ops_.size());
  for (const OpInfo &info : ops_)
    index_[info.op] = info.index;
  return success(ok);
}

LogicalResult FunctionPlacer::applyPolicy() {
  if (!policy_)
    return success();
  bool ok = true;
  llvm::StringMap<int> answers;
  for (OpInfo &info : ops_) {
    if (info.request >= 0)
      continue;
    // Ops that use a resource follow it, as TensorFlow's colocate_with
    // ignores device functions: the policy sees the variable only.
    if (!info.op->hasTrait<graph::OpTrait::ControlOnly>() &&
        llvm::any_of(info.op.getDataOperands(), [](Value operand) {
          return isa<ResourceType>(operand.getType());
        }))
      continue;
    Operation *op = info.op;
    PolicyOp view;
    view.name = name(info.index);
    view.tensorFlowType = info.op.getTensorFlowType();
    view.opName = op->getName().getStringRef();
    view.requestedDevice = info.op.getRequestedDevice();
    view.elementType = elementTypes_[info.elementType];
    if (op->getNumResults() == 1) {
      Type type = op->getResult(0).getType();
      view.isVariable = isa<ResourceType>(type);
      if (auto resource = dyn_cast<ResourceType>(type))
        type = resource.getValueType();
      if (auto tensor = dyn_cast<RankedTensorType>(type)) {
        view.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
        std::optional<ElementType> element =
            parseElementType(view.elementType);
        view.resultBytes =
            element ? checkedTensorBytes(view.shape, *element).value_or(
                          std::numeric_limits<int64_t>::max())
                    : 0;
      }
    }
    std::optional<std::string> answer = (*policy_)(view, deviceSet_);
    if (!answer || answer->empty())
      continue;
    auto [cached, isNew] = answers.try_emplace(*answer, -1);
    std::string error;
    if (isNew) {
      if (std::optional<DeviceName> request =
              DeviceName::parse(*answer, &error))
        cached->second = addRequest(*request, *answer);
      if (cached->second >= 0)
        requests_[cached->second].fromPolicy = true;
    }
    if (cached->second < 0) {
      op->emitError() << "placement policy '" << policyName_
                      << "' returned an invalid device for operation '"
                      << name(info.index) << "': "
                      << (isNew ? error
                                : "invalid device specification '" + *answer +
                                      "'");
      ok = false;
      continue;
    }
    info.request = cached->second;
  }
  return success(ok);
}

LogicalResult FunctionPlacer::buildGroups() {
  // Colocation: an op that uses a resource joins the resource's group
  // (identities of resources included). Control-only ops (gplace.group)
  // only order their operands, so they join no group.
  classes_.grow(ops_.size());
  for (const OpInfo &info : ops_) {
    if (info.op->hasTrait<graph::OpTrait::ControlOnly>())
      continue;
    for (Value operand : info.op.getDataOperands()) {
      if (!isa<ResourceType>(operand.getType()))
        continue;
      auto producer = index_.find(operand.getDefiningOp());
      if (producer != index_.end())
        classes_.join(info.index, producer->second);
    }
  }
  // Explicit colocation (TensorFlow's `_class = ["loc:@name"]`): backward
  // ops go with their forward op. A name no op has is ignored, as
  // TensorFlow ignores a colocation constraint on a node it cannot find.
  llvm::StringMap<unsigned> byName;
  for (const OpInfo &info : ops_) {
    auto target = info.op->getAttrOfType<StringAttr>(
        GraphDialect::getColocateWithAttrName());
    if (!target)
      continue;
    if (byName.empty())
      for (const OpInfo &other : ops_)
        byName.try_emplace(name(other.index), other.index);
    auto it = byName.find(target.getValue());
    if (it != byName.end())
      classes_.join(info.index, it->second);
  }
  classes_.compress();
  groups_.resize(classes_.getNumClasses());

  bool ok = true;
  for (const OpInfo &info : ops_) {
    Group &group = groups_[classes_[info.index]];
    if (group.size++ == 0)
      group.first = info.index;
    group.kernels &= info.kernels;

    if (info.assigned >= 0 && info.assigned != group.assigned) {
      if (group.assigned < 0) {
        group.assigned = info.assigned;
        group.assignedMember = info.index;
      } else {
        InFlightDiagnostic diag = info.op->emitError();
        diag << "Cannot place the graph because a reference or resource edge "
                "connects colocation groups with incompatible assigned "
                "devices: '"
             << devices_[info.assigned].str() << "' vs '"
             << devices_[group.assigned].str() << "'";
        diag.attachNote(ops_[group.assignedMember].op->getLoc())
            << "'" << name(group.assignedMember) << "' is assigned to '"
            << devices_[group.assigned].str() << "' here";
        group.failed = true;
        ok = false;
      }
    }

    if (info.request < 0 || info.request == group.request)
      continue;
    if (group.request < 0) {
      group.request = info.request;
      group.requestMember = info.index;
      continue;
    }
    const DeviceName &mine = requests_[info.request].name;
    if (std::optional<DeviceName> merged =
            DeviceName::intersect(requests_[group.request].name, mine)) {
      std::string text = merged->str();
      group.request = addRequest(std::move(*merged), std::move(text));
      continue;
    }
    // Conflicting requests in one group are an error naming both (SPEC §3;
    // TensorFlow instead lets the consumer's request yield across a
    // resource edge: docs/placement.md). Name the earlier member whose own
    // request conflicts with this one.
    const OpInfo *other = &ops_[group.requestMember];
    for (unsigned j = group.requestMember; j < info.index; ++j) {
      const OpInfo &candidate = ops_[j];
      if (classes_[j] == classes_[info.index] && candidate.request >= 0 &&
          !DeviceName::intersect(requests_[candidate.request].name, mine)) {
        other = &candidate;
        break;
      }
    }
    std::string error;
    DeviceName::intersect(requests_[other->request].name, mine, &error);
    InFlightDiagnostic diag = info.op->emitError();
    diag << "Cannot colocate nodes '" << name(info.index) << "' and '"
         << name(other->index) << "': " << error;
    diag.attachNote(other->op->getLoc())
        << "'" << name(other->index)
        << (requests_[other->request].fromPolicy
                ? "' is given '" + requests_[other->request].text +
                      "' by placement policy '" + policyName_ + "' here"
                : "' requests '" + requests_[other->request].text + "' here");
    group.failed = true;
    ok = false;
  }
  return success(ok);
}

int FunctionPlacer::firstDevice(const DeviceName &request,
                                TypeMask kernels) const {
  // devices_ is sorted by priority: GPU before CPU, lowest id first.
  for (auto [index, device] : llvm::enumerate(devices_))
    if ((kernels & maskOf(*device.type)) && request.matches(device))
      return index;
  return -1;
}

bool FunctionPlacer::isGenerator(const OpInfo &info) const {
  // TensorFlow's IsGeneratorNode: no inputs and one output.
  Operation *op = info.op;
  return info.op.getDataOperands().empty() && op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType());
}

std::string FunctionPlacer::describeKernels(const Group &group,
                                            TypeMask wanted) const {
  std::string out;
  for (const OpInfo &info : ops_) {
    if (classes_[info.index] != classes_[group.first] ||
        (info.kernels & wanted) == wanted)
      continue;
    out += out.empty() ? "" : "; ";
    out += info.op.getTensorFlowType().str() + " '" + name(info.index) + "'";
    if (!elementTypes_[info.elementType].empty())
      out += " with element type " + elementTypes_[info.elementType];
    out += info.kernels
               ? " has kernels for " + joinTypes(info.kernels) + " only"
               : " has no kernel";
  }
  return out;
}

/// TensorFlow's soft placement of `request`: its job, replica and task
/// kept, any device type and id.
DeviceName softRequest(DeviceName request) {
  request.type.reset();
  request.id.reset();
  return request;
}

void FunctionPlacer::preferSoftCandidate(Group &group, int device) const {
  // Soft-placed (its request matches no device that can run it): every
  // device of the request's job and task with a kernel is a candidate, and
  // TensorFlow's heuristics take the consumers' (or the producer's) among
  // them, as its placer does among GetDevicesForNode's soft candidates.
  if (device < 0 || group.softReason < 0 || group.request < 0 ||
      !(group.kernels & maskOf(*devices_[device].type)))
    return;
  if (softRequest(requests_[group.request].name).matches(devices_[device]))
    group.device = device;
}

bool FunctionPlacer::canPlaceOn(const Group &group, int device) const {
  return device >= 0 && (group.kernels & maskOf(*devices_[device].type)) &&
         (group.request < 0 ||
          requests_[group.request].name.matches(devices_[device]));
}

TypeMask FunctionPlacer::deviceTypes() const {
  if (!deviceTypes_)
    for (const DeviceName &device : devices_)
      deviceTypes_ |= maskOf(*device.type);
  return deviceTypes_;
}

LogicalResult FunctionPlacer::placeGroup(Group &group) {
  // The members, for messages only: a scan of the whole function.
  auto members = [&] {
    return llvm::make_filter_range(
        llvm::make_range(ops_.begin() + group.first, ops_.end()),
        [&](const OpInfo &info) {
          return classes_[info.index] == classes_[group.first];
        });
  };
  auto fail = [&] {
    group.failed = true;
    return failure();
  };

  // A member without a kernel on any device type of the set, in
  // TensorFlow's words; nothing, soft placement included, can place it.
  TypeMask present = deviceTypes();
  if (!(group.kernels & present)) {
    for (const OpInfo &info : members()) {
      if (info.kernels & present)
        continue;
      InFlightDiagnostic diag = info.op->emitError();
      diag << "Cannot assign a device for operation '" << name(info.index)
           << "': No OpKernel was registered to support Op '"
           << info.op.getTensorFlowType() << "' used by node '"
           << name(info.index) << "' with these attrs: [";
      if (!elementTypes_[info.elementType].empty())
        diag << "T=" << elementTypes_[info.elementType];
      diag << "]; registered devices: [" << joinTypes(present)
           << "]; registered kernels: ";
      std::string kernels;
      for (DeviceType type : {DeviceType::GPU, DeviceType::CPU})
        if (info.kernels & maskOf(type))
          kernels += (kernels.empty() ? "device='" : ", device='") +
                     std::string(deviceTypeName(type)) + "'";
      diag << (kernels.empty() ? "<no registered kernels>" : kernels);
      return fail();
    }
  }
  // An assigned device is kept if every member has a kernel there.
  if (group.assigned >= 0) {
    TypeMask type = maskOf(*devices_[group.assigned].type);
    if (group.kernels & type) {
      group.device = group.assigned;
      return success();
    }
    for (const OpInfo &info : members())
      if (!(info.kernels & type)) {
        info.op->emitError()
            << "Assigned device '" << devices_[group.assigned].str()
            << "' does not have registered OpKernel support for "
            << info.op.getTensorFlowType() << " ("
            << describeKernels(group, type) << ")";
        break;
      }
    return fail();
  }

  if (group.request < 0) {
    group.device = firstDevice(DeviceName(), group.kernels);
    if (group.device >= 0)
      return success();
    // Every member has a kernel on some device of the set, but no device
    // type has one for all of them.
    const OpInfo &first = ops_[group.first];
    const OpInfo *other = &first;
    for (const OpInfo &info : members())
      if (!(info.kernels & first.kernels & present)) {
        other = &info;
        break;
      }
    other->op->emitError()
        << "Cannot colocate nodes '" << name(other->index) << "' and '"
        << name(first.index)
        << "' because no device type supports both of those nodes and the "
           "other nodes colocated with them ("
        << describeKernels(group, present) << ")";
    return fail();
  }

  const Request &request = requests_[group.request];
  group.device = firstDevice(request.name, group.kernels);
  if (group.device >= 0)
    return success();

  // Why not: nothing matches the request, or nothing that matches has a
  // kernel for every member.
  TypeMask matched = 0;
  for (const DeviceName &device : devices_)
    if (request.name.matches(device))
      matched |= maskOf(*device.type);
  std::string reason =
      matched == 0
          ? "no devices matching that specification are registered in this "
            "process"
          : "no supported kernel for " + joinTypes(matched & ~group.kernels) +
                " devices is available";

  if (allowSoftPlacement_) {
    // TensorFlow's soft placement: keep job, replica and task; any device
    // type and id with a kernel, by priority.
    group.device = firstDevice(softRequest(request.name), group.kernels);
    if (group.device >= 0) {
      softReasons_.push_back("soft placement: requested '" + request.text +
                             "', but " + reason);
      group.softReason = softReasons_.size() - 1;
      return success();
    }
  }

  const OpInfo &info = ops_[group.requestMember];
  InFlightDiagnostic diag = info.op->emitError();
  diag << "Cannot assign a device for operation '" << name(info.index)
       << "': Could not satisfy explicit device specification '" << request.text
       << "' because " << reason;
  if (matched == 0)
    diag << "; available devices: " << deviceSet_.str();
  else
    diag << " (" << describeKernels(group, matched & ~group.kernels) << ")";
  return fail();
}

LogicalResult FunctionPlacer::place() {
  // Every failing group is reported, up to a limit: a graph placed for the
  // wrong devices would otherwise print an error per op (and MLIR prints
  // each op with its function's numbering, quadratic in the ops).
  unsigned errors = 0;
  auto tooMany = [&] { return tooManyErrors(errors); };
  std::vector<unsigned> generators;
  for (const OpInfo &info : ops_) {
    Group &group = groups_[classes_[info.index]];
    if (group.device >= 0 || group.failed)
      continue;
    // The heuristics apply whether or not the op has a request, to the
    // devices the request allows (TensorFlow's placer restricts them to
    // GetDevicesForNode); an assigned device is kept.
    int preferred = -1;
    if (group.assigned < 0 && group.size == 1) {
      // Heuristic A: generators go where their consumers go (second pass).
      if (isGenerator(info)) {
        generators.push_back(info.index);
        continue;
      }
      // Heuristic B: identity-like ops go where their producer is.
      if (info.op->hasTrait<graph::OpTrait::ForwardsInput>()) {
        OperandRange data = info.op.getDataOperands();
        auto producer = data.empty()
                            ? index_.end()
                            : index_.find(data.front().getDefiningOp());
        if (producer != index_.end()) {
          preferred = groups_[classes_[producer->second]].device;
          if (canPlaceOn(group, preferred)) {
            group.device = preferred;
            continue;
          }
        }
      }
    }
    if (failed(placeGroup(group))) {
      if (tooMany())
        return failure();
      continue;
    }
    preferSoftCandidate(group, preferred);
  }

  for (unsigned index : generators) {
    const OpInfo &info = ops_[index];
    Group &group = groups_[classes_[index]];
    int consumersDevice = -1;
    bool sameDevice = !info.op->use_empty();
    for (Operation *user : info.op->getUsers()) {
      // A result of the function is fetched, not consumed: TensorFlow's
      // session places the graph before it adds its fetch nodes.
      if (user->hasTrait<mlir::OpTrait::IsTerminator>())
        continue;
      auto it = index_.find(user);
      int device =
          it == index_.end() ? -1 : groups_[classes_[it->second]].device;
      if (device < 0 || (consumersDevice >= 0 && device != consumersDevice)) {
        sameDevice = false;
        break;
      }
      consumersDevice = device;
    }
    if (sameDevice && canPlaceOn(group, consumersDevice)) {
      group.device = consumersDevice;
      continue;
    }
    if (failed(placeGroup(group))) {
      if (tooMany())
        return failure();
      continue;
    }
    preferSoftCandidate(group, sameDevice ? consumersDevice : -1);
  }
  return success(errors == 0);
}

//===----------------------------------------------------------------------===//
// policy=auto: memory-constrained earliest finish time (Baechi's m-ETF)
//===----------------------------------------------------------------------===//

/// Bytes as the log and errors print them: "256 MiB", "1.5 GiB", "812 B".
std::string formatSize(int64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = bytes;
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  // Three digits, but never an exponent: 1023.9 KiB is "1024 KiB", not
  // "1.02e+03 KiB".
  os << llvm::format(unit == 0 || value >= 100 ? "%.0f %s" : "%.3g %s", value,
                     units[unit]);
  return out;
}

/// Seconds as the log prints them: "1.8 ms", "12 us".
std::string formatSeconds(double seconds) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (seconds >= 1e-3)
    os << llvm::format("%.3g ms", seconds * 1e3);
  else
    os << llvm::format("%.3g us", seconds * 1e6);
  return out;
}

/// "GPU:1" for a device of this process's task, else the full name.
std::string shortName(const DeviceName &device) {
  std::string full = device.str();
  llvm::StringRef local = "/job:localhost/replica:0/task:0/device:";
  return llvm::StringRef(full).starts_with(local)
             ? full.substr(local.size())
             : full;
}

LogicalResult FunctionPlacer::placeAuto() {
  // The placement packs each device's buffers as the memory planner does,
  // but makes a copy when its consumer is placed, where the plan makes it
  // right after its producer (--gplace-insert-copies), so the plan may need
  // a little more. Each device over its limit then gets a budget lowered
  // by what the placement's count missed (the plan's need less the
  // placement's peak), below the peak it counted, so that the next
  // placement must differ; it starts again (at most as many times more as
  // there are devices, plus 2), and a placement still over is left to the
  // memory planner's error.
  std::vector<int64_t> budget;
  for (unsigned d = 0; d < devices_.size(); ++d)
    budget.push_back(deviceSet_.attributes(d).memoryLimit);
  std::vector<Group> initial = groups_;
  size_t reasons = softReasons_.size();
  for (unsigned attempt = 0;; ++attempt) {
    std::vector<int64_t> planned, estimated;
    if (failed(placeAutoWithin(budget, planned, estimated)))
      return failure();
    bool over = false;
    for (unsigned d = 0; d < devices_.size(); ++d) {
      int64_t limit = deviceSet_.attributes(d).memoryLimit;
      if (limit > 0 && planned[d] > limit) {
        // Lowering by the excess over the limit alone (planned - limit)
        // could leave the budget above the placement's own peak, and the
        // same placement came back. Never 0 or less: that reads as no
        // limit.
        int64_t missed = planned[d] - estimated[d];
        budget[d] = std::max<int64_t>(1, std::min(budget[d], limit - missed));
        over = true;
      }
    }
    // A lowered budget may move the excess onto another device, which is
    // then lowered in turn: room for each device to be lowered once more
    // than the first round's.
    if (!over || attempt == devices_.size() + 2)
      return success();
    groups_ = initial;
    softReasons_.resize(reasons);
  }
}

LogicalResult
FunctionPlacer::placeAutoWithin(const std::vector<int64_t> &budget,
                                std::vector<int64_t> &planned,
                                std::vector<int64_t> &estimated) {
  // The places each op is put in program order, one at a time: an op
  // whose group has no device yet goes to the device where it would finish
  // first (its operands copied there, the device free), among those that
  // can run the whole group and still fit it in their memory limit; an op
  // with no inputs from outside its group (a variable, its reads, a
  // constant) waits and goes where its first consumer goes (TensorFlow's
  // generator heuristic, extended to colocation groups).
  const int numDevices = devices_.size();
  std::vector<DeviceRates> rates;
  std::vector<int64_t> limit;
  int hostIndex = -1;
  for (int d = 0; d < numDevices; ++d) {
    rates.push_back(autoProfile_->device(devices_[d]));
    limit.push_back(deviceSet_.attributes(d).memoryLimit);
    if (devices_[d].str() == kHostDevice)
      hostIndex = d;
  }

  // Views: the lowering gives an op that forwards its input (identity,
  // reshape, a variable's read) no memory of its own, unless it is a read
  // of a variable something writes, which may be copied (GraphToPlan's
  // needsCopy; counted as a copy here, the larger case).
  auto isView = [&](const OpInfo &info) {
    Operation *op = info.op;
    if (!graph::forwardsInput(op) || info.op.getDataOperands().empty())
      return false;
    Value source = info.op.getDataOperands().front();
    return !(isa<ResourceType>(source.getType()) &&
             isa<RankedTensorType>(op->getResult(0).getType()) &&
             graph::isVariableWritten(getResourceRoot(source)));
  };
  // Last uses in program order, a view's uses counting for the value whose
  // memory it is; the function's results live to the end.
  constexpr unsigned kForever = ~0u;
  llvm::DenseMap<Value, unsigned> lastUse;
  llvm::DenseMap<Value, Value> aliasOf;
  std::vector<char> view(ops_.size(), 0);
  auto rootOf = [&](Value value) {
    auto it = aliasOf.find(value);
    return it == aliasOf.end() ? value : it->second;
  };
  auto use = [&](Value value, unsigned when) {
    lastUse[value] = when;
    Value root = rootOf(value);
    if (root != value)
      lastUse[root] = when;
  };
  for (const OpInfo &info : ops_) {
    for (Value operand : info.op->getOperands())
      use(operand, info.index);
    if (isView(info)) {
      view[info.index] = 1;
      aliasOf[info.op->getResult(0)] =
          rootOf(info.op.getDataOperands().front());
    }
  }
  for (Block &block : func_.getBody())
    if (!block.empty() &&
        block.back().hasTrait<mlir::OpTrait::IsTerminator>())
      for (Value result : block.back().getOperands())
        use(result, kForever);

  std::vector<OpCost> costs;
  costs.reserve(ops_.size());
  std::vector<int64_t> groupPersistent(groups_.size(), 0);
  for (const OpInfo &info : ops_) {
    costs.push_back(getOpCost(info.op));
    if (isa<PersistentOpInterface>(info.op.getOperation()))
      for (Value result : info.op->getResults())
        groupPersistent[classes_[info.index]] += getTypeBytes(result.getType());
  }
  // The memory plan gives each buffer aligned memory (plan::kAlignment).
  auto liveBytes = [](Value value) -> int64_t {
    if (!isa<RankedTensorType>(value.getType()))
      return 0;
    return llvm::alignTo(getTypeBytes(value.getType()), plan::kAlignment);
  };

  std::vector<double> available(numDevices, 0);
  // Each device's constants and variables, and its arena, packed as the
  // memory planner packs it (first fit in program order, one queue: the
  // steps below are the ops in the order they are scheduled).
  std::vector<int64_t> persistent(numDevices, 0);
  std::vector<plan::FirstFitArena> arenas(numDevices);
  unsigned step = 0;
  auto noWait = [](unsigned, unsigned) { return false; };
  auto allocate = [&](plan::FirstFitArena &arena, int64_t bytes) {
    return arena.allocate(bytes, {step}, noWait).first;
  };
  auto freeBuffer = [&](int d, int64_t offset, int64_t bytes) {
    if (d >= 0 && bytes > 0 && offset >= 0)
      arenas[d].release(offset, bytes, {{0u, step}});
  };
  LinkTimeline links(*autoProfile_, devices_);
  struct ValueState : ValueTimeline {
    int64_t bytes = 0;       ///< Live bytes of the value (0: a view).
    int64_t copyBytes = 0;   ///< Live bytes of each copy.
    int64_t offset = -1;     ///< Its buffer's offset in its arena.
    llvm::SmallVector<int64_t, 1> copyOffsets; ///< Each copy's offset.
    bool persistent = false; ///< Not in the arena (constants, variables,
                             ///< arguments on the host).
    bool freed = false;
  };
  llvm::DenseMap<Value, ValueState> values;
  std::vector<char> scheduled(ops_.size(), 0), skipped(ops_.size(), 0);
  std::vector<std::vector<unsigned>> pending(groups_.size());

  auto state = [&](Value value) -> ValueState & {
    auto [it, isNew] = values.try_emplace(value);
    if (isNew) { // A function argument: fed on the host.
      it->second.device = hostIndex;
      it->second.copyBytes = liveBytes(value);
      it->second.persistent = true;
    }
    return it->second;
  };
  // When `value` is on device `d`: at once, or after a copy (made if
  // `commit`, taking memory on `d` until the value's last use). `isNew`
  // says whether a copy would be made.
  auto arrival = [&](Value value, int d, bool commit, bool *isNew) {
    ValueState &st = state(value);
    int64_t bytes = isa<RankedTensorType>(value.getType())
                        ? getTypeBytes(value.getType())
                        : 0;
    double end = links.arrival(st, bytes, d, commit, isNew);
    if (commit && *isNew)
      st.copyOffsets.push_back(d >= 0 && st.copyBytes > 0
                                   ? allocate(arenas[d], st.copyBytes)
                                   : -1);
    return end;
  };
  auto release = [&](Value value) {
    ValueState &st = state(value);
    if (st.freed)
      return;
    st.freed = true;
    if (!st.persistent)
      freeBuffer(st.device, st.offset, st.bytes);
    for (auto [k, copy] : llvm::enumerate(st.copies))
      freeBuffer(copy.first, st.copyOffsets[k], st.copyBytes);
  };
  auto inUse = [&](int d) { return persistent[d] + arenas[d].size(); };
  // What a device may hold in this attempt: its limit, or on a retry the
  // limit lowered by what the plan's copies needed beyond it (placeAuto).
  auto capacity = [&](int d) {
    std::string text = formatSize(budget[d]);
    if (budget[d] < limit[d])
      text += " (its " + formatSize(limit[d]) +
              " limit less what the plan's copies needed beyond it)";
    return text;
  };
  // Fixes group `cls` on device `d`: its constants and variables take
  // persistent memory there.
  auto commitGroup = [&](unsigned cls, int d) {
    groups_[cls].device = d;
    persistent[d] += groupPersistent[cls];
  };
  // The producer of `value` if it is an op of the function not yet
  // scheduled (it waits for its group's device).
  auto waitingProducer = [&](Value value) -> std::optional<unsigned> {
    Operation *producer = value.getDefiningOp();
    if (!producer)
      return std::nullopt;
    auto it = index_.find(producer);
    if (it == index_.end() || scheduled[it->second] || skipped[it->second])
      return std::nullopt;
    return it->second;
  };

  struct Choice {
    double finish = 0;
    /// Constants and variables it brings; bytes of the tensors it makes
    /// (results and copies); how much they grow the arena.
    int64_t persistentExtra = 0, liveExtra = 0, growth = 0;
    bool fits = true;
  };
  // Op `i` (its group without a device yet) evaluated on device `d`.
  auto evaluate = [&](unsigned i, int d) {
    const OpInfo &info = ops_[i];
    unsigned cls = classes_[i];
    Choice choice;
    choice.persistentExtra = groupPersistent[cls];
    llvm::SmallVector<unsigned, 4> pulled;
    llvm::SmallVector<int64_t, 4> buffers; // New in the arena, in order.
    double start = 0;
    for (Value operand : info.op->getOperands()) {
      if (std::optional<unsigned> producer = waitingProducer(operand)) {
        // It would come here with its group, if the group can.
        unsigned group = classes_[*producer];
        if (group != cls && !llvm::is_contained(pulled, group) &&
            canPlaceOn(groups_[group], d)) {
          pulled.push_back(group);
          choice.persistentExtra += groupPersistent[group];
        }
        if (!isa<PersistentOpInterface>(ops_[*producer].op.getOperation()) &&
            !view[*producer])
          buffers.push_back(liveBytes(operand));
        continue;
      }
      bool isNew;
      start = std::max(start, arrival(operand, d, /*commit=*/false, &isNew));
      if (isNew)
        buffers.push_back(liveBytes(operand));
    }
    const OpCost &cost = costs[i];
    if (cost.runsKernel)
      start = std::max(start, available[d]);
    choice.finish = start + cost.seconds(rates[d]);
    if (!isa<PersistentOpInterface>(info.op.getOperation()) && !view[i])
      for (Value result : info.op->getResults())
        buffers.push_back(liveBytes(result));
    // The arena after the op's buffers are taken, as schedule() takes them.
    plan::FirstFitArena trial = arenas[d];
    for (int64_t bytes : buffers) {
      choice.liveExtra += bytes;
      if (bytes > 0)
        allocate(trial, bytes);
    }
    choice.growth = trial.size() - arenas[d].size();
    choice.fits = budget[d] <= 0 || persistent[d] + choice.persistentExtra +
                                            trial.size() <=
                                        budget[d];
    return choice;
  };

  auto reason = [&](Group &group, std::string text) {
    softReasons_.push_back(std::move(text));
    group.softReason = softReasons_.size() - 1;
  };

  // The largest tensors of the function, for an infeasible graph's error.
  auto largestTensors = [&] {
    std::vector<std::pair<int64_t, unsigned>> sizes;
    for (const OpInfo &info : ops_) {
      int64_t bytes = 0;
      for (Value result : info.op->getResults())
        bytes += getTypeBytes(result.getType());
      if (bytes > 0)
        sizes.push_back({-bytes, info.index});
    }
    std::sort(sizes.begin(), sizes.end());
    std::string out;
    for (unsigned k = 0; k < sizes.size() && k < 3; ++k)
      out += (k ? ", '" : "'") + name(sizes[k].second) + "' (" +
             formatSize(-sizes[k].first) + ")";
    return out;
  };

  // Gives op `i`'s group a device.
  auto decide = [&](unsigned i) -> LogicalResult {
    unsigned cls = classes_[i];
    Group &group = groups_[cls];
    llvm::SmallVector<int, 8> candidates;
    if (group.assigned < 0)
      for (int d = 0; d < numDevices; ++d)
        if (canPlaceOn(group, d))
          candidates.push_back(d);
    if (candidates.size() <= 1) {
      // Kept, requested, or soft-placed by TensorFlow's rules.
      if (failed(placeGroup(group)))
        return failure();
      commitGroup(cls, group.device);
      return success();
    }
    std::vector<Choice> choices;
    int best = -1, fastest = -1;
    for (auto [k, d] : llvm::enumerate(candidates)) {
      choices.push_back(evaluate(i, d));
      if (fastest < 0 || choices[k].finish < choices[fastest].finish)
        fastest = k;
      if (choices[k].fits &&
          (best < 0 || choices[k].finish < choices[best].finish))
        best = k;
    }
    if (best < 0) {
      InFlightDiagnostic diag = ops_[i].op->emitError();
      diag << "Cannot place '" << name(i)
           << "' under the devices' memory limits (policy=auto): it needs "
           << formatSize(choices[0].persistentExtra)
           << " for constants and variables and "
           << formatSize(choices[0].liveExtra)
           << " for tensors on one device; ";
      for (auto [k, d] : llvm::enumerate(candidates))
        diag << (k ? ", " : "") << shortName(devices_[d]) << " has "
             << formatSize(inUse(d)) << " in use of " << capacity(d);
      diag << "; the largest tensors: " << largestTensors();
      group.failed = true;
      return failure();
    }
    int d = candidates[best];
    if (choices[fastest].finish < choices[best].finish) {
      reason(group,
             "auto: " + shortName(devices_[candidates[fastest]]) +
                 " would finish " +
                 formatSeconds(choices[best].finish - choices[fastest].finish) +
                 " earlier but lacks the memory (needs " +
                 formatSize(choices[fastest].persistentExtra +
                            choices[fastest].growth) +
                 " more, " + formatSize(inUse(candidates[fastest])) +
                 " in use of " + capacity(candidates[fastest]) + ")");
    } else {
      int second = -1;
      for (unsigned k = 0; k < choices.size(); ++k)
        if ((int)k != best &&
            (second < 0 || choices[k].finish < choices[second].finish))
          second = k;
      double gain = choices[second].finish - choices[best].finish;
      reason(group,
             gain > 0 ? "auto: " + formatSeconds(gain) +
                            " earlier finish than " +
                            shortName(devices_[candidates[second]])
                      : "auto: finishes as early as " +
                            shortName(devices_[candidates[second]]) +
                            ", which comes later by priority");
    }
    commitGroup(cls, d);
    return success();
  };

  auto schedule = [&](unsigned j) {
    const OpInfo &info = ops_[j];
    int d = groups_[classes_[j]].device;
    double start = 0;
    for (Value operand : info.op->getOperands()) {
      bool isNew;
      start = std::max(start, arrival(operand, d, /*commit=*/true, &isNew));
    }
    const OpCost &cost = costs[j];
    if (cost.runsKernel)
      start = std::max(start, available[d]);
    double finish = start + cost.seconds(rates[d]);
    if (cost.runsKernel)
      available[d] = finish;
    bool isPersistent = isa<PersistentOpInterface>(info.op.getOperation());
    for (Value result : info.op->getResults()) {
      ValueState &st = values[result];
      st.device = d;
      st.time = finish;
      st.copyBytes = liveBytes(result);
      st.bytes = view[j] ? 0 : st.copyBytes;
      st.persistent = isPersistent;
      if (!isPersistent && st.bytes > 0)
        st.offset = allocate(arenas[d], st.bytes);
    }
    scheduled[j] = 1;
    for (Value operand : info.op->getOperands())
      if (lastUse.lookup(operand) == j)
        release(operand);
    for (Value result : info.op->getResults())
      if (!lastUse.count(result))
        release(result);
    ++step;
  };
  auto runPending = [&](unsigned cls) {
    for (unsigned k : pending[cls])
      schedule(k);
    pending[cls].clear();
  };

  unsigned errors = 0;
  auto tooMany = [&] { return tooManyErrors(errors); };
  // A group that could not be placed: its ops, and those fed by them, are
  // skipped (never scheduled, never waited for); its error stands for them.
  auto skipGroup = [&](unsigned cls) {
    groups_[cls].failed = true;
    for (unsigned k : pending[cls])
      skipped[k] = 1;
    pending[cls].clear();
  };
  auto fedBySkipped = [&](const OpInfo &info) {
    return llvm::any_of(info.op->getOperands(), [&](Value operand) {
      Operation *producer = operand.getDefiningOp();
      auto it = producer ? index_.find(producer) : index_.end();
      return it != index_.end() && skipped[it->second];
    });
  };
  for (const OpInfo &info : ops_) {
    unsigned i = info.index, cls = classes_[i];
    Group &group = groups_[cls];
    if (group.failed || fedBySkipped(info)) {
      skipped[i] = 1;
      continue;
    }
    if (group.device < 0) {
      bool waits = group.assigned < 0 &&
                   llvm::all_of(info.op->getOperands(), [&](Value operand) {
                     Operation *producer = operand.getDefiningOp();
                     auto it = producer ? index_.find(producer) : index_.end();
                     return it != index_.end() && classes_[it->second] == cls;
                   });
      if (waits) {
        pending[cls].push_back(i);
        continue;
      }
      if (failed(decide(i))) {
        // The groups that waited for it fail with it: one error, not one
        // per variable it would have pulled along.
        for (Value operand : info.op->getOperands())
          if (std::optional<unsigned> producer = waitingProducer(operand))
            skipGroup(classes_[*producer]);
        skipGroup(cls);
        skipped[i] = 1;
        if (tooMany())
          return failure();
        continue;
      }
      runPending(cls);
    }
    // The groups waiting for this op: with it where they can be.
    int d = group.device;
    bool ready = true;
    for (Value operand : info.op->getOperands()) {
      std::optional<unsigned> producer = waitingProducer(operand);
      if (!producer)
        continue;
      unsigned other = classes_[*producer];
      Group &waiting = groups_[other];
      if (waiting.device < 0) {
        if (canPlaceOn(waiting, d)) {
          commitGroup(other, d);
          reason(waiting, "auto: with its consumer '" + name(i) + "'");
        } else if (failed(decide(*producer))) {
          skipGroup(other);
          ready = false;
          if (tooMany())
            return failure();
          continue;
        }
      }
      runPending(other);
    }
    if (ready)
      schedule(i);
    else
      skipped[i] = 1;
  }
  // Groups no op consumed (an unused variable): by their first op.
  for (unsigned cls = 0; cls < groups_.size(); ++cls) {
    if (pending[cls].empty() || groups_[cls].device >= 0 ||
        groups_[cls].failed)
      continue;
    if (failed(decide(pending[cls].front()))) {
      skipGroup(cls);
      if (tooMany())
        return failure();
      continue;
    }
    runPending(cls);
  }
  if (errors)
    return failure();

  // What the memory plan will need on each device for this placement: the
  // same packing, each copy made right after its producer (function
  // arguments' copies first) and kept to its last consumer on its device.
  std::vector<plan::FirstFitArena> plannedArenas(numDevices);
  struct Buffer {
    int device;
    int64_t offset, bytes;
  };
  std::vector<llvm::SmallVector<Buffer, 1>> freeAfter(ops_.size());
  step = 0;
  auto deviceOf = [&](Operation *op) -> int {
    auto it = index_.find(op);
    return it == index_.end() ? -1 : groups_[classes_[it->second]].device;
  };
  // The copies of `value` (made on `from`): one per other device with a
  // consumer, in the order of their first consumers.
  auto makeCopies = [&](Value value, int from) {
    if (!isa<RankedTensorType>(value.getType()))
      return;
    llvm::SmallVector<std::pair<int, unsigned>, 2> last; // device, op
    llvm::SmallVector<unsigned, 4> users;
    for (Operation *user : value.getUsers())
      if (!user->hasTrait<graph::OpTrait::ControlOnly>() &&
          index_.count(user))
        users.push_back(index_.lookup(user));
    llvm::sort(users);
    for (unsigned u : users) {
      int d = groups_[classes_[u]].device;
      if (d == from || d < 0)
        continue;
      auto *it = llvm::find_if(last, [&](auto &e) { return e.first == d; });
      if (it == last.end())
        last.push_back({d, u});
      else
        it->second = u;
    }
    for (auto [d, u] : last) {
      int64_t bytes = liveBytes(value);
      if (bytes > 0)
        freeAfter[u].push_back(
            {d, allocate(plannedArenas[d], bytes), bytes});
    }
  };
  for (BlockArgument argument : func_.getArguments())
    makeCopies(argument, hostIndex);
  ++step;
  for (const OpInfo &info : ops_) {
    unsigned i = info.index;
    int d = deviceOf(info.op);
    if (!isa<PersistentOpInterface>(info.op.getOperation()) && !view[i])
      for (Value result : info.op->getResults()) {
        int64_t bytes = liveBytes(result);
        auto last = lastUse.find(result);
        if (bytes <= 0 || d < 0)
          continue;
        Buffer buffer{d, allocate(plannedArenas[d], bytes), bytes};
        if (last == lastUse.end())
          freeAfter[i].push_back(buffer);
        else if (last->second != kForever)
          freeAfter[last->second].push_back(buffer);
      }
    for (const Buffer &buffer : freeAfter[i])
      plannedArenas[buffer.device].release(buffer.offset, buffer.bytes,
                                           {{0u, step}});
    ++step;
    for (Value result : info.op->getResults())
      makeCopies(result, d);
    ++step;
  }
  planned.assign(numDevices, 0);
  estimated.assign(numDevices, 0);
  for (int d = 0; d < numDevices; ++d) {
    planned[d] = persistent[d] + plannedArenas[d].size();
    estimated[d] = inUse(d);
  }
  return success();
}

/// The policy name that asks for automatic placement.
constexpr llvm::StringLiteral kAutoPolicy = "auto";

struct PlacePass : public gplace::impl::PlacePassBase<PlacePass> {
  using PlacePassBase::PlacePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();

    // Options first: nothing is touched if they are wrong. The devices:
    // the option's, else the module's (--gplace-assign-devices), else this
    // process's CPU alone.
    // Option errors have no location in the IR: MLIR reports them at an
    // unknown location ("<unknown>:0: error: ..."), as its own.
    Location optionLoc = UnknownLoc::get(&getContext());
    std::optional<DeviceSet> target;
    if (!devices.empty()) {
      std::string error;
      target = DeviceSet::parse(devices, &error);
      if (!target) {
        emitError(optionLoc) << "gplace-place: " << error;
        return signalPassFailure();
      }
    } else if (!(target = getModuleDevices(module))) {
      target.emplace();
      target->add(DeviceName::local(DeviceType::CPU, 0));
    }
    if (target->empty()) {
      // TensorFlow's placer: "No devices are registered".
      emitError(devices.empty() ? module.getLoc() : optionLoc)
          << "gplace-place: No devices are registered (the device list is "
             "empty)";
      return signalPassFailure();
    }
    const PolicyRegistry &policies =
        getContext().getLoadedDialect<GraphDialect>()->getPolicies();
    // `auto` is the placer's own: it sees the whole graph, not one op.
    auto isKnown = [&](StringRef name) {
      return name == kAutoPolicy || policies.create(name.str()).has_value();
    };
    auto unknownPolicy = [&](Location at, StringRef name) {
      std::vector<std::string> names = policies.names();
      names.push_back(kAutoPolicy.str());
      llvm::sort(names);
      emitError(at) << "unknown placement policy '" << name
                    << "'; known policies: " << llvm::join(names, ", ");
    };
    if (!policy.empty() && !isKnown(policy)) {
      unknownPolicy(optionLoc, policy);
      return signalPassFailure();
    }
    // The cost model's rates, read once.
    std::string profileError;
    std::optional<CostProfile> rates =
        CostProfile::loadOrDefaults(profile, &profileError);
    if (!rates) {
      emitError(optionLoc) << "gplace-place: " << profileError;
      return signalPassFailure();
    }

    bool ok = true;
    std::vector<std::unique_ptr<FunctionPlacer>> placers;
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      std::string policyName = policy;
      if (auto attr = func->getAttrOfType<StringAttr>(
              GraphDialect::getDevicePolicyAttrName()))
        policyName = attr.getValue().str();
      std::optional<PolicyFn> policyFn;
      bool isAuto = policyName == kAutoPolicy;
      if (!policyName.empty() && !isAuto) {
        policyFn = policies.create(policyName);
        if (!policyFn) {
          unknownPolicy(func.getLoc(), policyName);
          ok = false;
          continue;
        }
      }
      auto placer = std::make_unique<FunctionPlacer>(
          func, *target, std::move(policyFn), policyName, allowSoftPlacement,
          isAuto ? &*rates : nullptr);
      if (failed(placer->run())) {
        ok = false;
        continue;
      }
      placer->writeAssignedDevices();
      placers.push_back(std::move(placer));
    }
    if (!ok)
      return signalPassFailure();

    if (logDevicePlacement) {
      llvm::raw_ostream &os = llvm::errs();
      printDeviceMapping(os, *target);
      for (const auto &placer : placers)
        placer->printLog(os);
      os.flush();
    }
  }

  /// TensorFlow's "Device mapping:" block: one line per GPU.
  static void printDeviceMapping(llvm::raw_ostream &os,
                                 const DeviceSet &target) {
    os << "Device mapping:";
    bool any = false;
    for (auto [index, device] : llvm::enumerate(target.devices())) {
      if (device.type != DeviceType::GPU)
        continue;
      const std::string &description = target.attributes(index).description;
      os << "\n"
         << device.str() << " -> "
         << (!description.empty()
                 ? description
                 : "device: " + std::to_string(*device.id) +
                       ", name: unknown, pci bus id: unknown, compute "
                       "capability: unknown");
      any = true;
    }
    os << (any ? "\n" : " no known devices.\n");
  }
};

} // namespace
