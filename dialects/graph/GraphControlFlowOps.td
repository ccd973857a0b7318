//===- GraphControlFlowOps.td - run-time control flow ---------------------===//
//
// TensorFlow's functional If and While as graph ops with regions (as
// TensorFlow's MLIR IfRegion and WhileRegion, and MLIR's scf.if and
// scf.while): the condition is a value of the run, read on the host. Each
// region is a function of its block arguments (isolated from above: what
// it reads it takes as an operand, as TensorFlow's If passes `input` to
// its branches), so --gplace-outline-control-flow makes each region a
// function of its own, placed, lowered and memory-planned as any function,
// and the op then names those functions (TensorFlow's If with
// `then_branch`, `else_branch`; While with `cond`, `body`). Lowering makes
// the op a `gplan.launch` of the `if` or `while` kernel on the host CPU,
// which the executor runs by running the sub-programs
// (docs/runtime.md#control-flow). Verifiers and the shape rule live in
// lib/Dialect/Graph/ControlFlowOps.cpp. Included by GraphOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_GRAPH_CONTROL_FLOW_OPS
#define GPLACE_GRAPH_CONTROL_FLOW_OPS

def Graph_IfOp : Graph_KernelOp<"if", "If",
    [RecursiveMemoryEffects, IsolatedFromAbove, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     Graph_KernelTypeFromOperands,
     DeclareOpInterfaceMethods<Graph_GradientOpInterface>], "cond"> {
  let summary = "runs one of two regions, as a run-time condition says (If)";
  let description = [{
    TensorFlow's If (StatelessIf): runs the `then` region if the scalar
    `cond` is true, else the `else` region, each on `inputs` (the regions'
    block arguments, of the inputs' types), and returns what the region
    that ran yields. Both regions yield values of the result types (the
    shape rule: the results are the `then` region's yield). The regions
    read nothing from outside but their arguments.

    ```mlir
    %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
    ^bb0(%a: tensor<2xf32>):
      %n = gplace.neg %a : tensor<2xf32>
      gplace.yield %n : tensor<2xf32>
    } else {
    ^bb0(%a: tensor<2xf32>):
      gplace.yield %a : tensor<2xf32>
    }
    ```

    After --gplace-outline-control-flow the regions are empty and
    `then_branch` and `else_branch` name private functions of the module
    that take the inputs and return the results (checked: a function of
    that type, which does not reach the function holding the op again
    through control flow, as TensorFlow's functional If does not recurse).
  }];
  let arguments = !con((ins 0DTensorOf<[I1]>:$cond,
                            Variadic<Graph_Tensor>:$inputs,
                            OptionalAttr<FlatSymbolRefAttr>:$then_branch,
                            OptionalAttr<FlatSymbolRefAttr>:$else_branch),
                       placementAttrs, controlDepsArg);
  let results = (outs Variadic<Graph_Tensor>:$results);
  let regions = (region AnyRegion:$then_region, AnyRegion:$else_region);
  let assemblyFormat = "$cond (`(` $inputs^ `)`)? " # afterClause
      # " `:` type($cond) (`,` type($inputs)^)? (`->` type($results)^)?"
      # " (`then` $then_region^ `else` $else_region)? attr-dict";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [
    // An If with empty regions, of `resultTypes`: the caller fills each
    // region with one block of the inputs' types ending in a gplace.yield.
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$cond,
                   "::mlir::ValueRange":$inputs)>,
  ];
  let extraClassDeclaration = tfNames # [{
    /// The shape rule: the types the `then` region yields (those of the
    /// regions' gplace.yield), or failure where a region is empty or does
    /// not end in a yield.
    static ::mlir::FailureOr<::llvm::SmallVector<::mlir::Type>>
    inferResultTypes(::mlir::Region &thenRegion);
    /// True once --gplace-outline-control-flow moved the regions into
    /// functions (then_branch and else_branch set, regions empty).
    bool isOutlined() { return getThenBranchAttr() != nullptr; }
  }];
}

def Graph_WhileOp : Graph_KernelOp<"while", "While",
    [RecursiveMemoryEffects, IsolatedFromAbove, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     DeclareOpInterfaceMethods<InferTypeOpInterface>,
     DeclareOpInterfaceMethods<Graph_GradientOpInterface>], "while"> {
  let summary = "repeats a region while a condition holds (While)";
  let description = [{
    TensorFlow's While (StatelessWhile): the loop-carried values start as
    `inputs`; while the `cond` region, run on them, yields true, the
    `body` region, run on them, yields their next values. The results are
    the values when `cond` yields false (the inputs where it does so at
    once). Both regions take the carried values as block arguments; `cond`
    yields a scalar tensor<i1>, `body` values of the inputs' types, which
    are the result types (the shape rule). The trip count is whatever the
    run makes it.

    ```mlir
    %r:2 = gplace.while (%i, %x) : tensor<i64>, tensor<2xf32> cond {
    ^bb0(%a: tensor<i64>, %b: tensor<2xf32>):
      %n = gplace.constant dense<3> : tensor<i64>
      %c = gplace.greater %n, %a : (tensor<i64>, tensor<i64>) -> tensor<i1>
      gplace.yield %c : tensor<i1>
    } body {
    ^bb0(%a: tensor<i64>, %b: tensor<2xf32>):
      ...
      gplace.yield %a1, %b1 : tensor<i64>, tensor<2xf32>
    }
    ```

    After --gplace-outline-control-flow the regions are empty and `cond`
    and `body` name private functions of the module (checked as If's:
    `cond` takes the carried values and returns a tensor<i1>, `body`
    takes and returns them).
  }];
  let arguments = !con((ins Variadic<Graph_Tensor>:$inputs,
                            OptionalAttr<FlatSymbolRefAttr>:$cond,
                            OptionalAttr<FlatSymbolRefAttr>:$body),
                       placementAttrs, controlDepsArg);
  let results = (outs Variadic<Graph_Tensor>:$results);
  let regions = (region AnyRegion:$cond_region, AnyRegion:$body_region);
  let assemblyFormat = "`(` $inputs `)` " # afterClause
      # " (`:` type($inputs)^)? (`cond` $cond_region^ `body` $body_region)?"
      # " attr-dict";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = tfNames # [{
    /// True once --gplace-outline-control-flow moved the regions into
    /// functions (cond and body set, regions empty).
    bool isOutlined() { return getCondAttr() != nullptr; }
  }];
}

def Graph_YieldOp : Op<Graph_Dialect, "yield",
    [Pure, Terminator,
     ParentOneOf<["IfOp", "WhileOp"]>]> {
  let summary = "the values a region of gplace.if or gplace.while yields";
  let description = [{
    Ends each region of `gplace.if` (its results) and `gplace.while` (the
    `cond` region's tensor<i1>, the `body` region's next carried values).

    ```mlir
    gplace.yield %x, %y : tensor<2xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<Graph_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // GPLACE_GRAPH_CONTROL_FLOW_OPS
