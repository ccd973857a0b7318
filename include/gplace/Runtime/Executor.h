//===- Executor.h - runs a plan ---------------------------------*- C++ -*-===//
//
// Loads a runtime::Plan onto a DeviceManager's devices (arena and persistent
// memory, constants and variable initial values) and runs it any number of
// times. Each (device, stream) of the plan runs its steps in order on its
// own thread of an LLVM thread pool, so independent work on different
// streams overlaps; events order the streams. Variables keep their values
// from one run to the next.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_EXECUTOR_H
#define GPLACE_RUNTIME_EXECUTOR_H

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Plan.h"
#include "gplace/Runtime/Status.h"

#include <memory>
#include <vector>

namespace gplace::runtime {

class Executor {
public:
  /// Loads `plan`. Errors: a device the plan needs that `devices` lacks, or
  /// memory the device cannot provide (naming device, request and limit).
  static StatusOr<std::unique_ptr<Executor>>
  create(Plan plan, const DeviceManager &devices);
  ~Executor();

  /// Runs the program once on `inputs` (one per program input, of the
  /// plan's types; a mismatch is an error naming the input) and returns its
  /// results in host memory. A failing step stops the run with an error
  /// naming the op and its device.
  StatusOr<std::vector<HostTensor>> run(const std::vector<HostTensor> &inputs);

  /// The number of (device, stream) queues the plan uses.
  size_t numStreams() const;

  class Impl;

private:
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_EXECUTOR_H
