//===- GraphOps.cpp - gplace graph op verifiers and type inference --------===//
//
// Verifier messages follow MLIR's style: lower case, no final period, the
// offending values and types named, both sides of every mismatch given.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/Shape.h"
#include "RuleError.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace gplace::graph;

//===----------------------------------------------------------------------===//
// Custom assembly directives.
//===----------------------------------------------------------------------===//

/// `custom<ResourceAndValueType>(type($resource), type($value))`: prints the
/// resource type; the value type is the resource's value type.
static ParseResult parseResourceAndValueType(OpAsmParser &parser,
                                             Type &resourceType,
                                             Type &valueType) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseType(resourceType))
    return failure();
  auto resource = dyn_cast<ResourceType>(resourceType);
  if (!resource)
    return parser.emitError(loc)
           << "expected a !gplace.resource type, but got " << resourceType;
  valueType = resource.getValueType();
  return success();
}

static void printResourceAndValueType(OpAsmPrinter &printer, Operation *,
                                      Type resourceType, Type) {
  printer.printType(resourceType);
}

#define GET_OP_CLASSES
#include "gplace/Dialect/Graph/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shape helpers.
//===----------------------------------------------------------------------===//

namespace {
/// Prints a shape as `2x3` (`scalar` for rank 0), as in tensor types.
std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

using gplace::graph::detail::RuleError;

using gplace::graph::detail::matmulType;
using gplace::graph::detail::normalizeAxis;

FailureOr<int64_t> normalizeAxis(Operation *op, StringRef what, int64_t axis,
                                 int64_t rank) {
  return normalizeAxis(RuleError{op, {}, {}}, what, axis, rank);
}

LogicalResult verifyResultType(Operation *op, Type expected) {
  Type actual = op->getResult(0).getType();
  if (actual != expected)
    return op->emitOpError()
           << "result type " << actual << " does not match the expected type "
           << expected;
  return success();
}
} // namespace

namespace {
/// Elements of a ranked tensor (a resource's value) type; 0 otherwise.
/// Verified types fit in int64_t (verifyResultSizes).
int64_t elementCount(Type type) {
  if (auto resource = dyn_cast<ResourceType>(type))
    type = resource.getValueType();
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? gplace::checkedNumElements(tensor.getShape()).value_or(0)
                : 0;
}
} // namespace

int64_t gplace::graph::detail::getDefaultFlops(Operation *op) {
  int64_t largest = 0;
  for (Type type : op->getOperandTypes())
    largest = std::max(largest, elementCount(type));
  for (Type type : op->getResultTypes())
    largest = std::max(largest, elementCount(type));
  return largest;
}

int64_t gplace::graph::detail::getMatmulFlops(Value lhs, Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  return 2 * elementCount(lhs.getType()) * type.getShape().back();
}

int64_t gplace::graph::detail::getConvolutionFlops(Value output, Value filter,
                                                   bool depthwise) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(filter.getType()).getShape();
  int64_t outChannels = depthwise ? shape[2] * shape[3] : shape[3];
  if (outChannels <= 0)
    return 0;
  return 2 * elementCount(output.getType()) *
         (elementCount(filter.getType()) / outChannels);
}

int64_t gplace::graph::detail::getWindowFlops(Operation *op,
                                              const WindowAttrs &window) {
  return getDefaultFlops(op) * window.height.size * window.width.size;
}

LogicalResult gplace::graph::detail::verifyResultSizes(Operation *op) {
  for (OpResult result : op->getResults()) {
    Type type = result.getType();
    if (auto resource = dyn_cast<ResourceType>(type))
      type = resource.getValueType();
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      continue;
    std::optional<int64_t> count = checkedNumElements(tensor.getShape());
    Type element = tensor.getElementType();
    int64_t bytesPerElement =
        element.isIntOrFloat()
            ? std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8)
            : 1;
    int64_t bytes = 0;
    if (!count || __builtin_mul_overflow(*count, bytesPerElement, &bytes))
      return op->emitOpError()
             << "result #" << result.getResultNumber() << " of type " << type
             << " needs more than 2^63 bytes";
  }
  return success();
}

LogicalResult gplace::graph::detail::verifyElementwiseOp(Operation *op) {
  auto placed = cast<PlacedOpInterface>(op);
  OperandRange data = placed.getDataOperands();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  // The common case, cheap: every operand has the result's type.
  if (llvm::all_of(data.getTypes(),
                   [&](Type type) { return type == resultType; }))
    return success();
  auto operandName = [&](unsigned i) -> std::string {
    if (data.size() == 2)
      return i == 0 ? "lhs" : "rhs";
    return "operand #" + std::to_string(i);
  };

  std::vector<int64_t> shape;
  for (auto [i, operand] : llvm::enumerate(data)) {
    RankedTensorType type = tensorType(operand);
    if (type.getElementType() != resultType.getElementType())
      return op->emitOpError()
             << operandName(i) << " has element type " << type.getElementType()
             << " but the result has element type "
             << resultType.getElementType();
    if (i == 0) {
      shape.assign(type.getShape().begin(), type.getShape().end());
      continue;
    }
    if (type.getShape() == ArrayRef<int64_t>(shape))
      continue; // The common case: no broadcasting, nothing to compute.
    int64_t lhsDim = 0, rhsDim = 0;
    auto broadcast = gplace::broadcastShapes(shape, type.getShape(), &lhsDim,
                                             &rhsDim);
    if (!broadcast)
      return op->emitOpError()
             << "operands are not broadcast-compatible: dimension " << lhsDim
             << " of " << operandName(0) << " " << tensorType(data[0]) << " is "
             << shape[lhsDim] << " but dimension " << rhsDim << " of "
             << operandName(i) << " " << type << " is "
             << type.getDimSize(rhsDim);
    shape = std::move(*broadcast);
  }
  if (resultType.getShape() != ArrayRef<int64_t>(shape))
    return op->emitOpError() << "result type " << resultType
                             << " does not match the broadcast shape "
                             << shapeStr(shape) << " of the operands";
  return success();
}

