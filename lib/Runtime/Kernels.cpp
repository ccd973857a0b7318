//===- Kernels.cpp - host kernels
//------------------------------------------===//
//
// Element types map to C++ types (f16 and bf16 to Eigen::half and
// Eigen::bfloat16, which compute through float). Each kernel is a template
// instantiated for the element types the kernel registry gives it.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Kernels.h"

#include <Eigen/Core>
#include <cblas.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace gplace::runtime {

namespace {

using Half = Eigen::half;
using BFloat16 = Eigen::bfloat16;

template <typename T>
constexpr bool isHalf = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// The type arithmetic on T happens in: float for 16-bit floats.
template <typename T> using Acc = std::conditional_t<isHalf<T>, float, T>;

template <typename T> struct Tag { using type = T; };

enum class Types { Float, Numeric, All };

/// Calls f(Tag<T>()) with T the C++ type of `type`, if `type` is in `Set`
/// (only those instantiations are compiled).
template <Types Set, typename F>
Status dispatch(ElementType type, Kernel kernel, F &&f) {
  switch (type) {
  case ElementType::F32:
    return f(Tag<float>());
  case ElementType::F64:
    return f(Tag<double>());
  case ElementType::F16:
    return f(Tag<Half>());
  case ElementType::BF16:
    return f(Tag<BFloat16>());
  case ElementType::I32:
    if constexpr (Set != Types::Float)
      return f(Tag<int32_t>());
    break;
  case ElementType::I64:
    if constexpr (Set != Types::Float)
      return f(Tag<int64_t>());
    break;
  case ElementType::I1:
    if constexpr (Set == Types::All)
      return f(Tag<bool>());
    break;
  }
  return Status::error("kernel " + std::string(kernelOpName(kernel)) +
                       " has no host implementation for " +
                       std::string(elementTypeName(type)));
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Strides of `shape` broadcast to `outShape` (aligned at the last
/// dimension; 0 where a dimension is stretched).
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &outShape) {
  std::vector<int64_t> own = stridesOf(shape);
  std::vector<int64_t> strides(outShape.size(), 0);
  size_t offset = outShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    strides[d + offset] = shape[d] == 1 ? 0 : own[d];
  return strides;
}

/// Calls f(outIndex, offsets...) for every element of `shape` in row-major
/// order, where offsets[k] follows strides[k] (an odometer).
template <size_t N, typename F>
void forEachIndex(const std::vector<int64_t> &shape,
                  const std::array<std::vector<int64_t>, N> &strides, F &&f) {
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  if (total == 0)
    return;
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> offsets{};
  for (int64_t i = 0; i < total; ++i) {
    f(i, offsets);
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      ++index[d];
      for (size_t k = 0; k < N; ++k)
        offsets[k] += strides[k][d];
      if (index[d] < shape[d])
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

template <typename T> T *ptr(const TensorRef &ref) {
  return static_cast<T *>(ref.data);
}

//===----------------------------------------------------------------------===//
// Elementwise.
//===----------------------------------------------------------------------===//

template <typename T, typename Op>
void binaryLoop(const KernelCall &call, Op op) {
  const TensorRef &a = call.inputs[0], &b = call.inputs[1];
  const TensorRef &out = call.outputs[0];
  const T *pa = ptr<T>(a), *pb = ptr<T>(b);
  T *po = ptr<T>(out);
  int64_t n = out.type->numElements();
  int64_t na = a.type->numElements(), nb = b.type->numElements();
  if (na == n && nb == n) {
    for (int64_t i = 0; i < n; ++i)
      po[i] = op(pa[i], pb[i]);
  } else if (na == n && nb == 1) {
    T s = pb[0];
    for (int64_t i = 0; i < n; ++i)
      po[i] = op(pa[i], s);
  } else if (na == 1 && nb == n) {
    T s = pa[0];
    for (int64_t i = 0; i < n; ++i)
      po[i] = op(s, pb[i]);
  } else {
    const std::vector<int64_t> &shape = out.type->shape;
    std::array<std::vector<int64_t>, 2> strides = {
        broadcastStrides(a.type->shape, shape),
        broadcastStrides(b.type->shape, shape)};
    forEachIndex<2>(shape, strides, [&](int64_t i, const auto &off) {
      po[i] = op(pa[off[0]], pb[off[1]]);
    });
  }
}

template <typename T> T toT(Acc<T> value) { return static_cast<T>(value); }

Status binary(const KernelCall &call) {
  Kernel k = call.kernel;
  return dispatch<Types::Numeric>(
      call.outputs[0].type->elementType, k, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        using A = Acc<T>;
        switch (k) {
        case Kernel::Add:
          binaryLoop<T>(call, [](T x, T y) { return toT<T>(A(x) + A(y)); });
          break;
        case Kernel::Sub:
          binaryLoop<T>(call, [](T x, T y) { return toT<T>(A(x) - A(y)); });
          break;
        case Kernel::Mul:
          binaryLoop<T>(call, [](T x, T y) { return toT<T>(A(x) * A(y)); });
          break;
        case Kernel::Maximum:
          binaryLoop<T>(call, [](T x, T y) {
            A ax(x), ay(y);
            if constexpr (!std::is_integral_v<A>)
              if (std::isnan(ax) || std::isnan(ay))
                return toT<T>(std::numeric_limits<A>::quiet_NaN());
            return toT<T>(ax > ay ? ax : ay);
          });
          break;
        case Kernel::Div:
          if constexpr (std::is_integral_v<T>) {
            const TensorRef &b = call.inputs[1];
            const T *pb = ptr<T>(b);
            for (int64_t i = 0, n = b.type->numElements(); i < n; ++i)
              if (pb[i] == 0)
                return Status::error("Integer division by zero");
            // Integer division rounds toward zero, as C++ (and TensorFlow's
            // truncatediv) does; INT_MIN / -1 wraps.
            binaryLoop<T>(call, [](T x, T y) {
              if (y == -1)
                return static_cast<T>(0 -
                                      static_cast<std::make_unsigned_t<T>>(x));
              return static_cast<T>(x / y);
            });
          } else {
            binaryLoop<T>(call, [](T x, T y) { return toT<T>(A(x) / A(y)); });
          }
          break;
        default:
          return Status::error("not a binary kernel");
        }
        return Status::ok();
      });
}

template <typename T, typename Op>
void unaryLoop(const KernelCall &call, Op op) {
  const T *in = ptr<T>(call.inputs[0]);
  T *out = ptr<T>(call.outputs[0]);
  for (int64_t i = 0, n = call.outputs[0].type->numElements(); i < n; ++i)
    out[i] = op(in[i]);
}

Status unary(const KernelCall &call) {
  Kernel k = call.kernel;
  bool numeric = k == Kernel::Neg || k == Kernel::Relu;
  auto body = [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    switch (k) {
    case Kernel::Neg:
      unaryLoop<T>(call, [](T x) { return toT<T>(A(0) - A(x)); });
      return Status::ok();
    case Kernel::Relu:
      unaryLoop<T>(call, [](T x) { return toT<T>(A(x) > A(0) ? A(x) : A(0)); });
      return Status::ok();
    default:
      break;
    }
    if constexpr (!std::is_integral_v<T>) {
      switch (k) {
      case Kernel::Exp:
        unaryLoop<T>(call, [](T x) { return toT<T>(std::exp(A(x))); });
        break;
      case Kernel::Log:
        unaryLoop<T>(call, [](T x) { return toT<T>(std::log(A(x))); });
        break;
      case Kernel::Tanh:
        unaryLoop<T>(call, [](T x) { return toT<T>(std::tanh(A(x))); });
        break;
      case Kernel::Sigmoid:
        unaryLoop<T>(
            call, [](T x) { return toT<T>(A(1) / (A(1) + std::exp(-A(x)))); });
        break;
      default:
        return Status::error("not a unary kernel");
      }
    }
    return Status::ok();
  };
  ElementType type = call.outputs[0].type->elementType;
  return numeric ? dispatch<Types::Numeric>(type, k, body)
                 : dispatch<Types::Float>(type, k, body);
}

Status addN(const KernelCall &call) {
  return dispatch<Types::Numeric>(
      call.outputs[0].type->elementType, call.kernel, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        T *out = ptr<T>(call.outputs[0]);
        int64_t n = call.outputs[0].type->numElements();
        for (int64_t i = 0; i < n; ++i) {
          Acc<T> sum = 0;
          for (const TensorRef &input : call.inputs)
            sum += Acc<T>(ptr<T>(input)[i]);
          out[i] = toT<T>(sum);
        }
        return Status::ok();
      });
}

Status biasAdd(const KernelCall &call) {
  return dispatch<Types::Numeric>(
      call.outputs[0].type->elementType, call.kernel, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        const T *value = ptr<T>(call.inputs[0]), *bias = ptr<T>(call.inputs[1]);
        T *out = ptr<T>(call.outputs[0]);
        int64_t channels = call.inputs[1].type->numElements();
        int64_t n = call.outputs[0].type->numElements();
        for (int64_t i = 0; i < n; i += channels)
          for (int64_t c = 0; c < channels; ++c)
            out[i + c] = toT<T>(Acc<T>(value[i + c]) + Acc<T>(bias[c]));
        return Status::ok();
      });
}

//===----------------------------------------------------------------------===//
// Reductions and softmax.
//===----------------------------------------------------------------------===//

Status reduce(const KernelCall &call) {
  const TensorType &inType = *call.inputs[0].type;
  std::vector<int64_t> outStridesFull(inType.shape.size(), 0);
  {
    // Strides into the output, 0 along reduced dimensions.
    std::vector<bool> reduced(inType.shape.size(), false);
    for (int64_t axis : call.params->axes)
      reduced[axis] = true;
    int64_t stride = 1;
    for (int64_t d = static_cast<int64_t>(inType.shape.size()) - 1; d >= 0;
         --d) {
      if (reduced[d])
        continue;
      outStridesFull[d] = stride;
      stride *= inType.shape[d];
    }
  }
  int64_t outCount = call.outputs[0].type->numElements();
  int64_t perOutput = outCount ? inType.numElements() / outCount : 0;
  Kernel k = call.kernel;
  return dispatch<Types::Numeric>(
      inType.elementType, k, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        using A = std::conditional_t<
            std::is_integral_v<T>, T,
            std::conditional_t<std::is_same_v<T, double>, double, float>>;
        const T *in = ptr<T>(call.inputs[0]);
        T *out = ptr<T>(call.outputs[0]);
        std::vector<A> acc(outCount, k == Kernel::ReduceMax
                                         ? std::numeric_limits<A>::lowest()
                                         : A(0));
        std::array<std::vector<int64_t>, 2> strides = {stridesOf(inType.shape),
                                                       outStridesFull};
        forEachIndex<2>(inType.shape, strides, [&](int64_t, const auto &off) {
          A x(in[off[0]]);
          A &slot = acc[off[1]];
          if (k == Kernel::ReduceMax) {
            if constexpr (!std::is_integral_v<A>)
              if (std::isnan(x)) {
                slot = x;
                return;
              }
            if (x > slot)
              slot = x;
          } else {
            slot += x;
          }
        });
        for (int64_t i = 0; i < outCount; ++i) {
          A value = acc[i];
          if (k == Kernel::ReduceMean && perOutput > 0)
            value = value / static_cast<A>(perOutput);
          out[i] = static_cast<T>(value);
        }
        return Status::ok();
      });
}

