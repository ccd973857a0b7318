//===- DeviceName.cpp - TensorFlow device names and device sets -----------===//

#include "gplace/Support/DeviceName.h"
#include "gplace/Support/ClusterSpec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <tuple>

namespace gplace {

namespace {

constexpr int64_t kMaxNumber = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxDevicesPerEntry = 4096;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos)
      return parts;
    start = end + 1;
  }
}

std::string_view trim(std::string_view text) {
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

/// Parses a non-negative decimal integer no larger than `max`.
std::optional<int64_t> parseNumber(std::string_view text, int64_t max) {
  if (text.empty() || text.size() > 18)
    return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value > max)
    return std::nullopt;
  return value;
}

/// TensorFlow's job-name rule: [a-zA-Z][_a-zA-Z0-9]*.
bool isValidJobName(std::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// TensorFlow's device-type rule (ConsumeDeviceType): [a-zA-Z][_a-zA-Z0-9]*.
bool isValidDeviceTypeName(std::string_view name) { return isValidJobName(name); }

/// Accumulates the fields of one device specification, rejecting a field
/// given twice with different values.
class NameBuilder {
public:
  explicit NameBuilder(std::string_view spec) : spec_(spec) {}

  bool fail(const std::string &what) {
    // TensorFlow's words (Member::SetRequestedDeviceName), then what is
    // wrong with it.
    error_ = "Malformed device specification '" + std::string(spec_) +
             "': " + what;
    return false;
  }

  /// Parses one segment, the text between two '/' (or a whole local name).
  bool segment(std::string_view text) {
    if (text.empty())
      return fail("empty segment (two '/' in a row, or a trailing '/')");
    std::vector<std::string_view> parts = split(text, ':');
    std::string_view key = parts[0];
    if (key == "job" || key == "replica" || key == "task") {
      if (parts.size() != 2)
        return fail("segment '" + std::string(text) + "' must be '" +
                    std::string(key) + ":" + (key == "job" ? "NAME" : "N") +
                    "'");
      if (key == "job")
        return job(parts[1]);
      return number(key, parts[1], key == "task" ? task_ : replica_,
                    key == "task" ? name_.task : name_.replica);
    }
    if (key == "device") {
      if (parts.size() < 2 || parts.size() > 3)
        return fail("segment '" + std::string(text) +
                    "' must be 'device:TYPE' or 'device:TYPE:N'");
      return device(parts[1], parts.size() == 3 ? &parts[2] : nullptr);
    }
    if (parseDeviceType(key)) {
      // Legacy `/cpu:N`, `/gpu:N` and the local form `GPU:1`.
      if (parts.size() > 2)
        return fail("segment '" + std::string(text) +
                    "' must be 'TYPE' or 'TYPE:N'");
      return device(key, parts.size() == 2 ? &parts[1] : nullptr);
    }
    if (parts.size() == 1)
      return fail("unknown field or device type '" + std::string(key) +
                  "' (expected job, replica, task, device, or the device "
                  "types CPU and GPU)");
    return fail("unknown field '" + std::string(key) +
                "' (expected job, replica, task, device, or the device types "
                "CPU and GPU)");
  }

  const DeviceName &name() const { return name_; }
  const std::string &error() const { return error_; }

private:
  /// Records `value` as the text of a field, failing on a different earlier
  /// value.
  bool record(std::optional<std::string> &seen, std::string_view field,
              std::string_view value) {
    if (seen && *seen != value) {
      if (field == "device type")
        return fail("two device types: '" + *seen + "' and '" +
                    std::string(value) + "'");
      return fail("conflicting values for the " + std::string(field) + ": '" +
                  *seen + "' and '" + std::string(value) + "'");
    }
    seen = std::string(value);
    return true;
  }

  bool job(std::string_view value) {
    if (value.empty())
      return fail("job name is empty");
    if (!record(job_, "job", value))
      return false;
    if (value == "*")
      return true;
    if (!isValidJobName(value))
      return fail("job name '" + std::string(value) +
                  "' must start with a letter and contain only letters, "
                  "digits and '_'");
    name_.job = std::string(value);
    return true;
  }

  bool number(std::string_view field, std::string_view value,
              std::optional<std::string> &seen, std::optional<int64_t> &slot) {
    if (value == "*")
      return record(seen, field, value);
    std::optional<int64_t> n = parseNumber(value, kMaxNumber);
    if (!n) {
      bool digits = !value.empty() &&
                    std::all_of(value.begin(), value.end(),
                                [](char c) { return c >= '0' && c <= '9'; });
      return fail(std::string(field) + " '" + std::string(value) +
                  (digits ? "' is out of range (at most 2147483647)"
                          : "' is not a non-negative integer"));
    }
    if (!record(seen, field, std::to_string(*n)))
      return false;
    slot = n;
    return true;
  }

  bool device(std::string_view typeText, const std::string_view *idText) {
    if (typeText != "*") {
      std::optional<DeviceType> type = parseDeviceType(typeText);
      if (type) {
        if (!record(type_, "device type", deviceTypeName(*type)))
          return false;
        name_.type = type;
      } else if (isValidDeviceTypeName(typeText)) {
        // Any other type is valid syntax, as in TensorFlow
        // (`/device:TPU:0`, `/device:myspecialdevice:13`); no device has
        // it, so placement refuses it (or soft-places the op).
        if (!record(type_, "device type", typeText))
          return false;
        name_.otherType = std::string(typeText);
      } else {
        return fail("device type '" + std::string(typeText) +
                    "' must start with a letter and contain only letters, "
                    "digits and '_'");
      }
    } else if (!record(type_, "device type", "*")) {
      return false;
    }
    if (!idText)
      return true;
    return number("device id", *idText, id_, name_.id);
  }

  std::string_view spec_;
  DeviceName name_;
  std::string error_;
  std::optional<std::string> job_, replica_, task_, type_, id_;
};

int typeRank(const std::optional<DeviceType> &type) {
  return type ? static_cast<int>(*type) + 1 : 0;
}

} // namespace

