//===- Shapes.cpp - dimensions, node inference, folding ---------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

LogicalResult Importer::fixDimensions() {
  llvm::StringMap<int64_t> named;
  std::optional<int64_t> leading;
  std::string leadingText;
  for (const std::string &text : options.dims) {
    llvm::StringRef spec(text);
    bool hasName = spec.contains('=');
    auto [key, value] = hasName ? spec.rsplit('=')
                                : std::make_pair(llvm::StringRef(), spec);
    int64_t n;
    if (value.getAsInteger(10, n) || n < 0 || (hasName && key.empty())) {
      error() << "--dim '" << text
              << "' is not NAME=N or N (N a non-negative integer)";
      return failure();
    }
    // A dimension fixed twice is a mistake, even to one size: which
    // --dim a user meant cannot be guessed.
    if (key.empty() ? leading.has_value() : named.count(key) != 0) {
      error() << "--dim fixes "
              << (key.empty() ? std::string("the leading dimension")
                              : "'" + key.str() + "'")
              << " twice ('" << (key.empty() ? leadingText : key.str() + "=" + std::to_string(named.lookup(key)))
              << "' and '" << text << "'); give it once";
      return failure();
    }
    if (key.empty()) {
      leading = n;
      leadingText = text;
    } else {
      named[key] = n;
    }
  }
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &t : model.graph().initializer())
    initializerNames.insert(t.name());
  // A bare N is for the inputs' leading dimensions: ambiguous if they have
  // different names.
  if (leading) {
    std::vector<std::string> leadingNames;
    for (const onnx::ValueInfoProto &input : model.graph().input()) {
      if (initializerNames.count(input.name()) ||
          !input.type().has_tensor_type() ||
          !input.type().tensor_type().has_shape() ||
          input.type().tensor_type().shape().dim_size() == 0)
        continue;
      const auto &d = input.type().tensor_type().shape().dim(0);
      if (!d.has_dim_value() && !named.count(d.dim_param()) &&
          !llvm::is_contained(leadingNames, d.dim_param()))
        leadingNames.push_back(d.dim_param());
    }
    if (leadingNames.size() > 1) {
      std::string list;
      for (const std::string &n : leadingNames)
        list += (list.empty() ? "'" : ", '") +
                (n.empty() ? std::string("?") : n) + "'";
      error() << "--dim " << leadingText
              << " is ambiguous: the inputs' leading dimensions are " << list
              << "; fix each with --dim NAME=N";
      return failure();
    }
  }
  llvm::StringSet<> used;
  std::string missing;
  // The symbolic dimensions the inputs' values bind: name -> (size, input).
  llvm::StringMap<std::pair<int64_t, std::string>> bound;
  size_t position = 0;
  for (onnx::ValueInfoProto &input : *model.mutable_graph()->mutable_input()) {
    if (initializerNames.count(input.name()))
      continue;
    size_t index = position++;
    const std::vector<int64_t> *given =
        index < options.inputShapes.size() && options.inputShapes[index]
            ? &*options.inputShapes[index]
            : nullptr;
    if (!input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    auto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    // A value of another rank binds nothing (where every dimension is
    // static, the tool's own check of the value's type says more).
    bool dynamic = llvm::any_of(shape->dim(), [](const auto &d) {
      return !d.has_dim_value();
    });
    if (given && dynamic &&
        static_cast<int>(given->size()) != shape->dim_size()) {
      error() << "input '" << input.name() << "' has rank "
              << shape->dim_size() << ", but its value (input #" << index
              << ") has rank " << given->size();
      return failure();
    }
    for (int i = 0; i < shape->dim_size(); ++i) {
      onnx::TensorShapeProto::Dimension *d = shape->mutable_dim(i);
      if (d->has_dim_value())
        continue;
      std::string param = d->dim_param();
      if (!param.empty() && named.count(param)) {
        used.insert(param);
        d->set_dim_value(named[param]);
      } else if (i == 0 && leading) {
        d->set_dim_value(*leading);
      } else if (given) {
        // ONNX Runtime's binding: the value's size, the same wherever the
        // name appears.
        int64_t size = (*given)[i];
        if (!param.empty()) {
          auto [it, inserted] =
              bound.try_emplace(param, size, input.name());
          if (!inserted && it->second.first != size) {
            error() << "dimension '" << param << "' is " << it->second.first
                    << " in input '" << it->second.second << "' but " << size
                    << " in input '" << input.name() << "' (input #" << index
                    << ")";
            return failure();
          }
        }
        d->set_dim_value(size);
      } else if (missing.empty()) {
        missing = "input '" + input.name() + "' has dynamic dimension " +
                  std::to_string(i) +
                  (param.empty() ? std::string()
                                 : " ('" + param + "')") +
                  "; fix it with --dim " +
                  (param.empty() ? std::string(i == 0 ? "N" : "NAME=N")
                                 : param + "=N") +
                  " or give the input's value";
        // Values given for some inputs but not this one: say so (a
        // forgotten --input reads as a dynamic dimension otherwise).
        if (!options.inputShapes.empty() && index >= options.inputShapes.size())
          missing += " (input #" + std::to_string(index) + "; values given: " +
                     std::to_string(options.inputShapes.size()) + ")";
      }
    }
  }
  for (const auto &entry : named)
    if (!used.count(entry.getKey())) {
      error() << "--dim " << entry.getKey().str() << "=" << entry.getValue()
              << ": no input of '" << path << "' has a dimension named '"
              << entry.getKey().str() << "'";
      return failure();
    }
  if (!missing.empty()) {
    shapeProblem = true;
    error() << missing;
    return failure();
  }
  // A dimension bound (--dim, a value's shape) to a size no tensor can
  // have is the input's error, not the first node's that computes with it.
  for (const onnx::ValueInfoProto &input : model.graph().input()) {
    if (initializerNames.count(input.name()) ||
        !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    const auto &dims = input.type().tensor_type().shape().dim();
    uint64_t elements = 1;
    bool tooLarge = false;
    std::string shapeText;
    for (const auto &d : dims) {
      if (!d.has_dim_value())
        continue;
      uint64_t size =
          static_cast<uint64_t>(std::max<int64_t>(d.dim_value(), 0));
      tooLarge |= size != 0 && elements > (uint64_t(1) << 60) / size;
      elements = tooLarge ? elements : elements * size;
      shapeText +=
          (shapeText.empty() ? "" : "x") + std::to_string(d.dim_value());
    }
    if (tooLarge) {
      error() << "input '" << input.name() << "' would have more than 2^60 "
              << "elements (" << shapeText << ")";
      return failure();
    }
  }
  return success();
}

void Importer::inferNode(const onnx::NodeProto &proto) {
  onnx::ModelProto single;
  single.set_ir_version(model.ir_version());
  *single.mutable_opset_import() = model.opset_import();
  onnx::GraphProto *graph = single.mutable_graph();
  graph->set_name("node");
  *graph->add_node() = proto;
  llvm::StringSet<> given;
  for (const std::string &in : proto.input()) {
    if (in.empty() || !given.insert(in).second)
      continue;
    // A value known at import time, if small (a shape, an index, a
    // folded shape computation): inference reads its data.
    auto c = constants.find(in);
    if (c != constants.end() && c->second.getNumElements() <= 4096 &&
        toTensorProto(c->second, in, *graph->add_initializer()))
      continue;
    if (c != constants.end() && c->second.getNumElements() <= 4096)
      graph->mutable_initializer()->RemoveLast();
    RankedTensorType type;
    if (Value v = values.lookup(in))
      type = dyn_cast<RankedTensorType>(v.getType());
    else if (c != constants.end())
      type = cast<RankedTensorType>(c->second.getType());
    else
      type = types.lookup(in);
    if (!type)
      return;
    onnx::ValueInfoProto *input = graph->add_input();
    input->set_name(in);
    auto *tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(toOnnxType(type.getElementType()));
    auto *shape = tensor->mutable_shape();
    for (int64_t d : type.getShape())
      shape->add_dim()->set_dim_value(d);
  }
  for (const std::string &out : proto.output())
    if (!out.empty())
      graph->add_output()->set_name(out);
  // With data propagation first; where it throws, without: ONNX 1.12's
  // Concat propagation takes the length of its first input's data for
  // that input's rank, and fails on an empty one (a layer norm's
  // `Slice(Shape(X), 0, axis)` when the axis is the first dimension).
  onnx::ModelProto inferredModel;
  auto infer = [&](bool propagate) {
    inferredModel = single;
    try {
      onnx::ShapeInferenceOptions inference(/*check_type=*/false,
                                            /*error_mode=*/0, propagate);
      onnx::shape_inference::InferShapes(
          inferredModel, onnx::OpSchemaRegistry::Instance(), inference);
    } catch (const std::exception &) {
      return false;
    }
    return true;
  };
  if (!infer(/*propagate=*/true) && !infer(/*propagate=*/false))
    return; // The node's outputs stay without a type: the caller says so.
  for (const onnx::ValueInfoProto &info : inferredModel.graph().output()) {
    std::string why;
    bool elementType;
    if (std::optional<RankedTensorType> type =
            staticType(info.type(), &why, &elementType))
      types[info.name()] = *type;
  }
}

void Importer::foldCreated(ArrayRef<Operation *> created,
                           SmallVectorImpl<Value> &results,
                           const onnx::NodeProto &proto) {
  auto constantOf = [](Value v) -> Attribute {
    auto constant = v.getDefiningOp<ConstantOp>();
    return constant ? constant.getValue() : Attribute();
  };
  for (Operation *op : created) {
    if (isa<ConstantOp>(op) || op->getNumResults() != 1 || !isPure(op))
      continue;
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands())
      operands.push_back(constantOf(operand));
    if (llvm::is_contained(operands, Attribute()))
      continue;
    SmallVector<OpFoldResult, 1> folded;
    if (failed(op->fold(operands, folded)) || folded.size() != 1)
      continue;
    auto attr = dyn_cast<Attribute>(folded[0]);
    auto typed = dyn_cast_or_null<DenseElementsAttr>(attr);
    if (!typed || typed.getType() != op->getResult(0).getType())
      continue;
    b.setInsertionPoint(op);
    Value constant =
        b.create<ConstantOp>(op->getLoc(), TypeRange{typed.getType()},
                             ValueRange{},
                             ArrayRef<NamedAttribute>{
                                 b.getNamedAttr("value", typed),
                                 b.getNamedAttr("name", op->getAttr("name"))})
            ->getResult(0);
    Value old = op->getResult(0);
    old.replaceAllUsesWith(constant);
    for (Value &result : results)
      if (result == old)
        result = constant;
    op->erase();
  }
  b.setInsertionPointToEnd(b.getInsertionBlock());
  for (auto [i, out] : llvm::enumerate(proto.output()))
    if (!out.empty() && i < results.size() && results[i])
      if (auto constant = results[i].getDefiningOp<ConstantOp>())
        if (auto value = dyn_cast<DenseElementsAttr>(constant.getValue()))
          constants[out] = value;
}

} // namespace gplace::frontend::onnx_import
