//===- Device.h - runtime devices -------------------------------*- C++ -*-===//
//
// A Device owns memory (allocations counted against its memory limit) and
// runs kernels and copies on its streams. The CPU and the emulated GPUs of
// SPEC §1.3 are host devices: host memory, host kernels (Kernels.h), and
// streams that run synchronously in the executor's thread for that stream.
// DeviceManager discovers the devices of this process. Modelled on IREE's
// HAL (driver, device, allocator, queue); plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_DEVICE_H
#define GPLACE_RUNTIME_DEVICE_H

#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Support/DeviceName.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

namespace gplace::runtime {

/// A device's half of an event of the plan: a CUDA event, say. Host
/// devices need none (the executor's host-side event suffices).
class DeviceEvent {
public:
  virtual ~DeviceEvent() = default;
};

/// A device's recording of the work of one run of a plan (a CUDA graph),
/// replayed by Device::launchGraph.
class DeviceGraph {
public:
  virtual ~DeviceGraph() = default;
};

/// An all-reduce that a device library runs across a group of devices
/// (NCCL's communicators for CUDA GPUs on distinct physical GPUs), made by
/// Device::createCollective for one group and used by every all-reduce of
/// that group (CollectiveExecutor).
class DeviceCollective {
public:
  virtual ~DeviceCollective() = default;
  /// Queues member `member`'s part of an all-reduce on its device's
  /// `stream`: `output` = the sum over the members of `input` (each of
  /// `type`, on that member's device), divided by `divisor` unless 0.
  /// Every member's part must be queued, each after the others arrived
  /// (calls of one group in the same order on every member). Errors: the
  /// library's.
  virtual Status allReduce(size_t member, const void *input, void *output,
                           const TensorType &type, int64_t divisor,
                           int stream) = 0;
  /// "NCCL 2.28.3", for the placement log.
  virtual std::string name() const = 0;
};

/// Bytes of memory this process may use on the host: the machine's
/// physical memory (sysconf's _SC_PHYS_PAGES times the page size), capped
/// by its cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes) and by
/// its address-space limit (RLIMIT_AS, `ulimit -v`); 0 where none is
/// known. Executor::load refuses a plan whose host memory exceeds it (an
/// error rather than the kernel's out-of-memory kill that overcommitted
/// allocations end in; TensorFlow's port::AvailableRam reads the same
/// sources).
int64_t usableHostMemoryBytes();

class Device {
public:
  /// `memoryLimit` in bytes, 0 for none. `description` is TensorFlow's
  /// physical device description ("device: 0, name: ..., pci bus id: ...,
  /// compute capability: ...").
  Device(DeviceName name, std::string description, int64_t memoryLimit);
  virtual ~Device();

  const DeviceName &name() const { return name_; }
  std::string fullName() const { return name_.str(); }
  DeviceType type() const { return *name_.type; }
  const std::string &description() const { return description_; }
  int64_t memoryLimit() const { return memoryLimit_; }
  /// Bytes of device memory allocated now, and the most at once so far:
  /// TensorFlow's tf.config.experimental.get_memory_info (current, peak).
  int64_t bytesInUse() const { return bytesInUse_; }
  int64_t peakBytesInUse() const { return peakBytesInUse_; }

  /// True if the device's memory is host memory (the CPU, emulated GPUs):
  /// host code may read and write it directly.
  virtual bool isHostMemory() const { return true; }

  /// Allocates `bytes` of device memory (64-byte aligned, zeroed). Fails,
  /// naming the device, the request and the limit, when the limit would be
  /// exceeded.
  StatusOr<void *> allocate(int64_t bytes);
  void deallocate(void *memory, int64_t bytes);

  /// Host memory for data on its way to or from this device (pinned on
  /// CUDA); plain host memory by default.
  virtual StatusOr<void *> allocateHostStaging(int64_t bytes);
  virtual void deallocateHostStaging(void *memory);

  /// Called once per launch step when a plan loads, so that a device can
  /// compile its kernels before the first run.
  virtual Status prepare(const KernelCall &call) { return Status::ok(); }

  /// The bytes of workspace `call` takes on this device, for the static
  /// memory plan (--gplace-size-workspaces), measured without running it
  /// (tensor data may be null): on CUDA GPUs, what a cuDNN launch's
  /// algorithm and buffers take (lib/Runtime/CUDA/Cudnn.h); 0 by default
  /// (host devices' kernels are sized by runtime::hostWorkspaceBytes at
  /// compile time, without a device). Errors: the library's, as running
  /// the launch would report them.
  virtual StatusOr<int64_t> workspaceBytes(const KernelCall &call) {
    return int64_t(0);
  }
  /// Whether workspaceBytes can be above 0 for launches of `kernel`: a
  /// cheap test to ask first (CUDA GPUs: the cuDNN kernels).
  virtual bool kernelTakesWorkspace(Kernel kernel) const { return false; }

  /// Runs a kernel on `stream` (host devices: synchronously).
  virtual Status launch(const KernelCall &call, int stream);
  /// Whether launch runs the host kernels (runHostKernel) when the device
  /// is not capturing a graph: a Device itself (the CPU, emulated GPUs),
  /// not a subclass, which may launch its own way (CUDA GPUs, tests'
  /// recording devices). Then the executor may call the kernel itself
  /// (hostKernelFunction).
  bool runsHostKernels() const { return typeid(*this) == typeid(Device); }

  /// Called once per fusion group when a plan loads (compiles its kernel).
  virtual Status prepareFused(const FusedCall &fused) { return Status::ok(); }
  /// Runs a fusion group on `stream` as one kernel (host devices:
  /// runHostFused, a block of elements at a time).
  virtual Status launchFused(const FusedCall &fused, int stream);

