//===- gplace-onnx-gen.cpp - Writes small ONNX models for tests -----------===//
//
// gplace-onnx-gen MODEL OUTPUT.onnx
//
// Builds one of a few small, fixed ONNX models with ONNX's C++ protobuf API,
// checks it with onnx::checker::check_model (and ONNX's strict shape
// inference), and writes it to OUTPUT.onnx (through OUTPUT.onnx.tmp and a
// rename, so a reader never sees a torn file). The output is deterministic:
// the weights come from a fixed 64-bit LCG, not from <random>'s
// distributions, whose output is implementation-defined.
//
// MODEL is one of
//   mlp             input[batch,784] -> Gemm 256 -> Relu -> Gemm 128 -> Relu
//                   -> Gemm 10 -> Softmax(axis 1) -> probabilities[batch,10];
//   cnn             input[batch,1,28,28] -> Conv 8x3x3 (+bias) -> Relu ->
//                   MaxPool 2 -> Conv 16x3x3 -> BatchNormalization -> Relu ->
//                   AveragePool 2 -> Flatten -> Gemm 10 -> logits[batch,10];
//   unsupported     x[2,3] -> LpNormalization -> Relu -> LpNormalization ->
//                   GlobalLpPool -> y[2,3], and a Multinomial of the last
//                   LpNormalization (op types gplace does not map);
//   dynamic         Add(Relu(tokens[batch,16]), Relu(mask[seq,16])) ->
//                   sum[batch,16];
//   external        mlp with its initializers as external data in
//                   `<basename of OUTPUT>.data` next to OUTPUT (written first,
//                   also atomically); the weights are mlp's;
//   external-constants
//                   mlp with its initializers as Constant nodes whose
//                   values are external data, as external's;
//   softmax-opset9  opset 9: x[2,3,4] -> Softmax(axis 1) -> probabilities;
//   losses          scores[2,4,3], labels[2,3] (int64) ->
//                   SoftmaxCrossEntropyLoss (weights, ignore_index 1, mean)
//                   -> loss, log_prob; NegativeLogLikelihoodLoss(log_prob,
//                   labels, sum) -> nll;
//   optimizers      ai.onnx.preview.training 1: r, t (int64), x[2], g[2],
//                   v[2], h[2] -> Adagrad (decay_factor, epsilon,
//                   norm_coefficient), Momentum (nesterov), Adam (all
//                   attributes) -> ada_x, ada_h, mom_x, mom_v, adam_x,
//                   adam_v, adam_h;
//   gradient        ai.onnx.preview.training 1: x[2,3], w[3,2] ->
//                   MatMul -> h, Tanh -> y; Gradient(xs = [w, h], zs =
//                   [x], y) -> dy_dw, dy_dh (declared [n, m]);
//   gradient-substituted, gradient-initializer, gradient-y-after
//                   gradient with its first input another tensor (w2),
//                   with w an initializer, with the Gradient node first;
//   quantized       x[1,40,4,4] (uint8) -> ConvInteger (w[2,40,3,3]
//                   uint8, w_i = 200 + (91 i + 7) mod 53, x_zero_point 5,
//                   w_zero_point [0, 250]: 360 products per output, odd sums
//                   above 2^24), QLinearConv (the same, x_scale 0.02,
//                   w_scale [0.01, 0.05], y_scale 40, y_zero_point 100,
//                   B [1000, -2000]) -> sums[1,2,2,2] int32,
//                   requantized[1,2,2,2] uint8;
//   stft-mel        opset 17: signal[1,10,2] (complex) -> STFT
//                   (frame_step 3, frame_length 4, onesided 0) ->
//                   spectrum[1,3,4,2]; MelWeightMatrix (2 bins, dft_length
//                   24, sample_rate 1000, 0 to 500 Hz) -> mel[13,2];
//   tfidf           opset 9: ids[2,8] int64 -> TfIdfVectorizer (1- to
//                   3-grams, 1 skip, a permuted ngram_indexes) in TF, IDF
//                   and TFIDF modes -> tf, idf, tfidf [2,6];
//   tfidf-strings, tfidf-bad-counts: its TF node with pool_strings, or with
//                   ngram_counts that do not cut the pool into n-grams;
//   hardmax-opset11 opset 11: x[2,3,4] -> Hardmax(axis 1) -> y (x coerced
//                   to [2, 12], as Hardmax was before opset 13);
//   indexing        opset 16: x[3,4], indices[2,4], k -> Trilu,
//                   GatherElements, ScatterElements (add), CumSum
//                   (exclusive), ReduceProd -> lower, gathered, scattered,
//                   sums, products;
//   normalization   x[1,2,2,2] -> InstanceNormalization, LRN,
//                   MeanVarianceNormalization, ConvTranspose (strides 2) ->
//                   instance, lrn, mvn, deconv[1,1,4,4];
//   einsum-pad      a[2,3], b[3,2] -> Einsum(ij,jk->ik), Einsum(ii->i),
//                   Pad(reflect), Pad(constant 2.5) -> product, diagonal,
//                   reflected, filled;
//   recurrent       x[3,2,2], lens[2] (int32) -> RNN (reverse), GRU
//                   (bidirectional, linear_before_reset), LSTM (peepholes,
//                   sequence_lens), GRU (bidirectional, sequence_lens,
//                   initial_h) ->
//                   rnn_y, rnn_h, gru_h, lstm_y, lstm_h, lstm_c, gru_lens_y,
//                   gru_lens_h;
//   arg-pow         x[2,3] -> ArgMax, ArgMin (select_last_index) ->
//                   last_max[2], last_min[1,3]; Pow(base[3] int64,
//                   exponent[3]) -> power[3] int64;
//   narrow-comparisons
//                   a_T[4], b_T[4] for T in u8, i8, i16, u16, u32 ->
//                   Greater, GreaterOrEqual, Less, LessOrEqual ->
//                   <op>_T[4] bool (opset 16);
//   narrow-reductions
//                   x_T[2,3] for T in u8, i8, u32 -> ReduceMax, ReduceMin,
//                   (u32: ReduceSum, ReduceProd, ReduceL1, ReduceSumSquare),
//                   ArgMax, ArgMin, (u32: CumSum), TopK (k 2), on axis 1
//                   (opset 13);
//   pools           x[1,1,4,4] -> MaxPool (pads), AveragePool (pads,
//                   count_include_pad 0), MaxPool (dilations), AveragePool
//                   (ceil_mode) -> max_pads, avg_pads, max_dilated, avg_ceil;
//   pool3d          x[1,2,5,6,7] -> 3-D MaxPool (pads), MaxPool
//                   (dilations, ceil_mode), AveragePool (ceil_mode,
//                   count_include_pad 0), AveragePool (pads,
//                   count_include_pad 1), AveragePool (SAME_UPPER),
//                   MaxPool (depth 1) -> max_pads, max_dilated_ceil,
//                   avg_ceil, avg_count_pads, avg_same, max_flat;
//   det-dft         opset 17: m[2,2,2] -> Det; signal[1,4,1] -> DFT;
//                   values, indices[1,1,2,2] -> MaxUnpool(2x2, strides 2)
//                   -> det[2], spectrum[1,4,2], unpooled[1,1,4,4];
//   resize-topk     opset 13: x[1,1,2,2] -> Resize (linear, scales),
//                   Resize (nearest, asymmetric, sizes); v[2,3] -> TopK
//                   (k 2) -> linear, nearest, top, top_indices;
//   run-time-constants
//                   Tile(x[2,3], repeats) and Range(start, limit, delta)
//                   with repeats and limit graph inputs (inputs the
//                   importer needs constant);
//   mlp-bench       mlp's structure, wider, for benchmarks: input[batch,784]
//                   -> Gemm 1024 -> Relu -> Gemm 1024 -> Relu -> Gemm 10 ->
//                   Softmax(axis 1) -> probabilities[batch,10];
//   torch-flatten, paddle-dynamic, tf2onnx-flatten
//                   symbolic dimensions and shape subgraphs as torch.onnx,
//                   paddle2onnx and tf2onnx write them (their builders say
//                   how; the paddle one declares an output dimension no
//                   input names);
//   shared-dim      a[N,3] + b[N,3] -> y[N,3]; shared-dim-bad-output declares
//                   y[N,7];
//   empty-shape     opset 17: x[N,3] -> shapes concatenated with an empty
//                   Slice of Shape(x), as LayerNormalization's function
//                   builds them for an axis of -rank -> mean[1,1] (the
//                   mean of x), y[N,3] (x reshaped to its own shape);
//   nonzero-shape   opset 13: x[3,4] -> NonZero(Shape(x) - [3, 0]) = [[1]]
//                   (a shape computation, folded at import time) -> row[1,4]
//                   (Gather of x at it, axis 0), where[1,1] (it as float);
//   nonzero-run-time
//                   opset 13: x[2,3] -> NonZero(Relu(x)) -> nz[2,n] (int64):
//                   its input computed at run time;
//   random          opset 15: RandomNormal (seed 5, mean 2, scale 3) ->
//                   normal[100,100]; RandomUniformLike(normal) (low -1,
//                   high 3, no seed) -> uniform[100,100]; Bernoulli(p[8])
//                   -> bernoulli[8]; random-bad-dtype: Bernoulli(p[2]) of
//                   dtype UINT64 (which gplace lacks) -> y[2]; random-like: x[10] ->
//                   RandomUniformLike -> y[10] (test_bernoulli_seed's
//                   signature);
//   maxpool-indices opset 13: x[1,2,7,7] -> MaxPool 3x3, strides 2, pads
//                   1, ceil_mode (y[1,2,4,4], its Indices) -> MaxUnpool ->
//                   unpooled[1,2,7,7]; MaxPool 2x2, dilations 2,
//                   storage_order 1 -> its Indices cast to float ->
//                   indices[1,2,5,5]; maxpool-indices-3d: x[1,1,4,4,4]
//                   -> MaxPool 2x2x2 with Indices (refused);
//   roi-align       opset 16: x[2,2,6,6], rois[3,4], batch_indices [1, 0, 1]
//                   -> RoiAlign avg (half_pixel, spatial_scale 0.5,
//                   sampling_ratio 2, 3x3), RoiAlign max (output_half_pixel,
//                   sampling_ratio 3, 2x2) -> avg[3,2,3,3], max[3,2,2,2];
//                   roi-align-adaptive: both sampling_ratio 0 (adaptive),
//                   the rois an initializer (roi-align's values);
//                   roi-align-adaptive-input: the same, the rois an input
//                   (refused);
//   chain:N         x[64] -> N elementwise nodes in a chain, cycling through
//                   Add(one), Mul(half), Sub(quarter), Max(zero) (four shared
//                   [64] initializers; node i is named `chain/op_<i>`) ->
//                   y[64]: an importer benchmark (bench/onnx_import.py).
//                   N is 1 to 10000000.
//
// Errors print `gplace-onnx-gen: error: ...` and exit 1.
//
//===----------------------------------------------------------------------===//

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

const char *const kTool = "gplace-onnx-gen";

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  std::exit(1);
}

// A 64-bit LCG (Knuth's MMIX constants); uniform() maps its top 24 bits to
// [0, 1) exactly, so the floats are the same on every platform.
class Lcg {
public:
  explicit Lcg(uint64_t seed) : state(seed) {}
  float uniform() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>(state >> 40) * (1.0f / 16777216.0f);
  }
  // Uniform in [low, high).
  float uniform(float low, float high) {
    return low + (high - low) * uniform();
  }

private:
  uint64_t state;
};

// A float tensor in the making: its name, dims and values.
struct Tensor {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<float> values;
};

int64_t numElements(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

Tensor uniformTensor(Lcg &rng, std::string name, std::vector<int64_t> dims,
                     float low, float high) {
  Tensor t{std::move(name), std::move(dims), {}};
  t.values.resize(static_cast<size_t>(numElements(t.dims)));
  for (float &v : t.values)
    v = rng.uniform(low, high);
  return t;
}

// Glorot (Xavier) uniform: limit sqrt(6 / (fan_in + fan_out)), where for a
// [out, in, k...] weight fan_in = in * k... and fan_out = out * k....
Tensor glorotTensor(Lcg &rng, std::string name, std::vector<int64_t> dims) {
  int64_t receptive = 1;
  for (size_t i = 2; i < dims.size(); ++i)
    receptive *= dims[i];
  double fanOut = static_cast<double>(dims[0] * receptive);
  double fanIn = static_cast<double>(dims[1] * receptive);
  float limit = static_cast<float>(std::sqrt(6.0 / (fanIn + fanOut)));
  return uniformTensor(rng, std::move(name), std::move(dims), -limit, limit);
}

// The values as little-endian IEEE float32 bytes, whatever the host's order.
std::string littleEndianBytes(const std::vector<float> &values) {
  std::string bytes(values.size() * 4, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], 4);
    for (int b = 0; b < 4; ++b)
      bytes[i * 4 + b] = static_cast<char>((bits >> (8 * b)) & 0xff);
  }
  return bytes;
}

// One dimension: a number, or a dim_param when it is a name.
struct Dim {
  Dim(int64_t v) : value(v) {}
  Dim(const char *p) : param(p) {}
  int64_t value = 0;
  std::string param;
};

void setFloatType(onnx::ValueInfoProto *info, const std::string &name,
                  std::initializer_list<Dim> dims,
                  int32_t elemType = onnx::TensorProto_DataType_FLOAT) {
  info->set_name(name);
  onnx::TypeProto_Tensor *tensorType =
      info->mutable_type()->mutable_tensor_type();
  tensorType->set_elem_type(elemType);
  onnx::TensorShapeProto *shape = tensorType->mutable_shape();
  for (const Dim &dim : dims) {
    onnx::TensorShapeProto_Dimension *d = shape->add_dim();
    if (dim.param.empty())
      d->set_dim_value(dim.value);
    else
      d->set_dim_param(dim.param);
  }
}

onnx::NodeProto *graphNode(onnx::GraphProto *g, const std::string &opType,
                           const std::string &name,
                           std::initializer_list<std::string> inputs,
                           std::initializer_list<std::string> outputs) {
  onnx::NodeProto *n = g->add_node();
  n->set_op_type(opType);
  n->set_name(name);
  for (const std::string &in : inputs)
    n->add_input(in);
  for (const std::string &out : outputs)
    n->add_output(out);
  return n;
}

class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset, const std::string &graphName) {
    model.set_ir_version(8);
    model.set_producer_name(kTool);
    model.set_producer_version("1");
    onnx::OperatorSetIdProto *opsetId = model.add_opset_import();
    opsetId->set_domain("");
    opsetId->set_version(opset);
    model.mutable_graph()->set_name(graphName);
  }

  void input(const std::string &name, std::initializer_list<Dim> dims) {
    setFloatType(model.mutable_graph()->add_input(), name, dims);
  }
  void int64Input(const std::string &name, std::initializer_list<Dim> dims) {
    setFloatType(model.mutable_graph()->add_input(), name, dims,
                 onnx::TensorProto_DataType_INT64);
  }
  void output(const std::string &name, std::initializer_list<Dim> dims) {
    setFloatType(model.mutable_graph()->add_output(), name, dims);
  }

  void initializer(const Tensor &t) {
    onnx::TensorProto *proto = model.mutable_graph()->add_initializer();
    proto->set_name(t.name);
    proto->set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (int64_t d : t.dims)
      proto->add_dims(d);
    proto->set_raw_data(littleEndianBytes(t.values));
  }

  onnx::NodeProto *node(const std::string &opType, const std::string &name,
                        std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs) {
    return graphNode(model.mutable_graph(), opType, name, inputs, outputs);
  }

  onnx::ModelProto model;
};

