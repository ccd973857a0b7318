//===- DnnlKernels.cpp - window ops, batch norm, RNNs, matmul on oneDNN ---===//
//
// Each launch describes its tensors to oneDNN as they lie in memory (the
// activations NHWC or NCHW, the filter TensorFlow's HWIO, which oneDNN
// reads as [groups, out / groups, in / groups, height, width] with
// strides; a matmul's transposes as strides), lets oneDNN pick its fastest
// layout for the filter (a reorder before and, for the filter's gradient,
// after) and, for forward NCHW convolutions, for the activations (reorders
// in and out), and runs the primitive. Primitive descriptors and
// primitives are made once per kernel, shapes and parameters and shared by
// every launch (oneDNN primitives may run concurrently). A launch's
// scratchpad and its reordered filter and activations lie in its workspace
// from the static memory plan (KernelCall::workspace, sized by a measuring
// call: hostWorkspaceBytes); without one, in its thread's buffers (kept
// from launch to launch), so two streams never share one. A matmul launch
// keeps its primitive, and a constant B packed once, in its state
// (KernelCall::state); its scratchpad stays the thread's.
//
//===----------------------------------------------------------------------===//

#include "DnnlKernels.h"
#include "RecurrentShape.h"

#include "gplace/Runtime/Threads.h"
#include "gplace/Support/Shape.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <vector>
#include <unordered_map>

#include <unistd.h>
#ifdef GPLACE_HAVE_OPENMP
#include <omp.h>
#endif