//===----------------------------------------------------------------------===//
// Type inference.
//===----------------------------------------------------------------------===//

// The signature MLIR 19's InferTypeOpInterface declares.
#define GPLACE_INFER_RETURN_TYPES(OpT)                                         \
  LogicalResult OpT::inferReturnTypes(                                         \
      MLIRContext *context, std::optional<Location> location,                  \
      ValueRange operands, DictionaryAttr attributes,                          \
      OpaqueProperties properties, RegionRange regions,                        \
      SmallVectorImpl<Type> &inferredReturnTypes)


// refineReturnTypes of the ops whose verifier checks their inferred type
// (Graph_InferredResultType in GraphOps.td).
#define GPLACE_REFINE_BY_VERIFIER(OpT)                                         \
  LogicalResult OpT::refineReturnTypes(                                        \
      MLIRContext *, std::optional<Location>, ValueRange, DictionaryAttr,      \
      OpaqueProperties, RegionRange, SmallVectorImpl<Type> &) {                \
    return success();                                                          \
  }

/// The ranked tensor type of `value`, or null (inference may see operands
/// no verifier has checked yet).
static RankedTensorType rankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType())
               : RankedTensorType();
}

/// Numpy broadcasting of `data`'s shapes, with their one element type (i1
/// with `i1Result`): the comparisons' and binary elementwise ops' rule.
static FailureOr<RankedTensorType> broadcastType(ValueRange data,
                                                 bool i1Result,
                                                 const RuleError &error) {
  if (data.empty())
    return error() << "expects operands", failure();
  RankedTensorType first = rankedType(data.front());
  if (!first)
    return failure();
  std::vector<int64_t> shape(first.getShape().begin(), first.getShape().end());
  for (Value operand : data.drop_front()) {
    RankedTensorType type = rankedType(operand);
    if (!type)
      return failure();
    if (type.getElementType() != first.getElementType())
      return error() << "lhs element type " << first.getElementType()
                     << " differs from rhs element type "
                     << type.getElementType(),
             failure();
    std::optional<std::vector<int64_t>> joined =
        gplace::broadcastShapes(shape, type.getShape());
    if (!joined)
      return error() << "operands " << first << " and " << type
                     << " are not broadcast-compatible",
             failure();
    shape = std::move(*joined);
  }
  Type element = i1Result ? IntegerType::get(first.getContext(), 1)
                          : first.getElementType();
  return RankedTensorType::get(shape, element);
}

/// Pushes a rule's result onto `inferredReturnTypes`.
static LogicalResult pushRule(FailureOr<RankedTensorType> type,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  if (failed(type))
    return failure();
  inferredReturnTypes.push_back(*type);
  return success();
}

LogicalResult gplace::graph::detail::inferBroadcastType(
    StringRef opName, std::optional<Location> location, ValueRange data,
    bool i1Result, SmallVectorImpl<Type> &inferredReturnTypes) {
  return pushRule(broadcastType(data, i1Result, {nullptr, location, opName}),
                  inferredReturnTypes);
}

FailureOr<int64_t> gplace::graph::detail::normalizeAxis(const RuleError &error,
                                                       StringRef what,
                                                       int64_t axis,
                                                       int64_t rank) {
  if (axis < -rank || axis >= rank) {
    auto diag = error()
                << what << " " << axis
                << " is out of range for an operand of rank " << rank;
    if (rank > 0)
      diag << " (expected " << -rank << " <= " << what << " < " << rank << ")";
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

FailureOr<RankedTensorType> gplace::graph::detail::matmulType(
    RankedTensorType lhs, RankedTensorType rhs, bool transposeA,
    bool transposeB, const RuleError &error) {
  if (lhs.getRank() != 2)
    return error() << "expects a rank-2 lhs, but got " << lhs, failure();
  if (rhs.getRank() != 2)
    return error() << "expects a rank-2 rhs, but got " << rhs, failure();
  if (lhs.getElementType() != rhs.getElementType())
    return error() << "lhs element type " << lhs.getElementType()
                   << " differs from rhs element type "
                   << rhs.getElementType(),
           failure();
  int64_t lhsK = transposeA ? 0 : 1, rhsK = transposeB ? 1 : 0;
  if (lhs.getDimSize(lhsK) != rhs.getDimSize(rhsK))
    return error() << "contraction dimensions differ: lhs dimension " << lhsK
                   << " is " << lhs.getDimSize(lhsK) << " but rhs dimension "
                   << rhsK << " is " << rhs.getDimSize(rhsK),
           failure();
  return RankedTensorType::get(
      {lhs.getDimSize(1 - lhsK), rhs.getDimSize(1 - rhsK)},
      lhs.getElementType());
}

/// reduce_sum, reduce_mean, reduce_max: the dimensions in `axes` removed
/// (kept as 1 with `keepDims`).
static FailureOr<RankedTensorType> reduceType(RankedTensorType input,
                                              ArrayRef<int64_t> axes,
                                              bool keepDims,
                                              const RuleError &error) {
  int64_t rank = input.getRank();
  llvm::SmallBitVector reduced(rank);
  for (int64_t axis : axes) {
    FailureOr<int64_t> normalized = normalizeAxis(error, "axis", axis, rank);
    if (failed(normalized))
      return failure();
    if (reduced.test(*normalized))
      return error() << "axis " << axis << " appears more than once"
                     << " (as dimension " << *normalized << ")",
             failure();
    reduced.set(*normalized);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced.test(d))
      shape.push_back(input.getDimSize(d));
    else if (keepDims)
      shape.push_back(1);
  }
  return RankedTensorType::get(shape, input.getElementType());
}

/// transpose: result dimension i is operand dimension perm[i].
static FailureOr<RankedTensorType> transposeType(RankedTensorType input,
                                                 ArrayRef<int64_t> perm,
                                                 const RuleError &error) {
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return error() << "perm has " << perm.size()
                   << " entries but the operand " << input << " has rank "
                   << rank,
           failure();
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> shape;
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= rank)
      return error() << "perm[" << i << "] = " << p
                     << " is out of range for rank " << rank,
             failure();
    if (seen.test(p))
      return error() << "perm[" << i << "] = " << p
                     << " repeats a dimension; perm must be a "
                        "permutation of 0.."
                     << rank - 1,
             failure();
    seen.set(p);
    shape.push_back(input.getDimSize(p));
  }
  return RankedTensorType::get(shape, input.getElementType());
}