std::string_view deviceTypeName(DeviceType type) {
  return type == DeviceType::GPU ? "GPU" : "CPU";
}

std::optional<DeviceType> parseDeviceType(std::string_view text) {
  if (text.size() != 3)
    return std::nullopt;
  std::string upper;
  for (char c : text)
    upper.push_back(
        static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  if (upper == "GPU")
    return DeviceType::GPU;
  if (upper == "CPU")
    return DeviceType::CPU;
  return std::nullopt;
}

std::optional<DeviceName> DeviceName::parse(std::string_view spec,
                                            std::string *error) {
  NameBuilder builder(spec);
  auto failed = [&]() -> std::optional<DeviceName> {
    if (error)
      *error = builder.error();
    return std::nullopt;
  };
  if (spec.empty() || spec == "/")
    return DeviceName();
  if (spec.front() != '/') {
    // The local form names only a device: `GPU:1`, `gpu:*`, `CPU`.
    if (spec.find('/') != std::string_view::npos) {
      builder.fail("a name without a leading '/' must be a local device "
                   "name such as 'GPU:1'");
      return failed();
    }
    std::string_view key = split(spec, ':')[0];
    if (!parseDeviceType(key) && key != "device") {
      builder.fail("'" + std::string(key) +
                   "' is not a device type; a name without a leading '/' "
                   "must be a local device name such as 'GPU:1'");
      return failed();
    }
    if (!builder.segment(spec))
      return failed();
    return builder.name();
  }
  spec.remove_prefix(1);
  for (std::string_view segment : split(spec, '/'))
    if (!builder.segment(segment))
      return failed();
  return builder.name();
}

DeviceName DeviceName::local(DeviceType type, int64_t id) {
  DeviceName name;
  name.job = "localhost";
  name.replica = 0;
  name.task = 0;
  name.type = type;
  name.id = id;
  return name;
}

std::string DeviceName::str() const {
  std::string out;
  if (job)
    out += "/job:" + *job;
  if (replica)
    out += "/replica:" + std::to_string(*replica);
  if (task)
    out += "/task:" + std::to_string(*task);
  if (type || otherType || id) {
    out += "/device:";
    out += type        ? std::string(deviceTypeName(*type))
           : otherType ? *otherType
                       : "*";
    out += ":";
    out += id ? std::to_string(*id) : "*";
  }
  return out;
}

bool DeviceName::isFullySpecified() const {
  return job && replica && task && type && id;
}

bool DeviceName::isEmpty() const {
  return !job && !replica && !task && !type && !otherType && !id;
}

bool DeviceName::matches(const DeviceName &device) const {
  return (!job || job == device.job) &&
         (!replica || replica == device.replica) &&
         (!task || task == device.task) && (!type || type == device.type) &&
         (!otherType || otherType == device.otherType) &&
         (!id || id == device.id);
}

std::optional<DeviceName> DeviceName::merge(const DeviceName &outer,
                                            const DeviceName &inner,
                                            std::string *error) {
  auto incompatible = [&](const char *what) -> std::optional<DeviceName> {
    if (error)
      *error = std::string("Cannot merge devices with incompatible ") + what +
               ": '" + outer.str() + "' and '" + inner.str() + "'";
    return std::nullopt;
  };
  DeviceName merged = outer;
  if (inner.job) {
    if (outer.job && outer.job != inner.job)
      return incompatible("jobs");
    merged.job = inner.job;
  }
  if (inner.replica) {
    if (outer.replica && outer.replica != inner.replica)
      return incompatible("replicas");
    merged.replica = inner.replica;
  }
  if (inner.task) {
    if (outer.task && outer.task != inner.task)
      return incompatible("tasks");
    merged.task = inner.task;
  }
  if (inner.type || inner.otherType) {
    // The outer id named a device of another type: it goes with that type.
    if (outer.type != inner.type || outer.otherType != inner.otherType)
      merged.id = inner.id;
    merged.type = inner.type;
    merged.otherType = inner.otherType;
  }
  if (inner.id)
    merged.id = inner.id;
  return merged;
}

std::optional<DeviceName> DeviceName::intersect(const DeviceName &a,
                                                const DeviceName &b,
                                                std::string *error) {
  DeviceName result = a;
  auto combine = [&](auto &slot, const auto &other, const char *what) {
    if (!other)
      return true;
    if (slot && *slot != *other) {
      if (error)
        *error = std::string("Cannot merge devices with incompatible ") + what +
                 ": '" + a.str() + "' and '" + b.str() + "'";
      return false;
    }
    slot = other;
    return true;
  };
  // A type gplace has no devices of conflicts with any other type.
  auto typeText = [](const DeviceName &name) -> std::optional<std::string> {
    if (name.type)
      return std::string(deviceTypeName(*name.type));
    return name.otherType;
  };
  std::optional<std::string> type = typeText(a);
  if (!combine(result.job, b.job, "jobs") ||
      !combine(result.replica, b.replica, "replicas") ||
      !combine(result.task, b.task, "tasks") ||
      !combine(type, typeText(b), "types") ||
      !combine(result.id, b.id, "ids"))
    return std::nullopt;
  if (!result.type && !result.otherType) {
    result.type = b.type;
    result.otherType = b.otherType;
  }
  return result;
}

bool operator<(const DeviceName &a, const DeviceName &b) {
  return std::make_tuple(typeRank(a.type), a.otherType, a.job, a.replica,
                         a.task, a.id) <
         std::make_tuple(typeRank(b.type), b.otherType, b.job, b.replica,
                         b.task, b.id);
}

bool operator==(const DeviceName &a, const DeviceName &b) {
  return a.job == b.job && a.replica == b.replica && a.task == b.task &&
         a.type == b.type && a.otherType == b.otherType && a.id == b.id;
}

//===----------------------------------------------------------------------===//
// DeviceSet
//===----------------------------------------------------------------------===//

std::optional<DeviceSet> DeviceSet::parse(std::string_view spec,
                                          std::string *error) {
  auto fail = [&](const std::string &what) -> std::optional<DeviceSet> {
    if (error)
      *error = "invalid device list '" + std::string(spec) + "': " + what;
    return std::nullopt;
  };
  if (trim(spec).empty())
    return fail("the list is empty");
  DeviceSet set;
  auto add = [&](const DeviceName &device) {
    if (set.add(device))
      return true;
    fail("device '" + device.str() + "' is listed twice");
    return false;
  };
  for (std::string_view entry : split(spec, ',')) {
    entry = trim(entry);
    if (entry.empty())
      return fail("empty entry");
    if (entry.front() == '/') {
      std::string nameError;
      std::optional<DeviceName> name = DeviceName::parse(entry, &nameError);
      if (!name)
        return fail(nameError);
      if (name->otherType)
        return fail("unknown device type '" + *name->otherType +
                    "' (known types: CPU, GPU)");
      if (!name->isFullySpecified())
        return fail("'" + std::string(entry) +
                    "' is not a full device name "
                    "(/job:NAME/replica:N/task:N/device:TYPE:N)");
      if (!add(*name))
        return std::nullopt;
      continue;
    }
    std::vector<std::string_view> parts = split(entry, ':');
    if (parts.size() != 2)
      return fail("entry '" + std::string(entry) +
                  "' must be TYPE:COUNT (as 'gpu:4') or a full device name");
    std::optional<DeviceType> type = parseDeviceType(parts[0]);
    if (!type)
      return fail("unknown device type '" + std::string(parts[0]) +
                  "' (known types: CPU, GPU)");
    std::optional<int64_t> count = parseNumber(parts[1], kMaxDevicesPerEntry);
    if (!count)
      return fail("device count '" + std::string(parts[1]) +
                  "' must be an integer from 0 to " +
                  std::to_string(kMaxDevicesPerEntry));
    for (int64_t id = 0; id < *count; ++id)
      if (!add(DeviceName::local(*type, id)))
        return std::nullopt;
  }
  return set;
}

DeviceSet DeviceSet::localhost(int64_t numCpus, int64_t numGpus) {
  DeviceSet set;
  for (int64_t id = 0; id < numGpus; ++id)
    set.add(DeviceName::local(DeviceType::GPU, id));
  for (int64_t id = 0; id < numCpus; ++id)
    set.add(DeviceName::local(DeviceType::CPU, id));
  return set;
}

bool DeviceSet::add(const DeviceName &device, DeviceAttributes attributes) {
  if (!device.isFullySpecified())
    return false;
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device);
  if (it != devices_.end() && *it == device)
    return false;
  attributes_.insert(attributes_.begin() + (it - devices_.begin()),
                     std::move(attributes));
  devices_.insert(it, device);
  return true;
}

