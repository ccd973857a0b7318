//===- Estimate.cpp - predicted step time and peak memory -----------------===//
//
// --gplace-estimate: the cost model's step time for each function of a
// placed graph, and each device's peak memory from the static memory plan
// of a lowered copy of the module, so that the figure is the plan's own.
// It lives with the pipelines because it runs the lowering.
//
//===----------------------------------------------------------------------===//

#include "gplace/Conversion/Passes.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Pipelines/Pipelines.h"
#include "gplace/Support/Trace.h"
#include "gplace/Transforms/CostModel.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace gplace {
#define GEN_PASS_DEF_ESTIMATEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;

namespace {

/// The process id of function #i's predicted timeline: apart from the ids
/// gplace-run --trace gives its tasks (0, 1, ...), so that a measured and
/// a predicted trace merge into one file without sharing a track.
constexpr int kPredictedPid = 1000;

/// The predicted timelines of `steps` (each with its timeline), one process
/// per function: a track per device (its kernels) and one per link that
/// moves copies (a link moves one copy at a time, and may move it while
/// both devices run kernels).
ChromeTrace predictedTrace(
    std::vector<std::pair<func::FuncOp, StepEstimate>> &steps,
    const DeviceSet &devices, llvm::StringRef rates) {
  ChromeTrace trace;
  const std::vector<DeviceName> &names = devices.devices();
  auto deviceName = [&](int index) {
    return index < 0 ? DeviceName::local(DeviceType::CPU, 0).str()
                     : names[index].str();
  };
  int pid = kPredictedPid;
  for (auto &[func, step] : steps) {
    trace.nameProcess(pid,
                      "predicted @" + func.getSymName().str() +
                          " (gplace-estimate, " + rates.str() + ")",
                      pid);
    // Tracks: the devices in the set's order, the host after them when it
    // is not in the set, then the links in the order of their first copy.
    std::map<int, int> deviceTid;
    std::map<std::pair<int, int>, int> linkTid;
    std::vector<std::pair<int, int>> links; // In the order of their first copy.
    for (const PredictedSlice &slice : step.timeline) {
      if (!slice.isCopy)
        deviceTid.try_emplace(slice.device, 0);
      else if (linkTid.try_emplace({slice.source, slice.device}, 0).second)
        links.push_back({slice.source, slice.device});
    }
    int tid = 1;
    for (auto &[device, id] : deviceTid)
      if (device >= 0)
        id = tid++;
    if (deviceTid.count(-1))
      deviceTid[-1] = tid++;
    for (auto &[device, id] : deviceTid)
      trace.nameThread(pid, id, deviceName(device), id);
    for (const std::pair<int, int> &link : links) {
      int id = linkTid[link] = tid++;
      trace.nameThread(pid, id,
                       "copies " + deviceName(link.first) + " -> " +
                           deviceName(link.second),
                       id);
    }
    for (const PredictedSlice &slice : step.timeline) {
      std::vector<TraceArg> args = {
          TraceArg::string("device", deviceName(slice.device))};
      if (slice.isCopy) {
        args.push_back(TraceArg::string("from", deviceName(slice.source)));
        args.push_back(TraceArg::num("bytes", slice.bytes));
      }
      trace.addSlice(pid,
                     slice.isCopy ? linkTid[{slice.source, slice.device}]
                                  : deviceTid[slice.device],
                     slice.name, slice.isCopy ? "copy" : "launch",
                     slice.startSeconds * 1e6, slice.seconds * 1e6,
                     std::move(args));
    }
    ++pid;
  }
  return trace;
}

/// Writes `text` to `path` whole or not at all (a temporary file beside it,
/// renamed over it; "-" is stdout). Errors: "cannot write '<path>': <why>".
LogicalResult writeWhole(llvm::StringRef path, const std::string &text,
                         std::string *error) {
  llvm::Error written =
      llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << text;
        return llvm::Error::success();
      });
  if (!written)
    return success();
  std::string why = llvm::toString(std::move(written));
  // llvm::FileError's message starts with the path: keep the cause.
  std::string prefix = "'" + path.str() + "': ";
  if (llvm::StringRef(why).starts_with(prefix))
    why = why.substr(prefix.size());
  *error = "cannot write '" + path.str() + "': " + why;
  return failure();
}