namespace gplace::runtime {

namespace {

using dnnl::memory;
using Dims = memory::dims;

dnnl::engine &cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

/// An activation tensor's descriptor: logical dims [N, C, H, W] (oneDNN's
/// order), strides from the layout in memory.
memory::desc activation(const TensorType &type, bool channelsFirst) {
  const std::vector<int64_t> &s = type.shape;
  if (channelsFirst)
    return memory::desc({s[0], s[1], s[2], s[3]}, memory::data_type::f32,
                        Dims{s[1] * s[2] * s[3], s[2] * s[3], s[3], 1});
  int64_t n = s[0], h = s[1], w = s[2], c = s[3];
  return memory::desc({n, c, h, w}, memory::data_type::f32,
                      Dims{h * w * c, 1, w * c, c});
}

/// A TensorFlow filter [KH, KW, I / G, O] as oneDNN's [G, O / G, I / G, KH,
/// KW] (or [O, I, KH, KW] without groups), read in place.
memory::desc filter(const TensorType &type, int64_t groups) {
  const std::vector<int64_t> &s = type.shape;
  int64_t kh = s[0], kw = s[1], in = s[2], out = s[3];
  if (groups == 1)
    return memory::desc({out, in, kh, kw}, memory::data_type::f32,
                        Dims{1, out, kw * in * out, in * out});
  int64_t perGroup = out / groups;
  return memory::desc({groups, perGroup, in, kh, kw}, memory::data_type::f32,
                      Dims{perGroup, 1, out, kw * in * out, in * out});
}

/// An activation descriptor with one channel written as NCHW, the same
/// memory as NHWC: oneDNN runs its direct first-layer convolution (blocked
/// destination) only on a plain NCHW source, and takes a one-channel NHWC
/// source for a channels-last one (64x28x28x1 -> 8 channels, 3x3, batch 64:
/// 49 µs against 121 µs).
memory::desc oneChannelAsNchw(const memory::desc &desc) {
  memory::dims d = desc.dims();
  if (d.size() != 4 || d[1] != 1)
    return desc;
  return memory::desc(d, desc.data_type(), memory::format_tag::nchw);
}

/// `chosen` (a layout oneDNN picked) as a plain strided descriptor when it
/// is blocked on the channels alone with the whole channel count as the
/// block (nChw8c with 8 channels): the same memory as NHWC. Else `chosen`.
memory::desc asPlain(const memory::desc &chosen) {
  const dnnl_memory_desc_t &md = chosen.data;
  if (md.ndims != 4 || md.format_kind != dnnl_blocked)
    return chosen;
  const dnnl_blocking_desc_t &b = md.format_desc.blocking;
  if (b.inner_nblks != 1 || b.inner_idxs[0] != 1 ||
      b.inner_blks[0] != md.dims[1] || md.padded_dims[1] != md.dims[1])
    return chosen;
  return memory::desc(chosen.dims(), chosen.data_type(),
                      Dims{b.strides[0], 1, b.strides[2], b.strides[3]});
}

/// A descriptor with the same dims and oneDNN's choice of layout.
memory::desc anyLayout(const memory::desc &desc) {
  return memory::desc(desc.dims(), desc.data_type(), memory::format_tag::any);
}

/// A key naming a launch's primitive: kernel, shapes, window, transposes,
/// and the OpenMP team it is made for (the calling thread's team size:
/// oneDNN's JIT primitives take their thread count when made, so a launch
/// keeps one primitive per count it runs with; ScopedLaunchThreads).
std::string primitiveKey(const KernelCall &call) {
  std::ostringstream os;
  os << static_cast<int>(call.kernel);
  for (const std::vector<TensorRef> *refs : {&call.inputs, &call.outputs}) {
    os << '|';
    for (const TensorRef &ref : *refs) {
      for (int64_t d : ref.type->shape)
        os << d << 'x';
      os << ',';
    }
  }
  const KernelParams &p = *call.params;
  for (const std::vector<int64_t> *v :
       {&p.windowSize, &p.windowStrides, &p.windowDilations, &p.windowPads,
        &p.poolWindowSize, &p.poolWindowStrides, &p.poolWindowPads}) {
    os << '|';
    for (int64_t x : *v)
      os << x << ',';
  }
  os << (p.transposeA ? 'A' : '-') << (p.transposeB ? 'B' : '-');
  os << (p.channelsFirst ? 'C' : 'L') << (p.fusedRelu ? 'R' : '-')
     << (p.isTraining ? 'T' : '-') << (p.poolAverage ? 'V' : '-');
  os << 'r' << p.rnnKind << ',' << p.rnnDirection;
  // The primitive bakes epsilon in: the key holds its exact bits (the
  // stream's 6 digits made 1e-3 and 1.000004e-3 share a primitive).
  uint64_t epsilonBits = 0;
  static_assert(sizeof(p.epsilon) <= sizeof(epsilonBits));
  std::memcpy(&epsilonBits, &p.epsilon, sizeof(p.epsilon));
  os << 'e' << epsilonBits;
#ifdef GPLACE_HAVE_OPENMP
  os << 't' << omp_get_max_threads();
#endif
  return os.str();
}

/// A 4-D f32 layout blocked on the channels alone (or not blocked): the
/// element (n, c, h, w) lies at n * n_ + (c / block) * c_ + h * h_ + w *
/// w_ + c % block floats from the start (nChw8c, nChw16c, NHWC, NCHW;
/// NHWC is one block of all the channels).
struct ChannelBlocks {
  int64_t n_ = 0, c_ = 0, h_ = 0, w_ = 0, block = 1;
};

/// `desc` as ChannelBlocks, or std::nullopt for other layouts (blocked on
/// other dimensions, offset, not f32).
std::optional<ChannelBlocks> channelBlocks(const memory::desc &desc) {
  const dnnl_memory_desc_t &md = desc.data;
  if (md.ndims != 4 || md.format_kind != dnnl_blocked ||
      md.data_type != dnnl_f32 || md.offset0 != 0)
    return std::nullopt;
  const dnnl_blocking_desc_t &b = md.format_desc.blocking;
  ChannelBlocks l{b.strides[0], b.strides[1], b.strides[2], b.strides[3], 1};
  if (b.inner_nblks == 1 && b.inner_idxs[0] == 1)
    l.block = b.inner_blks[0];
  else if (b.inner_nblks != 0)
    return std::nullopt;
  if (l.block == 1 && l.c_ == 1) // NHWC: one block of every channel.
    l.block = md.dims[1];
  return l;
}

/// poolRows is compiled for AVX2 and for baseline x86-64, and the loader
/// picks the clone the machine runs (GCC's function multiversioning, as
/// Kernels.cpp's loops over whole tensors): AVX2 takes a block of 8
/// channels in one instruction. Both clones give the same bits (maxima,
/// and sums in one order without FMA).
#if defined(__x86_64__) && defined(__linux__) && !defined(__clang__) &&        \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define GPLACE_POOL_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef GPLACE_POOL_CLONES
#define GPLACE_POOL_CLONES
#endif

/// `n` floats as GCC's vectors (of 8, or of 1 for n = 1), which both
/// poolRows clones compile to whole-register operations. Aligned as a
/// float: a std::vector of them need not start at a 32-byte boundary
/// (vmovaps faulted on one that did not), so loads and stores are
/// unaligned ones.
template <int64_t n> struct Lanes {
  static constexpr int64_t width = n % 8 == 0 ? 8 : 1;
  static constexpr int64_t vectors = n / width;
  typedef float Vector
      __attribute__((vector_size(width * sizeof(float)), aligned(alignof(float))));
  Vector v[vectors];
};

/// How many of a window's taps [start, start + size) lie in [0, extent).
inline int64_t tapsInside(int64_t start, int64_t size, int64_t extent) {
  return std::max<int64_t>(
      std::min<int64_t>(start + size, extent) - std::max<int64_t>(start, 0),
      0);
}

/// Output row `row` (image * outHeight + output row) of a pool: its image
/// and the input rows [hBegin, hEnd) its windows read.
struct PoolRow {
  int64_t image, hBegin, hEnd;
};
inline PoolRow poolRow(int64_t row, int64_t outHeight, const Dims &kernel,
                       const Dims &strides, const Dims &padL, int64_t height) {
  int64_t h0 = (row % outHeight) * strides[0] - padL[0];
  return {row / outHeight, std::max<int64_t>(h0, 0),
          std::min<int64_t>(h0 + kernel[0], height)};
}

/// A pool's rows [begin, end) (row: image * OH + output row) of `in` ([N,
/// C, H, W] in layout `l`: fused_conv2d_pool's convolution result, or a
/// max_pool's or avg_pool's NHWC source) into `out` (NHWC [N, OH, OW, C]),
/// no dilation, `padL` the top and left pads: per output, the maximum of the
/// window's elements inside the input (the lowest float if none), as
/// oneDNN's pooling_max (`acc < x ? x : acc` from the lowest float: a NaN
/// is skipped), or (Average) their sum in window order over their count,
/// as pooling_avg_exclude_padding. Block: the channels taken at once, a
/// divisor of l.block known when compiled (8: vectorized), or 0 (a
/// channel at a time).
template <int Block, bool Average>
GPLACE_POOL_CLONES void
poolRows(const float *in, const ChannelBlocks &l, int64_t channels,
         int64_t height, int64_t width, int64_t outHeight, int64_t outWidth,
         const Dims &kernel, const Dims &strides, const Dims &padL,
         float *out, int64_t begin, int64_t end) {
  constexpr int64_t lanes = Block ? Block : 1;
  using L = Lanes<lanes>;
  using Vector = typename L::Vector;
  const int64_t block = l.block;
  const Vector init =
      (Average ? 0.0f : std::numeric_limits<float>::lowest()) - Vector{};
  // A row of outputs' accumulators (lanes channels each), filled a window
  // row and a window column at a time: for each (h, kw), the outputs whose
  // column kw lies inside the input (ow from firstOw[kw] to endOw[kw]), so
  // that the innermost loop runs over outputs.
  std::vector<L> acc(outWidth);
  std::vector<int64_t> firstOw(kernel[1]), endOw(kernel[1]);
  std::vector<float> columns(outWidth); // Each window's inside the input.
  for (int64_t kw = 0; kw < kernel[1]; ++kw) {
    // ow * stride - pad + kw in [0, width).
    int64_t lo = padL[1] - kw, hi = width - 1 + padL[1] - kw;
    firstOw[kw] = lo <= 0 ? 0 : (lo + strides[1] - 1) / strides[1];
    endOw[kw] = hi < 0 ? 0 : std::min<int64_t>(outWidth, hi / strides[1] + 1);
  }
  for (int64_t ow = 0; ow < outWidth; ++ow)
    columns[ow] = static_cast<float>(
        tapsInside(ow * strides[1] - padL[1], kernel[1], width));
  for (int64_t row = begin; row < end; ++row) {
    auto [n, hBegin, hEnd] =
        poolRow(row, outHeight, kernel, strides, padL, height);
    float rows = static_cast<float>(std::max<int64_t>(hEnd - hBegin, 0));
    const float *image = in + n * l.n_;
    float *o = out + row * outWidth * channels;
    for (int64_t c = 0; c < channels; c += lanes) {
      // lanes channels from c (in one block: lanes divides the block).
      const float *base = image + (c / block) * l.c_ + c % block;
      for (int64_t ow = 0; ow < outWidth; ++ow)
        for (int64_t v = 0; v < L::vectors; ++v)
          acc[ow].v[v] = init;
      for (int64_t h = hBegin; h < hEnd; ++h)
        for (int64_t kw = 0; kw < kernel[1]; ++kw) {
          const float *x = base + h * l.h_ + (kw - padL[1]) * l.w_;
          int64_t step = strides[1] * l.w_;
          for (int64_t ow = firstOw[kw]; ow < endOw[kw]; ++ow)
            for (int64_t v = 0; v < L::vectors; ++v) {
              Vector xv;
              std::memcpy(&xv, x + ow * step + v * L::width, sizeof(xv));
              Vector &a = acc[ow].v[v];
              a = Average ? a + xv : (a < xv ? xv : a);
            }
        }
      int64_t valid = std::min<int64_t>(lanes, channels - c);
      for (int64_t ow = 0; ow < outWidth; ++ow) {
        if (Average) {
          float count = rows * columns[ow];
          for (int64_t v = 0; v < L::vectors; ++v)
            acc[ow].v[v] = count != 0.0f ? acc[ow].v[v] / count : Vector{};
        }
        std::memcpy(o + ow * channels + c, acc[ow].v, valid * sizeof(float));
      }
    }
  }
}

/// poolRows for an NHWC `in` (channels contiguous, `l.w_` == `channels`)
/// and a column stride of 1, with the same results: output (ow, c) of a
/// row reads input column ow - padL + kw, channel c, so that for each
/// (h, kw) the outputs inside the input are one contiguous run of floats
/// of the input row and of the accumulators, whatever the channel count
/// (the loop poolRows<0> runs a channel at a time with a stride of
/// `channels`, or over a single element when the row has one column).
/// Same window order and arithmetic per output as poolRows.
template <bool Average>
GPLACE_POOL_CLONES void
poolRowsFlat(const float *in, const ChannelBlocks &l, int64_t channels,
             int64_t height, int64_t width, int64_t outHeight,
             int64_t outWidth, const Dims &kernel, const Dims &padL,
             const Dims &strides, float *out, int64_t begin, int64_t end) {
  const float init = Average ? 0.0f : std::numeric_limits<float>::lowest();
  const int64_t flat = outWidth * channels;
  std::vector<float> acc(flat), counts(outWidth);
  std::vector<int64_t> first(kernel[1]), last(kernel[1]);
  for (int64_t kw = 0; kw < kernel[1]; ++kw) {
    // ow - padL + kw in [0, width).
    first[kw] = std::clamp<int64_t>(padL[1] - kw, 0, outWidth) * channels;
    last[kw] = std::clamp<int64_t>(width + padL[1] - kw, 0, outWidth) *
               channels;
  }
  for (int64_t ow = 0; ow < outWidth; ++ow)
    counts[ow] =
        static_cast<float>(tapsInside(ow - padL[1], kernel[1], width));
  for (int64_t row = begin; row < end; ++row) {
    auto [n, hBegin, hEnd] =
        poolRow(row, outHeight, kernel, strides, padL, height);
    float rows = static_cast<float>(std::max<int64_t>(hEnd - hBegin, 0));
    float *a = acc.data();
    std::fill(a, a + flat, init);
    for (int64_t h = hBegin; h < hEnd; ++h)
      for (int64_t kw = 0; kw < kernel[1]; ++kw) {
        // x[j] is input column j / channels - padL + kw.
        const float *x = in + n * l.n_ + h * l.h_ + (kw - padL[1]) * channels;
        for (int64_t j = first[kw]; j < last[kw]; ++j)
          a[j] = Average ? a[j] + x[j] : (a[j] < x[j] ? x[j] : a[j]);
      }
    float *o = out + row * flat;
    if (Average) {
      for (int64_t ow = 0; ow < outWidth; ++ow) {
        float count = rows * counts[ow];
        for (int64_t c = 0; c < channels; ++c)
          o[ow * channels + c] =
              count != 0.0f ? a[ow * channels + c] / count : 0.0f;
      }
    } else {
      std::copy(a, a + flat, o);
    }
  }
}

/// poolRows over `rows` rows on the calling thread's OpenMP team (the
/// launch's, ScopedLaunchThreads), a contiguous range per thread; each
/// output is computed as on one thread.
void poolAllRows(const float *in, const ChannelBlocks &l, int64_t channels,
                 int64_t height, int64_t width, int64_t outHeight,
                 int64_t outWidth, const Dims &kernel, const Dims &strides,
                 const Dims &padL, bool average, float *out, int64_t rows) {
  // NHWC, whatever the channel count: poolRowsFlat where the column
  // stride is 1. Its contiguous runs beat poolRows' eight channels at a
  // time at 8k channels too (the same bits; 2-D pool steps of 3x3 over
  // 8x28x28x64: 302 -> 168 µs; 2x2 over 1x32x32x96, a 3-D pool's: 53 ->
  // 26 µs).
  bool flatNhwc = l.block == channels && l.c_ == 1 &&
                  l.w_ == channels;
  // A pool down a single column of such images ([N, H, 1, C], a 1-D pool
  // as ONNX's importer writes it) is the same pool along the single row of
  // [N, 1, H, C], the same memory: run as that, its outputs are one
  // contiguous run instead of rows of one output each.
  if (flatNhwc && width == 1 && outWidth == 1 && kernel[1] == 1 &&
      padL[1] == 0 && strides[0] == 1 && height > 1) {
    ChannelBlocks row = l;
    row.h_ = l.n_;
    poolAllRows(in, row, channels, 1, height, 1, outHeight,
                Dims{1, kernel[0]}, Dims{1, strides[0]}, Dims{0, padL[0]},
                average, out, rows / outHeight);
    return;
  }
  auto run = [&](int64_t begin, int64_t end) {
    if (flatNhwc && strides[1] == 1) {
      (average ? &poolRowsFlat<true> : &poolRowsFlat<false>)(
          in, l, channels, height, width, outHeight, outWidth, kernel, padL,
          strides, out, begin, end);
      return;
    }
    // Eight channels at a time wherever the block holds a multiple of
    // eight (nChw8c, nChw16c; NHWC of 8k channels only with a column
    // stride of 2 or more, the flat rows above taking stride 1): one
    // compiled loop, the one this machine's tests run, whatever layout
    // oneDNN picks.
    auto *rowsOf = l.block % 8 == 0 ? (average ? &poolRows<8, true>
                                               : &poolRows<8, false>)
                                    : (average ? &poolRows<0, true>
                                               : &poolRows<0, false>);
    rowsOf(in, l, channels, height, width, outHeight, outWidth, kernel,
           strides, padL, out, begin, end);
  };
#ifdef GPLACE_HAVE_OPENMP
  int threads = omp_in_parallel()
                    ? 1
                    : static_cast<int>(std::min<int64_t>(
                          std::max(1, omp_get_max_threads()), rows));
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    {
      // Each worker flushes denormals as the calling thread does
      // (runHostKernel), as Kernels.cpp's parallelFor does.
      ScopedFlushDenormal flush;
      int64_t team = omp_get_num_threads();
      int64_t chunk = (rows + team - 1) / team;
      int64_t begin = std::min(rows, omp_get_thread_num() * chunk);
      int64_t end = std::min(rows, begin + chunk);
      if (begin < end)
        run(begin, end);
    }
    return;
  }
#endif
  run(0, rows);
}

/// A primitive and the layouts it was made for.
struct Entry {
  dnnl::primitive primitive;
  memory::desc weights;   ///< The layout the primitive reads or writes.
  /// Convolutions whose filter layout is not TensorFlow's: the reorder
  /// into the primitive's layout (or, for the filter's gradient, back).
  dnnl::primitive reorder;
  memory::desc scratch;
  dnnl::primitive forward; ///< max_pool_grad: the forward pooling.
  memory::desc workspace, forwardScratch, forwardDst;
  /// Forward convolutions: the activations' layouts the primitive runs on
  /// (oneDNN's choice for NCHW tensors, blocked as nChw16c or NHWC; a
  /// first layer's NCHW source and nChw8c/nChw16c destination), and the
  /// reorders into and out of them where they are not the tensors' own
  /// memory.
  memory::desc src, dst;
  /// Whether src and dst are the tensors' own memory (no reorder).
  bool srcInPlace = true, dstInPlace = true;
  dnnl::primitive srcReorder, dstReorder;
  /// fused_conv2d_pool: the pooling of the convolution's result (in the
  /// layout the convolution wrote, dst), its result's layout and
  /// scratchpad, and the reorder of that result into NHWC (unless it is
  /// NHWC's memory: pooledInPlace).
  dnnl::primitive pool, pooledReorder;
  memory::desc pooled, poolScratch;
  bool pooledInPlace = true;
  /// fused_conv2d_pool whose convolution writes a layout blocked on the
  /// channels alone (dst; ChannelBlocks): pooled by poolAllRows straight
  /// into the NHWC result instead (no pool primitive, no reorder).
  std::optional<ChannelBlocks> ownPool;
  /// An argument a primitive runs on in another layout than the tensor's
  /// own (a primitive made on oneDNN's choice of layouts, cachedEntry):
  /// the layout, and the reorder into it (an input) or out of it (an
  /// output, after the primitive).
  struct Moved {
    int arg; ///< DNNL_ARG_*.
    memory::desc run;
    dnnl::primitive reorder;
    bool output;
  };
  /// The primitive's moved arguments (the forward of max_pool_grad runs
  /// on the tensors' own layouts).
  std::vector<Moved> moved;
};

/// Whether `primitive` runs one of oneDNN's reference implementations (its
/// implementation's name, as ONEDNN_VERBOSE shows it, starts with "ref").
bool isReference(const dnnl::primitive &primitive) {
  const char *impl = nullptr;
  if (!primitive ||
      dnnl_primitive_desc_query(primitive.get_primitive_desc(),
                                dnnl_query_impl_info_str, 0,
                                &impl) != dnnl_success ||
      !impl)
    return false;
  return std::string_view(impl).rfind("ref", 0) == 0;
}

/// Whether to make every primitive a second time on oneDNN's choice of
/// layouts, as if its first were a reference implementation, and take the
/// second unless it is one: GPLACE_DNNL_RETRY_LAYOUTS=1 (the tests use it
/// to run the reorders of moved arguments, which no primitive of this
/// CPU's needs).
bool retryEveryLayout() {
  static bool retry = [] {
    const char *env = std::getenv("GPLACE_DNNL_RETRY_LAYOUTS");
    return env && std::strcmp(env, "1") == 0;
  }();
  return retry;
}

/// The entry of `call`'s primitive (of its `variant`, for kernels with
/// several) in the executor's kernel cache, made the first time; without a
/// cache, made anew. make(entry, anyLayouts) makes it on the tensors' own
/// layouts (anyLayouts false) or on those oneDNN chooses (true: the
/// arguments that differ recorded in Entry::moved, as moveArgs does);
/// where the first is one of oneDNN's reference implementations (on AVX2,
/// a convolution of NHWC tensors with 8 input channels: 230 ms against 0.1
/// ms blocked) and the second is not, the entry is the second. A make
/// taking the entry alone has no other layouts to offer (oneDNN 2.6's
/// batch normalization takes no `any` data layout; a matmul's strided
/// operands run on its GEMM). Recurrent layers keep their own cache
/// (RnnEntry): oneDNN 2.6's CPU RNNs have one implementation, named "ref".
template <typename Make>
StatusOr<std::shared_ptr<Entry>> cachedEntry(const KernelCall &call,
                                             Make &&make,
                                             std::string_view variant = {}) {
  auto build = [&]() -> StatusOr<std::shared_ptr<void>> {
    auto entry = std::make_shared<Entry>();
    if constexpr (std::is_invocable_v<Make &, Entry &, bool>) {
      GPLACE_RETURN_IF_ERROR(make(*entry, /*anyLayouts=*/false));
      if (retryEveryLayout() || isReference(entry->primitive)) {
        auto retry = std::make_shared<Entry>();
        bool better = false;
        try {
          better = make(*retry, /*anyLayouts=*/true).ok() &&
                   !isReference(retry->primitive);
        } catch (const dnnl::error &) {
          // oneDNN implements nothing on those layouts: keep the first.
        }
        if (better)
          entry = std::move(retry);
      }
    } else {
      GPLACE_RETURN_IF_ERROR(make(*entry));
    }
    return std::shared_ptr<void>(std::move(entry));
  };
  StatusOr<std::shared_ptr<void>> found =
      call.cache ? call.cache->getOrMake(
                       "dnnl|" + primitiveKey(call) + std::string(variant), build)
                 : build();
  if (!found)
    return found.status();
  return std::static_pointer_cast<Entry>(*found);
}
template <typename Make>
StatusOr<std::shared_ptr<Entry>>
cachedEntry(const KernelCall &call, std::string_view variant, Make &&make) {
  return cachedEntry(call, std::forward<Make>(make), variant);
}

dnnl::primitive_attr userScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

/// ReLU as a post-op: clip to [0, max] is max(x, 0) with +0 for
/// negatives, as Relu; eltwise_relu gives x * 0 = -0.
dnnl::post_ops reluPostOp() {
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f,
                     std::numeric_limits<float>::max());
  return ops;
}

