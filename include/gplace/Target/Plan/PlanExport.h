//===- PlanExport.h - gplan IR to runtime::Plan -----------------*- C++ -*-===//
//
// The bridge from the compiler to the runtime, as mlir/Target exports to
// LLVM IR: reads a verified gplan module and builds the runtime's plan.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TARGET_PLAN_PLANEXPORT_H
#define GPLACE_TARGET_PLAN_PLANEXPORT_H

#include "gplace/Runtime/Plan.h"

#include "mlir/IR/MLIRContext.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LogicalResult.h"

namespace gplace {

namespace runtime {
class DeviceManager;
} // namespace runtime

/// Converts the program `programName` of `module`, a complete plan (the
/// output of --gplace-lower-to-plan, which --gplace-verify-plan checked),
/// into a runtime::Plan: devices, buffers (views share their source's
/// memory; a fused value with offset -1 is a register), steps and events,
/// kernel parameters placed in KernelParams by the op table. Errors (a
/// missing program, a plan not scheduled or memory-planned, a constant
/// that is not dense) are emitted as diagnostics at the offending op.
mlir::FailureOr<runtime::Plan> exportPlan(mlir::ModuleOp module,
                                          llvm::StringRef programName);

/// The MiB of host memory that exporting and loading `module`'s memory-
/// planned devices take at least: the host copies of every device's
/// constants and variables, and the CPUs' constants, variables and
/// intermediates (emulated GPUs' are counted when the plan loads,
/// Executor::load). exportPlan refuses a plan over
/// runtime::usableHostMemoryBytes() with an error at the program.
int64_t planHostMemoryMiB(mlir::ModuleOp module);

/// The runtime's tensor type of a ranked tensor type, if it has one.
std::optional<runtime::TensorType> toTensorType(mlir::Type type);

/// The values of a dense elements attribute in host memory.
mlir::FailureOr<runtime::HostTensor> toHostTensor(mlir::ElementsAttr value);

/// Registers with gplan the host kernels' workspaces
/// (runtime::hostWorkspaceBytes, for launches on the CPU) as the kernel
/// library --gplace-size-workspaces asks (WorkspaceDialectInterface), in
/// a tool that runs or reproduces gplace-run's plans.
void registerHostWorkspaces(mlir::DialectRegistry &registry);

/// Registers with gplan, in `context` (where none is registered yet), the
/// host kernels' workspaces and, for launches on the devices of `devices`
/// that size their own kernels' workspaces (runtime::Device::
/// workspaceBytes: cuDNN's algorithms and buffers on CUDA GPUs), their
/// answer, as the kernel library --gplace-size-workspaces asks: gplace-run
/// compiles for the GPUs it runs on. `devices` must outlive the context's
/// compilations. Launches on devices not in `devices` (another task's)
/// get the host's answer alone.
void registerMachineWorkspaces(mlir::MLIRContext &context,
                               const runtime::DeviceManager &devices);

} // namespace gplace

#endif // GPLACE_TARGET_PLAN_PLANEXPORT_H
