//===- Cuda.h - the CUDA backend --------------------------------*- C++ -*-===//
//
// CUDA GPUs as runtime devices: the driver API, cuBLAS and NVRTC reached
// through one symbol table filled by dlopen, so that one binary runs with
// and without CUDA. This header has no CUDA types: callers need no toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_CUDA_H
#define GPLACE_RUNTIME_CUDA_H

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Kernels.h"

#include <map>
#include <string>
#include <vector>

namespace gplace::runtime {

/// SPEC §6's GPU memory options and the backend's switches.
struct CudaOptions {
  /// Use TF32 tensor cores for f32 GEMM (`--gpu-allow-tf32`); off by
  /// default, as TensorFlow's `allow_tf32` was originally.
  bool allowTf32 = false;
  /// Allocate on demand from a stream-ordered pool (`--gpu-allow-growth`,
  /// the default); otherwise reserve the whole limit when the device opens.
  bool allowGrowth = true;
  /// Fraction of each GPU's memory the process may use
  /// (`--gpu-memory-fraction`, TensorFlow's per_process_gpu_memory_fraction);
  /// 0 for no fraction.
  double memoryFraction = 0;
  /// Limit of each GPU in bytes (`--gpu-memory-limit`); 0 for none.
  int64_t memoryLimit = 0;
  /// Physical GPU index -> the limits in bytes of the logical GPUs it is
  /// split into (`--logical-gpus=0:1024,1024`), TensorFlow's logical
  /// device configuration.
  std::map<int, std::vector<int64_t>> logicalGpus;
};

/// The outcome of looking for CUDA GPUs.
struct CudaDiscovery {
  int gpus = 0;     ///< GPUs added (logical GPUs counted one by one).
  std::string note; ///< One line saying what was found or why nothing.
};

/// Adds this machine's CUDA GPUs to `devices` as GPU:0, GPU:1, ... Without
/// a driver, a GPU or the CUDA libraries it adds none and `note` says why
/// ("CUDA: no GPU (libcuda.so.1: cannot open shared object file: ...)").
/// Bad options (a logical GPU split of a GPU that does not exist, a
/// fraction outside (0, 1]) are reported in `note` too, and no GPU is added.
CudaDiscovery addCudaDevices(DeviceManager &devices, const CudaOptions &options);

/// A CUDA C kernel generated for one launch: every shape and element type
/// baked in, so that it is compiled and cached once per (kernel, shapes,
/// types). One thread per work item, `threads` work items.
struct CudaKernelSource {
  std::string source;
  std::string entry = "gplace_kernel";
  int64_t threads = 0;
  /// Pointer parameters in order: inputs, then outputs.
  size_t numParameters = 0;
  /// Fused kernels: the address each parameter takes, in order (a single
  /// launch's kernel takes its call's inputs, then its outputs).
  std::vector<void *> arguments;
};

/// The CUDA backend launches its NVRTC kernels in blocks of this many
/// threads (a long reduction's kernel takes one block per result).
constexpr int64_t kCudaThreadsPerBlock = 256;

/// Generates the kernel for `call`: an elementwise kernel as a fusion group
/// of one (generateFusedCudaKernel), the others from their own generator.
/// Fails for a kernel that does not run through NVRTC (matmul: cuBLAS;
/// read, assign: copies) or an element type without a GPU kernel.
StatusOr<CudaKernelSource> generateCudaKernel(const KernelCall &call);

/// Generates one kernel for a fusion group (XLA's loop fusion): each thread
/// loads its elements of the group's inputs (broadcast as the single
/// kernels do), computes every op's value in registers by pasting the op's
/// scalar function (lib/Runtime/ElementwiseKernels.def) and stores the
/// values that have an output. Parameters: the inputs, then the outputs
/// (`arguments`). Fails for an op that is not elementwise or an element
/// type without a GPU kernel.
StatusOr<CudaKernelSource> generateFusedCudaKernel(const FusedCall &fused);

/// Generates the kernel of one member of a device-side all-reduce (the
/// logical GPUs of one physical GPU, which read each other's memory): for
/// elements [begin, end), the sum of `members` inputs of element type
/// `type` in member order, in f32 (f16, bf16, f32) or f64, divided by
/// `divisor` unless it is 0 (a mean), stored into `members` outputs: the
/// same arithmetic as the host's all-reduce (Collective.h), so the bits
/// agree. Parameters: the inputs, then the outputs. Fails for an element
/// type without a GPU kernel.
StatusOr<CudaKernelSource>
generateAllReduceCudaKernel(size_t members, ElementType type, int64_t divisor,
                            int64_t begin, int64_t end);

/// True if `kernel` runs as an NVRTC kernel on a CUDA GPU.
bool isNvrtcKernel(Kernel kernel);

/// True if `kernel` runs through cuDNN on a CUDA GPU: conv2d, fused_conv2d,
/// depthwise_conv2d_native, max_pool, avg_pool, fused_batch_norm,
/// cudnn_rnn and their gradients (lib/Runtime/CUDA/Cudnn.h).
bool isCudnnKernel(Kernel kernel);

/// What the CUDA backend says of cuDNN after its GPUs: "cuDNN 9.19.0 (...)"
/// with the element types its kernels run, or
/// "no cuDNN (<why libcudnn.so.9 did not load>): conv2d, pooling, batch
/// norm and recurrent layers cannot run on CUDA GPUs".
std::string cudnnNote();

/// Compiles `source` with NVRTC to PTX for `arch` ("sm_90"; "" for NVRTC's
/// default). Results are cached in memory and on disk, keyed by a SHA-256 of
/// the kernel name, architecture, NVRTC version, options and source, in
/// $GPLACE_KERNEL_CACHE_DIR, else $XDG_CACHE_HOME/gplace, else
/// ~/.cache/gplace (written to a temporary file, then renamed). An
/// unusable cache directory costs one warning on stderr, not a failure. A
/// compile error returns NVRTC's log.
StatusOr<std::string> compileCudaKernel(const CudaKernelSource &kernel,
                                        const std::string &arch);

/// Why NVRTC cannot be used ("" when it can).
std::string nvrtcUnavailableReason();

/// Kernel cache statistics since the process started.
struct KernelCacheStats {
  int compiles = 0;   ///< NVRTC invocations.
  int memoryHits = 0; ///< Found in this process's cache.
  int diskHits = 0;   ///< Found on disk.
};
KernelCacheStats kernelCacheStats();

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_CUDA_H