struct EstimatePass : public gplace::impl::EstimatePassBase<EstimatePass> {
  using EstimatePassBase::EstimatePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location optionLoc = UnknownLoc::get(&getContext());
    std::string profileError;
    std::optional<CostProfile> rates =
        CostProfile::loadOrDefaults(profile, &profileError);
    if (!rates) {
      emitError(optionLoc) << "gplace-estimate: " << profileError;
      return signalPassFailure();
    }
    // The devices: the module's, else those the ops are assigned to.
    std::optional<DeviceSet> devices = graph::getModuleDevices(module);
    if (!devices) {
      devices.emplace();
      module.walk([&](graph::PlacedOpInterface op) {
        if (std::optional<DeviceName> name =
                DeviceName::parse(op.getAssignedDeviceName().str()))
          if (name->isFullySpecified())
            devices->add(*name);
      });
    }

    std::vector<std::pair<func::FuncOp, StepEstimate>> steps;
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      FailureOr<StepEstimate> step =
          estimateStep(func, *devices, *rates, /*withTimeline=*/!trace.empty());
      if (failed(step))
        return signalPassFailure();
      steps.push_back({func, std::move(*step)});
    }

    // Peak memory: the plan's. A placement over a memory limit still gets
    // its figures; the limit's error is part of the report, not a failure.
    OwningOpRef<ModuleOp> lowered = module.clone();
    PassManager pm(&getContext());
    pm.addPass(createInsertCopiesPass());
    pm.addPass(createInsertControlDepsPass());
    buildLowerToPlanPipeline(pm);
    std::string diagnostics;
    LogicalResult result = success();
    {
      ScopedDiagnosticHandler capture(&getContext(), [&](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          diagnostics += "  " + diag.str() + "\n";
        return success();
      });
      result = pm.run(*lowered);
    }
    std::map<std::string, std::pair<int64_t, int64_t>> peaks; // peak, limit
    lowered->walk([&](plan::DeviceOp device) {
      if (IntegerAttr peak = device.getPeakBytesAttr())
        peaks[device.getDeviceName().str()] = {
            peak.getInt(), device.getMemoryLimitAttr().getInt()};
    });
    if (failed(result) && peaks.empty()) {
      emitError(module.getLoc())
          << "gplace-estimate: the placed graph does not lower to a plan:\n"
          << diagnostics;
      return signalPassFailure();
    }

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file =
        output == "-" ? nullptr : openOutputFile(output, &error);
    if (output != "-" && !file) {
      emitError(optionLoc) << "gplace-estimate: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = file ? file->os() : llvm::errs();
    for (auto &[func, step] : steps) {
      os << "@" << func.getSymName() << ": predicted step time "
         << llvm::format("%.3f", step.stepSeconds * 1e3) << " ms ("
         << (profile.empty() ? std::string("default rates")
                             : "profile " + profile)
         << ")\n";
      const char *header[] = {"device", "busy_ms", "copied_in_bytes",
                              "peak_bytes", "limit_bytes"};
      os << llvm::format("  %-46s %10s %16s %14s %14s\n", header[0],
                         header[1], header[2], header[3], header[4]);
      for (auto [index, device] : llvm::enumerate(devices->devices())) {
        auto peak = peaks.find(device.str());
        std::string peakText =
            peak == peaks.end() ? "-" : std::to_string(peak->second.first);
        int64_t limit = devices->attributes(index).memoryLimit;
        std::string limitText = limit > 0 ? std::to_string(limit) : "-";
        std::string name = device.str();
        os << llvm::format("  %-46s %10.3f %16lld %14s %14s\n", name.c_str(),
                           step.busySeconds[index] * 1e3,
                           (long long)step.copiedInBytes[index],
                           peakText.c_str(), limitText.c_str());
      }
    }
    if (failed(result))
      os << "the memory plan fails:\n" << diagnostics;
    if (file)
      file->keep();
    if (!trace.empty()) {
      std::string traceError;
      std::string json =
          predictedTrace(steps, *devices,
                         profile.empty() ? "default rates"
                                         : "profile " + profile)
              .json();
      if (failed(writeWhole(trace, json, &traceError))) {
        emitError(optionLoc) << "gplace-estimate: trace: " << traceError;
        return signalPassFailure();
      }
    }
    markAllAnalysesPreserved();
  }
};

} // namespace
