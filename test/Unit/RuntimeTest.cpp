//===- RuntimeTest.cpp - tensors, kernels, devices and the executor -------===//

#include "gplace/Runtime/Collective.h"
#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Tensor.h"
#include "gplace/Runtime/Threads.h"
#include "gplace/Support/Trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gplace;
using namespace gplace::runtime;

namespace {

template <typename T>
HostTensor tensorOf(ElementType type, std::vector<int64_t> shape,
                    std::vector<T> values) {
  HostTensor tensor(TensorType{type, std::move(shape)});
  EXPECT_EQ(tensor.data.size(), values.size() * sizeof(T));
  std::memcpy(tensor.data.data(), values.data(), tensor.data.size());
  return tensor;
}

template <typename T> std::vector<T> valuesOf(const HostTensor &tensor) {
  std::vector<T> values(tensor.data.size() / sizeof(T));
  std::memcpy(values.data(), tensor.data.data(), tensor.data.size());
  return values;
}

TEST(Tensor, FormatsAsSpecSeven) {
  EXPECT_EQ(
      formatTensor(tensorOf<float>(ElementType::F32, {2, 2}, {22, 28, 49, 64})),
      "2x2xf32=[[22, 28], [49, 64]]");
  EXPECT_EQ(formatTensor(tensorOf<float>(ElementType::F32, {}, {12})),
            "f32=12");
  EXPECT_EQ(formatTensor(
                tensorOf<float>(ElementType::F32, {3}, {0.1f, -1.5f, 1e20f})),
            "3xf32=[0.1, -1.5, 1e+20]");
  EXPECT_EQ(formatTensor(tensorOf<double>(ElementType::F64, {1}, {0.1})),
            "1xf64=[0.1]");
  EXPECT_EQ(
      formatTensor(tensorOf<int64_t>(ElementType::I64, {2}, {-9000000000, 3})),
      "2xi64=[-9000000000, 3]");
  EXPECT_EQ(formatTensor(tensorOf<uint8_t>(ElementType::I1, {2}, {1, 0})),
            "2xi1=[true, false]");
  EXPECT_EQ(formatTensor(HostTensor(TensorType{ElementType::F32, {0}})),
            "0xf32=[]");
  EXPECT_EQ(formatTensor(tensorOf<int8_t>(ElementType::I8, {2}, {-128, 5})),
            "2xi8=[-128, 5]");
  EXPECT_EQ(
      formatTensor(tensorOf<uint16_t>(ElementType::UI16, {2}, {65535, 0})),
      "2xui16=[65535, 0]");
  EXPECT_EQ(
      formatTensor(tensorOf<uint32_t>(ElementType::UI32, {1}, {4294967295u})),
      "1xui32=[4294967295]");
  // 16-bit floats print the shortest decimal that reads back in 16 bits:
  // 0x3C00 = 1, 0x2E66 = f16(0.1), 0x4900 = 10; bf16 0x3DCD = bf16(0.1).
  EXPECT_EQ(formatTensor(tensorOf<uint16_t>(ElementType::F16, {3},
                                            {0x3C00, 0x2E66, 0x4900})),
            "3xf16=[1, 0.1, 10]");
  EXPECT_EQ(formatTensor(tensorOf<uint16_t>(ElementType::BF16, {1}, {0x3DCD})),
            "1xbf16=[0.1]");
}

TEST(Tensor, NpyRoundTrip) {
  std::string path =
      (std::filesystem::temp_directory_path() / "gplace-npy-test.npy").string();
  for (HostTensor tensor :
       {tensorOf<float>(ElementType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
        tensorOf<int32_t>(ElementType::I32, {4}, {1, -2, 3, -4}),
        tensorOf<double>(ElementType::F64, {}, {2.5}),
        tensorOf<uint8_t>(ElementType::I1, {1, 2}, {1, 0}),
        tensorOf<int8_t>(ElementType::I8, {2}, {-128, 127}),
        tensorOf<int16_t>(ElementType::I16, {2}, {-32768, 7}),
        tensorOf<uint16_t>(ElementType::UI16, {2}, {65535, 1}),
        tensorOf<uint32_t>(ElementType::UI32, {1}, {4294967295u})}) {
    ASSERT_TRUE(writeNpy(path, tensor).isOk());
    StatusOr<HostTensor> back = readNpy(path);
    ASSERT_TRUE(back) << back.status().message();
    EXPECT_EQ(back->type, tensor.type);
    EXPECT_EQ(back->data, tensor.data);
  }
  // A shape of 20000 dimensions needs more than format 1.0's 65535 header
  // bytes: written as format 2.0 (it was written with a truncated length).
  {
    HostTensor wide(
        TensorType{ElementType::F32, std::vector<int64_t>(20000, 1)});
    std::memcpy(wide.data.data(), "\x00\x00\x80\x3f", 4);
    ASSERT_TRUE(writeNpy(path, wide).isOk());
    StatusOr<HostTensor> back = readNpy(path);
    ASSERT_TRUE(back) << back.status().message();
    EXPECT_EQ(back->type, wide.type);
    EXPECT_EQ(back->data, wide.data);
  }
  Status bf16 = writeNpy(path, HostTensor(TensorType{ElementType::BF16, {1}}));
  EXPECT_FALSE(bf16.isOk());
  EXPECT_NE(bf16.message().find("NumPy has no bf16 dtype"), std::string::npos);
  std::filesystem::remove(path);
}

/// Malformed headers NumPy would not read are refused, not read as
/// something else: a shape that is not a tuple (a bare 4 read as a
/// scalar), an empty item between commas, a dtype not in quotes or with a
/// byte-order character NumPy does not have.
TEST(Tensor, NpyRefusesMalformedHeaders) {
  std::string path =
      (std::filesystem::temp_directory_path() / "gplace-npy-bad.npy").string();
  auto write = [&](const std::string &dict, size_t dataBytes) {
    std::string header = dict;
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(header.size() & 0xff);
    file += static_cast<char>(header.size() >> 8);
    file += header + std::string(dataBytes, '\0');
    std::ofstream(path, std::ios::binary) << file;
  };
  struct Case {
    const char *dict;
    size_t dataBytes;
    const char *error;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': 4, }", 4,
       "bad shape 4 (expected a tuple)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,,3), }", 24,
       "bad shape (2,,3)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", 4,
       "bad shape (,)"},
      {"{'descr': 'x<f4x', 'fortran_order': False, 'shape': (1,), }", 4,
       "unsupported dtype"},
      {"{'descr': '!f4', 'fortran_order': False, 'shape': (1,), }", 4,
       "unsupported dtype"},
      {"{'descr': '_f4', 'fortran_order': False, 'shape': (1,), }", 4,
       "unsupported dtype"},
  };
  for (const Case &c : cases) {
    write(c.dict, c.dataBytes);
    StatusOr<HostTensor> read = readNpy(path);
    ASSERT_FALSE(read) << c.dict;
    EXPECT_NE(read.status().message().find(c.error), std::string::npos)
        << read.status().message();
  }
  // What NumPy writes, and its spellings, still read.
  for (const char *dict :
       {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6, ), }",
        "{'descr': '=f4', 'fortran_order': False, 'shape': (2,3), }",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (24,), }"}) {
    write(dict, 24);
    StatusOr<HostTensor> read = readNpy(path);
    EXPECT_TRUE(read) << dict << ": " << read.status().message();
  }
  std::filesystem::remove(path);
}

Status run(Kernel kernel, const KernelParams &params,
           std::vector<HostTensor *> inputs, HostTensor &output) {
  KernelCall call;
  call.kernel = kernel;
  call.params = &params;
  for (HostTensor *input : inputs)
    call.inputs.push_back({input->data.data(), &input->type});
  call.outputs.push_back({output.data.data(), &output.type});
  return runHostKernel(call);
}

/// Runs an optimizer kernel: `inputs` (hyperparameters, gradient), and the
/// variable and its slots, updated in place.
Status runUpdate(Kernel kernel, bool nesterov, std::vector<HostTensor *> inputs,
                 std::vector<HostTensor *> state) {
  KernelParams params;
  params.useNesterov = nesterov;
  KernelCall call;
  call.kernel = kernel;
  call.params = &params;
  for (HostTensor *input : inputs)
    call.inputs.push_back({input->data.data(), &input->type});
  for (HostTensor *tensor : state)
    call.outputs.push_back({tensor->data.data(), &tensor->type});
  return runHostKernel(call);
}

HostTensor f64(std::vector<double> values) {
  return tensorOf<double>(ElementType::F64,
                          values.size() == 1
                              ? std::vector<int64_t>{}
                              : std::vector<int64_t>{int64_t(values.size())},
                          values);
}

// The optimizers against steps computed by hand from TensorFlow's
// training_ops formulas.
TEST(Optimizers, GradientDescentStep) {
  HostTensor var = f64({1, 2}), alpha = f64({0.1}), delta = f64({0.5, -1});
  ASSERT_TRUE(
      runUpdate(Kernel::ApplyGradientDescent, false, {&alpha, &delta}, {&var}));
  EXPECT_EQ(valuesOf<double>(var), (std::vector<double>{0.95, 2.1}));
}

TEST(Optimizers, MomentumAndNesterovSteps) {
  for (bool nesterov : {false, true}) {
    // accum = 0.5 * 0.9 + 2 = 2.45; var = 1 - 0.1 * 2.45 = 0.755, or
    // Nesterov: 1 - (2 * 0.1 + 2.45 * 0.9 * 0.1) = 0.5795.
    HostTensor var = f64({1, 1}), accum = f64({0.5, 0.5});
    HostTensor lr = f64({0.1}), grad = f64({2, 2}), momentum = f64({0.9});
    ASSERT_TRUE(runUpdate(Kernel::ApplyMomentum, nesterov,
                          {&lr, &grad, &momentum}, {&var, &accum}));
    EXPECT_NEAR(valuesOf<double>(accum)[0], 2.45, 1e-15);
    EXPECT_NEAR(valuesOf<double>(var)[1], nesterov ? 0.5795 : 0.755, 1e-15);
  }
}

TEST(Optimizers, AdamFirstStepMovesByTheLearningRate) {
  for (bool nesterov : {false, true}) {
    // Step 1: alpha = 0.001 * sqrt(1 - 0.999) / (1 - 0.9); m = 0.05,
    // v = 0.00025; var -= m * alpha / (sqrt(v) + 1e-8), just under the
    // learning rate (0.001 / (1 + 1e-8 / sqrt(v))); Nesterov's direction is
    // m * 0.9 + 0.1 * g = 0.095 instead of 0.05.
    HostTensor var = f64({1, 1}), m = f64({0, 0}), v = f64({0, 0});
    HostTensor beta1Power = f64({0.9}), beta2Power = f64({0.999}),
               lr = f64({0.001}), beta1 = f64({0.9}), beta2 = f64({0.999}),
               epsilon = f64({1e-8}), grad = f64({0.5, 0.5});
    ASSERT_TRUE(runUpdate(
        Kernel::ApplyAdam, nesterov,
        {&beta1Power, &beta2Power, &lr, &beta1, &beta2, &epsilon, &grad},
        {&var, &m, &v}));
    EXPECT_NEAR(valuesOf<double>(m)[0], 0.05, 1e-15);
    EXPECT_NEAR(valuesOf<double>(v)[0], 0.00025, 1e-15);
    double step = 0.001 / (1 + 1e-8 / std::sqrt(0.00025)) * (nesterov ? 1.9 : 1);
    EXPECT_NEAR(valuesOf<double>(var)[0], 1 - step, 1e-15);
  }
}

/// Transposes a rank-4 `shape` of values 1, 2, ... by `perm` and compares
/// every element with index arithmetic; fails the test where they differ.
template <typename T>
void checkTranspose(ElementType type, const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &perm) {
  int64_t count = shape[0] * shape[1] * shape[2] * shape[3];
  std::vector<T> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = static_cast<T>(i + 1);
  HostTensor input = tensorOf<T>(type, shape, values);
  int64_t strides[4] = {shape[1] * shape[2] * shape[3], shape[2] * shape[3],
                        shape[3], 1};
  KernelParams params;
  params.perm = perm;
  std::vector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  HostTensor out(TensorType{type, outShape});
  ASSERT_TRUE(run(Kernel::Transpose, params, {&input}, out).isOk());
  std::vector<T> expected;
  for (int64_t a = 0; a < outShape[0]; ++a)
    for (int64_t b = 0; b < outShape[1]; ++b)
      for (int64_t c = 0; c < outShape[2]; ++c)
        for (int64_t d = 0; d < outShape[3]; ++d)
          expected.push_back(values[a * strides[perm[0]] +
                                    b * strides[perm[1]] +
                                    c * strides[perm[2]] +
                                    d * strides[perm[3]]]);
  EXPECT_TRUE(valuesOf<T>(out) == expected)
      << "perm " << perm[0] << perm[1] << perm[2] << perm[3] << " of "
      << shape[0] << "x" << shape[1] << "x" << shape[2] << "x" << shape[3];
}

// Every permutation of a 2x3x1x4 tensor (the unit dimension also last
// after some permutations), in each element size: 4 and 8 bytes take a
// typed loop over the innermost dimension where it moves (or the tiled
// 2-D transpose), 1 and 2 bytes memcpy each element.
TEST(Kernels, TransposesEveryPermutationInEveryElementSize) {
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    checkTranspose<float>(ElementType::F32, {2, 3, 1, 4}, perm);
    checkTranspose<double>(ElementType::F64, {2, 3, 1, 4}, perm);
    checkTranspose<int64_t>(ElementType::I64, {2, 3, 1, 4}, perm);
    checkTranspose<uint16_t>(ElementType::BF16, {2, 3, 1, 4}, perm);
    checkTranspose<uint8_t>(ElementType::UI8, {2, 3, 1, 4}, perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

// NHWC to NCHW of a tensor large enough to run on several threads (tiles
// with ragged edges: 37 and 300 are not multiples of 16 or 64), NCHW to
// NHWC of wide images ([5, 7200] matrices per batch), and empty tensors.
TEST(Kernels, TransposesLargeAndEmptyTensors) {
  checkTranspose<float>(ElementType::F32, {3, 37, 10, 30}, {0, 3, 1, 2});
  checkTranspose<float>(ElementType::F32, {2, 5, 80, 90}, {0, 2, 3, 1});
  KernelParams params;
  params.perm = {0, 3, 1, 2};
  for (std::vector<int64_t> empty : {std::vector<int64_t>{0, 4, 5, 6},
                                     std::vector<int64_t>{2, 4, 5, 0}}) {
    HostTensor in(TensorType{ElementType::F32, empty});
    HostTensor o(TensorType{ElementType::F32,
                            {empty[0], empty[3], empty[1], empty[2]}});
    EXPECT_TRUE(run(Kernel::Transpose, params, {&in}, o).isOk());
  }
}

// Both walks of transposeBatched's tiles in 4- and 8-byte elements: along
// the input's rows when they are the larger power of two apart ([70, 1024]
// of f32: 4 KB apart), else along the output's ([1024, 70]: the output's
// rows 4 KB apart), with 4x4 blocks cut by each edge (70 = 64 + 4 + 2,
// 1021 = 1020 + 1), matrices smaller than a block, and matrices of 2 or 3
// rows or columns (their own loops, over tiles of 1024 and a ragged one).
TEST(Kernels, TransposesAlongEitherSideInBlocksWithEdges) {
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{3, 70, 1024, 1}, {3, 1024, 70, 1},
        {2, 70, 1021, 1}, {1, 1021, 6, 1}, {1, 4, 4, 1}, {2, 3, 5, 1},
        {2, 2, 2100, 1}, {2, 3, 2100, 1}, {1, 2100, 2, 1},
        {1, 2100, 3, 1}}) {
    checkTranspose<float>(ElementType::F32, shape, {0, 2, 1, 3});
    checkTranspose<int32_t>(ElementType::I32, shape, {3, 2, 0, 1});
    checkTranspose<double>(ElementType::F64, shape, {0, 2, 1, 3});
  }
}

// The four transpose combinations of one shape, in one process: the f32
// kernel (oneDNN's matmul primitive where gplace has oneDNN) keeps a
// primitive per kernel, shapes and transposes, never another's.
TEST(Kernels, FloatMatMulTransposesOfOneShape) {
  HostTensor a = tensorOf<float>(ElementType::F32, {2, 2}, {1, 2, 3, 4});
  HostTensor b = tensorOf<float>(ElementType::F32, {2, 2}, {5, 6, 7, 8});
  // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]].
  const std::vector<float> expected[2][2] = {
      {{19, 22, 43, 50},   // A B
       {17, 23, 39, 53}},  // A B^T
      {{26, 30, 38, 44},   // A^T B
       {23, 31, 34, 46}}}; // A^T B^T
  for (int round = 0; round < 2; ++round)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        KernelParams params;
        params.transposeA = ta;
        params.transposeB = tb;
        HostTensor c(TensorType{ElementType::F32, {2, 2}});
        ASSERT_TRUE(run(Kernel::Matmul, params, {&a, &b}, c).isOk());
        EXPECT_EQ(valuesOf<float>(c), expected[ta][tb])
            << "transpose_a " << ta << ", transpose_b " << tb;
      }
}

