//===- VectorMath.cpp - whole-array math functions of the host kernels ----===//

#include "gplace/Runtime/VectorMath.h"

#include <cmath>
#include <cstring>

#if defined(GPLACE_HAVE_LIBMVEC) && defined(__x86_64__)
#include <immintrin.h>
#define GPLACE_VECTOR_EXP 1

// libmvec's entry points (glibc's x86_64 vector ABI names: b = SSE, 4 or
// 2 lanes; d = AVX2, 8 or 4 lanes; N = unmasked; v = one vector operand).
// Each dispatches inside glibc (an SSE4.1 or FMA kernel where the CPU has
// it, else a wrapper over the narrower variant).
extern "C" {
__m128 _ZGVbN4v_expf(__m128);
__m128d _ZGVbN2v_exp(__m128d);
__m256 _ZGVdN8v_expf(__m256);
__m256d _ZGVdN4v_exp(__m256d);
}
#endif

namespace gplace::runtime {
namespace {

#ifdef GPLACE_VECTOR_EXP
/// Whether this CPU runs the AVX2 variants (their operands are ymm
/// registers, which an SSE-only CPU does not have).
bool useAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}

/// Defines `Name(const T *in, T *out, int64_t n)`: `Fn` (of Lanes elements,
/// moved by Load and Store) over whole vectors, then over the
/// last partial one padded with zeros (e^0 is exact and raises nothing).
/// A macro, not a template over a lambda: the AVX2 variants' loops must be
/// compiled for AVX2 whole (GCC inlines no lambda into a target("avx2")
/// function, and the vector arguments cannot cross a call).
#define GPLACE_OVER_VECTORS(Attributes, Name, T, Lanes, Load, Store, Fn)       \
  Attributes void Name(const T *in, T *out, int64_t n) {                       \
    int64_t i = 0;                                                             \
    for (; i + (Lanes) <= n; i += (Lanes))                                     \
      Store(out + i, Fn(Load(in + i)));                                        \
    if (i < n) {                                                               \
      T tailIn[Lanes] = {}, tailOut[Lanes];                                    \
      std::memcpy(tailIn, in + i, sizeof(T) * (n - i));                        \
      Store(tailOut, Fn(Load(tailIn)));                                        \
      std::memcpy(out + i, tailOut, sizeof(T) * (n - i));                      \
    }                                                                          \
  }

#define GPLACE_AVX2 __attribute__((target("avx2")))
GPLACE_OVER_VECTORS(GPLACE_AVX2, expAvx2, float, 8, _mm256_loadu_ps,
                    _mm256_storeu_ps, _ZGVdN8v_expf)
GPLACE_OVER_VECTORS(GPLACE_AVX2, expAvx2, double, 4, _mm256_loadu_pd,
                    _mm256_storeu_pd, _ZGVdN4v_exp)
GPLACE_OVER_VECTORS(, expSse, float, 4, _mm_loadu_ps, _mm_storeu_ps,
                    _ZGVbN4v_expf)
GPLACE_OVER_VECTORS(, expSse, double, 2, _mm_loadu_pd, _mm_storeu_pd,
                    _ZGVbN2v_exp)
#undef GPLACE_AVX2
#undef GPLACE_OVER_VECTORS
#endif

template <typename T> void vectorExpOf(const T *in, T *out, int64_t n) {
#ifdef GPLACE_VECTOR_EXP
  if (useAvx2())
    expAvx2(in, out, n);
  else
    expSse(in, out, n);
#else
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::exp(in[i]);
#endif
}

} // namespace

void vectorExp(const float *in, float *out, int64_t n) {
  vectorExpOf(in, out, n);
}
void vectorExp(const double *in, double *out, int64_t n) {
  vectorExpOf(in, out, n);
}

const char *vectorExpImplementation() {
#ifdef GPLACE_VECTOR_EXP
  return useAvx2() ? "libmvec-avx2" : "libmvec-sse";
#else
  return "std::exp";
#endif
}

} // namespace gplace::runtime
