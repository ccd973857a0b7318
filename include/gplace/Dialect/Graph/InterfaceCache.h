//===- InterfaceCache.h - op interface casts per kind of op -----*- C++ -*-===//
//
// A cast to an op interface searches the op's interface map (a binary
// search, about 80 instructions here), and `dyn_cast` and
// `walk([](SomeOpInterface op) ...)` search it twice per op: once to ask
// whether the op implements the interface, once to build the interface
// object. Passes that cast every op of a large graph ask each kind of op
// once, through InterfaceCache.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_GRAPH_INTERFACECACHE_H
#define GPLACE_DIALECT_GRAPH_INTERFACECACHE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

namespace gplace::graph {

/// `dyn_cast<Iface>(op)` with the interface of each kind of op (its
/// OperationName) looked up once, through MLIR's own lookup (so an
/// interface a dialect provides for an op is found as dyn_cast finds it).
template <typename Iface> class InterfaceCache {
  using Concept = typename Iface::Concept;
  /// Opens Iface's protected lookup (OpInterface::getInterfaceFor).
  struct Lookup : Iface {
    using Iface::getInterfaceFor;
  };

public:
  /// `op` as an `Iface`, or a null interface if its kind of op does not
  /// implement it. `op` must not be null.
  Iface dynCast(mlir::Operation *op) {
    const void *name = op->getName().getAsOpaquePointer();
    if (name != lastName_) {
      auto [it, isNew] = concepts_.try_emplace(name);
      if (isNew)
        it->second = Lookup::getInterfaceFor(op);
      lastName_ = name;
      lastConcept_ = it->second;
    }
    return lastConcept_ ? Iface(op, lastConcept_) : Iface(nullptr);
  }

  /// Whether `op`'s kind of op implements `Iface`.
  bool isa(mlir::Operation *op) { return static_cast<bool>(dynCast(op)); }

  /// `root->walk(fn)` for `fn` taking an `Iface`: calls `fn` on every op
  /// nested in `root` (and `root` itself) that implements it, in the order
  /// of Operation::walk (post-order).
  template <typename Fn> void walk(mlir::Operation *root, Fn &&fn) {
    root->walk([&](mlir::Operation *op) {
      if (Iface iface = dynCast(op))
        fn(iface);
    });
  }

private:
  llvm::DenseMap<const void *, Concept *> concepts_;
  const void *lastName_ = nullptr;
  Concept *lastConcept_ = nullptr;
};

} // namespace gplace::graph

#endif // GPLACE_DIALECT_GRAPH_INTERFACECACHE_H
