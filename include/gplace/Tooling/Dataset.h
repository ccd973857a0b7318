//===- Dataset.h - mini-batches of a data set for a training step -*- C++ -*-===//
//
// gplace-run feeds a data set to a training function as Keras's
// `model.fit(x, y, batch_size, epochs, shuffle)` and tf.data's
// `Dataset.shuffle(...).batch(..., drop_remainder=True)` do: an input file
// whose leading dimension (the sample count) is larger than the
// argument's (the batch) is cut into mini-batches, one per step; each
// epoch visits the samples once, in order or in a seeded permutation. The
// shapes are static, so the last partial batch of an epoch is dropped
// (shuffling moves different samples into it each epoch).
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_DATASET_H
#define GPLACE_TOOLING_DATASET_H

#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gplace::tooling {

class Dataset {
public:
  /// Makes the data set of `samples` (one tensor per batched argument,
  /// each with the sample count as its leading dimension) for arguments of
  /// types `batches` (the same shapes with the batch size instead).
  /// `shuffleSeed` permutes the samples anew each epoch. Errors (invalid
  /// argument, naming the input by `inputNumbers`): an element type or a
  /// trailing shape that differs from the argument's, sample counts that
  /// differ between inputs, fewer samples than one batch.
  static runtime::StatusOr<Dataset>
  create(std::vector<runtime::HostTensor> samples,
         std::vector<runtime::TensorType> batches,
         std::vector<unsigned> inputNumbers,
         std::optional<uint64_t> shuffleSeed);

  /// The number of samples, and of steps per epoch: samples / batch,
  /// rounded down.
  int64_t numSamples() const { return numSamples_; }
  int64_t stepsPerEpoch() const { return numSamples_ / batchSize_; }
  int64_t batchSize() const { return batchSize_; }

  /// Writes the mini-batch of step `step` (< stepsPerEpoch()) of epoch
  /// `epoch` (from 0) into `targets`, one per input, each with room for
  /// its argument's type. Samples come in file order or, with a seed, in
  /// the epoch's permutation (Fisher-Yates over a mt19937_64 seeded with
  /// seed + epoch, so every run with that seed sees the same batches).
  void fillBatch(int64_t epoch, int64_t step,
                 const std::vector<void *> &targets);

private:
  Dataset() = default;
  void permute(int64_t epoch);

  std::vector<runtime::HostTensor> samples_;
  std::vector<int64_t> sampleBytes_; ///< Per input: bytes of one sample.
  int64_t numSamples_ = 0, batchSize_ = 0;
  std::optional<uint64_t> seed_;
  std::vector<int64_t> order_;
  int64_t orderEpoch_ = -1;
};

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_DATASET_H
