//===- Importer.cpp - ONNX models to gplace graphs --------------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include "gplace/Support/KernelRegistry.h"

namespace gplace::frontend::onnx_import {

Builder &Node::builder() { return importer.b; }

NamedAttribute Node::named(llvm::StringRef attrName, Attribute value) {
  return importer.b.getNamedAttr(attrName, value);
}

Value Node::input(int i) {
  if (!hasInput(i))
    return {};
  return importer.materialize(proto.input(i));
}

RankedTensorType Node::inputType(int i) {
  if (!hasInput(i))
    return {};
  if (Value v = importer.values.lookup(proto.input(i)))
    return cast<RankedTensorType>(v.getType());
  if (auto c = importer.constants.find(proto.input(i));
      c != importer.constants.end())
    return cast<RankedTensorType>(c->second.getType());
  return importer.types.lookup(proto.input(i));
}

std::optional<DenseElementsAttr> Node::constant(int i) {
  if (!hasInput(i))
    return std::nullopt;
  auto it = importer.constants.find(proto.input(i));
  if (it == importer.constants.end())
    return std::nullopt;
  return it->second;
}


Value Node::constant(DenseElementsAttr value, llvm::StringRef suffix) {
  return op<ConstantOp>(value.getType(), {}, {named("value", value)}, suffix);
}

Value Node::scalar(Type like, double value, llvm::StringRef suffix) {
  Type element = getElementTypeOrSelf(like);
  auto type = RankedTensorType::get({}, element);
  Attribute v = isa<FloatType>(element)
                    ? Attribute(importer.b.getFloatAttr(element, value))
                    : Attribute(importer.b.getIntegerAttr(
                          element, static_cast<int64_t>(value)));
  return constant(DenseElementsAttr::get(type, v), suffix);
}

Value Node::reshape(Value v, ArrayRef<int64_t> shape, llvm::StringRef suffix) {
  auto type = RankedTensorType::get(shape, getElementTypeOrSelf(v.getType()));
  if (type == v.getType())
    return v;
  return op<ReshapeOp>(type, v, {}, suffix);
}

Value Node::checkRange(Value v, int64_t low, int64_t high,
                       llvm::StringRef suffix) {
  return op<CheckRangeOp>(v.getType(), v,
                          {named("low", importer.b.getI64IntegerAttr(low)),
                           named("high", importer.b.getI64IntegerAttr(high))},
                          suffix);
}

Value Node::transpose(Value v, ArrayRef<int64_t> perm,
                      llvm::StringRef suffix) {
  return op<TransposeOp>(
      Type(), v, {named("perm", importer.b.getDenseI64ArrayAttr(perm))},
      suffix);
}

RankedTensorType Node::broadcastType(Value a, Value b) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  std::optional<std::vector<int64_t>> shape =
      broadcastShapes(ta.getShape(), tb.getShape());
  if (!shape)
    return {};
  return RankedTensorType::get(*shape, ta.getElementType());
}

Value Node::minimum(Value a, Value b, RankedTensorType type,
                    llvm::StringRef suffix) {
  std::string s = suffix.str();
  Value na = op<NegOp>(a.getType(), a, {}, s + "neg_a");
  Value nb = op<NegOp>(b.getType(), b, {}, s + "neg_b");
  Value m = op<MaximumOp>(type, {na, nb}, {}, s + "max");
  return op<NegOp>(type, m, {}, s);
}

