//===- MpiTransport.cpp - tasks as the ranks of an MPI job ----------------===//
//
// One progress thread per process drives MPI, as Horovod's background
// thread does: it posts and tests every collective, and tests every send
// and receive handed to it. The executor's streams wait on a condition
// variable for what they handed it:
//   - a send copies the tensor into a buffer of its own (a spare one when
//     one is large enough). Under MPI_THREAD_MULTIPLE the stream posts
//     MPI_Isend itself and tests it once (a small message over shared
//     memory is delivered then); one not yet delivered, or any send under
//     MPI_THREAD_SERIALIZED (where the progress thread posts it), is
//     handed to the progress thread, which keeps the buffer until MPI has
//     delivered it;
//   - a receive, under MPI_THREAD_MULTIPLE, posts MPI_Irecv into the
//     tensor itself and tests it (MPI_Test, yielding between tests) for up
//     to recvSpin() (GPLACE_MPI_RECV_SPIN_US, 100 us by default), which
//     completes a step's chain of small transfers over shared memory with
//     no hand-off between threads; one not complete by then (or any
//     receive under MPI_THREAD_SERIALIZED, where the progress thread posts
//     it) is handed to the progress thread, and the stream waits, at most
//     the timeout, for it to see it complete (then cancels it);
//   - an all-reduce queues an MPI_Iallreduce on its rank set's
//     communicator; startAllReduce() returns once it is queued, so that the
//     next all-reduce can be queued while this one is in flight;
//   - set-up (MPI_Comm_create_group, MPI_Allgather) runs on the progress
//     thread too, blocking it (nothing else is in flight then); the caller
//     waits for the exchange of device lists and programs at most the
//     timeout, so that a task that stopped or died before it fails the
//     job rather than holding the others for ever.
// With requests in flight the progress thread tests them all
// (MPI_Testsome), which is what moves Open MPI's TCP transport and its
// non-blocking collectives along, yielding the core between tests; after
// kSpin without any request completing or being posted it sleeps instead,
// backing off from 50 us to 1 ms, until a completion or a new operation
// (which wakes it at once). With nothing in flight (between runs) it
// blocks on the condition variable and takes no CPU. Errors return
// (MPI_ERRORS_RETURN) and are reported with the peer's task.
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/MpiTransport.h"

#include <mpi.h>

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

using namespace gplace::runtime;

namespace {

using Clock = std::chrono::steady_clock;

/// How long the progress thread keeps testing (and yielding the core)
/// after the last request completed or was posted, before it sleeps
/// between tests: longer than the gaps between a training step's messages
/// (2 tasks x 2 emulated GPUs over TCP, Fashion-MNIST's MLP: 3 ms a step
/// with 2 ms, 7 ms with 0.5 ms, where the waits fell into the sleeps).
constexpr auto kSpin = std::chrono::microseconds(2000);

/// How long a stream tests its own receive (under MPI_THREAD_MULTIPLE)
/// before handing it to the progress thread and sleeping on the condition
/// variable.
std::chrono::microseconds recvSpin() {
  static const std::chrono::microseconds spin = [] {
    const char *text = std::getenv("GPLACE_MPI_RECV_SPIN_US");
    return std::chrono::microseconds(text ? std::atoi(text) : 100);
  }();
  return spin;
}

/// One send, receive, all-reduce or set-up call (handed to the progress
/// thread, or a send or receive its stream posted).
struct Op {
  enum Kind { Send, Recv, AllReduce, Call } kind = Call;
  int peer = 0;
  int64_t tag = 0;
  void *data = nullptr;
  int64_t count = 0; ///< Bytes (send, receive) or elements (all-reduce).
  bool f64 = false;
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<uint8_t> buffer;     ///< A send's copy of its tensor.
  std::function<int()> call;       ///< Set-up run on the progress thread.
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Status status{};
  Clock::time_point posted;
  /// Posted by the stream (under MPI_THREAD_MULTIPLE): the progress thread
  /// only tests it.
  bool preposted = false;
  bool lateReported = false; ///< Progress thread only.
  // Guarded by the transport's mutex:
  int code = MPI_SUCCESS; ///< MPI's error, posting or completing.
  bool done = false;
  bool cancel = false; ///< A receive that timed out: cancel and free it.
};
using OpPtr = std::shared_ptr<Op>;

} // namespace

