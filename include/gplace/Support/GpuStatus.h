//===- GpuStatus.h - which GPUs are busy, and which to use ------*- C++ -*-===//
//
// Sharing a machine (SPEC §6): the status of every GPU (NVML, else
// nvidia-smi, else a status file for tests), ranking GPUs by idleness,
// CUDA_VISIBLE_DEVICES as CUDA documents it, and choosing the GPUs a process
// sees (`--visible-gpus=auto[:N]|<list>`). Plain C++17, no MLIR, no CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_GPUSTATUS_H
#define GPLACE_SUPPORT_GPUSTATUS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gplace {

/// One physical GPU, as NVML or nvidia-smi reports it.
struct GpuStatus {
  int index = 0;                ///< NVML's (PCI bus) order.
  std::string uuid;             ///< "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6".
  std::string pciBusId;         ///< "00000000:05:00.0".
  int64_t totalMiB = 0;         ///< Memory in MiB.
  int64_t usedMiB = 0;
  int utilization = 0;          ///< Percent of time a kernel ran.
  int computeProcesses = 0;     ///< Processes with a CUDA context on it.

  int64_t freeMiB() const { return totalMiB - usedMiB; }
  /// "physical GPU 3 (GPU-..., 00000000:05:00.0, 0 processes, 80000 MiB
  /// free of 81559, 0% busy)".
  std::string describe() const;
};

/// Where statuses came from, or why there are none.
struct GpuStatusReport {
  std::vector<GpuStatus> gpus;
  std::string source; ///< "NVML", "nvidia-smi", "status file <path>".
  std::string error;  ///< Non-empty if no source worked (gpus is empty).
};

/// Queries every GPU: the file named by $GPLACE_GPU_STATUS_FILE if set (the
/// test seam), else NVML (libnvidia-ml.so.1, loaded at run time), else
/// `nvidia-smi`. Never throws or aborts; failures are in `error`.
GpuStatusReport queryGpuStatus();

/// Parses nvidia-smi's CSV: the output of
///   nvidia-smi --query-gpu=index,uuid,pci.bus_id,memory.total,memory.used,utilization.gpu --format=csv
/// (with or without the header line and units), optionally followed by the
/// output of
///   nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory --format=csv
/// whose rows count each GPU's compute processes. Returns std::nullopt and
/// sets `error` (naming the line) on malformed input.
std::optional<std::vector<GpuStatus>> parseNvidiaSmiCsv(std::string_view text,
                                                        std::string *error);

/// GPUs in order of preference: no compute processes first, then most free
/// memory, then lowest utilisation, ties by index. GPUs with less than
/// `minFreeMiB` free are left out.
std::vector<GpuStatus> rankGpus(std::vector<GpuStatus> gpus,
                                int64_t minFreeMiB = 0);

/// The GPUs a CUDA_VISIBLE_DEVICES value selects, in the order it lists
/// them, as CUDA documents: comma-separated indices or UUIDs (`GPU-...`,
/// any unique prefix); the list stops at the first invalid or repeated
/// entry; the empty value selects none. Returns indices into `gpus` order
/// (GpuStatus::index); `stopped` says where and why it stopped, if it did.
struct VisibleDevices {
  std::vector<int> indices;
  std::string stopped;
};
VisibleDevices parseVisibleDevices(std::string_view value,
                                   const std::vector<GpuStatus> &gpus);

/// The outcome of choosing the GPUs a process sees.
struct GpuSelection {
  std::vector<GpuStatus> gpus; ///< GPU:0, GPU:1, ... in order.
  /// The CUDA_VISIBLE_DEVICES value that makes CUDA see exactly these GPUs
  /// in this order (their UUIDs); std::nullopt: leave it as it is.
  std::optional<std::string> cudaVisibleDevices;
  std::string error; ///< Non-empty if no GPU fits the request.
  /// With `error`: the request is well formed, but too few GPUs fit it
  /// (rather than a malformed spec or a GPU that does not exist).
  bool tooFew = false;
};

/// Chooses the GPUs of `--visible-gpus=<spec>`: `auto` (every GPU with at
/// least `minFreeMiB` free, idlest first), `auto:N` (the N idlest), or a
/// list in CUDA_VISIBLE_DEVICES syntax that replaces the environment's
/// (indices are NVML's, the PCI bus order nvidia-smi shows); an empty spec
/// keeps the environment's CUDA_VISIBLE_DEVICES (`environment`, std::nullopt
/// if unset). `auto` chooses among the GPUs the environment leaves visible.
GpuSelection selectGpus(std::string_view spec,
                        const std::vector<GpuStatus> &gpus,
                        std::optional<std::string_view> environment,
                        int64_t minFreeMiB);

/// The GPUs of `report` a process sees as GPU:0, GPU:1, ...: those whose
/// UUIDs `uuids` lists, in that order (the GpuSelection's GPUs, after
/// --visible-gpus); every GPU of the report, in index order, when `uuids` is
/// empty. GPUs the report lacks are left out.
std::vector<GpuStatus> processGpuStatus(const GpuStatusReport &report,
                                        const std::vector<std::string> &uuids);

} // namespace gplace

#endif // GPLACE_SUPPORT_GPUSTATUS_H
