//===- gplace-translate.cpp - gplace's translations -----------------------===//
//
// MLIR's translate driver (mlir-translate's options: -o, --split-input-file,
// --mlir-print-*) with gplace's translations: --import-onnx reads an ONNX
// model and prints the graph it becomes (docs/onnx.md).
//
//   gplace-translate --import-onnx model.onnx -o model.mlir
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Target/ONNX/ImportONNX.h"

#include "gplace/Tooling/CommandLine.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

namespace cl = llvm::cl;

static cl::OptionCategory onnxCategory("ONNX import options (--import-onnx)");
static cl::opt<bool> initializersAsVariables(
    "initializers-as-variables",
    cl::desc("Import floating-point initializers as variables (trainable, "
             "checkpointed) instead of constants"),
    cl::init(false), cl::cat(onnxCategory));
static cl::list<std::string>
    dims("dim",
         cl::desc("Fix a dynamic dimension: NAME=N for ONNX's dim_param NAME, "
                  "or N for every input's leading (batch) dimension"),
         cl::value_desc("NAME=N"), cl::cat(onnxCategory));
static cl::opt<std::string>
    entry("entry", cl::desc("The name of the imported function (default: main)"),
          cl::init("main"), cl::cat(onnxCategory));

int main(int argc, char **argv) {
  mlir::TranslateToMLIRRegistration importOnnx(
      "import-onnx", "Import an ONNX model as a gplace graph",
      [](llvm::SourceMgr &sourceMgr,
         mlir::MLIRContext *context) -> mlir::OwningOpRef<mlir::Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        gplace::frontend::OnnxImportOptions options;
        options.initializersAsVariables = initializersAsVariables;
        options.dims.assign(dims.begin(), dims.end());
        options.entry = entry;
        mlir::OwningOpRef<mlir::ModuleOp> module =
            gplace::frontend::importOnnxModel(buffer->getBuffer(),
                                              buffer->getBufferIdentifier(),
                                              context, options);
        return module ? mlir::OwningOpRef<mlir::Operation *>(module.release())
                      : nullptr;
      },
      [](mlir::DialectRegistry &registry) {
        registry.insert<gplace::graph::GraphDialect, mlir::func::FuncDialect>();
      });
  gplace::tooling::hideLibraryOptions({&onnxCategory});
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "gplace translation tool"));
}