/// slice: `size[d]` elements from `begin[d]`, -1 to the end.
static FailureOr<RankedTensorType> sliceType(RankedTensorType input,
                                             ArrayRef<int64_t> begin,
                                             ArrayRef<int64_t> size,
                                             const RuleError &error) {
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(begin.size()) != rank ||
      static_cast<int64_t>(size.size()) != rank)
    return error() << "begin has " << begin.size() << " and size has "
                   << size.size()
                   << " entries, but both need one per dimension of "
                   << input,
           failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = input.getDimSize(d);
    if (begin[d] < 0 || begin[d] > dim)
      return error() << "begin[" << d << "] = " << begin[d]
                     << " is out of range for dimension " << d
                     << " of size " << dim,
             failure();
    int64_t n = size[d] == -1 ? dim - begin[d] : size[d];
    if (n < 0 || n > dim - begin[d])
      return error() << "size[" << d << "] = " << size[d]
                     << " does not fit dimension " << d << " of size "
                     << dim << " from begin " << begin[d]
                     << " (expected -1 or 0.." << dim - begin[d] << ")",
             failure();
    shape.push_back(n);
  }
  return RankedTensorType::get(shape, input.getElementType());
}

/// concat: the operands joined along `axis`.
static FailureOr<RankedTensorType> concatType(ValueRange inputs, int64_t axisAttr,
                                              const RuleError &error) {
  if (inputs.empty())
    return error() << "expects at least one operand", failure();
  RankedTensorType first = rankedType(inputs.front());
  if (!first)
    return failure();
  int64_t rank = first.getRank();
  if (rank == 0)
    return error() << "cannot concatenate rank-0 tensors", failure();
  FailureOr<int64_t> axis = normalizeAxis(error, "axis", axisAttr, rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = rankedType(input);
    if (!type)
      return failure();
    size_t index = i + 1;
    if (type.getRank() != rank)
      return error() << "operand #" << index << " has rank "
                     << type.getRank() << " but operand #0 has rank " << rank,
             failure();
    if (type.getElementType() != first.getElementType())
      return error() << "operand #" << index << " has element type "
                     << type.getElementType()
                     << " but operand #0 has element type "
                     << first.getElementType(),
             failure();
    for (int64_t d = 0; d < rank; ++d) {
      if (d == *axis)
        continue;
      if (type.getDimSize(d) != first.getDimSize(d))
        return error() << "dimension " << d << " of operand #" << index
                       << " is " << type.getDimSize(d) << " but dimension "
                       << d << " of operand #0 is " << first.getDimSize(d)
                       << " (only the concatenation axis " << *axis
                       << " may differ)",
               failure();
    }
    shape[*axis] += type.getDimSize(*axis);
  }
  return RankedTensorType::get(shape, first.getElementType());
}

/// pad: each dimension grows by its two paddings.
static FailureOr<RankedTensorType> padType(RankedTensorType input,
                                           ArrayRef<int64_t> paddings,
                                           const RuleError &error) {
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(paddings.size()) != 2 * rank)
    return error() << "paddings has " << paddings.size()
                   << " entries but needs two per dimension of " << input
                   << " (" << 2 * rank << ")",
           failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (paddings[2 * d] < 0 || paddings[2 * d + 1] < 0)
      return error() << "paddings of dimension " << d << " ("
                     << paddings[2 * d] << ", " << paddings[2 * d + 1]
                     << ") must be non-negative",
             failure();
    shape.push_back(input.getDimSize(d) + paddings[2 * d] +
                    paddings[2 * d + 1]);
  }
  return RankedTensorType::get(shape, input.getElementType());
}

