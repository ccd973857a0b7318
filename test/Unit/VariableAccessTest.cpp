//===- VariableAccessTest.cpp - the shared variable-access analysis -------===//
//
// getVariableAccesses, writesVariable, isVariableWritten, forwardsInput and
// collectVariableWriters (VariableAccess.h), which the lowering, control dependencies, automatic
// placement and the cost model share: reads, writes (through a view of the
// resource too), an update of three variables, and ops that touch none.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/VariableAccess.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace gplace::graph;

namespace {

const char *const kGraph = R"mlir(
func.func @main(%grad: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %w = gplace.variable dense<1.0> : tensor<4xf32> {name = "w"}
  %m = gplace.variable dense<0.0> : tensor<4xf32> {name = "m"}
  %v = gplace.variable dense<0.0> : tensor<4xf32> {name = "v"}
  %r = gplace.variable dense<2.0> : tensor<4xf32> {name = "r"}
  %x = gplace.read %w {name = "read_w"} : !gplace.resource<tensor<4xf32>>
  %y = gplace.read %r {name = "read_r"} : !gplace.resource<tensor<4xf32>>
  %alias = gplace.identity %m {name = "alias"} : !gplace.resource<tensor<4xf32>>
  %t = gplace.assign %alias, %x {name = "assign"} : !gplace.resource<tensor<4xf32>>
  %adam = gplace.apply_adam %w, %m, %v, %s, %s, %s, %s, %s, %s, %grad {name = "adam"} : !gplace.resource<tensor<4xf32>>, !gplace.resource<tensor<4xf32>>, !gplace.resource<tensor<4xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<4xf32>
  %sum = gplace.add %x, %y {name = "sum"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
)mlir";

TEST(VariableAccess, ReadsWritesAndViews) {
  MLIRContext context;
  context.loadDialect<GraphDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kGraph, &context);
  ASSERT_TRUE(module);
  llvm::StringMap<Operation *> ops;
  module->walk([&](Operation *op) {
    if (auto name = op->getAttrOfType<StringAttr>("name"))
      ops[name.getValue()] = op;
  });
  auto variable = [&](StringRef name) { return ops[name]->getResult(0); };

  // A read reads its variable; an add touches none.
  auto read = getVariableAccesses(ops["read_w"]);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].variable, variable("w"));
  EXPECT_FALSE(read[0].writes);
  EXPECT_TRUE(getVariableAccesses(ops["sum"]).empty());
  // A declaration is no access.
  EXPECT_TRUE(getVariableAccesses(ops["w"]).empty());
  // An assign through an identity of the resource writes the variable.
  EXPECT_TRUE(writesVariable(ops["assign"], variable("m")));
  EXPECT_FALSE(writesVariable(ops["assign"], variable("w")));
  // Adam updates its three variables, each once, in order.
  auto adam = getVariableAccesses(ops["adam"]);
  ASSERT_EQ(adam.size(), 3u);
  EXPECT_EQ(adam[0].variable, variable("w"));
  EXPECT_EQ(adam[1].variable, variable("m"));
  EXPECT_EQ(adam[2].variable, variable("v"));
  EXPECT_TRUE(adam[0].writes && adam[1].writes && adam[2].writes);
  // Written: w, m (through its view) and v; r is only read.
  EXPECT_TRUE(isVariableWritten(variable("w")));
  EXPECT_TRUE(isVariableWritten(variable("m")));
  EXPECT_TRUE(isVariableWritten(variable("v")));
  EXPECT_FALSE(isVariableWritten(variable("r")));
  // Views: reads and identities; not an add or an assign.
  EXPECT_TRUE(forwardsInput(ops["read_r"]));
  EXPECT_TRUE(forwardsInput(ops["alias"]));
  EXPECT_FALSE(forwardsInput(ops["sum"]));
  EXPECT_FALSE(forwardsInput(ops["assign"]));
  // The writers of each variable, in block order: m by the assign (through
  // its view) and then by adam; w and v by adam; r by none.
  auto func = cast<func::FuncOp>(ops["w"]->getParentOp());
  VariableWriters writers = collectVariableWriters(func.getBody().front());
  EXPECT_EQ(writers.size(), 3u);
  EXPECT_EQ(writers.lookup(variable("m")),
            (SmallVector<Operation *, 2>{ops["assign"], ops["adam"]}));
  EXPECT_EQ(writers.lookup(variable("w")),
            (SmallVector<Operation *, 2>{ops["adam"]}));
  EXPECT_EQ(writers.lookup(variable("v")),
            (SmallVector<Operation *, 2>{ops["adam"]}));
  EXPECT_FALSE(writers.count(variable("r")));
}

} // namespace
