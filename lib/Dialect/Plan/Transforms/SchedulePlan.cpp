//===- SchedulePlan.cpp - streams and events for an unscheduled plan ------===//
//
// In program order: each step gets its stream; what it depends on (the
// steps behind its buffers and tokens, kept as the latest step per queue)
// becomes waits (the step's `wait(...)`) on events recorded after those
// steps, unless the step's queue already knows they have run. What a queue knows is a vector clock:
// its own progress plus, through each event it waited for, what the
// recording queue knew then, so transitive waits are not repeated.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Plan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace gplace {
#define GEN_PASS_DEF_SCHEDULEPLANPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

namespace {

/// The steps a value waits for: the latest step per queue, by queue.
using Deps = SmallVector<std::pair<unsigned, unsigned>, 2>; // (queue, step)

void merge(Deps &into, const Deps &from) {
  for (auto [queue, step] : from) {
    auto *it = llvm::find_if(
        into, [queue = queue](const auto &entry) { return entry.first == queue; });
    if (it == into.end())
      into.push_back({queue, step});
    else
      it->second = std::max(it->second, step);
  }
}

class ProgramScheduler {
public:
  explicit ProgramScheduler(ProgramOp program)
      : program_(program), builder_(program.getContext()) {}

  void run() {
    Block &body = program_.getBody().front();
    // A program that has streams is scheduled already.
    for (Operation &op : body)
      if ((isa<LaunchOp>(op) && cast<LaunchOp>(op).getStreamAttr()) ||
          (isa<CopyOp>(op) && cast<CopyOp>(op).getStreamAttr()))
        return;
    size_t numOps = body.getOperations().size();
    depsOf_.reserve(numOps);
    deps_.reserve(numOps);
    SmallVector<Operation *> joins;
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto view = dyn_cast<ViewOp>(op)) {
        Deps deps = lookup(view.getSource());
        for (Value token : view.getAfter())
          merge(deps, lookup(token));
        if (!deps.empty())
          set(view.getResult(), std::move(deps));
        if (!view.getAfter().empty())
          view.getAfterMutable().clear();
      } else if (auto join = dyn_cast<JoinOp>(op)) {
        Deps deps;
        for (Value input : join.getInputs())
          merge(deps, lookup(input));
        set(join.getToken(), std::move(deps));
        joins.push_back(join);
      } else if (auto launch = dyn_cast<LaunchOp>(op)) {
        int64_t stream = isCollectiveKernel(launch.getKernel().getKernel())
                             ? kCollectiveStream
                             : kComputeStream;
        launch.setStreamAttr(streamAttr(stream));
        SmallVector<Value, 2> waits =
            scheduleStep(launch, launch.getDeviceAttr(), stream);
        // Nothing to replace if the step has neither after(...) tokens nor
        // waits and needs no wait (most steps).
        if (!waits.empty() || !launch.getAfter().empty() ||
            !launch.getWaits().empty())
          setStepWaits(launch, waits);
      } else if (auto copy = dyn_cast<CopyOp>(op)) {
        copy.setStreamAttr(streamAttr(kCopyStream));
        SmallVector<Value, 2> waits =
            scheduleStep(copy, copy.getDeviceAttr(), kCopyStream);
        if (!waits.empty() || !copy.getAfter().empty() ||
            !copy.getWaits().empty())
          setStepWaits(copy, waits);
      }
    }
    for (Operation *join : llvm::reverse(joins))
      join->erase();
  }