Value Importer::materialize(llvm::StringRef name) {
  if (Value v = values.lookup(name))
    return v;
  auto c = constants.find(name);
  if (c == constants.end())
    return {};
  DenseElementsAttr value = c->second;
  auto nameAttr = b.getNamedAttr("name", b.getStringAttr(name));
  Location loc = NameLoc::get(b.getStringAttr(name), fileLoc);
  Value v;
  if (options.initializersAsVariables && initializers.count(name) &&
      isa<FloatType>(value.getElementType())) {
    Value var =
        b.create<VariableOp>(loc, TypeRange{ResourceType::get(
                                 context, cast<RankedTensorType>(value.getType()))},
                             ValueRange{},
                             ArrayRef<NamedAttribute>{
                                 b.getNamedAttr("initial_value", value),
                                 nameAttr})
            ->getResult(0);
    v = b.create<ReadOp>(loc, TypeRange{value.getType()}, ValueRange{var},
                         ArrayRef<NamedAttribute>{b.getNamedAttr(
                             "name", b.getStringAttr(name + "/read"))})
            ->getResult(0);
  } else {
    v = b.create<ConstantOp>(loc, TypeRange{value.getType()}, ValueRange{},
                             ArrayRef<NamedAttribute>{
                                 b.getNamedAttr("value", value), nameAttr})
            ->getResult(0);
  }
  values[name] = v;
  materialized.push_back(name.str());
  return v;
}

std::optional<RankedTensorType>
Importer::staticType(const onnx::TypeProto &type, std::string *why,
                     bool *elementType) const {
  *elementType = true;
  if (!type.has_tensor_type()) {
    *why = "is not a tensor";
    return std::nullopt;
  }
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  std::optional<ElementType> element = toElementType(tensor.elem_type());
  if (!element) {
    *why = "has element type " + onnxTypeName(tensor.elem_type()) +
           ", which gplace does not have";
    return std::nullopt;
  }
  *elementType = false;
  if (!tensor.has_shape()) {
    *why = "has no inferred shape";
    return std::nullopt;
  }
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &d : tensor.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) {
      *why = d.has_dim_param() && !d.dim_param().empty()
                 ? "has dynamic dimension '" + d.dim_param() + "'"
                 : "has a dynamic dimension";
      return std::nullopt;
    }
    shape.push_back(d.dim_value());
  }
  return RankedTensorType::get(shape, toMlirType(*element, context));
}

std::optional<RankedTensorType>
Importer::neededType(const onnx::TypeProto &type, std::string *why) {
  bool elementType;
  std::optional<RankedTensorType> result = staticType(type, why, &elementType);
  if (!result)
    (elementType ? typeProblem : shapeProblem) = true;
  return result;
}

