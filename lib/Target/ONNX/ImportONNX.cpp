//===- ImportONNX.cpp - ONNX models to gplace graphs ----------------------===//
//
// ONNX's library reads, checks, upgrades and shape-infers the model; this
// file walks its nodes in order and maps each to graph ops (the mapping
// table at the end, one function per ONNX op type). Every op a node becomes
// is verified and must have a CPU kernel for its element type, or the node
// counts as an unsupported form of its op type: all of them are reported in
// one message.
//
//===----------------------------------------------------------------------===//

#include "gplace/Target/ONNX/ImportONNX.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/Shape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <climits>
#include <cstring>
#include <map>
#include <numeric>

using namespace mlir;
using namespace gplace::graph;
namespace rt = gplace::runtime;

namespace gplace::frontend {
namespace {

/// The opset the version converter brings older models to: the first with
/// Softmax over one axis, ReduceSum's axes as an input and today's Split,
/// Squeeze and Unsqueeze.
constexpr int64_t kTargetOpset = 13;

//===----------------------------------------------------------------------===//
// Tensors.
//===----------------------------------------------------------------------===//

/// gplace's element type for ONNX's TensorProto data type, if it has one.
std::optional<ElementType> toElementType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return ElementType::F32;
  case onnx::TensorProto::FLOAT16:
    return ElementType::F16;
  case onnx::TensorProto::BFLOAT16:
    return ElementType::BF16;
  case onnx::TensorProto::DOUBLE:
    return ElementType::F64;
  case onnx::TensorProto::INT32:
    return ElementType::I32;
  case onnx::TensorProto::INT64:
    return ElementType::I64;
  case onnx::TensorProto::BOOL:
    return ElementType::I1;
  case onnx::TensorProto::UINT8:
    return ElementType::UI8;
  default:
    return std::nullopt;
  }
}

std::string onnxTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  return "data type " + std::to_string(onnxType);
}

/// ONNX's TensorProto data type for an MLIR element type gplace has; 0
/// (UNDEFINED) for any other.
int32_t toOnnxType(Type element) {
  if (element.isF32())
    return onnx::TensorProto::FLOAT;
  if (element.isF16())
    return onnx::TensorProto::FLOAT16;
  if (element.isBF16())
    return onnx::TensorProto::BFLOAT16;
  if (element.isF64())
    return onnx::TensorProto::DOUBLE;
  if (element.isSignlessInteger(32))
    return onnx::TensorProto::INT32;
  if (element.isSignlessInteger(64))
    return onnx::TensorProto::INT64;
  if (element.isInteger(1))
    return onnx::TensorProto::BOOL;
  if (element.isUnsignedInteger(8))
    return onnx::TensorProto::UINT8;
  return onnx::TensorProto::UNDEFINED;
}

/// `value` as a TensorProto named `name` (raw data, little-endian as
/// DenseElementsAttr holds it; booleans one byte each), for ONNX's shape
/// inference to read; false for an element type ONNX has no twin for.
bool toTensorProto(DenseElementsAttr value, const std::string &name,
                   onnx::TensorProto &tensor) {
  auto type = cast<RankedTensorType>(value.getType());
  int32_t dataType = toOnnxType(type.getElementType());
  if (dataType == onnx::TensorProto::UNDEFINED)
    return false;
  tensor.set_name(name);
  tensor.set_data_type(dataType);
  for (int64_t d : type.getShape())
    tensor.add_dims(d);
  std::string raw;
  int64_t count = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    for (bool b : value.getValues<bool>())
      raw.push_back(b ? 1 : 0);
  } else {
    ArrayRef<char> data = value.getRawData();
    if (value.isSplat())
      for (int64_t i = 0; i < count; ++i)
        raw.append(data.data(), data.size());
    else
      raw.assign(data.data(), data.size());
  }
  tensor.set_raw_data(std::move(raw));
  return true;
}

Type toMlirType(ElementType type, MLIRContext *context) {
  Builder b(context);
  switch (type) {
  case ElementType::F32:
    return b.getF32Type();
  case ElementType::F16:
    return b.getF16Type();
  case ElementType::BF16:
    return b.getBF16Type();
  case ElementType::F64:
    return b.getF64Type();
  case ElementType::I32:
    return b.getI32Type();
  case ElementType::I64:
    return b.getI64Type();
  case ElementType::I1:
    return b.getI1Type();
  case ElementType::UI8:
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  }
  return {};
}

/// The bytes of `tensor` (`count` elements of `type`, gplace's host layout:
/// little-endian, one byte per bool), from its raw data, its typed fields
/// or its external data file (relative to `directory`).
rt::StatusOr<std::vector<uint8_t>> tensorBytes(const onnx::TensorProto &tensor,
                                               ElementType type, int64_t count,
                                               llvm::StringRef directory) {
  std::string what = "tensor '" + tensor.name() + "'";
  int64_t size = count * elementBytes(type);
  std::vector<uint8_t> bytes(size);
  if (tensor.has_segment())
    return rt::Status::invalidArgument(what + " is segmented, which gplace "
                                              "does not read");
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
      long long number = 0;
      bool isNumber =
          !llvm::StringRef(entry.value()).getAsInteger(10, number) &&
          number >= 0;
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset" || entry.key() == "length") {
        if (!isNumber)
          return rt::Status::invalidArgument(
              what + ": external data " + entry.key() + " '" + entry.value() +
              "' is not a non-negative integer");
        (entry.key() == "offset" ? offset : length) = number;
      }
    }
    if (location.empty())
      return rt::Status::invalidArgument(what +
                                         ": external data without a location");
    // As ONNX 1.13's checker (CVE-2022-25882): the data lies in the
    // model's directory or below it, never at an absolute path or up
    // through "..", which would let a model read any file of the host.
    bool outside = llvm::sys::path::is_absolute(location) ||
                   llvm::sys::path::has_root_name(location);
    for (auto it = llvm::sys::path::begin(location),
              end = llvm::sys::path::end(location);
         it != end && !outside; ++it)
      outside = *it == "..";
    if (outside)
      return rt::Status::invalidArgument(
          what + ": external data location '" + location +
          "' must be a relative path inside the model's directory");
    llvm::SmallString<256> file(directory);
    llvm::sys::path::append(file, location);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer)
      return rt::Status::invalidArgument(
          what + ": cannot read its external data '" + file.str().str() +
          "': " + buffer.getError().message());
    int64_t available = (*buffer)->getBufferSize();
    if (length < 0)
      length = available - std::min(offset, available);
    if (length != size || offset > available || available - offset < length)
      return rt::Status::invalidArgument(
          what + ": external data '" + location + "' holds " +
          std::to_string(std::max<int64_t>(0, std::min(length, available - std::min(offset, available)))) +
          " bytes at offset " + std::to_string(offset) + ", expected " +
          std::to_string(size));
    if (size)
      std::memcpy(bytes.data(), (*buffer)->getBufferStart() + offset, size);
    if (type == ElementType::I1) // gplace's bools are 0 or 1.
      for (uint8_t &b : bytes)
        b = b != 0;
    return bytes;
  }
  if (tensor.has_raw_data()) {
    if (static_cast<int64_t>(tensor.raw_data().size()) != size)
      return rt::Status::invalidArgument(
          what + " holds " + std::to_string(tensor.raw_data().size()) +
          " bytes of raw data, expected " + std::to_string(size));
    if (size)
      std::memcpy(bytes.data(), tensor.raw_data().data(), size);
    if (type == ElementType::I1) // gplace's bools are 0 or 1.
      for (uint8_t &b : bytes)
        b = b != 0;
    return bytes;
  }
  auto wrongCount = [&](int64_t got) {
    return rt::Status::invalidArgument(what + " holds " + std::to_string(got) +
                                       " values, expected " +
                                       std::to_string(count));
  };
  auto copy = [&](const auto &field, auto convert) -> rt::Status {
    if (field.size() != count)
      return wrongCount(field.size());
    int64_t width = elementBytes(type);
    for (int64_t i = 0; i < count; ++i) {
      auto value = convert(field.Get(i));
      std::memcpy(bytes.data() + i * width, &value, width);
    }
    return rt::Status::ok();
  };
  rt::Status copied = rt::Status::ok();
  switch (type) {
  case ElementType::F32:
    copied = copy(tensor.float_data(), [](float v) { return v; });
    break;
  case ElementType::F64:
    copied = copy(tensor.double_data(), [](double v) { return v; });
    break;
  case ElementType::I64:
    copied = copy(tensor.int64_data(), [](int64_t v) { return v; });
    break;
  case ElementType::I32:
    copied = copy(tensor.int32_data(), [](int32_t v) { return v; });
    break;
  case ElementType::F16:
  case ElementType::BF16: // The bits, in int32_data's low half.
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<uint16_t>(v); });
    break;
  case ElementType::I1:
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<uint8_t>(v != 0); });
    break;
  case ElementType::UI8:
    copied = copy(tensor.int32_data(),
                  [](int32_t v) { return static_cast<uint8_t>(v); });
    break;
  }
  if (!copied)
    return copied;
  return bytes;
}

/// `tensor`'s type, or an error naming what gplace lacks.
rt::StatusOr<rt::TensorType> tensorType(const onnx::TensorProto &tensor) {
  std::optional<ElementType> element = toElementType(tensor.data_type());
  if (!element)
    return rt::Status::invalidArgument(
        "tensor '" + tensor.name() + "' has element type " +
        onnxTypeName(tensor.data_type()) + ", which gplace does not have");
  rt::TensorType type;
  type.elementType = *element;
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return rt::Status::invalidArgument("tensor '" + tensor.name() +
                                         "' has a negative dimension");
    type.shape.push_back(d);
  }
  if (!checkedNumElements(type.shape))
    return rt::Status::invalidArgument("tensor '" + tensor.name() +
                                       "' is too large");
  return type;
}

