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
// near the bytes live in program order. Where first fit leaves gaps (the
// arena above that liveness lower bound), best fit by size plans the
// device again, under the same rules, and is kept if it needs less.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Plan/Transforms/Arena.h"
#include "gplace/Dialect/Plan/Transforms/Liveness.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"

#include "gplace/Support/DeviceName.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

namespace gplace {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

namespace {

/// "55414464 bytes (52.8 MiB)": MiB with a decimal unless whole, so that
/// a need just over a limit of whole MiB does not read as the limit.
std::string formatBytes(int64_t bytes) {
  std::string out = std::to_string(bytes) + " bytes";
  constexpr int64_t kMiB = 1024 * 1024;
  if (bytes >= kMiB && bytes % kMiB == 0)
    out += " (" + std::to_string(bytes / kMiB) + " MiB)";
  else if (bytes >= kMiB) // Rounded down: a part never shows above its total.
    out +=
        " (" +
        llvm::formatv("{0:F1}", static_cast<double>(bytes / kMiB * 10 +
                                                    bytes % kMiB * 10 / kMiB) /
                                    10)
            .str() +
        " MiB)";
  return out;
}

/// What a device needs over all programs.
struct DeviceNeed {
  int64_t persistent = 0, arena = 0;
  std::optional<Location> neediest; ///< The program needing the most.
  int64_t neediestBytes = -1;
};

/// Per step's first op, the steps it will wait for.
using AddedWaits = DenseMap<Operation *, SmallVector<unsigned, 2>>;

/// What the planners know of one scheduled program.
struct ProgramFacts {
  Block &body;
  const Schedule &schedule;
  const BufferLives &lives;
  /// Per step: the buffers it writes, and those free after it.
  std::vector<SmallVector<unsigned, 1>> produced, freed;
  /// The symbols of the CPU devices.
  DenseSet<StringAttr> hostDevices;

