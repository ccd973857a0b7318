//===- Liveness.h - steps, happens-before and buffer lives ------*- C++ -*-===//
//
// What --gplace-plan-memory, --gplace-verify-plan and
// --gplace-print-memory-plan know of a scheduled program: its steps on
// queues (a device's stream), the happens-before order the queues and
// events give them (vector clocks), and the arena buffers with the steps
// that use them.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_PLAN_TRANSFORMS_LIVENESS_H
#define GPLACE_DIALECT_PLAN_TRANSFORMS_LIVENESS_H

#include "gplace/Dialect/Plan/PlanDialect.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gplace::plan {

/// The steps of a scheduled program in program order: each launch and copy,
/// except that a fusion group is one step (its launches run as one kernel,
/// when the stream reaches the first of them). A queue is one stream of one
/// device; each step runs on a queue, at a position that counts the queue's
/// earlier steps.
class Schedule {
public:
  struct Step {
    mlir::Operation *op;   ///< The launch or copy (a group's first launch).
    mlir::Operation *last; ///< Its last launch (op unless fused).
    unsigned queue;        ///< Into queues().
    unsigned position;     ///< The number of earlier steps of its queue.
  };
  /// A queue: a device (its symbol) and a stream.
  using Queue = std::pair<mlir::StringAttr, int64_t>;

  /// Builds the schedule of `program`. Fails, with an error at the op, if a
  /// launch or copy has no stream (the program is not scheduled).
  static mlir::FailureOr<Schedule> build(ProgramOp program);

  llvm::ArrayRef<Step> steps() const { return steps_; }
  llvm::ArrayRef<Queue> queues() const { return queues_; }
  /// A launch or copy and its step, as inOrder() lists them.
  struct Entry {
    mlir::Operation *op;
    unsigned step;
  };
  /// Every launch and copy in program order with its step: a walk over the
  /// program takes them in turn (stepOf's table is a hash probe per op,
  /// most of them cache misses at a million ops).
  llvm::ArrayRef<Entry> inOrder() const { return inOrder_; }
  /// The step of a launch or copy (a fused launch: its group's step).
  unsigned stepOf(mlir::Operation *op) const;
  /// The step of `op`, a launch or copy, for a walk over the program in
  /// order whose next launch or copy is inOrder()[cursor]: that entry's
  /// step (and the cursor moves past it), else stepOf(op).
  unsigned stepInWalk(mlir::Operation *op, size_t &cursor) const {
    if (cursor < inOrder_.size() && inOrder_[cursor].op == op)
      return inOrder_[cursor++].step;
    return stepOf(op);
  }
  /// The step at `position` of queue `queue`.
  unsigned stepAt(unsigned queue, unsigned position) const {
    return byQueue_[queue][position];
  }
  /// The queue of an op naming a device and a stream (a step or a
  /// gplan.record), or std::nullopt for one on no queue of the schedule.
  std::optional<unsigned> queueOf(mlir::Operation *op) const;
  /// queueOf(op) for `op`, a gplan.record, in a walk over the program in
  /// order whose next record build() saw is records()[cursor]: that
  /// entry's queue (and the cursor moves past it), else queueOf(op) (a
  /// record a pass inserted since).
  std::optional<unsigned> recordQueueInWalk(mlir::Operation *op,
                                            size_t &cursor) const {
    if (cursor < records_.size() && records_[cursor].op == op)
      return records_[cursor++].step;
    return queueOf(op);
  }
  /// The number of gplan.record ops of the program (for ClockWalk to
  /// size its tables once).
  size_t numRecords() const { return numRecords_; }
  /// Counts `added` gplan.record ops a pass inserted into the program
  /// since build() (records are no steps: the rest stays true).
  void addedRecords(size_t added) { numRecords_ += added; }

private:
  size_t numRecords_ = 0;
  std::vector<Step> steps_;
  std::vector<Queue> queues_;
  llvm::DenseMap<Queue, unsigned> queueIndex_;
  std::vector<std::vector<unsigned>> byQueue_;
  std::vector<Entry> inOrder_;
  /// The gplan.record ops build() saw, in program order, each with its
  /// queue (in Entry::step).
  std::vector<Entry> records_;
  /// stepOf's table, built from inOrder_ on its first use.
  mutable llvm::DenseMap<mlir::Operation *, unsigned> stepOf_;
};