/// `tensor` as a dense elements attribute.
rt::StatusOr<DenseElementsAttr> tensorAttr(const onnx::TensorProto &tensor,
                                           llvm::StringRef directory,
                                           MLIRContext *context) {
  rt::StatusOr<rt::TensorType> type = tensorType(tensor);
  if (!type)
    return type.status();
  rt::StatusOr<std::vector<uint8_t>> bytes = tensorBytes(
      tensor, type->elementType, type->numElements(), directory);
  if (!bytes)
    return bytes.status();
  auto shaped = RankedTensorType::get(
      type->shape, toMlirType(type->elementType, context));
  if (type->elementType == ElementType::I1) {
    llvm::SmallVector<bool> values(bytes->begin(), bytes->end());
    return DenseElementsAttr::get(shaped, llvm::ArrayRef<bool>(values));
  }
  return DenseElementsAttr::getFromRawBuffer(
      shaped, llvm::ArrayRef<char>(reinterpret_cast<const char *>(bytes->data()),
                                   bytes->size()));
}

/// The integers of an integer elements attribute.
SmallVector<int64_t> toInts(DenseElementsAttr attr) {
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

//===----------------------------------------------------------------------===//
// The importer.
//===----------------------------------------------------------------------===//

class Importer;

/// One node being imported: its inputs (materialized on demand, so that an
/// input read only as a constant, such as Reshape's shape, costs no op),
/// its outputs' types from shape inference, its attributes.
struct Node {
  Importer &importer;
  const onnx::NodeProto &proto;
  std::string name;
  Location loc;
  int64_t opset;
  SmallVector<RankedTensorType> outputTypes; ///< Null for an unused output.

  int64_t numInputs() const { return proto.input_size(); }
  bool hasInput(int i) const {
    return i < proto.input_size() && !proto.input(i).empty();
  }
  /// Input `i` as a value (null if absent).
  Value input(int i);
  RankedTensorType inputType(int i);
  /// Input `i`'s value if it is known at import time.
  std::optional<DenseElementsAttr> constant(int i);

  const onnx::AttributeProto *attr(llvm::StringRef attrName) const {
    for (const onnx::AttributeProto &a : proto.attribute())
      if (a.name() == attrName)
        return &a;
    return nullptr;
  }
  int64_t getInt(llvm::StringRef attrName, int64_t otherwise) const {
    const onnx::AttributeProto *a = attr(attrName);
    return a ? a->i() : otherwise;
  }
  float getFloat(llvm::StringRef attrName, float otherwise) const {
    const onnx::AttributeProto *a = attr(attrName);
    return a ? a->f() : otherwise;
  }
  std::string getString(llvm::StringRef attrName,
                        llvm::StringRef otherwise) const {
    const onnx::AttributeProto *a = attr(attrName);
    return a ? a->s() : otherwise.str();
  }
  std::optional<SmallVector<int64_t>> getInts(llvm::StringRef attrName) const {
    const onnx::AttributeProto *a = attr(attrName);
    if (!a)
      return std::nullopt;
    return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
  }

  // Building ops named after the node: the op that yields an output gets
  // the node's name, helpers `<name>/<suffix>`.
  template <typename OpT>
  Value op(Type type, ValueRange operands,
           ArrayRef<NamedAttribute> attributes = {}, llvm::StringRef suffix = "");
  Value constant(DenseElementsAttr value, llvm::StringRef suffix);
  /// A rank-0 constant of `like`'s element type.
  Value scalar(Type like, double value, llvm::StringRef suffix);
  Value reshape(Value v, ArrayRef<int64_t> shape, llvm::StringRef suffix = "");
  Value transpose(Value v, ArrayRef<int64_t> perm, llvm::StringRef suffix = "");
  /// min(a, b) as -max(-a, -b) (no minimum op).
  Value minimum(Value a, Value b, RankedTensorType type,
                llvm::StringRef suffix = "");
  /// The type of a numpy-broadcast elementwise op on `a` and `b`.
  RankedTensorType broadcastType(Value a, Value b);
  NamedAttribute named(llvm::StringRef attrName, Attribute value);
  Builder &builder();
};

using MapFn = bool (*)(Node &node, SmallVectorImpl<Value> &results,
                       std::string &reason);
const llvm::StringMap<MapFn> &mappers();

class Importer {
public:
  Importer(MLIRContext *context, llvm::StringRef path,
           const OnnxImportOptions &options)
      : context(context), b(context), path(path.str()), options(options),
        fileLoc(FileLineColLoc::get(context, path, 0, 0)) {
    directory = llvm::sys::path::parent_path(path).str();
  }

  OwningOpRef<ModuleOp> run(llvm::StringRef bytes) {
    OwningOpRef<ModuleOp> module = import(bytes);
    if (options.report) {
      for (const auto &[key, value] : unsupported)
        options.report->unsupported.push_back(
            {key.first, value.first, key.second, value.second});
      options.report->unsupportedType = typeProblem;
      options.report->dynamicShape = shapeProblem;
    }
    return module;
  }

  MLIRContext *context;
  OpBuilder b;
  std::string path, directory;
  const OnnxImportOptions &options;
  Location fileLoc;
  onnx::ModelProto model;
  int64_t opset = 0;
  /// Values imported so far, by ONNX name.
  llvm::StringMap<Value> values;
  /// Values known at import time: initializers, Constant nodes, shapes.
  llvm::StringMap<DenseElementsAttr> constants;
  /// The initializers, by name (materialized on first use).
  llvm::StringMap<const onnx::TensorProto *> initializers;
  /// Static types from the graph's inputs, outputs and value_info.
  llvm::StringMap<RankedTensorType> types;
  /// Every type shape inference gave, static or not.
  llvm::StringMap<const onnx::TypeProto *> inferred;
  /// Names an unsupported node produced: nodes reading them are skipped.
  llvm::StringSet<> poisoned;
  /// Names materialized while the current node is imported (forgotten if
  /// the node is rolled back).
  SmallVector<std::string> materialized;

  /// Unsupported op types and forms: (op type, reason) -> (opset, nodes).
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>
      unsupported;
  /// Other errors (missing shapes), in node order.
  SmallVector<std::string> errors;
  /// What staticType refused: an element type, or a shape.
  bool typeProblem = false, shapeProblem = false;

  InFlightDiagnostic error() { return mlir::emitError(fileLoc); }
  Value materialize(llvm::StringRef name);
  /// `type` as a static tensor type; else std::nullopt, with `why` ("has
  /// element type INT8, which gplace does not have") and whether an element
  /// type (`*elementType`) or a shape is what gplace cannot take.
  std::optional<RankedTensorType> staticType(const onnx::TypeProto &type,
                                             std::string *why,
                                             bool *elementType) const;
  /// staticType for a value the import needs: a refusal is recorded in
  /// typeProblem or shapeProblem.
  std::optional<RankedTensorType> neededType(const onnx::TypeProto &type,
                                             std::string *why);

private:
  OwningOpRef<ModuleOp> import(llvm::StringRef bytes);
  LogicalResult parse(llvm::StringRef bytes);
  /// The op type of `proto` as the tables spell it ("Relu", or
  /// "domain.Type" outside the default domain) and its domain's opset.
  std::pair<std::string, int64_t> opTypeOf(const onnx::NodeProto &proto) const;
  /// Fails, listing them, if any node's op type has no mapping, or a Conv or
  /// pool has a stride, dilation or kernel size below 1 or a negative pad:
  /// before the version converter and shape inference, whose code is then
  /// never run on them (ONNX 1.12's LayerNormalization inference crashes on
  /// an axis below -rank, its window inference divides by the strides).
  LogicalResult checkNodes();
  /// Opsets below 13 to 13 with ONNX's version converter, where it can.
  void upgrade();
  LogicalResult fixDimensions();
  /// The types ONNX's shape inference gives `proto`'s outputs when it runs
  /// on the node alone, over the types of the values imported so far and
  /// the values known at import time (shapes, folded constants) as
  /// initializers: where inference over the whole model left a dimension
  /// dynamic because it could not see through a computed shape. Fills
  /// `types` for the outputs it makes static.
  void inferNode(const onnx::NodeProto &proto);
  /// Folds the ops one node became (`created`, in order) whose operands are
  /// constants, with the graph ops' fold hooks (GraphFolds.cpp); `results`
  /// is updated, and an output that folds becomes known at import time.
  void foldCreated(ArrayRef<Operation *> created,
                   SmallVectorImpl<Value> &results,
                   const onnx::NodeProto &proto);
  void importNode(const onnx::NodeProto &proto);
  LogicalResult reportProblems();
};

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

template <typename OpT>
Value Node::op(Type type, ValueRange operands,
               ArrayRef<NamedAttribute> attributes, llvm::StringRef suffix) {
  SmallVector<NamedAttribute> attrs(attributes);
  attrs.push_back(named("name", importer.b.getStringAttr(
                                    suffix.empty() ? name
                                                   : name + "/" + suffix.str())));
  return importer.b.create<OpT>(loc, TypeRange{type}, operands, attrs)
      ->getResult(0);
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

Value Node::transpose(Value v, ArrayRef<int64_t> perm,
                      llvm::StringRef suffix) {
  auto in = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in.getDimSize(p));
  return op<TransposeOp>(RankedTensorType::get(shape, in.getElementType()), v,
                         {named("perm", importer.b.getDenseI64ArrayAttr(perm))},
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
  // The checker, with the model's directory for external data.
  try {
    bool external = false;
    for (const onnx::TensorProto &t : model.graph().initializer())
      external |= t.data_location() == onnx::TensorProto::EXTERNAL;
    if (external)
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
    // The converter copies initializers as they are, external data
    // included: the import reads their data afterwards.
    try {
      onnx::ModelProto converted =
          onnx::version_conversion::ConvertVersion(model, kTargetOpset);
      model = std::move(converted);
      opset = kTargetOpset;
    } catch (const std::exception &e) {
      // The model stays at its opset: the mapping handles the older forms
      // of the ops it maps, and names the opset of those it does not.
      (void)e;
    }
  }
}

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
  for (const onnx::NodeProto &proto : model.graph().node()) {
    auto [opType, version] = opTypeOf(proto);
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

void Importer::importNode(const onnx::NodeProto &proto) {
  std::string name = !proto.name().empty()    ? proto.name()
                     : proto.output_size() > 0 ? proto.output(0)
                                               : proto.op_type();
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
  bool mapped = mapper->second(node, results, reason);
  // The ops this node became: each must verify and have a CPU kernel.
  SmallVector<Operation *> created;
  for (Operation &op : last ? llvm::make_range(std::next(last->getIterator()),
                                               block->end())
                            : llvm::make_range(block->begin(), block->end()))
    created.push_back(&op);
  if (mapped) {
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      if (reason.empty())
        reason = diag.str();
      return success();
    });
    const KernelRegistry &registry = KernelRegistry::global();
    for (Operation *op : created) {
      if (failed(mlir::verify(op))) {
        mapped = false;
        break;
      }
      std::string element = getKernelElementTypeName(op);
      if (!element.empty() &&
          !registry.hasKernel(op->getName().getStringRef().str(),
                              parseElementType(element), DeviceType::CPU)) {
        reason = "no " + op->getName().getStringRef().str() + " kernel for " +
                 element;
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
  try {
    onnx::ShapeInferenceOptions inference(/*check_type=*/false,
                                          /*error_mode=*/0,
                                          /*enable_data_propagation=*/true);
    onnx::shape_inference::InferShapes(
        single, onnx::OpSchemaRegistry::Instance(), inference);
  } catch (const std::exception &) {
    return; // The node's outputs stay without a type: the caller says so.
  }
  for (const onnx::ValueInfoProto &info : single.graph().output()) {
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
  upgrade();
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
  try {
    onnx::ShapeInferenceOptions inference(/*check_type=*/false,
                                          /*error_mode=*/0,
                                          /*enable_data_propagation=*/true);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), inference);
  } catch (const std::exception &e) {
    error() << "ONNX's shape inference fails on '" << path << "': " << e.what();
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
    rt::StatusOr<DenseElementsAttr> value = tensorAttr(t, directory, context);
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
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    std::string why;
    std::optional<RankedTensorType> type = neededType(input.type(), &why);
    if (!type) {
      error() << "input '" << input.name() << "' " << why;
      return nullptr;
    }
    types[input.name()] = *type;
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
  b.setInsertionPointToEnd(entry);

  for (const onnx::NodeProto &node : graph.node())
    importNode(node);
  if (failed(reportProblems()))
    return nullptr;

  SmallVector<Value> results;
  for (auto [output, declared] : llvm::zip(graph.output(), declaredOutputs)) {
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
  }
  func.setFunctionType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  b.create<func::ReturnOp>(fileLoc, results);
  // Constants the import folded and nothing reads.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*entry)))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  for (auto [i, output] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "gplace.name", b.getStringAttr(output.name()));
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// The mapping: one function per ONNX op type.
//===----------------------------------------------------------------------===//

bool isFloat(Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); }

/// Normalizes `axis` (negative counts from the end) for `rank` dimensions.
bool normalizeAxis(int64_t &axis, int64_t rank, std::string &reason) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank) {
    reason = "axis out of range";
    return false;
  }
  return true;
}

/// `F` for an op type ONNX defines on floating-point tensors only, whose
/// composition would compute something else on integers.
template <MapFn F>
bool floatInput(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  Type type = n.inputType(0);
  if (!type || !isFloat(type)) {
    reason = type ? "a non-float input" : "an omitted input";
    return false;
  }
  return F(n, results, reason);
}

template <typename OpT>
bool mapUnary(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<OpT>(n.outputTypes[0], n.input(0)));
  return true;
}

template <typename OpT>
bool mapBinary(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<OpT>(n.outputTypes[0], {n.input(0), n.input(1)}));
  return true;
}

