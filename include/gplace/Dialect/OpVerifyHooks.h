//===- OpVerifyHooks.h - verification hooks without allocation --*- C++ -*-===//
//
// MLIR 19 verifies an op through RegisteredOperationName::Model<Op>, whose
// verifyInvariants and verifyRegionInvariants wrap the op's static hook in
// an llvm::unique_function on every call. LLVM 19's unique_function stores
// a callable inline only if its alignment is at most that of its inline
// buffer's element type (std::byte, so 1), which a function pointer's is
// not: every op verified costs two heap allocations and frees, some 3% of
// `gplace-opt --gplace-pipeline` at 100k ops (the IR is verified after
// every pass). These explicit specializations of the two members call the
// op's hooks directly, with the same result.
//
// Use: in the dialect's .cpp, after the op classes and before
// initialize(), the only place Model<Op> is instantiated:
//
//   #define GPLACE_OP_CLASS(Op) GPLACE_VERIFY_WITHOUT_ALLOCATION(Op)
//   #include "gplace/Dialect/Plan/PlanOpClasses.inc"
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_OPVERIFYHOOKS_H
#define GPLACE_DIALECT_OPVERIFYHOOKS_H

#include "mlir/IR/OpDefinition.h"

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
