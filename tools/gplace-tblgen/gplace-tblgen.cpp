//===- gplace-tblgen.cpp - the op table from the graph dialect's ODS ------===//
//
// A TableGen backend, as IREE's iree-tblgen and TensorFlow's op generators
// are: it reads the records of dialects/graph/GraphOps.td and writes the op
// table every consumer of "what an op is" includes, so that an op is
// declared once (its ODS record) and the kernel registry, the runtime's
// kernel ids, kernel parameters and the plan's launch verifier all follow:
//
//   gplace-tblgen -gen-op-table GraphOps.td -I ... -o GraphOpTable.def
//
// With -gen-op-class-list it writes instead, for the dialect's verification
// hooks (include/gplace/Dialect/OpVerifyHooks.h), one row per op of the
// file with operand segments (AttrSizedOperandSegments),
// GPLACE_OPERAND_SEGMENTS_OP(::ns::SomeOp), then one per op,
// GPLACE_OP_CLASS(::ns::SomeOp).
//
// The output is a plain X-macro file (no MLIR types), so the runtime, which
// does not link MLIR, includes it too. Its rows:
//
//   GPLACE_OP(Mnemonic, TensorFlowType, Typeless)
//     every op;
//   GPLACE_KERNEL(Kernel, Mnemonic, Elementwise, Arity, TypedByOperand)
//     every op with KernelOpInterface (Graph_KernelOp): its kernel id (the
//     record's name without Graph_ and Op), whether it is elementwise
//     (ElementwiseOpInterface), its number of data operands (-1: variadic),
//     and whether its element type is its first operand's rather than its
//     result's (KernelTypeFromOperands);
//   GPLACE_KERNEL_ACCUMULATES(Kernel)
//     every kernel op with AccumulatesIntoFirstOperand: its result may take
//     its first operand's memory (matmul_accumulate);
//   GPLACE_KERNEL_PARAM(Kernel, Name, Kind, Field)
//     every attribute of such an op but the placement ones: its name, its
//     kind (Bool for a unit attribute, I64, I64Array) and the field of
//     gplace::KernelParams that holds it (the name in lowerCamelCase).
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/Operator.h"
#include "mlir/TableGen/Trait.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <algorithm>

using namespace llvm;

static cl::opt<bool> genOpTable("gen-op-table",
                                cl::desc("Write the gplace op table"),
                                cl::init(true));
static cl::opt<bool>
    genOpClassList("gen-op-class-list",
                   cl::desc("Write GPLACE_OP_CLASS(class) for every op"));

namespace {

bool hasInterface(const mlir::tblgen::Operator &op, StringRef name) {
  for (const mlir::tblgen::Trait &trait : op.getTraits())
    if (const auto *iface = dyn_cast<mlir::tblgen::InterfaceTrait>(&trait))
      if (iface->getFullyQualifiedTraitName() ==
          ("::gplace::graph::" + name + "::Trait").str())
        return true;
  return false;
}

/// transpose_a -> transposeA.
std::string lowerCamel(StringRef name) {
  std::string out;
  bool upper = false;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? toUpper(c) : c;
    upper = false;
  }
  return out;
}

