//===- DeviceName.h - TensorFlow device names and device sets ---*- C++ -*-===//
//
// Parsing, printing, matching and merging of TensorFlow device names, and the
// set of devices placement targets. Plain C++17: usable without MLIR, by the
// compiler and the runtime alike.
//
// Behaviour mirrors TensorFlow's DeviceNameUtils (ParseFullName,
// ParsedNameToString, IsSpecification, MergeDevNames) with Python's forgiving
// case rules for the device type; differences are listed in
// docs/device-names.md.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_DEVICENAME_H
#define GPLACE_SUPPORT_DEVICENAME_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gplace {

/// The device types gplace knows. Placement prefers them in this order
/// (GPU before CPU, TensorFlow's device type priority).
enum class DeviceType { GPU, CPU };

/// Returns "GPU" or "CPU".
std::string_view deviceTypeName(DeviceType type);

/// Parses a device type case-insensitively ("gpu", "GPU", "Cpu").
std::optional<DeviceType> parseDeviceType(std::string_view text);

/// A device name or partial device specification: up to five fields (job,
/// replica, task, device type, device id), each either set or "any".
/// Mirrors TensorFlow's DeviceNameUtils::ParsedName.
struct DeviceName {
  std::optional<std::string> job;
  std::optional<int64_t> replica;
  std::optional<int64_t> task;
  std::optional<DeviceType> type;
  /// A device type gplace has no devices of (`TPU`, `myspecialdevice`): valid
  /// TensorFlow syntax, kept as written, matching no device. At most one of
  /// `type` and `otherType` is set.
  std::optional<std::string> otherType;
  std::optional<int64_t> id;

  /// Parses every spelling of SPEC §1.1: segments `/job:NAME`,
  /// `/replica:N`, `/task:N`, `/device:TYPE:N`, `/device:TYPE`, legacy
  /// `/cpu:N` and `/gpu:N` in any order; the local form `GPU:1`; `*` for any
  /// value; the empty string (no request). On failure returns std::nullopt
  /// and, when `error` is given, stores a message naming the string and the
  /// offending part, e.g. "Malformed device specification '/gpu:x': device
  /// id 'x' is not a non-negative integer". A device type other than CPU
  /// and GPU (TensorFlow's `[a-zA-Z][_a-zA-Z0-9]*`) parses into `otherType`.
  static std::optional<DeviceName> parse(std::string_view spec,
                                         std::string *error = nullptr);

  /// A full local name, /job:localhost/replica:0/task:0/device:TYPE:ID.
  static DeviceName local(DeviceType type, int64_t id);

  /// Prints the canonical form: only the fields that are set, in the order
  /// job, replica, task, device (`/gpu:3` prints `/device:GPU:3`; an unset id
  /// prints `*`, as in `/device:GPU:*`). The empty request prints "".
  std::string str() const;

  /// True when all five fields are set, with a type gplace has (an assigned
  /// device).
  bool isFullySpecified() const;

  /// True when no field is set (no request).
  bool isEmpty() const;

  /// True when every field this specification sets equals the same field of
  /// `device` (TensorFlow's IsSpecification/IsCompleteSpecification): `/gpu:0`
  /// matches GPU:0 of every task, `/job:worker` every device of that job.
  bool matches(const DeviceName &device) const;

  /// Merges an inner request into the enclosing scope `outer` (a device
  /// scope around it, e.g. a function's default device). Fields the inner
  /// request sets win; if it sets a different device type, the outer id is
  /// dropped with it. Conflicting job, replica or task is an error, worded as
  /// TensorFlow's DeviceNameUtils::MergeDevNames ("Cannot merge devices with
  /// incompatible jobs: '/job:a' and '/job:b'").
  static std::optional<DeviceName> merge(const DeviceName &outer,
                                         const DeviceName &inner,
                                         std::string *error = nullptr);

