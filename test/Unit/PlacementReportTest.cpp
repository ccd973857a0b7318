//===- PlacementReportTest.cpp - why --gplace-place put each op there -----===//
//
// The placement report (gplace/Support/PlacementReport.h): with a report
// set on the graph dialect, --gplace-place records each op's device and
// the rule that chose it, in the placement log's order; without one it
// records nothing, and the IR is the same either way.
//
//===----------------------------------------------------------------------===//

#include "gplace/Support/PlacementReport.h"
#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace gplace;

namespace {

/// Places `text` with `options`, recording into `report` if not null.
/// Returns the printed module, or "" (with the errors in `errors`).
std::string place(const std::string &text, const PlacePassOptions &options,
                  PlacementReport *report, std::string &errors) {
  mlir::MLIRContext context;
  context.loadDialect<graph::GraphDialect, mlir::func::FuncDialect>();
  context.getLoadedDialect<graph::GraphDialect>()->setPlacementReport(report);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    errors += d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return "";
  mlir::PassManager pm(&context);
  pm.addPass(createPlacePass(options));
  if (mlir::failed(pm.run(*module)))
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  return out;
}

const char *kGraph = R"(
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %v = gplace.variable dense<1.0> : tensor<2x2xf32> {name = "v"}
  %r = gplace.read %v {name = "r", device = "/gpu:0"} : !gplace.resource<tensor<2x2xf32>>
  %c = gplace.constant dense<2.0> : tensor<2x2xf32> {name = "c"}
  %m = gplace.matmul %x, %c {name = "m", device = "/gpu:3"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %i = gplace.identity %m {name = "i"} : tensor<2x2xf32>
  %a = gplace.add %i, %r {name = "a"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %a : tensor<2x2xf32>
}
)";

const PlacementDecision *find(const PlacementReport &report,
                              const std::string &name) {
  for (const PlacementDecision &decision : report.decisions)
    if (decision.name == name)
      return &decision;
  return nullptr;
}

TEST(PlacementReport, RulesAndReasons) {
  PlacePassOptions options;
  options.devices = "cpu:1,gpu:2";
  options.allowSoftPlacement = true;
  PlacementReport report;
  std::string errors;
  std::string withReport = place(kGraph, options, &report, errors);
  ASSERT_FALSE(withReport.empty()) << errors;

  std::vector<std::string> names;
  for (const PlacementDecision &decision : report.decisions) {
    names.push_back(decision.name);
    EXPECT_EQ(decision.function, "main");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"v", "r", "c", "m", "i", "a"}));

  // The variable has no request; its read's request is its group's.
  const PlacementDecision *v = find(report, "v");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, PlacementRule::Request);
  EXPECT_EQ(v->reason, "explicit request '/gpu:0' of colocated 'r'");
  EXPECT_EQ(v->device, "/job:localhost/replica:0/task:0/device:GPU:0");
  const PlacementDecision *r = find(report, "r");
  EXPECT_EQ(r->rule, PlacementRule::Colocation);
  EXPECT_EQ(r->reason, "colocated with resource 'v'");

  // GPU:3 does not exist: soft placement, with the log's reason.
  const PlacementDecision *m = find(report, "m");
  EXPECT_EQ(m->rule, PlacementRule::SoftPlacement);
  EXPECT_EQ(m->reason.rfind("soft placement: requested '/gpu:3', but ", 0), 0u)
      << m->reason;
  const PlacementDecision *c = find(report, "c");
  EXPECT_EQ(c->rule, PlacementRule::Heuristic);
  EXPECT_EQ(c->reason, "heuristic: no inputs, placed with its consumer 'm'");
  EXPECT_EQ(c->device, m->device);
  const PlacementDecision *i = find(report, "i");
  EXPECT_EQ(i->rule, PlacementRule::Heuristic);
  EXPECT_EQ(i->reason,
            "heuristic: identity-like, placed with its producer 'm'");
  const PlacementDecision *a = find(report, "a");
  EXPECT_EQ(a->rule, PlacementRule::Priority);
  EXPECT_EQ(a->device, "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_STREQ(placementRuleName(a->rule), "priority");

  // Without a report: nothing recorded anywhere, the same IR.
  std::string without = place(kGraph, options, nullptr, errors);
  EXPECT_EQ(without, withReport);
}

TEST(PlacementReport, NothingOnFailure) {
  PlacePassOptions options;
  options.devices = "cpu:1";
  PlacementReport report;
  std::string errors;
  EXPECT_TRUE(place(kGraph, options, &report, errors).empty());
  EXPECT_NE(errors.find("Could not satisfy explicit device specification"),
            std::string::npos)
      << errors;
  EXPECT_TRUE(report.decisions.empty());
}

TEST(PlacementReport, KeptAssignedDevice) {
  PlacePassOptions options;
  options.devices = "cpu:1,gpu:1";
  PlacementReport report;
  std::string errors;
  ASSERT_FALSE(place(R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = gplace.relu %x {name = "y", assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<2xf32>
  return %y : tensor<2xf32>
}
)",
                     options, &report, errors)
                   .empty())
      << errors;
  ASSERT_EQ(report.decisions.size(), 1u);
  EXPECT_EQ(report.decisions[0].rule, PlacementRule::Assigned);
  EXPECT_EQ(report.decisions[0].reason, "kept its assigned device");
}

} // namespace
