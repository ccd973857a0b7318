//===- OpVerifyHooks.h - verification hooks without allocation --*- C++ -*-===//
//
// MLIR 19 verifies an op through RegisteredOperationName::Model<Op>, whose
// verifyInvariants and verifyRegionInvariants wrap the op's static hook in
// an llvm::unique_function on every call. LLVM 19's unique_function stores
// a callable inline only if its alignment is at most that of its inline
// buffer's element type (std::byte, so 1), which a function pointer's is
// not: every op verified costs two heap allocations and frees, about 6% of
// `gplace-opt --gplace-pipeline` at 100k ops (the IR is verified after
// every pass). These explicit specializations of the two members call the
// op's hooks directly, with the same result.
//
// An op with operand segments (AttrSizedOperandSegments) keeps their sizes
// in its properties, but the trait's check asks the op for the
// `operandSegmentSizes` attribute, which builds and uniques one on every
// verification. GPLACE_VERIFY_SEGMENTS_FROM_PROPERTIES specializes the
// trait's check to read the properties, with MLIR's checks and messages.
//
// Use: in the dialect's .cpp, after the op classes and before
// initialize(), the only place Model<Op> is instantiated:
//
//   #define GPLACE_OPERAND_SEGMENTS_OP(Op)                                  \
//     GPLACE_VERIFY_SEGMENTS_FROM_PROPERTIES(Op)
//   #define GPLACE_OP_CLASS(Op) GPLACE_VERIFY_WITHOUT_ALLOCATION(Op)
//   #include "gplace/Dialect/Plan/PlanOpClasses.inc"
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_OPVERIFYHOOKS_H
#define GPLACE_DIALECT_OPVERIFYHOOKS_H

#include "mlir/IR/OpDefinition.h"

#include <cstdint>

namespace gplace {
/// What MLIR's AttrSizedOperandSegments checks of an op's segment `sizes`
/// (OpTrait::impl::verifyOperandSizeAttr), with its messages: none is
/// negative, and they add up to the op's operand count.
inline mlir::LogicalResult
verifyOperandSegmentSizes(mlir::Operation *op, llvm::ArrayRef<int32_t> sizes) {
  int64_t total = 0;
  for (int32_t size : sizes) {
    if (size < 0)
      return op->emitOpError("'")
             << "operandSegmentSizes' attribute cannot have negative elements";
    total += size;
  }
  if (total != static_cast<int64_t>(op->getNumOperands()))
    return op->emitOpError()
           << "operand count (" << op->getNumOperands()
           << ") does not match with the total size (" << total
           << ") specified in attribute 'operandSegmentSizes'";
  return mlir::success();
}
} // namespace gplace

/// AttrSizedOperandSegments<OP>'s check, reading OP's properties.
#define GPLACE_VERIFY_SEGMENTS_FROM_PROPERTIES(OP)                             \
  template <>                                                                  \
  ::llvm::LogicalResult                                                        \
  mlir::OpTrait::AttrSizedOperandSegments<OP>::verifyTrait(                    \
      ::mlir::Operation *op) {                                                 \
    return ::gplace::verifyOperandSegmentSizes(                                \
        op, ::llvm::cast<OP>(op).getProperties().operandSegmentSizes);         \
  }

/// Model<OP>'s verification members, calling OP's static hooks (private to
/// mlir::Op, which befriends RegisteredOperationName and so its Model).
#define GPLACE_VERIFY_WITHOUT_ALLOCATION(OP)                                   \
  template <>                                                                  \
  ::llvm::LogicalResult                                                        \
  mlir::RegisteredOperationName::Model<OP>::verifyInvariants(                  \
      ::mlir::Operation *op) {                                                 \
    return OP::Op::verifyInvariants(op);                                       \
  }                                                                            \
  template <>                                                                  \
  ::llvm::LogicalResult                                                        \
  mlir::RegisteredOperationName::Model<OP>::verifyRegionInvariants(            \
      ::mlir::Operation *op) {                                                 \
    return OP::Op::verifyRegionInvariants(op);                                 \
  }

#endif // GPLACE_DIALECT_OPVERIFYHOOKS_H
