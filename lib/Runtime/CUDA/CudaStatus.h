//===- CudaStatus.h - CUDA, cuBLAS and NVRTC errors as Status ---*- C++ -*-===//

#ifndef GPLACE_LIB_RUNTIME_CUDA_CUDASTATUS_H
#define GPLACE_LIB_RUNTIME_CUDA_CUDASTATUS_H

#include "DynamicSymbols.h"

#include "gplace/Runtime/Status.h"

namespace gplace::runtime::cuda {

/// "cuMemAllocAsync failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)": out
/// of memory for CUDA_ERROR_OUT_OF_MEMORY, unavailable without a device,
/// else internal.
inline Status cuStatus(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  const CudaLibraries &libs = CudaLibraries::get();
  const char *name = "?", *text = "?";
  if (libs.cuGetErrorName)
    libs.cuGetErrorName(result, &name);
  if (libs.cuGetErrorString)
    libs.cuGetErrorString(result, &text);
  StatusCode code = result == CUDA_ERROR_OUT_OF_MEMORY ? StatusCode::OutOfMemory
                    : result == CUDA_ERROR_NO_DEVICE ? StatusCode::Unavailable
                                                     : StatusCode::Internal;
  return Status::error(code, std::string(call) + " failed: " + name + " (" +
                                 text + ")");
}

inline Status cublasStatus(cublasStatus_t result, const char *call) {
  if (result == CUBLAS_STATUS_SUCCESS)
    return Status::ok();
  const CudaLibraries &libs = CudaLibraries::get();
  return Status::error(
      result == CUBLAS_STATUS_ALLOC_FAILED ? StatusCode::OutOfMemory
                                           : StatusCode::Internal,
      std::string(call) + " failed: " +
      (libs.cublasGetStatusName ? libs.cublasGetStatusName(result) : "?") +
      " (" +
      (libs.cublasGetStatusString ? libs.cublasGetStatusString(result) : "?") +
      ")");
}

inline Status nvrtcStatus(nvrtcResult result, const char *call) {
  if (result == NVRTC_SUCCESS)
    return Status::ok();
  const CudaLibraries &libs = CudaLibraries::get();
  return Status::internal(
      std::string(call) + " failed: " +
      (libs.nvrtcGetErrorString ? libs.nvrtcGetErrorString(result) : "?"));
}

} // namespace gplace::runtime::cuda

/// Calls `fn(...)` of the loaded libraries and returns from the enclosing
/// function with a Status naming `fn` if it fails.
#define GPLACE_CU_CHECK(fn, ...)                                               \
  GPLACE_RETURN_IF_ERROR(::gplace::runtime::cuda::cuStatus(                    \
      ::gplace::runtime::cuda::CudaLibraries::get().fn(__VA_ARGS__), #fn))
#define GPLACE_CUBLAS_CHECK(fn, ...)                                           \
  GPLACE_RETURN_IF_ERROR(::gplace::runtime::cuda::cublasStatus(                \
      ::gplace::runtime::cuda::CudaLibraries::get().fn(__VA_ARGS__), #fn))
#define GPLACE_NVRTC_CHECK(fn, ...)                                            \
  GPLACE_RETURN_IF_ERROR(::gplace::runtime::cuda::nvrtcStatus(                 \
      ::gplace::runtime::cuda::CudaLibraries::get().fn(__VA_ARGS__), #fn))

#endif // GPLACE_LIB_RUNTIME_CUDA_CUDASTATUS_H
