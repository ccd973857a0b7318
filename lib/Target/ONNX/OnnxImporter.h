//===- OnnxImporter.h - the ONNX importer's parts (private) -----*- C++ -*-===//
//
// What the importer's files share (lib/Target/ONNX, docs/onnx.md):
// - Tensors.cpp: ONNX tensors and types to MLIR attributes and types, and
//   back (external data read within the model's folder);
// - Reading.cpp: the model read, checked and upgraded with ONNX's library;
// - Importer.cpp: the Importer, which imports the model's nodes in order;
// - Shapes.cpp: dimensions bound from --dim and the inputs' values, ONNX's
//   shape inference on one node, the folding of each node's ops;
// - MapMath.cpp, MapLinalg.cpp, MapSignal.cpp, MapElementwise.cpp,
//   MapTensors.cpp, MapConvolution.cpp, MapPool.cpp, MapLosses.cpp,
//   MapTraining.cpp, MapIndexing.cpp, MapRecurrent.cpp, MapResize.cpp,
//   MapSampling.cpp, MapSelection.cpp, MapQuantize.cpp, MapText.cpp: one
//   function per ONNX op type (node -> graph ops), each file adding its
//   entries to the table;
// - MapDataDependent.cpp: NonZero, Unique and NonMaxSuppression, whose
//   output shapes their inputs' values decide: computed at import time;
// - MapSequence.cpp: sequences and optionals, import-time lists of values;
// - ControlFlow.cpp and ControlFlowLoop.cpp (ControlFlowImport.h): If,
//   Loop and Scan.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_TARGET_ONNX_ONNXIMPORTER_H
#define GPLACE_LIB_TARGET_ONNX_ONNXIMPORTER_H

#include "gplace/Target/ONNX/ImportONNX.h"

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/Shape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <climits>
#include <functional>
#include <cstring>
#include <map>
#include <numeric>
#include <set>

namespace gplace::frontend::onnx_import {

using namespace mlir;
using namespace gplace::graph;

/// The opset the version converter brings older models to: the first with
/// Softmax over one axis, ReduceSum's axes as an input and today's Split,
/// Squeeze and Unsqueeze.
constexpr int64_t kTargetOpset = 13;

//===----------------------------------------------------------------------===//
// Tensors (Tensors.cpp).
//===----------------------------------------------------------------------===//

/// gplace's element type for ONNX's TensorProto data type, if it has one.
std::optional<ElementType> toElementType(int32_t onnxType);

std::string onnxTypeName(int32_t onnxType);

/// ONNX's TensorProto data type for an MLIR element type gplace has; 0
/// (UNDEFINED) for any other.
int32_t toOnnxType(Type element);

/// `value` as a TensorProto named `name` (raw data, little-endian as
/// DenseElementsAttr holds it; booleans one byte each), for ONNX's shape
/// inference to read; false for an element type ONNX has no twin for.
bool toTensorProto(DenseElementsAttr value, const std::string &name,
                   onnx::TensorProto &tensor);

Type toMlirType(ElementType type, MLIRContext *context);

/// The bytes of `tensor` (`count` elements of `type`, gplace's host layout:
/// little-endian, one byte per bool), from its raw data, its typed fields
/// or its external data file (relative to `directory`).
gplace::StatusOr<std::vector<uint8_t>> tensorBytes(const onnx::TensorProto &tensor,
                                               ElementType type, int64_t count,
                                               llvm::StringRef directory);

/// `tensor`'s type, or an error naming what gplace lacks.
gplace::StatusOr<gplace::TensorType> tensorType(const onnx::TensorProto &tensor);

/// `tensor` as a dense elements attribute.
gplace::StatusOr<DenseElementsAttr> tensorAttr(const onnx::TensorProto &tensor,
                                           llvm::StringRef directory,
                                           MLIRContext *context);

/// The integers of an integer elements attribute.
SmallVector<int64_t> toInts(DenseElementsAttr attr);

/// `tensor` (gplace's host layout) as a dense elements attribute.
DenseElementsAttr hostTensorAttr(const gplace::HostTensor &tensor,
                                 MLIRContext *context);

//===----------------------------------------------------------------------===//
// The importer.
//===----------------------------------------------------------------------===//

class Importer;

/// One node being imported: its inputs (materialized on demand, so that an
/// input read only as a constant, such as Reshape's shape, costs no op),
/// its outputs' types from shape inference, its attributes.
struct Node {
  Importer &importer;
  const onnx::NodeProto &proto;
  std::string name;
  Location loc;
  int64_t opset;
  SmallVector<RankedTensorType> outputTypes; ///< Null for an unused output.

