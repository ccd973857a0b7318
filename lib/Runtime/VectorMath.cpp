//===- VectorMath.cpp - whole-array math functions of the host kernels ----===//

#include "gplace/Runtime/VectorMath.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(GPLACE_HAVE_LIBMVEC) && defined(__x86_64__)
#include <immintrin.h>
#define GPLACE_VECTOR_EXP 1
#if defined(GPLACE_HAVE_LIBMVEC_TANH_ERF)
#define GPLACE_VECTOR_TANH_ERF 1
#endif

// libmvec's entry points (glibc's x86_64 vector ABI names: b = SSE, 4 or
// 2 lanes; d = AVX2, 8 or 4 lanes; N = unmasked; v = one vector operand).
// Each dispatches inside glibc (an SSE4.1 or FMA kernel where the CPU has
// it, else a wrapper over the narrower variant). exp and log since glibc
// 2.22, tanh and erf since 2.35 (GPLACE_HAVE_LIBMVEC_TANH_ERF). The AVX2
// variants are declared for AVX2 as their callers are: clang refuses a
// ymm argument between functions compiled for different targets.
#define GPLACE_AVX2 __attribute__((target("avx2")))
extern "C" {
__m128 _ZGVbN4v_expf(__m128);
__m128d _ZGVbN2v_exp(__m128d);
GPLACE_AVX2 __m256 _ZGVdN8v_expf(__m256);
GPLACE_AVX2 __m256d _ZGVdN4v_exp(__m256d);
__m128 _ZGVbN4v_logf(__m128);
__m128d _ZGVbN2v_log(__m128d);
GPLACE_AVX2 __m256 _ZGVdN8v_logf(__m256);
GPLACE_AVX2 __m256d _ZGVdN4v_log(__m256d);
#ifdef GPLACE_VECTOR_TANH_ERF
__m128 _ZGVbN4v_tanhf(__m128);
__m128d _ZGVbN2v_tanh(__m128d);
GPLACE_AVX2 __m256 _ZGVdN8v_tanhf(__m256);
GPLACE_AVX2 __m256d _ZGVdN4v_tanh(__m256d);
__m128 _ZGVbN4v_erff(__m128);
__m128d _ZGVbN2v_erf(__m128d);
GPLACE_AVX2 __m256 _ZGVdN8v_erff(__m256);
GPLACE_AVX2 __m256d _ZGVdN4v_erf(__m256d);
#endif
}
#endif

