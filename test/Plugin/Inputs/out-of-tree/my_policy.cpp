// An out-of-tree policy plugin: matrix products on the last GPU of the
// device set, everything else by the default rules. It calls the device-name
// API (DeviceName::parse, DeviceSet::matching, DeviceName::str) and the
// registry, which the tools export.
#include "gplace/Support/PlacementPolicy.h"

static std::optional<std::string> matmulsOnLastGpu(
    const gplace::PolicyOp &op, const gplace::DeviceSet &devices) {
  if (op.tensorFlowType != "MatMul")
    return std::nullopt;
  std::optional<gplace::DeviceName> anyGpu =
      gplace::DeviceName::parse("/device:GPU:*");
  if (!anyGpu)
    return std::nullopt;
  std::vector<gplace::DeviceName> gpus = devices.matching(*anyGpu);
  if (gpus.empty())
    return std::nullopt;
  return gpus.back().str();
}

static void registerPolicies(gplace::PolicyRegistry &registry) {
  registry.addStateless("matmuls-on-last-gpu",
                        "matrix products on the last GPU of the device set",
                        matmulsOnLastGpu);
}

GPLACE_DEFINE_POLICY_PLUGIN(registerPolicies)
