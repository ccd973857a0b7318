//===- Threads.cpp - how many CPU threads kernels use ---------------------===//

#include "gplace/Runtime/Threads.h"
#include "gplace/Runtime/Kernels.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef GPLACE_HAVE_OPENMP
#include <omp.h>
#endif

namespace gplace::runtime {

namespace {

/// The CPU quota of this process's cgroup, in CPUs rounded up; std::nullopt
/// where there is none (v2's "max", v1's -1) or no cgroup file to read.
std::optional<int> cgroupCpuQuota() {
  auto toCpus = [](double quota, double period) -> std::optional<int> {
    if (quota <= 0 || period <= 0)
      return std::nullopt;
    return std::max(1, static_cast<int>((quota + period - 1) / period));
  };
  // cgroup v2: "<quota> <period>" or "max <period>", in the process's own
  // cgroup (a container sees its own as the root).
  for (const std::string &dir : {cgroupV2Dir(), std::string("/sys/fs/cgroup")}) {
    std::ifstream max(dir + "/cpu.max");
    std::string quota;
    double period = 0;
    if (max >> quota >> period) {
      if (quota == "max")
        return std::nullopt;
      return toCpus(std::atof(quota.c_str()), period);
    }
  }
  // cgroup v1.
  std::ifstream quotaFile("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
      periodFile("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  double quota = 0, period = 0;
  if (quotaFile >> quota && periodFile >> period)
    return toCpus(quota, period);
  return std::nullopt;
}

/// The calling thread's tid (gettid).
long currentTid() { return static_cast<long>(syscall(SYS_gettid)); }

/// Threads' run queue delays so far, in nanoseconds (the second field of
/// /proc/self/task/TID/schedstat; tid 0: the calling thread's), through
/// files kept open: a pread of one takes about 1.2 us, an fopen, fscanf
/// and fclose 8 us, and a plan of 4 emulated GPUs measures a dozen
/// threads per window. std::nullopt without schedstat or the thread.
class RunQueueDelays {
public:
  RunQueueDelays() = default;
  RunQueueDelays(const RunQueueDelays &) = delete;
  RunQueueDelays &operator=(const RunQueueDelays &) = delete;
  ~RunQueueDelays() {
    for (const auto &[tid, fd] : files_)
      if (fd >= 0)
        ::close(fd);
  }

  std::optional<uint64_t> read(long tid) {
    if (tid == 0)
      tid = currentTid();
    auto [it, isNew] = files_.try_emplace(tid, -1);
    if (isNew) {
      std::string path =
          "/proc/self/task/" + std::to_string(tid) + "/schedstat";
      it->second = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (it->second < 0)
      return std::nullopt;
    char text[128];
    ssize_t size = ::pread(it->second, text, sizeof(text) - 1, 0);
    if (size <= 0)
      return std::nullopt; // The thread has exited.
    text[size] = '\0';
    unsigned long long running = 0, waiting = 0;
    if (std::sscanf(text, "%llu %llu", &running, &waiting) != 2)
      return std::nullopt;
    return static_cast<uint64_t>(waiting);
  }

private:
  std::map<long, int> files_; ///< tid -> open schedstat file (-1: none).
};

/// The tids of the calling thread's OpenMP workers for a team of
/// `threads`, from inside one parallel region of that size (libgomp keeps
/// a thread's workers from region to region). The region may be the one
/// that starts them: they start with denormals flushed, as from a
/// kernel's region (ScopedFlushDenormal, Kernels.h).
std::vector<long> openmpWorkers(int threads) {
  std::vector<long> workers;
#ifdef GPLACE_HAVE_OPENMP
  if (threads <= 1 || omp_in_parallel())
    return workers;
  std::vector<long> tids(threads, 0);
  ScopedFlushDenormal flush;
#pragma omp parallel num_threads(threads)
  tids[omp_get_thread_num()] = currentTid();
  for (size_t i = 1; i < tids.size(); ++i)
    if (tids[i] > 0 && tids[i] != tids[0])
      workers.push_back(tids[i]);
#else
  (void)threads;
#endif
  return workers;
}

constexpr std::chrono::milliseconds kWindow{5};

thread_local int lastTeam = 0;

} // namespace

std::string cgroupV2Dir() {
  std::string cgroup;
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0)
      cgroup = line.substr(3);
  return "/sys/fs/cgroup" + cgroup;
}

std::vector<unsigned long> affinityMask(int pid) {
  // Sized for the CPUs the kernel may have (a fixed cpu_set_t holds 1024,
  // and sched_getaffinity fails past that), doubled while too small.
  constexpr size_t bits = 8 * sizeof(unsigned long);
  for (size_t cpus = 1024; cpus <= (size_t(1) << 20); cpus *= 2) {
    std::vector<unsigned long> mask(cpus / bits, 0);
    if (sched_getaffinity(pid, mask.size() * sizeof(unsigned long),
                          reinterpret_cast<cpu_set_t *>(mask.data())) == 0)
      return mask;
    if (errno != EINVAL)
      return {};
  }
  return {};
}

int affinityCpuCount(int pid) {
  int count = 0;
  for (unsigned long word : affinityMask(pid))
    count += __builtin_popcountl(word);
  return count;
}

bool setThreadAffinity(const std::vector<unsigned long> &mask) {
  return !mask.empty() &&
         sched_setaffinity(0, mask.size() * sizeof(unsigned long),
                           reinterpret_cast<const cpu_set_t *>(mask.data())) ==
             0;
}

int usableCpuCount() {
  int cpus = affinityCpuCount();
  if (cpus <= 0)
    cpus = 1;
  if (std::optional<int> quota = cgroupCpuQuota())
    cpus = std::min(cpus, *quota);
  return cpus;
}

/// The most intra-op threads by default: `cpus` (usableCpuCount()), or fewer where
/// OMP_NUM_THREADS (which libgomp, oneDNN and OpenBLAS read) asks for
/// fewer.
static int defaultMaximum(int cpus) {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    int asked = std::atoi(env); // "4", or a list "4,2": its first level.
    if (asked > 0)
      cpus = std::min(cpus, asked);
  }
  return cpus;
}

IntraOpThreads::IntraOpThreads(int fixed, Probe probe)
    : current_(fixed > 0 ? fixed
                         : defaultMaximum(probe.cpus ? probe.cpus()
                                                     : usableCpuCount())),
      maximum_(current_.load()), adaptive_(fixed <= 0 && maximum_ > 1),
      probe_(std::move(probe)) {
  if (!probe_.now)
    probe_.now = [] { return std::chrono::steady_clock::now(); };
  if (!probe_.delay)
    probe_.delay = [delays = std::make_shared<RunQueueDelays>()](long tid) {
      return delays->read(tid);
    };
  if (!probe_.workers)
    probe_.workers = openmpWorkers;
  if (!probe_.self)
    probe_.self = currentTid;
  static std::atomic<uint64_t> made{0};
  id_ = ++made;
}

void IntraOpThreads::addThreadsLocked(long tid,
                                      const std::vector<long> &workers) {
  tids_.push_back(tid);
  kernelThread_.push_back(true);
  for (long worker : workers) {
    tids_.push_back(worker);
    kernelThread_.push_back(false);
  }
  delayAtStart_.resize(tids_.size(), std::nullopt);
}

void IntraOpThreads::addKernelThread() {
  if (!adaptive_)
    return;
  // The objects this thread added itself to, the latest 64 (a pool
  // thread serves one executor; a caller that makes executors by the
  // thousand, as a Python process may, keeps no more).
  thread_local std::vector<uint64_t> added;
  if (std::find(added.begin(), added.end(), id_) != added.end())
    return;
  if (added.size() == 64)
    added.erase(added.begin());
  added.push_back(id_);
  long tid = probe_.self();
  auto known = [&] {
    return tid == callerTid_ || // Measured as tid 0, with its workers.
           std::find(tids_.begin(), tids_.end(), tid) != tids_.end();
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (known())
      return;
  }
  // Found outside the lock: the parallel region may start the workers.
  std::vector<long> workers = probe_.workers(maximum_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!known())
    addThreadsLocked(tid, workers);
}

size_t IntraOpThreads::measuredThreads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tids_.size();
}

std::optional<IntraOpThreads::WindowDelays> IntraOpThreads::windowDelay() {
  WindowDelays delays;
  for (size_t i = 0; i < tids_.size(); ++i) {
    std::optional<uint64_t> delay = probe_.delay(tids_[i]);
    if (tids_[i] == 0 && !delay)
      return std::nullopt;
    if (delay && delayAtStart_[i] && *delay >= *delayAtStart_[i]) {
      double waited = static_cast<double>(*delay - *delayAtStart_[i]);
      double &into = kernelThread_[i] ? delays.caller : delays.workers;
      into = std::max(into, waited);
    }
    delayAtStart_[i] = delay;
  }
  return delays;
}

void IntraOpThreads::update() {
  if (!adaptive_)
    return;
  auto now = probe_.now();
  if (measured_ && now - windowStart_ < kWindow)
    return;
  std::unique_lock<std::mutex> lock(mutex_);
  if (callerTid_ == -1) {
    // The caller, then its workers (found once: libgomp keeps them); the
    // streams' threads add themselves (addKernelThread).
    lock.unlock();
    long self = probe_.self();
    std::vector<long> workers = probe_.workers(maximum_);
    lock.lock();
    callerTid_ = self;
    // The caller may have added itself already, running a stream of a
    // run before the first update() (a capture at load).
    if (std::find(tids_.begin(), tids_.end(), self) == tids_.end())
      addThreadsLocked(0, workers);
  }
  // The kernel threads' delays and their workers': a worker waiting for a
  // CPU stalls every region it is in, while the thread that started the
  // region shows that only as time blocked at the barrier.
  std::optional<WindowDelays> delays = windowDelay();
  lock.unlock();
  if (!delays) {
    adaptive_ = false; // No schedstat: the maximum, as a fixed count.
    return;
  }
  if (measured_) {
    double wall = std::chrono::duration<double, std::nano>(now - windowStart_)
                      .count();
    double waited = std::max(delays->caller, delays->workers);
    int threads = current_.load(std::memory_order_relaxed);
    // A delay counts in the second slow window in a row, the caller's as
    // its workers': a thread woken a scheduler tick late once (another
    // process's tick on a quiet machine) would otherwise halve the team
    // for hundreds of runs; one that keeps waiting for a CPU is
    // oversubscription.
    bool slowNow = waited > 0.10 * wall;
    bool slow = slowNow && slowBefore_;
    slowBefore_ = slowNow;
    if (slow) {
      if (threads > 1) {
        current_.store(std::max(1, threads / 2), std::memory_order_relaxed);
        // A raise that brought the delay back waits longer next time (up
        // to 4 s): two processes on two cores settle on a thread each
        // instead of trying a second every 100 ms.
        requiredQuiet_ = std::min(800, requiredQuiet_ * 2);
      }
      quietWindows_ = 0;
    } else if (waited < 0.02 * wall) {
      ++quietWindows_;
      if (threads < maximum_ && quietWindows_ >= requiredQuiet_) {
        current_.store(threads + 1, std::memory_order_relaxed);
        quietWindows_ = 0;
      } else if (threads == maximum_ && quietWindows_ >= 200) {
        requiredQuiet_ = 20; // Quiet at the maximum for a second.
      }
    } else {
      quietWindows_ = 0;
    }
  }
  measured_ = true;
  windowStart_ = now;
}

bool spinUntil(const std::function<bool()> &ready,
               std::chrono::microseconds budget) {
  if (budget.count() <= 0)
    return ready();
  auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    if (ready())
      return true;
    sched_yield();
    if (std::chrono::steady_clock::now() >= deadline)
      return ready();
  }
}

