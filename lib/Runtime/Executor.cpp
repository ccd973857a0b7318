//===- Executor.cpp - runs a plan on streams
//-------------------------------===//

#include "gplace/Runtime/Executor.h"

#include "llvm/Support/ThreadPool.h"

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>

namespace gplace::runtime {

namespace {

/// An event of the plan: reached once per run. Waiters also wake when the
/// run fails, so that no stream waits forever.
struct Event {
  std::mutex mutex;
  std::condition_variable reached;
  uint64_t generation = 0; ///< The run in which it was last recorded.
  Device *recorder = nullptr;
  std::unique_ptr<DeviceEvent> deviceEvent; ///< The recorder's half.
};

/// A step with its operands resolved to memory.
struct ResolvedStep {
  const Step *step = nullptr;
  Device *device = nullptr;
  KernelCall call;          ///< Launch.
  Device *source = nullptr; ///< Copy: the device of the source.
  void *target = nullptr;   ///< Copy.
  const void *from = nullptr;
  int64_t bytes = 0;
};

} // namespace

class Executor::Impl {
public:
  Plan plan;
  std::vector<Device *> devices;
  Device *host = nullptr;
  std::vector<void *> arenas;
  std::vector<void *> persistents;
  std::vector<void *> inputs; ///< Host staging, one per program input.
  Device *staging = nullptr;  ///< The device that allocated `inputs`.
  std::vector<void *> addresses; ///< Per buffer.
  std::vector<ResolvedStep> steps;
  std::vector<std::vector<size_t>> streams; ///< Step indices per stream.
  std::vector<std::unique_ptr<Event>> events;
  std::unique_ptr<llvm::StdThreadPool> pool;

  uint64_t generation = 0;
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
  }

  Status load(const DeviceManager &manager) {
    host = &manager.host();
    for (const DeviceDesc &desc : plan.devices) {
      Device *device = manager.find(desc.name);
      if (!device)
        return Status::error("the plan needs device " + desc.name +
                             ", which this process does not have");
      devices.push_back(device);
    }
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
      }
    }

    std::map<std::pair<int, int>, size_t> streamIndex;
    for (const Step &step : plan.steps) {
      ResolvedStep resolved;
      resolved.step = &step;
      resolved.device = devices[step.device];
      if (step.kind == Step::Kind::Launch) {
        resolved.call.kernel = step.kernel;
        resolved.call.params = &step.params;
        for (int b : step.inputs)
          resolved.call.inputs.push_back({addresses[b], &plan.buffers[b].type});
        for (int b : step.outputs)
          resolved.call.outputs.push_back(
              {addresses[b], &plan.buffers[b].type});
        GPLACE_RETURN_IF_ERROR(resolved.device->prepare(resolved.call));
      } else if (step.kind == Step::Kind::Copy) {
        const BufferDesc &from = plan.buffers[step.inputs[0]];
        resolved.source = from.device < 0 ? host : devices[from.device];
        resolved.from = addresses[step.inputs[0]];
        resolved.target = addresses[step.outputs[0]];
        resolved.bytes = from.type.bytes();
      }
      auto key = std::make_pair(step.device, step.stream);
      auto [it, isNew] = streamIndex.try_emplace(key, streams.size());
      if (isNew)
        streams.emplace_back();
      streams[it->second].push_back(steps.size());
      steps.push_back(std::move(resolved));
    }
    for (int i = 0; i < plan.numEvents; ++i)
      events.push_back(std::make_unique<Event>());
    for (const Step &step : plan.steps)
      if (step.kind == Step::Kind::Record) {
        Event &event = *events[step.event];
        event.recorder = devices[step.device];
        event.deviceEvent = event.recorder->createEvent();
      }
    if (streams.size() > 1)
      pool = std::make_unique<llvm::StdThreadPool>(
          llvm::hardware_concurrency(streams.size()));
    return Status::ok();
  }

  void fail(Status status) {
    {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (error.isOk()) // The first failure is the one reported.
        error = std::move(status);
    }
    failed = true;
    for (auto &event : events) {
      std::lock_guard<std::mutex> lock(event->mutex);
      event->reached.notify_all();
    }
  }

  Status runStep(ResolvedStep &resolved) {
    const Step &step = *resolved.step;
    switch (step.kind) {
    case Step::Kind::Launch:
      return resolved.device->launch(resolved.call, step.stream);
    case Step::Kind::Copy:
      return resolved.device->copyFrom(resolved.target, *resolved.source,
                                       resolved.from, resolved.bytes,
                                       step.stream);
    case Step::Kind::Record: {
      Event &event = *events[step.event];
      GPLACE_RETURN_IF_ERROR(
          resolved.device->recordEvent(event.deviceEvent.get(), step.stream));
      std::lock_guard<std::mutex> lock(event.mutex);
      event.generation = generation;
      event.reached.notify_all();
      return Status::ok();
    }
    case Step::Kind::Wait: {
      // First the record must have been issued (host side), then the
      // waiting stream waits for the device's half of the event.
      Event &event = *events[step.event];
      {
        std::unique_lock<std::mutex> lock(event.mutex);
        event.reached.wait(lock, [&] {
          return event.generation == generation || failed;
        });
      }
      if (failed)
        return Status::ok();
      return resolved.device->waitEvent(*event.recorder,
                                        event.deviceEvent.get(), step.stream);
    }
    }
    return Status::ok();
  }

  void runStream(const std::vector<size_t> &indices) {
    for (size_t index : indices) {
      if (failed)
        return;
      ResolvedStep &resolved = steps[index];
      Status status = runStep(resolved);
      if (!status) {
        fail(Status::error(resolved.step->label + " on " +
                           resolved.device->fullName() + ": " +
                           status.message()));
        return;
      }
    }
  }
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

