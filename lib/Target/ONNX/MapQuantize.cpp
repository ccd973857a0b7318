//===- MapQuantize.cpp - linear quantization and bit shifts of uint8 -------===//
//
// Part of the ONNX importer: see OnnxImporter.h. uint8 is gplace's one
// 8-bit type (`ui8`, which only `cast`, the data movement ops and `select`
// take): the arithmetic is done in f32 or i32 between casts.
// - QuantizeLinear: `round(x / scale) + zero_point` (`div`, `round`
//   (halves to even, as ONNX's), `add`), saturated to [0, 255] (`maximum`
//   and a minimum), `cast` to ui8; per-axis scales and zero points
//   reshaped to broadcast along `axis`;
// - DequantizeLinear: `(x - zero_point) * scale` in f32;
// - DynamicQuantizeLinear: the scale `(max(x, 0) - min(x, 0)) / 255` and
//   zero point from `reduce_max` (and of `neg` for the minimum), then
//   QuantizeLinear's ops;
// - BitShift of uint8: in i32, the shift capped at 8, times or over a
//   power of two gathered from a constant table, `floor_mod` 256 (LEFT)
//   or `div` (RIGHT). uint16, uint32 and uint64 are types gplace does not
//   have.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

RankedTensorType withElement(RankedTensorType type, Type element) {
  return RankedTensorType::get(type.getShape(), element);
}

/// `v` cast to `element` (itself if it has it).
Value castTo(Node &n, Value v, Type element, llvm::StringRef suffix) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == element)
    return v;
  return n.op<CastOp>(withElement(type, element), v, {}, suffix);
}

/// A scale or zero point (input `i`, rank 0 or [C]) as f32, shaped to
/// broadcast against `x` (C along `axis`); null where it does not fit.
Value perAxis(Node &n, int i, RankedTensorType x, llvm::StringRef what,
              std::string &reason) {
  RankedTensorType type = n.inputType(i);
  Value v = castTo(n, n.input(i), n.builder().getF32Type(),
                   (what + "_f32").str());
  if (type.getRank() == 0 ||
      (type.getRank() == 1 && type.getDimSize(0) == 1 && x.getRank() == 0))
    return v;
  if (type.getRank() != 1) {
    reason = what.str() + " of rank above 1";
    return {};
  }
  int64_t axis = n.getInt("axis", 1);
  if (!normalizeAxis(axis, x.getRank(), reason))
    return {};
  if (type.getDimSize(0) != x.getDimSize(axis)) {
    reason = what.str() + " of another size than the input along axis";
    return {};
  }
  SmallVector<int64_t> shape(x.getRank(), 1);
  shape[axis] = type.getDimSize(0);
  return n.reshape(v, shape, (what + "_axis").str());
}

/// `q` (f32, integral) plus the zero point, saturated to [0, 255], as
/// ui8 (the op named after the node).
Value saturateToU8(Node &n, Value q, RankedTensorType result) {
  auto type = cast<RankedTensorType>(q.getType());
  Value low = n.op<MaximumOp>(type, {q, n.scalar(type, 0, "zero")}, {},
                              "above_zero");
  Value high = n.minimum(low, n.scalar(type, 255, "max_u8"), type,
                         "saturated");
  return n.op<CastOp>(result, high);
}

bool isU8(Type t) {
  auto integer = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  return integer && integer.getWidth() == 8 && integer.isUnsigned();
}

/// QuantizeLinear: x (f32 or i32), y_scale, y_zero_point (uint8; default
/// 0) -> uint8.
bool mapQuantizeLinear(Node &n, SmallVectorImpl<Value> &results,
                       std::string &reason) {
  RankedTensorType x = n.inputType(0), result = n.outputTypes[0];
  if (!x || !n.inputType(1) || !result || !isU8(result)) {
    reason = "an output that is not uint8";
    return false;
  }
  Type f32 = n.builder().getF32Type();
  auto type = withElement(x, f32);
  Value xf = castTo(n, n.input(0), f32, "x_f32");
  Value scale = perAxis(n, 1, x, "scale", reason);
  if (!scale)
    return false;
  Value q = n.op<RoundOp>(type, n.op<DivOp>(type, {xf, scale}, {}, "scaled"),
                          {}, "rounded");
  if (n.hasInput(2)) {
    Value zero = perAxis(n, 2, x, "zero_point", reason);
    if (!zero)
      return false;
    q = n.op<AddOp>(type, {q, zero}, {}, "shifted");
  }
  results.push_back(saturateToU8(n, q, result));
  return true;
}

/// DequantizeLinear: x (uint8 or i32), x_scale, x_zero_point -> f32.
bool mapDequantizeLinear(Node &n, SmallVectorImpl<Value> &results,
                         std::string &reason) {
  RankedTensorType x = n.inputType(0), result = n.outputTypes[0];
  if (!x || !n.inputType(1) || !result) {
    reason = "an omitted input";
    return false;
  }
  Type f32 = n.builder().getF32Type();
  auto type = withElement(x, f32);
  Value v = castTo(n, n.input(0), f32, "x_f32");
  if (n.hasInput(2)) {
    Value zero = perAxis(n, 2, x, "zero_point", reason);
    if (!zero)
      return false;
    v = n.op<SubOp>(type, {v, zero}, {}, "shifted");
  }
  Value scale = perAxis(n, 1, x, "scale", reason);
  if (!scale)
    return false;
  results.push_back(n.op<MulOp>(result, {v, scale}));
  return true;
}

