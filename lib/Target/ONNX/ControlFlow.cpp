//===- ControlFlow.cpp - If, Loop and Scan at import time -------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
// ONNX's control flow carries subgraphs, which the importer imports in
// place, as TensorFlow's grappler lowers a functional If whose predicate is
// a constant to the taken branch and XLA unrolls a While of known trip
// count:
// - If: its condition must be known at import time (a constant, a value
//   folded, or a graph input the caller gave: OnnxImportOptions::inputValues
//   specializes the graph); the taken branch's nodes are imported in the
//   If's place, the other branch is not read;
// - Loop: its trip count and condition must be known at import time, and
//   the body's condition output must fold to a constant in each iteration;
//   the body is imported once per iteration (its iteration number and
//   condition constants), its loop-carried values threaded through, its
//   scan outputs stacked along a new leading dimension;
// - Scan (opset 9 and above; opset 8's is split per batch element into
//   Scan 9s before the version converter, Reading.cpp): the body is
//   imported once per slice of the scan inputs along their scan axes
//   (their static size), in the direction each input and output names.
// At most kMaxUnrolledIterations iterations unroll. An If whose condition
// is of the run becomes gplace.if, and a Loop that does not unroll (its
// trip count or condition of the run, or too many iterations)
// gplace.while, each subgraph a region.
// Sequences and optionals (MapSequence.cpp) are import-time lists: a Loop
// carrying one unrolls (its carried list threaded through the iterations),
// an If giving one takes its branch at import time; neither has a run-time
// form (gplace.if and gplace.while carry tensors).
// ControlFlowImport imports one node: a member function per op and form.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

const onnx::GraphProto *subgraphAttr(const onnx::NodeProto &proto,
                                     llvm::StringRef attrName) {
  for (const onnx::AttributeProto &a : proto.attribute())
    if (a.name() == attrName && a.has_g())
      return &a.g();
  return nullptr;
}

/// The names a subgraph defines: its inputs, initializers and nodes'
/// outputs (nested subgraphs define theirs when they are imported).
void definedNames(const onnx::GraphProto &graph,
                  SmallVectorImpl<std::string> &names) {
  for (const onnx::ValueInfoProto &input : graph.input())
    names.push_back(input.name());
  for (const onnx::TensorProto &t : graph.initializer())
    names.push_back(t.name());
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &out : node.output())
      if (!out.empty())
        names.push_back(out);
}

/// Adds to `out` the names `graph` reads but does not define, its nested
/// subgraphs' included, in order of first use (`seen`: those already
/// there): what the subgraph captures from the scopes around it.
void freeNames(const onnx::GraphProto &graph, SmallVectorImpl<std::string> &out,
               llvm::StringSet<> &seen) {
  SmallVector<std::string> defined;
  definedNames(graph, defined);
  llvm::StringSet<> own;
  for (const std::string &n : defined)
    own.insert(n);
  auto use = [&](const std::string &n) {
    if (!n.empty() && !own.count(n) && seen.insert(n).second)
      out.push_back(n);
  };
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &in : node.input())
      use(in);
    for (const onnx::AttributeProto &a : node.attribute()) {
      SmallVector<std::string> nested;
      llvm::StringSet<> nestedSeen;
      if (a.has_g())
        freeNames(a.g(), nested, nestedSeen);
      for (const onnx::GraphProto &g : a.graphs())
        freeNames(g, nested, nestedSeen);
      for (const std::string &n : nested)
        use(n);
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    use(output.name());
}

/// Whether `graph` gives a sequence or an optional (its declared outputs).
bool givesList(const onnx::GraphProto &graph) {
  return llvm::any_of(graph.output(), [](const onnx::ValueInfoProto &out) {
    return out.type().has_sequence_type() || out.type().has_optional_type();
  });
}

/// Never called: If, Loop and Scan are imported by
/// Importer::importControlFlow; the entries make them known op types.
bool mapByImporter(Node &, SmallVectorImpl<Value> &, std::string &reason) {
  reason = "imported with its subgraphs (ControlFlow.cpp)";
  return false;
}

} // namespace

bool isControlFlow(llvm::StringRef opType) {
  return opType == "If" || opType == "Loop" || opType == "Scan";
}

void addControlFlowMappers(llvm::StringMap<MapFn> &table) {
  table["If"] = mapByImporter;
  table["Loop"] = mapByImporter;
  table["Scan"] = mapByImporter;
}

void Importer::specializeImportTimeInputs() {
  // Every node, the subgraphs' included, and the node producing each name.
  llvm::StringMap<const onnx::NodeProto *> producer;
  SmallVector<std::string> needed;
  std::function<void(const onnx::GraphProto &)> walk =
      [&](const onnx::GraphProto &g) {
        for (const onnx::NodeProto &proto : g.node()) {
          for (const std::string &out : proto.output())
            producer[out] = &proto;
          for (int i : importTimeInputs(opTypeOf(proto).first))
            if (i < proto.input_size() && !proto.input(i).empty())
              needed.push_back(proto.input(i));
          for (const onnx::AttributeProto &a : proto.attribute())
            if (a.has_g())
              walk(a.g());
        }
      };
  walk(model.graph());
  llvm::StringSet<> seen;
  while (!needed.empty()) {
    std::string n = needed.pop_back_val();
    if (!seen.insert(n).second || constants.count(n))
      continue;
    if (auto position = inputPositions.find(n);
        position != inputPositions.end()) {
      if (position->second >= options.inputValues.size() ||
          !options.inputValues[position->second])
        continue;
      DenseElementsAttr value =
          hostTensorAttr(*options.inputValues[position->second], context);
      if (value.getType() != types.lookup(n))
        continue;
      // The input becomes a constant wherever it is read.
      constants[n] = value;
      values.erase(n);
      specialized.insert(position->second);
      continue;
    }
    const onnx::NodeProto *node = producer.lookup(n);
    if (!node || node->op_type() == "Shape" || node->op_type() == "Size")
      continue;
    for (const std::string &in : node->input())
      if (!in.empty())
        needed.push_back(in);
  }
}

