//===- KernelSource.cpp - CUDA C for every kernel but GEMM and copies -----===//
//
// Each launch gets its own kernel with shapes, strides and element types as
// constants: index arithmetic folds, and the source is its own cache key.
// 16-bit floats are stored as unsigned short and converted with PTX's cvt
// (f16) or bit arithmetic (bf16), so no toolkit header is needed at run
// time; arithmetic happens in float (double for f64).
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Cuda.h"
#include "gplace/Support/Shape.h"

#include <map>
#include <set>
#include <sstream>

namespace gplace::runtime {

namespace {

constexpr const char *kPrelude = R"cuda(
__device__ __forceinline__ float gp_load_f16(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ unsigned short gp_store_f16(float f) {
  unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ float gp_load_bf16(unsigned short h) {
  return __uint_as_float(((unsigned int)h) << 16);
}
__device__ __forceinline__ unsigned short gp_store_bf16(float f) {
  unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
// The helpers of ElementwiseKernels.def's scalar functions.
__device__ __forceinline__ float gp_exp(float x) { return expf(x); }
__device__ __forceinline__ double gp_exp(double x) { return exp(x); }
__device__ __forceinline__ float gp_log(float x) { return logf(x); }
__device__ __forceinline__ double gp_log(double x) { return log(x); }
__device__ __forceinline__ float gp_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double gp_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float gp_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double gp_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float gp_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double gp_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float gp_sin(float x) { return sinf(x); }
__device__ __forceinline__ double gp_sin(double x) { return sin(x); }
__device__ __forceinline__ float gp_cos(float x) { return cosf(x); }
__device__ __forceinline__ double gp_cos(double x) { return cos(x); }
__device__ __forceinline__ float gp_tan(float x) { return tanf(x); }
__device__ __forceinline__ double gp_tan(double x) { return tan(x); }
__device__ __forceinline__ float gp_asin(float x) { return asinf(x); }
__device__ __forceinline__ double gp_asin(double x) { return asin(x); }
__device__ __forceinline__ float gp_acos(float x) { return acosf(x); }
__device__ __forceinline__ double gp_acos(double x) { return acos(x); }
__device__ __forceinline__ float gp_atan(float x) { return atanf(x); }
__device__ __forceinline__ double gp_atan(double x) { return atan(x); }
__device__ __forceinline__ float gp_sinh(float x) { return sinhf(x); }
__device__ __forceinline__ double gp_sinh(double x) { return sinh(x); }
__device__ __forceinline__ float gp_cosh(float x) { return coshf(x); }
__device__ __forceinline__ double gp_cosh(double x) { return cosh(x); }
__device__ __forceinline__ float gp_asinh(float x) { return asinhf(x); }
__device__ __forceinline__ double gp_asinh(double x) { return asinh(x); }
__device__ __forceinline__ float gp_acosh(float x) { return acoshf(x); }
__device__ __forceinline__ double gp_acosh(double x) { return acosh(x); }
__device__ __forceinline__ float gp_atanh(float x) { return atanhf(x); }
__device__ __forceinline__ double gp_atanh(double x) { return atanh(x); }
__device__ __forceinline__ float gp_erf(float x) { return erff(x); }
__device__ __forceinline__ double gp_erf(double x) { return erf(x); }
__device__ __forceinline__ float gp_ceil(float x) { return ceilf(x); }
__device__ __forceinline__ double gp_ceil(double x) { return ceil(x); }
__device__ __forceinline__ float gp_floor(float x) { return floorf(x); }
__device__ __forceinline__ double gp_floor(double x) { return floor(x); }
// rint rounds halves to even, as TensorFlow's Round.
__device__ __forceinline__ float gp_round(float x) { return rintf(x); }
__device__ __forceinline__ double gp_round(double x) { return rint(x); }
__device__ __forceinline__ float gp_truncate_mod(float x, float y) { return fmodf(x, y); }
__device__ __forceinline__ double gp_truncate_mod(double x, double y) { return fmod(x, y); }
template <typename T> __device__ __forceinline__ T gp_floor_mod(T x, T y) {
  T r = gp_truncate_mod(x, y);
  return (r != T(0) && ((r < T(0)) != (y < T(0)))) ? r + y : r;
}
template <typename T> __device__ __forceinline__ T gp_abs(T x) {
  return x < T(0) ? -x : x;
}
template <typename T> __device__ __forceinline__ T gp_sign(T x) {
  return x != x ? x : (x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)));
}
template <typename T> __device__ __forceinline__ T gp_maximum(T a, T b) {
  return (a != a || b != b) ? a + b : (a > b ? a : b);
}
template <typename T> __device__ __forceinline__ T gp_relu(T x) {
  return x != x ? x : (x > T(0) ? x : T(0));
}
)cuda";

/// Philox4x32-10 and TensorFlow's distributions, as lib/Runtime/Random.cpp
/// computes them on the host: the same words for the same seed, so uniform
/// numbers are bit-identical to the host's and normal ones agree to the
/// last bits of CUDA's sinf/cosf/logf.
constexpr const char *kPhiloxPrelude = R"cuda(
struct gp_u4 { unsigned int x[4]; };
__device__ __forceinline__ gp_u4 gp_philox(gp_u4 c, unsigned int k0,
                                           unsigned int k1) {
  for (int r = 0; r < 10; ++r) {
    unsigned long long p0 = 0xD2511F53ull * c.x[0];
    unsigned long long p1 = 0xCD9E8D57ull * c.x[2];
    gp_u4 n = {{(unsigned int)(p1 >> 32) ^ c.x[1] ^ k0, (unsigned int)p1,
                (unsigned int)(p0 >> 32) ^ c.x[3] ^ k1, (unsigned int)p0}};
    c = n;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}
__device__ __forceinline__ gp_u4 gp_skip(gp_u4 c, unsigned long long n) {
  unsigned long long low = ((unsigned long long)c.x[1] << 32) | c.x[0];
  unsigned long long sum = low + n;
  c.x[0] = (unsigned int)sum;
  c.x[1] = (unsigned int)(sum >> 32);
  if (sum < low && ++c.x[2] == 0) ++c.x[3];
  return c;
}
__device__ __forceinline__ float gp_to_float(unsigned int x) {
  return __uint_as_float((127u << 23) | (x & 0x7fffffu)) - 1.0f;
}
__device__ __forceinline__ double gp_to_double(unsigned int x0,
                                               unsigned int x1) {
  unsigned long long bits =
      (1023ull << 52) |
      ((((unsigned long long)x0 << 32) | x1) & ((1ull << 52) - 1));
  return __longlong_as_double((long long)bits) - 1.0;
}
__device__ __forceinline__ void gp_box_muller(unsigned int x0, unsigned int x1,
                                              float *f) {
  float u1 = fmaxf(gp_to_float(x0), 1.0e-7f);
  float v1 = 2.0f * 3.14159265358979323846f * gp_to_float(x1);
  float u2 = sqrtf(-2.0f * logf(u1));
  f[0] = sinf(v1) * u2;
  f[1] = cosf(v1) * u2;
}
__device__ __forceinline__ void gp_box_muller(unsigned int x0, unsigned int x1,
                                              unsigned int x2, unsigned int x3,
                                              double *d) {
  double u1 = fmax(gp_to_double(x0, x1), 1.0e-7);
  double v1 = 2 * 3.14159265358979323846 * gp_to_double(x2, x3);
  double u2 = sqrt(-2.0 * log(u1));
  d[0] = sin(v1) * u2;
  d[1] = cos(v1) * u2;
}
)cuda";

/// Reductions of at least kBlockReduce elements per result run one block
/// of kReduceBlock threads per result (the launch's block size).
constexpr int64_t kBlockReduce = 1024;
constexpr int64_t kReduceBlock = kCudaThreadsPerBlock;

/// How an element type is stored and computed on the GPU.
struct GpuType {
  ElementType type;
  const char *storage;
  const char *compute;

