//===- VerifyPlacement.cpp - the invariants placement establishes ---------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Dialect/Graph/KernelElementType.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace gplace {
#define GEN_PASS_DEF_VERIFYPLACEMENTPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {
struct VerifyPlacementPass
    : public gplace::impl::VerifyPlacementPassBase<VerifyPlacementPass> {
  void runOnOperation() override {
    bool ok = true;
    const KernelRegistry &registry = KernelRegistry::global();
    // Per assigned device: its type, if the name is full. Per (op, element
    // type, device type): whether a kernel exists.
    DenseMap<StringAttr, std::optional<DeviceType>> devices;
    DenseMap<std::tuple<OperationName, Type, int>, std::pair<bool, bool>>
        kernels; // (a kernel for the type, depends on attributes)
    // Per (function, name): the first variable of that name. Variables
    // sharing a name are the copies of one mirrored variable: checkpoints
    // and --init match variables by name.
    DenseMap<std::pair<Region *, StringRef>, SmallVector<PlacedOpInterface>>
        variables;
    DenseMap<const void *, bool> controlOnlyKinds;
    KernelElementTypes elementTypes;
    InterfaceCache<PlacedOpInterface> placed;
    placed.walk(getOperation(), [&](PlacedOpInterface op) {
      auto assignedAttr = op->getAttrOfType<StringAttr>("assigned_device");
      StringRef assigned = assignedAttr ? assignedAttr.getValue() : "";
      std::optional<DeviceType> deviceType;
      if (assignedAttr) {
        auto [it, isNew] = devices.try_emplace(assignedAttr);
        if (isNew) {
          std::optional<DeviceName> device = DeviceName::parse(assigned);
          if (device && device->isFullySpecified())
            it->second = device->type;
        }
        deviceType = it->second;
      }
      if (!deviceType) {
        op->emitError() << "op has no valid assigned device"
                        << (assigned.empty() ? ""
                                             : " ('" + assigned.str() + "')")
                        << "; run --gplace-place first";
        ok = false;
        return;
      }
      std::optional<Type> element = elementTypes.get(op);
      auto [kernel, isNewKernel] = kernels.try_emplace(
          {op->getName(), element.value_or(Type()),
           static_cast<int>(*deviceType)});
      if (isNewKernel) {
        std::string name = op->getName().getStringRef().str();
        kernel->second = {
            registry.hasKernel(name,
                               parseElementType(getKernelElementTypeName(op)),
                               *deviceType),
            registry.dependsOnAttributes(name)};
      }
      // Kernels that depend on the op's attributes too (a backend's row
      // with a condition, BackendKernel::unless) are asked per op.
      auto [hasTypeKernel, dependsOnAttributes] = kernel->second;
      bool hasKernel = hasTypeKernel &&
                       (!dependsOnAttributes || hasKernelFor(op, *deviceType));
      if (!hasKernel) {
        std::string typeName = getKernelElementTypeName(op);
        op->emitError() << "op is assigned to '" << assigned << "', but "
                        << deviceTypeName(*deviceType) << " has no kernel for "
                        << op->getName()
                        << (typeName.empty() ? "" : " with element type ")
                        << typeName
                        << (hasTypeKernel ? " and these attributes" : "");
        ok = false;
      }
      if (!checkVariableName(op, variables))
        ok = false;
      // Asked once per kind of op (hasTrait takes the TypeID of each of
      // the op's traits on every call).
      auto [controlOnly, isNewKind] =
          controlOnlyKinds.try_emplace(op->getName().getAsOpaquePointer());
      if (isNewKind)
        controlOnly->second = op->hasTrait<graph::OpTrait::ControlOnly>();
      if (controlOnly->second)
        return; // It reads no data: its operands stay where they are.
      for (Value operand : op.getDataOperands()) {
        if (!isa<ResourceType>(operand.getType()))
          continue;
        auto producer =
            dyn_cast_or_null<PlacedOpInterface>(operand.getDefiningOp());
        if (producer && producer.getAssignedDeviceName() != assigned) {
          op->emitError() << "op is assigned to '" << assigned
                          << "', but the resource it uses is on '"
                          << producer.getAssignedDeviceName() << "'";
          ok = false;
        }
      }
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// Checks that a variable (a persistent op whose result is a resource)
  /// named as an earlier one of its function is a copy of it, as
  /// MirroredVariable's copies are: same type and initial value, on another
  /// device than every earlier copy. Two copies on one device pass only when
  /// soft placement moved both there, away from their requests (an i64 step
  /// counter of two replicas on the CPU, the GPUs having no kernel for it);
  /// an empty request matches every device. Two variables of one name would
  /// otherwise be saved, restored and initialised (--init) as one.
  /// TensorFlow refuses a second variable of a taken name ("Variable w
  /// already exists") or renames it ("w_1").
  static bool checkVariableName(
      PlacedOpInterface op,
      DenseMap<std::pair<Region *, StringRef>, SmallVector<PlacedOpInterface>>
          &variables) {
    // The name first: most ops have none, and the cast searches the op's
    // interfaces.
    StringRef name = op.getUserName();
    if (name.empty())
      return true;
    auto persistent = dyn_cast<PersistentOpInterface>(op.getOperation());
    if (!persistent || op->getNumResults() != 1 ||
        !isa<ResourceType>(op->getResult(0).getType()))
      return true;
    SmallVector<PlacedOpInterface> &copies =
        variables[{op->getParentRegion(), name}];
    auto movedBySoftPlacement = [](PlacedOpInterface copy) {
      std::optional<DeviceName> request =
          DeviceName::parse(copy.getRequestedDevice());
      std::optional<DeviceName> assigned =
          DeviceName::parse(copy.getAssignedDeviceName());
      return request && assigned && !request->matches(*assigned);
    };
    PlacedOpInterface other;
    const char *why = nullptr;
    for (PlacedOpInterface copy : copies)
      if (copy.getAssignedDeviceName() == op.getAssignedDeviceName() &&
          !(movedBySoftPlacement(copy) && movedBySoftPlacement(op))) {
        other = copy;
        why = "on the same device";
        break;
      }
    if (!why && !copies.empty()) {
      other = copies.front();
      if (other->getResult(0).getType() != op->getResult(0).getType())
        why = "with another type";
      else if (cast<PersistentOpInterface>(other.getOperation())
                   .getInitialValue() != persistent.getInitialValue())
        why = "with another initial value";
    }
    copies.push_back(op);
    if (!why)
      return true;
    InFlightDiagnostic diag = op->emitError();
    diag << "variable '" << name << "' is declared twice, " << why
         << ": variables need distinct names (only the copies of a mirrored "
            "variable, one per device, share one)";
    diag.attachNote(other->getLoc()) << "declared earlier here";
    return false;
  }
};
} // namespace
