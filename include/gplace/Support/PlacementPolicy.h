//===- PlacementPolicy.h - callable placement policies ----------*- C++ -*-===//
//
// A placement policy is a named C++ callable that, for one op without an
// explicit device request, returns a device request or nothing: TensorFlow's
// `with tf.device(fn)`, where `fn(op)` returns a device string. Policies are
// registered by name; built in are `variables-on-cpu`, `round-robin-gpu`
// and `idle-gpu`. Users add their own from a shared library (see
// docs/placement.md).
//
// Plain C++17, no MLIR: a plugin compiles against this header and
// DeviceName.h only and links nothing of gplace's; gplace-opt and gplace-run
// export these two headers' functions to the plugins they load
// (cmake/GPlaceUtils.cmake, docs/placement.md).
//
// There is no process-wide registry: each MLIR context's graph dialect owns
// the registry --gplace-place uses (GraphDialect::getPolicies), which the
// tool fills before compiling.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_PLACEMENTPOLICY_H
#define GPLACE_SUPPORT_PLACEMENTPOLICY_H

#include "gplace/Support/DeviceName.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// Bumped whenever PolicyOp, PolicyFn or PolicyRegistry change layout; a
/// plugin built against another version is refused at load time.
#define GPLACE_POLICY_ABI_VERSION 2

namespace gplace {

/// What a policy sees of one op.
struct PolicyOp {
  std::string_view name;            ///< `name`, or TensorFlow's default name.
  std::string_view tensorFlowType;  ///< e.g. "MatMul", "VarHandleOp".
  std::string_view opName;          ///< e.g. "gplace.matmul".
  std::string_view requestedDevice; ///< `device` as written ("" if none).
  std::string_view elementType;     ///< "f32", ...; "" for typeless ops.
  std::vector<int64_t> shape;       ///< Result shape (a variable's value).
  int64_t resultBytes = 0;          ///< Bytes of the result (0 for tokens).
  bool isVariable = false;          ///< The op declares a resource.
};

/// A policy: returns a device request (any spelling of docs/device-names.md)
/// for `op`, or std::nullopt / "" to leave the op to the default rules.
/// `devices` are the devices compiled for, with their attributes (memory
/// limits, descriptions, GPU loads): a policy decides from them and the op
/// alone, so that compiling the same IR places it the same way.
using PolicyFn = std::function<std::optional<std::string>(
    const PolicyOp &op, const DeviceSet &devices)>;

/// Makes a fresh policy for one placement run, so that stateful policies
/// (round-robin counters) start over on every graph.
using PolicyFactory = std::function<PolicyFn()>;

/// Policies by name.
class PolicyRegistry {
public:
  /// Registers `factory` under `name` with a one-line `summary`. Returns
  /// false (and registers nothing) if the name is taken.
  bool add(const std::string &name, const std::string &summary,
           PolicyFactory factory);

  /// Registers a policy without state.
  bool addStateless(const std::string &name, const std::string &summary,
                    PolicyFn fn);

  /// A fresh instance of the policy `name`, or std::nullopt if unknown.
  std::optional<PolicyFn> create(const std::string &name) const;

  /// Registered names, sorted ("round-robin-gpu, variables-on-cpu").
  std::vector<std::string> names() const;

  /// The summary of `name` ("" if unknown).
  std::string summary(const std::string &name) const;

private:
  struct Entry {
    std::string summary;
    PolicyFactory factory;
  };
  std::map<std::string, Entry> entries_;
};

/// Registers the built-in policies in `registry`:
/// - `variables-on-cpu`: variables (and so, by colocation, their reads and
///   assigns) on /cpu:0; everything else by the default rules. The seeds'
///   `variables_on_cpu(op)` device function.
/// - `round-robin-gpu`: variables spread over the GPUs of the device set in
///   order (GPU:0, GPU:1, ..., then GPU:0 again), as a parameter-server
///   setup does with TensorFlow's replica_device_setter; no GPUs means no
///   request. Everything else by the default rules.
/// - `idle-gpu`: matmuls on the idlest GPU of the device set, ranked as
///   GpuStatus.h's rankGpus ranks them (no compute processes, then most
///   free memory, then lowest utilisation) by the loads the device set
///   carries (read by the tool before compiling); no GPU with a load means
///   no request. Everything else by the default rules.
void registerBuiltinPolicies(PolicyRegistry &registry);

/// Loads a policy plugin: a shared library exporting
///   extern "C" int gplace_policy_abi_version(void);
///   extern "C" void gplace_register_placement_policies(
///       gplace::PolicyRegistry *registry);
/// (define them with GPLACE_DEFINE_POLICY_PLUGIN). The library stays loaded.
/// Returns false and sets `error` if the library cannot be opened, lacks a
/// symbol, or was built for another GPLACE_POLICY_ABI_VERSION.
bool loadPolicyPlugin(const std::string &path, PolicyRegistry &registry,
                      std::string *error);

} // namespace gplace

/// Defines a plugin's entry points; `registerFn` is a function
/// `void(gplace::PolicyRegistry &)` that adds the plugin's policies.
#define GPLACE_DEFINE_POLICY_PLUGIN(registerFn)                                \
  extern "C" int gplace_policy_abi_version(void) {                             \
    return GPLACE_POLICY_ABI_VERSION;                                          \
  }                                                                            \
  extern "C" void gplace_register_placement_policies(                          \
      gplace::PolicyRegistry *registry) {                                      \
    registerFn(*registry);                                                     \
  }

#endif // GPLACE_SUPPORT_PLACEMENTPOLICY_H
