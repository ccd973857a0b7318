//===- EarlyUpdates.cpp - each variable's update as soon as it can run ----===//
//
// Moves every op that writes a variable (an optimizer's update of a weight,
// an assign) up its function to just after the last op it must follow, as
// PyTorch's per-parameter gradient hooks and DDP apply each gradient once
// it is complete: a weight's gradient then dies at its update, early in the
// backward pass, instead of living to its end. An op X must follow an
// earlier op Y if
//   - Y defines an operand of X (data or an after(...) token);
//   - both access one variable and one of them writes it;
//   - X writes a variable that an earlier op reads, and Y uses the value
//     read (through views): the forward's and the backward's reads of a
//     weight come before its update, so that lowering keeps each read a
//     view of the variable's memory (no copy);
//   - either has a memory effect other than on variables.
// An operand of X made after that point by a read of a variable or an op
// without operands (beta1_power's read, a constant) moves with X, under
// the same rules. Nothing else changes order, and no value changes: the
// same ops compute the same results. Ops are told apart by their memory
// effects and the ForwardsInput trait, never by class.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace gplace {
#define GEN_PASS_DEF_EARLYUPDATESPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// Whether `op` has a memory effect on something other than a variable
/// (or effects it does not declare): such ops keep their order.
bool hasOtherEffects(Operation *op) {
  if (op->hasTrait<mlir::OpTrait::IsTerminator>())
    return true;
  if (op->getNumRegions() > 0)
    return true;
  if (isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance, 4> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return e.getResource() != VariableResource::get();
  });
}

/// Whether `op` reads variables and writes none.
bool onlyReads(ArrayRef<VariableAccess> accesses) {
  return !accesses.empty() &&
         llvm::none_of(accesses, [](const VariableAccess &a) { return a.writes; });
}

class FunctionMover {
public:
  explicit FunctionMover(Block &body) : body_(body) {
    // Per variable: the ops using a value read from it (through views).
    for (Operation &op : body_) {
      SmallVector<VariableAccess, 1> accesses = getVariableAccesses(&op);
      if (!onlyReads(accesses))
        continue;
      SmallVector<Value, 4> values(op.getResults());
      DenseSet<Operation *> users;
      while (!values.empty()) {
        Value value = values.pop_back_val();
        for (Operation *user : value.getUsers())
          if (users.insert(user).second && forwardsInput(user))
            llvm::append_range(values, user->getResults());
      }
      for (const VariableAccess &access : accesses)
        readUsers_[access.variable].insert(users.begin(), users.end());
    }
  }

  /// Returns whether it moved an op.
  bool run() {
    SmallVector<Operation *> writers;
    for (Operation &op : body_)
      if (!hasOtherEffects(&op) &&
          llvm::any_of(getVariableAccesses(&op),
                       [](const VariableAccess &a) { return a.writes; }))
        writers.push_back(&op);
    bool changed = false;
    for (Operation *writer : writers)
      changed |= moveUp(writer);
    return changed;
  }

private:
  /// Whether `op`, before `x`, is an operand producer that moves with `x`.
  static bool movesAlong(Operation *op) {
    if (hasOtherEffects(op))
      return false;
    SmallVector<VariableAccess, 1> accesses = getVariableAccesses(op);
    return (onlyReads(accesses) && forwardsInput(op)) ||
           (accesses.empty() && op->getNumOperands() == 0);
  }

  /// Whether `x` must follow `y`, an op before it, besides through its
  /// operands.
  bool mustFollow(Operation *x, ArrayRef<VariableAccess> xAccesses,
                  Operation *y) {
    if (hasOtherEffects(y))
      return true;
    for (const VariableAccess &yAccess : getVariableAccesses(y))
      for (const VariableAccess &xAccess : xAccesses)
        if (yAccess.variable == xAccess.variable &&
            (yAccess.writes || xAccess.writes))
          return true;
    for (const VariableAccess &xAccess : xAccesses)
      if (xAccess.writes) {
        auto it = readUsers_.find(xAccess.variable);
        if (it != readUsers_.end() && it->second.contains(y))
          return true;
      }
    return false;
  }

  bool moveUp(Operation *writer) {
    // The ops that move (the writer and the operand producers moving with
    // it), and the last op before the writer that one of them must follow.
    llvm::SetVector<Operation *> group;
    group.insert(writer);
    Operation *anchor = nullptr;
    auto later = [](Operation *a, Operation *b) {
      return !a ? b : (!b ? a : (a->isBeforeInBlock(b) ? b : a));
    };
    for (size_t next = 0; next < group.size(); ++next) {
      Operation *x = group[next];
      SmallVector<VariableAccess, 1> accesses = getVariableAccesses(x);
      for (Operation *y = x->getPrevNode(); y; y = y->getPrevNode()) {
        if (group.count(y))
          continue;
        bool defines = llvm::any_of(x->getOperands(), [&](Value operand) {
          return operand.getDefiningOp() == y;
        });
        if (defines && movesAlong(y)) {
          group.insert(y);
          continue;
        }
        if (defines || mustFollow(x, accesses, y)) {
          anchor = later(anchor, y);
          break; // The ops before y are before the anchor too.
        }
      }
    }
    // A producer moving along that lies before the anchor stays.
    SmallVector<Operation *> moving;
    for (Operation &op : body_)
      if (group.count(&op) && (!anchor || anchor->isBeforeInBlock(&op)))
        moving.push_back(&op);
    Operation *first = anchor ? anchor->getNextNode() : &body_.front();
    if (moving.empty() || moving.front() == first)
      return false;
    bool moved = false;
    Operation *after = anchor;
    for (Operation *op : moving) {
      if (after ? after->getNextNode() != op : &body_.front() != op) {
        if (after)
          op->moveAfter(after);
        else
          op->moveBefore(&body_.front());
        moved = true;
      }
      after = op;
    }
    return moved;
  }

  Block &body_;
  DenseMap<Value, DenseSet<Operation *>> readUsers_;
};

struct EarlyUpdatesPass
    : public gplace::impl::EarlyUpdatesPassBase<EarlyUpdatesPass> {
  void runOnOperation() override {
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        FunctionMover(func.getBody().front()).run();
  }
};

} // namespace
