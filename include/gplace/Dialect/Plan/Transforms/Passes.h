//===- Passes.h - passes over gplan plans -----------------------*- C++ -*-===//
//
// Factories and registerGPlacePlanPasses(), generated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_PLAN_TRANSFORMS_PASSES_H
#define GPLACE_DIALECT_PLAN_TRANSFORMS_PASSES_H

#include "gplace/Dialect/Plan/PlanDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace gplace {

#define GEN_PASS_DECL
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gplace/Dialect/Plan/Transforms/Passes.h.inc"

} // namespace gplace

#endif // GPLACE_DIALECT_PLAN_TRANSFORMS_PASSES_H
