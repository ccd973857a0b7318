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
#include <vector>

namespace gplace::runtime::cuda {

/// One CUDA device's cuDNN state: its handle (created on first use, with
/// the device's context current) and a workspace per stream, grown to the
/// largest any launch on it asks for. Per launch (in the launch's
/// KernelCall::state, which the executor frees with the plan): the
/// descriptors, the algorithm cuDNN's heuristics chose (cudnnGet*Algorithm
/// _v7, the first that needs at most 1 GiB of workspace, as PyTorch without
/// benchmark mode), and device buffers for the filter in cuDNN's layout and
/// an explicitly padded input. All are allocated when the plan loads and
/// are not part of the static memory plan (docs/gpu.md).
class CudnnKernels {
public:
  /// `allowTf32`: TF32 tensor cores for f32 convolutions
  /// (--gpu-allow-tf32); else cuDNN's FMA-only math. `context`: the
  /// device's, made current to free a launch's buffers.
  CudnnKernels(bool allowTf32, CUcontext context);
  ~CudnnKernels();

  /// Sets up `call` (a kernel isCudnnKernel accepts) on `stream` (its
  /// index, for the workspace), with the device's context current.
  /// Errors: cuDNN unavailable (unavailable); invalid argument for what
  /// cuDNN cannot run: a dilated pool, the gradient of an inference-mode
  /// batch norm, a tensor of 2^31 elements or more; cuDNN's or the
  /// driver's errors.
  Status prepare(const KernelCall &call, int stream);

  /// Runs `call` on `stream` (index `index`; prepare()s it first if
  /// needed), with the device's context current.
  Status launch(const KernelCall &call, CUstream stream, int index);

  /// Frees the handle, the workspaces and the launches kept here (calls
  /// without a state slot), with the device's context current: before the
  /// device's streams go.
  void release();

  struct Launch;

private:
  Status handle();
  /// Grows stream `stream`'s workspace to at least `bytes`.
  Status growWorkspace(int stream, size_t bytes);
  /// The launch of `call`: in its state slot, or kept here by address
  /// where it has none; null if not prepared.
  Launch *find(const KernelCall &call);

  bool allowTf32_;
  CUcontext context_;
  cudnnHandle_t handle_ = nullptr;
  std::mutex mutex_;
  /// Per stream index: the workspace and its size in bytes; workspaces
  /// outgrown stay until release() (a captured graph may still use them).
  CUdeviceptr workspace_[3] = {0, 0, 0};
  size_t workspaceBytes_[3] = {0, 0, 0};
  std::vector<CUdeviceptr> retired_;
  std::map<const KernelCall *, std::unique_ptr<Launch>> launches_;
};

} // namespace gplace::runtime::cuda

#endif // GPLACE_LIB_RUNTIME_CUDA_CUDNN_H