  int64_t numInputs() const { return proto.input_size(); }
  bool hasInput(int i) const {
    return i < proto.input_size() && !proto.input(i).empty();
  }
  /// Input `i` as a value (null if absent).
  Value input(int i);
  RankedTensorType inputType(int i);
  /// Input `i`'s value if it is known at import time.
  std::optional<DenseElementsAttr> constant(int i);

  const onnx::AttributeProto *attr(llvm::StringRef attrName) const {
    for (const onnx::AttributeProto &a : proto.attribute())
      if (a.name() == attrName)
        return &a;
    return nullptr;
  }
  int64_t getInt(llvm::StringRef attrName, int64_t otherwise) const {
    const onnx::AttributeProto *a = attr(attrName);
    return a ? a->i() : otherwise;
  }
  float getFloat(llvm::StringRef attrName, float otherwise) const {
    const onnx::AttributeProto *a = attr(attrName);
    return a ? a->f() : otherwise;
  }
  std::string getString(llvm::StringRef attrName,
                        llvm::StringRef otherwise) const {
    const onnx::AttributeProto *a = attr(attrName);
    return a ? a->s() : otherwise.str();
  }
  std::optional<SmallVector<int64_t>> getInts(llvm::StringRef attrName) const {
    const onnx::AttributeProto *a = attr(attrName);
    if (!a)
      return std::nullopt;
    return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
  }

