//===- Trace.cpp - Chrome's trace event format ----------------------------===//

#include "gplace/Support/Trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

using namespace gplace;

namespace {

/// `text` as a JSON string, quoted.
std::string quote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

/// A JSON number with three decimals (JSON has no NaN or infinity: 0).
std::string number(double value) {
  if (!std::isfinite(value))
    value = 0;
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

/// An argument's number: integers as such, others with 9 significant
/// digits.
std::string argNumber(double value) {
  if (!std::isfinite(value))
    value = 0;
  char text[64];
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

} // namespace

void ChromeTrace::nameProcess(int pid, const std::string &name,
                              int sortIndex) {
  meta_.push_back({pid, 0, "process", name, sortIndex});
}

void ChromeTrace::nameThread(int pid, int tid, const std::string &name,
                             int sortIndex) {
  meta_.push_back({pid, tid, "thread", name, sortIndex});
}

void ChromeTrace::addSlice(int pid, int tid, std::string name,
                           std::string category, double startMicros,
                           double durationMicros, std::vector<TraceArg> args) {
  slices_.push_back({pid, tid, std::move(name), std::move(category),
                     startMicros, std::max(durationMicros, 0.0),
                     std::move(args)});
}

std::string ChromeTrace::json() const {
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  bool first = true;
  auto event = [&](const std::string &text) {
    out += (first ? "  " : ",\n  ") + text;
    first = false;
  };
  for (const Meta &meta : meta_) {
    std::string ids = "\"pid\": " + std::to_string(meta.pid) +
                      ", \"tid\": " + std::to_string(meta.tid);
    event("{\"name\": \"" + meta.kind + "_name\", \"ph\": \"M\", " + ids +
          ", \"ts\": 0, \"args\": {\"name\": " + quote(meta.name) + "}}");
    event("{\"name\": \"" + meta.kind + "_sort_index\", \"ph\": \"M\", " +
          ids + ", \"ts\": 0, \"args\": {\"sort_index\": " +
          std::to_string(meta.sortIndex) + "}}");
  }
  std::vector<const Slice *> sorted;
  for (const Slice &slice : slices_)
    sorted.push_back(&slice);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Slice *a, const Slice *b) {
                     return std::make_tuple(a->pid, a->tid, a->start) <
                            std::make_tuple(b->pid, b->tid, b->start);
                   });
  for (const Slice *slice : sorted) {
    std::string args;
    for (const TraceArg &arg : slice->args)
      args += (args.empty() ? "" : ", ") + quote(arg.key) + ": " +
              (arg.isNumber ? argNumber(arg.number) : quote(arg.text));
    event("{\"name\": " + quote(slice->name) +
          ", \"cat\": " + quote(slice->category) +
          ", \"ph\": \"X\", \"ts\": " + number(slice->start) +
          ", \"dur\": " + number(slice->duration) +
          ", \"pid\": " + std::to_string(slice->pid) +
          ", \"tid\": " + std::to_string(slice->tid) + ", \"args\": {" + args +
          "}}");
  }
  return out + "\n]}\n";
}
