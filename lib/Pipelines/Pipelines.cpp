//===- Pipelines.cpp - gplace's pass pipelines ----------------------------===//

#include "gplace/Pipelines/Pipelines.h"

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

void gplace::buildLowerToPlanPipeline(mlir::OpPassManager &pm, bool fuse) {
  pm.addPass(createConvertGraphToPlanPass());
  pm.addPass(createSchedulePlanPass());
  if (fuse)
    pm.addPass(createFuseElementwisePass());
  pm.addPass(createPlanMemoryPass());
  pm.addPass(createVerifyPlanPass());
}

void gplace::buildGPlacePipeline(mlir::OpPassManager &pm,
                                 const PipelineOptions &options,
                                 std::optional<DeviceSet> runtimeDevices) {
  // Training graphs: towers first (one per replica), then gplace.gradients
  // becomes the backward graph, before anything is placed.
  if (options.replicas > 0) {
    ReplicatePassOptions replicate;
    replicate.replicas = options.replicas;
    replicate.variables = options.replicaVariables;
    pm.addPass(createReplicatePass(replicate));
  }
  pm.addPass(createDifferentiatePass());
  pm.addPass(createLowerAllReducePass());
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
  PlacePassOptions place;
  // Towers are placed softly, as under MirroredStrategy (Keras and
  // tf.distribute turn soft placement on): a tower's op without a GPU
  // kernel (cast) runs on the CPU. The pass leaves no other request.
  place.allowSoftPlacement = options.allowSoftPlacement || options.replicas > 0;
  place.policy = options.policy;
  place.logDevicePlacement = options.logDevicePlacement;
  pm.addPass(createPlacePass(place));
  pm.addPass(createVerifyPlacementPass());
  pm.addPass(createInsertCopiesPass());
  InsertControlDepsPassOptions controlDeps;
  controlDeps.maxInflightCopies = options.maxInflightCopies;
  pm.addPass(createInsertControlDepsPass(controlDeps));
  buildLowerToPlanPipeline(pm, options.fuseElementwise);
}

void gplace::registerGPlacePipelines() {
  mlir::PassPipelineRegistration<PipelineOptions>(
      "gplace-pipeline",
      "Assign devices, place, verify, insert copies and control "
      "dependencies, and lower to a plan",
      [](mlir::OpPassManager &pm, const PipelineOptions &options) {
        buildGPlacePipeline(pm, options);
      });
  mlir::PassPipelineRegistration<>(
      "gplace-lower-to-plan",
      "Lower a placed graph to a complete plan: convert, schedule, fuse, "
      "plan memory, verify",
      [](mlir::OpPassManager &pm) { buildLowerToPlanPipeline(pm); });
}
