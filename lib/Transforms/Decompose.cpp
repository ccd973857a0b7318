//===- Decompose.cpp - composite ops into ops with kernels ----------------===//
//
// Applies the graph dialect's decomposition patterns
// (populateDecompositionPatterns) to every composite op (Graph_Composite),
// in program order. A function without composites is not touched; in one
// with some, every unnamed op first gets its default name (the parts are
// named after their composite, and new ops would shift the defaults of
// others), and the pins come off again where the defaults did not change,
// as in --gplace-remap.
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
#define GEN_PASS_DEF_DECOMPOSEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

struct DecomposePass : public gplace::impl::DecomposePassBase<DecomposePass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateDecompositionPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    bool changed = false;
    for (auto func : getOperation().getOps<func::FuncOp>())
      changed |= decompose(func);
    if (!changed)
      markAllAnalysesPreserved();
  }

  bool decompose(func::FuncOp func) {
    SmallVector<Operation *> composites;
    func.walk([&](Operation *op) {
      if (op->hasTrait<graph::OpTrait::Composite>())
        composites.push_back(op);
    });
    if (composites.empty())
      return false;
    MLIRContext *context = func.getContext();
    SmallVector<Operation *> pinned = pinDefaultNames(func);
    llvm::StringSet<> prefixes;
    DenseSet<Operation *> decomposed;
    for (Operation *op : composites)
      prefixes.insert(cast<PlacedOpInterface>(op).getDefaultNamePrefix());
    PatternApplicator applicator(patterns);
    applicator.applyDefaultCostModel();
    PatternRewriter rewriter(context);
    for (Operation *op : composites) {
      rewriter.setInsertionPoint(op);
      if (succeeded(applicator.matchAndRewrite(op, rewriter)))
        decomposed.insert(op);
    }
    // The parts are named: only the composites' kinds lost unnamed ops.
    unpinDefaultNames(pinned, decomposed, prefixes);
    return !decomposed.empty();
  }

  FrozenRewritePatternSet patterns;
};

} // namespace
