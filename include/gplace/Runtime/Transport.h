//===- Transport.h - moving tensors between tasks ---------------*- C++ -*-===//
//
// A cluster's processes (TensorFlow's tasks) move tensors with the
// gplace.send and gplace.recv kernels, which call the process's Transport.
// gplace-run under mpirun installs an MPI transport (MpiTransport.h); a
// process without one is a one-task cluster, where a send or a receive is an
// error. Plain C++17, no MLIR, no MPI.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_TRANSPORT_H
#define GPLACE_RUNTIME_TRANSPORT_H

#include "gplace/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gplace::runtime {

class Transport {
public:
  virtual ~Transport();

  /// This process's rank, and the number of processes (ranks 0..size-1).
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Starts sending `bytes` bytes at `data` to rank `peer` under `tag`: the
  /// bytes are copied first, so the memory may be reused once this returns
  /// (TensorFlow's _Send does not wait for its _Recv either). Transfers
  /// between two ranks with one tag arrive in order. Errors: a bad peer, or
  /// the transport's failure, naming the peer's task; also an earlier send
  /// not delivered within the transport's timeout (unavailable).
  virtual Status send(int peer, int64_t tag, const void *data,
                      int64_t bytes) = 0;

  /// Receives into `data` the `bytes` bytes rank `peer` sends under `tag`,
  /// waiting at most the transport's timeout. Errors (unavailable): the
  /// timeout, or a message of another size, naming the peer's task, the
  /// tag and the sizes.
  virtual Status recv(int peer, int64_t tag, void *data, int64_t bytes) = 0;

  /// Waits (at most the timeout) until every send has been delivered: the
  /// end of a run.
  virtual Status flush() = 0;

  /// Collective reductions among `ranks` (sorted, distinct, this rank
  /// among them): prepareAllReduce() sets them up (MPI_Comm_create_group)
  /// and is called by every rank in `ranks`, each calling it for its rank
  /// sets in increasing order, before any allReduce() among them;
  /// allReduce() then sums `count` elements at `data` in place, f32 or
  /// (`f64`) f64, over those ranks (MPI_Iallreduce with MPI_SUM), waiting
  /// at most the transport's timeout. Every rank of a set calls allReduce()
  /// for it in the same order (the caller orders them). Errors
  /// (unavailable): the transport's failure or the timeout, naming the
  /// tasks. By default a transport has no collectives: an error.
  virtual Status prepareAllReduce(const std::vector<int> &ranks);
  virtual Status allReduce(const std::vector<int> &ranks, void *data,
                           int64_t count, bool f64);
  /// allReduce() in two halves, so that a caller may start the next
  /// all-reduce of a rank set while this one is in flight:
  /// startAllReduce() returns once the all-reduce is ordered among the rank
  /// set's (later calls come after it on every rank) with a handle, and
  /// finishAllReduce() waits for it (at most the timeout); `data` must stay
  /// valid until then. Every started all-reduce is finished once. By
  /// default startAllReduce() runs allReduce() whole and returns its error,
  /// or handle 0, which finishAllReduce() returns at once. Errors: as
  /// allReduce(); an unknown handle (internal).
  virtual StatusOr<int64_t> startAllReduce(const std::vector<int> &ranks,
                                           void *data, int64_t count,
                                           bool f64);
  virtual Status finishAllReduce(const std::vector<int> &ranks,
                                 int64_t handle);
  /// Every rank's `value`, indexed by rank (MPI_Allgather of strings): how
  /// the tasks exchange their device lists. Collective: every rank calls it.
  virtual StatusOr<std::vector<std::string>>
  allGather(const std::string &value) = 0;

  /// Ends the whole job at once with exit code `code` (MPI_Abort): after
  /// an error on one task, the others need not wait for their timeouts.
  [[noreturn]] virtual void abort(int code) = 0;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_TRANSPORT_H
