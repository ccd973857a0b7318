//===- CudaKernelsTest.cpp - every GPU kernel compiles to valid PTX -------===//
//
// Runs here without a GPU: for every kernel that runs through NVRTC and
// every element type with a GPU kernel, the generated CUDA C must compile
// with NVRTC for sm_90 and for NVRTC's default architecture, and ptxas must
// accept the PTX. Skipped (with the reason) where NVRTC cannot be loaded.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Cuda.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include <unistd.h>

using namespace gplace;
using namespace gplace::runtime;

namespace {

/// A launch with fake addresses: kernels are generated, never run, here.
struct Launch {
  Kernel kernel;
  std::vector<TensorType> inputs;
  TensorType output;
  KernelParams params;
  /// Outputs after the first (a loss's backprop, an optimizer's slots).
  std::vector<TensorType> moreOutputs = {};

  KernelCall call() const {
    KernelCall call;
    call.kernel = kernel;
    call.params = &params;
    for (const TensorType &type : inputs)
      call.inputs.push_back({nullptr, &type});
    call.outputs.push_back({nullptr, &output});
    for (const TensorType &type : moreOutputs)
      call.outputs.push_back({nullptr, &type});
    return call;
  }
};

std::vector<Launch> everyLaunch(ElementType t) {
  auto T = [t](std::vector<int64_t> shape) { return TensorType{t, shape}; };
  std::vector<Launch> launches;
  // Every elementwise kernel of the op table, by its arity.
  for (size_t k = 0; k < kNumKernels; ++k) {
    auto kernel = static_cast<Kernel>(k);
    if (!isElementwiseKernel(kernel))
      continue;
    switch (kernelArity(kernel)) {
    case 1:
      launches.push_back({kernel, {T({5, 7})}, T({5, 7}), {}});
      break;
    case 2:
      launches.push_back({kernel, {T({4, 3}), T({4, 3})}, T({4, 3}), {}});
      launches.push_back({kernel, {T({2, 1, 3}), T({4, 1})}, T({2, 4, 3}), {}});
      launches.push_back({kernel, {T({4, 6}), T({6})}, T({4, 6}), {}});
      break;
    default:
      launches.push_back({kernel, {T({8}), T({8}), T({8})}, T({8}), {}});
      break;
    }
  }
  // Casts to `t` from every GPU float type (mixed precision's casts).
  for (ElementType from : {ElementType::F32, ElementType::F16,
                           ElementType::BF16, ElementType::F64})
    launches.push_back(
        {Kernel::Cast, {TensorType{from, {3, 5}}}, T({3, 5}), {}});
  for (Kernel k : {Kernel::ReduceSum, Kernel::ReduceMean, Kernel::ReduceMax}) {
    KernelParams some, all;
    some.axes = {1};
    all.axes = {0, 1, 2};
    launches.push_back({k, {T({2, 3, 4})}, T({2, 4}), some});
    launches.push_back({k, {T({2, 3, 4})}, T({}), all});
    // Long reductions: a block of threads per result.
    KernelParams bias;
    bias.axes = {0, 1, 2};
    launches.push_back({k, {T({8, 12, 12, 4})}, T({4}), bias});
  }
  launches.push_back({Kernel::Softmax, {T({3, 10})}, T({3, 10}), {}});
  KernelParams perm;
  perm.perm = {2, 0, 1};
  launches.push_back({Kernel::Transpose, {T({2, 3, 4})}, T({4, 2, 3}), perm});
  KernelParams slice;
  slice.begin = {1, 0};
  slice.size = {2, 3};
  launches.push_back({Kernel::Slice, {T({4, 3})}, T({2, 3}), slice});
  KernelParams axis;
  axis.axis = 1;
  launches.push_back(
      {Kernel::Concat, {T({2, 3}), T({2, 5})}, T({2, 8}), axis});
  for (Kernel k : {Kernel::AssignAdd, Kernel::AssignSub})
    launches.push_back({k, {T({6})}, T({6}), {}});
  // Training.
  launches.push_back({Kernel::BroadcastTo, {T({3, 1})}, T({2, 3, 4}), {}});
  KernelParams paddings;
  paddings.paddings = {1, 0, 2, 1};
  launches.push_back({Kernel::Pad, {T({2, 3})}, T({3, 6}), paddings});
  for (ElementType labels : {ElementType::I32, ElementType::I64})
    launches.push_back({Kernel::SparseSoftmaxCrossEntropyWithLogits,
                        {T({4, 10}), TensorType{labels, {4}}},
                        T({4}),
                        {},
                        {T({4, 10})}});
  for (Kernel k :
       {Kernel::StatelessRandomUniform, Kernel::StatelessRandomNormal,
        Kernel::StatelessTruncatedNormal})
    for (ElementType seed : {ElementType::I32, ElementType::I64})
      launches.push_back({k, {TensorType{seed, {2}}}, T({7, 3}), {}});
  for (ElementType seed : {ElementType::I32, ElementType::I64})
    launches.push_back(
        {Kernel::Dropout, {T({7, 3}), T({}), TensorType{seed, {2}}}, T({7, 3}),
         {}});
  // A comparison (an i1 result, computed in the operands' type) and
  // SelectV2 (an i1 condition), broadcasting.
  auto I1 = [](std::vector<int64_t> shape) {
    return TensorType{ElementType::I1, shape};
  };
  for (Kernel k : {Kernel::GreaterEqual, Kernel::Greater, Kernel::Equal})
    launches.push_back({k, {T({2, 1, 3}), T({4, 1})}, I1({2, 4, 3}), {}});
  launches.push_back(
      {Kernel::Select, {I1({4, 1}), T({2, 1, 3}), T({})}, T({2, 4, 3}), {}});
  // IsInf and IsNan: an i1 of the float operand's shape.
  for (Kernel k : {Kernel::IsInf, Kernel::IsNan})
    launches.push_back({k, {T({5, 7})}, I1({5, 7}), {}});
  // UnsortedSegmentSum (gather's gradient), i32 and i64 ids.
  for (ElementType index : {ElementType::I32, ElementType::I64})
    launches.push_back({Kernel::UnsortedSegmentSum,
                        {T({4, 2, 3}), TensorType{index, {4, 2}}},
                        T({5, 3}),
                        {}});
  // GatherV2 along a middle axis, i32 and i64 indices.
  KernelParams middle;
  middle.axis = 1;
  for (ElementType index : {ElementType::I32, ElementType::I64})
    launches.push_back({Kernel::Gather,
                        {T({2, 5, 3}), TensorType{index, {4, 2}}},
                        T({2, 4, 2, 3}),
                        middle});
  launches.push_back(
      {Kernel::ApplyGradientDescent, {T({}), T({5})}, T({5}), {}});
  for (bool nesterov : {false, true}) {
    KernelParams params;
    params.useNesterov = nesterov;
    launches.push_back({Kernel::ApplyMomentum,
                        {T({}), T({5}), T({})},
                        T({5}),
                        params,
                        {T({5})}});
    launches.push_back({Kernel::ApplyAdam,
                        {T({}), T({}), T({}), T({}), T({}), T({}), T({5})},
                        T({5}),
                        params,
                        {T({5}), T({5})}});
  }
  return launches;
}

/// A path in the temporary directory named after `stem` and this process:
/// test binaries may run side by side.
std::filesystem::path ownTempPath(const std::string &stem) {
  return std::filesystem::temp_directory_path() /
         (stem + "-" + std::to_string(getpid()));
}

/// Runs ptxas on `ptx` for the architecture the PTX targets; returns its
/// error output, or "" on success.
std::string ptxas(const std::string &ptx) {
  std::smatch target;
  if (!std::regex_search(ptx, target, std::regex(R"(\.target (sm_[0-9a-z]+))")))
    return "no .target in the PTX";
  static int count = 0;
  std::string stem =
      ownTempPath("gplace-ptxas-test").string() + "-" + std::to_string(count++);
  std::filesystem::path input = stem + ".ptx";
  std::filesystem::path output = stem + ".cubin";
  std::filesystem::path log = stem + ".log";
  std::ofstream(input) << ptx;
  std::string command = std::string(GPLACE_PTXAS) + " -arch=" +
                        target[1].str() + " " + input.string() + " -o " +
                        output.string() + " > " + log.string() + " 2>&1";
  int status = std::system(command.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  for (const std::filesystem::path &path : {input, output, log})
    std::filesystem::remove(path);
  return status == 0 ? "" : "ptxas failed: " + text;
}

class CudaKernels : public ::testing::TestWithParam<ElementType> {
protected:
  void SetUp() override {
    if (!nvrtcUnavailableReason().empty())
      GTEST_SKIP() << "NVRTC is not available: " << nvrtcUnavailableReason();
    // A fresh cache, so that NVRTC really compiles every kernel.
    std::filesystem::path dir =
        ownTempPath("gplace-kernel-cache-test");
    std::filesystem::remove_all(dir);
    setenv("GPLACE_KERNEL_CACHE_DIR", dir.c_str(), 1);
  }
  void TearDown() override {
    std::filesystem::remove_all(ownTempPath("gplace-kernel-cache-test"));
  }
};

/// Compiles `kernel` with NVRTC for sm_90 and NVRTC's default architecture
/// and has ptxas (where the toolkit has it) assemble the PTX.
void expectCompiles(const CudaKernelSource &kernel) {
  bool havePtxas = std::filesystem::exists(GPLACE_PTXAS);
  for (std::string arch : {"sm_90", ""}) {
    StatusOr<std::string> ptx = compileCudaKernel(kernel, arch);
    ASSERT_TRUE(ptx) << ptx.status().message() << "\n" << kernel.source;
    EXPECT_NE(ptx->find(".entry gplace_kernel"), std::string::npos);
    if (havePtxas) {
      EXPECT_EQ(ptxas(*ptx), "") << kernel.source;
    }
  }
}

TEST_P(CudaKernels, CompileWithNvrtcAndPtxas) {
  for (const Launch &launch : everyLaunch(GetParam())) {
    KernelCall call = launch.call();
    SCOPED_TRACE("gplace." + std::string(kernelMnemonic(launch.kernel)) +
                 " " + launch.output.str());
    ASSERT_TRUE(isNvrtcKernel(launch.kernel));
    StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_EQ(kernel->numParameters,
              launch.inputs.size() + 1 + launch.moreOutputs.size());
    expectCompiles(*kernel);
  }
}

INSTANTIATE_TEST_SUITE_P(GpuTypes, CudaKernels,
                         ::testing::Values(ElementType::F32, ElementType::F16,
                                           ElementType::BF16, ElementType::F64),
                         [](const auto &info) {
                           return std::string(elementTypeName(info.param));
                         });

TEST(CudaKernelSource, RefusesWhatIsNotAnNvrtcKernel) {
  TensorType i32{ElementType::I32, {4}};
  Launch add{Kernel::Add, {i32, i32}, i32, {}};
  KernelCall call = add.call();
  StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "no GPU kernel for gplace.add with element type i32");
  // A comparison is refused by its operands' type, not its i1 result's.
  Launch compare{
      Kernel::GreaterEqual, {i32, i32}, TensorType{ElementType::I1, {4}}, {}};
  KernelCall compareCall = compare.call();
  StatusOr<CudaKernelSource> compareKernel = generateCudaKernel(compareCall);
  ASSERT_FALSE(compareKernel);
  EXPECT_EQ(compareKernel.status().message(),
            "no GPU kernel for gplace.greater_equal with element type i32");
  EXPECT_FALSE(isNvrtcKernel(Kernel::Matmul));
  EXPECT_FALSE(isNvrtcKernel(Kernel::Read));
  EXPECT_TRUE(isNvrtcKernel(Kernel::Cast));
  EXPECT_TRUE(isNvrtcKernel(Kernel::Softmax));
  // A cast from or to an integer type has no GPU kernel (the seeds'
  // tf.cast): refused by its result's type, or by its operand's.
  Launch toInt{Kernel::Cast, {TensorType{ElementType::F32, {4}}}, i32, {}};
  KernelCall toIntCall = toInt.call();
  StatusOr<CudaKernelSource> toIntKernel = generateCudaKernel(toIntCall);
  ASSERT_FALSE(toIntKernel);
  EXPECT_EQ(toIntKernel.status().message(),
            "no GPU kernel for gplace.cast with element type i32");
  Launch fromInt{Kernel::Cast, {i32}, TensorType{ElementType::F32, {4}}, {}};
  KernelCall fromIntCall = fromInt.call();
  StatusOr<CudaKernelSource> fromIntKernel = generateCudaKernel(fromIntCall);
  ASSERT_FALSE(fromIntKernel);
  EXPECT_EQ(fromIntKernel.status().message(),
            "no GPU kernel for gplace.cast from i32");
}

// A device-side all-reduce member's kernel: the slice's bounds and the
// divisor are in the source, the sum runs in member order, and it
// compiles for every GPU type.
TEST(CudaKernelSource, AllReduceSliceOfEveryType) {
  for (ElementType type : {ElementType::F32, ElementType::F16,
                           ElementType::BF16, ElementType::F64}) {
    SCOPED_TRACE(elementTypeName(type));
    StatusOr<CudaKernelSource> kernel =
        generateAllReduceCudaKernel(3, type, 3, 10, 25);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_EQ(kernel->threads, 15);
    EXPECT_EQ(kernel->numParameters, 6u);
    const std::string &source = kernel->source;
    EXPECT_NE(source.find("threadIdx.x + 10LL;"), std::string::npos) << source;
    EXPECT_NE(source.find("if (i >= 25LL) return;"), std::string::npos);
    EXPECT_LT(source.find("in1[i]"), source.find("in2[i]"));
    EXPECT_NE(source.find("s /= "), std::string::npos);
    EXPECT_NE(source.find("out2[i] = "), std::string::npos);
    expectCompiles(*kernel);
  }
  StatusOr<CudaKernelSource> sum =
      generateAllReduceCudaKernel(2, ElementType::F32, 0, 0, 4);
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->source.find("s /= "), std::string::npos);
  EXPECT_FALSE(generateAllReduceCudaKernel(2, ElementType::I32, 0, 0, 4));
}

