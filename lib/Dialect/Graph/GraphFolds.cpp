//===- GraphFolds.cpp - constant folding of gplace graph ops --------------===//
//
// The fold hooks of the graph ops (their records set `hasFolder`), as
// TensorFlow's Grappler constant folding and MLIR's canonicalizer fold:
// ops whose operands are all constants become a constant, and ops that do
// nothing (a reshape, transpose, slice, broadcast or cast to the operand's
// own type, a concat of one tensor) forward their operand.
//
// What folds computes exactly what the host kernel would:
// - elementwise arithmetic evaluates the kernel's own scalar function
//   (lib/Runtime/ElementwiseKernels.def) in the kernel's compute type
//   (float for f16, bf16 and f32, double for f64), with denormals flushed
//   to zero as the host kernels flush them, then rounds to the element type
//   to nearest even as Eigen's half and bfloat16 do; integers wrap;
// - only functions whose result is exactly rounded fold (add, sub, mul,
//   div, neg, maximum, relu, relu_grad, square, sqrt, sign, round, ceil,
//   floor, floor_mod, truncate_mod): exp, log, tanh, sigmoid, pow, the
//   trigonometric and hyperbolic functions and erf do not, since the
//   vectorized host kernels may differ in the last place from a scalar
//   evaluation here;
// - comparisons (equal, greater, greater_equal), logical ops, is_inf and
//   is_nan fold as their kernels compare (Kernels.cpp's runComparison):
//   floats in the compute type with denormal operands read as zero (the
//   host's DAZ), a NaN unordered (equal to nothing, itself included);
// - as MLIR's arith dialect folds andi, ori, xori and cmpi: logical_and
//   and logical_or with a splat constant operand give the other operand
//   or the constant, logical_not of a logical_not its operand, and an
//   integer compared with itself a splat (a float may be a NaN: no fold);
//   a select with a splat condition gives the chosen operand;
// - an integer division by zero, or an out-of-range gather index, does not
//   fold: the kernel's error stays the user's;
// - no result larger than Grappler's limit (kMaxConstantSize, 10 MiB)
//   folds.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "gplace/Support/Kernel.h"
#include "gplace/Support/Shape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;
using namespace gplace::graph;