void attrInt(onnx::NodeProto *node, const std::string &name, int64_t value) {
  onnx::AttributeProto *a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(value);
}

void attrFloat(onnx::NodeProto *node, const std::string &name, float value) {
  onnx::AttributeProto *a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(value);
}

void attrString(onnx::NodeProto *node, const std::string &name,
                const std::string &value) {
  onnx::AttributeProto *a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_STRING);
  a->set_s(value);
}

void attrInts(onnx::NodeProto *node, const std::string &name,
              std::initializer_list<int64_t> values) {
  onnx::AttributeProto *a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  for (int64_t v : values)
    a->add_ints(v);
}

// Gemm(x, weight^T) + bias, the weight [out, in] Glorot-uniform and the bias
// uniform in [-0.05, 0.05).
void gemmLayer(ModelBuilder &b, Lcg &rng, const std::string &scope,
               const std::string &x, const std::string &y, int64_t in,
               int64_t out) {
  Tensor weight = glorotTensor(rng, scope + "/weight", {out, in});
  Tensor bias = uniformTensor(rng, scope + "/bias", {out}, -0.05f, 0.05f);
  b.initializer(weight);
  b.initializer(bias);
  onnx::NodeProto *gemm =
      b.node("Gemm", scope + "/Gemm", {x, weight.name, bias.name}, {y});
  attrInt(gemm, "transB", 1);
}

// mlp's graph with hidden layers of `hidden1` and `hidden2` units, its
// weights from an LCG seeded with `seed`.
onnx::ModelProto buildMlp(const std::string &graphName, uint64_t seed,
                          int64_t hidden1, int64_t hidden2) {
  ModelBuilder b(13, graphName);
  Lcg rng(seed);
  b.input("input", {"batch", 784});
  gemmLayer(b, rng, "encoder/fc1", "input", "encoder/fc1/Gemm:0", 784, hidden1);
  b.node("Relu", "encoder/relu1/Relu", {"encoder/fc1/Gemm:0"},
         {"encoder/relu1/Relu:0"});
  gemmLayer(b, rng, "encoder/fc2", "encoder/relu1/Relu:0", "encoder/fc2/Gemm:0",
            hidden1, hidden2);
  b.node("Relu", "encoder/relu2/Relu", {"encoder/fc2/Gemm:0"},
         {"encoder/relu2/Relu:0"});
  gemmLayer(b, rng, "decoder/fc3", "encoder/relu2/Relu:0", "decoder/fc3/Gemm:0",
            hidden2, 10);
  onnx::NodeProto *softmax = b.node("Softmax", "decoder/softmax/Softmax",
                                    {"decoder/fc3/Gemm:0"}, {"probabilities"});
  attrInt(softmax, "axis", 1);
  b.output("probabilities", {"batch", 10});
  return b.model;
}

onnx::ModelProto buildMlp(const std::string &graphName) {
  return buildMlp(graphName, 0x6d6c70u /* "mlp" */, 256, 128);
}

// x[64] -> `length` nodes cycling through Add, Mul, Sub and Max, each with
// one of four shared constant [64] initializers as its second operand
// (x + 1, x * 0.5, x - 0.25, max(x, 0): from any x, the values tend to 0.5)
// -> y[64].
onnx::ModelProto buildChain(int64_t length) {
  ModelBuilder b(13, "chain");
  b.input("x", {64});
  struct Step {
    const char *opType;
    const char *initializer;
    float value;
  };
  const Step steps[] = {{"Add", "one", 1.0f},
                        {"Mul", "half", 0.5f},
                        {"Sub", "quarter", 0.25f},
                        {"Max", "zero", 0.0f}};
  for (const Step &step : steps)
    b.initializer(
        Tensor{step.initializer, {64}, std::vector<float>(64, step.value)});
  std::string previous = "x";
  for (int64_t i = 0; i < length; ++i) {
    const Step &step = steps[i % 4];
    std::string name = "chain/op_" + std::to_string(i);
    std::string result = i + 1 == length ? "y" : name + ":0";
    b.node(step.opType, name, {previous, step.initializer}, {result});
    previous = result;
  }
  b.output("y", {64});
  return b.model;
}

// N of `chain:N`, or -1 when `text` is not a number from 1 to 10000000.
int64_t parseChainLength(const std::string &text) {
  if (text.empty() || text.size() > 8)
    return -1;
  int64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return -1;
    n = n * 10 + (c - '0');
  }
  return n >= 1 && n <= 10000000 ? n : -1;
}

onnx::ModelProto buildCnn() {
  ModelBuilder b(13, "cnn");
  Lcg rng(0x636e6eu); // "cnn"
  b.input("input", {"batch", 1, 28, 28});

  Tensor w1 = glorotTensor(rng, "features/conv1/weight", {8, 1, 3, 3});
  Tensor b1 = uniformTensor(rng, "features/conv1/bias", {8}, -0.05f, 0.05f);
  b.initializer(w1);
  b.initializer(b1);
  onnx::NodeProto *conv1 =
      b.node("Conv", "features/conv1/Conv", {"input", w1.name, b1.name},
             {"features/conv1/Conv:0"});
  attrInts(conv1, "kernel_shape", {3, 3});
  attrInts(conv1, "pads", {1, 1, 1, 1});
  attrInts(conv1, "strides", {1, 1});
  b.node("Relu", "features/relu1/Relu", {"features/conv1/Conv:0"},
         {"features/relu1/Relu:0"});
  onnx::NodeProto *pool1 =
      b.node("MaxPool", "features/pool1/MaxPool", {"features/relu1/Relu:0"},
             {"features/pool1/MaxPool:0"});
  attrInts(pool1, "kernel_shape", {2, 2});
  attrInts(pool1, "strides", {2, 2});

  Tensor w2 = glorotTensor(rng, "features/conv2/weight", {16, 8, 3, 3});
  b.initializer(w2);
  onnx::NodeProto *conv2 =
      b.node("Conv", "features/conv2/Conv",
             {"features/pool1/MaxPool:0", w2.name}, {"features/conv2/Conv:0"});
  attrInts(conv2, "kernel_shape", {3, 3});
  attrInts(conv2, "pads", {1, 1, 1, 1});
  attrInts(conv2, "strides", {1, 1});

  Tensor scale = uniformTensor(rng, "features/bn2/scale", {16}, 0.5f, 1.5f);
  Tensor shift = uniformTensor(rng, "features/bn2/bias", {16}, -0.1f, 0.1f);
  Tensor mean = uniformTensor(rng, "features/bn2/mean", {16}, -0.1f, 0.1f);
  Tensor var = uniformTensor(rng, "features/bn2/var", {16}, 0.5f, 1.5f);
  for (const Tensor *t : {&scale, &shift, &mean, &var})
    b.initializer(*t);
  onnx::NodeProto *bn = b.node(
      "BatchNormalization", "features/bn2/BatchNormalization",
      {"features/conv2/Conv:0", scale.name, shift.name, mean.name, var.name},
      {"features/bn2/BatchNormalization:0"});
  attrFloat(bn, "epsilon", 1e-5f);
  b.node("Relu", "features/relu2/Relu", {"features/bn2/BatchNormalization:0"},
         {"features/relu2/Relu:0"});
  onnx::NodeProto *pool2 = b.node("AveragePool", "features/pool2/AveragePool",
                                  {"features/relu2/Relu:0"},
                                  {"features/pool2/AveragePool:0"});
  attrInts(pool2, "kernel_shape", {2, 2});
  attrInts(pool2, "strides", {2, 2});

  onnx::NodeProto *flatten =
      b.node("Flatten", "classifier/flatten/Flatten",
             {"features/pool2/AveragePool:0"}, {"classifier/flatten/Flatten:0"});
  attrInt(flatten, "axis", 1);
  gemmLayer(b, rng, "classifier/fc", "classifier/flatten/Flatten:0", "logits",
            16 * 7 * 7, 10);
  b.output("logits", {"batch", 10});
  return b.model;
}

onnx::ModelProto buildUnsupported() {
  ModelBuilder b(13, "unsupported");
  b.input("x", {2, 3});
  b.node("LpNormalization", "lp_normalization_1", {"x"}, {"a"});
  b.node("Relu", "relu", {"a"}, {"b"});
  b.node("LpNormalization", "lp_normalization_2", {"b"}, {"c"});
  // Its samples (int32) are unused: GlobalLpPool takes floats.
  b.node("Multinomial", "multinomial", {"c"}, {"d"});
  b.node("GlobalLpPool", "global_lp_pool", {"c"}, {"y"});
  b.output("y", {2, 3});
  return b.model;
}

onnx::ModelProto buildDynamic() {
  ModelBuilder b(13, "dynamic");
  b.input("tokens", {"batch", 16});
  b.input("mask", {"seq", 16});
  b.node("Relu", "relu_tokens", {"tokens"}, {"tokens_relu"});
  b.node("Relu", "relu_mask", {"mask"}, {"mask_relu"});
  b.node("Add", "add", {"tokens_relu", "mask_relu"}, {"sum"});
  b.output("sum", {"batch", 16});
  return b.model;
}

// An integer initializer (INT64 or INT32) of the given dims and values.
void intInitializer(ModelBuilder &b, const std::string &name,
                    std::vector<int64_t> dims, std::vector<int64_t> values,
                    int32_t dataType = onnx::TensorProto_DataType_INT64) {
  onnx::TensorProto *proto = b.model.mutable_graph()->add_initializer();
  proto->set_name(name);
  proto->set_data_type(dataType);
  for (int64_t d : dims)
    proto->add_dims(d);
  for (int64_t v : values)
    if (dataType == onnx::TensorProto_DataType_INT64)
      proto->add_int64_data(v);
    else
      proto->add_int32_data(static_cast<int32_t>(v));
}

// What torch.onnx writes for `x.view(x.size(0), -1)` after a convolution
// (dynamic_axes on the batch): x[batch_size,3,8,8] -> Conv 4x3x3x3 -> Relu
// -> Shape -> Gather(Constant 0) -> Unsqueeze -> Concat(-1) -> Reshape ->
// MatMul 144x10 -> Add -> y[batch_size,10].
onnx::ModelProto buildTorchFlatten() {
  ModelBuilder b(13, "torch_jit");
  Lcg rng(0x746f7263u); // "torc"
  b.input("x", {"batch_size", 3, 8, 8});
  Tensor w = glorotTensor(rng, "conv.weight", {4, 3, 3, 3});
  Tensor g = glorotTensor(rng, "fc.weight", {144, 10});
  Tensor bias = uniformTensor(rng, "fc.bias", {10}, -0.05f, 0.05f);
  b.initializer(w);
  b.initializer(g);
  b.initializer(bias);
  intInitializer(b, "onnx::Unsqueeze_axes", {1}, {0});
  intInitializer(b, "onnx::Concat_minus_one", {1}, {-1});
  onnx::NodeProto *conv = b.node("Conv", "Conv_0", {"x", w.name}, {"input"});
  attrInts(conv, "kernel_shape", {3, 3});
  b.node("Relu", "Relu_1", {"input"}, {"onnx::Shape_3"});
  b.node("Shape", "Shape_2", {"onnx::Shape_3"}, {"onnx::Gather_4"});
  onnx::NodeProto *zero = b.node("Constant", "Constant_3", {}, {"onnx::Gather_5"});
  onnx::AttributeProto *value = zero->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto_DataType_INT64);
  value->mutable_t()->add_int64_data(0);
  onnx::NodeProto *gather = b.node("Gather", "Gather_4",
                                   {"onnx::Gather_4", "onnx::Gather_5"},
                                   {"onnx::Unsqueeze_6"});
  attrInt(gather, "axis", 0);
  b.node("Unsqueeze", "Unsqueeze_5",
         {"onnx::Unsqueeze_6", "onnx::Unsqueeze_axes"}, {"onnx::Concat_7"});
  onnx::NodeProto *concat =
      b.node("Concat", "Concat_6", {"onnx::Concat_7", "onnx::Concat_minus_one"},
             {"onnx::Reshape_8"});
  attrInt(concat, "axis", 0);
  b.node("Reshape", "Reshape_7", {"onnx::Shape_3", "onnx::Reshape_8"},
         {"onnx::MatMul_9"});
  b.node("MatMul", "MatMul_8", {"onnx::MatMul_9", g.name}, {"onnx::Add_10"});
  b.node("Add", "Add_9", {"onnx::Add_10", bias.name}, {"y"});
  b.output("y", {"batch_size", 10});
  return b.model;
}

// What paddle2onnx writes (opset 11): the output's declared dimension has a
// name no input has. x[p2o.DynamicDimension.0,16] -> MatMul 16x8 -> Shape
// -> Slice [0:1] -> Concat([2, 4]) -> Reshape -> Softmax(-1) ->
// softmax_0.tmp_0[p2o.DynamicDimension.3,2,4].
onnx::ModelProto buildPaddleDynamic() {
  ModelBuilder b(11, "paddle");
  Lcg rng(0x70326fu); // "p2o"
  b.input("x", {"p2o.DynamicDimension.0", 16});
  Tensor w = glorotTensor(rng, "linear_0.w_0", {16, 8});
  b.initializer(w);
  intInitializer(b, "p2o.helper.starts", {1}, {0});
  intInitializer(b, "p2o.helper.ends", {1}, {1});
  intInitializer(b, "p2o.helper.axes", {1}, {0});
  intInitializer(b, "p2o.helper.tail", {2}, {2, 4});
  b.node("MatMul", "p2o.MatMul.0", {"x", w.name}, {"linear_0.tmp_0"});
  b.node("Shape", "p2o.Shape.0", {"linear_0.tmp_0"}, {"p2o.Shape.0.out"});
  b.node("Slice", "p2o.Slice.0",
         {"p2o.Shape.0.out", "p2o.helper.starts", "p2o.helper.ends",
          "p2o.helper.axes"},
         {"p2o.Slice.0.out"});
  onnx::NodeProto *concat =
      b.node("Concat", "p2o.Concat.0", {"p2o.Slice.0.out", "p2o.helper.tail"},
             {"p2o.Concat.0.out"});
  attrInt(concat, "axis", 0);
  b.node("Reshape", "p2o.Reshape.0", {"linear_0.tmp_0", "p2o.Concat.0.out"},
         {"reshape2_0.tmp_0"});
  onnx::NodeProto *softmax = b.node("Softmax", "p2o.Softmax.0",
                                    {"reshape2_0.tmp_0"}, {"softmax_0.tmp_0"});
  attrInt(softmax, "axis", -1);
  b.output("softmax_0.tmp_0", {"p2o.DynamicDimension.3", 2, 4});
  return b.model;
}

