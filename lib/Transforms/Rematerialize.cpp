//===- Rematerialize.cpp - recompute scopes in the backward pass ----------===//
//
// --gplace-rematerialize="scopes=REGEX": gradient checkpointing of named
// scopes (TensorFlow's tf.recompute_grad, PyTorch's
// torch.utils.checkpoint). The values a scope's forward ops give the
// backward pass are recomputed from the scope's inputs right before the
// first backward op that needs them. With auto=true, on a placed graph, the
// recomputed ops are chosen instead: where a device's peak (estimated by
// liveness in program order) exceeds its memory limit, the op with the
// least recompute time (the cost model's) per byte of peak saved first,
// until it fits or nothing more helps. The pass asks PlacedOpInterface,
// PersistentOpInterface, ForwardsInput and memory effects; it names no op
// class.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Dialect/Plan/PlanDialect.h"
#include "gplace/Transforms/AutoPlacement.h"
#include "gplace/Transforms/CostModel.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <functional>
#include <map>

namespace gplace {
#define GEN_PASS_DEF_REMATERIALIZEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

class Rematerializer {
public:
  /// Recomputes the ops whose names `scope` matches.
  Rematerializer(func::FuncOp func, llvm::Regex &scope)
      : Rematerializer(func) {
    scope_ = &scope;
  }
  /// Recomputes the ops of `chosen` (one segment).
  Rematerializer(func::FuncOp func, const DenseSet<Operation *> &chosen)
      : Rematerializer(func) {
    chosen_ = &chosen;
  }

  /// Whether differentiation made `op`.
  bool isBackward(Operation *op) const {
    return op->hasAttr(GraphDialect::getColocateWithAttrName()) ||
           llvm::StringRef(names_.lookup(op)).starts_with("gradients/");
  }

  /// Whether `op` may be recomputed: a forward graph op, pure, on no
  /// variable, without regions, with results.
  bool isRecomputable(Operation *op) const {
    if (!isa<PlacedOpInterface>(op) || isBackward(op) ||
        !isMemoryEffectFree(op) || op->getNumRegions() != 0 ||
        op->getNumResults() == 0)
      return false;
    auto isResource = [](Type type) { return isa<ResourceType>(type); };
    return !llvm::any_of(op->getOperandTypes(), isResource) &&
           !llvm::any_of(op->getResultTypes(), isResource);
  }

  llvm::StringRef name(Operation *op) const {
    auto it = names_.find(op);
    return it == names_.end() ? llvm::StringRef() : it->second;
  }

private:
  explicit Rematerializer(func::FuncOp func)
      : func_(func), builder_(func.getContext()) {
    std::vector<std::string> names = getOpNames(func);
    size_t i = 0;
    func.walk([&](PlacedOpInterface op) {
      names_[op] = names[i];
      used_.insert(names[i]);
      ++i;
    });
  }

public:
  /// Recomputes the scope's values that backward ops use; returns how many
  /// ops were cloned.
  unsigned run() {
    Block &body = func_.getBody().front();
    // Per in-scope op whose results a backward op uses: the first such
    // backward op in program order.
    SmallVector<std::pair<Operation *, Operation *>> needed;
    for (Operation &op : body) {
      if (!segment(&op))
        continue;
      Operation *first = nullptr;
      for (Operation *user : op.getUsers())
        if (isBackward(user) && user->getBlock() == &body &&
            (!first || user->isBeforeInBlock(first)))
          first = user;
      if (first)
        needed.push_back({&op, first});
    }
    // Earliest first, so that a clone made for an earlier backward op
    // dominates the later ones that reuse it.
    llvm::stable_sort(needed, [](auto &a, auto &b) {
      return a.second->isBeforeInBlock(b.second);
    });
    for (auto [op, first] : needed) {
      Operation *clone = recompute(op, first);
      for (OpResult result : op->getResults())
        result.replaceUsesWithIf(
            clone->getResult(result.getResultNumber()), [&](OpOperand &use) {
              Operation *user = use.getOwner();
              return user != clone && isBackward(user) &&
                     clone->isBeforeInBlock(user);
            });
    }
    return cloned_;
  }

private:
  /// The segment of an op the scopes recompute (what the regex's first
  /// group matched; "" without a group: one segment), or nullopt: not a
  /// forward graph op, pure, on no variable, whose whole name matches.
  std::optional<std::string> segment(Operation *op) {
    if (chosen_)
      return chosen_->contains(op) ? std::optional<std::string>("")
                                   : std::nullopt;
    if (!isRecomputable(op))
      return std::nullopt;
    // scope_ is "^(<scopes>)$": group 1 is the whole name, group 2 the
    // user's first group, if any.
    SmallVector<StringRef> groups;
    std::string name = names_.lookup(op);
    if (!scope_->match(name, &groups))
      return std::nullopt;
    return groups.size() > 2 ? groups[2].str() : std::string();
  }

