//===- Dataset.cpp - mini-batches of a data set ---------------------------===//

#include "gplace/Tooling/Dataset.h"

#include <cstring>
#include <numeric>
#include <random>

using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

rt::StatusOr<Dataset> Dataset::create(std::vector<rt::HostTensor> samples,
                                      std::vector<rt::TensorType> batches,
                                      std::vector<unsigned> inputNumbers,
                                      std::optional<uint64_t> shuffleSeed) {
  Dataset dataset;
  for (size_t i = 0; i < samples.size(); ++i) {
    const rt::TensorType &file = samples[i].type, &arg = batches[i];
    std::string what = "input #" + std::to_string(inputNumbers[i]) + ": ";
    if (arg.shape.empty() || file.shape.size() != arg.shape.size() ||
        file.elementType != arg.elementType ||
        !std::equal(file.shape.begin() + 1, file.shape.end(),
                    arg.shape.begin() + 1))
      return rt::Status::invalidArgument(
          what + "a data set of " + file.str() +
          " cannot feed mini-batches of " + arg.str() +
          " (the element type and every dimension but the first must be "
          "equal)");
    int64_t count = file.shape[0], batch = arg.shape[0];
    if (i == 0) {
      dataset.numSamples_ = count;
      dataset.batchSize_ = batch;
    } else if (count != dataset.numSamples_ || batch != dataset.batchSize_) {
      return rt::Status::invalidArgument(
          what + "has " + std::to_string(count) + " samples in batches of " +
          std::to_string(batch) + ", but input #" +
          std::to_string(inputNumbers[0]) + " has " +
          std::to_string(dataset.numSamples_) + " in batches of " +
          std::to_string(dataset.batchSize_) +
          " (every data set input has one sample per example)");
    }
    if (batch <= 0 || count < batch)
      return rt::Status::invalidArgument(
          what + "a data set of " + std::to_string(count) +
          " samples cannot fill one batch of " + std::to_string(batch));
    dataset.sampleBytes_.push_back(count ? file.bytes() / count : 0);
  }
  dataset.samples_ = std::move(samples);
  dataset.seed_ = shuffleSeed;
  return dataset;
}

void Dataset::permute(int64_t epoch) {
  if (orderEpoch_ == epoch)
    return;
  order_.resize(numSamples_);
  std::iota(order_.begin(), order_.end(), 0);
  if (seed_) {
    // Fisher-Yates with our own index draws: std::shuffle's use of the
    // generator differs between standard libraries.
    std::mt19937_64 generator(*seed_ + static_cast<uint64_t>(epoch));
    for (int64_t i = numSamples_ - 1; i > 0; --i) {
      int64_t j = static_cast<int64_t>(generator() %
                                       static_cast<uint64_t>(i + 1));
      std::swap(order_[i], order_[j]);
    }
  }
  orderEpoch_ = epoch;
}

void Dataset::fillBatch(int64_t epoch, int64_t step,
                        const std::vector<void *> &targets) {
  permute(epoch);
  for (size_t i = 0; i < samples_.size(); ++i) {
    uint8_t *target = static_cast<uint8_t *>(targets[i]);
    const uint8_t *source = samples_[i].data.data();
    int64_t bytes = sampleBytes_[i];
    if (bytes == 0)
      continue;
    if (!seed_) { // Consecutive samples: one copy.
      std::memcpy(target, source + step * batchSize_ * bytes,
                  batchSize_ * bytes);
      continue;
    }
    for (int64_t k = 0; k < batchSize_; ++k)
      std::memcpy(target + k * bytes,
                  source + order_[step * batchSize_ + k] * bytes, bytes);
  }
}
