//===- Cudnn.cpp - convolutions, pooling and batch norm on cuDNN ----------===//
//
// Each launch maps onto cuDNN's legacy routines the way TensorFlow's
// Conv2D, MaxPool and FusedBatchNormV3 GPU kernels do:
// - activations are described as they lie (NHWC, or NCHW with
//   data_format);
// - the filter, [KH, KW, I, O] in TensorFlow's layout (HWIO), is
//   transformed (cudnnTransformTensor) into cuDNN's KRSC (NHWC activations)
//   or KCRS (NCHW) before a convolution reads it, and a filter gradient is
//   transformed back; a depthwise filter [KH, KW, C, M] is the grouped
//   filter [KH, KW, 1, C * M] of C groups, as on the CPU;
// - cuDNN pads both sides of a dimension alike: where TensorFlow pads
//   more after than before (SAME with an even window or a stride), the
//   input is padded explicitly by the difference into a buffer of its own
//   (zeros; -infinity for a max pool: a memset, then cudnnTransformTensor
//   into the buffer's interior) and a gradient for it is cropped back out
//   of such a buffer, as TensorFlow's GPU kernels do; an average pool so
//   padded averages over whole windows (cuDNN's count including padding)
//   and multiplies each result by its window's size over the number of
//   input elements in it (a factor per output position, computed when the
//   plan loads), which is TensorFlow's mean over the input elements alone;
//   its gradient multiplies first;
// - fused_conv2d is the convolution, cudnnAddTensor (the bias) and
//   cudnnActivationForward (ReLU);
// - convolutions and pools run in f32, f16 or bf16: 16-bit tensors are
//   described as such, with an f32 compute type and tensor-op math (the
//   PSEUDO_HALF and PSEUDO_BFLOAT16 configurations, TensorFlow's for half
//   and bfloat16), a max pool's padding is the type's -infinity and an
//   average pool's factors are in the type; batch norm is f32;
// - the batch norm's training statistics come from
//   cudnnBatchNormalizationForwardTraining with an averaging factor of 1:
//   the batch's mean and its Bessel-corrected variance, which is what
//   FusedBatchNormV3 returns.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"

#include "CudaStatus.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