namespace gplace::runtime {
namespace {

/// `x`, or a zero of its sign if it is a denormal: the host kernels'
/// flushDenormal (Kernels.cpp). The test compares the magnitude with the
/// least normal, which holds for a denormal whether or not the FPU reads
/// it as zero (DAZ).
template <typename T> inline T flushScalar(T x) {
  return std::fabs(x) < std::numeric_limits<T>::min() ? std::copysign(T(0), x)
                                                      : x;
}

#ifdef GPLACE_VECTOR_EXP
/// Whether this CPU runs the AVX2 variants (their operands are ymm
/// registers, which an SSE-only CPU does not have).
bool useAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}

// flushScalar of each lane: libmvec's log, tanh and erf take a denormal
// operand apart as bits (a lane outside their fast path goes to the scalar
// function), so they see it whatever the FPU's DAZ; the host kernels read
// it as zero.
inline __m128 flush(__m128 x) {
  const __m128 sign = _mm_set1_ps(-0.0f);
  __m128 tiny = _mm_cmplt_ps(_mm_andnot_ps(sign, x), _mm_set1_ps(FLT_MIN));
  return _mm_or_ps(_mm_andnot_ps(tiny, x),
                   _mm_and_ps(tiny, _mm_and_ps(sign, x)));
}
inline __m128d flush(__m128d x) {
  const __m128d sign = _mm_set1_pd(-0.0);
  __m128d tiny = _mm_cmplt_pd(_mm_andnot_pd(sign, x), _mm_set1_pd(DBL_MIN));
  return _mm_or_pd(_mm_andnot_pd(tiny, x),
                   _mm_and_pd(tiny, _mm_and_pd(sign, x)));
}
GPLACE_AVX2 inline __m256 flush(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 tiny = _mm256_cmp_ps(_mm256_andnot_ps(sign, x),
                              _mm256_set1_ps(FLT_MIN), _CMP_LT_OQ);
  return _mm256_or_ps(_mm256_andnot_ps(tiny, x),
                      _mm256_and_ps(tiny, _mm256_and_ps(sign, x)));
}
GPLACE_AVX2 inline __m256d flush(__m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d tiny = _mm256_cmp_pd(_mm256_andnot_pd(sign, x),
                               _mm256_set1_pd(DBL_MIN), _CMP_LT_OQ);
  return _mm256_or_pd(_mm256_andnot_pd(tiny, x),
                      _mm256_and_pd(tiny, _mm256_and_pd(sign, x)));
}

/// Defines `Name(V)`: libmvec's `Fn` with operand and result flushed.
#define GPLACE_FLUSHED(Attributes, Name, V, Fn)                                \
  Attributes inline V Name(V x) { return flush(Fn(flush(x))); }
GPLACE_FLUSHED(GPLACE_AVX2, logAvx2F32, __m256, _ZGVdN8v_logf)
GPLACE_FLUSHED(GPLACE_AVX2, logAvx2F64, __m256d, _ZGVdN4v_log)
GPLACE_FLUSHED(, logSseF32, __m128, _ZGVbN4v_logf)
GPLACE_FLUSHED(, logSseF64, __m128d, _ZGVbN2v_log)
#ifdef GPLACE_VECTOR_TANH_ERF
GPLACE_FLUSHED(GPLACE_AVX2, tanhAvx2F32, __m256, _ZGVdN8v_tanhf)
GPLACE_FLUSHED(GPLACE_AVX2, tanhAvx2F64, __m256d, _ZGVdN4v_tanh)
GPLACE_FLUSHED(, tanhSseF32, __m128, _ZGVbN4v_tanhf)
GPLACE_FLUSHED(, tanhSseF64, __m128d, _ZGVbN2v_tanh)
GPLACE_FLUSHED(GPLACE_AVX2, erfAvx2F32, __m256, _ZGVdN8v_erff)
GPLACE_FLUSHED(GPLACE_AVX2, erfAvx2F64, __m256d, _ZGVdN4v_erf)
GPLACE_FLUSHED(, erfSseF32, __m128, _ZGVbN4v_erff)
GPLACE_FLUSHED(, erfSseF64, __m128d, _ZGVbN2v_erf)
#endif
#undef GPLACE_FLUSHED

/// Defines `Name(const T *in, T *out, int64_t n)`: `Fn` (of Lanes elements,
/// moved by Load and Store) over whole vectors, then over the
/// last partial one padded with zeros (exp, log, tanh and erf of 0 raise
/// nothing that matters: the padding's results are dropped).
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
/// One function of float and double, AVX2 and SSE: `Name`Avx2 and
/// `Name`Sse, overloaded on the element type.
#define GPLACE_FOUR_VARIANTS(Name, AvxF32, AvxF64, SseF32, SseF64)            \
  GPLACE_OVER_VECTORS(GPLACE_AVX2, Name##Avx2, float, 8, _mm256_loadu_ps,     \
                      _mm256_storeu_ps, AvxF32)                               \
  GPLACE_OVER_VECTORS(GPLACE_AVX2, Name##Avx2, double, 4, _mm256_loadu_pd,    \
                      _mm256_storeu_pd, AvxF64)                               \
  GPLACE_OVER_VECTORS(, Name##Sse, float, 4, _mm_loadu_ps, _mm_storeu_ps,     \
                      SseF32)                                                 \
  GPLACE_OVER_VECTORS(, Name##Sse, double, 2, _mm_loadu_pd, _mm_storeu_pd,    \
                      SseF64)
GPLACE_FOUR_VARIANTS(exp, _ZGVdN8v_expf, _ZGVdN4v_exp, _ZGVbN4v_expf,
                     _ZGVbN2v_exp)
GPLACE_FOUR_VARIANTS(log, logAvx2F32, logAvx2F64, logSseF32, logSseF64)
#ifdef GPLACE_VECTOR_TANH_ERF
GPLACE_FOUR_VARIANTS(tanh, tanhAvx2F32, tanhAvx2F64, tanhSseF32, tanhSseF64)
GPLACE_FOUR_VARIANTS(erf, erfAvx2F32, erfAvx2F64, erfSseF32, erfSseF64)
#endif
#undef GPLACE_FOUR_VARIANTS
#undef GPLACE_OVER_VECTORS
#undef GPLACE_AVX2
#endif

template <typename T> T scalarExp(T x) { return std::exp(x); }
template <typename T> T scalarLog(T x) { return std::log(flushScalar(x)); }
template <typename T> T scalarTanh(T x) {
  return flushScalar(std::tanh(flushScalar(x)));
}
template <typename T> T scalarErf(T x) {
  return flushScalar(std::erf(flushScalar(x)));
}

/// The fallback: `fn` per element.
template <typename T, typename F>
void perElement(const T *in, T *out, int64_t n, F fn) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = fn(in[i]);
}

