//===- ConcurrentExecutorsTest.cpp - two compilers and executors at once --===//
//
// Nothing in the compiler or the runtime is process-global: two tenants in
// two threads, each with its own context, placement policy, machine (the
// CPU alone; the CPU and two emulated GPUs) and transport, compile and run
// a graph, and run a plan that sends a tensor to itself through its
// transport, at the same time, many times over. Each gets its own placement and its own results,
// and each transport carries exactly its own tenant's messages (what
// Python bindings, which host several sessions in one process, need).
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Transport.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Target/Plan/PlanExport.h"
#include "gplace/Tooling/Compile.h"
#include "gplace/Tooling/Machine.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

using namespace gplace;
namespace rt = gplace::runtime;

namespace {

/// A one-rank cluster: what rank 0 sends to itself under a tag, it
/// receives under that tag.
class LoopbackTransport : public rt::Transport {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  rt::Status send(int peer, int64_t tag, const void *data,
                  int64_t bytes) override {
    if (peer != 0)
      return rt::Status::invalidArgument("no rank " + std::to_string(peer));
    std::lock_guard<std::mutex> lock(mutex_);
    const char *begin = static_cast<const char *>(data);
    queues_[tag].emplace_back(begin, begin + bytes);
    ++sends;
    ready_.notify_all();
    return rt::Status::ok();
  }
  rt::Status recv(int peer, int64_t tag, void *data, int64_t bytes) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ready_.wait_for(lock, std::chrono::seconds(30),
                         [&] { return !queues_[tag].empty(); }))
      return rt::Status::unavailable("nothing arrived under tag " +
                                     std::to_string(tag));
    std::vector<char> message = std::move(queues_[tag].front());
    queues_[tag].pop_front();
    if (static_cast<int64_t>(message.size()) != bytes)
      return rt::Status::unavailable("a message of another size");
    std::memcpy(data, message.data(), message.size());
    return rt::Status::ok();
  }
  rt::Status flush() override { return rt::Status::ok(); }
  rt::StatusOr<std::vector<std::string>>
  allGather(const std::string &value) override {
    return std::vector<std::string>{value};
  }
  [[noreturn]] void abort(int code) override { std::abort(); }

  int sends = 0; ///< Messages sent, read after the tenant's runs.

private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::map<int64_t, std::deque<std::vector<char>>> queues_;
};

// x * w, placed by the tenant's policy.
const char *const kGraph = R"mlir(
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = gplace.matmul %x, %w {name = "product"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
)mlir";

// x sent to the tenant itself and received back, as --gplace-partition-tasks
// leaves a send and a recv (placed), lowered to a plan directly.
const char *const kLoopback = R"mlir(
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
  func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %done = gplace.send %x {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", peer = 0, tag = 7} : tensor<2x2xf32>
    %z = gplace.recv after(%done) {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", peer = 0, tag = 7} : tensor<2x2xf32>
    return %z : tensor<2x2xf32>
  }
}
)mlir";

/// The plan of kLoopback, lowered without placement.
mlir::FailureOr<rt::Plan> loopbackPlan(mlir::MLIRContext &context) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kLoopback, &context);
  if (!module)
    return mlir::failure();
  mlir::PassManager pm(&context);
  buildLowerToPlanPipeline(pm);
  if (mlir::failed(pm.run(*module)))
    return mlir::failure();
  auto programs = module->getOps<plan::ProgramOp>();
  if (programs.empty())
    return mlir::failure();
  return exportPlan(*module, (*programs.begin()).getSymName());
}

/// What one tenant saw.
struct Tenant {
  int gpus = 0;           ///< Emulated GPUs of its machine.
  std::string target;     ///< Its policy's device for the matmul.
  float scale = 1;        ///< Its input: scale * [[1, 0], [0, 1]].
  std::string error;      ///< The first failure, if any.
  std::string placement;  ///< The device the matmul's step runs on.
  std::vector<float> result;   ///< The matmul's.
  std::vector<float> received; ///< What came back through the transport.
  int runs = 0;
  LoopbackTransport transport;
};

