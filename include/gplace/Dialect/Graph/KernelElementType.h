//===- KernelElementType.h - kernel element types per kind ------*- C++ -*-===//
//
// getKernelElementType (GraphDialect.h) asks an op two traits on every
// call, and hasTrait takes the TypeID of each of the op's traits. Passes
// that ask it of every op (placement, its verifier) ask each kind of op
// its rule once, through KernelElementTypes.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_GRAPH_KERNELELEMENTTYPE_H
#define GPLACE_DIALECT_GRAPH_KERNELELEMENTTYPE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace gplace::graph {

/// Which of an op's types selects its kernel: its KernelTypeFromOperands
/// and KernelTypeFromOperandAndResult traits (getKernelElementType).
enum class KernelTypeRule { Default, FromOperands, FromOperandAndResult };

/// The rule of `op`'s kind of op (the same for every op of the kind).
KernelTypeRule getKernelTypeRule(mlir::Operation *op);

/// getKernelElementType(op), given the rule of `op`'s kind.
std::optional<mlir::Type> getKernelElementType(mlir::Operation *op,
                                               KernelTypeRule rule);

/// getKernelElementType with each kind of op's rule asked once.
class KernelElementTypes {
public:
  std::optional<mlir::Type> get(mlir::Operation *op) {
    auto [it, isNew] = rules_.try_emplace(op->getName().getAsOpaquePointer());
    if (isNew)
      it->second = getKernelTypeRule(op);
    return getKernelElementType(op, it->second);
  }

private:
  llvm::DenseMap<const void *, KernelTypeRule> rules_;
};

} // namespace gplace::graph

#endif // GPLACE_DIALECT_GRAPH_KERNELELEMENTTYPE_H