/// gather: params' dimensions before `axis`, the indices', params' after.
static FailureOr<RankedTensorType> gatherType(RankedTensorType params,
                                              RankedTensorType indices,
                                              int64_t axisAttr,
                                              const RuleError &error) {
  if (params.getRank() == 0)
    return error() << "expects params of rank at least 1", failure();
  FailureOr<int64_t> axis =
      normalizeAxis(error, "axis", axisAttr, params.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(params.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, params.getShape().drop_front(*axis + 1));
  return RankedTensorType::get(shape, params.getElementType());
}

/// select: the broadcast shape of the three, the branches' element type.
static FailureOr<RankedTensorType> selectType(RankedTensorType condition,
                                              RankedTensorType thenType,
                                              RankedTensorType elseType,
                                              const RuleError &error) {
  if (thenType.getElementType() != elseType.getElementType())
    return error() << "then element type " << thenType.getElementType()
                   << " differs from else element type "
                   << elseType.getElementType(),
           failure();
  std::optional<std::vector<int64_t>> shape =
      gplace::broadcastShapes(condition.getShape(), thenType.getShape());
  if (shape)
    shape = gplace::broadcastShapes(*shape, elseType.getShape());
  if (!shape)
    return error() << "operands " << condition << ", " << thenType << " and "
                   << elseType << " are not broadcast-compatible",
           failure();
  return RankedTensorType::get(*shape, thenType.getElementType());
}

#define GPLACE_INFER_BY_RULE(OpT, ...)                                         \
  GPLACE_INFER_RETURN_TYPES(OpT) {                                             \
    Adaptor adaptor(operands, attributes, properties, regions);                \
    RuleError error{nullptr, location, OpT::getOperationName()};               \
    return pushRule(__VA_ARGS__, inferredReturnTypes);                         \
  }                                                                            \
  GPLACE_REFINE_BY_VERIFIER(OpT)

/// The operand's ranked type for a rule, or a failure to infer.
#define GPLACE_RANKED(value)                                                   \
  ({                                                                           \
    RankedTensorType t = rankedType(value);                                    \
    if (!t)                                                                    \
      return failure();                                                        \
    t;                                                                         \
  })

GPLACE_INFER_BY_RULE(MatmulOp,
                     matmulType(GPLACE_RANKED(adaptor.getLhs()),
                                GPLACE_RANKED(adaptor.getRhs()),
                                adaptor.getTransposeA(),
                                adaptor.getTransposeB(), error))
GPLACE_INFER_BY_RULE(ReduceSumOp,
                     reduceType(GPLACE_RANKED(adaptor.getInput()),
                                adaptor.getAxes(), adaptor.getKeepDims(),
                                error))
GPLACE_INFER_BY_RULE(ReduceMeanOp,
                     reduceType(GPLACE_RANKED(adaptor.getInput()),
                                adaptor.getAxes(), adaptor.getKeepDims(),
                                error))
GPLACE_INFER_BY_RULE(ReduceMaxOp,
                     reduceType(GPLACE_RANKED(adaptor.getInput()),
                                adaptor.getAxes(), adaptor.getKeepDims(),
                                error))
GPLACE_INFER_BY_RULE(TransposeOp,
                     transposeType(GPLACE_RANKED(adaptor.getInput()),
                                   adaptor.getPerm(), error))
GPLACE_INFER_BY_RULE(SliceOp,
                     sliceType(GPLACE_RANKED(adaptor.getInput()),
                               adaptor.getBegin(), adaptor.getSize(), error))
GPLACE_INFER_BY_RULE(ConcatOp,
                     concatType(adaptor.getInputs(),
                                static_cast<int64_t>(adaptor.getAxis()),
                                error))
GPLACE_INFER_BY_RULE(PadOp, padType(GPLACE_RANKED(adaptor.getInput()),
                                    adaptor.getPaddings(), error))
GPLACE_INFER_BY_RULE(GatherOp,
                     gatherType(GPLACE_RANKED(adaptor.getParams()),
                                GPLACE_RANKED(adaptor.getIndices()),
                                static_cast<int64_t>(adaptor.getAxis()),
                                error))
GPLACE_INFER_BY_RULE(SelectOp,
                     selectType(GPLACE_RANKED(adaptor.getCondition()),
                                GPLACE_RANKED(adaptor.getThenValue()),
                                GPLACE_RANKED(adaptor.getElseValue()), error))

/// The verifier's side of a rule: its result type is the op's.
static LogicalResult verifyRule(Operation *op,
                                FailureOr<RankedTensorType> type) {
  if (failed(type))
    return failure();
  return verifyResultType(op, *type);
}

GPLACE_INFER_RETURN_TYPES(ConstantOp) {
  Adaptor adaptor(operands, attributes, properties, regions);
  ElementsAttr value = adaptor.getValueAttr();
  if (!value)
    return emitOptionalError(location, "'gplace.constant' requires a value");
  inferredReturnTypes.push_back(value.getType());
  return success();
}

GPLACE_INFER_RETURN_TYPES(VariableOp) {
  Adaptor adaptor(operands, attributes, properties, regions);
  ElementsAttr value = adaptor.getInitialValueAttr();
  if (!value)
    return emitOptionalError(location,
                             "'gplace.variable' requires an initial value");
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !isValidGraphTensorType(type))
    return emitOptionalError(
        location,
        "'gplace.variable' initial value must be a statically "
        "shaped tensor of ",
        kGraphElementTypes, ", but got ", value.getType());
  inferredReturnTypes.push_back(ResourceType::get(context, type));
  return success();
}

