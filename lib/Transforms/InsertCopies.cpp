//===- InsertCopies.cpp - a copy on every cross-device data edge ----------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Dialect/Graph/InterfaceCache.h"
#include "gplace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace gplace {
#define GEN_PASS_DEF_INSERTCOPIESPASS
#include "gplace/Transforms/Passes.h.inc"
} // namespace gplace

using namespace mlir;
using namespace gplace;
using namespace gplace::graph;

namespace {
struct InsertCopiesPass
    : public gplace::impl::InsertCopiesPassBase<InsertCopiesPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](func::FuncOp func) {
      // One copy per (value, destination); copies already there are reused.
      DenseMap<std::pair<Value, StringAttr>, Value> copies;
      DenseMap<Value, Operation *> lastCopy;
      SmallVector<PlacedOpInterface> ops;
      // Per kind of op: is it a transfer, is it control-only (an interface
      // cast searches the op's interfaces, and hasTrait takes the TypeID of
      // each of its traits).
      DenseMap<const void *, std::pair<bool, bool>> kinds;
      InterfaceCache<PlacedOpInterface> placed;
      placed.walk(func, [&](PlacedOpInterface op) {
        auto [kind, isNew] =
            kinds.try_emplace(op->getName().getAsOpaquePointer());
        if (isNew)
          kind->second = {isa<TransferOpInterface>(op.getOperation()),
                          op->hasTrait<graph::OpTrait::ControlOnly>()};
        auto [transfer, controlOnly] = kind->second;
        // A control-only op (a group) waits for its operands without
        // moving them.
        if (transfer) {
          auto copy = cast<TransferOpInterface>(op.getOperation());
          copies[{copy.getTransferred(), copy.getDestinationDevice()}] =
              copy->getResult(0);
          lastCopy[copy.getTransferred()] = copy;
        } else if (!controlOnly)
          ops.push_back(op);
      });
      OpBuilder builder(func.getContext());
      for (PlacedOpInterface op : ops) {
        auto destination = op->getAttrOfType<StringAttr>("assigned_device");
        if (!destination) {
          op->emitError("op has no assigned device; run --gplace-place first");
          ok = false;
          continue;
        }
        for (OpOperand &operand : op->getOpOperands()) {
          Value value = operand.get();
          if (isa<ControlType>(value.getType()))
            continue; // Ordering, not data: --gplace-insert-control-deps.
          StringAttr source = getValueDevice(value);
          if (!source) {
            op->emitError() << "operand #" << operand.getOperandNumber()
                            << " comes from an op without an assigned "
                               "device; run --gplace-place first";
            ok = false;
            continue;
          }
          if (source == destination)
            continue;
          if (isa<ResourceType>(value.getType())) {
            op->emitError() << "op on '" << destination.getValue()
                            << "' uses a resource on '" << source.getValue()
                            << "'; resources are not copied (run "
                               "--gplace-place to colocate them)";
            ok = false;
            continue;
          }
          Value &copy = copies[{value, destination}];
          if (!copy) {
            // After the producer and its earlier copies: copies of a value
            // keep the order in which consumers need them.
            Operation *&last = lastCopy[value];
            if (last)
              builder.setInsertionPointAfter(last);
            else
              builder.setInsertionPointAfterValue(value);
            copy = builder.create<CopyOp>(
                value.getLoc(), value, source, destination,
                /*device=*/StringAttr(), /*name=*/StringAttr(),
                /*assigned_device=*/destination, ValueRange());
            last = copy.getDefiningOp();
          }
          operand.set(copy);
        }
      }
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
