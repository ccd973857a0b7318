//===- ElementType.h - the element types of gplace tensors ------*- C++ -*-===//
//
// The element types of SPEC §2 and their sizes, shared by the compiler, the
// kernel registry and the runtime. Plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_ELEMENTTYPE_H
#define GPLACE_SUPPORT_ELEMENTTYPE_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace gplace {

/// The element types of SPEC §2, in the order the kernel registry prints
/// them. The op table (GraphOpTable.def) encodes sets of them as bit masks:
/// bit i stands for the enumerator of value i.
enum class ElementType { F32, F16, BF16, F64, I32, I64, I1, UI8 };
constexpr int kNumElementTypes = 8;

/// MLIR's spelling: "f32", "f16", "bf16", "f64", "i32", "i64", "i1",
/// "ui8" (TensorFlow's uint8: image data sets, cast in the graph).
std::string_view elementTypeName(ElementType type);

/// Parses MLIR's spelling of an element type; std::nullopt if unknown.
std::optional<ElementType> parseElementType(std::string_view name);

/// Bytes per element: 4 for f32/i32, 2 for f16/bf16, 8 for f64/i64, 1 for
/// i1 (one byte per bool, 0 or 1) and ui8.
int64_t elementBytes(ElementType type);

/// True for f32, f16, bf16 and f64.
bool isFloatType(ElementType type);

} // namespace gplace

#endif // GPLACE_SUPPORT_ELEMENTTYPE_H
