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
        The floating-point operations one execution of the op performs,
        for the cost model (include/gplace/Transforms/CostModel.h): 2·M·N·K
        for a matmul, 2 per multiply-add of a convolution, one per element
        of the largest tensor for the rest. Declared by each op's record
        (`flops` in GraphOps.td).
      }], "int64_t", "getFlops">,
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
  // Every tensor a graph op produces (a variable's value included) must
  // have a byte size that fits in int64_t: sizes wrapped silently before.
  let verify = [{
    return ::gplace::graph::detail::verifyResultSizes($_op);
  }];
}

def Graph_ElementwiseOpInterface : OpInterface<"ElementwiseOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op that applies a scalar function to each element of its data
    operands, broadcast numpy-style to the result's shape (bias_add's bias
    broadcasts along the last dimension; add_n sums any number of operands
    pairwise). The interface verifies broadcasting and element types once
    for every such op. Its kernel is the scalar function alone
    (lib/Runtime/ElementwiseKernels.def), which the host, NVRTC and fused
    kernels all expand, and devices may fuse runs of these ops into one
    kernel (--gplace-fuse-elementwise). Each element of the result is
    written after that element of every operand is read, so the result
    may take the buffer of an operand of its type that nothing reads
    afterwards (--gplace-plan-memory's in-place, as XLA's
    CanShareOperandBufferWithUser for elementwise ops).
  }];
  let methods = [
    InterfaceMethod<[{
        The number of data operands the scalar function takes: 1, 2, or
        any number for add_n (a sum, applied pairwise).
      }], "unsigned", "getArity", (ins), [{}], [{
        return $_op->getNumOperands() - $_op.getControlDeps().size();
      }]>,
  ];
  // After the op's own verifier, whose messages are more specific (bias
  // sizes, add_n's equal types).
  let verify = [{
    return ::gplace::graph::detail::verifyElementwiseOp($_op);
  }];
  let verifyWithRegions = 1;
}

def Graph_KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op that runs as a kernel of its own: lowering to a plan turns it into
    a `gplan.launch` of `getKernel()` with `getKernelParameters()`. The
    kernel's id, its parameters and the element types it supports on each
    device type come from the op's ODS record (gplace-tblgen's op table), so
    an op and its kernel are declared in one place.
  }];
  let methods = [
    StaticInterfaceMethod<[{
        The runtime kernel the op runs (`gplace::Kernel`).
      }], "::gplace::Kernel", "getKernel">,
    InterfaceMethod<[{
        The kernel's parameters, typed and normalised as the kernel takes
        them: the parameters of the kernel in the op table, a UnitAttr for
        a flag that is set (absent when not), an i64 IntegerAttr, or a
        DenseI64ArrayAttr. By default the op's attributes of the same
        names; ops whose attributes count from the end (negative axes, a
        size of -1) resolve them.
      }], "::mlir::DictionaryAttr", "getKernelParameters", (ins), [{}], [{
        return ::gplace::graph::detail::getDefaultKernelParameters(
            $_op, $_op.getKernel());
      }]>,
  ];
}

def Graph_TransferOpInterface : OpInterface<"TransferOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op that moves a value or a control token from one device to another
    (TensorFlow's _Send/_Recv pair): a tensor is copied, a token makes ops
    on the destination wait for work on the source. Inserted by
    --gplace-insert-copies and --gplace-insert-control-deps; placement
    leaves it where it is (on its destination).
  }];
  let methods = [
    InterfaceMethod<"The value or token moved.", "::mlir::Value",
      "getTransferred", (ins), [{}], [{ return $_op->getOperand(0); }]>,
    InterfaceMethod<"The full name of the source device.",
      "::mlir::StringAttr", "getSourceDevice", (ins), [{}],
      [{ return $_op.getSourceAttr(); }]>,
    InterfaceMethod<"The full name of the destination device.",
      "::mlir::StringAttr", "getDestinationDevice", (ins), [{}],
      [{ return $_op.getDestinationAttr(); }]>,
  ];
}

def Graph_SeededOpInterface : OpInterface<"SeededOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op whose numbers come from a seed operand (a tensor of two
    integers), as TensorFlow's stateless random ops: the same seed and
    shape give the same numbers. `--gplace-replicate` gives each replica's
    copy of such an op that depends on the batch a seed of its own, as each
    of TensorFlow's towers draws its own dropout mask.
  }];
  let methods = [
    InterfaceMethod<"The seed operand.", "::mlir::OpOperand &",
      "getSeedOperand", (ins), [{}], [{ return $_op.getSeedMutable(); }]>,
  ];
}

def Graph_PersistentOpInterface : OpInterface<"PersistentOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op whose value lives in persistent device memory, filled once when a
    plan loads from `getInitialValue()`: a constant (TensorFlow's Const) or,
    when the op's result is a resource, a variable (VarHandleOp with its
    initializer), which keeps its value from one run to the next.
  }];
  let methods = [
    InterfaceMethod<"The value the memory holds when the plan loads.",
      "::mlir::ElementsAttr", "getInitialValue">,
  ];
}

def Graph_LayoutSensitiveOpInterface
    : OpInterface<"LayoutSensitiveOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op whose rank-4 activations lie in the layout its `data_format`
    names ("NHWC", the default, or "NCHW"), with its 4-entry window
    attributes (`strides`, `ksize`, `dilations`) and its 8-entry
    `explicit_paddings` in that order: Grappler's layout-sensitive ops.
    `--gplace-layout` asks this interface, and never names an op, to run
    such an op in another layout with transposes around it.
  }];
  let methods = [
    InterfaceMethod<[{
        The operands in the op's layout (the activations; not filters,
        biases or per-channel vectors).
      }], "::llvm::SmallVector<unsigned, 1>", "getLayoutOperands", (ins),
      [{}], [{ return {0}; }]>,
    InterfaceMethod<[{
        The results in the op's layout.
      }], "::llvm::SmallVector<unsigned, 1>", "getLayoutResults", (ins),
      [{}], [{ return {0}; }]>,
    InterfaceMethod<[{
        Whether `data_format` is "NCHW".
      }], "bool", "isChannelsFirst", (ins), [{}], [{
        auto format = $_op->template getAttrOfType<::mlir::StringAttr>("data_format");
        return format && format.getValue() == "NCHW";
      }]>,
    InterfaceMethod<[{
        Rewrites the op's attributes for the other layout: `data_format`
        (absent for NHWC), and the window attributes permuted. The caller
        permutes the operands and result types.
      }], "void", "setChannelsFirst", (ins "bool":$channelsFirst), [{}], [{
        ::gplace::graph::detail::setChannelsFirst($_op, channelsFirst);
      }]>,
  ];
}

def Graph_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::gplace::graph";
  let description = [{
    An op with a vector-Jacobian product: given the gradients of a scalar
    loss with respect to the op's results, it builds the ops computing the
    gradients with respect to its data operands. TensorFlow's gradient
    registry (`@ops.RegisterGradient("MatMul")` in math_grad.py and
    nn_grad.py), written with the op: `--gplace-differentiate` asks this
    interface and never names an op. An op on the path from `xs` to `ys`
    with neither this interface nor the NotDifferentiable trait is an
    error naming it.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at `builder`'s insertion point, the gradients of the data
        operands from `resultGradients` (one per result; null where no
        gradient flows into that result, never all null). Fills
        `operandGradients` with one value per data operand, of the
        operand's type, or null where none flows (integer operands, labels).
        Fails with an error at the op for a gradient it cannot build.
      }], "::mlir::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>,
  ];
}

#endif // GPLACE_GRAPH_INTERFACES
