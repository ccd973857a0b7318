//===- vector_exp.cpp - the vector math kernels' loops: std:: vs libmvec --===//
//
// Elements per second of exp, log, tanh, erf and sigmoid over a contiguous
// array, as the host kernels' blocks compute them: before issue 48, the
// scalar expression per element (gp_exp, gp_log, gp_tanh, gp_erf and the
// sigmoid line of ElementwiseKernels.def: loops GCC cannot vectorize
// without -ffast-math); now vectorExp, vectorLog, vectorTanh, vectorErf
// and vectorSigmoid (VectorMath.h, libmvec). Inputs spread over [-20, 20)
// (exp, sigmoid), [-5, 5) (tanh, erf) or (0, 40] (log); one thread.
// Usage: gplace-bench-exp [N [RUNS [FUNCTION]]] (default 32400, the sce
// node tests' tensor, 2000, and every function); prints one line per
// function, element type and implementation: the best of 5 means of RUNS
// calls, in µs per call and elements/s.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/VectorMath.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace gplace::runtime;

/// The host kernels' flushDenormal (Kernels.cpp).
template <typename T> T flush(T x) {
  return std::fabs(x) < std::numeric_limits<T>::min() ? std::copysign(T(0), x)
                                                      : x;
}

template <typename T> T stdExp(T x) { return std::exp(x); }
template <typename T> T stdLog(T x) { return std::log(flush(x)); }
template <typename T> T stdTanh(T x) { return flush(std::tanh(flush(x))); }
template <typename T> T stdErf(T x) { return flush(std::erf(flush(x))); }
template <typename T> T stdSigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }

template <typename T, T (*F)(T)>
__attribute__((noinline)) void perElement(const T *in, T *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = F(in[i]);
}

template <typename T, typename F>
void measure(const char *function, const char *type, const std::string &name,
             T low, T high, int64_t n, int runs, F &&f) {
  std::vector<T> in(n), out(n);
  for (int64_t i = 0; i < n; ++i)
    in[i] = high - (high - low) * T(i) / T(n);
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
  std::printf("%-7s %s %-22s n=%lld  %9.2f us  %8.1f Melem/s\n", function,
              type, name.c_str(), static_cast<long long>(n), best,
              double(n) / best);
}

/// One function: the scalar loop, then the vector one, for f32 and f64.
template <float (*SF)(float), double (*SD)(double), typename VF,
          typename VD>
void compare(const char *function, VectorFunction which, double low,
             double high, int64_t n, int runs, VF vf, VD vd) {
  std::string vec = std::string("vector (") + vectorImplementation(which) + ")";
  measure<float>(function, "f32", "std:: per element", float(low),
                 float(high), n, runs, perElement<float, SF>);
  measure<float>(function, "f32", vec, float(low), float(high), n, runs, vf);
  measure<double>(function, "f64", "std:: per element", low, high, n, runs,
                  perElement<double, SD>);
  measure<double>(function, "f64", vec, low, high, n, runs, vd);
}

} // namespace

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 32400;
  int runs = argc > 2 ? std::atoi(argv[2]) : 2000;
  std::string only = argc > 3 ? argv[3] : "";
  if (n <= 0 || runs <= 0 || argc > 4 ||
      (!only.empty() && only != "exp" && only != "log" && only != "tanh" &&
       only != "erf" && only != "sigmoid"))
    return std::fprintf(stderr, "usage: gplace-bench-exp [N [RUNS "
                                "[exp|log|tanh|erf|sigmoid]]]\n"),
           1;
  auto wanted = [&](const char *f) { return only.empty() || only == f; };
#define GPLACE_COMPARE(Name, Std, Vector, Which, Low, High)                    \
  if (wanted(Name))                                                            \
    compare<Std<float>, Std<double>>(                                          \
        Name, VectorFunction::Which, Low, High, n, runs,                       \
        [](const float *i, float *o, int64_t k) { Vector(i, o, k); },          \
        [](const double *i, double *o, int64_t k) { Vector(i, o, k); });
  GPLACE_COMPARE("exp", stdExp, vectorExp, Exp, -20, 20)
  GPLACE_COMPARE("log", stdLog, vectorLog, Log, 0, 40)
  GPLACE_COMPARE("tanh", stdTanh, vectorTanh, Tanh, -5, 5)
  GPLACE_COMPARE("erf", stdErf, vectorErf, Erf, -5, 5)
  GPLACE_COMPARE("sigmoid", stdSigmoid, vectorSigmoid, Sigmoid, -20, 20)
#undef GPLACE_COMPARE
  return 0;
}