  std::string load(const std::string &expr) const {
    if (type == ElementType::F16)
      return "gp_load_f16(" + expr + ")";
    if (type == ElementType::BF16)
      return "gp_load_bf16(" + expr + ")";
    return expr;
  }
  std::string store(const std::string &value) const {
    if (type == ElementType::F16)
      return "gp_store_f16(" + value + ")";
    if (type == ElementType::BF16)
      return "gp_store_bf16(" + value + ")";
    return "(" + value + ")";
  }
  /// A math function for the compute type: expf for float, exp for double.
  std::string math(const std::string &fn) const {
    return type == ElementType::F64 ? fn : fn + "f";
  }
  std::string constant(double value) const {
    std::ostringstream os;
    os << "((" << compute << ")" << value << ")";
    return os.str();
  }
};

/// The element type that selects `call`'s kernel (TensorFlow's "T"): its
/// result's, the variable's for an in-place update, its first input's for
/// a comparison (isKernelTypedByInput).
ElementType kernelElementType(const KernelCall &call) {
  return isKernelTypedByInput(call.kernel) ? call.inputs[0].type->elementType
                                           : call.outputs[0].type->elementType;
}

std::optional<GpuType> gpuType(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return GpuType{type, "float", "float"};
  case ElementType::F64:
    return GpuType{type, "double", "double"};
  case ElementType::F16:
    return GpuType{type, "unsigned short", "float"};
  case ElementType::BF16:
    return GpuType{type, "unsigned short", "float"};
  default:
    return std::nullopt;
  }
}

/// The CUDA storage type of a kernel parameter of element type `type`:
/// integers (labels, seeds, indices) as well as floats.
std::string storageOf(ElementType type) {
  switch (type) {
  case ElementType::I32:
    return "int";
  case ElementType::I64:
    return "long long";
  case ElementType::I1:
    return "unsigned char";
  default:
    if (std::optional<GpuType> gpu = gpuType(type))
      return gpu->storage;
    return "unsigned char";
  }
}

/// Statements computing `o<k>` = the offset in operand k of the element at
/// linear index `index` of a tensor of shape `dims`, where operand k steps
/// `strides[k][d]` along dimension d.
std::string offsets(const std::string &index, const std::vector<int64_t> &dims,
                    const std::vector<std::vector<int64_t>> &strides,
                    int64_t base = 0) {
  std::ostringstream os;
  os << "  long long r = " << index << ";\n";
  for (size_t k = 0; k < strides.size(); ++k)
    os << "  long long o" << k << " = " << (k == 0 ? base : 0) << ";\n";
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (dims[d] == 1)
      continue;
    os << "  { long long c = r % " << dims[d] << "LL; r /= " << dims[d]
       << "LL;";
    for (size_t k = 0; k < strides.size(); ++k)
      if (strides[k][d] != 0)
        os << " o" << k << " += c * " << strides[k][d] << "LL;";
    os << " }\n";
  }
  return os.str();
}

/// The scalar function of an elementwise kernel, as text.
std::string scalarFunction(Kernel kernel) {
  switch (kernel) {
#define GPLACE_ELEMENTWISE(Name, Expression)                                   \
  case Kernel::Name:                                                           \
    return #Expression;
#include "../ElementwiseKernels.def"
  default:
    return "";
  }
}

