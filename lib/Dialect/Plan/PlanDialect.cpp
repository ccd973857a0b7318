//===- PlanDialect.cpp - gplan, the executable plan -----------------------===//

#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/OpVerifyHooks.h"

#include "gplace/Support/Shape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gplace;
using namespace gplace::plan;

//===----------------------------------------------------------------------===//
// Custom directives (used by the generated op parsers and printers).
//===----------------------------------------------------------------------===//

/// `custom<Kernel>($kernel)`: the kernel's mnemonic, bare (`matmul`).
static ParseResult parseKernel(OpAsmParser &parser, KernelAttr &kernel) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<Kernel> parsed =
      kernelFromMnemonic(std::string_view(name.data(), name.size()));
  if (!parsed)
    return parser.emitError(loc) << "unknown kernel '" << name << "'";
  kernel = KernelAttr::get(parser.getContext(), *parsed);
  return success();
}

static void printKernel(OpAsmPrinter &printer, Operation *, KernelAttr kernel) {
  std::string_view name = kernelMnemonic(kernel.getKernel());
  printer << StringRef(name.data(), name.size());
}

#include "gplace/Dialect/Plan/PlanDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Plan/PlanTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "gplace/Dialect/Plan/PlanAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "gplace/Dialect/Plan/PlanOps.cpp.inc"

// Verification without a heap allocation per op (OpVerifyHooks.h).
#define GPLACE_OPERAND_SEGMENTS_OP(Op)                                         \
  GPLACE_VERIFY_SEGMENTS_FROM_PROPERTIES(Op)
#define GPLACE_OP_CLASS(Op) GPLACE_VERIFY_WITHOUT_ALLOCATION(Op)
#include "gplace/Dialect/Plan/PlanOpClasses.inc"

void PlanDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "gplace/Dialect/Plan/PlanTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gplace/Dialect/Plan/PlanAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "gplace/Dialect/Plan/PlanOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Types and attributes.
//===----------------------------------------------------------------------===//

/// `<2x3xf32>`, `<f32>`.
Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(element) || parser.parseGreater())
    return {};
  // The runtime's element types only: another (i16) had no byte size,
  // which the passes then reported as a size beyond 2^63.
  if (!toElementType(element)) {
    parser.emitError(parser.getNameLoc())
        << "invalid buffer element type " << element
        << " (expected f32, f16, bf16, f64, i32, i64, i1, ui8, i8, i16, "
           "ui16 or ui32)";
    return {};
  }
  return get(parser.getContext(), RankedTensorType::get(shape, element));
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getTensorType().getShape())
    printer << dim << "x";
  printer << getTensorType().getElementType() << ">";
}

Attribute KernelAttr::parse(AsmParser &parser, Type) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseLess() || parser.parseKeyword(&name) ||
      parser.parseGreater())
    return {};
  std::optional<Kernel> kernel =
      kernelFromMnemonic(std::string_view(name.data(), name.size()));
  if (!kernel) {
    parser.emitError(loc) << "unknown kernel '" << name << "'";
    return {};
  }
  return get(parser.getContext(), *kernel);
}

void KernelAttr::print(AsmPrinter &printer) const {
  std::string_view name = kernelMnemonic(getKernel());
  printer << "<" << StringRef(name.data(), name.size()) << ">";
}

std::optional<ElementType> gplace::plan::toElementType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF64())
    return ElementType::F64;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(64))
    return ElementType::I64;
  if (type.isSignlessInteger(1))
    return ElementType::I1;
  if (type.isUnsignedInteger(8))
    return ElementType::UI8;
  if (type.isSignlessInteger(8))
    return ElementType::I8;
  if (type.isSignlessInteger(16))
    return ElementType::I16;
  if (type.isUnsignedInteger(16))
    return ElementType::UI16;
  if (type.isUnsignedInteger(32))
    return ElementType::UI32;
  return std::nullopt;
}

std::optional<int64_t> gplace::plan::getBufferBytes(BufferType type) {
  RankedTensorType tensor = type.getTensorType();
  std::optional<ElementType> element = toElementType(tensor.getElementType());
  if (!element)
    return std::nullopt;
  return checkedTensorBytes(tensor.getShape(), *element);
}

