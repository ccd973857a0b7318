//===- Cudnn.cpp - convolutions, pooling, batch norm, RNNs on cuDNN -------===//
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
//   FusedBatchNormV3 returns;
// - cudnn_rnn and its gradient run cuDNN's RNN API (cudnnRNNForward,
//   cudnnRNNBackwardData_v8, cudnnRNNBackwardWeights_v8: one layer, double
//   biases, f32), as TensorFlow's CudnnRNNV3 and PyTorch's cuDNN RNNs do.
//   w, r and b (ONNX's layout) are copied piece by piece into cuDNN's
//   weight space where cudnnGetRNNWeightParams places each gate's matrix
//   and bias (GRU's update and reset gates swapped: cuDNN's order is reset,
//   update, new), and a weight gradient is copied back out. cuDNN's GRU is
//   the linear-before-reset one only (the other is refused). cuDNN has no
//   right-to-left layer: a reverse one runs forward over its input
//   reversed in time and its output is reversed back. The gradient runs
//   the forward again in training mode for its reserve space. The weight
//   spaces, cuDNN's workspace and reserve space, the sequence lengths and
//   the reversed copies lie in the launch's workspace of the plan.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"

#include "../RecurrentShape.h"
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
  RnnForward,
  RnnBackward,
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
  case Kernel::CudnnRNN:
    return Role::RnnForward;
  case Kernel::CudnnRNNBackprop:
    return Role::RnnBackward;
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

/// The buffers of a recurrent launch, in the order they are laid out:
/// cuDNN's weight space (the layer's matrices and biases, copied in from
/// w, r and b) and the gradient's (zeroed, accumulated into, copied out
/// into dw, dr and db), cuDNN's workspace and reserve space, the sequence
/// lengths (int32 per batch entry, in device memory), and scratch: a
/// reverse layer's input reversed in time, the forward's output (a
/// gradient's forward, or a reverse layer's before it is reversed back),
/// and a reverse gradient's output gradient and input gradient in reversed
/// time. (A gradient's forward writes no final states: cudnnRNNForward
/// takes null hy and cy.)
enum RnnPart {
  RnnWeights,
  RnnGradients,
  RnnWork,
  RnnReserve,
  RnnSeqLengths,
  RnnX,
  RnnY,
  RnnDy,
  RnnDx,
  RnnParts
};

/// One matrix or bias of a recurrent layer: `bytes` at byte `onnx` of
/// operand `operand` (w, r or b: 3, 4, 5; the gradient's result of the
/// same index) and at byte `space` of cuDNN's weight space.
struct RnnPiece {
  int operand;
  size_t onnx, space, bytes;
};

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
  /// A recurrent layer: its sizes (recurrentShapeOf) and whether it runs
  /// reversed in time; the layer, x's and y's RNN data
  /// descriptors, h's and c's ([dirs, batch, hidden]), a dropout of 0;
  /// each buffer's bytes and offset in its block (the plan's workspace,
  /// or `rnnBlock`); the pieces of w, r and b in the weight space.
  RecurrentShape shape{};
  bool reverse = false;
  cudnnRNNDescriptor_t rnn = nullptr;
  cudnnRNNDataDescriptor_t rnnX = nullptr, rnnY = nullptr;
  cudnnTensorDescriptor_t state = nullptr;
  cudnnDropoutDescriptor_t dropout = nullptr;
  size_t rnnBytes[RnnParts] = {}, rnnOffsets[RnnParts] = {};
  std::vector<RnnPiece> pieces;
  CUdeviceptr rnnBlock = 0;

  ~Launch() override {
    const CudaLibraries &libs = CudaLibraries::get();
    if (context)
      libs.cuCtxSetCurrent(context);
    for (cudnnTensorDescriptor_t d :
         {x, y, hwio, packed, bias, stat, real, view, factors, state})
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
    if (rnn)
      libs.cudnnDestroyRNNDescriptor(rnn);
    for (cudnnRNNDataDescriptor_t d : {rnnX, rnnY})
      if (d)
        libs.cudnnDestroyRNNDataDescriptor(d);
    if (dropout)
      libs.cudnnDestroyDropoutDescriptor(dropout);
    for (CUdeviceptr buffer :
         {filterBuffer, padded, paddedGradient, factorData, scaled, rnnBlock})
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
           "): conv2d, pooling, batch norm and recurrent layers cannot run "
           "on CUDA GPUs";
  size_t v = libs.cudnnGetVersion();
  // cuDNN 9: major * 10000 + minor * 100 + patch.
  return "cuDNN " + std::to_string(v / 10000) + "." +
         std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         " (convolutions and pools in f32, f16 and bf16, 16-bit ones on "
         "tensor cores accumulating in f32; batch norm and recurrent layers "
         "in f32)";
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
        "): convolutions, pooling, batch norm and recurrent layers cannot "
        "run on CUDA GPUs; install cuDNN 9 (or put its libraries on "
        "LD_LIBRARY_PATH), or place these ops on the CPU");
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

