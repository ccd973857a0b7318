//===- GraphCompositeOps.td - ops decomposed before placement -------------===//
//
// The composite graph ops (Graph_Composite): ops without kernels of their
// own, which --gplace-decompose and the ONNX importer rewrite into the ops
// that compute them (lib/Dialect/Graph/Decompositions.cpp). Their shape
// rules and verifiers are in lib/Dialect/Graph/CompositeOps.cpp. Included
// by GraphOps.td, whose Graph_Op they derive from.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_GRAPH_COMPOSITE_OPS
#define GPLACE_GRAPH_COMPOSITE_OPS

// A composite of one floating-point input and a result of its type.
class Graph_CompositeOp<string mnemonic, string tfType, string what,
                        dag extraArgs = (ins)>
    : Graph_Op<mnemonic, tfType,
               [Pure, Graph_Composite,
                DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = what # " (" # tfType # "), decomposed before placement";
  let arguments = !con((ins Graph_FloatTensor:$input), extraArgs,
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat =
      "$input " # afterClause # " attr-dict `:` type($input)";
  let extraClassDefinition = inferFromFirstOperand;
}

def Graph_EluOp : Graph_CompositeOp<"elu", "Elu",
    "x where x > 0, else alpha * (e^x - 1)",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)> {
  let description = [{
    TensorFlow's Elu (`alpha` 1), Keras's and ONNX's with their `alpha`:
    becomes `relu(x) + alpha * (exp(-relu(-x)) - 1)`, each op named
    `<name>/...` and the last `<name>`.

    ```mlir
    %y = gplace.elu %x {alpha = 0.5 : f32} : tensor<2x3xf32>
    ```
  }];
}