std::optional<int64_t> gplace::plan::getAlignedBytes(BufferType type) {
  std::optional<int64_t> bytes = getBufferBytes(type);
  if (!bytes || *bytes > std::numeric_limits<int64_t>::max() - kAlignment)
    return std::nullopt;
  return (*bytes + kAlignment - 1) / kAlignment * kAlignment;
}

FailureOr<DenseMap<StringAttr, int64_t>>
gplace::plan::getPersistentBytes(Block &body) {
  DenseMap<StringAttr, int64_t> persistent;
  for (Operation &op : body) {
    FlatSymbolRefAttr device;
    if (auto constant = dyn_cast<ConstantOp>(op))
      device = constant.getDeviceAttr();
    else if (auto variable = dyn_cast<VariableOp>(op))
      device = variable.getDeviceAttr();
    else
      continue;
    std::optional<int64_t> bytes =
        getAlignedBytes(cast<BufferType>(op.getResult(0).getType()));
    int64_t &total = persistent[device.getAttr()];
    if (!bytes || __builtin_add_overflow(total, *bytes, &total))
      return op.emitOpError() << "needs more than 2^63 bytes of memory";
  }
  return persistent;
}

LogicalResult gplace::plan::verifyKernelParams(
    Kernel kernel, DictionaryAttr params,
    function_ref<InFlightDiagnostic()> emitError) {
  const std::vector<KernelParamDef> &defs = kernelParamDefs(kernel);
  std::string_view mnemonic = kernelMnemonic(kernel);
  // A launch without parameters has no dictionary at all (no empty one is
  // made for it: that would take the context's lock on every verify).
  ArrayRef<NamedAttribute> given =
      params ? params.getValue() : ArrayRef<NamedAttribute>();
  for (NamedAttribute param : given) {
    StringRef name = param.getName().getValue();
    auto def = llvm::find_if(defs, [&](const KernelParamDef &d) {
      return StringRef(d.name.data(), d.name.size()) == name;
    });
    if (def == defs.end()) {
      std::string known;
      for (const KernelParamDef &d : defs)
        known += (known.empty() ? "" : ", ") + std::string(d.name);
      return emitError() << "kernel '" << mnemonic
                         << "' has no parameter '" << name << "' ("
                         << (known.empty() ? "it takes none"
                                           : "parameters: " + known)
                         << ")";
    }
    Attribute value = param.getValue();
    bool typed = false;
    const char *expected = "";
    switch (def->kind) {
    case KernelParamKind::Bool:
      typed = isa<UnitAttr>(value);
      expected = "a unit attribute";
      break;
    case KernelParamKind::I64: {
      auto integer = dyn_cast<IntegerAttr>(value);
      typed = integer && integer.getType().isSignlessInteger(64);
      expected = "an i64 integer";
      break;
    }
    case KernelParamKind::I64Array:
      typed = isa<DenseI64ArrayAttr>(value);
      expected = "an array<i64>";
      break;
    case KernelParamKind::F64:
      typed = isa<FloatAttr>(value);
      expected = "a floating-point number";
      break;
    }
    if (!typed)
      return emitError() << "parameter '" << name << "' of kernel '"
                         << mnemonic << "' must be " << expected
                         << ", but is " << value;
  }
  for (const KernelParamDef &def : defs)
    if (def.kind != KernelParamKind::Bool &&
        (!params || !params.get(StringRef(def.name.data(), def.name.size()))))
      return emitError() << "kernel '" << mnemonic
                         << "' needs parameter '" << def.name << "'";
  return success();
}

Value gplace::plan::getViewRoot(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewOp>())
    buffer = view.getSource();
  return buffer;
}

bool gplace::plan::isFusedInRegisters(Value buffer) {
  auto launch = buffer.getDefiningOp<LaunchOp>();
  if (!launch || !launch.getFusionAttr())
    return false;
  IntegerAttr group = launch.getFusionAttr();
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    auto other = dyn_cast<LaunchOp>(user);
    return other && other.getFusionAttr() == group;
  });
}

OperandRange gplace::plan::getStepWaits(Operation *step) {
  if (auto launch = dyn_cast<LaunchOp>(step))
    return launch.getWaits();
  if (auto copy = dyn_cast<CopyOp>(step))
    return copy.getWaits();
  return OperandRange(step->getOperands().end(), step->getOperands().end());
}

