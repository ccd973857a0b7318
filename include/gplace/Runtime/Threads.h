//===- Threads.h - how many CPU threads kernels use -------------*- C++ -*-===//
//
// The CPU kernels' intra-op threads (OpenMP's team, which oneDNN's
// primitives and the host kernels' parallel loops share) and the
// executor's inter-op threads (one per stream), sized from the cores the
// process may use, as TensorFlow's intra_op_parallelism_threads and
// inter_op_parallelism_threads (docs/runtime.md, "Threads").
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_THREADS_H
#define GPLACE_RUNTIME_THREADS_H

#include <atomic>
#include <chrono>
#include <cstdint>

namespace gplace::runtime {

/// The CPUs this process may run on: those of its affinity mask
/// (sched_getaffinity, as TensorFlow's port::NumSchedulableCPUs), at most
/// its cgroup's CPU quota rounded up (cgroup v2 cpu.max, v1
/// cpu.cfs_quota_us / cpu.cfs_period_us: a container given 2 CPUs of a
/// 64-core host gets 2). At least 1.
int usableCpuCount();

/// The intra-op thread count of one executor's runs. Fixed (`fixed` > 0,
/// --intra-op-parallelism-threads) or adaptive (0): up to
/// usableCpuCount() (or OMP_NUM_THREADS where it asks for fewer), one
/// thread while the machine is oversubscribed. Spin-
/// waiting OpenMP workers (libgomp spins about 300,000 times before it
/// blocks) then steal the cores the other processes' threads need: four
/// trainings on two cores took 17-50x one's time. Oversubscription is
/// measured, not guessed: the run queue delay of the thread that runs the
/// kernels (/proc/thread-self/schedstat: the time it was ready but waited
/// for a CPU), over windows of at least 5 ms; over 10% of a window's wall
/// time halves the team, under 2% for 20 windows in a row adds a thread
/// back (twice as many after each raise that was undone, up to 800).
/// Where schedstat is missing, the count stays at the maximum.
class IntraOpThreads {
public:
  explicit IntraOpThreads(int fixed);

  /// Updates the count from the calling thread's delay (at most once per
  /// window; a few microseconds then, nothing otherwise); call before each
  /// run from the thread that runs it.
  void update();

  /// The count kernels use now; KernelCall::intraOpThreads points here.
  const std::atomic<int> &current() const { return current_; }
  int maximum() const { return maximum_; }
  bool adaptive() const { return adaptive_; }

private:
  std::atomic<int> current_;
  int maximum_;
  bool adaptive_;
  bool measured_ = false;
  std::chrono::steady_clock::time_point windowStart_;
  uint64_t delayAtStart_ = 0;
  int quietWindows_ = 0;
  int requiredQuiet_ = 20;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_THREADS_H
