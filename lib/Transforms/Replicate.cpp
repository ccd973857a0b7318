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

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/Passes.h"

#include "PipelineStages.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <set>

namespace gplace {
#define GEN_PASS_DEF_REPLICATEPASS
#define GEN_PASS_DEF_ACCUMULATEGRADIENTSPASS
#define GEN_PASS_DEF_PIPELINEPARALLELPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

constexpr llvm::StringLiteral kHost = "/device:CPU:0";

/// What the pass options ask of each replicated function.
struct ReplicaConfig {
  /// The replicas' device requests, one per replica.
  std::vector<std::string> devices;
  bool mirrored = true;
  int64_t bucketBytes = 0;
  /// The batch arguments' numbers; empty: those sharing the first ranked
  /// argument's leading dimension.
  std::vector<unsigned> batchArgs;
  /// Results that are not per example are summed, not averaged.
  bool sum = false;
  /// Gradient accumulation (--gplace-accumulate-gradients): the replicas
  /// are micro-batches on the function's own devices, run one after
  /// another, their gradients summed as they come.
  bool accumulate = false;
  /// Pipeline parallelism (--gplace-pipeline-parallel): accumulation whose
  /// micro-batches overlap (no waits between them), forward clones marked
  /// with their micro-batch, the schedule recorded on the function.
  bool pipeline = false;
  std::string schedule;
  unsigned stages = 0;
  /// Where the stages come from: "placement" (the ops' requests) or
  /// "auto" (the cost model's cut).
  std::string split;
  /// Data parallel x pipeline parallel: the micro-batches (`devices`) are
  /// `pipelineReplicas` pipelines' in turn, M each; micro-batch i is
  /// replica i / M's, whose clones request replicaDevices[i / M]'s device
  /// for each stage's request (none for replica 0, which keeps them).
  unsigned pipelineReplicas = 1;
  std::vector<llvm::StringMap<std::string>> replicaDevices;
  /// Data parallel x pipeline parallel with mirrored variables
  /// (variables=mirrored): replica r >= 1 takes its own copy of every op
  /// that does not depend on the batch (the variables, their reads, the
  /// optimizer), on its own stages; each replica sums its own M
  /// micro-batches' gradients, and one gplace.all_reduce per gradient
  /// across the replicas' copies precedes each replica's update.
  bool mirroredPipeline = false;

  /// `count` micro-batches on the function's own devices, split along
  /// `batchArgs` (empty: as ReplicaConfig::batchArgs says), their gradients
  /// accumulated: what --gplace-accumulate-gradients and
  /// --gplace-pipeline-parallel both start from.
  static ReplicaConfig microBatches(unsigned count,
                                    llvm::ArrayRef<unsigned> batchArgs) {
    ReplicaConfig config;
    config.accumulate = true;
    config.mirrored = false;
    config.devices.assign(count, "");
    config.batchArgs.assign(batchArgs.begin(), batchArgs.end());
    return config;
  }
};

class Replicator {
public:
  Replicator(func::FuncOp func, const ReplicaConfig &config)
      : func_(func), replicas_(config.devices.size()), config_(config),
        builder_(func.getContext()) {
    std::vector<std::string> names = getOpNames(func);
    size_t i = 0;
    func.walk([&](PlacedOpInterface op) { names_[op] = names[i++]; });
  }

  LogicalResult run();
  /// Gradient accumulation: see ReplicaConfig::accumulate and
  /// AccumulateGradientsPass.
  LogicalResult accumulate();

private:
  /// Sets `op`'s requested device (none: it keeps its own) and name (if it
  /// is a graph op).
  void pin(Operation *op, StringRef device, StringRef name) {
    if (!isa<PlacedOpInterface>(op))
      return;
    if (!device.empty())
      op->setAttr("device", builder_.getStringAttr(device));
    op->setAttr("name", builder_.getStringAttr(name));
  }

  /// Where what the replicas share is computed: the host CPU, or, for
  /// accumulated micro-batches, wherever placement puts it. A pipeline's
  /// host slices the batch and combines the results, so that each stage's
  /// device holds the micro-batches its schedule keeps live, not the
  /// whole batch.
  StringRef host() const {
    return config_.accumulate && !config_.pipeline ? "" : kHost;
  }
  /// The pass's flag, for diagnostics.
  const char *passFlag() const {
    return config_.pipeline     ? "--gplace-pipeline-parallel"
           : config_.accumulate ? "--gplace-accumulate-gradients"
                                : "--gplace-replicate";
  }
  /// " replicas", or " micro-batches" when accumulating.
  const char *unitName() const {
    return config_.accumulate ? " micro-batches" : " replicas";
  }
  /// The scope of replica `i`'s clones.
  std::string scopeOf(unsigned i) const {
    return ((config_.accumulate ? "micro_batch_"
             : config_.mirrored ? "replica_"
                                : "tower_") +
            Twine(i))
        .str();
  }

  /// What both rewrites need to know of the function: the batch
  /// arguments, the batch, a replica's (micro-batch's) share of it, and
  /// the ops that depend on the batch (findTowerOps).
  struct Analysis {
    SmallVector<BlockArgument> batchArgs;
    int64_t batch = -1;
    int64_t perReplica = 0;
    DenseSet<Value> tower;
    SmallVector<Operation *> towerOps;
    SmallVector<GradientsOp> gradientOps;
  };
  /// findBatch, then findTowerOps, into `a`.
  LogicalResult analyze(Analysis &a) {
    if (failed(findBatch(a.batchArgs, a.batch, a.perReplica)))
      return failure();
    return findTowerOps(a.batchArgs, a.tower, a.towerOps, a.gradientOps);
  }

  /// Finds the batch arguments and the batch (their leading dimension),
  /// checks that it divides into the replicas and returns the size of a
  /// replica's slice. Errors as the pass documents.
  LogicalResult findBatch(SmallVectorImpl<BlockArgument> &batchArgs,
                          int64_t &batch, int64_t &perReplica);
  /// The ops that depend on the batch, in program order (`tower` gets
  /// their values, the gradients' excepted), and the gplace.gradients ops
  /// among them. Error: a stateful op among them.
  LogicalResult findTowerOps(ArrayRef<BlockArgument> batchArgs,
                             DenseSet<Value> &tower,
                             SmallVectorImpl<Operation *> &towerOps,
                             SmallVectorImpl<GradientsOp> &gradientOps);
  /// Replica `i`'s slice of batch argument `arg`, named
  /// `<scope>/split/arg<N>`.
  Value sliceOf(BlockArgument arg, unsigned i, int64_t perReplica);
  /// Clones `op` for replica `i` (through maps[i]), with per-replica
  /// shapes, its own seed and its name; for i == 0, checks that the op
  /// takes the per-replica shapes. Null on error (reported).
  Operation *cloneFor(Operation *op, unsigned i, IRMapping &map,
                      bool dependsOnBatch, int64_t batch, int64_t perReplica,
                      ArrayRef<BlockArgument> batchArgs);
  /// Mirrored pipeline replicas: clones `op`, which does not depend on the
  /// batch, for pipeline replica `r` >= 1 through `map`, its stage's
  /// request moved to the replica's device; a variable keeps its name (as
  /// mirrored variables do), anything else is `replica_<r>/<name>`. Null on
  /// error (reported): a variable on no stage's GPU.
  Operation *cloneShared(Operation *op, unsigned r, IRMapping &map);
  /// Combines the function's results that depend on the batch across the
  /// replicas (maps): concatenated per example, else averaged (or summed).
  LogicalResult combineResults(const DenseSet<Value> &tower,
                               MutableArrayRef<IRMapping> maps, int64_t batch);

  /// An op on `device` (the host by default), named `name` made unique;
  /// of type `type`, or (null) the one the op's rule infers (buildOp).
  template <typename OpT>
  Value create(Type type, ValueRange operands, StringRef name,
               ArrayRef<NamedAttribute> attributes = {},
               std::optional<StringRef> device = std::nullopt) {
    Operation *op = buildOp<OpT>(builder_, func_.getLoc(), operands,
                                 attributes,
                                 type ? TypeRange{type} : TypeRange{});
    pin(op, device ? *device : host(), uniqueName(name));
    return op->getResult(0);
  }

