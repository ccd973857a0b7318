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
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>
#include <limits>
#include <numeric>
#include <optional>

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

/// Checks the functions an outlined If or While names (`targets`: the
/// attribute's name, the symbol, the type the op needs): each is a
/// function of that type, and none reaches the function that holds `op`
/// again through the functions of outlined control flow (a recursion,
/// which TensorFlow's functional If and While do not have, and whose
/// gradient would never finish cloning).
LogicalResult verifyOutlinedFunctions(
    Operation *op, SymbolTableCollection &symbolTable,
    ArrayRef<std::tuple<StringRef, FlatSymbolRefAttr, FunctionType>> targets) {
  Operation *holder = op->getParentOfType<FunctionOpInterface>();
  for (auto [name, symbol, expected] : targets) {
    if (!symbol)
      continue;
    auto function = dyn_cast_or_null<FunctionOpInterface>(
        symbolTable.lookupNearestSymbolFrom(op, symbol));
    if (!function)
      return op->emitOpError()
             << "'" << name << "' names no function " << symbol;
    if (function.getFunctionType() != expected)
      return op->emitOpError()
             << "'" << name << "' " << symbol << " has type "
             << function.getFunctionType() << ", but the op needs " << expected;
    // The functions reachable from this one through outlined control flow.
    SmallVector<Operation *> worklist = {function};
    llvm::SmallPtrSet<Operation *, 8> seen = {function};
    while (!worklist.empty()) {
      Operation *current = worklist.pop_back_val();
      if (current == holder)
        return op->emitOpError()
               << "'" << name << "' " << symbol << " reaches "
               << "@" << SymbolTable::getSymbolName(holder).getValue()
               << ", the function holding this op, again: control flow "
                  "cannot recurse";
      current->walk([&](Operation *inner) {
        if (!isa<IfOp, WhileOp>(inner))
          return;
        for (NamedAttribute attr : inner->getAttrs())
          if (auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue()))
            if (Operation *callee =
                    symbolTable.lookupNearestSymbolFrom(inner, ref))
              if (isa<FunctionOpInterface>(callee) &&
                  seen.insert(callee).second)
                worklist.push_back(callee);
      });
    }
  }
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

/// The default of `gplace.gradient_stack_bytes` (WhileOp::buildGradients):
/// the most memory the stacks of a While's gradient may take.
constexpr int64_t kDefaultGradientStackBytes = int64_t(64) << 20;

/// The attribute that sets it, on a gplace.while or its module
/// (GraphDialect::verifyOperationAttribute checks it).
constexpr StringLiteral kGradientStackBytesAttr("gplace.gradient_stack_bytes");

/// The integer `v` holds where it is a one-element signless integer
/// constant (seen through reshapes and identities, as ONNX's Loop passes
/// its trip count); nothing otherwise.
std::optional<int64_t> constantInt(Value v) {
  while (v) {
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<ReshapeOp, IdentityOp>(def) &&
        def->getNumOperands() >= 1) {
      v = def->getOperand(0);
      continue;
    }
    auto constant = dyn_cast_or_null<ConstantOp>(def);
    auto value = constant ? dyn_cast<DenseIntElementsAttr>(constant.getValue())
                          : DenseIntElementsAttr();
    // Signless only: a u8's bits read as signed would be another number.
    if (!value || value.getNumElements() != 1 ||
        !value.getElementType().isSignlessInteger() ||
        value.getElementType().isInteger(1))
      return std::nullopt;
    return (*value.begin()).getSExtValue();
  }
  return std::nullopt;
}

