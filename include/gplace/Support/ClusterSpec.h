//===- ClusterSpec.h - the jobs and tasks of a cluster ----------*- C++ -*-===//
//
// TensorFlow's ClusterSpec as one string, `ps:1,worker:3`: the jobs and their
// task counts, in rank order (rank 0 is ps task 0, ranks 1..3 worker tasks
// 0..2). gplace-run's --cluster and --gplace-partition-tasks' `cluster`
// option both read it here (implemented with the device names, in
// DeviceName.cpp, whose job-name rule it shares). Plain C++17.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_CLUSTERSPEC_H
#define GPLACE_SUPPORT_CLUSTERSPEC_H

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gplace {

struct ClusterSpec {
  std::vector<std::pair<std::string, int>> jobs;

  /// Parses `JOB:COUNT[,JOB:COUNT...]`. On failure returns std::nullopt and,
  /// when `error` is given, stores a message naming the entry ("'worker' is
  /// not JOB:TASKS (...)", "job 'ps' is listed twice"): an empty entry, a
  /// job name outside [a-zA-Z][_a-zA-Z0-9]*, a count below 1, a job listed
  /// twice.
  static std::optional<ClusterSpec> parse(std::string_view text,
                                          std::string *error = nullptr);

  /// The number of tasks (the ranks the job needs).
  int numTasks() const;
  /// Rank `rank`'s job and task number; rank < numTasks().
  std::pair<std::string, int> taskOf(int rank) const;
  /// The rank of task `task` of job `job`, or -1 if the cluster lacks it.
  int rankOf(std::string_view job, int64_t task) const;
  /// "/job:worker/replica:0/task:2", rank's task as messages name it.
  std::string taskName(int rank) const;
  /// The canonical text (`ps:1,worker:3`).
  std::string str() const;
};

} // namespace gplace

#endif // GPLACE_SUPPORT_CLUSTERSPEC_H
