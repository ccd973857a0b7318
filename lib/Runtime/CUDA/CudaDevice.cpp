//===- CudaDevice.cpp - CUDA GPUs as runtime devices ----------------------===//
//
// Per device: the physical GPU's primary context, a compute stream and a
// copy stream, a cuBLAS handle, cuDNN for convolutions, pooling, batch
// norm and recurrent layers (Cudnn.h), memory from the device's stream-ordered
// pool, NVRTC kernels compiled when the plan loads, events for every
// cross-stream and cross-device dependency, and peer copies where peer
// access exists (else staged through pinned host memory). See
// lib/Runtime/CUDA/README.md.
//
//===----------------------------------------------------------------------===//

#include "CudaStatus.h"
#include "Cudnn.h"

#include "gplace/Runtime/Cuda.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

namespace gplace::runtime {

namespace {

using cuda::CudaLibraries;

/// One physical GPU, shared by the logical GPUs it is split into.
struct PhysicalGpu {
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name, pciBusId;
  int ccMajor = 0, ccMinor = 0;
  size_t totalMemory = 0;
  std::set<int> peers; ///< Ordinals this GPU can copy to directly.

  ~PhysicalGpu() {
    if (context)
      CudaLibraries::get().cuDevicePrimaryCtxRelease(device);
  }
};

class CudaEvent final : public DeviceEvent {
public:
  CUevent event = nullptr;
  ~CudaEvent() override {
    if (event)
      CudaLibraries::get().cuEventDestroy(event);
  }
};

/// A captured run: the graph and its executable instance.
class CudaGraph final : public DeviceGraph {
public:
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  ~CudaGraph() override {
    const CudaLibraries &libs = CudaLibraries::get();
    if (exec)
      libs.cuGraphExecDestroy(exec);
    if (graph)
      libs.cuGraphDestroy(graph);
  }
};

class CudaDevice;

/// NCCL over a group of CUDA GPUs, each on its own physical GPU: one
/// communicator per member from ncclCommInitAll (a single process's
/// clique), shared by every all-reduce of the group; each member's thread
/// queues its part on its own stream (one thread per device, as NCCL
/// allows without group calls). A mean is NCCL's sum, then the member's
/// division kernel (TensorFlow's final_op Div).
class NcclCollective final : public DeviceCollective {
public:
  static std::unique_ptr<DeviceCollective>
  create(const std::vector<CudaDevice *> &members, std::string &why);
  ~NcclCollective() override {
    const cuda::NcclLibrary &nccl = cuda::NcclLibrary::get();
    for (ncclComm_t comm : comms_)
      if (comm)
        nccl.ncclCommDestroy(comm);
  }
  Status allReduce(size_t member, const void *input, void *output,
                   const TensorType &type, int64_t divisor,
                   int stream) override;
  std::string name() const override { return name_; }

private:
  std::vector<CudaDevice *> members_;
  std::vector<ncclComm_t> comms_;
  std::string name_;
  /// A communicator is not thread-safe: one call at a time per member
  /// (the collectives of a device all run on its collective stream).
  std::vector<std::unique_ptr<std::mutex>> locks_;
};

Status ncclStatus(ncclResult_t result, const char *call) {
  if (result == ncclSuccess)
    return Status::ok();
  const cuda::NcclLibrary &nccl = cuda::NcclLibrary::get();
  return Status::internal(
      std::string(call) + " failed: " +
      (nccl.ncclGetErrorString ? nccl.ncclGetErrorString(result) : "?"));
}

class CudaDevice final : public Device {
public:
  CudaDevice(DeviceName name, std::string description, int64_t limit,
             std::shared_ptr<PhysicalGpu> gpu, bool allowTf32)
      : Device(std::move(name), std::move(description), limit),
        gpu_(std::move(gpu)), allowTf32_(allowTf32),
        cudnn_(allowTf32, gpu_->context, gpu_->ccMajor) {}

