//===- MapRecurrent.cpp - RNN, GRU and LSTM, unrolled ----------------------===//
//
// Part of the ONNX importer: see OnnxImporter.h. RNN, GRU and LSTM over a
// sequence of static length, unrolled at import time into graph ops, as
// TensorFlow's static_rnn builds its cells step by step: the inputs'
// products with W for every step in one matmul, then per step a matmul by
// R, slices per gate, sigmoid and tanh, mul and add; sequence_lens keeps a
// batch row's state (and writes zeros to Y) past its length with select,
// in both directions (the reverse one then starts each row at its own last
// step, as ONNX Runtime does). The ops have gradients, so the unrolled
// network trains. The default activations only; clip and LSTM's
// input_forget are refused.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

enum class Cell { RNN, GRU, LSTM };

int64_t gatesOf(Cell cell) {
  return cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
}

struct Recurrence {
  Node &n;
  Cell cell;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, directions = 1;
  bool batchMajor = false, linearBeforeReset = false;
  Type element;
  Value lens; ///< [batch, 1] int64, or null.

  std::string at(int64_t d, int64_t t, llvm::StringRef what) const {
    return "d" + std::to_string(d) + "_t" + std::to_string(t) + "_" +
           what.str();
  }
  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, element);
  }
  Value slice(Value v, ArrayRef<int64_t> begin, ArrayRef<int64_t> size,
              const std::string &suffix) {
    Builder &b = n.builder();
    return n.op<SliceOp>(type(size), v,
                         {n.named("begin", b.getDenseI64ArrayAttr(begin)),
                          n.named("size", b.getDenseI64ArrayAttr(size))},
                         suffix);
  }
  Value concat(ArrayRef<Value> values, int64_t axis, ArrayRef<int64_t> shape,
               const std::string &suffix) {
    if (values.size() == 1)
      return values[0];
    Builder &b = n.builder();
    return n.importer.b.create<ConcatOp>(
        n.loc, type(shape), values, b.getI64IntegerAttr(axis), StringAttr(),
        b.getStringAttr(suffix.empty() ? n.name : n.name + "/" + suffix),
        StringAttr(), ValueRange());
  }
  /// Direction `d`'s [rows, columns] matrix of a [directions, rows,
  /// columns] input, transposed: [columns, rows].
  Value matrixT(Value v, int64_t d, int64_t rows, int64_t columns,
                const std::string &what) {
    std::string s = "d" + std::to_string(d) + "_" + what;
    Value part = slice(v, {d, 0, 0}, {1, rows, columns}, s);
    Value m = n.reshape(part, {rows, columns}, s + "_matrix");
    return n.transpose(m, {1, 0}, s + "_t");
  }
  /// Rows [begin, begin + count) of the [directions, k] input `v` (B, P) of
  /// direction `d`, as [1, count].
  Value vectorPart(Value v, int64_t d, int64_t k, int64_t begin, int64_t count,
                   const std::string &what) {
    (void)k;
    std::string s = "d" + std::to_string(d) + "_" + what;
    Value part = slice(v, {d, begin}, {1, count}, s);
    return part;
  }
  Value sigmoid(Value v, const std::string &s) {
    return n.op<SigmoidOp>(v.getType(), v, {}, s);
  }
  Value tanh(Value v, const std::string &s) {
    return n.op<TanhOp>(v.getType(), v, {}, s);
  }
  Value add(Value a, Value b, const std::string &s) {
    return n.op<AddOp>(Type(), {a, b}, {}, s);
  }
  Value mul(Value a, Value b, const std::string &s) {
    return n.op<MulOp>(Type(), {a, b}, {}, s);
  }
  Value matmul(Value a, Value b, int64_t columns, const std::string &s) {
    auto aType = cast<RankedTensorType>(a.getType());
    return n.op<MatmulOp>(type({aType.getDimSize(0), columns}), {a, b}, {}, s);
  }
  /// Direction d's initial state ([directions, batch, hidden], or
  /// [batch, directions, hidden] batch-major) as [batch, hidden], zeros if
  /// absent.
  Value initial(int input, int64_t d, const std::string &what) {
    std::string s = "d" + std::to_string(d) + "_" + what;
    if (!n.hasInput(input)) {
      Builder &b = n.builder();
      return n.constant(DenseElementsAttr::get(type({batch, hidden}),
                                               b.getFloatAttr(element, 0)),
                        s);
    }
    Value v = n.input(input);
    Value part = batchMajor
                     ? slice(v, {0, d, 0}, {batch, 1, hidden}, s + "_slice")
                     : slice(v, {d, 0, 0}, {1, batch, hidden}, s + "_slice");
    return n.reshape(part, {batch, hidden}, s);
  }
};

