//===- Differentiate.cpp - gplace.gradients to the backward graph ---------===//
//
// Reverse-mode differentiation (TensorFlow's gradients_util._GradientsHelper,
// in one block): the ops between xs and ys, visited in reverse program
// order, each asked for its vector-Jacobian product through
// GradientOpInterface. The pass never names an op. An op with regions
// (gplace.if, gplace.while) builds gradient ops whose regions hold
// gplace.gradients of their own; the pass expands those too.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace gplace {
#define GEN_PASS_DEF_DIFFERENTIATEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

/// Records the ops a builder creates.
struct Recorder : public OpBuilder::Listener {
  SmallVector<Operation *> created;
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    created.push_back(op);
  }
};

class Differentiator {
public:
  explicit Differentiator(func::FuncOp func) : func_(func) {
    std::vector<std::string> names = getOpNames(func);
    size_t i = 0;
    func.walk([&](PlacedOpInterface op) {
      names_[op] = names[i];
      usedNames_.insert(names[i]);
      ++i;
    });
  }

  LogicalResult expand(GradientsOp gradients);

private:
  /// A unique name for a backward op of `forward` of type `type`.
  std::string backwardName(StringRef forward, StringRef type) {
    return uniqueName(("gradients/" + forward + "_grad/" + type).str());
  }
  /// `base`, or `base_1`, `base_2`, ... if taken.
  std::string uniqueName(const std::string &base) {
    std::string name = base;
    for (unsigned n = 1; !usedNames_.insert(name).second; ++n)
      name = base + "_" + std::to_string(n);
    return name;
  }

  /// Names the ops in `created` as backward ops of the forward op named
  /// `forwardName` and colocates them with it; with `colocate` false, they
  /// are the seeds and zeros of the gradients op itself, named
  /// `gradients/<op type>` and free to go anywhere.
  void annotate(ArrayRef<Operation *> created, StringRef forwardName,
                bool colocate = true) {
    MLIRContext *context = func_.getContext();
    for (Operation *op : created) {
      auto placed = dyn_cast<PlacedOpInterface>(op);
      if (!placed)
        continue;
      std::string name =
          colocate ? backwardName(forwardName, placed.getTensorFlowType())
                   : uniqueName(("gradients/" + placed.getTensorFlowType()).str());
      op->setAttr("name", StringAttr::get(context, name));
      if (colocate)
        op->setAttr(GraphDialect::getColocateWithAttrName(),
                    StringAttr::get(context, forwardName));
    }
  }

  func::FuncOp func_;
  DenseMap<Operation *, std::string> names_;
  llvm::StringSet<> usedNames_;
};

