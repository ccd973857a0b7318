//===- DnnlKernels.h - host kernels that call oneDNN ------------*- C++ -*-===//
//
// The host kernels of the window ops (conv2d, max_pool, avg_pool and their
// gradients), batch norm, recurrent layers and the f32 matrix product: oneDNN's CPU primitives (Debian's libdnnl, v2.x), as
// TensorFlow's MKL build runs them. Private to the runtime; Kernels.cpp's
// table reaches them.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_DNNLKERNELS_H
#define GPLACE_RUNTIME_DNNLKERNELS_H

#include "gplace/Runtime/Kernels.h"

namespace gplace::runtime {

/// Runs a conv2d, fused_conv2d, conv2d_backprop_input,
/// conv2d_backprop_filter or depthwise_conv2d_native (and its two
/// gradients) launch (f32, NHWC or NCHW activations, HWIO filter, groups
/// from the channel counts; a depthwise filter [KH, KW, C, M] is the
/// grouped filter [KH, KW, 1, C * M] of C groups) with oneDNN's convolution
/// primitives; fused_conv2d passes its bias to the primitive and its ReLU
/// as an eltwise post-op, as TensorFlow's MKL _FusedConv2D does. The primitive
/// is created once per shape and parameters and kept. Its temporary buffers
/// come from the launch's workspace (KernelCall::workspace), else its thread's;
/// a measuring call (KernelCall::measuredWorkspace) only counts them, as the
/// pooling and batch norm kernels do. Errors: oneDNN's, with its status
/// name (unimplemented, out of memory).
Status runDnnlConvolution(const KernelCall &call);

/// Runs a max_pool, avg_pool, max_pool_grad or avg_pool_grad launch (f32)
/// with oneDNN's pooling primitives: average pooling excludes padding, as
/// TensorFlow's AvgPool; max_pool_grad recomputes the forward pass to find
/// where each maximum came from. Errors as runDnnlConvolution.
Status runDnnlPooling(const KernelCall &call);

/// Runs a fused_batch_norm or fused_batch_norm_grad launch (f32, NHWC or
/// NCHW) with oneDNN's batch normalization primitives (scale and shift;
/// the given statistics in inference). Training returns the variance with
/// Bessel's correction, as TensorFlow's FusedBatchNormV3, and the gradient
/// takes it back. Errors as runDnnlConvolution.
Status runDnnlBatchNorm(const KernelCall &call);

/// Runs a cudnn_rnn or cudnn_rnn_backprop launch (f32) with oneDNN's RNN
/// primitives (vanilla_rnn with tanh or ReLU, lstm, gru, lbr_gru; left to
/// right, right to left, or both concatenated): W and R in ONNX's layout
/// ([directions, gates * hidden, inputs], oneDNN's ldgoi) reordered into
/// the primitive's, W's and R's biases summed per gate (linear_before_reset
/// keeps R's h-gate bias apart, oneDNN's fourth gate). The gradient runs
/// the training forward again for the workspace its backward primitive
/// reads. Primitives are made once per shapes and parameters; buffers come
/// from the launch's workspace as runDnnlConvolution's. Errors as
/// runDnnlConvolution.
Status runDnnlRecurrent(const KernelCall &call);
/// oneDNN's version as the loaded library reports it: "2.6.3".
std::string dnnlVersion();

/// C = op(A) op(B) for row-major f32 matrices (op: transposed if `transA`
/// / `transB`): A is m x k (k x m transposed) with leading dimension `lda`,
/// B k x n (n x k) with `ldb`, C m x n with `ldc`, with oneDNN's matmul
/// primitive (made once per kernel, shapes and transposes, as the
/// convolutions'; it runs on oneDNN's OpenMP threads, the pool the
/// convolutions use), as TensorFlow's MKL build runs MatMul. Where
/// call.state is set, the launch keeps its primitive there, and with
/// `packB` (B is a constant: call.inputs[1].constant) B reordered once into
/// the layout the primitive prefers, as ONNX Runtime pre-packs constant
/// weights; that copy is host memory outside the static memory plan. Errors as
/// runDnnlConvolution.
Status runDnnlMatmul(const KernelCall &call, bool transA, bool transB,
                     int64_t m, int64_t n, int64_t k, const float *a,
                     int64_t lda, const float *b, int64_t ldb, float *c,
                     int64_t ldc, bool packB);

/// C (m x n, `ldc`) += op(A) op(B), f32, as runDnnlMatmul (its primitive
/// and team) with a sum post-op, as oneDNN's own GEMM with beta = 1: C
/// holds the accumulator on entry. On AVX-512 (brgemm) it rounds as
/// runDnnlMatmul's product followed by an add, bit for bit; on AVX2 the
/// jit GEMM starts its sums from C, a last-bit difference
/// (docs/passes/remap.md). For matmul_accumulate (gradient accumulation's
/// product added into its running sum; TensorFlow's oneDNN build fuses
/// MatMul + Add alike). Errors as runDnnlConvolution.
Status runDnnlMatmulAccumulate(const KernelCall &call, bool transA,
                               bool transB, int64_t m, int64_t n, int64_t k,
                               const float *a, int64_t lda, const float *b,
                               int64_t ldb, float *c, int64_t ldc);

/// True if bf16 matmuls run oneDNN's bf16 matmul: where its effective ISA
/// (DNNL_MAX_CPU_ISA may lower it) has AMX, or GPLACE_ONEDNN_BF16=native
/// says so (=f32: never). Not for AVX512_BF16 alone: oneDNN 2.6's bf16
/// matmul (brgemm, avx512_core_bf16) took 1.75x the time of its f32
/// matmul on the MLP's 256x1024x1024 products on this project's test
/// machine (bench/results/2026-11-29-mixed-precision-cpu.md), so bf16 is
/// computed in f32 there. Computed once.
bool dnnlNativeBf16();

/// runDnnlMatmul for bf16 matrices (their bits, as uint16_t): oneDNN's
/// bf16 matmul, which multiplies in bf16 and accumulates in f32 and rounds
/// C to bf16 (round to nearest even), as TensorFlow's oneDNN build runs a
/// bf16 MatMul. Only where dnnlNativeBf16(); elsewhere the host kernel
/// converts to f32 and back (bf16 as a storage format).
Status runDnnlMatmulBf16(const KernelCall &call, bool transA, bool transB,
                         int64_t m, int64_t n, int64_t k, const uint16_t *a,
                         int64_t lda, const uint16_t *b, int64_t ldb,
                         uint16_t *c, int64_t ldc, bool packB);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_DNNLKERNELS_H
