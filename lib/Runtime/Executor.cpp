//===- Executor.cpp - runs a plan on streams ------------------------------===//

#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Threads.h"

#include "HostLaunch.h"

#include "gplace/Runtime/Collective.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Transport.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <functional>
#include <set>

namespace gplace::runtime {

namespace {

/// How long a stream's thread, or the caller, spins (yielding; spinUntil)
/// waiting for another stream before it blocks (TaskTeam, waitForEvent):
/// longer than a VM's futex wake-up (10-60 µs), short enough that an idle
/// process stops spinning at once. Blocking at once cost a wake-up per
/// handoff: train.mlir took 0.07 ms a step on one emulated GPU against
/// 0.006 ms, and 0.24 ms on four against 0.10 ms (2 CPUs;
/// docs/runtime.md). A run of one task never waits for another thread,
/// so the spin only matters where there are several.
constexpr std::chrono::microseconds kStreamSpin{50};

/// An event of the plan: reached once per run. Waiters also wake when the
/// run fails, so that no stream waits forever.
struct Event {
  std::mutex mutex;
  std::condition_variable reached;
  /// The run in which it was last recorded (written under `mutex`; read
  /// without it by a waiter's spin).
  std::atomic<uint64_t> generation{0};
  Device *recorder = nullptr;
  std::unique_ptr<DeviceEvent> deviceEvent; ///< The recorder's half.
};

/// A step with its operands resolved to memory.
/// The fields a run reads come first, together.
struct ResolvedStep {
  const Step *step = nullptr;
  /// A fusion group's launches (then `step` is the first of them).
  std::unique_ptr<FusedCall> fused;
  /// A fusion group on a device that runs host kernels, compiled at load
  /// (compileHostFused), which the stream runs itself unless it captures;
  /// null: Device::launchFused.
  HostFusedProgramPtr hostFused;
  /// The step's kind and stream, and whether it is a collective's member:
  /// what each run reads of the step, kept here so that a run of many
  /// small launches reads one record per step, not two.
  Step::Kind kind = Step::Kind::Launch;
  bool collective = false;
  /// A launch of control flow (if, while): runs sub-plans, not a kernel.
  bool controlFlow = false;
  int stream = 0;
  Device *device = nullptr;
  /// Launch on a device that runs host kernels: the kernel, which the
  /// stream calls itself (hostKernelFunction) unless it captures.
  HostKernelFn hostKernel = nullptr;
  KernelCall call;          ///< Launch.
  /// Launch: the kernel's state between runs (call.state points here).
  std::unique_ptr<std::unique_ptr<KernelState>> state;
  Device *source = nullptr; ///< Copy: the device of the source.
  void *target = nullptr;   ///< Copy.
  const void *from = nullptr;
  int64_t bytes = 0;
  /// A fusion group's buffer each of its ops writes.
  std::vector<int> fusedBuffers;
};

} // namespace

class Executor::Impl {
public:
  Plan plan;
  std::vector<Device *> devices;
  Device *host = nullptr;
  /// The primitives host kernels keep across launches of one shape.
  KernelCache kernelCache;
  /// The CPU kernels' OpenMP team size, updated before each run.
  std::unique_ptr<IntraOpThreads> intraOpThreads;
  std::vector<void *> arenas;
  std::vector<void *> persistents;
  /// The buffers' types, one object per distinct type, which launches'
  /// TensorRefs point at: the launches of one shape read one type (a
  /// run of many small launches reads a few types from cache, not one
  /// per buffer from memory).
  std::map<std::pair<ElementType, std::vector<int64_t>>,
           std::unique_ptr<TensorType>>
      internedTypes;
  std::vector<void *> inputs; ///< Host staging, one per program input.
  Device *staging = nullptr;  ///< The device that allocated `inputs`.
  /// Per result: host staging of the result's device (nullptr where the
  /// result's memory is host memory and is read in place).
  std::vector<void *> resultStaging;
  std::vector<void *> addresses; ///< Per buffer.
  std::vector<ResolvedStep> steps;
  std::vector<std::vector<size_t>> streams; ///< Step indices per stream.
  /// Per stream, its launch list compiled at load: one record per step,
  /// in order, a compiled elementwise launch (compileHostLaunch) or, with
  /// `run` null, the step to run through runStep (`n`: its index), which
  /// a run walks instead of the steps where it neither traces nor
  /// captures (bench/results/2026-11-30-dispatch-2.md).
  std::vector<std::vector<CompactLaunch>> launchLists;
  std::vector<std::unique_ptr<Event>> events;
  /// The streams' threads (a plan of several streams): the caller and
  /// streams.size() - 1 workers.
  std::unique_ptr<TaskTeam> team;
  /// ExecutorOptions::interOpThreads > 0: the kernels that may run at
  /// once, whatever the stream (holdsSlot), shared with the sub-plans'
  /// executors; null for no bound.
  std::shared_ptr<KernelSlots> kernelSlots;
  /// Per device: its replayed graph holds a slot (a device of host memory,
  /// an emulated GPU, which runs its kernels in the replay, and none of
  /// whose steps waits for another thread).
  std::vector<bool> graphHoldsSlot;
  /// The members of all-reduces (launches of collective_reduce), by index
  /// into `steps`: they run together, not as kernels.
  CollectiveExecutor collectives;
  /// One per Plan::subplans: the executors control-flow steps run.
  std::vector<std::unique_ptr<Executor>> subExecutors;

  std::vector<int> streamDevice; ///< Per stream: its device's index.
  /// Graph mode, per device (index into `devices`): its captured steps
  /// (null: it runs step by step), the events it waits for that other
  /// devices record and those it records that other devices wait for.
  std::vector<std::unique_ptr<DeviceGraph>> graphs;
  std::vector<std::vector<int>> graphWaits, graphRecords;
  int capturing = -1; ///< The device being captured, while it is.
  /// While captureGraphs decides, per device: whether it may still run in
  /// graph mode (a GPU that can capture, has steps, and is not yet ruled
  /// out).
  std::vector<bool> graphCandidates;
  std::string graphNote;

  /// Per program input: the operand fields that hold its staging address
  /// (kernels' and fused kernels' operands, copies' sources), which
  /// runBound points at the caller's memory for one run; empty where the
  /// inputs cannot be bound (bindable false).
  struct InputSlot {
    void **operand = nullptr;     ///< A kernel's TensorRef::data.
    const void **from = nullptr;  ///< A copy's source.
    void set(const void *address) {
      if (operand)
        *operand = const_cast<void *>(address);
      else
        *from = address;
    }
  };
  std::vector<std::vector<InputSlot>> inputSlots;
  bool bindable = false;

