//===- Collective.cpp - all-reduces across devices and tasks --------------===//
//
// Each all-reduce (an instance) keeps the members this process runs, in
// member order. A run of a member:
//   1. its input: the device's memory itself (host memory), or a download
//      into the member's staging after the device's work is done;
//   2. barrier: every local member has arrived;
//   3. local member p adds slice p of the elements over all local inputs,
//      in member order, in f32 (f16, bf16, f32) or f64 (f64), into its
//      outputs directly (one process, every member in host memory: the
//      fast path) or into the instance's sum;
//   4. barrier; then, for a group spanning tasks, the first local member
//      all-reduces the sum with the other tasks (the transport), started in
//      the order of the instance keys of its rank set (the next may start
//      while one is in flight), and a third barrier waits for it; each member writes its output from the sum;
//   5. barrier (fast path): no member's consumer reads an output another
//      member still writes.
// Barriers count arrivals per generation and wake on abort().
//
// Members on devices that share memory (the logical GPUs of one physical
// GPU: Device::sharesMemoryWith) reduce on the devices instead, with no
// host copy: each member records an event on its stream when it arrives;
// after the first barrier member p's stream waits for the others' events
// and runs a kernel that adds slice p of every input and writes it into
// every output (Device::reduceSlice); each records a second event, and
// after the second barrier each stream waits for all of them, so that no
// member's later work overwrites an input, or reads an output, that
// another member's kernel still uses. Members that are CUDA GPUs on
// physical GPUs of their own run NCCL (Device::createCollective): each
// queues ncclAllReduce on its stream once every member has arrived.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Collective.h"

#include <Eigen/Core>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

using namespace gplace;
using namespace gplace::runtime;

namespace {

/// A reusable barrier for `count` threads that also returns (false) once
/// aborted.
class Barrier {
public:
  bool wait(int count, const std::atomic<bool> &aborted) {
    std::unique_lock<std::mutex> lock(mutex_);
    uint64_t generation = generation_;
    if (++arrived_ == count) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return !aborted;
    }
    changed_.wait(lock,
                  [&] { return generation_ != generation || aborted; });
    return generation_ != generation && !aborted;
  }
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    arrived_ = 0;
  }
  void wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    changed_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
};

/// The order in which the all-reduces of one rank set reach the transport:
/// every task of the set calls them in increasing instance key, as MPI's
/// collectives on one communicator must be called.
struct RankSet {
  std::vector<int> ranks;
  std::vector<int64_t> keys; ///< Sorted instance keys.
  std::mutex mutex;
  std::condition_variable turned;
  size_t turn = 0; ///< Index into keys of the next to start.
};

struct Local {
  size_t step = 0;
  CollectiveMember member;
  void *staging = nullptr; ///< Host staging (devices without host memory).
};

struct Instance {
  int64_t key = 0;
  int64_t groupSize = 1;
  std::vector<int64_t> ranks;
  bool mean = false;
  TensorType type;
  std::vector<Local> locals; ///< Sorted by member index.
  /// Per local member: the host memory its input is read from in a run.
  std::vector<const void *> sources;
  /// The sum in the accumulation type (f32 or f64), for all but the fast
  /// path.
  std::vector<uint8_t> sum;
  bool fast = false;
  /// Reduced on the devices (members sharing memory), with events per
  /// member: its input is ready, its slice is written.
  bool onDevices = false;
  std::vector<std::unique_ptr<DeviceEvent>> ready, written;
  /// A device library's all-reduce (NCCL), shared by the group's
  /// all-reduces.
  DeviceCollective *library = nullptr;
  RankSet *rankSet = nullptr; ///< Groups spanning tasks.
  Barrier arrived, added, reduced;
};

bool isF64(const TensorType &type) {
  return type.elementType == ElementType::F64;
}

/// Calls `f(S(), A())` with the storage type S of `type` (Eigen::half,
/// Eigen::bfloat16, float, double) and the type A its sums are made in
/// (float, or double for f64).
template <typename F> void dispatch(ElementType type, F &&f) {
  switch (type) {
  case ElementType::F16:
    return f(Eigen::half(), float());
  case ElementType::BF16:
    return f(Eigen::bfloat16(), float());
  case ElementType::F64:
    return f(double(), double());
  default:
    return f(float(), float());
  }
}

