//===- PlanExport.cpp - gplan IR to runtime::Plan -------------------------===//

#include "gplace/Target/Plan/PlanExport.h"

#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/WorkspaceInterface.h"
#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Support/DeviceName.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;
namespace rt = gplace::runtime;

std::optional<rt::TensorType> gplace::toTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<ElementType> element =
      plan::toElementType(tensor.getElementType());
  if (!element)
    return std::nullopt;
  rt::TensorType result;
  result.elementType = *element;
  result.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return result;
}

FailureOr<rt::HostTensor> gplace::toHostTensor(ElementsAttr value) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  std::optional<rt::TensorType> type = toTensorType(value.getType());
  if (!dense || !type)
    return failure();
  rt::HostTensor tensor(*type);
  if (type->elementType == ElementType::I1) {
    size_t i = 0;
    for (bool element : dense.getValues<bool>())
      tensor.data[i++] = element;
    return tensor;
  }
  ArrayRef<char> raw = dense.getRawData();
  size_t elementSize = elementBytes(type->elementType);
  if (dense.isSplat()) {
    // One element, then doubling copies: memcpy's speed on large splats
    // (a variable of 256 MiB filled element by element took seconds).
    size_t size = tensor.data.size();
    if (size >= elementSize)
      std::memcpy(tensor.data.data(), raw.data(), elementSize);
    for (size_t filled = elementSize; filled < size; filled *= 2)
      std::memcpy(tensor.data.data() + filled, tensor.data.data(),
                  std::min(filled, size - filled));
  } else {
    if (raw.size() != tensor.data.size())
      return failure();
    if (!raw.empty()) // An empty constant has no data pointer.
      std::memcpy(tensor.data.data(), raw.data(), raw.size());
  }
  return tensor;
}

namespace {

/// True if the host can allocate `bytes` now (a probe: malloc, then free).
bool canAllocateHost(int64_t bytes) {
  void *memory = std::malloc(static_cast<size_t>(bytes));
  std::free(memory);
  return memory != nullptr || bytes == 0;
}

/// A launch's typed parameters, as the op table places them in
/// KernelParams.
KernelParams kernelParams(LaunchOp launch) {
  KernelParams params;
  DictionaryAttr dict = launch.getParamsAttr();
  if (!dict)
    return params;
  for (const KernelParamDef &def :
       kernelParamDefs(launch.getKernel().getKernel())) {
    Attribute value = dict.get(StringRef(def.name.data(), def.name.size()));
    if (!value)
      continue;
    if (def.boolField)
      params.*def.boolField = true;
    else if (def.i64Field)
      params.*def.i64Field = cast<IntegerAttr>(value).getInt();
    else if (def.arrayField)
      params.*def.arrayField = cast<DenseI64ArrayAttr>(value).asArrayRef().vec();
    else if (def.f64Field)
      params.*def.f64Field = cast<FloatAttr>(value).getValueAsDouble();
  }
  return params;
}

/// The host kernels' workspaces (runtime::hostWorkspaceBytes) for
/// launches on the CPU, and, given this process's devices, the answer of
/// each device that sizes its own kernels' (rt::Device::workspaceBytes:
/// cuDNN's on CUDA GPUs).
struct KernelWorkspaces : public WorkspaceDialectInterface {
  KernelWorkspaces(Dialect *dialect, const rt::DeviceManager *devices = nullptr)
      : WorkspaceDialectInterface(dialect), devices_(devices) {}

