//===- FuseElementwise.cpp - runs of elementwise launches as one kernel ---===//
//
// Per program, per queue (of any device: GPUs run a group as one kernel,
// host devices a block of elements at a time through every op of the
// group), in program order: consecutive launches of elementwise kernels
// with one result type form a run; an event
// recorded on the queue, a wait for an event (a launch with `wait(...)`
// starts a new run), another step on it, a launch of another type, or the
// limits end it. A run of two or more becomes a fusion group.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Plan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace gplace {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

namespace {

/// The most buffers a fused kernel reads and writes (its parameters are
/// pointers; CUDA allows 4 KiB of them).
constexpr size_t kMaxBuffers = 256;

struct Run {
  SmallVector<LaunchOp> launches;
  Type type;                        ///< The result type of every launch.
  unsigned first = 0; ///< Its first launch's position in the program.
  llvm::SmallDenseSet<Value> made;  ///< Results of the run.
  llvm::SmallDenseSet<Value> reads; ///< Buffers read from outside the run.
};

class ProgramFuser {
public:
  ProgramFuser(ProgramOp program, unsigned maxLaunches)
      : program_(program), maxLaunches_(maxLaunches),
        builder_(program.getContext()) {}

  /// Fails, with an error at the op, on a step without a stream.
  LogicalResult run() {
    Block &body = program_.getBody().front();
    for (Operation &op : body) {
      IntegerAttr stream;
      if (auto launch = dyn_cast<LaunchOp>(op)) {
        if (launch.getFusion())
          return success(); // Fused already.
        stream = launch.getStreamAttr();
      } else if (auto copy = dyn_cast<CopyOp>(op)) {
        stream = copy.getStreamAttr();
      } else {
        continue;
      }
      if (!stream)
        return op.emitOpError()
               << "has no stream; run --gplace-schedule-plan first";
    }
    if (maxLaunches_ < 2)
      return success();
    unsigned position = 0;
    for (Operation &op : body) {
      ++position;
      if (auto launch = dyn_cast<LaunchOp>(op)) {
        Run &run = runs_[{launch.getDeviceAttr().getAttr(),
                          launch.getStreamAttr().getInt()}];
        if (!fusible(launch) || !launch.getWaits().empty())
          close(run); // A wait ends the run before the launch.
        if (!fusible(launch))
          continue;
        if (!run.launches.empty() && !fits(run, launch))
          close(run);
        add(run, launch, position);
      } else if (auto copy = dyn_cast<CopyOp>(op)) {
        close(runs_[{copy.getDeviceAttr().getAttr(),
                     copy.getStreamAttr().getInt()}]);
      } else if (auto record = dyn_cast<RecordOp>(op)) {
        close(runs_[{record.getDeviceAttr().getAttr(),
                     record.getStreamAttr().getInt()}]);
      }
    }
    for (auto &entry : runs_)
      close(entry.second);
    // Groups are numbered in program order of their first launch (its
    // position, kept: isBeforeInBlock would number the block's ops again
    // after the records schedule-plan inserted, and visit each group's).
    llvm::sort(groups_, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    for (auto [index, entry] : llvm::enumerate(groups_)) {
      const SmallVector<LaunchOp> &group = entry.second;
      IntegerAttr id = builder_.getI64IntegerAttr(index);
      for (LaunchOp launch : group)
        launch.setFusionAttr(id);
    }
    return success();
  }

private:
  bool fusible(LaunchOp launch) const {
    return launch.getStreamAttr() &&
           isElementwiseKernel(launch.getKernel().getKernel()) &&
           launch.getOuts().empty() && launch.getNumResults() == 1;
  }

  bool fits(const Run &run, LaunchOp launch) const {
    if (run.launches.size() >= maxLaunches_ ||
        launch.getResult(0).getType() != run.type)
      return false;
    size_t reads = run.reads.size();
    for (Value input : launch.getInputs())
      if (!run.made.contains(input) && !run.reads.contains(input))
        ++reads;
    // Every result may have to be stored: count them all.
    return reads + run.launches.size() + 1 <= kMaxBuffers;
  }

  void add(Run &run, LaunchOp launch, unsigned position) {
    if (run.launches.empty()) {
      run.type = launch.getResult(0).getType();
      run.first = position;
    }
    for (Value input : launch.getInputs())
      if (!run.made.contains(input))
        run.reads.insert(input);
    run.made.insert(launch.getResult(0));
    run.launches.push_back(launch);
  }

  void close(Run &run) {
    if (run.launches.empty())
      return; // Nothing to end (and nothing to clear).
    if (run.launches.size() >= 2)
      groups_.push_back({run.first, std::move(run.launches)});
    run = Run();
  }

  ProgramOp program_;
  unsigned maxLaunches_;
  OpBuilder builder_;
  DenseMap<std::pair<StringAttr, int64_t>, Run> runs_;
  /// The groups, each with its first launch's position.
  std::vector<std::pair<unsigned, SmallVector<LaunchOp>>> groups_;
};

struct FuseElementwisePass
    : public gplace::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using FuseElementwisePassBase::FuseElementwisePassBase;

  void runOnOperation() override {
    for (ProgramOp program : getOperation().getOps<ProgramOp>())
      if (failed(ProgramFuser(program, maxLaunches).run()))
        return signalPassFailure();
  }
};

} // namespace
