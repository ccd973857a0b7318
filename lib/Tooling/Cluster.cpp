//===- Cluster.cpp - a cluster of processes, each a task -------------------===//

#include "gplace/Tooling/Cluster.h"
#include "gplace/Runtime/Threads.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <set>

#include <unistd.h>

#ifdef GPLACE_HAVE_MPI
#include "gplace/Runtime/MpiTransport.h"
#endif


using namespace gplace;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

std::string tooling::serializeDevices(const DeviceSet &devices) {
  llvm::json::Array list;
  for (size_t i = 0; i < devices.devices().size(); ++i)
    list.push_back(llvm::json::Object{
        {"name", devices.devices()[i].str()},
        {"memory_limit", devices.attributes(i).memoryLimit},
        {"description", devices.attributes(i).description}});
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(list));
  return out;
}

rt::StatusOr<DeviceSet>
tooling::mergeDevices(const std::vector<std::string> &serialized) {
  DeviceSet all;
  for (const std::string &text : serialized) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
    if (!value)
      return rt::Status::internal("a task's device list does not parse: " +
                                  llvm::toString(value.takeError()));
    const llvm::json::Array *list = value->getAsArray();
    if (!list)
      return rt::Status::internal("a task's device list is not a list");
    for (const llvm::json::Value &entry : *list) {
      const llvm::json::Object *device = entry.getAsObject();
      std::optional<llvm::StringRef> name =
          device ? device->getString("name") : std::nullopt;
      std::optional<int64_t> limit =
          device ? device->getInteger("memory_limit") : std::nullopt;
      std::optional<llvm::StringRef> description =
          device ? device->getString("description") : std::nullopt;
      std::optional<DeviceName> parsed =
          name ? DeviceName::parse(name->str()) : std::nullopt;
      if (!parsed || !limit || !description)
        return rt::Status::internal("a task's device list has a bad entry");
      DeviceAttributes attributes;
      attributes.memoryLimit = *limit;
      attributes.description = description->str();
      if (!all.add(*parsed, std::move(attributes)))
        return rt::Status::internal("device " + name->str() +
                                    " is listed by two tasks");
    }
  }
  return all;
}

rt::StatusOr<rt::Plan> tooling::localPlan(const rt::Plan &plan,
                                          const rt::DeviceManager &local) {
  rt::Plan out;
  std::vector<int> deviceIndex(plan.devices.size(), -1);
  for (size_t d = 0; d < plan.devices.size(); ++d)
    if (local.find(plan.devices[d].name)) {
      deviceIndex[d] = static_cast<int>(out.devices.size());
      out.devices.push_back(plan.devices[d]);
    }
  std::vector<int> persistentIndex(plan.persistents.size(), -1);
  for (size_t p = 0; p < plan.persistents.size(); ++p) {
    const rt::PersistentDesc &desc = plan.persistents[p];
    if (deviceIndex[desc.device] < 0)
      continue;
    persistentIndex[p] = static_cast<int>(out.persistents.size());
    out.persistents.push_back(desc);
    out.persistents.back().device = deviceIndex[desc.device];
  }
  // Buffers keep their indices; another task's are never in memory here.
  std::vector<bool> isLocal(plan.buffers.size(), true);
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    rt::BufferDesc buffer = plan.buffers[b];
    if (buffer.kind != rt::BufferDesc::Kind::Input) {
      int device = deviceIndex[buffer.device];
      if (device < 0) {
        isLocal[b] = false;
        buffer.kind = rt::BufferDesc::Kind::Register;
        buffer.device = -1;
      } else {
        buffer.device = device;
        if (buffer.kind == rt::BufferDesc::Kind::Persistent)
          buffer.index = persistentIndex[buffer.index];
      }
    }
    out.buffers.push_back(std::move(buffer));
  }
  out.inputs = plan.inputs;
  for (int result : plan.results)
    if (isLocal[result])
      out.results.push_back(result);
  std::vector<bool> localEvent(plan.numEvents, false);
  for (const rt::Step &step : plan.steps)
    if (step.kind == rt::Step::Kind::Record && deviceIndex[step.device] >= 0)
      localEvent[step.event] = true;
  for (const rt::Step &step : plan.steps) {
    if (deviceIndex[step.device] < 0)
      continue;
    auto notPartitioned = [&](const std::string &what) {
      return rt::Status::internal(
          "step '" + step.label + "' on " + plan.devices[step.device].name +
          " " + what + " another task's device: the plan is not partitioned "
          "by task (--gplace-partition-tasks)");
    };
    for (int buffer : step.inputs)
      if (!isLocal[buffer])
        return notPartitioned("reads a buffer of");
    for (int buffer : step.outputs)
      if (!isLocal[buffer])
        return notPartitioned("writes a buffer of");
    if (step.kind == rt::Step::Kind::Wait && !localEvent[step.event])
      return notPartitioned("waits for an event of");
    out.steps.push_back(step);
    out.steps.back().device = deviceIndex[step.device];
  }
  out.numEvents = plan.numEvents;
  return out;
}

