//===- _gplace.cpp - the gplace Python extension ---------------------------===//
//
// The C++ half of the `gplace` package (python/gplace/__init__.py is the
// other): the devices of this process, compiling a graph (MLIR text or an
// ONNX model) to a runtime plan with gplace-run's pipeline, and running it
// on NumPy arrays. What gplace-run does between its flags and its output,
// as gplace/Tooling offers it (Compile.h, Machine.h, Checkpoint.h), with
// keyword arguments in place of flags. Errors are Python exceptions of the
// classes python/gplace/errors.py defines, carrying the diagnostics' text.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Idx.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Support/SourceNesting.h"
#include "gplace/Target/Plan/PlanExport.h"
#include "gplace/Tooling/Checkpoint.h"
#include "gplace/Tooling/Compile.h"
#include "gplace/Tooling/Machine.h"
#include "gplace/Tooling/Run.h"
#ifdef GPLACE_HAVE_ONNX
#include "gplace/Target/ONNX/ImportONNX.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <cxxabi.h>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unistd.h>

namespace py = pybind11;
namespace rt = gplace::runtime;
namespace tooling = gplace::tooling;
using gplace::ElementType;
using gplace::TensorType;

namespace {

/// Raises the exception class `name` of gplace.errors with `message`.
[[noreturn]] void raise(const char *name, const std::string &message) {
  py::object type = py::module_::import("gplace.errors").attr(name);
  PyErr_SetString(type.ptr(), message.c_str());
  throw py::error_already_set();
}

/// The exception class of a status code: TensorFlow's names.
const char *errorClass(rt::StatusCode code) {
  switch (code) {
  case rt::StatusCode::OutOfMemory:
    return "ResourceExhaustedError";
  case rt::StatusCode::Unavailable:
    return "UnavailableError";
  case rt::StatusCode::Internal:
    return "InternalError";
  default:
    return "InvalidArgumentError";
  }
}

/// Raises `status` (not ok) as its exception; `diagnostics` (MLIR's
/// messages, which a reportedError's empty text stands for) come first.
[[noreturn]] void raiseStatus(const rt::Status &status,
                              const std::string &diagnostics = "") {
  std::string message = diagnostics;
  if (!status.message().empty()) {
    if (!message.empty())
      message += "\n";
    message += status.message();
  }
  raise(errorClass(status.code()), message);
}

/// Collects the context's diagnostics as text, one per line, as gplace-run
/// prints them: `file:line:col: error: message` (and the notes).
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diagnostic) {
          append(diagnostic);
          return mlir::success();
        }) {}

  const std::string &text() const { return text_; }

private:
  void append(mlir::Diagnostic &diagnostic) {
    llvm::raw_string_ostream os(text_);
    if (!text_.empty())
      os << "\n";
    // `file:line:col: ` where the location has a file (a named op's
    // location wraps its file's), as MLIR's SourceMgr handler prints.
    if (auto file = diagnostic.getLocation()->findInstanceOf<mlir::FileLineColLoc>())
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn() << ": ";
    switch (diagnostic.getSeverity()) {
    case mlir::DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case mlir::DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case mlir::DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case mlir::DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diagnostic.str();
    for (mlir::Diagnostic &note : diagnostic.getNotes())
      append(note);
  }

  std::string text_;
  mlir::ScopedDiagnosticHandler handler;
};

/// Takes the GIL back for `state`. While Python finalizes, a daemon thread
/// doing so is ended by pthread_exit; unwinding into pybind11, which drops
/// its references without the GIL, crashed the process: such a thread
/// waits here instead for the process to end.
inline void restoreGil(PyThreadState *state) {
  try {
    PyEval_RestoreThread(state);
  } catch (abi::__forced_unwind &) {
    for (;;)
      ::pause();
  }
}