/// Statements setting `value` (of type T) to `kernel`'s scalar function of
/// `operands` (expressions of type T), pairwise over more than two.
std::string applyScalarFunction(Kernel kernel, const std::string &value,
                                const std::vector<std::string> &operands) {
  std::string fn = scalarFunction(kernel), out;
  if (operands.size() == 1)
    return "  { const T x0 = " + operands[0] + "; " + value + " = (" + fn +
           "); }\n";
  out = "  " + value + " = " + operands[0] + ";\n";
  for (size_t k = 1; k < operands.size(); ++k)
    out += "  { const T x0 = " + value + ", x1 = " + operands[k] + "; " +
           value + " = (" + fn + "); }\n";
  return out;
}

class Generator {
public:
  explicit Generator(const KernelCall &call) : call_(call) {}

  StatusOr<CudaKernelSource> generate() {
    const TensorType &out = *call_.outputs[0].type;
    // The type the kernel computes in (TensorFlow's type attribute "T").
    ElementType elementType = kernelElementType(call_);
    std::optional<GpuType> type = gpuType(elementType);
    if (!type)
      return Status::invalidArgument("no GPU kernel for gplace." +
                           std::string(kernelMnemonic(call_.kernel)) +
                           " with element type " +
                           std::string(elementTypeName(elementType)));
    type_ = *type;
    CudaKernelSource kernel;
    kernel.threads = out.numElements();
    std::string body, prelude;
    switch (call_.kernel) {
    case Kernel::ReduceSum:
    case Kernel::ReduceMean:
    case Kernel::ReduceMax:
      body = reduce(kernel.threads);
      break;
    case Kernel::Softmax:
      kernel.threads = softmaxRows();
      body = softmax();
      break;
    case Kernel::Transpose: {
      std::vector<int64_t> own = rowMajorStrides(call_.inputs[0].type->shape);
      std::vector<int64_t> strides;
      for (int64_t p : call_.params->perm)
        strides.push_back(own[p]);
      body = offsets("i", out.shape, {strides}) + "  out0[i] = in0[o0];\n";
      break;
    }
    case Kernel::Slice: {
      std::vector<int64_t> own = rowMajorStrides(call_.inputs[0].type->shape);
      int64_t base = 0;
      for (size_t d = 0; d < own.size(); ++d)
        base += call_.params->begin[d] * own[d];
      body = offsets("i", out.shape, {own}, base) + "  out0[i] = in0[o0];\n";
      break;
    }
    case Kernel::Concat:
      body = concat();
      break;
    case Kernel::BroadcastTo:
      body =
          offsets("i", out.shape, {readStrides(0)}) + "  out0[i] = in0[o0];\n";
      break;
    case Kernel::Pad:
      body = pad();
      break;
    case Kernel::IsInf:
    case Kernel::IsNan: {
      // Beyond the largest finite value: only an infinity (a NaN compares
      // false).
      std::string x = type_.load("in0[i]");
      std::string test =
          call_.kernel == Kernel::IsNan
              ? "v != v"
              : type_.math("fabs") + "(v) > " +
                    (elementType == ElementType::F64
                         ? std::string("1.7976931348623157e308")
                         : std::string("3.402823466e38f"));
      body = "  { " + std::string(type_.compute) + " v = " + x +
             "; out0[i] = (" + test + ") ? 1 : 0; }\n";
      break;
    }
    case Kernel::Cast: {
      // Between float types (the kernel registry claims no other): loaded
      // in the source's compute type, stored in the result's (bf16 and
      // f16 rounded to nearest even, as the host's conversions).
      std::optional<GpuType> from = gpuType(call_.inputs[0].type->elementType);
      if (!from)
        return Status::invalidArgument(
            "no GPU kernel for gplace.cast from " +
            std::string(elementTypeName(call_.inputs[0].type->elementType)));
      body = "  out0[i] = " +
             type_.store("(" + std::string(type_.compute) + ")" +
                         from->load("in0[i]")) +
             ";\n";
      break;
    }
    case Kernel::GreaterEqual:
    case Kernel::Greater:
    case Kernel::Equal:
      body = offsets("i", out.shape, {readStrides(0), readStrides(1)}) +
             "  out0[i] = (" + type_.load("in0[o0]") +
             (call_.kernel == Kernel::Greater        ? " > "
              : call_.kernel == Kernel::GreaterEqual ? " >= "
                                                     : " == ") +
             type_.load("in1[o1]") + ") ? 1 : 0;\n";
      break;
    case Kernel::Gather:
      body = gather();
      break;
    case Kernel::UnsortedSegmentSum:
      body = unsortedSegmentSum();
      break;
    case Kernel::Select:
      // Values are moved, not computed with: the storage type will do.
      body = offsets("i", out.shape,
                     {readStrides(0), readStrides(1), readStrides(2)}) +
             "  out0[i] = in0[o0] ? in1[o1] : in2[o2];\n";
      break;
    case Kernel::SparseSoftmaxCrossEntropyWithLogits:
      kernel.threads = call_.inputs[0].type->shape[0];
      body = sparseSoftmaxCrossEntropy();
      break;
    case Kernel::ApplyGradientDescent:
    case Kernel::ApplyMomentum:
    case Kernel::ApplyAdam:
      body = applyUpdate();
      break;
    case Kernel::StatelessRandomUniform:
    case Kernel::StatelessRandomNormal:
    case Kernel::StatelessTruncatedNormal:
    case Kernel::Dropout:
      kernel.threads = (out.numElements() + perGroup() - 1) / perGroup();
      body = statelessRandom();
      prelude = kPhiloxPrelude;
      break;
    case Kernel::AssignAdd:
    case Kernel::AssignSub:
      body = "  out0[i] = " +
             type_.store(type_.load("out0[i]") +
                         (call_.kernel == Kernel::AssignAdd ? " + " : " - ") +
                         type_.load("in0[i]")) +
             ";\n";
      break;
    default:
      return Status::invalidArgument("gplace." +
                           std::string(kernelMnemonic(call_.kernel)) +
                           " does not run as an NVRTC kernel");
    }

    std::ostringstream os;
    os << "// gplace: " << kernelMnemonic(call_.kernel) << " " << out.str()
       << "\n"
       << kPrelude << prelude << "extern \"C\" __global__ void "
       << kernel.entry << "(";
    size_t n = 0;
    for (size_t k = 0; k < call_.inputs.size(); ++k, ++n)
      os << (n ? ", " : "") << "const "
         << storageOf(call_.inputs[k].type->elementType)
         << " *__restrict__ in" << k;
    for (size_t k = 0; k < call_.outputs.size(); ++k, ++n)
      os << (n ? ", " : "") << storageOf(call_.outputs[k].type->elementType)
         << " *__restrict__ out" << k;
    os << ") {\n"
       << "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
       << "  if (i >= " << kernel.threads << "LL) return;\n"
       << body << "}\n";
    kernel.source = os.str();
    kernel.numParameters = n;
    return kernel;
  }

private:
  /// GatherV2: one thread per result element, reading params at its index
  /// along the axis; an index out of range gives zero, as TensorFlow's GPU
  /// kernel (a kernel cannot report an error).
  std::string gather() const {
    const std::vector<int64_t> &params = call_.inputs[0].type->shape;
    auto axis = static_cast<size_t>(call_.params->axis);
    int64_t inner = 1;
    for (size_t d = axis + 1; d < params.size(); ++d)
      inner *= params[d];
    int64_t count = call_.inputs[1].type->numElements();
    std::ostringstream os;
    os << "  const long long inner = " << inner << "LL, count = " << count
       << "LL, dim = " << params[axis] << "LL;\n"
       << "  const long long o = i / (count * inner), r = i % (count * "
          "inner);\n"
       << "  const long long index = (long long)in1[r / inner];\n"
       << "  out0[i] = index >= 0 && index < dim ? in0[(o * dim + index) * "
          "inner + r % inner] : 0;\n";
    return os.str();
  }

