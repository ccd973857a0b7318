//===- GradientCheckTest.cpp - finite-difference checks of every gradient -===//
//
// For each differentiable op: loss(x) = sum(op(x) * w) with fixed weights
// w, in f64. The gradient --gplace-differentiate builds (gplace.gradients,
// compiled and run on the CPU) must equal central differences of the loss,
// (loss(x + h e_i) - loss(x - h e_i)) / 2h with h = 1e-6, element by
// element: |analytic - numeric| <= 1e-6 + 1e-5 |numeric| (the difference
// quotient's own error is about h^2 times the third derivative plus 1e-16 /
// h of rounding, far below that).
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Tooling/Compile.h"
#include "gplace/Tooling/Machine.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

using namespace gplace;
namespace rt = gplace::runtime;

namespace {

struct Case {
  std::string name;
  /// Argument types, e.g. "2x3xf64"; their SSA names are %a0, %a1, ...
  std::vector<std::string> args;
  /// Ops computing %y from the arguments.
  std::string body;
  /// %y's type.
  std::string resultType;
  /// Arguments drawn from [0.5, 1.5] instead of [-1, 1] (log, div).
  bool positive = false;
  /// Tolerance factor for cases with f32 steps inside (cast).
  double tolerance = 1;
  /// Arguments and %y in f32 (ops with f32 kernels only: conv2d, pooling):
  /// the loss casts %y to f64, the step is 1e-3 and the tolerance 3e-3 +
  /// 1e-3 |numeric|. The ops checked so are piecewise linear in each
  /// argument, so the difference quotient is exact but for rounding (about
  /// 1e-6 of each f32 result over a step of 2e-3).
  bool f32 = false;
};

std::vector<int64_t> shapeOf(const std::string &type) {
  std::vector<int64_t> shape;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(type).split(parts, 'x');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    int64_t dim = 0;
    parts[i].getAsInteger(10, dim);
    shape.push_back(dim);
  }
  return shape;
}

int64_t countOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Deterministic values in [lo, hi), distinct per (seed, i).
double valueAt(uint64_t seed, int64_t i, double lo, double hi) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i) + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * static_cast<double>(z >> 11) / 9007199254740992.0;
}

std::string tensorType(const std::string &type) {
  return "tensor<" + type + ">";
}

/// `type` with its element type replaced by f64 ("2x3xf32" -> "2x3xf64").
std::string asF64(const std::string &type) {
  return type.substr(0, type.size() - 3) + "f64";
}

/// The module: @loss (sum(y * w)) and @grad (its gradients).
std::string moduleText(const Case &c, bool gradients) {
  std::ostringstream os;
  std::vector<int64_t> shape = shapeOf(c.resultType);
  os << "func.func @" << (gradients ? "grad" : "loss") << "(";
  for (size_t i = 0; i < c.args.size(); ++i)
    os << (i ? ", " : "") << "%a" << i << ": " << tensorType(c.args[i]);
  os << ") -> (";
  if (gradients)
    for (size_t i = 0; i < c.args.size(); ++i)
      os << (i ? ", " : "") << tensorType(c.args[i]);
  else
    os << "tensor<f64>";
  os << ") {\n" << c.body << "\n";
  std::string y = "%y", yType = c.resultType;
  if (c.f32) {
    yType = asF64(c.resultType);
    os << "  %y64 = gplace.cast %y : " << tensorType(c.resultType) << " to "
       << tensorType(yType) << "\n";
    y = "%y64";
  }
  os << "  %w = gplace.constant dense<[";
  for (int64_t i = 0, n = countOf(shape); i < n; ++i)
    os << (i ? ", " : "") << valueAt(99, i, -1, 1);
  os << "]> : tensor<" << countOf(shape) << "xf64>\n";
  os << "  %wr = gplace.reshape %w : tensor<" << countOf(shape)
     << "xf64> -> " << tensorType(yType) << "\n";
  os << "  %p = gplace.mul " << y << ", %wr : (" << tensorType(yType) << ", "
     << tensorType(yType) << ") -> " << tensorType(yType) << "\n";
  os << "  %loss = gplace.reduce_sum %p axes = [";
  for (size_t d = 0; d < shape.size(); ++d)
    os << (d ? ", " : "") << d;
  os << "] : " << tensorType(yType) << " -> tensor<f64>\n";
  if (gradients) {
    os << "  %g:" << c.args.size() << " = gplace.gradients %loss wrt ";
    for (size_t i = 0; i < c.args.size(); ++i)
      os << (i ? ", " : "") << "%a" << i;
    os << " : tensor<f64> wrt ";
    for (size_t i = 0; i < c.args.size(); ++i)
      os << (i ? ", " : "") << tensorType(c.args[i]);
    os << "\n  return ";
    for (size_t i = 0; i < c.args.size(); ++i)
      os << (i ? ", " : "") << "%g#" << i;
    os << " : ";
    for (size_t i = 0; i < c.args.size(); ++i)
      os << (i ? ", " : "") << tensorType(c.args[i]);
    os << "\n}\n";
  } else {
    os << "  return %loss : tensor<f64>\n}\n";
  }
  return os.str();
}

