//===- Pipelines.cpp - gplace's pass pipeline
//------------------------------===//

#include "gplace/Pipelines/Pipelines.h"

#include "gplace/Conversion/Passes.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

void gplace::buildGPlacePipeline(mlir::OpPassManager &pm,
                                 const PipelineOptions &options) {
  PlacePassOptions place;
  place.devices = options.devices;
  place.allowSoftPlacement = options.allowSoftPlacement;
  place.policy = options.policy;
  place.logDevicePlacement = options.logDevicePlacement;
  pm.addPass(createPlacePass(place));
  pm.addPass(createVerifyPlacementPass());
  pm.addPass(createInsertCopiesPass());
  InsertControlDepsPassOptions controlDeps;
  controlDeps.maxInflightCopies = options.maxInflightCopies;
  pm.addPass(createInsertControlDepsPass(controlDeps));
  LowerToPlanPassOptions lower;
  lower.gpuMemoryLimit = options.gpuMemoryLimit;
  pm.addPass(createLowerToPlanPass(lower));
}

void gplace::registerGPlacePipelines() {
  mlir::PassPipelineRegistration<PipelineOptions>(
      "gplace-pipeline",
      "Place, verify, insert copies and control dependencies, and lower to "
      "a plan",
      buildGPlacePipeline);
}
