//===- Random.h - TensorFlow's stateless random numbers ---------*- C++ -*-===//
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3"), counter-based, as TensorFlow's stateless random ops use it: the
// seed's two integers are scrambled into a key and a counter
// (GenerateKey), output group g of four numbers comes from the counter
// advanced by g, and the distributions are those of
// random_distributions.h (23 mantissa bits for uniform floats, 52 for
// doubles, 10 for halfs and 7 for bfloat16s, from the low 16 bits of a
// word; Box-Muller for normals; rejection beyond two standard deviations
// for the truncated normal, whose output group g of n numbers draws from
// the counter advanced by g * n * 256 / 4: FillPhiloxRandomTask reserves
// 256 words per output, four words per counter). Host code; emulated GPUs run
// it too, so a seed gives the same numbers there as on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_RANDOM_H
#define GPLACE_RUNTIME_RANDOM_H

#include "gplace/Runtime/Status.h"
#include "gplace/Support/ElementType.h"

#include <cstdint>

namespace gplace::runtime {

enum class RandomDistribution { Uniform, Normal, TruncatedNormal };

/// Fills `out`, `n` elements of `type` (f32, f16, bf16 or f64, stored as
/// the runtime stores them), with `distribution`'s numbers for the seed
/// (seed0, seed1): uniform in [0, 1), normal with mean 0 and standard
/// deviation 1, or normal redrawn until within two standard deviations.
/// Element i depends only on the seed and i. Errors (invalid argument): a
/// type that is not floating point.
Status fillStatelessRandom(RandomDistribution distribution, int64_t seed0,
                           int64_t seed1, ElementType type, void *out,
                           int64_t n);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_RANDOM_H
