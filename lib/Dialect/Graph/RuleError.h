//===- RuleError.h - where a result-type rule reports (private) -*- C++ -*-===//
//
// Shared by GraphOps.cpp and ConvolutionOps.cpp: a shape rule (an op's
// result type from its operands and attributes) runs both in the op's
// verifier and in its inferReturnTypes, and says why it cannot apply the
// same way in both.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_DIALECT_GRAPH_RULEERROR_H
#define GPLACE_LIB_DIALECT_GRAPH_RULEERROR_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

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

} // namespace gplace::graph::detail

#endif // GPLACE_LIB_DIALECT_GRAPH_RULEERROR_H
