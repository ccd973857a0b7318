//===- Passes.td - gplace conversion passes -------------------------------===//

#ifndef GPLACE_CONVERSION_PASSES
#define GPLACE_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertGraphToPlanPass : Pass<"gplace-convert-graph-to-plan",
                                  "::mlir::ModuleOp"> {
  let summary = "Converts placed graphs to unscheduled plans (gplan)";
  let description = [{
    Turns every `func.func` of a placed graph (after --gplace-insert-copies
    and --gplace-insert-control-deps) into a `gplan.program` whose steps
    have no stream and no memory yet, and declares each device it uses with
    a `gplan.device` (its `memory_limit` from the module's
    `gplace.devices`). Each op becomes what its traits and interfaces say:

    - a function argument: `gplan.input` (host memory);
    - PersistentOpInterface (constants, variables): persistent device memory
      filled when the plan loads;
    - ForwardsInput (identity, reshape, read): a `gplan.view` of its input's
      memory, no step. A read of a variable is copied instead (a launch of
      its `read` kernel) where a later write of the variable in the same
      run may come before some use of the value: a use on another stream
      that the write does not wait for, or a result of the program;
    - KernelOpInterface: a `gplan.launch` of its kernel with its typed
      parameters; variables it writes (its memory effects) are written in
      place (`into(...)`), and the launch returns a token;
    - TransferOpInterface: a `gplan.copy` of a tensor to the destination,
      or, for a token, ordering only;
    - ControlOnly (group): a `gplan.join` of what it waits for.

    `after(...)` tokens become `after(...)` on steps and views. Steps are
    located at their op and carry its name (`name "MatMul_3"`), which
    profiles, the timeline and the runtime's errors print; a copy
    --gplace-insert-copies made carries the name of the step that wrote the
    tensor it moves.
  }];
  let dependentDialects = ["::gplace::plan::PlanDialect"];
}

#endif // GPLACE_CONVERSION_PASSES