// What tf2onnx writes for Keras' Flatten on NHWC input: Transpose to NCHW,
// then Shape -> Cast(int32) -> Slice -> Concat(-1) -> Cast(int64) ->
// Reshape; input_1[unk__6,5,5,2] -> ... -> MatMul 50x3 -> Softmax ->
// dense[unk__7,3].
onnx::ModelProto buildTf2onnxFlatten() {
  ModelBuilder b(13, "tf2onnx");
  Lcg rng(0x7466u); // "tf"
  b.input("input_1", {"unk__6", 5, 5, 2});
  Tensor w = glorotTensor(rng, "model/dense/MatMul/ReadVariableOp:0", {50, 3});
  b.initializer(w);
  const int32_t i32 = onnx::TensorProto_DataType_INT32;
  intInitializer(b, "const_starts__10", {1}, {0}, i32);
  intInitializer(b, "const_ends__11", {1}, {1}, i32);
  intInitializer(b, "const_axes__12", {1}, {0}, i32);
  intInitializer(b, "const_fold_opt__13", {1}, {-1}, i32);
  onnx::NodeProto *transpose =
      b.node("Transpose", "model/conv/Conv2D__6", {"input_1"}, {"t:0"});
  attrInts(transpose, "perm", {0, 3, 1, 2});
  b.node("Relu", "model/relu/Relu", {"t:0"}, {"model/relu/Relu:0"});
  b.node("Shape", "model/flatten/Shape", {"model/relu/Relu:0"},
         {"model/flatten/Shape:0"});
  onnx::NodeProto *cast = b.node("Cast", "model/flatten/Shape__7",
                                 {"model/flatten/Shape:0"},
                                 {"model/flatten/Shape__7:0"});
  attrInt(cast, "to", i32);
  b.node("Slice", "model/flatten/strided_slice",
         {"model/flatten/Shape__7:0", "const_starts__10", "const_ends__11",
          "const_axes__12"},
         {"model/flatten/strided_slice:0"});
  onnx::NodeProto *concat = b.node(
      "Concat", "model/flatten/Reshape/shape",
      {"model/flatten/strided_slice:0", "const_fold_opt__13"},
      {"model/flatten/Reshape/shape:0"});
  attrInt(concat, "axis", 0);
  onnx::NodeProto *cast64 = b.node("Cast", "model/flatten/Reshape__8",
                                   {"model/flatten/Reshape/shape:0"},
                                   {"model/flatten/Reshape__8:0"});
  attrInt(cast64, "to", onnx::TensorProto_DataType_INT64);
  b.node("Reshape", "model/flatten/Reshape",
         {"model/relu/Relu:0", "model/flatten/Reshape__8:0"},
         {"model/flatten/Reshape:0"});
  b.node("MatMul", "model/dense/MatMul", {"model/flatten/Reshape:0", w.name},
         {"model/dense/MatMul:0"});
  onnx::NodeProto *softmax = b.node("Softmax", "model/dense/Softmax",
                                    {"model/dense/MatMul:0"}, {"dense"});
  attrInt(softmax, "axis", 1);
  b.output("dense", {"unk__7", 3});
  return b.model;
}

// Two inputs sharing one symbolic dimension: a[N,3] + b[N,3] -> y[N,3];
// `declared` is the output's declared second dimension (3 is right).
onnx::ModelProto buildSharedDim(int64_t declared) {
  ModelBuilder b(13, "shared_dim");
  b.input("a", {"N", 3});
  b.input("b", {"N", 3});
  b.node("Add", "add", {"a", "b"}, {"y"});
  b.output("y", {"N", declared});
  return b.model;
}

// An int64 Constant node of the given dims and values.
void intConstant(ModelBuilder &b, const std::string &name,
                 std::vector<int64_t> dims, std::vector<int64_t> values) {
  onnx::NodeProto *node = b.node("Constant", name, {}, {name});
  onnx::AttributeProto *value = node->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto_DataType_INT64);
  for (int64_t d : dims)
    value->mutable_t()->add_dims(d);
  for (int64_t v : values)
    value->mutable_t()->add_int64_data(v);
}

// Shapes with an empty part, as ONNX's LayerNormalization function builds
// its reduced shape for an axis of -rank (opset 17): x[N,3] -> Shape ->
// Slice [0:-2] (empty) -> Concat(that, ConstantOfShape(Neg(-2)) = [1, 1])
// -> Reshape(ReduceMean(Flatten(x, 0), axis 1)) -> mean[1,1]; and
// Concat(empty, Shape(x), empty) -> Reshape(x) -> y[N,3].
onnx::ModelProto buildEmptyShape() {
  ModelBuilder b(17, "empty_shape");
  b.input("x", {"N", 3});
  b.node("Shape", "shape", {"x"}, {"x_shape"});
  intConstant(b, "zero", {1}, {0});
  intConstant(b, "axis", {1}, {-2});
  b.node("Slice", "prefix", {"x_shape", "zero", "axis"}, {"prefix_shape"});
  b.node("Neg", "count", {"axis"}, {"reduced_count"});
  onnx::NodeProto *ones = b.node("ConstantOfShape", "suffix",
                                 {"reduced_count"}, {"suffix_shape"});
  onnx::AttributeProto *one = ones->add_attribute();
  one->set_name("value");
  one->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  one->mutable_t()->set_data_type(onnx::TensorProto_DataType_INT64);
  one->mutable_t()->add_dims(1);
  one->mutable_t()->add_int64_data(1);
  attrInt(b.node("Concat", "reduced", {"prefix_shape", "suffix_shape"},
                 {"reduced_shape"}),
          "axis", 0);
  attrInt(b.node("Flatten", "flatten", {"x"}, {"x_2d"}), "axis", 0);
  attrInts(b.node("ReduceMean", "mean_2d", {"x_2d"}, {"mean_2d"}), "axes",
           {1});
  b.node("Reshape", "mean", {"mean_2d", "reduced_shape"}, {"mean"});
  attrInt(b.node("Concat", "same", {"prefix_shape", "x_shape", "prefix_shape"},
                 {"same_shape"}),
          "axis", 0);
  b.node("Reshape", "y", {"x", "same_shape"}, {"y"});
  b.output("mean", {1, 1});
  b.output("y", {"N", 3});
  return b.model;
}

// NonZero over a shape computation, as exporters write one (opset 13):
// x[3,4] -> Shape -> Sub([3, 0]) = [0, 4] -> NonZero = [[1]] -> Reshape
// [-1] -> Gather(x, axis 0) -> row[1,4]; Cast(NonZero, float) ->
// where[1,1]. The importer computes NonZero at import time.
onnx::ModelProto buildNonZeroShape() {
  ModelBuilder b(13, "nonzero_shape");
  b.input("x", {3, 4});
  b.node("Shape", "shape", {"x"}, {"x_shape"});
  intConstant(b, "offset", {2}, {3, 0});
  b.node("Sub", "left", {"x_shape", "offset"}, {"left"});
  b.node("NonZero", "nonzero", {"left"}, {"nonzero"});
  intConstant(b, "flat", {1}, {-1});
  b.node("Reshape", "index", {"nonzero", "flat"}, {"index"});
  attrInt(b.node("Gather", "row", {"x", "index"}, {"row"}), "axis", 0);
  attrInt(b.node("Cast", "where", {"nonzero"}, {"where"}), "to",
          onnx::TensorProto_DataType_FLOAT);
  b.output("row", {"rows", 4});
  b.output("where", {1, "rows"});
  return b.model;
}

// NonZero of values computed at run time (opset 13): x[2,3] -> Relu ->
// NonZero -> nz[2,n] (int64). Without x's value the importer refuses it;
// with it (gplace-run's small inputs) the graph is specialized.
onnx::ModelProto buildNonZeroRunTime() {
  ModelBuilder b(13, "nonzero_run_time");
  b.input("x", {2, 3});
  b.node("Relu", "relu", {"x"}, {"positive"});
  b.node("NonZero", "nonzero", {"positive"}, {"nz"});
  setFloatType(b.model.mutable_graph()->add_output(), "nz", {2, "n"},
               onnx::TensorProto_DataType_INT64);
  return b.model;
}

// Random numbers (opset 15): RandomNormal (seed 5, mean 2, scale 3) ->
// normal[100,100]; RandomUniformLike(normal) (low -1, high 3, no seed)
// -> uniform[100,100]; Bernoulli(p[8]) -> bernoulli[8]. RandomForm::BadDtype:
// Bernoulli(p[2]) of dtype UINT64 -> y[2] instead; RandomForm::Like:
// x[10] -> RandomUniformLike -> y[10].
enum class RandomForm { All, BadDtype, Like };
onnx::ModelProto buildRandom(RandomForm form) {
  ModelBuilder b(15, "random");
  if (form == RandomForm::Like) {
    b.input("x", {10});
    b.node("RandomUniformLike", "uniform", {"x"}, {"y"});
    b.output("y", {10});
    return b.model;
  }
  if (form == RandomForm::BadDtype) {
    b.input("p", {2});
    attrInt(b.node("Bernoulli", "bernoulli", {"p"}, {"y"}), "dtype",
            onnx::TensorProto_DataType_UINT64);
    setFloatType(b.model.mutable_graph()->add_output(), "y", {2},
                 onnx::TensorProto_DataType_UINT64);
    return b.model;
  }
  b.input("p", {8});
  onnx::NodeProto *normal = b.node("RandomNormal", "normal", {}, {"normal"});
  attrFloat(normal, "seed", 5);
  attrFloat(normal, "mean", 2);
  attrFloat(normal, "scale", 3);
  attrInts(normal, "shape", {100, 100});
  onnx::NodeProto *uniform =
      b.node("RandomUniformLike", "uniform", {"normal"}, {"uniform"});
  attrFloat(uniform, "low", -1);
  attrFloat(uniform, "high", 3);
  b.node("Bernoulli", "bernoulli", {"p"}, {"bernoulli"});
  b.output("normal", {100, 100});
  b.output("uniform", {100, 100});
  b.output("bernoulli", {8});
  return b.model;
}

// MaxPool's Indices (opset 13). maxpool-indices-3d: x[1,1,4,4,4] ->
// MaxPool 2x2x2 -> y and its Indices (refused: 2-D only).
// maxpool-indices: x[1,2,7,7] -> MaxPool (3x3, strides 2,
// pads 1, ceil_mode 1) -> y[1,2,4,4] and its Indices -> MaxUnpool (the same
// window) -> unpooled[1,2,7,7]; MaxPool (2x2, dilations 2, storage_order
// 1) -> its Indices, Cast to float -> indices[1,2,5,5] (float outputs, so
// that onnxruntime-node's harness writes them).
onnx::ModelProto buildMaxPoolIndices3d() {
  ModelBuilder b(13, "maxpool_indices_3d");
  b.input("x", {1, 1, 4, 4, 4});
  onnx::NodeProto *pool = b.node("MaxPool", "pool", {"x"}, {"y", "indices"});
  attrInts(pool, "kernel_shape", {2, 2, 2});
  attrInts(pool, "strides", {2, 2, 2});
  b.output("y", {1, 1, 2, 2, 2});
  setFloatType(b.model.mutable_graph()->add_output(), "indices",
               {1, 1, 2, 2, 2}, onnx::TensorProto_DataType_INT64);
  return b.model;
}

// ConvTranspose of a 3-D window (opset 13): x[1,2,3,4,5], filter
// w[2,3,3,2,3] and bias b[3] (inputs), strides [2,1,2], pads
// [1,0,1,0,1,1], dilations [1,2,1], output_padding [1,0,0] ->
// y[1,3,7,5,9].
onnx::ModelProto buildConvTranspose3d() {
  ModelBuilder b(13, "convtranspose_3d");
  b.input("x", {1, 2, 3, 4, 5});
  b.input("w", {2, 3, 3, 2, 3});
  b.input("b", {3});
  onnx::NodeProto *conv = b.node("ConvTranspose", "y", {"x", "w", "b"}, {"y"});
  attrInts(conv, "strides", {2, 1, 2});
  attrInts(conv, "pads", {1, 0, 1, 0, 1, 1});
  attrInts(conv, "dilations", {1, 2, 1});
  attrInts(conv, "output_padding", {1, 0, 0});
  b.output("y", {1, 3, 7, 5, 9});
  return b.model;
}

// A grouped 3-D ConvTranspose (group 2), which gplace refuses.
onnx::ModelProto buildConvTranspose3dGroup() {
  ModelBuilder b(13, "convtranspose_3d_group");
  b.input("x", {1, 2, 3, 4, 4});
  b.input("w", {2, 1, 2, 2, 2});
  attrInt(b.node("ConvTranspose", "y", {"x", "w"}, {"y"}), "group", 2);
  b.output("y", {1, 2, 4, 5, 5});
  return b.model;
}

// LayerNormalization (opset 17) of relu(x[2,3,4]) (a value of no declared
// shape) over its last axis (-1) -> y[2,3,4] and its Mean output
// mean[2,3,1]; layernorm-bad-axis: over axis 3, out of range (ONNX 1.12's
// inference indexes the input's dimensions from the axis unchecked).
onnx::ModelProto buildLayerNormMean(int64_t axis) {
  ModelBuilder b(17, "layernorm_mean");
  b.input("x", {2, 3, 4});
  b.initializer(Tensor{"scale", {4}, {1.0f, 1.0f, 1.0f, 1.0f}});
  b.node("Relu", "relu", {"x"}, {"r"});
  attrInt(b.node("LayerNormalization", "norm", {"r", "scale"},
                 {"y", "mean"}),
          "axis", axis);
  b.output("y", {2, 3, 4});
  b.output("mean", {2, 3, axis == -1 ? 1 : 4});
  return b.model;
}

// Conv of x[1,2,3] by the filter w[2,1,1,1] (an initializer of rank 4):
// ONNX 1.12's inference indexes x's dimensions by the filter's window.
onnx::ModelProto buildConvRankMismatch() {
  ModelBuilder b(13, "conv_rank_mismatch");
  b.input("x", {1, 2, 3});
  b.initializer(Tensor{"w", {2, 1, 1, 1}, {1.0f, 2.0f}});
  attrInt(b.node("Conv", "conv", {"x", "w"}, {"y"}), "group", 2);
  b.output("y", {1, 2, 3});
  return b.model;
}

// Two Convs with a Reshape between them whose shape is an int64 Constant
// node before the first: x[1,2,4,4] -> Relu -> Conv (w1, 1x1) -> Relu ->
// Reshape to `shape` -> Relu -> Conv (w2, 1x1). No value_info declares a
// Conv's input, so the importer asks ONNX's inference for each one's rank
// before the node, the second time over the nodes since the first only
// (PrefixShapes in Reading.cpp), which must still see the Constant's data:
// with shape [1, 2, 16] the second Conv's input has rank 3 and the import
// is refused; with [1, 2, 4, 4] it imports.
onnx::ModelProto buildConvChain(std::vector<int64_t> shape) {
  ModelBuilder b(13, "conv_chain");
  b.input("x", {1, 2, 4, 4});
  intConstant(b, "shape", {int64_t(shape.size())}, shape);
  b.initializer(Tensor{"w1", {2, 2, 1, 1}, {1.0f, 0.5f, -0.5f, 1.0f}});
  b.initializer(Tensor{"w2", {2, 2, 1, 1}, {1.0f, 0.0f, 0.0f, 1.0f}});
  b.node("Relu", "relu0", {"x"}, {"r0"});
  b.node("Conv", "conv1", {"r0", "w1"}, {"c1"});
  b.node("Relu", "relu1", {"c1"}, {"r1"});
  b.node("Reshape", "reshape", {"r1", "shape"}, {"s"});
  b.node("Relu", "relu2", {"s"}, {"r2"});
  b.node("Conv", "conv2", {"r2", "w2"}, {"y"});
  b.output("y", {1, 2, 4, 4});
  return b.model;
}

