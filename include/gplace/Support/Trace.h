//===- Trace.h - Chrome's trace event format --------------------*- C++ -*-===//
//
// Timelines as the JSON of Chrome's trace event format, which Perfetto
// (ui.perfetto.dev), chrome://tracing and TensorBoard's profiler open:
// {"traceEvents": [...], "displayTimeUnit": "ms"}, with one complete event
// (ph "X") per slice and metadata events (ph "M") naming the processes and
// threads that hold them. gplace-run --trace writes the measured timeline
// of its runs and --gplace-estimate="trace=FILE" the cost model's predicted
// one (docs/runtime.md, "Timelines"). Plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_TRACE_H
#define GPLACE_SUPPORT_TRACE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gplace {

/// One entry of a slice's "args": a string or a number.
struct TraceArg {
  std::string key;
  std::string text; ///< The value, where `isNumber` is false.
  double number = 0;
  bool isNumber = false;

  static TraceArg string(std::string key, std::string value) {
    return {std::move(key), std::move(value), 0, false};
  }
  static TraceArg num(std::string key, double value) {
    return {std::move(key), "", value, true};
  }
};

/// A timeline being built, then printed as one JSON document.
class ChromeTrace {
public:
  /// Names process `pid` (a "process_name" metadata event) and orders it
  /// among processes by `sortIndex` ("process_sort_index").
  void nameProcess(int pid, const std::string &name, int sortIndex = 0);
  /// Names track `tid` of process `pid` ("thread_name") and orders it
  /// within the process by `sortIndex` ("thread_sort_index").
  void nameThread(int pid, int tid, const std::string &name,
                  int sortIndex = 0);
  /// Adds a complete event (ph "X") on track (`pid`, `tid`): `name`, its
  /// category `category`, start `startMicros` and duration `durationMicros`
  /// in microseconds (a negative duration is written as 0), and `args`.
  void addSlice(int pid, int tid, std::string name, std::string category,
                double startMicros, double durationMicros,
                std::vector<TraceArg> args = {});

  /// The number of slices added.
  size_t numSlices() const { return slices_.size(); }

  /// The document: the metadata events, then the slices ordered by
  /// process, track and start; times with three decimals (nanoseconds).
  std::string json() const;

private:
  struct Meta {
    int pid, tid;
    std::string kind, name; // "process_name" or "thread_name".
    int sortIndex;
  };
  struct Slice {
    int pid, tid;
    std::string name, category;
    double start, duration;
    std::vector<TraceArg> args;
  };
  std::vector<Meta> meta_;
  std::vector<Slice> slices_;
};

} // namespace gplace

#endif // GPLACE_SUPPORT_TRACE_H