  size_t numFused = 0, numFusedLaunches = 0;
  uint64_t generation = 0;

  /// Tracing (ExecutorOptions::trace): per stream, the steps it ran, each
  /// with its run and steady_clock interval (nanoseconds since `origin`),
  /// appended by the stream's thread alone; and each run's interval.
  struct Timed {
    size_t step;
    uint32_t run;
    int64_t start, end;
  };
  bool tracing = false;
  std::chrono::steady_clock::time_point origin;
  std::vector<std::vector<Timed>> timed;
  std::vector<Timed> timedRuns;
  uint32_t runs = 0; ///< Runs started (runStaged).
  int64_t nanos() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now() - origin)
        .count();
  }
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  Status error;

  ~Impl() {
    for (size_t d = 0; d < arenas.size(); ++d)
      if (arenas[d])
        devices[d]->deallocate(arenas[d], plan.devices[d].arenaBytes);
    for (size_t i = 0; i < persistents.size(); ++i)
      if (persistents[i])
        devices[plan.persistents[i].device]->deallocate(
            persistents[i], plan.persistents[i].initialValue.type.bytes());
    for (void *input : inputs)
      staging->deallocateHostStaging(input);
    for (size_t r = 0; r < resultStaging.size(); ++r)
      if (resultStaging[r])
        resultDevice(r)->deallocateHostStaging(resultStaging[r]);
  }

  /// The device holding result #r (the host for a program input).
  Device *resultDevice(size_t r) const {
    int device = plan.buffers[plan.results[r]].device;
    return device < 0 ? host : devices[device];
  }

  /// The plan's host memory against usableHostMemoryBytes(): the host
  /// copies of its constants and variables (held by the plan), the arena,
  /// constants and variables of each device whose memory is host memory
  /// (the CPU, emulated GPUs) and the staged inputs. Allocations the kernel
  /// overcommits would succeed and the process be killed when it touches
  /// them; a plan that needs more than the host has is an error instead.
  Status checkHostMemory() const {
    int64_t usable = usableHostMemoryBytes();
    if (usable <= 0)
      return Status::ok();
    // In MiB, so that no sum of a valid plan's sizes overflows.
    constexpr int64_t kMiB = 1 << 20;
    auto mib = [](int64_t bytes) { return (bytes + kMiB - 1) / kMiB; };
    int64_t copies = 0, onDevices = 0, inputBytes = 0;
    for (const PersistentDesc &desc : plan.persistents) {
      copies += mib(desc.initialValue.type.bytes());
      if (devices[desc.device]->isHostMemory())
        onDevices += mib(desc.initialValue.type.bytes());
    }
    for (size_t d = 0; d < devices.size(); ++d)
      if (devices[d]->isHostMemory())
        onDevices += mib(plan.devices[d].arenaBytes);
    for (const TensorType &type : plan.inputs)
      inputBytes += mib(type.bytes());
    int64_t need = copies + onDevices + inputBytes;
    if (need <= usable / kMiB)
      return Status::ok();
    return Status::outOfMemory(
        "the plan needs " + std::to_string(need) +
        " MiB of host memory (" + std::to_string(copies) +
        " MiB for the host copies of its constants and variables, " +
        std::to_string(onDevices) +
        " MiB for the constants, variables and intermediates of devices in "
        "host memory, " +
        std::to_string(inputBytes) + " MiB for inputs), but this process " +
        "may use " + std::to_string(usable / kMiB) +
        " MiB (physical memory, cgroup memory.max, ulimit -v)");
  }

  Status load(const DeviceManager &manager, Transport *transport) {
    host = &manager.host();
    for (const DeviceDesc &desc : plan.devices) {
      Device *device = manager.find(desc.name);
      if (!device)
        return Status::unavailable("the plan needs device " + desc.name +
                             ", which this process does not have");
      devices.push_back(device);
    }
    GPLACE_RETURN_IF_ERROR(checkHostMemory());
    arenas.assign(devices.size(), nullptr);
    for (size_t d = 0; d < devices.size(); ++d) {
      if (plan.devices[d].arenaBytes == 0)
        continue;
      StatusOr<void *> arena = devices[d]->allocate(plan.devices[d].arenaBytes);
      if (!arena)
        return arena.status();
      arenas[d] = *arena;
    }
    for (const PersistentDesc &desc : plan.persistents) {
      Device *device = devices[desc.device];
      StatusOr<void *> memory =
          device->allocate(desc.initialValue.type.bytes());
      if (!memory)
        return memory.status();
      persistents.push_back(*memory);
      GPLACE_RETURN_IF_ERROR(device->upload(*memory,
                                            desc.initialValue.data.data(),
                                            desc.initialValue.data.size()));
    }
    // Inputs are staged in host memory of the first device that wants its
    // own (pinned memory for a CUDA GPU), else plain host memory.
    staging = host;
    for (Device *device : devices)
      if (!device->isHostMemory()) {
        staging = device;
        break;
      }
    for (const TensorType &type : plan.inputs) {
      StatusOr<void *> memory = staging->allocateHostStaging(type.bytes());
      if (!memory)
        return memory.status();
      inputs.push_back(*memory);
    }
    for (const BufferDesc &buffer : plan.buffers) {
      switch (buffer.kind) {
      case BufferDesc::Kind::Input:
        addresses.push_back(inputs[buffer.index]);
        break;
      case BufferDesc::Kind::Arena:
        addresses.push_back(static_cast<uint8_t *>(arenas[buffer.device]) +
                            buffer.offset);
        break;
      case BufferDesc::Kind::Persistent:
        addresses.push_back(persistents[buffer.index]);
        break;
      case BufferDesc::Kind::Register:
        addresses.push_back(nullptr); // Never in memory.
        break;
      }
    }

    // Results on devices with their own memory are read into host staging
    // allocated once (pinned on CUDA), so that reading them runs at the
    // copy engine's speed.
    for (size_t r = 0; r < plan.results.size(); ++r) {
      Device *device = resultDevice(r);
      void *memory = nullptr;
      if (!device->isHostMemory()) {
        StatusOr<void *> staged = device->allocateHostStaging(
            plan.buffers[plan.results[r]].type.bytes());
        if (!staged)
          return staged.status();
        memory = *staged;
      }
      resultStaging.push_back(memory);
    }

    std::map<std::pair<int, int>, size_t> streamIndex;
    for (const Step &step : plan.steps) {
      auto key = std::make_pair(step.device, step.stream);
      auto [it, isNew] = streamIndex.try_emplace(key, streams.size());
      if (isNew) {
        streams.emplace_back();
        streamDevice.push_back(step.device);
      }
      std::vector<size_t> &stream = streams[it->second];
      // A launch of the fusion group the stream's last step runs joins it.
      if (step.kind == Step::Kind::Launch && step.fusion >= 0 &&
          !stream.empty()) {
        ResolvedStep &last = steps[stream.back()];
        if (last.fused && last.step->fusion == step.fusion) {
          addToFusion(last, step);
          continue;
        }
      }
      ResolvedStep resolved;
      resolved.step = &step;
      resolved.kind = step.kind;
      resolved.stream = step.stream;
      resolved.collective =
          step.kind == Step::Kind::Launch && isCollectiveKernel(step.kernel);
      resolved.controlFlow =
          step.kind == Step::Kind::Launch &&
          (step.kernel == Kernel::If || step.kernel == Kernel::While);
      resolved.device = devices[step.device];
      if (step.kind == Step::Kind::Launch) {
        resolved.call.kernel = step.kernel;
        if (resolved.device->runsHostKernels())
          resolved.hostKernel = hostKernelFunction(step.kernel);
        resolved.call.params = &step.params;
        resolved.call.transport = transport;
        resolved.call.cache = &kernelCache;
        resolved.call.forGpu = resolved.device->type() == DeviceType::GPU;
        resolved.call.intraOpThreads = &intraOpThreads->current();
        for (int b : step.inputs) {
          const BufferDesc &buffer = plan.buffers[b];
          bool constant = buffer.kind == BufferDesc::Kind::Persistent &&
                          !plan.persistents[buffer.index].isVariable;
          resolved.call.inputs.push_back({addresses[b], typeOf(b), constant});
        }
        resolved.state = std::make_unique<std::unique_ptr<KernelState>>();
        resolved.call.state = resolved.state.get();
        for (int b : step.outputs)
          resolved.call.outputs.push_back({addresses[b], typeOf(b)});
        if (step.workspace >= 0) {
          resolved.call.workspace = addresses[step.workspace];
          resolved.call.workspaceBytes =
              plan.buffers[step.workspace].type.bytes();
        }
        if (step.fusion >= 0) {
          resolved.fused = std::make_unique<FusedCall>();
          resolved.fused->type = plan.buffers[step.outputs[0]].type;
          resolved.fused->intraOpThreads = &intraOpThreads->current();
          addToFusion(resolved, step);
          ++numFused;
        }
      } else if (step.kind == Step::Kind::Copy) {
        const BufferDesc &from = plan.buffers[step.inputs[0]];
        resolved.source = from.device < 0 ? host : devices[from.device];
        resolved.from = addresses[step.inputs[0]];
        resolved.target = addresses[step.outputs[0]];
        resolved.bytes = from.type.bytes();
      }
      if (step.kind == Step::Kind::Launch && isCollectiveKernel(step.kernel)) {
        CollectiveMember member;
        member.device = resolved.device;
        member.stream = step.stream;
        member.params = &step.params;
        member.input = resolved.call.inputs[0];
        member.output = resolved.call.outputs[0];
        member.label = step.label;
        GPLACE_RETURN_IF_ERROR(collectives.add(steps.size(), member));
      }
      stream.push_back(steps.size());
      steps.push_back(std::move(resolved));
    }
    GPLACE_RETURN_IF_ERROR(collectives.prepare(transport));
    // Kernels are prepared (compiled) once, now; all-reduces run no kernel.
    for (const std::vector<size_t> &stream : streams)
      for (size_t index : stream) {
        ResolvedStep &resolved = steps[index];
        if (resolved.fused) {
          GPLACE_RETURN_IF_ERROR(
              resolved.device->prepareFused(*resolved.fused));
          if (resolved.device->runsHostKernels())
            resolved.hostFused = compileHostFused(*resolved.fused);
        } else if (resolved.step->kind == Step::Kind::Launch &&
                 !collectives.contains(index) && !resolved.controlFlow)
          GPLACE_RETURN_IF_ERROR(resolved.device->prepare(resolved.call));
      }
    // The launch lists: what a run of each stream reads.
    launchLists.resize(streams.size());
    for (size_t k = 0; k < streams.size(); ++k) {
      launchLists[k].reserve(streams[k].size());
      for (size_t index : streams[k]) {
        const ResolvedStep &resolved = steps[index];
        CompactLaunch launch;
        if (resolved.hostKernel && !resolved.fused &&
            resolved.kind == Step::Kind::Launch && !resolved.collective &&
            !resolved.controlFlow)
          launch = compileHostLaunch(resolved.call);
        if (!launch.run) {
          launch = CompactLaunch();
          launch.n = static_cast<int64_t>(index);
        }
        launchLists[k].push_back(launch);
      }
    }
    for (int i = 0; i < plan.numEvents; ++i)
      events.push_back(std::make_unique<Event>());
    for (const Step &step : plan.steps)
      if (step.kind == Step::Kind::Record) {
        Event &event = *events[step.event];
        event.recorder = devices[step.device];
        event.deviceEvent = event.recorder->createEvent();
      }
    // The streams' team starts with the first run of several tasks
    // (issueAll): a sub-plan that never runs starts no threads. A thread
    // per stream, and TaskTeam counts a run's tasks in 16 bits.
    if (streams.size() > 0xffff)
      return Status::invalidArgument(
          "the plan has " + std::to_string(streams.size()) +
          " streams; the executor runs at most 65535 (one thread each)");
    return Status::ok();
  }

  /// Buffer `b`'s type, interned (internedTypes).
  const TensorType *typeOf(int b) {
    const TensorType &type = plan.buffers[b].type;
    std::unique_ptr<TensorType> &interned =
        internedTypes[{type.elementType, type.shape}];
    if (!interned)
      interned = std::make_unique<TensorType>(type);
    return interned.get();
  }

  /// Adds launch `step` to the fusion group `group` runs: its operands are
  /// values of earlier launches of the group or buffers read from outside
  /// (each once); its value is stored unless its buffer is a register.
  void addToFusion(ResolvedStep &group, const Step &step) {
    FusedCall &fused = *group.fused;
    std::vector<int> &made = group.fusedBuffers;
    FusedCall::Op op;
    op.kernel = step.kernel;
    for (int b : step.inputs) {
      auto earlier = std::find(made.begin(), made.end(), b);
      if (earlier != made.end()) {
        op.operands.push_back(-1 - static_cast<int>(earlier - made.begin()));
        continue;
      }
      TensorRef ref{addresses[b], typeOf(b)};
      auto known = std::find_if(
          fused.inputs.begin(), fused.inputs.end(), [&](const TensorRef &in) {
            return in.data == ref.data && *in.type == *ref.type;
          });
      op.operands.push_back(known - fused.inputs.begin());
      if (known == fused.inputs.end())
        fused.inputs.push_back(ref);
    }
    int output = step.outputs[0];
    if (plan.buffers[output].kind != BufferDesc::Kind::Register) {
      op.output = fused.outputs.size();
      fused.outputs.push_back({addresses[output], typeOf(output)});
    }
    made.push_back(output);
    fused.ops.push_back(std::move(op));
    if (fused.ops.size() <= 4)
      fused.label += (fused.ops.size() > 1 ? "+" : "") + step.label;
    else if (fused.ops.size() == 5)
      fused.label += "+...";
    ++numFusedLaunches;
  }

  /// Fills inputSlots and bindable, after load and capture.
  void findInputSlots();

  void fail(Status status) {
    {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (error.isOk()) // The first failure is the one reported.
        error = std::move(status);
    }
    failed = true;
    collectives.abort();
    for (auto &event : events) {
      std::lock_guard<std::mutex> lock(event->mutex);
      event->reached.notify_all();
    }
  }

  /// Returns once `event` is recorded in this run or the run has failed:
  /// spins for up to kStreamSpin (while the recording stream keeps up, no
  /// wake-up), then blocks.
  void waitForEvent(Event &event) {
    auto reached = [&] {
      return event.generation.load(std::memory_order_acquire) == generation ||
             failed;
    };
    if (spinUntil(reached, kStreamSpin))
      return;
    std::unique_lock<std::mutex> lock(event.mutex);
    event.reached.wait(lock, reached);
  }

  /// True for a step that holds one of kernelSlots while it runs: a
  /// kernel or a fused group. Not an all-reduce member, a send or a
  /// receive (they wait for other streams or tasks), control flow (its
  /// sub-plan's executor has its own slots), nor a copy, a record or a
  /// wait.
  static bool holdsSlot(const ResolvedStep &resolved) {
    if (resolved.fused)
      return true;
    if (resolved.kind != Step::Kind::Launch || resolved.collective ||
        resolved.controlFlow)
      return false;
    return !isTransferKernel(resolved.step->kernel);
  }

  Status runStep(size_t index) {
    ResolvedStep &resolved = steps[index];
    KernelSlots::Hold slot(holdsSlot(resolved) ? kernelSlots.get() : nullptr);
    return runStepNow(resolved, index);
  }

  Status runStepNow(ResolvedStep &resolved, size_t index) {
    if (resolved.fused) {
      if (resolved.hostFused && capturing < 0)
        return runHostFusedProgram(*resolved.hostFused, *resolved.fused);
      return resolved.device->launchFused(*resolved.fused, resolved.stream);
    }
    switch (resolved.kind) {
    case Step::Kind::Launch:
      if (resolved.collective)
        return collectives.run(index);
      if (resolved.controlFlow)
        return runControlFlow(resolved);
      if (resolved.hostKernel && capturing < 0)
        return resolved.hostKernel(resolved.call);
      return resolved.device->launch(resolved.call, resolved.stream);
    case Step::Kind::Copy:
      return resolved.device->copyFrom(resolved.target, *resolved.source,
                                       resolved.from, resolved.bytes,
                                       resolved.stream);
    case Step::Kind::Record: {
      Event &event = *events[resolved.step->event];
      GPLACE_RETURN_IF_ERROR(resolved.device->recordEvent(
          event.deviceEvent.get(), resolved.stream));
      std::lock_guard<std::mutex> lock(event.mutex);
      event.generation = generation;
      event.reached.notify_all();
      return Status::ok();
    }
    case Step::Kind::Wait: {
      // First the record must have been issued (host side), then the
      // waiting stream waits for the device's half of the event.
      Event &event = *events[resolved.step->event];
      // A capture leaves out waits for other devices: each replay is
      // preceded by them (runGraph).
      if (capturing >= 0 && event.recorder != devices[capturing])
        return Status::ok();
      waitForEvent(event);
      if (failed)
        return Status::ok();
      return resolved.device->waitEvent(*event.recorder,
                                        event.deviceEvent.get(), resolved.stream);
    }
    }
    return Status::ok();
  }

  /// A step of control flow (Kernel::If, Kernel::While), on its stream's
  /// thread: reads its condition in host memory, runs the sub-plans on its
  /// operands (read where they lie: the step is on the CPU) and copies the
  /// results into its outputs, as TensorFlow's If and While kernels call
  /// their functions.
  Status runControlFlow(const ResolvedStep &resolved) {
    const Step &step = *resolved.step;
    const KernelCall &call = resolved.call;
    auto isTrue = [](const auto &value) {
      return *static_cast<const uint8_t *>(value.data) != 0;
    };
    if (step.kernel == Kernel::If) {
      Executor &branch = *subExecutors[step.subplans[isTrue(call.inputs[0]) ? 0 : 1]];
      std::vector<const void *> inputs;
      for (size_t i = 1; i < call.inputs.size(); ++i)
        inputs.push_back(call.inputs[i].data);
      StatusOr<std::vector<TensorRef>> results = branch.runBound(inputs);
      if (!results)
        return results.status();
      for (size_t i = 0; i < call.outputs.size(); ++i)
        if (int64_t bytes = call.outputs[i].type->bytes(); bytes > 0)
          std::memcpy(call.outputs[i].data, (*results)[i].data, bytes);
      return Status::ok();
    }
    Executor &cond = *subExecutors[step.subplans[0]];
    Executor &body = *subExecutors[step.subplans[1]];
    // The loop-carried values, in host memory of their own: the body's
    // results are its memory, which its next run overwrites.
    std::vector<std::vector<uint8_t>> carried;
    for (const TensorRef &input : call.inputs) {
      const auto *data = static_cast<const uint8_t *>(input.data);
      carried.emplace_back(data, data + input.type->bytes());
    }
    std::vector<const void *> pointers;
    for (std::vector<uint8_t> &value : carried)
      pointers.push_back(value.data());
    for (;;) {
      StatusOr<std::vector<TensorRef>> test = cond.runBound(pointers);
      if (!test)
        return test.status();
      if (!isTrue((*test)[0]))
        break;
      StatusOr<std::vector<TensorRef>> next = body.runBound(pointers);
      if (!next)
        return next.status();
      for (size_t i = 0; i < carried.size(); ++i)
        if (!carried[i].empty())
          std::memcpy(carried[i].data(), (*next)[i].data, carried[i].size());
    }
    for (size_t i = 0; i < call.outputs.size(); ++i)
      if (!carried[i].empty())
        std::memcpy(call.outputs[i].data, carried[i].data(), carried[i].size());
    return Status::ok();
  }

  /// Runs once: every stream's steps issued (the streams concurrently when
  /// there are several: the caller and the team's threads take one each
  /// and another only after their last returned, so each gets a thread),
  /// or, for a device in graph mode, its graph replayed; `only` >= 0 issues
  /// that device's streams alone (a capture). Returns the first failure.
  Status issueAll(int only = -1) {
    ++generation;
    failed = false;
    error = Status::ok();
    collectives.beginRun();
    std::vector<std::function<void()>> tasks;
    for (size_t d = 0; d < graphs.size(); ++d)
      if (graphs[d] && only < 0)
        tasks.push_back([this, d] { runGraph(d); });
    for (size_t k = 0; k < streams.size(); ++k) {
      int d = streamDevice[k];
      if ((only < 0 && !graphs[d]) || d == only)
        tasks.push_back([this, k] { runStream(k); });
    }
    if (tasks.size() == 1) {
      tasks.front()();
    } else if (tasks.size() > 1) {
      if (!team)
        team = std::make_unique<TaskTeam>(streams.size() - 1, kStreamSpin);
      team->run(tasks);
    }
    return failed ? error : Status::ok();
  }

  /// Device `d`'s part of a run in graph mode: the events of other devices
  /// it waits for, its graph, then the events other devices wait for.
  void runGraph(size_t d) {
    Device &device = *devices[d];
    // An emulated GPU's graph runs its host kernels on this thread.
    intraOpThreads->addKernelThread();
    auto run = [&]() -> Status {
      for (int e : graphWaits[d]) {
        Event &event = *events[e];
        waitForEvent(event);
        if (failed)
          return Status::ok();
        GPLACE_RETURN_IF_ERROR(
            device.waitEvent(*event.recorder, event.deviceEvent.get(), 0));
      }
      {
        KernelSlots::Hold slot(graphHoldsSlot[d] ? kernelSlots.get() : nullptr);
        if (Status launched = device.launchGraph(*graphs[d]); !launched)
          return launched.withContext("the graph of " + device.fullName() +
                                      ": ");
      }
      for (int e : graphRecords[d]) {
        Event &event = *events[e];
        GPLACE_RETURN_IF_ERROR(device.recordEvent(event.deviceEvent.get(), 0));
        std::lock_guard<std::mutex> lock(event.mutex);
        event.generation = generation;
        event.reached.notify_all();
      }
      return Status::ok();
    };
    if (Status status = run(); !status)
      fail(status);
  }

  /// The resolved steps each step must precede: the next on its stream,
  /// and for a record, the waits for its event.
  std::vector<std::vector<size_t>> successors() const {
    std::vector<std::vector<size_t>> next(steps.size());
    std::map<int, std::vector<size_t>> waits;
    for (size_t i = 0; i < steps.size(); ++i)
      if (!steps[i].fused && steps[i].step->kind == Step::Kind::Wait)
        waits[steps[i].step->event].push_back(i);
    for (const std::vector<size_t> &stream : streams)
      for (size_t k = 0; k < stream.size(); ++k) {
        if (k + 1 < stream.size())
          next[stream[k]].push_back(stream[k + 1]);
        const ResolvedStep &step = steps[stream[k]];
        if (!step.fused && step.step->kind == Step::Kind::Record)
          for (size_t w : waits[step.step->event])
            next[stream[k]].push_back(w);
      }
    return next;
  }

  /// Why device `d` cannot run as one graph node ("" if it can): replayed
  /// whole, it must not wait for an event that depends on an event it
  /// records (a CPU step between two of its steps, say), counting every
  /// other device that may run as a graph as one node too: its graph waits
  /// for all it waits for before any of its steps, and records all it
  /// records after them, so reaching any of its steps reaches them all.
  /// Devices decided later can only leave graph mode, which removes such
  /// edges, so no cycle appears after the check (captureGraphs' second
  /// pass counts only the devices that replay graphs). Sets `*isCycle`
  /// when a wait cycle is the reason.
  std::string graphBlocker(size_t d, bool *isCycle) {
    Device *device = devices[d];
    std::set<int> waits, records;
    std::vector<size_t> frontier;
    std::vector<size_t> recordOf(events.size(), steps.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      const ResolvedStep &step = steps[i];
      if (step.fused)
        continue;
      // A member blocks until the other members arrive, which replaying
      // a recording made without them cannot do.
      if (step.device == device && collectives.contains(i))
        return "it takes part in an all-reduce, whose members run together";
      int e = step.step->event;
      if (step.step->kind == Step::Kind::Record)
        recordOf[e] = i;
      else if (step.step->kind == Step::Kind::Wait && step.device == device &&
               events[e]->recorder != device)
        waits.insert(e);
      else if (step.step->kind == Step::Kind::Wait && step.device != device &&
               events[e]->recorder == device)
        records.insert(e);
    }
    for (int e : records)
      frontier.push_back(recordOf[e]);
    std::vector<std::vector<size_t>> next = successors();
    std::vector<std::vector<size_t>> byDevice(devices.size());
    for (size_t i = 0; i < steps.size(); ++i)
      if (!steps[i].fused)
        byDevice[steps[i].step->device].push_back(i);
    std::vector<bool> seen(steps.size(), false), whole(devices.size(), false);
    while (!frontier.empty()) {
      size_t i = frontier.back();
      frontier.pop_back();
      if (i >= steps.size() || seen[i])
        continue;
      seen[i] = true;
      for (size_t j : next[i])
        frontier.push_back(j);
      size_t other = steps[i].step->device;
      if (other != d && graphCandidates[other] && !whole[other]) {
        whole[other] = true;
        frontier.insert(frontier.end(), byDevice[other].begin(),
                        byDevice[other].end());
      }
    }
    for (int e : waits)
      if (recordOf[e] < steps.size() && seen[recordOf[e]]) {
        *isCycle = true;
        return "it waits for " + events[e]->recorder->fullName() +
               ", which waits for it";
      }
    graphWaits[d].assign(waits.begin(), waits.end());
    graphRecords[d].assign(records.begin(), records.end());
    return "";
  }

  /// Graph mode: each device that can capture graphs (a CUDA GPU, an
  /// emulated GPU) has its steps issued once, now, into a graph that each
  /// run replays, as one node between the events it exchanges with the
  /// other devices; host devices run their steps as before.
  void captureGraphs(const ExecutorOptions &options) {
    // Tracing times each step, which a replayed graph hides.
    bool useGraphs = options.graphs && !options.trace;
    graphs.resize(devices.size());
    graphWaits.resize(devices.size());
    graphRecords.resize(devices.size());
    // A device without steps (one that holds constants or variables only)
    // has nothing to replay: it runs no graph (its graph ran as one more
    // task beside one stream, which has no thread pool).
    std::vector<size_t> counts(devices.size(), 0);
    for (size_t k = 0; k < streams.size(); ++k)
      counts[streamDevice[k]] += streams[k].size();
    graphCandidates.assign(devices.size(), false);
    for (size_t d = 0; d < devices.size(); ++d)
      graphCandidates[d] = useGraphs &&
                           devices[d]->type() == DeviceType::GPU &&
                           devices[d]->canCaptureGraphs() && counts[d] > 0;
    // Per device: why it runs step by step ("" if it replays a graph or is
    // no GPU with steps), and whether a wait cycle was the reason.
    std::vector<std::string> why(devices.size());
    std::vector<bool> cycle(devices.size(), false);
    auto tryGraph = [&](size_t d) {
      Device &device = *devices[d];
      bool isCycle = false;
      if (std::string blocker = graphBlocker(d, &isCycle); !blocker.empty()) {
        cycle[d] = isCycle;
        return device.fullName() + ": " + blocker;
      }
      Status status = device.beginGraphCapture();
      if (status) {
        capturing = static_cast<int>(d);
        Status issued = issueAll(capturing);
        capturing = -1;
        StatusOr<std::unique_ptr<DeviceGraph>> captured =
            device.endGraphCapture();
        if (!issued)
          status = issued;
        else if (!captured)
          status = captured.status();
        else
          graphs[d] = std::move(*captured);
      }
      if (!graphs[d])
        return "capture failed on " + device.fullName() + ": " +
               status.message();
      return std::string();
    };
    for (size_t d = 0; d < devices.size(); ++d) {
      Device &device = *devices[d];
      if (device.type() != DeviceType::GPU || counts[d] == 0)
        continue;
      if (!useGraphs) {
        graphNote = options.graphs
                        ? "CUDA graphs: off (--trace times each step)"
                        : "CUDA graphs: off (--cuda-graphs=off)";
        return;
      }
      if (!device.canCaptureGraphs()) {
        why[d] = device.fullName() + " cannot capture graphs";
        continue;
      }
      why[d] = tryGraph(d);
      if (!why[d].empty())
        graphCandidates[d] = false;
    }
    // The first pass counted GPUs not yet decided as graphs; some of them
    // were not. A GPU a wait cycle kept off is tried again against the
    // graphs there are (each one checked against those before it).
    for (size_t d = 0; d < devices.size(); ++d)
      graphCandidates[d] = graphs[d] != nullptr;
    for (size_t d = 0; d < devices.size(); ++d) {
      if (!cycle[d])
        continue;
      cycle[d] = false;
      why[d] = tryGraph(d);
      graphCandidates[d] = why[d].empty();
    }
    std::string on, off;
    auto note = [](std::string &list, const std::string &line) {
      list += (list.empty() ? "" : "; ") + line;
    };
    for (size_t d = 0; d < devices.size(); ++d) {
      if (graphs[d])
        note(on, devices[d]->fullName() + " replays its " +
                     std::to_string(counts[d]) + " steps as one graph per run");
      else if (!why[d].empty())
        note(off, why[d]);
    }
    if (!on.empty())
      graphNote = "CUDA graphs: on: " + on + (off.empty() ? "" : "; off: " + off);
    else if (!off.empty())
      graphNote = "CUDA graphs: off (" + off + "); running step by step";
  }

  /// Fails the run with `status`, that of step `index`, naming the step's
  /// op (or fusion group) and device.
  void failStep(size_t index, const Status &status) {
    const ResolvedStep &resolved = steps[index];
    fail(status.withContext(
        (resolved.fused ? resolved.fused->label : resolved.step->label) +
        " on " + resolved.device->fullName() + ": "));
  }

  /// Runs stream `k`'s launch list (launchLists): compiled launches called
  /// in place, the other steps through runStep.
  void runLaunchList(size_t k) {
    const std::vector<CompactLaunch> &list = launchLists[k];
    const CompactLaunch *begin = list.data(), *end = begin + list.size();
    for (const CompactLaunch *launch = begin; launch != end; ++launch) {
      if (failed)
        return;
      if (launch->run) {
        bool ok;
        {
          KernelSlots::Hold slot(kernelSlots.get());
          ok = launch->run(*launch);
        }
        if (ok)
          continue;
        failStep(streams[k][launch - begin], hostCompactLaunchError());
        return;
      }
      size_t index = static_cast<size_t>(launch->n);
      if (Status status = runStep(index); !status) {
        failStep(index, status);
        return;
      }
    }
  }

  /// Runs stream `k`'s steps in order, timing them when tracing.
  void runStream(size_t k) {
    // runHostKernel's set-up, once for the stream's launches: denormals
    // flushed, the OpenMP team size.
    ScopedFlushDenormal flush;
    useHostTeamSize(&intraOpThreads->current());
    // The team's threads run the kernels of a plan of several streams:
    // their run queue delays, and their workers', show a busy machine.
    intraOpThreads->addKernelThread();
    if (!tracing && capturing < 0) {
      runLaunchList(k);
      return;
    }
    for (size_t index : streams[k]) {
      if (failed)
        return;
      ResolvedStep &resolved = steps[index];
      // A bounded kernel's time starts once it holds its slot, and ends
      // before it gives it back.
      int64_t start = 0, end = 0;
      Status status = Status::ok();
      {
        KernelSlots::Hold slot(holdsSlot(resolved) ? kernelSlots.get()
                                                   : nullptr);
        start = tracing ? nanos() : 0;
        status = runStepNow(resolved, index);
        end = tracing ? nanos() : 0;
      }
      if (tracing && resolved.step->kind != Step::Kind::Record)
        timed[k].push_back({index, runs, start, end});
      if (!status) {
        failStep(index, status);
        return;
      }
    }
  }
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

