//===- gplace-run.cpp - compile and run a gplace graph --------------------===//
//
//   gplace-run model.mlir [--entry=main] [--input=2x3xf32=1,2,3,4,5,6]...
//       [--output=@result.npy]... [--iterations=N] [--emulate-gpus=N]
//       [--log-device-placement] [--allow-soft-placement] [--policy=NAME]
//       [--epochs=N] [--init=FUNC] [--restore=CKPT.npz] [--save=CKPT.npz]
//
// Makes this process's devices, compiles the entry function for them
// (--gplace-pipeline), runs the plan and prints or writes its results
// (SPEC §7). The flags and the work are gplace/Tooling's (Run.h,
// Compile.h, Machine.h, Cluster.h); this file is the order of the steps.
//
// Exit codes (docs/gplace-run.md, which lists every flag): 0 success; 1
// invalid input; 3 out of memory; 4 unavailable; 5 internal error.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Target/Plan/PlanExport.h" // registerMachineWorkspaces
#include "gplace/Tooling/Cluster.h"
#include "gplace/Tooling/Compile.h"
#include "gplace/Tooling/Machine.h"
#include "gplace/Tooling/Report.h"
#include "gplace/Tooling/Run.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = gplace::runtime;
namespace tooling = gplace::tooling;

static int run(int argc, char **argv) {
  tooling::reexecAtStartup(argv);
  rt::stopIdleBlasThreads();
  llvm::InitLLVM initLLVM(argc, argv);
  tooling::registerRunFlags();
  // LLVM's errors about the command line, in one write (tasks of a cluster
  // share stderr and would interleave them).
  std::string flagErrors;
  llvm::raw_string_ostream flagErrorStream(flagErrors);
  tooling::Reporter report("gplace-run");
  if (!cl::ParseCommandLineOptions(
          argc, argv, "gplace-run: compile and run a gplace graph\n",
          &flagErrorStream))
    return report.failAsIs(flagErrors);
  if (rt::Status flags = tooling::checkRunFlags(); !flags)
    return report.fail(flags);
  rt::StatusOr<tooling::MachineOptions> machineOptions =
      tooling::machineOptionsFromFlags();
  if (!machineOptions)
    return report.fail(machineOptions.status());

  // A cluster: this process is the task of its MPI rank (rank 0, the chief,
  // prints what the run prints), and the tasks' tensors move over MPI.
  // Once MPI has started, an error in one task ends the whole job.
  rt::StatusOr<tooling::ClusterTask> started =
      tooling::startClusterFromFlags(&argc, &argv);
  if (!started)
    return report.fail(started.status());
  tooling::ClusterTask &cluster = *started;
  report.setOneWritePerMessage(cluster.sharesStderr());
  auto fail = [&](const rt::Status &status) {
    return cluster.end(report.fail(status));
  };
  if (cluster.chief())
    if (rt::Status writable = tooling::checkOutputsWritable(); !writable)
      return fail(writable);

  MLIRContext context(tooling::runDialects());
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  auto diagnostics = report.handleDiagnostics(sourceMgr, &context);
  gplace::PipelineOptions &pipeline = tooling::pipelineFlags();
  pipeline.logDevicePlacement = pipeline.logDevicePlacement && cluster.chief();

  // The graph first: whether it asks for idle-gpu decides whether the
  // machine's GPU loads are read.
  OwningOpRef<ModuleOp> module;
  if (!tooling::machineCommandFlag()) {
    rt::StatusOr<OwningOpRef<ModuleOp>> loaded =
        tooling::loadModule(tooling::runInputFile(), &context, sourceMgr);
    if (!loaded)
      return fail(loaded.status());
    module = std::move(*loaded);
  }
  machineOptions->softPlacement = pipeline.allowSoftPlacement;
  machineOptions->readGpuLoads =
      module && tooling::usesPolicy(*module, pipeline, "idle-gpu");
  rt::StatusOr<std::unique_ptr<tooling::Machine>> machine =
      tooling::Machine::create(*machineOptions);
  if (!machine)
    return fail(machine.status());
  // The workspaces of the plan's launches: the host kernels', and those
  // this machine's GPUs measure (cuDNN's).
  gplace::registerMachineWorkspaces(context, (*machine)->devices());
  rt::StatusOr<gplace::DeviceSet> devices =
      tooling::clusterDevices(cluster, **machine);
  if (!devices)
    return fail(devices.status());
  if (cluster.spec)
    pipeline.cluster = cluster.spec->str();
  if (tooling::machineCommandFlag()) {
    rt::Status done = tooling::runMachineCommand(context, **machine);
    return done ? 0 : fail(done);
  }
  if (pipeline.logDevicePlacement)
    for (const std::string &line : (*machine)->notes())
      llvm::errs() << line << "\n";
  if (rt::Status fits = tooling::checkDevicesFor(pipeline, *devices); !fits)
    return fail(fits);
  // Placement policies: the built-in ones and the plugins', through the
  // context's graph dialect.
  rt::StatusOr<std::unique_ptr<gplace::PolicyRegistry>> policies =
      tooling::policiesFromFlags();
  if (!policies)
    return fail(policies.status());
  context.getLoadedDialect<gplace::graph::GraphDialect>()->setPolicies(
      policies->get());

  // The inputs, checked against the entry's signature before compiling.
  rt::StatusOr<tooling::RunInputs> inputs =
      tooling::bindInputs(*module, &context);
  if (!inputs)
    return fail(inputs.status());
  FailureOr<rt::Plan> plan = tooling::compileToPlan(
      *module, *devices, pipeline, tooling::verifyEachFlag());
  if (failed(plan)) // The diagnostics are printed.
    return fail(tooling::reportedError(tooling::exceedsMemoryLimit(*module)
                                           ? rt::StatusCode::OutOfMemory
                                           : rt::StatusCode::InvalidArgument));
  if (rt::Status same = tooling::checkSameProgram(cluster, *module); !same)
    return fail(same);
  tooling::RunSetup setup{&context, &sourceMgr, tooling::runInputFile(),
                          machine->get(), &cluster, &*devices, &pipeline};
  if (rt::Status ran =
          tooling::runPlan(std::move(*plan), std::move(*inputs), setup);
      !ran)
    return fail(ran);
  return 0;
}

int main(int argc, char **argv) {
  return tooling::finishStdout("gplace-run", run(argc, argv));
}
