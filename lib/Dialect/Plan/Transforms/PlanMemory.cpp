//===- PlanMemory.cpp - the static memory plan ----------------------------===//
//
// Buffer assignment per program and device, first fit in program order.
// A freed slot remembers, per queue, the last use of its tenants. A buffer
// takes, in this order of preference, the first free slot whose uses all
// happen before the step that writes it (by that step's vector clock,
// Liveness.h), the first free slot it fits in, making the step wait for
// events after the uses not yet known to have run (as PyTorch's caching
// allocator waits for the events of a block's other streams; a CPU step
// never waits for another device), or new
// memory at the arena's top. With one queue per device this is the usual
// interval rule; across streams memory is reused where events order the
// uses, and reuse adds the events that are missing, so the arena stays
// near the bytes live in program order (first fit may leave gaps).
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Plan/Transforms/Arena.h"
#include "gplace/Dialect/Plan/Transforms/Liveness.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"

#include "gplace/Support/DeviceName.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <map>

namespace gplace {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

namespace {

std::string formatBytes(int64_t bytes) {
  std::string out = std::to_string(bytes) + " bytes";
  if (bytes >= 1024 * 1024)
    out += " (" + std::to_string(bytes / (1024 * 1024)) + " MiB)";
  return out;
}

/// What a device needs over all programs.
struct DeviceNeed {
  int64_t persistent = 0, arena = 0;
  std::optional<Location> neediest; ///< The program needing the most.
  int64_t neediestBytes = -1;
};

struct PlanMemoryPass
    : public gplace::impl::PlanMemoryPassBase<PlanMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<DeviceOp> devices(module.getOps<DeviceOp>());
    DenseMap<StringAttr, DeviceNeed> needs;
    for (ProgramOp program : module.getOps<ProgramOp>())
      if (failed(planProgram(program, devices, needs)))
        return signalPassFailure();

    Builder builder(&getContext());
    bool ok = true;
    for (DeviceOp device : devices) {
      DeviceNeed &need = needs[device.getSymNameAttr()];
      int64_t peak = need.persistent + need.arena;
      device.setPersistentBytesAttr(builder.getI64IntegerAttr(need.persistent));
      device.setArenaBytesAttr(builder.getI64IntegerAttr(need.arena));
      device.setPeakBytesAttr(builder.getI64IntegerAttr(peak));
      int64_t limit = device.getMemoryLimitAttr().getInt();
      if (limit > 0 && peak > limit) {
        emitError(need.neediest.value_or(module.getLoc()))
            << "device " << device.getDeviceName() << " needs "
            << formatBytes(peak) << " of memory, "
            << formatBytes(need.persistent)
            << " for constants and variables and " << formatBytes(need.arena)
            << " for intermediates, but its memory limit is "
            << formatBytes(limit);
        ok = false;
      }
    }
    if (!ok)
      signalPassFailure();
  }

