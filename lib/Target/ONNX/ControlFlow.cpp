//===- ControlFlow.cpp - If, Loop and Scan at import time
//-------------------===//
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
// ControlFlowImport (ControlFlowImport.h) imports one node: a member
// function per op and form; If's here, Loop's and Scan's in
// ControlFlowLoop.cpp.
//
//===----------------------------------------------------------------------===//

#include "ControlFlowImport.h"

namespace gplace::frontend::onnx_import {

const onnx::GraphProto *subgraphAttr(const onnx::NodeProto &proto,
                                     llvm::StringRef attrName) {
  for (const onnx::AttributeProto &a : proto.attribute())
    if (a.name() == attrName && a.has_g())
      return &a.g();
  return nullptr;
}

/// Whether `graph` gives a sequence or an optional (its declared outputs).
bool givesList(const onnx::GraphProto &graph) {
  return llvm::any_of(graph.output(), [](const onnx::ValueInfoProto &out) {
    return out.type().has_sequence_type() || out.type().has_optional_type();
  });
}

namespace {

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