/// Defines `Name##Of(in, out, n)`: Name##Avx2 or Name##Sse where
/// `Condition` (libmvec has the function), else `Scalar` per element.
#define GPLACE_DISPATCH(Name, Condition, Scalar)                               \
  template <typename T> void Name##Of(const T *in, T *out, int64_t n) {        \
    GPLACE_IF_##Condition(                                                     \
        if (useAvx2()) Name##Avx2(in, out, n); else Name##Sse(in, out, n);     \
        return;)                                                               \
    perElement(in, out, n, Scalar<T>);                                         \
  }
#ifdef GPLACE_VECTOR_EXP
#define GPLACE_IF_EXP_LOG(...) __VA_ARGS__
#else
#define GPLACE_IF_EXP_LOG(...)
#endif
#ifdef GPLACE_VECTOR_TANH_ERF
#define GPLACE_IF_TANH_ERF(...) __VA_ARGS__
#else
#define GPLACE_IF_TANH_ERF(...)
#endif
GPLACE_DISPATCH(exp, EXP_LOG, scalarExp)
GPLACE_DISPATCH(log, EXP_LOG, scalarLog)
GPLACE_DISPATCH(tanh, TANH_ERF, scalarTanh)
GPLACE_DISPATCH(erf, TANH_ERF, scalarErf)
#undef GPLACE_IF_EXP_LOG
#undef GPLACE_IF_TANH_ERF
#undef GPLACE_DISPATCH

/// 1 / (1 + e^-x), e^-x by expOf, a chunk at a time (the chunk stays in
/// the first-level cache between the three passes).
template <typename T> void sigmoidOf(const T *in, T *out, int64_t n) {
  constexpr int64_t kChunk = 1024;
  for (int64_t start = 0; start < n; start += kChunk) {
    int64_t count = std::min(kChunk, n - start);
    T *o = out + start;
    for (int64_t i = 0; i < count; ++i)
      o[i] = -in[start + i];
    expOf(o, o, count);
    for (int64_t i = 0; i < count; ++i)
      o[i] = T(1) / (T(1) + o[i]);
  }
}

} // namespace

void vectorExp(const float *in, float *out, int64_t n) { expOf(in, out, n); }
void vectorExp(const double *in, double *out, int64_t n) {
  expOf(in, out, n);
}
void vectorLog(const float *in, float *out, int64_t n) { logOf(in, out, n); }
void vectorLog(const double *in, double *out, int64_t n) {
  logOf(in, out, n);
}
void vectorTanh(const float *in, float *out, int64_t n) {
  tanhOf(in, out, n);
}
void vectorTanh(const double *in, double *out, int64_t n) {
  tanhOf(in, out, n);
}
void vectorErf(const float *in, float *out, int64_t n) { erfOf(in, out, n); }
void vectorErf(const double *in, double *out, int64_t n) {
  erfOf(in, out, n);
}
void vectorSigmoid(const float *in, float *out, int64_t n) {
  sigmoidOf(in, out, n);
}
void vectorSigmoid(const double *in, double *out, int64_t n) {
  sigmoidOf(in, out, n);
}

const char *vectorImplementation(VectorFunction function) {
#ifdef GPLACE_VECTOR_EXP
#ifdef GPLACE_VECTOR_TANH_ERF
  bool vector = true;
#else
  bool vector =
      function != VectorFunction::Tanh && function != VectorFunction::Erf;
#endif
  if (vector)
    return useAvx2() ? "libmvec-avx2" : "libmvec-sse";
#endif
  (void)function;
  return "std";
}

const char *vectorExpImplementation() {
  const char *name = vectorImplementation(VectorFunction::Exp);
  return std::strcmp(name, "std") == 0 ? "std::exp" : name;
}

} // namespace gplace::runtime
