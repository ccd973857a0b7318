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
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gplace::runtime {

/// This process's cgroup v2 directory: "/sys/fs/cgroup" followed by the
/// path of /proc/self/cgroup's "0::" line (a container sees its own cgroup
/// as the root, "/sys/fs/cgroup/"); "/sys/fs/cgroup" where there is none.
/// Its cpu.max and memory.max are read by usableCpuCount and
/// usableHostMemoryBytes (Device.h).
std::string cgroupV2Dir();

/// The affinity mask of process `pid` (0: this one; for a process, its
/// main thread's) as the words of a cpu_set_t (sched_getaffinity, sized for
/// any CPU count); empty where it cannot be read (no such process, not
/// permitted).
std::vector<unsigned long> affinityMask(int pid = 0);

/// The CPUs in affinityMask(pid); 0 where it cannot be read.
int affinityCpuCount(int pid = 0);

/// Sets the calling thread's affinity mask to `mask` (affinityMask's
/// words; sched_setaffinity). Threads it starts later, and the image an
/// exec starts, inherit it. Returns false where the kernel refuses it (no
/// allowed CPU in it, outside the cgroup's cpuset) or `mask` is empty.
bool setThreadAffinity(const std::vector<unsigned long> &mask);

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
/// measured, not guessed: the run queue delay of the threads that run the
/// kernels (the caller, each stream's thread that addKernelThread names)
/// and of their OpenMP workers (/proc/self/task/TID/schedstat: the time
/// each was ready but waited for a CPU), over windows of at least 5 ms;
/// over 10% of a window's wall time halves the team, under 2% for 20
/// windows in a row adds a thread back (twice as many after each raise
/// that was undone, up to 800).
/// Where schedstat is missing, the count stays at the maximum.
class IntraOpThreads {
public:
  /// What IntraOpThreads reads of the system, replaceable for tests: each
  /// member left empty takes the real one.
  struct Probe {
    /// The time now (std::chrono::steady_clock::now).
    std::function<std::chrono::steady_clock::time_point()> now;
    /// Thread `tid`'s run queue delay so far in nanoseconds (tid 0: the
    /// calling thread); std::nullopt where schedstat cannot be read.
    std::function<std::optional<uint64_t>(long tid)> delay;
    /// The tids of the calling thread's OpenMP workers for a team of
    /// `threads` (threads - 1 of them: the caller is the team's first),
    /// found once from inside a parallel region; none without OpenMP.
    std::function<std::vector<long>(int threads)> workers;
    /// The CPUs the process may use (usableCpuCount).
    std::function<int()> cpus;
    /// The calling thread's tid (gettid).
    std::function<long()> self;
  };

  explicit IntraOpThreads(int fixed, Probe probe = {});

  /// Updates the count from the delays of the calling thread and its
  /// OpenMP workers (at most once per window; a few microseconds then,
  /// nothing otherwise); call before each run from the thread that runs
  /// it. Its first call finds the workers (a parallel region of the
  /// maximum team).
  void update();

  /// Adds the calling thread, which runs kernels with this count (a
  /// thread of the executor's TaskTeam running a stream), and its OpenMP
  /// workers to
  /// the threads update() measures; its first call on a thread finds the
  /// workers (a parallel region of the maximum team), later calls on it
  /// return at once. Without it a plan of several streams, whose kernels
  /// ran on a pool's threads while the caller waited for them, never
  /// saw a delay: its team stayed at the maximum on a busy machine (the
  /// seeds' conv_net on an emulated GPU with 4 micro-batches beside a
  /// busy loop: a median step of 77-89 ms, 50-52 ms since;
  /// bench/results/2026-12-03-stream-threads.md). Thread-safe; nothing
  /// when fixed.
  void addKernelThread();

  /// The threads update() reads: the caller (from the first update() on),
  /// the kernel threads addKernelThread added, and their OpenMP workers.
  /// For tests.
  size_t measuredThreads() const;

  /// The count kernels use now; KernelCall::intraOpThreads points here.
  const std::atomic<int> &current() const { return current_; }
  int maximum() const { return maximum_; }
  bool adaptive() const { return adaptive_; }

private:
  /// The delays since the window's start, in nanoseconds: the largest of
  /// the threads that run kernels (the caller's, the streams'), and the
  /// largest of their workers'.
  struct WindowDelays {
    double caller = 0;
    double workers = 0;
  };
  /// The window's delays; std::nullopt without schedstat for the caller.
  /// Starts a new window's figures.
  std::optional<WindowDelays> windowDelay();

  std::atomic<int> current_;
  int maximum_;
  bool adaptive_;
  Probe probe_;
  bool measured_ = false;
  std::chrono::steady_clock::time_point windowStart_;
  /// Adds `tid` (a thread that runs kernels, 0: the caller) and its
  /// OpenMP workers `workers`; mutex_ held.
  void addThreadsLocked(long tid, const std::vector<long> &workers);

  /// The threads measured (0: the caller; kernel threads by tid, each
  /// followed by its workers' tids), whether each runs kernels (else it
  /// is a worker), and their delays at the window's start (nullopt: not
  /// readable). Guarded by mutex_: kernel threads add themselves during
  /// runs.
  std::vector<long> tids_;
  std::vector<bool> kernelThread_;
  std::vector<std::optional<uint64_t>> delayAtStart_;
  mutable std::mutex mutex_;
  /// The caller's tid (probe_.self() at the first update(); -1 before):
  /// a plan of one stream runs its kernels on the caller, measured as
  /// tid 0.
  long callerTid_ = -1;
  /// This object's number among IntraOpThreads made in the process (a
  /// thread remembers the objects it added itself to by number, not by
  /// address, which a later object may reuse).
  uint64_t id_;
  int quietWindows_ = 0;
  int requiredQuiet_ = 20;
  /// Whether the last window's delay (the caller's or a worker's) was
  /// over the threshold: a delay halves the team in the second such
  /// window in a row.
  bool slowBefore_ = false;
};

/// The multiply-adds (a convolution's, a matmul's) one thread does in
/// about 20 microseconds on an AVX2 core with oneDNN's JIT kernels (25-44
/// billion a second measured with gplace-bench-conv on an AMD EPYC's
/// NHWC 3x3 convolutions of 0.2-100 million multiply-adds): a
/// launch of less work runs on one thread, where starting a team costs
/// more than it saves and, on a busy machine, a worker not on a CPU when
/// the region starts stalls the launch for scheduler ticks (4 ms each;
/// bench/results/2026-11-30-omp-team-sizing.md), as ONNX Runtime's MLAS
/// and TensorFlow's Eigen cost model size their parallel loops.
constexpr int64_t kWorkPerThread = 500000;

/// The threads a launch of `work` units uses with a team of `team`:
/// min(team, ceil(work / perThread)), at least 1.
int threadsForWork(int64_t work, int team,
                   int64_t perThread = kWorkPerThread);

/// Sets the calling thread's OpenMP team size to threadsForWork(work,
/// its current size) for its scope and restores the size it found: a
/// oneDNN launch's team, set before its primitive is made (oneDNN 2.x's
/// JIT primitives take their thread count when their descriptor is made)
/// and named in the primitive's key. Does nothing without OpenMP.
class ScopedLaunchThreads {
public:
  explicit ScopedLaunchThreads(int64_t work);
  ~ScopedLaunchThreads();
  ScopedLaunchThreads(const ScopedLaunchThreads &) = delete;
  ScopedLaunchThreads &operator=(const ScopedLaunchThreads &) = delete;
  /// The threads the launch runs on.
  int threads() const { return threads_; }

private:
  int saved_ = 1, threads_ = 1;
};

/// Calls `ready` until it returns true or `budget` has passed, giving the
/// CPU to any other runnable thread between calls (sched_yield); returns
/// its last answer (a budget of 0 calls it once). Where other threads want
/// the CPU, one yield may last a scheduler slice (milliseconds), so the
/// wait can outlast the budget, though its thread uses little CPU then. The
/// spinning half of a wait that then blocks (TaskTeam, the executor's events),
/// as Eigen's and ONNX Runtime's thread pools spin a bounded number of
/// iterations before they sleep: a futex wake-up costs 10-60 microseconds on a
/// VM. Yielding rather than pausing, the thread waited for gets this CPU when
/// threads outnumber the CPUs (four processes of two streams each on two
/// CPUs took 0.69-1.33 s with x86's `pause`, 0.28-0.29 s yielding;
/// docs/runtime.md).
bool spinUntil(const std::function<bool()> &ready,
               std::chrono::microseconds budget);

/// The executor's inter-op threads: `workers` threads of their own, plus
/// the thread that calls run(), which takes a task too. run() runs each
/// task once and returns when all have returned; it takes at most
/// workers + 1 tasks, and a thread takes another task only after its last
/// one returned, so every task gets a thread even when tasks wait for one
/// another (a stream waits for another stream's event); independent
/// tasks may run one after another on one thread. A
/// thread with nothing to do, and the caller waiting for the others'
/// tasks, spins for up to `spin` (spinUntil) before it blocks on a
/// condition variable: in a run of small steps, each handoff between
/// threads then costs no futex wake-up while the threads keep up, and a
/// thread stops spinning once the budget has passed after its last work
/// (between runs, a process is idle after that). A budget of 0 blocks at once
/// (as llvm::StdThreadPool, which the executor used before: every run paid a
/// wake-up per stream and one for the caller). Not reentrant: one run() at a
/// time.
class TaskTeam {
public:
  TaskTeam(size_t workers, std::chrono::microseconds spin);
  ~TaskTeam(); ///< Joins the workers (blocked or spinning).
  TaskTeam(const TaskTeam &) = delete;
  TaskTeam &operator=(const TaskTeam &) = delete;

  /// Runs `tasks` (at most workers() + 1 and 65,535 of them; more is a
  /// programming error, refused with std::logic_error) and returns after
  /// the last.
  void run(const std::vector<std::function<void()>> &tasks);
  size_t workers() const { return threads_.size(); }

private:
  /// Claims and runs tasks of the current run until none is left.
  void work();
  void workerLoop();

  const std::chrono::microseconds spin_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  /// The run's tasks, written before claim_ is stored (release), read
  /// after a claim (acquire).
  const std::function<void()> *tasks_ = nullptr;
  /// The run's claims in one word: its number (bits 32-63, the low half
  /// of a count of runs; stored under mutex_ when a run starts, and idle
  /// workers wait for it to change), its task count (16-31) and the next
  /// task to claim (0-15).
  std::atomic<uint64_t> claim_{0};
  std::atomic<size_t> pending_{0}; ///< Tasks not yet returned.
  int sleepers_ = 0;               ///< Workers blocked on wake_ (mutex_).
  bool callerWaiting_ = false;     ///< The caller blocked on done_ (mutex_).
  std::atomic<bool> stop_{false};
};

/// At most `slots` kernels at once (ExecutorOptions::interOpThreads, as
/// TensorFlow's inter_op_parallelism_threads bounds the ops that run in
/// parallel): a stream's thread takes a slot before a kernel and gives it
/// back after. A thread that finds none free spins for up to `spin`
/// (spinUntil) and then blocks until one is given back. Only work that
/// never waits for another thread may hold a slot (a kernel, not an
/// all-reduce member, a send or a receive), so that every holder returns
/// it. Thread-safe.
class KernelSlots {
public:
  KernelSlots(int slots, std::chrono::microseconds spin);
  KernelSlots(const KernelSlots &) = delete;
  KernelSlots &operator=(const KernelSlots &) = delete;

  void acquire();
  void release();
  int slots() const { return slots_; }

  /// Holds a slot of `slots` (none if null) from construction to
  /// destruction, however the scope ends.
  class Hold {
  public:
    explicit Hold(KernelSlots *slots) : slots_(slots) {
      if (slots_)
        slots_->acquire();
    }
    ~Hold() {
      if (slots_)
        slots_->release();
    }
    Hold(const Hold &) = delete;
    Hold &operator=(const Hold &) = delete;

  private:
    KernelSlots *slots_;
  };

private:
  const int slots_;
  const std::chrono::microseconds spin_;
  std::atomic<int> free_;
  std::atomic<int> sleepers_{0}; ///< Threads blocked on wake_.
  std::mutex mutex_;
  std::condition_variable wake_;
};

/// The team the calling thread's last sized launch ran on: a
/// ScopedLaunchThreads' count, or omp_get_num_threads() observed inside a
/// host kernel's parallel loop (1 for a loop run on the caller alone); 0
/// before any. For tests: the team a launch got, without timing it.
int lastLaunchTeam();

/// Records `threads` as the calling thread's lastLaunchTeam().
void recordLaunchTeam(int threads);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_THREADS_H
