//===- Run.cpp - gplace-run's steps, from its flags -----------------------===//

#include "gplace/Tooling/Run.h"

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/Transforms/Passes.h"
#include "gplace/Runtime/Idx.h"
#include "gplace/Runtime/Threads.h"
#include "gplace/Support/SourceNesting.h"
#include "gplace/Support/Trace.h"
#include "gplace/Target/ONNX/ImportONNX.h"
#include "gplace/Target/Plan/PlanExport.h"
#include "gplace/Tooling/Checkpoint.h"
#include "gplace/Tooling/CommandLine.h"
#include "gplace/Tooling/Compile.h"
#include "gplace/Tooling/Inputs.h"
#include "gplace/Tooling/Loop.h"
#include "gplace/Tooling/Outputs.h"
#include "gplace/Tooling/Profile.h"
#include "gplace/Tooling/Report.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <unistd.h>

using namespace mlir;
using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Flags
//===----------------------------------------------------------------------===//

const cl::OptionCategory &gplace::tooling::runCategory() {
  static cl::OptionCategory category("gplace-run options");
  return category;
}

namespace {
/// The run's flags; constructed by registerRunFlags.
struct RunFlags {
  cl::OptionCategory &category = const_cast<cl::OptionCategory &>(runCategory());
  cl::opt<std::string> inputFile{cl::Positional,
                                 cl::desc("<input.mlir | model.onnx>"),
                                 cl::init("-"), cl::cat(category)};
  cl::opt<bool> listDevices{"list-devices",
                            cl::desc("List the devices and exit"),
                            cl::init(false), cl::cat(category)};
  cl::opt<std::string> profile{
      "profile",
      cl::desc("Measure this process's devices and links for the cost "
               "model, write them to this file and exit (no input is read)"),
      cl::value_desc("prof.json"), cl::cat(category)};
  cl::opt<std::string> entry{
      "entry", cl::desc("The function to run (default: main)"),
      cl::init("main"), cl::cat(category)};
  cl::list<std::string> inputs{
      "input",
      cl::desc("An input of the entry function, in order: "
               "SHAPExTYPE=VALUES (2x3xf32=1,2,3,4,5,6) or @FILE.npy"),
      cl::value_desc("value"), cl::cat(category)};
  cl::list<std::string> outputs{
      "output",
      cl::desc("Write the next result to @FILE.npy instead of printing it"),
      cl::value_desc("@file.npy"), cl::cat(category)};
  cl::opt<unsigned> iterations{
      "iterations",
      cl::desc("Run the graph N times (variables persist); print the last "
               "results"),
      cl::init(1), cl::cat(category)};
  cl::opt<unsigned> epochs{
      "epochs",
      cl::desc("With a data set input (a file of more samples than the "
               "argument's batch): passes over the data set, one step per "
               "mini-batch (default 1)"),
      cl::init(0), cl::cat(category)};
  cl::opt<uint64_t> shuffleSeed{
      "shuffle",
      cl::desc("Shuffle the data set anew each epoch, with this seed"),
      cl::value_desc("seed"), cl::cat(category)};
  cl::opt<std::string> initEntry{
      "init",
      cl::desc("Run this function of the file once first (it takes no "
               "inputs) and start the entry's variables from its variables "
               "of the same names, as TensorFlow 1's initializer run"),
      cl::value_desc("function"), cl::cat(category)};
  cl::opt<std::string> restore{
      "restore",
      cl::desc("Restore every variable from this checkpoint (.npz) before "
               "running; a training over a data set continues at the epoch "
               "after the checkpoint's (its global_step), up to --epochs"),
      cl::value_desc("file.npz"), cl::cat(category)};
  cl::opt<std::string> save{
      "save",
      cl::desc("Save every variable to this checkpoint (.npz, written "
               "atomically) after each epoch, or after the runs"),
      cl::value_desc("file.npz"), cl::cat(category)};
  cl::opt<std::string> trace{
      "trace",
      cl::desc("Write the timeline of the runs to this file, in Chrome's "
               "trace event format (Perfetto, chrome://tracing): each "
               "launch, copy, send, recv, all-reduce and cross-device wait "
               "of every run, timed on the host; one track per device "
               "stream. In a cluster, the task of rank N > 0 writes "
               "FILE.rankN.json"),
      cl::value_desc("trace.json"), cl::cat(category)};
  cl::opt<bool> printTiming{
      "print-timing",
      cl::desc("Print the wall time of the runs on stderr: the first, and "
               "the mean and best of the others"),
      cl::init(false), cl::cat(category)};
};

RunFlags &runFlags() {
  static RunFlags *flags = new RunFlags; // Lives as long as LLVM's parser
                                         // refers to it.
  return *flags;
}
} // namespace

