//===- Passes.td - gplace graph passes ------------------------------------===//

#ifndef GPLACE_TRANSFORMS_PASSES
#define GPLACE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def VerifyDevicesPass : Pass<"gplace-verify-devices", "::mlir::ModuleOp"> {
  let summary = "Checks every device string of the graph";
  let description = [{
    Parses every op's `device` (a request, any TensorFlow spelling) and
    `assigned_device` (which must be a full name), and every function's
    `gplace.default_device`, with the device-name grammar of SPEC §1.1.
    Each bad string is reported at its op's location, naming the string and
    the offending part; the pass then fails. The IR is not changed.

    ```mlir
    %a = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:x"}
    // error: invalid device specification '/gpu:x': device id 'x' is not a
    //        non-negative integer
    ```
  }];
}

#endif // GPLACE_TRANSFORMS_PASSES
