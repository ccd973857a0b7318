//===- Kernels.h - host kernels ---------------------------------*- C++ -*-===//
//
// The host implementation of every kernel of the registry: the CPU backend
// and the emulated GPUs run these. GEMM goes to OpenBLAS (f32, f64; f16 and
// bf16 through f32); the other kernels are loops.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_KERNELS_H
#define GPLACE_RUNTIME_KERNELS_H

#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"

#include <vector>

namespace gplace::runtime {

/// A tensor in memory the kernel can address directly.
struct TensorRef {
  void *data = nullptr;
  const TensorType *type = nullptr;
};

/// One kernel invocation: the plan's operands resolved to memory.
struct KernelCall {
  Kernel kernel = Kernel::Identity;
  const KernelParams *params = nullptr;
  std::vector<TensorRef> inputs;
  std::vector<TensorRef> outputs;
};

/// Runs `call` on the host, synchronously. Shapes and types are those the
/// graph's verifiers accepted. Errors: an element type the kernel does not
/// support, integer division by zero (TensorFlow's "Integer division by
/// zero").
Status runHostKernel(const KernelCall &call);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_KERNELS_H
