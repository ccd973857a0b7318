//===- Kernels.cpp - host kernels -----------------------------------------===//
//
// One function per kernel of the op table, found through a table indexed
// by gplace::Kernel (runKernel<K>): elementwise kernels share one
// implementation that expands their scalar function from
// ElementwiseKernels.def, the others specialise runKernel. A kernel the op
// table gains without a host implementation fails to compile here.
//
// Element types map to a storage type S and a compute type T: f16 and bf16
// are stored as Eigen::half and Eigen::bfloat16 and computed in float,
// integers computed in Wrapping<I> (two's complement, as TensorFlow's
// integer kernels). Each kernel is instantiated only for the element types
// the op table gives it on the CPU.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Kernels.h"
#include "DnnlKernels.h"
#include "HostLaunch.h"
#include "RecurrentShape.h"
#include "gplace/Runtime/Random.h"
#include "gplace/Runtime/Threads.h"
#include "gplace/Runtime/Transport.h"
#include "gplace/Runtime/VectorMath.h"
#include "gplace/Support/Shape.h"

#include "llvm/ADT/SmallVector.h"

#include <Eigen/Core>
#include <cblas.h>
#include <mutex>
#ifdef GPLACE_HAVE_OPENMP
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

namespace gplace::runtime {

namespace {

//===----------------------------------------------------------------------===//
// Element types.
//===----------------------------------------------------------------------===//

/// Set when an integer division by zero happened on this thread, for the
/// kernel that did it to report (each stream runs on its own thread).
thread_local bool integerDivisionByZero = false;

/// Two's complement integer arithmetic: overflow wraps, as TensorFlow's
/// integer kernels do (C++'s signed overflow is undefined).
template <typename I> struct Wrapping {
  using U = std::make_unsigned_t<I>;
  I v = 0;
  Wrapping() = default;
  constexpr Wrapping(I value) : v(value) {}
  explicit operator I() const { return v; }

  friend Wrapping operator+(Wrapping a, Wrapping b) {
    return static_cast<I>(static_cast<U>(a.v) + static_cast<U>(b.v));
  }
  friend Wrapping operator-(Wrapping a, Wrapping b) {
    return static_cast<I>(static_cast<U>(a.v) - static_cast<U>(b.v));
  }
  friend Wrapping operator*(Wrapping a, Wrapping b) {
    return static_cast<I>(static_cast<U>(a.v) * static_cast<U>(b.v));
  }
  /// Rounds toward zero (TensorFlow's truncatediv); INT_MIN / -1 wraps; a
  /// zero divisor sets integerDivisionByZero.
  friend Wrapping operator/(Wrapping a, Wrapping b) {
    if (b.v == 0) {
      integerDivisionByZero = true;
      return 0;
    }
    if (b.v == -1)
      return -a;
    return static_cast<I>(a.v / b.v);
  }
  Wrapping operator-() const {
    return static_cast<I>(U(0) - static_cast<U>(v));
  }
  friend bool operator>(Wrapping a, Wrapping b) { return a.v > b.v; }
  friend bool operator<(Wrapping a, Wrapping b) { return a.v < b.v; }
  friend bool operator==(Wrapping a, Wrapping b) { return a.v == b.v; }
  friend bool operator!=(Wrapping a, Wrapping b) { return a.v != b.v; }
};

using Half = Eigen::half;
using BFloat16 = Eigen::bfloat16;

template <typename S>
constexpr bool isHalf = std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>;

/// The compute type of storage type S.
template <typename S>
using Compute = std::conditional_t<
    isHalf<S>, float,
    std::conditional_t<std::is_same_v<S, int32_t> ||
                           std::is_same_v<S, int64_t>,
                       Wrapping<S>, S>>;

template <typename S> struct Tag { using type = S; };

template <typename S> constexpr ElementType elementTypeOf() {
  if constexpr (std::is_same_v<S, float>)
    return ElementType::F32;
  else if constexpr (std::is_same_v<S, Half>)
    return ElementType::F16;
  else if constexpr (std::is_same_v<S, BFloat16>)
    return ElementType::BF16;
  else if constexpr (std::is_same_v<S, double>)
    return ElementType::F64;
  else if constexpr (std::is_same_v<S, int32_t>)
    return ElementType::I32;
  else if constexpr (std::is_same_v<S, int64_t>)
    return ElementType::I64;
  else if constexpr (std::is_same_v<S, uint8_t>)
    return ElementType::UI8;
  else if constexpr (std::is_same_v<S, int8_t>)
    return ElementType::I8;
  else if constexpr (std::is_same_v<S, int16_t>)
    return ElementType::I16;
  else if constexpr (std::is_same_v<S, uint16_t>)
    return ElementType::UI16;
  else if constexpr (std::is_same_v<S, uint32_t>)
    return ElementType::UI32;
  else
    return ElementType::I1;
}

/// True if kernel K has a CPU kernel for storage type S (op table).
template <Kernel K, typename S> constexpr bool hasCpuKernel() {
  return kernelCpuTypes(K) & (1u << static_cast<int>(elementTypeOf<S>()));
}

/// Calls f(Tag<S>()) with S the storage type of `type`, among the types
/// in `mask` (only those instantiations are compiled).
template <unsigned Mask, typename F>
Status dispatch(ElementType type, Kernel kernel, F &&f) {
  auto has = [](ElementType t) { return Mask & (1u << static_cast<int>(t)); };
  switch (type) {
  case ElementType::F32:
    if constexpr (has(ElementType::F32))
      return f(Tag<float>());
    break;
  case ElementType::F16:
    if constexpr (has(ElementType::F16))
      return f(Tag<Half>());
    break;
  case ElementType::BF16:
    if constexpr (has(ElementType::BF16))
      return f(Tag<BFloat16>());
    break;
  case ElementType::F64:
    if constexpr (has(ElementType::F64))
      return f(Tag<double>());
    break;
  case ElementType::I32:
    if constexpr (has(ElementType::I32))
      return f(Tag<int32_t>());
    break;
  case ElementType::I64:
    if constexpr (has(ElementType::I64))
      return f(Tag<int64_t>());
    break;
  case ElementType::I1:
    if constexpr (has(ElementType::I1))
      return f(Tag<bool>());
    break;
  case ElementType::UI8:
    if constexpr (has(ElementType::UI8))
      return f(Tag<uint8_t>());
    break;
  case ElementType::I8:
    if constexpr (has(ElementType::I8))
      return f(Tag<int8_t>());
    break;
  case ElementType::I16:
    if constexpr (has(ElementType::I16))
      return f(Tag<int16_t>());
    break;
  case ElementType::UI16:
    if constexpr (has(ElementType::UI16))
      return f(Tag<uint16_t>());
    break;
  case ElementType::UI32:
    if constexpr (has(ElementType::UI32))
      return f(Tag<uint32_t>());
    break;
  }
  return Status::invalidArgument(
      "kernel gplace." + std::string(kernelMnemonic(kernel)) +
                       " has no host implementation for " +
                       std::string(elementTypeName(type)));
}

template <typename S> S *ptr(const TensorRef &ref) {
  return static_cast<S *>(ref.data);
}

/// The loops over whole tensors are compiled twice, for AVX2 and for
/// baseline x86-64, and the loader picks the clone the machine can run
/// (GCC's function multiversioning): twice the elements per
/// instruction where the tensors are in cache (the optimizers' updates,
/// whose square roots and divisions are the slowest of the step).
/// Without FMA, so that no multiply-add is contracted: both clones round
/// every operation exactly alike, and results do not depend on the
/// machine. GCC only: Clang 19 does not clone function templates.
#if defined(__x86_64__) && defined(__linux__) && !defined(__clang__) &&        \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define GPLACE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef GPLACE_VECTOR_CLONES
#define GPLACE_VECTOR_CLONES
#endif

#if defined(__SSE2__)
/// MXCSR's flush-to-zero (results) and denormals-are-zero (operands) bits.
constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x40;
#endif

/// The fewest elements a kernel splits over threads: below this,
/// starting the threads costs more than the loop.
constexpr int64_t kParallelMinElements = 32768;

/// Runs fn(begin, end) over [0, n) in one contiguous chunk per thread of the
/// host's OpenMP pool (the threads oneDNN's kernels run on, idle between
/// them) when n is at least 2 * perThread and this thread is not
/// already in a parallel region; else fn(0, n). The team is sized by the
/// work, as oneDNN launches are (threadsForWork, Threads.h): a thread per
/// `perThread` elements (kParallelMinElements / 2 unless a kernel of
/// cheaper elements says more), up to the thread's team. For loops
/// whose elements are independent: each element is computed as in one
/// call, so results do not depend on the thread count. TensorFlow runs
/// the same updates on its intra-op threads.
template <typename F>
void parallelFor(int64_t n, F &&fn,
                 int64_t perThread = kParallelMinElements / 2) {
#ifdef GPLACE_HAVE_OPENMP
  int team = n >= 2 * perThread && !omp_in_parallel()
                 ? threadsForWork(n, omp_get_max_threads(), perThread)
                 : 1;
  if (team > 1) {
#pragma omp parallel num_threads(team)
    {
      ScopedFlushDenormal flush;
      int64_t threads = omp_get_num_threads();
      if (omp_get_thread_num() == 0)
        recordLaunchTeam(static_cast<int>(threads));
      // Chunks of a multiple of 16 elements (a cache line of f32 from an
      // aligned start) so that threads seldom write one line.
      int64_t chunk = ((n + threads - 1) / threads + 15) / 16 * 16;
      int64_t begin = std::min(n, omp_get_thread_num() * chunk);
      int64_t end = std::min(n, begin + chunk);
      if (begin < end)
        fn(begin, end);
    }
    return;
  }
#endif
  recordLaunchTeam(1);
  fn(int64_t(0), n);
}

//===----------------------------------------------------------------------===//
// Elementwise: the scalar functions, a block at a time.
//===----------------------------------------------------------------------===//

/// `x`, or a zero of its sign if it is a denormal float. DAZ makes the
/// FPU read denormal operands as zero, but libm's log, pow and tanh take
/// their operands apart as bits, so they see the denormal (log(1e-45) gave
/// log(2^-149) instead of -inf): their operands and results are flushed
/// here, so that every host kernel follows docs/runtime.md's flush.
/// The test reads the bits: under DAZ, fpclassify's comparisons see a
/// denormal as zero.
template <typename T> inline T flushDenormal(T x) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using Bits = std::conditional_t<std::is_same_v<T, float>, uint32_t,
                                    uint64_t>;
    constexpr int kMantissa = std::numeric_limits<T>::digits - 1;
    constexpr Bits kExponent = ((Bits(1) << (sizeof(T) * 8 - 1)) - 1) &
                               ~((Bits(1) << kMantissa) - 1);
    Bits bits;
    std::memcpy(&bits, &x, sizeof bits);
    if ((bits & kExponent) == 0)
      return std::copysign(T(0), x);
  }
  return x;
}

// The helpers scalar functions may use (ElementwiseKernels.def).
template <typename T> T gp_exp(T x) { return std::exp(x); }
template <typename T> T gp_log(T x) { return std::log(flushDenormal(x)); }
template <typename T> T gp_tanh(T x) {
  return flushDenormal(std::tanh(flushDenormal(x)));
}
template <typename T> T gp_sqrt(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return std::sqrt(x);
  else // No integer kernel is registered; this keeps the table total.
    return static_cast<T>(std::sqrt(static_cast<double>(x)));
}
template <typename T> T gp_pow(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    return flushDenormal(std::pow(flushDenormal(x), flushDenormal(y)));
  else // No integer kernel is registered; this keeps the table total.
    return static_cast<T>(
        std::pow(static_cast<double>(x), static_cast<double>(y)));
}
template <typename T> T gp_maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
  return a > b ? a : b;
}
template <typename T> T gp_relu(T x) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(x))
      return x;
  return x > T(0) ? x : T(0);
}
/// libm's functions of one float, flushed as gp_tanh: operands and results
/// (floor of a negative denormal would be -1 where the FPU's DAZ reads 0).
/// Registered for floats only (HostKernels.def); the integer branch keeps
/// the table total.
#define GPLACE_LIBM_UNARY(name, fn)                                            \
  template <typename T> T name(T x) {                                          \
    if constexpr (std::is_floating_point_v<T>)                                 \
      return flushDenormal(fn(flushDenormal(x)));                              \
    else                                                                       \
      return x;                                                                \
  }
GPLACE_LIBM_UNARY(gp_sin, std::sin)
GPLACE_LIBM_UNARY(gp_cos, std::cos)
GPLACE_LIBM_UNARY(gp_tan, std::tan)
GPLACE_LIBM_UNARY(gp_asin, std::asin)
GPLACE_LIBM_UNARY(gp_acos, std::acos)
GPLACE_LIBM_UNARY(gp_atan, std::atan)
GPLACE_LIBM_UNARY(gp_sinh, std::sinh)
GPLACE_LIBM_UNARY(gp_cosh, std::cosh)
GPLACE_LIBM_UNARY(gp_asinh, std::asinh)
GPLACE_LIBM_UNARY(gp_acosh, std::acosh)
GPLACE_LIBM_UNARY(gp_atanh, std::atanh)
GPLACE_LIBM_UNARY(gp_erf, std::erf)
// Halves to even (the default rounding mode), as TensorFlow's Round.
GPLACE_LIBM_UNARY(gp_round, std::nearbyint)
GPLACE_LIBM_UNARY(gp_ceil, std::ceil)
GPLACE_LIBM_UNARY(gp_floor, std::floor)
#undef GPLACE_LIBM_UNARY
template <typename T> T gp_abs(T x) { return x < T(0) ? -x : x; }
/// -1, 0 or 1; a NaN stays NaN.
template <typename T> T gp_sign(T x) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(x))
      return x;
  return x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0);
}
/// C's fmod (TensorFlow's TruncateMod): the remainder has the dividend's
/// sign. Integers: a zero divisor sets integerDivisionByZero; x % -1 is 0
/// (INT_MIN % -1 would trap).
template <typename T> T gp_truncate_mod(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return flushDenormal(std::fmod(flushDenormal(x), flushDenormal(y)));
  } else {
    int64_t a = static_cast<int64_t>(x.v), b = static_cast<int64_t>(y.v);
    if (b == 0) {
      integerDivisionByZero = true;
      return T(0);
    }
    return b == -1 ? T(0) : T(a % b);
  }
}
/// Python's % (TensorFlow's FloorMod): the remainder has the divisor's
/// sign.
template <typename T> T gp_floor_mod(T x, T y) {
  T r = gp_truncate_mod(x, y);
  if (r != T(0) && (r < T(0)) != (y < T(0)))
    r = r + y;
  return r;
}

