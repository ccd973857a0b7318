//===- Plan.h - the executable plan the runtime runs ------------*- C++ -*-===//
//
// runtime::Plan is the in-memory form of a gplan program (exported from the
// IR by gplace/Target/Plan/PlanExport.h): the devices it needs, its buffers
// (inputs, arena slots at fixed offsets, persistent constants and
// variables), and its steps in program order, each on a stream of a device.
// Plain C++17: the runtime does not depend on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_PLAN_H
#define GPLACE_RUNTIME_PLAN_H

#include "gplace/Runtime/Tensor.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gplace::runtime {

/// The kernels the runtime dispatches, one per graph op with a kernel.
enum class Kernel {
  MatMul,
  Add,
  Sub,
  Mul,
  Div,
  Maximum,
  Neg,
  Exp,
  Log,
  Tanh,
  Sigmoid,
  Relu,
  AddN,
  BiasAdd,
  ReduceSum,
  ReduceMean,
  ReduceMax,
  Softmax,
  Cast,
  Transpose,
  Reshape,
  Identity,
  Read,
  Slice,
  Concat,
  Assign,
  AssignAdd,
  AssignSub
};

/// The kernel of the graph op named `opName` ("gplace.matmul"), or
/// std::nullopt for an op without one (constant, variable, group, copy are
/// not kernels). Names are those of the kernel registry.
std::optional<Kernel> kernelFromOpName(std::string_view opName);

/// The graph op name of `kernel` ("gplace.matmul").
std::string_view kernelOpName(Kernel kernel);

/// True for the elementwise kernels a device may fuse into one kernel:
/// Add, Sub, Mul, Div, Maximum (with broadcasting), Neg, Exp, Log, Tanh,
/// Sigmoid, Relu, AddN, BiasAdd.
bool isFusibleElementwise(Kernel kernel);

/// Kernel parameters, as the graph op's attributes give them.
struct KernelParams {
  bool transposeA = false, transposeB = false; ///< MatMul.
  bool keepDims = false;                       ///< Reduce*.
  std::vector<int64_t> axes;                   ///< Reduce*, normalised.
  std::vector<int64_t> perm;                   ///< Transpose.
  std::vector<int64_t> begin, size;            ///< Slice (sizes resolved).
  int64_t axis = 0;                            ///< Concat, normalised.
};

/// Where a buffer lives.
struct BufferDesc {
  enum class Kind {
    Input,      ///< Program input #index, in host memory.
    Arena,      ///< At `offset` in the device's arena.
    Persistent, ///< Persistent buffer #index (a constant or a variable).
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
  Kernel kernel = Kernel::Identity; ///< Launch.
  KernelParams params;              ///< Launch.
  std::vector<int> inputs;          ///< Buffers read (Copy: the source).
  std::vector<int> outputs;         ///< Buffers written (Copy: the target).
  int event = -1;                   ///< Record, Wait.
  std::string label;                ///< For error messages ("MatMul").
};

struct DeviceDesc {
  std::string name; ///< Full device name.
  int64_t arenaBytes = 0;
  int64_t persistentBytes = 0;
};

struct Plan {
  std::vector<DeviceDesc> devices;
  std::vector<BufferDesc> buffers;
  std::vector<PersistentDesc> persistents;
  std::vector<TensorType> inputs;
  std::vector<int> results; ///< Buffers returned, in order.
  std::vector<Step> steps;  ///< Program order.
  int numEvents = 0;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_PLAN_H
