//===- GraphOps.td - gplace graph dialect ops -----------------------------===//
//
// One op per TensorFlow op the graph supports; TensorFlow's op type is the
// second template argument of Graph_Op.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_GRAPH_OPS
#define GPLACE_GRAPH_OPS

include "graph/GraphBase.td"
include "graph/GraphTypes.td"
include "graph/GraphInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Ops that forward their input's data unchanged (identity, reshape).
// Placement puts such an op on its producer's device when nothing else says
// where it goes (TensorFlow placer's heuristic B for identity-like ops).
def Graph_ForwardsInput : NativeOpTrait<"ForwardsInput"> {
  let cppNamespace = "::gplace::graph::OpTrait";
}

//===----------------------------------------------------------------------===//
// Base class.
//===----------------------------------------------------------------------===//

// Every graph op carries the placement attributes and `after(...)` tokens.
// `tfType` is TensorFlow's op type; `pyName` the default name TensorFlow's
// Python API gives the op (see PlacedOpInterface::getDefaultNamePrefix).
class Graph_Op<string mnemonic, string tfType, list<Trait> traits = [],
               string pyName = tfType>
    : Op<Graph_Dialect, mnemonic,
         !listconcat([Graph_PlacedOpInterface], traits)> {
  code tfNames = "static ::llvm::StringRef getTensorFlowType() { return \""
      # tfType # "\"; }\n"
      # "static ::llvm::StringRef getDefaultNamePrefix() { return \""
      # pyName # "\"; }\n";
  let extraClassDeclaration = tfNames;

  // The placement attributes, appended to each op's own arguments.
  dag placementAttrs = (ins OptionalAttr<StrAttr>:$device,
                            OptionalAttr<StrAttr>:$name,
                            OptionalAttr<StrAttr>:$assigned_device);
  dag controlDepsArg = (ins Variadic<Graph_Control>:$controlDeps);
  // The `after(...)` clause of every assembly format.
  string afterClause = "(`after` `(` $controlDeps^ `)`)?";
}

//===----------------------------------------------------------------------===//
// Constants and state.
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant", "Const",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "constant tensor (Const)";
  let description = [{
    Produces the tensor held by `value`, a dense elements attribute whose
    type is the result type.

    ```mlir
    %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/device:GPU:2", name = "a"}
    ```
  }];
  let arguments = !con((ins Graph_ElementsAttr:$value), placementAttrs,
                       controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$value " # afterClause # " attr-dict";
}

def Graph_VariableOp : Graph_Op<"variable", "VarHandleOp",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>], "Variable"> {
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
  let results = (outs Graph_AnyResource:$resource);
  let assemblyFormat = "$initial_value " # afterClause # " attr-dict";
}

def Graph_ReadOp : Graph_Op<"read", "ReadVariableOp",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "reads a variable's value (ReadVariableOp)";
  let description = [{
    ```mlir
    %x = gplace.read %v : !gplace.resource<tensor<f32>>
    ```
  }];
  let arguments = !con((ins Graph_AnyResource:$resource), placementAttrs,
                       controlDepsArg);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat =
      "$resource " # afterClause # " attr-dict `:` type($resource)";
}

class Graph_AssignBaseOp<string mnemonic, string tfType, string what>
    : Graph_Op<mnemonic, tfType> {
  let summary = what # " (" # tfType # ")";
  let arguments = !con((ins Graph_AnyResource:$resource, Graph_Tensor:$value),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_Control:$done);
  let assemblyFormat = "$resource `,` $value " # afterClause
      # " attr-dict `:` custom<ResourceAndValueType>(type($resource), type($value))";
  let hasVerifier = 1;
}

def Graph_AssignOp : Graph_AssignBaseOp<"assign", "AssignVariableOp",
                                        "stores a value into a variable"> {
  let description = [{
    Stores `value` into the variable and returns a token that is ready once
    the store has happened. The value's type is the resource's value type.

    ```mlir
    %done = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
    ```
  }];
}

def Graph_AssignAddOp : Graph_AssignBaseOp<"assign_add", "AssignAddVariableOp",
                                           "adds a value to a variable"> {
  let description = [{
    ```mlir
    %done = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
    ```
  }];
}

