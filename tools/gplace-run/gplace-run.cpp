//===- gplace-run.cpp - compile and run a gplace graph --------------------===//
//
//   gplace-run model.mlir [--entry=main] [--input=2x3xf32=1,2,3,4,5,6]...
//       [--output=@result.npy]... [--iterations=N] [--emulate-gpus=N]
//       [--log-device-placement] [--allow-soft-placement] [--policy=NAME]
//       [--load-policy=lib.so] [--list-devices] [--mlir-print-ir-after-all]
//       [--epochs=N] [--shuffle=SEED] [--init=FUNC] [--restore=CKPT.npz]
//       [--save=CKPT.npz]
//
// Makes this process's devices, compiles the entry function for them
// (--gplace-pipeline), runs the plan and prints or writes its results
// (SPEC §7): `result[0]: 2x2xf32=[[22, 28], [49, 64]]`. The work is
// gplace/Tooling's; this file is flags and the order of the steps.
//
// Exit codes: 0 success; 1 invalid input (file, flags, graph, inputs);
// 3 out of memory; 4 unavailable (a device or library the run needs);
// 5 internal error (docs/gplace-run.md).
//
//===----------------------------------------------------------------------===//

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Idx.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Tensor.h"
#ifdef GPLACE_HAVE_MPI
#include "gplace/Runtime/MpiTransport.h"
#endif
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Target/Plan/PlanExport.h"
#include "gplace/Tooling/Checkpoint.h"
#include "gplace/Tooling/Cluster.h"
#include "gplace/Tooling/CommandLine.h"
#include "gplace/Tooling/Compile.h"
#include "gplace/Tooling/Dataset.h"
#include "gplace/Tooling/Inputs.h"
#include "gplace/Tooling/Loop.h"
#include "gplace/Tooling/Machine.h"
#include "gplace/Tooling/Outputs.h"
#include "gplace/Tooling/Profile.h"
#include "gplace/Transforms/Passes.h"

#include "gplace/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = gplace::runtime;
namespace tooling = gplace::tooling;

static cl::OptionCategory category("gplace-run options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input.mlir | model.onnx>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    entry("entry", cl::desc("The function to run (default: main)"),
          cl::init("main"), cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc("An input of the entry function, in order: "
                    "SHAPExTYPE=VALUES (2x3xf32=1,2,3,4,5,6) or @FILE.npy"),
           cl::value_desc("value"), cl::cat(category));
static cl::list<std::string>
    outputs("output",
            cl::desc("Write the next result to @FILE.npy instead of printing "
                     "it"),
            cl::value_desc("@file.npy"), cl::cat(category));
static cl::opt<unsigned> iterations(
    "iterations",
    cl::desc("Run the graph N times (variables persist); print the last "
             "results"),
    cl::init(1), cl::cat(category));
static cl::opt<unsigned> epochs(
    "epochs",
    cl::desc("With a data set input (a file of more samples than the "
             "argument's batch): passes over the data set, one step per "
             "mini-batch (default 1)"),
    cl::init(0), cl::cat(category));
static cl::opt<uint64_t> shuffleSeed(
    "shuffle",
    cl::desc("Shuffle the data set anew each epoch, with this seed"),
    cl::value_desc("seed"), cl::cat(category));
static cl::opt<std::string> initEntry(
    "init",
    cl::desc("Run this function of the file once first (it takes no inputs) "
             "and start the entry's variables from its variables of the "
             "same names, as TensorFlow 1's initializer run"),
    cl::value_desc("function"), cl::cat(category));
static cl::opt<std::string> restoreCheckpoint(
    "restore",
    cl::desc("Restore every variable from this checkpoint (.npz) before "
             "running"),
    cl::value_desc("file.npz"), cl::cat(category));
static cl::opt<std::string> saveCheckpoint(
    "save",
    cl::desc("Save every variable to this checkpoint (.npz, written "
             "atomically) after each epoch, or after the runs"),
    cl::value_desc("file.npz"), cl::cat(category));
static cl::opt<bool> printTiming(
    "print-timing",
    cl::desc("Print the wall time of the runs on stderr: the first, and the "
             "mean and best of the others"),
    cl::init(false), cl::cat(category));
static cl::opt<int> emulateGpus(
    "emulate-gpus",
    cl::desc("Add N emulated GPUs (host memory and kernels) to the devices"),
    cl::init(0), cl::cat(category));
static cl::opt<int64_t> gpuMemoryLimit(
    "gpu-memory-limit",
    cl::desc("Memory limit of each GPU in MiB (emulated GPUs: 16384 by "
             "default)"),
    cl::init(0), cl::cat(category));
static cl::opt<bool>
    gpuAllowTf32("gpu-allow-tf32",
                 cl::desc("Use TF32 tensor cores for f32 matmul on CUDA GPUs"),
                 cl::init(false), cl::cat(category));
