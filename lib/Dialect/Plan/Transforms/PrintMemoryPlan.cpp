//===- PrintMemoryPlan.cpp - the static memory plan, as a table -----------===//

#include "gplace/Dialect/Plan/Transforms/Liveness.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace gplace {
#define GEN_PASS_DEF_PRINTMEMORYPLANPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::plan;

namespace {
struct PrintMemoryPlanPass
    : public gplace::impl::PrintMemoryPlanPassBase<PrintMemoryPlanPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (DeviceOp device : module.getOps<DeviceOp>())
      if (!device.getPeakBytesAttr()) {
        device.emitOpError() << "has no memory plan; run --gplace-plan-memory";
        return signalPassFailure();
      }
    // Per program: its buffers' lives and its arena tables.
    struct Planned {
      mutable ProgramOp program;
      BufferLives lives;
      DenseMap<StringAttr, ArenaOp> tables;
    };
    std::vector<Planned> programs;
    for (ProgramOp program : module.getOps<ProgramOp>()) {
      FailureOr<BufferLives> lives = BufferLives::buildAsPlanned(program);
      if (failed(lives))
        return signalPassFailure();
      Planned planned{program, std::move(*lives),
                      DenseMap<StringAttr, ArenaOp>()};
      for (ArenaOp arena : program.getOps<ArenaOp>())
        planned.tables[arena.getDeviceAttr().getAttr()] = arena;
      for (const BufferLives::Buffer &buffer : planned.lives.buffers)
        if (!planned.tables.count(buffer.device)) {
          buffer.value.getDefiningOp()->emitOpError()
              << "writes a buffer on @" << buffer.device.getValue()
              << ", which has no gplan.arena; run --gplace-plan-memory";
          return signalPassFailure();
        }
      programs.push_back(std::move(planned));
    }

    llvm::raw_ostream &os = llvm::errs();
    for (DeviceOp device : module.getOps<DeviceOp>()) {
      StringAttr symbol = device.getSymNameAttr();
      auto bytes = [](IntegerAttr attr) { return attr ? attr.getInt() : 0; };
      int64_t bound = 0;
      for (const Planned &planned : programs)
        bound = std::max(bound, planned.lives.lowerBounds.lookup(symbol));
      os << "Memory plan for " << device.getDeviceName() << ": peak "
         << bytes(device.getPeakBytesAttr()) << " bytes (persistent "
         << bytes(device.getPersistentBytesAttr()) << ", arena "
         << bytes(device.getArenaBytesAttr()) << ")";
      if (int64_t limit = device.getMemoryLimitAttr().getInt())
        os << ", limit " << limit << " bytes";
      os << ", liveness lower bound "
         << bytes(device.getPersistentBytesAttr()) + bound << " bytes (arena "
         << bound << ")";
      if (std::string remat =
              describeRematerialized(module, device.getDeviceName());
          !remat.empty())
        os << ", " << remat;
      os << "\n";
      for (const Planned &planned : programs) {
        ArenaOp table = planned.tables.lookup(symbol);
        size_t index = 0;
        for (const BufferLives::Buffer &buffer : planned.lives.buffers) {
          if (buffer.device != symbol)
            continue;
          int64_t offset =
              table && index < table.getOffsets().size()
                  ? table.getOffsets()[index]
                  : -1;
          ++index;
          auto type = cast<BufferType>(buffer.value.getType()).getTensorType();
          int64_t size = getBufferBytes(cast<BufferType>(buffer.value.getType()))
                             .value_or(0);
          os << "  @" << planned.program.getSymName() << " " << type;
          auto launch = buffer.value.getDefiningOp<LaunchOp>();
          if (launch && launch.getWorkspaceBuffer() == buffer.value)
            os << " (workspace of "
               << kernelMnemonic(launch.getKernel().getKernel()) << ")";
          os << ": " << size << " bytes ";
          if (offset < 0)
            os << "in registers (fused)";
          else
            os << "at [" << offset << ", " << offset + size << ")";
          os << ", live steps " << buffer.producer << ".."
             << (buffer.last == BufferLives::kEnd
                     ? std::string("end")
                     : std::to_string(buffer.last))
             << "\n";
        }
      }
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
