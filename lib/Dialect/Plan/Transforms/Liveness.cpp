//===- Liveness.cpp - steps, happens-before and buffer lives --------------===//

#include "gplace/Dialect/Plan/Transforms/Liveness.h"

#include <algorithm>

using namespace mlir;
using namespace gplace::plan;

namespace {
/// The device and stream of a step or a record (null for other ops).
std::pair<FlatSymbolRefAttr, IntegerAttr> deviceAndStream(Operation *op) {
  if (auto launch = dyn_cast<LaunchOp>(op))
    return {launch.getDeviceAttr(), launch.getStreamAttr()};
  if (auto copy = dyn_cast<CopyOp>(op))
    return {copy.getDeviceAttr(), copy.getStreamAttr()};
  if (auto record = dyn_cast<RecordOp>(op))
    return {record.getDeviceAttr(), record.getStreamAttr()};
  return {};
}
} // namespace

FailureOr<Schedule> Schedule::build(ProgramOp program) {
  Schedule schedule;
  // Per queue: the fusion group its last step belongs to while the group
  // may go on.
  std::vector<IntegerAttr> openGroup;
  // About a step per op of the program: sized once rather than grown.
  size_t numOps = program.getBody().front().getOperations().size();
  schedule.inOrder_.reserve(numOps);
  schedule.steps_.reserve(numOps);
  for (Operation &op : program.getBody().front()) {
    auto [device, stream] = deviceAndStream(&op);
    if (!device)
      continue;
    if (!stream)
      return op.emitOpError() << "has no stream; run --gplace-schedule-plan "
                                 "first";
    auto [it, isNew] = schedule.queueIndex_.try_emplace(
        Queue{device.getAttr(), stream.getInt()}, schedule.queues_.size());
    unsigned queue = it->second;
    if (isNew) {
      schedule.queues_.push_back(it->first);
      schedule.byQueue_.emplace_back();
      openGroup.emplace_back();
    }
    if (isa<RecordOp>(op)) {
      ++schedule.numRecords_;
      schedule.records_.push_back({&op, queue});
      openGroup[queue] = {}; // An event ends a fusion group.
      continue;
    }
    IntegerAttr fusion;
    if (auto launch = dyn_cast<LaunchOp>(op))
      fusion = launch.getFusionAttr();
    std::vector<unsigned> &onQueue = schedule.byQueue_[queue];
    if (fusion && openGroup[queue] == fusion) {
      unsigned step = onQueue.back();
      schedule.inOrder_.push_back({&op, step});
      schedule.steps_[step].last = &op;
      continue;
    }
    openGroup[queue] = fusion;
    unsigned step = schedule.steps_.size();
    schedule.inOrder_.push_back({&op, step});
    schedule.steps_.push_back(
        {&op, &op, queue, static_cast<unsigned>(onQueue.size())});
    onQueue.push_back(step);
  }
  return schedule;
}

unsigned Schedule::stepOf(Operation *op) const {
  if (stepOf_.empty() && !inOrder_.empty()) {
    stepOf_.reserve(inOrder_.size());
    for (const Entry &entry : inOrder_)
      stepOf_[entry.op] = entry.step;
  }
  return stepOf_.lookup(op);
}

std::optional<unsigned> Schedule::queueOf(Operation *op) const {
  auto [device, stream] = deviceAndStream(op);
  if (!device || !stream)
    return std::nullopt;
  auto it = queueIndex_.find(Queue{device.getAttr(), stream.getInt()});
  if (it == queueIndex_.end())
    return std::nullopt;
  return it->second;
}

ClockWalk::ClockWalk(const Schedule &schedule)
    : schedule_(schedule),
      clocks_(schedule.queues().size(),
              std::vector<unsigned>(schedule.queues().size(), 0)) {
  // Sized once: at a million ops, growing them cost more than their use.
  events_.reserve(schedule.numRecords());
  eventClocks_.reserve(schedule.numRecords() * clocks_.size());
}

MutableArrayRef<unsigned> ClockWalk::newEventClock(Value event) {
  size_t start = eventClocks_.size();
  events_[event] = start;
  eventClocks_.resize(start + clocks_.size(), 0);
  return MutableArrayRef<unsigned>(eventClocks_).slice(start, clocks_.size());
}