/// fused_conv2d_pool's tile: the most bytes of convolution result one
/// tile of the batch makes: the L2 caches of the cores oneDNN's threads
/// run on (a core's L2 from sysconf, 1 MiB if it does not say, times the
/// OpenMP threads). The seeds' conv_net's first layer at batch 128 on 2
/// cores with 2 MiB each: 0.64 ms a run with 4 MiB tiles, 0.69 with 2,
/// 0.73 with 8, 0.80 untiled, 0.92-1.03 as two kernels.
/// GPLACE_POOL_TILE_KIB sets it (KiB; the tests use it to make tiles).
int64_t poolTileBytes() {
  static int64_t bytes = [] {
    if (const char *env = std::getenv("GPLACE_POOL_TILE_KIB"))
      return std::max<int64_t>(0, std::atoll(env)) * 1024;
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    int64_t threads = 1;
#ifdef GPLACE_HAVE_OPENMP
    threads = std::max(1, omp_get_max_threads());
#endif
    return (l2 > 0 ? int64_t(l2) : int64_t(1) << 20) * threads;
  }();
  return bytes;
}

/// Whether forward poolings (max_pool and avg_pool in NHWC, and
/// fused_conv2d_pool's pool) run oneDNN's pooling primitive even where
/// poolAllRows reads their source's layout: GPLACE_POOL_KERNEL=dnnl (the
/// tests use it to check both). The default, poolAllRows, is 4-9x faster
/// on this project's AVX2 machines: oneDNN 2.6's JIT pooling kernel mixes
/// a legacy-SSE movq into its AVX loop, which costs about 0.3 µs each on
/// CPUs (or hypervisors) that penalize the transition.
bool poolOnDnnl() {
  static bool dnnl = [] {
    const char *env = std::getenv("GPLACE_POOL_KERNEL");
    return env && std::strcmp(env, "dnnl") == 0;
  }();
  return dnnl;
}

/// The fewest input channels for which a forward convolution with a
/// constant filter may run Winograd's algorithm (see its use): 16, or 1
/// with GPLACE_ENABLE_WINOGRAD=all (wherever oneDNN's heuristic picks it,
/// for bench/winograd.py), none (INT64_MAX) with GPLACE_ENABLE_WINOGRAD=0
/// (TensorFlow's TF_ENABLE_WINOGRAD_NONFUSED for cuDNN).
int64_t winogradMinChannels() {
  static int64_t channels = [] {
    const char *env = std::getenv("GPLACE_ENABLE_WINOGRAD");
    if (env && std::strcmp(env, "0") == 0)
      return std::numeric_limits<int64_t>::max();
    if (env && std::strcmp(env, "all") == 0)
      return int64_t{1};
    return int64_t{16};
  }();
  return channels;
}

/// oneDNN's error as a Status naming the kernel.
Status dnnlError(const KernelCall &call, const dnnl::error &e) {
  std::string message = "oneDNN failed to run gplace." +
                        std::string(kernelMnemonic(call.kernel)) + ": " +
                        e.what();
  if (e.status == dnnl_out_of_memory)
    return Status::outOfMemory(message);
  return Status::internal(message);
}

/// The window's geometry as oneDNN takes it (dilations count the gaps).
struct Window {
  Dims kernel, strides, dilations, padL, padR;
  explicit Window(const KernelParams &p)
      : kernel{p.windowSize[0], p.windowSize[1]},
        strides{p.windowStrides[0], p.windowStrides[1]},
        dilations{p.windowDilations[0] - 1, p.windowDilations[1] - 1},
        padL{p.windowPads[0], p.windowPads[2]},
        padR{p.windowPads[1], p.windowPads[3]} {}
  /// fused_conv2d_pool's pool (no dilation).
  static Window pool(const KernelParams &p) {
    Window w(p);
    w.kernel = {p.poolWindowSize[0], p.poolWindowSize[1]};
    w.strides = {p.poolWindowStrides[0], p.poolWindowStrides[1]};
    w.dilations = {0, 0};
    w.padL = {p.poolWindowPads[0], p.poolWindowPads[2]};
    w.padR = {p.poolWindowPads[1], p.poolWindowPads[3]};
    return w;
  }
  /// The size of the result along spatial dimension `i` (0: height) for
  /// an input of `in` (the window fits: the op was verified).
  int64_t outputSize(int i, int64_t in) const {
    WindowDim dim{kernel[i], strides[i], dilations[i] + 1, padL[i], padR[i]};
    return windowOutputSize(dim, in).value_or(0);
  }
};

bool isEmpty(const TensorRef &ref) { return ref.type->numElements() == 0; }

/// What the verified graph op guarantees and a hand-written plan may not
/// (a launch's parameters are checked for their kinds only): 4-D tensors,
/// window arrays of 2 (pads 4) values within oneDNN's int range, and for a
/// convolution input channels that are a multiple of the filter's. Errors
/// (invalid argument) name the kernel.
Status checkWindowCall(const KernelCall &call, bool convolution) {
  auto fail = [&](const std::string &why) {
    return Status::invalidArgument(
        "gplace." + std::string(kernelMnemonic(call.kernel)) + ": " + why);
  };
  // The activations, filters and gradients (a fused convolution's bias or
  // batch norm operands after them are vectors).
  size_t numInputs = convolution || call.kernel == Kernel::MaxPoolGrad
                         ? (call.kernel == Kernel::MaxPoolGrad ? 3 : 2)
                         : 1;
  if (call.inputs.size() < numInputs || call.outputs.empty())
    return fail("expects " + std::to_string(numInputs) +
                " inputs and a result");
  for (size_t i = 0; i <= numInputs; ++i) {
    const TensorRef &ref = i < numInputs ? call.inputs[i] : call.outputs[0];
    if (ref.type->shape.size() != 4)
      return fail("expects 4-D tensors, got " + ref.type->str());
  }
  const KernelParams &p = *call.params;
  struct Array {
    const char *name;
    const std::vector<int64_t> &values;
    size_t size;
  };
  std::vector<Array> arrays = {{"window_size", p.windowSize, 2},
                               {"window_strides", p.windowStrides, 2},
                               {"window_pads", p.windowPads, 4}};
  if (convolution)
    arrays.push_back({"window_dilations", p.windowDilations, 2});
  if (call.kernel == Kernel::FusedConv2DPool) {
    arrays.push_back({"pool_window_size", p.poolWindowSize, 2});
    arrays.push_back({"pool_window_strides", p.poolWindowStrides, 2});
    arrays.push_back({"pool_window_pads", p.poolWindowPads, 4});
  }
  for (const Array &array : arrays) {
    if (array.values.size() != array.size)
      return fail(std::string(array.name) + " has " +
                  std::to_string(array.values.size()) + " values, not " +
                  std::to_string(array.size));
    for (int64_t value : array.values)
      if (value < 0 || value > std::numeric_limits<int32_t>::max())
        return fail(std::string(array.name) + " value " +
                    std::to_string(value) +
                    " is outside 0 to 2^31 - 1 (oneDNN's range)");
  }
  return Status::ok();
}

/// What a launch's temporary buffers hold.
enum Slot {
  Scratch,
  Weights,
  Workspace,
  ForwardScratch,
  ForwardDst,
  Src,
  Dst,
  Pooled,
  // cudnn_rnn and its gradient.
  RnnLayer,
  RnnIter,
  RnnBias,
  RnnDst,
  RnnDstH,
  RnnDstC,
  RnnBackwardLayer,
  RnnBackwardIter,
  RnnDiffLayer,
  RnnDiffIter,
  RnnDiffBias,
  // Arguments a primitive runs on in other layouts (Entry::moved).
  Moved0,
  Moved1,
  Moved2,
  Moved3,
  Slots
};

/// A buffer of at least `desc`'s size for the launch running on this
/// thread, in `slot`. A thread runs one launch at a time, so launches on
/// other streams (threads) never share it; keeping it from launch to launch
/// spares a fresh allocation, and the page faults of touching it, each
/// time.
uint8_t *scratchFor(const memory::desc &desc, Slot slot) {
  thread_local std::vector<uint8_t> buffers[Slots];
  std::vector<uint8_t> &buffer = buffers[slot];
  size_t bytes = desc.get_size();
  if (buffer.size() < bytes)
    buffer.resize(bytes);
  return bytes ? buffer.data() : nullptr;
}

/// A launch's temporary buffers, taken in order, each rounded up to 64
/// bytes: from the launch's workspace in the static memory plan
/// (KernelCall::workspace) while it lasts, else the thread's (scratchFor);
/// in a measuring call (KernelCall::measuredWorkspace) none: the bytes
/// taken are counted there, and the kernel returns before it runs anything
/// (measuring() tells it when).
class Scratchpad {
public:
  explicit Scratchpad(const KernelCall &call) : call_(call) {
    if (measuring())
      *call.measuredWorkspace = 0;
  }
  bool measuring() const { return call_.measuredWorkspace != nullptr; }
  uint8_t *take(const memory::desc &desc, Slot slot) {
    size_t bytes = desc.get_size();
    if (bytes == 0)
      return nullptr;
    int64_t offset = used_;
    used_ += (static_cast<int64_t>(bytes) + 63) / 64 * 64;
    if (measuring()) {
      *call_.measuredWorkspace = used_;
      return nullptr;
    }
    if (call_.workspace && used_ <= call_.workspaceBytes)
      return static_cast<uint8_t *>(call_.workspace) + offset;
    return scratchFor(desc, slot);
  }

private:
  const KernelCall &call_;
  int64_t used_ = 0;
};

/// A primitive's argument in the tensor's own layout; `output` if the
/// primitive writes it.
struct OwnArg {
  int arg; ///< DNNL_ARG_*.
  memory::desc own;
  bool output;
};

/// Records in `moved` those of `args` that `pd` runs on in other layouts
/// than their own, with the reorders into (inputs) or out of (outputs)
/// them.
void moveArgs(std::vector<Entry::Moved> &moved,
              const dnnl::primitive_desc_base &pd,
              std::initializer_list<OwnArg> args) {
  for (const OwnArg &a : args) {
    memory::desc run = pd.query_md(dnnl::query::exec_arg_md, a.arg);
    if (run == a.own)
      continue;
    const memory::desc &from = a.output ? run : a.own;
    const memory::desc &to = a.output ? a.own : run;
    moved.push_back({a.arg, run,
                     dnnl::reorder(dnnl::reorder::primitive_desc(
                         cpuEngine(), from, cpuEngine(), to)),
                     a.output});
  }
}

/// The launch's buffers for `moved` arguments (slots Moved0 to Moved3: a
/// primitive moves at most four).
std::vector<memory> movedBuffers(const std::vector<Entry::Moved> &moved,
                                 Scratchpad &pad) {
  std::vector<memory> buffers;
  for (size_t i = 0; i < moved.size(); ++i)
    buffers.emplace_back(moved[i].run, cpuEngine(),
                         pad.take(moved[i].run, static_cast<Slot>(Moved0 + i)));
  return buffers;
}

