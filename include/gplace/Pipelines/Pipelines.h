//===- Pipelines.h - gplace's pass pipelines --------------------*- C++ -*-===//
//
// --gplace-pipeline: device assignment, placement and its verification,
// copy and control insertion, and the lowering to a plan; and
// --gplace-lower-to-plan, the lowering alone (conversion, scheduling,
// fusion, memory planning, verification).
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_PIPELINES_PIPELINES_H
#define GPLACE_PIPELINES_PIPELINES_H

#include "gplace/Support/DeviceName.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace gplace {

/// The options of --gplace-pipeline: `devices` and `gpu-memory-limit` of
/// --gplace-assign-devices, those of --gplace-place, max-inflight-copies of
/// --gplace-insert-control-deps, the replicas of --gplace-replicate, the
/// algorithm of --gplace-lower-all-reduce, and
/// whether --gplace-remap and --gplace-fuse-elementwise run.
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> devices{
      *this, "devices",
      llvm::cl::desc("The devices to compile for (empty: the module's "
                     "gplace.devices, else this process's CPU)")};
  Option<bool> allowSoftPlacement{
      *this, "allow-soft-placement",
      llvm::cl::desc("Move ops whose request cannot be satisfied"),
      llvm::cl::init(false)};
  Option<std::string> policy{*this, "policy",
                             llvm::cl::desc("The placement policy")};
  Option<std::string> assignByName{
      *this, "assign-by-name",
      llvm::cl::desc("REGEX=DEVICE rules that give ops device requests by "
                     "name before placement (--gplace-assign-by-name)")};
  Option<std::string> profile{
      *this, "profile",
      llvm::cl::desc("The cost model's rates for policy=auto (gplace-run "
                     "--profile's file; empty: the defaults)")};
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
  Option<unsigned> replicas{
      *this, "replicas",
      llvm::cl::desc("Replicate a training function over this many GPUs "
                     "(--gplace-replicate; 0: no replication)"),
      llvm::cl::init(0)};
  Option<std::string> replicaVariables{
      *this, "replica-variables",
      llvm::cl::desc("With replicas: mirrored (a copy of each variable per "
                     "replica, all-reduce) or host (variables on the CPU)"),
      llvm::cl::init("mirrored")};
  Option<std::string> allReduce{
      *this, "all-reduce",
      llvm::cl::desc("--gplace-lower-all-reduce's algorithm: collective "
                     "(the runtime's) or ring (graph ops)"),
      llvm::cl::init("collective")};
  Option<bool> foldConstants{
      *this, "fold-constants",
      llvm::cl::desc("Fold ops whose operands are constants before "
                     "placement (--gplace-fold-constants)"),
      llvm::cl::init(true)};
  Option<std::string> replicate{
      *this, "replicate",
      llvm::cl::desc("Options of --gplace-replicate, which then runs "
                     "(e.g. 'devices=/gpu:2,/gpu:3 reduce=sum functions=main'"
                     "; after replicas and replica-variables, so they win)")};
  Option<std::string> cluster{
      *this, "cluster",
      llvm::cl::desc("The cluster's jobs and task counts in rank order "
                     "(worker:4): --gplace-partition-tasks runs")};
  Option<bool> layoutOptimizer{
      *this, "layout-optimizer",
      llvm::cl::desc("Run NCHW window ops NHWC on the CPU (--gplace-layout, "
                     "Grappler's layout optimizer)"),
      llvm::cl::init(true)};
  Option<bool> remapping{
      *this, "remapping",
      llvm::cl::desc("Fuse conv2d + a bias or batch norm (+ relu) into "
                     "fused_conv2d "
                     "(--gplace-remap, Grappler's remapper)"),
      llvm::cl::init(true)};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse runs of elementwise launches on GPUs into one "
                     "kernel each"),
      llvm::cl::init(true)};
};

/// Adds the whole pipeline to `pm` (a ModuleOp pass manager). With
/// `runtimeDevices` (gplace-run's devices, with their limits, descriptions
/// and GPU loads), --gplace-assign-devices writes those instead of
/// `options.devices`. Fails, having reported through `errorHandler` (by
/// default on stderr), when `options.replicate` is not a valid option
/// string of --gplace-replicate.
mlir::LogicalResult buildGPlacePipeline(
    mlir::OpPassManager &pm, const PipelineOptions &options,
    std::optional<DeviceSet> runtimeDevices = {},
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
        errorHandler = {});

/// Adds the lowering of a placed graph with copies and control
/// dependencies to a complete plan: --gplace-convert-graph-to-plan,
/// --gplace-schedule-plan, --gplace-fuse-elementwise (if `fuse`),
/// --gplace-size-workspaces, --gplace-plan-memory, --gplace-verify-plan.
void buildLowerToPlanPipeline(mlir::OpPassManager &pm, bool fuse = true);

/// Registers --gplace-pipeline and --gplace-lower-to-plan.
void registerGPlacePipelines();

} // namespace gplace

#endif // GPLACE_PIPELINES_PIPELINES_H