  /// `sum(values) / replicas`, on the host. f16 values are scaled before
  /// the sum, as PyTorch's DDP divides before its all-reduce: N values near
  /// f16's largest (65504) would add up to infinity where their mean is
  /// finite.
  Value average(ValueRange values, StringRef scope) {
    Type type = values.front().getType();
    auto tensor = cast<RankedTensorType>(type);
    auto scalar = RankedTensorType::get({}, tensor.getElementType());
    auto inverse = [&] {
      return create<ConstantOp>(
          scalar, {}, (scope + "/Const").str(),
          {builder_.getNamedAttr("value",
                                 getSplatAttr(scalar, 1.0 / replicas_))});
    };
    bool prescale = tensor.getElementType().isF16() && values.size() > 1;
    SmallVector<Value> terms(values);
    if (prescale) {
      Value scale = inverse();
      for (auto [i, term] : llvm::enumerate(terms))
        term = create<MulOp>(type, {term, scale},
                             (scope + "/prescale_" + Twine(i)).str());
    }
    auto addN =
        builder_.create<AddNOp>(func_.getLoc(), type, terms, StringAttr(),
                                StringAttr(), StringAttr(), ValueRange());
    pin(addN, host(), uniqueName((scope + "/AddN").str()));
    if (prescale)
      return addN.getResult();
    return create<MulOp>(type, {addN.getResult(), inverse()},
                         (scope + "/mul").str());
  }

  /// Gives replica `i`'s copy of a seeded op (dropout) that depends on the
  /// batch a seed of its own, on its device: each replica draws its own
  /// mask, as each of TensorFlow's towers does; replica 0 keeps the seed,
  /// so one replica draws one device's. The seed's second word gains i
  /// times the golden ratio's 64 (or 32) bits, wrapped, rather than i, so
  /// that the seeds a graph gives its layers (`[step, 1000]`, `[step,
  /// 1001]`) do not become each other's in another replica, as TensorFlow's
  /// stateless_fold_in hashes the replica's id into the seed.
  void offsetSeed(SeededOpInterface seeded, unsigned i, StringRef name) {
    OpOperand &seed = seeded.getSeedOperand();
    auto type = cast<RankedTensorType>(seed.get().getType());
    OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPoint(seeded);
    std::string scope = scopeOf(i) + "/" + std::string(name) + "/seed";
    unsigned width = type.getElementTypeBitWidth();
    SmallVector<APInt> words(type.getNumElements(), APInt(width, 0));
    APInt golden =
        width == 32 ? APInt(32, 0x9E3779B9u) : APInt(64, 0x9E3779B97F4A7C15ull);
    words.back() = golden * APInt(width, i);
    Value offset = create<ConstantOp>(
        type, {}, scope + "/Const",
        {builder_.getNamedAttr("value", DenseElementsAttr::get(type, words))},
        device(i));
    seed.set(create<AddOp>(type, {seed.get(), offset}, scope + "/add", {},
                           device(i)));
  }

  /// Replica #i's device request.
  const std::string &device(unsigned i) const { return config_.devices[i]; }

  /// `sum(values)` on the host, named as TensorFlow names tf.add_n's op.
  Value sum(ValueRange values) {
    auto addN = builder_.create<AddNOp>(
        func_.getLoc(), values.front().getType(), values, StringAttr(),
        StringAttr(), StringAttr(), ValueRange());
    pin(addN, host(), uniqueName("AddN"));
    return addN.getResult();
  }

  /// Mirrored variables: the gradients of `gradients` (replica i's from
  /// clones[i]) through all-reduces (mean), each replica's maps[i] then
  /// giving its copy of the average. Gradients smaller than bucketBytes
  /// share an all-reduce, taken in reverse order (the backward pass makes
  /// the last layers' first) until a bucket is full, as Horovod's tensor
  /// fusion and PyTorch DDP's buckets do: each replica flattens and
  /// concatenates them, and slices the average back.
  /// One all-reduce (`reduction`: "mean" or "sum") of a bucket of
  /// tensors across members: values[j][i] is member i's copy of the
  /// bucket's tensor j, on devices[i]; returns the reduced copies, indexed
  /// the same way. A bucket of one tensor is all-reduced as it is; of
  /// several (one element type), each member flattens and concatenates
  /// them (`<scope>/flatten_<j>`, `<scope>/concat`), and slices the result
  /// back (`<scope>/slice_<j>`, `<scope>/reshape_<j>`), member i > 0's ops
  /// named under `replica_<i>/`. The all-reduce is named `scope`.
  SmallVector<SmallVector<Value>>
  allReduceBucket(ArrayRef<SmallVector<Value>> values,
                  ArrayRef<std::string> devices, StringRef scope,
                  StringRef reduction, ArrayRef<unsigned> labels);

  /// Mirrored pipeline replicas: each gradient's per-replica sums
  /// (reduced[k][g], replica g's) replaced by their all-reduced sums across
  /// the replicas' copies of its stage (stages[k], one device per replica).
  /// Sums smaller than bucketBytes of one stage and element type share an
  /// all-reduce, taken last first, as allReduceGradients' buckets.
  void allReduceStages(MutableArrayRef<SmallVector<Value>> reduced,
                       ArrayRef<ArrayAttr> stages);

  void allReduceGradients(GradientsOp gradients, ArrayRef<Operation *> clones,
                          MutableArrayRef<IRMapping> maps);

  /// The type a running sum of gradients of `type` is kept in: f32 for
  /// f16 and bf16 tensors, else `type`.
  static Type accumulatorType(Type type) {
    auto tensor = cast<RankedTensorType>(type);
    Type element = tensor.getElementType();
    if (!element.isF16() && !element.isBF16())
      return type;
    return RankedTensorType::get(tensor.getShape(),
                                 Float32Type::get(type.getContext()));
  }

  std::string uniqueName(StringRef base) {
    std::string name = base.str();
    for (int k = 1; !used_.insert(name).second; ++k)
      name = (base + "_" + Twine(k)).str();
    return name;
  }

  func::FuncOp func_;
  unsigned replicas_;
  const ReplicaConfig &config_;
  OpBuilder builder_;
  DenseMap<Operation *, std::string> names_;
  SmallVector<Operation *> slices_; ///< The batch's slices, on the host.
  llvm::StringSet<> used_;
};

LogicalResult
Replicator::findBatch(SmallVectorImpl<BlockArgument> &batchArgs,
                      int64_t &batch, int64_t &perReplica) {
  Block &body = func_.getBody().front();
  // Slices need static shapes (a dynamic batch read as a negative size).
  for (BlockArgument arg : body.getArguments())
    if (auto type = dyn_cast<ShapedType>(arg.getType());
        type && !type.hasStaticShape())
      return func_.emitError()
             << "argument #" << arg.getArgNumber() << " of @"
             << func_.getSymName() << ", of type " << arg.getType()
             << ", has a dynamic shape: --gplace-replicate splits a static "
                "batch";

  // The batch: the batch arguments' leading dimension. By default, the
  // first ranked argument's, and the batch arguments those that share it.
  batch = -1;
  if (!config_.batchArgs.empty()) {
    for (unsigned number : config_.batchArgs) {
      if (number >= body.getNumArguments())
        return func_.emitError()
               << "--gplace-replicate batch-args: @" << func_.getSymName()
               << " has no argument #" << number << " (it has "
               << body.getNumArguments() << ")";
      BlockArgument arg = body.getArgument(number);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getRank() == 0)
        return func_.emitError()
               << "--gplace-replicate batch-args: argument #" << number
               << " of @" << func_.getSymName() << ", of type " << arg.getType()
               << ", has no leading dimension to split";
      if (batch < 0)
        batch = type.getDimSize(0);
      if (type.getDimSize(0) != batch)
        return func_.emitError()
               << "--gplace-replicate batch-args: argument #" << number
               << " of @" << func_.getSymName() << ", of type " << arg.getType()
               << ", has a batch of " << type.getDimSize(0) << ", not " << batch
               << " as argument #" << batchArgs.front().getArgNumber();
      batchArgs.push_back(arg);
    }
  } else {
    for (BlockArgument arg : body.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getRank() == 0)
        continue;
      if (batch < 0)
        batch = type.getDimSize(0);
      if (type.getDimSize(0) == batch)
        batchArgs.push_back(arg);
    }
  }
  // Mirrored replicas without a batch each run the whole function (the
  // seeds' towers of constants); host replicas would have nothing to run.
  if (batchArgs.empty() && !config_.mirrored)
    return func_.emitError() << "@" << func_.getSymName()
                             << " has no batch argument to split across "
                             << replicas_ << unitName();
  for (BlockArgument arg : batchArgs)
    if (batch % replicas_ != 0)
      return func_.emitError()
             << "argument #" << arg.getArgNumber() << " of @"
             << func_.getSymName() << ", of type " << arg.getType()
             << ": its batch of " << batch << " does not divide into "
             << replicas_ << unitName();
  perReplica = batch / replicas_;
  return success();

}

