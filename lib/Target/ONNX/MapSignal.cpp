//===- MapSignal.cpp - DFT, STFT, windows, mel filters ---------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. Signal processing
// (opset 17):
// - DFT and STFT: matmuls of the frames by constant cos and sin matrices
//   (dftRows), STFT's frames gathered at constant indices and windowed;
// - HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix: constants
//   computed at import time from inputs known then (importTimeInputs).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cmath>

namespace gplace::frontend::onnx_import {

namespace {

/// The DFT of each row of `re` (and `im`, null for a real signal),
/// [rows, n]: the first `frequencies` frequencies as [rows, frequencies,
/// 2] (real, imaginary), by matmuls with constant cos and sin matrices
/// (1/n and the sines' sign flipped for the inverse).
Value dftRows(Node &n, Value re, Value im, int64_t frequencies, bool inverse) {
  Builder &b = n.builder();
  auto rowsType = cast<RankedTensorType>(re.getType());
  Type element = rowsType.getElementType();
  int64_t rows = rowsType.getDimSize(0), size = rowsType.getDimSize(1);
  bool complex = static_cast<bool>(im);
  double scale = inverse ? 1.0 / size : 1.0;
  auto matrix = [&](bool sine, double sign, const std::string &s) {
    SmallVector<Attribute> values;
    for (int64_t j = 0; j < size; ++j)
      for (int64_t k = 0; k < frequencies; ++k) {
        double theta = 2 * M_PI * static_cast<double>((j * k) % size) / size;
        double v = sine ? std::sin(theta) : std::cos(theta);
        if (std::fabs(v) < 1e-12) // Exact zeros at the quarter turns.
          v = 0;
        values.push_back(b.getFloatAttr(element, sign * scale * v));
      }
    return n.constant(
        DenseElementsAttr::get(
            RankedTensorType::get({size, frequencies}, element), values),
        s);
  };
  auto outType = RankedTensorType::get({rows, frequencies}, element);
  auto product = [&](Value v, Value m, const std::string &s) {
    return n.op<MatmulOp>(outType, {v, m}, {}, s);
  };
  // Forward: re' = re C + im S, im' = im C - re S; inverse: the sines'
  // signs flipped, everything over n.
  Value cosines = matrix(false, 1, "cos");
  double sineSign = inverse ? -1 : 1;
  Value sines = matrix(true, sineSign, "sin");
  Value yRe = product(re, cosines, "real_cos");
  Value yIm = n.op<NegOp>(outType, product(re, sines, "real_sin"), {},
                          "real_sin_neg");
  if (complex) {
    yRe = n.op<AddOp>(outType, {yRe, product(im, sines, "imaginary_sin")}, {},
                      "real_part");
    yIm = n.op<AddOp>(outType, {product(im, cosines, "imaginary_cos"), yIm},
                      {}, "imaginary_part");
  }
  auto pairType = RankedTensorType::get({rows, frequencies, 1}, element);
  Value pair = n.importer.b.create<ConcatOp>(
      n.loc, RankedTensorType::get({rows, frequencies, 2}, element),
      ValueRange{n.reshape(yRe, pairType.getShape(), "real_column"),
                 n.reshape(yIm, pairType.getShape(), "imaginary_column")},
      b.getI64IntegerAttr(2), StringAttr(),
      b.getStringAttr(n.name + "/complex"), StringAttr(), ValueRange());
  return pair;
}

/// DFT (opset 17) along `axis`: matmuls by constant cos and sin matrices
/// (1/n and the sign of the sines for the inverse), the real and imaginary
/// parts joined by concat; `onesided` keeps the first n/2 + 1 frequencies.
/// dft_length must be absent.
bool mapDFT(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  if (n.opset < 17 || n.hasInput(1) || rank < 3 ||
      (type.getShape().back() != 1 && type.getShape().back() != 2)) {
    reason = "dft_length, an opset before 17, or an input that is not "
             "[..., n, 1 or 2]";
    return false;
  }
  int64_t axis = n.getInt("axis", 1);
  if (!normalizeAxis(axis, rank - 1, reason))
    return false;
  bool inverse = n.getInt("inverse", 0) != 0;
  bool onesided = n.getInt("onesided", 0) != 0;
  if (inverse && onesided) {
    reason = "inverse with onesided";
    return false;
  }
  Builder &b = n.builder();
  Type element = type.getElementType();
  bool complex = type.getShape().back() == 2;
  int64_t size = type.getDimSize(axis);
  int64_t frequencies = onesided ? size / 2 + 1 : size;
  // [others..., n, c] with the signal axis just before the last.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  Value x = n.input(0);
  bool moved = axis != rank - 2;
  if (moved)
    x = n.transpose(x, perm, "signal_last");
  auto movedType = cast<RankedTensorType>(x.getType());
  int64_t rows = type.getNumElements() / (size * type.getShape().back());
  auto part = [&](int64_t c, const std::string &s) {
    if (!complex)
      return n.reshape(x, {rows, size}, s + "_rows");
    SmallVector<int64_t> begin(rank, 0), sizes(movedType.getShape());
    begin[rank - 1] = c;
    sizes[rank - 1] = 1;
    Value v = n.op<SliceOp>(RankedTensorType::get(sizes, element), x,
                            {n.named("begin", b.getDenseI64ArrayAttr(begin)),
                             n.named("size", b.getDenseI64ArrayAttr(sizes))},
                            s);
    return n.reshape(v, {rows, size}, s + "_rows");
  };
  Value re = part(0, "real");
  Value im = complex ? part(1, "imaginary") : Value();
  Value pair = dftRows(n, re, im, frequencies, inverse);
  SmallVector<int64_t> movedOut(movedType.getShape());
  movedOut[rank - 2] = frequencies;
  movedOut[rank - 1] = 2;
  if (!moved) {
    if (pair.getType() == n.outputTypes[0]) {
      pair.getDefiningOp()->setAttr("name", b.getStringAttr(n.name));
      results.push_back(pair);
    } else {
      results.push_back(n.op<ReshapeOp>(n.outputTypes[0], pair));
    }
    return true;
  }
  Value unrows = n.reshape(pair, movedOut, "unrows");
  SmallVector<int64_t> inv(rank);
  for (int64_t i = 0; i < rank; ++i)
    inv[perm[i]] = i;
  results.push_back(n.transpose(unrows, inv));
  return true;
}

/// STFT (opset 17): the signal [batch, length, 1 or 2] cut into frames of
/// frame_length (or the window's length) every frame_step (both known at
/// import time) by a `gather` at constant indices, times the window, and
/// each frame's DFT (dftRows): [batch, frames, frequencies, 2], the first
/// frame_length / 2 + 1 frequencies when `onesided` (the default).
bool mapSTFT(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType type = n.inputType(0);
  if (n.opset < 17 || !type || type.getRank() != 3 ||
      (type.getDimSize(2) != 1 && type.getDimSize(2) != 2)) {
    reason = "an opset before 17, or a signal that is not [batch, length, "
             "1 or 2]";
    return false;
  }
  auto intInput = [&](int i) -> std::optional<int64_t> {
    std::optional<DenseElementsAttr> c = n.constant(i);
    return c ? scalarInt(*c) : std::nullopt;
  };
  std::optional<int64_t> step = intInput(1);
  if (!step || *step < 1) {
    reason = "a frame_step that is not a positive integer known at import "
             "time";
    return false;
  }
  RankedTensorType window = n.hasInput(2) ? n.inputType(2) : nullptr;
  std::optional<int64_t> frameLength;
  if (n.hasInput(3) && !(frameLength = intInput(3))) {
    reason = "a frame_length not known at import time";
    return false;
  }
  if (window && (window.getRank() != 1 ||
                 (frameLength && *frameLength != window.getDimSize(0)))) {
    reason = "a window that is not [frame_length]";
    return false;
  }
  if (window)
    frameLength = window.getDimSize(0);
  int64_t batch = type.getDimSize(0), length = type.getDimSize(1);
  if (!frameLength || *frameLength < 1 || *frameLength > length) {
    reason = "no window or frame_length, or a frame longer than the signal";
    return false;
  }
  int64_t frames = (length - *frameLength) / *step + 1;
  bool onesided = n.getInt("onesided", 1) != 0;
  int64_t frequencies = onesided ? *frameLength / 2 + 1 : *frameLength;
  int64_t channels = type.getDimSize(2);
  Type element = type.getElementType();
  Builder &b = n.builder();
  SmallVector<int64_t> indices;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < *frameLength; ++j)
      indices.push_back(f * *step + j);
  Value framesIndices = n.constant(
      DenseElementsAttr::get(
          RankedTensorType::get({frames, *frameLength}, b.getI64Type()),
          ArrayRef<int64_t>(indices)),
      "frame_indices");
  auto framedType =
      RankedTensorType::get({batch, frames, *frameLength, channels}, element);
  Value framed = n.op<GatherOp>(framedType, {n.input(0), framesIndices},
                                {n.named("axis", b.getI64IntegerAttr(1))},
                                "frames");
  if (window) {
    if (window.getElementType() != element) {
      reason = "a window of another element type than the signal";
      return false;
    }
    Value w = n.reshape(n.input(2), {1, 1, *frameLength, 1}, "window");
    framed = n.op<MulOp>(framedType, {framed, w}, {}, "windowed");
  }
  int64_t rows = batch * frames;
  auto part = [&](int64_t c, const std::string &s) {
    Value v = framed;
    if (channels == 2) {
      SmallVector<int64_t> begin = {0, 0, 0, c},
                           sizes = {batch, frames, *frameLength, 1};
      v = n.op<SliceOp>(RankedTensorType::get(sizes, element), framed,
                        {n.named("begin", b.getDenseI64ArrayAttr(begin)),
                         n.named("size", b.getDenseI64ArrayAttr(sizes))},
                        s);
    }
    return n.reshape(v, {rows, *frameLength}, s + "_rows");
  };
  Value re = part(0, "real");
  Value im = channels == 2 ? part(1, "imaginary") : Value();
  Value pair = dftRows(n, re, im, frequencies, /*inverse=*/false);
  auto result = RankedTensorType::get({batch, frames, frequencies, 2}, element);
  if (result != n.outputTypes[0]) {
    reason = "an output shape other than [batch, frames, frequencies, 2]";
    return false;
  }
  results.push_back(n.op<ReshapeOp>(result, pair));
  return true;
}


/// HannWindow, HammingWindow, BlackmanWindow (opset 17): the window of
/// `size` (input 0, known at import time) as a constant,
/// `a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)` with N = size
/// (periodic) or size - 1.
template <int Kind>
bool mapWindow(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  std::optional<DenseElementsAttr> sizeValue = n.constant(0);
  if (!sizeValue) {
    reason = "size computed at run time";
    return false;
  }
  std::optional<int64_t> size = scalarInt(*sizeValue);
  RankedTensorType type = n.outputTypes[0];
  if (!size || *size < 1 || !type || type.getRank() != 1 ||
      type.getDimSize(0) != *size) {
    reason = "a size that is not a positive integer";
    return false;
  }
  auto element = dyn_cast<FloatType>(type.getElementType());
  if (!element) {
    reason = "an output_datatype that is not floating-point";
    return false;
  }
  double a0, a1, a2 = 0;
  if (Kind == 0) { // Hann
    a0 = 0.5;
    a1 = 0.5;
  } else if (Kind == 1) { // Hamming
    a0 = 25.0 / 46.0;
    a1 = 21.0 / 46.0;
  } else { // Blackman
    a0 = 0.42;
    a1 = 0.5;
    a2 = 0.08;
  }
  bool periodic = n.getInt("periodic", 1) != 0;
  double period = periodic ? static_cast<double>(*size)
                           : static_cast<double>(*size - 1);
  SmallVector<APFloat> values;
  for (int64_t i = 0; i < *size; ++i) {
    double phase = period == 0 ? 0 : 2 * M_PI * static_cast<double>(i) / period;
    APFloat v(a0 - a1 * std::cos(phase) + a2 * std::cos(2 * phase));
    bool lost;
    v.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    values.push_back(v);
  }
  results.push_back(n.constant(DenseElementsAttr::get(type, values), ""));
  return true;
}

/// `v` (rank 0 or one element) as a double, if it is a number.
std::optional<double> scalarDouble(DenseElementsAttr v) {
  if (v.getNumElements() != 1)
    return std::nullopt;
  if (isa<FloatType>(v.getElementType()))
    return (*v.getValues<APFloat>().begin()).convertToDouble();
  if (std::optional<int64_t> i = scalarInt(v))
    return static_cast<double>(*i);
  return std::nullopt;
}

/// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins]
/// matrix of triangular mel filters as a constant, computed as ONNX's
/// definition and reference do (mel = 2595 log10(1 + hz / 700); the
/// num_mel_bins + 2 band edges equally spaced in mel, at the FFT bin
/// floor((dft_length + 1) hz / sample_rate)); every input known at import
/// time.
bool mapMelWeightMatrix(Node &n, SmallVectorImpl<Value> &results,
                        std::string &reason) {
  double values[5];
  for (int i = 0; i < 5; ++i) {
    std::optional<DenseElementsAttr> c = n.constant(i);
    std::optional<double> v = c ? scalarDouble(*c) : std::nullopt;
    if (!v || !std::isfinite(*v)) {
      reason = c ? "an input that is not one finite number"
                 : "an input computed at run time";
      return false;
    }
    values[i] = *v;
  }
  int64_t melBins = static_cast<int64_t>(values[0]);
  int64_t dftLength = static_cast<int64_t>(values[1]);
  double sampleRate = values[2], lower = values[3], upper = values[4];
  int64_t spectrumBins = dftLength / 2 + 1;
  RankedTensorType type = n.outputTypes[0];
  auto element = type ? dyn_cast<FloatType>(type.getElementType()) : nullptr;
  if (melBins < 1 || dftLength < 1 || sampleRate <= 0 || lower < 0 ||
      upper <= lower || !element || type.getRank() != 2 ||
      type.getDimSize(0) != spectrumBins || type.getDimSize(1) != melBins ||
      spectrumBins * melBins > (int64_t(1) << 24)) {
    reason = "sizes or frequencies out of range (num_mel_bins and "
             "dft_length positive, 0 <= lower_edge_hertz < "
             "upper_edge_hertz, a floating-point output_datatype)";
    return false;
  }
  auto toMel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  double lowMel = toMel(lower), step = (toMel(upper) - lowMel) / (melBins + 2);
  SmallVector<int64_t> edges;
  for (int64_t k = 0; k < melBins + 2; ++k) {
    double hz = 700.0 * (std::pow(10.0, (k * step + lowMel) / 2595.0) - 1.0);
    int64_t bin = static_cast<int64_t>(std::floor((dftLength + 1) * hz /
                                                  sampleRate));
    if (bin < 0 || bin >= spectrumBins) {
      reason = "upper_edge_hertz beyond the spectrum's last bin";
      return false;
    }
    edges.push_back(bin);
  }
  std::vector<double> w(spectrumBins * melBins, 0.0);
  for (int64_t i = 0; i < melBins; ++i) {
    int64_t left = edges[i], center = edges[i + 1], right = edges[i + 2];
    if (center == left)
      w[center * melBins + i] = 1;
    else
      for (int64_t j = left; j <= center; ++j)
        w[j * melBins + i] =
            static_cast<double>(j - left) / static_cast<double>(center - left);
    for (int64_t j = center; j < right; ++j)
      w[j * melBins + i] =
          static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  SmallVector<APFloat> out;
  for (double v : w) {
    APFloat f(v);
    bool lost;
    f.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(f);
  }
  results.push_back(n.constant(DenseElementsAttr::get(type, out), ""));
  return true;
}

} // namespace

void addSignalMappers(llvm::StringMap<MapFn> &table) {
  table["BlackmanWindow"] = mapWindow<2>;
  table["DFT"] = floatInput<mapDFT>;
  table["HammingWindow"] = mapWindow<1>;
  table["HannWindow"] = mapWindow<0>;
  table["MelWeightMatrix"] = mapMelWeightMatrix;
  table["STFT"] = floatInput<mapSTFT>;
}

} // namespace gplace::frontend::onnx_import