// The CUDA backend claims only what it can run: each (kernel, element type)
// of its table has an NVRTC generator (a launch of everyLaunch, which
// CompileWithNvrtcAndPtxas compiles) or a library call (cuBLAS, cuDNN, a
// copy, an all-reduce); a launch of everyLaunch is never refused for its
// type. Needs no NVRTC.
TEST(CudaKernelSource, EveryClaimedKernelHasAGeneratorOrALibraryCall) {
  for (size_t k = 0; k < kNumKernels; ++k) {
    auto kernel = static_cast<Kernel>(k);
    SCOPED_TRACE(std::string(kernelMnemonic(kernel)));
    unsigned claimed = kCudaBackend.types(kernelMnemonic(kernel),
                                          isElementwiseKernel(kernel));
    EXPECT_EQ(claimed, kernelGpuTypes(kernel));
    for (int t = 0; t < kNumElementTypes; ++t) {
      auto type = static_cast<ElementType>(t);
      if (!(claimed & typeBit(type)))
        continue;
      SCOPED_TRACE(std::string(elementTypeName(type)));
      // An all-reduce's members run NCCL, or one kernel for the group:
      // generateAllReduceCudaKernel's (AllReduceKernels below).
      if (isCollectiveKernel(kernel)) {
        EXPECT_TRUE(generateAllReduceCudaKernel(2, type, 0, 0, 4));
        continue;
      }
      if (!isNvrtcKernel(kernel)) {
        EXPECT_TRUE(isCudnnKernel(kernel) || kernel == Kernel::Matmul ||
                    kernel == Kernel::MatmulAccumulate ||
                    kernel == Kernel::Read || kernel == Kernel::Assign)
            << "neither NVRTC nor a library runs it";
        continue;
      }
      bool generated = false;
      for (const Launch &launch : everyLaunch(type))
        generated |= launch.kernel == kernel;
      EXPECT_TRUE(generated) << "no NVRTC launch is generated and compiled";
    }
  }
  for (ElementType type : {ElementType::F32, ElementType::F16,
                           ElementType::BF16, ElementType::F64})
    for (const Launch &launch : everyLaunch(type))
      EXPECT_TRUE(kernelGpuTypes(launch.kernel) & typeBit(type))
          << kernelMnemonic(launch.kernel) << " " << elementTypeName(type);
}

