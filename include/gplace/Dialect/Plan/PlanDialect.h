//===- PlanDialect.h - gplan, the executable plan ---------------*- C++ -*-===//
//
// The `gplan` dialect (dialects/plan/PlanOps.td): devices with their memory
// plan, programs of steps (launches, copies, events) on streams.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_PLAN_PLANDIALECT_H
#define GPLACE_DIALECT_PLAN_PLANDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "gplace/Dialect/Plan/PlanDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Plan/PlanTypes.h.inc"

#define GET_OP_CLASSES
#include "gplace/Dialect/Plan/PlanOps.h.inc"

namespace gplace::plan {
/// The compute stream of a device (kernel launches).
constexpr int64_t kComputeStream = 0;
/// The stream that copies data into a device.
constexpr int64_t kCopyStream = 1;
} // namespace gplace::plan

#endif // GPLACE_DIALECT_PLAN_PLANDIALECT_H