void Importer::importNode(const onnx::NodeProto &proto) {
  std::string name = scope + (!proto.name().empty()    ? proto.name()
                              : proto.output_size() > 0 ? proto.output(0)
                                                        : proto.op_type());
  auto poison = [&] {
    for (const std::string &out : proto.output())
      poisoned.insert(out);
  };
  // Not a structured binding: lambdas below capture them (C++17 lets
  // GCC, not Clang before 16, capture a binding).
  std::pair<std::string, int64_t> typeAndOpset = opTypeOf(proto);
  const std::string &opType = typeAndOpset.first;
  int64_t nodeOpset = typeAndOpset.second;
  auto markUnsupported = [&](std::string reason) {
    auto &entry = unsupported[{opType, std::move(reason)}];
    entry.first = nodeOpset;
    ++entry.second;
    poison();
  };
  const llvm::StringMap<MapFn> &table = mappers();
  auto mapper = table.find(opType);
  if (mapper == table.end())
    return markUnsupported("");
  for (const std::string &in : proto.input())
    if (poisoned.count(in))
      return poison();
  // Inputs the op's schema requires must be given ("" marks an omitted
  // optional one): the checker counts them, not their names.
  if (const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
          proto.op_type(), static_cast<int>(nodeOpset), "")) {
    const auto &formal = schema->inputs();
    for (size_t i = 0; i < formal.size(); ++i)
      if (formal[i].GetOption() == onnx::OpSchema::Single &&
          (static_cast<int>(i) >= proto.input_size() || proto.input(i).empty()))
        return markUnsupported("required input " + std::to_string(i) +
                               " ('" + formal[i].GetName() + "') missing");
  }
  // Inputs the mapping needs known at import time: named, each one the
  // graph computes or takes at run time.
  std::string runTime;
  int runTimeCount = 0;
  for (int i : importTimeInputs(opType)) {
    if (i >= proto.input_size() || proto.input(i).empty() ||
        constants.count(proto.input(i)))
      continue;
    // A graph input whose value the caller gave: the graph is specialized
    // for it (OnnxImportOptions::inputValues).
    if (auto position = inputPositions.find(proto.input(i));
        position != inputPositions.end() &&
        position->second < options.inputValues.size() &&
        options.inputValues[position->second]) {
      const gplace::HostTensor &given = *options.inputValues[position->second];
      RankedTensorType declared = types.lookup(proto.input(i));
      DenseElementsAttr value = hostTensorAttr(given, context);
      if (!declared || value.getType() == declared) {
        constants[proto.input(i)] = value;
        specialized.insert(position->second);
        continue;
      }
    }
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
        proto.op_type(), static_cast<int>(nodeOpset), "");
    runTime += std::string(runTime.empty() ? "" : ", ") + std::to_string(i) +
               (schema && i < static_cast<int>(schema->inputs().size())
                    ? " ('" + schema->inputs()[i].GetName() + "')"
                    : "");
    ++runTimeCount;
  }
  // Control flow with a condition or trip count of the run becomes
  // gplace.if or gplace.while (ControlFlow.cpp).
  if (runTimeCount && !isControlFlow(opType))
    return markUnsupported(
        std::string(runTimeCount == 1 ? "input " : "inputs ") + runTime +
        (runTimeCount == 1 ? " is" : " are") +
        " computed at run time; gplace needs " +
        (runTimeCount == 1 ? "it" : "them") +
        " constant (an initializer, a Constant node or a value folded at "
        "import time)" +
        dataDependentNote(opType, name));
  if (isControlFlow(opType))
    return importControlFlow(proto, name, opType, nodeOpset);
  // Sequences and optionals are import-time lists (MapSequence.cpp); only
  // their ops (and Identity) read them.
  if (isSequenceOp(opType) ||
      (opType == "Identity" && proto.input_size() > 0 &&
       lists.count(proto.input(0))))
    return importListNode(proto, name, opType, nodeOpset);
  for (const std::string &in : proto.input())
    if (lists.count(in))
      return markUnsupported("input '" + in +
                             "' is a sequence or an optional");

  Node node{*this,
            proto,
            name,
            NameLoc::get(b.getStringAttr(name), fileLoc),
            nodeOpset,
            {}};
  bool triedNode = false;
  for (const std::string &out : proto.output()) {
    if (out.empty()) {
      node.outputTypes.push_back({});
      continue;
    }
    auto it = types.find(out);
    if (it == types.end() && !triedNode) {
      triedNode = true;
      inferNode(proto);
      it = types.find(out);
    }
    if (it == types.end() && (!dataDependentInputs(opType).empty() ||
                              opType == "ai.onnx.preview.training.Gradient")) {
      // Its inputs' values decide its shape, or ONNX has no shape rule for
      // it (Gradient): the mapping computes it.
      node.outputTypes.push_back({});
      continue;
    }
    if (it == types.end()) {
      std::string why = "has no static shape after ONNX's shape inference";
      if (auto info = inferred.find(out); info != inferred.end())
        (void)neededType(*info->second, &why);
      else
        shapeProblem = true;
      errors.push_back("output '" + out + "' of node '" + name + "' (" +
                       opType + ") " + why);
      return poison();
    }
    node.outputTypes.push_back(it->second);
  }

  Block *block = b.getInsertionBlock();
  Operation *last = block->empty() ? nullptr : &block->back();
  materialized.clear();
  SmallVector<Value> results;
  std::string reason;
  // While the node is mapped and checked, the first diagnostic (a shape
  // rule's, a verifier's) is the reason it is not mapped.
  std::optional<ScopedDiagnosticHandler> capture;
  capture.emplace(context, [&](Diagnostic &diag) {
    if (reason.empty())
      reason = diag.str();
    return success();
  });
  bool mapped = mapper->second(node, results, reason);
  // The ops this node became: each must verify (and pass the caller's
  // check, if any).
  SmallVector<Operation *> created;
  auto collectCreated = [&] {
    created.clear();
    for (Operation &op :
         last ? llvm::make_range(std::next(last->getIterator()), block->end())
              : llvm::make_range(block->begin(), block->end()))
      created.push_back(&op);
  };
  collectCreated();
  if (mapped) {
    for (Operation *op : created)
      if (failed(mlir::verify(op))) {
        mapped = false;
        break;
      }
  }
  // Composite ops into their parts, which then are checked and have their
  // constants folded as any node's ops.
  if (mapped && !decompose(created, results))
    mapped = false;
  collectCreated();
  if (mapped) {
    if (options.checkOp)
      for (Operation *op : created) {
        reason = options.checkOp(op);
        if (!reason.empty()) {
          mapped = false;
          break;
        }
      }
    for (auto [i, out] : llvm::enumerate(proto.output())) {
      if (!mapped || out.empty())
        continue;
      if (i < results.size() && !results[i] && constants.count(out))
        continue; // Materialized on first use.
      if (i >= results.size() || !results[i] ||
          results[i].getType() != node.outputTypes[i]) {
        reason = "gplace's result type differs from ONNX's for '" + out + "'";
        mapped = false;
      }
    }
  }
  capture.reset();
  if (!mapped) {
    for (Operation *op : llvm::reverse(created)) {
      op->dropAllUses();
      op->erase();
    }
    for (const std::string &n : materialized)
      values.erase(n);
    return markUnsupported(reason.empty() ? "unsupported form" : reason);
  }
  foldCreated(created, results, proto);
  for (auto [i, out] : llvm::enumerate(proto.output()))
    if (!out.empty() && results[i])
      values[out] = results[i];
}

