//===- RecurrentShape.h - a recurrent launch's sizes ------------*- C++ -*-===//
//
// The sizes of a cudnn_rnn or cudnn_rnn_backprop launch, checked as both
// backends' kernels need them (oneDNN's in DnnlKernels.cpp, cuDNN's in
// CUDA/Cudnn.cpp). Private to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_RECURRENTSHAPE_H
#define GPLACE_RUNTIME_RECURRENTSHAPE_H

#include "gplace/Runtime/Kernels.h"

#include <cstdint>

namespace gplace::runtime {

/// A recurrent launch's sizes: the sequence, batch, input and hidden
/// sizes, its directions (1, or 2 when bidirectional), the gates per
/// direction (1 for rnn_tanh and rnn_relu, 3 for GRU, 4 for LSTM) and the
/// bias gates oneDNN takes (a linear-before-reset GRU's 4).
struct RecurrentShape {
  int64_t seq, batch, input, hidden, dirs, gates, biasGates;
  int64_t kind; ///< KernelParams::rnnKind.
  bool lstm() const { return kind == 2; }
  bool lbr() const { return kind == 4; }
};

/// The sizes of `call`, a cudnn_rnn (x, h0, c0, w, r, b -> y, hN, cN) or
/// cudnn_rnn_backprop (and dy, dhN, dcN -> the six operands' gradients)
/// launch, checked against gplace.cudnn_rnn's verifier's rule, which a
/// verified op guarantees and a hand-written plan may not: ranks, every
/// size at least 1, the operands', results' and gradients' shapes, the
/// cell (rnnKind 0 to 4) and direction (0 to 2). Errors: invalid argument
/// naming the op ("gplace.cudnn_rnn: ...").
StatusOr<RecurrentShape> recurrentShapeOf(const KernelCall &call);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_RECURRENTSHAPE_H
