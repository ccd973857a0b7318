//===- PlanOps.td - gplan: the executable plan ----------------------------===//
//
// What the runtime does, step by step: kernel launches and copies on
// streams of devices, the events that order streams, and per device a
// static memory plan (one table of arena offsets per program). Produced from
// a placed graph by a chain of passes (--gplace-convert-graph-to-plan,
// --gplace-schedule-plan, --gplace-fuse-elementwise, --gplace-plan-memory,
// --gplace-verify-plan) and exported to runtime::Plan by PlanExport.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_PLAN_OPS
#define GPLACE_PLAN_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/Properties.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Plan_Dialect : Dialect {
  let name = "gplan";
  let cppNamespace = "::gplace::plan";
  let summary = "executable plans: launches, copies, streams, events, memory";
  let description = [{
    A module holds `gplan.device` declarations and one `gplan.program` per
    graph function. A program's body lists buffers (inputs, constants,
    variables, views) and steps (launches, copies) in program order.

    A plan is built in stages. Converted from the graph, steps have no
    stream yet and are ordered by data (buffers) and by tokens
    (`after(...)`, `gplan.join`). Scheduled, each step runs on a stream of
    its device (0: compute, 1: copies into the device); a stream runs its
    steps in order, streams run concurrently, and events order them: a
    `gplan.record` marks a point of a stream, and a step waits for events
    of other streams (`wait(...)`) before it runs; tokens and joins are
    gone. Memory-planned,
    each device of a program has a `gplan.arena` table giving the offset of
    each buffer its steps write.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Types and attributes.
//===----------------------------------------------------------------------===//

class Plan_Type<string name, string typeMnemonic> : TypeDef<Plan_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Plan_BufferType : Plan_Type<"Buffer", "buffer"> {
  let summary = "memory holding one tensor, dense and row-major";
  let description = [{
    The parameter is the tensor type, printed without `tensor`:
    `!gplan.buffer<2x3xf32>`, `!gplan.buffer<f32>` for a scalar.
  }];
  let parameters = (ins "::mlir::RankedTensorType":$tensorType);
  let hasCustomAssemblyFormat = 1;
}

def Plan_EventType : Plan_Type<"Event", "event"> {
  let summary = "a point in a stream that other streams can wait for";
}

def Plan_TokenType : Plan_Type<"Token", "token"> {
  let summary = "ordering before scheduling: ready when some steps are done";
  let description = [{
    Returned by a launch that writes buffers in place (`into(...)`) and by
    `gplan.join`; steps wait for tokens with `after(...)` until
    --gplace-schedule-plan turns the ordering into streams and events.
  }];
}

// Typed as plain mlir::Type so that formats print buffer types in full
// (`!gplan.buffer<...>`), not stripped.
def Plan_Buffer : Type<CPred<"::llvm::isa<::gplace::plan::BufferType>($_self)">,
                       "buffer">;
def Plan_Event : Type<CPred<"::llvm::isa<::gplace::plan::EventType>($_self)">,
                      "event"> {
  let builderCall = "$_builder.getType<::gplace::plan::EventType>()";
}
def Plan_Token : Type<CPred<"::llvm::isa<::gplace::plan::TokenType>($_self)">,
                      "token"> {
  let builderCall = "$_builder.getType<::gplace::plan::TokenType>()";
}

def Plan_KernelAttr : AttrDef<Plan_Dialect, "Kernel"> {
  let mnemonic = "kernel";
  let summary = "a kernel of the runtime (gplace::Kernel)";
  let description = [{
    Printed as its op's mnemonic, `#gplan.kernel<matmul>`, and bare in a
    launch: `gplan.launch matmul(...)`. The kernels are those of the op
    table (Graph_KernelOp records of the graph dialect).
  }];
  let parameters = (ins "::gplace::Kernel":$kernel);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Ops.
//===----------------------------------------------------------------------===//

// A step's name (StepName, PlanDialect.h): its graph op's name, which
// profiles, the timeline and the runtime's errors label the step with.
// Stored in the op, not uniqued: a default name is the kind's prefix (a
// string that lives as long as the program) and a number, so that naming a
// million steps builds no million strings (a NameLoc per step did, 40% of
// --gplace-convert-graph-to-plan at 1M ops). Printed `name "MatMul_3"`;
// absent (empty) on steps no graph op made.
def Plan_StepNameProp : Property<"::gplace::plan::StepName", "a step's name"> {
  let defaultValue = "::gplace::plan::StepName()";
  let hashProperty = "::gplace::plan::hash_value($_storage)";
  let writeToMlirBytecode = writeMlirBytecodeWithConvertToAttribute;
  let readFromMlirBytecode = readMlirBytecodeUsingConvertFromAttribute;
}

class Plan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plan_Dialect, mnemonic, traits>;

// Ops naming a device (`@gpu0`); their program checks that it is a
// gplan.device of the module (one symbol-use check per program).
class Plan_DeviceUserOp<string mnemonic, list<Trait> traits = []>
    : Plan_Op<mnemonic, traits>;

def Plan_DeviceOp : Plan_Op<"device", [Symbol]> {
  let summary = "a device the plan uses, with its memory plan's totals";
  let description = [{
    `memory_limit` is the device's limit in bytes (0: none), from the
    module's `gplace.devices`. --gplace-plan-memory adds `persistent_bytes`
    (constants and variables), `arena_bytes` (intermediates, the largest
    arena of the module's programs) and `peak_bytes` (their sum), and checks
    the peak against the limit.

    ```mlir
    gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, memory_limit = 0 : i64, peak_bytes = 112 : i64, persistent_bytes = 48 : i64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$device_name,
                       DefaultValuedAttr<I64Attr, "0">:$memory_limit,
                       OptionalAttr<I64Attr>:$persistent_bytes,
                       OptionalAttr<I64Attr>:$arena_bytes,
                       OptionalAttr<I64Attr>:$peak_bytes);
  let assemblyFormat = "$sym_name $device_name attr-dict";
  let hasVerifier = 1;
}

def Plan_ProgramOp : Plan_Op<"program", [Symbol, SingleBlock,
    IsolatedFromAbove, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the steps of one graph function, in program order";
  let description = [{
    Its symbol-use check verifies every device its ops name (`@gpu0`) is a
    `gplan.device` of the enclosing symbol table.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Plan_InputOp : Plan_Op<"input"> {
  let summary = "the program's input #index, in host memory";
  let arguments = (ins I64Attr:$index);
  let results = (outs Plan_Buffer:$buffer);
  let assemblyFormat = "$index attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Plan_ConstantOp : Plan_DeviceUserOp<"constant",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a constant in persistent device memory, filled at load";
  let description = [{
    ```mlir
    %0 = gplan.constant @cpu0 dense<1.0> : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, ElementsAttr:$value);
  let results = (outs Plan_Buffer:$buffer);
  // In C++, as gplan.launch's: $device $value attr-dict
  let hasCustomAssemblyFormat = 1;
}

def Plan_VariableOp : Plan_DeviceUserOp<"variable",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a variable in persistent device memory";
  let description = [{
    Initialised with `initial_value` when the plan is loaded; keeps its
    value from one run of the program to the next. Launches write it in
    place (`into(...)`).

    ```mlir
    %0 = gplan.variable @cpu0 "a" dense<3.0> : tensor<f32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, StrAttr:$var_name,
                       ElementsAttr:$initial_value);
  let results = (outs Plan_Buffer:$buffer);
  // In C++, as gplan.launch's: $device $var_name $initial_value attr-dict
  let hasCustomAssemblyFormat = 1;
}

def Plan_ViewOp : Plan_Op<"view"> {
  let summary = "the memory of another buffer, seen as another tensor type";
  let description = [{
    No step and no memory of its own: the result is `source`'s memory
    (TensorFlow forwarding an identity's or a reshape's input, or
    ReadVariableOp's view of a variable). Both types have the same size in
    bytes. Before scheduling, `after(...)` orders the view's users after
    those tokens.

    ```mlir
    %1 = gplan.view %0 : !gplan.buffer<2x3xf32> -> !gplan.buffer<6xf32>
    ```
  }];
  let arguments = (ins Plan_Buffer:$source, Variadic<Plan_Token>:$after);
  let results = (outs Plan_Buffer:$result);
  // In C++, as gplan.launch's, in the form of this format:
  //   $source (`after` `(` $after^ `)`)? attr-dict `:` type($source) `->`
  //   type($result)
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Plan_LaunchOp : Plan_DeviceUserOp<"launch", [AttrSizedOperandSegments]> {
  let summary = "runs a kernel on a device";
  let description = [{
    Runs `kernel` with typed `params` on `inputs`. Each buffer result is
    new memory the kernel writes (an arena slot); `into(...)` lists buffers
    the kernel writes in place (variables), and then the launch returns a
    token, ready once it has run. `params`, printed before the attribute
    dictionary and absent for a kernel without parameters set, holds the
    kernel's parameters as the op table types them: unit attributes for
    flags (absent: false), i64 integers, i64 arrays; the verifier checks
    names, types, and that the required ones are there.

    Once scheduled, `stream` is the stream of `device` it runs on, and
    `wait(...)` lists the events (of other streams) the stream waits for
    before the launch, as cudaStreamWaitEvent does. Launches
    of one `fusion` group (--gplace-fuse-elementwise) are consecutive
    elementwise launches of one stream with one result type, which the
    device runs as one kernel; a result used only inside its group needs
    no memory.

    With `workspace` (--gplace-size-workspaces) the launch's last buffer
    result is no tensor but the kernel's workspace, a `!gplan.buffer<Nxui8>`
    nothing reads: memory the kernel uses while it runs (oneDNN's
    scratchpad, reordered activations and filters), which the static memory
    plan reserves like any buffer written by the launch and free after it,
    as XLA reserves a cuDNN convolution's scratch.

    `name` is the step's name (its graph op's, "MatMul_3"), the label of
    the step in profiles, the timeline and the runtime's errors.

    ```mlir
    %2 = gplan.launch matmul(%0, %1) on @gpu0 stream 0 wait(%e) name "MatMul" {transpose_b} : (!gplan.buffer<2x3xf32>, !gplan.buffer<2x3xf32>) -> !gplan.buffer<2x2xf32>
    %t = gplan.launch assign_add(%3) into(%v) on @cpu0 stream 0 : (!gplan.buffer<f32>) into (!gplan.buffer<f32>) -> !gplan.token
    %5:2 = gplan.launch conv2d(%0, %4) on @cpu0 stream 0 workspace {padding = [0, 0, 0, 0], strides = [1, 1], window = [3, 3]} : (!gplan.buffer<1x8x8x3xf32>, !gplan.buffer<3x3x3x8xf32>) -> (!gplan.buffer<1x6x6x8xf32>, !gplan.buffer<4096xui8>)
    ```
  }];
  let arguments = (ins Plan_KernelAttr:$kernel, FlatSymbolRefAttr:$device,
                       OptionalAttr<I64Attr>:$stream,
                       OptionalAttr<I64Attr>:$fusion,
                       OptionalAttr<DictionaryAttr>:$params,
                       Variadic<Plan_Buffer>:$inputs,
                       Variadic<Plan_Buffer>:$outs,
                       Variadic<Plan_Token>:$after,
                       Variadic<Plan_Event>:$waits,
                       UnitAttr:$workspace,
                       Plan_StepNameProp:$step_name);
  let results = (outs Variadic<AnyTypeOf<[Plan_Buffer, Plan_Token]>>:$results);
  // Written in C++ (PlanDialect.cpp), in the form of this format, so that
  // printing, the plan's most frequent op, does not build the attribute
  // dictionary a declarative format prints from:
  //   custom<Kernel>($kernel) `(` $inputs `)` (`into` `(` $outs^ `)`)?
  //   `on` $device (`stream` $stream^)? (`fusion` $fusion^)?
  //   (`workspace` $workspace^)?
  //   (`after` `(` $after^ `)`)? (`wait` `(` $waits^ `)`)?
  //   (`name` $step_name^)? ($params^)?
  //   attr-dict `:` `(` type($inputs) `)` (`into` `(` type($outs)^ `)`)?
  //   `->` type($results)
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The workspace result (with `workspace`), else null.
    mlir::Value getWorkspaceBuffer();
  }];
}

def Plan_CopyOp : Plan_DeviceUserOp<"copy",
    [AllTypesMatch<["source", "result"]>, AttrSizedOperandSegments]> {
  let summary = "copies a buffer into new memory of `device`";
  let description = [{
    Runs on `device`, the destination (once scheduled, on its copy stream,
    after waiting for the events in `wait(...)`); the source may be on any
    device or be a program input (host memory). `name`, as a launch's, is
    its label: a copy --gplace-insert-copies made takes the name of the
    step that wrote the tensor it moves, as TensorFlow names a transfer's
    Send/Recv after its producer.

    ```mlir
    %1 = gplan.copy %0 to @gpu0 stream 1 wait(%e) name "MatMul" : !gplan.buffer<2x3xf32>
    ```
  }];
  let arguments = (ins Plan_Buffer:$source, FlatSymbolRefAttr:$device,
                       OptionalAttr<I64Attr>:$stream,
                       Variadic<Plan_Token>:$after,
                       Variadic<Plan_Event>:$waits,
                       Plan_StepNameProp:$step_name);
  let results = (outs Plan_Buffer:$result);
  // In C++, as gplan.launch's, in the form of this format:
  //   $source `to` $device (`stream` $stream^)? (`after` `(` $after^ `)`)?
  //   (`wait` `(` $waits^ `)`)? (`name` $step_name^)? attr-dict
  //   `:` type($source)
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Plan_JoinOp : Plan_Op<"join"> {
  let summary = "a token ready once every operand is";
  let description = [{
    A buffer is ready once the step writing it has run (a view: its source,
    and its own `after` tokens), a token once the steps it stands for have.
    Scheduling removes joins.

    ```mlir
    %t = gplan.join %0, %t1 : !gplan.buffer<2xf32>, !gplan.token
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[Plan_Buffer, Plan_Token]>>:$inputs);
  let results = (outs Plan_Token:$token);
  let assemblyFormat = "$inputs attr-dict (`:` type($inputs)^)?";
}

def Plan_RecordOp : Plan_DeviceUserOp<"record"> {
  let summary = "an event that is reached when the stream gets here";
  let description = [{
    As cudaEventRecord: the event is reached once every step of the stream
    before it has run. Steps of other streams wait for it with `wait(...)`.

    ```mlir
    %e = gplan.record on @gpu0 stream 1
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, I64Attr:$stream);
  let results = (outs Plan_Event:$event);
  // In C++, as gplan.launch's: `on` $device `stream` $stream attr-dict
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Plan_ArenaOp : Plan_DeviceUserOp<"arena"> {
  let summary = "the static memory plan of one device in one program";
  let description = [{
    The device's arena for this program holds `bytes` bytes; `offsets`
    gives, for each buffer a step of the program writes on this device (a
    launch's buffer result or a copy's result), in program order, its
    offset in the arena, or -1 for a fused launch's result that stays in
    registers. Buffers whose lives overlap (by the events' happens-before
    order) never overlap in memory. Written by --gplace-plan-memory: one
    table per device rather than one op per buffer.

    ```mlir
    gplan.arena @gpu0 bytes 192 offsets [0, 64, 128, 64]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, I64Attr:$bytes,
                       DenseI64ArrayAttr:$offsets);
  let assemblyFormat = "$device `bytes` $bytes `offsets` $offsets attr-dict";
  let hasVerifier = 1;
}

def Plan_ReturnOp : Plan_Op<"return", [Terminator, HasParent<"ProgramOp">]> {
  let summary = "the program's results";
  let arguments = (ins Variadic<Plan_Buffer>:$results);
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

#endif // GPLACE_PLAN_OPS
