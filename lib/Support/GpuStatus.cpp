//===- GpuStatus.cpp - which GPUs are busy, and which to use --------------===//

#include "gplace/Support/GpuStatus.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace gplace {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(trim(text.substr(start, end - start)));
    if (end == std::string_view::npos)
      return parts;
    start = end + 1;
  }
}

/// The leading integer of "81559 MiB" or "7 %"; std::nullopt if none.
std::optional<int64_t> number(std::string_view text) {
  text = trim(text);
  int64_t value = 0;
  size_t digits = 0;
  while (digits < text.size() && digits < 18 &&
         std::isdigit(static_cast<unsigned char>(text[digits])))
    value = value * 10 + (text[digits++] - '0');
  if (digits == 0)
    return std::nullopt;
  return value;
}

//===----------------------------------------------------------------------===//
// NVML, declared here as its documentation gives it (the toolkit ships no
// nvml.h): https://docs.nvidia.com/deploy/nvml-api/ — only the stable C
// entry points gplace calls.
//===----------------------------------------------------------------------===//

using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
using nvmlDevice_t = struct nvmlDevice_st *;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};

struct Nvml {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char *(*errorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*getCount)(unsigned int *) = nullptr;
  nvmlReturn_t (*getHandle)(unsigned int, nvmlDevice_t *) = nullptr;
  nvmlReturn_t (*getUuid)(nvmlDevice_t, char *, unsigned int) = nullptr;
  nvmlReturn_t (*getPciInfo)(nvmlDevice_t, nvmlPciInfo_t *) = nullptr;
  nvmlReturn_t (*getMemory)(nvmlDevice_t, nvmlMemory_t *) = nullptr;
  nvmlReturn_t (*getUtilization)(nvmlDevice_t, nvmlUtilization_t *) = nullptr;
  nvmlReturn_t (*getProcesses)(nvmlDevice_t, unsigned int *, void *) = nullptr;
};

bool queryNvml(std::vector<GpuStatus> &gpus, std::string &error) {
  void *library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    error = why ? why : "libnvidia-ml.so.1 not found";
    return false;
  }
  Nvml nvml;
  auto load = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        dlsym(library, name));
    if (!slot && error.empty())
      error = std::string("NVML lacks ") + name;
  };
  load(nvml.init, "nvmlInit_v2");
  load(nvml.shutdown, "nvmlShutdown");
  load(nvml.errorString, "nvmlErrorString");
  load(nvml.getCount, "nvmlDeviceGetCount_v2");
  load(nvml.getHandle, "nvmlDeviceGetHandleByIndex_v2");
  load(nvml.getUuid, "nvmlDeviceGetUUID");
  load(nvml.getPciInfo, "nvmlDeviceGetPciInfo_v3");
  load(nvml.getMemory, "nvmlDeviceGetMemoryInfo");
  load(nvml.getUtilization, "nvmlDeviceGetUtilizationRates");
  load(nvml.getProcesses, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!error.empty())
    return false;
  if (nvmlReturn_t r = nvml.init(); r != NVML_SUCCESS) {
    error = std::string("nvmlInit failed: ") + nvml.errorString(r);
    return false;
  }
  unsigned int count = 0;
  if (nvmlReturn_t r = nvml.getCount(&count); r != NVML_SUCCESS) {
    error = std::string("nvmlDeviceGetCount failed: ") + nvml.errorString(r);
    nvml.shutdown();
    return false;
  }
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    if (nvml.getHandle(i, &device) != NVML_SUCCESS)
      continue;
    GpuStatus gpu;
    gpu.index = static_cast<int>(i);
    char uuid[96] = {};
    if (nvml.getUuid(device, uuid, sizeof(uuid)) == NVML_SUCCESS)
      gpu.uuid = uuid;
    nvmlPciInfo_t pci = {};
    if (nvml.getPciInfo(device, &pci) == NVML_SUCCESS)
      gpu.pciBusId = pci.busId;
    nvmlMemory_t memory = {};
    if (nvml.getMemory(device, &memory) == NVML_SUCCESS) {
      gpu.totalMiB = static_cast<int64_t>(memory.total >> 20);
      gpu.usedMiB = static_cast<int64_t>(memory.used >> 20);
    }
    nvmlUtilization_t utilization = {};
    if (nvml.getUtilization(device, &utilization) == NVML_SUCCESS)
      gpu.utilization = static_cast<int>(utilization.gpu);
    // With no buffer, NVML only says how many processes there are.
    unsigned int processes = 0;
    nvmlReturn_t r = nvml.getProcesses(device, &processes, nullptr);
    if (r == NVML_SUCCESS || r == NVML_ERROR_INSUFFICIENT_SIZE)
      gpu.computeProcesses = static_cast<int>(processes);
    gpus.push_back(gpu);
  }
  nvml.shutdown();
  return true;
}

