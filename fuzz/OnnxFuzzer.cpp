//===- OnnxFuzzer.cpp - the ONNX importer on arbitrary bytes --------------===//
//
// Imports the input as an ONNX model (ONNX's parser, checker, version
// converter and shape inference, then gplace's mapping) and, if it
// imports, verifies the module and runs --gplace-pipeline for a CPU and two
// GPUs. Diagnostics are discarded: any outcome but a crash, a sanitizer
// report or a hang is fine; an imported module must verify.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                  mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  gplace::frontend::OnnxImportOptions options;
  options.dims = {"2"}; // Fixes a dynamic batch, as a user would.
  mlir::OwningOpRef<mlir::ModuleOp> module = gplace::frontend::importOnnxModel(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.onnx", &context, options);
  if (!module)
    return 0;
  if (mlir::failed(mlir::verify(*module)))
    std::abort(); // The importer returned a module that does not verify.
  mlir::PassManager pm(&context);
  gplace::PipelineOptions pipeline;
  if (mlir::failed(gplace::buildGPlacePipeline(
          pm, pipeline, gplace::DeviceSet::localhost(1, 2))))
    return 0;
  (void)pm.run(*module);
  return 0;
}