// MaxUnpool of x[1,2,4,4] (2x2, strides 2) whose indices are a graph
// input of rank 1 (int64 [32]): ONNX 1.12's inference of MaxUnpool reads
// their dimension 1 unchecked (the importer refuses the node first).
onnx::ModelProto buildMaxUnpoolBadIndices() {
  ModelBuilder b(13, "maxunpool_bad_indices");
  b.input("x", {1, 2, 4, 4});
  b.int64Input("indices", {32});
  onnx::NodeProto *unpool =
      b.node("MaxUnpool", "unpool", {"x", "indices"}, {"unpooled"});
  attrInts(unpool, "kernel_shape", {2, 2});
  attrInts(unpool, "strides", {2, 2});
  b.output("unpooled", {1, 2, 8, 8});
  return b.model;
}

onnx::ModelProto buildMaxPoolIndices() {
  ModelBuilder b(13, "maxpool_indices");
  b.input("x", {1, 2, 7, 7});
  onnx::NodeProto *pool =
      b.node("MaxPool", "pool", {"x"}, {"y", "pool_indices"});
  attrInts(pool, "kernel_shape", {3, 3});
  attrInts(pool, "strides", {2, 2});
  attrInts(pool, "pads", {1, 1, 1, 1});
  attrInt(pool, "ceil_mode", 1);
  onnx::NodeProto *unpool =
      b.node("MaxUnpool", "unpool", {"y", "pool_indices"}, {"unpooled"});
  attrInts(unpool, "kernel_shape", {3, 3});
  attrInts(unpool, "strides", {2, 2});
  attrInts(unpool, "pads", {1, 1, 1, 1});
  onnx::NodeProto *dilated =
      b.node("MaxPool", "dilated", {"x"}, {"dilated_y", "dilated_indices"});
  attrInts(dilated, "kernel_shape", {2, 2});
  attrInts(dilated, "dilations", {2, 2});
  attrInt(dilated, "storage_order", 1);
  attrInt(b.node("Cast", "indices", {"dilated_indices"}, {"indices"}), "to",
          onnx::TensorProto_DataType_FLOAT);
  b.output("y", {1, 2, 4, 4});
  b.output("unpooled", {1, 2, 7, 7});
  b.output("indices", {1, 2, 5, 5});
  return b.model;
}

// RoiAlign (opset 16): x[2,2,6,6], rois[3,4] and batch_indices [1, 0, 1]
// (an initializer) -> avg (half_pixel, spatial_scale 0.5, sampling_ratio
// 2, 3x3 bins), max (output_half_pixel, sampling_ratio 3, 2x2 bins) ->
// avg[3,2,3,3], max[3,2,2,2]. `adaptive`: both nodes' sampling_ratio 0,
// the rois the initializer `rois` [[0, 0, 10, 10], [2, 1, 8, 11], [-4, 3,
// 14, 7]] if `constantRois` (else an input, which gplace refuses).
onnx::ModelProto buildRoiAlign(bool adaptive, bool constantRois) {
  ModelBuilder b(16, "roi_align");
  b.input("x", {2, 2, 6, 6});
  if (constantRois)
    b.initializer(Tensor{"rois", {3, 4}, {0, 0, 10, 10, 2, 1, 8, 11, -4, 3, 14, 7}});
  else
    b.input("rois", {3, 4});
  intInitializer(b, "batch_indices", {3}, {1, 0, 1});
  onnx::NodeProto *avg =
      b.node("RoiAlign", "avg", {"x", "rois", "batch_indices"}, {"avg"});
  attrString(avg, "coordinate_transformation_mode", "half_pixel");
  attrFloat(avg, "spatial_scale", 0.5f);
  attrInt(avg, "sampling_ratio", adaptive ? 0 : 2);
  attrInt(avg, "output_height", 3);
  attrInt(avg, "output_width", 3);
  onnx::NodeProto *max =
      b.node("RoiAlign", "max", {"x", "rois", "batch_indices"}, {"max"});
  attrString(max, "coordinate_transformation_mode", "output_half_pixel");
  attrString(max, "mode", "max");
  attrInt(max, "sampling_ratio", adaptive ? 0 : 3);
  attrInt(max, "output_height", 2);
  attrInt(max, "output_width", 2);
  b.output("avg", {3, 2, 3, 3});
  b.output("max", {3, 2, 2, 2});
  return b.model;
}

onnx::ModelProto buildSoftmaxOpset9() {
  ModelBuilder b(9, "softmax_opset9");
  b.input("x", {2, 3, 4});
  onnx::NodeProto *softmax = b.node("Softmax", "softmax", {"x"},
                                    {"probabilities"});
  attrInt(softmax, "axis", 1);
  b.output("probabilities", {2, 3, 4});
  return b.model;
}

// The losses: scores[2,4,3] (N, C, d1) and labels[2,3] ->
// SoftmaxCrossEntropyLoss (class weights, ignore_index 1, mean) -> loss and
// log_prob[2,4,3]; NegativeLogLikelihoodLoss(log_prob, labels) (sum) ->
// nll.
onnx::ModelProto buildLosses() {
  ModelBuilder b(13, "losses");
  b.input("scores", {2, 4, 3});
  b.int64Input("labels", {2, 3});
  b.initializer(Tensor{"class_weights", {4}, {1.0f, 0.5f, 2.0f, 0.25f}});
  onnx::NodeProto *sce =
      b.node("SoftmaxCrossEntropyLoss", "sce",
             {"scores", "labels", "class_weights"}, {"loss", "log_prob"});
  attrInt(sce, "ignore_index", 1);
  onnx::AttributeProto *reduction = sce->add_attribute();
  reduction->set_name("reduction");
  reduction->set_type(onnx::AttributeProto_AttributeType_STRING);
  reduction->set_s("mean");
  onnx::NodeProto *nll = b.node("NegativeLogLikelihoodLoss", "nll",
                                {"log_prob", "labels"}, {"nll"});
  *nll->add_attribute() = *reduction;
  nll->mutable_attribute(0)->set_s("sum");
  b.output("loss", {});
  b.output("log_prob", {2, 4, 3});
  b.output("nll", {});
  return b.model;
}

// The training domain's optimizers (ai.onnx.preview.training, version 1)
// on one set of inputs: r and t (the learning rate and the step count,
// scalars), x, g, v, h [2].
onnx::ModelProto buildOptimizers() {
  ModelBuilder b(13, "optimizers");
  onnx::OperatorSetIdProto *training = b.model.add_opset_import();
  training->set_domain("ai.onnx.preview.training");
  training->set_version(1);
  b.input("r", {});
  b.int64Input("t", {});
  for (const char *name : {"x", "g", "v", "h"})
    b.input(name, {2});
  onnx::NodeProto *adagrad =
      b.node("Adagrad", "adagrad", {"r", "t", "x", "g", "h"},
             {"ada_x", "ada_h"});
  attrFloat(adagrad, "decay_factor", 0.1f);
  attrFloat(adagrad, "epsilon", 1e-5f);
  attrFloat(adagrad, "norm_coefficient", 0.001f);
  onnx::NodeProto *momentum = b.node("Momentum", "momentum",
                                     {"r", "t", "x", "g", "v"},
                                     {"mom_x", "mom_v"});
  attrFloat(momentum, "alpha", 0.95f);
  attrFloat(momentum, "beta", 0.9f);
  attrFloat(momentum, "norm_coefficient", 0.01f);
  attrString(momentum, "mode", "nesterov");
  onnx::NodeProto *adam =
      b.node("Adam", "adam", {"r", "t", "x", "g", "v", "h"},
             {"adam_x", "adam_v", "adam_h"});
  attrFloat(adam, "alpha", 0.9f);
  attrFloat(adam, "beta", 0.999f);
  attrFloat(adam, "epsilon", 1e-7f);
  attrFloat(adam, "norm_coefficient", 0.001f);
  attrFloat(adam, "norm_coefficient_post", 0.01f);
  for (onnx::NodeProto *node : {adagrad, momentum, adam})
    node->set_domain("ai.onnx.preview.training");
  for (const char *name :
       {"ada_x", "ada_h", "mom_x", "mom_v", "adam_x", "adam_v", "adam_h"})
    b.output(name, {2});
  return b.model;
}

// ai.onnx.preview.training's Gradient of y = Tanh(MatMul(x, w)) [2,2] with
// respect to w (an input) and h = MatMul(x, w) (an intermediate tensor),
// x in zs. `variant` 0: the inputs are the tensors xs and zs name (dy_dh's
// output declared with symbolic dimensions); 1: the first input is another tensor
// than xs's "w" (ONNX's substitution); 2: w is an initializer; 3: the
// Gradient node comes before y's Tanh.
onnx::ModelProto buildGradient(int variant) {
  ModelBuilder b(13, "gradient");
  onnx::OperatorSetIdProto *training = b.model.add_opset_import();
  training->set_domain("ai.onnx.preview.training");
  training->set_version(1);
  b.input("x", {2, 3});
  if (variant == 2)
    b.initializer({"w", {3, 2}, {0.5f, -0.25f, 0.125f, 0.75f, -0.5f, 1.0f}});
  else
    b.input("w", {3, 2});
  if (variant == 1)
    b.input("w2", {3, 2});
  b.node("MatMul", "matmul", {"x", "w"}, {"h"});
  auto tanh = [&] { b.node("Tanh", "tanh", {"h"}, {"y"}); };
  if (variant != 3)
    tanh();
  onnx::NodeProto *gradient =
      b.node("Gradient", "gradient", {variant == 1 ? "w2" : "w", "h", "x"},
             {"dy_dw", "dy_dh"});
  gradient->set_domain("ai.onnx.preview.training");
  onnx::AttributeProto *xs = gradient->add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto_AttributeType_STRINGS);
  xs->add_strings("w");
  xs->add_strings("h");
  onnx::AttributeProto *zs = gradient->add_attribute();
  zs->set_name("zs");
  zs->set_type(onnx::AttributeProto_AttributeType_STRINGS);
  zs->add_strings("x");
  attrString(gradient, "y", "y");
  if (variant == 3)
    tanh();
  b.output("y", {2, 2});
  b.output("dy_dw", {3, 2});
  b.output("dy_dh", {"n", "m"});
  return b.model;
}

// ConvInteger and QLinearConv of a window of 360 products per output, per
// output channel zero points and scales, an int32 bias.
onnx::ModelProto buildQuantized() {
  ModelBuilder b(13, "quantized");
  onnx::GraphProto *g = b.model.mutable_graph();
  setFloatType(g->add_input(), "x", {1, 40, 4, 4},
               onnx::TensorProto_DataType_UINT8);
  auto constant = [&](const std::string &name, std::vector<int64_t> dims,
                      int32_t type, const std::string &bytes) {
    onnx::TensorProto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims)
      t->add_dims(d);
    t->set_raw_data(bytes);
  };
  std::string w(2 * 40 * 3 * 3, '\0');
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<char>(200 + (91 * i + 7) % 53);
  constant("w", {2, 40, 3, 3}, onnx::TensorProto_DataType_UINT8, w);
  constant("x_zero_point", {}, onnx::TensorProto_DataType_UINT8,
           std::string(1, static_cast<char>(5)));
  constant("w_zero_point", {2}, onnx::TensorProto_DataType_UINT8,
           std::string{static_cast<char>(0), static_cast<char>(250)});
  constant("y_zero_point", {}, onnx::TensorProto_DataType_UINT8,
           std::string(1, static_cast<char>(100)));
  b.initializer(Tensor{"x_scale", {}, {0.02f}});
  b.initializer(Tensor{"w_scale", {2}, {0.01f, 0.05f}});
  b.initializer(Tensor{"y_scale", {}, {40.0f}});
  std::string bias(8, '\0');
  for (int i = 0; i < 2; ++i) {
    uint32_t v = static_cast<uint32_t>(i == 0 ? 1000 : -2000);
    for (int k = 0; k < 4; ++k)
      bias[i * 4 + k] = static_cast<char>((v >> (8 * k)) & 0xff);
  }
  constant("B", {2}, onnx::TensorProto_DataType_INT32, bias);
  b.node("ConvInteger", "conv_integer", {"x", "w", "x_zero_point",
                                         "w_zero_point"}, {"sums"});
  b.node("QLinearConv", "qlinear_conv",
         {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
          "y_scale", "y_zero_point", "B"},
         {"requantized"});
  setFloatType(g->add_output(), "sums", {1, 2, 2, 2},
               onnx::TensorProto_DataType_INT32);
  setFloatType(g->add_output(), "requantized", {1, 2, 2, 2},
               onnx::TensorProto_DataType_UINT8);
  return b.model;
}

// STFT of a complex signal, two-sided; a MelWeightMatrix of constants.
onnx::ModelProto buildStftMel() {
  ModelBuilder b(17, "stft_mel");
  onnx::GraphProto *g = b.model.mutable_graph();
  b.input("signal", {1, 10, 2});
  auto scalar = [&](const std::string &name, int32_t type, int64_t i,
                    float f) {
    onnx::TensorProto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    if (type == onnx::TensorProto_DataType_FLOAT)
      t->add_float_data(f);
    else if (type == onnx::TensorProto_DataType_INT64)
      t->add_int64_data(i);
    else
      t->add_int32_data(static_cast<int32_t>(i));
  };
  scalar("frame_step", onnx::TensorProto_DataType_INT64, 3, 0);
  scalar("frame_length", onnx::TensorProto_DataType_INT64, 4, 0);
  scalar("num_mel_bins", onnx::TensorProto_DataType_INT32, 2, 0);
  scalar("dft_length", onnx::TensorProto_DataType_INT32, 24, 0);
  scalar("sample_rate", onnx::TensorProto_DataType_INT32, 1000, 0);
  scalar("lower_edge_hertz", onnx::TensorProto_DataType_FLOAT, 0, 0.0f);
  scalar("upper_edge_hertz", onnx::TensorProto_DataType_FLOAT, 0, 500.0f);
  onnx::NodeProto *stft =
      b.node("STFT", "stft", {"signal", "frame_step", "", "frame_length"},
             {"spectrum"});
  attrInt(stft, "onesided", 0);
  b.node("MelWeightMatrix", "mel",
         {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz",
          "upper_edge_hertz"},
         {"mel"});
  b.output("spectrum", {1, 3, 4, 2});
  b.output("mel", {13, 2});
  return b.model;
}

