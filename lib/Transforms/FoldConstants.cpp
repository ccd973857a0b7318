//===- FoldConstants.cpp - Grappler's constant folding --------------------===//
//
// Folds, in program order, the graph ops whose fold hook (GraphFolds.cpp)
// gives a constant for their constant operands, or forwards an operand.
// The fold results are found first without touching the IR, so a function
// with nothing to fold is left as it was; then, as --gplace-remap does,
// every op gets its default name pinned before the rewrite, and the pins
// come off again where the defaults did not change.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace gplace {
#define GEN_PASS_DEF_FOLDCONSTANTSPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// Whether `op` may be folded at all: a pure graph op (not a constant)
/// with no device request, no assigned device, no control dependencies in
/// either direction and no resource operand.
bool mayFold(Operation *op, InterfaceCache<PlacedOpInterface> &placedOps) {
  // The cheap checks first: isPure asks the op's interfaces and traits
  // (several hundred instructions), and most ops that fail fail earlier.
  if (isa<ConstantOp>(op) || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  for (Value operand : op->getOperands())
    if (!isa<RankedTensorType>(operand.getType()))
      return false;
  if (op->hasAttr("device") || op->hasAttr("assigned_device"))
    return false;
  auto placed = placedOps.dynCast(op);
  return placed && placed.getControlDependencies().empty() && isPure(op);
}

/// A constant whose value a fold may read: no control dependencies.
DenseElementsAttr constantValue(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant || !constant.getControlDeps().empty())
    return {};
  return dyn_cast<DenseElementsAttr>(constant.getValue());
}

/// What folding one op gives: a constant, or an operand it forwards.
struct Folded {
  Operation *op;
  Attribute constant;   ///< The constant it becomes, or null.
  unsigned operand = 0; ///< Else the operand it forwards.
};

struct FoldConstantsPass
    : public gplace::impl::FoldConstantsPassBase<FoldConstantsPass> {
  void runOnOperation() override {
    bool changed = false;
    for (auto func : getOperation().getOps<func::FuncOp>())
      changed |= fold(func);
    if (!changed)
      markAllAnalysesPreserved();
  }

  /// The folds of `func`, in program order, without changing it: each op's
  /// operands are the constants before it and the results folded so far.
  SmallVector<Folded> findFolds(func::FuncOp func) {
    SmallVector<Folded> folds;
    DenseMap<Value, Attribute> known;
    auto valueOf = [&](Value v) -> Attribute {
      if (Attribute attr = known.lookup(v))
        return attr;
      return constantValue(v);
    };
    InterfaceCache<PlacedOpInterface> placed;
    func.walk([&](Operation *op) {
      if (!mayFold(op, placed))
        return;
      SmallVector<Attribute> operands;
      for (Value operand : op->getOperands())
        operands.push_back(valueOf(operand));
      SmallVector<OpFoldResult, 1> results;
      // Operands that earlier folds will replace are still the IR's here:
      // a forwarding fold compares types, which replacing keeps.
      if (failed(op->fold(operands, results)) || results.size() != 1)
        return;
      if (auto attr = dyn_cast<Attribute>(results[0])) {
        auto typed = dyn_cast<TypedAttr>(attr);
        if (!typed || typed.getType() != op->getResult(0).getType())
          return;
        known[op->getResult(0)] = attr;
        folds.push_back({op, attr, 0});
        return;
      }
      Value to = cast<Value>(results[0]);
      auto operand = llvm::find(op->getOperands(), to);
      if (operand == op->getOperands().end() ||
          to.getType() != op->getResult(0).getType())
        return;
      if (Attribute attr = valueOf(to))
        known[op->getResult(0)] = attr;
      folds.push_back(
          {op, {}, static_cast<unsigned>(operand - op->getOperands().begin())});
    });
    return folds;
  }

  /// Returns whether it changed `func`.
  bool fold(func::FuncOp func) {
    SmallVector<Folded> folds = findFolds(func);
    if (folds.empty())
      return false;
    MLIRContext *context = func.getContext();
    SmallVector<Operation *> pinned = pinDefaultNames(func);
    llvm::StringSet<> erasedPrefixes;
    DenseSet<Operation *> erased;
    SetVector<Operation *> readConstants;
    auto erase = [&](Operation *op) {
      erasedPrefixes.insert(
          cast<PlacedOpInterface>(op).getDefaultNamePrefix());
      erased.insert(op);
      op->erase();
    };
    OpBuilder builder(context);
    for (const Folded &folded : folds) {
      Operation *op = folded.op;
      for (Value operand : op->getOperands())
        if (auto constant = operand.getDefiningOp<ConstantOp>())
          readConstants.insert(constant);
      Value replacement;
      if (!folded.constant) {
        replacement = op->getOperand(folded.operand);
      } else {
        builder.setInsertionPoint(op);
        Operation *constant = getOperation()
                                  ->getContext()
                                  ->getLoadedDialect<GraphDialect>()
                                  ->materializeConstant(
                                      builder, folded.constant,
                                      op->getResult(0).getType(), op->getLoc());
        // The op's name and its other attributes that are not its own
        // (colocation), so that logs and colocation still see it.
        for (NamedAttribute attr : op->getDiscardableAttrs())
          constant->setAttr(attr.getName(), attr.getValue());
        constant->setAttr("name", op->getAttr("name"));
        replacement = constant->getResult(0);
      }
      op->getResult(0).replaceAllUsesWith(replacement);
      erase(op);
    }
    // Each of these is alive: folding erases no constant, and the set
    // holds each once. (`erased` holds addresses that new constants may
    // reuse: it is asked only about the pinned ops, which are older.)
    for (Operation *constant : llvm::reverse(readConstants))
      if (constant->use_empty())
        erase(constant);
    unpinDefaultNames(pinned, erased, erasedPrefixes);
    return true;
  }
};

} // namespace
