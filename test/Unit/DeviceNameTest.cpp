//===- DeviceNameTest.cpp - device names and device sets ------------------===//
//
// Behaviours ported from TensorFlow's device_name_utils_test.cc (as
// behaviours, not code), plus gplace's own rules from SPEC §1.1.
//
//===----------------------------------------------------------------------===//

#include "gplace/Support/DeviceName.h"

#include <gtest/gtest.h>

using gplace::DeviceName;
using gplace::DeviceSet;
using gplace::DeviceType;

namespace {

DeviceName mustParse(std::string_view spec) {
  std::string error;
  std::optional<DeviceName> name = DeviceName::parse(spec, &error);
  EXPECT_TRUE(name.has_value()) << spec << ": " << error;
  return name.value_or(DeviceName());
}

std::string parseError(std::string_view spec) {
  std::string error;
  EXPECT_FALSE(DeviceName::parse(spec, &error).has_value()) << spec;
  return error;
}

// Every accepted spelling and its canonical form.
struct Spelling {
  const char *spec;
  const char *canonical;
};

class AcceptedSpelling : public ::testing::TestWithParam<Spelling> {};

TEST_P(AcceptedSpelling, PrintsCanonically) {
  EXPECT_EQ(mustParse(GetParam().spec).str(), GetParam().canonical);
}

TEST_P(AcceptedSpelling, CanonicalFormIsAFixedPoint) {
  std::string canonical = GetParam().canonical;
  EXPECT_EQ(mustParse(canonical), mustParse(GetParam().spec));
  EXPECT_EQ(mustParse(canonical).str(), canonical);
}

INSTANTIATE_TEST_SUITE_P(
    DeviceName, AcceptedSpelling,
    ::testing::Values(
        // The empty string and "/" mean "no request".
        Spelling{"", ""}, Spelling{"/", ""},
        // Full names.
        Spelling{"/job:localhost/replica:0/task:0/device:GPU:1",
                 "/job:localhost/replica:0/task:0/device:GPU:1"},
        Spelling{"/job:worker/replica:2/task:3/device:CPU:0",
                 "/job:worker/replica:2/task:3/device:CPU:0"},
        // Any order of segments.
        Spelling{"/device:GPU:1/task:0/replica:0/job:localhost",
                 "/job:localhost/replica:0/task:0/device:GPU:1"},
        // Device type spellings: case-insensitive, printed upper-case.
        Spelling{"/device:GPU:2", "/device:GPU:2"},
        Spelling{"/device:gpu:1", "/device:GPU:1"},
        Spelling{"/device:Gpu:1", "/device:GPU:1"},
        Spelling{"/gpu:1", "/device:GPU:1"},
        Spelling{"/GPU:1", "/device:GPU:1"},
        Spelling{"/cpu:0", "/device:CPU:0"},
        Spelling{"/CPU:0", "/device:CPU:0"},
        Spelling{"/device:CPU", "/device:CPU:*"},
        Spelling{"/gpu", "/device:GPU:*"},
        // The local form.
        Spelling{"GPU:1", "/device:GPU:1"}, Spelling{"gpu:1", "/device:GPU:1"},
        Spelling{"CPU:0", "/device:CPU:0"}, Spelling{"gpu:*", "/device:GPU:*"},
        Spelling{"cpu", "/device:CPU:*"},
        Spelling{"device:GPU:3", "/device:GPU:3"},
        // Wildcards and omitted fields.
        Spelling{"/gpu:*", "/device:GPU:*"},
        Spelling{"/device:GPU:*", "/device:GPU:*"},
        Spelling{"/device:*:1", "/device:*:1"}, Spelling{"/job:*", ""},
        Spelling{"/job:*/gpu:0", "/device:GPU:0"},
        Spelling{"/replica:*/task:*", ""},
        Spelling{"/job:worker", "/job:worker"},
        Spelling{"/job:worker_2/task:1", "/job:worker_2/task:1"},
        Spelling{"/task:1/gpu:0", "/task:1/device:GPU:0"},
        Spelling{"/replica:1", "/replica:1"},
        // Leading zeros are numbers as TensorFlow reads them.
        Spelling{"/gpu:01", "/device:GPU:1"},
        // A field repeated with the same value.
        Spelling{"/gpu:0/device:GPU:0", "/device:GPU:0"},
        // Device types gplace has no devices of: TensorFlow's syntax, kept
        // as written.
        Spelling{"/device:TPU:0", "/device:TPU:0"},
        Spelling{"/device:myspecialdevice:13", "/device:myspecialdevice:13"},
        Spelling{"/job:a/device:XLA_CPU", "/job:a/device:XLA_CPU:*"}));

TEST(DeviceName, OtherDeviceTypesMatchNoDevice) {
  DeviceName special = mustParse("/device:myspecialdevice:13");
  EXPECT_EQ(special.otherType, "myspecialdevice");
  EXPECT_FALSE(special.type.has_value());
  EXPECT_FALSE(special.isEmpty());
  EXPECT_FALSE(mustParse("/job:localhost/replica:0/task:0/device:TPU:0")
                   .isFullySpecified());
  DeviceSet machine = DeviceSet::localhost(1, 16);
  for (const DeviceName &device : machine.devices())
    EXPECT_FALSE(special.matches(device)) << device.str();
  // It conflicts with any other type and merges as a type does.
  std::string error;
  EXPECT_FALSE(DeviceName::intersect(special, mustParse("/gpu:13"), &error));
  EXPECT_EQ(error, "Cannot merge devices with incompatible types: "
                   "'/device:myspecialdevice:13' and '/device:GPU:13'");
  EXPECT_FALSE(DeviceName::intersect(special, mustParse("/device:TPU:13")));
  std::optional<DeviceName> both =
      DeviceName::intersect(mustParse("/job:a"), special);
  ASSERT_TRUE(both);
  EXPECT_EQ(both->str(), "/job:a/device:myspecialdevice:13");
  std::optional<DeviceName> merged =
      DeviceName::merge(mustParse("/gpu:1"), mustParse("/device:TPU"));
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->str(), "/device:TPU:*");
}