class MpiTransport::Impl {
public:
  int rank = 0, size = 1;
  double timeoutSeconds = 300;
  std::vector<std::string> taskNames;
  /// MPI gives MPI_THREAD_MULTIPLE: streams post and test their own sends
  /// and receives while the progress thread is in MPI.
  bool streamsCallMpi = false;

  std::mutex mutex;
  /// Wakes the progress thread: a new operation, a cancel, or stopping.
  std::condition_variable work;
  /// Wakes the streams: an operation finished.
  std::condition_variable finished;
  std::deque<OpPtr> queue;       ///< Not yet posted (guarded by mutex).
  std::vector<OpPtr> cancels;    ///< Receives to cancel (guarded by mutex).
  bool stopping = false;         ///< Guarded by mutex.
  int64_t sendsInFlight = 0;     ///< Queued or posted sends (mutex).
  /// The first send that failed or was not delivered within the timeout
  /// (guarded by mutex): every later send, receive and flush returns it.
  Status late = Status::ok();
  /// All-reduces started and not yet finished, by handle (mutex).
  std::map<int64_t, OpPtr> allReduces;
  int64_t nextHandle = 1;
  /// Buffers of delivered sends, kept for the next ones (guarded by
  /// mutex): a buffer used again is already mapped, where a fresh one
  /// above glibc's mmap threshold would fault on every page (about 0.2 s
  /// for 64 MiB here).
  std::vector<std::vector<uint8_t>> spare;
  int64_t spareBytes = 0;
  static constexpr int64_t kMaxSpareBytes = int64_t(1) << 30;
  /// The communicator of each rank set that all-reduces (progress thread,
  /// then the destructor).
  std::map<std::vector<int>, MPI_Comm> comms;

  std::vector<OpPtr> active; ///< Posted requests (progress thread only).
  std::thread thread;

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

  /// Queues `op` for the progress thread and wakes it.
  void submit(const OpPtr &op) {
    std::lock_guard<std::mutex> lock(mutex);
    if (op->kind == Op::Send)
      ++sendsInFlight;
    queue.push_back(op);
    work.notify_one();
  }

  /// Waits until `op` is done, at most `seconds` (negative: no limit).
  /// Returns false on timeout.
  bool waitDone(const OpPtr &op, double seconds) {
    std::unique_lock<std::mutex> lock(mutex);
    if (seconds < 0) {
      finished.wait(lock, [&] { return op->done; });
      return true;
    }
    return finished.wait_for(lock, std::chrono::duration<double>(seconds),
                             [&] { return op->done; });
  }

  /// Runs `call` (MPI set-up) on the progress thread and returns its code;
  /// waits at most `seconds` (negative: no limit), and returns nullopt
  /// when that passed first (`call` may still run: what it touches must
  /// outlive the wait; the caller ends the job).
  std::optional<int> runOnProgressThread(std::function<int()> call,
                                         double seconds = -1) {
    auto op = std::make_shared<Op>();
    op->call = std::move(call);
    submit(op);
    if (!waitDone(op, seconds))
      return std::nullopt;
    std::lock_guard<std::mutex> lock(mutex);
    return op->code;
  }

  // --- The progress thread ---------------------------------------------

  /// Posts `op` (its MPI call); false (and op->code set) when MPI failed.
  bool post(Op &op) {
    op.posted = Clock::now();
    switch (op.kind) {
    case Op::Send:
      op.code = MPI_Isend(op.buffer.data(), static_cast<int>(op.count),
                          MPI_BYTE, op.peer, static_cast<int>(op.tag),
                          MPI_COMM_WORLD, &op.request);
      break;
    case Op::Recv:
      op.code = MPI_Irecv(op.data, static_cast<int>(op.count), MPI_BYTE,
                          op.peer, static_cast<int>(op.tag), MPI_COMM_WORLD,
                          &op.request);
      break;
    case Op::AllReduce:
      op.code = MPI_Iallreduce(MPI_IN_PLACE, op.data,
                               static_cast<int>(op.count),
                               op.f64 ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM,
                               op.comm, &op.request);
      break;
    case Op::Call:
      op.code = op.call();
      return false; // Done at once.
    }
    return op.code == MPI_SUCCESS;
  }