std::optional<unsigned> ClockWalk::enter(Operation *op) {
  if (auto record = dyn_cast<RecordOp>(op)) {
    if (std::optional<unsigned> queue =
            schedule_.recordQueueInWalk(op, nextRecord_)) {
      // The event's clock is its queue's: appended as is.
      events_[record.getEvent()] = eventClocks_.size();
      eventClocks_.insert(eventClocks_.end(), clocks_[*queue].begin(),
                          clocks_[*queue].end());
    }
    return std::nullopt;
  }
  if (!isa<LaunchOp, CopyOp>(op))
    return std::nullopt;
  unsigned step = schedule_.stepInWalk(op, next_);
  const Schedule::Step &info = schedule_.steps()[step];
  if (info.op != op)
    return std::nullopt; // A fused launch after its group's first.
  std::vector<unsigned> &clock = clocks_[info.queue];
  for (Value event : getStepWaits(op)) {
    auto it = events_.find(event);
    if (it == events_.end())
      continue;
    const unsigned *recorded = eventClocks_.data() + it->second;
    for (size_t q = 0; q < clock.size(); ++q)
      clock[q] = std::max(clock[q], recorded[q]);
  }
  return step;
}

void ClockWalk::ran(unsigned step) {
  const Schedule::Step &info = schedule_.steps()[step];
  unsigned &known = clocks_[info.queue][info.queue];
  known = std::max(known, info.position + 1);
}

void ClockWalk::wait(unsigned queue, unsigned after) {
  const Schedule::Step &info = schedule_.steps()[after];
  unsigned &known = clocks_[queue][info.queue];
  known = std::max(known, info.position + 1);
}

void ClockWalk::recorded(Value event, unsigned after) {
  const Schedule::Step &info = schedule_.steps()[after];
  newEventClock(event)[info.queue] = info.position + 1;
}