//===----------------------------------------------------------------------===//
// Flags and start-up
//===----------------------------------------------------------------------===//

std::string tooling::bindingWarning(const rt::Plan &local, llvm::StringRef task,
                                    int affinityCpus, int parentCpus) {
  std::set<std::pair<int, int>> streams;
  for (const rt::Step &step : local.steps)
    streams.insert({step.device, step.stream});
  if (affinityCpus <= 0 || affinityCpus >= parentCpus ||
      static_cast<int>(streams.size()) <= affinityCpus)
    return "";
  auto cpus = [](int n) {
    return std::to_string(n) + (n == 1 ? " CPU" : " CPUs");
  };
  return "task " + task.str() + " may run on " + cpus(affinityCpus) +
         " and the MPI daemon that started it on " +
         std::to_string(parentCpus) +
         " (a binding asked of mpirun, or taskset), and its part of "
         "the plan has " +
         std::to_string(streams.size()) +
         " streams, one thread each, which share them; start it with "
         "`mpirun --bind-to none` (docs/distributed.md)";
}

bool tooling::adoptsDaemonAffinity(
    llvm::function_ref<const char *(const char *)> env,
    const std::vector<unsigned long> &own,
    const std::vector<unsigned long> &daemon) {
  const char *bound = env("OMPI_MCA_orte_bound_at_launch");
  const char *size = env("OMPI_COMM_WORLD_SIZE");
  int ranks = 0;
  if (!bound || llvm::StringRef(bound) != "1" || !size ||
      llvm::StringRef(size).getAsInteger(10, ranks) || ranks < 1 || ranks > 2)
    return false;
  for (const char *asked :
       {"OMPI_MCA_hwloc_base_binding_policy",
        "OMPI_MCA_hwloc_base_bind_to_core",
        "OMPI_MCA_hwloc_base_bind_to_socket", "OMPI_MCA_hwloc_base_cpu_list",
        "OMPI_MCA_hwloc_base_cpu_set", "OMPI_MCA_hwloc_base_report_bindings",
        "OMPI_MCA_rmaps_base_mapping_policy",
        "OMPI_MCA_rmaps_base_cpus_per_rank", "OMPI_MCA_rmaps_base_n_pernode",
        "OMPI_MCA_rmaps_base_n_persocket", "OMPI_MCA_rmaps_ppr_n_pernode",
        "OMPI_MCA_rmaps_ppr_n_persocket", "OMPI_MCA_rmaps_ppr_pattern",
        "OMPI_MCA_orte_rankfile", "OMPI_MCA_rmaps_rank_file_path"})
    if (env(asked))
      return false;
  // own strictly inside daemon.
  if (own.empty() || daemon.empty())
    return false;
  bool smaller = false;
  for (size_t i = 0; i < std::max(own.size(), daemon.size()); ++i) {
    unsigned long a = i < own.size() ? own[i] : 0;
    unsigned long b = i < daemon.size() ? daemon[i] : 0;
    if (a & ~b)
      return false;
    smaller |= a != b;
  }
  return smaller;
}

namespace {
/// What takeAdoptedAffinityRecord found: the CPUs before and after the
/// move that started this image, until adoptedAffinityNote says it.
std::optional<std::pair<int, int>> adoptedAffinity;
constexpr const char *kAdoptedRecord = "GPLACE_ADOPTED_AFFINITY";
} // namespace