  /// `op`'s clone that `before` can use: an earlier one, or one made now
  /// right before `before` from the recomputed operands of its segment.
  Operation *recompute(Operation *op, Operation *before) {
    if (Operation *clone = clones_.lookup(op);
        clone && clone->isBeforeInBlock(before))
      return clone;
    std::optional<std::string> mine = segment(op);
    IRMapping map;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != op->getBlock() || segment(def) != mine)
        continue; // A checkpoint: made outside the segment, kept.
      Operation *clone = recompute(def, before);
      map.map(operand, clone->getResult(cast<OpResult>(operand)
                                            .getResultNumber()));
    }
    builder_.setInsertionPoint(before);
    Operation *clone = builder_.clone(*op, map);
    std::string name = names_.lookup(op) + "/recompute";
    for (unsigned k = 1; !used_.insert(name).second; ++k)
      name = names_.lookup(op) + "/recompute_" + std::to_string(k);
    clone->setAttr("name", builder_.getStringAttr(name));
    names_[clone] = name;
    clones_[op] = clone;
    ++cloned_;
    return clone;
  }

  func::FuncOp func_;
  llvm::Regex *scope_ = nullptr;
  const DenseSet<Operation *> *chosen_ = nullptr;
  OpBuilder builder_;
  DenseMap<Operation *, std::string> names_;
  llvm::StringSet<> used_;
  DenseMap<Operation *, Operation *> clones_;
  unsigned cloned_ = 0;
};


/// Bytes a tensor takes in the plan: its size rounded up to the plan's
/// alignment (plan::kAlignment), as AutoPlacement counts it; 0 for what is
/// not a ranked tensor.
int64_t arenaBytes(Type type) {
  if (!isa<RankedTensorType>(type))
    return 0;
  return llvm::alignTo(gplace::getTypeBytes(type), gplace::plan::kAlignment);
}

