//===- VectorMath.h - whole-array math of the host kernels -----*- C++ -*-===//
//
// Elementwise functions over contiguous arrays, several elements per
// instruction: glibc's vector math library (libmvec, the SIMD variants
// GCC calls for `#pragma omp simd` loops under -ffast-math), called
// directly, so that no other kernel needs -ffast-math. The f32 and f64
// blocks of the exp, log, tanh, erf and sigmoid kernels
// (ElementwiseKernels.def, fused or not) and the rows of softmax and the
// softmax losses run here (docs/runtime.md, "Vector math").
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_VECTORMATH_H
#define GPLACE_RUNTIME_VECTORMATH_H

#include <cstdint>

namespace gplace::runtime {

/// out[i] = e^in[i] for 0 <= i < n (n >= 0; `out` may be `in`, or not
/// overlap it). libmvec's expf/exp: within 4 ulp of the exact value
/// (glibc's documented bound; 3 ulp measured over every float); NaN stays
/// NaN, exp(-inf) = 0, exp(inf) and overflow = inf. Every element, the
/// last partial vector included, goes through the same vector function,
/// so a result does not depend on where a block starts or ends. On x86-64
/// with AVX2 the 8 (f32) or 4 (f64) lane AVX2 variant, else the SSE one
/// (glibc picks the code inside each): the two differ in the last bit for
/// about 0.4% of floats. Without libmvec (another architecture or libc),
/// std::exp.
void vectorExp(const float *in, float *out, int64_t n);
void vectorExp(const double *in, double *out, int64_t n);

/// out[i] = ln in[i], with a denormal operand read as a zero of its sign
/// (log of a denormal is -inf, as the host kernels' gp_log under the
/// denormal flush of docs/runtime.md). libmvec's logf/log: within 4 ulp
/// (glibc's bound; see docs/runtime.md for the measured one); log(0) =
/// -inf, log(x < 0) = NaN, log(inf) = inf. Same contract as vectorExp
/// otherwise (aliasing, partial vectors, variant choice, std::log without
/// libmvec).
void vectorLog(const float *in, float *out, int64_t n);
void vectorLog(const double *in, double *out, int64_t n);

/// out[i] = tanh in[i], operands and results that are denormal flushed to
/// a zero of their sign (as gp_tanh). libmvec's tanhf/tanh (glibc 2.35 or
/// later, else std::tanh), within 4 ulp; tanh(+-inf) = +-1. Otherwise as
/// vectorExp.
void vectorTanh(const float *in, float *out, int64_t n);
void vectorTanh(const double *in, double *out, int64_t n);

/// out[i] = erf in[i], flushed as vectorTanh. libmvec's erff/erf (glibc
/// 2.35 or later, else std::erf), within 4 ulp; erf(+-inf) = +-1.
/// Otherwise as vectorExp.
void vectorErf(const float *in, float *out, int64_t n);
void vectorErf(const double *in, double *out, int64_t n);

/// out[i] = 1 / (1 + e^-in[i]) (the sigmoid kernel's expression), e^-x by
/// vectorExp: within 4 ulp of e^-x before the two correctly rounded
/// operations, so within about 5 ulp of the exact sigmoid; 0 at -inf and
/// for x below about -88 (f32), 1 at inf. Otherwise as vectorExp.
void vectorSigmoid(const float *in, float *out, int64_t n);
void vectorSigmoid(const double *in, double *out, int64_t n);

/// The functions above, for vectorImplementation.
enum class VectorFunction { Exp, Log, Tanh, Erf, Sigmoid };

/// Which implementation `function` runs in this process: "libmvec-avx2",
/// "libmvec-sse" or "std" (the C++ library's function per element).
const char *vectorImplementation(VectorFunction function);

/// Which implementation vectorExp runs: "libmvec-avx2", "libmvec-sse" or
/// "std::exp".
const char *vectorExpImplementation();

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_VECTORMATH_H
