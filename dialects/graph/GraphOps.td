//===- GraphOps.td - gplace graph dialect ops -----------------------------===//
//
// One op per TensorFlow op the graph supports; TensorFlow's op type is the
// second template argument of Graph_Op.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_GRAPH_OPS
#define GPLACE_GRAPH_OPS

include "graph/GraphBase.td"
include "graph/GraphAttrs.td"
include "graph/GraphTypes.td"
include "graph/GraphInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/SymbolInterfaces.td"

// Ops that forward their input's data unchanged (identity, reshape, and the
// read of a variable). Placement puts such an op on its producer's device
// when nothing else says where it goes (TensorFlow placer's heuristic B for
// identity-like ops); lowering makes its result a view of its input's
// memory, as TensorFlow forwards the input buffer.
def Graph_ForwardsInput : NativeOpTrait<"ForwardsInput"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

// Ops that read no data: they only wait for their operands (values and
// tokens) and return a token (TensorFlow's NoOp with control inputs). Their
// operands stay where they are (no copies), they join no colocation group,
// and lowering turns them into ordering alone.
def Graph_ControlOnly : NativeOpTrait<"ControlOnly"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

// Ops without kernels of their own: --gplace-decompose (and the ONNX
// importer) rewrites each into graph ops that have kernels, with the
// patterns that live with it (Decompositions.cpp), before differentiation
// and placement. One left in a graph placement refuses as TensorFlow's
// placer refuses an op without a kernel.
def Graph_Composite : NativeOpTrait<"Composite"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

// Ops without a gradient, as TensorFlow's ops.NotDifferentiable (ArgMax,
// Equal, OneHot, the random ops): gradients stop there, silently, where an
// op with neither this trait nor GradientOpInterface on the path from `xs`
// to `ys` is an error.
def Graph_NotDifferentiable : NativeOpTrait<"NotDifferentiable"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

// The lists of --gplace-auto-mixed-precision (Grappler's
// auto_mixed_precision_lists.h), one per op, asked through
// getMixedPrecisionList (GraphDialect.h), never by naming ops:
// - allow: ops worth running in 16 bits, whose 16-bit kernels accumulate in
//   f32 (matmul, convolutions and their gradients); their f32 operands are
//   cast down;
// - infer: ops that follow their inputs (elementwise, shape ops): 16 bits
//   when a float operand already is;
// - deny: ops that stay in f32 because they lose accuracy in 16 bits
//   (exp/log-heavy ops, reductions, losses, variable updates): their 16-bit
//   operands are cast back up.
// Ops in no list stay in f32, as deny-listed ones.
def Graph_MixedPrecisionAllow : NativeOpTrait<"MixedPrecisionAllow"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}
def Graph_MixedPrecisionInfer : NativeOpTrait<"MixedPrecisionInfer"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}
def Graph_MixedPrecisionDeny : NativeOpTrait<"MixedPrecisionDeny"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

//===----------------------------------------------------------------------===//
// Base class.
//===----------------------------------------------------------------------===//

// Ops whose result type follows from their operands and attributes. The
// rule is written once, as the op's inferReturnTypes (GraphOps.cpp, or its
// class's code below); the ODS builders without result types use it, and
// the op's verifier applies the same rule and says in its own words what
// differs. refineReturnTypes leaves the check to that verifier, so that
// MLIR's generic "inferred type(s) ... are incompatible" does not speak
// first.
defvar Graph_InferredResultType =
    DeclareOpInterfaceMethods<InferTypeOpInterface, ["refineReturnTypes"]>;


// Ops whose kernel is selected by their first operand's element type, not
// their result's (TensorFlow's "T" of a comparison: Equal's kernels are
// registered for the types it compares, its result is always bool).
// The backends' kernel tables then list operand types; the kernel
// registry, placement and the runtime's kernel selection all follow.
def Graph_KernelTypeFromOperands : NativeOpTrait<"KernelTypeFromOperands"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

// Ops whose kernels are registered for a pair of element types, the
// operand's and the result's (TensorFlow's Cast with SrcT and DstT). The
// backends' tables list the types both may have: placement asks for the
// operand's type where it is not a float type, else the result's
// (getKernelElementType), so that a table of float types (the GPUs')
// covers the float-to-float casts, and any pair with an integer or bool
// stays where integers have kernels (the CPU). The runtime's kernels
// dispatch on both types.
// Ops whose result may take the memory of their first operand: each
// element of the result is written after that element of the first operand
// is read, and no other element of it is read (a GEMM with beta = 1 adding
// into its accumulator). The memory planner's in-place option lets such a
// result take that operand's buffer where this is its last use, as it does
// for an elementwise op's (docs/passes/plan-memory.md); gplace-tblgen puts
// the fact in the op table (isAccumulatingKernel).
def Graph_AccumulatesIntoFirstOperand
    : NativeOpTrait<"AccumulatesIntoFirstOperand"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

def Graph_KernelTypeFromOperandAndResult
    : NativeOpTrait<"KernelTypeFromOperandAndResult"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

// Every graph op carries the placement attributes and `after(...)` tokens.
// `tfType` is TensorFlow's op type; `pyName` the default name TensorFlow's
// Python API gives the op (see PlacedOpInterface::getDefaultNamePrefix).
//
// What an op is lives here, in its record: its verifier, its memory effects
// (traits), its shape rule, gradient and folder; `typelessKernel` marks an
// op without element type that runs everywhere (NoOp). Ops that run a
// kernel of their own derive from Graph_KernelOp below; the backends that
// implement the kernel register its element types (gplace/Runtime/
// HostKernels.def, CudaKernels.def; docs/development.md).
class Graph_Op<string mnemonic, string tfType, list<Trait> traits = [],
               string pyName = tfType>
    : Op<Graph_Dialect, mnemonic,
         !listconcat([Graph_PlacedOpInterface], traits)> {
  // The floating-point operations of one execution, for the cost model
  // (PlacedOpInterface::getFlops): by default one per element of the
  // op's largest tensor; contractions and windows say their own.
  code flops = "::gplace::graph::detail::getDefaultFlops(*this)";
  code tfNames = "static ::llvm::StringRef getTensorFlowType() { return \""
      # tfType # "\"; }\n"
      # "static ::llvm::StringRef getDefaultNamePrefix() { return \""
      # pyName # "\"; }\n"
      # "int64_t getFlops() { return " # flops # "; }\n";
  let extraClassDeclaration = tfNames;
  string tensorFlowType = tfType;

  // For ops whose result has their first operand's type: the definition of
  // InferTypeOpInterface's inferReturnTypes, written once here (ops add it
  // to extraClassDefinition).
  code inferFromFirstOperand = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location>,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr,
        ::mlir::OpaqueProperties, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      if (operands.empty())
        return ::mlir::failure();
      inferredReturnTypes.push_back(operands[0].getType());
      return ::mlir::success();
    }
  }];

  // refineReturnTypes of a Graph_InferredResultType op: the verifier checks.
  code refineByVerifier = [{
    ::llvm::LogicalResult $cppClass::refineReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location>,
        ::mlir::ValueRange, ::mlir::DictionaryAttr, ::mlir::OpaqueProperties,
        ::mlir::RegionRange, ::llvm::SmallVectorImpl<::mlir::Type> &) {
      return ::mlir::success();
    }
  }];
  // inferReturnTypes of an op whose data operands (all but the control
  // tokens) broadcast numpy-style: the broadcast shape, with the first
  // operand's element type (inferBroadcast), or i1 (inferComparison).
  code inferBroadcastTemplate = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> location,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      Adaptor adaptor(operands, attributes, properties, regions);
      ::mlir::ValueRange data = operands.drop_back(
          adaptor.getControlDeps().size());
      return ::gplace::graph::detail::inferBroadcastType(
          getOperationName(), location, data, I1RESULT,
          inferredReturnTypes);
    }
  }];
  code inferBroadcast = !subst("I1RESULT", "false", inferBroadcastTemplate);
  code inferComparison = !subst("I1RESULT", "true", inferBroadcastTemplate);

  // The fold of an elementwise, comparison or logical op (its record sets
  // hasFolder): its kernel's scalar function on constant operands, and the
  // logical ops' identities (GraphFolds.cpp).
  code foldElementwise = [{
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::gplace::graph::detail::foldElementwise(
          *this, getKernel(), adaptor.getOperands());
    }
  }];

  // An op without an element type of its own that runs on every device
  // (TensorFlow's NoOp). Which element types an op has kernels for on
  // which device is the backends' to say, not the op's
  // (include/gplace/Runtime/HostKernels.def, CudaKernels.def).
  bit typelessKernel = 0;

  // The placement attributes, appended to each op's own arguments.
  dag placementAttrs = (ins OptionalAttr<StrAttr>:$device,
                            OptionalAttr<StrAttr>:$name,
                            OptionalAttr<StrAttr>:$assigned_device);
  dag controlDepsArg = (ins Variadic<Graph_Control>:$controlDeps);
  // The `after(...)` clause of every assembly format.
  string afterClause = "(`after` `(` $controlDeps^ `)`)?";
}

// An op that runs a kernel of its own, `gplace::Kernel::<Name>` where the
// record is `Graph_<Name>Op` (lowering makes it a `gplan.launch`). Ops whose
// kernel parameters need resolving (negative axes, sizes of -1) list
// "getKernelParameters" in `overrides` and define it.
class Graph_KernelOp<string mnemonic, string tfType, list<Trait> traits = [],
                     string pyName = tfType, list<string> overrides = []>
    : Graph_Op<mnemonic, tfType,
               !listconcat([DeclareOpInterfaceMethods<Graph_KernelOpInterface,
                                                      overrides>], traits),
               pyName> {
  code kernelDefinition = "::gplace::Kernel $cppClass::getKernel() { "
      # "return ::gplace::Kernel::" # !substr(NAME, 6, !sub(!size(NAME), 8))
      # "; }\n";
  let extraClassDefinition = kernelDefinition;
  // The kernel's parameters (UnitAttr, I64Attr or DenseI64ArrayAttr, by
  // name): by default the op's attributes; an op whose attributes are not
  // what the kernel takes (strings, TensorFlow's layout-dependent lists)
  // lists the parameters here and defines getKernelParameters.
  dag kernelParameters = (ins);
}

//===----------------------------------------------------------------------===//
// Constants and state.
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant", "Const",
    [Pure, Graph_PersistentOpInterface,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "constant tensor (Const)";
  let description = [{
    Produces the tensor held by `value`, a dense elements attribute whose
    type is the result type.

    ```mlir
    %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/device:GPU:2", name = "a"}
    ```

    Not MLIR's ConstantLike, which requires an op without operands: a
    constant takes control dependencies (`after(...)`), as TensorFlow's
    Const takes control inputs. So MLIR's canonicalizer does not read
    constants; --gplace-fold-constants, which the pipelines run, folds the
    ops that read them (docs/passes/fold-constants.md).
  }];
  let arguments = !con((ins Graph_ElementsAttr:$value), placementAttrs,
                       controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$value " # afterClause # " attr-dict";
  let extraClassDeclaration = tfNames # [{
    ::mlir::ElementsAttr getInitialValue() { return getValue(); }
  }];
}

def Graph_VariableOp : Graph_Op<"variable", "VarHandleOp",
    [Graph_PersistentOpInterface,
     DeclareOpInterfaceMethods<InferTypeOpInterface>], "Variable"> {
  let summary = "declares a variable (tf.Variable) and returns its resource";
  let description = [{
    Declares a mutable variable initialised to `initial_value` and returns
    the resource that reads and assigns use. Ops that use a resource are
    colocated with it.

    ```mlir
    %v = gplace.variable dense<3.0> : tensor<f32> {device = "/cpu:0", name = "a"}
    ```
  }];
  let arguments = !con((ins Graph_ElementsAttr:$initial_value),
                       placementAttrs, controlDepsArg);
  let results = (outs Res<Graph_AnyResource, "the variable",
                          [MemAlloc<Graph_VariableResource>]>:$resource);
  let assemblyFormat = "$initial_value " # afterClause # " attr-dict";
}