/// setStepWaits for one of the step ops.
template <typename StepOp> static void setWaits(StepOp step, ValueRange waits) {
  auto &sizes = step.getProperties().operandSegmentSizes;
  size_t after = sizes.size() - 2, last = sizes.size() - 1;
  unsigned start = 0;
  for (size_t group = 0; group < after; ++group)
    start += sizes[group];
  step->setOperands(start, sizes[after] + sizes[last], waits);
  sizes[after] = 0;
  sizes[last] = static_cast<int32_t>(waits.size());
}

void gplace::plan::setStepWaits(Operation *step, ValueRange waits) {
  if (auto launch = dyn_cast<LaunchOp>(step))
    return setWaits(launch, waits);
  setWaits(cast<CopyOp>(step), waits);
}

Value gplace::plan::recordAfter(OpBuilder &builder, Operation *step) {
  FlatSymbolRefAttr device;
  IntegerAttr stream;
  if (auto launch = dyn_cast<LaunchOp>(step)) {
    device = launch.getDeviceAttr();
    stream = launch.getStreamAttr();
  } else {
    auto copy = cast<CopyOp>(step);
    device = copy.getDeviceAttr();
    stream = copy.getStreamAttr();
  }
  for (Operation *next = step->getNextNode(); next && isa<RecordOp>(next);
       next = next->getNextNode()) {
    auto record = cast<RecordOp>(next);
    if (record.getDeviceAttr() == device && record.getStreamAttr() == stream)
      return record.getEvent();
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfter(step);
  return builder.create<RecordOp>(step->getLoc(), device, stream);
}

void gplace::plan::forEachArenaBuffer(
    ProgramOp program, function_ref<void(Value, FlatSymbolRefAttr)> fn) {
  for (Operation &op : program.getBody().front()) {
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      for (Value result : launch.getResults())
        if (isa<BufferType>(result.getType()))
          fn(result, launch.getDeviceAttr());
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      fn(copy.getResult(), copy.getDeviceAttr());
    }
  }
}

//===----------------------------------------------------------------------===//
// Device references and streams.
//===----------------------------------------------------------------------===//

/// Checks a step's stream and waits: a stream of the device if set, and
/// waits (for events of a scheduled plan) only on a step with a stream.
static LogicalResult verifyStream(Operation *op, IntegerAttr streamAttr,
                                  ValueRange waits = {}) {
  std::optional<int64_t> stream;
  if (streamAttr)
    stream = streamAttr.getInt();
  if (stream && (*stream < 0 || *stream >= kNumStreams))
    return op->emitOpError() << "stream " << *stream
                             << " does not exist (a device has streams 0 "
                                "to "
                             << kNumStreams - 1 << ")";
  if (!stream && !waits.empty())
    return op->emitOpError() << "waits for events but has no stream";
  return success();
}

/// The device an op of a program names, or null for an op naming none.
static FlatSymbolRefAttr getDeviceOf(Operation *op) {
  if (auto launch = dyn_cast<LaunchOp>(op))
    return launch.getDeviceAttr();
  if (auto copy = dyn_cast<CopyOp>(op))
    return copy.getDeviceAttr();
  if (auto record = dyn_cast<RecordOp>(op))
    return record.getDeviceAttr();
  if (auto constant = dyn_cast<ConstantOp>(op))
    return constant.getDeviceAttr();
  if (auto variable = dyn_cast<VariableOp>(op))
    return variable.getDeviceAttr();
  if (auto arena = dyn_cast<ArenaOp>(op))
    return arena.getDeviceAttr();
  return {};
}

