//===- GpuStatusTest.cpp - GPU status, ranking, visibility ----------------===//

#include "gplace/Support/GpuStatus.h"

#include <gtest/gtest.h>

#include <random>

using namespace gplace;

namespace {

/// An 8-GPU machine under mixed load, in nvidia-smi's CSV: GPUs 3 and 6
/// are free; 1 has no process but little memory; 5 is busy but has the most
/// free memory among busy ones.
constexpr const char *kEightGpus = R"(index, uuid, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%]
0, GPU-00000000-aaaa-0000-0000-000000000000, 00000000:18:00.0, 81559 MiB, 70000 MiB, 95 %
1, GPU-11111111-aaaa-0000-0000-000000000000, 00000000:2A:00.0, 81559 MiB, 60000 MiB, 0 %
2, GPU-22222222-aaaa-0000-0000-000000000000, 00000000:3A:00.0, 81559 MiB, 40000 MiB, 50 %
3, GPU-33333333-aaaa-0000-0000-000000000000, 00000000:5D:00.0, 81559 MiB, 4 MiB, 0 %
4, GPU-44444444-aaaa-0000-0000-000000000000, 00000000:9A:00.0, 81559 MiB, 81000 MiB, 100 %
5, GPU-55555555-aaaa-0000-0000-000000000000, 00000000:AB:00.0, 81559 MiB, 20000 MiB, 30 %
6, GPU-66666666-aaaa-0000-0000-000000000000, 00000000:BA:00.0, 81559 MiB, 4 MiB, 1 %
7, GPU-77777777-aaaa-0000-0000-000000000000, 00000000:DB:00.0, 81559 MiB, 30000 MiB, 10 %

gpu_uuid, pid, used_memory [MiB]
GPU-00000000-aaaa-0000-0000-000000000000, 1234, 69990 MiB
GPU-22222222-aaaa-0000-0000-000000000000, 2345, 39990 MiB
GPU-44444444-aaaa-0000-0000-000000000000, 3456, 40000 MiB
GPU-44444444-aaaa-0000-0000-000000000000, 3457, 40000 MiB
GPU-55555555-aaaa-0000-0000-000000000000, 4567, 19990 MiB
GPU-77777777-aaaa-0000-0000-000000000000, 5678, 29990 MiB
)";

std::vector<GpuStatus> eightGpus() {
  std::string error;
  auto gpus = parseNvidiaSmiCsv(kEightGpus, &error);
  EXPECT_TRUE(gpus) << error;
  return gpus.value_or(std::vector<GpuStatus>());
}

std::vector<int> indices(const std::vector<GpuStatus> &gpus) {
  std::vector<int> result;
  for (const GpuStatus &gpu : gpus)
    result.push_back(gpu.index);
  return result;
}

TEST(GpuStatus, ParsesNvidiaSmiCsv) {
  std::vector<GpuStatus> gpus = eightGpus();
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[3].uuid, "GPU-33333333-aaaa-0000-0000-000000000000");
  EXPECT_EQ(gpus[3].pciBusId, "00000000:5D:00.0");
  EXPECT_EQ(gpus[3].totalMiB, 81559);
  EXPECT_EQ(gpus[3].freeMiB(), 81555);
  EXPECT_EQ(gpus[4].utilization, 100);
  EXPECT_EQ(gpus[4].computeProcesses, 2);
  EXPECT_EQ(gpus[1].computeProcesses, 0);
  EXPECT_EQ(gpus[3].describe(),
            "physical GPU 3 (GPU-33333333-aaaa-0000-0000-000000000000, "
            "00000000:5D:00.0, 0 processes, 81555 MiB free of 81559, 0% busy)");
}

TEST(GpuStatus, ParsesNoHeaderNoUnits) {
  std::string error;
  auto gpus = parseNvidiaSmiCsv(
      "0, GPU-a, 00000000:01:00.0, 1000, 10, 5\n1, GPU-b, "
      "00000000:02:00.0, 2000, 20, 7\n\nGPU-b, 99, 10\n",
      &error);
  ASSERT_TRUE(gpus) << error;
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[1].computeProcesses, 1);
  EXPECT_EQ((*gpus)[0].computeProcesses, 0);
}