/// The most iterations a While of `inputs` with the blocks `cond` and `body`
/// can run, where its condition proves one: `cond` yields `limit > i`
/// (`limit >= i`), or a logical_and with such a term, where `i` is a
/// counter (an input that is an integer constant, the body yielding
/// `i + 1`) and `limit` a constant or an input that is a constant and the
/// body yields unchanged (ONNX's Loop with a constant M, a Python
/// `for i in range(n)`). Nothing where the condition proves no bound.
std::optional<int64_t> provenTripBound(ValueRange inputs, Block &cond,
                                       Block &body) {
  Operation *yield = body.getTerminator();
  auto inputOf = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &cond || arg.getArgNumber() >= inputs.size())
      return std::nullopt;
    return arg.getArgNumber();
  };
  auto invariant = [&](Value v) -> std::optional<int64_t> {
    std::optional<unsigned> j = inputOf(v);
    if (!j)
      return constantInt(v);
    if (yield->getOperand(*j) != body.getArgument(*j))
      return std::nullopt;
    return constantInt(inputs[*j]);
  };
  auto counterStart = [&](Value v) -> std::optional<int64_t> {
    std::optional<unsigned> j = inputOf(v);
    if (!j)
      return std::nullopt;
    auto add = yield->getOperand(*j).getDefiningOp<AddOp>();
    if (!add)
      return std::nullopt;
    Value arg = body.getArgument(*j), lhs = add.getLhs(), rhs = add.getRhs();
    Value step = lhs == arg ? rhs : rhs == arg ? lhs : Value();
    if (!step || constantInt(step) != 1)
      return std::nullopt;
    return constantInt(inputs[*j]);
  };
  std::function<std::optional<int64_t>(Value)> bound =
      [&](Value go) -> std::optional<int64_t> {
    Operation *def = go.getDefiningOp();
    if (!def || def->getNumOperands() != 2)
      return std::nullopt;
    if (isa<GreaterOp, GreaterEqualOp>(def)) {
      std::optional<int64_t> limit = invariant(def->getOperand(0)),
                             start = counterStart(def->getOperand(1));
      if (!limit || !start)
        return std::nullopt;
      // Both are integers of at most 64 bits: the difference in 128.
      __int128 trips = static_cast<__int128>(*limit) - *start +
                       (isa<GreaterEqualOp>(def) ? 1 : 0);
      if (trips > std::numeric_limits<int64_t>::max())
        return std::nullopt;
      return static_cast<int64_t>(std::max<__int128>(trips, 0));
    }
    if (isa<LogicalAndOp>(def)) {
      std::optional<int64_t> a = bound(def->getOperand(0)),
                             b = bound(def->getOperand(1));
      if (a && b)
        return std::min(*a, *b);
      return a ? a : b;
    }
    return std::nullopt;
  };
  return bound(cond.getTerminator()->getOperand(0));
}

/// The bytes one value of `type` takes (an i1 a byte).
int64_t tensorBytes(RankedTensorType type) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

/// The limit on the stacks of `op`'s gradient: its
/// `gplace.gradient_stack_bytes`, else its module's, else
/// kDefaultGradientStackBytes.
int64_t gradientStackLimit(Operation *op) {
  for (Operation *at = op; at; at = at->getParentOp())
    if (auto limit = at->getAttrOfType<IntegerAttr>(kGradientStackBytesAttr))
      return limit.getInt();
  return kDefaultGradientStackBytes;
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

LogicalResult IfOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!isOutlined())
    return success();
  auto type =
      FunctionType::get(getContext(), getInputs().getTypes(), getResultTypes());
  return verifyOutlinedFunctions(*this, symbolTable,
                                 {{"then_branch", getThenBranchAttr(), type},
                                  {"else_branch", getElseBranchAttr(), type}});
}

LogicalResult WhileOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!getCondAttr())
    return success();
  TypeRange carried = getInputs().getTypes();
  auto condType = FunctionType::get(
      getContext(), carried,
      {RankedTensorType::get({}, IntegerType::get(getContext(), 1))});
  auto bodyType = FunctionType::get(getContext(), carried, carried);
  return verifyOutlinedFunctions(
      *this, symbolTable,
      {{"cond", getCondAttr(), condType}, {"body", getBodyAttr(), bodyType}});
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

/// In an iteration of a While's backward loop (`block`: the counter, then
/// the gradients of the carried floats `floats`, ...): the body cloned at
/// iteration k's carried values `xk`, and a gplace.gradients of its float
/// outputs with respect to those values, seeded with `block`'s gradients
/// (which --gplace-differentiate expands in turn).
static GradientsOp bodyGradientsAt(OpBuilder &inner, Location loc,
                                   Block &bodyBlock, ValueRange xk,
                                   ArrayRef<unsigned> floats, Block *block) {
  SmallVector<Value> outputs = cloneBody(inner, bodyBlock, xk);
  SmallVector<Value> yValues, xValues, dyValues;
  SmallVector<Type> types;
  for (auto [k, i] : llvm::enumerate(floats)) {
    yValues.push_back(outputs[i]);
    xValues.push_back(xk[i]);
    dyValues.push_back(block->getArgument(1 + k));
    types.push_back(xk[i].getType());
  }
  return inner.create<GradientsOp>(loc, types, yValues, xValues, dyValues);
}

/// Per argument of `body`, whether the gradient of its outputs `floats`
/// with respect to its arguments may read it: the arguments the ops that
/// compute those outputs read (in their regions too), or that are such an
/// output. A gradient reads only values of the ops its outputs come from
/// (their operands and results), so a counter or a condition the float
/// outputs do not depend on is never read.
static SmallVector<bool> argumentsGradientReads(Block &body,
                                                ArrayRef<unsigned> floats) {
  SmallVector<bool> reads(body.getNumArguments(), false);
  SmallVector<Value> work;
  for (unsigned i : floats)
    work.push_back(body.getTerminator()->getOperand(i));
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &body)
        reads[arg.getArgNumber()] = true;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    def->walk(
        [&](Operation *op) { llvm::append_range(work, op->getOperands()); });
  }
  return reads;
}

