//===- Passes.td - gplace conversion passes --------------------------------===//

#ifndef GPLACE_CONVERSION_PASSES
#define GPLACE_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def LowerToPlanPass : Pass<"gplace-lower-to-plan", "::mlir::ModuleOp"> {
  let summary = "Lowers placed graphs to executable plans (gplan)";
  let description = [{
    Turns every `func.func` of a placed graph (after --gplace-insert-copies
    and --gplace-insert-control-deps) into a `gplan.program`, and declares
    each device it uses with a `gplan.device`:

    - function arguments become `gplan.input` (host memory); constants and
      variables persistent device memory, filled once when the plan loads;
    - every other value gets a `gplan.alloc`: a slot of its device's arena
      at a fixed offset, from a static memory plan over liveness intervals
      (first fit, 64-byte aligned; a slot is reused only by work ordered
      after every use of its previous tenant);
    - each op with a kernel becomes a `gplan.launch` on its device's compute
      stream (0), each copy a `gplan.copy` on the destination's copy stream
      (1); groups and token copies become ordering only;
    - a step that needs work of another stream waits on an event recorded
      after that work (`gplan.record` / `gplan.wait`), once per stream.

    Each `gplan.device` carries `persistent_bytes`, `arena_bytes` and
    `peak_bytes`; a device whose peak exceeds its memory limit is an error
    naming device, need and limit.
  }];
  let dependentDialects = ["::gplace::plan::PlanDialect"];
  let options = [
    Option<"gpuMemoryLimit", "gpu-memory-limit", "int64_t", /*default=*/"0",
           "Memory limit of each GPU in MiB (0: the limit the local device "
           "provider reports, none in gplace-opt)">,
  ];
}

def PrintMemoryPlanPass : Pass<"gplace-print-memory-plan",
                               "::mlir::ModuleOp"> {
  let summary = "Prints the static memory plan of every gplan program";
  let description = [{
    For each device: its persistent, arena and peak bytes, then one line per
    arena buffer with its size, offset and live range (in steps). Printed on
    stderr; the IR is not changed.
  }];
}

#endif // GPLACE_CONVERSION_PASSES
