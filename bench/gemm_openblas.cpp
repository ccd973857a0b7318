//===- gemm_openblas.cpp - OpenBLAS sgemm called directly
//------------------===//
//
// The baseline for gplace-run's GEMM: times cblas_sgemm on N x N x N f32
// matrices of ones, as bench/runtime.py's gplace-run program computes.
// Usage: gplace-bench-gemm N REPEATS; prints seconds per GEMM (best of the
// repeats).
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 3)
    return std::fprintf(stderr, "usage: gplace-bench-gemm N REPEATS\n"), 1;
  int n = std::atoi(argv[1]), repeats = std::atoi(argv[2]);
  if (n <= 0 || repeats <= 0)
    return std::fprintf(stderr, "N and REPEATS must be positive\n"), 1;
  std::vector<float> a(size_t(n) * n, 1.0f), b(size_t(n) * n, 1.0f),
      c(size_t(n) * n);
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                a.data(), n, b.data(), n, 0.0f, c.data(), n);
    std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  if (c[0] != static_cast<float>(n))
    return std::fprintf(stderr, "wrong result %f\n", c[0]), 1;
  std::printf("%.6f\n", best);
  return 0;
}
