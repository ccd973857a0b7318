//===- Passes.td - passes over gplan plans --------------------------------===//
//
// After --gplace-convert-graph-to-plan, in this order: schedule streams and
// events, fuse elementwise runs, plan memory, verify. Each has its lit test
// in test/Dialect/Plan/ and its page in docs/passes/.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_PLAN_TRANSFORMS_PASSES
#define GPLACE_PLAN_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def SchedulePlanPass : Pass<"gplace-schedule-plan", "::mlir::ModuleOp"> {
  let summary = "Puts each step on a stream and orders streams with events";
  let description = [{
    Each launch runs on its device's compute stream (0), each copy on the
    copy stream (1) of its destination. A stream runs its steps in program
    order. When a step needs a step of another stream (through a buffer it
    reads or writes, a view's source, or a token of `after(...)`), it waits
    (`wait(...)`) for an event recorded right after that step
    (`gplan.record`); a stream that already knows, through the events it
    waited for, that the step has run does not wait again. Tokens then order nothing more: `after(...)`
    operands and `gplan.join` are removed. Programs already scheduled are
    left as they are.

    ```mlir
    // before
    %1 = gplan.copy %0 to @gpu0 : !gplan.buffer<2xf32>
    %2 = gplan.launch exp(%1) on @gpu0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
    // after
    %1 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<2xf32>
    %e = gplan.record on @gpu0 stream 1
    %2 = gplan.launch exp(%1) on @gpu0 stream 0 wait(%e) : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
    ```
  }];
}

def FuseElementwisePass : Pass<"gplace-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Groups runs of elementwise launches into one kernel";
  let description = [{
    XLA's loop fusion, on a scheduled plan: on each stream, a run
    of consecutive launches of elementwise kernels (those of the ops with
    ElementwiseOpInterface) with one result type, not broken by an event
    (recorded, or waited for by a launch, which then starts a new run),
    becomes one fusion group (`fusion N`), which the device runs as one
    kernel: a GPU as one CUDA kernel, a host device (the CPU, an emulated
    GPU) a block of elements at a time through every op of the group. A group holds at most `max-launches` launches and reads and
    writes at most 256 buffers (a CUDA kernel's parameters). A result used
    only inside its group stays in registers: --gplace-plan-memory gives it
    no memory.
  }];
  let options = [
    Option<"maxLaunches", "max-launches", "unsigned", /*default=*/"64",
           "The most launches one fused kernel runs (bounds its source and "
           "compile time)">,
  ];
}

def SizeWorkspacesPass : Pass<"gplace-size-workspaces", "::mlir::ModuleOp"> {
  let summary = "Gives each launch the workspace its kernel takes";
  let description = [{
    XLA's convolution algorithm picker, for the host kernels: asks the
    kernel library the tool registered (WorkspaceInterface.h; gplace-opt
    and gplace-run register the host kernels') how many bytes of workspace
    each launch's kernel takes on its device (oneDNN's scratchpad and the
    activations and filters it reorders), and gives each launch that takes
    some a `workspace` result of that many bytes, which
    --gplace-plan-memory then reserves like any buffer the launch writes.
    Launches on devices the library cannot tell of (CUDA GPUs: cuDNN's
    workspace stays the stream's), fused launches and launches that already
    have a workspace are left as they are.

    ```mlir
    // before
    %1 = gplan.launch conv2d(%x, %f) on @cpu0 stream 0 {...} : (...) -> !gplan.buffer<1x6x6x8xf32>
    // after
    %1:2 = gplan.launch conv2d(%x, %f) on @cpu0 stream 0 workspace {...} : (...) -> (!gplan.buffer<1x6x6x8xf32>, !gplan.buffer<4096xui8>)
    ```
  }];
}

def PlanMemoryPass : Pass<"gplace-plan-memory", "::mlir::ModuleOp"> {
  let summary = "The static memory plan: an arena table per device";
  let description = [{
    Buffer assignment for a scheduled plan. Per program and device, each
    buffer a step writes (a launch's buffer result, a copy's result) gets an
    offset in the device's arena, first fit over the buffers in program
    order, 64-byte aligned. Free memory is taken, by preference, where every
    use of its last tenant (views included) happens before the step writing
    the new buffer, by the streams' order and the events between them
    (vector clocks); else where the step can be made to wait for events
    after the uses it does not know of (the pass adds the waits, and
    records the events if needed); else the arena grows. Streams never
    race for memory, and the arena stays near the bytes live in program
    order (first fit may leave gaps). Results of the program keep
    their memory to the end. The plan gets a `gplan.arena` table per device
    and program; each `gplan.device` gets `persistent_bytes` (constants and
    variables), `arena_bytes` and `peak_bytes`. A device whose peak exceeds
    its `memory_limit` is an error naming device, need and limit.

    With `in-place`, an elementwise launch (ElementwiseOpInterface) that
    is a step of its own writes its result into the memory of an operand
    of the result's type whose last use it is, every use of that operand
    being on the launch's stream (XLA's buffer assignment, TensorFlow's
    forward_input): ReluGrad over MaxPoolGrad's output, an accumulated
    gradient's add.
  }];
  let options = [
    Option<"inPlace", "in-place", "bool", /*default=*/"false",
           "Let an elementwise launch write its result over an operand "
           "buffer whose last use it is">,
  ];
}

def VerifyPlanPass : Pass<"gplace-verify-plan", "::mlir::ModuleOp"> {
  let summary = "Checks that a plan is complete: scheduled and memory-planned";
  let description = [{
    Ends the lowering, as IREE's VerifyLoweringTo* passes do: no tokens,
    joins or `after(...)` remain; every launch and copy has a stream; a
    step waits only for events recorded on other streams; fusion groups are
    consecutive elementwise launches of one stream with one result type,
    of which only the first waits; every device has its byte counts; every
    program has one arena table per device it writes buffers on, with one
    offset per such buffer, inside the arena. By the happens-before order
    of streams and events (vector clocks), every step using an arena buffer
    written on another stream runs after the writer, and a step writing
    arena memory runs after every use of the buffers that held it before
    (program results keep theirs). In-place writes of variables are not
    checked here: the graph's control dependencies order them. The runtime
    relies on these facts, and on the byte counts: persistent_bytes holds
    every program's constants and variables, peak_bytes is persistent
    plus arena bytes. The IR is not changed.
  }];
}

def PrintMemoryPlanPass : Pass<"gplace-print-memory-plan",
                               "::mlir::ModuleOp"> {
  let summary = "Prints the static memory plan of every gplan program";
  let description = [{
    For each device: its persistent, arena and peak bytes and the liveness
    lower bound of the peak (persistent bytes plus the most bytes of arena
    buffers live at one step, in program order; the arena's part in
    parentheses), then one line per arena buffer with its size, offset and
    live steps. Printed on stderr; the IR is not changed. A plan without a
    memory plan is an error.
  }];
}

#endif // GPLACE_PLAN_TRANSFORMS_PASSES
