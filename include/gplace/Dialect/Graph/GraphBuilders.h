//===- GraphBuilders.h - constants and predicates for graph builders -*- C++ -*-===//
//
// What every pass and frontend that builds graph ops needs beside buildOp
// (GraphDialect.h): graph.Const ops of a value or a splat, and which values
// gradients flow through. Kept out of GraphDialect.h so that its users
// alone rebuild when it changes.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_GRAPH_GRAPHBUILDERS_H
#define GPLACE_DIALECT_GRAPH_GRAPHBUILDERS_H

#include "gplace/Dialect/Graph/GraphDialect.h"

#include "llvm/ADT/DenseSet.h"

namespace gplace::graph {

/// A graph.Const holding `value` (its result type is `value`'s), with the
/// extra discardable or inherent `attributes` (`name`, `device`, ...), at
/// `b`'s insertion point: tf.constant.
ConstantOp buildConstant(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::DenseElementsAttr value,
                         llvm::ArrayRef<mlir::NamedAttribute> attributes = {});

/// The elements attribute of `type` whose every element is `value`: as is
/// for a float element type, truncated toward zero for an integer one,
/// `value != 0` for i1. `type` has a static shape and an int or float
/// element type.
mlir::DenseElementsAttr getSplatAttr(mlir::ShapedType type, double value);

/// A graph.Const of `type` whose every element is `value` (getSplatAttr):
/// tf.fill, tf.ones and tf.zeros.
ConstantOp buildSplatConstant(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::RankedTensorType type, double value,
                              llvm::ArrayRef<mlir::NamedAttribute> attributes = {});

/// Whether `v` is a ranked tensor of floating-point elements: the values a
/// gradient flows through (tf.gradients gives integer and boolean tensors
/// none).
bool isFloatTensor(mlir::Value v);

/// The ops of `block` on a data path from one of `xs` to one of `ys`:
/// forward from the xs through their users in `block` (`exclude`, the
/// gradients op asking, left out), then backward from the ys through
/// operands. Control dependencies (`after` tokens) are no path: they carry
/// no gradient, as in tf.gradients. The ops reverse-mode differentiation
/// visits (--gplace-differentiate; the ONNX importer's Gradient checks
/// them before it builds a gradients op).
llvm::DenseSet<mlir::Operation *> getOpsBetween(mlir::Block &block,
                                                mlir::ValueRange xs,
                                                mlir::ValueRange ys,
                                                mlir::Operation *exclude =
                                                    nullptr);

} // namespace gplace::graph

#endif // GPLACE_DIALECT_GRAPH_GRAPHBUILDERS_H