/// The gradient of `op` (cond `condBlock`, body `bodyBlock`) where its trip
/// count is at most `bound` (provenTripBound): TensorFlow's while_v2
/// gradient with `maximum_iterations`, the stacks preallocated. A While
/// reruns the forward, counting its trip count N and writing the carried
/// values before iteration n, for each that the body changes and its
/// gradient may read (`varying`, argumentsGradientReads),
/// into row n of a [bound, ...] stack (gplace.dynamic_update_slice, as
/// TensorFlow's TensorListSetItem on a reserved list); a While then runs
/// k = N-1 down to 0, reading iteration k's values from the stacks
/// (gather) and taking the body's gradient there. N + N body runs; memory
/// bound x the varying values' size.
static void buildStackedWhileGradients(WhileOp op, OpBuilder &builder,
                                       ArrayRef<Value> resultGradients,
                                       SmallVectorImpl<Value> &operandGradients,
                                       Block &condBlock, Block &bodyBlock,
                                       ArrayRef<unsigned> floats,
                                       ArrayRef<unsigned> varying,
                                       int64_t bound) {
  ValueRange inputs = op.getInputs();
  Location loc = op.getLoc();
  TypeRange carried = inputs.getTypes();
  // A bound of 0: the loop never runs, but the stacks keep a row.
  int64_t rows = std::max<int64_t>(bound, 1);
  SmallVector<RankedTensorType> stackTypes;
  for (unsigned i : varying) {
    auto type = cast<RankedTensorType>(carried[i]);
    SmallVector<int64_t> shape{rows};
    llvm::append_range(shape, type.getShape());
    stackTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
  }
  OpBuilder inner(op.getContext());

  // The forward with stacks: (n, x, s) from (0, inputs, zeros) while
  // cond(x): (n + 1, body(x), s with row n = x).
  SmallVector<Value> forwardInputs{i64Constant(builder, loc, 0)};
  forwardInputs.append(inputs.begin(), inputs.end());
  for (RankedTensorType type : stackTypes)
    forwardInputs.push_back(buildSplatConstant(builder, loc, type, 0.0));
  WhileOp forward = createWhile(builder, loc, forwardInputs);
  SmallVector<Type> forwardTypes(ValueRange(forwardInputs).getTypes());
  size_t stacksAt = 1 + inputs.size();
  {
    Block *block =
        createBlock(inner, forward.getCondRegion(), forwardTypes, loc);
    SmallVector<Value> go = cloneBody(
        inner, condBlock, block->getArguments().slice(1, inputs.size()));
    inner.create<YieldOp>(loc, go);
    block = createBlock(inner, forward.getBodyRegion(), forwardTypes, loc);
    Value n = block->getArgument(0);
    ValueRange x = block->getArguments().slice(1, inputs.size());
    SmallVector<Value> next{addI64(inner, loc, n, 1)};
    llvm::append_range(next, cloneBody(inner, bodyBlock, x));
    // Row n of each stack, [n, 0, ...], one index vector per stack rank.
    Value nAt = inner.create<ReshapeOp>(
        loc, TypeRange{RankedTensorType::get({1}, inner.getI64Type())},
        ValueRange{n}, ArrayRef<NamedAttribute>{});
    DenseMap<int64_t, Value> rowAt;
    for (auto [k, i] : llvm::enumerate(varying)) {
      RankedTensorType type = stackTypes[k];
      int64_t rank = type.getRank();
      Value &at = rowAt[rank];
      if (!at) {
        at = nAt;
        if (rank > 1)
          at = inner.create<ConcatOp>(
              loc, RankedTensorType::get({rank}, inner.getI64Type()),
              ValueRange{nAt, buildSplatConstant(
                                  inner, loc,
                                  RankedTensorType::get({rank - 1},
                                                        inner.getI64Type()),
                                  0)},
              inner.getI64IntegerAttr(0), StringAttr(), StringAttr(),
              StringAttr(), ValueRange());
      }
      SmallVector<int64_t> rowShape(type.getShape());
      rowShape[0] = 1;
      Value row = inner.create<ReshapeOp>(
          loc,
          TypeRange{RankedTensorType::get(rowShape, type.getElementType())},
          ValueRange{x[i]}, ArrayRef<NamedAttribute>{});
      next.push_back(inner.create<DynamicUpdateSliceOp>(
          loc, TypeRange{type},
          ValueRange{block->getArgument(stacksAt + k), row, at},
          ArrayRef<NamedAttribute>{}));
    }
    inner.create<YieldOp>(loc, next);
  }

  // The backward loop: (k, dx, x0, s) from (N, dy, inputs, stacks) while
  // k > 0: (k - 1, d body(x_{k-1}) / dx . dx, x0, s), x_{k-1} the stacks'
  // row k - 1 (x0 for a value the body does not change).
  SmallVector<Value> backInputs{forward.getResult(0)};
  for (unsigned i : floats) {
    Value dy = resultGradients[i];
    if (!dy)
      dy = buildSplatConstant(builder, loc,
                              cast<RankedTensorType>(inputs[i].getType()), 0.0);
    backInputs.push_back(dy);
  }
  size_t x0At = backInputs.size();
  backInputs.append(inputs.begin(), inputs.end());
  size_t backStacksAt = backInputs.size();
  llvm::append_range(backInputs, forward.getResults().drop_front(stacksAt));
  WhileOp back = createWhile(builder, loc, backInputs);
  SmallVector<Type> backTypes(ValueRange(backInputs).getTypes());
  {
    Block *block = createBlock(inner, back.getCondRegion(), backTypes, loc);
    inner.create<YieldOp>(
        loc, greater(inner, loc, block->getArgument(0),
                     i64Constant(inner, loc, 0)));
  }
  Block *block = createBlock(inner, back.getBodyRegion(), backTypes, loc);
  Value k1 = addI64(inner, loc, block->getArgument(0), -1);
  SmallVector<Value> xk(block->getArguments().slice(x0At, inputs.size()));
  for (auto [k, i] : llvm::enumerate(varying))
    xk[i] = inner.create<GatherOp>(
        loc, TypeRange{carried[i]},
        ValueRange{block->getArgument(backStacksAt + k), k1},
        ArrayRef<NamedAttribute>{
            inner.getNamedAttr("axis", inner.getI64IntegerAttr(0))});
  GradientsOp gradients =
      bodyGradientsAt(inner, loc, bodyBlock, xk, floats, block);
  SmallVector<Value> next{k1};
  llvm::append_range(next, gradients.getResults());
  llvm::append_range(next, block->getArguments().drop_front(x0At));
  inner.create<YieldOp>(loc, next);
  for (auto [k, i] : llvm::enumerate(floats))
    operandGradients[i] = back.getResult(1 + k);
}