/// auto=true on one function: the recomputed set, chosen greedily against
/// an estimate of each device's peak.
///
/// The estimate: ops in program order (the order the plan's streams run
/// them in); a tensor result that is neither persistent (constants,
/// variables) nor a view (ForwardsInput) takes its bytes on its op's device
/// from its op to its last use, a view's uses counting as its source's; a
/// returned value lives to the end. A device's peak is its persistent bytes
/// plus the most bytes live at once. Recomputing a set S is simulated as
/// Rematerializer does it (a clone of each op of S right before the first
/// backward op that uses it, or earlier where another clone needs it;
/// backward uses move to the clone; the clone reads clones of S's ops and
/// the originals of the others), without touching the IR. With `inPlace`,
/// as the memory planner's in-place option plans it (BufferLives::build):
/// an elementwise op's result (ElementwiseOpInterface) takes the memory of
/// an operand of its type on its device that no later op reads, an
/// accumulating op's (AccumulatesIntoFirstOperand) that of its first
/// operand.
class AutoRematerializer {
public:
  AutoRematerializer(func::FuncOp func, Rematerializer &remat,
                     const gplace::DeviceSet &devices,
                     const gplace::CostProfile &profile, int64_t reserve,
                     bool inPlace)
      : remat_(remat), profile_(profile), inPlace_(inPlace) {
    Block &body = func.getBody().front();
    for (Operation &op : body) {
      position_[&op] = ops_.size();
      ops_.push_back(&op);
    }
    end_ = 2 * ops_.size() + 2;
    // The devices with a limit, by name.
    for (size_t d = 0; d < devices.size(); ++d) {
      Device &device = devices_.emplace_back();
      device.name = devices.devices()[d].str();
      device.limit = devices.attributes(d).memoryLimit;
      // What the estimate leaves out, taken from the limit (at least a byte
      // remains: a limit, not none).
      if (device.limit > 0 && reserve > 0)
        device.limit = std::max<int64_t>(1, device.limit - reserve);
      deviceIndex_[device.name] = d;
      if (device.name == gplace::graph::kHostDevice)
        host_ = d;
    }
    // The reads the lowering copies, as it decides (GraphToPlan.cpp).
    gplace::graph::VariableWriters writers =
        gplace::graph::collectVariableWriters(body);
    for (Operation *op : ops_)
      if (gplace::graph::forwardsInput(op) && isa<KernelOpInterface>(op) &&
          isa<ResourceType>(op->getOperand(0).getType()) &&
          gplace::graph::readNeedsCopy(
              op, writers.lookup(getResourceRoot(op->getOperand(0)))))
        copied_.insert(op);
    opDevice_.assign(ops_.size(), -1);
    for (auto [i, op] : llvm::enumerate(ops_)) {
      auto placed = dyn_cast<PlacedOpInterface>(op);
      if (!placed)
        continue;
      auto it = deviceIndex_.find(placed.getAssignedDeviceName());
      if (it == deviceIndex_.end())
        continue;
      opDevice_[i] = it->second;
      if (isa<PersistentOpInterface>(op))
        for (Type type : op->getResultTypes())
          devices_[it->second].persistent += gplace::getTypeBytes(type);
    }
  }

  /// The device's estimated peak and the recomputed ops, chosen until each
  /// device fits or nothing more helps.
  struct Outcome {
    DenseSet<Operation *> chosen;
    /// Per device (of the set): the estimate before and after.
    std::vector<int64_t> before, after;
    /// Per chosen op, in the order chosen: the log's line.
    std::vector<std::string> log;
    /// The search stopped at its bound before it fit or ran out of ops.
    bool stopped = false;
  };

