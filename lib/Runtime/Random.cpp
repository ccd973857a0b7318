//===- Random.cpp - Philox4x32-10 and TensorFlow's distributions ----------===//

#include "gplace/Runtime/Random.h"

#include <Eigen/Core>

#include <array>
#include <cmath>
#include <cstring>

namespace gplace::runtime {

namespace {

using Counter = std::array<uint32_t, 4>;
using Key = std::array<uint32_t, 2>;

constexpr uint32_t kW32A = 0x9E3779B9, kW32B = 0xBB67AE85;
constexpr uint32_t kM4x32A = 0xD2511F53, kM4x32B = 0xCD9E8D57;

/// Ten rounds of Philox4x32 on `counter` with `key`.
Counter philox(Counter counter, Key key) {
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(kM4x32A) * counter[0];
    uint64_t p1 = uint64_t(kM4x32B) * counter[2];
    counter = {uint32_t(p1 >> 32) ^ counter[1] ^ key[0], uint32_t(p1),
               uint32_t(p0 >> 32) ^ counter[3] ^ key[1], uint32_t(p0)};
    key[0] += kW32A;
    key[1] += kW32B;
  }
  return counter;
}

/// `counter` + `n`, a 128-bit addition.
Counter skip(Counter counter, uint64_t n) {
  uint64_t low = (uint64_t(counter[1]) << 32 | counter[0]);
  uint64_t sum = low + n;
  counter[0] = uint32_t(sum);
  counter[1] = uint32_t(sum >> 32);
  if (sum < low && ++counter[2] == 0)
    ++counter[3];
  return counter;
}

/// TensorFlow's GenerateKey: the seed scrambled by one Philox call, so
/// that either half of the seed may be the weak one.
void generateKey(int64_t seed0, int64_t seed1, Key &key, Counter &counter) {
  uint64_t s0 = static_cast<uint64_t>(seed0), s1 = static_cast<uint64_t>(seed1);
  Counter mix = philox({uint32_t(s0), uint32_t(s0 >> 32), uint32_t(s1),
                        uint32_t(s1 >> 32)},
                       {0x3ec8f720, 0x02461e29});
  key = {mix[0], mix[1]};
  counter = {0, 0, mix[2], mix[3]};
}

/// 23 random mantissa bits: a float in [0, 1).
float toFloat(uint32_t x) {
  uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, 4);
  return f - 1.0f;
}
/// 52 random mantissa bits from two words: a double in [0, 1).
double toDouble(uint32_t x0, uint32_t x1) {
  uint64_t bits = (1023ull << 52) |
                  (((uint64_t(x0) << 32) | x1) & ((1ull << 52) - 1));
  double d;
  std::memcpy(&d, &bits, 8);
  return d - 1.0;
}

/// TensorFlow's Uint16ToHalf and Uint16ToGfloat16: the low 16 bits of a
/// word give a half (10 random mantissa bits) or a bfloat16 (7 bits) in
/// [1, 2), less 1; returned as the float that converts to it exactly. (A
/// float of 23 random bits rounded to 16 bits could reach 1.)
template <typename S> float toUnit16(uint32_t x) {
  if constexpr (std::is_same_v<S, Eigen::half>)
    return static_cast<float>(x & 0x3ffu) * (1.0f / 1024.0f);
  else
    return static_cast<float>(x & 0x7fu) * (1.0f / 128.0f);
}

/// Box-Muller: two normal numbers from two uniform words.
void boxMuller(uint32_t x0, uint32_t x1, float &f0, float &f1) {
  const float epsilon = 1.0e-7f;
  float u1 = std::max(toFloat(x0), epsilon);
  float v1 = 2.0f * static_cast<float>(M_PI) * toFloat(x1);
  float u2 = std::sqrt(-2.0f * std::log(u1));
  f0 = std::sin(v1) * u2;
  f1 = std::cos(v1) * u2;
}
void boxMuller(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double &d0,
               double &d1) {
  const double epsilon = 1.0e-7;
  double u1 = std::max(toDouble(x0, x1), epsilon);
  double v1 = 2 * M_PI * toDouble(x2, x3);
  double u2 = std::sqrt(-2.0 * std::log(u1));
  d0 = std::sin(v1) * u2;
  d1 = std::cos(v1) * u2;
}

