//===- Pipelines.cpp - gplace's pass pipelines ----------------------------===//

#include "gplace/Pipelines/Pipelines.h"

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

void gplace::buildLowerToPlanPipeline(mlir::OpPassManager &pm, bool fuse,
                                      bool inPlace) {
  pm.addPass(createConvertGraphToPlanPass());
  pm.addPass(createSchedulePlanPass());
  if (fuse)
    pm.addPass(createFuseElementwisePass());
  pm.addPass(createSizeWorkspacesPass());
  PlanMemoryPassOptions memory;
  memory.inPlace = inPlace;
  pm.addPass(createPlanMemoryPass(memory));
  pm.addPass(createVerifyPlanPass());
}

mlir::LogicalResult gplace::buildGPlacePipeline(
    mlir::OpPassManager &pm, const PipelineOptions &options,
    std::optional<DeviceSet> runtimeDevices,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
        errorHandler,
    const PipelineTrial &trial) {
  bool log = options.logDevicePlacement && !trial.quiet;
  // Every refusal below goes to the caller's handler, else to stderr.
  auto report = [&](const llvm::Twine &message) {
    if (errorHandler)
      return errorHandler(message);
    llvm::errs() << "error: " << message << "\n";
    return mlir::failure();
  };
  // Training graphs: towers first (one per replica), then gplace.gradients
  // becomes the backward graph, before anything is placed. The pass parses
  // its own options.
  // A pipeline replicates itself (data parallel x pipeline parallel):
  // --gplace-pipeline-parallel's replicas.
  bool pipelined = options.pipelineStages > 0;
  bool replicated =
      !pipelined && (options.replicas > 0 || !options.replicate.empty());
  std::unique_ptr<mlir::Pass> replicatePass;
  if (replicated) {
    std::string replicateOptions;
    if (options.replicas > 0)
      replicateOptions = "replicas=" + std::to_string(options.replicas) +
                         " variables=" + options.replicaVariables + " ";
    replicateOptions += options.replicate;
    std::unique_ptr<mlir::Pass> replicate = createReplicatePass();
    // MLIR 19's list options never return from a value with an unbalanced
    // bracket (functions=enc(): refuse one before they see it.
    int depth[3] = {0, 0, 0};
    for (char c : options.replicate)
      for (int k = 0; k < 3; ++k) {
        if (depth[k] < 0) // A closing one came first: unbalanced for good.
          continue;
        if (c == "([{"[k])
          ++depth[k];
        else if (c == ")]}"[k])
          --depth[k];
      }
    for (int k = 0; k < 3; ++k)
      if (depth[k] != 0)
        return report("--gplace-replicate options '" + options.replicate +
                      "': unbalanced '" + llvm::Twine("([{"[k]) + "' and '" +
                      llvm::Twine(")]}"[k]) + "'");
    // Reports once (initializeOptions calls the handler on every failure).
    if (failed(replicate->initializeOptions(
            replicateOptions, [&](const llvm::Twine &message) {
              return report("--gplace-replicate options '" +
                            options.replicate +
                            "': " + llvm::StringRef(message.str()).rtrim());
            })))
      return mlir::failure();
    replicatePass = std::move(replicate);
  }
  // The devices first, so that --gplace-replicate checks its own.
  AssignDevicesPassOptions assign;
  assign.devices = options.devices;
  assign.gpuMemoryLimit = options.gpuMemoryLimit;
  if (runtimeDevices) {
    // The runtime's devices, with gpu-memory-limit applied on top.
    pm.addPass(createAssignDevicesPass(std::move(*runtimeDevices)));
    assign.devices = "";
    if (options.gpuMemoryLimit != 0)
      pm.addPass(createAssignDevicesPass(assign));
  } else {
    pm.addPass(createAssignDevicesPass(assign));
  }
  // Control-flow regions into functions of their own, which every later
  // pass treats as any function (TensorFlow's functional If and While).
  pm.addPass(createOutlineControlFlowPass());
  // Composite ops into ops with kernels, before anything differentiates
  // or places them.
  pm.addPass(createDecomposePass());
  // Mixed precision on the forward graph, before anything clones it
  // (micro-batches, replicas, stages) or differentiates it: the backward
  // graph follows the casts.
  if (!options.mixedPrecision.empty()) {
    if (options.mixedPrecision != "bf16" && options.mixedPrecision != "f16") {
      return report("mixed-precision must be bf16 or f16, not '" +
                    options.mixedPrecision + "'");
    }
    AutoMixedPrecisionPassOptions precision;
    precision.type = options.mixedPrecision;
    precision.lossScale = options.lossScale;
    pm.addPass(createAutoMixedPrecisionPass(precision));
  } else if (!options.lossScale.empty()) {
    return report(
        "loss-scale applies to mixed precision: give mixed-precision too");
  }
  // Micro-batches first, so that replicas (--replicas) each accumulate
  // over their own slice.
  if (options.accumulateSteps > 1) {
    AccumulateGradientsPassOptions accumulate;
    accumulate.steps = options.accumulateSteps;
    pm.addPass(createAccumulateGradientsPass(accumulate));
  }
  if (options.pipelineStages > 0) {
    PipelineParallelPassOptions pipeline;
    pipeline.microbatches = options.microbatches;
    pipeline.schedule = options.schedule;
    pipeline.stages = options.pipelineStages;
    pipeline.split = options.pipelineSplit;
    pipeline.profile = options.placementProfile;
    pipeline.printStages = log;
    pipeline.replicas = std::max<unsigned>(options.replicas, 1);
    // A replicated pipeline keeps each variable once (shared) unless
    // replica-variables=mirrored is asked for explicitly; the pass refuses
    // anything else (host).
    if (options.replicaVariables.hasValue())
      pipeline.variables = options.replicaVariables;
    pm.addPass(createPipelineParallelPass(pipeline));
  }
  if (replicatePass)
    pm.addPass(std::move(replicatePass));
  pm.addPass(createDifferentiatePass());
  // The gradients of gplace.if and gplace.while are ops with regions:
  // outlined as the forward ones were.
  pm.addPass(createOutlineControlFlowPass());
  // rematerialize=auto chooses what to recompute once the ops have their
  // devices (after placement, below); a regex names it here.
  bool autoRemat = options.rematerialize == "auto";
  if (!options.rematerialize.empty() && !autoRemat) {
    RematerializePassOptions remat;
    remat.scopes = options.rematerialize;
    pm.addPass(createRematerializePass(remat));
  }
  LowerAllReducePassOptions lowerAllReduce;
  lowerAllReduce.algorithm = options.allReduce;
  pm.addPass(createLowerAllReducePass(lowerAllReduce));
  // Fusions that have no gradient: after differentiation, before placement
  // (TensorFlow runs Grappler's remapper on the whole training graph).
  // The layout first, so that the remapper sees NHWC convolutions.
  if (options.layoutOptimizer)
    pm.addPass(createLayoutPass());
  if (options.remapping)
    pm.addPass(createRemapPass());
  // Constant subgraphs (shape computations, a batch norm folded into a
  // filter) become constants before anything is placed.
  if (options.foldConstants)
    pm.addPass(createFoldConstantsPass());
  // Requests by name: on the graph placement sees, the replicas' and the
  // gradients' ops included (names as the placement log prints them).
  if (!options.assignByName.empty()) {
    AssignByNamePassOptions byName;
    byName.rules = options.assignByName;
    pm.addPass(createAssignByNamePass(byName));
  }
  PlacePassOptions place;
  // Towers are placed softly, as under MirroredStrategy (Keras and
  // tf.distribute turn soft placement on): --gplace-replicate marks the
  // functions it replicates (gplace.allow_soft_placement), so that a
  // tower's op without a GPU kernel (cast) runs on the CPU; it leaves no
  // other request there. Functions it leaves alone keep the option's.
  place.allowSoftPlacement = options.allowSoftPlacement;
  place.policy = options.policy;
  place.profile = options.placementProfile;
  place.logDevicePlacement = log;
  pm.addPass(createPlacePass(place));
  pm.addPass(createVerifyPlacementPass());
  if (autoRemat) {
    // The estimate sees the order and the sharing the plan will have: the
    // updates moved up (the pass runs again below, after the copies) and
    // results in their operands' memory.
    if (options.earlyUpdates)
      pm.addPass(createEarlyUpdatesPass());
    RematerializePassOptions remat;
    remat.automatic = true;
    remat.profile = options.placementProfile;
    remat.print = log;
    remat.reserve = trial.rematerializeReserve;
    remat.inPlace = options.inPlace;
    pm.addPass(createRematerializePass(remat));
  }
  pm.addPass(createInsertCopiesPass());
  // A pipeline's stages are known once placed: order their units, the
  // copies into each stage with them.
  if (options.pipelineStages > 0) {
    SchedulePipelinePassOptions order;
    order.print = log;
    pm.addPass(createSchedulePipelinePass(order));
  }
  if (options.earlyUpdates)
    pm.addPass(createEarlyUpdatesPass());
  InsertControlDepsPassOptions controlDeps;
  controlDeps.maxInflightCopies = options.maxInflightCopies;
  pm.addPass(createInsertControlDepsPass(controlDeps));
  if (!options.cluster.empty()) {
    PartitionTasksPassOptions partition;
    partition.cluster = options.cluster;
    pm.addPass(createPartitionTasksPass(partition));
  }
  buildLowerToPlanPipeline(pm, options.fuseElementwise, options.inPlace);
  if (options.printMemoryPlan && !trial.quiet)
    pm.addPass(createPrintMemoryPlanPass());
  return mlir::success();
}

void gplace::registerGPlacePipelines() {
  // Registered by hand, not with PassPipelineRegistration, so that a bad
  // `replicate` option string fails the pipeline's parsing.
  mlir::registerPassPipeline(
      "gplace-pipeline",
      "Assign devices, place, verify, insert copies and control "
      "dependencies, and lower to a plan",
      [](mlir::OpPassManager &pm, llvm::StringRef optionsString,
         llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
             errorHandler) {
        PipelineOptions options;
        if (failed(options.parseFromString(optionsString)))
          return mlir::failure();
        return buildGPlacePipeline(pm, options, {}, errorHandler);
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>
             optionsHandler) { optionsHandler(PipelineOptions()); });
  mlir::PassPipelineRegistration<>(
      "gplace-lower-to-plan",
      "Lower a placed graph to a complete plan: convert, schedule, fuse, "
      "plan memory, verify",
      [](mlir::OpPassManager &pm) { buildLowerToPlanPipeline(pm); });
}
