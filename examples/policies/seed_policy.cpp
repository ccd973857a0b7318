//===- seed_policy.cpp - the seeds' device function as a gplace plugin ----===//
//
// The seeds write this TensorFlow device function:
//
//   def variables_on_cpu(op):
//       if op.type == "Variable":
//           return "/cpu:0"
//       else:
//           return "/gpu:0"
//   with tf.device(variables_on_cpu):
//       ...
//
// Here it is as a gplace placement policy in a shared library. Build it
// (CMake target gplace-seed-policy) and use it with
//
//   gplace-opt --gplace-load-policy=build/lib/libgplace-seed-policy.so \
//       --gplace-place="policy=seed-variables-on-cpu" model.mlir
//
// A plugin includes gplace/Support/PlacementPolicy.h, links GPlaceSupport,
// and defines its entry points with GPLACE_DEFINE_POLICY_PLUGIN.
//
//===----------------------------------------------------------------------===//

#include "gplace/Support/PlacementPolicy.h"

namespace {

std::optional<std::string> variablesOnCpu(const gplace::PolicyOp &op,
                                          const gplace::DeviceSet &devices) {
  if (op.isVariable)
    return std::string("/cpu:0");
  // The seed asks for /gpu:0 unconditionally; without a GPU that request
  // fails (or, with soft placement, falls back to the CPU), as in
  // TensorFlow.
  return std::string("/gpu:0");
}

void registerPolicies(gplace::PolicyRegistry &registry) {
  registry.addStateless("seed-variables-on-cpu",
                        "the seeds' device function: variables on /cpu:0, "
                        "everything else on /gpu:0",
                        variablesOnCpu);
}

} // namespace

GPLACE_DEFINE_POLICY_PLUGIN(registerPolicies)
