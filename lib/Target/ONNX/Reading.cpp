//===- Reading.cpp - parsing, checking and upgrading a model ---------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. What runs before the
// nodes are imported: the model parsed and checked by ONNX's checker
// (external data read within the model's folder), the op types and window
// attributes checked before ONNX's own code reads them, and opsets below
// 13 upgraded by ONNX's version converter (opset 8's Scans split per batch
// element around it).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <limits>

namespace gplace::frontend::onnx_import {

/// Whether a tensor of `graph` keeps its data in another file: an
/// initializer, or a node attribute's tensor (a Constant's value), here or
/// in a subgraph (If's branches, Loop's body).
static bool hasExternalData(const onnx::GraphProto &graph) {
  auto external = [](const onnx::TensorProto &t) {
    return t.data_location() == onnx::TensorProto::EXTERNAL;
  };
  for (const onnx::TensorProto &t : graph.initializer())
    if (external(t))
      return true;
  for (const onnx::NodeProto &node : graph.node())
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_t() && external(attr.t()))
        return true;
      for (const onnx::TensorProto &t : attr.tensors())
        if (external(t))
          return true;
      if (attr.has_g() && hasExternalData(attr.g()))
        return true;
      for (const onnx::GraphProto &g : attr.graphs())
        if (hasExternalData(g))
          return true;
    }
  return false;
}

LogicalResult Importer::parse(llvm::StringRef bytes) {
  // ParseFromArray: the whole buffer must be one message (ONNX's
  // ParseProtoFromBytes stops at an end-group tag and calls the rest fine).
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ||
      !model.has_graph()) {
    error() << "'" << path << "' is not an ONNX model (no ModelProto with a "
            << "graph parses from it)";
    return failure();
  }
  // The checker, with the model's directory for external data (which only
  // check_model(path) gives it: without, it looks in the working directory).
  try {
    if (hasExternalData(model.graph()))
      onnx::checker::check_model(path);
    else
      onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    error() << "'" << path << "' fails ONNX's checker: " << e.what();
    return failure();
  }
  // What the checker leaves to the reader, and ONNX's own IR conversion
  // (the version converter's) crashes on: every value a node reads, and
  // every output, defined once, before its use.
  llvm::StringSet<> defined;
  auto define = [&](const std::string &name, llvm::StringRef what) {
    if (!defined.insert(name).second) {
      error() << "'" << path << "': " << what << " '" << name
              << "' is defined twice";
      return false;
    }
    return true;
  };
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &t : graph.initializer()) {
    if (!define(t.name(), "initializer"))
      return failure();
    initializerNames.insert(t.name());
  }
  for (const onnx::ValueInfoProto &input : graph.input())
    if (!initializerNames.count(input.name()) && !define(input.name(), "input"))
      return failure();
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &in : node.input())
      if (!in.empty() && !defined.count(in)) {
        error() << "'" << path << "': node '"
                << (node.name().empty() ? node.op_type() : node.name())
                << "' reads '" << in
                << "', which no input, initializer or earlier node defines";
        return failure();
      }
    for (const std::string &out : node.output())
      if (!out.empty() && !define(out, "value"))
        return failure();
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    if (!defined.count(output.name())) {
      error() << "'" << path << "': output '" << output.name()
              << "' is produced by no node, input or initializer";
      return failure();
    }
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  return success();
}

void Importer::upgrade() {
  if (opset && opset < kTargetOpset) {
    // ONNX 1.12's converter takes Hardmax 12 -> 13 as compatible, but the
    // older Hardmax coerces its input to 2-D at `axis` (default 1), as the
    // older Softmax does (whose adapter reshapes): the nodes are
    // remembered by their output so that their mapping keeps the older
    // semantics.
    for (const onnx::NodeProto &proto : model.graph().node())
      if (proto.op_type() == "Hardmax" && proto.output_size() > 0 &&
          (proto.domain().empty() || proto.domain() == "ai.onnx"))
        coercedHardmax.insert(proto.output(0));
    // The converter copies initializers as they are, external data
    // included: the import reads their data afterwards.
    try {
      onnx::ModelProto converted =
          onnx::version_conversion::ConvertVersion(model, kTargetOpset);
      model = std::move(converted);
      upgradedFrom = opset;
      opset = kTargetOpset;
    } catch (const std::exception &e) {
      // The model stays at its opset: the mapping handles the older forms
      // of the ops it maps, and names the opset of those it does not.
      upgradeError = e.what();
    }
  }
}