/// Input `v`'s blocks of `block` along dimension 1 in the order `order`
/// (ONNX's LSTM gates i, o, f, c into oneDNN's i, f, c, o): slices and a
/// concat, which fold into one constant where `v` is one.
Value reorderBlocks(Recurrence &r, Value v, int64_t block,
                    ArrayRef<int64_t> order, const std::string &what) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> size(type.getShape());
  size[1] = block;
  SmallVector<Value> parts;
  for (int64_t k : order) {
    SmallVector<int64_t> begin(type.getRank(), 0);
    begin[1] = k * block;
    parts.push_back(
        r.slice(v, begin, size, what + "_gate" + std::to_string(k)));
  }
  return r.concat(parts, 1, type.getShape(), what + "_gates");
}

/// Whether the node is a form gplace.cudnn_rnn computes: f32, the default
/// activations (RNN's Relu too: rnn_relu), no clip, input_forget or
/// peepholes, and every sequence as long as the input (no sequence_lens,
/// or a constant one of that length). `mode` is the op's rnn_mode.
bool fitsWholeLayer(Node &n, Recurrence &r, std::string &mode) {
  if (!r.element.isF32() || r.batch < 1 || r.input < 1)
    return false;
  if (n.attr("clip") || n.getInt("input_forget", 0) ||
      n.attr("activation_alpha") || n.attr("activation_beta"))
    return false;
  if (r.cell == Cell::LSTM && n.hasInput(7))
    return false;
  mode = r.cell == Cell::LSTM ? "lstm" : r.cell == Cell::GRU ? "gru"
                                                              : "rnn_tanh";
  if (const onnx::AttributeProto *a = n.attr("activations")) {
    static const char *const defaults[3][3] = {
        {"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    int per = r.cell == Cell::RNN ? 1 : r.cell == Cell::GRU ? 2 : 3;
    if (a->strings_size() != per * r.directions)
      return false;
    bool relu = r.cell == Cell::RNN;
    bool same = true;
    for (int i = 0; i < a->strings_size(); ++i) {
      same &= a->strings(i) == defaults[static_cast<int>(r.cell)][i % per];
      relu &= a->strings(i) == "Relu";
    }
    if (relu)
      mode = "rnn_relu";
    else if (!same)
      return false;
  }
  if (n.hasInput(4)) {
    std::optional<DenseElementsAttr> lens = n.constant(4);
    if (!lens || !lens->getElementType().isIntOrIndex())
      return false;
    for (const APInt &len : lens->getValues<APInt>())
      if (len.getSExtValue() != r.seq)
        return false;
  }
  return true;
}

/// The node as one gplace.cudnn_rnn (oneDNN's RNN primitives on the CPU)
/// and the reshapes and transposes between its layout and ONNX's.
bool mapWholeLayer(Node &n, Recurrence &r, const std::string &mode,
                   const std::string &direction, bool hasBias,
                   SmallVectorImpl<Value> &results, std::string &reason) {
  Builder &b = n.builder();
  int64_t h = r.hidden, gates = gatesOf(r.cell), dirs = r.directions;
  auto zeros = [&](ArrayRef<int64_t> shape, const std::string &what) {
    return n.constant(
        DenseElementsAttr::get(r.type(shape), b.getFloatAttr(r.element, 0)),
        what);
  };
  Value x = n.input(0);
  if (r.batchMajor)
    x = n.transpose(x, {1, 0, 2}, "time_major");
  auto state = [&](int input, const std::string &what) -> Value {
    if (!n.hasInput(input))
      return zeros({dirs, r.batch, h}, what);
    Value v = n.input(input);
    return r.batchMajor ? n.transpose(v, {1, 0, 2}, what) : v;
  };
  Value h0 = state(5, "initial_h");
  Value c0 = r.cell == Cell::LSTM ? state(6, "initial_c") : h0;
  Value w = n.input(1), rw = n.input(2);
  Value bias = hasBias ? n.input(3) : zeros({dirs, 2 * gates * h}, "B");
  if (r.cell == Cell::LSTM) {
    // ONNX's gates i, o, f, c; oneDNN's (and cuDNN's) i, f, c, o.
    w = reorderBlocks(r, w, h, {0, 2, 3, 1}, "W");
    rw = reorderBlocks(r, rw, h, {0, 2, 3, 1}, "R");
    if (hasBias)
      bias = reorderBlocks(r, bias, h, {0, 2, 3, 1, 4, 6, 7, 5}, "B");
  }
  SmallVector<NamedAttribute> attrs = {
      n.named("rnn_mode", b.getStringAttr(mode)),
      n.named("direction", b.getStringAttr(direction)),
      n.named("name", b.getStringAttr(n.name + "/CudnnRNNV3"))};
  if (r.cell == Cell::GRU && r.linearBeforeReset)
    attrs.push_back(n.named("linear_before_reset", b.getUnitAttr()));
  auto layer = buildOp<CudnnRNNOp>(n.importer.b, n.loc,
                                   ValueRange{x, h0, c0, w, rw, bias}, attrs);
  if (!layer) {
    reason = "the recurrent layer's operands do not fit gplace.cudnn_rnn";
    return false;
  }
  // Y: [seq, batch, directions * hidden] into [seq, directions, batch,
  // hidden], or [batch, seq, directions, hidden] batch-major.
  auto used = [&](int output) {
    return static_cast<int64_t>(n.outputTypes.size()) > output &&
           n.outputTypes[output];
  };
  auto named = [&](Value v, int output, const std::string &what) {
    if (Operation *op = v.getDefiningOp(); op && op != layer.getOperation())
      op->setAttr("name", b.getStringAttr(output == 0 ? n.name
                                                       : n.name + "/" + what));
    return v;
  };
  Value y;
  if (used(0)) {
    if (!r.batchMajor && dirs == 1) {
      y = n.reshape(layer.getOutput(), {r.seq, 1, r.batch, h}, "Y");
    } else {
      y = n.reshape(layer.getOutput(), {r.seq, r.batch, dirs, h}, "Y_split");
      y = n.transpose(y, r.batchMajor ? ArrayRef<int64_t>{1, 0, 2, 3}
                                      : ArrayRef<int64_t>{0, 2, 1, 3},
                      "Y");
    }
    y = named(y, 0, "Y");
  }
  results.push_back(y);
  auto finalState = [&](Value v, int output, const std::string &what) {
    if (!used(output))
      return Value();
    if (r.batchMajor)
      v = named(n.transpose(v, {1, 0, 2}, what), output, what);
    return v;
  };
  results.push_back(finalState(layer.getOutputH(), 1, "Y_h"));
  if (r.cell == Cell::LSTM)
    results.push_back(finalState(layer.getOutputC(), 2, "Y_c"));
  for (auto [i, v] : llvm::enumerate(results))
    if (v && v.getType() != n.outputTypes[i]) {
      reason = "gplace.cudnn_rnn's results do not have ONNX's output types";
      return false;
    }
  return true;
}

bool mapRecurrent(Node &n, Cell cell, SmallVectorImpl<Value> &results,
                  std::string &reason) {
  Recurrence r{n, cell};
  RankedTensorType xType = n.inputType(0);
  if (!xType || xType.getRank() != 3) {
    reason = "an input of rank other than 3";
    return false;
  }
  r.element = xType.getElementType();
  r.batchMajor = n.getInt("layout", 0) != 0;
  r.seq = xType.getDimSize(r.batchMajor ? 1 : 0);
  r.batch = xType.getDimSize(r.batchMajor ? 0 : 1);
  r.input = xType.getDimSize(2);
  r.hidden = n.getInt("hidden_size", 0);
  std::string direction = n.getString("direction", "forward");
  r.directions = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional") {
    reason = "direction '" + direction + "'";
    return false;
  }
  if (r.hidden < 1 || r.seq < 1) {
    reason = "a hidden_size below 1 or an empty sequence";
    return false;
  }
  r.linearBeforeReset = n.getInt("linear_before_reset", 0) != 0;
  int64_t gates = gatesOf(cell), h = r.hidden;
  RankedTensorType wType = n.inputType(1), rType = n.inputType(2);
  if (!wType || !rType ||
      wType.getShape() !=
          ArrayRef<int64_t>{r.directions, gates * h, r.input} ||
      rType.getShape() != ArrayRef<int64_t>{r.directions, gates * h, h}) {
    reason = "W or R of another shape than [directions, gates * hidden, "
             "input or hidden]";
    return false;
  }
  bool hasBias = n.hasInput(3);
  if (hasBias && n.inputType(3).getShape() !=
                     ArrayRef<int64_t>{r.directions, 2 * gates * h}) {
    reason = "B of another shape than [directions, 2 * gates * hidden]";
    return false;
  }
  // The forms oneDNN's RNN primitives compute: one op for the layer.
  if (std::string mode;
      !n.importer.options.unrollRecurrent && fitsWholeLayer(n, r, mode))
    return mapWholeLayer(n, r, mode, direction, hasBias, results, reason);
  if (n.attr("clip") || n.getInt("input_forget", 0)) {
    reason = "clip or input_forget";
    return false;
  }
  if (const onnx::AttributeProto *a = n.attr("activations")) {
    static const char *const defaults[3][6] = {
        {"Tanh", "Tanh"},
        {"Sigmoid", "Tanh", "Sigmoid", "Tanh"},
        {"Sigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Tanh"}};
    int which = static_cast<int>(cell);
    int per = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 2 : 3;
    bool same = a->strings_size() == per * r.directions;
    for (int i = 0; same && i < a->strings_size(); ++i)
      same = a->strings(i) == defaults[which][i];
    if (!same) {
      reason = "activations other than the defaults";
      return false;
    }
  }
  bool hasPeepholes = cell == Cell::LSTM && n.hasInput(7);
  if (hasPeepholes &&
      n.inputType(7).getShape() != ArrayRef<int64_t>{r.directions, 3 * h}) {
    reason = "P of another shape than [directions, 3 * hidden]";
    return false;
  }
  Builder &b = n.builder();
  if (n.hasInput(4)) {
    // ONNX Runtime refuses lengths outside [0, seq_length]: known at import
    // time, so does gplace; given at run time, a check_range fails the run.
    std::optional<DenseElementsAttr> constantLens = n.constant(4);
    if (std::optional<DenseElementsAttr> lens = constantLens)
      if (lens->getElementType().isIntOrIndex())
        for (const APInt &len : lens->getValues<APInt>())
          if (len.getSExtValue() < 0 || len.getSExtValue() > r.seq) {
            reason = "a sequence_lens value (" +
                     std::to_string(len.getSExtValue()) +
                     ") outside [0, seq_length = " + std::to_string(r.seq) +
                     "]";
            return false;
          }
    r.lens = n.reshape(n.input(4), {r.batch, 1}, "lens");
    if (!cast<RankedTensorType>(r.lens.getType())
             .getElementType()
             .isInteger(64))
      r.lens = n.op<CastOp>(RankedTensorType::get({r.batch, 1}, b.getI64Type()),
                            r.lens, {}, "lens_i64");
    if (!constantLens)
      r.lens = n.checkRange(r.lens, 0, r.seq, "sequence_lens");
  }
  // The inputs time-major, as rows [seq * batch, input].
  Value x = n.input(0);
  if (r.batchMajor)
    x = n.transpose(x, {1, 0, 2}, "time_major");
  Value rows = n.reshape(x, {r.seq * r.batch, r.input}, "rows");
  Value zerosH = n.constant(
      DenseElementsAttr::get(r.type({r.batch, h}), b.getFloatAttr(r.element, 0)),
      "zeros");

  // The rows with a step at all (sequence_lens > 0), for both directions.
  Value nonEmpty;
  if (r.lens)
    nonEmpty = n.op<GreaterOp>(
        RankedTensorType::get({r.batch, 1}, b.getI1Type()),
        {r.lens, n.scalar(b.getI64Type(), 0, "zero_length")}, {}, "nonempty");

  SmallVector<Value> finalH, finalC, ys;
  for (int64_t d = 0; d < r.directions; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    std::string dir = "d" + std::to_string(d);
    Value wT = r.matrixT(n.input(1), d, gates * h, r.input, "W");
    Value rT = r.matrixT(n.input(2), d, gates * h, h, "R");
    // x W^T (+ Wb + Rb where the two add up) for every step at once.
    Value xw = r.matmul(rows, wT, gates * h, dir + "_xw");
    Value rbH; // GRU with linear_before_reset: Rb of the h gate, alone.
    if (hasBias) {
      Value wb = r.vectorPart(n.input(3), d, 2 * gates * h, 0, gates * h,
                              "Wb");
      Value rb = r.vectorPart(n.input(3), d, 2 * gates * h, gates * h,
                              gates * h, "Rb");
      Value bias;
      if (cell == Cell::GRU && r.linearBeforeReset) {
        Value rbZr = r.slice(rb, {0, 0}, {1, 2 * h}, dir + "_Rb_zr");
        rbH = r.slice(rb, {0, 2 * h}, {1, h}, dir + "_Rb_h");
        Value zerosRow = n.constant(
            DenseElementsAttr::get(r.type({1, h}), b.getFloatAttr(r.element, 0)),
            dir + "_Rb_h_zero");
        Value rbCombined =
            r.concat({rbZr, zerosRow}, 1, {1, gates * h}, dir + "_Rb_zr_0");
        bias = r.add(wb, rbCombined, dir + "_bias");
      } else {
        bias = r.add(wb, rb, dir + "_bias");
      }
      xw = r.add(xw, bias, dir + "_xw_bias");
    }
    Value p[3];
    if (hasPeepholes)
      for (int k = 0; k < 3; ++k)
        p[k] = r.vectorPart(n.input(7), d, 3 * h, k * h, h,
                            "P" + std::to_string(k));
    Value hPrev = r.initial(5, d, "initial_h");
    Value cPrev = cell == Cell::LSTM ? r.initial(6, d, "initial_c") : Value();
    SmallVector<Value> outputs(r.seq);
    for (int64_t step = 0; step < r.seq; ++step) {
      int64_t t = reverse ? r.seq - 1 - step : step;
      auto s = [&](llvm::StringRef what) { return r.at(d, t, what); };
      Value xt = r.slice(xw, {t * r.batch, 0}, {r.batch, gates * h}, s("x"));
      auto gate = [&](Value v, int64_t k, llvm::StringRef what) {
        return r.slice(v, {0, k * h}, {r.batch, h}, s(what));
      };
      Value hNew, cNew;
      if (cell == Cell::RNN) {
        Value hr = r.matmul(hPrev, rT, h, s("hr"));
        hNew = r.tanh(r.add(xt, hr, s("sum")), s("h"));
      } else if (cell == Cell::GRU) {
        // R^T's columns: z, r, h.
        Value rTzr = r.slice(rT, {0, 0}, {h, 2 * h}, r.at(d, t, "R_zr"));
        Value rTh = r.slice(rT, {0, 2 * h}, {h, h}, r.at(d, t, "R_h"));
        Value hzr = r.matmul(hPrev, rTzr, 2 * h, s("hzr"));
        Value xz = gate(xt, 0, "xz"), xr = gate(xt, 1, "xr"),
              xh = gate(xt, 2, "xh");
        Value z = r.sigmoid(r.add(xz, gate(hzr, 0, "hz"), s("z_sum")), s("z"));
        Value rg =
            r.sigmoid(r.add(xr, gate(hzr, 1, "hr"), s("r_sum")), s("r"));
        Value hh;
        if (r.linearBeforeReset) {
          Value hrh = r.matmul(hPrev, rTh, h, s("hrh"));
          if (rbH)
            hrh = r.add(hrh, rbH, s("hrh_bias"));
          hh = r.mul(rg, hrh, s("reset"));
        } else {
          Value reset = r.mul(rg, hPrev, s("reset"));
          hh = r.matmul(reset, rTh, h, s("hrh"));
        }
        Value candidate = r.tanh(r.add(xh, hh, s("h_sum")), s("candidate"));
        // (1 - z) * candidate + z * hPrev = candidate + z * (hPrev - candidate).
        Value diff = n.op<SubOp>(Type(), {hPrev, candidate}, {}, s("diff"));
        hNew = r.add(candidate, r.mul(z, diff, s("keep")), s("h"));
      } else {
        Value hr = r.matmul(hPrev, rT, gates * h, s("hr"));
        Value sum = r.add(xt, hr, s("sum"));
        // Gates i, o, f, c.
        Value gi = gate(sum, 0, "gi"), go = gate(sum, 1, "go"),
              gf = gate(sum, 2, "gf"), gc = gate(sum, 3, "gc");
        if (hasPeepholes) {
          gi = r.add(gi, r.mul(p[0], cPrev, s("pi")), s("gi_p"));
          gf = r.add(gf, r.mul(p[2], cPrev, s("pf")), s("gf_p"));
        }
        Value i = r.sigmoid(gi, s("i")), f = r.sigmoid(gf, s("f"));
        Value c = r.tanh(gc, s("c"));
        cNew = r.add(r.mul(f, cPrev, s("forget")), r.mul(i, c, s("write")),
                     s("cell"));
        if (hasPeepholes)
          go = r.add(go, r.mul(p[1], cNew, s("po")), s("go_p"));
        Value o = r.sigmoid(go, s("o"));
        hNew = r.mul(o, r.tanh(cNew, s("cell_tanh")), s("h"));
      }
      Value out = hNew;
      if (r.lens) {
        Value t64 = n.scalar(b.getI64Type(), t, s("t"));
        Value live = n.op<GreaterOp>(
            RankedTensorType::get({r.batch, 1}, b.getI1Type()), {r.lens, t64},
            {}, s("live"));
        out = n.op<SelectOp>(r.type({r.batch, h}), {live, hNew, zerosH}, {},
                             s("y"));
        hNew = n.op<SelectOp>(r.type({r.batch, h}), {live, hNew, hPrev}, {},
                              s("h_kept"));
        if (cNew)
          cNew = n.op<SelectOp>(r.type({r.batch, h}), {live, cNew, cPrev}, {},
                                s("c_kept"));
      }
      outputs[t] = n.reshape(out, {1, 1, r.batch, h}, s("y_step"));
      hPrev = hNew;
      cPrev = cNew;
    }
    if (nonEmpty) {
      // A row of length 0 has no last step: ONNX Runtime gives it zeros,
      // not its initial state.
      hPrev = n.op<SelectOp>(r.type({r.batch, h}), {nonEmpty, hPrev, zerosH},
                             {}, dir + "_h_final");
      if (cPrev)
        cPrev = n.op<SelectOp>(r.type({r.batch, h}),
                               {nonEmpty, cPrev, zerosH}, {},
                               dir + "_c_final");
    }
    ys.push_back(r.concat(outputs, 0, {r.seq, 1, r.batch, h}, dir + "_y"));
    finalH.push_back(n.reshape(hPrev, {1, r.batch, h}, dir + "_h"));
    if (cell == Cell::LSTM)
      finalC.push_back(n.reshape(cPrev, {1, r.batch, h}, dir + "_c"));
  }
  auto finish = [&](Value v, ArrayRef<int64_t> perm, int output,
                    const std::string &what) -> Value {
    if (static_cast<int64_t>(n.outputTypes.size()) <= output ||
        !n.outputTypes[output])
      return Value();
    if (r.batchMajor)
      return n.op<TransposeOp>(
          n.outputTypes[output], v,
          {n.named("perm", b.getDenseI64ArrayAttr(perm))},
          output == 0 ? "" : what);
    if (v.getType() != n.outputTypes[output])
      return Value();
    // The op that yields the output takes the node's name.
    v.getDefiningOp()->setAttr(
        "name", b.getStringAttr(output == 0 ? n.name : n.name + "/" + what));
    return v;
  };
  Value y = r.concat(ys, 1, {r.seq, r.directions, r.batch, h}, "y_directions");
  Value yh = r.concat(finalH, 0, {r.directions, r.batch, h}, "h_directions");
  results.push_back(finish(y, {2, 0, 1, 3}, 0, "Y"));
  results.push_back(finish(yh, {1, 0, 2}, 1, "Y_h"));
  if (cell == Cell::LSTM)
    results.push_back(finish(
        r.concat(finalC, 0, {r.directions, r.batch, h}, "c_directions"),
        {1, 0, 2}, 2, "Y_c"));
  return true;
}

template <Cell C>
bool mapCell(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  return mapRecurrent(n, C, results, reason);
}

} // namespace

void addRecurrentMappers(llvm::StringMap<MapFn> &table) {
  table["GRU"] = floatInput<mapCell<Cell::GRU>>;
  table["LSTM"] = floatInput<mapCell<Cell::LSTM>>;
  table["RNN"] = floatInput<mapCell<Cell::RNN>>;
}

} // namespace gplace::frontend::onnx_import