namespace gplace::runtime::cuda {

namespace {

Status cudnnStatus(cudnnStatus_t result, const char *call) {
  if (result == CUDNN_STATUS_SUCCESS)
    return Status::ok();
  const CudaLibraries &libs = CudaLibraries::get();
  bool memory = result == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
                result == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
  return Status::error(
      memory ? StatusCode::OutOfMemory : StatusCode::Internal,
      std::string(call) + " failed: " +
          (libs.cudnnGetErrorString ? libs.cudnnGetErrorString(result) : "?"));
}

#define GPLACE_CUDNN_CHECK(fn, ...)                                            \
  GPLACE_RETURN_IF_ERROR(                                                      \
      cudnnStatus(CudaLibraries::get().fn(__VA_ARGS__), #fn))

/// The most workspace a convolution algorithm may ask for.
constexpr size_t kMaxWorkspace = size_t(1) << 30;

/// Each buffer a launch takes from its workspace starts this many bytes
/// apart (the workspace itself starts on the plan's 64-byte alignment,
/// which cuDNN's routines accept, as they do the plan's tensors).
constexpr size_t kPartAlignment = 256;

size_t alignPart(size_t bytes) {
  return (bytes + kPartAlignment - 1) / kPartAlignment * kPartAlignment;
}

enum class Role {
  ConvForward,
  ConvBackwardData,
  ConvBackwardFilter,
  PoolForward,
  PoolBackward,
  BatchNormForward,
  BatchNormBackward,
  None
};

Role roleOf(Kernel kernel) {
  switch (kernel) {
  case Kernel::Conv2D:
  case Kernel::FusedConv2D:
  case Kernel::DepthwiseConv2dNative:
    return Role::ConvForward;
  case Kernel::Conv2DBackpropInput:
  case Kernel::DepthwiseConv2dNativeBackpropInput:
    return Role::ConvBackwardData;
  case Kernel::Conv2DBackpropFilter:
  case Kernel::DepthwiseConv2dNativeBackpropFilter:
    return Role::ConvBackwardFilter;
  case Kernel::MaxPool:
  case Kernel::AvgPool:
    return Role::PoolForward;
  case Kernel::MaxPoolGrad:
  case Kernel::AvgPoolGrad:
    return Role::PoolBackward;
  case Kernel::FusedBatchNorm:
    return Role::BatchNormForward;
  case Kernel::FusedBatchNormGrad:
    return Role::BatchNormBackward;
  default:
    return Role::None;
  }
}

std::string opName(Kernel kernel) {
  return "gplace." + std::string(kernelMnemonic(kernel));
}

/// cuDNN's type for a window kernel's tensors of `type`: f32, or f16 and
/// bf16, which cuDNN's legacy routines compute in f32 (its
/// PSEUDO_HALF_CONFIG and PSEUDO_BFLOAT16_CONFIG; bf16 needs compute
/// capability 8.0).
cudnnDataType_t dataType(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return CUDNN_DATA_HALF;
  case ElementType::BF16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

/// The bits of -infinity in `type` (f32, f16 or bf16): a max pool's
/// explicit padding, never a maximum.
unsigned negativeInfinity(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return 0xfc00u;
  case ElementType::BF16:
    return 0xff80u;
  default:
    return 0xff800000u;
  }
}

std::string dims(const std::vector<int64_t> &values) {
  std::string text;
  for (int64_t v : values)
    text += (text.empty() ? "" : ", ") + std::to_string(v);
  return "[" + text + "]";
}

} // namespace

struct CudnnKernels::Launch final : KernelState {
  CUcontext context = nullptr; ///< Current while the buffers are freed.
  Role role = Role::None;
  /// The element type of the launch's activations and filter (f32, f16 or
  /// bf16; batch norm: f32), and its bytes.
  ElementType type = ElementType::F32;
  size_t elementBytes = sizeof(float);
  bool emptyOutput = false, emptyInput = false;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;  ///< Forward in, out.
  cudnnTensorDescriptor_t hwio = nullptr, packed = nullptr; ///< The filter.
  cudnnTensorDescriptor_t bias = nullptr, stat = nullptr;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  /// A convolution's algorithms from cuDNN's heuristics, best first, that
  /// run and need at most kMaxWorkspace bytes: (algorithm, bytes).
  std::vector<std::pair<int, size_t>> algorithms;
  /// Each algorithm's math type, as the heuristics reported it (its
  /// workspace is for that math type).
  std::vector<cudnnMathType_t> mathTypes;
  int algorithm = 0;
  cudnnMathType_t mathType = CUDNN_DEFAULT_MATH; ///< The chosen one's.
  size_t workspaceBytes = 0; ///< The chosen algorithm's workspace.
  /// Where the launch's buffers are: the plan's workspace
  /// (KernelCall::workspace), the algorithm's workspace at its start and
  /// each buffer at its offset below; or, where the plan gave it none or
  /// too little, allocations of its own and the stream's shared workspace.
  bool planned = false;
  size_t plannedBytes = 0; ///< Of the workspace the launch lays out.
  size_t filterBytes = 0, paddedBytes = 0, scaledBytes = 0;
  size_t filterOffset = 0, paddedOffset = 0, paddedGradientOffset = 0,
         scaledOffset = 0;
  bool needsPadded = false, needsPaddedGradient = false;
  /// Uploaded into factorData, in the launch's type.
  std::vector<float> factorValues;
  CUdeviceptr filterBuffer = 0;
  int64_t channels = 0; ///< Batch norm: per-channel vectors' length.
  /// Uneven padding: `x` describes the explicitly padded input, `real`
  /// the input itself and `view` the padded buffer's interior (the real
  /// dimensions, the buffer's strides) at element `viewOffset`; `padded`
  /// holds the padded input, `paddedGradient` a max pool's padded input
  /// gradient; `fill` the padding's bits.
  cudnnTensorDescriptor_t real = nullptr, view = nullptr;
  CUdeviceptr padded = 0, paddedGradient = 0;
  /// An unevenly padded average pool: per output position (`factors`,
  /// [1, 1, OH, OW]) its window's size over its input elements, the
  /// multiplication, and a buffer for the scaled gradient.
  cudnnTensorDescriptor_t factors = nullptr;
  cudnnOpTensorDescriptor_t multiply = nullptr;
  CUdeviceptr factorData = 0, scaled = 0;
  int64_t paddedElements = 0, viewOffset = 0;
  unsigned fill = 0;

  ~Launch() override {
    const CudaLibraries &libs = CudaLibraries::get();
    if (context)
      libs.cuCtxSetCurrent(context);
    for (cudnnTensorDescriptor_t d :
         {x, y, hwio, packed, bias, stat, real, view, factors})
      if (d)
        libs.cudnnDestroyTensorDescriptor(d);
    if (filter)
      libs.cudnnDestroyFilterDescriptor(filter);
    if (conv)
      libs.cudnnDestroyConvolutionDescriptor(conv);
    if (pool)
      libs.cudnnDestroyPoolingDescriptor(pool);
    if (relu)
      libs.cudnnDestroyActivationDescriptor(relu);
    if (multiply)
      libs.cudnnDestroyOpTensorDescriptor(multiply);
    for (CUdeviceptr buffer :
         {filterBuffer, padded, paddedGradient, factorData, scaled})
      if (buffer)
        libs.cuMemFree(buffer);
  }
};

} // namespace gplace::runtime::cuda

namespace gplace::runtime {

bool isCudnnKernel(Kernel kernel) {
  return cuda::roleOf(kernel) != cuda::Role::None;
}

std::string cudnnNote() {
  using cuda::CudaLibraries;
  const CudaLibraries &libs = CudaLibraries::get();
  if (!libs.cudnnError.empty())
    return "no cuDNN (" + libs.cudnnError +
           "): conv2d, pooling and batch norm cannot run on CUDA GPUs";
  size_t v = libs.cudnnGetVersion();
  // cuDNN 9: major * 10000 + minor * 100 + patch.
  return "cuDNN " + std::to_string(v / 10000) + "." +
         std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         " (convolutions and pools in f32, f16 and bf16, 16-bit ones on "
         "tensor cores accumulating in f32; batch norm in f32)";
}

} // namespace gplace::runtime

namespace gplace::runtime::cuda {

CudnnKernels::CudnnKernels(bool allowTf32, CUcontext context, int ccMajor)
    : allowTf32_(allowTf32), context_(context), ccMajor_(ccMajor) {}

CudnnKernels::~CudnnKernels() { release(); }

void CudnnKernels::release() {
  const CudaLibraries &libs = CudaLibraries::get();
  std::lock_guard<std::mutex> lock(mutex_);
  launches_.clear();
  if (!handle_)
    return;
  libs.cuCtxSetCurrent(context_);
  retired_.insert(retired_.end(), std::begin(workspace_), std::end(workspace_));
  for (CUdeviceptr buffer : retired_)
    if (buffer)
      libs.cuMemFree(buffer);
  for (int i = 0; i < 3; ++i)
    workspace_[i] = 0, workspaceBytes_[i] = 0;
  retired_.clear();
  libs.cudnnDestroy(handle_);
  handle_ = nullptr;
}

Status CudnnKernels::growWorkspace(int stream, size_t bytes) {
  if (bytes <= workspaceBytes_[stream])
    return Status::ok();
  CUdeviceptr grown = 0;
  GPLACE_CU_CHECK(cuMemAlloc, &grown, bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  retired_.push_back(workspace_[stream]);
  workspace_[stream] = grown;
  workspaceBytes_[stream] = bytes;
  return Status::ok();
}

CudnnKernels::Launch *CudnnKernels::find(const KernelCall &call) {
  if (call.state)
    return dynamic_cast<Launch *>(call.state->get());
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = launches_.find(&call);
  return it == launches_.end() ? nullptr : it->second.get();
}

Status CudnnKernels::handle() {
  if (handle_)
    return Status::ok();
  const CudaLibraries &libs = CudaLibraries::get();
  if (!libs.cudnnError.empty())
    return Status::unavailable(
        "cuDNN is not available (" + libs.cudnnError +
        "): convolutions, pooling and batch norm cannot run on CUDA GPUs; "
        "install cuDNN 9 (or put its libraries on LD_LIBRARY_PATH), or place "
        "these ops on the CPU");
  GPLACE_CUDNN_CHECK(cudnnCreate, &handle_);
  return Status::ok();
}

namespace {

/// A rank-4 activation as it lies in memory, in its element type.
Status describe(cudnnTensorDescriptor_t *desc, const TensorType &type,
                bool channelsFirst) {
  GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, desc);
  const std::vector<int64_t> &s = type.shape;
  int n = static_cast<int>(s[0]);
  int c = static_cast<int>(channelsFirst ? s[1] : s[3]);
  int h = static_cast<int>(channelsFirst ? s[2] : s[1]);
  int w = static_cast<int>(channelsFirst ? s[3] : s[2]);
  GPLACE_CUDNN_CHECK(cudnnSetTensor4dDescriptor, *desc,
                     channelsFirst ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC,
                     dataType(type.elementType), n, c, h, w);
  return Status::ok();
}

/// The pads cuDNN applies on both sides (top, left): the smaller of each
/// dimension's two.
std::pair<int, int> evenPads(const KernelParams &p) {
  return {static_cast<int>(std::min(p.windowPads[0], p.windowPads[1])),
          static_cast<int>(std::min(p.windowPads[2], p.windowPads[3]))};
}

} // namespace

/// For an unevenly padded average pool from `in` to `out`: in l.factors
/// and l.factorValues, each output position's window size over the number
/// of input elements its window covers (TensorFlow's SAME average counts
/// those alone), l.multiply, and l.scaledBytes for a scaled gradient.
static Status averageFactors(CudnnKernels::Launch &l, const KernelParams &p,
                             const TensorType &in, const TensorType &out,
                             bool first) {
  int64_t h = in.shape[first ? 2 : 1], w = in.shape[first ? 3 : 2];
  int64_t oh = out.shape[first ? 2 : 1], ow = out.shape[first ? 3 : 2];
  auto covered = [](int64_t start, int64_t size, int64_t extent) {
    return std::max<int64_t>(
        0, std::min(start + size, extent) - std::max<int64_t>(start, 0));
  };
  std::vector<float> &factors = l.factorValues;
  factors.assign(oh * ow, 0.0f);
  for (int64_t r = 0; r < oh; ++r)
    for (int64_t c = 0; c < ow; ++c) {
      int64_t rows = covered(r * p.windowStrides[0] - p.windowPads[0],
                             p.windowSize[0], h);
      int64_t cols = covered(c * p.windowStrides[1] - p.windowPads[2],
                             p.windowSize[1], w);
      factors[r * ow + c] =
          rows * cols == 0
              ? 0.0f
              : static_cast<float>(p.windowSize[0] * p.windowSize[1]) /
                    static_cast<float>(rows * cols);
    }
  GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &l.factors);
  GPLACE_CUDNN_CHECK(cudnnSetTensor4dDescriptor, l.factors, CUDNN_TENSOR_NCHW,
                     dataType(l.type), 1, 1, static_cast<int>(oh),
                     static_cast<int>(ow));
  GPLACE_CUDNN_CHECK(cudnnCreateOpTensorDescriptor, &l.multiply);
  // Multiplied in f32 for every type (16-bit values are widened).
  GPLACE_CUDNN_CHECK(cudnnSetOpTensorDescriptor, l.multiply,
                     CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT,
                     CUDNN_PROPAGATE_NAN);
  l.scaledBytes = static_cast<size_t>(out.bytes());
  return Status::ok();
}

/// Describes a window op's input `type` in `l`: as it lies when the op's
/// pads are even, else padded explicitly by the difference (l.x the
/// padded input; l.real, l.view and a buffer for the padding, two for a
/// max pool's gradient). `fill` is the padding's bits.
static Status describeInput(CudnnKernels::Launch &l, const KernelCall &call,
                            const TensorType &type, unsigned fill);

Status CudnnKernels::describeLaunch(const KernelCall &call, Launch &l) {
  l.context = context_;
  l.role = roleOf(call.kernel);
  if (!call.outputs.empty()) {
    l.type = call.outputs[0].type->elementType;
    l.elementBytes = static_cast<size_t>(elementBytes(l.type));
  }
  // cuDNN's descriptors take int dimensions and strides.
  for (const auto *refs : {&call.inputs, &call.outputs})
    for (const TensorRef &ref : *refs)
      if (ref.type->numElements() > std::numeric_limits<int>::max())
        return Status::invalidArgument(
            opName(call.kernel) + " on a CUDA GPU: a tensor of " +
            std::to_string(ref.type->numElements()) +
            " elements, more than cuDNN's descriptors take");
  for (const TensorRef &out : call.outputs)
    l.emptyOutput |= out.type->numElements() == 0;
  for (const TensorRef &in : call.inputs)
    l.emptyInput |= in.type->numElements() == 0;
  const KernelParams &p = *call.params;
  bool first = p.channelsFirst;
  if (l.emptyOutput || l.emptyInput)
    return Status::ok();
  // cuDNN's bf16 (PSEUDO_BFLOAT16_CONFIG) needs Ampere or later; said
  // here, when the plan loads, rather than by a failed launch mid-run.
  // (Mixed precision leaves such GPUs in f32.)
  if (l.type == ElementType::BF16 && ccMajor_ < 8)
    return Status::invalidArgument(
        opName(call.kernel) + " in bf16 on a CUDA GPU of compute capability " +
        std::to_string(ccMajor_) +
        ".x: cuDNN's bf16 needs 8.0; use f16 or f32, or place it on the CPU");

  switch (l.role) {
  case Role::ConvForward:
  case Role::ConvBackwardData:
  case Role::ConvBackwardFilter: {
    // The tensors by role (as the CPU's oneDNN kernels take them).
    const TensorRef *src, *weights, *dst;
    if (l.role == Role::ConvForward)
      src = &call.inputs[0], weights = &call.inputs[1],
      dst = &call.outputs[0];
    else if (l.role == Role::ConvBackwardData)
      weights = &call.inputs[0], dst = &call.inputs[1],
      src = &call.outputs[0];
    else
      src = &call.inputs[0], dst = &call.inputs[1],
      weights = &call.outputs[0];
    std::vector<int64_t> f = weights->type->shape; // [KH, KW, I, O]
    if (isDepthwiseKernel(call.kernel))
      f = {f[0], f[1], 1, f[2] * f[3]};
    int kh = static_cast<int>(f[0]), kw = static_cast<int>(f[1]);
    int in = static_cast<int>(f[2]), out = static_cast<int>(f[3]);
    int64_t channels = src->type->shape[first ? 1 : 3];
    int groups = static_cast<int>(channels / in);
    GPLACE_RETURN_IF_ERROR(describeInput(l, call, *src->type, 0));
    GPLACE_RETURN_IF_ERROR(describe(&l.y, *dst->type, first));
    cudnnTensorFormat_t format = first ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    // The filter as it lies (HWIO, strided) and packed in cuDNN's layout.
    GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &l.hwio);
    cudnnDataType_t type = dataType(l.type);
    GPLACE_CUDNN_CHECK(cudnnSetTensor4dDescriptorEx, l.hwio, type, out, in, kh,
                       kw, 1, out, kw * in * out, in * out);
    GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &l.packed);
    GPLACE_CUDNN_CHECK(cudnnSetTensor4dDescriptor, l.packed, format, type, out,
                       in, kh, kw);
    GPLACE_CUDNN_CHECK(cudnnCreateFilterDescriptor, &l.filter);
    GPLACE_CUDNN_CHECK(cudnnSetFilter4dDescriptor, l.filter, type, format, out,
                       in, kh, kw);
    GPLACE_CUDNN_CHECK(cudnnCreateConvolutionDescriptor, &l.conv);
    GPLACE_CUDNN_CHECK(cudnnSetConvolution2dDescriptor, l.conv,
                       evenPads(p).first, evenPads(p).second,
                       static_cast<int>(p.windowStrides[0]),
                       static_cast<int>(p.windowStrides[1]),
                       static_cast<int>(p.windowDilations[0]),
                       static_cast<int>(p.windowDilations[1]),
                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    GPLACE_CUDNN_CHECK(cudnnSetConvolutionGroupCount, l.conv, groups);
    // f16 and bf16 on tensor cores, accumulating in f32 (the compute type
    // above), as TensorFlow's and PyTorch's 16-bit convolutions; f32 on
    // them only with TF32 allowed.
    GPLACE_CUDNN_CHECK(cudnnSetConvolutionMathType, l.conv,
                       l.type != ElementType::F32 ? CUDNN_TENSOR_OP_MATH
                       : allowTf32_               ? CUDNN_DEFAULT_MATH
                                                  : CUDNN_FMA_MATH);
    // cuDNN's heuristics, best first: those that run in the budget.
    auto choose = [&](auto *perf, int returned) -> Status {
      for (int i = 0; i < returned; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS &&
            perf[i].memory <= kMaxWorkspace) {
          l.algorithms.emplace_back(static_cast<int>(perf[i].algo),
                                    perf[i].memory);
          l.mathTypes.push_back(perf[i].mathType);
        }
      if (!l.algorithms.empty())
        return Status::ok();
      return Status::invalidArgument("cuDNN has no algorithm for " +
                                     opName(call.kernel) + " with filter " +
                                     dims(weights->type->shape));
    };
    int returned = 0;
    if (l.role == Role::ConvForward) {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      GPLACE_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7, handle_, l.x,
                         l.filter, l.conv, l.y,
                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf);
      GPLACE_RETURN_IF_ERROR(choose(perf, returned));
    } else if (l.role == Role::ConvBackwardData) {
      cudnnConvolutionBwdDataAlgoPerf_t
          perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      GPLACE_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7, handle_,
                         l.filter, l.y, l.conv, l.x,
                         CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned,
                         perf);
      GPLACE_RETURN_IF_ERROR(choose(perf, returned));
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t
          perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      GPLACE_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7,
                         handle_, l.x, l.y, l.conv, l.filter,
                         CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &returned,
                         perf);
      GPLACE_RETURN_IF_ERROR(choose(perf, returned));
    }
    l.filterBytes = weights->type->numElements() * l.elementBytes;
    if (call.kernel == Kernel::FusedConv2D) {
      GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &l.bias);
      GPLACE_CUDNN_CHECK(cudnnSetTensor4dDescriptor, l.bias, CUDNN_TENSOR_NCHW,
                         dataType(call.inputs[2].type->elementType), 1,
                         static_cast<int>(dst->type->shape[first ? 1 : 3]), 1,
                         1);
      if (p.fusedRelu) {
        GPLACE_CUDNN_CHECK(cudnnCreateActivationDescriptor, &l.relu);
        GPLACE_CUDNN_CHECK(cudnnSetActivationDescriptor, l.relu,
                           CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0);
      }
    }
    break;
  }
  case Role::PoolForward:
  case Role::PoolBackward: {
    bool isMax =
        call.kernel == Kernel::MaxPool || call.kernel == Kernel::MaxPoolGrad;
    bool uneven = p.windowPads[0] != p.windowPads[1] ||
                  p.windowPads[2] != p.windowPads[3];
    if (p.windowDilations[0] != 1 || p.windowDilations[1] != 1)
      return Status::invalidArgument(opName(call.kernel) +
                                     " with dilations on a CUDA GPU: cuDNN's "
                                     "pooling has none");
    // src: the forward input (or its gradient); dst: the forward output.
    const TensorRef &src = l.role == Role::PoolForward ? call.inputs[0]
                                                       : call.outputs[0];
    const TensorRef &dst =
        l.role == Role::PoolForward ? call.outputs[0] : call.inputs.back();
    // A max pool's explicit padding is -infinity (never a maximum).
    GPLACE_RETURN_IF_ERROR(describeInput(l, call, *src.type,
                                         isMax ? negativeInfinity(l.type) : 0));
    GPLACE_RETURN_IF_ERROR(describe(&l.y, *dst.type, first));
    if (!isMax && uneven)
      GPLACE_RETURN_IF_ERROR(
          averageFactors(l, p, *src.type, *dst.type, first));
    GPLACE_CUDNN_CHECK(cudnnCreatePoolingDescriptor, &l.pool);
    GPLACE_CUDNN_CHECK(
        cudnnSetPooling2dDescriptor, l.pool,
        isMax    ? CUDNN_POOLING_MAX_DETERMINISTIC
        : uneven ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                 : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
        CUDNN_PROPAGATE_NAN, static_cast<int>(p.windowSize[0]),
        static_cast<int>(p.windowSize[1]), evenPads(p).first,
        evenPads(p).second, static_cast<int>(p.windowStrides[0]),
        static_cast<int>(p.windowStrides[1]));
    break;
  }
  case Role::BatchNormForward:
  case Role::BatchNormBackward: {
    if (l.role == Role::BatchNormBackward && !p.isTraining)
      return Status::invalidArgument(
          "gplace.fused_batch_norm_grad of an inference-mode batch norm on a "
          "CUDA GPU: cuDNN's batch norm gradient is the training one; place "
          "the op on the CPU");
    const TensorRef &x = call.inputs[l.role == Role::BatchNormBackward];
    l.channels = x.type->shape[first ? 1 : 3];
    GPLACE_RETURN_IF_ERROR(describe(&l.x, *x.type, first));
    GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &l.stat);
    GPLACE_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor, l.stat, l.x,
                       CUDNN_BATCHNORM_SPATIAL);
    break;
  }
  case Role::None:
    return Status::internal(opName(call.kernel) + " is not a cuDNN kernel");
  }
  return Status::ok();
}

