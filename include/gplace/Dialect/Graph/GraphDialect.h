//===- GraphDialect.h - the gplace graph dialect ----------------*- C++ -*-===//
//
// The `gplace` dialect (dialects/graph/*.td): TensorFlow-style dataflow ops
// with device requests. Include this header for the dialect, its types,
// interfaces and ops.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_DIALECT_GRAPH_GRAPHDIALECT_H
#define GPLACE_DIALECT_GRAPH_GRAPHDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include "gplace/Support/DeviceName.h"
#include "gplace/Support/Kernel.h"
#include "gplace/Support/KernelRegistry.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Support/PlacementReport.h"
#include "gplace/Support/Shape.h"

#include <memory>

#include "gplace/Dialect/Graph/GraphDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "gplace/Dialect/Graph/GraphTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "gplace/Dialect/Graph/GraphAttrs.h.inc"

namespace gplace::graph {

namespace OpTrait {
/// Marks ops that forward their input's data unchanged (identity, reshape,
/// read); see Graph_ForwardsInput in GraphOps.td.
template <typename ConcreteType>
class ForwardsInput
    : public mlir::OpTrait::TraitBase<ConcreteType, ForwardsInput> {};

/// Marks ops whose result may take their first operand's memory (GEMM with
/// beta = 1 into its accumulator); see Graph_AccumulatesIntoFirstOperand in
/// GraphOps.td.
template <typename ConcreteType>
class AccumulatesIntoFirstOperand
    : public mlir::OpTrait::TraitBase<ConcreteType,
                                      AccumulatesIntoFirstOperand> {};

/// Marks ops that read no data and only wait for their operands (group);
/// see Graph_ControlOnly in GraphOps.td.
template <typename ConcreteType>
class ControlOnly
    : public mlir::OpTrait::TraitBase<ConcreteType, ControlOnly> {};
/// Ops whose kernel is selected by their first operand's element type, not
/// their result's (comparisons); see Graph_KernelTypeFromOperands in
/// GraphOps.td.
template <typename ConcreteType>
class KernelTypeFromOperands
    : public mlir::OpTrait::TraitBase<ConcreteType, KernelTypeFromOperands> {};
/// Ops whose kernels are registered for a pair of element types, the
/// operand's and the result's (TensorFlow's SrcT and DstT of Cast); see
/// Graph_KernelTypeFromOperandAndResult in GraphOps.td.
template <typename ConcreteType>
class KernelTypeFromOperandAndResult
    : public mlir::OpTrait::TraitBase<ConcreteType,
                                      KernelTypeFromOperandAndResult> {};

/// Ops without a gradient (TensorFlow's ops.NotDifferentiable): gradients
/// stop there; see Graph_NotDifferentiable in GraphOps.td.
template <typename ConcreteType>
class NotDifferentiable
    : public mlir::OpTrait::TraitBase<ConcreteType, NotDifferentiable> {};

/// Ops without kernels of their own, rewritten into ops that have them
/// (populateDecompositionPatterns); see Graph_Composite in GraphOps.td and
/// the ops of GraphCompositeOps.td.
template <typename ConcreteType>
class Composite : public mlir::OpTrait::TraitBase<ConcreteType, Composite> {};

/// The lists of --gplace-auto-mixed-precision; see
/// Graph_MixedPrecisionAllow in GraphOps.td. Ask getMixedPrecisionList.
template <typename ConcreteType>
class MixedPrecisionAllow
    : public mlir::OpTrait::TraitBase<ConcreteType, MixedPrecisionAllow> {};
template <typename ConcreteType>
class MixedPrecisionInfer
    : public mlir::OpTrait::TraitBase<ConcreteType, MixedPrecisionInfer> {};
template <typename ConcreteType>
class MixedPrecisionDeny
    : public mlir::OpTrait::TraitBase<ConcreteType, MixedPrecisionDeny> {};
} // namespace OpTrait

/// The auto-mixed-precision list an op belongs to (Grappler's
/// auto_mixed_precision_lists.h), from its ODS record's trait: Allow (run
/// in 16 bits), Infer (16 bits when a float operand is), Deny (f32), or
/// None (in no list: f32, as Deny).
enum class MixedPrecisionList { None, Allow, Infer, Deny };
inline MixedPrecisionList getMixedPrecisionList(mlir::Operation *op) {
  if (op->hasTrait<OpTrait::MixedPrecisionAllow>())
    return MixedPrecisionList::Allow;
  if (op->hasTrait<OpTrait::MixedPrecisionInfer>())
    return MixedPrecisionList::Infer;
  if (op->hasTrait<OpTrait::MixedPrecisionDeny>())
    return MixedPrecisionList::Deny;
  return MixedPrecisionList::None;
}

/// The resource of the memory effects on variables: gplace.read reads it,
/// gplace.assign* write it, gplace.variable allocates it. The effect's value
/// is the resource operand (or result).
struct VariableResource
    : public mlir::SideEffects::Resource::Base<VariableResource> {
  llvm::StringRef getName() final { return "Variable"; }
};

/// The resource of gplace.send and gplace.recv (the links between tasks):
/// both read and write it, so that no pass drops or reorders them.
struct ChannelResource
    : public mlir::SideEffects::Resource::Base<ChannelResource> {
  llvm::StringRef getName() final { return "Channel"; }
};

/// The resource of gplace.collective_reduce (what the members of an
/// all-reduce exchange): a member reads and writes it, so that no pass drops
/// a member whose result is unused (the others would wait for it). Unlike a
/// variable's, it orders nothing.
struct CollectiveResource
    : public mlir::SideEffects::Resource::Base<CollectiveResource> {
  llvm::StringRef getName() final { return "Collective"; }
};

/// The element types a graph tensor may have, as diagnostics name them
/// (isValidGraphTensorType; the narrow integers are ONNX's UINT8, INT8,
/// INT16, UINT16 and UINT32, docs/onnx.md).
inline constexpr llvm::StringLiteral kGraphElementTypes =
    "f32, f16, bf16, f64, i32, i64, i1, ui8, i8, i16, ui16 or ui32";

/// Returns true if `type` is a tensor the graph accepts: a statically shaped
/// ranked tensor without encoding of one of kGraphElementTypes (SPEC §2).
bool isValidGraphTensorType(mlir::Type type);

struct WindowAttrs;

namespace detail {
/// Verifies an ElementwiseOpInterface op: its data operands have one element
/// type, equal to the result's, and broadcast numpy-style to the result's
/// shape. Reports the first offending dimension of each operand.
mlir::LogicalResult verifyElementwiseOp(mlir::Operation *op);

/// PlacedOpInterface's verifier: reports a result tensor (or a variable's
/// value) whose size in bytes does not fit in int64_t ("needs more than
/// 2^63 bytes"), so that no later size computation wraps.
mlir::LogicalResult verifyResultSizes(mlir::Operation *op);

/// LayoutSensitiveOpInterface::setChannelsFirst: sets `data_format` to
/// "NCHW" (or removes it, for NHWC) and permutes the op's `strides`,
/// `ksize`, `dilations` (4 entries) and `explicit_paddings` (4 pairs) from
/// the old layout's order to the new one's. Nothing when the layout is
/// already the one asked.
void setChannelsFirst(mlir::Operation *op, bool channelsFirst);

/// KernelOpInterface::getKernelParameters's default: for each parameter of
/// `kernel` in the op table, the op's attribute of that name (a UnitAttr
/// flag, present only when set; an i64 IntegerAttr; a DenseI64ArrayAttr).
mlir::DictionaryAttr getDefaultKernelParameters(mlir::Operation *op,
                                                Kernel kernel);
/// The default of PlacedOpInterface::getFlops: the element count of the
/// op's largest ranked tensor operand or result (0 if it has none).
int64_t getDefaultFlops(mlir::Operation *op);

/// A matmul's flops: 2·M·K·N for `lhs` [M, K] (or [K, M] transposed) and
/// `result` [M, N].
int64_t getMatmulFlops(mlir::Value lhs, mlir::Value result);

/// A convolution's (or one of its backprops') flops: 2 multiply-adds'
/// worth per element of `output` (the forward result, or the gradient
/// flowing into it) times the filter elements feeding one output channel.
/// `filter` is HWIO ([KH, KW, I, O]); a depthwise filter's output channels
/// are I·O.
int64_t getConvolutionFlops(mlir::Value output, mlir::Value filter,
                            bool depthwise);

/// A pooling op's (or its gradient's) flops: the element count of its
/// largest tensor times the window's height and width.
int64_t getWindowFlops(mlir::Operation *op, const WindowAttrs &window);

/// InferTypeOpInterface's inferReturnTypes for ops whose `data` operands
/// broadcast numpy-style (the binary elementwise ops and comparisons):
/// pushes the broadcast shape with the operands' element type (i1 with
/// `i1Result`). Fails, saying why at `location` if given (operand element
/// types differ, shapes do not broadcast), naming the op `opName`.
mlir::LogicalResult
inferBroadcastType(llvm::StringRef opName,
                   std::optional<mlir::Location> location,
                   mlir::ValueRange data, bool i1Result,
                   llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// The fold of an elementwise, comparison or logical op (one or two
/// operands, numpy broadcasting) whose operands are all constants
/// (`operands`, null where not): its kernel's scalar function
/// (lib/Runtime/ElementwiseKernels.def, or the comparison kernels of
/// Kernels.cpp) evaluated as the host kernel evaluates it, for the exactly
/// rounded kernels (add, sub, mul, div, neg, maximum, relu, relu_grad,
/// square, sqrt, ...) and every comparison, logical op, is_inf and is_nan;
/// and, as MLIR's arith dialect folds, logical_and and logical_or with a
/// splat constant operand, logical_not of a logical_not, and an integer
/// compared with itself. Null for anything else, an integer division by
/// zero, or a result over 10 MiB (GraphFolds.cpp,
/// docs/passes/fold-constants.md).
mlir::OpFoldResult foldElementwise(mlir::Operation *op, Kernel kernel,
                                   llvm::ArrayRef<mlir::Attribute> operands);

/// A verified fused_conv2d_pool's flops: its convolution's
/// (getConvolutionFlops of the convolution's result) plus its pool's (the
/// convolution's result's element count times the pool window's size).
int64_t getFusedConv2DPoolFlops(mlir::Operation *op);
} // namespace detail

} // namespace gplace::graph

#include "gplace/Dialect/Graph/GraphInterfaces.h.inc"

namespace gplace::graph {

/// The names of the graph ops nested in `root`, in walk order (pre-order,
/// as `root->walk` visits PlacedOpInterface ops), as logs and errors show
/// them (SPEC §2): an op's `name` attribute, else TensorFlow's default, the
/// op's default name prefix (PlacedOpInterface::getDefaultNamePrefix) then
/// `_1`, `_2`, ... in textual order ("MatMul", "MatMul_1", "Const",
/// "Const_1"), skipping any name a user gave an op, as TensorFlow's
/// Graph.unique_name skips taken names.
std::vector<std::string> getOpNames(mlir::Operation *root);

/// Gives every graph op nested in `root` that has no `name` its default
/// one (getOpNames) as an explicit `name`, and returns those ops: what a
/// rewrite that adds or erases ops does first, so that the names logs and
/// colocation use stay what they were (--gplace-remap, --gplace-decompose,
/// --gplace-fold-constants).
llvm::SmallVector<mlir::Operation *> pinDefaultNames(mlir::Operation *root);

/// Takes the pins of pinDefaultNames off again (`pinned`, its result)
/// where the defaults did not change: from every op that is not in
/// `erased` (ops the rewrite erased; their pointers are not followed) and
/// whose default name prefix is not in `changedPrefixes` (those of the
/// kinds of ops the rewrite erased or added unnamed).
void unpinDefaultNames(llvm::ArrayRef<mlir::Operation *> pinned,
                       const llvm::DenseSet<mlir::Operation *> &erased,
                       const llvm::StringSet<> &changedPrefixes);

/// One name of getOpNames, not yet built into a string: a user's `name`
/// (`suffix` 0), or TensorFlow's default prefix and its suffix (0: none,
/// else `_<suffix>` follows). `text` lives as long as the context.
struct OpName {
  llvm::StringRef text;
  unsigned suffix = 0;
  /// Appends the name to `out`.
  void appendTo(llvm::SmallVectorImpl<char> &out) const;
  std::string str() const;
};
/// getOpNames without building a string per op, for passes that need the
/// names of some ops only.
std::vector<OpName> getOpNameParts(mlir::Operation *root);

/// The element type that selects an op's kernel (TensorFlow's type attribute
/// "T"): its first result's element type, a resource's value type for a
/// resource; for an op whose results are tokens, the value type of its first
/// resource operand; for a comparison (KernelTypeFromOperands), its first
/// operand's; for a cast (KernelTypeFromOperandAndResult), its operand's
/// unless that is a float type (f16, bf16, f32, f64), else its result's,
/// so that a device type whose table claims float types only (the GPUs)
/// has a kernel for it exactly when both types are floats. std::nullopt for
/// a typeless op (gplace.group).
std::optional<mlir::Type> getKernelElementType(mlir::Operation *op);

/// The host: where function arguments are fed from and results return to.
constexpr llvm::StringLiteral kHostDevice =
    "/job:localhost/replica:0/task:0/device:CPU:0";

/// The full name of the device a value lives on after placement: its
/// producer's `assigned_device`, or kHostDevice for a function argument.
/// A null attribute if the producer has no assigned device.
mlir::StringAttr getValueDevice(mlir::Value value);

/// The variable behind a resource value: its producer's operand, through
/// ops that forward their input (ForwardsInput, e.g. an identity of the
/// resource), up to the op that makes it (a `gplace.variable`) or a block
/// argument.
mlir::Value getResourceRoot(mlir::Value resource);

/// getKernelElementType spelled as the kernel registry spells it ("f32",
/// "i32", ...); "" for a typeless op.
std::string getKernelElementTypeName(mlir::Operation *op);

/// Whether the kernel registry has a kernel for `op` on `device`: for its
/// name and getKernelElementTypeName, and its attributes where a backend's
/// row has a condition on them (BackendKernel::unless: a string
/// attribute's value, "" for another attribute present, as
/// Operation::getAttr finds them, inherent or not).
bool hasKernelFor(mlir::Operation *op, DeviceType device);

/// The devices `module` is compiled for: its `gplace.devices` attribute
/// (a list of #gplace.device, which the dialect verifies), or std::nullopt
/// if it has none.
std::optional<DeviceSet> getModuleDevices(mlir::Operation *module);

/// Whether every device of `devices` that `op`'s `device` request
/// matches (every device, without a request) is a CPU, and some device
/// matches: then `op` can only run on a CPU. False for a request that does
/// not parse (placement reports it).
bool runsOnCpusOnly(mlir::Operation *op, const DeviceSet &devices);

/// Writes `devices` as `module`'s `gplace.devices` attribute.
void setModuleDevices(mlir::Operation *module, const DeviceSet &devices);

/// The window of a convolution or pooling op (Graph_WindowOp) resolved
/// from TensorFlow's layout-dependent attributes: the window over the
/// height and the width (size, stride, dilation, the pads "SAME" or
/// "EXPLICIT" give), and whether the channels come before them ("NCHW").
struct WindowAttrs {
  gplace::WindowDim height, width;
  bool channelsFirst = false;
};

/// Adds Grappler's remapper fusions to `patterns`, each anchored on the
/// last op it replaces: conv2d + bias_add, or an add of a [C] or
/// [1, ..., 1, C] bias, (+ relu) → fused_conv2d, and conv2d +
/// fused_batch_norm in inference (+ relu) → small ops folding the batch
/// norm into a filter and bias + fused_conv2d (NHWC, one use each, the
/// same placement attributes, no control dependencies on the absorbed
/// ops); then gplace's own: fused_conv2d + max_pool or avg_pool →
/// fused_conv2d_pool where both can only run on a CPU (runsOnCpusOnly by
/// the module's `gplace.devices`, or the process's CPU without them), and
/// add(c, matmul(a, b)) → matmul_accumulate(c, a, b) (GEMM with beta = 1;
/// c of the add's type, f32 or f64), at the matmul's place where c comes
/// before it. The fused op takes the last op's name, as TensorFlow's
/// remapper names the fused node after the node it replaces. The fused
/// convolutions have no gradient: run the patterns after differentiation. Every pattern added here
/// implements match() and rewrite() (not one matchAndRewrite()):
/// --gplace-remap calls match() alone to learn whether anything fuses
/// before it touches the IR, and MLIR's default match() is unreachable.
void populateRemapperPatterns(mlir::RewritePatternSet &patterns);

/// Adds the decompositions of the composite ops (Graph_Composite: elu,
/// selu, hard_sigmoid, log_softmax, softmax_2d, log_softmax_2d, gemm,
/// layer_norm; GraphCompositeOps.td) into graph ops with kernels to
/// `patterns` (Decompositions.cpp). Each new op is named `<name>/<part>` after the
/// composite's `name` and the last one takes that name, with its device
/// request and other attributes (colocation); the composite must have a
/// `name` (--gplace-decompose pins the default ones first).
void populateDecompositionPatterns(mlir::RewritePatternSet &patterns);

} // namespace gplace::graph

#define GET_OP_CLASSES
#include "gplace/Dialect/Graph/GraphOps.h.inc"

namespace gplace::graph {

/// The one way passes and frontends build a graph op: an `OpT` of
/// `operands` and `attributes` (inherent ones, such as `perm` or `name`,
/// included) at `b`'s insertion point, its result types given (`types`)
/// or, where empty, inferred by the op's own rule (InferTypeOpInterface:
/// TensorFlow's shape function for the op, GraphOps.cpp). Returns the op,
/// or null without building anything where the rule does not apply (its
/// diagnostic at `loc`), the attributes do not convert, or the op takes its
/// result type as a parameter (reshape, cast, ...) and `types` is empty. Ops with operand
/// segments (concat, add_n) take their typed ODS builders instead.
template <typename OpT>
OpT buildOp(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange operands,
            llvm::ArrayRef<mlir::NamedAttribute> attributes = {},
            mlir::TypeRange types = {}) {
  if (!types.empty())
    return b.create<OpT>(loc, types, operands, attributes);
  if constexpr (OpT::template hasTrait<mlir::InferTypeOpInterface::Trait>()) {
    mlir::MLIRContext *context = b.getContext();
    mlir::OperationState state(loc, OpT::getOperationName());
    state.addAttributes(attributes);
    mlir::DictionaryAttr dictionary = state.attributes.getDictionary(context);
    auto &properties = state.getOrAddProperties<typename OpT::Properties>();
    if (!attributes.empty() &&
        mlir::failed(OpT::setPropertiesFromAttr(
            properties, dictionary, [&]() { return mlir::emitError(loc); })))
      return nullptr;
    llvm::SmallVector<mlir::Type, 2> inferred;
    if (mlir::failed(OpT::inferReturnTypes(context, loc, operands, dictionary,
                                           &properties, {}, inferred)))
      return nullptr;
    return b.create<OpT>(loc, mlir::TypeRange(inferred), operands, attributes);
  } else {
    mlir::emitError(loc) << "'" << OpT::getOperationName()
                         << "' takes its result type as a parameter";
    return nullptr;
  }
}

} // namespace gplace::graph

#endif // GPLACE_DIALECT_GRAPH_GRAPHDIALECT_H
