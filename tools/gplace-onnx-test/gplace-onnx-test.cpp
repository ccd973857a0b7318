//===- gplace-onnx-test.cpp - ONNX's backend tests through gplace ---------===//
//
// The conformance driver (docs/onnx.md): runs ONNX's backend test cases
// (libonnx-testdata: one directory per test with model.onnx and
// test_data_set_*/input_*.pb, output_*.pb) through the importer, the
// compiler and the runtime, as gplace-run runs a model, and compares each
// output with ONNX's backend tolerances (|actual - expected| <= atol +
// rtol * |expected|, rtol 1e-3, atol 1e-7; integers and booleans exactly).
//
//   gplace-onnx-test /usr/include/onnx/backend/test/data/node
//   gplace-onnx-test --emulate-gpus=2 --filter='test_gemm.*' DIR
//   gplace-onnx-test --markdown DIR...      # the table in docs/onnx.md
//
// The inputs a node needs at import time (Resize's sizes, TopK's k, Tile's
// repeats), which the tests give as graph inputs, take each data set's
// values: the model is imported for them (OnnxImportOptions::inputValues),
// and again for a data set that gives other values.
//
// Each test is passed, failed (an import error that is not an unsupported
// op or type, a compile or run error, a wrong result), or unsupported (an
// op type or form the importer does not map, an element type gplace lacks,
// a shape shape inference leaves dynamic). A test whose reference outputs
// contradict ONNX's own operator definition (kBadReference below, each with
// the ONNX issue that reports it) and whose result differs from them is
// "bad reference", not failed. A test whose model draws random numbers
// (RandomUniform, RandomUniformLike, RandomNormal, RandomNormalLike,
// Bernoulli, Dropout in training mode: the importer reports them,
// OnnxImportReport::random) has as reference numpy's draws, which no other
// generator reproduces: it is "random (shape checked)" when its outputs
// have the reference's count, shapes and element types and the values
// their property (randomProperty), else failed. Exit code 1 if any test
// failed.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Target/ONNX/ImportONNX.h"
#include "gplace/Target/Plan/PlanExport.h"
#include "gplace/Tooling/CommandLine.h"
#include "gplace/Tooling/Compile.h"
#include "gplace/Tooling/Machine.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = gplace::runtime;

static cl::OptionCategory category("gplace-onnx-test options");
static cl::list<std::string> suites(cl::Positional, cl::OneOrMore,
                                    cl::desc("<suite directory>..."),
                                    cl::cat(category));
