//===- Kernel.h - the runtime's kernels and their parameters ----*- C++ -*-===//
//
// The kernels a plan launches, one per graph op that runs a kernel of its
// own (Graph_KernelOp in dialects/graph/GraphOps.td), and their parameters.
// Both come from the op table gplace-tblgen generates from the graph
// dialect's ODS (GraphOpTable.def), so the compiler (lowering, the plan's
// launch verifier), the plan exporter and the runtime (host and CUDA
// kernels) agree on them by construction; the element types each backend
// runs them for come from the backends (Backends.h). Plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_KERNEL_H
#define GPLACE_SUPPORT_KERNEL_H

#include "gplace/Support/Backends.h"

#include <array>
#include <cstddef>
#include <iterator>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gplace {

/// A kernel: `Kernel::Matmul` for gplace.matmul, `Kernel::ReduceSum` for
/// gplace.reduce_sum (the op's record name without Graph_ and Op).
enum class Kernel : uint8_t {
#define GPLACE_KERNEL(Name, Mnemonic, Elementwise, Arity, TypedByOperand)     \
  Name,
#include "gplace/Dialect/Graph/GraphOpTable.def"
};

namespace detail {
struct KernelInfo {
  std::string_view mnemonic;
  bool elementwise;
  int arity;
  bool typedByOperand;
};
inline constexpr KernelInfo kKernelInfos[] = {
#define GPLACE_KERNEL(Name, Mnemonic, Elementwise, Arity, TypedByOperand)     \
  {Mnemonic, Elementwise, Arity, TypedByOperand},
#include "gplace/Dialect/Graph/GraphOpTable.def"
};
} // namespace detail

/// The number of kernels.
constexpr size_t kNumKernels = std::size(detail::kKernelInfos);

/// The mnemonic of the kernel's op: "matmul", "reduce_sum" (the graph op is
/// `gplace.<mnemonic>`, the plan's launch prints `gplan.launch <mnemonic>`).
constexpr std::string_view kernelMnemonic(Kernel kernel) {
  return detail::kKernelInfos[static_cast<size_t>(kernel)].mnemonic;
}

/// The kernel whose mnemonic is `mnemonic`, or std::nullopt.
std::optional<Kernel> kernelFromMnemonic(std::string_view mnemonic);

/// True for an elementwise kernel (the op has ElementwiseOpInterface): the
/// host, NVRTC and fused kernels all compute it from its scalar function
/// (lib/Runtime/ElementwiseKernels.def), and devices may fuse it.
constexpr bool isElementwiseKernel(Kernel kernel) {
  return detail::kKernelInfos[static_cast<size_t>(kernel)].elementwise;
}

/// True for a kernel whose result may take its first input's memory (the op
/// has AccumulatesIntoFirstOperand: matmul_accumulate, GEMM with beta = 1
/// into its accumulator): the memory planner's in-place option treats its
/// first input as it treats an elementwise kernel's operands.
constexpr bool isAccumulatingKernel(Kernel kernel) {
  switch (kernel) {
#define GPLACE_KERNEL_ACCUMULATES(Name) case Kernel::Name:
#include "gplace/Dialect/Graph/GraphOpTable.def"
    return true;
  default:
    return false;
  }
}

/// True for a kernel whose launches, one per member device, run together
/// (an all-reduce's members): they get a stream of their own.
constexpr bool isCollectiveKernel(Kernel kernel) {
  return kernel == Kernel::CollectiveReduce;
}

/// True for send and recv, which move a tensor between tasks (TensorFlow's
/// _Send and _Recv): a recv waits for its send on another task, so they are
/// transfers, not computations (the executor's inter-op slots, the trace's
/// categories).
constexpr bool isTransferKernel(Kernel kernel) {
  return kernel == Kernel::Send || kernel == Kernel::Recv;
}

/// True for depthwise_conv2d_native and its two gradients, whose filter
/// [KH, KW, C, M] is the grouped filter [KH, KW, 1, C * M] of C groups.
constexpr bool isDepthwiseKernel(Kernel kernel) {
  return kernel == Kernel::DepthwiseConv2dNative ||
         kernel == Kernel::DepthwiseConv2dNativeBackpropInput ||
         kernel == Kernel::DepthwiseConv2dNativeBackpropFilter;
}

/// The kernel's number of data inputs (0 for recv); -1 for a variadic
/// kernel (add_n, concat).
constexpr int kernelArity(Kernel kernel) {
  return detail::kKernelInfos[static_cast<size_t>(kernel)].arity;
}

/// True for a kernel selected by its first input's element type rather
/// than its first output's (the comparisons, whose output is i1: the op has
/// KernelTypeFromOperands): kernelCpuTypes and kernelGpuTypes are then
/// input types.
constexpr bool isKernelTypedByInput(Kernel kernel) {
  return detail::kKernelInfos[static_cast<size_t>(kernel)].typedByOperand;
}

