//===- Passes.h - gplace conversion passes ----------------------*- C++ -*-===//
//
// --gplace-convert-graph-to-plan; its factory and
// registerGPlaceConversionPasses() are generated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_CONVERSION_PASSES_H
#define GPLACE_CONVERSION_PASSES_H

#include "gplace/Dialect/Plan/PlanDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace gplace {

#define GEN_PASS_DECL
#include "gplace/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gplace/Conversion/Passes.h.inc"

} // namespace gplace

#endif // GPLACE_CONVERSION_PASSES_H