def Graph_SeluOp : Graph_CompositeOp<"selu", "Selu",
    "scale * elu(x, alpha) with SELU's constants",
    (ins DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
         DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma)> {
  let description = [{
    TensorFlow's Selu: `gamma * elu(x, alpha)` with alpha 1.6732632 and
    gamma (TensorFlow's scale) 1.0507010 by default (ONNX's Selu sets
    both).

    ```mlir
    %y = gplace.selu %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_HardSigmoidOp : Graph_CompositeOp<"hard_sigmoid", "HardSigmoid",
    "min(max(alpha * x + beta, 0), 1)",
    (ins DefaultValuedAttr<F32Attr, "0.2">:$alpha,
         DefaultValuedAttr<F32Attr, "0.5">:$beta)> {
  let description = [{
    Keras's `hard_sigmoid` and ONNX's HardSigmoid (`alpha` 0.2 and `beta`
    0.5 by default, ONNX's): becomes `mul`, `add`, `maximum` with 0 and a
    minimum with 1 spelled `-maximum(-a, -1)` (there is no minimum op).

    ```mlir
    %y = gplace.hard_sigmoid %x {alpha = 0.25 : f32} : tensor<2x3xf32>
    ```
  }];
}

def Graph_CeluOp : Graph_CompositeOp<"celu", "Celu",
    "max(0, x) + min(0, alpha * (e^(x / alpha) - 1))",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)> {
  let description = [{
    ONNX's Celu (`alpha` 1 by default; not 0): becomes `relu(x) + alpha *
    (exp(-relu(-x) / alpha) - 1)`, `elu`'s parts with the negative part
    divided by `alpha`.

    ```mlir
    %y = gplace.celu %x {alpha = 2.0 : f32} : tensor<2x3xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Graph_HardSwishOp : Graph_CompositeOp<"hard_swish", "HardSwish",
    "x * min(max(x / 6 + 0.5, 0), 1)"> {
  let description = [{
    ONNX's HardSwish (`x * relu6(x + 3) / 6`, MobileNetV3's h-swish):
    becomes `x * hard_sigmoid(x)` with alpha 1/6 and beta 0.5, in
    `mul`, `add`, `maximum` and `neg`.

    ```mlir
    %y = gplace.hard_swish %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_ThresholdedReluOp : Graph_CompositeOp<"thresholded_relu",
    "ThresholdedRelu", "x where x > alpha, else 0",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)> {
  let description = [{
    ONNX's ThresholdedRelu (`alpha` 1 by default): becomes
    `select(greater(x, alpha), x, 0)`.

    ```mlir
    %y = gplace.thresholded_relu %x {alpha = 2.0 : f32} : tensor<2x3xf32>
    ```
  }];
}

def Graph_ShrinkOp : Graph_CompositeOp<"shrink", "Shrink",
    "x + bias where x < -lambd, x - bias where x > lambd, else 0",
    (ins DefaultValuedAttr<F32Attr, "0.0">:$bias,
         DefaultValuedAttr<F32Attr, "0.5">:$lambd)> {
  let description = [{
    ONNX's Shrink (hard shrink with `bias` 0, soft shrink with `bias` =
    `lambd`): becomes two `select`s on `greater(-lambd, x)` and
    `greater(x, lambd)`.

    ```mlir
    %y = gplace.shrink %x {bias = 1.5 : f32, lambd = 1.5 : f32} : tensor<5xf32>
    ```
  }];
}

def Graph_LogSoftmaxOp : Graph_CompositeOp<"log_softmax", "LogSoftmax",
    "log of the softmax over the last dimension"> {
  let description = [{
    TensorFlow's LogSoftmax: `x - max - log(sum(exp(x - max)))` over the
    last dimension (max and sum with kept dimensions), stable for large
    logits.

    ```mlir
    %y = gplace.log_softmax %logits : tensor<4x10xf32>
    ```
  }];
  let hasVerifier = 1;
}

// Softmax and LogSoftmax as ONNX defined them before opset 13: over the
// input coerced to 2-D at `axis`.
class Graph_CoercedSoftmaxOp<string mnemonic, string tfType, string what>
    : Graph_CompositeOp<mnemonic, tfType, what,
                        (ins DefaultValuedAttr<I64Attr, "1">:$axis)> {
  let description = [{
    The input coerced to 2-D at `axis` (negative counts from the end):
    dimensions before `axis` become the rows, `axis` and those after it the
    columns of one row, as ONNX's Softmax and LogSoftmax before opset 13
    define it (opset 13 takes one axis). Becomes a `reshape` to
    `[rows, columns]`, the op over the last dimension and a `reshape` back;
    a rank-2 input at axis 1 is not reshaped.

    ```mlir
    %y = gplace.}] # mnemonic # [{ %x {axis = 1 : i64} : tensor<2x3x4xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Graph_Softmax2DOp : Graph_CoercedSoftmaxOp<"softmax_2d", "Softmax",
    "softmax of the input coerced to 2-D at `axis`">;
def Graph_LogSoftmax2DOp : Graph_CoercedSoftmaxOp<"log_softmax_2d",
    "LogSoftmax", "log_softmax of the input coerced to 2-D at `axis`">;

def Graph_GemmOp : Graph_Op<"gemm", "Gemm",
    [Pure, Graph_Composite, AttrSizedOperandSegments,
     Graph_InferredResultType]> {
  let summary = "alpha * op(a) op(b) + beta * c (Gemm), decomposed before "
                "placement";
  let description = [{
    ONNX's and BLAS's Gemm: `op` transposes its operand when `transpose_a`
    (for `a`) or `transpose_b` (for `b`) is set, as `gplace.matmul`'s
    flags; `c` (optional) broadcasts numpy-style to the product's
    `[M, N]`. Becomes a `matmul`, a `mul` by `alpha` and one of `c` by
    `beta` where they are not 1, and an `add` of `c`.

    ```mlir
    %y = gplace.gemm %a, %b, %c transpose_b {alpha = 0.5 : f32} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = !con((ins Graph_NumericTensor:$a, Graph_NumericTensor:$b,
                            Optional<Graph_NumericTensor>:$c,
                            DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                            DefaultValuedAttr<F32Attr, "1.0">:$beta,
                            UnitAttr:$transpose_a, UnitAttr:$transpose_b),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat = "$a `,` $b (`,` $c^)? (`transpose_a` $transpose_a^)? "
      "(`transpose_b` $transpose_b^)? " # afterClause
      # " attr-dict `:` `(` type($a) `,` type($b) (`,` type($c)^)? `)` `->` "
      "type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = refineByVerifier;
}

def Graph_LayerNormOp : Graph_Op<"layer_norm", "LayerNorm",
    [Pure, Graph_Composite, AttrSizedOperandSegments,
     Graph_InferredResultType]> {
  let summary = "layer normalization over the dimensions from `axis` on "
                "(LayerNorm), decomposed before placement";
  let description = [{
    `(x - mean) / sqrt(variance + epsilon) * scale + bias`, the mean and
    (biased) variance over the dimensions from `axis` on (negative counts
    from the end), as Keras's LayerNormalization and ONNX's
    LayerNormalization. `scale` and `bias` are optional and broadcast
    numpy-style to the input's shape. The other results are the mean and
    `1 / sqrt(variance + epsilon)`, with the normalized dimensions kept as
    1 (ONNX's Mean and InvStdDev outputs). f16 and bf16 inputs are
    normalized in f32 (the mean and inverse are f32), and the normalized
    value is cast back before `scale` and `bias` apply. Becomes
    `reduce_mean`, `sub`, `square`, `add`, `sqrt`, `div`, `mul` (and
    `cast`).

    ```mlir
    %y, %mean, %inv_std_dev = gplace.layer_norm %x scale(%s : tensor<4xf32>) bias(%b : tensor<4xf32>) {axis = -1 : i64} : tensor<2x3x4xf32>
    ```
  }];
  let arguments = !con((ins Graph_FloatTensor:$input,
                            Optional<Graph_FloatTensor>:$scale,
                            Optional<Graph_FloatTensor>:$bias,
                            DefaultValuedAttr<I64Attr, "-1">:$axis,
                            DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon),
                       placementAttrs, controlDepsArg);
  let results = (outs Graph_FloatTensor:$result, Graph_FloatTensor:$mean,
                      Graph_FloatTensor:$inv_std_dev);
  let assemblyFormat = "$input (`scale` `(` $scale^ `:` type($scale) `)`)? "
      "(`bias` `(` $bias^ `:` type($bias) `)`)? " # afterClause
      # " attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = refineByVerifier;
}

#endif // GPLACE_GRAPH_COMPOSITE_OPS