/// out[i] = f(in[0][i], in[1][i], ...) for i < n, f being `kernel`'s scalar
/// function (pairwise over more than two operands). Always inlined: with a
/// constant `kernel` (one kernel's launch) the switch folds away, which
/// matters for small tensors.
template <typename S>
__attribute__((always_inline)) inline void
elementwiseBlock(Kernel kernel, size_t numOperands, S *out,
                 const S *const *in, int64_t n) {
  using T = Compute<S>;
  // exp, log, tanh, erf and sigmoid of f32 and f64: libmvec's, a whole
  // block at a time (VectorMath.h; the same flushes as gp_log, gp_tanh and
  // gp_erf).
  if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double>) {
    switch (kernel) {
    case Kernel::Exp:
      return vectorExp(in[0], out, n);
    case Kernel::Log:
      return vectorLog(in[0], out, n);
    case Kernel::Tanh:
      return vectorTanh(in[0], out, n);
    case Kernel::Erf:
      return vectorErf(in[0], out, n);
    case Kernel::Sigmoid:
      return vectorSigmoid(in[0], out, n);
    default:
      break;
    }
  }
  switch (kernel) {
#define GPLACE_ELEMENTWISE(Name, Expression)                                   \
  case Kernel::Name:                                                           \
    if constexpr (hasCpuKernel<Kernel::Name, S>()) {                           \
      if constexpr (kernelArity(Kernel::Name) == 1) {                          \
        for (int64_t i = 0; i < n; ++i) {                                      \
          const T x0 = T(in[0][i]);                                            \
          [[maybe_unused]] const T x1 = x0;                                    \
          out[i] = static_cast<S>(Expression);                                 \
        }                                                                      \
      } else if constexpr (kernelArity(Kernel::Name) == 2) {                   \
        /* Two operands, known now: a loop the compiler vectorizes. */         \
        const S *in0 = in[0], *in1 = in[1];                                    \
        for (int64_t i = 0; i < n; ++i) {                                      \
          const T x0 = T(in0[i]), x1 = T(in1[i]);                              \
          out[i] = static_cast<S>(Expression);                                 \
        }                                                                      \
      } else {                                                                 \
        for (int64_t i = 0; i < n; ++i) {                                      \
          T acc = T(in[0][i]);                                                 \
          for (size_t k = 1; k < numOperands; ++k) {                           \
            const T x0 = acc, x1 = T(in[k][i]);                                \
            acc = (Expression);                                                \
          }                                                                    \
          out[i] = static_cast<S>(acc);                                        \
        }                                                                      \
      }                                                                        \
    }                                                                          \
    break;
#include "ElementwiseKernels.def"
  default:
    break;
  }
}

/// Every elementwise kernel has a scalar function.
constexpr bool everyElementwiseKernelHasABody() {
  bool has[kNumKernels] = {};
#define GPLACE_ELEMENTWISE(Name, Expression)                                   \
  has[static_cast<size_t>(Kernel::Name)] = true;
#include "ElementwiseKernels.def"
  for (size_t k = 0; k < kNumKernels; ++k)
    if (isElementwiseKernel(static_cast<Kernel>(k)) && !has[k])
      return false;
  return true;
}
static_assert(everyElementwiseKernelHasABody(),
              "an elementwise kernel of the op table has no line in "
              "ElementwiseKernels.def");

/// elementwiseBlock for kernel K, in vector clones.
template <Kernel K, typename S>
GPLACE_VECTOR_CLONES void elementwiseLoop(size_t numOperands, S *out,
                                          const S *const *in, int64_t n) {
  elementwiseBlock<S>(K, numOperands, out, in, n);
}

/// The elements of an operand broadcast to the shape `out`, a block at a
/// time: in place when the shapes are equal; else gathered into scratch a
/// run at a time, a run being the innermost dimensions the operand reads
/// contiguously (copied) or not at all (one element repeated, as a bias's
/// gradient or a column); a single element is repeated once for the whole
/// call, since the caller keeps each reader's scratch for it.
///
/// The output's dimensions of size 1 are dropped first, and those outside
/// the run merged (neighbours the operand reads as one), so that most
/// operands have one: an operand repeated whole ([2] broadcast to
/// [3, 100, 1, 2]) is then one pattern, gathered once per scratch and
/// phase like a single element; one whose elements each repeat ([3, 100,
/// 1, 1] to the same shape) a plain loop, not an odometer step and a
/// fill_n call per run of two (600 elements of four fused ops with five
/// such operands took 3.7 µs). Short runs (under 32 elements) are
/// written a run at a time, runs of 2 and 4 unrolled; under two outer
/// dimensions ([R, P, 1, 2] in [R, P, 2, 2]) with a counter per level.
template <typename S> class BroadcastReader {
public:
  BroadcastReader(const TensorRef &ref, const std::vector<int64_t> &out)
      : data_(ptr<S>(ref)) {
    if (ref.type->shape == out)
      return;
    if (ref.type->numElements() == 1) {
      kind_ = Kind::Single;
      return;
    }
    // The output's dimensions but those of size 1, and the operand's
    // strides along them.
    std::vector<int64_t> all = broadcastStrides(ref.type->shape, out);
    llvm::SmallVector<int64_t, 8> sizes, strides;
    for (size_t d = 0; d < out.size(); ++d)
      if (out[d] != 1) {
        sizes.push_back(out[d]);
        strides.push_back(all[d]);
      }
    if (sizes.empty()) { // One element (and the operand one too).
      kind_ = Kind::Single;
      return;
    }
    size_t inner = sizes.size();
    kind_ = strides[inner - 1] == 0 ? Kind::Repeat : Kind::Copy;
    while (inner > 0 &&
           strides[inner - 1] == (kind_ == Kind::Copy ? run_ : 0)) {
      run_ *= sizes[inner - 1];
      --inner;
    }
    for (size_t d = 0; d < inner; ++d) {
      if (!outer_.empty() && strides_.back() == strides[d] * sizes[d]) {
        outer_.back() *= sizes[d];
        strides_.back() = strides[d];
        continue;
      }
      outer_.push_back(sizes[d]);
      strides_.push_back(strides[d]);
    }
    index_.resize(outer_.size());
  }

  /// Elements [start, start + n) of the broadcast operand: a pointer into
  /// the operand, or into `scratch` (n elements, the same memory on every
  /// call of one reader) after gathering.
  const S *read(int64_t start, int64_t n, S *scratch) {
    switch (kind_) {
    case Kind::InPlace:
      return data_ + start;
    case Kind::Single:
      if (scratch != filled_ || n > filledCount_) {
        std::fill_n(scratch, n, data_[0]);
        filled_ = scratch;
        filledCount_ = n;
      }
      return scratch;
    case Kind::Copy:
    case Kind::Repeat:
      break;
    }
    int64_t rest = start / run_, within = start % run_;
    if (outer_.size() <= 1) {
      int64_t stride = outer_.empty() ? 0 : strides_[0];
      // A pattern of period run_ (Copy, the outer dimension not read):
      // the same elements in every block of this phase.
      bool periodic = kind_ == Kind::Copy && stride == 0;
      if (periodic && scratch == filled_ && n <= filledCount_ &&
          within == filledPhase_)
        return scratch;
      const S *from = data_ + rest * stride;
      if (periodic) {
        // One period from the phase, then doubling copies of it.
        int64_t first = std::min(run_, n);
        for (int64_t i = 0, j = within; i < first; ++i) {
          scratch[i] = data_[j];
          if (++j == run_)
            j = 0;
        }
        for (int64_t len = first; len < n; len *= 2)
          std::copy_n(scratch, std::min(len, n - len), scratch + len);
      } else if (run_ < 32) {
        // Short runs: a plain loop per run, no call per run.
        shortRuns(scratch, n, within, from, [&](const S *run) {
          return run + stride;
        });
      } else {
        for (int64_t done = 0; done < n; within = 0, from += stride) {
          int64_t count = std::min(run_ - within, n - done);
          if (kind_ == Kind::Copy)
            std::copy_n(from + within, count, scratch + done);
          else
            std::fill_n(scratch + done, count, *from);
          done += count;
        }
      }
      if (periodic) {
        filled_ = scratch;
        filledCount_ = n;
        filledPhase_ = start % run_;
      }
      return scratch;
    }
    if (outer_.size() == 2 && run_ < 32) {
      // Two outer dimensions (RoiAlign's [R, P, 1, 2] taps in [R, P, 2,
      // 2]): a counter per level, not an odometer step per run.
      int64_t inner = rest % outer_[1], row = rest / outer_[1];
      int64_t s0 = strides_[0], s1 = strides_[1];
      const S *base = data_ + row * s0;
      int64_t size1 = outer_[1];
      shortRuns(scratch, n, within, base + inner * s1, [&](const S *run) {
        if (++inner < size1)
          return run + s1;
        inner = 0;
        base += s0;
        return base;
      });
      return scratch;
    }
    // The operand's offset of the run holding `start`, then an odometer
    // over the outer dimensions, a run at a time.
    int64_t offset = 0;
    for (int64_t d = static_cast<int64_t>(outer_.size()) - 1; d >= 0; --d) {
      index_[d] = rest % outer_[d];
      rest /= outer_[d];
      offset += index_[d] * strides_[d];
    }
    auto advance = [&] {
      for (int64_t d = static_cast<int64_t>(outer_.size()) - 1; d >= 0; --d) {
        offset += strides_[d];
        if (++index_[d] < outer_[d])
          break;
        offset -= strides_[d] * outer_[d];
        index_[d] = 0;
      }
    };
    if (run_ < 32) { // Short runs: as above, an odometer step per run.
      shortRuns(scratch, n, within, data_ + offset, [&](const S *) {
        advance();
        return data_ + offset;
      });
      return scratch;
    }
    for (int64_t done = 0; done < n; within = 0) {
      int64_t count = std::min(run_ - within, n - done);
      if (kind_ == Kind::Copy)
        std::copy_n(data_ + offset + within, count, scratch + done);
      else
        std::fill_n(scratch + done, count, data_[offset]);
      done += count;
      advance();
    }
    return scratch;
  }

private:
  /// Writes `n` elements of runs of run_ (under 32) into `scratch`: the
  /// run at `from` from its element `within`, then the runs `next` gives
  /// (the run after the one it is handed). A copied run reads its
  /// elements, a repeated one its first; runs of 2 and 4 (GridSample's and
  /// RoiAlign's taps) have their length known to the compiler.
  template <typename Next>
  void shortRuns(S *scratch, int64_t n, int64_t within, const S *from,
                 Next next) const {
    auto write = [&](auto run, auto copy) {
      constexpr int64_t kRun = decltype(run)::value;
      constexpr int64_t kStep = decltype(copy)::value;
      int64_t length = kRun ? kRun : run_, i = 0;
      if (within) { // The rest of the run holding the first element.
        for (; within < length && i < n; ++within, ++i)
          scratch[i] = from[within * kStep];
        if (i == n)
          return;
        from = next(from);
      }
      for (; i + length <= n; i += length, from = next(from))
        for (int64_t k = 0; k < length; ++k)
          scratch[i + k] = from[k * kStep];
      for (int64_t k = 0; i < n; ++i, ++k)
        scratch[i] = from[k * kStep];
    };
    auto withRun = [&](auto copy) {
      if (run_ == 2)
        write(std::integral_constant<int64_t, 2>(), copy);
      else if (run_ == 4)
        write(std::integral_constant<int64_t, 4>(), copy);
      else
        write(std::integral_constant<int64_t, 0>(), copy);
    };
    if (kind_ == Kind::Copy)
      withRun(std::integral_constant<int64_t, 1>());
    else
      withRun(std::integral_constant<int64_t, 0>());
  }

  enum class Kind { InPlace, Single, Copy, Repeat };
  const S *data_;
  Kind kind_ = Kind::InPlace;
  int64_t run_ = 1; ///< Elements per run (Copy, Repeat).
  /// The dimensions outside the run, merged: sizes, the operand's strides,
  /// and the odometer's index.
  llvm::SmallVector<int64_t, 4> outer_, strides_, index_;
  /// Single, and a periodic Copy: the scratch already filled, its count,
  /// and (periodic) the phase of its first element in the run.
  const S *filled_ = nullptr;
  int64_t filledCount_ = 0, filledPhase_ = 0;
};

/// Elements per block: the scratch of a fused kernel stays in cache.
constexpr int64_t kBlock = 4096;
/// Fewer elements than this: a fused op's block runs inline, not in the
/// vector clones.
constexpr int64_t kInlineBlock = 64;

Status integerDivisionStatus() {
  if (!integerDivisionByZero)
    return Status::ok();
  integerDivisionByZero = false;
  return Status::invalidArgument("Integer division by zero");
}

/// Whether shapes `a` and `b` are equal, compared inline: a launch of a
/// few elements spent more in memcmp's call than in its loop.
inline bool sameShape(const std::vector<int64_t> &a,
                      const std::vector<int64_t> &b) {
  size_t rank = a.size();
  if (rank != b.size())
    return false;
  for (size_t d = 0; d < rank; ++d)
    if (a[d] != b[d])
      return false;
  return true;
}

template <Kernel K> Status runElementwise(const KernelCall &call) {
  return dispatch<kernelCpuTypes(K)>(
      call.outputs[0].type->elementType, K, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        const std::vector<int64_t> &shape = call.outputs[0].type->shape;
        int64_t n = call.outputs[0].type->numElements();
        S *out = ptr<S>(call.outputs[0]);
        // The common case, without allocating: no operand is broadcast.
        constexpr size_t kInline = 8;
        if (call.inputs.size() <= kInline &&
            std::all_of(call.inputs.begin(), call.inputs.end(),
                        [&](const TensorRef &input) {
                          return sameShape(input.type->shape, shape);
                        })) {
          std::array<const S *, kInline> in{};
          for (size_t k = 0; k < call.inputs.size(); ++k)
            in[k] = ptr<S>(call.inputs[k]);
          elementwiseLoop<K, S>(call.inputs.size(), out, in.data(), n);
          if constexpr (std::is_integral_v<S>)
            return integerDivisionStatus();
          return Status::ok();
        }
        std::vector<BroadcastReader<S>> readers;
        for (const TensorRef &input : call.inputs)
          readers.emplace_back(input, shape);
        size_t block = static_cast<size_t>(std::min(n, kBlock));
        // Not value-initialized: every element read is written first.
        std::unique_ptr<S[]> scratch(new S[call.inputs.size() * block]);
        std::vector<const S *> in(call.inputs.size());
        for (int64_t start = 0; start < n; start += kBlock) {
          int64_t count = std::min(kBlock, n - start);
          for (size_t k = 0; k < readers.size(); ++k)
            in[k] = readers[k].read(start, count, scratch.get() + k * block);
          elementwiseLoop<K, S>(in.size(), out + start, in.data(), count);
        }
        return integerDivisionStatus();
      });
}

//===----------------------------------------------------------------------===//
// Reductions and softmax.
//===----------------------------------------------------------------------===//

