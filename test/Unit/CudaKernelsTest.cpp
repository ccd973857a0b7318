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

  KernelCall call() const {
    KernelCall call;
    call.kernel = kernel;
    call.params = &params;
    for (const TensorType &type : inputs)
      call.inputs.push_back({nullptr, &type});
    call.outputs.push_back({nullptr, &output});
    return call;
  }
};

std::vector<Launch> everyLaunch(ElementType t) {
  auto T = [t](std::vector<int64_t> shape) { return TensorType{t, shape}; };
  std::vector<Launch> launches;
  for (Kernel k : {Kernel::Add, Kernel::Sub, Kernel::Mul, Kernel::Div,
                   Kernel::Maximum}) {
    launches.push_back({k, {T({4, 3}), T({4, 3})}, T({4, 3}), {}});
    launches.push_back({k, {T({2, 1, 3}), T({4, 1})}, T({2, 4, 3}), {}});
  }
  for (Kernel k : {Kernel::Neg, Kernel::Exp, Kernel::Log, Kernel::Tanh,
                   Kernel::Sigmoid, Kernel::Relu})
    launches.push_back({k, {T({5, 7})}, T({5, 7}), {}});
  launches.push_back(
      {Kernel::AddN, {T({8}), T({8}), T({8})}, T({8}), {}});
  launches.push_back({Kernel::BiasAdd, {T({4, 6}), T({6})}, T({4, 6}), {}});
  for (Kernel k : {Kernel::ReduceSum, Kernel::ReduceMean, Kernel::ReduceMax}) {
    KernelParams some, all;
    some.axes = {1};
    all.axes = {0, 1, 2};
    launches.push_back({k, {T({2, 3, 4})}, T({2, 4}), some});
    launches.push_back({k, {T({2, 3, 4})}, T({}), all});
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
    if (havePtxas)
      EXPECT_EQ(ptxas(*ptx), "") << kernel.source;
  }
}

TEST_P(CudaKernels, CompileWithNvrtcAndPtxas) {
  for (const Launch &launch : everyLaunch(GetParam())) {
    KernelCall call = launch.call();
    SCOPED_TRACE(std::string(kernelOpName(launch.kernel)) + " " +
                 launch.output.str());
    ASSERT_TRUE(isNvrtcKernel(launch.kernel));
    StatusOr<CudaKernelSource> kernel = generateCudaKernel(call);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_EQ(kernel->numParameters, launch.inputs.size() + 1);
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
  EXPECT_FALSE(isNvrtcKernel(Kernel::MatMul));
  EXPECT_FALSE(isNvrtcKernel(Kernel::Read));
  EXPECT_FALSE(isNvrtcKernel(Kernel::Cast));
  EXPECT_TRUE(isNvrtcKernel(Kernel::Softmax));
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


/// A run of launches for generateFusedCudaKernel, with fake, distinct
/// addresses: tensor k lives at 0x1000 * (k + 1).
struct FusedRun {
  std::vector<TensorType> tensors;
  std::vector<std::pair<Kernel, std::vector<int>>> calls; ///< Inputs, output.
  std::vector<bool> stored;
  KernelParams params;

  static void *address(int k) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(0x1000 * (k + 1)));
  }
  FusedCall call() const {
    FusedCall fused;
    for (const auto &[kernel, operands] : calls) {
      KernelCall call;
      call.kernel = kernel;
      call.params = &params;
      for (size_t i = 0; i + 1 < operands.size(); ++i)
        call.inputs.push_back({address(operands[i]), &tensors[operands[i]]});
      call.outputs.push_back(
          {address(operands.back()), &tensors[operands.back()]});
      fused.calls.push_back(call);
    }
    fused.stored = stored;
    fused.label = "test";
    return fused;
  }
};