/// Pow: gplace.pow, TensorFlow's, of one floating-point type (ONNX lets the
/// exponent have another type, an integer one too).
bool mapPow(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType base = n.inputType(0), exponent = n.inputType(1);
  if (!base || !exponent || !isFloat(base) ||
      base.getElementType() != exponent.getElementType()) {
    reason = "an exponent of another type than the base, or integers";
    return false;
  }
  results.push_back(n.op<PowOp>(n.outputTypes[0], {n.input(0), n.input(1)}));
  return true;
}

bool mapAbs(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Value negated = n.op<NegOp>(x.getType(), x, {}, "neg");
  results.push_back(n.op<MaximumOp>(n.outputTypes[0], {x, negated}));
  return true;
}

bool mapReciprocal(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Value one = n.scalar(x.getType(), 1.0, "one");
  results.push_back(n.op<DivOp>(n.outputTypes[0], {one, x}));
  return true;
}

bool mapLeakyRelu(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  float alpha = n.getFloat("alpha", 0.01f);
  if (alpha < 0 || alpha > 1) {
    reason = "alpha outside [0, 1]";
    return false;
  }
  Value x = n.input(0);
  Value scaled = n.op<MulOp>(x.getType(), {x, n.scalar(x.getType(), alpha,
                                                       "alpha")},
                             {}, "mul");
  results.push_back(n.op<MaximumOp>(n.outputTypes[0], {x, scaled}));
  return true;
}

/// relu(-x), for the activations below: -min(x, 0).
Value negativePart(Node &n, Value x, llvm::StringRef suffix) {
  Value neg = n.op<NegOp>(x.getType(), x, {}, (suffix + "_neg").str());
  return n.op<ReluOp>(x.getType(), neg, {}, suffix);
}

/// PRelu: relu(x) - slope * relu(-x), the slope broadcast to x.
bool mapPRelu(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value x = n.input(0), slope = n.input(1);
  RankedTensorType out = n.outputTypes[0];
  if (n.broadcastType(x, slope) != out) {
    reason = "a slope that does not broadcast to the input";
    return false;
  }
  Value positive = n.op<ReluOp>(out, x, {}, "positive");
  Value negative = negativePart(n, x, "negative");
  Value scaled = n.op<MulOp>(out, {negative, slope}, {}, "scaled");
  results.push_back(n.op<SubOp>(out, {positive, scaled}));
  return true;
}

/// Elu and Selu: gamma * (relu(x) + alpha * (exp(-relu(-x)) - 1)).
template <bool Scaled>
bool mapElu(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Type t = x.getType();
  float alpha = n.getFloat("alpha", Scaled ? 1.67326319217681884765625f : 1.0f);
  float gamma = n.getFloat("gamma", 1.05070102214813232421875f);
  Value positive = n.op<ReluOp>(t, x, {}, "positive");
  Value negative = negativePart(n, x, "negative");
  Value minimum = n.op<NegOp>(t, negative, {}, "minimum");
  Value exp = n.op<ExpOp>(t, minimum, {}, "exp");
  Value expm1 = n.op<SubOp>(t, {exp, n.scalar(t, 1.0, "one")}, {}, "expm1");
  Value scaled = n.op<MulOp>(t, {expm1, n.scalar(t, alpha, "alpha")}, {},
                             "scaled");
  Value elu = n.op<AddOp>(t, {positive, scaled}, {}, Scaled ? "elu" : "");
  if (Scaled)
    elu = n.op<MulOp>(t, {elu, n.scalar(t, gamma, "gamma")});
  results.push_back(elu);
  return true;
}

/// Softplus: relu(x) + log(1 + exp(-|x|)), which does not overflow.
bool mapSoftplus(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Type t = x.getType();
  Value neg = n.op<NegOp>(t, x, {}, "neg");
  Value abs = n.op<MaximumOp>(t, {x, neg}, {}, "abs");
  Value negAbs = n.op<NegOp>(t, abs, {}, "neg_abs");
  Value exp = n.op<ExpOp>(t, negAbs, {}, "exp");
  Value onePlus = n.op<AddOp>(t, {exp, n.scalar(t, 1.0, "one")}, {}, "add");
  Value log = n.op<LogOp>(t, onePlus, {}, "log");
  Value positive = n.op<ReluOp>(t, x, {}, "positive");
  results.push_back(n.op<AddOp>(t, {positive, log}));
  return true;
}

/// Clip: max(x, min) then min(., max); bounds from attributes (opset < 11)
/// or optional inputs.
bool mapClip(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Value lo, hi;
  if (n.opset < 11) {
    if (n.attr("min"))
      lo = n.scalar(x.getType(), n.getFloat("min", 0), "min");
    if (n.attr("max"))
      hi = n.scalar(x.getType(), n.getFloat("max", 0), "max");
  } else {
    lo = n.input(1);
    hi = n.input(2);
  }
  Value y = x;
  if (lo)
    y = n.op<MaximumOp>(n.outputTypes[0], {y, lo}, {}, hi ? "lower" : "");
  if (hi)
    y = n.minimum(y, hi, n.outputTypes[0]);
  if (!lo && !hi)
    y = n.op<IdentityOp>(n.outputTypes[0], x);
  results.push_back(y);
  return true;
}

bool mapHardSigmoid(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  Type t = x.getType();
  Value ax = n.op<MulOp>(t, {x, n.scalar(t, n.getFloat("alpha", 0.2f),
                                         "alpha")}, {}, "mul");
  Value axb = n.op<AddOp>(t, {ax, n.scalar(t, n.getFloat("beta", 0.5f),
                                           "beta")}, {}, "add");
  Value lower = n.op<MaximumOp>(t, {axb, n.scalar(t, 0.0, "zero")}, {},
                                "lower");
  results.push_back(n.minimum(lower, n.scalar(t, 1.0, "one"),
                              n.outputTypes[0]));
  return true;
}

