//===- Compile.cpp - compile a graph to a runtime plan --------------------===//

#include "gplace/Tooling/Compile.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Target/Plan/PlanExport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

rt::Status gplace::tooling::selectEntry(ModuleOp module, llvm::StringRef entry,
                                        llvm::StringRef fileName) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func) {
    SmallVector<std::string> names;
    for (auto f : module.getOps<func::FuncOp>())
      names.push_back("@" + f.getSymName().str());
    return rt::Status::invalidArgument(
        "no function @" + entry.str() + " in " + fileName.str() +
        " (functions: " +
        (names.empty() ? std::string("none") : llvm::join(names, ", ")) +
        "); choose one with --entry");
  }
  // The functions the entry calls, transitively.
  llvm::SmallPtrSet<Operation *, 8> kept = {func};
  SmallVector<func::FuncOp> worklist = {func};
  while (!worklist.empty()) {
    func::FuncOp caller = worklist.pop_back_val();
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&caller.getBody());
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses)
      if (auto callee = module.lookupSymbol<func::FuncOp>(
              use.getSymbolRef().getRootReference()))
        if (kept.insert(callee).second) {
          callee.setPrivate();
          worklist.push_back(callee);
        }
  }
  for (auto other : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!kept.contains(other))
      other.erase();
  return rt::Status::ok();
}

bool gplace::tooling::usesPolicy(ModuleOp module,
                                 const CompileOptions &options,
                                 llvm::StringRef name) {
  if (options.policy == name)
    return true;
  for (auto func : module.getOps<func::FuncOp>())
    if (auto policy = func->getAttrOfType<StringAttr>(
            graph::GraphDialect::getDevicePolicyAttrName()))
      if (policy.getValue() == name)
        return true;
  return false;
}

FailureOr<rt::Plan> gplace::tooling::compileToPlan(ModuleOp module,
                                                   const DeviceSet &devices,
                                                   const CompileOptions &options) {
  // A graph in, a plan out: plan ops already in the input would be
  // exported in place of the entry's program (a hand-written gplan.program
  // ran instead of @main, unchecked).
  WalkResult planOps = module.walk([](Operation *op) {
    if (!isa_and_nonnull<plan::PlanDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' is a plan op: gplace-run takes a graph (gplace ops "
                       "in functions) and makes the plan itself";
    return WalkResult::interrupt();
  });
  if (planOps.wasInterrupted())
    return failure();
  PassManager pm(module.getContext());
  pm.enableVerifier(options.verifyEachPass);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  PipelineOptions pipeline;
  pipeline.allowSoftPlacement = options.allowSoftPlacement;
  pipeline.policy = options.policy;
  pipeline.assignByName = options.assignByName;
  pipeline.profile = options.profile;
  pipeline.logDevicePlacement = options.logDevicePlacement;
  pipeline.maxInflightCopies = options.maxInflightCopies;
  pipeline.fuseElementwise = options.fuseElementwise;
  pipeline.layoutOptimizer = options.layoutOptimizer;
  pipeline.remapping = options.remapping;
  pipeline.foldConstants = options.foldConstants;
  pipeline.replicas = options.replicas;
  pipeline.replicaVariables = options.replicaVariables;
  pipeline.allReduce = options.allReduce;
  pipeline.replicate = options.replicate;
  pipeline.cluster = options.cluster;
  // Calls are inlined, and the callees, private, dropped.
  if (module.walk([](CallOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted()) {
    pm.addPass(createInlinerPass());
    pm.addPass(createSymbolDCEPass());
  }
  if (failed(buildGPlacePipeline(
          pm, pipeline, devices, [&](const llvm::Twine &message) {
            return emitError(module.getLoc()) << message;
          })))
    return failure();
  if (options.printMemoryPlan)
    pm.addPass(createPrintMemoryPlanPass());
  if (failed(pm.run(module)))
    return failure();
  auto programs = module.getOps<plan::ProgramOp>();
  if (programs.empty())
    return emitError(module.getLoc()) << "the module has no function to run";
  return exportPlan(module, (*programs.begin()).getSymName());
}

bool gplace::tooling::exceedsMemoryLimit(ModuleOp module) {
  return llvm::any_of(module.getOps<plan::DeviceOp>(), [](plan::DeviceOp device) {
    int64_t limit = device.getMemoryLimitAttr().getInt();
    IntegerAttr peak = device.getPeakBytesAttr();
    return limit > 0 && peak && peak.getInt() > limit;
  });
}
