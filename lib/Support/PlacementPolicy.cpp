//===- PlacementPolicy.cpp - callable placement policies ------------------===//

#include "gplace/Support/PlacementPolicy.h"

#include "gplace/Support/GpuStatus.h"

#include <dlfcn.h>

#include <memory>

namespace gplace {

bool PolicyRegistry::add(const std::string &name, const std::string &summary,
                         PolicyFactory factory) {
  if (name.empty() || !factory)
    return false;
  return entries_.emplace(name, Entry{summary, std::move(factory)}).second;
}

bool PolicyRegistry::addStateless(const std::string &name,
                                  const std::string &summary, PolicyFn fn) {
  if (!fn)
    return false;
  return add(name, summary, [fn = std::move(fn)] { return fn; });
}

std::optional<PolicyFn> PolicyRegistry::create(const std::string &name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    return std::nullopt;
  return it->second.factory();
}

std::vector<std::string> PolicyRegistry::names() const {
  std::vector<std::string> result;
  for (const auto &entry : entries_)
    result.push_back(entry.first);
  return result;
}

std::string PolicyRegistry::summary(const std::string &name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? std::string() : it->second.summary;
}

void registerBuiltinPolicies(PolicyRegistry &registry) {
  registry.addStateless(
      "variables-on-cpu",
      "variables (and their reads and assigns) on /cpu:0, everything else "
      "by the default rules",
      [](const PolicyOp &op, const DeviceSet &) -> std::optional<std::string> {
        if (op.isVariable)
          return std::string("/cpu:0");
        return std::nullopt;
      });
  registry.add(
      "round-robin-gpu",
      "variables spread over the GPUs in order (parameter-server style), "
      "everything else by the default rules",
      [] {
        auto next = std::make_shared<size_t>(0);
        return PolicyFn(
            [next](const PolicyOp &op,
                   const DeviceSet &devices) -> std::optional<std::string> {
              if (!op.isVariable)
                return std::nullopt;
              std::vector<DeviceName> gpus;
              for (const DeviceName &device : devices.devices())
                if (device.type == DeviceType::GPU)
                  gpus.push_back(device);
              if (gpus.empty())
                return std::nullopt;
              return gpus[(*next)++ % gpus.size()].str();
            });
      });
  registry.addStateless(
      "idle-gpu",
      "heavy ops (matmul) on the idlest GPU, by the loads read when "
      "compilation began (NVML); everything else by the default rules",
      [](const PolicyOp &op,
         const DeviceSet &devices) -> std::optional<std::string> {
        if (op.tensorFlowType != "MatMul")
          return std::nullopt;
        std::vector<GpuStatus> loaded;
        for (size_t i = 0; i < devices.size(); ++i) {
          const std::optional<GpuLoad> &load = devices.attributes(i).load;
          if (devices.devices()[i].type != DeviceType::GPU || !load)
            continue;
          GpuStatus status;
          status.index = static_cast<int>(i);
          status.totalMiB = load->freeMiB;
          status.computeProcesses = load->computeProcesses;
          status.utilization = load->utilization;
          loaded.push_back(status);
        }
        std::vector<GpuStatus> ranked = rankGpus(std::move(loaded));
        if (ranked.empty())
          return std::nullopt;
        return devices.devices()[ranked.front().index].str();
      });
}

bool loadPolicyPlugin(const std::string &path, PolicyRegistry &registry,
                      std::string *error) {
  auto fail = [&](const std::string &why) {
    if (error)
      *error = "cannot load placement policy plugin '" + path + "': " + why;
    return false;
  };
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return fail(why ? why : "dlopen failed");
  }
  auto version =
      reinterpret_cast<int (*)()>(dlsym(handle, "gplace_policy_abi_version"));
  auto registerFn = reinterpret_cast<void (*)(PolicyRegistry *)>(
      dlsym(handle, "gplace_register_placement_policies"));
  if (!version || !registerFn)
    return fail("it does not export gplace_policy_abi_version and "
                "gplace_register_placement_policies (define them with "
                "GPLACE_DEFINE_POLICY_PLUGIN)");
  if (version() != GPLACE_POLICY_ABI_VERSION)
    return fail("it was built for policy ABI version " +
                std::to_string(version()) + ", this gplace has version " +
                std::to_string(GPLACE_POLICY_ABI_VERSION));
  size_t before = registry.names().size();
  registerFn(&registry);
  if (registry.names().size() == before)
    return fail("it registered no new policy (are its names taken?)");
  return true;
}

} // namespace gplace
