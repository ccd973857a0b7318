//===- VectorMath.h - whole-array math of the host kernels -----*- C++ -*-===//
//
// Elementwise functions over contiguous arrays, several elements per
// instruction: glibc's vector math library (libmvec, the SIMD variants
// GCC calls for `#pragma omp simd` loops under -ffast-math), called
// directly, so that no other kernel needs -ffast-math. The exp kernel's
// blocks (ElementwiseKernels.def, fused or not) run here
// (docs/runtime.md, "Vector exp").
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

/// Which implementation vectorExp runs: "libmvec-avx2", "libmvec-sse" or
/// "std::exp".
const char *vectorExpImplementation();

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_VECTORMATH_H