// matmul_accumulate against matmul and then add, on shapes large enough
// for the GEMMs to block (K = 300: oneDNN's brgemm on AVX-512, jit GEMM on
// AVX2), for each transpose: within 1e-5 relative of the product's scale
// on every ISA (oneDNN's AVX2 GEMM starts its sums from C; on AVX-512 the
// two are bit for bit alike, docs/passes/remap.md), and C itself unchanged
// when the output is another buffer.
TEST(Kernels, MatMulAccumulateMatchesMatMulThenAdd) {
  const int64_t m = 37, k = 300, n = 45;
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 24) -
           0.5f;
  };
  auto randomTensor = [&](std::vector<int64_t> shape) {
    std::vector<float> v(shape[0] * shape[1]);
    for (float &x : v)
      x = next();
    return tensorOf<float>(ElementType::F32, std::move(shape), v);
  };
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      HostTensor a = randomTensor(ta ? std::vector<int64_t>{k, m}
                                     : std::vector<int64_t>{m, k});
      HostTensor b = randomTensor(tb ? std::vector<int64_t>{n, k}
                                     : std::vector<int64_t>{k, n});
      HostTensor c = randomTensor({m, n});
      KernelParams params;
      params.transposeA = ta;
      params.transposeB = tb;
      HostTensor product(TensorType{ElementType::F32, {m, n}});
      HostTensor sum(TensorType{ElementType::F32, {m, n}});
      HostTensor fused(TensorType{ElementType::F32, {m, n}});
      ASSERT_TRUE(run(Kernel::Matmul, params, {&a, &b}, product).isOk());
      ASSERT_TRUE(run(Kernel::Add, {}, {&c, &product}, sum).isOk());
      std::vector<float> cBefore = valuesOf<float>(c);
      ASSERT_TRUE(
          run(Kernel::MatmulAccumulate, params, {&c, &a, &b}, fused).isOk());
      std::vector<float> want = valuesOf<float>(sum),
                         got = valuesOf<float>(fused);
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i)
        worst = std::max(worst, std::fabs(double(got[i]) - double(want[i])));
      // |op(A) op(B)| is about sqrt(k / 144) = 1.4 here; float's rounding
      // of a 300-term sum stays under 1e-5 of it.
      EXPECT_LT(worst, 1e-5) << "transpose_a " << ta << ", transpose_b " << tb;
      EXPECT_EQ(valuesOf<float>(c), cBefore);
      // And it is a sum at all: C's share is there.
      EXPECT_GT(std::fabs(got[0] - valuesOf<float>(product)[0]), 0.0f);
    }
}

// GEMM with beta = 1: the output is C + op(A) op(B), whether it is C's own
// memory (the memory plan's in place) or another buffer (C copied first),
// in f32 and f64, for each transpose.
TEST(Kernels, MatMulAccumulateAddsTheProductToC) {
  const std::vector<double> expected[2][2] = {
      {{20, 24, 46, 54}, {18, 25, 42, 57}},
      {{27, 32, 41, 48}, {24, 33, 37, 50}}};
  for (ElementType type : {ElementType::F32, ElementType::F64})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (bool inPlace : {false, true}) {
          auto make = [&](std::vector<double> v) {
            return type == ElementType::F32
                       ? tensorOf<float>(type, {2, 2},
                                         std::vector<float>(v.begin(), v.end()))
                       : tensorOf<double>(type, {2, 2}, v);
          };
          HostTensor a = make({1, 2, 3, 4}), b = make({5, 6, 7, 8});
          HostTensor c = make({1, 2, 3, 4}), out = make({0, 0, 0, 0});
          KernelParams params;
          params.transposeA = ta;
          params.transposeB = tb;
          HostTensor &result = inPlace ? c : out;
          ASSERT_TRUE(
              run(Kernel::MatmulAccumulate, params, {&c, &a, &b}, result)
                  .isOk());
          auto values = [&](const HostTensor &t) {
            std::vector<double> got;
            if (type == ElementType::F32)
              for (float x : valuesOf<float>(t))
                got.push_back(x);
            else
              got = valuesOf<double>(t);
            return got;
          };
          EXPECT_EQ(values(result), expected[ta][tb])
              << "transpose_a " << ta << ", transpose_b " << tb
              << ", in place " << inPlace;
          // Not in place: C is read, not written.
          if (!inPlace) {
            EXPECT_EQ(values(c), (std::vector<double>{1, 2, 3, 4}));
          }
        }
}

// A constant B (TensorRef::constant, with a state slot: what the executor
// gives a launch reading a plan constant) is packed into oneDNN's layout on
// the first run and read from that copy afterwards: the memory B came from
// is not read again (which is why only constants are marked).
TEST(Kernels, ConstantMatMulOperandIsPackedOnce) {
  HostTensor a = tensorOf<float>(ElementType::F32, {2, 2}, {1, 2, 3, 4});
  HostTensor b = tensorOf<float>(ElementType::F32, {2, 2}, {5, 6, 7, 8});
  HostTensor c(TensorType{ElementType::F32, {2, 2}});
  KernelParams params;
  params.transposeB = true;
  std::unique_ptr<KernelState> state;
  KernelCall call;
  call.kernel = Kernel::Matmul;
  call.params = &params;
  call.inputs = {{a.data.data(), &a.type}, {b.data.data(), &b.type, true}};
  call.outputs = {{c.data.data(), &c.type}};
  call.state = &state;
  ASSERT_TRUE(runHostKernel(call).isOk());
  EXPECT_EQ(valuesOf<float>(c), (std::vector<float>{17, 23, 39, 53}));
  bool oneDnn = matmulDescription().find("oneDNN") != std::string::npos;
  EXPECT_EQ(state != nullptr, oneDnn);
  // Overwrite B's memory: a packed B does not see it, OpenBLAS does.
  float *bData = reinterpret_cast<float *>(b.data.data());
  std::fill(bData, bData + 4, 0.0f);
  ASSERT_TRUE(runHostKernel(call).isOk());
  std::vector<float> packed = {17, 23, 39, 53}, unpacked = {0, 0, 0, 0};
  EXPECT_EQ(valuesOf<float>(c), oneDnn ? packed : unpacked);
  // Without a state slot nothing is kept, constant or not.
  call.state = nullptr;
  ASSERT_TRUE(runHostKernel(call).isOk());
  EXPECT_EQ(valuesOf<float>(c), (std::vector<float>{0, 0, 0, 0}));
}

// An NCHW convolution runs in oneDNN's blocked layouts, reordering its
// activations into buffers of its own: hostWorkspaceBytes counts them, a
// launch given that much workspace (KernelCall::workspace, as the static
// memory plan reserves it) takes them there and writes nothing beyond it,
// and a launch given too little or none gives the same result from its
// thread's buffers.
TEST(Kernels, ConvolutionTakesItsBuffersFromThePlannedWorkspace) {
  if (matmulDescription().find("oneDNN") == std::string::npos)
    GTEST_SKIP() << "built without oneDNN";
  HostTensor x(TensorType{ElementType::F32, {2, 3, 7, 6}});
  HostTensor w(TensorType{ElementType::F32, {3, 3, 3, 17}});
  auto *xs = reinterpret_cast<float *>(x.data.data());
  auto *ws = reinterpret_cast<float *>(w.data.data());
  for (int64_t i = 0; i < x.type.numElements(); ++i)
    xs[i] = static_cast<float>(i % 7) - 3.0f;
  for (int64_t i = 0; i < w.type.numElements(); ++i)
    ws[i] = static_cast<float>(i % 5) - 2.0f;
  KernelParams params;
  params.windowSize = {3, 3};
  params.windowStrides = {1, 1};
  params.windowDilations = {1, 1};
  params.windowPads = {1, 1, 1, 1};
  params.channelsFirst = true;
  TensorType yType{ElementType::F32, {2, 17, 7, 6}};
  StatusOr<int64_t> bytes = hostWorkspaceBytes(
      Kernel::Conv2D, params, {x.type, w.type}, {false, false}, {yType});
  ASSERT_TRUE(bytes) << bytes.status().message();
  EXPECT_GT(*bytes, 0);
  EXPECT_EQ(*bytes % 64, 0);
  // Elementwise kernels take none.
  StatusOr<int64_t> none = hostWorkspaceBytes(
      Kernel::Add, KernelParams(), {yType, yType}, {false, false}, {yType});
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, 0);

  auto runWith = [&](void *workspace, int64_t workspaceBytes) {
    HostTensor y(yType);
    KernelCall call;
    call.kernel = Kernel::Conv2D;
    call.params = &params;
    call.inputs = {{x.data.data(), &x.type}, {w.data.data(), &w.type}};
    call.outputs = {{y.data.data(), &y.type}};
    call.workspace = workspace;
    call.workspaceBytes = workspaceBytes;
    EXPECT_TRUE(runHostKernel(call).isOk());
    return y.data;
  };
  std::vector<uint8_t> expected = runWith(nullptr, 0);
  // 64-byte aligned, as an arena slot is, with 4 KiB of canary after it.
  const uint8_t kCanary = 0xA5;
  std::vector<uint8_t> memory(*bytes + 4096 + 64, kCanary);
  auto *aligned = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(memory.data()) + 63) / 64 * 64);
  EXPECT_EQ(runWith(aligned, *bytes), expected);
  EXPECT_TRUE(std::any_of(aligned, aligned + *bytes,
                          [&](uint8_t byte) { return byte != kCanary; }));
  EXPECT_TRUE(std::all_of(aligned + *bytes, aligned + *bytes + 4096,
                          [&](uint8_t byte) { return byte == kCanary; }));
  EXPECT_EQ(runWith(aligned, 64), expected);
}

// Convolutions and pools on f16 and bf16 tensors (what
// --mixed-precision gives the CPU) are computed in f32: on operands that
// the 16-bit type holds exactly, each result is the f32 kernel's result
// rounded, bit for bit, and a measuring call measures the f32 kernel's
// workspace.
TEST(Kernels, SixteenBitConvolutionsAndPoolsAreComputedInF32) {
  if (matmulDescription().find("oneDNN") == std::string::npos)
    GTEST_SKIP() << "built without oneDNN";
  auto run = [](Kernel kernel, const KernelParams &params,
                std::vector<HostTensor *> inputs, HostTensor &out) {
    KernelCall call;
    call.kernel = kernel;
    call.params = &params;
    for (HostTensor *in : inputs)
      call.inputs.push_back({in->data.data(), &in->type});
    call.outputs = {{out.data.data(), &out.type}};
    return runHostKernel(call);
  };
  auto cast = [&](HostTensor &in, ElementType to) {
    HostTensor out(TensorType{to, in.type.shape});
    EXPECT_TRUE(run(Kernel::Cast, KernelParams(), {&in}, out).isOk());
    return out;
  };
  // Multiples of 1/8 in [-2, 2]: exact in f16 and bf16.
  auto values = [](const TensorType &type, int step) {
    HostTensor t(type);
    auto *data = reinterpret_cast<float *>(t.data.data());
    for (int64_t i = 0; i < type.numElements(); ++i)
      data[i] = static_cast<float>((i * step) % 33 - 16) / 8.0f;
    return t;
  };
  KernelParams conv;
  conv.windowSize = {3, 3};
  conv.windowStrides = {1, 1};
  conv.windowDilations = {1, 1};
  conv.windowPads = {1, 1, 1, 1};
  KernelParams pool;
  pool.windowSize = {2, 2};
  pool.windowStrides = {2, 2};
  pool.windowDilations = {1, 1};
  pool.windowPads = {0, 0, 0, 0};
  HostTensor x = values(TensorType{ElementType::F32, {2, 6, 6, 3}}, 7);
  HostTensor w = values(TensorType{ElementType::F32, {3, 3, 3, 5}}, 5);
  HostTensor dy = values(TensorType{ElementType::F32, {2, 6, 6, 5}}, 3);
  struct Case {
    Kernel kernel;
    const KernelParams *params;
    std::vector<HostTensor *> inputs;
    TensorType result;
  };
  std::vector<Case> cases = {
      {Kernel::Conv2D, &conv, {&x, &w}, {ElementType::F32, {2, 6, 6, 5}}},
      {Kernel::Conv2DBackpropInput, &conv, {&w, &dy}, x.type},
      {Kernel::Conv2DBackpropFilter, &conv, {&x, &dy}, w.type},
      {Kernel::MaxPool, &pool, {&x}, {ElementType::F32, {2, 3, 3, 3}}},
      {Kernel::AvgPool, &pool, {&x}, {ElementType::F32, {2, 3, 3, 3}}},
  };
  for (ElementType half : {ElementType::BF16, ElementType::F16}) {
    for (const Case &c : cases) {
      SCOPED_TRACE(std::string(kernelMnemonic(c.kernel)) + " in " +
                   std::string(elementTypeName(half)));
      HostTensor expected32(c.result);
      ASSERT_TRUE(run(c.kernel, *c.params, c.inputs, expected32).isOk());
      HostTensor expected = cast(expected32, half);
      std::vector<HostTensor> narrow;
      narrow.reserve(c.inputs.size());
      std::vector<HostTensor *> narrowPtrs;
      std::vector<TensorType> types;
      for (HostTensor *in : c.inputs) {
        narrow.push_back(cast(*in, half));
        narrowPtrs.push_back(&narrow.back());
        types.push_back(narrow.back().type);
      }
      HostTensor result(TensorType{half, c.result.shape});
      ASSERT_TRUE(run(c.kernel, *c.params, narrowPtrs, result).isOk());
      EXPECT_EQ(result.data, expected.data);
      StatusOr<int64_t> bytes = hostWorkspaceBytes(
          c.kernel, *c.params, types, std::vector<bool>(types.size(), false),
          {result.type});
      ASSERT_TRUE(bytes) << bytes.status().message();
    }
  }
}

// BroadcastTo writes a repeated dimension once and doubles its copies:
// every output element must still be the input element its index selects
// (dimensions of size 1 repeat), for every element size.
TEST(Kernels, BroadcastToMatchesItsIndices) {
  struct Case {
    std::vector<int64_t> in, out;
  };
  std::vector<Case> cases = {
      {{1, 2, 1, 3, 1, 4, 1, 5}, {7, 2, 6, 3, 4, 4, 2, 5}}, // Tile's reshape
      {{3, 1}, {2, 3, 4}},  // a column, repeated innermost
      {{4}, {5, 3, 4}},     // a row
      {{1}, {6, 7}},        // a scalar
      {{2, 3}, {2, 3}},     // nothing repeated
      {{2, 1, 3}, {2, 5, 3}},
  };
  for (const Case &k : cases)
    for (ElementType type : {ElementType::F32, ElementType::I64,
                             ElementType::UI8, ElementType::F16}) {
      SCOPED_TRACE(std::to_string(k.out.size()) + "-D, " +
                   std::to_string(elementBytes(type)) + "-byte elements");
      HostTensor in(TensorType{type, k.in});
      HostTensor out(TensorType{type, k.out});
      for (size_t i = 0; i < in.data.size(); ++i)
        in.data[i] = static_cast<uint8_t>(i * 7 + 1);
      KernelParams params;
      KernelCall call;
      call.kernel = Kernel::BroadcastTo;
      call.params = &params;
      call.inputs = {{in.data.data(), &in.type}};
      call.outputs = {{out.data.data(), &out.type}};
      ASSERT_TRUE(runHostKernel(call).isOk());
      int64_t size = elementBytes(type), rank = k.out.size();
      int64_t lead = rank - static_cast<int64_t>(k.in.size());
      for (int64_t e = 0; e < out.type.numElements(); ++e) {
        int64_t rest = e, from = 0, stride = 1;
        for (int64_t d = rank - 1; d >= 0; --d) {
          int64_t i = rest % k.out[d];
          rest /= k.out[d];
          if (d >= lead) {
            int64_t dim = k.in[d - lead];
            from += (dim == 1 ? 0 : i) * stride;
            stride *= dim;
          }
        }
        ASSERT_EQ(0, std::memcmp(out.data.data() + e * size,
                                 in.data.data() + from * size, size))
            << "element " << e;
      }
    }
}