  /// UnsortedSegmentSum: one thread per result element, adding in index
  /// order the data elements whose id is its segment (deterministic, no
  /// atomics); ids out of range are dropped.
  std::string unsortedSegmentSum() const {
    const TensorType &out = *call_.outputs[0].type;
    int64_t inner = 1;
    for (size_t d = 1; d < out.shape.size(); ++d)
      inner *= out.shape[d];
    int64_t count = call_.inputs[1].type->numElements();
    std::string c = type_.compute;
    std::ostringstream os;
    os << "  const long long inner = " << inner << "LL;\n"
       << "  const long long segment = i / inner, j = i % inner;\n"
       << "  " << c << " acc = " << type_.constant(0) << ";\n"
       << "  for (long long k = 0; k < " << count << "LL; ++k)\n"
       << "    if ((long long)in1[k] == segment) acc += "
       << type_.load("in0[k * inner + j]") << ";\n"
       << "  out0[i] = " << type_.store("acc") << ";\n";
    return os.str();
  }

  /// The strides that read input `k` broadcast to the output's shape.
  std::vector<int64_t> readStrides(size_t k) const {
    return broadcastStrides(call_.inputs[k].type->shape,
                            call_.outputs[0].type->shape);
  }

  /// One thread per output element that adds its elements in order, or,
  /// for long reductions (kBlockReduce elements or more: a bias's gradient
  /// sums a whole batch of images), one block of 256 threads per output
  /// element: each thread adds every 256th element, then the block adds
  /// the 256 partial sums in a tree in shared memory (a fixed order: the
  /// same bits every run). `threads` is set to the launch's thread count.
  std::string reduce(int64_t &threads) {
    const TensorType &in = *call_.inputs[0].type;
    std::vector<int64_t> own = rowMajorStrides(in.shape);
    std::vector<bool> reduced(in.shape.size(), false);
    for (int64_t axis : call_.params->axes)
      reduced[axis] = true;
    std::vector<int64_t> keptDims, keptStrides, reducedDims, reducedStrides;
    int64_t count = 1;
    for (size_t d = 0; d < in.shape.size(); ++d) {
      if (reduced[d]) {
        reducedDims.push_back(in.shape[d]);
        reducedStrides.push_back(own[d]);
        count *= in.shape[d];
      } else {
        keptDims.push_back(in.shape[d]);
        keptStrides.push_back(own[d]);
      }
    }
    std::string c = type_.compute;
    bool isMax = call_.kernel == Kernel::ReduceMax;
    std::string init =
        !isMax ? type_.constant(0)
        : type_.type == ElementType::F64
            ? "-__longlong_as_double(0x7ff0000000000000LL)"
            : "-__int_as_float(0x7f800000)";
    // acc <- acc combined with x (max propagates NaN).
    auto combine = [&](const std::string &acc, const std::string &x) {
      return isMax ? "if (" + x + " != " + x + " || (" + acc + " == " + acc +
                         " && " + x + " > " + acc + ")) " + acc + " = " + x +
                         ";\n"
                   : acc + " += " + x + ";\n";
    };
    bool block = count >= kBlockReduce;
    std::string row = block ? "row" : "i";
    std::ostringstream os;
    if (block) {
      threads = static_cast<int64_t>(call_.outputs[0].type->numElements()) *
                kReduceBlock;
      os << "  const long long row = i / " << kReduceBlock << "LL;\n"
         << "  const int lane = threadIdx.x;\n";
    }
    os << offsets(row, keptDims, {keptStrides}) << "  long long base = o0;\n"
       << "  " << c << " acc = " << init << ";\n"
       << "  for (long long q = " << (block ? "lane" : "0") << "; q < "
       << count << "LL; q += " << (block ? kReduceBlock : 1) << ") {\n"
       << "    long long s = q, off = base;\n";
    for (int64_t d = static_cast<int64_t>(reducedDims.size()) - 1; d >= 0;
         --d)
      os << "    { long long c = s % " << reducedDims[d] << "LL; s /= "
         << reducedDims[d] << "LL; off += c * " << reducedStrides[d]
         << "LL; }\n";
    os << "    " << c << " x = " << type_.load("in0[off]") << ";\n"
       << "    " << combine("acc", "x");
    if (isMax && !block)
      os << "    if (acc != acc) break;\n";
    os << "  }\n";
    if (block) {
      os << "  __shared__ " << c << " part[" << kReduceBlock << "];\n"
         << "  part[lane] = acc;\n"
         << "  __syncthreads();\n"
         << "  for (int w = " << kReduceBlock / 2 << "; w > 0; w >>= 1) {\n"
         << "    if (lane < w) { " << c << " x = part[lane + w]; "
         << combine("part[lane]", "x") << "    }\n"
         << "    __syncthreads();\n"
         << "  }\n"
         << "  if (lane != 0) return;\n"
         << "  acc = part[0];\n";
    }
    if (call_.kernel == Kernel::ReduceMean)
      os << "  acc = acc / (" << c << ")" << count << ";\n";
    os << "  out0[" << row << "] = " << type_.store("acc") << ";\n";
    return os.str();
  }

