//===- Unavailable.cpp - the CUDA backend when built without the toolkit --===//

#include "gplace/Runtime/Cuda.h"

namespace gplace::runtime {

CudaDiscovery addCudaDevices(DeviceManager &, const CudaOptions &) {
  return {0, "CUDA: no GPU (gplace was built without the CUDA toolkit's "
             "headers)"};
}

bool isNvrtcKernel(Kernel) { return false; }

bool isCudnnKernel(Kernel) { return false; }

std::string cudnnNote() {
  return "no cuDNN (gplace was built without the CUDA toolkit's headers)";
}

StatusOr<CudaKernelSource> generateCudaKernel(const KernelCall &) {
  return Status::unavailable("gplace was built without CUDA");
}

StatusOr<CudaKernelSource> generateAllReduceCudaKernel(size_t, ElementType,
                                                       int64_t, int64_t,
                                                       int64_t) {
  return Status::unavailable("gplace was built without CUDA");
}

StatusOr<std::string> compileCudaKernel(const CudaKernelSource &,
                                        const std::string &) {
  return Status::unavailable("gplace was built without CUDA");
}

std::string nvrtcUnavailableReason() {
  return "gplace was built without the CUDA toolkit's headers";
}

KernelCacheStats kernelCacheStats() { return {}; }

} // namespace gplace::runtime
