//===- AutoPlacement.cpp - m-ETF automatic placement ----------------------===//
//
// policy=auto: memory-constrained earliest finish time (Baechi's m-ETF),
// over the description --gplace-place builds (AutoPlacement.h).
//
//===----------------------------------------------------------------------===//

#include "gplace/Transforms/AutoPlacement.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Dialect/Plan/Transforms/Arena.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

using namespace gplace;

namespace {

/// Seconds as the log prints them: "1.8 ms", "12 us".
std::string formatSeconds(double seconds) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (seconds >= 1e-3)
    os << llvm::format("%.3g ms", seconds * 1e3);
  else
    os << llvm::format("%.3g us", seconds * 1e6);
  return out;
}

/// "GPU:1" for a device of this process's task, else the full name.
std::string shortName(const DeviceName &device) {
  std::string full = device.str();
  llvm::StringRef local = "/job:localhost/replica:0/task:0/device:";
  return llvm::StringRef(full).starts_with(local) ? full.substr(local.size())
                                                  : full;
}

/// A use that is none: the value is never read.
constexpr unsigned kUnused = ~0u - 1;
/// The last use of a value the function returns.
constexpr unsigned kForever = ~0u;

/// What every attempt shares: the problem and the facts derived from it
/// once.
struct Facts {
  explicit Facts(const AutoPlacementProblem &problem);

  const AutoPlacementProblem &problem;
  /// Per value: its last use in program order, a view's uses counting for
  /// the value whose memory it is (kUnused, kForever).
  std::vector<unsigned> lastUse;
  /// Per value: the ops that read it, in program order, one entry per use,
  /// control-only ops left out.
  std::vector<llvm::SmallVector<unsigned, 2>> users;
  /// Per group: bytes of its constants and variables.
  std::vector<int64_t> groupPersistent;
  /// Per device: its rates.
  std::vector<DeviceRates> rates;
  /// The host's index in the devices, or -1.
  int hostIndex = -1;
};

Facts::Facts(const AutoPlacementProblem &problem)
    : problem(problem), lastUse(problem.values.size(), kUnused),
      users(problem.values.size()), groupPersistent(problem.groups.size(), 0) {
  for (auto [d, device] : llvm::enumerate(problem.devices)) {
    rates.push_back(problem.profile->device(device));
    if (device.str() == graph::kHostDevice)
      hostIndex = d;
  }
  // Last uses; a view's first result is an alias of its source's root.
  std::vector<int> aliasOf(problem.values.size(), -1);
  auto rootOf = [&](unsigned value) {
    return aliasOf[value] < 0 ? value : unsigned(aliasOf[value]);
  };
  auto use = [&](unsigned value, unsigned when) {
    lastUse[value] = when;
    unsigned root = rootOf(value);
    if (root != value)
      lastUse[root] = when;
  };
  for (auto [i, op] : llvm::enumerate(problem.ops)) {
    for (unsigned operand : op.operands) {
      use(operand, i);
      if (!op.controlOnly)
        users[operand].push_back(i);
    }
    if (op.viewOf >= 0 && !op.results.empty())
      aliasOf[op.results.front()] = rootOf(op.viewOf);
    if (op.persistent)
      for (unsigned result : op.results)
        groupPersistent[op.group] += problem.values[result].bytes;
  }
  for (unsigned result : problem.results)
    use(result, kForever);
}

/// One placement within a budget per device (bytes, 0 for none).
class Attempt {
public:
  Attempt(const Facts &facts, const std::vector<int64_t> &budget,
          AutoPlacement &out)
      : facts_(facts), p_(facts.problem), budget_(budget), out_(out),
        numDevices_(p_.devices.size()), available_(numDevices_, 0),
        persistent_(numDevices_, 0), arenas_(numDevices_),
        links_(*p_.profile, p_.devices), values_(p_.values.size()),
        scheduled_(p_.ops.size(), 0), skipped_(p_.ops.size(), 0),
        pending_(p_.groups.size()) {
    out_.devices.assign(p_.groups.size(), -1);
    out_.reasons.assign(p_.groups.size(), std::string());
    out_.errors.clear();
    out_.stopped = false;
    failed_.assign(p_.groups.size(), 0);
  }

