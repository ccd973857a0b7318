//===- AssignDevices.cpp - the devices a module is compiled for -----------===//
//
// Writes the module's `gplace.devices`: from `devices=`, from a runtime's
// device list (createAssignDevicesPass(DeviceSet)), else keeps the module's
// own, else this process's CPU alone; `gpu-memory-limit=` sets every GPU's
// limit.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

namespace gplace {
#define GEN_PASS_DEF_ASSIGNDEVICESPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;

namespace {
struct AssignDevicesPass
    : public gplace::impl::AssignDevicesPassBase<AssignDevicesPass> {
  using AssignDevicesPassBase::AssignDevicesPassBase;
  explicit AssignDevicesPass(DeviceSet runtimeDevices)
      : runtimeDevices(std::move(runtimeDevices)) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Options first: nothing is touched if they are wrong.
    // Option errors have no location in the IR.
    Location optionLoc = UnknownLoc::get(&getContext());
    if (gpuMemoryLimit < 0 || gpuMemoryLimit > (INT64_MAX >> 20)) {
      emitError(optionLoc)
          << "gplace-assign-devices: gpu-memory-limit must be "
                            "from 0 to "
                         << (INT64_MAX >> 20) << " MiB, but is "
                         << static_cast<int64_t>(gpuMemoryLimit);
      return signalPassFailure();
    }
    std::optional<DeviceSet> target;
    if (!devices.empty()) {
      std::string error;
      target = DeviceSet::parse(devices, &error);
      if (!target) {
        emitError(optionLoc) << "gplace-assign-devices: " << error;
        return signalPassFailure();
      }
    } else if (runtimeDevices) {
      target = runtimeDevices;
    } else {
      target = graph::getModuleDevices(module);
    }
    if (!target) {
      target.emplace();
      target->add(DeviceName::local(DeviceType::CPU, 0));
    }
    if (target->empty()) {
      // As --gplace-place (TensorFlow's placer): a module's device list
      // is never empty (the attribute's verifier).
      emitError(optionLoc) << "gplace-assign-devices: No devices are "
                              "registered (the device list is empty)";
      return signalPassFailure();
    }
    if (gpuMemoryLimit > 0)
      for (size_t i = 0; i < target->size(); ++i)
        if (target->devices()[i].type == DeviceType::GPU)
          target->attributes(i).memoryLimit =
              static_cast<int64_t>(gpuMemoryLimit) << 20;
    Attribute before = module->getAttr(graph::GraphDialect::getDevicesAttrName());
    graph::setModuleDevices(module, *target);
    // The same devices again: the IR is unchanged, so the pass manager
    // need not verify it again.
    if (before && before == module->getAttr(graph::GraphDialect::getDevicesAttrName()))
      markAllAnalysesPreserved();
  }

  std::optional<DeviceSet> runtimeDevices;
};
} // namespace

std::unique_ptr<Pass> gplace::createAssignDevicesPass(DeviceSet devices) {
  return std::make_unique<AssignDevicesPass>(std::move(devices));
}
