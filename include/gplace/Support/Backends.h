//===- Backends.h - the backends and their kernel tables --------*- C++ -*-===//
//
// A backend runs kernels on one type of device and says which: for each
// graph op, the element types it has a kernel for, as ONNX Runtime's
// execution providers register their kernels and IREE's HAL drivers their
// executable formats. The graph dialect's ODS says what an op is, never
// where it runs. gplace has three backends:
//
// - host: the CPU's kernels (lib/Runtime/Kernels.cpp, oneDNN, OpenBLAS),
//   gplace/Runtime/HostKernels.def;
// - cuda: CUDA GPUs (NVRTC, cuBLAS, cuDNN, NCCL), gplace/Runtime/
//   CudaKernels.def;
// - emulated-gpu: GPUs in host memory that run the host kernels but claim
//   the CUDA backend's table, so that a graph is placed on them as on a
//   CUDA GPU.
//
// The kernel registry (KernelRegistry.h) is the union of the backends'
// tables per device type. The tables are constexpr: the host backend
// instantiates each kernel for exactly the types it claims. Plain C++17.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_BACKENDS_H
#define GPLACE_SUPPORT_BACKENDS_H

#include "gplace/Support/DeviceName.h"
#include "gplace/Support/ElementType.h"

#include <cstddef>
#include <iterator>
#include <string_view>

namespace gplace {

/// One row of a backend's kernel table: `gplace.<op>` has a kernel for the
/// element types of the mask `types` (typeBit), unless the op's attributes
/// meet `unless`: a comma-separated conjunction of `name=value` (a string
/// attribute of that value), `name` (an attribute present) and `!name`
/// (absent), as cuDNN's GRU runs only with `linear_before_reset`
/// (`"rnn_mode=gru,!linear_before_reset"`). Empty: no condition.
/// TensorFlow's kernel registry has no such rows (its CudnnRNN op has no
/// reset-before GRU at all); ONNX Runtime's execution providers ask per
/// node (GetCapability) for the same reason.
struct BackendKernel {
  std::string_view op;
  unsigned types;
  std::string_view unless = {};
};

/// A backend: its name, the device type it runs on, its kernel table and
/// the element types it runs every elementwise op's body for
/// (lib/Runtime/ElementwiseKernels.def), so that an elementwise op needs a
/// row only to narrow them.
struct Backend {
  std::string_view name;
  DeviceType device;
  const BackendKernel *kernels;
  size_t numKernels;
  unsigned elementwiseTypes;

  /// The mask of element types `gplace.<op>` has a kernel for here (0:
  /// none): its row's, else `elementwiseTypes` for an elementwise op.
  constexpr unsigned types(std::string_view op, bool elementwise) const {
    // A loop of its own rather than find(): GCC does not evaluate a
    // pointer's test against null in a constant expression under
    // -fsanitize=undefined (the CI's sanitizer build).
    for (size_t i = 0; i < numKernels; ++i)
      if (kernels[i].op == op)
        return kernels[i].types;
    return elementwise ? elementwiseTypes : 0;
  }
  /// The row of `gplace.<op>`, or nullptr.
  const BackendKernel *find(std::string_view op) const {
    for (size_t i = 0; i < numKernels; ++i)
      if (kernels[i].op == op)
        return &kernels[i];
    return nullptr;
  }
};

namespace detail {
inline constexpr BackendKernel kHostKernels[] = {
#define GPLACE_BACKEND_KERNEL(Op, Types) {Op, Types},
#define GPLACE_BACKEND_KERNEL_UNLESS(Op, Types, Unless) {Op, Types, Unless},
#include "gplace/Runtime/HostKernels.def"
};
inline constexpr BackendKernel kCudaKernels[] = {
#define GPLACE_BACKEND_KERNEL(Op, Types) {Op, Types},
#define GPLACE_BACKEND_KERNEL_UNLESS(Op, Types, Unless) {Op, Types, Unless},
#include "gplace/Runtime/CudaKernels.def"
};
} // namespace detail

/// The host backend (the CPU).
inline constexpr Backend kHostBackend{
    "host", DeviceType::CPU, detail::kHostKernels,
    std::size(detail::kHostKernels), kNumericTypes};
/// The CUDA backend (CUDA GPUs).
inline constexpr Backend kCudaBackend{
    "cuda", DeviceType::GPU, detail::kCudaKernels,
    std::size(detail::kCudaKernels), kFloatTypes};
/// The emulated GPUs: the CUDA backend's table, run by host kernels.
inline constexpr Backend kEmulatedGpuBackend{
    "emulated-gpu", DeviceType::GPU, detail::kCudaKernels,
    std::size(detail::kCudaKernels), kFloatTypes};

/// The backends registered in this build, in order: what the kernel
/// registry is the union of. A new backend is a kernel table and a line
/// here (docs/development.md).
inline constexpr Backend kBackends[] = {kHostBackend, kCudaBackend,
                                        kEmulatedGpuBackend};

/// The union of the registered backends' types for `gplace.<op>`
/// (`elementwise`: an op with a body in ElementwiseKernels.def) on
/// `device`.
constexpr unsigned registeredTypes(std::string_view op, bool elementwise,
                                   DeviceType device) {
  unsigned types = 0;
  for (const Backend &backend : kBackends)
    if (backend.device == device)
      types |= backend.types(op, elementwise);
  return types;
}

} // namespace gplace

#endif // GPLACE_SUPPORT_BACKENDS_H
