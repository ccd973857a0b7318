//===- VectorMathTest.cpp - the host kernels' whole-array exp -------------===//

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

TEST(VectorMathTest, NamesItsImplementation) {
  std::string name = vectorExpImplementation();
  EXPECT_TRUE(name == "libmvec-avx2" || name == "libmvec-sse" ||
              name == "std::exp")
      << name;
}
