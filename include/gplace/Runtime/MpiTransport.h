//===- MpiTransport.h - tasks as the ranks of an MPI job --------*- C++ -*-===//
//
// The Transport of a cluster launched by mpirun (Open MPI): each rank is a
// task, tensors move with non-blocking MPI point-to-point through host
// memory, device lists with MPI_Allgather. One progress thread per process
// drives MPI (collectives, and sends and receives handed to it); under
// MPI_THREAD_MULTIPLE a stream posts its own sends and receives and tests
// them briefly first. The callers wait on a condition variable. Built only
// when CMake finds MPI (GPLACE_HAVE_MPI); docs/distributed.md.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_MPITRANSPORT_H
#define GPLACE_RUNTIME_MPITRANSPORT_H

#include "gplace/Runtime/Transport.h"

#include <memory>

namespace gplace::runtime {

class MpiTransport : public Transport {
public:
  /// Initialises MPI for this process (MPI_Init_thread, asking for
  /// MPI_THREAD_MULTIPLE, with which the streams post and test their own
  /// sends and receives; with MPI_THREAD_SERIALIZED only the transport's
  /// progress thread calls MPI after that), starts the progress thread and
  /// returns the transport of MPI_COMM_WORLD. `timeoutSeconds` bounds each
  /// receive and the delivery of each send (checked by the next send,
  /// receive or flush). Errors
  /// (unavailable): MPI does not initialise, or gives less than
  /// MPI_THREAD_SERIALIZED.
  static StatusOr<std::unique_ptr<MpiTransport>>
  create(int *argc, char ***argv, double timeoutSeconds);
  /// Stops the progress thread and finalises MPI (MPI_Finalize) once every
  /// send is delivered (or one failed).
  ~MpiTransport() override;

  /// The task names error messages use, by rank
  /// ("/job:worker/replica:0/task:1"); by default "rank N".
  void setTaskNames(std::vector<std::string> names);

  int rank() const override;
  int size() const override;
  Status send(int peer, int64_t tag, const void *data, int64_t bytes) override;
  Status recv(int peer, int64_t tag, void *data, int64_t bytes) override;
  Status flush() override;
  Status prepareAllReduce(const std::vector<int> &ranks) override;
  Status allReduce(const std::vector<int> &ranks, void *data, int64_t count,
                   bool f64) override;
  /// Queues the MPI_Iallreduce for the progress thread, which posts
  /// all-reduces in the order they were started.
  StatusOr<int64_t> startAllReduce(const std::vector<int> &ranks, void *data,
                                   int64_t count, bool f64) override;
  Status finishAllReduce(const std::vector<int> &ranks,
                         int64_t handle) override;
  StatusOr<std::vector<std::string>>
  allGather(const std::string &value) override;
  [[noreturn]] void abort(int code) override;

  class Impl;

private:
  explicit MpiTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_MPITRANSPORT_H
