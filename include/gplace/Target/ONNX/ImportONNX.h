//===- ImportONNX.h - ONNX models to gplace graphs --------------*- C++ -*-===//
//
// The ONNX importer (docs/onnx.md): an ONNX ModelProto, as PyTorch, Keras
// and tf2onnx export it, becomes one `func.func` of gplace graph ops. ONNX's
// own C++ library (Debian's libonnx-dev) reads the protobuf, runs the
// checker and shape inference and converts opsets older than 13 with the
// version converter; this file maps nodes to ops. What onnx-mlir's and IREE's
// ONNX importers do, for the graph dialect.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TARGET_ONNX_IMPORTONNX_H
#define GPLACE_TARGET_ONNX_IMPORTONNX_H

#include "gplace/Support/Status.h"
#include "gplace/Support/TensorType.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gplace::frontend {

/// One op type (or one form of a mapped op type) a model uses that the
/// importer cannot map: `reason` is "" for an op type it does not know.
struct OnnxUnsupported {
  std::string opType; ///< "Erf", or "domain.Type" outside the default domain.
  int64_t opset = 0;  ///< The model's opset for the op's domain.
  std::string reason; ///< "" or the form: "steps other than 1".
  int64_t nodes = 0;  ///< How many nodes.
};

/// Why an import failed, for tools that count (the conformance driver):
/// the diagnostics say the same in words.
struct OnnxImportReport {
  std::vector<OnnxUnsupported> unsupported; ///< Sorted by op type.
  /// An input, output, initializer or value of an element type (or a
  /// non-tensor type) gplace does not have.
  bool unsupportedType = false;
  /// A value whose shape ONNX's shape inference left dynamic.
  bool dynamicShape = false;
  /// The positions (in OnnxImportOptions::inputValues) of the inputs whose
  /// given values the graph was specialized for, ascending.
  std::vector<size_t> specializedInputs;
  /// A node draws random numbers (RandomUniform, RandomNormal, their Like
  /// forms, Bernoulli, Dropout in training mode: MapRandom.cpp): the
  /// outputs are gplace's draws, which no other implementation reproduces.
  bool random = false;
};

/// A sequence or optional value of an ONNX graph's input or output
/// (SequenceProto, OptionalProto), which the importer holds as an
/// import-time list of tensors (docs/onnx.md, "Sequences and optionals").
struct OnnxListValue {
  bool optional = false;   ///< An optional (else a sequence).
  bool present = true;     ///< An optional's presence (a sequence: true).
  bool ofSequence = false; ///< An optional holding a sequence.
  /// The tensors: a sequence's elements, an optional's one tensor or its
  /// sequence's elements (none where absent).
  std::vector<HostTensor> elements;
};

/// What the importer is told beyond the model.
struct OnnxImportOptions {
  /// Floating-point initializers become `gplace.variable`s read by
  /// `gplace.read` (trainable, checkpointed) instead of `gplace.constant`s
  /// (--initializers-as-variables). Integer initializers stay constants.
  bool initializersAsVariables = false;
  /// RNN, GRU and LSTM nodes are unrolled over the sequence into per-step
  /// graph ops even where one gplace.cudnn_rnn (oneDNN's RNN primitives)
  /// computes them (--unroll-recurrent; for comparing the two).
  bool unrollRecurrent = false;
  /// --dim values fixing the inputs' dynamic dimensions: "NAME=N" fixes
  /// every dimension named NAME (ONNX's dim_param); a bare "N" fixes the
  /// leading dimension (the batch) of every input whose leading dimension
  /// is dynamic, and is ambiguous where those dimensions have different
  /// names.
  std::vector<std::string> dims;
  /// The shapes of the values the graph's inputs will be given (those that
  /// are not initializers, in order; std::nullopt where not known), as
  /// gplace-run's --input files and literals have them: every dimension
  /// --dim leaves dynamic takes the given value's, as ONNX Runtime binds
  /// symbolic dimensions to its inputs' shapes. A symbolic dimension two
  /// inputs give different sizes is an error naming both.
  std::vector<std::optional<std::vector<int64_t>>> inputShapes;
  /// The values the graph's inputs will be given (in inputShapes' order;
  /// std::nullopt where not known). The importer reads one only where a
  /// node needs that input at import time, as an attribute (Resize's scales
  /// and sizes, TopK's k, OneHot's depth, Tile's repeats, Range's bounds:
  /// the inputs OnnxImportReport names otherwise "computed at run time"),
  /// and the graph is then valid for that value only, as TensorFlow's XLA
  /// compiles a cluster for the values of its compile-time-constant inputs;
  /// `report->specializedInputs` lists those inputs, for the caller to
  /// import again for other values. gplace-onnx-test gives each test's
  /// data set.
  std::vector<std::optional<HostTensor>> inputValues;
  /// The values of the graph's sequence and optional inputs (in
  /// inputShapes' order; std::nullopt for a tensor input): each element
  /// becomes a function argument of its own (named `NAME.0`, `NAME.1`, ...;
  /// none for an absent optional), of the element's type, and the graph is
  /// valid for that element count, those shapes and that presence only.
  /// A sequence or optional input without one is a dynamic-shape error.
  std::vector<std::optional<OnnxListValue>> inputLists;
  /// The name of the function the graph becomes.
  std::string entry = "main";
  /// Where the importer says why it failed (optional).
  OnnxImportReport *report = nullptr;
  /// Optional: asked about each op a node becomes (after decomposition);
  /// a non-empty answer ("no gplace.erf kernel for f64") marks the node's
  /// form unsupported, as an op type the importer does not know is. The
  /// importer itself does not ask whether ops can run: placement does, for
  /// the devices there are. A tool that runs on one known machine and
  /// counts unsupported forms (gplace-onnx-test, as ONNX Runtime's
  /// NOT_IMPLEMENTED) checks kernels here.
  std::function<std::string(mlir::Operation *)> checkOp;
};

