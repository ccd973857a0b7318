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

// The importer's own options (--dim, --initializers-as-variables) come with
// it (gplace::frontend::onnxImportCategory); this is the tool's.
static cl::OptionCategory category("gplace-translate options");
static cl::opt<std::string>
    entry("entry", cl::desc("The name of the imported function (default: main)"),
          cl::init("main"), cl::cat(category));

int main(int argc, char **argv) {
  mlir::TranslateToMLIRRegistration importOnnx(
      "import-onnx", "Import an ONNX model as a gplace graph",
      [](llvm::SourceMgr &sourceMgr,
         mlir::MLIRContext *context) -> mlir::OwningOpRef<mlir::Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        gplace::frontend::OnnxImportOptions options =
            gplace::frontend::onnxImportOptionsFromFlags();
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
  gplace::tooling::hideLibraryOptions(
      {&category, &gplace::frontend::onnxImportCategory()});
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "gplace translation tool"));
}