/// The happens-before order of a scheduled program, as a walk over its ops
/// in program order keeps it: per queue a vector clock, clock[q] the number
/// of steps of queue q known to have run. A step knows its own queue's
/// earlier steps and, through each event it waits for, what the recording
/// queue knew when it recorded (transitively). A step S' of queue q happens
/// before the step iff its position is below clock[q].
class ClockWalk {
public:
  explicit ClockWalk(const Schedule &schedule);

  /// Moves the walk to `op`, the next op of the program: a gplan.record
  /// remembers its queue's clock. For the first op of a step (a launch or
  /// copy; a fusion group's first launch) the step's queue first takes in
  /// the clocks of the events the op waits for, and the step is returned;
  /// its clock is then clock(queue) until ran(step). Returns std::nullopt
  /// for any other op.
  std::optional<unsigned> enter(mlir::Operation *op);
  /// The step has run: its queue knows it.
  void ran(unsigned step);
  /// The clock of `queue` now. A caller that adds a wait for an event to
  /// the current step raises it with wait().
  llvm::ArrayRef<unsigned> clock(unsigned queue) const {
    return clocks_[queue];
  }
  /// `queue` waits for an event recorded right after step `after`: it then
  /// knows at least that step and the steps before it on its queue.
  void wait(unsigned queue, unsigned after);
  /// Remembers `event`, recorded right after step `after` (a record made
  /// behind the walk).
  void recorded(mlir::Value event, unsigned after);

private:
  /// Appends a clock of zeros for `event` and returns it.
  llvm::MutableArrayRef<unsigned> newEventClock(mlir::Value event);

  const Schedule &schedule_;
  /// The next of schedule_.inOrder() the walk expects.
  size_t next_ = 0;
  /// The next record of the schedule the walk expects (recordQueueInWalk).
  size_t nextRecord_ = 0;
  std::vector<std::vector<unsigned>> clocks_;
  /// Per event, where its clock (one entry per queue) starts in
  /// eventClocks_: one buffer for all, rather than a vector per event.
  llvm::DenseMap<mlir::Value, size_t> events_;
  std::vector<unsigned> eventClocks_;
};

/// The arena buffers of a scheduled program (forEachArenaBuffer's order)
/// and when each is in use.
struct BufferLives {
  struct Buffer {
    mlir::Value value;
    mlir::StringAttr device; ///< Its device's symbol.
    int64_t bytes = 0;       ///< In the arena, aligned.
    unsigned producer = 0;   ///< The step writing it.
    /// The last step in program order that uses it (its producer if none
    /// does); kEnd if it is a result of the program.
    unsigned last = 0;
    /// Per queue that uses it (the producer's included), the position of
    /// its last use there: every one of them must happen before a step that
    /// reuses its memory.
    llvm::SmallVector<std::pair<unsigned, unsigned>, 2> lastUses;
    bool inRegisters = false; ///< isFusedInRegisters: no memory.
    /// In place (see build()): the operand buffer whose memory this one
    /// may take; on that operand, whether it does (build's `inPlace`): its
    /// memory is handed over at its last use rather than freed.
    std::optional<unsigned> sharesWith;
    bool handedOver = false;
  };
  static constexpr unsigned kEnd = ~0u;

  /// Uses through views count for the buffer they view. In place: the
  /// result of an elementwise launch (ElementwiseOpInterface: each element
  /// of the result depends only on the same element of its operands) that
  /// is a step of its own shares the memory of its first operand of the
  /// result's type (no view) whose last use it is, if every use of that
  /// operand is on the launch's queue (so before it in program order), as
  /// XLA's buffer assignment and TensorFlow's forward_input reuse an
  /// operand's buffer: `sharesWith` is always set where that is possible,
  /// `handedOver` (and the lower bound counts the pair once) only if
  /// `inPlace`. Fails, with an error, for a buffer whose size overflows.
  static mlir::FailureOr<BufferLives> build(ProgramOp program,
                                            const Schedule &schedule,
                                            bool inPlace = false);
  /// The same, of the schedule Schedule::build takes of `program`; fails,
  /// with an error, where either fails.
  static mlir::FailureOr<BufferLives> build(ProgramOp program);

