//===- GraphBase.td - gplace graph dialect and shared constraints ---------===//
//
// The `gplace` dialect: TensorFlow-style dataflow graphs whose ops carry a
// requested `device`, a `name` and, after placement, an `assigned_device`.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_GRAPH_BASE
#define GPLACE_GRAPH_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Graph_Dialect : Dialect {
  let name = "gplace";
  let cppNamespace = "::gplace::graph";
  let summary = "TensorFlow-style dataflow graphs with device placement";
  let description = [{
    Graphs live in `func.func` bodies. Values are statically shaped builtin
    tensors of `f32`, `f16`, `bf16`, `f64`, `i32`, `i64` or `i1` (and the
    storage types `ui8`, `i8`, `i16`, `ui16`, `ui32`), resources
    (`!gplace.resource<tensor<...>>`, TensorFlow's resource variables) and
    control tokens (`!gplace.control`).

    Every op may carry `device` (the request as the user wrote it, any
    TensorFlow spelling), `name` (used in logs and errors) and, after
    placement, `assigned_device` (a full canonical device name). Every op
    accepts `after(%t, ...)`: it runs only once those control tokens are
    ready (`tf.control_dependencies`).

    A `func.func` may carry `gplace.default_device` (the device scope around
    the whole function), `gplace.device_policy` (a placement policy name)
    and `gplace.allow_soft_placement` (soft placement for its ops and the
    functions it calls, as --gplace-replicate marks its towers).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Name of the function attribute holding the function's device scope.
    static constexpr ::llvm::StringLiteral getDefaultDeviceAttrName() {
      return "gplace.default_device";
    }
    /// Name of the function attribute holding the placement policy's name.
    static constexpr ::llvm::StringLiteral getDevicePolicyAttrName() {
      return "gplace.device_policy";
    }
    /// Name of the unit function attribute that turns soft placement on for
    /// the function's ops and the functions it calls (set by
    /// --gplace-replicate on the functions it replicates).
    static constexpr ::llvm::StringLiteral getAllowSoftPlacementAttrName() {
      return "gplace.allow_soft_placement";
    }
    /// Name of the op attribute naming the op it is colocated with
    /// (TensorFlow's `_class = ["loc:@name"]`), set on backward ops by
    /// --gplace-differentiate.
    static constexpr ::llvm::StringLiteral getColocateWithAttrName() {
      return "gplace.colocate_with";
    }
    /// Name of the module attribute listing the devices compiled for.
    static constexpr ::llvm::StringLiteral getDevicesAttrName() {
      return "gplace.devices";
    }

    /// The placement policies --gplace-place may use (built-in ones, plus
    /// what the tool loaded from plugins): set by the tool that owns the
    /// context, before compiling.
    const ::gplace::PolicyRegistry &getPolicies() const { return *policies; }
    void setPolicies(const ::gplace::PolicyRegistry *registry) {
      policies = registry;
    }

    /// Where --gplace-place records why it put each op where it did
    /// (gplace/Support/PlacementReport.h), or null (the default) for
    /// nowhere: set by the tool that owns the context, which owns the
    /// report, before compiling; reset to null after.
    ::gplace::PlacementReport *getPlacementReport() const { return report; }
    void setPlacementReport(::gplace::PlacementReport *placementReport) {
      report = placementReport;
    }

  private:
    const ::gplace::PolicyRegistry *policies = nullptr;
    ::gplace::PlacementReport *report = nullptr;
    ::std::unique_ptr<::gplace::PolicyRegistry> builtinPolicies;
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Element and tensor constraints.
//===----------------------------------------------------------------------===//

defvar Graph_FloatElementTypes = [F32, F16, BF16, F64];
defvar Graph_IntElementTypes = [I32, I64];
defvar Graph_NumericElementTypes =
    !listconcat(Graph_FloatElementTypes, Graph_IntElementTypes);
// ui8, i8, i16, ui16 and ui32 are storage types (ONNX's narrow integers):
// cast, data movement and select take them; arithmetic is imported
// widened to i32 or i64 (docs/onnx.md).
defvar Graph_AllElementTypes =
    !listconcat(Graph_NumericElementTypes, [I1, UI8, I8, I16, UI16, UI32]);

def Graph_Tensor : StaticShapeTensorOf<Graph_AllElementTypes>;
def Graph_NumericTensor : StaticShapeTensorOf<Graph_NumericElementTypes>;
def Graph_FloatTensor : StaticShapeTensorOf<Graph_FloatElementTypes>;

// The variables that resource ops read and write: the resource of the
// memory effects of gplace.read and gplace.assign*.
def Graph_VariableResource : Resource<"::gplace::graph::VariableResource">;
// The links between tasks that gplace.send and gplace.recv use: their
// memory effects keep them, and keep them in order, in every pass.
def Graph_ChannelResource : Resource<"::gplace::graph::ChannelResource">;
// What the members of an all-reduce exchange (gplace.collective_reduce):
// its memory effects keep every member, used or not.
def Graph_CollectiveResource
    : Resource<"::gplace::graph::CollectiveResource">;

def Graph_ElementsAttr : ElementsAttrBase<
    And<[CPred<"::llvm::isa<::mlir::ElementsAttr>($_self)">,
         CPred<"::gplace::graph::isValidGraphTensorType("
               "::llvm::cast<::mlir::ElementsAttr>($_self).getType())">]>,
    "elements attribute of a statically shaped tensor of f32, f16, bf16, "
    "f64, i32, i64, i1, ui8, i8, i16, ui16 or ui32"> {
  let storageType = [{ ::mlir::ElementsAttr }];
  let returnType = [{ ::mlir::ElementsAttr }];
  let convertFromStorage = "$_self";
}

#endif // GPLACE_GRAPH_BASE
