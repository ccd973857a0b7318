//===- Compile.h - compile a graph to a runtime plan ------------*- C++ -*-===//
//
// What gplace-run does between parsing a file and running it: choose the
// entry function, run --gplace-pipeline for this process's devices, export
// the plan the runtime loads.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_COMPILE_H
#define GPLACE_TOOLING_COMPILE_H

#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Support/PlacementPolicy.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>

namespace gplace::tooling {

/// Registers gplace-run's compile flags: every option of --gplace-pipeline
/// (PipelineOptions) but `devices`, `gpu-memory-limit` (the machine gives
/// those) and `cluster` (Cluster.h's --cluster gives it) as a top-level flag of the same name, so that the
/// pipeline's own options are the command line (--allow-soft-placement,
/// --policy, --replicas, ...); --gpu-fusion, another name of
/// --fuse-elementwise; --verify-each; and --load-policy. Listed by --help
/// under compileCategory(). Call once, before cl::ParseCommandLineOptions.
void registerCompileFlags();
const llvm::cl::OptionCategory &compileCategory();

/// --gplace-pipeline's options as the command line set them
/// (registerCompileFlags first). A tool may change them before compiling.
PipelineOptions &pipelineFlags();

/// Checks that each compile flag given applies: --replicas at least 1
/// where given; --replica-variables and --all-reduce only with --replicas
/// or --replicate. Errors (invalid argument) name the flags.
runtime::Status checkCompileFlags();

/// --verify-each: MLIR's verifier after every pass. Off by default, as in
/// a release compiler (LLVM opt's default is on; gplace-opt keeps it):
/// the input is verified when parsed or imported and the plan by
/// --gplace-verify-plan either way.
bool verifyEachFlag();

/// The placement policies a compilation may call: the built-in ones and
/// those of each --load-policy plugin. Errors (invalid argument): a plugin
/// that does not load, naming it.
runtime::StatusOr<std::unique_ptr<PolicyRegistry>> policiesFromFlags();

/// Keeps function @`entry` of `module` and the functions it calls
/// (transitively, made private: compileToPlan inlines them, as TensorFlow
/// places a function's body where it is called), and erases the others.
/// Error (invalid argument): no such function, naming `fileName`, the
/// functions there are and `flag`, the flag that chooses one.
runtime::Status selectEntry(mlir::ModuleOp module, llvm::StringRef entry,
                            llvm::StringRef fileName,
                            llvm::StringRef flag = "--entry");

/// Checks that `devices` can hold what `options` asks for: --replicas=N
/// needs N GPUs. Errors (invalid argument) name the count it has.
runtime::Status checkDevicesFor(const PipelineOptions &options,
                                const DeviceSet &devices);

/// True if compiling `module` with `options` may call the placement policy
/// `name`: it is the option's or a function's `gplace.device_policy`.
bool usesPolicy(mlir::ModuleOp module, const PipelineOptions &options,
                llvm::StringRef name);

/// After compileToPlan failed on `module`: true if the failure is the
/// memory plan's, a device whose planned peak (gplan.device's peak_bytes)
/// exceeds its memory limit, or the plan's host memory (planHostMemoryMiB)
/// more than the process may use: TensorFlow's ResourceExhausted, found at
/// compile time.
bool exceedsMemoryLimit(mlir::ModuleOp module);

/// Compiles `module` (one function, see selectEntry) for `devices` with
/// --gplace-pipeline and `options` (after MLIR's --inline and --symbol-dce if
/// it has calls; the context needs the func dialect's inliner extension), the
/// pass manager's command-line options applied
/// (--mlir-print-ir-after-all, --mlir-timing, ...), and exports its program
/// as a runtime::Plan, each device's livenessBoundBytes filled in (the
/// figure --gplace-print-memory-plan prints). Placement policies are those
/// of the context's graph dialect, and so is the placement report, where a
/// caller set one (GraphDialect::setPlacementReport). With
/// `verifyEachPass`, MLIR's verifier runs after every pass. Errors are
/// diagnostics, reported through the context.
mlir::FailureOr<runtime::Plan>
compileToPlan(mlir::ModuleOp module, const DeviceSet &devices,
              const PipelineOptions &options, bool verifyEachPass = false);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_COMPILE_H