/// Returns work() computed with the GIL released. Not pybind11's
/// gil_scoped_release: its destructor takes the GIL back, and a daemon
/// thread doing that while Python finalizes is ended by pthread_exit,
/// whose unwinding out of a noexcept destructor aborted the process
/// ("terminate called without an active exception", pybind11#2215).
template <typename Work> auto withoutGil(Work &&work) {
  using Result = decltype(work());
  PyThreadState *state = PyEval_SaveThread();
  if constexpr (std::is_void_v<Result>) {
    try {
      work();
    } catch (...) {
      restoreGil(state);
      throw;
    }
    restoreGil(state);
  } else {
    std::optional<Result> result;
    try {
      result.emplace(work());
    } catch (...) {
      restoreGil(state);
      throw;
    }
    restoreGil(state);
    return std::move(*result);
  }
}

/// NumPy's dtype of a gplace element type; std::nullopt for bf16 (NumPy
/// has none).
std::optional<py::dtype> dtypeOf(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return py::dtype("float32");
  case ElementType::F16:
    return py::dtype("float16");
  case ElementType::F64:
    return py::dtype("float64");
  case ElementType::I32:
    return py::dtype("int32");
  case ElementType::I64:
    return py::dtype("int64");
  case ElementType::I1:
    return py::dtype("bool");
  case ElementType::UI8:
    return py::dtype("uint8");
  case ElementType::I8:
    return py::dtype("int8");
  case ElementType::I16:
    return py::dtype("int16");
  case ElementType::UI16:
    return py::dtype("uint16");
  case ElementType::UI32:
    return py::dtype("uint32");
  case ElementType::BF16:
    return std::nullopt;
  }
  return std::nullopt;
}

/// A new NumPy array holding a copy of `bytes` of type `type`. Errors: a
/// bf16 value (ValueError).
py::array toArray(const TensorType &type, const void *bytes) {
  std::optional<py::dtype> dtype = dtypeOf(type.elementType);
  if (!dtype)
    throw py::value_error("a " + type.str() +
                          " value has no NumPy type (NumPy has no bf16)");
  py::array array(*dtype, type.shape);
  if (type.bytes() > 0)
    std::memcpy(array.mutable_data(), bytes, type.bytes());
  return array;
}

/// Checks that `value` is an array of `type` (dtype and shape), for the
/// value called `what`; returns it C-contiguous. Errors: ValueError naming
/// `what` and both types.
py::array checkedArray(py::handle value, const TensorType &type,
                       const std::string &what) {
  std::optional<py::dtype> dtype = dtypeOf(type.elementType);
  if (!dtype)
    throw py::value_error(what + " is " + type.str() +
                          ", which NumPy cannot hold");
  if (value.is_none())
    throw py::value_error(what + " must be " + type.str() + ", not None");
  py::array array = py::array::ensure(value);
  if (!array)
    throw py::value_error(what + " must be an array of " + type.str());
  // Python scalars and lists take the expected type, as TensorFlow's feeds.
  if (!py::isinstance<py::array>(value))
    array = py::array::ensure(value, py::array::c_style | py::array::forcecast)
                .attr("astype")(*dtype);
  // Equal, not the same object: a pickled array's float32 is another
  // dtype object.
  if (!array.dtype().equal(*dtype)) {
    std::string got = py::str(array.dtype());
    throw py::value_error(what + " must be " + type.str() + ", not an array of " +
                          got);
  }
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  if (shape != type.shape) {
    TensorType given{type.elementType, shape};
    throw py::value_error(what + " must be " + type.str() + ", not " +
                          given.str());
  }
  return py::array::ensure(array, py::array::c_style);
}

/// One op as a Python placement policy sees it (TensorFlow's Operation, as
/// far as a device function reads it: name, type, device).
struct PolicyOpView {
  std::string name, type, opName, device, dtype;
  std::vector<int64_t> shape;
  int64_t nbytes = 0;
  bool isVariable = false;
};