// NHWC max_pool and avg_pool (exclude padding) against plain loops over
// each window, summing in the kernel's order (window rows, then columns):
// the same bits. Any channel count with a column stride of 1 takes the
// kernel's flat loop (outputs and channels as one run), as do pools down
// a single column; a column stride of 2 its other loops (a channel at a
// time, or eight at a time for 8k channels); pads on every side, windows
// past the input.
TEST(Kernels, NhwcPoolsMatchTheirWindows) {
  if (matmulDescription().find("oneDNN") == std::string::npos)
    GTEST_SKIP() << "built without oneDNN";
  struct Case {
    int64_t n, h, w, c, kh, kw, sh, sw, top, bottom, left, right;
  };
  std::vector<Case> cases = {
      {1, 7, 9, 3, 3, 3, 1, 1, 2, 2, 2, 2},  // ONNX's pads, 3 channels
      {2, 6, 11, 1, 2, 4, 2, 1, 1, 0, 3, 1}, // one channel, uneven pads
      {1, 1, 40, 1, 1, 7, 1, 1, 0, 0, 3, 3}, // a 1-D pool along the row
      {1, 5, 8, 5, 3, 2, 1, 1, 0, 1, 1, 0},  // 5 channels
      {1, 9, 9, 3, 3, 3, 2, 2, 1, 1, 1, 1},  // column stride 2
      {1, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1},  // 8 channels
      {1, 8, 8, 96, 2, 2, 1, 1, 0, 0, 0, 0}, // 96: a 3-D pool's 2-D part
      {1, 9, 9, 16, 3, 3, 2, 2, 1, 1, 1, 1}, // 16, column stride 2
      // Down a single column (ONNX's 1-D pools): run along a row.
      {2, 40, 1, 1, 7, 1, 1, 1, 3, 3, 0, 0},
      {1, 30, 1, 3, 5, 1, 1, 1, 2, 1, 0, 0},
      {1, 30, 1, 1, 4, 1, 2, 1, 0, 1, 0, 0}, // row stride 2: as it is
  };
  for (const Case &k : cases) {
    for (Kernel kernel : {Kernel::MaxPool, Kernel::AvgPool}) {
      SCOPED_TRACE(std::string(kernelMnemonic(kernel)) + " " +
                   std::to_string(k.h) + "x" + std::to_string(k.w) + "x" +
                   std::to_string(k.c));
      KernelParams params;
      params.windowSize = {k.kh, k.kw};
      params.windowStrides = {k.sh, k.sw};
      params.windowDilations = {1, 1};
      params.windowPads = {k.top, k.bottom, k.left, k.right};
      int64_t oh = (k.h + k.top + k.bottom - k.kh) / k.sh + 1;
      int64_t ow = (k.w + k.left + k.right - k.kw) / k.sw + 1;
      std::vector<float> x(k.n * k.h * k.w * k.c);
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = std::sin(0.37f * static_cast<float>(i)) * 4.0f;
      HostTensor in =
          tensorOf<float>(ElementType::F32, {k.n, k.h, k.w, k.c}, x);
      HostTensor out(TensorType{ElementType::F32, {k.n, oh, ow, k.c}});
      KernelCall call;
      call.kernel = kernel;
      call.params = &params;
      call.inputs = {{in.data.data(), &in.type}};
      call.outputs = {{out.data.data(), &out.type}};
      ASSERT_TRUE(runHostKernel(call).isOk());
      const auto *got = reinterpret_cast<const float *>(out.data.data());
      for (int64_t b = 0; b < k.n; ++b)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j)
            for (int64_t c = 0; c < k.c; ++c) {
              float acc = kernel == Kernel::MaxPool
                              ? std::numeric_limits<float>::lowest()
                              : 0.0f;
              int64_t count = 0;
              for (int64_t di = 0; di < k.kh; ++di)
                for (int64_t dj = 0; dj < k.kw; ++dj) {
                  int64_t r = i * k.sh - k.top + di,
                          q = j * k.sw - k.left + dj;
                  if (r < 0 || r >= k.h || q < 0 || q >= k.w)
                    continue;
                  float v = x[((b * k.h + r) * k.w + q) * k.c + c];
                  acc = kernel == Kernel::MaxPool ? std::max(acc, v)
                                                  : acc + v;
                  ++count;
                }
              if (kernel == Kernel::AvgPool)
                acc = acc / static_cast<float>(count);
              ASSERT_EQ(got[((b * oh + i) * ow + j) * k.c + c], acc)
                  << "at " << b << "," << i << "," << j << "," << c;
            }
    }
  }
}

// An update large enough to split over threads (parallelFor) computes each
// element exactly as an update of that element alone.
TEST(Optimizers, LargeAdamStepEqualsElementwiseSteps) {
  const int64_t n = 100003; // Not a multiple of any chunk.
  std::vector<float> var(n), m(n), v(n), grad(n);
  for (int64_t i = 0; i < n; ++i) {
    var[i] = std::sin(0.001f * i);
    m[i] = 0.01f * std::cos(0.003f * i);
    v[i] = 0.001f * (1 + std::sin(0.007f * i));
    grad[i] = std::cos(0.002f * i) - 0.5f;
  }
  auto scalar = [](float x) {
    return tensorOf<float>(ElementType::F32, {}, {x});
  };
  HostTensor beta1Power = scalar(0.81f), beta2Power = scalar(0.998f),
             lr = scalar(0.001f), beta1 = scalar(0.9f), beta2 = scalar(0.999f),
             epsilon = scalar(1e-7f);
  auto step = [&](int64_t begin, int64_t count) {
    auto slice = [&](const std::vector<float> &x) {
      return tensorOf<float>(
          ElementType::F32, {count},
          std::vector<float>(x.begin() + begin, x.begin() + begin + count));
    };
    HostTensor tv = slice(var), tm = slice(m), tvv = slice(v), tg = slice(grad);
    EXPECT_TRUE(runUpdate(Kernel::ApplyAdam, false,
                          {&beta1Power, &beta2Power, &lr, &beta1, &beta2,
                           &epsilon, &tg},
                          {&tv, &tm, &tvv}));
    return std::array<std::vector<float>, 3>{
        valuesOf<float>(tv), valuesOf<float>(tm), valuesOf<float>(tvv)};
  };
  auto all = step(0, n);
  for (int64_t i : {int64_t(0), int64_t(1), n / 2 - 1, n / 2, n / 2 + 1,
                    int64_t(50016), n - 2, n - 1}) {
    auto one = step(i, 1);
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(all[k][i], one[k][0]) << "element " << i << ", output " << k;
  }
}

TEST(Kernels, IntegerMatMulWrapsAsTensorFlow) {
  HostTensor a = tensorOf<int32_t>(ElementType::I32, {1, 1}, {1 << 30});
  HostTensor b = tensorOf<int32_t>(ElementType::I32, {1, 1}, {4});
  HostTensor c(TensorType{ElementType::I32, {1, 1}});
  ASSERT_TRUE(run(Kernel::Matmul, {}, {&a, &b}, c).isOk());
  EXPECT_EQ(valuesOf<int32_t>(c), std::vector<int32_t>{0});
}

TEST(Kernels, CastSaturatesAndMapsNanToZero) {
  HostTensor in = tensorOf<float>(ElementType::F32, {3}, {NAN, -1e30f, 1e30f});
  HostTensor out(TensorType{ElementType::I64, {3}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&in}, out).isOk());
  EXPECT_EQ(valuesOf<int64_t>(out),
            (std::vector<int64_t>{0, INT64_MIN, INT64_MAX}));
}

// A cast to a narrower integer keeps the low bits (C++'s and numpy's
// astype: wrap-around, not saturation), so that the ONNX importer's
// narrow integer arithmetic, computed widened and cast back, wraps as
// ONNX's; a cast to a wider one sign- or zero-extends as the source type
// says; a float beyond the range saturates, as to i64.
TEST(Kernels, CastToNarrowerIntegersWraps) {
  HostTensor in = tensorOf<int32_t>(ElementType::I32, {5},
                                    {300, -1, 65537, -129, 40000});
  HostTensor u8(TensorType{ElementType::UI8, {5}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&in}, u8).isOk());
  EXPECT_EQ(valuesOf<uint8_t>(u8),
            (std::vector<uint8_t>{44, 255, 1, 127, 64}));
  HostTensor i8(TensorType{ElementType::I8, {5}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&in}, i8).isOk());
  EXPECT_EQ(valuesOf<int8_t>(i8), (std::vector<int8_t>{44, -1, 1, 127, 64}));
  HostTensor i16(TensorType{ElementType::I16, {5}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&in}, i16).isOk());
  EXPECT_EQ(valuesOf<int16_t>(i16),
            (std::vector<int16_t>{300, -1, 1, -129, -25536}));
  HostTensor u16(TensorType{ElementType::UI16, {5}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&in}, u16).isOk());
  EXPECT_EQ(valuesOf<uint16_t>(u16),
            (std::vector<uint16_t>{300, 65535, 1, 65407, 40000}));
  HostTensor wide = tensorOf<int64_t>(ElementType::I64, {2},
                                      {(int64_t(1) << 32) + 5, -1});
  HostTensor u32(TensorType{ElementType::UI32, {2}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&wide}, u32).isOk());
  EXPECT_EQ(valuesOf<uint32_t>(u32), (std::vector<uint32_t>{5, 4294967295u}));
  // Back up: ui8 and ui32 zero-extend, i8 sign-extends.
  HostTensor back(TensorType{ElementType::I32, {5}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&u8}, back).isOk());
  EXPECT_EQ(valuesOf<int32_t>(back),
            (std::vector<int32_t>{44, 255, 1, 127, 64}));
  ASSERT_TRUE(run(Kernel::Cast, {}, {&i8}, back).isOk());
  EXPECT_EQ(valuesOf<int32_t>(back), (std::vector<int32_t>{44, -1, 1, 127, 64}));
  HostTensor back64(TensorType{ElementType::I64, {2}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&u32}, back64).isOk());
  EXPECT_EQ(valuesOf<int64_t>(back64),
            (std::vector<int64_t>{5, 4294967295}));
  HostTensor floats = tensorOf<float>(ElementType::F32, {3}, {-1, 5e9f, 7.9f});
  HostTensor u32of3(TensorType{ElementType::UI32, {3}});
  ASSERT_TRUE(run(Kernel::Cast, {}, {&floats}, u32of3).isOk());
  EXPECT_EQ(valuesOf<uint32_t>(u32of3),
            (std::vector<uint32_t>{0, 4294967295u, 7}));
}

// OneHot: off_value everywhere but on_value at each row's index; an index
// outside [0, depth) a row of off_value (TensorFlow's); every element size
// the kernel copies as bits, with both index types.
TEST(Kernels, OneHotSetsEachRowsIndexAndNothingOutOfRange) {
  HostTensor indices =
      tensorOf<int64_t>(ElementType::I64, {2, 2}, {2, -1, 3, 0});
  HostTensor on = tensorOf<float>(ElementType::F32, {}, {7});
  HostTensor off = tensorOf<float>(ElementType::F32, {}, {-0.5});
  HostTensor out(TensorType{ElementType::F32, {2, 2, 3}});
  ASSERT_TRUE(run(Kernel::OneHot, {}, {&indices, &on, &off}, out).isOk());
  EXPECT_EQ(valuesOf<float>(out),
            (std::vector<float>{-0.5, -0.5, 7, -0.5, -0.5, -0.5, -0.5, -0.5,
                                -0.5, 7, -0.5, -0.5}));
  HostTensor indices32 = tensorOf<int32_t>(ElementType::I32, {3}, {1, 0, 1});
  HostTensor on64 = tensorOf<double>(ElementType::F64, {}, {1e300});
  HostTensor off64 = tensorOf<double>(ElementType::F64, {}, {-2});
  HostTensor out64(TensorType{ElementType::F64, {3, 2}});
  ASSERT_TRUE(
      run(Kernel::OneHot, {}, {&indices32, &on64, &off64}, out64).isOk());
  EXPECT_EQ(valuesOf<double>(out64),
            (std::vector<double>{-2, 1e300, 1e300, -2, -2, 1e300}));
  HostTensor on8 = tensorOf<uint8_t>(ElementType::UI8, {}, {5});
  HostTensor off8 = tensorOf<uint8_t>(ElementType::UI8, {}, {3});
  HostTensor out8(TensorType{ElementType::UI8, {3, 3}});
  ASSERT_TRUE(run(Kernel::OneHot, {}, {&indices32, &on8, &off8}, out8).isOk());
  EXPECT_EQ(valuesOf<uint8_t>(out8),
            (std::vector<uint8_t>{3, 5, 3, 5, 3, 3, 3, 5, 3}));
}

TEST(Kernels, IntegerDivisionByZeroIsAnError) {
  HostTensor a = tensorOf<int64_t>(ElementType::I64, {2}, {1, 2});
  HostTensor b = tensorOf<int64_t>(ElementType::I64, {2}, {1, 0});
  HostTensor c(TensorType{ElementType::I64, {2}});
  Status status = run(Kernel::Div, {}, {&a, &b}, c);
  EXPECT_FALSE(status.isOk());
  EXPECT_EQ(status.message(), "Integer division by zero");
}

TEST(Kernels, UnsupportedTypeIsAnError) {
  HostTensor a = tensorOf<int32_t>(ElementType::I32, {1}, {1});
  HostTensor c(TensorType{ElementType::I32, {1}});
  Status status = run(Kernel::Exp, {}, {&a}, c);
  EXPECT_FALSE(status.isOk());
  EXPECT_EQ(status.message(),
            "kernel gplace.exp has no host implementation for i32");
}

TEST(Kernels, BroadcastsAcrossEveryDimension) {
  // [2,1,3] + [4,1] -> [2,4,3].
  std::vector<float> av(6), bv(4);
  for (int i = 0; i < 6; ++i)
    av[i] = i * 10;
  for (int i = 0; i < 4; ++i)
    bv[i] = i;
  HostTensor a = tensorOf<float>(ElementType::F32, {2, 1, 3}, av);
  HostTensor b = tensorOf<float>(ElementType::F32, {4, 1}, bv);
  HostTensor c(TensorType{ElementType::F32, {2, 4, 3}});
  ASSERT_TRUE(run(Kernel::Add, {}, {&a, &b}, c).isOk());
  std::vector<float> got = valuesOf<float>(c);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(got[(i * 4 + j) * 3 + k], av[i * 3 + k] + bv[j]);
}

TEST(Kernels, ConcatJoinsAlongTheAxis) {
  // Three [4, 1] f32 along axis 1 (one element of each per row: typed
  // copies), [4, 2] and [4, 1] along axis 1 and [1, 3] and [2, 3] along
  // axis 0 (memcpy of each input's rows), against the joined indices.
  auto iota = [](std::vector<int64_t> shape, float from) {
    HostTensor t(TensorType{ElementType::F32, shape});
    for (int64_t i = 0; i < t.type.numElements(); ++i) {
      float v = from + static_cast<float>(i);
      std::memcpy(&t.data[4 * i], &v, 4);
    }
    return t;
  };
  KernelParams params;
  params.axis = 1;
  HostTensor a = iota({4, 1}, 0), b = iota({4, 1}, 10), c = iota({4, 1}, 20);
  HostTensor joined(TensorType{ElementType::F32, {4, 3}});
  ASSERT_TRUE(run(Kernel::Concat, params, {&a, &b, &c}, joined).isOk());
  EXPECT_EQ(valuesOf<float>(joined),
            (std::vector<float>{0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23}));
  HostTensor wide = iota({4, 2}, 100);
  ASSERT_TRUE(run(Kernel::Concat, params, {&wide, &a}, joined).isOk());
  EXPECT_EQ(valuesOf<float>(joined),
            (std::vector<float>{100, 101, 0, 102, 103, 1, 104, 105, 2, 106,
                                107, 3}));
  params.axis = 0;
  HostTensor top = iota({1, 3}, 0), bottom = iota({2, 3}, 50);
  HostTensor rows(TensorType{ElementType::F32, {3, 3}});
  ASSERT_TRUE(run(Kernel::Concat, params, {&top, &bottom}, rows).isOk());
  EXPECT_EQ(valuesOf<float>(rows),
            (std::vector<float>{0, 1, 2, 50, 51, 52, 53, 54, 55}));
}

TEST(Kernels, FusedAddNOfManyOperandsAddsEachOnce) {
  // A fused add_n of eleven operands (a broadcast row, a single element
  // and nine full tensors), then a relu stored: on one thread (100
  // elements) and split over threads (40000, past kParallelMinElements),
  // against each element's sum.
  for (int64_t rows : {1, 400}) {
    const std::vector<int64_t> out = {rows, 100};
    std::vector<HostTensor> operands;
    operands.emplace_back(TensorType{ElementType::F32, {100}});
    operands.emplace_back(TensorType{ElementType::F32, {1}});
    for (int k = 0; k < 9; ++k)
      operands.emplace_back(TensorType{ElementType::F32, out});
    for (size_t k = 0; k < operands.size(); ++k)
      for (int64_t i = 0; i < operands[k].type.numElements(); ++i) {
        float v = static_cast<float>((i * 7 + static_cast<int64_t>(k)) % 13) -
                  (k == 1 ? 40.0f : 6.0f);
        std::memcpy(&operands[k].data[4 * i], &v, 4);
      }
    HostTensor fused(TensorType{ElementType::F32, out});
    FusedCall call;
    call.label = "many";
    call.type = fused.type;
    FusedCall::Op sum{Kernel::AddN, {}, -1};
    for (size_t k = 0; k < operands.size(); ++k) {
      call.inputs.push_back({operands[k].data.data(), &operands[k].type});
      sum.operands.push_back(static_cast<int>(k));
    }
    call.ops = {sum, {Kernel::Relu, {-1}, 0}};
    call.outputs = {{fused.data.data(), &fused.type}};
    ASSERT_TRUE(runHostFused(call).isOk());
    std::vector<float> values = valuesOf<float>(fused);
    std::vector<std::vector<float>> inputs;
    for (const HostTensor &operand : operands)
      inputs.push_back(valuesOf<float>(operand));
    for (int64_t e = 0; e < rows * 100; ++e) {
      float expected = 0;
      for (size_t k = 0; k < inputs.size(); ++k)
        expected += inputs[k][k == 0 ? e % 100 : k == 1 ? 0 : e];
      ASSERT_EQ(values[e], std::max(expected, 0.0f)) << "element " << e;
    }
  }
}

