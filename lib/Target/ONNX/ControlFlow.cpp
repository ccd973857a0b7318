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
// - Scan (opset 9 and above; checkNodes refuses opset 8's): the body is
//   imported once per slice of the scan inputs along their scan axes
//   (their static size), in the direction each input and output names.
// At most kMaxUnrolledIterations iterations unroll; a longer loop is an
// unsupported form, as is any of the above computed at run time.
// Sequences and optionals (MapSequence.cpp) are import-time lists: a Loop
// carrying one unrolls (its carried list threaded through the iterations),
// an If giving one takes its branch at import time; neither has a run-time
// form (gplace.if and gplace.while carry tensors).
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

void Importer::importControlFlow(const onnx::NodeProto &proto,
                                 const std::string &name,
                                 const std::string &opType, int64_t opset) {
  auto fail = [&](std::string reason) {
    auto &entry = unsupported[{opType, std::move(reason)}];
    entry.first = opset;
    ++entry.second;
    for (const std::string &out : proto.output())
      poisoned.insert(out);
  };
  Node node{*this, proto, name, NameLoc::get(b.getStringAttr(name), fileLoc),
            opset, {}};
  // The node's outputs, in order (null: not produced).
  SmallVector<Value> results;
  SmallVector<std::optional<DenseElementsAttr>> resultConstants;
  // The outputs that are sequences or optionals (their `results` null).
  std::map<size_t, ListValue> resultLists;
  auto constantInt = [&](int i) -> std::optional<int64_t> {
    std::optional<DenseElementsAttr> c = node.constant(i);
    if (!c || c->getNumElements() != 1)
      return std::nullopt;
    if (c->getElementType().isInteger(1))
      return *c->getValues<bool>().begin() ? 1 : 0;
    if (!c->getElementType().isIntOrIndex())
      return std::nullopt;
    return toInts(*c)[0];
  };
  // The ops built here (not by the subgraphs' nodes, which imported
  // themselves): stacking the scan outputs.
  SmallVector<Operation *> built;
  auto note = [&](Value v) {
    if (Operation *op = v ? v.getDefiningOp() : nullptr)
      if (!llvm::is_contained(built, op))
        built.push_back(op);
  };
  // `steps` (each of one shape) stacked along a new dimension `axis`,
  // reversed if `reverse`.
  auto stack = [&](ArrayRef<Value> steps, int64_t axis, bool reverse,
                   const std::string &suffix) -> Value {
    auto type = cast<RankedTensorType>(steps[0].getType());
    SmallVector<int64_t> one(type.getShape());
    one.insert(one.begin() + axis, 1);
    SmallVector<Value> parts;
    for (auto [t, step] : llvm::enumerate(steps)) {
      if (step.getType() != type)
        return {};
      Value part =
          node.reshape(step, one, suffix + "_" + std::to_string(t));
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
  };
  // `name` holds the enclosing subgraphs' scope already (importNode).
  auto iterationScope = [&](int64_t t) {
    return name + "/iteration" + std::to_string(t) + "/";
  };

  // The run-time path (gplace.if, gplace.while). The regions are isolated
  // from above: what the subgraphs read from around them (`free`) is an
  // operand of the op, bound to a block argument, except a constant, which
  // is materialized again inside (so that nodes there still see it known).
  struct Captures {
    SmallVector<std::string> names; ///< Passed as operands.
    SmallVector<Value> values;
    SmallVector<std::string> constantNames; ///< Materialized inside.
  };
  auto capture = [&](ArrayRef<std::string> free) {
    Captures c;
    for (const std::string &n : free) {
      bool asVariable = options.initializersAsVariables &&
                        initializers.count(n);
      if (constants.count(n) && !asVariable) {
        c.constantNames.push_back(n);
        continue;
      }
      if (Value v = materialize(n)) {
        c.names.push_back(n);
        c.values.push_back(v);
      }
    }
    return c;
  };
  // Imports `graph` into `region` (empty): one block of `argTypes`, the
  // graph's inputs bound to the first ones, the captured names to those
  // from `capturedAt`; `outs` its outputs, in the region. "" or why not.
  auto importRegion = [&](Region &region, const onnx::GraphProto *graph,
                          TypeRange argTypes, size_t capturedAt,
                          const Captures &c, const std::string &scopeName,
                          SmallVectorImpl<Value> &outs) -> std::string {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Location> locs(argTypes.size(), node.loc);
    Block *block = b.createBlock(&region, {}, argTypes, locs);
    // The names bound here, with what they were around the region.
    SmallVector<std::pair<std::string, Value>> savedValues;
    SmallVector<std::pair<std::string, DenseElementsAttr>> savedConstants;
    auto save = [&](const std::string &n) {
      savedValues.push_back({n, values.lookup(n)});
      if (auto it = constants.find(n); it != constants.end())
        savedConstants.push_back({n, it->second});
    };
    for (auto [k, n] : llvm::enumerate(c.names)) {
      save(n);
      values[n] = block->getArgument(capturedAt + k);
      constants.erase(n);
    }
    for (const std::string &n : c.constantNames) {
      save(n);
      values.erase(n);
    }
    std::string reason;
    if (graph) {
      SmallVector<std::pair<std::string, Value>> bindings;
      for (int i = 0; i < graph->input_size(); ++i)
        bindings.push_back({"", block->getArgument(i)});
      SmallVector<std::optional<DenseElementsAttr>> outConstants;
      reason = importSubgraph(*graph, bindings, scopeName, outs, outConstants);
      // The subgraph's own names are the region's: forgotten outside it.
      SmallVector<std::string> names;
      definedNames(*graph, names);
      for (const std::string &n : names) {
        values.erase(n);
        constants.erase(n);
      }
    }
    for (auto &[n, v] : savedValues) {
      if (v)
        values[n] = v;
      else
        values.erase(n);
    }
    for (auto &[n, v] : savedConstants)
      constants[n] = v;
    return reason;
  };
  // One boolean as a scalar, or null.
  auto scalarCondition = [&](Value v, const std::string &suffix) -> Value {
    auto type = cast<RankedTensorType>(v.getType());
    if (!type.getElementType().isInteger(1) || type.getNumElements() != 1)
      return {};
    return node.reshape(v, {}, suffix);
  };
  // Checks and adds the control-flow op: it must verify and pass the
  // caller's check (its regions' nodes did already).
  auto checkBuilt = [&](Operation *op) -> std::string {
    std::string reason;
    {
      ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
        if (reason.empty())
          reason = diag.str();
        return success();
      });
      if (failed(mlir::verify(op)) && reason.empty())
        reason = "the op it becomes does not verify";
    }
    if (reason.empty() && options.checkOp)
      reason = options.checkOp(op);
    return reason;
  };

  if (opType == "If" && !node.constant(0)) {
    // A condition of the run: gplace.if, each branch a region.
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
    SmallVector<std::string> free;
    llvm::StringSet<> seen;
    freeNames(*thenGraph, free, seen);
    freeNames(*elseGraph, free, seen);
    // gplace.if carries tensors: sequences and optionals are import-time
    // lists (MapSequence.cpp).
    if (givesList(*thenGraph) || givesList(*elseGraph) ||
        llvm::any_of(free, [&](const std::string &n) {
          return lists.count(n) != 0;
        }))
      return fail("its branches give a sequence or an optional, which needs "
                  "the condition known at import time");
    Captures c = capture(free);
    SmallVector<Type> argTypes = llvm::to_vector(ValueRange(c.values).getTypes());
    // Built without results first: they are what the branches yield.
    auto draft = b.create<IfOp>(node.loc, TypeRange{}, condition, c.values);
    SmallVector<Value> thenOuts, elseOuts;
    std::string reason = importRegion(draft.getThenRegion(), thenGraph,
                                      argTypes, 0, c, name + "/then/",
                                      thenOuts);
    if (reason.empty())
      reason = importRegion(draft.getElseRegion(), elseGraph, argTypes, 0, c,
                            name + "/else/", elseOuts);
    if (reason.empty() &&
        (llvm::is_contained(thenOuts, Value()) ||
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
    SmallVector<Type> resultTypes = llvm::to_vector(ValueRange(thenOuts).getTypes());
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
    reason = checkBuilt(ifOp);
    if (!reason.empty()) {
      ifOp.erase();
      return fail(reason);
    }
    for (Value v : ifOp.getResults()) {
      results.push_back(v);
      resultConstants.push_back(std::nullopt);
    }
  } else if (opType == "If") {
    std::optional<DenseElementsAttr> cond = node.constant(0);
    if (!cond || !cond->getElementType().isInteger(1) ||
        cond->getNumElements() != 1)
      return fail("the condition must be one boolean known at import time");
    bool taken = *cond->getValues<bool>().begin();
    const onnx::GraphProto *branch =
        subgraphAttr(proto, taken ? "then_branch" : "else_branch");
    if (!branch)
      return fail("no " + std::string(taken ? "then" : "else") + "_branch");
    std::string reason =
        importSubgraph(*branch, {}, name + "/" +
                                        (taken ? "then" : "else") + "/",
                       results, resultConstants);
    if (!reason.empty())
      return fail(reason);
    for (auto [i, v] : llvm::enumerate(results))
      if (!v)
        resultLists[i] = lists.lookup(branch->output(i).name());
  } else if (opType == "Loop") {
    const onnx::GraphProto *body = subgraphAttr(proto, "body");
    if (!body)
      return fail("no body");
    // A loop that cannot unroll (a trip count or condition of the run, a
    // condition the body computes at run time, more iterations than
    // unroll) becomes gplace.while.
    bool runTime = false;
    std::optional<int64_t> tripCount;
    if (node.hasInput(0) && !(tripCount = constantInt(0)))
      runTime = true;
    std::optional<int64_t> condValue = 1;
    if (node.hasInput(1) && !(condValue = constantInt(1)))
      runTime = true;
    if (tripCount && *tripCount > kMaxUnrolledIterations)
      runTime = true;
    if (!node.hasInput(0) && !node.hasInput(1))
      return fail("neither a trip count nor a condition: the loop never ends");
    int64_t carried = proto.input_size() - 2;
    int64_t scans = body->output_size() - 1 - carried;
    if (carried < 0 || scans < 0 ||
        body->input_size() != 2 + carried)
      return fail("the body's inputs and outputs do not match the loop's");
    SmallVector<Value> state;
    // The carried sequences and optionals (their `state` null), under a
    // name of their own in `lists` for importSubgraph's bindings.
    SmallVector<std::string> stateLists(carried);
    auto stateKey = [&](int64_t i) {
      return name + "/#carried" + std::to_string(i);
    };
    for (int64_t i = 0; i < carried; ++i) {
      if (auto it = lists.find(proto.input(2 + i)); it != lists.end()) {
        stateLists[i] = stateKey(i);
        lists[stateLists[i]] = it->second;
        state.push_back(Value());
        continue;
      }
      Value v = node.input(2 + i);
      if (!v)
        return fail("loop-carried input " + std::to_string(2 + i) +
                    " is omitted");
      state.push_back(v);
    }
    SmallVector<Value> initialState(state);
    Type i1 = b.getI1Type(), i64 = b.getI64Type();
    auto scalarI1 = RankedTensorType::get({}, i1);
    auto scalarI64 = RankedTensorType::get({}, i64);
    // The run-time loop: carried (iteration number, condition, the loop's
    // carried values, the trip count if any, the captured values); `cond`
    // is condition && iteration < trip count; `body` the ONNX body, the
    // iteration number incremented.
    auto runTimeLoop = [&]() -> std::string {
      SmallVector<std::string> bodyFree;
      llvm::StringSet<> bodySeen;
      freeNames(*body, bodyFree, bodySeen);
      if (llvm::any_of(stateLists,
                       [](const std::string &k) { return !k.empty(); }) ||
          givesList(*body) ||
          llvm::any_of(bodyFree, [&](const std::string &n) {
            return lists.count(n) != 0;
          }))
        return "it carries or reads a sequence or an optional, which needs "
               "the loop "
               "unrolled at import time: its trip count and condition known "
               "then (a constant, a value folded or a given input), at most " +
               std::to_string(kMaxUnrolledIterations) + " iterations";
      if (scans > 0) {
        // Said as an input the importer needs (Importer.cpp's wording), so
        // that a caller with the run's values (gplace-onnx-test, the
        // Python backend's `input_values`) imports again with them.
        bool runTimeTrips = node.hasInput(0) && !tripCount;
        bool runTimeCond = node.hasInput(1) && !condValue;
        bool both = runTimeTrips && runTimeCond;
        std::string inputs =
            both ? "inputs 0 ('M') and 1 ('cond')"
                 : runTimeTrips ? "input 0 ('M')"
                                : runTimeCond ? "input 1 ('cond')" : "";
        if (inputs.empty())
          return "scan outputs of a loop that does not unroll (their "
                 "length would be known at run time only)";
        return inputs + (both ? " are" : " is") +
               " computed at run time; gplace needs " +
               (both ? "them" : "it") +
               " constant (a loop with scan outputs unrolls: their length "
               "would be known at run time only)";
      }
      Value iteration = node.constant(
          DenseElementsAttr::get(scalarI64, b.getI64IntegerAttr(0)),
          "iteration_num");
      Value keepGoing;
      if (node.hasInput(1)) {
        Value v = node.input(1);
        keepGoing = v ? scalarCondition(v, "cond") : Value();
        if (!keepGoing)
          return "the condition must be one boolean";
      } else {
        keepGoing = node.constant(DenseElementsAttr::get(scalarI1, true),
                                  "cond");
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
      SmallVector<std::string> free;
      llvm::StringSet<> seen;
      freeNames(*body, free, seen);
      Captures c = capture(free);
      SmallVector<Value> inputs{iteration, keepGoing};
      inputs.append(initialState.begin(), initialState.end());
      size_t tripsAt = inputs.size();
      if (maxTrips)
        inputs.push_back(maxTrips);
      size_t capturedAt = inputs.size();
      inputs.append(c.values.begin(), c.values.end());
      SmallVector<Type> carriedTypes =
          llvm::to_vector(ValueRange(inputs).getTypes());
      auto loop = b.create<WhileOp>(
          node.loc, carriedTypes, inputs, FlatSymbolRefAttr(),
          FlatSymbolRefAttr(), StringAttr(), b.getStringAttr(name),
          StringAttr(), ValueRange());
      {
        OpBuilder::InsertionGuard guard(b);
        SmallVector<Location> locs(carriedTypes.size(), node.loc);
        Block *block =
            b.createBlock(&loop.getCondRegion(), {}, carriedTypes, locs);
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
          importRegion(loop.getBodyRegion(), body, carriedTypes, capturedAt, c,
                       name + "/body/", outs);
      if (reason.empty()) {
        OpBuilder::InsertionGuard guard(b);
        Block &block = loop.getBodyRegion().front();
        b.setInsertionPointToEnd(&block);
        SmallVector<Value> next{
            block.getArgument(0),
            node.constant(
                DenseElementsAttr::get(scalarI64, b.getI64IntegerAttr(1)),
                "body/one")};
        SmallVector<Value> yielded{
            node.op<AddOp>(scalarI64, next, {}, "body/next_iteration")};
        Value go = scalarCondition(outs[0], "body/cond");
        if (!go)
          reason = "the body's condition output must be one boolean";
        yielded.push_back(go);
        for (int64_t i = 0; i < carried && reason.empty(); ++i) {
          if (outs[1 + i].getType() != initialState[i].getType())
            reason = "loop-carried value " + std::to_string(i) +
                     " changes type or shape in the body";
          yielded.push_back(outs[1 + i]);
        }
        if (maxTrips)
          yielded.push_back(block.getArgument(tripsAt));
        for (size_t k = 0; k < c.values.size(); ++k)
          yielded.push_back(block.getArgument(capturedAt + k));
        if (reason.empty())
          b.create<YieldOp>(node.loc, yielded);
      }
      if (reason.empty())
        reason = checkBuilt(loop);
      if (!reason.empty()) {
        loop.erase();
        return reason;
      }
      for (int64_t i = 0; i < carried; ++i) {
        results.push_back(loop.getResult(2 + i));
        resultConstants.push_back(std::nullopt);
      }
      return "";
    };
    // Unrolled, until the loop turns out to need the run: then what was
    // built is taken back.
    Block *block = b.getInsertionBlock();
    Operation *last = block->empty() ? nullptr : &block->back();
    auto takeBack = [&] {
      SmallVector<Operation *> created;
      for (Operation &op :
           last ? llvm::make_range(std::next(last->getIterator()), block->end())
                : llvm::make_range(block->begin(), block->end()))
        created.push_back(&op);
      llvm::SmallPtrSet<Operation *, 16> erased(created.begin(),
                                                created.end());
      SmallVector<std::string> stale;
      for (auto &entry : values)
        if (Operation *def = entry.second ? entry.second.getDefiningOp()
                                          : nullptr;
            def && erased.count(def))
          stale.push_back(entry.first().str());
      for (const std::string &n : stale)
        values.erase(n);
      for (Operation *op : llvm::reverse(created)) {
        op->dropAllUses();
        op->erase();
      }
      built.clear();
    };
    SmallVector<SmallVector<Value>> scanSteps(scans);
    for (int64_t t = 0; !runTime; ++t) {
      if ((tripCount && t >= *tripCount) || !*condValue)
        break;
      if (t >= kMaxUnrolledIterations) {
        runTime = true;
        break;
      }
      std::string s = "iteration" + std::to_string(t);
      SmallVector<std::pair<std::string, Value>> bindings;
      bindings.push_back(
          {"", node.constant(DenseElementsAttr::get(
                                 RankedTensorType::get({}, i64),
                                 b.getI64IntegerAttr(t)),
                             s + "/iteration_num")});
      bindings.push_back(
          {"", node.constant(DenseElementsAttr::get(
                                 RankedTensorType::get({}, i1), true),
                             s + "/cond")});
      for (auto [v, key] : llvm::zip(state, stateLists))
        bindings.push_back({key, v});
      note(bindings[0].second);
      note(bindings[1].second);
      SmallVector<Value> outs;
      SmallVector<std::optional<DenseElementsAttr>> outConstants;
      std::string reason =
          importSubgraph(*body, bindings, iterationScope(t), outs,
                         outConstants);
      if (!reason.empty())
        return fail(reason);
      if (!outConstants[0] || outConstants[0]->getNumElements() != 1 ||
          !outConstants[0]->getElementType().isInteger(1)) {
        runTime = true;
        break;
      }
      condValue = *outConstants[0]->getValues<bool>().begin() ? 1 : 0;
      for (int64_t i = 0; i < carried; ++i) {
        state[i] = outs[1 + i];
        bool isList = !outs[1 + i];
        if (isList != !stateLists[i].empty())
          return fail("loop-carried value " + std::to_string(i) +
                      " changes between a tensor and a sequence or optional");
        if (isList)
          lists[stateLists[i]] = lists.lookup(body->output(1 + i).name());
      }
      for (int64_t k = 0; k < scans; ++k) {
        if (!outs[1 + carried + k])
          return fail("a scan output is a sequence or an optional");
        scanSteps[k].push_back(outs[1 + carried + k]);
      }
    }
    if (runTime) {
      takeBack();
      if (std::string reason = runTimeLoop(); !reason.empty())
        return fail(reason);
    }
    for (auto [i, v] : llvm::enumerate(state)) {
      if (runTime)
        break;
      if (!stateLists[i].empty()) {
        resultLists[results.size()] = lists.lookup(stateLists[i]);
        lists.erase(stateLists[i]);
      }
      results.push_back(v);
      resultConstants.push_back(std::nullopt);
    }
    for (int64_t k = 0; k < scans && !runTime; ++k) {
      if (scanSteps[k].empty())
        return fail("no iteration runs, and its scan outputs' shapes are "
                    "not known");
      Value v = stack(scanSteps[k], 0, false,
                      "scan_output" + std::to_string(k));
      if (!v)
        return fail("a scan output changes shape between iterations");
      results.push_back(v);
      resultConstants.push_back(std::nullopt);
    }
  } else { // Scan
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
      return fail("a length of " + std::to_string(length) +
                  ", more than the " + std::to_string(kMaxUnrolledIterations) +
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
      for (auto [j, v] : llvm::enumerate(scanIn)) {
        auto type = cast<RankedTensorType>(v.getType());
        int64_t at = inDirs[j] ? length - 1 - t : t;
        SmallVector<int64_t> begin(type.getRank(), 0),
            size(type.getShape());
        begin[inAxes[j]] = at;
        size[inAxes[j]] = 1;
        std::string suffix = s + "/scan_input" + std::to_string(j);
        Value slice = node.op<SliceOp>(
            RankedTensorType::get(size, type.getElementType()), v,
            {node.named("begin", b.getDenseI64ArrayAttr(begin)),
             node.named("size", b.getDenseI64ArrayAttr(size))},
            suffix);
        note(slice);
        SmallVector<int64_t> squeezed(size);
        squeezed.erase(squeezed.begin() + inAxes[j]);
        Value step = node.reshape(slice, squeezed, suffix + "_step");
        note(step);
        bindings.push_back({"", step});
      }
      SmallVector<Value> outs;
      SmallVector<std::optional<DenseElementsAttr>> outConstants;
      std::string reason = importSubgraph(*body, bindings, iterationScope(t),
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
  }

  if (static_cast<int>(results.size()) < proto.output_size())
    return fail("the subgraph gives " + std::to_string(results.size()) +
                " outputs, but the node has " +
                std::to_string(proto.output_size()));
  // The ops built here must verify and pass the caller's check.
  for (Operation *op : built) {
    std::optional<std::string> reason;
    {
      ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
        if (!reason)
          reason = diag.str();
        return success();
      });
      if (failed(mlir::verify(op)) && !reason)
        reason = "an op it becomes does not verify";
    }
    if (!reason && options.checkOp) {
      std::string check = options.checkOp(op);
      if (!check.empty())
        reason = check;
    }
    if (reason)
      return fail(*reason);
  }
  // A static type ONNX's inference gave an output must be what the
  // subgraph computes.
  for (auto [i, out] : llvm::enumerate(proto.output())) {
    if (out.empty() || resultLists.count(i))
      continue;
    if (!results[i])
      return fail("its subgraph's output " + std::to_string(i) +
                  " is not a tensor");
    if (auto it = types.find(out);
        it != types.end() && it->second != results[i].getType())
      return fail("gplace's result type differs from ONNX's for '" + out +
                  "'");
  }
  SmallVector<Operation *> foldable(built);
  foldCreated(foldable, results, proto);
  for (auto [i, out] : llvm::enumerate(proto.output())) {
    if (out.empty())
      continue;
    if (auto list = resultLists.find(i); list != resultLists.end()) {
      lists[out] = list->second;
      continue;
    }
    values[out] = results[i];
    if (resultConstants[i])
      constants[out] = *resultConstants[i];
  }
}

} // namespace gplace::frontend::onnx_import