static cl::opt<bool> gpuFusion(
    "gpu-fusion",
    cl::desc("Run chains of elementwise ops as one kernel, on GPUs and "
             "the CPU (default); =false launches each op"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> layoutOptimizer(
    "layout-optimizer",
    cl::desc("Run NCHW convolutions, pooling and batch norm NHWC on the "
             "CPU, transposing at the region's borders (--gplace-layout, "
             "Grappler's layout optimizer; default); =false keeps NCHW"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> remapping(
    "remapping",
    cl::desc("Fuse conv2d + a bias or inference batch norm (+ relu) into "
             "one oneDNN kernel "
             "(--gplace-remap, Grappler's remapper; default); =false runs "
             "them one by one"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Run MLIR's verifier after every compiler pass (off by "
             "default; the plan is verified either way)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> foldConstants(
    "fold-constants",
    cl::desc("Fold ops whose operands are constants before placement "
             "(--gplace-fold-constants, Grappler's constant folding; "
             "default); =false runs every op's kernel"),
    cl::init(true), cl::cat(category));
static cl::opt<unsigned> replicas(
    "replicas",
    cl::desc("Train on N GPUs: --gplace-replicate's replicas over "
             "GPU:0..N-1, each a slice of the batch"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string> replicaVariables(
    "replica-variables",
    cl::desc("With --replicas: mirrored (a copy of each variable per GPU, "
             "gradients all-reduced; the default, as MirroredStrategy) or "
             "host (variables on the CPU, gradients averaged there)"),
    cl::value_desc("mirrored|host"), cl::init("mirrored"), cl::cat(category));
static cl::opt<std::string> allReduce(
    "all-reduce",
    cl::desc("How mirrored gradients are all-reduced: collective (the "
             "runtime's all-reduce, over MPI across tasks; the default) or "
             "ring (copies, slices and adds between the GPUs)"),
    cl::value_desc("collective|ring"), cl::init("collective"),
    cl::cat(category));
static cl::opt<std::string> replicate(
    "replicate",
    cl::desc("Replicate with --gplace-replicate's own options, e.g. "
             "--replicate='devices=/gpu:2,/gpu:3 reduce=sum functions=main' "
             "(the seeds' towers); after --replicas, so they win"),
    cl::value_desc("options"), cl::init(""), cl::cat(category));
static cl::opt<std::string> clusterSpec(
    "cluster",
    cl::desc("Run as one task of a cluster launched by mpirun: the jobs and "
             "their task counts in rank order, TensorFlow's ClusterSpec "
             "(worker:4, ps:1,worker:3); docs/distributed.md"),
    cl::value_desc("JOB:TASKS,..."), cl::init(""), cl::cat(category));
static cl::opt<double> transferTimeout(
    "transfer-timeout",
    cl::desc("With --cluster: seconds a task waits for a tensor from another "
             "task before failing"),
    cl::init(300), cl::cat(category));
enum class GraphMode { Off, On };
static cl::opt<GraphMode> cudaGraphs(
    "cuda-graphs",
    cl::desc("Capture a plan that runs on one GPU into a CUDA graph when it "
             "loads and replay it on each run"),
    cl::values(clEnumValN(GraphMode::On, "on", "capture and replay (default)"),
               clEnumValN(GraphMode::Off, "off", "run the steps one by one")),
    cl::init(GraphMode::On), cl::cat(category));
static cl::opt<bool> gpuAllowGrowth(
    "gpu-allow-growth",
    cl::desc("Allocate GPU memory on demand (default); =false reserves the "
             "whole limit up front"),
    cl::init(true), cl::cat(category));
static cl::opt<double> gpuMemoryFraction(
    "gpu-memory-fraction",
    cl::desc("Fraction of each GPU's memory this process may use, in (0, 1]"),
    cl::init(0), cl::cat(category));
static cl::list<std::string> logicalGpus(
    "logical-gpus",
    cl::desc("Split a physical GPU into logical GPUs with their own memory "
             "limits: GPU:MiB,MiB,..."),
    cl::value_desc("gpu:MiB,MiB"), cl::cat(category));
static cl::opt<std::string> visibleGpus(
    "visible-gpus",
    cl::desc("The GPUs to use, as GPU:0, GPU:1, ...: auto (every idle "
             "enough GPU, idlest first), auto:N (the N idlest), or a "
             "CUDA_VISIBLE_DEVICES list of indices and UUIDs"),
    cl::value_desc("auto[:N]|list"), cl::cat(category));
static cl::opt<int64_t> minFreeMemory(
    "min-free-memory",
    cl::desc("With --visible-gpus=auto: skip GPUs with less free memory "
             "(MiB)"),
    cl::init(0), cl::cat(category));
static cl::opt<bool> logDevicePlacement(
    "log-device-placement",
    cl::desc("Print where each op runs, in TensorFlow's format"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> allowSoftPlacement(
    "allow-soft-placement",
    cl::desc("Move ops whose device request cannot be satisfied"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> policy("policy", cl::desc("The placement policy"),
                                   cl::cat(category));
static cl::list<std::string>
    loadPolicies("load-policy",
                 cl::desc("Load placement policies from a shared library"),
                 cl::value_desc("lib.so"), cl::cat(category));
static cl::opt<unsigned> maxInflightCopies(
    "max-inflight-copies",
    cl::desc("At most this many tensor copies in flight (0: any)"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string> assignByName(
    "assign-by-name",
    cl::desc("Give ops device requests by name before placement, as "
             "tf.device scopes do: REGEX=DEVICE rules, first match wins "
             "(--gplace-assign-by-name)"),
    cl::value_desc("encoder/.*=/gpu:0,..."), cl::cat(category));
static cl::opt<std::string> placementProfile(
    "placement-profile",
    cl::desc("The cost model's rates for --policy=auto (a file that "
             "--profile wrote; default: built-in rates)"),
    cl::value_desc("prof.json"), cl::cat(category));
static cl::opt<std::string> profileOutput(
    "profile",
    cl::desc("Measure this process's devices and links for the cost model, "
             "write them to this file and exit (no input is read)"),
    cl::value_desc("prof.json"), cl::cat(category));
static cl::opt<bool> listDevices("list-devices",
                                 cl::desc("List the devices and exit"),
                                 cl::init(false), cl::cat(category));

static cl::opt<bool>
    printMemoryPlan("print-memory-plan",
                    cl::desc("Print the static memory plan on stderr"),
                    cl::init(false), cl::cat(category));

/// gplace-run's exit code for a failure of `code`.
/// The cluster's links (MPI), once main has started them: the executors'
/// transport.
static rt::Transport *clusterTransport = nullptr;

/// The executor's options from the command line.
static rt::ExecutorOptions executorOptions() {
  rt::ExecutorOptions options;
  options.graphs = cudaGraphs == GraphMode::On;
  options.transport = clusterTransport;
  return options;
}

static int exitCode(rt::StatusCode code) {
  switch (code) {
  case rt::StatusCode::OutOfMemory:
    return 3;
  case rt::StatusCode::Unavailable:
    return 4;
  case rt::StatusCode::Internal:
    return 5;
  default:
    return 1;
  }
}

/// In a cluster the tasks share mpirun's stderr: each message is then
/// written with one write(2), so that messages of several tasks do not
/// interleave within a line.
static bool oneWritePerMessage = false;

static void writeStderr(llvm::StringRef text) {
  llvm::errs().flush();
  while (!text.empty()) {
    ssize_t written = ::write(2, text.data(), text.size());
    if (written <= 0)
      return;
    text = text.drop_front(written);
  }
}

/// MLIR's diagnostics as SourceMgrDiagnosticHandler prints them (file,
/// line, the source line and a caret), each diagnostic with its notes
/// collected first and written at once (for oneWritePerMessage).
struct DiagnosticText {
  std::string text;
  llvm::raw_string_ostream os{text};
};
class ClusterDiagnosticHandler : private DiagnosticText,
                                 public SourceMgrDiagnosticHandler {
public:
  ClusterDiagnosticHandler(llvm::SourceMgr &mgr, MLIRContext *context)
      : SourceMgrDiagnosticHandler(mgr, context, DiagnosticText::os) {
    setHandler([this](Diagnostic &diag) {
      emitDiagnostic(diag);
      writeStderr(text);
      text.clear();
      return success();
    });
  }
};

/// Prints `status` as gplace-run's error and returns its exit code.
static int fail(const rt::Status &status) {
  std::string prefix =
      status.code() != rt::StatusCode::InvalidArgument
          ? std::string(rt::statusCodeName(status.code())) + ": "
          : "";
  if (oneWritePerMessage) {
    writeStderr("gplace-run: error: " + prefix + status.message() + "\n");
  } else {
    llvm::WithColor::error(llvm::errs(), "gplace-run")
        << prefix << status.message() << "\n";
  }
  return exitCode(status.code());
}

static int fail(const llvm::Twine &message) {
  return fail(rt::Status::invalidArgument(message.str()));
}


/// Compiles function @`name` of `inputFile` (parsed anew: compiling keeps
/// one function) for `machine` and loads it: the --init function.
/// Loads `plan` on `machine`: in a cluster (`inCluster`), only this task's
/// part of it.
static rt::StatusOr<std::unique_ptr<rt::Executor>>
loadPlan(rt::Plan plan, tooling::Machine &machine, bool inCluster) {
  if (inCluster) {
    rt::StatusOr<rt::Plan> local = tooling::localPlan(plan, machine.devices());
    if (!local)
      return local.status();
    plan = std::move(*local);
  }
  return rt::Executor::create(std::move(plan), machine.devices(),
                              executorOptions());
}

static rt::StatusOr<std::unique_ptr<rt::Executor>>
loadFunction(MLIRContext &context, llvm::SourceMgr &sourceMgr,
             llvm::StringRef name, tooling::Machine &machine,
             const gplace::DeviceSet &devices,
             const tooling::CompileOptions &compile,
             const gplace::DeviceName *localTask = nullptr) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return rt::Status::invalidArgument("cannot parse " + inputFile);
  GPLACE_RETURN_IF_ERROR(tooling::selectEntry(*module, name, inputFile));
  auto func = *module->getOps<func::FuncOp>().begin();
  // A task running the --init function on its own devices: requests for
  // another task's devices (/job:ps/task:0/cpu:0 on a worker) are read as
  // requests for this task's (/cpu:0), whose variables of the same names,
  // if it has any, then take the values.
  if (localTask)
    func.walk([&](Operation *op) {
      for (llvm::StringRef key : {"device", "gplace.default_device"}) {
        auto attr = op->getAttrOfType<StringAttr>(key);
        std::optional<gplace::DeviceName> request =
            attr ? gplace::DeviceName::parse(attr.getValue()) : std::nullopt;
        if (!request ||
            (request->job.value_or(*localTask->job) == *localTask->job &&
             request->task.value_or(*localTask->task) == *localTask->task))
          continue;
        request->job.reset();
        request->replica.reset();
        request->task.reset();
        op->setAttr(key, StringAttr::get(&context, request->str()));
      }
    });
  // Copies of a variable mirrored across other tasks now ask for one local
  // device: the first of them stands for all (they have one type and one
  // initial value, and --init copies values by name), as two variables of
  // one name on one device are an error (--gplace-verify-placement).
  if (localTask) {
    llvm::StringMap<Operation *> kept;
    SmallVector<Operation *> merged;
    func.walk([&](gplace::graph::PersistentOpInterface variable) {
      auto placed =
          dyn_cast<gplace::graph::PlacedOpInterface>(variable.getOperation());
      if (!placed || placed.getUserName().empty() ||
          !isa<gplace::graph::ResourceType>(variable->getResult(0).getType()))
        return;
      auto [it, isNew] = kept.try_emplace(placed.getUserName(), variable);
      if (isNew || it->second->getResult(0).getType() !=
                       variable->getResult(0).getType())
        return;
      variable->getResult(0).replaceAllUsesWith(it->second->getResult(0));
      merged.push_back(variable);
    });
    for (Operation *op : merged)
      op->erase();
  }
  if (func.getNumArguments() != 0)
    return rt::Status::invalidArgument("--init function @" + name.str() +
                                       " must take no inputs, but takes " +
                                       std::to_string(func.getNumArguments()));
  FailureOr<rt::Plan> plan = tooling::compileToPlan(*module, devices, compile);
  if (failed(plan))
    return rt::Status::invalidArgument("cannot compile --init function @" +
                                       name.str());
  return loadPlan(std::move(*plan), machine, !compile.cluster.empty());
}

int main(int argc, char **argv) {
  // OpenBLAS picked its kernels when it loaded; where it fell back to SSE3
  // ones on a CPU with AVX2 or AVX-512, start again with the variable that
  // names the right ones (Kernels.h; docs/runtime.md). A failed exec
  // carries on with the kernels OpenBLAS chose.
  if (std::optional<std::string> core = rt::preferredBlasCoreType()) {
    ::setenv("OPENBLAS_CORETYPE", core->c_str(), 1);
    ::setenv("GPLACE_SET_OPENBLAS_CORETYPE", "1", 1);
    ::execv("/proc/self/exe", argv);
  }
  llvm::InitLLVM initLLVM(argc, argv);
  // The passes by name, for --mlir-print-ir-after=<pass> and the like
  // (before the options that name them are registered).
  gplace::registerGPlacePasses();
  gplace::registerGPlaceConversionPasses();
  gplace::registerGPlacePlanPasses();
  // MLIR's own options of a pass driver: --mlir-print-ir-after-all,
  // --mlir-timing, --mlir-print-debuginfo, ...
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  // --help lists gplace-run's options and MLIR's (--mlir-*), not the
  // hundreds LLVM's libraries register (--help-hidden shows them all).
#ifdef GPLACE_HAVE_ONNX
  tooling::hideLibraryOptions(
      {&category, &gplace::frontend::onnxImportCategory()});
#else
  tooling::hideLibraryOptions({&category});
#endif
  cl::ParseCommandLineOptions(argc, argv,
                              "gplace-run: compile and run a gplace graph\n");
  if (iterations < 1)
    return fail("--iterations must be at least 1");
  // 0 is the option's "not set" (TensorFlow's per_process_gpu_memory_fraction
  // default); given, it must be a fraction (the machine checks the rest).
  if (gpuMemoryFraction.getNumOccurrences() && gpuMemoryFraction == 0)
    return fail("--gpu-memory-fraction must be in (0, 1]");
  if (epochs.getNumOccurrences() && epochs < 1)
    return fail("--epochs must be at least 1");
  // Written so that NaN fails too; a week at most (a larger count of
  // seconds would overflow the clock's arithmetic).
  if (!(transferTimeout > 0 && transferTimeout <= 7 * 24 * 3600))
    return fail("--transfer-timeout must be more than 0 and at most 604800 "
                "seconds (a week)");
  for (const std::string &output : outputs)
    if (!llvm::StringRef(output).starts_with("@") || output.size() < 2)
      return fail("--output must be @FILE.npy, got '" + output + "'");

  // A cluster: this process is the task of its MPI rank (rank 0, the
  // chief, prints what the run prints), and the tasks' tensors move over
  // MPI.
  std::unique_ptr<rt::Transport> transport;
  std::optional<gplace::ClusterSpec> cluster;
  int rank = 0;
  if (!clusterSpec.empty()) {
    std::string error;
    std::optional<gplace::ClusterSpec> spec =
        gplace::ClusterSpec::parse(clusterSpec, &error);
    if (!spec)
      return fail("--cluster: " + error);
#ifdef GPLACE_HAVE_MPI
    rt::StatusOr<std::unique_ptr<rt::MpiTransport>> mpi =
        rt::MpiTransport::create(&argc, &argv, transferTimeout);
    if (!mpi)
      return fail(mpi.status());
    oneWritePerMessage = (*mpi)->size() > 1;
    if ((*mpi)->size() != spec->numTasks())
      return fail("--cluster=" + clusterSpec + " names " +
                  llvm::Twine(spec->numTasks()) + " tasks, but mpirun started " +
                  llvm::Twine((*mpi)->size()) + " process" +
                  ((*mpi)->size() == 1 ? "" : "es") + " (mpirun -np " +
                  llvm::Twine(spec->numTasks()) + " gplace-run ...)");
    std::vector<std::string> names;
    for (int r = 0; r < spec->numTasks(); ++r)
      names.push_back(spec->taskName(r));
    (*mpi)->setTaskNames(std::move(names));
    rank = (*mpi)->rank();
    transport = std::move(*mpi);
    clusterTransport = transport.get();
    cluster = std::move(*spec);
#else
    return fail("--cluster needs MPI, and this gplace-run was built without "
                "it (install libopenmpi-dev and configure again)");
#endif
  }
  bool chief = rank == 0;
  // Once MPI has started, an error in one task ends the whole job
  // (MPI_Abort): the other tasks would wait for this one in the device
  // exchange (no timeout) or for its tensors until --transfer-timeout.
  auto endJob = [&](int code) {
    if (transport && transport->size() > 1) {
      llvm::errs().flush();
      transport->abort(code);
    }
    return code;
  };
  auto failRun = [&](const auto &error) { return endJob(fail(error)); };
  // The chief's files are written after the run, which may be hours of
  // training: their paths are checked now.
  if (chief) {
    for (const std::string &output : outputs)
      if (rt::Status writable = tooling::checkWritable(output.substr(1));
          !writable)
        return failRun(writable);
    if (!saveCheckpoint.empty())
      if (rt::Status writable = tooling::checkWritable(saveCheckpoint);
          !writable)
        return failRun(
            rt::Status::invalidArgument("--save: " + writable.message()));
  }

  DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                  func::FuncDialect>();
  func::registerInlinerExtension(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  std::optional<SourceMgrDiagnosticHandler> diagnostics;
  std::optional<ClusterDiagnosticHandler> clusterDiagnostics;
  if (oneWritePerMessage)
    clusterDiagnostics.emplace(sourceMgr, &context);
  else
    diagnostics.emplace(sourceMgr, &context);

  // The graph first: whether it asks for idle-gpu decides whether the
  // machine's GPU loads are read.
  OwningOpRef<ModuleOp> module;
  tooling::CompileOptions compile;
  compile.allowSoftPlacement = allowSoftPlacement;
  compile.policy = policy;
  compile.profile = placementProfile;
  compile.assignByName = assignByName;
  compile.logDevicePlacement = logDevicePlacement && chief;
  compile.replicas = replicas;
  compile.replicaVariables = replicaVariables;
  compile.allReduce = allReduce;
  compile.replicate = replicate;
  compile.maxInflightCopies = maxInflightCopies;
  compile.fuseElementwise = gpuFusion;
  compile.layoutOptimizer = layoutOptimizer;
  compile.remapping = remapping;
  compile.foldConstants = foldConstants;
  compile.verifyEachPass = verifyEach;
  compile.printMemoryPlan = printMemoryPlan;
  if (!listDevices && profileOutput.empty()) {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &error);
    if (!file)
      return failRun(error);
    if (gplace::frontend::isOnnxFileName(inputFile)) {
#ifdef GPLACE_HAVE_ONNX
      if (!initEntry.empty())
        return failRun("--init needs an .mlir file: an ONNX model has one "
                       "function, its initializers are its variables' values");
      gplace::frontend::OnnxImportOptions onnxOptions =
          gplace::frontend::onnxImportOptionsFromFlags();
      // The inputs' shapes bind the model's symbolic dimensions.
      for (llvm::StringRef text : inputs) {
        if (text.starts_with("@") && text.ends_with(".pb")) {
          rt::StatusOr<rt::HostTensor> value =
              gplace::frontend::readTensorProtoFile(text.drop_front());
          onnxOptions.inputShapes.push_back(
              value ? std::optional(value->type.shape) : std::nullopt);
        } else {
          onnxOptions.inputShapes.push_back(
              tooling::inputShape(text, &context));
        }
      }
      onnxOptions.entry = entry;
      module = gplace::frontend::importOnnxModel(
          file->getBuffer(), inputFile, &context, onnxOptions);
#else
      return failRun("'" + inputFile +
                     "' is an ONNX model, and this gplace-run "
                     "was built without the ONNX importer (libonnx-dev)");
#endif
    } else {
      sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
      module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    }
    if (!module) // The diagnostics are printed.
      return endJob(1);
    if (rt::Status selected = tooling::selectEntry(*module, entry, inputFile);
        !selected)
      return failRun(selected);
  }

  tooling::MachineOptions machineOptions;
  machineOptions.emulatedGpus = emulateGpus;
  machineOptions.gpuMemoryLimitMiB = gpuMemoryLimit;
  machineOptions.gpuMemoryFraction = gpuMemoryFraction;
  machineOptions.gpuAllowGrowth = gpuAllowGrowth;
  machineOptions.gpuAllowTf32 = gpuAllowTf32;
  machineOptions.logicalGpus = logicalGpus;
  machineOptions.visibleGpus = visibleGpus;
  machineOptions.minFreeMemoryMiB = minFreeMemory;
  machineOptions.softPlacement = allowSoftPlacement;
  machineOptions.readGpuLoads =
      module && tooling::usesPolicy(*module, compile, "idle-gpu");
  rt::StatusOr<std::unique_ptr<tooling::Machine>> machine =
      tooling::Machine::create(machineOptions);
  if (!machine)
    return failRun(machine.status());
  // The workspaces of the plan's launches: the host kernels', and those
  // this machine's GPUs measure (cuDNN's).
  gplace::registerMachineWorkspaces(context, (*machine)->devices());
  // The devices compiled for: this process's, or the whole cluster's with
  // their full names (each task's devices renamed to its job and task,
  // then exchanged).
  gplace::DeviceSet compileDevices;
  if (cluster) {
    auto [job, task] = cluster->taskOf(rank);
    (*machine)->devices().setTask(job, task);
    rt::StatusOr<std::vector<std::string>> gathered = transport->allGather(
        tooling::serializeDevices((*machine)->deviceSet()));
    if (!gathered)
      return failRun(gathered.status());
    rt::StatusOr<gplace::DeviceSet> merged = tooling::mergeDevices(*gathered);
    if (!merged)
      return failRun(merged.status());
    compileDevices = std::move(*merged);
    compile.cluster = cluster->str();
  } else {
    compileDevices = (*machine)->deviceSet();
  }
  if (!profileOutput.empty()) {
    rt::StatusOr<gplace::CostProfile> measured =
        tooling::measureProfile(context, **machine);
    if (!measured)
      return failRun(measured.status());
    std::string error;
    if (!measured->save(profileOutput, &error))
      return failRun(error);
    llvm::outs() << "wrote " << profileOutput << ": "
                 << (*machine)->devices().devices().size()
                 << " devices and their links\n";
    return 0;
  }
  if (listDevices) {
    llvm::outs() << (*machine)->devices().listDevices();
    for (const std::string &line : (*machine)->notes())
      llvm::outs() << line << "\n";
    // The libraries of the CPU's matrix products; the BLAS, and who chose
    // its kernels.
    llvm::outs() << "Matmul: " << rt::matmulDescription() << "\n";
    const char *core = std::getenv("OPENBLAS_CORETYPE");
    llvm::outs() << "BLAS: " << rt::blasDescription();
    if (core && std::getenv("GPLACE_SET_OPENBLAS_CORETYPE"))
      llvm::outs() << " (OPENBLAS_CORETYPE=" << core
                   << ", set by gplace-run: OpenBLAS chose Prescott's)";
    else if (core)
      llvm::outs() << " (OPENBLAS_CORETYPE=" << core << ")";
    llvm::outs() << "\n";
    return 0;
  }
  if (logDevicePlacement && chief)
    for (const std::string &line : (*machine)->notes())
      llvm::errs() << line << "\n";
  if (replicas > 0) {
    unsigned gpus = 0;
    for (const gplace::DeviceName &device : compileDevices.devices())
      gpus += device.type == gplace::DeviceType::GPU;
    if (gpus < replicas)
      return failRun("--replicas=" + llvm::Twine(replicas) + " needs " +
                     llvm::Twine(replicas) + " GPUs; this process has " +
                     llvm::Twine(gpus));
  }

  // Placement policies: the built-in ones and the plugins', through the
  // context's graph dialect.
  gplace::PolicyRegistry policies;
  gplace::registerBuiltinPolicies(policies);
  for (const std::string &path : loadPolicies) {
    std::string error;
    if (!gplace::loadPolicyPlugin(path, policies, &error))
      return failRun(error);
  }
  context.getLoadedDialect<gplace::graph::GraphDialect>()->setPolicies(
      &policies);

  // The inputs, checked against the entry's signature before compiling.
  auto func = *module->getOps<func::FuncOp>().begin();
  ArrayRef<Type> argTypes = func.getFunctionType().getInputs();
  if (inputs.size() != argTypes.size()) {
    std::string types;
    for (Type type : argTypes) {
      std::optional<rt::TensorType> tensor = gplace::toTensorType(type);
      types += (types.empty() ? "" : ", ") + (tensor ? tensor->str() : "?");
    }
    return failRun("@" + entry + " takes " + llvm::Twine(argTypes.size()) +
                   " inputs (" + types + "), got " +
                   llvm::Twine(inputs.size()) + " --input");
  }
  // Each input is a value of the argument's type or, for a file of more
  // samples than the argument's leading dimension, a data set fed in
  // mini-batches (Dataset.h).
  std::vector<rt::HostTensor> values, samples;
  std::vector<rt::TensorType> batchTypes;
  std::vector<unsigned> batched;
  for (auto [index, text] : llvm::enumerate(inputs)) {
#ifdef GPLACE_HAVE_ONNX
    // ONNX's TensorProto files (its test data's input_0.pb): one tensor of
    // the argument's type, never a data set.
    if (llvm::StringRef(text).starts_with("@") &&
        llvm::StringRef(text).ends_with(".pb")) {
      llvm::StringRef file = llvm::StringRef(text).drop_front();
      rt::StatusOr<rt::HostTensor> value =
          gplace::frontend::readTensorProtoFile(file);
      if (!value)
        return failRun("input #" + llvm::Twine(index) + ": " +
                       value.status().message());
      std::optional<rt::TensorType> arg = gplace::toTensorType(argTypes[index]);
      if (!arg || value->type != *arg)
        return failRun("input #" + llvm::Twine(index) + ": " + file +
                       " holds a " + value->type.str() + " tensor, @" + entry +
                       " takes " + (arg ? arg->str() : std::string("?")));
      values.push_back(std::move(*value));
      continue;
    }
#endif
    rt::StatusOr<rt::HostTensor> value =
        tooling::parseInput(text, argTypes[index], &context, index, entry);
    if (!value) {
      std::optional<rt::TensorType> arg = gplace::toTensorType(argTypes[index]);
      if (!llvm::StringRef(text).starts_with("@") || !arg || arg->shape.empty())
        return failRun(value.status());
      rt::StatusOr<rt::HostTensor> file =
          rt::readTensorFile(llvm::StringRef(text).drop_front().str());
      // A data set: the argument's type but for more samples than its
      // batch; anything else keeps parseInput's error.
      if (!file || file->type.elementType != arg->elementType ||
          file->type.shape.size() != arg->shape.size() ||
          file->type.shape[0] <= arg->shape[0] ||
          !std::equal(arg->shape.begin() + 1, arg->shape.end(),
                      file->type.shape.begin() + 1))
        return failRun(value.status());
      samples.push_back(std::move(*file));
      batchTypes.push_back(*arg);
      batched.push_back(index);
      values.emplace_back(*arg); // Filled per step.
      continue;
    }
    values.push_back(std::move(*value));
  }
  std::optional<tooling::Dataset> dataset;
  if (!samples.empty()) {
    if (iterations.getNumOccurrences())
      return failRun("--iterations cannot be combined with a data set input: "
                     "the steps are --epochs times the batches per epoch");
    std::optional<uint64_t> seed;
    if (shuffleSeed.getNumOccurrences())
      seed = shuffleSeed;
    rt::StatusOr<tooling::Dataset> made = tooling::Dataset::create(
        std::move(samples), batchTypes, batched, seed);
    if (!made)
      return failRun(made.status());
    dataset = std::move(*made);
  } else if (epochs.getNumOccurrences() || shuffleSeed.getNumOccurrences()) {
    return failRun("--epochs and --shuffle need a data set input (a file with "
                   "more samples than the argument's first dimension)");
  }

  FailureOr<rt::Plan> plan =
      tooling::compileToPlan(*module, compileDevices, compile);
  if (failed(plan)) // The diagnostics are printed.
    return endJob(exitCode(tooling::exceedsMemoryLimit(*module)
                               ? rt::StatusCode::OutOfMemory
                               : rt::StatusCode::InvalidArgument));
  // Before running: no output file is touched for a wrong count.
  if (outputs.size() > plan->results.size())
    return failRun("got " + llvm::Twine(outputs.size()) + " --output for " +
                   llvm::Twine(plan->results.size()) + " results");
  for (size_t i = 0; i < outputs.size(); ++i)
    if (gplace::ElementType type =
            plan->buffers[plan->results[i]].type.elementType;
        !rt::hasNpyDtype(type))
      return failRun("cannot write '" + outputs[i].substr(1) +
                     "': NumPy has no " +
                     std::string(gplace::elementTypeName(type)) +
                     " dtype (result #" + llvm::Twine(i) + ")");
  // The entry's variables, by name: --save needs some, and --init reads
  // only these back from its own plan.
  std::set<std::string> variableNames;
  for (const rt::PersistentDesc &persistent : plan->persistents)
    if (persistent.isVariable)
      variableNames.insert(persistent.name);
  if (!saveCheckpoint.empty() && chief && variableNames.empty())
    return failRun("--save: the graph has no variables to save (in a cluster, "
                   "the chief saves the variables on its own task)");
  // Variables: from the --init function's, then from the checkpoint. The
  // --init function runs first, and its plan is unloaded before the
  // entry's loads: each plan was checked against the devices' memory
  // limits alone, so the two must not hold memory at once. In a
  // cluster every task runs the whole --init function on its own devices
  // (its random numbers are stateless: every task draws the same), so that
  // each task's variables, copies included, get their values; a request
  // for another task's device is read as one for this task's
  // (loadFunction).
  tooling::CompileOptions initCompile = compile;
  initCompile.cluster = "";
  initCompile.replicate = "";
  initCompile.replicas = 0;
  initCompile.logDevicePlacement = false;
  gplace::DeviceName localTask;
  if (cluster) {
    auto [job, task] = cluster->taskOf(rank);
    localTask.job = job;
    localTask.task = task;
  }
  std::optional<tooling::VariableValues> initial;
  if (!initEntry.empty()) {
    rt::StatusOr<std::unique_ptr<rt::Executor>> init =
        cluster ? loadFunction(context, sourceMgr, initEntry, **machine,
                               (*machine)->deviceSet(), initCompile, &localTask)
                : loadFunction(context, sourceMgr, initEntry, **machine,
                               compileDevices, compile);
    if (!init)
      return failRun(init.status());
    rt::StatusOr<std::vector<rt::HostTensor>> ran = (*init)->run({});
    if (!ran)
      return failRun(ran.status());
    rt::StatusOr<tooling::VariableValues> values =
        tooling::readVariables(**init, variableNames);
    if (!values)
      return failRun(values.status());
    initial = std::move(*values);
  }
  rt::StatusOr<std::unique_ptr<rt::Executor>> executor =
      loadPlan(std::move(*plan), **machine, cluster.has_value());
  if (!executor)
    return failRun(executor.status());
  if (logDevicePlacement && chief && !(*executor)->graphNote().empty())
    llvm::errs() << (*executor)->graphNote() << "\n";
  if (logDevicePlacement && chief && !(*executor)->collectiveNote().empty())
    llvm::errs() << (*executor)->collectiveNote() << "\n";
  if (logDevicePlacement && chief && (*executor)->numFusedKernels())
    llvm::errs() << "Fusion: " << (*executor)->numFusedLaunches()
                 << " elementwise launches run as "
                 << (*executor)->numFusedKernels() << " fused kernel"
                 << ((*executor)->numFusedKernels() == 1 ? "" : "s") << "\n";

  if (initial)
    if (rt::Status initialized =
            tooling::initializeVariables(*initial, **executor);
        !initialized)
      return failRun(initialized);
  if (!restoreCheckpoint.empty())
    if (rt::Status restored =
            tooling::restoreCheckpoint(restoreCheckpoint, **executor);
        !restored)
      return failRun(restored);

  // The inputs go into the executor's staging memory (pinned for GPUs) once;
  // each run reads them there and leaves its results in host memory. Data
  // set inputs get their mini-batch before each step.
  std::vector<void *> batchTargets;
  for (auto [index, value] : llvm::enumerate(values)) {
    rt::TensorRef staged = (*executor)->stagedInput(index);
    if (llvm::is_contained(batched, index)) {
      batchTargets.push_back(staged.data);
      continue;
    }
    if (value.data.size() > 0)
      std::memcpy(staged.data, value.data.data(), value.data.size());
  }
  values.clear();
  // Keras's per-epoch line and the checkpoint, which the chief writes with
  // the variables its task holds.
  auto onEpoch = [&](const tooling::EpochSummary &summary) -> rt::Status {
    if (dataset && chief) {
      llvm::outs() << tooling::formatEpoch(summary) << "\n";
      llvm::outs().flush();
    }
    if (!saveCheckpoint.empty() && chief)
      return tooling::saveCheckpoint(saveCheckpoint, **executor);
    return rt::Status::ok();
  };
  rt::StatusOr<tooling::LoopResult> loop = tooling::runLoop(
      **executor, dataset ? &*dataset : nullptr, batchTargets, epochs,
      iterations, onEpoch);
  if (!loop)
    return failRun(loop.status());
  std::vector<rt::HostTensor> results = std::move(loop->results);
  if (transport)
    if (rt::Status flushed = transport->flush(); !flushed)
      return failRun(flushed);
  if (!chief)
    return 0; // The chief prints and writes the results.
  if (printTiming)
    llvm::errs() << tooling::formatRunTimes(loop->seconds) << "\n";
  std::vector<std::string> outputPaths;
  for (const std::string &output : outputs)
    outputPaths.push_back(output.substr(1));
  if (rt::Status written = tooling::writeNpyFiles(outputPaths, results);
      !written)
    return failRun(written);
  for (auto [index, result] : llvm::enumerate(results))
    if (index >= outputs.size())
      llvm::outs() << "result[" << index << "]: " << rt::formatTensor(result)
                   << "\n";
  return 0;
}