LogicalResult Replicator::findTowerOps(
    ArrayRef<BlockArgument> batchArgs, DenseSet<Value> &tower,
    SmallVectorImpl<Operation *> &towerOps,
    SmallVectorImpl<GradientsOp> &gradientOps) {
  Block &body = func_.getBody().front();
  // The ops that depend on the batch, in program order; a gradient is
  // averaged, so what uses it does not depend on the batch through it.
  tower.insert(batchArgs.begin(), batchArgs.end());
  for (Operation &op : body.without_terminator()) {
    if (!llvm::any_of(op.getOperands(),
                      [&](Value v) { return tower.contains(v); }))
      continue;
    if (hasEffect<MemoryEffects::Write>(&op)) {
      std::string name = names_.lookup(&op);
      return op.emitError()
             << "op '" << name << "' (" << op.getName().getStringRef()
             << ") writes state and depends on the batch: "
                "it cannot be replicated";
    }
    towerOps.push_back(&op);
    if (auto gradients = dyn_cast<GradientsOp>(&op)) {
      // A gradient with respect to a value of the batch (an input, an
      // activation) is per example: neither averaged nor all-reduced as
      // the variables' gradients are (MirroredStrategy leaves it to each
      // replica too).
      for (auto [k, x] : llvm::enumerate(gradients.getXs()))
        if (tower.contains(x)) {
          std::string what;
          if (auto arg = dyn_cast<BlockArgument>(x))
            what = "argument #" + std::to_string(arg.getArgNumber());
          else
            what = "'" + names_.lookup(x.getDefiningOp()) + "'";
          return op.emitError()
                 << "gplace.gradients takes the gradient with respect to "
                 << what << " (wrt #" << k
                 << "), which depends on the batch: " << passFlag()
                 << " combines the gradients of values the batch does not "
                    "depend on (variables' reads, constants); name the "
                    "batch arguments with batch-args= if "
                 << what << " is not one";
        }
      gradientOps.push_back(gradients);
      continue;
    }
    for (Value result : op.getResults())
      tower.insert(result);
  }
  return success();
}

Value Replicator::sliceOf(BlockArgument arg, unsigned i, int64_t perReplica) {
  auto type = cast<RankedTensorType>(arg.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = perReplica;
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  SmallVector<int64_t> begin(type.getRank(), 0), size(shape);
  begin[0] = i * perReplica;
  Value slice = create<SliceOp>(
      sliceType, {arg},
      (Twine(scopeOf(i)) + "/split/arg" + Twine(arg.getArgNumber())).str(),
      {builder_.getNamedAttr("begin", builder_.getDenseI64ArrayAttr(begin)),
       builder_.getNamedAttr("size", builder_.getDenseI64ArrayAttr(size))});
  slices_.push_back(slice.getDefiningOp());
  return slice;
}

Operation *Replicator::cloneFor(Operation *op, unsigned i, IRMapping &map,
                                bool dependsOnBatch, int64_t batch,
                                int64_t perReplica,
                                ArrayRef<BlockArgument> batchArgs) {
  Operation *clone = builder_.clone(*op, map);
  if (dependsOnBatch && i > 0)
    if (auto seeded = dyn_cast<SeededOpInterface>(clone))
      offsetSeed(seeded, i, names_.lookup(op));
  // A slice of a batch argument along the batch (the micro-batches of
  // --gplace-accumulate-gradients, made before the replicas): each replica
  // takes the same share of its own slice of the batch.
  if (auto slice = dyn_cast<SliceOp>(clone);
      slice && dependsOnBatch && !config_.accumulate &&
      llvm::is_contained(batchArgs, op->getOperand(0)) &&
      slice.getSize().front() != batch) {
    SmallVector<int64_t> begin(slice.getBegin()), size(slice.getSize());
    if (begin[0] % replicas_ || size[0] <= 0 || size[0] % replicas_) {
      op->emitError() << "op '" << names_.lookup(op) << "' takes "
                      << size[0] << " of the batch of " << batch
                      << " (from " << begin[0] << "), which does not divide "
                      << "into " << replicas_
                      << " replicas: the batch must divide into the "
                         "replicas times the micro-batches";
      return nullptr;
    }
    begin[0] /= replicas_;
    size[0] /= replicas_;
    slice.setBegin(begin);
    slice.setSize(size);
    auto type = cast<RankedTensorType>(slice.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = size[0];
    slice.getResult().setType(
        RankedTensorType::get(shape, type.getElementType()));
  } else if (slice && dependsOnBatch) {
    // A slice of the whole leading dimension of an operand whose leading
    // dimension shrank (`x[0:8]` of a batch of 8, begin 0 and size 8):
    // the whole per-replica one, as the same code run on each replica's
    // batch (MirroredStrategy's) would take.
    auto before = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto after = dyn_cast<RankedTensorType>(clone->getOperand(0).getType());
    if (before && after && before.getRank() > 0 &&
        before.getDimSize(0) != after.getDimSize(0) &&
        slice.getBegin().front() == 0 &&
        slice.getSize().front() == before.getDimSize(0)) {
      SmallVector<int64_t> size(slice.getSize());
      size[0] = after.getDimSize(0);
      slice.setSize(size);
    }
  }
  // Shapes along the batch shrink: the op's own rule (InferTypeOpInterface)
  // on the per-replica operands where it has one; else per-replica types
  // for every result that had the batch as its leading dimension, or a
  // micro-batch's (an operand's old leading dimension, which shrank).
  // What the op's rule and verifier say of the per-replica shapes is kept
  // for the one error below (a note), not printed as errors of its own.
  std::string reason;
  std::optional<ScopedDiagnosticHandler> capture;
  capture.emplace(clone->getContext(), [&](Diagnostic &d) {
    if (reason.empty() && d.getSeverity() == DiagnosticSeverity::Error)
      reason = d.str();
    return success();
  });
  SmallVector<Type, 2> inferred;
  auto infer = dyn_cast<InferTypeOpInterface>(clone);
  if (dependsOnBatch && infer && !isa<GradientsOp>(clone) &&
      succeeded(infer.inferReturnTypes(
          clone->getContext(), clone->getLoc(), clone->getOperands(),
          clone->getAttrDictionary(), clone->getPropertiesStorage(),
          clone->getRegions(), inferred)) &&
      inferred.size() == clone->getNumResults()) {
    for (auto [result, type] : llvm::zip(clone->getResults(), inferred))
      result.setType(type);
  } else {
    // Leading dimensions that shrank among the operands: old -> new.
    llvm::SmallDenseMap<int64_t, int64_t> shrank;
    shrank[batch] = perReplica;
    for (auto [before, after] :
         llvm::zip(op->getOperandTypes(), clone->getOperandTypes())) {
      auto from = dyn_cast<RankedTensorType>(before);
      auto to = dyn_cast<RankedTensorType>(after);
      if (from && to && from.getRank() > 0 && to.getRank() > 0 &&
          from.getDimSize(0) != to.getDimSize(0))
        shrank.try_emplace(from.getDimSize(0), to.getDimSize(0));
    }
    for (OpResult result : clone->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!dependsOnBatch || !type || type.getRank() == 0 ||
          !shrank.count(type.getDimSize(0)) || isa<GradientsOp>(clone))
        continue;
      SmallVector<int64_t> shape(type.getShape());
      shape[0] = shrank.lookup(type.getDimSize(0));
      result.setType(RankedTensorType::get(shape, type.getElementType()));
    }
  }
  // An op that does not take the per-replica shapes: a batch argument
  // that is not one (or an op that mixes examples).
  if (dependsOnBatch && i == 0 && failed(mlir::verify(clone, false))) {
    capture.reset(); // Reported again from here on.
    std::string numbers;
    for (BlockArgument arg : batchArgs)
      numbers += (numbers.empty() ? "#" : ", #") +
                 std::to_string(arg.getArgNumber());
    InFlightDiagnostic error = op->emitError();
    error << "op '" << names_.lookup(op)
          << "' does not accept its per-replica shapes with the "
             "batch of arguments "
          << numbers << " of @" << func_.getSymName() << " split into "
          << replicas_ << unitName()
          << "; name the batch arguments with batch-args=";
    if (!reason.empty())
      error.attachNote() << reason;
    return nullptr;
  }
  capture.reset();
  std::string name = names_.lookup(op);
  // A variable: a persistent op whose value is a resource.
  if (config_.mirrored && isa<PersistentOpInterface>(clone) &&
      isa<ResourceType>(clone->getResult(0).getType()))
    pin(clone, device(i), name); // The variable's own name.
  else if (config_.mirrored && i == 0) // Replica 0 takes the op's name.
    pin(clone, device(i), name);
  else
    pin(clone, device(i), uniqueName(scopeOf(i) + "/" + name));
  return clone;
}

LogicalResult Replicator::combineResults(const DenseSet<Value> &tower,
                                          MutableArrayRef<IRMapping> maps,
                                          int64_t batch) {
  Block &body = func_.getBody().front();
  Operation *terminator = body.getTerminator();
  builder_.setInsertionPoint(terminator);
  for (OpOperand &operand : terminator->getOpOperands()) {
    Value value = operand.get();
    // Mirrored, a value every replica has, equal: the first one's, or the
    // replicas' sum when asked (strategy.reduce(SUM) of a mirrored value).
    // Host: computed once, it stays.
    if (!tower.contains(value) && !(config_.mirrored && config_.sum)) {
      if (config_.mirrored)
        operand.set(maps[0].lookupOrDefault(value));
      continue;
    }
    unsigned index = operand.getOperandNumber();
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return terminator->emitError()
             << "result #" << index << ", of type " << value.getType()
             << ", is not a tensor to " << (config_.sum ? "add" : "combine")
             << " across replicas";
    SmallVector<Value> perTower;
    for (IRMapping &map : maps)
      perTower.push_back(map.lookupOrDefault(value));
    if (tower.contains(value) && type.getRank() > 0 &&
        type.getDimSize(0) == batch) {
      auto concat = builder_.create<ConcatOp>(
          func_.getLoc(), type, perTower, builder_.getI64IntegerAttr(0),
          StringAttr(), StringAttr(), StringAttr(), ValueRange());
      pin(concat, host(), uniqueName(("concat_results/" + Twine(index)).str()));
      operand.set(concat.getResult());
    } else if (config_.sum) {
      operand.set(sum(perTower));
    } else if (isa<FloatType>(type.getElementType())) {
      operand.set(average(perTower, ("average_results/" + Twine(index)).str()));
    } else {
      return terminator->emitError()
             << "result #" << index << ", of type " << type
             << ", depends on the batch but is neither per example nor a "
                "float to average across replicas (reduce=sum adds them)";
    }
  }
  return success();
}

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
  // The batch, and the ops that depend on it, in program order; a
  // gradient is averaged, so what uses it does not depend on the batch
  // through it.
  Analysis a;
  if (failed(analyze(a)))
    return failure();
  ArrayRef<BlockArgument> batchArgs = a.batchArgs;
  int64_t batch = a.batch, perReplica = a.perReplica;
  const DenseSet<Value> &tower = a.tower;
  ArrayRef<Operation *> towerOps = a.towerOps;

  // The slices of the batch, on the host.
  SmallVector<IRMapping> maps(replicas_);
  builder_.setInsertionPointToStart(&body);
  for (BlockArgument arg : batchArgs)
    for (unsigned i = 0; i < replicas_; ++i)
      maps[i].map(arg, sliceOf(arg, i, perReplica));

  // The towers: each op cloned in place, once per replica, so that every
  // clone follows what it uses. Host variables: the ops that depend on the
  // batch; mirrored: every op (each replica its own copy of each variable,
  // under the variable's own name, as MirroredVariable's copies share
  // theirs, so that checkpoints and --init fill every copy).
  SmallVector<Operation *> cloned;
  if (config_.mirrored) {
    for (Operation &op : body.without_terminator())
      if (!llvm::is_contained(slices_, &op))
        cloned.push_back(&op);
  } else {
    cloned.assign(towerOps.begin(), towerOps.end());
  }
  for (Operation *op : cloned) {
    builder_.setInsertionPoint(op);
    bool dependsOnBatch = llvm::is_contained(towerOps, op);
    SmallVector<Operation *> clones;
    for (unsigned i = 0; i < replicas_; ++i) {
      Operation *clone = cloneFor(op, i, maps[i], dependsOnBatch, batch,
                                  perReplica, batchArgs);
      if (!clone)
        return failure();
      clones.push_back(clone);
    }
    auto gradients = dyn_cast<GradientsOp>(op);
    if (!gradients)
      continue;
    // Each gradient: averaged across the replicas, on the host (host
    // variables, after the last tower) or by an all-reduce (mirrored, each
    // replica then uses its own copy of the average).
    for (auto [k, gradient] : llvm::enumerate(gradients.getResults())) {
      if (config_.mirrored)
        break;
      SmallVector<Value> perTower;
      for (Operation *clone : clones)
        perTower.push_back(clone->getResult(k));
      gradient.replaceAllUsesWith(
          average(perTower, ("average_gradients/" + Twine(k)).str()));
    }
    if (config_.mirrored)
      allReduceGradients(gradients, clones, maps);
  }

  // Results that depend on the batch: concatenated or averaged.
  if (failed(combineResults(tower, maps, batch)))
    return failure();

  // The originals go; what stays once stays on the host.
  for (Operation *op : llvm::reverse(cloned))
    op->erase();
  for (Operation &op : body.without_terminator())
    if (auto placed = dyn_cast<PlacedOpInterface>(&op);
        placed && placed.getRequestedDevice().empty())
      op.setAttr("device", builder_.getStringAttr(kHost));
  return success();
}