TEST(GpuStatus, RejectsMalformedCsv) {
  std::string error;
  EXPECT_FALSE(parseNvidiaSmiCsv("0, GPU-a, bus, 1000\n", &error));
  EXPECT_EQ(error, "line 1: expected index, uuid, pci.bus_id, memory.total, "
                   "memory.used, utilization.gpu; got '0, GPU-a, bus, 1000'");
  EXPECT_FALSE(parseNvidiaSmiCsv("0, GPU-a, bus, lots, 10, 5\n", &error));
  EXPECT_EQ(error, "line 1: bad numbers in '0, GPU-a, bus, lots, 10, 5'");
  EXPECT_FALSE(parseNvidiaSmiCsv("0, GPU-a, bus, 100, 200, 5\n", &error));
  EXPECT_FALSE(parseNvidiaSmiCsv("0, GPU-a, bus, 100, 20, 500\n", &error));
  EXPECT_FALSE(parseNvidiaSmiCsv(
      "0, GPU-a, b, 100, 20, 5\n0, GPU-b, c, 100, 20, 5\n", &error));
  EXPECT_EQ(error, "GPU index 0 appears twice");
  EXPECT_FALSE(parseNvidiaSmiCsv(
      "0, GPU-a, b, 100, 20, 5\n\nnot-a-uuid, 1, 2\n", &error));
  EXPECT_EQ(error, "line 3: expected gpu_uuid, pid, used_memory, got "
                   "'not-a-uuid, 1, 2'");
}

TEST(GpuStatus, RanksIdleFirst) {
  // No processes first (3, 6, then 1 with less free memory), then busy
  // GPUs by free memory (5, 7, 2, 0, 4).
  EXPECT_EQ(indices(rankGpus(eightGpus())),
            (std::vector<int>{3, 6, 1, 5, 7, 2, 0, 4}));
  EXPECT_EQ(indices(rankGpus(eightGpus(), 50000)),
            (std::vector<int>{3, 6, 5, 7}));
  // Ties: utilisation, then index.
  std::string error;
  auto tied = parseNvidiaSmiCsv("0, GPU-a, b, 100, 10, 9\n1, GPU-b, b, 100, "
                                "10, 3\n2, GPU-c, b, 100, 10, 3\n",
                                &error);
  ASSERT_TRUE(tied);
  EXPECT_EQ(indices(rankGpus(*tied)), (std::vector<int>{1, 2, 0}));
}

