//===- Cudnn.h - convolutions, pools, batch norm, RNNs on cuDNN -*- C++ -*-===//
//
// The window kernels of CUDA GPUs: conv2d (and fused_conv2d, depthwise and
// grouped convolutions), max_pool, avg_pool, fused_batch_norm and their
// gradients run cuDNN's routines (cuDNN 9's legacy API, loaded with dlopen
// like cuBLAS), as TensorFlow's and PyTorch's GPU kernels do; so do the
// recurrent layers, cudnn_rnn and its gradient (cuDNN's RNN API, f32).
// Internal to the CUDA backend; docs/gpu.md, "Kernels".
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_RUNTIME_CUDA_CUDNN_H
#define GPLACE_LIB_RUNTIME_CUDA_CUDNN_H

#include "DynamicSymbols.h"

#include "gplace/Runtime/Cuda.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Status.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gplace::runtime::cuda {

/// One CUDA device's cuDNN state: its handle (created on first use, with
/// the device's context current) and a workspace per stream for launches
/// whose plan gave them none, grown to the largest any such launch asks
/// for. Per launch (in the launch's KernelCall::state, which the executor
/// frees with the plan): the descriptors and the algorithm cuDNN's
/// heuristics chose (cudnnGet*Algorithm_v7, the first that needs at most
/// 1 GiB of workspace, as PyTorch without benchmark mode, and that fits
/// the plan's workspace). The algorithm's workspace and the launch's
/// buffers (the filter in cuDNN's layout, an explicitly padded input and
/// input gradient, an average pool's scaled values) lie in the launch's
/// workspace of the static memory plan (KernelCall::workspace: the bytes
/// workspaceBytes() measured when the plan was compiled,
/// --gplace-size-workspaces), as XLA's convolution algorithm picker gives a
/// cuDNN call its scratch buffer; where the plan gave none or too little
/// (a plan compiled elsewhere), they are allocated when the plan loads.
/// An unevenly padded average pool's factors are always the launch's own
/// (docs/gpu.md). A recurrent launch keeps its RNN, data and state
/// descriptors and where each of w's, r's and b's pieces lies in cuDNN's
/// weight space; its weight spaces, cuDNN's workspace and reserve space,
/// its sequence lengths and reversed copies lie in one block, the plan's
/// workspace or the launch's own allocation.
class CudnnKernels {
public:
  /// `allowTf32`: TF32 tensor cores for f32 convolutions
  /// (--gpu-allow-tf32); else cuDNN's FMA-only math (f16 and bf16 ones
  /// always run on tensor cores, accumulating in f32). `context`: the
  /// device's, made current to free a launch's buffers. `ccMajor`: the
  /// GPU's compute capability's major number (bf16 needs 8).
  CudnnKernels(bool allowTf32, CUcontext context, int ccMajor);
  ~CudnnKernels();

  /// Sets up `call` (a kernel isCudnnKernel accepts) on `stream` (its
  /// index, for the workspace), with the device's context current.
  /// Errors: cuDNN unavailable (unavailable); invalid argument for what
  /// cuDNN cannot run: bf16 below compute capability 8.0, a dilated pool, the
  /// gradient of an inference-mode batch norm, a tensor of 2^31 elements or
  /// more, a recurrent layer that is a GRU without linear_before_reset or
  /// not f32 (or whose operands break cudnn_rnn's shape rule, zero sizes
  /// included, as on the CPU); cuDNN's or the driver's errors.
  Status prepare(const KernelCall &call, int stream);

  /// Whether workspaceBytes() can be above 0 for `kernel`: the
  /// convolutions, pools and recurrent layers (not batch norm, nor kernels
  /// cuDNN does not run).
  static bool takesWorkspace(Kernel kernel);

  /// The bytes of workspace `call` takes in the static memory plan, with
  /// the device's context current: the workspace of the algorithm
  /// prepare() chooses with no limit but 1 GiB, then the launch's buffers,
  /// each 256 bytes apart (a recurrent layer: its block, laid out as
  /// prepare() lays it out); 0 for launches that need none (batch norm,
  /// evenly padded pools, empty tensors) and for those prepare() will
  /// reject when the plan loads (cuDNN not loaded, a dilated pool, no
  /// algorithm). Nothing is allocated. Errors: creating the cuDNN handle.
  StatusOr<int64_t> workspaceBytes(const KernelCall &call);

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
  /// Fills `l` for `call`: descriptors, the algorithms that fit in 1 GiB,
  /// and the bytes of the buffers the launch needs; allocates nothing.
  Status describeLaunch(const KernelCall &call, Launch &l);
  /// Grows stream `stream`'s workspace to at least `bytes`.
  Status growWorkspace(int stream, size_t bytes);
  /// The launch of `call`: in its state slot, or kept here by address
  /// where it has none; null if not prepared.
  Launch *find(const KernelCall &call);

  bool allowTf32_;
  CUcontext context_;
  int ccMajor_;
  cudnnHandle_t handle_ = nullptr;
  std::mutex mutex_;
  /// Per stream index: the workspace and its size in bytes; workspaces
  /// outgrown stay until release() (a captured graph may still use them).
  CUdeviceptr workspace_[3] = {0, 0, 0};
  size_t workspaceBytes_[3] = {0, 0, 0};
  std::vector<CUdeviceptr> retired_;
  /// Whether a launch's planned workspace was found too small (warned).
  std::atomic<bool> warnedOutsidePlan_{false};
  std::map<const KernelCall *, std::unique_ptr<Launch>> launches_;
};

} // namespace gplace::runtime::cuda

#endif // GPLACE_LIB_RUNTIME_CUDA_CUDNN_H