/// A compiled graph: its devices, its loaded plan, and what the compiler
/// decided (placement, memory plan).
class Program {
public:
  std::unique_ptr<tooling::Machine> machine;
  std::unique_ptr<rt::Executor> executor; ///< After machine: dies first.
  std::vector<TensorType> inputs;
  /// Per input: its `gplace.name` argument attribute (an ONNX graph
  /// input's name), or "".
  std::vector<std::string> inputNames;
  std::vector<TensorType> results;
  /// Per op --gplace-place placed, in textual order: name, device, rule
  /// (placementRuleName) and reason.
  std::vector<std::tuple<std::string, std::string, std::string, std::string>>
      placement;
  /// Per device: name, arena bytes, persistent bytes, liveness lower bound.
  std::vector<std::tuple<std::string, int64_t, int64_t, int64_t>> memory;
  std::mutex mutex; ///< One run at a time.

  /// Takes `mutex` with the GIL released while it waits: the holder may
  /// need the GIL back (to return its results) before it lets go, and a
  /// waiter holding the GIL would deadlock two threads running one
  /// program (TensorFlow's Session.run is thread-safe).
  std::unique_lock<std::mutex> lockRuns() {
    std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
    if (!lock.owns_lock())
      withoutGil([&] { lock.lock(); });
    return lock;
  }

  /// Runs the program on `args` (one array per input, in order).
  py::list run(const py::args &args) {
    if (args.size() != inputs.size())
      throw py::value_error("the program takes " +
                            std::to_string(inputs.size()) + " input(s), got " +
                            std::to_string(args.size()));
    std::vector<py::array> arrays;
    for (size_t i = 0; i < args.size(); ++i)
      arrays.push_back(
          checkedArray(args[i], inputs[i], "input #" + std::to_string(i)));
    std::unique_lock<std::mutex> lock = lockRuns();
    // The kernels read the arrays in place where the plan allows
    // (Executor::canBindInputs: the CPU and emulated GPUs), else from a
    // copy in the plan's staging memory.
    std::vector<const void *> data;
    for (const py::array &array : arrays)
      data.push_back(array.data());
    rt::StatusOr<std::vector<rt::TensorRef>> ran =
        withoutGil([&] { return executor->runBound(data); });
    if (!ran)
      raiseStatus(ran.status());
    py::list out;
    for (const rt::TensorRef &result : *ran)
      out.append(toArray(*result.type, result.data));
    return out;
  }

  /// The executor's own time per run (runStaged on the staged inputs), in
  /// seconds, `iterations` times: what run()'s overhead is measured
  /// against (bench/python_overhead.py).
  std::vector<double> timeNative(int iterations) {
    std::unique_lock<std::mutex> lock = lockRuns();
    std::vector<double> seconds;
    rt::Status failed = withoutGil([&] {
      for (int i = 0; i < iterations; ++i) {
        auto start = std::chrono::steady_clock::now();
        rt::StatusOr<std::vector<rt::TensorRef>> ran = executor->runStaged();
        auto end = std::chrono::steady_clock::now();
        if (!ran)
          return ran.status();
        seconds.push_back(std::chrono::duration<double>(end - start).count());
      }
      return rt::Status::ok();
    });
    if (!failed)
      raiseStatus(failed);
    return seconds;
  }

