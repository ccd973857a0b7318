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

void Importer::specializeControlInputs() {
  // Every node, the subgraphs' included, and the node producing each name.
  llvm::StringMap<const onnx::NodeProto *> producer;
  SmallVector<std::string> needed;
  std::function<void(const onnx::GraphProto &)> walk =
      [&](const onnx::GraphProto &g) {
        for (const onnx::NodeProto &proto : g.node()) {
          for (const std::string &out : proto.output())
            producer[out] = &proto;
          std::string opType = opTypeOf(proto).first;
          if (isControlFlow(opType))
            for (int i : importTimeInputs(opType))
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
  for (const std::string &n : names) {
    values.erase(n);
    constants.erase(n);
    types.erase(n);
    poisoned.erase(n);
  }
  for (auto [input, binding] : llvm::zip(graph.input(), bindings)) {
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

  if (opType == "If") {
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
  } else if (opType == "Loop") {
    const onnx::GraphProto *body = subgraphAttr(proto, "body");
    if (!body)
      return fail("no body");
    std::optional<int64_t> tripCount;
    if (node.hasInput(0) && !(tripCount = constantInt(0)))
      return fail("the trip count must be one integer known at import time");
    std::optional<int64_t> condValue = 1;
    if (node.hasInput(1) && !(condValue = constantInt(1)))
      return fail("the condition must be one boolean known at import time");
    if (tripCount && *tripCount > kMaxUnrolledIterations)
      return fail("a trip count of " + std::to_string(*tripCount) +
                  ", more than the " + std::to_string(kMaxUnrolledIterations) +
                  " iterations gplace unrolls");
    if (!tripCount && !node.hasInput(1))
      return fail("neither a trip count nor a condition: the loop never ends");
    int64_t carried = proto.input_size() - 2;
    int64_t scans = body->output_size() - 1 - carried;
    if (carried < 0 || scans < 0 ||
        body->input_size() != 2 + carried)
      return fail("the body's inputs and outputs do not match the loop's");
    SmallVector<Value> state;
    for (int64_t i = 0; i < carried; ++i) {
      Value v = node.input(2 + i);
      if (!v)
        return fail("loop-carried input " + std::to_string(2 + i) +
                    " is omitted");
      state.push_back(v);
    }
    SmallVector<SmallVector<Value>> scanSteps(scans);
    Type i1 = b.getI1Type(), i64 = b.getI64Type();
    for (int64_t t = 0;; ++t) {
      if ((tripCount && t >= *tripCount) || !*condValue)
        break;
      if (t >= kMaxUnrolledIterations)
        return fail("more than the " + std::to_string(kMaxUnrolledIterations) +
                    " iterations gplace unrolls before the condition turns "
                    "false");
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
      for (Value v : state)
        bindings.push_back({"", v});
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
          !outConstants[0]->getElementType().isInteger(1))
        return fail("the body's condition is computed at run time");
      condValue = *outConstants[0]->getValues<bool>().begin() ? 1 : 0;
      for (int64_t i = 0; i < carried; ++i)
        state[i] = outs[1 + i];
      for (int64_t k = 0; k < scans; ++k)
        scanSteps[k].push_back(outs[1 + carried + k]);
    }
    for (Value v : state) {
      results.push_back(v);
      resultConstants.push_back(std::nullopt);
    }
    for (int64_t k = 0; k < scans; ++k) {
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
    if (out.empty())
      continue;
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
    values[out] = results[i];
    if (resultConstants[i])
      constants[out] = *resultConstants[i];
  }
}

} // namespace gplace::frontend::onnx_import