GPLACE_INFER_RETURN_TYPES(ReadOp) {
  if (operands.empty())
    return failure();
  auto resource = dyn_cast<ResourceType>(operands[0].getType());
  if (!resource)
    return emitOptionalError(location,
                             "'gplace.read' expects a resource, "
                             "but got ",
                             operands[0].getType());
  inferredReturnTypes.push_back(resource.getValueType());
  return success();
}

GPLACE_INFER_RETURN_TYPES(AddNOp) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (adaptor.getInputs().empty())
    return emitOptionalError(location,
                             "'gplace.add_n' expects at least one operand");
  inferredReturnTypes.push_back(adaptor.getInputs().front().getType());
  return success();
}


//===----------------------------------------------------------------------===//
// Verifiers.
//===----------------------------------------------------------------------===//

static LogicalResult verifyAssign(Operation *op, Value resource, Value value) {
  Type expected = cast<ResourceType>(resource.getType()).getValueType();
  if (value.getType() != expected)
    return op->emitOpError()
           << "value type " << value.getType()
           << " does not match the resource's value type " << expected;
  return success();
}

LogicalResult AssignOp::verify() {
  return verifyAssign(*this, getResource(), getValue());
}
LogicalResult AssignAddOp::verify() {
  return verifyAssign(*this, getResource(), getValue());
}
LogicalResult AssignSubOp::verify() {
  return verifyAssign(*this, getResource(), getValue());
}

LogicalResult MatmulOp::verify() {
  return verifyRule(*this, matmulType(getLhs().getType(), getRhs().getType(),
                                      getTransposeA(), getTransposeB(),
                                      RuleError{*this, {}, {}}));
}

namespace {
/// matmul_accumulate's result type, the product's (matmul's rule), as an
/// external model of InferTypeOpInterface attached when the dialect loads
/// (attachMatmulAccumulateTypeInference): the op's record does not declare
/// Graph_InferredResultType, so that adding the op did not rebuild every
/// user of the op declarations twice; its verifier checks the same rule.
struct MatmulAccumulateTypeInference
    : InferTypeOpInterface::ExternalModel<MatmulAccumulateTypeInference,
                                          MatmulAccumulateOp> {
  static LogicalResult
  inferReturnTypes(MLIRContext *, std::optional<Location> location,
                   ValueRange operands, DictionaryAttr attributes,
                   OpaqueProperties properties, RegionRange regions,
                   SmallVectorImpl<Type> &inferredReturnTypes) {
    MatmulAccumulateOp::Adaptor adaptor(operands, attributes, properties,
                                        regions);
    RuleError error{nullptr, location,
                    MatmulAccumulateOp::getOperationName()};
    RankedTensorType lhs = rankedType(adaptor.getLhs()),
                     rhs = rankedType(adaptor.getRhs());
    if (!lhs || !rhs)
      return failure();
    return pushRule(matmulType(lhs, rhs, adaptor.getTransposeA(),
                               adaptor.getTransposeB(), error),
                    inferredReturnTypes);
  }
  static LogicalResult refineReturnTypes(MLIRContext *,
                                         std::optional<Location>, ValueRange,
                                         DictionaryAttr, OpaqueProperties,
                                         RegionRange, SmallVectorImpl<Type> &) {
    return success();
  }
};
} // namespace

namespace gplace::graph::detail {
/// Called by GraphDialect::initialize.
void attachMatmulAccumulateTypeInference(MLIRContext &context) {
  MatmulAccumulateOp::attachInterface<MatmulAccumulateTypeInference>(context);
}
} // namespace gplace::graph::detail

LogicalResult MatmulAccumulateOp::verify() {
  RuleError error{*this, {}, {}};
  FailureOr<RankedTensorType> product =
      matmulType(getLhs().getType(), getRhs().getType(), getTransposeA(),
                 getTransposeB(), error);
  if (failed(product))
    return failure();
  if (getAccumulator().getType() != *product || getType() != *product)
    return emitOpError() << "expects the accumulator and the result to have "
                            "the product's type "
                         << *product << ", but got "
                         << getAccumulator().getType() << " and " << getType();
  return success();
}

LogicalResult AddNOp::verify() {
  OperandRange inputs = getInputs();
  for (auto [i, input] : llvm::enumerate(inputs))
    if (input.getType() != inputs.front().getType())
      return emitOpError() << "operand #" << i << " has type "
                           << input.getType() << " but operand #0 has type "
                           << inputs.front().getType()
                           << " (add_n does not broadcast)";
  return success();
}

LogicalResult BiasAddOp::verify() {
  RankedTensorType value = getValue().getType(), bias = getBias().getType();
  if (value.getRank() < 2)
    return emitOpError() << "expects a value of rank at least 2, but got "
                         << value;
  if (bias.getRank() != 1)
    return emitOpError() << "expects a rank-1 bias, but got " << bias;
  if (bias.getElementType() != value.getElementType())
    return emitOpError() << "bias element type " << bias.getElementType()
                         << " differs from value element type "
                         << value.getElementType();
  if (bias.getDimSize(0) != value.getShape().back())
    return emitOpError() << "bias size " << bias.getDimSize(0)
                         << " does not match the last dimension of the value ("
                         << value.getRank() - 1 << ", of size "
                         << value.getShape().back() << ")";
  return success();
}

/// Shared verifier of reduce_sum, reduce_mean and reduce_max.
static LogicalResult verifyReduce(Operation *op, RankedTensorType input,
                                  ArrayRef<int64_t> axes, bool keepDims) {
  return verifyRule(op,
                    reduceType(input, axes, keepDims, RuleError{op, {}, {}}));
}

