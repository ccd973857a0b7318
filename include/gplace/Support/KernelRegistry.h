//===- KernelRegistry.h - which ops have CPU and GPU kernels ----*- C++ -*-===//
//
// The one table saying which (op, element type) pairs have a kernel on which
// device type. Placement uses it to reject or soft-place ops, the runtime to
// dispatch them; `gplace-opt --gplace-list-kernels` prints it. Plain C++17,
// no MLIR.
//
// Mirrors TensorFlow's kernel registry (REGISTER_KERNEL_BUILDER with a
// device and a TypeConstraint) and its placement rule that an op can only be
// placed on a device type with a registered kernel. As SPEC §3 says,
// integer- and bool-typed ops (integer variables included) have no GPU
// kernel, and, as the seeds say of tf.cast, `gplace.cast` runs on the CPU
// only.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_KERNELREGISTRY_H
#define GPLACE_SUPPORT_KERNELREGISTRY_H

#include "gplace/Support/DeviceName.h"

#include <functional>
#include <optional>
#include <ostream>
#include <string_view>
#include <vector>

namespace gplace {

/// The element types of SPEC §2, in the order the registry prints them.
enum class ElementType { F32, F16, BF16, F64, I32, I64, I1 };

/// Returns MLIR's spelling: "f32", "f16", "bf16", "f64", "i32", "i64", "i1".
std::string_view elementTypeName(ElementType type);

/// Parses MLIR's spelling of an element type; std::nullopt if unknown.
std::optional<ElementType> parseElementType(std::string_view name);

/// Kernels of one op: the element types it has a kernel for on each device
/// type. A typeless op (`gplace.group`, TensorFlow's NoOp) runs anywhere.
struct KernelDef {
  std::string_view op; ///< The op's MLIR name, e.g. "gplace.matmul".
  std::vector<ElementType> cpu;
  std::vector<ElementType> gpu;
  bool typeless = false;
};

class KernelRegistry {
public:
  /// The process-wide registry (immutable, built on first use).
  static const KernelRegistry &global();

  /// True if `op` has a kernel for `type` on `device`. `type` is
  /// std::nullopt for an op without an element type; such an op has a
  /// kernel on a device type only if it is typeless. Unknown ops have none.
  bool hasKernel(std::string_view op, std::optional<ElementType> type,
                 DeviceType device) const;

  /// The device types with a kernel for (op, type), GPU first (TensorFlow's
  /// device type priority).
  std::vector<DeviceType> deviceTypes(std::string_view op,
                                      std::optional<ElementType> type) const;

  /// The entry of `op`, or nullptr if the registry does not know it.
  const KernelDef *lookup(std::string_view op) const;

  /// Every entry, sorted by op name.
  const std::vector<KernelDef> &entries() const { return entries_; }

  /// Prints the table: one line per op with its CPU and GPU element types
  /// ("any" for a typeless op, "-" for none). When `tensorFlowType` is given
  /// it names each op's TensorFlow type for an extra column.
  void print(std::ostream &os,
             const std::function<std::string(std::string_view op)>
                 &tensorFlowType = nullptr) const;

private:
  KernelRegistry();
  std::vector<KernelDef> entries_;
};

} // namespace gplace

#endif // GPLACE_SUPPORT_KERNELREGISTRY_H