std::string runCommand(const std::string &command, bool &ok) {
  std::string output;
  FILE *pipe = popen(command.c_str(), "r");
  ok = pipe != nullptr;
  if (!pipe)
    return output;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  ok = pclose(pipe) == 0;
  return output;
}

} // namespace

std::string GpuStatus::describe() const {
  std::ostringstream os;
  os << "physical GPU " << index << " (" << (uuid.empty() ? "no UUID" : uuid)
     << ", " << (pciBusId.empty() ? "no PCI bus id" : pciBusId) << ", "
     << computeProcesses << " process" << (computeProcesses == 1 ? "" : "es")
     << ", " << freeMiB() << " MiB free of " << totalMiB << ", "
     << utilization << "% busy)";
  return os.str();
}

std::optional<std::vector<GpuStatus>> parseNvidiaSmiCsv(std::string_view text,
                                                        std::string *error) {
  std::vector<GpuStatus> gpus;
  std::map<std::string, int> processesByUuid;
  bool inProcesses = false;
  int lineNumber = 0;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    ++lineNumber;
    std::string_view row = trim(line);
    if (row.empty()) {
      inProcesses = !gpus.empty();
      continue;
    }
    std::vector<std::string_view> fields = split(row, ',');
    std::string first(fields[0]);
    if (first == "index") // The GPU query's header.
      continue;
    if (first == "gpu_uuid") { // The compute apps query's header.
      inProcesses = true;
      continue;
    }
    if (inProcesses || (fields.size() <= 3 && first.rfind("GPU-", 0) == 0)) {
      inProcesses = true;
      if (first.rfind("GPU-", 0) != 0 && first.rfind("MIG-", 0) != 0) {
        if (error)
          *error = "line " + std::to_string(lineNumber) +
                   ": expected gpu_uuid, pid, used_memory, got '" +
                   std::string(row) + "'";
        return std::nullopt;
      }
      ++processesByUuid[first];
      continue;
    }
    if (fields.size() != 6) {
      if (error)
        *error = "line " + std::to_string(lineNumber) +
                 ": expected index, uuid, pci.bus_id, memory.total, "
                 "memory.used, utilization.gpu; got '" +
                 std::string(row) + "'";
      return std::nullopt;
    }
    std::optional<int64_t> index = number(fields[0]), total = number(fields[3]),
                           used = number(fields[4]),
                           utilization = number(fields[5]);
    if (!index || !total || !used || !utilization || *used > *total ||
        *utilization > 100 || *index > 4096) {
      if (error)
        *error = "line " + std::to_string(lineNumber) +
                 ": bad numbers in '" + std::string(row) + "'";
      return std::nullopt;
    }
    GpuStatus gpu;
    gpu.index = static_cast<int>(*index);
    gpu.uuid = std::string(fields[1]);
    gpu.pciBusId = std::string(fields[2]);
    gpu.totalMiB = *total;
    gpu.usedMiB = *used;
    gpu.utilization = static_cast<int>(*utilization);
    gpus.push_back(gpu);
  }
  std::set<int> indices;
  for (GpuStatus &gpu : gpus) {
    if (!indices.insert(gpu.index).second) {
      if (error)
        *error = "GPU index " + std::to_string(gpu.index) + " appears twice";
      return std::nullopt;
    }
    gpu.computeProcesses = processesByUuid[gpu.uuid];
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const GpuStatus &a, const GpuStatus &b) {
              return a.index < b.index;
            });
  return gpus;
}

