//===- MapSequence.cpp - ONNX sequences and optionals at import time ------===//
//
// Part of the ONNX importer: see OnnxImporter.h.
//
// gplace's graph has tensors only. An ONNX sequence is an import-time list
// of graph values (each its own tensor; shapes may differ) and an optional
// an import-time "present or absent" with its value, as XLA holds tuples:
// the ops on them move values between lists at import time and build no op
// (SplitToSequence's slices and ConcatFromSequence's concat excepted).
// - SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceAt,
//   SequenceErase: positions known at import time (a constant, a value
//   folded, or a graph input the caller gave), negative ones counting from
//   the end, as ONNX's spec; one out of range is an import error;
// - SequenceLength: an int64 scalar known at import time;
// - SequenceMap: its body imported once per element;
// - SplitToSequence, ConcatFromSequence: slices, a concat;
// - Optional, OptionalHasElement (a boolean known at import time),
//   OptionalGetElement (an import error if the optional is absent);
// - Identity of a sequence or an optional.
// A graph input that is a sequence or an optional takes its length,
// elements' shapes and presence from the value the caller gives
// (OnnxImportOptions::inputLists), each element an argument of its own;
// an output becomes one result per element (Importer.cpp). Loops carrying
// them unroll, and Ifs giving them need their condition known at import
// time (ControlFlow.cpp).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

constexpr const char *kSequenceOps[] = {
    "SequenceConstruct", "SequenceEmpty",      "SequenceInsert",
    "SequenceAt",        "SequenceErase",      "SequenceLength",
    "SequenceMap",       "SplitToSequence",    "ConcatFromSequence",
    "Optional",          "OptionalHasElement", "OptionalGetElement"};

/// Never called: Importer::importListNode imports these op types.
bool mapByImporter(Node &, SmallVectorImpl<Value> &, std::string &reason) {
  reason = "imported as an import-time list (MapSequence.cpp)";
  return false;
}

} // namespace

bool isSequenceOp(llvm::StringRef opType) {
  return llvm::is_contained(kSequenceOps, opType);
}

void addSequenceMappers(llvm::StringMap<MapFn> &table) {
  for (const char *op : kSequenceOps)
    table[op] = mapByImporter;
}

ArrayRef<int> sequenceImportTimeInputs(llvm::StringRef opType) {
  static const int second[] = {1}, third[] = {2};
  if (opType == "SequenceAt" || opType == "SequenceErase" ||
      opType == "SplitToSequence")
    return second;
  if (opType == "SequenceInsert")
    return third;
  return {};
}