TEST(Kernels, BroadcastRunsAcrossBlocksEqualElementByElement) {
  // Out 3x37x300 (33300 elements: runs straddle the 4096-element blocks,
  // and a fused kernel splits them over threads at an element inside a
  // run). Operands read in runs: copied (1x37x300, 300, 3x1x300), repeated
  // (37x1, 3x1x1), a single element (1x1) and the full shape. Then out
  // 3x700x1x3 (6300 elements; blocks of 4096 start inside a run of 3),
  // whose operands read short runs: a pattern repeated whole (3, 1x1x3),
  // each element repeated (3x700x1x1: one merged outer dimension), outer
  // dimensions that do not merge (700x1x3, 3x1x1x3, 1x700x1x1) and a
  // long repeated run (3x1x1x1). Then out 3x700x3x1, its last dimension
  // of size 1 (the same runs as 3x700x3: 3x1 a pattern, 3x700x1x1 each
  // element repeated). Then out 3x50x70x3 (31500 elements, blocks of
  // 4096 start inside runs and rows), whose operands have two outer
  // dimensions after merging (3x50x1x3 and 50x70x1: a row of runs
  // repeated, as RoiAlign's taps) or three (3x1x70x1, 1x50x1x3). Then
  // the same with runs of 4 (3x51x71x4) and of 2 (5x61x61x2), whose loops
  // are unrolled (blocks and threads start at multiples of 16, at a run's
  // start; a fused kernel over 32768 elements splits over threads).
  // add_n of three and mul of two, single kernels and fused, against
  // indices computed element by element.
  struct Case {
    std::vector<int64_t> out;
    std::vector<std::vector<int64_t>> shapes;
  };
  const Case cases[] = {
      {{3, 37, 300},
       {{1, 37, 300}, {300}, {3, 1, 300}, {37, 1}, {3, 1, 1}, {1, 1}}},
      {{3, 700, 1, 3},
       {{3}, {1, 1, 3}, {3, 700, 1, 1}, {700, 1, 3}, {3, 1, 1, 3},
        {1, 700, 1, 1}, {3, 1, 1, 1}}},
      {{3, 700, 3, 1},
       {{3, 1}, {3, 700, 1, 1}, {700, 3, 1}, {3, 1, 3, 1}, {1, 700, 1, 1}}},
      {{3, 50, 70, 3},
       {{3, 50, 1, 3}, {50, 70, 1}, {3, 1, 70, 1}, {1, 50, 1, 3}}},
      {{3, 51, 71, 4},
       {{3, 51, 1, 4}, {51, 71, 1}, {3, 1, 71, 1}, {1, 51, 1, 4}, {4}}},
      {{5, 61, 61, 2},
       {{5, 61, 1, 2}, {61, 61, 1}, {5, 1, 61, 1}, {1, 61, 1, 2}, {2}}}};
  auto make = [](std::vector<int64_t> shape, float scale) {
    HostTensor t(TensorType{ElementType::F32, shape});
    for (int64_t i = 0; i < t.type.numElements(); ++i) {
      float v = static_cast<float>((i * 37) % 101) * scale;
      std::memcpy(&t.data[4 * i], &v, 4);
    }
    return t;
  };
  for (const Case &c : cases) {
    const std::vector<int64_t> &out = c.out;
    // The element of operand `t` (values `v`) that output element `e`
    // reads.
    auto at = [&](const HostTensor &t, const std::vector<float> &v,
                  int64_t e) {
      std::vector<int64_t> index(out.size());
      for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
        index[d] = e % out[d];
        e /= out[d];
      }
      const std::vector<int64_t> &shape = t.type.shape;
      int64_t offset = 0;
      size_t skip = out.size() - shape.size();
      for (size_t d = 0; d < shape.size(); ++d)
        offset = offset * shape[d] + (shape[d] == 1 ? 0 : index[skip + d]);
      return v[offset];
    };
    std::vector<HostTensor> operands;
    for (const std::vector<int64_t> &shape : c.shapes)
      operands.push_back(make(shape, 0.25f));
    operands.push_back(make(out, 0.25f));
    HostTensor full = make(out, 0.5f);
    for (HostTensor &a : operands)
      for (HostTensor &b : operands) {
        HostTensor sum(TensorType{ElementType::F32, out}),
            product(TensorType{ElementType::F32, out}),
            fused(TensorType{ElementType::F32, out});
        ASSERT_TRUE(run(Kernel::AddN, {}, {&a, &b, &full}, sum).isOk());
        ASSERT_TRUE(run(Kernel::Mul, {}, {&a, &b}, product).isOk());
        FusedCall call;
        call.type = product.type;
        call.inputs = {{a.data.data(), &a.type}, {b.data.data(), &b.type}};
        call.ops = {{Kernel::Mul, {0, 1}, -1}, {Kernel::Relu, {-1}, 0}};
        call.outputs = {{fused.data.data(), &fused.type}};
        ASSERT_TRUE(runHostFused(call).isOk());
        std::vector<float> sums = valuesOf<float>(sum),
                           products = valuesOf<float>(product),
                           fusedValues = valuesOf<float>(fused),
                           av = valuesOf<float>(a), bv = valuesOf<float>(b),
                           fullValues = valuesOf<float>(full);
        for (int64_t e = 0; e < product.type.numElements(); ++e) {
          float x = at(a, av, e), y = at(b, bv, e);
          ASSERT_EQ(sums[e], x + y + at(full, fullValues, e))
              << a.type.str() << " + " << b.type.str() << " at " << e;
          ASSERT_EQ(products[e], x * y)
              << a.type.str() << " * " << b.type.str() << " at " << e;
          ASSERT_EQ(fusedValues[e], x * y)
              << a.type.str() << " * " << b.type.str() << " fused at " << e;
        }
      }
  }
}

TEST(Kernels, ReductionsAddInTheInputsOrderOverEveryAxisSet) {
  // 3x4x700, values whose sums depend on the order of the adds: each
  // reduction over each set of axes equals adding element by element in
  // the input's order, in double, rounded to float once (what the kernels
  // promise, and what makes training runs repeat bit for bit); reduce_max
  // propagates NaN. Axes {0}, {1} and {0, 1} take the [outer, reduced,
  // inner] loop, its 700 columns in two blocks of accumulators. Then
  // 3x700x1: axes {0}, {1} and {0, 1} there have one column (a register
  // accumulator per output).
  for (const std::vector<int64_t> &shape :
       std::vector<std::vector<int64_t>>{{3, 4, 700}, {3, 700, 1}}) {
    HostTensor in(TensorType{ElementType::F32, shape});
    std::vector<float> values(in.type.numElements());
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = std::sin(static_cast<float>(i)) * (i % 7 == 0 ? 1e4f : 1.0f);
    values[777] = NAN;
    std::memcpy(in.data.data(), values.data(), in.data.size());
    for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{
             {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}}) {
      std::vector<int64_t> outShape;
      for (int64_t d = 0; d < 3; ++d)
        if (std::find(axes.begin(), axes.end(), d) == axes.end())
          outShape.push_back(shape[d]);
      TensorType outType{ElementType::F32, outShape};
      std::vector<double> total(outType.numElements(), 0.0);
      std::vector<float> max(outType.numElements(), -INFINITY);
      for (int64_t i = 0, e = 0; i < shape[0]; ++i)
        for (int64_t j = 0; j < shape[1]; ++j)
          for (int64_t k = 0; k < shape[2]; ++k, ++e) {
            int64_t o = 0;
            for (int64_t d = 0; d < 3; ++d)
              if (std::find(axes.begin(), axes.end(), d) == axes.end())
                o = o * shape[d] + std::vector<int64_t>{i, j, k}[d];
            total[o] = total[o] + values[e];
            if (!std::isnan(max[o]) &&
                (std::isnan(values[e]) || values[e] > max[o]))
              max[o] = values[e];
          }
      KernelParams params;
      params.axes = axes;
      HostTensor gotSum(outType), gotMax(outType), gotMean(outType);
      ASSERT_TRUE(run(Kernel::ReduceSum, params, {&in}, gotSum).isOk());
      ASSERT_TRUE(run(Kernel::ReduceMax, params, {&in}, gotMax).isOk());
      ASSERT_TRUE(run(Kernel::ReduceMean, params, {&in}, gotMean).isOk());
      std::vector<float> sums = valuesOf<float>(gotSum),
                         maxes = valuesOf<float>(gotMax),
                         means = valuesOf<float>(gotMean);
      std::vector<float> sum(total.begin(), total.end());
      // The mean: the double sum divided by the count, rounded once (over
      // axis 1, 4 elements: the kernel's multiply by 0.25, the same bits).
      double count = static_cast<double>(in.type.numElements()) /
                     static_cast<double>(outType.numElements());
      for (size_t o = 0; o < sum.size(); ++o) {
        float mean = static_cast<float>(total[o] / count);
        EXPECT_EQ(std::memcmp(&means[o], &mean, 4), 0)
            << "reduce_mean over " << axes.size() << " axes at " << o << ": "
            << means[o] << " != " << mean;
        // Bit for bit (NaN included).
        EXPECT_EQ(std::memcmp(&sums[o], &sum[o], 4), 0)
            << "reduce_sum over " << axes.size() << " axes at " << o << ": "
            << sums[o] << " != " << sum[o];
        EXPECT_EQ(std::isnan(maxes[o]), std::isnan(max[o])) << o;
        if (!std::isnan(max[o])) {
          EXPECT_EQ(maxes[o], max[o]) << o;
        }
      }
    }
  }
}

TEST(Kernels, EveryElementwiseKernelRunsForEveryCpuType) {
  // The op table's kernels and element types, run on ones: every CPU
  // element type the table claims has a host implementation.
  for (size_t k = 0; k < kNumKernels; ++k) {
    auto kernel = static_cast<Kernel>(k);
    if (!isElementwiseKernel(kernel))
      continue;
    for (int t = 0; t < kNumElementTypes; ++t) {
      auto type = static_cast<ElementType>(t);
      bool claimed = kernelCpuTypes(kernel) & (1u << t);
      TensorType tensorType{type, {2, 3}};
      HostTensor one(tensorType);
      HostTensor out(tensorType);
      for (size_t i = 0; i < one.data.size(); i += elementBytes(type)) {
        if (type == ElementType::F32) {
          float v = 1;
          std::memcpy(&one.data[i], &v, 4);
        } else if (type == ElementType::F64) {
          double v = 1;
          std::memcpy(&one.data[i], &v, 8);
        } else if (type == ElementType::F16) {
          uint16_t v = 0x3C00;
          std::memcpy(&one.data[i], &v, 2);
        } else if (type == ElementType::BF16) {
          uint16_t v = 0x3F80;
          std::memcpy(&one.data[i], &v, 2);
        } else {
          one.data[i] = 1; // Little-endian ints and bools.
        }
      }
      std::vector<HostTensor *> inputs(
          kernelArity(kernel) >= 0 ? kernelArity(kernel) : 3, &one);
      Status status = run(kernel, {}, inputs, out);
      SCOPED_TRACE(std::string(kernelMnemonic(kernel)) + " " +
                   std::string(elementTypeName(type)));
      EXPECT_EQ(status.isOk(), claimed) << status.message();
    }
  }
}

TEST(Device, MemoryLimitNamesDeviceRequestAndLimit) {
  Device device(DeviceName::local(DeviceType::GPU, 0), "test", 1 << 20);
  StatusOr<void *> first = device.allocate(600 << 10);
  ASSERT_TRUE(first);
  StatusOr<void *> second = device.allocate(600 << 10);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.status().message(),
            "out of memory on /job:localhost/replica:0/task:0/device:GPU:0: "
            "requested 614400 bytes with 614400 bytes in use, limit 1 MiB");
  device.deallocate(*first, 600 << 10);
  EXPECT_EQ(device.bytesInUse(), 0);
  EXPECT_EQ(device.peakBytesInUse(), 600 << 10);
}

/// Plans by hand on CPU:0 and GPU:0, every tensor a 4xf32.
struct PlanBuilder {
  Plan plan;
  TensorType t{ElementType::F32, {4}};
  PlanBuilder() {
    plan.devices = {{"/job:localhost/replica:0/task:0/device:CPU:0", 1024, 0},
                    {"/job:localhost/replica:0/task:0/device:GPU:0", 1024, 64}};
  }
  int buffer(BufferDesc::Kind kind, int device, int64_t offset,
             TensorType type) {
    BufferDesc desc;
    desc.kind = kind;
    desc.device = device;
    desc.offset = offset;
    desc.type = std::move(type);
    plan.buffers.push_back(desc);
    return static_cast<int>(plan.buffers.size() - 1);
  }
  int input() {
    plan.inputs.push_back(t);
    int b = buffer(BufferDesc::Kind::Input, -1, 0, t);
    plan.buffers[b].index = static_cast<int>(plan.inputs.size() - 1);
    return b;
  }
  int arena(int device, int64_t offset, TensorType type = {}) {
    return buffer(BufferDesc::Kind::Arena, device, offset,
                  type.shape.empty() ? t : type);
  }
  int constant(int device, float value) {
    PersistentDesc desc;
    desc.device = device;
    desc.initialValue = tensorOf<float>(ElementType::F32, {4},
                                        {value, value, value, value});
    plan.persistents.push_back(desc);
    int b = buffer(BufferDesc::Kind::Persistent, device, 0, t);
    plan.buffers[b].index = static_cast<int>(plan.persistents.size() - 1);
    return b;
  }
  void step(Step::Kind kind, int device, int stream, Kernel kernel,
            std::vector<int> in, std::vector<int> out, int event = -1,
            std::string label = "step") {
    Step s;
    s.kind = kind;
    s.device = device;
    s.stream = stream;
    s.kernel = kernel;
    s.inputs = std::move(in);
    s.outputs = std::move(out);
    s.event = event;
    s.label = std::move(label);
    plan.steps.push_back(s);
  }
  void launch(Kernel kernel, std::vector<int> in, int out, std::string label) {
    step(Step::Kind::Launch, 1, 0, kernel, std::move(in), {out}, -1,
         std::move(label));
  }
};

/// A plan by hand: GPU:0 computes x + 1 while the CPU computes x * 2; the
/// GPU's result is copied to the CPU, which adds both.
Plan twoStreamPlan(bool divideByZero) {
  Plan plan;
  plan.devices = {{"/job:localhost/replica:0/task:0/device:CPU:0", 256, 64},
                  {"/job:localhost/replica:0/task:0/device:GPU:0", 128, 64}};
  TensorType t{divideByZero ? ElementType::I32 : ElementType::F32, {4}};
  auto buffer = [&](BufferDesc::Kind kind, int device, int64_t offset,
                    int index) {
    BufferDesc desc;
    desc.kind = kind;
    desc.device = device;
    desc.offset = offset;
    desc.index = index;
    desc.type = t;
    plan.buffers.push_back(desc);
    return static_cast<int>(plan.buffers.size() - 1);
  };
  int input = buffer(BufferDesc::Kind::Input, -1, 0, 0);
  int one = buffer(BufferDesc::Kind::Persistent, 1, 0, 0);
  int two = buffer(BufferDesc::Kind::Persistent, 0, 0, 1);
  int onGpu = buffer(BufferDesc::Kind::Arena, 1, 0, 0);
  int sum = buffer(BufferDesc::Kind::Arena, 1, 64, 0);
  int product = buffer(BufferDesc::Kind::Arena, 0, 0, 0);
  int back = buffer(BufferDesc::Kind::Arena, 0, 64, 0);
  int total = buffer(BufferDesc::Kind::Arena, 0, 128, 0);
  plan.inputs = {t};
  auto constant = [&](int device, float value) {
    PersistentDesc desc;
    desc.device = device;
    desc.initialValue = HostTensor(t);
    for (int i = 0; i < 4; ++i) {
      if (divideByZero) {
        int32_t v = static_cast<int32_t>(value);
        std::memcpy(desc.initialValue.data.data() + 4 * i, &v, 4);
      } else {
        std::memcpy(desc.initialValue.data.data() + 4 * i, &value, 4);
      }
    }
    plan.persistents.push_back(desc);
  };
  constant(1, 1);
  constant(0, divideByZero ? 0 : 2);
  PlanBuilder steps;
  auto step = [&](Step::Kind kind, int device, int stream, Kernel kernel,
                  std::vector<int> in, std::vector<int> out, int event) {
    steps.step(kind, device, stream, kernel, std::move(in), std::move(out),
               event);
  };
  step(Step::Kind::Copy, 1, 1, Kernel::Read, {input}, {onGpu}, -1);
  step(Step::Kind::Record, 1, 1, Kernel::Read, {}, {}, 0);
  step(Step::Kind::Launch, 0, 0, divideByZero ? Kernel::Div : Kernel::Mul,
       {input, two}, {product}, -1);
  step(Step::Kind::Wait, 1, 0, Kernel::Read, {}, {}, 0);
  step(Step::Kind::Launch, 1, 0, Kernel::Add, {onGpu, one}, {sum}, -1);
  step(Step::Kind::Record, 1, 0, Kernel::Read, {}, {}, 1);
  step(Step::Kind::Wait, 0, 1, Kernel::Read, {}, {}, 1);
  step(Step::Kind::Copy, 0, 1, Kernel::Read, {sum}, {back}, -1);
  step(Step::Kind::Record, 0, 1, Kernel::Read, {}, {}, 2);
  step(Step::Kind::Wait, 0, 0, Kernel::Read, {}, {}, 2);
  step(Step::Kind::Launch, 0, 0, Kernel::Add, {product, back}, {total}, -1);
  plan.steps = std::move(steps.plan.steps);
  plan.numEvents = 3;
  plan.results = {total};
  return plan;
}

TEST(Executor, RunsStreamsConcurrentlyInOrder) {
  DeviceManager devices({/*emulatedGpus=*/1, 0});
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(twoStreamPlan(false), devices);
  ASSERT_TRUE(executor) << executor.status().message();
  HostTensor x = tensorOf<float>(ElementType::F32, {4}, {1, 2, 3, 4});
  for (int run = 0; run < 50; ++run) {
    StatusOr<std::vector<HostTensor>> results = (*executor)->run({x});
    ASSERT_TRUE(results) << results.status().message();
    // x * 2 + (x + 1)
    EXPECT_EQ(valuesOf<float>((*results)[0]),
              (std::vector<float>{4, 7, 10, 13}));
  }
}