/// Chooses l's algorithm, the first of cuDNN's heuristics whose workspace
/// and l's buffers fit in `budget` bytes, and lays the buffers out after
/// its workspace (l's offsets). Returns the bytes the launch takes in
/// all (0: it takes none), or std::nullopt where nothing fits.
static std::optional<size_t> layOut(CudnnKernels::Launch &l, size_t budget) {
  size_t buffers = alignPart(l.filterBytes) +
                   alignPart(l.paddedBytes) * l.needsPadded +
                   alignPart(l.paddedBytes) * l.needsPaddedGradient +
                   alignPart(l.scaledBytes);
  if (buffers > budget)
    return std::nullopt;
  l.workspaceBytes = 0;
  if (!l.algorithms.empty()) {
    auto fits = std::find_if(
        l.algorithms.begin(), l.algorithms.end(), [&](const auto &algorithm) {
          return alignPart(algorithm.second) <= budget - buffers;
        });
    if (fits == l.algorithms.end())
      return std::nullopt;
    l.algorithm = fits->first;
    l.workspaceBytes = fits->second;
    l.mathType = l.mathTypes[fits - l.algorithms.begin()];
  }
  size_t offset = alignPart(l.workspaceBytes);
  auto place = [&](size_t *at, size_t bytes, bool needed) {
    *at = offset;
    offset += needed ? alignPart(bytes) : 0;
  };
  place(&l.filterOffset, l.filterBytes, true);
  place(&l.paddedOffset, l.paddedBytes, l.needsPadded);
  place(&l.paddedGradientOffset, l.paddedBytes, l.needsPaddedGradient);
  place(&l.scaledOffset, l.scaledBytes, true);
  return offset;
}

