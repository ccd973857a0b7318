//===- SchedulePipeline.cpp - order a pipelined function's stages ---------===//
//
// --gplace-schedule-pipeline: after placement, reorders a function that
// --gplace-pipeline-parallel split into micro-batches so that each stage
// (device) runs its forward and backward units in GPipe's or 1F1B's order
// (GPipe, Huang et al. 2019; PipeDream-flush, Narayanan et al. 2021, as
// torch.distributed.pipelining's ScheduleGPipe and Schedule1F1B). The
// plan's streams run in program order, so this order is what the runtime
// runs and what the memory planner plans for. The pass asks
// PlacedOpInterface and attributes; it names no op class.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace gplace {
#define GEN_PASS_DEF_SCHEDULEPIPELINEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

constexpr int kNone = -1, kMany = -2;

/// One function's schedule: stage s's units in order, a unit being
/// (micro-batch, backward?) of that stage.
struct Unit {
  int microBatch;
  bool backward;
};

/// Stage `s` of `k`'s units under `schedule` with `m` micro-batches.
std::vector<Unit> stageOrder(StringRef schedule, int s, int k, int m) {
  std::vector<Unit> order;
  if (schedule == "gpipe") {
    for (int i = 0; i < m; ++i)
      order.push_back({i, false});
    for (int i = 0; i < m; ++i)
      order.push_back({i, true});
    return order;
  }
  // 1F1B: the warm-up forwards that fill the pipeline below this stage,
  // then one forward and one backward in turn, then the cool-down.
  int warmup = std::min(k - 1 - s, m);
  for (int i = 0; i < warmup; ++i)
    order.push_back({i, false});
  for (int i = 0; i < m - warmup; ++i) {
    order.push_back({warmup + i, false});
    order.push_back({i, true});
  }
  for (int i = m - warmup; i < m; ++i)
    order.push_back({i, true});
  return order;
}