/// Runs `primitive` on `args`, the tensors' own memory, except that the
/// `moved` ones run in `buffers` (movedBuffers): inputs reordered into
/// them before, outputs out of them after.
void executeMoved(dnnl::stream &stream, const dnnl::primitive &primitive,
                  const std::vector<Entry::Moved> &moved,
                  const std::vector<memory> &buffers,
                  std::unordered_map<int, memory> args) {
  std::vector<memory> own(moved.size());
  for (size_t i = 0; i < moved.size(); ++i) {
    own[i] = args.at(moved[i].arg);
    if (!moved[i].output)
      moved[i].reorder.execute(
          stream, {{DNNL_ARG_FROM, own[i]}, {DNNL_ARG_TO, buffers[i]}});
    args[moved[i].arg] = buffers[i];
  }
  primitive.execute(stream, args);
  for (size_t i = 0; i < moved.size(); ++i)
    if (moved[i].output)
      moved[i].reorder.execute(
          stream, {{DNNL_ARG_FROM, buffers[i]}, {DNNL_ARG_TO, own[i]}});
}

/// A forward convolution's descriptor, with `bias` where it is not null.
dnnl::convolution_forward::desc
forwardDesc(dnnl::prop_kind prop, dnnl::algorithm algorithm,
            const memory::desc &src, const memory::desc &weights,
            const memory::desc *bias, const memory::desc &dst,
            const Window &w) {
  if (bias)
    return dnnl::convolution_forward::desc(prop, algorithm, src, weights, *bias,
                                           dst, w.strides, w.dilations, w.padL,
                                           w.padR);
  return dnnl::convolution_forward::desc(prop, algorithm, src, weights, dst,
                                         w.strides, w.dilations, w.padL,
                                         w.padR);
}

/// What a forward convolution launch with a constant filter keeps
/// (KernelCall::state): the filter in the primitive's layout, reordered on
/// the launch's first run.
struct ConvState : KernelState {
  memory packed;
};

/// What a convolution kernel computes.
enum class Role { Forward, BackwardData, BackwardWeights };
Role role(Kernel kernel) {
  switch (kernel) {
  case Kernel::Conv2DBackpropInput:
  case Kernel::DepthwiseConv2dNativeBackpropInput:
    return Role::BackwardData;
  case Kernel::Conv2DBackpropFilter:
  case Kernel::DepthwiseConv2dNativeBackpropFilter:
    return Role::BackwardWeights;
  default:
    return Role::Forward;
  }
}

} // namespace

