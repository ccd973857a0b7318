//===- VectorMathTest.cpp - the host kernels' whole-array math ------------===//

#include "gplace/Runtime/VectorMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

using namespace gplace::runtime;

namespace {

/// The distance of a and b in units in the last place (a and b finite or
/// infinite, of one sign or zero).
template <typename T> int64_t ulpDistance(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  Bits x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  // Sign-magnitude to a monotone integer line.
  if (x < 0)
    x = std::numeric_limits<Bits>::min() - x;
  if (y < 0)
    y = std::numeric_limits<Bits>::min() - y;
  int64_t d = int64_t(x) - int64_t(y);
  return d < 0 ? -d : d;
}

/// Operands: specials, both ends of the range (overflow, underflow to
/// denormals and zero), and random ones over [-110, 110] (f32) or [-750,
/// 750] (f64).
template <typename T> std::vector<T> operands() {
  using L = std::numeric_limits<T>;
  std::vector<T> x = {
      T(0),           -T(0),           T(1),           T(-1),
      T(0.5),         T(-0.5),         T(1e-30),       T(-1e-30),
      L::min(),       L::denorm_min(), T(88),          T(88.72),
      T(89),          T(-87.3),        T(-103),        T(-104),
      T(-110),        T(709),          T(709.8),       T(710),
      T(-708),        T(-745),         T(-746),        L::max(),
      L::lowest(),    L::infinity(),   -L::infinity(), L::quiet_NaN(),
      -L::quiet_NaN()};
  std::mt19937 rng(48);
  T range = sizeof(T) == 4 ? T(110) : T(750);
  std::uniform_real_distribution<T> wide(-range, range), narrow(-2, 2);
  for (int i = 0; i < 2000; ++i)
    x.push_back(i % 2 ? wide(rng) : narrow(rng));
  return x;
}

/// vectorExp against std::exp over `x`: within 4 ulp (libmvec's bound);
/// NaN to NaN; where std::exp underflows to a denormal, vectorExp may give
/// that denormal or a zero of the same sign (the host kernels run with
/// denormals flushed anyway, docs/runtime.md).
template <typename T> void expectCloseToStdExp(const std::vector<T> &x) {
  std::vector<T> y(x.size());
  vectorExp(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    T want = std::exp(x[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[i])) << "exp(" << x[i] << ") = " << y[i];
      continue;
    }
    if (std::fpclassify(want) == FP_SUBNORMAL && y[i] == T(0))
      continue;
    if (std::isinf(want) || want == T(0)) {
      EXPECT_EQ(y[i], want) << "exp(" << x[i] << ")";
      continue;
    }
    EXPECT_LE(ulpDistance(y[i], want), 4)
        << "exp(" << x[i] << "): " << y[i] << ", std::exp " << want;
  }
}

template <typename T> void expectLengthIndependent() {
  // Lengths around the widths (4 and 8 lanes): every element the same
  // value whatever the length, so a kernel's result does not depend on
  // how its blocks split the tensor.
  std::vector<T> x = operands<T>();
  x.resize(40);
  std::vector<T> whole(x.size());
  vectorExp(x.data(), whole.data(), static_cast<int64_t>(x.size()));
  for (int64_t n = 0; n <= 40; ++n) {
    for (int64_t offset : {0, 1, 3}) {
      if (offset + n > 40)
        continue;
      std::vector<T> y(n + 2, T(-7));
      vectorExp(x.data() + offset, y.data() + 1, n);
      EXPECT_EQ(y[0], T(-7)) << "wrote before the range, n=" << n;
      EXPECT_EQ(y[n + 1], T(-7)) << "wrote past the range, n=" << n;
      for (int64_t i = 0; i < n; ++i) {
        T want = whole[offset + i];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(y[1 + i]));
        } else {
          EXPECT_EQ(y[1 + i], want)
              << "n=" << n << " offset=" << offset << " i=" << i;
        }
      }
    }
  }
}

} // namespace

TEST(VectorMathTest, ExpF32MatchesStdExp) {
  expectCloseToStdExp(operands<float>());
}

TEST(VectorMathTest, ExpF64MatchesStdExp) {
  expectCloseToStdExp(operands<double>());
}

TEST(VectorMathTest, ExpSpecialValues) {
  float x[] = {0.0f, -std::numeric_limits<float>::infinity(),
               std::numeric_limits<float>::infinity(), 1000.0f, -1000.0f};
  float y[5];
  vectorExp(x, y, 5);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[4], 0.0f);
}

TEST(VectorMathTest, ExpLengthsNotAMultipleOfTheWidth) {
  expectLengthIndependent<float>();
  expectLengthIndependent<double>();
}

TEST(VectorMathTest, ExpInPlace) {
  std::vector<float> x = operands<float>(), want(x.size());
  x.resize(37);
  want.resize(37);
  vectorExp(x.data(), want.data(), 37);
  vectorExp(x.data(), x.data(), 37);
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isnan(want[i])) {
      EXPECT_EQ(x[i], want[i]) << "i=" << i;
    }
  }
}

