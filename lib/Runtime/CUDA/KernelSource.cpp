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

/// The value of elementwise `kernel` on operands `x` (expressions of the
/// compute type), as the CPU kernels compute it.
std::string elementwiseValue(Kernel kernel, const GpuType &type,
                             const std::vector<std::string> &x) {
  switch (kernel) {
  case Kernel::Add:
  case Kernel::BiasAdd:
    return "(" + x[0] + " + " + x[1] + ")";
  case Kernel::Sub:
    return "(" + x[0] + " - " + x[1] + ")";
  case Kernel::Mul:
    return "(" + x[0] + " * " + x[1] + ")";
  case Kernel::Div:
    return "(" + x[0] + " / " + x[1] + ")";
  case Kernel::Maximum: // Propagating NaN as the CPU kernel does.
    return "((" + x[0] + " != " + x[0] + " || " + x[1] + " != " + x[1] +
           ") ? (" + x[0] + " + " + x[1] + ") : (" + x[0] + " > " + x[1] +
           " ? " + x[0] + " : " + x[1] + "))";
  case Kernel::Neg:
    return "(-" + x[0] + ")";
  case Kernel::Exp:
    return type.math("exp") + "(" + x[0] + ")";
  case Kernel::Log:
    return type.math("log") + "(" + x[0] + ")";
  case Kernel::Tanh:
    return type.math("tanh") + "(" + x[0] + ")";
  case Kernel::Sigmoid:
    return "(" + type.constant(1) + " / (" + type.constant(1) + " + " +
           type.math("exp") + "(-" + x[0] + ")))";
  case Kernel::Relu:
    return "(" + x[0] + " > " + type.constant(0) + " ? " + x[0] + " : " +
           type.constant(0) + ")";
  default: { // AddN
    std::string sum;
    for (const std::string &operand : x)
      sum += (sum.empty() ? "" : " + ") + operand;
    return "(" + sum + ")";
  }
  }
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
      std::vector<std::string> operands;
      for (size_t k = 0; k < call_.inputs.size(); ++k)
        operands.push_back(type_.load("in" + std::to_string(k) + "[i]"));
      body = "  out0[i] = " +
             type_.store(elementwiseValue(call_.kernel, type_, operands)) +
             ";\n";
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
    return prefix + loads + "  out0[i] = " +
           type_.store(elementwiseValue(call_.kernel, type_, {"a", "b"})) +
           ";\n";
  }

  std::string unary() {
    return "  " + std::string(type_.compute) + " a = " +
           type_.load("in0[i]") + ";\n  out0[i] = " +
           type_.store(elementwiseValue(call_.kernel, type_, {"a"})) + ";\n";
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

StatusOr<CudaKernelSource> generateFusedCudaKernel(const FusedCall &fused) {
  if (fused.calls.empty() || fused.stored.size() != fused.calls.size())
    return Status::error("a fused kernel needs calls");
  const TensorType &out = *fused.calls.front().outputs[0].type;
  std::optional<GpuType> type = gpuType(out.elementType);
  if (!type)
    return Status::error("no fused GPU kernel for element type " +
                         std::string(elementTypeName(out.elementType)));
  for (const KernelCall &call : fused.calls)
    if (!isFusibleElementwise(call.kernel) || call.outputs.size() != 1 ||
        *call.outputs[0].type != out)
      return Status::error(std::string(kernelOpName(call.kernel)) + " " +
                           call.outputs[0].type->str() +
                           " does not fuse into a kernel over " + out.str());
  std::string c = type->compute;
  CudaKernelSource kernel;
  kernel.threads = out.numElements();

  // Tensors read from outside the run become parameters in0, in1, ... (one
  // per address and type); loads come first, then the values, then the
  // stores, so that each thread reads its elements before writing any.
  std::vector<TensorRef> externals;
  std::map<std::string, std::string> loaded; // "in0[i]" -> its name
  std::set<size_t> broadcasts; // Parameters with an offset variable.
  std::ostringstream offsetCode, loads, values, stores;
  std::map<const void *, size_t> produced;   // Output address -> call.
  auto operand = [&](const KernelCall &call, size_t k) -> std::string {
    const TensorRef &ref = call.inputs[k];
    auto it = produced.find(ref.data);
    if (it != produced.end() && *fused.calls[it->second].outputs[0].type ==
                                    *ref.type)
      return "v" + std::to_string(it->second);
    size_t q = 0;
    while (q < externals.size() &&
           !(externals[q].data == ref.data && *externals[q].type == *ref.type))
      ++q;
    if (q == externals.size())
      externals.push_back(ref);
    std::string param = "in" + std::to_string(q);
    std::string index = "i";
    if (call.kernel == Kernel::BiasAdd && k == 1) {
      index = "i % " + std::to_string(ref.type->numElements()) + "LL";
    } else if (ref.type->shape != out.shape) {
      index = "o" + std::to_string(q);
      if (broadcasts.insert(q).second)
        offsetCode << "  long long " << index << ";\n  {\n"
                   << offsets("i", out.shape,
                              {broadcastStrides(ref.type->shape, out.shape)})
                   << "  " << index << " = o0;\n  }\n";
    }
    std::string key = param + "[" + index + "]";
    auto [slot, isNew] =
        loaded.try_emplace(key, "x" + std::to_string(loaded.size()));
    if (isNew)
      loads << "  const " << c << " " << slot->second << " = "
            << type->load(param + "[" + index + "]") << ";\n";
    return slot->second;
  };
  std::vector<std::pair<size_t, TensorRef>> outputs; // (call, tensor)
  for (size_t n = 0; n < fused.calls.size(); ++n) {
    const KernelCall &call = fused.calls[n];
    std::vector<std::string> x;
    for (size_t k = 0; k < call.inputs.size(); ++k)
      x.push_back(operand(call, k));
    // 16-bit values are rounded after each call, as the single kernels
    // store them: fused or not, the results are the same.
    std::string value = elementwiseValue(call.kernel, *type, x);
    if (type->storage != type->compute)
      value = type->load(type->store(value));
    values << "  const " << c << " v" << n << " = " << value << ";\n";
    produced[call.outputs[0].data] = n;
    if (fused.stored[n])
      outputs.push_back({n, call.outputs[0]});
  }
  for (size_t q = 0; q < outputs.size(); ++q)
    stores << "  out" << q << "[i] = "
           << type->store("v" + std::to_string(outputs[q].first)) << ";\n";

  // __restrict__ unless an output is also read (in place, element by
  // element: the planner allows nothing else in a run).
  bool inPlace = false;
  for (const TensorRef &input : externals)
    for (const auto &output : outputs)
      if (input.data == output.second.data)
        inPlace = true;
  const char *restrict = inPlace ? " *" : " *__restrict__ ";
  std::ostringstream os;
  os << "// gplace: fused " << fused.label << " " << out.str() << "\n"
     << kPrelude << "extern \"C\" __global__ void " << kernel.entry << "(";
  size_t n = 0;
  for (size_t q = 0; q < externals.size(); ++q, ++n) {
    os << (n ? ", " : "") << "const " << type->storage << restrict << "in" << q;
    kernel.arguments.push_back(externals[q].data);
  }
  for (size_t q = 0; q < outputs.size(); ++q, ++n) {
    os << (n ? ", " : "") << type->storage << restrict << "out" << q;
    kernel.arguments.push_back(outputs[q].second.data);
  }
  os << ") {\n"
     << "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
     << "  if (i >= " << kernel.threads << "LL) return;\n"
     << offsetCode.str() << loads.str() << values.str() << stores.str()
     << "}\n";
  kernel.source = os.str();
  kernel.numParameters = n;
  return kernel;
}

} // namespace gplace::runtime