class GradientCheck : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    // compileToPlan applies the pass manager's command-line options.
    static bool registered = [] {
      mlir::registerPassManagerCLOptions();
      mlir::registerDefaultTimingManagerCLOptions();
      return true;
    }();
    (void)registered;
    registry_.insert<graph::GraphDialect, plan::PlanDialect,
                     mlir::func::FuncDialect>();
    mlir::func::registerInlinerExtension(registry_);
    auto machine = tooling::Machine::create({});
    ASSERT_TRUE(static_cast<bool>(machine)) << machine.status().message();
    machine_ = std::move(*machine);
  }

  /// Compiles `text` for the CPU and loads it.
  std::unique_ptr<rt::Executor> load(mlir::MLIRContext &context,
                                     const std::string &text) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    if (!module)
      return nullptr;
    std::string diagnostics;
    mlir::ScopedDiagnosticHandler handler(
        &context, [&](mlir::Diagnostic &diag) {
          diagnostics += diag.str() + "\n";
          return mlir::success();
        });
    mlir::FailureOr<rt::Plan> plan =
        tooling::compileToPlan(*module, machine_->deviceSet(),
                               gplace::PipelineOptions());
    EXPECT_TRUE(mlir::succeeded(plan)) << diagnostics << text;
    if (mlir::failed(plan))
      return nullptr;
    auto executor = rt::Executor::create(std::move(*plan), machine_->devices());
    EXPECT_TRUE(static_cast<bool>(executor)) << executor.status().message();
    return static_cast<bool>(executor) ? std::move(*executor) : nullptr;
  }

  mlir::DialectRegistry registry_;
  std::unique_ptr<tooling::Machine> machine_;
};

TEST_P(GradientCheck, MatchesFiniteDifferences) {
  const Case &c = GetParam();
  mlir::MLIRContext context(registry_);
  context.loadAllAvailableDialects();
  PolicyRegistry policies;
  registerBuiltinPolicies(policies);
  context.getLoadedDialect<graph::GraphDialect>()->setPolicies(&policies);
  std::unique_ptr<rt::Executor> loss = load(context, moduleText(c, false));
  std::unique_ptr<rt::Executor> grad = load(context, moduleText(c, true));
  ASSERT_TRUE(loss && grad);

  // Element i of argument a, as f64, and its setter, in the case's type.
  auto get = [&](const rt::HostTensor &t, int64_t i) -> double {
    if (c.f32)
      return reinterpret_cast<const float *>(t.data.data())[i];
    return reinterpret_cast<const double *>(t.data.data())[i];
  };
  auto set = [&](rt::HostTensor &t, int64_t i, double value) {
    if (c.f32)
      reinterpret_cast<float *>(t.data.data())[i] = static_cast<float>(value);
    else
      reinterpret_cast<double *>(t.data.data())[i] = value;
  };
  std::vector<rt::HostTensor> inputs;
  for (size_t a = 0; a < c.args.size(); ++a) {
    rt::HostTensor tensor(rt::TensorType{
        c.f32 ? ElementType::F32 : ElementType::F64, shapeOf(c.args[a])});
    for (int64_t i = 0, n = tensor.type.numElements(); i < n; ++i)
      set(tensor, i,
          c.positive ? valueAt(a, i, 0.5, 1.5) : valueAt(a, i, -1, 1));
    inputs.push_back(std::move(tensor));
  }
  auto analytic = grad->run(inputs);
  if (!analytic && analytic.status().code() == rt::StatusCode::Unavailable)
    GTEST_SKIP() << analytic.status().message(); // Built without oneDNN.
  ASSERT_TRUE(static_cast<bool>(analytic)) << analytic.status().message();
  ASSERT_EQ(analytic->size(), c.args.size());

  const double h = c.f32 ? 1e-3 : 1e-6;
  auto evaluate = [&]() {
    auto result = loss->run(inputs);
    EXPECT_TRUE(static_cast<bool>(result)) << result.status().message();
    double value = 0;
    std::memcpy(&value, (*result)[0].data.data(), sizeof(double));
    return value;
  };
  for (size_t a = 0; a < c.args.size(); ++a) {
    for (int64_t i = 0, n = inputs[a].type.numElements(); i < n; ++i) {
      double saved = get(inputs[a], i);
      set(inputs[a], i, saved + h);
      double up = get(inputs[a], i), plus = evaluate();
      set(inputs[a], i, saved - h);
      double down = get(inputs[a], i), minus = evaluate();
      set(inputs[a], i, saved);
      // The step actually taken (f32 rounds x + h).
      double numeric = (plus - minus) / (up - down);
      double tolerance = c.f32 ? 3e-3 + 1e-3 * std::fabs(numeric)
                               : c.tolerance * (1e-6 + 1e-5 * std::fabs(numeric));
      EXPECT_NEAR(get((*analytic)[a], i), numeric, tolerance)
          << c.name << ": d loss / d a" << a << "[" << i << "]";
    }
  }
}

