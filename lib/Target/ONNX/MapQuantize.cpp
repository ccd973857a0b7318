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
// - MatMulInteger and ConvInteger: the uint8 inputs minus their zero
//   points, multiplied in i32 (`matmul`), or convolved in f32 slices of at
//   most 256 products per output, whose sums are exact below 2^24, `cast`
//   to i32 and added: exact, as ONNX Runtime's int32 accumulation;
// - QLinearMatMul and QLinearConv: those sums (QLinearConv's plus its i32
//   bias) times the input scales over the output scale, rounded, plus the
//   output zero point, saturated to uint8 (ONNX Runtime's requantization);
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

/// Input `i` (uint8) minus zero point `zeroInput` (absent: 0), as
/// `element`: exact in i32 and in f32. A zero point of one element
/// broadcasts; one of `perSize` elements is reshaped to `perShape` (a
/// per-row, per-column or per-channel zero point). Null with `reason`
/// otherwise.
Value shiftedInput(Node &n, int i, int zeroInput, Type element,
                   int64_t perSize, ArrayRef<int64_t> perShape,
                   llvm::StringRef what, std::string &reason) {
  Value v = castTo(n, n.input(i), element, (what + "_wide").str());
  if (!n.hasInput(zeroInput))
    return v;
  RankedTensorType zeroType = n.inputType(zeroInput);
  if (!isU8(zeroType)) {
    reason = what.str() + "'s zero point is not uint8";
    return nullptr;
  }
  Value zero = castTo(n, n.input(zeroInput), element,
                      (what + "_zero_point").str());
  int64_t count = zeroType.getNumElements();
  if (zeroType.getRank() > 1 || (count != 1 && count != perSize)) {
    reason = what.str() + "'s zero point has a shape ONNX does not allow";
    return nullptr;
  }
  if (count != 1 && zeroType.getRank() == 1)
    zero = n.reshape(zero, perShape, (what + "_zero_point_shaped").str());
  return n.op<SubOp>(n.broadcastType(v, zero), {v, zero}, {},
                     (what + "_shifted").str());
}

/// A scale (input `i`, f32) of one element, or of `perSize` elements
/// reshaped to `perShape`; null with `reason` otherwise.
Value scaleInput(Node &n, int i, int64_t perSize, ArrayRef<int64_t> perShape,
                 llvm::StringRef what, std::string &reason) {
  RankedTensorType type = n.inputType(i);
  if (!type || !type.getElementType().isF32()) {
    reason = what.str() + " is not f32";
    return nullptr;
  }
  int64_t count = type.getNumElements();
  if (type.getRank() > 1 || (count != 1 && count != perSize)) {
    reason = what.str() + " has a shape ONNX does not allow";
    return nullptr;
  }
  Value v = n.input(i);
  if (count != 1 && type.getRank() == 1)
    v = n.reshape(v, perShape, (what + "_shaped").str());
  return v;
}