/// The initializer holding the axes of the Squeeze and Unsqueeze nodes
/// finishScan8 writes.
static constexpr llvm::StringLiteral kScan8Axes = "gplace.scan8.axis0";

LogicalResult Importer::splitScan8() {
  auto isScan8 = [&](const onnx::NodeProto &node) {
    auto [opType, version] = opTypeOf(node);
    return opType == "Scan" && version < 9;
  };
  onnx::GraphProto &graph = *model.mutable_graph();
  if (llvm::none_of(graph.node(), isScan8))
    return success();
  // The batch sizes: ONNX's shape inference on a copy (at opset 8).
  onnx::ModelProto inferredModel = model;
  try {
    onnx::shape_inference::InferShapes(inferredModel);
  } catch (const std::exception &e) {
    error() << "ONNX's shape inference fails on '" << path
            << "': " << e.what();
    return failure();
  }
  llvm::StringMap<const onnx::TypeProto *> typeOf;
  const onnx::GraphProto &inferredGraph = inferredModel.graph();
  for (const auto *infos : {&inferredGraph.input(), &inferredGraph.value_info(),
                            &inferredGraph.output()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.type().has_tensor_type())
        typeOf[info.name()] = &info.type();
  // An initializer's type, unless an input declares it.
  std::vector<onnx::TypeProto> initializerTypes(
      inferredGraph.initializer_size());
  for (auto [t, type] : llvm::zip(inferredGraph.initializer(),
                                  initializerTypes)) {
    onnx::TypeProto_Tensor *tensor = type.mutable_tensor_type();
    tensor->set_elem_type(t.data_type());
    onnx::TensorShapeProto *shape = tensor->mutable_shape();
    for (int64_t d : t.dims())
      shape->add_dim()->set_dim_value(d);
    typeOf.try_emplace(t.name(), &type);
  }
  // `of`'s type with its leading dimension 1 (the element's slice) and, if
  // `length` >= 0, its second (the sequence) `length`, as the value_info of
  // `name`, which the version converter reads (its adapter keeps a Scan
  // input only if the input's shape is known, and drops its leading
  // dimension).
  auto declareSlice = [&](const std::string &name, const std::string &of,
                          int64_t length) {
    auto it = typeOf.find(of);
    if (it == typeOf.end() || !it->second->tensor_type().has_shape())
      return;
    onnx::ValueInfoProto *info = graph.add_value_info();
    info->set_name(name);
    *info->mutable_type() = *it->second;
    onnx::TensorShapeProto *shape =
        info->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->mutable_dim(0)->set_dim_value(1);
    if (length >= 0 && shape->dim_size() > 1)
      shape->mutable_dim(1)->set_dim_value(length);
  };
  // A value's rank (-1 if unknown) and dimension `d` (-1 if unknown: the
  // batch size is dimension 0).
  auto rankOf = [&](const std::string &name) -> int64_t {
    auto it = typeOf.find(name);
    if (it == typeOf.end() || !it->second->tensor_type().has_shape())
      return -1;
    return it->second->tensor_type().shape().dim_size();
  };
  auto dimOf = [&](const std::string &name, int d) -> int64_t {
    if (rankOf(name) <= d)
      return -1;
    const auto &dim = typeOf.find(name)->second->tensor_type().shape().dim(d);
    return dim.has_dim_value() ? dim.dim_value() : -1;
  };
  // The values of the int64 initializer `name` (checkNodes: a Scan 8's
  // sequence_lens), decoded as every initializer is (tensorAttr), or
  // std::nullopt.
  auto int64Initializer =
      [&](const std::string &name) -> std::optional<std::vector<int64_t>> {
    for (const onnx::TensorProto &t : graph.initializer()) {
      if (t.name() != name ||
          t.data_type() != onnx::TensorProto_DataType_INT64)
        continue;
      gplace::StatusOr<DenseElementsAttr> value =
          tensorAttr(t, directory, context);
      if (!value)
        return std::nullopt;
      auto values = value->getValues<int64_t>();
      return std::vector<int64_t>(values.begin(), values.end());
    }
    return std::nullopt;
  };
  auto makeNode = [](const std::string &opType, const std::string &name,
                     std::initializer_list<std::string> inputs,
                     std::initializer_list<std::string> outputs) {
    onnx::NodeProto node;
    node.set_op_type(opType);
    node.set_name(name);
    for (const std::string &in : inputs)
      node.add_input(in);
    for (const std::string &out : outputs)
      node.add_output(out);
    return node;
  };
  // An INTS attribute (Slice 1's axes, starts and ends, Pad 2's pads).
  auto intsAttr = [](onnx::NodeProto &node, const std::string &name,
                     llvm::ArrayRef<int64_t> values) {
    onnx::AttributeProto *a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (int64_t v : values)
      a->add_ints(v);
  };

  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  int scanIndex = 0;
  for (const onnx::NodeProto &node : graph.node()) {
    if (!isScan8(node)) {
      *nodes.Add() = node;
      continue;
    }
    std::string nodeName = node.name().empty() ? node.op_type() : node.name();
    // The values the rewrite adds are named after the node's position.
    std::string tag = std::to_string(scanIndex++);
    int64_t batch = -1;
    for (int i = 1; i < node.input_size(); ++i) {
      int64_t size = dimOf(node.input(i), 0);
      if (size < 1) {
        error() << "'" << path << "': node '" << nodeName
                << "' (Scan, opset 8): the batch size (leading dimension) "
                   "of input '"
                << node.input(i) << "' is "
                << (size == 0 ? "0" : "not known");
        return failure();
      }
      if (batch >= 0 && size != batch) {
        error() << "'" << path << "': node '" << nodeName
                << "' (Scan, opset 8): its inputs' batch sizes differ ("
                << batch << " and " << size << " of '" << node.input(i)
                << "')";
        return failure();
      }
      batch = size;
    }
    if (batch < 1) {
      error() << "'" << path << "': node '" << nodeName
              << "' (Scan, opset 8) has no state or scan input";
      return failure();
    }
    if (batch > kMaxUnrolledIterations) {
      error() << "'" << path << "': node '" << nodeName
              << "' (Scan, opset 8): a batch of " << batch
              << ", more than the " << kMaxUnrolledIterations
              << " Scans gplace unrolls it into";
      return failure();
    }
    // Sequence lengths: each element's scan inputs cut to its length,
    // its scan outputs padded with zeros past it (ONNX Runtime's Scan 8).
    int64_t numScanInputs = 0;
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == "num_scan_inputs")
        numScanInputs = a.i();
    int64_t numStates = node.input_size() - 1 - numScanInputs;
    if (numScanInputs < 1 || numStates < 0) {
      error() << "'" << path << "': node '" << nodeName
              << "' (Scan, opset 8): num_scan_inputs (" << numScanInputs
              << ") must be from 1 to its " << node.input_size() - 1
              << " inputs after sequence_lens";
      return failure();
    }
    // Checked here, before the split leaves a Scan per batch element and
    // the converter renames its attribute (ONNX Runtime refuses both).
    std::string invalid;
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == "directions" &&
          (a.ints_size() != numScanInputs ||
           llvm::any_of(a.ints(), [](int64_t d) { return d != 0 && d != 1; })))
        invalid = "directions must hold one 0 (forward) or 1 (reverse) per "
                  "scan input (" + std::to_string(numScanInputs) + ")";
    for (int i = 1 + numStates; i < node.input_size() && invalid.empty(); ++i)
      if (int64_t rank = rankOf(node.input(i)); rank >= 0 && rank < 2)
        invalid = "scan input '" + node.input(i) + "' has rank " +
                  std::to_string(rank) +
                  ", not a batch and a sequence axis at least";
    if (!invalid.empty()) {
      error() << "'" << path << "': node '" << nodeName
              << "' (Scan, opset 8): " << invalid;
      return failure();
    }
    std::vector<int64_t> lengths;
    int64_t fullLength = -1;
    if (!node.input(0).empty()) {
      std::optional<std::vector<int64_t>> given =
          int64Initializer(node.input(0));
      fullLength = numStates + 1 < node.input_size()
                       ? dimOf(node.input(numStates + 1), 1)
                       : -1;
      std::string why;
      if (!given || static_cast<int64_t>(given->size()) != batch)
        why = "must be an int64 initializer of " + std::to_string(batch) +
              " values (one per batch element)";
      else if (fullLength < 0)
        why = "needs the scan inputs' sequence length, which is not known";
      else
        for (int64_t length : *given)
          if (length < 1 || length > fullLength)
            why = "holds " + std::to_string(length) +
                  ", not a length from 1 to the scan inputs' " +
                  std::to_string(fullLength);
      if (!why.empty()) {
        error() << "'" << path << "': node '" << nodeName
                << "' (Scan, opset 8): sequence_lens ('" << node.input(0)
                << "') " << why;
        return failure();
      }
      lengths = *given;
    }
    std::vector<std::vector<std::string>> elementOutputs(node.output_size());
    for (int64_t b = 0; b < batch; ++b) {
      // Values named apart from the model's, ops under the node's name.
      std::string prefix = "gplace.scan8." + tag + "/" + std::to_string(b);
      std::string scope =
          batch > 1 ? nodeName + "/batch" + std::to_string(b) : nodeName;
      onnx::NodeProto scan = node;
      scan.set_name(scope);
      scan.clear_input();
      scan.add_input(""); // sequence_lens: applied here
      // The element's length where it is shorter than the inputs' (-1: not).
      int64_t cut = !lengths.empty() && lengths[b] < fullLength ? lengths[b]
                                                                : -1;
      for (int i = 1; i < node.input_size(); ++i) {
        std::string in = prefix + "/in" + std::to_string(i);
        std::string source = node.input(i);
        int64_t inputCut = i > numStates ? cut : -1;
        if (batch > 1 || inputCut >= 0) {
          onnx::NodeProto slice =
              makeNode("Slice", scope + "/input" + std::to_string(i) + "_slice",
                       {source}, {in + "/slice"});
          if (inputCut >= 0) {
            intsAttr(slice, "axes", {0, 1});
            intsAttr(slice, "starts", {b, 0});
            intsAttr(slice, "ends", {b + 1, inputCut});
          } else {
            intsAttr(slice, "axes", {0});
            intsAttr(slice, "starts", {b});
            intsAttr(slice, "ends", {b + 1});
          }
          *nodes.Add() = std::move(slice);
          declareSlice(in + "/slice", node.input(i), inputCut);
          source = in + "/slice";
        }
        *nodes.Add() = makeNode(
            "Identity", scope + "/input" + std::to_string(i), {source}, {in});
        scan8Squeezes.insert(in);
        declareSlice(in, node.input(i), inputCut);
        scan.add_input(in);
      }
      std::vector<onnx::NodeProto> unsqueezes;
      for (int k = 0; k < node.output_size(); ++k) {
        if (node.output(k).empty())
          continue;
        std::string out = prefix + "/out" + std::to_string(k);
        std::string result = batch > 1 ? out + "/element" : node.output(k);
        int64_t outputCut = k >= numStates ? cut : -1;
        std::string unsqueezed = outputCut >= 0 ? out + "/unpadded" : result;
        scan.set_output(k, out);
        declareSlice(out, node.output(k), outputCut);
        elementOutputs[k].push_back(result);
        unsqueezes.push_back(makeNode("Identity",
                                      scope + "/output" + std::to_string(k),
                                      {out}, {unsqueezed}));
        scan8Unsqueezes.insert(unsqueezed);
        if (outputCut < 0)
          continue;
        int64_t rank = rankOf(node.output(k));
        if (rank < 2) {
          error() << "'" << path << "': node '" << nodeName
                  << "' (Scan, opset 8): the rank of scan output '"
                  << node.output(k) << "' is not known";
          return failure();
        }
        onnx::NodeProto pad =
            makeNode("Pad", scope + "/output" + std::to_string(k) + "_pad",
                     {unsqueezed}, {result});
        std::vector<int64_t> pads(2 * rank, 0);
        pads[rank + 1] = fullLength - outputCut;
        intsAttr(pad, "pads", pads);
        // Explicit: the converter's Pad adapter reads it.
        onnx::AttributeProto *value = pad.add_attribute();
        value->set_name("value");
        value->set_type(onnx::AttributeProto_AttributeType_FLOAT);
        value->set_f(0);
        unsqueezes.push_back(std::move(pad));
      }
      *nodes.Add() = std::move(scan);
      for (onnx::NodeProto &unsqueeze : unsqueezes)
        *nodes.Add() = std::move(unsqueeze);
    }
    if (batch > 1)
      for (int k = 0; k < node.output_size(); ++k) {
        if (node.output(k).empty())
          continue;
        onnx::NodeProto concat =
            makeNode("Concat", nodeName + "/output" + std::to_string(k), {},
                     {node.output(k)});
        for (const std::string &element : elementOutputs[k])
          concat.add_input(element);
        onnx::AttributeProto *axis = concat.add_attribute();
        axis->set_name("axis");
        axis->set_type(onnx::AttributeProto_AttributeType_INT);
        axis->set_i(0);
        *nodes.Add() = std::move(concat);
      }
  }
  graph.mutable_node()->Swap(&nodes);
  onnx::TensorProto *axes = graph.add_initializer();
  axes->set_name(kScan8Axes.str());
  axes->set_data_type(onnx::TensorProto_DataType_INT64);
  axes->add_dims(1);
  axes->add_int64_data(0);
  return success();
}

