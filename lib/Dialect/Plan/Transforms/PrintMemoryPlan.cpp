//===- PrintMemoryPlan.cpp - the static memory plan, as a table -----------===//

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Plan/PlanDialect.h"

#include "llvm/Support/raw_ostream.h"

namespace gplace {
#define GEN_PASS_DEF_PRINTMEMORYPLANPASS
#include "gplace/Conversion/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::plan;

namespace {
struct PrintMemoryPlanPass
    : public gplace::impl::PrintMemoryPlanPassBase<PrintMemoryPlanPass> {
  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::errs();
    for (DeviceOp device : getOperation().getOps<DeviceOp>()) {
      os << "Memory plan for " << device.getDeviceName() << ": peak "
         << device.getPeakBytes() << " bytes (persistent "
         << device.getPersistentBytes() << ", arena " << device.getArenaBytes()
         << ")";
      if (device.getMemoryLimit() > 0)
        os << ", limit " << device.getMemoryLimit() << " bytes";
      os << "\n";
      for (ProgramOp program : getOperation().getOps<ProgramOp>()) {
        program.walk([&](AllocOp alloc) {
          if (alloc.getDevice() != device.getSymName())
            return;
          auto type = cast<BufferType>(alloc.getType()).getTensorType();
          int64_t bits = type.getElementTypeBitWidth();
          int64_t bytes = type.getNumElements() * (bits == 1 ? 1 : bits / 8);
          ArrayRef<int64_t> live = alloc.getLive();
          os << "  @" << program.getSymName() << " " << type << ": " << bytes
             << " bytes at [" << alloc.getOffset() << ", "
             << alloc.getOffset() + bytes << "), live steps " << live[0] << ".."
             << (live[1] < 0 ? std::string("end") : std::to_string(live[1]))
             << "\n";
        });
      }
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