/// Describes a recurrent launch (cudnn_rnn, or its gradient) in `l`:
/// checks its operands as the CPU kernel does (recurrentShapeOf: every
/// size at least 1), refuses what cuDNN cannot run,
/// makes the descriptors and measures the buffers; allocates nothing.
static Status describeRnn(cudnnHandle_t handle, bool allowTf32,
                          const KernelCall &call, CudnnKernels::Launch &l) {
  std::string op = opName(call.kernel);
  bool backward = l.role == Role::RnnBackward;
  StatusOr<RecurrentShape> shape = recurrentShapeOf(call);
  if (!shape)
    return shape.status();
  const KernelParams &p = *call.params;
  l.shape = *shape;
  l.reverse = p.rnnDirection == 1;
  // cuDNN's GRU computes h' = tanh(W_h x + b_Wh + r * (R_h h + b_Rh)):
  // linear_before_reset, and nothing else. Placement keeps the other GRU
  // off CUDA GPUs; this is for plans written by hand.
  if (p.rnnKind == 3)
    return Status::invalidArgument(
        op + " of a GRU without linear_before_reset on a CUDA GPU: cuDNN's "
             "GRU applies the reset gate after the recurrent product "
             "(linear_before_reset) only; place the op on the CPU");
  for (const auto *refs : {&call.inputs, &call.outputs})
    for (const TensorRef &ref : *refs)
      if (ref.type->elementType != ElementType::F32)
        return Status::invalidArgument(
            op + " in " + std::string(elementTypeName(ref.type->elementType)) +
            " on a CUDA GPU: cuDNN's recurrent layers run in f32 here; use "
            "f32, or place the op on the CPU");

  // No dropout, hence no random states (PyTorch's set_no_dropout); a
  // single layer has none to apply anyway.
  GPLACE_CUDNN_CHECK(cudnnCreateDropoutDescriptor, &l.dropout);
  GPLACE_CUDNN_CHECK(cudnnSetDropoutDescriptor, l.dropout, handle, 0.0f,
                     nullptr, 0, 0);
  const cudnnRNNMode_t modes[] = {CUDNN_RNN_TANH, CUDNN_RNN_RELU, CUDNN_LSTM,
                                  CUDNN_GRU, CUDNN_GRU};
  int input = static_cast<int>(l.shape.input),
      hidden = static_cast<int>(l.shape.hidden);
  int batch = static_cast<int>(l.shape.batch),
      seq = static_cast<int>(l.shape.seq);
  int dirs = static_cast<int>(l.shape.dirs);
  GPLACE_CUDNN_CHECK(cudnnCreateRNNDescriptor, &l.rnn);
  // One layer, double biases (ONNX's W and R biases), no projection
  // (projSize = hiddenSize); f32 data and compute, on TF32 tensor cores
  // only with --gpu-allow-tf32 (PyTorch's rule for f32 RNNs). Padded I/O
  // stays disabled: it is needed for the UNPACKED layouts only.
  GPLACE_CUDNN_CHECK(cudnnSetRNNDescriptor_v8, l.rnn, CUDNN_RNN_ALGO_STANDARD,
                     modes[p.rnnKind], CUDNN_RNN_DOUBLE_BIAS,
                     dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                     CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                     allowTf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH, input,
                     hidden, hidden, 1, l.dropout,
                     CUDNN_RNN_PADDED_IO_DISABLED);
  // x and y as cuDNN's RNN data: sequence-major and PACKED, every sequence
  // `seq` long. Packed, each time step holds the batch entries still
  // running, one after another, the lengths in decreasing order; with
  // equal lengths that is exactly the op's dense [seq, batch, vector].
  // (SEQ_MAJOR_UNPACKED would describe the same memory too, but needs
  // CUDNN_RNN_PADDED_IO_ENABLED; packed needs no padding fill.) y's
  // vectors are both directions' hidden states, the forward one first.
  std::vector<int> lengths(batch, seq);
  GPLACE_CUDNN_CHECK(cudnnCreateRNNDataDescriptor, &l.rnnX);
  GPLACE_CUDNN_CHECK(cudnnSetRNNDataDescriptor, l.rnnX, CUDNN_DATA_FLOAT,
                     CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, seq, batch, input,
                     lengths.data(), nullptr);
  GPLACE_CUDNN_CHECK(cudnnCreateRNNDataDescriptor, &l.rnnY);
  GPLACE_CUDNN_CHECK(cudnnSetRNNDataDescriptor, l.rnnY, CUDNN_DATA_FLOAT,
                     CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, seq, batch,
                     dirs * hidden, lengths.data(), nullptr);
  // h and c: [dirs * layers, batch, hidden], packed.
  int stateDims[3] = {dirs, batch, hidden};
  int stateStrides[3] = {batch * hidden, hidden, 1};
  GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &l.state);
  GPLACE_CUDNN_CHECK(cudnnSetTensorNdDescriptor, l.state, CUDNN_DATA_FLOAT, 3,
                     stateDims, stateStrides);

  size_t *bytes = l.rnnBytes;
  GPLACE_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize, handle, l.rnn,
                     &bytes[RnnWeights]);
  // Training mode for the gradient: its workspace serves the forward and
  // both backward calls, its reserve space carries the forward's
  // activations to them. Inference reserves nothing.
  GPLACE_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes, handle, l.rnn,
                     backward ? CUDNN_FWD_MODE_TRAINING
                              : CUDNN_FWD_MODE_INFERENCE,
                     l.rnnX, &bytes[RnnWork], &bytes[RnnReserve]);
  size_t f = sizeof(float);
  size_t xBytes =
      static_cast<size_t>(l.shape.seq * l.shape.batch * l.shape.input) * f;
  size_t yBytes = static_cast<size_t>(l.shape.seq * l.shape.batch *
                                      l.shape.dirs * l.shape.hidden) *
                  f;
  bytes[RnnSeqLengths] = static_cast<size_t>(l.shape.batch) * sizeof(int32_t);
  if (backward) {
    bytes[RnnGradients] = bytes[RnnWeights];
    bytes[RnnY] = yBytes;
  }
  if (l.reverse) {
    bytes[RnnX] = xBytes;
    bytes[RnnY] = yBytes;
    bytes[RnnDy] = backward ? yBytes : 0;
    bytes[RnnDx] = backward ? xBytes : 0;
  }
  return Status::ok();
}

