//===- PlanExport.h - gplan IR to runtime::Plan -----------------*- C++ -*-===//
//
// The bridge from the compiler to the runtime, as mlir/Target exports to
// LLVM IR: reads a verified gplan module and builds the runtime's plan.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TARGET_PLAN_PLANEXPORT_H
#define GPLACE_TARGET_PLAN_PLANEXPORT_H

#include "gplace/Runtime/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace gplace {

/// Converts the program `programName` of `module` (the output of
/// --gplace-lower-to-plan) into a runtime::Plan: devices, buffers, steps and
/// events, kernel parameters normalised (negative axes resolved, slice
/// sizes of -1 resolved). Errors (a missing program, a kernel the runtime
/// does not know, a constant that is not dense) are emitted as diagnostics
/// at the offending op.
mlir::FailureOr<runtime::Plan> exportPlan(mlir::ModuleOp module,
                                          llvm::StringRef programName);

/// The runtime's element type of an MLIR element type, if it has one.
std::optional<ElementType> toElementType(mlir::Type type);

/// The runtime's tensor type of a ranked tensor type, if it has one.
std::optional<runtime::TensorType> toTensorType(mlir::Type type);

/// The values of a dense elements attribute in host memory.
mlir::FailureOr<runtime::HostTensor> toHostTensor(mlir::ElementsAttr value);

} // namespace gplace

#endif // GPLACE_TARGET_PLAN_PLANEXPORT_H