void Importer::importListNode(const onnx::NodeProto &proto,
                              const std::string &name,
                              const std::string &opType, int64_t opset) {
  auto poison = [&] {
    for (const std::string &out : proto.output())
      poisoned.insert(out);
  };
  // An op type or form gplace lacks.
  auto fail = [&](std::string reason) {
    auto &entry = unsupported[{opType, std::move(reason)}];
    entry.first = opset;
    ++entry.second;
    poison();
  };
  // A model ONNX's spec makes wrong (a position out of range, an absent
  // optional read): an import error.
  auto invalid = [&](const std::string &why) {
    errors.push_back("node '" + name + "' (" + opType + "): " + why);
    poison();
  };
  Node node{*this, proto, name, NameLoc::get(b.getStringAttr(name), fileLoc),
            opset, {}};
  auto listIn = [&](int i) -> const ListValue * {
    if (!node.hasInput(i))
      return nullptr;
    auto it = lists.find(proto.input(i));
    return it == lists.end() ? nullptr : &it->second;
  };
  auto outName = [&](int i) -> std::string {
    return i < proto.output_size() ? proto.output(i) : std::string();
  };
  auto setList = [&](int i, ListValue list) {
    if (!outName(i).empty())
      lists[outName(i)] = std::move(list);
  };
  // A tensor output: its value, type, and constant if it is one.
  auto setValue = [&](int i, Value v) {
    std::string out = outName(i);
    if (out.empty())
      return;
    values[out] = v;
    types[out] = cast<RankedTensorType>(v.getType());
    if (auto c = v.getDefiningOp<ConstantOp>())
      if (auto value = dyn_cast<DenseElementsAttr>(c.getValue()))
        constants[out] = value;
  };
  auto setConstant = [&](int i, DenseElementsAttr value) {
    std::string out = outName(i);
    if (out.empty())
      return;
    constants[out] = value;
    types[out] = cast<RankedTensorType>(value.getType());
  };
  // Input `i` as a position (a one-element integer known at import time)
  // into a sequence of `size` elements: [-size, size - 1], or up to size
  // for an insertion. False (with the node recorded) where it is not.
  auto positionOf = [&](int i, int64_t size, bool insert,
                        int64_t &at) -> bool {
    std::optional<DenseElementsAttr> c = node.constant(i);
    if (!c || c->getNumElements() != 1 ||
        !c->getElementType().isSignlessInteger()) {
      fail("input " + std::to_string(i) +
           " ('position') must be one integer known at import time");
      return false;
    }
    int64_t given = toInts(*c)[0];
    at = given < 0 ? given + size : given;
    if (at < 0 || at > size || (!insert && at == size)) {
      invalid("position " + std::to_string(given) +
              " is out of range for a sequence of " + std::to_string(size) +
              " element" + (size == 1 ? "" : "s"));
      return false;
    }
    return true;
  };
  auto sequenceIn = [&](int i) -> const ListValue * {
    const ListValue *list = listIn(i);
    if (!list || list->optional) {
      fail("input " + std::to_string(i) + " is not a sequence");
      return nullptr;
    }
    return list;
  };
  auto scalarI64 = [&](int64_t v) {
    return DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                  b.getI64IntegerAttr(v));
  };
  // The ops built here must verify and pass the caller's check.
  Block *block = b.getInsertionBlock();
  Operation *last = block->empty() ? nullptr : &block->back();
  auto checkBuilt = [&]() -> bool {
    SmallVector<Operation *> created;
    for (Operation &op :
         last ? llvm::make_range(std::next(last->getIterator()), block->end())
              : llvm::make_range(block->begin(), block->end()))
      created.push_back(&op);
    std::string reason;
    {
      ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
        if (reason.empty())
          reason = diag.str();
        return success();
      });
      for (Operation *op : created)
        if (failed(mlir::verify(op)) && reason.empty())
          reason = "an op it becomes does not verify";
    }
    for (Operation *op : created)
      if (reason.empty() && options.checkOp)
        reason = options.checkOp(op);
    if (reason.empty())
      return true;
    for (Operation *op : llvm::reverse(created)) {
      op->dropAllUses();
      op->erase();
    }
    fail(reason);
    return false;
  };

  if (opType == "Identity") {
    return setList(0, *listIn(0));
  }
  if (opType == "SequenceConstruct") {
    ListValue list;
    for (int i = 0; i < proto.input_size(); ++i) {
      Value v = node.input(i);
      if (!v)
        return fail("input " + std::to_string(i) + " is not a tensor");
      list.elements.push_back(v);
    }
    return setList(0, std::move(list));
  }
  if (opType == "SequenceEmpty")
    return setList(0, ListValue());
  if (opType == "SequenceInsert") {
    const ListValue *seq = sequenceIn(0);
    if (!seq)
      return;
    Value v = node.input(1);
    if (!v)
      return fail("input 1 is not a tensor");
    ListValue list = *seq;
    int64_t at = list.elements.size();
    if (node.hasInput(2) &&
        !positionOf(2, list.elements.size(), /*insert=*/true, at))
      return;
    list.elements.insert(list.elements.begin() + at, v);
    return setList(0, std::move(list));
  }
  if (opType == "SequenceAt" || opType == "SequenceErase") {
    const ListValue *seq = sequenceIn(0);
    if (!seq)
      return;
    int64_t size = seq->elements.size();
    int64_t at = size - 1;
    if (node.hasInput(1)) {
      if (!positionOf(1, size, /*insert=*/false, at))
        return;
    } else if (size == 0) {
      return invalid("erases from an empty sequence");
    }
    if (opType == "SequenceAt")
      return setValue(0, seq->elements[at]);
    ListValue list = *seq;
    list.elements.erase(list.elements.begin() + at);
    return setList(0, std::move(list));
  }
  if (opType == "SequenceLength") {
    const ListValue *seq = sequenceIn(0);
    if (!seq)
      return;
    return setConstant(0, scalarI64(seq->elements.size()));
  }
  if (opType == "Optional") {
    ListValue list;
    list.optional = true;
    if (!node.hasInput(0)) {
      list.present = false;
      const onnx::AttributeProto *type = node.attr("type");
      list.ofSequence = type && type->has_tp() &&
                        type->tp().has_sequence_type();
    } else if (const ListValue *seq = listIn(0)) {
      if (seq->optional)
        return fail("an optional of an optional");
      list.ofSequence = true;
      list.elements = seq->elements;
    } else {
      Value v = node.input(0);
      if (!v)
        return fail("input 0 is neither a tensor nor a sequence");
      list.elements.push_back(v);
    }
    return setList(0, std::move(list));
  }
  if (opType == "OptionalHasElement") {
    // Opset 18: an omitted input is absent, a tensor or sequence present.
    const ListValue *list = listIn(0);
    bool present = list ? (!list->optional || list->present)
                        : node.hasInput(0);
    return setConstant(
        0, DenseElementsAttr::get(RankedTensorType::get({}, b.getI1Type()),
                                  present));
  }
  if (opType == "OptionalGetElement") {
    const ListValue *list = listIn(0);
    if (!list) { // Opset 18: a tensor is its own element.
      Value v = node.input(0);
      if (!v)
        return fail("input 0 is not given");
      return setValue(0, v);
    }
    if (!list->optional)
      return setList(0, *list);
    if (!list->present)
      return invalid("the optional '" + proto.input(0) +
                     "' has no element (absent in the value given for it)");
    if (!list->ofSequence)
      return setValue(0, list->elements[0]);
    ListValue seq;
    seq.elements = list->elements;
    return setList(0, std::move(seq));
  }
  if (opType == "SequenceMap") {
    const onnx::GraphProto *body = nullptr;
    for (const onnx::AttributeProto &a : proto.attribute())
      if (a.name() == "body" && a.has_g())
        body = &a.g();
    if (!body)
      return fail("no body");
    const ListValue *first = sequenceIn(0);
    if (!first)
      return;
    size_t length = first->elements.size();
    for (int i = 1; i < proto.input_size(); ++i)
      if (const ListValue *seq = listIn(i);
          seq && (seq->optional || seq->elements.size() != length))
        return invalid("input " + std::to_string(i) +
                       " is a sequence of another length than input 0's");
    if (static_cast<int64_t>(length) > kMaxUnrolledIterations)
      return fail("more than the " + std::to_string(kMaxUnrolledIterations) +
                  " elements gplace imports the body for");
    SmallVector<ListValue> outs(body->output_size());
    for (size_t j = 0; j < length; ++j) {
      SmallVector<std::pair<std::string, Value>> bindings;
      for (int i = 0; i < proto.input_size(); ++i) {
        const ListValue *seq = listIn(i);
        Value v = seq ? seq->elements[j] : node.input(i);
        if (!v)
          return fail("input " + std::to_string(i) + " is not given");
        bindings.push_back({"", v});
      }
      SmallVector<Value> results;
      SmallVector<std::optional<DenseElementsAttr>> resultConstants;
      std::string reason = importSubgraph(
          *body, bindings, name + "/element" + std::to_string(j) + "/",
          results, resultConstants);
      if (!reason.empty())
        return fail(reason);
      for (auto [k, v] : llvm::enumerate(results)) {
        if (!v)
          return fail("its body gives a sequence or an optional");
        outs[k].elements.push_back(v);
      }
    }
    for (auto [k, list] : llvm::enumerate(outs))
      setList(k, std::move(list));
    return;
  }
  if (opType == "SplitToSequence") {
    Value v = node.input(0);
    RankedTensorType type = node.inputType(0);
    if (!v || !type)
      return fail("input 0 is not a tensor");
    std::string reason;
    int64_t axis = node.getInt("axis", 0);
    if (!normalizeAxis(axis, type.getRank(), reason))
      return fail(reason);
    int64_t dim = type.getDimSize(axis);
    SmallVector<int64_t> sizes;
    bool squeeze = false;
    if (!node.hasInput(1)) {
      sizes.assign(dim, 1);
      squeeze = node.getInt("keepdims", 1) == 0;
    } else {
      SmallVector<int64_t> split = toInts(*node.constant(1));
      if (node.constant(1)->getType().getRank() == 0) {
        if (split[0] < 1)
          return invalid("split must be positive");
        for (int64_t at = 0; at < dim; at += split[0])
          sizes.push_back(std::min(split[0], dim - at));
      } else {
        sizes = split;
        int64_t sum = 0;
        for (int64_t s : sizes)
          sum += s < 0 ? dim + 1 : s;
        if (sum != dim)
          return invalid("the split sizes do not add up to dimension " +
                         std::to_string(axis) + "'s " + std::to_string(dim));
      }
    }
    ListValue list;
    int64_t at = 0;
    for (auto [k, size] : llvm::enumerate(sizes)) {
      SmallVector<int64_t> begin(type.getRank(), 0), shape(type.getShape());
      begin[axis] = at;
      shape[axis] = size;
      at += size;
      std::string suffix = "split" + std::to_string(k);
      Value part = node.op<SliceOp>(
          RankedTensorType::get(shape, type.getElementType()), v,
          {node.named("begin", b.getDenseI64ArrayAttr(begin)),
           node.named("size", b.getDenseI64ArrayAttr(shape))},
          suffix);
      if (squeeze) {
        shape.erase(shape.begin() + axis);
        part = node.reshape(part, shape, suffix + "_squeezed");
      }
      list.elements.push_back(part);
    }
    if (!checkBuilt())
      return;
    return setList(0, std::move(list));
  }
  if (opType == "ConcatFromSequence") {
    const ListValue *seq = sequenceIn(0);
    if (!seq)
      return;
    if (seq->elements.empty())
      return invalid("concatenates an empty sequence");
    auto type = cast<RankedTensorType>(seq->elements[0].getType());
    bool newAxis = node.getInt("new_axis", 0) != 0;
    int64_t axis = node.getInt("axis", 0);
    std::string reason;
    if (!normalizeAxis(axis, type.getRank() + (newAxis ? 1 : 0), reason))
      return fail(reason);
    SmallVector<Value> parts;
    int64_t total = 0;
    for (auto [k, element] : llvm::enumerate(seq->elements)) {
      Value v = element;
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() != type.getRank() ||
          t.getElementType() != type.getElementType())
        return fail("its elements differ in rank or element type");
      if (newAxis) {
        SmallVector<int64_t> one(t.getShape());
        one.insert(one.begin() + axis, 1);
        v = node.reshape(v, one, "expanded" + std::to_string(k));
      }
      total += cast<RankedTensorType>(v.getType()).getDimSize(axis);
      parts.push_back(v);
    }
    Value result = parts[0];
    if (parts.size() > 1) {
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(parts[0].getType()).getShape());
      shape[axis] = total;
      result = b.create<ConcatOp>(
          node.loc, RankedTensorType::get(shape, type.getElementType()),
          parts, b.getI64IntegerAttr(axis), StringAttr(),
          b.getStringAttr(name), StringAttr(), ValueRange());
    }
    if (!checkBuilt())
      return;
    return setValue(0, result);
  }
  fail("unsupported form");
}

} // namespace gplace::frontend::onnx_import