  /// Marks `op` done with `code`; a delivered send's buffer becomes a
  /// spare, a failed one sets `late`. The mutex is held.
  void complete(Op &op, int code) {
    op.code = code;
    op.done = true;
    if (op.kind != Op::Send)
      return;
    --sendsInFlight;
    if (code != MPI_SUCCESS) {
      if (late)
        late = Status::unavailable("sending tag " + std::to_string(op.tag) +
                                   " to " + task(op.peer) +
                                   " failed: " + mpiError(code));
    } else if (spareBytes + static_cast<int64_t>(op.buffer.capacity()) <=
               kMaxSpareBytes) {
      spareBytes += op.buffer.capacity();
      spare.push_back(std::move(op.buffer));
    }
  }

  void progress() {
    std::vector<OpPtr> posting, cancelling;
    std::vector<MPI_Request> requests;
    std::vector<int> indices;
    std::vector<MPI_Status> statuses;
    Clock::time_point lastEvent = Clock::now();
    auto pause = std::chrono::microseconds(50);
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        auto wanted = [&] {
          return !queue.empty() || !cancels.empty() || stopping;
        };
        if (active.empty()) {
          // Idle: block, no polling.
          work.wait(lock, wanted);
        } else if (!wanted() && Clock::now() - lastEvent > kSpin) {
          // Requests long in flight: sleep between tests, woken at once by
          // a new operation.
          work.wait_for(lock, pause, wanted);
          pause = std::min(pause * 2, std::chrono::microseconds(1000));
        }
        if (stopping && queue.empty())
          return;
        posting.assign(queue.begin(), queue.end());
        queue.clear();
        cancelling.swap(cancels);
        cancels.clear();
      }
      if (!posting.empty() || !cancelling.empty()) {
        lastEvent = Clock::now();
        pause = std::chrono::microseconds(50);
      }
      for (OpPtr &op : posting) {
        if (op->preposted || post(*op)) {
          active.push_back(std::move(op));
          continue;
        }
        std::lock_guard<std::mutex> lock(mutex);
        complete(*op, op->code);
        finished.notify_all();
      }
      posting.clear();
      for (OpPtr &op : cancelling) {
        auto it = std::find(active.begin(), active.end(), op);
        if (it != active.end()) {
          MPI_Cancel(&op->request);
          MPI_Request_free(&op->request);
          active.erase(it);
        }
        std::lock_guard<std::mutex> lock(mutex);
        complete(*op, MPI_ERR_PENDING);
        finished.notify_all();
      }
      cancelling.clear();
      if (active.empty())
        continue;
      testActive(requests, indices, statuses, lastEvent, pause);
      if (Clock::now() - lastEvent <= kSpin)
        sched_yield();
    }
  }

  /// MPI_Testsome over the active requests; completes those done.
  void testActive(std::vector<MPI_Request> &requests, std::vector<int> &indices,
                  std::vector<MPI_Status> &statuses,
                  Clock::time_point &lastEvent,
                  std::chrono::microseconds &pause) {
    size_t n = active.size();
    requests.resize(n);
    indices.resize(n);
    statuses.resize(n);
    for (size_t i = 0; i < n; ++i)
      requests[i] = active[i]->request;
    int outcount = 0;
    int code = MPI_Testsome(static_cast<int>(n), requests.data(), &outcount,
                            indices.data(), statuses.data());
    if (code != MPI_SUCCESS && code != MPI_ERR_IN_STATUS) {
      // Every request failed with it.
      std::lock_guard<std::mutex> lock(mutex);
      for (OpPtr &op : active)
        complete(*op, code);
      active.clear();
      finished.notify_all();
      return;
    }
    Clock::time_point now = Clock::now();
    if (outcount > 0 && outcount != MPI_UNDEFINED) {
      std::lock_guard<std::mutex> lock(mutex);
      for (int k = 0; k < outcount; ++k) {
        Op &op = *active[indices[k]];
        op.request = MPI_REQUEST_NULL;
        op.status = statuses[k];
        complete(op, code == MPI_ERR_IN_STATUS ? statuses[k].MPI_ERROR
                                               : MPI_SUCCESS);
      }
      finished.notify_all();
      lastEvent = now;
      pause = std::chrono::microseconds(50);
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i)
        if (!active[i]->done)
          active[kept++] = std::move(active[i]);
      active.resize(kept);
    }
    // A send not delivered within the timeout is an error, found by
    // whichever send, receive or flush comes next: a task that only sends
    // to a stopped peer would otherwise queue sends without end.
    for (OpPtr &op : active)
      if (op->kind == Op::Send && !op->lateReported &&
          std::chrono::duration<double>(now - op->posted).count() >
              timeoutSeconds) {
        op->lateReported = true;
        std::lock_guard<std::mutex> lock(mutex);
        if (late)
          late = sendTimedOut(*op);
        finished.notify_all();
      }
  }

  // --- Messages ----------------------------------------------------------

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

  std::string seconds() const {
    char text[32];
    std::snprintf(text, sizeof text, "%g", timeoutSeconds);
    return text;
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

  Status sendTimedOut(const Op &send) const {
    return Status::unavailable(
        "sending " + std::to_string(send.count) + " bytes with tag " +
        std::to_string(send.tag) + " to " + task(send.peer) +
        " did not complete in " + seconds() +
        " s (--transfer-timeout): that task failed or stopped");
  }

  Status lateStatus() {
    std::lock_guard<std::mutex> lock(mutex);
    return late;
  }
};