TEST(Executor, AFailingStepStopsEveryStream) {
  DeviceManager devices({1, 0});
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(twoStreamPlan(true), devices);
  ASSERT_TRUE(executor) << executor.status().message();
  HostTensor x = tensorOf<int32_t>(ElementType::I32, {4}, {1, 2, 3, 4});
  StatusOr<std::vector<HostTensor>> results = (*executor)->run({x});
  ASSERT_FALSE(results);
  EXPECT_EQ(results.status().message(),
            "step on /job:localhost/replica:0/task:0/device:CPU:0: Integer "
            "division by zero");
}

/// Runs every step on every run: the dispatch that tests below check
/// call by call (graph mode is checked on its own).
const ExecutorOptions kStepByStep{/*graphs=*/false};

/// A device that behaves like an asynchronous GPU (its own events, waits
/// and synchronisation) while computing on the host, and logs the calls the
/// executor makes: the dispatch a CUDA device sees, checked without a GPU.
class RecordingDevice : public Device {
public:
  struct Event : DeviceEvent {
    int id;
    explicit Event(int id) : id(id) {}
  };
  /// `ownMemory`: claims memory the host cannot address, so that results
  /// are read through host staging.
  explicit RecordingDevice(std::vector<std::string> &log,
                           bool ownMemory = false)
      : Device(DeviceName::local(DeviceType::GPU, 0), "recording", 0),
        log_(log), ownMemory_(ownMemory) {}
  bool isHostMemory() const override { return !ownMemory_; }
  StatusOr<void *> allocateHostStaging(int64_t bytes) override {
    note("host staging " + std::to_string(bytes));
    return Device::allocateHostStaging(bytes);
  }
  Status download(void *host, const void *source,
                  int64_t bytes) const override {
    note("download " + std::to_string(bytes));
    return Device::download(host, source, bytes);
  }
  Status prepareFused(const FusedCall &fused) override {
    std::string stored;
    for (const FusedCall::Op &op : fused.ops)
      stored += op.output >= 0 ? "1" : "0";
    note("prepare fused " + fused.label + " inputs " +
         std::to_string(fused.inputs.size()) + " stored " + stored);
    return Status::ok();
  }
  Status launchFused(const FusedCall &fused, int stream) override {
    note("launch fused " + fused.label + " stream " + std::to_string(stream));
    return Device::launchFused(fused, stream);
  }
  void note(const std::string &entry) const {
    std::lock_guard<std::mutex> lock(mutex_);
    log_.push_back(entry);
  }
  Status prepare(const KernelCall &call) override {
    note("prepare gplace." + std::string(kernelMnemonic(call.kernel)));
    return Status::ok();
  }
  Status launch(const KernelCall &call, int stream) override {
    note("launch gplace." + std::string(kernelMnemonic(call.kernel)) +
         " stream " + std::to_string(stream));
    return Device::launch(call, stream);
  }
  std::unique_ptr<DeviceEvent> createEvent() override {
    return std::make_unique<Event>(events_++);
  }
  Status recordEvent(DeviceEvent *event, int stream) override {
    note("record " + std::to_string(static_cast<Event *>(event)->id) +
                   " stream " + std::to_string(stream));
    return Status::ok();
  }
  Status waitEvent(const Device &recorder, DeviceEvent *event,
                   int stream) override {
    note(std::string("wait ") +
                   (event ? std::to_string(static_cast<Event *>(event)->id)
                          : std::string("host")) +
                   " stream " + std::to_string(stream));
    return Status::ok();
  }
  Status synchronizeEvent(DeviceEvent *event) const override {
    note("host waits for " +
                   std::to_string(static_cast<Event *>(event)->id));
    return Status::ok();
  }
  Status synchronize() override {
    note("synchronize");
    return Status::ok();
  }

private:
  std::vector<std::string> &log_;
  bool ownMemory_;
  mutable std::mutex mutex_;
  int events_ = 0;
};

TEST(Executor, DrivesAnAsynchronousDeviceThroughItsEvents) {
  std::vector<std::string> log;
  DeviceManager devices({0, 0});
  devices.addDevice(std::make_unique<RecordingDevice>(log));
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(twoStreamPlan(false), devices,
                       kStepByStep);
  ASSERT_TRUE(executor) << executor.status().message();
  // Kernels are prepared once, at load.
  EXPECT_EQ(log, std::vector<std::string>{"prepare gplace.add"});
  log.clear();
  HostTensor x = tensorOf<float>(ElementType::F32, {4}, {1, 2, 3, 4});
  StatusOr<std::vector<HostTensor>> results = (*executor)->run({x});
  ASSERT_TRUE(results) << results.status().message();
  EXPECT_EQ(valuesOf<float>((*results)[0]), (std::vector<float>{4, 7, 10, 13}));
  // The GPU records events 0 (after its copy) and 1 (after its add); its
  // compute stream waits for 0 on the device; the CPU's copy stream waits
  // for 1 by blocking the host; the run ends with a synchronisation.
  auto has = [&](const std::string &entry) {
    return std::find(log.begin(), log.end(), entry) != log.end();
  };
  std::string all;
  for (const std::string &entry : log)
    all += entry + "; ";
  SCOPED_TRACE(all);
  EXPECT_TRUE(has("record 0 stream 1"));
  EXPECT_TRUE(has("wait 0 stream 0"));
  EXPECT_TRUE(has("launch gplace.add stream 0"));
  EXPECT_TRUE(has("record 1 stream 0"));
  EXPECT_TRUE(has("host waits for 1"));
  EXPECT_EQ(log.back(), "synchronize");
  auto position = [&](const std::string &entry) {
    return std::find(log.begin(), log.end(), entry) - log.begin();
  };
  EXPECT_LT(position("wait 0 stream 0"), position("launch gplace.add stream 0"));
  EXPECT_LT(position("launch gplace.add stream 0"), position("record 1 stream 0"));
}

TEST(Executor, CapturesAGpusStepsOnceAndReplaysThemEachRun) {
  std::vector<std::string> log;
  DeviceManager devices({0, 0});
  devices.addDevice(std::make_unique<RecordingDevice>(log));
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(twoStreamPlan(false), devices);
  ASSERT_TRUE(executor) << executor.status().message();
  EXPECT_TRUE((*executor)->usesGraph());
  EXPECT_EQ((*executor)->graphNote(),
            "CUDA graphs: on: /job:localhost/replica:0/task:0/device:GPU:0 "
            "replays its 5 steps as one graph per run");
  // The load issues the GPU's steps once, into the capture.
  auto count = [&](const std::string &entry) {
    return std::count(log.begin(), log.end(), entry);
  };
  EXPECT_EQ(count("launch gplace.add stream 0"), 1);
  for (float scale : {1.0f, 2.0f}) {
    log.clear();
    HostTensor x = tensorOf<float>(ElementType::F32, {4},
                                   {scale, 2 * scale, 3 * scale, 4 * scale});
    StatusOr<std::vector<HostTensor>> results = (*executor)->run({x});
    ASSERT_TRUE(results) << results.status().message();
    EXPECT_EQ(valuesOf<float>((*results)[0]),
              scale == 1 ? (std::vector<float>{4, 7, 10, 13})
                         : (std::vector<float>{7, 13, 19, 25}));
    // A run replays the graph: no step is issued again; the event the
    // CPU's copy waits for is recorded after the graph, on stream 0.
    EXPECT_EQ(count("launch gplace.add stream 0"), 0);
    EXPECT_EQ(count("record 1 stream 0"), 1);
    EXPECT_EQ(count("host waits for 1"), 1);
  }

  StatusOr<std::unique_ptr<Executor>> off =
      Executor::create(twoStreamPlan(false), devices, kStepByStep);
  ASSERT_TRUE(off);
  EXPECT_FALSE((*off)->usesGraph());
  EXPECT_EQ((*off)->graphNote(), "CUDA graphs: off (--cuda-graphs=off)");
}

TEST(Executor, TracesEveryStepOfEveryRun) {
  DeviceManager devices({/*emulatedGpus=*/1, 0});
  ExecutorOptions options;
  options.trace = true;
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(twoStreamPlan(false), devices, options);
  ASSERT_TRUE(executor) << executor.status().message();
  // Tracing times each step: the GPU issues them one by one.
  EXPECT_FALSE((*executor)->usesGraph());
  EXPECT_EQ((*executor)->graphNote(),
            "CUDA graphs: off (--trace times each step)");
  HostTensor x = tensorOf<float>(ElementType::F32, {4}, {1, 2, 3, 4});
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE((*executor)->run({x}));
  std::vector<TimedStep> timed = (*executor)->timedSteps();
  // Per run: the run, 3 launches, 2 copies and 3 waits (records are not
  // timed).
  ASSERT_EQ(timed.size(), 2u * 9);
  std::map<std::string, int> categories;
  for (const TimedStep &step : timed) {
    ++categories[step.category];
    EXPECT_LE(step.startNanos, step.endNanos);
    EXPECT_LT(step.run, 2u);
    EXPECT_FALSE(step.enqueued); // Host devices run synchronously.
    if (std::string(step.category) == "copy") {
      EXPECT_EQ(step.bytes, 16);
    }
  }
  EXPECT_EQ(categories["run"], 2);
  EXPECT_EQ(categories["launch"], 6);
  EXPECT_EQ(categories["copy"], 4);
  EXPECT_EQ(categories["wait"], 6);
  // Each stream's steps of a run lie within the run.
  for (const TimedStep &step : timed)
    for (const TimedStep &run : timed)
      if (std::string(run.category) == "run" && run.run == step.run) {
        EXPECT_GE(step.startNanos, run.startNanos);
        EXPECT_LE(step.endNanos, run.endNanos);
      }

  // Off: nothing is recorded.
  StatusOr<std::unique_ptr<Executor>> untraced =
      Executor::create(twoStreamPlan(false), devices);
  ASSERT_TRUE(untraced);
  ASSERT_TRUE((*untraced)->run({x}));
  EXPECT_TRUE((*untraced)->timedSteps().empty());
}

TEST(ChromeTrace, WritesTheTraceEventFormat) {
  gplace::ChromeTrace trace;
  trace.nameProcess(0, "measured");
  trace.nameThread(0, 1, "/job:localhost/replica:0/task:0/device:GPU:0", 1);
  trace.addSlice(0, 1, "b \"q\"\n", "copy", 2.5, 1.25,
                 {gplace::TraceArg::num("run", 3),
                  gplace::TraceArg::string("timing", "host")});
  trace.addSlice(0, 1, "a", "launch", 0.25, -1);
  EXPECT_EQ(trace.json(),
            "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n"
            "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, "
            "\"tid\": 0, \"ts\": 0, \"args\": {\"name\": \"measured\"}},\n"
            "  {\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 0, "
            "\"tid\": 0, \"ts\": 0, \"args\": {\"sort_index\": 0}},\n"
            "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, "
            "\"tid\": 1, \"ts\": 0, \"args\": {\"name\": "
            "\"/job:localhost/replica:0/task:0/device:GPU:0\"}},\n"
            "  {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 0, "
            "\"tid\": 1, \"ts\": 0, \"args\": {\"sort_index\": 1}},\n"
            "  {\"name\": \"a\", \"cat\": \"launch\", \"ph\": \"X\", "
            "\"ts\": 0.250, \"dur\": 0.000, \"pid\": 0, \"tid\": 1, "
            "\"args\": {}},\n"
            "  {\"name\": \"b \\\"q\\\"\\n\", \"cat\": \"copy\", \"ph\": "
            "\"X\", \"ts\": 2.500, \"dur\": 1.250, \"pid\": 0, \"tid\": 1, "
            "\"args\": {\"run\": 3, \"timing\": \"host\"}}\n"
            "]}\n");
}

TEST(Executor, ChecksInputsAndDevices) {
  DeviceManager devices({1, 0});
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(twoStreamPlan(false), devices);
  ASSERT_TRUE(executor);
  StatusOr<std::vector<HostTensor>> wrong = (*executor)->run(
      {tensorOf<float>(ElementType::F32, {2, 2}, {1, 2, 3, 4})});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.status().message(), "input #0: expected 4xf32, got 2x2xf32");
  EXPECT_FALSE((*executor)->run({}));

  DeviceManager cpuOnly({0, 0});
  StatusOr<std::unique_ptr<Executor>> missing =
      Executor::create(twoStreamPlan(false), cpuOnly);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().message(),
            "the plan needs device /job:localhost/replica:0/task:0/device:GPU:0"
            ", which this process does not have");
}

/// On GPU:0: a = x + 1, b = a * a, c = -b, d = c - a; `a` also goes to the
/// CPU on another stream. Results: d, and a on the CPU. With `fused`, the
/// four launches are one fusion group, and b and c stay in registers.
Plan chainPlan(bool fused = false) {
  PlanBuilder p;
  int x = p.input(), one = p.constant(1, 1);
  int g = p.arena(1, 0), a = p.arena(1, 64), b = p.arena(1, 128),
      c = p.arena(1, 192), d = p.arena(1, 256), back = p.arena(0, 0);
  if (fused)
    for (int inRegisters : {b, c})
      p.plan.buffers[inRegisters].kind = BufferDesc::Kind::Register;
  p.step(Step::Kind::Copy, 1, 0, Kernel::Read, {x}, {g});
  p.launch(Kernel::Add, {g, one}, a, "Add");
  p.launch(Kernel::Mul, {a, a}, b, "Mul");
  p.launch(Kernel::Neg, {b}, c, "Neg");
  p.launch(Kernel::Sub, {c, a}, d, "Sub");
  if (fused)
    for (Step &step : p.plan.steps)
      if (step.kind == Step::Kind::Launch)
        step.fusion = 0;
  p.step(Step::Kind::Record, 1, 0, Kernel::Read, {}, {}, 0);
  p.step(Step::Kind::Wait, 0, 1, Kernel::Read, {}, {}, 0);
  p.step(Step::Kind::Copy, 0, 1, Kernel::Read, {a}, {back});
  p.plan.numEvents = 1;
  p.plan.results = {d, back};
  return p.plan;
}

TEST(Executor, RunsAFusionGroupAsOneKernel) {
  HostTensor x = tensorOf<float>(ElementType::F32, {4}, {1, 2, 3, 4});
  for (bool fused : {true, false}) {
    std::vector<std::string> log;
    DeviceManager devices({0, 0});
    devices.addDevice(std::make_unique<RecordingDevice>(log));
    StatusOr<std::unique_ptr<Executor>> executor =
        Executor::create(chainPlan(fused), devices,
                       kStepByStep);
    ASSERT_TRUE(executor) << executor.status().message();
    if (fused) {
      // One kernel reading g and the constant; a is stored (the CPU reads
      // it), b and c are registers, d is a result.
      EXPECT_EQ(log, std::vector<std::string>{
                         "prepare fused Add+Mul+Neg+Sub inputs 2 stored 1001"});
      EXPECT_EQ((*executor)->numFusedKernels(), 1u);
      EXPECT_EQ((*executor)->numFusedLaunches(), 4u);
    } else {
      EXPECT_EQ(log.size(), 4u);
      EXPECT_EQ((*executor)->numFusedKernels(), 0u);
    }
    log.clear();
    StatusOr<std::vector<HostTensor>> results = (*executor)->run({x});
    ASSERT_TRUE(results) << results.status().message();
    // a = {2, 3, 4, 5}; d = -a * a - a.
    EXPECT_EQ(valuesOf<float>((*results)[0]),
              (std::vector<float>{-6, -12, -20, -30}));
    EXPECT_EQ(valuesOf<float>((*results)[1]), (std::vector<float>{2, 3, 4, 5}));
    EXPECT_EQ(std::count(log.begin(), log.end(),
                         "launch fused Add+Mul+Neg+Sub stream 0"),
              fused ? 1 : 0);
  }
}

TEST(Kernels, FusedHostKernelsEqualSingleOnesAcrossBlocks) {
  // relu((x + row) * y - bias) over 3 x 5000 elements (several blocks),
  // with a broadcast row and a bias, f32 and f16: fused, and op by op.
  for (ElementType type : {ElementType::F32, ElementType::F16}) {
    TensorType full{type, {3, 5000}}, row{type, {1, 5000}}, bias{type, {5000}};
    auto filled = [&](const TensorType &t, float scale) {
      HostTensor tensor(t);
      for (int64_t i = 0; i < t.numElements(); ++i) {
        float v = std::sin(i * scale) * 4;
        if (type == ElementType::F32) {
          std::memcpy(&tensor.data[4 * i], &v, 4);
        } else {
          uint16_t h = 0; // Round-trip through the f16 cast kernel below.
          HostTensor one(TensorType{ElementType::F32, {1}});
          std::memcpy(one.data.data(), &v, 4);
          HostTensor half(TensorType{ElementType::F16, {1}});
          EXPECT_TRUE(run(Kernel::Cast, {}, {&one}, half).isOk());
          std::memcpy(&h, half.data.data(), 2);
          std::memcpy(&tensor.data[2 * i], &h, 2);
        }
      }
      return tensor;
    };
    HostTensor x = filled(full, 0.01f), y = filled(full, 0.003f);
    HostTensor r = filled(row, 0.02f), b = filled(bias, 0.05f);
    // Op by op.
    HostTensor s1(full), s2(full), s3(full), want(full);
    ASSERT_TRUE(run(Kernel::Add, {}, {&x, &r}, s1).isOk());
    ASSERT_TRUE(run(Kernel::Mul, {}, {&s1, &y}, s2).isOk());
    ASSERT_TRUE(run(Kernel::Sub, {}, {&s2, &b}, s3).isOk());
    ASSERT_TRUE(run(Kernel::Relu, {}, {&s3}, want).isOk());
    // Fused: only the last value is stored.
    HostTensor got(full);
    FusedCall fused;
    fused.type = full;
    for (HostTensor *input : {&x, &r, &y, &b})
      fused.inputs.push_back({input->data.data(), &input->type});
    fused.ops = {{Kernel::Add, {0, 1}, -1},
                 {Kernel::Mul, {-1, 2}, -1},
                 {Kernel::Sub, {-2, 3}, -1},
                 {Kernel::Relu, {-3}, 0}};
    fused.outputs = {{got.data.data(), &got.type}};
    ASSERT_TRUE(runHostFused(fused).isOk());
    EXPECT_EQ(got.data, want.data) << elementTypeName(type);
  }
}

