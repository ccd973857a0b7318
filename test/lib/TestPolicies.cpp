//===- TestPolicies.cpp - placement policies for gplace's tests -----------===//
//
// A plugin with policies that exercise placement's error paths and corner
// cases; loaded by the lit tests with --gplace-load-policy.
//
//===----------------------------------------------------------------------===//

#include "gplace/Support/PlacementPolicy.h"

#include <memory>

namespace {

void registerPolicies(gplace::PolicyRegistry &registry) {
  // Returns a malformed device string for every op.
  registry.addStateless(
      "test-invalid-device", "returns '/gpu:x' for every op",
      [](const gplace::PolicyOp &, const gplace::DeviceSet &) {
        return std::optional<std::string>("/gpu:x");
      });
  // Puts every op on the last device of the set, in the local form.
  registry.addStateless(
      "test-last-device", "returns the last device of the set for every op",
      [](const gplace::PolicyOp &,
         const gplace::DeviceSet &devices) -> std::optional<std::string> {
        if (devices.empty())
          return std::nullopt;
        return devices.devices().back().str();
      });
  // Requests a device from the result shape: exercises PolicyOp.shape.
  registry.addStateless(
      "test-by-shape", "matrices on /gpu:1, scalars on /cpu:0, others none",
      [](const gplace::PolicyOp &op,
         const gplace::DeviceSet &) -> std::optional<std::string> {
        if (op.shape.size() == 2)
          return std::string("/gpu:1");
        if (op.shape.empty() && !op.elementType.empty())
          return std::string("/cpu:0");
        return std::nullopt;
      });
  // Alternates ops between /gpu:0 and /gpu:1: every edge crosses devices,
  // which exercises copies, events and concurrent streams.
  registry.add("test-alternate-gpus",
               "every other op on /gpu:0, the others on /gpu:1", [] {
                 auto next = std::make_shared<int>(0);
                 return gplace::PolicyFn([next](const gplace::PolicyOp &,
                                                const gplace::DeviceSet &) {
                   return std::optional<std::string>((*next)++ % 2 ? "/gpu:1"
                                                                   : "/gpu:0");
                 });
               });
}

} // namespace

GPLACE_DEFINE_POLICY_PLUGIN(registerPolicies)
