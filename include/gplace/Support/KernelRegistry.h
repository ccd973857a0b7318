//===- KernelRegistry.h - which ops have CPU and GPU kernels ----*- C++ -*-===//
//
// The one table saying which (op, element type) pairs have a kernel on which
// device type. Placement uses it to reject or soft-place ops;
// `gplace-opt --gplace-list-kernels` prints it. It is the union, per device
// type, of the kernel tables of the backends registered in this build
// (Backends.h: host, cuda, emulated-gpu), over the ops of the op table that
// gplace-tblgen generates from the dialect's ODS (which also marks the
// typeless ops). Plain C++17, no MLIR.
//
// Mirrors TensorFlow's kernel registry (REGISTER_KERNEL_BUILDER with a
// device and a TypeConstraint) and its placement rule that an op can only be
// placed on a device type with a registered kernel. As SPEC §3 says,
// integer- and bool-typed ops (integer variables included) have no GPU
// kernel, and, as the seeds say of tf.cast, `gplace.cast` runs on the CPU
// unless both its types are floats (the casts of mixed precision).
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_KERNELREGISTRY_H
#define GPLACE_SUPPORT_KERNELREGISTRY_H

#include "gplace/Support/DeviceName.h"
#include "gplace/Support/ElementType.h"

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gplace {

/// Kernels of one op: the element types it has a kernel for on each device
/// type. A typeless op (`gplace.group`, TensorFlow's NoOp) runs anywhere.
struct KernelDef {
  std::string_view op;             ///< The op's MLIR name, "gplace.matmul".
  std::string_view tensorFlowType; ///< "MatMul".
  std::vector<ElementType> cpu;
  std::vector<ElementType> gpu;
  bool typeless = false;
  /// Per device type, the conditions on the op's attributes under which
  /// it has no kernel there after all (BackendKernel::unless), one per
  /// backend that gives one; empty where some backend's row has none.
  std::vector<std::string_view> cpuUnless, gpuUnless;
};

class KernelRegistry {
public:
  /// The registry of the graph dialect's ops (immutable, built on first use
  /// from the op table).
  static const KernelRegistry &global();

  /// An op's attribute by name: a string attribute's value, "" for any
  /// other attribute it has, std::nullopt for one it lacks.
  using AttributeLookup =
      std::function<std::optional<std::string>(std::string_view name)>;

  /// True if `op` has a kernel for `type` on `device`. `type` is
  /// std::nullopt for an op without an element type; such an op has a
  /// kernel on a device type only if it is typeless. Unknown ops have none.
  /// `attributes`: the op's, for the rows' conditions (KernelDef's
  /// cpuUnless and gpuUnless): the kernel is missing where every
  /// condition is met. Without it the conditions are not checked (the
  /// element types alone).
  bool hasKernel(std::string_view op, std::optional<ElementType> type,
                 DeviceType device,
                 const AttributeLookup *attributes = nullptr) const;

  /// Whether `op`'s kernels depend on its attributes on some device type
  /// (a row with a condition): then hasKernel needs them, per op.
  bool dependsOnAttributes(std::string_view op) const;

  /// Whether `attributes` meet `condition` (BackendKernel::unless's
  /// syntax: `name=value`, `name` and `!name`, comma-separated, all must
  /// hold). An empty condition is never met.
  static bool meets(std::string_view condition,
                    const AttributeLookup &attributes);

  /// The entry of `op`, or nullptr if the registry does not know it.
  const KernelDef *lookup(std::string_view op) const;

  /// Every entry, sorted by op name.
  const std::vector<KernelDef> &entries() const { return entries_; }

  /// Prints the table: a header, then one line per op with its TensorFlow
  /// type and its CPU and GPU element types ("any" for a typeless op, "-"
  /// for none), each followed by `(unless:<condition>)` per condition.
  void print(std::ostream &os) const;

private:
  KernelRegistry();
  std::vector<KernelDef> entries_;
};

} // namespace gplace

#endif // GPLACE_SUPPORT_KERNELREGISTRY_H