  Outcome choose() {
    Outcome out;
    Estimate current = estimate(out.chosen);
    for (size_t d = 0; d < devices_.size(); ++d)
      out.before.push_back(devices_[d].persistent + current.peak[d]);
    // The candidates: recomputable, not persistent, on a device of the set.
    SmallVector<unsigned> candidates;
    for (auto [i, op] : llvm::enumerate(ops_))
      if (opDevice_[i] >= 0 && !isa<PersistentOpInterface>(op) &&
          remat_.isRecomputable(op) &&
          llvm::any_of(op->getResultTypes(),
                       [](Type type) { return isa<RankedTensorType>(type); })) {
        candidates.push_back(i);
        isCandidate_.insert(op);
      }
    // Per choice: its device (the log's lines), and per op chosen.
    std::vector<int> logDevice;
    DenseMap<Operation *, int> chosenOn;
    constexpr uint64_t kMaxWork = 200'000'000;
    uint64_t work = 0;
    while (true) {
      SmallVector<int> over;
      for (size_t d = 0; d < devices_.size(); ++d)
        if (devices_[d].limit > 0 &&
            devices_[d].persistent + current.peak[d] > devices_[d].limit)
          over.push_back(d);
      if (over.empty())
        break;
      // Per candidate on a device over its limit whose value is live at
      // that device's peak: what recomputing it too saves of the peak (or,
      // failing that, of the bytes over the limit summed over the
      // program), and its cost.
      // A set is tried with the producers of its operands (one and two
      // levels up, where they are candidates too): recomputing an op alone
      // keeps its operands alive in its place, which saves nothing where
      // its operand is as large (a tanh after a matmul).
      SmallVector<Operation *> best;
      double bestRatio = 0, bestSeconds = 0;
      bool bestByPeak = false;
      int64_t bestSaved = 0;
      int bestDevice = -1;
      Estimate bestEstimate;
      for (unsigned i : candidates) {
        Operation *op = ops_[i];
        int d = opDevice_[i];
        if (out.chosen.contains(op) || !llvm::is_contained(over, d))
          continue;
        // A view shares its source's memory: live at the peak if it is.
        Operation *owner = op;
        if (isView(op))
          owner = op->getOperand(0).getDefiningOp();
        if (!owner || !current.liveAtPeak.contains(owner))
          continue;
        SmallVector<Operation *> set{op};
        for (int level = 0; level < 3; ++level) {
          if (level > 0) {
            size_t size = set.size();
            for (size_t k = 0; k < size; ++k)
              for (Value operand : set[k]->getOperands()) {
                Operation *def = operand.getDefiningOp();
                if (def && isCandidate_.contains(def) &&
                    !out.chosen.contains(def) && !llvm::is_contained(set, def) &&
                    opDevice_[position_.lookup(def)] == d)
                  set.push_back(def);
              }
            if (set.size() == size)
              break; // Nothing more above.
          }
          double seconds = 0;
          for (Operation *member : set) {
            out.chosen.insert(member);
            seconds += secondsOf(member, d);
          }
          Estimate next = estimate(out.chosen);
          work += ops_.size();
          for (Operation *member : set)
            out.chosen.erase(member);
          int64_t savedPeak = current.peak[d] - next.peak[d];
          int64_t savedOver = current.over[d] - next.over[d];
          bool byPeak = savedPeak > 0;
          if (!byPeak && (savedPeak < 0 || savedOver <= 0))
            continue;
          int64_t saved = byPeak ? savedPeak : savedOver;
          double ratio = seconds / double(saved);
          if (best.empty() || (byPeak && !bestByPeak) ||
              (byPeak == bestByPeak &&
               (ratio < bestRatio ||
                (ratio == bestRatio && saved > bestSaved)))) {
            best = set;
            bestRatio = ratio;
            bestSeconds = seconds;
            bestByPeak = byPeak;
            bestSaved = saved;
            bestDevice = d;
            bestEstimate = std::move(next);
          }
        }
      }
      if (best.empty())
        break; // Nothing more helps.
      // A bound on the search (ops simulated, about a second's worth): a
      // graph too large for it keeps what was chosen so far.
      if (work > kMaxWork) {
        out.stopped = true;
        break;
      }
      int d = bestDevice;
      int64_t kept = 0;
      std::string names;
      for (Operation *op : best) {
        for (Type type : op->getResultTypes())
          kept += arenaBytes(type);
        names += (names.empty() ? "'" : ", '") + remat_.name(op).str() + "'";
        out.chosen.insert(op);
      }
      logDevice.push_back(d);
      for (Operation *op : best)
        chosenOn[op] = d;
      out.log.push_back(llvm::formatv(
          "Rematerialize: recompute {0} on {1} ({2} of activations, {3:F1} us "
          "to recompute): estimated peak {4} -> {5} bytes, target {6} bytes",
          names, devices_[d].name, gplace::formatSize(kept), bestSeconds * 1e6,
          devices_[d].persistent + current.peak[d],
          devices_[d].persistent + bestEstimate.peak[d], devices_[d].limit));
      current = std::move(bestEstimate);
    }
    // Where the choices did not lower a device's peak (bytes over the limit
    // chose them, and no lower peak followed), they only cost time: none.
    DenseSet<int> useless;
    for (size_t d = 0; d < devices_.size(); ++d)
      if (current.peak[d] >= out.before[d] - devices_[d].persistent)
        useless.insert(d);
    if (!useless.empty()) {
      for (auto [op, d] : chosenOn)
        if (useless.contains(d))
          out.chosen.erase(op);
      std::vector<std::string> kept;
      for (auto [line, d] : llvm::zip(out.log, logDevice))
        if (!useless.contains(d))
          kept.push_back(line);
      out.log = std::move(kept);
      current = estimate(out.chosen);
    }
    for (size_t d = 0; d < devices_.size(); ++d)
      out.after.push_back(devices_[d].persistent + current.peak[d]);
    return out;
  }