std::string Importer::importSubgraph(
    const onnx::GraphProto &graph,
    ArrayRef<std::pair<std::string, Value>> bindings,
    const std::string &scopeName, SmallVectorImpl<Value> &outputs,
    SmallVectorImpl<std::optional<DenseElementsAttr>> &outputConstants) {
  if (static_cast<size_t>(graph.input_size()) != bindings.size())
    return "its subgraph '" + graph.name() + "' has " +
           std::to_string(graph.input_size()) + " inputs, but " +
           std::to_string(bindings.size()) + " are given";
  // A previous iteration's values of the subgraph's names are forgotten.
  SmallVector<std::string> names;
  definedNames(graph, names);
  // A binding with no value but a name binds the sequence or optional of
  // that name (in `lists`: the caller keeps it there).
  SmallVector<std::optional<ListValue>> boundLists;
  for (const auto &binding : bindings) {
    boundLists.emplace_back();
    if (!binding.second)
      if (auto it = lists.find(binding.first); it != lists.end())
        boundLists.back() = it->second;
  }
  for (const std::string &n : names) {
    values.erase(n);
    constants.erase(n);
    types.erase(n);
    poisoned.erase(n);
    lists.erase(n);
  }
  for (auto [input, binding, list] :
       llvm::zip(graph.input(), bindings, boundLists)) {
    if (!binding.second) {
      if (!list)
        return "its subgraph's input '" + input.name() + "' is not given";
      lists[input.name()] = *list;
      continue;
    }
    values[input.name()] = binding.second;
    types[input.name()] = cast<RankedTensorType>(binding.second.getType());
    if (auto constant = binding.second.getDefiningOp<ConstantOp>())
      if (auto value = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constants[input.name()] = value;
  }
  for (const onnx::TensorProto &t : graph.initializer()) {
    gplace::StatusOr<DenseElementsAttr> value =
        tensorAttr(t, directory, context);
    if (!value)
      return value.status().message();
    constants[t.name()] = *value;
  }
  std::string outer = scope;
  scope = scopeName;
  for (const onnx::NodeProto &node : graph.node())
    importNode(node);
  scope = outer;
  outputs.clear();
  outputConstants.clear();
  for (const onnx::ValueInfoProto &output : graph.output()) {
    if (poisoned.count(output.name()))
      return "a node of its subgraph '" + graph.name() +
             "' could not be imported";
    std::optional<DenseElementsAttr> constant;
    if (auto it = constants.find(output.name()); it != constants.end())
      constant = it->second;
    // A sequence or optional: null here, the caller reads `lists`.
    if (lists.count(output.name())) {
      outputs.push_back(Value());
      outputConstants.push_back(std::nullopt);
      continue;
    }
    Value v = materialize(output.name());
    if (!v)
      return "its subgraph's output '" + output.name() +
             "' is produced by no node";
    outputs.push_back(v);
    outputConstants.push_back(constant);
  }
  return "";
}

/// The import of one If, Loop or Scan node (Importer::importControlFlow):
/// the node, the outputs it gives so far and the ops built for it, with
/// one member function per op and form. Those returning bool give false
/// once the node failed (fail() recorded why); those returning a string
/// give "" or why the node fails.
class ControlFlowImport {
public:
  ControlFlowImport(Importer &importer, const onnx::NodeProto &proto,
                    const std::string &name, const std::string &opType,
                    int64_t opset)
      : im(importer), b(importer.b), proto(proto), name(name), opType(opType),
        opset(opset),
        node{importer,
             proto,
             name,
             NameLoc::get(importer.b.getStringAttr(name), importer.fileLoc),
             opset,
             {}} {}

  /// Imports the node: its outputs become the importer's values or lists,
  /// or the node's failure is recorded (Importer::unsupported) and its
  /// outputs poisoned.
  void run();

private:
  /// What the regions of a run-time op (gplace.if, gplace.while) read from
  /// around them.
  struct Captures {
    SmallVector<std::string> names; ///< Passed as operands.
    SmallVector<Value> values;
    SmallVector<std::string> constantNames; ///< Materialized inside.
  };
  /// A Loop as importLoop reads it, shared by its unrolled and run-time
  /// forms.
  struct LoopForm {
    const onnx::GraphProto *body = nullptr;
    int64_t carried = 0, scans = 0;
    std::optional<int64_t> tripCount, condValue = 1;
    /// Whether the loop needs the run (gplace.while).
    bool runTime = false;
    /// The carried values: at first the loop's inputs, then each
    /// iteration's outputs (null for a sequence or optional).
    SmallVector<Value> state, initialState;
    /// The carried sequences and optionals: each one's name in `lists`
    /// ("" for a tensor).
    SmallVector<std::string> stateLists;
  };

  // Helpers shared by the ops.
  bool fail(std::string reason);
  std::optional<int64_t> constantInt(int i);
  void note(Value v);
  Value stack(ArrayRef<Value> steps, int64_t axis, bool reverse,
              const std::string &suffix);
  std::string iterationScope(int64_t t) const;
  SmallVector<std::string>
  capturedNames(ArrayRef<const onnx::GraphProto *> graphs) const;
  bool readsList(ArrayRef<std::string> free) const;
  Captures capture(ArrayRef<std::string> free);
  std::string importRegion(Region &region, const onnx::GraphProto *graph,
                           TypeRange argTypes, size_t capturedAt,
                           const Captures &c, const std::string &scopeName,
                           SmallVectorImpl<Value> &outs);
  Value scalarCondition(Value v, const std::string &suffix);
  std::string refusal(Operation *op, llvm::StringRef unverified);

  // The ops, each at import time and at run time.
  bool importIf();
  bool buildIf();
  bool importLoop();
  bool unrollLoop(LoopForm &loop,
                  SmallVectorImpl<SmallVector<Value>> &scanSteps);
  void takeBack(Block *block, Operation *last);
  std::string whileRefusal(const LoopForm &loop, ArrayRef<std::string> free);
  std::string buildWhile(const LoopForm &loop);
  std::string yieldWhileBody(const LoopForm &loop, Block &block,
                             ArrayRef<Value> outs, bool hasTripCount,
                             size_t tripsAt, size_t capturedAt,
                             size_t numCaptured);
  bool importScan();
  Value scanStep(Value v, int64_t axis, int64_t at, const std::string &suffix);
  bool finish();

  Importer &im;
  OpBuilder &b;
  const onnx::NodeProto &proto;
  const std::string &name, &opType;
  int64_t opset;
  Node node;
  /// The node's outputs, in order (null: not produced).
  SmallVector<Value> results;
  SmallVector<std::optional<DenseElementsAttr>> resultConstants;
  /// The outputs that are sequences or optionals (their `results` null).
  std::map<size_t, ListValue> resultLists;
  /// The ops built here (not by the subgraphs' nodes, which imported
  /// themselves): stacking the scan outputs.
  SmallVector<Operation *> built;
};

/// Records the node as unsupported for `reason` and poisons its outputs;
/// false, for `return fail(...)`.
bool ControlFlowImport::fail(std::string reason) {
  auto &entry = im.unsupported[{opType, std::move(reason)}];
  entry.first = opset;
  ++entry.second;
  for (const std::string &out : proto.output())
    im.poisoned.insert(out);
  return false;
}

/// Input `i` as one integer known at import time (a boolean as 0 or 1).
std::optional<int64_t> ControlFlowImport::constantInt(int i) {
  std::optional<DenseElementsAttr> c = node.constant(i);
  if (!c || c->getNumElements() != 1)
    return std::nullopt;
  if (c->getElementType().isInteger(1))
    return *c->getValues<bool>().begin() ? 1 : 0;
  if (!c->getElementType().isIntOrIndex())
    return std::nullopt;
  return toInts(*c)[0];
}

/// Adds the op defining `v`, if any, to `built`.
void ControlFlowImport::note(Value v) {
  if (Operation *op = v ? v.getDefiningOp() : nullptr)
    if (!llvm::is_contained(built, op))
      built.push_back(op);
}

/// `steps` (each of one shape) stacked along a new dimension `axis`,
/// reversed if `reverse`; null if their shapes differ.
Value ControlFlowImport::stack(ArrayRef<Value> steps, int64_t axis,
                               bool reverse, const std::string &suffix) {
  auto type = cast<RankedTensorType>(steps[0].getType());
  SmallVector<int64_t> one(type.getShape());
  one.insert(one.begin() + axis, 1);
  SmallVector<Value> parts;
  for (auto [t, step] : llvm::enumerate(steps)) {
    if (step.getType() != type)
      return {};
    Value part = node.reshape(step, one, suffix + "_" + std::to_string(t));
    note(part);
    parts.push_back(part);
  }
  if (reverse)
    std::reverse(parts.begin(), parts.end());
  if (parts.size() == 1)
    return parts[0];
  SmallVector<int64_t> shape(one);
  shape[axis] = static_cast<int64_t>(parts.size());
  Value v = b.create<ConcatOp>(
      node.loc, RankedTensorType::get(shape, type.getElementType()), parts,
      b.getI64IntegerAttr(axis), StringAttr(),
      b.getStringAttr(name + "/" + suffix), StringAttr(), ValueRange());
  note(v);
  return v;
}

/// The scope of iteration `t`'s ops. `name` holds the enclosing subgraphs'
/// scope already (importNode).
std::string ControlFlowImport::iterationScope(int64_t t) const {
  return name + "/iteration" + std::to_string(t) + "/";
}

/// What `graphs` read from the scopes around them, in order of first use.
SmallVector<std::string> ControlFlowImport::capturedNames(
    ArrayRef<const onnx::GraphProto *> graphs) const {
  SmallVector<std::string> free;
  llvm::StringSet<> seen;
  for (const onnx::GraphProto *graph : graphs)
    freeNames(*graph, free, seen);
  return free;
}

/// Whether one of `free` is a sequence or an optional.
bool ControlFlowImport::readsList(ArrayRef<std::string> free) const {
  return llvm::any_of(
      free, [&](const std::string &n) { return im.lists.count(n) != 0; });
}

// The run-time path (gplace.if, gplace.while). The regions are isolated
// from above: what the subgraphs read from around them (`free`) is an
// operand of the op, bound to a block argument, except a constant, which
// is materialized again inside (so that nodes there still see it known).
ControlFlowImport::Captures
ControlFlowImport::capture(ArrayRef<std::string> free) {
  Captures c;
  for (const std::string &n : free) {
    bool asVariable =
        im.options.initializersAsVariables && im.initializers.count(n);
    if (im.constants.count(n) && !asVariable) {
      c.constantNames.push_back(n);
      continue;
    }
    if (Value v = im.materialize(n)) {
      c.names.push_back(n);
      c.values.push_back(v);
    }
  }
  return c;
}

/// Imports `graph` into `region` (empty): one block of `argTypes`, the
/// graph's inputs bound to the first ones, the captured names to those
/// from `capturedAt`; `outs` its outputs, in the region. "" or why not.
std::string
ControlFlowImport::importRegion(Region &region, const onnx::GraphProto *graph,
                                TypeRange argTypes, size_t capturedAt,
                                const Captures &c, const std::string &scopeName,
                                SmallVectorImpl<Value> &outs) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locs(argTypes.size(), node.loc);
  Block *block = b.createBlock(&region, {}, argTypes, locs);
  // The names bound here, with what they were around the region.
  SmallVector<std::pair<std::string, Value>> savedValues;
  SmallVector<std::pair<std::string, DenseElementsAttr>> savedConstants;
  auto save = [&](const std::string &n) {
    savedValues.push_back({n, im.values.lookup(n)});
    if (auto it = im.constants.find(n); it != im.constants.end())
      savedConstants.push_back({n, it->second});
  };
  for (auto [k, n] : llvm::enumerate(c.names)) {
    save(n);
    im.values[n] = block->getArgument(capturedAt + k);
    im.constants.erase(n);
  }
  for (const std::string &n : c.constantNames) {
    save(n);
    im.values.erase(n);
  }
  std::string reason;
  if (graph) {
    SmallVector<std::pair<std::string, Value>> bindings;
    for (int i = 0; i < graph->input_size(); ++i)
      bindings.push_back({"", block->getArgument(i)});
    SmallVector<std::optional<DenseElementsAttr>> outConstants;
    reason = im.importSubgraph(*graph, bindings, scopeName, outs, outConstants);
    // The subgraph's own names are the region's: forgotten outside it.
    SmallVector<std::string> names;
    definedNames(*graph, names);
    for (const std::string &n : names) {
      im.values.erase(n);
      im.constants.erase(n);
    }
  }
  for (auto &[n, v] : savedValues) {
    if (v)
      im.values[n] = v;
    else
      im.values.erase(n);
  }
  for (auto &[n, v] : savedConstants)
    im.constants[n] = v;
  return reason;
}