LogicalResult ReduceSumOp::verify() {
  return verifyReduce(*this, getInput().getType(), getAxes(), getKeepDims());
}
LogicalResult ReduceMeanOp::verify() {
  return verifyReduce(*this, getInput().getType(), getAxes(), getKeepDims());
}
LogicalResult ReduceMaxOp::verify() {
  return verifyReduce(*this, getInput().getType(), getAxes(), getKeepDims());
}

LogicalResult SoftmaxOp::verify() {
  if (getInput().getType().getRank() < 1)
    return emitOpError() << "expects an operand of rank at least 1, but got "
                         << getInput().getType();
  return success();
}

LogicalResult CastOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getShape() != result.getShape())
    return emitOpError() << "operand shape " << shapeStr(input.getShape())
                         << " differs from result shape "
                         << shapeStr(result.getShape())
                         << " (cast changes only the element type)";
  return success();
}

LogicalResult TransposeOp::verify() {
  return verifyRule(*this, transposeType(getInput().getType(), getPerm(),
                                         RuleError{*this, {}, {}}));
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "operand element type " << input.getElementType()
                         << " differs from result element type "
                         << result.getElementType();
  if (input.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot reshape " << input.getNumElements()
                         << " elements (" << input << ") into "
                         << result.getNumElements() << " elements (" << result
                         << ")";
  return success();
}

LogicalResult SliceOp::verify() {
  return verifyRule(*this, sliceType(getInput().getType(), getBegin(),
                                     getSize(), RuleError{*this, {}, {}}));
}

LogicalResult ConcatOp::verify() {
  return verifyRule(*this,
                    concatType(getInputs(), static_cast<int64_t>(getAxis()),
                               RuleError{*this, {}, {}}));
}

LogicalResult GroupOp::verify() {
  if (getInputs().empty() && getControlDeps().empty())
    return emitOpError() << "expects at least one value or token to wait for";
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel parameters.
//===----------------------------------------------------------------------===//

DictionaryAttr gplace::graph::detail::getDefaultKernelParameters(Operation *op,
                                                                 Kernel kernel) {
  Builder builder(op->getContext());
  SmallVector<NamedAttribute, 4> params;
  for (const KernelParamDef &def : kernelParamDefs(kernel)) {
    StringRef name(def.name.data(), def.name.size());
    // Flags are unit attributes, present when set; integers and arrays are
    // required attributes of the op, which its verifier made sure of.
    if (Attribute value = op->getAttr(name))
      params.push_back(builder.getNamedAttr(name, value));
  }
  return builder.getDictionaryAttr(params);
}

/// The op's default parameters with `name` replaced by `value`.
static DictionaryAttr withParameter(Operation *op, gplace::Kernel kernel,
                                    StringRef name, Attribute value) {
  NamedAttrList params(
      gplace::graph::detail::getDefaultKernelParameters(op, kernel));
  params.set(name, value);
  return params.getDictionary(op->getContext());
}

/// `axes` of a reduction counted from the front.
template <typename OpT> static DictionaryAttr reduceParameters(OpT op) {
  int64_t rank = op.getInput().getType().getRank();
  SmallVector<int64_t> axes;
  for (int64_t axis : op.getAxes())
    axes.push_back(axis < 0 ? axis + rank : axis);
  return withParameter(op, op.getKernel(), "axes",
                       Builder(op.getContext()).getDenseI64ArrayAttr(axes));
}

DictionaryAttr ReduceSumOp::getKernelParameters() {
  return reduceParameters(*this);
}
DictionaryAttr ReduceMeanOp::getKernelParameters() {
  return reduceParameters(*this);
}
DictionaryAttr ReduceMaxOp::getKernelParameters() {
  return reduceParameters(*this);
}

DictionaryAttr SliceOp::getKernelParameters() {
  // The resolved sizes are the result's shape.
  return withParameter(
      *this, getKernel(), "size",
      Builder(getContext()).getDenseI64ArrayAttr(getType().getShape()));
}

LogicalResult DynamicUpdateSliceOp::verify() {
  RankedTensorType input = getInput().getType(),
                   update = getUpdate().getType(),
                   indices = getIndices().getType();
  if (update.getRank() != input.getRank())
    return emitOpError() << "update of rank " << update.getRank()
                         << " must have the input's rank ("
                         << input.getRank() << ")";
  if (update.getElementType() != input.getElementType())
    return emitOpError() << "update element type " << update.getElementType()
                         << " differs from input element type "
                         << input.getElementType();
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (update.getDimSize(d) > input.getDimSize(d))
      return emitOpError() << "update shape " << shapeStr(update.getShape())
                           << " does not fit in input shape "
                           << shapeStr(input.getShape()) << " (dimension "
                           << d << ")";
  if (indices.getRank() != 1 || indices.getDimSize(0) != input.getRank())
    return emitOpError() << "expects one index per input dimension (a "
                         << "tensor<" << input.getRank() << "xi32> or "
                         << "tensor<" << input.getRank()
                         << "xi64>), but got " << indices;
  return success();
}

DictionaryAttr ConcatOp::getKernelParameters() {
  int64_t rank = getType().getRank(), axis = getAxis();
  return withParameter(
      *this, getKernel(), "axis",
      Builder(getContext()).getI64IntegerAttr(axis < 0 ? axis + rank : axis));
}

//===----------------------------------------------------------------------===//
// Training ops: broadcasting, padding, losses, metrics, random numbers,
// optimizers, gradients.
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "operand element type " << input.getElementType()
                         << " differs from result element type "
                         << result.getElementType();
  std::optional<std::vector<int64_t>> shape =
      gplace::broadcastShapes(input.getShape(), result.getShape());
  if (input.getRank() > result.getRank() || !shape ||
      ArrayRef<int64_t>(*shape) != result.getShape())
    return emitOpError() << "cannot broadcast " << input << " to " << result;
  return success();
}

LogicalResult PadOp::verify() {
  return verifyRule(*this, padType(getInput().getType(), getPaddings(),
                                   RuleError{*this, {}, {}}));
}

GPLACE_INFER_RETURN_TYPES(SparseSoftmaxCrossEntropyWithLogitsOp) {
  if (operands.empty())
    return failure();
  auto features = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!features || features.getRank() != 2)
    return emitOptionalError(location,
                             "'gplace.sparse_softmax_cross_entropy_with_logits'"
                             " expects rank-2 features [batch, classes], but "
                             "got ",
                             operands[0].getType());
  inferredReturnTypes.push_back(RankedTensorType::get(
      {features.getDimSize(0)}, features.getElementType()));
  inferredReturnTypes.push_back(features);
  return success();
}

