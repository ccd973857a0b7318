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

#include <optional>
#include <ostream>
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
};

class KernelRegistry {
public:
  /// The registry of the graph dialect's ops (immutable, built on first use
  /// from the op table).
  static const KernelRegistry &global();

  /// True if `op` has a kernel for `type` on `device`. `type` is
  /// std::nullopt for an op without an element type; such an op has a
  /// kernel on a device type only if it is typeless. Unknown ops have none.
  bool hasKernel(std::string_view op, std::optional<ElementType> type,
                 DeviceType device) const;

  /// The entry of `op`, or nullptr if the registry does not know it.
  const KernelDef *lookup(std::string_view op) const;

  /// Every entry, sorted by op name.
  const std::vector<KernelDef> &entries() const { return entries_; }

  /// Prints the table: a header, then one line per op with its TensorFlow
  /// type and its CPU and GPU element types ("any" for a typeless op, "-"
  /// for none).
  void print(std::ostream &os) const;

private:
  KernelRegistry();
  std::vector<KernelDef> entries_;
};

} // namespace gplace

#endif // GPLACE_SUPPORT_KERNELREGISTRY_H