/// Gradient accumulation: the micro-batches run one after another where
/// the function's ops are placed anyway, each slice of the batch taken
/// when the micro-batch before it has its gradients (so that one
/// micro-batch's activations are live at a time), the gradients summed as
/// they come (a running sum, not K at once) and divided by K: the step on
/// the whole batch, within floating-point reassociation.
LogicalResult Replicator::accumulate() {
  for (auto &[op, name] : names_)
    used_.insert(name);
  Analysis a;
  if (failed(analyze(a)))
    return failure();
  ArrayRef<BlockArgument> batchArgs = a.batchArgs;
  int64_t batch = a.batch, perMicro = a.perReplica;
  const DenseSet<Value> &tower = a.tower;
  ArrayRef<Operation *> towerOps = a.towerOps;
  ArrayRef<GradientsOp> gradientOps = a.gradientOps;
  if (gradientOps.size() != 1)
    return func_.emitError()
           << passFlag() << ": @" << func_.getSymName() << " has "
           << gradientOps.size()
           << " gplace.gradients ops that depend on the batch; "
           << (config_.pipeline ? "pipeline parallelism" : "gradient "
                                                           "accumulation")
           << " needs exactly one";
  GradientsOp gradients = gradientOps.front();
  // Every micro-batch is cloned, up to its gradients, where the gradients
  // are taken; what depends on the batch after them (an identity of the
  // loss after the updates) is cloned in place, per micro-batch.
  SmallVector<Operation *> forward, later;
  for (Operation *op : towerOps)
    (gradients->isBeforeInBlock(op) ? later : forward).push_back(op);

  SmallVector<IRMapping> maps(replicas_);
  // The groups of micro-batches whose gradients are summed together: one,
  // or with mirrored pipeline replicas one per replica (its M).
  unsigned groups = config_.mirroredPipeline ? config_.pipelineReplicas : 1;
  unsigned perGroup = replicas_ / groups;
  unsigned numGradients = gradients.getNumResults();
  SmallVector<SmallVector<Value>> sums(groups,
                                       SmallVector<Value>(numGradients));
  SmallVector<SmallVector<SmallVector<Operation *>>> sumOps(
      groups, SmallVector<SmallVector<Operation *>>(numGradients));
  Value previous; // A token: the previous micro-batch's gradients.
  builder_.setInsertionPoint(gradients);
  MLIRContext *context = func_.getContext();
  // Mirrored pipeline replicas: replica r >= 1's copies of what does not
  // depend on the batch (replicaMaps[r]); those before the gradients (the
  // variables, their reads) now, those after them (the optimizer) once the
  // all-reduces give their gradients.
  SmallVector<IRMapping> replicaMaps(groups);
  SmallVector<Operation *> sharedAfter;
  if (config_.mirroredPipeline) {
    DenseSet<Operation *> inTower(towerOps.begin(), towerOps.end());
    SmallVector<Operation *> sharedBefore;
    for (Operation &op : func_.getBody().front().without_terminator())
      if (!inTower.contains(&op))
        (gradients->isBeforeInBlock(&op) ? sharedAfter : sharedBefore)
            .push_back(&op);
    for (unsigned r = 1; r < groups; ++r)
      for (Operation *op : sharedBefore)
        if (!cloneShared(op, r, replicaMaps[r]))
          return failure();
  }
  // Micro-batch i's map starts from its replica's copies.
  auto seed = [&](unsigned i) {
    for (const auto &[from, to] : replicaMaps[i / perGroup].getValueMap())
      maps[i].map(from, to);
  };
  // Micro-batch i starts once micro-batch i - 1's gradients are done: its
  // slices of the batch wait for them. Only the float slices do, where
  // there is one: an integer input (labels, ids) has no GPU kernel (SPEC
  // §3), so its slices run on the host, and a host op that waited for a
  // GPU's gradients in the middle of the step would keep that GPU's step
  // out of a CUDA graph (docs/runtime.md); the float slices gate each
  // micro-batch's forward pass alone.
  bool anyFloat = llvm::any_of(
      batchArgs, [](BlockArgument arg) { return isFloatTensor(arg); });
  for (unsigned i = 0; i < replicas_; ++i) {
    seed(i);
    // Pipelining: micro-batch i's ops are those created from here to the
    // gradients op (slices, forward clones, seeds), before the sums.
    Operation *mark = gradients->getPrevNode();
    for (BlockArgument arg : batchArgs) {
      Value slice = sliceOf(arg, i, perMicro);
      if (previous && (!anyFloat || isFloatTensor(arg)))
        cast<PlacedOpInterface>(slice.getDefiningOp())
            .addControlDependency(previous);
      maps[i].map(arg, slice);
    }
    Operation *last = nullptr;
    for (Operation *op : forward) {
      last = cloneFor(op, i, maps[i], /*dependsOnBatch=*/true, batch, perMicro,
                      batchArgs);
      if (!last)
        return failure();
    }
    if (config_.pipeline) {
      auto tag = IntegerAttr::get(IntegerType::get(context, 64), i);
      unsigned replica = i / (replicas_ / config_.pipelineReplicas);
      const llvm::StringMap<std::string> *remap =
          replica < config_.replicaDevices.size()
              ? &config_.replicaDevices[replica]
              : nullptr;
      for (Operation *op = mark ? mark->getNextNode()
                                : &gradients->getBlock()->front();
           op != gradients.getOperation(); op = op->getNextNode()) {
        if (!isa<PlacedOpInterface>(op))
          continue;
        op->setAttr(gplace::kMicroBatchAttrName, tag);
        // Replica r's pipeline: each stage's request moved to the
        // replica's device for it.
        if (auto request = op->getAttrOfType<StringAttr>("device"); remap &&
            request) {
          auto it = remap->find(request.getValue());
          if (it != remap->end())
            op->setAttr("device", builder_.getStringAttr(it->second));
        }
      }
    }
    // The running sums of the gradients.
    // f16 and bf16 gradients are summed in f32 (mixed precision's f32
    // accumulators, as PyTorch's GradScaler-era recipes and TensorFlow's
    // LossScaleOptimizer keep f32 master gradients): widened as they come.
    SmallVector<Value> results(last->getResults());
    unsigned group = i / perGroup;
    bool first = i % perGroup == 0;
    for (auto [k, gradient] : llvm::enumerate(results)) {
      std::string scope = ("accumulate_gradients/" + Twine(k)).str();
      Value term = gradient;
      Value &sum = sums[group][k];
      if (Type wide = accumulatorType(gradient.getType());
          wide != gradient.getType()) {
        term = create<CastOp>(wide, {gradient}, scope + "/Cast", {},
                              StringRef());
        sumOps[group][k].push_back(term.getDefiningOp());
      }
      sum = first ? term
                  : create<AddOp>(term.getType(), {sum, term}, scope + "/add",
                                  {}, StringRef());
      if (!first)
        sumOps[group][k].push_back(sum.getDefiningOp());
    }
    if (i + 1 < replicas_ && !config_.pipeline) {
      auto group = builder_.create<GroupOp>(
          func_.getLoc(), results, StringAttr(), StringAttr(), StringAttr(),
          ValueRange());
      pin(group, "", uniqueName(scopeOf(i) + "/done"));
      previous = group.getResult();
    }
  }
  // Replica g's copy of the value gradient k is taken of (the read of the
  // variable), whose name the sums are colocated with.
  auto copyOf = [&](unsigned k, unsigned g) -> Operation * {
    Value x = gradients.getXs()[k];
    return g == 0 ? x.getDefiningOp()
                  : replicaMaps[g].lookupOrDefault(x).getDefiningOp();
  };
  // Each gradient's sums, one per group; with mirrored pipeline replicas,
  // all-reduced between the replicas' copies of the stage (each replica
  // then divides by all R x M micro-batches, as one pipeline does by its
  // M).
  SmallVector<SmallVector<Value>> reduced(numGradients);
  for (unsigned k = 0; k < numGradients; ++k)
    for (unsigned g = 0; g < groups; ++g)
      reduced[k].push_back(sums[g][k]);
  if (config_.mirroredPipeline) {
    SmallVector<ArrayAttr> stages(numGradients);
    for (unsigned k = 0; k < numGradients; ++k) {
      SmallVector<Attribute> devices;
      for (unsigned g = 0; g < groups; ++g) {
        // The stage's device: the read's request, else the variable's.
        StringRef device;
        if (Operation *read = copyOf(k, g)) {
          SmallVector<Operation *> candidates = {read};
          for (Value operand : read->getOperands())
            if (isa<ResourceType>(operand.getType()) && operand.getDefiningOp())
              candidates.push_back(operand.getDefiningOp());
          for (Operation *op : candidates)
            if (auto request = op->getAttrOfType<StringAttr>("device");
                request && !request.getValue().empty()) {
              device = request.getValue();
              break;
            }
        }
        if (device.empty() ||
            (g > 0 && device == cast<StringAttr>(devices.front()).getValue()))
          return gradients.emitError()
                 << passFlag() << " variables=mirrored: the variable of "
                 << "gradient #" << k << " ('"
                 << names_.lookup(gradients.getXs()[k].getDefiningOp())
                 << "') requests no stage's device, so replica " << g
                 << "'s copy has none to all-reduce on; request each "
                    "variable's stage";
        devices.push_back(builder_.getStringAttr(device));
      }
      stages[k] = builder_.getArrayAttr(devices);
    }
    allReduceStages(reduced, stages);
  }
  for (auto [k, gradient] : llvm::enumerate(gradients.getResults())) {
    std::string scope = ("accumulate_gradients/" + Twine(k)).str();
    Value x = gradients.getXs()[k];
    SmallVector<Value> totals = reduced[k];
    Value firstMean;
    for (unsigned g = 0; g < groups; ++g) {
      auto type = cast<RankedTensorType>(totals[g].getType());
      auto scalar = RankedTensorType::get({}, type.getElementType());
      std::string groupScope =
          g == 0 ? scope : ("replica_" + Twine(g) + "/" + scope).str();
      Value inverse = create<ConstantOp>(
          scalar, {}, groupScope + "/Const",
          {builder_.getNamedAttr("value",
                                 getSplatAttr(scalar, 1.0 / replicas_))},
          StringRef());
      Value mean = create<MulOp>(type, {totals[g], inverse},
                                 groupScope + "/mul", {}, StringRef());
      SmallVector<Operation *> &ops = sumOps[g][k];
      if (mean.getType() != gradient.getType()) {
        ops.push_back(mean.getDefiningOp());
        mean = create<CastOp>(gradient.getType(), {mean}, groupScope + "/Cast",
                              {}, StringRef());
      }
      if (g == 0) {
        gradient.replaceAllUsesWith(mean);
        firstMean = mean;
      } else {
        replicaMaps[g].map(firstMean, mean);
      }
      // Pipelining: each stage sums its own gradients, where the variable
      // they update is (the op that reads it; replica g's copy of it), not
      // where placement's default would put them.
      if (!config_.pipeline)
        continue;
      std::string variable;
      if (g == 0)
        variable = names_.lookup(x.getDefiningOp());
      else if (Operation *read = copyOf(k, g))
        if (auto name = read->getAttrOfType<StringAttr>("name"))
          variable = name.str();
      if (variable.empty())
        continue;
      auto colocate = StringAttr::get(context, variable);
      ops.append({inverse.getDefiningOp(), mean.getDefiningOp()});
      for (Operation *op : ops)
        op->setAttr(GraphDialect::getColocateWithAttrName(), colocate);
    }
  }
  // Mirrored pipeline replicas: each replica's optimizer on its own copies.
  for (Operation *op : sharedAfter) {
    builder_.setInsertionPoint(op);
    for (unsigned r = 1; r < groups; ++r)
      if (!cloneShared(op, r, replicaMaps[r]))
        return failure();
  }
  if (config_.pipeline) {
    Builder b(context);
    func_->setAttr(
        gplace::kPipelineAttrName,
        b.getDictionaryAttr(
            {b.getNamedAttr("microbatches",
                            b.getI64IntegerAttr(replicas_ /
                                                config_.pipelineReplicas)),
             b.getNamedAttr("replicas",
                            b.getI64IntegerAttr(config_.pipelineReplicas)),
             b.getNamedAttr("schedule", b.getStringAttr(config_.schedule)),
             b.getNamedAttr("split", b.getStringAttr(config_.split)),
             b.getNamedAttr("stages", b.getI64IntegerAttr(config_.stages))}));
  }
  for (unsigned i = 0; i < replicas_ && !sharedAfter.empty(); ++i)
    seed(i);
  for (Operation *op : later) {
    builder_.setInsertionPoint(op);
    for (unsigned i = 0; i < replicas_; ++i)
      if (!cloneFor(op, i, maps[i], /*dependsOnBatch=*/true, batch, perMicro,
                    batchArgs))
        return failure();
  }
  if (failed(combineResults(tower, maps, batch)))
    return failure();
  for (Operation *op : llvm::reverse(towerOps))
    op->erase();
  return success();
}