/// Elements are added a block at a time, in registers' worth of A.
constexpr int64_t kBlock = 1024;

/// Elements [begin, end) of local member `p`'s slice of `n` elements.
std::pair<int64_t, int64_t> sliceOf(int64_t n, size_t p, size_t members) {
  int64_t per = (n + static_cast<int64_t>(members) - 1) /
                static_cast<int64_t>(members);
  int64_t begin = std::min(n, per * static_cast<int64_t>(p));
  return {begin, std::min(n, begin + per)};
}

} // namespace

class CollectiveExecutor::Impl {
public:
  std::map<int64_t, std::unique_ptr<Instance>> instances; ///< By key.
  std::map<size_t, std::pair<Instance *, size_t>> members; ///< Step: local.
  std::map<std::vector<int>, std::unique_ptr<RankSet>> rankSets;
  Transport *transport = nullptr;
  std::atomic<bool> aborted{false};
  /// All-reduces reduced on the devices, and through host staging.
  int onDevices = 0, staged = 0;
  /// Library all-reduces (NCCL) by device group, and how many use them;
  /// why a group has none, where its library said.
  std::map<std::vector<Device *>, std::unique_ptr<DeviceCollective>> libraries;
  std::map<std::string, int> inLibrary;
  std::string noLibrary;

  ~Impl() {
    for (auto &[key, instance] : instances)
      for (Local &local : instance->locals)
        if (local.staging)
          local.member.device->deallocateHostStaging(local.staging);
  }

  /// Adds local member p's slice of the inputs, in member order, a block
  /// at a time: into every local output (the fast path), or into the sum.
  template <typename S, typename A> void add(Instance &instance, size_t p) {
    int64_t n = instance.type.numElements();
    auto [begin, end] = sliceOf(n, p, instance.locals.size());
    A block[kBlock];
    for (int64_t at = begin; at < end; at += kBlock) {
      int64_t count = std::min(kBlock, end - at);
      const S *first = static_cast<const S *>(instance.sources[0]) + at;
      for (int64_t i = 0; i < count; ++i)
        block[i] = static_cast<A>(first[i]);
      for (size_t q = 1; q < instance.sources.size(); ++q) {
        const S *source = static_cast<const S *>(instance.sources[q]) + at;
        for (int64_t i = 0; i < count; ++i)
          block[i] += static_cast<A>(source[i]);
      }
      if (!instance.fast) {
        std::memcpy(reinterpret_cast<A *>(instance.sum.data()) + at, block,
                    count * sizeof(A));
        continue;
      }
      // TensorFlow's final_op Div divides; x * (1/n) differs from x / n in
      // the last bit, so divide.
      if (instance.mean)
        for (int64_t i = 0; i < count; ++i)
          block[i] /= static_cast<A>(instance.groupSize);
      for (Local &local : instance.locals) {
        S *out = static_cast<S *>(local.member.output.data) + at;
        for (int64_t i = 0; i < count; ++i)
          out[i] = static_cast<S>(block[i]);
      }
    }
  }

  /// Writes the instance's sum (divided for a mean) into `target`.
  template <typename S, typename A> void write(Instance &instance, void *target) {
    const A *sum = reinterpret_cast<const A *>(instance.sum.data());
    S *out = static_cast<S *>(target);
    int64_t n = instance.type.numElements();
    A groupSize = static_cast<A>(instance.groupSize);
    for (int64_t i = 0; i < n; ++i)
      out[i] = static_cast<S>(instance.mean ? sum[i] / groupSize : sum[i]);
  }

  /// Calls `onBarrier` for every barrier of every all-reduce and
  /// `onRankSet` for every rank set (under its mutex): what a member may
  /// wait on.
  template <typename B, typename R>
  void forEachWait(B &&onBarrier, R &&onRankSet) {
    for (auto &[key, instance] : instances)
      for (Barrier *barrier :
           {&instance->arrived, &instance->added, &instance->reduced})
        onBarrier(*barrier);
    for (auto &[ranks, set] : rankSets) {
      std::lock_guard<std::mutex> lock(set->mutex);
      onRankSet(*set);
    }
  }

  Status aborted_() const {
    return Status::unavailable("the run failed on another stream");
  }

