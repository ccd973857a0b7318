//===- Pipelines.h - gplace's pass pipeline ---------------------*- C++ -*-===//
//
// --gplace-pipeline: placement, its verification, copy and control
// insertion, and lowering to a plan, with the placement options.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_PIPELINES_PIPELINES_H
#define GPLACE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace gplace {

/// The options of --gplace-pipeline: those of --gplace-place, plus
/// max-inflight-copies of --gplace-insert-control-deps and
/// gpu-memory-limit of --gplace-lower-to-plan.
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> devices{*this, "devices",
                              llvm::cl::desc("The devices to place on")};
  Option<bool> allowSoftPlacement{
      *this, "allow-soft-placement",
      llvm::cl::desc("Move ops whose request cannot be satisfied"),
      llvm::cl::init(false)};
  Option<std::string> policy{*this, "policy",
                             llvm::cl::desc("The placement policy")};
  Option<bool> logDevicePlacement{
      *this, "log-device-placement",
      llvm::cl::desc("Print the placement log on stderr"),
      llvm::cl::init(false)};
  Option<unsigned> maxInflightCopies{
      *this, "max-inflight-copies",
      llvm::cl::desc("At most this many tensor copies in flight (0: any)"),
      llvm::cl::init(0)};
  Option<int64_t> gpuMemoryLimit{
      *this, "gpu-memory-limit",
      llvm::cl::desc("Memory limit of each GPU in MiB (0: the device's)"),
      llvm::cl::init(0)};
};

/// Adds the whole pipeline to `pm` (a ModuleOp pass manager).
void buildGPlacePipeline(mlir::OpPassManager &pm,
                         const PipelineOptions &options);

/// Registers --gplace-pipeline.
void registerGPlacePipelines();

} // namespace gplace

#endif // GPLACE_PIPELINES_PIPELINES_H