/// One boolean as a scalar, or null.
Value ControlFlowImport::scalarCondition(Value v, const std::string &suffix) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.getElementType().isInteger(1) || type.getNumElements() != 1)
    return {};
  return node.reshape(v, {}, suffix);
}

/// Why an op built here is refused: it must verify (else its verifier's
/// first diagnostic, or `unverified` if it gives none) and pass the
/// caller's check (OnnxImportOptions::checkOp). "" if it does both.
std::string ControlFlowImport::refusal(Operation *op,
                                       llvm::StringRef unverified) {
  std::string reason;
  {
    ScopedDiagnosticHandler handler(im.context, [&](Diagnostic &diag) {
      if (reason.empty())
        reason = diag.str();
      return success();
    });
    if (failed(mlir::verify(op)) && reason.empty())
      reason = unverified.str();
  }
  if (reason.empty() && im.options.checkOp)
    reason = im.options.checkOp(op);
  return reason;
}

/// If with a condition known at import time: the taken branch's nodes
/// imported in the If's place (the other branch is not read).
bool ControlFlowImport::importIf() {
  std::optional<DenseElementsAttr> cond = node.constant(0);
  if (!cond || !cond->getElementType().isInteger(1) ||
      cond->getNumElements() != 1)
    return fail("the condition must be one boolean known at import time");
  bool taken = *cond->getValues<bool>().begin();
  const onnx::GraphProto *branch =
      subgraphAttr(proto, taken ? "then_branch" : "else_branch");
  if (!branch)
    return fail("no " + std::string(taken ? "then" : "else") + "_branch");
  std::string reason = im.importSubgraph(
      *branch, {}, name + "/" + (taken ? "then" : "else") + "/", results,
      resultConstants);
  if (!reason.empty())
    return fail(reason);
  for (auto [i, v] : llvm::enumerate(results))
    if (!v)
      resultLists[i] = im.lists.lookup(branch->output(i).name());
  return true;
}