StatusOr<std::unique_ptr<Executor>>
Executor::create(Plan plan, const DeviceManager &devices,
                 const ExecutorOptions &options) {
  if (options.interOpThreads < 0)
    return Status::invalidArgument(
        "the inter-op threads must be 0 (no bound) or more, not " +
        std::to_string(options.interOpThreads));
  return create(std::move(plan), devices, options,
                options.interOpThreads > 0
                    ? std::make_shared<KernelSlots>(options.interOpThreads,
                                                    kStreamSpin)
                    : nullptr);
}

StatusOr<std::unique_ptr<Executor>>
Executor::create(Plan plan, const DeviceManager &devices,
                 const ExecutorOptions &options,
                 std::shared_ptr<KernelSlots> kernelSlots) {
  auto impl = std::make_unique<Impl>();
  impl->plan = std::move(plan);
  impl->intraOpThreads =
      std::make_unique<IntraOpThreads>(options.intraOpThreads);
  impl->tracing = options.trace;
  impl->kernelSlots = std::move(kernelSlots);
  impl->origin = std::chrono::steady_clock::now();
  GPLACE_RETURN_IF_ERROR(impl->load(devices, options.transport));
  // Control flow: each sub-plan is an executor of its own (its memory, its
  // streams), and a step that runs them reads host memory.
  // One bound for the whole plan: the sub-plans' kernels, nested ones too,
  // take the parent's slots (a control-flow step holds none while they
  // run).
  for (Plan &sub : impl->plan.subplans) {
    StatusOr<std::unique_ptr<Executor>> executor =
        Executor::create(std::move(sub), devices, options, impl->kernelSlots);
    if (!executor)
      return executor.status();
    impl->subExecutors.push_back(std::move(*executor));
  }
  for (const ResolvedStep &resolved : impl->steps) {
    if (!resolved.controlFlow)
      continue;
    const Step &step = *resolved.step;
    if (!resolved.device->isHostMemory() ||
        resolved.device->type() == DeviceType::GPU)
      return Status::invalidArgument(
          step.label + " runs on " + resolved.device->fullName() +
          ": control flow runs on a CPU, which reads its condition");
    for (int sub : step.subplans)
      if (sub < 0 || static_cast<size_t>(sub) >= impl->subExecutors.size())
        return Status::invalidArgument(step.label +
                                       " runs a sub-plan the plan lacks");
    if (step.subplans.size() != 2)
      return Status::invalidArgument(step.label + " needs two sub-plans");
  }
  impl->timed.resize(impl->streams.size());
  impl->captureGraphs(options);
  impl->graphHoldsSlot.assign(impl->devices.size(), false);
  for (size_t d = 0; d < impl->devices.size(); ++d)
    impl->graphHoldsSlot[d] = impl->devices[d]->isHostMemory();
  for (const ResolvedStep &resolved : impl->steps)
    if (!resolved.fused && resolved.kind == Step::Kind::Launch &&
        !Impl::holdsSlot(resolved))
      for (size_t d = 0; d < impl->devices.size(); ++d)
        if (impl->devices[d] == resolved.device)
          impl->graphHoldsSlot[d] = false;
  impl->findInputSlots();
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

void Executor::Impl::findInputSlots() {
  // Inputs are read where they lie only when every device reads host
  // memory, nothing replays a captured graph (a capture keeps its own
  // copy of each address) and no all-reduce takes an input (a member
  // keeps its own copy too).
  bindable = staging == host;
  for (Device *device : devices)
    bindable = bindable && device->isHostMemory();
  for (const auto &graph : graphs)
    bindable = bindable && !graph;
  if (!bindable)
    return;
  inputSlots.assign(inputs.size(), {});
  auto slot = [&](const void *address, InputSlot field) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (address == inputs[i] && plan.inputs[i].bytes() > 0)
        inputSlots[i].push_back(field);
  };
  for (size_t index = 0; index < steps.size(); ++index) {
    ResolvedStep &resolved = steps[index];
    for (TensorRef &ref : resolved.call.inputs) {
      if (collectives.contains(index) &&
          llvm::is_contained(inputs, ref.data)) {
        bindable = false; // An all-reduce member reads an input.
        inputSlots.clear();
        return;
      }
      slot(ref.data, {&ref.data, nullptr});
    }
    if (resolved.fused)
      for (TensorRef &ref : resolved.fused->inputs)
        slot(ref.data, {&ref.data, nullptr});
    if (resolved.step->kind == Step::Kind::Copy)
      slot(resolved.from, {nullptr, &resolved.from});
  }
  // The compiled launches keep their own copies of their operands.
  for (std::vector<CompactLaunch> &list : launchLists)
    for (CompactLaunch &launch : list)
      if (launch.run)
        for (const void *&operand : launch.in)
          if (operand)
            slot(operand, {nullptr, &operand});
}