  /// Each output element from its input element, or zero in the padding.
  std::string pad() {
    const TensorType &in = *call_.inputs[0].type, &out = *call_.outputs[0].type;
    std::vector<int64_t> strides = rowMajorStrides(in.shape);
    std::ostringstream os;
    os << "  long long r = i, off = 0; bool inside = true;\n";
    for (int64_t d = static_cast<int64_t>(out.shape.size()) - 1; d >= 0; --d)
      os << "  { long long c = r % " << out.shape[d] << "LL - "
         << call_.params->paddings[2 * d] << "LL; r /= " << out.shape[d]
         << "LL; if (c < 0 || c >= " << in.shape[d]
         << "LL) inside = false; off += c * " << strides[d] << "LL; }\n";
    os << "  out0[i] = inside ? in0[off] : (" << type_.storage << ")0;\n";
    return os.str();
  }

  /// One thread per row: the loss and the backprop of
  /// SparseSoftmaxCrossEntropyWithLogits. A label out of range gives NaN,
  /// as TensorFlow's GPU kernel does (the CPU kernel reports an error).
  std::string sparseSoftmaxCrossEntropy() {
    int64_t cols = call_.inputs[0].type->shape[1];
    std::string c = type_.compute, e = type_.math("exp"), l = type_.math("log");
    std::ostringstream os;
    os << "  const long long row = i * " << cols << "LL;\n"
       << "  const long long label = (long long)in1[i];\n"
       << "  " << c << " m = " << type_.load("in0[row]") << ";\n"
       << "  for (long long k = 1; k < " << cols << "LL; ++k) { " << c
       << " x = " << type_.load("in0[row + k]") << "; if (x > m) m = x; }\n"
       << "  " << c << " sum = 0;\n"
       << "  for (long long k = 0; k < " << cols << "LL; ++k) sum += " << e
       << "(" << type_.load("in0[row + k]") << " - m);\n"
       << "  if (label < 0 || label >= " << cols << "LL) {\n"
       << "    out0[i] = " << type_.store(c + "(0) / " + c + "(0)") << ";\n"
       << "    for (long long k = 0; k < " << cols << "LL; ++k) out1[row + k] = "
       << type_.store(c + "(0) / " + c + "(0)") << ";\n"
       << "    return;\n  }\n"
       << "  out0[i] = " << type_.store(l + "(sum) - (" +
                                        type_.load("in0[row + label]") + " - m)")
       << ";\n"
       << "  for (long long k = 0; k < " << cols << "LL; ++k) out1[row + k] = "
       << type_.store(e + "(" + type_.load("in0[row + k]") + " - m) / sum - (k == label ? " + c + "(1) : " + c + "(0))")
       << ";\n";
    return os.str();
  }

