//===- VerifyPlan.cpp - a plan the runtime can run ------------------------===//

#include "gplace/Dialect/Plan/Transforms/Arena.h"
#include "gplace/Dialect/Plan/Transforms/Liveness.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"

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

/// Every event a step waits for is recorded on another stream (a stream
/// runs its own steps in order).
LogicalResult verifyWaits(Operation &op, FlatSymbolRefAttr device,
                          IntegerAttr stream) {
  for (Value event : getStepWaits(&op)) {
    auto record = event.getDefiningOp<RecordOp>();
    if (record && record.getDeviceAttr() == device &&
        record.getStreamAttr() == stream)
      return op.emitOpError() << "waits for an event of its own stream ("
                              << device << " stream " << stream.getInt() << ")";
  }
  return success();
}

/// In one walk of a program that Schedule::build took (`schedule`): the
/// steps' waits (verifyWaits), and each fusion group is consecutive
/// launches of one queue (nothing else of the queue between them), with
/// one result type, writing nothing in place. The queues are the
/// schedule's (a device and a stream), taken in the walk's order.
LogicalResult verifySteps(ProgramOp program, const Schedule &schedule) {
  struct Open {
    IntegerAttr group;
    Type type;
  };
  ArrayRef<Schedule::Step> steps = schedule.steps();
  std::vector<Open> open(schedule.queues().size());
  DenseSet<IntegerAttr> closed; ///< Groups that ended.
  auto close = [&](unsigned queue) {
    if (open[queue].group)
      closed.insert(open[queue].group);
    open[queue] = {};
  };
  size_t cursor = 0, recordCursor = 0;
  for (Operation &op : program.getBody().front()) {
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      if (failed(
              verifyWaits(op, launch.getDeviceAttr(), launch.getStreamAttr())))
        return failure();
      unsigned queue = steps[schedule.stepInWalk(&op, cursor)].queue;
      IntegerAttr group = launch.getFusionAttr();
      Open &current = open[queue];
      if (group && current.group == group) {
        if (!launch.getWaits().empty())
          return launch.emitOpError()
                 << "waits for events inside fusion group " << group.getInt()
                 << "; only a group's first launch may wait";
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
      if (failed(verifyWaits(op, copy.getDeviceAttr(), copy.getStreamAttr())))
        return failure();
      close(steps[schedule.stepInWalk(&op, cursor)].queue);
    } else if (isa<RecordOp>(op)) {
      // A record on a queue without steps closes nothing.
      if (std::optional<unsigned> queue =
              schedule.recordQueueInWalk(&op, recordCursor))
        close(*queue);
    }
  }
  return success();
}