  FailureOr<std::optional<int64_t>>
  getWorkspaceBytes(LaunchOp launch, DeviceOp device) const override {
    Kernel kernel = launch.getKernel().getKernel();
    bool host = rt::hostKernelTakesWorkspace(kernel);
    if (!host && !devices_)
      return std::optional<int64_t>();
    std::optional<DeviceName> name = DeviceName::parse(device.getDeviceName());
    if (!name)
      return std::optional<int64_t>();
    rt::Device *sizer = nullptr; // A device that sizes its own.
    if (name->type != DeviceType::CPU) {
      sizer = devices_ ? devices_->find(name->str()) : nullptr;
      if (!sizer || !sizer->kernelTakesWorkspace(kernel))
        return std::optional<int64_t>(); // Emulated GPUs take none.
    } else if (!host) {
      return std::optional<int64_t>();
    }
    std::vector<rt::TensorType> inputs, outputs;
    std::vector<bool> constant;
    auto add = [&](std::vector<rt::TensorType> &to, Value value) {
      std::optional<rt::TensorType> type =
          toTensorType(cast<BufferType>(value.getType()).getTensorType());
      if (type)
        to.push_back(*type);
      return type.has_value();
    };
    for (Value input : launch.getInputs()) {
      if (!add(inputs, input))
        return std::optional<int64_t>(); // Export reports the type.
      // A plan constant, or a view of one, as the executor marks it.
      Value source = input;
      while (auto view = source.getDefiningOp<ViewOp>())
        source = view.getSource();
      constant.push_back(source.getDefiningOp<ConstantOp>() != nullptr);
    }
    for (Value result : launch.getResults())
      if (isa<BufferType>(result.getType()) &&
          result != launch.getWorkspaceBuffer() && !add(outputs, result))
        return std::optional<int64_t>();
    for (Value out : launch.getOuts())
      if (!add(outputs, out))
        return std::optional<int64_t>();
    KernelParams params = kernelParams(launch);
    rt::StatusOr<int64_t> bytes = int64_t(0);
    if (sizer) {
      rt::KernelCall call;
      call.kernel = kernel;
      call.params = &params;
      for (size_t i = 0; i < inputs.size(); ++i)
        call.inputs.push_back({nullptr, &inputs[i], constant[i]});
      for (const rt::TensorType &type : outputs)
        call.outputs.push_back({nullptr, &type});
      bytes = sizer->workspaceBytes(call);
    } else {
      bytes = rt::hostWorkspaceBytes(kernel, params, inputs, constant, outputs);
    }
    if (!bytes)
      return launch.emitOpError()
             << "has no workspace size: " << bytes.status().message();
    return std::optional<int64_t>(*bytes);
  }

private:
  const rt::DeviceManager *devices_;
};

/// "MatMul (gplace.matmul)" from a launch's or a copy's `name`.
std::string labelOf(Operation *op, std::string_view what) {
  std::string label = "(" + std::string(what) + ")";
  StepName name;
  if (auto launch = dyn_cast<LaunchOp>(op))
    name = launch.getProperties().step_name;
  else if (auto copy = dyn_cast<CopyOp>(op))
    name = copy.getProperties().step_name;
  if (!name.empty())
    label = name.str() + " " + label;
  return label;
}

} // namespace

int64_t gplace::planHostMemoryMiB(ModuleOp module) {
  // In MiB, rounded up, so that no sum overflows.
  constexpr int64_t kMiB = 1 << 20;
  auto mib = [](IntegerAttr bytes) {
    return bytes ? (std::max<int64_t>(bytes.getInt(), 0) + kMiB - 1) / kMiB
                 : 0;
  };
  int64_t need = 0;
  for (DeviceOp device : module.getOps<DeviceOp>()) {
    int64_t persistent = mib(device.getPersistentBytesAttr());
    std::optional<DeviceName> name =
        DeviceName::parse(device.getDeviceName().str());
    need += persistent;
    if (name && name->type == DeviceType::CPU)
      need += persistent + mib(device.getArenaBytesAttr());
  }
  return need;
}

