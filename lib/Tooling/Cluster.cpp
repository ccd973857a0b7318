//===- Cluster.cpp - a cluster of processes, each a task -------------------===//

#include "gplace/Tooling/Cluster.h"

#include "llvm/Support/JSON.h"


using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

std::string tooling::serializeDevices(const DeviceSet &devices) {
  llvm::json::Array list;
  for (size_t i = 0; i < devices.devices().size(); ++i)
    list.push_back(llvm::json::Object{
        {"name", devices.devices()[i].str()},
        {"memory_limit", devices.attributes(i).memoryLimit},
        {"description", devices.attributes(i).description}});
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(list));
  return out;
}

rt::StatusOr<DeviceSet>
tooling::mergeDevices(const std::vector<std::string> &serialized) {
  DeviceSet all;
  for (const std::string &text : serialized) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
    if (!value)
      return rt::Status::internal("a task's device list does not parse: " +
                                  llvm::toString(value.takeError()));
    const llvm::json::Array *list = value->getAsArray();
    if (!list)
      return rt::Status::internal("a task's device list is not a list");
    for (const llvm::json::Value &entry : *list) {
      const llvm::json::Object *device = entry.getAsObject();
      std::optional<llvm::StringRef> name =
          device ? device->getString("name") : std::nullopt;
      std::optional<int64_t> limit =
          device ? device->getInteger("memory_limit") : std::nullopt;
      std::optional<llvm::StringRef> description =
          device ? device->getString("description") : std::nullopt;
      std::optional<DeviceName> parsed =
          name ? DeviceName::parse(name->str()) : std::nullopt;
      if (!parsed || !limit || !description)
        return rt::Status::internal("a task's device list has a bad entry");
      DeviceAttributes attributes;
      attributes.memoryLimit = *limit;
      attributes.description = description->str();
      if (!all.add(*parsed, std::move(attributes)))
        return rt::Status::internal("device " + name->str() +
                                    " is listed by two tasks");
    }
  }
  return all;
}

rt::StatusOr<rt::Plan> tooling::localPlan(const rt::Plan &plan,
                                          const rt::DeviceManager &local) {
  rt::Plan out;
  std::vector<int> deviceIndex(plan.devices.size(), -1);
  for (size_t d = 0; d < plan.devices.size(); ++d)
    if (local.find(plan.devices[d].name)) {
      deviceIndex[d] = static_cast<int>(out.devices.size());
      out.devices.push_back(plan.devices[d]);
    }
  std::vector<int> persistentIndex(plan.persistents.size(), -1);
  for (size_t p = 0; p < plan.persistents.size(); ++p) {
    const rt::PersistentDesc &desc = plan.persistents[p];
    if (deviceIndex[desc.device] < 0)
      continue;
    persistentIndex[p] = static_cast<int>(out.persistents.size());
    out.persistents.push_back(desc);
    out.persistents.back().device = deviceIndex[desc.device];
  }
  // Buffers keep their indices; another task's are never in memory here.
  std::vector<bool> isLocal(plan.buffers.size(), true);
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    rt::BufferDesc buffer = plan.buffers[b];
    if (buffer.kind != rt::BufferDesc::Kind::Input) {
      int device = deviceIndex[buffer.device];
      if (device < 0) {
        isLocal[b] = false;
        buffer.kind = rt::BufferDesc::Kind::Register;
        buffer.device = -1;
      } else {
        buffer.device = device;
        if (buffer.kind == rt::BufferDesc::Kind::Persistent)
          buffer.index = persistentIndex[buffer.index];
      }
    }
    out.buffers.push_back(std::move(buffer));
  }
  out.inputs = plan.inputs;
  for (int result : plan.results)
    if (isLocal[result])
      out.results.push_back(result);
  std::vector<bool> localEvent(plan.numEvents, false);
  for (const rt::Step &step : plan.steps)
    if (step.kind == rt::Step::Kind::Record && deviceIndex[step.device] >= 0)
      localEvent[step.event] = true;
  for (const rt::Step &step : plan.steps) {
    if (deviceIndex[step.device] < 0)
      continue;
    auto notPartitioned = [&](const std::string &what) {
      return rt::Status::internal(
          "step '" + step.label + "' on " + plan.devices[step.device].name +
          " " + what + " another task's device: the plan is not partitioned "
          "by task (--gplace-partition-tasks)");
    };
    for (int buffer : step.inputs)
      if (!isLocal[buffer])
        return notPartitioned("reads a buffer of");
    for (int buffer : step.outputs)
      if (!isLocal[buffer])
        return notPartitioned("writes a buffer of");
    if (step.kind == rt::Step::Kind::Wait && !localEvent[step.event])
      return notPartitioned("waits for an event of");
    out.steps.push_back(step);
    out.steps.back().device = deviceIndex[step.device];
  }
  out.numEvents = plan.numEvents;
  return out;
}
