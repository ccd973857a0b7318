//===- ElementType.cpp - the element types of gplace tensors --------------===//

#include "gplace/Support/ElementType.h"

namespace gplace {

std::string_view elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F64:
    return "f64";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  case ElementType::I1:
    return "i1";
  case ElementType::UI8:
    return "ui8";
  case ElementType::I8:
    return "i8";
  case ElementType::I16:
    return "i16";
  case ElementType::UI16:
    return "ui16";
  case ElementType::UI32:
    return "ui32";
  }
  return "?";
}

std::optional<ElementType> parseElementType(std::string_view name) {
  for (int i = 0; i < kNumElementTypes; ++i)
    if (elementTypeName(static_cast<ElementType>(i)) == name)
      return static_cast<ElementType>(i);
  return std::nullopt;
}

int64_t elementBytes(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::I32:
  case ElementType::UI32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::I16:
  case ElementType::UI16:
    return 2;
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  case ElementType::I1:
  case ElementType::UI8:
  case ElementType::I8:
    return 1;
  }
  return 0;
}

bool isFloatType(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 ||
         type == ElementType::BF16 || type == ElementType::F64;
}

} // namespace gplace