LogicalResult SparseSoftmaxCrossEntropyWithLogitsOp::verify() {
  RankedTensorType features = getFeatures().getType();
  RankedTensorType labels = getLabels().getType();
  if (labels.getRank() != 1 || labels.getDimSize(0) != features.getDimSize(0))
    return emitOpError() << "labels " << labels
                         << " must have shape [batch] = ["
                         << features.getDimSize(0) << "] for features "
                         << features;
  return success();
}

/// A non-negative axis of a rank-`rank` operand.
static int64_t resolveAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

LogicalResult ArgMaxOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() == 0)
    return emitOpError() << "expects an operand of rank at least 1";
  FailureOr<int64_t> axis =
      normalizeAxis(*this, "axis", getAxis(), input.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  shape.erase(shape.begin() + *axis);
  return verifyResultType(
      *this, RankedTensorType::get(shape, getType().getElementType()));
}

DictionaryAttr ArgMaxOp::getKernelParameters() {
  return withParameter(*this, getKernel(), "axis",
                       Builder(getContext()).getI64IntegerAttr(resolveAxis(
                           getAxis(), getInput().getType().getRank())));
}

LogicalResult GatherOp::verify() {
  return verifyRule(*this, gatherType(getParams().getType(),
                                      getIndices().getType(),
                                      static_cast<int64_t>(getAxis()),
                                      RuleError{*this, {}, {}}));
}

DictionaryAttr GatherOp::getKernelParameters() {
  return withParameter(*this, getKernel(), "axis",
                       Builder(getContext())
                           .getI64IntegerAttr(resolveAxis(
                               getAxis(), getParams().getType().getRank())));
}

LogicalResult UnsortedSegmentSumOp::verify() {
  RankedTensorType data = getData().getType(), ids = getSegmentIds().getType(),
                   result = getType();
  if (ids.getRank() > data.getRank() ||
      data.getShape().take_front(ids.getRank()) != ids.getShape())
    return emitOpError() << "segment_ids' shape " << shapeStr(ids.getShape())
                         << " must be a prefix of data's "
                         << shapeStr(data.getShape());
  if (result.getRank() < 1 ||
      result.getShape().drop_front() !=
          data.getShape().drop_front(ids.getRank()) ||
      result.getElementType() != data.getElementType())
    return emitOpError() << "result " << result
                         << " must be the number of segments followed by "
                            "data's dimensions after segment_ids', of data's "
                            "element type";
  return success();
}

/// Shared verifier of the comparisons (Graph_ComparisonOp): operands of one
/// element type, broadcast-compatible, and an i1 result of their broadcast
/// shape (the rule their inferReturnTypes applies).
template <typename OpT> static LogicalResult verifyComparison(OpT op) {
  return verifyRule(op, broadcastType({op.getLhs(), op.getRhs()},
                                      /*i1Result=*/true,
                                      RuleError{op, {}, {}}));
}

LogicalResult EqualOp::verify() { return verifyComparison(*this); }

LogicalResult GreaterEqualOp::verify() { return verifyComparison(*this); }

LogicalResult GreaterOp::verify() { return verifyComparison(*this); }

LogicalResult LogicalAndOp::verify() { return verifyComparison(*this); }

LogicalResult LogicalOrOp::verify() { return verifyComparison(*this); }

LogicalResult SelectOp::verify() {
  return verifyRule(*this, selectType(getCondition().getType(),
                                      getThenValue().getType(),
                                      getElseValue().getType(),
                                      RuleError{*this, {}, {}}));
}

LogicalResult CheckRangeOp::verify() {
  int64_t low = getLowAttr().getInt(), high = getHighAttr().getInt();
  if (low > high)
    return emitOpError() << "low (" << low << ") must be at most high (" << high
                         << ")";
  return success();
}

LogicalResult OneHotOp::verify() {
  RankedTensorType indices = getIndices().getType(), result = getType();
  for (Value value : {getOnValue(), getOffValue()})
    if (value.getType() !=
        RankedTensorType::get({}, result.getElementType()))
      return emitOpError() << "on_value and off_value must be scalars of the "
                              "result's element type "
                           << result.getElementType() << ", but got "
                           << value.getType();
  if (result.getRank() != indices.getRank() + 1 ||
      result.getShape().drop_back() != indices.getShape())
    return emitOpError() << "result " << result
                         << " must have the indices' shape "
                         << shapeStr(indices.getShape())
                         << " and one more dimension (the depth)";
  return success();
}

