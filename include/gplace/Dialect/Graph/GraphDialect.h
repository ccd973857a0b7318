//===- GraphDialect.h - the gplace graph dialect ----------------*- C++ -*-===//
//
// The `gplace` dialect (dialects/graph/*.td): TensorFlow-style dataflow ops
// with device requests. Include this header for the dialect, its types,
// interfaces and ops.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_GRAPH_GRAPHDIALECT_H
#define GPLACE_DIALECT_GRAPH_GRAPHDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "gplace/Dialect/Graph/GraphDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Graph/GraphTypes.h.inc"

namespace gplace::graph {

namespace OpTrait {
/// Marks ops that forward their input's data unchanged (identity, reshape);
/// see Graph_ForwardsInput in GraphOps.td.
template <typename ConcreteType>
class ForwardsInput
    : public mlir::OpTrait::TraitBase<ConcreteType, ForwardsInput> {};
} // namespace OpTrait

/// Returns true if `type` is a tensor the graph accepts: a statically shaped
/// ranked tensor of f32, f16, bf16, f64, i32, i64 or i1 (SPEC §2).
bool isValidGraphTensorType(mlir::Type type);

namespace detail {
/// Verifies an ElementwiseOpInterface op: its data operands have one element
/// type, equal to the result's, and broadcast numpy-style to the result's
/// shape. Reports the first offending dimension of each operand.
mlir::LogicalResult verifyElementwiseOp(mlir::Operation *op);
} // namespace detail

/// Computes the numpy broadcast of shapes `lhs` and `rhs` (aligned at their
/// last dimension; a dimension of size 1 stretches). Returns std::nullopt and
/// sets `lhsDim`/`rhsDim` to the first incompatible pair's indices (in each
/// shape's own numbering) when they are not broadcast-compatible.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                int64_t *lhsDim = nullptr, int64_t *rhsDim = nullptr);

} // namespace gplace::graph

#include "gplace/Dialect/Graph/GraphInterfaces.h.inc"

namespace gplace::graph {

/// The names of the graph ops nested in `root`, in walk order (pre-order,
/// as `root->walk` visits PlacedOpInterface ops), as logs and errors show
/// them (SPEC §2): an op's `name` attribute, else TensorFlow's default, the
/// op's default name prefix (PlacedOpInterface::getDefaultNamePrefix) then
/// `_1`, `_2`, ... in textual order ("MatMul", "MatMul_1", "Const",
/// "Const_1"), skipping any name a user gave an op, as TensorFlow's
/// Graph.unique_name skips taken names.
std::vector<std::string> getOpNames(mlir::Operation *root);

/// The element type that selects an op's kernel (TensorFlow's type attribute
/// "T"): its first result's element type, a resource's value type for a
/// resource; for an op whose results are tokens, the value type of its first
/// resource operand. std::nullopt for a typeless op (gplace.group).
std::optional<mlir::Type> getKernelElementType(mlir::Operation *op);

/// The host: where function arguments are fed from and results return to.
constexpr llvm::StringLiteral kHostDevice =
    "/job:localhost/replica:0/task:0/device:CPU:0";

/// The full name of the device a value lives on after placement: its
/// producer's `assigned_device`, or kHostDevice for a function argument.
/// A null attribute if the producer has no assigned device.
mlir::StringAttr getValueDevice(mlir::Value value);

/// getKernelElementType spelled as the kernel registry spells it ("f32",
/// "i32", ...); "" for a typeless op.
std::string getKernelElementTypeName(mlir::Operation *op);

} // namespace gplace::graph

#define GET_OP_CLASSES
#include "gplace/Dialect/Graph/GraphOps.h.inc"

#endif // GPLACE_DIALECT_GRAPH_GRAPHDIALECT_H