  /// The optimizers, one thread per element of the variable, every slot
  /// updated by the same thread (one kernel per variable): the formulas of
  /// the host kernels (TensorFlow's training_ops).
  std::string applyUpdate() {
    std::string c = type_.compute, sq = type_.math("sqrt");
    auto in = [&](int k, bool scalar) {
      return type_.load("in" + std::to_string(k) + (scalar ? "[0]" : "[i]"));
    };
    std::ostringstream os;
    switch (call_.kernel) {
    case Kernel::ApplyGradientDescent:
      os << "  out0[i] = "
         << type_.store(type_.load("out0[i]") + " - " + in(0, true) + " * " +
                        in(1, false))
         << ";\n";
      break;
    case Kernel::ApplyMomentum:
      os << "  const " << c << " lr = " << in(0, true) << ", g = " << in(1, false)
         << ", mom = " << in(2, true) << ";\n"
         << "  const " << c << " acc = " << type_.load("out1[i]")
         << " * mom + g;\n"
         << "  out1[i] = " << type_.store("acc") << ";\n"
         << "  out0[i] = "
         << type_.store(type_.load("out0[i]") + " - " +
                        (call_.params->useNesterov
                             ? "(g * lr + acc * mom * lr)"
                             : "lr * acc"))
         << ";\n";
      break;
    default: // ApplyAdam.
      os << "  const " << c << " b1p = " << in(0, true) << ", b2p = "
         << in(1, true) << ", lr = " << in(2, true) << ", b1 = " << in(3, true)
         << ", b2 = " << in(4, true) << ", eps = " << in(5, true)
         << ", g = " << in(6, false) << ";\n"
         << "  const " << c << " alpha = lr * " << sq << "(" << c
         << "(1) - b2p) / (" << c << "(1) - b1p);\n"
         << "  " << c << " m = " << type_.load("out1[i]") << ", v = "
         << type_.load("out2[i]") << ";\n"
         << "  m += (g - m) * (" << c << "(1) - b1);\n"
         << "  v += (g * g - v) * (" << c << "(1) - b2);\n"
         << "  out1[i] = " << type_.store("m") << ";\n"
         << "  out2[i] = " << type_.store("v") << ";\n"
         << "  const " << c << " d = "
         << (call_.params->useNesterov ? "m * b1 + (" + c + "(1) - b1) * g"
                                       : std::string("m"))
         << ";\n"
         << "  out0[i] = "
         << type_.store(type_.load("out0[i]") + " - d * alpha / (" + sq +
                        "(v) + eps)")
         << ";\n";
      break;
    }
    return os.str();
  }

  /// Numbers per Philox output group: four floats or two doubles.
  int64_t perGroup() const { return type_.type == ElementType::F64 ? 2 : 4; }

  /// The stateless random ops, one thread per output group: Random.cpp's
  /// stream (TensorFlow's GenerateKey, group g from the counter advanced
  /// by g; the truncated normal's group g from its own stream, 256 (f64:
  /// 128) counters wide; f16 and bf16 uniform numbers from 16 bits).
  std::string statelessRandom() {
    bool isDouble = type_.type == ElementType::F64;
    std::string c = isDouble ? "double" : "float";
    int64_t n = call_.outputs[0].type->numElements(), per = perGroup();
    // Dropout reads its seed third and keeps x / (1 - rate) where the
    // uniform number is >= rate (a rate outside [0, 1) is checked on the
    // host only).
    bool dropout = call_.kernel == Kernel::Dropout;
    std::string seed = dropout ? "in2" : "in0";
    std::ostringstream os;
    os << "  const unsigned long long s0 = (unsigned long long)(long long)"
       << seed << "[0], s1 = (unsigned long long)(long long)" << seed
       << "[1];\n"
       << "  gp_u4 seed = {{(unsigned int)s0, (unsigned int)(s0 >> 32), "
          "(unsigned int)s1, (unsigned int)(s1 >> 32)}};\n"
       << "  gp_u4 mix = gp_philox(seed, 0x3ec8f720u, 0x02461e29u);\n"
       << "  const unsigned int k0 = mix.x[0], k1 = mix.x[1];\n"
       << "  gp_u4 base = {{0u, 0u, mix.x[2], mix.x[3]}};\n"
       << "  " << c << " v[4];\n";
    switch (call_.kernel) {
    case Kernel::StatelessRandomUniform:
    case Kernel::Dropout:
      os << "  gp_u4 w = gp_philox(gp_skip(base, (unsigned long long)i), k0, "
            "k1);\n";
      if (isDouble)
        os << "  v[0] = gp_to_double(w.x[0], w.x[1]); v[1] = "
              "gp_to_double(w.x[2], w.x[3]);\n";
      else if (type_.type == ElementType::F16)
        // TensorFlow's Uint16ToHalf: 10 random mantissa bits.
        os << "  for (int k = 0; k < 4; ++k) v[k] = (float)(w.x[k] & 0x3ffu) "
              "* (1.0f / 1024.0f);\n";
      else if (type_.type == ElementType::BF16)
        // TensorFlow's Uint16ToGfloat16: 7 random mantissa bits.
        os << "  for (int k = 0; k < 4; ++k) v[k] = (float)(w.x[k] & 0x7fu) * "
              "(1.0f / 128.0f);\n";
      else
        os << "  for (int k = 0; k < 4; ++k) v[k] = gp_to_float(w.x[k]);\n";
      break;
    case Kernel::StatelessRandomNormal:
      os << "  gp_u4 w = gp_philox(gp_skip(base, (unsigned long long)i), k0, "
            "k1);\n";
      if (isDouble)
        os << "  gp_box_muller(w.x[0], w.x[1], w.x[2], w.x[3], v);\n";
      else
        os << "  gp_box_muller(w.x[0], w.x[1], v);\n"
              "  gp_box_muller(w.x[2], w.x[3], v + 2);\n";
      break;
    default: // StatelessTruncatedNormal.
      // TensorFlow reserves 256 words per output: group i starts
      // per * 256 / 4 counters on.
      os << "  gp_u4 counter = gp_skip(base, (unsigned long long)i * "
         << per * 64 << "ull);\n"
         << "  int filled = 0;\n"
         << "  while (filled < " << per << ") {\n"
         << "    gp_u4 w = gp_philox(counter, k0, k1);\n"
         << "    counter = gp_skip(counter, 1ull);\n"
         << "    " << c << " x[2];\n";
      if (isDouble)
        os << "    gp_box_muller(w.x[0], w.x[1], w.x[2], w.x[3], x);\n"
           << "    for (int k = 0; k < 2; ++k) if (fabs(x[k]) < 2.0 && filled "
              "< 2) v[filled++] = x[k];\n";
      else
        os << "    gp_box_muller(w.x[0], w.x[1], x);\n"
           << "    for (int k = 0; k < 2; ++k) if (fabsf(x[k]) < 2.0f && filled "
              "< 4) v[filled++] = x[k];\n"
           << "    gp_box_muller(w.x[2], w.x[3], x);\n"
           << "    for (int k = 0; k < 2; ++k) if (fabsf(x[k]) < 2.0f && filled "
              "< 4) v[filled++] = x[k];\n";
      os << "  }\n";
      break;
    }
    os << "  for (int k = 0; k < " << per << "; ++k) {\n"
       << "    const long long e = i * " << per << "LL + k;\n"
       << "    if (e < " << n << "LL) out0[e] = ";
    if (dropout)
      os << "v[k] >= " << type_.load("in1[0]") << " ? "
         << type_.store(type_.load("in0[e]") + " * ((" + c + ")1 / ((" + c +
                        ")1 - " + type_.load("in1[0]") + "))")
         << " : " << type_.store("0") << ";\n  }\n";
    else
      os << type_.store("v[k]") << ";\n  }\n";
    return os.str();
  }

