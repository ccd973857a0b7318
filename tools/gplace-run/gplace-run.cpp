//===- gplace-run.cpp - compile and run a gplace graph
//---------------------===//
//
//   gplace-run model.mlir [--entry=main] [--input=2x3xf32=1,2,3,4,5,6]...
//       [--output=@result.npy]... [--iterations=N] [--emulate-gpus=N]
//       [--log-device-placement] [--allow-soft-placement] [--policy=NAME]
//       [--load-policy=lib.so] [--list-devices]
//
// Parses the file, places the entry function on this process's devices,
// inserts copies and control dependencies, lowers it to a plan, and runs it
// (SPEC §7). Results print as `result[0]: 2x2xf32=[[22, 28], [49, 64]]`.
//
//===----------------------------------------------------------------------===//

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Runtime/Cuda.h"
#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Support/GpuStatus.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Target/Plan/PlanExport.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = gplace::runtime;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"));
static cl::opt<std::string>
    entry("entry", cl::desc("The function to run (default: main)"),
          cl::init("main"));
static cl::list<std::string>
    inputs("input",
           cl::desc("An input of the entry function, in order: "
                    "SHAPExTYPE=VALUES (2x3xf32=1,2,3,4,5,6) or @FILE.npy"),
           cl::value_desc("value"));
static cl::list<std::string>
    outputs("output",
            cl::desc("Write the next result to @FILE.npy instead of printing "
                     "it"),
            cl::value_desc("@file.npy"));
static cl::opt<unsigned> iterations(
    "iterations",
    cl::desc("Run the graph N times (variables persist); print the last "
             "results"),
    cl::init(1));
static cl::opt<bool> printTiming(
    "print-timing",
    cl::desc("Print the wall time of the runs on stderr: the first, and the "
             "mean and best of the others"),
    cl::init(false));
static cl::opt<int> emulateGpus(
    "emulate-gpus",
    cl::desc("Add N emulated GPUs (host memory and kernels) to the devices"),
    cl::init(0));
static cl::opt<int64_t> gpuMemoryLimit(
    "gpu-memory-limit",
    cl::desc("Memory limit of each GPU in MiB (emulated GPUs: 16384 by "
             "default)"),
    cl::init(0));
static cl::opt<bool>
    gpuAllowTf32("gpu-allow-tf32",
                 cl::desc("Use TF32 tensor cores for f32 matmul on CUDA GPUs"),
                 cl::init(false));
static cl::opt<bool> gpuFusion(
    "gpu-fusion",
    cl::desc("Run chains of elementwise ops on a CUDA GPU as one kernel "
             "(default); =false launches each op"),
    cl::init(true));
static cl::opt<bool> gpuAllowGrowth(
    "gpu-allow-growth",
    cl::desc("Allocate GPU memory on demand (default); =false reserves the "
             "whole limit up front"),
    cl::init(true));
static cl::opt<double> gpuMemoryFraction(
    "gpu-memory-fraction",
    cl::desc("Fraction of each GPU's memory this process may use, in (0, 1]"),
    cl::init(0));
static cl::list<std::string> logicalGpus(
    "logical-gpus",
    cl::desc("Split a physical GPU into logical GPUs with their own memory "
             "limits: GPU:MiB,MiB,..."),
    cl::value_desc("gpu:MiB,MiB"));
static cl::opt<std::string> visibleGpus(
    "visible-gpus",
    cl::desc("The GPUs to use, as GPU:0, GPU:1, ...: auto (every idle "
             "enough GPU, idlest first), auto:N (the N idlest), or a "
             "CUDA_VISIBLE_DEVICES list of indices and UUIDs"),
    cl::value_desc("auto[:N]|list"));
static cl::opt<int64_t> minFreeMemory(
    "min-free-memory",
    cl::desc("With --visible-gpus=auto: skip GPUs with less free memory "
             "(MiB)"),
    cl::init(0));
static cl::opt<bool> logDevicePlacement(
    "log-device-placement",
    cl::desc("Print where each op runs, in TensorFlow's format"),
    cl::init(false));
