//===- MapRandom.cpp - random numbers, Bernoulli, Dropout -----------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. ONNX's random ops on the
// graph dialect's stateless (seeded, counter-based) random ops:
// - RandomUniform, RandomUniformLike: stateless_random_uniform scaled to
//   [low, high);
// - RandomNormal, RandomNormalLike: stateless_random_normal times scale
//   plus mean;
// - Bernoulli: uniform < p, cast to the output's type (a decomposition);
// - Dropout: the identity at inference and with a ratio of 0 known at
//   import time; in training mode gplace.dropout and its mask (uniform >=
//   ratio).
// The seed: a `seed` attribute s gives the seed [trunc(s), 0]; without one,
// [xxh3 of the node's name (its scope included), 1]: the same numbers from
// run to run (docs/onnx.md, "Decisions"). Each mapping marks the import as
// random (OnnxImportReport::random): its outputs are draws that no other
// implementation reproduces.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include "llvm/Support/xxhash.h"

#include <cmath>

namespace gplace::frontend::onnx_import {

namespace {

/// The seed constant of a random node (see the file comment), marking the
/// import as random.
Value seedOf(Node &n) {
  if (n.importer.options.report)
    n.importer.options.report->random = true;
  int64_t words[2];
  if (const onnx::AttributeProto *seed = n.attr("seed")) {
    // A float attribute: its integer part (ONNX Runtime's and numpy's
    // generators take it as an integer too).
    // A seed no int64 holds (NaN, infinities, |s| >= 2^63) is clamped
    // (NaN reads 0) rather than converted with undefined behaviour.
    double s = std::isnan(seed->f()) ? 0.0 : std::trunc(seed->f());
    words[0] = s >= 9.2e18    ? INT64_MAX
               : s <= -9.2e18 ? INT64_MIN
                              : static_cast<int64_t>(s);
    words[1] = 0;
  } else {
    words[0] = static_cast<int64_t>(
        llvm::xxh3_64bits(llvm::StringRef(n.name)) & INT64_MAX);
    words[1] = 1;
  }
  auto type = RankedTensorType::get({2}, n.importer.b.getI64Type());
  return n.constant(DenseElementsAttr::get(type, llvm::ArrayRef(words)),
                    "seed");
}

/// The node's first output as a floating-point type, else false with
/// `reason` naming the dtype.
bool floatOutput(Node &n, std::string &reason) {
  RankedTensorType type = n.outputTypes[0];
  if (!type) {
    reason = "an unused output";
    return false;
  }
  if (!isFloat(type)) {
    reason = "dtype " + onnxTypeName(toOnnxType(type.getElementType())) +
             " (random numbers are float16, bfloat16, float or double)";
    return false;
  }
  return true;
}

/// `draw` * `scale` + `shift` of `type`, the last op named after the node
/// (a factor of 1 and a term of 0 left out).
Value affine(Node &n, Value draw, RankedTensorType type, double scale,
             double shift) {
  if (scale != 1.0)
    draw = n.op<MulOp>(type, {draw, n.scalar(type, scale, "scale")}, {},
                       shift != 0.0 ? "scaled" : "");
  if (shift != 0.0)
    draw = n.op<AddOp>(type, {draw, n.scalar(type, shift, "shift")});
  if (scale == 1.0 && shift == 0.0)
    draw = n.op<IdentityOp>(type, draw);
  return draw;
}

/// RandomUniform and RandomUniformLike (`Uniform`: the draws in [0, 1)
/// scaled to [low, high)), RandomNormal and RandomNormalLike (times scale
/// plus mean): the output's shape and dtype are those shape inference gave
/// (from `shape` and `dtype`, or the input's).
template <typename OpT, bool Uniform>
bool mapRandom(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  if (!floatOutput(n, reason))
    return false;
  RankedTensorType type = n.outputTypes[0];
  double scale, shift;
  if (Uniform) {
    shift = n.getFloat("low", 0.0f);
    scale = n.getFloat("high", 1.0f) - shift;
  } else {
    shift = n.getFloat("mean", 0.0f);
    scale = n.getFloat("scale", 1.0f);
  }
  Value draw = n.op<OpT>(type, seedOf(n), {}, Uniform ? "uniform" : "normal");
  results.push_back(affine(n, draw, type, scale, shift));
  return true;
}

/// Bernoulli: 1 where a uniform number of p's type is below p (so p 0
/// gives 0 and p 1 gives 1), cast to the output's type.
bool mapBernoulli(Node &n, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  RankedTensorType pType = n.inputType(0), type = n.outputTypes[0];
  if (!pType || !isFloat(pType)) {
    reason = "a probability input that is not float";
    return false;
  }
  if (!type) {
    reason = "an unused output";
    return false;
  }
  Value u = n.op<StatelessRandomUniformOp>(pType, seedOf(n), {}, "uniform");
  auto maskType = RankedTensorType::get(pType.getShape(),
                                        n.importer.b.getI1Type());
  bool isBool = type.getElementType().isInteger(1);
  Value mask = n.op<GreaterOp>(maskType, {n.input(0), u}, {},
                               isBool ? "" : "below_p");
  results.push_back(isBool ? mask : n.op<CastOp>(type, mask));
  return true;
}

/// Whether a Dropout node trains: its training_mode input (opset 12 on),
/// which must be known at import time (importTimeInputs).
std::optional<bool> dropoutTrains(Node &n, std::string &reason) {
  if (n.opset < 12 || !n.hasInput(2))
    return false;
  std::optional<DenseElementsAttr> training = n.constant(2);
  if (!training || training->getNumElements() != 1 ||
      !training->getElementType().isInteger(1)) {
    reason = "a training_mode that is not one bool known at import time";
    return std::nullopt;
  }
  return training->getSplatValue<bool>();
}

/// Whether a Dropout node's ratio is 0 at import time: its `ratio`
/// attribute before opset 12; from opset 12 input 1, a constant, or a
/// graph input whose value the caller gave (OnnxImportOptions::inputValues)
/// when that value is 0, which the graph is then specialized for
/// (OnnxImportReport::specializedInputs, so that a caller giving another
/// value imports again). A ratio of the run is not 0 here, and is not
/// refused: gplace.dropout takes it at run time.
bool zeroRatio(Node &n) {
  if (n.opset < 12)
    return n.getFloat("ratio", 0.5f) == 0.0f;
  if (!n.hasInput(1))
    return false;
  auto isZero = [](DenseElementsAttr v) {
    return v.getNumElements() == 1 && isa<FloatType>(v.getElementType()) &&
           (*v.value_begin<APFloat>()).isZero();
  };
  if (std::optional<DenseElementsAttr> ratio = n.constant(1))
    return isZero(*ratio);
  Importer &im = n.importer;
  auto position = im.inputPositions.find(n.proto.input(1));
  if (position == im.inputPositions.end() ||
      position->second >= im.options.inputValues.size() ||
      !im.options.inputValues[position->second])
    return false;
  if (!isZero(hostTensorAttr(*im.options.inputValues[position->second],
                             im.context)))
    return false;
  im.specialized.insert(position->second);
  return true;
}

/// Dropout. At inference (training_mode absent or false), or in training
/// mode with a ratio of 0 known at import time (zeroRatio): the identity
/// and an all-true mask, no random numbers drawn. In training mode: gplace.dropout of the input by the
/// ratio (input 1, else the `ratio` attribute before opset 12, else 0.5),
/// and the mask `uniform >= ratio` with the same seed, which is the
/// uniform numbers gplace.dropout draws (x's shape and type).
bool mapDropout(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  std::optional<bool> trains = dropoutTrains(n, reason);
  if (!trains)
    return false;
  bool wantMask = n.outputTypes.size() > 1 && n.outputTypes[1];
  if (wantMask && !n.outputTypes[1].getElementType().isInteger(1)) {
    reason = "a mask that is not bool";
    return false;
  }
  Value x = n.input(0);
  if (!*trains || zeroRatio(n)) {
    results.push_back(n.op<IdentityOp>(n.outputTypes[0], x));
    if (wantMask)
      results.push_back(n.constant(
          DenseElementsAttr::get(n.outputTypes[1], true), "mask"));
    return true;
  }
  auto type = cast<RankedTensorType>(x.getType());
  if (!isFloat(type)) {
    reason = "training mode on a non-float input";
    return false;
  }
  auto rateType = RankedTensorType::get({}, type.getElementType());
  Value rate;
  if (n.hasInput(1)) {
    RankedTensorType ratioType = n.inputType(1);
    if (!ratioType || ratioType.getNumElements() != 1 || !isFloat(ratioType)) {
      reason = "a ratio that is not one float";
      return false;
    }
    rate = n.input(1);
    if (ratioType.getRank() != 0)
      rate = n.reshape(rate, {}, "ratio");
    if (ratioType.getElementType() != type.getElementType())
      rate = n.op<CastOp>(rateType, rate, {}, "ratio_cast");
  } else {
    rate = n.scalar(rateType, n.getFloat("ratio", 0.5f), "ratio");
  }
  Value seed = seedOf(n);
  results.push_back(n.op<DropoutOp>(type, {x, rate, seed}));
  if (wantMask) {
    Value u = n.op<StatelessRandomUniformOp>(type, seed, {}, "uniform");
    results.push_back(
        n.op<GreaterEqualOp>(n.outputTypes[1], {u, rate}, {}, "mask"));
  }
  return true;
}

} // namespace

void addRandomMappers(llvm::StringMap<MapFn> &table) {
  table["RandomUniform"] = mapRandom<StatelessRandomUniformOp, true>;
  table["RandomUniformLike"] = mapRandom<StatelessRandomUniformOp, true>;
  table["RandomNormal"] = mapRandom<StatelessRandomNormalOp, false>;
  table["RandomNormalLike"] = mapRandom<StatelessRandomNormalOp, false>;
  table["Bernoulli"] = mapBernoulli;
  table["Dropout"] = mapDropout;
}

} // namespace gplace::frontend::onnx_import
