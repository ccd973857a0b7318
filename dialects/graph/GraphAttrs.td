//===- GraphAttrs.td - gplace graph dialect attributes --------------------===//

#ifndef GPLACE_GRAPH_ATTRS
#define GPLACE_GRAPH_ATTRS

include "graph/GraphBase.td"

def Graph_DeviceAttr : AttrDef<Graph_Dialect, "Device"> {
  let mnemonic = "device";
  let summary = "a device the graph is compiled for";
  let description = [{
    One device of the module's `gplace.devices` list: its full name, and
    what the compiler knows of it. `memory_limit` (bytes; absent: none) is
    the limit the memory planner checks; `description` is TensorFlow's
    physical device description, printed by the placement log; a CUDA GPU
    whose status was read when compilation began (NVML) carries its load,
    `processes`, `free_mib` and `utilization` (percent), which the
    `idle-gpu` policy ranks GPUs by. `--gplace-assign-devices` writes the
    list (from its `devices=` option, or from the runtime in gplace-run);
    placement and the memory planner read it, so compiling is a function of
    the IR alone.

    ```mlir
    module attributes {gplace.devices = [
        #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">,
        #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0", memory_limit = 1073741824, description = "device: 0, name: emulated GPU (host memory)">]} {
    }
    ```
  }];
  let parameters = (ins
    StringRefParameter<"full device name">:$name,
    DefaultValuedParameter<"int64_t", "0">:$memoryLimit,
    StringRefParameter<"physical description", "\"\"">:$description,
    DefaultValuedParameter<"int64_t", "-1">:$processes,
    DefaultValuedParameter<"int64_t", "-1">:$freeMiB,
    DefaultValuedParameter<"int64_t", "-1">:$utilization
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // GPLACE_GRAPH_ATTRS
