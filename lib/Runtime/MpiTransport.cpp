//===- MpiTransport.cpp - tasks as the ranks of an MPI job ----------------===//
//
// Sends copy the tensor into a buffer of their own and post MPI_Isend; a
// receive posts MPI_Irecv into the tensor and polls MPI_Test until it
// completes or the timeout passes. Every MPI call holds one mutex, so any
// number of streams may send and receive at once over an MPI that gives
// MPI_THREAD_SERIALIZED. Errors return (MPI_ERRORS_RETURN) and are reported
// with the peer's task.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/MpiTransport.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <thread>

using namespace gplace::runtime;

class MpiTransport::Impl {
public:
  int rank = 0, size = 1;
  double timeoutSeconds = 300;
  std::vector<std::string> taskNames;
  std::mutex mutex;
  struct PendingSend {
    std::vector<uint8_t> data;
    MPI_Request request = MPI_REQUEST_NULL;
    int peer = 0;
    int64_t tag = 0;
    std::chrono::steady_clock::time_point posted;
  };
  std::list<PendingSend> sends; ///< Guarded by mutex.
  /// Buffers of delivered sends, kept for the next ones (guarded by
  /// mutex): a buffer used again is already mapped, where a fresh one
  /// above glibc's mmap threshold would fault on every page (about 0.2 s
  /// for 64 MiB here).
  std::vector<std::vector<uint8_t>> spare;
  /// The communicator of each rank set that all-reduces (guarded by mutex).
  std::map<std::vector<int>, MPI_Comm> comms;
  int64_t spareBytes = 0;
  static constexpr int64_t kMaxSpareBytes = int64_t(1) << 30;

  /// A buffer of `bytes` bytes, a spare one if one is large enough; the
  /// mutex is held.
  std::vector<uint8_t> takeBuffer(int64_t bytes) {
    for (size_t i = 0; i < spare.size(); ++i)
      if (static_cast<int64_t>(spare[i].capacity()) >= bytes) {
        std::vector<uint8_t> buffer = std::move(spare[i]);
        spare.erase(spare.begin() + i);
        spareBytes -= buffer.capacity();
        buffer.resize(bytes);
        return buffer;
      }
    return std::vector<uint8_t>(bytes);
  }

  /// Polls `request` (MPI_Test under the mutex, delivered sends reaped)
  /// until it completes, into `status`: yields for the first 50 us (a
  /// sleep lasts at least the timer slack, about 50 us), then sleeps,
  /// backing off to 1 ms, so that a long wait does not take a core from
  /// the kernels. Errors (unavailable): "<what> failed: <MPI's error>", or
  /// after the timeout "<timedOut> timed out after N s
  /// (--transfer-timeout): <why>"; `onTimeout` runs first (a receive
  /// cancels itself).
  Status waitFor(MPI_Request &request, MPI_Status &status,
                 const std::string &what, const std::string &timedOut,
                 const char *why, const std::function<void()> &onTimeout) {
    auto start = std::chrono::steady_clock::now();
    auto pause = std::chrono::microseconds(50);
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        int done = 0;
        if (int code = MPI_Test(&request, &done, &status);
            code != MPI_SUCCESS)
          return Status::unavailable(what + " failed: " + mpiError(code));
        GPLACE_RETURN_IF_ERROR(reapSends());
        if (done)
          return Status::ok();
      }
      double waited = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
      if (waited > timeoutSeconds) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          onTimeout();
        }
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", timeoutSeconds);
        return Status::unavailable(timedOut + " timed out after " + seconds +
                                   " s (--transfer-timeout): " + why);
      }
      if (waited < 50e-6) {
        std::this_thread::yield();
        continue;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
  }

  /// "task A, task B and task C" for a rank set.
  std::string tasks(const std::vector<int> &ranks) const {
    std::string list;
    for (size_t i = 0; i < ranks.size(); ++i)
      list += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") +
              task(ranks[i]);
    return list;
  }

  std::string task(int peer) const {
    if (peer >= 0 && static_cast<size_t>(peer) < taskNames.size())
      return "task " + taskNames[peer];
    return "rank " + std::to_string(peer);
  }

  static std::string mpiError(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
      return "MPI error " + std::to_string(code);
    return std::string(text, length);
  }

  Status checkPeer(int peer, int64_t tag, const char *what) const {
    if (peer < 0 || peer >= size)
      return Status::invalidArgument(
          std::string(what) + " to rank " + std::to_string(peer) +
          ", but the job has " + std::to_string(size) + " ranks");
    if (tag < 0 || tag > 32767) // MPI guarantees tags up to 32767.
      return Status::invalidArgument(std::string(what) + ": tag " +
                                     std::to_string(tag) +
                                     " is outside MPI's range 0..32767");
    return Status::ok();
  }

  /// Completes the sends that are done; the mutex is held. A send not
  /// delivered within the timeout is an error (unavailable), found by
  /// whichever send, receive or flush comes next: a task that only sends
  /// to a stopped peer would otherwise queue sends without end.
  Status reapSends() {
    Status late = Status::ok();
    for (auto it = sends.begin(); it != sends.end();) {
      int done = 0;
      MPI_Status status;
      if (int code = MPI_Test(&it->request, &done, &status);
          code != MPI_SUCCESS)
        return Status::unavailable("sending tag " + std::to_string(it->tag) +
                                   " to " + task(it->peer) +
                                   " failed: " + mpiError(code));
      if (!done) {
        if (late && std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - it->posted)
                            .count() > timeoutSeconds)
          late = sendTimedOut(*it);
        ++it;
        continue;
      }
      if (spareBytes + static_cast<int64_t>(it->data.capacity()) <=
          kMaxSpareBytes) {
        spareBytes += it->data.capacity();
        spare.push_back(std::move(it->data));
      }
      it = sends.erase(it);
    }
    return late;
  }

  Status sendTimedOut(const PendingSend &send) const {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeoutSeconds);
    return Status::unavailable(
        "sending " + std::to_string(send.data.size()) + " bytes with tag " +
        std::to_string(send.tag) + " to " + task(send.peer) +
        " did not complete in " + seconds +
        " s (--transfer-timeout): that task failed or stopped");
  }
};