template <Kernel K> Status runReduce(const KernelCall &call) {
  const TensorType &inType = *call.inputs[0].type;
  // Strides into the output, 0 along reduced dimensions.
  std::vector<bool> reduced(inType.shape.size(), false);
  for (int64_t axis : call.params->axes)
    reduced[axis] = true;
  std::vector<int64_t> outStrides(inType.shape.size(), 0);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(inType.shape.size()) - 1; d >= 0;
       --d) {
    if (reduced[d])
      continue;
    outStrides[d] = stride;
    stride *= inType.shape[d];
  }
  int64_t outCount = call.outputs[0].type->numElements();
  int64_t perOutput = outCount ? inType.numElements() / outCount : 0;
  return dispatch<kernelCpuTypes(K)>(
      inType.elementType, K, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        // Sums of floats accumulate in double: a long f32 sum taken in f32
        // drifts (262144 squares of 0.49 summed 0.27% low, where
        // TensorFlow's blocked Eigen reduction and the GPU's tree are
        // within 1e-5). A maximum is exact in any precision: the compute
        // type (float for f32 and the halves). Integers in their wrapping
        // compute type.
        using A = std::conditional_t<
            K != Kernel::ReduceMax &&
                (isHalf<S> || std::is_floating_point_v<S>),
            double, Compute<S>>;
        constexpr bool isFloat = std::is_floating_point_v<A>;
        A init = A(0);
        if constexpr (K == Kernel::ReduceMax) {
          // TensorFlow: the maximum of nothing is -inf (lowest for ints).
          if constexpr (isFloat)
            init = -std::numeric_limits<A>::infinity();
          else
            init = A(std::numeric_limits<S>::lowest());
        }
        const S *in = ptr<S>(call.inputs[0]);
        S *out = ptr<S>(call.outputs[0]);
        auto combine = [](A &slot, A x) {
          if constexpr (K == Kernel::ReduceMax) {
            if constexpr (isFloat) { // NaN wins, as in TensorFlow's Max:
              // a NaN slot stays (x > NaN is false) unless x is NaN too.
              // Selects, not branches: on random data `x > slot` is
              // mispredicted often.
              A larger = x > slot ? x : slot;
              slot = std::isnan(x) ? x : larger;
            } else if (x > slot) {
              slot = x;
            }
          } else {
            slot = slot + x;
          }
        };
        // A mean over a power of two of elements multiplies by its exact
        // reciprocal: the same correctly rounded value as the division,
        // which took 90 µs of SSE2 divpd for 89373 means, the multiply 47.
        bool powerOfTwo = perOutput > 0 && (perOutput & (perOutput - 1)) == 0;
        A reciprocal = A(1);
        if constexpr (isFloat)
          reciprocal = powerOfTwo ? A(1) / static_cast<A>(perOutput) : A(0);
        auto finish = [&](A value) {
          if constexpr (K == Kernel::ReduceMean) {
            // TensorFlow: the mean of nothing is NaN (0 for integers).
            if constexpr (isFloat)
              value = powerOfTwo ? value * reciprocal
                                 : value / static_cast<A>(perOutput);
            else if (perOutput > 0)
              value = value / A(static_cast<S>(perOutput));
          }
          return static_cast<S>(value);
        };
        // Reduced axes that are one contiguous group with kept axes after
        // them, [outer, reduced, inner] (a 3-D pool's depth taps, [93, 2,
        // 961]): a block of inner accumulators at a time, on the stack,
        // each taking its elements in the input's order as below, so the
        // same values. The general loop's accumulator of every output
        // (715 KB of doubles there) took 69-78 µs, this 47 µs.
        {
          int64_t rank = static_cast<int64_t>(inType.shape.size());
          int64_t first = 0;
          while (first < rank && !reduced[first])
            ++first;
          int64_t last = first;
          while (last < rank && reduced[last])
            ++last;
          bool grouped = first < rank && last < rank &&
                         std::find(reduced.begin() + last, reduced.end(),
                                   true) == reduced.end();
          if (grouped && outCount > 0) {
            int64_t outer = 1, group = 1, inner = 1;
            for (int64_t d = 0; d < rank; ++d)
              (d < first ? outer : d < last ? group : inner) *=
                  inType.shape[d];
            if (inner == 1) { // One accumulator per output, in a register.
              for (int64_t o = 0; o < outer; ++o) {
                A acc = init;
                const S *x = in + o * group;
                for (int64_t r = 0; r < group; ++r)
                  combine(acc, A(x[r]));
                out[o] = finish(acc);
              }
              return Status::ok();
            }
            constexpr int64_t kSlots = 512;
            A slots[kSlots];
            for (int64_t o = 0; o < outer; ++o)
              for (int64_t c = 0; c < inner; c += kSlots) {
                int64_t width = std::min(kSlots, inner - c);
                std::fill_n(slots, width, init);
                const S *x = in + o * group * inner + c;
                for (int64_t r = 0; r < group; ++r, x += inner)
                  for (int64_t j = 0; j < width; ++j)
                    combine(slots[j], A(x[j]));
                S *y = out + o * inner + c;
                for (int64_t j = 0; j < width; ++j)
                  y[j] = finish(slots[j]);
              }
            return Status::ok();
          }
        }
        // The innermost dimensions, all kept or all reduced, are one run
        // of `run` input elements: kept, it goes to as many consecutive
        // accumulators; reduced, to one. Each accumulator takes its
        // elements in the input's order either way, as element by element.
        size_t inner = inType.shape.size();
        bool keptRun = inner > 0 && !reduced[inner - 1];
        int64_t run = 1;
        while (inner > 0 && reduced[inner - 1] != keptRun) {
          run *= inType.shape[inner - 1];
          --inner;
        }
        std::vector<A> acc(outCount, init);
        std::vector<int64_t> index(inner, 0);
        int64_t total = run > 0 ? inType.numElements() : 0, o = 0;
        for (int64_t i = 0; i < total; i += run) {
          const S *x = in + i;
          if (keptRun) {
            A *slots = acc.data() + o;
            for (int64_t j = 0; j < run; ++j)
              combine(slots[j], A(x[j]));
          } else {
            A slot = acc[o];
            for (int64_t j = 0; j < run; ++j)
              combine(slot, A(x[j]));
            acc[o] = slot;
          }
          for (int64_t d = static_cast<int64_t>(inner) - 1; d >= 0; --d) {
            o += outStrides[d];
            if (++index[d] < inType.shape[d])
              break;
            o -= outStrides[d] * inType.shape[d];
            index[d] = 0;
          }
        }
        for (int64_t i = 0; i < outCount; ++i)
          out[i] = finish(acc[i]);
        return Status::ok();
      });
}

template <Kernel K> Status runKernel(const KernelCall &call) {
  static_assert(isElementwiseKernel(K),
                "a kernel of the op table has no host implementation: "
                "specialise runKernel for it");
  return runElementwise<K>(call);
}

template <> Status runKernel<Kernel::ReduceSum>(const KernelCall &call) {
  return runReduce<Kernel::ReduceSum>(call);
}
template <> Status runKernel<Kernel::ReduceMean>(const KernelCall &call) {
  return runReduce<Kernel::ReduceMean>(call);
}
template <> Status runKernel<Kernel::ReduceMax>(const KernelCall &call) {
  return runReduce<Kernel::ReduceMax>(call);
}

/// x[i] = e^x[i] for i < n: vectorExp for float and double (VectorMath.h,
/// within its ulp bound), std::exp otherwise.
template <typename A> void expInPlace(A *x, int64_t n) {
  if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double>) {
    vectorExp(x, x, n);
  } else {
    for (int64_t i = 0; i < n; ++i)
      x[i] = std::exp(x[i]);
  }
}

template <> Status runKernel<Kernel::Softmax>(const KernelCall &call) {
  const TensorType &type = *call.inputs[0].type;
  int64_t cols = type.shape.back();
  int64_t rows = cols ? type.numElements() / cols : 0;
  return dispatch<kernelCpuTypes(Kernel::Softmax)>(
      type.elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        using A = Compute<S>;
        const S *in = ptr<S>(call.inputs[0]);
        S *out = ptr<S>(call.outputs[0]);
        // A row's exponentials at once (expInPlace), then normalized.
        std::vector<A> e(static_cast<size_t>(cols));
        for (int64_t r = 0; r < rows; ++r) {
          const S *x = in + r * cols;
          A max = std::numeric_limits<A>::lowest();
          for (int64_t c = 0; c < cols; ++c)
            max = std::max(max, A(x[c]));
          for (int64_t c = 0; c < cols; ++c)
            e[c] = A(x[c]) - max;
          expInPlace(e.data(), cols);
          A sum = 0;
          for (int64_t c = 0; c < cols; ++c)
            sum += e[c];
          for (int64_t c = 0; c < cols; ++c)
            out[r * cols + c] = static_cast<S>(e[c] / sum);
        }
        return Status::ok();
      });
}

//===----------------------------------------------------------------------===//
// Type and shape.
//===----------------------------------------------------------------------===//

/// C++ conversion, with float-to-integer saturating (NaN to 0) instead of
/// undefined behaviour.
template <typename To, typename From> To convert(From value) {
  using FromC = std::conditional_t<isHalf<From>, float, From>;
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<FromC>(value) != FromC(0);
  } else if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>) {
    double x = static_cast<double>(static_cast<FromC>(value));
    if (std::isnan(x))
      return 0;
    if (x <= static_cast<double>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    if (x >= static_cast<double>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else if constexpr (isHalf<To> || isHalf<From>) {
    return static_cast<To>(static_cast<float>(value));
  } else {
    return static_cast<To>(value);
  }
}

template <> Status runKernel<Kernel::Cast>(const KernelCall &call) {
  constexpr unsigned kTypes = kernelCpuTypes(Kernel::Cast);
  int64_t n = call.outputs[0].type->numElements();
  return dispatch<kTypes>(
      call.inputs[0].type->elementType, call.kernel,
      [&](auto fromTag) -> Status {
        using From = typename decltype(fromTag)::type;
        return dispatch<kTypes>(
            call.outputs[0].type->elementType, call.kernel,
            [&](auto toTag) -> Status {
              using To = typename decltype(toTag)::type;
              const From *in = ptr<From>(call.inputs[0]);
              To *out = ptr<To>(call.outputs[0]);
              for (int64_t i = 0; i < n; ++i)
                out[i] = convert<To>(in[i]);
              return Status::ok();
            });
      });
}

/// Copies elements of any type: out[i] = in[base + offset(i)], the offset
/// following `inStrides` over the output's shape.
Status gather(const KernelCall &call, const std::vector<int64_t> &inStrides,
              int64_t base) {
  const TensorType &outType = *call.outputs[0].type;
  int64_t size = elementBytes(outType.elementType);
  const uint8_t *in = static_cast<const uint8_t *>(call.inputs[0].data);
  uint8_t *out = static_cast<uint8_t *>(call.outputs[0].data);
  int64_t total = outType.numElements();
  std::vector<int64_t> index(outType.shape.size(), 0);
  // The innermost dimensions the input keeps contiguous are one run, copied
  // with one memcpy (a slice of whole rows, the ring all-reduce's chunks).
  int64_t run = 1;
  size_t inner = index.size();
  while (inner > 0 && inStrides[inner - 1] == run) {
    run *= outType.shape[inner - 1];
    --inner;
  }
  int64_t offset = 0;
  if (run == 1 && inner > 0 && (size == 4 || size == 8)) {
    // Single elements (a transpose that moves the innermost dimension):
    // the whole innermost dimension in one loop of typed copies, not a
    // memcpy per element (the ONNX CNN's 64x7x7x16 to NCHW: 3x faster).
    int64_t last = static_cast<int64_t>(inner) - 1;
    int64_t n = outType.shape[last], stride = inStrides[last];
    auto rows = [&](auto *typedOut, const auto *typedIn) {
      for (int64_t i = 0; i < total; i += n) {
        const auto *from = typedIn + base + offset;
        for (int64_t j = 0; j < n; ++j)
          typedOut[i + j] = from[j * stride];
        for (int64_t d = last - 1; d >= 0; --d) {
          offset += inStrides[d];
          if (++index[d] < outType.shape[d])
            break;
          offset -= inStrides[d] * outType.shape[d];
          index[d] = 0;
        }
      }
    };
    if (size == 4)
      rows(reinterpret_cast<uint32_t *>(out),
           reinterpret_cast<const uint32_t *>(in));
    else
      rows(reinterpret_cast<uint64_t *>(out),
           reinterpret_cast<const uint64_t *>(in));
    return Status::ok();
  }
  for (int64_t i = 0; i < total; i += run) {
    std::memcpy(out + i * size, in + (base + offset) * size, run * size);
    for (int64_t d = static_cast<int64_t>(inner) - 1; d >= 0; --d) {
      offset += inStrides[d];
      if (++index[d] < outType.shape[d])
        break;
      offset -= inStrides[d] * outType.shape[d];
      index[d] = 0;
    }
  }
  return Status::ok();
}

/// `perm` over `shape` with the input dimensions that stay adjacent and in
/// order in the output merged, and dimensions of size 1 dropped: NHWC to
/// NCHW, [0, 3, 1, 2] over [N, H, W, C], is [0, 2, 1] over [N, H * W, C].
/// Returns the merged shape (of the input) and permutation.
std::pair<std::vector<int64_t>, std::vector<int64_t>>
mergedPermutation(const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &perm) {
  std::vector<int64_t> kept; // perm without the unit dimensions
  for (int64_t p : perm)
    if (shape[p] != 1)
      kept.push_back(p);
  // Runs of consecutive input dimensions in output order.
  std::vector<std::vector<int64_t>> runs;
  for (int64_t p : kept)
    if (!runs.empty() && runs.back().back() + 1 == p)
      runs.back().push_back(p);
    else
      runs.push_back({p});
  // Each run's rank among the runs by input order is its merged dimension.
  std::vector<size_t> byInput(runs.size());
  for (size_t i = 0; i < runs.size(); ++i)
    byInput[i] = i;
  std::sort(byInput.begin(), byInput.end(), [&](size_t a, size_t b) {
    return runs[a].front() < runs[b].front();
  });
  std::vector<int64_t> mergedShape(runs.size()), mergedPerm(runs.size());
  for (size_t rank = 0; rank < byInput.size(); ++rank) {
    const std::vector<int64_t> &run = runs[byInput[rank]];
    int64_t size = 1;
    for (int64_t d : run)
      size *= shape[d];
    mergedShape[rank] = size;
    mergedPerm[byInput[rank]] = static_cast<int64_t>(rank);
  }
  return {mergedShape, mergedPerm};
}

/// Transposes the 4x4 block at `from` (rows `inStride` elements apart) to
/// `to` (rows `outStride` elements apart): to[j][i] = from[i][j]. For
/// 4-byte elements, four loads, SSE's register transpose and four stores.
template <typename T>
inline void transposeBlock4(const T *from, T *to, int64_t inStride,
                            int64_t outStride) {
#if defined(__SSE2__)
  if constexpr (sizeof(T) == 4) {
    __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float *>(from));
    __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float *>(from + inStride));
    __m128 r2 =
        _mm_loadu_ps(reinterpret_cast<const float *>(from + 2 * inStride));
    __m128 r3 =
        _mm_loadu_ps(reinterpret_cast<const float *>(from + 3 * inStride));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(reinterpret_cast<float *>(to), r0);
    _mm_storeu_ps(reinterpret_cast<float *>(to + outStride), r1);
    _mm_storeu_ps(reinterpret_cast<float *>(to + 2 * outStride), r2);
    _mm_storeu_ps(reinterpret_cast<float *>(to + 3 * outStride), r3);
    return;
  }
#endif
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t i = 0; i < 4; ++i)
      to[j * outStride + i] = from[i * inStride + j];
}

/// The power of two that divides `bytes`, as an exponent (64 for 0).
inline int alignmentBits(int64_t bytes) {
  return bytes == 0 ? 64 : __builtin_ctzll(static_cast<uint64_t>(bytes));
}

/// Transposes rows [i0, i1) of a matrix of `rows` x Cols, Cols 2 or 3:
/// out[j][i] = in[i][j]. A constant Cols lets the compiler turn the loop
/// into vector shuffles ([29791, 3] to [3, 29791] on one thread: 15 µs,
/// 28 µs as the edge of 4x4 blocks).
template <typename T, int Cols>
void transposeFewColumns(const T *from, T *to, int64_t rows, int64_t i0,
                         int64_t i1) {
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = 0; j < Cols; ++j)
      to[j * rows + i] = from[i * Cols + j];
}

/// Transposes columns [j0, j1) of a matrix of Rows x `cols`, Rows 2 or 3
/// ([3, 29791] to [29791, 3] on one thread: 15 µs, 45 µs as the edge of
/// 4x4 blocks).
template <typename T, int Rows>
void transposeFewRows(const T *from, T *to, int64_t cols, int64_t j0,
                      int64_t j1) {
  for (int64_t j = j0; j < j1; ++j)
    for (int64_t i = 0; i < Rows; ++i)
      to[j * Rows + i] = from[i * cols + j];
}

