//===- conv_onednn.cpp - oneDNN's convolutions called directly ------------===//
//
// The baseline for gplace-run's conv2d and its two backprops: oneDNN's
// convolution primitives on the same shapes, used as a program that calls
// oneDNN itself would at its best: activations NHWC as gplace keeps them,
// the filter reordered once (outside the timing) into the layout the
// primitive picked, and the filter's gradient left in that layout; the
// primitive and its scratchpad made once.
//
// Usage: gplace-bench-conv fwd|bwd_data|bwd_weights N H W C KH KW O RUNS
// (VALID padding, stride 1, no dilation); prints one sample, as
// gplace-run's --print-timing gives it: the mean and the median of RUNS
// runs after one untimed run, in seconds per run.
//
//===----------------------------------------------------------------------===//

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

using dnnl::memory;
using Dims = memory::dims;

int main(int argc, char **argv) {
  if (argc != 10)
    return std::fprintf(stderr, "usage: gplace-bench-conv fwd|bwd_data|"
                                "bwd_weights N H W C KH KW O RUNS\n"),
           1;
  const char *kind = argv[1];
  long v[8];
  for (int i = 0; i < 8; ++i)
    if ((v[i] = std::atol(argv[2 + i])) <= 0)
      return std::fprintf(stderr, "sizes and RUNS must be positive\n"), 1;
  long n = v[0], h = v[1], w = v[2], c = v[3], kh = v[4], kw = v[5],
       o = v[6], runs = v[7];
  long oh = h - kh + 1, ow = w - kw + 1;
  if (oh <= 0 || ow <= 0)
    return std::fprintf(stderr, "the filter is larger than the input\n"), 1;
  bool fwd = !std::strcmp(kind, "fwd"), bwdData = !std::strcmp(kind, "bwd_data"),
       bwdWeights = !std::strcmp(kind, "bwd_weights");
  if (!fwd && !bwdData && !bwdWeights)
    return std::fprintf(stderr, "unknown kind '%s'\n", kind), 1;

  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  auto f32 = memory::data_type::f32;
  memory::desc src({n, c, h, w}, f32, memory::format_tag::nhwc);
  memory::desc dst({n, o, oh, ow}, f32, memory::format_tag::nhwc);
  memory::desc userWeights({o, c, kh, kw}, f32, memory::format_tag::hwio);
  memory::desc anyWeights({o, c, kh, kw}, f32, memory::format_tag::any);
  Dims strides{1, 1}, dilations{0, 0}, pads{0, 0};
  dnnl::convolution_forward::desc forward(
      dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
      src, anyWeights, dst, strides, dilations, pads, pads);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::convolution_forward::primitive_desc forwardPd(forward, attr, engine);

  dnnl::primitive primitive;
  memory::desc weights, scratch;
  if (fwd) {
    primitive = dnnl::convolution_forward(forwardPd);
    weights = forwardPd.weights_desc();
    scratch = forwardPd.scratchpad_desc();
  } else if (bwdData) {
    dnnl::convolution_backward_data::desc desc(
        dnnl::algorithm::convolution_direct, src, anyWeights, dst, strides,
        dilations, pads, pads);
    dnnl::convolution_backward_data::primitive_desc pd(desc, attr, engine,
                                                       forwardPd);
    primitive = dnnl::convolution_backward_data(pd);
    weights = pd.weights_desc();
    scratch = pd.scratchpad_desc();
  } else {
    dnnl::convolution_backward_weights::desc desc(
        dnnl::algorithm::convolution_direct, src, anyWeights, dst, strides,
        dilations, pads, pads);
    dnnl::convolution_backward_weights::primitive_desc pd(desc, attr, engine,
                                                          forwardPd);
    primitive = dnnl::convolution_backward_weights(pd);
    weights = pd.diff_weights_desc();
    scratch = pd.scratchpad_desc();
  }

  // The values of bench/conv.py's gplace program: constants 0.01 (inputs)
  // and 0.02 (filter or gradient).
  std::vector<float> srcData(n * h * w * c, 0.01f), dstData(n * oh * ow * o,
                                                            0.02f),
      userWeightsData(kh * kw * c * o, 0.02f);
  std::vector<char> weightsData(weights.get_size()),
      scratchData(scratch.get_size());
  memory srcMem(src, engine, srcData.data()), dstMem(dst, engine, dstData.data());
  memory userWeightsMem(userWeights, engine, userWeightsData.data());
  memory weightsMem(weights, engine, weightsData.data());
  dnnl::reorder(userWeightsMem, weightsMem)
      .execute(stream, userWeightsMem, weightsMem);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SCRATCHPAD, memory(scratch, engine, scratchData.data())}};
  if (fwd)
    args.insert({{DNNL_ARG_SRC, srcMem},
                 {DNNL_ARG_WEIGHTS, weightsMem},
                 {DNNL_ARG_DST, dstMem}});
  else if (bwdData)
    args.insert({{DNNL_ARG_DIFF_SRC, srcMem},
                 {DNNL_ARG_WEIGHTS, weightsMem},
                 {DNNL_ARG_DIFF_DST, dstMem}});
  else
    args.insert({{DNNL_ARG_SRC, srcMem},
                 {DNNL_ARG_DIFF_WEIGHTS, weightsMem},
                 {DNNL_ARG_DIFF_DST, dstMem}});
  auto run = [&] {
    primitive.execute(stream, args);
    stream.wait();
  };
  run(); // Untimed, as gplace-run's first run.
  std::vector<double> seconds;
  for (long r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    run();
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
  }
  double sum = 0;
  for (double s : seconds)
    sum += s;
  std::sort(seconds.begin(), seconds.end());
  size_t half = seconds.size() / 2;
  double median = seconds.size() % 2
                      ? seconds[half]
                      : (seconds[half - 1] + seconds[half]) / 2;
  std::printf("%.6f %.6f\n", sum / runs, median);
  return 0;
}
