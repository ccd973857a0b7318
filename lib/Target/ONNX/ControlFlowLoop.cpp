//===- ControlFlowLoop.cpp - Loop and Scan at import time
//------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h; ControlFlow.cpp says how
// Loop and Scan are imported (unrolled, or Loop as gplace.while). The
// members of ControlFlowImport (ControlFlowImport.h) for them.
//
//===----------------------------------------------------------------------===//

#include "ControlFlowImport.h"

namespace gplace::frontend::onnx_import {

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

} // namespace gplace::frontend::onnx_import