  /// Places every op. Returns false on errors (in out_.errors); else fills
  /// `planned` with what the memory plan will need per device and
  /// `estimated` with the peak the placement itself counted.
  bool run(std::vector<int64_t> &planned, std::vector<int64_t> &estimated);

private:
  struct ValueState : ValueTimeline {
    bool known = false;    ///< Seen: made, or fed as an argument.
    int64_t bytes = 0;     ///< Live bytes of the value (0: a view).
    int64_t copyBytes = 0; ///< Live bytes of each copy.
    int64_t offset = -1;   ///< Its buffer's offset in its arena.
    llvm::SmallVector<int64_t, 1> copyOffsets; ///< Each copy's offset.
    bool persistent = false; ///< Not in the arena (constants, variables,
                             ///< arguments on the host).
    bool freed = false;
  };
  /// What op `i` would take and when it would finish on a device.
  struct Choice {
    double finish = 0;
    /// Constants and variables it brings; bytes of the tensors it makes
    /// (results and copies); how much they grow the arena.
    int64_t persistentExtra = 0, liveExtra = 0, growth = 0;
    bool fits = true;
  };

  const AutoPlacementProblem::Op &op(unsigned i) const { return p_.ops[i]; }
  unsigned groupOf(unsigned i) const { return p_.ops[i].group; }
  bool isView(unsigned i) const { return p_.ops[i].viewOf >= 0; }
  bool canPlaceOn(unsigned group, int d) const {
    return d >= 0 && llvm::is_contained(p_.groups[group].candidates, d);
  }
  /// The memory plan gives each buffer aligned memory (plan::kAlignment).
  int64_t liveBytes(unsigned value) const {
    const AutoPlacementProblem::Value &v = p_.values[value];
    return v.isTensor ? llvm::alignTo(v.bytes, plan::kAlignment) : 0;
  }
  int64_t allocate(plan::FirstFitArena &arena, int64_t bytes) {
    auto noWait = [](unsigned, unsigned) { return false; };
    return arena.allocate(bytes, {step_}, noWait).first;
  }
  void freeBuffer(int d, int64_t offset, int64_t bytes) {
    if (d >= 0 && bytes > 0 && offset >= 0)
      arenas_[d].release(offset, bytes, {{0u, step_}});
  }
  ValueState &state(unsigned value);
  double arrival(unsigned value, int d, bool commit, bool *isNew);
  void release(unsigned value);
  int64_t inUse(int d) const { return persistent_[d] + arenas_[d].size(); }
  std::string capacity(int d) const;
  void commitGroup(unsigned group, int d) {
    out_.devices[group] = d;
    persistent_[d] += facts_.groupPersistent[group];
  }
  std::optional<unsigned> waitingProducer(unsigned value) const;
  Choice evaluate(unsigned i, int d);
  std::string largestTensors() const;
  bool decide(unsigned i);
  void schedule(unsigned j);
  void runPending(unsigned group) {
    for (unsigned k : pending_[group])
      schedule(k);
    pending_[group].clear();
  }
  void skipGroup(unsigned group) {
    failed_[group] = 1;
    for (unsigned k : pending_[group])
      skipped_[k] = 1;
    pending_[group].clear();
  }
  bool fedBySkipped(unsigned i) const {
    return llvm::any_of(op(i).operands, [&](unsigned operand) {
      int producer = p_.values[operand].producer;
      return producer >= 0 && skipped_[producer];
    });
  }
  void error(unsigned at, std::string message) {
    out_.errors.push_back({at, std::move(message)});
  }
  /// True once the errors reach the limit.
  bool tooManyErrors() {
    if (out_.errors.size() < p_.maxErrors)
      return false;
    out_.stopped = true;
    return true;
  }
  void plan(std::vector<int64_t> &planned, std::vector<int64_t> &estimated);

  const Facts &facts_;
  const AutoPlacementProblem &p_;
  const std::vector<int64_t> &budget_;
  AutoPlacement &out_;
  const int numDevices_;

