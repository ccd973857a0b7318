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
#include <vector>

namespace gplace::runtime {

class Device {
public:
  /// `memoryLimit` in bytes, 0 for none. `description` is TensorFlow's
  /// physical device description ("device: 0, name: ..., pci bus id: ...,
  /// compute capability: ...").
  Device(DeviceName name, std::string description, int64_t memoryLimit);
  virtual ~Device() = default;

  const DeviceName &name() const { return name_; }
  std::string fullName() const { return name_.str(); }
  DeviceType type() const { return *name_.type; }
  const std::string &description() const { return description_; }
  int64_t memoryLimit() const { return memoryLimit_; }
  int64_t bytesInUse() const { return bytesInUse_; }
  int64_t peakBytesInUse() const { return peakBytesInUse_; }

  /// Allocates `bytes` (64-byte aligned). Fails, naming the device, the
  /// request and the limit, when the limit would be exceeded.
  virtual StatusOr<void *> allocate(int64_t bytes);
  virtual void deallocate(void *memory, int64_t bytes);

  /// Runs a kernel on `stream` (host devices: synchronously).
  virtual Status launch(const KernelCall &call, int stream);

  /// Copies `bytes` from `source` (memory of `sourceDevice`) into `target`
  /// (memory of this device) on this device's `stream`.
  virtual Status copyFrom(void *target, const Device &sourceDevice,
                          const void *source, int64_t bytes, int stream);

  /// Host memory to this device's memory, and back; synchronous.
  virtual Status upload(void *target, const void *host, int64_t bytes);
  virtual Status download(void *host, const void *source, int64_t bytes);

private:
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
    /// memory and host kernels.
    int emulatedGpus = 0;
    /// Memory limit of each emulated GPU in bytes (0: the default, 16 GiB).
    int64_t gpuMemoryLimit = 0;
  };

  explicit DeviceManager(const Options &options);

  const std::vector<std::unique_ptr<Device>> &devices() const {
    return devices_;
  }
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