/// out[b][j][i] = in[b][i][j] for `batches` matrices of rows x cols, in
/// 4x4 register blocks (transposeBlock4) within tiles, the tiles spread
/// over the host's threads (parallelFor). A matrix of 2 or 3 rows or
/// columns runs transposeFewRows or transposeFewColumns over its tiles.
///
/// A tile is walked along the side whose rows are the larger power of two
/// apart, so that only four of that side's rows are in use at a time: rows
/// 4 KB apart share one set of the L1 cache, and sixteen of them (a 16x16
/// tile) evict each other. [96, 1024] of f32 took 55 µs in 16x16 tiles of
/// scalar copies, 14 µs so; its reverse, [1024, 96] (writes 4 KB apart),
/// 34 µs, 12 µs walked the other way, 160 µs the same way (one thread).
template <typename T>
void transposeBatched(const T *in, T *out, int64_t batches, int64_t rows,
                      int64_t cols) {
  // The input's rows are the further apart: 4-row strips along them (16 x
  // 64 tiles); else 4-column strips along the output's rows (64 x 16).
  bool alongInput = alignmentBits(cols * int64_t(sizeof(T))) >
                    alignmentBits(rows * int64_t(sizeof(T)));
  int64_t tileRows = alongInput ? 16 : 64, tileCols = alongInput ? 64 : 16;
  bool fewColumns = cols == 2 || cols == 3, fewRows = rows == 2 || rows == 3;
  if (fewColumns)
    tileRows = 1024, tileCols = cols;
  else if (fewRows)
    tileRows = rows, tileCols = 1024;
  int64_t rowTiles = (rows + tileRows - 1) / tileRows;
  int64_t colTiles = (cols + tileCols - 1) / tileCols;
  int64_t tilesPerBatch = rowTiles * colTiles;
  int64_t units = batches * tilesPerBatch, total = batches * rows * cols;
  if (total == 0)
    return;
  // A thread per kTransposePerThread elements: a copy costs each
  // element 0.1-0.15 ns on one thread, so a thread's share takes about
  // the 20 µs kWorkPerThread gives a launch (at 16384 elements a thread,
  // the default, a 3-D pool's [961, 96] to [96, 961] took 40 µs on two
  // threads and 12 µs on one, a worker's wake-up outweighing the copy).
  constexpr int64_t kTransposePerThread = 131072;
  parallelFor(total, [&](int64_t begin, int64_t end) {
    // This thread's share of the element range, as whole tiles.
    int64_t first = static_cast<int64_t>(static_cast<__int128>(begin) *
                                         units / total);
    int64_t last = static_cast<int64_t>(static_cast<__int128>(end) * units /
                                        total);
    for (int64_t unit = first; unit < last; ++unit) {
      int64_t b = unit / tilesPerBatch, tile = unit % tilesPerBatch;
      int64_t i0 = tile / colTiles * tileRows;
      int64_t i1 = std::min(rows, i0 + tileRows);
      int64_t j0 = tile % colTiles * tileCols;
      int64_t j1 = std::min(cols, j0 + tileCols);
      const T *from = in + b * rows * cols;
      T *to = out + b * rows * cols;
      if (fewColumns) {
        (cols == 2 ? transposeFewColumns<T, 2> : transposeFewColumns<T, 3>)(
            from, to, rows, i0, i1);
        continue;
      }
      if (fewRows) {
        (rows == 2 ? transposeFewRows<T, 2> : transposeFewRows<T, 3>)(
            from, to, cols, j0, j1);
        continue;
      }
      // The tile's whole 4x4 blocks end at (i4, j4).
      int64_t i4 = i0 + (i1 - i0) / 4 * 4, j4 = j0 + (j1 - j0) / 4 * 4;
      if (alongInput) {
        for (int64_t i = i0; i < i4; i += 4)
          for (int64_t j = j0; j < j4; j += 4)
            transposeBlock4(from + i * cols + j, to + j * rows + i, cols,
                            rows);
      } else {
        for (int64_t j = j0; j < j4; j += 4)
          for (int64_t i = i0; i < i4; i += 4)
            transposeBlock4(from + i * cols + j, to + j * rows + i, cols,
                            rows);
      }
      // The edges: the last columns (all rows), the last rows.
      for (int64_t j = j4; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i)
          to[j * rows + i] = from[i * cols + j];
      for (int64_t j = j0; j < j4; ++j)
        for (int64_t i = i4; i < i1; ++i)
          to[j * rows + i] = from[i * cols + j];
    }
  }, kTransposePerThread);
}

template <> Status runKernel<Kernel::Transpose>(const KernelCall &call) {
  // A batched 2-D transpose (NHWC to NCHW and back, a matrix's transpose)
  // of 4- or 8-byte elements runs tiled: the gather below reads one
  // element per step along a short innermost dimension (128x5x5x64 to
  // NCHW: 120 µs gathered).
  int64_t bytes = elementBytes(call.inputs[0].type->elementType);
  auto [shape, perm] =
      mergedPermutation(call.inputs[0].type->shape, call.params->perm);
  bool batched2d = (perm == std::vector<int64_t>{1, 0} ||
                    perm == std::vector<int64_t>{0, 2, 1});
  if (batched2d && (bytes == 4 || bytes == 8)) {
    int64_t batches = perm.size() == 3 ? shape[0] : 1;
    int64_t rows = shape[perm.size() - 2], cols = shape[perm.size() - 1];
    if (bytes == 4)
      transposeBatched(static_cast<const uint32_t *>(call.inputs[0].data),
                       static_cast<uint32_t *>(call.outputs[0].data), batches,
                       rows, cols);
    else
      transposeBatched(static_cast<const uint64_t *>(call.inputs[0].data),
                       static_cast<uint64_t *>(call.outputs[0].data), batches,
                       rows, cols);
    return Status::ok();
  }
  std::vector<int64_t> own = rowMajorStrides(call.inputs[0].type->shape);
  std::vector<int64_t> strides;
  for (int64_t p : call.params->perm)
    strides.push_back(own[p]);
  return gather(call, strides, 0);
}

template <> Status runKernel<Kernel::Slice>(const KernelCall &call) {
  std::vector<int64_t> own = rowMajorStrides(call.inputs[0].type->shape);
  int64_t base = 0;
  for (size_t d = 0; d < own.size(); ++d)
    base += call.params->begin[d] * own[d];
  return gather(call, own, base);
}

template <> Status runKernel<Kernel::Concat>(const KernelCall &call) {
  const TensorType &outType = *call.outputs[0].type;
  int64_t axis = call.params->axis;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= outType.shape[d];
  int64_t size = elementBytes(outType.elementType);
  uint8_t *out = static_cast<uint8_t *>(call.outputs[0].data);
  // Each input's bytes per outer index, computed once.
  std::vector<int64_t> chunks;
  bool single = size == 4;
  for (const TensorRef &input : call.inputs) {
    chunks.push_back((outer ? input.type->numElements() / outer : 0) * size);
    single = single && chunks.back() == size;
  }
  if (single) {
    // One 4-byte element of each input per outer index (coordinates joined
    // along a last axis): typed copies, not a memcpy call each.
    size_t count = call.inputs.size();
    auto *to = reinterpret_cast<uint32_t *>(out);
    for (size_t k = 0; k < count; ++k) {
      const auto *from = static_cast<const uint32_t *>(call.inputs[k].data);
      for (int64_t o = 0; o < outer; ++o)
        to[o * count + k] = from[o];
    }
    return Status::ok();
  }
  for (int64_t o = 0; o < outer; ++o)
    for (size_t k = 0; k < call.inputs.size(); ++k) {
      int64_t chunk = chunks[k];
      if (chunk > 0)
        std::memcpy(out,
                    static_cast<const uint8_t *>(call.inputs[k].data) +
                        o * chunk,
                    chunk);
      out += chunk;
    }
  return Status::ok();
}

/// The output gets the input's bytes (read of a variable, assign).
Status copyData(const KernelCall &call) {
  int64_t bytes = call.outputs[0].type->bytes();
  if (bytes > 0 && call.outputs[0].data != call.inputs[0].data)
    std::memmove(call.outputs[0].data, call.inputs[0].data, bytes);
  return Status::ok();
}

template <> Status runKernel<Kernel::Read>(const KernelCall &call) {
  return copyData(call);
}
template <> Status runKernel<Kernel::Assign>(const KernelCall &call) {
  return copyData(call);
}

/// var (outputs[0]) = var op value (inputs[0]).
template <Kernel K> Status assignUpdate(const KernelCall &call) {
  return dispatch<kernelCpuTypes(K)>(
      call.inputs[0].type->elementType, K, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        using T = Compute<S>;
        const S *value = ptr<S>(call.inputs[0]);
        S *var = ptr<S>(call.outputs[0]);
        for (int64_t i = 0, n = call.inputs[0].type->numElements(); i < n;
             ++i)
          var[i] = static_cast<S>(K == Kernel::AssignAdd
                                      ? T(var[i]) + T(value[i])
                                      : T(var[i]) - T(value[i]));
        return Status::ok();
      });
}
template <> Status runKernel<Kernel::AssignAdd>(const KernelCall &call) {
  return assignUpdate<Kernel::AssignAdd>(call);
}
template <> Status runKernel<Kernel::AssignSub>(const KernelCall &call) {
  return assignUpdate<Kernel::AssignSub>(call);
}

//===----------------------------------------------------------------------===//
// Matrix product.
//===----------------------------------------------------------------------===//

template <> Status runKernel<Kernel::Matmul>(const KernelCall &call) {
  const TensorType &aType = *call.inputs[0].type, &bType = *call.inputs[1].type;
  bool ta = call.params->transposeA, tb = call.params->transposeB;
  int64_t m = ta ? aType.shape[1] : aType.shape[0];
  int64_t k = ta ? aType.shape[0] : aType.shape[1];
  int64_t n = tb ? bType.shape[0] : bType.shape[1];
  int64_t lda = aType.shape[1], ldb = bType.shape[1];
  CBLAS_TRANSPOSE transA = ta ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE transB = tb ? CblasTrans : CblasNoTrans;
  if (m == 0 || n == 0)
    return Status::ok();
  // f32 (and f16, bf16 through f32): oneDNN's matmul where gplace has
  // oneDNN (faster than OpenBLAS 0.3.21 on the MLPs' shapes, and on the
  // convolutions' threads: docs/runtime.md), else OpenBLAS.
  // `packB`: b is the launch's constant input itself (not a converted
  // copy), which the kernel may keep in the library's layout.
  auto sgemm = [&](const float *a, const float *b, float *c,
                   bool packB) -> Status {
#ifdef GPLACE_HAVE_DNNL
    return runDnnlMatmul(call, ta, tb, m, n, k, a, lda, b, ldb, c, n, packB);
#else
    cblas_sgemm(CblasRowMajor, transA, transB, m, n, k, 1.0f, a, lda, b, ldb,
                0.0f, c, n);
    return Status::ok();
#endif
  };
  return dispatch<kernelCpuTypes(Kernel::Matmul)>(
      aType.elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        const S *a = ptr<S>(call.inputs[0]), *b = ptr<S>(call.inputs[1]);
        S *c = ptr<S>(call.outputs[0]);
        if (k == 0) {
          std::fill(c, c + m * n, S(0));
        } else if constexpr (std::is_same_v<S, float>) {
          return sgemm(a, b, c, call.inputs[1].constant && call.state);
        } else if constexpr (std::is_same_v<S, double>) {
          cblas_dgemm(CblasRowMajor, transA, transB, m, n, k, 1.0, a, lda, b,
                      ldb, 0.0, c, n);
        } else if constexpr (isHalf<S>) {
#ifdef GPLACE_HAVE_DNNL
          // bf16 on oneDNN's native kernels where they are faster (AMX;
          // dnnlNativeBf16), as TensorFlow's oneDNN build runs them.
          if constexpr (std::is_same_v<S, BFloat16>)
            if (dnnlNativeBf16())
              return runDnnlMatmulBf16(
                  call, ta, tb, m, n, k, reinterpret_cast<const uint16_t *>(a),
                  lda, reinterpret_cast<const uint16_t *>(b), ldb,
                  reinterpret_cast<uint16_t *>(c), n,
                  call.inputs[1].constant && call.state);
#endif
          // a, b and c widened to f32 in the thread's buffer, kept from
          // launch to launch (grown, never per launch), as oneDNN's
          // scratchpads without a workspace (DnnlKernels.cpp).
          thread_local std::vector<float> widened;
          int64_t aSize = aType.numElements(), bSize = bType.numElements();
          if (widened.size() < static_cast<size_t>(aSize + bSize + m * n))
            widened.resize(aSize + bSize + m * n);
          float *fa = widened.data(), *fb = fa + aSize, *fc = fb + bSize;
          for (int64_t i = 0; i < aSize; ++i)
            fa[i] = static_cast<float>(a[i]);
          for (int64_t i = 0; i < bSize; ++i)
            fb[i] = static_cast<float>(b[i]);
          GPLACE_RETURN_IF_ERROR(sgemm(fa, fb, fc, /*packB=*/false));
          for (int64_t i = 0; i < m * n; ++i)
            c[i] = static_cast<S>(fc[i]);
        } else {
          // Integers: wrap on overflow, as TensorFlow's integer MatMul does.
          using T = Compute<S>;
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              T sum = T(0);
              for (int64_t p = 0; p < k; ++p) {
                T x = ta ? a[p * lda + i] : a[i * lda + p];
                T y = tb ? b[j * ldb + p] : b[p * ldb + j];
                sum = sum + x * y;
              }
              c[i * n + j] = static_cast<S>(sum);
            }
        }
        return Status::ok();
      });
}

/// matmul_accumulate: C = op(A) op(B) + C, f32 on oneDNN's matmul with a
/// sum post-op where gplace has oneDNN (matmul's library and threads), else
/// GEMM with beta = 1 (OpenBLAS), on the output, which holds the
/// accumulator (inputs[0]) already where the memory plan put it there (in
/// place), else gets a copy of it first.
template <> Status runKernel<Kernel::MatmulAccumulate>(const KernelCall &call) {
  const TensorType &aType = *call.inputs[1].type, &bType = *call.inputs[2].type;
  bool ta = call.params->transposeA, tb = call.params->transposeB;
  int64_t m = ta ? aType.shape[1] : aType.shape[0];
  int64_t k = ta ? aType.shape[0] : aType.shape[1];
  int64_t n = tb ? bType.shape[0] : bType.shape[1];
  int64_t lda = aType.shape[1], ldb = bType.shape[1];
  CBLAS_TRANSPOSE transA = ta ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE transB = tb ? CblasTrans : CblasNoTrans;
  GPLACE_RETURN_IF_ERROR(copyData(call));
  if (m == 0 || n == 0 || k == 0)
    return Status::ok();
  return dispatch<kernelCpuTypes(Kernel::MatmulAccumulate)>(
      aType.elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        const S *a = ptr<S>(call.inputs[1]), *b = ptr<S>(call.inputs[2]);
        S *c = ptr<S>(call.outputs[0]);
        if constexpr (std::is_same_v<S, float>) {
#ifdef GPLACE_HAVE_DNNL
          return runDnnlMatmulAccumulate(call, ta, tb, m, n, k, a, lda, b,
                                         ldb, c, n);
#else
          cblas_sgemm(CblasRowMajor, transA, transB, m, n, k, 1.0f, a, lda, b,
                      ldb, 1.0f, c, n);
#endif
        } else if constexpr (std::is_same_v<S, double>)
          cblas_dgemm(CblasRowMajor, transA, transB, m, n, k, 1.0, a, lda, b,
                      ldb, 1.0, c, n);
        else
          return Status::internal("matmul_accumulate has no host kernel of "
                                  "this type");
        return Status::ok();
      });
}

//===----------------------------------------------------------------------===//
// Training: broadcasting, padding, the loss, metrics, random numbers and
// the optimizers.
//===----------------------------------------------------------------------===//

