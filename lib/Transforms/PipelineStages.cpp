//===- PipelineStages.cpp - cut points of a pipeline by the cost model ----===//
//
// --gplace-pipeline-parallel="split=auto" (PipelineStages.h): contiguous
// stages of the forward ops, balanced by the cost model's predicted times
// under each GPU's memory limit, by dynamic programming over the cut
// points (PipeDream's partitioning, without replication). The pass asks
// PlacedOpInterface, memory effects and the cost model; it names one op
// class, gplace.gradients, the boundary of the forward pass.
//
//===----------------------------------------------------------------------===//

#include "PipelineStages.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/ElementType.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

#include <limits>

using namespace mlir;
using namespace gplace::graph;

namespace {

/// The resource operands of `op` (the variables it reads or updates).
SmallVector<Value> resourcesOf(Operation *op) {
  SmallVector<Value> resources;
  for (Value operand : op->getOperands())
    if (isa<ResourceType>(operand.getType()))
      resources.push_back(operand);
  return resources;
}

} // namespace

LogicalResult gplace::splitPipelineStages(func::FuncOp func,
                                          unsigned numStages,
                                          unsigned microbatches, bool oneFOneB,
                                          const DeviceSet &devices,
                                          const CostProfile &profile,
                                          std::vector<std::string> *chosen) {
  auto fail = [&] {
    InFlightDiagnostic diag = func.emitError();
    diag << "--gplace-pipeline-parallel split=auto: @" << func.getSymName()
         << ": ";
    return diag;
  };
  std::vector<size_t> gpus;
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices.devices()[i].type == DeviceType::GPU)
      gpus.push_back(i);
  if (gpus.size() < numStages)
    return fail() << numStages << " stages need " << numStages
                  << " GPUs; the devices have " << gpus.size();
  gpus.resize(numStages);

  Block &body = func.getBody().front();
  Operation *gradients = nullptr;
  for (Operation &op : body)
    if (isa<GradientsOp>(op)) {
      if (gradients)
        return fail() << "more than one gplace.gradients";
      gradients = &op;
    }
  if (!gradients)
    return fail() << "no gplace.gradients: pipeline parallelism trains";

  // The forward ops: before the gradients, depending on an argument, with
  // a GPU kernel (what only the host runs, a cast of uint8 images, stays
  // where placement puts it).
  llvm::DenseSet<Value> fromArguments(body.getArguments().begin(),
                                      body.getArguments().end());
  SmallVector<Operation *> forward;
  for (Operation &op : body) {
    if (&op == gradients)
      break;
    if (!llvm::any_of(op.getOperands(),
                      [&](Value v) { return fromArguments.contains(v); }))
      continue;
    fromArguments.insert(op.getResults().begin(), op.getResults().end());
    if (!isa<PlacedOpInterface>(op))
      continue;
    if (hasKernelFor(&op, DeviceType::GPU))
      forward.push_back(&op);
  }
  size_t n = forward.size();
  if (n < numStages)
    return fail() << "its " << n << " forward ops with a GPU kernel cannot "
                  << "make " << numStages << " stages";

  // Per forward op: predicted seconds (forward and backward), activation
  // bytes of one micro-batch, and the bytes of the variables it reads
  // first (each with its gradient, running sum and the optimizer's slots:
  // the other variables its updates use).
  DeviceRates rates = profile.device(devices.devices()[gpus.front()]);
  std::vector<double> seconds(n);
  std::vector<double> activations(n), parameters(n);
  llvm::DenseSet<Value> counted;
  for (auto [i, op] : llvm::enumerate(forward)) {
    // One micro-batch's share of the work, but a whole launch each.
    OpCost cost = getOpCost(op);
    cost.flops /= microbatches;
    cost.bytes /= microbatches;
    seconds[i] = 3 * cost.seconds(rates);
    for (Type type : op->getResultTypes())
      activations[i] += double(getTypeBytes(type)) / microbatches;
    for (Value operand : op->getOperands()) {
      Operation *read = operand.getDefiningOp();
      if (!read)
        continue;
      for (Value variable : resourcesOf(read)) {
        if (!counted.insert(variable).second)
          continue;
        int64_t bytes = getTypeBytes(variable.getType());
        // Its gradient, running sum and the sum's next value.
        parameters[i] += 3.0 * bytes;
        // Once a step: M - 1 adds into the running sum, the division by M
        // and the update, each reading two tensors of its size and writing
        // one; per micro-batch, 1/M of it.
        OpCost update;
        update.bytes = 3 * bytes;
        update.runsKernel = true;
        seconds[i] += (microbatches + 1) * update.seconds(rates) / microbatches;
        llvm::SetVector<Value> slots;
        for (Operation *user : variable.getUsers())
          for (Value resource : resourcesOf(user))
            slots.insert(resource);
        for (Value slot : slots)
          parameters[i] += getTypeBytes(slot.getType());
      }
    }
  }
  std::vector<double> sumSeconds(n + 1, 0), sumActivations(n + 1, 0),
      sumParameters(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    sumSeconds[i + 1] = sumSeconds[i] + seconds[i];
    sumActivations[i + 1] = sumActivations[i] + activations[i];
    sumParameters[i + 1] = sumParameters[i] + parameters[i];
  }
  auto live = [&](unsigned s) -> double {
    return oneFOneB ? std::min<unsigned>(numStages - s, microbatches)
                    : microbatches;
  };
  auto bytesOf = [&](unsigned s, size_t a, size_t b) {
    return sumParameters[b] - sumParameters[a] +
           (sumActivations[b] - sumActivations[a]) * live(s);
  };
  auto fits = [&](unsigned s, size_t a, size_t b) {
    int64_t limit = devices.attributes(gpus[s]).memoryLimit;
    return limit <= 0 || bytesOf(s, a, b) <= double(limit);
  };

  // best[s][j]: the smallest largest stage time of ops [0, j) in stages
  // 0..s-1, each fitting; cut[s][j] where stage s-1 begins.
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(
      numStages + 1, std::vector<double>(n + 1, kInfinity));
  std::vector<std::vector<size_t>> cut(numStages + 1,
                                       std::vector<size_t>(n + 1, 0));
  best[0][0] = 0;
  for (unsigned s = 1; s <= numStages; ++s)
    for (size_t j = s; j <= n; ++j)
      for (size_t i = s - 1; i < j; ++i) {
        if (best[s - 1][i] == kInfinity || !fits(s - 1, i, j))
          continue;
        double time = std::max(best[s - 1][i], sumSeconds[j] - sumSeconds[i]);
        if (time < best[s][j]) {
          best[s][j] = time;
          cut[s][j] = i;
        }
      }
  if (best[numStages][n] == kInfinity) {
    InFlightDiagnostic diag = fail();
    diag << "no split of its " << n << " forward ops into " << numStages
         << " stages fits the GPUs' memory (";
    for (unsigned s = 0; s < numStages; ++s)
      diag << (s ? ", " : "") << devices.devices()[gpus[s]].str() << ": "
           << devices.attributes(gpus[s]).memoryLimit << " bytes";
    diag << "), counting each stage's variables, gradients and optimizer "
            "slots and "
         << (oneFOneB ? "K - s" : "M") << " micro-batches' activations";
    return diag;
  }

  std::vector<size_t> begins(numStages + 1, n);
  for (unsigned s = numStages, j = n; s > 0; --s) {
    begins[s - 1] = cut[s][j];
    j = cut[s][j];
  }
  MLIRContext *context = func.getContext();
  llvm::DenseSet<Operation *> pinned; // A read shared by stages: the first.
  for (unsigned s = 0; s < numStages; ++s) {
    auto device =
        StringAttr::get(context, devices.devices()[gpus[s]].str());
    for (size_t i = begins[s]; i < begins[s + 1]; ++i) {
      Operation *op = forward[i];
      op->setAttr("device", device);
      for (Value operand : op->getOperands()) {
        Operation *read = operand.getDefiningOp();
        if (!read || resourcesOf(read).empty() || !pinned.insert(read).second)
          continue;
        read->setAttr("device", device);
        for (Value variable : resourcesOf(read))
          if (Operation *def = variable.getDefiningOp())
            def->setAttr("device", device);
      }
    }
    if (chosen) {
      std::string line;
      llvm::raw_string_ostream os(line);
      os << "stage " << s << " on " << devices.devices()[gpus[s]].str()
         << ": forward ops " << begins[s] << ".." << begins[s + 1] - 1
         << ", predicted "
         << llvm::format("%.3f",
                         (sumSeconds[begins[s + 1]] - sumSeconds[begins[s]]) *
                             1e3)
         << " ms per micro-batch, "
         << int64_t(bytesOf(s, begins[s], begins[s + 1])) << " bytes";
      chosen->push_back(line);
    }
  }
  return success();
}