Operation *Replicator::cloneShared(Operation *op, unsigned r,
                                   IRMapping &map) {
  Operation *clone = builder_.clone(*op, map);
  std::string device;
  if (auto request = op->getAttrOfType<StringAttr>("device");
      request && !request.getValue().empty()) {
    auto it = config_.replicaDevices[r].find(request.getValue());
    if (it != config_.replicaDevices[r].end())
      device = it->second;
  }
  std::string name = names_.lookup(op);
  bool variable = isa<PersistentOpInterface>(clone) &&
                  clone->getNumResults() == 1 &&
                  isa<ResourceType>(clone->getResult(0).getType());
  // A variable that requests a device other than a stage's GPU (the
  // host's) would have two copies of one name there. One that requests
  // none (an optimizer's slot) goes where its users are, as the original
  // does: placement colocates it with the replica's update.
  if (auto request = op->getAttrOfType<StringAttr>("device");
      variable && device.empty() && request && !request.getValue().empty()) {
    op->emitError() << passFlag() << " variables=mirrored: variable '" << name
                    << "' requests '" << request.getValue()
                    << "', no stage's GPU, so pipeline replica " << r
                    << " has no stage to keep its copy on; request the "
                       "variable's stage (its reader's GPU), or none";
    return nullptr;
  }
  pin(clone, device,
      variable ? name : uniqueName(("replica_" + Twine(r) + "/" + name).str()));
  return clone;
}

