//===- AutoPlacementTest.cpp - the m-ETF analysis on hand-built problems --===//
//
// placeAutomatically (gplace/Transforms/AutoPlacement.h) called directly,
// without IR: two GPUs at the default rates, ops and values written by
// hand, and the device each group gets, the reasons the log would print
// and the errors.
//
//===----------------------------------------------------------------------===//

#include "gplace/Transforms/AutoPlacement.h"

#include <gtest/gtest.h>

using namespace gplace;

namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;

/// A problem on GPU:0 and GPU:1 of this task, each op its own group.
class ProblemBuilder {
public:
  explicit ProblemBuilder(int64_t memoryLimit) {
    problem_.devices = {DeviceName::local(DeviceType::GPU, 0),
                        DeviceName::local(DeviceType::GPU, 1)};
    problem_.memoryLimits = {memoryLimit, memoryLimit};
    problem_.profile = &profile_;
  }

  /// A tensor argument of `bytes`, fed on the host.
  unsigned argument(int64_t bytes) {
    unsigned value = tensor(bytes, -1);
    problem_.arguments.push_back(value);
    return value;
  }

  /// An op that reads `operands` and makes one tensor of `bytes` in a
  /// group of its own that may go to `candidates`. `flops` > 0: it runs a
  /// kernel; `persistent`: a constant. Returns its result.
  unsigned op(llvm::StringRef name, llvm::ArrayRef<unsigned> operands,
              int64_t bytes, int64_t flops = 1000, bool persistent = false,
              llvm::ArrayRef<int> candidates = {0, 1}) {
    unsigned index = problem_.ops.size();
    AutoPlacementProblem::Op &op = problem_.ops.emplace_back();
    op.name = name;
    op.group = problem_.groups.size();
    op.operands.assign(operands.begin(), operands.end());
    op.persistent = persistent;
    op.cost.flops = flops;
    op.cost.bytes = bytes;
    for (unsigned operand : operands)
      op.cost.bytes += problem_.values[operand].bytes;
    op.cost.runsKernel = flops > 0;
    unsigned result = tensor(bytes, index);
    problem_.ops[index].results.push_back(result);
    AutoPlacementProblem::Group &group = problem_.groups.emplace_back();
    group.candidates.assign(candidates.begin(), candidates.end());
    return result;
  }

  /// A constant of `bytes`: memory for the whole program where it goes.
  unsigned constant(llvm::StringRef name, int64_t bytes) {
    return op(name, {}, bytes, /*flops=*/0, /*persistent=*/true);
  }

  void returns(unsigned value) { problem_.results.push_back(value); }

  AutoPlacementProblem &problem() { return problem_; }
  /// The group of the op that defines `value`.
  unsigned groupOf(unsigned value) const {
    return problem_.ops[problem_.values[value].producer].group;
  }

private:
  unsigned tensor(int64_t bytes, int producer) {
    AutoPlacementProblem::Value &value = problem_.values.emplace_back();
    value.bytes = bytes;
    value.isTensor = true;
    value.producer = producer;
    return problem_.values.size() - 1;
  }

  CostProfile profile_;
  AutoPlacementProblem problem_;
};

/// A chain x -> a -> b, each matmul with a constant of 768 KiB.
struct Chain {
  explicit Chain(ProblemBuilder &b) {
    x = b.argument(kKiB);
    c0 = b.constant("c0", 768 * kKiB);
    a = b.op("a", {x, c0}, 4 * kKiB);
    c1 = b.constant("c1", 768 * kKiB);
    out = b.op("b", {a, c1}, 4 * kKiB);
    b.returns(out);
  }
  unsigned x, c0, a, c1, out;
};

// Tests that with no memory limit the chain stays on GPU:0 (no copy, and
// GPU:0 comes first on a tie), each constant with its consumer.
TEST(AutoPlacementTest, ChainWithoutLimitStaysOnOneDevice) {
  ProblemBuilder b(/*memoryLimit=*/0);
  Chain chain(b);
  AutoPlacement placement = placeAutomatically(b.problem());
  ASSERT_TRUE(placement.succeeded());
  EXPECT_EQ(placement.devices[b.groupOf(chain.a)], 0);
  EXPECT_EQ(placement.devices[b.groupOf(chain.c0)], 0);
  EXPECT_EQ(placement.devices[b.groupOf(chain.out)], 0);
  EXPECT_EQ(placement.devices[b.groupOf(chain.c1)], 0);
  EXPECT_EQ(placement.reasons[b.groupOf(chain.a)],
            "auto: finishes as early as GPU:1, which comes later by priority");
  EXPECT_EQ(placement.reasons[b.groupOf(chain.c0)],
            "auto: with its consumer 'a'");
}

// Tests that a limit of 1 MiB holds one 768 KiB constant per GPU: `b`
// would finish first on GPU:0, where `a` is, but goes to GPU:1 with its
// constant, and the log says why.
TEST(AutoPlacementTest, ChainUnderLimitSpreadsOverDevices) {
  ProblemBuilder b(/*memoryLimit=*/kMiB);
  Chain chain(b);
  AutoPlacement placement = placeAutomatically(b.problem());
  ASSERT_TRUE(placement.succeeded());
  EXPECT_EQ(placement.devices[b.groupOf(chain.a)], 0);
  EXPECT_EQ(placement.devices[b.groupOf(chain.c0)], 0);
  EXPECT_EQ(placement.devices[b.groupOf(chain.out)], 1);
  EXPECT_EQ(placement.devices[b.groupOf(chain.c1)], 1);
  EXPECT_EQ(placement.reasons[b.groupOf(chain.c1)],
            "auto: with its consumer 'b'");
  const std::string &why = placement.reasons[b.groupOf(chain.out)];
  EXPECT_EQ(why.rfind("auto: GPU:0 would finish ", 0), 0u) << why;
  EXPECT_NE(why.find("earlier but lacks the memory (needs 772 KiB more, 773 "
                     "KiB in use of 1 MiB)"),
            std::string::npos)
      << why;
}

