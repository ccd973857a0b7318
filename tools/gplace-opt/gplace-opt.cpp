//===- gplace-opt.cpp - gplace's pass driver
//-------------------------------===//
//
// MlirOptMain with the gplace dialect, the func dialect and gplace's passes:
//   gplace-opt input.mlir --gplace-verify-devices
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<gplace::graph::GraphDialect, mlir::func::FuncDialect>();
  gplace::registerGPlacePasses();
  // Generic cleanups users expect from an -opt tool.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gplace pass driver\n", registry));
}
