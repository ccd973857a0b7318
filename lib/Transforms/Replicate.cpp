//===- Replicate.cpp - one tower per device, gradients averaged -----------===//
//
// Data parallelism as a pass (the seeds' multi-tower code, TensorFlow's
// MirroredStrategy): the ops that depend on the batch are cloned once per
// replica on a slice of the batch; what does not depend on it (variables,
// their updates) stays once, on the host, and takes the towers' averaged
// gradients. The pass asks traits and interfaces (memory effects,
// PlacedOpInterface) and names one op class, gplace.gradients, the boundary
// it averages across.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace gplace {
#define GEN_PASS_DEF_REPLICATEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

constexpr llvm::StringLiteral kHost = "/device:CPU:0";

class Replicator {
public:
  Replicator(func::FuncOp func, unsigned replicas, StringRef deviceType,
             bool mirrored)
      : func_(func), replicas_(replicas), deviceType_(deviceType.str()),
        mirrored_(mirrored), builder_(func.getContext()) {
    std::vector<std::string> names = getOpNames(func);
    size_t i = 0;
    func.walk([&](PlacedOpInterface op) { names_[op] = names[i++]; });
  }

  LogicalResult run();

private:
  /// Sets `op`'s requested device and name (if it is a graph op).
  void pin(Operation *op, StringRef device, StringRef name) {
    if (!isa<PlacedOpInterface>(op))
      return;
    op->setAttr("device", builder_.getStringAttr(device));
    op->setAttr("name", builder_.getStringAttr(name));
  }

  template <typename OpT>
  Value create(Type type, ValueRange operands, StringRef name,
               ArrayRef<NamedAttribute> attributes = {}) {
    Operation *op = builder_.create<OpT>(func_.getLoc(), TypeRange{type},
                                         operands, attributes);
    pin(op, kHost, uniqueName(name));
    return op->getResult(0);
  }

  /// `sum(values) / replicas`, on the host.
  Value average(ValueRange values, StringRef scope) {
    Type type = values.front().getType();
    auto addN = builder_.create<AddNOp>(func_.getLoc(), type, values,
                                        StringAttr(), StringAttr(),
                                        StringAttr(), ValueRange());
    pin(addN, kHost, uniqueName((scope + "/AddN").str()));
    Value sum = addN.getResult();
    auto tensor = cast<RankedTensorType>(type);
    auto scalar = RankedTensorType::get({}, tensor.getElementType());
    Value scale = create<ConstantOp>(
        scalar, {}, (scope + "/Const").str(),
        {builder_.getNamedAttr(
            "value", DenseElementsAttr::get(
                         scalar, builder_.getFloatAttr(scalar.getElementType(),
                                                       1.0 / replicas_)))});
    return create<MulOp>(type, {sum, scale}, (scope + "/mul").str());
  }

  std::string uniqueName(StringRef base) {
    std::string name = base.str();
    for (int k = 1; !used_.insert(name).second; ++k)
      name = (base + "_" + Twine(k)).str();
    return name;
  }

  func::FuncOp func_;
  unsigned replicas_;
  std::string deviceType_;
  bool mirrored_;
  OpBuilder builder_;
  DenseMap<Operation *, std::string> names_;
  SmallVector<Operation *> slices_; ///< The batch's slices, on the host.
  llvm::StringSet<> used_;
};