namespace {

/// Grappler's kMaxConstantSize: no folded constant is larger.
constexpr int64_t kMaxFoldedBytes = 10 * 1024 * 1024;

/// A fold that broadcasts (its result has more elements than its largest
/// constant operand) makes a constant of at most this many bytes: a larger
/// one would be kept in memory for the whole run where the op's result
/// lives only between its producer and its last use (a mean's gradient,
/// broadcast to the batch). XLA's constant folding never folds a
/// broadcast for that reason; shape computations stay far below this.
constexpr int64_t kMaxExpandedBytes = 64 * 1024;

/// Whether folding `operands` into a constant of `type` broadcasts them
/// into more than kMaxExpandedBytes.
bool expandsTooMuch(llvm::ArrayRef<DenseElementsAttr> operands,
                    RankedTensorType type) {
  int64_t largest = 0;
  for (DenseElementsAttr value : operands)
    largest = std::max<int64_t>(largest, value.getNumElements());
  int64_t bits = std::max<int64_t>(type.getElementTypeBitWidth(), 8);
  return type.getNumElements() > largest &&
         type.getNumElements() * bits / 8 > kMaxExpandedBytes;
}

/// The operand's constant value, or null.
DenseElementsAttr constantOf(Attribute attr) {
  return dyn_cast_or_null<DenseElementsAttr>(attr);
}

/// Whether a constant of `type` is small enough to fold into.
bool fitsFold(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  std::optional<int64_t> count = gplace::checkedNumElements(tensor.getShape());
  Type element = tensor.getElementType();
  if (!count || !element.isIntOrFloat())
    return false;
  int64_t bits = element.getIntOrFloatBitWidth();
  return *count <= kMaxFoldedBytes * 8 / std::max<int64_t>(bits, 8);
}

/// The elements of a constant, read by flat index without copying them
/// (a splat's one element serves every index); booleans, which
/// DenseElementsAttr packs as bits, are unpacked once.
class ElementReader {
public:
  explicit ElementReader(DenseElementsAttr attr)
      : splat(attr.isSplat()),
        isBool(attr.getElementType().isInteger(1)) {
    if (isBool) {
      for (bool b : attr.getValues<bool>()) {
        bits.push_back(b);
        if (splat)
          break;
      }
    } else {
      data = attr.getRawData().data();
      bytes = (attr.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    }
  }

  /// Appends element `i` to `out`.
  void append(int64_t i, std::vector<char> &bytesOut,
              std::vector<bool> &bitsOut) const {
    if (splat)
      i = 0;
    if (isBool) {
      bitsOut.push_back(bits[i]);
      return;
    }
    bytesOut.insert(bytesOut.end(), data + i * bytes, data + (i + 1) * bytes);
  }

private:
  bool splat, isBool;
  const char *data = nullptr;
  size_t bytes = 0;
  std::vector<bool> bits;
};

/// A constant of `type` made of the elements `source` names, in order:
/// `source(i)` returns (which reader, which element) for result element i.
template <typename Source>
DenseElementsAttr gatherElements(RankedTensorType type,
                                 ArrayRef<ElementReader> readers,
                                 Source source) {
  int64_t count = type.getNumElements();
  std::vector<char> bytes;
  std::vector<bool> bits;
  for (int64_t i = 0; i < count; ++i) {
    auto [reader, element] = source(i);
    readers[reader].append(element, bytes, bits);
  }
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> values(bits.begin(), bits.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// The row-major strides of `shape`, in elements.
SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// The offset in an operand broadcast to `type` (its `strides`,
/// gplace::broadcastStrides) of the result's element `i`.
int64_t broadcastOffset(RankedTensorType type, ArrayRef<int64_t> strides,
                        int64_t i) {
  int64_t offset = 0;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    offset += (i % type.getDimSize(d)) * strides[d];
    i /= type.getDimSize(d);
  }
  return offset;
}

/// For each element of `outShape` in row-major order, calls `fn(i, offset)`
/// with offset = sum(index_d * strides[d]).
template <typename Fn>
void forEachOffset(ArrayRef<int64_t> outShape, ArrayRef<int64_t> strides,
                   Fn fn) {
  int64_t count = 1;
  for (int64_t d : outShape)
    count *= d;
  SmallVector<int64_t> index(outShape.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    fn(i, offset);
    for (int64_t d = static_cast<int64_t>(outShape.size()) - 1; d >= 0; --d) {
      ++index[d];
      offset += strides[d];
      if (index[d] < outShape[d])
        break;
      offset -= strides[d] * outShape[d];
      index[d] = 0;
    }
  }
}

/// `attr`, laid out as `type` (same element count) with element i of the
/// result read at `strides`-offset of its row-major index.
DenseElementsAttr permuteElements(DenseElementsAttr attr,
                                  RankedTensorType type,
                                  ArrayRef<int64_t> strides) {
  if (attr.isSplat())
    return DenseElementsAttr::get(type, attr.getSplatValue<Attribute>());
  SmallVector<int64_t> offsets;
  offsets.reserve(type.getNumElements());
  forEachOffset(type.getShape(), strides,
                [&](int64_t, int64_t offset) { offsets.push_back(offset); });
  ElementReader reader(attr);
  return gatherElements(type, reader, [&](int64_t i) {
    return std::pair<size_t, int64_t>(0, offsets[i]);
  });
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic: the host kernels' scalar functions.
//===----------------------------------------------------------------------===//

// The helpers ElementwiseKernels.def's expressions use, as the host kernels
// define them (Kernels.cpp). Only the exactly rounded functions are folded
// (isExactKernel), but every line of the file must compile here.
template <typename T> T gp_exp(T x) { return std::exp(x); }
template <typename T> T gp_log(T x) { return std::log(x); }
template <typename T> T gp_tanh(T x) { return std::tanh(x); }
template <typename T> T gp_sqrt(T x) { return std::sqrt(x); }
template <typename T> T gp_pow(T x, T y) { return std::pow(x, y); }
template <typename T> T gp_sin(T x) { return std::sin(x); }
template <typename T> T gp_cos(T x) { return std::cos(x); }
template <typename T> T gp_tan(T x) { return std::tan(x); }
template <typename T> T gp_asin(T x) { return std::asin(x); }
template <typename T> T gp_acos(T x) { return std::acos(x); }
template <typename T> T gp_atan(T x) { return std::atan(x); }
template <typename T> T gp_sinh(T x) { return std::sinh(x); }
template <typename T> T gp_cosh(T x) { return std::cosh(x); }
template <typename T> T gp_asinh(T x) { return std::asinh(x); }
template <typename T> T gp_acosh(T x) { return std::acosh(x); }
template <typename T> T gp_atanh(T x) { return std::atanh(x); }
template <typename T> T gp_erf(T x) { return std::erf(x); }
template <typename T> T gp_round(T x) { return std::nearbyint(x); }
template <typename T> T gp_ceil(T x) { return std::ceil(x); }
template <typename T> T gp_floor(T x) { return std::floor(x); }
template <typename T> T gp_abs(T x) { return std::fabs(x); }
template <typename T> T gp_sign(T x) {
  if (std::isnan(x))
    return x;
  return x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0);
}
template <typename T> T gp_truncate_mod(T x, T y) { return std::fmod(x, y); }
template <typename T> T gp_floor_mod(T x, T y) {
  T r = std::fmod(x, y);
  return r != T(0) && ((r < T(0)) != (y < T(0))) ? r + y : r;
}
template <typename T> T gp_maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  return a > b ? a : b;
}
template <typename T> T gp_relu(T x) {
  if (std::isnan(x))
    return x;
  return x > T(0) ? x : T(0);
}

/// The kernels whose floating-point result is one correctly rounded
/// operation (or exact): folding them here gives the host kernel's bits.
bool isExactKernel(gplace::Kernel kernel) {
  using gplace::Kernel;
  switch (kernel) {
  case Kernel::Add:
  case Kernel::Sub:
  case Kernel::Mul:
  case Kernel::Div:
  case Kernel::Neg:
  case Kernel::Maximum:
  case Kernel::Relu:
  case Kernel::ReluGrad:
  case Kernel::Square:
  case Kernel::Sqrt:
  case Kernel::Sign:
  case Kernel::Round:
  case Kernel::Ceil:
  case Kernel::Floor:
  case Kernel::FloorMod:
  case Kernel::TruncateMod:
    return true;
  default:
    return false;
  }
}

/// The kernels whose result is a boolean of their operands' elements
/// (Kernels.cpp's runComparison, runFloatPredicate and LogicalNot): exact,
/// whatever the operands.
bool isPredicateKernel(gplace::Kernel kernel) {
  using gplace::Kernel;
  switch (kernel) {
  case Kernel::Equal:
  case Kernel::GreaterEqual:
  case Kernel::Greater:
  case Kernel::LogicalAnd:
  case Kernel::LogicalOr:
  case Kernel::LogicalNot:
  case Kernel::IsInf:
  case Kernel::IsNan:
    return true;
  default:
    return false;
  }
}

/// A denormal flushed to zero, as the host kernels run (runtime.md).
template <typename T> T flushDenormal(T x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(T(0), x) : x;
}

/// `kernel`'s scalar function on floating-point operands in compute type T.
template <typename T>
std::optional<T> evaluateFloat(gplace::Kernel kernel, T x0, T x1) {
  x0 = flushDenormal(x0);
  x1 = flushDenormal(x1);
  switch (kernel) {
#define GPLACE_ELEMENTWISE(Name, Expression)                                   \
  case gplace::Kernel::Name:                                                   \
    return flushDenormal(static_cast<T>(Expression));
#include "../../Runtime/ElementwiseKernels.def"
  default:
    return std::nullopt;
  }
}

/// `kernel` on integers: two's complement, wrapping, as the host kernels'
/// integer types; std::nullopt where the kernel would report an error
/// (division by zero) or has no integer form.
std::optional<APInt> evaluateInt(gplace::Kernel kernel, const APInt &a,
                                 const APInt &b) {
  using gplace::Kernel;
  switch (kernel) {
  case Kernel::Add:
    return a + b;
  case Kernel::Sub:
    return a - b;
  case Kernel::Mul:
    return a * b;
  case Kernel::Div:
    if (b.isZero() || (a.isMinSignedValue() && b.isAllOnes()))
      return std::nullopt;
    return a.sdiv(b);
  case Kernel::Neg:
    return -a;
  case Kernel::Maximum:
    return a.sgt(b) ? a : b;
  case Kernel::Relu:
    return a.isNegative() ? APInt::getZero(a.getBitWidth()) : a;
  case Kernel::ReluGrad:
    return b.sgt(APInt::getZero(b.getBitWidth())) ? a
                                                  : APInt::getZero(a.getBitWidth());
  case Kernel::Square:
    return a * a;
  case Kernel::Sign:
    return APInt(a.getBitWidth(), a.isNegative() ? -1 : !a.isZero(),
                 /*isSigned=*/true);
  case Kernel::TruncateMod:
  case Kernel::FloorMod: {
    if (b.isZero())
      return std::nullopt;
    if (b.isAllOnes())
      return APInt::getZero(a.getBitWidth());
    APInt r = a.srem(b);
    if (kernel == Kernel::FloorMod && !r.isZero() &&
        r.isNegative() != b.isNegative())
      r += b;
    return r;
  }
  default:
    return std::nullopt;
  }
}

/// A comparison, is_inf or is_nan of floating-point operands in compute
/// type T, as a 1-bit APInt: the operands read as the host's DAZ reads
/// them (a denormal is zero), a NaN unordered with everything.
template <typename T>
std::optional<APInt> predicateFloat(gplace::Kernel kernel, T x0, T x1) {
  using gplace::Kernel;
  x0 = flushDenormal(x0);
  x1 = flushDenormal(x1);
  switch (kernel) {
  case Kernel::Equal:
    return APInt(1, x0 == x1);
  case Kernel::GreaterEqual:
    return APInt(1, x0 >= x1);
  case Kernel::Greater:
    return APInt(1, x0 > x1);
  case Kernel::IsInf:
    return APInt(1, std::isinf(x0));
  case Kernel::IsNan:
    return APInt(1, std::isnan(x0));
  default:
    return std::nullopt;
  }
}

/// A comparison or logical op of integers (signless, two's complement; i1
/// for the logical ops), as a 1-bit APInt.
std::optional<APInt> predicateInt(gplace::Kernel kernel, const APInt &a,
                                  const APInt &b) {
  using gplace::Kernel;
  switch (kernel) {
  case Kernel::Equal:
    return APInt(1, a == b);
  case Kernel::GreaterEqual:
    return APInt(1, a.sge(b));
  case Kernel::Greater:
    return APInt(1, a.sgt(b));
  case Kernel::LogicalAnd:
    return APInt(1, !a.isZero() && !b.isZero());
  case Kernel::LogicalOr:
    return APInt(1, !a.isZero() || !b.isZero());
  case Kernel::LogicalNot:
    return APInt(1, a.isZero());
  default:
    return std::nullopt;
  }
}

/// `v` (f32, f16 or bf16) as the float it is computed in: exact.
float toComputeFloat(APFloat v) {
  bool lost;
  v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  return v.convertToFloat();
}

/// A predicate of one element in the kernel's compute type.
std::optional<APInt> predicateElement(gplace::Kernel kernel, const APFloat &a,
                                      const APFloat &b) {
  if (&a.getSemantics() == &APFloat::IEEEdouble())
    return predicateFloat<double>(kernel, a.convertToDouble(),
                                  b.convertToDouble());
  return predicateFloat<float>(kernel, toComputeFloat(a), toComputeFloat(b));
}

/// One element in the kernel's compute type, then rounded back.
std::optional<APFloat> evaluateElement(gplace::Kernel kernel,
                                       const APFloat &a, const APFloat &b) {
  const llvm::fltSemantics &semantics = a.getSemantics();
  if (&semantics == &APFloat::IEEEdouble()) {
    std::optional<double> r =
        evaluateFloat<double>(kernel, a.convertToDouble(), b.convertToDouble());
    if (!r)
      return std::nullopt;
    return APFloat(*r);
  }
  std::optional<float> r =
      evaluateFloat<float>(kernel, toComputeFloat(a), toComputeFloat(b));
  if (!r)
    return std::nullopt;
  APFloat result(*r);
  bool lost;
  result.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
  return result;
}

/// The folds of `op` (no control dependencies) that need not all of its
/// operands constant (`values`, null where not), as MLIR's arith dialect
/// folds andi, ori, xori(xori(x, true), true) and cmpi: logical_and and
/// logical_or of an operand with a splat constant, or with itself;
/// logical_not of a logical_not; an integer compared with itself (a float
/// may be NaN, which equals nothing). A constant they make is held to the
/// limits of any other fold.
OpFoldResult foldIdentity(Operation *op, gplace::Kernel kernel,
                          ArrayRef<DenseElementsAttr> values,
                          RankedTensorType type) {
  using gplace::Kernel;
  auto splat = [&](bool value, ArrayRef<DenseElementsAttr> from)
      -> OpFoldResult {
    if (!fitsFold(type) || expandsTooMuch(from, type))
      return {};
    return DenseElementsAttr::get(type, value);
  };
  switch (kernel) {
  case Kernel::LogicalNot:
    if (auto inner = op->getOperand(0).getDefiningOp<LogicalNotOp>())
      if (inner.getControlDeps().empty())
        return inner.getInput();
    return {};
  case Kernel::LogicalAnd:
  case Kernel::LogicalOr: {
    // The value that decides the result alone (false for and, true for
    // or); the other one leaves the other operand.
    bool absorbing = kernel == Kernel::LogicalOr;
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    if (lhs == rhs && lhs.getType() == type)
      return lhs;
    for (int k : {0, 1}) {
      if (!values[k] || !values[k].isSplat())
        continue;
      Value other = op->getOperand(1 - k);
      if (values[k].getSplatValue<bool>() == absorbing)
        return splat(absorbing, values[k]);
      if (other.getType() == type)
        return other;
    }
    return {};
  }
  case Kernel::Equal:
  case Kernel::GreaterEqual:
  case Kernel::Greater: {
    Value lhs = op->getOperand(0);
    if (op->getOperand(1) != lhs ||
        !isa<IntegerType>(cast<RankedTensorType>(lhs.getType())
                              .getElementType()))
      return {};
    return splat(kernel != Kernel::Greater, {});
  }
  default:
    return {};
  }
}

} // namespace

OpFoldResult gplace::graph::detail::foldElementwise(
    Operation *op, gplace::Kernel kernel, ArrayRef<Attribute> operands) {
  bool predicate = isPredicateKernel(kernel);
  if ((!isExactKernel(kernel) && !predicate) || operands.empty() ||
      operands.size() > 2)
    return {};
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      !llvm::all_of(op->getOperandTypes(),
                    [](Type t) { return isa<RankedTensorType>(t); }))
    return {};
  SmallVector<DenseElementsAttr, 2> values;
  for (Attribute attr : operands)
    values.push_back(constantOf(attr));
  if (llvm::is_contained(values, DenseElementsAttr()))
    return predicate ? foldIdentity(op, kernel, values, type) : OpFoldResult();
  if (!fitsFold(type) || expandsTooMuch(values, type) ||
      (!predicate && type.getElementType().isInteger(1)))
    return predicate ? foldIdentity(op, kernel, values, type) : OpFoldResult();
  // The operands' element type: the result's, or a predicate's operands'.
  Type element = values[0].getElementType();
  bool isFloat = isa<FloatType>(element);
  // Integers are signless (i32, i64; i1 for the logical ops); only
  // equality also reads ui8, whose order would be unsigned.
  if (!isFloat && !element.isSignlessInteger() &&
      kernel != gplace::Kernel::Equal)
    return {};
  // Each operand's strides into the broadcast shape.
  SmallVector<std::vector<int64_t>, 2> strides;
  for (DenseElementsAttr value : values)
    strides.push_back(gplace::broadcastStrides(
        cast<RankedTensorType>(value.getType()).getShape(), type.getShape()));
  int64_t count = type.getNumElements();
  auto offsetOf = [&](size_t k, int64_t i) {
    return values[k].isSplat() ? int64_t(0)
                               : broadcastOffset(type, strides[k], i);
  };
  // Element i of the result from the operands' elements at their
  // broadcast offsets, as values of type T (APFloat or APInt); the
  // results are APFloat or APInt (1 bit for a predicate).
  auto evaluateAll = [&](auto element, auto evaluate) -> OpFoldResult {
    using T = decltype(element);
    using R = typename decltype(evaluate(kernel, element, element))::value_type;
    SmallVector<SmallVector<T>, 2> in;
    for (DenseElementsAttr value : values)
      in.push_back(value.isSplat()
                       ? SmallVector<T>{value.getSplatValue<T>()}
                       : llvm::to_vector(value.getValues<T>()));
    SmallVector<R> out;
    out.reserve(count);
    for (int64_t i = 0; i < count; ++i) {
      const T &a = in[0][offsetOf(0, i)];
      const T &b = in.size() > 1 ? in[1][offsetOf(1, i)] : a;
      std::optional<R> r = evaluate(kernel, a, b);
      if (!r)
        return {};
      out.push_back(*r);
    }
    return DenseElementsAttr::get(type, out);
  };
  if (predicate)
    return isFloat ? evaluateAll(APFloat(0.0f), predicateElement)
                   : evaluateAll(APInt(), predicateInt);
  if (isFloat)
    return evaluateAll(APFloat(0.0f), evaluateElement);
  return evaluateAll(APInt(), evaluateInt);
}