  std::vector<double> available_;
  /// Each device's constants and variables, and its arena, packed as the
  /// memory planner packs it (first fit in program order, one queue: the
  /// steps are the ops in the order they are scheduled).
  std::vector<int64_t> persistent_;
  std::vector<plan::FirstFitArena> arenas_;
  unsigned step_ = 0;
  LinkTimeline links_;
  std::vector<ValueState> values_;
  std::vector<char> scheduled_, skipped_, failed_;
  std::vector<std::vector<unsigned>> pending_;
};

Attempt::ValueState &Attempt::state(unsigned value) {
  ValueState &st = values_[value];
  if (!st.known) { // A function argument: fed on the host.
    st.known = true;
    st.device = facts_.hostIndex;
    st.copyBytes = liveBytes(value);
    st.persistent = true;
  }
  return st;
}

/// When `value` is on device `d`: at once, or after a copy (made if
/// `commit`, taking memory on `d` until the value's last use). `isNew`
/// says whether a copy would be made.
double Attempt::arrival(unsigned value, int d, bool commit, bool *isNew) {
  ValueState &st = state(value);
  const AutoPlacementProblem::Value &v = p_.values[value];
  int64_t bytes = v.isTensor ? v.bytes : 0;
  double end = links_.arrival(st, bytes, d, commit, isNew);
  if (commit && *isNew)
    st.copyOffsets.push_back(
        d >= 0 && st.copyBytes > 0 ? allocate(arenas_[d], st.copyBytes) : -1);
  return end;
}

void Attempt::release(unsigned value) {
  ValueState &st = state(value);
  if (st.freed)
    return;
  st.freed = true;
  if (!st.persistent)
    freeBuffer(st.device, st.offset, st.bytes);
  for (auto [k, copy] : llvm::enumerate(st.copies))
    freeBuffer(copy.first, st.copyOffsets[k], st.copyBytes);
}

/// What a device may hold in this attempt: its limit, or on a retry the
/// limit lowered by what the plan's copies needed beyond it.
std::string Attempt::capacity(int d) const {
  std::string text = formatSize(budget_[d]);
  if (budget_[d] < p_.memoryLimits[d])
    text += " (its " + formatSize(p_.memoryLimits[d]) +
            " limit less what the plan's copies needed beyond it)";
  return text;
}

/// The producer of `value` if it is an op not yet scheduled (it waits for
/// its group's device).
std::optional<unsigned> Attempt::waitingProducer(unsigned value) const {
  int producer = p_.values[value].producer;
  if (producer < 0 || scheduled_[producer] || skipped_[producer])
    return std::nullopt;
  return producer;
}

/// Op `i` (its group without a device yet) evaluated on device `d`.
Attempt::Choice Attempt::evaluate(unsigned i, int d) {
  unsigned cls = groupOf(i);
  Choice choice;
  choice.persistentExtra = facts_.groupPersistent[cls];
  llvm::SmallVector<unsigned, 4> pulled;
  llvm::SmallVector<int64_t, 4> buffers; // New in the arena, in order.
  double start = 0;
  for (unsigned operand : op(i).operands) {
    if (std::optional<unsigned> producer = waitingProducer(operand)) {
      // It would come here with its group, if the group can.
      unsigned group = groupOf(*producer);
      if (group != cls && !llvm::is_contained(pulled, group) &&
          canPlaceOn(group, d)) {
        pulled.push_back(group);
        choice.persistentExtra += facts_.groupPersistent[group];
      }
      if (!op(*producer).persistent && !isView(*producer))
        buffers.push_back(liveBytes(operand));
      continue;
    }
    bool isNew;
    start = std::max(start, arrival(operand, d, /*commit=*/false, &isNew));
    if (isNew)
      buffers.push_back(liveBytes(operand));
  }
  const OpCost &cost = op(i).cost;
  if (cost.runsKernel)
    start = std::max(start, available_[d]);
  choice.finish = start + cost.seconds(facts_.rates[d]);
  if (!op(i).persistent && !isView(i))
    for (unsigned result : op(i).results)
      buffers.push_back(liveBytes(result));
  // The arena after the op's buffers are taken, as schedule() takes them.
  plan::FirstFitArena trial = arenas_[d];
  for (int64_t bytes : buffers) {
    choice.liveExtra += bytes;
    if (bytes > 0)
      allocate(trial, bytes);
  }
  choice.growth = trial.size() - arenas_[d].size();
  choice.fits =
      budget_[d] <= 0 ||
      persistent_[d] + choice.persistentExtra + trial.size() <= budget_[d];
  return choice;
}