/// If with a condition of the run: gplace.if, each branch a region; what
/// the branches read from around them its operands (capture).
bool ControlFlowImport::buildIf() {
  const onnx::GraphProto *thenGraph = subgraphAttr(proto, "then_branch");
  const onnx::GraphProto *elseGraph = subgraphAttr(proto, "else_branch");
  if (!thenGraph || !elseGraph)
    return fail("no then_branch or else_branch");
  Value condition = node.input(0);
  if (!condition)
    return fail("no condition");
  condition = scalarCondition(condition, "cond");
  if (!condition)
    return fail("the condition must be one boolean");
  SmallVector<std::string> free = capturedNames({thenGraph, elseGraph});
  // gplace.if carries tensors: sequences and optionals are import-time
  // lists (MapSequence.cpp).
  if (givesList(*thenGraph) || givesList(*elseGraph) || readsList(free))
    return fail("its branches give a sequence or an optional, which needs "
                "the condition known at import time");
  Captures c = capture(free);
  SmallVector<Type> argTypes = llvm::to_vector(ValueRange(c.values).getTypes());
  // Built without results first: they are what the branches yield.
  auto draft = b.create<IfOp>(node.loc, TypeRange{}, condition, c.values);
  SmallVector<Value> thenOuts, elseOuts;
  std::string reason = importRegion(draft.getThenRegion(), thenGraph, argTypes,
                                    0, c, name + "/then/", thenOuts);
  if (reason.empty())
    reason = importRegion(draft.getElseRegion(), elseGraph, argTypes, 0, c,
                          name + "/else/", elseOuts);
  if (reason.empty() && (llvm::is_contained(thenOuts, Value()) ||
                         llvm::is_contained(elseOuts, Value())))
    reason = "its branches give a sequence or an optional, which needs "
             "the condition known at import time";
  if (reason.empty() &&
      TypeRange(ValueRange(thenOuts)) != TypeRange(ValueRange(elseOuts)))
    reason = "its branches' outputs differ in type or shape";
  if (!reason.empty()) {
    draft.erase();
    return fail(reason);
  }
  for (auto [region, outs] : {std::pair<Region *, SmallVector<Value> *>{
                                  &draft.getThenRegion(), &thenOuts},
                              {&draft.getElseRegion(), &elseOuts}}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&region->front());
    b.create<YieldOp>(node.loc, *outs);
  }
  SmallVector<Type> resultTypes =
      llvm::to_vector(ValueRange(thenOuts).getTypes());
  IfOp ifOp;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(draft);
    ifOp = b.create<IfOp>(node.loc, resultTypes, condition, c.values);
  }
  ifOp.getThenRegion().takeBody(draft.getThenRegion());
  ifOp.getElseRegion().takeBody(draft.getElseRegion());
  ifOp.setNameAttr(b.getStringAttr(name));
  draft.erase();
  reason = refusal(ifOp, "the op it becomes does not verify");
  if (!reason.empty()) {
    ifOp.erase();
    return fail(reason);
  }
  for (Value v : ifOp.getResults()) {
    results.push_back(v);
    resultConstants.push_back(std::nullopt);
  }
  return true;
}

