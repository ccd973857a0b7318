//===- Compile.cpp - compile a graph to a runtime plan --------------------===//

#include "gplace/Tooling/Compile.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/Transforms/Liveness.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Runtime/Device.h"
#include "gplace/Target/Plan/PlanExport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

//===----------------------------------------------------------------------===//
// Flags
//===----------------------------------------------------------------------===//

const llvm::cl::OptionCategory &gplace::tooling::compileCategory() {
  static llvm::cl::OptionCategory category("Compile options (the options of "
                                           "--gplace-pipeline)");
  return category;
}

namespace {
/// --gplace-pipeline's options, each also a top-level flag: an option is
/// taken out of the parser, given the top-level command line as a second
/// place, and put back, so that one llvm::cl option serves both
/// `--policy=auto` and `--gplace-pipeline="policy=auto"`.
struct CompileFlags : PipelineOptions {
  CompileFlags() {
    auto &category = const_cast<llvm::cl::OptionCategory &>(compileCategory());
    SmallVector<llvm::cl::Option *> exposed;
    for (auto &entry : OptionsMap)
      if (!llvm::is_contained({"devices", "gpu-memory-limit", "cluster"},
                              entry.first()))
        exposed.push_back(entry.second);
    for (llvm::cl::Option *option : exposed) {
      option->removeArgument();
      option->addSubCommand(llvm::cl::SubCommand::getTopLevel());
      option->addCategory(category);
      option->addArgument();
    }
    // After the move: an alias takes its option's places.
    gpuFusion.emplace("gpu-fusion",
                      llvm::cl::desc("Another name of --fuse-elementwise"),
                      llvm::cl::aliasopt(fuseElementwise),
                      llvm::cl::cat(category));
  }
  std::optional<llvm::cl::alias> gpuFusion;
  llvm::cl::opt<bool> verifyEach{
      "verify-each",
      llvm::cl::desc("Run MLIR's verifier after every compiler pass (off by "
                     "default; the plan is verified either way)"),
      llvm::cl::init(false),
      llvm::cl::cat(const_cast<llvm::cl::OptionCategory &>(compileCategory()))};
  llvm::cl::list<std::string> loadPolicies{
      "load-policy",
      llvm::cl::desc("Load placement policies from a shared library"),
      llvm::cl::value_desc("lib.so"),
      llvm::cl::cat(const_cast<llvm::cl::OptionCategory &>(compileCategory()))};
};
} // namespace

static CompileFlags &compileFlags() {
  static CompileFlags *flags = new CompileFlags; // Lives as long as LLVM's
                                                 // parser refers to it.
  return *flags;
}

void gplace::tooling::registerCompileFlags() { (void)compileFlags(); }

PipelineOptions &gplace::tooling::pipelineFlags() { return compileFlags(); }

bool gplace::tooling::verifyEachFlag() { return compileFlags().verifyEach; }

