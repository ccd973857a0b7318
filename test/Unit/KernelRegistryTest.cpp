//===- KernelRegistryTest.cpp - the kernel registry and policies ----------===//

#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/Backends.h"
#include "gplace/Support/Kernel.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/PlacementPolicy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

using namespace gplace;

namespace {

TEST(KernelRegistry, CoversExactlyTheDialectsOps) {
  mlir::MLIRContext context;
  context.loadDialect<graph::GraphDialect>();
  std::set<std::string> dialectOps, registryOps;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == "gplace")
      dialectOps.insert(name.getStringRef().str());
  for (const KernelDef &def : KernelRegistry::global().entries())
    registryOps.insert(std::string(def.op));
  // gplace.gradients and gplace.all_reduce never run: --gplace-differentiate
  // and --gplace-lower-all-reduce replace them before placement.
  EXPECT_EQ(dialectOps.erase("gplace.gradients"), 1u);
  EXPECT_EQ(dialectOps.erase("gplace.all_reduce"), 1u);
  // gplace.yield ends the regions of gplace.if and gplace.while, which
  // --gplace-outline-control-flow turns into functions' returns.
  EXPECT_EQ(dialectOps.erase("gplace.yield"), 1u);
  // The differences, named (the sets themselves print truncated).
  std::vector<std::string> withoutKernel, notInDialect;
  std::set_difference(dialectOps.begin(), dialectOps.end(),
                      registryOps.begin(), registryOps.end(),
                      std::back_inserter(withoutKernel));
  std::set_difference(registryOps.begin(), registryOps.end(),
                      dialectOps.begin(), dialectOps.end(),
                      std::back_inserter(notInDialect));
  EXPECT_EQ(withoutKernel, std::vector<std::string>{});
  EXPECT_EQ(notInDialect, std::vector<std::string>{});
  EXPECT_FALSE(dialectOps.empty());
}

// The registry is the union of the registered backends' tables: every row
// of a backend names an op of the dialect, each device type's types are
// exactly its backends' union, and the emulated GPUs, which run the host
// kernels, claim nothing the host backend lacks.
TEST(KernelRegistry, IsTheUnionOfTheBackends) {
  const KernelRegistry &registry = KernelRegistry::global();
  for (const Backend &backend : kBackends) {
    SCOPED_TRACE(std::string(backend.name));
    EXPECT_GT(backend.numKernels, 0u);
    std::set<std::string_view> seen;
    for (size_t i = 0; i < backend.numKernels; ++i) {
      const BackendKernel &row = backend.kernels[i];
      EXPECT_TRUE(registry.lookup("gplace." + std::string(row.op)))
          << row.op << " is not an op of the dialect";
      EXPECT_TRUE(seen.insert(row.op).second) << row.op << " listed twice";
      EXPECT_NE(row.types, 0u) << row.op;
      EXPECT_EQ(row.types & ~kAllTypes, 0u) << row.op;
    }
  }
  for (const KernelDef &def : registry.entries()) {
    SCOPED_TRACE(std::string(def.op));
    std::string_view op = def.op.substr(std::string_view("gplace.").size());
    for (DeviceType device : {DeviceType::CPU, DeviceType::GPU}) {
      std::optional<Kernel> kernel = kernelFromMnemonic(op);
      bool elementwise = kernel && isElementwiseKernel(*kernel);
      unsigned expected =
          def.typeless ? 0 : registeredTypes(op, elementwise, device);
      unsigned got = 0;
      for (ElementType type : device == DeviceType::GPU ? def.gpu : def.cpu)
        got |= typeBit(type);
      EXPECT_EQ(got, expected);
    }
    std::optional<Kernel> kernel = kernelFromMnemonic(op);
    bool elementwise = kernel && isElementwiseKernel(*kernel);
    unsigned emulated = kEmulatedGpuBackend.types(op, elementwise);
    EXPECT_EQ(emulated & ~kHostBackend.types(op, elementwise), 0u)
        << "the emulated GPUs claim types the host kernels do not run";
  }
}