  std::vector<std::string> variableNames() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < executor->numVariables(); ++i)
      names.push_back(executor->variableName(i));
    return names;
  }

  /// The first variable named `name`, or a KeyError.
  size_t variableIndex(const std::string &name) const {
    for (size_t i = 0; i < executor->numVariables(); ++i)
      if (executor->variableName(i) == name)
        return i;
    throw py::key_error("no variable '" + name + "'");
  }

  py::array readVariable(const std::string &name) {
    std::unique_lock<std::mutex> lock = lockRuns();
    rt::StatusOr<rt::HostTensor> value =
        executor->readVariable(variableIndex(name));
    if (!value)
      raiseStatus(value.status());
    return toArray(value->type, value->data.data());
  }

  /// Sets every copy of variable `name` (one per replica) to `value`.
  void writeVariable(const std::string &name, py::handle value) {
    size_t first = variableIndex(name);
    py::array array = checkedArray(value, executor->variableType(first),
                                   "variable '" + name + "'");
    rt::HostTensor tensor(executor->variableType(first));
    if (tensor.type.bytes() > 0)
      std::memcpy(tensor.data.data(), array.data(), tensor.type.bytes());
    std::unique_lock<std::mutex> lock = lockRuns();
    for (size_t i = first; i < executor->numVariables(); ++i)
      if (executor->variableName(i) == name)
        if (rt::Status written = executor->writeVariable(i, tensor); !written)
          raiseStatus(written);
  }

  void save(const std::string &path) {
    std::unique_lock<std::mutex> lock = lockRuns();
    if (rt::Status saved = tooling::saveCheckpoint(path, *executor); !saved)
      raiseStatus(saved);
  }

  void restore(const std::string &path) {
    std::unique_lock<std::mutex> lock = lockRuns();
    if (rt::Status restored = tooling::restoreCheckpoint(path, *executor);
        !restored)
      raiseStatus(restored);
  }
};

/// The devices options of compile() and list_devices().
tooling::MachineOptions machineOptions(int64_t emulateGpus,
                                       const std::string &visibleGpus,
                                       int64_t gpuMemoryLimitMiB,
                                       double gpuMemoryFraction,
                                       bool allowGrowth, bool softPlacement) {
  if (emulateGpus < 0 || emulateGpus > 64)
    throw py::value_error("emulate_gpus must be 0 to 64, not " +
                          std::to_string(emulateGpus));
  if (gpuMemoryLimitMiB < 0)
    throw py::value_error("gpu_memory_limit must be >= 0 (MiB)");
  if (gpuMemoryFraction < 0 || gpuMemoryFraction > 1)
    throw py::value_error(
        "per_process_gpu_memory_fraction must be in (0, 1], or 0 for none");
  tooling::MachineOptions options;
  options.emulatedGpus = static_cast<int>(emulateGpus);
  options.visibleGpus = visibleGpus;
  options.gpuMemoryLimitMiB = gpuMemoryLimitMiB;
  options.gpuMemoryFraction = gpuMemoryFraction;
  options.gpuAllowGrowth = allowGrowth;
  options.softPlacement = softPlacement;
  return options;
}

std::unique_ptr<tooling::Machine> makeMachine(const tooling::MachineOptions &o) {
  rt::StatusOr<std::unique_ptr<tooling::Machine>> machine =
      tooling::Machine::create(o);
  if (!machine)
    raiseStatus(machine.status());
  return std::move(*machine);
}

/// list_devices(): one dict per device, TensorFlow's DeviceAttributes
/// fields.
py::list listDevices(int64_t emulateGpus, const std::string &visibleGpus,
                     int64_t gpuMemoryLimitMiB, double gpuMemoryFraction) {
  std::unique_ptr<tooling::Machine> machine =
      makeMachine(machineOptions(emulateGpus, visibleGpus, gpuMemoryLimitMiB,
                                 gpuMemoryFraction, true, false));
  gplace::DeviceSet devices = machine->deviceSet();
  // The CPU first, then the GPUs, as TensorFlow's list_local_devices.
  std::vector<size_t> order;
  for (int cpu = 1; cpu >= 0; --cpu)
    for (size_t i = 0; i < devices.size(); ++i)
      if ((devices.devices()[i].type == gplace::DeviceType::CPU) == bool(cpu))
        order.push_back(i);
  py::list out;
  for (size_t i : order) {
    const gplace::DeviceName &name = devices.devices()[i];
    py::dict device;
    device["name"] = name.str();
    device["device_type"] =
        name.type ? std::string(gplace::deviceTypeName(*name.type))
                  : name.otherType.value_or("");
    device["memory_limit"] = devices.attributes(i).memoryLimit;
    device["physical_device_desc"] = devices.attributes(i).description;
    out.append(device);
  }
  return out;
}

