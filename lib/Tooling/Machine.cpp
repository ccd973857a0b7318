//===- Machine.cpp - this process's devices, from the tools' options ------===//

#include "gplace/Tooling/Machine.h"

#include "gplace/Runtime/Cuda.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Threads.h"
#include "gplace/Support/GpuStatus.h"
#include "gplace/Tooling/Cluster.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <unistd.h>

using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

namespace {

/// Parses a non-negative decimal integer that fits in int64_t.
std::optional<int64_t> parseCount(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  if (text.empty())
    return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' ||
        __builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, c - '0', &value))
      return std::nullopt;
  }
  return value;
}

constexpr int64_t kMaxMiB = std::numeric_limits<int64_t>::max() >> 20;

/// --logical-gpus entries: GPU:MiB,MiB,... into limits in bytes.
rt::Status parseLogicalGpus(const std::vector<std::string> &entries,
                            std::map<int, std::vector<int64_t>> &into) {
  for (const std::string &entry : entries) {
    auto bad = [&] {
      return rt::Status::invalidArgument(
          "--logical-gpus=" + entry +
          ": expected GPU:MiB,MiB,... with sizes from 1 to " +
          std::to_string(kMaxMiB) + " MiB");
    };
    size_t colon = entry.find(':');
    if (colon == std::string::npos)
      return bad();
    std::optional<int64_t> ordinal = parseCount(entry.substr(0, colon));
    if (!ordinal || *ordinal > std::numeric_limits<int>::max())
      return bad();
    std::vector<int64_t> limits;
    std::string_view sizes(entry);
    sizes.remove_prefix(colon + 1);
    if (sizes.empty())
      return bad();
    while (true) {
      size_t comma = sizes.find(',');
      std::optional<int64_t> mib = parseCount(sizes.substr(0, comma));
      if (!mib || *mib == 0 || *mib > kMaxMiB)
        return bad();
      limits.push_back(*mib << 20);
      if (comma == std::string_view::npos)
        break;
      sizes.remove_prefix(comma + 1);
    }
    into[static_cast<int>(*ordinal)] = std::move(limits);
  }
  return rt::Status::ok();
}

/// The physical ordinal in a CUDA GPU's description ("device: 3, name:
/// ..."), or -1.
int physicalOrdinal(const std::string &description) {
  std::string_view text(description);
  if (text.substr(0, 8) != "device: ")
    return -1;
  text.remove_prefix(8);
  std::optional<int64_t> ordinal = parseCount(text.substr(0, text.find(',')));
  return ordinal ? static_cast<int>(*ordinal) : -1;
}

} // namespace