// opset 9: ids[2,8] int64 -> TfIdfVectorizer in TF, IDF and TFIDF modes ->
// tf, idf, tfidf [2,6] f32. Pool: 1-grams 3, 5; 2-grams (3,5), (5,3),
// (7,7); 3-gram (1,2,3); ngram_indexes [5,0,1,4,2,3] (a permutation);
// n-grams of 1 to 3, up to 1 skip; weights 0.5 to 3 by 0.5. Variant 1
// (tfidf-strings): TF only, with pool_strings; 2 (tfidf-bad-counts): TF
// only, ngram_counts [0, 3, 8] (5 ids are not 2-grams).
onnx::ModelProto buildTfIdf(int variant) {
  ModelBuilder b(9, "tfidf");
  onnx::GraphProto *g = b.model.mutable_graph();
  setFloatType(g->add_input(), "ids", {2, 8},
               onnx::TensorProto_DataType_INT64);
  for (const char *mode : {"TF", "IDF", "TFIDF"}) {
    std::string out = mode;
    for (char &c : out)
      c = static_cast<char>(std::tolower(c));
    onnx::NodeProto *node = b.node("TfIdfVectorizer", out, {"ids"}, {out});
    attrString(node, "mode", mode);
    attrInt(node, "min_gram_length", 1);
    attrInt(node, "max_gram_length", 3);
    attrInt(node, "max_skip_count", 1);
    if (variant == 2)
      attrInts(node, "ngram_counts", {0, 3, 8});
    else
      attrInts(node, "ngram_counts", {0, 2, 8});
    attrInts(node, "ngram_indexes", {5, 0, 1, 4, 2, 3});
    if (variant == 1) {
      onnx::AttributeProto *pool = node->add_attribute();
      pool->set_name("pool_strings");
      pool->set_type(onnx::AttributeProto_AttributeType_STRINGS);
      for (const char *t : {"3", "5", "3", "5", "5", "3", "7", "7", "1",
                            "2", "3"})
        pool->add_strings(t);
    } else {
      attrInts(node, "pool_int64s", {3, 5, 3, 5, 5, 3, 7, 7, 1, 2, 3});
    }
    if (out != "tf") {
      onnx::AttributeProto *w = node->add_attribute();
      w->set_name("weights");
      w->set_type(onnx::AttributeProto_AttributeType_FLOATS);
      for (float v : {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f})
        w->add_floats(v);
    }
    b.output(out, {2, 6});
    if (variant != 0)
      break;
  }
  return b.model;
}

// opset 11: x[2,3,4] -> Hardmax(axis 1) -> y, over x coerced to [2, 12].
onnx::ModelProto buildHardmaxOpset11() {
  ModelBuilder b(11, "hardmax_opset11");
  b.input("x", {2, 3, 4});
  onnx::NodeProto *hardmax = b.node("Hardmax", "hardmax", {"x"}, {"y"});
  attrInt(hardmax, "axis", 1);
  b.output("y", {2, 3, 4});
  return b.model;
}

// Inputs that must be constants, given at run time: Tile(x[2,3], repeats)
// and Range(start, limit, delta) with limit a graph input.
onnx::ModelProto buildRunTimeConstants() {
  ModelBuilder b(13, "run_time_constants");
  b.input("x", {2, 3});
  b.int64Input("repeats", {2});
  b.input("limit", {});
  b.initializer(Tensor{"start", {}, {0.0f}});
  b.initializer(Tensor{"delta", {}, {1.0f}});
  b.node("Tile", "tile", {"x", "repeats"}, {"tiled"});
  b.node("Range", "range", {"start", "limit", "delta"}, {"steps"});
  b.output("tiled", {"rows", "columns"});
  b.output("steps", {"count"});
  return b.model;
}


// Indices, masks and prefix sums given at run time (opset 16):
// x[3,4], indices[2,4] (int64), k (int64) -> Trilu(x, k, lower) -> lower,
// GatherElements(x, indices, axis 0) -> gathered[2,4],
// ScatterElements(x, indices, gathered, axis 0, add) -> scattered,
// CumSum(x, axis 1 (an initializer), exclusive) -> sums,
// ReduceProd(x, axes [1], keepdims 0) -> products[3].
onnx::ModelProto buildIndexing() {
  ModelBuilder b(16, "indexing");
  b.input("x", {3, 4});
  b.int64Input("indices", {2, 4});
  b.int64Input("k", {});
  intInitializer(b, "axis", {}, {1});
  attrInt(b.node("Trilu", "trilu", {"x", "k"}, {"lower"}), "upper", 0);
  attrInt(b.node("GatherElements", "gather_elements", {"x", "indices"},
                 {"gathered"}),
          "axis", 0);
  onnx::NodeProto *scatter =
      b.node("ScatterElements", "scatter_elements",
             {"x", "indices", "gathered"}, {"scattered"});
  attrInt(scatter, "axis", 0);
  attrString(scatter, "reduction", "add");
  attrInt(b.node("CumSum", "cumsum", {"x", "axis"}, {"sums"}), "exclusive", 1);
  onnx::NodeProto *prod =
      b.node("ReduceProd", "reduce_prod", {"x"}, {"products"});
  attrInts(prod, "axes", {1});
  attrInt(prod, "keepdims", 0);
  b.output("lower", {3, 4});
  b.output("gathered", {2, 4});
  b.output("scattered", {3, 4});
  b.output("sums", {3, 4});
  b.output("products", {3});
  return b.model;
}

// Normalizations and a transposed convolution (opset 13): x[1,2,2,2] ->
// InstanceNormalization(scale, bias) -> instance, LRN(size 3) -> lrn,
// MeanVarianceNormalization -> mvn, ConvTranspose(w[2,1,2,2], strides 2)
// -> deconv[1,1,4,4].
onnx::ModelProto buildNormalization() {
  ModelBuilder b(13, "normalization");
  b.input("x", {1, 2, 2, 2});
  b.initializer(Tensor{"scale", {2}, {2.0f, 0.5f}});
  b.initializer(Tensor{"bias", {2}, {1.0f, -1.0f}});
  b.initializer(Tensor{"w", {2, 1, 2, 2},
                       {1.0f, 2.0f, 3.0f, 4.0f, -1.0f, 0.5f, 0.0f, 2.0f}});
  b.node("InstanceNormalization", "instance_norm", {"x", "scale", "bias"},
         {"instance"});
  onnx::NodeProto *lrn = b.node("LRN", "lrn", {"x"}, {"lrn"});
  attrInt(lrn, "size", 3);
  attrFloat(lrn, "alpha", 0.5f);
  attrFloat(lrn, "beta", 0.75f);
  b.node("MeanVarianceNormalization", "mvn", {"x"}, {"mvn"});
  attrInts(b.node("ConvTranspose", "deconv", {"x", "w"}, {"deconv"}),
           "strides", {2, 2});
  b.output("instance", {1, 2, 2, 2});
  b.output("lrn", {1, 2, 2, 2});
  b.output("mvn", {1, 2, 2, 2});
  b.output("deconv", {1, 1, 4, 4});
  return b.model;
}

// Einsum and Pad's other modes (opset 13): a[2,3], b[3,2] ->
// Einsum(ij,jk->ik) -> product[2,2], Einsum(ii->i, product) -> diagonal[2],
// Pad(a, [0, 1, 0, 2], reflect) -> reflected[2,6], Pad(a, [1, 0, 0, 0],
// constant 2.5) -> filled[3,3].
onnx::ModelProto buildEinsumPad() {
  ModelBuilder b(13, "einsum_pad");
  b.input("a", {2, 3});
  b.input("b", {3, 2});
  intInitializer(b, "reflect_pads", {4}, {0, 1, 0, 2});
  intInitializer(b, "fill_pads", {4}, {1, 0, 0, 0});
  b.initializer(Tensor{"fill", {}, {2.5f}});
  attrString(b.node("Einsum", "matmul", {"a", "b"}, {"product"}), "equation",
             "ij,jk->ik");
  attrString(b.node("Einsum", "diagonal", {"product"}, {"diagonal"}),
             "equation", "ii->i");
  attrString(b.node("Pad", "reflect", {"a", "reflect_pads"}, {"reflected"}),
             "mode", "reflect");
  b.node("Pad", "fill", {"a", "fill_pads", "fill"}, {"filled"});
  b.output("product", {2, 2});
  b.output("diagonal", {2});
  b.output("reflected", {2, 6});
  b.output("filled", {3, 3});
  return b.model;
}

// Weights ((7 * i) % 11 - 5) / 10 for i = 0, 1, ...: small, of both signs.
Tensor patterned(const std::string &name, std::vector<int64_t> dims) {
  Tensor t{name, dims, {}};
  for (int64_t i = 0; i < numElements(dims); ++i)
    t.values.push_back(static_cast<float>((7 * i) % 11 - 5) / 10.0f);
  return t;
}

// Recurrences unrolled (opset 14): x[3,2,2] (sequence 3, batch 2) and
// lens[2] (int32) -> RNN (reverse, hidden 2) -> rnn_y[3,1,2,2],
// rnn_h[1,2,2]; GRU (bidirectional, linear_before_reset, bias) ->
// gru_h[2,2,2]; LSTM (bias, peepholes, sequence_lens) -> lstm_y[3,1,2,2],
// lstm_h[1,2,2], lstm_c[1,2,2]; weights `patterned`.
onnx::ModelProto buildRecurrent() {
  ModelBuilder b(14, "recurrent");
  b.input("x", {3, 2, 2});
  setFloatType(b.model.mutable_graph()->add_input(), "lens", {2},
               onnx::TensorProto_DataType_INT32);
  for (const Tensor &t :
       {patterned("rnn_w", {1, 2, 2}), patterned("rnn_r", {1, 2, 2}),
        patterned("gru_w", {2, 6, 2}), patterned("gru_r", {2, 6, 2}),
        patterned("gru_b", {2, 12}), patterned("lstm_w", {1, 8, 2}),
        patterned("lstm_r", {1, 8, 2}), patterned("lstm_b", {1, 16}),
        patterned("lstm_p", {1, 6}), patterned("gru_h0", {2, 2, 2})})
    b.initializer(t);
  onnx::NodeProto *rnn =
      b.node("RNN", "rnn", {"x", "rnn_w", "rnn_r"}, {"rnn_y", "rnn_h"});
  attrInt(rnn, "hidden_size", 2);
  attrString(rnn, "direction", "reverse");
  onnx::NodeProto *gru =
      b.node("GRU", "gru", {"x", "gru_w", "gru_r", "gru_b"}, {"", "gru_h"});
  attrInt(gru, "hidden_size", 2);
  attrInt(gru, "linear_before_reset", 1);
  attrString(gru, "direction", "bidirectional");
  onnx::NodeProto *lstm = b.node(
      "LSTM", "lstm", {"x", "lstm_w", "lstm_r", "lstm_b", "lens", "", "", "lstm_p"},
      {"lstm_y", "lstm_h", "lstm_c"});
  attrInt(lstm, "hidden_size", 2);
  // sequence_lens in both directions (the reverse one starts each row at
  // its own last step), and an initial state (a row of length 0 ends with
  // zeros, not with it).
  onnx::NodeProto *gruLens =
      b.node("GRU", "gru_lens",
             {"x", "gru_w", "gru_r", "gru_b", "lens", "gru_h0"},
             {"gru_lens_y", "gru_lens_h"});
  attrInt(gruLens, "hidden_size", 2);
  attrString(gruLens, "direction", "bidirectional");
  b.output("rnn_y", {3, 1, 2, 2});
  b.output("rnn_h", {1, 2, 2});
  b.output("gru_h", {2, 2, 2});
  b.output("lstm_y", {3, 1, 2, 2});
  b.output("lstm_h", {1, 2, 2});
  b.output("lstm_c", {1, 2, 2});
  b.output("gru_lens_y", {3, 2, 2, 2});
  b.output("gru_lens_h", {2, 2, 2});
  return b.model;
}

// The last extreme's index and integer powers (opset 13): x[2,3] ->
// ArgMax(axis 1, select_last_index, keepdims 0) -> last_max[2],
// ArgMin(axis 0, select_last_index) -> last_min[1,3]; base[3] (int64),
// exponent[3] (float) -> Pow -> power[3] (int64).
onnx::ModelProto buildArgPow() {
  ModelBuilder b(13, "arg_pow");
  b.input("x", {2, 3});
  b.int64Input("base", {3});
  b.input("exponent", {3});
  onnx::NodeProto *argmax = b.node("ArgMax", "argmax", {"x"}, {"last_max"});
  attrInt(argmax, "axis", 1);
  attrInt(argmax, "select_last_index", 1);
  attrInt(argmax, "keepdims", 0);
  onnx::NodeProto *argmin = b.node("ArgMin", "argmin", {"x"}, {"last_min"});
  attrInt(argmin, "axis", 0);
  attrInt(argmin, "select_last_index", 1);
  b.node("Pow", "pow", {"base", "exponent"}, {"power"});
  setFloatType(b.model.mutable_graph()->add_output(), "last_max", {2},
               onnx::TensorProto_DataType_INT64);
  setFloatType(b.model.mutable_graph()->add_output(), "last_min", {1, 3},
               onnx::TensorProto_DataType_INT64);
  setFloatType(b.model.mutable_graph()->add_output(), "power", {3},
               onnx::TensorProto_DataType_INT64);
  return b.model;
}

// Comparisons of ONNX's narrow integers (opset 16): for each of uint8,
// int8, int16, uint16 and uint32, inputs a_T[4] and b_T[4] (in that order)
// -> Greater, GreaterOrEqual, Less, LessOrEqual -> greater_T,
// greater_equal_T, less_T, less_equal_T [4] bool, outputs in that order.
onnx::ModelProto buildNarrowComparisons() {
  ModelBuilder b(16, "narrow_comparisons");
  const std::pair<const char *, int32_t> types[] = {
      {"u8", onnx::TensorProto_DataType_UINT8},
      {"i8", onnx::TensorProto_DataType_INT8},
      {"i16", onnx::TensorProto_DataType_INT16},
      {"u16", onnx::TensorProto_DataType_UINT16},
      {"u32", onnx::TensorProto_DataType_UINT32}};
  const std::pair<const char *, const char *> ops[] = {
      {"Greater", "greater"},
      {"GreaterOrEqual", "greater_equal"},
      {"Less", "less"},
      {"LessOrEqual", "less_equal"}};
  onnx::GraphProto *g = b.model.mutable_graph();
  for (auto [suffix, type] : types) {
    std::string a = std::string("a_") + suffix, bName = std::string("b_") + suffix;
    setFloatType(g->add_input(), a, {4}, type);
    setFloatType(g->add_input(), bName, {4}, type);
    for (auto [opType, name] : ops) {
      std::string out = std::string(name) + "_" + suffix;
      b.node(opType, out, {a, bName}, {out});
      setFloatType(g->add_output(), out, {4}, onnx::TensorProto_DataType_BOOL);
    }
  }
  return b.model;
}

// Reductions, arg-extrema, CumSum and TopK of ONNX's narrow integers
// (opset 13): for each of uint8, int8 and uint32 an input x_T[2,3] (in
// that order) -> max_T, min_T, (uint32 only, as ONNX types them: sum_T,
// prod_T, l1_T, sum_square_T) [2,1] (axis 1, kept), argmax_T, argmin_T
// [2,1] int64, (uint32 only: cumsum_T [2,3]), top_T [2,2] and
// top_indices_T [2,2] int64, outputs in that order.
// ReduceSum on uint8 (node "sum"): ONNX's ReduceSum-13 takes 32- and
// 64-bit integers and floats only, so the model is invalid and ONNX
// Runtime refuses it; gplace's importer too (ONNX's type check).
onnx::ModelProto buildReduceSumUint8() {
  ModelBuilder b(13, "reduce_sum_uint8");
  setFloatType(b.model.mutable_graph()->add_input(), "x", {2, 3},
               onnx::TensorProto_DataType_UINT8);
  b.node("ReduceSum", "sum", {"x"}, {"y"});
  setFloatType(b.model.mutable_graph()->add_output(), "y", {1, 1},
               onnx::TensorProto_DataType_UINT8);
  return b.model;
}

