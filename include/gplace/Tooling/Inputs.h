//===- Inputs.h - gplace-run's --input values -------------------*- C++ -*-===//
//
// SPEC §7's inputs: `SHAPExTYPE=VALUES` (2x3xf32=1,2,3,4,5,6, or nested
// rows in brackets) read by MLIR's own parser as a dense elements literal,
// or `@FILE.npy`.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_INPUTS_H
#define GPLACE_TOOLING_INPUTS_H

#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <vector>

namespace gplace::tooling {

/// Reads `--input` number `index` (`text`) for an argument of MLIR type
/// `expected` of function @`entry`. Integer mantissas of float values are
/// accepted ("2" for 2.0). Errors (invalid argument) start with
/// "input #<index>: " and name what is wrong: the form, the type, the
/// number of values, a value, the .npy file, a type other than `expected`
/// (a null `expected` takes the value's own type).
runtime::StatusOr<runtime::HostTensor>
parseInput(llvm::StringRef text, mlir::Type expected,
           mlir::MLIRContext *context, unsigned index, llvm::StringRef entry);

/// The shape of the value `--input` text `text` gives, without checking it
/// against any argument: `SHAPExTYPE=...`'s shape, or the shape an `@FILE`
/// (.npy, IDX) holds. std::nullopt where it cannot be read (parseInput
/// reports why). What an ONNX model's symbolic dimensions are bound to.
std::optional<std::vector<int64_t>> inputShape(llvm::StringRef text,
                                               mlir::MLIRContext *context);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_INPUTS_H
