//===- GraphTypes.td - gplace graph dialect types -------------------------===//

#ifndef GPLACE_GRAPH_TYPES
#define GPLACE_GRAPH_TYPES

include "graph/GraphBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Graph_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Graph_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Graph_ControlType : Graph_Type<"Control", "control"> {
  let summary = "control token";
  let description = [{
    A value with no data that is ready when the op producing it has run
    (TensorFlow's control edges, `tf.group`, a `NoOp` with control inputs).
    Ops consume tokens through `after(...)`.

    ```mlir
    %t = gplace.group %a, %b : tensor<f32>, tensor<f32>
    %x = gplace.constant dense<3.0> : tensor<f32> after(%t)
    ```
  }];
}

def Graph_ResourceType : Graph_Type<"Resource", "resource"> {
  let summary = "handle to a mutable variable (a TensorFlow resource)";
  let description = [{
    The handle returned by `gplace.variable`; `gplace.read`, `gplace.assign`,
    `gplace.assign_add` and `gplace.assign_sub` use it. The parameter is the
    type of the value the variable holds, a statically shaped tensor.

    ```mlir
    %v = gplace.variable dense<3.0> : tensor<f32> {name = "a"}
    // %v : !gplace.resource<tensor<f32>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$valueType);
  let assemblyFormat = "`<` $valueType `>`";
  let genVerifyDecl = 1;
}

// Resource operands are typed as plain mlir::Type so that assembly formats
// print them in full (`!gplace.resource<...>`) rather than stripped.
def Graph_AnyResource : Type<CPred<"::llvm::isa<::gplace::graph::ResourceType>($_self)">,
                             "resource">;
def Graph_Control : Type<CPred<"::llvm::isa<::gplace::graph::ControlType>($_self)">,
                         "control token", "::gplace::graph::ControlType"> {
  let builderCall = "$_builder.getType<::gplace::graph::ControlType>()";
}

#endif // GPLACE_GRAPH_TYPES