/// Writes dimensions [d, rank) of a broadcast: `out` receives the block of
/// `blockBytes[d]` bytes whose input elements start at `in`. A dimension the
/// input repeats (stride 0) is written once and its copy doubled by memcpy
/// (Tile's [2,3,4,5] by [7,6,4,2]: 11 copies of growing blocks, not 8,064 of
/// 20 bytes); a run the input keeps contiguous is one memcpy; an innermost
/// repeated element is a typed fill.
void broadcastBlock(const uint8_t *in, uint8_t *out,
                    const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &strides,
                    const std::vector<int64_t> &blockBytes, size_t run,
                    int64_t size, size_t d) {
  if (d == run) { // The contiguous innermost dimensions (maybe none).
    std::memcpy(out, in, static_cast<size_t>(blockBytes[d]));
    return;
  }
  int64_t n = shape[d], inner = blockBytes[d + 1];
  if (strides[d] == 0) {
    if (d + 1 == shape.size()) { // One element repeated n times.
      if (size == 4)
        std::fill_n(reinterpret_cast<uint32_t *>(out), n,
                    *reinterpret_cast<const uint32_t *>(in));
      else if (size == 8)
        std::fill_n(reinterpret_cast<uint64_t *>(out), n,
                    *reinterpret_cast<const uint64_t *>(in));
      else
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(out + i * size, in, static_cast<size_t>(size));
      return;
    }
    broadcastBlock(in, out, shape, strides, blockBytes, run, size, d + 1);
    for (int64_t done = 1; done < n;) {
      int64_t copies = std::min(done, n - done);
      std::memcpy(out + done * inner, out, static_cast<size_t>(copies * inner));
      done += copies;
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    broadcastBlock(in + i * strides[d] * size, out + i * inner, shape, strides,
                   blockBytes, run, size, d + 1);
}

template <> Status runKernel<Kernel::BroadcastTo>(const KernelCall &call) {
  const TensorType &outType = *call.outputs[0].type;
  const std::vector<int64_t> &shape = outType.shape;
  std::vector<int64_t> strides =
      broadcastStrides(call.inputs[0].type->shape, shape);
  int64_t size = elementBytes(outType.elementType);
  if (outType.numElements() == 0)
    return Status::ok();
  // blockBytes[d]: the bytes of one index of dimension d - 1, i.e. of
  // dimensions [d, rank); `run`: where the input's contiguous run begins.
  std::vector<int64_t> blockBytes(shape.size() + 1, size);
  for (size_t d = shape.size(); d-- > 0;)
    blockBytes[d] = blockBytes[d + 1] * shape[d];
  size_t run = shape.size();
  for (int64_t expect = 1; run > 0 && strides[run - 1] == expect; --run)
    expect *= shape[run - 1];
  broadcastBlock(static_cast<const uint8_t *>(call.inputs[0].data),
                 static_cast<uint8_t *>(call.outputs[0].data), shape, strides,
                 blockBytes, run, size, 0);
  return Status::ok();
}

template <> Status runKernel<Kernel::Pad>(const KernelCall &call) {
  const TensorType &inType = *call.inputs[0].type;
  const TensorType &outType = *call.outputs[0].type;
  int64_t size = elementBytes(outType.elementType);
  uint8_t *out = static_cast<uint8_t *>(call.outputs[0].data);
  const uint8_t *in = static_cast<const uint8_t *>(call.inputs[0].data);
  int64_t total = outType.numElements();
  if (total > 0)
    std::memset(out, 0, total * size);
  // Each input element to its place in the output.
  std::vector<int64_t> outStrides = rowMajorStrides(outType.shape);
  int64_t base = 0;
  for (size_t d = 0; d < outStrides.size(); ++d)
    base += call.params->paddings[2 * d] * outStrides[d];
  // A row of the input (its last dimension) is contiguous in the output
  // too: one copy per row, the row's place advanced over the outer
  // dimensions.
  int64_t numElements = inType.numElements();
  if (numElements == 0)
    return Status::ok();
  int64_t rank = static_cast<int64_t>(inType.shape.size());
  int64_t rowLength = rank == 0 ? 1 : inType.shape[rank - 1];
  int64_t rowBytes = rowLength * size;
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < numElements; i += rowLength) {
    std::memcpy(out + (base + offset) * size, in + i * size, rowBytes);
    for (int64_t d = rank - 2; d >= 0; --d) {
      offset += outStrides[d];
      if (++index[d] < inType.shape[d])
        break;
      offset -= outStrides[d] * inType.shape[d];
      index[d] = 0;
    }
  }
  return Status::ok();
}

/// Reads integer element i of `ref` (i32 or i64) as int64_t.
int64_t readIndex(const TensorRef &ref, int64_t i) {
  if (ref.type->elementType == ElementType::I64)
    return ptr<int64_t>(ref)[i];
  return ptr<int32_t>(ref)[i];
}

template <>
Status runKernel<Kernel::SparseSoftmaxCrossEntropyWithLogits>(
    const KernelCall &call) {
  const TensorType &type = *call.inputs[0].type;
  int64_t rows = type.shape[0], cols = type.shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    int64_t label = readIndex(call.inputs[1], r);
    if (label < 0 || label >= cols)
      return Status::invalidArgument(
          "Received a label value of " + std::to_string(label) +
          " which is outside the valid range of [0, " + std::to_string(cols) +
          ").  Label values: row " + std::to_string(r));
  }
  return dispatch<kernelCpuTypes(Kernel::SparseSoftmaxCrossEntropyWithLogits)>(
      type.elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        using A = std::conditional_t<std::is_same_v<S, double>, double, float>;
        const S *logits = ptr<S>(call.inputs[0]);
        S *loss = ptr<S>(call.outputs[0]);
        S *backprop = ptr<S>(call.outputs[1]);
        // A row's exponentials at once (expInPlace), then normalized.
        std::vector<A> e(static_cast<size_t>(cols));
        for (int64_t r = 0; r < rows; ++r) {
          const S *x = logits + r * cols;
          A max = -std::numeric_limits<A>::infinity();
          for (int64_t c = 0; c < cols; ++c)
            max = std::max(max, A(x[c]));
          for (int64_t c = 0; c < cols; ++c)
            e[c] = A(x[c]) - max;
          expInPlace(e.data(), cols);
          A sum = 0;
          for (int64_t c = 0; c < cols; ++c)
            sum += e[c];
          A logSum = std::log(sum);
          int64_t label = readIndex(call.inputs[1], r);
          // loss = log(sum(exp(x - max))) - (x[label] - max).
          loss[r] = static_cast<S>(logSum - (A(x[label]) - max));
          for (int64_t c = 0; c < cols; ++c)
            backprop[r * cols + c] =
                static_cast<S>(e[c] / sum - (c == label ? A(1) : A(0)));
        }
        return Status::ok();
      });
}

template <> Status runKernel<Kernel::ArgMax>(const KernelCall &call) {
  const TensorType &type = *call.inputs[0].type;
  int64_t axis = call.params->axis;
  int64_t inner = 1, outer = 1, n = type.shape[axis];
  for (size_t d = 0; d < type.shape.size(); ++d)
    (static_cast<int64_t>(d) < axis ? outer : inner) *=
        static_cast<int64_t>(d) == axis ? 1 : type.shape[d];
  bool i64 = call.outputs[0].type->elementType == ElementType::I64;
  return dispatch<kernelCpuTypes(Kernel::Add)>(
      type.elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        using A = std::conditional_t<isHalf<S>, float, S>;
        const S *in = ptr<S>(call.inputs[0]);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            int64_t best = 0;
            for (int64_t k = 1; k < n; ++k) {
              A x = A(in[(o * n + k) * inner + i]);
              A b = A(in[(o * n + best) * inner + i]);
              bool nan = false;
              if constexpr (std::is_floating_point_v<A>)
                nan = std::isnan(b);
              if (nan)
                break; // The first NaN is the largest.
              bool larger = x > b;
              if constexpr (std::is_floating_point_v<A>)
                larger = larger || std::isnan(x);
              if (larger)
                best = k;
            }
            if (i64)
              ptr<int64_t>(call.outputs[0])[o * inner + i] = best;
            else
              ptr<int32_t>(call.outputs[0])[o * inner + i] =
                  static_cast<int32_t>(best);
          }
        return Status::ok();
      });
}

/// TensorFlow's GatherV2 on the CPU: rows of `inner` elements copied from
/// params at each index along the axis; an index out of range is
/// TensorFlow's error, before anything is written. For a GPU (forGpu) it
/// gives a row of zeros, as TensorFlow's GPU kernel.
template <> Status runKernel<Kernel::Gather>(const KernelCall &call) {
  const TensorType &params = *call.inputs[0].type;
  auto axis = static_cast<size_t>(call.params->axis);
  int64_t outer = 1, inner = 1, dim = params.shape[axis];
  for (size_t d = 0; d < axis; ++d)
    outer *= params.shape[d];
  for (size_t d = axis + 1; d < params.shape.size(); ++d)
    inner *= params.shape[d];
  int64_t count = call.inputs[1].type->numElements();
  std::vector<int64_t> indices(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    indices[k] = readIndex(call.inputs[1], k);
    if ((indices[k] < 0 || indices[k] >= dim) && !call.forGpu)
      return Status::invalidArgument(
          "gplace.gather: indices[" + std::to_string(k) +
          "] = " + std::to_string(indices[k]) + " is not in [0, " +
          std::to_string(dim) + ")");
  }
  size_t row = static_cast<size_t>(inner * elementBytes(params.elementType));
  const auto *in = static_cast<const uint8_t *>(call.inputs[0].data);
  auto *out = static_cast<uint8_t *>(call.outputs[0].data);
  // Rows of one 4- or 8-byte element (a gather of single values, as
  // GridSample's taps): typed copies, not a memcpy call each (1200 rows:
  // 2.8 -> 1.0 µs).
  auto elements = [&](auto *typedOut, const auto *typedIn) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < count; ++k)
        typedOut[o * count + k] = indices[k] < 0 || indices[k] >= dim
                                      ? 0
                                      : typedIn[o * dim + indices[k]];
    return Status::ok();
  };
  if (row == 4)
    return elements(reinterpret_cast<uint32_t *>(out),
                    reinterpret_cast<const uint32_t *>(in));
  if (row == 8)
    return elements(reinterpret_cast<uint64_t *>(out),
                    reinterpret_cast<const uint64_t *>(in));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k) {
      uint8_t *to = out + (o * count + k) * row;
      if (indices[k] < 0 || indices[k] >= dim)
        std::memset(to, 0, row);
      else
        std::memcpy(to, in + (o * dim + indices[k]) * row, row);
    }
  return Status::ok();
}

/// XLA's DynamicUpdateSlice on the CPU (TensorFlow's XlaDynamicUpdateSlice):
/// the input copied into the result (nothing where they share a buffer),
/// then the update written row by row at the offsets `indices`, each
/// clamped to [0, input.shape[d] - update.shape[d]] as XLA clamps them, so
/// that the block always fits. The same for a GPU.
template <>
Status runKernel<Kernel::DynamicUpdateSlice>(const KernelCall &call) {
  const TensorType &input = *call.inputs[0].type,
                   &update = *call.inputs[1].type;
  auto *out = static_cast<uint8_t *>(call.outputs[0].data);
  if (call.outputs[0].data != call.inputs[0].data)
    std::memcpy(out, call.inputs[0].data, static_cast<size_t>(input.bytes()));
  int64_t count = update.numElements();
  if (count == 0)
    return Status::ok();
  size_t rank = input.shape.size();
  std::vector<int64_t> begin(rank), strides(rank, 1);
  for (size_t d = rank; d-- > 0;) {
    if (d + 1 < rank)
      strides[d] = strides[d + 1] * input.shape[d + 1];
    begin[d] = std::clamp<int64_t>(readIndex(call.inputs[2],
                                             static_cast<int64_t>(d)),
                                   0, input.shape[d] - update.shape[d]);
  }
  // Rows of the update's last dimension, contiguous in both tensors; `at`
  // counts through the update's leading dimensions.
  int64_t inner = rank ? update.shape[rank - 1] : 1;
  auto element = static_cast<size_t>(elementBytes(input.elementType));
  size_t row = static_cast<size_t>(inner) * element;
  const auto *from = static_cast<const uint8_t *>(call.inputs[1].data);
  std::vector<int64_t> at(rank, 0);
  for (int64_t r = 0, rows = count / inner; r < rows; ++r) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset += (begin[d] + at[d]) * strides[d];
    std::memcpy(out + static_cast<size_t>(offset) * element, from + r * row,
                row);
    for (size_t d = rank > 0 ? rank - 1 : 0; d-- > 0;) {
      if (++at[d] < update.shape[d])
        break;
      at[d] = 0;
    }
  }
  return Status::ok();
}

/// TensorFlow's UnsortedSegmentSum on the CPU: each slice of `inner`
/// elements added into its segment's row, in index order; a negative id is
/// dropped, one at or above the number of segments is TensorFlow's error
/// (dropped too for a GPU, forGpu, as TensorFlow's GPU kernel).
template <>
Status runKernel<Kernel::UnsortedSegmentSum>(const KernelCall &call) {
  const TensorType &out = *call.outputs[0].type;
  int64_t segments = out.shape[0], inner = 1;
  for (size_t d = 1; d < out.shape.size(); ++d)
    inner *= out.shape[d];
  int64_t count = call.inputs[1].type->numElements();
  for (int64_t k = 0; k < count; ++k)
    if (int64_t id = readIndex(call.inputs[1], k);
        id >= segments && !call.forGpu)
      return Status::invalidArgument(
          "gplace.unsorted_segment_sum: segment_ids[" + std::to_string(k) +
          "] = " + std::to_string(id) + " is out of range [0, " +
          std::to_string(segments) + ")");
  return dispatch<kernelCpuTypes(Kernel::UnsortedSegmentSum)>(
      out.elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        // Sums in float for 16-bit floats, wrapping for integers.
        using A = typename std::conditional_t<
            std::is_integral_v<S>, std::make_unsigned<S>,
            std::conditional<std::is_same_v<S, Half> ||
                                 std::is_same_v<S, BFloat16>,
                             float, S>>::type;
        std::vector<A> sums(static_cast<size_t>(segments * inner), A(0));
        const S *data = ptr<S>(call.inputs[0]);
        for (int64_t k = 0; k < count; ++k) {
          int64_t id = readIndex(call.inputs[1], k);
          if (id < 0 || id >= segments)
            continue;
          for (int64_t j = 0; j < inner; ++j)
            sums[id * inner + j] += static_cast<A>(data[k * inner + j]);
        }
        S *result = ptr<S>(call.outputs[0]);
        for (size_t i = 0; i < sums.size(); ++i)
          result[i] = static_cast<S>(sums[i]);
        return Status::ok();
      });
}

/// TensorFlow's comparison and logical kernels (Equal, GreaterEqual,
/// Greater, LogicalAnd, LogicalOr): `compare` of the
/// two operands, of one element type (the kernel's, isKernelTypedByInput),
/// broadcast to the i1 result's shape.
template <Kernel K, typename Compare>
Status runComparison(const KernelCall &call, Compare compare) {
  static_assert(isKernelTypedByInput(K));
  const std::vector<int64_t> &shape = call.outputs[0].type->shape;
  int64_t n = call.outputs[0].type->numElements();
  return dispatch<kernelCpuTypes(K)>(
      call.inputs[0].type->elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        BroadcastReader<S> lhs(call.inputs[0], shape), rhs(call.inputs[1], shape);
        size_t block = static_cast<size_t>(std::min(n, kBlock));
        // Not std::vector: S may be bool.
        std::unique_ptr<S[]> scratch(new S[2 * block]);
        bool *out = ptr<bool>(call.outputs[0]);
        for (int64_t start = 0; start < n; start += kBlock) {
          int64_t count = std::min(kBlock, n - start);
          const S *a = lhs.read(start, count, scratch.get());
          const S *b = rhs.read(start, count, scratch.get() + block);
          for (int64_t i = 0; i < count; ++i)
            out[start + i] = compare(a[i], b[i]);
        }
        return Status::ok();
      });
}

