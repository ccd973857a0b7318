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

#define GET_OP_CLASSES
#include "gplace/Dialect/Graph/GraphOps.h.inc"

#endif // GPLACE_DIALECT_GRAPH_GRAPHDIALECT_H