LogicalResult schedulePipeline(func::FuncOp func, DictionaryAttr pipeline,
                               bool print) {
  auto microbatches = pipeline.getAs<IntegerAttr>("microbatches");
  auto schedule = pipeline.getAs<StringAttr>("schedule");
  auto stagesAsked = pipeline.getAs<IntegerAttr>("stages");
  if (!microbatches || !schedule || microbatches.getInt() < 1 ||
      (schedule.getValue() != "gpipe" && schedule.getValue() != "1f1b"))
    return func.emitError() << "--gplace-schedule-pipeline: @"
                            << func.getSymName() << "'s "
                            << gplace::kPipelineAttrName << " " << pipeline
                            << " needs microbatches >= 1 and schedule gpipe "
                               "or 1f1b";
  int m = microbatches.getInt();
  // Data parallel x pipeline parallel: R pipelines, micro-batches
  // r*M .. r*M+M-1 replica r's, each replica on its own K devices.
  int replicas = 1;
  if (auto attr = pipeline.getAs<IntegerAttr>("replicas"))
    replicas = std::max<int64_t>(attr.getInt(), 1);
  Block &body = func.getBody().front();
  Operation *terminator = body.getTerminator();

  // Each op's micro-batch: its mark, else its operands' (none, one, or
  // several: kMany), and whether it is backward (differentiation's ops,
  // colocated with their forward op or named gradients/...).
  DenseMap<Operation *, int> microBatch;
  DenseMap<Operation *, bool> backward;
  SmallVector<Operation *> ops;
  // Ops with effects, or on resources, keep their program order (each
  // waits for the one before it): a read after an update stays after it.
  DenseMap<Operation *, Operation *> previousEffect;
  Operation *lastEffect = nullptr;
  for (Operation &op : body.without_terminator()) {
    ops.push_back(&op);
    auto isResource = [](Type type) { return isa<ResourceType>(type); };
    if (!isMemoryEffectFree(&op) ||
        llvm::any_of(op.getOperandTypes(), isResource) ||
        llvm::any_of(op.getResultTypes(), isResource)) {
      previousEffect[&op] = lastEffect;
      lastEffect = &op;
    }
    int mine = kNone;
    if (auto mark = op.getAttrOfType<IntegerAttr>(gplace::kMicroBatchAttrName))
      mine = mark.getInt();
    else
      for (Value operand : op.getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != &body)
          continue;
        int theirs = microBatch.lookup(def);
        if (theirs == kNone || theirs == mine)
          continue;
        mine = mine == kNone ? theirs : kMany;
      }
    microBatch[&op] = mine;
    if (mine >= 0 && !op.hasAttr(gplace::kMicroBatchAttrName)) {
      auto name = op.getAttrOfType<StringAttr>("name");
      backward[&op] =
          op.hasAttr(GraphDialect::getColocateWithAttrName()) ||
          (name && name.getValue().starts_with("gradients/")) ||
          llvm::any_of(op.getOperands(), [&](Value operand) {
            return backward.lookup(operand.getDefiningOp());
          });
    }
  }

  auto deviceOf = [](Operation *op) -> StringRef {
    auto placed = dyn_cast<PlacedOpInterface>(op);
    return placed ? placed.getAssignedDeviceName() : StringRef();
  };
  // The stages: the devices micro-batch 0's forward ops run on, in the
  // order the forward pass reaches them: by the most device crossings on
  // a path to one of their ops (a label copied straight to the last stage
  // does not make it the second).
  llvm::SetVector<StringRef> stages;
  // Only the model's own ops count: not the slices of the batch, which
  // read only the function's arguments, nor copies, nor what the host does
  // to the slices before any copy (a cast of uint8 images): that runs as
  // soon as it can, outside the schedule.
  auto readsOps = [&](Operation *op) {
    return llvm::any_of(op->getOperands(),
                        [](Value v) { return v.getDefiningOp() != nullptr; });
  };
  DenseMap<Operation *, int> crossings;
  // Per replica: its stages are the devices of its first micro-batch.
  int k = 0;
  for (int r = 0; r < replicas; ++r) {
  llvm::StringMap<int> depth;
  SmallVector<StringRef> found;
  for (Operation *op : ops) {
    if (microBatch.lookup(op) != r * m || backward.lookup(op))
      continue;
    int mine = 0;
    for (Value operand : op->getOperands())
      if (auto it = crossings.find(operand.getDefiningOp());
          it != crossings.end())
        mine = std::max(mine, it->second + (deviceOf(it->first) !=
                                            deviceOf(op)));
    crossings[op] = mine;
    if (deviceOf(op).empty() || !readsOps(op) || mine == 0 ||
        !op->hasAttr(gplace::kMicroBatchAttrName))
      continue;
    auto [it, inserted] = depth.try_emplace(deviceOf(op), mine);
    if (inserted)
      found.push_back(deviceOf(op));
    it->second = std::max(it->second, mine);
  }
  llvm::stable_sort(found, [&](StringRef a, StringRef b) {
    return depth.lookup(a) < depth.lookup(b);
  });
  // The host slices the batch and combines the results; when the forward
  // runs on other devices too, what it does in between (a cast that has
  // no GPU kernel, from --gplace-auto-mixed-precision) runs outside the
  // schedule, as soon as its operands are ready, and is no stage.
  if (found.size() > 1)
    llvm::erase(found, StringRef(gplace::graph::kHostDevice));
  if (r == 0)
    k = found.size();
  if (static_cast<int>(found.size()) != k)
    return func.emitError()
           << "--gplace-schedule-pipeline: @" << func.getSymName()
           << "'s pipeline replica " << r << " runs its forward on "
           << found.size() << " device(s), replica 0 on " << k;
  for (StringRef device : found)
    if (!stages.insert(device))
      return func.emitError()
             << "--gplace-schedule-pipeline: @" << func.getSymName()
             << "'s pipeline replicas share device " << device
             << "; each of the " << replicas
             << " replicas needs its own K devices";
  }
  // All replicas' stages: replica r's stage s is stages[r * k + s].
  int numStages = stages.size();
  if (stagesAsked && stagesAsked.getInt() > 0 && stagesAsked.getInt() != k) {
    InFlightDiagnostic diag = func.emitError();
    diag << "--gplace-schedule-pipeline: @" << func.getSymName() << " asks for "
         << stagesAsked.getInt() << " pipeline stages, but its forward ops "
         << "are placed on " << k << " device(s) (";
    llvm::interleaveComma(stages, diag);
    diag << "); give each stage's ops its device (a device request or "
            "--assign-by-name scope per stage)";
    return diag;
  }

  // "stage s", or with replicas "replica r stage s".
  auto stageLabel = [&](int s) {
    return (replicas > 1 ? "replica " + std::to_string(s / k) + " " : "") +
           std::string("stage ") + std::to_string(s % k);
  };
  // Per stage, its units in the schedule's order; per unit, the ops left.
  auto unitIndex = [&](int s, int i, bool isBackward) {
    return (s * m + i) * 2 + (isBackward ? 1 : 0);
  };
  std::vector<std::vector<int>> order(numStages);
  for (int s = 0; s < numStages; ++s)
    for (Unit unit : stageOrder(schedule.getValue(), s % k, k, m))
      order[s].push_back(unitIndex(s, unit.microBatch, unit.backward));
  std::vector<int> left(2 * m * std::max(numStages, 1), 0);
  DenseMap<Operation *, int> unitOf;
  for (Operation *op : ops) {
    int i = microBatch.lookup(op);
    if (i < 0 || i >= m * replicas)
      continue;
    auto stage = llvm::find(stages, deviceOf(op));
    // A unit of its replica's stages only (a copy into another replica's
    // device runs outside the schedule).
    if (stage == stages.end() || (stage - stages.begin()) / k != i / m)
      continue;
    int unit = unitIndex(stage - stages.begin(), i % m, backward.lookup(op));
    unitOf[op] = unit;
    ++left[unit];
  }

  // Rounds: in each, every stage runs as much of its next unit as is
  // ready, and every op outside a unit runs once its operands have; a
  // stage moves on to its next unit when the round ends. The result is a
  // topological order in which each stage's units follow the schedule.
  std::vector<size_t> head(numStages, 0);
  auto advance = [&] {
    bool moved = false;
    for (int s = 0; s < numStages; ++s)
      while (head[s] < order[s].size() && left[order[s][head[s]]] == 0) {
        ++head[s];
        moved = true;
      }
    return moved;
  };
  advance();
  llvm::DenseSet<Operation *> done;
  SmallVector<Operation *> scheduled;
  SmallVector<Operation *> pending(ops);
  while (!pending.empty()) {
    SmallVector<Operation *> still;
    bool ran = false;
    for (Operation *op : pending) {
      auto unit = unitOf.find(op);
      bool ready = true;
      if (unit != unitOf.end()) {
        int s = unit->second / (2 * m);
        ready = head[s] < order[s].size() && order[s][head[s]] == unit->second;
      }
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (ready && def && def->getBlock() == &body && !done.contains(def))
          ready = false;
      }
      if (Operation *before = previousEffect.lookup(op);
          ready && before && !done.contains(before))
        ready = false;
      if (!ready) {
        still.push_back(op);
        continue;
      }
      done.insert(op);
      scheduled.push_back(op);
      if (unit != unitOf.end())
        --left[unit->second];
      ran = true;
    }
    pending = std::move(still);
    if (!advance() && !ran && !pending.empty()) {
      InFlightDiagnostic diag = func.emitError();
      diag << "--gplace-schedule-pipeline: the " << schedule.getValue()
           << " schedule cannot order @" << func.getSymName() << ":";
      for (int s = 0; s < numStages; ++s)
        if (head[s] < order[s].size()) {
          int unit = order[s][head[s]];
          diag << " " << stageLabel(s) << " (" << stages[s]
               << ") is to run micro-batch " << (unit / 2) % m << "'s "
               << (unit % 2 ? "backward" : "forward") << " next;";
        }
      diag << " its ops wait for ops the schedule runs later (does each "
              "stage's forward read only the stages before it?)";
      return diag;
    }
  }
  for (Operation *op : scheduled)
    op->moveBefore(terminator);

  if (print) {
    // Per stage: its device, its units in order, its ops per micro-batch
    // (forward + backward, copies into it included).
    llvm::errs() << "Pipeline schedule of @" << func.getSymName() << " ("
                 << schedule.getValue() << ", " << k << " stages, " << m
                 << " micro-batches";
    if (replicas > 1)
      llvm::errs() << ", " << replicas << " replicas";
    llvm::errs() << "):\n";
    for (int s = 0; s < numStages; ++s) {
      int forward = 0, backwardOps = 0;
      for (auto [op, unit] : unitOf)
        if (unit / (2 * m) == s && (unit / 2) % m == 0)
          ++(unit % 2 ? backwardOps : forward);
      llvm::errs() << "  " << stageLabel(s) << " on " << stages[s] << ": "
                   << forward << " forward + " << backwardOps
                   << " backward ops per micro-batch; ";
      for (int unit : order[s])
        llvm::errs() << (unit % 2 ? "B" : "F") << (unit / 2) % m << " ";
      llvm::errs() << "\n";
    }
    // Each op's stage, and why it is there (micro-batch 0's; the others
    // follow theirs): a forward op by its device, which its request or
    // split=auto's cut gave it; a backward op with the forward op it
    // differentiates; anything else (copies, the host's slices) outside
    // the stages.
    auto split = pipeline.getAs<StringAttr>("split");
    bool automatic = split && split.getValue() == "auto";
    for (Operation *op : ops) {
      auto unit = unitOf.find(op);
      if (unit == unitOf.end() || (unit->second / 2) % m != 0)
        continue;
      auto name = op->getAttrOfType<StringAttr>("name");
      int s = unit->second / (2 * m);
      llvm::errs() << "  ";
      if (name)
        llvm::errs() << name.getValue();
      else
        llvm::errs() << "(" << op->getName() << ")";
      llvm::errs() << ": " << stageLabel(s) << ", ";
      if (!name) // Inserted after placement: a copy into the stage.
        llvm::errs() << (unit->second % 2 ? "backward" : "forward")
                     << ", inserted on " << stages[s];
      else if (unit->second % 2)
        llvm::errs() << "backward, on its forward op's device";
      else if (auto request = op->getAttrOfType<StringAttr>("device"))
        llvm::errs() << "forward, "
                     << (automatic ? "split=auto's cut" : "its request")
                     << " '" << request.getValue() << "'";
      else
        llvm::errs() << "forward, placed on " << stages[s];
      llvm::errs() << "\n";
    }
  }
  return success();
}

struct SchedulePipelinePass
    : gplace::impl::SchedulePipelinePassBase<SchedulePipelinePass> {
  using SchedulePipelinePassBase::SchedulePipelinePassBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (auto pipeline =
              func->getAttrOfType<DictionaryAttr>(gplace::kPipelineAttrName))
        if (failed(schedulePipeline(func, pipeline, print)))
          return signalPassFailure();
  }
};

} // namespace