TEST(Executor, RunsOnStagedInputsAndStagesResults) {
  std::vector<std::string> log;
  DeviceManager devices({0, 0});
  devices.addDevice(
      std::make_unique<RecordingDevice>(log, /*ownMemory=*/true));
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(chainPlan(), devices,
                       kStepByStep);
  ASSERT_TRUE(executor) << executor.status().message();
  // The input is staged by the GPU (pinned on CUDA), and so is d, its
  // result; the CPU's result is read in place.
  EXPECT_EQ(std::count(log.begin(), log.end(), "host staging 16"), 2);
  TensorRef input = (*executor)->stagedInput(0);
  ASSERT_EQ(*input.type, (TensorType{ElementType::F32, {4}}));
  float x[4] = {1, 2, 3, 4};
  std::memcpy(input.data, x, sizeof(x));
  for (int run = 0; run < 2; ++run) {
    log.clear();
    StatusOr<std::vector<TensorRef>> results = (*executor)->runStaged();
    ASSERT_TRUE(results) << results.status().message();
    ASSERT_EQ(results->size(), 2u);
    float d[4], a[4];
    std::memcpy(d, (*results)[0].data, sizeof(d));
    std::memcpy(a, (*results)[1].data, sizeof(a));
    EXPECT_EQ(std::vector<float>(d, d + 4),
              (std::vector<float>{-6, -12, -20, -30}));
    EXPECT_EQ(std::vector<float>(a, a + 4), (std::vector<float>{2, 3, 4, 5}));
    // The CPU's copy of a, and d into its staging.
    EXPECT_EQ(std::count(log.begin(), log.end(), "download 16"), 2);
  }
}

TEST(Executor, RunBoundReadsInputsInPlaceOnHostMemory) {
  for (bool ownMemory : {false, true}) {
    std::vector<std::string> log;
    DeviceManager devices({0, 0});
    devices.addDevice(std::make_unique<RecordingDevice>(log, ownMemory));
    StatusOr<std::unique_ptr<Executor>> executor =
        Executor::create(chainPlan(), devices, kStepByStep);
    ASSERT_TRUE(executor) << executor.status().message();
    // Host memory everywhere: the copy reads the caller's array; a device
    // with its own memory reads a staged copy.
    EXPECT_EQ((*executor)->canBindInputs(), !ownMemory);
    TensorRef staged = (*executor)->stagedInput(0);
    std::memset(staged.data, 0, 16);
    for (float base : {1.0f, 10.0f}) {
      float x[4] = {base, base + 1, base + 2, base + 3};
      StatusOr<std::vector<TensorRef>> results =
          (*executor)->runBound({x});
      ASSERT_TRUE(results) << results.status().message();
      float a[4];
      std::memcpy(a, (*results)[1].data, sizeof(a));
      EXPECT_EQ(std::vector<float>(a, a + 4),
                (std::vector<float>{base + 1, base + 2, base + 3, base + 4}));
      float s[4];
      std::memcpy(s, staged.data, sizeof(s));
      // In place, the staging memory is never written.
      EXPECT_EQ(s[0], ownMemory ? base : 0.0f);
    }
    // runStaged reads the staging memory again afterwards.
    StatusOr<std::vector<TensorRef>> staged0 = (*executor)->runStaged();
    ASSERT_TRUE(staged0);
    float a[4];
    std::memcpy(a, (*staged0)[1].data, sizeof(a));
    EXPECT_EQ(a[0], ownMemory ? 11.0f : 1.0f);
    EXPECT_FALSE((*executor)->runBound({}));
  }
}

TEST(Executor, LaunchListsReadBoundInputsAndRunEveryLaunch) {
  // A chain on the host CPU, whose launches run from the stream's launch
  // list (records compiled at load, HostLaunch.h): each run must see the
  // inputs bound for it and run every launch, fused or not.
  for (bool fused : {false, true}) {
    PlanBuilder p;
    p.plan.devices.resize(1); // The CPU alone.
    int x = p.input(), one = p.constant(0, 1);
    int a = p.arena(0, 0), b = p.arena(0, 64), c = p.arena(0, 128),
        d = p.arena(0, 192);
    if (fused)
      for (int inRegisters : {b, c})
        p.plan.buffers[inRegisters].kind = BufferDesc::Kind::Register;
    p.step(Step::Kind::Launch, 0, 0, Kernel::Add, {x, one}, {a}, -1, "Add");
    p.step(Step::Kind::Launch, 0, 0, Kernel::Mul, {a, x}, {b}, -1, "Mul");
    p.step(Step::Kind::Launch, 0, 0, Kernel::Neg, {b}, {c}, -1, "Neg");
    p.step(Step::Kind::Launch, 0, 0, Kernel::Sub, {c, a}, {d}, -1, "Sub");
    if (fused)
      for (Step &step : p.plan.steps)
        step.fusion = 0;
    p.plan.results = {d, a};
    DeviceManager devices({0, 0});
    StatusOr<std::unique_ptr<Executor>> executor =
        Executor::create(p.plan, devices, kStepByStep);
    ASSERT_TRUE(executor) << executor.status().message();
    ASSERT_TRUE((*executor)->canBindInputs());
    for (float base : {1.0f, 10.0f, -3.0f}) {
      float in[4] = {base, base + 1, base + 2, base + 3};
      StatusOr<std::vector<TensorRef>> results = (*executor)->runBound({in});
      ASSERT_TRUE(results) << results.status().message();
      // d = -(x + 1) * x - (x + 1).
      for (int i = 0; i < 4; ++i) {
        float xi = in[i];
        EXPECT_EQ(static_cast<const float *>((*results)[0].data)[i],
                  -(xi + 1) * xi - (xi + 1))
            << "fused " << fused << " x " << xi;
        EXPECT_EQ(static_cast<const float *>((*results)[1].data)[i], xi + 1);
      }
    }
    // Staged again afterwards: the staging memory, zeros.
    std::memset((*executor)->stagedInput(0).data, 0, 16);
    StatusOr<std::vector<TensorRef>> staged = (*executor)->runStaged();
    ASSERT_TRUE(staged);
    EXPECT_EQ(static_cast<const float *>((*staged)[0].data)[0], -1.0f);
  }
}

} // namespace

namespace {

/// A device whose memory the collectives must stage, as a CUDA GPU's: host
/// memory underneath, but not said to be; it counts its synchronisations,
/// downloads and uploads.
class StagedDevice : public Device {
public:
  explicit StagedDevice(int id)
      : Device(DeviceName::local(DeviceType::GPU, id), "staged", 0) {}
  bool isHostMemory() const override { return false; }
  Status synchronize() override {
    ++synchronizes;
    return Status::ok();
  }
  Status upload(void *target, const void *host, int64_t bytes) override {
    ++uploads;
    return Device::upload(target, host, bytes);
  }
  Status download(void *host, const void *source,
                  int64_t bytes) const override {
    ++downloads;
    return Device::download(host, source, bytes);
  }
  std::atomic<int> synchronizes{0}, uploads{0};
  mutable std::atomic<int> downloads{0};
};

/// A transport of two tasks as rank 0 sees it: the other task's members
/// add `remote` to every element; it logs each all-reduce's first element
/// before the sum, so the order of the all-reduces shows.
class FakeTransport : public Transport {
public:
  explicit FakeTransport(float remote) : remote_(remote) {}
  int rank() const override { return 0; }
  int size() const override { return 2; }
  Status send(int, int64_t, const void *, int64_t) override {
    return Status::ok();
  }
  Status recv(int, int64_t, void *, int64_t) override { return Status::ok(); }
  Status flush() override { return Status::ok(); }
  StatusOr<std::vector<std::string>> allGather(const std::string &) override {
    return std::vector<std::string>{};
  }
  [[noreturn]] void abort(int code) override { std::exit(code); }
  Status prepareAllReduce(const std::vector<int> &ranks) override {
    prepared.push_back(ranks);
    return Status::ok();
  }
  Status allReduce(const std::vector<int> &ranks, void *data, int64_t count,
                   bool f64) override {
    EXPECT_FALSE(f64);
    auto *values = static_cast<float *>(data);
    order.push_back(values[0]);
    for (int64_t i = 0; i < count; ++i)
      values[i] += remote_;
    return Status::ok();
  }
  std::vector<std::vector<int>> prepared;
  std::vector<float> order;

private:
  float remote_;
};

/// One all-reduce's members over `devices`: inputs, outputs and the
/// parameters each launch would carry.
struct Members {
  TensorType type{ElementType::F32, {3}};
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<KernelParams> params;

  Members(int64_t instance, int64_t groupSize, std::vector<int64_t> ranks,
          bool mean, std::vector<std::vector<float>> values)
      : inputs(std::move(values)) {
    for (size_t m = 0; m < inputs.size(); ++m) {
      outputs.emplace_back(3, -1.0f);
      KernelParams p;
      p.groupKey = 0;
      p.groupSize = groupSize;
      p.instanceKey = instance;
      p.member = static_cast<int64_t>(m);
      p.ranks = ranks;
      p.mean = mean;
      params.push_back(p);
    }
  }

  Status add(CollectiveExecutor &collectives, size_t firstStep,
             const std::vector<Device *> &devices) {
    for (size_t m = 0; m < inputs.size(); ++m) {
      CollectiveMember member;
      member.device = devices[m];
      member.params = &params[m];
      member.input = {inputs[m].data(), &type};
      member.output = {outputs[m].data(), &type};
      member.label = "r" + std::to_string(m);
      GPLACE_RETURN_IF_ERROR(collectives.add(firstStep + m, member));
    }
    return Status::ok();
  }
};

/// Runs `steps` at once, each on its own thread (as the executor runs
/// streams), and returns their statuses.
std::vector<Status> runTogether(CollectiveExecutor &collectives,
                                std::vector<size_t> steps) {
  std::vector<Status> statuses(steps.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < steps.size(); ++i)
    threads.emplace_back(
        [&, i] { statuses[i] = collectives.run(steps[i]); });
  for (std::thread &thread : threads)
    thread.join();
  return statuses;
}

} // namespace

TEST(Collectives, StagesDevicesWithoutHostMemory) {
  Device host(DeviceName::local(DeviceType::GPU, 0), "host memory", 0);
  StagedDevice one(1), two(2);
  CollectiveExecutor collectives;
  Members sum(0, 3, {}, /*mean=*/false, {{1, 2, 3}, {10, 20, 30}, {100, 200, 300}});
  ASSERT_TRUE(sum.add(collectives, 0, {&host, &one, &two}));
  ASSERT_TRUE(collectives.prepare(nullptr));
  for (int run = 1; run <= 2; ++run) {
    collectives.beginRun();
    for (const Status &status : runTogether(collectives, {2, 0, 1}))
      EXPECT_TRUE(status) << status.message();
    for (const std::vector<float> &output : sum.outputs)
      EXPECT_EQ(output, (std::vector<float>{111, 222, 333}));
    // Each staged member: its input down and its result up, once a run.
    EXPECT_EQ(one.downloads, run);
    EXPECT_EQ(one.uploads, run);
    EXPECT_EQ(two.synchronizes, run);
  }
}

TEST(Collectives, AddsTheOtherTasksInInstanceOrder) {
  Device a(DeviceName::local(DeviceType::GPU, 0), "a", 0);
  Device b(DeviceName::local(DeviceType::GPU, 1), "b", 0);
  FakeTransport transport(/*remote=*/1000);
  CollectiveExecutor collectives;
  // Members 0 and 1 here (rank 0), member 2 on rank 1; two all-reduces
  // (instances 5 and 3) over the same tasks, so the transport must see 3
  // first whatever the order the streams reach them.
  Members later(5, 3, {0, 0, 1}, /*mean=*/true, {{1, 2, 3}, {4, 5, 6}});
  Members first(3, 3, {0, 0, 1}, /*mean=*/false, {{7, 8, 9}, {1, 1, 1}});
  ASSERT_TRUE(later.add(collectives, 0, {&a, &b}));
  ASSERT_TRUE(first.add(collectives, 2, {&a, &b}));
  ASSERT_TRUE(collectives.prepare(&transport));
  EXPECT_EQ(transport.prepared, (std::vector<std::vector<int>>{{0, 1}}));
  collectives.beginRun();
  for (const Status &status : runTogether(collectives, {0, 1, 2, 3}))
    EXPECT_TRUE(status) << status.message();
  EXPECT_EQ(transport.order, (std::vector<float>{8, 5}));
  for (const std::vector<float> &output : first.outputs)
    EXPECT_EQ(output, (std::vector<float>{1008, 1009, 1010}));
  for (const std::vector<float> &output : later.outputs)
    EXPECT_EQ(output, (std::vector<float>{1005.0f / 3, 1007.0f / 3, 1009.0f / 3}));
}

namespace {

/// A transport whose all-reduces complete in two halves, as MPI's do: the
/// first all-reduce started does not finish until a second one has been
/// started (or 10 s pass), so a rank set's turn must pass once an
/// all-reduce is started, not once it is done.
class TwoPhaseTransport : public FakeTransport {
public:
  TwoPhaseTransport() : FakeTransport(/*remote=*/1000) {}
  StatusOr<int64_t> startAllReduce(const std::vector<int> &ranks, void *data,
                                   int64_t count, bool f64) override {
    std::lock_guard<std::mutex> lock(mutex_);
    GPLACE_RETURN_IF_ERROR(allReduce(ranks, data, count, f64));
    ++started_;
    changed_.notify_all();
    return static_cast<int64_t>(started_);
  }
  Status finishAllReduce(const std::vector<int> &, int64_t handle) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (handle == 1)
      secondStartedFirst = changed_.wait_for(
          lock, std::chrono::seconds(10), [&] { return started_ >= 2; });
    return Status::ok();
  }
  bool secondStartedFirst = false;

private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int started_ = 0;
};

} // namespace

TEST(Collectives, StartsTheNextAllReduceWhileOneIsInFlight) {
  Device a(DeviceName::local(DeviceType::GPU, 0), "a", 0);
  TwoPhaseTransport transport;
  CollectiveExecutor collectives;
  Members first(3, 2, {0, 1}, /*mean=*/false, {{1, 2, 3}});
  Members second(4, 2, {0, 1}, /*mean=*/false, {{4, 5, 6}});
  ASSERT_TRUE(first.add(collectives, 0, {&a}));
  ASSERT_TRUE(second.add(collectives, 1, {&a}));
  ASSERT_TRUE(collectives.prepare(&transport));
  collectives.beginRun();
  for (const Status &status : runTogether(collectives, {0, 1}))
    EXPECT_TRUE(status) << status.message();
  EXPECT_TRUE(transport.secondStartedFirst);
  EXPECT_EQ(transport.order, (std::vector<float>{1, 4}));
  EXPECT_EQ(first.outputs[0], (std::vector<float>{1001, 1002, 1003}));
  EXPECT_EQ(second.outputs[0], (std::vector<float>{1004, 1005, 1006}));
}

TEST(Collectives, AbortWakesTheMembersThatWait) {
  Device a(DeviceName::local(DeviceType::GPU, 0), "a", 0);
  Device b(DeviceName::local(DeviceType::GPU, 1), "b", 0);
  CollectiveExecutor collectives;
  Members sum(0, 2, {}, false, {{1, 2, 3}, {4, 5, 6}});
  ASSERT_TRUE(sum.add(collectives, 0, {&a, &b}));
  ASSERT_TRUE(collectives.prepare(nullptr));
  collectives.beginRun();
  // Member 1's stream failed before it arrived: member 0 must not wait.
  std::thread waiter([&] {
    Status status = collectives.run(0);
    EXPECT_FALSE(status);
    EXPECT_EQ(status.message(), "the run failed on another stream");
  });
  collectives.abort();
  waiter.join();
  // The next run starts afresh.
  collectives.beginRun();
  for (const Status &status : runTogether(collectives, {0, 1}))
    EXPECT_TRUE(status) << status.message();
  EXPECT_EQ(sum.outputs[1], (std::vector<float>{5, 7, 9}));
}

