//===- ClusterTest.cpp - --cluster, device exchange, a task's plan --------===//

#include "gplace/Support/ClusterSpec.h"
#include "gplace/Tooling/Cluster.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

TEST(ClusterSpec, RanksAreTasksInOrder) {
  std::string error;
  std::optional<ClusterSpec> spec = ClusterSpec::parse("ps:1,worker:3", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->numTasks(), 4);
  EXPECT_EQ(spec->taskName(0), "/job:ps/replica:0/task:0");
  EXPECT_EQ(spec->taskName(1), "/job:worker/replica:0/task:0");
  EXPECT_EQ(spec->taskName(3), "/job:worker/replica:0/task:2");
  EXPECT_EQ(spec->str(), "ps:1,worker:3");
  EXPECT_EQ(spec->rankOf("worker", 2), 3);
  EXPECT_EQ(spec->rankOf("worker", 3), -1);
  EXPECT_EQ(spec->rankOf("chief", 0), -1);
}

TEST(ClusterSpec, BadFlagsSayWhy) {
  for (const char *bad : {"worker", "worker:0", ":2", "1job:2", "worker:x",
                          "worker:2,", "w-x:1"}) {
    std::string error;
    ASSERT_FALSE(ClusterSpec::parse(bad, &error)) << bad;
    EXPECT_NE(error.find("is not JOB:TASKS"), std::string::npos) << error;
  }
  std::string error;
  ASSERT_FALSE(ClusterSpec::parse("a:1,b:1,a:2", &error));
  EXPECT_EQ(error, "job 'a' is listed twice");
}