#if defined(__SSE2__)
// The host kernels run with denormals flushed (docs/runtime.md): libmvec
// follows the mode, a denormal operand reads as zero and a result that
// would be denormal is zero.
TEST(VectorMathTest, ExpFollowsFlushToZero) {
  unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040); // FTZ | DAZ
  float x[] = {-100.0f, std::numeric_limits<float>::denorm_min(), -90.0f,
               -87.0f};
  float y[4];
  vectorExp(x, y, 4);
  double dx[] = {-740.0, std::numeric_limits<double>::denorm_min()};
  double dy[2];
  vectorExp(dx, dy, 2);
  _mm_setcsr(saved);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(std::fpclassify(y[3]), FP_NORMAL) << y[3];
  EXPECT_EQ(dy[0], 0.0);
  EXPECT_EQ(dy[1], 1.0);
}
#endif

namespace {

/// The host kernels' flush of a denormal to a zero of its sign
/// (flushDenormal, Kernels.cpp).
template <typename T> T flushed(T x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(T(0), x) : x;
}

/// What each vector function computes, by the C++ library, as the host
/// kernels' scalar expressions (gp_log, gp_tanh, gp_erf, the sigmoid line
/// of ElementwiseKernels.def).
template <typename T> T stdLog(T x) { return std::log(flushed(x)); }
template <typename T> T stdTanh(T x) {
  return flushed(std::tanh(flushed(x)));
}
template <typename T> T stdErf(T x) { return flushed(std::erf(flushed(x))); }
template <typename T> T stdSigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }

/// Operands for log, tanh, erf and sigmoid: operands<T>() (both signs,
/// zeros, denormals, infinities, NaN, large and small), the negative least
/// denormal, and positive magnitudes spread over the whole exponent range
/// (log's domain) with their negatives.
template <typename T> std::vector<T> mathOperands() {
  std::vector<T> x = operands<T>();
  using L = std::numeric_limits<T>;
  x.push_back(-L::denorm_min());
  x.push_back(L::min() / T(2));
  x.push_back(-L::min() / T(2));
  x.push_back(-L::min());
  std::mt19937 rng(4848);
  T maxExponent = sizeof(T) == 4 ? T(88) : T(709);
  std::uniform_real_distribution<T> exponent(-maxExponent, maxExponent);
  for (int i = 0; i < 2000; ++i) {
    T m = std::exp(exponent(rng));
    x.push_back(m);
    x.push_back(-m);
  }
  // Not a multiple of 8 (nor 4): the last partial vector is checked too.
  if (x.size() % 8 == 0)
    x.push_back(T(0.25));
  return x;
}

/// `vector` against `reference` over `x` (in separate arrays and in
/// place): within `ulps`; NaN to NaN; an infinity or a zero exactly (with
/// its sign); where the reference is a denormal, that denormal or a zero
/// of its sign.
template <typename T, typename V, typename R>
void expectClose(const char *name, V vector, R reference,
                 const std::vector<T> &x, int64_t ulps) {
  std::vector<T> y(x.size()), inPlace = x;
  vector(x.data(), y.data(), static_cast<int64_t>(x.size()));
  vector(inPlace.data(), inPlace.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    T want = reference(x[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[i])) << name << "(" << x[i] << ") = " << y[i];
    } else if (std::fpclassify(want) == FP_SUBNORMAL && y[i] == T(0)) {
      EXPECT_EQ(std::signbit(y[i]), std::signbit(want)) << name << x[i];
    } else if (std::isinf(want) || want == T(0)) {
      EXPECT_EQ(y[i], want) << name << "(" << x[i] << ")";
      EXPECT_EQ(std::signbit(y[i]), std::signbit(want))
          << name << "(" << x[i] << ")";
    } else {
      EXPECT_LE(ulpDistance(y[i], want), ulps)
          << name << "(" << std::hexfloat << x[i] << "): " << y[i]
          << ", std " << want;
    }
    if (std::isnan(y[i])) {
      EXPECT_TRUE(std::isnan(inPlace[i]));
    } else {
      EXPECT_EQ(inPlace[i], y[i]) << name << " in place, i=" << i;
    }
  }
}

/// Every element the same whatever the length and start (lengths around
/// the 4 and 8 lanes), and nothing written outside the range.
template <typename T, typename V> void expectLengthIndependentOf(V vector) {
  std::vector<T> x = mathOperands<T>();
  x.resize(40);
  std::vector<T> whole(x.size());
  vector(x.data(), whole.data(), static_cast<int64_t>(x.size()));
  for (int64_t n = 0; n <= 37; ++n) {
    for (int64_t offset : {0, 3}) {
      std::vector<T> y(n + 2, T(-7));
      vector(x.data() + offset, y.data() + 1, n);
      EXPECT_EQ(y[0], T(-7)) << "n=" << n;
      EXPECT_EQ(y[n + 1], T(-7)) << "n=" << n;
      for (int64_t i = 0; i < n; ++i) {
        if (!std::isnan(whole[offset + i])) {
          EXPECT_EQ(y[1 + i], whole[offset + i]) << "n=" << n << " i=" << i;
        }
      }
    }
  }
}