void gplace::tooling::registerRunFlags() {
  // The passes by name, for --mlir-print-ir-after=<pass> and the like
  // (before the options that name them are registered).
  registerGPlacePasses();
  registerGPlaceConversionPasses();
  registerGPlacePlanPasses();
  // MLIR's own options of a pass driver: --mlir-print-ir-after-all,
  // --mlir-timing, --mlir-print-debuginfo, ...
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  (void)runFlags();
  registerCompileFlags();
  registerMachineFlags();
  registerClusterFlags();
  // --help lists gplace-run's options and MLIR's (--mlir-*), not the
  // hundreds LLVM's libraries register (--help-hidden shows them all).
  hideLibraryOptions({&runCategory(), &compileCategory(), &machineCategory(),
#ifdef GPLACE_HAVE_ONNX
                      &frontend::onnxImportCategory(),
#endif
                      &clusterCategory()});
}

/// A file that is written beside its path and renamed over it (a
/// checkpoint, a profile) must be a regular file or none: a device or a
/// pipe would be replaced (as root, --save=/dev/null replaced the system's
/// /dev/null). Errors (invalid argument) name `flag`.
static rt::Status checkReplaceable(llvm::StringRef flag,
                                   const std::string &path) {
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path, error);
  if (std::filesystem::exists(status) &&
      !std::filesystem::is_regular_file(status) &&
      !std::filesystem::is_directory(status))
    return rt::Status::invalidArgument(
        flag.str() + ": cannot write '" + path +
        "': not a regular file (the file is written aside and renamed over "
        "it, which would replace a device or a pipe)");
  if (rt::Status writable = checkWritable(path); !writable)
    return rt::Status::invalidArgument(flag.str() + ": " + writable.message());
  return rt::Status::ok();
}

const std::string &gplace::tooling::runInputFile() {
  return runFlags().inputFile;
}

bool gplace::tooling::machineCommandFlag() {
  return runFlags().listDevices || !runFlags().profile.empty();
}

rt::Status gplace::tooling::runMachineCommand(MLIRContext &context,
                                              Machine &machine) {
  RunFlags &flags = runFlags();
  if (flags.profile.empty()) {
    llvm::outs() << describeMachine(machine);
    return rt::Status::ok();
  }
  rt::StatusOr<CostProfile> measured = measureProfile(context, machine);
  if (!measured)
    return measured.status();
  std::string error;
  GPLACE_RETURN_IF_ERROR(checkReplaceable("--profile", flags.profile));
  if (!measured->save(flags.profile, &error))
    return rt::Status::invalidArgument(error);
  llvm::outs() << "wrote " << flags.profile << ": "
               << machine.devices().devices().size()
               << " devices and their links\n";
  return rt::Status::ok();
}

rt::Status gplace::tooling::checkRunFlags() {
  RunFlags &flags = runFlags();
  if (flags.iterations < 1)
    return rt::Status::invalidArgument("--iterations must be at least 1");
  if (flags.epochs.getNumOccurrences() && flags.epochs < 1)
    return rt::Status::invalidArgument("--epochs must be at least 1");
  for (const std::string &output : flags.outputs)
    if (!llvm::StringRef(output).starts_with("@") || output.size() < 2)
      return rt::Status::invalidArgument("--output must be @FILE.npy, got '" +
                                         output + "'");
  if (flags.profile.getNumOccurrences() && flags.profile.empty())
    return rt::Status::invalidArgument("--profile needs a file name");
  // The machine commands run no model: what would name one is an error,
  // not ignored.
  if (machineCommandFlag()) {
    const char *command = flags.listDevices ? "--list-devices" : "--profile";
    if (flags.listDevices && !flags.profile.empty())
      return rt::Status::invalidArgument(
          "--list-devices and --profile are two commands: give one");
    if (flags.inputFile.getNumOccurrences())
      return rt::Status::invalidArgument(
          std::string(command) + " runs no model, and '" +
          flags.inputFile.getValue() + "' was given: drop one");
    cl::Option *runOnly[] = {std::addressof(flags.outputs), &flags.save,
                             &flags.restore, &flags.trace, &flags.initEntry};
    for (cl::Option *run : runOnly)
      if (run->getNumOccurrences())
        return rt::Status::invalidArgument(
            std::string(command) + " runs no model: --" + run->ArgStr.str() +
            " applies to a run");
  }
  if (flags.entry.empty())
    return rt::Status::invalidArgument("--entry needs a function name");
  if (!flags.restore.empty())
    GPLACE_RETURN_IF_ERROR(checkRestorable(flags.restore));
  if (flags.initEntry.getNumOccurrences() && flags.initEntry.empty())
    return rt::Status::invalidArgument("--init needs a function name");
  for (cl::opt<std::string> *path : {&flags.save, &flags.restore, &flags.trace})
    if (path->getNumOccurrences() && path->empty())
      return rt::Status::invalidArgument("--" + path->ArgStr.str() +
                                         " needs a file name");
  return checkCompileFlags();
}