bool Importer::decompose(ArrayRef<Operation *> created,
                         SmallVectorImpl<Value> &results) {
  // The values that replace each composite's results.
  struct Replacements : RewriterBase::Listener {
    void notifyOperationReplaced(Operation *op, ValueRange values) override {
      for (auto [from, to] : llvm::zip(op->getResults(), values))
        replaced[from] = to;
    }
    DenseMap<Value, Value> replaced;
  } listener;
  PatternRewriter rewriter(context);
  rewriter.setListener(&listener);
  for (Operation *op : created) {
    if (!op->hasTrait<graph::OpTrait::Composite>())
      continue;
    rewriter.setInsertionPoint(op);
    if (failed(decompositions->matchAndRewrite(op, rewriter))) {
      op->emitError() << "cannot decompose this op";
      return false;
    }
  }
  for (Value &result : results)
    if (Value to = listener.replaced.lookup(result))
      result = to;
  return true;
}

LogicalResult Importer::reportProblems() {
  if (unsupported.empty() && errors.empty())
    return success();
  InFlightDiagnostic diag = error();
  if (!unsupported.empty()) {
    llvm::StringSet<> opTypes;
    for (const auto &entry : unsupported)
      opTypes.insert(entry.first.first);
    diag << "'" << path << "' uses " << opTypes.size() << " op type"
         << (opTypes.size() == 1 ? "" : "s")
         << " gplace cannot import (op type, opset, nodes):";
    for (const auto &[key, value] : unsupported) {
      diag << "\n  " << key.first << " (opset " << value.first
           << "): " << value.second << " node" << (value.second == 1 ? "" : "s");
      if (!key.second.empty())
        diag << ": " << key.second;
    }
  } else {
    diag << "'" << path << "' has nodes or values gplace cannot import:";
  }
  for (const std::string &e : errors)
    diag << "\n  " << e;
  return failure();
}