rt::StatusOr<std::unique_ptr<Machine>>
Machine::create(const MachineOptions &options) {
  if (options.emulatedGpus < 0 || options.emulatedGpus > 64)
    return rt::Status::invalidArgument("--emulate-gpus must be from 0 to 64");
  if (options.gpuMemoryLimitMiB < 0 || options.gpuMemoryLimitMiB > kMaxMiB)
    return rt::Status::invalidArgument(
        "--gpu-memory-limit must be from 0 to " + std::to_string(kMaxMiB) +
        " MiB");
  // Written so that NaN fails too.
  if (!(options.gpuMemoryFraction >= 0 && options.gpuMemoryFraction <= 1))
    return rt::Status::invalidArgument(
        "--gpu-memory-fraction must be in (0, 1]");
  if (options.minFreeMemoryMiB < 0)
    return rt::Status::invalidArgument(
        "--min-free-memory must not be negative");
  if (options.minFreeMemoryMiB > 0 &&
      options.visibleGpus.rfind("auto", 0) != 0)
    return rt::Status::invalidArgument(
        "--min-free-memory needs --visible-gpus=auto[:N]");

  rt::CudaOptions cuda;
  cuda.allowTf32 = options.gpuAllowTf32;
  cuda.allowGrowth = options.gpuAllowGrowth;
  cuda.memoryFraction = options.gpuMemoryFraction;
  cuda.memoryLimit = options.gpuMemoryLimitMiB << 20;
  GPLACE_RETURN_IF_ERROR(parseLogicalGpus(options.logicalGpus, cuda.logicalGpus));

  std::unique_ptr<Machine> machine(new Machine());
  // Which physical GPUs this process uses, decided before CUDA initialises
  // (SPEC §6): --visible-gpus, else CUDA_VISIBLE_DEVICES as CUDA reads it.
  std::optional<GpuStatusReport> report;
  std::vector<std::string> uuids; // The process's GPUs, in order.
  const char *environment = std::getenv("CUDA_VISIBLE_DEVICES");
  std::vector<std::string> mapping;
  if (!options.visibleGpus.empty()) {
    report = queryGpuStatus();
    GpuSelection selection;
    if (!report->error.empty()) {
      // No GPU status (no NVML, no nvidia-smi: no NVIDIA driver) means no
      // GPU to choose: an error, or the CPU with soft placement. A
      // malformed auto[:N] is an error either way.
      GpuSelection none = selectGpus(options.visibleGpus, {}, std::nullopt,
                                     options.minFreeMemoryMiB);
      if (options.visibleGpus.rfind("auto", 0) == 0 && !none.error.empty() &&
          !none.tooFew)
        return rt::Status::invalidArgument(none.error);
      if (!options.softPlacement)
        return rt::Status::unavailable("--visible-gpus: " + report->error);
      selection.error = report->error;
      selection.tooFew = true;
      report->source = "no GPU status";
    } else {
      selection = selectGpus(
          options.visibleGpus, report->gpus,
          environment ? std::optional<std::string_view>(environment)
                      : std::nullopt,
          options.minFreeMemoryMiB);
    }
    if (!selection.error.empty()) {
      if (!selection.tooFew)
        return rt::Status::invalidArgument(selection.error);
      if (!options.softPlacement)
        return rt::Status::unavailable(selection.error);
      // Soft placement: run without GPUs rather than fail.
      selection.gpus.clear();
      selection.cudaVisibleDevices = "";
      mapping.push_back("no GPU fits, running on the CPU (soft placement): " +
                        selection.error);
    }
    setenv("CUDA_VISIBLE_DEVICES", selection.cudaVisibleDevices->c_str(), 1);
    for (auto [k, gpu] : llvm::enumerate(selection.gpus)) {
      uuids.push_back(gpu.uuid);
      mapping.push_back("GPU:" + std::to_string(k) + " -> " + gpu.describe());
    }
    for (std::string &line : mapping)
      line = "visible GPUs (--visible-gpus=" + options.visibleGpus + ", " +
             report->source + "): " + line;
  }

  machine->devices_ = std::make_unique<rt::DeviceManager>(
      rt::DeviceManager::Options{0, 0});
  rt::CudaDiscovery found = rt::addCudaDevices(*machine->devices_, cuda);
  if (!options.logicalGpus.empty() && found.gpus == 0)
    return rt::Status::unavailable("--logical-gpus needs a CUDA GPU; " +
                                   found.note);
  machine->numCudaGpus_ = found.gpus;
  int64_t emulatedLimit = cuda.memoryLimit;
  // An emulated GPU has 16 GiB; a fraction gives at least one byte (0
  // would mean no limit).
  if (emulatedLimit == 0 && options.gpuMemoryFraction > 0)
    emulatedLimit = std::max<int64_t>(
        1, static_cast<int64_t>(options.gpuMemoryFraction *
                                static_cast<double>(int64_t(16384) << 20)));
  machine->devices_->addEmulatedGpus(options.emulatedGpus, emulatedLimit);
  machine->notes_.push_back(found.note);
  for (std::string &line : mapping)
    machine->notes_.push_back(std::move(line));

  // The loads of the GPUs the process sees, for the idle-gpu policy.
  if (options.readGpuLoads) {
    if (!report)
      report = queryGpuStatus();
    if (uuids.empty() && environment) {
      VisibleDevices visible = parseVisibleDevices(environment, report->gpus);
      for (int index : visible.indices)
        for (const GpuStatus &gpu : report->gpus)
          if (gpu.index == index)
            uuids.push_back(gpu.uuid);
    }
    for (const GpuStatus &gpu : processGpuStatus(*report, uuids))
      machine->gpuLoads_.push_back(
          GpuLoad{gpu.computeProcesses, gpu.freeMiB(), gpu.utilization});
  }
  return machine;
}