/// TensorFlow's _WhileGrad, with the forward kept on stacks where the
/// condition proves a bound on the trip count and the stacks fit
/// `gplace.gradient_stack_bytes` (buildStackedWhileGradients); otherwise
/// with the forward recomputed instead of kept on stacks: a While counts the
/// forward's trip count N (running it once more); a While then runs k = N-1
/// down to 0, each iteration recomputing the carried values after k
/// iterations from the inputs (an inner While) and taking the body's
/// gradient there (a gplace.gradients in the region, which
/// --gplace-differentiate expands in turn). Memory stays that of one
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
  // The values the body changes and its gradient may read (not a counter
  // or a condition the floats do not depend on); a bound on the trip
  // count; the stacks' bytes, within the limit.
  SmallVector<bool> reads = argumentsGradientReads(*bodyBlock, floats);
  SmallVector<unsigned> varying;
  int64_t rowBytes = 0;
  for (auto [i, input] : llvm::enumerate(inputs))
    if (reads[i] && bodyBlock->getTerminator()->getOperand(i) !=
                        bodyBlock->getArgument(i)) {
      varying.push_back(i);
      rowBytes += tensorBytes(cast<RankedTensorType>(input.getType()));
    }
  if (std::optional<int64_t> bound =
          provenTripBound(inputs, *condBlock, *bodyBlock)) {
    int64_t limit = gradientStackLimit(*this);
    if (limit > 0 &&
        (rowBytes == 0 || std::max<int64_t>(*bound, 1) <= limit / rowBytes)) {
      buildStackedWhileGradients(*this, builder, resultGradients,
                                 operandGradients, *condBlock, *bodyBlock,
                                 floats, varying, *bound);
      return success();
    }
  }
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
  GradientsOp gradients =
      bodyGradientsAt(inner, loc, *bodyBlock, xk, floats, block);
  SmallVector<Value> next{k1};
  llvm::append_range(next, gradients.getResults());
  next.append(x0.begin(), x0.end());
  inner.create<YieldOp>(loc, next);
  for (auto [k, i] : llvm::enumerate(floats))
    operandGradients[i] = back.getResult(1 + k);
  return success();
}