  Status open(bool allowGrowth) {
    const CudaLibraries &libs = CudaLibraries::get();
    GPLACE_RETURN_IF_ERROR(activate());
    for (CUstream &stream : streams_)
      GPLACE_CU_CHECK(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
    GPLACE_CUBLAS_CHECK(cublasCreate, &cublas_);
    GPLACE_CUBLAS_CHECK(cublasSetStream, cublas_, streams_[0]);
    GPLACE_CUBLAS_CHECK(cublasSetMathMode, cublas_,
                        allowTf32_ ? CUBLAS_TF32_TENSOR_OP_MATH
                                   : CUBLAS_DEFAULT_MATH);
    // Growth: freed memory stays in the pool instead of going back to the
    // driver (TensorFlow's allow_growth never gives memory back either).
    CUmemoryPool pool = nullptr;
    GPLACE_CU_CHECK(cuDeviceGetDefaultMemPool, &pool, gpu_->device);
    cuuint64_t threshold = ~cuuint64_t(0);
    GPLACE_CU_CHECK(cuMemPoolSetAttribute, pool,
                    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
    if (!allowGrowth && memoryLimit() > 0) {
      // Reserve the whole limit now, as TensorFlow does without growth.
      CUdeviceptr reserved = 0;
      GPLACE_CU_CHECK(cuMemAllocAsync, &reserved, memoryLimit(), streams_[0]);
      GPLACE_CU_CHECK(cuMemFreeAsync, reserved, streams_[0]);
      GPLACE_CU_CHECK(cuStreamSynchronize, streams_[0]);
    }
    (void)libs;
    return Status::ok();
  }

  ~CudaDevice() override {
    const CudaLibraries &libs = CudaLibraries::get();
    if (!libs.driverError.empty() || !activate())
      return;
    cudnn_.release(); // Its handle uses the streams.
    for (CUstream stream : streams_)
      if (stream) {
        libs.cuStreamSynchronize(stream);
        libs.cuStreamDestroy(stream);
      }
    if (cublas_)
      libs.cublasDestroy(cublas_);
    for (auto &entry : modules_)
      libs.cuModuleUnload(entry.second.module);
    if (peerStaging_)
      libs.cuMemFreeHost(peerStaging_);
    if (ones_)
      libs.cuMemFree(ones_);
    for (CUevent event : {forkEvent_, joinEvent_})
      if (event)
        libs.cuEventDestroy(event);
  }

  bool isHostMemory() const override { return false; }

  StatusOr<void *> allocateHostStaging(int64_t bytes) override {
    GPLACE_RETURN_IF_ERROR(activate());
    void *memory = nullptr;
    GPLACE_CU_CHECK(cuMemHostAlloc, &memory,
                    std::max<int64_t>(bytes, 1), 0);
    return memory;
  }

  void deallocateHostStaging(void *memory) override {
    if (activate())
      CudaLibraries::get().cuMemFreeHost(memory);
  }

  bool kernelTakesWorkspace(Kernel kernel) const override {
    return cuda::CudnnKernels::takesWorkspace(kernel);
  }

  StatusOr<int64_t> workspaceBytes(const KernelCall &call) override {
    if (!cuda::CudnnKernels::takesWorkspace(call.kernel))
      return int64_t(0);
    GPLACE_RETURN_IF_ERROR(activate());
    return cudnn_.workspaceBytes(call);
  }

  Status prepare(const KernelCall &call) override {
    if (isCudnnKernel(call.kernel)) {
      GPLACE_RETURN_IF_ERROR(activate());
      return cudnn_.prepare(call, /*stream=*/0);
    }
    if (std::optional<ColumnReduction> columns = columnReduction(call)) {
      GPLACE_RETURN_IF_ERROR(activate());
      return ensureOnes(columns->rows);
    }
    if (!isNvrtcKernel(call.kernel))
      return Status::ok();
    StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
    if (!kernel)
      return kernel.status();
    StatusOr<Compiled> compiled = load(*kernel);
    if (!compiled)
      return compiled.status();
    // In the launch's state slot, which the executor frees with the plan
    // (a map by address would hand a later plan's launch at the same
    // address this one's kernel); by address where it has none.
    if (call.state) {
      auto state = std::make_unique<NvrtcLaunch>();
      state->compiled = *compiled;
      *call.state = std::move(state);
      return Status::ok();
    }
    std::lock_guard<std::mutex> lock(kernelsMutex_);
    kernels_[&call] = *compiled;
    return Status::ok();
  }

  Status prepareFused(const FusedCall &fused) override {
    StatusOr<CudaKernelSource> kernel = generateFusedCudaKernel(fused);
    if (!kernel)
      return kernel.status();
    StatusOr<Compiled> compiled = load(*kernel);
    if (!compiled)
      return compiled.status();
    std::lock_guard<std::mutex> lock(kernelsMutex_);
    fusedKernels_[&fused] = {*compiled, std::move(kernel->arguments)};
    return Status::ok();
  }

  Status launchFused(const FusedCall &fused, int stream) override {
    GPLACE_RETURN_IF_ERROR(activate());
    const FusedKernel *kernel = nullptr;
    {
      std::lock_guard<std::mutex> lock(kernelsMutex_);
      auto it = fusedKernels_.find(&fused);
      if (it != fusedKernels_.end())
        kernel = &it->second;
    }
    if (!kernel) {
      GPLACE_RETURN_IF_ERROR(prepareFused(fused));
      std::lock_guard<std::mutex> lock(kernelsMutex_);
      kernel = &fusedKernels_[&fused];
    }
    std::vector<CUdeviceptr> pointers;
    for (void *argument : kernel->arguments)
      pointers.push_back(reinterpret_cast<CUdeviceptr>(argument));
    return run(kernel->compiled, pointers, streams_[stream]);
  }

  Status launch(const KernelCall &call, int stream) override {
    GPLACE_RETURN_IF_ERROR(activate());
    CUstream s = streams_[stream];
    if (isCudnnKernel(call.kernel))
      return cudnn_.launch(call, s, stream);
    switch (call.kernel) {
    case Kernel::Matmul:
      return gemm(call, s);
    case Kernel::MatmulAccumulate:
      return gemm(call, s, /*accumulate=*/true);
    case Kernel::Read:
    case Kernel::Assign:
      if (call.outputs[0].data == call.inputs[0].data)
        return Status::ok();
      GPLACE_CU_CHECK(cuMemcpyDtoDAsync,
                      reinterpret_cast<CUdeviceptr>(call.outputs[0].data),
                      reinterpret_cast<CUdeviceptr>(call.inputs[0].data),
                      call.outputs[0].type->bytes(), s);
      return Status::ok();
    default:
      break;
    }
    if (std::optional<ColumnReduction> columns = columnReduction(call))
      return reduceColumns(call, *columns, s);
    Compiled compiled = prepared(call);
    if (!compiled.function) {
      GPLACE_RETURN_IF_ERROR(prepare(call));
      compiled = prepared(call);
    }
    std::vector<CUdeviceptr> pointers;
    for (const TensorRef &ref : call.inputs)
      pointers.push_back(reinterpret_cast<CUdeviceptr>(ref.data));
    for (const TensorRef &ref : call.outputs)
      pointers.push_back(reinterpret_cast<CUdeviceptr>(ref.data));
    return run(compiled, pointers, s);
  }

  Status copyFrom(void *target, const Device &sourceDevice, const void *source,
                  int64_t bytes, int stream) override {
    GPLACE_RETURN_IF_ERROR(activate());
    CUstream s = streams_[stream];
    CUdeviceptr dst = reinterpret_cast<CUdeviceptr>(target);
    if (sourceDevice.isHostMemory()) {
      GPLACE_CU_CHECK(cuMemcpyHtoDAsync, dst, source, bytes, s);
      return Status::ok();
    }
    const auto &from = static_cast<const CudaDevice &>(sourceDevice);
    CUdeviceptr src = reinterpret_cast<CUdeviceptr>(source);
    if (from.gpu_ == gpu_) {
      GPLACE_CU_CHECK(cuMemcpyDtoDAsync, dst, src, bytes, s);
      return Status::ok();
    }
    if (from.gpu_->peers.count(gpu_->ordinal)) {
      GPLACE_CU_CHECK(cuMemcpyPeerAsync, dst, gpu_->context, src,
                      from.gpu_->context, bytes, s);
      return Status::ok();
    }
    // No peer access: through pinned host memory (kept for the next such
    // copy), once the source is done.
    GPLACE_RETURN_IF_ERROR(from.synchronizeStreams());
    std::lock_guard<std::mutex> lock(peerStagingMutex_);
    if (peerStagingBytes_ < bytes) {
      if (peerStaging_)
        deallocateHostStaging(peerStaging_);
      peerStaging_ = nullptr;
      peerStagingBytes_ = 0;
      StatusOr<void *> staging = allocateHostStaging(bytes);
      if (!staging)
        return staging.status();
      peerStaging_ = *staging;
      peerStagingBytes_ = bytes;
    }
    GPLACE_RETURN_IF_ERROR(from.download(peerStaging_, source, bytes));
    GPLACE_RETURN_IF_ERROR(activate());
    GPLACE_CU_CHECK(cuMemcpyHtoD, dst, peerStaging_, bytes);
    return Status::ok();
  }

  Status upload(void *target, const void *host, int64_t bytes) override {
    GPLACE_RETURN_IF_ERROR(activate());
    GPLACE_CU_CHECK(cuMemcpyHtoD, reinterpret_cast<CUdeviceptr>(target), host,
                    bytes);
    return Status::ok();
  }

  Status download(void *host, const void *source,
                  int64_t bytes) const override {
    GPLACE_RETURN_IF_ERROR(activate());
    GPLACE_CU_CHECK(cuMemcpyDtoH, host, reinterpret_cast<CUdeviceptr>(source),
                    bytes);
    return Status::ok();
  }

  std::unique_ptr<DeviceEvent> createEvent() override {
    auto event = std::make_unique<CudaEvent>();
    if (!activate() || CudaLibraries::get().cuEventCreate(
                           &event->event, CU_EVENT_DISABLE_TIMING) !=
                           CUDA_SUCCESS)
      event->event = nullptr;
    return event;
  }

  Status recordEvent(DeviceEvent *event, int stream) override {
    auto *cudaEvent = static_cast<CudaEvent *>(event);
    if (!cudaEvent || !cudaEvent->event)
      return Status::internal("no CUDA event to record");
    GPLACE_RETURN_IF_ERROR(activate());
    GPLACE_CU_CHECK(cuEventRecord, cudaEvent->event, streams_[stream]);
    return Status::ok();
  }

  Status waitEvent(const Device &recorder, DeviceEvent *event,
                   int stream) override {
    // A host device's event was reached before the executor got here; a
    // CUDA event (of any GPU) is waited for on the stream, asynchronously.
    auto *cudaEvent = dynamic_cast<CudaEvent *>(event);
    if (!cudaEvent)
      return Status::ok();
    GPLACE_RETURN_IF_ERROR(activate());
    GPLACE_CU_CHECK(cuStreamWaitEvent, streams_[stream], cudaEvent->event, 0);
    return Status::ok();
  }

  Status synchronizeEvent(DeviceEvent *event) const override {
    auto *cudaEvent = static_cast<CudaEvent *>(event);
    GPLACE_RETURN_IF_ERROR(activate());
    GPLACE_CU_CHECK(cuEventSynchronize, cudaEvent->event);
    return Status::ok();
  }

  Status synchronize() override { return synchronizeStreams(); }

  bool sharesMemoryWith(const Device &other) const override {
    auto *cuda = dynamic_cast<const CudaDevice *>(&other);
    return cuda && cuda->gpu_ == gpu_;
  }

  Status reduceSlice(const std::vector<const void *> &inputs,
                     const std::vector<void *> &outputs, ElementType type,
                     int64_t divisor, int64_t begin, int64_t end,
                     int stream) override {
    if (begin >= end)
      return Status::ok();
    // The kernel of this member's slice, generated and loaded once.
    auto key = std::make_tuple(inputs.size(), static_cast<int>(type), divisor,
                               begin, end);
    Compiled compiled;
    {
      std::lock_guard<std::mutex> lock(kernelsMutex_);
      auto it = reduceKernels_.find(key);
      if (it != reduceKernels_.end())
        compiled = it->second;
    }
    if (!compiled.function) {
      StatusOr<CudaKernelSource> kernel = generateAllReduceCudaKernel(
          inputs.size(), type, divisor, begin, end);
      if (!kernel)
        return kernel.status();
      StatusOr<Compiled> loaded = load(*kernel);
      if (!loaded)
        return loaded.status();
      compiled = *loaded;
      std::lock_guard<std::mutex> lock(kernelsMutex_);
      reduceKernels_[key] = compiled;
    }
    GPLACE_RETURN_IF_ERROR(activate());
    std::vector<CUdeviceptr> pointers;
    for (const void *input : inputs)
      pointers.push_back(reinterpret_cast<CUdeviceptr>(input));
    for (void *output : outputs)
      pointers.push_back(reinterpret_cast<CUdeviceptr>(output));
    return run(compiled, pointers, streams_[stream]);
  }

  std::unique_ptr<DeviceCollective>
  createCollective(const std::vector<Device *> &members,
                   std::string &why) override {
    std::vector<CudaDevice *> gpus;
    std::set<int> physical;
    for (Device *member : members) {
      auto *cuda = dynamic_cast<CudaDevice *>(member);
      if (!cuda || !physical.insert(cuda->gpu_->ordinal).second)
        return nullptr; // Not all CUDA GPUs, or two share one GPU.
      gpus.push_back(cuda);
    }
    return NcclCollective::create(gpus, why);
  }

  /// The CUDA stream `stream` (for NCCL) and the physical GPU's ordinal.
  CUstream stream(int index) const { return streams_[index]; }
  int ordinal() const { return gpu_->ordinal; }
  Status makeCurrent() const { return activate(); }

  bool canCaptureGraphs() const override { return true; }

  /// Captures from the compute stream; the copy stream joins the capture
  /// through an event (the fork of CUDA's cross-stream capture) and is
  /// joined back before it ends. Relaxed mode: the executor's stream
  /// threads issue work concurrently.
  Status beginGraphCapture() override {
    GPLACE_RETURN_IF_ERROR(activate());
    for (CUevent *event : {&forkEvent_, &joinEvent_})
      if (!*event)
        GPLACE_CU_CHECK(cuEventCreate, event, CU_EVENT_DISABLE_TIMING);
    GPLACE_CU_CHECK(cuStreamBeginCapture, streams_[0],
                    CU_STREAM_CAPTURE_MODE_RELAXED);
    capturing_ = true;
    Status forked = order(forkEvent_, streams_[0], streams_[1]);
    if (!forked)
      (void)endGraphCapture(); // Ends the capture; the graph is discarded.
    return forked;
  }

  StatusOr<std::unique_ptr<DeviceGraph>> endGraphCapture() override {
    if (!capturing_)
      return Status::internal(fullName() + " is not capturing a graph");
    capturing_ = false;
    GPLACE_RETURN_IF_ERROR(activate());
    // The join, then the end; the capture ends even if the join failed.
    Status joined = order(joinEvent_, streams_[1], streams_[0]);
    auto graph = std::make_unique<CudaGraph>();
    GPLACE_CU_CHECK(cuStreamEndCapture, streams_[0], &graph->graph);
    GPLACE_RETURN_IF_ERROR(joined);
    GPLACE_CU_CHECK(cuGraphInstantiate, &graph->exec, graph->graph, 0);
    return std::unique_ptr<DeviceGraph>(std::move(graph));
  }

  /// Makes `to` wait for the work queued on `from` so far, through
  /// `event`.
  static Status order(CUevent event, CUstream from, CUstream to) {
    const CudaLibraries &libs = CudaLibraries::get();
    GPLACE_RETURN_IF_ERROR(
        cuda::cuStatus(libs.cuEventRecord(event, from), "cuEventRecord"));
    return cuda::cuStatus(libs.cuStreamWaitEvent(to, event, 0),
                          "cuStreamWaitEvent");
  }

  Status launchGraph(DeviceGraph &graph) override {
    GPLACE_RETURN_IF_ERROR(activate());
    GPLACE_CU_CHECK(cuGraphLaunch, static_cast<CudaGraph &>(graph).exec,
                    streams_[0]);
    return Status::ok();
  }

protected:
  StatusOr<void *> allocateMemory(int64_t bytes) override {
    GPLACE_RETURN_IF_ERROR(activate());
    CUdeviceptr memory = 0;
    Status status = cuda::cuStatus(
        CudaLibraries::get().cuMemAllocAsync(&memory, std::max<int64_t>(bytes, 1),
                                             streams_[0]),
        "cuMemAllocAsync");
    if (!status)
      return Status::outOfMemory("cannot allocate " + std::to_string(bytes) +
                           " bytes on " + fullName() + " (limit " +
                           std::to_string(memoryLimit()) +
                           " bytes): " + status.message());
    GPLACE_CU_CHECK(cuMemsetD8Async, memory, 0, bytes, streams_[0]);
    GPLACE_CU_CHECK(cuStreamSynchronize, streams_[0]);
    return reinterpret_cast<void *>(memory);
  }

  void deallocateMemory(void *memory, int64_t) override {
    const CudaLibraries &libs = CudaLibraries::get();
    if (!activate())
      return;
    libs.cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(memory), streams_[0]);
    libs.cuStreamSynchronize(streams_[0]);
  }

private:
  struct Compiled {
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    int64_t threads = 0;
  };
  /// An NVRTC launch's kernel, in its KernelCall::state.
  struct NvrtcLaunch final : KernelState {
    Compiled compiled;
  };

  /// The kernel prepare() loaded for `call` (none: a null function).
  Compiled prepared(const KernelCall &call) {
    if (call.state) {
      auto *state = dynamic_cast<NvrtcLaunch *>(call.state->get());
      return state ? state->compiled : Compiled();
    }
    std::lock_guard<std::mutex> lock(kernelsMutex_);
    auto it = kernels_.find(&call);
    return it != kernels_.end() ? it->second : Compiled();
  }

  /// Compiles `kernel` (through the kernel cache) and loads it, once per
  /// source: launches with the same shapes and types share one module.
  StatusOr<Compiled> load(const CudaKernelSource &kernel) {
    std::lock_guard<std::mutex> lock(kernelsMutex_);
    auto loaded = modules_.find(kernel.source);
    if (loaded == modules_.end()) {
      StatusOr<std::string> ptx = compileCudaKernel(kernel, arch());
      if (!ptx)
        return ptx.status();
      GPLACE_RETURN_IF_ERROR(activate());
      Compiled compiled;
      compiled.threads = kernel.threads;
      GPLACE_CU_CHECK(cuModuleLoadData, &compiled.module, ptx->c_str());
      GPLACE_CU_CHECK(cuModuleGetFunction, &compiled.function,
                      compiled.module, kernel.entry.c_str());
      loaded = modules_.emplace(kernel.source, compiled).first;
    }
    return loaded->second;
  }

  /// Launches `compiled` on `stream`, one thread per work item, with the
  /// device pointers `pointers` as its parameters.
  Status run(const Compiled &compiled, std::vector<CUdeviceptr> &pointers,
             CUstream stream) {
    if (compiled.threads == 0)
      return Status::ok();
    std::vector<void *> args;
    for (CUdeviceptr &pointer : pointers)
      args.push_back(&pointer);
    // A long reduction's kernel takes one block per result.
    constexpr unsigned kBlock = kCudaThreadsPerBlock;
    unsigned grid =
        static_cast<unsigned>((compiled.threads + kBlock - 1) / kBlock);
    GPLACE_CU_CHECK(cuLaunchKernel, compiled.function, grid, 1, 1, kBlock, 1,
                    1, 0, stream, args.data(), nullptr);
    return Status::ok();
  }

  Status activate() const {
    return cuda::cuStatus(CudaLibraries::get().cuCtxSetCurrent(gpu_->context),
                          "cuCtxSetCurrent");
  }

  Status synchronizeStreams() const {
    GPLACE_RETURN_IF_ERROR(activate());
    for (CUstream stream : streams_)
      GPLACE_CU_CHECK(cuStreamSynchronize, stream);
    return Status::ok();
  }

  std::string arch() const {
    return "sm_" + std::to_string(gpu_->ccMajor) + std::to_string(gpu_->ccMinor);
  }

  /// A reduce_sum or reduce_mean of f32 over the leading axes of its input
  /// (a bias's gradient over a batch of images: axes 0, 1 and 2 of NHWC),
  /// with at least kColumnReductionRows rows: the input as a row-major
  /// [rows, columns] matrix whose columns are the results.
  struct ColumnReduction {
    int64_t rows, columns;
  };
  static constexpr int64_t kColumnReductionRows = 1024;
  static std::optional<ColumnReduction>
  columnReduction(const KernelCall &call) {
    if ((call.kernel != Kernel::ReduceSum &&
         call.kernel != Kernel::ReduceMean) ||
        !call.params || call.inputs.empty() ||
        call.inputs[0].type->elementType != ElementType::F32)
      return std::nullopt;
    const TensorType &in = *call.inputs[0].type;
    std::vector<int64_t> axes = call.params->axes;
    std::sort(axes.begin(), axes.end());
    int64_t rows = 1;
    for (size_t k = 0; k < axes.size(); ++k) {
      if (axes[k] != static_cast<int64_t>(k))
        return std::nullopt;
      rows *= in.shape[k];
    }
    int64_t elements = in.numElements();
    if (axes.empty() || rows < kColumnReductionRows || elements <= 0 ||
        elements / rows > std::numeric_limits<int>::max() ||
        rows > std::numeric_limits<int>::max())
      return std::nullopt;
    return ColumnReduction{rows, elements / rows};
  }

  /// A vector of at least `rows` f32 ones on this device, for
  /// reduceColumns; allocated when a plan loads (prepare), outside the
  /// plan's memory, as cuDNN's average-pool factors are.
  Status ensureOnes(int64_t rows) {
    std::lock_guard<std::mutex> lock(onesMutex_);
    if (rows <= onesLength_)
      return Status::ok();
    const CudaLibraries &libs = CudaLibraries::get();
    if (ones_) {
      GPLACE_CU_CHECK(cuStreamSynchronize, streams_[0]);
      libs.cuMemFree(ones_);
      ones_ = 0;
      onesLength_ = 0;
    }
    GPLACE_CU_CHECK(cuMemAlloc, &ones_, static_cast<size_t>(rows) * 4);
    GPLACE_CU_CHECK(cuMemsetD32Async, ones_, 0x3f800000u /* 1.0f */,
                    static_cast<size_t>(rows), streams_[0]);
    GPLACE_CU_CHECK(cuStreamSynchronize, streams_[0]);
    onesLength_ = rows;
    return Status::ok();
  }

  /// The column sums (times 1/rows for a mean) of a column reduction as
  /// one cuBLAS product, [columns x rows] column-major times a vector of
  /// ones: reads the input coalesced, across the whole GPU, where the
  /// NVRTC block reduction (a block per result) strides through it with
  /// one block per channel (93 us for conv_net's first bias gradient on
  /// an H200, bench/results/2026-12-01-h200.md). As Caffe's bias
  /// gradient (a gemv with a ones multiplier). Strict f32 (no TF32);
  /// cuBLAS's results are the same bits every run on one GPU.
  Status reduceColumns(const KernelCall &call, const ColumnReduction &columns,
                       CUstream stream) {
    if (columns.rows > onesLength_)
      GPLACE_RETURN_IF_ERROR(ensureOnes(columns.rows));
    int m = static_cast<int>(columns.columns), k = static_cast<int>(columns.rows);
    float alpha = call.kernel == Kernel::ReduceMean
                      ? 1.0f / static_cast<float>(columns.rows)
                      : 1.0f;
    float beta = 0;
    GPLACE_CUBLAS_CHECK(cublasSetStream, cublas_, stream);
    GPLACE_CUBLAS_CHECK(cublasGemmEx, cublas_, CUBLAS_OP_N, CUBLAS_OP_N, m, 1,
                        k, &alpha, call.inputs[0].data, CUDA_R_32F, m,
                        reinterpret_cast<const void *>(ones_), CUDA_R_32F, k,
                        &beta, call.outputs[0].data, CUDA_R_32F, m,
                        CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT);
    return Status::ok();
  }

  /// Row-major C = op(A) op(B) as column-major C^T = op(B)^T op(A)^T;
  /// with `accumulate` (matmul_accumulate), C = op(A) op(B) + C with beta =
  /// 1, C the accumulator (inputs[0]), copied to the output first unless
  /// the memory plan put the output over it.
  Status gemm(const KernelCall &call, CUstream stream,
              bool accumulate = false) {
    const TensorRef &lhs = call.inputs[accumulate ? 1 : 0],
                    &rhs = call.inputs[accumulate ? 2 : 1];
    const TensorType &a = *lhs.type, &b = *rhs.type;
    bool ta = call.params->transposeA, tb = call.params->transposeB;
    int m = static_cast<int>(ta ? a.shape[1] : a.shape[0]);
    int k = static_cast<int>(ta ? a.shape[0] : a.shape[1]);
    int n = static_cast<int>(tb ? b.shape[0] : b.shape[1]);
    if (m == 0 || n == 0)
      return Status::ok();
    cudaDataType type;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    switch (a.elementType) {
    case ElementType::F32:
      type = CUDA_R_32F;
      if (allowTf32_)
        compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      break;
    case ElementType::F16:
      type = CUDA_R_16F;
      break;
    case ElementType::BF16:
      type = CUDA_R_16BF;
      break;
    case ElementType::F64:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      break;
    default:
      return Status::invalidArgument("no GPU kernel for gplace.matmul with element type " +
                           std::string(elementTypeName(a.elementType)));
    }
    if (accumulate && call.outputs[0].data != call.inputs[0].data)
      GPLACE_CU_CHECK(cuMemcpyDtoDAsync,
                      reinterpret_cast<CUdeviceptr>(call.outputs[0].data),
                      reinterpret_cast<CUdeviceptr>(call.inputs[0].data),
                      call.outputs[0].type->bytes(), stream);
    float alpha32 = 1, beta32 = accumulate ? 1 : 0;
    double alpha64 = 1, beta64 = accumulate ? 1 : 0;
    const void *alpha = compute == CUBLAS_COMPUTE_64F
                            ? static_cast<const void *>(&alpha64)
                            : static_cast<const void *>(&alpha32);
    const void *beta = compute == CUBLAS_COMPUTE_64F
                           ? static_cast<const void *>(&beta64)
                           : static_cast<const void *>(&beta32);
    GPLACE_CUBLAS_CHECK(cublasSetStream, cublas_, stream);
    GPLACE_CUBLAS_CHECK(cublasGemmEx, cublas_, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                        ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, alpha,
                        rhs.data, type,
                        static_cast<int>(b.shape[1]), lhs.data, type,
                        static_cast<int>(a.shape[1]), beta,
                        call.outputs[0].data, type, n, compute,
                        CUBLAS_GEMM_DEFAULT);
    return Status::ok();
  }

  std::shared_ptr<PhysicalGpu> gpu_;
  bool allowTf32_;
  cuda::CudnnKernels cudnn_; ///< Destroyed with the context current.
  /// Compute, copy, collective (plan::kNumStreams).
  CUstream streams_[3] = {nullptr, nullptr, nullptr};
  cublasHandle_t cublas_ = nullptr;
  CUdeviceptr ones_ = 0; ///< reduceColumns' vector of ones.
  int64_t onesLength_ = 0;
  std::mutex onesMutex_; ///< Plans load (prepare) on several threads.
  std::mutex kernelsMutex_;
  std::map<const KernelCall *, Compiled> kernels_; ///< Calls without state.
  std::map<std::string, Compiled> modules_; ///< By kernel source.
  /// Device-side all-reduce kernels, by (members, element type, divisor,
  /// slice begin, slice end).
  std::map<std::tuple<size_t, int, int64_t, int64_t, int64_t>, Compiled>
      reduceKernels_;
  struct FusedKernel {
    Compiled compiled;
    std::vector<void *> arguments;
  };
  std::map<const FusedCall *, FusedKernel> fusedKernels_;
  std::mutex peerStagingMutex_;
  void *peerStaging_ = nullptr; ///< Pinned, for copies without peer access.
  bool capturing_ = false;
  CUevent forkEvent_ = nullptr, joinEvent_ = nullptr; ///< Of a capture.
  int64_t peerStagingBytes_ = 0;
};

std::unique_ptr<DeviceCollective>
NcclCollective::create(const std::vector<CudaDevice *> &members,
                       std::string &why) {
  const cuda::NcclLibrary &nccl = cuda::NcclLibrary::get();
  if (!nccl.error.empty()) {
    why = "NCCL is not available (" + nccl.error + ")";
    return nullptr;
  }
  auto collective = std::make_unique<NcclCollective>();
  collective->members_ = members;
  collective->comms_.assign(members.size(), nullptr);
  for (size_t i = 0; i < members.size(); ++i)
    collective->locks_.push_back(std::make_unique<std::mutex>());
  std::vector<int> ordinals;
  for (CudaDevice *member : members)
    ordinals.push_back(member->ordinal());
  if (Status status = ncclStatus(
          nccl.ncclCommInitAll(collective->comms_.data(),
                               static_cast<int>(members.size()),
                               ordinals.data()),
          "ncclCommInitAll");
      !status) {
    collective->comms_.clear();
    why = status.message();
    return nullptr;
  }
  int version = 0;
  nccl.ncclGetVersion(&version);
  // NCCL 2.19 and later: major * 10000 + minor * 100 + patch.
  collective->name_ = "NCCL " + std::to_string(version / 10000) + "." +
                      std::to_string(version / 100 % 100) + "." +
                      std::to_string(version % 100);
  return collective;
}

Status NcclCollective::allReduce(size_t member, const void *input,
                                 void *output, const TensorType &type,
                                 int64_t divisor, int stream) {
  ncclDataType_t dataType;
  switch (type.elementType) {
  case ElementType::F32:
    dataType = ncclFloat32;
    break;
  case ElementType::F16:
    dataType = ncclFloat16;
    break;
  case ElementType::BF16:
    dataType = ncclBfloat16;
    break;
  case ElementType::F64:
    dataType = ncclFloat64;
    break;
  default:
    return Status::invalidArgument(
        "no NCCL all-reduce of element type " +
        std::string(elementTypeName(type.elementType)));
  }
  CudaDevice &device = *members_[member];
  std::lock_guard<std::mutex> lock(*locks_[member]);
  GPLACE_RETURN_IF_ERROR(device.makeCurrent());
  const cuda::NcclLibrary &nccl = cuda::NcclLibrary::get();
  GPLACE_RETURN_IF_ERROR(ncclStatus(
      nccl.ncclAllReduce(input, output,
                         static_cast<size_t>(type.numElements()), dataType,
                         ncclSum, comms_[member],
                         reinterpret_cast<cudaStream_t>(device.stream(stream))),
      "ncclAllReduce"));
  if (divisor)
    return device.reduceSlice({output}, {output}, type.elementType, divisor, 0,
                              type.numElements(), stream);
  return Status::ok();
}

std::string pciBusId(const CudaLibraries &libs, CUdevice device) {
  int domain = 0, bus = 0, slot = 0;
  libs.cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device);
  libs.cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device);
  libs.cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device);
  char text[32];
  std::snprintf(text, sizeof(text), "%04x:%02x:%02x.0", domain, bus, slot);
  return text;
}

} // namespace

