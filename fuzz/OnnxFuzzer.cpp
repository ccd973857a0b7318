//===- OnnxFuzzer.cpp - the ONNX importer on arbitrary bytes --------------===//
//
// Imports the input as an ONNX model (ONNX's parser, checker, version
// converter and shape inference, then gplace's mapping) and, if it
// imports, verifies the module and runs --gplace-pipeline for a CPU and two
// GPUs. Diagnostics are discarded: any outcome but a crash, a sanitizer
// report or a hang is fine; an imported module must verify.
//
// The input is also written to model.onnx in a directory of the process's
// own, which holds weights.bin (4 KiB: the floats 0 to 1023), so that a
// model whose tensors have external data (data_location EXTERNAL, entries
// location, offset, length: fuzz/onnx.dict) reads them, as gplace-run
// reads a model's external data next to it, and ONNX's checker, which
// reads such a model from its path, sees the same bytes.
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
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// model.onnx in the process's directory, made with its weights.bin once.
const std::string &modelPath() {
  static const std::string path = [] {
    const char *tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp ? tmp : "/tmp") + "/gplace-fuzz-onnx-" +
                      std::to_string(::getpid());
    ::mkdir(dir.c_str(), 0700);
    std::ofstream weights(dir + "/weights.bin",
                          std::ios::binary | std::ios::trunc);
    for (int i = 0; i < 1024; ++i) {
      float value = static_cast<float>(i);
      weights.write(reinterpret_cast<const char *>(&value), sizeof(value));
    }
    return dir + "/model.onnx";
  }();
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                  mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  {
    std::ofstream out(modelPath(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data),
              static_cast<std::streamsize>(size));
  }
  gplace::frontend::OnnxImportOptions options;
  options.dims = {"2"}; // Fixes a dynamic batch, as a user would.
  mlir::OwningOpRef<mlir::ModuleOp> module = gplace::frontend::importOnnxModel(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      modelPath(), &context, options);
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
