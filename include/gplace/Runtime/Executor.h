//===- Executor.h - runs a plan ---------------------------------*- C++ -*-===//
//
// Loads a runtime::Plan onto a DeviceManager's devices (arena and persistent
// memory, constants and variable initial values) and runs it any number of
// times. Each (device, stream) of the plan runs its steps in order on its
// own thread of an LLVM thread pool, so independent work on different
// streams overlaps; events order the streams. Variables keep their values
// from one run to the next. Fusion groups, decided by the compiler
// (--gplace-fuse-elementwise), run as one kernel each.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_EXECUTOR_H
#define GPLACE_RUNTIME_EXECUTOR_H

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Transport.h"

#include <memory>
#include <vector>

namespace gplace::runtime {

/// How an Executor runs its plan.
struct ExecutorOptions {
  /// Capture each GPU's part of the plan (CUDA or emulated: its launches,
  /// copies, events and updates) into one graph when the plan loads and
  /// replay it on each run, as one node between the events the GPU
  /// exchanges with other devices (`--cuda-graphs`, on by default); off
  /// issues the steps one by one on every run. A GPU whose part waits for
  /// work that depends on its own (a CPU step between two of its steps)
  /// runs step by step.
  bool graphs = true;
  /// The links to the other tasks of a cluster, for the plan's send and
  /// recv launches and its all-reduces across tasks (gplace-run's
  /// MpiTransport); null in a single process, where those are errors. Not
  /// owned: it outlives the executor. Each executor has its own, so that
  /// executors of different clusters can share a process.
  Transport *transport = nullptr;
  /// The CPU kernels' intra-op threads (OpenMP's team, shared by oneDNN's
  /// primitives and the host kernels' parallel loops), as TensorFlow's
  /// intra_op_parallelism_threads (--intra-op-parallelism-threads): N > 0
  /// uses N; 0 adapts, up to the CPUs the process may use, dropping to one
  /// while the machine is oversubscribed (IntraOpThreads, Threads.h).
  int intraOpThreads = 0;
  /// The most kernels that run at once, over all streams, as TensorFlow's
  /// inter_op_parallelism_threads bounds the ops run in parallel
  /// (--inter-op-parallelism-threads): 0, the default, no bound (each
  /// stream's thread runs its kernels as they come); N > 0, at most N
  /// (KernelSlots). Every stream keeps its thread: all-reduce members,
  /// sends, receives, copies and events are not bounded (they wait for
  /// other streams); an emulated GPU's replayed graph (`graphs`) holds one
  /// slot while it runs, a CUDA GPU's (an enqueue) none; a control-flow
  /// step's sub-plans share the plan's slots. Negative is an error of
  /// Executor::create.
  int interOpThreads = 0;
  /// Time every step of every run on the host (`gplace-run --trace`):
  /// timedSteps() returns them. Off, a run pays one test of a flag per
  /// step. On, every GPU issues its steps one by one (no graph replay, as
  /// `--cuda-graphs=off`), so that each step has its own times.
  bool trace = false;
};

/// One step of a run as the host timed it (ExecutorOptions::trace), or a
/// whole run. Times are steady_clock nanoseconds since the executor was
/// created: around the step's call on its stream's thread. The CPU and
/// emulated GPUs run a step synchronously in that call, so it is the
/// step's time; a CUDA GPU only queues it, so the interval is the enqueue
/// (`enqueued` true) and its work runs later on the GPU.
struct TimedStep {
  /// "launch" (a kernel or a fused kernel), "copy", "send", "recv",
  /// "allreduce" (one member's part), "wait" (for an event another stream
  /// records: a cross-device dependency), or "run" (a whole run, from the
  /// first step issued to every device synchronized).
  const char *category = "";
  std::string label;  ///< The step's ("MatMul (gplace.matmul)"); "run N".
  std::string device; ///< The device's full name; "" for a run.
  int stream = 0;
  uint32_t run = 0;  ///< Which run of the executor, from 0.
  int64_t startNanos = 0, endNanos = 0;
  int64_t bytes = 0; ///< A copy's bytes.
  bool enqueued = false;
};

class KernelSlots; // Threads.h

class Executor {
public:
  /// Loads `plan`: allocates its memory, uploads constants and initial
  /// values, resolves every step's operands, gathers each fusion group into
  /// one FusedCall, prepares (compiles) every kernel and, as
  /// `options.graphs` asks, captures the program into a graph. Errors: a
  /// device the plan needs that `devices` lacks, memory the device cannot
  /// provide (naming device, request and limit), a kernel that does not
  /// compile. A capture that fails is not an error: the plan then runs step
  /// by step and graphNote() says why.
  static StatusOr<std::unique_ptr<Executor>>
  create(Plan plan, const DeviceManager &devices,
         const ExecutorOptions &options = {});
  ~Executor();