  int64_t softmaxRows() const {
    const TensorType &type = *call_.inputs[0].type;
    int64_t cols = type.shape.back();
    return cols ? type.numElements() / cols : 0;
  }

  std::string softmax() {
    int64_t cols = call_.inputs[0].type->shape.back();
    std::string c = type_.compute;
    std::string e = type_.math("exp");
    std::ostringstream os;
    os << "  const long long row = i * " << cols << "LL;\n"
       << "  " << c << " m = " << type_.load("in0[row]") << ";\n"
       << "  for (long long k = 1; k < " << cols << "LL; ++k) { " << c
       << " x = " << type_.load("in0[row + k]") << "; if (x > m) m = x; }\n"
       << "  " << c << " sum = 0;\n"
       << "  for (long long k = 0; k < " << cols << "LL; ++k) sum += " << e
       << "(" << type_.load("in0[row + k]") << " - m);\n"
       << "  for (long long k = 0; k < " << cols << "LL; ++k) out0[row + k] = "
       << type_.store(e + "(" + type_.load("in0[row + k]") + " - m) / sum")
       << ";\n";
    return os.str();
  }

  std::string concat() {
    const TensorType &out = *call_.outputs[0].type;
    int64_t axis = call_.params->axis;
    int64_t inner = 1;
    for (size_t d = axis + 1; d < out.shape.size(); ++d)
      inner *= out.shape[d];
    int64_t total = out.shape[axis];
    std::ostringstream os;
    os << "  const long long outer = i / " << total * inner << "LL;\n"
       << "  const long long rest = i % " << total * inner << "LL;\n"
       << "  const long long ax = rest / " << inner << "LL, in = rest % "
       << inner << "LL;\n";
    int64_t start = 0;
    for (size_t k = 0; k < call_.inputs.size(); ++k) {
      int64_t size = call_.inputs[k].type->shape[axis];
      os << "  " << (k ? "else " : "") << "if (ax < " << start + size
         << "LL) out0[i] = in" << k << "[(outer * " << size << "LL + ax - "
         << start << "LL) * " << inner << "LL + in];\n";
      start += size;
    }
    return os.str();
  }

  const KernelCall &call_;
  GpuType type_{ElementType::F32, "float", "float"};
};

} // namespace

bool isNvrtcKernel(Kernel kernel) {
  // GEMM (and GEMM with beta = 1) runs in cuBLAS, convolutions, pooling and batch norm in cuDNN,
  // read and assign are copies; kernels without a GPU kernel never reach a
  // GPU.
  return kernel != Kernel::Matmul && kernel != Kernel::MatmulAccumulate &&
         kernel != Kernel::Read &&
         kernel != Kernel::Assign && !isCudnnKernel(kernel) &&
         kernelGpuTypes(kernel) != 0;
}

StatusOr<CudaKernelSource> generateCudaKernel(const KernelCall &call) {
  if (call.outputs.empty() || call.inputs.empty())
    return Status::internal("a kernel needs inputs and outputs");
  ElementType type = kernelElementType(call);
  if (!(kernelGpuTypes(call.kernel) & (1u << static_cast<int>(type))))
    return Status::invalidArgument(
        "no GPU kernel for gplace." + std::string(kernelMnemonic(call.kernel)) +
        " with element type " + std::string(elementTypeName(type)));
  if (!isElementwiseKernel(call.kernel))
    return Generator(call).generate();
  // An elementwise launch is a fusion group of one.
  FusedCall single;
  single.type = *call.outputs[0].type;
  single.inputs = call.inputs;
  FusedCall::Op op;
  op.kernel = call.kernel;
  for (size_t k = 0; k < call.inputs.size(); ++k)
    op.operands.push_back(static_cast<int>(k));
  op.output = 0;
  single.ops.push_back(op);
  single.outputs = {call.outputs[0]};
  single.label = "gplace." + std::string(kernelMnemonic(call.kernel));
  return generateFusedCudaKernel(single);
}