GpuStatusReport queryGpuStatus() {
  GpuStatusReport report;
  if (const char *path = std::getenv("GPLACE_GPU_STATUS_FILE")) {
    report.source = std::string("status file ") + path;
    std::ifstream in(path);
    if (!in) {
      report.error = std::string("cannot read GPLACE_GPU_STATUS_FILE '") +
                     path + "'";
      return report;
    }
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    std::string error;
    if (auto gpus = parseNvidiaSmiCsv(text, &error))
      report.gpus = std::move(*gpus);
    else
      report.error = std::string("GPLACE_GPU_STATUS_FILE '") + path +
                     "': " + error;
    return report;
  }
  std::string nvmlError;
  if (queryNvml(report.gpus, nvmlError)) {
    report.source = "NVML";
    return report;
  }
  bool ok = false;
  std::string gpuRows = runCommand(
      "nvidia-smi --query-gpu=index,uuid,pci.bus_id,memory.total,memory.used,"
      "utilization.gpu --format=csv,noheader,nounits 2>/dev/null",
      ok);
  if (!ok) {
    report.error = "no GPU status: NVML: " + nvmlError +
                   "; nvidia-smi: not found or failed";
    return report;
  }
  std::string apps = runCommand(
      "nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory "
      "--format=csv,noheader,nounits 2>/dev/null",
      ok);
  std::string error;
  auto gpus = parseNvidiaSmiCsv(gpuRows + "\n" + (ok ? apps : ""), &error);
  report.source = "nvidia-smi";
  if (gpus)
    report.gpus = std::move(*gpus);
  else
    report.error = "nvidia-smi: " + error;
  return report;
}

std::vector<GpuStatus> rankGpus(std::vector<GpuStatus> gpus,
                                int64_t minFreeMiB) {
  gpus.erase(std::remove_if(gpus.begin(), gpus.end(),
                            [&](const GpuStatus &gpu) {
                              return gpu.freeMiB() < minFreeMiB;
                            }),
             gpus.end());
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const GpuStatus &a, const GpuStatus &b) {
                     return std::make_tuple(a.computeProcesses > 0,
                                            -a.freeMiB(), a.utilization,
                                            a.index) <
                            std::make_tuple(b.computeProcesses > 0,
                                            -b.freeMiB(), b.utilization,
                                            b.index);
                   });
  return gpus;
}

VisibleDevices parseVisibleDevices(std::string_view value,
                                   const std::vector<GpuStatus> &gpus) {
  VisibleDevices visible;
  if (trim(value).empty())
    return visible; // The empty value hides every GPU.
  std::set<int> seen;
  for (std::string_view entry : split(value, ',')) {
    std::optional<int> found;
    std::string why;
    if (entry.empty()) {
      why = "an empty entry";
    } else if (std::all_of(entry.begin(), entry.end(), [](char c) {
                 return std::isdigit(static_cast<unsigned char>(c));
               })) {
      std::optional<int64_t> index = number(entry);
      for (const GpuStatus &gpu : gpus)
        if (index && gpu.index == *index)
          found = gpu.index;
      if (!found)
        why = "no GPU " + std::string(entry);
    } else if (entry.rfind("GPU-", 0) == 0 || entry.rfind("MIG-", 0) == 0) {
      int matches = 0;
      for (const GpuStatus &gpu : gpus)
        if (gpu.uuid.rfind(std::string(entry), 0) == 0) {
          found = gpu.index;
          ++matches;
        }
      if (matches != 1) {
        why = matches == 0 ? "no GPU has UUID " + std::string(entry)
                           : "UUID prefix " + std::string(entry) +
                                 " is ambiguous";
        found.reset();
      }
    } else {
      why = "'" + std::string(entry) + "' is neither an index nor a UUID";
    }
    if (found && !seen.insert(*found).second) {
      why = "GPU " + std::string(entry) + " is listed twice";
      found.reset();
    }
    if (!found) {
      // CUDA stops at the first invalid entry: the rest are not visible.
      visible.stopped = "stopped at " + why;
      return visible;
    }
    visible.indices.push_back(*found);
  }
  return visible;
}

