//===- RuleError.h - where a result-type rule reports (private) -*- C++ -*-===//
//
// Shared by GraphOps.cpp, ConvolutionOps.cpp, CompositeOps.cpp and
// RecurrentOps.cpp: a shape rule (an op's result type from its operands
// and attributes) runs both in the op's verifier and in its
// inferReturnTypes, and says why it cannot apply the same way in both. The
// rules other ops build on, and the properties inference reads, are
// declared here too.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_DIALECT_GRAPH_RULEERROR_H
#define GPLACE_LIB_DIALECT_GRAPH_RULEERROR_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"

#include <optional>

namespace gplace::graph::detail {

/// Where a shape rule says why it cannot apply: a built op (its verifier:
/// emitOpError), or the optional location of one about to be built (type
/// inference: nothing without a location), prefixed with the op's name as
/// emitOpError prefixes it.
struct RuleError {
  mlir::Operation *op = nullptr;
  std::optional<mlir::Location> location;
  llvm::StringRef opName;
  mlir::InFlightDiagnostic operator()() const {
    if (op)
      return op->emitOpError();
    if (location)
      return mlir::emitError(*location) << "'" << opName << "' op ";
    return mlir::InFlightDiagnostic();
  }
};

/// Checks that `axis` indexes a rank-`rank` tensor (negative values count
/// from the end; `what` names it in the error) and returns it normalised to
/// [0, rank) (GraphOps.cpp).
mlir::FailureOr<int64_t> normalizeAxis(const RuleError &error,
                                       llvm::StringRef what, int64_t axis,
                                       int64_t rank);

/// matmul's rule: [M, K] x [K, N] -> [M, N], either operand transposed
/// first (GraphOps.cpp; gemm's product too).
mlir::FailureOr<mlir::RankedTensorType>
matmulType(mlir::RankedTensorType lhs, mlir::RankedTensorType rhs,
           bool transposeA, bool transposeB, const RuleError &error);

/// The complete properties of an `OpT` about to be built, for its
/// inferReturnTypes: the parser infers before the op exists, so the
/// attributes may still be in `attributes`, not yet in `properties`; those
/// not given take their defaults. Failure (reported at `location`, where
/// there is one) where `attributes` does not fit the properties.
template <typename OpT>
mlir::FailureOr<typename OpT::Properties>
completeProperties(mlir::MLIRContext *context,
                   std::optional<mlir::Location> location,
                   mlir::DictionaryAttr attributes,
                   mlir::OpaqueProperties properties) {
  typename OpT::Properties complete =
      *properties.as<typename OpT::Properties *>();
  if (attributes &&
      mlir::failed(OpT::setPropertiesFromAttr(complete, attributes, [&] {
        return mlir::emitError(
            location.value_or(mlir::UnknownLoc::get(context)));
      })))
    return mlir::failure();
  OpT::populateDefaultProperties(
      mlir::OperationName(OpT::getOperationName(), context), complete);
  return complete;
}

} // namespace gplace::graph::detail

#endif // GPLACE_LIB_DIALECT_GRAPH_RULEERROR_H
