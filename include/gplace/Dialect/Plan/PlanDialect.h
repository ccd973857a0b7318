//===- PlanDialect.h - gplan, the executable plan ---------------*- C++ -*-===//
//
// The `gplan` dialect (dialects/plan/PlanOps.td): devices with their memory
// plan, programs of steps (launches, copies) on streams, ordered by tokens
// before scheduling and by events after, and per-device arena tables.
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

#include "gplace/Support/ElementType.h"
#include "gplace/Support/Kernel.h"

#include "gplace/Dialect/Plan/PlanDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Plan/PlanTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "gplace/Dialect/Plan/PlanAttrs.h.inc"

namespace gplace::plan {
/// A step's name (a launch's or a copy's `name`), held in the op rather
/// than uniqued in the context: `text`, then `_<suffix>` unless `suffix`
/// is 0 ("MatMul" and 3 name "MatMul_3", as TensorFlow's default names
/// are built; graph::OpName is the graph's side). `text` must live as long
/// as the context: a string literal (an op kind's default prefix) or a
/// StringAttr's value. Empty: the step has no name.
struct StepName {
  llvm::StringRef text;
  unsigned suffix = 0;

  bool empty() const { return text.empty(); }
  /// Appends the name to `out`.
  void appendTo(llvm::SmallVectorImpl<char> &out) const;
  std::string str() const;
  bool operator==(const StepName &other) const;
  bool operator!=(const StepName &other) const { return !(*this == other); }
};
/// Equal names hash alike ("MatMul" 3 and "MatMul_3" 0 are one name).
llvm::hash_code hash_value(const StepName &name);
/// The name as a StringAttr (empty for none): its printed and stored form.
mlir::Attribute convertToAttribute(mlir::MLIRContext *context,
                                   const StepName &name);
/// A name from a StringAttr; reports through `emitError` (may be null) and
/// fails for any other attribute.
mlir::LogicalResult
convertFromAttribute(StepName &name, mlir::Attribute attr,
                     llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
} // namespace gplace::plan

#define GET_OP_CLASSES
#include "gplace/Dialect/Plan/PlanOps.h.inc"

namespace gplace::plan {
/// The stream of a device that runs kernel launches.
constexpr int64_t kComputeStream = 0;
/// The stream that runs copies into a device.
constexpr int64_t kCopyStream = 1;
/// The stream that runs a device's members of all-reduces (collective
/// kernels), as NCCL's own stream: while a member waits for the others, the
/// compute stream goes on with the rest of the backward pass.
constexpr int64_t kCollectiveStream = 2;
/// The number of streams of a device.
constexpr int64_t kNumStreams = 3;
/// Arena offsets and sizes are multiples of this many bytes.
constexpr int64_t kAlignment = 64;

/// gplace's element type of an MLIR element type, if it has one.
std::optional<ElementType> toElementType(mlir::Type type);

/// The bytes of a buffer of `type` (Shape.h's checkedTensorBytes);
/// std::nullopt for an unsupported element type or a size past int64_t.
std::optional<int64_t> getBufferBytes(BufferType type);

/// The bytes a buffer of `type` takes in an arena: getBufferBytes rounded
/// up to kAlignment; std::nullopt if that overflows int64_t.
std::optional<int64_t> getAlignedBytes(BufferType type);

/// The persistent memory of a program body: per device symbol, the aligned
/// bytes (getAlignedBytes) of its `gplan.constant`s and `gplan.variable`s.
/// Reports "needs more than 2^63 bytes of memory" at the op where a sum
/// overflows int64_t, and fails.
mlir::FailureOr<llvm::DenseMap<mlir::StringAttr, int64_t>>
getPersistentBytes(mlir::Block &body);

/// Checks that `params` holds parameters of `kernel` as the op table types
/// them (gplace::kernelParamDefs): every entry a known parameter, a
/// UnitAttr for a flag, an i64 IntegerAttr, a DenseI64ArrayAttr; every
/// integer and array parameter present. Reports the first problem through
/// `emitError`. `params` may be null: no parameters.
mlir::LogicalResult
verifyKernelParams(Kernel kernel, mlir::DictionaryAttr params,
                   llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The memory `buffer` is: through views, the buffer a view sees.
mlir::Value getViewRoot(mlir::Value buffer);

/// True for a result of a fused launch (`fusion N`) that only launches of
/// the same group read and that is no result of the program: it stays in
/// the fused kernel's registers and needs no memory.
bool isFusedInRegisters(mlir::Value buffer);

/// The events a step (a gplan.launch or gplan.copy) waits for before it
/// runs; empty for any other op.
mlir::OperandRange getStepWaits(mlir::Operation *step);
/// Replaces the after(...) tokens and the waits of `step` (a gplan.launch or
/// gplan.copy; its last two operand groups) by the events `waits`. The
/// group sizes change in the op's properties directly, not through a
/// MutableOperandRange, which would build and unique an operandSegmentSizes
/// attribute for each change.
void setStepWaits(mlir::Operation *step, mlir::ValueRange waits);

/// The event recorded right after `step` (a gplan.launch or gplan.copy; a
/// fusion group's last launch) on its stream: a gplan.record already there,
/// else one made with `builder`.
mlir::Value recordAfter(mlir::OpBuilder &builder, mlir::Operation *step);

/// Calls `fn(buffer, device)` for each buffer of `program` that lives in an
/// arena, in program order: each buffer result of a launch and each result
/// of a copy. This order indexes the `offsets` of a device's gplan.arena.
void forEachArenaBuffer(
    ProgramOp program,
    llvm::function_ref<void(mlir::Value buffer, mlir::FlatSymbolRefAttr device)>
        fn);
} // namespace gplace::plan

#endif // GPLACE_DIALECT_PLAN_PLANDIALECT_H