FailureOr<BufferLives> BufferLives::build(ProgramOp program,
                                          const Schedule &schedule,
                                          bool inPlace) {
  BufferLives lives;
  DenseMap<Value, unsigned> &indexOf = lives.indexOf;
  ArrayRef<Schedule::Step> steps = schedule.steps();
  // About a buffer per scheduled op (each writes one; a fusion group is one
  // step of several ops): sized once rather than grown. Growth would copy
  // every Buffer, as SmallVector's move constructor may throw.
  lives.buffers.reserve(schedule.inOrder().size());
  indexOf.reserve(schedule.inOrder().size());
  LogicalResult ok = success();
  // A buffer's index by its root: operands come after their definitions (a
  // program is one block in SSA order), so one walk finds each buffer
  // (forEachArenaBuffer's order) before its uses.
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
  // A program has few buffer types: each one's size is computed once.
  DenseMap<Type, std::optional<int64_t>> bytesOfType;
  auto define = [&](Value value, FlatSymbolRefAttr device, unsigned producer) {
    auto [known, isNew] = bytesOfType.try_emplace(value.getType());
    if (isNew)
      known->second = getAlignedBytes(cast<BufferType>(value.getType()));
    std::optional<int64_t> bytes = known->second;
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
    buffer.producer = producer;
    buffer.last = buffer.producer;
    const Schedule::Step &step = steps[buffer.producer];
    buffer.lastUses.push_back({step.queue, step.position});
    buffer.inRegisters = isFusedInRegisters(value);
    indexOf[value] = lives.buffers.size();
    lives.buffers.push_back(std::move(buffer));
  };
  // Launches that may write in place (see below), with their steps; their
  // operands' last uses are known only after the walk.
  SmallVector<std::pair<LaunchOp, unsigned>> inPlaceCandidates;
  size_t cursor = 0;
  for (Operation &op : program.getBody().front()) {
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      unsigned step = schedule.stepInWalk(&op, cursor);
      // Its inputs and outs: its tokens and events are no buffers.
      for (Value operand : launch.getInputs())
        use(operand, step);
      for (Value operand : launch.getOuts())
        use(operand, step);
      for (Value result : launch.getResults())
        if (isa<BufferType>(result.getType()))
          define(result, launch.getDeviceAttr(), step);
      if (!launch.getFusionAttr() && launch.getOuts().empty() &&
          launch.getNumResults() == 1 &&
          (isElementwiseKernel(launch.getKernel().getKernel()) ||
           isAccumulatingKernel(launch.getKernel().getKernel())) &&
          steps[step].op == &op && steps[step].last == &op)
        inPlaceCandidates.push_back({launch, step});
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      unsigned step = schedule.stepInWalk(&op, cursor);
      use(copy.getSource(), step);
      define(copy.getResult(), copy.getDeviceAttr(), step);
    } else if (isa<ReturnOp>(op)) {
      for (Value operand : op.getOperands()) {
        auto it = indexOf.find(getViewRoot(operand));
        if (it != indexOf.end())
          lives.buffers[it->second].last = kEnd;
      }
    }
  }
  if (failed(ok))
    return failure();

  // In place (see build() in Liveness.h): the launch writes element i of
  // its result after reading element i of every operand, so the result may
  // take an operand's memory where nothing reads that operand later. An
  // accumulating kernel (GEMM with beta = 1) does so for its first operand
  // alone, which no other operand of it may be.
  for (auto [launch, stepIndex] : inPlaceCandidates) {
    Value result = launch.getResult(0);
    auto out = indexOf.find(result);
    if (out == indexOf.end() || lives.buffers[out->second].inRegisters)
      continue;
    const Schedule::Step &step = steps[stepIndex];
    bool accumulating = isAccumulatingKernel(launch.getKernel().getKernel());
    for (auto [position, input] : llvm::enumerate(launch.getInputs())) {
      if (accumulating &&
          (position != 0 ||
           llvm::any_of(launch.getInputs().drop_front(),
                        [&, input = input](Value other) {
             return getViewRoot(other) == getViewRoot(input);
           })))
        break;
      auto in = indexOf.find(input);
      if (in == indexOf.end() || input.getType() != result.getType())
        continue;
      Buffer &operand = lives.buffers[in->second];
      if (operand.inRegisters || operand.bytes == 0 ||
          operand.last != stepIndex || operand.device != lives.buffers[out->second].device ||
          !llvm::all_of(operand.lastUses,
                        [&](const auto &use) {
                          return use.first == step.queue;
                        }) ||
          llvm::any_of(launch.getInputs(), [&, input = input](Value other) {
            return other != input && getViewRoot(other) == input;
          }))
        continue;
      lives.buffers[out->second].sharesWith = in->second;
      operand.handedOver = inPlace;
      break;
    }
  }

  // Every sum of buffer sizes below (the lower bound's, the planners'
  // offsets and arena sizes) is at most a device's total, which must fit
  // in 64 bits.
  DenseMap<StringAttr, int64_t> totals;
  for (const Buffer &buffer : lives.buffers) {
    int64_t &total = totals[buffer.device];
    if (!buffer.inRegisters &&
        __builtin_add_overflow(total, buffer.bytes, &total))
      return program.emitOpError()
             << "needs more than 2^63 bytes of memory on @"
             << buffer.device.getValue() << " for its tensors";
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
    // Memory handed over in place is its sharer's from that step on.
    if (buffer.last != kEnd)
      delta[buffer.handedOver ? buffer.last : buffer.last + 1] -= buffer.bytes;
  }
  for (auto &[device, delta] : deltas) {
    int64_t live = 0, most = 0;
    for (int64_t change : delta)
      most = std::max(most, live += change);
    lives.lowerBounds[device] = most;
  }
  return lives;
}

FailureOr<BufferLives> BufferLives::build(ProgramOp program) {
  FailureOr<Schedule> schedule = Schedule::build(program);
  if (failed(schedule))
    return failure();
  return build(program, *schedule);
}

