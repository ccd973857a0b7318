//===- CostModelTest.cpp - op costs, profiles and the step estimate -------===//
//
// The cost model behind policy=auto and --gplace-estimate
// (gplace/Transforms/CostModel.h): FLOPs each op declares, a profile's
// round trip through its JSON file and its fallbacks, and one simulated
// step computed by hand.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace gplace;

namespace {

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() {
    context_.loadDialect<graph::GraphDialect, mlir::func::FuncDialect>();
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef text) {
    return mlir::parseSourceString<mlir::ModuleOp>(text, &context_);
  }

  /// The cost of the op named `name` in `module`.
  static OpCost costOf(mlir::ModuleOp module, llvm::StringRef name) {
    OpCost cost;
    module.walk([&](graph::PlacedOpInterface op) {
      if (auto attr = op->getAttrOfType<mlir::StringAttr>("name"))
        if (attr.getValue() == name)
          cost = getOpCost(op);
    });
    return cost;
  }

  mlir::MLIRContext context_;
};

TEST_F(CostModelTest, OpsDeclareTheirFlops) {
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(R"mlir(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %t: tensor<8x4xf32>,
             %image: tensor<1x5x5x1xf32>, %filter: tensor<3x3x1x2xf32>) {
  %m = gplace.matmul %a, %b {name = "mm"} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %n = gplace.matmul %t, %b transpose_a {name = "mm_t"} : (tensor<8x4xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %r = gplace.relu %a {name = "relu"} : tensor<4x8xf32>
  %c = gplace.conv2d %image, %filter strides = [1, 1, 1, 1] padding = "VALID" {name = "conv"} : tensor<1x5x5x1xf32>, tensor<3x3x1x2xf32> -> tensor<1x3x3x2xf32>
  %k = gplace.constant dense<1.0> : tensor<16xf32> {name = "const"}
  return
}
)mlir");
  ASSERT_TRUE(module);
  // 2·M·K·N, transposed or not.
  EXPECT_EQ(costOf(*module, "mm").flops, 2 * 4 * 8 * 2);
  EXPECT_EQ(costOf(*module, "mm_t").flops, 2 * 4 * 8 * 2);
  // Bytes: both operands and the result.
  EXPECT_EQ(costOf(*module, "mm").bytes, (32 + 16 + 8) * 4);
  EXPECT_TRUE(costOf(*module, "mm").runsKernel);
  // Elementwise: one per element.
  EXPECT_EQ(costOf(*module, "relu").flops, 32);
  // 18 outputs, each a 3x3x1 window: 2 per multiply-add.
  EXPECT_EQ(costOf(*module, "conv").flops, 2 * 18 * 9);
  // A constant runs no kernel: it takes no time.
  OpCost constant = costOf(*module, "const");
  EXPECT_FALSE(constant.runsKernel);
  EXPECT_EQ(constant.seconds({1e9, 1e9, 1e-6}), 0);
}

TEST_F(CostModelTest, OpSecondsAreARoofline) {
  OpCost cost{/*flops=*/2000, /*bytes=*/400, /*runsKernel=*/true};
  // Compute-bound: 2000 / 1000 s plus the launch.
  EXPECT_DOUBLE_EQ(cost.seconds({1000, 1000, 0.5}), 2.5);
  // Memory-bound: 400 / 100 s plus the launch.
  EXPECT_DOUBLE_EQ(cost.seconds({1e6, 100, 0.5}), 4.5);
}

TEST_F(CostModelTest, ProfileRoundTripsAndFallsBack) {
  DeviceName gpu0 = DeviceName::local(DeviceType::GPU, 0);
  DeviceName gpu1 = DeviceName::local(DeviceType::GPU, 1);
  DeviceName cpu = DeviceName::local(DeviceType::CPU, 0);
  CostProfile profile;
  profile.setDevice(gpu0.str(), {1e12, 2e11, 3e-6});
  profile.setLink(gpu0.str(), gpu1.str(), {4e10, 5e-6});

  llvm::SmallString<128> path;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("gplace-profile", "json", path));
  std::string error;
  ASSERT_TRUE(profile.save(path, &error)) << error;
  std::optional<CostProfile> loaded = CostProfile::load(path, &error);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(loaded) << error;

  // A full name's entry.
  DeviceRates rates = loaded->device(gpu0);
  EXPECT_EQ(rates.flopsPerSecond, 1e12);
  EXPECT_EQ(rates.bytesPerSecond, 2e11);
  EXPECT_EQ(rates.launchSeconds, 3e-6);
  // Another GPU: the GPU type's default.
  EXPECT_EQ(loaded->device(gpu1).flopsPerSecond, 20e12);
  EXPECT_EQ(loaded->device(cpu).flopsPerSecond, 100e9);
  // Links: the pair's entry, the types' default, the reverse direction
  // being a pair of its own.
  EXPECT_EQ(loaded->link(gpu0, gpu1).bytesPerSecond, 4e10);
  EXPECT_EQ(loaded->link(gpu1, gpu0).bytesPerSecond, 50e9);
  EXPECT_EQ(loaded->link(cpu, gpu0).bytesPerSecond, 20e9);
  // Between tasks: the network.
  std::optional<DeviceName> remote =
      DeviceName::parse("/job:worker/replica:0/task:1/device:GPU:0");
  ASSERT_TRUE(remote);
  EXPECT_EQ(loaded->link(gpu0, *remote).bytesPerSecond, 10e9);
}

TEST_F(CostModelTest, StepEstimateByHand) {
  // x (128 bytes) goes from the host to GPU:0, the matmul runs there, its
  // result (32 bytes) comes back.
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(R"mlir(
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %w = gplace.constant dense<1.0> : tensor<8x2xf32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  %y = gplace.matmul %x, %w {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
)mlir");
  ASSERT_TRUE(module);
  DeviceName gpu = DeviceName::local(DeviceType::GPU, 0);
  DeviceName cpu = DeviceName::local(DeviceType::CPU, 0);
  DeviceSet devices;
  devices.add(gpu);
  devices.add(cpu);
  CostProfile profile;
  profile.setDevice("GPU", {1e9, 1e9, 1e-6});
  profile.setLink("CPU", "GPU", {1e9, 1e-6});
  profile.setLink("GPU", "CPU", {1e9, 2e-6});
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  mlir::FailureOr<StepEstimate> step = estimateStep(func, devices, profile);
  ASSERT_TRUE(mlir::succeeded(step));
  double copyIn = 1e-6 + 128 / 1e9;
  // 128 flops, 224 bytes: memory-bound.
  double matmul = 1e-6 + 224 / 1e9;
  double copyOut = 2e-6 + 32 / 1e9;
  EXPECT_NEAR(step->stepSeconds, copyIn + matmul + copyOut, 1e-15);
  EXPECT_NEAR(step->busySeconds[0], matmul, 1e-15);
  EXPECT_EQ(step->busySeconds[1], 0);
  EXPECT_EQ(step->copiedInBytes[0], 128);
  EXPECT_EQ(step->copiedInBytes[1], 32);
}

TEST_F(CostModelTest, StepEstimateNeedsPlacedOps) {
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(module);
  DeviceSet devices;
  devices.add(DeviceName::local(DeviceType::CPU, 0));
  std::string message;
  mlir::ScopedDiagnosticHandler handler(&context_, [&](mlir::Diagnostic &d) {
    message = d.str();
    return mlir::success();
  });
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  EXPECT_TRUE(mlir::failed(estimateStep(func, devices, CostProfile())));
  EXPECT_NE(message.find("no assigned device of the device set"),
            std::string::npos)
      << message;
}

} // namespace