Status softmax(const KernelCall &call) {
  const TensorType &type = *call.inputs[0].type;
  int64_t cols = type.shape.back();
  int64_t rows = cols ? type.numElements() / cols : 0;
  return dispatch<Types::Float>(
      type.elementType, call.kernel, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
        const T *in = ptr<T>(call.inputs[0]);
        T *out = ptr<T>(call.outputs[0]);
        for (int64_t r = 0; r < rows; ++r) {
          const T *x = in + r * cols;
          A max = std::numeric_limits<A>::lowest();
          for (int64_t c = 0; c < cols; ++c)
            max = std::max(max, A(x[c]));
          A sum = 0;
          for (int64_t c = 0; c < cols; ++c)
            sum += std::exp(A(x[c]) - max);
          for (int64_t c = 0; c < cols; ++c)
            out[r * cols + c] = static_cast<T>(std::exp(A(x[c]) - max) / sum);
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
  if constexpr (std::is_same_v<To, bool>) {
    return Acc<From>(value) != Acc<From>(0);
  } else if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>) {
    double x = static_cast<double>(static_cast<Acc<From>>(value));
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

Status cast(const KernelCall &call) {
  int64_t n = call.outputs[0].type->numElements();
  return dispatch<Types::All>(call.inputs[0].type->elementType, call.kernel,
                              [&](auto fromTag) -> Status {
                                using From = typename decltype(fromTag)::type;
                                return dispatch<Types::All>(
                                    call.outputs[0].type->elementType,
                                    call.kernel, [&](auto toTag) -> Status {
                                      using To = typename decltype(toTag)::type;
                                      const From *in =
                                          ptr<From>(call.inputs[0]);
                                      To *out = ptr<To>(call.outputs[0]);
                                      for (int64_t i = 0; i < n; ++i)
                                        out[i] = convert<To>(in[i]);
                                      return Status::ok();
                                    });
                              });
}

/// Copies elements of any type: out[i] = in[offset(i)].
Status gather(const KernelCall &call, const std::vector<int64_t> &inStrides,
              int64_t base) {
  const TensorType &outType = *call.outputs[0].type;
  int64_t size = elementBytes(outType.elementType);
  const uint8_t *in = static_cast<const uint8_t *>(call.inputs[0].data);
  uint8_t *out = static_cast<uint8_t *>(call.outputs[0].data);
  std::array<std::vector<int64_t>, 1> strides = {inStrides};
  forEachIndex<1>(outType.shape, strides, [&](int64_t i, const auto &off) {
    std::memcpy(out + i * size, in + (base + off[0]) * size, size);
  });
  return Status::ok();
}

Status transpose(const KernelCall &call) {
  std::vector<int64_t> own = stridesOf(call.inputs[0].type->shape);
  std::vector<int64_t> strides;
  for (int64_t p : call.params->perm)
    strides.push_back(own[p]);
  return gather(call, strides, 0);
}

Status slice(const KernelCall &call) {
  std::vector<int64_t> own = stridesOf(call.inputs[0].type->shape);
  int64_t base = 0;
  for (size_t d = 0; d < own.size(); ++d)
    base += call.params->begin[d] * own[d];
  return gather(call, own, base);
}

Status concat(const KernelCall &call) {
  const TensorType &outType = *call.outputs[0].type;
  int64_t axis = call.params->axis;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= outType.shape[d];
  int64_t size = elementBytes(outType.elementType);
  uint8_t *out = static_cast<uint8_t *>(call.outputs[0].data);
  for (int64_t o = 0; o < outer; ++o)
    for (const TensorRef &input : call.inputs) {
      int64_t chunk = (outer ? input.type->numElements() / outer : 0) * size;
      std::memcpy(out, static_cast<const uint8_t *>(input.data) + o * chunk,
                  chunk);
      out += chunk;
    }
  return Status::ok();
}

Status copyData(const KernelCall &call) {
  if (call.outputs[0].data != call.inputs[0].data)
    std::memcpy(call.outputs[0].data, call.inputs[0].data,
                call.outputs[0].type->bytes());
  return Status::ok();
}

Status assignUpdate(const KernelCall &call) {
  bool add = call.kernel == Kernel::AssignAdd;
  return dispatch<Types::Numeric>(
      call.inputs[0].type->elementType, call.kernel, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        const T *value = ptr<T>(call.inputs[0]);
        T *var = ptr<T>(call.outputs[0]);
        for (int64_t i = 0, n = call.inputs[0].type->numElements(); i < n; ++i)
          var[i] = add ? toT<T>(Acc<T>(var[i]) + Acc<T>(value[i]))
                       : toT<T>(Acc<T>(var[i]) - Acc<T>(value[i]));
        return Status::ok();
      });
}

//===----------------------------------------------------------------------===//
// Matrix product.
//===----------------------------------------------------------------------===//

Status matmul(const KernelCall &call) {
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
  return dispatch<Types::Numeric>(
      aType.elementType, call.kernel, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        const T *a = ptr<T>(call.inputs[0]), *b = ptr<T>(call.inputs[1]);
        T *c = ptr<T>(call.outputs[0]);
        if constexpr (std::is_same_v<T, float>) {
          cblas_sgemm(CblasRowMajor, transA, transB, m, n, k, 1.0f, a, lda, b,
                      ldb, 0.0f, c, n);
        } else if constexpr (std::is_same_v<T, double>) {
          cblas_dgemm(CblasRowMajor, transA, transB, m, n, k, 1.0, a, lda, b,
                      ldb, 0.0, c, n);
        } else if constexpr (isHalf<T>) {
          std::vector<float> fa(aType.numElements()), fb(bType.numElements());
          std::vector<float> fc(m * n);
          for (size_t i = 0; i < fa.size(); ++i)
            fa[i] = static_cast<float>(a[i]);
          for (size_t i = 0; i < fb.size(); ++i)
            fb[i] = static_cast<float>(b[i]);
          cblas_sgemm(CblasRowMajor, transA, transB, m, n, k, 1.0f, fa.data(),
                      lda, fb.data(), ldb, 0.0f, fc.data(), n);
          for (int64_t i = 0; i < m * n; ++i)
            c[i] = static_cast<T>(fc[i]);
        } else {
          // Integers: wrap on overflow, as TensorFlow's integer MatMul does.
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              uint64_t sum = 0;
              for (int64_t p = 0; p < k; ++p) {
                T x = ta ? a[p * lda + i] : a[i * lda + p];
                T y = tb ? b[j * ldb + p] : b[p * ldb + j];
                sum += static_cast<uint64_t>(static_cast<int64_t>(x)) *
                       static_cast<uint64_t>(static_cast<int64_t>(y));
              }
              c[i * n + j] = static_cast<T>(sum);
            }
        }
        return Status::ok();
      });
}

} // namespace

