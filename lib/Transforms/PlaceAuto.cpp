//===- PlaceAuto.cpp - policy=auto in --gplace-place ----------------------===//
//
// The placer's side of policy=auto: the function described to the m-ETF
// analysis (placeAutomatically, gplace/Transforms/AutoPlacement.h), its
// errors reported, its assignment verified and applied.
//
//===----------------------------------------------------------------------===//

#include "Placer.h"

#include "gplace/Dialect/Graph/VariableAccess.h"

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;
using namespace gplace::detail;

AutoPlacementProblem FunctionPlacer::describeAuto() {
  AutoPlacementProblem problem;
  problem.devices = devices_;
  for (unsigned d = 0; d < devices_.size(); ++d)
    problem.memoryLimits.push_back(deviceSet_.attributes(d).memoryLimit);
  problem.profile = autoProfile_;
  problem.maxErrors = kMaxErrors;

  // Values get their ids as they are first seen: arguments, then each op's
  // operands and results in program order.
  llvm::DenseMap<Value, unsigned> ids;
  ids.reserve(ops_.size() * 2 + func_.getNumArguments());
  auto id = [&](Value value) {
    auto [it, isNew] = ids.try_emplace(value, problem.values.size());
    if (isNew) {
      AutoPlacementProblem::Value &v = problem.values.emplace_back();
      v.bytes = getTypeBytes(value.getType());
      v.isTensor = isa<RankedTensorType>(value.getType());
      auto producer = index_.find(value.getDefiningOp());
      if (value.getDefiningOp() && producer != index_.end())
        v.producer = producer->second;
    }
    return it->second;
  };
  for (BlockArgument argument : func_.getArguments())
    problem.arguments.push_back(id(argument));

  problem.ops.reserve(ops_.size());
  for (const OpInfo &info : ops_) {
    Operation *op = info.op;
    AutoPlacementProblem::Op &out = problem.ops.emplace_back();
    out.name = name(info.index);
    out.group = classes_[info.index];
    for (Value operand : op->getOperands())
      out.operands.push_back(id(operand));
    for (Value result : op->getResults())
      out.results.push_back(id(result));
    out.cost = getOpCost(op);
    out.persistent = isa<PersistentOpInterface>(op);
    out.controlOnly = op->hasTrait<graph::OpTrait::ControlOnly>();
    // Views: the lowering gives an op that forwards its input (identity,
    // reshape, a variable's read) no memory of its own, unless it is a
    // read of a variable something writes, which may be copied
    // (GraphToPlan's needsCopy; counted as a copy here, the larger case).
    if (graph::forwardsInput(op) && !info.op.getDataOperands().empty()) {
      Value source = info.op.getDataOperands().front();
      if (!(isa<ResourceType>(source.getType()) &&
            isa<RankedTensorType>(op->getResult(0).getType()) &&
            graph::isVariableWritten(getResourceRoot(source))))
        out.viewOf = id(source);
    }
  }
  for (Block &block : func_.getBody())
    if (!block.empty() && block.back().hasTrait<mlir::OpTrait::IsTerminator>())
      for (Value result : block.back().getOperands())
        problem.results.push_back(id(result));

  // The candidates, and what TensorFlow's rules say of a group they place.
  problem.groups.resize(groups_.size());
  for (auto [cls, group] : llvm::enumerate(groups_)) {
    AutoPlacementProblem::Group &out = problem.groups[cls];
    for (int d = 0, e = devices_.size(); d < e; ++d)
      if (canPlaceOn(group, d))
        out.candidates.push_back(d);
    out.keepsAssigned = group.assigned >= 0;
    if (!out.keepsAssigned && out.candidates.size() > 1)
      continue;
    RuleOutcome rules = applyRules(group);
    group.rule = rules.rule;
    out.ruleDevice = rules.device;
    out.ruleReason = std::move(rules.softReason);
    out.ruleErrorOp = rules.errorOp;
    out.ruleError = std::move(rules.error);
  }
  return problem;
}

LogicalResult FunctionPlacer::placeAuto() {
  AutoPlacementProblem problem = describeAuto();
  AutoPlacement placement = placeAutomatically(problem);
  for (const AutoPlacement::Error &error : placement.errors)
    ops_[error.op].op->emitError() << error.message;
  if (placement.stopped)
    emitError(func_.getLoc()) << "placement stopped after " << kMaxErrors
                              << " errors in this function";
  if (!placement.succeeded())
    return failure();

  // Every group on a device it may have: one of its candidates, or the one
  // TensorFlow's rules give it.
  for (auto [cls, group] : llvm::enumerate(groups_)) {
    const AutoPlacementProblem::Group &described = problem.groups[cls];
    int device = placement.devices[cls];
    bool byRules = described.keepsAssigned || described.candidates.size() <= 1;
    if (byRules ? device != described.ruleDevice
                : !llvm::is_contained(described.candidates, device)) {
      InFlightDiagnostic diag = ops_[group.first].op->emitError();
      diag << "automatic placement (policy=auto) put '" << name(group.first)
           << "' on ";
      if (device >= 0 && device < (int)devices_.size())
        diag << "'" << devices_[device].str() << "'";
      else
        diag << "no device";
      diag << ", which is not one it may have";
      return failure();
    }
    group.device = device;
    if (!byRules)
      group.rule = PlacementRule::Auto;
    if (!placement.reasons[cls].empty()) {
      softReasons_.push_back(std::move(placement.reasons[cls]));
      group.softReason = softReasons_.size() - 1;
    }
  }
  return success();
}