/// Sum, Max, Min, Mean of one or more broadcastable inputs.
template <typename Kind>
bool mapVariadic(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  for (int i = 0; i < n.numInputs(); ++i)
    if (!n.hasInput(i)) {
      reason = "an omitted input";
      return false;
    }
  Value acc = n.input(0);
  for (int i = 1; i < n.numInputs(); ++i) {
    Value next = n.input(i);
    RankedTensorType type = n.broadcastType(acc, next);
    if (!type) {
      reason = "inputs do not broadcast";
      return false;
    }
    bool last = i + 1 == n.numInputs() && !Kind::mean;
    std::string suffix = last ? "" : "acc_" + std::to_string(i);
    if (Kind::op == 0)
      acc = n.op<AddOp>(type, {acc, next}, {}, suffix);
    else if (Kind::op == 1)
      acc = n.op<MaximumOp>(type, {acc, next}, {}, suffix);
    else
      acc = n.minimum(acc, next, type, suffix);
  }
  if (Kind::mean && n.numInputs() > 1)
    acc = n.op<DivOp>(n.outputTypes[0],
                      {acc, n.scalar(acc.getType(), n.numInputs(), "count")});
  else if (n.numInputs() == 1)
    acc = n.op<IdentityOp>(n.outputTypes[0], acc);
  results.push_back(acc);
  return true;
}
struct SumKind { static constexpr int op = 0; static constexpr bool mean = false; };
struct MaxKind { static constexpr int op = 1; static constexpr bool mean = false; };
struct MinKind { static constexpr int op = 2; static constexpr bool mean = false; };
struct MeanKind { static constexpr int op = 0; static constexpr bool mean = true; };

/// MatMul of a right operand of rank > 2: numpy's broadcast over the batch
/// dimensions, one gplace.matmul per product (at most 256), joined.
bool batchedMatMul(Node &n, SmallVectorImpl<Value> &results,
                   std::string &reason) {
  Value a = n.input(0), b = n.input(1);
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() < 2) {
    reason = "a rank-1 left operand with a batched right one";
    return false;
  }
  ArrayRef<int64_t> batchA = ta.getShape().drop_back(2);
  ArrayRef<int64_t> batchB = tb.getShape().drop_back(2);
  std::optional<std::vector<int64_t>> batch = broadcastShapes(batchA, batchB);
  if (!batch) {
    reason = "batch dimensions that do not broadcast";
    return false;
  }
  int64_t count = 1;
  for (int64_t d : *batch)
    count *= d;
  if (count > 256) {
    reason = "more than 256 batched products";
    return false;
  }
  int64_t m = ta.getDimSize(ta.getRank() - 2);
  int64_t cols = tb.getShape().back();
  Type element = ta.getElementType();
  Builder &builder = n.builder();
  // Operand `x` (batch dims `dims`) at broadcast batch index `flat`, as a
  // matrix.
  auto matrix = [&](Value x, RankedTensorType type, ArrayRef<int64_t> dims,
                    int64_t flat, llvm::StringRef what) {
    SmallVector<int64_t> begin(type.getRank(), 0), size(type.getShape());
    int64_t rest = flat;
    for (int64_t i = batch->size() - 1; i >= 0; --i) {
      int64_t index = rest % (*batch)[i];
      rest /= (*batch)[i];
      int64_t d = i - (static_cast<int64_t>(batch->size()) - dims.size());
      if (d < 0)
        continue;
      begin[d] = dims[d] == 1 ? 0 : index;
      size[d] = 1;
    }
    SmallVector<int64_t> sliced(size);
    Value part = n.op<SliceOp>(
        RankedTensorType::get(sliced, element), x,
        {n.named("begin", builder.getDenseI64ArrayAttr(begin)),
         n.named("size", builder.getDenseI64ArrayAttr(size))},
        (what + "_" + std::to_string(flat)).str());
    ArrayRef<int64_t> shape = type.getShape().take_back(2);
    return n.reshape(part, shape, (what + "_matrix_" + std::to_string(flat)).str());
  };
  SmallVector<Value> products;
  auto productType = RankedTensorType::get({1, m, cols}, element);
  for (int64_t i = 0; i < count; ++i) {
    Value lhs = matrix(a, ta, batchA, i, "lhs");
    Value rhs = matrix(b, tb, batchB, i, "rhs");
    Value p = n.op<MatmulOp>(RankedTensorType::get({m, cols}, element),
                             {lhs, rhs}, {}, "MatMul_" + std::to_string(i));
    products.push_back(n.reshape(p, productType.getShape(),
                                 "product_" + std::to_string(i)));
  }
  Value joined = products.front();
  if (products.size() > 1)
    joined = n.importer.b.create<ConcatOp>(
        n.loc, RankedTensorType::get({count, m, cols}, element), products,
        builder.getI64IntegerAttr(0), StringAttr(),
        builder.getStringAttr(n.name + "/concat"), StringAttr(), ValueRange());
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], joined));
  return true;
}

/// MatMul: rank 2 directly; a rank-1 operand as a row or a column; a
/// higher-rank left operand against a rank-2 right one as one product over
/// its rows (numpy's matmul).
bool mapMatMul(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value a = n.input(0), b = n.input(1);
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() == 0 || tb.getRank() == 0) {
    reason = "a scalar operand";
    return false;
  }
  if (tb.getRank() > 2)
    return batchedMatMul(n, results, reason);
  if (tb.getRank() == 1)
    b = n.reshape(b, {tb.getDimSize(0), 1}, "rhs_column");
  int64_t k = ta.getShape().back();
  int64_t rows = 1;
  for (int64_t d : ta.getShape().drop_back())
    rows *= d;
  if (ta.getRank() != 2)
    a = n.reshape(a, {rows, k}, "lhs_rows");
  int64_t cols = cast<RankedTensorType>(b.getType()).getDimSize(1);
  auto productType =
      RankedTensorType::get({rows, cols}, ta.getElementType());
  bool direct = productType == n.outputTypes[0];
  Value product =
      n.op<MatmulOp>(productType, {a, b}, {}, direct ? "" : "MatMul");
  results.push_back(direct ? product
                           : n.reshape(product, n.outputTypes[0].getShape()));
  return true;
}

/// Gemm: alpha * op(A) op(B) + beta * C, C broadcast to [M, N].
bool mapGemm(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value a = n.input(0), b = n.input(1), c = n.input(2);
  float alpha = n.getFloat("alpha", 1), beta = n.getFloat("beta", 1);
  RankedTensorType out = n.outputTypes[0];
  SmallVector<NamedAttribute> attrs;
  if (n.getInt("transA", 0))
    attrs.push_back(n.named("transpose_a", n.builder().getUnitAttr()));
  if (n.getInt("transB", 0))
    attrs.push_back(n.named("transpose_b", n.builder().getUnitAttr()));
  bool last = !c && alpha == 1;
  Value y = n.op<MatmulOp>(out, {a, b}, attrs, last ? "" : "MatMul");
  if (alpha != 1)
    y = n.op<MulOp>(out, {y, n.scalar(out, alpha, "alpha")}, {},
                    c ? "mul_alpha" : "");
  if (c) {
    if (beta != 1)
      c = n.op<MulOp>(c.getType(), {c, n.scalar(out, beta, "beta")}, {},
                      "mul_beta");
    if (n.broadcastType(y, c) != out) {
      reason = "C does not broadcast to [M, N]";
      return false;
    }
    y = n.op<AddOp>(out, {y, c});
  }
  results.push_back(y);
  return true;
}

/// Softmax and LogSoftmax over the last axis of `x` (a float tensor).
Value softmaxLastAxis(Node &n, Value x, bool log, bool final) {
  auto type = cast<RankedTensorType>(x.getType());
  if (!log)
    return n.op<SoftmaxOp>(type, x, {}, final ? "" : "Softmax");
  // x - max - log(sum(exp(x - max))), stable for large logits.
  int64_t last = type.getRank() - 1;
  SmallVector<int64_t> kept(type.getShape());
  kept.back() = 1;
  auto keptType = RankedTensorType::get(kept, type.getElementType());
  Builder &b = n.builder();
  SmallVector<NamedAttribute> reduce = {
      n.named("axes", b.getDenseI64ArrayAttr({last})),
      n.named("keep_dims", b.getUnitAttr())};
  Value max = n.op<ReduceMaxOp>(keptType, x, reduce, "max");
  Value shifted = n.op<SubOp>(type, {x, max}, {}, "shifted");
  Value exp = n.op<ExpOp>(type, shifted, {}, "exp");
  Value sum = n.op<ReduceSumOp>(keptType, exp, reduce, "sum");
  Value logSum = n.op<LogOp>(keptType, sum, {}, "log");
  return n.op<SubOp>(type, {shifted, logSum}, {}, final ? "" : "LogSoftmax");
}

template <bool Log>
bool mapSoftmax(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (rank == 0) {
    reason = "a scalar input";
    return false;
  }
  int64_t axis = n.getInt("axis", n.opset < 13 ? 1 : -1);
  if (!normalizeAxis(axis, rank, reason))
    return false;
  if (n.opset < 13) {
    // The input coerced to 2-D at `axis`.
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? outer : inner) *= type.getDimSize(d);
    if (rank == 2 && axis == 1) {
      results.push_back(softmaxLastAxis(n, x, Log, true));
      return true;
    }
    Value flat = n.reshape(x, {outer, inner}, "coerced");
    Value y = softmaxLastAxis(n, flat, Log, false);
    results.push_back(n.reshape(y, type.getShape()));
    return true;
  }
  if (axis == rank - 1) {
    results.push_back(softmaxLastAxis(n, x, Log, true));
    return true;
  }
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  Value moved = n.transpose(x, perm, "to_last");
  Value y = softmaxLastAxis(n, moved, Log, false);
  results.push_back(n.transpose(y, inverse));
  return true;
}

