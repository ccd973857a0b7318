//===- LowerAllReduce.cpp - gplace.all_reduce for the runtime -------------===//
//
// algorithm=collective (the default): one gplace.collective_reduce per
// device (TensorFlow's CollectiveReduceV2 per replica, as MirroredStrategy's
// collective ops), which the runtime runs together (Collective.h).
// algorithm=ring: the ring all-reduce (reduce-scatter, then all-gather;
// Baidu's ring-allreduce, Horovod's and NCCL's ring) written with graph ops
// pinned to the replicas' devices. Placement, --gplace-insert-copies and the
// plan then treat it like any other computation: each hop is a copy between
// neighbours on the ring.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphBuilders.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>

namespace gplace {
#define GEN_PASS_DEF_LOWERALLREDUCEPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace::graph;

namespace {

class RingBuilder {
public:
  RingBuilder(AllReduceOp op, std::string scope)
      : op_(op), b_(op), scope_(std::move(scope)) {
    for (Attribute device : op.getDevices())
      devices_.push_back(cast<StringAttr>(device).getValue().str());
  }

  void build();

private:
  /// Pins `op` to replica `replica`'s device and names it.
  Value pin(Operation *op, size_t replica, const Twine &name) {
    op->setAttr("device", b_.getStringAttr(devices_[replica]));
    op->setAttr("name", b_.getStringAttr(scope_ + "/" + name.str()));
    return op->getResult(0);
  }

  template <typename OpT>
  Value make(size_t replica, const Twine &name, Type type, ValueRange operands,
             ArrayRef<NamedAttribute> attributes = {}) {
    return pin(b_.create<OpT>(op_.getLoc(), TypeRange{type}, operands,
                              attributes),
               replica, name);
  }

  RankedTensorType vector(int64_t n) {
    return RankedTensorType::get({n}, element_);
  }

  Value slice(size_t replica, Value flat, int64_t begin, int64_t size,
              size_t chunk) {
    return make<SliceOp>(
        replica, "slice_" + Twine(replica) + "_" + Twine(chunk), vector(size),
        {flat},
        {b_.getNamedAttr("begin", b_.getDenseI64ArrayAttr({begin})),
         b_.getNamedAttr("size", b_.getDenseI64ArrayAttr({size}))});
  }

  /// `value` times 1/N on `replica`'s device (a mean).
  Value scale(size_t replica, Value value, const Twine &name) {
    auto scalar = RankedTensorType::get({}, element_);
    Value factor = make<ConstantOp>(
        replica, name + "/Const", scalar, {},
        {b_.getNamedAttr("value", getSplatAttr(scalar, 1.0 / devices_.size()))});
    return make<MulOp>(replica, name + "/mul", value.getType(),
                       {value, factor});
  }