/// The sums of products of a convolution of the integer-valued f32 `x`
/// and `w` (uint8 minus a zero point: |x|, |w| <= 255), as exact i32: one
/// `conv2d` per slice of at most 256 products per output (whose f32 sums
/// are then exact, below 2^24), each `cast` to i32 and `add`ed; the last
/// op named after the node when `final`.
Value integerConv(Node &n, Value x, Value w, bool final,
                  std::string &reason) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (xType.getRank() < 3 || wType.getRank() != xType.getRank()) {
    reason = "a filter of another rank than the input";
    return nullptr;
  }
  int64_t taps = 1;
  for (int64_t d : wType.getShape().drop_front(2))
    taps *= d;
  int64_t channels = wType.getDimSize(1);
  constexpr int64_t kExactProducts = 256;
  int64_t perSlice = taps > 0 ? kExactProducts / taps : channels;
  if (perSlice == 0) {
    reason = "a window of more than 256 taps (its f32 sums would round)";
    return nullptr;
  }
  int64_t slices = (channels + perSlice - 1) / perSlice;
  if (slices > 1 && n.getInt("group", 1) != 1) {
    reason = "a grouped convolution of more than 256 products per output "
             "(its f32 sums would round)";
    return nullptr;
  }
  if (slices > 64) {
    reason = "more than 64 x 256 products per output";
    return nullptr;
  }
  Type i32 = n.builder().getI32Type();
  auto resultType =
      RankedTensorType::get(n.outputTypes[0].getShape(), i32);
  Value sum;
  for (int64_t s = 0; s < slices; ++s) {
    int64_t begin = s * perSlice, size = std::min(perSlice, channels - begin);
    std::string tag = slices == 1 ? "" : "_" + std::to_string(s);
    auto sliceChannels = [&](Value v, RankedTensorType type,
                             llvm::StringRef what) {
      if (slices == 1)
        return v;
      SmallVector<int64_t> starts(type.getRank(), 0),
          sizes(type.getShape());
      starts[1] = begin;
      sizes[1] = size;
      return n.op<SliceOp>(
          RankedTensorType::get(sizes, type.getElementType()), v,
          {n.named("begin", n.builder().getDenseI64ArrayAttr(starts)),
           n.named("size", n.builder().getDenseI64ArrayAttr(sizes))},
          (what + tag).str());
    };
    Value xs = sliceChannels(x, xType, "input_channels");
    Value ws = sliceChannels(w, wType, "filter_channels");
    // Each slice's convolution ops under a name of its own.
    std::string name = n.name;
    if (slices > 1)
      n.name += "/slice" + tag;
    Value part = conv(n, xs, ws, Value(), /*final=*/false,
                      /*filterIsInput1=*/false, reason);
    n.name = name;
    if (!part)
      return nullptr;
    bool last = final && s == slices - 1;
    part = n.op<CastOp>(resultType, part, {},
                        last && slices == 1 ? "" : "sums" + tag);
    if (sum)
      part = n.op<AddOp>(resultType, {sum, part}, {}, last ? "" : "total" + tag);
    sum = part;
  }
  return sum;
}

/// round(acc * scale1 * scale2 / y_scale) + y_zero_point (inputs 6 and 7),
/// saturated to uint8: ONNX Runtime's requantization of QLinearMatMul and
/// QLinearConv (the i32 sums converted to f32, times one f32 multiplier,
/// rounded to nearest even). `scale1` and `scale2` are the inputs' scales,
/// shaped to broadcast against `acc`.
Value requantize(Node &n, Value acc, Value scale1, Value scale2,
                 std::string &reason) {
  constexpr int yScaleInput = 6, zeroInput = 7;
  RankedTensorType result = n.outputTypes[0];
  if (!isU8(result)) {
    reason = "an output that is not uint8";
    return nullptr;
  }
  Value yScale = scaleInput(n, yScaleInput, 1, {1}, "y_scale", reason);
  if (!yScale)
    return nullptr;
  RankedTensorType scales = n.broadcastType(scale1, scale2);
  Value multiplier = n.op<DivOp>(
      scales,
      {n.op<MulOp>(scales, {scale1, scale2}, {}, "input_scales"), yScale}, {},
      "multiplier");
  Type f32 = n.builder().getF32Type();
  auto type = withElement(result, f32);
  Value scaled = n.op<MulOp>(type, {castTo(n, acc, f32, "sums_f32"),
                                    multiplier},
                             {}, "requantized");
  Value q = n.op<RoundOp>(type, scaled, {}, "rounded");
  RankedTensorType zeroType = n.inputType(zeroInput);
  if (!isU8(zeroType) || zeroType.getNumElements() != 1) {
    reason = "y_zero_point is not one uint8";
    return nullptr;
  }
  Value zero = castTo(n, n.input(zeroInput), f32, "y_zero_point_f32");
  q = n.op<AddOp>(type, {q, zero}, {}, "shifted");
  return saturateToU8(n, q, result);
}

/// Whether inputs `inputs` are uint8; false with `reason` if not.
bool u8Inputs(Node &n, std::initializer_list<int> inputs,
              std::string &reason) {
  for (int i : inputs)
    if (!n.hasInput(i) || !isU8(n.inputType(i))) {
      reason = "input " + std::to_string(i) + " is not uint8 (int8 is a "
               "type gplace does not have)";
      return false;
    }
  return true;
}

