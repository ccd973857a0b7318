//===- Machine.h - this process's devices, from options ---*- C++ -*-===//
//
// What gplace-run runs on (SPEC §1.2, §6): the CPU, the CUDA GPUs that
// --visible-gpus or CUDA_VISIBLE_DEVICES select (split into logical GPUs,
// with their memory options), and emulated GPUs; and the same devices as
// the compiler sees them (a DeviceSet for --gplace-assign-devices). Every
// machine query (NVML, CUDA) happens here, before compilation.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_MACHINE_H
#define GPLACE_TOOLING_MACHINE_H

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Support/DeviceName.h"

#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>
#include <vector>

namespace gplace::tooling {

/// gplace-run's device options.
struct MachineOptions {
  int emulatedGpus = 0;           ///< --emulate-gpus, 0 to 64.
  int64_t gpuMemoryLimitMiB = 0;  ///< --gpu-memory-limit; 0: none.
  double gpuMemoryFraction = 0;   ///< --gpu-memory-fraction, (0, 1]; 0: none.
  bool gpuAllowGrowth = true;     ///< --gpu-allow-growth.
  bool gpuAllowTf32 = false;      ///< --gpu-allow-tf32.
  /// --logical-gpus entries, "GPU:MiB,MiB,...".
  std::vector<std::string> logicalGpus;
  std::string visibleGpus;       ///< --visible-gpus: auto[:N] or a list.
  int64_t minFreeMemoryMiB = 0;  ///< --min-free-memory (with auto).
  /// With --visible-gpus, run on the CPU when no GPU fits instead of
  /// failing (--allow-soft-placement).
  bool softPlacement = false;
  /// Read each CUDA GPU's load (NVML, else nvidia-smi) for the idle-gpu
  /// policy.
  bool readGpuLoads = false;
};

/// The devices of this process.
class Machine {
public:
  /// Makes the devices: decides which physical GPUs the process uses
  /// (which may set CUDA_VISIBLE_DEVICES, before CUDA initialises), adds
  /// the CPU, the CUDA GPUs and the emulated GPUs. Errors: a bad option
  /// (invalid argument, naming the flag), --logical-gpus without a CUDA GPU
  /// or --visible-gpus without a GPU status or without a GPU that fits and
  /// without soft placement (unavailable).
  static runtime::StatusOr<std::unique_ptr<Machine>>
  create(const MachineOptions &options);

  runtime::DeviceManager &devices() { return *devices_; }

  /// The devices as the compiler sees them: full names, memory limits in
  /// bytes, physical descriptions, and GPU loads when `readGpuLoads` asked
  /// for them: a CUDA GPU has the load of the physical GPU it is (logical
  /// GPUs of one physical GPU share it); without CUDA GPUs, emulated GPU:k
  /// has the load of the process's k-th GPU, so that tests drive the
  /// idle-gpu policy with a status file (GPLACE_GPU_STATUS_FILE).
  DeviceSet deviceSet() const;

  /// What was found, one line each: CUDA's note ("CUDA: no GPU (...)"),
  /// then how --visible-gpus mapped GPUs.
  const std::vector<std::string> &notes() const { return notes_; }

private:
  Machine() = default;
  std::unique_ptr<runtime::DeviceManager> devices_;
  std::vector<std::string> notes_;
  /// Per CUDA GPU the process sees, in order: its load, if read.
  std::vector<std::optional<GpuLoad>> gpuLoads_;
  int numCudaGpus_ = 0;
};

/// Registers gplace-run's device flags (--emulate-gpus, --gpu-memory-limit,
/// --gpu-memory-fraction, --gpu-allow-growth, --gpu-allow-tf32,
/// --logical-gpus, --visible-gpus, --min-free-memory, --cuda-graphs), listed
/// by --help under machineCategory(). Call once, before
/// cl::ParseCommandLineOptions.
void registerMachineFlags();
const llvm::cl::OptionCategory &machineCategory();

/// The MachineOptions the flags give (registerMachineFlags first); soft
/// placement and GPU loads are the caller's. Errors (invalid argument): a
/// --gpu-memory-fraction of 0 given.
runtime::StatusOr<MachineOptions> machineOptionsFromFlags();

/// The executor's options the flags give (--cuda-graphs), with the
/// cluster's `transport` (null: one process).
runtime::ExecutorOptions executorOptionsFromFlags(runtime::Transport *transport);

/// gplace-run --list-devices: the devices (DeviceManager::listDevices),
/// the machine's notes, then the CPU's matmul library and the BLAS, and who
/// chose its kernels.
std::string describeMachine(Machine &machine);

/// Starts the process again (execv of /proc/self/exe with `argv`) where
/// what the libraries chose when they loaded must change: OpenBLAS fell
/// back to SSE3 kernels on a CPU with AVX2 or AVX-512
/// (runtime::preferredBlasCoreType; OPENBLAS_CORETYPE then names the right
/// ones), or an MPI task bound by Open MPI's default binding takes its
/// daemon's CPUs (adoptDaemonAffinityBeforeExec, Cluster.h; the image so
/// started takes the record, takeAdoptedAffinityRecord). Returns where
/// neither holds, or where the exec fails: what this image set is undone,
/// a warning says so, and the process carries on as it was. Call first in
/// main.
void reexecAtStartup(char **argv);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_MACHINE_H