/// Shared verifier of the stateless random ops: a seed of two integers.
static LogicalResult verifySeed(Operation *op, RankedTensorType seed) {
  if (seed.getShape() != ArrayRef<int64_t>{2})
    return op->emitOpError() << "seed must be a tensor of two integers "
                                "(tensor<2xi32> or tensor<2xi64>), but got "
                             << seed;
  return success();
}
LogicalResult StatelessRandomUniformOp::verify() {
  return verifySeed(*this, getSeed().getType());
}
LogicalResult StatelessRandomNormalOp::verify() {
  return verifySeed(*this, getSeed().getType());
}
LogicalResult StatelessTruncatedNormalOp::verify() {
  return verifySeed(*this, getSeed().getType());
}

/// Shared verifier of the optimizers: `slots` are variables of `var`'s
/// type, `scalars` scalars of its element type, `grad` of its value type.
static LogicalResult verifyApply(Operation *op, Value var,
                                 ArrayRef<Value> slots,
                                 ArrayRef<Value> scalars, Value grad) {
  auto resource = cast<ResourceType>(var.getType());
  RankedTensorType value = resource.getValueType();
  if (!isa<FloatType>(value.getElementType()))
    return op->emitOpError() << "updates a variable of floating-point type, "
                                "but got "
                             << resource;
  for (Value slot : slots)
    if (slot.getType() != resource)
      return op->emitOpError() << "slot type " << slot.getType()
                               << " differs from the variable's type "
                               << resource;
  auto scalar = RankedTensorType::get({}, value.getElementType());
  for (Value s : scalars)
    if (s.getType() != scalar)
      return op->emitOpError() << "expects scalar hyperparameters of type "
                               << scalar << ", but got " << s.getType();
  if (grad.getType() != value)
    return op->emitOpError() << "gradient type " << grad.getType()
                             << " differs from the variable's value type "
                             << value;
  return success();
}

LogicalResult ApplyGradientDescentOp::verify() {
  return verifyApply(*this, getVar(), {}, {getAlpha()}, getDelta());
}
LogicalResult ApplyMomentumOp::verify() {
  return verifyApply(*this, getVar(), {getAccum()}, {getLr(), getMomentum()},
                     getGrad());
}
LogicalResult ApplyAdamOp::verify() {
  return verifyApply(*this, getVar(), {getM(), getV()},
                     {getBeta1Power(), getBeta2Power(), getLr(), getBeta1(),
                      getBeta2(), getEpsilon()},
                     getGrad());
}

GPLACE_INFER_RETURN_TYPES(GradientsOp) {
  Adaptor adaptor(operands, attributes, properties, regions);
  for (Value x : adaptor.getXs())
    inferredReturnTypes.push_back(x.getType());
  return success();
}

GPLACE_INFER_RETURN_TYPES(AllReduceOp) {
  // One result per input, of its type.
  for (Value operand : operands)
    inferredReturnTypes.push_back(operand.getType());
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expects at least one input";
  if (getDevices().size() != getInputs().size())
    return emitOpError() << "has " << getDevices().size() << " devices for "
                         << getInputs().size()
                         << " inputs (expected one per input)";
  for (Value input : getInputs())
    if (input.getType() != getInputs().front().getType())
      return emitOpError() << "expects inputs of one type, got "
                           << getInputs().front().getType() << " and "
                           << input.getType();
  if (getReduction() != "sum" && getReduction() != "mean")
    return emitOpError() << "reduction must be \"sum\" or \"mean\", not \""
                         << getReduction() << "\"";
  return success();
}

LogicalResult CollectiveReduceOp::verify() {
  // The attributes as signed integers (I64Attr's getters are unsigned).
  int64_t size = getGroupSizeAttr().getInt();
  int64_t member = getMemberAttr().getInt();
  if (size < 1)
    return emitOpError() << "group_size must be at least 1, but is " << size;
  if (member < 0 || member >= size)
    return emitOpError() << "member " << member << " is not in a group of "
                         << size << " (members 0 to " << size - 1 << ")";
  if (getGroupKeyAttr().getInt() < 0 || getInstanceKeyAttr().getInt() < 0)
    return emitOpError() << "group_key and instance_key must not be "
                            "negative";
  if (!getRanks().empty() &&
      static_cast<int64_t>(getRanks().size()) != size)
    return emitOpError() << "has " << getRanks().size()
                         << " ranks for a group of " << size
                         << " (one per member, or none)";
  if (llvm::any_of(getRanks(), [](int64_t rank) { return rank < 0; }))
    return emitOpError() << "ranks must not be negative";
  return success();
}

LogicalResult GradientsOp::verify() {
  if (getYs().empty() || getXs().empty())
    return emitOpError() << "expects at least one y and one x";
  if (!getGradYs().empty()) {
    if (getGradYs().size() != getYs().size())
      return emitOpError() << "has " << getGradYs().size()
                           << " grad_ys for " << getYs().size()
                           << " ys (expected one per y)";
    for (auto [i, pair] : llvm::enumerate(llvm::zip(getYs(), getGradYs())))
      if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
        return emitOpError() << "grad_ys #" << i << " has type "
                             << std::get<1>(pair).getType() << " but y #" << i
                             << " has type " << std::get<0>(pair).getType();
  }
  return success();
}