// Every window kernel with a GPU kernel in the op table runs through cuDNN
// (convolutions and pools in f32, f16 and bf16; batch norm in f32),
// none through NVRTC; cuDNN's note names its version where it loads (the
// toolkit here ships it) and says why not elsewhere.
TEST(CudaKernelSource, WindowKernelsRunOnCudnn) {
  for (Kernel kernel :
       {Kernel::Conv2D, Kernel::FusedConv2D, Kernel::Conv2DBackpropInput,
        Kernel::Conv2DBackpropFilter, Kernel::DepthwiseConv2dNative,
        Kernel::DepthwiseConv2dNativeBackpropInput,
        Kernel::DepthwiseConv2dNativeBackpropFilter, Kernel::MaxPool,
        Kernel::AvgPool, Kernel::MaxPoolGrad, Kernel::AvgPoolGrad,
        Kernel::FusedBatchNorm, Kernel::FusedBatchNormGrad}) {
    SCOPED_TRACE(kernelMnemonic(kernel));
    EXPECT_NE(kernelGpuTypes(kernel), 0u);
    EXPECT_TRUE(isCudnnKernel(kernel));
    EXPECT_FALSE(isNvrtcKernel(kernel));
  }
  EXPECT_FALSE(isCudnnKernel(Kernel::Matmul));
  EXPECT_FALSE(isCudnnKernel(Kernel::Relu));
  std::string note = cudnnNote();
  EXPECT_TRUE(note.rfind("cuDNN 9.", 0) == 0 ||
              note.rfind("no cuDNN (", 0) == 0)
      << note;
  // Where it loads, it says which types its kernels run, as the table.
  if (note.rfind("cuDNN 9.", 0) == 0)
    EXPECT_NE(note.find("convolutions and pools in f32, f16 and bf16"),
              std::string::npos)
        << note;
  for (Kernel kernel : {Kernel::Conv2D, Kernel::MaxPoolGrad})
    EXPECT_EQ(kernelGpuTypes(kernel), typeBit(ElementType::F32) |
                                          typeBit(ElementType::F16) |
                                          typeBit(ElementType::BF16));
  EXPECT_EQ(kernelGpuTypes(Kernel::FusedBatchNorm), typeBit(ElementType::F32));
}