private:
  /// The `stream` attribute of stream `stream`, uniqued once per stream.
  IntegerAttr streamAttr(int64_t stream) {
    if (static_cast<size_t>(stream) >= streamAttrs_.size())
      streamAttrs_.resize(stream + 1);
    IntegerAttr &attr = streamAttrs_[stream];
    if (!attr)
      attr = builder_.getI64IntegerAttr(stream);
    return attr;
  }

  unsigned queueOf(FlatSymbolRefAttr device, int64_t stream) {
    auto [it, isNew] =
        queueIndex_.try_emplace({device.getAttr(), stream}, queues_.size());
    if (isNew) {
      queues_.push_back({device, stream});
      // Every queue starts knowing nothing: snapshot 0, grown to size.
      for (std::vector<unsigned> &snapshot : snapshots_)
        snapshot.resize(queues_.size(), 0);
      if (snapshots_.empty())
        snapshots_.emplace_back(queues_.size(), 0);
      known_.push_back(0);
      counts_.push_back(0);
    }
    return it->second;
  }

  /// Returns the events `op`, a step on (`device`, `stream`), must wait for
  /// (those of the steps behind its operands that its queue does not know
  /// to have run), and records it as the producer of its results.
  SmallVector<Value, 2> scheduleStep(Operation *op, FlatSymbolRefAttr device,
                                     int64_t stream) {
    unsigned queue = queueOf(device, stream);
    SmallVector<Value, 2> waits;
    Deps deps;
    for (Value operand : op->getOperands())
      if (auto it = depsOf_.find(operand); it != depsOf_.end())
        merge(deps, deps_[it->second]);
    llvm::sort(deps);
    for (auto [other, step] : deps) {
      if (other == queue)
        continue; // The stream runs in order.
      const Step &producer = steps_[step];
      if (snapshots_[known_[queue]][other] > producer.position)
        continue; // Known to have run, directly or through another event.
      waits.push_back(recordAfter(step));
      // The queue now knows what the recorder knew, and the step itself.
      std::vector<unsigned> next = snapshots_[known_[queue]];
      const std::vector<unsigned> &recorder = snapshots_[producer.known];
      for (size_t q = 0; q < next.size() && q < recorder.size(); ++q)
        next[q] = std::max(next[q], recorder[q]);
      next[other] = std::max(next[other], producer.position + 1);
      known_[queue] = snapshots_.size();
      snapshots_.push_back(std::move(next));
    }
    unsigned index = steps_.size();
    steps_.push_back({op, queue, counts_[queue]++, known_[queue], Value()});
    for (Value result : op->getResults())
      set(result, Deps{{queue, index}});
    return waits;
  }

  /// The event recorded right after step `index`, recorded now if needed.
  Value recordAfter(unsigned index) {
    Step &step = steps_[index];
    if (!step.event) {
      OpBuilder::InsertionGuard guard(builder_);
      builder_.setInsertionPointAfter(step.op);
      auto [device, stream] = queues_[step.queue];
      // RecordOp's registered name looked up once (OpBuilder::create
      // looks it up in the context on every call).
      if (!recordName_)
        recordName_ = RegisteredOperationName::lookup(TypeID::get<RecordOp>(),
                                                      builder_.getContext());
      OperationState state(step.op->getLoc(), *recordName_);
      RecordOp::build(builder_, state, device, streamAttr(stream));
      step.event = cast<RecordOp>(builder_.create(state)).getEvent();
    }
    return step.event;
  }

  struct Step {
    Operation *op;
    unsigned queue;
    unsigned position; ///< Among its queue's steps.
    unsigned known;    ///< Its queue's snapshot when it ran.
    Value event;       ///< The event recorded after it, if any.
  };

  /// The steps `value` waits for (none if it has no entry).
  Deps lookup(Value value) const {
    auto it = depsOf_.find(value);
    return it == depsOf_.end() ? Deps() : deps_[it->second];
  }
  void set(Value value, Deps deps) {
    auto [it, isNew] = depsOf_.try_emplace(value, deps_.size());
    if (isNew)
      deps_.push_back(std::move(deps));
    else
      deps_[it->second] = std::move(deps);
  }

  ProgramOp program_;
  OpBuilder builder_;
  std::optional<RegisteredOperationName> recordName_;
  SmallVector<IntegerAttr, 3> streamAttrs_;
  /// Per value, its index into deps_: a table of small entries, the steps
  /// in one vector filled in program order (at a million ops a table of
  /// the steps themselves outgrew the caches).
  DenseMap<Value, unsigned> depsOf_;
  std::vector<Deps> deps_;
  std::vector<Step> steps_;
  DenseMap<std::pair<StringAttr, int64_t>, unsigned> queueIndex_;
  std::vector<std::pair<FlatSymbolRefAttr, int64_t>> queues_;
  std::vector<unsigned> counts_; ///< Steps per queue so far.
  std::vector<unsigned> known_;  ///< Per queue, its current snapshot.
  /// What queues knew at some point: snapshot[q] steps of queue q had run.
  std::vector<std::vector<unsigned>> snapshots_;
};

struct SchedulePlanPass
    : public gplace::impl::SchedulePlanPassBase<SchedulePlanPass> {
  void runOnOperation() override {
    for (ProgramOp program : getOperation().getOps<ProgramOp>())
      ProgramScheduler(program).run();
  }
};

} // namespace
