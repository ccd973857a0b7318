//===- GraphToPlan.cpp - placed graph to an unscheduled plan --------------===//
//
// One gplan.program per function: buffers and steps in program order,
// ordered by data and by tokens, with no stream and no memory yet. What an
// op becomes follows from its traits and interfaces alone (see Passes.td);
// the one decision made here is whether a read of a variable can be a view
// of the variable's memory or must be copied.
//
//===----------------------------------------------------------------------===//

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Support/DeviceName.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace gplace {
#define GEN_PASS_DEF_CONVERTGRAPHTOPLANPASS
#include "gplace/Conversion/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;
namespace gplan = gplace::plan;

namespace {

/// The module's devices as `gplan.device` symbols, in order of first use
/// (`@gpu0`, `@cpu0`, or `@worker_r0_t1_gpu0` off the local task).
class DeviceTable {
public:
  explicit DeviceTable(MLIRContext *context) : context_(context) {}

  FlatSymbolRefAttr symbolOf(StringAttr name) {
    auto [it, isNew] = index_.try_emplace(name, names_.size());
    if (isNew) {
      names_.push_back(name);
      std::optional<DeviceName> parsed = DeviceName::parse(name.getValue());
      std::string type = parsed && parsed->type
                             ? (parsed->type == DeviceType::GPU ? "gpu" : "cpu")
                             : "dev";
      std::string id = parsed && parsed->id ? std::to_string(*parsed->id) : "";
      std::string symbol;
      if (parsed && parsed->job == "localhost" && parsed->replica == 0 &&
          parsed->task == 0)
        symbol = type + id;
      else if (parsed && parsed->isFullySpecified())
        symbol = *parsed->job + "_r" + std::to_string(*parsed->replica) +
                 "_t" + std::to_string(*parsed->task) + "_" + type + id;
      else
        symbol = "device" + std::to_string(names_.size() - 1);
      symbols_.push_back(FlatSymbolRefAttr::get(context_, symbol));
    }
    return symbols_[it->second];
  }

  ArrayRef<StringAttr> names() const { return names_; }
  ArrayRef<FlatSymbolRefAttr> symbols() const { return symbols_; }

private:
  MLIRContext *context_;
  DenseMap<StringAttr, unsigned> index_;
  SmallVector<StringAttr> names_;
  SmallVector<FlatSymbolRefAttr> symbols_;
};

/// Converts one function.
class FunctionConverter {
public:
  FunctionConverter(func::FuncOp func, DeviceTable &devices)
      : func_(func), devices_(devices), builder_(func.getContext()),
        assignedDevice_(builder_.getStringAttr("assigned_device")) {}

  LogicalResult convert();

private:
  /// The traits and interfaces convertOp asks of an op, asked once per
  /// kind of op (hasTrait takes the TypeID of each of the op's traits on
  /// every call, and an interface cast searches the op's interfaces).
  struct Kind {
    bool controlOnly, forwardsInput, persistent, transfer, kernel;
    /// Which of the attributes naming the programs a control-flow step runs
    /// (kProgramAttrs) are inherent to the kind of op.
    bool inherentProgramAttr[4];
  };
  /// The attributes naming the programs a control-flow op runs (gplace.if's
  /// branches, gplace.while's cond and body, once outlined).
  static constexpr const char *kProgramAttrs[4] = {"then_branch", "else_branch",
                                                   "cond", "body"};
  LogicalResult convertOp(PlacedOpInterface op, const Kind &kind,
                          StringAttr device, unsigned index);
  const Kind &kindOf(Operation *op) {
    auto [it, isNew] = kinds_.try_emplace(op->getName().getAsOpaquePointer());
    if (isNew) {
      it->second = {op->hasTrait<graph::OpTrait::ControlOnly>(),
                    op->hasTrait<graph::OpTrait::ForwardsInput>(),
                    isa<PersistentOpInterface>(op),
                    isa<TransferOpInterface>(op),
                    isa<KernelOpInterface>(op),
                    {}};
      ArrayRef<StringAttr> inherent = op->getName().getAttributeNames();
      for (auto [i, name] : llvm::enumerate(kProgramAttrs))
        it->second.inherentProgramAttr[i] =
            llvm::any_of(inherent, [&, name = name](StringAttr attr) {
              return attr.getValue() == name;
            });
    }
    return it->second;
  }
  /// getValueDevice, through the attribute's name uniqued once.
  StringAttr deviceOf(Value value) {
    if (Operation *op = value.getDefiningOp())
      return op->getAttrOfType<StringAttr>(assignedDevice_);
    return getValueDevice(value);
  }
  /// The plan tokens `op` waits for (its after(...) tokens that stand for
  /// something).
  SmallVector<Value> afterTokens(PlacedOpInterface op) {
    SmallVector<Value> tokens;
    for (Value token : op.getControlDependencies())
      if (Value mapped = values_.lookup(token))
        tokens.push_back(mapped);
    return tokens;
  }
  /// A token standing for `inputs` (buffers and tokens): null for none, the
  /// token itself for one token, else a join.
  Value joinOf(Location loc, ArrayRef<Value> inputs) {
    if (inputs.empty())
      return {};
    if (inputs.size() == 1 && isa<gplan::TokenType>(inputs[0].getType()))
      return inputs[0];
    return create<gplan::JoinOp>(loc, inputs);
  }
  StringAttr nameOf(unsigned index) {
    SmallString<64> name;
    names_[index].appendTo(name);
    return builder_.getStringAttr(name);
  }
  /// The name of the step for the op at `index`: its graph op's
  /// (getOpNameParts), held in the step, not uniqued.
  gplan::StepName stepName(unsigned index) const {
    return {names_[index].text, names_[index].suffix};
  }
  /// A copy's name: one without a name of the user's (as
  /// --gplace-insert-copies makes them) takes the name of the step that
  /// wrote the tensor it moves, so that profiles and errors say which
  /// tensor ("MatMul_3 (copy)"), as TensorFlow names a transfer's
  /// Send/Recv after its producer; others, and copies of inputs,
  /// constants and variables, get their own name.
  gplan::StepName copyName(PlacedOpInterface op, unsigned index, Value source) {
    gplan::StepName name;
    if (op.getUserName().empty())
      if (Operation *writer = gplan::getViewRoot(source).getDefiningOp()) {
        if (auto launch = dyn_cast<gplan::LaunchOp>(writer))
          name = launch.getProperties().step_name;
        else if (auto copy = dyn_cast<gplan::CopyOp>(writer))
          name = copy.getProperties().step_name;
      }
    return name.empty() ? stepName(index) : name;
  }
  /// A graph has few tensor types: each one's buffer type is uniqued
  /// once (MLIR's uniquer takes a lock and a thread-local cache per call).
  gplan::BufferType bufferType(Type type) {
    gplan::BufferType &buffer = bufferTypes_[type];
    if (!buffer)
      buffer = gplan::BufferType::get(builder_.getContext(),
                                      cast<RankedTensorType>(type));
    return buffer;
  }
  gplan::KernelAttr kernelAttr(Kernel kernel) {
    gplan::KernelAttr &attr = kernelAttrs_[static_cast<unsigned>(kernel)];
    if (!attr)
      attr = gplan::KernelAttr::get(builder_.getContext(), kernel);
    return attr;
  }
  /// builder_.create<OpTy>(loc, args...), OpTy's registered name looked
  /// up once (OpBuilder::create looks it up in the context on every call).
  template <typename OpTy, typename... Args>
  OpTy create(Location loc, Args &&...args) {
    TypeID id = TypeID::get<OpTy>();
    auto it = opNames_.find(id);
    if (it == opNames_.end())
      it = opNames_
               .try_emplace(id, *RegisteredOperationName::lookup(
                                    id, builder_.getContext()))
               .first;
    OperationState state(loc, it->second);
    OpTy::build(builder_, state, std::forward<Args>(args)...);
    return cast<OpTy>(builder_.create(state));
  }

  func::FuncOp func_;
  DeviceTable &devices_;
  OpBuilder builder_;
  std::vector<graph::OpName> names_;
  DenseMap<Value, Value> values_; ///< Graph value -> plan buffer or token.
  StringAttr assignedDevice_; ///< "assigned_device".
  DenseMap<const void *, Kind> kinds_;
  InterfaceCache<PlacedOpInterface> placed_;
  InterfaceCache<PersistentOpInterface> persistent_;
  InterfaceCache<TransferOpInterface> transfer_;
  InterfaceCache<KernelOpInterface> kernel_;
  DenseMap<Type, gplan::BufferType> bufferTypes_;
  DenseMap<unsigned, gplan::KernelAttr> kernelAttrs_;
  DenseMap<TypeID, OperationName> opNames_;
  /// Per variable (its graph value), the ops that write it, in order.
  gplace::graph::VariableWriters writers_;
};

LogicalResult FunctionConverter::convert() {
  Block &body = func_.getBody().front();
  size_t numOps = body.getOperations().size();
  names_ = getOpNameParts(func_);
  values_.reserve(numOps + func_.getNumArguments());

  builder_.setInsertionPoint(func_);
  auto program = builder_.create<gplan::ProgramOp>(func_.getLoc(),
                                                   func_.getSymNameAttr());
  builder_.setInsertionPointToStart(builder_.createBlock(&program.getBody()));

  for (BlockArgument arg : func_.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return func_.emitError()
             << "argument #" << arg.getArgNumber()
             << " must be a tensor of static shape, but is " << arg.getType();
    values_[arg] = builder_.create<gplan::InputOp>(
        func_.getLoc(), bufferType(type),
        builder_.getI64IntegerAttr(arg.getArgNumber()));
  }

  // The writers of each variable, for the reads' copy-or-view decision.
  writers_ = gplace::graph::collectVariableWriters(body);

  unsigned index = 0; // The op's position among graph ops (for names).
  for (Operation &operation : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(operation)) {
      SmallVector<Value> results;
      for (Value value : ret.getOperands()) {
        Value buffer = values_.lookup(value);
        if (!buffer || !isa<RankedTensorType>(value.getType()))
          return ret.emitError() << "a program can only return tensors, not "
                                 << value.getType();
        results.push_back(buffer);
      }
      builder_.create<gplan::ReturnOp>(ret.getLoc(), results);
      continue;
    }
    auto op = placed_.dynCast(&operation);
    if (!op)
      return operation.emitError()
             << "cannot lower '" << operation.getName() << "' to a plan";
    StringAttr device = op->getAttrOfType<StringAttr>(assignedDevice_);
    if (!device)
      return op->emitError("op has no assigned device; run --gplace-place "
                           "first");
    // Every data operand must be on this device, but for ops that only
    // wait for their operands or move them.
    const Kind &kind = kindOf(op);
    if (!kind.controlOnly && !kind.transfer)
      for (Value operand : op.getDataOperands())
        if (deviceOf(operand) != device)
          return op->emitError()
                 << "operand on '" << getValueDevice(operand).getValue()
                 << "' used on '" << device.getValue()
                 << "'; run --gplace-insert-copies first";
    if (failed(convertOp(op, kind, device, index++)))
      return failure();
  }
  return success();
}

LogicalResult FunctionConverter::convertOp(PlacedOpInterface op,
                                           const Kind &kind, StringAttr device,
                                           unsigned index) {
  Operation *operation = op;
  Location loc = op->getLoc();
  SmallVector<Value> after = afterTokens(op);

  // Persistent memory: a constant, or a variable (its result a resource).
  if (kind.persistent) {
    auto persistent = persistent_.dynCast(operation);
    Value result = op->getResult(0);
    FlatSymbolRefAttr symbol = devices_.symbolOf(device);
    Value buffer;
    if (isa<ResourceType>(result.getType()))
      buffer = create<gplan::VariableOp>(loc, symbol, nameOf(index),
                                         persistent.getInitialValue());
    else
      buffer =
          create<gplan::ConstantOp>(loc, symbol, persistent.getInitialValue());
    // Users of a constant with after(...) wait for those tokens too.
    if (!after.empty() && isa<RankedTensorType>(result.getType()))
      buffer = create<gplan::ViewOp>(loc, buffer.getType(), buffer, after);
    values_[result] = buffer;
    return success();
  }

  // Views of the input's memory; a read that must see the value of its
  // time while a later write may come first is copied by its kernel.
  if (kind.forwardsInput &&
      !(kind.kernel &&
        isa<ResourceType>(op->getOperand(0).getType()) &&
        readNeedsCopy(operation,
                      writers_.lookup(getResourceRoot(op->getOperand(0)))))) {
    Value source = values_.lookup(op->getOperand(0));
    Value result = op->getResult(0);
    if (!source)
      return op->emitError("operand is not a value the plan knows");
    if (isa<ResourceType>(result.getType()) ||
        (source.getType() == bufferType(result.getType()) && after.empty())) {
      values_[result] = source;
      return success();
    }
    values_[result] =
        create<gplan::ViewOp>(loc, bufferType(result.getType()), source, after);
    return success();
  }

  // Ordering alone.
  if (kind.controlOnly) {
    SmallVector<Value> inputs = after;
    for (Value operand : op.getDataOperands())
      if (Value mapped = values_.lookup(operand))
        inputs.push_back(mapped);
    values_[op->getResult(0)] = joinOf(loc, inputs);
    return success();
  }

  if (kind.transfer) {
    auto transfer = transfer_.dynCast(operation);
    Value source = values_.lookup(transfer.getTransferred());
    if (isa<ControlType>(transfer.getTransferred().getType())) {
      SmallVector<Value> inputs = after;
      if (source)
        inputs.push_back(source);
      values_[op->getResult(0)] = joinOf(loc, inputs);
      return success();
    }
    if (!source)
      return op->emitError("operand is not a value the plan knows");
    auto copy = create<gplan::CopyOp>(
        loc, source, devices_.symbolOf(transfer.getDestinationDevice()),
        /*stream=*/IntegerAttr(), after, /*waits=*/ValueRange());
    copy.getProperties().step_name = copyName(op, index, source);
    values_[op->getResult(0)] = copy;
    return success();
  }

  if (!kind.kernel)
    return op->emitError() << "cannot lower '" << op->getName()
                           << "' to a plan: it has no kernel";
  auto kernelOp = kernel_.dynCast(operation);
  SmallVector<Value> inputs, outs;
  for (Value operand : op.getDataOperands()) {
    Value buffer = values_.lookup(operand);
    if (!buffer)
      return op->emitError("operand is not a value the plan knows");
    bool written = isa<ResourceType>(operand.getType()) &&
                   writesVariable(operation, getResourceRoot(operand));
    (written ? outs : inputs).push_back(buffer);
  }
  SmallVector<Type> resultTypes;
  for (Value result : op->getResults())
    resultTypes.push_back(isa<ControlType>(result.getType())
                              ? Type(builder_.getType<gplan::TokenType>())
                              : Type(bufferType(result.getType())));
  // A step that writes nothing (a gplace.if without results, whose
  // branches may assign variables) returns a token, as a plan's steps
  // must: it still runs, in order.
  if (resultTypes.empty() && outs.empty())
    resultTypes.push_back(builder_.getType<gplan::TokenType>());
  DictionaryAttr params = kernelOp.getKernelParameters();
  auto launch = create<gplan::LaunchOp>(
      loc, resultTypes, kernelAttr(kernelOp.getKernel()),
      devices_.symbolOf(device), /*stream=*/IntegerAttr(),
      /*fusion=*/IntegerAttr(), params.empty() ? DictionaryAttr() : params,
      inputs, outs, after, /*waits=*/ValueRange(), /*workspace=*/UnitAttr());
  launch.getProperties().step_name = stepName(index);
  // Control flow names the programs its step runs (gplace.if's branches,
  // gplace.while's cond and body, once outlined): the launch carries them.
  // Found as getAttr finds them (an inherent attribute in the op's
  // properties, else its dictionary), without the search by name where
  // the kind of op has no such inherent attribute and the dictionary is
  // empty, as for most ops.
  DictionaryAttr discardable = operation->getDiscardableAttrDictionary();
  for (auto [i, symbol] : llvm::enumerate(kProgramAttrs)) {
    Attribute attr;
    if (kind.inherentProgramAttr[i] && operation->getPropertiesStorageSize())
      attr = operation->getInherentAttr(symbol).value_or(Attribute());
    else if (!discardable.empty())
      attr = discardable.get(symbol);
    if (auto symbolRef = dyn_cast_or_null<FlatSymbolRefAttr>(attr))
      launch->setAttr(symbol, symbolRef);
  }
  for (auto [result, planned] : llvm::zip(op->getResults(),
                                          launch.getResults()))
    values_[result] = planned;
  return success();
}

struct ConvertGraphToPlanPass
    : public gplace::impl::ConvertGraphToPlanPassBase<ConvertGraphToPlanPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceTable devices(&getContext());
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal()) {
        func.emitError() << "function @" << func.getSymName()
                         << " is a declaration: only a function with a "
                            "body becomes a plan";
        return signalPassFailure();
      }
      FunctionConverter converter(func, devices);
      if (failed(converter.convert()))
        return signalPassFailure();
    }
    for (func::FuncOp func : funcs)
      func.erase();
    // The devices come first, in order of first use.
    std::optional<DeviceSet> known = getModuleDevices(module);
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToStart(module.getBody());
    for (auto [name, symbol] : llvm::zip(devices.names(), devices.symbols())) {
      int64_t limit = 0;
      if (std::optional<DeviceName> parsed = DeviceName::parse(name.getValue()))
        if (known)
          if (const DeviceAttributes *attributes = known->find(*parsed))
            limit = attributes->memoryLimit;
      builder.create<gplan::DeviceOp>(
          module.getLoc(), symbol.getAttr(), name,
          builder.getI64IntegerAttr(limit), IntegerAttr(), IntegerAttr(),
          IntegerAttr());
    }
  }
};

} // namespace
