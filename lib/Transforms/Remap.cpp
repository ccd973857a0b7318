//===- Remap.cpp - Grappler's remapper: fused conv2d ----------------------===//
//
// Applies the graph dialect's remapper patterns (populateRemapperPatterns,
// defined with the ops they fuse) once over each function where some
// pattern's match() succeeds, in program order; a function where none does
// is not touched, and a module with no such function keeps its analyses
// (and is not verified again). The names logs, errors and colocation use
// stay what they were:
// before rewriting, every unnamed op gets its default name as an explicit
// `name` (so that the patterns see every absorbed op's name and move its
// colocation constraints to the fused op); afterwards the names are taken
// off again wherever the defaults did not change, which is every op whose
// default name prefix no erased op had.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"
#include "llvm/ADT/StringSet.h"

namespace gplace {
#define GEN_PASS_DEF_REMAPPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// Records the ops a rewrite erases, and their default name prefixes.
struct ErasedOps : RewriterBase::Listener {
  void notifyOperationErased(Operation *op) override {
    erased.insert(op);
    if (auto placed = dyn_cast<PlacedOpInterface>(op))
      prefixes.insert(placed.getDefaultNamePrefix());
  }
  DenseSet<Operation *> erased;
  llvm::StringSet<> prefixes;
};

struct RemapPass : public gplace::impl::RemapPassBase<RemapPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateRemapperPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    PatternApplicator applicator(patterns);
    applicator.applyDefaultCostModel();
    bool changed = false;
    for (auto func : getOperation().getOps<func::FuncOp>())
      changed |= remap(func, applicator);
    if (!changed)
      markAllAnalysesPreserved();
  }

  /// Whether some pattern matches some op of `func`, by the patterns'
  /// match() alone (the IR is not changed).
  bool anyMatch(func::FuncOp func) {
    const auto &byRoot = patterns.getOpSpecificNativePatterns();
    const auto &anyOp = patterns.getMatchAnyOpNativePatterns();
    return func.walk([&](Operation *op) {
                 auto matches = [op](const RewritePattern *pattern) {
                   return succeeded(pattern->match(op));
                 };
                 auto it = byRoot.find(op->getName());
                 if ((it != byRoot.end() && llvm::any_of(it->second, matches)) ||
                     llvm::any_of(anyOp, [&](const auto &pattern) {
                       return matches(&pattern);
                     }))
                   return WalkResult::interrupt();
                 return WalkResult::advance();
               })
        .wasInterrupted();
  }

  /// Returns whether it changed `func`.
  bool remap(func::FuncOp func, PatternApplicator &applicator) {
    // Most graphs have nothing to fuse: leave them untouched, without
    // naming every op, unless some pattern matches.
    if (!anyMatch(func))
      return false;
    MLIRContext *context = func.getContext();
    SmallVector<Operation *> pinned = pinDefaultNames(func);
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) { ops.push_back(op); });
    ErasedOps listener;
    PatternRewriter rewriter(context);
    rewriter.setListener(&listener);
    for (Operation *op : ops) {
      if (listener.erased.contains(op))
        continue;
      rewriter.setInsertionPoint(op);
      (void)applicator.matchAndRewrite(op, rewriter);
    }
    // Unpin the names whose defaults are unchanged.
    unpinDefaultNames(pinned, listener.erased, listener.prefixes);
    return true;
  }

  FrozenRewritePatternSet patterns;
};

} // namespace