/// Output group `g` (4 floats, or 2 doubles) of the distribution, in
/// float or double, for elements stored as `S` (f16 and bf16 computed in
/// float).
template <typename S, typename T>
std::array<T, 4> group(RandomDistribution distribution, const Key &key,
                       const Counter &base, uint64_t g) {
  std::array<T, 4> out{};
  if (distribution == RandomDistribution::TruncatedNormal) {
    // Each group draws from its own stream, which TensorFlow reserves 256
    // words wide per output (kReservedSamplesPerOutput): group g starts
    // 4 * 256 / 4 counters on for four floats, 2 * 256 / 4 for two
    // doubles. It keeps the values within two standard deviations.
    size_t filled = 0, per = std::is_same_v<T, double> ? 2 : 4;
    Counter counter = skip(base, g * per * 256 / 4);
    while (filled < per) {
      Counter words = philox(counter, key);
      counter = skip(counter, 1);
      T v[2];
      if constexpr (std::is_same_v<T, double>) {
        boxMuller(words[0], words[1], words[2], words[3], v[0], v[1]);
      } else {
        boxMuller(words[0], words[1], v[0], v[1]);
      }
      for (T x : v)
        if (std::fabs(x) < T(2) && filled < per)
          out[filled++] = x;
      if constexpr (!std::is_same_v<T, double>) {
        boxMuller(words[2], words[3], v[0], v[1]);
        for (T x : v)
          if (std::fabs(x) < T(2) && filled < per)
            out[filled++] = x;
      }
    }
    return out;
  }
  Counter words = philox(skip(base, g), key);
  if constexpr (std::is_same_v<T, double>) {
    if (distribution == RandomDistribution::Uniform) {
      out[0] = toDouble(words[0], words[1]);
      out[1] = toDouble(words[2], words[3]);
    } else {
      boxMuller(words[0], words[1], words[2], words[3], out[0], out[1]);
    }
  } else {
    if (distribution == RandomDistribution::Uniform) {
      for (int k = 0; k < 4; ++k)
        if constexpr (std::is_same_v<S, float>)
          out[k] = toFloat(words[k]);
        else
          out[k] = toUnit16<S>(words[k]);
    } else {
      boxMuller(words[0], words[1], out[0], out[1]);
      boxMuller(words[2], words[3], out[2], out[3]);
    }
  }
  return out;
}

template <typename S, typename T>
void fill(RandomDistribution distribution, const Key &key,
          const Counter &counter, S *out, int64_t n) {
  const int64_t per = std::is_same_v<T, double> ? 2 : 4;
  for (int64_t g = 0; g * per < n; ++g) {
    std::array<T, 4> values = group<S, T>(distribution, key, counter, g);
    for (int64_t k = 0; k < per && g * per + k < n; ++k)
      out[g * per + k] = static_cast<S>(values[k]);
  }
}

} // namespace

Status fillStatelessRandom(RandomDistribution distribution, int64_t seed0,
                           int64_t seed1, ElementType type, void *out,
                           int64_t n) {
  Key key;
  Counter counter;
  generateKey(seed0, seed1, key, counter);
  switch (type) {
  case ElementType::F32:
    fill<float, float>(distribution, key, counter, static_cast<float *>(out), n);
    return Status::ok();
  case ElementType::F64:
    fill<double, double>(distribution, key, counter, static_cast<double *>(out),
                         n);
    return Status::ok();
  case ElementType::F16:
    fill<Eigen::half, float>(distribution, key, counter,
                             static_cast<Eigen::half *>(out), n);
    return Status::ok();
  case ElementType::BF16:
    fill<Eigen::bfloat16, float>(distribution, key, counter,
                                 static_cast<Eigen::bfloat16 *>(out), n);
    return Status::ok();
  default:
    return Status::invalidArgument(
        "stateless random numbers need a floating-point type, not " +
        std::string(elementTypeName(type)));
  }
}

} // namespace gplace::runtime