// A backend's row with a condition on the op's attributes
// (BackendKernel::unless): cuDNN's GRU needs linear_before_reset, so
// gplace.cudnn_rnn and its gradient have a GPU kernel for LSTMs and such
// GRUs only, and are asked per op.
TEST(KernelRegistry, KernelsThatDependOnAttributes) {
  const KernelRegistry &registry = KernelRegistry::global();
  using Attributes = std::map<std::string, std::string>;
  auto lookup = [](Attributes attributes) {
    return KernelRegistry::AttributeLookup(
        [attributes](std::string_view name) -> std::optional<std::string> {
          auto it = attributes.find(std::string(name));
          if (it == attributes.end())
            return std::nullopt;
          return it->second;
        });
  };
  KernelRegistry::AttributeLookup gru =
      lookup({{"rnn_mode", "gru"}, {"direction", "forward"}});
  KernelRegistry::AttributeLookup gruLinearBeforeReset =
      lookup({{"rnn_mode", "gru"}, {"linear_before_reset", ""}});
  KernelRegistry::AttributeLookup lstm = lookup({{"rnn_mode", "lstm"}});
  EXPECT_FALSE(registry.dependsOnAttributes("gplace.matmul"));
  for (const char *op : {"gplace.cudnn_rnn", "gplace.cudnn_rnn_backprop"}) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(registry.dependsOnAttributes(op));
    EXPECT_FALSE(
        registry.hasKernel(op, ElementType::F32, DeviceType::GPU, &gru));
    EXPECT_TRUE(registry.hasKernel(op, ElementType::F32, DeviceType::GPU,
                                   &gruLinearBeforeReset));
    EXPECT_TRUE(
        registry.hasKernel(op, ElementType::F32, DeviceType::GPU, &lstm));
    EXPECT_TRUE(
        registry.hasKernel(op, ElementType::F32, DeviceType::CPU, &gru));
    // Without attributes, the element types alone.
    EXPECT_TRUE(registry.hasKernel(op, ElementType::F32, DeviceType::GPU));
    EXPECT_FALSE(
        registry.hasKernel(op, ElementType::F16, DeviceType::GPU, &lstm));
  }
  // The syntax: a conjunction of name=value, name and !name.
  EXPECT_TRUE(
      KernelRegistry::meets("a=x,b,!c", lookup({{"a", "x"}, {"b", ""}})));
  EXPECT_FALSE(KernelRegistry::meets(
      "a=x,b,!c", lookup({{"a", "x"}, {"b", ""}, {"c", ""}})));
  EXPECT_FALSE(KernelRegistry::meets("a=x,b", lookup({{"a", "x"}})));
  EXPECT_FALSE(KernelRegistry::meets("a=x", lookup({{"a", "y"}})));
  EXPECT_FALSE(KernelRegistry::meets("a=x", lookup({})));
  EXPECT_FALSE(KernelRegistry::meets("", lookup({})));
  // Every backend's condition has non-empty terms.
  for (const Backend &backend : kBackends)
    for (size_t i = 0; i < backend.numKernels; ++i) {
      std::string_view unless = backend.kernels[i].unless;
      if (unless.empty())
        continue;
      SCOPED_TRACE(std::string(backend.kernels[i].op));
      EXPECT_EQ(unless.find(",,"), std::string_view::npos);
      EXPECT_NE(unless.front(), ',');
      EXPECT_NE(unless.back(), ',');
      EXPECT_EQ(unless.find("!,"), std::string_view::npos);
    }
}

TEST(KernelRegistry, IntegerAndBoolOpsHaveNoGpuKernel) {
  const KernelRegistry &registry = KernelRegistry::global();
  for (const KernelDef &def : registry.entries()) {
    if (def.typeless)
      continue;
    for (ElementType type :
         {ElementType::I32, ElementType::I64, ElementType::I1})
      EXPECT_FALSE(registry.hasKernel(def.op, type, DeviceType::GPU))
          << def.op << " " << elementTypeName(type);
    // Every op has a CPU kernel: for f32, or for the integer or bool
    // result it makes (argmax, equal); but the composite ops, which
    // --gplace-decompose replaces before placement, have none.
    bool composite = llvm::is_contained(
        {"gplace.elu", "gplace.selu", "gplace.hard_sigmoid",
         "gplace.log_softmax", "gplace.softmax_2d", "gplace.log_softmax_2d",
         "gplace.gemm", "gplace.layer_norm", "gplace.celu",
         "gplace.hard_swish", "gplace.thresholded_relu", "gplace.shrink"},
        def.op);
    if (composite) {
      for (ElementType type : {ElementType::F32, ElementType::F16,
                               ElementType::BF16, ElementType::F64})
        EXPECT_FALSE(registry.hasKernel(def.op, type, DeviceType::CPU))
            << def.op;
      continue;
    }
    EXPECT_TRUE(registry.hasKernel(def.op, ElementType::F32, DeviceType::CPU) ||
                registry.hasKernel(def.op, ElementType::I64, DeviceType::CPU) ||
                registry.hasKernel(def.op, ElementType::I1, DeviceType::CPU))
        << def.op;
  }
}