/// The largest tensors of the function, for an infeasible graph's error.
std::string Attempt::largestTensors() const {
  std::vector<std::pair<int64_t, unsigned>> sizes;
  for (auto [i, info] : llvm::enumerate(p_.ops)) {
    int64_t bytes = 0;
    for (unsigned result : info.results)
      bytes += p_.values[result].bytes;
    if (bytes > 0)
      sizes.push_back({-bytes, unsigned(i)});
  }
  std::sort(sizes.begin(), sizes.end());
  std::string out;
  for (unsigned k = 0; k < sizes.size() && k < 3; ++k)
    out += (k ? ", '" : "'") + op(sizes[k].second).name.str() + "' (" +
           formatSize(-sizes[k].first) + ")";
  return out;
}

/// Gives op `i`'s group a device; false (an error recorded) if none fits.
bool Attempt::decide(unsigned i) {
  unsigned cls = groupOf(i);
  const AutoPlacementProblem::Group &group = p_.groups[cls];
  llvm::SmallVector<int, 8> candidates;
  if (!group.keepsAssigned)
    candidates.assign(group.candidates.begin(), group.candidates.end());
  if (candidates.size() <= 1) {
    // Kept, requested, or soft-placed by TensorFlow's rules.
    if (group.ruleDevice < 0) {
      error(group.ruleErrorOp, group.ruleError);
      failed_[cls] = 1;
      return false;
    }
    out_.reasons[cls] = group.ruleReason;
    commitGroup(cls, group.ruleDevice);
    return true;
  }
  std::vector<Choice> choices;
  int best = -1, fastest = -1;
  for (auto [k, d] : llvm::enumerate(candidates)) {
    choices.push_back(evaluate(i, d));
    if (fastest < 0 || choices[k].finish < choices[fastest].finish)
      fastest = k;
    if (choices[k].fits &&
        (best < 0 || choices[k].finish < choices[best].finish))
      best = k;
  }
  if (best < 0) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << "Cannot place '" << op(i).name
       << "' under the devices' memory limits (policy=auto): it needs "
       << formatSize(choices[0].persistentExtra)
       << " for constants and variables and "
       << formatSize(choices[0].liveExtra) << " for tensors on one device; ";
    for (auto [k, d] : llvm::enumerate(candidates))
      os << (k ? ", " : "") << shortName(p_.devices[d]) << " has "
         << formatSize(inUse(d)) << " in use of " << capacity(d);
    os << "; the largest tensors: " << largestTensors();
    error(i, std::move(message));
    failed_[cls] = 1;
    return false;
  }
  int d = candidates[best];
  if (choices[fastest].finish < choices[best].finish) {
    out_.reasons[cls] =
        "auto: " + shortName(p_.devices[candidates[fastest]]) +
        " would finish " +
        formatSeconds(choices[best].finish - choices[fastest].finish) +
        " earlier but lacks the memory (needs " +
        formatSize(choices[fastest].persistentExtra + choices[fastest].growth) +
        " more, " + formatSize(inUse(candidates[fastest])) + " in use of " +
        capacity(candidates[fastest]) + ")";
  } else {
    int second = -1;
    for (unsigned k = 0; k < choices.size(); ++k)
      if ((int)k != best &&
          (second < 0 || choices[k].finish < choices[second].finish))
        second = k;
    double gain = choices[second].finish - choices[best].finish;
    out_.reasons[cls] =
        gain > 0 ? "auto: " + formatSeconds(gain) + " earlier finish than " +
                       shortName(p_.devices[candidates[second]])
                 : "auto: finishes as early as " +
                       shortName(p_.devices[candidates[second]]) +
                       ", which comes later by priority";
  }
  commitGroup(cls, d);
  return true;
}

