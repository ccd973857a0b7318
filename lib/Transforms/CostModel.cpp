//===- CostModel.cpp - op and copy times per device -----------------------===//

#include "gplace/Transforms/CostModel.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Support/Shape.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

//===----------------------------------------------------------------------===//
// CostProfile
//===----------------------------------------------------------------------===//

CostProfile::CostProfile() {
  devices_["CPU"] = {100e9, 20e9, 5e-6};
  devices_["GPU"] = {20e12, 1e12, 5e-6};
  links_[{"CPU", "GPU"}] = {20e9, 10e-6};
  links_[{"GPU", "CPU"}] = {20e9, 10e-6};
  links_[{"GPU", "GPU"}] = {50e9, 10e-6};
  links_[{"CPU", "CPU"}] = {20e9, 10e-6};
}

void CostProfile::setDevice(const std::string &key, DeviceRates rates) {
  devices_[key] = rates;
}

void CostProfile::setLink(const std::string &from, const std::string &to,
                          LinkRates rates) {
  links_[{from, to}] = rates;
}

DeviceRates CostProfile::device(const DeviceName &device) const {
  auto it = devices_.find(device.str());
  if (it == devices_.end() && device.type)
    it = devices_.find(std::string(deviceTypeName(*device.type)));
  return it != devices_.end() ? it->second : devices_.at("CPU");
}

LinkRates CostProfile::link(const DeviceName &from,
                            const DeviceName &to) const {
  auto it = links_.find({from.str(), to.str()});
  if (it != links_.end())
    return it->second;
  bool sameTask = from.job == to.job && from.replica == to.replica &&
                  from.task == to.task;
  if (!sameTask) {
    // Between processes: the network, slower than any local link.
    auto network = links_.find({"network", "network"});
    return network != links_.end() ? network->second : LinkRates{10e9, 50e-6};
  }
  std::string fromType(from.type ? deviceTypeName(*from.type) : "CPU");
  std::string toType(to.type ? deviceTypeName(*to.type) : "CPU");
  it = links_.find({fromType, toType});
  return it != links_.end() ? it->second : LinkRates{10e9, 10e-6};
}

namespace {
/// Reads a positive number `key` of `object`, or reports `where.key`.
bool readRate(const llvm::json::Object &object, llvm::StringRef key,
              const std::string &where, double &out, std::string *error) {
  std::optional<double> value = object.getNumber(key);
  if (!value || !(*value > 0)) {
    *error = where + "." + key.str() + " must be a positive number";
    return false;
  }
  out = *value;
  return true;
}
} // namespace

std::optional<CostProfile> CostProfile::load(llvm::StringRef path,
                                             std::string *error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    *error = "cannot read profile '" + path.str() +
             "': " + buffer.getError().message();
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    *error = "profile '" + path.str() +
             "' is not JSON: " + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  std::string prefix = path.str() + ": ";
  if (!root || root->getInteger("version") != 1) {
    *error = prefix + "not a gplace profile (expected an object with "
                      "\"version\": 1)";
    return std::nullopt;
  }
  CostProfile profile;
  if (const llvm::json::Object *devices = root->getObject("devices")) {
    for (const auto &[key, value] : *devices) {
      std::string where = "devices." + key.str();
      const llvm::json::Object *entry = value.getAsObject();
      if (!entry) {
        *error = prefix + where + " must be an object";
        return std::nullopt;
      }
      DeviceRates rates;
      std::string message;
      if (!readRate(*entry, "flops_per_second", where, rates.flopsPerSecond,
                    &message) ||
          !readRate(*entry, "bytes_per_second", where, rates.bytesPerSecond,
                    &message) ||
          !readRate(*entry, "launch_seconds", where, rates.launchSeconds,
                    &message)) {
        *error = prefix + message;
        return std::nullopt;
      }
      profile.setDevice(key.str(), rates);
    }
  }
  if (const llvm::json::Array *links = root->getArray("links")) {
    for (auto [index, value] : llvm::enumerate(*links)) {
      std::string where = "links[" + std::to_string(index) + "]";
      const llvm::json::Object *entry = value.getAsObject();
      std::optional<llvm::StringRef> from =
          entry ? entry->getString("from") : std::nullopt;
      std::optional<llvm::StringRef> to =
          entry ? entry->getString("to") : std::nullopt;
      if (!from || !to) {
        *error = prefix + where + " must be an object with \"from\" and \"to\"";
        return std::nullopt;
      }
      LinkRates rates;
      std::string message;
      if (!readRate(*entry, "bytes_per_second", where, rates.bytesPerSecond,
                    &message) ||
          !readRate(*entry, "latency_seconds", where, rates.latencySeconds,
                    &message)) {
        *error = prefix + message;
        return std::nullopt;
      }
      profile.setLink(from->str(), to->str(), rates);
    }
  }
  return profile;
}

