//===- GraphInterfaces.td - gplace graph op interfaces --------------------===//

#ifndef GPLACE_GRAPH_INTERFACES
#define GPLACE_GRAPH_INTERFACES

include "mlir/IR/OpBase.td"

def Graph_PlacedOpInterface : OpInterface<"PlacedOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op of the graph: it may request a device (`device`), carry a name
    (`name`), receive an assigned device from placement (`assigned_device`)
    and wait on control tokens (`after(...)`, always its last operands).
    Passes use this interface instead of switching over op kinds.

    Mirrors TensorFlow's NodeDef fields `device`, `name` and the assigned
    device of a placed node.
  }];
  let methods = [
    StaticInterfaceMethod<[{
        TensorFlow's op type for this op, e.g. `MatMul`, `Const`, `AddN`;
        printed in the placement log.
      }], "::llvm::StringRef", "getTensorFlowType">,
    StaticInterfaceMethod<[{
        The name TensorFlow's Python API gives the op when the user gives
        none, before uniquing: usually the op type (`MatMul`, `Const`), but
        `mul`, `add`, `sub`, `truediv`, `transpose`, `concat` for the ops
        whose Python wrappers name them so.
      }], "::llvm::StringRef", "getDefaultNamePrefix">,
    InterfaceMethod<[{
        The requested device as written, or an empty string.
      }], "::llvm::StringRef", "getRequestedDevice", (ins), [{}], [{
        if (auto attr = $_op.getDeviceAttr())
          return attr.getValue();
        return {};
      }]>,
    InterfaceMethod<[{
        The `name` attribute, or an empty string.
      }], "::llvm::StringRef", "getUserName", (ins), [{}], [{
        if (auto attr = $_op.getNameAttr())
          return attr.getValue();
        return {};
      }]>,
    InterfaceMethod<[{
        The full device name written by placement, or an empty string.
      }], "::llvm::StringRef", "getAssignedDeviceName", (ins), [{}], [{
        if (auto attr = $_op.getAssignedDeviceAttr())
          return attr.getValue();
        return {};
      }]>,
    InterfaceMethod<[{
        Records `device`, a full canonical device name, as the op's
        assigned device (placement's result).
      }], "void", "assignDevice", (ins "::mlir::StringAttr":$device),
      [{}], [{
        $_op.setAssignedDeviceAttr(device);
      }]>,
    InterfaceMethod<[{
        The control tokens the op waits on (`after(...)`).
      }], "::mlir::OperandRange", "getControlDependencies", (ins), [{}], [{
        return $_op.getControlDeps();
      }]>,
    InterfaceMethod<[{
        Makes the op wait for `token` too (appends it to `after(...)`).
      }], "void", "addControlDependency", (ins "::mlir::Value":$token), [{}],
      [{
        $_op.getControlDepsMutable().append(token);
      }]>,
    InterfaceMethod<[{
        The op's data operands: every operand except the control tokens.
      }], "::mlir::OperandRange", "getDataOperands", (ins), [{}], [{
        return $_op->getOperands().drop_back($_op.getControlDeps().size());
      }]>,
  ];
}

def Graph_ElementwiseOpInterface : OpInterface<"ElementwiseOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op that applies a scalar function to each element of its data
    operands, broadcast numpy-style to the result's shape. The interface
    verifies broadcasting and element types once for every such op; later
    stages (kernel generation, fusion) treat these ops uniformly.
  }];
  let methods = [
    StaticInterfaceMethod<[{
        The number of data operands the scalar function takes (1 or 2).
      }], "unsigned", "getArity">,
  ];
  let verify = [{
    return ::gplace::graph::detail::verifyElementwiseOp($_op);
  }];
}

#endif // GPLACE_GRAPH_INTERFACES
