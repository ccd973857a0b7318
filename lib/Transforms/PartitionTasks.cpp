//===- PartitionTasks.cpp - copies between tasks become send/recv ---------===//
//
// TensorFlow's graph partitioning (graph/graph_partition.cc) for a placed
// graph: the copies --gplace-insert-copies made between devices of
// different tasks become gplace.send / gplace.recv pairs through the tasks'
// host memory, matched by tag. The pass asks TransferOpInterface for the
// transfers and names the two ops it creates.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/ClusterSpec.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>

namespace gplace {
#define GEN_PASS_DEF_PARTITIONTASKSPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

/// A task: job and task number (replica 0).
using TaskKey = std::pair<std::string, int64_t>;

struct PartitionTasksPass
    : gplace::impl::PartitionTasksPassBase<PartitionTasksPass> {
  using PartitionTasksPassBase::PartitionTasksPassBase;

  gplace::ClusterSpec spec_;
  TaskKey chief_;
  int64_t nextTag_ = 0;

  /// The task of a full device name, or an error at `op`.
  FailureOr<TaskKey> taskOf(Operation *op, StringRef device) {
    std::optional<gplace::DeviceName> name = gplace::DeviceName::parse(device);
    if (!name || !name->job || !name->task)
      return op->emitError() << "'" << device << "' is not a full device name";
    TaskKey key{*name->job, *name->task};
    if (rankOf(key) < 0)
      return op->emitError()
             << "device '" << device << "' is on /job:" << key.first
             << "/task:" << key.second << ", which --cluster=" << cluster
             << " does not have";
    return key;
  }

  int rankOf(const TaskKey &task) const {
    return spec_.rankOf(task.first, task.second);
  }

  static std::string cpuOf(const TaskKey &task) {
    return ("/job:" + task.first + "/replica:0/task:" + Twine(task.second) +
            "/device:CPU:0")
        .str();
  }

  /// `value` copied from `from` to `to` (both full names), before `before`;
  /// `value` itself when they are one device.
  static Value copy(OpBuilder &builder, Location loc, Value value,
                    StringRef from, StringRef to) {
    if (from == to)
      return value;
    StringAttr destination = builder.getStringAttr(to);
    return builder.create<CopyOp>(loc, value, builder.getStringAttr(from),
                                  destination, StringAttr(), StringAttr(),
                                  destination, ValueRange());
  }

  LogicalResult partition(func::FuncOp func);

  void runOnOperation() override {
    if (cluster.empty())
      return; // One task: nothing to partition.
    std::string error;
    std::optional<gplace::ClusterSpec> spec =
        gplace::ClusterSpec::parse(cluster, &error);
    if (!spec) {
      getOperation().emitError()
          << "--gplace-partition-tasks cluster: " << error;
      return signalPassFailure();
    }
    spec_ = std::move(*spec);
    chief_ = {spec_.jobs.front().first, 0};
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(partition(func)))
        return signalPassFailure();
  }
};