LogicalResult Importer::finishScan8() {
  if (scan8Squeezes.empty())
    return success();
  if (opset < 9) {
    error() << "'" << path
            << "': ONNX's version converter fails on this model, and its "
               "Scan of opset 8 (a batch dimension) needs it: "
            << upgradeError;
    return failure();
  }
  for (onnx::NodeProto &node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "Identity" || node.output_size() != 1)
      continue;
    bool in = scan8Squeezes.contains(node.output(0)),
         out = scan8Unsqueezes.contains(node.output(0));
    if (!in && !out)
      continue;
    node.set_op_type(in ? "Squeeze" : "Unsqueeze");
    node.add_input(kScan8Axes.str());
  }
  return success();
}


std::pair<std::string, int64_t>
Importer::opTypeOf(const onnx::NodeProto &proto) const {
  bool defaultDomain = proto.domain().empty() || proto.domain() == "ai.onnx";
  if (defaultDomain)
    return {proto.op_type(), opset};
  int64_t version = 0;
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain() == proto.domain())
      version = set.version();
  return {proto.domain() + "." + proto.op_type(), version};
}

namespace {
/// The ranks ONNX's shape inference finds for the main graph's values before
/// a node, for checkNodes' checks, which ask for them node by node in the
/// graph's order. Inference never runs on the node asked about or any after
/// it (their checks have not passed yet, and ONNX's code may crash on them).
///
/// Linear in the graph: each query infers only the nodes since the last one
/// (a graph of those nodes whose inputs are the values they read, typed as
/// the earlier inference found them, with the integer initializers and the
/// Constant nodes they read, whose data inference uses), not the whole
/// prefix again (before, a model of N Conv nodes without value_info took
/// N inferences over up to N nodes: 9.2 s at 1,600 Convs). Where those
/// nodes have subgraphs (which read outer values by name, not as inputs),
/// or the model has local functions, the query infers the whole prefix, as
/// a copy of the model: the same result, at the old cost.
class PrefixShapes {
public:
  explicit PrefixShapes(const onnx::ModelProto &model) : model_(model) {
    const onnx::GraphProto &graph = model.graph();
    for (auto [i, t] : llvm::enumerate(graph.initializer()))
      initializer_[t.name()] = i;
    for (auto [i, n] : llvm::enumerate(graph.node())) {
      index_[&n] = i;
      if ((n.domain().empty() || n.domain() == "ai.onnx") &&
          n.op_type() == "Constant")
        for (const std::string &out : n.output())
          constant_[out] = i;
    }
    for (const onnx::ValueInfoProto &input : graph.input())
      input_[input.name()] = &input;
  }

