//===- PlanOps.td - gplan: the executable plan -----------------------------===//
//
// What the runtime does, step by step: per-device buffers at fixed offsets
// (the static memory plan), kernel launches and copies on streams, and the
// events that order streams. Lowered from a placed graph by
// --gplace-lower-to-plan; exported to runtime::Plan by PlanExport.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_PLAN_OPS
#define GPLACE_PLAN_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Plan_Dialect : Dialect {
  let name = "gplan";
  let cppNamespace = "::gplace::plan";
  let summary = "executable plans: buffers, kernel launches, copies, events";
  let description = [{
    A module holds `gplan.device` declarations and one `gplan.program` per
    graph function. A program's body is a list of steps in program order.
    Each step runs on a stream of a device (stream 0: compute, stream 1:
    copies into the device); each stream runs its steps in order, streams
    run concurrently, and `gplan.record`/`gplan.wait` order them.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Plan_Type<string name, string typeMnemonic> : TypeDef<Plan_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Plan_BufferType : Plan_Type<"Buffer", "buffer"> {
  let summary = "memory holding one tensor";
  let parameters = (ins "::mlir::RankedTensorType":$tensorType);
  let assemblyFormat = "`<` $tensorType `>`";
}

def Plan_EventType : Plan_Type<"Event", "event"> {
  let summary = "a point in a stream that other streams can wait for";
}

def Plan_Buffer : Type<CPred<"::llvm::isa<::gplace::plan::BufferType>($_self)">,
                       "buffer">;
def Plan_Event : Type<CPred<"::llvm::isa<::gplace::plan::EventType>($_self)">,
                      "event"> {
  let builderCall = "$_builder.getType<::gplace::plan::EventType>()";
}

class Plan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plan_Dialect, mnemonic, traits>;

def Plan_DeviceOp : Plan_Op<"device", [Symbol]> {
  let summary = "a device the plan uses, with its memory plan's totals";
  let description = [{
    `persistent_bytes` holds the constants and variables, `arena_bytes` the
    intermediates (buffers reused by liveness), `peak_bytes` their sum;
    `memory_limit` is the limit checked at compile time (0: none). Sizes
    are the maximum over the module's programs.

    ```mlir
    gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, memory_limit = 0 : i64, peak_bytes = 112 : i64, persistent_bytes = 48 : i64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$device_name,
                       I64Attr:$persistent_bytes, I64Attr:$arena_bytes,
                       I64Attr:$peak_bytes, I64Attr:$memory_limit);
  let assemblyFormat = "$sym_name $device_name attr-dict";
}

def Plan_ProgramOp : Plan_Op<"program", [Symbol, SingleBlock,
                                         IsolatedFromAbove]> {
  let summary = "the steps of one graph function, in program order";
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
}

def Plan_AllocOp : Plan_Op<"alloc"> {
  let summary = "a buffer in a device's arena (the static memory plan)";
  let description = [{
    The buffer occupies `[offset, offset + size)` of the device's arena
    from step `live[0]` to step `live[1]` (step numbers count the program's
    launches and copies from 0; -1 means to the end). Buffers whose lives
    overlap never overlap in memory.

    ```mlir
    %0 = gplan.alloc @gpu0 offset 0 live [2, 4] : !gplan.buffer<tensor<2x2xf32>>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, I64Attr:$offset,
                       DenseI64ArrayAttr:$live);
  let results = (outs Plan_Buffer:$buffer);
  let assemblyFormat =
      "$device `offset` $offset `live` $live attr-dict `:` type($buffer)";
}

def Plan_ConstantOp : Plan_Op<"constant",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a constant in persistent device memory, filled at load";
  let description = [{
    ```mlir
    %0 = gplan.constant @cpu0 dense<1.0> : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, ElementsAttr:$value);
  let results = (outs Plan_Buffer:$buffer);
  let assemblyFormat = "$device $value attr-dict";
}

def Plan_VariableOp : Plan_Op<"variable",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a variable in persistent device memory";
  let description = [{
    Initialised with `initial_value` when the plan is loaded; keeps its
    value from one run of the program to the next.

    ```mlir
    %0 = gplan.variable @cpu0 "a" dense<3.0> : tensor<f32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, StrAttr:$var_name,
                       ElementsAttr:$initial_value);
  let results = (outs Plan_Buffer:$buffer);
  let assemblyFormat = "$device $var_name $initial_value attr-dict";
}

def Plan_LaunchOp : Plan_Op<"launch", [AttrSizedOperandSegments]> {
  let summary = "runs a kernel of the kernel registry on a stream";
  let description = [{
    `kernel` names the graph op whose kernel runs ("gplace.matmul"); the
    kernel reads `inputs` and writes `outputs`. Kernel parameters (such as
    `transpose_b`, `axes`, `perm`) are in the attribute dictionary.

    ```mlir
    gplan.launch "gplace.matmul" on @gpu0 stream 0 (%0, %1) -> (%2) {transpose_b} : (!gplan.buffer<tensor<2x3xf32>>, !gplan.buffer<tensor<2x3xf32>>) -> (!gplan.buffer<tensor<2x2xf32>>)
    ```
  }];
  let arguments = (ins StrAttr:$kernel, FlatSymbolRefAttr:$device,
                       I64Attr:$stream, Variadic<Plan_Buffer>:$inputs,
                       Variadic<Plan_Buffer>:$outputs);
  let assemblyFormat = "$kernel `on` $device `stream` $stream ` ` `(` $inputs `)` "
      "`->` `(` $outputs `)` attr-dict `:` `(` type($inputs) `)` `->` `(` "
      "type($outputs) `)`";
}

def Plan_CopyOp : Plan_Op<"copy"> {
  let summary = "copies a buffer into another, on a stream of `device`";
  let arguments = (ins Plan_Buffer:$source, Plan_Buffer:$target,
                       FlatSymbolRefAttr:$device, I64Attr:$stream);
  let assemblyFormat = "$source `->` $target `on` $device `stream` $stream "
      "attr-dict `:` type($source) `,` type($target)";
  let hasVerifier = 1;
}

def Plan_RecordOp : Plan_Op<"record"> {
  let summary = "an event that is reached when the stream gets here";
  let arguments = (ins FlatSymbolRefAttr:$device, I64Attr:$stream);
  let results = (outs Plan_Event:$event);
  let assemblyFormat = "`on` $device `stream` $stream attr-dict";
}

def Plan_WaitOp : Plan_Op<"wait"> {
  let summary = "the stream waits until the event is reached";
  let arguments = (ins Plan_Event:$event, FlatSymbolRefAttr:$device,
                       I64Attr:$stream);
  let assemblyFormat = "$event `on` $device `stream` $stream attr-dict";
}

def Plan_ReturnOp : Plan_Op<"return", [Terminator, HasParent<"ProgramOp">]> {
  let summary = "the program's results";
  let arguments = (ins Variadic<Plan_Buffer>:$results);
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

#endif // GPLACE_PLAN_OPS