/// Every fusible kernel in one run: x, y (4x3), a broadcast row (1x3) and a
/// bias (3) from outside; v0 is also read outside the run, v12 is the result.
FusedRun everyFusibleKernel(ElementType t) {
  FusedRun run;
  run.tensors = {{t, {4, 3}}, {t, {4, 3}}, {t, {1, 3}}, {t, {3}}};
  for (int k = 0; k < 13; ++k)
    run.tensors.push_back({t, {4, 3}});
  int x = 0, y = 1, row = 2, bias = 3;
  auto v = [](int k) { return 4 + k; };
  run.calls = {{Kernel::Add, {x, y, v(0)}},
               {Kernel::Sub, {v(0), row, v(1)}},
               {Kernel::Mul, {v(1), x, v(2)}},
               {Kernel::Div, {v(2), y, v(3)}},
               {Kernel::Maximum, {row, v(3), v(4)}},
               {Kernel::Neg, {v(4), v(5)}},
               {Kernel::Exp, {v(5), v(6)}},
               {Kernel::Log, {v(6), v(7)}},
               {Kernel::Tanh, {v(7), v(8)}},
               {Kernel::Sigmoid, {v(8), v(9)}},
               {Kernel::Relu, {v(9), v(10)}},
               {Kernel::AddN, {v(10), x, v(0), v(11)}},
               {Kernel::BiasAdd, {v(11), bias, v(12)}}};
  run.stored.assign(13, false);
  run.stored[0] = run.stored[12] = true;
  return run;
}

TEST_P(CudaKernels, FusedRunsCompileWithNvrtcAndPtxas) {
  FusedRun run = everyFusibleKernel(GetParam());
  FusedCall fused = run.call();
  StatusOr<CudaKernelSource> kernel = generateFusedCudaKernel(fused);
  ASSERT_TRUE(kernel) << kernel.status().message();
  // x, y, the row and the bias, then v0 and v12.
  EXPECT_EQ(kernel->numParameters, 6u);
  EXPECT_EQ(kernel->arguments,
            (std::vector<void *>{FusedRun::address(0), FusedRun::address(1),
                                 FusedRun::address(2), FusedRun::address(3),
                                 FusedRun::address(4), FusedRun::address(16)}));
  EXPECT_EQ(kernel->threads, 12);
  EXPECT_NE(kernel->source.find("__restrict__"), std::string::npos);
  expectCompiles(*kernel);
}

TEST(CudaKernelSource, FusedRunsLoadBeforeTheyStore) {
  // exp(x) written over x itself (the planner's only overlap in a run):
  // pointers may alias, so no __restrict__; x is loaded before the store.
  FusedRun run;
  TensorType t{ElementType::F32, {8}};
  run.tensors = {t, t, t};
  run.calls = {{Kernel::Exp, {0, 1}}, {Kernel::Neg, {1, 2}}};
  run.stored = {false, true};
  FusedCall fused = run.call();
  fused.calls[1].outputs[0].data = FusedRun::address(0);
  StatusOr<CudaKernelSource> kernel = generateFusedCudaKernel(fused);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_EQ(kernel->source.find("__restrict__"), std::string::npos)
      << kernel->source;
  EXPECT_LT(kernel->source.find("in0[i]"), kernel->source.find("out0[i] ="));
  EXPECT_EQ(kernel->arguments, (std::vector<void *>{FusedRun::address(0),
                                                    FusedRun::address(0)}));
}

TEST(CudaKernelSource, RefusesToFuseWhatDoesNotFuse) {
  TensorType t{ElementType::F32, {8}}, other{ElementType::F32, {4}},
      i32{ElementType::I32, {8}};
  FusedRun softmax;
  softmax.tensors = {t, t, t};
  softmax.calls = {{Kernel::Exp, {0, 1}}, {Kernel::Softmax, {1, 2}}};
  softmax.stored = {false, true};
  StatusOr<CudaKernelSource> kernel =
      generateFusedCudaKernel(softmax.call());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "gplace.softmax 8xf32 does not fuse into a kernel over 8xf32");
  FusedRun shapes;
  shapes.tensors = {t, t, other};
  shapes.calls = {{Kernel::Exp, {0, 1}}, {Kernel::Neg, {2, 2}}};
  shapes.stored = {true, true};
  kernel = generateFusedCudaKernel(shapes.call());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "gplace.neg 4xf32 does not fuse into a kernel over 8xf32");
  FusedRun ints;
  ints.tensors = {i32, i32};
  ints.calls = {{Kernel::Neg, {0, 1}}};
  ints.stored = {true};
  kernel = generateFusedCudaKernel(ints.call());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "no fused GPU kernel for element type i32");
}

} // namespace