  /// The rank of input `input` of `node` (a node of the main graph) as
  /// inference finds it on the nodes before `node`; -1 if it finds none or
  /// fails.
  int64_t rankBefore(const onnx::NodeProto &node, int input) {
    const std::string &value = node.input(input);
    if (int64_t rank = known(value); rank >= 0)
      return rank;
    auto at = index_.find(&node);
    if (at == index_.end())
      return -1;
    unsigned until = at->second;
    if (inferred_ && until <= next_)
      return -1; // Inferred already, without a rank for it.
    onnx::ModelProto prefix;
    prefix.set_ir_version(model_.ir_version());
    *prefix.mutable_opset_import() = model_.opset_import();
    bool whole = !inferred_ || model_.functions_size() > 0 ||
                 !delta(until, *prefix.mutable_graph());
    if (whole) {
      prefix.clear_graph();
      *prefix.mutable_functions() = model_.functions();
      wholePrefix(until, *prefix.mutable_graph());
    }
    try {
      onnx::shape_inference::InferShapes(prefix);
    } catch (const std::exception &) {
      return -1; // The next query tries these nodes again.
    }
    const onnx::GraphProto &graph = prefix.graph();
    for (const auto *infos :
         {&graph.input(), &graph.value_info(), &graph.output()})
      for (const onnx::ValueInfoProto &info : *infos)
        if (info.type().has_tensor_type())
          type_[info.name()] = info.type();
    inferred_ = true;
    next_ = until;
    return known(value);
  }

private:
  /// The rank known for `value`: an initializer's, else the one inference
  /// found; -1 for none.
  int64_t known(const std::string &value) const {
    if (auto init = initializer_.find(value); init != initializer_.end())
      return model_.graph().initializer(init->second).dims_size();
    auto type = type_.find(value);
    if (type == type_.end() || !type->second.tensor_type().has_shape())
      return -1;
    return type->second.tensor_type().shape().dim_size();
  }
  /// An initializer for inference: integer ones whole (shapes and axes it
  /// reads), floating-point ones (weights) as their type and dims only.
  static void addInitializer(const onnx::TensorProto &t,
                             onnx::GraphProto &graph) {
    bool integer = t.data_type() == onnx::TensorProto_DataType_INT64 ||
                   t.data_type() == onnx::TensorProto_DataType_INT32;
    if (integer) {
      *graph.add_initializer() = t;
      return;
    }
    onnx::TensorProto *shell = graph.add_initializer();
    shell->set_name(t.name());
    shell->set_data_type(t.data_type());
    *shell->mutable_dims() = t.dims();
  }
  /// The main graph's nodes before node `until`, with its inputs,
  /// value_info and initializers.
  void wholePrefix(unsigned until, onnx::GraphProto &graph) const {
    const onnx::GraphProto &from = model_.graph();
    *graph.mutable_input() = from.input();
    *graph.mutable_value_info() = from.value_info();
    *graph.mutable_sparse_initializer() = from.sparse_initializer();
    for (const onnx::TensorProto &t : from.initializer())
      addInitializer(t, graph);
    for (unsigned i = 0; i < until; ++i)
      *graph.add_node() = from.node(i);
  }
  /// The nodes from next_ to `until` as a graph of their own (see the
  /// class's comment); false where they have a subgraph.
  bool delta(unsigned until, onnx::GraphProto &graph) const {
    const onnx::GraphProto &from = model_.graph();
    llvm::StringSet<> produced, declared;
    std::vector<unsigned> constants;
    for (unsigned i = next_; i < until; ++i) {
      const onnx::NodeProto &n = from.node(i);
      for (const onnx::AttributeProto &a : n.attribute())
        if (a.has_g() || a.graphs_size() > 0)
          return false;
      for (const std::string &in : n.input()) {
        if (in.empty() || produced.contains(in) || !declared.insert(in).second)
          continue;
        auto constant = constant_.find(in);
        if (constant != constant_.end() && constant->second < next_) {
          constants.push_back(constant->second); // Its data, for inference.
          continue;
        }
        if (auto type = typeOf(in))
          *graph.add_input() = *type;
        auto init = initializer_.find(in);
        if (init != initializer_.end())
          addInitializer(from.initializer(init->second), graph);
      }
      for (const std::string &out : n.output())
        produced.insert(out);
    }
    for (unsigned i : constants)
      *graph.add_node() = from.node(i);
    for (unsigned i = next_; i < until; ++i)
      *graph.add_node() = from.node(i);
    return true;
  }
  /// A value's declaration as the delta's input: the graph input's own, or
  /// its type as inference found it (element type and shape); none where
  /// neither is known (inference then skips what needs it, as it does for
  /// the whole prefix).
  std::optional<onnx::ValueInfoProto> typeOf(const std::string &name) const {
    auto in = input_.find(name);
    if (in != input_.end())
      return *in->second;
    auto type = type_.find(name);
    if (type == type_.end())
      return std::nullopt;
    onnx::ValueInfoProto info;
    info.set_name(name);
    *info.mutable_type() = type->second;
    return info;
  }