onnx::ModelProto buildNarrowReductions() {
  ModelBuilder b(13, "narrow_reductions");
  onnx::GraphProto *g = b.model.mutable_graph();
  intInitializer(b, "axes", {1}, {1});
  intInitializer(b, "axis", {}, {1});
  intInitializer(b, "k", {1}, {2});
  const std::pair<const char *, int32_t> types[] = {
      {"u8", onnx::TensorProto_DataType_UINT8},
      {"i8", onnx::TensorProto_DataType_INT8},
      {"u32", onnx::TensorProto_DataType_UINT32}};
  const int32_t i64 = onnx::TensorProto_DataType_INT64;
  for (auto [suffix, type] : types) {
    std::string x = std::string("x_") + suffix;
    auto name = [&](const char *what) { return what + std::string("_") + suffix; };
    setFloatType(g->add_input(), x, {2, 3}, type);
    // The op, its output's name, and whether ONNX types it on 8 bits (the
    // sums and products start at 32).
    const std::tuple<const char *, const char *, bool> reductions[] = {
        {"ReduceMax", "max", true},   {"ReduceMin", "min", true},
        {"ReduceSum", "sum", false},  {"ReduceProd", "prod", false},
        {"ReduceL1", "l1", false},    {"ReduceSumSquare", "sum_square", false}};
    bool wide = type == onnx::TensorProto_DataType_UINT32;
    for (auto [opType, what, eightBits] : reductions) {
      if (!wide && !eightBits)
        continue;
      // ReduceSum takes its axes as an input from opset 13; the others
      // as an attribute until opset 18.
      bool axesInput = std::string_view(opType) == "ReduceSum";
      onnx::NodeProto *node =
          axesInput ? b.node(opType, name(what), {x, "axes"}, {name(what)})
                    : b.node(opType, name(what), {x}, {name(what)});
      if (!axesInput)
        attrInts(node, "axes", {1});
      setFloatType(g->add_output(), name(what), {2, 1}, type);
    }
    for (auto [opType, what] :
         {std::pair{"ArgMax", "argmax"}, std::pair{"ArgMin", "argmin"}}) {
      attrInt(b.node(opType, name(what), {x}, {name(what)}), "axis", 1);
      setFloatType(g->add_output(), name(what), {2, 1}, i64);
    }
    if (wide) {
      b.node("CumSum", name("cumsum"), {x, "axis"}, {name("cumsum")});
      setFloatType(g->add_output(), name("cumsum"), {2, 3}, type);
    }
    b.node("TopK", name("top"), {x, "k"}, {name("top"), name("top_indices")});
    setFloatType(g->add_output(), name("top"), {2, 2}, type);
    setFloatType(g->add_output(), name("top_indices"), {2, 2}, i64);
  }
  return b.model;
}

// Pools TensorFlow's padding does not express (opset 13), x[1,1,4,4] ->
// MaxPool(2x2, pads 1) -> max_pads[1,1,5,5], AveragePool(3x3, pads 1,
// count_include_pad 0) -> avg_pads[1,1,4,4], MaxPool(2x2, dilations 2) ->
// max_dilated[1,1,2,2], AveragePool(3x3, strides 2, ceil_mode) ->
// avg_ceil[1,1,2,2].
onnx::ModelProto buildPools() {
  ModelBuilder b(13, "pools");
  b.input("x", {1, 1, 4, 4});
  onnx::NodeProto *maxPads = b.node("MaxPool", "max_pads", {"x"}, {"max_pads"});
  attrInts(maxPads, "kernel_shape", {2, 2});
  attrInts(maxPads, "pads", {1, 1, 1, 1});
  onnx::NodeProto *avgPads =
      b.node("AveragePool", "avg_pads", {"x"}, {"avg_pads"});
  attrInts(avgPads, "kernel_shape", {3, 3});
  attrInts(avgPads, "pads", {1, 1, 1, 1});
  onnx::NodeProto *maxDilated =
      b.node("MaxPool", "max_dilated", {"x"}, {"max_dilated"});
  attrInts(maxDilated, "kernel_shape", {2, 2});
  attrInts(maxDilated, "dilations", {2, 2});
  onnx::NodeProto *avgCeil =
      b.node("AveragePool", "avg_ceil", {"x"}, {"avg_ceil"});
  attrInts(avgCeil, "kernel_shape", {3, 3});
  attrInts(avgCeil, "strides", {2, 2});
  attrInt(avgCeil, "ceil_mode", 1);
  b.output("max_pads", {1, 1, 5, 5});
  b.output("avg_pads", {1, 1, 4, 4});
  b.output("max_dilated", {1, 1, 2, 2});
  b.output("avg_ceil", {1, 1, 2, 2});
  return b.model;
}

// 3-D pools (opset 13), x[1,2,5,6,7] (docs/onnx.md, MapPool.cpp; the
// attributes test/Tools/onnx/Inputs/pool_reference.py repeats) ->
// MaxPool(3x2x3, strides 2x1x2, pads [1,0,1,1,1,0]) -> max_pads[1,2,3,6,3];
// MaxPool(2x2x2, strides 2x1x3, dilations 2x2x1, pads [1,0,0,0,1,1],
// ceil_mode) -> max_dilated_ceil[1,2,3,5,3]; AveragePool(3x3x2, strides 2,
// pads [1,1,0,0,0,0], ceil_mode) -> avg_ceil[1,2,3,3,4];
// AveragePool(2x3x3, strides 1x2x2, pads 1 but the depth's end,
// count_include_pad) -> avg_count_pads[1,2,5,3,4]; AveragePool(2x2x2,
// strides 2, SAME_UPPER) -> avg_same[1,2,3,3,4]; MaxPool(1x2x2, strides
// 1x2x2) -> max_flat[1,2,5,3,3].
onnx::ModelProto buildPool3d() {
  ModelBuilder b(13, "pool3d");
  b.input("x", {1, 2, 5, 6, 7});
  onnx::NodeProto *maxPads = b.node("MaxPool", "max_pads", {"x"}, {"max_pads"});
  attrInts(maxPads, "kernel_shape", {3, 2, 3});
  attrInts(maxPads, "strides", {2, 1, 2});
  attrInts(maxPads, "pads", {1, 0, 1, 1, 1, 0});
  onnx::NodeProto *maxDilated = b.node("MaxPool", "max_dilated_ceil", {"x"},
                                       {"max_dilated_ceil"});
  attrInts(maxDilated, "kernel_shape", {2, 2, 2});
  attrInts(maxDilated, "strides", {2, 1, 3});
  attrInts(maxDilated, "dilations", {2, 2, 1});
  attrInts(maxDilated, "pads", {1, 0, 0, 0, 1, 1});
  attrInt(maxDilated, "ceil_mode", 1);
  onnx::NodeProto *avgCeil =
      b.node("AveragePool", "avg_ceil", {"x"}, {"avg_ceil"});
  attrInts(avgCeil, "kernel_shape", {3, 3, 2});
  attrInts(avgCeil, "strides", {2, 2, 2});
  attrInts(avgCeil, "pads", {1, 1, 0, 0, 0, 0});
  attrInt(avgCeil, "ceil_mode", 1);
  onnx::NodeProto *avgCountPads =
      b.node("AveragePool", "avg_count_pads", {"x"}, {"avg_count_pads"});
  attrInts(avgCountPads, "kernel_shape", {2, 3, 3});
  attrInts(avgCountPads, "strides", {1, 2, 2});
  attrInts(avgCountPads, "pads", {1, 1, 1, 0, 1, 1});
  attrInt(avgCountPads, "count_include_pad", 1);
  onnx::NodeProto *avgSame =
      b.node("AveragePool", "avg_same", {"x"}, {"avg_same"});
  attrInts(avgSame, "kernel_shape", {2, 2, 2});
  attrInts(avgSame, "strides", {2, 2, 2});
  attrString(avgSame, "auto_pad", "SAME_UPPER");
  onnx::NodeProto *maxFlat = b.node("MaxPool", "max_flat", {"x"}, {"max_flat"});
  attrInts(maxFlat, "kernel_shape", {1, 2, 2});
  attrInts(maxFlat, "strides", {1, 2, 2});
  b.output("max_pads", {1, 2, 3, 6, 3});
  b.output("max_dilated_ceil", {1, 2, 3, 5, 3});
  b.output("avg_ceil", {1, 2, 3, 3, 4});
  b.output("avg_count_pads", {1, 2, 5, 3, 4});
  b.output("avg_same", {1, 2, 3, 3, 4});
  b.output("max_flat", {1, 2, 5, 3, 3});
  return b.model;
}

// Det, DFT and MaxUnpool (opset 17): m[2,2,2] -> Det -> det[2];
// signal[1,4,1] -> DFT(axis 1) -> spectrum[1,4,2]; values[1,1,2,2],
// indices[1,1,2,2] (int64) -> MaxUnpool(2x2, strides 2) ->
// unpooled[1,1,4,4].
onnx::ModelProto buildDetDft() {
  ModelBuilder b(17, "det_dft");
  b.input("m", {2, 2, 2});
  b.input("signal", {1, 4, 1});
  b.input("values", {1, 1, 2, 2});
  b.int64Input("indices", {1, 1, 2, 2});
  b.node("Det", "det", {"m"}, {"det"});
  attrInt(b.node("DFT", "dft", {"signal"}, {"spectrum"}), "axis", 1);
  onnx::NodeProto *unpool =
      b.node("MaxUnpool", "unpool", {"values", "indices"}, {"unpooled"});
  attrInts(unpool, "kernel_shape", {2, 2});
  attrInts(unpool, "strides", {2, 2});
  b.output("det", {2});
  b.output("spectrum", {1, 4, 2});
  b.output("unpooled", {1, 1, 4, 4});
  return b.model;
}