StatusOr<std::unique_ptr<MpiTransport>>
MpiTransport::create(int *argc, char ***argv, double timeoutSeconds) {
  // Open MPI's TCP transport moves data only while MPI is called, and the
  // waits below poll with sleeps: its own progress thread moves it in the
  // meantime (a training epoch over TCP, 2 tasks: 6.3-6.5 s without, 3.8-4.0
  // s with, 3.0 s over shared memory). A user's own setting wins; other
  // MPIs ignore the variable.
  ::setenv("OMPI_MCA_btl_tcp_progress_thread", "1", /*overwrite=*/0);
  int provided = 0;
  if (int code = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
      code != MPI_SUCCESS)
    return Status::unavailable("MPI does not initialise: " +
                               Impl::mpiError(code));
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return Status::unavailable(
        "MPI gives less than MPI_THREAD_SERIALIZED; gplace's streams send "
        "and receive from several threads");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  auto impl = std::make_unique<Impl>();
  MPI_Comm_rank(MPI_COMM_WORLD, &impl->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &impl->size);
  impl->timeoutSeconds = timeoutSeconds;
  return std::unique_ptr<MpiTransport>(new MpiTransport(std::move(impl)));
}

MpiTransport::MpiTransport(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

MpiTransport::~MpiTransport() {
  (void)flush();
  for (auto &[ranks, comm] : impl_->comms)
    MPI_Comm_free(&comm);
  MPI_Finalize();
}

void MpiTransport::setTaskNames(std::vector<std::string> names) {
  impl_->taskNames = std::move(names);
}

int MpiTransport::rank() const { return impl_->rank; }
int MpiTransport::size() const { return impl_->size; }

Status MpiTransport::send(int peer, int64_t tag, const void *data,
                          int64_t bytes) {
  GPLACE_RETURN_IF_ERROR(impl_->checkPeer(peer, tag, "send"));
  if (bytes > INT32_MAX)
    return Status::invalidArgument(
        "send to " + impl_->task(peer) + ": " + std::to_string(bytes) +
        " bytes is more than one MPI message carries (2 GiB)");
  Impl::PendingSend pending;
  pending.peer = peer;
  pending.tag = tag;
  pending.posted = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    GPLACE_RETURN_IF_ERROR(impl_->reapSends());
    pending.data = impl_->takeBuffer(bytes);
  }
  if (bytes > 0)
    std::memcpy(pending.data.data(), data, bytes);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->sends.push_back(std::move(pending));
  Impl::PendingSend &posted = impl_->sends.back();
  if (int code =
          MPI_Isend(posted.data.data(), static_cast<int>(bytes), MPI_BYTE, peer,
                    static_cast<int>(tag), MPI_COMM_WORLD, &posted.request);
      code != MPI_SUCCESS) {
    impl_->sends.pop_back();
    return Status::unavailable("sending tag " + std::to_string(tag) + " to " +
                               impl_->task(peer) +
                               " failed: " + Impl::mpiError(code));
  }
  return Status::ok();
}

