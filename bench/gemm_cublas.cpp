//===- gemm_cublas.cpp - cuBLAS and cudaMemcpy called directly ------------===//
//
// The baselines of bench/gpu.sh, built on the GPU machine with
//   g++ -O2 bench/gemm_cublas.cpp -I/usr/local/cuda/include \
//       -L/usr/local/cuda/lib64 -lcublas -lcudart -o gplace-bench-cublas
// Usage:
//   gplace-bench-cublas gemm N f32|tf32|bf16 REPEATS   -> seconds per GEMM
//   gplace-bench-cublas copy MiB h2d|d2h|peer REPEATS  -> GB/s
// (best of the repeats; all-ones inputs, as gplace-run's benchmark graphs).
//
//===----------------------------------------------------------------------===//

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != 0) {                                                            \
      std::fprintf(stderr, "%s failed\n", #x);                                 \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static int gemm(int n, const char *mode, int repeats) {
  bool bf16 = !std::strcmp(mode, "bf16"), tf32 = !std::strcmp(mode, "tf32");
  size_t elementSize = bf16 ? 2 : 4, bytes = size_t(n) * n * elementSize;
  void *a, *c;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMemset(a, 0, bytes));
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  cublasComputeType_t compute =
      tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  float alpha = 1, beta = 0;
  double best = 1e30;
  for (int r = 0; r < repeats + 1; ++r) {
    CHECK(cudaDeviceSynchronize());
    double start = now();
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a,
                       type, n, a, type, n, &beta, c, type, n, compute,
                       CUBLAS_GEMM_DEFAULT));
    CHECK(cudaDeviceSynchronize());
    if (r > 0) // The first call warms cuBLAS up.
      best = std::min(best, now() - start);
  }
  std::printf("%.6f\n", best);
  return 0;
}

static int copy(int mib, const char *kind, int repeats) {
  size_t bytes = size_t(mib) << 20;
  void *host, *device, *other = nullptr;
  CHECK(cudaMallocHost(&host, bytes));
  CHECK(cudaMalloc(&device, bytes));
  bool peer = !std::strcmp(kind, "peer");
  if (peer) {
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&other, bytes));
    CHECK(cudaSetDevice(0));
  }
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    double start = now();
    if (!std::strcmp(kind, "h2d"))
      CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
    else if (!std::strcmp(kind, "d2h"))
      CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
    else
      CHECK(cudaMemcpyPeer(other, 1, device, 0, bytes));
    CHECK(cudaDeviceSynchronize());
    best = std::min(best, now() - start);
  }
  std::printf("%.3f\n", bytes / best / 1e9);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "gemm"))
    return gemm(std::atoi(argv[2]), argv[3], std::atoi(argv[4]));
  if (argc == 5 && !std::strcmp(argv[1], "copy"))
    return copy(std::atoi(argv[2]), argv[3], std::atoi(argv[4]));
  std::fprintf(stderr, "usage: gplace-bench-cublas gemm N f32|tf32|bf16 R | "
                       "copy MiB h2d|d2h|peer R\n");
  return 2;
}