LogicalResult Replicator::run() {
  Block &body = func_.getBody().front();
  for (auto &[op, name] : names_)
    used_.insert(name);

  // The replicas must be placed by the pass alone.
  WalkResult explicitDevice = func_.walk([&](PlacedOpInterface op) {
    if (op.getRequestedDevice().empty())
      return WalkResult::advance();
    op->emitError() << "op '" << names_[op] << "' requests device '"
                    << op.getRequestedDevice()
                    << "': --gplace-replicate places every op itself; "
                       "remove the request or do not replicate";
    return WalkResult::interrupt();
  });
  if (explicitDevice.wasInterrupted())
    return failure();

  // The batch: the first argument's leading dimension; the batch arguments,
  // those that share it.
  SmallVector<BlockArgument> batchArgs;
  int64_t batch = -1;
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0)
      continue;
    if (batch < 0)
      batch = type.getDimSize(0);
    if (type.getDimSize(0) == batch)
      batchArgs.push_back(arg);
  }
  if (batchArgs.empty())
    return func_.emitError() << "@" << func_.getSymName()
                             << " has no batch argument to split across "
                             << replicas_ << " replicas";
  for (BlockArgument arg : batchArgs)
    if (batch % replicas_ != 0)
      return func_.emitError()
             << "argument #" << arg.getArgNumber() << " of @"
             << func_.getSymName() << ", of type " << arg.getType()
             << ": its batch of " << batch << " does not divide into "
             << replicas_ << " replicas";
  int64_t perReplica = batch / replicas_;

  // The ops that depend on the batch, in program order; a gradient is
  // averaged, so what uses it does not depend on the batch through it.
  DenseSet<Value> tower(batchArgs.begin(), batchArgs.end());
  SmallVector<Operation *> towerOps;
  SmallVector<GradientsOp> gradientOps;
  for (Operation &op : body.without_terminator()) {
    if (!llvm::any_of(op.getOperands(),
                      [&](Value v) { return tower.contains(v); }))
      continue;
    if (hasEffect<MemoryEffects::Write>(&op)) {
      std::string name = names_.lookup(&op);
      return op.emitError() << "op '" << name << "' ("
                            << op.getName().getStringRef()
                            << ") writes state and depends on the batch: "
                               "it cannot be replicated";
    }
    towerOps.push_back(&op);
    if (auto gradients = dyn_cast<GradientsOp>(&op)) {
      gradientOps.push_back(gradients);
      continue;
    }
    for (Value result : op.getResults())
      tower.insert(result);
  }
  if (gradientOps.empty())
    return success(); // An inference function: nothing to average.

  // The slices of the batch, on the host.
  SmallVector<IRMapping> maps(replicas_);
  builder_.setInsertionPointToStart(&body);
  for (BlockArgument arg : batchArgs) {
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = perReplica;
    auto sliceType = RankedTensorType::get(shape, type.getElementType());
    for (unsigned i = 0; i < replicas_; ++i) {
      SmallVector<int64_t> begin(type.getRank(), 0), size(shape);
      begin[0] = i * perReplica;
      Value slice = create<SliceOp>(
          sliceType, {arg},
          ((mirrored_ ? "replica_" : "tower_") + Twine(i) + "/split/arg" +
           Twine(arg.getArgNumber()))
              .str(),
          {builder_.getNamedAttr("begin", builder_.getDenseI64ArrayAttr(begin)),
           builder_.getNamedAttr("size", builder_.getDenseI64ArrayAttr(size))});
      maps[i].map(arg, slice);
      slices_.push_back(slice.getDefiningOp());
    }
  }

  // The towers: each op cloned in place, once per replica, so that every
  // clone follows what it uses. Host variables: the ops that depend on the
  // batch; mirrored: every op (each replica its own copy of each variable,
  // under the variable's own name, as MirroredVariable's copies share
  // theirs, so that checkpoints and --init fill every copy).
  SmallVector<Operation *> cloned;
  if (mirrored_) {
    for (Operation &op : body.without_terminator())
      if (!llvm::is_contained(slices_, &op))
        cloned.push_back(&op);
  } else {
    cloned = towerOps;
  }
  auto device = [&](unsigned i) {
    return ("/device:" + deviceType_ + ":" + Twine(i)).str();
  };
  for (Operation *op : cloned) {
    builder_.setInsertionPoint(op);
    bool dependsOnBatch = llvm::is_contained(towerOps, op);
    SmallVector<Operation *> clones;
    for (unsigned i = 0; i < replicas_; ++i) {
      Operation *clone = builder_.clone(*op, maps[i]);
      clones.push_back(clone);
      // Shapes along the batch shrink: per-replica types for every result
      // that had the batch as its leading dimension.
      for (OpResult result : clone->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!dependsOnBatch || !type || type.getRank() == 0 ||
            type.getDimSize(0) != batch || isa<GradientsOp>(clone))
          continue;
        SmallVector<int64_t> shape(type.getShape());
        shape[0] = perReplica;
        result.setType(RankedTensorType::get(shape, type.getElementType()));
      }
      std::string name = names_.lookup(op);
      // A variable: a persistent op whose value is a resource.
      if (mirrored_ && isa<PersistentOpInterface>(clone) &&
          isa<ResourceType>(clone->getResult(0).getType()))
        pin(clone, device(i), name); // The variable's own name.
      else if (mirrored_) // Replica 0 takes the name of the op it replaces.
        pin(clone, device(i),
            i == 0 ? name
                   : uniqueName(("replica_" + Twine(i) + "/" + name).str()));
      else
        pin(clone, device(i),
            uniqueName(("tower_" + Twine(i) + "/" + name).str()));
    }
    auto gradients = dyn_cast<GradientsOp>(op);
    if (!gradients)
      continue;
    // Each gradient: averaged across the replicas, on the host (host
    // variables, after the last tower) or by an all-reduce (mirrored, each
    // replica then uses its own copy of the average).
    for (auto [k, gradient] : llvm::enumerate(gradients.getResults())) {
      SmallVector<Value> perTower;
      for (Operation *clone : clones)
        perTower.push_back(clone->getResult(k));
      if (!mirrored_) {
        gradient.replaceAllUsesWith(
            average(perTower, ("average_gradients/" + Twine(k)).str()));
        continue;
      }
      SmallVector<Attribute> devices;
      for (unsigned i = 0; i < replicas_; ++i)
        devices.push_back(builder_.getStringAttr(device(i)));
      auto allReduce = builder_.create<AllReduceOp>(
          func_.getLoc(), perTower, builder_.getStringAttr("mean"),
          builder_.getArrayAttr(devices));
      allReduce->setAttr("name", builder_.getStringAttr(uniqueName(
                                     ("allreduce/" + Twine(k)).str())));
      for (unsigned i = 0; i < replicas_; ++i)
        maps[i].map(gradient, allReduce.getResult(i));
    }
  }

  // Results that depend on the batch: concatenated or averaged.
  Operation *terminator = body.getTerminator();
  builder_.setInsertionPoint(terminator);
  for (OpOperand &operand : terminator->getOpOperands()) {
    Value value = operand.get();
    if (!tower.contains(value)) {
      // Mirrored: every replica has it, equal; the first one's.
      if (mirrored_)
        operand.set(maps[0].lookupOrDefault(value));
      continue;
    }
    SmallVector<Value> perTower;
    for (IRMapping &map : maps)
      perTower.push_back(map.lookupOrDefault(value));
    auto type = cast<RankedTensorType>(value.getType());
    unsigned index = operand.getOperandNumber();
    if (type.getRank() > 0 && type.getDimSize(0) == batch) {
      auto concat = builder_.create<ConcatOp>(
          func_.getLoc(), type, perTower, builder_.getI64IntegerAttr(0),
          StringAttr(), StringAttr(), StringAttr(), ValueRange());
      pin(concat, kHost,
          uniqueName(("concat_results/" + Twine(index)).str()));
      operand.set(concat.getResult());
    } else if (isa<FloatType>(type.getElementType())) {
      operand.set(average(perTower, ("average_results/" + Twine(index)).str()));
    } else {
      return terminator->emitError()
             << "result #" << index << ", of type " << type
             << ", depends on the batch but is neither per example nor a "
                "float to average across replicas";
    }
  }

  // The originals go; what stays once stays on the host.
  for (Operation *op : llvm::reverse(cloned))
    op->erase();
  for (Operation &op : body.without_terminator())
    if (auto placed = dyn_cast<PlacedOpInterface>(&op);
        placed && placed.getRequestedDevice().empty())
      op.setAttr("device", builder_.getStringAttr(kHost));
  return success();
}

struct ReplicatePass : gplace::impl::ReplicatePassBase<ReplicatePass> {
  using ReplicatePassBase::ReplicatePassBase;

  void runOnOperation() override {
    if (replicas == 0) {
      getOperation().emitError() << "--gplace-replicate needs replicas >= 1";
      return signalPassFailure();
    }
    if (variables != "host" && variables != "mirrored") {
      getOperation().emitError()
          << "--gplace-replicate variables must be host or mirrored, not '"
          << variables << "'";
      return signalPassFailure();
    }
    if (deviceType != "GPU" && deviceType != "CPU") {
      getOperation().emitError()
          << "--gplace-replicate device-type must be GPU or CPU, not '"
          << deviceType << "'";
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      bool trains = false;
      func.walk([&](GradientsOp) { trains = true; });
      if (trains && failed(Replicator(func, replicas, deviceType,
                                      variables == "mirrored")
                               .run()))
        return signalPassFailure();
    }
  }
};

} // namespace
