//===- Rematerialize.cpp - recompute scopes in the backward pass ----------===//
//
// --gplace-rematerialize="scopes=REGEX": gradient checkpointing of named
// scopes (TensorFlow's tf.recompute_grad, PyTorch's
// torch.utils.checkpoint). The values a scope's forward ops give the
// backward pass are recomputed from the scope's inputs right before the
// first backward op that needs them. The pass asks PlacedOpInterface and
// memory effects; it names no op class.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

namespace gplace {
#define GEN_PASS_DEF_REMATERIALIZEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

class Rematerializer {
public:
  Rematerializer(func::FuncOp func, llvm::Regex &scope)
      : func_(func), scope_(scope), builder_(func.getContext()) {
    std::vector<std::string> names = getOpNames(func);
    size_t i = 0;
    func.walk([&](PlacedOpInterface op) {
      names_[op] = names[i];
      used_.insert(names[i]);
      ++i;
    });
  }

  /// Recomputes the scope's values that backward ops use; returns how many
  /// ops were cloned.
  unsigned run() {
    Block &body = func_.getBody().front();
    // Per in-scope op whose results a backward op uses: the first such
    // backward op in program order.
    SmallVector<std::pair<Operation *, Operation *>> needed;
    for (Operation &op : body) {
      if (!segment(&op))
        continue;
      Operation *first = nullptr;
      for (Operation *user : op.getUsers())
        if (isBackward(user) && user->getBlock() == &body &&
            (!first || user->isBeforeInBlock(first)))
          first = user;
      if (first)
        needed.push_back({&op, first});
    }
    // Earliest first, so that a clone made for an earlier backward op
    // dominates the later ones that reuse it.
    llvm::stable_sort(needed, [](auto &a, auto &b) {
      return a.second->isBeforeInBlock(b.second);
    });
    for (auto [op, first] : needed) {
      Operation *clone = recompute(op, first);
      for (OpResult result : op->getResults())
        result.replaceUsesWithIf(
            clone->getResult(result.getResultNumber()), [&](OpOperand &use) {
              Operation *user = use.getOwner();
              return user != clone && isBackward(user) &&
                     clone->isBeforeInBlock(user);
            });
    }
    return cloned_;
  }

private:
  /// Whether differentiation made `op`.
  bool isBackward(Operation *op) const {
    return op->hasAttr(GraphDialect::getColocateWithAttrName()) ||
           llvm::StringRef(names_.lookup(op)).starts_with("gradients/");
  }

  /// The segment of an op the scopes recompute (what the regex's first
  /// group matched; "" without a group: one segment), or nullopt: not a
  /// forward graph op, pure, on no variable, whose whole name matches.
  std::optional<std::string> segment(Operation *op) {
    if (!isa<PlacedOpInterface>(op) || isBackward(op) ||
        !isMemoryEffectFree(op) || op->getNumRegions() != 0 ||
        op->getNumResults() == 0)
      return std::nullopt;
    auto isResource = [](Type type) { return isa<ResourceType>(type); };
    if (llvm::any_of(op->getOperandTypes(), isResource) ||
        llvm::any_of(op->getResultTypes(), isResource))
      return std::nullopt;
    // scope_ is "^(<scopes>)$": group 1 is the whole name, group 2 the
    // user's first group, if any.
    SmallVector<StringRef> groups;
    std::string name = names_.lookup(op);
    if (!scope_.match(name, &groups))
      return std::nullopt;
    return groups.size() > 2 ? groups[2].str() : std::string();
  }

  /// `op`'s clone that `before` can use: an earlier one, or one made now
  /// right before `before` from the recomputed operands of its segment.
  Operation *recompute(Operation *op, Operation *before) {
    if (Operation *clone = clones_.lookup(op);
        clone && clone->isBeforeInBlock(before))
      return clone;
    std::optional<std::string> mine = segment(op);
    IRMapping map;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != op->getBlock() || segment(def) != mine)
        continue; // A checkpoint: made outside the segment, kept.
      Operation *clone = recompute(def, before);
      map.map(operand, clone->getResult(cast<OpResult>(operand)
                                            .getResultNumber()));
    }
    builder_.setInsertionPoint(before);
    Operation *clone = builder_.clone(*op, map);
    std::string name = names_.lookup(op) + "/recompute";
    for (unsigned k = 1; !used_.insert(name).second; ++k)
      name = names_.lookup(op) + "/recompute_" + std::to_string(k);
    clone->setAttr("name", builder_.getStringAttr(name));
    names_[clone] = name;
    clones_[op] = clone;
    ++cloned_;
    return clone;
  }

  func::FuncOp func_;
  llvm::Regex &scope_;
  OpBuilder builder_;
  DenseMap<Operation *, std::string> names_;
  llvm::StringSet<> used_;
  DenseMap<Operation *, Operation *> clones_;
  unsigned cloned_ = 0;
};

struct RematerializePass
    : gplace::impl::RematerializePassBase<RematerializePass> {
  using RematerializePassBase::RematerializePassBase;

  void runOnOperation() override {
    if (scopes.empty())
      return;
    // The whole name; the user's first group, if any, names the segment.
    llvm::Regex scope("^(" + scopes + ")$");
    std::string error;
    if (!scope.isValid(error)) {
      getOperation().emitError() << "--gplace-rematerialize scopes '"
                                 << scopes << "': " << error;
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        Rematerializer(func, scope).run();
  }
};

} // namespace
