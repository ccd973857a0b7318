//===- MapElementwise.cpp - trigonometric, rounding, predicates, Mod -------===//
//
// Part of the ONNX importer: see OnnxImporter.h. The elementwise op types
// TensorFlow has as ops map to the graph op of TensorFlow's name (Sin ...
// Erf, Sign, Round, Ceil, Floor, Softsign, IsInf, IsNaN; Mod to FloorMod or
// TruncateMod); the activations TensorFlow lacks (Celu, HardSwish,
// ThresholdedRelu, Shrink) to composites the dialect decomposes
// (Decompositions.cpp).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

namespace gplace::frontend::onnx_import {

namespace {

/// The graph op of the same function. Its operand type constraint (floats
/// for all but Sign) refuses other element types with its diagnostic.
template <typename OpT>
bool mapSameFunction(Node &n, SmallVectorImpl<Value> &results,
                     std::string &) {
  results.push_back(n.op<OpT>(n.outputTypes[0], n.input(0)));
  return true;
}

/// IsInf: is_inf, restricted to one sign by `detect_positive` and
/// `detect_negative` (both 1 by default) with `greater` against 0.
bool mapIsInf(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  bool positive = n.getInt("detect_positive", 1) != 0;
  bool negative = n.getInt("detect_negative", 1) != 0;
  RankedTensorType out = n.outputTypes[0];
  Value x = n.input(0);
  if (!isFloat(x.getType())) {
    reason = "a non-float input";
    return false;
  }
  if (!positive && !negative) {
    results.push_back(n.constant(
        DenseElementsAttr::get(out, n.builder().getBoolAttr(false)), ""));
    return true;
  }
  if (positive && negative) {
    results.push_back(n.op<IsInfOp>(out, x));
    return true;
  }
  Value inf = n.op<IsInfOp>(out, x, {}, "is_inf");
  Value zero = n.scalar(x.getType(), 0.0, "zero");
  Value sign = positive ? n.op<GreaterOp>(Type(), {x, zero}, {}, "positive")
                        : n.op<GreaterOp>(Type(), {zero, x}, {}, "negative");
  results.push_back(n.op<LogicalAndOp>(out, {inf, sign}));
  return true;
}

/// Mod: TruncateMod (C's fmod) with `fmod` = 1, FloorMod (the divisor's
/// sign, Python's %) with 0, which ONNX allows on integers only.
bool mapMod(Node &n, SmallVectorImpl<Value> &results, std::string &reason) {
  RankedTensorType a = n.inputType(0), b = n.inputType(1);
  if (!a || !b || a.getElementType() != b.getElementType()) {
    reason = "operands of different element types";
    return false;
  }
  bool fmod = n.getInt("fmod", 0) != 0;
  if (!fmod && isFloat(a)) {
    reason = "fmod = 0 on floating-point inputs (ONNX requires fmod = 1 "
             "for them)";
    return false;
  }
  Value x = n.input(0), y = n.input(1);
  results.push_back(fmod ? n.op<TruncateModOp>(n.outputTypes[0], {x, y})
                         : n.op<FloorModOp>(n.outputTypes[0], {x, y}));
  return true;
}

/// The float attributes `names` that the node sets, for a composite.
SmallVector<NamedAttribute> floatAttrs(Node &n,
                                       ArrayRef<const char *> names) {
  SmallVector<NamedAttribute> attrs;
  for (const char *name : names)
    if (const onnx::AttributeProto *a = n.attr(name))
      attrs.push_back(n.named(name, n.builder().getF32FloatAttr(a->f())));
  return attrs;
}

/// Celu: gplace.celu; alpha must not be 0 (its verifier says so).
bool mapCelu(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(
      n.op<CeluOp>(n.outputTypes[0], n.input(0), floatAttrs(n, {"alpha"})));
  return true;
}

bool mapHardSwish(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<HardSwishOp>(n.outputTypes[0], n.input(0)));
  return true;
}

bool mapThresholdedRelu(Node &n, SmallVectorImpl<Value> &results,
                        std::string &) {
  results.push_back(n.op<ThresholdedReluOp>(n.outputTypes[0], n.input(0),
                                            floatAttrs(n, {"alpha"})));
  return true;
}

bool mapShrink(Node &n, SmallVectorImpl<Value> &results, std::string &) {
  results.push_back(n.op<ShrinkOp>(n.outputTypes[0], n.input(0),
                                   floatAttrs(n, {"bias", "lambd"})));
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Narrow integers, computed widened.
//===----------------------------------------------------------------------===//

Type widenedInteger(Type element) {
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer || integer.getWidth() == 1)
    return {};
  MLIRContext *context = element.getContext();
  bool isUnsigned = integer.isUnsigned();
  unsigned width = integer.getWidth();
  if (width < 32 && (isUnsigned || integer.isSignless()))
    return IntegerType::get(context, 32);
  if (width == 32 && isUnsigned)
    return IntegerType::get(context, 64);
  return {};
}

bool mapWidened(MapFn f, Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  auto widened = [](RankedTensorType type) -> RankedTensorType {
    if (!type)
      return {};
    if (Type wide = widenedInteger(type.getElementType()))
      return RankedTensorType::get(type.getShape(), wide);
    return {};
  };
  bool narrow = false;
  for (int i = 0; i < n.numInputs(); ++i)
    narrow |= static_cast<bool>(widened(n.inputType(i)));
  for (RankedTensorType type : n.outputTypes)
    narrow |= static_cast<bool>(widened(type));
  if (!narrow)
    return f(n, results, reason);

  // The node again, each narrow input renamed to a value of its own: its
  // cast to the wide type, known to the importer while `f` maps.
  Importer &importer = n.importer;
  onnx::NodeProto proto = n.proto;
  SmallVector<std::string> fresh;
  llvm::StringMap<std::string> renamed;
  for (int i = 0; i < n.numInputs(); ++i) {
    RankedTensorType wide = widened(n.inputType(i));
    if (!wide)
      continue;
    const std::string &name = n.proto.input(i);
    auto it = renamed.find(name);
    if (it == renamed.end()) {
      Value input = n.input(i);
      if (!input) {
        reason = "input '" + name + "' has no value";
        return false;
      }
      std::string wideName = "gplace.widened:" + name;
      while (importer.values.count(wideName) ||
             importer.constants.count(wideName) ||
             importer.types.count(wideName))
        wideName += "'";
      importer.values[wideName] = n.op<CastOp>(
          wide, input, {}, "widened_" + std::to_string(i));
      fresh.push_back(wideName);
      it = renamed.try_emplace(name, wideName).first;
    }
    proto.set_input(i, it->second);
  }
  SmallVector<RankedTensorType> outputTypes;
  bool castBack = false;
  for (RankedTensorType type : n.outputTypes) {
    castBack |= static_cast<bool>(widened(type));
    outputTypes.push_back(widened(type) ? widened(type) : type);
  }
  // The op with the node's outputs is named after the node: the cast back,
  // or, where no output is narrow (a comparison's bool), the wide op.
  Node wideNode{importer, proto, castBack ? n.name + "/widened" : n.name,
                n.loc, n.opset, outputTypes};
  SmallVector<Value> wideResults;
  bool mapped = f(wideNode, wideResults, reason);
  for (const std::string &name : fresh)
    importer.values.erase(name);
  if (!mapped)
    return false;
  // Back to the narrow types: a cast truncates (wraps), as C++'s and
  // numpy's integer conversions do; each named after the node.
  for (auto [i, result] : llvm::enumerate(wideResults)) {
    RankedTensorType type =
        i < n.outputTypes.size() ? n.outputTypes[i] : RankedTensorType();
    if (result && type && result.getType() != type)
      result = n.op<CastOp>(type, result, {},
                            i == 0 ? "" : "output_" + std::to_string(i));
    results.push_back(result);
  }
  return true;
}

void addElementwiseMappers(llvm::StringMap<MapFn> &table) {
  table["Acos"] = mapSameFunction<AcosOp>;
  table["Acosh"] = mapSameFunction<AcoshOp>;
  table["Asin"] = mapSameFunction<AsinOp>;
  table["Asinh"] = mapSameFunction<AsinhOp>;
  table["Atan"] = mapSameFunction<AtanOp>;
  table["Atanh"] = mapSameFunction<AtanhOp>;
  table["Ceil"] = mapSameFunction<CeilOp>;
  table["Celu"] = floatInput<mapCelu>;
  table["Cos"] = mapSameFunction<CosOp>;
  table["Cosh"] = mapSameFunction<CoshOp>;
  table["Erf"] = mapSameFunction<ErfOp>;
  table["Floor"] = mapSameFunction<FloorOp>;
  table["HardSwish"] = floatInput<mapHardSwish>;
  table["IsInf"] = mapIsInf;
  table["IsNaN"] = mapSameFunction<IsNanOp>;
  table["Mod"] = widenIntegers<mapMod>;
  table["Round"] = mapSameFunction<RoundOp>;
  table["Shrink"] = floatInput<mapShrink>;
  table["Sign"] = widenIntegers<mapSameFunction<SignOp>>;
  table["Sin"] = mapSameFunction<SinOp>;
  table["Sinh"] = mapSameFunction<SinhOp>;
  table["Softsign"] = mapSameFunction<SoftsignOp>;
  table["Tan"] = mapSameFunction<TanOp>;
  table["ThresholdedRelu"] = floatInput<mapThresholdedRelu>;
}

} // namespace gplace::frontend::onnx_import