// One check per program rather than one symbol lookup per op: the module's
// devices are looked up once each.
LogicalResult ProgramOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *scope = SymbolTable::getNearestSymbolTable((*this)->getParentOp());
  DenseMap<StringAttr, bool> known;
  for (Operation &op : getBody().front()) {
    FlatSymbolRefAttr device = getDeviceOf(&op);
    if (!device)
      continue;
    auto [it, isNew] = known.try_emplace(device.getAttr(), false);
    if (isNew)
      it->second = scope && isa_and_nonnull<DeviceOp>(symbolTable.lookupSymbolIn(
                                scope, device.getAttr()));
    if (!it->second)
      return op.emitOpError() << "uses " << device
                              << ", which is not a gplan.device of the module";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Assembly of the steps and records, written in C++ for speed (see
// PlanOps.td for the formats they follow).
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Step names.
//===----------------------------------------------------------------------===//

void StepName::appendTo(SmallVectorImpl<char> &out) const {
  out.append(text.begin(), text.end());
  if (suffix != 0) {
    out.push_back('_');
    llvm::raw_svector_ostream(out) << suffix;
  }
}

std::string StepName::str() const {
  SmallString<64> name;
  appendTo(name);
  return name.str().str();
}

bool StepName::operator==(const StepName &other) const {
  if (suffix == other.suffix)
    return text == other.text;
  SmallString<64> mine, theirs;
  appendTo(mine);
  other.appendTo(theirs);
  return mine == theirs;
}

llvm::hash_code gplace::plan::hash_value(const StepName &name) {
  if (name.suffix == 0)
    return llvm::hash_value(name.text);
  SmallString<64> text;
  name.appendTo(text);
  return llvm::hash_value(StringRef(text));
}

Attribute gplace::plan::convertToAttribute(MLIRContext *context,
                                           const StepName &name) {
  SmallString<64> text;
  name.appendTo(text);
  return StringAttr::get(context, text);
}

LogicalResult gplace::plan::convertFromAttribute(
    StepName &name, Attribute attr,
    llvm::function_ref<InFlightDiagnostic()> emitError) {
  auto text = dyn_cast<StringAttr>(attr);
  if (!text) {
    if (emitError)
      emitError() << "expected a string for a step's name, got " << attr;
    return failure();
  }
  name = {text.getValue(), 0}; // The attribute lives as long as the context.
  return success();
}

/// Prints ` name "text"` for a named step.
static void printStepName(OpAsmPrinter &printer, const StepName &name) {
  if (name.empty())
    return;
  SmallString<64> text;
  name.appendTo(text);
  printer << " name ";
  printer.printString(text);
}

/// Parses `name "text"` if the keyword is next.
static ParseResult parseOptionalStepName(OpAsmParser &parser, StepName &name) {
  if (failed(parser.parseOptionalKeyword("name")))
    return success();
  // A string, not an attribute: `"MatMul" : (...) -> ...` would read as a
  // typed attribute.
  std::string text;
  if (parser.parseString(&text))
    return failure();
  name = {parser.getBuilder().getStringAttr(text).getValue(), 0};
  return success();
}

/// Prints the discardable attributes (the inherent ones are in the syntax).
static void printDiscardableAttrs(OpAsmPrinter &printer, Operation *op) {
  printer.printOptionalAttrDict(op->getDiscardableAttrDictionary().getValue());
}

/// Prints ` on @device`, ` stream N` if set.
static void printDeviceAndStream(OpAsmPrinter &printer,
                                 FlatSymbolRefAttr device, IntegerAttr stream) {
  printer << " on ";
  printer.printSymbolName(device.getValue());
  if (stream)
    printer << " stream " << stream.getInt();
}

/// Prints ` keyword(%a, %b)` for a non-empty list.
static void printOperandGroup(OpAsmPrinter &printer, StringRef keyword,
                              OperandRange operands) {
  if (operands.empty())
    return;
  printer << ' ' << keyword << '(';
  printer.printOperands(operands);
  printer << ')';
}

/// Parses `on @device`.
static ParseResult parseDevice(OpAsmParser &parser, FlatSymbolRefAttr &device) {
  StringAttr name;
  if (parser.parseKeyword("on") || parser.parseSymbolName(name))
    return failure();
  device = FlatSymbolRefAttr::get(name);
  return success();
}

/// Parses `keyword N` if the keyword is next.
static ParseResult parseOptionalInt(OpAsmParser &parser, StringRef keyword,
                                    IntegerAttr &value) {
  if (failed(parser.parseOptionalKeyword(keyword)))
    return success();
  int64_t number = 0;
  if (parser.parseInteger(number))
    return failure();
  value = parser.getBuilder().getI64IntegerAttr(number);
  return success();
}

/// Parses `keyword(%a, %b)` if the keyword is next.
static ParseResult
parseOptionalOperandGroup(OpAsmParser &parser, StringRef keyword,
                          SmallVectorImpl<OpAsmParser::UnresolvedOperand> &list) {
  if (failed(parser.parseOptionalKeyword(keyword)))
    return success();
  return parser.parseOperandList(list, OpAsmParser::Delimiter::Paren);
}

/// Resolves a step's `after(...)` tokens and `wait(...)` events, in that
/// order, into `result`'s operands.
static ParseResult
resolveAfterAndWaits(OpAsmParser &parser,
                     ArrayRef<OpAsmParser::UnresolvedOperand> after,
                     ArrayRef<OpAsmParser::UnresolvedOperand> waits,
                     OperationState &result) {
  Builder &builder = parser.getBuilder();
  return failure(
      parser.resolveOperands(after, builder.getType<TokenType>(),
                             result.operands) ||
      parser.resolveOperands(waits, builder.getType<EventType>(),
                             result.operands));
}

void LaunchOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  printKernel(printer, *this, getKernel());
  printer << '(';
  printer.printOperands(getInputs());
  printer << ')';
  printOperandGroup(printer, "into", getOuts());
  printDeviceAndStream(printer, getDeviceAttr(), getStreamAttr());
  if (IntegerAttr fusion = getFusionAttr())
    printer << " fusion " << fusion.getInt();
  if (getWorkspace())
    printer << " workspace";
  printOperandGroup(printer, "after", getAfter());
  printOperandGroup(printer, "wait", getWaits());
  printStepName(printer, getProperties().step_name);
  if (DictionaryAttr params = getParamsAttr()) {
    printer << ' ';
    printer.printAttributeWithoutType(params);
  }
  // After the keyword `attributes`: a bare dictionary here would read back
  // as the kernel's parameters (a control-flow launch's then_branch, ...).
  printer.printOptionalAttrDictWithKeyword(
      getOperation()->getDiscardableAttrDictionary().getValue());
  printer << " : (" << getInputs().getTypes() << ')';
  if (!getOuts().empty())
    printer << " into(" << getOuts().getTypes() << ')';
  printer << " -> " << getResultTypes();
}

ParseResult LaunchOp::parse(OpAsmParser &parser, OperationState &result) {
  KernelAttr kernel;
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, outs, after, waits;
  FlatSymbolRefAttr device;
  IntegerAttr stream, fusion;
  Attribute params;
  SmallVector<Type> inputTypes, outTypes, resultTypes;
  if (parseKernel(parser, kernel) ||
      parser.parseOperandList(inputs, OpAsmParser::Delimiter::Paren) ||
      parseOptionalOperandGroup(parser, "into", outs) ||
      parseDevice(parser, device) ||
      parseOptionalInt(parser, "stream", stream) ||
      parseOptionalInt(parser, "fusion", fusion))
    return failure();
  bool workspace = succeeded(parser.parseOptionalKeyword("workspace"));
  StepName name;
  if (parseOptionalOperandGroup(parser, "after", after) ||
      parseOptionalOperandGroup(parser, "wait", waits) ||
      parseOptionalStepName(parser, name))
    return failure();
  llvm::SMLoc paramsLoc = parser.getCurrentLocation();
  OptionalParseResult hasParams = parser.parseOptionalAttribute(params);
  if (hasParams.has_value() && failed(*hasParams))
    return failure();
  if (params && !isa<DictionaryAttr>(params))
    return parser.emitError(paramsLoc, "expected a dictionary of parameters");
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColon() || parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen()) &&
      (parser.parseTypeList(inputTypes) || parser.parseRParen()))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("into")) &&
      (parser.parseLParen() || parser.parseTypeList(outTypes) ||
       parser.parseRParen()))
    return failure();
  if (parser.parseArrow() || parser.parseTypeList(resultTypes))
    return failure();

  Properties &props = result.getOrAddProperties<Properties>();
  props.kernel = kernel;
  props.device = device;
  props.stream = stream;
  props.fusion = fusion;
  if (workspace)
    props.workspace = parser.getBuilder().getUnitAttr();
  props.params = llvm::cast_if_present<DictionaryAttr>(params);
  props.step_name = name;
  props.operandSegmentSizes = {static_cast<int32_t>(inputs.size()),
                               static_cast<int32_t>(outs.size()),
                               static_cast<int32_t>(after.size()),
                               static_cast<int32_t>(waits.size())};
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.resolveOperands(inputs, inputTypes, loc, result.operands) ||
      parser.resolveOperands(outs, outTypes, loc, result.operands) ||
      resolveAfterAndWaits(parser, after, waits, result))
    return failure();
  result.addTypes(resultTypes);
  return success();
}

void CopyOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getSource() << " to ";
  printer.printSymbolName(getDeviceAttr().getValue());
  if (IntegerAttr stream = getStreamAttr())
    printer << " stream " << stream.getInt();
  printOperandGroup(printer, "after", getAfter());
  printOperandGroup(printer, "wait", getWaits());
  printStepName(printer, getProperties().step_name);
  printDiscardableAttrs(printer, *this);
  printer << " : " << getSource().getType();
}

ParseResult CopyOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand source;
  SmallVector<OpAsmParser::UnresolvedOperand> after, waits;
  StringAttr device;
  IntegerAttr stream;
  StepName name;
  Type type;
  if (parser.parseOperand(source) || parser.parseKeyword("to") ||
      parser.parseSymbolName(device) ||
      parseOptionalInt(parser, "stream", stream) ||
      parseOptionalOperandGroup(parser, "after", after) ||
      parseOptionalOperandGroup(parser, "wait", waits) ||
      parseOptionalStepName(parser, name) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  Properties &props = result.getOrAddProperties<Properties>();
  props.device = FlatSymbolRefAttr::get(device);
  props.stream = stream;
  props.step_name = name;
  props.operandSegmentSizes = {1, static_cast<int32_t>(after.size()),
                               static_cast<int32_t>(waits.size())};
  if (parser.resolveOperand(source, type, result.operands) ||
      resolveAfterAndWaits(parser, after, waits, result))
    return failure();
  result.addTypes(type);
  return success();
}

