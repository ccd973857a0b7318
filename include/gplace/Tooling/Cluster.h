//===- Cluster.h - a cluster of processes, each a task -----------*- C++ -*-===//
//
// What gplace-run does under mpirun (docs/distributed.md) besides reading
// --cluster (gplace/Support/ClusterSpec.h): the exchange of the tasks'
// device lists, and each task's part of the plan every task compiles.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_CLUSTER_H
#define GPLACE_TOOLING_CLUSTER_H

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Support/ClusterSpec.h"
#include "gplace/Support/DeviceName.h"

#include <string>
#include <vector>

namespace gplace::tooling {

/// The devices of one task as text for the exchange between tasks (JSON:
/// each device's full name, memory limit in bytes and description).
std::string serializeDevices(const DeviceSet &devices);

/// The whole cluster's devices: the union of every task's serialized list.
/// Errors (internal): a list that does not parse, a device listed twice.
runtime::StatusOr<DeviceSet>
mergeDevices(const std::vector<std::string> &serialized);

/// This task's part of `plan`, which every task compiled for the whole
/// cluster and --gplace-partition-tasks split: the devices `local` has, the
/// steps on them, their constants and variables; buffers on other tasks'
/// devices are never in this task's memory (BufferDesc::Kind::Register),
/// and results on other tasks are dropped (the chief's part returns every
/// result). Errors (internal): a local step that reads another task's
/// buffer or waits for its event (the plan was not partitioned).
runtime::StatusOr<runtime::Plan> localPlan(const runtime::Plan &plan,
                                           const runtime::DeviceManager &local);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_CLUSTER_H