Status runHostKernel(const KernelCall &call) {
  switch (call.kernel) {
  case Kernel::MatMul:
    return matmul(call);
  case Kernel::Add:
  case Kernel::Sub:
  case Kernel::Mul:
  case Kernel::Div:
  case Kernel::Maximum:
    return binary(call);
  case Kernel::Neg:
  case Kernel::Exp:
  case Kernel::Log:
  case Kernel::Tanh:
  case Kernel::Sigmoid:
  case Kernel::Relu:
    return unary(call);
  case Kernel::AddN:
    return addN(call);
  case Kernel::BiasAdd:
    return biasAdd(call);
  case Kernel::ReduceSum:
  case Kernel::ReduceMean:
  case Kernel::ReduceMax:
    return reduce(call);
  case Kernel::Softmax:
    return softmax(call);
  case Kernel::Cast:
    return cast(call);
  case Kernel::Transpose:
    return transpose(call);
  case Kernel::Slice:
    return slice(call);
  case Kernel::Concat:
    return concat(call);
  case Kernel::Reshape:
  case Kernel::Identity:
  case Kernel::Read:
  case Kernel::Assign:
    return copyData(call);
  case Kernel::AssignAdd:
  case Kernel::AssignSub:
    return assignUpdate(call);
  }
  return Status::error("unknown kernel");
}

} // namespace gplace::runtime