/// Parses ` @device` (a FlatSymbolRefAttr) into `device`.
static ParseResult parseDeviceSymbol(OpAsmParser &parser,
                                     FlatSymbolRefAttr &device) {
  return parser.parseCustomAttributeWithFallback(
      device, parser.getBuilder().getType<NoneType>());
}

/// Parses an optional attribute dictionary whose entries named as `Op`'s
/// inherent attributes must have their types, as a declarative format does.
template <typename Op>
static ParseResult parseAttrDictOf(OpAsmParser &parser,
                                   OperationState &result) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return Op::verifyInherentAttrs(result.name, result.attributes, [&] {
    return parser.emitError(loc)
           << "'" << result.name.getStringRef() << "' op ";
  });
}

/// The inferred result types of a parsed `Op` (a constant or a variable).
template <typename Op>
static ParseResult addInferredTypes(OpAsmParser &parser,
                                    OperationState &result) {
  SmallVector<Type, 1> types;
  if (failed(Op::inferReturnTypes(
          parser.getContext(), result.location, result.operands,
          result.attributes.getDictionary(parser.getContext()),
          result.getRawProperties(), result.regions, types)))
    return failure();
  result.addTypes(types);
  return success();
}

/// Prints a constant's or a variable's ` @device ["name"] value {attrs}`
/// (`name` null for a constant).
static void printPersistent(OpAsmPrinter &printer, Operation *op,
                            FlatSymbolRefAttr device, StringAttr name,
                            ElementsAttr value) {
  printer << ' ';
  printer.printAttributeWithoutType(device);
  if (name) {
    printer << ' ';
    printer.printAttributeWithoutType(name);
  }
  printer << ' ';
  printer.printStrippedAttrOrType(value);
  printDiscardableAttrs(printer, op);
}

/// Parses what printPersistent prints into `Op`'s properties and adds the
/// inferred result type; `name` is null for an op without one.
template <typename Op>
static ParseResult parsePersistent(OpAsmParser &parser, OperationState &result,
                                   FlatSymbolRefAttr &device, StringAttr *name,
                                   ElementsAttr &value) {
  if (parseDeviceSymbol(parser, device) ||
      (name && parser.parseCustomAttributeWithFallback(
                   *name, parser.getBuilder().getType<NoneType>())) ||
      parser.parseCustomAttributeWithFallback(value, Type()) ||
      parseAttrDictOf<Op>(parser, result))
    return failure();
  return addInferredTypes<Op>(parser, result);
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printPersistent(printer, *this, getDeviceAttr(), StringAttr(),
                  getValueAttr());
}

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  Properties &props = result.getOrAddProperties<Properties>();
  return parsePersistent<ConstantOp>(parser, result, props.device,
                                     /*name=*/nullptr, props.value);
}