bool Executor::usesGraph() const {
  for (const auto &graph : impl_->graphs)
    if (graph)
      return true;
  return false;
}
const std::string &Executor::graphNote() const { return impl_->graphNote; }
std::string Executor::collectiveNote() const {
  return impl_->collectives.note();
}

size_t Executor::numFusedKernels() const { return impl_->numFused; }

std::vector<TimedStep> Executor::timedSteps() const {
  const Impl &impl = *impl_;
  std::vector<TimedStep> result;
  for (const Impl::Timed &run : impl.timedRuns) {
    TimedStep entry;
    entry.category = "run";
    entry.label = "run " + std::to_string(run.run);
    entry.run = run.run;
    entry.startNanos = run.start;
    entry.endNanos = run.end;
    result.push_back(std::move(entry));
  }
  for (const std::vector<Impl::Timed> &stream : impl.timed)
    for (const Impl::Timed &timed : stream) {
      const ResolvedStep &resolved = impl.steps[timed.step];
      const Step &step = *resolved.step;
      TimedStep entry;
      switch (step.kind) {
      case Step::Kind::Launch:
        entry.category = resolved.fused ? "launch"
                         : isCollectiveKernel(step.kernel) ? "allreduce"
                         : step.kernel == Kernel::Send     ? "send"
                         : step.kernel == Kernel::Recv     ? "recv"
                                                           : "launch";
        break;
      case Step::Kind::Copy:
        entry.category = "copy";
        entry.bytes = resolved.bytes;
        break;
      case Step::Kind::Wait:
      case Step::Kind::Record:
        entry.category = "wait";
        break;
      }
      entry.label = resolved.fused ? resolved.fused->label : step.label;
      entry.device = resolved.device->fullName();
      entry.stream = step.stream;
      entry.run = timed.run;
      entry.startNanos = timed.start;
      entry.endNanos = timed.end;
      entry.enqueued = !resolved.device->isHostMemory() ||
                       (resolved.source && !resolved.source->isHostMemory());
      result.push_back(std::move(entry));
    }
  return result;
}
size_t Executor::numFusedLaunches() const { return impl_->numFusedLaunches; }