  const std::string &deviceName(size_t d) const { return devices_[d].name; }
  int64_t limit(size_t d) const { return devices_[d].limit; }
  size_t numDevices() const { return devices_.size(); }
  /// The device of the set `op` is assigned to, or -1.
  int deviceOf(Operation *op) const {
    auto it = position_.find(op);
    return it == position_.end() ? -1 : opDevice_[it->second];
  }

private:
  struct Device {
    std::string name;
    int64_t limit = 0;
    int64_t persistent = 0;
  };

  /// The arena estimate under a recomputed set.
  struct Estimate {
    /// Per device: the most bytes live at once, and the bytes over the
    /// limit (less persistent bytes) summed over the program's positions.
    std::vector<int64_t> peak, over;
    /// The ops whose original results are live at their device's peak.
    DenseSet<Operation *> liveAtPeak;
  };

  /// The cost model's time for `op` on device `d`.
  double secondsOf(Operation *op, int d) const {
    std::optional<gplace::DeviceName> name =
        gplace::DeviceName::parse(devices_[d].name);
    return name ? gplace::getOpCost(op).seconds(profile_.device(*name)) : 0;
  }

  /// Positions: op i at 2i + 1; a clone made before op i at 2i.
  unsigned pos(Operation *op) const { return 2 * position_.lookup(op) + 1; }

  /// Whether the plan makes `op`'s first result a view of its first
  /// operand: ForwardsInput, unless the lowering copies it (a read of a
  /// variable that a later write could overtake, readNeedsCopy; copied_).
  bool isView(Operation *op) const {
    return gplace::graph::forwardsInput(op) && op->getNumOperands() != 0 &&
           op->getNumResults() != 0 && !copied_.contains(op);
  }

