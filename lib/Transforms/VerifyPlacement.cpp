//===- VerifyPlacement.cpp - the invariants placement establishes ---------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
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
    getOperation().walk([&](PlacedOpInterface op) {
      StringRef assigned = op.getAssignedDeviceName();
      std::string error;
      std::optional<DeviceName> device = DeviceName::parse(assigned, &error);
      if (assigned.empty() || !device || !device->isFullySpecified()) {
        op->emitError() << "op has no valid assigned device"
                        << (assigned.empty() ? ""
                                             : " ('" + assigned.str() + "')")
                        << "; run --gplace-place first";
        ok = false;
        return;
      }
      std::string typeName = getKernelElementTypeName(op);
      if (!registry.hasKernel(op->getName().getStringRef().str(),
                              parseElementType(typeName), *device->type)) {
        op->emitError() << "op is assigned to '" << assigned << "', but "
                        << deviceTypeName(*device->type)
                        << " has no kernel for " << op->getName()
                        << (typeName.empty() ? "" : " with element type ")
                        << typeName;
        ok = false;
      }
      if (op->hasTrait<graph::OpTrait::ControlOnly>())
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
};
} // namespace
