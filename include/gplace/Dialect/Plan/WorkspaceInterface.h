//===- WorkspaceInterface.h - kernel workspaces for the plan ----*- C++ -*-===//
//
// How a tool that links a kernel library tells --gplace-size-workspaces
// the workspace each launch's kernel takes: a dialect interface of gplan,
// registered by the tool (gplace-opt and gplace-run register the host
// kernels', gplace/Target/Plan/PlanExport.h), as MLIR registers
// external models, so the compiler itself links no kernel library. Without
// one, launches get no workspace and their kernels use memory of their own.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_PLAN_WORKSPACEINTERFACE_H
#define GPLACE_DIALECT_PLAN_WORKSPACEINTERFACE_H

#include "gplace/Dialect/Plan/PlanDialect.h"

#include "mlir/IR/DialectInterface.h"

#include <optional>

namespace gplace::plan {

class WorkspaceDialectInterface
    : public mlir::DialectInterface::Base<WorkspaceDialectInterface> {
public:
  explicit WorkspaceDialectInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// The bytes of workspace `launch` takes when it runs on `device` (0: it
  /// takes none), or std::nullopt where the library cannot tell (a device
  /// it does not run): the launch then gets no workspace. Fails, after an
  /// error at the launch, where the library rejects the launch.
  virtual mlir::FailureOr<std::optional<int64_t>>
  getWorkspaceBytes(LaunchOp launch, DeviceOp device) const = 0;
};

} // namespace gplace::plan

#endif // GPLACE_DIALECT_PLAN_WORKSPACEINTERFACE_H