bool emitOpTable(raw_ostream &os, RecordKeeper &records) {
  emitSourceFileHeader("gplace op table (gplace-tblgen -gen-op-table)", os,
                       records);
  std::vector<Record *> defs = records.getAllDerivedDefinitions("Graph_Op");
  llvm::sort(defs, [](const Record *a, const Record *b) {
    return a->getValueAsString("opName") < b->getValueAsString("opName");
  });

  os << "#ifndef GPLACE_OP\n"
        "#define GPLACE_OP(Mnemonic, TensorFlowType, Typeless)\n#endif\n";
  for (const Record *def : defs) {
    mlir::tblgen::Operator op(def);
    os << formatv("GPLACE_OP(\"{0}\", \"{1}\", {2})\n",
                  def->getValueAsString("opName"),
                  def->getValueAsString("tensorFlowType"),
                  def->getValueAsBit("typelessKernel") ? "true" : "false");
  }
  os << "#undef GPLACE_OP\n\n";

  std::string kernels, params, accumulating;
  raw_string_ostream kos(kernels), pos(params), aos(accumulating);
  for (const Record *def : defs) {
    mlir::tblgen::Operator op(def);
    if (!hasInterface(op, "KernelOpInterface"))
      continue;
    StringRef cls = op.getCppClassName();
    if (!cls.consume_back("Op"))
      PrintFatalError(def, "a kernel op's class name must end in Op");
    bool elementwise = hasInterface(op, "ElementwiseOpInterface");
    int arity = 0;
    for (int i = 0, e = op.getNumOperands(); i < e; ++i) {
      const mlir::tblgen::NamedTypeConstraint &operand = op.getOperand(i);
      if (operand.name == "controlDeps")
        continue;
      if (operand.isVariableLength()) {
        arity = -1;
        break;
      }
      ++arity;
    }
    bool typedByOperand = false, accumulates = false;
    for (const mlir::tblgen::Trait &trait : op.getTraits())
      if (const auto *native = dyn_cast<mlir::tblgen::NativeTrait>(&trait)) {
        typedByOperand |= native->getFullyQualifiedTraitName() ==
                          "::gplace::graph::OpTrait::KernelTypeFromOperands";
        accumulates |=
            native->getFullyQualifiedTraitName() ==
            "::gplace::graph::OpTrait::AccumulatesIntoFirstOperand";
      }
    if (accumulates)
      aos << formatv("GPLACE_KERNEL_ACCUMULATES({0})\n", cls);
    kos << formatv("GPLACE_KERNEL({0}, \"{1}\", {2}, {3}, {4})\n", cls,
                   def->getValueAsString("opName"),
                   elementwise ? "true" : "false", arity,
                   typedByOperand ? "true" : "false");
    // The parameters: the record's `kernelParameters` when it lists any,
    // else the op's own attributes.
    SmallVector<std::pair<StringRef, StringRef>> named;
    const DagInit *listed = def->getValueAsDag("kernelParameters");
    for (unsigned i = 0, e = listed->getNumArgs(); i < e; ++i) {
      const auto *arg = dyn_cast<DefInit>(listed->getArg(i));
      if (!arg || listed->getArgNameStr(i).empty())
        PrintFatalError(def, "kernelParameters must list named attributes");
      named.push_back({listed->getArgNameStr(i), arg->getDef()->getName()});
    }
    if (named.empty())
      for (const mlir::tblgen::NamedAttribute &attr : op.getAttributes())
        named.push_back({attr.name, attr.attr.getBaseAttr().getAttrDefName()});
    for (auto [name, defName] : named) {
      if (name == "device" || name == "name" || name == "assigned_device" ||
          name == "operandSegmentSizes")
        continue;
      // A symbol names a function the kernel runs (gplace.if's branches,
      // gplace.while's cond and body): lowering carries it on the launch,
      // not among the parameters.
      if (defName == "FlatSymbolRefAttr")
        continue;
      StringRef kind = StringSwitch<StringRef>(defName)
                           .Case("UnitAttr", "Bool")
                           .Case("I64Attr", "I64")
                           .Case("DenseI64ArrayAttr", "I64Array")
                           .Cases("F32Attr", "F64Attr", "F64")
                           .Default("");
      if (kind.empty())
        PrintFatalError(def, "kernel parameter '" + name + "' has kind " +
                                 defName +
                                 ", which gplace::KernelParams cannot hold "
                                 "(UnitAttr, I64Attr, DenseI64ArrayAttr, F32Attr or "
                                 "F64Attr)");
      pos << formatv("GPLACE_KERNEL_PARAM({0}, \"{1}\", {2}, {3})\n", cls,
                     name, kind, lowerCamel(name));
    }
  }
  os << "#ifndef GPLACE_KERNEL\n"
        "#define GPLACE_KERNEL(Kernel, Mnemonic, Elementwise, Arity, "
        "TypedByOperand)\n"
        "#endif\n"
     << kernels << "#undef GPLACE_KERNEL\n\n";
  os << "#ifndef GPLACE_KERNEL_ACCUMULATES\n"
        "#define GPLACE_KERNEL_ACCUMULATES(Kernel)\n"
        "#endif\n"
     << accumulating << "#undef GPLACE_KERNEL_ACCUMULATES\n\n";
  os << "#ifndef GPLACE_KERNEL_PARAM\n"
        "#define GPLACE_KERNEL_PARAM(Kernel, Name, Kind, Field)\n"
        "#endif\n"
     << params << "#undef GPLACE_KERNEL_PARAM\n";
  return false;
}

bool emitOpClassList(raw_ostream &os, RecordKeeper &records) {
  emitSourceFileHeader("gplace op classes (gplace-tblgen -gen-op-class-list)",
                       os, records);
  std::vector<Record *> defs = records.getAllDerivedDefinitions("Op");
  os << "#ifndef GPLACE_OPERAND_SEGMENTS_OP\n"
        "#define GPLACE_OPERAND_SEGMENTS_OP(Class)\n#endif\n";
  for (const Record *def : defs) {
    mlir::tblgen::Operator op(def);
    if (op.getTrait("::mlir::OpTrait::AttrSizedOperandSegments"))
      os << "GPLACE_OPERAND_SEGMENTS_OP(" << op.getQualCppClassName() << ")\n";
  }
  os << "#undef GPLACE_OPERAND_SEGMENTS_OP\n";
  os << "#ifndef GPLACE_OP_CLASS\n#define GPLACE_OP_CLASS(Class)\n#endif\n";
  for (const Record *def : defs)
    os << "GPLACE_OP_CLASS("
       << mlir::tblgen::Operator(def).getQualCppClassName() << ")\n";
  os << "#undef GPLACE_OP_CLASS\n";
  return false;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv);
  return TableGenMain(argv[0],
                      genOpClassList ? &emitOpClassList : &emitOpTable);
}
