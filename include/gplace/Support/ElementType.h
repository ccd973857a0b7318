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
/// them. The backends' kernel tables encode sets of them as bit masks: bit i
/// stands for the enumerator of value i (typeBit).
enum class ElementType { F32, F16, BF16, F64, I32, I64, I1, UI8, I8, I16, UI16, UI32 };
constexpr int kNumElementTypes = 12;

/// The bit of `type` in a mask of element types (the backends' kernel
/// tables, gplace/Runtime/HostKernels.def).
constexpr unsigned typeBit(ElementType type) {
  return 1u << static_cast<int>(type);
}
/// Masks of element types: f32, f16, bf16 and f64; i32 and i64; both; all.
constexpr unsigned kFloatTypes =
    typeBit(ElementType::F32) | typeBit(ElementType::F16) |
    typeBit(ElementType::BF16) | typeBit(ElementType::F64);
constexpr unsigned kIntegerTypes =
    typeBit(ElementType::I32) | typeBit(ElementType::I64);
constexpr unsigned kNumericTypes = kFloatTypes | kIntegerTypes;
constexpr unsigned kAllTypes = (1u << kNumElementTypes) - 1;

/// MLIR's spelling: "f32", "f16", "bf16", "f64", "i32", "i64", "i1",
/// "ui8" (TensorFlow's uint8: image data sets, cast in the graph), "i8",
/// "i16", "ui16", "ui32" (ONNX's narrow integers: storage types, which
/// only `cast`, the data movement ops and `select` take; arithmetic on
/// them is imported widened to i32 or i64, docs/onnx.md).
std::string_view elementTypeName(ElementType type);

/// Parses MLIR's spelling of an element type; std::nullopt if unknown.
std::optional<ElementType> parseElementType(std::string_view name);

/// Bytes per element: 4 for f32/i32/ui32, 2 for f16/bf16/i16/ui16, 8 for
/// f64/i64, 1 for i1 (one byte per bool, 0 or 1), i8 and ui8.
int64_t elementBytes(ElementType type);

/// True for f32, f16, bf16 and f64.
bool isFloatType(ElementType type);

} // namespace gplace

#endif // GPLACE_SUPPORT_ELEMENTTYPE_H