Status CudnnKernels::prepare(const KernelCall &call, int stream) {
  if (find(call))
    return Status::ok();
  GPLACE_RETURN_IF_ERROR(handle());
  auto launch = std::make_unique<Launch>();
  Launch &l = *launch;
  GPLACE_RETURN_IF_ERROR(describeLaunch(call, l));
  if (!l.emptyOutput && !l.emptyInput) {
    // In the plan's workspace where it is large enough for an algorithm
    // (the one --gplace-size-workspaces measured, when the plan was
    // compiled on this GPU), else in memory of the launch's own.
    std::optional<size_t> planned;
    if (call.workspace)
      planned = layOut(
          l, static_cast<size_t>(std::max<int64_t>(call.workspaceBytes, 0)));
    l.planned = planned.has_value();
    l.plannedBytes = planned.value_or(0);
    if (!l.planned) {
      size_t bytes = *layOut(l, std::numeric_limits<size_t>::max());
      // A plan compiled for another GPU or cuDNN: said once per device,
      // since the memory is outside the plan's limits. (A plan given no
      // workspace, compiled by a tool that does not ask the GPU, is
      // silent.)
      if (call.workspace && !warnedOutsidePlan_.exchange(true))
        std::cerr << "gplace: warning: " << opName(call.kernel)
                  << "'s workspace in the plan (" << call.workspaceBytes
                  << " bytes) is too small for any of cuDNN's algorithms on "
                     "this GPU (the first needs "
                  << bytes
                  << " bytes with the launch's buffers); its buffers are "
                     "allocated outside the static memory plan\n";
      auto allocate = [](CUdeviceptr *buffer, size_t bytes) -> Status {
        GPLACE_CU_CHECK(cuMemAlloc, buffer, std::max<size_t>(bytes, 1));
        return Status::ok();
      };
      if (l.filterBytes)
        GPLACE_RETURN_IF_ERROR(allocate(&l.filterBuffer, l.filterBytes));
      if (l.needsPadded)
        GPLACE_RETURN_IF_ERROR(allocate(&l.padded, l.paddedBytes));
      if (l.needsPaddedGradient)
        GPLACE_RETURN_IF_ERROR(allocate(&l.paddedGradient, l.paddedBytes));
      if (l.scaledBytes)
        GPLACE_RETURN_IF_ERROR(allocate(&l.scaled, l.scaledBytes));
      GPLACE_RETURN_IF_ERROR(growWorkspace(stream, l.workspaceBytes));
    }
    // A 16-bit convolution runs in its algorithm's math type (tensor ops,
    // or not), whose workspace the heuristics measured, as PyTorch sets
    // each algorithm's; f32 keeps --gpu-allow-tf32's.
    if (l.conv && l.type != ElementType::F32)
      GPLACE_CUDNN_CHECK(cudnnSetConvolutionMathType, l.conv, l.mathType);
    if (!l.factorValues.empty()) {
      // In the pooled tensor's type, as cudnnOpTensor multiplies them
      // (rounded to nearest: within the 16-bit result's own rounding).
      const void *host = l.factorValues.data();
      std::vector<uint16_t> narrow;
      if (l.elementBytes == 2) {
        for (float v : l.factorValues)
          narrow.push_back(
              l.type == ElementType::F16
                  ? Eigen::numext::bit_cast<uint16_t>(Eigen::half(v))
                  : Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(v)));
        host = narrow.data();
      }
      size_t bytes = l.factorValues.size() * l.elementBytes;
      GPLACE_CU_CHECK(cuMemAlloc, &l.factorData, bytes);
      GPLACE_CU_CHECK(cuMemcpyHtoD, l.factorData, host, bytes);
    }
  }
  if (call.state) {
    *call.state = std::move(launch);
    return Status::ok();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  launches_[&call] = std::move(launch);
  return Status::ok();
}

