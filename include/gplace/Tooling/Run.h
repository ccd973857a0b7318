//===- Run.h - gplace-run's steps, from its flags ---------------*- C++ -*-===//
//
// What gplace-run does with a compiled graph, as IREE's run_module does for
// iree-run-module: its flags (--entry, --input, --output, --iterations,
// --epochs, --shuffle, --init, --restore, --save, --print-timing, --trace) are
// declared here, next to their one user, and each step is a function the
// tool calls in order: read the model, bind the inputs (values or a data
// set), load the plan (this task's part in a cluster), run --init and
// restore a checkpoint, run the loop, write or print the results.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_RUN_H
#define GPLACE_TOOLING_RUN_H

#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"
#include "gplace/Support/Trace.h"
#include "gplace/Tooling/Cluster.h"
#include "gplace/Tooling/Dataset.h"
#include "gplace/Tooling/Machine.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <vector>

namespace gplace::tooling {

/// Registers every flag gplace-run takes: the run's own (runCategory(),
/// with the positional input file, runInputFile()),
/// registerCompileFlags', registerMachineFlags', registerClusterFlags',
/// the ONNX importer's, MLIR's pass-manager, timing, printer and context
/// options (--mlir-*), and the passes by name (for
/// --mlir-print-ir-after=<pass>); hides LLVM's library options from
/// --help. Call once, before cl::ParseCommandLineOptions.
void registerRunFlags();
const llvm::cl::OptionCategory &runCategory();
/// The positional argument: the .mlir or .onnx file to run ("-": stdin).
const std::string &runInputFile();

/// Whether the command line asks about the machine instead of running a
/// graph (--list-devices, --profile): no input is read.
bool machineCommandFlag();

/// Runs the machine command the flags ask for on `machine`: --list-devices
/// prints describeMachine; --profile=FILE measures the devices and links
/// (measureProfile, compiling in `context`) and writes them. Errors: the
/// measurement's, a file that cannot be written.
runtime::Status runMachineCommand(mlir::MLIRContext &context, Machine &machine);

/// Checks the flags that need nothing else: --iterations and --epochs at
/// least 1, each --output an @FILE, --save and --restore not empty, and
/// checkCompileFlags. Errors (invalid argument) name the flag.
runtime::Status checkRunFlags();

/// The chief's files are written after the run, which may be hours of
/// training: checks now that each --output, --save and --trace can be
/// written.
runtime::Status checkOutputsWritable();

/// A dialect registry with what gplace-run parses and compiles: the graph,
/// plan and func dialects and func's inliner.
mlir::DialectRegistry runDialects();

/// Reads `fileName` ("-": stdin) as a module of one function, --entry and
/// what it calls: an .mlir file parsed through `sourceMgr` (so that
/// diagnostics show its lines) or an .onnx model imported with its
/// symbolic dimensions bound to the shapes of the --input values. Errors:
/// a file that does not open or parse (its diagnostics reported through
/// the context; the status is invalid argument), --init with an ONNX
/// model, no function --entry (naming the file's).
runtime::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>>
loadModule(llvm::StringRef fileName, mlir::MLIRContext *context,
           llvm::SourceMgr &sourceMgr);

/// The entry's inputs as --input gives them: each a value of its
/// argument's type (SPEC §7, .npy, ONNX's .pb), or, for an @FILE of more
/// samples than the argument's leading dimension, a data set fed in
/// mini-batches (Dataset.h).
struct RunInputs {
  std::vector<runtime::HostTensor> values; ///< One per argument; batched
                                           ///< ones are filled per step.
  std::optional<Dataset> dataset;
  std::vector<unsigned> batched; ///< The arguments the data set feeds.
  /// Whether the function writes a variable (trains): its runs are
  /// training steps, counted in a checkpoint's global_step.
  bool updatesVariables = false;
};

/// Binds the --input flags to `module`'s function. Errors (invalid
/// argument): a count other than the function's inputs (listing their
/// types), a value parseInput refuses, --iterations with a data set,
/// --epochs or --shuffle without one, the data set's (Dataset::create).
runtime::StatusOr<RunInputs> bindInputs(mlir::ModuleOp module,
                                        mlir::MLIRContext *context);

/// What running a compiled plan needs besides it and its inputs.
struct RunSetup {
  mlir::MLIRContext *context = nullptr;
  llvm::SourceMgr *sourceMgr = nullptr; ///< The file --init is read from.
  llvm::StringRef fileName;
  Machine *machine = nullptr;
  ClusterTask *cluster = nullptr;
  const DeviceSet *devices = nullptr;       ///< Those compiled for.
  const PipelineOptions *pipeline = nullptr; ///< Those compiled with.
};

/// Runs `plan` as the run flags ask: checks the --output count and types
/// against its results and --save against its variables; compiles, runs
/// and unloads the --init function (in a cluster, on this task's devices
/// alone, through --gplace-localize-task) and sets the entry's variables
/// from its; loads the plan (this task's part in a cluster), restores
/// --restore, stages the inputs, runs the loop (printing Keras's epoch
/// lines and saving --save after each epoch on the chief), and on the
/// chief prints --print-timing's line and writes or prints the results
/// (SPEC §7: `result[0]: 2x2xf32=[[22, 28], [49, 64]]`). With
/// --log-device-placement the chief prints the executor's notes (graphs,
/// collectives, fusion). Errors: each step's.
runtime::Status runPlan(runtime::Plan plan, RunInputs inputs,
                        const RunSetup &setup);

/// The measured timeline of `steps` (Executor::timedSteps) as a Chrome
/// trace (gplace-run --trace): process `pid` named `processName`; track 0,
/// "runs", holds one slice per run; then one track per (device, stream),
/// named by the device's full name (" (stream N)" after it for streams
/// other than 0), with a slice per step named by its label, of category
/// launch, copy, send, recv, allreduce or wait. Times in microseconds from
/// the earliest step; each slice's args hold its run index, device,
/// stream, "timing" ("host": the step ran in the interval; "enqueue": a
/// CUDA GPU queued it) and a copy's bytes.
ChromeTrace measuredTrace(llvm::ArrayRef<runtime::TimedStep> steps, int pid,
                          const std::string &processName);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_RUN_H