void Replicator::allReduceGradients(GradientsOp gradients,
                                    ArrayRef<Operation *> clones,
                                    MutableArrayRef<IRMapping> maps) {
  auto typeOf = [&](unsigned k) {
    return cast<RankedTensorType>(gradients.getResult(k).getType());
  };
  auto bytesOf = [&](unsigned k) {
    RankedTensorType type = typeOf(k);
    return type.getNumElements() *
           static_cast<int64_t>(type.getElementTypeBitWidth() / 8);
  };
  // The buckets: runs of small gradients of one element type. With one
  // replica every all-reduce is the identity (--gplace-lower-all-reduce
  // drops it): each gradient alone, so that no copies gather them.
  SmallVector<SmallVector<unsigned>> buckets;
  SmallVector<unsigned> open;
  int64_t openBytes = 0;
  for (unsigned k = gradients.getNumResults(); k-- > 0;) {
    if (replicas_ == 1 || bytesOf(k) >= config_.bucketBytes) {
      buckets.push_back({k});
      continue;
    }
    if (!open.empty() &&
        (openBytes + bytesOf(k) > config_.bucketBytes ||
         typeOf(k).getElementType() != typeOf(open.front()).getElementType())) {
      buckets.push_back(std::move(open));
      open.clear();
      openBytes = 0;
    }
    open.push_back(k);
    openBytes += bytesOf(k);
  }
  if (!open.empty())
    buckets.push_back(std::move(open));

  SmallVector<std::string> devices;
  for (unsigned i = 0; i < replicas_; ++i)
    devices.push_back(device(i));
  for (auto [b, bucket] : llvm::enumerate(buckets)) {
    std::string scope = bucket.size() == 1
                            ? ("allreduce/" + Twine(bucket.front())).str()
                            : ("allreduce/bucket_" + Twine(b)).str();
    SmallVector<SmallVector<Value>> values;
    for (unsigned k : bucket) {
      values.emplace_back();
      for (unsigned i = 0; i < replicas_; ++i)
        values.back().push_back(clones[i]->getResult(k));
    }
    SmallVector<SmallVector<Value>> averages =
        allReduceBucket(values, devices, scope, "mean", bucket);
    for (auto [j, k] : llvm::enumerate(bucket))
      for (unsigned i = 0; i < replicas_; ++i)
        maps[i].map(gradients.getResult(k), averages[j][i]);
  }
}

SmallVector<SmallVector<Value>>
Replicator::allReduceBucket(ArrayRef<SmallVector<Value>> values,
                            ArrayRef<std::string> devices, StringRef scope,
                            StringRef reduction, ArrayRef<unsigned> labels) {
  unsigned members = devices.size();
  auto typeOf = [&](unsigned j) {
    return cast<RankedTensorType>(values[j].front().getType());
  };
  auto memberName = [&](unsigned i, const Twine &name) {
    return uniqueName(i == 0 ? name.str()
                             : ("replica_" + Twine(i) + "/" + name).str());
  };
  bool single = values.size() == 1;
  Type element = typeOf(0).getElementType();
  int64_t total = 0;
  for (unsigned j = 0; j < values.size(); ++j)
    total += typeOf(j).getNumElements();
  auto flatType = RankedTensorType::get({total}, element);
  SmallVector<Value> perMember;
  SmallVector<Attribute> deviceAttrs;
  for (unsigned i = 0; i < members; ++i) {
    deviceAttrs.push_back(builder_.getStringAttr(devices[i]));
    if (single) {
      perMember.push_back(values[0][i]);
      continue;
    }
    SmallVector<Value> flats;
    for (unsigned j = 0; j < values.size(); ++j) {
      if (typeOf(j).getRank() == 1) {
        flats.push_back(values[j][i]);
        continue;
      }
      auto type = RankedTensorType::get({typeOf(j).getNumElements()}, element);
      Operation *flat = builder_.create<ReshapeOp>(
          func_.getLoc(), TypeRange{type}, ValueRange{values[j][i]});
      pin(flat, devices[i],
          memberName(i, scope + "/flatten_" + Twine(labels[j])));
      flats.push_back(flat->getResult(0));
    }
    auto concat = builder_.create<ConcatOp>(
        func_.getLoc(), flatType, flats, builder_.getI64IntegerAttr(0),
        StringAttr(), StringAttr(), StringAttr(), ValueRange());
    pin(concat, devices[i], memberName(i, scope + "/concat"));
    perMember.push_back(concat.getResult());
  }
  auto allReduce = builder_.create<AllReduceOp>(
      func_.getLoc(), perMember, builder_.getStringAttr(reduction),
      builder_.getArrayAttr(deviceAttrs));
  allReduce->setAttr("name", builder_.getStringAttr(uniqueName(scope)));
  SmallVector<SmallVector<Value>> results(values.size());
  for (unsigned i = 0; i < members; ++i) {
    if (single) {
      results[0].push_back(allReduce.getResult(i));
      continue;
    }
    int64_t offset = 0;
    for (unsigned j = 0; j < values.size(); ++j) {
      int64_t n = typeOf(j).getNumElements();
      Operation *slice = builder_.create<SliceOp>(
          func_.getLoc(), TypeRange{RankedTensorType::get({n}, element)},
          ValueRange{allReduce.getResult(i)},
          ArrayRef<NamedAttribute>{
              builder_.getNamedAttr("begin",
                                    builder_.getDenseI64ArrayAttr({offset})),
              builder_.getNamedAttr("size",
                                    builder_.getDenseI64ArrayAttr({n}))});
      pin(slice, devices[i],
          memberName(i, scope + "/slice_" + Twine(labels[j])));
      offset += n;
      if (typeOf(j).getRank() == 1) {
        results[j].push_back(slice->getResult(0));
        continue;
      }
      Operation *shaped =
          builder_.create<ReshapeOp>(func_.getLoc(), TypeRange{typeOf(j)},
                                     ValueRange{slice->getResult(0)});
      pin(shaped, devices[i],
          memberName(i, scope + "/reshape_" + Twine(labels[j])));
      results[j].push_back(shaped->getResult(0));
    }
  }
  return results;
}