bool CudnnKernels::takesWorkspace(Kernel kernel) {
  Role role = roleOf(kernel);
  return role != Role::None && role != Role::BatchNormForward &&
         role != Role::BatchNormBackward;
}

StatusOr<int64_t> CudnnKernels::workspaceBytes(const KernelCall &call) {
  if (!CudaLibraries::get().cudnnError.empty())
    return int64_t(0); // Loading the plan reports it.
  if (!takesWorkspace(call.kernel))
    return int64_t(0);
  GPLACE_RETURN_IF_ERROR(handle());
  Launch l;
  Status described = describeLaunch(call, l);
  l.context = nullptr; // It holds no buffers.
  if (!described)
    return int64_t(0); // prepare() reports it when the plan loads.
  if (l.emptyOutput || l.emptyInput)
    return int64_t(0);
  return static_cast<int64_t>(*layOut(l, std::numeric_limits<size_t>::max()));
}

static Status describeInput(CudnnKernels::Launch &l, const KernelCall &call,
                            const TensorType &type, unsigned fill) {
  const KernelParams &p = *call.params;
  bool first = p.channelsFirst;
  auto [top, left] = evenPads(p);
  int64_t extraTop = p.windowPads[0] - top, extraLeft = p.windowPads[2] - left;
  int64_t extraH = extraTop + p.windowPads[1] - top;
  int64_t extraW = extraLeft + p.windowPads[3] - left;
  if (extraH == 0 && extraW == 0)
    return describe(&l.x, type, first);
  TensorType padded = type;
  padded.shape[first ? 2 : 1] += extraH;
  padded.shape[first ? 3 : 2] += extraW;
  GPLACE_RETURN_IF_ERROR(describe(&l.x, padded, first));
  GPLACE_RETURN_IF_ERROR(describe(&l.real, type, first));
  const std::vector<int64_t> &s = padded.shape;
  int64_t n = s[0], c = s[first ? 1 : 3], h = s[first ? 2 : 1],
          w = s[first ? 3 : 2];
  // The padded buffer's strides (n, c, h, w), in elements.
  int64_t strides[4] = {c * h * w, first ? h * w : 1, first ? w : w * c,
                        first ? 1 : c};
  const std::vector<int64_t> &r = type.shape;
  GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &l.view);
  GPLACE_CUDNN_CHECK(
      cudnnSetTensor4dDescriptorEx, l.view, dataType(type.elementType),
      static_cast<int>(r[0]), static_cast<int>(r[first ? 1 : 3]),
      static_cast<int>(r[first ? 2 : 1]), static_cast<int>(r[first ? 3 : 2]),
      static_cast<int>(strides[0]), static_cast<int>(strides[1]),
      static_cast<int>(strides[2]), static_cast<int>(strides[3]));
  l.viewOffset = extraTop * strides[2] + extraLeft * strides[3];
  l.paddedElements = n * c * h * w;
  l.fill = fill;
  l.paddedBytes = static_cast<size_t>(l.paddedElements) * l.elementBytes;
  // The padded input (all but a convolution's input gradient read it),
  // and the padded input gradient (which a max pool's gradient also has).
  l.needsPadded = roleOf(call.kernel) != Role::ConvBackwardData &&
                  call.kernel != Kernel::AvgPoolGrad;
  l.needsPaddedGradient = roleOf(call.kernel) == Role::ConvBackwardData ||
                          roleOf(call.kernel) == Role::PoolBackward;
  return Status::ok();
}