void VariableOp::print(OpAsmPrinter &printer) {
  printPersistent(printer, *this, getDeviceAttr(), getVarNameAttr(),
                  getInitialValueAttr());
}

ParseResult VariableOp::parse(OpAsmParser &parser, OperationState &result) {
  Properties &props = result.getOrAddProperties<Properties>();
  return parsePersistent<VariableOp>(parser, result, props.device,
                                     &props.var_name, props.initial_value);
}

void ViewOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getSource();
  printOperandGroup(printer, "after", getAfter());
  printDiscardableAttrs(printer, *this);
  printer << " : " << getSource().getType() << " -> " << getType();
}

ParseResult ViewOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand source;
  SmallVector<OpAsmParser::UnresolvedOperand> after;
  Type sourceType, resultType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperand(source) ||
      parseOptionalOperandGroup(parser, "after", after) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(sourceType) || parser.parseArrow() ||
      parser.parseType(resultType) ||
      parser.resolveOperand(source, sourceType, result.operands) ||
      parser.resolveOperands(after, parser.getBuilder().getType<TokenType>(),
                             loc, result.operands))
    return failure();
  result.addTypes(resultType);
  return success();
}

void RecordOp::print(OpAsmPrinter &printer) {
  printDeviceAndStream(printer, getDeviceAttr(), getStreamAttr());
  printDiscardableAttrs(printer, *this);
}