/// Every device of the program with arena buffers has one table with an
/// offset for each, -1 exactly for results fused in registers, and every
/// slot inside the arena. Appends each buffer's offset to `bufferOffsets`, in
/// forEachArenaBuffer's order.
LogicalResult verifyArenas(ProgramOp program,
                           const DenseMap<StringAttr, DeviceOp> &devices,
                           std::vector<int64_t> &bufferOffsets) {
  DenseMap<StringAttr, ArenaOp> tables;
  for (ArenaOp arena : program.getOps<ArenaOp>())
    if (!tables.try_emplace(arena.getDeviceAttr().getAttr(), arena).second)
      return arena.emitOpError()
             << "repeats the table of " << arena.getDeviceAttr();
  DenseMap<StringAttr, size_t> next;
  // A program has few buffer types: each one's size is computed once.
  DenseMap<Type, std::optional<int64_t>> bytesOfType;
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
    bufferOffsets.push_back(offset);
    bool inRegisters = isFusedInRegisters(buffer);
    auto [known, isNew] = bytesOfType.try_emplace(buffer.getType());
    if (isNew)
      known->second = getAlignedBytes(cast<BufferType>(buffer.getType()));
    std::optional<int64_t> bytes = known->second;
    int64_t arena = table->second.getBytesAttr().getInt();
    if (inRegisters != (offset == -1) ||
        (offset >= 0 && (!bytes || *bytes > arena || offset > arena - *bytes)))
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

/// By the happens-before order of streams and events (vector clocks):
/// every step that uses an arena buffer (through views) on another stream
/// than the step writing it runs after that step, and a step writing a
/// buffer into memory of the arena that earlier buffers held runs after
/// every use of them. `offsets` gives each arena buffer's offset, -1 for
/// none, in the order of `lives.buffers`.
LogicalResult verifyOrder(ProgramOp program, const Schedule &schedule,
                          const BufferLives &lives, ArrayRef<int64_t> offsets) {
  ArrayRef<Schedule::Step> steps = schedule.steps();
  const DenseMap<Value, unsigned> &indexOf = lives.indexOf;
  std::vector<SmallVector<unsigned, 1>> produced(steps.size());
  for (auto [index, buffer] : llvm::enumerate(lives.buffers))
    if (offsets[index] >= 0)
      produced[buffer.producer].push_back(index);

  DenseMap<StringAttr, ArenaTenants> tenants;

  ClockWalk walk(schedule);
  size_t cursor = 0; // Into schedule.inOrder().
  for (Operation &op : program.getBody().front()) {
    std::optional<unsigned> step = walk.enter(&op);
    if (step) {
      ArrayRef<unsigned> clock = walk.clock(steps[*step].queue);
      // Memory the step writes was free.
      for (unsigned index : produced[*step]) {
        const BufferLives::Buffer &buffer = lives.buffers[index];
        if (buffer.bytes == 0)
          continue; // Holds no byte: it displaces no tenant.
        int64_t begin = offsets[index];
        LogicalResult ok = tenants[buffer.device].take(
            begin, begin + buffer.bytes, index,
            [&](unsigned displaced) -> LogicalResult {
              const BufferLives::Buffer &old = lives.buffers[displaced];
              if (old.last != BufferLives::kEnd &&
                  unknownUses(old.lastUses, clock).empty())
                return success();
              if (buffer.sharesWith == displaced &&
                  offsets[displaced] == begin)
                return success(); // In place, at the operand's last use.
              return buffer.value.getDefiningOp()->emitOpError()
                     << "writes a buffer at offset " << begin << " of @"
                     << buffer.device.getValue() << " while the buffer of "
                     << old.value.getDefiningOp()->getName()
                     << " there may still be in use";
            });
        if (failed(ok))
          return failure();
      }
    }
    auto ran = llvm::make_scope_exit([&] {
      if (step)
        walk.ran(*step);
    });
    if (!isa<LaunchOp, CopyOp>(op))
      continue;
    // What the op reads or writes in place was written before it.
    const Schedule::Step &reader = steps[schedule.stepInWalk(&op, cursor)];
    ArrayRef<unsigned> clock = walk.clock(reader.queue);
    auto check = [&](Value operand) -> LogicalResult {
      auto it = indexOf.find(getViewRoot(operand));
      if (it == indexOf.end())
        return success();
      const Schedule::Step &writer = steps[lives.buffers[it->second].producer];
      if (writer.queue != reader.queue &&
          writer.position >= clock[writer.queue])
        return op.emitOpError()
               << "uses a buffer written by "
               << writer.op->getName() << " on another stream without "
               << "waiting for it";
      return success();
    };
    // Its buffers (its tokens and events are none).
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      for (Value operand : launch.getInputs())
        if (failed(check(operand)))
          return failure();
      for (Value operand : launch.getOuts())
        if (failed(check(operand)))
          return failure();
    } else if (failed(check(cast<CopyOp>(op).getSource()))) {
      return failure();
    }
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
      if (failed(verifyScheduled(program))) {
        ok = false;
        continue;
      }
      // What --gplace-plan-memory built if it ran just before (it
      // preserves the analysis), else built here.
      ProgramLiveness &liveness = getChildAnalysis<ProgramLiveness>(program);
      Schedule *schedule = liveness.getSchedule();
      // Each arena buffer's offset, in forEachArenaBuffer's order, which
      // is that of BufferLives::buffers too.
      std::vector<int64_t> offsets;
      if (!schedule || failed(verifySteps(program, *schedule)) ||
          failed(verifyArenas(program, devices, offsets))) {
        ok = false;
        continue;
      }
      // In place or not: verifyOrder reads neither what differs.
      BufferLives *lives = liveness.getLives(std::nullopt);
      if (!lives) {
        ok = false;
        continue;
      }
      if (failed(verifyOrder(program, *schedule, *lives, offsets)))
        ok = false;
    }
    if (ok && failed(verifyByteCounts(module, devices)))
      ok = false;
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// Each device's persistent_bytes holds the constants and variables of
  /// every program on it, and peak_bytes is persistent plus arena bytes:
  /// the runtime allocates what these say.
  static LogicalResult
  verifyByteCounts(ModuleOp module,
                   const DenseMap<StringAttr, DeviceOp> &devices) {
    DenseMap<StringAttr, int64_t> persistent;
    for (ProgramOp program : module.getOps<ProgramOp>()) {
      FailureOr<DenseMap<StringAttr, int64_t>> mine =
          getPersistentBytes(program.getBody().front());
      if (failed(mine))
        return failure();
      for (auto [device, bytes] : *mine)
        persistent[device] = std::max(persistent[device], bytes);
    }
    for (auto [symbol, device] : devices) {
      int64_t need = persistent.lookup(symbol);
      int64_t has = device.getPersistentBytesAttr().getInt();
      int64_t arena = device.getArenaBytesAttr().getInt();
      int64_t peak = device.getPeakBytesAttr().getInt();
      if (has < need)
        return device.emitOpError()
               << "has persistent_bytes = " << has << ", but its constants "
               << "and variables take " << need << " bytes";
      int64_t sum;
      if (__builtin_add_overflow(has, arena, &sum) || sum != peak)
        return device.emitOpError()
               << "has peak_bytes = " << peak
               << ", but persistent_bytes + arena_bytes = " << has << " + "
               << arena;
    }
    return success();
  }
};

} // namespace
