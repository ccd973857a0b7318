//===- AssignByName.cpp - device requests from op names -------------------===//
//
// --gplace-assign-by-name: `REGEX=DEVICE` rules that give ops a `device`
// request by name, as `with tf.device(...)` scopes give them in TensorFlow,
// for graphs that carry none (an imported model). docs/passes/assign-by-name.md.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Regex.h"

namespace gplace {
#define GEN_PASS_DEF_ASSIGNBYNAMEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// `text` split at the commas outside (), [] and {}; an unbalanced bracket
/// keeps the rest in one piece, which the regex then rejects.
std::vector<std::string> splitRules(StringRef text) {
  std::vector<std::string> rules;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '\\' && i + 1 < text.size()) {
      ++i; // An escaped character is never a separator or a bracket.
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == ',' && (depth == 0 || i == text.size())) {
      if (i > start)
        rules.push_back(text.slice(start, i).str());
      start = i + 1;
    }
  }
  return rules;
}

struct AssignByNamePass
    : public gplace::impl::AssignByNamePassBase<AssignByNamePass> {
  using AssignByNamePassBase::AssignByNamePassBase;

  void runOnOperation() override {
    // The rules, checked before any op is touched: option errors have no
    // place in the IR.
    Location optionLoc = UnknownLoc::get(&getContext());
    std::vector<std::pair<llvm::Regex, StringAttr>> compiled;
    for (const std::string &rule : splitRules(rules)) {
      size_t equals = StringRef(rule).rfind('=');
      if (equals == StringRef::npos || equals == 0) {
        emitError(optionLoc) << "gplace-assign-by-name: rule '" << rule
                             << "' is not REGEX=DEVICE";
        return signalPassFailure();
      }
      StringRef pattern = StringRef(rule).take_front(equals);
      StringRef device = StringRef(rule).drop_front(equals + 1);
      std::string error;
      if (!DeviceName::parse(device, &error)) {
        emitError(optionLoc) << "gplace-assign-by-name: rule '" << rule
                             << "': " << error;
        return signalPassFailure();
      }
      // Anchored: the regex must match the whole name, as a scope names a
      // whole prefix ("encoder/.*") rather than any name containing it.
      llvm::Regex regex(("^(" + pattern + ")$").str());
      if (!regex.isValid(error)) {
        emitError(optionLoc) << "gplace-assign-by-name: rule '" << rule
                             << "': invalid regular expression '" << pattern
                             << "': " << error;
        return signalPassFailure();
      }
      compiled.push_back({std::move(regex), StringAttr::get(&getContext(),
                                                            device)});
    }

    bool changed = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      std::vector<std::string> names = getOpNames(func);
      unsigned index = 0;
      func->walk<WalkOrder::PreOrder>([&](PlacedOpInterface op) {
        const std::string &name = names[index++];
        if (!op.getRequestedDevice().empty())
          return; // Its own request: an inner scope wins.
        for (auto &[regex, device] : compiled)
          if (regex.match(name)) {
            op->setAttr("device", device);
            changed = true;
            return;
          }
      });
    }
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