/// DynamicQuantizeLinear: x (f32) -> y (uint8), y_scale, y_zero_point.
bool mapDynamicQuantizeLinear(Node &n, SmallVectorImpl<Value> &results,
                              std::string &reason) {
  RankedTensorType x = n.inputType(0);
  if (!x || !x.getElementType().isF32() || n.outputTypes.size() != 3 ||
      !n.outputTypes[0] || !n.outputTypes[1] || !n.outputTypes[2]) {
    reason = "an input that is not f32, or an output unused";
    return false;
  }
  Builder &b = n.builder();
  Type f32 = b.getF32Type();
  auto scalar = RankedTensorType::get({}, f32);
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < x.getRank(); ++d)
    all.push_back(d);
  auto axes = n.named("axes", b.getDenseI64ArrayAttr(all));
  Value zero = n.scalar(f32, 0, "zero");
  Value max = n.op<ReduceMaxOp>(scalar, n.input(0), {axes}, "max");
  max = n.op<MaximumOp>(scalar, {max, zero}, {}, "max_with_zero");
  // -min(x, 0) = max(-x, 0).
  Value negMin = n.op<ReduceMaxOp>(
      scalar, n.op<NegOp>(x, n.input(0), {}, "negated"), {axes}, "neg_min");
  negMin = n.op<MaximumOp>(scalar, {negMin, zero}, {}, "neg_min_with_zero");
  Value range = n.op<AddOp>(scalar, {max, negMin}, {}, "range");
  Value scale = n.op<DivOp>(n.outputTypes[1],
                            {range, n.scalar(f32, 255, "levels")}, {},
                            "y_scale");
  // The zero point: round(-min / scale), saturated.
  Value zp = n.op<RoundOp>(
      scalar, n.op<DivOp>(scalar, {negMin, scale}, {}, "zero_scaled"), {},
      "zero_rounded");
  zp = n.op<MaximumOp>(scalar, {zp, zero}, {}, "zero_above");
  zp = n.minimum(zp, n.scalar(f32, 255, "zero_max"), scalar, "zero_saturated");
  Value zpU8 = n.op<CastOp>(n.outputTypes[2], zp, {}, "y_zero_point");
  auto type = withElement(x, f32);
  Value q = n.op<RoundOp>(
      type, n.op<DivOp>(type, {n.input(0), scale}, {}, "scaled"), {},
      "rounded");
  q = n.op<AddOp>(type, {q, zp}, {}, "shifted");
  results.push_back(saturateToU8(n, q, n.outputTypes[0]));
  results.push_back(scale);
  results.push_back(zpU8);
  return true;
}

/// BitShift of uint8 (the one unsigned type gplace has): in i32, the
/// shift capped at 8 (every bit shifted out), x times 2^shift modulo 256
/// (LEFT) or x over 2^shift (RIGHT).
bool mapBitShift(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  RankedTensorType x = n.inputType(0), y = n.inputType(1);
  RankedTensorType result = n.outputTypes[0];
  if (!x || !y || !result || !isU8(x) || !isU8(y)) {
    reason = "an element type other than uint8";
    return false;
  }
  std::string direction = n.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    reason = "direction '" + direction + "'";
    return false;
  }
  Builder &b = n.builder();
  Type i32 = b.getI32Type();
  Value xi = castTo(n, n.input(0), i32, "x_i32");
  Value yi = castTo(n, n.input(1), i32, "shift_i32");
  auto shiftType = withElement(y, i32);
  Value capped = n.minimum(yi, n.scalar(i32, 8, "bits"), shiftType, "shift");
  SmallVector<int32_t> powers;
  for (int i = 0; i <= 8; ++i)
    powers.push_back(1 << i);
  Value table = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({9}, i32),
                             ArrayRef<int32_t>(powers)),
      "powers");
  Value power = n.op<GatherOp>(shiftType, {table, capped},
                               {n.named("axis", b.getI64IntegerAttr(0))},
                               "power");
  auto type = withElement(result, i32);
  Value shifted;
  if (direction == "LEFT") {
    Value product = n.op<MulOp>(type, {xi, power}, {}, "product");
    shifted = n.op<FloorModOp>(type, {product, n.scalar(i32, 256, "modulus")},
                               {}, "shifted");
  } else {
    shifted = n.op<DivOp>(type, {xi, power}, {}, "shifted");
  }
  results.push_back(n.op<CastOp>(result, shifted));
  return true;
}

} // namespace

void addQuantizeMappers(llvm::StringMap<MapFn> &table) {
  table["BitShift"] = mapBitShift;
  table["DequantizeLinear"] = mapDequantizeLinear;
  table["DynamicQuantizeLinear"] = mapDynamicQuantizeLinear;
  table["QuantizeLinear"] = mapQuantizeLinear;
}

} // namespace gplace::frontend::onnx_import
