//===- KernelSource.cpp - CUDA C for every kernel but GEMM and copies ------===//
//
// Each launch gets its own kernel with shapes, strides and element types as
// constants: index arithmetic folds, and the source is its own cache key.
// 16-bit floats are stored as unsigned short and converted with PTX's cvt
// (f16) or bit arithmetic (bf16), so no toolkit header is needed at run
// time; arithmetic happens in float (double for f64).
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Cuda.h"

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
)cuda";

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

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &outShape) {
  std::vector<int64_t> own = stridesOf(shape);
  std::vector<int64_t> strides(outShape.size(), 0);
  size_t offset = outShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    strides[d + offset] = shape[d] == 1 ? 0 : own[d];
  return strides;
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

class Generator {
public:
  explicit Generator(const KernelCall &call) : call_(call) {}

  StatusOr<CudaKernelSource> generate() {
    const TensorType &out = *call_.outputs[0].type;
    ElementType elementType =
        call_.kernel == Kernel::Softmax || call_.kernel == Kernel::BiasAdd
            ? out.elementType
            : call_.inputs[0].type->elementType;
    std::optional<GpuType> type = gpuType(elementType);
    if (!type)
      return Status::error("no GPU kernel for " +
                           std::string(kernelOpName(call_.kernel)) +
                           " with element type " +
                           std::string(elementTypeName(elementType)));
    type_ = *type;
    CudaKernelSource kernel;
    kernel.threads = out.numElements();
    std::string body;
    switch (call_.kernel) {
    case Kernel::Add:
    case Kernel::Sub:
    case Kernel::Mul:
    case Kernel::Div:
    case Kernel::Maximum:
      body = binary();
      break;
    case Kernel::Neg:
    case Kernel::Exp:
    case Kernel::Log:
    case Kernel::Tanh:
    case Kernel::Sigmoid:
    case Kernel::Relu:
      body = unary();
      break;
    case Kernel::AddN: {
      std::string sum;
      for (size_t k = 0; k < call_.inputs.size(); ++k)
        sum += (k ? " + " : "") + type_.load("in" + std::to_string(k) + "[i]");
      body = "  out0[i] = " + type_.store(sum) + ";\n";
      break;
    }
    case Kernel::BiasAdd:
      body = "  out0[i] = " +
             type_.store(type_.load("in0[i]") + " + " +
                         type_.load("in1[i % " +
                                    std::to_string(
                                        call_.inputs[1].type->numElements()) +
                                    "LL]")) +
             ";\n";
      break;
    case Kernel::ReduceSum:
    case Kernel::ReduceMean:
    case Kernel::ReduceMax:
      body = reduce();
      break;
    case Kernel::Softmax:
      kernel.threads = softmaxRows();
      body = softmax();
      break;
    case Kernel::Transpose: {
      std::vector<int64_t> own = stridesOf(call_.inputs[0].type->shape);
      std::vector<int64_t> strides;
      for (int64_t p : call_.params->perm)
        strides.push_back(own[p]);
      body = offsets("i", out.shape, {strides}) + "  out0[i] = in0[o0];\n";
      break;
    }
    case Kernel::Slice: {
      std::vector<int64_t> own = stridesOf(call_.inputs[0].type->shape);
      int64_t base = 0;
      for (size_t d = 0; d < own.size(); ++d)
        base += call_.params->begin[d] * own[d];
      body = offsets("i", out.shape, {own}, base) + "  out0[i] = in0[o0];\n";
      break;
    }
    case Kernel::Concat:
      body = concat();
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
      return Status::error(std::string(kernelOpName(call_.kernel)) +
                           " does not run as an NVRTC kernel");
    }

    std::ostringstream os;
    os << "// gplace: " << kernelOpName(call_.kernel) << " " << out.str()
       << "\n"
       << kPrelude << "extern \"C\" __global__ void " << kernel.entry << "(";
    size_t n = 0;
    for (size_t k = 0; k < call_.inputs.size(); ++k, ++n)
      os << (n ? ", " : "") << "const "
         << gpuType(call_.inputs[k].type->elementType)->storage
         << " *__restrict__ in" << k;
    for (size_t k = 0; k < call_.outputs.size(); ++k, ++n)
      os << (n ? ", " : "") << type_.storage << " *__restrict__ out" << k;
    os << ") {\n"
       << "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
       << "  if (i >= " << kernel.threads << "LL) return;\n"
       << body << "}\n";
    kernel.source = os.str();
    kernel.numParameters = n;
    return kernel;
  }

private:
  std::string binary() {
    const TensorType &out = *call_.outputs[0].type;
    const TensorType &a = *call_.inputs[0].type, &b = *call_.inputs[1].type;
    std::string prefix, ia = "i", ib = "i";
    if (a.shape != out.shape || b.shape != out.shape) {
      prefix = offsets("i", out.shape,
                       {broadcastStrides(a.shape, out.shape),
                        broadcastStrides(b.shape, out.shape)});
      ia = "o0";
      ib = "o1";
    }
    std::string c = type_.compute;
    std::string loads = "  " + c + " a = " + type_.load("in0[" + ia + "]") +
                        ";\n  " + c + " b = " + type_.load("in1[" + ib + "]") +
                        ";\n";
    std::string value;
    switch (call_.kernel) {
    case Kernel::Add:
      value = "a + b";
      break;
    case Kernel::Sub:
      value = "a - b";
      break;
    case Kernel::Mul:
      value = "a * b";
      break;
    case Kernel::Div:
      value = "a / b";
      break;
    default: // Maximum, propagating NaN as the CPU kernel does.
      value = "(a != a || b != b) ? (a + b) : (a > b ? a : b)";
      break;
    }
    return prefix + loads + "  out0[i] = " + type_.store(value) + ";\n";
  }

  std::string unary() {
    std::string c = type_.compute;
    std::string value;
    switch (call_.kernel) {
    case Kernel::Neg:
      value = "-a";
      break;
    case Kernel::Exp:
      value = type_.math("exp") + "(a)";
      break;
    case Kernel::Log:
      value = type_.math("log") + "(a)";
      break;
    case Kernel::Tanh:
      value = type_.math("tanh") + "(a)";
      break;
    case Kernel::Sigmoid:
      value = type_.constant(1) + " / (" + type_.constant(1) + " + " +
              type_.math("exp") + "(-a))";
      break;
    default: // Relu
      value = "a > " + type_.constant(0) + " ? a : " + type_.constant(0);
      break;
    }
    return "  " + c + " a = " + type_.load("in0[i]") + ";\n  out0[i] = " +
           type_.store(value) + ";\n";
  }

  std::string reduce() {
    const TensorType &in = *call_.inputs[0].type;
    std::vector<int64_t> own = stridesOf(in.shape);
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
    std::ostringstream os;
    os << offsets("i", keptDims, {keptStrides}) << "  long long base = o0;\n"
       << "  " << c << " acc = " << init << ";\n"
       << "  for (long long q = 0; q < " << count << "LL; ++q) {\n"
       << "    long long s = q, off = base;\n";
    for (int64_t d = static_cast<int64_t>(reducedDims.size()) - 1; d >= 0;
         --d)
      os << "    { long long c = s % " << reducedDims[d] << "LL; s /= "
         << reducedDims[d] << "LL; off += c * " << reducedStrides[d]
         << "LL; }\n";
    os << "    " << c << " x = " << type_.load("in0[off]") << ";\n";
    if (isMax)
      os << "    if (x != x || x > acc) acc = x;\n"
         << "    if (acc != acc) break;\n";
    else
      os << "    acc += x;\n";
    os << "  }\n";
    if (call_.kernel == Kernel::ReduceMean)
      os << "  acc = acc / (" << c << ")" << count << ";\n";
    os << "  out0[i] = " << type_.store("acc") << ";\n";
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
  switch (kernel) {
  case Kernel::MatMul:
  case Kernel::Read:
  case Kernel::Identity:
  case Kernel::Reshape:
  case Kernel::Assign:
  case Kernel::Cast:
    return false;
  default:
    return true;
  }
}

StatusOr<CudaKernelSource> generateCudaKernel(const KernelCall &call) {
  if (call.outputs.empty() || call.inputs.empty())
    return Status::error("a kernel needs inputs and outputs");
  return Generator(call).generate();
}

} // namespace gplace::runtime
