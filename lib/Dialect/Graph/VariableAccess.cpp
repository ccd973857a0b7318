//===- VariableAccess.cpp - which ops read, write and view variables ------===//

#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Dialect/Graph/GraphDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace gplace::graph;

SmallVector<VariableAccess, 1>
gplace::graph::getVariableAccesses(Operation *op) {
  SmallVector<VariableAccess, 1> accesses;
  // The ops' effects on variables are on their resource operands (ODS's
  // MemRead/MemWrite on a resource argument): an op without one accesses
  // none, which is most ops, and asking their effects is an interface
  // cast and a call.
  if (llvm::none_of(op->getOperandTypes(),
                    [](Type type) { return isa<ResourceType>(type); }))
    return accesses;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return accesses;
  SmallVector<MemoryEffects::EffectInstance, 2> instances;
  effects.getEffectsOnResource(VariableResource::get(), instances);
  for (const MemoryEffects::EffectInstance &instance : instances) {
    if (!instance.getValue() ||
        !isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect()))
      continue; // Allocation (a variable's declaration) orders nothing.
    Value root = getResourceRoot(instance.getValue());
    auto *it = llvm::find_if(accesses, [&](const VariableAccess &access) {
      return access.variable == root;
    });
    if (it == accesses.end())
      it = accesses.insert(accesses.end(), VariableAccess{root});
    it->writes |= isa<MemoryEffects::Write>(instance.getEffect());
  }
  return accesses;
}

bool gplace::graph::writesVariable(Operation *op, Value variable) {
  return llvm::any_of(getVariableAccesses(op), [&](const VariableAccess &a) {
    return a.writes && a.variable == variable;
  });
}

bool gplace::graph::isVariableWritten(Value variable) {
  SmallVector<Value, 4> values = {variable};
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (writesVariable(user, variable))
        return true;
      if (forwardsInput(user) && isa<ResourceType>(user->getResult(0).getType()))
        values.push_back(user->getResult(0)); // A view of the resource.
    }
  }
  return false;
}

bool gplace::graph::forwardsInput(Operation *op) {
  return op->hasTrait<OpTrait::ForwardsInput>() && op->getNumResults() == 1 &&
         op->getNumOperands() > 0;
}