  // Building ops named after the node: the op that yields an output gets
  // the node's name, helpers `<name>/<suffix>`.
  template <typename OpT>
  Value op(Type type, ValueRange operands,
           ArrayRef<NamedAttribute> attributes = {}, llvm::StringRef suffix = "");
  /// An op with optional operands (AttrSizedOperandSegments: gemm,
  /// layer_norm) named after the node, its result types inferred: each of
  /// `operands` is one segment, a null one an omitted operand. Null where
  /// the op's rule does not apply (its diagnostic says why).
  template <typename OpT>
  Operation *opWithOptionalOperands(ArrayRef<Value> operands,
                                    ArrayRef<NamedAttribute> attributes);
  Value constant(DenseElementsAttr value, llvm::StringRef suffix);
  /// A rank-0 constant of `like`'s element type.
  Value scalar(Type like, double value, llvm::StringRef suffix);
  Value reshape(Value v, ArrayRef<int64_t> shape, llvm::StringRef suffix = "");
  Value transpose(Value v, ArrayRef<int64_t> perm, llvm::StringRef suffix = "");
  /// `v` (i32 or i64) through a `check_range` [low, high] named
  /// `<name>/<suffix>`: the run fails on an element outside it, as ONNX
  /// Runtime fails a kernel given such an index or length.
  Value checkRange(Value v, int64_t low, int64_t high, llvm::StringRef suffix);
  /// min(a, b) as -max(-a, -b) (no minimum op).
  Value minimum(Value a, Value b, RankedTensorType type,
                llvm::StringRef suffix = "");
  /// The type of a numpy-broadcast elementwise op on `a` and `b`.
  RankedTensorType broadcastType(Value a, Value b);
  NamedAttribute named(llvm::StringRef attrName, Attribute value);
  Builder &builder();
};

using MapFn = bool (*)(Node &node, SmallVectorImpl<Value> &results,
                       std::string &reason);
/// The mapping table: ONNX op type -> its function.
const llvm::StringMap<MapFn> &mappers();
/// The inputs of `opType` its mapping must know at import time (Range's
/// start, limit and delta, Tile's repeats: an initializer, a Constant node
/// or a value folded; or a graph input whose value the caller gave,
/// OnnxImportOptions::inputValues, which specializes the graph): one
/// computed at run time is refused, naming the input, before ONNX's shape
/// inference leaves the outputs dynamic for want of it (MapLosses.cpp).
ArrayRef<int> importTimeInputs(llvm::StringRef opType);
/// Each mapping file's entries (MapMath.cpp, MapLinalg.cpp,
/// MapSignal.cpp, MapElementwise.cpp, MapTensors.cpp, MapConvolution.cpp,
/// MapPool.cpp, MapLosses.cpp, MapTraining.cpp, MapIndexing.cpp,
/// MapRecurrent.cpp, MapResize.cpp, MapSampling.cpp, MapSelection.cpp,
/// MapQuantize.cpp, MapText.cpp, MapDataDependent.cpp).
void addMathMappers(llvm::StringMap<MapFn> &table);
void addLinalgMappers(llvm::StringMap<MapFn> &table);
void addSignalMappers(llvm::StringMap<MapFn> &table);
void addElementwiseMappers(llvm::StringMap<MapFn> &table);
void addLossMappers(llvm::StringMap<MapFn> &table);
void addTrainingMappers(llvm::StringMap<MapFn> &table);
void addIndexingMappers(llvm::StringMap<MapFn> &table);
void addRecurrentMappers(llvm::StringMap<MapFn> &table);
void addTensorMappers(llvm::StringMap<MapFn> &table);
void addConvolutionMappers(llvm::StringMap<MapFn> &table);
void addPoolMappers(llvm::StringMap<MapFn> &table);
void addResizeMappers(llvm::StringMap<MapFn> &table);
void addSamplingMappers(llvm::StringMap<MapFn> &table);
void addSelectionMappers(llvm::StringMap<MapFn> &table);
void addQuantizeMappers(llvm::StringMap<MapFn> &table);
void addTextMappers(llvm::StringMap<MapFn> &table);
/// NonZero, Unique and NonMaxSuppression (MapDataDependent.cpp): their
/// outputs' shapes are their inputs' values', so those inputs
/// (dataDependentInputs, which importTimeInputs includes) must be known at
/// import time, and the outputs are computed then, as constants, as ONNX's
/// reference implementation computes them.
void addDataDependentMappers(llvm::StringMap<MapFn> &table);
/// The inputs of a data-dependent op type whose values decide its outputs'
/// shapes (all of them); empty for any other op type.
ArrayRef<int> dataDependentInputs(llvm::StringRef opType);
/// For a data-dependent op type, what importNode's refusal of an input
/// computed at run time adds (why gplace needs it, what to do, why gplace
/// does not pad to a bound), naming node `nodeName`; "" for any other.
std::string dataDependentNote(llvm::StringRef opType,
                              llvm::StringRef nodeName);
void addRandomMappers(llvm::StringMap<MapFn> &table); ///< MapRandom.cpp.
/// The sequence and optional op types (MapSequence.cpp): their entries only
/// make them known op types; Importer::importListNode imports them.
void addSequenceMappers(llvm::StringMap<MapFn> &table);
bool isSequenceOp(llvm::StringRef opType);
/// The inputs of a sequence op type that must be known at import time
/// (SequenceAt's, SequenceInsert's and SequenceErase's positions,
/// SplitToSequence's split), which importTimeInputs includes.
ArrayRef<int> sequenceImportTimeInputs(llvm::StringRef opType);

/// A sequence or optional value: an import-time list of graph values
/// (MapSequence.cpp, docs/onnx.md).
struct ListValue {
  bool optional = false;   ///< An optional (else a sequence).
  bool present = true;     ///< An optional's presence.
  bool ofSequence = false; ///< An optional holding a sequence.
  /// A sequence's elements (each its own tensor, shapes may differ); an
  /// optional's tensor, or its sequence's elements.
  SmallVector<Value> elements;
};

/// If, Loop and Scan (ControlFlow.cpp): their entries only make them known
/// op types; Importer::importControlFlow imports them with their subgraphs.
void addControlFlowMappers(llvm::StringMap<MapFn> &table);
bool isControlFlow(llvm::StringRef opType);
/// The most iterations a Loop or Scan unrolls at import time
/// (ControlFlow.cpp, docs/onnx.md).
constexpr int64_t kMaxUnrolledIterations = 1024;

class Importer {
  /// Imports an If, Loop or Scan node (importControlFlow), with
  /// importSubgraph and foldCreated.
  friend class ControlFlowImport;

public:
  Importer(MLIRContext *context, llvm::StringRef path,
           const OnnxImportOptions &options)
      : context(context), b(context), path(path.str()), options(options),
        fileLoc(FileLineColLoc::get(context, path, 0, 0)) {
    directory = llvm::sys::path::parent_path(path).str();
  }