/// compile(): see python/gplace/__init__.py, which checks the arguments'
/// kinds and passes the source as `kind` ("mlir" text, "onnx" bytes) with
/// `path` naming it in diagnostics (and, for ONNX, where external data
/// lies).
std::unique_ptr<Program>
compile(const std::string &kind, const py::bytes &sourceBytes,
        const std::string &path, const std::string &entry, int64_t emulateGpus,
        const std::string &visibleGpus, int64_t gpuMemoryLimitMiB,
        double gpuMemoryFraction, bool allowGrowth, bool allowSoftPlacement,
        bool logDevicePlacement, const std::string &policyName,
        py::object policy, const std::vector<std::string> &dims,
        const std::vector<std::optional<std::vector<int64_t>>> &inputShapes,
        bool initializersAsVariables, int64_t intraOpThreads,
        int64_t interOpThreads, bool checkCpuKernels,
        const std::vector<py::object> &inputValues) {
  // As gplace-run's --intra-op-parallelism-threads and
  // --inter-op-parallelism-threads, before anything runs.
  if (intraOpThreads < 0 || intraOpThreads > INT_MAX)
    throw py::value_error("intra_op_parallelism_threads must be 0 (adapt) to " +
                          std::to_string(INT_MAX) + ", not " +
                          std::to_string(intraOpThreads));
  if (interOpThreads < 0 || interOpThreads > INT_MAX)
    throw py::value_error(
        "inter_op_parallelism_threads must be 0 (no bound) to " +
        std::to_string(INT_MAX) + ", not " + std::to_string(interOpThreads));
  std::string source = sourceBytes;
  mlir::MLIRContext context(tooling::runDialects());
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  DiagnosticCollector diagnostics(context);
  auto fail = [&](rt::StatusCode code = rt::StatusCode::InvalidArgument) {
    raise(errorClass(code), diagnostics.text().empty()
                                ? std::string("compilation failed")
                                : diagnostics.text());
  };

  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (kind == "onnx") {
#ifdef GPLACE_HAVE_ONNX
    gplace::frontend::OnnxImportOptions options;
    options.dims = dims;
    options.inputShapes = inputShapes;
    options.entry = entry;
    options.initializersAsVariables = initializersAsVariables;
    // The values of inputs a node needs at import time (Resize's sizes,
    // TopK's k), as gplace-onnx-test gives them: the graph is specialized
    // for them (OnnxImportOptions::inputValues).
    for (const py::object &value : inputValues) {
      if (value.is_none()) {
        options.inputValues.push_back(std::nullopt);
        continue;
      }
      py::array array = py::array::ensure(value, py::array::c_style);
      std::optional<ElementType> type;
      for (ElementType candidate :
           {ElementType::F32, ElementType::F16, ElementType::F64,
            ElementType::I32, ElementType::I64, ElementType::I1,
            ElementType::UI8, ElementType::I8, ElementType::I16,
            ElementType::UI16, ElementType::UI32})
        if (array && dtypeOf(candidate)->equal(array.dtype()))
          type = candidate;
      if (!type) {
        options.inputValues.push_back(std::nullopt);
        continue;
      }
      TensorType tensorType{*type, std::vector<int64_t>(
                                       array.shape(),
                                       array.shape() + array.ndim())};
      rt::HostTensor tensor(tensorType);
      if (tensorType.bytes() > 0)
        std::memcpy(tensor.data.data(), array.data(), tensorType.bytes());
      options.inputValues.push_back(std::move(tensor));
    }
    gplace::frontend::OnnxImportReport report;
    options.report = &report;
    // As gplace-onnx-test: a node that becomes an op without a CPU kernel
    // for its type is an unsupported form (ONNX Runtime's NOT_IMPLEMENTED).
    if (checkCpuKernels)
      options.checkOp = gplace::frontend::cpuKernelCheck();
    module = gplace::frontend::importOnnxModel(source, path, &context, options);
    if (!module && (!report.unsupported.empty() || report.unsupportedType ||
                    report.dynamicShape))
      raise("UnimplementedError", diagnostics.text());
#else
    raise("UnavailableError",
          "this gplace was built without the ONNX importer (libonnx-dev)");
#endif
  } else {
    if (std::optional<gplace::DeepNesting> deep =
            gplace::findDeepNesting(source)) {
      mlir::emitError(mlir::FileLineColLoc::get(&context, path, deep->line,
                                                deep->column))
          << gplace::deepNestingMessage();
    } else {
      mlir::ParserConfig config(&context);
      module = mlir::parseSourceString<mlir::ModuleOp>(source, config, path);
    }
  }
  if (!module)
    fail();
  if (rt::Status selected =
          tooling::selectEntry(*module, entry, path, "entry=");
      !selected)
    raiseStatus(selected, diagnostics.text());

  auto program = std::make_unique<Program>();
  for (auto func : module->getOps<mlir::func::FuncOp>())
    if (func.getSymName() == entry)
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        auto name = func.getArgAttrOfType<mlir::StringAttr>(i, "gplace.name");
        program->inputNames.push_back(name ? name.str() : "");
      }
  program->machine = makeMachine(
      machineOptions(emulateGpus, visibleGpus, gpuMemoryLimitMiB,
                     gpuMemoryFraction, allowGrowth, allowSoftPlacement));
  gplace::registerMachineWorkspaces(context, program->machine->devices());
  gplace::DeviceSet devices = program->machine->deviceSet();

  // The built-in policies, and the caller's callable as "python".
  gplace::PolicyRegistry policies;
  gplace::registerBuiltinPolicies(policies);
  std::optional<py::error_already_set> policyError;
  gplace::PipelineOptions options;
  options.allowSoftPlacement = allowSoftPlacement;
  options.logDevicePlacement = logDevicePlacement;
  options.policy = policyName;
  if (!policy.is_none()) {
    policies.addStateless(
        "python", "the Python callable given to gplace.compile",
        [&policy, &policyError](const gplace::PolicyOp &op,
                                const gplace::DeviceSet &)
            -> std::optional<std::string> {
          if (policyError)
            return std::nullopt;
          try {
            PolicyOpView view{std::string(op.name),
                              std::string(op.tensorFlowType),
                              std::string(op.opName),
                              std::string(op.requestedDevice),
                              std::string(op.elementType),
                              op.shape,
                              op.resultBytes,
                              op.isVariable};
            py::object answer = policy(py::cast(view));
            if (answer.is_none())
              return std::nullopt;
            if (!py::isinstance<py::str>(answer))
              throw py::type_error(
                  "a placement policy returns a device string or None, not " +
                  std::string(py::str(answer.get_type())));
            return answer.cast<std::string>();
          } catch (py::error_already_set &error) {
            policyError = std::move(error);
          } catch (const std::exception &error) {
            PyErr_SetString(PyExc_TypeError, error.what());
            policyError = py::error_already_set();
          }
          return std::nullopt;
        });
    options.policy = "python";
  }
  auto *graphDialect = context.getLoadedDialect<gplace::graph::GraphDialect>();
  graphDialect->setPolicies(&policies);
  // Why each op is where it is (Program.placement).
  gplace::PlacementReport report;
  graphDialect->setPlacementReport(&report);
  if (rt::Status fits = tooling::checkDevicesFor(options, devices); !fits)
    raiseStatus(fits);

  mlir::FailureOr<rt::Plan> plan =
      tooling::compileToPlan(*module, devices, options);
  graphDialect->setPolicies(nullptr);
  graphDialect->setPlacementReport(nullptr);
  if (policyError)
    throw std::move(*policyError);
  if (mlir::failed(plan))
    fail(tooling::exceedsMemoryLimit(*module)
             ? rt::StatusCode::OutOfMemory
             : rt::StatusCode::InvalidArgument);

  program->inputs = plan->inputs;
  for (int buffer : plan->results)
    program->results.push_back(plan->buffers[buffer].type);
  // The ops the placer placed in the entry function (the one left after
  // selectEntry and inlining) and in the functions outlined from its
  // gplace.if and gplace.while regions ("main/loop/body"); copies inserted
  // after placement are not
  // among them, as TensorFlow's placement log has no _Send/_Recv.
  for (const gplace::PlacementDecision &decision : report.decisions)
    if (decision.function == entry ||
        llvm::StringRef(decision.function).starts_with(entry + "/"))
      program->placement.emplace_back(decision.name, decision.device,
                                      gplace::placementRuleName(decision.rule),
                                      decision.reason);
  for (const rt::DeviceDesc &device : plan->devices)
    program->memory.emplace_back(device.name, device.arenaBytes,
                                 device.persistentBytes,
                                 device.livenessBoundBytes);

  rt::ExecutorOptions executorOptions;
  executorOptions.intraOpThreads = static_cast<int>(intraOpThreads);
  executorOptions.interOpThreads = static_cast<int>(interOpThreads);
  rt::StatusOr<std::unique_ptr<rt::Executor>> executor = rt::Executor::create(
      std::move(*plan), program->machine->devices(), executorOptions);
  if (!executor)
    raiseStatus(executor.status());
  program->executor = std::move(*executor);
  return program;
}