Status runDnnlConvolution(const KernelCall &call) {
  GPLACE_RETURN_IF_ERROR(checkWindowCall(call, /*convolution=*/true));
  Scratchpad pad(call);
  for (const TensorRef &out : call.outputs)
    if (isEmpty(out))
      return Status::ok();
  for (const TensorRef &in : call.inputs)
    if (isEmpty(in)) {
      if (pad.measuring())
        return Status::ok();
      // Nothing flows in: the gradients are zero. (A forward convolution
      // with an empty input has an empty result: the verifiers reject an
      // input without channels.)
      std::memset(call.outputs[0].data, 0, call.outputs[0].type->bytes());
      return Status::ok();
    }
  const KernelParams &p = *call.params;
  bool first = p.channelsFirst;
  // The tensors by role, whichever the kernel computes.
  const TensorRef *src, *weights, *dst;
  switch (call.kernel) {
  case Kernel::Conv2D:
  case Kernel::FusedConv2D:
  case Kernel::FusedConv2DPool:
  case Kernel::DepthwiseConv2dNative:
    src = &call.inputs[0], weights = &call.inputs[1], dst = &call.outputs[0];
    break;
  case Kernel::Conv2DBackpropInput:
  case Kernel::DepthwiseConv2dNativeBackpropInput:
    weights = &call.inputs[0], dst = &call.inputs[1], src = &call.outputs[0];
    break;
  case Kernel::Conv2DBackpropFilter:
  case Kernel::DepthwiseConv2dNativeBackpropFilter:
    src = &call.inputs[0], dst = &call.inputs[1], weights = &call.outputs[0];
    break;
  default:
    return Status::internal("not a convolution kernel");
  }
  int64_t channels = src->type->shape[first ? 1 : 3];
  // A depthwise filter [KH, KW, C, M] lies in memory as the grouped
  // filter [KH, KW, 1, C * M] of C groups: result channel c * M + m.
  TensorType grouped = *weights->type;
  if (isDepthwiseKernel(call.kernel))
    grouped.shape = {grouped.shape[0], grouped.shape[1], 1,
                     grouped.shape[2] * grouped.shape[3]};
  if (grouped.shape[2] <= 0 || channels % grouped.shape[2] != 0 ||
      grouped.shape[3] % (channels / grouped.shape[2]) != 0)
    return Status::invalidArgument(
        "gplace." + std::string(kernelMnemonic(call.kernel)) + ": " +
        std::to_string(channels) + " input channels and a filter of " +
        grouped.str() +
        " (the input's channels must be a multiple of the filter's, and "
        "the groups must divide the output channels)");
  int64_t groups = channels / grouped.shape[2];
  Window w(p);
  // fused_conv2d_pool: the convolution's result, before the pool, is a
  // buffer of this launch (NHWC; dst is then the pooled result).
  bool pooled = call.kernel == Kernel::FusedConv2DPool;
  // It runs on tiles of the batch whose convolution result stays in the
  // cores' L2 caches for the pool to read (tileImages images each, the
  // largest divisor of the batch whose result fits kPoolTileBytes):
  // src, dst and pooledDst describe one tile.
  TensorType convType, srcTile, pooledTile;
  TensorRef convDst, srcTileRef, pooledTileRef;
  const TensorRef *pooledDst = dst;
  int64_t tileImages = 1, tiles = 1;
  if (pooled) {
    int64_t batch = src->type->shape[0];
    convType = *src->type;
    convType.shape = {1, w.outputSize(0, src->type->shape[1]),
                      w.outputSize(1, src->type->shape[2]), grouped.shape[3]};
    int64_t imageBytes = convType.bytes();
    for (int64_t t = 1; t <= batch; ++t)
      if (batch % t == 0 && t * imageBytes <= poolTileBytes())
        tileImages = t;
    tiles = batch / tileImages;
    convType.shape[0] = tileImages;
    srcTile = *src->type;
    srcTile.shape[0] = tileImages;
    pooledTile = *dst->type;
    pooledTile.shape[0] = tileImages;
    srcTileRef = {src->data, &srcTile, src->constant};
    pooledTileRef = {dst->data, &pooledTile, false};
    convDst.type = &convType;
    src = &srcTileRef;
    pooledDst = &pooledTileRef;
    dst = &convDst;
  }
  memory::desc srcMd = activation(*src->type, first);
  memory::desc dstMd = activation(*dst->type, first);
  memory::desc userWeights = filter(grouped, groups);
  bool fused = call.kernel == Kernel::FusedConv2D || pooled;
  // fused_conv2d's bias: one value per output channel.
  memory::desc biasMd({dst->type->shape[first ? 1 : 3]},
                      memory::data_type::f32, memory::format_tag::a);
  bool forwardRole = role(call.kernel) == Role::Forward;
  // A forward convolution with a constant filter (an inference graph's
  // weights) keeps the filter in the primitive's layout in its state,
  // reordered once, as ONNX Runtime pre-packs constant weights; only then
  // is Winograd worth its filter transform (0.3 ms a run for the seeds'
  // conv_net's 3x3x32x64 filter).
  bool packFilter = forwardRole && call.state && weights->constant;
  auto *state =
      call.state ? static_cast<ConvState *>(call.state->get()) : nullptr;
  // oneDNN 2.6's convolution_auto also picks Winograd for few input
  // channels, where its tile transforms cost more than the products save
  // (on AVX-512, 3x3 at batch 64: 1 -> 8 channels on 28x28 6.6x the
  // direct kernel's time, 8 -> 16 on 14x14 2.2x, 3 -> 64 on 56x56 2.2x);
  // from 16 input channels up it wins or is within 20%
  // (bench/winograd.py, bench/results/2026-12-03-winograd.md).
  bool tryWinograd = packFilter && groups == 1 &&
                     channels >= winogradMinChannels() &&
                     w.kernel == Dims{3, 3} && w.strides == Dims{1, 1} &&
                     w.dilations == Dims{0, 0};
  std::string_view variant = tryWinograd ? "winograd" : "";
  // The launch's team, by its multiply-adds (one tile's, for
  // fused_conv2d_pool), set before its primitive is made.
  ScopedLaunchThreads team(dst->type->numElements() * grouped.shape[0] *
                           grouped.shape[1] * grouped.shape[2]);
  try {
    auto make = [&](Entry &e, bool anyLayouts) -> Status {
      // A forward convolution to run (inference) or to guide the backward
      // ones (training). Run on channels-first tensors, it reads and writes
      // the layouts oneDNN chooses (blocked: its direct JIT kernels), with
      // a reorder in and out: in plain NCHW oneDNN 2.6 has only im2col +
      // GEMM (the ONNX CNN's two convolutions, batch 64: 223 and 474 µs in
      // NCHW, 181 and 141 µs blocked, reorders included).
      // Channels-last forward convolutions read and write the tensors as
      // they lie, except a first layer (one input channel) with 8 or 16
      // output channels: its source as NCHW and its destination as nChw8c
      // or nChw16c (the same memory) let oneDNN run its direct first-layer
      // kernel (64x28x28x1, 3x3, batch 64: 16 channels 64 µs against 192
      // µs; 8 channels 93 µs against 115 µs; writing nChw16c and
      // reordering into nChw8c was slower within the whole CNN).
      int64_t outChannels = dstMd.dims()[1];
      bool firstLayer = forwardRole && srcMd.dims()[1] == 1;
      memory::desc srcRun = srcMd, dstRun = dstMd;
      if (anyLayouts) {
        // oneDNN's choice of layouts for the activations (cachedEntry's
        // second try, where the first is oneDNN's reference convolution),
        // with reorders in and out, as for channels-first tensors.
        srcRun = anyLayout(srcMd);
        dstRun = anyLayout(dstMd);
      } else if (first && forwardRole) {
        srcRun = firstLayer ? oneChannelAsNchw(srcMd) : anyLayout(srcMd);
        dstRun = anyLayout(dstMd);
      } else if (pooled) {
        // The convolution's result is the pool's alone: oneDNN's choice of
        // layout (a first layer writes nChw16c, or nChw8c, from its source
        // read as NCHW: oneDNN's direct first-layer kernel).
        if (firstLayer)
          srcRun = oneChannelAsNchw(srcMd);
        dstRun = firstLayer && outChannels % 16 == 0
                     ? memory::desc(dstMd.dims(), memory::data_type::f32,
                                    memory::format_tag::aBcd16b)
                 : firstLayer && outChannels % 8 == 0
                     ? memory::desc(dstMd.dims(), memory::data_type::f32,
                                    memory::format_tag::aBcd8b)
                     : anyLayout(dstMd);
      } else if (firstLayer && (outChannels == 8 || outChannels == 16)) {
        srcRun = oneChannelAsNchw(srcMd);
        dstRun = memory::desc(dstMd.dims(), memory::data_type::f32,
                              outChannels == 8 ? memory::format_tag::aBcd8b
                                               : memory::format_tag::aBcd16b);
      }
      // Winograd F(4x4, 3x3) where oneDNN implements it (3x3 windows,
      // stride 1, no dilation or groups, f32, AVX-512; nChw16c
      // activations, reordered in and out here) and its own heuristic
      // (convolution_auto) prefers it to the direct algorithm, as cuDNN's
      // heuristics pick Winograd on GPUs: the seeds' conv_net's second
      // convolution (128x12x12x32, 64 filters) 1.0 ms against 1.5 ms
      // direct, the reorders 0.1 ms; a batch of one 56x56x64 image stays
      // direct.
      std::optional<dnnl::convolution_forward::primitive_desc> winograd;
      if (tryWinograd && !anyLayouts) {
        dnnl::primitive_attr attr = userScratchpad();
        if (p.fusedRelu) {
          // The Winograd kernels take relu (not clip) as their post-op;
          // theirs gives +0 for negatives (fused-convolution-pool.mlir).
          dnnl::post_ops ops;
          ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
          attr.set_post_ops(ops);
        }
        memory::desc srcBlocked(srcMd.dims(), memory::data_type::f32,
                                memory::format_tag::aBcd16b);
        memory::desc dstBlocked(dstMd.dims(), memory::data_type::f32,
                                memory::format_tag::aBcd16b);
        try {
          winograd.emplace(forwardDesc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_auto,
                                       srcBlocked, anyLayout(userWeights),
                                       fused ? &biasMd : nullptr, dstBlocked,
                                       w),
                           attr, cpuEngine());
          if (std::string_view(winograd->impl_info_str()).find("wino") ==
              std::string_view::npos)
            winograd.reset(); // oneDNN prefers the direct algorithm.
        } catch (const dnnl::error &) {
          winograd.reset(); // Not implemented here: the direct algorithm.
        }
      }
      auto forward = forwardDesc(
          forwardRole ? dnnl::prop_kind::forward_inference
                      : dnnl::prop_kind::forward_training,
          dnnl::algorithm::convolution_direct, srcRun, anyLayout(userWeights),
          fused ? &biasMd : nullptr, dstRun, w);
      dnnl::primitive_attr attr = userScratchpad();
      dnnl::primitive_attr forwardAttr = userScratchpad();
      if (p.fusedRelu)
        forwardAttr.set_post_ops(reluPostOp());
      dnnl::convolution_forward::primitive_desc forwardPd =
          winograd ? *winograd
                   : dnnl::convolution_forward::primitive_desc(
                         forward, forwardAttr, cpuEngine());
      if (role(call.kernel) == Role::Forward) {
        e.primitive = dnnl::convolution_forward(forwardPd);
        e.weights = forwardPd.weights_desc();
        e.scratch = forwardPd.scratchpad_desc();
        // The layouts the primitive runs on: the tensors' own memory
        // (e.srcInPlace, e.dstInPlace: under the primitive's descriptor)
        // where it is the same memory, else a reorder.
        e.src = forwardPd.src_desc();
        e.dst = forwardPd.dst_desc();
        e.srcInPlace =
            (!winograd && e.src == srcRun) || asPlain(e.src) == srcMd;
        e.dstInPlace = !pooled && asPlain(e.dst) == dstMd;
        if (!e.srcInPlace)
          e.srcReorder = dnnl::reorder(dnnl::reorder::primitive_desc(
              cpuEngine(), srcMd, cpuEngine(), e.src));
        if (!e.dstInPlace && !pooled)
          e.dstReorder = dnnl::reorder(dnnl::reorder::primitive_desc(
              cpuEngine(), e.dst, cpuEngine(), dstMd));
        if (pooled && !poolOnDnnl())
          e.ownPool = channelBlocks(e.dst);
        if (pooled && !e.ownPool) {
          // The pool, on the layout the convolution wrote; its result in
          // the layout oneDNN's pooling keeps (the same).
          memory::desc out = activation(*pooledDst->type, false);
          Window pw = Window::pool(p);
          dnnl::pooling_v2_forward::primitive_desc poolPd(
              dnnl::pooling_v2_forward::desc(
                  dnnl::prop_kind::forward_inference,
                  p.poolAverage ? dnnl::algorithm::pooling_avg_exclude_padding
                                : dnnl::algorithm::pooling_max,
                  e.dst, anyLayout(out), pw.strides, pw.kernel, pw.dilations,
                  pw.padL, pw.padR),
              userScratchpad(), cpuEngine());
          e.pool = dnnl::pooling_v2_forward(poolPd);
          e.pooled = poolPd.dst_desc();
          e.poolScratch = poolPd.scratchpad_desc();
          e.pooledInPlace = asPlain(e.pooled) == out;
          if (!e.pooledInPlace)
            e.pooledReorder = dnnl::reorder(dnnl::reorder::primitive_desc(
                cpuEngine(), e.pooled, cpuEngine(), out));
        }
      } else if (role(call.kernel) == Role::BackwardData) {
        dnnl::convolution_backward_data::desc desc(
            dnnl::algorithm::convolution_direct, srcRun,
            anyLayout(userWeights), dstRun, w.strides, w.dilations, w.padL,
            w.padR);
        dnnl::convolution_backward_data::primitive_desc pd(desc, attr,
                                                           cpuEngine(),
                                                           forwardPd);
        e.primitive = dnnl::convolution_backward_data(pd);
        e.weights = pd.weights_desc();
        e.scratch = pd.scratchpad_desc();
        if (anyLayouts)
          moveArgs(e.moved, pd,
                   {{DNNL_ARG_DIFF_SRC, srcMd, true},
                    {DNNL_ARG_DIFF_DST, dstMd, false}});
      } else {
        dnnl::convolution_backward_weights::desc desc(
            dnnl::algorithm::convolution_direct, srcRun,
            anyLayout(userWeights), dstRun, w.strides, w.dilations, w.padL,
            w.padR);
        dnnl::convolution_backward_weights::primitive_desc pd(
            desc, attr, cpuEngine(), forwardPd);
        e.primitive = dnnl::convolution_backward_weights(pd);
        e.weights = pd.diff_weights_desc();
        e.scratch = pd.scratchpad_desc();
        if (anyLayouts)
          moveArgs(e.moved, pd,
                   {{DNNL_ARG_SRC, srcMd, false},
                    {DNNL_ARG_DIFF_DST, dstMd, false}});
      }
      if (e.weights != userWeights)
        e.reorder = role(call.kernel) == Role::BackwardWeights
                        ? dnnl::reorder(dnnl::reorder::primitive_desc(
                              cpuEngine(), e.weights, cpuEngine(),
                              userWeights))
                        : dnnl::reorder(dnnl::reorder::primitive_desc(
                              cpuEngine(), userWeights, cpuEngine(),
                              e.weights));
      return Status::ok();
    };
    auto entry = cachedEntry(call, variant, make);
    if (!entry)
      return entry.status();
    const Entry &e = **entry;
    dnnl::engine &engine = cpuEngine();
    dnnl::stream stream(engine);
    memory srcMem(srcMd, engine, src->data), dstMem(dstMd, engine, dst->data);
    memory userWeightsMem(userWeights, engine, weights->data);
    // The filter in the primitive's layout: the user's memory when they
    // agree, else a reordered copy (kept in the state for a constant one).
    bool weightsCopy = e.weights != userWeights;
    memory weightsMem = userWeightsMem;
    if (weightsCopy && !packFilter)
      weightsMem = memory(e.weights, engine, pad.take(e.weights, Weights));
    memory scratchMem(e.scratch, engine, pad.take(e.scratch, Scratch));
    // The activations' buffers in the layouts the primitives run on.
    memory runSrc, runDst, poolScratch, poolOut;
    if (pooled) {
      runDst = memory(e.dst, engine, pad.take(e.dst, Dst));
      if (!e.ownPool)
        poolScratch = memory(e.poolScratch, engine,
                             pad.take(e.poolScratch, ForwardScratch));
      runSrc =
          memory(e.src, engine, e.srcInPlace ? nullptr : pad.take(e.src, Src));
      if (!e.ownPool)
        poolOut =
            memory(e.pooled, engine,
                   e.pooledInPlace ? nullptr : pad.take(e.pooled, Pooled));
    } else if (forwardRole) {
      runSrc = memory(e.src, engine,
                      e.srcInPlace ? src->data : pad.take(e.src, Src));
      runDst = memory(e.dst, engine,
                      e.dstInPlace ? dst->data : pad.take(e.dst, Dst));
    }
    std::vector<memory> moved = movedBuffers(e.moved, pad);
    if (pad.measuring())
      return Status::ok();
    if (packFilter && !state) {
      // The launch's first run.
      auto made = std::make_unique<ConvState>();
      if (weightsCopy) {
        made->packed = memory(e.weights, engine);
        e.reorder.execute(stream, {{DNNL_ARG_FROM, userWeightsMem},
                                   {DNNL_ARG_TO, made->packed}});
      }
      state = made.get();
      *call.state = std::move(made);
    }
    if (packFilter && weightsCopy)
      weightsMem = state->packed;
    else if (weightsCopy && role(call.kernel) != Role::BackwardWeights)
      e.reorder.execute(
          stream, {{DNNL_ARG_FROM, userWeightsMem}, {DNNL_ARG_TO, weightsMem}});
    if (pooled) {
      // Each tile: its images into the convolution's layout (unless they
      // are its memory), the convolution, the pool, its result into NHWC.
      memory bias(biasMd, engine, call.inputs[2].data);
      memory out(activation(pooledTile, false), engine, nullptr);
      int64_t srcBytes = srcTile.bytes(), outBytes = pooledTile.bytes();
      for (int64_t t = 0; t < tiles; ++t) {
        auto *in = static_cast<uint8_t *>(src->data) + t * srcBytes;
        auto *result = static_cast<uint8_t *>(pooledDst->data) + t * outBytes;
        if (e.srcInPlace) {
          runSrc.set_data_handle(in);
        } else {
          srcMem.set_data_handle(in);
          e.srcReorder.execute(
              stream, {{DNNL_ARG_FROM, srcMem}, {DNNL_ARG_TO, runSrc}});
        }
        e.primitive.execute(stream, {{DNNL_ARG_SCRATCHPAD, scratchMem},
                                     {DNNL_ARG_SRC, runSrc},
                                     {DNNL_ARG_WEIGHTS, weightsMem},
                                     {DNNL_ARG_BIAS, bias},
                                     {DNNL_ARG_DST, runDst}});
        if (e.ownPool) {
          stream.wait();
          const memory::dims &d = e.dst.dims(); // [N, C, H, W]
          Window pw = Window::pool(p);
          poolAllRows(static_cast<const float *>(runDst.get_data_handle()),
                      *e.ownPool, d[1], d[2], d[3], pooledTile.shape[1],
                      pooledTile.shape[2], pw.kernel, pw.strides, pw.padL,
                      p.poolAverage, reinterpret_cast<float *>(result),
                      tileImages * pooledTile.shape[1]);
          continue;
        }
        out.set_data_handle(result);
        if (e.pooledInPlace)
          poolOut.set_data_handle(result);
        e.pool.execute(stream, {{DNNL_ARG_SRC, runDst},
                                {DNNL_ARG_DST, poolOut},
                                {DNNL_ARG_SCRATCHPAD, poolScratch}});
        if (!e.pooledInPlace)
          e.pooledReorder.execute(
              stream, {{DNNL_ARG_FROM, poolOut}, {DNNL_ARG_TO, out}});
      }
      stream.wait();
      return Status::ok();
    }
    std::unordered_map<int, memory> args = {{DNNL_ARG_SCRATCHPAD, scratchMem}};
    switch (role(call.kernel)) {
    case Role::Forward: {
      // Activations in the primitive's layouts, where it chose others.
      if (!e.srcInPlace)
        e.srcReorder.execute(stream,
                             {{DNNL_ARG_FROM, srcMem}, {DNNL_ARG_TO, runSrc}});
      args.insert({{DNNL_ARG_SRC, runSrc},
                   {DNNL_ARG_WEIGHTS, weightsMem},
                   {DNNL_ARG_DST, runDst}});
      if (fused)
        args.insert(
            {DNNL_ARG_BIAS, memory(biasMd, engine, call.inputs[2].data)});
      break;
    }
    case Role::BackwardData:
      args.insert({{DNNL_ARG_DIFF_SRC, srcMem},
                   {DNNL_ARG_WEIGHTS, weightsMem},
                   {DNNL_ARG_DIFF_DST, dstMem}});
      break;
    case Role::BackwardWeights:
      args.insert({{DNNL_ARG_SRC, srcMem},
                   {DNNL_ARG_DIFF_WEIGHTS, weightsMem},
                   {DNNL_ARG_DIFF_DST, dstMem}});
      break;
    }
    executeMoved(stream, e.primitive, e.moved, moved, args);
    if (!e.dstInPlace) // Forward convolutions only (else it stays true).
      e.dstReorder.execute(stream,
                           {{DNNL_ARG_FROM, runDst}, {DNNL_ARG_TO, dstMem}});
    if (role(call.kernel) == Role::BackwardWeights && weightsCopy)
      e.reorder.execute(
          stream, {{DNNL_ARG_FROM, weightsMem}, {DNNL_ARG_TO, userWeightsMem}});
    stream.wait();
  } catch (const dnnl::error &e) {
    return dnnlError(call, e);
  }
  return Status::ok();
}

