//===- Cudnn.h - convolutions, pooling and batch norm on cuDNN --*- C++ -*-===//
//
// The window kernels of CUDA GPUs: conv2d (and fused_conv2d, depthwise and
// grouped convolutions), max_pool, avg_pool, fused_batch_norm and their
// gradients run cuDNN's routines (cuDNN 9's legacy API, loaded with dlopen
// like cuBLAS), as TensorFlow's and PyTorch's GPU kernels do. Internal to
// the CUDA backend; docs/gpu.md, "Kernels".
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_RUNTIME_CUDA_CUDNN_H
#define GPLACE_LIB_RUNTIME_CUDA_CUDNN_H

#include "DynamicSymbols.h"

#include "gplace/Runtime/Cuda.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Status.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace gplace::runtime::cuda {

/// One CUDA device's cuDNN state: its handle (created on first use, with
/// the device's context current) and, per launch, the descriptors, the
/// algorithm cuDNN's heuristics chose (cudnnGet*Algorithm_v7, the first
/// that needs at most 1 GiB of workspace, as PyTorch without benchmark
/// mode), and device buffers for the workspace and the filter in cuDNN's
/// layout. Those buffers are allocated when the plan loads and are not part
/// of the static memory plan (docs/gpu.md).
class CudnnKernels {
public:
  /// `allowTf32`: TF32 tensor cores for f32 convolutions
  /// (--gpu-allow-tf32); else cuDNN's FMA-only math.
  explicit CudnnKernels(bool allowTf32);
  ~CudnnKernels();

  /// Sets up `call` (a kernel isCudnnKernel accepts), with the device's
  /// context current. Errors: cuDNN unavailable (unavailable); invalid
  /// argument for what cuDNN cannot run: an average pool padded unevenly
  /// (more after than before), a dilated pool, the gradient of an
  /// inference-mode batch norm; cuDNN's or the driver's errors.
  Status prepare(const KernelCall &call);

  /// Runs `call` on `stream` (prepare()s it first if needed), with the
  /// device's context current.
  Status launch(const KernelCall &call, CUstream stream);

  struct Launch;

private:
  Status handle();

  bool allowTf32_;
  cudnnHandle_t handle_ = nullptr;
  std::mutex mutex_;
  std::map<const KernelCall *, std::unique_ptr<Launch>> launches_;
};

} // namespace gplace::runtime::cuda

#endif // GPLACE_LIB_RUNTIME_CUDA_CUDNN_H