static cl::opt<int> emulateGpus(
    "emulate-gpus",
    cl::desc("Run on this many emulated GPUs (ops placed as gplace-run "
             "places them, soft placement on); 0: the CPU"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string>
    filter("filter", cl::desc("Run only tests whose name matches this regex"),
           cl::init(""), cl::cat(category));
static cl::opt<bool> markdown("markdown",
                              cl::desc("Print the summary as docs/onnx.md's "
                                       "tables"),
                              cl::init(false), cl::cat(category));
static cl::opt<bool> opLists("op-lists",
                             cl::desc("With --markdown, also list the op "
                                      "types mapped and not mapped"),
                             cl::init(true), cl::cat(category));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("More --gplace-pipeline options for every test's compile, as "
             "gplace-opt spells them ('fold-constants=false "
             "fuse-elementwise=false', 'layout-optimizer remapping'): the "
             "suites through other passes, as a differential test of the "
             "kernels folding and fusion otherwise skip"),
    cl::init(""), cl::cat(category));
static cl::opt<bool> verbose("v", cl::desc("One line per test"),
                             cl::init(false), cl::cat(category));
static cl::opt<double> relativeTolerance("rtol", cl::desc("Relative tolerance"),
                                         cl::init(1e-3), cl::cat(category));
static cl::opt<double> absoluteTolerance("atol", cl::desc("Absolute tolerance"),
                                         cl::init(1e-7), cl::cat(category));

namespace {

enum class Outcome {
  Passed,
  Failed,
  UnsupportedOp,
  UnsupportedType,
  Dynamic,
  BadReference,
  Random
};

/// Tests of libonnx-testdata whose reference outputs are not what their
/// model computes under ONNX's operator definitions, and why. Such a test
/// that passes still counts as passed.
const std::map<std::string, const char *> kBadReference = {
    {"test_adam_multiple",
     "its reference outputs were computed with epsilon 1e-2, but its Adam "
     "node sets no epsilon, whose default is 1e-6 (onnx/onnx#7749)"},
    // ONNX 1.12's bfloat16 cast tests (their data stored as UINT16, read
    // as bf16): a reference truncated rather than rounded, and data sets
    // whose `like` input is not of the shape the model declares.
    {"test_cast_FLOAT_to_BFLOAT16",
     "its reference output is the input truncated to bfloat16 (its low 16 "
     "bits dropped); ONNX's Cast does not say to truncate, and gplace's "
     "cast rounds to nearest even, as MLIR's and TensorFlow's do"},
    {"test_castlike_FLOAT_to_BFLOAT16",
     "its data set's `like` input is [1] where the model declares [3, 4], "
     "and its reference output is truncated to bfloat16 (not rounded)"},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded",
     "its data set's `like` input is [1] where the model declares [3, 4], "
     "and its reference output is truncated to bfloat16 (not rounded)"},
    {"test_castlike_BFLOAT16_to_FLOAT",
     "its data set's `like` input is [1] where the model declares [3, 4]"},
    {"test_castlike_BFLOAT16_to_FLOAT_expanded",
     "its data set's `like` input is [1] where the model declares [3, 4]"},
};

struct Result {
  Outcome outcome;
  std::string detail;
  std::vector<gplace::frontend::OnnxUnsupported> unsupported;
  /// The model has sequence or optional inputs or outputs.
  bool lists = false;
};

double elementAsDouble(const rt::HostTensor &t, int64_t i) {
  const uint8_t *p = t.data.data() + i * gplace::elementBytes(t.type.elementType);
  switch (t.type.elementType) {
  case gplace::ElementType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case gplace::ElementType::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case gplace::ElementType::F16:
  case gplace::ElementType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    llvm::APFloat f(t.type.elementType == gplace::ElementType::F16
                        ? llvm::APFloat::IEEEhalf()
                        : llvm::APFloat::BFloat(),
                    llvm::APInt(16, bits));
    bool lost;
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.convertToDouble();
  }
  case gplace::ElementType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case gplace::ElementType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  case gplace::ElementType::I1:
  case gplace::ElementType::UI8:
    return *p;
  case gplace::ElementType::I8:
    return static_cast<int8_t>(*p);
  case gplace::ElementType::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case gplace::ElementType::UI16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case gplace::ElementType::UI32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  }
  return 0;
}

/// "" if `actual` matches `expected`, else what differs.
std::string compare(const rt::HostTensor &actual,
                    const rt::HostTensor &expected) {
  if (actual.type != expected.type)
    return "a " + actual.type.str() + " result, expected " +
           expected.type.str();
  bool exact = !gplace::isFloatType(expected.type.elementType);
  if (exact)
    return actual.data == expected.data ? "" : "integers differ";
  int64_t n = expected.type.numElements();
  for (int64_t i = 0; i < n; ++i) {
    double a = elementAsDouble(actual, i), e = elementAsDouble(expected, i);
    if (std::isnan(e) && std::isnan(a))
      continue;
    if (std::isinf(e) && a == e)
      continue;
    if (!(std::fabs(a - e) <= absoluteTolerance + relativeTolerance * std::fabs(e))) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << "element " << i << " is " << llvm::format("%.9g", a)
         << ", expected " << llvm::format("%.9g", e);
      return s;
    }
  }
  return "";
}

