//===- Inputs.cpp - gplace-run's --input values ---------------------------===//

#include "gplace/Tooling/Inputs.h"
#include "gplace/Runtime/Idx.h"

#include "gplace/Support/Shape.h"
#include "gplace/Support/SourceNesting.h"
#include "gplace/Target/Plan/PlanExport.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
namespace rt = gplace::runtime;

/// Parses `--input` number `index` for an argument of type `expected`:
/// `@file.npy`, or `SHAPExTYPE=VALUES` with MLIR's parser reading the type
/// and the values (as a dense elements literal).
rt::StatusOr<rt::HostTensor>
gplace::tooling::parseInput(llvm::StringRef text, Type expected,
                            MLIRContext *context, unsigned index,
                            llvm::StringRef entry) {
  std::string prefix = "input #" + std::to_string(index) + ": ";
  auto error = [&](const llvm::Twine &why) {
    return rt::Status::invalidArgument(prefix + why.str());
  };
  rt::StatusOr<rt::HostTensor> tensor = rt::Status::ok();
  if (text.consume_front("@")) {
    tensor = rt::readTensorFile(text.str());
    if (!tensor)
      return error(tensor.status().message());
  } else {
    auto [typeText, values] = text.split('=');
    if (values.data() == nullptr || typeText.empty())
      return error("expected SHAPExTYPE=VALUES (as 2x3xf32=1,2,3,4,5,6) or "
                   "@FILE.npy, got '" +
                   text + "'");
    // MLIR's parser recurses once per bracket (SourceNesting.h).
    if (findDeepNesting(text))
      return error(deepNestingMessage("in its type or values"));
    std::string diagnostic;
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      diagnostic = diag.str();
      return success();
    });
    auto type = dyn_cast_or_null<RankedTensorType>(
        parseType(("tensor<" + typeText + ">").str(), context));
    std::optional<rt::TensorType> runtimeType =
        type ? gplace::toTensorType(type) : std::nullopt;
    if (!runtimeType)
      return error(
          "'" + typeText +
          "' is not a shape and element type such as 2x3xf32 (" +
          (diagnostic.empty() ? "unsupported element type" : diagnostic) + ")");
    if (!checkedTensorBytes(runtimeType->shape, runtimeType->elementType))
      return error(typeText + " has more bytes than fit in 64 bits");
    // Each value as MLIR's literal syntax reads it: no leading '+', no "-0"
    // for an integer (users and printf write both); for a float, `1.0`
    // where users write `1` or NumPy's `1.`, and nan, inf, -inf (as results
    // print them) as the element type's bit pattern.
    Type elementType = type.getElementType();
    auto rewrite = [&](llvm::StringRef token) -> std::string {
      token.consume_front("+");
      if (isa<IntegerType>(elementType)) {
        if (token.starts_with("-") && token.size() > 1 &&
            llvm::all_of(token.drop_front(), [](char c) { return c == '0'; }))
          return "0";
        return token.str();
      }
      auto floatType = dyn_cast<FloatType>(elementType);
      if (!floatType)
        return token.str();
      llvm::StringRef unsignedToken = token;
      bool negative = unsignedToken.consume_front("-");
      if (unsignedToken.equals_insensitive("nan") ||
          unsignedToken.equals_insensitive("inf") ||
          unsignedToken.equals_insensitive("infinity")) {
        const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
        llvm::APFloat special =
            unsignedToken.equals_insensitive("nan")
                ? llvm::APFloat::getNaN(semantics, negative)
                : llvm::APFloat::getInf(semantics, negative);
        llvm::SmallString<32> hex;
        special.bitcastToAPInt().toStringUnsigned(hex, 16);
        return "0x" + hex.str().str();
      }
      // An integer mantissa gets ".0": "2" -> "2.0", "5e-1" -> "5.0e-1";
      // NumPy's "1." gets "0".
      llvm::StringRef mantissa =
          unsignedToken.take_until([](char c) { return c == 'e' || c == 'E'; });
      size_t mantissaEnd =
          token.size() - unsignedToken.size() + mantissa.size();
      const char *fill = nullptr;
      if (!mantissa.empty() && llvm::all_of(mantissa, llvm::isDigit))
        fill = ".0";
      else if (mantissa.size() > 1 && mantissa.ends_with(".") &&
               llvm::all_of(mantissa.drop_back(), llvm::isDigit))
        fill = "0";
      if (!fill)
        return token.str();
      return token.take_front(mantissaEnd).str() + fill +
             token.drop_front(mantissaEnd).str();
    };
    std::string numbers;
    for (size_t i = 0; i < values.size();) {
      size_t end = std::min(values.find_first_of("[], \t", i), values.size());
      if (end == i) {
        numbers += values[i++];
        continue;
      }
      numbers += rewrite(values.slice(i, end));
      i = end;
    }
    llvm::StringRef body = numbers;
    std::string literal;
    if (body.contains('[')) {
      literal = ("dense<" + body + "> : tensor<" + typeText + ">").str();
    } else {
      SmallVector<StringRef> items;
      body.split(items, ',');
      int64_t count = body.trim().empty() ? 0 : items.size();
      if (count != runtimeType->numElements())
        return error(typeText + " needs " +
                     std::to_string(runtimeType->numElements()) +
                     " values, got " + std::to_string(count));
      literal = ("dense<[" + body + "]> : tensor<" + llvm::Twine(count) + "x" +
                 typeText.substr(typeText.rfind('x') + 1) + ">")
                    .str();
      if (runtimeType->shape.empty())
        literal = ("dense<[" + body + "]> : tensor<1x" + typeText + ">").str();
    }
    auto attr =
        dyn_cast_or_null<DenseElementsAttr>(parseAttribute(literal, context));
    if (!attr)
      return error("invalid values '" + values + "'" +
                   (diagnostic.empty() ? "" : ": " + diagnostic));
    // The values as written, in order (one per element).
    SmallVector<StringRef> tokens;
    for (size_t i = 0; i < numbers.size();) {
      size_t end = std::min(numbers.find_first_of("[], \t", i), numbers.size());
      if (end > i)
        tokens.push_back(StringRef(numbers).slice(i, end));
      i = std::max(end, i + 1);
    }
    auto isHex = [](StringRef token) {
      token.consume_front("-") || token.consume_front("+");
      return token.starts_with_insensitive("0x");
    };
    std::string typeName;
    llvm::raw_string_ostream(typeName) << attr.getElementType();
    auto outOfRange = [&] {
      return error("invalid values '" + values +
                   "': a value is out of range for " + typeName);
    };
    // A decimal value beyond the type's range would become infinity (MLIR's
    // literal rounds it); a hexadecimal bit pattern may mean infinity.
    if (isa<FloatType>(attr.getElementType()) &&
        tokens.size() == static_cast<size_t>(attr.getNumElements())) {
      for (auto [token, value] : llvm::zip(tokens, attr.getValues<APFloat>()))
        if (value.isInfinity() && !isHex(token))
          return outOfRange();
    }
    // MLIR's signless i32 and i64 take any bit pattern of the width
    // (2147483648 would be -2147483648); gplace's, as TensorFlow's int32
    // and int64, are signed, and ui8 is unsigned: a decimal value must be
    // in the type's range.
    if (auto intType = dyn_cast<IntegerType>(attr.getElementType());
        intType && intType.getWidth() > 1) {
      unsigned width = intType.getWidth();
      bool isUnsigned = intType.isUnsigned();
      for (StringRef token : tokens) {
        if (isHex(token))
          continue;
        StringRef digits = token;
        bool negative = digits.consume_front("-");
        if (!negative)
          digits.consume_front("+");
        unsigned long long magnitude = 0;
        if (digits.getAsInteger(10, magnitude))
          return outOfRange(); // Beyond 64 bits.
        unsigned long long limit =
            isUnsigned ? (negative ? 0 : (~0ull >> (64 - width)))
                       : (negative ? (1ull << (width - 1))
                                   : (1ull << (width - 1)) - 1);
        if (magnitude > limit)
          return outOfRange();
      }
    }
    FailureOr<rt::HostTensor> host = gplace::toHostTensor(attr.reshape(type));
    if (failed(host))
      return error("invalid values '" + values + "'");
    tensor = std::move(*host);
  }
  if (!expected) // Any type: the value as written.
    return tensor;
  std::optional<rt::TensorType> want = gplace::toTensorType(expected);
  if (!want || tensor->type != *want)
    return error("@" + entry + " expects " +
                 (want ? want->str() : std::string("an unsupported type")) +
                 ", got " + tensor->type.str());
  return tensor;
}


std::optional<std::vector<int64_t>>
gplace::tooling::inputShape(llvm::StringRef text, MLIRContext *context) {
  if (text.consume_front("@")) {
    rt::StatusOr<rt::HostTensor> tensor = rt::readTensorFile(text.str());
    if (!tensor)
      return std::nullopt;
    return tensor->type.shape;
  }
  llvm::StringRef typeText = text.split('=').first;
  if (typeText.empty() || typeText.size() == text.size() ||
      findDeepNesting(typeText))
    return std::nullopt;
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) { return success(); });
  auto type = dyn_cast_or_null<RankedTensorType>(
      parseType(("tensor<" + typeText + ">").str(), context));
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
}
