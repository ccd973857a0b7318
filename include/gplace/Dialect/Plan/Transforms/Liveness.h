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

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

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
    mlir::Operation *op;  ///< The launch or copy (a group's first launch).
    unsigned queue;       ///< Into queues().
    unsigned position;    ///< The number of earlier steps of its queue.
  };
  /// A queue: a device (its symbol) and a stream.
  using Queue = std::pair<mlir::StringAttr, int64_t>;

  /// Builds the schedule of `program`. Fails, with an error at the op, if a
  /// launch or copy has no stream (the program is not scheduled).
  static mlir::FailureOr<Schedule> build(ProgramOp program);

  llvm::ArrayRef<Step> steps() const { return steps_; }
  llvm::ArrayRef<Queue> queues() const { return queues_; }
  /// The step of a launch or copy (a fused launch: its group's step).
  unsigned stepOf(mlir::Operation *op) const { return stepOf_.lookup(op); }

  /// Calls `visit(step, clock)` for every step in program order, where
  /// `clock[q]` is the number of steps of queue `q` that happen before the
  /// step starts: those before it on its own queue, and, through each
  /// event it waits for (transitively), those the recording queue had run
  /// when it recorded (vector clocks). A step S' of queue q happens before
  /// the step iff its position is below clock[q].
  void forEachStepWithClock(
      ProgramOp program,
      llvm::function_ref<void(unsigned step, llvm::ArrayRef<unsigned> clock)>
          visit) const;

private:
  std::vector<Step> steps_;
  std::vector<Queue> queues_;
  llvm::DenseMap<mlir::Operation *, unsigned> stepOf_;
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
  };
  static constexpr unsigned kEnd = ~0u;

  /// Uses through views count for the buffer they view. Fails, with an
  /// error, for a buffer whose size overflows.
  static mlir::FailureOr<BufferLives> build(ProgramOp program,
                                            const Schedule &schedule);

  std::vector<Buffer> buffers;

  /// Per device: the most bytes of buffers in use at one step in program
  /// order (each from its producer to its last use): a lower bound of the
  /// arena any plan of this schedule needs.
  llvm::DenseMap<mlir::StringAttr, int64_t> lowerBounds;
};

} // namespace gplace::plan

#endif // GPLACE_DIALECT_PLAN_TRANSFORMS_LIVENESS_H
