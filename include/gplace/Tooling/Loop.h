//===- Loop.h - running a loaded plan step by step and epoch by epoch -*- C++ -*-===//
//
// What gplace-run does with a loaded plan, for any front end (the tool, a
// Python session): run it a number of times on its staged inputs, or, with
// a data set, epoch by epoch over mini-batches (Keras's fit: a callback
// after each epoch with the means of the scalar results), keeping the last
// run's results and each run's wall time.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_LOOP_H
#define GPLACE_TOOLING_LOOP_H

#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"
#include "gplace/Tooling/Dataset.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace gplace::tooling {

/// What one epoch did, for the per-epoch callback.
struct EpochSummary {
  int64_t epoch = 0;     ///< 0-based.
  int64_t epochs = 0;    ///< How many in all.
  int64_t steps = 0;     ///< Runs in the epoch.
  int64_t batchSize = 0; ///< The data set's batch (0 without one).
  /// Per result: the mean over the epoch's steps of a floating-point
  /// scalar result (a loss, an accuracy); std::nullopt for other results.
  std::vector<std::optional<double>> means;
  double seconds = 0; ///< The epoch's wall time.
};

/// What runLoop leaves.
struct LoopResult {
  /// The last run's results, in host memory.
  std::vector<runtime::HostTensor> results;
  /// Each run's wall time in seconds (the plan, then its results to host
  /// memory), in order.
  std::vector<double> seconds;
};

/// Runs `executor`'s program on its staged inputs (Executor::stagedInput,
/// filled by the caller): with `dataset`, epochs `firstEpoch` (from 0; a
/// training resumed from a checkpoint starts past the epochs it ran) to
/// `epochs` (at least one; none when firstEpoch >= epochs, leaving no
/// results) of
/// Dataset::stepsPerEpoch() runs, each filling the batched inputs at
/// `batchTargets` (their staging memory, in the data set's order) with its
/// mini-batch first; without one, `iterations` runs (at least one). After
/// each epoch (the single pass without a data set too), `onEpoch` is
/// called (may be null); an error it returns stops the loop and is
/// returned. Errors: a run's (naming the op and device), onEpoch's.
runtime::StatusOr<LoopResult>
runLoop(runtime::Executor &executor, Dataset *dataset,
        llvm::ArrayRef<void *> batchTargets, int64_t epochs,
        int64_t iterations,
        llvm::function_ref<runtime::Status(const EpochSummary &)> onEpoch,
        int64_t firstEpoch = 0);

/// Keras's per-epoch line: `epoch 1/3: result[0] mean 0.512 (468 steps of
/// 128, 1.23 s)`, the means of the scalar results (printf's %.6g).
std::string formatEpoch(const EpochSummary &summary);

/// gplace-run --print-timing's line for the runs' wall times (seconds, in
/// order; at least one): `timing: 10 runs, first 1.234 ms, then mean
/// 0.456 ms, best 0.400 ms, median 0.450 ms`. The first run pays for first
/// touches of memory, and on GPUs for loading kernels, so it stands apart;
/// the median leaves out the few slow runs after it that some machines
/// show (on a 2-vCPU VM a process's first oneDNN convolutions ran 6-12x
/// slower in about two processes of three).
std::string formatRunTimes(llvm::ArrayRef<double> seconds);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_LOOP_H
