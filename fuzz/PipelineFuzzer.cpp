//===- PipelineFuzzer.cpp - parse, verify and lower arbitrary text --------===//
//
// Parses the input as a gplace module (the graph and plan dialects, func)
// and, if it parses and verifies, runs --gplace-pipeline for a CPU and two
// GPUs and exports every program as gplace-run would. Diagnostics are
// discarded: any outcome but a crash, a sanitizer report or a hang is fine.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Target/Plan/PlanExport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                  mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  gplace::PipelineOptions options;
  if (mlir::failed(gplace::buildGPlacePipeline(
          pm, options, gplace::DeviceSet::localhost(1, 2))))
    return 0;
  if (mlir::failed(pm.run(*module)))
    return 0;
  for (auto program : module->getOps<gplace::plan::ProgramOp>())
    (void)gplace::exportPlan(*module, program.getSymName());
  return 0;
}