TEST(KernelRegistry, Lookups) {
  const KernelRegistry &registry = KernelRegistry::global();
  EXPECT_TRUE(
      registry.hasKernel("gplace.matmul", ElementType::F32, DeviceType::GPU));
  EXPECT_TRUE(
      registry.hasKernel("gplace.matmul", ElementType::I32, DeviceType::CPU));
  EXPECT_FALSE(
      registry.hasKernel("gplace.matmul", ElementType::I1, DeviceType::CPU));
  // Casts between float types run on GPUs; a cast whose operand or result
  // is an integer asks for the integer type (getKernelElementType), which
  // GPUs lack: the seeds' tf.cast stays on the CPU.
  EXPECT_TRUE(
      registry.hasKernel("gplace.cast", ElementType::BF16, DeviceType::GPU));
  EXPECT_FALSE(
      registry.hasKernel("gplace.cast", ElementType::I32, DeviceType::GPU))
      << "the seeds: tf.cast has only a CPU kernel";
  EXPECT_TRUE(
      registry.hasKernel("gplace.cast", ElementType::I32, DeviceType::CPU));
  EXPECT_TRUE(
      registry.hasKernel("gplace.group", std::nullopt, DeviceType::GPU));
  EXPECT_FALSE(
      registry.hasKernel("gplace.matmul", std::nullopt, DeviceType::CPU));
  EXPECT_FALSE(
      registry.hasKernel("gplace.conv3d", ElementType::F32, DeviceType::CPU));
  EXPECT_EQ(registry.lookup("gplace.conv3d"), nullptr);
  EXPECT_TRUE(
      registry.hasKernel("gplace.variable", ElementType::I32, DeviceType::CPU));
  EXPECT_FALSE(
      registry.hasKernel("gplace.variable", ElementType::I32, DeviceType::GPU));
  EXPECT_TRUE(
      registry.hasKernel("gplace.variable", ElementType::F32, DeviceType::GPU));
}

TEST(KernelRegistry, ElementTypeNamesRoundTrip) {
  for (int i = 0; i < kNumElementTypes; ++i) {
    auto type = static_cast<ElementType>(i);
    EXPECT_EQ(parseElementType(elementTypeName(type)), type);
  }
  EXPECT_EQ(parseElementType("i8"), ElementType::I8);
  EXPECT_EQ(parseElementType("ui32"), ElementType::UI32);
  EXPECT_FALSE(parseElementType("ui64"));
  EXPECT_FALSE(parseElementType(""));
}

TEST(KernelRegistry, PrintsOneLinePerOp) {
  std::ostringstream os;
  KernelRegistry::global().print(os);
  std::string text = os.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
            static_cast<long>(KernelRegistry::global().entries().size() + 1));
  EXPECT_NE(text.find("gplace.cast"), std::string::npos);
}

PolicyOp variableOp() {
  PolicyOp op;
  op.name = "w";
  op.tensorFlowType = "VarHandleOp";
  op.opName = "gplace.variable";
  op.isVariable = true;
  return op;
}

/// A registry with the built-in policies.
const PolicyRegistry &builtins() {
  static const PolicyRegistry registry = [] {
    PolicyRegistry r;
    registerBuiltinPolicies(r);
    return r;
  }();
  return registry;
}

TEST(PolicyRegistry, BuiltinsAreRegistered) {
  EXPECT_EQ(builtins().names(),
            (std::vector<std::string>{"idle-gpu", "round-robin-gpu",
                                      "variables-on-cpu"}));
  EXPECT_FALSE(builtins().summary("variables-on-cpu").empty());
  EXPECT_FALSE(builtins().create("busy-gpu"));
}

TEST(PolicyRegistry, TheGraphDialectHasTheBuiltins) {
  mlir::MLIRContext context;
  auto *dialect = context.getOrLoadDialect<graph::GraphDialect>();
  EXPECT_EQ(dialect->getPolicies().names(), builtins().names());
  PolicyRegistry mine;
  dialect->setPolicies(&mine);
  EXPECT_TRUE(dialect->getPolicies().names().empty());
}

TEST(PolicyRegistry, VariablesOnCpu) {
  PolicyFn policy = *builtins().create("variables-on-cpu");
  DeviceSet devices = DeviceSet::localhost(1, 2);
  EXPECT_EQ(policy(variableOp(), devices), "/cpu:0");
  PolicyOp matmul;
  matmul.tensorFlowType = "MatMul";
  EXPECT_FALSE(policy(matmul, devices));
}