  LogicalResult planProgram(ProgramOp program, ArrayRef<DeviceOp> devices,
                            DenseMap<StringAttr, DeviceNeed> &needs) {
    Block &body = program.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body))
      if (isa<ArenaOp>(op))
        op.erase(); // Planned again from scratch.
    FailureOr<Schedule> schedule = Schedule::build(program);
    if (failed(schedule))
      return failure();
    FailureOr<BufferLives> lives = BufferLives::build(program, *schedule);
    if (failed(lives))
      return failure();

    // Buffers by the step writing them and by the step after which they
    // are free.
    size_t numSteps = schedule->steps().size();
    std::vector<SmallVector<unsigned, 1>> produced(numSteps), freed(numSteps);
    for (auto [index, buffer] : llvm::enumerate(lives->buffers)) {
      if (buffer.inRegisters)
        continue;
      produced[buffer.producer].push_back(index);
      if (buffer.last != BufferLives::kEnd)
        freed[buffer.last].push_back(index);
    }
    std::vector<int64_t> offsets(lives->buffers.size(), -1);
    DenseMap<StringAttr, FirstFitArena> arenas;
    DenseSet<StringAttr> hostDevices;
    for (DeviceOp device : devices)
      if (std::optional<DeviceName> name =
              DeviceName::parse(device.getDeviceName());
          name && name->type == DeviceType::CPU)
        hostDevices.insert(device.getSymNameAttr());
    ClockWalk walk(*schedule);
    ArrayRef<Schedule::Step> steps = schedule->steps();
    DenseMap<unsigned, Value> eventAfter; // Events recorded here, by step.
    OpBuilder recordBuilder(program.getContext());
    for (Operation &op : body) {
      std::optional<unsigned> step = walk.enter(&op);
      if (!step)
        continue;
      unsigned queue = steps[*step].queue;
      // A step may wait for a use on another queue whose step has ended
      // (its last launch) before this op: an event can be recorded there.
      // Not a CPU step for another device's use (a GPU's copy reading host
      // memory): host memory is plentiful, and the wait would tie the host
      // to the GPU in both directions, so that a GPU's part of the plan
      // could no longer run as one CUDA graph.
      auto canWait = [&](unsigned useQueue, unsigned position) {
        const Schedule::Step &use =
            steps[schedule->stepAt(useQueue, position)];
        StringAttr device = schedule->queues()[queue].first;
        if (hostDevices.contains(device) &&
            schedule->queues()[useQueue].first != device)
          return false;
        return useQueue != queue && use.last->isBeforeInBlock(&op);
      };
      for (unsigned index : produced[*step]) {
        const BufferLives::Buffer &buffer = lives->buffers[index];
        if (buffer.bytes == 0) {
          offsets[index] = 0; // An empty tensor takes no memory.
          continue;
        }
        auto [offset, waits] = arenas[buffer.device].allocate(
            buffer.bytes, walk.clock(queue), canWait);
        offsets[index] = offset;
        for (auto [useQueue, position] : waits) {
          unsigned use = schedule->stepAt(useQueue, position);
          Value &event = eventAfter[use];
          if (!event) {
            event = recordAfter(recordBuilder, steps[use].last);
            walk.recorded(event, use);
          }
          getStepWaitsMutable(&op).append(event);
          walk.wait(queue, use);
        }
      }
      for (unsigned index : freed[*step]) {
        const BufferLives::Buffer &buffer = lives->buffers[index];
        if (buffer.bytes == 0)
          continue;
        arenas[buffer.device].release(offsets[index], buffer.bytes,
                                      buffer.lastUses);
      }
      walk.ran(*step);
    }

    // Persistent memory: constants and variables.
    FailureOr<DenseMap<StringAttr, int64_t>> persistent =
        getPersistentBytes(body);
    if (failed(persistent))
      return failure();

    // One table per device, in the order of the module's devices.
    OpBuilder builder(&body, body.begin());
    for (DeviceOp device : devices) {
      StringAttr symbol = device.getSymNameAttr();
      SmallVector<int64_t> table;
      for (auto [index, buffer] : llvm::enumerate(lives->buffers))
        if (buffer.device == symbol)
          table.push_back(offsets[index]);
      auto arena = arenas.find(symbol);
      int64_t bytes = arena == arenas.end() ? 0 : arena->second.size();
      if (!table.empty())
        builder.create<ArenaOp>(program.getLoc(),
                                FlatSymbolRefAttr::get(symbol),
                                builder.getI64IntegerAttr(bytes),
                                builder.getDenseI64ArrayAttr(table));
      DeviceNeed &need = needs[symbol];
      int64_t mine = persistent->lookup(symbol);
      need.persistent = std::max(need.persistent, mine);
      need.arena = std::max(need.arena, bytes);
      if (mine + bytes > need.neediestBytes) {
        need.neediestBytes = mine + bytes;
        need.neediest = program.getLoc();
      }
    }
    return success();
  }
};

} // namespace