/// (A - a_zero_point) x (B - b_zero_point) in i32 (exact, as ONNX
/// Runtime's int32 accumulation) of uint8 inputs `aInput` and `bInput` and
/// their zero points (a_zero_point per row of a matrix A, b_zero_point per
/// column), of the node's output shape; its last op named after the node
/// when the output is i32 (MatMulInteger). Null with `reason`.
Value integerMatMul(Node &n, int aInput, int aZero, int bInput, int bZero,
                    std::string &reason) {
  if (!u8Inputs(n, {aInput, bInput}, reason))
    return nullptr;
  RankedTensorType a = n.inputType(aInput), b = n.inputType(bInput);
  if (a.getRank() < 1 || b.getRank() < 1) {
    reason = "a scalar operand";
    return nullptr;
  }
  Type i32 = n.builder().getI32Type();
  int64_t rows = a.getRank() >= 2 ? a.getDimSize(a.getRank() - 2) : 1;
  int64_t cols = b.getShape().back();
  Value x = shiftedInput(n, aInput, aZero, i32, a.getRank() == 2 ? rows : -1,
                         {rows, 1}, "a", reason);
  Value y =
      x ? shiftedInput(n, bInput, bZero, i32, cols, {cols}, "b", reason)
        : Value();
  if (!y)
    return nullptr;
  return matMul(n, x, y, withElement(n.outputTypes[0], i32), reason);
}

/// The convolution of (x - x_zero_point) by (w - w_zero_point, per output
/// channel) of uint8 inputs `xInput`, `wInput` and their zero points, in
/// exact i32 (integerConv); the last op named after the node when `final`.
Value integerConvOf(Node &n, int xInput, int xZero, int wInput, int wZero,
                    bool final, std::string &reason) {
  if (!u8Inputs(n, {xInput, wInput}, reason))
    return nullptr;
  RankedTensorType w = n.inputType(wInput);
  Type f32 = n.builder().getF32Type();
  SmallVector<int64_t> perChannel(w.getRank(), 1);
  perChannel[0] = w.getDimSize(0);
  Value x = shiftedInput(n, xInput, xZero, f32, 1, {1}, "x", reason);
  Value filter = x ? shiftedInput(n, wInput, wZero, f32, w.getDimSize(0),
                                  perChannel, "w", reason)
                   : Value();
  return filter ? integerConv(n, x, filter, final, reason) : Value();
}

/// MatMulInteger: integerMatMul.
bool mapMatMulInteger(Node &n, SmallVectorImpl<Value> &results,
                      std::string &reason) {
  Value product = integerMatMul(n, 0, 2, 1, 3, reason);
  if (!product)
    return false;
  results.push_back(product);
  return true;
}

/// ConvInteger: integerConvOf.
bool mapConvInteger(Node &n, SmallVectorImpl<Value> &results,
                    std::string &reason) {
  Value sums = integerConvOf(n, 0, 2, 1, 3, /*final=*/true, reason);
  if (!sums)
    return false;
  results.push_back(sums);
  return true;
}

/// QLinearMatMul: MatMulInteger's sums requantized by a_scale b_scale /
/// y_scale (b_scale per column) to y_zero_point, as ONNX Runtime.
bool mapQLinearMatMul(Node &n, SmallVectorImpl<Value> &results,
                      std::string &reason) {
  Value acc = integerMatMul(n, 0, 2, 3, 5, reason);
  if (!acc)
    return false;
  RankedTensorType a = n.inputType(0), b = n.inputType(3);
  int64_t rows = a.getRank() >= 2 ? a.getDimSize(a.getRank() - 2) : 1;
  int64_t cols = b.getShape().back();
  Value aScale = scaleInput(n, 1, a.getRank() == 2 ? rows : -1, {rows, 1},
                            "a_scale", reason);
  Value bScale =
      aScale ? scaleInput(n, 4, cols, {cols}, "b_scale", reason) : Value();
  Value y8 = bScale ? requantize(n, acc, aScale, bScale, reason) : Value();
  if (!y8)
    return false;
  results.push_back(y8);
  return true;
}