rt::Status gplace::tooling::checkCompileFlags() {
  CompileFlags &flags = compileFlags();
  if (flags.replicas.getNumOccurrences() && flags.replicas == 0)
    return rt::Status::invalidArgument(
        "--replicas must be at least 1 (without it, nothing is replicated)");
  bool replicated = flags.replicas > 0 || !flags.replicate.empty();
  for (llvm::cl::Option *option : {static_cast<llvm::cl::Option *>(
                                       &flags.replicaVariables),
                                   static_cast<llvm::cl::Option *>(
                                       &flags.allReduce)})
    if (option->getNumOccurrences() && !replicated)
      return rt::Status::invalidArgument(
          "--" + option->ArgStr.str() +
          " applies to replicas: give --replicas=N or --replicate too");
  bool pipelined = flags.pipelineStages > 0;
  for (llvm::cl::Option *option :
       {static_cast<llvm::cl::Option *>(&flags.microbatches),
        static_cast<llvm::cl::Option *>(&flags.schedule),
        static_cast<llvm::cl::Option *>(&flags.pipelineSplit)})
    if (option->getNumOccurrences() && !pipelined)
      return rt::Status::invalidArgument(
          "--" + option->ArgStr.str() +
          " applies to pipeline parallelism: give --pipeline-stages=K too");
  if (pipelined && flags.microbatches == 0)
    return rt::Status::invalidArgument("--microbatches must be at least 1");
  if (pipelined && flags.schedule != "gpipe" && flags.schedule != "1f1b")
    return rt::Status::invalidArgument(
        "--schedule must be gpipe or 1f1b, not '" + flags.schedule + "'");
  if (pipelined && flags.pipelineSplit != "placement" &&
      flags.pipelineSplit != "auto")
    return rt::Status::invalidArgument(
        "--pipeline-split must be placement or auto, not '" +
        flags.pipelineSplit + "'");
  if (pipelined && !flags.replicate.empty())
    return rt::Status::invalidArgument(
        "--replicate and --pipeline-stages: give --replicas=N to replicate "
        "the pipeline (each replica on its own K GPUs)");
  // A replicated pipeline's variables: shared (once, on replica 0's
  // stages, the default) or mirrored (a copy per replica, all-reduced).
  bool mirroredPipeline = pipelined &&
                          flags.replicaVariables.getNumOccurrences() &&
                          flags.replicaVariables == "mirrored";
  if (pipelined && flags.replicaVariables.getNumOccurrences() &&
      !mirroredPipeline)
    return rt::Status::invalidArgument(
        "--replica-variables=" + flags.replicaVariables +
        " does not apply to a replicated pipeline: its variables stay on "
        "replica 0's stages (the default) or, with "
        "--replica-variables=mirrored, each replica's stages keep a copy");
  if (pipelined && flags.allReduce.getNumOccurrences() && !mirroredPipeline)
    return rt::Status::invalidArgument(
        "--all-reduce applies to a replicated pipeline's mirrored variables: "
        "give --replica-variables=mirrored too (by default its variables stay "
        "on replica 0's stages, which sum every replica's gradients)");
  if (flags.mixedPrecision.getNumOccurrences() &&
      flags.mixedPrecision != "bf16" && flags.mixedPrecision != "f16")
    return rt::Status::invalidArgument(
        "--mixed-precision must be bf16 or f16, not '" +
        flags.mixedPrecision + "'");
  if (flags.lossScale.getNumOccurrences() && flags.mixedPrecision.empty())
    return rt::Status::invalidArgument(
        "--loss-scale applies to mixed precision: give --mixed-precision=f16 "
        "too");
  if (flags.lossScale.getNumOccurrences() && flags.lossScale != "dynamic" &&
      flags.lossScale != "none")
    return rt::Status::invalidArgument(
        "--loss-scale must be dynamic or none, not '" + flags.lossScale + "'");
  if (pipelined && flags.accumulateSteps > 1)
    return rt::Status::invalidArgument(
        "--accumulate-steps and --pipeline-stages both split the batch into "
        "micro-batches: give --microbatches=M alone (a pipeline accumulates "
        "its micro-batches' gradients)");
  return rt::Status::ok();
}