CudaDiscovery addCudaDevices(DeviceManager &devices,
                             const CudaOptions &options) {
  CudaDiscovery result;
  const CudaLibraries &libs = CudaLibraries::get();
  auto none = [&](const std::string &why) {
    result.note = "CUDA: no GPU (" + why + ")";
    return result;
  };
  if (!libs.driverError.empty())
    return none(libs.driverError);
  if (Status status = cuda::cuStatus(libs.cuInit(0), "cuInit"); !status)
    return none(status.message());
  if (!libs.cublasError.empty())
    return none("cuBLAS is not available: " + libs.cublasError);
  if (!libs.nvrtcError.empty())
    return none("NVRTC is not available: " + libs.nvrtcError);
  int count = 0;
  if (Status status =
          cuda::cuStatus(libs.cuDeviceGetCount(&count), "cuDeviceGetCount");
      !status)
    return none(status.message());
  if (count == 0)
    return none("no CUDA-capable device is visible");
  if (!(options.memoryFraction >= 0 && options.memoryFraction <= 1))
    return none("--gpu-memory-fraction must be in (0, 1]");
  for (const auto &[ordinal, limits] : options.logicalGpus)
    if (ordinal < 0 || ordinal >= count)
      return none("--logical-gpus splits GPU " + std::to_string(ordinal) +
                  ", but there are " + std::to_string(count));

  std::vector<std::shared_ptr<PhysicalGpu>> gpus;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    auto gpu = std::make_shared<PhysicalGpu>();
    gpu->ordinal = ordinal;
    char name[256] = {};
    if (Status status = cuda::cuStatus(libs.cuDeviceGet(&gpu->device, ordinal),
                                       "cuDeviceGet");
        !status)
      return none(status.message());
    libs.cuDeviceGetName(name, sizeof(name), gpu->device);
    gpu->name = name;
    libs.cuDeviceGetAttribute(&gpu->ccMajor,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                              gpu->device);
    libs.cuDeviceGetAttribute(&gpu->ccMinor,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                              gpu->device);
    libs.cuDeviceTotalMem(&gpu->totalMemory, gpu->device);
    gpu->pciBusId = pciBusId(libs, gpu->device);
    if (Status status = cuda::cuStatus(
            libs.cuDevicePrimaryCtxRetain(&gpu->context, gpu->device),
            "cuDevicePrimaryCtxRetain");
        !status)
      return none(status.message());
    gpus.push_back(gpu);
  }
  for (auto &from : gpus)
    for (auto &to : gpus) {
      int can = 0;
      if (from == to || libs.cuDeviceCanAccessPeer(&can, from->device,
                                                   to->device) != CUDA_SUCCESS ||
          !can)
        continue;
      libs.cuCtxSetCurrent(from->context);
      CUresult enabled = libs.cuCtxEnablePeerAccess(to->context, 0);
      if (enabled == CUDA_SUCCESS ||
          enabled == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        from->peers.insert(to->ordinal);
    }

  std::string found;
  int id = 0;
  for (auto &gpu : gpus) {
    int64_t total = static_cast<int64_t>(gpu->totalMemory);
    int64_t limit = total;
    if (options.memoryLimit > 0)
      limit = std::min(limit, options.memoryLimit);
    else if (options.memoryFraction > 0)
      limit = std::max<int64_t>(
          1, static_cast<int64_t>(options.memoryFraction * total));
    std::vector<int64_t> limits = {limit};
    if (auto it = options.logicalGpus.find(gpu->ordinal);
        it != options.logicalGpus.end())
      limits = it->second;
    std::string description =
        "device: " + std::to_string(gpu->ordinal) + ", name: " + gpu->name +
        ", pci bus id: " + gpu->pciBusId + ", compute capability: " +
        std::to_string(gpu->ccMajor) + "." + std::to_string(gpu->ccMinor);
    for (int64_t logicalLimit : limits) {
      auto device = std::make_unique<CudaDevice>(
          DeviceName::local(DeviceType::GPU, id), description, logicalLimit,
          gpu, options.allowTf32);
      if (Status status = device->open(options.allowGrowth); !status)
        return none("GPU " + std::to_string(gpu->ordinal) + ": " +
                    status.message());
      devices.addDevice(std::move(device));
      ++id;
      ++result.gpus;
    }
    found += (found.empty() ? "" : ", ") + gpu->name + " (" + gpu->pciBusId +
             ", compute capability " + std::to_string(gpu->ccMajor) + "." +
             std::to_string(gpu->ccMinor) + ")";
  }
  result.note = "CUDA: " + std::to_string(result.gpus) + " GPU" +
                (result.gpus == 1 ? "" : "s") + ": " + found + "; " +
                cudnnNote();
  return result;
}

} // namespace gplace::runtime