/// The axes of a Reduce* node: attribute or (ReduceSum from opset 13)
/// input 1, normalized; all axes when none are given, unless
/// noop_with_empty_axes.
bool reduceAxes(Node &n, SmallVectorImpl<int64_t> &axes, bool &noop,
                std::string &reason) {
  int64_t rank = n.inputType(0).getRank();
  std::optional<SmallVector<int64_t>> given;
  bool axesInput = n.proto.op_type() == "ReduceSum" && n.opset >= 13;
  if (axesInput) {
    if (n.hasInput(1)) {
      std::optional<DenseElementsAttr> c = n.constant(1);
      if (!c) {
        reason = "axes computed at run time";
        return false;
      }
      given = toInts(*c);
    }
  } else {
    given = n.getInts("axes");
  }
  noop = false;
  if (!given || given->empty()) {
    if (n.getInt("noop_with_empty_axes", 0)) {
      noop = true;
      return true;
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
    return true;
  }
  for (int64_t a : *given) {
    if (!normalizeAxis(a, rank, reason))
      return false;
    axes.push_back(a);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return true;
}

enum class ReduceKind {
  Sum, Mean, Max, Min, SumSquare, L1, L2, LogSum, LogSumExp
};

template <ReduceKind Kind>
bool mapReduce(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  SmallVector<int64_t> axes;
  bool noop;
  if (!reduceAxes(n, axes, noop, reason))
    return false;
  Value x = n.input(0);
  RankedTensorType out = n.outputTypes[0];
  if (noop) {
    results.push_back(n.op<IdentityOp>(out, x));
    return true;
  }
  Builder &b = n.builder();
  auto type = cast<RankedTensorType>(x.getType());
  bool keep = n.getInt("keepdims", 1);
  SmallVector<int64_t> keptShape(type.getShape());
  for (int64_t a : axes)
    keptShape[a] = 1;
  auto keptType = RankedTensorType::get(keptShape, type.getElementType());
  auto reduce = [&](auto tag, Value v, RankedTensorType resultType,
                    bool keepDims, llvm::StringRef suffix) {
    using OpT = decltype(tag);
    SmallVector<NamedAttribute> attrs = {
        n.named("axes", b.getDenseI64ArrayAttr(axes))};
    if (keepDims)
      attrs.push_back(n.named("keep_dims", b.getUnitAttr()));
    return n.op<OpT>(resultType, v, attrs, suffix);
  };
  switch (Kind) {
  case ReduceKind::Sum:
    results.push_back(reduce(ReduceSumOp(), x, out, keep, ""));
    return true;
  case ReduceKind::Mean:
    results.push_back(reduce(ReduceMeanOp(), x, out, keep, ""));
    return true;
  case ReduceKind::Max:
    results.push_back(reduce(ReduceMaxOp(), x, out, keep, ""));
    return true;
  case ReduceKind::Min: {
    Value neg = n.op<NegOp>(type, x, {}, "neg");
    Value max = reduce(ReduceMaxOp(), neg, out, keep, "max");
    results.push_back(n.op<NegOp>(out, max));
    return true;
  }
  case ReduceKind::SumSquare: {
    Value sq = n.op<SquareOp>(type, x, {}, "square");
    results.push_back(reduce(ReduceSumOp(), sq, out, keep, ""));
    return true;
  }
  case ReduceKind::L2: {
    Value sq = n.op<SquareOp>(type, x, {}, "square");
    Value sum = reduce(ReduceSumOp(), sq, out, keep, "sum");
    results.push_back(n.op<SqrtOp>(out, sum));
    return true;
  }
  case ReduceKind::L1: {
    Value neg = n.op<NegOp>(type, x, {}, "neg");
    Value abs = n.op<MaximumOp>(type, {x, neg}, {}, "abs");
    results.push_back(reduce(ReduceSumOp(), abs, out, keep, ""));
    return true;
  }
  case ReduceKind::LogSum: {
    Value sum = reduce(ReduceSumOp(), x, out, keep, "sum");
    results.push_back(n.op<LogOp>(out, sum));
    return true;
  }
  case ReduceKind::LogSumExp: {
    Value max = reduce(ReduceMaxOp(), x, keptType, true, "max");
    Value shifted = n.op<SubOp>(type, {x, max}, {}, "shifted");
    Value exp = n.op<ExpOp>(type, shifted, {}, "exp");
    Value sum = reduce(ReduceSumOp(), exp, keptType, true, "sum");
    Value logSum = n.op<LogOp>(keptType, sum, {}, "log");
    Value y = n.op<AddOp>(keptType, {logSum, max}, {}, keep ? "" : "keep");
    results.push_back(keep ? y : n.reshape(y, out.getShape()));
    return true;
  }
  }
  return false;
}

template <bool Min>
bool mapArgMax(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  if (n.getInt("select_last_index", 0)) {
    reason = "select_last_index = 1";
    return false;
  }
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, type.getRank(), reason))
    return false;
  if (Min)
    x = n.op<NegOp>(type, x, {}, "neg");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != axis)
      shape.push_back(type.getDimSize(d));
  auto removed = RankedTensorType::get(shape, n.outputTypes[0].getElementType());
  bool keep = n.getInt("keepdims", 1);
  Value y = n.op<ArgMaxOp>(removed, x,
                           {n.named("axis", n.builder().getI64IntegerAttr(axis))},
                           keep ? "ArgMax" : "");
  results.push_back(keep ? n.reshape(y, n.outputTypes[0].getShape()) : y);
  return true;
}

bool mapCast(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  if (x.getType() == n.outputTypes[0])
    results.push_back(n.op<IdentityOp>(x.getType(), x));
  else
    results.push_back(n.op<CastOp>(n.outputTypes[0], x));
  return true;
}

bool mapTranspose(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> given = n.getInts("perm"))
    perm = *given;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  results.push_back(n.op<TransposeOp>(
      n.outputTypes[0], x,
      {n.named("perm", n.builder().getDenseI64ArrayAttr(perm))}));
  return true;
}

/// Reshape, Flatten, Squeeze, Unsqueeze: the result's shape is shape
/// inference's (Reshape's 0 and -1, Flatten's axis, the axes resolved).
bool mapReshape(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<ReshapeOp>(n.outputTypes[0], n.input(0)));
  return true;
}

bool mapIdentity(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<IdentityOp>(n.outputTypes[0], n.input(0)));
  return true;
}

/// Expand: numpy broadcasting to the inferred shape.
bool mapExpand(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value x = n.input(0);
  if (x.getType() == n.outputTypes[0])
    results.push_back(n.op<IdentityOp>(x.getType(), x));
  else
    results.push_back(n.op<BroadcastToOp>(n.outputTypes[0], x));
  return true;
}

bool mapConcat(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  SmallVector<Value> inputs;
  for (int i = 0; i < n.numInputs(); ++i)
    inputs.push_back(n.input(i));
  if (llvm::is_contained(inputs, Value())) {
    reason = "an omitted input";
    return false;
  }
  int64_t axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, n.outputTypes[0].getRank(), reason))
    return false;
  Builder &b = n.builder();
  results.push_back(n.importer.b.create<ConcatOp>(
      n.loc, n.outputTypes[0], inputs, b.getI64IntegerAttr(axis),
      StringAttr(), b.getStringAttr(n.name), StringAttr(), ValueRange()));
  return true;
}

/// The begin and size of a Slice along each dimension.
bool mapSlice(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.getInts("starts").value_or(SmallVector<int64_t>());
    ends = n.getInts("ends").value_or(SmallVector<int64_t>());
    if (auto a = n.getInts("axes"))
      axes = *a;
  } else {
    for (int i = 1; i < 5; ++i) {
      if (!n.hasInput(i))
        continue;
      std::optional<DenseElementsAttr> c = n.constant(i);
      if (!c) {
        reason = "starts, ends, axes or steps computed at run time";
        return false;
      }
      (i == 1 ? starts : i == 2 ? ends : i == 3 ? axes : steps) = toInts(*c);
    }
  }
  if (axes.empty())
    for (int64_t d = 0; d < static_cast<int64_t>(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    reason = "starts, ends, axes and steps of different lengths";
    return false;
  }
  SmallVector<int64_t> begin(rank, 0), size(type.getShape());
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t axis = axes[i];
    if (!normalizeAxis(axis, rank, reason))
      return false;
    if (steps[i] != 1) {
      reason = "steps other than 1";
      return false;
    }
    int64_t dim = type.getDimSize(axis);
    auto clamp = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    int64_t s = clamp(starts[i]), e = clamp(ends[i]);
    begin[axis] = s;
    size[axis] = std::max<int64_t>(0, e - s);
  }
  Builder &b = n.builder();
  results.push_back(n.op<SliceOp>(n.outputTypes[0], n.input(0),
                                  {n.named("begin", b.getDenseI64ArrayAttr(begin)),
                                   n.named("size", b.getDenseI64ArrayAttr(size))}));
  return true;
}

bool mapSplit(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t axis = n.getInt("axis", 0);
  if (!normalizeAxis(axis, type.getRank(), reason))
    return false;
  int64_t offset = 0;
  Builder &b = n.builder();
  for (auto [i, out] : llvm::enumerate(n.outputTypes)) {
    if (!out) {
      results.push_back({});
      continue;
    }
    if (out.getRank() != type.getRank()) {
      reason = "outputs of another rank than the input";
      return false;
    }
    SmallVector<int64_t> begin(type.getRank(), 0), size(out.getShape());
    begin[axis] = offset;
    offset += out.getDimSize(axis);
    results.push_back(n.op<SliceOp>(
        out, n.input(0),
        {n.named("begin", b.getDenseI64ArrayAttr(begin)),
         n.named("size", b.getDenseI64ArrayAttr(size))},
        i == 0 ? "" : "output_" + std::to_string(i)));
  }
  return true;
}

bool mapPad(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  if (n.getString("mode", "constant") != "constant") {
    reason = "mode '" + n.getString("mode", "") + "'";
    return false;
  }
  SmallVector<int64_t> pads;
  if (n.opset < 11) {
    pads = n.getInts("pads").value_or(SmallVector<int64_t>());
    if (n.getFloat("value", 0) != 0) {
      reason = "a constant value other than 0";
      return false;
    }
  } else {
    std::optional<DenseElementsAttr> p = n.constant(1);
    if (!p) {
      reason = "pads computed at run time";
      return false;
    }
    pads = toInts(*p);
    if (n.hasInput(2)) {
      std::optional<DenseElementsAttr> v = n.constant(2);
      if (!v || !v->isSplat() ||
          (isFloat(v->getElementType())
               ? !v->getSplatValue<APFloat>().isZero()
               : !v->getSplatValue<APInt>().isZero())) {
        reason = "a constant value other than 0";
        return false;
      }
    }
  }
  int64_t rank = n.inputType(0).getRank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank) {
    reason = "pads of the wrong length";
    return false;
  }
  SmallVector<int64_t> paddings;
  for (int64_t d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[rank + d] < 0) {
      reason = "negative pads";
      return false;
    }
    paddings.push_back(pads[d]);
    paddings.push_back(pads[rank + d]);
  }
  results.push_back(n.op<PadOp>(
      n.outputTypes[0], n.input(0),
      {n.named("paddings", n.builder().getDenseI64ArrayAttr(paddings))}));
  return true;
}

