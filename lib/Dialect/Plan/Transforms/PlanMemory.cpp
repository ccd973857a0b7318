//===- PlanMemory.cpp - the static memory plan -----------------------------===//
//
// Buffer assignment per program and device, first fit in program order.
// A freed slot remembers, per queue, the last use of its tenants; a buffer
// may take the slot only if every such use happens before the step that
// writes it, by the vector clock of that step (Liveness.h). With one queue
// per device this is the usual interval rule; across streams it reuses
// memory exactly where events order the uses.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Plan/Transforms/Liveness.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <map>

namespace gplace {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

namespace {

using LastUses = SmallVector<std::pair<unsigned, unsigned>, 2>;

/// Free memory of one device's arena: slots by offset, coalesced.
class Arena {
public:
  /// An offset for `bytes` written at a step whose clock is `clock`.
  int64_t allocate(int64_t bytes, ArrayRef<unsigned> clock) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      Slot &slot = it->second;
      if (slot.bytes < bytes || !happenBefore(slot.lastUses, clock))
        continue;
      int64_t offset = it->first;
      if (slot.bytes > bytes)
        free_.emplace(offset + bytes, Slot{slot.bytes - bytes, slot.lastUses});
      free_.erase(it);
      return offset;
    }
    // Grow the arena, into the slot at its top if that one may be reused.
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second.bytes == top_ &&
          happenBefore(last->second.lastUses, clock)) {
        int64_t offset = last->first;
        free_.erase(last);
        top_ = offset + bytes;
        return offset;
      }
    }
    int64_t offset = top_;
    top_ += bytes;
    return offset;
  }

  /// Frees [offset, offset + bytes), last used at `lastUses`.
  void release(int64_t offset, int64_t bytes, const LastUses &lastUses) {
    Slot slot{bytes, lastUses};
    auto next = free_.lower_bound(offset);
    if (next != free_.end() && offset + bytes == next->first) {
      slot.bytes += next->second.bytes;
      join(slot.lastUses, next->second.lastUses);
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second.bytes == offset) {
        prev->second.bytes += slot.bytes;
        join(prev->second.lastUses, slot.lastUses);
        return;
      }
    }
    free_.emplace(offset, std::move(slot));
  }

  int64_t size() const { return top_; }

private:
  struct Slot {
    int64_t bytes;
    LastUses lastUses;
  };

  static bool happenBefore(const LastUses &uses, ArrayRef<unsigned> clock) {
    return llvm::all_of(uses, [&](const auto &use) {
      return use.first < clock.size() && use.second < clock[use.first];
    });
  }
  static void join(LastUses &into, const LastUses &from) {
    for (auto [queue, position] : from) {
      auto *it = llvm::find_if(into, [queue = queue](const auto &entry) {
        return entry.first == queue;
      });
      if (it == into.end())
        into.push_back({queue, position});
      else
        it->second = std::max(it->second, position);
    }
  }

  std::map<int64_t, Slot> free_;
  int64_t top_ = 0;
};

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
    DenseMap<StringAttr, Arena> arenas;
    schedule->forEachStepWithClock(
        program, [&](unsigned step, ArrayRef<unsigned> clock) {
          for (unsigned index : produced[step]) {
            const BufferLives::Buffer &buffer = lives->buffers[index];
            offsets[index] = arenas[buffer.device].allocate(buffer.bytes, clock);
          }
          for (unsigned index : freed[step]) {
            const BufferLives::Buffer &buffer = lives->buffers[index];
            arenas[buffer.device].release(offsets[index], buffer.bytes,
                                          buffer.lastUses);
          }
        });

    // Persistent memory: constants and variables.
    DenseMap<StringAttr, int64_t> persistent;
    for (Operation &op : body) {
      FlatSymbolRefAttr device;
      if (auto constant = dyn_cast<ConstantOp>(op))
        device = constant.getDeviceAttr();
      else if (auto variable = dyn_cast<VariableOp>(op))
        device = variable.getDeviceAttr();
      else
        continue;
      std::optional<int64_t> bytes =
          getAlignedBytes(cast<BufferType>(op.getResult(0).getType()));
      int64_t &total = persistent[device.getAttr()];
      if (!bytes || __builtin_add_overflow(total, *bytes, &total))
        return op.emitOpError() << "needs more than 2^63 bytes of memory";
    }

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
      int64_t mine = persistent.lookup(symbol);
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
