//===- PlanExport.cpp - gplan IR to runtime::Plan
//---------------------------===//

#include "gplace/Target/Plan/PlanExport.h"

#include "gplace/Dialect/Plan/PlanDialect.h"

#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;
namespace rt = gplace::runtime;

std::optional<ElementType> gplace::toElementType(Type type) {
  std::string name;
  llvm::raw_string_ostream(name) << type;
  return parseElementType(name);
}

std::optional<rt::TensorType> gplace::toTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<ElementType> element = toElementType(tensor.getElementType());
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
  size_t elementSize = rt::elementBytes(type->elementType);
  if (dense.isSplat()) {
    for (size_t offset = 0; offset < tensor.data.size(); offset += elementSize)
      std::memcpy(tensor.data.data() + offset, raw.data(), elementSize);
  } else {
    if (raw.size() != tensor.data.size())
      return failure();
    std::memcpy(tensor.data.data(), raw.data(), raw.size());
  }
  return tensor;
}

namespace {

/// Reads a launch's kernel parameters from its attributes.
rt::KernelParams kernelParams(LaunchOp launch,
                              const std::vector<rt::BufferDesc> &buffers,
                              const std::vector<int> &inputs) {
  rt::KernelParams params;
  params.transposeA = launch->hasAttr("transpose_a");
  params.transposeB = launch->hasAttr("transpose_b");
  params.keepDims = launch->hasAttr("keep_dims");
  int64_t rank =
      inputs.empty()
          ? 0
          : static_cast<int64_t>(buffers[inputs[0]].type.shape.size());
  auto normalize = [&](int64_t axis) { return axis < 0 ? axis + rank : axis; };
  if (auto axes = launch->getAttrOfType<DenseI64ArrayAttr>("axes"))
    for (int64_t axis : axes.asArrayRef())
      params.axes.push_back(normalize(axis));
  if (auto perm = launch->getAttrOfType<DenseI64ArrayAttr>("perm"))
    params.perm.assign(perm.asArrayRef().begin(), perm.asArrayRef().end());
  if (auto begin = launch->getAttrOfType<DenseI64ArrayAttr>("begin"))
    params.begin.assign(begin.asArrayRef().begin(), begin.asArrayRef().end());
  if (auto size = launch->getAttrOfType<DenseI64ArrayAttr>("size"))
    for (auto [d, n] : llvm::enumerate(size.asArrayRef()))
      params.size.push_back(
          n >= 0 ? n : buffers[inputs[0]].type.shape[d] - params.begin[d]);
  if (auto axis = launch->getAttrOfType<IntegerAttr>("axis"))
    params.axis = normalize(axis.getInt());
  return params;
}

} // namespace