StatusOr<CudaKernelSource>
generateAllReduceCudaKernel(size_t members, ElementType elementType,
                            int64_t divisor, int64_t begin, int64_t end) {
  std::optional<GpuType> type = gpuType(elementType);
  if (!type)
    return Status::invalidArgument(
        "no GPU kernel for an all-reduce of element type " +
        std::string(elementTypeName(elementType)));
  CudaKernelSource kernel;
  kernel.threads = std::max<int64_t>(end - begin, 0);
  std::ostringstream os;
  os << "// gplace: all-reduce of " << members << " members, elements ["
     << begin << ", " << end << ")\n"
     << kPrelude << "typedef " << type->compute << " T;\n"
     << "extern \"C\" __global__ void " << kernel.entry << "(";
  for (size_t q = 0; q < members; ++q)
    os << (q ? ", " : "") << "const " << type->storage << " *in" << q;
  for (size_t q = 0; q < members; ++q)
    os << ", " << type->storage << " *out" << q;
  os << ") {\n"
     << "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x + "
     << begin << "LL;\n"
     << "  if (i >= " << end << "LL) return;\n"
     << "  T s = " << type->load("in0[i]") << ";\n";
  for (size_t q = 1; q < members; ++q)
    os << "  s += " << type->load("in" + std::to_string(q) + "[i]") << ";\n";
  // The host divides (TensorFlow's final_op Div), not x * (1/n).
  if (divisor)
    os << "  s /= " << type->constant(static_cast<double>(divisor)) << ";\n";
  for (size_t q = 0; q < members; ++q)
    os << "  out" << q << "[i] = " << type->store("s") << ";\n";
  os << "}\n";
  kernel.source = os.str();
  kernel.numParameters = 2 * members;
  return kernel;
}

StatusOr<CudaKernelSource> generateFusedCudaKernel(const FusedCall &fused) {
  if (fused.ops.empty())
    return Status::internal("a fused kernel needs ops");
  const TensorType &out = fused.type;
  std::optional<GpuType> type = gpuType(out.elementType);
  if (!type)
    return Status::invalidArgument("no GPU kernel for element type " +
                         std::string(elementTypeName(out.elementType)));
  for (const FusedCall::Op &op : fused.ops)
    if (!isElementwiseKernel(op.kernel))
      return Status::invalidArgument("gplace." + std::string(kernelMnemonic(op.kernel)) +
                           " is not elementwise and does not fuse");
  CudaKernelSource kernel;
  kernel.threads = out.numElements();

  // Each input is loaded once per thread: at the thread's index if it has
  // the output's shape, modulo its size if it is the output's trailing
  // dimensions (a bias, a scalar), else at its broadcast offset. Loads come
  // first, then the values, then the stores, so that each thread reads its
  // elements before writing any.
  std::ostringstream loads, values, stores;
  for (size_t q = 0; q < fused.inputs.size(); ++q) {
    const TensorType &in = *fused.inputs[q].type;
    std::string index = "i";
    bool trailing = in.shape.size() <= out.shape.size() &&
                    std::equal(in.shape.begin(), in.shape.end(),
                               out.shape.end() - in.shape.size());
    if (in.shape == out.shape) {
      index = "i";
    } else if (trailing) {
      index = "i % " + std::to_string(in.numElements()) + "LL";
    } else {
      loads << "  long long p" << q << ";\n  {\n"
            << offsets("i", out.shape,
                       {broadcastStrides(in.shape, out.shape)})
            << "  p" << q << " = o0;\n  }\n";
      index = "p" + std::to_string(q);
    }
    loads << "  const T x_" << q << " = "
          << type->load("in" + std::to_string(q) + "[" + index + "]")
          << ";\n";
  }
  for (size_t n = 0; n < fused.ops.size(); ++n) {
    const FusedCall::Op &op = fused.ops[n];
    std::vector<std::string> operands;
    for (int operand : op.operands)
      operands.push_back(operand >= 0 ? "x_" + std::to_string(operand)
                                      : "v" + std::to_string(-1 - operand));
    std::string value = "v" + std::to_string(n);
    values << "  T " << value << ";\n"
           << applyScalarFunction(op.kernel, value, operands);
    // 16-bit values are rounded after each op, as a single kernel stores
    // them: fused or not, the results are the same.
    if (type->storage != type->compute)
      values << "  " << value << " = " << type->load(type->store(value))
             << ";\n";
    if (op.output >= 0)
      stores << "  out" << op.output << "[i] = " << type->store(value)
             << ";\n";
  }

  // __restrict__ unless an output is also an input (in place).
  bool inPlace = false;
  for (const TensorRef &input : fused.inputs)
    for (const TensorRef &output : fused.outputs)
      if (input.data == output.data)
        inPlace = true;
  const char *restrict = inPlace ? " *" : " *__restrict__ ";
  std::ostringstream os;
  os << "// gplace: fused " << fused.label << " " << out.str() << "\n"
     << kPrelude << "typedef " << type->compute << " T;\n"
     << "extern \"C\" __global__ void " << kernel.entry << "(";
  size_t n = 0;
  for (size_t q = 0; q < fused.inputs.size(); ++q, ++n) {
    os << (n ? ", " : "") << "const " << type->storage << restrict << "in" << q;
    kernel.arguments.push_back(fused.inputs[q].data);
  }
  for (size_t q = 0; q < fused.outputs.size(); ++q, ++n) {
    os << (n ? ", " : "") << type->storage << restrict << "out" << q;
    kernel.arguments.push_back(fused.outputs[q].data);
  }
  os << ") {\n"
     << "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
     << "  if (i >= " << kernel.threads << "LL) return;\n"
     << loads.str() << values.str() << stores.str() << "}\n";
  kernel.source = os.str();
  kernel.numParameters = n;
  return kernel;
}

} // namespace gplace::runtime