/// Constant, Shape and Size: values known at import time.
/// The op is made where the value is first used as a tensor (never, for
/// Reshape's shape and the like), named after the value.
bool recordConstant(Node &n, DenseElementsAttr value,
                    SmallVectorImpl<Value> &results) {
  if (value.getType() != n.outputTypes[0])
    return false;
  n.importer.constants[n.proto.output(0)] = value;
  results.push_back(Value());
  return true;
}

bool mapConstant(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  Builder &b = n.builder();
  RankedTensorType out = n.outputTypes[0];
  if (const onnx::AttributeProto *a = n.attr("value")) {
    rt::StatusOr<DenseElementsAttr> value =
        tensorAttr(a->t(), n.importer.directory, n.importer.context);
    if (!value) {
      reason = value.status().message();
      return false;
    }
    return recordConstant(n, *value, results);
  }
  // The other forms: a type shape inference gave, checked before the
  // attribute is built.
  auto matches = [&](Type element, int64_t count) {
    if (out.getElementType() == element && out.getNumElements() == count)
      return true;
    reason = "a value of another type than its output's";
    return false;
  };
  if (const onnx::AttributeProto *a = n.attr("value_float"))
    return matches(b.getF32Type(), 1) &&
           recordConstant(
               n, DenseElementsAttr::get(out, b.getF32FloatAttr(a->f())),
               results);
  if (const onnx::AttributeProto *a = n.attr("value_int"))
    return matches(b.getI64Type(), 1) &&
           recordConstant(
               n, DenseElementsAttr::get(out, b.getI64IntegerAttr(a->i())),
               results);
  if (const onnx::AttributeProto *a = n.attr("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    return matches(b.getF32Type(), v.size()) &&
           recordConstant(n, DenseElementsAttr::get(out, ArrayRef<float>(v)),
                          results);
  }
  if (const onnx::AttributeProto *a = n.attr("value_ints")) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    return matches(b.getI64Type(), v.size()) &&
           recordConstant(n, DenseElementsAttr::get(out, ArrayRef<int64_t>(v)),
                          results);
  }
  reason = "a sparse or string value";
  return false;
}

/// ConstantOfShape of a shape known at import time.
bool mapConstantOfShape(Node &n, SmallVectorImpl<Value> &results,
                        std::string &reason) {
  RankedTensorType out = n.outputTypes[0];
  Attribute value = n.builder().getZeroAttr(out.getElementType());
  if (const onnx::AttributeProto *a = n.attr("value")) {
    rt::StatusOr<DenseElementsAttr> given =
        tensorAttr(a->t(), n.importer.directory, n.importer.context);
    if (!given) {
      reason = given.status().message();
      return false;
    }
    if (given->getNumElements() != 1 ||
        given->getElementType() != out.getElementType()) {
      reason = "a value that is not one element of the output's type";
      return false;
    }
    value = given->getSplatValue<Attribute>();
  }
  return recordConstant(n, DenseElementsAttr::get(out, value), results);
}

bool mapShape(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  ArrayRef<int64_t> dims = n.inputType(0).getShape();
  int64_t rank = dims.size();
  int64_t start = n.getInt("start", 0), end = n.getInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  SmallVector<int64_t> v(dims.begin() + start, dims.begin() + end);
  if (n.outputTypes[0].getNumElements() != static_cast<int64_t>(v.size()) ||
      !n.outputTypes[0].getElementType().isInteger(64)) {
    reason = "a shape shape inference disagrees with";
    return false;
  }
  return recordConstant(
      n, DenseElementsAttr::get(n.outputTypes[0], ArrayRef<int64_t>(v)),
      results);
}

bool mapSize(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  int64_t count = n.inputType(0).getNumElements();
  if (n.outputTypes[0].getNumElements() != 1 ||
      !n.outputTypes[0].getElementType().isInteger(64)) {
    reason = "an output that is not one int64";
    return false;
  }
  return recordConstant(
      n, DenseElementsAttr::get(n.outputTypes[0], ArrayRef<int64_t>(count)),
      results);
}

/// Dropout at inference: the identity, and an all-true mask.
bool mapDropout(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  if (n.opset >= 12 && n.hasInput(2)) {
    std::optional<DenseElementsAttr> training = n.constant(2);
    if (!training || !training->isSplat() ||
        training->getSplatValue<bool>()) {
      reason = "training_mode";
      return false;
    }
  }
  results.push_back(n.op<IdentityOp>(n.outputTypes[0], n.input(0)));
  if (n.outputTypes.size() > 1 && n.outputTypes[1]) {
    if (!n.outputTypes[1].getElementType().isInteger(1)) {
      reason = "a mask that is not bool";
      return false;
    }
    results.push_back(n.constant(
        DenseElementsAttr::get(n.outputTypes[1], true), "mask"));
  }
  return true;
}

bool mapEqual(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<EqualOp>(n.outputTypes[0], {n.input(0), n.input(1)}));
  return true;
}

/// Greater and GreaterOrEqual, and Less and LessOrEqual as those with their
/// operands swapped (a NaN compares false either way).
template <typename OpT, bool Swap>
bool mapComparison(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<OpT>(n.outputTypes[0],
                              {n.input(Swap ? 1 : 0), n.input(Swap ? 0 : 1)}));
  return true;
}

/// Gather: gplace.gather, with ONNX's negative indices (counting from the
/// end of the axis) resolved: in place when the indices are constants, else
/// by select(index < 0, index + n, index).
bool mapGather(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType data = n.inputType(0), indicesType = n.inputType(1);
  if (!data || !indicesType || data.getRank() == 0) {
    reason = "an omitted or rank-0 input";
    return false;
  }
  int64_t axis = n.getInt("axis", 0);
  if (axis < -data.getRank() || axis >= data.getRank()) {
    reason = "axis " + std::to_string(axis) + " of data of rank " +
             std::to_string(data.getRank());
    return false;
  }
  if (axis < 0)
    axis += data.getRank();
  int64_t dim = data.getDimSize(axis);
  Builder &b = n.builder();
  Value indices;
  if (std::optional<DenseElementsAttr> known = n.constant(1)) {
    SmallVector<int64_t> values = toInts(*known);
    for (int64_t &v : values)
      if (v < 0)
        v += dim;
    indices = n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get(indicesType.getShape(), b.getI64Type()),
            llvm::ArrayRef<int64_t>(values)),
        "indices");
  } else {
    Value given = n.input(1);
    auto mask = RankedTensorType::get(indicesType.getShape(), b.getI1Type());
    Value zero = n.scalar(indicesType, 0, "zero");
    Value negative = n.op<GreaterOp>(mask, {zero, given}, {}, "negative");
    Value wrapped = n.op<AddOp>(
        indicesType, {given, n.scalar(indicesType, dim, "dim")}, {}, "wrapped");
    indices =
        n.op<SelectOp>(indicesType, {negative, wrapped, given}, {}, "indices");
  }
  results.push_back(
      n.op<GatherOp>(n.outputTypes[0], {n.input(0), indices},
                     {n.named("axis", b.getI64IntegerAttr(axis))}));
  return true;
}

/// Xor of bools: not(a == b).
bool mapXor(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  Value equal = n.op<EqualOp>(n.outputTypes[0], {n.input(0), n.input(1)});
  results.push_back(n.op<LogicalNotOp>(n.outputTypes[0], {equal}));
  return true;
}

bool mapWhere(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(
      n.op<SelectOp>(n.outputTypes[0], {n.input(0), n.input(1), n.input(2)}));
  return true;
}

/// LayerNormalization (opset 17): over the dimensions from `axis` on,
/// y = (x - mean) / sqrt(var + epsilon) * scale + bias, with the optional
/// Mean and InvStdDev outputs, from reduce_mean, sub, mul, sqrt and div (so
/// that training differentiates it as it would the ops). f16 and bf16
/// inputs are computed in f32 (the default stash_type) and the result cast
/// back; f32 and f64 in their own type.
bool mapLayerNorm(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  int64_t axis = n.getInt("axis", -1);
  if (axis < -rank || axis >= rank || rank == 0) {
    reason = "axis " + std::to_string(axis) + " of an input of rank " +
             std::to_string(rank);
    return false;
  }
  if (axis < 0)
    axis += rank;
  if (n.getInt("stash_type", 1) != 1) {
    reason = "a stash_type other than float";
    return false;
  }
  Type element = type.getElementType();
  for (int i : {1, 2})
    if (n.hasInput(i) &&
        (!n.inputType(i) || n.inputType(i).getElementType() != element)) {
      reason = "a scale or bias of another type than the input";
      return false;
    }
  Builder &b = n.builder();
  Type compute = element.isF16() || element.isBF16() ? b.getF32Type() : element;
  auto computeType = RankedTensorType::get(type.getShape(), compute);
  SmallVector<int64_t> keptShape(type.getShape());
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) {
    keptShape[d] = 1;
    axes.push_back(d);
  }
  auto keptType = RankedTensorType::get(keptShape, compute);
  auto castTo = [&](Value v, RankedTensorType to, llvm::StringRef suffix) {
    return v.getType() == to ? v : n.op<CastOp>(to, v, {}, suffix);
  };
  auto mean = [&](Value v, llvm::StringRef suffix) {
    return n.op<ReduceMeanOp>(keptType, v,
                              {n.named("axes", b.getDenseI64ArrayAttr(axes)),
                               n.named("keep_dims", b.getUnitAttr())},
                              suffix);
  };
  Value xc = castTo(x, computeType, "cast");
  Value mu = mean(xc, "mean");
  Value centered = n.op<SubOp>(computeType, {xc, mu}, {}, "centered");
  Value variance =
      mean(n.op<SquareOp>(computeType, centered, {}, "square"), "variance");
  Value epsilon = n.scalar(keptType, n.getFloat("epsilon", 1e-5f), "epsilon");
  Value stddev = n.op<SqrtOp>(
      keptType, n.op<AddOp>(keptType, {variance, epsilon}, {}, "shifted"), {},
      "stddev");
  Value one = n.scalar(keptType, 1.0, "one");
  Value invStdDev = n.op<DivOp>(keptType, {one, stddev}, {}, "inv_stddev");
  Value normalized =
      n.op<MulOp>(computeType, {centered, invStdDev}, {}, "normalized");
  Value y = castTo(normalized, type, "cast_back");
  y = n.op<MulOp>(n.broadcastType(y, n.input(1)), {y, n.input(1)}, {},
                  n.hasInput(2) ? "scaled" : "");
  if (n.hasInput(2))
    y = n.op<AddOp>(n.broadcastType(y, n.input(2)), {y, n.input(2)});
  results.push_back(y);
  results.push_back(mu);
  results.push_back(invStdDev);
  return true;
}