Status CudnnKernels::launch(const KernelCall &call, CUstream stream,
                            int index) {
  Launch *found = find(call);
  if (!found) {
    GPLACE_RETURN_IF_ERROR(prepare(call, index));
    found = find(call);
  }
  const Launch &l = *found;
  // Prepared for another stream (a plan's launches run on its compute
  // stream, which prepare() assumes): that stream's workspace grows too.
  if (!l.planned)
    GPLACE_RETURN_IF_ERROR(growWorkspace(index, l.workspaceBytes));
  else if (!call.workspace ||
           call.workspaceBytes < static_cast<int64_t>(l.plannedBytes))
    return Status::internal(
        opName(call.kernel) + " was prepared in a workspace of " +
        std::to_string(l.plannedBytes) + " bytes and runs with " +
        std::to_string(call.workspaceBytes));
  const KernelParams &p = *call.params;
  auto ptr = [](const TensorRef &ref) {
    return reinterpret_cast<CUdeviceptr>(ref.data);
  };
  if (l.emptyOutput && l.role != Role::BatchNormForward &&
      l.role != Role::BatchNormBackward)
    return Status::ok();
  if (l.emptyOutput || l.emptyInput) {
    // Nothing flows in: zero gradients. A batch norm of no elements
    // returns NaN statistics in training and the given ones in inference
    // (TensorFlow's, and the CPU kernel's).
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      const TensorRef &out = call.outputs[i];
      int64_t elements = out.type->numElements();
      if (elements == 0)
        continue;
      if (l.role == Role::BatchNormForward && i > 0 && p.isTraining)
        GPLACE_CU_CHECK(cuMemsetD32Async, ptr(out), 0x7fc00000u, elements,
                        stream);
      else if (l.role == Role::BatchNormForward && i > 0)
        GPLACE_CU_CHECK(cuMemcpyDtoDAsync, ptr(out), ptr(call.inputs[2 + i]),
                        out.type->bytes(), stream);
      else
        GPLACE_CU_CHECK(cuMemsetD8Async, ptr(out), 0, out.type->bytes(),
                        stream);
    }
    return Status::ok();
  }
  GPLACE_CUDNN_CHECK(cudnnSetStream, handle_, stream);
  const float one = 1.0f, zero = 0.0f;
  // The launch's buffers: in the plan's workspace, or its own.
  CUdeviceptr base = reinterpret_cast<CUdeviceptr>(call.workspace);
  auto buffer = [&](CUdeviceptr own, size_t offset) {
    return l.planned ? base + offset : own;
  };
  void *workspace =
      l.planned ? call.workspace : reinterpret_cast<void *>(workspace_[index]);
  void *filter =
      reinterpret_cast<void *>(buffer(l.filterBuffer, l.filterOffset));
  CUdeviceptr padded =
      l.needsPadded ? buffer(l.padded, l.paddedOffset) : CUdeviceptr(0);
  CUdeviceptr paddedGradient =
      l.needsPaddedGradient ? buffer(l.paddedGradient, l.paddedGradientOffset)
                            : CUdeviceptr(0);
  void *scaled = reinterpret_cast<void *>(buffer(l.scaled, l.scaledOffset));
  auto interior = [&](CUdeviceptr buffer) {
    return reinterpret_cast<void *>(buffer + l.viewOffset * l.elementBytes);
  };
  // The window op's input as cuDNN reads it: `input` itself, or padded
  // explicitly into l.padded.
  auto input = [&](const void *data, const void **in) -> Status {
    *in = data;
    if (!padded)
      return Status::ok();
    if (l.elementBytes == 2)
      GPLACE_CU_CHECK(cuMemsetD16Async, padded,
                      static_cast<unsigned short>(l.fill), l.paddedElements,
                      stream);
    else
      GPLACE_CU_CHECK(cuMemsetD32Async, padded, l.fill, l.paddedElements,
                      stream);
    GPLACE_CUDNN_CHECK(cudnnTransformTensor, handle_, &one, l.real, data, &zero,
                       l.view, interior(padded));
    *in = reinterpret_cast<void *>(padded);
    return Status::ok();
  };
  // Where cuDNN writes the input's gradient (paddedGradient when
  // padded), and its crop into `data` after.
  auto gradient = [&](void *data) {
    return paddedGradient ? reinterpret_cast<void *>(paddedGradient) : data;
  };
  auto crop = [&](void *data) -> Status {
    if (paddedGradient)
      GPLACE_CUDNN_CHECK(cudnnTransformTensor, handle_, &one, l.view,
                         interior(paddedGradient), &zero, l.real, data);
    return Status::ok();
  };
  const void *x = nullptr;
  switch (l.role) {
  case Role::ConvForward: {
    GPLACE_CUDNN_CHECK(cudnnTransformTensor, handle_, &one, l.hwio,
                       call.inputs[1].data, &zero, l.packed, filter);
    GPLACE_RETURN_IF_ERROR(input(call.inputs[0].data, &x));
    GPLACE_CUDNN_CHECK(cudnnConvolutionForward, handle_, &one, l.x, x,
                       l.filter, filter, l.conv,
                       static_cast<cudnnConvolutionFwdAlgo_t>(l.algorithm),
                       workspace, l.workspaceBytes, &zero, l.y,
                       call.outputs[0].data);
    if (l.bias)
      GPLACE_CUDNN_CHECK(cudnnAddTensor, handle_, &one, l.bias,
                         call.inputs[2].data, &one, l.y, call.outputs[0].data);
    if (l.relu)
      GPLACE_CUDNN_CHECK(cudnnActivationForward, handle_, l.relu, &one, l.y,
                         call.outputs[0].data, &zero, l.y,
                         call.outputs[0].data);
    break;
  }
  case Role::ConvBackwardData:
    GPLACE_CUDNN_CHECK(cudnnTransformTensor, handle_, &one, l.hwio,
                       call.inputs[0].data, &zero, l.packed, filter);
    GPLACE_CUDNN_CHECK(cudnnConvolutionBackwardData, handle_, &one, l.filter,
                       filter, l.y, call.inputs[1].data, l.conv,
                       static_cast<cudnnConvolutionBwdDataAlgo_t>(l.algorithm),
                       workspace, l.workspaceBytes, &zero, l.x,
                       gradient(call.outputs[0].data));
    GPLACE_RETURN_IF_ERROR(crop(call.outputs[0].data));
    break;
  case Role::ConvBackwardFilter:
    GPLACE_RETURN_IF_ERROR(input(call.inputs[0].data, &x));
    GPLACE_CUDNN_CHECK(
        cudnnConvolutionBackwardFilter, handle_, &one, l.x, x,
        l.y, call.inputs[1].data, l.conv,
        static_cast<cudnnConvolutionBwdFilterAlgo_t>(l.algorithm), workspace,
        l.workspaceBytes, &zero, l.filter, filter);
    GPLACE_CUDNN_CHECK(cudnnTransformTensor, handle_, &one, l.packed, filter,
                       &zero, l.hwio, call.outputs[0].data);
    break;
  case Role::PoolForward:
    GPLACE_RETURN_IF_ERROR(input(call.inputs[0].data, &x));
    if (!l.multiply) {
      GPLACE_CUDNN_CHECK(cudnnPoolingForward, handle_, l.pool, &one, l.x, x,
                         &zero, l.y, call.outputs[0].data);
      break;
    }
    // Whole windows' means, then scaled to the input elements' means.
    GPLACE_CUDNN_CHECK(cudnnPoolingForward, handle_, l.pool, &one, l.x, x,
                       &zero, l.y, scaled);
    GPLACE_CUDNN_CHECK(cudnnOpTensor, handle_, l.multiply, &one, l.y, scaled,
                       &one, l.factors, reinterpret_cast<void *>(l.factorData),
                       &zero, l.y, call.outputs[0].data);
    break;
  case Role::PoolBackward:
    if (call.kernel == Kernel::MaxPoolGrad) {
      // orig_input, orig_output, the gradient.
      GPLACE_RETURN_IF_ERROR(input(call.inputs[0].data, &x));
      GPLACE_CUDNN_CHECK(cudnnPoolingBackward, handle_, l.pool, &one, l.y,
                         call.inputs[1].data, l.y, call.inputs[2].data, l.x,
                         x, &zero, l.x, gradient(call.outputs[0].data));
      GPLACE_RETURN_IF_ERROR(crop(call.outputs[0].data));
    } else {
      // An average's gradient reads neither the forward input nor its
      // output: cuDNN is handed the gradient and the result in their
      // places (as TensorFlow hands it scratch tensors). Padded unevenly,
      // the gradient is scaled by the forward's factors first.
      const void *dy = call.inputs[0].data;
      if (l.multiply) {
        GPLACE_CUDNN_CHECK(
            cudnnOpTensor, handle_, l.multiply, &one, l.y, dy, &one, l.factors,
            reinterpret_cast<void *>(l.factorData), &zero, l.y, scaled);
        dy = scaled;
      }
      void *dx = gradient(call.outputs[0].data);
      GPLACE_CUDNN_CHECK(cudnnPoolingBackward, handle_, l.pool, &one, l.y, dy,
                         l.y, dy, l.x, dx, &zero, l.x, dx);
      GPLACE_RETURN_IF_ERROR(crop(call.outputs[0].data));
    }
    break;
  case Role::BatchNormForward:
    if (p.isTraining) {
      // With an averaging factor of 1 the "running" statistics are the
      // batch's; they start from zeros, as 0 * (1 - 1) must not be NaN.
      for (int i : {1, 2})
        GPLACE_CU_CHECK(cuMemsetD8Async, ptr(call.outputs[i]), 0,
                        call.outputs[i].type->bytes(), stream);
      GPLACE_CUDNN_CHECK(
          cudnnBatchNormalizationForwardTraining, handle_,
          CUDNN_BATCHNORM_SPATIAL, &one, &zero, l.x, call.inputs[0].data, l.x,
          call.outputs[0].data, l.stat, call.inputs[1].data,
          call.inputs[2].data, 1.0, call.outputs[1].data,
          call.outputs[2].data, p.epsilon, nullptr, nullptr);
    } else {
      GPLACE_CUDNN_CHECK(cudnnBatchNormalizationForwardInference, handle_,
                         CUDNN_BATCHNORM_SPATIAL, &one, &zero, l.x,
                         call.inputs[0].data, l.x, call.outputs[0].data,
                         l.stat, call.inputs[1].data, call.inputs[2].data,
                         call.inputs[3].data, call.inputs[4].data, p.epsilon);
      for (int i : {1, 2})
        GPLACE_CU_CHECK(cuMemcpyDtoDAsync, ptr(call.outputs[i]),
                        ptr(call.inputs[2 + i]), call.outputs[i].type->bytes(),
                        stream);
    }
    break;
  case Role::BatchNormBackward:
    // y_backprop, x, scale, mean, variance: the batch's statistics are
    // recomputed from x (no saved ones are passed).
    GPLACE_CUDNN_CHECK(cudnnBatchNormalizationBackward, handle_,
                       CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, l.x,
                       call.inputs[1].data, l.x, call.inputs[0].data, l.x,
                       call.outputs[0].data, l.stat, call.inputs[2].data,
                       call.outputs[1].data, call.outputs[2].data, p.epsilon,
                       nullptr, nullptr);
    break;
  case Role::None:
    return Status::internal(opName(call.kernel) + " is not a cuDNN kernel");
  }
  return Status::ok();
}

} // namespace gplace::runtime::cuda