StatusOr<std::unique_ptr<MpiTransport>>
MpiTransport::create(int *argc, char ***argv, double timeoutSeconds) {
  // Open MPI's TCP transport moves data only while MPI is called; its own
  // progress thread (blocked in the kernel until a socket is ready) moves
  // it while ours sleeps between tests. A user's own setting wins; other
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
        "MPI gives less than MPI_THREAD_SERIALIZED; gplace's progress "
        "thread makes its MPI calls, not the main thread");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  auto impl = std::make_unique<Impl>();
  MPI_Comm_rank(MPI_COMM_WORLD, &impl->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &impl->size);
  impl->timeoutSeconds = timeoutSeconds;
  impl->streamsCallMpi = provided >= MPI_THREAD_MULTIPLE;
  Impl *raw = impl.get();
  impl->thread = std::thread([raw] { raw->progress(); });
  return std::unique_ptr<MpiTransport>(new MpiTransport(std::move(impl)));
}

MpiTransport::MpiTransport(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

MpiTransport::~MpiTransport() {
  (void)flush();
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
    impl_->work.notify_one();
  }
  impl_->thread.join();
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
  auto op = std::make_shared<Op>();
  op->kind = Op::Send;
  op->peer = peer;
  op->tag = tag;
  op->count = bytes;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    GPLACE_RETURN_IF_ERROR(impl_->late);
    op->buffer = impl_->takeBuffer(bytes);
  }
  if (bytes > 0)
    std::memcpy(op->buffer.data(), data, bytes);
  // Posting errors, like delivery errors, come back from the next send,
  // receive or flush (late).
  if (impl_->streamsCallMpi) {
    op->posted = Clock::now();
    int code =
        MPI_Isend(op->buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer,
                  static_cast<int>(tag), MPI_COMM_WORLD, &op->request);
    int done = 0;
    if (code == MPI_SUCCESS)
      code = MPI_Test(&op->request, &done, &op->status);
    if (code != MPI_SUCCESS || done) {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      ++impl_->sendsInFlight; // complete() counts it out.
      impl_->complete(*op, code);
      return Status::ok();
    }
    op->preposted = true; // The progress thread tests it until delivered.
  }
  impl_->submit(op);
  return Status::ok();
}