  OwningOpRef<ModuleOp> run(llvm::StringRef bytes) {
    OwningOpRef<ModuleOp> module = import(bytes);
    if (options.report) {
      for (const auto &[key, value] : unsupported)
        options.report->unsupported.push_back(
            {key.first, value.first, key.second, value.second});
      options.report->unsupportedType = typeProblem;
      options.report->specializedInputs.assign(specialized.begin(),
                                               specialized.end());
      options.report->dynamicShape = shapeProblem;
    }
    return module;
  }

  MLIRContext *context;
  OpBuilder b;
  std::string path, directory;
  const OnnxImportOptions &options;
  Location fileLoc;
  onnx::ModelProto model;
  int64_t opset = 0;
  /// Values imported so far, by ONNX name.
  llvm::StringMap<Value> values;
  /// Values known at import time: initializers, Constant nodes, shapes.
  llvm::StringMap<DenseElementsAttr> constants;
  /// The graph's inputs that are not initializers: their positions (the
  /// function's arguments, OnnxImportOptions::inputValues).
  llvm::StringMap<size_t> inputPositions;
  /// The positions of the inputs whose given values an import-time input
  /// of some node took (OnnxImportOptions::inputValues).
  std::set<size_t> specialized;
  /// The initializers, by name (materialized on first use).
  llvm::StringMap<const onnx::TensorProto *> initializers;
  /// Static types from the graph's inputs, outputs and value_info.
  llvm::StringMap<RankedTensorType> types;
  /// Every type shape inference gave, static or not.
  llvm::StringMap<const onnx::TypeProto *> inferred;
  /// Names an unsupported node produced: nodes reading them are skipped.
  llvm::StringSet<> poisoned;
  /// The first outputs of the Hardmax nodes of a model below opset 13,
  /// which keep that Hardmax's semantics (the input coerced to 2-D) after
  /// the version converter (upgrade).
  llvm::StringSet<> coercedHardmax;
  /// The opset ONNX's version converter brought the model from (0: it was
  /// not converted): a Resize it made of an Upsample or a Resize of opset
  /// 10 keeps their coordinates (asymmetric, nearest below), which it does
  /// not write as attributes.
  int64_t upgradedFrom = 0;
  /// The outputs of the Identity nodes splitScan8 wrote before and after
  /// each Scan of opset 8 it rewrote, which finishScan8 makes Squeeze and
  /// Unsqueeze of the batch dimension.
  llvm::StringSet<> scan8Squeezes, scan8Unsqueezes;
  /// Why ONNX's version converter failed (upgrade), if it did.
  std::string upgradeError;
  /// The prefix of the names of the ops the nodes of the subgraph being
  /// imported become ("loop/iteration3/"; empty for the main graph), so
  /// that each iteration's ops have names of their own.
  std::string scope;
  /// Names materialized while the current node is imported (forgotten if
  /// the node is rolled back).
  SmallVector<std::string> materialized;

  /// The sequences and optionals, by ONNX name (MapSequence.cpp).
  llvm::StringMap<ListValue> lists;