template <> Status runKernel<Kernel::Equal>(const KernelCall &call) {
  return runComparison<Kernel::Equal>(call,
                                      [](auto a, auto b) { return a == b; });
}

template <> Status runKernel<Kernel::GreaterEqual>(const KernelCall &call) {
  return runComparison<Kernel::GreaterEqual>(
      call, [](auto a, auto b) { return a >= b; });
}

template <> Status runKernel<Kernel::Greater>(const KernelCall &call) {
  return runComparison<Kernel::Greater>(call,
                                        [](auto a, auto b) { return a > b; });
}

template <> Status runKernel<Kernel::LogicalAnd>(const KernelCall &call) {
  return runComparison<Kernel::LogicalAnd>(
      call, [](auto a, auto b) { return a && b; });
}

template <> Status runKernel<Kernel::LogicalOr>(const KernelCall &call) {
  return runComparison<Kernel::LogicalOr>(
      call, [](auto a, auto b) { return a || b; });
}

/// TensorFlow's IsInf and IsNan: `test` of each element of a float
/// operand (computed in float for f16 and bf16, which keep their
/// infinities and NaNs), as the i1 result of its shape. The bits are read
/// as they are: no flush changes an infinity or a NaN.
template <Kernel K, typename Test>
Status runFloatPredicate(const KernelCall &call, Test test) {
  static_assert(isKernelTypedByInput(K));
  int64_t n = call.outputs[0].type->numElements();
  return dispatch<kernelCpuTypes(K)>(
      call.inputs[0].type->elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        using T = Compute<S>;
        const S *in = ptr<S>(call.inputs[0]);
        bool *out = ptr<bool>(call.outputs[0]);
        for (int64_t i = 0; i < n; ++i)
          out[i] = test(static_cast<T>(in[i]));
        return Status::ok();
      });
}

template <> Status runKernel<Kernel::IsInf>(const KernelCall &call) {
  return runFloatPredicate<Kernel::IsInf>(
      call, [](auto x) { return std::isinf(x); });
}

template <> Status runKernel<Kernel::IsNan>(const KernelCall &call) {
  return runFloatPredicate<Kernel::IsNan>(
      call, [](auto x) { return std::isnan(x); });
}

template <> Status runKernel<Kernel::LogicalNot>(const KernelCall &call) {
  const bool *in = ptr<bool>(call.inputs[0]);
  bool *out = ptr<bool>(call.outputs[0]);
  for (int64_t i = 0, n = call.outputs[0].type->numElements(); i < n; ++i)
    out[i] = !in[i];
  return Status::ok();
}

/// TensorFlow's SelectV2: `then` where the condition holds, else `else`,
/// the three operands broadcast to the result's shape. Values are copied,
/// not computed with, so a NaN in the operand not chosen stays out.
template <> Status runKernel<Kernel::Select>(const KernelCall &call) {
  const std::vector<int64_t> &shape = call.outputs[0].type->shape;
  int64_t n = call.outputs[0].type->numElements();
  return dispatch<kernelCpuTypes(Kernel::Select)>(
      call.outputs[0].type->elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        BroadcastReader<bool> condition(call.inputs[0], shape);
        BroadcastReader<S> thenValue(call.inputs[1], shape),
            elseValue(call.inputs[2], shape);
        size_t block = static_cast<size_t>(std::min(n, kBlock));
        // Not std::vector: S may be bool.
        std::unique_ptr<bool[]> conditions(new bool[block]);
        std::unique_ptr<S[]> scratch(new S[2 * block]);
        S *out = ptr<S>(call.outputs[0]);
        for (int64_t start = 0; start < n; start += kBlock) {
          int64_t count = std::min(kBlock, n - start);
          const bool *c = condition.read(start, count, conditions.get());
          const S *a = thenValue.read(start, count, scratch.get());
          const S *b = elseValue.read(start, count, scratch.get() + block);
          for (int64_t i = 0; i < count; ++i)
            out[start + i] = c[i] ? a[i] : b[i];
        }
        return Status::ok();
      });
}

/// OneHot's rows with elements of `T`'s size (their bits copied, whatever
/// their type): each row `off`, then `on` at its index when in range.
template <typename T>
void oneHotRows(const KernelCall &call, int64_t rows, int64_t depth) {
  T on, off;
  std::memcpy(&on, call.inputs[1].data, sizeof(T));
  std::memcpy(&off, call.inputs[2].data, sizeof(T));
  T *out = static_cast<T *>(call.outputs[0].data);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t index = readIndex(call.inputs[0], r);
    T *row = out + r * depth;
    std::fill(row, row + depth, off);
    if (index >= 0 && index < depth)
      row[index] = on;
  }
}

/// gplace.check_range: its input, when every element is in [low, high];
/// else the first element outside, as the step's error.
template <> Status runKernel<Kernel::CheckRange>(const KernelCall &call) {
  int64_t count = call.inputs[0].type->numElements();
  for (int64_t k = 0; k < count; ++k)
    if (int64_t value = readIndex(call.inputs[0], k);
        value < call.params->low || value > call.params->high)
      return Status::invalidArgument(
          "gplace.check_range: x[" + std::to_string(k) +
          "] = " + std::to_string(value) + " is not in [" +
          std::to_string(call.params->low) + ", " +
          std::to_string(call.params->high) + "]");
  return copyData(call);
}

template <> Status runKernel<Kernel::OneHot>(const KernelCall &call) {
  const TensorType &outType = *call.outputs[0].type;
  int64_t depth = outType.shape.back();
  int64_t rows = call.inputs[0].type->numElements();
  int64_t size = elementBytes(outType.elementType);
  switch (size) {
  case 1:
    oneHotRows<uint8_t>(call, rows, depth);
    return Status::ok();
  case 2:
    oneHotRows<uint16_t>(call, rows, depth);
    return Status::ok();
  case 4:
    oneHotRows<uint32_t>(call, rows, depth);
    return Status::ok();
  case 8:
    oneHotRows<uint64_t>(call, rows, depth);
    return Status::ok();
  default:
    // Every element type is 1, 2, 4 or 8 bytes.
    return Status::invalidArgument("gplace.one_hot has no host "
                                   "implementation for elements of " +
                                   std::to_string(size) + " bytes");
  }
}

/// The seed of a stateless random op: its two integers.
std::pair<int64_t, int64_t> readSeed(const TensorRef &seed) {
  return {readIndex(seed, 0), readIndex(seed, 1)};
}

template <RandomDistribution D> Status runRandom(const KernelCall &call) {
  auto [seed0, seed1] = readSeed(call.inputs[0]);
  return fillStatelessRandom(D, seed0, seed1,
                             call.outputs[0].type->elementType,
                             call.outputs[0].data,
                             call.outputs[0].type->numElements());
}
template <>
Status runKernel<Kernel::StatelessRandomUniform>(const KernelCall &call) {
  return runRandom<RandomDistribution::Uniform>(call);
}
template <>
Status runKernel<Kernel::StatelessRandomNormal>(const KernelCall &call) {
  return runRandom<RandomDistribution::Normal>(call);
}
template <>
Status runKernel<Kernel::StatelessTruncatedNormal>(const KernelCall &call) {
  return runRandom<RandomDistribution::TruncatedNormal>(call);
}

/// gplace.dropout: x / (1 - rate) where the uniform number of the element
/// (stateless_random_uniform for the seed and x's shape) is >= rate, else 0.
template <> Status runKernel<Kernel::Dropout>(const KernelCall &call) {
  const TensorRef &x = call.inputs[0];
  // Not a structured binding: the lambda below captures the seed, and
  // clang before 16 (the fuzzing build's) cannot capture bindings.
  std::pair<int64_t, int64_t> seed = readSeed(call.inputs[2]);
  int64_t n = x.type->numElements();
  return dispatch<kernelCpuTypes(Kernel::Dropout)>(
      x.type->elementType, call.kernel, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        using T = Compute<S>;
        T rate = static_cast<T>(*ptr<S>(call.inputs[1]));
        if (!(rate >= T(0) && rate < T(1)))
          return Status::invalidArgument(
              "gplace.dropout: rate must be in [0, 1), got " +
              std::to_string(static_cast<double>(rate)));
        std::unique_ptr<S[]> uniform(new S[std::max<int64_t>(n, 1)]);
        GPLACE_RETURN_IF_ERROR(fillStatelessRandom(
            RandomDistribution::Uniform, seed.first, seed.second,
            x.type->elementType, uniform.get(), n));
        T scale = T(1) / (T(1) - rate);
        const S *in = ptr<S>(x);
        S *out = ptr<S>(call.outputs[0]);
        for (int64_t i = 0; i < n; ++i)
          out[i] = static_cast<T>(uniform[i]) >= rate
                       ? static_cast<S>(static_cast<T>(in[i]) * scale)
                       : S(0);
        return Status::ok();
      });
}

//===----------------------------------------------------------------------===//
// Convolution and pooling: oneDNN (DnnlKernels.cpp).
//===----------------------------------------------------------------------===//

#ifdef GPLACE_HAVE_DNNL
/// `run` (an f32 oneDNN kernel: convolutions, pools) on a call whose
/// tensors may be f16 or bf16: computed in f32, as matmul's 16-bit path
/// and TensorFlow's CPU kernels without native 16-bit instructions do.
/// Each 16-bit tensor gets an f32 copy in the thread's buffer (kept from
/// launch to launch, grown, never per launch): inputs widened before,
/// outputs rounded back (to nearest even) after. A measuring call
/// (KernelCall::measuredWorkspace) measures the f32 kernel's workspace;
/// the copies are not in the plan's workspace.
Status computeInF32(const KernelCall &call,
                    Status (*run)(const KernelCall &)) {
  auto isHalfType = [](const TensorRef &ref) {
    return ref.type && (ref.type->elementType == ElementType::F16 ||
                        ref.type->elementType == ElementType::BF16);
  };
  if (std::none_of(call.inputs.begin(), call.inputs.end(), isHalfType) &&
      std::none_of(call.outputs.begin(), call.outputs.end(), isHalfType))
    return run(call);
  KernelCall wide = call;
  std::vector<TensorType> types;
  types.reserve(call.inputs.size() + call.outputs.size());
  size_t elements = 0;
  for (const auto *refs : {&call.inputs, &call.outputs})
    for (const TensorRef &ref : *refs)
      if (isHalfType(ref))
        elements += static_cast<size_t>(ref.type->numElements());
  thread_local std::vector<float> buffer;
  if (buffer.size() < elements)
    buffer.resize(elements);
  bool measuring = call.measuredWorkspace != nullptr;
  // Widens (toF32) or narrows one tensor's elements.
  auto convert = [](const TensorRef &half, float *f32, bool toF32) {
    int64_t n = half.type->numElements();
    auto go = [&](auto *data) {
      using S = std::remove_pointer_t<decltype(data)>;
      for (int64_t i = 0; i < n; ++i) {
        if (toF32)
          f32[i] = static_cast<float>(data[i]);
        else
          data[i] = static_cast<S>(f32[i]);
      }
    };
    if (half.type->elementType == ElementType::F16)
      go(static_cast<Half *>(half.data));
    else
      go(static_cast<BFloat16 *>(half.data));
  };
  float *next = buffer.data();
  for (auto [refs, wideRefs] :
       {std::pair{&call.inputs, &wide.inputs},
        std::pair{&call.outputs, &wide.outputs}})
    for (size_t i = 0; i < refs->size(); ++i) {
      const TensorRef &ref = (*refs)[i];
      if (!isHalfType(ref))
        continue;
      types.push_back(*ref.type);
      types.back().elementType = ElementType::F32;
      (*wideRefs)[i] = {measuring ? nullptr : next, &types.back(),
                        ref.constant};
      if (!measuring && refs == &call.inputs)
        convert(ref, next, /*toF32=*/true);
      next += ref.type->numElements();
    }
  GPLACE_RETURN_IF_ERROR(run(wide));
  if (!measuring)
    for (size_t i = 0; i < call.outputs.size(); ++i)
      if (isHalfType(call.outputs[i]))
        convert(call.outputs[i], static_cast<float *>(wide.outputs[i].data),
                /*toF32=*/false);
  return Status::ok();
}

Status windowKernelF32(const KernelCall &call) {
  switch (call.kernel) {
  case Kernel::Conv2D:
  case Kernel::FusedConv2D:
  case Kernel::FusedConv2DPool:
  case Kernel::Conv2DBackpropInput:
  case Kernel::Conv2DBackpropFilter:
  case Kernel::DepthwiseConv2dNative:
  case Kernel::DepthwiseConv2dNativeBackpropInput:
  case Kernel::DepthwiseConv2dNativeBackpropFilter:
    return runDnnlConvolution(call);
  default:
    return runDnnlPooling(call);
  }
}
Status windowKernel(const KernelCall &call) {
  return computeInF32(call, windowKernelF32);
}
Status batchNormKernel(const KernelCall &call) {
  return runDnnlBatchNorm(call);
}
Status recurrentKernel(const KernelCall &call) {
  return runDnnlRecurrent(call);
}
#else
Status needsOneDnn(const KernelCall &call) {
  return Status::unavailable("gplace." +
                             std::string(kernelMnemonic(call.kernel)) +
                             " needs oneDNN, and gplace was built without it "
                             "(install libdnnl-dev and rebuild)");
}
Status windowKernel(const KernelCall &call) { return needsOneDnn(call); }
Status batchNormKernel(const KernelCall &call) { return needsOneDnn(call); }
Status recurrentKernel(const KernelCall &call) { return needsOneDnn(call); }
#endif

/// Kernels whose host implementation takes its temporary buffers as a
/// workspace (DnnlKernels.cpp's Scratchpad), so that a measuring call
/// (KernelCall::measuredWorkspace) runs nothing: hostWorkspaceBytes.
template <Kernel K> constexpr bool kTakesWorkspace = false;
#define GPLACE_DNNL_KERNEL(Name, Fn)                                           \
  template <> constexpr bool kTakesWorkspace<Kernel::Name> = true;             \
  template <> Status runKernel<Kernel::Name>(const KernelCall &call) {         \
    return Fn(call);                                                           \
  }
GPLACE_DNNL_KERNEL(Conv2D, windowKernel)
GPLACE_DNNL_KERNEL(FusedConv2D, windowKernel)
GPLACE_DNNL_KERNEL(FusedConv2DPool, windowKernel)
GPLACE_DNNL_KERNEL(Conv2DBackpropInput, windowKernel)
GPLACE_DNNL_KERNEL(Conv2DBackpropFilter, windowKernel)
GPLACE_DNNL_KERNEL(DepthwiseConv2dNative, windowKernel)
GPLACE_DNNL_KERNEL(DepthwiseConv2dNativeBackpropInput, windowKernel)
GPLACE_DNNL_KERNEL(DepthwiseConv2dNativeBackpropFilter, windowKernel)
GPLACE_DNNL_KERNEL(FusedBatchNorm, batchNormKernel)
GPLACE_DNNL_KERNEL(FusedBatchNormGrad, batchNormKernel)
GPLACE_DNNL_KERNEL(CudnnRNN, recurrentKernel)
GPLACE_DNNL_KERNEL(CudnnRNNBackprop, recurrentKernel)
GPLACE_DNNL_KERNEL(MaxPool, windowKernel)
GPLACE_DNNL_KERNEL(AvgPool, windowKernel)
GPLACE_DNNL_KERNEL(MaxPoolGrad, windowKernel)
GPLACE_DNNL_KERNEL(AvgPoolGrad, windowKernel)
#undef GPLACE_DNNL_KERNEL