/// QLinearConv: ConvInteger's sums plus the i32 bias B, requantized by
/// x_scale w_scale / y_scale (w_scale per output channel) to
/// y_zero_point, as ONNX Runtime.
bool mapQLinearConv(Node &n, SmallVectorImpl<Value> &results,
                    std::string &reason) {
  Value acc = integerConvOf(n, 0, 2, 3, 5, /*final=*/false, reason);
  if (!acc)
    return false;
  RankedTensorType w = n.inputType(3);
  int64_t channels = w.getDimSize(0);
  SmallVector<int64_t> perOutput(w.getRank() - 1, 1);
  perOutput[0] = channels;
  if (n.hasInput(8)) {
    RankedTensorType bias = n.inputType(8);
    if (!bias.getElementType().isInteger(32) || bias.getRank() != 1 ||
        bias.getDimSize(0) != channels) {
      reason = "a bias B that is not [M] int32";
      return false;
    }
    Value b = n.reshape(n.input(8), perOutput, "bias");
    acc = n.op<AddOp>(acc.getType(), {acc, b}, {}, "biased");
  }
  Value xScale = scaleInput(n, 1, 1, {1}, "x_scale", reason);
  Value wScale =
      xScale ? scaleInput(n, 4, channels, perOutput, "w_scale", reason)
             : Value();
  Value y8 = wScale ? requantize(n, acc, xScale, wScale, reason) : Value();
  if (!y8)
    return false;
  results.push_back(y8);
  return true;
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

/// BitShift of uint8, uint16 or uint32 (uint64 is a type gplace does not
/// have): widened (widenedInteger: i32, or i64 for uint32), the shift
/// capped at the width (every bit shifted out), x times 2^shift (LEFT,
/// the bits above the width dropped by the cast back, which truncates) or
/// x over 2^shift (RIGHT), 2^shift gathered from a constant table.
bool mapBitShift(Node &n, SmallVectorImpl<Value> &results,
                 std::string &reason) {
  RankedTensorType x = n.inputType(0), y = n.inputType(1);
  RankedTensorType result = n.outputTypes[0];
  auto unsignedType = [](RankedTensorType t) {
    auto integer =
        t ? dyn_cast<IntegerType>(t.getElementType()) : IntegerType();
    return integer && integer.isUnsigned() && integer.getWidth() <= 32
               ? integer
               : IntegerType();
  };
  IntegerType element = unsignedType(x);
  if (!element || !y || y.getElementType() != element || !result) {
    reason = "an element type other than uint8, uint16 or uint32";
    return false;
  }
  std::string direction = n.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    reason = "direction '" + direction + "'";
    return false;
  }
  Builder &b = n.builder();
  unsigned bits = element.getWidth();
  Type wide = widenedInteger(element);
  Value xi = castTo(n, n.input(0), wide, "x_wide");
  Value yi = castTo(n, n.input(1), wide, "shift_wide");
  auto shiftType = withElement(y, wide);
  Value capped =
      n.minimum(yi, n.scalar(wide, bits, "bits"), shiftType, "shift");
  SmallVector<APInt> powers;
  for (unsigned i = 0; i <= bits; ++i)
    powers.push_back(APInt(wide.getIntOrFloatBitWidth(), 1).shl(i));
  Value table = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({bits + 1}, wide), powers),
      "powers");
  Value power = n.op<GatherOp>(shiftType, {table, capped},
                               {n.named("axis", b.getI64IntegerAttr(0))},
                               "power");
  auto type = withElement(result, wide);
  Value shifted = direction == "LEFT"
                      ? n.op<MulOp>(type, {xi, power}, {}, "shifted")
                      : n.op<DivOp>(type, {xi, power}, {}, "shifted");
  results.push_back(n.op<CastOp>(result, shifted));
  return true;
}

} // namespace

void addQuantizeMappers(llvm::StringMap<MapFn> &table) {
  table["BitShift"] = mapBitShift;
  table["ConvInteger"] = mapConvInteger;
  table["MatMulInteger"] = mapMatMulInteger;
  table["QLinearConv"] = mapQLinearConv;
  table["QLinearMatMul"] = mapQLinearMatMul;
  table["DequantizeLinear"] = mapDequantizeLinear;
  table["DynamicQuantizeLinear"] = mapDynamicQuantizeLinear;
  table["QuantizeLinear"] = mapQuantizeLinear;
}

} // namespace gplace::frontend::onnx_import
