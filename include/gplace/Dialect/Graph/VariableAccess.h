//===- VariableAccess.h - which ops read, write and view variables -*- C++ -*-===//
//
// The one answer to "does this op read or write a variable" and "is this
// op's result a view of its operand's memory", for every pass that asks
// (the lowering's copy-or-view decision, control dependencies, automatic
// placement's memory estimate, the cost model): from the ops' memory
// effects on the Variable resource and their ForwardsInput trait, never
// from their classes.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_GRAPH_VARIABLEACCESS_H
#define GPLACE_DIALECT_GRAPH_VARIABLEACCESS_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace gplace::graph {

/// How an op touches one variable: the variable (the root of the resource
/// value its effects name, getResourceRoot), and whether it writes it.
struct VariableAccess {
  mlir::Value variable;
  bool writes = false;
};

/// Every variable `op` reads or writes, once each, in the order of its
/// memory effects on the Variable resource (an update of several
/// variables, apply_adam's var, m and v, names each). A variable's
/// declaration (an allocation) is no access. Empty for an op without
/// memory effects.
llvm::SmallVector<VariableAccess, 1> getVariableAccesses(mlir::Operation *op);

/// Whether `op` writes `variable` (a resource root).
bool writesVariable(mlir::Operation *op, mlir::Value variable);

/// Whether some op writes `variable` (a resource root): one of its users,
/// or of the views of it (an identity of the resource).
bool isVariableWritten(mlir::Value variable);

/// The ops of `block` that write each variable (a resource root, as
/// getVariableAccesses names it), each op once per variable, in block
/// order: the `writers` readNeedsCopy takes, for every variable at once.
/// A variable no op of the block writes has no entry.
using VariableWriters =
    llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Operation *, 2>>;
VariableWriters collectVariableWriters(mlir::Block &block);

/// Whether lowering makes `op`'s result a view of its first operand's
/// memory (ForwardsInput: identity, reshape, a variable's read), before the
/// lowering's own decision to copy a read that a later write could
/// overtake (see isVariableWritten).
bool forwardsInput(mlir::Operation *op);

/// Whether lowering (--gplace-convert-graph-to-plan) copies `read`, a read
/// of a variable, rather than make it a view of the variable's memory: a
/// write of the variable follows it in its block, and
/// some use of the read's value (through views) may run after that write.
/// A use runs before the write if it is a kernel op on the write's device
/// earlier in the block (one compute stream runs both, in order), or if
/// the write depends on it (data or tokens). `writers`: the ops of the
/// block that write the variable (writesVariable of its resource root), in
/// block order.
bool readNeedsCopy(mlir::Operation *read,
                   llvm::ArrayRef<mlir::Operation *> writers);

} // namespace gplace::graph

#endif // GPLACE_DIALECT_GRAPH_VARIABLEACCESS_H
