//===- PlacementReport.h - why each op is on its device ---------*- C++ -*-===//
//
// What --gplace-place decided for each op it placed: the device and the
// rule of SPEC §3 that chose it, with a short reason a person can read
// ("explicit request '/gpu:0'", "soft placement: requested '/gpu:2', but
// ..."). A tool that wants it sets a report on the context's graph dialect
// (GraphDialect::setPlacementReport) before compiling, as it sets the
// placement policies; the IR does not change. The Python package's
// `Program.placement` is made from it (docs/python.md).
//
// Plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_PLACEMENTREPORT_H
#define GPLACE_SUPPORT_PLACEMENTREPORT_H

#include <string>
#include <vector>

namespace gplace {

/// The rule that decided an op's device, in SPEC §3's order.
enum class PlacementRule {
  /// An `assigned_device` from an earlier placement, kept (TensorFlow
  /// keeps a node's assigned device).
  Assigned,
  /// Colocation: the op uses a resource (or names an op in
  /// `gplace.colocate_with`) and goes where that op's group goes.
  Colocation,
  /// The explicit `device` request, merged with `gplace.default_device`.
  Request,
  /// The callable placement policy's answer.
  Policy,
  /// TensorFlow's heuristics: an op with no inputs goes where its consumer
  /// goes, an identity-like op where its producer is.
  Heuristic,
  /// The default priority: GPU before CPU, lowest id first.
  Priority,
  /// Soft placement: the request could not be met, the op was moved.
  SoftPlacement,
  /// policy=auto: the cost model's m-ETF placement.
  Auto,
};

/// The rule's name as the Python package gives it: "assigned",
/// "colocation", "request", "policy", "heuristic", "priority",
/// "soft-placement", "auto".
inline const char *placementRuleName(PlacementRule rule) {
  switch (rule) {
  case PlacementRule::Assigned:
    return "assigned";
  case PlacementRule::Colocation:
    return "colocation";
  case PlacementRule::Request:
    return "request";
  case PlacementRule::Policy:
    return "policy";
  case PlacementRule::Heuristic:
    return "heuristic";
  case PlacementRule::Priority:
    return "priority";
  case PlacementRule::SoftPlacement:
    return "soft-placement";
  case PlacementRule::Auto:
    return "auto";
  }
  return "unknown";
}

/// One op placed by --gplace-place.
struct PlacementDecision {
  std::string function; ///< The function's symbol name.
  std::string name;     ///< The op's name, as the placement log prints it.
  std::string device;   ///< Its full device name.
  PlacementRule rule = PlacementRule::Priority;
  /// Why, in a few words: "explicit request '/gpu:0'", "default priority:
  /// GPU before CPU", "colocated with resource 'w'", the soft placement's
  /// reason as the placement log prints it, ...
  std::string reason;
};

/// What --gplace-place decided, op by op: for each function it placed, its
/// ops in textual order (the placement log's order). Each run of the pass
/// appends; only a successful placement of the whole module is recorded.
struct PlacementReport {
  std::vector<PlacementDecision> decisions;
};

} // namespace gplace

#endif // GPLACE_SUPPORT_PLACEMENTREPORT_H