Status runDnnlPooling(const KernelCall &call) {
  GPLACE_RETURN_IF_ERROR(checkWindowCall(call, /*convolution=*/false));
  Scratchpad pad(call);
  if (isEmpty(call.outputs[0]))
    return Status::ok();
  const KernelParams &p = *call.params;
  bool first = p.channelsFirst;
  bool isMax = call.kernel == Kernel::MaxPool || call.kernel == Kernel::MaxPoolGrad;
  bool backward = call.kernel == Kernel::MaxPoolGrad ||
                  call.kernel == Kernel::AvgPoolGrad;
  // src: the forward input (or its gradient); dst: the forward output (or
  // the gradient flowing into it).
  const TensorRef *src, *dst;
  switch (call.kernel) {
  case Kernel::MaxPool:
  case Kernel::AvgPool:
    src = &call.inputs[0], dst = &call.outputs[0];
    break;
  case Kernel::MaxPoolGrad:
    src = &call.outputs[0], dst = &call.inputs[2];
    break;
  case Kernel::AvgPoolGrad:
    src = &call.outputs[0], dst = &call.inputs[0];
    break;
  default:
    return Status::internal("not a pooling kernel");
  }
  if (isEmpty(*dst)) {
    if (!pad.measuring())
      std::memset(call.outputs[0].data, 0, call.outputs[0].type->bytes());
    return Status::ok();
  }
  memory::desc srcMd = activation(*src->type, first);
  memory::desc dstMd = activation(*dst->type, first);
  Window w(p);
  dnnl::algorithm algorithm = isMax
                                  ? dnnl::algorithm::pooling_max
                                  : dnnl::algorithm::pooling_avg_exclude_padding;
  // The launch's team, by its work (an output element per window
  // element), set before its primitive is made.
  ScopedLaunchThreads team(dst->type->numElements() * w.kernel[0] *
                           w.kernel[1]);
  // A forward NHWC pooling without dilation: gplace's loop (poolAllRows,
  // as fused_conv2d_pool's pool; no primitive, no buffers), unless
  // GPLACE_POOL_KERNEL=dnnl. oneDNN's NHWC max pooling of 1x32x32x3 took
  // 42-50 µs here (its kernel's SSE movq, poolRows' comment).
  if (!backward && !first && w.dilations == Dims{0, 0} &&
      !poolOnDnnl()) {
    if (std::optional<ChannelBlocks> own = channelBlocks(srcMd)) {
      if (pad.measuring())
        return Status::ok();
      const std::vector<int64_t> &in = src->type->shape, &o = dst->type->shape;
      poolAllRows(static_cast<const float *>(src->data), *own, in[3], in[1],
                  in[2], o[1], o[2], w.kernel, w.strides, w.padL, !isMax,
                  static_cast<float *>(dst->data), o[0] * o[1]);
      return Status::ok();
    }
  }
  try {
    auto entry = cachedEntry(call, [&](Entry &e, bool anyLayouts) -> Status {
      // cachedEntry's second try: oneDNN's choice of layouts. (oneDNN 2.6's
      // poolings take no `any` source; a forward's is the tensor's.)
      memory::desc srcRun = anyLayouts && backward ? anyLayout(srcMd) : srcMd;
      memory::desc dstRun = anyLayouts ? anyLayout(dstMd) : dstMd;
      dnnl::primitive_attr attr = userScratchpad();
      dnnl::pooling_v2_forward::desc forward(
          backward ? dnnl::prop_kind::forward_training
                   : dnnl::prop_kind::forward_inference,
          algorithm, srcMd, dstRun, w.strides, w.kernel, w.dilations, w.padL,
          w.padR);
      dnnl::pooling_v2_forward::primitive_desc forwardPd(forward, attr,
                                                         cpuEngine());
      if (!backward) {
        e.primitive = dnnl::pooling_v2_forward(forwardPd);
        e.scratch = forwardPd.scratchpad_desc();
        if (anyLayouts)
          moveArgs(e.moved, forwardPd, {{DNNL_ARG_DST, dstMd, true}});
        return Status::ok();
      }
      dnnl::pooling_v2_backward::desc desc(algorithm, srcRun, dstRun,
                                           w.strides, w.kernel, w.dilations,
                                           w.padL, w.padR);
      dnnl::pooling_v2_backward::primitive_desc pd(desc, attr, cpuEngine(),
                                                   forwardPd);
      e.primitive = dnnl::pooling_v2_backward(pd);
      e.scratch = pd.scratchpad_desc();
      if (anyLayouts)
        moveArgs(e.moved, pd,
                 {{DNNL_ARG_DIFF_SRC, srcMd, true},
                  {DNNL_ARG_DIFF_DST, dstMd, false}});
      if (isMax) {
        e.forward = dnnl::pooling_v2_forward(forwardPd);
        e.workspace = forwardPd.workspace_desc();
        e.forwardScratch = forwardPd.scratchpad_desc();
        e.forwardDst = forwardPd.dst_desc();
      }
      return Status::ok();
    });
    if (!entry)
      return entry.status();
    const Entry &e = **entry;
    dnnl::engine &engine = cpuEngine();
    dnnl::stream stream(engine);
    memory srcMem(srcMd, engine, src->data), dstMem(dstMd, engine, dst->data);
    memory scratchMem(e.scratch, engine, pad.take(e.scratch, Scratch));
    // max_pool_grad's forward pass: its workspace (where each maximum came
    // from), result and scratchpad.
    memory workspaceMem, forwardDst, forwardScratch;
    if (backward && isMax) {
      workspaceMem =
          memory(e.workspace, engine, pad.take(e.workspace, Workspace));
      forwardDst =
          memory(e.forwardDst, engine, pad.take(e.forwardDst, ForwardDst));
      forwardScratch = memory(e.forwardScratch, engine,
                              pad.take(e.forwardScratch, ForwardScratch));
    }
    std::vector<memory> moved = movedBuffers(e.moved, pad);
    if (pad.measuring())
      return Status::ok();
    if (!backward) {
      executeMoved(stream, e.primitive, e.moved, moved,
                   {{DNNL_ARG_SRC, srcMem},
                    {DNNL_ARG_DST, dstMem},
                    {DNNL_ARG_SCRATCHPAD, scratchMem}});
    } else if (!isMax) {
      executeMoved(stream, e.primitive, e.moved, moved,
                   {{DNNL_ARG_DIFF_SRC, srcMem},
                    {DNNL_ARG_DIFF_DST, dstMem},
                    {DNNL_ARG_SCRATCHPAD, scratchMem}});
    } else {
      // Where each maximum came from: the forward pass again, on
      // orig_input, with its workspace.
      memory input(srcMd, engine, call.inputs[0].data);
      e.forward.execute(stream, {{DNNL_ARG_SRC, input},
                                 {DNNL_ARG_DST, forwardDst},
                                 {DNNL_ARG_WORKSPACE, workspaceMem},
                                 {DNNL_ARG_SCRATCHPAD, forwardScratch}});
      executeMoved(stream, e.primitive, e.moved, moved,
                   {{DNNL_ARG_DIFF_SRC, srcMem},
                    {DNNL_ARG_DIFF_DST, dstMem},
                    {DNNL_ARG_WORKSPACE, workspaceMem},
                    {DNNL_ARG_SCRATCHPAD, scratchMem}});
    }
    stream.wait();
  } catch (const dnnl::error &e) {
    return dnnlError(call, e);
  }
  return Status::ok();
}

namespace {

/// The elements per channel of a rank-4 activation (batch, height, width).
int64_t perChannel(const TensorType &type, bool channelsFirst) {
  return type.numElements() / type.shape[channelsFirst ? 1 : 3];
}

/// Bessel's correction n / (n - 1) (n / 1 for n = 1), as TensorFlow's
/// FusedBatchNorm applies to the variance it returns.
float besselFactor(int64_t n) {
  return static_cast<float>(n) / static_cast<float>(std::max<int64_t>(n - 1, 1));
}

} // namespace