def Graph_AssignSubOp : Graph_AssignBaseOp<"assign_sub", "AssignSubVariableOp",
                                           "subtracts a value from a variable"> {
  let description = [{
    ```mlir
    %done = gplace.assign_sub %v, %x : !gplace.resource<tensor<f32>>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Matrix product.
//===----------------------------------------------------------------------===//

def Graph_MatmulOp : Graph_Op<"matmul", "MatMul"> {
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
  let assemblyFormat = "$lhs `,` $rhs (`transpose_a` $transpose_a^)? "
      "(`transpose_b` $transpose_b^)? " # afterClause
      # " attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops.
//===----------------------------------------------------------------------===//

class Graph_BinaryOp<string mnemonic, string tfType, string pyName,
                     string what, Type operandType = Graph_NumericTensor>
    : Graph_Op<mnemonic, tfType, [Graph_ElementwiseOpInterface], pyName> {
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
  let extraClassDeclaration = tfNames # [{
    static unsigned getArity() { return 2; }
  }];
}

def Graph_AddOp : Graph_BinaryOp<"add", "AddV2", "add", "elementwise sum">;
def Graph_SubOp : Graph_BinaryOp<"sub", "Sub", "sub", "elementwise difference">;
def Graph_MulOp : Graph_BinaryOp<"mul", "Mul", "mul", "elementwise product">;
def Graph_DivOp : Graph_BinaryOp<"div", "RealDiv", "truediv",
                                 "elementwise quotient">;
def Graph_MaximumOp : Graph_BinaryOp<"maximum", "Maximum", "Maximum",
                                     "elementwise maximum">;

class Graph_UnaryOp<string mnemonic, string tfType, string what,
                    Type operandType = Graph_FloatTensor>
    : Graph_Op<mnemonic, tfType, [Graph_ElementwiseOpInterface,
        DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
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
  let extraClassDeclaration = tfNames # [{
    static unsigned getArity() { return 1; }
  }];
}

def Graph_NegOp : Graph_UnaryOp<"neg", "Neg", "elementwise negation",
                                Graph_NumericTensor>;
def Graph_ExpOp : Graph_UnaryOp<"exp", "Exp", "elementwise e^x">;
def Graph_LogOp : Graph_UnaryOp<"log", "Log", "elementwise natural logarithm">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "Tanh", "elementwise tanh">;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "Sigmoid",
                                    "elementwise 1 / (1 + e^-x)">;
def Graph_ReluOp : Graph_UnaryOp<"relu", "Relu", "elementwise max(x, 0)",
                                 Graph_NumericTensor>;

def Graph_AddNOp : Graph_Op<"add_n", "AddN",
    [AttrSizedOperandSegments, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
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

def Graph_BiasAddOp : Graph_Op<"bias_add", "BiasAdd",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
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
}

class Graph_ReduceOp<string mnemonic, string tfType, string what,
                     Type operandType = Graph_NumericTensor>
    : Graph_Op<mnemonic, tfType> {
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

def Graph_SoftmaxOp : Graph_Op<"softmax", "Softmax",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
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
}

//===----------------------------------------------------------------------===//
// Type and shape ops.
//===----------------------------------------------------------------------===//

def Graph_CastOp : Graph_Op<"cast", "Cast"> {
  let summary = "converts each element to another element type (Cast)";
  let description = [{
    The shapes of operand and result are equal. Conversions follow C++:
    float to integer truncates toward zero, any nonzero value casts to
    `true`.

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
}

def Graph_TransposeOp : Graph_Op<"transpose", "Transpose", [], "transpose"> {
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
}

def Graph_ReshapeOp : Graph_Op<"reshape", "Reshape", [Graph_ForwardsInput]> {
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
}

def Graph_SliceOp : Graph_Op<"slice", "Slice"> {
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
}

def Graph_ConcatOp : Graph_Op<"concat", "ConcatV2",
    [AttrSizedOperandSegments], "concat"> {
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
}

def Graph_IdentityOp : Graph_Op<"identity", "Identity",
    [Graph_ForwardsInput, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
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
}

//===----------------------------------------------------------------------===//
// Control.
//===----------------------------------------------------------------------===//

def Graph_GroupOp : Graph_Op<"group", "NoOp", [AttrSizedOperandSegments]> {
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
    [DeclareOpInterfaceMethods<InferTypeOpInterface>], "Copy"> {
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
}

#endif // GPLACE_GRAPH_OPS