/// Loop: unrolled at import time (unrollLoop) while its trip count and
/// condition are known then and it ends within kMaxUnrolledIterations;
/// else, what was unrolled taken back, a gplace.while (buildWhile). Its
/// carried values' final values, then its scan outputs stacked, are the
/// node's outputs.
bool ControlFlowImport::importLoop() {
  LoopForm loop;
  loop.body = subgraphAttr(proto, "body");
  if (!loop.body)
    return fail("no body");
  // A loop that cannot unroll (a trip count or condition of the run, a
  // condition the body computes at run time, more iterations than
  // unroll) becomes gplace.while.
  if (node.hasInput(0) && !(loop.tripCount = constantInt(0)))
    loop.runTime = true;
  if (node.hasInput(1) && !(loop.condValue = constantInt(1)))
    loop.runTime = true;
  if (loop.tripCount && *loop.tripCount > kMaxUnrolledIterations)
    loop.runTime = true;
  if (!node.hasInput(0) && !node.hasInput(1))
    return fail("neither a trip count nor a condition: the loop never ends");
  loop.carried = proto.input_size() - 2;
  loop.scans = loop.body->output_size() - 1 - loop.carried;
  if (loop.carried < 0 || loop.scans < 0 ||
      loop.body->input_size() != 2 + loop.carried)
    return fail("the body's inputs and outputs do not match the loop's");
  // The carried sequences and optionals (their `state` null), under a
  // name of their own in `lists` for importSubgraph's bindings.
  loop.stateLists.resize(loop.carried);
  for (int64_t i = 0; i < loop.carried; ++i) {
    if (auto it = im.lists.find(proto.input(2 + i)); it != im.lists.end()) {
      loop.stateLists[i] = name + "/#carried" + std::to_string(i);
      im.lists[loop.stateLists[i]] = it->second;
      loop.state.push_back(Value());
      continue;
    }
    Value v = node.input(2 + i);
    if (!v)
      return fail("loop-carried input " + std::to_string(2 + i) +
                  " is omitted");
    loop.state.push_back(v);
  }
  loop.initialState = loop.state;
  // Unrolled, until the loop turns out to need the run: then what was
  // built is taken back.
  Block *block = b.getInsertionBlock();
  Operation *last = block->empty() ? nullptr : &block->back();
  SmallVector<SmallVector<Value>> scanSteps(loop.scans);
  if (!unrollLoop(loop, scanSteps))
    return false;
  if (loop.runTime) {
    takeBack(block, last);
    if (std::string reason = buildWhile(loop); !reason.empty())
      return fail(reason);
    return true;
  }
  for (auto [i, v] : llvm::enumerate(loop.state)) {
    if (!loop.stateLists[i].empty()) {
      resultLists[results.size()] = im.lists.lookup(loop.stateLists[i]);
      im.lists.erase(loop.stateLists[i]);
    }
    results.push_back(v);
    resultConstants.push_back(std::nullopt);
  }
  for (int64_t k = 0; k < loop.scans; ++k) {
    if (scanSteps[k].empty())
      return fail("no iteration runs, and its scan outputs' shapes are "
                  "not known");
    Value v = stack(scanSteps[k], 0, false, "scan_output" + std::to_string(k));
    if (!v)
      return fail("a scan output changes shape between iterations");
    results.push_back(v);
    resultConstants.push_back(std::nullopt);
  }
  return true;
}