  /// Unsupported op types and forms: (op type, reason) -> (opset, nodes).
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>
      unsupported;
  /// Other errors (missing shapes), in node order.
  SmallVector<std::string> errors;
  /// What staticType refused: an element type, or a shape.
  bool typeProblem = false, shapeProblem = false;

  /// The decomposition patterns of the composite ops, while nodes are
  /// imported.
  PatternApplicator *decompositions = nullptr;

  InFlightDiagnostic error() { return mlir::emitError(fileLoc); }
  Value materialize(llvm::StringRef name);
  /// `type` as a static tensor type; else std::nullopt, with `why` ("has
  /// element type INT8, which gplace does not have") and whether an element
  /// type (`*elementType`) or a shape is what gplace cannot take.
  std::optional<RankedTensorType> staticType(const onnx::TypeProto &type,
                                             std::string *why,
                                             bool *elementType) const;
  /// staticType for a value the import needs: a refusal is recorded in
  /// typeProblem or shapeProblem.
  std::optional<RankedTensorType> neededType(const onnx::TypeProto &type,
                                             std::string *why);

private:
  OwningOpRef<ModuleOp> import(llvm::StringRef bytes);
  LogicalResult parse(llvm::StringRef bytes);
  /// The op type of `proto` as the tables spell it ("Relu", or
  /// "domain.Type" outside the default domain) and its domain's opset.
  std::pair<std::string, int64_t> opTypeOf(const onnx::NodeProto &proto) const;
  /// Fails, listing them, if any node's op type has no mapping, or a Conv or
  /// pool has a stride, dilation or kernel size below 1 or a negative pad:
  /// before the version converter and shape inference, whose code is then
  /// never run on them (ONNX 1.12's LayerNormalization inference crashes on
  /// an axis below -rank, its window inference divides by the strides).
  LogicalResult checkNodes();
  /// Opsets below 13 to 13 with ONNX's version converter, where it can.
  void upgrade();
  /// Before upgrade: each Scan of opset 8 in the main graph (inputs and
  /// outputs with a leading batch dimension, which Scan 9 drops) becomes
  /// one Scan per batch element, over that element's slice (Slice), its
  /// inputs and outputs passed through Identity nodes that finishScan8
  /// turns into Squeeze and Unsqueeze of the batch dimension once ONNX's
  /// converter has made each a Scan 9 (its adapter drops the leading
  /// dimension of the values around the node, but inserts nothing); the
  /// elements' outputs Concat'ed along the batch. With sequence_lens (an
  /// int64 initializer, checkNodes), an element's scan inputs are sliced
  /// to its length and its scan outputs Pad'ded with zeros past it, as
  /// ONNX Runtime's Scan 8. Fails, naming the node, where an input's batch
  /// size or a padded output's rank is not known, the inputs' batch sizes
  /// disagree, or a length is outside 1 to the scan inputs' length.
  LogicalResult splitScan8();
  /// After upgrade: the Identity nodes splitScan8 wrote as Squeeze and
  /// Unsqueeze of axis 0; fails if the version converter did not run.
  LogicalResult finishScan8();
  LogicalResult fixDimensions();
  /// The types ONNX's shape inference gives `proto`'s outputs when it runs
  /// on the node alone, over the types of the values imported so far and
  /// the values known at import time (shapes, folded constants) as
  /// initializers: where inference over the whole model left a dimension
  /// dynamic because it could not see through a computed shape (again
  /// without data propagation where that throws, as ONNX 1.12's Concat's
  /// does on an empty first input). Fills `types` for the outputs it makes
  /// static.
  void inferNode(const onnx::NodeProto &proto);
  /// Folds the ops one node became (`created`, in order) whose operands are
  /// constants, with the graph ops' fold hooks (GraphFolds.cpp); `results`
  /// is updated, and an output that folds becomes known at import time.
  void foldCreated(ArrayRef<Operation *> created,
                   SmallVectorImpl<Value> &results,
                   const onnx::NodeProto &proto);
  /// Rewrites the composite ops among `created` (one node's ops) into
  /// their parts with `decompositions`; `results` then holds the values
  /// that replaced the composites'. False if a pattern does not apply.
  bool decompose(ArrayRef<Operation *> created,
                 SmallVectorImpl<Value> &results);
  void importNode(const onnx::NodeProto &proto);
  /// A sequence or optional op, or an Identity of one: its outputs in
  /// `lists` or `values` (MapSequence.cpp); what fails is recorded as
  /// importNode records it.
  void importListNode(const onnx::NodeProto &proto,
                             const std::string &name,
                             const std::string &opType, int64_t opset);
  /// If, Loop and Scan: the subgraphs imported in the node's place, for
  /// the condition and trip count known at import time, else gplace.if and
  /// gplace.while (ControlFlow.cpp and ControlFlowLoop.cpp, whose
  /// ControlFlowImport does it).
  void importControlFlow(const onnx::NodeProto &proto, const std::string &name,
                         const std::string &opType, int64_t opset);
  /// Imports the nodes of `graph` (a branch, a loop's body) with its inputs
  /// bound to `bindings` (first: unused), the names its ops get prefixed
  /// with `scopeName`; `outputs` and `outputConstants` (where known at
  /// import time) are its outputs' values. The subgraph's names are
  /// forgotten first, so that a body imports afresh in each iteration. An
  /// empty string, else why it fails.
  std::string importSubgraph(
      const onnx::GraphProto &graph,
      ArrayRef<std::pair<std::string, Value>> bindings,
      const std::string &scopeName, SmallVectorImpl<Value> &outputs,
      SmallVectorImpl<std::optional<DenseElementsAttr>> &outputConstants);
  /// Specializes the graph for the given values of the graph inputs that
  /// an input needed at import time (importTimeInputs: an If's condition,
  /// a Loop's trip count or condition, Range's bounds, a window's size,
  /// ...) is computed from, through any nodes but Shape and Size, which
  /// read only static shapes: the control flow then unrolls at import
  /// time, and the other nodes fold. As XLA's backwards constant analysis
  /// finds the inputs that must be compile-time constants.
  void specializeImportTimeInputs();
  LogicalResult reportProblems();
};

template <typename OpT>
Value Node::op(Type type, ValueRange operands,
               ArrayRef<NamedAttribute> attributes, llvm::StringRef suffix) {
  SmallVector<NamedAttribute> attrs(attributes);
  attrs.push_back(named("name", importer.b.getStringAttr(
                                    suffix.empty() ? name
                                                   : name + "/" + suffix.str())));
  // A null type: the one the op's rule infers (buildOp); where the rule
  // does not apply, a null value (its diagnostic says why).
  OpT op = buildOp<OpT>(importer.b, loc, operands, attrs,
                        type ? TypeRange{type} : TypeRange{});
  return op ? op->getResult(0) : Value();
}

template <typename OpT>
Operation *Node::opWithOptionalOperands(ArrayRef<Value> operands,
                                        ArrayRef<NamedAttribute> attributes) {
  SmallVector<int32_t> sizes;
  SmallVector<Value> present;
  for (Value v : operands) {
    sizes.push_back(v ? 1 : 0);
    if (v)
      present.push_back(v);
  }
  sizes.push_back(0); // No control dependencies.
  SmallVector<NamedAttribute> attrs(attributes);
  attrs.push_back(named("operandSegmentSizes",
                        importer.b.getDenseI32ArrayAttr(sizes)));
  attrs.push_back(named("name", importer.b.getStringAttr(name)));
  OpT op = buildOp<OpT>(importer.b, loc, present, attrs);
  return op ? op.getOperation() : nullptr;
}

//===----------------------------------------------------------------------===//
// Helpers of the mapping functions.
//===----------------------------------------------------------------------===//

inline bool isFloat(Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); }