// A reduction of 1024 elements or more per result runs a block of 256
// threads per result, ending in a tree over shared memory; a shorter one a
// thread per result.
TEST(CudaKernelSource, LongReductionsRunABlockPerResult) {
  TensorType in{ElementType::F32, {8, 12, 12, 4}}, out{ElementType::F32, {4}};
  KernelParams params;
  params.axes = {0, 1, 2};
  Launch launch{Kernel::ReduceSum, {in}, out, params};
  KernelCall call = launch.call();
  StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_EQ(kernel->threads, 4 * 256);
  EXPECT_NE(kernel->source.find("__shared__ float part[256];"),
            std::string::npos)
      << kernel->source;
  EXPECT_NE(kernel->source.find("q += 256)"), std::string::npos);
  TensorType small{ElementType::F32, {8, 12, 4}};
  params.axes = {0, 1};
  Launch shortLaunch{Kernel::ReduceSum, {small}, out, params};
  KernelCall shortCall = shortLaunch.call();
  StatusOr<CudaKernelSource> serial = generateCudaKernel(shortCall);
  ASSERT_TRUE(serial);
  EXPECT_EQ(serial->threads, 4);
  EXPECT_EQ(serial->source.find("__shared__"), std::string::npos);
}

TEST(CudaKernelSource, BakesShapesIntoTheSource) {
  TensorType a{ElementType::F32, {2, 1, 3}}, b{ElementType::F32, {4, 1}},
      out{ElementType::F32, {2, 4, 3}};
  Launch launch{Kernel::Add, {a, b}, out, {}};
  KernelCall call = launch.call();
  StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->threads, 24);
  EXPECT_NE(kernel->source.find("if (i >= 24LL) return;"), std::string::npos);
  EXPECT_NE(kernel->source.find("r % 4LL"), std::string::npos)
      << kernel->source;
}