StatusOr<std::unique_ptr<Executor>>
Executor::create(Plan plan, const DeviceManager &devices) {
  auto impl = std::make_unique<Impl>();
  impl->plan = std::move(plan);
  GPLACE_RETURN_IF_ERROR(impl->load(devices));
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

size_t Executor::numStreams() const { return impl_->streams.size(); }

StatusOr<std::vector<HostTensor>>
Executor::run(const std::vector<HostTensor> &inputs) {
  Impl &impl = *impl_;
  const Plan &plan = impl.plan;
  if (inputs.size() != plan.inputs.size())
    return Status::error("expected " + std::to_string(plan.inputs.size()) +
                         " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type != plan.inputs[i])
      return Status::error("input #" + std::to_string(i) + ": expected " +
                           plan.inputs[i].str() + ", got " +
                           inputs[i].type.str());
    std::memcpy(impl.inputs[i], inputs[i].data.data(), inputs[i].data.size());
  }

  ++impl.generation;
  impl.failed = false;
  impl.error = Status::ok();
  if (impl.streams.size() == 1) {
    impl.runStream(impl.streams.front());
  } else if (!impl.streams.empty()) {
    for (const std::vector<size_t> &stream : impl.streams)
      impl.pool->async([&impl, &stream] { impl.runStream(stream); });
    impl.pool->wait();
  }
  // Asynchronous devices may still be working: wait for them.
  for (Device *device : impl.devices) {
    Status done = device->synchronize();
    if (!done && !impl.failed)
      impl.fail(Status::error(device->fullName() + ": " + done.message()));
  }
  if (impl.failed)
    return impl.error;

  std::vector<HostTensor> results;
  for (int buffer : plan.results) {
    const BufferDesc &desc = plan.buffers[buffer];
    HostTensor tensor(desc.type);
    Device *device = desc.device < 0 ? impl.host : impl.devices[desc.device];
    GPLACE_RETURN_IF_ERROR(device->download(
        tensor.data.data(), impl.addresses[buffer], tensor.data.size()));
    results.push_back(std::move(tensor));
  }
  return results;
}

} // namespace gplace::runtime
