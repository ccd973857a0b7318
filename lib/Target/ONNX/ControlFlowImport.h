//===- ControlFlowImport.h - one If, Loop or Scan node's import -*- C++ -*-===//
//
// Part of the ONNX importer (OnnxImporter.h), private to it: the class that
// imports one control-flow node, shared by ControlFlow.cpp (the helpers,
// If, the outputs) and ControlFlowLoop.cpp (Loop and Scan). ControlFlow.cpp
// says how each op is imported.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_TARGET_ONNX_CONTROLFLOWIMPORT_H
#define GPLACE_LIB_TARGET_ONNX_CONTROLFLOWIMPORT_H

#include "OnnxImporter.h"

#include <map>

namespace gplace::frontend::onnx_import {

/// The subgraph attribute `attrName` of `proto`, or null.
const onnx::GraphProto *subgraphAttr(const onnx::NodeProto &proto,
                                     llvm::StringRef attrName);
/// Whether `graph` gives a sequence or an optional (its declared outputs).
bool givesList(const onnx::GraphProto &graph);

/// The import of one If, Loop or Scan node (Importer::importControlFlow):
/// the node, the outputs it gives so far and the ops built for it, with
/// one member function per op and form. Those returning bool give false
/// once the node failed (fail() recorded why); those returning a string
/// give "" or why the node fails.
class ControlFlowImport {
public:
  ControlFlowImport(Importer &importer, const onnx::NodeProto &proto,
                    const std::string &name, const std::string &opType,
                    int64_t opset)
      : im(importer), b(importer.b), proto(proto), name(name), opType(opType),
        opset(opset),
        node{importer,
             proto,
             name,
             NameLoc::get(importer.b.getStringAttr(name), importer.fileLoc),
             opset,
             {}} {}

  /// Imports the node: its outputs become the importer's values or lists,
  /// or the node's failure is recorded (Importer::unsupported) and its
  /// outputs poisoned.
  void run();

private:
  /// What the regions of a run-time op (gplace.if, gplace.while) read from
  /// around them.
  struct Captures {
    SmallVector<std::string> names; ///< Passed as operands.
    SmallVector<Value> values;
    SmallVector<std::string> constantNames; ///< Materialized inside.
  };
  /// A Loop as importLoop reads it, shared by its unrolled and run-time
  /// forms.
  struct LoopForm {
    const onnx::GraphProto *body = nullptr;
    int64_t carried = 0, scans = 0;
    std::optional<int64_t> tripCount, condValue = 1;
    /// Whether the loop needs the run (gplace.while).
    bool runTime = false;
    /// The carried values: at first the loop's inputs, then each
    /// iteration's outputs (null for a sequence or optional).
    SmallVector<Value> state, initialState;
    /// The carried sequences and optionals: each one's name in `lists`
    /// ("" for a tensor).
    SmallVector<std::string> stateLists;
  };

  // Helpers shared by the ops.
  bool fail(std::string reason);
  std::optional<int64_t> constantInt(int i);
  void note(Value v);
  Value stack(ArrayRef<Value> steps, int64_t axis, bool reverse,
              const std::string &suffix);
  std::string iterationScope(int64_t t) const;
  SmallVector<std::string>
  capturedNames(ArrayRef<const onnx::GraphProto *> graphs) const;
  bool readsList(ArrayRef<std::string> free) const;
  Captures capture(ArrayRef<std::string> free);
  std::string importRegion(Region &region, const onnx::GraphProto *graph,
                           TypeRange argTypes, size_t capturedAt,
                           const Captures &c, const std::string &scopeName,
                           SmallVectorImpl<Value> &outs);
  Value scalarCondition(Value v, const std::string &suffix);
  std::string refusal(Operation *op, llvm::StringRef unverified);

  // The ops, each at import time and at run time.
  bool importIf();
  bool buildIf();
  bool importLoop();
  bool unrollLoop(LoopForm &loop,
                  SmallVectorImpl<SmallVector<Value>> &scanSteps);
  void takeBack(Block *block, Operation *last);
  std::string whileRefusal(const LoopForm &loop, ArrayRef<std::string> free);
  std::string buildWhile(const LoopForm &loop);
  std::string yieldWhileBody(const LoopForm &loop, Block &block,
                             ArrayRef<Value> outs, bool hasTripCount,
                             size_t tripsAt, size_t capturedAt,
                             size_t numCaptured);
  bool importScan();
  Value scanStep(Value v, int64_t axis, int64_t at, const std::string &suffix);
  bool finish();

  Importer &im;
  OpBuilder &b;
  const onnx::NodeProto &proto;
  const std::string &name, &opType;
  int64_t opset;
  Node node;
  /// The node's outputs, in order (null: not produced).
  SmallVector<Value> results;
  SmallVector<std::optional<DenseElementsAttr>> resultConstants;
  /// The outputs that are sequences or optionals (their `results` null).
  std::map<size_t, ListValue> resultLists;
  /// The ops built here (not by the subgraphs' nodes, which imported
  /// themselves): stacking the scan outputs.
  SmallVector<Operation *> built;
};

} // namespace gplace::frontend::onnx_import

#endif // GPLACE_LIB_TARGET_ONNX_CONTROLFLOWIMPORT_H