OwningOpRef<ModuleOp> Importer::import(llvm::StringRef bytes) {
  // The dimensions are fixed before the version converter runs, so that its
  // adapters (Softmax-12 to 13's reshape) see static shapes.
  if (failed(parse(bytes)) || failed(checkNodes()) ||
      failed(fixDimensions()))
    return nullptr;
  // The sequence and optional inputs (true: an optional), before ONNX's
  // version converter, which writes their types as tensors'.
  llvm::StringMap<bool> listInputs;
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (input.type().has_sequence_type() || input.type().has_optional_type())
      listInputs[input.name()] = input.type().has_optional_type();
  if (failed(splitScan8()))
    return nullptr;
  upgrade();
  if (failed(finishScan8()))
    return nullptr;
  // A declared shape with a symbolic or unknown dimension says nothing the
  // inputs do not (exporters write names there that no input binds, as
  // paddle2onnx's 'p2o.DynamicDimension.3'): inference computes it afresh
  // from the inputs. A static declared shape stays, for the ops whose
  // output ONNX cannot infer, and is checked against what the graph
  // computes (every node's result type, and the outputs' below).
  // Each output's declared dimensions: a size, or a name ("" if none).
  std::vector<std::optional<std::vector<std::pair<int64_t, std::string>>>>
      declaredOutputs;
  auto forgetDynamic = [](onnx::ValueInfoProto &info) {
    if (!info.type().has_tensor_type() ||
        !info.type().tensor_type().has_shape())
      return;
    for (const auto &d : info.type().tensor_type().shape().dim())
      if (!d.has_dim_value() || d.dim_value() < 0) {
        info.mutable_type()->mutable_tensor_type()->clear_shape();
        return;
      }
  };
  for (onnx::ValueInfoProto &output : *model.mutable_graph()->mutable_output()) {
    std::optional<std::vector<std::pair<int64_t, std::string>>> declared;
    if (output.type().has_tensor_type() &&
        output.type().tensor_type().has_shape()) {
      declared.emplace();
      for (const auto &d : output.type().tensor_type().shape().dim())
        declared->emplace_back(d.has_dim_value() ? d.dim_value() : -1,
                               d.dim_param());
    }
    declaredOutputs.push_back(std::move(declared));
    forgetDynamic(output);
  }
  for (onnx::ValueInfoProto &info :
       *model.mutable_graph()->mutable_value_info())
    forgetDynamic(info);
  // check_type: an input whose element type is not one its op's schema
  // allows (ReduceSum on uint8, Relu on int32 before opset 14) makes the
  // model invalid, as ONNX Runtime refuses it at session creation, rather
  // than computed by whichever kernel gplace has (docs/onnx.md, Decisions).
  try {
    onnx::ShapeInferenceOptions inference(/*check_type=*/true,
                                          /*error_mode=*/0,
                                          /*enable_data_propagation=*/true);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), inference);
  } catch (const std::exception &e) {
    error() << "ONNX's shape and type inference fails on '" << path
            << "': " << e.what();
    return nullptr;
  }
  const onnx::GraphProto &graph = model.graph();
  auto collect = [&](const onnx::ValueInfoProto &info) {
    inferred[info.name()] = &info.type();
    // What is refused here counts only where a node needs the value.
    std::string why;
    bool elementType;
    if (std::optional<RankedTensorType> type =
            staticType(info.type(), &why, &elementType))
      types[info.name()] = *type;
  };
  for (const onnx::ValueInfoProto &info : graph.value_info())
    collect(info);
  for (const onnx::ValueInfoProto &info : graph.output())
    collect(info);

  for (const onnx::TensorProto &t : graph.initializer()) {
    gplace::StatusOr<DenseElementsAttr> value = tensorAttr(t, directory, context);
    if (!value) {
      typeProblem |= !toElementType(t.data_type());
      error() << "'" << path << "': " << value.status().message();
      return nullptr;
    }
    initializers[t.name()] = &t;
    constants[t.name()] = *value;
  }

  // The function: the inputs that are not initializers, the outputs.
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<std::string> argNames;
  // The arguments of each sequence or optional input: name -> (first
  // argument, its list).
  std::map<std::string, std::pair<size_t, ListValue>> listArgs;
  size_t graphInput = 0;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    size_t position = graphInput++;
    bool listGiven = position < options.inputLists.size() &&
                     options.inputLists[position];
    if (listInputs.count(input.name()) || listGiven) {
      // Its elements, each an argument (`NAME.0`, ...), as the caller's
      // value has them (OnnxImportOptions::inputLists).
      bool optional = listGiven ? options.inputLists[position]->optional
                                : listInputs.lookup(input.name());
      if (position >= options.inputLists.size() ||
          !options.inputLists[position]) {
        shapeProblem = true;
        error() << "input '" << input.name() << "' is "
                << (optional ? "an optional" : "a sequence")
                << ", whose " << (optional ? "presence and shape" : "length and "
                                  "elements' shapes")
                << " gplace needs at import time (its value not given)";
        return nullptr;
      }
      const OnnxListValue &given = *options.inputLists[position];
      ListValue list;
      list.optional = optional;
      list.present = given.present;
      list.ofSequence = given.ofSequence;
      size_t first = argTypes.size();
      for (auto [k, element] : llvm::enumerate(given.elements)) {
        argTypes.push_back(RankedTensorType::get(
            element.type.shape, toMlirType(element.type.elementType, context)));
        argNames.push_back(input.name() + "." + std::to_string(k));
      }
      // Placeholders: the arguments once the function exists.
      list.elements.resize(given.elements.size());
      listArgs[input.name()] = {first, std::move(list)};
      continue;
    }
    std::string why;
    std::optional<RankedTensorType> type = neededType(input.type(), &why);
    if (!type) {
      error() << "input '" << input.name() << "' " << why;
      return nullptr;
    }
    types[input.name()] = *type;
    inputPositions[input.name()] = position;
    argTypes.push_back(*type);
    argNames.push_back(input.name());
  }

  // The outputs' types are the values', known once the nodes are imported.
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = b.create<func::FuncOp>(
      fileLoc, options.entry, b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  for (auto [i, argName] : llvm::enumerate(argNames)) {
    values[argName] = entry->getArgument(i);
    func.setArgAttr(i, "gplace.name", b.getStringAttr(argName));
  }
  for (auto &[listName, arg] : listArgs) {
    ListValue &list = arg.second;
    size_t count = list.elements.size();
    list.elements.clear();
    for (size_t k = arg.first; k < arg.first + count; ++k) {
      values.erase(argNames[k]);
      list.elements.push_back(entry->getArgument(k));
    }
    lists[listName] = std::move(list);
  }
  b.setInsertionPointToEnd(entry);
  specializeImportTimeInputs();

  // The composite ops' decompositions (Decompositions.cpp), applied to each
  // node's composites as it is imported.
  RewritePatternSet set(context);
  populateDecompositionPatterns(set);
  FrozenRewritePatternSet patterns(std::move(set));
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();
  decompositions = &applicator;
  for (const onnx::NodeProto &node : graph.node())
    importNode(node);
  decompositions = nullptr;
  if (failed(reportProblems()))
    return nullptr;

  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  for (auto [output, declared] : llvm::zip(graph.output(), declaredOutputs)) {
    // A sequence or optional: one result per element (`NAME.0`, ...).
    if (auto list = lists.find(output.name()); list != lists.end()) {
      for (auto [k, element] : llvm::enumerate(list->second.elements)) {
        results.push_back(element);
        resultNames.push_back(output.name() + "." + std::to_string(k));
      }
      continue;
    }
    Value v = materialize(output.name());
    if (!v) {
      error() << "output '" << output.name() << "' is produced by no node";
      return nullptr;
    }
    // A declared static dimension must be what the graph computes.
    auto type = cast<RankedTensorType>(v.getType());
    if (declared &&
        (static_cast<int64_t>(declared->size()) != type.getRank() ||
         llvm::any_of(llvm::enumerate(*declared), [&](const auto &d) {
           return d.value().first >= 0 &&
                  d.value().first != type.getDimSize(d.index());
         }))) {
      auto shapeText = [](auto dims, auto text) {
        std::string shape;
        for (const auto &d : dims)
          shape += (shape.empty() ? "" : "x") + text(d);
        return shape.empty() ? std::string("a scalar") : shape;
      };
      error() << "output '" << output.name() << "' is declared "
              << shapeText(*declared,
                           [](const std::pair<int64_t, std::string> &d) {
                             return d.first >= 0 ? std::to_string(d.first)
                                    : d.second.empty() ? std::string("?")
                                                       : d.second;
                           })
              << ", but the graph computes "
              << shapeText(type.getShape(),
                           [](int64_t d) { return std::to_string(d); });
      return nullptr;
    }
    results.push_back(v);
    resultNames.push_back(output.name());
  }
  func.setFunctionType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  b.create<func::ReturnOp>(fileLoc, results);
  // Constants the import folded and nothing reads.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*entry)))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  for (auto [i, resultName] : llvm::enumerate(resultNames))
    func.setResultAttr(i, "gplace.name", b.getStringAttr(resultName));
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

const llvm::StringMap<MapFn> &mappers() {
  static const llvm::StringMap<MapFn> table = [] {
    llvm::StringMap<MapFn> t;
    addMathMappers(t);
    addLinalgMappers(t);
    addSignalMappers(t);
    addLossMappers(t);
    addTrainingMappers(t);
    addIndexingMappers(t);
    addRecurrentMappers(t);
    addElementwiseMappers(t);
    addTensorMappers(t);
    addConvolutionMappers(t);
    addPoolMappers(t);
    addResizeMappers(t);
    addSamplingMappers(t);
    addSelectionMappers(t);
    addQuantizeMappers(t);
    addTextMappers(t);
    addDataDependentMappers(t);
    addControlFlowMappers(t);
    addSequenceMappers(t);
    addRandomMappers(t);
    return t;
  }();
  return table;
}

} // namespace gplace::frontend::onnx_import