/// The file --trace names for the task of MPI rank `rank`: the flag's for
/// rank 0 (and alone), else with `.rank<N>` before its extension
/// (trace.json: trace.rank1.json).
static std::string traceFileOf(int rank) {
  const std::string &path = runFlags().trace;
  if (rank == 0)
    return path;
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    dot = path.size();
  return path.substr(0, dot) + ".rank" + std::to_string(rank) +
         path.substr(dot);
}

/// Checks that task `rank`'s --trace file can be written. Errors (invalid
/// argument): "--trace: cannot write '<path>': <why>".
static rt::Status checkTraceWritable(int rank) {
  if (runFlags().trace.empty())
    return rt::Status::ok();
  if (rt::Status writable = checkWritable(traceFileOf(rank)); !writable)
    return rt::Status::invalidArgument("--trace: " + writable.message());
  return rt::Status::ok();
}

rt::Status gplace::tooling::checkOutputsWritable() {
  RunFlags &flags = runFlags();
  // Two files written to one path: the second would replace the first
  // (a checkpoint replaced by a trace), or both --output share a temporary
  // file. Devices and pipes (/dev/null twice) are written in place.
  {
    std::vector<std::pair<std::string, std::string>> written; // flag, path
    if (!flags.trace.empty())
      written.emplace_back("--trace", traceFileOf(0));
    for (const std::string &output : flags.outputs)
      written.emplace_back("--output", output.substr(1));
    if (!flags.save.empty())
      written.emplace_back("--save", flags.save);
    if (!flags.profile.empty())
      written.emplace_back("--profile", flags.profile);
    auto key = [](const std::string &path) {
      std::error_code error;
      std::filesystem::path absolute = std::filesystem::absolute(path, error);
      return (error ? std::filesystem::path(path) : absolute)
          .lexically_normal()
          .string();
    };
    for (size_t i = 0; i < written.size(); ++i) {
      std::error_code error;
      std::filesystem::file_status status =
          std::filesystem::status(written[i].second, error);
      if (std::filesystem::exists(status) &&
          !std::filesystem::is_regular_file(status))
        continue;
      for (size_t j = 0; j < i; ++j)
        if (key(written[j].second) == key(written[i].second))
          return rt::Status::invalidArgument(
              written[j].first + " and " + written[i].first +
              " name one file, '" + written[i].second +
              "': each output needs its own");
    }
  }
  GPLACE_RETURN_IF_ERROR(checkTraceWritable(0));
  for (const std::string &output : flags.outputs)
    GPLACE_RETURN_IF_ERROR(checkWritable(output.substr(1)));
  if (!flags.save.empty())
    GPLACE_RETURN_IF_ERROR(checkReplaceable("--save", flags.save));
  if (!flags.profile.empty())
    GPLACE_RETURN_IF_ERROR(checkReplaceable("--profile", flags.profile));
  return rt::Status::ok();
}

//===----------------------------------------------------------------------===//
// The model and its inputs
//===----------------------------------------------------------------------===//

DialectRegistry gplace::tooling::runDialects() {
  DialectRegistry registry;
  registry.insert<graph::GraphDialect, plan::PlanDialect, func::FuncDialect>();
  func::registerInlinerExtension(registry);
  return registry;
}

/// Whether `text` names an ONNX TensorProto file (@input_0.pb).
static bool isTensorProtoInput(llvm::StringRef text) {
  return text.starts_with("@") && text.ends_with(".pb");
}