  /// Member p's part of an all-reduce on the devices.
  Status runOnDevices(Instance &instance, size_t p) {
    Local &local = instance.locals[p];
    Device &device = *local.member.device;
    int stream = local.member.stream;
    int count = static_cast<int>(instance.locals.size());
    GPLACE_RETURN_IF_ERROR(device.recordEvent(instance.ready[p].get(), stream));
    if (!instance.arrived.wait(count, aborted))
      return aborted_();
    std::vector<const void *> inputs;
    std::vector<void *> outputs;
    for (size_t q = 0; q < instance.locals.size(); ++q) {
      const CollectiveMember &other = instance.locals[q].member;
      inputs.push_back(other.input.data);
      outputs.push_back(other.output.data);
      if (q != p)
        GPLACE_RETURN_IF_ERROR(device.waitEvent(
            *other.device, instance.ready[q].get(), stream));
    }
    auto [begin, end] =
        sliceOf(instance.type.numElements(), p, instance.locals.size());
    GPLACE_RETURN_IF_ERROR(device.reduceSlice(
        inputs, outputs, instance.type.elementType,
        instance.mean ? instance.groupSize : 0, begin, end, stream));
    GPLACE_RETURN_IF_ERROR(
        device.recordEvent(instance.written[p].get(), stream));
    if (!instance.added.wait(count, aborted))
      return aborted_();
    for (size_t q = 0; q < instance.locals.size(); ++q)
      if (q != p)
        GPLACE_RETURN_IF_ERROR(device.waitEvent(
            *instance.locals[q].member.device, instance.written[q].get(),
            stream));
    return Status::ok();
  }

  /// Member p's part of a library all-reduce: queued once every member
  /// arrived, so that the group's all-reduces reach the library in one
  /// order on every member.
  Status runInLibrary(Instance &instance, size_t p) {
    const CollectiveMember &member = instance.locals[p].member;
    if (!instance.arrived.wait(static_cast<int>(instance.locals.size()),
                               aborted))
      return aborted_();
    return instance.library->allReduce(
        p, member.input.data, member.output.data, instance.type,
        instance.mean ? instance.groupSize : 0, member.stream);
  }

  Status run(Instance &instance, size_t p) {
    if (instance.library)
      return runInLibrary(instance, p);
    if (instance.onDevices)
      return runOnDevices(instance, p);
    Local &local = instance.locals[p];
    Device &device = *local.member.device;
    int64_t bytes = instance.type.bytes();
    int count = static_cast<int>(instance.locals.size());
    if (local.staging) {
      GPLACE_RETURN_IF_ERROR(device.synchronize());
      GPLACE_RETURN_IF_ERROR(
          device.download(local.staging, local.member.input.data, bytes));
      instance.sources[p] = local.staging;
    } else {
      instance.sources[p] = local.member.input.data;
    }
    if (!instance.arrived.wait(count, aborted))
      return aborted_();
    bool f64 = isF64(instance.type);
    dispatch(instance.type.elementType, [&](auto s, auto a) {
      add<decltype(s), decltype(a)>(instance, p);
    });
    if (!instance.added.wait(count, aborted))
      return aborted_();
    if (instance.fast)
      return Status::ok();
    if (instance.rankSet) {
      if (p == 0)
        GPLACE_RETURN_IF_ERROR(allReduceAcrossTasks(instance, f64));
      if (!instance.reduced.wait(count, aborted))
        return aborted_();
    }
    void *target = local.staging ? local.staging : local.member.output.data;
    dispatch(instance.type.elementType, [&](auto s, auto a) {
      write<decltype(s), decltype(a)>(instance, target);
    });
    if (local.staging)
      GPLACE_RETURN_IF_ERROR(
          device.upload(local.member.output.data, local.staging, bytes));
    return Status::ok();
  }

  /// The first local member's part: its turn among the rank set's
  /// all-reduces, then the transport's all-reduce of the sum.
  Status allReduceAcrossTasks(Instance &instance, bool f64) {
    RankSet &set = *instance.rankSet;
    size_t position = std::lower_bound(set.keys.begin(), set.keys.end(),
                                       instance.key) -
                      set.keys.begin();
    {
      std::unique_lock<std::mutex> lock(set.mutex);
      set.turned.wait(lock, [&] { return set.turn == position || aborted; });
      if (aborted)
        return aborted_();
    }
    // The turn passes once this all-reduce is ordered, not done: the next
    // one's first member may start it while this one is in flight.
    StatusOr<int64_t> handle = transport->startAllReduce(
        set.ranks, instance.sum.data(), instance.type.numElements(), f64);
    {
      std::lock_guard<std::mutex> lock(set.mutex);
      set.turn = (set.turn + 1) % set.keys.size();
      set.turned.notify_all();
    }
    if (!handle)
      return handle.status();
    return transport->finishAllReduce(set.ranks, *handle);
  }
};