/// An int64 constant of `shape` holding `values` (row-major), named
/// `suffix` (Node::constant). MapIndexing.cpp.
Value i64Constant(Node &n, ArrayRef<int64_t> shape, ArrayRef<int64_t> values,
                  llvm::StringRef suffix);

/// Normalizes `axis` (negative counts from the end) for `rank` dimensions.
inline bool normalizeAxis(int64_t &axis, int64_t rank, std::string &reason) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank) {
    reason = "axis out of range";
    return false;
  }
  return true;
}

/// `v` as int64: `v` itself if it is, else a `cast` named `suffix` (from
/// int32, or from a float truncated toward zero, as ONNX's reference
/// converts to integers). MapIndexing.cpp.
Value toI64(Node &n, Value v, llvm::StringRef suffix);

/// ONNX's MatMul of `a` and `b` (numpy's matmul: a rank-1 operand as a row
/// or a column, batch dimensions broadcast, at most 256 products) as
/// `matmul`s of their element type, the product reshaped to `result`;
/// its last op named after the node when `result` is the node's output
/// type. Null with `reason` for
/// a form it does not map. MapLinalg.cpp.
Value matMul(Node &n, Value a, Value b, RankedTensorType result,
             std::string &reason);

/// ONNX's Conv of `x` [N, C, (H,) W] by the OIHW (or OIW) filter `w` plus
/// the optional `bias` [M], with the node's attributes (pads, auto_pad,
/// strides, dilations, group), as `conv2d` (NCHW) of `x`'s element type and
/// an `add`; of the node's output shape. `final`: the last op is named
/// after the node (its result is the node's output). `filterIsInput1`: `w`
/// is the node's input 1, so a constant filter is rearranged at import
/// time. Null with `reason` for a form it does not map. MapConvolution.cpp.
Value conv(Node &n, Value x, Value w, Value bias, bool final,
           bool filterIsInput1, std::string &reason);

