//===- SizeWorkspaces.cpp - each launch's workspace in the plan ----------===//
//
// Asks the kernel library the tool registered (WorkspaceDialectInterface)
// for each launch's workspace and gives the launch a `workspace` result of
// that size, for --gplace-plan-memory to reserve, as XLA's convolution
// algorithm picker gives a cuDNN custom call its scratch buffer.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Dialect/Plan/WorkspaceInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace gplace {
#define GEN_PASS_DEF_SIZEWORKSPACESPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

namespace {

/// `launch` again with a workspace of `bytes`: its last buffer result
/// (before the token of a launch writing in place). Uses of the old
/// results move to the new ones.
void addWorkspace(LaunchOp launch, int64_t bytes) {
  OpBuilder builder(launch);
  SmallVector<Type> types(launch.getResultTypes());
  size_t position = types.size();
  if (position > 0 && isa<TokenType>(types.back()))
    --position;
  types.insert(types.begin() + position,
               BufferType::get(
                   builder.getContext(),
                   RankedTensorType::get({bytes}, builder.getIntegerType(
                                                      8, /*isSigned=*/false))));
  OperationState state(launch.getLoc(), launch->getName());
  state.addOperands(launch->getOperands());
  state.addTypes(types);
  state.propertiesAttr = launch->getPropertiesAsAttribute();
  state.addAttributes(launch->getDiscardableAttrDictionary().getValue());
  auto replacement = cast<LaunchOp>(builder.create(state));
  replacement.setWorkspace(true);
  for (auto [index, result] : llvm::enumerate(launch.getResults()))
    result.replaceAllUsesWith(
        replacement.getResult(index < position ? index : index + 1));
  launch.erase();
}

struct SizeWorkspacesPass
    : public gplace::impl::SizeWorkspacesPassBase<SizeWorkspacesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto *dialect = getContext().getLoadedDialect<PlanDialect>();
    const auto *library =
        dialect ? dialect->getRegisteredInterface<WorkspaceDialectInterface>()
                : nullptr;
    if (!library)
      return markAllAnalysesPreserved(); // No library: no workspaces.
    DenseMap<StringAttr, DeviceOp> devices;
    for (DeviceOp device : module.getOps<DeviceOp>())
      devices[device.getSymNameAttr()] = device;
    bool changed = false;
    for (ProgramOp program : module.getOps<ProgramOp>())
      for (LaunchOp launch : llvm::make_early_inc_range(
               program.getBody().front().getOps<LaunchOp>())) {
        if (launch.getWorkspace() || launch.getFusionAttr())
          continue;
        DeviceOp device = devices.lookup(launch.getDeviceAttr().getAttr());
        if (!device)
          continue; // The verifier reports it.
        FailureOr<std::optional<int64_t>> bytes =
            library->getWorkspaceBytes(launch, device);
        if (failed(bytes))
          return signalPassFailure();
        if (!*bytes || **bytes <= 0)
          continue;
        addWorkspace(launch, **bytes);
        changed = true;
      }
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
