//===- Cluster.h - a cluster of processes, each a task -----------*- C++ -*-===//
//
// What gplace-run does under mpirun (docs/distributed.md) besides reading
// --cluster (gplace/Support/ClusterSpec.h): the exchange of the tasks'
// device lists, and each task's part of the plan every task compiles.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_CLUSTER_H
#define GPLACE_TOOLING_CLUSTER_H

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Transport.h"
#include "gplace/Support/ClusterSpec.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Tooling/Machine.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gplace::tooling {

/// The devices of one task as text for the exchange between tasks (JSON:
/// each device's full name, memory limit in bytes and description).
std::string serializeDevices(const DeviceSet &devices);

/// The whole cluster's devices: the union of every task's serialized list.
/// Errors (internal): a list that does not parse, a device listed twice.
runtime::StatusOr<DeviceSet>
mergeDevices(const std::vector<std::string> &serialized);

/// This task's part of `plan`, which every task compiled for the whole
/// cluster and --gplace-partition-tasks split: the devices `local` has, the
/// steps on them, their constants and variables; buffers on other tasks'
/// devices are never in this task's memory (BufferDesc::Kind::Register),
/// and results on other tasks are dropped (the chief's part returns every
/// result). Errors (internal): a local step that reads another task's
/// buffer or waits for its event (the plan was not partitioned).
runtime::StatusOr<runtime::Plan> localPlan(const runtime::Plan &plan,
                                           const runtime::DeviceManager &local);

/// The warning for a task whose part of the plan (`local`) has more streams
/// (distinct device and stream pairs, each a thread of its own) than the
/// `affinityCpus` its affinity mask allows, while its parent process (the
/// MPI daemon that started it) may run on `parentCpus`, more: mpirun bound
/// it (Open MPI binds each rank to a core by default), so its streams,
/// OpenMP's workers and MPI's progress thread share those CPUs. A
/// container's or a scheduler's CPU set limits the parent too, and is not
/// warned of. "" when none of this holds (or a count is 0: unknown).
/// `task` names the task in the message (/job:worker/task:1).
std::string bindingWarning(const runtime::Plan &local, llvm::StringRef task,
                           int affinityCpus, int parentCpus);

/// Whether a task should run on the CPUs of the MPI daemon that started
/// it (`daemon`, its parent's affinity mask, runtime::affinityMask) rather
/// than its own (`own`): Open MPI bound it by its default policy, and
/// `own` is a strict subset of `daemon`. Open MPI 4 binds each rank to a
/// core when the job has two ranks or fewer (to a NUMA domain or a socket
/// beyond; none when oversubscribed), where a gplace task's threads (its
/// streams, OpenMP's workers, MPI's progress thread) would share one core.
/// Read from `env` (the environment; a parameter for tests): bound at
/// launch (OMPI_MCA_orte_bound_at_launch=1), at most 2 ranks in the job
/// (OMPI_COMM_WORLD_SIZE), and none of the variables mpirun sets for a
/// binding, mapping or placement asked of it (--bind-to, --map-by,
/// --cpus-per-rank, --cpu-list, --cpu-set, --rankfile, -N/--npernode,
/// --npersocket, --report-bindings, or their OMPI_MCA_ variables). A
/// binding set in an MCA parameter file leaves no variable and is not seen.
bool adoptsDaemonAffinity(llvm::function_ref<const char *(const char *)> env,
                          const std::vector<unsigned long> &own,
                          const std::vector<unsigned long> &daemon);

/// Where adoptsDaemonAffinity holds for this process (its environment, its
/// mask and its parent's) and the kernel gives the calling thread more
/// CPUs with the parent's mask (a cpuset may limit it), moves the thread
/// there and records it for the image the caller then starts (exec), so
/// that the libraries that size themselves when they load (libgomp,
/// OpenBLAS) see the new mask, as under `mpirun --bind-to none`
/// (reexecAtStartup, Machine.h): GPLACE_ADOPTED_AFFINITY =
/// "<pid>,<CPUs before>,<CPUs now>". Returns whether it moved.
bool adoptDaemonAffinityBeforeExec();

/// In the image a move started: takes the record out of the environment
/// (any record: one another process left is ignored) and returns whether
/// it was this process's (its pid: exec keeps it), keeping the counts for
/// adoptedAffinityNote. Call first in main, while one thread runs.
bool takeAdoptedAffinityRecord();

/// The note for a process that was moved, naming it `process` ("task
/// /job:worker/task:1"); "" where it was not, or once it was said.
std::string adoptedAffinityNote(llvm::StringRef process);

/// Registers gplace-run's cluster flags (--cluster, --transfer-timeout),
/// listed by --help under clusterCategory(). Call once, before
/// cl::ParseCommandLineOptions.
void registerClusterFlags();
const llvm::cl::OptionCategory &clusterCategory();

/// This process's place in a cluster that mpirun launched (or a process of
/// its own, without --cluster): its task and the links to the others.
struct ClusterTask {
  std::optional<ClusterSpec> spec;                ///< --cluster; none alone.
  std::unique_ptr<runtime::Transport> transport;  ///< MPI; null alone.
  int rank = 0;

  /// The chief (rank 0) prints and writes what the run prints and writes.
  bool chief() const { return rank == 0; }
  /// Several processes share stderr: write each message at once.
  bool sharesStderr() const { return transport && transport->size() > 1; }
  /// This task as a device-name prefix (/job:worker/task:1); none alone.
  std::optional<DeviceName> task() const;
  /// Ends the run with exit code `code`: once MPI has started, an error in
  /// one task ends the whole job (MPI_Abort), as the other tasks would wait
  /// for this one. Returns `code` in a process of its own.
  int end(int code);
};

/// Starts the cluster the flags name (registerClusterFlags first): MPI
/// (which may take its own arguments out of `argc`/`argv`), with each rank
/// named after its task. Errors: a --cluster that does not parse, a task
/// count other than mpirun's, a --transfer-timeout out of (0, a week], a
/// gplace-run built without MPI (invalid argument); MPI's own (as
/// MpiTransport::create).
runtime::StatusOr<ClusterTask> startClusterFromFlags(int *argc, char ***argv);

/// Before the first step: every task of `cluster` must run the same
/// program, compiled with the same options (TensorFlow's workers each
/// build one graph, and nothing else would catch two that differ: the
/// tasks' sends and receives would match wrongly and give a wrong answer).
/// Compares a hash (xxh3) of the compiled `module`'s text, which holds the
/// program, the devices and every option that changed it, across the
/// tasks. Errors (invalid argument): the tasks whose programs differ from
/// the chief's, by name. Nothing to check without a cluster.
runtime::Status checkSameProgram(ClusterTask &cluster, mlir::ModuleOp module);

/// The devices to compile for: the machine's alone, or in a cluster every
/// task's devices with their full names (this task's devices renamed to its
/// job and task, then exchanged). Errors: the exchange's (internal).
runtime::StatusOr<DeviceSet> clusterDevices(ClusterTask &cluster,
                                            Machine &machine);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_CLUSTER_H