  /// Combines two requests that must both hold (the members of a colocation
  /// group): every field set in both must agree. Otherwise an error worded
  /// as TensorFlow's MergeDevNames without soft placement ("Cannot merge
  /// devices with incompatible types: '/device:GPU:0' and
  /// '/device:CPU:0'"); the kinds are jobs, replicas, tasks, types and ids.
  static std::optional<DeviceName> intersect(const DeviceName &a,
                                             const DeviceName &b,
                                             std::string *error = nullptr);

  /// Device order: type priority (GPU before CPU), then job, replica, task
  /// and id, numbers compared numerically (GPU:2 before GPU:10). Unset
  /// fields sort first.
  friend bool operator<(const DeviceName &a, const DeviceName &b);
  friend bool operator==(const DeviceName &a, const DeviceName &b);
  friend bool operator!=(const DeviceName &a, const DeviceName &b) {
    return !(a == b);
  }
};

/// A GPU's load when compilation began, as NVML (or nvidia-smi) reported it:
/// what the `idle-gpu` policy ranks GPUs by (GpuStatus.h's rankGpus).
struct GpuLoad {
  int computeProcesses = 0; ///< Processes with a CUDA context on it.
  int64_t freeMiB = 0;      ///< Free memory in MiB.
  int utilization = 0;      ///< Percent of time a kernel ran.
  friend bool operator==(const GpuLoad &a, const GpuLoad &b) {
    return a.computeProcesses == b.computeProcesses &&
           a.freeMiB == b.freeMiB && a.utilization == b.utilization;
  }
};

/// What the compiler knows of a device besides its name (the module's
/// `gplace.devices` attribute): its memory limit, which the memory planner
/// checks; TensorFlow's physical device description, which the placement
/// log prints; and, for a CUDA GPU whose status was read, its load.
struct DeviceAttributes {
  int64_t memoryLimit = 0;     ///< Bytes; 0 for none.
  std::string description;     ///< "" if unknown.
  std::optional<GpuLoad> load; ///< CUDA GPUs with a known status only.
};

/// The devices placement targets, sorted by DeviceName's order, without
/// duplicates, each with its attributes. Every device is a full name.
class DeviceSet {
public:
  DeviceSet() = default;

  /// Parses the `devices=` option: a comma-separated list whose entries are
  /// either `TYPE:COUNT` (COUNT devices of that type on
  /// /job:localhost/replica:0/task:0, ids 0..COUNT-1; e.g. `cpu:1,gpu:4`) or
  /// a full device name (`/job:worker/replica:0/task:1/device:GPU:0`).
  /// Errors (returns std::nullopt and sets `error`): an empty list or entry,
  /// a bad count, a partial name, a device listed twice.
  static std::optional<DeviceSet> parse(std::string_view spec,
                                        std::string *error = nullptr);

  /// `numCpus` CPUs and `numGpus` GPUs on /job:localhost/replica:0/task:0.
  static DeviceSet localhost(int64_t numCpus, int64_t numGpus);

  /// Adds a full device name with its attributes; returns false (and adds
  /// nothing) if it is not fully specified or already present.
  bool add(const DeviceName &device, DeviceAttributes attributes = {});

  const std::vector<DeviceName> &devices() const { return devices_; }
  bool empty() const { return devices_.empty(); }
  size_t size() const { return devices_.size(); }
  bool contains(const DeviceName &device) const;

  /// The attributes of devices()[index].
  const DeviceAttributes &attributes(size_t index) const {
    return attributes_[index];
  }
  DeviceAttributes &attributes(size_t index) { return attributes_[index]; }
  /// The attributes of `device`, or nullptr if it is not in the set.
  const DeviceAttributes *find(const DeviceName &device) const;

  /// The devices `request` matches, in device order.
  std::vector<DeviceName> matching(const DeviceName &request) const;

  /// The devices as a comma-separated list of full names, in device order
  /// (the "available devices" list of placement errors).
  std::string str() const;

private:
  std::vector<DeviceName> devices_;
  std::vector<DeviceAttributes> attributes_; ///< Parallel to devices_.
};

} // namespace gplace

#endif // GPLACE_SUPPORT_DEVICENAME_H
