//===- DynamicSymbols.h - CUDA libraries, loaded at run time -*- C++ -*-===//
//
// gplace compiles against the CUDA toolkit's headers but links none of its
// libraries: libcuda, libcublas and libnvrtc are opened with dlopen when
// first needed (TensorFlow's dso_loader, IREE's dynamic symbols), so one
// binary runs on machines with and without CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_RUNTIME_CUDA_DYNAMICSYMBOLS_H
#define GPLACE_LIB_RUNTIME_CUDA_DYNAMICSYMBOLS_H

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>
#include <nccl.h>
#include <nvrtc.h>

#include <string>

namespace gplace::runtime::cuda {

/// cublasGemmEx's C signature (C++ adds an overload).
using CublasGemmExFn = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void *, const void *, cudaDataType, int, const void *, cudaDataType,
    int, const void *, void *, cudaDataType, int, cublasComputeType_t,
    cublasGemmAlgo_t);

/// Every entry point of CudaSymbols.def; a group is usable when its error
/// is empty.
struct CudaLibraries {
#define GPLACE_CU(name) decltype(&::name) name = nullptr;
#define GPLACE_CUBLAS(name) decltype(&::name) name = nullptr;
#define GPLACE_CUBLAS_TYPED(name, type) type name = nullptr;
#define GPLACE_NVRTC(name) decltype(&::name) name = nullptr;
#define GPLACE_CUDNN(name) decltype(&::name) name = nullptr;
#include "CudaSymbols.def"

  /// Why the driver API, cuBLAS, NVRTC or cuDNN is unusable ("" if
  /// usable): the library that could not be opened, or the symbol it
  /// lacks. GPUs need the first three; without cuDNN they run everything
  /// but convolutions, pooling and batch norm.
  std::string driverError, cublasError, nvrtcError, cudnnError;

  /// The libraries of this process, loaded on first call.
  static const CudaLibraries &get();
};

/// NCCL's entry points, loaded on first call (libnccl.so.2 is large, and
/// only all-reduces across physical GPUs need it); `error` as above.
struct NcclLibrary {
#define GPLACE_NCCL(name) decltype(&::name) name = nullptr;
#include "CudaSymbols.def"
  std::string error;
  static const NcclLibrary &get();
};

} // namespace gplace::runtime::cuda

#endif // GPLACE_LIB_RUNTIME_CUDA_DYNAMICSYMBOLS_H