Status MpiTransport::recv(int peer, int64_t tag, void *data, int64_t bytes) {
  GPLACE_RETURN_IF_ERROR(impl_->checkPeer(peer, tag, "receive"));
  if (bytes > INT32_MAX)
    return Status::invalidArgument(
        "receive from " + impl_->task(peer) + ": " + std::to_string(bytes) +
        " bytes is more than one MPI message carries (2 GiB)");
  GPLACE_RETURN_IF_ERROR(impl_->lateStatus());
  auto op = std::make_shared<Op>();
  op->kind = Op::Recv;
  op->peer = peer;
  op->tag = tag;
  op->data = data;
  op->count = bytes;
  if (impl_->streamsCallMpi) {
    int code = MPI_Irecv(data, static_cast<int>(bytes), MPI_BYTE, peer,
                         static_cast<int>(tag), MPI_COMM_WORLD, &op->request);
    op->posted = Clock::now();
    Clock::time_point until = op->posted + recvSpin();
    for (;;) {
      int done = 0;
      if (code == MPI_SUCCESS)
        code = MPI_Test(&op->request, &done, &op->status);
      if (code != MPI_SUCCESS || done) {
        // Only this thread has seen `op`.
        op->code = code;
        op->done = true;
        break;
      }
      if (Clock::now() >= until) {
        op->preposted = true;
        impl_->submit(op);
        break;
      }
      sched_yield();
    }
  } else {
    impl_->submit(op);
  }
  std::string what = "receiving " + std::to_string(bytes) + " bytes with tag " +
                     std::to_string(tag) + " from " + impl_->task(peer);
  if (!impl_->waitDone(op, impl_->timeoutSeconds)) {
    {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      impl_->cancels.push_back(op);
      impl_->work.notify_one();
    }
    // The progress thread has cancelled it (or it completed meanwhile)
    // once it is done: nothing writes into `data` after this returns.
    impl_->waitDone(op, -1);
    return Status::unavailable(what + " timed out after " + impl_->seconds() +
                               " s (--transfer-timeout): that task failed "
                               "or stopped");
  }
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (op->code != MPI_SUCCESS)
    return Status::unavailable("receiving tag " + std::to_string(tag) +
                               " from " + impl_->task(peer) +
                               " failed: " + Impl::mpiError(op->code));
  int count = 0;
  MPI_Get_count(&op->status, MPI_BYTE, &count); // Local: reads the status.
  if (count != bytes)
    return Status::unavailable("received " + std::to_string(count) +
                               " bytes with tag " + std::to_string(tag) +
                               " from " + impl_->task(peer) + ", expected " +
                               std::to_string(bytes));
  return Status::ok();
}

Status MpiTransport::flush() {
  // Each send has its own deadline (checked by the progress thread).
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->finished.wait(
      lock, [&] { return impl_->sendsInFlight == 0 || !impl_->late; });
  return impl_->late;
}

Status MpiTransport::prepareAllReduce(const std::vector<int> &ranks) {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->comms.count(ranks))
      return Status::ok();
  }
  for (int peer : ranks)
    if (peer < 0 || peer >= impl_->size)
      return Status::invalidArgument("an all-reduce names rank " +
                                     std::to_string(peer) + ", but the job has " +
                                     std::to_string(impl_->size));
  MPI_Comm comm = MPI_COMM_NULL;
  int code = *impl_->runOnProgressThread([&] {
    MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(),
                   &group);
    // Blocks until every rank of the set has called it: the caller's order
    // of rank sets keeps that from deadlocking.
    int result =
        MPI_Comm_create_group(MPI_COMM_WORLD, group, /*tag=*/0, &comm);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    if (result == MPI_SUCCESS)
      MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return result;
  });
  if (code != MPI_SUCCESS)
    return Status::unavailable("setting up all-reduces among " +
                               impl_->tasks(ranks) +
                               " failed: " + Impl::mpiError(code));
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->comms[ranks] = comm;
  return Status::ok();
}