rt::StatusOr<OwningOpRef<ModuleOp>>
gplace::tooling::loadModule(llvm::StringRef fileName, MLIRContext *context,
                            llvm::SourceMgr &sourceMgr) {
  RunFlags &flags = runFlags();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(fileName, &error);
  if (!file)
    return rt::Status::invalidArgument(error);
  OwningOpRef<ModuleOp> module;
  if (frontend::isOnnxFileName(fileName)) {
#ifdef GPLACE_HAVE_ONNX
    if (!flags.initEntry.empty())
      return rt::Status::invalidArgument(
          "--init needs an .mlir file: an ONNX model has one function, its "
          "initializers are its variables' values");
    frontend::OnnxImportOptions options = frontend::onnxImportOptionsFromFlags();
    // The inputs' shapes bind the model's symbolic dimensions; the values
    // of small ones are there for the nodes that need an input at import
    // time (Resize's sizes, TopK's k), which specialize the graph for them
    // (OnnxImportOptions::inputValues), as gplace-onnx-test does.
    constexpr int64_t kImportTimeElements = 4096;
    for (auto [i, text] : llvm::enumerate(flags.inputs)) {
      std::optional<rt::HostTensor> small;
      // An input that cannot be read is its own error, before the import
      // (which would call its dimensions unknown).
      if (isTensorProtoInput(text)) {
        rt::StatusOr<rt::HostTensor> value =
            frontend::readTensorProtoFile(llvm::StringRef(text).drop_front());
        if (!value)
          return rt::Status::invalidArgument("input #" + std::to_string(i) +
                                             ": " + value.status().message());
        options.inputShapes.push_back(value->type.shape);
        if (value->type.numElements() <= kImportTimeElements)
          small = std::move(*value);
      } else {
        std::optional<std::vector<int64_t>> shape = inputShape(text, context);
        if (!shape)
          if (rt::StatusOr<rt::HostTensor> value =
                  parseInput(text, Type(), context, i, flags.entry);
              !value)
            return value.status();
        options.inputShapes.push_back(shape);
        if (shape && gplace::TensorType{gplace::ElementType::F32, *shape}
                             .numElements() <= kImportTimeElements)
          if (rt::StatusOr<rt::HostTensor> value =
                  parseInput(text, Type(), context, i, flags.entry))
            small = std::move(*value);
      }
      options.inputValues.push_back(std::move(small));
    }
    options.entry = flags.entry;
    module = frontend::importOnnxModel(file->getBuffer(), fileName, context,
                                       options);
#else
    return rt::Status::invalidArgument(
        "'" + fileName.str() +
        "' is an ONNX model, and this gplace-run was built without the ONNX "
        "importer (libonnx-dev)");
#endif
  } else {
#ifdef GPLACE_HAVE_ONNX
    // The importer's options do nothing to an .mlir file: say so.
    frontend::OnnxImportOptions onnx = frontend::onnxImportOptionsFromFlags();
    if (!onnx.dims.empty() || onnx.initializersAsVariables)
      return rt::Status::invalidArgument(
          std::string(onnx.dims.empty() ? "--initializers-as-variables"
                                        : "--dim") +
          " applies to an ONNX model (a file ending in .onnx), and '" +
          fileName.str() + "' is MLIR");
#endif
    // Binary data (an ONNX model named .mlir) would be echoed by the
    // parser's diagnostics: say what it is instead.
    llvm::StringRef head = file->getBuffer().take_front(4096);
    if (head.contains('\0'))
      return rt::Status::invalidArgument(
          "'" + fileName.str() +
          "' holds binary data, not MLIR text (an ONNX model's name must end "
          "in .onnx)");
    if (std::optional<DeepNesting> deep =
            findDeepNesting(file->getBuffer())) {
      emitError(FileLineColLoc::get(context, fileName, deep->line,
                                    deep->column))
          << deepNestingMessage();
      return reportedError();
    }
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, context);
  }
  if (!module) // The diagnostics are printed.
    return reportedError();
  GPLACE_RETURN_IF_ERROR(selectEntry(*module, flags.entry, fileName));
  return module;
}