  /// Copies `bytes` from `source` (memory of `sourceDevice`) into `target`
  /// (memory of this device) on this device's `stream`.
  virtual Status copyFrom(void *target, const Device &sourceDevice,
                          const void *source, int64_t bytes, int stream);

  /// Host memory to this device's memory, and back; synchronous.
  virtual Status upload(void *target, const void *host, int64_t bytes);
  virtual Status download(void *host, const void *source, int64_t bytes) const;

  /// Events: the device's half of an event recorded on its streams
  /// (nullptr: none needed), recording it, and making `stream` wait for an
  /// event `recorder` recorded. A host device waits by blocking until the
  /// recorder's event is reached.
  virtual std::unique_ptr<DeviceEvent> createEvent() { return nullptr; }
  virtual Status recordEvent(DeviceEvent *event, int stream) {
    return Status::ok();
  }
  virtual Status waitEvent(const Device &recorder, DeviceEvent *event,
                           int stream);
  /// Blocks the calling thread until `event` (recorded here) is reached.
  virtual Status synchronizeEvent(DeviceEvent *event) const {
    return Status::ok();
  }
  /// Blocks until the work queued on every stream of the device is done.
  virtual Status synchronize() { return Status::ok(); }

  /// Device-side all-reduces (Collective.h): true if this device's kernels
  /// read and write `other`'s memory as their own (the logical GPUs of one
  /// physical GPU). Host devices say no: the host's all-reduce reads their
  /// memory directly anyway.
  virtual bool sharesMemoryWith(const Device &other) const { return false; }
  /// One member's part of a device-side all-reduce, queued on `stream`:
  /// elements [begin, end) of the sum of `inputs` (member order; memory
  /// this device shares), divided by `divisor` unless 0, written into every
  /// one of `outputs` (as generateAllReduceCudaKernel computes it). Errors:
  /// a device that cannot (the default: unavailable), or its kernel's.
  virtual Status reduceSlice(const std::vector<const void *> &inputs,
                             const std::vector<void *> &outputs,
                             ElementType type, int64_t divisor, int64_t begin,
                             int64_t end, int stream);

  /// A library all-reduce over `members` (this device is members[0]), or
  /// null where there is none (the default; CUDA GPUs: NCCL, when every
  /// member is a CUDA GPU on its own physical GPU and libnccl.so.2 loads).
  /// `why` gets the reason for null where one is worth a line in the log.
  virtual std::unique_ptr<DeviceCollective>
  createCollective(const std::vector<Device *> &members, std::string &why) {
    return nullptr;
  }

  /// Graphs (CUDA graphs, captured as cuStreamBeginCapture does): a device
  /// that can record the work queued on its streams and replay it as one
  /// unit says so. Between beginGraphCapture() and endGraphCapture() its
  /// launches, copies and event records and waits are recorded, not run;
  /// endGraphCapture() returns the recording (errors: work that cannot be
  /// captured, e.g. a synchronous call) and always ends the capture;
  /// launchGraph() queues the whole recording on stream 0, with the order
  /// of the streams kept. Emulated GPUs (host devices of type GPU) record
  /// the calls and replay them in issue order, so that a plan runs on them
  /// as on a CUDA GPU; the CPU does not capture.
  virtual bool canCaptureGraphs() const;
  virtual Status beginGraphCapture();
  virtual StatusOr<std::unique_ptr<DeviceGraph>> endGraphCapture();
  virtual Status launchGraph(DeviceGraph &graph);

protected:
  /// The memory behind allocate() and deallocate(), after accounting.
  virtual StatusOr<void *> allocateMemory(int64_t bytes);
  virtual void deallocateMemory(void *memory, int64_t bytes);

private:
  friend class DeviceManager; // setTask renames.
  /// Emulated graphs: the calls recorded while capturing (null otherwise).
  struct HostGraph;
  std::unique_ptr<HostGraph> capturing_;

  DeviceName name_;
  std::string description_;
  int64_t memoryLimit_;
  std::atomic<int64_t> bytesInUse_{0};
  std::atomic<int64_t> peakBytesInUse_{0};
};

/// The devices of this process: CPU:0 always, then the emulated GPUs.
class DeviceManager {
public:
  struct Options {
    /// Emulated GPUs to add (SPEC §1.3): devices of type GPU backed by host
    /// memory and host kernels, numbered after the real GPUs.
    int emulatedGpus = 0;
    /// Memory limit of each emulated GPU in bytes (0: the default, 16 GiB).
    int64_t gpuMemoryLimit = 0;
  };

  /// The host CPU and `options.emulatedGpus` emulated GPUs.
  explicit DeviceManager(const Options &options);

  /// Adds `count` emulated GPUs, numbered after the GPUs already present,
  /// each with memory limit `limit` bytes (0: 16 GiB).
  void addEmulatedGpus(int count, int64_t limit);

  /// Adds a device (a CUDA GPU); the CPU stays first, GPUs follow by id.
  void addDevice(std::unique_ptr<Device> device);

  const std::vector<std::unique_ptr<Device>> &devices() const {
    return devices_;
  }
  /// Renames every device to job `job`, task `task` (replica 0): this
  /// process is that task of a cluster (`/job:worker/replica:0/task:1/
  /// device:GPU:0`). Call before anything uses the names.
  void setTask(const std::string &job, int64_t task);

  /// The device with full name `name`, or nullptr.
  Device *find(const std::string &name) const;
  /// The host CPU, where inputs are fed and results read.
  Device &host() const { return *devices_.front(); }

  /// One line per device, TensorFlow's list_local_devices fields:
  /// `<name>: device_type: GPU, memory_limit: <bytes or "unlimited">,
  /// physical_device_desc: "<description>"`.
  std::string listDevices() const;

private:
  std::vector<std::unique_ptr<Device>> devices_;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_DEVICE_H