TensorRef Executor::stagedInput(size_t index) const {
  return {impl_->inputs[index], &impl_->plan.inputs[index]};
}

StatusOr<std::vector<HostTensor>>
Executor::run(const std::vector<HostTensor> &inputs) {
  const Plan &plan = impl_->plan;
  if (inputs.size() != plan.inputs.size())
    return Status::invalidArgument("expected " + std::to_string(plan.inputs.size()) +
                         " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type != plan.inputs[i])
      return Status::invalidArgument("input #" + std::to_string(i) + ": expected " +
                           plan.inputs[i].str() + ", got " +
                           inputs[i].type.str());
    if (!inputs[i].data.empty()) // Empty tensors may have null pointers.
      std::memcpy(impl_->inputs[i], inputs[i].data.data(),
                  inputs[i].data.size());
  }
  StatusOr<std::vector<TensorRef>> views = runStaged();
  if (!views)
    return views.status();
  std::vector<HostTensor> results;
  for (const TensorRef &view : *views) {
    HostTensor tensor(*view.type);
    if (!tensor.data.empty())
      std::memcpy(tensor.data.data(), view.data, tensor.data.size());
    results.push_back(std::move(tensor));
  }
  return results;
}

bool Executor::canBindInputs() const { return impl_->bindable; }