TEST(VisibleDevices, FollowsCudasDocumentedForms) {
  std::vector<GpuStatus> gpus = eightGpus();
  auto visible = [&](std::string_view value) {
    return parseVisibleDevices(value, gpus);
  };
  EXPECT_EQ(visible("1").indices, std::vector<int>{1});
  EXPECT_EQ(visible("0,1").indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(visible(" 2, 0 ,3").indices, (std::vector<int>{2, 0, 3}));
  EXPECT_EQ(visible("GPU-33333333-aaaa-0000-0000-000000000000,GPU-6").indices,
            (std::vector<int>{3, 6}));
  EXPECT_TRUE(visible("").indices.empty());
  EXPECT_TRUE(visible("").stopped.empty());
  // The list stops at the first invalid entry.
  VisibleDevices stopped = visible("0,2,9,3");
  EXPECT_EQ(stopped.indices, (std::vector<int>{0, 2}));
  EXPECT_EQ(stopped.stopped, "stopped at no GPU 9");
  EXPECT_EQ(visible("1,1,2").indices, std::vector<int>{1});
  EXPECT_EQ(visible("1,1,2").stopped, "stopped at GPU 1 is listed twice");
  EXPECT_EQ(visible("GPU-").stopped,
            "stopped at UUID prefix GPU- is ambiguous");
  EXPECT_EQ(visible("3,foo").indices, std::vector<int>{3});
  EXPECT_EQ(visible("3,foo").stopped,
            "stopped at 'foo' is neither an index nor a UUID");
  EXPECT_EQ(visible("-1").indices, std::vector<int>{});
  EXPECT_EQ(visible(",1").stopped, "stopped at an empty entry");
}

TEST(VisibleDevices, NoBogusValueCrashes) {
  std::vector<GpuStatus> gpus = eightGpus();
  std::mt19937 random(42);
  const std::string alphabet = "0123456789,GPU-MIabc \t\x01\xff";
  for (int trial = 0; trial < 20000; ++trial) {
    std::string value;
    for (int i = random() % 24; i > 0; --i)
      value += alphabet[random() % alphabet.size()];
    VisibleDevices visible = parseVisibleDevices(value, gpus);
    for (int index : visible.indices)
      EXPECT_TRUE(index >= 0 && index < 8) << value;
    GpuSelection selection = selectGpus(value, gpus, value, 0);
    EXPECT_TRUE(selection.error.empty() || selection.gpus.empty());
  }
}

TEST(SelectGpus, AutoPicksTheIdlest) {
  std::vector<GpuStatus> gpus = eightGpus();
  GpuSelection two = selectGpus("auto:2", gpus, std::nullopt, 0);
  ASSERT_TRUE(two.error.empty()) << two.error;
  EXPECT_EQ(indices(two.gpus), (std::vector<int>{3, 6}));
  EXPECT_EQ(two.cudaVisibleDevices,
            "GPU-33333333-aaaa-0000-0000-000000000000,"
            "GPU-66666666-aaaa-0000-0000-000000000000");
  EXPECT_EQ(indices(selectGpus("auto", gpus, std::nullopt, 50000).gpus),
            (std::vector<int>{3, 6, 5, 7}));
  // Within what CUDA_VISIBLE_DEVICES leaves visible.
  EXPECT_EQ(indices(selectGpus("auto:1", gpus, "0,5,7", 0).gpus),
            std::vector<int>{5});
  // A list behaves as CUDA_VISIBLE_DEVICES, over the environment.
  EXPECT_EQ(indices(selectGpus("4,2", gpus, "1", 0).gpus),
            (std::vector<int>{4, 2}));
  // No spec: the environment as it is.
  GpuSelection none = selectGpus("", gpus, "7,1", 0);
  EXPECT_EQ(indices(none.gpus), (std::vector<int>{7, 1}));
  EXPECT_FALSE(none.cudaVisibleDevices);
}

TEST(SelectGpus, SaysWhyNothingFits) {
  std::vector<GpuStatus> gpus = eightGpus();
  GpuSelection three = selectGpus("auto:3", gpus, std::nullopt, 80000);
  EXPECT_TRUE(three.gpus.empty());
  EXPECT_EQ(three.error.rfind("--visible-gpus=auto:3: 3 GPUs with at least "
                              "80000 MiB free wanted, 2 available of 8; "
                              "physical GPU 0 (",
                              0),
            0u)
      << three.error;
  EXPECT_NE(selectGpus("auto:0", gpus, std::nullopt, 0).error.find(
                "expected auto or auto:N with N >= 1"),
            std::string::npos);
  EXPECT_NE(selectGpus("auto:x", gpus, std::nullopt, 0).error.find(
                "expected auto or auto:N"),
            std::string::npos);
  EXPECT_EQ(selectGpus("1,9", gpus, std::nullopt, 0).error,
            "--visible-gpus=1,9: no GPU 9");
}

TEST(GpuStatus, TheProcesssGpusInItsOrder) {
  std::vector<GpuStatus> gpus = eightGpus();
  GpuStatusReport report;
  report.gpus = gpus;
  EXPECT_EQ(indices(processGpuStatus(report, {gpus[6].uuid, gpus[0].uuid})),
            (std::vector<int>{6, 0}));
  EXPECT_EQ(processGpuStatus(report, {}).size(), 8u);
  EXPECT_TRUE(processGpuStatus(report, {"GPU-not-there"}).empty());
}

} // namespace