namespace {

/// Cast's element conversion, as C++ converts (Cast's kernel): float to
/// integer truncates toward zero, anything nonzero is true, integers
/// sign-extend or truncate (unsigned ones zero-extend).
std::optional<DenseElementsAttr> castElements(DenseElementsAttr value,
                                              RankedTensorType type) {
  Type from = value.getElementType(), to = type.getElementType();
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  bool fromUnsigned = from.isUnsignedInteger();
  auto convert = [&](auto fn) -> std::optional<DenseElementsAttr> {
    if (value.isSplat()) {
      auto r = fn(0);
      if (!r)
        return std::nullopt;
      return DenseElementsAttr::get(type, *r);
    }
    using R = std::decay_t<decltype(*fn(0))>;
    SmallVector<R> out;
    for (int64_t i = 0, e = value.getNumElements(); i < e; ++i) {
      auto r = fn(i);
      if (!r)
        return std::nullopt;
      out.push_back(*r);
    }
    return DenseElementsAttr::get(type, ArrayRef<R>(out));
  };
  SmallVector<APFloat> floats;
  SmallVector<APInt> ints;
  if (fromFloat)
    floats = value.isSplat()
                 ? SmallVector<APFloat>{value.getSplatValue<APFloat>()}
                 : llvm::to_vector(value.getValues<APFloat>());
  else
    ints = value.isSplat() ? SmallVector<APInt>{value.getSplatValue<APInt>()}
                           : llvm::to_vector(value.getValues<APInt>());
  if (to.isInteger(1))
    return convert([&](int64_t i) -> std::optional<bool> {
      return fromFloat ? !floats[i].isZero() : !ints[i].isZero();
    });
  if (toFloat) {
    const llvm::fltSemantics &semantics =
        cast<FloatType>(to).getFloatSemantics();
    return convert([&](int64_t i) -> std::optional<APFloat> {
      APFloat r(semantics);
      bool lost;
      if (fromFloat) {
        r = floats[i];
        r.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      } else {
        r.convertFromAPInt(ints[i], !fromUnsigned && !from.isInteger(1),
                           APFloat::rmNearestTiesToEven);
      }
      return r;
    });
  }
  unsigned width = to.getIntOrFloatBitWidth();
  bool toUnsigned = to.isUnsignedInteger();
  return convert([&](int64_t i) -> std::optional<APInt> {
    if (!fromFloat)
      return fromUnsigned || from.isInteger(1) ? ints[i].zextOrTrunc(width)
                                               : ints[i].sextOrTrunc(width);
    // Out of range (or NaN) is undefined in C++: left to the kernel.
    APSInt result(width, toUnsigned);
    bool exact;
    if (!floats[i].isFinite() ||
        (floats[i].convertToInteger(result, APFloat::rmTowardZero, &exact) &
         APFloat::opInvalidOp))
      return std::nullopt;
    return APInt(result);
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// The dialect's constants.
//===----------------------------------------------------------------------===//

ConstantOp gplace::graph::buildConstant(OpBuilder &b, Location loc,
                                        DenseElementsAttr value,
                                        ArrayRef<NamedAttribute> attributes) {
  SmallVector<NamedAttribute, 3> attrs = {b.getNamedAttr("value", value)};
  attrs.append(attributes.begin(), attributes.end());
  return b.create<ConstantOp>(loc, TypeRange{value.getType()}, ValueRange{},
                              attrs);
}

DenseElementsAttr gplace::graph::getSplatAttr(ShapedType type, double value) {
  Type element = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(element))
    return DenseElementsAttr::get(type, FloatAttr::get(floatType, value));
  if (element.isInteger(1))
    return DenseElementsAttr::get(type, value != 0);
  return DenseElementsAttr::get(
      type, IntegerAttr::get(element, static_cast<int64_t>(value)));
}

ConstantOp gplace::graph::buildSplatConstant(
    OpBuilder &b, Location loc, RankedTensorType type, double value,
    ArrayRef<NamedAttribute> attributes) {
  return buildConstant(b, loc, getSplatAttr(type, value), attributes);
}

bool gplace::graph::isFloatTensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && isa<FloatType>(type.getElementType());
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<DenseElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return buildConstant(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// Elementwise ops.
//===----------------------------------------------------------------------===//

// Their folds are defined with their class (Graph_UnaryOp, Graph_BinaryOp,
// Graph_ComparisonOp in GraphOps.td): detail::foldElementwise above.

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto type = cast<RankedTensorType>(getType());
  if (!getControlDeps().empty())
    return {};
  Value thenValue = getThenValue(), elseValue = getElseValue();
  if (thenValue == elseValue && thenValue.getType() == type)
    return thenValue;
  DenseElementsAttr condition = constantOf(adaptor.getCondition());
  if (!condition)
    return {};
  auto stridesOf = [&](DenseElementsAttr value) {
    return gplace::broadcastStrides(
        cast<RankedTensorType>(value.getType()).getShape(), type.getShape());
  };
  // One choice for every element: that operand, or its constant broadcast.
  if (condition.isSplat()) {
    bool chooseThen = condition.getSplatValue<bool>();
    Value chosen = chooseThen ? thenValue : elseValue;
    if (chosen.getType() == type)
      return chosen;
    DenseElementsAttr value = constantOf(chooseThen ? adaptor.getThenValue()
                                                    : adaptor.getElseValue());
    if (!value || !fitsFold(type) || expandsTooMuch(value, type))
      return {};
    return permuteElements(value, type, stridesOf(value));
  }
  // Both operands constant: each element copied from the chosen one, as
  // the kernel copies it (a NaN in the other stays out).
  DenseElementsAttr thenConstant = constantOf(adaptor.getThenValue());
  DenseElementsAttr elseConstant = constantOf(adaptor.getElseValue());
  if (!thenConstant || !elseConstant || !fitsFold(type) ||
      expandsTooMuch({condition, thenConstant, elseConstant}, type))
    return {};
  SmallVector<bool> conditions = llvm::to_vector(condition.getValues<bool>());
  std::vector<int64_t> conditionStrides = stridesOf(condition);
  std::vector<int64_t> strides[2] = {stridesOf(thenConstant),
                                     stridesOf(elseConstant)};
  ElementReader readers[2] = {ElementReader(thenConstant),
                              ElementReader(elseConstant)};
  return gatherElements(type, readers, [&](int64_t i) {
    size_t k = conditions[broadcastOffset(type, conditionStrides, i)] ? 0 : 1;
    return std::pair<size_t, int64_t>(k, broadcastOffset(type, strides[k], i));
  });
}

//===----------------------------------------------------------------------===//
// Shape and data movement.
//===----------------------------------------------------------------------===//

OpFoldResult IdentityOp::fold(FoldAdaptor adaptor) {
  // Only a constant: an identity of a value may be where a user moves it
  // (to another device) or orders it (control dependencies).
  if (DenseElementsAttr value = constantOf(adaptor.getInput()))
    if (value.getType() == getType())
      return value;
  return {};
}

OpFoldResult CheckRangeOp::fold(FoldAdaptor adaptor) {
  // A constant in the range is its own result; one outside stays, so that
  // the run fails where the kernel would.
  DenseElementsAttr value = constantOf(adaptor.getInput());
  if (!value || value.getType() != getType())
    return {};
  int64_t low = getLowAttr().getInt(), high = getHighAttr().getInt();
  for (const APInt &element : value.getValues<APInt>())
    if (element.getSExtValue() < low || element.getSExtValue() > high)
      return {};
  return value;
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (DenseElementsAttr value = constantOf(adaptor.getInput()))
    if (fitsFold(getType()))
      return value.reshape(cast<ShapedType>(getType()));
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr value = constantOf(adaptor.getInput());
  if (!value || !fitsFold(getType()))
    return {};
  if (std::optional<DenseElementsAttr> converted =
          castElements(value, llvm::cast<RankedTensorType>(getType())))
    return *converted;
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
  if (identity && getInput().getType() == getType())
    return getInput();
  DenseElementsAttr value = constantOf(adaptor.getInput());
  auto type = cast<RankedTensorType>(getType());
  if (!value || !fitsFold(type))
    return {};
  // Result dimension i reads input dimension perm[i].
  SmallVector<int64_t> inStrides = contiguousStrides(
      cast<RankedTensorType>(value.getType()).getShape());
  SmallVector<int64_t> strides;
  for (int64_t p : perm)
    strides.push_back(inStrides[p]);
  return permuteElements(value, type, strides);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr value = constantOf(adaptor.getInput());
  auto type = cast<RankedTensorType>(getType());
  if (!value || !fitsFold(type))
    return {};
  if (value.isSplat())
    return DenseElementsAttr::get(type, value.getSplatValue<Attribute>());
  SmallVector<int64_t> strides = contiguousStrides(
      cast<RankedTensorType>(value.getType()).getShape());
  int64_t base = 0;
  for (auto [d, begin] : llvm::enumerate(getBegin()))
    base += begin * strides[d];
  SmallVector<int64_t> offsets;
  forEachOffset(type.getShape(), strides,
                [&](int64_t, int64_t offset) { offsets.push_back(base + offset); });
  ElementReader reader(value);
  return gatherElements(type, reader, [&](int64_t i) {
    return std::pair<size_t, int64_t>(0, offsets[i]);
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  auto type = cast<RankedTensorType>(getType());
  if (!fitsFold(type))
    return {};
  SmallVector<ElementReader> readers;
  SmallVector<int64_t> widths; // Each input's elements per outer index.
  int64_t axis = static_cast<int64_t>(getAxis()); // I64Attr: uint64_t.
  if (axis < 0)
    axis += type.getRank();
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  for (auto [attr, input] : llvm::zip(adaptor.getInputs(), getInputs())) {
    DenseElementsAttr value = constantOf(attr);
    if (!value)
      return {};
    readers.emplace_back(value);
    widths.push_back(
        cast<RankedTensorType>(input.getType()).getDimSize(axis) * inner);
  }
  int64_t row = 0;
  for (int64_t w : widths)
    row += w;
  return gatherElements(type, readers, [&](int64_t i) {
    int64_t outer = i / row, within = i % row;
    size_t k = 0;
    while (within >= widths[k])
      within -= widths[k++];
    return std::pair<size_t, int64_t>(k, outer * widths[k] + within);
  });
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr value = constantOf(adaptor.getInput());
  auto type = cast<RankedTensorType>(getType());
  if (!value || !fitsFold(type) || expandsTooMuch(value, type))
    return {};
  std::vector<int64_t> strides = gplace::broadcastStrides(
      cast<RankedTensorType>(value.getType()).getShape(), type.getShape());
  return permuteElements(value, type, strides);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr params = constantOf(adaptor.getParams());
  DenseElementsAttr indices = constantOf(adaptor.getIndices());
  auto type = cast<RankedTensorType>(getType());
  if (!params || !indices || !fitsFold(type))
    return {};
  auto paramsType = cast<RankedTensorType>(params.getType());
  int64_t rank = paramsType.getRank();
  int64_t axis = static_cast<int64_t>(getAxis()); // I64Attr: uint64_t.
  if (axis < 0)
    axis += rank;
  int64_t inner = 1, n = paramsType.getDimSize(axis);
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= paramsType.getDimSize(d);
  SmallVector<int64_t> index;
  for (const APInt &v : indices.getValues<APInt>()) {
    int64_t i = v.getSExtValue();
    if (i < 0 || i >= n) // The kernel's error (CPU) or zeros (GPU).
      return {};
    index.push_back(i);
  }
  int64_t count = static_cast<int64_t>(index.size());
  ElementReader reader(params);
  return gatherElements(type, reader, [&](int64_t i) {
    int64_t q = i % inner, rest = i / inner;
    int64_t j = rest % count, p = rest / count;
    return std::pair<size_t, int64_t>(0, (p * n + index[j]) * inner + q);
  });
}
