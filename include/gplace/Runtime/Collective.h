//===- Collective.h - all-reduces across devices and tasks ------*- C++ -*-===//
//
// The members of an all-reduce (gplan launches of collective_reduce, one per
// device: TensorFlow's CollectiveReduceV2, NCCL's ncclAllReduce from each
// rank) run together: each member's stream thread arrives, the members of
// this process add their inputs (each member a slice of the elements, in
// member order, so every member gets the same bits), one of them
// all-reduces the sum with the other tasks of the group through the
// Transport (MPI_Iallreduce), and each member writes the result (divided by
// the group size for a mean) into its output. Devices whose memory is not
// host memory (CUDA GPUs) take part through host staging: their input is
// downloaded and their output uploaded (the copy-based all-reduce; NCCL is
// not used yet). Plain C++17, no MLIR; docs/runtime.md, "Collectives".
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_COLLECTIVE_H
#define GPLACE_RUNTIME_COLLECTIVE_H

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Kernels.h"
#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Transport.h"

#include <memory>
#include <string>

namespace gplace::runtime {

/// One member of an all-reduce, as the executor resolved it: its device and
/// stream, the launch's parameters (group_key, group_size, instance_key,
/// member, ranks, mean), its input and output memory (on `device`), and a
/// label for messages ("tower_1/AllReduce (gplace.collective_reduce)").
struct CollectiveMember {
  Device *device = nullptr;
  int stream = 0;
  const KernelParams *params = nullptr;
  TensorRef input;
  TensorRef output;
  std::string label;
};

/// The all-reduces of one plan: TensorFlow's CollectiveExecutor for the
/// members that run in this process.
class CollectiveExecutor {
public:
  CollectiveExecutor();
  ~CollectiveExecutor();

  /// Adds the member that launch step `step` runs. Errors (invalid
  /// argument, naming the member): a member index already added for its
  /// all-reduce, or a member whose group size, ranks, mean flag or tensor
  /// type differ from the all-reduce's other members.
  Status add(size_t step, CollectiveMember member);

  /// After every add(): checks that each all-reduce has all the members
  /// this process runs (those whose rank is `transport`'s, or all when the
  /// ranks are empty), each on its own stream, allocates host staging for
  /// members on devices without host memory, and sets up the collectives
  /// with the other tasks (Transport::prepareAllReduce, rank sets in
  /// increasing order). Errors: a missing member or two on one stream
  /// (invalid argument), members on other tasks without a transport or
  /// the transport's errors (unavailable).
  Status prepare(Transport *transport);

  /// After prepare(): how the all-reduces run, for the placement log
  /// ("All-reduces: 4 on the devices (...), 2 in host memory"); "" when
  /// there are none.
  std::string note() const;

  /// True if step `step` is a member added here.
  bool contains(size_t step) const;

  /// Runs step `step`'s member: blocks the calling stream thread until
  /// every member of its all-reduce in this process has arrived and its
  /// output holds the result. Errors: the device's copies (staging), the
  /// transport's, or another stream's failure (abort()), after which the
  /// run is over.
  Status run(size_t step);

  /// A run starts: forget what a failed run left half done.
  void beginRun();
  /// The run failed elsewhere: every member waiting returns.
  void abort();

  class Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_COLLECTIVE_H
