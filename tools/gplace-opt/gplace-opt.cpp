//===- gplace-opt.cpp - gplace's pass driver ------------------------------===//
//
// MlirOptMain with the gplace dialect, the func dialect and gplace's passes:
//   gplace-opt input.mlir --gplace-place="devices=cpu:1,gpu:4"
// plus two options of its own:
//   --gplace-list-kernels        print the kernel registry and exit
//   --gplace-load-policy=lib.so  load placement policies from a plugin
//
//===----------------------------------------------------------------------===//

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Support/SourceNesting.h"
#include "gplace/Target/Plan/PlanExport.h"
#include "gplace/Transforms/Passes.h"

#include "gplace/Tooling/CommandLine.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>

static llvm::cl::OptionCategory category("gplace-opt options");

static llvm::cl::opt<bool>
    listKernels("gplace-list-kernels",
                llvm::cl::desc("Print the kernel registry (which op and "
                               "element type runs on CPU and GPU) and exit"),
                llvm::cl::init(false), llvm::cl::cat(category));

static llvm::cl::list<std::string> loadPolicies(
    "gplace-load-policy",
    llvm::cl::desc("Load placement policies from a shared library (see "
                   "docs/placement.md); may be repeated"),
    llvm::cl::value_desc("lib.so"), llvm::cl::cat(category));

int main(int argc, char **argv) {
  // OpenBLAS's threads, spinning from load on, would take a core from
  // MLIR's threads (its kernels run here only to size workspaces).
  gplace::runtime::stopIdleBlasThreads();
  mlir::DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                  mlir::func::FuncDialect>();
  gplace::registerGPlacePasses();
  gplace::registerGPlaceConversionPasses();
  gplace::registerGPlacePlanPasses();
  gplace::registerGPlacePipelines();
  // Generic cleanups users expect from an -opt tool.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  // Function calls: placement takes one function at a time, so calls are
  // inlined first (`--inline --symbol-dce`).
  mlir::registerInlinerPass();
  mlir::func::registerInlinerExtension(registry);
  // --gplace-size-workspaces asks the host kernels, as in gplace-run, so
  // that gplace-run's IR compiles here to the same plan.
  gplace::registerHostWorkspaces(registry);

  // --help lists gplace-opt's, MLIR's and the passes' options, not what
  // LLVM's libraries register.
  gplace::tooling::hideLibraryOptions({&category});
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "gplace pass driver\n", registry);
  if (listKernels) {
    gplace::KernelRegistry::global().print(std::cout);
    return 0;
  }
  // The built-in policies and the plugins' reach --gplace-place through the
  // graph dialect of the context MlirOptMain makes.
  gplace::PolicyRegistry policies;
  gplace::registerBuiltinPolicies(policies);
  for (const std::string &path : loadPolicies) {
    std::string error;
    if (!gplace::loadPolicyPlugin(path, policies, &error)) {
      llvm::errs() << "gplace-opt: " << error << "\n";
      return 1;
    }
  }
  registry.addExtension<gplace::graph::GraphDialect>(
      std::function<void(mlir::MLIRContext *, gplace::graph::GraphDialect *)>(
          [&policies](mlir::MLIRContext *,
                      gplace::graph::GraphDialect *dialect) {
            dialect->setPolicies(&policies);
          }));
  // MlirOptMain(argc, argv, ...)'s own steps, with the input's nesting
  // checked before MLIR's parser recurses into it (SourceNesting.h).
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (std::optional<gplace::DeepNesting> deep =
          gplace::findDeepNesting(file->getBuffer())) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    sourceMgr.PrintMessage(
        llvm::SMLoc::getFromPointer(
            sourceMgr.getMemoryBuffer(1)->getBufferStart() + deep->offset),
        llvm::SourceMgr::DK_Error, gplace::deepNestingMessage());
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