// Tests the fork x -> a -> {c, d} of two long kernels: `c` stays with `a`
// on GPU:0, and `d`, which would wait there for `c`, finishes first on
// GPU:1 after a copy of `a`.
TEST(AutoPlacementTest, ForkRunsBranchesInParallel) {
  ProblemBuilder b(/*memoryLimit=*/0);
  unsigned x = b.argument(kKiB);
  unsigned a = b.op("a", {x}, 4 * kKiB);
  // 2 GFLOP: 100 us at the default GPU's 20 TFLOP/s, a copy of `a` 10 us.
  unsigned c = b.op("c", {a}, 4 * kKiB, /*flops=*/2'000'000'000);
  unsigned d = b.op("d", {a}, 4 * kKiB, /*flops=*/2'000'000'000);
  b.returns(c);
  b.returns(d);
  AutoPlacement placement = placeAutomatically(b.problem());
  ASSERT_TRUE(placement.succeeded());
  EXPECT_EQ(placement.devices[b.groupOf(a)], 0);
  EXPECT_EQ(placement.devices[b.groupOf(c)], 0);
  EXPECT_EQ(placement.devices[b.groupOf(d)], 1);
  EXPECT_EQ(placement.reasons[b.groupOf(c)].rfind("auto: ", 0), 0u);
  EXPECT_NE(placement.reasons[b.groupOf(c)].find(" earlier finish than GPU:1"),
            std::string::npos);
  EXPECT_NE(placement.reasons[b.groupOf(d)].find(" earlier finish than GPU:0"),
            std::string::npos);
}

// Tests that an op whose tensor fits no device is an error at the op that
// names what it needs and what each device has; what it feeds is left
// without a device and without an error of its own, and placement goes on
// with the rest.
TEST(AutoPlacementTest, TensorThatFitsNowhereFails) {
  ProblemBuilder b(/*memoryLimit=*/kMiB);
  unsigned x = b.argument(kKiB);
  unsigned big = b.op("big", {x}, 2 * kMiB);
  unsigned after = b.op("after", {big}, kKiB);
  unsigned other = b.op("other", {x}, kKiB);
  b.returns(after);
  b.returns(other);
  AutoPlacement placement = placeAutomatically(b.problem());
  ASSERT_FALSE(placement.succeeded());
  ASSERT_EQ(placement.errors.size(), 1u);
  EXPECT_EQ(placement.errors[0].op, 0u);
  EXPECT_EQ(placement.errors[0].message,
            "Cannot place 'big' under the devices' memory limits "
            "(policy=auto): it needs 0 B for constants and variables and "
            "2 MiB for tensors on one device; GPU:0 has 0 B in use of 1 MiB, "
            "GPU:1 has 0 B in use of 1 MiB; the largest tensors: 'big' "
            "(2 MiB), 'after' (1 KiB), 'other' (1 KiB)");
  EXPECT_FALSE(placement.stopped);
  EXPECT_EQ(placement.devices[b.groupOf(big)], -1);
  EXPECT_EQ(placement.devices[b.groupOf(after)], -1);
  EXPECT_EQ(placement.devices[b.groupOf(other)], 0);
}

// Tests that a group with one candidate goes where TensorFlow's rules put
// it, and that one they cannot place reports their error at their op.
TEST(AutoPlacementTest, GroupsOfTheRules) {
  ProblemBuilder b(/*memoryLimit=*/0);
  unsigned x = b.argument(kKiB);
  unsigned pinned = b.op("pinned", {x}, kKiB, 1000, false, {1});
  AutoPlacementProblem::Group &rules = b.problem().groups[b.groupOf(pinned)];
  rules.ruleDevice = 1;
  rules.ruleReason = "soft placement: requested '/gpu:7', but ...";
  b.returns(pinned);
  AutoPlacement placement = placeAutomatically(b.problem());
  ASSERT_TRUE(placement.succeeded());
  EXPECT_EQ(placement.devices[b.groupOf(pinned)], 1);
  EXPECT_EQ(placement.reasons[b.groupOf(pinned)],
            "soft placement: requested '/gpu:7', but ...");

  unsigned orphan = b.op("orphan", {x}, kKiB, 1000, false, {});
  AutoPlacementProblem::Group &none = b.problem().groups[b.groupOf(orphan)];
  none.ruleErrorOp = 1;
  none.ruleError = "Cannot assign a device for operation 'orphan': ...";
  placement = placeAutomatically(b.problem());
  ASSERT_EQ(placement.errors.size(), 1u);
  EXPECT_EQ(placement.errors[0].op, 1u);
  EXPECT_EQ(placement.errors[0].message, none.ruleError);
  EXPECT_EQ(placement.devices[b.groupOf(pinned)], 1);
}

// Tests that placement stops at `maxErrors` and says so.
TEST(AutoPlacementTest, StopsAfterMaxErrors) {
  ProblemBuilder b(/*memoryLimit=*/kKiB);
  unsigned x = b.argument(64);
  for (const char *name : {"t0", "t1", "t2", "t3"})
    b.op(name, {x}, 4 * kKiB);
  b.problem().maxErrors = 3;
  AutoPlacement placement = placeAutomatically(b.problem());
  EXPECT_EQ(placement.errors.size(), 3u);
  EXPECT_TRUE(placement.stopped);
}

} // namespace
