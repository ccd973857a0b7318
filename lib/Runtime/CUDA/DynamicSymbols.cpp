//===- DynamicSymbols.cpp - the CUDA libraries, loaded at run time --------===//

#include "DynamicSymbols.h"

#include <dlfcn.h>

#include <vector>

namespace gplace::runtime::cuda {

namespace {

#define GPLACE_STRINGIFY_(x) #x
#define GPLACE_STRINGIFY(x) GPLACE_STRINGIFY_(x)

/// Opens the first of `names` that loads (also under the toolkit's lib64
/// and lib, where Debian-style CUDA installs keep cuDNN);
/// returns nullptr and sets `error` if none does.
void *openLibrary(const std::vector<const char *> &names, std::string &error) {
  for (const char *name : names)
    for (std::string path :
         {std::string(name), "/usr/local/cuda/lib64/" + std::string(name),
          "/usr/local/cuda/lib/" + std::string(name)}) {
      if (void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
        return handle;
    }
  dlerror();
  dlopen(names.front(), RTLD_NOW | RTLD_LOCAL);
  const char *why = dlerror();
  error = why ? why : std::string(names.front()) + " not found";
  return nullptr;
}

template <typename T>
bool resolve(void *library, const char *symbol, T &slot, std::string &error) {
  slot = reinterpret_cast<T>(dlsym(library, symbol));
  if (!slot && error.empty())
    error = std::string("the library lacks ") + symbol;
  return slot != nullptr;
}

CudaLibraries load() {
  CudaLibraries libs;
  if (void *driver =
          openLibrary({"libcuda.so.1", "libcuda.so"}, libs.driverError)) {
#define GPLACE_CU(name)                                                        \
  resolve(driver, GPLACE_STRINGIFY(name), libs.name, libs.driverError);
#include "CudaSymbols.def"
  }
  // cuBLAS and cuDNN only run on a GPU, so without the driver they are not
  // opened: libcublasLt alone takes ~0.35 s to load, which every gplace-run
  // on a machine without CUDA would pay (NVRTC, which makes PTX without a
  // GPU, is still opened).
  bool haveDriver = libs.driverError.empty();
  if (!haveDriver)
    libs.cublasError = libs.cudnnError =
        "not opened without the CUDA driver (" + libs.driverError + ")";
  void *cublas =
      haveDriver
          ? openLibrary({"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
                        libs.cublasError)
          : nullptr;
  if (cublas) {
#define GPLACE_CUBLAS(name)                                                    \
  resolve(cublas, GPLACE_STRINGIFY(name), libs.name, libs.cublasError);
#define GPLACE_CUBLAS_TYPED(name, type)                                        \
  resolve(cublas, GPLACE_STRINGIFY(name), libs.name, libs.cublasError);
#include "CudaSymbols.def"
  }
  if (void *nvrtc =
          openLibrary({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"},
                      libs.nvrtcError)) {
#define GPLACE_NVRTC(name)                                                     \
  resolve(nvrtc, GPLACE_STRINGIFY(name), libs.name, libs.nvrtcError);
#include "CudaSymbols.def"
  }
  void *cudnn = haveDriver ? openLibrary({"libcudnn.so.9", "libcudnn.so"},
                                         libs.cudnnError)
                           : nullptr;
  if (cudnn) {
#define GPLACE_CUDNN(name)                                                     \
  resolve(cudnn, GPLACE_STRINGIFY(name), libs.name, libs.cudnnError);
#include "CudaSymbols.def"
  }
  return libs;
}

} // namespace

const CudaLibraries &CudaLibraries::get() {
  static const CudaLibraries libs = load();
  return libs;
}

const NcclLibrary &NcclLibrary::get() {
  static const NcclLibrary nccl = [] {
    NcclLibrary lib;
    if (void *handle = openLibrary({"libnccl.so.2", "libnccl.so"}, lib.error)) {
#define GPLACE_NCCL(name)                                                      \
  resolve(handle, GPLACE_STRINGIFY(name), lib.name, lib.error);
#include "CudaSymbols.def"
    }
    return lib;
  }();
  return nccl;
}

} // namespace gplace::runtime::cuda
