//===- Kernels.h - kernel calls and the host kernels ------------*- C++ -*-===//
//
// A kernel call is a kernel of the op table with its operands resolved to
// memory; a fused call is a fusion group's launches as one kernel. The host
// implementation of every kernel (the CPU backend and the emulated GPUs run
// these): f32 matmuls go to oneDNN where gplace has it (f16 and bf16
// through f32), f64 (and f32 without oneDNN) to OpenBLAS, window ops and
// batch norm to oneDNN, elementwise kernels expand their scalar function
// (lib/Runtime/ElementwiseKernels.def), the others are loops.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_KERNELS_H
#define GPLACE_RUNTIME_KERNELS_H

#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"
#include "gplace/Support/Kernel.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gplace::runtime {

class KernelCache;

/// A tensor in memory the kernel can address directly.
struct TensorRef {
  void *data = nullptr;
  const TensorType *type = nullptr;
  /// Its memory and values stay the same as long as the launch's state
  /// (KernelCall::state) lives: a plan constant (or a view of one) in a
  /// loaded plan.
  bool constant = false;
};

/// What a host kernel keeps from one run of a launch to the next, such as
/// constant weights packed into a library's layout (ONNX Runtime's
/// PrePack, TensorFlow's MKL weight caching). Subclassed by the kernel.
struct KernelState {
  virtual ~KernelState() = default;
};

/// One kernel invocation: the plan's operands resolved to memory. Outputs
/// are the launch's new buffers, then those it writes in place.
class Transport;

struct KernelCall {
  Kernel kernel = Kernel::Read;
  const KernelParams *params = nullptr;
  std::vector<TensorRef> inputs;
  std::vector<TensorRef> outputs;
  /// The launch's state slot, owned by whoever runs the launch again (the
  /// executor: one per step of a loaded plan, kept until it unloads), or
  /// null where nothing is kept: then inputs are not marked constant
  /// either. A kernel fills it on a launch's first run, unsynchronised: the
  /// owner never runs one launch on two threads at once (the executor runs
  /// each step on its stream's thread, one run at a time).
  std::unique_ptr<KernelState> *state = nullptr;
  /// The launch's workspace in the static memory plan (the arena slot of
  /// its gplan.launch's `workspace` result: hostWorkspaceBytes' bytes on
  /// the CPU, Device::workspaceBytes' on a CUDA GPU), or null: then the
  /// kernel takes its temporary buffers from its thread's own (a host
  /// kernel) or allocates them (a cuDNN launch). A host kernel needing
  /// more than `workspaceBytes` (a plan compiled under another
  /// GPLACE_POOL_TILE_KIB, say) takes the rest there too; a cuDNN launch
  /// takes all its buffers from the workspace or none.
  void *workspace = nullptr;
  int64_t workspaceBytes = 0;
  /// Where set, the call only measures: the kernel makes its primitives,
  /// stores the bytes of workspace it would take here, and runs nothing
  /// (no tensor is read or written; data pointers may be null).
  int64_t *measuredWorkspace = nullptr;
  /// The executor's transport to other tasks (ExecutorOptions::transport),
  /// for send and recv; null outside a cluster.
  Transport *transport = nullptr;
  /// The executor's kernel cache (createKernelCache), where host kernels
  /// keep the primitives they make by shape and parameters, so that the
  /// launches of one shape share one; null: each call makes its own.
  KernelCache *cache = nullptr;
  /// Whether the launch runs for a GPU (an emulated one, which runs the
  /// host kernels): then a host kernel follows TensorFlow's GPU kernel
  /// where it differs from the CPU's (gather's out-of-range index gives
  /// zeros, unsorted_segment_sum drops an id past the segments), so that
  /// an emulated GPU answers as a CUDA GPU would (docs/dialect.md).
  bool forGpu = false;
  /// The OpenMP team size the kernel's parallel loops and oneDNN
  /// primitives use (the executor's IntraOpThreads, read at each call);
  /// null: the calling thread's setting, unchanged.
  const std::atomic<int> *intraOpThreads = nullptr;
};

