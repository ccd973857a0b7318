//===- Plan.h - the executable plan the runtime runs ------------*- C++ -*-===//
//
// runtime::Plan is the in-memory form of a gplan program (exported from the
// IR by gplace/Target/Plan/PlanExport.h): the devices it needs, its buffers
// (inputs, arena slots at fixed offsets, persistent constants and
// variables, values a fused kernel keeps in registers), and its steps in
// program order, each on a stream of a device. Kernels and their parameters
// are those of the op table (gplace/Support/Kernel.h). Plain C++17: the
// runtime does not depend on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_PLAN_H
#define GPLACE_RUNTIME_PLAN_H

#include "gplace/Runtime/Tensor.h"
#include "gplace/Support/Kernel.h"

#include <string>
#include <vector>

namespace gplace::runtime {

/// Where a buffer lives. Views of a buffer (gplan.view) are buffers of
/// their own with the same location and their own type.
struct BufferDesc {
  enum class Kind {
    Input,      ///< Program input #index, in host memory.
    Arena,      ///< At `offset` in the device's arena.
    Persistent, ///< Persistent buffer #index (a constant or a variable).
    Register,   ///< A fused kernel's value that never reaches memory.
  };
  Kind kind = Kind::Arena;
  int device = -1; ///< Into Plan::devices; -1 for inputs (host).
  int64_t offset = 0;
  int index = 0;
  TensorType type;
};

/// A constant or a variable: device memory filled once, when the plan is
/// loaded; a variable keeps its value across runs.
struct PersistentDesc {
  int device = 0;
  std::string name; ///< The variable's name ("" for a constant).
  bool isVariable = false;
  HostTensor initialValue;
};

/// One step of the program.
struct Step {
  enum class Kind { Launch, Copy, Record, Wait };
  Kind kind = Kind::Launch;
  int device = 0;
  int stream = 0;
  Kernel kernel = Kernel::Read; ///< Launch.
  KernelParams params;          ///< Launch.
  std::vector<int> inputs;      ///< Buffers read (Copy: the source).
  /// Buffers written: a launch's new buffers, then those it writes in place
  /// (Copy: the target).
  std::vector<int> outputs;
  /// Launch: its fusion group, or -1. Consecutive launches of one stream
  /// with the same group run as one kernel (Device::launchFused).
  int fusion = -1;
  /// Launch: the buffer of its workspace (KernelCall::workspace), an arena
  /// slot the static memory plan reserved, or -1.
  int workspace = -1;
  int event = -1;    ///< Record, Wait.
  /// A launch of control flow (Kernel::If: then, else; Kernel::While:
  /// cond, body): the sub-plans it runs, into Plan::subplans.
  std::vector<int> subplans;
  std::string label; ///< For error messages: "MatMul (gplace.matmul)".
};

struct DeviceDesc {
  std::string name; ///< Full device name.
  int64_t arenaBytes = 0;
  int64_t persistentBytes = 0;
  /// The liveness lower bound of its peak: persistentBytes plus the most
  /// arena bytes live at one step (--gplace-print-memory-plan's figure);
  /// 0 where not computed (exportPlan leaves it; tooling::compileToPlan
  /// fills it in). Informational: the runtime does not read it.
  int64_t livenessBoundBytes = 0;
};

struct Plan {
  std::vector<DeviceDesc> devices;
  std::vector<BufferDesc> buffers;
  std::vector<PersistentDesc> persistents;
  std::vector<TensorType> inputs;
  std::vector<int> results; ///< Buffers returned, in order.
  std::vector<Step> steps;  ///< Program order.
  int numEvents = 0;
  /// The programs control-flow steps run (Step::subplans), each a plan of
  /// its own, with its own memory (docs/runtime.md#control-flow).
  std::vector<Plan> subplans;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_PLAN_H
