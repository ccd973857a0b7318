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

#include "gplace/Dialect/Graph/GraphBuilders.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

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

//===----------------------------------------------------------------------===//
// Gradients: TensorFlow's If and While gradients (cond_v2, while_v2), with
// the forward recomputed inside the gradient op instead of intermediates
// kept by the forward one (docs/dialect.md#gradients-of-if-and-while).
//===----------------------------------------------------------------------===//

/// The block a branch of `op` runs: `region`'s, or, where the op is
/// outlined, the body of the function `symbol` names; null if neither.
Block *branchBlock(Operation *op, Region &region, FlatSymbolRefAttr symbol) {
  if (!symbol)
    return region.empty() ? nullptr : &region.front();
  auto callable = dyn_cast_or_null<CallableOpInterface>(
      SymbolTable::lookupNearestSymbolFrom(op, symbol));
  Region *body = callable ? callable.getCallableRegion() : nullptr;
  return body && !body->empty() ? &body->front() : nullptr;
}

/// Clones the ops of `source` (a branch's block) at `b`'s insertion point,
/// its arguments replaced by `args`, and returns the values its terminator
/// returns. A clone of an op with a default name gets that name (the one
/// it has in its own function) as an explicit `name`: the region may
/// become a function of its own, and the backward ops colocate with their
/// forward ops by name.
SmallVector<Value> cloneBody(OpBuilder &b, Block &source, ValueRange args) {
  IRMapping map;
  map.map(source.getArguments(), args);
  Operation *root = source.getParentOp();
  if (!isa<FunctionOpInterface>(root))
    root = root->getParentOfType<FunctionOpInterface>();
  DenseMap<Operation *, std::string> names;
  if (root) {
    std::vector<std::string> all = getOpNames(root);
    size_t i = 0;
    root->walk([&](PlacedOpInterface op) { names[op] = all[i++]; });
  }
  for (Operation &op : source.without_terminator()) {
    Operation *clone = b.clone(op, map);
    SmallVector<Operation *> from, to;
    op.walk([&](PlacedOpInterface placed) { from.push_back(placed); });
    clone->walk([&](PlacedOpInterface placed) { to.push_back(placed); });
    for (auto [original, copy] : llvm::zip(from, to))
      if (!copy->hasAttr("name") && names.count(original))
        copy->setAttr("name", b.getStringAttr(names[original]));
  }
  return llvm::map_to_vector(source.getTerminator()->getOperands(),
                             [&](Value v) { return map.lookupOrDefault(v); });
}

/// The 0-d tensor type of `element`.
RankedTensorType scalarType(Type element) {
  return RankedTensorType::get({}, element);
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return buildSplatConstant(b, loc, scalarType(b.getI64Type()), value);
}

/// A gplace.while with empty regions over `inputs`.
WhileOp createWhile(OpBuilder &b, Location loc, ValueRange inputs) {
  return b.create<WhileOp>(loc, TypeRange(inputs), inputs,
                           FlatSymbolRefAttr(), FlatSymbolRefAttr(),
                           StringAttr(), StringAttr(), StringAttr(),
                           ValueRange());
}

/// The one block of `region`, with arguments of `types`; `b` inserts at its
/// end.
Block *createBlock(OpBuilder &b, Region &region, TypeRange types,
                   Location loc) {
  SmallVector<Location> locs(types.size(), loc);
  return b.createBlock(&region, {}, types, locs);
}

Value greater(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.create<GreaterOp>(loc, TypeRange{scalarType(b.getI1Type())},
                             ValueRange{lhs, rhs},
                             ArrayRef<NamedAttribute>{});
}

Value addI64(OpBuilder &b, Location loc, Value value, int64_t delta) {
  return b.create<AddOp>(loc, TypeRange{value.getType()},
                         ValueRange{value, i64Constant(b, loc, delta)},
                         ArrayRef<NamedAttribute>{});
}

} // namespace

//===----------------------------------------------------------------------===//
// gplace.if
//===----------------------------------------------------------------------===//