GpuSelection selectGpus(std::string_view spec,
                        const std::vector<GpuStatus> &gpus,
                        std::optional<std::string_view> environment,
                        int64_t minFreeMiB) {
  GpuSelection selection;
  auto byIndex = [&](int index) {
    return *std::find_if(gpus.begin(), gpus.end(), [&](const GpuStatus &gpu) {
      return gpu.index == index;
    });
  };
  // What the environment leaves visible, in its order.
  std::vector<GpuStatus> candidates = gpus;
  if (environment) {
    candidates.clear();
    for (int index : parseVisibleDevices(*environment, gpus).indices)
      candidates.push_back(byIndex(index));
  }
  spec = trim(spec);
  if (spec.empty()) {
    selection.gpus = candidates;
    return selection;
  }
  std::string_view kind = spec.substr(0, spec.find(':'));
  if (kind == "auto") {
    std::optional<int64_t> wanted;
    if (spec.size() > 4) {
      std::string_view count = spec.substr(5);
      wanted = number(count);
      if (spec[4] != ':' || !wanted || *wanted < 1 ||
          std::to_string(*wanted) != std::string(trim(count))) {
        selection.error = "--visible-gpus=" + std::string(spec) +
                          ": expected auto or auto:N with N >= 1";
        return selection;
      }
    }
    std::vector<GpuStatus> ranked = rankGpus(candidates, minFreeMiB);
    if (ranked.empty() || (wanted && static_cast<int64_t>(ranked.size()) <
                                         *wanted)) {
      std::ostringstream os;
      os << "--visible-gpus=" << spec << ": "
         << (wanted ? std::to_string(*wanted) : std::string("a"))
         << " GPU" << (wanted && *wanted > 1 ? "s" : "") << " with at least "
         << minFreeMiB << " MiB free wanted, " << ranked.size()
         << " available of " << candidates.size();
      for (const GpuStatus &gpu : candidates)
        os << "; " << gpu.describe();
      selection.error = os.str();
      selection.tooFew = true;
      return selection;
    }
    if (wanted)
      ranked.resize(*wanted);
    selection.gpus = ranked;
  } else {
    // An explicit list replaces CUDA_VISIBLE_DEVICES: it names physical
    // GPUs, as the variable would.
    VisibleDevices visible = parseVisibleDevices(spec, gpus);
    if (!visible.stopped.empty()) {
      selection.error = "--visible-gpus=" + std::string(spec) + ": " +
                        visible.stopped.substr(std::string("stopped at ").size());
      return selection;
    }
    for (int index : visible.indices)
      selection.gpus.push_back(byIndex(index));
  }
  std::string uuids;
  for (const GpuStatus &gpu : selection.gpus)
    uuids += (uuids.empty() ? "" : ",") + gpu.uuid;
  selection.cudaVisibleDevices = uuids;
  return selection;
}

std::vector<GpuStatus> processGpuStatus(const GpuStatusReport &report,
                                        const std::vector<std::string> &uuids) {
  if (uuids.empty())
    return report.gpus;
  std::vector<GpuStatus> visible;
  for (const std::string &uuid : uuids)
    for (const GpuStatus &gpu : report.gpus)
      if (gpu.uuid == uuid)
        visible.push_back(gpu);
  return visible;
}

} // namespace gplace
