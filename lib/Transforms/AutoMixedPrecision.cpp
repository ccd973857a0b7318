//===- AutoMixedPrecision.cpp - Grappler's auto mixed precision -----------===//
//
// --gplace-auto-mixed-precision: allow-listed ops (matmul, convolutions and
// their gradients) run in bf16 or f16, infer-listed ones follow their
// operands, the rest stay in f32, with casts at the boundaries, as
// TensorFlow Grappler's AutoMixedPrecision does. The lists are the ops'
// traits (getMixedPrecisionList); this file names no op but the cast it
// inserts. docs/passes/auto-mixed-precision.md.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

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
    DeviceSet devices = getModuleDevices(module).value_or(
        DeviceSet::localhost(/*numCpus=*/1, /*numGpus=*/0));
    for (const DeviceName &device : devices.devices())
      if (device.type)
        deviceTypes.insert(*device.type);
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
      if (!registry.hasKernel(name, lowKind, device)) {
        missing = std::string(deviceTypeName(device));
        return false;
      }
    }
    return any;
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
  /// producer (or at the start of the block for an argument).
  Value castOf(Value value, Type to, StringRef suffix) {
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
    Operation *castOp = builder.create<CastOp>(
        value.getLoc(), TypeRange{tensor.clone(to)}, ValueRange{value},
        ArrayRef<NamedAttribute>{
            builder.getNamedAttr("name", builder.getStringAttr(name))});
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
          operand.set(castOf(operand.get(), low, lowSuffix));
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
          use.set(castOf(result, f32, "Fp32"));
        }
      }
    bool changed = !converted.empty();
    nameOf.clear();
    pinned.clear();
    casts.clear();
    lowOps.clear();
    created.clear();
    lastArgumentCast.clear();
    return changed;
  }

  Type low;
  ElementType lowKind = ElementType::BF16;
  StringRef lowSuffix;
  std::set<DeviceType> deviceTypes;
  llvm::DenseMap<Operation *, std::string> nameOf;
  llvm::DenseSet<Operation *> pinned, lowOps, created;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  llvm::DenseMap<Block *, Operation *> lastArgumentCast;
};

} // namespace
