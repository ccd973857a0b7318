//===- Threads.cpp - how many CPU threads kernels use ---------------------===//

#include "gplace/Runtime/Threads.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include <sched.h>

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
  std::string cgroup;
  {
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    while (std::getline(self, line))
      if (line.rfind("0::", 0) == 0)
        cgroup = line.substr(3);
  }
  for (const std::string &dir :
       {"/sys/fs/cgroup" + cgroup, std::string("/sys/fs/cgroup")}) {
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

/// The calling thread's run queue delay so far, in nanoseconds (the second
/// field of /proc/thread-self/schedstat); std::nullopt without schedstat.
std::optional<uint64_t> runQueueDelay() {
  std::FILE *file = std::fopen("/proc/thread-self/schedstat", "r");
  if (!file)
    return std::nullopt;
  unsigned long long running = 0, waiting = 0;
  int read = std::fscanf(file, "%llu %llu", &running, &waiting);
  std::fclose(file);
  if (read != 2)
    return std::nullopt;
  return static_cast<uint64_t>(waiting);
}

constexpr std::chrono::milliseconds kWindow{5};

} // namespace

int usableCpuCount() {
  int cpus = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    cpus = CPU_COUNT(&set);
  if (cpus <= 0)
    cpus = 1;
  if (std::optional<int> quota = cgroupCpuQuota())
    cpus = std::min(cpus, *quota);
  return cpus;
}

/// The most intra-op threads by default: usableCpuCount(), or fewer where
/// OMP_NUM_THREADS (which libgomp, oneDNN and OpenBLAS read) asks for
/// fewer.
static int defaultMaximum() {
  int cpus = usableCpuCount();
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    int asked = std::atoi(env); // "4", or a list "4,2": its first level.
    if (asked > 0)
      cpus = std::min(cpus, asked);
  }
  return cpus;
}

IntraOpThreads::IntraOpThreads(int fixed)
    : current_(fixed > 0 ? fixed : defaultMaximum()),
      maximum_(current_.load()), adaptive_(fixed <= 0 && maximum_ > 1) {}

void IntraOpThreads::update() {
  if (!adaptive_)
    return;
  auto now = std::chrono::steady_clock::now();
  if (measured_ && now - windowStart_ < kWindow)
    return;
  std::optional<uint64_t> delay = runQueueDelay();
  if (!delay) {
    adaptive_ = false; // No schedstat: the maximum, as a fixed count.
    return;
  }
  if (measured_) {
    double wall = std::chrono::duration<double, std::nano>(now - windowStart_)
                      .count();
    double waited = static_cast<double>(*delay - delayAtStart_);
    int threads = current_.load(std::memory_order_relaxed);
    if (waited > 0.10 * wall) {
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
  delayAtStart_ = *delay;
}

} // namespace gplace::runtime