/// What kernels made for their launches and keep for launches of the same
/// shapes and parameters (oneDNN's primitives), by a key the kernel
/// chooses. Thread-safe; one per executor, so that executors in one process
/// share nothing and an unloaded plan's primitives go with it (TensorFlow
/// keeps its MKL primitives per op kernel, ONNX Runtime per session).
class KernelCache {
public:
  /// The object stored under `key`, made by `make` the first time (outside
  /// the lock: two threads may both make one; the first stored wins).
  /// Errors: make's, which stores nothing.
  StatusOr<std::shared_ptr<void>>
  getOrMake(const std::string &key,
            const std::function<StatusOr<std::shared_ptr<void>>()> &make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end())
        return it->second;
    }
    StatusOr<std::shared_ptr<void>> made = make();
    if (!made)
      return made.status();
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.emplace(key, std::move(*made)).first->second;
  }

  /// The number of objects stored.
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<void>> entries_;
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
  /// As KernelCall::intraOpThreads.
  const std::atomic<int> *intraOpThreads = nullptr;
};

/// The OPENBLAS_CORETYPE naming the best kernels of the BLAS the CPU
/// kernels call for f64 matmuls (and f32 without oneDNN: OpenBLAS) that
/// this CPU runs, when OpenBLAS chose worse
/// ones: a DYNAMIC_ARCH build (Debian's) picks its kernels when it loads,
/// from the CPU models it knows, and 0.3.21 falls back to Prescott's SSE3
/// kernels on newer ones, 3-4x slower than their AVX-512 kernels.
/// "SkylakeX" (AVX-512 F, BW, DQ, VL usable) or "Haswell" (AVX2 and FMA)
/// where OpenBLAS runs Prescott's and OPENBLAS_CORETYPE is unset (the
/// user's choice wins); std::nullopt otherwise. The variable only takes
/// effect in a process that starts with it (gplace-run re-executes itself).
std::optional<std::string> preferredBlasCoreType();

/// Stops OpenBLAS's idle worker threads, once per process; nothing where
/// OpenBLAS has none (its serial and OpenMP builds) or they are stopped.
/// Its pthreads build (Debian's default) starts them when the library
/// loads, and each spins on sched_yield for about 0.1 s after its last
/// work (2^28 cycles) before it sleeps: on a loaded or small machine they
/// take the cores gplace's own threads (OpenMP's, which oneDNN and the
/// host kernels share) wait for, at the start of every process
/// (docs/runtime.md). OpenBLAS starts them again at its next threaded
/// call (an f64 matmul, or f32 without oneDNN), as after a fork. Call it
/// from a tool's main thread before any kernel runs; not from a library
/// a user's process loads (numpy may be in an OpenBLAS call on another
/// thread).
void stopIdleBlasThreads();

/// The BLAS the CPU kernels call (f64 matmuls; f32 too without oneDNN)
/// and the kernels it runs, for --list-devices: "OpenBLAS 0.3.21, SkylakeX
/// kernels".
std::string blasDescription();

/// Which library runs the CPU's float matrix products, for --list-devices:
/// "f32, f16 and bf16 on oneDNN 2.6.3, f64 on OpenBLAS" where gplace was
/// built with oneDNN (as TensorFlow's MKL build runs MatMul on oneDNN),
/// else "f32, f16, bf16 and f64 on OpenBLAS".
std::string matmulDescription();
/// Which library runs the host's convolutions and pools, per element type
/// ("f32 on oneDNN 2.6.3; f16 and bf16 computed in f32 (widened, rounded
/// back)"), for `gplace-run --list-devices`.
std::string convolutionDescription();

/// Runs `call` on the host, synchronously, with denormal floats flushed to
/// zero (operands and results), as TensorFlow's CPU kernels run. Shapes and
/// types are those the graph's verifiers accepted. Errors: an element type the kernel has no
/// CPU kernel for (the host backend's table, HostKernels.def), integer division by zero
/// (TensorFlow's "Integer division by zero").
Status runHostKernel(const KernelCall &call);

