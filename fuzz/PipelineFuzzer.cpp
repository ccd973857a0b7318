//===- PipelineFuzzer.cpp - parse, verify and lower arbitrary text --------===//
//
// Parses the input as a gplace module (the graph and plan dialects, func)
// and, if it parses and verifies, runs --gplace-pipeline for a CPU and two
// GPUs and exports every program as gplace-run would. Diagnostics are
// discarded: any outcome but a crash, a sanitizer report or a hang is fine.
//
// An input whose first line is `// gplace-pipeline: OPTIONS` runs the
// pipeline with those options (--gplace-pipeline's, parsed by MLIR's
// PassPipelineOptions), so that the passes off by default (mixed
// precision, micro-batches, rematerialization, pipeline stages, replicas)
// are fuzzed too. Options that read files, print or start a cluster are
// refused, and counts are kept small (a hang on a million replicas is not
// a finding).
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Support/SourceNesting.h"
#include "gplace/Target/Plan/PlanExport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>

namespace {
constexpr llvm::StringLiteral kOptionsLine = "// gplace-pipeline:";

/// The pipeline's options from the input's first line, or the defaults;
/// null for an options line that does not parse or asks for something the
/// fuzzer leaves out.
std::unique_ptr<gplace::PipelineOptions> optionsOf(llvm::StringRef text) {
  auto options = std::make_unique<gplace::PipelineOptions>();
  if (!text.consume_front(kOptionsLine))
    return options;
  if (mlir::failed(options->parseFromString(text.split('\n').first.trim(),
                                            llvm::nulls())))
    return nullptr;
  if (!options->placementProfile.empty() || !options->cluster.empty() ||
      options->logDevicePlacement || options->printMemoryPlan ||
      options->replicas > 4 || options->accumulateSteps > 8 ||
      options->pipelineStages > 4 || options->microbatches > 8 ||
      !options->replicate.empty())
    return nullptr;
  return options;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                  mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  std::string text(reinterpret_cast<const char *>(data), size);
  std::unique_ptr<gplace::PipelineOptions> options = optionsOf(text);
  if (!options)
    return 0;
  // The tools refuse what MLIR's parser would recurse too deeply on
  // (SourceNesting.h).
  if (gplace::findDeepNesting(text))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  // Four GPUs for an options line (two pipeline stages of two replicas),
  // two otherwise.
  bool hasOptionsLine = llvm::StringRef(text).starts_with(kOptionsLine);
  if (mlir::failed(gplace::buildGPlacePipeline(
          pm, *options,
          gplace::DeviceSet::localhost(1, hasOptionsLine ? 4 : 2),
          [](const llvm::Twine &) { return mlir::failure(); })))
    return 0;
  if (mlir::failed(pm.run(*module)))
    return 0;
  for (auto program : module->getOps<gplace::plan::ProgramOp>())
    (void)gplace::exportPlan(*module, program.getSymName());
  return 0;
}