/// "" if `actual`, an output of a model that draws random numbers, has
/// `expected`'s type and a property of its values: finite, and 0 or 1
/// where every reference value is 0 or 1 (Bernoulli, and its expanded
/// form); else what differs.
std::string randomProperty(const rt::HostTensor &actual,
                           const rt::HostTensor &expected) {
  if (actual.type != expected.type)
    return "a " + actual.type.str() + " result, expected " +
           expected.type.str();
  int64_t n = expected.type.numElements();
  bool binary = true;
  for (int64_t i = 0; i < n && binary; ++i) {
    double e = elementAsDouble(expected, i);
    binary = e == 0 || e == 1;
  }
  for (int64_t i = 0; i < n; ++i) {
    double a = elementAsDouble(actual, i);
    if (!std::isfinite(a) || (binary && a != 0 && a != 1)) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << "element " << i << " is " << llvm::format("%.9g", a)
         << (binary ? ", expected 0 or 1" : ", expected a finite number");
      return s;
    }
  }
  return "";
}

/// The values of one data set's inputs or outputs: a tensor for each
/// tensor, and for a sequence or optional its list (its tensor there an
/// empty placeholder).
struct Values {
  std::vector<rt::HostTensor> tensors;
  std::vector<std::optional<gplace::frontend::OnnxListValue>> lists;

  /// The tensors in the order of the function's arguments or results:
  /// each list's elements in its place (docs/onnx.md).
  std::vector<rt::HostTensor> flattened() const {
    std::vector<rt::HostTensor> flat;
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (lists[i])
        flat.insert(flat.end(), lists[i]->elements.begin(),
                    lists[i]->elements.end());
      else
        flat.push_back(tensors[i]);
    }
    return flat;
  }
};

/// `dir`/`prefix`_0.pb, `prefix`_1.pb, ... up to the first missing one, of
/// the kinds `kinds` gives (a TensorProto past its end): SequenceProtos
/// and OptionalProtos for sequences and optionals.
rt::StatusOr<Values>
readValues(const std::string &dir, const std::string &prefix,
           const std::vector<gplace::frontend::OnnxValueKind> &kinds) {
  Values values;
  for (size_t i = 0;; ++i) {
    std::string file = dir + "/" + prefix + "_" + std::to_string(i) + ".pb";
    if (!llvm::sys::fs::exists(file))
      return values;
    gplace::frontend::OnnxValueKind kind =
        i < kinds.size() ? kinds[i] : gplace::frontend::OnnxValueKind::Tensor;
    if (kind != gplace::frontend::OnnxValueKind::Tensor) {
      rt::StatusOr<gplace::frontend::OnnxListValue> list =
          gplace::frontend::readListProtoFile(file, kind);
      if (!list)
        return list.status();
      values.tensors.emplace_back();
      values.lists.push_back(std::move(*list));
      continue;
    }
    rt::StatusOr<rt::HostTensor> t = gplace::frontend::readTensorProtoFile(file);
    if (!t)
      return t.status();
    values.tensors.push_back(std::move(*t));
    values.lists.emplace_back();
  }
}

/// Whether two lists have the same length, presence and element types.
bool sameForm(const std::optional<gplace::frontend::OnnxListValue> &a,
              const std::optional<gplace::frontend::OnnxListValue> &b) {
  if (!a || !b)
    return !a && !b;
  if (a->present != b->present || a->elements.size() != b->elements.size())
    return false;
  for (size_t i = 0; i < a->elements.size(); ++i)
    if (a->elements[i].type != b->elements[i].type)
      return false;
  return true;
}

class Driver {
public:
  Driver() {
    gplace::registerBuiltinPolicies(policies);
    registry.insert<gplace::graph::GraphDialect, gplace::plan::PlanDialect,
                    func::FuncDialect>();
    func::registerInlinerExtension(registry);
  }

  rt::Status init() {
    gplace::tooling::MachineOptions options;
    options.emulatedGpus = emulateGpus;
    rt::StatusOr<std::unique_ptr<gplace::tooling::Machine>> made =
        gplace::tooling::Machine::create(options);
    if (!made)
      return made.status();
    machine = std::move(*made);
    return rt::Status::ok();
  }