TEST(ClusterDevices, ExchangeKeepsNamesLimitsAndDescriptions) {
  std::optional<DeviceSet> task0 = DeviceSet::parse(
      "/job:worker/replica:0/task:0/device:CPU:0,"
      "/job:worker/replica:0/task:0/device:GPU:0");
  std::optional<DeviceSet> task1 =
      DeviceSet::parse("/job:worker/replica:0/task:1/device:CPU:0");
  ASSERT_TRUE(task0 && task1);
  task0->attributes(0).memoryLimit = 1 << 20;
  task0->attributes(0).description = "device: 0, name: \"quoted\"\tGPU";
  rt::StatusOr<DeviceSet> all =
      mergeDevices({serializeDevices(*task0), serializeDevices(*task1)});
  ASSERT_TRUE(all) << all.status().message();
  ASSERT_EQ(all->devices().size(), 3u);
  EXPECT_EQ(all->devices()[0].str(), "/job:worker/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(all->attributes(0).memoryLimit, 1 << 20);
  EXPECT_EQ(all->attributes(0).description, "device: 0, name: \"quoted\"\tGPU");
  // The same device from two tasks, and text that is not a list, fail.
  EXPECT_FALSE(mergeDevices({serializeDevices(*task1), serializeDevices(*task1)}));
  EXPECT_FALSE(mergeDevices({"not json"}));
}

namespace {
/// Two devices, CPU:0 of task 0 and of task 1; a step on each, a buffer on
/// each, a variable on task 1, result 0 on task 0 and result 1 on task 1.
rt::Plan twoTaskPlan() {
  rt::Plan plan;
  plan.devices = {{"/job:worker/replica:0/task:0/device:CPU:0", 64, 0},
                  {"/job:worker/replica:0/task:1/device:CPU:0", 64, 16}};
  rt::TensorType f32{ElementType::F32, {4}};
  rt::PersistentDesc variable;
  variable.device = 1;
  variable.name = "w";
  variable.isVariable = true;
  variable.initialValue = rt::HostTensor(f32);
  plan.persistents = {variable};
  rt::BufferDesc a, b, w;
  a.kind = b.kind = rt::BufferDesc::Kind::Arena;
  a.device = 0;
  b.device = 1;
  a.type = b.type = w.type = f32;
  w.kind = rt::BufferDesc::Kind::Persistent;
  w.device = 1;
  w.index = 0;
  plan.buffers = {a, b, w};
  rt::Step recv, exp;
  recv.device = 0;
  recv.kernel = Kernel::Recv;
  recv.outputs = {0};
  exp.device = 1;
  exp.kernel = Kernel::Exp;
  exp.inputs = {2};
  exp.outputs = {1};
  plan.steps = {recv, exp};
  plan.results = {0, 1};
  return plan;
}
} // namespace

TEST(LocalPlan, KeepsThisTasksDevicesStepsAndVariables) {
  rt::DeviceManager local({});
  local.setTask("worker", 1);
  rt::StatusOr<rt::Plan> plan = localPlan(twoTaskPlan(), local);
  ASSERT_TRUE(plan) << plan.status().message();
  ASSERT_EQ(plan->devices.size(), 1u);
  EXPECT_EQ(plan->devices[0].name, "/job:worker/replica:0/task:1/device:CPU:0");
  ASSERT_EQ(plan->steps.size(), 1u);
  EXPECT_EQ(plan->steps[0].kernel, Kernel::Exp);
  EXPECT_EQ(plan->steps[0].device, 0);
  ASSERT_EQ(plan->persistents.size(), 1u);
  EXPECT_EQ(plan->persistents[0].device, 0);
  // Task 0's buffer is never in this task's memory; the results kept are
  // this task's.
  EXPECT_EQ(plan->buffers[0].kind, rt::BufferDesc::Kind::Register);
  EXPECT_EQ(plan->buffers[1].device, 0);
  EXPECT_EQ(plan->results, std::vector<int>{1});
}

TEST(LocalPlan, RefusesAStepThatReadsAnotherTasksBuffer) {
  rt::Plan plan = twoTaskPlan();
  plan.steps[1].inputs = {0}; // Task 1 reads task 0's buffer.
  rt::DeviceManager local({});
  local.setTask("worker", 1);
  rt::StatusOr<rt::Plan> result = localPlan(plan, local);
  ASSERT_FALSE(result);
  EXPECT_NE(result.status().message().find("the plan is not partitioned"),
            std::string::npos)
      << result.status().message();
}

/// A plan of `streams` streams of one device, a step each.
static rt::Plan planOfStreams(int streams) {
  rt::Plan plan;
  for (int k = 0; k < streams; ++k) {
    rt::Step step;
    step.stream = k;
    plan.steps.push_back(step);
    plan.steps.push_back(step); // A second step on the same stream.
  }
  return plan;
}

TEST(BindingWarning, WarnsWhenTheAffinityLeavesFewerCpusThanStreams) {
  std::string warning =
      bindingWarning(planOfStreams(3), "/job:worker/task:1", 1, 2);
  EXPECT_NE(warning.find("task /job:worker/task:1 may run on 1 CPU and the "
                         "MPI daemon that started it on 2"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("has 3 streams"), std::string::npos) << warning;
  EXPECT_NE(warning.find("mpirun --bind-to none"), std::string::npos)
      << warning;
}

// A task takes its MPI daemon's CPUs only where Open MPI bound it by its
// default policy (bound at launch, at most 2 ranks in the job, nothing
// asked of mpirun) and its mask lies strictly inside the daemon's.
TEST(AdoptsDaemonAffinity, OnlyOpenMpisDefaultBindingInsideTheDaemonsCpus) {
  std::map<std::string, std::string> vars = {
      {"OMPI_MCA_orte_bound_at_launch", "1"},
      {"OMPI_COMM_WORLD_SIZE", "2"},
      {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  auto env = [&](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  std::vector<unsigned long> cpu0 = {0x1}, cpu1 = {0x2}, both = {0x3};
  EXPECT_TRUE(adoptsDaemonAffinity(env, cpu0, both));
  EXPECT_TRUE(adoptsDaemonAffinity(env, {0x1}, {0x3, 0x0}));
  // Not strictly inside: the same CPUs, other CPUs, unknown masks.
  EXPECT_FALSE(adoptsDaemonAffinity(env, both, both));
  EXPECT_FALSE(adoptsDaemonAffinity(env, cpu1, cpu0));
  EXPECT_FALSE(adoptsDaemonAffinity(env, {0x1, 0x1}, both));
  EXPECT_FALSE(adoptsDaemonAffinity(env, {}, both));
  EXPECT_FALSE(adoptsDaemonAffinity(env, cpu0, {}));
  // A binding, mapping or placement asked of mpirun.
  for (const char *asked :
       {"OMPI_MCA_hwloc_base_binding_policy", "OMPI_MCA_hwloc_base_cpu_list",
        "OMPI_MCA_hwloc_base_cpu_set", "OMPI_MCA_hwloc_base_bind_to_core",
        "OMPI_MCA_hwloc_base_bind_to_socket",
        "OMPI_MCA_hwloc_base_report_bindings",
        "OMPI_MCA_rmaps_base_mapping_policy",
        "OMPI_MCA_rmaps_base_cpus_per_rank", "OMPI_MCA_rmaps_ppr_n_pernode",
        "OMPI_MCA_rmaps_ppr_n_persocket", "OMPI_MCA_orte_rankfile",
        "OMPI_MCA_rmaps_rank_file_path"}) {
    SCOPED_TRACE(asked);
    vars[asked] = "core";
    EXPECT_FALSE(adoptsDaemonAffinity(env, cpu0, both));
    vars.erase(asked);
  }
  // More than 2 ranks in the job, even 2 on this node (Open MPI binds to
  // a NUMA domain or a socket then), not bound at launch, or not under
  // Open MPI.
  vars["OMPI_COMM_WORLD_SIZE"] = "4";
  EXPECT_FALSE(adoptsDaemonAffinity(env, cpu0, both));
  vars["OMPI_COMM_WORLD_SIZE"] = "1";
  EXPECT_TRUE(adoptsDaemonAffinity(env, cpu0, both));
  vars["OMPI_COMM_WORLD_SIZE"] = "two";
  EXPECT_FALSE(adoptsDaemonAffinity(env, cpu0, both));
  vars["OMPI_COMM_WORLD_SIZE"] = "2";
  vars["OMPI_MCA_orte_bound_at_launch"] = "0";
  EXPECT_FALSE(adoptsDaemonAffinity(env, cpu0, both));
  vars.clear();
  EXPECT_FALSE(adoptsDaemonAffinity(env, cpu0, both));
}

// The record a move leaves for the image it starts is this process's only
// with its pid (exec keeps it; an inherited one is another's), is taken
// out of the environment either way, and its note is said once.
TEST(AdoptsDaemonAffinity, TheRecordIsThisProcesssOnce) {
  std::string ours = std::to_string(getpid()) + ",1,2";
  ASSERT_EQ(setenv("GPLACE_ADOPTED_AFFINITY", ours.c_str(), 1), 0);
  EXPECT_TRUE(takeAdoptedAffinityRecord());
  EXPECT_EQ(getenv("GPLACE_ADOPTED_AFFINITY"), nullptr);
  EXPECT_EQ(adoptedAffinityNote("task /job:worker/task:1"),
            "task /job:worker/task:1 was bound to 1 CPU by mpirun's default "
            "binding; it runs on the 2 CPUs of the MPI daemon that started "
            "it, as with `mpirun --bind-to none` (a binding asked of mpirun "
            "is kept; docs/distributed.md)");
  EXPECT_EQ(adoptedAffinityNote("task /job:worker/task:1"), "");
  std::string other = std::to_string(getpid() + 1) + ",1,2";
  for (const std::string &record :
       {other, std::string("1,2"), std::string("x,1,2")}) {
    SCOPED_TRACE(record);
    ASSERT_EQ(setenv("GPLACE_ADOPTED_AFFINITY", record.c_str(), 1), 0);
    EXPECT_FALSE(takeAdoptedAffinityRecord());
    EXPECT_EQ(getenv("GPLACE_ADOPTED_AFFINITY"), nullptr);
    EXPECT_EQ(adoptedAffinityNote("task"), "");
  }
  EXPECT_FALSE(takeAdoptedAffinityRecord());
}

TEST(BindingWarning, IsQuietUnboundOrWithACpuPerStream) {
  // As many CPUs as its parent (no binding: a container's CPU set limits
  // both), though fewer than the streams.
  EXPECT_EQ(bindingWarning(planOfStreams(4), "/job:worker/task:0", 2, 2), "");
  // Bound, but a CPU per stream.
  EXPECT_EQ(bindingWarning(planOfStreams(2), "/job:worker/task:0", 2, 8), "");
  // One stream on one CPU.
  EXPECT_EQ(bindingWarning(planOfStreams(1), "/job:worker/task:0", 1, 2), "");
  // A mask that could not be read.
  EXPECT_EQ(bindingWarning(planOfStreams(3), "/job:worker/task:0", 0, 2), "");
  EXPECT_EQ(bindingWarning(planOfStreams(3), "/job:worker/task:0", 1, 0), "");
}