LogicalResult PartitionTasksPass::partition(func::FuncOp func) {
  OpBuilder builder(func.getContext());
  // The ops' names, as the placement log prints them.
  DenseMap<Operation *, std::string> names;
  {
    std::vector<std::string> list = getOpNames(func);
    size_t i = 0;
    func.walk([&](PlacedOpInterface op) { names[op] = list[i++]; });
  }
  // Results on other tasks go to the chief's CPU first.
  Operation *terminator = func.getBody().front().getTerminator();
  builder.setInsertionPoint(terminator);
  std::string chiefCpu = cpuOf(chief_);
  for (OpOperand &operand : terminator->getOpOperands()) {
    Value value = operand.get();
    if (isa<BlockArgument>(value) || isa<ControlType>(value.getType()))
      continue;
    StringAttr device = getValueDevice(value);
    if (!device)
      return terminator->emitError()
             << "result #" << operand.getOperandNumber()
             << " has no assigned device; run --gplace-place first";
    FailureOr<TaskKey> task = taskOf(terminator, device.getValue());
    if (failed(task))
      return failure();
    if (*task != chief_)
      operand.set(copy(builder, terminator->getLoc(), value, device.getValue(),
                       chiefCpu));
  }

  // The members of each all-reduce group learn the rank of every member's
  // task, so that the runtime all-reduces across those tasks.
  std::map<int64_t, SmallVector<CollectiveReduceOp>> groups;
  func.walk([&](CollectiveReduceOp op) {
    groups[op.getGroupKey()].push_back(op);
  });
  for (auto &[key, members] : groups) {
    SmallVector<int64_t> ranks(members.front().getGroupSize(), -1);
    for (CollectiveReduceOp op : members) {
      StringAttr device = op.getAssignedDeviceAttr();
      if (!device)
        return op.emitError() << "has no assigned device; run --gplace-place "
                                 "first";
      FailureOr<TaskKey> task = taskOf(op, device.getValue());
      if (failed(task))
        return failure();
      if (op.getGroupSize() != static_cast<uint64_t>(ranks.size()))
        return op.emitError() << "group " << key << " has members of group "
                              << "sizes " << ranks.size() << " and "
                              << op.getGroupSize();
      ranks[op.getMember()] = rankOf(*task);
    }
    for (auto [member, rank] : llvm::enumerate(ranks))
      if (rank < 0)
        return members.front().emitError()
               << "all-reduce group " << key << " has no member " << member
               << " in this module";
    for (CollectiveReduceOp op : members)
      op.setRanks(ranks);
  }

  // A group (a control-only op) waits for its operands' tokens where they
  // are, which one task's runtime does across its own devices only: a
  // token of another task's device is copied to the group's device first,
  // and becomes a send and a receive below (f16 loss scaling's
  // `loss_scale/done` joins the restorations of every pipeline stage).
  SmallVector<Operation *> joins;
  func.walk([&](Operation *op) {
    if (op->hasTrait<gplace::graph::OpTrait::ControlOnly>() &&
        op->getAttrOfType<StringAttr>("assigned_device"))
      joins.push_back(op);
  });
  for (Operation *group : joins) {
    StringRef device =
        group->getAttrOfType<StringAttr>("assigned_device").getValue();
    FailureOr<TaskKey> task = taskOf(group, device);
    if (failed(task))
      return failure();
    for (OpOperand &operand : group->getOpOperands()) {
      Value token = operand.get();
      StringAttr source = getValueDevice(token);
      if (!isa<ControlType>(token.getType()) || !source)
        continue;
      FailureOr<TaskKey> from = taskOf(group, source.getValue());
      if (failed(from))
        return failure();
      if (*from == *task)
        continue;
      builder.setInsertionPoint(group);
      operand.set(
          copy(builder, group->getLoc(), token, source.getValue(), device));
    }
  }

  SmallVector<CopyOp> copies;
  func.walk([&](CopyOp op) { copies.push_back(op); });
  for (CopyOp op : copies) {
    Value value = op.getInput();
    if (isa<BlockArgument>(value))
      continue; // A program input: every task has it.
    FailureOr<TaskKey> from = taskOf(op, op.getSource());
    FailureOr<TaskKey> to = taskOf(op, op.getDestination());
    if (failed(from) || failed(to))
      return failure();
    if (*from == *to)
      continue;
    if (nextTag_ > 32767)
      return op.emitError() << "more than 32768 transfers between tasks";
    int64_t tag = nextTag_++;
    std::string name = "edge_" + std::to_string(tag);
    if (Operation *producer = value.getDefiningOp())
      if (names.count(producer))
        name = names[producer];
    // The copy's own `after(...)` tokens stay on their side.
    SmallVector<Value> sendAfter, recvAfter;
    for (Value token : op.getControlDeps()) {
      StringAttr device = getValueDevice(token);
      FailureOr<TaskKey> task =
          device ? taskOf(op, device.getValue()) : FailureOr<TaskKey>();
      if (failed(task))
        return failure();
      if (*task == *from)
        sendAfter.push_back(token);
      else if (*task == *to)
        recvAfter.push_back(token);
      else
        return op.emitError() << "a copy between two tasks waits for a token "
                                 "of a third task";
    }

    builder.setInsertionPoint(op);
    Location loc = op.getLoc();
    std::string fromCpu = cpuOf(*from), toCpu = cpuOf(*to);
    bool control = isa<ControlType>(value.getType());
    Value staged;
    if (control) {
      // A control dependency (TensorFlow sends a dummy tensor for one): a
      // one-element tensor sent after the token, made a token again by a
      // gplace.group on the other side.
      Value token = copy(builder, loc, value, op.getSource(), fromCpu);
      sendAfter.push_back(token);
      auto dummyType = RankedTensorType::get({1}, builder.getI32Type());
      staged = builder.create<ConstantOp>(
          loc, dummyType, DenseElementsAttr::get(dummyType, int32_t(0)),
          StringAttr(), builder.getStringAttr(name + "/_SendControl"),
          builder.getStringAttr(fromCpu), ValueRange());
    } else {
      staged = copy(builder, loc, value, op.getSource(), fromCpu);
    }
    builder.create<SendOp>(loc, ControlType::get(builder.getContext()), staged,
                           builder.getI64IntegerAttr(rankOf(*to)),
                           builder.getI64IntegerAttr(tag), StringAttr(),
                           builder.getStringAttr(name + "/_Send"),
                           builder.getStringAttr(fromCpu), sendAfter);
    auto recv = builder.create<RecvOp>(
        loc, staged.getType(), builder.getI64IntegerAttr(rankOf(*from)),
        builder.getI64IntegerAttr(tag), StringAttr(),
        builder.getStringAttr(name + "/_Recv"), builder.getStringAttr(toCpu),
        recvAfter);
    Value received = recv.getOutput();
    if (control)
      received = builder.create<GroupOp>(
          loc, ControlType::get(builder.getContext()), ValueRange{received},
          StringAttr(), builder.getStringAttr(name + "/_RecvControl"),
          builder.getStringAttr(toCpu), ValueRange());
    received = copy(builder, loc, received, toCpu, op.getDestination());
    op.getResult().replaceAllUsesWith(received);
    op.erase();
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// --gplace-localize-task
//===----------------------------------------------------------------------===//

namespace gplace {
#define GEN_PASS_DEF_LOCALIZETASKPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

namespace {

struct LocalizeTaskPass : gplace::impl::LocalizeTaskPassBase<LocalizeTaskPass> {
  using LocalizeTaskPassBase::LocalizeTaskPassBase;

  void runOnOperation() override {
    if (job.empty()) {
      emitError(getOperation().getLoc())
          << "--gplace-localize-task needs this task's job (job=worker)";
      return signalPassFailure();
    }
    MLIRContext *context = &getContext();
    getOperation().walk([&](Operation *op) {
      for (StringRef key : {StringRef("device"),
                            StringRef(GraphDialect::getDefaultDeviceAttrName())}) {
        auto attr = op->getAttrOfType<StringAttr>(key);
        std::optional<gplace::DeviceName> request =
            attr ? gplace::DeviceName::parse(attr.getValue()) : std::nullopt;
        if (!request || (request->job.value_or(job) == job &&
                         request->task.value_or(task) == task))
          continue;
        request->job.reset();
        request->replica.reset();
        request->task.reset();
        op->setAttr(key, StringAttr::get(context, request->str()));
      }
    });
    // One variable per name and type: the first stands for its copies.
    getOperation().walk([&](func::FuncOp func) {
      llvm::StringMap<Operation *> kept;
      SmallVector<Operation *> merged;
      func.walk([&](PersistentOpInterface variable) {
        auto placed = dyn_cast<PlacedOpInterface>(variable.getOperation());
        if (!placed || placed.getUserName().empty() ||
            !isa<ResourceType>(variable->getResult(0).getType()))
          return;
        auto [it, isNew] = kept.try_emplace(placed.getUserName(), variable);
        if (isNew || it->second->getResult(0).getType() !=
                         variable->getResult(0).getType())
          return;
        variable->getResult(0).replaceAllUsesWith(it->second->getResult(0));
        merged.push_back(variable);
      });
      for (Operation *op : merged)
        op->erase();
    });
  }
};

} // namespace