namespace {

/// A device whose memory is not host memory but is shared with every other
/// SharedDevice (the logical GPUs of one CUDA GPU): the all-reduce runs on
/// the devices, here on the host (`reduceSlice`), with event records and
/// waits counted.
class SharedDevice : public Device {
public:
  explicit SharedDevice(int id)
      : Device(DeviceName::local(DeviceType::GPU, id), "shared", 0) {}
  bool isHostMemory() const override { return false; }
  bool sharesMemoryWith(const Device &other) const override {
    return dynamic_cast<const SharedDevice *>(&other) != nullptr;
  }
  std::unique_ptr<DeviceEvent> createEvent() override {
    return std::make_unique<DeviceEvent>();
  }
  Status recordEvent(DeviceEvent *, int) override {
    ++records;
    return Status::ok();
  }
  Status waitEvent(const Device &, DeviceEvent *, int) override {
    ++waits;
    return Status::ok();
  }
  Status reduceSlice(const std::vector<const void *> &inputs,
                     const std::vector<void *> &outputs, ElementType type,
                     int64_t divisor, int64_t begin, int64_t end,
                     int) override {
    EXPECT_EQ(type, ElementType::F32);
    for (int64_t i = begin; i < end; ++i) {
      float sum = 0;
      for (const void *input : inputs)
        sum += static_cast<const float *>(input)[i];
      if (divisor)
        sum /= static_cast<float>(divisor);
      for (void *output : outputs)
        static_cast<float *>(output)[i] = sum;
    }
    ++slices;
    return Status::ok();
  }
  Status download(void *, const void *, int64_t) const override {
    ADD_FAILURE() << "a shared device's all-reduce downloads nothing";
    return Status::ok();
  }
  std::atomic<int> records{0}, waits{0}, slices{0};
};

/// A library's all-reduce (NCCL's part) over LibraryDevices: each member's
/// call is logged (member, divisor); the sum is not computed.
class FakeLibrary : public DeviceCollective {
public:
  Status allReduce(size_t member, const void *input, void *output,
                   const TensorType &type, int64_t divisor,
                   int stream) override {
    std::lock_guard<std::mutex> lock(mutex);
    calls.emplace_back(member, divisor);
    std::memcpy(output, input, type.bytes());
    return Status::ok();
  }
  std::string name() const override { return "FakeLibrary 1.0"; }
  std::mutex mutex;
  std::vector<std::pair<size_t, int64_t>> calls;
};

/// A device whose group all-reduces in FakeLibrary (`available`), or says
/// why not.
class LibraryDevice : public StagedDevice {
public:
  LibraryDevice(int id, bool available)
      : StagedDevice(id), available_(available) {}
  std::unique_ptr<DeviceCollective>
  createCollective(const std::vector<Device *> &members,
                   std::string &why) override {
    ++created;
    if (!available_) {
      why = "FakeLibrary is not available (no libfake.so)";
      return nullptr;
    }
    auto library = std::make_unique<FakeLibrary>();
    last = library.get();
    return library;
  }
  int created = 0;
  FakeLibrary *last = nullptr;

private:
  bool available_;
};

} // namespace

// Devices that share memory reduce on the devices: each member its slice
// of every input into every output, ordered by two rounds of events, with
// no host copy; the log says so.
TEST(Collectives, ReducesOnDevicesThatShareMemory) {
  SharedDevice a(0), b(1), c(2);
  CollectiveExecutor collectives;
  Members mean(0, 3, {}, /*mean=*/true,
               {{1, 2, 3}, {10, 20, 30}, {100, 200, 303}});
  ASSERT_TRUE(mean.add(collectives, 0, {&a, &b, &c}));
  ASSERT_TRUE(collectives.prepare(nullptr));
  EXPECT_EQ(collectives.note(),
            "All-reduces: 1 on the devices (GPUs sharing one GPU's memory: a "
            "kernel per member, no host copy)");
  for (int run = 1; run <= 2; ++run) {
    collectives.beginRun();
    for (const Status &status : runTogether(collectives, {1, 2, 0}))
      EXPECT_TRUE(status) << status.message();
    for (const std::vector<float> &output : mean.outputs)
      EXPECT_EQ(output, (std::vector<float>{37, 74, 112}));
    for (SharedDevice *device : {&a, &b, &c}) {
      EXPECT_EQ(device->slices, run);
      EXPECT_EQ(device->records, 2 * run); // Its input ready, its slice done.
      EXPECT_EQ(device->waits, 4 * run);   // The two others', twice.
    }
  }
}

// Devices whose library all-reduces (NCCL) get one collective per group,
// shared by the group's all-reduces, and each member's call once a run;
// without the library they are staged, and the log says why.
TEST(Collectives, RunsALibraryCollectiveOrSaysWhyNot) {
  {
    LibraryDevice a(0, true), b(1, true);
    CollectiveExecutor collectives;
    Members sum(0, 2, {}, /*mean=*/false, {{1, 2, 3}, {4, 5, 6}});
    Members mean(1, 2, {}, /*mean=*/true, {{1, 2, 3}, {4, 5, 6}});
    ASSERT_TRUE(sum.add(collectives, 0, {&a, &b}));
    ASSERT_TRUE(mean.add(collectives, 2, {&a, &b}));
    ASSERT_TRUE(collectives.prepare(nullptr));
    EXPECT_EQ(a.created, 1);
    ASSERT_NE(a.last, nullptr);
    EXPECT_EQ(collectives.note(), "All-reduces: 2 in FakeLibrary 1.0 (each "
                                  "member on a GPU of its own)");
    collectives.beginRun();
    for (const Status &status : runTogether(collectives, {0, 1}))
      EXPECT_TRUE(status) << status.message();
    for (const Status &status : runTogether(collectives, {3, 2}))
      EXPECT_TRUE(status) << status.message();
    std::vector<std::pair<size_t, int64_t>> calls = a.last->calls;
    std::sort(calls.begin(), calls.end());
    EXPECT_EQ(calls, (std::vector<std::pair<size_t, int64_t>>{
                         {0, 0}, {0, 2}, {1, 0}, {1, 2}}));
    EXPECT_EQ(a.downloads, 0);
  }
  {
    LibraryDevice a(0, false), b(1, false);
    CollectiveExecutor collectives;
    Members sum(0, 2, {}, /*mean=*/false, {{1, 2, 3}, {4, 5, 6}});
    ASSERT_TRUE(sum.add(collectives, 0, {&a, &b}));
    ASSERT_TRUE(collectives.prepare(nullptr));
    EXPECT_EQ(collectives.note(),
              "All-reduces: 1 through host staging (download, add on the "
              "host, upload: copy-based) (FakeLibrary is not available (no "
              "libfake.so))");
    collectives.beginRun();
    for (const Status &status : runTogether(collectives, {1, 0}))
      EXPECT_TRUE(status) << status.message();
    for (const std::vector<float> &output : sum.outputs)
      EXPECT_EQ(output, (std::vector<float>{5, 7, 9}));
    EXPECT_EQ(a.downloads, 1);
  }
}

TEST(Collectives, RefusesGroupsItCannotComplete) {
  Device a(DeviceName::local(DeviceType::GPU, 0), "a", 0);
  Device b(DeviceName::local(DeviceType::GPU, 1), "b", 0);
  {
    CollectiveExecutor collectives;
    Members twice(0, 2, {}, false, {{1, 2, 3}, {4, 5, 6}});
    twice.params[1].member = 0;
    Status status = twice.add(collectives, 0, {&a, &b});
    EXPECT_EQ(status.message(),
              "r1 on /job:localhost/replica:0/task:0/device:GPU:1: "
              "all-reduce 0 has member 0 twice");
  }
  {
    CollectiveExecutor collectives;
    Members mixed(0, 2, {}, false, {{1, 2, 3}, {4, 5, 6}});
    mixed.params[1].mean = true;
    EXPECT_FALSE(mixed.add(collectives, 0, {&a, &b}));
  }
  {
    CollectiveExecutor collectives;
    Members missing(0, 3, {}, false, {{1, 2, 3}, {4, 5, 6}});
    ASSERT_TRUE(missing.add(collectives, 0, {&a, &b}));
    Status status = collectives.prepare(nullptr);
    EXPECT_EQ(status.message(), "all-reduce 0 (r0) has 2 members in this "
                                "process, but its group needs 3");
  }
}

// OpenBLAS's pthreads build exports its server's state; weak, so that the
// test links against builds without a server (serial, OpenMP).
extern "C" int blas_server_avail __attribute__((weak));
extern "C" int blas_num_threads __attribute__((weak));

namespace {
size_t threadsOfThisProcess() {
  return static_cast<size_t>(
      std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                    std::filesystem::directory_iterator()));
}
/// An f64 matmul (OpenBLAS's dgemm, threaded at this size where OpenBLAS
/// has threads) against the sums by hand.
void expectF64MatmulRight() {
  const int64_t n = 192;
  std::vector<double> av(n * n), bv(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    av[i] = static_cast<double>(i % 7) - 3;
    bv[i] = static_cast<double>(i % 5) - 2;
  }
  HostTensor a = tensorOf<double>(ElementType::F64, {n, n}, av);
  HostTensor b = tensorOf<double>(ElementType::F64, {n, n}, bv);
  HostTensor c(TensorType{ElementType::F64, {n, n}});
  ASSERT_TRUE(run(Kernel::Matmul, {}, {&a, &b}, c).isOk());
  std::vector<double> got = valuesOf<double>(c);
  for (int64_t i = 0; i < n; i += 37)
    for (int64_t j = 0; j < n; j += 23) {
      double sum = 0;
      for (int64_t p = 0; p < n; ++p)
        sum += av[i * n + p] * bv[p * n + j];
      ASSERT_EQ(got[i * n + j], sum) << "at " << i << ", " << j;
    }
}
} // namespace

// stopIdleBlasThreads ends OpenBLAS's server threads (which spin for 0.1 s
// after loading and after each threaded call) and OpenBLAS starts them
// again at its next threaded call, with right results.
TEST(Blas, StoppedIdleThreadsEndAndComeBackWhenOpenBlasNeedsThem) {
  expectF64MatmulRight(); // Starts OpenBLAS's server if it was stopped.
  bool server = &blas_server_avail && &blas_num_threads && blas_server_avail;
  size_t serverThreads = server ? static_cast<size_t>(blas_num_threads - 1) : 0;
  size_t before = threadsOfThisProcess();
  stopIdleBlasThreads();
  EXPECT_LE(threadsOfThisProcess(), before - serverThreads);
  if (server) {
    EXPECT_EQ(blas_server_avail, 0);
  }
  expectF64MatmulRight();
  if (server && blas_num_threads > 1) {
    EXPECT_EQ(blas_server_avail, 1); // Started again by the dgemm.
  }
  stopIdleBlasThreads(); // Once per process: nothing the second time.
  if (server && blas_num_threads > 1) {
    EXPECT_EQ(blas_server_avail, 1);
  }
}

//===----------------------------------------------------------------------===//
// Intra-op threads (Threads.h).
//===----------------------------------------------------------------------===//

// A plan of more streams than the executor's team can count (a thread
// each, 16 bits a run) is refused when it loads, not thrown at its first
// run.
TEST(Threads, AnExecutorRefusesMoreStreamsThanItsTeamRuns) {
  PlanBuilder p;
  p.plan.devices.resize(1); // The CPU alone.
  int x = p.input(), a = p.arena(0, 0);
  for (int stream = 0; stream <= 0xffff; ++stream)
    p.step(Step::Kind::Launch, 0, stream, Kernel::Neg, {x}, {a});
  p.plan.results = {a};
  DeviceManager devices({0, 0});
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(p.plan, devices, {});
  ASSERT_FALSE(executor);
  EXPECT_EQ(executor.status().message(),
            "the plan has 65536 streams; the executor runs at most 65535 "
            "(one thread each)");
}

// TaskTeam runs each task of a run exactly once, and every task gets a
// thread (here task 0 waits for the last task's flag, which would deadlock
// if one thread had to run both), run after run with a changing number of
// tasks, whether its threads block at once or spin first.
TEST(Threads, ATaskTeamRunsEachTaskOnceAndEveryTaskGetsAThread) {
  using namespace std::chrono_literals;
  for (std::chrono::microseconds spin : {0us, 50us}) {
    TaskTeam team(3, spin);
    EXPECT_EQ(team.workers(), 3u);
    std::array<std::atomic<int>, 4> counts{};
    for (int run = 0; run < 2000; ++run) {
      size_t n = 1 + run % 4;
      std::atomic<bool> lastDone{false};
      std::vector<std::function<void()>> tasks;
      for (size_t i = 0; i < n; ++i)
        tasks.push_back([&, i, n] {
          if (i == 0 && n > 1)
            while (!lastDone.load())
              std::this_thread::yield();
          if (i == n - 1)
            lastDone = true;
          ++counts[i];
        });
      team.run(tasks);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(counts[i].exchange(0), 1)
            << "task " << i << " of " << n << ", run " << run;
    }
  }
}

TEST(Threads, KernelSlotsLetAtMostTheirCountHoldOneAtOnce) {
  // Four threads take and give back slots many times; with two slots, at
  // most two hold one at any moment, and every thread gets through (a
  // spin of 0 blocks at once: the condition variable's path; 50 µs: the
  // spin's).
  for (auto spin :
       {std::chrono::microseconds(0), std::chrono::microseconds(50)}) {
    KernelSlots slots(2, spin);
    EXPECT_EQ(slots.slots(), 2);
    std::atomic<int> holding{0}, most{0}, done{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 2000; ++i) {
          slots.acquire();
          int now = ++holding;
          int seen = most.load();
          while (now > seen && !most.compare_exchange_weak(seen, now)) {
          }
          if (i % 64 == 0)
            std::this_thread::yield(); // Hold it a while now and then.
          --holding;
          slots.release();
        }
        ++done;
      });
    for (std::thread &thread : threads)
      thread.join();
    EXPECT_EQ(done.load(), 4);
    EXPECT_LE(most.load(), 2);
    EXPECT_GE(most.load(), 1);
  }
}

TEST(Executor, RefusesNegativeInterOpThreadsAndRunsWithOne) {
  DeviceManager devices({/*emulatedGpus=*/1, 0});
  ExecutorOptions options;
  options.interOpThreads = -1;
  StatusOr<std::unique_ptr<Executor>> refused =
      Executor::create(twoStreamPlan(false), devices, options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().message(),
            "the inter-op threads must be 0 (no bound) or more, not -1");
  // One slot: the GPU's and the CPU's streams wait for each other's events
  // (which hold none) and still finish, traced (step by step) or not.
  for (bool trace : {false, true}) {
    options.interOpThreads = 1;
    options.trace = trace;
    options.graphs = false;
    StatusOr<std::unique_ptr<Executor>> executor =
        Executor::create(twoStreamPlan(false), devices, options);
    ASSERT_TRUE(executor) << executor.status().message();
    HostTensor x = tensorOf<float>(ElementType::F32, {4}, {1, 2, 3, 4});
    StatusOr<std::vector<HostTensor>> results = (*executor)->run({x});
    ASSERT_TRUE(results) << results.status().message();
    EXPECT_EQ(valuesOf<float>((*results)[0]),
              (std::vector<float>{4, 7, 10, 13}));
  }
}

TEST(Threads, ATaskTeamRefusesMoreTasksThanThreadsAndJoinsWhenIdle) {
  using namespace std::chrono_literals;
  TaskTeam team(1, 50us);
  std::vector<std::function<void()>> three(3, [] {});
  EXPECT_THROW(team.run(three), std::logic_error);
  // Teams made and destroyed at once, their workers spinning or blocked,
  // join without a run.
  for (int i = 0; i < 50; ++i) {
    TaskTeam blocking(2, 0us);
    TaskTeam spinning(2, 1000us);
  }
  // spinUntil: true once ready, false after the budget when never ready.
  EXPECT_TRUE(spinUntil([] { return true; }, 0us));
  EXPECT_FALSE(spinUntil([] { return false; }, 0us));
  EXPECT_FALSE(spinUntil([] { return false; }, 200us));
  int calls = 0;
  EXPECT_TRUE(spinUntil([&] { return ++calls == 100; }, 1s));
}

TEST(Threads, UsableCpusAreTheAffinityMasksAtMost) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  int cpus = usableCpuCount();
  EXPECT_GE(cpus, 1);
  EXPECT_LE(cpus, CPU_COUNT(&set));
}

// affinityMask reads a process's mask (that of one which does not exist:
// empty), and setThreadAffinity narrows the calling thread to one: in a
// child, narrowed to the last CPU of this process's mask, which a thread it
// starts then inherits. The child reports by its exit code only (no
// GoogleTest in a forked process): 0, or the number of the check that
// failed.
TEST(Threads, AffinityMasksAreReadAndSet) {
  std::vector<unsigned long> mask = affinityMask();
  ASSERT_FALSE(mask.empty());
  int cpus = affinityCpuCount();
  EXPECT_EQ(affinityCpuCount(static_cast<int>(getpid())), cpus);
  EXPECT_TRUE(affinityMask(1 << 30).empty());
  EXPECT_EQ(affinityCpuCount(1 << 30), 0);
  EXPECT_FALSE(setThreadAffinity({}));
  if (cpus < 2)
    GTEST_SKIP() << "needs 2 CPUs in this process's affinity mask";
  constexpr size_t bits = 8 * sizeof(unsigned long);
  size_t last = 0;
  for (size_t cpu = 0; cpu < mask.size() * bits; ++cpu)
    if (mask[cpu / bits] >> (cpu % bits) & 1)
      last = cpu;
  std::vector<unsigned long> one(mask.size(), 0);
  one[last / bits] = 1ul << (last % bits);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!setThreadAffinity(one))
      _exit(1);
    if (affinityMask() != one || affinityCpuCount() != 1)
      _exit(2);
    std::vector<unsigned long> inherited;
    std::thread([&] { inherited = affinityMask(); }).join();
    if (inherited != one)
      _exit(3);
    if (!setThreadAffinity(mask) || affinityCpuCount() != cpus)
      _exit(4);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "check " << WEXITSTATUS(status) << " failed in the child";
}