CollectiveExecutor::CollectiveExecutor() : impl_(std::make_unique<Impl>()) {}
CollectiveExecutor::~CollectiveExecutor() = default;

Status CollectiveExecutor::add(size_t step, CollectiveMember member) {
  const KernelParams &params = *member.params;
  std::unique_ptr<Instance> &slot = impl_->instances[params.instanceKey];
  if (!slot) {
    slot = std::make_unique<Instance>();
    slot->key = params.instanceKey;
    slot->groupSize = params.groupSize;
    slot->ranks = params.ranks;
    slot->mean = params.mean;
    slot->type = *member.input.type;
  }
  Instance &instance = *slot;
  std::string what = member.label + " on " + member.device->fullName();
  if (instance.groupSize != params.groupSize || instance.ranks != params.ranks ||
      instance.mean != params.mean || instance.type != *member.input.type ||
      *member.output.type != instance.type)
    return Status::invalidArgument(
        what + ": all-reduce " + std::to_string(instance.key) +
        " has members of other group sizes, ranks, reductions or types");
  for (const Local &other : instance.locals)
    if (other.member.params->member == params.member)
      return Status::invalidArgument(
          what + ": all-reduce " + std::to_string(instance.key) +
          " has member " + std::to_string(params.member) + " twice");
  Local local;
  local.step = step;
  local.member = std::move(member);
  instance.locals.push_back(std::move(local));
  return Status::ok();
}