/// Runs op `j` on its group's device: its operands copied there, its
/// results' buffers taken, the values it reads last freed.
void Attempt::schedule(unsigned j) {
  const AutoPlacementProblem::Op &info = op(j);
  int d = out_.devices[groupOf(j)];
  double start = 0;
  for (unsigned operand : info.operands) {
    bool isNew;
    start = std::max(start, arrival(operand, d, /*commit=*/true, &isNew));
  }
  const OpCost &cost = info.cost;
  if (cost.runsKernel)
    start = std::max(start, available_[d]);
  double finish = start + cost.seconds(facts_.rates[d]);
  if (cost.runsKernel)
    available_[d] = finish;
  for (unsigned result : info.results) {
    ValueState &st = values_[result];
    st.known = true;
    st.device = d;
    st.time = finish;
    st.copyBytes = liveBytes(result);
    st.bytes = isView(j) ? 0 : st.copyBytes;
    st.persistent = info.persistent;
    if (!info.persistent && st.bytes > 0)
      st.offset = allocate(arenas_[d], st.bytes);
  }
  scheduled_[j] = 1;
  for (unsigned operand : info.operands)
    if (facts_.lastUse[operand] == j)
      release(operand);
  for (unsigned result : info.results)
    if (facts_.lastUse[result] == kUnused)
      release(result);
  ++step_;
}

bool Attempt::run(std::vector<int64_t> &planned,
                  std::vector<int64_t> &estimated) {
  // Each op is put in program order, one at a time: an op whose group has
  // no device yet goes to the device where it would finish first (its
  // operands copied there, the device free), among those that can run the
  // whole group and still fit it in their memory limit; an op with no
  // inputs from outside its group (a variable, its reads, a constant)
  // waits and goes where its first consumer goes (TensorFlow's generator
  // heuristic, extended to colocation groups).
  for (unsigned i = 0; i < p_.ops.size(); ++i) {
    unsigned cls = groupOf(i);
    if (failed_[cls] || fedBySkipped(i)) {
      skipped_[i] = 1;
      continue;
    }
    if (out_.devices[cls] < 0) {
      bool waits = !p_.groups[cls].keepsAssigned &&
                   llvm::all_of(op(i).operands, [&](unsigned operand) {
                     int producer = p_.values[operand].producer;
                     return producer >= 0 && groupOf(producer) == cls;
                   });
      if (waits) {
        pending_[cls].push_back(i);
        continue;
      }
      if (!decide(i)) {
        // The groups that waited for it fail with it: one error, not one
        // per variable it would have pulled along.
        for (unsigned operand : op(i).operands)
          if (std::optional<unsigned> producer = waitingProducer(operand))
            skipGroup(groupOf(*producer));
        skipGroup(cls);
        skipped_[i] = 1;
        if (tooManyErrors())
          return false;
        continue;
      }
      runPending(cls);
    }
    // The groups waiting for this op: with it where they can be.
    int d = out_.devices[cls];
    bool ready = true;
    for (unsigned operand : op(i).operands) {
      std::optional<unsigned> producer = waitingProducer(operand);
      if (!producer)
        continue;
      unsigned other = groupOf(*producer);
      if (out_.devices[other] < 0) {
        if (canPlaceOn(other, d)) {
          commitGroup(other, d);
          out_.reasons[other] =
              "auto: with its consumer '" + op(i).name.str() + "'";
        } else if (!decide(*producer)) {
          skipGroup(other);
          ready = false;
          if (tooManyErrors())
            return false;
          continue;
        }
      }
      runPending(other);
    }
    if (ready)
      schedule(i);
    else
      skipped_[i] = 1;
  }
  // Groups no op consumed (an unused variable): by their first op.
  for (unsigned cls = 0; cls < p_.groups.size(); ++cls) {
    if (pending_[cls].empty() || out_.devices[cls] >= 0 || failed_[cls])
      continue;
    if (!decide(pending_[cls].front())) {
      skipGroup(cls);
      if (tooManyErrors())
        return false;
      continue;
    }
    runPending(cls);
  }
  if (!out_.errors.empty())
    return false;
  plan(planned, estimated);
  return true;
}