void Replicator::allReduceStages(MutableArrayRef<SmallVector<Value>> reduced,
                                 ArrayRef<ArrayAttr> stages) {
  auto typeOf = [&](unsigned k) {
    return cast<RankedTensorType>(reduced[k].front().getType());
  };
  auto bytesOf = [&](unsigned k) {
    RankedTensorType type = typeOf(k);
    return type.getNumElements() *
           static_cast<int64_t>(type.getElementTypeBitWidth() / 8);
  };
  // The buckets, last gradient first: a bucket per stage and element type
  // open at a time, closed when the next sum would overflow it.
  SmallVector<SmallVector<unsigned>> buckets;
  SmallVector<std::pair<std::pair<ArrayAttr, Type>, int64_t>> open; // bucket
  SmallVector<int64_t> openBytes;
  for (unsigned k = reduced.size(); k-- > 0;) {
    if (bytesOf(k) >= config_.bucketBytes) {
      buckets.push_back({k});
      continue;
    }
    std::pair<ArrayAttr, Type> key = {stages[k], typeOf(k).getElementType()};
    auto it = llvm::find_if(open, [&](const auto &entry) {
      return entry.first == key;
    });
    if (it != open.end() &&
        openBytes[it - open.begin()] + bytesOf(k) > config_.bucketBytes) {
      openBytes.erase(openBytes.begin() + (it - open.begin()));
      open.erase(it);
      it = open.end();
    }
    if (it == open.end()) {
      open.push_back({key, static_cast<int64_t>(buckets.size())});
      openBytes.push_back(0);
      buckets.emplace_back();
      it = std::prev(open.end());
    }
    buckets[it->second].push_back(k);
    openBytes[it - open.begin()] += bytesOf(k);
  }
  // Made first gradient first, as without buckets.
  std::reverse(buckets.begin(), buckets.end());
  for (auto [b, bucket] : llvm::enumerate(buckets)) {
    std::string scope = bucket.size() == 1
                            ? ("allreduce/" + Twine(bucket.front())).str()
                            : ("allreduce/bucket_" + Twine(b)).str();
    SmallVector<std::string> devices;
    for (Attribute device : stages[bucket.front()])
      devices.push_back(cast<StringAttr>(device).str());
    SmallVector<SmallVector<Value>> values;
    for (unsigned k : bucket)
      values.push_back(reduced[k]);
    SmallVector<SmallVector<Value>> sums =
        allReduceBucket(values, devices, scope, "sum", bucket);
    for (auto [j, k] : llvm::enumerate(bucket))
      reduced[k] = sums[j];
  }
}

/// The training functions a pass option `functions` selects: those named
/// (each must exist: "<flag> functions: no function @f"), else every
/// function with a gplace.gradients. Fails (reported) on an unknown name.
/// Warns when nothing is selected, so that a training flag given for an
/// inference graph does not pass unseen (`what`: what would have happened,
/// "nothing is replicated").
LogicalResult selectFunctions(ModuleOp module, ArrayRef<std::string> functions,
                              StringRef flag, StringRef what,
                              SmallVectorImpl<func::FuncOp> &selected) {
  for (const std::string &name : functions)
    if (!module.lookupSymbol<func::FuncOp>(name))
      return module.emitError()
             << flag << " functions: no function @" << name;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    bool chosen = false;
    if (functions.empty())
      func.walk([&](GradientsOp) { chosen = true; });
    else
      chosen = llvm::is_contained(functions, func.getSymName().str());
    if (chosen)
      selected.push_back(func);
  }
  if (selected.empty())
    emitWarning(module.getLoc())
        << flag << ": no function computes gplace.gradients (trains), so "
        << what << "; its option functions=... names the functions to take";
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
    if (reduce != "mean" && reduce != "sum") {
      getOperation().emitError()
          << "--gplace-replicate reduce must be mean or sum, not '" << reduce
          << "'";
      return signalPassFailure();
    }
    if (bucketBytes < 0) {
      getOperation().emitError()
          << "--gplace-replicate bucket-bytes must not be negative, not "
          << bucketBytes.getValue();
      return signalPassFailure();
    }
    ReplicaConfig config;
    config.mirrored = variables == "mirrored";
    config.bucketBytes = bucketBytes;
    config.batchArgs.assign(batchArgs.begin(), batchArgs.end());
    config.sum = reduce == "sum";
    ModuleOp module = getOperation();
    std::optional<gplace::DeviceSet> known = getModuleDevices(module);
    if (!devices.empty()) {
      for (const std::string &device : devices) {
        // An empty entry ("/gpu:0,,/gpu:1") would match every device, the
        // CPU's included.
        if (llvm::StringRef(device).trim().empty()) {
          getOperation().emitError()
              << "--gplace-replicate devices: an empty entry in the list";
          return signalPassFailure();
        }
        std::string error;
        std::optional<gplace::DeviceName> spec =
            gplace::DeviceName::parse(device, &error);
        if (!spec) {
          getOperation().emitError() << "--gplace-replicate devices: " << error;
          return signalPassFailure();
        }
        // A request without an id (`/gpu:*`, `/job:worker/gpu:*`): every
        // device of the module it matches, in device order.
        if (!spec->id && known) {
          bool any = false;
          for (const gplace::DeviceName &name : known->devices())
            if (spec->matches(name)) {
              config.devices.push_back(name.str());
              any = true;
            }
          if (any)
            continue;
        } else if (!spec->id) {
          getOperation().emitError()
              << "--gplace-replicate devices: '" << device
              << "' names no one device, and the module does not say which "
                 "devices there are (run --gplace-assign-devices first)";
          return signalPassFailure();
        }
        config.devices.push_back(device);
      }
      if (replicas.hasValue() && replicas != config.devices.size()) {
        getOperation().emitError()
            << "--gplace-replicate: replicas=" << replicas.getValue() << " but "
            << config.devices.size() << " devices";
        return signalPassFailure();
      }
    } else {
      for (unsigned i = 0; i < replicas; ++i)
        config.devices.push_back(
            ("/device:" + deviceType + ":" + Twine(i)).str());
    }
    // One replica per device: two on one device would share its variables'
    // names and its streams.
    // Two spellings of one device count too (`/gpu:*` expanded to full
    // names, then `/gpu:0`): the module's only device a request matches.
    auto resolve = [&](const std::optional<gplace::DeviceName> &spec)
        -> std::optional<gplace::DeviceName> {
      if (!spec || !known)
        return std::nullopt;
      std::optional<gplace::DeviceName> only;
      for (const gplace::DeviceName &device : known->devices())
        if (spec->matches(device)) {
          if (only)
            return std::nullopt;
          only = device;
        }
      return only;
    };
    for (auto [i, request] : llvm::enumerate(config.devices)) {
      std::optional<gplace::DeviceName> spec =
          gplace::DeviceName::parse(request);
      std::optional<gplace::DeviceName> device = resolve(spec);
      for (const std::string &earlier :
           llvm::ArrayRef(config.devices).take_front(i))
        if (std::optional<gplace::DeviceName> earlierSpec =
                gplace::DeviceName::parse(earlier);
            spec && (earlierSpec == spec ||
                     (device && resolve(earlierSpec) == device))) {
          getOperation().emitError()
              << "--gplace-replicate devices: '" << request
              << "' is listed twice (as '" << earlier
              << "'); each replica needs its own device";
          return signalPassFailure();
        }
    }
    // The replicas' devices must exist when the module says which do.
    if (known) {
      for (const std::string &request : config.devices) {
        std::optional<gplace::DeviceName> spec =
            gplace::DeviceName::parse(request);
        if (llvm::any_of(known->devices(),
                         [&](const gplace::DeviceName &device) {
                           return spec->matches(device);
                         }))
          continue;
        std::string available;
        for (const gplace::DeviceName &device : known->devices())
          available += (available.empty() ? "" : ", ") + device.str();
        module.emitError()
            << "--gplace-replicate: Could not satisfy explicit device "
               "specification '"
            << request
            << "' because no devices matching that specification are "
               "registered in this process; available devices: "
            << available;
        return signalPassFailure();
      }
    }
    SmallVector<func::FuncOp> selected;
    if (failed(selectFunctions(module, functions, "--gplace-replicate",
                               "nothing is replicated", selected)))
      return signalPassFailure();
    for (func::FuncOp func : selected) {
      if (failed(Replicator(func, config).run()))
        return signalPassFailure();
      // Towers are placed softly (--gplace-place), as under
      // MirroredStrategy.
      func->setAttr(GraphDialect::getAllowSoftPlacementAttrName(),
                    UnitAttr::get(&getContext()));
    }
  }
};