bool tooling::takeAdoptedAffinityRecord() {
  const char *record = std::getenv(kAdoptedRecord);
  if (!record)
    return false;
  llvm::SmallVector<llvm::StringRef, 3> parts;
  llvm::StringRef(record).split(parts, ',');
  long pid = 0;
  int before = 0, now = 0;
  bool ours = parts.size() == 3 && !parts[0].getAsInteger(10, pid) &&
              !parts[1].getAsInteger(10, before) &&
              !parts[2].getAsInteger(10, now) && pid == getpid();
  ::unsetenv(kAdoptedRecord);
  if (!ours)
    return false; // Another process's (inherited): not this one's move.
  adoptedAffinity = std::pair(before, now);
  return true;
}

bool tooling::adoptDaemonAffinityBeforeExec() {
  std::vector<unsigned long> own = rt::affinityMask();
  std::vector<unsigned long> daemon =
      rt::affinityMask(static_cast<int>(getppid()));
  if (!adoptsDaemonAffinity(std::getenv, own, daemon))
    return false;
  int before = rt::affinityCpuCount();
  // The kernel intersects the mask with the process's cpuset: moved only
  // where that leaves more CPUs.
  if (!rt::setThreadAffinity(daemon))
    return false;
  int now = rt::affinityCpuCount();
  if (now <= before) {
    rt::setThreadAffinity(own);
    return false;
  }
  std::string record = std::to_string(getpid()) + "," + std::to_string(before) +
                       "," + std::to_string(now);
  ::setenv(kAdoptedRecord, record.c_str(), 1);
  return true;
}

std::string tooling::adoptedAffinityNote(llvm::StringRef process) {
  if (!adoptedAffinity)
    return "";
  auto [before, now] = *adoptedAffinity;
  adoptedAffinity.reset();
  auto cpus = [](int n) {
    return std::to_string(n) + (n == 1 ? " CPU" : " CPUs");
  };
  return process.str() + " was bound to " + cpus(before) +
         " by mpirun's default binding; it runs on the " + cpus(now) +
         " of the MPI daemon that started it, as with `mpirun --bind-to "
         "none` (a binding asked of mpirun is kept; docs/distributed.md)";
}

const llvm::cl::OptionCategory &tooling::clusterCategory() {
  static llvm::cl::OptionCategory category("Cluster options "
                                           "(docs/distributed.md)");
  return category;
}

namespace {
namespace cl = llvm::cl;
/// The cluster flags; constructed by registerClusterFlags.
struct ClusterFlags {
  cl::OptionCategory &category =
      const_cast<cl::OptionCategory &>(clusterCategory());
  cl::opt<std::string> spec{
      "cluster",
      cl::desc("Run as one task of a cluster launched by mpirun: the jobs and "
               "their task counts in rank order, TensorFlow's ClusterSpec "
               "(worker:4, ps:1,worker:3); docs/distributed.md"),
      cl::value_desc("JOB:TASKS,..."), cl::init(""), cl::cat(category)};
  cl::opt<double> transferTimeout{
      "transfer-timeout",
      cl::desc("With --cluster: seconds a task waits for a tensor from "
               "another task, or for the tasks' set-up exchange, before "
               "failing"),
      cl::init(300), cl::cat(category)};
};

ClusterFlags &clusterFlags() {
  static ClusterFlags *flags = new ClusterFlags; // Lives as long as LLVM's
                                                 // parser refers to it.
  return *flags;
}
} // namespace

void tooling::registerClusterFlags() { (void)clusterFlags(); }

std::optional<DeviceName> ClusterTask::task() const {
  if (!spec)
    return std::nullopt;
  auto [job, number] = spec->taskOf(rank);
  DeviceName name;
  name.job = job;
  name.task = number;
  return name;
}

int ClusterTask::end(int code) {
  if (transport && transport->size() > 1) {
    llvm::errs().flush();
    transport->abort(code);
  }
  return code;
}

/// Prints adoptedAffinityNote(process), if any, in one write (every task's
/// stderr is mpirun's).
static void sayAdoptedAffinity(const std::string &process) {
  std::string note = adoptedAffinityNote(process);
  if (!note.empty())
    llvm::errs() << ("gplace-run: note: " + note + "\n");
}

