//===- Device.cpp - host devices (CPU, emulated GPUs) and discovery -------===//

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Threads.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>

#include <sys/resource.h>
#include <unistd.h>

namespace gplace::runtime {

namespace {
constexpr int64_t kAlignment = 64;
constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kDefaultEmulatedGpuMemory = 16 * 1024 * kMiB;

std::string formatBytes(int64_t bytes) {
  if (bytes % kMiB == 0)
    return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}
} // namespace

int64_t usableHostMemoryBytes() {
  int64_t usable = 0;
  auto cap = [&usable](int64_t bytes) {
    if (bytes > 0 && (usable == 0 || bytes < usable))
      usable = bytes;
  };
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0 &&
      pages <= INT64_MAX / static_cast<int64_t>(pageSize))
    cap(static_cast<int64_t>(pages) * pageSize);
  // cgroup v2, the process's own cgroup first (a container sees its own as
  // the root): a number of bytes, or "max"; then v1.
  for (const std::string &path :
       {cgroupV2Dir() + "/memory.max",
        std::string("/sys/fs/cgroup/memory.max"),
        std::string("/sys/fs/cgroup/memory/memory.limit_in_bytes")}) {
    std::ifstream file(path);
    std::string limit;
    if (file >> limit) {
      if (limit != "max")
        cap(std::atoll(limit.c_str())); // v1's "no limit" is near 2^63.
      break;
    }
  }
  rlimit addressSpace;
  if (getrlimit(RLIMIT_AS, &addressSpace) == 0 &&
      addressSpace.rlim_cur != RLIM_INFINITY &&
      addressSpace.rlim_cur <= static_cast<rlim_t>(INT64_MAX))
    cap(static_cast<int64_t>(addressSpace.rlim_cur));
  return usable;
}

Device::Device(DeviceName name, std::string description, int64_t memoryLimit)
    : name_(std::move(name)), description_(std::move(description)),
      memoryLimit_(memoryLimit) {}

StatusOr<void *> Device::allocate(int64_t bytes) {
  int64_t inUse = bytesInUse_.fetch_add(bytes) + bytes;
  if (memoryLimit_ > 0 && inUse > memoryLimit_) {
    bytesInUse_ -= bytes;
    return Status::outOfMemory("out of memory on " + fullName() + ": requested " +
                         formatBytes(bytes) + " with " +
                         formatBytes(inUse - bytes) + " in use, limit " +
                         formatBytes(memoryLimit_));
  }
  StatusOr<void *> memory = allocateMemory(bytes);
  if (!memory) {
    bytesInUse_ -= bytes;
    return memory;
  }
  int64_t peak = peakBytesInUse_;
  while (inUse > peak && !peakBytesInUse_.compare_exchange_weak(peak, inUse)) {
  }
  return memory;
}

void Device::deallocate(void *memory, int64_t bytes) {
  deallocateMemory(memory, bytes);
  bytesInUse_ -= bytes;
}