/// BatchNormalization at inference over NCHW (rank 2 to 4: [N, C, ...]
/// reshaped to four dimensions).
bool mapBatchNorm(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  if (n.getInt("training_mode", 0) || n.outputTypes.size() > 1) {
    reason = "training_mode (running statistics as outputs)";
    return false;
  }
  if (n.opset < 7 && n.getInt("spatial", 1) != 1) {
    reason = "spatial = 0";
    return false;
  }
  Value x = n.input(0);
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() < 2 || type.getRank() > 4) {
    reason = "an input of rank " + std::to_string(type.getRank());
    return false;
  }
  SmallVector<int64_t> four(type.getShape());
  while (four.size() < 4)
    four.push_back(1);
  Value x4 = n.reshape(x, four, "nchw");
  auto type4 = cast<RankedTensorType>(x4.getType());
  Builder &b = n.builder();
  Type vec = n.inputType(1);
  bool direct = type4 == type;
  auto bn = n.importer.b.create<FusedBatchNormOp>(
      n.loc, TypeRange{type4, vec, vec},
      ValueRange{x4, n.input(1), n.input(2), n.input(3), n.input(4)},
      ArrayRef<NamedAttribute>{
          n.named("epsilon", b.getF32FloatAttr(n.getFloat("epsilon", 1e-5f))),
          n.named("data_format", b.getStringAttr("NCHW")),
          n.named("name", b.getStringAttr(direct ? n.name
                                                 : n.name + "/FusedBatchNorm"))});
  Value y = bn->getResult(0);
  results.push_back(direct ? y : n.reshape(y, type.getShape()));
  return true;
}

/// The padding of a 2-D window op: "VALID", "SAME" or explicit pads
/// [top, bottom, left, right], from auto_pad or pads.
struct Padding {
  std::string mode;
  SmallVector<int64_t> pads; ///< top, bottom, left, right
};

/// A 1-D or 2-D window op's attributes, as 2-D: a 1-D op (input [N, C, L])
/// runs as a 2-D one over [N, C, L, 1].
struct Window {
  bool oneD = false;
  SmallVector<int64_t> kernel, strides, dilations;
  SmallVector<int64_t> pads; ///< ONNX's order: begins, then ends.
  RankedTensorType input, output; ///< 4-D.

  /// Reads the attributes of node `n` over input `x` with `kernel` (the
  /// filter's or kernel_shape's spatial sizes); false with `reason` for a
  /// 3-D window or malformed lists.
  bool read(Node &n, RankedTensorType x, ArrayRef<int64_t> kernelSizes,
            std::string &reason) {
    int64_t spatial = x.getRank() - 2;
    if (spatial != 1 && spatial != 2) {
      reason = "a " + std::to_string(spatial) + "-D window (gplace has 1-D "
               "and 2-D)";
      return false;
    }
    oneD = spatial == 1;
    auto list = [&](llvm::StringRef name, SmallVector<int64_t> &out) {
      out = n.getInts(name).value_or(SmallVector<int64_t>(spatial, 1));
      if (static_cast<int64_t>(out.size()) != spatial)
        return false;
      if (oneD)
        out.push_back(1);
      return true;
    };
    kernel.assign(kernelSizes.begin(), kernelSizes.end());
    if (static_cast<int64_t>(kernel.size()) != spatial ||
        !list("strides", strides) || !list("dilations", dilations)) {
      reason = "kernel_shape, strides or dilations of the wrong length";
      return false;
    }
    if (oneD)
      kernel.push_back(1);
    SmallVector<int64_t> given =
        n.getInts("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
    if (static_cast<int64_t>(given.size()) != 2 * spatial) {
      reason = "pads of the wrong length";
      return false;
    }
    pads = oneD ? SmallVector<int64_t>{given[0], 0, given[1], 0} : given;
    SmallVector<int64_t> shape(x.getShape());
    SmallVector<int64_t> outShape(n.outputTypes[0].getShape());
    if (oneD) {
      shape.push_back(1);
      outShape.push_back(1);
    }
    input = RankedTensorType::get(shape, x.getElementType());
    output = RankedTensorType::get(outShape, x.getElementType());
    return true;
  }

  /// The padding: auto_pad, or pads that are none, TensorFlow's SAME, or
  /// explicit.
  bool padding(Node &n, Padding &padding, std::string &reason) const {
    std::string autoPad = n.getString("auto_pad", "NOTSET");
    padding.pads.assign(4, 0);
    if (autoPad == "VALID") {
      padding.mode = "VALID";
      return true;
    }
    auto same = [&](int i) {
      WindowDim dim;
      dim.size = kernel[i];
      dim.stride = strides[i];
      dim.dilation = dilations[i];
      setSamePadding(dim, input.getDimSize(2 + i));
      return dim;
    };
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      padding.mode = "SAME";
      for (int i = 0; i < 2; ++i) {
        WindowDim dim = same(i);
        if (autoPad == "SAME_LOWER")
          std::swap(dim.padBefore, dim.padAfter);
        padding.pads[2 * i] = dim.padBefore;
        padding.pads[2 * i + 1] = dim.padAfter;
        if (dim.padBefore != dim.padAfter && autoPad == "SAME_LOWER")
          padding.mode = "EXPLICIT";
      }
      return true;
    }
    if (autoPad != "NOTSET") {
      reason = "auto_pad '" + autoPad + "'";
      return false;
    }
    padding.pads = {pads[0], pads[2], pads[1], pads[3]};
    if (llvm::all_of(pads, [](int64_t p) { return p == 0; })) {
      padding.mode = "VALID";
      return true;
    }
    // Pads equal to TensorFlow's SAME ones are SAME.
    bool isSame = true;
    for (int i = 0; i < 2; ++i) {
      WindowDim dim = same(i);
      isSame &= dim.padBefore == padding.pads[2 * i] &&
                dim.padAfter == padding.pads[2 * i + 1];
    }
    padding.mode = isSame ? "SAME" : "EXPLICIT";
    return true;
  }
};

/// `value` transposed by `perm` (result dimension i is dimension perm[i]),
/// for constants the importer rearranges once instead of every run;
/// std::nullopt for booleans, whose storage is not one element a byte.
std::optional<DenseElementsAttr> transposeConstant(DenseElementsAttr value,
                                                   ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (value.isSplat())
    return value.reshape(resultType);
  if (type.getElementType().isInteger(1))
    return std::nullopt;
  int64_t width = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> in = value.getRawData();
  std::vector<char> out(in.size());
  std::vector<int64_t> inStrides = rowMajorStrides(type.getShape());
  int64_t rank = shape.size(), count = type.getNumElements();
  SmallVector<int64_t> index(rank, 0);
  for (int64_t o = 0; o < count; ++o) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * inStrides[perm[d]];
    std::memcpy(out.data() + o * width, in.data() + source * width, width);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}

SmallVector<int64_t> nchw(ArrayRef<int64_t> hw, int64_t fill = 1) {
  return {fill, fill, hw[0], hw[1]};
}

/// Conv: 1-D and 2-D (NCHW, the filter OIHW transposed to HWIO), any
/// padding, groups, the bias added per channel.
bool mapConv(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value x = n.input(0), w = n.input(1);
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (wType.getRank() != xType.getRank() || xType.getRank() < 3) {
    reason = "a filter of another rank than the input";
    return false;
  }
  // Conv2D groups as TensorFlow's does, by the channels: the input's over
  // the filter's. ONNX names the group count, which must agree (ONNX 1.12's
  // shape inference does not check it; ONNX Runtime refuses the model).
  int64_t group = n.getInt("group", 1);
  if (group < 1 || xType.getDimSize(1) != wType.getDimSize(1) * group) {
    reason = "group " + std::to_string(group) + " with " +
             std::to_string(xType.getDimSize(1)) +
             " input channels and a filter of " +
             std::to_string(wType.getDimSize(1)) +
             " (the input's channels must be the filter's times the group)";
    return false;
  }
  Window window;
  if (!window.read(n, xType, wType.getShape().drop_front(2), reason))
    return false;
  Padding padding;
  if (!window.padding(n, padding, reason))
    return false;
  if (window.oneD)
    x = n.reshape(x, window.input.getShape(), "input_2d");
  auto widenFilter = [&] {
    SmallVector<int64_t> filterShape(wType.getShape());
    filterShape.push_back(1);
    w = n.reshape(w, filterShape, "filter_2d");
  };
  Builder &b = n.builder();
  // OIHW to TensorFlow's HWIO: at import time for a constant filter (an
  // initializer that stays a constant), else by a transpose each run.
  Value filter;
  std::optional<DenseElementsAttr> constantFilter = n.constant(1);
  bool variable = n.importer.options.initializersAsVariables &&
                  n.importer.initializers.count(n.proto.input(1));
  if (constantFilter && !variable) {
    SmallVector<int64_t> shape(wType.getShape());
    if (window.oneD)
      shape.push_back(1);
    if (std::optional<DenseElementsAttr> hwio = transposeConstant(
            constantFilter->reshape(
                RankedTensorType::get(shape, wType.getElementType())),
            {2, 3, 1, 0}))
      filter = n.constant(*hwio, "filter");
  }
  if (!filter) {
    if (window.oneD)
      widenFilter();
    filter = n.transpose(w, {2, 3, 1, 0}, "filter");
  }
  SmallVector<NamedAttribute> attrs = {
      n.named("strides", b.getDenseI64ArrayAttr(nchw(window.strides))),
      n.named("padding", b.getStringAttr(padding.mode)),
      n.named("data_format", b.getStringAttr("NCHW")),
      n.named("dilations", b.getDenseI64ArrayAttr(nchw(window.dilations)))};
  if (padding.mode == "EXPLICIT")
    attrs.push_back(n.named(
        "explicit_paddings",
        b.getDenseI64ArrayAttr({0, 0, 0, 0, padding.pads[0], padding.pads[1],
                                padding.pads[2], padding.pads[3]})));
  Value bias = n.input(2);
  bool last = !bias && !window.oneD;
  Value y = n.op<Conv2DOp>(window.output, {x, filter}, attrs,
                           last ? "" : "Conv2D");
  if (bias) {
    int64_t channels = window.output.getDimSize(1);
    Value b3 = n.reshape(bias, {channels, 1, 1}, "bias");
    y = n.op<AddOp>(window.output, {y, b3}, {},
                    window.oneD ? "BiasAdd" : "");
  }
  if (window.oneD)
    y = n.reshape(y, n.outputTypes[0].getShape());
  results.push_back(y);
  return true;
}