Status CollectiveExecutor::prepare(Transport *transport) {
  impl_->transport = transport;
  int rank = transport ? transport->rank() : -1;
  std::map<std::vector<int>, std::vector<int64_t>> keysOf;
  for (auto &[key, owned] : impl_->instances) {
    Instance &instance = *owned;
    std::sort(instance.locals.begin(), instance.locals.end(),
              [](const Local &a, const Local &b) {
                return a.member.params->member < b.member.params->member;
              });
    // The tasks of the group, and how many members this process runs.
    std::set<int> tasks(instance.ranks.begin(), instance.ranks.end());
    int64_t expected = instance.groupSize;
    bool spansTasks = !instance.ranks.empty() && tasks.size() > 1;
    if (spansTasks) {
      if (!transport)
        return Status::unavailable(
            "all-reduce " + std::to_string(key) + " (" +
            instance.locals.front().member.label +
            ") spans several tasks: run gplace-run under mpirun with "
            "--cluster");
      expected = std::count(instance.ranks.begin(), instance.ranks.end(),
                            static_cast<int64_t>(rank));
      keysOf[std::vector<int>(tasks.begin(), tasks.end())].push_back(key);
    }
    if (static_cast<int64_t>(instance.locals.size()) != expected)
      return Status::invalidArgument(
          "all-reduce " + std::to_string(key) + " (" +
          instance.locals.front().member.label + ") has " +
          std::to_string(instance.locals.size()) +
          " members in this process, but its group needs " +
          std::to_string(expected));
    // A device library's all-reduce (NCCL: each member on a physical GPU
    // of its own), else on the devices when every member's device shares
    // the first one's memory (and has events to order the members'
    // streams), else on the host.
    Device &first = *instance.locals.front().member.device;
    if (!spansTasks && !first.isHostMemory()) {
      std::vector<Device *> group;
      for (const Local &local : instance.locals)
        group.push_back(local.member.device);
      auto found = impl_->libraries.find(group);
      if (found == impl_->libraries.end()) {
        std::string why;
        found = impl_->libraries
                    .emplace(group, first.createCollective(group, why))
                    .first;
        if (!why.empty())
          impl_->noLibrary = why;
      }
      instance.library = found->second.get();
      if (instance.library)
        ++impl_->inLibrary[instance.library->name()];
    }
    instance.onDevices =
        !spansTasks && !first.isHostMemory() && !instance.library;
    for (const Local &local : instance.locals)
      instance.onDevices &= local.member.device == &first ||
                            first.sharesMemoryWith(*local.member.device);
    for (const Local &local : instance.locals) {
      if (!instance.onDevices)
        break;
      instance.ready.push_back(local.member.device->createEvent());
      instance.written.push_back(local.member.device->createEvent());
      instance.onDevices &= instance.ready.back() && instance.written.back();
    }
    if (!instance.onDevices) {
      instance.ready.clear();
      instance.written.clear();
    } else {
      ++impl_->onDevices;
    }
    std::set<std::pair<Device *, int>> streams;
    for (Local &local : instance.locals) {
      CollectiveMember &member = local.member;
      if (!streams.insert({member.device, member.stream}).second)
        return Status::invalidArgument(
            member.label + " on " + member.device->fullName() +
            ": two members of all-reduce " + std::to_string(key) +
            " run on one stream, where each waits for the other");
      if (!member.device->isHostMemory() && !instance.onDevices &&
          !instance.library) {
        StatusOr<void *> staging =
            member.device->allocateHostStaging(instance.type.bytes());
        if (!staging)
          return staging.status();
        local.staging = *staging;
      }
    }
    instance.sources.assign(instance.locals.size(), nullptr);
    instance.fast = !spansTasks && !instance.onDevices && !instance.library;
    for (const Local &local : instance.locals)
      instance.fast &= local.staging == nullptr;
    if (!instance.fast && !instance.onDevices && !instance.library &&
        std::any_of(instance.locals.begin(), instance.locals.end(),
                    [](const Local &local) { return local.staging; }))
      ++impl_->staged;
    if (!instance.fast && !instance.onDevices && !instance.library)
      instance.sum.assign(instance.type.numElements() *
                              (isF64(instance.type) ? 8 : 4),
                          0);
    for (size_t p = 0; p < instance.locals.size(); ++p)
      impl_->members[instance.locals[p].step] = {&instance, p};
  }
  // Rank sets in increasing order, so that no two tasks wait for each
  // other in opposite orders.
  for (auto &[ranks, keys] : keysOf) {
    std::sort(keys.begin(), keys.end());
    GPLACE_RETURN_IF_ERROR(transport->prepareAllReduce(ranks));
    auto set = std::make_unique<RankSet>();
    set->ranks = ranks;
    set->keys = keys;
    for (int64_t key : keys)
      impl_->instances[key]->rankSet = set.get();
    impl_->rankSets[ranks] = std::move(set);
  }
  return Status::ok();
}

std::string CollectiveExecutor::note() const {
  int total = static_cast<int>(impl_->instances.size());
  if (total == 0)
    return "";
  int host = total - impl_->onDevices - impl_->staged;
  std::string text;
  auto add = [&](int count, const std::string &how) {
    if (count)
      text += std::string(text.empty() ? "" : ", ") + std::to_string(count) +
              " " + how;
  };
  for (const auto &[name, count] : impl_->inLibrary) {
    add(count, "in " + name + " (each member on a GPU of its own)");
    host -= count;
  }
  add(impl_->onDevices, "on the devices (GPUs sharing one GPU's memory: a "
                        "kernel per member, no host copy)");
  add(impl_->staged, "through host staging (download, add on the host, "
                     "upload: copy-based)");
  add(host, "in host memory");
  if (impl_->staged && !impl_->noLibrary.empty())
    text += " (" + impl_->noLibrary + ")";
  return "All-reduces: " + text;
}

bool CollectiveExecutor::contains(size_t step) const {
  return impl_->members.count(step) > 0;
}

Status CollectiveExecutor::run(size_t step) {
  auto it = impl_->members.find(step);
  if (it == impl_->members.end())
    return Status::internal("step " + std::to_string(step) +
                            " is no member of an all-reduce");
  return impl_->run(*it->second.first, it->second.second);
}

void CollectiveExecutor::beginRun() {
  impl_->aborted = false;
  impl_->forEachWait([](Barrier &barrier) { barrier.reset(); },
                     [](RankSet &set) { set.turn = 0; });
}

void CollectiveExecutor::abort() {
  impl_->aborted = true;
  impl_->forEachWait([](Barrier &barrier) { barrier.wake(); },
                     [](RankSet &set) { set.turned.notify_all(); });
}