StatusOr<int64_t> MpiTransport::startAllReduce(const std::vector<int> &ranks,
                                               void *data, int64_t count,
                                               bool f64) {
  if (count > INT32_MAX)
    return Status::invalidArgument(
        "an all-reduce of " + std::to_string(count) +
        " elements is more than one MPI collective carries (2^31 - 1)");
  auto op = std::make_shared<Op>();
  op->kind = Op::AllReduce;
  op->data = data;
  op->count = count;
  op->f64 = f64;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto it = impl_->comms.find(ranks);
  if (it == impl_->comms.end())
    return Status::internal("all-reduce among " + impl_->tasks(ranks) +
                            " before prepareAllReduce");
  op->comm = it->second;
  // Queued in the caller's order: the progress thread posts in that order.
  impl_->queue.push_back(op);
  impl_->work.notify_one();
  int64_t handle = impl_->nextHandle++;
  impl_->allReduces[handle] = op;
  return handle;
}

Status MpiTransport::finishAllReduce(const std::vector<int> &ranks,
                                     int64_t handle) {
  OpPtr op;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->allReduces.find(handle);
    if (it == impl_->allReduces.end())
      return Status::internal("finishing an all-reduce never started");
    op = it->second;
    impl_->allReduces.erase(it);
  }
  std::string what = "all-reduce of " + std::to_string(op->count) +
                     " elements among " + impl_->tasks(ranks);
  // A collective cannot be cancelled: after a timeout the caller aborts
  // the job.
  if (!impl_->waitDone(op, impl_->timeoutSeconds))
    return Status::unavailable(what + " timed out after " + impl_->seconds() +
                               " s (--transfer-timeout): one of those tasks "
                               "failed or stopped");
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (op->code != MPI_SUCCESS)
    return Status::unavailable("all-reduce among " + impl_->tasks(ranks) +
                               " failed: " + Impl::mpiError(op->code));
  return Status::ok();
}

Status MpiTransport::allReduce(const std::vector<int> &ranks, void *data,
                               int64_t count, bool f64) {
  StatusOr<int64_t> handle = startAllReduce(ranks, data, count, f64);
  if (!handle)
    return handle.status();
  return finishAllReduce(ranks, *handle);
}

StatusOr<std::vector<std::string>>
MpiTransport::allGather(const std::string &value) {
  // The buffers outlive a wait that times out: the progress thread may
  // still be in MPI_Allgather with them when this returns.
  struct Exchange {
    std::string value, all;
    std::vector<int> lengths, offsets;
  };
  auto exchange = std::make_shared<Exchange>();
  exchange->value = value;
  int size = impl_->size;
  exchange->lengths.resize(size);
  exchange->offsets.resize(size);
  // A task that stopped or died before its exchange would hold the others
  // here for ever: the set-up waits as long as a transfer does.
  std::optional<int> code = impl_->runOnProgressThread(
      [exchange, size] {
        Exchange &e = *exchange;
        int length = static_cast<int>(e.value.size());
        if (int result = MPI_Allgather(&length, 1, MPI_INT, e.lengths.data(),
                                       1, MPI_INT, MPI_COMM_WORLD);
            result != MPI_SUCCESS)
          return result;
        int total = 0;
        for (int r = 0; r < size; ++r) {
          e.offsets[r] = total;
          total += e.lengths[r];
        }
        e.all.assign(total, '\0');
        return MPI_Allgatherv(e.value.data(), length, MPI_CHAR, e.all.data(),
                              e.lengths.data(), e.offsets.data(), MPI_CHAR,
                              MPI_COMM_WORLD);
      },
      impl_->timeoutSeconds);
  if (!code)
    return Status::unavailable(
        "the set-up exchange with the other tasks (their devices and "
        "programs) did not complete in " + impl_->seconds() +
        " s (--transfer-timeout): a task failed, stopped or did not start");
  if (*code != MPI_SUCCESS)
    return Status::unavailable("exchanging device lists failed: " +
                               Impl::mpiError(*code));
  std::vector<std::string> values;
  for (int r = 0; r < size; ++r)
    values.push_back(
        exchange->all.substr(exchange->offsets[r], exchange->lengths[r]));
  return values;
}

void MpiTransport::abort(int code) {
  // Ends the job from whichever thread failed, while the progress thread
  // may be in MPI: Open MPI gives MPI_THREAD_MULTIPLE; under SERIALIZED
  // this is the one call that may overlap another, and it does not return.
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code); // MPI_Abort does not return; in case it does.
}