namespace gplace::frontend {
using namespace onnx_import;

StatusOr<std::pair<std::vector<OnnxValueKind>, std::vector<OnnxValueKind>>>
onnxValueKinds(llvm::StringRef bytes) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Status::invalidArgument("not an ONNX model");
  auto kindOf = [](const onnx::TypeProto &type) {
    return type.has_sequence_type()   ? OnnxValueKind::Sequence
           : type.has_optional_type() ? OnnxValueKind::Optional
                                      : OnnxValueKind::Tensor;
  };
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &t : model.graph().initializer())
    initializers.insert(t.name());
  std::pair<std::vector<OnnxValueKind>, std::vector<OnnxValueKind>> kinds;
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (!initializers.count(input.name()))
      kinds.first.push_back(kindOf(input.type()));
  for (const onnx::ValueInfoProto &output : model.graph().output())
    kinds.second.push_back(kindOf(output.type()));
  return kinds;
}

StatusOr<OnnxListValue> readListProtoFile(llvm::StringRef path,
                                          OnnxValueKind kind) {
  auto bad = [&](const std::string &why) {
    return Status::invalidArgument("'" + path.str() + "': " + why);
  };
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return bad("not a regular file");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return bad(buffer.getError().message());
  if ((*buffer)->getBufferSize() > static_cast<size_t>(INT_MAX))
    return bad("too large");
  std::string directory = llvm::sys::path::parent_path(path).str();
  auto host = [&](const onnx::TensorProto &tensor) -> StatusOr<HostTensor> {
    StatusOr<TensorType> type = tensorType(tensor);
    if (!type)
      return bad(type.status().message());
    StatusOr<std::vector<uint8_t>> bytes = tensorBytes(
        tensor, type->elementType, type->numElements(), directory);
    if (!bytes)
      return bad(bytes.status().message());
    HostTensor t(*type);
    t.data = std::move(*bytes);
    return t;
  };
  auto elementsOf = [&](const onnx::SequenceProto &seq,
                        OnnxListValue &value) -> Status {
    if (seq.elem_type() != onnx::SequenceProto::TENSOR &&
        !(seq.elem_type() == onnx::SequenceProto::UNDEFINED &&
          seq.tensor_values_size() == 0))
      return bad("a sequence of other than tensors");
    for (const onnx::TensorProto &t : seq.tensor_values()) {
      StatusOr<HostTensor> element = host(t);
      if (!element)
        return element.status();
      value.elements.push_back(std::move(*element));
    }
    return Status::ok();
  };
  const char *data = (*buffer)->getBufferStart();
  int size = static_cast<int>((*buffer)->getBufferSize());
  OnnxListValue value;
  if (kind == OnnxValueKind::Sequence) {
    onnx::SequenceProto seq;
    if (!seq.ParseFromArray(data, size))
      return bad("not an ONNX SequenceProto");
    if (Status s = elementsOf(seq, value); !s)
      return s;
    return value;
  }
  onnx::OptionalProto opt;
  if (kind != OnnxValueKind::Optional || !opt.ParseFromArray(data, size))
    return bad("not an ONNX OptionalProto");
  value.optional = true;
  if (opt.has_tensor_value()) {
    StatusOr<HostTensor> element = host(opt.tensor_value());
    if (!element)
      return element.status();
    value.elements.push_back(std::move(*element));
  } else if (opt.has_sequence_value()) {
    value.ofSequence = true;
    if (Status s = elementsOf(opt.sequence_value(), value); !s)
      return s;
  } else if (opt.elem_type() == onnx::OptionalProto::UNDEFINED ||
             opt.elem_type() == onnx::OptionalProto::TENSOR ||
             opt.elem_type() == onnx::OptionalProto::SEQUENCE) {
    value.present = false;
    value.ofSequence = opt.elem_type() == onnx::OptionalProto::SEQUENCE;
  } else {
    return bad("an optional of other than a tensor or a sequence");
  }
  return value;
}

} // namespace gplace::frontend