/// Lays a recurrent launch's buffers out one after another (l.rnnOffsets).
/// Returns the bytes they take, or std::nullopt where that is more than
/// `budget`.
static std::optional<size_t> layOutRnn(CudnnKernels::Launch &l, size_t budget) {
  size_t offset = 0;
  for (int part = 0; part < RnnParts; ++part) {
    l.rnnOffsets[part] = offset;
    offset += alignPart(l.rnnBytes[part]);
  }
  if (offset > budget)
    return std::nullopt;
  return offset;
}

/// Where each of w's, r's and b's matrices and biases lies in the weight
/// space at `space` (l.pieces, relative to the space's start): per pseudo
/// layer (the direction: 0 forward, 1 backward) and linear layer (cuDNN's
/// linLayerID: W's gates, then R's), as cudnnGetRNNWeightParams reports
/// it, each matrix [hidden, input or hidden] in rows, as ONNX's.
static Status rnnPieces(cudnnHandle_t handle, CudnnKernels::Launch &l,
                        CUdeviceptr space) {
  struct Descriptors {
    cudnnTensorDescriptor_t matrix = nullptr, bias = nullptr;
    ~Descriptors() {
      for (cudnnTensorDescriptor_t d : {matrix, bias})
        if (d)
          CudaLibraries::get().cudnnDestroyTensorDescriptor(d);
    }
  } d;
  GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &d.matrix);
  GPLACE_CUDNN_CHECK(cudnnCreateTensorDescriptor, &d.bias);
  size_t spaceBytes = l.rnnBytes[RnnWeights], f = sizeof(float);
  int64_t hidden = l.shape.hidden, gh = l.shape.gates * l.shape.hidden;
  // The shape cuDNN reports, {1, rows, columns}, and the rows' stride.
  auto expect = [&](cudnnTensorDescriptor_t desc, int64_t columns,
                    const char *what) -> Status {
    cudnnDataType_t type;
    int rank = 0, shape[3] = {0, 0, 0}, strides[3] = {0, 0, 0};
    GPLACE_CUDNN_CHECK(cudnnGetTensorNdDescriptor, desc, 3, &type, &rank, shape,
                       strides);
    if (rank == 3 && shape[0] == 1 && shape[1] == hidden &&
        shape[2] == columns &&
        (columns == 1 || (strides[1] == columns && strides[2] == 1)))
      return Status::ok();
    return Status::internal(
        "cudnnGetRNNWeightParams reported a " + std::string(what) + " " +
        dims({shape[0], shape[1], shape[2]}) + " (rank " +
        std::to_string(rank) + ", strides " +
        dims({strides[0], strides[1], strides[2]}) + "); expected [1, " +
        std::to_string(hidden) + ", " + std::to_string(columns) + "] in rows");
  };
  l.pieces.clear();
  for (int dir = 0; dir < l.shape.dirs; ++dir)
    for (int id = 0; id < 2 * l.shape.gates; ++id) {
      bool recurrent = id >= l.shape.gates;
      int64_t gate = id % l.shape.gates;
      // cuDNN's GRU gates are reset, update, new; ONNX's (and the op's)
      // z (update), r (reset), h (new): the first two swap. LSTM's i, f,
      // c, o and the plain RNN's one gate are in the same order.
      if (l.shape.gates == 3 && gate < 2)
        gate = 1 - gate;
      int64_t columns = recurrent ? l.shape.hidden : l.shape.input;
      void *matrix = nullptr, *bias = nullptr;
      GPLACE_CUDNN_CHECK(cudnnGetRNNWeightParams, handle, l.rnn, dir,
                         spaceBytes, reinterpret_cast<void *>(space), id,
                         d.matrix, &matrix, d.bias, &bias);
      GPLACE_RETURN_IF_ERROR(expect(d.matrix, columns, "matrix"));
      GPLACE_RETURN_IF_ERROR(expect(d.bias, 1, "bias"));
      size_t matrixBytes = static_cast<size_t>(hidden * columns) * f;
      size_t m = reinterpret_cast<CUdeviceptr>(matrix) - space;
      size_t b = reinterpret_cast<CUdeviceptr>(bias) - space;
      if (!matrix || !bias || m + matrixBytes > spaceBytes ||
          b + hidden * f > spaceBytes)
        return Status::internal("cudnnGetRNNWeightParams placed linear layer " +
                                std::to_string(id) +
                                " outside the weight space");
      l.pieces.push_back({recurrent ? 4 : 3,
                          static_cast<size_t>((dir * l.shape.gates + gate) *
                                              hidden * columns) *
                              f,
                          m, matrixBytes});
      l.pieces.push_back(
          {5,
           static_cast<size_t>(dir * 2 * gh + (recurrent ? gh : 0) +
                               gate * hidden) *
               f,
           b, static_cast<size_t>(hidden) * f});
    }
  return Status::ok();
}

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
  // Before the empty-tensor checks: a recurrent layer refuses zero sizes,
  // as the CPU kernel does.
  if (l.role == Role::RnnForward || l.role == Role::RnnBackward)
    return describeRnn(handle_, allowTf32_, call, l);
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
  case Role::RnnForward:
  case Role::RnnBackward:
    break; // Described above.
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
  if (l.rnn)
    return layOutRnn(l, budget);
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
                  << " bytes) is too small for "
                  << (l.rnn ? "cuDNN's recurrent layer on this GPU (it needs "
                            : "any of cuDNN's algorithms on this GPU (the "
                              "first needs ")
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
      if (l.rnn)
        GPLACE_RETURN_IF_ERROR(allocate(&l.rnnBlock, bytes));
      GPLACE_RETURN_IF_ERROR(growWorkspace(stream, l.workspaceBytes));
    }
    if (l.rnn) {
      // The weight space's pieces, relative to its start (the same at
      // every launch, wherever the block is).
      CUdeviceptr block = l.planned
                              ? reinterpret_cast<CUdeviceptr>(call.workspace)
                              : l.rnnBlock;
      GPLACE_RETURN_IF_ERROR(
          rnnPieces(handle_, l, block + l.rnnOffsets[RnnWeights]));
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

/// Runs a recurrent launch on `stream` (`handle` already on it). cuDNN's
/// layers run forward or both ways; a reverse layer runs forward over its
/// input reversed in time, and its output (and a gradient's input
/// gradient) is reversed back, as oneDNN's right-to-left layer reads and
/// writes time step t at position t.
static Status launchRnn(cudnnHandle_t handle, const KernelCall &call,
                        const CudnnKernels::Launch &l, CUstream stream) {
  CUdeviceptr block =
      l.planned ? reinterpret_cast<CUdeviceptr>(call.workspace) : l.rnnBlock;
  auto at = [&](RnnPart part) { return block + l.rnnOffsets[part]; };
  auto part = [&](RnnPart part) {
    return l.rnnBytes[part] ? reinterpret_cast<void *>(at(part)) : nullptr;
  };
  auto ptr = [](const TensorRef &ref) {
    return reinterpret_cast<CUdeviceptr>(ref.data);
  };
  bool backward = l.role == Role::RnnBackward;
  // The sequence lengths (device memory, as cudnnRNNForward and the
  // backward calls read them), all `seq`: written on the stream at every
  // launch, since the plan's workspace holds other launches' buffers
  // between runs. A memset rather than a copy: it is ordered on the
  // launch's stream (cuMemcpyHtoD when the plan loads would run on the
  // legacy default stream, which the device's non-blocking streams do not
  // wait for), needs no host array to outlive it, and is captured into a
  // CUDA graph as it is.
  const int32_t *lengths = static_cast<const int32_t *>(part(RnnSeqLengths));
  GPLACE_CU_CHECK(cuMemsetD32Async, at(RnnSeqLengths),
                  static_cast<unsigned>(l.shape.seq),
                  static_cast<size_t>(l.shape.batch), stream);
  // w, r and b into the weight space, as they are now.
  CUdeviceptr weights = at(RnnWeights);
  size_t weightBytes = l.rnnBytes[RnnWeights];
  for (const RnnPiece &piece : l.pieces)
    GPLACE_CU_CHECK(cuMemcpyDtoDAsync, weights + piece.space,
                    ptr(call.inputs[piece.operand]) + piece.onnx, piece.bytes,
                    stream);
  // `to`'s time step t is `from`'s step seq - 1 - t, each `row` bytes.
  auto reverse = [&](CUdeviceptr to, CUdeviceptr from, size_t row) -> Status {
    for (int64_t t = 0; t < l.shape.seq; ++t)
      GPLACE_CU_CHECK(cuMemcpyDtoDAsync, to + t * row,
                      from + (l.shape.seq - 1 - t) * row, row, stream);
    return Status::ok();
  };
  size_t f = sizeof(float);
  size_t xRow = static_cast<size_t>(l.shape.batch * l.shape.input) * f;
  size_t yRow =
      static_cast<size_t>(l.shape.batch * l.shape.dirs * l.shape.hidden) * f;
  const void *x = call.inputs[0].data, *hx = call.inputs[1].data;
  const void *cx = l.shape.lstm() ? call.inputs[2].data : nullptr;
  if (l.reverse) {
    GPLACE_RETURN_IF_ERROR(reverse(at(RnnX), ptr(call.inputs[0]), xRow));
    x = part(RnnX);
  }
  // The gradient's forward keeps y in scratch for the backward calls and
  // writes no final states (null hy and cy, which cuDNN accepts).
  void *y = backward || l.reverse ? part(RnnY) : call.outputs[0].data;
  void *hy = backward ? nullptr : call.outputs[1].data;
  void *cy = !l.shape.lstm() || backward ? nullptr : call.outputs[2].data;
  void *work = part(RnnWork), *reserve = part(RnnReserve);
  size_t workBytes = l.rnnBytes[RnnWork], reserveBytes = l.rnnBytes[RnnReserve];
  GPLACE_CUDNN_CHECK(
      cudnnRNNForward, handle, l.rnn,
      backward ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, lengths,
      l.rnnX, x, l.rnnY, y, l.state, hx, hy, l.state, cx, cy, weightBytes,
      reinterpret_cast<const void *>(weights), workBytes, work, reserveBytes,
      reserve);
  // Only LSTMs have a cell state: the others' is zeros (and so is its
  // gradient), as on the CPU.
  const TensorRef &cell = call.outputs[2];
  if (!l.shape.lstm())
    GPLACE_CU_CHECK(cuMemsetD8Async, ptr(cell), 0, cell.type->bytes(), stream);
  if (!backward) {
    if (l.reverse)
      GPLACE_RETURN_IF_ERROR(reverse(ptr(call.outputs[0]),
                                     reinterpret_cast<CUdeviceptr>(y), yRow));
    return Status::ok();
  }

  // The gradient: the data's (dx, dh0, dc0), then the weights' into a
  // zeroed gradient space (cuDNN only adds to it), copied out into dw, dr
  // and db. Both read the forward's reserve space; the weights' call comes
  // after the data's, as cuDNN requires.
  const void *dy = call.inputs[6].data;
  void *dx = call.outputs[0].data;
  if (l.reverse) {
    GPLACE_RETURN_IF_ERROR(reverse(at(RnnDy), ptr(call.inputs[6]), yRow));
    dy = part(RnnDy);
    dx = part(RnnDx);
  }
  GPLACE_CUDNN_CHECK(cudnnRNNBackwardData_v8, handle, l.rnn, lengths, l.rnnY, y,
                     dy, l.rnnX, dx, l.state, hx, call.inputs[7].data,
                     call.outputs[1].data, l.state, cx,
                     l.shape.lstm() ? call.inputs[8].data : nullptr,
                     l.shape.lstm() ? call.outputs[2].data : nullptr,
                     weightBytes, reinterpret_cast<const void *>(weights),
                     workBytes, work, reserveBytes, reserve);
  CUdeviceptr gradients = at(RnnGradients);
  GPLACE_CU_CHECK(cuMemsetD8Async, gradients, 0, weightBytes, stream);
  GPLACE_CUDNN_CHECK(cudnnRNNBackwardWeights_v8, handle, l.rnn,
                     CUDNN_WGRAD_MODE_ADD, lengths, l.rnnX, x, l.state, hx,
                     l.rnnY, y, weightBytes,
                     reinterpret_cast<void *>(gradients), workBytes, work,
                     reserveBytes, reserve);
  if (l.reverse)
    GPLACE_RETURN_IF_ERROR(
        reverse(ptr(call.outputs[0]), reinterpret_cast<CUdeviceptr>(dx), xRow));
  for (const RnnPiece &piece : l.pieces)
    GPLACE_CU_CHECK(cuMemcpyDtoDAsync,
                    ptr(call.outputs[piece.operand]) + piece.onnx,
                    gradients + piece.space, piece.bytes, stream);
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
  case Role::RnnForward:
  case Role::RnnBackward:
    return launchRnn(handle_, call, l, stream);
  case Role::None:
    return Status::internal(opName(call.kernel) + " is not a cuDNN kernel");
  }
  return Status::ok();
}

} // namespace gplace::runtime::cuda