std::vector<Case> cases() {
  auto binary = [](const std::string &op, const std::string &lhs,
                   const std::string &rhs, const std::string &result,
                   bool positive = false) {
    return Case{op + "_" + lhs + "_" + rhs,
                {lhs, rhs},
                "  %y = gplace." + op + " %a0, %a1 : (" + tensorType(lhs) +
                    ", " + tensorType(rhs) + ") -> " + tensorType(result),
                result,
                positive};
  };
  auto unary = [](const std::string &op, bool positive = false) {
    return Case{op, {"2x3xf64"},
                "  %y = gplace." + op + " %a0 : tensor<2x3xf64>", "2x3xf64",
                positive};
  };
  // `op` of `%a0 <by> c`: the argument moved into the op's domain.
  auto inner = [](const std::string &op, const std::string &by,
                  const std::string &c, bool positive = false) {
    return Case{op, {"2x3xf64"},
                "  %c = gplace.constant dense<" + c + "> : tensor<f64>\n"
                "  %s = gplace." + by + " %a0, %c : (tensor<2x3xf64>, "
                "tensor<f64>) -> tensor<2x3xf64>\n"
                "  %y = gplace." + op + " %s : tensor<2x3xf64>",
                "2x3xf64", positive};
  };
  std::vector<Case> all = {
      binary("add", "2x3xf64", "2x3xf64", "2x3xf64"),
      binary("add", "2x3xf64", "3xf64", "2x3xf64"),
      binary("add", "2x1xf64", "1x3xf64", "2x3xf64"),
      binary("sub", "2x3xf64", "f64", "2x3xf64"),
      binary("mul", "2x3xf64", "2x1xf64", "2x3xf64"),
      binary("div", "2x3xf64", "3xf64", "2x3xf64", /*positive=*/true),
      binary("maximum", "2x3xf64", "2x3xf64", "2x3xf64"),
      binary("maximum", "2x3xf64", "3xf64", "2x3xf64"),
      // GatherV2: repeated indices (their slices' gradients add up), along
      // axis 0 and along a middle axis with 2-d indices.
      {"gather_axis0",
       {"5x3xf64"},
       "  %i = gplace.constant dense<[4, 0, 4, 2]> : tensor<4xi64>\n"
       "  %y = gplace.gather %a0[%i] axis = 0 : (tensor<5x3xf64>, "
       "tensor<4xi64>) -> tensor<4x3xf64>",
       "4x3xf64"},
      {"gather_axis1",
       {"2x4x3xf64"},
       "  %i = gplace.constant dense<[[3, 1], [3, 3]]> : tensor<2x2xi32>\n"
       "  %y = gplace.gather %a0[%i] axis = -2 : (tensor<2x4x3xf64>, "
       "tensor<2x2xi32>) -> tensor<2x2x2x3xf64>",
       "2x2x2x3xf64"},
      // UnsortedSegmentSum: repeated ids (their slices add up), a segment
      // no id names, and a negative id (its slice dropped: zero gradient).
      {"unsorted_segment_sum",
       {"5x3xf64"},
       "  %i = gplace.constant dense<[3, 0, -1, 3, 1]> : tensor<5xi64>\n"
       "  %y = gplace.unsorted_segment_sum %a0, %i : (tensor<5x3xf64>, "
       "tensor<5xi64>) -> tensor<4x3xf64>",
       "4x3xf64"},
      {"unsorted_segment_sum_2d_ids",
       {"2x2x3xf64"},
       "  %i = gplace.constant dense<[[1, 0], [1, 2]]> : tensor<2x2xi32>\n"
       "  %y = gplace.unsorted_segment_sum %a0, %i : (tensor<2x2x3xf64>, "
       "tensor<2x2xi32>) -> tensor<3x3xf64>",
       "3x3xf64"},
      // XlaDynamicUpdateSlice: a block written inside (the input's
      // gradient zero there, the update's the block's) and one whose
      // offsets are clamped ([5, -1] to [2, 0]).
      {"dynamic_update_slice",
       {"4x3xf64", "2x2xf64"},
       "  %i = gplace.constant dense<[1, 1]> : tensor<2xi64>\n"
       "  %y = gplace.dynamic_update_slice %a0, %a1, %i : (tensor<4x3xf64>, "
       "tensor<2x2xf64>, tensor<2xi64>) -> tensor<4x3xf64>",
       "4x3xf64"},
      {"dynamic_update_slice_clamped",
       {"4x3xf64", "2x3xf64"},
       "  %i = gplace.constant dense<[5, -1]> : tensor<2xi32>\n"
       "  %y = gplace.dynamic_update_slice %a0, %a1, %i : (tensor<4x3xf64>, "
       "tensor<2x3xf64>, tensor<2xi32>) -> tensor<4x3xf64>",
       "4x3xf64"},
      // SelectV2: the condition broadcast along rows, `then` along
      // columns, `else` a scalar (summed over every element not chosen).
      {"select",
       {"2x1xf64", "f64"},
       "  %c = gplace.constant dense<[true, false, true]> : tensor<3xi1>\n"
       "  %y = gplace.select %c, %a0, %a1 : (tensor<3xi1>, tensor<2x1xf64>, "
       "tensor<f64>) -> tensor<2x3xf64>",
       "2x3xf64"},
      binary("pow", "2x3xf64", "3xf64", "2x3xf64", /*positive=*/true),
      // Second derivatives: the activations' backward ops.
      binary("relu_grad", "2x3xf64", "2x3xf64", "2x3xf64"),
      binary("sigmoid_grad", "2x3xf64", "2x3xf64", "2x3xf64"),
      binary("tanh_grad", "2x3xf64", "3xf64", "2x3xf64"),
      unary("neg"),
      unary("exp"),
      unary("log", /*positive=*/true),
      unary("tanh"),
      unary("sigmoid"),
      unary("relu"),
      unary("square"),
      unary("sqrt", /*positive=*/true),
      // The trigonometric and hyperbolic functions, erf, sign (zeros),
      // softsign; asin, acos and atanh on [-0.5, 0.5], acosh on [1.5, 2.5].
      unary("sin"),
      unary("cos"),
      unary("tan"),
      unary("atan"),
      unary("sinh"),
      unary("cosh"),
      unary("asinh"),
      unary("erf"),
      unary("sign"),
      unary("softsign"),
      inner("asin", "mul", "0.5"),
      inner("acos", "mul", "0.5"),
      inner("atanh", "mul", "0.5"),
      inner("acosh", "add", "1.0", /*positive=*/true),
      // FloorMod: dy for x, -dy * floor(x / y) for y (summed over the
      // broadcast rows); positive operands keep x / y off its steps.
      binary("floor_mod", "2x3xf64", "3xf64", "2x3xf64", /*positive=*/true),
      {"add_n",
       {"2x3xf64", "2x3xf64", "2x3xf64"},
       "  %y = gplace.add_n %a0, %a1, %a2 : tensor<2x3xf64>, tensor<2x3xf64>, "
       "tensor<2x3xf64>",
       "2x3xf64"},
      {"add_n_same_operand",
       {"2x3xf64"},
       "  %y = gplace.add_n %a0, %a0 : tensor<2x3xf64>, tensor<2x3xf64>",
       "2x3xf64"},
      {"bias_add",
       {"4x3xf64", "3xf64"},
       "  %y = gplace.bias_add %a0, %a1 : tensor<4x3xf64>, tensor<3xf64>",
       "4x3xf64"},
      {"reduce_sum",
       {"2x3x4xf64"},
       "  %y = gplace.reduce_sum %a0 axes = [0, -1] : tensor<2x3x4xf64> -> "
       "tensor<3xf64>",
       "3xf64"},
      {"reduce_sum_keep_dims",
       {"2x3xf64"},
       "  %y = gplace.reduce_sum %a0 axes = [1] keep_dims : tensor<2x3xf64> "
       "-> tensor<2x1xf64>",
       "2x1xf64"},
      {"reduce_mean",
       {"2x3x4xf64"},
       "  %y = gplace.reduce_mean %a0 axes = [1] : tensor<2x3x4xf64> -> "
       "tensor<2x4xf64>",
       "2x4xf64"},
      {"reduce_max",
       {"3x4xf64"},
       "  %y = gplace.reduce_max %a0 axes = [1] : tensor<3x4xf64> -> "
       "tensor<3xf64>",
       "3xf64"},
      {"softmax",
       {"3x4xf64"},
       "  %y = gplace.softmax %a0 : tensor<3x4xf64>",
       "3x4xf64"},
      {"cast",
       {"2x3xf64"},
       "  %c = gplace.cast %a0 : tensor<2x3xf64> to tensor<2x3xf32>\n"
       "  %y = gplace.cast %c : tensor<2x3xf32> to tensor<2x3xf64>",
       "2x3xf64",
       false,
       /*tolerance=*/1e4},
      {"transpose",
       {"2x3x4xf64"},
       "  %y = gplace.transpose %a0 perm = [2, 0, 1] : tensor<2x3x4xf64> -> "
       "tensor<4x2x3xf64>",
       "4x2x3xf64"},
      {"reshape",
       {"2x3xf64"},
       "  %y = gplace.reshape %a0 : tensor<2x3xf64> -> tensor<3x2xf64>",
       "3x2xf64"},
      {"slice",
       {"3x4xf64"},
       "  %y = gplace.slice %a0 begin = [1, 1] size = [2, -1] : "
       "tensor<3x4xf64> -> tensor<2x3xf64>",
       "2x3xf64"},
      {"concat",
       {"2x3xf64", "2x1xf64"},
       "  %y = gplace.concat %a0, %a1 axis = -1 : tensor<2x3xf64>, "
       "tensor<2x1xf64> -> tensor<2x4xf64>",
       "2x4xf64"},
      {"identity",
       {"2x3xf64"},
       "  %y = gplace.identity %a0 : tensor<2x3xf64>",
       "2x3xf64"},
      {"broadcast_to",
       {"3xf64"},
       "  %y = gplace.broadcast_to %a0 : tensor<3xf64> -> tensor<2x3xf64>",
       "2x3xf64"},
      {"pad",
       {"2x3xf64"},
       "  %y = gplace.pad %a0 paddings = [1, 0, 0, 2] : tensor<2x3xf64> -> "
       "tensor<3x5xf64>",
       "3x5xf64"},
      {"sparse_softmax_cross_entropy_with_logits",
       {"3x4xf64"},
       "  %labels = gplace.constant dense<[2, 0, 3]> : tensor<3xi64>\n"
       "  %y, %backprop = gplace.sparse_softmax_cross_entropy_with_logits "
       "%a0, %labels : tensor<3x4xf64>, tensor<3xi64>",
       "3xf64"},
      {"mlp",
       {"4x3xf64", "3x5xf64", "5xf64"},
       "  %h = gplace.matmul %a0, %a1 : (tensor<4x3xf64>, tensor<3x5xf64>) -> "
       "tensor<4x5xf64>\n"
       "  %z = gplace.bias_add %h, %a2 : tensor<4x5xf64>, tensor<5xf64>\n"
       "  %r = gplace.tanh %z : tensor<4x5xf64>\n"
       "  %y = gplace.softmax %r : tensor<4x5xf64>",
       "4x5xf64"},
  };
  // Convolutional networks, in f32 (oneDNN's kernels).
  auto window = [](const std::string &name, std::vector<std::string> args,
                   const std::string &op, const std::string &result) {
    std::string types;
    for (size_t i = 0; i < args.size(); ++i)
      types += (i ? ", " : "") + tensorType(args[i]);
    Case c{name, args,
           "  %y = gplace." + op + " : " + types + " -> " + tensorType(result),
           result};
    c.f32 = true;
    return c;
  };
  all.push_back(window("conv2d_same", {"1x5x5x2xf32", "3x3x2x3xf32"},
                       "conv2d %a0, %a1 strides = [1, 1, 1, 1] padding = "
                       "\"SAME\"",
                       "1x5x5x3xf32"));
  all.push_back(window("conv2d_valid_strided", {"2x6x6x2xf32", "2x2x2x2xf32"},
                       "conv2d %a0, %a1 strides = [1, 2, 2, 1] padding = "
                       "\"VALID\"",
                       "2x3x3x2xf32"));
  all.push_back(window(
      "conv2d_nchw_explicit_dilated", {"1x2x5x5xf32", "2x2x2x2xf32"},
      "conv2d %a0, %a1 strides = [1, 1, 1, 1] padding = \"EXPLICIT\" "
      "{data_format = \"NCHW\", dilations = array<i64: 1, 1, 2, 2>, "
      "explicit_paddings = array<i64: 0, 0, 0, 0, 1, 0, 0, 1>}",
      "1x2x4x4xf32"));
  all.push_back(window("conv2d_grouped", {"1x4x4x4xf32", "3x3x2x4xf32"},
                       "conv2d %a0, %a1 strides = [1, 1, 1, 1] padding = "
                       "\"SAME\"",
                       "1x4x4x4xf32"));
  all.push_back(window("depthwise_same", {"1x5x5x2xf32", "3x3x2x2xf32"},
                       "depthwise_conv2d_native %a0, %a1 strides = [1, 1, 1, "
                       "1] padding = \"SAME\"",
                       "1x5x5x4xf32"));
  all.push_back(window(
      "depthwise_nchw_strided", {"1x2x6x6xf32", "2x2x2x1xf32"},
      "depthwise_conv2d_native %a0, %a1 strides = [1, 1, 2, 2] padding = "
      "\"VALID\" {data_format = \"NCHW\"}",
      "1x2x3x3xf32"));
  {
    // gplace-run's remapper makes this one fused_conv2d after
    // differentiation: the gradients must not change.
    Case fused{"conv_bias_relu", {"1x4x4x2xf32", "3x3x2x3xf32", "3xf32"},
               "  %c = gplace.conv2d %a0, %a1 strides = [1, 1, 1, 1] padding "
               "= \"SAME\" : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32> -> "
               "tensor<1x4x4x3xf32>\n"
               "  %b = gplace.bias_add %c, %a2 : tensor<1x4x4x3xf32>, "
               "tensor<3xf32>\n"
               "  %y = gplace.relu %b : tensor<1x4x4x3xf32>",
               "1x4x4x3xf32"};
    fused.f32 = true;
    all.push_back(fused);
  }
  {
    // fused_batch_norm's y, in training (the batch's statistics) and in
    // inference (given ones), with respect to x, scale and offset.
    auto batchNorm = [](const std::string &name, const std::string &x,
                        const std::string &mode) {
      std::string xt = tensorType(x);
      Case c{name, {x, "2xf32", "2xf32"},
             "  %mean = gplace.constant dense<[0.5, -0.25]> : tensor<2xf32>\n"
             "  %var = gplace.constant dense<[2.0, 0.5]> : tensor<2xf32>\n"
             "  %y, %bm, %bv = gplace.fused_batch_norm %a0, %a1, %a2, %mean, "
             "%var epsilon = 1.0e-03 " + mode + " : " + xt + ", tensor<2xf32>",
             x};
      c.f32 = true;
      return c;
    };
    all.push_back(batchNorm("batch_norm_training", "2x3x3x2xf32",
                            "is_training"));
    all.push_back(batchNorm("batch_norm_training_nchw", "2x2x3x3xf32",
                            "is_training {data_format = \"NCHW\"}"));
    all.push_back(batchNorm("batch_norm_inference", "2x3x3x2xf32", ""));
  }
  all.push_back(window("max_pool_same", {"1x5x5x2xf32"},
                       "max_pool %a0 ksize = [1, 3, 3, 1] strides = [1, 2, 2, "
                       "1] padding = \"SAME\"",
                       "1x3x3x2xf32"));
  all.push_back(window("max_pool_nchw", {"1x2x4x4xf32"},
                       "max_pool %a0 ksize = [1, 1, 2, 2] strides = [1, 1, 2, "
                       "2] padding = \"VALID\" {data_format = \"NCHW\"}",
                       "1x2x2x2xf32"));
  all.push_back(window("avg_pool_same", {"1x5x5x2xf32"},
                       "avg_pool %a0 ksize = [1, 3, 3, 1] strides = [1, 2, 2, "
                       "1] padding = \"SAME\"",
                       "1x3x3x2xf32"));
  {
    Case dropout{"dropout", {"4x5xf32"},
                 "  %rate = gplace.constant dense<0.3> : tensor<f32>\n"
                 "  %seed = gplace.constant dense<[5, 9]> : tensor<2xi64>\n"
                 "  %y = gplace.dropout %a0, %rate, %seed : tensor<4x5xf32>, "
                 "tensor<f32>, tensor<2xi64>",
                 "4x5xf32"};
    dropout.f32 = true;
    all.push_back(dropout);
    Case net{"conv_net", {"2x6x6x1xf32", "3x3x1x4xf32", "36x3xf32"},
             "  %c = gplace.conv2d %a0, %a1 strides = [1, 1, 1, 1] padding = "
             "\"SAME\" : tensor<2x6x6x1xf32>, tensor<3x3x1x4xf32> -> "
             "tensor<2x6x6x4xf32>\n"
             "  %r = gplace.relu %c : tensor<2x6x6x4xf32>\n"
             "  %pool = gplace.max_pool %r ksize = [1, 2, 2, 1] strides = [1, 2, "
             "2, 1] padding = \"VALID\" : tensor<2x6x6x4xf32> -> "
             "tensor<2x3x3x4xf32>\n"
             "  %f = gplace.reshape %pool : tensor<2x3x3x4xf32> -> "
             "tensor<2x36xf32>\n"
             "  %y = gplace.matmul %f, %a2 : (tensor<2x36xf32>, "
             "tensor<36x3xf32>) -> tensor<2x3xf32>",
             "2x3xf32"};
    net.f32 = true;
    all.push_back(net);
  }
  for (const char *flags : {"", " transpose_a", " transpose_b",
                            " transpose_a transpose_b"}) {
    bool ta = std::strstr(flags, "transpose_a"),
         tb = std::strstr(flags, "transpose_b");
    std::string lhs = ta ? "3x2xf64" : "2x3xf64";
    std::string rhs = tb ? "4x3xf64" : "3x4xf64";
    std::string name = std::string("matmul") + (ta ? "_ta" : "") + (tb ? "_tb" : "");
    all.push_back({name, {lhs, rhs},
                   "  %y = gplace.matmul %a0, %a1" + std::string(flags) +
                       " : (" + tensorType(lhs) + ", " + tensorType(rhs) +
                       ") -> tensor<2x4xf64>",
                   "2x4xf64"});
  }
  // GEMM with beta = 1 (what --gplace-remap makes of an add of a matmul):
  // the accumulator's gradient and the product's.
  for (const char *flags : {"", " transpose_a transpose_b"}) {
    bool t = std::strstr(flags, "transpose_a");
    std::string lhs = t ? "3x2xf64" : "2x3xf64";
    std::string rhs = t ? "4x3xf64" : "3x4xf64";
    all.push_back({std::string("matmul_accumulate") + (t ? "_ta_tb" : ""),
                   {"2x4xf64", lhs, rhs},
                   "  %y = gplace.matmul_accumulate %a0, %a1, %a2" +
                       std::string(flags) + " : (tensor<2x4xf64>, " +
                       tensorType(lhs) + ", " + tensorType(rhs) +
                       ") -> tensor<2x4xf64>",
                   "2x4xf64"});
  }
  // The composite ops: the pipeline decomposes them before it
  // differentiates, so that their gradients are their parts'.
  for (const char *op : {"elu", "selu", "hard_sigmoid", "log_softmax"}) {
    std::string attrs = std::string(op) == "elu" ? " {alpha = 0.5 : f32}"
                        : std::string(op) == "hard_sigmoid"
                            ? " {alpha = 0.8 : f32, beta = 0.4 : f32}"
                            : "";
    all.push_back({op, {"3x4xf64"},
                   std::string("  %y = gplace.") + op + " %a0" + attrs +
                       " : tensor<3x4xf64>",
                   "3x4xf64"});
  }
  all.push_back({"softmax_2d", {"2x3x2xf64"},
                 "  %y = gplace.softmax_2d %a0 {axis = 1 : i64} : "
                 "tensor<2x3x2xf64>",
                 "2x3x2xf64"});
  all.push_back({"log_softmax_2d", {"2x3xf64"},
                 "  %y = gplace.log_softmax_2d %a0 {axis = 0 : i64} : "
                 "tensor<2x3xf64>",
                 "2x3xf64"});
  all.push_back({"gemm", {"3x2xf64", "4x3xf64", "4xf64"},
                 "  %y = gplace.gemm %a0, %a1, %a2 transpose_a transpose_b "
                 "{alpha = 0.5 : f32, beta = 2.0 : f32} : (tensor<3x2xf64>, "
                 "tensor<4x3xf64>, tensor<4xf64>) -> tensor<2x4xf64>",
                 "2x4xf64"});
  all.push_back({"layer_norm", {"2x3x4xf64", "3x4xf64", "4xf64"},
                 "  %y, %mean, %inv = gplace.layer_norm %a0 scale(%a1 : "
                 "tensor<3x4xf64>) bias(%a2 : tensor<4xf64>) {axis = 1 : i64} "
                 ": tensor<2x3x4xf64>",
                 "2x3x4xf64"});
  // The inverse standard deviation, a result of its own.
  all.push_back({"layer_norm_inv_std_dev", {"2x3xf64"},
                 "  %n, %mean, %y = gplace.layer_norm %a0 : tensor<2x3xf64>",
                 "2x1xf64"});
  // ONNX's SoftmaxCrossEntropyLoss as the importer composes it
  // (lib/Target/ONNX/MapLosses.cpp): scores [N, C, d1] with the classes
  // moved last, log_softmax, a one_hot mask of the targets (ignore_index 3
  // made -1 first, so its row is zeros) times the class weights, the mean
  // over the weights of the targets not ignored. The mask is not
  // differentiable (one_hot), the scores are.
  all.push_back(
      {"softmax_cross_entropy_loss_composition",
       {"2x4x2xf64"},
       "  %labels = gplace.constant dense<[[2, 0], [3, 1]]> : "
       "tensor<2x2xi64>\n"
       "  %ii = gplace.constant dense<3> : tensor<i64>\n"
       "  %none = gplace.constant dense<-1> : tensor<i64>\n"
       "  %ignored = gplace.equal %labels, %ii : (tensor<2x2xi64>, "
       "tensor<i64>) -> tensor<2x2xi1>\n"
       "  %t = gplace.select %ignored, %none, %labels : (tensor<2x2xi1>, "
       "tensor<i64>, tensor<2x2xi64>) -> tensor<2x2xi64>\n"
       "  %x = gplace.transpose %a0 perm = [0, 2, 1] : tensor<2x4x2xf64> -> "
       "tensor<2x2x4xf64>\n"
       "  %lp = gplace.log_softmax %x : tensor<2x2x4xf64>\n"
       "  %on = gplace.constant dense<1.0> : tensor<f64>\n"
       "  %off = gplace.constant dense<0.0> : tensor<f64>\n"
       "  %mask = gplace.one_hot %t, %on, %off : tensor<2x2xi64>, tensor<f64> "
       "-> tensor<2x2x4xf64>\n"
       "  %cw = gplace.constant dense<[1.0, 0.5, 2.0, 0.25]> : "
       "tensor<4xf64>\n"
       "  %sel = gplace.mul %mask, %cw : (tensor<2x2x4xf64>, tensor<4xf64>) "
       "-> tensor<2x2x4xf64>\n"
       "  %picked = gplace.mul %lp, %sel : (tensor<2x2x4xf64>, "
       "tensor<2x2x4xf64>) -> tensor<2x2x4xf64>\n"
       "  %sum = gplace.reduce_sum %picked axes = [2] : tensor<2x2x4xf64> -> "
       "tensor<2x2xf64>\n"
       "  %nll = gplace.neg %sum : tensor<2x2xf64>\n"
       "  %total = gplace.reduce_sum %nll axes = [0, 1] : tensor<2x2xf64> -> "
       "tensor<f64>\n"
       "  %weights = gplace.reduce_sum %sel axes = [0, 1, 2] : "
       "tensor<2x2x4xf64> -> tensor<f64>\n"
       "  %mean = gplace.div %total, %weights : (tensor<f64>, tensor<f64>) "
       "-> tensor<f64>\n"
       "  %y = gplace.reshape %mean : tensor<f64> -> tensor<1xf64>",
       "1xf64"});
  // Recurrent layers (cudnn_rnn, oneDNN's RNN primitives, f32): the loss
  // reads all three results (output, output_h, output_c, flattened and
  // joined), so that the gradient flows into each; sequence 3, batch 2,
  // input 2, hidden 2. The cells are smooth (sigmoid, tanh), so the f32
  // difference quotient is off by rounding and h^2 terms, well inside the
  // f32 tolerance.
  auto recurrent = [](const std::string &name, const std::string &mode,
                      const std::string &direction, int64_t gates,
                      bool linearBeforeReset = false) {
    int64_t dirs = direction == "bidirectional" ? 2 : 1;
    auto shape = [](std::vector<int64_t> dims) {
      std::string text;
      for (int64_t d : dims)
        text += std::to_string(d) + "x";
      return text + "f32";
    };
    std::string x = shape({3, 2, 2}), h = shape({dirs, 2, 2}),
                w = shape({dirs, gates * 2, 2}), r = shape({dirs, gates * 2, 2}),
                b = shape({dirs, gates * 4}), y = shape({3, 2, dirs * 2});
    int64_t ys = 3 * 2 * dirs * 2, hs = dirs * 2 * 2;
    std::string flat = shape({ys}), flatH = shape({hs}),
                all = shape({ys + 2 * hs});
    Case c{name,
           {x, h, h, w, r, b},
           "  %o:3 = gplace.cudnn_rnn %a0, %a1, %a2, %a3, %a4, %a5 rnn_mode = "
           "\"" + mode + "\" direction = \"" + direction + "\"" +
               (linearBeforeReset ? " linear_before_reset" : "") + " : " +
               tensorType(x) + ", " + tensorType(h) + ", " + tensorType(w) +
               ", " + tensorType(r) + ", " + tensorType(b) + " -> " +
               tensorType(y) + ", " + tensorType(h) + ", " + tensorType(h) +
               "\n  %fy = gplace.reshape %o#0 : " + tensorType(y) + " -> " +
               tensorType(flat) + "\n  %fh = gplace.reshape %o#1 : " +
               tensorType(h) + " -> " + tensorType(flatH) +
               "\n  %fc = gplace.reshape %o#2 : " + tensorType(h) + " -> " +
               tensorType(flatH) + "\n  %y = gplace.concat %fy, %fh, %fc axis "
               "= 0 : " + tensorType(flat) + ", " + tensorType(flatH) + ", " +
               tensorType(flatH) + " -> " + tensorType(all),
           all};
    c.f32 = true;
    return c;
  };
  all.push_back(recurrent("cudnn_rnn_lstm_bidirectional", "lstm",
                          "bidirectional", 4));
  all.push_back(recurrent("cudnn_rnn_gru_forward", "gru", "forward", 3));
  all.push_back(recurrent("cudnn_rnn_gru_linear_before_reset_reverse", "gru",
                          "reverse", 3, true));
  all.push_back(recurrent("cudnn_rnn_tanh_bidirectional", "rnn_tanh",
                          "bidirectional", 1));
  // Tile as the importer composes it: reshape, broadcast_to, reshape.
  all.push_back({"tile_composition",
                 {"2x3xf64"},
                 "  %s = gplace.reshape %a0 : tensor<2x3xf64> -> "
                 "tensor<1x2x3xf64>\n"
                 "  %b = gplace.broadcast_to %s : tensor<1x2x3xf64> -> "
                 "tensor<2x2x3xf64>\n"
                 "  %y = gplace.reshape %b : tensor<2x2x3xf64> -> "
                 "tensor<4x3xf64>",
                 "4x3xf64"});
  // Control flow (gplace.if, gplace.while; their gradients recompute the
  // forward inside, docs/dialect.md#gradients-of-if-and-while). The
  // conditions are of the run (the sum of an argument, well inside
  // [-100, 100]), so that nothing folds them away.
  auto ifCase = [](const std::string &name, const std::string &bound) {
    return Case{
        name,
        {"2x3xf64", "3xf64"},
        "  %s = gplace.reduce_sum %a1 axes = [0] : tensor<3xf64> -> "
        "tensor<f64>\n"
        "  %bound = gplace.constant dense<" + bound + "> : tensor<f64>\n"
        "  %c = gplace.greater %s, %bound : (tensor<f64>, tensor<f64>) -> "
        "tensor<i1>\n"
        "  %y = gplace.if %c (%a0, %a1) : tensor<i1>, tensor<2x3xf64>, "
        "tensor<3xf64> -> tensor<2x3xf64> then {\n"
        "  ^bb0(%p: tensor<2x3xf64>, %q: tensor<3xf64>):\n"
        "    %m = gplace.mul %p, %q : (tensor<2x3xf64>, tensor<3xf64>) -> "
        "tensor<2x3xf64>\n"
        "    %t = gplace.tanh %m : tensor<2x3xf64>\n"
        "    gplace.yield %t : tensor<2x3xf64>\n"
        "  } else {\n"
        "  ^bb0(%p: tensor<2x3xf64>, %q: tensor<3xf64>):\n"
        "    %e = gplace.exp %p : tensor<2x3xf64>\n"
        "    %a = gplace.add %e, %q : (tensor<2x3xf64>, tensor<3xf64>) -> "
        "tensor<2x3xf64>\n"
        "    gplace.yield %a : tensor<2x3xf64>\n"
        "  }",
        "2x3xf64"};
  };
  all.push_back(ifCase("if_then", "-100.0"));
  all.push_back(ifCase("if_else", "100.0"));
  // Three iterations of x <- step(i, x, v), v carried unchanged (a weight
  // the body reads); y = x + v, so that gradients flow into both results.
  // The condition proves the bound, so the gradient keeps the iterations
  // on stacks, unless `attributes` set gplace.gradient_stack_bytes = 0
  // (the recompute); `limit`, a condition of the run that ends the loop
  // first where it is below 3.
  auto whileCase = [](const std::string &name, const std::string &step,
                      const std::string &attributes = "",
                      const std::string &limit = "") {
    std::string cond =
        limit.empty()
            ? "    gplace.yield %more : tensor<i1>\n"
            : "    %f = gplace.cast %i : tensor<i64> to tensor<f64>\n"
              "    %l = gplace.constant dense<" + limit + "> : tensor<f64>\n"
              "    %early = gplace.greater %l, %f : (tensor<f64>, "
              "tensor<f64>) -> tensor<i1>\n"
              "    %both = gplace.logical_and %more, %early : (tensor<i1>, "
              "tensor<i1>) -> tensor<i1>\n"
              "    gplace.yield %both : tensor<i1>\n";
    return Case{
        name,
        {"2x3xf64", "3xf64"},
        "  %zero = gplace.constant dense<0> : tensor<i64>\n"
        "  %loop:3 = gplace.while (%zero, %a0, %a1) : tensor<i64>, "
        "tensor<2x3xf64>, tensor<3xf64> cond {\n"
        "  ^bb0(%i: tensor<i64>, %x: tensor<2x3xf64>, %v: tensor<3xf64>):\n"
        "    %n = gplace.constant dense<3> : tensor<i64>\n"
        "    %more = gplace.greater %n, %i : (tensor<i64>, tensor<i64>) -> "
        "tensor<i1>\n" + cond +
        "  } body {\n"
        "  ^bb0(%i: tensor<i64>, %x: tensor<2x3xf64>, %v: tensor<3xf64>):\n"
        "    %one = gplace.constant dense<1> : tensor<i64>\n"
        "    %next = gplace.add %i, %one : (tensor<i64>, tensor<i64>) -> "
        "tensor<i64>\n" + step +
        "    gplace.yield %next, %r, %v : tensor<i64>, tensor<2x3xf64>, "
        "tensor<3xf64>\n"
        "  }" + attributes + "\n"
        "  %y = gplace.add %loop#1, %loop#2 : (tensor<2x3xf64>, "
        "tensor<3xf64>) -> tensor<2x3xf64>",
        "2x3xf64"};
  };
  const std::string tanhStep =
      "    %m = gplace.mul %x, %v : (tensor<2x3xf64>, tensor<3xf64>) -> "
      "tensor<2x3xf64>\n"
      "    %r = gplace.tanh %m : tensor<2x3xf64>\n";
  all.push_back(whileCase("while", tanhStep));
  all.push_back(whileCase("while_recompute", tanhStep,
                          " {gplace.gradient_stack_bytes = 0}"));
  // Fewer iterations than the bound: 2 of 3, then none.
  all.push_back(whileCase("while_early_exit", tanhStep, "", "1.5"));
  all.push_back(whileCase("while_early_exit_recompute", tanhStep,
                          " {gplace.gradient_stack_bytes = 0}", "1.5"));
  all.push_back(whileCase("while_no_iteration", tanhStep, "", "-0.5"));
  // An If in the body: the else branch in iterations 0 and 1, then the
  // then branch.
  all.push_back(whileCase(
      "while_with_if",
      "    %c = gplace.greater %i, %one : (tensor<i64>, tensor<i64>) -> "
      "tensor<i1>\n"
      "    %r = gplace.if %c (%x, %v) : tensor<i1>, tensor<2x3xf64>, "
      "tensor<3xf64> -> tensor<2x3xf64> then {\n"
      "    ^bb0(%p: tensor<2x3xf64>, %q: tensor<3xf64>):\n"
      "      %m = gplace.mul %p, %q : (tensor<2x3xf64>, tensor<3xf64>) -> "
      "tensor<2x3xf64>\n"
      "      gplace.yield %m : tensor<2x3xf64>\n"
      "    } else {\n"
      "    ^bb0(%p: tensor<2x3xf64>, %q: tensor<3xf64>):\n"
      "      %a = gplace.add %p, %q : (tensor<2x3xf64>, tensor<3xf64>) -> "
      "tensor<2x3xf64>\n"
      "      %t = gplace.tanh %a : tensor<2x3xf64>\n"
      "      gplace.yield %t : tensor<2x3xf64>\n"
      "    }\n"));
  return all;
}

INSTANTIATE_TEST_SUITE_P(
    Ops, GradientCheck, ::testing::ValuesIn(cases()),
    [](const ::testing::TestParamInfo<Case> &info) {
      std::string name = info.param.name;
      for (char &ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      return name;
    });

} // namespace