StatusOr<std::vector<TensorRef>>
Executor::runBound(const std::vector<const void *> &inputs) {
  Impl &impl = *impl_;
  if (inputs.size() != impl.plan.inputs.size())
    return Status::invalidArgument(
        "expected " + std::to_string(impl.plan.inputs.size()) +
        " inputs, got " + std::to_string(inputs.size()));
  if (!impl.bindable) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (int64_t bytes = impl.plan.inputs[i].bytes(); bytes > 0)
        std::memcpy(impl.inputs[i], inputs[i], bytes);
    return runStaged();
  }
  auto point = [&](auto address) {
    for (size_t i = 0; i < inputs.size(); ++i)
      for (Impl::InputSlot &field : impl.inputSlots[i])
        field.set(address(i));
  };
  point([&](size_t i) { return inputs[i]; });
  StatusOr<std::vector<TensorRef>> results = runStaged();
  point([&](size_t i) { return impl.inputs[i]; });
  // A result that is an input itself (returned as it is) was read from the
  // caller's memory: its view points at staging, which must hold it.
  if (results)
    for (TensorRef &result : *results)
      for (size_t i = 0; i < inputs.size(); ++i)
        if (result.data == impl.inputs[i] && impl.plan.inputs[i].bytes() > 0)
          std::memcpy(impl.inputs[i], inputs[i], impl.plan.inputs[i].bytes());
  return results;
}

