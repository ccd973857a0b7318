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
// With policy=auto, step 4 is Baechi's m-ETF instead, an analysis of its
// own (gplace/Transforms/AutoPlacement.h): PlaceAuto.cpp describes the
// function to it, then verifies and applies the device it gives each
// group. The placer's class is in Placer.h, shared by the two files.
//
//===----------------------------------------------------------------------===//

#include "Placer.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Dialect/Graph/KernelElementType.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Support/Shape.h"
#include "gplace/Transforms/CostModel.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/IntEqClasses.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace gplace {
#define GEN_PASS_DEF_PLACEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;
using namespace gplace::detail;

static std::string joinTypes(TypeMask mask) {
  std::string out;
  for (DeviceType type : {DeviceType::GPU, DeviceType::CPU})
    if (mask & maskOf(type))
      out += (out.empty() ? "" : ", ") + std::string(deviceTypeName(type));
  return out;
}

LogicalResult FunctionPlacer::run() {
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
  if (failed(collect()))
    return failure();
  buildClasses();
  if (failed(applyPolicy()) || failed(buildGroups()))
    return failure();
  return autoProfile_ ? placeAuto() : place();
}

void FunctionPlacer::writeAssignedDevices() {
  std::vector<StringAttr> attrs(devices_.size());
  for (OpInfo &info : ops_) {
    int device = groups_[classes_[info.index]].device;
    if (!attrs[device])
      attrs[device] =
          StringAttr::get(func_.getContext(), devices_[device].str());
    info.op.assignDevice(attrs[device]);
  }
}

void FunctionPlacer::printLog(llvm::raw_ostream &os) const {
  for (const OpInfo &info : ops_) {
    const Group &group = groups_[classes_[info.index]];
    os << name(info.index) << ": (" << info.op.getTensorFlowType()
       << "): " << devices_[group.device].str();
    if (info.yieldReason >= 0)
      os << " (" << softReasons_[info.yieldReason] << ")";
    if (group.softReason >= 0)
      os << " (" << softReasons_[group.softReason] << ")";
    os << "\n";
  }
}

void FunctionPlacer::report(PlacementReport &report) const {
  // Per group, the member the others are colocated with: its first
  // resource (a variable), else its first member.
  std::vector<int> principal(groups_.size(), -1);
  for (const OpInfo &info : ops_) {
    int &first = principal[classes_[info.index]];
    if (first < 0 && declaresResource(info))
      first = info.index;
  }
  std::string function = mlir::func::FuncOp(func_).getSymName().str();
  report.decisions.reserve(report.decisions.size() + ops_.size());
  for (const OpInfo &info : ops_) {
    unsigned cls = classes_[info.index];
    const Group &group = groups_[cls];
    PlacementDecision &decision = report.decisions.emplace_back();
    decision.function = function;
    decision.name = name(info.index);
    decision.device = devices_[group.device].str();
    int by = principal[cls] >= 0 ? principal[cls] : group.first;
    if (group.size > 1 && by != static_cast<int>(info.index)) {
      // SPEC §3 rule 1: it goes where its group goes.
      decision.rule = PlacementRule::Colocation;
      decision.reason =
          (declaresResource(ops_[by]) ? "colocated with resource '"
                                      : "colocated with '") +
          name(by) + "'";
      if (info.yieldReason >= 0)
        decision.reason += "; " + softReasons_[info.yieldReason];
      // As the log, the group's soft placement (not policy=auto's reason,
      // which is the group's first member's).
      if (group.softReason >= 0 && group.rule == PlacementRule::SoftPlacement)
        decision.reason += "; " + softReasons_[group.softReason];
      continue;
    }
    decision.reason = groupReason(group, info, decision.rule);
  }
}

