//===- Profile.cpp - measure the cost model's rates -----------------------===//

#include "gplace/Tooling/Profile.h"

#include "gplace/Runtime/Executor.h"
#include "gplace/Tooling/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// A function of `length` chained ops `op` on `shape` tensors, on `device`:
/// a constant, then `op` applied `length` times, and the result's sum.
std::string chain(llvm::StringRef device, llvm::StringRef shape,
                  llvm::StringRef op, unsigned length) {
  std::string type = "tensor<" + shape.str() + "xf32>";
  std::string text = "func.func @main() -> tensor<f32> {\n";
  text += "  %c = gplace.constant dense<1.0> : " + type + " {device = \"" +
          device.str() + "\"}\n";
  std::string last = "%c";
  for (unsigned i = 0; i < length; ++i) {
    std::string next = "%v" + std::to_string(i);
    if (op == "matmul")
      text += "  " + next + " = gplace.matmul " + last + ", %c {device = \"" +
              device.str() + "\"} : (" + type + ", " + type + ") -> " + type +
              "\n";
    else
      text += "  " + next + " = gplace.add " + last + ", %c {device = \"" +
              device.str() + "\"} : (" + type + ", " + type + ") -> " + type +
              "\n";
    last = next;
  }
  std::string axes = shape.contains('x') ? "[0, 1]" : "[0]";
  text += "  %s = gplace.reduce_sum " + last + " axes = " + axes +
          " {device = \"" + device.str() + "\"} : " + type +
          " -> tensor<f32>\n";
  text += "  return %s : tensor<f32>\n}\n";
  return text;
}

/// Compiles and runs `source`, returning the median seconds of a run.
rt::StatusOr<double> timeGraph(MLIRContext &context, Machine &machine,
                               const std::string &source, unsigned repeats) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return rt::Status::internal("cannot parse a profiling graph");
  PipelineOptions options;
  options.fuseElementwise = false;
  FailureOr<rt::Plan> plan =
      compileToPlan(*module, machine.deviceSet(), options);
  if (failed(plan))
    return rt::Status::internal("cannot compile a profiling graph");
  rt::StatusOr<std::unique_ptr<rt::Executor>> executor =
      rt::Executor::create(std::move(*plan), machine.devices(), {});
  if (!executor)
    return executor.status();
  std::vector<double> seconds;
  for (unsigned i = 0; i <= repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    rt::StatusOr<std::vector<rt::TensorRef>> run = (*executor)->runStaged();
    if (!run)
      return run.status();
    if (i > 0) // The first run warms up.
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
  }
  return median(seconds);
}

/// Seconds per op of a chain: the slope between lengths `a` and `b`.
rt::StatusOr<double> perOp(MLIRContext &context, Machine &machine,
                           llvm::StringRef device, llvm::StringRef shape,
                           llvm::StringRef op, unsigned a, unsigned b,
                           unsigned repeats) {
  rt::StatusOr<double> shortRun =
      timeGraph(context, machine, chain(device, shape, op, a), repeats);
  if (!shortRun)
    return shortRun.status();
  rt::StatusOr<double> longRun =
      timeGraph(context, machine, chain(device, shape, op, b), repeats);
  if (!longRun)
    return longRun.status();
  // Never zero or negative: noise on a fast device.
  return std::max((*longRun - *shortRun) / (b - a), 1e-9);
}

/// Median seconds of copying `bytes` from `from` to `to`.
rt::StatusOr<double> timeCopy(rt::Device &from, rt::Device &to, int64_t bytes,
                              unsigned repeats) {
  rt::StatusOr<void *> source = from.allocate(bytes);
  if (!source)
    return source.status();
  rt::StatusOr<void *> target = to.allocate(bytes);
  if (!target) {
    from.deallocate(*source, bytes);
    return target.status();
  }
  std::vector<double> seconds;
  rt::Status status = rt::Status::ok();
  for (unsigned i = 0; i <= repeats && status; ++i) {
    auto start = std::chrono::steady_clock::now();
    status = to.copyFrom(*target, from, *source, bytes, 0);
    if (status)
      status = to.synchronize();
    if (i > 0)
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
  }
  from.deallocate(*source, bytes);
  to.deallocate(*target, bytes);
  if (!status)
    return status;
  return median(seconds);
}

} // namespace

rt::StatusOr<CostProfile> gplace::tooling::measureProfile(MLIRContext &context,
                                                         Machine &machine,
                                                         unsigned repeats) {
  CostProfile profile;
  const auto &devices = machine.devices().devices();
  for (const auto &device : devices) {
    std::string name = device->fullName();
    // The graphs hold three tensors at once (the constant and two values
    // of the chain): each at most a quarter of the device's memory limit.
    int64_t limit = device->memoryLimit();
    int64_t side = 512, elements = 4194304;
    while (limit > 0 && side > 16 && side * side * 4 * 4 > limit)
      side /= 2;
    while (limit > 0 && elements > 1024 && elements * 4 * 4 > limit)
      elements /= 2;
    std::string square = std::to_string(side) + "x" + std::to_string(side);
    rt::StatusOr<double> matmul =
        perOp(context, machine, name, square, "matmul", 1, 5, repeats);
    if (!matmul)
      return matmul.status();
    rt::StatusOr<double> add = perOp(context, machine, name,
                                     std::to_string(elements), "add", 1, 5,
                                     repeats);
    if (!add)
      return add.status();
    rt::StatusOr<double> launch =
        perOp(context, machine, name, "1", "add", 1, 33, repeats);
    if (!launch)
      return launch.status();
    DeviceRates rates;
    rates.flopsPerSecond = 2.0 * side * side * side / *matmul;
    rates.bytesPerSecond = 12.0 * elements / *add;
    rates.launchSeconds = *launch;
    profile.setDevice(name, rates);
  }
  constexpr int64_t kSmall = 64;
  for (const auto &from : devices)
    for (const auto &to : devices) {
      if (from == to)
        continue;
      // 16 MiB, or half the smaller memory limit.
      int64_t bytes = 16 << 20;
      for (int64_t limit : {from->memoryLimit(), to->memoryLimit()})
        while (limit > 0 && bytes > 4096 && bytes * 2 > limit)
          bytes /= 2;
      rt::StatusOr<double> small = timeCopy(*from, *to, kSmall, repeats);
      if (!small)
        return small.status();
      rt::StatusOr<double> large = timeCopy(*from, *to, bytes, repeats);
      if (!large)
        return large.status();
      LinkRates link;
      link.latencySeconds = std::max(*small, 1e-9);
      link.bytesPerSecond = bytes / std::max(*large - *small, 1e-9);
      profile.setLink(from->fullName(), to->fullName(), link);
    }
  return profile;
}
