//===- GraphToPlan.cpp - placed graph to executable plan
//--------------------===//
//
// Per function, in three phases:
//   1. schedule: one step per launch or copy, in program order, each on a
//      (device, stream), with the earlier steps it must follow;
//   2. memory plan: per device, first-fit offsets over liveness intervals;
//   3. emit gplan IR: devices, buffers, waits, steps, records.
//
//===----------------------------------------------------------------------===//

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <map>

namespace gplace {
#define GEN_PASS_DEF_LOWERTOPLANPASS
#include "gplace/Conversion/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;
namespace gplan = gplace::plan;

namespace {

constexpr int64_t kAlignment = 64;
constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

int64_t alignUp(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

int64_t tensorBytes(RankedTensorType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * (bits == 1 ? 1 : bits / 8);
}

/// A device of the module and what its programs need of it.
struct DeviceInfo {
  std::string name;
  std::string symbol;
  int64_t persistentBytes = 0, arenaBytes = 0;
  /// The function that needs the most of the device, for errors.
  std::optional<Location> neediest;
  int64_t neediestBytes = -1;
};

std::string formatBytes(int64_t bytes) {
  std::string out = std::to_string(bytes) + " bytes";
  if (bytes >= 1024 * 1024)
    out += " (" + std::to_string(bytes / (1024 * 1024)) + " MiB)";
  return out;
}

/// The module's devices, in device order, with readable symbols (`@gpu0`,
/// `@cpu0`, or `@worker_r0_t1_gpu0` off the local task).
class DeviceTable {
public:
  int indexOf(StringRef name) {
    auto [it, isNew] = index_.try_emplace(name, devices_.size());
    if (isNew) {
      DeviceInfo info;
      info.name = name.str();
      std::optional<DeviceName> parsed = DeviceName::parse(name);
      std::string type = parsed && parsed->type
                             ? (parsed->type == DeviceType::GPU ? "gpu" : "cpu")
                             : "dev";
      std::string id = parsed && parsed->id ? std::to_string(*parsed->id) : "";
      if (parsed && parsed->job == "localhost" && parsed->replica == 0 &&
          parsed->task == 0)
        info.symbol = type + id;
      else if (parsed && parsed->isFullySpecified())
        info.symbol = *parsed->job + "_r" + std::to_string(*parsed->replica) +
                      "_t" + std::to_string(*parsed->task) + "_" + type + id;
      else
        info.symbol = "device" + std::to_string(devices_.size());
      devices_.push_back(std::move(info));
    }
    return it->second;
  }
  std::vector<DeviceInfo> &devices() { return devices_; }

private:
  llvm::StringMap<int> index_;
  std::vector<DeviceInfo> devices_;
};

/// A buffer of the program.
struct Buffer {
  enum class Kind { Input, Arena, Constant, Variable } kind = Kind::Arena;
  int device = -1;
  RankedTensorType type;
  int64_t index = 0;   ///< Input number.
  ElementsAttr value;  ///< Constant value or variable initial value.
  std::string varName; ///< Variable.
  int64_t start = 0;   ///< First step it is live at.
  int64_t end = -1;    ///< Last step it is live at (kForever: to the end).
  int producer = -1;   ///< The step writing it (-1: none).
  int64_t offset = 0;  ///< In the arena.
};

/// One launch or copy.
struct Step {
  bool isCopy = false;
  int device = 0;
  int64_t stream = gplan::kComputeStream;
  Operation *op = nullptr;          ///< The graph op it comes from.
  SmallVector<int> inputs, outputs; ///< Buffers.
  SmallVector<int, 4> after;        ///< Earlier steps it must follow
                                    ///< (repeats allowed).
  SmallVector<int> waits;           ///< Steps whose events it waits for.
  bool record = false;              ///< Another stream waits for it.
};

/// Lowers one function.
class FunctionLowering {
public:
  FunctionLowering(func::FuncOp func, DeviceTable &devices)
      : func_(func), devices_(devices) {}

  LogicalResult schedule();
  void planMemory();
  void emit(OpBuilder &builder);

private:
  int newBuffer(Buffer buffer) {
    buffers_.push_back(std::move(buffer));
    return buffers_.size() - 1;
  }
  int streamKey(const Step &step) const {
    return step.device * 2 + static_cast<int>(step.stream);
  }
  /// The steps that must be done before `value` can be used.
  void addSyncsOf(Value value, SmallVectorImpl<int> &syncs) {
    if (isa<ControlType>(value.getType())) {
      auto it = tokens_.find(value);
      if (it != tokens_.end())
        syncs.append(it->second.begin(), it->second.end());
      return;
    }
    auto it = values_.find(value);
    if (it != values_.end() && buffers_[it->second].producer >= 0)
      syncs.push_back(buffers_[it->second].producer);
  }
  /// A token stands for the distinct steps in `syncs`.
  void setToken(Value token, SmallVectorImpl<int> &syncs) {
    llvm::sort(syncs);
    syncs.erase(std::unique(syncs.begin(), syncs.end()), syncs.end());
    tokens_[token].assign(syncs.begin(), syncs.end());
  }

  func::FuncOp func_;
  DeviceTable &devices_;
  std::vector<Buffer> buffers_;
  std::vector<Step> steps_;
  DenseMap<Value, int> values_;                 ///< Value -> buffer.
  DenseMap<Value, SmallVector<int, 2>> tokens_; ///< Token -> steps.
  SmallVector<int> results_;
  DenseMap<Operation *, std::string> names_; ///< Names for messages.
};

LogicalResult FunctionLowering::schedule() {
  std::vector<std::string> names = getOpNames(func_);
  // Reserved up front: growing these by doubling at 1M ops costs more than
  // the loop below.
  size_t numOps = func_.getBody().front().getOperations().size();
  names_.reserve(numOps);
  steps_.reserve(numOps);
  buffers_.reserve(numOps + func_.getNumArguments());
  values_.reserve(numOps + func_.getNumArguments());
  size_t next = 0;
  func_.walk([&](PlacedOpInterface op) { names_[op] = names[next++]; });

  for (BlockArgument arg : func_.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      return func_.emitError() << "argument #" << arg.getArgNumber()
                               << " must be a tensor, but is " << arg.getType();
    Buffer buffer;
    buffer.kind = Buffer::Kind::Input;
    buffer.type = type;
    buffer.index = arg.getArgNumber();
    values_[arg] = newBuffer(buffer);
  }

  for (Operation &operation : func_.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(operation)) {
      for (Value value : ret.getOperands()) {
        auto it = values_.find(value);
        if (it == values_.end() || !isa<RankedTensorType>(value.getType()))
          return ret.emitError() << "a program can only return tensors, not "
                                 << value.getType();
        results_.push_back(it->second);
      }
      continue;
    }
    auto op = dyn_cast<PlacedOpInterface>(operation);
    if (!op)
      return operation.emitError()
             << "cannot lower '" << operation.getName() << "' to a plan";
    StringAttr deviceName = op->getAttrOfType<StringAttr>("assigned_device");
    if (!deviceName)
      return op->emitError("op has no assigned device; run --gplace-place "
                           "first");
    int device = devices_.indexOf(deviceName.getValue());

    // Every data operand must be on this device (or be waited for only).
    if (!isa<GroupOp, CopyOp>(operation))
      for (Value operand : op.getDataOperands())
        if (getValueDevice(operand) != deviceName)
          return op->emitError()
                 << "operand on '" << getValueDevice(operand).getValue()
                 << "' used on '" << deviceName.getValue()
                 << "'; run --gplace-insert-copies first";

    SmallVector<int, 4> after;
    for (Value token : op.getControlDependencies())
      addSyncsOf(token, after);

    if (auto constant = dyn_cast<ConstantOp>(operation)) {
      Buffer buffer;
      buffer.kind = Buffer::Kind::Constant;
      buffer.device = device;
      buffer.type = cast<RankedTensorType>(constant.getType());
      buffer.value = constant.getValue();
      values_[constant] = newBuffer(buffer);
      continue;
    }
    if (auto variable = dyn_cast<VariableOp>(operation)) {
      Buffer buffer;
      buffer.kind = Buffer::Kind::Variable;
      buffer.device = device;
      buffer.value = variable.getInitialValue();
      buffer.type = cast<RankedTensorType>(buffer.value.getType());
      buffer.varName = op.getUserName().str();
      values_[variable] = newBuffer(buffer);
      continue;
    }
    if (auto identity = dyn_cast<IdentityOp>(operation);
        identity && isa<ResourceType>(identity.getType())) {
      values_[identity] = values_.lookup(identity.getInput());
      continue;
    }
    if (auto group = dyn_cast<GroupOp>(operation)) {
      SmallVector<int, 4> syncs = after;
      for (Value input : group.getInputs())
        addSyncsOf(input, syncs);
      setToken(group, syncs);
      continue;
    }
    if (auto copy = dyn_cast<CopyOp>(operation);
        copy && isa<ControlType>(copy.getType())) {
      SmallVector<int, 4> syncs = after;
      addSyncsOf(copy.getInput(), syncs);
      setToken(copy, syncs);
      continue;
    }

    // A launch or a copy.
    Step step;
    step.op = op;
    step.device = device;
    step.after = after;
    bool isCopy = isa<CopyOp>(operation);
    step.isCopy = isCopy;
    step.stream = isCopy ? gplan::kCopyStream : gplan::kComputeStream;
    int index = steps_.size();
    for (Value operand : op.getDataOperands()) {
      auto it = values_.find(operand);
      if (it == values_.end())
        return op->emitError("operand is not a value the plan knows");
      int buffer = it->second;
      if (isa<AssignOp, AssignAddOp, AssignSubOp>(operation) &&
          isa<ResourceType>(operand.getType())) {
        step.outputs.push_back(buffer); // The variable is written.
        continue;
      }
      step.inputs.push_back(buffer);
      if (buffers_[buffer].producer >= 0)
        step.after.push_back(buffers_[buffer].producer);
    }
    for (Value result : op->getResults()) {
      if (isa<ControlType>(result.getType())) {
        tokens_[result] = {index};
        continue;
      }
      Buffer buffer;
      buffer.device = device;
      buffer.type = cast<RankedTensorType>(result.getType());
      buffer.producer = index;
      int id = newBuffer(buffer);
      values_[result] = id;
      step.outputs.push_back(id);
    }
    steps_.push_back(std::move(step));
  }

  // Cross-stream dependencies become event waits; a stream that already
  // waited for a later step of the same stream need not wait again.
  std::map<int, std::map<int, int>> lastWaited; // stream -> stream -> step
  for (Step &step : steps_) {
    int key = streamKey(step);
    // Per other stream, only its latest step needs waiting for: a stream
    // runs in order.
    SmallVector<std::pair<int, int>, 4> latest; // (stream, step)
    for (int before : step.after) {
      int beforeKey = streamKey(steps_[before]);
      if (beforeKey == key)
        continue;
      auto it = llvm::find_if(
          latest, [&](const auto &entry) { return entry.first == beforeKey; });
      if (it == latest.end())
        latest.emplace_back(beforeKey, before);
      else
        it->second = std::max(it->second, before);
    }
    llvm::sort(latest);
    for (auto [beforeKey, before] : latest) {
      auto &last = lastWaited[key];
      auto it = last.find(beforeKey);
      if (it != last.end() && it->second >= before)
        continue;
      last[beforeKey] = before;
      step.waits.push_back(before);
      steps_[before].record = true;
    }
  }
  return success();
}

void FunctionLowering::planMemory() {
  // Liveness: from the producing step to the last reading step. A buffer
  // touched by two streams lives on both ends: from the start of the
  // program if a copy stream writes it, to the end if another stream reads
  // it, so that no slot is reused before every stream is done with it.
  for (auto [index, step] : llvm::enumerate(steps_)) {
    for (int id : step.inputs) {
      Buffer &buffer = buffers_[id];
      if (buffer.kind != Buffer::Kind::Arena)
        continue;
      bool otherStream = buffer.producer >= 0 &&
                         streamKey(steps_[buffer.producer]) != streamKey(step);
      buffer.end =
          otherStream ? kForever : std::max<int64_t>(buffer.end, index);
    }
  }
  for (Buffer &buffer : buffers_) {
    if (buffer.kind != Buffer::Kind::Arena)
      continue;
    buffer.start = buffer.producer;
    if (steps_[buffer.producer].stream != gplan::kComputeStream)
      buffer.start = 0;
    buffer.end = std::max(buffer.end, buffer.start);
  }
  for (int id : results_)
    if (buffers_[id].kind == Buffer::Kind::Arena)
      buffers_[id].end = kForever;

  // First fit, in order of the first step each buffer is live at; a slot
  // frees after the last step of its tenant.
  std::vector<std::map<int64_t, int64_t>> free(devices_.devices().size());
  std::vector<int64_t> top(devices_.devices().size(), 0);
  std::vector<int> order;
  for (auto [id, buffer] : llvm::enumerate(buffers_))
    if (buffer.kind == Buffer::Kind::Arena)
      order.push_back(id);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return buffers_[a].start < buffers_[b].start;
  });
  std::multimap<int64_t, int> live; // end -> buffer
  auto release = [&](int id) {
    Buffer &buffer = buffers_[id];
    auto &slots = free[buffer.device];
    int64_t offset = buffer.offset, size = alignUp(tensorBytes(buffer.type));
    auto next = slots.lower_bound(offset);
    if (next != slots.end() && offset + size == next->first) {
      size += next->second;
      next = slots.erase(next);
    }
    if (next != slots.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += size;
        return;
      }
    }
    slots.emplace(offset, size);
  };
  for (int id : order) {
    Buffer &buffer = buffers_[id];
    while (!live.empty() && live.begin()->first < buffer.start) {
      release(live.begin()->second);
      live.erase(live.begin());
    }
    int64_t size = alignUp(tensorBytes(buffer.type));
    auto &slots = free[buffer.device];
    auto fit = llvm::find_if(
        slots, [&](const auto &slot) { return slot.second >= size; });
    if (fit != slots.end()) {
      buffer.offset = fit->first;
      if (fit->second > size)
        slots.emplace(fit->first + size, fit->second - size);
      slots.erase(fit);
    } else {
      buffer.offset = top[buffer.device];
      top[buffer.device] += size;
    }
    live.emplace(buffer.end, id);
  }

  for (size_t d = 0; d < top.size(); ++d) {
    int64_t persistent = 0;
    for (const Buffer &buffer : buffers_)
      if (buffer.device == static_cast<int>(d) &&
          (buffer.kind == Buffer::Kind::Constant ||
           buffer.kind == Buffer::Kind::Variable))
        persistent += alignUp(tensorBytes(buffer.type));
    DeviceInfo &info = devices_.devices()[d];
    info.persistentBytes = std::max(info.persistentBytes, persistent);
    info.arenaBytes = std::max(info.arenaBytes, top[d]);
    if (persistent + top[d] > info.neediestBytes) {
      info.neediestBytes = persistent + top[d];
      info.neediest = func_.getLoc();
    }
  }
}