TEST(KernelCache, CompilesOnceAndWritesTheDiskCache) {
  if (!nvrtcUnavailableReason().empty())
    GTEST_SKIP() << "NVRTC is not available: " << nvrtcUnavailableReason();
  std::filesystem::path dir =
      ownTempPath("gplace-kernel-cache-once");
  std::filesystem::remove_all(dir);
  setenv("GPLACE_KERNEL_CACHE_DIR", dir.c_str(), 1);
  TensorType t{ElementType::F32, {12345}};
  Launch launch{Kernel::Exp, {t}, t, {}};
  KernelCall call = launch.call();
  StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
  ASSERT_TRUE(kernel);
  KernelCacheStats before = kernelCacheStats();
  ASSERT_TRUE(compileCudaKernel(*kernel, "sm_80"));
  ASSERT_TRUE(compileCudaKernel(*kernel, "sm_80"));
  KernelCacheStats after = kernelCacheStats();
  EXPECT_EQ(after.compiles, before.compiles + 1);
  EXPECT_EQ(after.memoryHits, before.memoryHits + 1);
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().extension(), ".ptx");
    EXPECT_NE(entry.path().filename().string().find("gplace_kernel-sm_80-"),
              std::string::npos);
    ++files;
  }
  EXPECT_EQ(files, 1);
  // Another architecture is another entry.
  ASSERT_TRUE(compileCudaKernel(*kernel, "sm_90"));
  EXPECT_EQ(kernelCacheStats().compiles, before.compiles + 2);
  std::filesystem::remove_all(dir);
}