ParseResult RecordOp::parse(OpAsmParser &parser, OperationState &result) {
  FlatSymbolRefAttr device;
  int64_t stream;
  if (parseDevice(parser, device) || parser.parseKeyword("stream") ||
      parser.parseInteger(stream) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Properties &props = result.getOrAddProperties<Properties>();
  props.device = device;
  props.stream = parser.getBuilder().getI64IntegerAttr(stream);
  result.addTypes(parser.getBuilder().getType<EventType>());
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers.
//===----------------------------------------------------------------------===//

LogicalResult DeviceOp::verify() {
  for (IntegerAttr bytes : {getMemoryLimitAttr(), getPersistentBytesAttr(),
                            getArenaBytesAttr(), getPeakBytesAttr()})
    if (bytes && bytes.getInt() < 0)
      return emitOpError() << "byte counts must not be negative, but got "
                           << bytes.getInt();
  return success();
}

LogicalResult ProgramOp::verify() {
  if (getBody().empty() || getBody().front().empty() ||
      !isa<ReturnOp>(getBody().front().back()))
    return emitOpError() << "must end with gplan.return";
  // Its inputs are gplan.input ops, whose buffers the exporter knows.
  if (getBody().front().getNumArguments() != 0)
    return emitOpError() << "takes its inputs with gplan.input, not as "
                            "block arguments";
  return success();
}

LogicalResult InputOp::verify() {
  if (getIndexAttr().getInt() < 0)
    return emitOpError() << "index must not be negative, but is "
                         << getIndexAttr().getInt();
  return success();
}

LogicalResult ViewOp::verify() {
  auto from = cast<BufferType>(getSource().getType());
  auto to = cast<BufferType>(getType());
  std::optional<int64_t> fromBytes = getBufferBytes(from);
  if (!fromBytes || fromBytes != getBufferBytes(to))
    return emitOpError() << "views " << from << " as " << to
                         << ", which has another size";
  return success();
}

LogicalResult LaunchOp::verify() {
  Kernel kernel = getKernel().getKernel();
  std::string_view mnemonic = kernelMnemonic(kernel);
  DictionaryAttr params = getParamsAttr();
  if (failed(verifyKernelParams(
          kernel, params,
          [&] { return emitOpError(); })))
    return failure();
  if (failed(verifyStream(*this, getStreamAttr(), getWaits())))
    return failure();
  if (IntegerAttr fusion = getFusionAttr()) {
    if (fusion.getInt() < 0)
      return emitOpError() << "fusion group " << fusion.getInt()
                           << " must not be negative";
    if (!isElementwiseKernel(kernel))
      return emitOpError() << "kernel '" << mnemonic
                           << "' is not elementwise and cannot be fused";
  }
  int arity = kernelArity(kernel);
  size_t operands = getInputs().size() + getOuts().size();
  if (arity >= 0 ? operands != static_cast<size_t>(arity) : operands == 0)
    return emitOpError() << "kernel '" << mnemonic << "' takes "
                         << (arity >= 0 ? std::to_string(arity)
                                        : "one or more")
                         << " operands, but the launch has " << operands;
  if (getWorkspace()) {
    Value workspace = getWorkspaceBuffer();
    auto type =
        workspace ? dyn_cast<BufferType>(workspace.getType()) : BufferType();
    if (!type || type.getTensorType().getRank() != 1 ||
        !type.getTensorType().getElementType().isUnsignedInteger(8))
      return emitOpError() << "has a workspace, so its last buffer result "
                              "must be a !gplan.buffer<Nxui8>";
    if (getFusionAttr())
      return emitOpError() << "has a workspace and cannot be fused";
    if (!workspace.use_empty())
      return emitOpError() << "has a workspace, which nothing may read";
  }
  // Results: the new buffers, then a token if the kernel writes in place.
  size_t tokens = llvm::count_if(getResultTypes(), [](Type type) {
    return isa<TokenType>(type);
  });
  // A launch run for its effect alone (send) returns just a token.
  bool inPlace = !getOuts().empty();
  bool effectOnly = !inPlace && getNumResults() == 1 && tokens == 1;
  if (effectOnly && isElementwiseKernel(kernel))
    return emitOpError() << "kernel '" << mnemonic
                         << "' is elementwise and must write a buffer";
  if (effectOnly)
    return success();
  if (tokens != (inPlace ? 1u : 0u) ||
      (inPlace && !isa<TokenType>(getResult(getNumResults() - 1).getType())))
    return emitOpError() << (inPlace ? "writes buffers in place and must "
                                       "return one token, last"
                                     : "writes nothing in place and must "
                                       "return no token, or only a token");
  if (getNumResults() == 0)
    return emitOpError() << "must write a buffer or return a token";
  return success();
}

Value LaunchOp::getWorkspaceBuffer() {
  if (!getWorkspace())
    return {};
  for (Value result : llvm::reverse(getResults()))
    if (isa<BufferType>(result.getType()))
      return result;
  return {};
}

LogicalResult CopyOp::verify() {
  return verifyStream(*this, getStreamAttr(), getWaits());
}
LogicalResult RecordOp::verify() {
  return verifyStream(*this, getStreamAttr());
}

LogicalResult ArenaOp::verify() {
  int64_t bytes = getBytesAttr().getInt();
  if (bytes < 0 || bytes % kAlignment != 0)
    return emitOpError() << "bytes must be a non-negative multiple of "
                         << kAlignment << ", but is " << bytes;
  for (auto [index, offset] : llvm::enumerate(getOffsets()))
    // 0 is valid in any arena, even an empty one: empty tensors live there.
    if (offset < -1 || (offset >= 0 && offset % kAlignment != 0) ||
        (offset > 0 && offset >= bytes))
      return emitOpError() << "offset #" << index << " (" << offset
                           << ") must be -1, 0 or a multiple of " << kAlignment
                           << " below " << bytes;
  return success();
}

//===----------------------------------------------------------------------===//
// Type inference.
//===----------------------------------------------------------------------===//

/// The buffer type holding `value`, for the result of constant and
/// variable.
static LogicalResult inferBufferOf(MLIRContext *context,
                                   std::optional<Location> location,
                                   Attribute value,
                                   SmallVectorImpl<Type> &inferred) {
  auto elements = dyn_cast_or_null<ElementsAttr>(value);
  auto type = elements ? dyn_cast<RankedTensorType>(elements.getType())
                       : RankedTensorType();
  if (!type)
    return emitOptionalError(location, "expects a ranked tensor value");
  if (!toElementType(type.getElementType()))
    return emitOptionalError(location,
                             "expects a value of f32, f16, bf16, "
                             "f64, i32, i64, i1, ui8, i8, i16, ui16 or "
                             "ui32, not ",
                             type.getElementType());
  inferred.push_back(BufferType::get(context, type));
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  return inferBufferOf(context, location, adaptor.getValueAttr(), inferred);
}

LogicalResult VariableOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  return inferBufferOf(context, location, adaptor.getInitialValueAttr(),
                       inferred);
}
