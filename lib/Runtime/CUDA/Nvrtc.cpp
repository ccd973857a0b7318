//===- Nvrtc.cpp - NVRTC compilation with an in-memory and on-disk cache --===//
//
// The cache key holds everything that changes the PTX (PyTorch's jit_utils
// key plus the options): kernel name, architecture, NVRTC version, options
// and a SHA-256 of the source.
//
//===----------------------------------------------------------------------===//

#include "CudaStatus.h"

#include "gplace/Runtime/Cuda.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SHA256.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <unistd.h>

namespace gplace::runtime {

namespace {

std::mutex cacheMutex;
std::map<std::string, std::string> memoryCache;
KernelCacheStats stats;

std::filesystem::path cacheDirectory() {
  if (const char *dir = std::getenv("GPLACE_KERNEL_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    return std::filesystem::path(xdg) / "gplace";
  if (const char *home = std::getenv("HOME"))
    return std::filesystem::path(home) / ".cache" / "gplace";
  return {};
}

/// Warns once that the disk cache is not used, and why.
void warnOnce(const std::string &why) {
  // Devices compile kernels from several threads.
  static std::atomic<bool> warned{false};
  if (warned.exchange(true))
    return;
  std::cerr << "gplace: warning: not caching compiled kernels on disk: " << why
            << "\n";
}

std::string hexDigest(const std::string &text) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

StatusOr<std::string> compileWithNvrtc(const CudaKernelSource &kernel,
                                       const std::vector<std::string> &options) {
  const cuda::CudaLibraries &libs = cuda::CudaLibraries::get();
  nvrtcProgram program = nullptr;
  GPLACE_NVRTC_CHECK(nvrtcCreateProgram, &program, kernel.source.c_str(),
                     (kernel.entry + ".cu").c_str(), 0, nullptr, nullptr);
  std::vector<const char *> argv;
  for (const std::string &option : options)
    argv.push_back(option.c_str());
  nvrtcResult compiled =
      libs.nvrtcCompileProgram(program, argv.size(), argv.data());
  std::string ptx, log;
  size_t size = 0;
  if (libs.nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS &&
      size > 1) {
    log.resize(size);
    libs.nvrtcGetProgramLog(program, log.data());
    log.resize(size - 1);
  }
  if (compiled == NVRTC_SUCCESS &&
      libs.nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS) {
    ptx.resize(size);
    libs.nvrtcGetPTX(program, ptx.data());
    if (!ptx.empty() && ptx.back() == '\0')
      ptx.pop_back();
  }
  libs.nvrtcDestroyProgram(&program);
  if (compiled != NVRTC_SUCCESS)
    return Status::internal("NVRTC could not compile " + kernel.entry + ": " +
                         libs.nvrtcGetErrorString(compiled) + "\n" + log);
  return ptx;
}

} // namespace

std::string nvrtcUnavailableReason() {
  return cuda::CudaLibraries::get().nvrtcError;
}

KernelCacheStats kernelCacheStats() {
  std::lock_guard<std::mutex> lock(cacheMutex);
  return stats;
}

StatusOr<std::string> compileCudaKernel(const CudaKernelSource &kernel,
                                        const std::string &arch) {
  const cuda::CudaLibraries &libs = cuda::CudaLibraries::get();
  if (!libs.nvrtcError.empty())
    return Status::unavailable("NVRTC is not available: " + libs.nvrtcError);
  int major = 0, minor = 0;
  libs.nvrtcVersion(&major, &minor);
  std::vector<std::string> options = {"--std=c++17"};
  if (!arch.empty()) {
    if (arch.rfind("sm_", 0) != 0)
      return Status::invalidArgument("architecture '" + arch + "' is not sm_NN");
    options.push_back("--gpu-architecture=compute_" + arch.substr(3));
  }
  std::ostringstream key;
  key << kernel.entry << "\n"
      << (arch.empty() ? "default" : arch) << "\nnvrtc " << major << "."
      << minor << "\n";
  for (const std::string &option : options)
    key << option << "\n";
  key << kernel.source.size() << "\n" << kernel.source;
  std::string digest = hexDigest(key.str());

  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = memoryCache.find(digest);
    if (it != memoryCache.end()) {
      ++stats.memoryHits;
      return it->second;
    }
  }
  std::filesystem::path dir = cacheDirectory();
  std::filesystem::path file =
      dir.empty() ? dir
                  : dir / (kernel.entry + "-" +
                           (arch.empty() ? "default" : arch) + "-" + digest +
                           ".ptx");
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (in) {
      std::string ptx((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
      if (!ptx.empty()) {
        std::lock_guard<std::mutex> lock(cacheMutex);
        ++stats.diskHits;
        memoryCache[digest] = ptx;
        return ptx;
      }
    }
  }

  StatusOr<std::string> ptx = compileWithNvrtc(kernel, options);
  if (!ptx)
    return ptx;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    ++stats.compiles;
    memoryCache[digest] = *ptx;
  }
  if (file.empty()) {
    warnOnce("no cache directory (set GPLACE_KERNEL_CACHE_DIR or HOME)");
    return ptx;
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  std::filesystem::path temporary =
      file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    out << *ptx;
    if (!out) {
      warnOnce("cannot write to " + dir.string());
      return ptx;
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    warnOnce("cannot write to " + dir.string());
  }
  return ptx;
}

} // namespace gplace::runtime