std::string FunctionPlacer::groupReason(const Group &group, const OpInfo &at,
                                        PlacementRule &rule) const {
  rule = group.rule;
  auto heuristic = [&] {
    return std::string(group.heuristicConsumer ? "with its consumer '"
                                               : "with its producer '") +
           name(group.heuristicOp) + "'";
  };
  // A heuristic within a request: the request decided, the heuristic
  // chose among the devices it allows.
  if (rule == PlacementRule::Heuristic && group.request >= 0)
    rule = requests_[group.request].fromPolicy ? PlacementRule::Policy
                                               : PlacementRule::Request;
  std::string reason;
  switch (rule) {
  case PlacementRule::Assigned:
    return "kept its assigned device";
  case PlacementRule::Request:
  case PlacementRule::Policy: {
    const Request &request = requests_[group.request];
    if (request.fromPolicy)
      reason = "placement policy '" + policyName_ + "' returned '" +
               request.text + "'";
    else if (request.fromScope)
      reason = "device scope '" + request.text + "' (" +
               GraphDialect::getDefaultDeviceAttrName().str() + ")";
    else
      reason = "explicit request '" + request.text + "'";
    if (group.requestMember != at.index &&
        ops_[group.requestMember].request >= 0 &&
        !requests_[ops_[group.requestMember].request].fromScope)
      reason += " of colocated '" + name(group.requestMember) + "'";
    if (group.heuristicOp >= 0)
      reason += ", " + heuristic();
    return reason;
  }
  case PlacementRule::Heuristic:
    return (group.heuristicConsumer
                ? "heuristic: no inputs, placed with its consumer '"
                : "heuristic: identity-like, placed with its producer '") +
           name(group.heuristicOp) + "'";
  case PlacementRule::Priority: {
    reason = "default priority: GPU before CPU, lowest id first";
    TypeMask gpu = maskOf(DeviceType::GPU);
    if ((deviceTypes() & gpu) && !(group.kernels & gpu)) {
      reason += "; no GPU kernel for ";
      if (at.kernels & gpu)
        reason += "a colocated op";
      else {
        reason += at.op.getTensorFlowType().str();
        if (!elementTypes_[at.elementType].empty())
          reason += " with element type " + elementTypes_[at.elementType];
      }
    }
    return reason;
  }
  case PlacementRule::SoftPlacement:
  case PlacementRule::Auto:
    if (group.softReason >= 0)
      return softReasons_[group.softReason];
    return rule == PlacementRule::Auto ? "auto: the cost model's choice"
                                       : "soft placement";
  case PlacementRule::Colocation:
    break;
  }
  return "colocated";
}

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
  // Per (op, element type): the device types with a kernel, the element
  // type's name (its index) and whether the kernels also depend on the
  // op's attributes (a backend's row with a condition), then asked per op.
  struct Kernels {
    TypeMask mask;
    unsigned elementType;
    bool dependsOnAttributes;
  };
  llvm::DenseMap<std::pair<OperationName, Type>, Kernels> kernelCache;
  // Per kind of op: its ControlOnly and ForwardsInput traits.
  llvm::DenseMap<const void *, std::pair<bool, bool>> traitCache;
  KernelElementTypes elementTypes;
  const KernelRegistry &registry = KernelRegistry::global();
  int scopeRequest = scope.isEmpty() ? -1 : addRequest(scope, scopeText);
  if (scopeRequest >= 0)
    requests_[scopeRequest].fromScope = true;
  bool ok = true;
  // Full device names, for assigned devices placement keeps.
  llvm::StringMap<int> deviceIndex;
  for (auto [index, device] : llvm::enumerate(devices_))
    deviceIndex[device.str()] = index;

  InterfaceCache<PlacedOpInterface> placed;
  InterfaceCache<TransferOpInterface> transfers;
  // Nearly every op is in the body's one block: sized once rather than
  // grown (at 1M ops, about 20 reallocations and copies of the vector).
  if (!func_.getBody().empty())
    ops_.reserve(func_.getBody().front().getOperations().size());
  placed.walk(func_, [&](PlacedOpInterface op) {
    OpInfo &info = ops_.emplace_back();
    info.op = op;
    info.index = ops_.size() - 1;
    auto [traits, isNewKind] =
        traitCache.try_emplace(op->getName().getAsOpaquePointer());
    if (isNewKind)
      traits->second = {op->hasTrait<graph::OpTrait::ControlOnly>(),
                        op->hasTrait<graph::OpTrait::ForwardsInput>()};
    std::tie(info.controlOnly, info.forwardsInput) = traits->second;
    // Control-only ops (gplace.group) only order their operands.
    info.usesAResource = !info.controlOnly &&
                         llvm::any_of(op.getDataOperands(), [](Value operand) {
                           return isa<ResourceType>(operand.getType());
                         });
    // TensorFlow's IsRefOrResourceGeneratorNode: a resource out, none in.
    info.declaresAResource = !info.usesAResource &&
                             llvm::any_of(op->getResultTypes(), [](Type type) {
                               return isa<ResourceType>(type);
                             });

    // The device types with a kernel for (op, element type).
    std::optional<Type> element = elementTypes.get(op);
    auto [kernels, isNewKernel] = kernelCache.try_emplace(
        std::make_pair(op->getName(), element.value_or(Type())));
    if (isNewKernel) {
      std::string typeName = getKernelElementTypeName(op);
      std::optional<ElementType> type = parseElementType(typeName);
      std::string name = op->getName().getStringRef().str();
      TypeMask mask = 0;
      for (DeviceType device : {DeviceType::GPU, DeviceType::CPU})
        if (registry.hasKernel(name, type, device))
          mask |= maskOf(device);
      elementTypes_.push_back(std::move(typeName));
      kernels->second = {mask, static_cast<unsigned>(elementTypes_.size() - 1),
                         registry.dependsOnAttributes(name)};
    }
    info.kernels = kernels->second.mask;
    info.elementType = kernels->second.elementType;
    if (kernels->second.dependsOnAttributes) {
      info.kernels = 0;
      for (DeviceType device : {DeviceType::GPU, DeviceType::CPU})
        if (graph::hasKernelFor(op, device))
          info.kernels |= maskOf(device);
    }

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
    if (auto transfer = transfers.dynCast(op.getOperation()))
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
  // The policy places a colocation group as a unit, as TensorFlow's
  // colocate_with ignores device functions inside it: a slot variable
  // follows its primary variable (they share the optimizer's apply op),
  // a backward op its forward op. Each group is asked once, through its
  // first member without a request that does not use a resource (ops that
  // use a resource follow it), and not at all when one of its variables
  // has a request of its own.
  std::vector<int> asked(groups_.size(), -1);
  std::vector<char> pinned(groups_.size(), 0);
  for (const OpInfo &info : ops_) {
    unsigned group = classes_[info.index];
    if (info.request >= 0) {
      pinned[group] |= declaresResource(info);
      continue;
    }
    if (asked[group] < 0 && !usesResource(info))
      asked[group] = info.index;
  }
  bool ok = true;
  llvm::StringMap<int> answers;
  for (OpInfo &info : ops_) {
    unsigned group = classes_[info.index];
    if (asked[group] != static_cast<int>(info.index) || pinned[group])
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
                                : "Malformed device specification '" + *answer +
                                      "'");
      ok = false;
      continue;
    }
    info.request = cached->second;
  }
  return success(ok);
}