FailureOr<rt::Plan> gplace::exportPlan(ModuleOp module,
                                       llvm::StringRef programName) {
  auto program = module.lookupSymbol<ProgramOp>(programName);
  if (!program)
    return module.emitError() << "no gplan.program '@" << programName << "'";

  rt::Plan plan;
  llvm::StringMap<int> deviceIndex;
  for (DeviceOp device : module.getOps<DeviceOp>()) {
    deviceIndex[device.getSymName()] = plan.devices.size();
    rt::DeviceDesc desc;
    desc.name = device.getDeviceName().str();
    desc.arenaBytes = device.getArenaBytes();
    desc.persistentBytes = device.getPersistentBytes();
    plan.devices.push_back(std::move(desc));
  }
  auto lookupDevice = [&](Operation *op, StringRef symbol) -> FailureOr<int> {
    auto it = deviceIndex.find(symbol);
    if (it == deviceIndex.end())
      return op->emitError() << "unknown device @" << symbol;
    return it->second;
  };

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
  auto ids = [&](ValueRange values) {
    std::vector<int> result;
    for (Value value : values)
      result.push_back(buffers.lookup(value));
    return result;
  };

  // A step of `kind` on stream `stream` of device `symbol`, appended to
  // the plan; nullptr (after an error) for an unknown device.
  auto newStep = [&](Operation *op, rt::Step::Kind kind, StringRef symbol,
                     int64_t stream) -> rt::Step * {
    FailureOr<int> device = lookupDevice(op, symbol);
    if (failed(device))
      return nullptr;
    rt::Step &step = plan.steps.emplace_back();
    step.kind = kind;
    step.device = *device;
    step.stream = stream;
    return &step;
  };

  for (Operation &op : program.getBody().front()) {
    LogicalResult ok = success();
    if (auto input = dyn_cast<InputOp>(op)) {
      rt::BufferDesc desc;
      desc.kind = rt::BufferDesc::Kind::Input;
      desc.index = input.getIndex();
      ok = addBuffer(&op, input, desc);
      if (succeeded(ok)) {
        if (plan.inputs.size() <= static_cast<size_t>(desc.index))
          plan.inputs.resize(desc.index + 1);
        plan.inputs[desc.index] = plan.buffers.back().type;
      }
    } else if (auto alloc = dyn_cast<AllocOp>(op)) {
      FailureOr<int> device = lookupDevice(&op, alloc.getDevice());
      if (failed(device))
        return failure();
      rt::BufferDesc desc;
      desc.kind = rt::BufferDesc::Kind::Arena;
      desc.device = *device;
      desc.offset = alloc.getOffset();
      ok = addBuffer(&op, alloc, desc);
    } else if (isa<ConstantOp, VariableOp>(op)) {
      auto constant = dyn_cast<ConstantOp>(op);
      auto variable = dyn_cast<VariableOp>(op);
      FailureOr<int> device = lookupDevice(
          &op, constant ? constant.getDevice() : variable.getDevice());
      if (failed(device))
        return failure();
      FailureOr<rt::HostTensor> value = toHostTensor(
          constant ? constant.getValue() : variable.getInitialValue());
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
    } else if (auto launch = dyn_cast<LaunchOp>(op)) {
      std::optional<rt::Kernel> kernel =
          rt::kernelFromOpName(launch.getKernel());
      if (!kernel)
        return launch.emitError()
               << "the runtime has no kernel '" << launch.getKernel() << "'";
      rt::Step *step = newStep(&op, rt::Step::Kind::Launch, launch.getDevice(),
                               launch.getStream());
      if (!step)
        return failure();
      step->kernel = *kernel;
      step->inputs = ids(launch.getInputs());
      step->outputs = ids(launch.getOutputs());
      step->params = kernelParams(launch, plan.buffers, step->inputs);
      auto name = launch->getAttrOfType<StringAttr>("name");
      step->label = (name ? name.getValue().str() + " (" : "(") +
                    launch.getKernel().str() + ")";
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      rt::Step *step = newStep(&op, rt::Step::Kind::Copy, copy.getDevice(),
                               copy.getStream());
      if (!step)
        return failure();
      step->inputs = {buffers.lookup(copy.getSource())};
      step->outputs = {buffers.lookup(copy.getTarget())};
      step->label = "copy";
    } else if (auto record = dyn_cast<RecordOp>(op)) {
      rt::Step *step = newStep(&op, rt::Step::Kind::Record, record.getDevice(),
                               record.getStream());
      if (!step)
        return failure();
      step->event = plan.numEvents++;
      events[record] = step->event;
    } else if (auto wait = dyn_cast<WaitOp>(op)) {
      rt::Step *step = newStep(&op, rt::Step::Kind::Wait, wait.getDevice(),
                               wait.getStream());
      if (!step)
        return failure();
      step->event = events.lookup(wait.getEvent());
    } else if (auto ret = dyn_cast<ReturnOp>(op)) {
      plan.results = ids(ret.getResults());
    } else {
      return op.emitError() << "cannot export '" << op.getName() << "'";
    }
    if (failed(ok))
      return failure();
  }
  return plan;
}