bool CostProfile::save(llvm::StringRef path, std::string *error) const {
  llvm::json::Object devices;
  for (const auto &[key, rates] : devices_)
    devices[key] = llvm::json::Object{
        {"flops_per_second", rates.flopsPerSecond},
        {"bytes_per_second", rates.bytesPerSecond},
        {"launch_seconds", rates.launchSeconds}};
  llvm::json::Array links;
  for (const auto &[key, rates] : links_)
    links.push_back(llvm::json::Object{
        {"from", key.first},
        {"to", key.second},
        {"bytes_per_second", rates.bytesPerSecond},
        {"latency_seconds", rates.latencySeconds}});
  llvm::json::Value root = llvm::json::Object{
      {"version", 1}, {"devices", std::move(devices)},
      {"links", std::move(links)}};
  // Written beside the target, then renamed: never a torn profile; never
  // over a device or a pipe, which the rename would replace.
  if (llvm::sys::fs::exists(path) && !llvm::sys::fs::is_regular_file(path)) {
    *error = "cannot write profile '" + path.str() + "': not a regular file";
    return false;
  }
  std::string temporary = path.str() + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temporary, ec);
    if (ec) {
      *error = "cannot write profile '" + path.str() + "': " + ec.message();
      return false;
    }
    os << llvm::formatv("{0:2}", root) << "\n";
    os.close();
    if (os.has_error()) {
      *error = "cannot write profile '" + path.str() +
               "': " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    *error = "cannot write profile '" + path.str() + "': " + ec.message();
    llvm::sys::fs::remove(temporary);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Op costs
//===----------------------------------------------------------------------===//

int64_t gplace::getTypeBytes(Type type) {
  if (auto resource = dyn_cast<ResourceType>(type))
    type = resource.getValueType();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  // The project's one byte-size rule (Shape.h), as the memory planner's.
  std::optional<ElementType> element =
      plan::toElementType(tensor.getElementType());
  return element ? checkedTensorBytes(tensor.getShape(), *element).value_or(0)
                 : 0;
}

double OpCost::seconds(const DeviceRates &rates) const {
  if (!runsKernel)
    return 0;
  return rates.launchSeconds + std::max(flops / rates.flopsPerSecond,
                                        bytes / rates.bytesPerSecond);
}

OpCost gplace::getOpCost(Operation *op) {
  OpCost cost;
  auto placed = dyn_cast<PlacedOpInterface>(op);
  if (!placed)
    return cost;
  // Ops that forward their input (identity, reshape, a variable's read)
  // are views of its memory once lowered: no kernel runs. (A read the
  // lowering must copy, one a later write could overtake, is left out.)
  cost.runsKernel = isa<KernelOpInterface>(op) && !graph::forwardsInput(op);
  cost.flops = placed.getFlops();
  for (Value operand : placed.getDataOperands())
    cost.bytes += getTypeBytes(operand.getType());
  for (Type type : op->getResultTypes())
    if (!isa<ResourceType>(type))
      cost.bytes += getTypeBytes(type);
  return cost;
}

//===----------------------------------------------------------------------===//
// Step simulation
//===----------------------------------------------------------------------===//

double LinkTimeline::arrival(ValueTimeline &value, int64_t bytes, int to,
                             bool commit, bool *copied, double *started) {
  if (copied)
    *copied = false;
  if (value.device == to)
    return value.time;
  for (auto [where, time] : value.copies)
    if (where == to)
      return time;
  if (copied)
    *copied = true;
  double &linkFree = free_[{value.device, to}];
  double start = std::max(value.time, linkFree);
  if (started)
    *started = start;
  double end = start + copySeconds(bytes, profile_.link(name(value.device),
                                                        name(to)));
  if (commit) {
    if (bytes > 0)
      linkFree = end;
    value.copies.push_back({to, end});
  }
  return end;
}

/// The names of a step's slices, as the plan labels its steps (the
/// steps' `name`s, GraphToPlan.cpp): ops by their names (getOpNames),
/// copies after the op that wrote the value they move.
namespace {
class SliceNames {
public:
  explicit SliceNames(func::FuncOp func) {
    std::vector<std::string> names = graph::getOpNames(func);
    size_t index = 0;
    func.walk([&](PlacedOpInterface op) {
      if (index < names.size())
        names_[op] = names[index];
      ++index;
    });
  }

  /// "MatMul (gplace.matmul)".
  std::string kernel(Operation *op) const {
    std::string what = "gplace.";
    if (auto kernelOp = dyn_cast<KernelOpInterface>(op))
      what += kernelMnemonic(kernelOp.getKernel());
    else
      what += op->getName().stripDialect().str();
    return names_.lookup(op) + " (" + what + ")";
  }

  /// A copy of `value` (by `copy`, a gplace.copy, or null for one the
  /// lowering inserts): "MatMul (copy)" when a kernel or a copy wrote the
  /// memory it moves (through views), else the copy's own name or, for an
  /// inserted one, its source's.
  std::string copy(Value value, Operation *copy) const {
    if (copy)
      if (auto placed = dyn_cast<PlacedOpInterface>(copy))
        if (!placed.getUserName().empty())
          return names_.lookup(copy) + " (copy)";
    Value root = value;
    while (Operation *producer = root.getDefiningOp()) {
      if (!graph::forwardsInput(producer) || producer->getNumOperands() == 0)
        break;
      root = producer->getOperand(0);
    }
    Operation *writer = root.getDefiningOp();
    if (writer && (isa<TransferOpInterface>(writer) ||
                   getOpCost(writer).runsKernel))
      return names_.lookup(writer) + " (copy)";
    if (copy)
      return names_.lookup(copy) + " (copy)";
    if (!writer)
      return "arg #" +
             std::to_string(cast<BlockArgument>(root).getArgNumber()) +
             " (copy)";
    return names_.lookup(writer) + " (copy)";
  }

private:
  llvm::DenseMap<Operation *, std::string> names_;
};
} // namespace

FailureOr<StepEstimate> gplace::estimateStep(func::FuncOp func,
                                             const DeviceSet &devices,
                                             const CostProfile &profile,
                                             bool withTimeline) {
  const std::vector<DeviceName> &names = devices.devices();
  llvm::StringMap<int> index;
  for (auto [i, device] : llvm::enumerate(names))
    index[device.str()] = i;
  std::vector<DeviceRates> rates;
  for (const DeviceName &device : names)
    rates.push_back(profile.device(device));
  // The host feeds arguments and takes results, whether or not it is a
  // device of the set.
  LinkTimeline links(profile, names);
  int hostIndex = index.lookup(kHostDevice);
  if (!index.count(kHostDevice))
    hostIndex = -1;

  StepEstimate estimate;
  estimate.busySeconds.assign(names.size(), 0);
  estimate.copiedInBytes.assign(names.size(), 0);
  std::vector<double> available(names.size(), 0);
  llvm::DenseMap<Value, ValueTimeline> ready;

  std::optional<SliceNames> sliceNames;
  if (withTimeline)
    sliceNames.emplace(func);
  // `copy`: the graph's own gplace.copy that moves `value`, if it is one.
  auto readyOn = [&](Value value, int device,
                     Operation *copy = nullptr) -> double {
    auto [it, isNew] = ready.try_emplace(value);
    if (isNew) // A function argument: on the host at the start.
      it->second.device = hostIndex;
    int64_t bytes = isa<RankedTensorType>(value.getType())
                        ? getTypeBytes(value.getType())
                        : 0;
    bool copied;
    double started = 0;
    int source = it->second.device;
    double time = links.arrival(it->second, bytes, device, /*commit=*/true,
                                &copied, &started);
    if (copied && device >= 0)
      estimate.copiedInBytes[device] += bytes;
    // Tokens move nothing: no copy runs for them.
    if (copied && sliceNames && isa<RankedTensorType>(value.getType())) {
      PredictedSlice slice;
      slice.name = sliceNames->copy(value, copy);
      slice.isCopy = true;
      slice.device = device;
      slice.source = source;
      slice.startSeconds = started;
      slice.seconds = time - started;
      slice.bytes = bytes;
      estimate.timeline.push_back(std::move(slice));
    }
    return time;
  };

  double end = 0;
  bool ok = true;
  func.walk([&](PlacedOpInterface op) {
    auto found = index.find(op.getAssignedDeviceName());
    if (found == index.end()) {
      op->emitError() << "cannot estimate the step time: the op has no "
                         "assigned device of the device set (run "
                         "--gplace-place first)";
      ok = false;
      return;
    }
    int device = found->second;
    double start = 0;
    Operation *copy =
        isa<TransferOpInterface>(op.getOperation()) ? op.getOperation()
                                                    : nullptr;
    for (Value operand : op->getOperands()) {
      // A copy's operand is on its source: the copy itself is the link's.
      start = std::max(start, readyOn(operand, device, copy));
    }
    OpCost cost = getOpCost(op);
    double seconds = cost.seconds(rates[device]);
    if (cost.runsKernel) {
      start = std::max(start, available[device]);
      available[device] = start + seconds;
      estimate.busySeconds[device] += seconds;
      if (sliceNames) {
        PredictedSlice slice;
        slice.name = sliceNames->kernel(op);
        slice.device = device;
        slice.startSeconds = start;
        slice.seconds = seconds;
        estimate.timeline.push_back(std::move(slice));
      }
    }
    for (Value result : op->getResults())
      ready[result] = ValueTimeline{device, start + seconds, {}};
    end = std::max(end, start + seconds);
  });
  if (!ok)
    return failure();
  // Results return to the host.
  for (Block &block : func.getBody())
    if (auto terminator = block.getTerminator())
      for (Value result : terminator->getOperands())
        end = std::max(end, readyOn(result, hostIndex));
  estimate.stepSeconds = end;
  return estimate;
}
