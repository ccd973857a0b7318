//===- ClusterSpec.cpp - the jobs and tasks of a cluster ------------------===//

#include "gplace/Support/ClusterSpec.h"

#include <cctype>
#include <charconv>

using namespace gplace;

namespace {
bool isJobName(std::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name.front())))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}
} // namespace

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
    if (!isJobName(job) || count.empty() || status != std::errc() ||
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
