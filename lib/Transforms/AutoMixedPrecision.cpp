//===- AutoMixedPrecision.cpp - Grappler's auto mixed precision -----------===//
//
// --gplace-auto-mixed-precision: allow-listed ops (matmul, convolutions and
// their gradients) run in bf16 or f16, infer-listed ones follow their
// operands, the rest stay in f32, with casts at the boundaries, as
// TensorFlow Grappler's AutoMixedPrecision does, and for f16 Keras's
// dynamic loss scaling as graph ops (addLossScaling). The lists are the
// ops' traits (getMixedPrecisionList); the ops this file names are only
// those it builds. docs/passes/auto-mixed-precision.md.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SetVector.h"

#include <set>

namespace gplace {
#define GEN_PASS_DEF_AUTOMIXEDPRECISIONPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {

/// Whether `type` is a tensor of f32 (the only type the pass narrows, as
/// Grappler converts DT_FLOAT alone).
bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

/// Whether `type` is a tensor of `low`.
bool isLowTensor(Type type, Type low) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType() == low;
}

struct AutoMixedPrecisionPass
    : gplace::impl::AutoMixedPrecisionPassBase<AutoMixedPrecisionPass> {
  using AutoMixedPrecisionPassBase::AutoMixedPrecisionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (type == "bf16") {
      low = BFloat16Type::get(context);
      lowKind = ElementType::BF16;
      lowSuffix = "Bf16";
    } else if (type == "f16") {
      low = Float16Type::get(context);
      lowKind = ElementType::F16;
      lowSuffix = "Fp16";
    } else {
      emitError(UnknownLoc::get(context))
          << "gplace-auto-mixed-precision: type must be 'bf16' or 'f16', not '"
          << type << "'";
      return signalPassFailure();
    }
    if (lossScale.empty()) {
      dynamicLossScale = type == "f16";
    } else if (lossScale == "dynamic" || lossScale == "none") {
      dynamicLossScale = lossScale == "dynamic";
    } else {
      emitError(UnknownLoc::get(context))
          << "gplace-auto-mixed-precision: loss-scale must be 'dynamic' or "
             "'none', not '"
          << lossScale << "'";
      return signalPassFailure();
    }
    DeviceSet devices = getModuleDevices(module).value_or(
        DeviceSet::localhost(/*numCpus=*/1, /*numGpus=*/0));
    // The compute capability the 16-bit type needs on a CUDA GPU, as
    // Grappler's auto_mixed_precision asks 7.0 for f16 (tensor cores); bf16
    // needs 8.0 (cuDNN's and cuBLAS's bf16).
    std::pair<int, int> needed =
        lowKind == ElementType::BF16 ? std::pair(8, 0) : std::pair(7, 0);
    for (const DeviceName &device : devices.devices()) {
      if (!device.type)
        continue;
      deviceTypes.insert(*device.type);
      const DeviceAttributes *attributes = devices.find(device);
      std::optional<std::pair<int, int>> capability =
          attributes ? computeCapability(attributes->description)
                     : std::nullopt;
      if (*device.type == DeviceType::GPU && capability &&
          *capability < needed && oldGpu.empty())
        oldGpu = "GPU (" + device.str() + " has compute capability " +
                 std::to_string(capability->first) + "." +
                 std::to_string(capability->second) + ", and " + type +
                 " needs " + std::to_string(needed.first) + "." +
                 std::to_string(needed.second) + ")";
    }
    bool changed = false;
    for (auto func : module.getOps<func::FuncOp>())
      changed |= runOnFunction(func);
    if (!changed)
      markAllAnalysesPreserved();
  }

  /// Whether `op` has a kernel in the 16-bit type on every device type of
  /// the module that has an f32 kernel for it (Grappler's SupportsF16).
  /// Names the first device type without one in `missing`.
  bool hasLowKernel(Operation *op, std::string &missing) {
    const KernelRegistry &registry = KernelRegistry::global();
    std::string_view name(op->getName().getStringRef().data(),
                          op->getName().getStringRef().size());
    bool any = false;
    for (DeviceType device : deviceTypes) {
      if (!registry.hasKernel(name, ElementType::F32, device))
        continue;
      any = true;
      if (device == DeviceType::GPU && !oldGpu.empty()) {
        missing = oldGpu;
        return false;
      }
      if (!registry.hasKernel(name, lowKind, device)) {
        missing = std::string(deviceTypeName(device));
        return false;
      }
    }
    return any;
  }

  /// The compute capability in a CUDA GPU's physical description
  /// ("..., compute capability: 7.5"); std::nullopt where there is none
  /// (an emulated GPU, "unknown").
  static std::optional<std::pair<int, int>>
  computeCapability(llvm::StringRef description) {
    constexpr llvm::StringLiteral key = "compute capability: ";
    size_t at = description.find(key);
    if (at == llvm::StringRef::npos)
      return std::nullopt;
    auto [major, minor] =
        description.drop_front(at + key.size()).split(',').first.split('.');
    int a = 0, b = 0;
    if (major.trim().getAsInteger(10, a) || minor.trim().getAsInteger(10, b))
      return std::nullopt;
    return std::pair(a, b);
  }

  /// Whether `op` runs in the 16-bit type: an allow-listed op with an f32
  /// result, or an infer-listed one with a 16-bit float operand, with the
  /// kernels for it.
  bool shouldConvert(Operation *op) {
    if (!isa<PlacedOpInterface>(op) || pinned.contains(op))
      return false;
    MixedPrecisionList list = getMixedPrecisionList(op);
    if (list != MixedPrecisionList::Allow &&
        list != MixedPrecisionList::Infer)
      return false;
    if (!llvm::any_of(op->getResultTypes(), isF32Tensor))
      return false;
    // Every float operand is f32 or already 16-bit (an f64 one would have
    // to be narrowed: leave the op as it is).
    bool anyLow = false;
    for (Value operand : cast<PlacedOpInterface>(op).getDataOperands()) {
      auto tensor = dyn_cast<RankedTensorType>(operand.getType());
      if (!tensor || !isa<FloatType>(tensor.getElementType()))
        continue;
      if (isLowTensor(tensor, low))
        anyLow = true;
      else if (!tensor.getElementType().isF32())
        return false;
    }
    if (list == MixedPrecisionList::Infer && !anyLow)
      return false;
    std::string missing;
    if (!hasLowKernel(op, missing)) {
      if (list == MixedPrecisionList::Allow && !missing.empty())
        op->emitRemark() << "gplace-auto-mixed-precision: '" << nameOf[op]
                         << "' stays in f32: no " << type << " kernel on "
                         << missing;
      return false;
    }
    return true;
  }

  /// The cast of `value` to `to`, one per value and type, right after its
  /// producer (or at the start of the block for an argument). It asks for
  /// its producer's device (Grappler's AMP builds a cast on its source's
  /// device), else for that of `user`, the op it is made for: casts
  /// between float types have GPU kernels, and a cast placed by default
  /// would leave the stage or tower of the ops around it.
  Value castOf(Value value, Type to, StringRef suffix, Operation *user) {
    auto key = std::make_pair(value, to);
    if (Value cached = casts.lookup(key))
      return cached;
    OpBuilder builder(context());
    std::string producer;
    unsigned index = 0;
    if (Operation *def = value.getDefiningOp()) {
      builder.setInsertionPointAfter(def);
      producer = nameOf.lookup(def);
      index = cast<OpResult>(value).getResultNumber();
    } else {
      // At the start of the block, after the casts of other arguments.
      auto argument = cast<BlockArgument>(value);
      Operation *&last = lastArgumentCast[argument.getOwner()];
      if (last)
        builder.setInsertionPointAfter(last);
      else
        builder.setInsertionPointToStart(argument.getOwner());
      producer = "arg" + std::to_string(argument.getArgNumber());
    }
    auto tensor = cast<RankedTensorType>(value.getType());
    std::string name = producer + "-" + std::to_string(index) + "-CastTo" +
                       suffix.str() + "-AutoMixedPrecision";
    SmallVector<NamedAttribute, 2> attributes = {
        builder.getNamedAttr("name", builder.getStringAttr(name))};
    Operation *def = value.getDefiningOp();
    StringAttr request =
        def ? def->getAttrOfType<StringAttr>("device") : StringAttr();
    if (!request && user)
      request = user->getAttrOfType<StringAttr>("device");
    if (request)
      attributes.push_back(builder.getNamedAttr("device", request));
    Operation *castOp = builder.create<CastOp>(
        value.getLoc(), TypeRange{tensor.clone(to)}, ValueRange{value},
        attributes);
    created.insert(castOp);
    if (isa<BlockArgument>(value))
      lastArgumentCast[castOp->getBlock()] = castOp;
    casts[key] = castOp->getResult(0);
    return castOp->getResult(0);
  }

  MLIRContext *context() { return &getContext(); }

  bool runOnFunction(func::FuncOp func) {
    std::vector<std::string> names = getOpNames(func);
    size_t index = 0;
    func->walk<WalkOrder::PreOrder>(
        [&](PlacedOpInterface op) { nameOf[op] = names[index++]; });
    // What gplace.gradients differentiates with respect to keeps its
    // type: the backward graph reaches it through its uses.
    func.walk([&](GradientsOp op) {
      for (Value x : op.getXs())
        if (Operation *def = x.getDefiningOp())
          pinned.insert(def);
    });
    // Program order: an infer-listed op sees its operands decided.
    SmallVector<Operation *> converted;
    func.walk([&](Operation *op) {
      if (created.contains(op) || !shouldConvert(op))
        return;
      for (OpOperand &operand :
           op->getOpOperands().drop_back(
               cast<PlacedOpInterface>(op).getControlDependencies().size()))
        if (isF32Tensor(operand.get().getType()))
          operand.set(castOf(operand.get(), low, lowSuffix, op));
      for (OpResult result : op->getResults())
        if (isF32Tensor(result.getType()))
          result.setType(cast<RankedTensorType>(result.getType()).clone(low));
      lowOps.insert(op);
      converted.push_back(op);
    });
    // Users in f32 (deny-listed ops, ops in no list, func.return,
    // gplace.gradients) get a cast back.
    Type f32 = Float32Type::get(context());
    for (Operation *op : converted)
      for (OpResult result : op->getResults()) {
        if (!isLowTensor(result.getType(), low))
          continue;
        for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
          Operation *user = use.getOwner();
          if (lowOps.contains(user) || created.contains(user))
            continue;
          use.set(castOf(result, f32, "Fp32", user));
        }
      }
    bool changed = !converted.empty();
    if (changed && dynamicLossScale)
      addLossScaling(func);
    nameOf.clear();
    pinned.clear();
    casts.clear();
    lowOps.clear();
    created.clear();
    lastArgumentCast.clear();
    return changed;
  }

  /// Builds `OpT` with explicit result types, operands and attributes.
  template <typename OpT>
  Value build(OpBuilder &b, Location loc, Type result, ValueRange operands,
              ArrayRef<NamedAttribute> attrs = {}) {
    return b.create<OpT>(loc, TypeRange{result}, operands, attrs)
        ->getResult(0);
  }

  /// Dynamic loss scaling, as Keras's LossScaleOptimizer (TensorFlow's
  /// DynamicLossScale): the function's one gplace.gradients of a scalar
  /// f32 loss differentiates loss * scale (grad_ys = scale); its gradients
  /// are divided by the scale; when one of them is not finite, every
  /// variable the function writes after the gradients gets back its value
  /// from before (the update is skipped) and the scale halves (at least
  /// 1), else after 2000 finite steps in a row it doubles. The scale and
  /// the count of good steps are variables (`loss_scale/current_loss_scale`,
  /// initially 2^15, and `loss_scale/good_steps`, an f32 (Keras counts in
  /// an int64; f32 counts to 2000 exactly, and float ops have GPU kernels,
  /// so the scaling stays in a GPU's CUDA graph), placed, planned and
  /// checkpointed as any other. Nothing for a function that writes
  /// no variable after its gradients (it does not train).
  void addLossScaling(func::FuncOp func) {
    SmallVector<GradientsOp> all;
    func.walk([&](GradientsOp op) { all.push_back(op); });
    if (all.empty())
      return;
    GradientsOp grads = all.front();
    auto scalarF32 = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getRank() == 0 && t.getElementType().isF32();
    };
    if (all.size() != 1 || grads.getYs().size() != 1 ||
        !grads.getGradYs().empty() || !scalarF32(grads.getYs()[0]) ||
        grads->getBlock() != &func.getBody().front()) {
      grads.emitRemark() << "gplace-auto-mixed-precision: no loss scaling in "
                            "@" << func.getSymName()
                         << ": it needs one gplace.gradients of one scalar "
                            "f32 loss, without grad_ys";
      return;
    }
    // The variables written after the gradients: a function that trains
    // nothing (gradients alone) keeps its meaning, without state.
    llvm::MapVector<Value, SmallVector<Operation *>> writers;
    for (Operation *op = grads->getNextNode(); op; op = op->getNextNode())
      for (const VariableAccess &access : getVariableAccesses(op))
        if (access.writes)
          writers[access.variable].push_back(op);
    if (writers.empty())
      return;
    MLIRContext *ctx = context();
    Location loc = grads.getLoc();
    Block &body = func.getBody().front();
    OpBuilder b(ctx);
    auto named = [&](StringRef name) {
      return SmallVector<NamedAttribute, 1>{
          b.getNamedAttr("name", b.getStringAttr("loss_scale/" + name))};
    };
    auto f32Scalar = RankedTensorType::get({}, b.getF32Type());
    auto i1Scalar = RankedTensorType::get({}, b.getI1Type());
    auto constant = [&](StringRef name, Attribute value) {
      auto attrs = named(name);
      attrs.push_back(b.getNamedAttr("value", value));
      return build<ConstantOp>(b, loc, cast<TypedAttr>(value).getType(), {},
                               attrs);
    };
    // The state, first in the function.
    b.setInsertionPointToStart(&body);
    auto variable = [&](StringRef name, Attribute init) {
      auto attrs = named(name);
      attrs.push_back(b.getNamedAttr("initial_value", init));
      auto resource = ResourceType::get(
          ctx, cast<RankedTensorType>(cast<TypedAttr>(init).getType()));
      return build<VariableOp>(b, loc, resource, {}, attrs);
    };
    Value scaleVar = variable(
        "current_loss_scale",
        DenseElementsAttr::get(f32Scalar, b.getF32FloatAttr(32768.0f)));
    Value stepsVar = variable(
        "good_steps",
        DenseElementsAttr::get(f32Scalar, b.getF32FloatAttr(0.0f)));
    // The scaled loss's gradients.
    b.setInsertionPoint(grads);
    Value scale = build<ReadOp>(b, loc, f32Scalar, {scaleVar}, named("read"));
    grads.getGradYsMutable().append(scale);
    b.setInsertionPointAfter(grads);
    Value zero = constant(
        "zero", DenseElementsAttr::get(f32Scalar, b.getF32FloatAttr(0.0f)));
    Value total;
    SmallVector<Value> unscaled;
    for (auto [i, g] : llvm::enumerate(grads.getResults())) {
      std::string k = std::to_string(i);
      Value u = build<DivOp>(b, loc, g.getType(), {g, scale},
                             named("unscale/" + k));
      unscaled.push_back(u);
      // u * 0 is 0 for a finite u, NaN for an infinite or NaN one.
      Value z = build<MulOp>(b, loc, g.getType(), {u, zero},
                             named("check/" + k));
      auto rank = cast<RankedTensorType>(g.getType()).getRank();
      auto axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      auto attrs = named("check/sum_" + k);
      attrs.push_back(b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)));
      Value sum = build<ReduceSumOp>(b, loc, f32Scalar, {z}, attrs);
      total = total ? build<AddOp>(b, loc, f32Scalar, {total, sum},
                                   named("check/add_" + k))
                    : sum;
    }
    for (auto [g, u] : llvm::zip(grads.getResults(), unscaled))
      g.replaceAllUsesExcept(u, u.getDefiningOp());
    Value finite = build<EqualOp>(b, loc, i1Scalar, {total, zero},
                                  named("is_finite"));
    // The writes after the gradients, per variable: its value before the
    // first, restored after the last unless the step was finite.
    SmallVector<Value> restored;
    llvm::DenseMap<Value, Value> restoreOf; // Variable -> its restoration.
    llvm::DenseSet<Operation *> mine;
    for (auto &[var, ops] : writers) {
      auto valueType =
          cast<ResourceType>(var.getType()).getValueType();
      std::string name = "skip_" + std::to_string(restored.size());
      b.setInsertionPoint(ops.front());
      Value old = build<ReadOp>(b, loc, valueType, {var}, named(name + "/old"));
      Operation *last = ops.back();
      b.setInsertionPointAfter(last);
      SmallVector<Value> tokens;
      for (Operation *op : ops)
        for (Value result : op->getResults())
          if (isa<ControlType>(result.getType()))
            tokens.push_back(result);
      SmallVector<Value> operands = {var};
      operands.append(tokens);
      Operation *updated = b.create<ReadOp>(loc, TypeRange{valueType},
                                            ValueRange(operands),
                                            named(name + "/new"));
      mine.insert(updated);
      Value select = build<SelectOp>(b, loc, valueType,
                                     {finite, updated->getResult(0), old},
                                     named(name + "/select"));
      Operation *assign = b.create<AssignOp>(
          loc, TypeRange{ControlType::get(ctx)}, ValueRange{var, select},
          named(name + "/assign"));
      restored.push_back(assign->getResult(0));
      restoreOf[var] = assign->getResult(0);
      mine.insert(assign);
    }
    // What waited for an update waits for its restoration: an op after
    // every restoration waits for them all (`loss_scale/done`); one before
    // the last (an update that waits for others' updates, as Adam's
    // beta-power assigns wait for the apply_adams' group) waits for the
    // restorations of the variables its token's writer writes, where they
    // come before it, else for the update itself (it runs before the
    // restorations, as it did before the updates were made skippable).
    auto group = [&](ArrayRef<Value> tokens, StringRef name) {
      Operation *latest = nullptr;
      for (Value token : tokens)
        if (Operation *op = token.getDefiningOp();
            !latest || latest->isBeforeInBlock(op))
          latest = op;
      b.setInsertionPointAfter(latest);
      Operation *op = b.create<GroupOp>(
          loc, ControlType::get(ctx), ValueRange(tokens), StringAttr(),
          b.getStringAttr("loss_scale/" + name), StringAttr(), ValueRange{});
      mine.insert(op);
      return op;
    };
    if (!restored.empty()) {
      Operation *done = group(restored, "done");
      llvm::SetVector<Operation *> writerOps;
      for (auto &[var, ops] : writers)
        writerOps.insert(ops.begin(), ops.end());
      // Per writer: the restorations of what it writes, and their group.
      struct WriterDone {
        SmallVector<Value> tokens;
        Operation *group = nullptr;
      };
      llvm::DenseMap<Operation *, WriterDone> writerDone;
      unsigned numGroups = 0;
      for (Operation *op : writerOps)
        for (Value result : op->getResults()) {
          if (!isa<ControlType>(result.getType()))
            continue;
          for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
            if (mine.contains(use.getOwner()))
              continue;
            Operation *user = body.findAncestorOpInBlock(*use.getOwner());
            if (!user)
              continue;
            if (done->isBeforeInBlock(user)) {
              use.set(done->getResult(0));
              continue;
            }
            auto [it, isNew] = writerDone.try_emplace(op);
            if (isNew)
              for (const VariableAccess &access : getVariableAccesses(op))
                if (access.writes)
                  if (Value token = restoreOf.lookup(access.variable))
                    it->second.tokens.push_back(token);
            WriterDone &own = it->second;
            if (own.tokens.empty() ||
                !llvm::all_of(own.tokens, [&](Value token) {
                  return token.getDefiningOp()->isBeforeInBlock(user);
                }))
              continue;
            if (!own.group)
              own.group =
                  group(own.tokens, "done_" + std::to_string(++numGroups));
            use.set(own.group->getResult(0));
          }
        }
    }
    // The scale's update, before the function returns.
    b.setInsertionPoint(body.getTerminator());
    Value steps = build<ReadOp>(b, loc, f32Scalar, {stepsVar},
                                named("good_steps/read"));
    Value one = constant("one", DenseElementsAttr::get(
                                    f32Scalar, b.getF32FloatAttr(1.0f)));
    Value next = build<AddOp>(b, loc, f32Scalar, {steps, one},
                              named("good_steps/add"));
    Value period = constant("period", DenseElementsAttr::get(
                                          f32Scalar, b.getF32FloatAttr(2000.0f)));
    Value grow = build<GreaterEqualOp>(b, loc, i1Scalar, {next, period},
                                       named("grow"));
    Value two = constant("two", DenseElementsAttr::get(
                                    f32Scalar, b.getF32FloatAttr(2.0f)));
    Value half = constant("half", DenseElementsAttr::get(
                                      f32Scalar, b.getF32FloatAttr(0.5f)));
    Value oneF = constant("one_f", DenseElementsAttr::get(
                                       f32Scalar, b.getF32FloatAttr(1.0f)));
    Value doubled = build<MulOp>(b, loc, f32Scalar, {scale, two},
                                 named("double"));
    Value halved = build<MaximumOp>(
        b, loc, f32Scalar,
        {build<MulOp>(b, loc, f32Scalar, {scale, half}, named("halve")), oneF},
        named("halve/at_least_1"));
    Value kept = build<SelectOp>(b, loc, f32Scalar, {grow, doubled, scale},
                                 named("grow/select"));
    Value newScale = build<SelectOp>(b, loc, f32Scalar,
                                     {finite, kept, halved}, named("update"));
    Value count = build<SelectOp>(b, loc, f32Scalar, {grow, zero, next},
                                  named("good_steps/select"));
    Value newSteps = build<SelectOp>(b, loc, f32Scalar,
                                     {finite, count, zero},
                                     named("good_steps/update"));
    auto control = ControlType::get(ctx);
    b.create<AssignOp>(loc, TypeRange{control}, ValueRange{scaleVar, newScale},
                       named("assign"));
    b.create<AssignOp>(loc, TypeRange{control}, ValueRange{stepsVar, newSteps},
                       named("good_steps/assign"));
  }

  Type low;
  bool dynamicLossScale = false;
  ElementType lowKind = ElementType::BF16;
  StringRef lowSuffix;
  std::set<DeviceType> deviceTypes;
  /// The first GPU of the module below the compute capability the 16-bit
  /// type needs, as the remark names it; "" if none: GPUs then have no
  /// 16-bit kernels.
  std::string oldGpu;
  llvm::DenseMap<Operation *, std::string> nameOf;
  llvm::DenseSet<Operation *> pinned, lowOps, created;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  llvm::DenseMap<Block *, Operation *> lastArgumentCast;
};

} // namespace
