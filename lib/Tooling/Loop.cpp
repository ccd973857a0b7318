//===- Loop.cpp - running a loaded plan step by step and epoch by epoch ---===//

#include "gplace/Tooling/Loop.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace rt = gplace::runtime;
using Clock = std::chrono::steady_clock;

static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

rt::StatusOr<gplace::tooling::LoopResult> gplace::tooling::runLoop(
    rt::Executor &executor, Dataset *dataset,
    llvm::ArrayRef<void *> batchTargets, int64_t epochs, int64_t iterations,
    llvm::function_ref<rt::Status(const EpochSummary &)> onEpoch,
    int64_t firstEpoch) {
  int64_t numEpochs = dataset ? std::max<int64_t>(1, epochs) : 1;
  int64_t steps =
      dataset ? dataset->stepsPerEpoch() : std::max<int64_t>(1, iterations);
  LoopResult loop;
  for (int64_t epoch = dataset ? std::max<int64_t>(0, firstEpoch) : 0;
       epoch < numEpochs; ++epoch) {
    EpochSummary summary;
    summary.epoch = epoch;
    summary.epochs = numEpochs;
    summary.steps = steps;
    summary.batchSize = dataset ? dataset->batchSize() : 0;
    // Per result: the sum over the epoch of a floating-point scalar.
    std::vector<double> sums;
    std::vector<bool> scalar;
    auto epochStart = Clock::now();
    for (int64_t step = 0; step < steps; ++step) {
      auto start = Clock::now();
      if (dataset)
        dataset->fillBatch(epoch, step, batchTargets);
      rt::StatusOr<std::vector<rt::TensorRef>> run = executor.runStaged();
      if (!run)
        return run.status();
      sums.resize(run->size(), 0);
      scalar.resize(run->size(), false);
      for (auto [r, view] : llvm::enumerate(*run)) {
        if (!view.type->shape.empty())
          continue;
        std::optional<double> value =
            rt::floatElementValue(view.type->elementType, view.data);
        if (!value)
          continue;
        sums[r] += *value;
        scalar[r] = true;
      }
      if (epoch + 1 == numEpochs && step + 1 == steps)
        for (const rt::TensorRef &view : *run) {
          rt::HostTensor result(*view.type);
          if (!result.data.empty())
            std::memcpy(result.data.data(), view.data, result.data.size());
          loop.results.push_back(std::move(result));
        }
      loop.seconds.push_back(secondsSince(start));
    }
    for (size_t r = 0; r < sums.size(); ++r)
      summary.means.push_back(scalar[r] ? std::optional(sums[r] / steps)
                                        : std::nullopt);
    summary.seconds = secondsSince(epochStart);
    if (onEpoch)
      if (rt::Status status = onEpoch(summary); !status)
        return status;
  }
  return loop;
}

std::string gplace::tooling::formatEpoch(const EpochSummary &summary) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "epoch " << summary.epoch + 1 << "/" << summary.epochs << ":";
  for (auto [r, mean] : llvm::enumerate(summary.means))
    if (mean)
      os << " result[" << r << "] mean " << llvm::format("%.6g", *mean);
  os << " (" << summary.steps << " steps of " << summary.batchSize << ", "
     << llvm::format("%.2f", summary.seconds) << " s)";
  return text;
}

std::string gplace::tooling::formatRunTimes(llvm::ArrayRef<double> seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (seconds.empty())
    return "timing: no runs";
  os << "timing: " << seconds.size()
     << (seconds.size() == 1 ? " run" : " runs") << ", first "
     << llvm::format("%.3f", seconds.front() * 1e3) << " ms";
  if (seconds.size() > 1) {
    llvm::ArrayRef<double> rest = seconds.drop_front();
    double sum = 0, best = rest.front();
    for (double s : rest) {
      sum += s;
      best = std::min(best, s);
    }
    std::vector<double> sorted(rest.begin(), rest.end());
    std::sort(sorted.begin(), sorted.end());
    size_t half = sorted.size() / 2;
    double median = sorted.size() % 2 ? sorted[half]
                                      : (sorted[half - 1] + sorted[half]) / 2;
    // The 99th percentile: the smallest time at least 99% of the runs
    // take at most (nearest rank).
    size_t rank99 = (sorted.size() * 99 + 99) / 100;
    os << ", then mean " << llvm::format("%.3f", sum / rest.size() * 1e3)
       << " ms, best " << llvm::format("%.3f", best * 1e3) << " ms, median "
       << llvm::format("%.3f", median * 1e3) << " ms, p99 "
       << llvm::format("%.3f", sorted[rank99 - 1] * 1e3) << " ms, max "
       << llvm::format("%.3f", sorted.back() * 1e3) << " ms";
  }
  return text;
}
