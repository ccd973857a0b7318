//===- AutoPlacement.h - m-ETF automatic placement --------------*- C++ -*-===//
//
// The placement of policy=auto (--gplace-place="policy=auto",
// docs/cost-model.md) as an analysis: Baechi's memory-constrained earliest
// finish time placer (m-ETF; Jeon et al., "Baechi: Fast Device Placement
// of Machine Learning Graphs", SoCC 2020), taking ops in program order.
// It reads a description of one function (its ops, values, colocation
// groups, the cost model's estimates and the devices' memory limits) and
// returns a device per colocation group; it never sees nor changes the
// IR. --gplace-place builds the description, applies the assignment and
// verifies it, as IREE's Stream partitioning returns a partition its pass
// then materializes.
//
// It lives next to the cost model (CostModel.h), whose op times, link
// timeline and rates it uses, in the library of the pass that calls it.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TRANSFORMS_AUTOPLACEMENT_H
#define GPLACE_TRANSFORMS_AUTOPLACEMENT_H

#include "gplace/Support/DeviceName.h"
#include "gplace/Transforms/CostModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gplace {

/// One function to place automatically. Ops, values and groups are indices
/// into the vectors below; devices are indices into `devices`.
struct AutoPlacementProblem {
  /// A value of the function: a function argument or an op's result.
  struct Value {
    /// Bytes of the value (getTypeBytes: a tensor's, a resource's value's;
    /// 0 for a token).
    int64_t bytes = 0;
    /// A ranked tensor: it takes memory while live (`bytes` rounded up to
    /// the plan's 64-byte alignment) and a copy moves its bytes. Other
    /// values (resources, tokens) take none and copy in no time but the
    /// link's latency.
    bool isTensor = false;
    /// The op that defines it, or -1 for a function argument (fed on the
    /// host).
    int producer = -1;
  };
  /// A graph op, in program order (a topological order of the graph).
  struct Op {
    /// Its name, for the log and errors; the caller owns the storage.
    llvm::StringRef name;
    /// Its colocation group: its members go to one device.
    unsigned group = 0;
    /// The values it reads (data and control operands, in order) and
    /// defines.
    llvm::SmallVector<unsigned, 2> operands;
    llvm::SmallVector<unsigned, 1> results;
    /// The cost model's estimate (getOpCost): FLOPs, bytes, and whether it
    /// runs a kernel, which takes OpCost::seconds of its device's rates.
    OpCost cost;
    /// Its results are constants or variables (PersistentOpInterface):
    /// memory for the whole program on its device, `bytes` each.
    bool persistent = false;
    /// For a view (identity, reshape, a read of a variable nothing writes),
    /// the operand whose memory its first result shares; -1 for an op whose
    /// results take memory of their own.
    int viewOf = -1;
    /// It only orders its operands (gplace.group): its uses make no copies.
    bool controlOnly = false;
  };
  /// A colocation group.
  struct Group {
    /// The devices that can run every member and match the group's
    /// request, in the order of `devices` (priority).
    llvm::SmallVector<int, 4> candidates;
    /// It has an assigned device already, which TensorFlow's rules keep.
    bool keepsAssigned = false;
    /// For a group TensorFlow's rules place (keepsAssigned, or at most one
    /// candidate): the device they give, and the soft placement's reason
    /// if soft placement gave it; or -1, with the error they report
    /// (`ruleError`, at op `ruleErrorOp`).
    int ruleDevice = -1;
    std::string ruleReason;
    unsigned ruleErrorOp = 0;
    std::string ruleError;
  };

  /// The devices, by priority (GPUs before the CPU); the host is
  /// /job:localhost/replica:0/task:0/device:CPU:0 when it is one of them.
  std::vector<DeviceName> devices;
  /// Per device: its memory limit in bytes, 0 for none.
  std::vector<int64_t> memoryLimits;
  /// The rates of devices and links (seconds, bytes per second); never
  /// null.
  const CostProfile *profile = nullptr;
  std::vector<Value> values;
  std::vector<Op> ops;
  std::vector<Group> groups;
  /// The function's arguments and the values it returns.
  std::vector<unsigned> arguments, results;
  /// Errors after which placement stops (the last one says so).
  unsigned maxErrors = 20;
};

/// The answer: a device per group, or the errors that left some without.
struct AutoPlacement {
  /// An error at an op, in the words --gplace-place reports.
  struct Error {
    unsigned op = 0;
    std::string message;
  };
  /// Per group: its device, -1 if it has none (an error).
  std::vector<int> devices;
  /// Per group: why it is there, for the placement log ("auto: 51.9 us
  /// earlier finish than GPU:1", a soft placement's reason); empty when
  /// there is nothing to say.
  std::vector<std::string> reasons;
  /// In the order found; empty on success.
  std::vector<Error> errors;
  /// Placement stopped at `maxErrors` errors.
  bool stopped = false;

  bool succeeded() const { return errors.empty(); }
};

/// Places `problem` by m-ETF in program order, one op at a time:
///
///   - a group TensorFlow's rules place (an assigned device, at most one
///     candidate) goes to `ruleDevice`;
///   - a group none of whose ops reads a value from outside it (a variable
///     and its reads, a constant) goes where its first consumer goes;
///   - any other group goes to the candidate where its op finishes first
///     (operands copied over the links, one kernel at a time per device,
///     times in seconds from the profile), among those whose memory
///     (constants and variables for the whole program, tensors packed
///     first fit from producer to last use, as the memory planner packs
///     them) stays within its limit; ties go to the earlier device.
///
/// Once every op is placed, the buffers are packed again as the plan will
/// make its copies (right after their producer); a device whose need is
/// then over its limit gets a lower budget and placement starts again, at
/// most devices + 3 times in all (docs/cost-model.md).
///
/// Errors (in `errors`, placement going on with the other ops up to
/// `maxErrors`): a group that fits no candidate's memory ("Cannot place
/// 'NAME' under the devices' memory limits (policy=auto): it needs ...");
/// a group whose `ruleDevice` is -1 (its `ruleError`). The ops that read
/// what a failed group makes are left without a device and no error.
AutoPlacement placeAutomatically(const AutoPlacementProblem &problem);

/// `bytes` as the placement and rematerialization logs and their errors
/// print them, in binary units with three significant digits and never an
/// exponent: "812 B", "1.5 GiB", "256 MiB", "1024 KiB" for 1023.9 KiB.
std::string formatSize(int64_t bytes);

} // namespace gplace

#endif // GPLACE_TRANSFORMS_AUTOPLACEMENT_H