KernelSlots::KernelSlots(int slots, std::chrono::microseconds spin)
    : slots_(slots), spin_(spin), free_(slots) {}

void KernelSlots::acquire() {
  for (;;) {
    int free = free_.load();
    while (free > 0)
      if (free_.compare_exchange_weak(free, free - 1))
        return;
    if (spinUntil([&] { return free_.load() > 0; }, spin_))
      continue;
    // Counted as a sleeper before reading free_ again (both sequentially
    // consistent, as release()'s increment and read of sleepers_), so that
    // a release either sees this thread asleep-to-be or leaves a slot
    // this thread sees.
    std::unique_lock<std::mutex> lock(mutex_);
    ++sleepers_;
    wake_.wait(lock, [&] { return free_.load() > 0; });
    --sleepers_;
  }
}

void KernelSlots::release() {
  free_.fetch_add(1);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_one();
  }
}

TaskTeam::TaskTeam(size_t workers, std::chrono::microseconds spin)
    : spin_(spin) {
  threads_.reserve(workers);
  for (size_t i = 0; i < workers; ++i)
    threads_.emplace_back([this] { workerLoop(); });
}

TaskTeam::~TaskTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    wake_.notify_all();
  }
  for (std::thread &thread : threads_)
    thread.join();
}

void TaskTeam::work() {
  uint64_t word = claim_.load(std::memory_order_acquire);
  for (;;) {
    uint64_t count = (word >> 16) & 0xffff, next = word & 0xffff;
    if (next >= count)
      return;
    // A claim names its run (the word's high half), so a worker still
    // finishing an earlier run never takes a task twice.
    if (!claim_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire))
      continue;
    // tasks_ was written before the run's word was stored (release); it
    // stays until this task has returned (run() waits for pending_).
    tasks_[next]();
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (callerWaiting_)
        done_.notify_one();
    }
    word = claim_.load(std::memory_order_acquire);
  }
}