Status runDnnlBatchNorm(const KernelCall &call) {
  Scratchpad pad(call);
  const KernelParams &p = *call.params;
  bool first = p.channelsFirst, backward = call.kernel == Kernel::FusedBatchNormGrad;
  const TensorRef &x = call.inputs[backward ? 1 : 0];
  int64_t channels = x.type->shape[first ? 1 : 3];
  int64_t n = perChannel(*x.type, first);
  auto floats = [](const TensorRef &ref) { return static_cast<float *>(ref.data); };
  if (isEmpty(x)) {
    if (pad.measuring())
      return Status::ok();
    // No elements: TensorFlow's NaN statistics in training, the given
    // ones in inference; zero gradients for scale and offset.
    if (backward) {
      std::fill_n(floats(call.outputs[1]), channels, 0.0f);
      std::fill_n(floats(call.outputs[2]), channels, 0.0f);
    } else {
      for (int i : {1, 2}) {
        if (p.isTraining)
          std::fill_n(floats(call.outputs[i]), channels,
                      std::numeric_limits<float>::quiet_NaN());
        else
          std::memcpy(call.outputs[i].data, call.inputs[2 + i].data,
                      channels * sizeof(float));
      }
    }
    return Status::ok();
  }
  memory::desc dataMd = activation(*x.type, first);
  memory::desc statMd({channels}, memory::data_type::f32,
                      memory::format_tag::a);
  auto flags = dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  if (!p.isTraining)
    flags = flags | dnnl::normalization_flags::use_global_stats;
  // The launch's team, by its elements, set before its primitive is made.
  ScopedLaunchThreads team(x.type->numElements());
  try {
    auto entry = cachedEntry(call, [&](Entry &e) -> Status {
      dnnl::batch_normalization_forward::desc forward(
          p.isTraining || backward ? dnnl::prop_kind::forward_training
                                   : dnnl::prop_kind::forward_inference,
          dataMd, static_cast<float>(p.epsilon), flags);
      dnnl::batch_normalization_forward::primitive_desc forwardPd(
          forward, userScratchpad(), cpuEngine());
      if (!backward) {
        e.primitive = dnnl::batch_normalization_forward(forwardPd);
        e.scratch = forwardPd.scratchpad_desc();
        return Status::ok();
      }
      dnnl::batch_normalization_backward::desc desc(
          dnnl::prop_kind::backward, dataMd, dataMd,
          static_cast<float>(p.epsilon), flags);
      dnnl::batch_normalization_backward::primitive_desc pd(
          desc, userScratchpad(), cpuEngine(), forwardPd);
      e.primitive = dnnl::batch_normalization_backward(pd);
      e.scratch = pd.scratchpad_desc();
      return Status::ok();
    });
    if (!entry)
      return entry.status();
    const Entry &e = **entry;
    dnnl::engine &engine = cpuEngine();
    dnnl::stream stream(engine);
    auto data = [&](const TensorRef &ref) {
      return memory(dataMd, engine, ref.data);
    };
    auto stat = [&](void *ptr) { return memory(statMd, engine, ptr); };
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SCRATCHPAD,
         memory(e.scratch, engine, pad.take(e.scratch, Scratch))}};
    if (pad.measuring())
      return Status::ok();
    std::vector<float> variance;
    if (!backward) {
      // Training writes the batch's statistics straight into the results;
      // inference reads the given ones and returns them.
      bool train = p.isTraining;
      args.insert({{DNNL_ARG_SRC, data(call.inputs[0])},
                   {DNNL_ARG_DST, data(call.outputs[0])},
                   {DNNL_ARG_SCALE, stat(call.inputs[1].data)},
                   {DNNL_ARG_SHIFT, stat(call.inputs[2].data)},
                   {DNNL_ARG_MEAN,
                    stat(train ? call.outputs[1].data : call.inputs[3].data)},
                   {DNNL_ARG_VARIANCE,
                    stat(train ? call.outputs[2].data : call.inputs[4].data)}});
      e.primitive.execute(stream, args);
      stream.wait();
      if (train) {
        float factor = besselFactor(n);
        float *v = floats(call.outputs[2]);
        for (int64_t c = 0; c < channels; ++c)
          v[c] *= factor;
      } else {
        std::memcpy(call.outputs[1].data, call.inputs[3].data,
                    channels * sizeof(float));
        std::memcpy(call.outputs[2].data, call.inputs[4].data,
                    channels * sizeof(float));
      }
      return Status::ok();
    }
    // The gradient: in training, the variance the forward returned is
    // Bessel-corrected; the primitive wants the batch's own.
    void *varianceData = call.inputs[4].data;
    if (p.isTraining) {
      const float *given = floats(call.inputs[4]);
      float factor = 1.0f / besselFactor(n);
      variance.assign(given, given + channels);
      for (float &v : variance)
        v *= factor;
      varianceData = variance.data();
    }
    // oneDNN 2.6's backward pass with use_shift will not execute without a
    // shift argument, which it does not read: zeros.
    std::vector<float> shift(channels, 0.0f);
    args.insert({{DNNL_ARG_SRC, data(call.inputs[1])},
                 {DNNL_ARG_DIFF_DST, data(call.inputs[0])},
                 {DNNL_ARG_SCALE, stat(call.inputs[2].data)},
                 {DNNL_ARG_SHIFT, stat(shift.data())},
                 {DNNL_ARG_MEAN, stat(call.inputs[3].data)},
                 {DNNL_ARG_VARIANCE, stat(varianceData)},
                 {DNNL_ARG_DIFF_SRC, data(call.outputs[0])},
                 {DNNL_ARG_DIFF_SCALE, stat(call.outputs[1].data)},
                 {DNNL_ARG_DIFF_SHIFT, stat(call.outputs[2].data)}});
    e.primitive.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error &e) {
    return dnnlError(call, e);
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Recurrent layers: cudnn_rnn and its gradient.
//===----------------------------------------------------------------------===//

namespace {

/// A recurrent layer's primitives, made once per shapes, cell and
/// direction: the forward (inference for cudnn_rnn, training for the
/// gradient, which runs it again for the workspace the backward reads), the
/// backward, and the reorders of the weights between ONNX's layout
/// (ldgoi: [directions, gates, hidden, inputs]) and the primitives'.
struct RnnEntry {
  dnnl::rnn_primitive_desc_base forwardPd, backwardPd;
  dnnl::primitive forward, backward;
  /// The weights' layouts the forward and backward read, and the
  /// gradients' the backward writes; the reorders into and out of them
  /// where they are not ONNX's (null primitives where they are).
  memory::desc layer, iter, backwardLayer, backwardIter, diffLayer, diffIter;
  dnnl::primitive toLayer, toIter, toBackwardLayer, toBackwardIter,
      fromDiffLayer, fromDiffIter;
};

dnnl::rnn_direction rnnDirection(int64_t direction) {
  switch (direction) {
  case 1:
    return dnnl::rnn_direction::unidirectional_right2left;
  case 2:
    return dnnl::rnn_direction::bidirectional_concat;
  default:
    return dnnl::rnn_direction::unidirectional_left2right;
  }
}

/// Makes the forward primitive `Fwd` (and its pd) of the cell and, where
/// `backward`, the backward `Bwd` with the forward as its hint. Every
/// oneDNN RNN cell's descriptors take the same order: the propagation,
/// the cell's own leading arguments (`lead`: an activation, the
/// direction), the forward's memory descriptors (`mds`), and for the
/// backward the gradients' descriptors, here the same as the forward's.
template <typename Fwd, typename Bwd, typename... Lead, typename... Mds>
void makeRnnPrimitives(RnnEntry &e, dnnl::prop_kind prop, bool backward,
                       std::tuple<Lead...> lead, const Mds &...mds) {
  typename Fwd::desc fd = std::apply(
      [&](const Lead &...l) { return typename Fwd::desc(prop, l..., mds...); },
      lead);
  typename Fwd::primitive_desc fpd(fd, userScratchpad(), cpuEngine());
  e.forwardPd = fpd;
  e.forward = Fwd(fpd);
  if (!backward)
    return;
  typename Bwd::desc bd = std::apply(
      [&](const Lead &...l) {
        return typename Bwd::desc(dnnl::prop_kind::backward, l..., mds...,
                                  mds...);
      },
      lead);
  typename Bwd::primitive_desc bpd(bd, userScratchpad(), cpuEngine(), fpd);
  e.backwardPd = bpd;
  e.backward = Bwd(bpd);
}

/// A reorder from `from` to `to`, or a null primitive where they are the
/// same layout.
dnnl::primitive reorderOrNone(const memory::desc &from,
                              const memory::desc &to) {
  if (from == to)
    return dnnl::primitive();
  return dnnl::reorder(
      dnnl::reorder::primitive_desc(cpuEngine(), from, cpuEngine(), to));
}

Status makeRnnEntry(const RecurrentShape &s, int64_t direction, bool backward,
                    RnnEntry &e) {
  using tag = memory::format_tag;
  auto f32 = memory::data_type::f32;
  memory::desc srcLayer({s.seq, s.batch, s.input}, f32, tag::tnc);
  memory::desc dstLayer({s.seq, s.batch, s.dirs * s.hidden}, f32, tag::tnc);
  memory::desc state({1, s.dirs, s.batch, s.hidden}, f32, tag::ldnc);
  memory::desc layerAny({1, s.dirs, s.input, s.gates, s.hidden}, f32,
                        tag::any);
  memory::desc iterAny({1, s.dirs, s.hidden, s.gates, s.hidden}, f32,
                       tag::any);
  memory::desc bias({1, s.dirs, s.biasGates, s.hidden}, f32, tag::ldgo);
  auto prop = backward ? dnnl::prop_kind::forward_training
                       : dnnl::prop_kind::forward_inference;
  dnnl::rnn_direction dir = rnnDirection(direction);
  // The cells' descriptors as oneDNN's forward_* take them: vanilla RNN
  // (an activation first) and GRU (linear-before-reset or not) read
  // layer, iteration state, weights, bias and result; LSTM the cell state
  // too.
  switch (s.kind) {
  case 0:
  case 1:
    makeRnnPrimitives<dnnl::vanilla_rnn_forward, dnnl::vanilla_rnn_backward>(
        e, prop, backward,
        std::tuple(s.kind == 0 ? dnnl::algorithm::eltwise_tanh
                               : dnnl::algorithm::eltwise_relu,
                   dir),
        srcLayer, state, layerAny, iterAny, bias, dstLayer, state);
    break;
  case 2:
    makeRnnPrimitives<dnnl::lstm_forward, dnnl::lstm_backward>(
        e, prop, backward, std::tuple(dir), srcLayer, state, state, layerAny,
        iterAny, bias, dstLayer, state, state);
    break;
  case 3:
    makeRnnPrimitives<dnnl::gru_forward, dnnl::gru_backward>(
        e, prop, backward, std::tuple(dir), srcLayer, state, layerAny,
        iterAny, bias, dstLayer, state);
    break;
  case 4:
    makeRnnPrimitives<dnnl::lbr_gru_forward, dnnl::lbr_gru_backward>(
        e, prop, backward, std::tuple(dir), srcLayer, state, layerAny,
        iterAny, bias, dstLayer, state);
    break;
  default:
    return Status::invalidArgument("gplace.cudnn_rnn: unknown rnn_kind " +
                                   std::to_string(s.kind));
  }
  memory::desc userLayer({1, s.dirs, s.input, s.gates, s.hidden}, f32,
                         tag::ldgoi);
  memory::desc userIter({1, s.dirs, s.hidden, s.gates, s.hidden}, f32,
                        tag::ldgoi);
  e.layer = e.forwardPd.weights_layer_desc();
  e.iter = e.forwardPd.weights_iter_desc();
  e.toLayer = reorderOrNone(userLayer, e.layer);
  e.toIter = reorderOrNone(userIter, e.iter);
  if (backward) {
    e.backwardLayer = e.backwardPd.weights_layer_desc();
    e.backwardIter = e.backwardPd.weights_iter_desc();
    e.diffLayer = e.backwardPd.diff_weights_layer_desc();
    e.diffIter = e.backwardPd.diff_weights_iter_desc();
    e.toBackwardLayer = reorderOrNone(userLayer, e.backwardLayer);
    e.toBackwardIter = reorderOrNone(userIter, e.backwardIter);
    e.fromDiffLayer = reorderOrNone(e.diffLayer, userLayer);
    e.fromDiffIter = reorderOrNone(e.diffIter, userIter);
  }
  return Status::ok();
}

} // namespace

Status runDnnlRecurrent(const KernelCall &call) {
  StatusOr<RecurrentShape> shape = recurrentShapeOf(call);
  if (!shape)
    return shape.status();
  const RecurrentShape &s = *shape;
  bool backward = call.kernel == Kernel::CudnnRNNBackprop;
  const KernelParams &p = *call.params;
  Scratchpad pad(call);
  auto floats = [](const TensorRef &ref) {
    return static_cast<float *>(ref.data);
  };
  try {
    auto build = [&]() -> StatusOr<std::shared_ptr<void>> {
      auto entry = std::make_shared<RnnEntry>();
      GPLACE_RETURN_IF_ERROR(makeRnnEntry(s, p.rnnDirection, backward, *entry));
      return std::shared_ptr<void>(std::move(entry));
    };
    StatusOr<std::shared_ptr<void>> found =
        call.cache ? call.cache->getOrMake("dnnl|" + primitiveKey(call), build)
                   : build();
    if (!found)
      return found.status();
    const RnnEntry &e = *std::static_pointer_cast<RnnEntry>(*found);
    dnnl::engine &engine = cpuEngine();
    using tag = memory::format_tag;
    auto f32 = memory::data_type::f32;
    memory::desc userLayer({1, s.dirs, s.input, s.gates, s.hidden}, f32,
                           tag::ldgoi);
    memory::desc userIter({1, s.dirs, s.hidden, s.gates, s.hidden}, f32,
                          tag::ldgoi);
    memory::desc srcLayer({s.seq, s.batch, s.input}, f32, tag::tnc);
    memory::desc dstLayer({s.seq, s.batch, s.dirs * s.hidden}, f32, tag::tnc);
    memory::desc state({1, s.dirs, s.batch, s.hidden}, f32, tag::ldnc);
    memory::desc bias({1, s.dirs, s.biasGates, s.hidden}, f32, tag::ldgo);
    // The buffers, taken in one order whether measuring or running.
    memory::desc forwardScratch = e.forwardPd.scratchpad_desc();
    uint8_t *scratch = pad.take(forwardScratch, Scratch);
    uint8_t *layer = e.toLayer ? pad.take(e.layer, RnnLayer) : nullptr;
    uint8_t *iter = e.toIter ? pad.take(e.iter, RnnIter) : nullptr;
    uint8_t *biasData = pad.take(bias, RnnBias);
    uint8_t *workspace = nullptr, *dst = nullptr, *dstH = nullptr,
            *dstC = nullptr, *backwardScratch = nullptr, *bLayer = nullptr,
            *bIter = nullptr, *dLayer = nullptr, *dIter = nullptr,
            *dBias = nullptr;
    if (backward) {
      workspace = pad.take(e.forwardPd.workspace_desc(), Workspace);
      dst = pad.take(dstLayer, RnnDst);
      dstH = pad.take(state, RnnDstH);
      dstC = pad.take(state, RnnDstC);
      backwardScratch = pad.take(e.backwardPd.scratchpad_desc(), ForwardScratch);
      bLayer = e.toBackwardLayer ? pad.take(e.backwardLayer, RnnBackwardLayer)
                                 : nullptr;
      bIter = e.toBackwardIter ? pad.take(e.backwardIter, RnnBackwardIter)
                               : nullptr;
      dLayer = e.fromDiffLayer ? pad.take(e.diffLayer, RnnDiffLayer) : nullptr;
      dIter = e.fromDiffIter ? pad.take(e.diffIter, RnnDiffIter) : nullptr;
      dBias = pad.take(bias, RnnDiffBias);
    }
    if (pad.measuring())
      return Status::ok();

    dnnl::stream stream(engine);
    auto mem = [&](const memory::desc &desc, void *data) {
      return memory(desc, engine, data);
    };
    // The bias oneDNN adds: W's and R's biases summed per gate, but for
    // linear_before_reset's h gate, whose R bias is a fourth gate.
    {
      const float *b = floats(call.inputs[5]);
      float *out = reinterpret_cast<float *>(biasData);
      int64_t gh = s.gates * s.hidden;
      for (int64_t d = 0; d < s.dirs; ++d) {
        const float *wb = b + d * 2 * gh, *rb = wb + gh;
        float *o = out + d * s.biasGates * s.hidden;
        for (int64_t i = 0; i < gh; ++i)
          o[i] = wb[i] + (s.lbr() && i >= 2 * s.hidden ? 0.0f : rb[i]);
        if (s.lbr())
          std::memcpy(o + gh, rb + 2 * s.hidden, s.hidden * sizeof(float));
      }
    }
    void *w = call.inputs[3].data, *r = call.inputs[4].data;
    auto reorderInto = [&](const dnnl::primitive &reorder,
                           const memory::desc &from, void *source,
                           const memory::desc &to, void *target) -> void * {
      if (!reorder)
        return source;
      memory in = mem(from, source), out = mem(to, target);
      reorder.execute(stream, {{DNNL_ARG_FROM, in}, {DNNL_ARG_TO, out}});
      return target;
    };
    void *layerData = reorderInto(e.toLayer, userLayer, w, e.layer, layer);
    void *iterData = reorderInto(e.toIter, userIter, r, e.iter, iter);
    void *y = backward ? dst : call.outputs[0].data;
    void *yh = backward ? dstH : call.outputs[1].data;
    void *yc = backward ? dstC : call.outputs[2].data;
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC_LAYER, mem(srcLayer, call.inputs[0].data)},
        {DNNL_ARG_SRC_ITER, mem(state, call.inputs[1].data)},
        {DNNL_ARG_WEIGHTS_LAYER, mem(e.layer, layerData)},
        {DNNL_ARG_WEIGHTS_ITER, mem(e.iter, iterData)},
        {DNNL_ARG_BIAS, mem(bias, biasData)},
        {DNNL_ARG_DST_LAYER, mem(dstLayer, y)},
        {DNNL_ARG_DST_ITER, mem(state, yh)},
        {DNNL_ARG_SCRATCHPAD, mem(forwardScratch, scratch)}};
    if (s.lstm()) {
      args.insert({DNNL_ARG_SRC_ITER_C, mem(state, call.inputs[2].data)});
      args.insert({DNNL_ARG_DST_ITER_C, mem(state, yc)});
    }
    if (backward)
      args.insert(
          {DNNL_ARG_WORKSPACE, mem(e.forwardPd.workspace_desc(), workspace)});
    e.forward.execute(stream, args);
    int64_t stateElements = s.dirs * s.batch * s.hidden;
    if (!backward) {
      stream.wait();
      if (!s.lstm())
        std::fill_n(floats(call.outputs[2]), stateElements, 0.0f);
      return Status::ok();
    }

    // The backward: the gradients of the data into the results, those of
    // the weights (which oneDNN accumulates: zeroed first) reordered back
    // into ONNX's layout.
    void *bLayerData =
        reorderInto(e.toBackwardLayer, userLayer, w, e.backwardLayer, bLayer);
    void *bIterData =
        reorderInto(e.toBackwardIter, userIter, r, e.backwardIter, bIter);
    void *dLayerData = dLayer ? dLayer : call.outputs[3].data;
    void *dIterData = dIter ? dIter : call.outputs[4].data;
    std::memset(dLayerData, 0, e.diffLayer.get_size());
    std::memset(dIterData, 0, e.diffIter.get_size());
    std::memset(dBias, 0, bias.get_size());
    std::unordered_map<int, memory> bargs = {
        {DNNL_ARG_SRC_LAYER, mem(srcLayer, call.inputs[0].data)},
        {DNNL_ARG_SRC_ITER, mem(state, call.inputs[1].data)},
        {DNNL_ARG_WEIGHTS_LAYER, mem(e.backwardLayer, bLayerData)},
        {DNNL_ARG_WEIGHTS_ITER, mem(e.backwardIter, bIterData)},
        {DNNL_ARG_BIAS, mem(bias, biasData)},
        {DNNL_ARG_DST_LAYER, mem(dstLayer, dst)},
        {DNNL_ARG_DST_ITER, mem(state, dstH)},
        {DNNL_ARG_DIFF_SRC_LAYER, mem(srcLayer, call.outputs[0].data)},
        {DNNL_ARG_DIFF_SRC_ITER, mem(state, call.outputs[1].data)},
        {DNNL_ARG_DIFF_WEIGHTS_LAYER, mem(e.diffLayer, dLayerData)},
        {DNNL_ARG_DIFF_WEIGHTS_ITER, mem(e.diffIter, dIterData)},
        {DNNL_ARG_DIFF_BIAS, mem(bias, dBias)},
        {DNNL_ARG_DIFF_DST_LAYER, mem(dstLayer, call.inputs[6].data)},
        {DNNL_ARG_DIFF_DST_ITER, mem(state, call.inputs[7].data)},
        {DNNL_ARG_WORKSPACE, mem(e.forwardPd.workspace_desc(), workspace)},
        {DNNL_ARG_SCRATCHPAD,
         mem(e.backwardPd.scratchpad_desc(), backwardScratch)}};
    if (s.lstm()) {
      bargs.insert({DNNL_ARG_SRC_ITER_C, mem(state, call.inputs[2].data)});
      bargs.insert({DNNL_ARG_DST_ITER_C, mem(state, dstC)});
      bargs.insert({DNNL_ARG_DIFF_SRC_ITER_C, mem(state, call.outputs[2].data)});
      bargs.insert({DNNL_ARG_DIFF_DST_ITER_C, mem(state, call.inputs[8].data)});
    }
    e.backward.execute(stream, bargs);
    reorderInto(e.fromDiffLayer, e.diffLayer, dLayerData, userLayer,
                call.outputs[3].data);
    reorderInto(e.fromDiffIter, e.diffIter, dIterData, userIter,
                call.outputs[4].data);
    stream.wait();
    if (!s.lstm())
      std::fill_n(floats(call.outputs[2]), stateElements, 0.0f);
    // B's gradient: each gate's bias gradient for both of W's and R's
    // biases, but linear_before_reset's h gate, whose R bias is the
    // fourth gate.
    const float *db = reinterpret_cast<const float *>(dBias);
    float *out = floats(call.outputs[5]);
    int64_t gh = s.gates * s.hidden;
    for (int64_t d = 0; d < s.dirs; ++d) {
      const float *g = db + d * s.biasGates * s.hidden;
      float *wb = out + d * 2 * gh, *rb = wb + gh;
      std::memcpy(wb, g, gh * sizeof(float));
      std::memcpy(rb, g, gh * sizeof(float));
      if (s.lbr())
        std::memcpy(rb + 2 * s.hidden, g + gh, s.hidden * sizeof(float));
    }
  } catch (const dnnl::error &e) {
    return dnnlError(call, e);
  }
  return Status::ok();
}