Status MpiTransport::recv(int peer, int64_t tag, void *data, int64_t bytes) {
  GPLACE_RETURN_IF_ERROR(impl_->checkPeer(peer, tag, "receive"));
  if (bytes > INT32_MAX)
    return Status::invalidArgument(
        "receive from " + impl_->task(peer) + ": " + std::to_string(bytes) +
        " bytes is more than one MPI message carries (2 GiB)");
  MPI_Request request = MPI_REQUEST_NULL;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (int code = MPI_Irecv(data, static_cast<int>(bytes), MPI_BYTE, peer,
                             static_cast<int>(tag), MPI_COMM_WORLD, &request);
        code != MPI_SUCCESS)
      return Status::unavailable("receiving tag " + std::to_string(tag) +
                                 " from " + impl_->task(peer) +
                                 " failed: " + Impl::mpiError(code));
  }
  MPI_Status status;
  GPLACE_RETURN_IF_ERROR(impl_->waitFor(
      request, status,
      "receiving tag " + std::to_string(tag) + " from " + impl_->task(peer),
      "receiving " + std::to_string(bytes) + " bytes with tag " +
          std::to_string(tag) + " from " + impl_->task(peer),
      "that task failed or stopped", [&] {
        MPI_Cancel(&request);
        MPI_Request_free(&request);
      }));
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  if (count != bytes)
    return Status::unavailable("received " + std::to_string(count) +
                               " bytes with tag " + std::to_string(tag) +
                               " from " + impl_->task(peer) + ", expected " +
                               std::to_string(bytes));
  return Status::ok();
}

Status MpiTransport::flush() {
  // Each send has its own deadline (reapSends).
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      GPLACE_RETURN_IF_ERROR(impl_->reapSends());
      if (impl_->sends.empty())
        return Status::ok();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

Status MpiTransport::prepareAllReduce(const std::vector<int> &ranks) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->comms.count(ranks))
    return Status::ok();
  for (int peer : ranks)
    if (peer < 0 || peer >= impl_->size)
      return Status::invalidArgument("an all-reduce names rank " +
                                     std::to_string(peer) + ", but the job has " +
                                     std::to_string(impl_->size));
  MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &group);
  MPI_Comm comm = MPI_COMM_NULL;
  // Blocks until every rank of the set has called it: the caller's order
  // of rank sets keeps that from deadlocking.
  int code = MPI_Comm_create_group(MPI_COMM_WORLD, group, /*tag=*/0, &comm);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  if (code != MPI_SUCCESS)
    return Status::unavailable("setting up all-reduces among " +
                               impl_->tasks(ranks) +
                               " failed: " + Impl::mpiError(code));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  impl_->comms[ranks] = comm;
  return Status::ok();
}

Status MpiTransport::allReduce(const std::vector<int> &ranks, void *data,
                               int64_t count, bool f64) {
  if (count > INT32_MAX)
    return Status::invalidArgument(
        "an all-reduce of " + std::to_string(count) +
        " elements is more than one MPI collective carries (2^31 - 1)");
  MPI_Request request = MPI_REQUEST_NULL;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->comms.find(ranks);
    if (it == impl_->comms.end())
      return Status::internal("all-reduce among " + impl_->tasks(ranks) +
                              " before prepareAllReduce");
    if (int code = MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count),
                                  f64 ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM,
                                  it->second, &request);
        code != MPI_SUCCESS)
      return Status::unavailable("all-reduce among " + impl_->tasks(ranks) +
                                 " failed: " + Impl::mpiError(code));
  }
  MPI_Status status;
  // A collective cannot be cancelled: after a timeout the caller aborts
  // the job.
  return impl_->waitFor(
      request, status, "all-reduce among " + impl_->tasks(ranks),
      "all-reduce of " + std::to_string(count) + " elements among " +
          impl_->tasks(ranks),
      "one of those tasks failed or stopped", [] {});
}

StatusOr<std::vector<std::string>>
MpiTransport::allGather(const std::string &value) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  int length = static_cast<int>(value.size());
  std::vector<int> lengths(impl_->size), offsets(impl_->size);
  if (int code = MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT,
                               MPI_COMM_WORLD);
      code != MPI_SUCCESS)
    return Status::unavailable("exchanging device lists failed: " +
                               Impl::mpiError(code));
  int total = 0;
  for (int r = 0; r < impl_->size; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(total, '\0');
  if (int code = MPI_Allgatherv(value.data(), length, MPI_CHAR, all.data(),
                                lengths.data(), offsets.data(), MPI_CHAR,
                                MPI_COMM_WORLD);
      code != MPI_SUCCESS)
    return Status::unavailable("exchanging device lists failed: " +
                               Impl::mpiError(code));
  std::vector<std::string> values;
  for (int r = 0; r < impl_->size; ++r)
    values.push_back(all.substr(offsets[r], lengths[r]));
  return values;
}

void MpiTransport::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code); // MPI_Abort does not return; in case it does.
}
