//===- VerifyPlan.cpp - a plan the runtime can run -------------------------===//

#include "gplace/Dialect/Plan/Transforms/Liveness.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"

namespace gplace {
#define GEN_PASS_DEF_VERIFYPLANPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

namespace {

/// Scheduling left no tokens, joins or after(...).
LogicalResult verifyScheduled(ProgramOp program) {
  for (Operation &op : program.getBody().front()) {
    if (isa<JoinOp>(op))
      return op.emitOpError() << "is left in a scheduled plan; run "
                                 "--gplace-schedule-plan";
    bool hasAfter = false;
    if (auto launch = dyn_cast<LaunchOp>(op))
      hasAfter = !launch.getAfter().empty();
    else if (auto copy = dyn_cast<CopyOp>(op))
      hasAfter = !copy.getAfter().empty();
    else if (auto view = dyn_cast<ViewOp>(op))
      hasAfter = !view.getAfter().empty();
    if (hasAfter)
      return op.emitOpError() << "still waits on tokens; run "
                                 "--gplace-schedule-plan";
  }
  return success();
}

/// A fusion group is consecutive launches of one queue (nothing else of the
/// queue between them), with one result type, writing nothing in place.
LogicalResult verifyFusion(ProgramOp program) {
  struct Open {
    IntegerAttr group;
    Type type;
  };
  DenseMap<std::pair<StringAttr, int64_t>, Open> open;
  DenseMap<IntegerAttr, std::pair<StringAttr, int64_t>> closed;
  auto close = [&](std::pair<StringAttr, int64_t> queue) {
    auto it = open.find(queue);
    if (it != open.end() && it->second.group)
      closed[it->second.group] = queue;
    open.erase(queue);
  };
  for (Operation &op : program.getBody().front()) {
    std::pair<StringAttr, int64_t> queue;
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      queue = {launch.getDeviceAttr().getAttr(),
               launch.getStreamAttr().getInt()};
      IntegerAttr group = launch.getFusionAttr();
      Open &current = open[queue];
      if (group && current.group == group) {
        if (launch.getResult(0).getType() != current.type)
          return launch.emitOpError()
                 << "returns " << launch.getResult(0).getType()
                 << ", but its fusion group returns " << current.type;
        continue;
      }
      close(queue);
      if (!group)
        continue;
      if (closed.count(group))
        return launch.emitOpError()
               << "is in fusion group " << group.getInt()
               << ", whose launches must be consecutive on one stream";
      if (!launch.getOuts().empty() || launch.getNumResults() != 1)
        return launch.emitOpError() << "is fused but does not write exactly "
                                       "one new buffer";
      open[queue] = {group, launch.getResult(0).getType()};
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      close({copy.getDeviceAttr().getAttr(), copy.getStreamAttr().getInt()});
    } else if (auto record = dyn_cast<RecordOp>(op)) {
      close({record.getDeviceAttr().getAttr(),
             record.getStreamAttr().getInt()});
    } else if (auto wait = dyn_cast<WaitOp>(op)) {
      close({wait.getDeviceAttr().getAttr(), wait.getStreamAttr().getInt()});
    }
  }
  return success();
}

/// Every device of the program with arena buffers has one table with an
/// offset for each, -1 exactly for results fused in registers, and every
/// slot inside the arena.
LogicalResult verifyArenas(ProgramOp program,
                           const DenseMap<StringAttr, DeviceOp> &devices) {
  DenseMap<StringAttr, ArenaOp> tables;
  for (ArenaOp arena : program.getOps<ArenaOp>())
    if (!tables.try_emplace(arena.getDeviceAttr().getAttr(), arena).second)
      return arena.emitOpError()
             << "repeats the table of " << arena.getDeviceAttr();
  DenseMap<StringAttr, size_t> next;
  LogicalResult ok = success();
  forEachArenaBuffer(program, [&](Value buffer, FlatSymbolRefAttr device) {
    if (failed(ok))
      return;
    Operation *writer = buffer.getDefiningOp();
    auto table = tables.find(device.getAttr());
    if (table == tables.end()) {
      ok = writer->emitOpError() << "writes a buffer on " << device
                                 << ", which has no gplan.arena; run "
                                    "--gplace-plan-memory";
      return;
    }
    ArrayRef<int64_t> offsets = table->second.getOffsets();
    size_t index = next[device.getAttr()]++;
    if (index >= offsets.size()) {
      ok = table->second.emitOpError()
           << "has " << offsets.size() << " offsets, but the program writes "
           << "more buffers on " << device;
      return;
    }
    int64_t offset = offsets[index];
    bool inRegisters = isFusedInRegisters(buffer);
    std::optional<int64_t> bytes =
        getAlignedBytes(cast<BufferType>(buffer.getType()));
    int64_t arena = table->second.getBytesAttr().getInt();
    if (inRegisters != (offset == -1) ||
        (offset >= 0 && (!bytes || offset + *bytes > arena)))
      ok = writer->emitOpError()
           << "writes buffer #" << index << " of " << device
           << " at offset " << offset << ", which "
           << (inRegisters ? "must be -1: the value stays in registers"
                           : "does not hold it inside the arena of " +
                                 std::to_string(arena) + " bytes");
  });
  if (failed(ok))
    return failure();
  for (auto [device, table] : tables) {
    if (next.lookup(device) != table.getOffsets().size())
      return table.emitOpError()
             << "has " << table.getOffsets().size()
             << " offsets, but the program writes " << next.lookup(device)
             << " buffers on @" << device.getValue();
    DeviceOp op = devices.lookup(device);
    IntegerAttr arenaBytes = op ? op.getArenaBytesAttr() : IntegerAttr();
    if (!arenaBytes || table.getBytesAttr().getInt() > arenaBytes.getInt())
      return table.emitOpError() << "is larger than the arena_bytes of @"
                                 << device.getValue();
  }
  return success();
}

struct VerifyPlanPass
    : public gplace::impl::VerifyPlanPassBase<VerifyPlanPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseMap<StringAttr, DeviceOp> devices;
    bool ok = true;
    for (DeviceOp device : module.getOps<DeviceOp>()) {
      devices[device.getSymNameAttr()] = device;
      if (!device.getPersistentBytesAttr() || !device.getArenaBytesAttr() ||
          !device.getPeakBytesAttr()) {
        device.emitOpError() << "has no memory plan; run --gplace-plan-memory";
        ok = false;
      }
    }
    for (ProgramOp program : module.getOps<ProgramOp>()) {
      if (failed(verifyScheduled(program)) ||
          failed(Schedule::build(program)) || failed(verifyFusion(program)) ||
          failed(verifyArenas(program, devices)))
        ok = false;
    }
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