TEST(KernelCache, AnUnusableDirectoryIsNotAnError) {
  if (!nvrtcUnavailableReason().empty())
    GTEST_SKIP() << "NVRTC is not available: " << nvrtcUnavailableReason();
  std::filesystem::path file =
      ownTempPath("gplace-not-a-directory");
  std::ofstream(file) << "x";
  setenv("GPLACE_KERNEL_CACHE_DIR", file.c_str(), 1);
  TensorType t{ElementType::F32, {777}};
  Launch launch{Kernel::Tanh, {t}, t, {}};
  KernelCall call = launch.call();
  StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
  ASSERT_TRUE(kernel);
  StatusOr<std::string> ptx = compileCudaKernel(*kernel, "sm_90");
  EXPECT_TRUE(ptx) << ptx.status().message();
  std::filesystem::remove(file);
}

TEST(KernelCache, CompileErrorsCarryNvrtcsLog) {
  if (!nvrtcUnavailableReason().empty())
    GTEST_SKIP() << "NVRTC is not available: " << nvrtcUnavailableReason();
  CudaKernelSource broken;
  broken.source = "extern \"C\" __global__ void gplace_kernel() { oops; }";
  StatusOr<std::string> ptx = compileCudaKernel(broken, "sm_90");
  ASSERT_FALSE(ptx);
  EXPECT_NE(ptx.status().message().find("NVRTC could not compile"),
            std::string::npos);
  EXPECT_NE(ptx.status().message().find("oops"), std::string::npos);
  EXPECT_FALSE(compileCudaKernel(broken, "gfx90a"));
}

TEST(CudaDiscovery, WithoutADriverSaysWhyInOneLine) {
  DeviceManager devices({0, 0});
  CudaDiscovery cuda = addCudaDevices(devices, {});
  EXPECT_EQ(cuda.note.find('\n'), std::string::npos);
  if (cuda.gpus == 0) {
    EXPECT_EQ(cuda.note.rfind("CUDA: no GPU (", 0), 0u) << cuda.note;
    EXPECT_EQ(devices.devices().size(), 1u);
  } else {
    EXPECT_EQ(cuda.note.rfind("CUDA: ", 0), 0u) << cuda.note;
  }
}


/// A fusion group for generateFusedCudaKernel, with fake, distinct
/// addresses: input k lives at 0x1000 * (k + 1), output k at
/// 0x100000 * (k + 1).
struct FusedGroup {
  TensorType type;
  std::vector<TensorType> inputs;
  /// Per op: its kernel, operands (>= 0: inputs; < 0: -1 - op) and whether
  /// its value is stored.
  std::vector<std::tuple<Kernel, std::vector<int>, bool>> ops;

  static void *input(int k) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(0x1000 * (k + 1)));
  }
  static void *output(int k) {
    return reinterpret_cast<void *>(
        static_cast<uintptr_t>(0x100000 * (k + 1)));
  }
  FusedCall call() const {
    FusedCall fused;
    fused.type = type;
    for (size_t k = 0; k < inputs.size(); ++k)
      fused.inputs.push_back({input(k), &inputs[k]});
    for (const auto &[kernel, operands, stored] : ops) {
      FusedCall::Op op;
      op.kernel = kernel;
      op.operands = operands;
      if (stored) {
        op.output = fused.outputs.size();
        fused.outputs.push_back({output(op.output), &type});
      }
      fused.ops.push_back(op);
    }
    fused.label = "test";
    return fused;
  }
};