rt::StatusOr<ClusterTask> tooling::startClusterFromFlags(int *argc,
                                                         char ***argv) {
  ClusterFlags &flags = clusterFlags();
  // Written so that NaN fails too; a week at most (a larger count of
  // seconds would overflow the clock's arithmetic).
  if (!(flags.transferTimeout > 0 && flags.transferTimeout <= 7 * 24 * 3600))
    return rt::Status::invalidArgument(
        "--transfer-timeout must be more than 0 and at most 604800 seconds "
        "(a week)");
  ClusterTask cluster;
  if (flags.spec.getNumOccurrences() && flags.spec.empty())
    return rt::Status::invalidArgument(
        "--cluster needs the jobs and their task counts (worker:4)");
  if (flags.spec.empty()) {
    // Started by mpirun without --cluster: a process of its own.
    if (const char *rank = std::getenv("OMPI_COMM_WORLD_RANK"))
      sayAdoptedAffinity("MPI rank " + std::string(rank));
    // A flag that applies to a cluster alone is an error without one.
    if (flags.transferTimeout.getNumOccurrences())
      return rt::Status::invalidArgument(
          "--transfer-timeout applies with --cluster");
    return cluster;
  }
  std::string error;
  std::optional<ClusterSpec> spec = ClusterSpec::parse(flags.spec, &error);
  if (!spec)
    return rt::Status::invalidArgument("--cluster: " + error);
#ifdef GPLACE_HAVE_MPI
  rt::StatusOr<std::unique_ptr<rt::MpiTransport>> mpi =
      rt::MpiTransport::create(argc, argv, flags.transferTimeout);
  if (!mpi)
    return mpi.status();
  int size = (*mpi)->size();
  if (size != spec->numTasks()) {
    return rt::Status::invalidArgument(
        "--cluster=" + flags.spec + " names " +
        std::to_string(spec->numTasks()) + " tasks, but mpirun started " +
        std::to_string(size) + " process" + (size == 1 ? "" : "es") +
        " (mpirun -np " + std::to_string(spec->numTasks()) +
        " gplace-run ...)");
  }
  std::vector<std::string> names;
  for (int r = 0; r < spec->numTasks(); ++r)
    names.push_back(spec->taskName(r));
  (*mpi)->setTaskNames(std::move(names));
  cluster.rank = (*mpi)->rank();
  cluster.transport = std::move(*mpi);
  cluster.spec = std::move(*spec);
  sayAdoptedAffinity("task " + cluster.task()->str());
  return cluster;
#else
  (void)argc;
  (void)argv;
  return rt::Status::invalidArgument(
      "--cluster needs MPI, and this gplace-run was built without it "
      "(install libopenmpi-dev and configure again)");
#endif
}

rt::StatusOr<DeviceSet> tooling::clusterDevices(ClusterTask &cluster,
                                                Machine &machine) {
  if (!cluster.spec)
    return machine.deviceSet();
  auto [job, task] = cluster.spec->taskOf(cluster.rank);
  machine.devices().setTask(job, task);
  rt::StatusOr<std::vector<std::string>> gathered =
      cluster.transport->allGather(serializeDevices(machine.deviceSet()));
  if (!gathered)
    return gathered.status();
  return mergeDevices(*gathered);
}

rt::Status tooling::checkSameProgram(ClusterTask &cluster,
                                     mlir::ModuleOp module) {
  if (!cluster.spec || !cluster.transport)
    return rt::Status::ok();
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
  std::string hash = llvm::utohexstr(llvm::xxh3_64bits(text));
  rt::StatusOr<std::vector<std::string>> hashes =
      cluster.transport->allGather(hash);
  if (!hashes)
    return hashes.status();
  std::vector<std::string> differ;
  for (size_t r = 1; r < hashes->size(); ++r)
    if ((*hashes)[r] != (*hashes)[0])
      differ.push_back(cluster.spec->taskName(static_cast<int>(r)));
  if (differ.empty())
    return rt::Status::ok();
  std::string names;
  for (const std::string &name : differ)
    names += (names.empty() ? "" : ", ") + name;
  return rt::Status::invalidArgument(
      "the tasks of a cluster must run the same program with the same "
      "options, but " + names + (differ.size() == 1 ? " runs" : " run") +
      " another than the chief, " + cluster.spec->taskName(0) +
      " (give every task the same file and flags)");
}