namespace gplace::frontend {
using namespace onnx_import;

OwningOpRef<ModuleOp> importOnnxModel(llvm::StringRef bytes,
                                      llvm::StringRef path,
                                      MLIRContext *context,
                                      const OnnxImportOptions &options) {
  context->getOrLoadDialect<GraphDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  // An empty symbol prints as '@<<INVALID EMPTY SYMBOL>>', which no parser
  // reads back.
  if (options.entry.empty()) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "the imported function needs a name (--entry is empty)";
    return {};
  }
  Importer importer(context, path, options);
  return importer.run(bytes);
}

std::function<std::string(mlir::Operation *)> cpuKernelCheck() {
  return [](mlir::Operation *op) -> std::string {
    // Ops that run no kernel of their own (gplace.gradients, expanded
    // before placement; views) have nothing to check.
    if (!isa<KernelOpInterface>(op))
      return "";
    std::string element = getKernelElementTypeName(op);
    std::string name = op->getName().getStringRef().str();
    if (element.empty() ||
        KernelRegistry::global().hasKernel(name, parseElementType(element),
                                           DeviceType::CPU))
      return "";
    return "no " + name + " kernel for " + element;
  };
}

std::vector<std::string> importableOpTypes() {
  std::vector<std::string> names;
  for (const auto &entry : mappers())
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

} // namespace gplace::frontend