  const onnx::ModelProto &model_;
  llvm::DenseMap<const onnx::NodeProto *, unsigned> index_;
  llvm::StringMap<unsigned> initializer_;
  /// The outputs of the Constant nodes, and each one's node index.
  llvm::StringMap<unsigned> constant_;
  llvm::StringMap<const onnx::ValueInfoProto *> input_;
  /// The tensor types inference found (and the inputs it was given).
  llvm::StringMap<onnx::TypeProto> type_;
  bool inferred_ = false; ///< Whether inference has run yet.
  unsigned next_ = 0;     ///< Once it has, the nodes before it were inferred.
};
} // namespace

LogicalResult Importer::checkNodes() {
  const llvm::StringMap<MapFn> &table = mappers();
  // The main graph's nodes (a RepeatedPtrField's elements are not
  // contiguous: their addresses are collected).
  llvm::DenseSet<const onnx::NodeProto *> mainNodes;
  for (const onnx::NodeProto &proto : model.graph().node())
    mainNodes.insert(&proto);
  // The main graph's initializers that no input overrides (a Scan 8's
  // sequence_lens must be one).
  llvm::StringSet<> constantInitializers;
  for (const onnx::TensorProto &t : model.graph().initializer())
    constantInitializers.insert(t.name());
  for (const onnx::ValueInfoProto &input : model.graph().input())
    constantInitializers.erase(input.name());
  // The declared ranks of the graph's values (inputs, value_info,
  // initializers), for the checks ONNX's own code needs before it runs.
  llvm::StringMap<int> declaredRank;
  const onnx::GraphProto &graph = model.graph();
  for (const auto *infos : {&graph.input(), &graph.value_info()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.type().has_tensor_type() &&
          info.type().tensor_type().has_shape())
        declaredRank[info.name()] =
            info.type().tensor_type().shape().dim_size();
  for (const onnx::TensorProto &t : graph.initializer())
    declaredRank[t.name()] = t.dims_size();
  // The nodes of the graph and of its subgraphs (If's branches, Loop's and
  // Scan's bodies), which ONNX's inference runs on too.
  std::vector<const onnx::NodeProto *> nodes;
  std::function<void(const onnx::GraphProto &)> collect =
      [&](const onnx::GraphProto &g) {
        for (const onnx::NodeProto &proto : g.node()) {
          nodes.push_back(&proto);
          for (const onnx::AttributeProto &a : proto.attribute()) {
            if (a.has_g())
              collect(a.g());
            for (const onnx::GraphProto &sub : a.graphs())
              collect(sub);
          }
        }
      };
  collect(graph);
  // The rank of input `i` of `proto`: declared, else as ONNX's inference
  // finds it before the node (main graph, and only while no earlier node
  // failed a check that keeps inference off it); -1 if neither knows.
  PrefixShapes prefixShapes(model);
  auto rankBefore = [&](const onnx::NodeProto &proto, int i) -> int64_t {
    auto it = declaredRank.find(proto.input(i));
    if (it != declaredRank.end())
      return it->second;
    return mainNodes.contains(&proto) && errors.empty()
               ? prefixShapes.rankBefore(proto, i)
               : -1;
  };
  for (const onnx::NodeProto *node : nodes) {
    const onnx::NodeProto &proto = *node;
    auto [opType, version] = opTypeOf(proto);
    // Scan 8's batch dimension: split per element before the version
    // converter (splitScan8), in the main graph, with sequence lengths
    // (each element's own length, which Scan 9 does not have) known at
    // import time.
    if (opType == "Scan" && version < 9) {
      const char *reason = nullptr;
      if (proto.input_size() > 0 && !proto.input(0).empty() &&
          !constantInitializers.count(proto.input(0)))
        reason = "Scan below opset 9 with sequence_lens of the run";
      else if (!mainNodes.contains(&proto))
        reason = "Scan below opset 9 inside a subgraph";
      if (reason) {
        auto &entry = unsupported[{opType, reason}];
        entry.first = version;
        ++entry.second;
      }
      continue;
    }
    if (table.count(opType)) {
      // Gemm's A and B are matrices; ONNX's version converter from opset
      // 6 reads out of bounds on another rank (and its shape inference
      // then crashes).
      if (opType == "Gemm")
        for (int i = 0; i < 2 && i < proto.input_size(); ++i) {
          auto it = declaredRank.find(proto.input(i));
          if (it != declaredRank.end() && it->second != 2)
            errors.push_back(
                "node '" +
                (proto.name().empty() ? proto.op_type() : proto.name()) +
                "' (Gemm): input " + (i == 0 ? "A" : "B") + " ('" +
                proto.input(i) + "') must be a matrix, but has rank " +
                std::to_string(it->second));
        }
      // ONNX 1.12's LayerNormalization inference indexes the input's
      // dimensions from the axis (cast to int) for its Mean and InvStdDev
      // outputs, unchecked: an axis below -rank, or one whose int is
      // negative, reads out of bounds. The rank is the declared one, else
      // the one inference finds before the node (main graph only).
      if (opType == "LayerNormalization" && proto.output_size() > 1) {
        int64_t axis = -1;
        for (const onnx::AttributeProto &a : proto.attribute())
          if (a.name() == "axis")
            axis = a.i();
        int64_t rank = proto.input_size() > 0 ? rankBefore(proto, 0) : -1;
        bool valid = rank >= 0 ? axis >= -rank && axis < rank
                               : axis >= 0 &&
                                     axis <= std::numeric_limits<int>::max();
        if (!valid)
          errors.push_back(
              "node '" +
              (proto.name().empty() ? proto.op_type() : proto.name()) +
              "' (LayerNormalization): axis " + std::to_string(axis) +
              (rank < 0 ? " is out of range, and the input's rank is not "
                          "known"
                        : " is out of range for an input of rank " +
                              std::to_string(rank)));
      }
      // ONNX 1.12's MaxUnpool inference reads dimension 1 of the indices'
      // shape unchecked, and crashes where that shape is not known (a
      // MaxPool whose own inference failed, an input declared without a
      // shape) or has rank below 2: the shape inference finds before the
      // node (on a copy of the graph up to it) is checked first.
      if (opType == "MaxUnpool") {
        std::string name =
            proto.name().empty() ? proto.op_type() : proto.name();
        if (!mainNodes.contains(&proto)) {
          auto &entry = unsupported[{opType, "MaxUnpool inside a subgraph"}];
          entry.first = version;
          ++entry.second;
          continue;
        }
        // (Not after an earlier node's error: the checks above keep
        // inference off those nodes, and the import fails anyway.)
        int64_t rank = proto.input_size() > 1 && errors.empty()
                           ? prefixShapes.rankBefore(proto, 1)
                           : -1;
        if (rank < 2 && errors.empty())
          errors.push_back(
              "node '" + name + "' (MaxUnpool): the shape of its indices" +
              (proto.input_size() > 1 ? " ('" + proto.input(1) + "')" : "") +
              (rank < 0 ? std::string(" is not known")
                        : " has rank " + std::to_string(rank) +
                              ", not that of the pooled input"));
      }
      // ONNX 1.12's convolution inference takes the window's rank from the
      // filter's and indexes the input's dimensions with it unchecked: the
      // two ranks must agree (declared, or as inference finds them before
      // the node).
      int filter = opType == "Conv" || opType == "ConvInteger" ||
                           opType == "ConvTranspose"
                       ? 1
                       : opType == "QLinearConv" ? 3 : -1;
      if (filter > 0 && proto.input_size() > filter) {
        int64_t inputRank = rankBefore(proto, 0),
                filterRank = rankBefore(proto, filter);
        if (inputRank >= 0 && filterRank >= 0 && inputRank != filterRank)
          errors.push_back(
              "node '" +
              (proto.name().empty() ? proto.op_type() : proto.name()) +
              "' (" + opType + "): its input ('" + proto.input(0) +
              "') has rank " + std::to_string(inputRank) +
              " and its filter ('" + proto.input(filter) + "') rank " +
              std::to_string(filterRank) + ": they must be equal");
      }
      // ONNX's window shape inference divides by these unchecked.
      if (opType == "Conv" || opType == "MaxPool" || opType == "AveragePool")
        for (const onnx::AttributeProto &a : proto.attribute()) {
          bool positive = a.name() == "strides" || a.name() == "dilations" ||
                          a.name() == "kernel_shape";
          if ((positive || a.name() == "pads") &&
              llvm::any_of(a.ints(), [&](int64_t v) {
                return positive ? v < 1 : v < 0;
              }))
            errors.push_back(
                "node '" +
                (proto.name().empty() ? proto.op_type() : proto.name()) +
                "' (" + opType + "): " + a.name() + " must be " +
                (positive ? "positive" : "non-negative"));
        }
      continue;
    }
    auto &entry = unsupported[{opType, ""}];
    entry.first = version;
    ++entry.second;
  }
  return reportProblems();
}

} // namespace gplace::frontend::onnx_import