std::string dnnlVersion() {
  const dnnl_version_t *v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch);
}

namespace {
/// What a matmul launch keeps (KernelCall::state), per OpenMP team size it
/// ran with (ScopedLaunchThreads; one or two on most machines): its
/// primitive, found once instead of by key on every run, and, for a
/// constant B, B in the layout the primitive chose, reordered on the
/// first run with that team.
struct MatmulState : KernelState {
  struct ForTeam {
    int threads = 0;
    std::shared_ptr<Entry> entry;
    memory packed;
  };
  std::vector<ForTeam> teams;
  /// The entry for `threads`, or null.
  ForTeam *find(int threads) {
    for (ForTeam &t : teams)
      if (t.threads == threads)
        return &t;
    return nullptr;
  }
};
} // namespace

bool dnnlNativeBf16() {
  static const bool native = [] {
    if (const char *choice = std::getenv("GPLACE_ONEDNN_BF16")) {
      if (std::string_view(choice) == "native")
        return true;
      if (std::string_view(choice) == "f32")
        return false;
    }
    auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    auto amx = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_amx);
    return (isa & amx) == amx;
  }();
  return native;
}

/// runDnnlMatmul's body for matrices of element type `type` (f32, bf16);
/// with `accumulate`, C += A B (a sum post-op: runDnnlMatmulAccumulate).
static Status dnnlMatmul(const KernelCall &call, bool transA, bool transB,
                         int64_t m, int64_t n, int64_t k, const void *a,
                         int64_t lda, const void *b, int64_t ldb, void *c,
                         int64_t ldc, bool packB, memory::data_type type,
                         bool accumulate = false) {
  // The launch's team, by its multiply-adds, set before its primitive is
  // made.
  ScopedLaunchThreads team(m * n * k);
  try {
    // Transposes as strides: A is m x k, B k x n, whatever their layout.
    memory::desc aMd({m, k}, type, transA ? Dims{1, lda} : Dims{lda, 1});
    memory::desc bMd({k, n}, type, transB ? Dims{1, ldb} : Dims{ldb, 1});
    memory::desc cMd({m, n}, type, Dims{ldc, 1});
    auto *state =
        call.state ? static_cast<MatmulState *>(call.state->get()) : nullptr;
    MatmulState::ForTeam *kept = state ? state->find(team.threads()) : nullptr;
    std::shared_ptr<Entry> entry = kept ? kept->entry : nullptr;
    if (!entry) {
      auto found = cachedEntry(
          call,
          [&](Entry &e) -> Status {
            dnnl::primitive_attr attr = userScratchpad();
            if (accumulate) {
              dnnl::post_ops sum;
              sum.append_sum(1.0f);
              attr.set_post_ops(sum);
            }
            dnnl::matmul::primitive_desc pd(
                dnnl::matmul::desc(aMd, packB ? anyLayout(bMd) : bMd, cMd),
                attr, cpuEngine());
            e.primitive = dnnl::matmul(pd);
            e.weights = pd.weights_desc();
            e.scratch = pd.scratchpad_desc();
            return Status::ok();
          },
          packB ? "packed" : "");
      if (!found)
        return found.status();
      entry = *found;
    }
    dnnl::engine &engine = cpuEngine();
    dnnl::stream stream(engine);
    memory bMem(bMd, engine, const_cast<void *>(b));
    if (call.state && !kept) {
      // The launch's first run with this team: keep the primitive and, for
      // a constant B, its packed copy.
      if (!state) {
        auto made = std::make_unique<MatmulState>();
        state = made.get();
        *call.state = std::move(made);
      }
      MatmulState::ForTeam made;
      made.threads = team.threads();
      made.entry = entry;
      if (packB) {
        made.packed = memory(entry->weights, engine);
        dnnl::reorder(bMem, made.packed).execute(stream, bMem, made.packed);
      }
      state->teams.push_back(std::move(made));
      kept = &state->teams.back();
    }
    if (packB)
      bMem = kept->packed;
    const Entry &e = *entry;
    e.primitive.execute(
        stream,
        {{DNNL_ARG_SRC, memory(aMd, engine, const_cast<void *>(a))},
         {DNNL_ARG_WEIGHTS, bMem},
         {DNNL_ARG_DST, memory(cMd, engine, c)},
         {DNNL_ARG_SCRATCHPAD,
          memory(e.scratch, engine, scratchFor(e.scratch, Scratch))}});
    stream.wait();
  } catch (const dnnl::error &e) {
    return dnnlError(call, e);
  }
  return Status::ok();
}

Status runDnnlMatmul(const KernelCall &call, bool transA, bool transB,
                     int64_t m, int64_t n, int64_t k, const float *a,
                     int64_t lda, const float *b, int64_t ldb, float *c,
                     int64_t ldc, bool packB) {
  return dnnlMatmul(call, transA, transB, m, n, k, a, lda, b, ldb, c, ldc,
                    packB, memory::data_type::f32);
}

Status runDnnlMatmulAccumulate(const KernelCall &call, bool transA,
                               bool transB, int64_t m, int64_t n, int64_t k,
                               const float *a, int64_t lda, const float *b,
                               int64_t ldb, float *c, int64_t ldc) {
  return dnnlMatmul(call, transA, transB, m, n, k, a, lda, b, ldb, c, ldc,
                    /*packB=*/false, memory::data_type::f32,
                    /*accumulate=*/true);
}

Status runDnnlMatmulBf16(const KernelCall &call, bool transA, bool transB,
                         int64_t m, int64_t n, int64_t k, const uint16_t *a,
                         int64_t lda, const uint16_t *b, int64_t ldb,
                         uint16_t *c, int64_t ldc, bool packB) {
  return dnnlMatmul(call, transA, transB, m, n, k, a, lda, b, ldb, c, ldc,
                    packB, memory::data_type::bf16);
}

} // namespace gplace::runtime
