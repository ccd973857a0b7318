//===- InsertControlDeps.cpp - order state and cross-device edges ---------===//
//
// Three kinds of ordering, each added only if not already implied:
//   1. automatic control dependencies on each variable (TensorFlow 2's
//      auto_control_deps): ops whose memory effects read a variable wait for
//      the last op that wrote it; ops that write it wait for that write and
//      every read since;
//   2. max-inflight-copies: copy k waits for copy k-N;
//   3. after(...) tokens from another device become token copies.
// Ops are told apart by their memory effects, the ControlOnly and
// ForwardsInput traits and TransferOpInterface, never by class.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace gplace {
#define GEN_PASS_DEF_INSERTCONTROLDEPSPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// True if waiting for `token` implies `value` is ready: it is `value`, or
/// a control-only op (a group) or a token transfer waiting for something
/// that implies it. The search visits each token once.
bool implies(Value token, Value value) {
  SmallVector<Value, 8> worklist = {token};
  SmallPtrSet<void *, 8> visited;
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    if (next == value)
      return true;
    if (!visited.insert(next.getAsOpaquePointer()).second)
      continue;
    Operation *producer = next.getDefiningOp();
    if (!producer)
      continue;
    if (producer->hasTrait<graph::OpTrait::ControlOnly>())
      llvm::append_range(worklist, producer->getOperands());
    else if (auto transfer = dyn_cast<TransferOpInterface>(producer))
      if (isa<ControlType>(next.getType()))
        worklist.push_back(transfer.getTransferred());
  }
  return false;
}

bool isOrderedAfter(PlacedOpInterface op, Value value) {
  return llvm::any_of(op.getControlDependencies(),
                      [&](Value token) { return implies(token, value); });
}

class ControlDepsInserter {
public:
  ControlDepsInserter(func::FuncOp func, unsigned maxInflightCopies)
      : func_(func), builder_(func.getContext()),
        maxInflightCopies_(maxInflightCopies) {}

  /// Returns whether it changed the function.
  bool run() {
    SmallVector<PlacedOpInterface> ops;
    InterfaceCache<PlacedOpInterface> placed;
    placed.walk(func_, [&](PlacedOpInterface op) { ops.push_back(op); });
    orderResourceAccesses(ops);
    limitInflightCopies(ops);
    synchronizeAcrossDevices(ops);
    return changed_;
  }

private:
  /// Whether `op` is a transfer, asked once per kind of op (an interface
  /// cast searches the op's interfaces).
  bool isTransfer(Operation *op) {
    auto [it, isNew] =
        transferKinds_.try_emplace(op->getName().getAsOpaquePointer());
    if (isNew)
      it->second = isa<TransferOpInterface>(op);
    return it->second;
  }

  /// A token ready when all of `values` are, made by a group on `device`
  /// just before `before`.
  Value groupOf(ValueRange values, StringAttr device, Operation *before) {
    changed_ = true;
    builder_.setInsertionPoint(before);
    return builder_.create<GroupOp>(before->getLoc(), values,
                                    /*device=*/StringAttr(),
                                    /*name=*/StringAttr(), device,
                                    ValueRange());
  }

  void orderResourceAccesses(ArrayRef<PlacedOpInterface> ops) {
    struct State {
      Value lastWrite;          ///< Token of the last assign.
      SmallVector<Value> reads; ///< Reads since the last assign.
    };
    DenseMap<Value, State> states;
    for (PlacedOpInterface op : ops) {
      if (op->getNumResults() == 0)
        continue;
      for (const VariableAccess &access : getVariableAccesses(op)) {
        State &state = states[access.variable];
        if (state.lastWrite && !isOrderedAfter(op, state.lastWrite)) {
          op.addControlDependency(state.lastWrite);
          changed_ = true;
        }
        if (!access.writes) {
          state.reads.push_back(op->getResult(0));
          continue;
        }
        SmallVector<Value> pending;
        for (Value read : state.reads)
          if (!isOrderedAfter(op, read))
            pending.push_back(read);
        if (!pending.empty())
          op.addControlDependency(groupOf(
              pending, op->getAttrOfType<StringAttr>("assigned_device"), op));
        state.lastWrite = op->getResult(0);
        state.reads.clear();
      }
    }
  }

  void limitInflightCopies(ArrayRef<PlacedOpInterface> ops) {
    if (maxInflightCopies_ == 0)
      return;
    SmallVector<TransferOpInterface> copies;
    for (PlacedOpInterface op : ops)
      if (isTransfer(op))
        if (auto copy = cast<TransferOpInterface>(op.getOperation());
            !isa<ControlType>(copy.getTransferred().getType()))
          copies.push_back(copy);
    for (size_t k = maxInflightCopies_; k < copies.size(); ++k) {
      TransferOpInterface earlier = copies[k - maxInflightCopies_];
      auto later = cast<PlacedOpInterface>(copies[k].getOperation());
      if (isOrderedAfter(later, earlier->getResult(0)))
        continue;
      later.addControlDependency(groupOf(earlier->getResult(0),
                                         earlier.getDestinationDevice(), later));
    }
  }

  /// `ops`: the function's placed ops before the groups the two steps
  /// above inserted (groups wait for nothing in after(...), and the token
  /// copies made here go before the op that needs them).
  void synchronizeAcrossDevices(ArrayRef<PlacedOpInterface> ops) {
    DenseMap<std::pair<Value, StringAttr>, Value> tokenCopies;
    for (PlacedOpInterface op : ops)
      if (isTransfer(op))
        if (auto copy = cast<TransferOpInterface>(op.getOperation());
            isa<ControlType>(copy.getTransferred().getType()))
          tokenCopies[{copy.getTransferred(), copy.getDestinationDevice()}] =
              copy->getResult(0);
    for (PlacedOpInterface op : ops) {
      unsigned numTokens = op.getControlDependencies().size();
      if (numTokens == 0)
        continue;
      auto device = op->getAttrOfType<StringAttr>(assignedDevice_);
      if (!device)
        continue;
      // A token transfer's input is the one cross-device token edge allowed.
      if (isTransfer(op) && isa<ControlType>(op->getResult(0).getType()))
        continue;
      unsigned first = op->getNumOperands() - numTokens;
      for (unsigned i = first, e = op->getNumOperands(); i < e; ++i) {
        Value token = op->getOperand(i);
        StringAttr source = getValueDevice(token);
        if (!source || source == device)
          continue;
        Value &copy = tokenCopies[{token, device}];
        if (!copy) {
          builder_.setInsertionPointAfterValue(token);
          copy = builder_.create<CopyOp>(token.getLoc(), token, source, device,
                                         StringAttr(), StringAttr(), device,
                                         ValueRange());
        }
        op->setOperand(i, copy);
        changed_ = true;
      }
    }
  }

  func::FuncOp func_;
  OpBuilder builder_;
  StringAttr assignedDevice_ = builder_.getStringAttr("assigned_device");
  DenseMap<const void *, bool> transferKinds_;
  unsigned maxInflightCopies_;
  bool changed_ = false;
};

struct InsertControlDepsPass
    : public gplace::impl::InsertControlDepsPassBase<InsertControlDepsPass> {
  using InsertControlDepsPassBase::InsertControlDepsPassBase;
  void runOnOperation() override {
    bool changed = false;
    getOperation().walk([&](func::FuncOp func) {
      changed |= ControlDepsInserter(func, maxInflightCopies).run();
    });
    // Nothing to order: the IR is unchanged, and the pass manager need not
    // verify it again.
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
