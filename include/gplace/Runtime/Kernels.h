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

/// A run of consecutive elementwise launches on one stream, all with one
/// output shape and element type, run as one kernel (XLA's loop fusion,
/// found in the plan rather than in the graph). A call's input is either a
/// buffer from outside the run or the output of an earlier call;
/// `stored[k]` says whether call k's output must reach memory (read after
/// the run, by another stream or as a result) or only feeds later calls.
struct FusedCall {
  std::vector<KernelCall> calls;
  std::vector<bool> stored;
  std::string label; ///< "Add+Mul+Relu", for messages.
};

/// Runs `call` on the host, synchronously. Shapes and types are those the
/// graph's verifiers accepted. Errors: an element type the kernel does not
/// support, integer division by zero (TensorFlow's "Integer division by
/// zero").
Status runHostKernel(const KernelCall &call);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_KERNELS_H