static cl::opt<bool> allowSoftPlacement(
    "allow-soft-placement",
    cl::desc("Move ops whose device request cannot be satisfied"),
    cl::init(false));
static cl::opt<std::string> policy("policy", cl::desc("The placement policy"));
static cl::list<std::string>
    loadPolicies("load-policy",
                 cl::desc("Load placement policies from a shared library"),
                 cl::value_desc("lib.so"));
static cl::opt<unsigned> maxInflightCopies(
    "max-inflight-copies",
    cl::desc("At most this many tensor copies in flight (0: any)"),
    cl::init(0));
static cl::opt<bool> listDevices("list-devices",
                                 cl::desc("List the devices and exit"),
                                 cl::init(false));
static cl::opt<bool>
    printMemoryPlan("print-memory-plan",
                    cl::desc("Print the static memory plan on stderr"),
                    cl::init(false));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "gplace-run") << message << "\n";
  return 1;
}

/// `--print-timing`: one line on stderr with the first run's wall time (it
/// pays for first touches of memory, and on GPUs for loading kernels) and
/// the mean and best of the others, in milliseconds.
static void printRunTimes(llvm::ArrayRef<double> seconds) {
  llvm::errs() << "timing: " << seconds.size()
               << (seconds.size() == 1 ? " run" : " runs") << ", first "
               << llvm::format("%.3f", seconds.front() * 1e3) << " ms";
  if (seconds.size() > 1) {
    llvm::ArrayRef<double> rest = seconds.drop_front();
    double sum = 0, best = rest.front();
    for (double s : rest) {
      sum += s;
      best = std::min(best, s);
    }
    llvm::errs() << ", then mean "
                 << llvm::format("%.3f", sum / rest.size() * 1e3)
                 << " ms, best " << llvm::format("%.3f", best * 1e3) << " ms";
  }
  llvm::errs() << "\n";
}