DeviceSet Machine::deviceSet() const {
  DeviceSet set;
  for (const auto &device : devices_->devices()) {
    DeviceAttributes attributes;
    attributes.memoryLimit = device->memoryLimit();
    attributes.description = device->description();
    if (device->type() == DeviceType::GPU) {
      // A CUDA GPU has its physical GPU's load; without CUDA GPUs, emulated
      // GPU:k stands for the process's k-th GPU (the status-file seam).
      int k = !device->isHostMemory() ? physicalOrdinal(device->description())
              : numCudaGpus_ == 0     ? static_cast<int>(*device->name().id)
                                      : -1;
      if (k >= 0 && static_cast<size_t>(k) < gpuLoads_.size())
        attributes.load = gpuLoads_[k];
    }
    set.add(device->name(), std::move(attributes));
  }
  return set;
}

//===----------------------------------------------------------------------===//
// Flags
//===----------------------------------------------------------------------===//

const llvm::cl::OptionCategory &gplace::tooling::machineCategory() {
  static llvm::cl::OptionCategory category("Device options");
  return category;
}

namespace {
namespace cl = llvm::cl;
enum class GraphMode { Off, On };
/// The device flags; constructed by registerMachineFlags.
struct MachineFlags {
  cl::OptionCategory &category =
      const_cast<cl::OptionCategory &>(machineCategory());
  cl::opt<int> emulateGpus{
      "emulate-gpus",
      cl::desc("Add N emulated GPUs (host memory and kernels) to the devices"),
      cl::init(0), cl::cat(category)};
  cl::opt<int64_t> gpuMemoryLimit{
      "gpu-memory-limit",
      cl::desc("Memory limit of each GPU in MiB (emulated GPUs: 16384 by "
               "default)"),
      cl::init(0), cl::cat(category)};
  cl::opt<bool> gpuAllowTf32{
      "gpu-allow-tf32",
      cl::desc("Use TF32 tensor cores for f32 matmul on CUDA GPUs"),
      cl::init(false), cl::cat(category)};
  cl::opt<bool> gpuAllowGrowth{
      "gpu-allow-growth",
      cl::desc("Allocate GPU memory on demand (default); =false reserves the "
               "whole limit up front"),
      cl::init(true), cl::cat(category)};
  cl::opt<double> gpuMemoryFraction{
      "gpu-memory-fraction",
      cl::desc("Fraction of each GPU's memory this process may use, in (0, 1]"),
      cl::init(0), cl::cat(category)};
  cl::list<std::string> logicalGpus{
      "logical-gpus",
      cl::desc("Split a physical GPU into logical GPUs with their own memory "
               "limits: GPU:MiB,MiB,..."),
      cl::value_desc("gpu:MiB,MiB"), cl::cat(category)};
  cl::opt<std::string> visibleGpus{
      "visible-gpus",
      cl::desc("The GPUs to use, as GPU:0, GPU:1, ...: auto (every idle "
               "enough GPU, idlest first), auto:N (the N idlest), or a "
               "CUDA_VISIBLE_DEVICES list of indices and UUIDs"),
      cl::value_desc("auto[:N]|list"), cl::cat(category)};
  cl::opt<int64_t> minFreeMemory{
      "min-free-memory",
      cl::desc("With --visible-gpus=auto: skip GPUs with less free memory "
               "(MiB)"),
      cl::init(0), cl::cat(category)};
  cl::opt<GraphMode> cudaGraphs{
      "cuda-graphs",
      cl::desc("Capture a plan that runs on one GPU into a CUDA graph when it "
               "loads and replay it on each run"),
      cl::values(
          clEnumValN(GraphMode::On, "on", "capture and replay (default)"),
          clEnumValN(GraphMode::Off, "off", "run the steps one by one")),
      cl::init(GraphMode::On), cl::cat(category)};
  cl::opt<int> intraOpThreads{
      "intra-op-parallelism-threads",
      cl::desc("Threads of each CPU kernel (TensorFlow's "
               "intra_op_parallelism_threads); 0: up to the CPUs this "
               "process may use, one while the machine is oversubscribed"),
      cl::value_desc("N"), cl::init(0), cl::cat(category)};
  cl::opt<int> interOpThreads{
      "inter-op-parallelism-threads",
      cl::desc("The most kernels that run at once over all streams "
               "(TensorFlow's inter_op_parallelism_threads); 0: no bound"),
      cl::value_desc("N"), cl::init(0), cl::cat(category)};
};

MachineFlags &machineFlags() {
  static MachineFlags *flags = new MachineFlags; // Lives as long as LLVM's
                                                 // parser refers to it.
  return *flags;
}
} // namespace

