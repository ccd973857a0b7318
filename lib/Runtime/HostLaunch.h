//===- HostLaunch.h - host launches compiled at load ------------*- C++ -*-===//
//
// Private to the runtime (the executor and the host kernels): launches of
// host kernels compiled once, when a plan loads, into what a run reads and
// nothing else, so that a run of many small launches walks a dense array
// instead of the general path (the step, the kernel through its table, the
// element type's dispatch, the operands' shapes compared, the vector
// clones through the loader). bench/results/2026-11-30-dispatch-2.md.
// Every compiled launch computes what the general path computes, bit for
// bit: the same scalar functions (ElementwiseKernels.def), element for
// element.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_HOSTLAUNCH_H
#define GPLACE_RUNTIME_HOSTLAUNCH_H

#include "gplace/Runtime/Kernels.h"

#include <cstdint>
#include <memory>

namespace gplace::runtime {

struct CompactLaunch;

/// A compiled launch's typed body: runs it; false when an integer division
/// by zero happened (then hostCompactLaunchError says so).
using CompactLaunchFn = bool (*)(const CompactLaunch &);

/// An elementwise launch none of whose operands is broadcast, compiled:
/// out[i] = f(in[0][i], in[1][i]) for i < n. 40 bytes; the executor keeps
/// a stream's launches in one array (a record with `run` null stands for a
/// step of the general path, `n` being its index).
struct CompactLaunch {
  CompactLaunchFn run = nullptr;
  void *out = nullptr;
  const void *in[2] = {nullptr, nullptr};
  int64_t n = 0;
};

/// `call` compiled, where it is a launch of an elementwise kernel with one
/// or two operands (its arity), all of its result's shape, of an element
/// type the CPU has the kernel for (the general path's unbroadcast case);
/// otherwise a record whose `run` is null: the launch takes the general
/// path (runHostKernel). The pointers are the call's now: a caller that
/// moves an operand (binding inputs) points the record there too.
CompactLaunch compileHostLaunch(const KernelCall &call);

/// The error of a compiled launch whose run returned false (integer
/// division by zero, as runHostKernel reports it), clearing the thread's
/// flag.
Status hostCompactLaunchError();

/// A fusion group compiled for the host: per op its typed block body and
/// its operands' slots, checked once (every op elementwise, of a type the
/// CPU has), so that a run sets up each op's block from a dense array.
struct HostFusedProgram;
struct HostFusedProgramDeleter {
  void operator()(HostFusedProgram *program) const;
};
using HostFusedProgramPtr =
    std::unique_ptr<HostFusedProgram, HostFusedProgramDeleter>;

/// `call` compiled, or null where it cannot run (an op that is not
/// elementwise, lacks the group's element type or has no operands, which
/// runHostFused reports; runHostFused itself compiles and runs a
/// program). The program reads `call`'s inputs and outputs when it runs
/// (so binding inputs needs nothing more) and must not outlive it.
HostFusedProgramPtr compileHostFused(const FusedCall &call);

/// Runs `program` (compileHostFused of `call`), as runHostFused(call)
/// would, for a caller that holds runHostKernel's set-up for its launches
/// (hostKernelFunction): denormals flushed, the team size set.
Status runHostFusedProgram(const HostFusedProgram &program,
                           const FusedCall &call);

} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_HOSTLAUNCH_H
