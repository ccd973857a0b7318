//===- gplace-translate.cpp - gplace's translations -----------------------===//
//
// gplace's translations: --import-onnx reads an ONNX model and prints the
// graph it becomes (docs/onnx.md), with MLIR's printing options
// (--mlir-print-*, --mlir-elide-elementsattrs-if-larger).
//
//   gplace-translate --import-onnx model.onnx -o model.mlir
//
// Not mlir-translate's driver: that opens -o before translating, so a
// model that fails to import truncated and then deleted an existing file.
// Here the file is written only once the import succeeded, whole, through
// a temporary file beside it (tooling::writeFileAtomically).
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Target/ONNX/ImportONNX.h"
#include "gplace/Tooling/CommandLine.h"
#include "gplace/Tooling/Outputs.h"
#include "gplace/Tooling/Report.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

// The importer's own options (--dim, --initializers-as-variables) come with
// it (gplace::frontend::onnxImportCategory); these are the tool's.
static cl::OptionCategory category("gplace-translate options");
static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<model.onnx>"), cl::init("-"),
                                      cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<bool>
    importOnnx("import-onnx",
               cl::desc("Import an ONNX model as a gplace graph"),
               cl::cat(category));
static cl::opt<std::string>
    entry("entry", cl::desc("The name of the imported function (default: main)"),
          cl::init("main"), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "gplace-translate") << message << "\n";
  return 1;
}

static int run(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  gplace::tooling::hideLibraryOptions(
      {&category, &gplace::frontend::onnxImportCategory()});
  cl::ParseCommandLineOptions(argc, argv, "gplace translation tool\n");
  if (!importOnnx)
    return fail("choose a translation: --import-onnx");

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  mlir::DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  gplace::frontend::OnnxImportOptions options =
      gplace::frontend::onnxImportOptionsFromFlags();
  options.entry = entry;
  mlir::OwningOpRef<mlir::ModuleOp> module = gplace::frontend::importOnnxModel(
      input->getBuffer(), input->getBufferIdentifier(), &context, options);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 1; // The diagnostics are printed; no file is touched.

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  os << "\n";
  if (outputFile == "-") {
    llvm::outs() << text;
    return 0;
  }
  if (gplace::runtime::Status written =
          gplace::tooling::writeFileAtomically(outputFile, text);
      !written)
    return fail(written.message());
  return 0;
}

int main(int argc, char **argv) {
  return gplace::tooling::finishStdout("gplace-translate", run(argc, argv));
}