/// Flushes denormal floats to zero on the calling thread for its scope,
/// then restores the mode it found: x86's FTZ (results) and DAZ
/// (operands) bits of MXCSR, which cover float and double. TensorFlow's
/// port::ScopedFlushDenormal, under which its CPU kernels run: an
/// operation on a denormal can cost a hundred times a normal one (Adam's
/// slots reach them after an epoch of the Fashion-MNIST MLP; its epochs
/// then took 1.6x as long). runHostKernel and runHostFused hold one for
/// each call; a thread that runs many launches (the executor's streams)
/// holds one around them, so that each launch finds the mode set and
/// changes nothing (writing MXCSR twice a launch was a tenth of a tiny
/// launch's cost). Threads inherit the mode from the thread that creates
/// them: OpenMP's workers, which libgomp makes on a thread's first
/// parallel region (inside a kernel), keep it for good, as TensorFlow's
/// intra-op threads do; OpenBLAS's own workers (f64 GEMMs), started when
/// it loads, do not flush. Does nothing on other architectures.
class ScopedFlushDenormal {
public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal &) = delete;
  ScopedFlushDenormal &operator=(const ScopedFlushDenormal &) = delete;

private:
  unsigned saved_ = 0;
  bool changed_ = false;
};

/// A host kernel: what runHostKernel calls for a kernel.
using HostKernelFn = Status (*)(const KernelCall &);

/// The host implementation of `kernel`, for a caller that runs many
/// launches on one thread and does runHostKernel's per-call set-up once
/// for all of them: it holds a ScopedFlushDenormal and has set the
/// thread's OpenMP team size (useHostTeamSize) to its launches'
/// intraOpThreads. The executor's streams call it directly, which halved
/// the dispatch cost of a tiny launch (bench/runtime.py).
HostKernelFn hostKernelFunction(Kernel kernel);

/// Sets the calling thread's OpenMP team size (a per-thread setting) to
/// `threads`' value, where given and positive, as runHostKernel does for
/// its call's intraOpThreads.
void useHostTeamSize(const std::atomic<int> *threads);

/// Runs `call` on the host, synchronously, a block of elements at a time:
/// every op of the group over a block before the next block, values in a
/// scratch block rather than memory. Results equal runHostKernel's on each
/// op (16-bit floats are rounded after each op). Errors as runHostKernel.
Status runHostFused(const FusedCall &call);

/// Whether the host kernel of `kernel` may take a workspace at all
/// (hostWorkspaceBytes can be above 0): the window ops and batch norm,
/// when gplace is built with oneDNN. A cheap test to ask first.
bool hostKernelTakesWorkspace(Kernel kernel);

/// The bytes of workspace the host kernel of `kernel` with `params` takes
/// for one launch on tensors of `inputs` and `outputs` types (the plan's
/// order; `constantInputs[i]`: input i is a plan constant, whose
/// library-layout copy the launch keeps in its state instead), as the
/// static memory plan reserves it (--gplace-size-workspaces): the oneDNN
/// primitives' scratchpads and the activations and filters reordered into
/// the layouts they run on, each rounded up to 64 bytes, as XLA reserves a
/// cuDNN convolution's scratch. Depends on this CPU's instruction set
/// (oneDNN picks its kernels by it) and on GPLACE_POOL_TILE_KIB and
/// GPLACE_ENABLE_WINOGRAD. 0 for kernels that take none (every kernel but
/// the window ops and batch norm; a matmul's scratchpad stays the
/// thread's). Errors: oneDNN's, as running the launch would report them.
StatusOr<int64_t> hostWorkspaceBytes(Kernel kernel, const KernelParams &params,
                                     const std::vector<TensorType> &inputs,
                                     const std::vector<bool> &constantInputs,
                                     const std::vector<TensorType> &outputs);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_KERNELS_H
