//===- vector_exp.cpp - the exp kernel's loop: std::exp against libmvec --===//
//
// Elements per second of exp over a contiguous array, as the host exp
// kernel's block computes it: before issue 48, std::exp per element (the
// loop GCC cannot vectorize without -ffast-math); now vectorExp
// (VectorMath.h, libmvec). Inputs spread over [-20, 20), one thread.
// Usage: gplace-bench-exp [N [RUNS]] (default 32400, the sce node tests'
// tensor, and 2000); prints one line per element type and implementation:
// the best of 5 means of RUNS calls, in µs per call and elements/s.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/VectorMath.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

template <typename T>
__attribute__((noinline)) void scalarExp(const T *in, T *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::exp(in[i]);
}

template <typename T, typename F>
void measure(const char *type, const char *name, int64_t n, int runs, F &&f) {
  std::vector<T> in(n), out(n);
  for (int64_t i = 0; i < n; ++i)
    in[i] = T(-20) + T(40) * T(i) / T(n);
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    f(in.data(), out.data(), n); // untimed warm-up
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < runs; ++r)
      f(in.data(), out.data(), n);
    double us = std::chrono::duration<double, std::micro>(
                    std::chrono::steady_clock::now() - start)
                    .count() /
                runs;
    best = std::min(best, us);
  }
  std::printf("%s %-26s n=%lld  %9.2f us  %8.1f Melem/s\n", type, name,
              static_cast<long long>(n), best, double(n) / best);
}

} // namespace

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 32400;
  int runs = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (n <= 0 || runs <= 0)
    return std::fprintf(stderr, "usage: gplace-bench-exp [N [RUNS]]\n"), 1;
  using gplace::runtime::vectorExp;
  std::string vec = std::string("vectorExp (") +
                    gplace::runtime::vectorExpImplementation() + ")";
  measure<float>("f32", "std::exp", n, runs, scalarExp<float>);
  measure<float>(
      "f32", vec.c_str(), n, runs,
      [](const float *i, float *o, int64_t k) { vectorExp(i, o, k); });
  measure<double>("f64", "std::exp", n, runs, scalarExp<double>);
  measure<double>(
      "f64", vec.c_str(), n, runs,
      [](const double *i, double *o, int64_t k) { vectorExp(i, o, k); });
  return 0;
}