  Result runTest(const std::string &dir) {
    Result r = runModel(dir);
    r.lists = hasLists;
    if (r.outcome == Outcome::Passed && random)
      r.outcome = Outcome::Random;
    return r;
  }

private:
  Result runModel(const std::string &dir) {
    hasLists = false;
    random = false;
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    context.getLoadedDialect<gplace::graph::GraphDialect>()->setPolicies(
        &policies);
    // The host kernels' workspaces, and cuDNN's on CUDA GPUs.
    gplace::registerMachineWorkspaces(context, machine->devices());
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error && diagnostics.empty())
        diagnostics = diag.str();
      return success();
    });
    std::string modelPath = dir + "/model.onnx";
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
        llvm::MemoryBuffer::getFile(modelPath, false, false);
    if (!bytes)
      return {Outcome::Failed, "cannot read model.onnx", {}};

    // The executor, and the values of the inputs it was specialized for
    // (the inputs a node needs at import time: Resize's sizes, TopK's k):
    // a data set that gives them other values is run by a new import.
    // Sequence and optional inputs and outputs (SequenceProto and
    // OptionalProto files): the graph is imported for the inputs' lengths,
    // shapes and presence, each element an argument or result of its own.
    std::vector<gplace::frontend::OnnxValueKind> inputKinds, outputKinds;
    if (auto kinds = gplace::frontend::onnxValueKinds((*bytes)->getBuffer())) {
      inputKinds = kinds->first;
      outputKinds = kinds->second;
    }
    for (const auto *kinds : {&inputKinds, &outputKinds})
      for (gplace::frontend::OnnxValueKind kind : *kinds)
        hasLists |= kind != gplace::frontend::OnnxValueKind::Tensor;
    std::vector<std::optional<gplace::frontend::OnnxListValue>> listsFor;
    std::unique_ptr<rt::Executor> executor;
    std::vector<size_t> specialized;
    std::vector<rt::HostTensor> specializedFor;
    // The shapes of the tensor inputs the graph was imported for (they bind
    // its symbolic dimensions): a data set of other shapes is a new import.
    std::vector<std::vector<int64_t>> shapesFor;
    auto load = [&](const Values *given) -> std::optional<Result> {
      const std::vector<rt::HostTensor> *values =
          given ? &given->tensors : nullptr;
      diagnostics.clear();
      gplace::frontend::OnnxImportReport report;
      gplace::frontend::OnnxImportOptions options;
      options.report = &report;
      listsFor.clear();
      shapesFor.clear();
      if (given)
        for (auto [v, list] : llvm::zip(given->tensors, given->lists)) {
          options.inputValues.push_back(
              list ? std::nullopt : std::optional<rt::HostTensor>(v));
          // The values' shapes bind the model's symbolic dimensions, as
          // ONNX Runtime and gplace-run bind them.
          options.inputShapes.push_back(
              list ? std::nullopt
                   : std::optional<std::vector<int64_t>>(v.type.shape));
          shapesFor.push_back(list ? std::vector<int64_t>() : v.type.shape);
          options.inputLists.push_back(list);
          listsFor.push_back(list);
        }
      // A node that becomes an op without a CPU kernel for its type is an
      // unsupported form, as ONNX Runtime's NOT_IMPLEMENTED (the importer
      // leaves kernels to placement; the tests run on the CPU).
      options.checkOp = gplace::frontend::cpuKernelCheck();
      OwningOpRef<ModuleOp> module = gplace::frontend::importOnnxModel(
          (*bytes)->getBuffer(), modelPath, &context, options);
      if (!module) {
        if (!report.unsupported.empty())
          return Result{Outcome::UnsupportedOp, diagnostics, report.unsupported};
        if (report.unsupportedType)
          return Result{Outcome::UnsupportedType, diagnostics, {}};
        if (report.dynamicShape)
          return Result{Outcome::Dynamic, diagnostics, {}};
        return Result{Outcome::Failed, "import: " + diagnostics, {}};
      }
      specialized = report.specializedInputs;
      random = report.random;
      specializedFor.clear();
      for (size_t i : specialized)
        specializedFor.push_back((*values)[i]);
      if (rt::Status selected =
              gplace::tooling::selectEntry(*module, "main", modelPath);
          !selected)
        return Result{Outcome::Failed, "import: " + selected.message(), {}};
      bf16Arguments.clear();
      if (auto main = module->lookupSymbol<func::FuncOp>("main"))
        for (Type type : main.getArgumentTypes())
          bf16Arguments.push_back(getElementTypeOrSelf(type).isBF16());
      gplace::PipelineOptions compile;
      compile.allowSoftPlacement = true;
      (void)compile.parseFromString(pipelineOptions); // Checked in main.
      FailureOr<rt::Plan> plan = gplace::tooling::compileToPlan(
          *module, machine->deviceSet(), compile);
      if (failed(plan))
        return Result{Outcome::Failed, "compile: " + diagnostics, {}};
      rt::StatusOr<std::unique_ptr<rt::Executor>> made =
          rt::Executor::create(std::move(*plan), machine->devices());
      if (!made)
        return Result{Outcome::Failed, "load: " + made.status().message(), {}};
      executor = std::move(*made);
      return std::nullopt;
    };

    // Every test_data_set_N.
    int sets = 0;
    for (int set = 0;; ++set) {
      std::string setDir = dir + "/test_data_set_" + std::to_string(set);
      if (!llvm::sys::fs::is_directory(setDir)) {
        // A test without data sets still imports (and fails below).
        if (set == 0)
          if (std::optional<Result> failed = load(nullptr))
            return *failed;
        break;
      }
      ++sets;
      rt::StatusOr<Values> inputs = readValues(setDir, "input", inputKinds);
      bool reload = !executor;
      if (inputs && executor) {
        for (auto [i, position] : llvm::enumerate(specialized))
          if (position >= inputs->tensors.size() ||
              inputs->tensors[position].type != specializedFor[i].type ||
              inputs->tensors[position].data != specializedFor[i].data)
            reload = true;
        if (inputs->lists.size() != listsFor.size() ||
            inputs->tensors.size() != shapesFor.size())
          reload = true;
        for (size_t i = 0; !reload && i < shapesFor.size(); ++i)
          reload = !inputs->lists[i] &&
                   inputs->tensors[i].type.shape != shapesFor[i];
        for (size_t i = 0; !reload && i < listsFor.size(); ++i)
          reload = !sameForm(inputs->lists[i], listsFor[i]);
      }
      if (reload)
        if (std::optional<Result> failed = load(inputs ? &*inputs : nullptr))
          return *failed;
      if (!inputs)
        return {Outcome::UnsupportedType, inputs.status().message(), {}};
      rt::StatusOr<Values> expectedValues =
          readValues(setDir, "output", outputKinds);
      if (!expectedValues)
        return {Outcome::UnsupportedType,
                expectedValues.status().message(), {}};
      // A sequence's or optional's elements are compared one by one, and
      // their count with the results'.
      std::vector<rt::HostTensor> expected = expectedValues->flattened();
      std::vector<rt::HostTensor> given = inputs->flattened();
      // ONNX 1.12's backend tests store bfloat16 data as UINT16 tensors
      // (the same 16 bits: numpy has no bfloat16): a uint16 value where
      // the graph takes or gives bf16 is read as bf16.
      for (size_t i = 0; i < given.size() && i < bf16Arguments.size(); ++i)
        if (bf16Arguments[i] &&
            given[i].type.elementType == gplace::ElementType::UI16)
          given[i].type.elementType = gplace::ElementType::BF16;
      rt::StatusOr<std::vector<rt::HostTensor>> outputs =
          executor->run(given);
      if (!outputs)
        return {Outcome::Failed, "run: " + outputs.status().message(), {}};
      if (outputs->size() != expected.size())
        return {Outcome::Failed,
                std::to_string(outputs->size()) + " outputs, expected " +
                    std::to_string(expected.size()) +
                    " (sequences' and optionals' elements counted)",
                {}};
      for (size_t i = 0; i < expected.size(); ++i)
        if ((*outputs)[i].type.elementType == gplace::ElementType::BF16 &&
            expected[i].type.elementType == gplace::ElementType::UI16)
          expected[i].type.elementType = gplace::ElementType::BF16;
      for (size_t i = 0; i < expected.size(); ++i)
        if (std::string diff = random
                                   ? randomProperty((*outputs)[i], expected[i])
                                   : compare((*outputs)[i], expected[i]);
            !diff.empty())
          return {Outcome::Failed,
                  "data set " + std::to_string(set) + ", output " +
                      std::to_string(i) + ": " + diff,
                  {}};
    }
    if (sets == 0)
      return {Outcome::Failed, "no test_data_set_0", {}};
    return {Outcome::Passed, "", {}};
  }

