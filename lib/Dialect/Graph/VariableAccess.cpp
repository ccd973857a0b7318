//===- VariableAccess.cpp - which ops read, write and view variables ------===//

#include "gplace/Dialect/Graph/VariableAccess.h"
#include "gplace/Dialect/Graph/GraphDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

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

VariableWriters gplace::graph::collectVariableWriters(Block &block) {
  VariableWriters writers;
  for (Operation &op : block)
    for (const VariableAccess &access : getVariableAccesses(&op))
      if (access.writes)
        writers[access.variable].push_back(&op);
  return writers;
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

/// True if `to` depends on `from` through data or tokens. Only ops between
/// the two in the block can be on the way.
static bool reaches(Operation *from, Operation *to) {
  SmallVector<Operation *, 8> worklist = {from};
  SmallPtrSet<Operation *, 16> visited;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (op == to)
      return true;
    if (!visited.insert(op).second || to->isBeforeInBlock(op))
      continue;
    for (Operation *user : op->getUsers())
      worklist.push_back(user);
  }
  return false;
}

bool gplace::graph::readNeedsCopy(Operation *read,
                                  ArrayRef<Operation *> writers) {
  Operation *write = nullptr;
  for (Operation *candidate : writers)
    if (read->isBeforeInBlock(candidate)) {
      write = candidate;
      break;
    }
  if (!write)
    return false;
  StringAttr writeDevice = write->getAttrOfType<StringAttr>("assigned_device");
  SmallVector<Value, 4> values = {read->getResult(0)};
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user->hasTrait<OpTrait::ForwardsInput>() &&
          isa<RankedTensorType>(user->getResult(0).getType()) &&
          !isa<KernelOpInterface>(user)) {
        values.push_back(user->getResult(0)); // A view of the value.
        continue;
      }
      if (user->hasTrait<OpTrait::ControlOnly>())
        continue; // Reads no data.
      if (user == write || !isa<PlacedOpInterface>(user))
        return true; // The write itself, or a result of the program.
      bool sameStream =
          isa<KernelOpInterface>(user) &&
          user->getAttrOfType<StringAttr>("assigned_device") == writeDevice &&
          user->isBeforeInBlock(write);
      if (!sameStream && !reaches(user, write))
        return true;
    }
  }
  return false;
}

bool gplace::graph::forwardsInput(Operation *op) {
  return op->hasTrait<OpTrait::ForwardsInput>() && op->getNumResults() == 1 &&
         op->getNumOperands() > 0;
}