FailureOr<rt::Plan> gplace::exportPlan(ModuleOp module,
                                       llvm::StringRef programName) {
  auto program = module.lookupSymbol<ProgramOp>(programName);
  if (!program)
    return emitError(module.getLoc()) << "no gplan.program '@" << programName << "'";

  rt::Plan plan;
  llvm::StringMap<int> deviceIndex;
  for (DeviceOp device : module.getOps<DeviceOp>()) {
    if (!device.getArenaBytesAttr() || !device.getPersistentBytesAttr())
      return device.emitOpError()
             << "has no memory plan; run --gplace-plan-memory";
    deviceIndex[device.getSymName()] = plan.devices.size();
    rt::DeviceDesc desc;
    desc.name = device.getDeviceName().str();
    desc.arenaBytes = device.getArenaBytesAttr().getInt();
    desc.persistentBytes = device.getPersistentBytesAttr().getInt();
    plan.devices.push_back(std::move(desc));
  }
  auto lookupDevice = [&](Operation *op, StringRef symbol) -> FailureOr<int> {
    auto it = deviceIndex.find(symbol);
    if (it == deviceIndex.end())
      return op->emitError() << "unknown device @" << symbol;
    return it->second;
  };

  // Before anything is materialized: what loading will take of host
  // memory at least, against what this process may use (0: unknown).
  const int64_t usableHost = rt::usableHostMemoryBytes();
  if (int64_t need = planHostMemoryMiB(module);
      usableHost > 0 && need > usableHost / (1 << 20))
    return program.emitError()
           << "the plan needs at least " << need
           << " MiB of host memory (the host copies of its constants and "
              "variables, the CPU's constants, variables and "
              "intermediates), but this process may use "
           << usableHost / (1 << 20)
           << " MiB (physical memory, cgroup memory.max, ulimit -v)";

  // Each device's arena table, and how many of its offsets are taken.
  llvm::StringMap<std::pair<ArrayRef<int64_t>, size_t>> arenas;
  for (ArenaOp arena : program.getOps<ArenaOp>())
    arenas[arena.getDevice()] = {arena.getOffsets(), 0};

  // The inputs: indices 0 to N-1 for N gplan.input ops, each once (the
  // executor sizes its inputs by them).
  size_t numInputs = llvm::range_size(program.getOps<InputOp>());
  std::vector<bool> inputSeen(numInputs, false);

  DenseMap<Value, int> buffers, events;
  auto addBuffer = [&](Operation *op, Value value,
                       rt::BufferDesc desc) -> LogicalResult {
    std::optional<rt::TensorType> type =
        toTensorType(cast<BufferType>(value.getType()).getTensorType());
    if (!type)
      return op->emitError() << "unsupported buffer type " << value.getType();
    desc.type = *type;
    buffers[value] = plan.buffers.size();
    plan.buffers.push_back(std::move(desc));
    return success();
  };
  /// A buffer a step writes on `symbol`: its slot from the arena table.
  auto addArenaBuffer = [&](Operation *op, Value value,
                            StringRef symbol) -> LogicalResult {
    FailureOr<int> device = lookupDevice(op, symbol);
    if (failed(device))
      return failure();
    auto arena = arenas.find(symbol);
    if (arena == arenas.end() ||
        arena->second.second >= arena->second.first.size())
      return op->emitError() << "writes a buffer that the arena table of @"
                             << symbol << " has no slot for; run "
                             << "--gplace-plan-memory";
    int64_t offset = arena->second.first[arena->second.second++];
    rt::BufferDesc desc;
    desc.kind = offset < 0 ? rt::BufferDesc::Kind::Register
                           : rt::BufferDesc::Kind::Arena;
    desc.device = *device;
    desc.offset = offset;
    return addBuffer(op, value, desc);
  };
  auto ids = [&](ValueRange values) {
    std::vector<int> result;
    for (Value value : values)
      result.push_back(buffers.lookup(value));
    return result;
  };

  // A step of `kind` on stream `stream` of device `symbol`, appended to
  // the plan; nullptr (after an error) for an unknown device or no stream.
  auto newStep = [&](Operation *op, rt::Step::Kind kind, StringRef symbol,
                     IntegerAttr stream) -> rt::Step * {
    FailureOr<int> device = lookupDevice(op, symbol);
    if (failed(device))
      return nullptr;
    if (!stream) {
      op->emitOpError() << "has no stream; run --gplace-schedule-plan";
      return nullptr;
    }
    rt::Step &step = plan.steps.emplace_back();
    step.kind = kind;
    step.device = *device;
    step.stream = stream.getInt();
    return &step;
  };

  for (Operation &op : program.getBody().front()) {
    LogicalResult ok = success();
    // A step's stream first waits for its events.
    if (isa<LaunchOp, CopyOp>(op)) {
      auto device = op.getAttrOfType<FlatSymbolRefAttr>("device");
      for (Value event : getStepWaits(&op)) {
        auto it = events.find(event);
        if (it == events.end())
          return op.emitOpError() << "waits for an event the plan does not "
                                     "record";
        rt::Step *step = newStep(&op, rt::Step::Kind::Wait, device.getValue(),
                                 op.getAttrOfType<IntegerAttr>("stream"));
        if (!step)
          return failure();
        step->event = it->second;
        // "wait: MatMul (gplace.matmul)": what waits, for traces and errors.
        auto launch = dyn_cast<LaunchOp>(op);
        step->label =
            "wait: " +
            labelOf(&op, launch ? "gplace." + std::string(kernelMnemonic(
                                                  launch.getKernel().getKernel()))
                                : std::string("copy"));
      }
    }
    if (auto input = dyn_cast<InputOp>(op)) {
      rt::BufferDesc desc;
      desc.kind = rt::BufferDesc::Kind::Input;
      int64_t index = input.getIndexAttr().getInt();
      if (index < 0 || static_cast<size_t>(index) >= numInputs ||
          inputSeen[index])
        return input.emitOpError()
               << "index " << index << " is not one of 0 to "
               << static_cast<int64_t>(numInputs) - 1
               << " taken once: the program's " << numInputs
               << " inputs are numbered from 0";
      inputSeen[index] = true;
      desc.index = static_cast<int>(index);
      ok = addBuffer(&op, input, desc);
      if (succeeded(ok)) {
        if (plan.inputs.size() <= static_cast<size_t>(desc.index))
          plan.inputs.resize(desc.index + 1);
        plan.inputs[desc.index] = plan.buffers.back().type;
      }
    } else if (isa<ConstantOp, VariableOp>(op)) {
      auto constant = dyn_cast<ConstantOp>(op);
      auto variable = dyn_cast<VariableOp>(op);
      FailureOr<int> device = lookupDevice(
          &op, constant ? constant.getDevice() : variable.getDevice());
      if (failed(device))
        return failure();
      ElementsAttr initial =
          constant ? constant.getValue() : variable.getInitialValue();
      // The host copy of the value is made before the plan loads: a size
      // the host cannot allocate is an error here, not an abort.
      auto tensorType = cast<ShapedType>(initial.getType());
      int64_t bytes = getAlignedBytes(BufferType::get(
                          op.getContext(),
                          cast<RankedTensorType>(tensorType)))
                          .value_or(-1);
      if (bytes < 0 || !canAllocateHost(bytes))
        return op.emitError()
               << "cannot allocate "
               << (bytes < 0 ? std::string("more than 2^63")
                             : std::to_string(bytes))
               << " bytes of host memory for the "
               << (variable ? "initial value of this variable"
                            : "value of this constant");
      FailureOr<rt::HostTensor> value = toHostTensor(initial);
      if (failed(value))
        return op.emitError() << "only dense constants are supported";
      rt::PersistentDesc persistent;
      persistent.device = *device;
      persistent.isVariable = static_cast<bool>(variable);
      if (variable)
        persistent.name = variable.getVarName().str();
      persistent.initialValue = std::move(*value);
      rt::BufferDesc desc;
      desc.kind = rt::BufferDesc::Kind::Persistent;
      desc.device = *device;
      desc.index = plan.persistents.size();
      plan.persistents.push_back(std::move(persistent));
      ok = addBuffer(&op, op.getResult(0), desc);
    } else if (auto view = dyn_cast<ViewOp>(op)) {
      // The source's memory, seen with the view's type.
      rt::BufferDesc desc = plan.buffers[buffers.lookup(view.getSource())];
      ok = addBuffer(&op, view.getResult(), desc);
    } else if (auto launch = dyn_cast<LaunchOp>(op)) {
      Kernel kernel = launch.getKernel().getKernel();
      rt::Step *step = newStep(&op, rt::Step::Kind::Launch,
                               launch.getDevice(), launch.getStreamAttr());
      if (!step)
        return failure();
      step->kernel = kernel;
      step->inputs = ids(launch.getInputs());
      Value workspace = launch.getWorkspaceBuffer();
      for (Value result : launch.getResults())
        if (isa<BufferType>(result.getType())) {
          if (failed(addArenaBuffer(&op, result, launch.getDevice())))
            return failure();
          (result == workspace ? step->workspace
                               : step->outputs.emplace_back()) =
              buffers.lookup(result);
        }
      for (int written : ids(launch.getOuts()))
        step->outputs.push_back(written);
      step->params = kernelParams(launch);
      // Control flow: its sub-programs, each exported as a plan.
      if (kernel == Kernel::If || kernel == Kernel::While) {
        bool isIf = kernel == Kernel::If;
        for (StringRef name : {isIf ? "then_branch" : "cond",
                               isIf ? "else_branch" : "body"}) {
          auto symbol = launch->getAttrOfType<FlatSymbolRefAttr>(name);
          if (!symbol)
            return launch.emitOpError()
                   << "runs control flow but names no '" << name
                   << "' program";
          if (symbol.getValue() == programName)
            return launch.emitOpError()
                   << "runs its own program @" << programName;
          FailureOr<rt::Plan> sub = exportPlan(module, symbol.getValue());
          if (failed(sub))
            return failure();
          step->subplans.push_back(plan.subplans.size());
          plan.subplans.push_back(std::move(*sub));
        }
      }
      if (IntegerAttr fusion = launch.getFusionAttr())
        step->fusion = fusion.getInt();
      step->label = labelOf(&op, "gplace." + std::string(kernelMnemonic(kernel)));
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      if (failed(addArenaBuffer(&op, copy.getResult(), copy.getDevice())))
        return failure();
      rt::Step *step = newStep(&op, rt::Step::Kind::Copy, copy.getDevice(),
                               copy.getStreamAttr());
      if (!step)
        return failure();
      step->inputs = {buffers.lookup(copy.getSource())};
      step->outputs = {buffers.lookup(copy.getResult())};
      step->label = labelOf(&op, "copy");
    } else if (auto record = dyn_cast<RecordOp>(op)) {
      rt::Step *step = newStep(&op, rt::Step::Kind::Record, record.getDevice(),
                               record.getStreamAttr());
      if (!step)
        return failure();
      step->event = plan.numEvents++;
      events[record] = step->event;
    } else if (auto ret = dyn_cast<ReturnOp>(op)) {
      plan.results = ids(ret.getResults());
    } else if (!isa<ArenaOp>(op)) {
      return op.emitError() << "cannot export '" << op.getName()
                            << "'; run the lowering to the end "
                               "(--gplace-lower-to-plan)";
    }
    if (failed(ok))
      return failure();
  }
  return plan;
}

void gplace::registerHostWorkspaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, PlanDialect *dialect) {
    dialect->addInterfaces<KernelWorkspaces>();
  });
}

void gplace::registerMachineWorkspaces(MLIRContext &context,
                                       const rt::DeviceManager &devices) {
  auto *dialect = context.getOrLoadDialect<PlanDialect>();
  if (!dialect->getRegisteredInterface<WorkspaceDialectInterface>())
    dialect->addInterface<KernelWorkspaces>(&devices);
}
