//===- CostModel.h - op and copy times per device ---------------*- C++ -*-===//
//
// The cost model automatic placement (--gplace-place="policy=auto") and the
// step-time estimate (--gplace-estimate) share: an op takes
//
//   launch + max(flops / flops_per_second, bytes / bytes_per_second)
//
// seconds on a device (a roofline: the op's FLOPs from
// PlacedOpInterface::getFlops, its bytes the sizes of the tensors it reads
// and writes), and a copy takes latency + bytes / bytes_per_second of the
// link between two devices. The rates are defaults per device type, or
// measured on this machine by `gplace-run --profile=prof.json` and read back
// with `profile=prof.json` (docs/cost-model.md). Baechi's placers (SoCC
// 2020) and TensorFlow's Grappler cost estimator (op_level_cost_estimator)
// model ops the same way.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TRANSFORMS_COSTMODEL_H
#define GPLACE_TRANSFORMS_COSTMODEL_H

#include "gplace/Support/DeviceName.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gplace {

/// How fast one device runs kernels.
struct DeviceRates {
  double flopsPerSecond = 0; ///< Sustained f32 operations per second.
  double bytesPerSecond = 0; ///< Memory bandwidth of a streaming kernel.
  double launchSeconds = 0;  ///< Fixed cost of one kernel launch.
};

/// How fast a link moves a copy from one device to another.
struct LinkRates {
  double bytesPerSecond = 0;
  double latencySeconds = 0;
};

/// Device and link rates: defaults per device type, overridden by a
/// profile's entries, which name a device type ("CPU", "GPU") or a full
/// device name (the full name wins).
class CostProfile {
public:
  /// The defaults, for a machine never profiled: a CPU of 100 GFLOP/s and
  /// 20 GB/s, a GPU of 20 TFLOP/s and 1 TB/s, 5 µs a launch; a host-GPU
  /// link of 20 GB/s and a GPU-GPU link of 50 GB/s, 10 µs each; a copy
  /// between two CPU tasks 10 GB/s.
  CostProfile();

  /// Reads a profile written by save() (gplace-run --profile). Errors
  /// (std::nullopt, `error` set): the file cannot be read, is not JSON, or
  /// has a rate that is not a positive number ("prof.json: devices.GPU:
  /// flops_per_second must be a positive number").
  static std::optional<CostProfile> load(llvm::StringRef path,
                                         std::string *error);
  /// load(path), or the defaults when `path` is empty (a pass's `profile=`
  /// option left out).
  static std::optional<CostProfile> loadOrDefaults(llvm::StringRef path,
                                                   std::string *error) {
    return path.empty() ? std::optional<CostProfile>(CostProfile())
                        : load(path, error);
  }

  /// Writes the profile as JSON, replacing `path` only once it is complete.
  /// Returns false and sets `error` if it cannot be written.
  bool save(llvm::StringRef path, std::string *error) const;

  /// Sets the rates of `key`: a device type ("CPU", "GPU") or a full name.
  void setDevice(const std::string &key, DeviceRates rates);
  /// Sets the rates of copies from `from` to `to` (types or full names).
  void setLink(const std::string &from, const std::string &to,
               LinkRates rates);

  /// The rates of `device`: its full name's entry, else its type's.
  DeviceRates device(const DeviceName &device) const;
  /// The rates of a copy from `from` to `to` (distinct devices): the full
  /// names' entry, else the types' entry, else the default for the kinds.
  LinkRates link(const DeviceName &from, const DeviceName &to) const;

private:
  std::map<std::string, DeviceRates> devices_;
  std::map<std::pair<std::string, std::string>, LinkRates> links_;
};

/// What one graph op costs, independent of the device: its FLOPs, the bytes
/// of the tensors it reads and writes, whether it runs a kernel (constants,
/// variables, views such as identities, reshapes and reads, and control ops
/// take no time).
struct OpCost {
  int64_t flops = 0;
  int64_t bytes = 0;
  bool runsKernel = false;

  /// Seconds on a device with `rates`: 0 if it runs no kernel, else the
  /// launch plus the larger of compute and memory time.
  double seconds(const DeviceRates &rates) const;
};

/// The cost of `op`, a graph op (PlacedOpInterface).
OpCost getOpCost(mlir::Operation *op);