FailureOr<BufferLives> BufferLives::buildAsPlanned(ProgramOp program) {
  FailureOr<Schedule> schedule = Schedule::build(program);
  if (failed(schedule))
    return failure();
  FailureOr<BufferLives> lives = build(program, *schedule);
  if (failed(lives))
    return failure();
  // In place if some result is at its operand's offset (never so
  // otherwise: both are in use at that step).
  DenseMap<StringAttr, ArrayRef<int64_t>> offsets;
  for (ArenaOp table : program.getOps<ArenaOp>())
    offsets[table.getDeviceAttr().getAttr()] = table.getOffsets();
  DenseMap<StringAttr, unsigned> next;
  std::vector<int64_t> offsetOf(lives->buffers.size(), -1);
  for (auto [index, buffer] : llvm::enumerate(lives->buffers)) {
    ArrayRef<int64_t> table = offsets.lookup(buffer.device);
    unsigned position = next[buffer.device]++;
    if (position < table.size())
      offsetOf[index] = table[position];
  }
  for (auto [index, buffer] : llvm::enumerate(lives->buffers))
    if (buffer.sharesWith && offsetOf[index] >= 0 &&
        offsetOf[index] == offsetOf[*buffer.sharesWith])
      return build(program, *schedule, /*inPlace=*/true);
  return lives;
}

Schedule *ProgramLiveness::getSchedule() {
  if (!schedule_)
    schedule_ = Schedule::build(program_);
  return succeeded(*schedule_) ? &**schedule_ : nullptr;
}

BufferLives *ProgramLiveness::getLives(std::optional<bool> inPlace) {
  if (lives_ && inPlace && *inPlace != livesInPlace_)
    lives_.reset();
  if (!lives_) {
    Schedule *schedule = getSchedule();
    if (!schedule)
      return nullptr;
    livesInPlace_ = inPlace.value_or(false);
    lives_ = BufferLives::build(program_, *schedule, livesInPlace_);
  }
  return succeeded(*lives_) ? &**lives_ : nullptr;
}

FailureOr<DenseMap<StringAttr, int64_t>>
gplace::plan::arenaLowerBounds(ModuleOp module) {
  DenseMap<StringAttr, int64_t> bounds;
  for (ProgramOp program : module.getOps<ProgramOp>()) {
    FailureOr<BufferLives> lives = BufferLives::buildAsPlanned(program);
    if (failed(lives))
      return failure();
    for (auto [device, bound] : lives->lowerBounds)
      bounds[device] = std::max(bounds.lookup(device), bound);
  }
  return bounds;
}

std::string gplace::plan::describeRematerialized(ModuleOp module,
                                                 llvm::StringRef device) {
  auto entries = module->getAttrOfType<ArrayAttr>("gplace.rematerialized");
  if (!entries)
    return "";
  for (auto entry : entries.getAsRange<DictionaryAttr>()) {
    auto name = entry.getAs<StringAttr>("device");
    if (!name || name.getValue() != device)
      continue;
    auto number = [&](llvm::StringRef key) -> int64_t {
      auto value = entry.getAs<IntegerAttr>(key);
      return value ? value.getInt() : 0;
    };
    // The estimate met its target: nothing was tried on this device.
    if (number("estimated_before") <= number("target"))
      return "";
    return "rematerialized " + std::to_string(number("ops")) +
           " ops (estimated peak " + std::to_string(number("estimated_before")) +
           " -> " + std::to_string(number("estimated_after")) + " bytes)";
  }
  return "";
}

LogicalResult
ArenaTenants::take(int64_t begin, int64_t end, unsigned index,
                   function_ref<LogicalResult(unsigned old)> displaced) {
  auto it = held_.upper_bound(begin);
  if (it != held_.begin() && std::prev(it)->second.first > begin)
    --it;
  // Entries are changed in place where their start stays (a tenant cut
  // short, or the one at `begin`, which the new tenant takes over): most
  // buffers take the place of one tenant of their size, and that is then
  // no erase and insert of a node.
  auto at = held_.end(); // The entry at `begin`, if one is there.
  while (it != held_.end() && it->first < end) {
    auto [oldEnd, oldIndex] = it->second;
    if (failed(displaced(oldIndex)))
      return failure();
    // Keep the parts of the old tenant outside [begin, end).
    int64_t oldBegin = it->first;
    if (oldBegin < begin) {
      it->second = {begin, oldIndex};
      ++it;
    } else if (oldBegin == begin) {
      at = it++;
    } else {
      it = held_.erase(it);
    }
    if (oldEnd > end)
      it = held_.emplace_hint(it, end, std::make_pair(oldEnd, oldIndex));
  }
  if (at != held_.end())
    at->second = {end, index};
  else
    held_.emplace(begin, std::make_pair(end, index));
  return success();
}