//===----------------------------------------------------------------------===//
// Transfers between tasks: the executor's Transport.
//===----------------------------------------------------------------------===//

/// The executor's transport, or an error saying that `op` needs one.
StatusOr<Transport *> transportFor(const KernelCall &call, const char *op) {
  if (Transport *transport = call.transport)
    return transport;
  return Status::unavailable(std::string(op) +
                             " needs a cluster: run gplace-run under mpirun "
                             "with --cluster");
}

template <> Status runKernel<Kernel::Send>(const KernelCall &call) {
  StatusOr<Transport *> transport = transportFor(call, "gplace.send");
  if (!transport)
    return transport.status();
  return (*transport)->send(static_cast<int>(call.params->peer),
                            call.params->tag, call.inputs[0].data,
                            call.inputs[0].type->bytes());
}
template <> Status runKernel<Kernel::Recv>(const KernelCall &call) {
  StatusOr<Transport *> transport = transportFor(call, "gplace.recv");
  if (!transport)
    return transport.status();
  return (*transport)->recv(static_cast<int>(call.params->peer),
                            call.params->tag, call.outputs[0].data,
                            call.outputs[0].type->bytes());
}

/// The members of an all-reduce run together, through the executor's
/// CollectiveExecutor (Collective.h), never as a kernel of their own.
template <>
Status runKernel<Kernel::CollectiveReduce>(const KernelCall &call) {
  return Status::internal("gplace.collective_reduce runs through the "
                          "executor's collectives, not as a kernel");
}

/// Control flow runs the sub-plans of its step (Executor.cpp's
/// runControlFlow), never as a kernel of its own.
template <> Status runKernel<Kernel::If>(const KernelCall &call) {
  return Status::internal("gplace.if runs through the executor's "
                          "sub-plans, not as a kernel");
}
template <> Status runKernel<Kernel::While>(const KernelCall &call) {
  return Status::internal("gplace.while runs through the executor's "
                          "sub-plans, not as a kernel");
}

/// Runs `update(i, scalars...)` for each element of the variable, with the
/// kernel's scalar inputs (in order) read in the compute type A; the
/// variable and slots are outputs, in place.
template <Kernel K, typename F> Status applyUpdate(const KernelCall &call, F &&f) {
  return dispatch<kernelCpuTypes(K)>(
      call.outputs[0].type->elementType, K, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        using A = std::conditional_t<std::is_same_v<S, double>, double, float>;
        return f(Tag<S>(), Tag<A>());
      });
}

template <>
Status runKernel<Kernel::ApplyGradientDescent>(const KernelCall &call) {
  // var -= alpha * delta (TensorFlow's ApplyGradientDescentOp).
  return applyUpdate<Kernel::ApplyGradientDescent>(
      call, [&](auto s, auto a) -> Status {
        using S = typename decltype(s)::type;
        using A = typename decltype(a)::type;
        A alpha = A(ptr<S>(call.inputs[0])[0]);
        const S *delta = ptr<S>(call.inputs[1]);
        S *var = ptr<S>(call.outputs[0]);
        parallelFor(call.outputs[0].type->numElements(),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t i = begin; i < end; ++i)
                        var[i] = static_cast<S>(A(var[i]) -
                                                alpha * A(delta[i]));
                    });
        return Status::ok();
      });
}

template <> Status runKernel<Kernel::ApplyMomentum>(const KernelCall &call) {
  // TensorFlow's ApplyMomentumOp: accum = accum * momentum + grad; var -=
  // lr * accum, or var -= grad * lr + accum * momentum * lr (Nesterov).
  bool nesterov = call.params->useNesterov;
  return applyUpdate<Kernel::ApplyMomentum>(
      call, [&](auto s, auto a) -> Status {
        using S = typename decltype(s)::type;
        using A = typename decltype(a)::type;
        A lr = A(ptr<S>(call.inputs[0])[0]);
        const S *grad = ptr<S>(call.inputs[1]);
        A momentum = A(ptr<S>(call.inputs[2])[0]);
        S *var = ptr<S>(call.outputs[0]), *accum = ptr<S>(call.outputs[1]);
        parallelFor(call.outputs[0].type->numElements(), [&](int64_t begin,
                                                             int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            A g = A(grad[i]);
            A acc = A(accum[i]) * momentum + g;
            accum[i] = static_cast<S>(acc);
            A step = nesterov ? g * lr + acc * momentum * lr : lr * acc;
            var[i] = static_cast<S>(A(var[i]) - step);
          }
        });
        return Status::ok();
      });
}

/// ApplyAdam's update of n elements, in vector clones.
template <typename S, typename A>
GPLACE_VECTOR_CLONES void adamLoop(S *var, S *m, S *v, const S *grad, int64_t n,
                                   A alpha, A beta1, A beta2, A epsilon,
                                   bool nesterov) {
  for (int64_t i = 0; i < n; ++i) {
    A g = A(grad[i]);
    A mi = A(m[i]) + (g - A(m[i])) * (A(1) - beta1);
    A vi = A(v[i]) + (g * g - A(v[i])) * (A(1) - beta2);
    m[i] = static_cast<S>(mi);
    v[i] = static_cast<S>(vi);
    A direction = nesterov ? mi * beta1 + (A(1) - beta1) * g : mi;
    var[i] = static_cast<S>(A(var[i]) -
                            direction * alpha / (std::sqrt(vi) + epsilon));
  }
}

template <> Status runKernel<Kernel::ApplyAdam>(const KernelCall &call) {
  // TensorFlow's ApplyAdamOp (training_ops.cc, functor ApplyAdam).
  bool nesterov = call.params->useNesterov;
  return applyUpdate<Kernel::ApplyAdam>(call, [&](auto s, auto a) -> Status {
    using S = typename decltype(s)::type;
    using A = typename decltype(a)::type;
    auto scalar = [&](int k) { return A(ptr<S>(call.inputs[k])[0]); };
    A beta1Power = scalar(0), beta2Power = scalar(1), lr = scalar(2),
      beta1 = scalar(3), beta2 = scalar(4), epsilon = scalar(5);
    const S *grad = ptr<S>(call.inputs[6]);
    S *var = ptr<S>(call.outputs[0]), *m = ptr<S>(call.outputs[1]),
      *v = ptr<S>(call.outputs[2]);
    A alpha = lr * std::sqrt(A(1) - beta2Power) / (A(1) - beta1Power);
    parallelFor(call.outputs[0].type->numElements(),
                [&](int64_t begin, int64_t end) {
                  adamLoop<S, A>(var + begin, m + begin, v + begin,
                                 grad + begin, end - begin, alpha, beta1,
                                 beta2, epsilon, nesterov);
                });
    return Status::ok();
  });
}

/// The host implementation of each kernel, indexed by gplace::Kernel.
constexpr HostKernelFn kHostKernels[] = {
#define GPLACE_KERNEL(Name, Mnemonic, Elementwise, Arity, TypedByOperand)     \
  &runKernel<Kernel::Name>,
#include "gplace/Dialect/Graph/GraphOpTable.def"
};
static_assert(std::size(kHostKernels) == kNumKernels);

/// Per kernel: kTakesWorkspace.
constexpr bool kWorkspaceKernels[] = {
#define GPLACE_KERNEL(Name, Mnemonic, Elementwise, Arity, TypedByOperand)     \
  kTakesWorkspace<Kernel::Name>,
#include "gplace/Dialect/Graph/GraphOpTable.def"
};

//===----------------------------------------------------------------------===//
// Fused elementwise kernels.
//===----------------------------------------------------------------------===//

/// The error of a fused kernel's scratch that could not be allocated.
Status fusedScratchError(const FusedCall &call) {
  return Status::outOfMemory("no host memory for the scratch of fused "
                             "kernel " +
                             call.label);
}

/// `range(begin, end)` over [0, n) split over the OpenMP threads; its
/// scratch allocation failing in any of them is fusedScratchError (an
/// exception must not leave an OpenMP region: it is caught in it).
template <typename F>
Status parallelFusedRanges(const FusedCall &call, int64_t n, F &&range) {
  std::atomic<bool> outOfMemory{false};
  parallelFor(n, [&](int64_t begin, int64_t end) {
    try {
      range(begin, end);
    } catch (const std::bad_alloc &) {
      outOfMemory = true;
    }
  });
  return outOfMemory ? fusedScratchError(call) : Status::ok();
}

//===----------------------------------------------------------------------===//
// Launches compiled at load (HostLaunch.h).
//===----------------------------------------------------------------------===//

/// A compiled launch of kernel K on storage type S: runElementwise's
/// unbroadcast case, with a short tensor's loop inline (as a fused op's
/// short block: the vector clones' call through the loader's indirection
/// cost more than its few elements). Both compute each element alike.
template <Kernel K, typename S> bool compactBody(const CompactLaunch &launch) {
  const S *in[2] = {static_cast<const S *>(launch.in[0]),
                    static_cast<const S *>(launch.in[1])};
  S *out = static_cast<S *>(launch.out);
  constexpr size_t kArity = static_cast<size_t>(kernelArity(K));
  if (launch.n < kInlineBlock)
    elementwiseBlock<S>(K, kArity, out, in, launch.n);
  else
    elementwiseLoop<K, S>(kArity, out, in, launch.n);
  if constexpr (std::is_integral_v<S>)
    return !integerDivisionByZero;
  return true;
}

/// The compiled body of kernel K on element type `type`, or null.
template <Kernel K> CompactLaunchFn compactLaunchFor(ElementType type) {
  if constexpr (!isElementwiseKernel(K) ||
                (kernelArity(K) != 1 && kernelArity(K) != 2)) {
    (void)type;
    return nullptr;
  } else {
    CompactLaunchFn fn = nullptr;
    (void)dispatch<kernelCpuTypes(K)>(type, K, [&](auto tag) -> Status {
      using S = typename decltype(tag)::type;
      fn = &compactBody<K, S>;
      return Status::ok();
    });
    return fn;
  }
}

constexpr CompactLaunchFn (*kCompactLaunches[])(ElementType) = {
#define GPLACE_KERNEL(Name, Mnemonic, Elementwise, Arity, TypedByOperand)     \
  &compactLaunchFor<Kernel::Name>,
#include "gplace/Dialect/Graph/GraphOpTable.def"
};
static_assert(std::size(kCompactLaunches) == kNumKernels);

/// A fused op's block body on storage type S: elementwiseBlock of one
/// kernel, inline for a short block (the vector clones' call through the
/// loader's indirection cost more than its few elements), in the vector
/// clones for a long one; both compute each element alike. Its first two operands are `a` and `b` (a
/// unary op's `b` is unused), passed in registers; an op of more than two
/// operands (add_n) finds them all in `rest`.
template <typename S>
using FusedOpFn = void (*)(S *out, const S *a, const S *b,
                           const S *const *rest, size_t numOperands,
                           int64_t n);

template <Kernel K, typename S>
void fusedOpBody(S *out, const S *a, const S *b, const S *const *rest,
                 size_t numOperands, int64_t n) {
  const S *pair[2] = {a, b};
  const S *const *in = pair;
  // A variadic kernel (add_n) may take more: then all are in `rest`.
  if constexpr (kernelArity(K) != 1 && kernelArity(K) != 2)
    if (numOperands > 2)
      in = rest;
  if (n < kInlineBlock)
    elementwiseBlock<S>(K, numOperands, out, in, n);
  else
    elementwiseLoop<K, S>(numOperands, out, in, n);
}

/// The block body of kernel K on S, or null (not elementwise, or no CPU
/// kernel of that type).
template <Kernel K, typename S> constexpr FusedOpFn<S> fusedOpFor() {
  if constexpr (isElementwiseKernel(K) && hasCpuKernel<K, S>())
    return &fusedOpBody<K, S>;
  else
    return nullptr;
}

template <typename S> constexpr FusedOpFn<S> kFusedOps[] = {
#define GPLACE_KERNEL(Name, Mnemonic, Elementwise, Arity, TypedByOperand)     \
  fusedOpFor<Kernel::Name, S>(),
#include "gplace/Dialect/Graph/GraphOpTable.def"
};

} // namespace

struct HostFusedProgram {
  /// 24 bytes: a run reads one record per op, in order.
  struct Op {
    void (*fn)() = nullptr; ///< FusedOpFn<S> of the group's S.
    /// Its operands' slots (k < inputs for FusedCall::inputs[k], inputs +
    /// i for ops[i]'s value): the first two here (a unary op's second is
    /// its first), all of them from operands[first] on where more.
    uint32_t a = 0, b = 0;
    int32_t output = -1; ///< As FusedCall::Op::output.
    uint16_t count = 0;
    uint32_t first = 0;
  };
  ElementType type = ElementType::F32;
  std::vector<Op> ops;
  std::vector<uint32_t> operands; ///< Ops of more than two operands'.
  uint32_t maxOperands = 2; ///< The most operands of one op.
  /// A run on one thread (under kParallelMinElements elements): its
  /// ProgramScratch, in one allocation kept from run to run (the executor
  /// never runs one launch on two threads at once).
  mutable std::unique_ptr<char[]> scratch;
  mutable size_t scratchBytes = 0;
};

void HostFusedProgramDeleter::operator()(HostFusedProgram *program) const {
  delete program;
}