  Estimate estimate(const DenseSet<Operation *> &chosen) const {
    // One buffer per original value, per clone's value and per copy: its
    // device, bytes, first and last position, and its op (the original's).
    struct Buffer {
      int device;
      int64_t bytes;
      unsigned first, last;
      Operation *op;
    };
    std::vector<Buffer> buffers;
    // Per original value: its buffer (a view: its source's).
    DenseMap<Value, unsigned> bufferOf;
    // Per (buffer, device): the copy of the buffer there.
    std::map<std::pair<unsigned, int>, unsigned> copies;
    auto rootBuffer = [&](Value value) -> std::optional<unsigned> {
      auto it = bufferOf.find(value);
      if (it != bufferOf.end())
        return it->second;
      // An argument: fed on the host, from the start.
      if (isa<BlockArgument>(value) && host_ >= 0) {
        int64_t bytes = arenaBytes(value.getType());
        if (bytes == 0)
          return std::nullopt;
        bufferOf[value] = buffers.size();
        buffers.push_back({host_, bytes, 0, 0, nullptr});
        return bufferOf[value];
      }
      return std::nullopt;
    };
    // A use on `device` at `at`: of the buffer, or of its copy there (made
    // right after the buffer's producer, as the plan makes copies); returns
    // the one used.
    auto use = [&](std::optional<unsigned> buffer, int device,
                   unsigned at) -> std::optional<unsigned> {
      if (!buffer)
        return std::nullopt;
      unsigned index = *buffer;
      if (device >= 0 && buffers[index].device != device) {
        auto [it, isNew] = copies.try_emplace({index, device}, buffers.size());
        if (isNew)
          buffers.push_back({device, buffers[index].bytes,
                             buffers[index].first, buffers[index].first,
                             nullptr});
        index = it->second;
      }
      buffers[index].last = std::max(buffers[index].last, at);
      return index;
    };
    // Clones: per chosen op, its clone's position and, per result, buffer.
    DenseMap<Operation *, unsigned> clonePos;
    DenseMap<Operation *, SmallVector<std::optional<unsigned>, 1>> cloneBufs;

    // The originals first.
    for (auto [i, op] : llvm::enumerate(ops_)) {
      bool view = isView(op);
      for (OpResult result : op->getResults()) {
        if (view && result.getResultNumber() == 0) {
          if (auto source = rootBuffer(op->getOperand(0)))
            bufferOf[result] = *source;
          continue;
        }
        int64_t bytes = arenaBytes(result.getType());
        if (opDevice_[i] < 0 || bytes == 0 || isa<PersistentOpInterface>(op))
          continue;
        bufferOf[result] = buffers.size();
        buffers.push_back({opDevice_[i], bytes, pos(op), pos(op), op});
      }
    }
    // The clones, as Rematerializer::run makes them.
    std::function<unsigned(Operation *, unsigned)> recompute =
        [&](Operation *op, unsigned before) -> unsigned {
      if (auto it = clonePos.find(op); it != clonePos.end() &&
                                       it->second < before)
        return it->second;
      unsigned at = before - 1;
      int device = opDevice_[position_.lookup(op)];
      SmallVector<std::optional<unsigned>, 2> operandBufs;
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && chosen.contains(def)) {
          recompute(def, before);
          operandBufs.push_back(
              cloneBufs[def][cast<OpResult>(operand).getResultNumber()]);
        } else {
          operandBufs.push_back(rootBuffer(operand));
        }
        use(operandBufs.back(), device, at);
      }
      SmallVector<std::optional<unsigned>, 1> results;
      bool view = isView(op);
      for (OpResult result : op->getResults()) {
        if (view && result.getResultNumber() == 0) {
          results.push_back(operandBufs.front());
          continue;
        }
        int64_t bytes = arenaBytes(result.getType());
        if (device < 0 || bytes == 0) {
          results.push_back(std::nullopt);
          continue;
        }
        results.push_back(buffers.size());
        buffers.push_back({device, bytes, at, at, nullptr});
      }
      clonePos[op] = at;
      cloneBufs[op] = std::move(results);
      return at;
    };
    SmallVector<std::pair<Operation *, unsigned>> needed;
    for (Operation *op : ops_) {
      if (!chosen.contains(op))
        continue;
      std::optional<unsigned> first;
      for (Operation *user : op->getUsers())
        if (remat_.isBackward(user) && position_.count(user))
          first = std::min(first.value_or(UINT_MAX), pos(user));
      if (first)
        needed.push_back({op, *first});
    }
    llvm::stable_sort(needed,
                      [](auto &a, auto &b) { return a.second < b.second; });
    for (auto [op, first] : needed)
      recompute(op, first);
    // The uses: an original's, unless a backward op's moved to a clone.
    // Per operand of an op that may write in place: the buffer it reads.
    DenseMap<OpOperand *, unsigned> reads;
    for (Operation *user : ops_) {
      unsigned at = pos(user);
      bool isReturn = user->hasTrait<mlir::OpTrait::IsTerminator>();
      int device = isReturn ? -1 : opDevice_[position_.lookup(user)];
      for (OpOperand &operandUse : user->getOpOperands()) {
        Value operand = operandUse.get();
        Operation *def = operand.getDefiningOp();
        std::optional<unsigned> buffer;
        auto clone = def ? clonePos.find(def) : clonePos.end();
        if (clone != clonePos.end() && remat_.isBackward(user) &&
            clone->second < at)
          buffer = cloneBufs[def][cast<OpResult>(operand).getResultNumber()];
        else
          buffer = rootBuffer(operand);
        std::optional<unsigned> read = use(buffer, device, isReturn ? end_ : at);
        if (read && inPlace_ && writesInPlace(user))
          reads[&operandUse] = *read;
      }
    }

    // In place: the result's buffer joins the operand's (mergedInto), which
    // lives on to the result's last use. In program order, so that a chain
    // of such ops shares one buffer.
    std::vector<unsigned> mergedInto(buffers.size());
    for (unsigned b = 0; b < buffers.size(); ++b)
      mergedInto[b] = b;
    auto rootOf = [&](unsigned b) {
      while (mergedInto[b] != b)
        b = mergedInto[b];
      return b;
    };
    if (inPlace_) {
      for (Operation *op : ops_) {
        if (!writesInPlace(op))
          continue;
        Value result = op->getResult(0);
        auto out = bufferOf.find(result);
        if (out == bufferOf.end() || buffers[out->second].op != op)
          continue;
        Buffer &written = buffers[out->second];
        bool accumulating =
            op->hasTrait<gplace::graph::OpTrait::AccumulatesIntoFirstOperand>();
        SmallVector<unsigned, 3> roots;
        for (OpOperand &operand : op->getOpOperands()) {
          auto it = reads.find(&operand);
          roots.push_back(it == reads.end() ? UINT_MAX : rootOf(it->second));
        }
        for (OpOperand &operand : op->getOpOperands()) {
          unsigned k = operand.getOperandNumber();
          if (accumulating && k != 0)
            break;
          unsigned root = roots[k];
          if (root == UINT_MAX || operand.get().getType() != result.getType())
            continue;
          Buffer &source = buffers[root];
          if (source.last != pos(op) || source.device != written.device ||
              source.bytes != written.bytes || llvm::count(roots, root) != 1)
            continue;
          mergedInto[out->second] = root;
          source.last = std::max(source.last, written.last);
          written.bytes = 0;
          break;
        }
      }
    }

    // Sweep: per device, bytes live at each position.
    Estimate out;
    out.peak.assign(devices_.size(), 0);
    out.over.assign(devices_.size(), 0);
    std::vector<std::vector<std::pair<unsigned, int64_t>>> events(
        devices_.size());
    for (const Buffer &buffer : buffers) {
      if (buffer.bytes == 0)
        continue; // In place: counted in its operand's.
      events[buffer.device].push_back({2 * buffer.first, buffer.bytes});
      events[buffer.device].push_back({2 * buffer.last + 1, -buffer.bytes});
    }
    std::vector<unsigned> peakAt(devices_.size(), 0);
    for (size_t d = 0; d < devices_.size(); ++d) {
      llvm::sort(events[d]);
      int64_t live = 0, room = devices_[d].limit - devices_[d].persistent;
      unsigned last = 0;
      for (auto [at, delta] : events[d]) {
        if (devices_[d].limit > 0 && live > room)
          out.over[d] += (live - room) * int64_t((at - last) / 2);
        last = at;
        live += delta;
        if (live > out.peak[d]) {
          out.peak[d] = live;
          peakAt[d] = at / 2;
        }
      }
    }
    // An op whose result is in another's memory is live where that is.
    for (auto [b, buffer] : llvm::enumerate(buffers)) {
      const Buffer &memory = buffers[rootOf(b)];
      if (buffer.op && memory.first <= peakAt[memory.device] &&
          peakAt[memory.device] <= memory.last)
        out.liveAtPeak.insert(buffer.op);
    }
    return out;
  }

  /// Whether the plan may give `op`'s one result an operand's memory
  /// (with in-place): an elementwise or accumulating op.
  static bool writesInPlace(Operation *op) {
    return op->getNumResults() == 1 &&
           (isa<ElementwiseOpInterface>(op) ||
            op->hasTrait<gplace::graph::OpTrait::AccumulatesIntoFirstOperand>());
  }

  Rematerializer &remat_;
  const gplace::CostProfile &profile_;
  bool inPlace_;
  /// The reads of variables that the lowering copies (isView).
  DenseSet<Operation *> copied_;
  std::vector<Operation *> ops_;
  DenseMap<Operation *, unsigned> position_;
  unsigned end_ = 0;
  int host_ = -1; ///< The host's index in devices_, or -1.
  DenseSet<Operation *> isCandidate_;
  std::vector<Device> devices_;
  std::map<std::string, int, std::less<>> deviceIndex_;
  std::vector<int> opDevice_;
};

