//===- Liveness.cpp - steps, happens-before and buffer lives --------------===//

#include "gplace/Dialect/Plan/Transforms/Liveness.h"

#include <algorithm>

using namespace mlir;
using namespace gplace::plan;

namespace {
/// The queue of an op naming a device and a stream.
Schedule::Queue queueOf(Operation *op, FlatSymbolRefAttr device,
                        IntegerAttr stream) {
  return {device.getAttr(), stream.getInt()};
}
} // namespace

FailureOr<Schedule> Schedule::build(ProgramOp program) {
  Schedule schedule;
  DenseMap<Queue, unsigned> queueIndex;
  auto indexOf = [&](Queue queue) {
    auto [it, isNew] = queueIndex.try_emplace(queue, schedule.queues_.size());
    if (isNew)
      schedule.queues_.push_back(queue);
    return it->second;
  };
  // Per queue: its number of steps, and the fusion group its last step
  // belongs to while the group may go on.
  std::vector<unsigned> counts;
  std::vector<IntegerAttr> openGroup;
  std::vector<unsigned> lastStep;
  auto grow = [&](unsigned queue) {
    if (queue >= counts.size()) {
      counts.resize(queue + 1, 0);
      openGroup.resize(queue + 1);
      lastStep.resize(queue + 1, 0);
    }
  };
  for (Operation &op : program.getBody().front()) {
    FlatSymbolRefAttr device;
    IntegerAttr stream, fusion;
    bool isStep = true;
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      device = launch.getDeviceAttr();
      stream = launch.getStreamAttr();
      fusion = launch.getFusionAttr();
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      device = copy.getDeviceAttr();
      stream = copy.getStreamAttr();
    } else if (auto record = dyn_cast<RecordOp>(op)) {
      device = record.getDeviceAttr();
      stream = record.getStreamAttr();
      isStep = false;
    } else if (auto wait = dyn_cast<WaitOp>(op)) {
      device = wait.getDeviceAttr();
      stream = wait.getStreamAttr();
      isStep = false;
    } else {
      continue;
    }
    if (!stream)
      return op.emitOpError() << "has no stream; run --gplace-schedule-plan "
                                 "first";
    unsigned queue = indexOf(queueOf(&op, device, stream));
    grow(queue);
    if (!isStep) {
      openGroup[queue] = {}; // An event ends a fusion group.
      continue;
    }
    if (fusion && openGroup[queue] == fusion) {
      schedule.stepOf_[&op] = lastStep[queue];
      continue;
    }
    openGroup[queue] = fusion;
    lastStep[queue] = schedule.steps_.size();
    schedule.stepOf_[&op] = schedule.steps_.size();
    schedule.steps_.push_back({&op, queue, counts[queue]++});
  }
  return schedule;
}

void Schedule::forEachStepWithClock(
    ProgramOp program,
    function_ref<void(unsigned, ArrayRef<unsigned>)> visit) const {
  size_t numQueues = queues_.size();
  DenseMap<Queue, unsigned> queueIndex;
  for (auto [index, queue] : llvm::enumerate(queues_))
    queueIndex[queue] = index;
  // clocks[q]: what queue q knows has run (a vector clock per queue).
  std::vector<std::vector<unsigned>> clocks(
      numQueues, std::vector<unsigned>(numQueues, 0));
  DenseMap<Value, std::vector<unsigned>> events;
  for (Operation &op : program.getBody().front()) {
    if (isa<LaunchOp, CopyOp>(op)) {
      auto it = stepOf_.find(&op);
      if (it == stepOf_.end() || steps_[it->second].op != &op)
        continue; // A fused launch after its group's first.
      const Step &step = steps_[it->second];
      visit(it->second, clocks[step.queue]);
      clocks[step.queue][step.queue] = step.position + 1;
    } else if (auto record = dyn_cast<RecordOp>(op)) {
      unsigned queue = queueIndex.lookup(queueOf(
          &op, record.getDeviceAttr(), record.getStreamAttr()));
      events[record.getEvent()] = clocks[queue];
    } else if (auto wait = dyn_cast<WaitOp>(op)) {
      unsigned queue = queueIndex.lookup(
          queueOf(&op, wait.getDeviceAttr(), wait.getStreamAttr()));
      auto it = events.find(wait.getEvent());
      if (it == events.end())
        continue;
      std::vector<unsigned> &clock = clocks[queue];
      for (size_t q = 0; q < numQueues; ++q)
        clock[q] = std::max(clock[q], it->second[q]);
    }
  }
}

FailureOr<BufferLives> BufferLives::build(ProgramOp program,
                                          const Schedule &schedule) {
  BufferLives lives;
  DenseMap<Value, unsigned> indexOf;
  ArrayRef<Schedule::Step> steps = schedule.steps();
  LogicalResult ok = success();
  forEachArenaBuffer(program, [&](Value value, FlatSymbolRefAttr device) {
    std::optional<int64_t> bytes =
        getAlignedBytes(cast<BufferType>(value.getType()));
    if (!bytes) {
      ok = value.getDefiningOp()->emitOpError()
           << "writes a buffer of " << value.getType()
           << ", whose size in bytes does not fit in 64 bits";
      return;
    }
    Buffer buffer;
    buffer.value = value;
    buffer.device = device.getAttr();
    buffer.bytes = *bytes;
    buffer.producer = schedule.stepOf(value.getDefiningOp());
    buffer.last = buffer.producer;
    const Schedule::Step &step = steps[buffer.producer];
    buffer.lastUses.push_back({step.queue, step.position});
    buffer.inRegisters = isFusedInRegisters(value);
    indexOf[value] = lives.buffers.size();
    lives.buffers.push_back(std::move(buffer));
  });
  if (failed(ok))
    return failure();

  auto use = [&](Value operand, unsigned stepIndex) {
    auto it = indexOf.find(getViewRoot(operand));
    if (it == indexOf.end())
      return;
    Buffer &buffer = lives.buffers[it->second];
    const Schedule::Step &step = steps[stepIndex];
    if (buffer.last != kEnd)
      buffer.last = std::max(buffer.last, stepIndex);
    auto last = llvm::find_if(buffer.lastUses, [&](const auto &entry) {
      return entry.first == step.queue;
    });
    if (last == buffer.lastUses.end())
      buffer.lastUses.push_back({step.queue, step.position});
    else
      last->second = std::max(last->second, step.position);
  };
  for (Operation &op : program.getBody().front()) {
    if (isa<LaunchOp, CopyOp>(op)) {
      unsigned step = schedule.stepOf(&op);
      for (Value operand : op.getOperands())
        use(operand, step);
    } else if (isa<ReturnOp>(op)) {
      for (Value operand : op.getOperands()) {
        auto it = indexOf.find(getViewRoot(operand));
        if (it != indexOf.end())
          lives.buffers[it->second].last = kEnd;
      }
    }
  }

  // The lower bound: the most bytes in use at one step, per device.
  DenseMap<StringAttr, std::vector<int64_t>> deltas;
  for (const Buffer &buffer : lives.buffers) {
    if (buffer.inRegisters)
      continue;
    std::vector<int64_t> &delta = deltas[buffer.device];
    if (delta.empty())
      delta.assign(steps.size() + 1, 0);
    delta[buffer.producer] += buffer.bytes;
    if (buffer.last != kEnd)
      delta[buffer.last + 1] -= buffer.bytes;
  }
  for (auto &[device, delta] : deltas) {
    int64_t live = 0, most = 0;
    for (int64_t change : delta)
      most = std::max(most, live += change);
    lives.lowerBounds[device] = most;
  }
  return lives;
}
