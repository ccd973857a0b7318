//===- PipelineStages.h - cut points of a pipeline by the cost model -*- C++ -*-===//
//
// --gplace-pipeline-parallel="split=auto": the stages chosen by the cost
// model rather than by the ops' placement.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_TRANSFORMS_PIPELINESTAGES_H
#define GPLACE_LIB_TRANSFORMS_PIPELINESTAGES_H

#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace gplace {

/// Splits the forward ops of `func` (a training function with one
/// gplace.gradients, before it is micro-batched: the ops before the
/// gradients that depend on an argument and have a GPU kernel, in program
/// order) into `numStages` contiguous stages on the first `numStages` GPUs
/// of `devices`, and gives each op, and the variables it reads with their
/// reads, its stage's device request (replacing any). The cut points
/// minimise the largest stage's predicted time (each op's forward and
/// backward, 3x its forward on `profile`'s rates) such that every stage
/// fits its GPU's memory limit: its variables with their gradient, running
/// sum (and its next value) and optimizer slots, plus its activations per micro-batch times the
/// micro-batches the schedule keeps live (1F1B: K - s on stage s; GPipe:
/// M), as PipeDream's planner balances stages. `chosen` (if given) gets
/// one line per stage (device, ops, predicted ms, bytes). Errors (reported
/// at `func`): fewer GPUs or forward ops than stages, no gradients, no
/// split that fits.
mlir::LogicalResult splitPipelineStages(mlir::func::FuncOp func,
                                        unsigned numStages,
                                        unsigned microbatches, bool oneFOneB,
                                        const DeviceSet &devices,
                                        const CostProfile &profile,
                                        std::vector<std::string> *chosen);

} // namespace gplace

#endif // GPLACE_LIB_TRANSFORMS_PIPELINESTAGES_H