TEST(Threads, AFixedCountStaysAndAZeroAdaptsUpToTheCpus) {
  IntraOpThreads fixed(3);
  EXPECT_FALSE(fixed.adaptive());
  fixed.update();
  EXPECT_EQ(fixed.current().load(), 3);
  EXPECT_EQ(fixed.maximum(), 3);
  IntraOpThreads adaptive(0);
  EXPECT_GE(adaptive.maximum(), 1);
  EXPECT_LE(adaptive.maximum(), usableCpuCount());
  EXPECT_EQ(adaptive.adaptive(), adaptive.maximum() > 1);
  // Updates never leave [1, maximum], whatever the machine's load.
  for (int i = 0; i < 5; ++i) {
    adaptive.update();
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    EXPECT_GE(adaptive.current().load(), 1);
    EXPECT_LE(adaptive.current().load(), adaptive.maximum());
  }
}

TEST(Threads, ALaunchGetsAThreadPerUnitOfWorkUpToTheTeam) {
  EXPECT_EQ(threadsForWork(0, 4), 1);
  EXPECT_EQ(threadsForWork(1, 4), 1);
  EXPECT_EQ(threadsForWork(kWorkPerThread, 4), 1);
  EXPECT_EQ(threadsForWork(kWorkPerThread + 1, 4), 2);
  EXPECT_EQ(threadsForWork(3 * kWorkPerThread, 4), 3);
  EXPECT_EQ(threadsForWork(100 * kWorkPerThread, 4), 4);
  EXPECT_EQ(threadsForWork(100 * kWorkPerThread, 1), 1);
  EXPECT_EQ(threadsForWork(10, 8, 3), 4);
}

// Team sizing by work (docs/runtime.md, "Threads"): with the executor's
// count at 2, a launch of little work runs on one thread and a large one
// on both, for a host kernel's parallel loop (the team observed inside
// it) and a oneDNN convolution, whose primitive is made for the count and
// kept per count (the kernel cache's entries).
TEST(Threads, ASmallLaunchRunsOnOneThreadAndALargeOneOnTheTeam) {
  std::atomic<int> team{2};
  auto descend = [&](int64_t n) {
    HostTensor var(TensorType{ElementType::F32, {n}});
    HostTensor delta(TensorType{ElementType::F32, {n}});
    HostTensor alpha = tensorOf<float>(ElementType::F32, {}, {0.5f});
    KernelParams params;
    KernelCall call;
    call.kernel = Kernel::ApplyGradientDescent;
    call.params = &params;
    call.intraOpThreads = &team;
    call.inputs = {{alpha.data.data(), &alpha.type},
                   {delta.data.data(), &delta.type}};
    call.outputs = {{var.data.data(), &var.type}};
    EXPECT_TRUE(runHostKernel(call).isOk());
  };
  descend(1000);
  EXPECT_EQ(lastLaunchTeam(), 1);
  if (matmulDescription().find("oneDNN") != std::string::npos) {
    // Built with oneDNN, which the host loops share OpenMP with.
    descend(1 << 20);
    EXPECT_EQ(lastLaunchTeam(), 2);
  }

  if (matmulDescription().find("oneDNN") == std::string::npos)
    GTEST_SKIP() << "built without oneDNN";
  KernelCache cache;
  auto convolve = [&](int64_t batch, int64_t size, int64_t in, int64_t out) {
    HostTensor x(TensorType{ElementType::F32, {batch, size, size, in}});
    HostTensor w(TensorType{ElementType::F32, {3, 3, in, out}});
    HostTensor y(TensorType{ElementType::F32, {batch, size, size, out}});
    KernelParams params;
    params.windowSize = {3, 3};
    params.windowStrides = {1, 1};
    params.windowDilations = {1, 1};
    params.windowPads = {1, 1, 1, 1};
    KernelCall call;
    call.kernel = Kernel::Conv2D;
    call.params = &params;
    call.cache = &cache;
    call.intraOpThreads = &team;
    call.inputs = {{x.data.data(), &x.type}, {w.data.data(), &w.type}};
    call.outputs = {{y.data.data(), &y.type}};
    Status status = runHostKernel(call);
    EXPECT_TRUE(status.isOk()) << status.message();
  };
  // ONNX's test_basic_conv_with_padding: 225 multiply-adds.
  convolve(1, 5, 1, 1);
  EXPECT_EQ(lastLaunchTeam(), 1);
  EXPECT_EQ(cache.size(), 1u);
  // 4x32x32x16 to 32 channels: 18.9 million.
  convolve(4, 32, 16, 32);
  EXPECT_EQ(lastLaunchTeam(), 2);
  EXPECT_EQ(cache.size(), 2u);
  // The executor's count lowered: the large launch gets a primitive for
  // one thread beside its first; the small one keeps its own.
  team = 1;
  convolve(4, 32, 16, 32);
  EXPECT_EQ(lastLaunchTeam(), 1);
  EXPECT_EQ(cache.size(), 3u);
  convolve(1, 5, 1, 1);
  EXPECT_EQ(cache.size(), 3u);
}

// The adaptive count reads its OpenMP workers' run queue delay too
// (injected here, with the clock): a worker waiting for a CPU halves the
// team though the calling thread never waits. A delay halves the team in
// the second slow window in a row, the caller's as a worker's.
TEST(Threads, AWorkersDelayHalvesTheTeam) {
  auto now = std::chrono::steady_clock::time_point();
  std::map<long, uint64_t> delays = {{0, 0}, {101, 0}, {102, 0}, {103, 0}};
  IntraOpThreads::Probe probe;
  probe.now = [&] { return now; };
  probe.delay = [&](long tid) -> std::optional<uint64_t> {
    return delays.at(tid);
  };
  probe.workers = [](int threads) {
    std::vector<long> tids;
    for (int i = 1; i < threads; ++i)
      tids.push_back(100 + i);
    return tids;
  };
  probe.cpus = [] { return 4; };
  if (std::getenv("OMP_NUM_THREADS"))
    GTEST_SKIP() << "OMP_NUM_THREADS caps the team";
  IntraOpThreads threads(0, probe);
  ASSERT_TRUE(threads.adaptive());
  ASSERT_EQ(threads.maximum(), 4);
  // A 10 ms window in which thread `tid` waited `waitedUs`.
  auto window = [&](long tid, uint64_t waitedUs) {
    now += std::chrono::milliseconds(10);
    delays[tid] += waitedUs * 1000;
    threads.update();
    return threads.current().load();
  };
  threads.update(); // The first window starts.
  EXPECT_EQ(window(102, 0), 4);
  EXPECT_EQ(window(102, 500), 4);  // 5%: neither busy nor quiet.
  EXPECT_EQ(window(102, 2000), 4); // 20% once: a late wake-up, kept.
  EXPECT_EQ(window(102, 0), 4);
  EXPECT_EQ(window(102, 2000), 4);
  EXPECT_EQ(window(103, 2000), 2); // Twice in a row (any worker): halved.
  EXPECT_EQ(window(102, 2000), 1); // And again while it lasts.
  // Quiet windows bring a thread back: 80, each halving having doubled
  // the 20 a raise needs.
  int windows = 0;
  while (threads.current().load() == 1 && windows < 1000) {
    window(0, 0);
    ++windows;
  }
  EXPECT_EQ(threads.current().load(), 2);
  EXPECT_EQ(windows, 80);
  // A window too short to measure changes nothing.
  now += std::chrono::milliseconds(1);
  threads.update();
  EXPECT_EQ(threads.current().load(), 2);
  // The caller's own delay counts alike: once is kept (run 59 of
  // bench/results/2026-11-30-quiet-figures.md's quiet trace halved the
  // team for 260 runs), twice in a row halves.
  EXPECT_EQ(window(0, 3000), 2);
  EXPECT_EQ(window(0, 0), 2);
  EXPECT_EQ(window(0, 3000), 2);
  EXPECT_EQ(window(0, 3000), 1);
}

// A plan of several streams runs its kernels on the executor's pool
// threads while the caller waits: their delays, and their workers', are
// measured once they add themselves; before, such a plan's team stayed at
// the maximum on a busy machine.
TEST(Threads, AStreamThreadsDelayHalvesTheTeam) {
  if (std::getenv("OMP_NUM_THREADS"))
    GTEST_SKIP() << "OMP_NUM_THREADS caps the team";
  auto now = std::chrono::steady_clock::time_point();
  std::map<long, uint64_t> delays = {{0, 0},   {7, 0},   {101, 0},
                                     {200, 0}, {201, 0}};
  long self = 7; // The tid the probe reports for the calling thread.
  IntraOpThreads::Probe probe;
  probe.now = [&] { return now; };
  probe.delay = [&](long tid) -> std::optional<uint64_t> {
    return delays.at(tid);
  };
  probe.workers = [&](int threads) {
    EXPECT_EQ(threads, 2);
    return std::vector<long>{self == 7 ? 101L : self + 1};
  };
  probe.cpus = [] { return 2; };
  probe.self = [&] { return self; };
  IntraOpThreads threads(0, probe);
  ASSERT_TRUE(threads.adaptive());
  auto window = [&](long tid, uint64_t waitedUs) {
    now += std::chrono::milliseconds(10);
    delays[tid] += waitedUs * 1000;
    threads.update();
    return threads.current().load();
  };
  threads.update(); // The caller (tid 7) and its worker 101.
  EXPECT_EQ(threads.measuredThreads(), 2u);
  // A stream thread's delay is not seen before it adds itself.
  EXPECT_EQ(window(200, 3000), 2);
  EXPECT_EQ(window(200, 3000), 2);
  std::thread([&] {
    self = 200;
    threads.addKernelThread(); // Thread 200 and its worker 201.
    threads.addKernelThread(); // Once per thread.
  }).join();
  EXPECT_EQ(threads.measuredThreads(), 4u);
  // The caller running a stream itself (a plan of one stream) is measured
  // already.
  self = 7;
  threads.addKernelThread();
  EXPECT_EQ(threads.measuredThreads(), 4u);
  EXPECT_EQ(window(200, 3000), 2); // Its first window: the start.
  EXPECT_EQ(window(200, 3000), 2); // Slow once.
  EXPECT_EQ(window(201, 3000), 1); // Its worker, slow twice in a row.
  // Kernel threads that run before the first update() (a capture at
  // load) do not keep the caller from being measured, nor is a caller
  // that added itself measured twice.
  IntraOpThreads early(0, probe);
  std::thread([&] {
    self = 200;
    early.addKernelThread();
  }).join();
  EXPECT_EQ(early.measuredThreads(), 2u);
  self = 7;
  early.addKernelThread(); // The caller, before its first update().
  EXPECT_EQ(early.measuredThreads(), 4u);
  early.update();
  EXPECT_EQ(early.measuredThreads(), 4u);
  IntraOpThreads late(0, probe);
  std::thread([&] {
    self = 200;
    late.addKernelThread();
  }).join();
  self = 7;
  late.update();
  EXPECT_EQ(late.measuredThreads(), 4u);
  // A thread that served 64 other executors since adds itself again
  // without being measured twice.
  std::thread([&] {
    self = 200;
    late.addKernelThread();
    for (int i = 0; i < 64; ++i) {
      IntraOpThreads other(0, probe);
      other.addKernelThread();
    }
    late.addKernelThread();
  }).join();
  self = 7;
  EXPECT_EQ(late.measuredThreads(), 4u);
  // A fixed count measures nothing.
  IntraOpThreads fixed(2, probe);
  std::thread([&] { fixed.addKernelThread(); }).join();
  EXPECT_EQ(fixed.measuredThreads(), 0u);
}

TEST(Threads, TheExecutorUsesTheCountItIsGiven) {
  DeviceManager devices({0, 0});
  Plan plan;
  ExecutorOptions options;
  options.intraOpThreads = 1;
  StatusOr<std::unique_ptr<Executor>> executor =
      Executor::create(std::move(plan), devices, options);
  ASSERT_TRUE(executor) << executor.status().message();
  EXPECT_EQ((*executor)->intraOpThreads(), 1);
}

/// Control flow (docs/runtime.md#control-flow): plans on the CPU alone. A
/// plan whose step runs `kernel` (If or While) on `device` with sub-plans
/// `subplans`; its inputs of `inputTypes`, its results the step's outputs
/// of `outputTypes`.
Plan controlFlowPlan(Kernel kernel, int device,
                     std::vector<TensorType> inputTypes,
                     std::vector<TensorType> outputTypes,
                     std::vector<Plan> subplans) {
  PlanBuilder p;
  std::vector<int> ins, outs;
  for (TensorType &type : inputTypes) {
    p.t = type;
    ins.push_back(p.input());
  }
  int64_t offset = 0;
  for (TensorType &type : outputTypes) {
    outs.push_back(p.buffer(BufferDesc::Kind::Arena, device, offset, type));
    offset += 64;
  }
  p.step(Step::Kind::Launch, device, 0, kernel, ins, outs, -1, "flow");
  p.plan.steps.back().subplans = {0, 1};
  p.plan.results = outs;
  p.plan.subplans = std::move(subplans);
  return p.plan;
}

/// A sub-plan on the CPU: `kernel` of its one input (and, with `operand`,
/// of a constant operand after it), of `type`, to a result of
/// `resultType`.
Plan unaryPlan(Kernel kernel, TensorType type, TensorType resultType,
               std::optional<float> operand = std::nullopt) {
  PlanBuilder p;
  p.t = type;
  int x = p.input();
  std::vector<int> ins{x};
  if (operand) {
    PersistentDesc desc;
    desc.initialValue = tensorOf<float>(type.elementType, type.shape,
                                        std::vector<float>(
                                            type.numElements(), *operand));
    p.plan.persistents.push_back(desc);
    int c = p.buffer(BufferDesc::Kind::Persistent, 0, 0, type);
    ins.push_back(c);
  }
  int y = p.buffer(BufferDesc::Kind::Arena, 0, 0, resultType);
  p.step(Step::Kind::Launch, 0, 0, kernel, ins, {y}, -1, "sub");
  p.plan.results = {y};
  return p.plan;
}

TEST(Executor, IfRunsTheBranchItsConditionChooses) {
  TensorType scalarI1{ElementType::I1, {}}, vector{ElementType::F32, {4}};
  std::vector<Plan> branches;
  branches.push_back(unaryPlan(Kernel::Add, vector, vector, 10.0f));
  branches.push_back(unaryPlan(Kernel::Neg, vector, vector));
  DeviceManager devices({1, 0});
  StatusOr<std::unique_ptr<Executor>> executor = Executor::create(
      controlFlowPlan(Kernel::If, 0, {scalarI1, vector}, {vector},
                      std::move(branches)),
      devices);
  ASSERT_TRUE(executor) << executor.status().message();
  HostTensor x = tensorOf<float>(ElementType::F32, {4}, {1, 2, 3, 4});
  for (bool cond : {true, false, true}) {
    HostTensor c(TensorType{ElementType::I1, {}});
    c.data[0] = cond;
    StatusOr<std::vector<HostTensor>> results = (*executor)->run({c, x});
    ASSERT_TRUE(results) << results.status().message();
    EXPECT_EQ(valuesOf<float>((*results)[0]),
              cond ? (std::vector<float>{11, 12, 13, 14})
                   : (std::vector<float>{-1, -2, -3, -4}));
  }
}

TEST(Executor, WhileRunsItsBodyUntilItsConditionTurnsFalse) {
  // x = x + 1 while 10 > x.
  TensorType scalar{ElementType::F32, {}}, scalarI1{ElementType::I1, {}};
  std::vector<Plan> loop;
  Plan cond = unaryPlan(Kernel::Greater, scalar, scalarI1, 10.0f);
  // Greater(10, x): the constant first.
  std::swap(cond.steps[0].inputs[0], cond.steps[0].inputs[1]);
  loop.push_back(std::move(cond));
  loop.push_back(unaryPlan(Kernel::Add, scalar, scalar, 1.0f));
  DeviceManager devices({1, 0});
  StatusOr<std::unique_ptr<Executor>> executor = Executor::create(
      controlFlowPlan(Kernel::While, 0, {scalar}, {scalar}, std::move(loop)),
      devices);
  ASSERT_TRUE(executor) << executor.status().message();
  // 0 runs ten iterations, 9.5 one, 12 none.
  for (auto [start, end] : {std::pair<float, float>{0, 10}, {9.5f, 10.5f},
                            {12, 12}}) {
    StatusOr<std::vector<HostTensor>> results = (*executor)->run(
        {tensorOf<float>(ElementType::F32, {}, {start})});
    ASSERT_TRUE(results) << results.status().message();
    EXPECT_EQ(valuesOf<float>((*results)[0]), std::vector<float>{end});
  }
}

TEST(Executor, RefusesControlFlowOffTheCpu) {
  TensorType scalarI1{ElementType::I1, {}}, vector{ElementType::F32, {4}};
  std::vector<Plan> branches;
  branches.push_back(unaryPlan(Kernel::Neg, vector, vector));
  branches.push_back(unaryPlan(Kernel::Neg, vector, vector));
  DeviceManager devices({1, 0});
  StatusOr<std::unique_ptr<Executor>> executor = Executor::create(
      controlFlowPlan(Kernel::If, 1, {scalarI1, vector}, {vector},
                      std::move(branches)),
      devices);
  ASSERT_FALSE(executor);
  EXPECT_EQ(executor.status().message(),
            "flow runs on /job:localhost/replica:0/task:0/device:GPU:0: "
            "control flow runs on a CPU, which reads its condition");
}
