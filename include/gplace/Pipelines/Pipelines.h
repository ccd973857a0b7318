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
/// whether --gplace-remap, --gplace-fuse-elementwise and
/// --gplace-print-memory-plan run. gplace-run's command line is these
/// options (tooling::registerCompileFlags).
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> devices{
      *this, "devices",
      llvm::cl::desc("The devices to compile for (empty: the module's "
                     "gplace.devices, else this process's CPU)")};
  Option<bool> allowSoftPlacement{
      *this, "allow-soft-placement",
      llvm::cl::desc("Move ops whose device request cannot be satisfied "
                     "(TensorFlow's allow_soft_placement)"),
      llvm::cl::init(false)};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("The placement policy for ops without a request "
                     "(built-in: default-gpu, idle-gpu, auto, ...; "
                     "docs/passes/place.md)")};
  Option<std::string> assignByName{
      *this, "assign-by-name",
      llvm::cl::desc("Give ops device requests by name before placement, "
                     "as tf.device scopes do: REGEX=DEVICE rules, first "
                     "match wins (--gplace-assign-by-name)")};
  Option<std::string> placementProfile{
      *this, "placement-profile",
      llvm::cl::desc("The cost model's rates for policy=auto (a file that "
                     "gplace-run --profile wrote; empty: built-in rates)")};
  Option<bool> logDevicePlacement{
      *this, "log-device-placement",
      llvm::cl::desc("Print where each op runs, in TensorFlow's format, "
                     "on stderr"),
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
      llvm::cl::desc("Train on N GPUs: --gplace-replicate's replicas over "
                     "GPU:0..N-1, each a slice of the batch (0: none); "
                     "with pipeline-stages, N pipelines of K GPUs each"),
      llvm::cl::init(0)};
  Option<unsigned> accumulateSteps{
      *this, "accumulate-steps",
      llvm::cl::desc("Gradient accumulation: split each training step's "
                     "batch into K micro-batches run one after another, "
                     "their gradients summed, one optimizer update "
                     "(--gplace-accumulate-gradients; 0 or 1: none)"),
      llvm::cl::init(0)};
  Option<std::string> mixedPrecision{
      *this, "mixed-precision",
      llvm::cl::desc("Automatic mixed precision: run matmuls and "
                     "convolutions (and the elementwise ops that follow "
                     "them) in bf16 or f16, reductions, losses and "
                     "variables in f32 (--gplace-auto-mixed-precision; "
                     "empty: none)")};
  Option<std::string> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("With mixed-precision: dynamic (loss scaling as "
                     "Keras's LossScaleOptimizer; f16's default) or none "
                     "(bf16's default; an f16 training without the scale's "
                     "variables)")};
  Option<bool> earlyUpdates{
      *this, "early-updates",
      llvm::cl::desc("Update each variable as soon as its gradient is "
                     "complete and its reads are done, rather than at the "
                     "end of the step, so that gradients die early "
                     "(--gplace-early-updates): the same bits"),
      llvm::cl::init(false)};
  Option<bool> inPlace{
      *this, "in-place",
      llvm::cl::desc("Let an elementwise op write its result over an "
                     "operand buffer whose last use it is (ReluGrad over "
                     "MaxPoolGrad's output): less memory, the same bits "
                     "(--gplace-plan-memory's in-place)"),
      llvm::cl::init(false)};
  Option<std::string> rematerialize{
      *this, "rematerialize",
      llvm::cl::desc("Recompute in the backward pass the activations of the "
                     "ops whose names match this regex (its first group, if "
                     "any, names each recomputed segment), rather than keep "
                     "them (--gplace-rematerialize, tf.recompute_grad); "
                     "auto: choose them where a device's planned peak "
                     "exceeds its memory limit (auto=true)")};
  Option<unsigned> pipelineStages{
      *this, "pipeline-stages",
      llvm::cl::desc("Pipeline parallelism: train with the model's stages "
                     "(the devices its layers are placed on; K, checked) "
                     "running micro-batches concurrently "
                     "(--gplace-pipeline-parallel; 0: none)"),
      llvm::cl::init(0)};
  Option<std::string> pipelineSplit{
      *this, "pipeline-split",
      llvm::cl::desc("With pipeline-stages: placement (the stages are the "
                     "devices the layers are placed on) or auto (the cost "
                     "model cuts the layers into K balanced stages on the "
                     "first K GPUs, under their memory limits)"),
      llvm::cl::init("placement")};
  Option<unsigned> microbatches{
      *this, "microbatches",
      llvm::cl::desc("With pipeline-stages: the micro-batches per step (M)"),
      llvm::cl::init(4)};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("With pipeline-stages: gpipe (all forwards, then all "
                     "backwards) or 1f1b (one forward, one backward; at "
                     "most K micro-batches' activations live)"),
      llvm::cl::init("1f1b")};
  Option<std::string> replicaVariables{
      *this, "replica-variables",
      llvm::cl::desc("With replicas: mirrored (a copy of each variable per "
                     "GPU, gradients all-reduced; MirroredStrategy) or host "
                     "(variables on the CPU, gradients averaged there)"),
      llvm::cl::init("mirrored")};
  Option<std::string> allReduce{
      *this, "all-reduce",
      llvm::cl::desc("How mirrored gradients are all-reduced "
                     "(--gplace-lower-all-reduce): collective (the runtime's, "
                     "over MPI across tasks) or ring (copies, slices and adds "
                     "between the GPUs)"),
      llvm::cl::init("collective")};
  Option<bool> foldConstants{
      *this, "fold-constants",
      llvm::cl::desc("Fold ops whose operands are constants before "
                     "placement (--gplace-fold-constants, Grappler's constant "
                     "folding); =false runs every op's kernel"),
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
      llvm::cl::desc("Run NCHW convolutions, pooling and batch norm NHWC on "
                     "the CPU, transposing at the region's borders "
                     "(--gplace-layout, Grappler's layout optimizer)"),
      llvm::cl::init(true)};
  Option<bool> remapping{
      *this, "remapping",
      llvm::cl::desc("Fuse conv2d + a bias or batch norm (+ relu) into "
                     "fused_conv2d "
                     "(--gplace-remap, Grappler's remapper)"),
      llvm::cl::init(true)};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Run chains of elementwise ops as one kernel, on GPUs "
                     "and the CPU (--gplace-fuse-elementwise); =false "
                     "launches each op"),
      llvm::cl::init(true)};
  Option<bool> printMemoryPlan{
      *this, "print-memory-plan",
      llvm::cl::desc("Print the static memory plan on stderr "
                     "(--gplace-print-memory-plan)"),
      llvm::cl::init(false)};
};

/// What a driver that compiles more than once changes between tries
/// (tooling::compileToPlan under rematerialize=auto): the bytes
/// --gplace-rematerialize leaves free under each limit besides its
/// estimate (`reserve=`), and whether the try prints nothing (no placement
/// log, no memory plan).
struct PipelineTrial {
  int64_t rematerializeReserve = 0;
  bool quiet = false;
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
        errorHandler = {},
    const struct PipelineTrial &trial = {});

/// Adds the lowering of a placed graph with copies and control
/// dependencies to a complete plan: --gplace-convert-graph-to-plan,
/// --gplace-schedule-plan, --gplace-fuse-elementwise (if `fuse`),
/// --gplace-size-workspaces, --gplace-plan-memory (in place if `inPlace`),
/// --gplace-verify-plan.
void buildLowerToPlanPipeline(mlir::OpPassManager &pm, bool fuse = true,
                              bool inPlace = false);

/// Registers --gplace-pipeline and --gplace-lower-to-plan.
void registerGPlacePipelines();

} // namespace gplace

#endif // GPLACE_PIPELINES_PIPELINES_H