/// Every elementwise kernel of the op table in one group, over x, y (4x3), a
/// broadcast row (1x3) and a bias (3) from outside; the first value and the
/// last are stored.
FusedGroup everyElementwiseKernel(ElementType t) {
  FusedGroup group;
  group.type = {t, {4, 3}};
  group.inputs = {{t, {4, 3}}, {t, {4, 3}}, {t, {1, 3}}, {t, {3}}};
  int previous = 0; // x, then the last op's value.
  for (size_t k = 0; k < kNumKernels; ++k) {
    auto kernel = static_cast<Kernel>(k);
    if (!isElementwiseKernel(kernel))
      continue;
    std::vector<int> operands = {previous};
    if (kernelArity(kernel) == 2)
      operands.push_back(group.ops.size() % 3 + 1); // y, the row, the bias
    else if (kernelArity(kernel) < 0) // Variadic.
      operands.insert(operands.end(), {0, 1});
    group.ops.push_back({kernel, operands, group.ops.empty()});
    previous = -static_cast<int>(group.ops.size());
  }
  std::get<2>(group.ops.back()) = true;
  return group;
}

TEST_P(CudaKernels, FusedGroupsCompileWithNvrtcAndPtxas) {
  FusedGroup group = everyElementwiseKernel(GetParam());
  FusedCall fused = group.call();
  StatusOr<CudaKernelSource> kernel = generateFusedCudaKernel(fused);
  ASSERT_TRUE(kernel) << kernel.status().message();
  // x, y, the row and the bias, then the two stored values.
  EXPECT_EQ(kernel->numParameters, 6u);
  EXPECT_EQ(kernel->arguments,
            (std::vector<void *>{FusedGroup::input(0), FusedGroup::input(1),
                                 FusedGroup::input(2), FusedGroup::input(3),
                                 FusedGroup::output(0),
                                 FusedGroup::output(1)}));
  EXPECT_EQ(kernel->threads, 12);
  EXPECT_NE(kernel->source.find("__restrict__"), std::string::npos);
  // Each kernel's scalar function is pasted in.
  EXPECT_NE(kernel->source.find("gp_maximum(x0, x1)"), std::string::npos)
      << kernel->source;
  expectCompiles(*kernel);
}

TEST(CudaKernelSource, FusedGroupsLoadBeforeTheyStore) {
  // exp then neg of x, stored over x itself: pointers may alias, so no
  // __restrict__; x is loaded before the store.
  FusedGroup group;
  TensorType t{ElementType::F32, {8}};
  group.type = t;
  group.inputs = {t};
  group.ops = {{Kernel::Exp, {0}, false}, {Kernel::Neg, {-1}, true}};
  FusedCall fused = group.call();
  fused.outputs[0].data = FusedGroup::input(0);
  StatusOr<CudaKernelSource> kernel = generateFusedCudaKernel(fused);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_EQ(kernel->source.find("__restrict__"), std::string::npos)
      << kernel->source;
  EXPECT_LT(kernel->source.find("in0[i]"), kernel->source.find("out0[i] ="));
  EXPECT_EQ(kernel->arguments, (std::vector<void *>{FusedGroup::input(0),
                                                    FusedGroup::input(0)}));
}

TEST(CudaKernelSource, RefusesToFuseWhatDoesNotFuse) {
  TensorType t{ElementType::F32, {8}}, i32{ElementType::I32, {8}};
  FusedGroup softmax;
  softmax.type = t;
  softmax.inputs = {t};
  softmax.ops = {{Kernel::Exp, {0}, false}, {Kernel::Softmax, {-1}, true}};
  StatusOr<CudaKernelSource> kernel = generateFusedCudaKernel(softmax.call());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "gplace.softmax is not elementwise and does not fuse");
  FusedGroup ints;
  ints.type = i32;
  ints.inputs = {i32};
  ints.ops = {{Kernel::Neg, {0}, true}};
  kernel = generateFusedCudaKernel(ints.call());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(), "no GPU kernel for element type i32");
}

} // namespace