void TaskTeam::workerLoop() {
  auto runOf = [this] { return claim_.load(std::memory_order_acquire) >> 32; };
  uint64_t seen = runOf();
  for (;;) {
    work();
    auto changed = [&] {
      return runOf() != seen || stop_.load(std::memory_order_acquire);
    };
    if (!spinUntil(changed, spin_)) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleepers_;
      wake_.wait(lock, changed);
      --sleepers_;
    }
    if (stop_.load(std::memory_order_acquire))
      return;
    seen = runOf();
  }
}

void TaskTeam::run(const std::vector<std::function<void()>> &tasks) {
  if (tasks.size() > threads_.size() + 1 || tasks.size() > 0xffff)
    throw std::logic_error("TaskTeam::run: more tasks than threads");
  if (tasks.empty())
    return;
  if (tasks.size() == 1) {
    tasks.front()();
    return;
  }
  // The previous run's tasks have all returned (pending_ reached 0), so no
  // worker reads tasks_ now.
  tasks_ = tasks.data();
  pending_.store(tasks.size(), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t run = (claim_.load(std::memory_order_relaxed) >> 32) + 1;
    claim_.store((run << 32) | (uint64_t(tasks.size()) << 16),
                 std::memory_order_release);
    if (sleepers_ > 0)
      wake_.notify_all();
  }
  work();
  auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spinUntil(finished, spin_)) {
    std::unique_lock<std::mutex> lock(mutex_);
    callerWaiting_ = true;
    done_.wait(lock, finished);
    callerWaiting_ = false;
  }
}

int threadsForWork(int64_t work, int team, int64_t perThread) {
  if (team <= 1 || work <= 0 || perThread <= 0)
    return 1;
  int64_t wanted = (work + perThread - 1) / perThread;
  return static_cast<int>(std::min<int64_t>(team, std::max<int64_t>(1, wanted)));
}

ScopedLaunchThreads::ScopedLaunchThreads(int64_t work) {
#ifdef GPLACE_HAVE_OPENMP
  saved_ = omp_get_max_threads();
  threads_ = threadsForWork(work, saved_);
  if (threads_ != saved_)
    omp_set_num_threads(threads_);
#else
  (void)work;
#endif
  lastTeam = threads_;
}

ScopedLaunchThreads::~ScopedLaunchThreads() {
#ifdef GPLACE_HAVE_OPENMP
  if (threads_ != saved_)
    omp_set_num_threads(saved_);
#endif
}

int lastLaunchTeam() { return lastTeam; }

void recordLaunchTeam(int threads) { lastTeam = threads; }

} // namespace gplace::runtime