// Resize and TopK with their scales, sizes and k as initializers (opset
// 13): x[1,1,2,2] -> Resize(linear, scales [1,1,2,2]) -> linear[1,1,4,4],
// Resize(nearest, asymmetric, sizes [1,1,4,3]) -> nearest[1,1,4,3];
// v[2,3] -> TopK(k [2], axis 1) -> top[2,2], top_indices[2,2] (int64).
onnx::ModelProto buildResizeTopK() {
  ModelBuilder b(13, "resize_topk");
  b.input("x", {1, 1, 2, 2});
  b.input("v", {2, 3});
  b.initializer(Tensor{"scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f}});
  intInitializer(b, "sizes", {4}, {1, 1, 4, 3});
  intInitializer(b, "k", {1}, {2});
  attrString(b.node("Resize", "linear", {"x", "", "scales"}, {"linear"}),
             "mode", "linear");
  onnx::NodeProto *nearest =
      b.node("Resize", "nearest", {"x", "", "", "sizes"}, {"nearest"});
  attrString(nearest, "coordinate_transformation_mode", "asymmetric");
  attrInt(b.node("TopK", "top_k", {"v", "k"}, {"top", "top_indices"}),
          "axis", 1);
  b.output("linear", {1, 1, 4, 4});
  b.output("nearest", {1, 1, 4, 3});
  b.output("top", {2, 2});
  setFloatType(b.model.mutable_graph()->add_output(), "top_indices", {2, 2},
               onnx::TensorProto_DataType_INT64);
  return b.model;
}

// A grouped convolution of `group` groups on 2 channels, one input channel
// per group in the filter: with group 1 the filter's channels do not match
// the input's.
onnx::ModelProto buildGroupedConv(int64_t group) {
  ModelBuilder b(13, "grouped_conv");
  b.input("x", {1, 2, 3, 3});
  Tensor w{"w", {2, 1, 1, 1}, {0.5f, -2.0f}};
  b.initializer(w);
  onnx::NodeProto *conv = b.node("Conv", "conv", {"x", "w"}, {"y"});
  attrInt(conv, "group", group);
  b.output("y", {1, 2, 3, 3});
  return b.model;
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string dirPrefix(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Writes bytes to path through path.tmp and a rename; verify, when given,
// sees path.tmp before the rename.
void writeAtomically(
    const std::string &path, const std::string &bytes,
    const std::function<void(const std::string &)> &verify = nullptr) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      fail("cannot open '" + tmp + "' for writing: " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      fail("cannot write '" + tmp + "'");
    }
  }
  if (verify)
    verify(tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    fail("cannot rename '" + tmp + "' to '" + path + "': " + reason);
  }
}

// Turns every initializer of the model into a Constant node of its name
// (first in the graph), as exporters that fold weights into the graph write
// them.
void initializersToConstants(onnx::ModelProto &model) {
  onnx::GraphProto &graph = *model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    onnx::NodeProto *node = nodes.Add();
    node->set_op_type("Constant");
    node->set_name(tensor.name() + "/Constant");
    node->add_output(tensor.name());
    onnx::AttributeProto *value = node->add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    *value->mutable_t() = tensor;
  }
  for (const onnx::NodeProto &node : graph.node())
    *nodes.Add() = node;
  graph.clear_initializer();
  graph.mutable_node()->Swap(&nodes);
}

// Moves the raw data of every initializer and Constant of the model into
// one external data file, `location` (relative to the model's directory),
// returning its bytes.
std::string externalize(onnx::ModelProto &model, const std::string &location) {
  std::vector<onnx::TensorProto *> tensors;
  for (onnx::TensorProto &tensor :
       *model.mutable_graph()->mutable_initializer())
    tensors.push_back(&tensor);
  for (onnx::NodeProto &node : *model.mutable_graph()->mutable_node())
    for (onnx::AttributeProto &attr : *node.mutable_attribute())
      if (node.op_type() == "Constant" && attr.has_t())
        tensors.push_back(attr.mutable_t());
  std::string data;
  for (onnx::TensorProto *tensorPtr : tensors) {
    onnx::TensorProto &tensor = *tensorPtr;
    // Keep each tensor's offset a multiple of 64 bytes, padding with zeros.
    data.resize((data.size() + 63) / 64 * 64, '\0');
    size_t offset = data.size();
    data += tensor.raw_data();
    tensor.clear_raw_data();
    tensor.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
    auto addEntry = [&](const std::string &key, const std::string &value) {
      onnx::StringStringEntryProto *entry = tensor.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    addEntry("location", location);
    addEntry("offset", std::to_string(offset));
    addEntry("length", std::to_string(data.size() - offset));
  }
  return data;
}

} // namespace

// A scalar initializer of ONNX type BOOL.
void boolInitializer(ModelBuilder &b, const std::string &name, bool value) {
  onnx::TensorProto *proto = b.model.mutable_graph()->add_initializer();
  proto->set_name(name);
  proto->set_data_type(onnx::TensorProto_DataType_BOOL);
  proto->add_int32_data(value ? 1 : 0);
}

// A subgraph attribute (If's branches, Loop's and Scan's bodies).
onnx::GraphProto *attrGraph(onnx::NodeProto *node, const std::string &name) {
  onnx::AttributeProto *a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

// A Loop's body as ONNX declares it: the inputs i (the iteration, int64),
// c (the condition in, bool) and the loop-carried `carried` (f32 of
// `dims`); its first output the condition out, c_out (bool).
onnx::GraphProto *loopBody(onnx::NodeProto *loop, const std::string &carried,
                           std::initializer_list<Dim> dims) {
  onnx::GraphProto *body = attrGraph(loop, "body");
  setFloatType(body->add_input(), "i", {}, onnx::TensorProto_DataType_INT64);
  setFloatType(body->add_input(), "c", {}, onnx::TensorProto_DataType_BOOL);
  setFloatType(body->add_input(), carried, dims);
  setFloatType(body->add_output(), "c_out", {},
               onnx::TensorProto_DataType_BOOL);
  return body;
}


// A Scan's body that adds each slice (input `slice`, f32[2], by the node
// "add_<slice>") onto the state s_in (f32[2]): the outputs s_out (the new
// state) and partial_out (the scan output, its copy by "partial").
void runningSumBody(onnx::NodeProto *scan, const std::string &slice) {
  onnx::GraphProto *body = attrGraph(scan, "body");
  setFloatType(body->add_input(), "s_in", {2});
  setFloatType(body->add_input(), slice, {2});
  graphNode(body, "Add", "add_" + slice, {"s_in", slice}, {"s_out"});
  graphNode(body, "Identity", "partial", {"s_out"}, {"partial_out"});
  setFloatType(body->add_output(), "s_out", {2});
  setFloatType(body->add_output(), "partial_out", {2});
}

// Control flow imported by unrolling (docs/onnx.md), opset 13:
// x[2,3] -> If(use_relu: true) then Relu(x) else Neg(x) -> a;
// Loop(3 trips, cond true, a), body acc + x + float(i) -> acc, steps[3,2,3];
// Scan(zeros[2], x) over x's columns in reverse, body s + column, the
// scan output prepended along axis 1 -> total[2], suffix[2,3] (each row's
// suffix sums).
onnx::ModelProto buildControlFlow() {
  ModelBuilder b(13, "control_flow");
  b.input("x", {2, 3});
  boolInitializer(b, "use_relu", true);
  boolInitializer(b, "go", true);
  intInitializer(b, "trips", {}, {3});
  b.initializer(Tensor{"zeros", {2}, {0.0f, 0.0f}});
  onnx::NodeProto *branch = b.node("If", "branch", {"use_relu"}, {"a"});
  onnx::GraphProto *then = attrGraph(branch, "then_branch");
  graphNode(then, "Relu", "then_relu", {"x"}, {"then_a"});
  setFloatType(then->add_output(), "then_a", {2, 3});
  onnx::GraphProto *otherwise = attrGraph(branch, "else_branch");
  graphNode(otherwise, "Neg", "else_neg", {"x"}, {"else_a"});
  setFloatType(otherwise->add_output(), "else_a", {2, 3});

  onnx::NodeProto *loop =
      b.node("Loop", "accumulate", {"trips", "go", "a"}, {"acc", "steps"});
  onnx::GraphProto *body = loopBody(loop, "acc_in", {2, 3});
  graphNode(body, "Identity", "keep_going", {"c"}, {"c_out"});
  attrInt(graphNode(body, "Cast", "i_float", {"i"}, {"i_f"}), "to",
          onnx::TensorProto_DataType_FLOAT);
  graphNode(body, "Add", "add_x", {"acc_in", "x"}, {"sum"});
  graphNode(body, "Add", "add_i", {"sum", "i_f"}, {"acc_out"});
  graphNode(body, "Identity", "step", {"acc_out"}, {"step_out"});
  setFloatType(body->add_output(), "acc_out", {2, 3});
  setFloatType(body->add_output(), "step_out", {2, 3});

  onnx::NodeProto *scan =
      b.node("Scan", "suffix_sums", {"zeros", "x"}, {"total", "suffix"});
  attrInt(scan, "num_scan_inputs", 1);
  attrInts(scan, "scan_input_axes", {1});
  attrInts(scan, "scan_input_directions", {1});
  attrInts(scan, "scan_output_axes", {1});
  attrInts(scan, "scan_output_directions", {1});
  runningSumBody(scan, "column");

  b.output("acc", {2, 3});
  b.output("steps", {3, 2, 3});
  b.output("total", {2});
  b.output("suffix", {2, 3});
  return b.model;
}

// A Loop of 2000 trips (initializer), body y + 1: more iterations than
// the importer unrolls.
// Sequences and optionals, import-time lists (docs/onnx.md, "Sequences
// and optionals"), opset 15: x[2,3]; s = [x, relu(x)], s2 = s with neg(x)
// inserted at -1 ([x, neg, relu]); last = s2[-1]; length = len(s2);
// stacked = ConcatFromSequence(s2 without its element 0, new axis 0);
// columns = SplitToSequence(x, axis 1) (a sequence output: three [2,1]);
// has = OptionalHasElement(Optional(relu)); present = its element.
void sequenceValue(onnx::ValueInfoProto *info, const std::string &name) {
  info->set_name(name);
  info->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto_DataType_FLOAT);
}

void sequenceOutput(ModelBuilder &b, const std::string &name) {
  sequenceValue(b.model.mutable_graph()->add_output(), name);
}

onnx::ModelProto buildSequences() {
  ModelBuilder b(15, "sequences");
  b.input("x", {2, 3});
  intInitializer(b, "minus_one", {}, {-1});
  intInitializer(b, "zero", {}, {0});
  b.node("Relu", "relu", {"x"}, {"r"});
  b.node("Neg", "neg", {"x"}, {"n"});
  b.node("SequenceConstruct", "construct", {"x", "r"}, {"s"});
  b.node("SequenceInsert", "insert", {"s", "n", "minus_one"}, {"s2"});
  b.node("SequenceAt", "at", {"s2", "minus_one"}, {"last"});
  b.node("SequenceLength", "length", {"s2"}, {"length"});
  b.node("SequenceErase", "erase", {"s2", "zero"}, {"s3"});
  onnx::NodeProto *concat =
      b.node("ConcatFromSequence", "stack", {"s3"}, {"stacked"});
  attrInt(concat, "axis", 0);
  attrInt(concat, "new_axis", 1);
  attrInt(b.node("SplitToSequence", "columns", {"x"}, {"columns"}), "axis",
          1);
  b.node("Optional", "optional", {"r"}, {"opt"});
  b.node("OptionalHasElement", "has", {"opt"}, {"has"});
  b.node("OptionalGetElement", "get", {"opt"}, {"present"});
  b.output("last", {2, 3});
  setFloatType(b.model.mutable_graph()->add_output(), "length", {},
               onnx::TensorProto_DataType_INT64);
  b.output("stacked", {2, 2, 3});
  sequenceOutput(b, "columns");
  setFloatType(b.model.mutable_graph()->add_output(), "has", {},
               onnx::TensorProto_DataType_BOOL);
  b.output("present", {2, 3});
  return b.model;
}

// What the importer refuses: a position out of range (SequenceAt 2 of a
// sequence of 2), an absent optional read, a Loop of run-time trip count
// that carries a sequence.
onnx::ModelProto buildSequenceOutOfRange() {
  ModelBuilder b(15, "sequence_out_of_range");
  b.input("x", {2});
  intInitializer(b, "two", {}, {2});
  b.node("SequenceConstruct", "construct", {"x", "x"}, {"s"});
  b.node("SequenceAt", "at", {"s", "two"}, {"y"});
  b.output("y", {2});
  return b.model;
}

onnx::ModelProto buildOptionalAbsent() {
  ModelBuilder b(15, "optional_absent");
  b.input("x", {2});
  onnx::NodeProto *none = b.node("Optional", "none", {}, {"opt"});
  onnx::AttributeProto *type = none->add_attribute();
  type->set_name("type");
  type->set_type(onnx::AttributeProto_AttributeType_TYPE_PROTO);
  onnx::TypeProto_Tensor *tensor = type->mutable_tp()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_value(2);
  b.node("OptionalGetElement", "get", {"opt"}, {"v"});
  b.node("Add", "add", {"x", "v"}, {"y"});
  b.output("y", {2});
  return b.model;
}

onnx::ModelProto buildSequenceLoopRuntime() {
  ModelBuilder b(15, "sequence_loop_runtime");
  b.input("x", {2});
  b.int64Input("trips", {});
  b.node("SequenceEmpty", "empty", {}, {"s"});
  onnx::NodeProto *loop = b.node("Loop", "grow", {"trips", "", "s"}, {"out"});
  onnx::GraphProto *body = attrGraph(loop, "body");
  setFloatType(body->add_input(), "i", {}, onnx::TensorProto_DataType_INT64);
  setFloatType(body->add_input(), "c", {}, onnx::TensorProto_DataType_BOOL);
  onnx::ValueInfoProto *carried = body->add_input();
  carried->set_name("s_in");
  carried->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  setFloatType(body->add_output(), "c_out", {},
               onnx::TensorProto_DataType_BOOL);
  graphNode(body, "Identity", "keep_going", {"c"}, {"c_out"});
  graphNode(body, "SequenceInsert", "append", {"s_in", "x"}, {"s_out"});
  *body->add_output() = *carried;
  body->mutable_output(1)->set_name("s_out");
  b.node("SequenceLength", "count", {"out"}, {"n"});
  setFloatType(b.model.mutable_graph()->add_output(), "n", {},
               onnx::TensorProto_DataType_INT64);
  return b.model;
}

// Sequences where gplace's run-time control flow carries tensors only
// (refused), opset 15: x[2], flag (a boolean input) -> If(flag) then
// SequenceConstruct(x, x) else SequenceConstruct(x) -> s;
// SequenceLength(s) -> n.
onnx::ModelProto buildIfRuntimeSequence() {
  ModelBuilder b(15, "if_runtime_sequence");
  b.input("x", {2});
  setFloatType(b.model.mutable_graph()->add_input(), "flag", {},
               onnx::TensorProto_DataType_BOOL);
  onnx::NodeProto *branch = b.node("If", "choose", {"flag"}, {"s"});
  onnx::GraphProto *then = attrGraph(branch, "then_branch");
  graphNode(then, "SequenceConstruct", "then_pair", {"x", "x"}, {"then_s"});
  sequenceValue(then->add_output(), "then_s");
  onnx::GraphProto *otherwise = attrGraph(branch, "else_branch");
  graphNode(otherwise, "SequenceConstruct", "else_one", {"x"}, {"else_s"});
  sequenceValue(otherwise->add_output(), "else_s");
  b.node("SequenceLength", "count", {"s"}, {"n"});
  setFloatType(b.model.mutable_graph()->add_output(), "n", {},
               onnx::TensorProto_DataType_INT64);
  return b.model;
}

// x[2] -> Loop(2 trips, x), body y + x, its scan output the sequence
// [y + x] -> y, steps: a scan output that is a sequence (refused). ONNX's
// strict shape inference refuses it too (scan outputs are tensors), so
// main checks this model without.
onnx::ModelProto buildLoopScanSequence() {
  ModelBuilder b(15, "loop_scan_sequence");
  b.input("x", {2});
  intInitializer(b, "trips", {}, {2});
  onnx::NodeProto *loop =
      b.node("Loop", "repeat", {"trips", "", "x"}, {"y", "steps"});
  onnx::GraphProto *body = loopBody(loop, "y_in", {2});
  graphNode(body, "Identity", "keep_going", {"c"}, {"c_out"});
  graphNode(body, "Add", "add_x", {"y_in", "x"}, {"y_out"});
  graphNode(body, "SequenceConstruct", "step", {"y_out"}, {"step"});
  setFloatType(body->add_output(), "y_out", {2});
  sequenceValue(body->add_output(), "step");
  b.output("y", {2});
  return b.model;
}

// Scan of opset 8 (docs/onnx.md, "Control flow"): its inputs and outputs
// lead with a batch dimension. initial[2, 2] and x[2, 3, 2]: each batch
// element's rows summed onto its state, read last first (`directions`
// [1]) -> y[2, 2] (the sums), z[2, 3, 2] (the partial sums, in iteration
// order). Scan8Form::SequenceLens: the node reads the sequence_lens [3, 2]
// (an initializer: element 1 scans x[1, :2] only, its scan output padded
// with zeros); BadLens: [3, 4], longer than x; RuntimeLens: a graph input
// `lens` (int64 [2]); UnknownBatch: x is a Reshape of a flat x_flat[12]
// to the graph input `shape` (int64 [3]), so no batch size is known at
// import time; BadDirections: `directions` [7] (0 and 1 are the only
// directions); Rank1: x[2], without the sequence axis.
enum class Scan8Form {
  Batch,
  SequenceLens,
  BadLens,
  RuntimeLens,
  UnknownBatch,
  BadDirections,
  Rank1
};
onnx::ModelProto scan8(Scan8Form form) {
  ModelBuilder b(8, "scan8");
  b.input("initial", {2, 2});
  std::string lens;
  if (form == Scan8Form::UnknownBatch) {
    b.input("x_flat", {12});
    b.int64Input("shape", {3});
    b.node("Reshape", "to_batch", {"x_flat", "shape"}, {"x"});
  } else if (form == Scan8Form::Rank1) {
    b.input("x", {2});
  } else {
    b.input("x", {2, 3, 2});
  }
  if (form == Scan8Form::SequenceLens || form == Scan8Form::BadLens)
    intInitializer(b, "lens", {2},
                   {3, form == Scan8Form::BadLens ? int64_t{4} : int64_t{2}});
  if (form == Scan8Form::RuntimeLens)
    b.int64Input("lens", {2});
  if (form == Scan8Form::SequenceLens || form == Scan8Form::BadLens ||
      form == Scan8Form::RuntimeLens)
    lens = "lens";
  onnx::NodeProto *scan =
      b.node("Scan", "running_sums", {lens, "initial", "x"}, {"y", "z"});
  attrInt(scan, "num_scan_inputs", 1);
  attrInts(scan, "directions", {form == Scan8Form::BadDirections ? 7 : 1});
  runningSumBody(scan, "row");
  b.output("y", {2, 2});
  b.output("z", {2, 3, 2});
  return b.model;
}
onnx::ModelProto buildScan8Batch() { return scan8(Scan8Form::Batch); }
onnx::ModelProto buildScan8SequenceLens() {
  return scan8(Scan8Form::SequenceLens);
}
onnx::ModelProto buildScan8BadLens() { return scan8(Scan8Form::BadLens); }
onnx::ModelProto buildScan8RuntimeLens() {
  return scan8(Scan8Form::RuntimeLens);
}
onnx::ModelProto buildScan8UnknownBatch() {
  return scan8(Scan8Form::UnknownBatch);
}

// Scan of opset 13 over x[3, 2]'s rows onto zeros[2] whose
// scan_input_directions is [2]: neither forward (0) nor reverse (1).
onnx::ModelProto buildScanBadDirection() {
  ModelBuilder b(13, "scan_bad_direction");
  b.input("x", {3, 2});
  b.initializer(Tensor{"zeros", {2}, {0.0f, 0.0f}});
  onnx::NodeProto *scan =
      b.node("Scan", "running_sums", {"zeros", "x"}, {"y", "z"});
  attrInt(scan, "num_scan_inputs", 1);
  attrInts(scan, "scan_input_directions", {2});
  runningSumBody(scan, "row");
  b.output("y", {2});
  b.output("z", {3, 2});
  return b.model;
}

onnx::ModelProto buildLoopLong() {
  ModelBuilder b(13, "loop_long");
  b.input("x", {2});
  intInitializer(b, "trips", {}, {2000});
  b.initializer(Tensor{"one", {}, {1.0f}});
  onnx::NodeProto *loop = b.node("Loop", "count", {"trips", "", "x"}, {"y"});
  onnx::GraphProto *body = loopBody(loop, "y_in", {2});
  graphNode(body, "Identity", "keep_going", {"c"}, {"c_out"});
  graphNode(body, "Add", "add_one", {"y_in", "one"}, {"y_out"});
  setFloatType(body->add_output(), "y_out", {2});
  b.output("y", {2});
  return b.model;
}

// A While as ONNX writes it: a Loop without a trip count, its body's
// condition y < 10 computed from the data (y + 1 each iteration).
onnx::ModelProto buildLoopDataCond() {
  ModelBuilder b(13, "loop_data_cond");
  b.input("x", {});
  boolInitializer(b, "go", true);
  b.initializer(Tensor{"one", {}, {1.0f}});
  b.initializer(Tensor{"ten", {}, {10.0f}});
  onnx::NodeProto *loop = b.node("Loop", "count", {"", "go", "x"}, {"y"});
  onnx::GraphProto *body = loopBody(loop, "y_in", {});
  graphNode(body, "Add", "add_one", {"y_in", "one"}, {"y_out"});
  graphNode(body, "Less", "below_ten", {"y_out", "ten"}, {"c_out"});
  setFloatType(body->add_output(), "y_out", {});
  b.output("y", {});
  return b.model;
}

// An If whose condition is a constant of two booleans.
onnx::ModelProto buildIfVectorCond() {
  ModelBuilder b(13, "if_vector_cond");
  b.input("x", {2});
  onnx::TensorProto *cond = b.model.mutable_graph()->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto_DataType_BOOL);
  cond->add_dims(2);
  cond->add_int32_data(1);
  cond->add_int32_data(0);
  onnx::NodeProto *branch = b.node("If", "branch", {"cond"}, {"y"});
  onnx::GraphProto *then = attrGraph(branch, "then_branch");
  graphNode(then, "Relu", "then_relu", {"x"}, {"then_y"});
  setFloatType(then->add_output(), "then_y", {2});
  onnx::GraphProto *otherwise = attrGraph(branch, "else_branch");
  graphNode(otherwise, "Neg", "else_neg", {"x"}, {"else_y"});
  setFloatType(otherwise->add_output(), "else_y", {2});
  b.output("y", {2});
  return b.model;
}