void runTenant(Tenant &t) {
  mlir::DialectRegistry registry;
  registry.insert<graph::GraphDialect, plan::PlanDialect,
                  mlir::func::FuncDialect>();
  mlir::func::registerInlinerExtension(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  PolicyRegistry policies;
  std::string target = t.target;
  policies.addStateless(
      "tenant", "the matmul on this tenant's device",
      [target](const PolicyOp &op,
               const DeviceSet &) -> std::optional<std::string> {
        if (op.tensorFlowType == "MatMul")
          return target;
        return std::nullopt;
      });
  context.getLoadedDialect<graph::GraphDialect>()->setPolicies(&policies);
  tooling::MachineOptions machineOptions;
  machineOptions.emulatedGpus = t.gpus;
  auto machine = tooling::Machine::create(machineOptions);
  if (!machine) {
    t.error = machine.status().message();
    return;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kGraph, &context);
  if (!module) {
    t.error = "parse: " + diagnostics;
    return;
  }
  gplace::PipelineOptions compile;
  compile.policy = "tenant";
  mlir::FailureOr<rt::Plan> plan =
      tooling::compileToPlan(*module, (*machine)->deviceSet(), compile);
  if (mlir::failed(plan)) {
    t.error = "compile: " + diagnostics;
    return;
  }
  for (const rt::Step &step : plan->steps)
    if (step.label.find("product") != std::string::npos)
      t.placement = plan->devices[step.device].name;
  auto executor = rt::Executor::create(std::move(*plan), (*machine)->devices());
  if (!executor) {
    t.error = "load: " + executor.status().message();
    return;
  }
  mlir::FailureOr<rt::Plan> loopback = loopbackPlan(context);
  if (mlir::failed(loopback)) {
    t.error = "loopback: " + diagnostics;
    return;
  }
  rt::ExecutorOptions options;
  options.transport = &t.transport;
  auto sender =
      rt::Executor::create(std::move(*loopback), (*machine)->devices(), options);
  if (!sender) {
    t.error = "load: " + sender.status().message();
    return;
  }
  rt::HostTensor x(rt::TensorType{ElementType::F32, {2, 2}});
  float values[4] = {t.scale, 0, 0, t.scale};
  std::memcpy(x.data.data(), values, sizeof(values));
  for (int i = 0; i < 25; ++i) {
    auto results = (*executor)->run({x});
    auto received = (*sender)->run({x});
    if (!results || !received) {
      t.error = "run: " + (results ? received.status() : results.status())
                              .message();
      return;
    }
    const float *out = reinterpret_cast<const float *>((*results)[0].data.data());
    t.result.assign(out, out + 4);
    out = reinterpret_cast<const float *>((*received)[0].data.data());
    t.received.assign(out, out + 4);
    ++t.runs;
  }
}

TEST(ConcurrentExecutors, TwoTenantsInTwoThreads) {
  // compileToPlan applies the pass manager's command-line options.
  static bool registered = [] {
    mlir::registerPassManagerCLOptions();
    mlir::registerDefaultTimingManagerCLOptions();
    return true;
  }();
  (void)registered;
  Tenant cpu, gpus;
  cpu.target = "/cpu:0";
  cpu.scale = 2;
  gpus.gpus = 2;
  gpus.target = "/gpu:1";
  gpus.scale = -1;
  std::thread first([&] { runTenant(cpu); });
  std::thread second([&] { runTenant(gpus); });
  first.join();
  second.join();
  ASSERT_EQ(cpu.error, "");
  ASSERT_EQ(gpus.error, "");
  EXPECT_EQ(cpu.placement, "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(gpus.placement, "/job:localhost/replica:0/task:0/device:GPU:1");
  EXPECT_EQ(cpu.result, (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(gpus.result, (std::vector<float>{-1, -2, -3, -4}));
  EXPECT_EQ(cpu.received, (std::vector<float>{2, 0, 0, 2}));
  EXPECT_EQ(gpus.received, (std::vector<float>{-1, 0, 0, -1}));
  // Each transport carried its own tenant's 25 messages, no more.
  EXPECT_EQ(cpu.runs, 25);
  EXPECT_EQ(gpus.runs, 25);
  EXPECT_EQ(cpu.transport.sends, 25);
  EXPECT_EQ(gpus.transport.sends, 25);
}

// Without a transport a send is an error naming what it needs, for that
// executor alone.
TEST(ConcurrentExecutors, NoTransportIsAnError) {
  mlir::DialectRegistry registry;
  registry.insert<graph::GraphDialect, plan::PlanDialect,
                  mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  PolicyRegistry policies;
  context.getLoadedDialect<graph::GraphDialect>()->setPolicies(&policies);
  auto machine = tooling::Machine::create({});
  ASSERT_TRUE(static_cast<bool>(machine));
  mlir::FailureOr<rt::Plan> plan = loopbackPlan(context);
  ASSERT_TRUE(mlir::succeeded(plan));
  auto executor = rt::Executor::create(std::move(*plan), (*machine)->devices());
  ASSERT_TRUE(static_cast<bool>(executor));
  rt::HostTensor x(rt::TensorType{ElementType::F32, {2, 2}});
  auto results = (*executor)->run({x});
  ASSERT_FALSE(static_cast<bool>(results));
  EXPECT_NE(results.status().message().find("gplace.send needs a cluster"),
            std::string::npos)
      << results.status().message();
}

} // namespace

// The kernels' cache (oneDNN's primitives) is the executor's own, not the
// process's: an object is made once per key and cache, a failed make
// stores nothing, and two caches share nothing.
TEST(ConcurrentExecutors, KernelCacheIsPerExecutor) {
  rt::KernelCache first, second;
  int made = 0;
  auto make = [&]() -> rt::StatusOr<std::shared_ptr<void>> {
    ++made;
    return std::shared_ptr<void>(std::make_shared<int>(made));
  };
  auto a = first.getOrMake("conv|1x2", make);
  auto b = first.getOrMake("conv|1x2", make);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(made, 1);
  auto c = second.getOrMake("conv|1x2", make);
  ASSERT_TRUE(c);
  EXPECT_NE(a->get(), c->get());
  EXPECT_EQ(made, 2);
  auto failed = first.getOrMake(
      "pool|3", []() -> rt::StatusOr<std::shared_ptr<void>> {
        return rt::Status::internal("unimplemented");
      });
  EXPECT_FALSE(failed);
  EXPECT_EQ(failed.status().message(), "unimplemented");
  EXPECT_EQ(first.size(), 1u);
  EXPECT_EQ(second.size(), 1u);
}