def Graph_ReadOp : Graph_KernelOp<"read", "ReadVariableOp",
    [Graph_ForwardsInput, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "reads a variable's value (ReadVariableOp)";
  let description = [{
    The result is the variable's value when the read runs. Lowering makes it
    a view of the variable's memory, as TensorFlow's ReadVariableOp forwards
    the variable's buffer, and copies the value (the `read` kernel) only
    where a later write in the same run could change it while it is still
    in use.

    ```mlir
    %x = gplace.read %v : !gplace.resource<tensor<f32>>
    ```
  }];
  let arguments = !con((ins Arg<Graph_AnyResource, "the variable",
                                [MemRead<Graph_VariableResource>]>:$resource),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat =
      "$resource " # afterClause # " attr-dict `:` type($resource)";
}

class Graph_AssignBaseOp<string mnemonic, string tfType, string what,
                         list<MemoryEffect> effects>
    : Graph_KernelOp<mnemonic, tfType, [Graph_MixedPrecisionDeny]> {
  let summary = what # " (" # tfType # ")";
  let arguments = !con((ins Arg<Graph_AnyResource, "the variable",
                                effects>:$resource,
                            Graph_Tensor:$value),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Control:$done);
  let assemblyFormat = "$resource `,` $value " # afterClause
      # " attr-dict `:` custom<ResourceAndValueType>(type($resource), type($value))";
  let hasVerifier = 1;
}

def Graph_AssignOp : Graph_AssignBaseOp<"assign", "AssignVariableOp",
                                        "stores a value into a variable",
                                        [MemWrite<Graph_VariableResource>]> {
  let description = [{
    Stores `value` into the variable and returns a token that is ready once
    the store has happened. The value's type is the resource's value type.

    ```mlir
    %done = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
    ```
  }];
}

def Graph_AssignAddOp : Graph_AssignBaseOp<"assign_add", "AssignAddVariableOp",
                                           "adds a value to a variable",
                                           [MemRead<Graph_VariableResource>,
                                            MemWrite<Graph_VariableResource>]> {
  let description = [{
    ```mlir
    %done = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
    ```
  }];
}

def Graph_AssignSubOp : Graph_AssignBaseOp<"assign_sub", "AssignSubVariableOp",
                                           "subtracts a value from a variable",
                                           [MemRead<Graph_VariableResource>,
                                            MemWrite<Graph_VariableResource>]> {
  let description = [{
    ```mlir
    %done = gplace.assign_sub %v, %x : !gplace.resource<tensor<f32>>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Matrix product.
//===----------------------------------------------------------------------===//

def Graph_MatmulOp : Graph_KernelOp<"matmul", "MatMul", [Pure, Graph_MixedPrecisionAllow, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>]> {
  let summary = "matrix product of two rank-2 tensors (MatMul)";
  let description = [{
    `result = op(lhs) x op(rhs)` where `op` transposes its operand when
    `transpose_a` (for `lhs`) or `transpose_b` (for `rhs`) is set.

    ```mlir
    %c = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %d = gplace.matmul %a, %a transpose_b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = !con((ins Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs,
                            UnitAttr:$transpose_a, UnitAttr:$transpose_b),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_NumericTensor:$result);
  let flops = "::gplace::graph::detail::getMatmulFlops(getLhs(), getResult())";
  let assemblyFormat = "$lhs `,` $rhs (`transpose_a` $transpose_a^)? "
      "(`transpose_b` $transpose_b^)? " # afterClause
      # " attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)";
  let hasVerifier = 1;
}

// GEMM with beta = 1 (BLAS's C = A B + C), as TensorFlow's oneDNN build
// fuses MatMul + Add into _FusedMatMul and cuBLAS accumulates into C: made
// by --gplace-remap from add(c, matmul(a, b)) after differentiation, so a
// running sum of weight gradients (--gplace-accumulate-gradients) takes
// each micro-batch's product without a buffer for it.
def Graph_MatmulAccumulateOp : Graph_KernelOp<"matmul_accumulate", "_MatMulAccumulate", [Pure, Graph_AccumulatesIntoFirstOperand, DeclareOpInterfaceMethods<Graph_GradientOpInterface>], "MatMulAccumulate"> {
  let summary = "matrix product added to an accumulator (GEMM, beta = 1)";
  let description = [{
    `result = accumulator + op(lhs) x op(rhs)`, `op` as gplace.matmul's;
    the accumulator has the result's type. The kernels are GEMM with
    beta = 1 on the result's buffer (OpenBLAS cblas_sgemm, cuBLAS
    cublasGemmEx), which the memory planner's in-place option makes the
    accumulator's own buffer where the accumulator dies here.

    ```mlir
    %s = gplace.matmul_accumulate %acc, %a, %b transpose_a : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = !con((ins Graph_NumericTensor:$accumulator,
                            Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs,
                            UnitAttr:$transpose_a, UnitAttr:$transpose_b),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_NumericTensor:$result);
  let flops = "::gplace::graph::detail::getMatmulFlops(getLhs(), getResult())"
      " + ::llvm::cast<::mlir::ShapedType>(getResult().getType())"
      ".getNumElements()";
  let assemblyFormat = "$accumulator `,` $lhs `,` $rhs "
      "(`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? "
      # afterClause # " attr-dict `:` `(` type($accumulator) `,` type($lhs) "
      "`,` type($rhs) `)` `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops.
//===----------------------------------------------------------------------===//

class Graph_BinaryOp<string mnemonic, string tfType, string pyName,
                     string what, Type operandType = Graph_NumericTensor,
                     list<Trait> gradient = [DeclareOpInterfaceMethods<Graph_GradientOpInterface>],
                     list<Trait> precision = []>
    : Graph_KernelOp<mnemonic, tfType,
                     !listconcat([Pure, Graph_ElementwiseOpInterface,
                                  Graph_InferredResultType],
                                 gradient, precision),
                     pyName> {
  let summary = what # " with numpy broadcasting (" # tfType # ")";
  let description = [{
    The operands broadcast numpy-style: shapes align at their last
    dimension and a dimension of size 1 stretches to the other's size.
    The result type is the broadcast shape with the operands' element type.

    ```mlir
    %c = gplace.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins operandType:$lhs, operandType:$rhs),
                       placementAttrs, controlDepsArg);
  let results = (outs operandType:$result);
  let assemblyFormat = "$lhs `,` $rhs " # afterClause
      # " attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)";
  // Constant operands fold (GraphFolds.cpp: exact arithmetic only).
  let hasFolder = 1;
  let extraClassDefinition = kernelDefinition # foldElementwise
      # inferBroadcast # refineByVerifier;
}

def Graph_AddOp : Graph_BinaryOp<"add", "AddV2", "add", "elementwise sum",
                                 precision = [Graph_MixedPrecisionInfer]>;
def Graph_SubOp : Graph_BinaryOp<"sub", "Sub", "sub", "elementwise difference",
                                 precision = [Graph_MixedPrecisionInfer]>;
def Graph_MulOp : Graph_BinaryOp<"mul", "Mul", "mul", "elementwise product",
                                 precision = [Graph_MixedPrecisionInfer]>;
def Graph_DivOp : Graph_BinaryOp<"div", "RealDiv", "truediv",
                                 "elementwise quotient", precision = [Graph_MixedPrecisionInfer]>;
def Graph_MaximumOp : Graph_BinaryOp<"maximum", "Maximum", "Maximum",
                                     "elementwise maximum", precision = [Graph_MixedPrecisionInfer]>;
def Graph_PowOp : Graph_BinaryOp<"pow", "Pow", "Pow",
                                 "elementwise power, `lhs` to the `rhs`",
                                 Graph_FloatTensor, precision = [Graph_MixedPrecisionDeny]> {
}

// The gradients of activations, as TensorFlow's gen_nn_ops/gen_math_ops
// define them: the backward ops of relu, sigmoid and tanh. Elementwise, so
// they fuse with what surrounds them; differentiable themselves (second
// derivatives, as TensorFlow's _ReluGradGrad, _SigmoidGradGrad and
// _TanhGradGrad).
def Graph_ReluGradOp : Graph_BinaryOp<"relu_grad", "ReluGrad", "ReluGrad",
    "`gradients` where `features` > 0, else 0 (the gradient of relu)",
    Graph_NumericTensor, precision = [Graph_MixedPrecisionInfer]>;
def Graph_SigmoidGradOp : Graph_BinaryOp<"sigmoid_grad", "SigmoidGrad",
    "SigmoidGrad", "`dy * y * (1 - y)` for `y = sigmoid(x)`",
    Graph_FloatTensor, precision = [Graph_MixedPrecisionInfer]> {
}
def Graph_TanhGradOp : Graph_BinaryOp<"tanh_grad", "TanhGrad", "TanhGrad",
    "`dy * (1 - y * y)` for `y = tanh(x)`", Graph_FloatTensor,
    precision = [Graph_MixedPrecisionInfer]> {
}
// TensorFlow's SoftsignGrad(gradients, features); TensorFlow defines no
// gradient for it.
def Graph_SoftsignGradOp : Graph_BinaryOp<"softsign_grad", "SoftsignGrad",
    "SoftsignGrad", "`gradients / (1 + |features|)^2` (the gradient of "
    "softsign)", Graph_FloatTensor, []>;

// The remainders of a division, as TensorFlow's FloorMod (the sign of the
// divisor, Python's `%`; ONNX's Mod with fmod = 0) and TruncateMod (the
// sign of the dividend, C's fmod; ONNX's Mod with fmod = 1). An integer
// divisor of zero is TensorFlow's "Integer division by zero" error.
def Graph_FloorModOp : Graph_BinaryOp<"floor_mod", "FloorMod", "floormod",
    "elementwise remainder of the division rounded down">;
// TensorFlow registers no gradient for TruncateMod.
def Graph_TruncateModOp : Graph_BinaryOp<"truncate_mod", "TruncateMod",
    "truncatemod", "elementwise remainder of the division rounded toward "
    "zero", Graph_NumericTensor, []>;

class Graph_UnaryOp<string mnemonic, string tfType, string what,
                    Type operandType = Graph_FloatTensor,
                    list<Trait> gradient = [DeclareOpInterfaceMethods<Graph_GradientOpInterface>],
                    list<Trait> precision = []>
    : Graph_KernelOp<mnemonic, tfType, !listconcat([Pure, Graph_ElementwiseOpInterface,
        DeclareOpInterfaceMethods<InferTypeOpInterface>], gradient, precision)> {
  let summary = what # " (" # tfType # ")";
  let description = [{
    The result has the operand's type.

    ```mlir
    %y = gplace.}] # mnemonic # [{ %x : tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins operandType:$input), placementAttrs,
                       controlDepsArg);
  let results = (outs operandType:$result);
  let assemblyFormat =
      "$input " # afterClause # " attr-dict `:` type($input)";
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand
      # foldElementwise;
  // A constant operand folds (GraphFolds.cpp: exact functions only).
  let hasFolder = 1;
}

def Graph_NegOp : Graph_UnaryOp<"neg", "Neg", "elementwise negation",
                                Graph_NumericTensor, precision = [Graph_MixedPrecisionInfer]>;
def Graph_ExpOp : Graph_UnaryOp<"exp", "Exp", "elementwise e^x",
                                precision = [Graph_MixedPrecisionDeny]> {
}
def Graph_LogOp : Graph_UnaryOp<"log", "Log", "elementwise natural logarithm",
                                precision = [Graph_MixedPrecisionDeny]> {
}
def Graph_TanhOp : Graph_UnaryOp<"tanh", "Tanh", "elementwise tanh",
                                 precision = [Graph_MixedPrecisionInfer]> {
}
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "Sigmoid",
                                    "elementwise 1 / (1 + e^-x)",
                                    precision = [Graph_MixedPrecisionInfer]> {
}
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "Sqrt", "elementwise square root"> {
}
def Graph_ReluOp : Graph_UnaryOp<"relu", "Relu", "elementwise max(x, 0)",
                                 Graph_NumericTensor, precision = [Graph_MixedPrecisionInfer]>;
def Graph_SquareOp : Graph_UnaryOp<"square", "Square", "elementwise x * x",
                                   Graph_NumericTensor, precision = [Graph_MixedPrecisionInfer]>;

// The trigonometric and hyperbolic functions, the error function, sign,
// rounding and softsign, as TensorFlow's math ops (math_grad.py and
// nn_grad.py give their gradients). Computed by libm on the host (operands
// and results flushed as the other transcendental kernels', since libm
// takes the bits apart) and by CUDA's math library on GPUs.
def Graph_SinOp : Graph_UnaryOp<"sin", "Sin", "elementwise sine">;
def Graph_CosOp : Graph_UnaryOp<"cos", "Cos", "elementwise cosine">;
def Graph_TanOp : Graph_UnaryOp<"tan", "Tan", "elementwise tangent">;
def Graph_AsinOp : Graph_UnaryOp<"asin", "Asin", "elementwise arcsine">;
def Graph_AcosOp : Graph_UnaryOp<"acos", "Acos", "elementwise arccosine">;
def Graph_AtanOp : Graph_UnaryOp<"atan", "Atan", "elementwise arctangent">;
def Graph_SinhOp : Graph_UnaryOp<"sinh", "Sinh", "elementwise hyperbolic sine">;
def Graph_CoshOp : Graph_UnaryOp<"cosh", "Cosh",
                                 "elementwise hyperbolic cosine">;
def Graph_AsinhOp : Graph_UnaryOp<"asinh", "Asinh",
                                  "elementwise inverse hyperbolic sine">;
def Graph_AcoshOp : Graph_UnaryOp<"acosh", "Acosh",
                                  "elementwise inverse hyperbolic cosine">;
def Graph_AtanhOp : Graph_UnaryOp<"atanh", "Atanh",
                                  "elementwise inverse hyperbolic tangent">;
def Graph_ErfOp : Graph_UnaryOp<"erf", "Erf", "elementwise error function">;
def Graph_SoftsignOp : Graph_UnaryOp<"softsign", "Softsign",
                                     "elementwise x / (1 + |x|)">;
// -1, 0 or 1 by the operand's sign (a NaN stays NaN, as numpy's and
// ONNX's); its gradient is zeros (TensorFlow's _SignGrad).
def Graph_SignOp : Graph_UnaryOp<"sign", "Sign", "elementwise sign",
                                 Graph_NumericTensor>;
// Step functions: TensorFlow registers no gradient for them (None), so
// gradients stop there.
def Graph_RoundOp : Graph_UnaryOp<"round", "Round",
    "elementwise rounding to the nearest integer, halves to even",
    Graph_FloatTensor, [Graph_NotDifferentiable]>;
def Graph_CeilOp : Graph_UnaryOp<"ceil", "Ceil", "elementwise ceiling",
                                 Graph_FloatTensor, [Graph_NotDifferentiable]>;
def Graph_FloorOp : Graph_UnaryOp<"floor", "Floor", "elementwise floor",
                                  Graph_FloatTensor, [Graph_NotDifferentiable]>;

def Graph_AddNOp : Graph_KernelOp<"add_n", "AddN",
    [Pure, Graph_MixedPrecisionInfer, AttrSizedOperandSegments, Graph_ElementwiseOpInterface, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "sum of one or more tensors of the same type (AddN)";
  let description = [{
    All operands have the same type, which is the result type (no
    broadcasting, as TensorFlow's AddN).

    ```mlir
    %sum = gplace.add_n %c0, %c1 : tensor<2x2xf32>, tensor<2x2xf32>
    ```
  }];
  let arguments = !con((ins Variadic<Graph_NumericTensor>:$inputs),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat =
      "$inputs " # afterClause # " attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Neural-network ops and reductions.
//===----------------------------------------------------------------------===//

def Graph_BiasAddOp : Graph_KernelOp<"bias_add", "BiasAdd",
    [Pure, Graph_MixedPrecisionInfer, Graph_ElementwiseOpInterface, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "adds a rank-1 bias along the last dimension (BiasAdd)";
  let description = [{
    `bias` has rank 1 and as many elements as the last dimension of
    `value`; the result has the type of `value`.

    ```mlir
    %y = gplace.bias_add %x, %b : tensor<4x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = !con((ins Graph_NumericTensor:$value,
                            Graph_NumericTensor:$bias),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat = "$value `,` $bias " # afterClause
      # " attr-dict `:` type($value) `,` type($bias)";
  let hasVerifier = 1;
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand;
}

class Graph_ReduceOp<string mnemonic, string tfType, string what,
                     Type operandType = Graph_NumericTensor>
    : Graph_KernelOp<mnemonic, tfType, [Pure, Graph_MixedPrecisionDeny, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>], tfType,
                     ["getKernelParameters"]> {
  let summary = what # " over `axes` (" # tfType # ")";
  let description = [{
    Reduces the dimensions listed in `axes` (negative values count from the
    end; each axis at most once; an empty list reduces nothing). With
    `keep_dims` the reduced dimensions stay with size 1.

    ```mlir
    %s = gplace.}] # mnemonic # [{ %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
    %k = gplace.}] # mnemonic # [{ %x axes = [0, 1] keep_dims : tensor<2x3xf32> -> tensor<1x1xf32>
    ```
  }];
  let arguments = !con((ins operandType:$input, DenseI64ArrayAttr:$axes,
                            UnitAttr:$keep_dims),
                       placementAttrs, controlDepsArg);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input `axes` `=` $axes (`keep_dims` $keep_dims^)? "
      # afterClause # " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "Sum", "sum">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "Mean", "mean">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "Max", "maximum">;

include "graph/GraphCompositeOps.td"

def Graph_SoftmaxOp : Graph_KernelOp<"softmax", "Softmax",
    [Pure, Graph_MixedPrecisionDeny, DeclareOpInterfaceMethods<InferTypeOpInterface>, DeclareOpInterfaceMethods<Graph_GradientOpInterface>]> {
  let summary = "softmax over the last dimension (Softmax)";
  let description = [{
    ```mlir
    %p = gplace.softmax %logits : tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input), placementAttrs,
                       controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input " # afterClause # " attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand;
}

//===----------------------------------------------------------------------===//
// Type and shape ops.
//===----------------------------------------------------------------------===//

def Graph_CastOp : Graph_KernelOp<"cast", "Cast", [Pure, Graph_KernelTypeFromOperandAndResult, DeclareOpInterfaceMethods<Graph_GradientOpInterface>]> {
  let summary = "converts each element to another element type (Cast)";
  let description = [{
    The shapes of operand and result are equal. Conversions follow C++:
    float to integer truncates toward zero, any nonzero value casts to
    `true`. A cast between float types (f16, bf16, f32, f64; what
    automatic mixed precision inserts) has a kernel on GPUs too; a cast
    from or to an integer or bool type runs on the CPU, as the seeds say
    of `tf.cast` ("only a CPU implementation").

    ```mlir
    %f = gplace.cast %i : tensor<2x3xi32> to tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$input), placementAttrs,
                       controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input " # afterClause
      # " attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TransposeOp : Graph_KernelOp<"transpose", "Transpose", [Pure, Graph_MixedPrecisionInfer, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>],
                                       "transpose"> {
  let summary = "permutes dimensions (Transpose)";
  let description = [{
    Result dimension `i` is operand dimension `perm[i]`.

    ```mlir
    %t = gplace.transpose %x perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$input, DenseI64ArrayAttr:$perm),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `perm` `=` $perm " # afterClause
      # " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_ReshapeOp : Graph_Op<"reshape", "Reshape",
                                [Pure, Graph_MixedPrecisionInfer, Graph_ForwardsInput, DeclareOpInterfaceMethods<Graph_GradientOpInterface>]> {
  let summary = "reinterprets the elements with a new shape (Reshape)";
  let description = [{
    Operand and result hold the same number of elements of the same type,
    in row-major order.

    ```mlir
    %r = gplace.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$input), placementAttrs,
                       controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input " # afterClause
      # " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_SliceOp : Graph_KernelOp<"slice", "Slice", [Pure, Graph_MixedPrecisionInfer, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>], "Slice",
                                   ["getKernelParameters"]> {
  let summary = "extracts a contiguous block (Slice)";
  let description = [{
    Takes `size[i]` elements of dimension `i` starting at `begin[i]`; a size
    of -1 takes everything from `begin[i]` to the end. The result shape is
    the resolved sizes.

    ```mlir
    %s = gplace.slice %x begin = [0, 1] size = [2, -1] : tensor<2x3xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$input, DenseI64ArrayAttr:$begin,
                            DenseI64ArrayAttr:$size),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `begin` `=` $begin `size` `=` $size "
      # afterClause # " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_DynamicUpdateSliceOp : Graph_KernelOp<"dynamic_update_slice",
    "XlaDynamicUpdateSlice",
    [Pure, Graph_MixedPrecisionInfer,
     DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     DeclareOpInterfaceMethods<InferTypeOpInterface>],
    "XlaDynamicUpdateSlice"> {
  let summary = "writes a block at runtime indices (XlaDynamicUpdateSlice)";
  let description = [{
    The result is `input` with the block `update` written at the offsets
    `indices` (one per dimension, a runtime rank-1 tensor): TensorFlow's
    XlaDynamicUpdateSlice, XLA's DynamicUpdateSlice. `update` has the
    input's rank and element type and no larger dimensions; the result has
    the input's type. As in XLA, each offset is clamped to
    `[0, input.shape[i] - update.shape[i]]`, so that the block always fits:
    an offset out of range writes at the nearest edge, never outside.
    The kernel copies `input` into the result (nothing where they share a
    buffer), then writes the block. The gradient passes the incoming
    gradient to `input` with the block zeroed, and the block of it (at the
    same clamped offsets) to `update`; the indices have none.

    ```mlir
    %s = gplace.dynamic_update_slice %stack, %row, %at : (tensor<8x3xf32>, tensor<1x3xf32>, tensor<2xi64>) -> tensor<8x3xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$input, Graph_Tensor:$update,
                            StaticShapeTensorOf<[I32, I64]>:$indices),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $update `,` $indices " # afterClause
      # " attr-dict `:` `(` type($input) `,` type($update) `,` "
      # "type($indices) `)` `->` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand;
}

def Graph_ConcatOp : Graph_KernelOp<"concat", "ConcatV2",
    [Pure, Graph_MixedPrecisionInfer, Graph_InferredResultType, AttrSizedOperandSegments, DeclareOpInterfaceMethods<Graph_GradientOpInterface>], "concat",
    ["getKernelParameters"]> {
  let summary = "joins tensors along one dimension (ConcatV2)";
  let description = [{
    All operands have the same rank and element type and agree on every
    dimension but `axis` (negative values count from the end); the result's
    `axis` dimension is the sum of theirs.

    ```mlir
    %c = gplace.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
    ```
  }];
  let arguments = !con((ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$inputs `axis` `=` $axis " # afterClause
      # " attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_IdentityOp : Graph_Op<"identity", "Identity",
    [Pure, Graph_MixedPrecisionInfer, Graph_ForwardsInput, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "forwards its operand (Identity)";
  let description = [{
    Forwards a tensor or a resource unchanged. An identity of a resource is
    colocated with the resource, like every other use.

    ```mlir
    %y = gplace.identity %x : tensor<2x3xf32>
    %w = gplace.identity %v : !gplace.resource<tensor<f32>>
    ```
  }];
  let arguments = !con((ins AnyTypeOf<[Graph_Tensor, Graph_AnyResource]>:$input),
                       placementAttrs, controlDepsArg);
  let results = (outs AnyTypeOf<[Graph_Tensor, Graph_AnyResource]>:$result);
  let assemblyFormat = "$input " # afterClause # " attr-dict `:` type($input)";
  let extraClassDefinition = inferFromFirstOperand;
  let hasFolder = 1;
}

def Graph_CheckRangeOp : Graph_KernelOp<"check_range", "CheckRange",
    [Pure, Graph_NotDifferentiable,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "forwards integers, failing the run on one outside a range";
  let description = [{
    Returns its operand unchanged when every element is in `[low, high]`;
    otherwise the step fails, naming the first element outside the range
    (`x[1] = 7 is not in [0, 3]`), before anything downstream runs. A
    run-time check of a value a kernel cannot range-check itself, as
    TensorFlow's CheckNumerics checks floats and its
    `tf.debugging.assert_less_equal` builds an Assert (gplace has no op of
    TensorFlow's for it). The ONNX importer checks with it the
    `sequence_lens` given at run time of an unrolled LSTM, GRU or RNN
    (`[0, seq_length]`) and of ReverseSequence (`[0, time]`), as ONNX
    Runtime refuses lengths outside those ranges. Host kernels only: it runs
    on the CPU (soft placement moves one requested elsewhere). A constant
    operand in the range folds to itself.

    ```mlir
    %ok = gplace.check_range %lens low = 0 high = 3 : tensor<2xi64>
    ```
  }];
  let arguments = !con((ins StaticShapeTensorOf<[I32, I64]>:$input,
                            I64Attr:$low, I64Attr:$high),
                       placementAttrs, controlDepsArg);
  let results = (outs StaticShapeTensorOf<[I32, I64]>:$result);
  let assemblyFormat = "$input `low` `=` $low `high` `=` $high " # afterClause
      # " attr-dict `:` type($input)";
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand;
  let hasVerifier = 1;
  let hasFolder = 1;
}


//===----------------------------------------------------------------------===//
// Broadcasting and padding (and the gradients of reductions and slices).
//===----------------------------------------------------------------------===//

def Graph_BroadcastToOp : Graph_KernelOp<"broadcast_to", "BroadcastTo",
    [Pure, DeclareOpInterfaceMethods<Graph_GradientOpInterface>]> {
  let summary = "broadcasts a tensor to a shape (BroadcastTo)";
  let description = [{
    Stretches the operand numpy-style to the result's shape: shapes align
    at their last dimension, a dimension of size 1 (or a missing leading
    one) repeats.

    ```mlir
    %b = gplace.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$input), placementAttrs,
                       controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input " # afterClause
      # " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_PadOp : Graph_KernelOp<"pad", "Pad",
    [Pure, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>], "Pad"> {
  let summary = "pads with zeros (Pad)";
  let description = [{
    `paddings` holds two non-negative counts per dimension, before and
    after: `[before0, after0, before1, after1, ...]` (TensorFlow's
    `paddings` tensor of shape [rank, 2], flattened). The new elements are
    zero.

    ```mlir
    %p = gplace.pad %x paddings = [0, 1, 2, 0] : tensor<2x3xf32> -> tensor<3x5xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$input,
                            DenseI64ArrayAttr:$paddings),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `paddings` `=` $paddings " # afterClause
      # " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (nn_ops: Conv2D, MaxPool, AvgPool and their
// gradients).
//===----------------------------------------------------------------------===//

// An op that slides a window over the two spatial dimensions of a rank-4
// tensor, with TensorFlow's attributes: `data_format` "NHWC" (the default)
// or "NCHW" says where the channels are; `strides` (and `ksize`,
// `dilations`) have four entries in that layout, 1 for the batch and
// channel dimensions; `padding` is "SAME" (outputs ceil(in / stride), zero
// padding split with the extra element after, as TensorFlow), "VALID" (no
// padding) or, for convolutions, "EXPLICIT" with `explicit_paddings`, eight
// counts (before, after) per dimension in `data_format`'s order. The
// kernel takes them resolved, whatever the layout: the window's size,
// strides, dilations and pads (top, bottom, left, right) over (height,
// width), and whether the channels come first.
class Graph_WindowOp<string mnemonic, string tfType, list<Trait> traits = [],
                     string pyName = tfType>
    : Graph_KernelOp<mnemonic, tfType, !listconcat([Pure], traits), pyName,
                     ["getKernelParameters"]> {
  let kernelParameters = (ins DenseI64ArrayAttr:$window_size,
                              DenseI64ArrayAttr:$window_strides,
                              DenseI64ArrayAttr:$window_dilations,
                              DenseI64ArrayAttr:$window_pads,
                              UnitAttr:$channels_first);
  dag convolutionAttrs = (ins DenseI64ArrayAttr:$strides, StrAttr:$padding,
                              OptionalAttr<DenseI64ArrayAttr>:$explicit_paddings,
                              OptionalAttr<StrAttr>:$data_format,
                              OptionalAttr<DenseI64ArrayAttr>:$dilations);
  dag poolAttrs = (ins DenseI64ArrayAttr:$ksize, DenseI64ArrayAttr:$strides,
                       StrAttr:$padding, OptionalAttr<StrAttr>:$data_format);
  let hasVerifier = 1;
  // Pooling: one operation per element of the largest tensor and window
  // position; convolutions say their own.
  let flops = "::gplace::graph::detail::getWindowFlops(*this, getWindowAttrs())";
  // oneDNN's f32 kernels on the CPU (emulated GPUs run them too).
  code windowAccessors = [{
    /// The op's window attributes resolved: sizes, strides, dilations and
    /// pads over (height, width), the layout. Valid once verified.
    ::gplace::graph::WindowAttrs getWindowAttrs();
  }];
  let extraClassDeclaration = tfNames # windowAccessors;
}

def Graph_Conv2DOp : Graph_WindowOp<"conv2d", "Conv2D",
    [Graph_MixedPrecisionAllow, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     Graph_LayoutSensitiveOpInterface]> {
  let summary = "2-D convolution (Conv2D)";
  let description = [{
    Cross-correlates `input` ([batch, height, width, in_channels] in NHWC)
    with `filter` ([filter_height, filter_width, in_channels / groups,
    out_channels], TensorFlow's HWIO whatever the data format); the
    input's channels are a multiple of the filter's, which makes grouped
    convolutions (`groups = in_channels / filter's in_channels`, dividing
    out_channels too). The result's spatial sizes follow from `padding`,
    `strides` and `dilations` (tf.nn.conv2d).

    ```mlir
    %y = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<8x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<8x28x28x32xf32>
    %z = gplace.conv2d %x, %w strides = [1, 2, 2, 1] padding = "VALID" {dilations = array<i64: 1, 2, 2, 1>} : tensor<8x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<8x10x10x32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input, Graph_FloatTensor:$filter),
                       convolutionAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getConvolutionFlops(getResult(), getFilter(), false)";
  let assemblyFormat = "$input `,` $filter `strides` `=` $strides `padding` "
      "`=` $padding " # afterClause # " attr-dict `:` type($input) `,` "
      "type($filter) `->` type($result)";
}

def Graph_FusedConv2DOp : Graph_WindowOp<"fused_conv2d", "_FusedConv2D",
    [Graph_InferredResultType, Graph_LayoutSensitiveOpInterface]> {
  let summary = "conv2d with its bias and activation (_FusedConv2D)";
  let description = [{
    A `gplace.conv2d` (same operands and attributes) followed by
    `fused_ops`, run as one kernel: `["BiasAdd"]` adds `bias` (one value per
    output channel) and `["BiasAdd", "Relu"]` then takes max(x, 0), as
    TensorFlow's `_FusedConv2D`. Written by `--gplace-remap` (Grappler's
    remapper) in place of a conv2d whose only use is a bias_add whose only
    use (if any) is a relu; it has no gradient, so the remapper runs after
    `--gplace-differentiate`.

    ```mlir
    %y = gplace.fused_conv2d %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu"] : tensor<8x28x28x1xf32>, tensor<5x5x1x32xf32>, tensor<32xf32> -> tensor<8x24x24x32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input, Graph_FloatTensor:$filter,
                            Graph_FloatTensor:$bias),
                       convolutionAttrs, (ins StrArrayAttr:$fused_ops),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getConvolutionFlops(getResult(), getFilter(), false)";
  let kernelParameters = (ins DenseI64ArrayAttr:$window_size,
                              DenseI64ArrayAttr:$window_strides,
                              DenseI64ArrayAttr:$window_dilations,
                              DenseI64ArrayAttr:$window_pads,
                              UnitAttr:$channels_first, UnitAttr:$fused_relu);
  let assemblyFormat = "$input `,` $filter `,` $bias `strides` `=` $strides "
      "`padding` `=` $padding `fused_ops` `=` $fused_ops " # afterClause #
      " attr-dict `:` type($input) `,` type($filter) `,` type($bias) `->` "
      "type($result)";
}

def Graph_FusedConv2DPoolOp : Graph_WindowOp<"fused_conv2d_pool",
    "_FusedConv2DPool", [Graph_InferredResultType]> {
  let summary = "fused_conv2d followed by its pool, on CPUs (gplace's own)";
  let description = [{
    A `gplace.fused_conv2d` (same operands and attributes; NHWC) whose
    result goes through `gplace.max_pool` (`fused_ops` ends with
    `"MaxPool"`) or `gplace.avg_pool` (`"AvgPool"`) with `pool_ksize`,
    `pool_strides` and `pool_padding` (the pool's `ksize`, `strides` and
    `padding`), run as one kernel: oneDNN's convolution writes a blocked
    layout (nChw16c) that the pooling reads, and only the pooled result is
    reordered into NHWC, as ONNX Runtime's NCHWc transformer and
    TensorFlow's MKL layout pass keep blocked tensors between oneDNN ops.
    TensorFlow has no such op. Written by `--gplace-remap` for ops that
    can only run on a CPU: it has no GPU kernel and no gradient.

    ```mlir
    %y = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu", "MaxPool"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 2, 2, 1] pool_padding = "VALID" : tensor<8x28x28x1xf32>, tensor<5x5x1x32xf32>, tensor<32xf32> -> tensor<8x12x12x32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input, Graph_FloatTensor:$filter,
                            Graph_FloatTensor:$bias),
                       convolutionAttrs,
                       (ins StrArrayAttr:$fused_ops,
                            DenseI64ArrayAttr:$pool_ksize,
                            DenseI64ArrayAttr:$pool_strides,
                            StrAttr:$pool_padding),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getFusedConv2DPoolFlops(getOperation())";
  let kernelParameters = (ins DenseI64ArrayAttr:$window_size,
                              DenseI64ArrayAttr:$window_strides,
                              DenseI64ArrayAttr:$window_dilations,
                              DenseI64ArrayAttr:$window_pads,
                              UnitAttr:$fused_relu,
                              DenseI64ArrayAttr:$pool_window_size,
                              DenseI64ArrayAttr:$pool_window_strides,
                              DenseI64ArrayAttr:$pool_window_pads,
                              UnitAttr:$pool_average);
  let assemblyFormat = "$input `,` $filter `,` $bias `strides` `=` $strides "
      "`padding` `=` $padding `fused_ops` `=` $fused_ops `pool_ksize` `=` "
      "$pool_ksize `pool_strides` `=` $pool_strides `pool_padding` `=` "
      "$pool_padding " # afterClause #
      " attr-dict `:` type($input) `,` type($filter) `,` type($bias) `->` "
      "type($result)";
  code convolutionType = [{
    /// The type of the convolution's result, before the pool. Valid once
    /// verified.
    ::mlir::RankedTensorType getConvolutionType();
  }];
  let extraClassDeclaration = tfNames # windowAccessors # convolutionType;
}

def Graph_Conv2DBackpropInputOp : Graph_WindowOp<"conv2d_backprop_input",
    "Conv2DBackpropInput", [Graph_MixedPrecisionAllow]> {
  let summary = "gradient of conv2d with respect to its input "
                "(Conv2DBackpropInput)";
  let description = [{
    The gradient of a `gplace.conv2d` with the same attributes with respect
    to its input, whose type is the result type (TensorFlow's
    `input_sizes`), given its `filter` and the gradient of its result.

    ```mlir
    %dx = gplace.conv2d_backprop_input %w, %dy strides = [1, 1, 1, 1] padding = "SAME" : tensor<5x5x1x32xf32>, tensor<8x28x28x32xf32> -> tensor<8x28x28x1xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$filter,
                            Graph_FloatTensor:$out_backprop),
                       convolutionAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getConvolutionFlops(getOutBackprop(), getFilter(), false)";
  let assemblyFormat = "$filter `,` $out_backprop `strides` `=` $strides "
      "`padding` `=` $padding " # afterClause # " attr-dict `:` "
      "type($filter) `,` type($out_backprop) `->` type($result)";
}

def Graph_Conv2DBackpropFilterOp : Graph_WindowOp<"conv2d_backprop_filter",
    "Conv2DBackpropFilter", [Graph_MixedPrecisionAllow]> {
  let summary = "gradient of conv2d with respect to its filter "
                "(Conv2DBackpropFilter)";
  let description = [{
    The gradient of a `gplace.conv2d` with the same attributes with respect
    to its filter, whose type is the result type (TensorFlow's
    `filter_sizes`), given its `input` and the gradient of its result.

    ```mlir
    %dw = gplace.conv2d_backprop_filter %x, %dy strides = [1, 1, 1, 1] padding = "SAME" : tensor<8x28x28x1xf32>, tensor<8x28x28x32xf32> -> tensor<5x5x1x32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input,
                            Graph_FloatTensor:$out_backprop),
                       convolutionAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getConvolutionFlops(getOutBackprop(), getResult(), false)";
  let assemblyFormat = "$input `,` $out_backprop `strides` `=` $strides "
      "`padding` `=` $padding " # afterClause # " attr-dict `:` "
      "type($input) `,` type($out_backprop) `->` type($result)";
}

def Graph_FusedBatchNormOp : Graph_KernelOp<"fused_batch_norm", "FusedBatchNormV3",
    [Pure, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     Graph_LayoutSensitiveOpInterface, AllTypesMatch<["x", "y"]>,
     AllTypesMatch<["scale", "offset", "mean", "variance", "batch_mean",
                    "batch_variance"]>],
    "FusedBatchNormV3", ["getKernelParameters"]> {
  let summary = "batch normalization over the channels (FusedBatchNormV3)";
  let description = [{
    `y = scale * (x - m) / sqrt(v + epsilon) + offset` per channel of a
    rank-4 `x` (NHWC, or NCHW with `data_format`), as
    `tf.compat.v1.nn.fused_batch_norm`. Inference (the default): `m` and
    `v` are the given `mean` and `variance`, which the op returns as
    `batch_mean` and `batch_variance`. With `is_training`: `m` and `v` are
    the batch's mean and (biased) variance over batch, height and width;
    the op returns the mean and the Bessel-corrected variance
    (`v * n / (n - 1)`, n the elements per channel), as TensorFlow does, for
    the moving averages; `mean` and `variance` are not read. `scale`,
    `offset`, `mean` and `variance` are vectors of the channels.

    ```mlir
    %y, %m, %v = gplace.fused_batch_norm %x, %scale, %offset, %mean, %variance epsilon = 1.0e-03 is_training : tensor<8x14x14x32xf32>, tensor<32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$x, Graph_FloatTensor:$scale,
                            Graph_FloatTensor:$offset, Graph_FloatTensor:$mean,
                            Graph_FloatTensor:$variance, F32Attr:$epsilon,
                            UnitAttr:$is_training,
                            OptionalAttr<StrAttr>:$data_format),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$y, Graph_FloatTensor:$batch_mean,
                      Graph_FloatTensor:$batch_variance);
  let kernelParameters = (ins F32Attr:$epsilon, UnitAttr:$is_training,
                              UnitAttr:$channels_first);
  let assemblyFormat = "$x `,` $scale `,` $offset `,` $mean `,` $variance "
      "`epsilon` `=` $epsilon (`is_training` $is_training^)? " # afterClause #
      " attr-dict `:` type($x) `,` type($scale)";
  let hasVerifier = 1;
}

def Graph_FusedBatchNormGradOp : Graph_KernelOp<"fused_batch_norm_grad",
    "FusedBatchNormGradV3",
    [Pure, AllTypesMatch<["y_backprop", "x", "x_backprop"]>,
     AllTypesMatch<["scale", "mean", "variance", "scale_backprop",
                    "offset_backprop"]>], "FusedBatchNormGradV3",
    ["getKernelParameters"]> {
  let summary = "gradient of fused_batch_norm (FusedBatchNormGradV3)";
  let description = [{
    The gradients of a `gplace.fused_batch_norm` (same `epsilon`,
    `is_training` and `data_format`) with respect to `x`, `scale` and
    `offset`, given the gradient of `y`, `x`, `scale`, and the forward's
    `batch_mean` and `batch_variance` results (TensorFlow's reserve
    spaces): with `is_training` the variance is the Bessel-corrected one
    the forward returned, which the kernel turns back into the batch's.

    ```mlir
    %dx, %dscale, %doffset = gplace.fused_batch_norm_grad %dy, %x, %scale, %m, %v epsilon = 1.0e-03 is_training : tensor<8x14x14x32xf32>, tensor<32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$y_backprop, Graph_FloatTensor:$x,
                            Graph_FloatTensor:$scale, Graph_FloatTensor:$mean,
                            Graph_FloatTensor:$variance, F32Attr:$epsilon,
                            UnitAttr:$is_training,
                            OptionalAttr<StrAttr>:$data_format),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$x_backprop,
                      Graph_FloatTensor:$scale_backprop,
                      Graph_FloatTensor:$offset_backprop);
  let kernelParameters = (ins F32Attr:$epsilon, UnitAttr:$is_training,
                              UnitAttr:$channels_first);
  let assemblyFormat = "$y_backprop `,` $x `,` $scale `,` $mean `,` $variance "
      "`epsilon` `=` $epsilon (`is_training` $is_training^)? " # afterClause #
      " attr-dict `:` type($x) `,` type($scale)";
  let hasVerifier = 1;
}

def Graph_DepthwiseConv2dNativeOp : Graph_WindowOp<"depthwise_conv2d_native",
    "DepthwiseConv2dNative",
    [Graph_MixedPrecisionAllow, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     Graph_LayoutSensitiveOpInterface], "depthwise"> {
  let summary = "depthwise 2-D convolution (DepthwiseConv2dNative)";
  let description = [{
    Convolves each input channel with its own `channel_multiplier` filters:
    `filter` is [filter_height, filter_width, in_channels,
    channel_multiplier] and result channel `c * channel_multiplier + m`
    is input channel `c` with filter `[:, :, c, m]` (tf.nn.depthwise_conv2d
    's core, a conv2d with `in_channels` groups). Attributes as conv2d's.

    ```mlir
    %y = gplace.depthwise_conv2d_native %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<8x28x28x3xf32>, tensor<3x3x3x2xf32> -> tensor<8x28x28x6xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input, Graph_FloatTensor:$filter),
                       convolutionAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getConvolutionFlops(getResult(), getFilter(), true)";
  let assemblyFormat = "$input `,` $filter `strides` `=` $strides `padding` "
      "`=` $padding " # afterClause # " attr-dict `:` type($input) `,` "
      "type($filter) `->` type($result)";
}

def Graph_DepthwiseConv2dNativeBackpropInputOp
    : Graph_WindowOp<"depthwise_conv2d_native_backprop_input",
                     "DepthwiseConv2dNativeBackpropInput",
                     [Graph_MixedPrecisionAllow]> {
  let summary = "gradient of depthwise_conv2d_native with respect to its "
                "input (DepthwiseConv2dNativeBackpropInput)";
  let description = [{
    As conv2d_backprop_input, for `gplace.depthwise_conv2d_native`.

    ```mlir
    %dx = gplace.depthwise_conv2d_native_backprop_input %w, %dy strides = [1, 1, 1, 1] padding = "SAME" : tensor<3x3x3x2xf32>, tensor<8x28x28x6xf32> -> tensor<8x28x28x3xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$filter,
                            Graph_FloatTensor:$out_backprop),
                       convolutionAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getConvolutionFlops(getOutBackprop(), getFilter(), true)";
  let assemblyFormat = "$filter `,` $out_backprop `strides` `=` $strides "
      "`padding` `=` $padding " # afterClause # " attr-dict `:` "
      "type($filter) `,` type($out_backprop) `->` type($result)";
}

def Graph_DepthwiseConv2dNativeBackpropFilterOp
    : Graph_WindowOp<"depthwise_conv2d_native_backprop_filter",
                     "DepthwiseConv2dNativeBackpropFilter",
                     [Graph_MixedPrecisionAllow]> {
  let summary = "gradient of depthwise_conv2d_native with respect to its "
                "filter (DepthwiseConv2dNativeBackpropFilter)";
  let description = [{
    As conv2d_backprop_filter, for `gplace.depthwise_conv2d_native`.

    ```mlir
    %dw = gplace.depthwise_conv2d_native_backprop_filter %x, %dy strides = [1, 1, 1, 1] padding = "SAME" : tensor<8x28x28x3xf32>, tensor<8x28x28x6xf32> -> tensor<3x3x3x2xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input,
                            Graph_FloatTensor:$out_backprop),
                       convolutionAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let flops = "::gplace::graph::detail::getConvolutionFlops(getOutBackprop(), getResult(), true)";
  let assemblyFormat = "$input `,` $out_backprop `strides` `=` $strides "
      "`padding` `=` $padding " # afterClause # " attr-dict `:` "
      "type($input) `,` type($out_backprop) `->` type($result)";
}

class Graph_PoolOp<string mnemonic, string tfType, string what>
    : Graph_WindowOp<mnemonic, tfType,
                     [Graph_MixedPrecisionInfer, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
                      Graph_LayoutSensitiveOpInterface]> {
  let summary = what # " over windows of `ksize` (" # tfType # ")";
  let description = [{
    Each result element is the }] # what # [{ of a window of `ksize`
    (four entries in `data_format`'s order, 1 for the batch and channels)
    moved by `strides`; with `padding = "SAME"` windows that reach past the
    border take only the elements inside (tf.nn.}] # mnemonic # [{).

    ```mlir
    %p = gplace.}] # mnemonic # [{ %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<8x28x28x32xf32> -> tensor<8x14x14x32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input), poolAttrs,
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input `ksize` `=` $ksize `strides` `=` $strides "
      "`padding` `=` $padding " # afterClause # " attr-dict `:` "
      "type($input) `->` type($result)";
}

def Graph_MaxPoolOp : Graph_PoolOp<"max_pool", "MaxPool", "maximum">;
def Graph_AvgPoolOp : Graph_PoolOp<"avg_pool", "AvgPool", "mean">;

def Graph_MaxPoolGradOp : Graph_WindowOp<"max_pool_grad", "MaxPoolGrad",
    [AllTypesMatch<["orig_output", "grad"]>,
     AllTypesMatch<["orig_input", "result"]>]> {
  let summary = "gradient of max_pool (MaxPoolGrad)";
  let description = [{
    The gradient of `orig_output = gplace.max_pool %orig_input` (same
    attributes) with respect to `orig_input`: each element of `grad` goes
    to the element its window took, the first of equal ones.

    ```mlir
    %dx = gplace.max_pool_grad %x, %p, %dp ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<8x28x28x32xf32>, tensor<8x14x14x32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$orig_input,
                            Graph_FloatTensor:$orig_output,
                            Graph_FloatTensor:$grad),
                       poolAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$orig_input `,` $orig_output `,` $grad `ksize` `=` "
      "$ksize `strides` `=` $strides `padding` `=` $padding " # afterClause
      # " attr-dict `:` type($orig_input) `,` type($orig_output)";
}

def Graph_AvgPoolGradOp : Graph_WindowOp<"avg_pool_grad", "AvgPoolGrad"> {
  let summary = "gradient of avg_pool (AvgPoolGrad)";
  let description = [{
    The gradient of a `gplace.avg_pool` (same attributes) with respect to
    its input, whose type is the result type (TensorFlow's
    `orig_input_shape`): each element of `grad` is spread evenly over its
    window's elements.

    ```mlir
    %dx = gplace.avg_pool_grad %dp ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<8x14x14x32xf32> -> tensor<8x28x28x32xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$grad), poolAttrs,
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$grad `ksize` `=` $ksize `strides` `=` $strides "
      "`padding` `=` $padding " # afterClause # " attr-dict `:` "
      "type($grad) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Recurrent layers.
//===----------------------------------------------------------------------===//

// A whole recurrent layer over a sequence, run by one library call: the
// ops ask their kernel parameters (the cell and direction as integers) and
// their floating-point operations of the code in RecurrentOps.cpp.
class Graph_RecurrentOp<string mnemonic, string tfType, list<Trait> traits = []>
    : Graph_KernelOp<mnemonic, tfType, !listconcat([Pure], traits), tfType,
                     ["getKernelParameters"]> {
  dag recurrentAttrs = (ins StrAttr:$rnn_mode, StrAttr:$direction,
                            UnitAttr:$linear_before_reset);
  let kernelParameters = (ins I64Attr:$rnn_kind, I64Attr:$rnn_direction);
  let flops = "getRecurrentFlops()";
  let hasVerifier = 1;
  code recurrentAccessors = [{
    /// The layer's multiply-adds counted as two operations each: every
    /// step's products with W and R, for every direction.
    int64_t getRecurrentFlops();
  }];
  let extraClassDeclaration = tfNames # recurrentAccessors;
}

def Graph_CudnnRNNOp : Graph_RecurrentOp<"cudnn_rnn", "CudnnRNNV3",
    [Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>,
     AllTypesMatch<["input_h", "input_c"]>]> {
  let summary = "an RNN, GRU or LSTM layer over a whole sequence (CudnnRNNV3)";
  let description = [{
    One recurrent layer over a time-major `input` [seq, batch, input_size]
    from the initial states `input_h` and `input_c` [directions, batch,
    hidden] (`input_c` is read by LSTMs only, as TensorFlow's CudnnRNN
    takes it for every mode), as TensorFlow's `CudnnRNNV3`, with the
    weights as three tensors rather than cuDNN's opaque buffer: `w`
    [directions, gates * hidden, input_size], `r` [directions, gates *
    hidden, hidden] and `b` [directions, 2 * gates * hidden] (the input
    biases, then the recurrent ones), ONNX's layout. `rnn_mode` is
    `"rnn_tanh"`, `"rnn_relu"` (1 gate), `"gru"` (3) or `"lstm"` (4);
    `direction` `"forward"`, `"reverse"` or `"bidirectional"`. The gates
    lie in oneDNN's order: LSTM i, f, c, o (cuDNN's); GRU z (update), r
    (reset), h, as ONNX; `linear_before_reset` (GRU only) applies the
    reset gate after R's product and its bias, as cuDNN's GRU and ONNX's
    attribute of that name. The activations are the defaults (sigmoid
    and tanh; `rnn_relu` max(x, 0)), without clipping or peepholes.

    `output` is [seq, batch, directions * hidden] (the forward direction's
    hidden state, then the reverse one's), `output_h` and `output_c` the
    final states [directions, batch, hidden] (`output_c` zeros but for
    LSTMs). oneDNN's RNN primitives on the CPU (emulated GPUs run them
    too), cuDNN's RNN API on CUDA GPUs (f32), where a GRU needs
    `linear_before_reset` (cuDNN's only GRU): one without it has no GPU
    kernel and is placed on the CPU (CudaKernels.def).

    ```mlir
    %y, %h, %c = gplace.cudnn_rnn %x, %h0, %c0, %w, %r, %b rnn_mode = "lstm" direction = "forward" : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input,
                            Graph_FloatTensor:$input_h,
                            Graph_FloatTensor:$input_c, Graph_FloatTensor:$w,
                            Graph_FloatTensor:$r, Graph_FloatTensor:$b),
                       recurrentAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$output, Graph_FloatTensor:$output_h,
                      Graph_FloatTensor:$output_c);
  let assemblyFormat = "$input `,` $input_h `,` $input_c `,` $w `,` $r `,` $b "
      "`rnn_mode` `=` $rnn_mode `direction` `=` $direction "
      "(`linear_before_reset` $linear_before_reset^)? " # afterClause #
      " attr-dict `:` type($input) `,` type($input_h) `,` type($w) `,` "
      "type($r) `,` type($b) `->` type($output) `,` type($output_h) `,` "
      "type($output_c)";
  let extraClassDefinition = kernelDefinition # refineByVerifier;
}

def Graph_CudnnRNNBackpropOp : Graph_RecurrentOp<"cudnn_rnn_backprop",
    "CudnnRNNBackpropV3",
    [AllTypesMatch<["input", "input_backprop"]>,
     AllTypesMatch<["input_h", "input_c", "output_h_backprop",
                    "output_c_backprop", "input_h_backprop",
                    "input_c_backprop"]>,
     AllTypesMatch<["w", "w_backprop"]>, AllTypesMatch<["r", "r_backprop"]>,
     AllTypesMatch<["b", "b_backprop"]>]> {
  let summary = "gradient of cudnn_rnn (CudnnRNNBackpropV3)";
  let description = [{
    The gradients of a `gplace.cudnn_rnn` (same operands and attributes)
    with respect to its six operands, given the gradients of its three
    results. TensorFlow's CudnnRNNBackpropV3 also takes the forward's
    results and reserve space; this op runs the forward again instead
    (oneDNN's training forward, whose workspace the backward primitive
    reads), so that no opaque buffer crosses the graph.

    ```mlir
    %dx, %dh0, %dc0, %dw, %dr, %db = gplace.cudnn_rnn_backprop %x, %h0, %c0, %w, %r, %b, %dy, %dh, %dc rnn_mode = "lstm" direction = "forward" : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<5x2x4xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input,
                            Graph_FloatTensor:$input_h,
                            Graph_FloatTensor:$input_c, Graph_FloatTensor:$w,
                            Graph_FloatTensor:$r, Graph_FloatTensor:$b,
                            Graph_FloatTensor:$output_backprop,
                            Graph_FloatTensor:$output_h_backprop,
                            Graph_FloatTensor:$output_c_backprop),
                       recurrentAttrs, placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$input_backprop,
                      Graph_FloatTensor:$input_h_backprop,
                      Graph_FloatTensor:$input_c_backprop,
                      Graph_FloatTensor:$w_backprop,
                      Graph_FloatTensor:$r_backprop,
                      Graph_FloatTensor:$b_backprop);
  let assemblyFormat = "$input `,` $input_h `,` $input_c `,` $w `,` $r `,` $b "
      "`,` $output_backprop `,` $output_h_backprop `,` $output_c_backprop "
      "`rnn_mode` `=` $rnn_mode `direction` `=` $direction "
      "(`linear_before_reset` $linear_before_reset^)? " # afterClause #
      " attr-dict `:` type($input) `,` type($input_h) `,` type($w) `,` "
      "type($r) `,` type($b) `,` type($output_backprop)";
}

def Graph_DropoutOp : Graph_KernelOp<"dropout", "StatelessDropout",
    [Pure, Graph_SeededOpInterface,
     DeclareOpInterfaceMethods<InferTypeOpInterface>,
     DeclareOpInterfaceMethods<Graph_GradientOpInterface>], "dropout"> {
  let summary = "seeded dropout for training (tf.nn.experimental.stateless_dropout)";
  let description = [{
    `result = u >= rate ? x / (1 - rate) : 0` where `u` is
    `gplace.stateless_random_uniform %seed` of `x`'s shape and type: each
    element is kept with probability `1 - rate` and scaled so that the
    expected value is unchanged. The same `seed` gives the same mask on
    every device; its gradient is the dropout of the incoming gradient with
    the same `rate` and `seed`. `rate` is a scalar of `x`'s type in
    [0, 1) (a rate outside it is a run-time error); a training graph
    gives it a new seed each step (e.g. from a step counter), an
    evaluation graph leaves the op out.

    ```mlir
    %y = gplace.dropout %x, %rate, %seed : tensor<8x1024xf32>, tensor<f32>, tensor<2xi64>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input, Graph_FloatTensor:$rate,
                            StaticShapeTensorOf<[I32, I64]>:$seed),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input `,` $rate `,` $seed " # afterClause
      # " attr-dict `:` type($input) `,` type($rate) `,` type($seed)";
  let hasVerifier = 1;
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand;
}

//===----------------------------------------------------------------------===//
// Losses and metrics.
//===----------------------------------------------------------------------===//

def Graph_SparseSoftmaxCrossEntropyWithLogitsOp
    : Graph_KernelOp<"sparse_softmax_cross_entropy_with_logits",
                     "SparseSoftmaxCrossEntropyWithLogits",
                     [Pure, Graph_MixedPrecisionDeny, DeclareOpInterfaceMethods<InferTypeOpInterface>,
                      DeclareOpInterfaceMethods<Graph_GradientOpInterface>]> {
  let summary = "per-example softmax cross-entropy with integer labels "
                "(SparseSoftmaxCrossEntropyWithLogits)";
  let description = [{
    `features` are logits of shape [batch, classes], `labels` class indices
    of shape [batch] (i32 or i64). `loss[i] = logsumexp(features[i]) -
    features[i, labels[i]]`, computed stably (the row maximum is subtracted
    first); `backprop[i] = softmax(features[i]) - one_hot(labels[i])`, the
    gradient of `loss[i]` with respect to the logits. A label outside
    `[0, classes)` is a run-time error in TensorFlow's words. Mirrors
    `tf.nn.sparse_softmax_cross_entropy_with_logits`, whose loss is
    `loss`.

    ```mlir
    %loss, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %logits, %labels : tensor<4x10xf32>, tensor<4xi32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$features,
                            StaticShapeTensorOf<[I32, I64]>:$labels),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$loss, Graph_FloatTensor:$backprop);
  let assemblyFormat = "$features `,` $labels " # afterClause
      # " attr-dict `:` type($features) `,` type($labels)";
  let hasVerifier = 1;
}

def Graph_ArgMaxOp : Graph_KernelOp<"argmax", "ArgMax",
    [Pure, Graph_NotDifferentiable], "ArgMax", ["getKernelParameters"]> {
  let summary = "index of the largest value along an axis (ArgMax)";
  let description = [{
    Removes dimension `axis` (negative values count from the end); each
    result element is the index of the largest value along it, the first
    on ties (NaN counts as largest, as in TensorFlow). The result is `i64`
    (TensorFlow's default `output_type`) or `i32`.

    ```mlir
    %i = gplace.argmax %logits axis = 1 : tensor<4x10xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = !con((ins Graph_NumericTensor:$input, I64Attr:$axis),
                       placementAttrs, controlDepsArg);
  let results = (outs StaticShapeTensorOf<[I32, I64]>:$result);
  let assemblyFormat = "$input `axis` `=` $axis " # afterClause
      # " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_GatherOp : Graph_KernelOp<"gather", "GatherV2",
    [Pure, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>],
    "GatherV2", ["getKernelParameters"]> {
  let summary = "slices of params at the given indices along an axis "
                "(GatherV2)";
  let description = [{
    `result[p..., i..., q...] = params[p..., indices[i...], q...]`, where
    `axis` (negative values count from the end) is the dimension indexed:
    the result's shape is params' before `axis`, then indices', then
    params' after `axis` (TensorFlow's GatherV2 with `batch_dims = 0`, ONNX's
    Gather). An index outside `[0, params.shape[axis])` is an error on the
    CPU ("indices[1] = 7 is not in [0, 5)", TensorFlow's CPU kernel) and
    gives zeros on a GPU (TensorFlow's GPU kernel). Its gradient sums the
    incoming gradient's slices into the rows they were gathered from
    (`unsorted_segment_sum`, TensorFlow's _GatherV2Grad made dense); the
    indices have none.

    ```mlir
    %rows = gplace.gather %table[%ids] axis = 0 : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins Graph_Tensor:$params,
                            StaticShapeTensorOf<[I32, I64]>:$indices,
                            I64Attr:$axis),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$params `[` $indices `]` `axis` `=` $axis "
      # afterClause
      # " attr-dict `:` `(` type($params) `,` type($indices) `)` `->` "
      # "type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_UnsortedSegmentSumOp : Graph_KernelOp<"unsorted_segment_sum",
    "UnsortedSegmentSum", [Pure, DeclareOpInterfaceMethods<Graph_GradientOpInterface>],
    "UnsortedSegmentSum"> {
  let summary = "sums of slices by segment id (UnsortedSegmentSum)";
  let description = [{
    `result[s, q...] = sum of data[i..., q...] over the i... where
    segment_ids[i...] == s`; `segment_ids`' shape is a prefix of `data`'s,
    and the result's first dimension is the number of segments (zeros for
    a segment without ids). A negative id is dropped, as in TensorFlow; an
    id at or above the number of segments is an error on the CPU
    (TensorFlow's CPU kernel) and dropped on a GPU. The GPU sums each
    result element's slices in index order (deterministic, as TensorFlow's
    deterministic ops). Gather's gradient; its own is the gather of the
    result's gradient at each id (zero for a dropped negative id, as
    TensorFlow's _UnsortedSegmentSumGrad), so that ONNX's ScatterND,
    ScatterElements and MaxUnpool, imported through it, differentiate.

    ```mlir
    %sums = gplace.unsorted_segment_sum %rows, %ids : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
    ```
  }];
  let arguments = !con((ins Graph_NumericTensor:$data,
                            StaticShapeTensorOf<[I32, I64]>:$segment_ids),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat = "$data `,` $segment_ids " # afterClause
      # " attr-dict `:` `(` type($data) `,` type($segment_ids) `)` `->` "
      # "type($result)";
  let hasVerifier = 1;
}

// Comparisons and logical ops (TensorFlow's Equal, GreaterEqual, Greater,
// LogicalAnd, LogicalOr): two operands of one element type that broadcast
// numpy-style, and an i1 result of the broadcast shape. No gradient; their
// kernels are chosen by the operands' type (TensorFlow's "T"). Constant
// operands fold, and so do arith's identities (GraphFolds.cpp).
class Graph_ComparisonOp<string mnemonic, string tfType, string what,
                         Type operandType, string exampleType>
    : Graph_KernelOp<mnemonic, tfType,
                     [Pure, Graph_NotDifferentiable,
                      Graph_KernelTypeFromOperands, Graph_InferredResultType],
                     tfType> {
  let summary = what # ", with numpy broadcasting (" # tfType # ")";
  let description = [{
    The operands have one element type and broadcast numpy-style; the
    result is `i1` of the broadcast shape. A NaN compares false under
    every ordering (IEEE 754, as TensorFlow).

    ```mlir
    %r = gplace.}] # mnemonic # [{ %a, %b : (tensor<4x}] # exampleType
      # [{>, tensor<}] # exampleType # [{>) -> tensor<4xi1>
    ```
  }];
  let arguments = !con((ins operandType:$lhs, operandType:$rhs),
                       placementAttrs, controlDepsArg);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = "$lhs `,` $rhs " # afterClause
      # " attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = kernelDefinition # inferComparison
      # refineByVerifier # foldElementwise;
}

def Graph_EqualOp : Graph_ComparisonOp<"equal", "Equal", "elementwise ==",
                                       Graph_Tensor, "i64"> {
}
// GPU kernels for floating-point operands, as TensorFlow registers them.
def Graph_GreaterEqualOp : Graph_ComparisonOp<"greater_equal", "GreaterEqual",
    "elementwise >=", Graph_NumericTensor, "f32"> {
}
def Graph_GreaterOp : Graph_ComparisonOp<"greater", "Greater",
    "elementwise >", Graph_NumericTensor, "f32"> {
}
def Graph_LogicalAndOp : Graph_ComparisonOp<"logical_and", "LogicalAnd",
    "elementwise logical and", StaticShapeTensorOf<[I1]>, "i1"> {
}
def Graph_LogicalOrOp : Graph_ComparisonOp<"logical_or", "LogicalOr",
    "elementwise logical or", StaticShapeTensorOf<[I1]>, "i1"> {
}

// The result has the operand's type (InferTypeOpInterface rather than
// SameOperandsAndResultType, which would make the parser give the
// `after(...)` tokens the operand's tensor type too).
def Graph_LogicalNotOp : Graph_KernelOp<"logical_not", "LogicalNot",
    [Pure, Graph_NotDifferentiable,
     DeclareOpInterfaceMethods<InferTypeOpInterface>],
    "LogicalNot"> {
  let summary = "elementwise logical not (LogicalNot)";
  let description = [{
    ```mlir
    %n = gplace.logical_not %b : tensor<4xi1>
    %m = gplace.logical_not %b after(%ready) : tensor<4xi1>
    ```
  }];
  let arguments = !con((ins StaticShapeTensorOf<[I1]>:$input),
                       placementAttrs, controlDepsArg);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = "$input " # afterClause
      # " attr-dict `:` type($input)";
  // A constant operand folds, and so does a logical_not of a logical_not
  // (GraphFolds.cpp).
  let hasFolder = 1;
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand
      # foldElementwise;
}

// TensorFlow's IsInf and IsNan: an i1 of the operand's shape, kernels
// selected by the operand's floating-point type.
class Graph_FloatPredicateOp<string mnemonic, string tfType, string what>
    : Graph_KernelOp<mnemonic, tfType,
                     [Pure, Graph_NotDifferentiable,
                      Graph_KernelTypeFromOperands,
                      DeclareOpInterfaceMethods<InferTypeOpInterface>],
                     tfType> {
  let summary = what # " (" # tfType # ")";
  let description = [{
    The result is `i1` of the operand's shape.

    ```mlir
    %r = gplace.}] # mnemonic # [{ %x : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input), placementAttrs,
                       controlDepsArg);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = "$input " # afterClause
      # " attr-dict `:` type($input) `->` type($result)";
  // A constant operand folds (GraphFolds.cpp).
  let hasFolder = 1;
  let extraClassDefinition = kernelDefinition # foldElementwise # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location>,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr,
        ::mlir::OpaqueProperties, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      auto type = operands.empty() ? nullptr
          : ::llvm::dyn_cast<::mlir::RankedTensorType>(operands[0].getType());
      if (!type)
        return ::mlir::failure();
      inferredReturnTypes.push_back(::mlir::RankedTensorType::get(
          type.getShape(), ::mlir::IntegerType::get(context, 1)));
      return ::mlir::success();
    }
  }];
}

def Graph_IsInfOp : Graph_FloatPredicateOp<"is_inf", "IsInf",
    "elementwise test for an infinity of either sign">;
def Graph_IsNanOp : Graph_FloatPredicateOp<"is_nan", "IsNan",
    "elementwise test for NaN">;

def Graph_SelectOp : Graph_KernelOp<"select", "SelectV2",
    [Pure, Graph_InferredResultType, DeclareOpInterfaceMethods<Graph_GradientOpInterface>],
    "SelectV2"> {
  let summary = "elementwise choice, with numpy broadcasting (SelectV2)";
  let description = [{
    `result = condition ? then : else`, element by element, as
    TensorFlow's SelectV2 (`tf.where(condition, x, y)`) and ONNX's Where:
    the three operands broadcast numpy-style to the result's shape, and
    `then` and `else` have the result's element type. Only the chosen
    operand's value reaches the result: a NaN or an infinity in the other
    one does not. Its gradient goes to `then` where the condition holds and
    to `else` elsewhere; the condition has none.

    ```mlir
    %r = gplace.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = !con((ins StaticShapeTensorOf<[I1]>:$condition,
                            Graph_Tensor:$then_value,
                            Graph_Tensor:$else_value),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$condition `,` $then_value `,` $else_value "
      # afterClause # " attr-dict `:` `(` type($condition) `,` "
      # "type($then_value) `,` type($else_value) `)` `->` type($result)";
  let hasVerifier = 1;
  // A constant condition chooses an operand; constant operands fold
  // (GraphFolds.cpp).
  let hasFolder = 1;
}

def Graph_OneHotOp : Graph_KernelOp<"one_hot", "OneHot",
    [Pure, Graph_NotDifferentiable,
     AllTypesMatch<["on_value", "off_value"]>], "one_hot"> {
  let summary = "one-hot encoding along a new last dimension (OneHot)";
  let description = [{
    `result[..., j] = on_value` where `indices[...] == j`, else
    `off_value`; the result's last dimension is the depth. An index outside
    `[0, depth)` gives a row of `off_value`, as in TensorFlow.

    ```mlir
    %y = gplace.one_hot %labels, %on, %off : tensor<4xi32>, tensor<f32> -> tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins StaticShapeTensorOf<[I32, I64]>:$indices,
                            Graph_NumericTensor:$on_value,
                            Graph_NumericTensor:$off_value),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat = "$indices `,` $on_value `,` $off_value " # afterClause
      # " attr-dict `:` type($indices) `,` type($on_value) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stateless random numbers.
//===----------------------------------------------------------------------===//

class Graph_StatelessRandomOp<string mnemonic, string tfType, string what>
    : Graph_KernelOp<mnemonic, tfType,
                     [Pure, Graph_NotDifferentiable, Graph_SeededOpInterface]> {
  let summary = what # " for a seed (" # tfType # ")";
  let description = [{
    `seed` is a tensor of two integers (i32 or i64); the result's shape and
    type come from the result type. Philox4x32-10, counter-based, with
    TensorFlow's key scrambling and distributions: the same seed and shape
    give the same numbers on the CPU, on emulated GPUs and on CUDA GPUs
    (bit-identical uniform numbers; normal ones to the last bits of CUDA's
    sinf, cosf and logf).

    ```mlir
    %w = gplace.}] # mnemonic # [{ %seed : tensor<2xi64> -> tensor<784x256xf32>
    ```
  }];
  let arguments = !con((ins StaticShapeTensorOf<[I32, I64]>:$seed),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$seed " # afterClause
      # " attr-dict `:` type($seed) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_StatelessRandomUniformOp : Graph_StatelessRandomOp<
    "stateless_random_uniform", "StatelessRandomUniform",
    "uniform numbers in [0, 1)">;
def Graph_StatelessRandomNormalOp : Graph_StatelessRandomOp<
    "stateless_random_normal", "StatelessRandomNormal",
    "normal numbers (mean 0, standard deviation 1)">;
def Graph_StatelessTruncatedNormalOp : Graph_StatelessRandomOp<
    "stateless_truncated_normal", "StatelessTruncatedNormal",
    "normal numbers redrawn beyond two standard deviations">;

//===----------------------------------------------------------------------===//
// Optimizers: TensorFlow's ResourceApply* ops, one kernel per variable.
//===----------------------------------------------------------------------===//

defvar Graph_UpdatedVariable =
    Arg<Graph_AnyResource, "a variable the update reads and writes",
        [MemRead<Graph_VariableResource>, MemWrite<Graph_VariableResource>]>;

def Graph_ApplyGradientDescentOp : Graph_KernelOp<"apply_gradient_descent",
    "ResourceApplyGradientDescent", [Graph_MixedPrecisionDeny],
    "ResourceApplyGradientDescent"> {
  let summary = "var -= alpha * delta (ResourceApplyGradientDescent)";
  let description = [{
    `alpha` is a scalar of the variable's element type, `delta` has the
    variable's value type. Returns a token ready once the variable is
    updated.

    ```mlir
    %done = gplace.apply_gradient_descent %w, %lr, %grad : !gplace.resource<tensor<4xf32>>, tensor<f32>, tensor<4xf32>
    ```
  }];
  let arguments = !con((ins Graph_UpdatedVariable:$var,
                            Graph_FloatTensor:$alpha, Graph_FloatTensor:$delta),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Control:$done);
  let assemblyFormat = "$var `,` $alpha `,` $delta " # afterClause
      # " attr-dict `:` type($var) `,` type($alpha) `,` type($delta)";
  let hasVerifier = 1;
}

def Graph_ApplyMomentumOp : Graph_KernelOp<"apply_momentum",
    "ResourceApplyMomentum", [Graph_MixedPrecisionDeny],
    "ResourceApplyMomentum"> {
  let summary = "momentum update (ResourceApplyMomentum)";
  let description = [{
    `accum = accum * momentum + grad; var -= lr * accum`, or with
    `use_nesterov`, `var -= lr * grad + lr * momentum * accum` (with the
    new `accum`), as TensorFlow's kernel. `accum` is the optimizer's slot,
    a variable of the same type as `var`; `lr` and `momentum` are scalars.

    ```mlir
    %done = gplace.apply_momentum %w, %accum, %lr, %grad, %momentum use_nesterov : !gplace.resource<tensor<4xf32>>, !gplace.resource<tensor<4xf32>>, tensor<f32>, tensor<4xf32>, tensor<f32>
    ```
  }];
  let arguments = !con((ins Graph_UpdatedVariable:$var,
                            Graph_UpdatedVariable:$accum,
                            Graph_FloatTensor:$lr, Graph_FloatTensor:$grad,
                            Graph_FloatTensor:$momentum,
                            UnitAttr:$use_nesterov),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Control:$done);
  let assemblyFormat = "$var `,` $accum `,` $lr `,` $grad `,` $momentum "
      "(`use_nesterov` $use_nesterov^)? " # afterClause
      # " attr-dict `:` type($var) `,` type($accum) `,` type($lr) `,` "
      "type($grad) `,` type($momentum)";
  let hasVerifier = 1;
}

def Graph_ApplyAdamOp : Graph_KernelOp<"apply_adam", "ResourceApplyAdam",
                                       [Graph_MixedPrecisionDeny],
                                       "ResourceApplyAdam"> {
  let summary = "Adam update (ResourceApplyAdam)";
  let description = [{
    As TensorFlow's kernel: `lr_t = lr * sqrt(1 - beta2_power) / (1 -
    beta1_power)`, `m += (grad - m) * (1 - beta1)`, `v += (grad^2 - v) *
    (1 - beta2)`, `var -= lr_t * m / (sqrt(v) + epsilon)` (with
    `use_nesterov`, `m * beta1 + (1 - beta1) * grad` replaces `m` in the
    last step). `m` and `v` are the slots, variables of the variable's
    type; the others but `grad` are scalars. The caller keeps
    `beta1_power` and `beta2_power` (`beta^t` at step t), as TensorFlow's
    Adam optimizer does in two variables.

    ```mlir
    %done = gplace.apply_adam %w, %m, %v, %b1p, %b2p, %lr, %b1, %b2, %eps, %grad : !gplace.resource<tensor<4xf32>>, !gplace.resource<tensor<4xf32>>, !gplace.resource<tensor<4xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<4xf32>
    ```
  }];
  let arguments = !con((ins Graph_UpdatedVariable:$var,
                            Graph_UpdatedVariable:$m, Graph_UpdatedVariable:$v,
                            Graph_FloatTensor:$beta1_power,
                            Graph_FloatTensor:$beta2_power,
                            Graph_FloatTensor:$lr, Graph_FloatTensor:$beta1,
                            Graph_FloatTensor:$beta2,
                            Graph_FloatTensor:$epsilon,
                            Graph_FloatTensor:$grad, UnitAttr:$use_nesterov),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Control:$done);
  let assemblyFormat = "$var `,` $m `,` $v `,` $beta1_power `,` $beta2_power "
      "`,` $lr `,` $beta1 `,` $beta2 `,` $epsilon `,` $grad "
      "(`use_nesterov` $use_nesterov^)? " # afterClause
      # " attr-dict `:` type($var) `,` type($m) `,` type($v) `,` "
      "type($beta1_power) `,` type($beta2_power) `,` type($lr) `,` "
      "type($beta1) `,` type($beta2) `,` type($epsilon) `,` type($grad)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Differentiation.
//===----------------------------------------------------------------------===//

def Graph_GradientsOp : Op<Graph_Dialect, "gradients",
    [Pure, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "gradients of ys with respect to xs (tf.gradients)";
  let description = [{
    The gradients of `sum(ys)` (of `sum(ys * grad_ys)` when `grad_ys` are
    given, one per y) with respect to each of `xs`, one result per x of its
    type. `--gplace-differentiate` replaces the op with the backward graph
    (reverse-mode differentiation through each op's GradientOpInterface)
    before placement; an x that no y depends on gets zeros, as
    `tf.gradients(..., unconnected_gradients='zero')`.

    ```mlir
    %gw, %gb = gplace.gradients %loss wrt %w, %b : tensor<f32> wrt tensor<784x10xf32>, tensor<10xf32>
    %g = gplace.gradients %y wrt %x grad_ys %dy : tensor<3xf32> wrt tensor<3xf32> grad_ys tensor<3xf32>
    ```
  }];
  let arguments = (ins Variadic<Graph_FloatTensor>:$ys,
                       Variadic<Graph_FloatTensor>:$xs,
                       Variadic<Graph_FloatTensor>:$grad_ys);
  let results = (outs Variadic<Graph_FloatTensor>:$gradients);
  let assemblyFormat = "$ys `wrt` $xs (`grad_ys` $grad_ys^)? attr-dict `:` "
      "type($ys) `wrt` type($xs) (`grad_ys` type($grad_ys)^)?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives.
//===----------------------------------------------------------------------===//

def Graph_AllReduceOp : Op<Graph_Dialect, "all_reduce",
    [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "combines one tensor per replica into each replica (all-reduce)";
  let description = [{
    Operand `i` is replica `i`'s tensor, on `devices[i]`; result `i` is
    the sum (`reduction = "sum"`) or mean (`"mean"`) of all of them, on
    `devices[i]` too: NCCL's ncclAllReduce, TensorFlow's CollectiveReduce
    and MirroredStrategy's cross-device ops. `--gplace-replicate
    variables=mirrored` makes one per gradient; `--gplace-lower-all-reduce`
    expands it, before placement, into a ring of slices, adds and copies
    pinned to the devices (reduce-scatter, then all-gather), so every
    replica ends with the same bits.

    ```mlir
    %a, %b = gplace.all_reduce %g0, %g1 reduction = "mean" devices = ["/device:GPU:0", "/device:GPU:1"] : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Graph_FloatTensor>:$inputs,
                       StrAttr:$reduction, StrArrayAttr:$devices);
  let results = (outs Variadic<Graph_FloatTensor>:$outputs);
  let assemblyFormat = "$inputs `reduction` `=` $reduction `devices` `=` "
      "$devices attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Graph_CollectiveReduceOp : Graph_KernelOp<"collective_reduce",
    "CollectiveReduceV2", [Graph_NotDifferentiable,
     DeclareOpInterfaceMethods<InferTypeOpInterface>], "CollectiveReduceV2"> {
  let summary = "one member's part of an all-reduce (CollectiveReduceV2)";
  let description = [{
    Member `member` of a group of `group_size` ops, one per device, that
    all-reduce one tensor each: TensorFlow's CollectiveReduceV2 (merge_op
    Add; final_op Div with `mean`, Id without), and NCCL's ncclAllReduce
    from one rank. The members of one all-reduce share `instance_key`;
    those of one group of devices share `group_key`. Each member returns
    the sum (or mean) of every member's input, the same bits on every
    member: inputs are added in member order. `ranks` is, per member, the
    MPI rank of its task (empty: every member is in this process), set by
    `--gplace-partition-tasks`. `--gplace-lower-all-reduce` makes the
    members of a `gplace.all_reduce`; the runtime runs them together
    (docs/runtime.md, "Collectives"), so they are never dropped (the
    Collective resource) and a member waits for all the others.

    ```mlir
    %s = gplace.collective_reduce %g {group_key = 0, group_size = 2, instance_key = 0, member = 1, ranks = array<i64>, mean, device = "/device:GPU:1"} : tensor<4xf32>
    ```
  }];
  let arguments = !con((ins Arg<Graph_FloatTensor, "this member's tensor",
                                [MemRead<Graph_CollectiveResource>,
                                 MemWrite<Graph_CollectiveResource>]>:$input,
                            I64Attr:$group_key, I64Attr:$group_size,
                            I64Attr:$instance_key, I64Attr:$member,
                            DenseI64ArrayAttr:$ranks, UnitAttr:$mean),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input " # afterClause # " attr-dict `:` type($input)";
  let extraClassDefinition = kernelDefinition # inferFromFirstOperand;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Transfers between tasks (processes).
//===----------------------------------------------------------------------===//

def Graph_SendOp : Graph_KernelOp<"send", "_Send",
    [Graph_NotDifferentiable], "_Send"> {
  let summary = "sends a tensor to another task (TensorFlow's _Send)";
  let description = [{
    Made by `--gplace-partition-tasks` from a copy whose destination is on
    another task: sends the tensor from host memory of this task to the
    task whose process has rank `peer`, where the `gplace.recv` with the
    same `tag` receives it. Transfers are matched by tag (one per edge),
    not by order, so independent transfers cannot deadlock; the send
    returns once the tensor is on its way (its memory may be reused).
    Returns a token ready then. Runs on a CPU.

    ```mlir
    %done = gplace.send %x {peer = 1, tag = 3} : tensor<2x2xf32>
    ```
  }];
  let arguments = !con((ins Arg<Graph_Tensor, "the tensor sent",
                                [MemRead<Graph_ChannelResource>,
                                 MemWrite<Graph_ChannelResource>]>:$input,
                            I64Attr:$peer, I64Attr:$tag),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Control:$done);
  let assemblyFormat = "$input " # afterClause # " attr-dict `:` type($input)";
}

def Graph_RecvOp : Graph_KernelOp<"recv", "_Recv",
    [Graph_NotDifferentiable], "_Recv"> {
  let summary = "receives a tensor from another task (TensorFlow's _Recv)";
  let description = [{
    The other end of a `gplace.send` with the same `tag` on the task whose
    process has rank `peer`: its result is that tensor, in host memory of
    this task. A transfer that does not arrive within the runtime's
    transfer timeout is an error naming the op, the peer task and the
    tag. Runs on a CPU.

    ```mlir
    %x = gplace.recv {peer = 0, tag = 3} : tensor<2x2xf32>
    ```
  }];
  let arguments = !con((ins I64Attr:$peer, I64Attr:$tag), placementAttrs,
                       controlDepsArg);
  let results = (outs Res<Graph_Tensor, "the tensor received",
                          [MemRead<Graph_ChannelResource>,
                           MemWrite<Graph_ChannelResource>]>:$output);
  let assemblyFormat = afterClause # " attr-dict `:` type($output)";
}

//===----------------------------------------------------------------------===//
// Control.
//===----------------------------------------------------------------------===//

def Graph_GroupOp : Graph_Op<"group", "NoOp",
    [Pure, Graph_ControlOnly, AttrSizedOperandSegments]> {
  // TensorFlow's NoOp is registered for every device type.
  let typelessKernel = 1;
  let summary = "a token ready when all operands are (tf.group)";
  let description = [{
    Takes one or more values and tokens (as operands or in `after(...)`)
    and returns a token that is ready once all of them are: TensorFlow's `tf.group`, a `NoOp` with control inputs. Pass
    the token to `after(...)`, as `tf.control_dependencies` does.

    ```mlir
    %t = gplace.group %a, %b : tensor<f32>, tensor<f32>
    %x = gplace.constant dense<3.0> : tensor<f32> after(%t)
    ```
  }];
  let arguments = !con((ins Variadic<AnyTypeOf<[Graph_Tensor, Graph_AnyResource,
                                                Graph_Control]>>:$inputs),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Control:$done);
  let assemblyFormat = "$inputs " # afterClause
      # " attr-dict (`:` type($inputs)^)?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Cross-device transfers.
//===----------------------------------------------------------------------===//

def Graph_CopyOp : Graph_Op<"copy", "_Recv",
    [Pure, Graph_TransferOpInterface,
     DeclareOpInterfaceMethods<InferTypeOpInterface>], "Copy"> {
  // A copy runs wherever its destination is.
  let typelessKernel = 1;
  let summary = "moves a value or a token from one device to another";
  let description = [{
    Inserted by `--gplace-insert-copies` on every data edge whose producer
    and consumer are on different devices (TensorFlow's _Send/_Recv pair),
    and by `--gplace-insert-control-deps` on every `after(...)` edge that
    crosses devices. On a tensor it copies the data from `source` to
    `destination`; on a token it is cross-device synchronisation: ops after
    the copied token wait for the source token. Both attributes are full
    device names; the op's `assigned_device` is `destination`.

    ```mlir
    %c = gplace.copy %x {source = "/job:localhost/replica:0/task:0/device:CPU:0", destination = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins AnyTypeOf<[Graph_Tensor, Graph_Control]>:$input,
                            StrAttr:$source, StrAttr:$destination),
                       placementAttrs, controlDepsArg);
  let results = (outs AnyTypeOf<[Graph_Tensor, Graph_Control]>:$result);
  let assemblyFormat = "$input " # afterClause # " attr-dict `:` type($input)";
  let extraClassDefinition = inferFromFirstOperand;
}

//===----------------------------------------------------------------------===//
// Run-time control flow.
//===----------------------------------------------------------------------===//

include "graph/GraphControlFlowOps.td"

#endif // GPLACE_GRAPH_OPS