/// `v` (rank 0 or one element) as an integer: an integer's value, or a
/// finite float's truncated toward zero (|v| <= 9e15); none for a bool,
/// another count of elements, or an integer beyond int64.
/// MapSelection.cpp.
std::optional<int64_t> scalarInt(DenseElementsAttr v);

/// The permutation of `rank` dimensions that moves `axis` last (the
/// others in order). MapIndexing.cpp.
SmallVector<int64_t> axisLastPermutation(int64_t rank, int64_t axis);

/// The product of `x` along `axis`, kept as a dimension of 1: the halves
/// multiplied until one is left (log2 of the size `slice`s and `mul`s);
/// ones for an empty axis. MapMath.cpp.
Value productAlong(Node &n, Value x, int64_t axis);

/// `F` for an op type ONNX defines on floating-point tensors only, whose
/// composition would compute something else on integers.
template <MapFn F>
bool floatInput(Node &n, SmallVectorImpl<Value> &results,
                std::string &reason) {
  Type type = n.inputType(0);
  if (!type || !isFloat(type)) {
    reason = type ? "a non-float input" : "an omitted input";
    return false;
  }
  return F(n, results, reason);
}

/// The integer element type that computes ONNX's narrow integers exactly
/// (ui8, i8, i16, ui16 in i32; ui32 in i64): wrapped back to their width,
/// add, sub and mul are ONNX's (numpy's, modulo 2^bits); div, mod, max,
/// min, clip and shifts are exact. Null for any other type, which needs
/// none. MapElementwise.cpp.
Type widenedInteger(Type element);
/// `f` on the node with its narrow integer inputs and outputs
/// (widenedInteger) widened: inputs cast up, `f` mapped on the wide types,
/// its results cast back (truncating: wrap-around, as C++ and numpy cast).
/// `f` itself when nothing is narrow. MapElementwise.cpp.
bool mapWidened(MapFn f, Node &n, SmallVectorImpl<Value> &results,
                std::string &reason);
/// mapWidened as a mapping table entry: the integer ops that gplace's
/// kernels compute on i32 and i64 only (docs/onnx.md, Decisions).
template <MapFn F>
bool widenIntegers(Node &n, SmallVectorImpl<Value> &results,
                   std::string &reason) {
  return mapWidened(F, n, results, reason);
}


} // namespace gplace::frontend::onnx_import

#endif // GPLACE_LIB_TARGET_ONNX_ONNXIMPORTER_H