public:
  /// The GPUs of the machine the tests run on.
  int numGpus() const {
    int gpus = 0;
    gplace::DeviceSet devices = machine->deviceSet();
    for (const gplace::DeviceName &d : devices.devices())
      gpus += d.type == gplace::DeviceType::GPU;
    return gpus;
  }

private:
  gplace::PolicyRegistry policies;
  DialectRegistry registry;
  std::unique_ptr<gplace::tooling::Machine> machine;
  bool hasLists = false;
  /// The model draws random numbers (OnnxImportReport::random).
  bool random = false;
  /// Which arguments of the imported graph (flattened) are bf16.
  std::vector<bool> bf16Arguments;
};

struct SuiteCounts {
  int total = 0, passed = 0, failed = 0, unsupportedOp = 0,
      unsupportedType = 0, dynamic = 0, badReference = 0, random = 0;
  /// Passed tests with sequence or optional inputs or outputs.
  int passedWithLists = 0;
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  gplace::runtime::stopIdleBlasThreads(); // As gplace-run: no idle spinners.
  // compileToPlan applies the pass manager's command-line options.
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  gplace::tooling::hideLibraryOptions({&category});
  cl::ParseCommandLineOptions(argc, argv,
                              "gplace-onnx-test: ONNX's backend tests through "
                              "gplace\n");
  llvm::Regex pattern(filter.empty() ? ".*" : "^(" + filter + ")$");
  std::string regexError;
  if (!pattern.isValid(regexError)) {
    llvm::errs() << "gplace-onnx-test: error: --filter: " << regexError << "\n";
    return 2;
  }
  {
    gplace::PipelineOptions options;
    std::string error;
    llvm::raw_string_ostream os(error);
    if (failed(options.parseFromString(pipelineOptions, os))) {
      llvm::errs() << "gplace-onnx-test: error: --pipeline-options: "
                   << llvm::StringRef(error).trim() << "\n";
      return 2;
    }
  }
  Driver driver;
  if (rt::Status ready = driver.init(); !ready) {
    llvm::errs() << "gplace-onnx-test: error: " << ready.message() << "\n";
    return 2;
  }
  std::vector<std::pair<std::string, SuiteCounts>> counts;
  // Unsupported op types over all suites: tests needing each.
  std::map<std::string, int> missingOps;
  std::vector<std::string> failures;
  for (const std::string &suite : suites) {
    std::vector<std::string> tests;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(suite, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::fs::exists(it->path() + "/model.onnx"))
        tests.push_back(it->path());
    if (ec || tests.empty()) {
      llvm::errs() << "gplace-onnx-test: error: no tests (directories with "
                      "model.onnx) in '"
                   << suite << "'\n";
      return 2;
    }
    llvm::sort(tests);
    SuiteCounts c;
    for (const std::string &test : tests) {
      std::string name = llvm::sys::path::filename(test).str();
      if (!pattern.match(name))
        continue;
      Result r = driver.runTest(test);
      if (r.outcome == Outcome::Failed)
        if (auto bad = kBadReference.find(name); bad != kBadReference.end())
          r = {Outcome::BadReference, r.detail + " (" + bad->second + ")", {}};
      ++c.total;
      const char *word = "";
      switch (r.outcome) {
      case Outcome::Passed:
        ++c.passed;
        c.passedWithLists += r.lists;
        word = "PASS";
        break;
      case Outcome::Failed:
        ++c.failed;
        word = "FAIL";
        failures.push_back(name + ": " + r.detail);
        break;
      case Outcome::UnsupportedOp:
        ++c.unsupportedOp;
        word = "UNSUPPORTED-OP";
        for (const auto &u : r.unsupported)
          if (u.reason.empty())
            ++missingOps[u.opType];
        break;
      case Outcome::UnsupportedType:
        ++c.unsupportedType;
        word = "UNSUPPORTED-TYPE";
        break;
      case Outcome::Dynamic:
        ++c.dynamic;
        word = "DYNAMIC-SHAPE";
        break;
      case Outcome::BadReference:
        ++c.badReference;
        word = "BAD-REFERENCE";
        break;
      case Outcome::Random:
        ++c.random;
        word = "RANDOM";
        break;
      }
      if (verbose) {
        std::string detail = r.detail;
        std::replace(detail.begin(), detail.end(), '\n', ' ');
        llvm::outs() << word << " " << name
                     << (detail.empty() ? "" : ": " + detail) << "\n";
      }
    }
    counts.emplace_back(llvm::sys::path::filename(suite).str(), c);
  }

