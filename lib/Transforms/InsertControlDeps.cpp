//===- InsertControlDeps.cpp - order state and cross-device edges ---------===//
//
// Three kinds of ordering, each added only if not already implied:
//   1. automatic control dependencies on each resource (TensorFlow 2's
//      auto_control_deps: reads after the last write, writes after the last
//      write and every read since);
//   2. max-inflight-copies: copy k waits for copy k-N;
//   3. after(...) tokens from another device become token copies.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace gplace {
#define GEN_PASS_DEF_INSERTCONTROLDEPSPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// True if waiting for `token` implies `value` is ready: it is `value`, or
/// a group or token copy of something that implies it.
bool implies(Value token, Value value, unsigned depth = 0) {
  if (token == value)
    return true;
  if (depth > 4)
    return false;
  Operation *producer = token.getDefiningOp();
  if (auto group = dyn_cast_or_null<GroupOp>(producer))
    return llvm::any_of(group->getOperands(), [&](Value input) {
      return implies(input, value, depth + 1);
    });
  if (auto copy = dyn_cast_or_null<CopyOp>(producer))
    return isa<ControlType>(copy.getType()) &&
           implies(copy.getInput(), value, depth + 1);
  return false;
}

bool isOrderedAfter(PlacedOpInterface op, Value value) {
  return llvm::any_of(op.getControlDependencies(),
                      [&](Value token) { return implies(token, value); });
}

/// The variable behind a resource value, through identities.
Value resourceRoot(Value resource) {
  while (auto identity = resource.getDefiningOp<IdentityOp>())
    resource = identity.getInput();
  return resource;
}

class ControlDepsInserter {
public:
  ControlDepsInserter(func::FuncOp func, unsigned maxInflightCopies)
      : func_(func), builder_(func.getContext()),
        maxInflightCopies_(maxInflightCopies) {}

  void run() {
    SmallVector<PlacedOpInterface> ops;
    func_.walk([&](PlacedOpInterface op) { ops.push_back(op); });
    orderResourceAccesses(ops);
    limitInflightCopies(ops);
    synchronizeAcrossDevices();
  }

private:
  /// A token ready when all of `values` are, made by a group on `device`
  /// just before `before`.
  Value groupOf(ValueRange values, StringAttr device, Operation *before) {
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
      if (isa<GroupOp, IdentityOp>(op.getOperation()))
        continue;
      auto resource = llvm::find_if(op.getDataOperands(), [](Value operand) {
        return isa<ResourceType>(operand.getType());
      });
      if (resource == op.getDataOperands().end())
        continue;
      State &state = states[resourceRoot(*resource)];
      bool isWrite = op->getNumResults() == 1 &&
                     isa<ControlType>(op->getResult(0).getType());
      if (state.lastWrite && !isOrderedAfter(op, state.lastWrite))
        op.addControlDependency(state.lastWrite);
      if (!isWrite) {
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

  void limitInflightCopies(ArrayRef<PlacedOpInterface> ops) {
    if (maxInflightCopies_ == 0)
      return;
    SmallVector<CopyOp> copies;
    for (PlacedOpInterface op : ops)
      if (auto copy = dyn_cast<CopyOp>(op.getOperation()))
        if (!isa<ControlType>(copy.getType()))
          copies.push_back(copy);
    for (size_t k = maxInflightCopies_; k < copies.size(); ++k) {
      CopyOp earlier = copies[k - maxInflightCopies_];
      auto later = cast<PlacedOpInterface>(copies[k].getOperation());
      if (isOrderedAfter(later, earlier))
        continue;
      later.addControlDependency(
          groupOf(earlier.getResult(), earlier.getDestinationAttr(), later));
    }
  }

  void synchronizeAcrossDevices() {
    DenseMap<std::pair<Value, StringAttr>, Value> tokenCopies;
    func_.walk([&](CopyOp copy) {
      if (isa<ControlType>(copy.getType()))
        tokenCopies[{copy.getInput(), copy.getDestinationAttr()}] = copy;
    });
    func_.walk([&](PlacedOpInterface op) {
      auto device = op->getAttrOfType<StringAttr>("assigned_device");
      if (!device)
        return;
      // A token copy's input is the one cross-device token edge allowed.
      if (isa<CopyOp>(op.getOperation()) &&
          isa<ControlType>(op->getResult(0).getType()))
        return;
      unsigned first =
          op->getNumOperands() - op.getControlDependencies().size();
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
      }
    });
  }

  func::FuncOp func_;
  OpBuilder builder_;
  unsigned maxInflightCopies_;
};

struct InsertControlDepsPass
    : public gplace::impl::InsertControlDepsPassBase<InsertControlDepsPass> {
  using InsertControlDepsPassBase::InsertControlDepsPassBase;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      ControlDepsInserter(func, maxInflightCopies).run();
    });
  }
};
} // namespace
