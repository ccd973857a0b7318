//===- ControlFlowOps.cpp - gplace.if, gplace.while, gplace.yield ---------===//
//
// The verifiers and shape rules of the control-flow ops
// (dialects/graph/GraphControlFlowOps.td): TensorFlow's If and While with
// regions. Each op is in one of two forms: with regions (as built and
// parsed), or outlined (--gplace-outline-control-flow: empty regions and
// symbols naming the functions they became). Messages follow GraphOps.cpp's
// style.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace gplace::graph;

namespace {

/// Checks that `region` of `op` is one block whose arguments have the
/// types `argTypes` and that ends in a gplace.yield; returns the yield.
FailureOr<YieldOp> verifyRegionShape(Operation *op, Region &region,
                                     StringRef name, TypeRange argTypes) {
  if (!region.hasOneBlock())
    return op->emitOpError()
           << "expects its '" << name << "' region to have one block";
  Block &block = region.front();
  if (TypeRange(block.getArgumentTypes()) != argTypes) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "expects the arguments of its '" << name
                              << "' region to have the inputs' types (";
    llvm::interleaveComma(argTypes, diag);
    diag << "), but got (";
    llvm::interleaveComma(block.getArgumentTypes(), diag);
    return diag << ")";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError()
           << "expects its '" << name << "' region to end in gplace.yield";
  return yield;
}

/// Checks that `yield` yields values of `types`.
LogicalResult verifyYieldTypes(Operation *op, YieldOp yield, StringRef name,
                               TypeRange types, StringRef what) {
  if (TypeRange(yield.getValues().getTypes()) == types)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "expects its '" << name << "' region to yield "
                            << what << " (";
  llvm::interleaveComma(types, diag);
  diag << "), but it yields (";
  llvm::interleaveComma(yield.getValues().getTypes(), diag);
  return diag << ")";
}

/// The common checks of the two forms: both regions, or both symbols.
LogicalResult verifyForm(Operation *op, Region &first, Region &second,
                         Attribute firstSymbol, Attribute secondSymbol,
                         StringRef firstName, StringRef secondName) {
  if (static_cast<bool>(firstSymbol) != static_cast<bool>(secondSymbol))
    return op->emitOpError() << "expects both '" << firstName << "' and '"
                             << secondName << "' or neither";
  if (firstSymbol && !(first.empty() && second.empty()))
    return op->emitOpError()
           << "names functions in '" << firstName << "' and '" << secondName
           << "', so its regions must be empty";
  if (!firstSymbol && (first.empty() || second.empty()))
    return op->emitOpError() << "expects two regions, or '" << firstName
                             << "' and '" << secondName
                             << "' naming functions";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// gplace.if
//===----------------------------------------------------------------------===//

void IfOp::build(OpBuilder &builder, OperationState &state,
                 TypeRange resultTypes, Value cond, ValueRange inputs) {
  build(builder, state, resultTypes, cond, inputs, FlatSymbolRefAttr(),
        FlatSymbolRefAttr(), StringAttr(), StringAttr(), StringAttr(),
        ValueRange());
}

FailureOr<SmallVector<Type>> IfOp::inferResultTypes(Region &thenRegion) {
  if (thenRegion.empty())
    return failure();
  auto yield = dyn_cast<YieldOp>(thenRegion.front().getTerminator());
  if (!yield)
    return failure();
  return SmallVector<Type>(yield.getValues().getTypes());
}

LogicalResult IfOp::verify() {
  return verifyForm(*this, getThenRegion(), getElseRegion(),
                    getThenBranchAttr(), getElseBranchAttr(), "then_branch",
                    "else_branch");
}

LogicalResult IfOp::verifyRegions() {
  if (isOutlined())
    return success();
  TypeRange inputs = getInputs().getTypes();
  for (auto [region, name] :
       {std::pair<Region *, StringRef>{&getThenRegion(), "then"},
        {&getElseRegion(), "else"}}) {
    FailureOr<YieldOp> yield = verifyRegionShape(*this, *region, name, inputs);
    if (failed(yield) ||
        failed(verifyYieldTypes(*this, *yield, name, getResultTypes(),
                                "the result types")))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// gplace.while
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties,
    RegionRange regions, SmallVectorImpl<Type> &inferredReturnTypes) {
  // The loop-carried values keep their types: the results are the inputs'
  // (every operand but the control tokens of `after(...)`).
  for (Value operand : operands)
    if (!isa<ControlType>(operand.getType()))
      inferredReturnTypes.push_back(operand.getType());
  return success();
}

LogicalResult WhileOp::verifyRegions() {
  if (failed(verifyForm(*this, getCondRegion(), getBodyRegion(),
                        getCondAttr(), getBodyAttr(), "cond", "body")))
    return failure();
  if (isOutlined())
    return success();
  TypeRange inputs = getInputs().getTypes();
  FailureOr<YieldOp> condYield =
      verifyRegionShape(*this, getCondRegion(), "cond", inputs);
  if (failed(condYield))
    return failure();
  Type i1 = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (failed(verifyYieldTypes(*this, *condYield, "cond", TypeRange(i1),
                              "one scalar condition")))
    return failure();
  FailureOr<YieldOp> bodyYield =
      verifyRegionShape(*this, getBodyRegion(), "body", inputs);
  if (failed(bodyYield))
    return failure();
  return verifyYieldTypes(*this, *bodyYield, "body", inputs,
                          "the next loop-carried values, of the inputs' types");
}