void gplace::tooling::registerMachineFlags() { (void)machineFlags(); }

rt::StatusOr<MachineOptions> gplace::tooling::machineOptionsFromFlags() {
  MachineFlags &flags = machineFlags();
  // 0 is the option's "not set" (TensorFlow's per_process_gpu_memory_fraction
  // default); given, it must be a fraction (Machine::create checks the rest).
  if (flags.gpuMemoryFraction.getNumOccurrences() &&
      flags.gpuMemoryFraction == 0)
    return rt::Status::invalidArgument(
        "--gpu-memory-fraction must be in (0, 1]");
  if (flags.intraOpThreads < 0)
    return rt::Status::invalidArgument(
        "--intra-op-parallelism-threads must be 0 (adapt) or more, not " +
        std::to_string(flags.intraOpThreads));
  if (flags.interOpThreads < 0)
    return rt::Status::invalidArgument(
        "--inter-op-parallelism-threads must be 0 (no bound) or more, not " +
        std::to_string(flags.interOpThreads));
  MachineOptions options;
  options.emulatedGpus = flags.emulateGpus;
  options.gpuMemoryLimitMiB = flags.gpuMemoryLimit;
  options.gpuMemoryFraction = flags.gpuMemoryFraction;
  options.gpuAllowGrowth = flags.gpuAllowGrowth;
  options.gpuAllowTf32 = flags.gpuAllowTf32;
  options.logicalGpus = flags.logicalGpus;
  options.visibleGpus = flags.visibleGpus;
  options.minFreeMemoryMiB = flags.minFreeMemory;
  return options;
}

rt::ExecutorOptions
gplace::tooling::executorOptionsFromFlags(rt::Transport *transport) {
  rt::ExecutorOptions options;
  options.graphs = machineFlags().cudaGraphs == GraphMode::On;
  options.transport = transport;
  options.intraOpThreads = machineFlags().intraOpThreads;
  options.interOpThreads = machineFlags().interOpThreads;
  return options;
}

std::string gplace::tooling::describeMachine(Machine &machine) {
  std::string text = machine.devices().listDevices();
  for (const std::string &line : machine.notes())
    text += line + "\n";
  text += "Matmul: " + rt::matmulDescription() + "\n";
  text += "Convolutions: " + rt::convolutionDescription() + "\n";
  text += "BLAS: " + rt::blasDescription();
  const char *core = std::getenv("OPENBLAS_CORETYPE");
  if (core && std::getenv("GPLACE_SET_OPENBLAS_CORETYPE"))
    text += std::string(" (OPENBLAS_CORETYPE=") + core +
            ", set by gplace-run: OpenBLAS chose Prescott's)";
  else if (core)
    text += std::string(" (OPENBLAS_CORETYPE=") + core + ")";
  return text + "\n";
}

void gplace::tooling::reexecAtStartup(char **argv) {
  bool startedByMove = takeAdoptedAffinityRecord();
  std::vector<unsigned long> own = rt::affinityMask();
  bool moved = !startedByMove && adoptDaemonAffinityBeforeExec();
  bool blas = false;
  if (std::optional<std::string> core = rt::preferredBlasCoreType()) {
    ::setenv("OPENBLAS_CORETYPE", core->c_str(), 1);
    ::setenv("GPLACE_SET_OPENBLAS_CORETYPE", "1", 1);
    blas = true;
  }
  if (!moved && !blas)
    return;
  ::execv("/proc/self/exe", argv);
  // The exec failed: undo what this image set, and carry on as it was.
  int error = errno;
  if (blas) {
    ::unsetenv("OPENBLAS_CORETYPE");
    ::unsetenv("GPLACE_SET_OPENBLAS_CORETYPE");
  }
  if (moved) {
    rt::setThreadAffinity(own);
    takeAdoptedAffinityRecord();
    adoptedAffinityNote("");
  }
  llvm::errs() << "gplace-run: warning: could not start again as "
               << (blas ? "OpenBLAS's kernels" : "the CPUs")
               << " asked (execv /proc/self/exe: " << std::strerror(error)
               << "); running as started\n";
}