/// Imports `loop`'s body once per iteration (its iteration number and
/// condition constants), its carried values threaded through `loop.state`
/// and its scan outputs' steps gathered in `scanSteps`, until the loop
/// ends, or turns out to need the run (`loop.runTime` set: its condition
/// is computed at run time, or it runs past kMaxUnrolledIterations).
bool ControlFlowImport::unrollLoop(
    LoopForm &loop, SmallVectorImpl<SmallVector<Value>> &scanSteps) {
  Type i1 = b.getI1Type(), i64 = b.getI64Type();
  const onnx::GraphProto &body = *loop.body;
  for (int64_t t = 0; !loop.runTime; ++t) {
    if ((loop.tripCount && t >= *loop.tripCount) || !*loop.condValue)
      break;
    if (t >= kMaxUnrolledIterations) {
      loop.runTime = true;
      break;
    }
    std::string s = "iteration" + std::to_string(t);
    SmallVector<std::pair<std::string, Value>> bindings;
    bindings.push_back({"", node.constant(DenseElementsAttr::get(
                                              RankedTensorType::get({}, i64),
                                              b.getI64IntegerAttr(t)),
                                          s + "/iteration_num")});
    bindings.push_back(
        {"", node.constant(
                 DenseElementsAttr::get(RankedTensorType::get({}, i1), true),
                 s + "/cond")});
    for (auto [v, key] : llvm::zip(loop.state, loop.stateLists))
      bindings.push_back({key, v});
    note(bindings[0].second);
    note(bindings[1].second);
    SmallVector<Value> outs;
    SmallVector<std::optional<DenseElementsAttr>> outConstants;
    std::string reason = im.importSubgraph(body, bindings, iterationScope(t),
                                           outs, outConstants);
    if (!reason.empty())
      return fail(reason);
    if (!outConstants[0] || outConstants[0]->getNumElements() != 1 ||
        !outConstants[0]->getElementType().isInteger(1)) {
      loop.runTime = true;
      break;
    }
    loop.condValue = *outConstants[0]->getValues<bool>().begin() ? 1 : 0;
    for (int64_t i = 0; i < loop.carried; ++i) {
      loop.state[i] = outs[1 + i];
      bool isList = !outs[1 + i];
      if (isList != !loop.stateLists[i].empty())
        return fail("loop-carried value " + std::to_string(i) +
                    " changes between a tensor and a sequence or optional");
      if (isList)
        im.lists[loop.stateLists[i]] =
            im.lists.lookup(body.output(1 + i).name());
    }
    for (int64_t k = 0; k < loop.scans; ++k) {
      if (!outs[1 + loop.carried + k])
        return fail("a scan output is a sequence or an optional");
      scanSteps[k].push_back(outs[1 + loop.carried + k]);
    }
  }
  return true;
}

/// Erases the ops created in `block` after `last` (null: all of them),
/// what the unrolled iterations built, and forgets the names bound to
/// their results.
void ControlFlowImport::takeBack(Block *block, Operation *last) {
  SmallVector<Operation *> created;
  for (Operation &op :
       last ? llvm::make_range(std::next(last->getIterator()), block->end())
            : llvm::make_range(block->begin(), block->end()))
    created.push_back(&op);
  llvm::SmallPtrSet<Operation *, 16> erased(created.begin(), created.end());
  SmallVector<std::string> stale;
  for (auto &entry : im.values)
    if (Operation *def = entry.second ? entry.second.getDefiningOp() : nullptr;
        def && erased.count(def))
      stale.push_back(entry.first().str());
  for (const std::string &n : stale)
    im.values.erase(n);
  for (Operation *op : llvm::reverse(created)) {
    op->dropAllUses();
    op->erase();
  }
  built.clear();
}

/// Why `loop` (its body reading `free`) has no run-time form: it carries
/// or reads a sequence or an optional, or has scan outputs; "" if it has.
std::string ControlFlowImport::whileRefusal(const LoopForm &loop,
                                            ArrayRef<std::string> free) {
  if (llvm::any_of(loop.stateLists,
                   [](const std::string &k) { return !k.empty(); }) ||
      givesList(*loop.body) || readsList(free))
    return "it carries or reads a sequence or an optional, which needs "
           "the loop "
           "unrolled at import time: its trip count and condition known "
           "then (a constant, a value folded or a given input), at most " +
           std::to_string(kMaxUnrolledIterations) + " iterations";
  if (loop.scans == 0)
    return "";
  // Said as an input the importer needs (Importer.cpp's wording), so that
  // a caller with the run's values (gplace-onnx-test, the Python backend's
  // `input_values`) imports again with them.
  bool runTimeTrips = node.hasInput(0) && !loop.tripCount;
  bool runTimeCond = node.hasInput(1) && !loop.condValue;
  bool both = runTimeTrips && runTimeCond;
  std::string inputs = both           ? "inputs 0 ('M') and 1 ('cond')"
                       : runTimeTrips ? "input 0 ('M')"
                       : runTimeCond  ? "input 1 ('cond')"
                                      : "";
  if (inputs.empty())
    return "scan outputs of a loop that does not unroll (their "
           "length would be known at run time only)";
  return inputs + (both ? " are" : " is") +
         " computed at run time; gplace needs " + (both ? "them" : "it") +
         " constant (a loop with scan outputs unrolls: their length "
         "would be known at run time only)";
}

