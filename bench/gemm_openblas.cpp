//===- gemm_openblas.cpp - OpenBLAS sgemm called directly -----------------===//
//
// The baseline for gplace-run's GEMM: times cblas_sgemm on N x N x N f32
// matrices of ones, as bench/runtime.py's gplace-run program computes.
// Usage: gplace-bench-gemm N RUNS; prints one sample, as gplace-run's
// --print-timing gives it: seconds per GEMM, the mean of RUNS GEMMs after
// one untimed GEMM.
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 3)
    return std::fprintf(stderr, "usage: gplace-bench-gemm N RUNS\n"), 1;
  int n = std::atoi(argv[1]), runs = std::atoi(argv[2]);
  if (n <= 0 || runs <= 0)
    return std::fprintf(stderr, "N and RUNS must be positive\n"), 1;
  std::vector<float> a(size_t(n) * n, 1.0f), b(size_t(n) * n, 1.0f),
      c(size_t(n) * n);
  auto gemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                a.data(), n, b.data(), n, 0.0f, c.data(), n);
  };
  gemm(); // Untimed, as gplace-run's first run.
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < runs; ++r)
    gemm();
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  if (c[0] != static_cast<float>(n))
    return std::fprintf(stderr, "wrong result %f\n", c[0]), 1;
  std::printf("%.6f\n", elapsed.count() / runs);
  return 0;
}