bool DeviceSet::contains(const DeviceName &device) const {
  return std::binary_search(devices_.begin(), devices_.end(), device);
}

const DeviceAttributes *DeviceSet::find(const DeviceName &device) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device);
  if (it == devices_.end() || *it != device)
    return nullptr;
  return &attributes_[it - devices_.begin()];
}

std::vector<DeviceName> DeviceSet::matching(const DeviceName &request) const {
  std::vector<DeviceName> result;
  for (const DeviceName &device : devices_)
    if (request.matches(device))
      result.push_back(device);
  return result;
}

std::string DeviceSet::str() const {
  std::string out;
  for (const DeviceName &device : devices_) {
    if (!out.empty())
      out += ", ";
    out += device.str();
  }
  return out;
}

//===----------------------------------------------------------------------===//
// ClusterSpec (gplace/Support/ClusterSpec.h): the jobs of device names.
//===----------------------------------------------------------------------===//

std::optional<ClusterSpec> ClusterSpec::parse(std::string_view text,
                                              std::string *error) {
  auto fail = [&](std::string message) -> std::optional<ClusterSpec> {
    if (error)
      *error = std::move(message);
    return std::nullopt;
  };
  ClusterSpec spec;
  for (;;) {
    size_t comma = text.find(',');
    std::string_view entry = trim(text.substr(0, comma));
    size_t colon = entry.find(':');
    std::string_view job = entry.substr(0, colon);
    std::string_view count =
        colon == std::string_view::npos ? "" : entry.substr(colon + 1);
    int n = 0;
    auto [end, status] =
        std::from_chars(count.data(), count.data() + count.size(), n);
    if (!isValidJobName(job) || count.empty() || status != std::errc() ||
        end != count.data() + count.size() || n < 1)
      return fail("'" + std::string(entry) +
                  "' is not JOB:TASKS (a job name and a task count of at "
                  "least 1, e.g. worker:4 or ps:1,worker:3)");
    for (const auto &[other, tasks] : spec.jobs)
      if (other == job)
        return fail("job '" + std::string(job) + "' is listed twice");
    spec.jobs.emplace_back(std::string(job), n);
    if (comma == std::string_view::npos)
      return spec;
    text.remove_prefix(comma + 1);
  }
}

int ClusterSpec::numTasks() const {
  int n = 0;
  for (const auto &[job, tasks] : jobs)
    n += tasks;
  return n;
}

std::pair<std::string, int> ClusterSpec::taskOf(int rank) const {
  for (const auto &[job, tasks] : jobs) {
    if (rank < tasks)
      return {job, rank};
    rank -= tasks;
  }
  return {"", -1};
}

int ClusterSpec::rankOf(std::string_view job, int64_t task) const {
  int first = 0;
  for (const auto &[name, tasks] : jobs) {
    if (name == job)
      return task >= 0 && task < tasks ? first + static_cast<int>(task) : -1;
    first += tasks;
  }
  return -1;
}

std::string ClusterSpec::taskName(int rank) const {
  auto [job, task] = taskOf(rank);
  return "/job:" + job + "/replica:0/task:" + std::to_string(task);
}

std::string ClusterSpec::str() const {
  std::string out;
  for (const auto &[job, tasks] : jobs)
    out += (out.empty() ? "" : ",") + job + ":" + std::to_string(tasks);
  return out;
}

} // namespace gplace