rt::StatusOr<std::unique_ptr<PolicyRegistry>>
gplace::tooling::policiesFromFlags() {
  auto policies = std::make_unique<PolicyRegistry>();
  registerBuiltinPolicies(*policies);
  for (const std::string &path : compileFlags().loadPolicies) {
    if (path.empty())
      return rt::Status::invalidArgument("--load-policy needs a file name");
    std::string error;
    if (!loadPolicyPlugin(path, *policies, &error))
      return rt::Status::invalidArgument(error);
  }
  return policies;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

rt::Status gplace::tooling::selectEntry(ModuleOp module, llvm::StringRef entry,
                                        llvm::StringRef fileName,
                                        llvm::StringRef flag) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func) {
    SmallVector<std::string> names;
    for (auto f : module.getOps<func::FuncOp>())
      names.push_back("@" + f.getSymName().str());
    return rt::Status::invalidArgument(
        "no function @" + entry.str() + " in " + fileName.str() +
        " (functions: " +
        (names.empty() ? std::string("none") : llvm::join(names, ", ")) +
        "); choose one with " + flag.str());
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

rt::Status gplace::tooling::checkDevicesFor(const PipelineOptions &options,
                                            const DeviceSet &devices) {
  unsigned gpus = 0;
  for (const DeviceName &device : devices.devices())
    gpus += device.type == DeviceType::GPU;
  if (gpus < options.replicas)
    return rt::Status::invalidArgument(
        "--replicas=" + std::to_string(options.replicas) + " needs " +
        std::to_string(options.replicas) + " GPUs; this process has " +
        std::to_string(gpus));
  return rt::Status::ok();
}

bool gplace::tooling::usesPolicy(ModuleOp module,
                                 const PipelineOptions &options,
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

FailureOr<rt::Plan>
gplace::tooling::compileToPlan(ModuleOp module, const DeviceSet &devices,
                               const PipelineOptions &options,
                               bool verifyEachPass) {
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
  // The pipeline on `target`, under `trial`.
  auto compile = [&](ModuleOp target, const PipelineTrial &trial) {
    PassManager pm(target.getContext());
    pm.enableVerifier(verifyEachPass);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    if (!trial.quiet)
      applyDefaultTimingPassManagerCLOptions(pm);
    // Calls are inlined, and the callees, private, dropped.
    if (target.walk([](CallOpInterface) { return WalkResult::interrupt(); })
            .wasInterrupted()) {
      pm.addPass(createInlinerPass());
      pm.addPass(createSymbolDCEPass());
    }
    if (failed(buildGPlacePipeline(
            pm, options, devices,
            [&](const llvm::Twine &message) {
              return emitError(target.getLoc()) << message;
            },
            trial)))
      return failure();
    return pm.run(target);
  };
  PipelineTrial trial;
  bool compiled = false;
  if (options.rematerialize == "auto") {
    // The pass chooses against its own estimate, which leaves out what the
    // plan adds (workspaces, packing): compile a copy, quietly, and while
    // the plan misses a device's limit that the estimate met, leave that
    // many more bytes free under the limits and choose again (at most 6
    // tries; the last one's choice is compiled for real).
    // A first quiet compile that fits is the plan itself where the real
    // one would print nothing more (no placement log, memory plan,
    // --mlir-timing or diagnostic): keep it rather than compile twice.
    auto &registered = llvm::cl::getRegisteredOptions();
    auto timing = registered.find("mlir-timing");
    bool printsNothing =
        !options.logDevicePlacement && !options.printMemoryPlan &&
        (timing == registered.end() ||
         timing->second->getNumOccurrences() == 0);
    for (int attempt = 0; attempt < 6; ++attempt) {
      OwningOpRef<ModuleOp> copy = module.clone();
      PipelineTrial quiet = trial;
      quiet.quiet = true;
      // Per device that missed its limit: the reserve that makes the
      // estimate go below what it reached by as many bytes as the plan
      // missed by (or, where it met its limit without recomputing, the
      // reserve plus the miss).
      int64_t reserve = 0;
      bool estimateMet = true;
      {
        bool spoke = false;
        ScopedDiagnosticHandler silence(module.getContext(),
                                        [&](Diagnostic &) {
                                          spoke = true;
                                          return success();
                                        });
        if (succeeded(compile(*copy, quiet))) {
          if (attempt == 0 && printsNothing && !spoke) {
            module->setAttrs((*copy)->getAttrDictionary());
            module.getBodyRegion().takeBody(copy->getBodyRegion());
            compiled = true;
          }
          break;
        }
        auto tried =
            (*copy)->getAttrOfType<ArrayAttr>("gplace.rematerialized");
        for (plan::DeviceOp device : copy->getOps<plan::DeviceOp>()) {
          int64_t limit = device.getMemoryLimitAttr().getInt();
          IntegerAttr peak = device.getPeakBytesAttr();
          if (limit <= 0 || !peak || peak.getInt() <= limit)
            continue;
          int64_t missedBy = peak.getInt() - limit;
          int64_t needed = trial.rematerializeReserve + missedBy;
          auto entries = tried ? tried.getValue() : ArrayRef<Attribute>();
          for (auto entry : llvm::map_range(entries, [](Attribute a) {
                 return cast<DictionaryAttr>(a);
               }))
            if (auto name = entry.getAs<StringAttr>("device");
                name && name.getValue() == device.getDeviceName()) {
              auto after = entry.getAs<IntegerAttr>("estimated_after");
              auto target = entry.getAs<IntegerAttr>("target");
              // The estimate could not meet its target: leaving more
              // free recomputes nothing more.
              if (!after || !target || after.getInt() > target.getInt())
                estimateMet = false;
              else
                needed = std::max(needed,
                                  limit - (after.getInt() - missedBy));
            }
          reserve = std::max(reserve, needed);
        }
      }
      if (reserve <= trial.rematerializeReserve || !estimateMet)
        break; // Another error, or nothing more to recompute.
      trial.rematerializeReserve = reserve;
    }
  }
  if (!compiled && failed(compile(module, trial)))
    return failure();
  auto programs = module.getOps<plan::ProgramOp>();
  if (programs.empty())
    return emitError(module.getLoc()) << "the module has no function to run";
  FailureOr<runtime::Plan> exported =
      exportPlan(module, (*programs.begin()).getSymName());
  if (failed(exported))
    return failure();
  // Each device's liveness lower bound, as --gplace-print-memory-plan
  // prints it: its persistent bytes plus its arena's bound.
  FailureOr<DenseMap<StringAttr, int64_t>> bounds =
      plan::arenaLowerBounds(module);
  if (failed(bounds))
    return failure();
  llvm::StringMap<int64_t> byName;
  for (plan::DeviceOp device : module.getOps<plan::DeviceOp>())
    byName[device.getDeviceName()] = bounds->lookup(device.getSymNameAttr());
  for (runtime::DeviceDesc &device : exported->devices)
    device.livenessBoundBytes =
        device.persistentBytes + byName.lookup(device.name);
  return exported;
}

bool gplace::tooling::exceedsMemoryLimit(ModuleOp module) {
  if (int64_t usable = rt::usableHostMemoryBytes();
      usable > 0 && planHostMemoryMiB(module) > usable / (1 << 20))
    return true;
  return llvm::any_of(module.getOps<plan::DeviceOp>(), [](plan::DeviceOp device) {
    int64_t limit = device.getMemoryLimitAttr().getInt();
    IntegerAttr peak = device.getPeakBytesAttr();
    return limit > 0 && peak && peak.getInt() > limit;
  });
}