/// TensorFlow's _IfGrad: an If on the same condition whose branches are the
/// gradients of the forward branches, each recomputing its branch's
/// forward from the inputs and differentiating it (a gplace.gradients in
/// the region, which --gplace-differentiate expands in turn).
LogicalResult IfOp::buildGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGradients,
                                   SmallVectorImpl<Value> &operandGradients) {
  ValueRange inputs = getInputs();
  operandGradients.assign(1 + inputs.size(), Value());
  SmallVector<unsigned> xs, ys;
  for (auto [i, input] : llvm::enumerate(inputs))
    if (isFloatTensor(input))
      xs.push_back(i);
  SmallVector<Value> gradInputs(inputs);
  for (auto [i, gradient] : llvm::enumerate(resultGradients))
    if (gradient) {
      ys.push_back(i);
      gradInputs.push_back(gradient);
    }
  if (xs.empty())
    return success();
  SmallVector<Type> types;
  for (unsigned i : xs)
    types.push_back(inputs[i].getType());
  Location loc = getLoc();
  auto grad = builder.create<IfOp>(loc, types, getCond(), gradInputs);
  for (auto [region, symbol, target, part] :
       {std::tuple{&getThenRegion(), getThenBranchAttr(),
                   &grad.getThenRegion(), "then"},
        std::tuple{&getElseRegion(), getElseBranchAttr(),
                   &grad.getElseRegion(), "else"}}) {
    Block *source = branchBlock(*this, *region, symbol);
    if (!source)
      return emitOpError() << "has no '" << part
                           << "' branch to differentiate";
    OpBuilder inner(getContext());
    Block *block =
        createBlock(inner, *target, TypeRange(ValueRange(gradInputs)), loc);
    SmallVector<Value> results =
        cloneBody(inner, *source, block->getArguments().take_front(
                                      inputs.size()));
    SmallVector<Value> yValues, xValues, dyValues;
    for (auto [k, i] : llvm::enumerate(ys)) {
      yValues.push_back(results[i]);
      dyValues.push_back(block->getArgument(inputs.size() + k));
    }
    for (unsigned i : xs)
      xValues.push_back(block->getArgument(i));
    auto gradients =
        inner.create<GradientsOp>(loc, types, yValues, xValues, dyValues);
    inner.create<YieldOp>(loc, gradients.getResults());
  }
  for (auto [k, i] : llvm::enumerate(xs))
    operandGradients[1 + i] = grad.getResult(k);
  return success();
}

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

