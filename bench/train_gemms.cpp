//===- train_gemms.cpp - The GEMMs of one MLP training step, in OpenBLAS --===//
//
// The baseline for gplace-run's training step (bench/train.py): times the
// GEMMs of one step of examples/train_fashion_mnist.mlir's 784-256-128-10
// MLP at batch B, each a cblas_sgemm call (row-major) on its own buffers:
//   forward   h1 = x[B,784]·W1[784,256], h2 = h1·W2[256,128],
//             y = h2·W3[128,10];
//   backward  the kernels' gradients dW3 = h2^T·dy, dW2 = h1^T·dz2,
//             dW1 = x^T·dz1 (A transposed), and the inputs' gradients of
//             layers 3 and 2, dh2 = dy·W3^T, dh1 = dz2·W2^T (B transposed);
// 8 GEMMs a step, and nothing else (no bias, ReLU, softmax or Adam): what
// the step would cost if its GEMMs were all it did.
// Usage: gplace-bench-train-gemms B RUNS; one untimed step, then prints
// seconds per step, the mean of RUNS steps, and on a second line the best
// single step. gplace-bench-train-gemms --config prints what OpenBLAS says
// of itself: openblas_get_config(), openblas_get_corename() and
// openblas_get_num_threads(), one a line.
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// C[m,n] = op(A)·op(B), row-major, op(A) m x k and op(B) k x n.
void gemm(bool transA, bool transB, int m, int n, int k,
          const std::vector<float> &a, const std::vector<float> &b,
          std::vector<float> &c) {
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
              transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a.data(),
              transA ? m : k, b.data(), transB ? k : n, 0.0f, c.data(), n);
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::strcmp(argv[1], "--config") == 0) {
    std::printf("%s\n%s\n%d\n", openblas_get_config(),
                openblas_get_corename(), openblas_get_num_threads());
    return 0;
  }
  if (argc != 3)
    return std::fprintf(stderr, "usage: gplace-bench-train-gemms B RUNS\n"
                                "       gplace-bench-train-gemms --config\n"),
           1;
  int batch = std::atoi(argv[1]), runs = std::atoi(argv[2]);
  if (batch <= 0 || runs <= 0)
    return std::fprintf(stderr, "B and RUNS must be positive\n"), 1;
  const int in = 784, d1 = 256, d2 = 128, out = 10;
  auto matrix = [](int rows, int cols, float value) {
    return std::vector<float>(size_t(rows) * cols, value);
  };
  // Activations and their gradients; the gradients' values do not matter.
  std::vector<float> x = matrix(batch, in, 1.0f), h1 = matrix(batch, d1, 0),
                     h2 = matrix(batch, d2, 0), y = matrix(batch, out, 0),
                     dy = matrix(batch, out, 0.5f),
                     dh2 = matrix(batch, d2, 0), dz2 = matrix(batch, d2, 0.5f),
                     dh1 = matrix(batch, d1, 0), dz1 = matrix(batch, d1, 0.5f);
  // Kernels and their gradients.
  std::vector<float> w1 = matrix(in, d1, 0.5f), w2 = matrix(d1, d2, 0.5f),
                     w3 = matrix(d2, out, 0.5f), dw1 = matrix(in, d1, 0),
                     dw2 = matrix(d1, d2, 0), dw3 = matrix(d2, out, 0);
  auto step = [&] {
    gemm(false, false, batch, d1, in, x, w1, h1);   // h1 = x·W1
    gemm(false, false, batch, d2, d1, h1, w2, h2);  // h2 = h1·W2
    gemm(false, false, batch, out, d2, h2, w3, y);  // y = h2·W3
    gemm(true, false, d2, out, batch, h2, dy, dw3); // dW3 = h2^T·dy
    gemm(false, true, batch, d2, out, dy, w3, dh2); // dh2 = dy·W3^T
    gemm(true, false, d1, d2, batch, h1, dz2, dw2); // dW2 = h1^T·dz2
    gemm(false, true, batch, d1, d2, dz2, w2, dh1); // dh1 = dz2·W2^T
    gemm(true, false, in, d1, batch, x, dz1, dw1);  // dW1 = x^T·dz1
  };
  step(); // Untimed, as gplace-run's first step.
  double total = 0, best = 0;
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    step();
    std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    total += elapsed.count();
    best = r == 0 ? elapsed.count() : std::min(best, elapsed.count());
  }
  // Exact in f32: x and W1 hold 1 and 0.5, x and dz1 hold 1 and 0.5.
  if (h1[0] != 0.5f * in || dw1[0] != 0.5f * batch)
    return std::fprintf(stderr, "wrong result %f %f\n", h1[0], dw1[0]), 1;
  std::printf("%.6e\n%.6e\n", total / runs, best);
  return 0;
}