  /// The lives of a memory-planned program: as build(), in place if its
  /// arena tables put some result at the offset of the operand it may
  /// share (--gplace-plan-memory's in-place).
  static mlir::FailureOr<BufferLives> buildAsPlanned(ProgramOp program);
  /// In forEachArenaBuffer's order (that of the arena tables' offsets).
  std::vector<Buffer> buffers;
  /// Each buffer's index in `buffers`, by its value (a view's root).
  llvm::DenseMap<mlir::Value, unsigned> indexOf;

  /// Per device: the most bytes of buffers in use at one step in program
  /// order (each from its producer to its last use): a lower bound of the
  /// arena any plan of this schedule needs.
  llvm::DenseMap<mlir::StringAttr, int64_t> lowerBounds;
};

/// The Schedule and BufferLives of one program as an MLIR analysis
/// (AnalysisManager::getChildAnalysis on the program), each built on first
/// use: --gplace-plan-memory builds them and preserves them (the events
/// and arena tables it adds are no steps and no buffers, and a wait changes
/// no buffer's uses), so that --gplace-verify-plan right after it takes
/// them rather than walking the program twice more. A pass that changes
/// steps, streams or buffers invalidates it (MLIR's default).
class ProgramLiveness {
public:
  explicit ProgramLiveness(mlir::Operation *program)
      : program_(llvm::cast<ProgramOp>(program)) {}

  /// Schedule::build of the program, built once; null if that failed (its
  /// error was emitted then).
  Schedule *getSchedule();
  /// BufferLives::build of the program and getSchedule(), built once;
  /// null if either failed (their error was emitted then). `inPlace` as
  /// BufferLives::build's; std::nullopt takes lives built either way (they
  /// differ only in Buffer::handedOver and lowerBounds), false if none
  /// was built yet. Lives built with the other `inPlace` are built again.
  BufferLives *getLives(std::optional<bool> inPlace);

private:
  ProgramOp program_;
  std::optional<mlir::FailureOr<Schedule>> schedule_;
  std::optional<mlir::FailureOr<BufferLives>> lives_;
  bool livesInPlace_ = false;
};

/// Per device (its gplan.device symbol): the most of BufferLives'
/// lowerBounds over the programs of `module`, the arena part of the
/// liveness lower bound --gplace-print-memory-plan prints (a device no
/// program uses has none). Fails, with an error at the op, for a program
/// that is not scheduled or a buffer whose size overflows.
mlir::FailureOr<llvm::DenseMap<mlir::StringAttr, int64_t>>
arenaLowerBounds(mlir::ModuleOp module);

/// What --gplace-rematerialize="auto=true" did for the device named
/// `device` (the module's `gplace.rematerialized` entry): "rematerialized
/// 3 ops (estimated peak 900 -> 600 bytes)", or "" if it did not look at
/// it (no pass, or the estimate met its target: nothing recomputed).
std::string describeRematerialized(mlir::ModuleOp module,
                                   llvm::StringRef device);

/// The buffers holding a device's arena bytes as a walk over the program
/// in order sees them: each byte's last writer. --gplace-plan-memory asks
/// it which buffers a new buffer takes memory from (to add waits), and
/// --gplace-verify-plan (to check them).
class ArenaTenants {
public:
  /// Makes buffer `index` the tenant of [begin, end) (a non-empty range),
  /// first calling `displaced(old)` for each buffer holding some of those
  /// bytes; fails, leaving the tenants as they were from that buffer on,
  /// as soon as a call fails.
  mlir::LogicalResult
  take(int64_t begin, int64_t end, unsigned index,
       llvm::function_ref<mlir::LogicalResult(unsigned old)> displaced);

private:
  /// By the offset they start at: (end, buffer).
  std::map<int64_t, std::pair<int64_t, unsigned>> held_;
};

} // namespace gplace::plan

#endif // GPLACE_DIALECT_PLAN_TRANSFORMS_LIVENESS_H
