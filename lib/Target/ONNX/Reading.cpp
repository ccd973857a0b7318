//===- Reading.cpp - parsing, checking and upgrading a model ---------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. What runs before the
// nodes are imported: the model parsed and checked by ONNX's checker
// (external data read within the model's folder), the op types and window
// attributes checked before ONNX's own code reads them, and opsets below
// 13 upgraded by ONNX's version converter.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

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
      (void)e;
    }
  }
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

LogicalResult Importer::checkNodes() {
  const llvm::StringMap<MapFn> &table = mappers();
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
  for (const onnx::NodeProto *node : nodes) {
    const onnx::NodeProto &proto = *node;
    auto [opType, version] = opTypeOf(proto);
    // Scan 8's batch dimension and sequence lengths: ONNX 1.12's version
    // converter drops the batch dimension from the graph's inputs too.
    if (opType == "Scan" && version < 9) {
      auto &entry = unsupported[{opType, "Scan below opset 9 (a batch "
                                         "dimension and sequence lengths)"}];
      entry.first = version;
      ++entry.second;
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
      // dimensions from the axis for its Mean and InvStdDev outputs,
      // unchecked: a negative axis below -rank reads out of bounds.
      if (opType == "LayerNormalization" && proto.output_size() > 1) {
        int64_t axis = -1;
        for (const onnx::AttributeProto &a : proto.attribute())
          if (a.name() == "axis")
            axis = a.i();
        auto it = proto.input_size() > 0 ? declaredRank.find(proto.input(0))
                                         : declaredRank.end();
        if (axis < 0 && (it == declaredRank.end() || axis < -it->second))
          errors.push_back(
              "node '" +
              (proto.name().empty() ? proto.op_type() : proto.name()) +
              "' (LayerNormalization): axis " + std::to_string(axis) +
              (it == declaredRank.end()
                   ? " is negative and the input's rank is not declared"
                   : " is out of range for an input of rank " +
                         std::to_string(it->second)));
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