void FunctionLowering::emit(OpBuilder &builder) {
  MLIRContext *context = builder.getContext();
  auto program =
      builder.create<gplan::ProgramOp>(func_.getLoc(), func_.getSymName());
  Block *body = builder.createBlock(&program.getBody());
  builder.setInsertionPointToStart(body);
  // Attributes every op repeats are made once: each `get` is a lookup in
  // the context's uniquer, under a lock when threading is on.
  SmallVector<FlatSymbolRefAttr> symbols;
  for (const DeviceInfo &info : devices_.devices())
    symbols.push_back(FlatSymbolRefAttr::get(context, info.symbol));
  auto symbol = [&](int device) { return symbols[device]; };
  IntegerAttr streams[] = {builder.getI64IntegerAttr(gplan::kComputeStream),
                           builder.getI64IntegerAttr(gplan::kCopyStream)};
  auto i64 = [&](int64_t value) { return builder.getI64IntegerAttr(value); };
  auto stream = [&](int64_t value) {
    return value == gplan::kComputeStream || value == gplan::kCopyStream
               ? streams[value]
               : i64(value);
  };
  llvm::DenseMap<OperationName, StringAttr> kernelNames;
  StringAttr nameKey = builder.getStringAttr("name");
  auto bufferType = [&](const Buffer &buffer) {
    return gplan::BufferType::get(context, buffer.type);
  };

  std::vector<Value> bufferValues(buffers_.size());
  for (auto [id, buffer] : llvm::enumerate(buffers_)) {
    Location loc = func_.getLoc();
    switch (buffer.kind) {
    case Buffer::Kind::Input:
      bufferValues[id] = builder.create<gplan::InputOp>(loc, bufferType(buffer),
                                                        i64(buffer.index));
      break;
    case Buffer::Kind::Constant:
      bufferValues[id] = builder.create<gplan::ConstantOp>(
          loc, symbol(buffer.device), buffer.value);
      break;
    case Buffer::Kind::Variable:
      bufferValues[id] = builder.create<gplan::VariableOp>(
          loc, symbol(buffer.device), builder.getStringAttr(buffer.varName),
          buffer.value);
      break;
    case Buffer::Kind::Arena:
      bufferValues[id] = builder.create<gplan::AllocOp>(
          loc, bufferType(buffer), symbol(buffer.device), i64(buffer.offset),
          builder.getDenseI64ArrayAttr(
              {buffer.start, buffer.end == kForever ? -1 : buffer.end}));
      break;
    }
  }

  std::vector<Value> events(steps_.size());
  auto values = [&](ArrayRef<int> ids) {
    SmallVector<Value> result;
    for (int id : ids)
      result.push_back(bufferValues[id]);
    return result;
  };
  for (auto [index, step] : llvm::enumerate(steps_)) {
    Location loc = step.op->getLoc();
    for (int before : step.waits)
      builder.create<gplan::WaitOp>(loc, events[before], symbol(step.device),
                                    stream(step.stream));
    if (step.isCopy) {
      builder.create<gplan::CopyOp>(loc, bufferValues[step.inputs[0]],
                                    bufferValues[step.outputs[0]],
                                    symbol(step.device), stream(step.stream));
    } else {
      StringAttr &kernel = kernelNames[step.op->getName()];
      if (!kernel)
        kernel = builder.getStringAttr(step.op->getName().getStringRef());
      auto launch = builder.create<gplan::LaunchOp>(
          loc, kernel, symbol(step.device), stream(step.stream),
          values(step.inputs), values(step.outputs));
      // Kernel parameters: the op's attributes but the placement ones, set
      // at once (setting them one by one rebuilds the dictionary each time).
      NamedAttrList params(launch->getDiscardableAttrDictionary());
      for (NamedAttribute attr : step.op->getAttrs()) {
        StringRef name = attr.getName().getValue();
        if (name == "device" || name == "assigned_device" ||
            name == "operandSegmentSizes" || name == "name")
          continue;
        params.set(attr.getName(), attr.getValue());
      }
      params.set(nameKey, builder.getStringAttr(names_.lookup(step.op)));
      launch->setDiscardableAttrs(params.getDictionary(context));
    }
    if (step.record)
      events[index] = builder.create<gplan::RecordOp>(loc, symbol(step.device),
                                                      stream(step.stream));
  }
  builder.create<gplan::ReturnOp>(func_.getLoc(), values(results_));
}