rt::StatusOr<RunInputs> gplace::tooling::bindInputs(ModuleOp module,
                                                    MLIRContext *context) {
  RunFlags &flags = runFlags();
  const std::string &entry = flags.entry;
  auto func = *module.getOps<func::FuncOp>().begin();
  ArrayRef<Type> argTypes = func.getFunctionType().getInputs();
  if (flags.inputs.size() != argTypes.size()) {
    std::string types;
    for (Type type : argTypes) {
      std::optional<rt::TensorType> tensor = toTensorType(type);
      types += (types.empty() ? "" : ", ") + (tensor ? tensor->str() : "?");
    }
    auto count = [](size_t n, const char *what) {
      return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    return rt::Status::invalidArgument(
        "@" + entry + " takes " + count(argTypes.size(), "input") + " (" +
        types + "), got " + count(flags.inputs.size(), "--input"));
  }
  RunInputs bound;
  std::vector<rt::HostTensor> samples;
  std::vector<rt::TensorType> batchTypes;
  for (auto [index, text] : llvm::enumerate(flags.inputs)) {
    std::optional<rt::TensorType> arg = toTensorType(argTypes[index]);
#ifdef GPLACE_HAVE_ONNX
    // ONNX's TensorProto files (its test data's input_0.pb): one tensor of
    // the argument's type, never a data set.
    if (isTensorProtoInput(text)) {
      llvm::StringRef file = llvm::StringRef(text).drop_front();
      rt::StatusOr<rt::HostTensor> value = frontend::readTensorProtoFile(file);
      if (!value)
        return rt::Status::invalidArgument("input #" + std::to_string(index) +
                                           ": " + value.status().message());
      if (!arg || value->type != *arg)
        return rt::Status::invalidArgument(
            "input #" + std::to_string(index) + ": " + file.str() +
            " holds a " + value->type.str() + " tensor, @" + entry +
            " takes " + (arg ? arg->str() : std::string("?")));
      bound.values.push_back(std::move(*value));
      continue;
    }
#endif
    rt::StatusOr<rt::HostTensor> value =
        parseInput(text, argTypes[index], context, index, entry);
    if (value) {
      bound.values.push_back(std::move(*value));
      continue;
    }
    if (!llvm::StringRef(text).starts_with("@") || !arg || arg->shape.empty())
      return value.status();
    rt::StatusOr<rt::HostTensor> file =
        rt::readTensorFile(llvm::StringRef(text).drop_front().str());
    // A data set: the argument's type but for more samples than its batch;
    // anything else keeps parseInput's error.
    if (!file || file->type.elementType != arg->elementType ||
        file->type.shape.size() != arg->shape.size() ||
        file->type.shape[0] <= arg->shape[0] ||
        !std::equal(arg->shape.begin() + 1, arg->shape.end(),
                    file->type.shape.begin() + 1))
      return value.status();
    samples.push_back(std::move(*file));
    batchTypes.push_back(*arg);
    bound.batched.push_back(index);
    bound.values.emplace_back(*arg); // Filled per step.
  }
  func.walk([&](graph::PersistentOpInterface variable) {
    if (isa<graph::ResourceType>(variable->getResult(0).getType()) &&
        graph::isVariableWritten(variable->getResult(0)))
      bound.updatesVariables = true;
  });
  if (!samples.empty()) {
    // A data set feeds training (steps that update variables) or an
    // evaluation whose results are scalars (their mean per epoch is
    // printed). An inference graph's tensor results would be those of the
    // last batch alone: refused, rather than silently dropping the others.
    bool updates = bound.updatesVariables;
    auto results = func.getFunctionType().getResults();
    auto tensorResult = llvm::find_if(results, [](Type type) {
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped && shaped.hasRank() && shaped.getRank() > 0;
    });
    if (!updates && tensorResult != results.end()) {
      unsigned first = bound.batched.front();
      return rt::Status::invalidArgument(
          "input #" + std::to_string(first) + " holds " +
          std::to_string(samples.front().type.shape[0]) + " samples, and @" +
          entry + " takes " + std::to_string(batchTypes.front().shape[0]) +
          ": a data set feeds training or scalar results, but @" + entry +
          " updates no variable and result #" +
          std::to_string(tensorResult - results.begin()) +
          " is a tensor, of which only the last batch's would be shown; "
          "give one batch");
    }
    if (flags.iterations.getNumOccurrences())
      return rt::Status::invalidArgument(
          "--iterations cannot be combined with a data set input: the steps "
          "are --epochs times the batches per epoch");
    std::optional<uint64_t> seed;
    if (flags.shuffleSeed.getNumOccurrences())
      seed = flags.shuffleSeed;
    rt::StatusOr<Dataset> made =
        Dataset::create(std::move(samples), batchTypes, bound.batched, seed);
    if (!made)
      return made.status();
    bound.dataset = std::move(*made);
  } else if (flags.epochs.getNumOccurrences() ||
             flags.shuffleSeed.getNumOccurrences()) {
    return rt::Status::invalidArgument(
        "--epochs and --shuffle need a data set input (a file with more "
        "samples than the argument's first dimension)");
  }
  return bound;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// Loads `plan` on the machine: in a cluster, only this task's part of it
/// (with `checkBinding`, warning where mpirun's binding leaves it fewer
/// CPUs than streams: bindingWarning); with `trace`, timing its steps
/// (ExecutorOptions::trace).
static rt::StatusOr<std::unique_ptr<rt::Executor>>
loadPlan(rt::Plan plan, const RunSetup &setup, bool trace = false,
         bool checkBinding = false) {
  if (setup.cluster->spec) {
    rt::StatusOr<rt::Plan> local =
        localPlan(plan, setup.machine->devices());
    if (!local)
      return local.status();
    plan = std::move(*local);
    if (checkBinding) {
      std::optional<DeviceName> task = setup.cluster->task();
      std::string warning =
          bindingWarning(plan, task ? task->str() : "", rt::affinityCpuCount(),
                         rt::affinityCpuCount(static_cast<int>(getppid())));
      // One write: every task's stderr is mpirun's.
      if (!warning.empty())
        llvm::errs() << ("gplace-run: warning: " + warning + "\n");
    }
  }
  rt::ExecutorOptions options =
      executorOptionsFromFlags(setup.cluster->transport.get());
  options.trace = trace;
  return rt::Executor::create(std::move(plan), setup.machine->devices(),
                              options);
}

ChromeTrace gplace::tooling::measuredTrace(llvm::ArrayRef<rt::TimedStep> steps,
                                           int pid,
                                           const std::string &processName) {
  ChromeTrace trace;
  trace.nameProcess(pid, processName, pid);
  // Track 0 holds the runs; then one per (device, stream), in name order.
  std::map<std::pair<std::string, int>, int> tracks;
  int64_t origin = 0;
  bool first = true;
  for (const rt::TimedStep &step : steps) {
    if (step.category != std::string_view("run"))
      tracks.try_emplace({step.device, step.stream}, 0);
    if (first || step.startNanos < origin)
      origin = step.startNanos;
    first = false;
  }
  trace.nameThread(pid, 0, "runs", 0);
  int tid = 1;
  for (auto &[track, id] : tracks) {
    id = tid++;
    trace.nameThread(pid, id,
                     track.second == 0 ? track.first
                                       : track.first + " (stream " +
                                             std::to_string(track.second) +
                                             ")",
                     id);
  }
  for (const rt::TimedStep &step : steps) {
    bool isRun = step.category == std::string_view("run");
    std::vector<TraceArg> args = {TraceArg::num("run", step.run)};
    if (!isRun) {
      args.push_back(TraceArg::string("device", step.device));
      args.push_back(TraceArg::num("stream", step.stream));
      // A CUDA GPU's step was queued in this interval and ran later.
      args.push_back(
          TraceArg::string("timing", step.enqueued ? "enqueue" : "host"));
    }
    if (step.bytes > 0)
      args.push_back(TraceArg::num("bytes", step.bytes));
    trace.addSlice(pid, isRun ? 0 : tracks[{step.device, step.stream}],
                   step.label, step.category,
                   (step.startNanos - origin) / 1e3,
                   (step.endNanos - step.startNanos) / 1e3, std::move(args));
  }
  return trace;
}

/// Writes `executor`'s timed steps (--trace) to this task's trace file,
/// atomically, and says so on stderr. Errors: "--trace: cannot write
/// '<path>': <why>".
static rt::Status writeRunTrace(const rt::Executor &executor,
                                const RunSetup &setup) {
  int rank = setup.cluster->rank;
  std::optional<DeviceName> task = setup.cluster->task();
  std::string path = traceFileOf(rank);
  std::vector<rt::TimedStep> steps = executor.timedSteps();
  ChromeTrace trace = measuredTrace(
      steps, rank,
      "measured " + (task ? task->str()
                          : std::string("/job:localhost/replica:0/task:0")));
  if (rt::Status written = writeFileAtomically(path, trace.json()); !written)
    return rt::Status::invalidArgument("--trace: " + written.message());
  size_t runs = llvm::count_if(steps, [](const rt::TimedStep &step) {
    return step.category == std::string_view("run");
  });
  llvm::errs() << ("gplace-run: wrote " + path + ": " + std::to_string(runs) +
                   " run" + (runs == 1 ? "" : "s") + ", " +
                   std::to_string(trace.numSlices() - runs) +
                   " steps (open it in ui.perfetto.dev)\n");
  return rt::Status::ok();
}

/// Compiles the --init function (the file parsed anew: compiling keeps one
/// function), runs it and reads its variables named in `names`. Every task
/// of a cluster runs the whole function on its own devices (its random
/// numbers are stateless: every task draws the same), so that each task's
/// variables, copies included, get their values.
static rt::StatusOr<VariableValues>
runInitFunction(const RunSetup &setup, const std::set<std::string> &names) {
  const std::string &name = runFlags().initEntry;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(*setup.sourceMgr, setup.context);
  if (!module)
    return rt::Status::invalidArgument("cannot parse " + setup.fileName.str());
  GPLACE_RETURN_IF_ERROR(selectEntry(*module, name, setup.fileName, "--init"));
  auto func = *module->getOps<func::FuncOp>().begin();
  if (func.getNumArguments() != 0)
    return rt::Status::invalidArgument(
        "--init function @" + name + " must take no inputs, but takes " +
        std::to_string(func.getNumArguments()));
  PipelineOptions options;
  options.copyOptionValuesFrom(*setup.pipeline);
  DeviceSet devices = *setup.devices;
  if (std::optional<DeviceName> task = setup.cluster->task()) {
    // This task's devices alone: requests for another task's are read as
    // requests for this task's.
    options.logDevicePlacement = false;
    options.cluster = "";
    options.replicate = "";
    options.replicas = 0;
    devices = setup.machine->deviceSet();
    PassManager localize(setup.context);
    LocalizeTaskPassOptions localizeOptions;
    localizeOptions.job = *task->job;
    localizeOptions.task = *task->task;
    localize.addPass(createLocalizeTaskPass(localizeOptions));
    if (failed(localize.run(*module)))
      return reportedError();
  }
  FailureOr<rt::Plan> plan =
      compileToPlan(*module, devices, options, verifyEachFlag());
  if (failed(plan))
    return rt::Status::invalidArgument("cannot compile --init function @" +
                                       name);
  rt::StatusOr<std::unique_ptr<rt::Executor>> init =
      loadPlan(std::move(*plan), setup);
  if (!init)
    return init.status();
  rt::StatusOr<std::vector<rt::HostTensor>> ran = (*init)->run({});
  if (!ran)
    return rt::Status::error(ran.status().code(), "--init function @" + name +
                                                      ": " +
                                                      ran.status().message());
  return readVariables(**init, names);
}

rt::Status gplace::tooling::runPlan(rt::Plan plan, RunInputs inputs,
                                    const RunSetup &setup) {
  RunFlags &flags = runFlags();
  bool chief = setup.cluster->chief();
  // Before running: no output file is touched for a wrong count.
  if (flags.outputs.size() > plan.results.size())
    return rt::Status::invalidArgument(
        "got " + std::to_string(flags.outputs.size()) + " --output for " +
        std::to_string(plan.results.size()) + " results");
  for (size_t i = 0; i < flags.outputs.size(); ++i)
    if (ElementType type = plan.buffers[plan.results[i]].type.elementType;
        !rt::hasNpyDtype(type))
      return rt::Status::invalidArgument(
          "cannot write '" + flags.outputs[i].substr(1) + "': NumPy has no " +
          std::string(elementTypeName(type)) + " dtype (result #" +
          std::to_string(i) + ")");
  // The entry's variables, by name: --save needs some, and --init reads
  // only these back from its own plan.
  std::set<std::string> variableNames;
  for (const rt::PersistentDesc &persistent : plan.persistents)
    if (persistent.isVariable)
      variableNames.insert(persistent.name);
  if (!flags.save.empty() && chief && variableNames.empty())
    return rt::Status::invalidArgument(
        "--save: the graph has no variables to save (in a cluster, the chief "
        "saves the variables on its own task)");
  if (!flags.save.empty() && chief)
    GPLACE_RETURN_IF_ERROR(checkSavable(flags.save, plan));
  if (!flags.restore.empty() && variableNames.empty())
    return rt::Status::invalidArgument(
        "--restore: the graph has no variables to restore (in a cluster, "
        "each task restores the variables on its own devices)");
  // The --init function runs first, and its plan is unloaded before the
  // entry's loads: each plan was checked against the devices' memory
  // limits alone, so the two must not hold memory at once.
  std::optional<VariableValues> initial;
  if (!flags.initEntry.empty()) {
    rt::StatusOr<VariableValues> values = runInitFunction(setup, variableNames);
    if (!values)
      return values.status();
    initial = std::move(*values);
  }
  if (!chief) // The chief checked its own before compiling.
    GPLACE_RETURN_IF_ERROR(checkTraceWritable(setup.cluster->rank));
  rt::StatusOr<std::unique_ptr<rt::Executor>> loaded =
      loadPlan(std::move(plan), setup, /*trace=*/!flags.trace.empty(),
               /*checkBinding=*/true);
  if (!loaded)
    return loaded.status();
  rt::Executor &executor = **loaded;
  if (setup.pipeline->logDevicePlacement) {
    if (!executor.graphNote().empty())
      llvm::errs() << executor.graphNote() << "\n";
    if (!executor.collectiveNote().empty())
      llvm::errs() << executor.collectiveNote() << "\n";
    if (executor.numFusedKernels())
      llvm::errs() << "Fusion: " << executor.numFusedLaunches()
                   << " elementwise launches run as "
                   << executor.numFusedKernels() << " fused kernel"
                   << (executor.numFusedKernels() == 1 ? "" : "s") << "\n";
  }
  if (initial)
    GPLACE_RETURN_IF_ERROR(initializeVariables(*initial, executor));
  // The training steps run before this process: a checkpoint's
  // global_step (TensorFlow's), from which a killed training resumes.
  std::optional<int64_t> restoredStep;
  if (!flags.restore.empty())
    GPLACE_RETURN_IF_ERROR(
        restoreCheckpoint(flags.restore, executor, &restoredStep));
  Dataset *dataset = inputs.dataset ? &*inputs.dataset : nullptr;
  // A training over a data set continues at the epoch after the
  // checkpoint's last, up to --epochs in all (Keras's BackupAndRestore and
  // fit(initial_epoch=)); each epoch's shuffle depends on the seed and the
  // epoch's number alone, so the resumed epochs see the batches that an
  // uninterrupted run would. An evaluation (no variable written) runs all
  // its epochs.
  int64_t firstEpoch = 0;
  if (dataset && inputs.updatesVariables && restoredStep) {
    int64_t steps = dataset->stepsPerEpoch();
    if (*restoredStep % steps != 0)
      return rt::Status::invalidArgument(
          "--restore: checkpoint '" + flags.restore + "' holds global_step " +
          std::to_string(*restoredStep) + ", not a whole number of epochs of " +
          std::to_string(steps) +
          " steps: it was written with another data set or batch size");
    firstEpoch = *restoredStep / steps;
    int64_t numEpochs = std::max<int64_t>(1, flags.epochs);
    if (firstEpoch >= numEpochs) {
      if (chief) {
        llvm::errs() << "gplace-run: checkpoint '" << flags.restore
                     << "' has trained " << firstEpoch << " epoch"
                     << (firstEpoch == 1 ? "" : "s") << " (global_step "
                     << *restoredStep << "), --epochs=" << numEpochs
                     << ": nothing left to run (raise --epochs to train "
                        "more)\n";
        // --save still gets the finished checkpoint (the same bytes when
        // it is the one restored: the same graph wrote it).
        if (!flags.save.empty())
          return saveCheckpoint(flags.save, executor, restoredStep);
      }
      return rt::Status::ok();
    }
  }
  int64_t startStep = restoredStep.value_or(0);

  // The inputs go into the executor's staging memory (pinned for GPUs) once;
  // each run reads them there and leaves its results in host memory. Data
  // set inputs get their mini-batch before each step.
  std::vector<void *> batchTargets;
  for (auto [index, value] : llvm::enumerate(inputs.values)) {
    rt::TensorRef staged = executor.stagedInput(index);
    if (llvm::is_contained(inputs.batched, index)) {
      batchTargets.push_back(staged.data);
      continue;
    }
    if (value.data.size() > 0)
      std::memcpy(staged.data, value.data.data(), value.data.size());
  }
  inputs.values.clear();
  // Keras's per-epoch line and the checkpoint, which the chief writes with
  // the variables its task holds.
  auto onEpoch = [&](const EpochSummary &summary) -> rt::Status {
    if (dataset && chief) {
      llvm::outs() << formatEpoch(summary) << "\n";
      llvm::outs().flush();
    }
    if (!flags.save.empty() && chief) {
      // The steps run so far: with a data set, whole epochs (the same
      // count whether or not the run was resumed); without, the restored
      // count and this run's iterations. Runs that write no variable (an
      // ONNX model's inference) are not training steps: they save the
      // restored count, if any.
      std::optional<int64_t> globalStep = restoredStep;
      if (inputs.updatesVariables)
        globalStep = dataset ? (summary.epoch + 1) * summary.steps
                             : startStep + summary.steps;
      return saveCheckpoint(flags.save, executor, globalStep);
    }
    return rt::Status::ok();
  };
  rt::StatusOr<LoopResult> loop = runLoop(executor, dataset, batchTargets,
                                          flags.epochs, flags.iterations,
                                          onEpoch, firstEpoch);
  // The trace of a failed run too: its steps up to the failure.
  if (!flags.trace.empty())
    if (rt::Status written = writeRunTrace(executor, setup); !written && loop)
      return written;
  if (!loop)
    return loop.status();
  if (rt::Transport *transport = setup.cluster->transport.get())
    GPLACE_RETURN_IF_ERROR(transport->flush());
  if (!chief)
    return rt::Status::ok(); // The chief prints and writes the results.
  if (flags.printTiming)
    llvm::errs() << formatRunTimes(loop->seconds) << "\n";
  std::vector<std::string> paths;
  for (const std::string &output : flags.outputs)
    paths.push_back(output.substr(1));
  GPLACE_RETURN_IF_ERROR(writeNpyFiles(paths, loop->results));
  for (auto [index, result] : llvm::enumerate(loop->results))
    if (index >= flags.outputs.size())
      llvm::outs() << "result[" << index << "]: " << rt::formatTensor(result)
                   << "\n";
  return rt::Status::ok();
}