// Every error, with the part each names.
struct Rejected {
  const char *spec;
  const char *message;
};

class RejectedSpelling : public ::testing::TestWithParam<Rejected> {};

TEST_P(RejectedSpelling, NamesTheStringAndTheOffendingPart) {
  std::string error = parseError(GetParam().spec);
  EXPECT_EQ(error, "Malformed device specification '" +
                       std::string(GetParam().spec) +
                       "': " + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    DeviceName, RejectedSpelling,
    ::testing::Values(
        Rejected{"/gpu:x", "device id 'x' is not a non-negative integer"},
        Rejected{"/job:/task:1", "job name is empty"},
        Rejected{"/device:1pu:0", "device type '1pu' must start with a "
                                  "letter and contain only letters, digits "
                                  "and '_'"},
        Rejected{"/device:my-device:0", "device type 'my-device' must start "
                                        "with a letter and contain only "
                                        "letters, digits and '_'"},
        Rejected{"/device:TPU:0/gpu:0", "two device types: 'TPU' and 'GPU'"},
        Rejected{"/job:123", "job name '123' must start with a letter and "
                             "contain only letters, digits and '_'"},
        Rejected{"/job:a-b", "job name 'a-b' must start with a letter and "
                             "contain only letters, digits and '_'"},
        Rejected{"/task:-1/cpu:0", "task '-1' is not a non-negative integer"},
        Rejected{"/replica:x", "replica 'x' is not a non-negative integer"},
        Rejected{"/task:99999999999",
                 "task '99999999999' is out of range (at most 2147483647)"},
        Rejected{"/gpu:0/cpu:0", "two device types: 'GPU' and 'CPU'"},
        Rejected{"/cpu:0/device:GPU", "two device types: 'CPU' and 'GPU'"},
        Rejected{"/job:a/job:b", "conflicting values for the job: 'a' and 'b'"},
        Rejected{"/gpu:0/gpu:1",
                 "conflicting values for the device id: '0' and '1'"},
        Rejected{"/foo:1", "unknown field 'foo' (expected job, replica, task, "
                           "device, or the device types CPU and GPU)"},
        Rejected{"/tpu", "unknown field or device type 'tpu' (expected job, "
                         "replica, task, device, or the device types CPU and "
                         "GPU)"},
        Rejected{"/JOB:x", "unknown field 'JOB' (expected job, replica, task, "
                           "device, or the device types CPU and GPU)"},
        Rejected{"/gpu:", "device id '' is not a non-negative integer"},
        Rejected{"/gpu:0:1", "segment 'gpu:0:1' must be 'TYPE' or 'TYPE:N'"},
        Rejected{"/device:GPU:0:1",
                 "segment 'device:GPU:0:1' must be 'device:TYPE' or "
                 "'device:TYPE:N'"},
        Rejected{"/device", "segment 'device' must be 'device:TYPE' or "
                            "'device:TYPE:N'"},
        Rejected{"/job", "segment 'job' must be 'job:NAME'"},
        Rejected{"/task", "segment 'task' must be 'task:N'"},
        Rejected{"//gpu:0",
                 "empty segment (two '/' in a row, or a trailing '/')"},
        Rejected{"/gpu:0/",
                 "empty segment (two '/' in a row, or a trailing '/')"},
        Rejected{"/gpu: 0", "device id ' 0' is not a non-negative integer"},
        Rejected{"gpu:0/task:1", "a name without a leading '/' must be a "
                                 "local device name such as 'GPU:1'"},
        Rejected{"job:worker", "'job' is not a device type; a name without a "
                               "leading '/' must be a local device name such "
                               "as 'GPU:1'"},
        Rejected{"TPU:0", "'TPU' is not a device type; a name without a "
                          "leading '/' must be a local device name such as "
                          "'GPU:1'"}));

TEST(DeviceName, ParsesFields) {
  DeviceName name = mustParse("/job:worker/replica:1/task:2/gpu:3");
  EXPECT_EQ(name.job, "worker");
  EXPECT_EQ(name.replica, 1);
  EXPECT_EQ(name.task, 2);
  EXPECT_EQ(name.type, DeviceType::GPU);
  EXPECT_EQ(name.id, 3);
  EXPECT_TRUE(name.isFullySpecified());
  EXPECT_FALSE(name.isEmpty());
}

TEST(DeviceName, OmittedFieldsAreUnsetNotDefaulted) {
  DeviceName name = mustParse("/gpu:0");
  EXPECT_FALSE(name.job.has_value());
  EXPECT_FALSE(name.replica.has_value());
  EXPECT_FALSE(name.task.has_value());
  EXPECT_FALSE(name.isFullySpecified());
  EXPECT_TRUE(mustParse("").isEmpty());
  EXPECT_TRUE(mustParse("/job:*/gpu:*").type.has_value());
  EXPECT_FALSE(mustParse("/job:*/gpu:*").id.has_value());
}

TEST(DeviceName, ErrorPointerIsOptional) {
  EXPECT_FALSE(DeviceName::parse("/gpu:x").has_value());
}

TEST(DeviceName, Local) {
  EXPECT_EQ(DeviceName::local(DeviceType::GPU, 1).str(),
            "/job:localhost/replica:0/task:0/device:GPU:1");
  EXPECT_EQ(DeviceName::local(DeviceType::CPU, 0).str(),
            "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST(DeviceName, Matches) {
  DeviceName gpu0 = DeviceName::local(DeviceType::GPU, 0);
  DeviceName cpu0 = DeviceName::local(DeviceType::CPU, 0);
  DeviceName worker = mustParse("/job:worker/replica:0/task:1/device:GPU:0");
  EXPECT_TRUE(mustParse("").matches(gpu0));
  EXPECT_TRUE(mustParse("/gpu:0").matches(gpu0));
  EXPECT_TRUE(mustParse("/gpu:0").matches(worker)) << "any task";
  EXPECT_FALSE(mustParse("/gpu:0").matches(cpu0));
  EXPECT_FALSE(mustParse("/gpu:1").matches(gpu0));
  EXPECT_TRUE(mustParse("/gpu:*").matches(gpu0));
  EXPECT_TRUE(mustParse("/device:*:0").matches(cpu0));
  EXPECT_TRUE(mustParse("/job:worker").matches(worker));
  EXPECT_FALSE(mustParse("/job:worker").matches(gpu0));
  EXPECT_TRUE(mustParse("/task:1").matches(worker));
  EXPECT_FALSE(mustParse("/task:1").matches(gpu0));
  EXPECT_TRUE(gpu0.matches(gpu0));
  EXPECT_FALSE(gpu0.matches(mustParse("/gpu:0"))) << "partial device";
}

TEST(DeviceName, MergeInnerWinsFieldByField) {
  auto merged = [](std::string_view outer, std::string_view inner) {
    std::string error;
    auto result = DeviceName::merge(mustParse(outer), mustParse(inner), &error);
    EXPECT_TRUE(result.has_value()) << error;
    return result.value_or(DeviceName()).str();
  };
  EXPECT_EQ(merged("/job:worker", "/gpu:0"), "/job:worker/device:GPU:0");
  EXPECT_EQ(merged("/cpu:0", "/gpu:1"), "/device:GPU:1");
  EXPECT_EQ(merged("/gpu:1", "/device:CPU"), "/device:CPU:*")
      << "the outer id belongs to the outer type";
  EXPECT_EQ(merged("/gpu:1", "/device:GPU"), "/device:GPU:1");
  EXPECT_EQ(merged("/gpu:1", "/device:*:2"), "/device:GPU:2");
  EXPECT_EQ(merged("/gpu:1", ""), "/device:GPU:1");
  EXPECT_EQ(merged("", "/task:2"), "/task:2");
  EXPECT_EQ(merged("/job:a/task:1", "/job:a/replica:0"),
            "/job:a/replica:0/task:1");
}

TEST(DeviceName, MergeConflictsInTensorFlowsWords) {
  auto mergeError = [](std::string_view outer, std::string_view inner) {
    std::string error;
    EXPECT_FALSE(DeviceName::merge(mustParse(outer), mustParse(inner), &error));
    return error;
  };
  EXPECT_EQ(mergeError("/job:a", "/job:b"),
            "Cannot merge devices with incompatible jobs: '/job:a' and "
            "'/job:b'");
  EXPECT_EQ(mergeError("/replica:0/gpu:0", "/replica:1"),
            "Cannot merge devices with incompatible replicas: "
            "'/replica:0/device:GPU:0' and '/replica:1'");
  EXPECT_EQ(mergeError("/task:0", "/task:1/cpu:0"),
            "Cannot merge devices with incompatible tasks: '/task:0' and "
            "'/task:1/device:CPU:0'");
}

TEST(DeviceName, IntersectRequiresAgreement) {
  std::string error;
  auto both = DeviceName::intersect(mustParse("/job:localhost"),
                                    mustParse("/device:*:1"), &error);
  ASSERT_TRUE(both) << error;
  EXPECT_EQ(both->str(), "/job:localhost/device:*:1");
  both = DeviceName::intersect(*both, mustParse("/gpu:1"), &error);
  ASSERT_TRUE(both) << error;
  EXPECT_EQ(both->str(), "/job:localhost/device:GPU:1");
  EXPECT_FALSE(
      DeviceName::intersect(mustParse("/gpu:0"), mustParse("/cpu:0"), &error));
  EXPECT_EQ(error, "Cannot merge devices with incompatible types: "
                   "'/device:GPU:0' and '/device:CPU:0'");
  EXPECT_FALSE(
      DeviceName::intersect(mustParse("/gpu:0"), mustParse("/gpu:1"), &error));
  EXPECT_EQ(error, "Cannot merge devices with incompatible ids: "
                   "'/device:GPU:0' and '/device:GPU:1'");
  EXPECT_FALSE(DeviceName::intersect(mustParse("/task:0"), mustParse("/task:1"),
                                     &error));
  EXPECT_EQ(error, "Cannot merge devices with incompatible tasks: '/task:0' "
                   "and '/task:1'");
}

TEST(DeviceName, OrderIsGpuFirstThenNumeric) {
  std::vector<DeviceName> names = {
      mustParse("/job:localhost/replica:0/task:0/device:CPU:0"),
      mustParse("/job:localhost/replica:0/task:0/device:GPU:10"),
      mustParse("/job:localhost/replica:0/task:0/device:GPU:2"),
      mustParse("/job:localhost/replica:0/task:1/device:GPU:0"),
  };
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names[0].str(), "/job:localhost/replica:0/task:0/device:GPU:2");
  EXPECT_EQ(names[1].str(), "/job:localhost/replica:0/task:0/device:GPU:10");
  EXPECT_EQ(names[2].str(), "/job:localhost/replica:0/task:1/device:GPU:0");
  EXPECT_EQ(names[3].str(), "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST(DeviceSet, ParsesCounts) {
  std::string error;
  auto set = DeviceSet::parse("cpu:1,gpu:4", &error);
  ASSERT_TRUE(set) << error;
  EXPECT_EQ(set->size(), 5u);
  EXPECT_EQ(set->str(), "/job:localhost/replica:0/task:0/device:GPU:0, "
                        "/job:localhost/replica:0/task:0/device:GPU:1, "
                        "/job:localhost/replica:0/task:0/device:GPU:2, "
                        "/job:localhost/replica:0/task:0/device:GPU:3, "
                        "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_TRUE(set->contains(DeviceName::local(DeviceType::GPU, 3)));
  EXPECT_FALSE(set->contains(DeviceName::local(DeviceType::GPU, 4)));
}

TEST(DeviceSet, ParsesFullNamesAndMixes) {
  std::string error;
  auto set = DeviceSet::parse("/job:worker/replica:0/task:1/device:GPU:0, "
                              "/job:worker/replica:0/task:0/device:CPU:0,GPU:1",
                              &error);
  ASSERT_TRUE(set) << error;
  ASSERT_EQ(set->size(), 3u);
  EXPECT_EQ(set->devices()[0].str(),
            "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(set->devices()[1].str(),
            "/job:worker/replica:0/task:1/device:GPU:0");
  EXPECT_EQ(set->devices()[2].str(),
            "/job:worker/replica:0/task:0/device:CPU:0");
  std::vector<DeviceName> gpus = set->matching(mustParse("/gpu:0"));
  EXPECT_EQ(gpus.size(), 2u);
  EXPECT_EQ(set->matching(mustParse("/job:worker/task:1")).size(), 1u);
  EXPECT_TRUE(set->matching(mustParse("/gpu:7")).empty());
}

TEST(DeviceSet, ZeroCountAddsNothing) {
  auto set = DeviceSet::parse("cpu:1,gpu:0");
  ASSERT_TRUE(set);
  EXPECT_EQ(set->size(), 1u);
}

struct RejectedSet {
  const char *spec;
  const char *message;
};
class RejectedDeviceSet : public ::testing::TestWithParam<RejectedSet> {};

TEST_P(RejectedDeviceSet, SaysWhy) {
  std::string error;
  EXPECT_FALSE(DeviceSet::parse(GetParam().spec, &error));
  EXPECT_EQ(error, "invalid device list '" + std::string(GetParam().spec) +
                       "': " + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    DeviceSet, RejectedDeviceSet,
    ::testing::Values(
        RejectedSet{"", "the list is empty"},
        RejectedSet{"cpu:1,,gpu:1", "empty entry"},
        RejectedSet{"tpu:1", "unknown device type 'tpu' (known types: CPU, "
                             "GPU)"},
        RejectedSet{"/job:localhost/replica:0/task:0/device:TPU:0",
                    "unknown device type 'TPU' (known types: CPU, GPU)"},
        RejectedSet{"gpu", "entry 'gpu' must be TYPE:COUNT (as 'gpu:4') or a "
                           "full device name"},
        RejectedSet{"gpu:x", "device count 'x' must be an integer from 0 to "
                             "4096"},
        RejectedSet{"gpu:-1", "device count '-1' must be an integer from 0 "
                              "to 4096"},
        RejectedSet{"gpu:100000", "device count '100000' must be an integer "
                                  "from 0 to 4096"},
        RejectedSet{"/gpu:0", "'/gpu:0' is not a full device name "
                              "(/job:NAME/replica:N/task:N/device:TYPE:N)"},
        RejectedSet{"/job:x/replica:0/task:0/device:GPU:y",
                    "Malformed device specification "
                    "'/job:x/replica:0/task:0/device:GPU:y': device id 'y' "
                    "is not a non-negative integer"},
        RejectedSet{"gpu:2,/job:localhost/replica:0/task:0/device:GPU:1",
                    "device '/job:localhost/replica:0/task:0/device:GPU:1' "
                    "is listed twice"},
        RejectedSet{"cpu:1,cpu:1",
                    "device '/job:localhost/replica:0/task:0/device:CPU:0' "
                    "is listed twice"}));

TEST(DeviceSet, Localhost) {
  DeviceSet set = DeviceSet::localhost(1, 2);
  EXPECT_EQ(set.str(), "/job:localhost/replica:0/task:0/device:GPU:0, "
                       "/job:localhost/replica:0/task:0/device:GPU:1, "
                       "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST(DeviceSet, AddRejectsPartialAndDuplicate) {
  DeviceSet set;
  EXPECT_FALSE(set.add(mustParse("/gpu:0")));
  EXPECT_TRUE(set.add(DeviceName::local(DeviceType::GPU, 0)));
  EXPECT_FALSE(set.add(DeviceName::local(DeviceType::GPU, 0)));
  EXPECT_EQ(set.size(), 1u);
}

} // namespace