StatusOr<std::vector<TensorRef>> Executor::runStaged() {
  Impl &impl = *impl_;
  const Plan &plan = impl.plan;
  impl.intraOpThreads->update();
  int64_t start = impl.tracing ? impl.nanos() : 0;
  (void)impl.issueAll();
  // Asynchronous devices may still be working: wait for them.
  for (Device *device : impl.devices) {
    Status done = device->synchronize();
    if (!done && !impl.failed)
      impl.fail(done.withContext(device->fullName() + ": "));
  }
  // A run's slice ends once its results are in host memory (or it failed).
  auto endRun = [&] {
    if (impl.tracing)
      impl.timedRuns.push_back({0, impl.runs, start, impl.nanos()});
    ++impl.runs;
  };
  if (impl.failed) {
    endRun();
    return impl.error;
  }

  std::vector<TensorRef> results;
  for (size_t r = 0; r < plan.results.size(); ++r) {
    int buffer = plan.results[r];
    const TensorType &type = plan.buffers[buffer].type;
    void *memory = impl.addresses[buffer];
    if (void *staged = impl.resultStaging[r]) {
      Status downloaded =
          impl.resultDevice(r)->download(staged, memory, type.bytes());
      if (!downloaded) {
        endRun();
        return downloaded;
      }
      memory = staged;
    }
    results.push_back({memory, &type});
  }
  endRun();
  return results;
}

