//===- Kernels.h - kernel calls and the host kernels ------------*- C++ -*-===//
//
// A kernel call is a kernel of the op table with its operands resolved to
// memory; a fused call is a fusion group's launches as one kernel. The host
// implementation of every kernel (the CPU backend and the emulated GPUs run
// these): GEMM goes to OpenBLAS (f32, f64; f16 and bf16 through f32),
// elementwise kernels expand their scalar function
// (lib/Runtime/ElementwiseKernels.def), the others are loops.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_KERNELS_H
#define GPLACE_RUNTIME_KERNELS_H

#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"
#include "gplace/Support/Kernel.h"

#include <string>
#include <vector>

namespace gplace::runtime {

/// A tensor in memory the kernel can address directly.
struct TensorRef {
  void *data = nullptr;
  const TensorType *type = nullptr;
};

/// One kernel invocation: the plan's operands resolved to memory. Outputs
/// are the launch's new buffers, then those it writes in place.
struct KernelCall {
  Kernel kernel = Kernel::Read;
  const KernelParams *params = nullptr;
  std::vector<TensorRef> inputs;
  std::vector<TensorRef> outputs;
};

/// A fusion group run as one kernel (XLA's loop fusion, decided by the
/// compiler: --gplace-fuse-elementwise). Every op is elementwise with
/// result type `type`; its operands are tensors read from outside the group
/// (broadcast to `type` as the single kernels broadcast them) or values of
/// earlier ops; a value reaches memory only if something outside the group
/// reads it.
struct FusedCall {
  struct Op {
    Kernel kernel = Kernel::Add;
    /// Per operand: i >= 0 for inputs[i], -1 - k for the value of ops[k].
    std::vector<int> operands;
    int output = -1; ///< Into outputs, or -1: the value stays in registers.
  };
  TensorType type;
  std::vector<TensorRef> inputs; ///< Distinct tensors read from outside.
  std::vector<Op> ops;
  std::vector<TensorRef> outputs;
  std::string label; ///< "Add+Mul+Relu", for messages.
};

/// Runs `call` on the host, synchronously. Shapes and types are those the
/// graph's verifiers accepted. Errors: an element type the kernel has no
/// CPU kernel for (the op table's cpuKernels), integer division by zero
/// (TensorFlow's "Integer division by zero").
Status runHostKernel(const KernelCall &call);

/// Runs `call` on the host, synchronously, a block of elements at a time:
/// every op of the group over a block before the next block, values in a
/// scratch block rather than memory. Results equal runHostKernel's on each
/// op (16-bit floats are rounded after each op). Errors as runHostKernel.
Status runHostFused(const FusedCall &call);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_KERNELS_H