/// What the memory plan will need on each device for this placement: the
/// same packing, each copy made right after its producer (function
/// arguments' copies first) and kept to its last consumer on its device.
void Attempt::plan(std::vector<int64_t> &planned,
                   std::vector<int64_t> &estimated) {
  std::vector<plan::FirstFitArena> plannedArenas(numDevices_);
  struct Buffer {
    int device;
    int64_t offset, bytes;
  };
  std::vector<llvm::SmallVector<Buffer, 1>> freeAfter(p_.ops.size());
  step_ = 0;
  // The copies of `value` (made on `from`): one per other device with a
  // consumer, in the order of their first consumers.
  auto makeCopies = [&](unsigned value, int from) {
    if (!p_.values[value].isTensor)
      return;
    llvm::SmallVector<std::pair<int, unsigned>, 2> last; // device, op
    for (unsigned u : facts_.users[value]) {
      int d = out_.devices[groupOf(u)];
      if (d == from || d < 0)
        continue;
      auto *it = llvm::find_if(last, [&](auto &e) { return e.first == d; });
      if (it == last.end())
        last.push_back({d, u});
      else
        it->second = u;
    }
    for (auto [d, u] : last) {
      int64_t bytes = liveBytes(value);
      if (bytes > 0)
        freeAfter[u].push_back({d, allocate(plannedArenas[d], bytes), bytes});
    }
  };
  for (unsigned argument : p_.arguments)
    makeCopies(argument, facts_.hostIndex);
  ++step_;
  for (unsigned i = 0; i < p_.ops.size(); ++i) {
    const AutoPlacementProblem::Op &info = op(i);
    int d = out_.devices[groupOf(i)];
    if (!info.persistent && !isView(i))
      for (unsigned result : info.results) {
        int64_t bytes = liveBytes(result);
        unsigned last = facts_.lastUse[result];
        if (bytes <= 0 || d < 0)
          continue;
        Buffer buffer{d, allocate(plannedArenas[d], bytes), bytes};
        if (last == kUnused)
          freeAfter[i].push_back(buffer);
        else if (last != kForever)
          freeAfter[last].push_back(buffer);
      }
    for (const Buffer &buffer : freeAfter[i])
      plannedArenas[buffer.device].release(buffer.offset, buffer.bytes,
                                           {{0u, step_}});
    ++step_;
    for (unsigned result : info.results)
      makeCopies(result, d);
    ++step_;
  }
  planned.assign(numDevices_, 0);
  estimated.assign(numDevices_, 0);
  for (int d = 0; d < numDevices_; ++d) {
    planned[d] = persistent_[d] + plannedArenas[d].size();
    estimated[d] = inUse(d);
  }
}

} // namespace

AutoPlacement gplace::placeAutomatically(const AutoPlacementProblem &problem) {
  // The placement packs each device's buffers as the memory planner does,
  // but makes a copy when its consumer is placed, where the plan makes it
  // right after its producer (--gplace-insert-copies), so the plan may need
  // a little more. Each device over its limit then gets a budget lowered
  // by what the placement's count missed (the plan's need less the
  // placement's peak), below the peak it counted, so that the next
  // placement must differ; it starts again (at most as many times more as
  // there are devices, plus 2), and a placement still over is left to the
  // memory planner's error.
  Facts facts(problem);
  const unsigned numDevices = problem.devices.size();
  std::vector<int64_t> budget = problem.memoryLimits;
  AutoPlacement result;
  for (unsigned attempt = 0;; ++attempt) {
    std::vector<int64_t> planned, estimated;
    if (!Attempt(facts, budget, result).run(planned, estimated))
      return result;
    bool over = false;
    for (unsigned d = 0; d < numDevices; ++d) {
      int64_t limit = problem.memoryLimits[d];
      if (limit > 0 && planned[d] > limit) {
        // Lowering by the excess over the limit alone (planned - limit)
        // could leave the budget above the placement's own peak, and the
        // same placement came back. Never 0 or less: that reads as no
        // limit.
        int64_t missed = planned[d] - estimated[d];
        budget[d] = std::max<int64_t>(1, std::min(budget[d], limit - missed));
        over = true;
      }
    }
    // A lowered budget may move the excess onto another device, which is
    // then lowered in turn: room for each device to be lowered once more
    // than the first round's.
    if (!over || attempt == numDevices + 2)
      return result;
  }
}

std::string gplace::formatSize(int64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = bytes;
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  // Three digits, but never an exponent: 1023.9 KiB is "1024 KiB", not
  // "1.02e+03 KiB".
  os << llvm::format(unit == 0 || value >= 100 ? "%.0f %s" : "%.3g %s", value,
                     units[unit]);
  return out;
}