/// MaxPool and AveragePool: 1-D and 2-D, padding TensorFlow can express
/// (none, or SAME's), which for AveragePool averages only the elements
/// inside.
template <typename OpT>
bool mapPool(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  Value x = n.input(0);
  auto xType = cast<RankedTensorType>(x.getType());
  if (n.outputTypes.size() > 1 && n.outputTypes[1]) {
    reason = "the Indices output";
    return false;
  }
  if (n.getInt("storage_order", 0)) {
    reason = "storage_order = 1";
    return false;
  }
  Window window;
  if (!window.read(n, xType,
                   n.getInts("kernel_shape").value_or(SmallVector<int64_t>()),
                   reason))
    return false;
  if (llvm::any_of(window.dilations, [](int64_t d) { return d != 1; })) {
    reason = "dilations other than 1";
    return false;
  }
  Padding padding;
  if (!window.padding(n, padding, reason))
    return false;
  if (padding.mode == "EXPLICIT") {
    reason = "pads other than none or SAME's";
    return false;
  }
  if (padding.mode == "SAME" && std::is_same_v<OpT, AvgPoolOp> &&
      n.getInt("count_include_pad", 0) &&
      llvm::any_of(padding.pads, [](int64_t p) { return p != 0; })) {
    reason = "count_include_pad = 1 with padding";
    return false;
  }
  // The output shape must be what the padding gives (ceil_mode may differ).
  for (int i = 0; i < 2; ++i) {
    WindowDim dim;
    dim.size = window.kernel[i];
    dim.stride = window.strides[i];
    if (padding.mode == "SAME")
      setSamePadding(dim, window.input.getDimSize(2 + i));
    std::optional<int64_t> size =
        windowOutputSize(dim, window.input.getDimSize(2 + i));
    if (!size || *size != window.output.getDimSize(2 + i)) {
      reason = "ceil_mode changing the output size";
      return false;
    }
  }
  if (window.oneD)
    x = n.reshape(x, window.input.getShape(), "input_2d");
  Builder &b = n.builder();
  Value y = n.op<OpT>(
      window.output, x,
      {n.named("ksize", b.getDenseI64ArrayAttr(nchw(window.kernel))),
       n.named("strides", b.getDenseI64ArrayAttr(nchw(window.strides))),
       n.named("padding", b.getStringAttr(padding.mode)),
       n.named("data_format", b.getStringAttr("NCHW"))},
      window.oneD ? "Pool2D" : "");
  if (window.oneD)
    y = n.reshape(y, n.outputTypes[0].getShape());
  results.push_back(y);
  return true;
}

template <typename OpT>
bool mapGlobalPool(Node &n, SmallVectorImpl<Value> &results,
                   std::string &reason) {
  int64_t rank = n.inputType(0).getRank();
  if (rank < 3) {
    reason = "an input of rank " + std::to_string(rank);
    return false;
  }
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  Builder &b = n.builder();
  results.push_back(n.op<OpT>(n.outputTypes[0], n.input(0),
                              {n.named("axes", b.getDenseI64ArrayAttr(axes)),
                               n.named("keep_dims", b.getUnitAttr())}));
  return true;
}

const llvm::StringMap<MapFn> &mappers() {
  static const llvm::StringMap<MapFn> table = {
      {"Abs", mapAbs},
      {"Add", mapBinary<AddOp>},
      {"And", mapBinary<LogicalAndOp>},
      {"ArgMax", mapArgMax<false>},
      {"ArgMin", mapArgMax<true>},
      {"AveragePool", mapPool<AvgPoolOp>},
      {"BatchNormalization", mapBatchNorm},
      {"Cast", mapCast},
      {"Clip", mapClip},
      {"Concat", mapConcat},
      {"Constant", mapConstant},
      {"ConstantOfShape", mapConstantOfShape},
      {"Conv", mapConv},
      {"Div", mapBinary<DivOp>},
      {"Dropout", mapDropout},
      {"Elu", floatInput<mapElu<false>>},
      {"Equal", mapEqual},
      {"Exp", mapUnary<ExpOp>},
      {"Expand", mapExpand},
      {"Flatten", mapReshape},
      {"Gather", mapGather},
      {"Gemm", mapGemm},
      {"GlobalAveragePool", mapGlobalPool<ReduceMeanOp>},
      {"GlobalMaxPool", mapGlobalPool<ReduceMaxOp>},
      {"Greater", mapComparison<GreaterOp, false>},
      {"GreaterOrEqual", mapComparison<GreaterEqualOp, false>},
      {"HardSigmoid", floatInput<mapHardSigmoid>},
      {"Identity", mapIdentity},
      {"LayerNormalization", floatInput<mapLayerNorm>},
      {"LeakyRelu", floatInput<mapLeakyRelu>},
      {"Less", mapComparison<GreaterOp, true>},
      {"LessOrEqual", mapComparison<GreaterEqualOp, true>},
      {"Log", mapUnary<LogOp>},
      {"LogSoftmax", floatInput<mapSoftmax<true>>},
      {"MatMul", mapMatMul},
      {"Max", mapVariadic<MaxKind>},
      {"MaxPool", mapPool<MaxPoolOp>},
      {"Mean", floatInput<mapVariadic<MeanKind>>},
      {"Min", mapVariadic<MinKind>},
      {"Mul", mapBinary<MulOp>},
      {"Neg", mapUnary<NegOp>},
      {"Not", mapUnary<LogicalNotOp>},
      {"Or", mapBinary<LogicalOrOp>},
      {"PRelu", floatInput<mapPRelu>},
      {"Pad", mapPad},
      {"Pow", mapPow},
      {"Reciprocal", floatInput<mapReciprocal>},
      {"ReduceL1", mapReduce<ReduceKind::L1>},
      {"ReduceL2", mapReduce<ReduceKind::L2>},
      {"ReduceLogSum", mapReduce<ReduceKind::LogSum>},
      {"ReduceLogSumExp", mapReduce<ReduceKind::LogSumExp>},
      {"ReduceMax", mapReduce<ReduceKind::Max>},
      {"ReduceMean", mapReduce<ReduceKind::Mean>},
      {"ReduceMin", mapReduce<ReduceKind::Min>},
      {"ReduceSum", mapReduce<ReduceKind::Sum>},
      {"ReduceSumSquare", mapReduce<ReduceKind::SumSquare>},
      {"Relu", mapUnary<ReluOp>},
      {"Selu", floatInput<mapElu<true>>},
      {"Reshape", mapReshape},
      {"Shape", mapShape},
      {"Sigmoid", mapUnary<SigmoidOp>},
      {"Size", mapSize},
      {"Slice", mapSlice},
      {"Softmax", mapSoftmax<false>},
      {"Sqrt", mapUnary<SqrtOp>},
      {"Softplus", floatInput<mapSoftplus>},
      {"Split", mapSplit},
      {"Squeeze", mapReshape},
      {"Sub", mapBinary<SubOp>},
      {"Sum", mapVariadic<SumKind>},
      {"Tanh", mapUnary<TanhOp>},
      {"Transpose", mapTranspose},
      {"Unsqueeze", mapReshape},
      {"Where", mapWhere},
      {"Xor", mapXor},
  };
  return table;
}

} // namespace

OwningOpRef<ModuleOp> importOnnxModel(llvm::StringRef bytes,
                                      llvm::StringRef path,
                                      MLIRContext *context,
                                      const OnnxImportOptions &options) {
  context->getOrLoadDialect<GraphDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  Importer importer(context, path, options);
  return importer.run(bytes);
}

std::vector<std::string> importableOpTypes() {
  std::vector<std::string> names;
  for (const auto &entry : mappers())
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

rt::StatusOr<rt::HostTensor> readTensorProtoFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return rt::Status::invalidArgument("cannot read '" + path.str() +
                                       "': " + buffer.getError().message());
  onnx::TensorProto tensor;
  if ((*buffer)->getBufferSize() > static_cast<size_t>(INT_MAX) ||
      !tensor.ParseFromArray((*buffer)->getBufferStart(),
                             static_cast<int>((*buffer)->getBufferSize())) ||
      !tensor.has_data_type())
    return rt::Status::invalidArgument("'" + path.str() +
                                       "' is not an ONNX TensorProto");
  rt::StatusOr<rt::TensorType> type = tensorType(tensor);
  if (!type)
    return rt::Status::invalidArgument("'" + path.str() +
                                       "': " + type.status().message());
  rt::StatusOr<std::vector<uint8_t>> bytes =
      tensorBytes(tensor, type->elementType, type->numElements(),
                  llvm::sys::path::parent_path(path));
  if (!bytes)
    return rt::Status::invalidArgument("'" + path.str() +
                                       "': " + bytes.status().message());
  rt::HostTensor host(*type);
  host.data = std::move(*bytes);
  return host;
}

} // namespace gplace::frontend