/// The run-time loop, gplace.while: carried (iteration number, condition,
/// the loop's carried values, the trip count if any, the captured
/// values); its `cond` region is condition && iteration < trip count, its
/// `body` the ONNX body, the iteration number incremented
/// (yieldWhileBody).
std::string ControlFlowImport::buildWhile(const LoopForm &loop) {
  SmallVector<std::string> free = capturedNames({loop.body});
  if (std::string reason = whileRefusal(loop, free); !reason.empty())
    return reason;
  Type i1 = b.getI1Type(), i64 = b.getI64Type();
  auto scalarI1 = RankedTensorType::get({}, i1);
  auto scalarI64 = RankedTensorType::get({}, i64);
  Value iteration =
      node.constant(DenseElementsAttr::get(scalarI64, b.getI64IntegerAttr(0)),
                    "iteration_num");
  Value keepGoing;
  if (node.hasInput(1)) {
    Value v = node.input(1);
    keepGoing = v ? scalarCondition(v, "cond") : Value();
    if (!keepGoing)
      return "the condition must be one boolean";
  } else {
    keepGoing = node.constant(DenseElementsAttr::get(scalarI1, true), "cond");
  }
  Value maxTrips;
  if (node.hasInput(0)) {
    Value v = node.input(0);
    RankedTensorType type =
        v ? cast<RankedTensorType>(v.getType()) : RankedTensorType();
    if (!type || !type.getElementType().isInteger(64) ||
        type.getNumElements() != 1)
      return "the trip count must be one int64";
    maxTrips = node.reshape(v, {}, "trip_count");
  }
  Captures c = capture(free);
  SmallVector<Value> inputs{iteration, keepGoing};
  inputs.append(loop.initialState.begin(), loop.initialState.end());
  size_t tripsAt = inputs.size();
  if (maxTrips)
    inputs.push_back(maxTrips);
  size_t capturedAt = inputs.size();
  inputs.append(c.values.begin(), c.values.end());
  SmallVector<Type> carriedTypes =
      llvm::to_vector(ValueRange(inputs).getTypes());
  auto whileOp = b.create<WhileOp>(
      node.loc, carriedTypes, inputs, FlatSymbolRefAttr(), FlatSymbolRefAttr(),
      StringAttr(), b.getStringAttr(name), StringAttr(), ValueRange());
  {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Location> locs(carriedTypes.size(), node.loc);
    Block *block =
        b.createBlock(&whileOp.getCondRegion(), {}, carriedTypes, locs);
    Value go = block->getArgument(1);
    if (maxTrips) {
      SmallVector<Value> below{block->getArgument(tripsAt),
                               block->getArgument(0)};
      Value more = node.op<GreaterOp>(scalarI1, below, {}, "cond/less");
      SmallVector<Value> both{go, more};
      go = node.op<LogicalAndOp>(scalarI1, both, {}, "cond/and");
    }
    b.create<YieldOp>(node.loc, ValueRange{go});
  }
  SmallVector<Value> outs;
  std::string reason =
      importRegion(whileOp.getBodyRegion(), loop.body, carriedTypes, capturedAt,
                   c, name + "/body/", outs);
  if (reason.empty())
    reason = yieldWhileBody(loop, whileOp.getBodyRegion().front(), outs,
                            static_cast<bool>(maxTrips), tripsAt, capturedAt,
                            c.values.size());
  if (reason.empty())
    reason = refusal(whileOp, "the op it becomes does not verify");
  if (!reason.empty()) {
    whileOp.erase();
    return reason;
  }
  for (int64_t i = 0; i < loop.carried; ++i) {
    results.push_back(whileOp.getResult(2 + i));
    resultConstants.push_back(std::nullopt);
  }
  return "";
}

/// Ends gplace.while's body `block` (the ONNX body imported, `outs` its
/// outputs) with the yield of the next iteration number, the body's
/// condition, its carried values, then the trip count (if
/// `hasTripCount`, at `tripsAt`) and the `numCaptured` captured values
/// (from `capturedAt`) unchanged. "" or why not.
std::string ControlFlowImport::yieldWhileBody(
    const LoopForm &loop, Block &block, ArrayRef<Value> outs, bool hasTripCount,
    size_t tripsAt, size_t capturedAt, size_t numCaptured) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&block);
  auto scalarI64 = RankedTensorType::get({}, b.getI64Type());
  SmallVector<Value> next{
      block.getArgument(0),
      node.constant(DenseElementsAttr::get(scalarI64, b.getI64IntegerAttr(1)),
                    "body/one")};
  SmallVector<Value> yielded{
      node.op<AddOp>(scalarI64, next, {}, "body/next_iteration")};
  std::string reason;
  Value go = scalarCondition(outs[0], "body/cond");
  if (!go)
    reason = "the body's condition output must be one boolean";
  yielded.push_back(go);
  for (int64_t i = 0; i < loop.carried && reason.empty(); ++i) {
    if (outs[1 + i].getType() != loop.initialState[i].getType())
      reason = "loop-carried value " + std::to_string(i) +
               " changes type or shape in the body";
    yielded.push_back(outs[1 + i]);
  }
  if (hasTripCount)
    yielded.push_back(block.getArgument(tripsAt));
  for (size_t k = 0; k < numCaptured; ++k)
    yielded.push_back(block.getArgument(capturedAt + k));
  if (reason.empty())
    b.create<YieldOp>(node.loc, yielded);
  return reason;
}

