//===- Compile.h - compile a graph to a runtime plan ------------*- C++ -*-===//
//
// What gplace-run does between parsing a file and running it: choose the
// entry function, run --gplace-pipeline for this process's devices, export
// the plan the runtime loads.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_COMPILE_H
#define GPLACE_TOOLING_COMPILE_H

#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Support/DeviceName.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace gplace::tooling {

/// gplace-run's compilation options (SPEC §3, §4): those of --gplace-place,
/// max-inflight-copies, whether elementwise runs fuse on GPUs, and
/// --gplace-print-memory-plan.
struct CompileOptions {
  bool allowSoftPlacement = false;
  std::string policy;
  /// REGEX=DEVICE rules for --gplace-assign-by-name ("": none).
  std::string assignByName;
  /// The cost model's rates for policy=auto (a file gplace-run --profile
  /// wrote; "": the defaults).
  std::string profile;
  bool logDevicePlacement = false;
  unsigned maxInflightCopies = 0;
  bool fuseElementwise = true;
  bool layoutOptimizer = true; ///< --gplace-layout runs (--layout-optimizer).
  bool remapping = true; ///< --gplace-remap runs (gplace-run --remapping).
  /// --gplace-fold-constants runs (gplace-run --fold-constants).
  bool foldConstants = true;
  bool printMemoryPlan = false;
  /// MLIR's verifier after every pass (gplace-run --verify-each): off, as
  /// in a release compiler; the input is verified when parsed or imported
  /// and the plan by --gplace-verify-plan either way. gplace-opt keeps it.
  bool verifyEachPass = false;
  unsigned replicas = 0; ///< --replicas: towers over GPU:0..N-1 (0: none).
  std::string replicaVariables = "mirrored"; ///< --replica-variables.
  std::string allReduce = "collective"; ///< --all-reduce.
  /// --replicate: --gplace-replicate's options, after those two.
  std::string replicate;
  /// --cluster: the jobs and task counts in rank order ("" : one process).
  std::string cluster;
};

/// Keeps function @`entry` of `module` and the functions it calls
/// (transitively, made private: compileToPlan inlines them, as TensorFlow
/// places a function's body where it is called), and erases the others.
/// Error (invalid argument): no such function, naming `fileName` and the
/// functions there are.
runtime::Status selectEntry(mlir::ModuleOp module, llvm::StringRef entry,
                            llvm::StringRef fileName);

/// True if compiling `module` with `options` may call the placement policy
/// `name`: it is the option's or a function's `gplace.device_policy`.
bool usesPolicy(mlir::ModuleOp module, const CompileOptions &options,
                llvm::StringRef name);

/// After compileToPlan failed on `module`: true if the failure is the
/// memory plan's, a device whose planned peak (gplan.device's peak_bytes)
/// exceeds its memory limit: TensorFlow's ResourceExhausted, found at
/// compile time.
bool exceedsMemoryLimit(mlir::ModuleOp module);

/// Compiles `module` (one function, see selectEntry) for `devices` with
/// --gplace-pipeline (after MLIR's --inline and --symbol-dce if it has
/// calls; the context needs the func dialect's inliner extension), the pass manager's command-line options applied
/// (--mlir-print-ir-after-all, --mlir-timing, ...), and exports its program
/// as a runtime::Plan. Placement policies are those of the context's graph
/// dialect. Errors are diagnostics, reported through the context.
mlir::FailureOr<runtime::Plan> compileToPlan(mlir::ModuleOp module,
                                             const DeviceSet &devices,
                                             const CompileOptions &options);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_COMPILE_H
