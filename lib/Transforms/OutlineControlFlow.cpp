//===- OutlineControlFlow.cpp - control-flow regions into functions -------===//
//
// TensorFlow's functional If and While: each region of a gplace.if or
// gplace.while becomes a private function (the regions are isolated from
// above, so a region's block is a function body as it stands), and the op
// names the functions. The executor runs each as a sub-plan
// (docs/runtime.md#control-flow).
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace gplace {
#define GEN_PASS_DEF_OUTLINECONTROLFLOWPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

struct OutlineControlFlowPass
    : public gplace::impl::OutlineControlFlowPassBase<OutlineControlFlowPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      // Post-order: nested control flow first, while its parent's region
      // is still in place.
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (auto ifOp = dyn_cast<IfOp>(op); ifOp && !ifOp.isOutlined())
          ops.push_back(op);
        if (auto whileOp = dyn_cast<WhileOp>(op); whileOp &&
                                                   !whileOp.isOutlined())
          ops.push_back(op);
      });
      // Each new function goes after the previous one, so that they stay
      // in program order after `func`.
      Operation *after = func;
      unsigned index = 0;
      for (Operation *op : ops) {
        std::string base = func.getSymName().str() + "/";
        if (auto name = op->getAttrOfType<StringAttr>("name"))
          base += name.getValue().str();
        else
          base += op->getName().stripDialect().str() + std::to_string(index);
        ++index;
        auto outline = [&](Region &region,
                           StringRef part) -> FailureOr<FlatSymbolRefAttr> {
          bool hasVariable = false;
          region.walk([&](VariableOp variable) {
            variable.emitError()
                << "a variable cannot be declared inside a region of '"
                << op->getName()
                << "' (each run would have its own); declare it outside";
            hasVariable = true;
          });
          if (hasVariable)
            return failure();
          Block &block = region.front();
          auto yield = cast<YieldOp>(block.getTerminator());
          OpBuilder builder(module.getContext());
          builder.setInsertionPointAfter(after);
          auto type = builder.getFunctionType(block.getArgumentTypes(),
                                              yield.getValues().getTypes());
          auto outlined = builder.create<func::FuncOp>(
              op->getLoc(), base + "/" + part.str(), type);
          outlined.setPrivate();
          outlined.getBody().takeBody(region);
          builder.setInsertionPoint(yield);
          builder.create<func::ReturnOp>(yield.getLoc(), yield.getValues());
          yield.erase();
          // Unique (an op name may repeat), and in the symbol table.
          symbols.insert(outlined);
          after = outlined;
          return FlatSymbolRefAttr::get(outlined.getSymNameAttr());
        };
        bool isIf = isa<IfOp>(op);
        FailureOr<FlatSymbolRefAttr> first =
            outline(op->getRegion(0), isIf ? "then" : "cond");
        if (failed(first))
          return signalPassFailure();
        FailureOr<FlatSymbolRefAttr> second =
            outline(op->getRegion(1), isIf ? "else" : "body");
        if (failed(second))
          return signalPassFailure();
        if (auto ifOp = dyn_cast<IfOp>(op)) {
          ifOp.setThenBranchAttr(*first);
          ifOp.setElseBranchAttr(*second);
        } else {
          auto whileOp = cast<WhileOp>(op);
          whileOp.setCondAttr(*first);
          whileOp.setBodyAttr(*second);
        }
      }
    }
  }
};

} // namespace