LogicalResult Differentiator::expand(GradientsOp gradients) {
  Block *block = gradients->getBlock();
  // The ops between the xs and the ys, through data edges: as
  // tf.gradients, control dependencies (`after` tokens) carry no gradient,
  // so an op that follows an x's op only through one is not
  // differentiated.
  DenseSet<Operation *> path = getOpsBetween(
      *block, gradients.getXs(), gradients.getYs(), gradients.getOperation());

  OpBuilder builder(gradients);
  Recorder recorder;
  builder.setListener(&recorder);
  Location loc = gradients.getLoc();
  DenseMap<Value, SmallVector<Value, 2>> contributions;
  // The gradient a value has received, summed; null for none.
  auto sumOf = [&](Value value) -> Value {
    auto it = contributions.find(value);
    if (it == contributions.end() || it->second.empty())
      return Value();
    if (it->second.size() == 1)
      return it->second.front();
    return builder.create<AddNOp>(loc, value.getType(), it->second,
                                  StringAttr(), StringAttr(), StringAttr(),
                                  ValueRange());
  };

  // Seeds: grad_ys, or ones (the gradient of sum(y)).
  for (auto [i, y] : llvm::enumerate(gradients.getYs())) {
    Value seed;
    if (!gradients.getGradYs().empty()) {
      seed = gradients.getGradYs()[i];
    } else {
      seed = buildSplatConstant(builder, loc,
                                cast<RankedTensorType>(y.getType()), 1.0);
    }
    contributions[y].push_back(seed);
  }
  annotate(recorder.created, "", /*colocate=*/false);
  SmallVector<Operation *> created(recorder.created);
  recorder.created.clear();

  // The ops on the path, last first.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block))) {
    if (!path.contains(&op))
      continue;
    SmallVector<Value> resultGradients;
    bool any = false;
    for (Value result : op.getResults()) {
      Value sum = isFloatTensor(result) ? sumOf(result) : Value();
      any |= static_cast<bool>(sum);
      resultGradients.push_back(sum);
    }
    if (!any || op.hasTrait<gplace::graph::OpTrait::NotDifferentiable>())
      continue;
    std::string name = names_.lookup(&op);
    auto differentiable = dyn_cast<GradientOpInterface>(&op);
    if (!differentiable) {
      auto placed = dyn_cast<PlacedOpInterface>(&op);
      return op.emitError()
             << "No gradient defined for operation '" << name
             << "' (op type: "
             << (placed ? placed.getTensorFlowType() : op.getName().getStringRef())
             << ")";
    }
    SmallVector<Value> operandGradients;
    if (failed(differentiable.buildGradients(builder, resultGradients,
                                             operandGradients)))
      return failure();
    annotate(recorder.created, name);
    created.append(recorder.created);
    recorder.created.clear();
    auto placed = cast<PlacedOpInterface>(&op);
    OperandRange data = placed.getDataOperands();
    if (operandGradients.size() != data.size())
      return op.emitError() << "gradient function returned "
                            << operandGradients.size() << " gradients for "
                            << data.size() << " operands";
    for (auto [operand, gradient] : llvm::zip(data, operandGradients)) {
      if (!gradient || !isFloatTensor(operand))
        continue;
      if (gradient.getType() != operand.getType())
        return op.emitError() << "gradient of type " << gradient.getType()
                              << " for an operand of type "
                              << operand.getType();
      contributions[operand].push_back(gradient);
    }
  }

  // The results: each x's gradient, zeros where none flows.
  SmallVector<Value> results;
  for (Value x : gradients.getXs()) {
    Value sum = sumOf(x);
    if (!sum) {
      sum = buildSplatConstant(builder, loc,
                               cast<RankedTensorType>(x.getType()), 0.0);
    }
    results.push_back(sum);
  }
  annotate(recorder.created, "", /*colocate=*/false);
  created.append(recorder.created);
  gradients->replaceAllUsesWith(results);
  gradients->erase();
  // Gradients no x needs (those of inputs such as the data, which every
  // op's gradient function builds): dropped, last first, as TensorFlow
  // builds only the gradients on the way to xs.
  for (Operation *op : llvm::reverse(created))
    if (op->use_empty() && isPure(op))
      op->erase();
  return success();
}

struct DifferentiatePass
    : public gplace::impl::DifferentiatePassBase<DifferentiatePass> {
  void runOnOperation() override {
    bool changed = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<GradientsOp> ops;
      func.walk([&](GradientsOp op) { ops.push_back(op); });
      if (ops.empty())
        continue;
      changed = true;
      Differentiator differentiator(func);
      for (GradientsOp op : ops)
        if (failed(differentiator.expand(op)))
          return signalPassFailure();
      // Gradient functions of ops with regions (gplace.if, gplace.while)
      // differentiate their regions with gplace.gradients ops of their
      // own, nested in the regions they build: expanded in turn, outermost
      // first, each with the names the function has by then.
      while (true) {
        GradientsOp nested;
        func.walk<WalkOrder::PreOrder>([&](GradientsOp op) {
          nested = op;
          return WalkResult::interrupt();
        });
        if (!nested)
          break;
        Block *block = nested->getBlock();
        if (failed(Differentiator(func).expand(nested)))
          return signalPassFailure();
        // The region recomputed its forward; what the gradients do not
        // read of it is dropped (last first, so that what only the dropped
        // ops read goes too). A colocation naming a dropped op is ignored,
        // as TensorFlow ignores one naming no node.
        SmallVector<Operation *> ops;
        for (Operation &op : block->without_terminator())
          ops.push_back(&op);
        for (Operation *op : llvm::reverse(ops))
          if (op->use_empty() && isPure(op))
            op->erase();
      }
    }
    // Nothing to expand: the IR is unchanged, and the pass manager need not
    // verify it again.
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