template <typename T> void expectEveryFunctionClose() {
  std::vector<T> x = mathOperands<T>();
  auto log = [](const T *i, T *o, int64_t n) { vectorLog(i, o, n); };
  auto tanh = [](const T *i, T *o, int64_t n) { vectorTanh(i, o, n); };
  auto erf = [](const T *i, T *o, int64_t n) { vectorErf(i, o, n); };
  auto sigmoid = [](const T *i, T *o, int64_t n) { vectorSigmoid(i, o, n); };
  // glibc documents 4 ulp for libmvec's functions; the sigmoid adds two
  // roundings to exp's.
  expectClose<T>("log", log, stdLog<T>, x, 4);
  expectClose<T>("tanh", tanh, stdTanh<T>, x, 4);
  expectClose<T>("erf", erf, stdErf<T>, x, 4);
  expectClose<T>("sigmoid", sigmoid, stdSigmoid<T>, x, 5);
  expectLengthIndependentOf<T>(log);
  expectLengthIndependentOf<T>(tanh);
  expectLengthIndependentOf<T>(erf);
  expectLengthIndependentOf<T>(sigmoid);
}

/// The flush of denormal operands (docs/runtime.md), whatever the FPU
/// mode: log of a denormal of either sign is -inf, tanh and erf of one a
/// zero of its sign.
template <typename T> void expectDenormalsReadAsZero() {
  using L = std::numeric_limits<T>;
  // Static: computed on the first call, before FTZ would make the
  // quotients zero.
  static const T x[] = {L::denorm_min(), -L::denorm_min(), L::min() / T(4),
                        -L::min() / T(4), T(0), -T(0), L::min()};
  // By the bits: under DAZ fpclassify sees a denormal as zero.
  ASSERT_GT(ulpDistance(x[2], T(0)), 0);
  ASSERT_LT(ulpDistance(x[2], T(0)), ulpDistance(L::min(), T(0)));
  T y[7];
  vectorLog(x, y, 7);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y[i], -L::infinity()) << "log(" << x[i] << ")";
  EXPECT_EQ(y[6], std::log(L::min()));
  vectorTanh(x, y, 7);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(y[i], T(0)) << "tanh(" << x[i] << ")";
    EXPECT_EQ(std::signbit(y[i]), std::signbit(x[i])) << x[i];
  }
  EXPECT_EQ(y[6], L::min());
  vectorErf(x, y, 7);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(y[i], T(0)) << "erf(" << x[i] << ")";
    EXPECT_EQ(std::signbit(y[i]), std::signbit(x[i])) << x[i];
  }
}

} // namespace

TEST(VectorMathTest, LogTanhErfSigmoidF32MatchStd) {
  expectEveryFunctionClose<float>();
}

TEST(VectorMathTest, LogTanhErfSigmoidF64MatchStd) {
  expectEveryFunctionClose<double>();
}

TEST(VectorMathTest, SpecialValues) {
  float inf = std::numeric_limits<float>::infinity();
  float x[] = {1.0f, 0.0f, -1.0f, inf, -inf, 20.0f, -200.0f, 200.0f};
  float y[8];
  vectorLog(x, y, 8);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], -inf);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[3], inf);
  EXPECT_TRUE(std::isnan(y[4]));
  vectorTanh(x, y, 8);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], -1.0f);
  EXPECT_EQ(y[5], 1.0f);
  EXPECT_EQ(y[6], -1.0f);
  vectorErf(x, y, 8);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], -1.0f);
  EXPECT_EQ(y[5], 1.0f);
  vectorSigmoid(x, y, 8);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_EQ(y[6], 0.0f);
  EXPECT_EQ(y[7], 1.0f);
}

TEST(VectorMathTest, DenormalOperandsReadAsZero) {
  expectDenormalsReadAsZero<float>();
  expectDenormalsReadAsZero<double>();
#if defined(__SSE2__)
  // And under the host kernels' FTZ | DAZ.
  unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040);
  expectDenormalsReadAsZero<float>();
  expectDenormalsReadAsZero<double>();
  _mm_setcsr(saved);
#endif
}

TEST(VectorMathTest, NamesEachImplementation) {
  for (VectorFunction f : {VectorFunction::Exp, VectorFunction::Log,
                           VectorFunction::Tanh, VectorFunction::Erf,
                           VectorFunction::Sigmoid}) {
    std::string name = vectorImplementation(f);
    EXPECT_TRUE(name == "libmvec-avx2" || name == "libmvec-sse" ||
                name == "std")
        << name;
  }
}

TEST(VectorMathTest, NamesItsImplementation) {
  std::string name = vectorExpImplementation();
  EXPECT_TRUE(name == "libmvec-avx2" || name == "libmvec-sse" ||
              name == "std::exp")
      << name;
}
