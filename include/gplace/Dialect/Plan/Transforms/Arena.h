//===- Arena.h - the memory planner's first-fit arena -----------*- C++ -*-===//
//
// The free memory of one device's arena, as --gplace-plan-memory assigns it
// (docs/passes/plan-memory.md): buffers in program order, first fit,
// memory reused once every use of its former tenants happens before the
// step that writes it (by that step's vector clock over the queues). It is
// a header of its own so that policy=auto
// (lib/Transforms/AutoPlacement.cpp), which must predict the plan's peak
// memory before there is a plan, packs buffers the same way: on one
// queue, first fit in program order. (The
// pass keeps best fit by size instead only where that makes no device's
// arena larger than first fit's.)
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_PLAN_TRANSFORMS_ARENA_H
#define GPLACE_DIALECT_PLAN_TRANSFORMS_ARENA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace gplace::plan {

/// The last uses of the buffers that held some memory: (queue, position
/// of the step on its queue), one entry per queue.
using LastUses = llvm::SmallVector<std::pair<unsigned, unsigned>, 2>;

/// The uses in `uses` that a step whose vector clock is `clock` does not
/// know have run (Liveness.h's ClockWalk): none iff they all happen before
/// it.
inline LastUses unknownUses(llvm::ArrayRef<std::pair<unsigned, unsigned>> uses,
                            llvm::ArrayRef<unsigned> clock) {
  LastUses unknown;
  for (auto [queue, position] : uses)
    if (queue >= clock.size() || position >= clock[queue])
      unknown.push_back({queue, position});
  return unknown;
}

/// Free memory of one device's arena: slots by offset, taken first fit. Adjacent slots are
/// merged when freed only if their last uses are on the same queues, so
/// that a slot needing no wait does not take on another's waits; a buffer
/// may span a run of adjacent slots.
class FirstFitArena {
public:
  /// A place for `bytes` written at a step whose clock is `clock`: its
  /// offset, and the uses of its former tenants the step must wait for
  /// (none if they all happen before it). Memory is taken only if
  /// `canWait` accepts each such use.
  std::pair<int64_t, LastUses>
  allocate(int64_t bytes, llvm::ArrayRef<unsigned> clock,
           llvm::function_ref<bool(unsigned queue, unsigned position)> canWait) {
    auto pending = [&](const LastUses &uses) {
      return unknownUses(uses, clock);
    };
    auto waitable = [&](const LastUses &missing) {
      return llvm::all_of(missing, [&](const auto &use) {
        return canWait(use.first, use.second);
      });
    };
    // First fit among the runs of slots needing no wait, else among those
    // whose waits are possible. `runJoined` and `missing` are reused from slot
    // to slot, and a run of one slot is read in place (most are), so that
    // the scan copies no list of uses.
    Iterator withWaits = free_.end();
    LastUses withWaitsMissing, runJoined, missing;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      llvm::ArrayRef<std::pair<unsigned, unsigned>> runLastUses;
      if (it->second.bytes >= bytes) {
        runLastUses = it->second.lastUses;
      } else {
        if (!runUses(it, bytes, runJoined))
          continue;
        runLastUses = runJoined;
      }
      missing.clear();
      for (auto [queue, position] : runLastUses)
        if (queue >= clock.size() || position >= clock[queue])
          missing.push_back({queue, position});
      if (missing.empty())
        return {take(it, bytes), {}};
      if (withWaits == free_.end() && waitable(missing)) {
        withWaits = it;
        withWaitsMissing = missing;
      }
    }
    if (withWaits != free_.end())
      return {take(withWaits, bytes), std::move(withWaitsMissing)};
    // Grow the arena, from the run of free slots at its top if there is one
    // it may take.
    auto first = free_.end();
    LastUses uses;
    int64_t end = top_;
    while (first != free_.begin()) {
      auto prev = std::prev(first);
      if (prev->first + prev->second.bytes != end)
        break;
      LastUses joined = uses;
      join(joined, prev->second.lastUses);
      if (!waitable(pending(joined)))
        break;
      uses = std::move(joined);
      end = prev->first;
      first = prev;
    }
    int64_t offset = end;
    free_.erase(first, free_.end());
    top_ = offset + bytes;
    return {offset, pending(uses)};
  }

  /// Frees [offset, offset + bytes), last used at `lastUses`.
  void release(int64_t offset, int64_t bytes, const LastUses &lastUses) {
    Slot slot{bytes, lastUses};
    auto next = free_.lower_bound(offset);
    if (next != free_.end() && offset + bytes == next->first &&
        sameQueues(slot.lastUses, next->second.lastUses)) {
      slot.bytes += next->second.bytes;
      join(slot.lastUses, next->second.lastUses);
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second.bytes == offset &&
          sameQueues(prev->second.lastUses, slot.lastUses)) {
        prev->second.bytes += slot.bytes;
        join(prev->second.lastUses, slot.lastUses);
        return;
      }
    }
    free_.emplace_hint(next, offset, std::move(slot)); // Just before next.
  }

  /// Bytes the arena needs: the top of all the memory ever taken.
  int64_t size() const { return top_; }

private:
  struct Slot {
    int64_t bytes;
    LastUses lastUses;
  };
  using Iterator = std::map<int64_t, Slot>::iterator;

  /// The last uses of the run of adjacent slots from `it` holding `bytes`,
  /// into `uses` (cleared first); false if the run is shorter.
  bool runUses(Iterator it, int64_t bytes, LastUses &uses) {
    uses.clear();
    int64_t start = it->first, end = start;
    for (; it != free_.end() && it->first == end; ++it) {
      join(uses, it->second.lastUses);
      end += it->second.bytes;
      if (end - start >= bytes)
        return true;
    }
    return false;
  }

  /// Takes the first `bytes` of the run of slots from `it`; the rest of its
  /// last slot stays free.
  int64_t take(Iterator it, int64_t bytes) {
    int64_t offset = it->first, end = offset;
    while (end - offset < bytes) {
      end += it->second.bytes;
      auto next = std::next(it);
      if (end - offset > bytes) {
        // The rest of the slot stays free: its node, keyed by its new
        // offset, back in its place (no node freed and allocated).
        auto node = free_.extract(it);
        node.key() = offset + bytes;
        node.mapped().bytes = end - offset - bytes;
        free_.insert(next, std::move(node));
      } else {
        free_.erase(it);
      }
      it = next;
    }
    return offset;
  }

  static bool sameQueues(const LastUses &a, const LastUses &b) {
    if (a.size() != b.size())
      return false;
    return llvm::all_of(a, [&](const auto &use) {
      return llvm::any_of(b, [&](const auto &other) {
        return other.first == use.first;
      });
    });
  }
  static void join(LastUses &into, const LastUses &from) {
    for (auto [queue, position] : from) {
      auto *it = llvm::find_if(into, [queue = queue](const auto &entry) {
        return entry.first == queue;
      });
      if (it == into.end())
        into.push_back({queue, position});
      else
        it->second = std::max(it->second, position);
    }
  }

  std::map<int64_t, Slot> free_;
  int64_t top_ = 0;
};

} // namespace gplace::plan

#endif // GPLACE_DIALECT_PLAN_TRANSFORMS_ARENA_H