  // What ran the tests: emulated GPUs, else the CUDA GPUs this process
  // sees, else the CPU.
  int gpus = driver.numGpus();
  std::string device =
      emulateGpus > 0 ? std::to_string(emulateGpus) + " emulated GPUs"
      : gpus > 0      ? std::to_string(gpus) + " CUDA GPU" +
                       (gpus == 1 ? "" : "s") + " and the CPU"
                      : std::string("the CPU");
  if (markdown) {
    llvm::outs() << "| suite (on " << device
                 << ") | tests | passed | failed | unsupported op | "
                    "unsupported type | dynamic shape | bad reference | "
                    "random (shape checked) |\n"
                 << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto &[suite, c] : counts)
      llvm::outs() << "| `" << suite << "` | " << c.total << " | " << c.passed
                   << " | " << c.failed << " | " << c.unsupportedOp << " | "
                   << c.unsupportedType << " | " << c.dynamic << " | "
                   << c.badReference << " | " << c.random << " |\n";
    // The Python package's ONNX backend takes and gives tensors only: its
    // test (python/tests/test_onnx.py) subtracts these from `node`'s.
    std::string withLists;
    for (const auto &[suite, c] : counts)
      if (c.passedWithLists)
        withLists += std::string(withLists.empty() ? "" : ", ") + "`" +
                     suite + "` " + std::to_string(c.passedWithLists);
    if (!withLists.empty())
      llvm::outs() << "\nPassed tests with sequence or optional inputs or "
                      "outputs (which the Python package's ONNX backend, "
                      "tensors only, skips): "
                   << withLists << ".\n";
    if (!opLists) {
      for (const std::string &f : failures)
        llvm::errs() << "FAILED " << f << "\n";
      return failures.empty() ? 0 : 1;
    }
    std::vector<std::string> mapped = gplace::frontend::importableOpTypes();
    llvm::outs() << "\nThe " << mapped.size()
                 << " op types the importer maps: ";
    for (auto [i, op] : llvm::enumerate(mapped))
      llvm::outs() << (i ? ", " : "") << op;
    llvm::outs() << ".\n\nOp types the importer does not map, by the number "
                    "of tests that need them:\n\n";
    std::vector<std::pair<int, std::string>> byCount;
    for (const auto &[op, n] : missingOps)
      byCount.emplace_back(-n, op);
    llvm::sort(byCount);
    std::string line;
    for (const auto &[n, op] : byCount) {
      std::string item = op + " (" + std::to_string(-n) + ")";
      line += (line.empty() ? "" : ", ") + item;
    }
    llvm::outs() << line << ".\n";
  } else {
    for (const auto &[suite, c] : counts)
      llvm::outs() << suite << " on " << device << ": " << c.total
                   << " tests, " << c.passed << " passed, " << c.failed
                   << " failed, " << c.unsupportedOp << " unsupported op, "
                   << c.unsupportedType << " unsupported type, " << c.dynamic
                   << " dynamic shape, " << c.badReference
                   << " bad reference, " << c.random
                   << " random (shape checked)\n";
  }
  for (const std::string &f : failures)
    llvm::errs() << "FAILED " << f << "\n";
  return failures.empty() ? 0 : 1;
}