bool FunctionPlacer::usesResource(const OpInfo &info) const {
  return info.usesAResource; // Found by collect().
}

bool FunctionPlacer::declaresResource(const OpInfo &info) const {
  return info.declaresAResource; // Found by collect().
}

void FunctionPlacer::buildClasses() {
  // Colocation: an op that uses a resource joins the resource's group
  // (identities of resources included). Control-only ops (gplace.group)
  // only order their operands, so they join no group.
  classes_.grow(ops_.size());
  for (const OpInfo &info : ops_) {
    if (info.controlOnly)
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
}

LogicalResult FunctionPlacer::buildGroups() {
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
  }

  // The members' requests, merged per group as TensorFlow's colocation
  // graph does: first the resources' own requests (their "resource
  // devices"), then the requests of the ops that use a resource, then the
  // others'. Conflicting resource devices are an error, soft placement or
  // not; an op that uses a resource yields a conflicting request to its
  // resource's group (EnsureCompatibilityAcrossResourceEdge; noted in the
  // placement log); any other conflict is an error naming both ops.
  enum Kind { Resource, ResourceUser, Other };
  auto kindOf = [&](const OpInfo &info) {
    return declaresResource(info) ? Resource
           : usesResource(info)   ? ResourceUser
                                  : Other;
  };
  std::vector<char> merged(ops_.size(), 0);
  for (Kind kind : {Resource, ResourceUser, Other}) {
    for (const OpInfo &info : ops_) {
      Group &group = groups_[classes_[info.index]];
      if (info.request < 0 || group.failed || kindOf(info) != kind)
        continue;
      if (group.request < 0 || info.request == group.request) {
        if (group.request < 0) {
          group.request = info.request;
          group.requestMember = info.index;
        }
        merged[info.index] = 1;
        continue;
      }
      const DeviceName &mine = requests_[info.request].name;
      if (std::optional<DeviceName> both =
              DeviceName::intersect(requests_[group.request].name, mine)) {
        std::string text = both->str();
        group.request = addRequest(std::move(*both), std::move(text));
        merged[info.index] = 1;
        continue;
      }
      if (kind == ResourceUser) {
        // The edge's source: the op that gives it its (first) resource.
        unsigned source = group.requestMember;
        for (Value operand : info.op.getDataOperands())
          if (isa<ResourceType>(operand.getType())) {
            auto producer = index_.find(operand.getDefiningOp());
            if (producer != index_.end())
              source = producer->second;
            break;
          }
        softReasons_.push_back(
            "ignoring device specification '" + requests_[info.request].text +
            "' because the input edge from '" + name(source) +
            "' is a resource edge and already has a device field set to '" +
            requests_[group.request].name.str() + "'");
        ops_[info.index].yieldReason = softReasons_.size() - 1;
        continue;
      }
      // Name the member merged earlier whose own request conflicts.
      const OpInfo *other = &ops_[group.requestMember];
      for (const OpInfo &candidate : ops_)
        if (merged[candidate.index] &&
            classes_[candidate.index] == classes_[info.index] &&
            !DeviceName::intersect(requests_[candidate.request].name, mine)) {
          other = &candidate;
          break;
        }
      std::string error;
      DeviceName::intersect(requests_[other->request].name, mine, &error);
      InFlightDiagnostic diag = info.op->emitError();
      if (kind == Resource)
        diag << "Cannot place the graph because a reference or resource edge "
                "connects colocation groups with incompatible resource "
                "devices: "
             << requests_[info.request].name.str() << " vs "
             << requests_[other->request].name.str() << " ('"
             << name(info.index) << "' and '" << name(other->index)
             << "' are in one colocation group)";
      else
        diag << "Cannot colocate nodes '" << name(info.index) << "' and '"
             << name(other->index) << "': " << error;
      diag.attachNote(other->op->getLoc())
          << "'" << name(other->index)
          << (requests_[other->request].fromPolicy
                  ? "' is given '" + requests_[other->request].text +
                        "' by placement policy '" + policyName_ + "' here"
                  : "' requests '" + requests_[other->request].text +
                        "' here");
      group.failed = true;
      ok = false;
    }
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
static DeviceName softRequest(DeviceName request) {
  request.type.reset();
  request.otherType.reset();
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

FunctionPlacer::RuleOutcome
FunctionPlacer::applyRules(const Group &group) const {
  // The members, for messages only: a scan of the whole function.
  auto members = [&] {
    return llvm::make_filter_range(
        llvm::make_range(ops_.begin() + group.first, ops_.end()),
        [&](const OpInfo &info) {
          return classes_[info.index] == classes_[group.first];
        });
  };
  RuleOutcome outcome;
  llvm::raw_string_ostream diag(outcome.error);
  auto fail = [&](const OpInfo &at) {
    diag.flush();
    outcome.errorOp = at.index;
    return outcome;
  };
  // `at` cannot go where the rest of its group must (TensorFlow's words),
  // with a note at the member that asked for it.
  auto failColocated = [&](const OpInfo &at, const std::string &device,
                           const std::string &details) {
    diag << "Cannot assign a device for operation '" << name(at.index)
         << "': Could not satisfy explicit device specification '"
         << (at.request >= 0 ? requests_[at.request].text : "")
         << "' because the node '" << name(at.index)
         << "' was colocated with a group of nodes that required "
            "incompatible device '"
         << device << "'. All available devices [" << deviceSet_.str()
         << "].";
    if (!details.empty())
      diag << " (" << details << ")";
    unsigned by = group.assigned >= 0 ? group.assignedMember
                                      : group.requestMember;
    if (by != at.index) {
      outcome.noteOp = by;
      outcome.note = "'" + name(by) + "' " +
                     (group.assigned >= 0
                          ? "is assigned to '" + device + "'"
                          : "requests '" +
                                requests_[ops_[by].request].text + "'") +
                     " here";
    }
    return fail(at);
  };

  // A member without a kernel on any device type of the set, in
  // TensorFlow's words; nothing, soft placement included, can place it.
  TypeMask present = deviceTypes();
  if (!(group.kernels & present)) {
    for (const OpInfo &info : members()) {
      if (info.kernels & present)
        continue;
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
      return fail(info);
    }
  }
  // An assigned device is kept if every member has a kernel there.
  if (group.assigned >= 0) {
    TypeMask type = maskOf(*devices_[group.assigned].type);
    if (group.kernels & type) {
      outcome.device = group.assigned;
      outcome.rule = PlacementRule::Assigned;
      return outcome;
    }
    for (const OpInfo &info : members())
      if (!(info.kernels & type)) {
        if (info.assigned < 0)
          return failColocated(info, devices_[group.assigned].str(),
                               describeKernels(group, type));
        diag << "Assigned device '" << devices_[group.assigned].str()
             << "' does not have registered OpKernel support for "
             << info.op.getTensorFlowType() << " ("
             << describeKernels(group, type) << ")";
        return fail(info);
      }
    return fail(ops_[group.first]);
  }

  if (group.request < 0) {
    outcome.device = firstDevice(DeviceName(), group.kernels);
    if (outcome.device >= 0)
      return outcome;
    // Every member has a kernel on some device of the set, but no device
    // type has one for all of them.
    const OpInfo &first = ops_[group.first];
    const OpInfo *other = &first;
    for (const OpInfo &info : members())
      if (!(info.kernels & first.kernels & present)) {
        other = &info;
        break;
      }
    diag << "Cannot colocate nodes '" << name(other->index) << "' and '"
         << name(first.index)
         << "' because no device type supports both of those nodes and the "
            "other nodes colocated with them ("
         << describeKernels(group, present) << ")";
    return fail(*other);
  }

  const Request &request = requests_[group.request];
  outcome.device = firstDevice(request.name, group.kernels);
  outcome.rule =
      request.fromPolicy ? PlacementRule::Policy : PlacementRule::Request;
  if (outcome.device >= 0)
    return outcome;

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
    outcome.device = firstDevice(softRequest(request.name), group.kernels);
    if (outcome.device >= 0) {
      outcome.softReason =
          "soft placement: requested '" + request.text + "', but " + reason;
      outcome.rule = PlacementRule::SoftPlacement;
      return outcome;
    }
  }

  // The error, in TensorFlow's words (ColocationGraph::GetDevicesForNode):
  // at the member whose own request is the group's, unless another
  // member's kernels or request made the group's; then at that member,
  // "colocated with a group of nodes that required incompatible device".
  const OpInfo *own = nullptr;
  for (const OpInfo &member : members())
    if (member.request >= 0 && member.yieldReason < 0 &&
        requests_[member.request].name == request.name) {
      own = &member;
      break;
    }
  if (matched == 0) {
    if (!own)
      return failColocated(ops_[group.requestMember], request.name.str(),
                           "");
    diag << "Cannot assign a device for operation '" << name(own->index)
         << "': Could not satisfy explicit device specification '"
         << request.text << "' because " << reason << "; node '"
         << name(own->index) << "' was explicitly assigned to "
         << request.text << " but available devices are [ "
         << deviceSet_.str()
         << " ]. Make sure the device specification refers to a valid "
            "device.";
    if (request.name.type == DeviceType::GPU &&
        !(present & maskOf(DeviceType::GPU)))
      diag << " The requested device appears to be a GPU, but CUDA is not "
              "enabled.";
    return fail(*own);
  }
  // A member without a kernel on a matching device's type.
  const OpInfo *lacking = nullptr;
  for (const OpInfo &member : members())
    if ((member.kernels & matched) != matched) {
      lacking = &member;
      break;
    }
  std::string kernels = describeKernels(group, matched & ~group.kernels);
  if (!own || (lacking && lacking != own))
    return failColocated(lacking ? *lacking : ops_[group.requestMember],
                         request.name.str(), kernels);
  diag << "Cannot assign a device for operation '" << name(own->index)
       << "': Could not satisfy explicit device specification '"
       << request.text << "' because " << reason << " (" << kernels << ")";
  return fail(*own);
}

LogicalResult FunctionPlacer::placeGroup(Group &group) {
  RuleOutcome outcome = applyRules(group);
  if (outcome.device < 0) {
    InFlightDiagnostic diag = ops_[outcome.errorOp].op->emitError()
                              << outcome.error;
    if (outcome.noteOp >= 0)
      diag.attachNote(ops_[outcome.noteOp].op->getLoc()) << outcome.note;
    group.failed = true;
    return failure();
  }
  group.device = outcome.device;
  group.rule = outcome.rule;
  if (!outcome.softReason.empty()) {
    softReasons_.push_back(std::move(outcome.softReason));
    group.softReason = softReasons_.size() - 1;
  }
  return success();
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
      if (info.forwardsInput) {
        OperandRange data = info.op.getDataOperands();
        auto producer = data.empty()
                            ? index_.end()
                            : index_.find(data.front().getDefiningOp());
        if (producer != index_.end()) {
          preferred = groups_[classes_[producer->second]].device;
          if (canPlaceOn(group, preferred)) {
            group.device = preferred;
            group.rule = PlacementRule::Heuristic;
            group.heuristicOp = producer->second;
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
    int consumersDevice = -1, consumer = -1;
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
      if (consumer < 0)
        consumer = it->second;
    }
    if (sameDevice && canPlaceOn(group, consumersDevice)) {
      group.device = consumersDevice;
      group.rule = PlacementRule::Heuristic;
      group.heuristicOp = consumer;
      group.heuristicConsumer = true;
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

namespace {

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

    // Soft placement: the option's for every function, else a function's
    // gplace.allow_soft_placement (--gplace-replicate's towers) for it and
    // every function it calls, directly or not (its outlined If and While
    // bodies).
    llvm::SmallPtrSet<Operation *, 8> softFunctions;
    {
      SymbolTable symbols(module);
      SmallVector<Operation *> worklist;
      for (func::FuncOp func : module.getOps<func::FuncOp>())
        if (func->hasAttr(GraphDialect::getAllowSoftPlacementAttrName()) &&
            softFunctions.insert(func).second)
          worklist.push_back(func);
      while (!worklist.empty()) {
        Operation *caller = worklist.pop_back_val();
        std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(&caller->getRegion(0));
        if (!uses)
          continue;
        for (const SymbolTable::SymbolUse &use : *uses)
          if (Operation *callee =
                  symbols.lookup(use.getSymbolRef().getRootReference()))
            if (isa<func::FuncOp>(callee) &&
                softFunctions.insert(callee).second)
              worklist.push_back(callee);
      }
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
          func, *target, std::move(policyFn), policyName,
          allowSoftPlacement || softFunctions.contains(func),
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
    if (PlacementReport *report =
            getContext().getLoadedDialect<GraphDialect>()->getPlacementReport())
      for (const auto &placer : placers)
        placer->report(*report);

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