  /// Whether `op`, a step's first op on `queue`, may wait for the step at
  /// `position` of `useQueue`: a use on another queue whose step has ended
  /// (its last launch) before `op`, so that an event can be recorded
  /// there. Not a CPU step for another device's use (a GPU's copy reading
  /// host memory): host memory is plentiful, and the wait would tie the
  /// host to the GPU in both directions, so that a GPU's part of the plan
  /// could no longer run as one CUDA graph.
  bool canWait(unsigned queue, Operation *op, unsigned useQueue,
               unsigned position) const {
    const Schedule::Step &use =
        schedule.steps()[schedule.stepAt(useQueue, position)];
    StringAttr device = schedule.queues()[queue].first;
    if (hostDevices.contains(device) &&
        schedule.queues()[useQueue].first != device)
      return false;
    return useQueue != queue && use.last->isBeforeInBlock(op);
  }
};

struct PlanMemoryPass
    : public gplace::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using PlanMemoryPassBase::PlanMemoryPassBase;

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
      int64_t peak;
      if (__builtin_add_overflow(need.persistent, need.arena, &peak)) {
        emitError(need.neediest.value_or(module.getLoc()))
            << "device " << device.getDeviceName()
            << " needs more than 2^63 bytes of memory: "
            << formatBytes(need.persistent)
            << " for constants and variables and " << formatBytes(need.arena)
            << " for intermediates";
        ok = false;
        continue;
      }
      device.setPersistentBytesAttr(builder.getI64IntegerAttr(need.persistent));
      device.setArenaBytesAttr(builder.getI64IntegerAttr(need.arena));
      device.setPeakBytesAttr(builder.getI64IntegerAttr(peak));
      int64_t limit = device.getMemoryLimitAttr().getInt();
      if (limit > 0 && peak > limit) {
        InFlightDiagnostic diag =
            emitError(need.neediest.value_or(module.getLoc()));
        diag << "device " << device.getDeviceName() << " needs "
            << formatBytes(peak) << " of memory, "
            << formatBytes(need.persistent)
            << " for constants and variables and " << formatBytes(need.arena)
            << " for intermediates, but its memory limit is "
            << formatBytes(limit);
        if (std::string remat =
                describeRematerialized(module, device.getDeviceName());
            !remat.empty())
          diag << "; --gplace-rematerialize tried: it " << remat
               << " and nothing more it could recompute lowers it";
        ok = false;
      }
    }
    if (!ok)
      signalPassFailure();
    // Events and arena tables change no step and no buffer.
    markAnalysesPreserved<ProgramLiveness>();
  }

  /// First fit in program order (FirstFitArena) for the buffers of every
  /// device not in `skip`, the steps knowing of `addedWaits` too (per
  /// step's first op, the steps it will wait for): their offsets, each
  /// device's arena bytes, and the waits reuse needs, appended to `waits`
  /// as (step's first op, step waited for) in order.
  static void firstFit(const ProgramFacts &facts,
                       const DenseSet<StringAttr> &skip,
                       const AddedWaits &addedWaits,
                       std::vector<int64_t> &offsets,
                       DenseMap<StringAttr, int64_t> &arenaBytes,
                       std::vector<std::pair<Operation *, unsigned>> &waits) {
    const Schedule &schedule = facts.schedule;
    DenseMap<StringAttr, FirstFitArena> arenas;
    ClockWalk walk(schedule);
    ArrayRef<Schedule::Step> steps = schedule.steps();
    for (Operation &op : facts.body) {
      std::optional<unsigned> step = walk.enter(&op);
      if (!step)
        continue;
      unsigned queue = steps[*step].queue;
      if (auto added = addedWaits.find(&op); added != addedWaits.end())
        for (unsigned use : added->second)
          walk.wait(queue, use);
      auto canWait = [&](unsigned useQueue, unsigned position) {
        return facts.canWait(queue, &op, useQueue, position);
      };
      for (unsigned index : facts.produced[*step]) {
        const BufferLives::Buffer &buffer = facts.lives.buffers[index];
        if (skip.contains(buffer.device))
          continue;
        if (buffer.bytes == 0) {
          offsets[index] = 0; // An empty tensor takes no memory.
          continue;
        }
        if (buffer.sharesWith &&
            facts.lives.buffers[*buffer.sharesWith].handedOver) {
          // In place: the operand's memory.
          offsets[index] = offsets[*buffer.sharesWith];
          continue;
        }
        auto [offset, missing] = arenas[buffer.device].allocate(
            buffer.bytes, walk.clock(queue), canWait);
        offsets[index] = offset;
        for (auto [useQueue, position] : missing) {
          unsigned use = schedule.stepAt(useQueue, position);
          waits.push_back({&op, use});
          walk.wait(queue, use);
        }
      }
      for (unsigned index : facts.freed[*step]) {
        const BufferLives::Buffer &buffer = facts.lives.buffers[index];
        if (buffer.bytes == 0 || buffer.handedOver ||
            skip.contains(buffer.device))
          continue;
        arenas[buffer.device].release(offsets[index], buffer.bytes,
                                      buffer.lastUses);
      }
      walk.ran(*step);
    }
    for (auto &[device, arena] : arenas)
      arenaBytes[device] = arena.size();
  }

  /// Best fit by size, as TensorFlow Lite's greedy-by-size arena planner
  /// (Pisarchyk and Lee, "Efficient Memory Management for Deep Neural Net
  /// Inference", 2020): largest buffer first, each into the smallest gap
  /// between the buffers placed already that it may not share memory with,
  /// else above them. A buffer may not share memory with those in use at
  /// the step writing it (in program order), nor with those freed before
  /// it some of whose uses that step neither knows have run (its vector
  /// clock) nor can wait for (ProgramFacts::canWait); reuseWaits then adds
  /// the waits.
  /// Fills `offsets` and `arenaBytes` for the devices it plans; a device
  /// whose queues leave too many freed buffers unordered for this to stay
  /// cheap is left out, and so is every device of a graph with too many
  /// buffers in use at once (first fit plans them).
  static void bestFitBySize(const ProgramFacts &facts,
                            std::vector<int64_t> &offsets,
                            DenseMap<StringAttr, int64_t> &arenaBytes) {
    constexpr size_t kMaxPending = 256;
    constexpr size_t kMaxConflicts = size_t(4) << 20;
    const Schedule &schedule = facts.schedule;
    ArrayRef<BufferLives::Buffer> buffers = facts.lives.buffers;
    ArrayRef<Schedule::Step> steps = schedule.steps();
    auto takesMemory = [&](unsigned index) {
      return !buffers[index].inRegisters && buffers[index].bytes > 0;
    };
    std::vector<SmallVector<unsigned, 4>> conflicts(buffers.size());
    size_t numConflicts = 0;
    DenseMap<StringAttr, std::vector<unsigned>> live;
    std::vector<unsigned> livePosition(buffers.size());
    // Per queue: freed buffers of its device not yet known to have been
    // used for the last time before the queue's next step.
    std::vector<std::vector<unsigned>> pending(schedule.queues().size());
    DenseMap<StringAttr, SmallVector<unsigned, 2>> queuesOf;
    for (auto [queue, key] : llvm::enumerate(schedule.queues()))
      queuesOf[key.first].push_back(queue);
    DenseSet<StringAttr> leftOut;
    ClockWalk walk(schedule);
    for (Operation &op : facts.body) {
      std::optional<unsigned> step = walk.enter(&op);
      if (!step)
        continue;
      unsigned queue = steps[*step].queue;
      ArrayRef<unsigned> clock = walk.clock(queue);
      if (!facts.produced[*step].empty()) {
        llvm::erase_if(pending[queue], [&](unsigned index) {
          return unknownUses(buffers[index].lastUses, clock).empty();
        });
        if (pending[queue].size() > kMaxPending) {
          leftOut.insert(schedule.queues()[queue].first);
          pending[queue].clear();
        }
      }
      for (unsigned index : facts.produced[*step]) {
        if (!takesMemory(index) || leftOut.contains(buffers[index].device))
          continue;
        StringAttr device = buffers[index].device;
        std::vector<unsigned> &inUse = live[device];
        auto conflict = [&](unsigned other) {
          conflicts[index].push_back(other);
          conflicts[other].push_back(index);
          ++numConflicts;
        };
        for (unsigned other : inUse)
          conflict(other);
        for (unsigned other : pending[queue]) {
          LastUses missing = unknownUses(buffers[other].lastUses, clock);
          if (!llvm::all_of(missing, [&](const auto &use) {
                return facts.canWait(queue, &op, use.first, use.second);
              }))
            conflict(other);
        }
        livePosition[index] = inUse.size();
        inUse.push_back(index);
      }
      for (unsigned index : facts.freed[*step]) {
        if (!takesMemory(index) || leftOut.contains(buffers[index].device))
          continue;
        StringAttr device = buffers[index].device;
        std::vector<unsigned> &inUse = live[device];
        unsigned moved = inUse.back();
        inUse[livePosition[index]] = moved;
        livePosition[moved] = livePosition[index];
        inUse.pop_back();
        for (unsigned other : queuesOf.lookup(device))
          pending[other].push_back(index);
      }
      walk.ran(*step);
      if (numConflicts > kMaxConflicts)
        return; // Too big a graph to gain from it: first fit only.
    }

    // In place: a buffer that takes its operand's memory (the operand
    // handedOver) is placed with it, at the same offset, as one group
    // whose conflicts are its members' (first fit hands the memory over
    // the same way).
    std::vector<unsigned> group(buffers.size());
    for (unsigned index = 0; index < buffers.size(); ++index) {
      group[index] = index;
      std::optional<unsigned> source = buffers[index].sharesWith;
      // A source comes before its result: its group is final.
      if (source && *source < index && buffers[*source].handedOver &&
          takesMemory(index) && takesMemory(*source) &&
          buffers[*source].bytes == buffers[index].bytes)
        group[index] = group[*source];
    }
    DenseMap<unsigned, SmallVector<unsigned, 2>> members;
    SmallVector<unsigned> order;
    for (unsigned index = 0; index < buffers.size(); ++index)
      if (takesMemory(index) && !leftOut.contains(buffers[index].device)) {
        members[group[index]].push_back(index);
        if (group[index] == index)
          order.push_back(index);
      }
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      return buffers[a].bytes > buffers[b].bytes;
    });
    std::vector<bool> placed(buffers.size(), false);
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (unsigned root : order) {
      const BufferLives::Buffer &buffer = buffers[root];
      taken.clear();
      for (unsigned member : members[root])
        for (unsigned other : conflicts[member])
          if (placed[other] && group[other] != root)
            taken.push_back(
                {offsets[other], offsets[other] + buffers[other].bytes});
      llvm::sort(taken);
      int64_t end = 0, best = -1, bestGap = 0;
      for (auto [begin, stop] : taken) {
        int64_t gap = begin - end;
        if (gap >= buffer.bytes && (best < 0 || gap < bestGap))
          best = end, bestGap = gap;
        end = std::max(end, stop);
      }
      int64_t offset = best >= 0 ? best : end;
      for (unsigned member : members[root]) {
        offsets[member] = offset;
        placed[member] = true;
      }
      int64_t &bytes = arenaBytes[buffer.device];
      bytes = std::max(bytes, offset + buffer.bytes);
    }
    for (auto [index, buffer] : llvm::enumerate(buffers))
      if (!buffer.inRegisters && buffer.bytes == 0 &&
          !leftOut.contains(buffer.device)) {
        offsets[index] = 0; // An empty tensor takes no memory.
        arenaBytes.try_emplace(buffer.device, 0);
      }
  }

  /// The waits the offsets of `devices`' buffers need: walking the program
  /// in order, each buffer a step writes there waits for the uses of the
  /// buffers that last held its memory that the step does not know have
  /// run (as first fit adds them). Appends (step's first op, step waited
  /// for) to `waits`; false if a wait is impossible (then the offsets are
  /// wrong: not expected of bestFitBySize's).
  static bool reuseWaits(const ProgramFacts &facts,
                         const DenseSet<StringAttr> &devices,
                         ArrayRef<int64_t> offsets,
                         std::vector<std::pair<Operation *, unsigned>> &waits) {
    DenseMap<StringAttr, ArenaTenants> tenants;
    const Schedule &schedule = facts.schedule;
    ArrayRef<BufferLives::Buffer> buffers = facts.lives.buffers;
    ClockWalk walk(schedule);
    for (Operation &op : facts.body) {
      std::optional<unsigned> step = walk.enter(&op);
      if (!step)
        continue;
      unsigned queue = schedule.steps()[*step].queue;
      for (unsigned index : facts.produced[*step]) {
        const BufferLives::Buffer &buffer = buffers[index];
        if (!devices.contains(buffer.device) || buffer.inRegisters ||
            buffer.bytes == 0)
          continue;
        int64_t begin = offsets[index];
        LogicalResult ok = tenants[buffer.device].take(
            begin, begin + buffer.bytes, index,
            [&](unsigned displaced) -> LogicalResult {
              const BufferLives::Buffer &old = buffers[displaced];
              // In place: the step itself is its operand's last use, on
              // its own queue.
              if (buffer.sharesWith == displaced && old.handedOver &&
                  offsets[displaced] == begin)
                return success();
              if (old.last == BufferLives::kEnd)
                return failure();
              for (auto [useQueue, position] :
                   unknownUses(old.lastUses, walk.clock(queue))) {
                if (!facts.canWait(queue, &op, useQueue, position))
                  return failure();
                unsigned use = schedule.stepAt(useQueue, position);
                waits.push_back({&op, use});
                walk.wait(queue, use);
              }
              return success();
            });
        if (failed(ok))
          return false;
      }
      walk.ran(*step);
    }
    return true;
  }

  LogicalResult planProgram(ProgramOp program, ArrayRef<DeviceOp> devices,
                            DenseMap<StringAttr, DeviceNeed> &needs) {
    Block &body = program.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body))
      if (isa<ArenaOp>(op))
        op.erase(); // Planned again from scratch.
    // Kept for --gplace-verify-plan (runOnOperation preserves it).
    ProgramLiveness &liveness = getChildAnalysis<ProgramLiveness>(program);
    Schedule *schedule = liveness.getSchedule();
    BufferLives *lives = liveness.getLives(inPlace.getValue());
    if (!schedule || !lives)
      return failure();

    // Buffers by the step writing them and by the step after which they
    // are free.
    size_t numSteps = schedule->steps().size();
    ProgramFacts facts{body, *schedule, *lives, {}, {}, {}};
    facts.produced.resize(numSteps);
    facts.freed.resize(numSteps);
    for (auto [index, buffer] : llvm::enumerate(lives->buffers)) {
      if (buffer.inRegisters)
        continue;
      facts.produced[buffer.producer].push_back(index);
      if (buffer.last != BufferLives::kEnd)
        facts.freed[buffer.last].push_back(index);
    }
    for (DeviceOp device : devices)
      if (std::optional<DeviceName> name =
              DeviceName::parse(device.getDeviceName());
          name && name->type == DeviceType::CPU)
        facts.hostDevices.insert(device.getSymNameAttr());
    std::vector<int64_t> offsets(lives->buffers.size(), -1);

    // First fit in program order on every device; then, where that leaves
    // the arena above the liveness lower bound, best fit by size, kept
    // where it needs less memory and no other device's arena grows.
    DenseMap<StringAttr, int64_t> arenaBytes;
    std::vector<std::pair<Operation *, unsigned>> waits;
    firstFit(facts, /*skip=*/{}, /*addedWaits=*/AddedWaits(), offsets,
             arenaBytes, waits);
    std::vector<int64_t> sizeOffsets(lives->buffers.size(), -1);
    DenseMap<StringAttr, int64_t> sizeBytes;
    if (llvm::any_of(arenaBytes, [&](const auto &entry) {
          return entry.second > lives->lowerBounds.lookup(entry.first);
        }))
      bestFitBySize(facts, sizeOffsets, sizeBytes);
    DenseSet<StringAttr> bySize;
    for (auto [device, bytes] : sizeBytes)
      if (bytes < arenaBytes.lookup(device))
        bySize.insert(device);
    // Best fit's waits, which first fit then plans the other devices
    // knowing of (a CPU step learns through them that memory is free);
    // kept only if no device's arena grows.
    std::vector<std::pair<Operation *, unsigned>> mixedWaits;
    if (!bySize.empty() && reuseWaits(facts, bySize, sizeOffsets, mixedWaits)) {
      AddedWaits added;
      for (auto [op, use] : mixedWaits)
        added[op].push_back(use);
      std::vector<int64_t> mixedOffsets(lives->buffers.size(), -1);
      DenseMap<StringAttr, int64_t> mixedBytes;
      firstFit(facts, bySize, added, mixedOffsets, mixedBytes, mixedWaits);
      for (auto [index, buffer] : llvm::enumerate(lives->buffers))
        if (bySize.contains(buffer.device))
          mixedOffsets[index] = sizeOffsets[index];
      for (StringAttr device : bySize)
        mixedBytes[device] = sizeBytes.lookup(device);
      if (llvm::all_of(mixedBytes, [&](const auto &entry) {
            return entry.second <= arenaBytes.lookup(entry.first);
          })) {
        offsets = std::move(mixedOffsets);
        arenaBytes = std::move(mixedBytes);
        waits = std::move(mixedWaits);
      }
    }
    // The events first fit's reuse needs, one record per step waited for.
    DenseMap<unsigned, Value> eventAfter;
    OpBuilder recordBuilder(program.getContext());
    for (auto [op, use] : waits) {
      Value &event = eventAfter[use];
      if (!event)
        event = recordAfter(recordBuilder, schedule->steps()[use].last);
      SmallVector<Value, 4> stepWaits(getStepWaits(op));
      stepWaits.push_back(event);
      setStepWaits(op, stepWaits);
    }
    schedule->addedRecords(eventAfter.size());

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
      int64_t bytes = arenaBytes.lookup(symbol);
      if (!table.empty())
        builder.create<ArenaOp>(program.getLoc(),
                                FlatSymbolRefAttr::get(symbol),
                                builder.getI64IntegerAttr(bytes),
                                builder.getDenseI64ArrayAttr(table));
      DeviceNeed &need = needs[symbol];
      int64_t mine = persistent->lookup(symbol);
      need.persistent = std::max(need.persistent, mine);
      need.arena = std::max(need.arena, bytes);
      int64_t sum;
      if (__builtin_add_overflow(mine, bytes, &sum))
        sum = std::numeric_limits<int64_t>::max();
      if (sum > need.neediestBytes) {
        need.neediestBytes = sum;
        need.neediest = program.getLoc();
      }
    }
    return success();
  }
};

} // namespace