//===----------------------------------------------------------------------===//
// Variables.
//===----------------------------------------------------------------------===//

/// The persistent buffer of variable `index` (variables in plan order).
static size_t variablePersistent(const Plan &plan, size_t index) {
  for (size_t i = 0; i < plan.persistents.size(); ++i)
    if (plan.persistents[i].isVariable && index-- == 0)
      return i;
  return plan.persistents.size();
}

size_t Executor::numVariables() const {
  size_t n = 0;
  for (const PersistentDesc &desc : impl_->plan.persistents)
    n += desc.isVariable;
  return n;
}

const std::string &Executor::variableName(size_t index) const {
  return impl_->plan.persistents[variablePersistent(impl_->plan, index)].name;
}

const TensorType &Executor::variableType(size_t index) const {
  return impl_->plan.persistents[variablePersistent(impl_->plan, index)]
      .initialValue.type;
}

StatusOr<HostTensor> Executor::readVariable(size_t index) const {
  size_t p = variablePersistent(impl_->plan, index);
  const PersistentDesc &desc = impl_->plan.persistents[p];
  HostTensor value(desc.initialValue.type);
  GPLACE_RETURN_IF_ERROR(impl_->devices[desc.device]->download(
      value.data.data(), impl_->persistents[p], value.data.size()));
  return value;
}

int Executor::intraOpThreads() const {
  return impl_->intraOpThreads->current().load(std::memory_order_relaxed);
}

TensorRef Executor::hostVariable(size_t index) const {
  size_t p = variablePersistent(impl_->plan, index);
  const PersistentDesc &desc = impl_->plan.persistents[p];
  TensorRef ref;
  ref.type = &desc.initialValue.type;
  if (impl_->devices[desc.device]->isHostMemory())
    ref.data = impl_->persistents[p];
  return ref;
}

Status Executor::writeVariable(size_t index, const HostTensor &value) {
  size_t p = variablePersistent(impl_->plan, index);
  const PersistentDesc &desc = impl_->plan.persistents[p];
  if (value.type != desc.initialValue.type)
    return Status::invalidArgument(
        "variable '" + desc.name + "' is " + desc.initialValue.type.str() +
        ", not " + value.type.str());
  return impl_->devices[desc.device]->upload(impl_->persistents[p],
                                             value.data.data(),
                                             value.data.size());
}

} // namespace gplace::runtime