  /// Runs the program once on `inputs` (one per program input, of the
  /// plan's types; a mismatch is an error naming the input) and returns its
  /// results in host memory. A failing step stops the run with an error
  /// naming the op and its device.
  StatusOr<std::vector<HostTensor>> run(const std::vector<HostTensor> &inputs);

  /// Program input #index's staging memory: the host memory the plan reads
  /// that input from (pinned when a CUDA GPU is among the plan's devices),
  /// of the plan's type; `index` below the plan's number of inputs. A
  /// caller that fills it and calls runStaged() saves run()'s copy of the
  /// inputs, as IREE's imported host buffers do.
  TensorRef stagedInput(size_t index) const;

  /// Runs the program once on the inputs in stagedInput() and returns its
  /// results as views of host memory the executor owns (pinned staging for
  /// results on a GPU; the buffer itself on host-memory devices), valid
  /// until the next run. Errors as run().
  StatusOr<std::vector<TensorRef>> runStaged();

  /// Whether runBound reads the inputs where the caller keeps them: every
  /// device of the plan reads host memory (the CPU, emulated GPUs), none
  /// replays a captured graph and no all-reduce takes a program input.
  bool canBindInputs() const;

  /// Runs the program once with input #i read from `inputs[i]`: host
  /// memory holding a value of the plan's input type, unchanged until the
  /// call returns. Where canBindInputs(), the kernels read it in place (no
  /// copy: a NumPy array, IREE's imported host buffers); else it is copied
  /// into stagedInput() first. Results and errors as runStaged(); a wrong
  /// number of inputs is an invalid argument.
  StatusOr<std::vector<TensorRef>>
  runBound(const std::vector<const void *> &inputs);

  /// The plan's variables (gplan.variable), by index < numVariables():
  /// their names (the graph op's name: "dense/kernel", or TensorFlow's
  /// default "Variable_1") and types. Between runs only, their values can
  /// be read into host memory and written from it (checkpoints, an
  /// initialisation function's values). Errors: a value of another type
  /// (invalid argument, naming the variable), the device's copy errors.
  size_t numVariables() const;
  const std::string &variableName(size_t index) const;
  const TensorType &variableType(size_t index) const;
  StatusOr<HostTensor> readVariable(size_t index) const;
  /// The variable's own buffer, where it lies in host memory (the CPU,
  /// emulated GPUs), for a reader that would otherwise copy it
  /// (checkpoints); valid until the next run or the plan's unload. A null
  /// `data` where it lies in a CUDA GPU's memory: use readVariable.
  TensorRef hostVariable(size_t index) const;

  /// The intra-op thread count the CPU kernels of the next run use (see
  /// ExecutorOptions::intraOpThreads).
  int intraOpThreads() const;
  Status writeVariable(size_t index, const HostTensor &value);

  /// True if some device replays a captured graph on each run.
  bool usesGraph() const;
  /// One line for the log saying which GPUs replay a graph and why the
  /// others do not ("CUDA graphs: on: <GPU:0's full name> replays its 42
  /// steps as one graph per run", "CUDA graphs: off (--cuda-graphs=off)");
  /// "" for a plan on no GPU.
  const std::string &graphNote() const;
  /// How the plan's all-reduces run (CollectiveExecutor::note); "" when it
  /// has none.
  std::string collectiveNote() const;

  /// The number of fused kernels (fusion groups) the plan runs, and the
  /// launches they replace.
  size_t numFusedKernels() const;
  size_t numFusedLaunches() const;

  /// With ExecutorOptions::trace, the steps every run so far has run (the
  /// steps of a failed run up to the failure), each stream's in order,
  /// and one "run" entry per run; empty without. Call between runs.
  std::vector<TimedStep> timedSteps() const;

  class Impl;

private:
  explicit Executor(std::unique_ptr<Impl> impl);
  /// create() with the kernel slots (null: no bound) the executor shares
  /// with the plan's other executors: a control-flow step's sub-plans take
  /// their parent's, so the whole plan has one bound.
  static StatusOr<std::unique_ptr<Executor>>
  create(Plan plan, const DeviceManager &devices,
         const ExecutorOptions &options,
         std::shared_ptr<KernelSlots> kernelSlots);
  std::unique_ptr<Impl> impl_;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_EXECUTOR_H