namespace detail {
/// `backend`'s types of every kernel, by Kernel: its table searched once,
/// at compile time, rather than by mnemonic at each launch.
constexpr std::array<unsigned, kNumKernels>
kernelTypeTable(const Backend &backend) {
  std::array<unsigned, kNumKernels> types{};
  for (size_t k = 0; k < kNumKernels; ++k)
    types[k] = backend.types(kKernelInfos[k].mnemonic,
                             kKernelInfos[k].elementwise);
  return types;
}
inline constexpr std::array<unsigned, kNumKernels> kCpuKernelTypes =
    kernelTypeTable(kHostBackend);
inline constexpr std::array<unsigned, kNumKernels> kGpuKernelTypes =
    kernelTypeTable(kCudaBackend);
} // namespace detail

/// The element types the kernel has on the CPU (the host backend's table)
/// and on CUDA GPUs (the CUDA backend's), as masks (typeBit): of its first
/// output, or its first input where isKernelTypedByInput. Backends.h.
constexpr unsigned kernelCpuTypes(Kernel kernel) {
  return detail::kCpuKernelTypes[static_cast<size_t>(kernel)];
}
constexpr unsigned kernelGpuTypes(Kernel kernel) {
  return detail::kGpuKernelTypes[static_cast<size_t>(kernel)];
}

/// The parameters of a launch, as the graph op's attributes give them,
/// normalised by the op (KernelOpInterface::getKernelParameters): axes and
/// the concat axis non-negative, slice sizes resolved. A field per kernel
/// parameter of the op table; each kernel reads its own.
struct KernelParams {
  bool transposeA = false, transposeB = false; ///< matmul.
  bool keepDims = false;                       ///< reduce_*.
  std::vector<int64_t> axes;                   ///< reduce_*.
  std::vector<int64_t> perm;                   ///< transpose.
  std::vector<int64_t> begin, size;            ///< slice.
  int64_t axis = 0;                            ///< concat, argmax.
  std::vector<int64_t> paddings;               ///< pad.
  bool useNesterov = false;                    ///< apply_momentum, _adam.
  int64_t peer = 0; ///< send, recv: the other task's process (MPI rank).
  int64_t tag = 0;  ///< send, recv: the transfer's tag (one per edge).
  /// collective_reduce (TensorFlow's CollectiveReduceV2): the group's key
  /// and size, the all-reduce's key, this member's index in the group, the
  /// MPI rank of each member's task (empty: all in this process), and
  /// whether the sum is divided by the group size.
  int64_t groupKey = 0, groupSize = 1, instanceKey = 0, member = 0;
  std::vector<int64_t> ranks;
  bool mean = false;
  /// conv2d, max_pool, avg_pool and their gradients: the window's size,
  /// strides, dilations (over height and width) and pads (top, bottom,
  /// left, right), resolved from TensorFlow's attributes, and whether the
  /// layout is NCHW (else NHWC).
  std::vector<int64_t> windowSize, windowStrides, windowDilations, windowPads;
  bool channelsFirst = false;
  bool fusedRelu = false; ///< fused_conv2d: max(x, 0) after the bias.
  /// fused_conv2d_pool: its pool's window size, strides and pads (as
  /// window*), and whether it averages (else it takes the maximum).
  std::vector<int64_t> poolWindowSize, poolWindowStrides, poolWindowPads;
  bool poolAverage = false;
  /// fused_batch_norm: the variance epsilon, and whether the statistics
  /// are the batch's (training) rather than the given ones.
  double epsilon = 0.0;
  bool isTraining = false;
  /// cudnn_rnn and its gradient: the cell (0 rnn_tanh, 1 rnn_relu, 2 lstm,
  /// 3 gru, 4 gru with linear_before_reset) and the direction (0 forward,
  /// 1 reverse, 2 bidirectional).
  int64_t rnnKind = 0, rnnDirection = 0;
  /// check_range: the bounds every element must lie in, both included.
  int64_t low = 0, high = 0;
};

/// How a kernel parameter is typed: a unit attribute (a flag), an integer,
/// an array of integers, or a floating-point number (an f32 or f64
/// attribute, held as a double).
enum class KernelParamKind { Bool, I64, I64Array, F64 };

/// One parameter of a kernel, from the op table: its name (the graph op's
/// attribute), its kind, and the KernelParams field that holds it (exactly
/// one of the four is set, by kind).
struct KernelParamDef {
  std::string_view name;
  KernelParamKind kind;
  bool KernelParams::*boolField = nullptr;
  int64_t KernelParams::*i64Field = nullptr;
  std::vector<int64_t> KernelParams::*arrayField = nullptr;
  double KernelParams::*f64Field = nullptr;
};

/// The parameters of `kernel`, in the op's declaration order.
const std::vector<KernelParamDef> &kernelParamDefs(Kernel kernel);

} // namespace gplace

#endif // GPLACE_SUPPORT_KERNEL_H