/// TensorFlow's _WhileGrad, with the forward recomputed instead of kept on
/// stacks: a While counts the forward's trip count N (running it once
/// more); a While then runs k = N-1 down to 0, each iteration recomputing
/// the carried values after k iterations from the inputs (an inner While)
/// and taking the body's gradient there (a gplace.gradients in the region,
/// which --gplace-differentiate expands in turn). Memory stays that of one
/// iteration; time is O(N^2) body runs.
LogicalResult WhileOp::buildGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGradients,
                                      SmallVectorImpl<Value> &operandGradients) {
  ValueRange inputs = getInputs();
  operandGradients.assign(inputs.size(), Value());
  Block *condBlock = branchBlock(*this, getCondRegion(), getCondAttr());
  Block *bodyBlock = branchBlock(*this, getBodyRegion(), getBodyAttr());
  if (!condBlock || !bodyBlock)
    return emitOpError() << "has no 'cond' or 'body' to differentiate";
  SmallVector<unsigned> floats;
  for (auto [i, input] : llvm::enumerate(inputs))
    if (isFloatTensor(input))
      floats.push_back(i);
  if (floats.empty())
    return success();
  Location loc = getLoc();
  TypeRange carried = inputs.getTypes();
  RankedTensorType i64 = scalarType(builder.getI64Type());
  OpBuilder inner(getContext());

  // The trip count: (n, x) from (0, inputs) while cond(x): (n + 1, body(x)).
  SmallVector<Value> countInputs{i64Constant(builder, loc, 0)};
  countInputs.append(inputs.begin(), inputs.end());
  WhileOp count = createWhile(builder, loc, countInputs);
  SmallVector<Type> countTypes{i64};
  countTypes.append(carried.begin(), carried.end());
  {
    Block *block = createBlock(inner, count.getCondRegion(), countTypes, loc);
    SmallVector<Value> go =
        cloneBody(inner, *condBlock, block->getArguments().drop_front());
    inner.create<YieldOp>(loc, go);
    block = createBlock(inner, count.getBodyRegion(), countTypes, loc);
    SmallVector<Value> next{addI64(inner, loc, block->getArgument(0), 1)};
    llvm::append_range(next, cloneBody(inner, *bodyBlock,
                                       block->getArguments().drop_front()));
    inner.create<YieldOp>(loc, next);
  }

  // The backward loop: (k, dx, x0) from (N, dy, inputs) while k > 0:
  // (k - 1, d body(x_{k-1}) / dx . dx, x0), x_{k-1} = body^(k-1)(x0).
  SmallVector<Value> backInputs{count.getResult(0)};
  for (unsigned i : floats) {
    Value dy = resultGradients[i];
    if (!dy) {
      dy = buildSplatConstant(builder, loc,
                              cast<RankedTensorType>(inputs[i].getType()), 0.0);
    }
    backInputs.push_back(dy);
  }
  backInputs.append(inputs.begin(), inputs.end());
  WhileOp back = createWhile(builder, loc, backInputs);
  SmallVector<Type> backTypes(ValueRange(backInputs).getTypes());
  size_t x0At = 1 + floats.size();
  {
    Block *block = createBlock(inner, back.getCondRegion(), backTypes, loc);
    inner.create<YieldOp>(
        loc, greater(inner, loc, block->getArgument(0),
                     i64Constant(inner, loc, 0)));
  }
  Block *block = createBlock(inner, back.getBodyRegion(), backTypes, loc);
  Value k1 = addI64(inner, loc, block->getArgument(0), -1);
  ValueRange x0 = block->getArguments().drop_front(x0At);
  // x_{k-1}: (j, k - 1, s) from (0, k - 1, x0) while k - 1 > j:
  // (j + 1, k - 1, body(s)).
  SmallVector<Value> replayInputs{i64Constant(inner, loc, 0), k1};
  replayInputs.append(x0.begin(), x0.end());
  WhileOp replay = createWhile(inner, loc, replayInputs);
  SmallVector<Type> replayTypes(ValueRange(replayInputs).getTypes());
  {
    OpBuilder::InsertionGuard guard(inner);
    Block *cond = createBlock(inner, replay.getCondRegion(), replayTypes, loc);
    inner.create<YieldOp>(loc, greater(inner, loc, cond->getArgument(1),
                                       cond->getArgument(0)));
    Block *body = createBlock(inner, replay.getBodyRegion(), replayTypes, loc);
    SmallVector<Value> next{addI64(inner, loc, body->getArgument(0), 1),
                            body->getArgument(1)};
    llvm::append_range(
        next, cloneBody(inner, *bodyBlock, body->getArguments().drop_front(2)));
    inner.create<YieldOp>(loc, next);
  }
  ValueRange xk = replay.getResults().drop_front(2);
  SmallVector<Value> outputs = cloneBody(inner, *bodyBlock, xk);
  SmallVector<Value> yValues, xValues, dyValues;
  SmallVector<Type> types;
  for (auto [k, i] : llvm::enumerate(floats)) {
    yValues.push_back(outputs[i]);
    xValues.push_back(xk[i]);
    dyValues.push_back(block->getArgument(1 + k));
    types.push_back(carried[i]);
  }
  auto gradients =
      inner.create<GradientsOp>(loc, types, yValues, xValues, dyValues);
  SmallVector<Value> next{k1};
  llvm::append_range(next, gradients.getResults());
  next.append(x0.begin(), x0.end());
  inner.create<YieldOp>(loc, next);
  for (auto [k, i] : llvm::enumerate(floats))
    operandGradients[i] = back.getResult(1 + k);
  return success();
}