TEST(PolicyRegistry, RoundRobinStartsOverForEachInstance) {
  DeviceSet devices = DeviceSet::localhost(1, 2);
  PolicyFn first = *builtins().create("round-robin-gpu");
  EXPECT_EQ(first(variableOp(), devices),
            "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(first(variableOp(), devices),
            "/job:localhost/replica:0/task:0/device:GPU:1");
  EXPECT_EQ(first(variableOp(), devices),
            "/job:localhost/replica:0/task:0/device:GPU:0");
  PolicyFn second = *builtins().create("round-robin-gpu");
  EXPECT_EQ(second(variableOp(), devices),
            "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_FALSE(second(variableOp(), DeviceSet::localhost(1, 0)))
      << "no GPU: no request";
}

TEST(PolicyRegistry, IdleGpuRanksTheLoadsOfTheDeviceSet) {
  PolicyFn policy = *builtins().create("idle-gpu");
  PolicyOp matmul;
  matmul.tensorFlowType = "MatMul";
  DeviceSet devices;
  devices.add(DeviceName::local(DeviceType::CPU, 0));
  // GPU:0 busy, GPU:1 idle with less free memory than GPU:2.
  int64_t free[] = {70000, 1000, 5000};
  int processes[] = {1, 0, 0};
  for (int i = 0; i < 3; ++i) {
    DeviceAttributes attributes;
    attributes.load = GpuLoad{processes[i], free[i], 0};
    devices.add(DeviceName::local(DeviceType::GPU, i), attributes);
  }
  EXPECT_EQ(policy(matmul, devices),
            "/job:localhost/replica:0/task:0/device:GPU:2");
  EXPECT_FALSE(policy(variableOp(), devices)) << "matmuls only";
  EXPECT_FALSE(policy(matmul, DeviceSet::localhost(1, 2)))
      << "no loads known: no request";
}

TEST(PolicyRegistry, AddRejectsDuplicatesAndEmptyNames) {
  PolicyRegistry registry;
  auto none = [](const PolicyOp &, const DeviceSet &) {
    return std::optional<std::string>();
  };
  EXPECT_TRUE(registry.addStateless("mine", "", none));
  EXPECT_FALSE(registry.addStateless("mine", "", none));
  EXPECT_FALSE(registry.addStateless("", "", none));
  EXPECT_FALSE(registry.add("null", "", nullptr));
  EXPECT_EQ(registry.names(), std::vector<std::string>{"mine"});
}

TEST(PolicyRegistry, LoadFailuresSayWhy) {
  PolicyRegistry registry;
  std::string error;
  EXPECT_FALSE(loadPolicyPlugin("/nonexistent/libx.so", registry, &error));
  EXPECT_NE(error.find("cannot load placement policy plugin "
                       "'/nonexistent/libx.so'"),
            std::string::npos)
      << error;
}

TEST(OpNames, TensorFlowDefaults) {
  mlir::MLIRContext context;
  context.loadDialect<graph::GraphDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func @f(%x: tensor<2x2xf32>) {
      %0 = gplace.constant dense<1.0> : tensor<2x2xf32>
      %1 = gplace.constant dense<1.0> : tensor<2x2xf32> {name = "Const_1"}
      %2 = gplace.constant dense<1.0> : tensor<2x2xf32>
      %3 = gplace.mul %0, %2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      %4 = gplace.matmul %3, %1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      %5 = gplace.matmul %4, %4 {name = "MatMul"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      %6 = gplace.div %5, %5 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      return
    })mlir",
                                                        &context);
  ASSERT_TRUE(module);
  EXPECT_EQ(graph::getOpNames(*module),
            (std::vector<std::string>{"Const", "Const_1", "Const_2", "mul",
                                      "MatMul_1", "MatMul", "truediv"}));
}

// An empty `name` is no name: the op gets TensorFlow's default, as
// PlacedOpInterface::getUserName reads it. getOpNameParts builds the same
// names, a string only where asked.
TEST(OpNames, EmptyNameAndParts) {
  mlir::MLIRContext context;
  context.loadDialect<graph::GraphDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func @f(%x: tensor<2xf32>) {
      %0 = gplace.tanh %x {name = ""} : tensor<2xf32>
      %1 = gplace.tanh %0 {name = "Tanh_1"} : tensor<2xf32>
      %2 = gplace.tanh %1 : tensor<2xf32>
      return
    })mlir",
                                                        &context);
  ASSERT_TRUE(module);
  std::vector<std::string> names = graph::getOpNames(*module);
  EXPECT_EQ(names, (std::vector<std::string>{"Tanh", "Tanh_1", "Tanh_2"}));
  std::vector<graph::OpName> parts = graph::getOpNameParts(*module);
  ASSERT_EQ(parts.size(), names.size());
  for (size_t i = 0; i < parts.size(); ++i)
    EXPECT_EQ(parts[i].str(), names[i]);
  EXPECT_EQ(parts[2].text, "Tanh");
  EXPECT_EQ(parts[2].suffix, 2u);
}

} // namespace