/// Parses `--input` number `index` for an argument of type `expected`:
/// `@file.npy`, or `SHAPExTYPE=VALUES` with MLIR's parser reading the type
/// and the values (as a dense elements literal).
static rt::StatusOr<rt::HostTensor> parseInput(llvm::StringRef text,
                                               Type expected,
                                               MLIRContext *context,
                                               unsigned index) {
  std::string prefix = "input #" + std::to_string(index) + ": ";
  auto error = [&](const llvm::Twine &why) {
    return rt::Status::error(prefix + why.str());
  };
  rt::StatusOr<rt::HostTensor> tensor = rt::Status::ok();
  if (text.consume_front("@")) {
    tensor = rt::readNpy(text.str());
    if (!tensor)
      return error(tensor.status().message());
  } else {
    auto [typeText, values] = text.split('=');
    if (values.data() == nullptr || typeText.empty())
      return error("expected SHAPExTYPE=VALUES (as 2x3xf32=1,2,3,4,5,6) or "
                   "@FILE.npy, got '" +
                   text + "'");
    std::string diagnostic;
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      diagnostic = diag.str();
      return success();
    });
    auto type = dyn_cast_or_null<RankedTensorType>(
        parseType(("tensor<" + typeText + ">").str(), context));
    std::optional<rt::TensorType> runtimeType =
        type ? gplace::toTensorType(type) : std::nullopt;
    if (!runtimeType)
      return error(
          "'" + typeText +
          "' is not a shape and element type such as 2x3xf32 (" +
          (diagnostic.empty() ? "unsupported element type" : diagnostic) + ")");
    // MLIR's literal syntax wants `1.0` for a float; users write `1`.
    std::string numbers = values.str();
    if (isa<FloatType>(type.getElementType())) {
      std::string fixed;
      size_t i = 0;
      while (i < numbers.size()) {
        size_t end = numbers.find_first_of("[], \t", i);
        if (end == i) {
          fixed += numbers[i++];
          continue;
        }
        llvm::StringRef token = llvm::StringRef(numbers).slice(
            i, end == std::string::npos ? numbers.size() : end);
        // An integer mantissa gets ".0": "2" -> "2.0", "5e-1" -> "5.0e-1".
        llvm::StringRef unsignedToken = token;
        unsignedToken.consume_front("-") || unsignedToken.consume_front("+");
        auto [mantissa, exponent] = unsignedToken.split(
            unsignedToken.find_first_of("eE") == llvm::StringRef::npos ? '\0'
            : unsignedToken.contains('e')                              ? 'e'
                                                                       : 'E');
        bool integerMantissa =
            !mantissa.empty() && llvm::all_of(mantissa, llvm::isDigit);
        if (integerMantissa) {
          size_t mantissaEnd =
              token.size() - unsignedToken.size() + mantissa.size();
          fixed += token.take_front(mantissaEnd).str() + ".0" +
                   token.drop_front(mantissaEnd).str();
        } else {
          fixed += token.str();
        }
        i += token.size();
      }
      numbers = fixed;
    }
    llvm::StringRef body = numbers;
    std::string literal;
    if (body.contains('[')) {
      literal = ("dense<" + body + "> : tensor<" + typeText + ">").str();
    } else {
      SmallVector<StringRef> items;
      body.split(items, ',');
      int64_t count = body.trim().empty() ? 0 : items.size();
      if (count != runtimeType->numElements())
        return error(typeText + " needs " +
                     std::to_string(runtimeType->numElements()) +
                     " values, got " + std::to_string(count));
      literal = ("dense<[" + body + "]> : tensor<" + llvm::Twine(count) + "x" +
                 typeText.substr(typeText.rfind('x') + 1) + ">")
                    .str();
      if (runtimeType->shape.empty())
        literal = ("dense<[" + body + "]> : tensor<1x" + typeText + ">").str();
    }
    auto attr =
        dyn_cast_or_null<DenseElementsAttr>(parseAttribute(literal, context));
    if (!attr)
      return error("invalid values '" + values + "'" +
                   (diagnostic.empty() ? "" : ": " + diagnostic));
    FailureOr<rt::HostTensor> host = gplace::toHostTensor(attr.reshape(type));
    if (failed(host))
      return error("invalid values '" + values + "'");
    tensor = std::move(*host);
  }
  std::optional<rt::TensorType> want = gplace::toTensorType(expected);
  if (!want || tensor->type != *want)
    return error("@" + entry + " expects " +
                 (want ? want->str() : std::string("an unsupported type")) +
                 ", got " + tensor->type.str());
  return tensor;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "gplace-run: compile and run a gplace graph\n");
  if (emulateGpus < 0 || emulateGpus > 64)
    return fail("--emulate-gpus must be from 0 to 64");
  if (gpuMemoryLimit < 0)
    return fail("--gpu-memory-limit must not be negative");
  if (iterations < 1)
    return fail("--iterations must be at least 1");

  if (gpuMemoryFraction < 0 || gpuMemoryFraction > 1)
    return fail("--gpu-memory-fraction must be in (0, 1]");

  // The devices: the CPU, CUDA GPUs, then emulated GPUs.
  rt::CudaOptions cudaOptions;
  cudaOptions.allowTf32 = gpuAllowTf32;
  cudaOptions.allowGrowth = gpuAllowGrowth;
  cudaOptions.memoryFraction = gpuMemoryFraction;
  cudaOptions.memoryLimit = static_cast<int64_t>(gpuMemoryLimit) * 1024 * 1024;
  for (llvm::StringRef split : logicalGpus) {
    auto [gpu, sizes] = split.split(':');
    unsigned ordinal = 0;
    SmallVector<llvm::StringRef> mib;
    sizes.split(mib, ',');
    std::vector<int64_t> limits;
    for (llvm::StringRef size : mib) {
      unsigned long long value = 0;
      if (size.trim().getAsInteger(10, value) || value == 0)
        return fail("--logical-gpus=" + split +
                    ": expected GPU:MiB,MiB,... with positive sizes");
      limits.push_back(static_cast<int64_t>(value) * 1024 * 1024);
    }
    if (gpu.trim().getAsInteger(10, ordinal) || sizes.empty())
      return fail("--logical-gpus=" + split +
                  ": expected GPU:MiB,MiB,... with positive sizes");
    cudaOptions.logicalGpus[ordinal] = limits;
  }
  // Which physical GPUs this process uses, decided before CUDA initialises
  // (SPEC §6): --visible-gpus, else CUDA_VISIBLE_DEVICES as CUDA reads it.
  std::vector<std::string> mapping;
  if (minFreeMemory < 0)
    return fail("--min-free-memory must not be negative");
  if (minFreeMemory > 0 && !llvm::StringRef(visibleGpus).starts_with("auto"))
    return fail("--min-free-memory needs --visible-gpus=auto[:N]");
  if (!visibleGpus.empty()) {
    gplace::GpuStatusReport report = gplace::queryGpuStatus();
    if (!report.error.empty())
      return fail("--visible-gpus: " + report.error);
    const char *environment = std::getenv("CUDA_VISIBLE_DEVICES");
    gplace::GpuSelection selection = gplace::selectGpus(
        visibleGpus, report.gpus,
        environment ? std::optional<std::string_view>(environment)
                    : std::nullopt,
        minFreeMemory);
    if (!selection.error.empty()) {
      if (!allowSoftPlacement)
        return fail(selection.error);
      // Soft placement: run without GPUs rather than fail.
      selection.gpus.clear();
      selection.cudaVisibleDevices = "";
      mapping.push_back("no GPU fits, running on the CPU (soft placement): " +
                        selection.error);
    }
    setenv("CUDA_VISIBLE_DEVICES", selection.cudaVisibleDevices->c_str(), 1);
    std::vector<std::string> uuids;
    for (auto [k, gpu] : llvm::enumerate(selection.gpus)) {
      uuids.push_back(gpu.uuid);
      mapping.push_back("GPU:" + std::to_string(k) + " -> " + gpu.describe());
    }
    gplace::setProcessGpus(uuids);
    for (std::string &line : mapping)
      line = "visible GPUs (--visible-gpus=" + visibleGpus + ", " +
             report.source + "): " + line;
  }

  rt::DeviceManager devices({0, 0});
  rt::CudaDiscovery cuda = rt::addCudaDevices(devices, cudaOptions);
  if (!logicalGpus.empty() && cuda.gpus == 0)
    return fail("--logical-gpus needs a CUDA GPU; " + cuda.note);
  int64_t emulatedLimit = cudaOptions.memoryLimit;
  if (emulatedLimit == 0 && gpuMemoryFraction > 0)
    emulatedLimit =
        static_cast<int64_t>(gpuMemoryFraction * 16384.0) * 1024 * 1024;
  devices.addEmulatedGpus(emulateGpus, emulatedLimit);
  if (listDevices) {
    llvm::outs() << devices.listDevices() << cuda.note << "\n";
    for (const std::string &line : mapping)
      llvm::outs() << line << "\n";
    return 0;
  }
  if (logDevicePlacement) {
    llvm::errs() << cuda.note << "\n";
    for (const std::string &line : mapping)
      llvm::errs() << line << "\n";
  }
  for (const std::string &path : loadPolicies) {
    std::string error;
    if (!gplace::loadPolicyPlugin(path, gplace::PolicyRegistry::global(),
                                  &error))
      return fail(error);
  }

  DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                  func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  auto func = module->lookupSymbol<func::FuncOp>(entry);
  if (!func) {
    SmallVector<std::string> names;
    for (auto f : module->getOps<func::FuncOp>())
      names.push_back("@" + f.getSymName().str());
    return fail(
        "no function @" + entry + " in " + inputFile + " (functions: " +
        (names.empty() ? std::string("none") : llvm::join(names, ", ")) +
        "); choose one with --entry");
  }
  // Only the entry function is compiled.
  for (auto other : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (other != func)
      other.erase();

  ArrayRef<Type> argTypes = func.getFunctionType().getInputs();
  if (inputs.size() != argTypes.size()) {
    std::string types;
    for (Type type : argTypes) {
      std::optional<rt::TensorType> t = gplace::toTensorType(type);
      types += (types.empty() ? "" : ", ") + (t ? t->str() : std::string("?"));
    }
    return fail("@" + entry + " takes " + llvm::Twine(argTypes.size()) +
                " inputs (" + types + "), got " + llvm::Twine(inputs.size()) +
                " --input");
  }
  std::vector<rt::HostTensor> values;
  for (auto [index, text] : llvm::enumerate(inputs)) {
    rt::StatusOr<rt::HostTensor> value =
        parseInput(text, argTypes[index], &context, index);
    if (!value)
      return fail(value.status().message());
    values.push_back(std::move(*value));
  }
  for (const std::string &output : outputs)
    if (!llvm::StringRef(output).starts_with("@") || output.size() < 2)
      return fail("--output must be @FILE.npy, got '" + output + "'");

  // Placement sees this process's devices.
  gplace::setLocalDeviceProvider([&devices] {
    gplace::LocalDevices local;
    for (const auto &device : devices.devices()) {
      local.devices.add(device->name());
      local.descriptions[device->fullName()] = device->description();
      local.memoryLimits[device->fullName()] = device->memoryLimit();
    }
    return local;
  });

  PassManager pm(&context);
  gplace::PipelineOptions options;
  options.allowSoftPlacement = allowSoftPlacement.getValue();
  options.policy = policy.getValue();
  options.logDevicePlacement = logDevicePlacement.getValue();
  options.maxInflightCopies = maxInflightCopies.getValue();
  gplace::buildGPlacePipeline(pm, options);
  if (printMemoryPlan)
    pm.addPass(gplace::createPrintMemoryPlanPass());
  if (failed(pm.run(*module)))
    return 1;

  FailureOr<rt::Plan> plan = gplace::exportPlan(*module, entry);
  if (failed(plan))
    return 1;
  rt::ExecutorOptions executorOptions;
  executorOptions.fuseElementwise = gpuFusion;
  rt::StatusOr<std::unique_ptr<rt::Executor>> executor =
      rt::Executor::create(std::move(*plan), devices, executorOptions);
  if (!executor)
    return fail(executor.status().message());
  if (logDevicePlacement && (*executor)->numFusedKernels())
    llvm::errs() << "Fusion: " << (*executor)->numFusedLaunches()
                 << " elementwise launches run as "
                 << (*executor)->numFusedKernels() << " fused kernel"
                 << ((*executor)->numFusedKernels() == 1 ? "" : "s") << "\n";

  std::vector<rt::HostTensor> results;
  // The inputs go into the executor's staging memory (pinned for GPUs) once;
  // each run reads them there and leaves its results in host memory.
  for (auto [index, value] : llvm::enumerate(values)) {
    rt::TensorRef staged = (*executor)->stagedInput(index);
    if (*staged.type != value.type)
      return fail("input #" + llvm::Twine(index) + ": expected " +
                  staged.type->str() + ", got " + value.type.str());
    std::memcpy(staged.data, value.data.data(), value.data.size());
  }
  values.clear();
  std::vector<double> seconds; // Per run: the plan, then results to host.
  for (unsigned i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    rt::StatusOr<std::vector<rt::TensorRef>> run = (*executor)->runStaged();
    if (!run)
      return fail(run.status().message());
    if (i + 1 == iterations)
      for (const rt::TensorRef &view : *run) {
        rt::HostTensor result(*view.type);
        std::memcpy(result.data.data(), view.data, result.data.size());
        results.push_back(std::move(result));
      }
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  if (printTiming)
    printRunTimes(seconds);
  for (auto [index, result] : llvm::enumerate(results)) {
    if (index < outputs.size()) {
      rt::Status written = rt::writeNpy(outputs[index].substr(1), result);
      if (!written)
        return fail(written.message());
      continue;
    }
    llvm::outs() << "result[" << index << "]: " << rt::formatTensor(result)
                 << "\n";
  }
  if (outputs.size() > results.size())
    return fail("got " + llvm::Twine(outputs.size()) + " --output for " +
                llvm::Twine(results.size()) + " results");
  return 0;
}