struct LowerToPlanPass
    : public gplace::impl::LowerToPlanPassBase<LowerToPlanPass> {
  using LowerToPlanPassBase::LowerToPlanPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (gpuMemoryLimit < 0) {
      module.emitError() << "gplace-lower-to-plan: gpu-memory-limit must not "
                            "be negative";
      return signalPassFailure();
    }
    DeviceTable devices;
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    std::vector<std::unique_ptr<FunctionLowering>> lowerings;
    for (func::FuncOp func : funcs) {
      auto lowering = std::make_unique<FunctionLowering>(func, devices);
      if (failed(lowering->schedule()))
        return signalPassFailure();
      lowering->planMemory();
      lowerings.push_back(std::move(lowering));
    }

    // The memory limits: the option for GPUs, else what the machine says.
    LocalDevices local = discoverLocalDevices();
    std::vector<int64_t> limits;
    bool ok = true;
    for (DeviceInfo &info : devices.devices()) {
      std::optional<DeviceName> name = DeviceName::parse(info.name);
      int64_t limit = 0;
      if (gpuMemoryLimit > 0 && name && name->type == DeviceType::GPU)
        limit = gpuMemoryLimit * 1024 * 1024;
      else if (auto it = local.memoryLimits.find(info.name);
               it != local.memoryLimits.end())
        limit = it->second;
      int64_t peak = info.persistentBytes + info.arenaBytes;
      if (limit > 0 && peak > limit) {
        emitError(info.neediest.value_or(module.getLoc()))
            << "device " << info.name << " needs " << formatBytes(peak)
            << " of memory, " << formatBytes(info.persistentBytes)
            << " for constants and variables and "
            << formatBytes(info.arenaBytes)
            << " for intermediates, but its memory limit is "
            << formatBytes(limit);
        ok = false;
      }
      limits.push_back(limit);
    }
    if (!ok)
      return signalPassFailure();

    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToStart(module.getBody());
    for (auto [index, info] : llvm::enumerate(devices.devices()))
      builder.create<gplan::DeviceOp>(
          module.getLoc(), builder.getStringAttr(info.symbol),
          builder.getStringAttr(info.name),
          builder.getI64IntegerAttr(info.persistentBytes),
          builder.getI64IntegerAttr(info.arenaBytes),
          builder.getI64IntegerAttr(info.persistentBytes + info.arenaBytes),
          builder.getI64IntegerAttr(limits[index]));
    for (auto [func, lowering] : llvm::zip(funcs, lowerings)) {
      builder.setInsertionPoint(func);
      lowering->emit(builder);
      func.erase();
    }
  }
};

} // namespace