/// Bytes of a tensor (or a resource's value) type; 0 for tokens.
int64_t getTypeBytes(mlir::Type type);

/// Seconds a copy of `bytes` takes over `link`.
inline double copySeconds(int64_t bytes, const LinkRates &link) {
  return link.latencySeconds + bytes / link.bytesPerSecond;
}

/// Where a value of a simulated step is, and when: its producer's device
/// (an index into a device list; -1 for the host when the host is not in
/// the list) and finish time in seconds, and the copies made of it so far
/// (device, arrival).
struct ValueTimeline {
  int device = -1;
  double time = 0;
  llvm::SmallVector<std::pair<int, double>, 1> copies;
};

/// The links of a simulated step between the devices of a list (index -1:
/// the host, /job:localhost/replica:0/task:0/device:CPU:0): each ordered
/// pair moves one copy at a time, at the profile's link rates. Shared by
/// the step estimate and policy=auto, so that both time copies alike.
class LinkTimeline {
public:
  LinkTimeline(const CostProfile &profile,
               const std::vector<DeviceName> &devices)
      : profile_(profile), devices_(devices),
        host_(DeviceName::local(DeviceType::CPU, 0)) {}

  /// When `value`, of `bytes`, is on device `to`: at once if it is made
  /// there or already copied there; else when a copy over the link from
  /// its device ends, started once the value and the link are both ready.
  /// With `commit` the copy is recorded in `value` and holds the link until
  /// it ends (a copy of no bytes, a token, holds nothing). `copied` (if
  /// given) says whether a new copy is, or would be, made, and `started`
  /// (if given) gets when that copy starts.
  double arrival(ValueTimeline &value, int64_t bytes, int to, bool commit,
                 bool *copied = nullptr, double *started = nullptr);

private:
  const DeviceName &name(int device) const {
    return device < 0 ? host_ : devices_[device];
  }

  const CostProfile &profile_;
  const std::vector<DeviceName> &devices_;
  DeviceName host_;
  std::map<std::pair<int, int>, double> free_;
};

/// One kernel or copy of a simulated step, for the predicted timeline
/// (--gplace-estimate="trace=FILE").
struct PredictedSlice {
  /// As the plan labels its step, so that a measured trace (gplace-run
  /// --trace) shows the same name: "MatMul (gplace.matmul)" for an op,
  /// "MatMul (copy)" for a copy of a kernel's result (the name of the op
  /// that made the value, as the lowering names such copies); a copy of a
  /// constant, a variable or an argument is named after its source
  /// ("Const (copy)", "arg #0 (copy)").
  std::string name;
  bool isCopy = false;
  /// The op's device, or the copy's destination, as an index into the
  /// device set (-1: the host, when it is not in the set).
  int device = -1;
  int source = -1;  ///< A copy's source device (same indexing).
  double startSeconds = 0, seconds = 0;
  int64_t bytes = 0; ///< A copy's bytes.
};

/// The predicted time of one step of a placed function.
struct StepEstimate {
  double stepSeconds = 0;
  /// Per device of the set, in its order: seconds spent running kernels.
  std::vector<double> busySeconds;
  /// Per device: bytes copied onto it from other devices.
  std::vector<int64_t> copiedInBytes;
  /// Each kernel and copy of the step with its start and duration, in
  /// simulation order; filled only when estimateStep is asked for it.
  std::vector<PredictedSlice> timeline;
};

/// Simulates one step of `func`, whose graph ops all have an
/// `assigned_device` of `devices`: each device runs its ops one at a time
/// in program order, as soon as their operands (and control tokens) are
/// ready; a value used on another device than its producer's is copied
/// there once (or by the graph's own gplace.copy), over a link that moves
/// one copy at a time; arguments start on the host, results end there.
/// With `withTimeline`, StepEstimate::timeline gets each kernel and copy.
/// Errors (failure, reported at the op): an op without an assigned device
/// of the set.
mlir::FailureOr<StepEstimate> estimateStep(mlir::func::FuncOp func,
                                           const DeviceSet &devices,
                                           const CostProfile &profile,
                                           bool withTimeline = false);

} // namespace gplace

#endif // GPLACE_TRANSFORMS_COSTMODEL_H