/// Imports the ONNX model whose serialized ModelProto is `bytes`, read from
/// `path` (external-data tensors are read relative to its directory; it
/// names the model in diagnostics). Returns a module holding one public
/// `func.func @<entry>` whose arguments are the graph's inputs that are not
/// initializers and whose results are its outputs, in order; each node
/// becomes one or more graph ops named after it (the node's name, or its
/// first output's where it has none). Errors are diagnostics on `context`
/// and a null result: bytes that are not a model, the checker's and the
/// version converter's messages, a dimension neither --dim nor the inputs'
/// shapes fix, an output whose declared static shape differs from the one
/// gplace computes (the declared shapes of outputs and intermediate values
/// are checked, never trusted: the types come from ONNX's shape inference
/// over the fixed inputs, then node by node over the values the import has
/// folded to constants, as a Shape -> Gather -> Concat -> Reshape chain
/// folds), and one
/// message listing every unsupported op type (and unsupported form of a
/// mapped op) with its opset and node count.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModel(llvm::StringRef bytes, llvm::StringRef path,
                mlir::MLIRContext *context, const OnnxImportOptions &options);

/// The category of the ONNX importer's command-line options (--dim,
/// --initializers-as-variables), which a tool that links the importer
/// gets: declared once, in the importer (Flags.cpp).
llvm::cl::OptionCategory &onnxImportCategory();

/// OnnxImportOptions from those options (`dims`,
/// `initializersAsVariables`; the rest at their defaults).
OnnxImportOptions onnxImportOptionsFromFlags();

/// An OnnxImportOptions::checkOp that marks a node whose op has no CPU
/// kernel for its element type an unsupported form ("no gplace.erf kernel
/// for f64"), as ONNX Runtime's NOT_IMPLEMENTED: what gplace-onnx-test and
/// the Python package's ONNX backend count (KernelRegistry's host kernels).
/// Ops that are not KernelOpInterface (gplace.gradients) pass.
std::function<std::string(mlir::Operation *)> cpuKernelCheck();

/// The ONNX op types (default domain) the importer maps, sorted. A node of
/// one of them can still be refused for a form gplace lacks (an attribute
/// value, a rank, an element type without a kernel); the importer's error
/// says which.
std::vector<std::string> importableOpTypes();

/// How an ONNX graph's input or output is held.
enum class OnnxValueKind { Tensor, Sequence, Optional };

/// The kinds of the inputs that are not initializers and of the outputs of
/// the serialized ModelProto `bytes`, in order; an error if it does not
/// parse.
StatusOr<std::pair<std::vector<OnnxValueKind>, std::vector<OnnxValueKind>>>
onnxValueKinds(llvm::StringRef bytes);

/// Reads a serialized SequenceProto of tensors (`kind` Sequence) or
/// OptionalProto of a tensor or of a sequence of tensors (`kind` Optional),
/// as ONNX's backend tests hold sequence and optional inputs and outputs;
/// errors name the file and what is wrong (a sequence of sequences or of
/// maps, an element type gplace lacks).
StatusOr<OnnxListValue> readListProtoFile(llvm::StringRef path,
                                          OnnxValueKind kind);

/// True if `path` names an ONNX model by its extension (".onnx"), as
/// gplace-run decides whether to import its input.
inline bool isOnnxFileName(llvm::StringRef path) {
  return path.ends_with_insensitive(".onnx");
}

/// Reads a serialized ONNX TensorProto (the `input_0.pb` and `output_0.pb`
/// files of ONNX's backend tests) as a host tensor of f32, f16, bf16, f64,
/// i32, i64, bool (i1), uint8 (ui8), int8 (i8), int16 (i16), uint16
/// (ui16) or uint32 (ui32); raw and typed data, and external
/// data relative to the file's directory. Errors (invalid argument) name
/// the file and what is wrong: not a TensorProto, an element type gplace
/// has no twin for, data of the wrong size.
StatusOr<HostTensor> readTensorProtoFile(llvm::StringRef path);

} // namespace gplace::frontend

#endif // GPLACE_TARGET_ONNX_IMPORTONNX_H