/// read_tensor_file(): an IDX file (plain or gzip) or a .npy file as a
/// NumPy array (gplace-run's --input=@FILE reader).
py::array readTensorFile(const std::string &path) {
  rt::StatusOr<rt::HostTensor> tensor = rt::readTensorFile(path);
  if (!tensor)
    raiseStatus(tensor.status());
  return toArray(tensor->type, tensor->data.data());
}

} // namespace

PYBIND11_MODULE(_gplace, m) {
  m.doc() = "gplace's C++ extension; use the gplace package.";
  // compileToPlan applies the pass manager's command-line options, which
  // must exist (at their defaults: no flags are parsed here).
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();

  py::class_<PolicyOpView>(m, "PolicyOp",
                           "One op as a placement policy sees it.")
      .def_readonly("name", &PolicyOpView::name)
      .def_readonly("type", &PolicyOpView::type,
                    "TensorFlow's op type, e.g. 'MatMul', 'VarHandleOp'")
      .def_readonly("op_name", &PolicyOpView::opName,
                    "gplace's op name, e.g. 'gplace.matmul'")
      .def_readonly("device", &PolicyOpView::device,
                    "the device the graph requests ('' if none)")
      .def_readonly("dtype", &PolicyOpView::dtype)
      .def_readonly("shape", &PolicyOpView::shape)
      .def_readonly("nbytes", &PolicyOpView::nbytes)
      .def_readonly("is_variable", &PolicyOpView::isVariable)
      .def("__repr__", [](const PolicyOpView &op) {
        return "<gplace.PolicyOp '" + op.name + "' type=" + op.type + ">";
      });

  py::class_<Program>(m, "Program")
      .def("run", &Program::run)
      .def_property_readonly("input_types",
                             [](const Program &p) {
                               std::vector<std::string> types;
                               for (const TensorType &t : p.inputs)
                                 types.push_back(t.str());
                               return types;
                             })
      .def_property_readonly("result_types",
                             [](const Program &p) {
                               std::vector<std::string> types;
                               for (const TensorType &t : p.results)
                                 types.push_back(t.str());
                               return types;
                             })
      .def_readonly("input_names", &Program::inputNames)
      .def_readonly("placement_list", &Program::placement)
      .def_readonly("memory_list", &Program::memory)
      .def("time_native", &Program::timeNative)
      .def_property_readonly("inputs_zero_copy",
                             [](const Program &p) {
                               return p.executor->canBindInputs();
                             })
      .def("variable_names", &Program::variableNames)
      .def("read_variable", &Program::readVariable)
      .def("write_variable", &Program::writeVariable)
      .def("save", &Program::save)
      .def("restore", &Program::restore);

  m.def("compile", &compile);
  m.def("list_devices", &listDevices);
  m.def("read_tensor_file", &readTensorFile);
}