struct RematerializePass
    : gplace::impl::RematerializePassBase<RematerializePass> {
  using RematerializePassBase::RematerializePassBase;

  void runOnOperation() override {
    if (!scopes.empty() && failed(recomputeScopes()))
      return signalPassFailure();
    if (automatic && failed(recomputeAutomatically()))
      return signalPassFailure();
  }

  LogicalResult recomputeScopes() {
    // The whole name; the user's first group, if any, names the segment.
    llvm::Regex scope("^(" + scopes + ")$");
    std::string error;
    if (!scope.isValid(error))
      return getOperation().emitError() << "--gplace-rematerialize scopes '"
                                        << scopes << "': " << error;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        Rematerializer(func, scope).run();
    return success();
  }

  /// auto=true: per function, the ops AutoRematerializer chooses are
  /// recomputed; the module's `gplace.rematerialized` attribute gets, per
  /// device with a memory limit, the ops recomputed, the estimated peak
  /// before and after (the largest over the functions) and the target the
  /// estimate had to meet (the limit less `reserve`): a device whose
  /// estimate met it recomputed nothing (before = after <= target), and
  /// gplace-run still learns by how much it met it.
  LogicalResult recomputeAutomatically() {
    ModuleOp module = getOperation();
    std::optional<gplace::DeviceSet> devices =
        gplace::graph::getModuleDevices(module);
    if (!devices)
      return module.emitError()
             << "--gplace-rematerialize auto=true needs the module's devices "
                "and their memory limits (gplace.devices; run "
                "--gplace-assign-devices and --gplace-place first)";
    std::string error;
    std::optional<gplace::CostProfile> rates =
        gplace::CostProfile::loadOrDefaults(profile, &error);
    if (!rates)
      return module.emitError() << "--gplace-rematerialize: " << error;
    struct Tried {
      unsigned ops = 0;
      int64_t before = 0, after = 0, target = 0;
      bool estimated = false; // The device has a limit: an entry.
      bool over = false;      // Its estimate exceeded the target.
    };
    std::vector<Tried> tried(devices->size());
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.getBody().getBlocks().size() != 1)
        continue;
      DenseSet<Operation *> chosen;
      Rematerializer remat(func, chosen);
      AutoRematerializer planner(func, remat, *devices, *rates, reserve,
                                 inPlace);
      AutoRematerializer::Outcome outcome = planner.choose();
      for (size_t d = 0; d < devices->size(); ++d) {
        if (planner.limit(d) <= 0)
          continue;
        tried[d].estimated = true;
        tried[d].over |= outcome.before[d] > planner.limit(d);
        tried[d].target = planner.limit(d);
        tried[d].before = std::max(tried[d].before, outcome.before[d]);
        tried[d].after = std::max(tried[d].after, outcome.after[d]);
      }
      for (Operation *op : outcome.chosen)
        if (int d = planner.deviceOf(op); d >= 0)
          ++tried[d].ops;
      if (print) {
        for (const std::string &line : outcome.log)
          llvm::errs() << line << "\n";
        if (outcome.stopped)
          llvm::errs() << "Rematerialize: @" << func.getSymName()
                       << ": the search stopped at its bound (a large graph); "
                          "it keeps what it chose\n";
      }
      chosen = std::move(outcome.chosen);
      remat.run();
    }
    Builder builder(&getContext());
    SmallVector<Attribute> entries;
    for (size_t d = 0; d < devices->size(); ++d) {
      if (!tried[d].estimated)
        continue;
      std::string name = devices->devices()[d].str();
      int64_t limit = devices->attributes(d).memoryLimit;
      entries.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("device", builder.getStringAttr(name)),
          builder.getNamedAttr("ops", builder.getI64IntegerAttr(tried[d].ops)),
          builder.getNamedAttr("estimated_before",
                               builder.getI64IntegerAttr(tried[d].before)),
          builder.getNamedAttr("estimated_after",
                               builder.getI64IntegerAttr(tried[d].after)),
          builder.getNamedAttr("target",
                               builder.getI64IntegerAttr(tried[d].target)),
      }));
      if (print && tried[d].over)
        llvm::errs() << "Rematerialize: " << name << ": " << tried[d].ops
                     << " ops recomputed, estimated peak " << tried[d].before
                     << " -> " << tried[d].after << " bytes, target "
                     << tried[d].target << " bytes (memory limit " << limit
                     << ")"
                     << (tried[d].after > tried[d].target
                             ? ": still over, nothing more to recompute"
                             : "")
                     << "\n";
    }
    if (!entries.empty())
      module->setAttr("gplace.rematerialized", builder.getArrayAttr(entries));
    return success();
  }
};

} // namespace