  AllReduceOp op_;
  OpBuilder b_;
  std::string scope_;
  std::vector<std::string> devices_;
  Type element_;
};

void RingBuilder::build() {
  size_t n = devices_.size();
  auto type = cast<RankedTensorType>(op_.getInputs().front().getType());
  element_ = type.getElementType();
  bool mean = op_.getReduction() == "mean";
  // A mean of f16 tensors is scaled before the sum, each input on its own
  // device, as PyTorch's DDP divides before its all-reduce: N gradients
  // near f16's largest value (65504) would add up to infinity, where their
  // mean is finite (the collective adds them in f32). Other types (bf16
  // has f32's range) are scaled once, after.
  bool prescale = mean && n > 1 && element_.isF16();
  int64_t elements = type.getNumElements();
  SmallVector<Value> results(n);
  SmallVector<Value> inputs(op_.getInputs());
  if (prescale)
    for (auto [i, input] : llvm::enumerate(inputs))
      input = scale(i, input, "prescale_" + Twine(i));

  if (static_cast<int64_t>(n) > elements || n == 1) {
    // Too small to cut: summed on the first device, sent to the others.
    Value sum = inputs.front();
    if (n > 1) {
      auto addN = b_.create<AddNOp>(op_.getLoc(), type, inputs, StringAttr(),
                                    StringAttr(), StringAttr(), ValueRange());
      sum = pin(addN, 0, "AddN");
    }
    if (mean && n > 1 && !prescale)
      sum = scale(0, sum, "mean");
    for (size_t i = 0; i < n; ++i)
      results[i] = i == 0 ? sum
                          : make<IdentityOp>(i, "broadcast_" + Twine(i), type,
                                             {sum});
    op_.replaceAllUsesWith(results);
    op_.erase();
    return;
  }

  // Flatten; chunk c is [begin[c], begin[c] + size[c]).
  SmallVector<Value> flat;
  for (auto [i, input] : llvm::enumerate(inputs))
    flat.push_back(type.getRank() == 1
                       ? input
                       : make<ReshapeOp>(i, "flatten_" + Twine(i),
                                         vector(elements), {input}));
  SmallVector<int64_t> begin(n), size(n);
  for (size_t c = 0, at = 0; c < n; ++c) {
    size[c] = elements / n + (static_cast<int64_t>(c) <
                              elements % static_cast<int64_t>(n));
    begin[c] = at;
    at += size[c];
  }

  // Reduce-scatter: chunk c from device c+1 around to device c.
  SmallVector<Value> reduced(n);
  for (size_t c = 0; c < n; ++c) {
    size_t first = (c + 1) % n;
    Value partial = slice(first, flat[first], begin[c], size[c], c);
    for (size_t hop = 2; hop <= n; ++hop) {
      size_t d = (c + hop) % n;
      Value own = slice(d, flat[d], begin[c], size[c], c);
      partial = make<AddOp>(d, "reduce_" + Twine(c) + "_" + Twine(d),
                            vector(size[c]), {partial, own});
    }
    reduced[c] =
        mean && !prescale ? scale(c, partial, "mean_" + Twine(c)) : partial;
  }

  // All-gather: each reduced chunk travels the ring once more.
  std::vector<SmallVector<Value>> have(n, SmallVector<Value>(n));
  for (size_t c = 0; c < n; ++c) {
    Value value = reduced[c];
    have[c][c] = value;
    for (size_t hop = 1; hop < n; ++hop) {
      size_t d = (c + hop) % n;
      value = make<IdentityOp>(d, "gather_" + Twine(c) + "_" + Twine(d),
                               value.getType(), {value});
      have[d][c] = value;
    }
  }
  for (size_t d = 0; d < n; ++d) {
    auto concat = b_.create<ConcatOp>(op_.getLoc(), vector(elements), have[d],
                                      b_.getI64IntegerAttr(0), StringAttr(),
                                      StringAttr(), StringAttr(), ValueRange());
    Value joined = pin(concat, d, "concat_" + Twine(d));
    results[d] = type.getRank() == 1
                     ? joined
                     : make<ReshapeOp>(d, "reshape_" + Twine(d), type,
                                       {joined});
  }
  op_.replaceAllUsesWith(results);
  op_.erase();
}

/// Replaces `op` by one collective_reduce per device: member i on
/// devices[i], all of instance `instanceKey` in group `groupKey`. A single
/// device's all-reduce is its input.
void buildCollective(AllReduceOp op, int64_t groupKey, int64_t instanceKey,
                     StringRef scope) {
  size_t n = op.getInputs().size();
  if (n == 1) {
    op.replaceAllUsesWith(op.getInputs());
    op.erase();
    return;
  }
  OpBuilder b(op);
  bool mean = op.getReduction() == "mean";
  SmallVector<Value> results;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    auto member = b.create<CollectiveReduceOp>(
        op.getLoc(), input, groupKey, static_cast<int64_t>(n), instanceKey,
        static_cast<int64_t>(i), b.getDenseI64ArrayAttr({}), mean,
        /*device=*/cast<StringAttr>(op.getDevices()[i]),
        /*name=*/b.getStringAttr(scope + "/CollectiveReduceV2_" + Twine(i)),
        /*assigned_device=*/StringAttr(), ValueRange());
    results.push_back(member.getResult());
  }
  op.replaceAllUsesWith(results);
  op.erase();
}

struct LowerAllReducePass
    : gplace::impl::LowerAllReducePassBase<LowerAllReducePass> {
  using LowerAllReducePassBase::LowerAllReducePassBase;

  void runOnOperation() override {
    SmallVector<AllReduceOp> ops;
    getOperation().walk([&](AllReduceOp op) { ops.push_back(op); });
    // Nothing to lower: the IR is unchanged, and the pass manager need not
    // verify it again.
    if (ops.empty())
      return markAllAnalysesPreserved();
    if (algorithm != "collective" && algorithm != "ring") {
      emitError(UnknownLoc::get(&getContext()))
          << "gplace-lower-all-reduce: algorithm must be 'collective' or "
             "'ring', not '"
          << algorithm << "'";
      return signalPassFailure();
    }
    // One group per list of devices, one instance per all-reduce, keyed in
    // program order (every task numbers them alike), after the keys the
    // module's own collective_reduce ops use.
    std::map<std::vector<StringRef>, int64_t> groups;
    int64_t firstGroup = 0, firstInstance = 0;
    getOperation().walk([&](CollectiveReduceOp op) {
      firstGroup = std::max(firstGroup, op.getGroupKeyAttr().getInt() + 1);
      firstInstance = std::max(firstInstance, op.getInstanceKeyAttr().getInt() + 1);
    });
    unsigned count = 0;
    for (AllReduceOp op : ops) {
      std::string scope = "AllReduce";
      if (auto name = op->getAttrOfType<StringAttr>("name"))
        scope = name.str();
      else if (count > 0)
        scope += "_" + std::to_string(count);
      ++count;
      if (algorithm == "ring") {
        RingBuilder(op, scope).build();
        continue;
      }
      std::vector<StringRef> devices;
      for (Attribute device : op.getDevices())
        devices.push_back(cast<StringAttr>(device).getValue());
      int64_t group =
          groups.try_emplace(devices, firstGroup + groups.size()).first->second;
      buildCollective(op, group, firstInstance + count - 1, scope);
    }
  }
};

} // namespace