/// Scan (opset 9 and above): the body imported once per slice of the scan
/// inputs along their scan axes (their static size), in the direction
/// each input names; its state threaded through, its scan outputs'
/// steps stacked along their axes, in their directions.
bool ControlFlowImport::importScan() {
  const onnx::GraphProto *body = subgraphAttr(proto, "body");
  if (!body)
    return fail("no body");
  int64_t numScanInputs = node.getInt("num_scan_inputs", 0);
  int64_t numState = proto.input_size() - numScanInputs;
  int64_t numScanOutputs = body->output_size() - numState;
  if (numScanInputs < 1 || numState < 0 || numScanOutputs < 0 ||
      body->input_size() != proto.input_size())
    return fail("the body's inputs and outputs do not match the scan's");
  auto attrOr = [&](llvm::StringRef attrName, int64_t count) {
    SmallVector<int64_t> v(count, 0);
    if (std::optional<SmallVector<int64_t>> given = node.getInts(attrName))
      v = *given;
    return v;
  };
  SmallVector<int64_t> inAxes = attrOr("scan_input_axes", numScanInputs),
                       inDirs = attrOr("scan_input_directions", numScanInputs),
                       outAxes = attrOr("scan_output_axes", numScanOutputs),
                       outDirs =
                           attrOr("scan_output_directions", numScanOutputs);
  if (static_cast<int64_t>(inAxes.size()) != numScanInputs ||
      static_cast<int64_t>(inDirs.size()) != numScanInputs ||
      static_cast<int64_t>(outAxes.size()) != numScanOutputs ||
      static_cast<int64_t>(outDirs.size()) != numScanOutputs)
    return fail("a scan axes or directions attribute has the wrong length");
  auto isDirection = [](int64_t d) { return d == 0 || d == 1; };
  if (!llvm::all_of(inDirs, isDirection) || !llvm::all_of(outDirs, isDirection))
    return fail("a scan direction other than 0 (forward) or 1 (reverse)");
  SmallVector<Value> state, scanIn;
  for (int64_t i = 0; i < proto.input_size(); ++i) {
    Value v = node.input(i);
    if (!v)
      return fail("input " + std::to_string(i) + " is omitted");
    (i < numState ? state : scanIn).push_back(v);
  }
  int64_t length = -1;
  for (auto [j, v] : llvm::enumerate(scanIn)) {
    auto type = cast<RankedTensorType>(v.getType());
    std::string reason;
    if (!normalizeAxis(inAxes[j], type.getRank(), reason))
      return fail("scan input " + std::to_string(j) + "'s " + reason);
    int64_t size = type.getDimSize(inAxes[j]);
    if (length >= 0 && size != length)
      return fail("the scan inputs' lengths differ");
    length = size;
  }
  if (length > kMaxUnrolledIterations)
    return fail("a length of " + std::to_string(length) + ", more than the " +
                std::to_string(kMaxUnrolledIterations) +
                " iterations gplace unrolls");
  if (length == 0 && numScanOutputs > 0)
    return fail("no iteration runs, and its scan outputs' shapes are not "
                "known");
  SmallVector<SmallVector<Value>> scanSteps(numScanOutputs);
  for (int64_t t = 0; t < length; ++t) {
    std::string s = "iteration" + std::to_string(t);
    SmallVector<std::pair<std::string, Value>> bindings;
    for (Value v : state)
      bindings.push_back({"", v});
    for (auto [j, v] : llvm::enumerate(scanIn))
      bindings.push_back(
          {"", scanStep(v, inAxes[j], inDirs[j] ? length - 1 - t : t,
                        s + "/scan_input" + std::to_string(j))});
    SmallVector<Value> outs;
    SmallVector<std::optional<DenseElementsAttr>> outConstants;
    std::string reason = im.importSubgraph(*body, bindings, iterationScope(t),
                                           outs, outConstants);
    if (!reason.empty())
      return fail(reason);
    for (int64_t i = 0; i < numState; ++i)
      state[i] = outs[i];
    for (int64_t k = 0; k < numScanOutputs; ++k)
      scanSteps[k].push_back(outs[numState + k]);
  }
  for (Value v : state) {
    results.push_back(v);
    resultConstants.push_back(std::nullopt);
  }
  for (int64_t k = 0; k < numScanOutputs; ++k) {
    auto type = cast<RankedTensorType>(scanSteps[k][0].getType());
    std::string reason;
    int64_t axis = outAxes[k];
    if (!normalizeAxis(axis, type.getRank() + 1, reason))
      return fail("scan output " + std::to_string(k) + "'s " + reason);
    Value v = stack(scanSteps[k], axis, outDirs[k] != 0,
                    "scan_output" + std::to_string(k));
    if (!v)
      return fail("a scan output changes shape between iterations");
    results.push_back(v);
    resultConstants.push_back(std::nullopt);
  }
  return true;
}

/// The slice at `at` of scan input `v` along `axis`, that axis dropped
/// (a slice, then a reshape, named `suffix` and `suffix`_step).
Value ControlFlowImport::scanStep(Value v, int64_t axis, int64_t at,
                                  const std::string &suffix) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> begin(type.getRank(), 0), size(type.getShape());
  begin[axis] = at;
  size[axis] = 1;
  Value slice =
      node.op<SliceOp>(RankedTensorType::get(size, type.getElementType()), v,
                       {node.named("begin", b.getDenseI64ArrayAttr(begin)),
                        node.named("size", b.getDenseI64ArrayAttr(size))},
                       suffix);
  note(slice);
  SmallVector<int64_t> squeezed(size);
  squeezed.erase(squeezed.begin() + axis);
  Value step = node.reshape(slice, squeezed, suffix + "_step");
  note(step);
  return step;
}

/// Checks the outputs the op gave (their count, the ops built here, the
/// static types ONNX's inference gave them), folds the ops built here,
/// and binds the node's outputs.
bool ControlFlowImport::finish() {
  if (static_cast<int>(results.size()) < proto.output_size())
    return fail("the subgraph gives " + std::to_string(results.size()) +
                " outputs, but the node has " +
                std::to_string(proto.output_size()));
  // The ops built here must verify and pass the caller's check.
  for (Operation *op : built)
    if (std::string reason = refusal(op, "an op it becomes does not verify");
        !reason.empty())
      return fail(reason);
  // A static type ONNX's inference gave an output must be what the
  // subgraph computes.
  for (auto [i, out] : llvm::enumerate(proto.output())) {
    if (out.empty() || resultLists.count(i))
      continue;
    if (!results[i])
      return fail("its subgraph's output " + std::to_string(i) +
                  " is not a tensor");
    if (auto it = im.types.find(out);
        it != im.types.end() && it->second != results[i].getType())
      return fail("gplace's result type differs from ONNX's for '" + out +
                  "'");
  }
  SmallVector<Operation *> foldable(built);
  im.foldCreated(foldable, results, proto);
  for (auto [i, out] : llvm::enumerate(proto.output())) {
    if (out.empty())
      continue;
    if (auto list = resultLists.find(i); list != resultLists.end()) {
      im.lists[out] = list->second;
      continue;
    }
    im.values[out] = results[i];
    if (resultConstants[i])
      im.constants[out] = *resultConstants[i];
  }
  return true;
}

void ControlFlowImport::run() {
  bool imported;
  if (opType == "If")
    imported = node.constant(0) ? importIf() : buildIf();
  else if (opType == "Loop")
    imported = importLoop();
  else
    imported = importScan();
  if (imported)
    finish();
}

void Importer::importControlFlow(const onnx::NodeProto &proto,
                                 const std::string &name,
                                 const std::string &opType, int64_t opset) {
  ControlFlowImport(*this, proto, name, opType, opset).run();
}

} // namespace gplace::frontend::onnx_import