// Run-time control flow (gplace.if, gplace.while; docs/onnx.md), opset 13:
// x[2], flag (a boolean input) -> If(flag) then Relu(x) * two (an
// initializer the branch reads) else Neg(x) - x -> y.
onnx::ModelProto buildIfRuntime() {
  ModelBuilder b(13, "if_runtime");
  b.input("x", {2});
  setFloatType(b.model.mutable_graph()->add_input(), "flag", {},
               onnx::TensorProto_DataType_BOOL);
  b.initializer(Tensor{"two", {}, {2.0f}});
  onnx::NodeProto *branch = b.node("If", "choose", {"flag"}, {"y"});
  onnx::GraphProto *then = attrGraph(branch, "then_branch");
  graphNode(then, "Relu", "then_relu", {"x"}, {"then_r"});
  graphNode(then, "Mul", "then_twice", {"then_r", "two"}, {"then_y"});
  setFloatType(then->add_output(), "then_y", {2});
  onnx::GraphProto *otherwise = attrGraph(branch, "else_branch");
  graphNode(otherwise, "Neg", "else_neg", {"x"}, {"else_n"});
  graphNode(otherwise, "Sub", "else_minus", {"else_n", "x"}, {"else_y"});
  setFloatType(otherwise->add_output(), "else_y", {2});
  b.output("y", {2});
  return b.model;
}

// x[2], n (an int64 input: the trip count), step[2] -> Loop(n, go: true,
// x), body y + step, its condition sum(y + step) < 100 -> y: as many
// iterations as n and the data make.
onnx::ModelProto buildLoopRuntime() {
  ModelBuilder b(13, "loop_runtime");
  b.input("x", {2});
  b.int64Input("n", {});
  b.input("step", {2});
  boolInitializer(b, "go", true);
  b.initializer(Tensor{"limit", {}, {100.0f}});
  onnx::NodeProto *loop = b.node("Loop", "repeat", {"n", "go", "x"}, {"y"});
  onnx::GraphProto *body = loopBody(loop, "y_in", {2});
  graphNode(body, "Add", "add_step", {"y_in", "step"}, {"y_out"});
  attrInt(graphNode(body, "ReduceSum", "total", {"y_out"}, {"sum"}),
          "keepdims", 0);
  graphNode(body, "Less", "below_limit", {"sum", "limit"}, {"c_out"});
  setFloatType(body->add_output(), "y_out", {2});
  b.output("y", {2});
  return b.model;
}

// A Loop with a constant trip count (8) and a condition of the run:
// y = x * step^k, k the iterations, at most 8 and until sum(y) reaches 100
// (control-flow-gradients.test: its gradient keeps the iterations on
// stacks, the trip count being at most 8).
onnx::ModelProto buildLoopBounded() {
  ModelBuilder b(13, "loop_bounded");
  b.input("x", {2});
  b.input("step", {2});
  intInitializer(b, "trips", {}, {8});
  boolInitializer(b, "go", true);
  b.initializer(Tensor{"limit", {}, {100.0f}});
  onnx::NodeProto *loop =
      b.node("Loop", "repeat", {"trips", "go", "x"}, {"y"});
  onnx::GraphProto *body = loopBody(loop, "y_in", {2});
  graphNode(body, "Mul", "scale", {"y_in", "step"}, {"y_out"});
  attrInt(graphNode(body, "ReduceSum", "total", {"y_out"}, {"sum"}),
          "keepdims", 0);
  graphNode(body, "Less", "below_limit", {"sum", "limit"}, {"c_out"});
  setFloatType(body->add_output(), "y_out", {2});
  b.output("y", {2});
  return b.model;
}

// Control flow nested in a body: Loop(2 trips, y = x) whose body is an
// If(add: true) then y + x else y - x, the If's branches imported afresh
// in each iteration.
onnx::ModelProto buildNestedControlFlow() {
  ModelBuilder b(13, "nested_control_flow");
  b.input("x", {2});
  boolInitializer(b, "add", true);
  intInitializer(b, "trips", {}, {2});
  onnx::NodeProto *loop = b.node("Loop", "outer", {"trips", "", "x"}, {"y"});
  onnx::GraphProto *body = loopBody(loop, "y_in", {2});
  graphNode(body, "Identity", "keep_going", {"c"}, {"c_out"});
  onnx::NodeProto *branch = graphNode(body, "If", "inner", {"add"}, {"y_out"});
  onnx::GraphProto *then = attrGraph(branch, "then_branch");
  graphNode(then, "Add", "plus", {"y_in", "x"}, {"then_y"});
  setFloatType(then->add_output(), "then_y", {2});
  onnx::GraphProto *otherwise = attrGraph(branch, "else_branch");
  graphNode(otherwise, "Sub", "minus", {"y_in", "x"}, {"else_y"});
  setFloatType(otherwise->add_output(), "else_y", {2});
  setFloatType(body->add_output(), "y_out", {2});
  b.output("y", {2});
  return b.model;
}

int main(int argc, char **argv) {
  const std::map<std::string, std::function<onnx::ModelProto()>> builders = {
      {"mlp", [] { return buildMlp("mlp"); }},
      {"cnn", buildCnn},
      {"unsupported", buildUnsupported},
      {"dynamic", buildDynamic},
      {"external", [] { return buildMlp("external"); }},
      {"external-constants",
       [] {
         onnx::ModelProto model = buildMlp("external");
         initializersToConstants(model);
         return model;
       }},
      {"softmax-opset9", buildSoftmaxOpset9},
      {"losses", buildLosses},
      {"optimizers", buildOptimizers},
      {"gradient", [] { return buildGradient(0); }},
      {"gradient-substituted", [] { return buildGradient(1); }},
      {"gradient-initializer", [] { return buildGradient(2); }},
      {"gradient-y-after", [] { return buildGradient(3); }},
      {"quantized", buildQuantized},
      {"stft-mel", buildStftMel},
      {"tfidf", [] { return buildTfIdf(0); }},
      {"tfidf-strings", [] { return buildTfIdf(1); }},
      {"tfidf-bad-counts", [] { return buildTfIdf(2); }},
      {"hardmax-opset11", buildHardmaxOpset11},
      {"indexing", buildIndexing},
      {"normalization", buildNormalization},
      {"einsum-pad", buildEinsumPad},
      {"recurrent", buildRecurrent},
      {"arg-pow", buildArgPow},
      {"narrow-comparisons", buildNarrowComparisons},
      {"narrow-reductions", buildNarrowReductions},
      {"reduce-sum-uint8", buildReduceSumUint8},
      {"pools", buildPools},
      {"pool3d", buildPool3d},
      {"det-dft", buildDetDft},
      {"resize-topk", buildResizeTopK},
      {"control-flow", buildControlFlow},
      {"loop-long", buildLoopLong},
      {"scan8-batch", buildScan8Batch},
      {"scan8-sequence-lens", buildScan8SequenceLens},
      {"scan8-bad-lens", buildScan8BadLens},
      {"scan8-runtime-lens", buildScan8RuntimeLens},
      {"scan8-unknown-batch", buildScan8UnknownBatch},
      {"scan8-bad-directions", [] { return scan8(Scan8Form::BadDirections); }},
      {"scan8-rank1", [] { return scan8(Scan8Form::Rank1); }},
      {"maxunpool-bad-indices", buildMaxUnpoolBadIndices},
      {"layernorm-mean", [] { return buildLayerNormMean(-1); }},
      {"layernorm-bad-axis", [] { return buildLayerNormMean(3); }},
      {"conv-rank-mismatch", buildConvRankMismatch},
      {"conv-chain",
       [] {
         return buildConvChain({1, 2, 4, 4});
       }},
      {"conv-chain-rank-mismatch",
       [] {
         return buildConvChain({1, 2, 16});
       }},
      {"scan-bad-direction", buildScanBadDirection},
      {"sequences", buildSequences},
      {"sequence-out-of-range", buildSequenceOutOfRange},
      {"optional-absent", buildOptionalAbsent},
      {"sequence-loop-runtime", buildSequenceLoopRuntime},
      {"if-runtime-sequence", buildIfRuntimeSequence},
      {"loop-scan-sequence", buildLoopScanSequence},
      {"loop-data-cond", buildLoopDataCond},
      {"if-vector-cond", buildIfVectorCond},
      {"nested-control-flow", buildNestedControlFlow},
      {"if-runtime", buildIfRuntime},
      {"loop-runtime", buildLoopRuntime},
      {"loop-bounded", buildLoopBounded},
      {"run-time-constants", buildRunTimeConstants},
      {"grouped-conv", [] { return buildGroupedConv(2); }},
      {"grouped-conv-mismatch", [] { return buildGroupedConv(1); }},
      {"torch-flatten", buildTorchFlatten},
      {"paddle-dynamic", buildPaddleDynamic},
      {"tf2onnx-flatten", buildTf2onnxFlatten},
      {"shared-dim", [] { return buildSharedDim(3); }},
      {"shared-dim-bad-output", [] { return buildSharedDim(7); }},
      {"empty-shape", buildEmptyShape},
      {"nonzero-shape", buildNonZeroShape},
      {"nonzero-run-time", buildNonZeroRunTime},
      {"random", [] { return buildRandom(RandomForm::All); }},
      {"random-bad-dtype", [] { return buildRandom(RandomForm::BadDtype); }},
      {"random-like", [] { return buildRandom(RandomForm::Like); }},
      {"maxpool-indices", buildMaxPoolIndices},
      {"maxpool-indices-3d", buildMaxPoolIndices3d},
      {"convtranspose-3d", buildConvTranspose3d},
      {"convtranspose-3d-group", buildConvTranspose3dGroup},
      {"roi-align", [] { return buildRoiAlign(false, false); }},
      {"roi-align-adaptive", [] { return buildRoiAlign(true, true); }},
      {"roi-align-adaptive-input", [] { return buildRoiAlign(true, false); }},
      {"mlp-bench",
       [] {
         return buildMlp("mlp_bench", 0x6d6c7062u /* "mlpb" */, 1024, 1024);
       }},
  };
  // The models' names, from the table (one list for the usage line and
  // the unknown-name error).
  std::string names;
  for (const auto &entry : builders)
    names += entry.first + "|";
  names += "chain:N";
  if (argc != 3)
    fail("usage: gplace-onnx-gen MODEL OUTPUT.onnx, MODEL one of " + names);
  std::string name = argv[1];
  std::string output = argv[2];

  onnx::ModelProto model;
  const std::string chainPrefix = "chain:";
  if (name.compare(0, chainPrefix.size(), chainPrefix) == 0) {
    int64_t length = parseChainLength(name.substr(chainPrefix.size()));
    if (length < 0)
      fail("bad model '" + name +
           "': expected chain:N with N from 1 to 10000000");
    model = buildChain(length);
  } else {
    auto it = builders.find(name);
    if (it == builders.end())
      fail("unknown model '" + name + "' (expected one of " + names + ")");
    model = it->second();
  }

  // Check the model (with its data still inline: the checker resolves an
  // external location relative to the model's directory, which the
  // in-memory overload does not know), including strict shape inference on
  // a copy.
  try {
    onnx::checker::check_model(model);
    // shared-dim-bad-output declares a wrong output shape on purpose;
    // loop-scan-sequence's scan output is a sequence on purpose;
    // reduce-sum-uint8 breaks ReduceSum's type constraint on purpose;
    // scan8-rank1's scan input lacks the sequence axis on purpose;
    // maxunpool-bad-indices, conv-rank-mismatch and
    // conv-chain-rank-mismatch crash ONNX 1.12's inference on purpose.
    onnx::ModelProto inferred = model;
    if (name != "shared-dim-bad-output" && name != "loop-scan-sequence" &&
        name != "reduce-sum-uint8" && name != "scan8-rank1" &&
        name != "maxunpool-bad-indices" && name != "conv-rank-mismatch" &&
        name != "conv-chain-rank-mismatch")
      onnx::shape_inference::InferShapes(
          inferred, onnx::OpSchemaRegistry::Instance(),
          onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
  } catch (const std::exception &e) {
    fail("internal error: model '" + name + "' fails ONNX's checks: " +
         e.what());
  }

  std::function<void(const std::string &)> verify;
  if (name == "external" || name == "external-constants") {
    std::string location = baseName(output) + ".data";
    std::string data = externalize(model, location);
    writeAtomically(dirPrefix(output) + location, data);
    // Check the external references too, from the written file, which is
    // next to its data.
    verify = [&](const std::string &tmp) {
      try {
        onnx::checker::check_model(tmp);
      } catch (const std::exception &e) {
        std::remove(tmp.c_str());
        fail("internal error: model '" + name + "' fails ONNX's checks: " +
             e.what());
      }
    };
  }

  std::string bytes;
  if (!model.SerializeToString(&bytes))
    fail("cannot serialize model '" + name + "'");
  writeAtomically(output, bytes, verify);
  return 0;
}