StatusOr<void *> Device::allocateMemory(int64_t bytes) {
  size_t rounded = static_cast<size_t>(
      (std::max<int64_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment);
  void *memory = std::aligned_alloc(kAlignment, rounded);
  if (!memory)
    return Status::outOfMemory("out of host memory on " + fullName() +
                         ": requested " + formatBytes(bytes));
  std::memset(memory, 0, rounded);
  return memory;
}

void Device::deallocateMemory(void *memory, int64_t) { std::free(memory); }

StatusOr<void *> Device::allocateHostStaging(int64_t bytes) {
  size_t rounded = static_cast<size_t>(
      (std::max<int64_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment);
  void *memory = std::aligned_alloc(kAlignment, rounded);
  if (!memory)
    return Status::outOfMemory("out of host memory: requested " + formatBytes(bytes));
  return memory;
}

void Device::deallocateHostStaging(void *memory) { std::free(memory); }

Status Device::waitEvent(const Device &recorder, DeviceEvent *event, int) {
  return event ? recorder.synchronizeEvent(event) : Status::ok();
}

/// An emulated GPU's graph: the host calls of one run in the order the
/// executor's streams issued them, which respects the plan's events (a
/// stream's wait is issued only after the record it waits for).
struct Device::HostGraph final : DeviceGraph {
  std::mutex mutex;
  std::vector<std::function<Status()>> calls;

  /// Records `call` and returns true while capturing.
  static bool record(HostGraph *graph, std::function<Status()> call) {
    if (!graph)
      return false;
    std::lock_guard<std::mutex> lock(graph->mutex);
    graph->calls.push_back(std::move(call));
    return true;
  }
};

Device::~Device() = default;

bool Device::canCaptureGraphs() const {
  return type() == DeviceType::GPU && isHostMemory();
}

Status Device::beginGraphCapture() {
  if (!canCaptureGraphs())
    return Status::unavailable(fullName() + " cannot capture graphs");
  if (capturing_)
    return Status::internal(fullName() + " is already capturing a graph");
  capturing_ = std::make_unique<HostGraph>();
  return Status::ok();
}

StatusOr<std::unique_ptr<DeviceGraph>> Device::endGraphCapture() {
  if (!capturing_)
    return Status::internal(fullName() + " is not capturing a graph");
  return std::unique_ptr<DeviceGraph>(std::move(capturing_));
}

Status Device::launchGraph(DeviceGraph &graph) {
  for (const std::function<Status()> &call :
       static_cast<HostGraph &>(graph).calls)
    GPLACE_RETURN_IF_ERROR(call());
  return Status::ok();
}

Status Device::launch(const KernelCall &call, int) {
  if (HostGraph::record(capturing_.get(),
                        [&call] { return runHostKernel(call); }))
    return Status::ok();
  return runHostKernel(call);
}

Status Device::reduceSlice(const std::vector<const void *> &,
                           const std::vector<void *> &, ElementType, int64_t,
                           int64_t, int64_t, int) {
  return Status::unavailable(fullName() +
                             " has no device-side all-reduce");
}

Status Device::launchFused(const FusedCall &fused, int) {
  if (HostGraph::record(capturing_.get(),
                        [&fused] { return runHostFused(fused); }))
    return Status::ok();
  return runHostFused(fused);
}

Status Device::copyFrom(void *target, const Device &sourceDevice,
                        const void *source, int64_t bytes, int stream) {
  if (HostGraph::record(capturing_.get(), [=, &sourceDevice] {
        return Device::copyFrom(target, sourceDevice, source, bytes, stream);
      }))
    return Status::ok();
  if (!sourceDevice.isHostMemory())
    return sourceDevice.download(target, source, bytes);
  if (bytes > 0) // Empty tensors may have null pointers.
    std::memcpy(target, source, bytes);
  return Status::ok();
}

Status Device::upload(void *target, const void *host, int64_t bytes) {
  if (bytes > 0)
    std::memcpy(target, host, bytes);
  return Status::ok();
}

Status Device::download(void *host, const void *source, int64_t bytes) const {
  if (bytes > 0)
    std::memcpy(host, source, bytes);
  return Status::ok();
}

DeviceManager::DeviceManager(const Options &options) {
  devices_.push_back(std::make_unique<Device>(
      DeviceName::local(DeviceType::CPU, 0), "device: 0, name: host CPU", 0));
  addEmulatedGpus(options.emulatedGpus, options.gpuMemoryLimit);
}

void DeviceManager::addEmulatedGpus(int count, int64_t limit) {
  int first = 0;
  for (const auto &device : devices_)
    if (device->type() == DeviceType::GPU)
      first = std::max<int>(first, *device->name().id + 1);
  for (int i = 0; i < count; ++i) {
    int id = first + i;
    devices_.push_back(std::make_unique<Device>(
        DeviceName::local(DeviceType::GPU, id),
        "device: " + std::to_string(id) +
            ", name: emulated GPU (host memory), pci bus id: none, compute "
            "capability: none",
        limit > 0 ? limit : kDefaultEmulatedGpuMemory));
  }
}

void DeviceManager::addDevice(std::unique_ptr<Device> device) {
  // The CPU first, then GPUs by id, as TensorFlow lists local devices.
  devices_.push_back(std::move(device));
  std::stable_sort(devices_.begin() + 1, devices_.end(),
                   [](const auto &a, const auto &b) {
                     return std::make_pair(a->type() != DeviceType::GPU,
                                           *a->name().id) <
                            std::make_pair(b->type() != DeviceType::GPU,
                                           *b->name().id);
                   });
}

void DeviceManager::setTask(const std::string &job, int64_t task) {
  for (const auto &device : devices_) {
    device->name_.job = job;
    device->name_.replica = 0;
    device->name_.task = task;
  }
}

Device *DeviceManager::find(const std::string &name) const {
  for (const auto &device : devices_)
    if (device->fullName() == name)
      return device.get();
  return nullptr;
}

std::string DeviceManager::listDevices() const {
  std::string out;
  for (const auto &device : devices_) {
    out += device->fullName() +
           ": device_type: " + std::string(deviceTypeName(device->type())) +
           ", memory_limit: " +
           (device->memoryLimit() ? formatBytes(device->memoryLimit())
                                  : std::string("unlimited")) +
           ", physical_device_desc: \"" + device->description() + "\"\n";
  }
  return out;
}

} // namespace gplace::runtime
