//===- Profile.h - measure the cost model's rates ---------------*- C++ -*-===//
//
// gplace-run --profile=prof.json: measures, on this process's devices, the
// rates the cost model (gplace/Transforms/CostModel.h) predicts with, so
// that --gplace-place="policy=auto profile=prof.json" and --gplace-estimate
// predict for this machine rather than from the defaults.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_PROFILE_H
#define GPLACE_TOOLING_PROFILE_H

#include "gplace/Runtime/Status.h"
#include "gplace/Tooling/Machine.h"
#include "gplace/Transforms/CostModel.h"

#include "mlir/IR/MLIRContext.h"

namespace gplace::tooling {

/// Measures each device of `machine` and each ordered pair of its devices:
/// - flops_per_second: chained 512x512 f32 matmuls (the slope between a
///   chain of 1 and of 5, so that copies and launches cancel);
/// - bytes_per_second: chained adds of 4 Mi-element f32 tensors (12 bytes
///   moved per element), elementwise fusion off;
/// - launch_seconds: chained adds of one element (the slope of 1 to 33);
/// - links: Device::copyFrom of 16 MiB (bandwidth) and of 64 bytes
///   (latency) between each pair.
/// On a device with a memory limit the sizes halve until each tensor is at
/// most a quarter of it (a copy: half of the smaller limit).
/// Each figure is the median of `repeats` runs. The graphs are compiled in
/// `context` (which needs the graph and func dialects). Errors: a graph
/// that fails to compile or run on a device (its status).
runtime::StatusOr<CostProfile> measureProfile(mlir::MLIRContext &context,
                                              Machine &machine,
                                              unsigned repeats = 5);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_PROFILE_H