struct AccumulateGradientsPass
    : gplace::impl::AccumulateGradientsPassBase<AccumulateGradientsPass> {
  using AccumulateGradientsPassBase::AccumulateGradientsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (steps == 0) {
      module.emitError() << "--gplace-accumulate-gradients needs steps >= 1";
      return signalPassFailure();
    }
    if (steps == 1)
      return; // One micro-batch is the batch.
    ReplicaConfig config = ReplicaConfig::microBatches(
        steps, SmallVector<unsigned>(batchArgs.begin(), batchArgs.end()));
    SmallVector<func::FuncOp> selected;
    if (failed(
            selectFunctions(module, functions, "--gplace-accumulate-gradients",
                            "nothing is split into micro-batches", selected)))
      return signalPassFailure();
    for (func::FuncOp func : selected)
      if (failed(Replicator(func, config).accumulate()))
        return signalPassFailure();
  }
};

struct PipelineParallelPass
    : gplace::impl::PipelineParallelPassBase<PipelineParallelPass> {
  using PipelineParallelPassBase::PipelineParallelPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (microbatches == 0) {
      module.emitError()
          << "--gplace-pipeline-parallel needs microbatches >= 1";
      return signalPassFailure();
    }
    if (schedule != "gpipe" && schedule != "1f1b") {
      module.emitError() << "--gplace-pipeline-parallel schedule must be "
                            "gpipe or 1f1b, not '"
                         << schedule << "'";
      return signalPassFailure();
    }
    if (split != "placement" && split != "auto") {
      module.emitError() << "--gplace-pipeline-parallel split must be "
                            "placement or auto, not '"
                         << split << "'";
      return signalPassFailure();
    }
    std::optional<gplace::DeviceSet> devices;
    std::optional<gplace::CostProfile> rates;
    if (split == "auto") {
      if (stages == 0) {
        module.emitError() << "--gplace-pipeline-parallel split=auto needs "
                              "stages=K";
        return signalPassFailure();
      }
      devices = getModuleDevices(module);
      if (!devices) {
        module.emitError() << "--gplace-pipeline-parallel split=auto needs "
                              "the module's devices (run "
                              "--gplace-assign-devices first)";
        return signalPassFailure();
      }
      std::string error;
      rates = gplace::CostProfile::loadOrDefaults(profile, &error);
      if (!rates) {
        module.emitError() << "--gplace-pipeline-parallel profile: " << error;
        return signalPassFailure();
      }
    }
    if (replicas == 0) {
      module.emitError() << "--gplace-pipeline-parallel needs replicas >= 1";
      return signalPassFailure();
    }
    if (replicas > 1 && !devices)
      devices = getModuleDevices(module);
    if (replicas > 1 && !devices) {
      module.emitError() << "--gplace-pipeline-parallel replicas="
                         << replicas.getValue()
                         << " needs the module's devices (run "
                            "--gplace-assign-devices first)";
      return signalPassFailure();
    }
    if (variables != "shared" && variables != "mirrored") {
      module.emitError() << "--gplace-pipeline-parallel variables must be "
                            "shared or mirrored, not '"
                         << variables << "'";
      return signalPassFailure();
    }
    if (bucketBytes < 0) {
      module.emitError()
          << "--gplace-pipeline-parallel bucket-bytes must not be negative, "
             "not "
          << bucketBytes.getValue();
      return signalPassFailure();
    }
    ReplicaConfig config = ReplicaConfig::microBatches(
        microbatches * replicas,
        SmallVector<unsigned>(batchArgs.begin(), batchArgs.end()));
    config.pipelineReplicas = replicas;
    config.bucketBytes = bucketBytes;
    // One pipeline has one copy of each variable either way.
    config.mirroredPipeline = variables == "mirrored" && replicas > 1;
    config.pipeline = true;
    config.schedule = schedule;
    config.stages = stages;
    config.split = split;
    SmallVector<func::FuncOp> selected;
    if (failed(selectFunctions(module, functions, "--gplace-pipeline-parallel",
                               "nothing is split into stages", selected)))
      return signalPassFailure();
    for (func::FuncOp func : selected) {
      if (split == "auto") {
        std::vector<std::string> chosen;
        if (failed(gplace::splitPipelineStages(func, stages, microbatches,
                                       schedule == "1f1b", *devices, *rates,
                                       &chosen)))
          return signalPassFailure();
        if (printStages) {
          llvm::errs() << "Pipeline stages of @" << func.getSymName()
                       << " (split=auto, " << schedule << ", " << microbatches
                       << " micro-batches):\n";
          for (const std::string &line : chosen)
            llvm::errs() << "  " << line << "\n";
        }
      }
      if (replicas > 1 &&
          failed(replicaDevices(func, replicas, *devices,
                                config.replicaDevices)))
        return signalPassFailure();
      if (failed(Replicator(func, config).accumulate()))
        return signalPassFailure();
    }
  }

  /// Per replica r of `replicas` pipelines of `func` (r = 0 included,
  /// empty), its device for each device request of the function that
  /// names a GPU of `known`'s: the stages are the GPUs requested (K of
  /// them, in device order), and replica r >= 1 takes the next K GPUs the
  /// stages do not use, in device order, stage by stage. Fails, with an
  /// error, where there are fewer than `replicas` x K GPUs.
  static LogicalResult
  replicaDevices(func::FuncOp func, unsigned replicas,
                 const gplace::DeviceSet &known,
                 std::vector<llvm::StringMap<std::string>> &out) {
    ArrayRef<gplace::DeviceName> all = known.devices();
    // Each request's GPU (its index in `all`), and the stages' GPUs.
    llvm::StringMap<size_t> gpuOf;
    std::set<size_t> stages;
    func.walk([&](Operation *op) {
      auto request = op->getAttrOfType<StringAttr>("device");
      if (!request || request.getValue().empty() ||
          gpuOf.count(request.getValue()))
        return;
      std::optional<gplace::DeviceName> spec =
          gplace::DeviceName::parse(request.getValue());
      if (!spec)
        return;
      for (size_t d = 0; d < all.size(); ++d)
        if (all[d].type == gplace::DeviceType::GPU && spec->matches(all[d])) {
          gpuOf[request.getValue()] = d;
          stages.insert(d);
          break;
        }
    });
    std::vector<size_t> free;
    for (size_t d = 0; d < all.size(); ++d)
      if (all[d].type == gplace::DeviceType::GPU && !stages.count(d))
        free.push_back(d);
    size_t k = stages.size();
    if (k == 0)
      return func.emitError()
             << "--gplace-pipeline-parallel replicas=" << replicas << ": @"
             << func.getSymName()
             << " requests no GPU for its stages, so there is nothing to "
                "replicate per stage";
    if (free.size() < (replicas - 1) * k)
      return func.emitError()
             << "--gplace-pipeline-parallel replicas=" << replicas << ": @"
             << func.getSymName() << "'s " << k << " stages need "
             << replicas * k << " GPUs for " << replicas
             << " pipelines; the devices have " << free.size() + k;
    std::vector<size_t> order(stages.begin(), stages.end());
    out.assign(replicas, {});
    for (unsigned r = 1; r < replicas; ++r)
      for (const auto &entry : gpuOf) {
        size_t j = llvm::find(order, entry.getValue()) - order.begin();
        out[r][entry.getKey()] = all[free[(r - 1) * k + j]].str();
      }
    return success();
  }
};

} // namespace
