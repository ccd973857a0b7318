//===- VerifyDevices.cpp - check every device string of a graph -----------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace gplace {
#define GEN_PASS_DEF_VERIFYDEVICESPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {
struct VerifyDevicesPass
    : public gplace::impl::VerifyDevicesPassBase<VerifyDevicesPass> {
  void runOnOperation() override {
    bool ok = true;
    auto check = [&](Operation *op, StringRef what, StringRef spec,
                     bool mustBeFull) {
      std::string error;
      std::optional<DeviceName> name = DeviceName::parse(spec, &error);
      if (!name) {
        op->emitError() << what << ": " << error;
        ok = false;
      } else if (mustBeFull && name->otherType) {
        op->emitError() << what << ": '" << spec << "' has device type '"
                        << *name->otherType
                        << "'; gplace has devices of types CPU and GPU only";
        ok = false;
      } else if (mustBeFull && !name->isFullySpecified()) {
        op->emitError() << what << ": '" << spec
                        << "' is not a full device name "
                           "(/job:NAME/replica:N/task:N/device:TYPE:N)";
        ok = false;
      }
    };
    getOperation().walk([&](Operation *op) {
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        if (auto scope = func->getAttrOfType<StringAttr>(
                GraphDialect::getDefaultDeviceAttrName()))
          check(op, GraphDialect::getDefaultDeviceAttrName(), scope.getValue(),
                /*mustBeFull=*/false);
        return;
      }
      auto placed = dyn_cast<PlacedOpInterface>(op);
      if (!placed)
        return;
      check(op, "device", placed.getRequestedDevice(), /*mustBeFull=*/false);
      if (op->hasAttr("assigned_device"))
        check(op, "assigned_device", placed.getAssignedDeviceName(),
              /*mustBeFull=*/true);
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