namespace {

/// The memory of one thread's run of a program over at most `elements`
/// elements, in one allocation: the slots (const S *: one per input and
/// op, then an op's operands where it has more than two), the inputs'
/// readers (constructed by the run, not kept: a run may bind other
/// inputs), and the blocks (one per input, gathered, and per op, its
/// values).
template <typename S> struct ProgramScratch {
  ProgramScratch(const HostFusedProgram &program, size_t numInputs,
                 int64_t elements)
      : numSlots(numInputs + program.ops.size()),
        block(static_cast<size_t>(std::min(elements, kBlock))) {
    constexpr size_t kAlign = alignof(std::max_align_t);
    auto aligned = [](size_t bytes) {
      return (bytes + kAlign - 1) / kAlign * kAlign;
    };
    readersOffset =
        aligned((numSlots + program.maxOperands) * sizeof(const S *));
    blocksOffset =
        readersOffset + aligned(numInputs * sizeof(BroadcastReader<S>));
    bytes = blocksOffset + numSlots * block * sizeof(S);
  }
  const S **slots(char *memory) const {
    return reinterpret_cast<const S **>(memory);
  }
  const S **operands(char *memory) const { return slots(memory) + numSlots; }
  BroadcastReader<S> *readers(char *memory) const {
    return reinterpret_cast<BroadcastReader<S> *>(memory + readersOffset);
  }
  S *blocks(char *memory) const {
    return reinterpret_cast<S *>(memory + blocksOffset);
  }

  size_t numSlots, block, readersOffset = 0, blocksOffset = 0, bytes = 0;
};

/// Runs the fused group `program` (compiled from `call`) over elements
/// [begin, end), a block at a time, in `memory` (layout.bytes, laid out
/// as `layout`).
template <typename S>
void runProgramRange(const HostFusedProgram &program, const FusedCall &call,
                     int64_t begin, int64_t end,
                     const ProgramScratch<S> &layout, char *memory) {
  const std::vector<int64_t> &shape = call.type.shape;
  size_t numInputs = call.inputs.size(), numOps = program.ops.size();
  size_t block = layout.block;
  const S **slots = layout.slots(memory);
  const S **rest = layout.operands(memory);
  S *scratch = layout.blocks(memory);
  // The readers, in place: most are in-place views and allocate nothing.
  BroadcastReader<S> *readers = layout.readers(memory);
  size_t constructed = 0;
  struct Destroy {
    BroadcastReader<S> *readers;
    size_t &count;
    ~Destroy() {
      for (size_t k = 0; k < count; ++k)
        readers[k].~BroadcastReader<S>();
    }
  } destroy{readers, constructed};
  for (; constructed < numInputs; ++constructed)
    new (readers + constructed) BroadcastReader<S>(call.inputs[constructed],
                                                   shape);
  std::array<S *, 4> fewOutputs;
  std::vector<S *> manyOutputs;
  S **outputs = fewOutputs.data();
  if (call.outputs.size() > fewOutputs.size()) {
    manyOutputs.resize(call.outputs.size());
    outputs = manyOutputs.data();
  }
  for (size_t o = 0; o < call.outputs.size(); ++o)
    outputs[o] = ptr<S>(call.outputs[o]);
  const uint32_t *operands = program.operands.data();
  const HostFusedProgram::Op *ops = program.ops.data();
  for (int64_t start = begin; start < end; start += kBlock) {
    int64_t count = std::min(kBlock, end - start);
    for (size_t k = 0; k < numInputs; ++k)
      slots[k] = readers[k].read(start, count, scratch + k * block);
    const S **values = slots + numInputs;
    S *ownScratch = scratch + numInputs * block;
    for (size_t i = 0; i < numOps; ++i) {
      const HostFusedProgram::Op &op = ops[i];
      if (op.count > 2)
        for (uint32_t j = 0; j < op.count; ++j)
          rest[j] = slots[operands[op.first + j]];
      // A stored value is computed into its output; the planner never
      // places an output over memory the group still reads.
      S *out = op.output >= 0 ? outputs[op.output] + start
                              : ownScratch + i * block;
      values[i] = out;
      reinterpret_cast<FusedOpFn<S>>(op.fn)(out, slots[op.a], slots[op.b],
                                            rest, op.count, count);
    }
  }
}

/// runProgramRange with memory of its own.
template <typename S>
void runProgramRangeAlone(const HostFusedProgram &program,
                          const FusedCall &call, int64_t begin, int64_t end) {
  ProgramScratch<S> layout(program, call.inputs.size(), end - begin);
  // Not value-initialized: every element read is written first.
  std::unique_ptr<char[]> memory(new char[layout.bytes]);
  runProgramRange<S>(program, call, begin, end, layout, memory.get());
}

/// Runs `program`, compiled from `call`: f32 and f64 split over the
/// OpenMP threads (every element is computed as in one pass); integers
/// stay on this thread, whose flag records a division by zero, and so do
/// f16 and bf16.
template <typename S>
Status runProgram(const HostFusedProgram &program, const FusedCall &call) {
  int64_t n = call.type.numElements();
  if (n < kParallelMinElements) {
    // One thread (parallelFor's choice below this size): the program's
    // own memory, allocated on the first run.
    ProgramScratch<S> layout(program, call.inputs.size(), n);
    try {
      if (program.scratchBytes < layout.bytes) {
        program.scratch.reset(new char[layout.bytes]);
        program.scratchBytes = layout.bytes;
      }
      if constexpr (std::is_floating_point_v<S>)
        recordLaunchTeam(1); // As parallelFor.
      runProgramRange<S>(program, call, 0, n, layout, program.scratch.get());
    } catch (const std::bad_alloc &) {
      return fusedScratchError(call);
    }
    if constexpr (std::is_floating_point_v<S>)
      return Status::ok();
    return integerDivisionStatus();
  }
  if constexpr (std::is_floating_point_v<S>)
    return parallelFusedRanges(call, n, [&](int64_t begin, int64_t end) {
      runProgramRangeAlone<S>(program, call, begin, end);
    });
  try {
    runProgramRangeAlone<S>(program, call, 0, n);
  } catch (const std::bad_alloc &) {
    return fusedScratchError(call);
  }
  return integerDivisionStatus();
}

} // namespace

/// Sets the calling thread's OpenMP team size (a per-thread setting) to
/// `threads`' value, where given.
inline void useIntraOpThreads(const std::atomic<int> *threads) {
#ifdef GPLACE_HAVE_OPENMP
  // The team size this thread last set: only this function sets it, so
  // a launch with the same size asks OpenMP nothing.
  thread_local int teamSize = 0;
  if (threads) {
    int n = threads->load(std::memory_order_relaxed);
    if (n > 0 && n != teamSize) {
      if (n != omp_get_max_threads())
        omp_set_num_threads(n);
      teamSize = n;
    }
  }
#else
  (void)threads;
#endif
}

ScopedFlushDenormal::ScopedFlushDenormal() {
#if defined(__SSE2__)
  saved_ = _mm_getcsr();
  unsigned flushing = saved_ | kFlushToZero | kDenormalsAreZero;
  changed_ = flushing != saved_;
  if (changed_)
    _mm_setcsr(flushing);
#endif
}

ScopedFlushDenormal::~ScopedFlushDenormal() {
#if defined(__SSE2__)
  if (changed_)
    _mm_setcsr(saved_);
#endif
}

HostKernelFn hostKernelFunction(Kernel kernel) {
  return kHostKernels[static_cast<size_t>(kernel)];
}

void useHostTeamSize(const std::atomic<int> *threads) {
  useIntraOpThreads(threads);
}

Status runHostKernel(const KernelCall &call) {
  ScopedFlushDenormal flush;
  useIntraOpThreads(call.intraOpThreads);
  return kHostKernels[static_cast<size_t>(call.kernel)](call);
}

bool hostKernelTakesWorkspace(Kernel kernel) {
#ifndef GPLACE_HAVE_DNNL
  return false;
#else
  return kWorkspaceKernels[static_cast<size_t>(kernel)];
#endif
}

StatusOr<int64_t> hostWorkspaceBytes(Kernel kernel, const KernelParams &params,
                                     const std::vector<TensorType> &inputs,
                                     const std::vector<bool> &constantInputs,
                                     const std::vector<TensorType> &outputs) {
  if (!hostKernelTakesWorkspace(kernel))
    return int64_t(0); // Without oneDNN, the kernel reports it when run.
  // The call the executor would make, with no memory: the kernel makes its
  // primitives (kept for the launches) and counts what it would take.
  int64_t bytes = 0;
  std::unique_ptr<KernelState> state;
  KernelCall call;
  call.kernel = kernel;
  call.params = &params;
  call.state = &state;
  call.measuredWorkspace = &bytes;
  for (size_t i = 0; i < inputs.size(); ++i)
    call.inputs.push_back(
        {nullptr, &inputs[i], i < constantInputs.size() && constantInputs[i]});
  for (const TensorType &type : outputs)
    call.outputs.push_back({nullptr, &type});
  GPLACE_RETURN_IF_ERROR(kHostKernels[static_cast<size_t>(kernel)](call));
  return bytes;
}

std::optional<std::string> preferredBlasCoreType() {
  if (std::getenv("OPENBLAS_CORETYPE"))
    return std::nullopt;
  const char *core = openblas_get_corename();
  if (!core || std::string(core) != "Prescott")
    return std::nullopt;
#if defined(__x86_64__) && defined(__GNUC__)
  // libgcc's CPU model: the features the CPU has and the OS saves.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return std::string("SkylakeX");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return std::string("Haswell");
#endif
  return std::nullopt;
}

// OpenBLAS's own stop of its thread server (its fork handler's), which its
// pthreads build exports; weak, so that builds without it link.
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));

void stopIdleBlasThreads() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (blas_thread_shutdown_)
      blas_thread_shutdown_();
  });
}

std::string blasDescription() {
  // openblas_get_config(): "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...".
  std::string config = openblas_get_config() ? openblas_get_config() : "";
  std::string name = "OpenBLAS";
  size_t space = config.find(' ', config.find(' ') + 1);
  if (config.rfind("OpenBLAS ", 0) == 0)
    name = config.substr(0, space);
  const char *core = openblas_get_corename();
  return name + ", " + (core ? core : "unknown") + " kernels";
}

std::string convolutionDescription() {
#ifdef GPLACE_HAVE_DNNL
  return std::string("f32 on oneDNN ") + dnnlVersion() +
         "; f16 and bf16 computed in f32 (widened, rounded back)";
#else
  return "none (gplace was built without oneDNN)";
#endif
}

std::string matmulDescription() {
#ifdef GPLACE_HAVE_DNNL
  return std::string("f32 and f16 on oneDNN ") + dnnlVersion() +
         (dnnlNativeBf16()
              ? ", bf16 on oneDNN's native bf16 kernels"
              : ", bf16 on oneDNN's f32 kernels (computed in f32 with bf16 "
                "storage)") +
         ", f64 on OpenBLAS";
#else
  return "f32, f16, bf16 and f64 on OpenBLAS";
#endif
}

Status runHostFused(const FusedCall &call) {
  ScopedFlushDenormal flush;
  useIntraOpThreads(call.intraOpThreads);
  for (const FusedCall::Op &op : call.ops)
    if (!isElementwiseKernel(op.kernel))
      return Status::invalidArgument("gplace." + std::string(kernelMnemonic(op.kernel)) +
                           " is not elementwise and cannot be fused");
  // Every op has the group's element type: one dispatch on it.
  unsigned bit = 1u << static_cast<int>(call.type.elementType);
  for (const FusedCall::Op &op : call.ops)
    if (!(kernelCpuTypes(op.kernel) & bit))
      return Status::invalidArgument(
          "kernel gplace." + std::string(kernelMnemonic(op.kernel)) +
          " has no host implementation for " +
          std::string(elementTypeName(call.type.elementType)));
  // Compiled here, as the executor compiles it once at load.
  HostFusedProgramPtr program = compileHostFused(call);
  if (!program)
    return Status::invalidArgument("fused kernel " + call.label +
                                   " has an op without operands");
  return runHostFusedProgram(*program, call);
}

CompactLaunch compileHostLaunch(const KernelCall &call) {
  CompactLaunch launch;
  size_t arity = call.inputs.size();
  if (!isElementwiseKernel(call.kernel) || call.outputs.size() != 1 ||
      (arity != 1 && arity != 2) ||
      kernelArity(call.kernel) != static_cast<int>(arity))
    return launch;
  const TensorType &type = *call.outputs[0].type;
  for (const TensorRef &input : call.inputs)
    if (!sameShape(input.type->shape, type.shape))
      return launch; // Broadcast: the general path.
  launch.run =
      kCompactLaunches[static_cast<size_t>(call.kernel)](type.elementType);
  if (!launch.run)
    return launch; // No CPU kernel of the type: the general path says so.
  launch.out = call.outputs[0].data;
  for (size_t k = 0; k < arity; ++k)
    launch.in[k] = call.inputs[k].data;
  launch.n = type.numElements();
  return launch;
}

Status hostCompactLaunchError() { return integerDivisionStatus(); }

HostFusedProgramPtr compileHostFused(const FusedCall &call) {
  unsigned bit = 1u << static_cast<int>(call.type.elementType);
  for (const FusedCall::Op &op : call.ops)
    if (!isElementwiseKernel(op.kernel) || !(kernelCpuTypes(op.kernel) & bit))
      return nullptr;
  HostFusedProgramPtr program(new HostFusedProgram);
  program->type = call.type.elementType;
  uint32_t numInputs = static_cast<uint32_t>(call.inputs.size());
  constexpr unsigned kNumeric = 0x3f; // Every type but i1.
  Status typed = dispatch<kNumeric>(
      call.type.elementType, Kernel::Add, [&](auto tag) -> Status {
        using S = typename decltype(tag)::type;
        for (const FusedCall::Op &op : call.ops) {
          HostFusedProgram::Op compiled;
          compiled.fn = reinterpret_cast<void (*)()>(
              kFusedOps<S>[static_cast<size_t>(op.kernel)]);
          compiled.output = op.output;
          if (op.operands.size() > UINT16_MAX)
            return Status::invalidArgument("a fused op of too many operands");
          compiled.count = static_cast<uint16_t>(op.operands.size());
          program->maxOperands = std::max(
              program->maxOperands, static_cast<uint32_t>(compiled.count));
          std::vector<uint32_t> slots;
          for (int operand : op.operands)
            slots.push_back(operand >= 0 ? static_cast<uint32_t>(operand)
                                         : numInputs + static_cast<uint32_t>(
                                                           -1 - operand));
          if (slots.empty())
            return Status::invalidArgument("a fused op without operands");
          compiled.a = slots[0];
          compiled.b = slots.size() > 1 ? slots[1] : slots[0];
          if (slots.size() > 2) {
            compiled.first = static_cast<uint32_t>(program->operands.size());
            program->operands.insert(program->operands.end(), slots.begin(),
                                     slots.end());
          }
          program->ops.push_back(compiled);
        }
        return Status::ok();
      });
  if (!typed)
    return nullptr;
  return program;
}

Status runHostFusedProgram(const HostFusedProgram &program,
                           const FusedCall &call) {
  constexpr unsigned kNumeric = 0x3f; // Every type but i1.
  return dispatch<kNumeric>(program.type, Kernel::Add, [&](auto tag) -> Status {
    using S = typename decltype(tag)::type;
    return runProgram<S>(program, call);
  });
}

StatusOr<RecurrentShape> recurrentShapeOf(const KernelCall &call) {
  auto fail = [&](const std::string &why) {
    return Status::invalidArgument(
        "gplace." + std::string(kernelMnemonic(call.kernel)) + ": " + why);
  };
  bool backward = call.kernel == Kernel::CudnnRNNBackprop;
  size_t inputs = backward ? 9 : 6, outputs = backward ? 6 : 3;
  if (call.inputs.size() != inputs || call.outputs.size() != outputs)
    return fail("expects " + std::to_string(inputs) + " inputs and " +
                std::to_string(outputs) + " results");
  const KernelParams &p = *call.params;
  if (p.rnnKind < 0 || p.rnnKind > 4 || p.rnnDirection < 0 ||
      p.rnnDirection > 2)
    return fail("rnn_kind must be 0 to 4 and rnn_direction 0 to 2");
  const std::vector<int64_t> &x = call.inputs[0].type->shape,
                             &h = call.inputs[1].type->shape;
  if (x.size() != 3 || h.size() != 3)
    return fail("expects a rank-3 input and initial state");
  RecurrentShape s;
  s.kind = p.rnnKind;
  s.seq = x[0];
  s.batch = x[1];
  s.input = x[2];
  s.hidden = h[2];
  s.dirs = p.rnnDirection == 2 ? 2 : 1;
  s.gates = s.kind <= 1 ? 1 : s.kind == 2 ? 4 : 3;
  s.biasGates = s.gates + (s.lbr() ? 1 : 0);
  auto is = [](const TensorRef &ref, std::vector<int64_t> shape) {
    return ref.type->shape == shape;
  };
  std::vector<int64_t> state = {s.dirs, s.batch, s.hidden};
  if (s.seq < 1 || s.batch < 1 || s.input < 1 || s.hidden < 1 ||
      !is(call.inputs[1], state) || !is(call.inputs[2], state) ||
      !is(call.inputs[3], {s.dirs, s.gates * s.hidden, s.input}) ||
      !is(call.inputs[4], {s.dirs, s.gates * s.hidden, s.hidden}) ||
      !is(call.inputs[5], {s.dirs, 2 * s.gates * s.hidden}))
    return fail("operands of other shapes than cudnn_rnn's rule gives");
  std::vector<int64_t> y = {s.seq, s.batch, s.dirs * s.hidden};
  bool fits = backward ? is(call.inputs[6], y) && is(call.inputs[7], state) &&
                             is(call.inputs[8], state)
                       : is(call.outputs[0], y) && is(call.outputs[1], state) &&
                             is(call.outputs[2], state);
  for (size_t i = 0; backward && i < 6; ++i)
    fits = fits && call.outputs[i].type->shape == call.inputs[i].type->shape;
  if (!fits)
    return fail("results or gradients of other shapes than cudnn_rnn's rule "
                "gives");
  return s;
}

} // namespace gplace::runtime
